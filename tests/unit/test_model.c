// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of sbridge-core/model.c against hand-computed cases and the
 * S-Bridge paper's definitions (eqs. 1-3; docs/architecture.md,
 * References). Prints TAP.
 */
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "model.h"


static void test_penalty(void)
{
	/* 80 ns at 2 GHz = 160 cycles; unknown clock = 1 GHz. */
	EQ(sbridge_model_penalty_cycles(80, 2000000), 160, "penalty 80ns@2GHz");
	EQ(sbridge_model_penalty_cycles(80, 0), 80, "penalty 80ns@unknown");
	EQ(sbridge_model_penalty_cycles(0, 1000000), 1, "penalty never 0");
	EQ(sbridge_model_penalty_cycles(100, 720000), 72, "penalty 100ns@720MHz");
}

static void test_quantise(void)
{
	EQ(sbridge_model_quantise(0), 0, "q(0)");
	EQ(sbridge_model_quantise(1024), 1024, "q(1.0)");
	EQ(sbridge_model_quantise(2048), 1024, "q(>1) clamps");
	/* 0.3 is 307/1024: stays in bucket 3 (307). */
	EQ(sbridge_model_quantise(307), 307, "q(0.3)");
	/* 0.349 -> 0.3, 0.351 -> 0.4 (round to nearest). */
	EQ(sbridge_model_quantise(357), 307, "q(0.349)");
	EQ(sbridge_model_quantise(360), 409, "q(0.351)");
	EQ(sbridge_model_quantise(52), 102, "q(0.0508) -> 0.1");
	EQ(sbridge_model_quantise(51), 0, "q(0.0498) -> 0");
	EQ(sbridge_model_quantise(973), 1024, "q(0.9502) -> 1.0");
	EQ(sbridge_model_quantise(972), 921, "q(0.9492) -> 0.9");
}

static void test_cpi(void)
{
	struct sbridge_window w;
	struct sbridge_cpi c;

	/*
	 * 2e6 cycles, 1e6 instr, 2500 misses, penalty 160:
	 * CPI = 2.0 (2048), stall = 400000 cycles -> CPI_stall = 0.4 (409.6
	 * -> 409), CPI_base = 2048 - 409 = 1639, share = 1.6e6/2e6 = 0.8
	 * (819.2 -> 819), quantised 0.8 = 819.
	 */
	memset(&w, 0, sizeof(w));
	w.cycles = 2000000;
	w.instr = 1000000;
	w.misses = 2500;
	EQ(sbridge_model_cpi(&w, 160, &c), 0, "cpi ok");
	EQ(c.cpi, 2048, "CPI 2.0");
	EQ(c.cpi_stall, 409, "CPI_stall 0.4");
	EQ(c.cpi_base, 1639, "CPI_base = CPI - CPI_stall");
	EQ(c.share, 819, "share 0.8");
	EQ(c.share_q, 819, "share_q 0.8");

	/* Memory-bound: 3e6 cycles, 1e6 instr, 15000 misses x 160 = 2.4e6
	 * stall: share = 0.6e6/3e6 = 0.2 (204.8 -> 204), q = 204. */
	w.cycles = 3000000;
	w.misses = 15000;
	EQ(sbridge_model_cpi(&w, 160, &c), 0, "cpi ok (memory)");
	EQ(c.cpi, 3072, "CPI 3.0");
	EQ(c.cpi_stall, 2457, "CPI_stall 2.4");
	EQ(c.share, 204, "share 0.2");
	EQ(c.share_q, 204, "share_q 0.2");

	/* Stall larger than cycles is capped: share 0. */
	w.misses = 1000000;
	EQ(sbridge_model_cpi(&w, 160, &c), 0, "cpi ok (capped)");
	EQ(c.cpi_stall, c.cpi, "CPI_stall capped at CPI");
	EQ(c.share, 0, "share 0 when all stalled");
	/*
	 * ... unless stall cycles were counted: misses x penalty beyond the
	 * cycles (overlapped misses, stores not waited for) is no stall
	 * time, the count is (the rig charges a store miss a quarter of the
	 * latency: a table being cleared read all stall).
	 */
	w.stall = 600000;
	EQ(sbridge_model_cpi(&w, 160, &c), 0, "cpi ok (counted stall)");
	EQ(c.cpi_stall, 614, "CPI_stall 0.6 from the count, not misses x penalty");
	EQ(c.share, 819, "share 0.8, not 0");
	w.stall = 0;

	/* No misses, stall cycles instead: 1e6 of 4e6 cycles stalled. */
	memset(&w, 0, sizeof(w));
	w.cycles = 4000000;
	w.instr = 2000000;
	w.stall = 1000000;
	EQ(sbridge_model_cpi(&w, 160, &c), 0, "cpi ok (stall cycles)");
	EQ(c.cpi, 2048, "CPI 2.0 (stall)");
	EQ(c.cpi_stall, 512, "CPI_stall 0.5 from stall cycles");
	EQ(c.share, 768, "share 0.75");
	EQ(c.share_q, 819, "share_q 0.75 -> 0.8");

	/* Neither: share 1.0. */
	w.stall = 0;
	EQ(sbridge_model_cpi(&w, 160, &c), 0, "cpi ok (no stall data)");
	EQ(c.share_q, 1024, "share 1.0 without stall data");

	/* the most misses x the largest penalty: all stall, share 0. */
	w.instr = 1000;
	w.cycles = 4000;
	w.misses = 0xffffffffU;
	EQ(sbridge_model_cpi(&w, 0xffffffffU, &c), 0, "cpi ok (huge penalty)");
	EQ(c.cpi_stall, c.cpi, "overflowing stall saturates to all cycles");
	EQ(c.share, 0, "share 0 when every cycle stalls");

	/* Empty windows refuse. */
	memset(&w, 0, sizeof(w));
	w.cycles = 100;
	CHECK(sbridge_model_cpi(&w, 160, &c) != 0, "no instructions -> no sample");
	w.cycles = 0;
	w.instr = 100;
	CHECK(sbridge_model_cpi(&w, 160, &c) != 0, "no cycles -> no sample");
}

static void test_factor(void)
{
	/* Cap(k/j): big 1024 vs little 446 -> 2.2959 (2351). */
	EQ(sbridge_model_cap_ratio(1024, 446), 2351, "Cap(1024/446)");
	EQ(sbridge_model_cap_ratio(1024, 1024), 1024, "Cap(k/k) = 1");
	EQ(sbridge_model_cap_ratio(1024, 0), 1024, "Cap(x/0) = 1");
	/* LF = C x Cap x CPI_B(i/m): 1 x 1.5 x (0.8 / 1.0) = 1.2 (1228.8). */
	EQ(sbridge_model_factor(1024, 1536, 819, 1024), 1228, "LF 1x1.5x0.8");
	/* Reference m memory-bound (0.4), i compute (0.8): 1 x 1 x 2 = 2. */
	EQ(sbridge_model_factor(1024, 1024, 819, 409), 2050, "LF task ratio 2");
	/* C = 0.5, Cap = 2, share 1 -> 1.0. */
	EQ(sbridge_model_factor(512, 2048, 1024, 1024), 1024, "LF C=0.5 Cap=2");
	/* share_m 0 means 1.0. */
	EQ(sbridge_model_factor(1024, 1536, 1024, 0), 1536, "LF share_m=0 -> 1.0");
	/* Clamps: share 0 -> 1/8; huge -> 8. */
	EQ(sbridge_model_factor(1024, 2048, 0, 1024), SBRIDGE_FACTOR_MIN, "LF clamp min");
	EQ(sbridge_model_factor(8192, 8192, 1024, 102), SBRIDGE_FACTOR_MAX, "LF clamp max");
	EQ(sbridge_model_clamp(5000), 5000, "clamp passes in-range");
}

static void test_phase(void)
{
	struct sbridge_phase ph;
	int changes = 0, i;

	memset(&ph, 0, sizeof(ph));
	/* First sample founds phase 0. */
	CHECK(!sbridge_phase_update(&ph, 0, 819, 200, 3, 1024), "first sample no change");
	EQ(ph.nphases, 1, "one phase");
	EQ(sbridge_phase_share(&ph, 0, 0), 819, "phase 0 share 0.8 on type 0");
	EQ(sbridge_phase_share(&ph, 0, 1), SBRIDGE_SHARE_UNKNOWN, "not seen on type 1");
	/* Noise within delta: no change. */
	CHECK(!sbridge_phase_update(&ph, 0, 921, 200, 3, 1024), "0.9 within delta of 0.8");
	/* Two windows at 0.2 then back: no change (hysteresis). */
	changes += sbridge_phase_update(&ph, 0, 204, 200, 3, 1024);
	changes += sbridge_phase_update(&ph, 0, 204, 200, 3, 1024);
	changes += sbridge_phase_update(&ph, 0, 819, 200, 3, 1024);
	EQ(changes, 0, "2 windows < 3: no phase change");
	EQ(ph.cur, 0, "still phase 0");
	/* Three consecutive at 0.2: new phase 1. */
	CHECK(!sbridge_phase_update(&ph, 0, 204, 200, 3, 1024), "w1");
	CHECK(!sbridge_phase_update(&ph, 0, 204, 200, 3, 1024), "w2");
	CHECK(sbridge_phase_update(&ph, 0, 204, 200, 3, 1024), "w3 -> change");
	EQ(ph.cur, 1, "phase 1");
	EQ(ph.nphases, 2, "two phases");
	EQ(sbridge_phase_share(&ph, 1, 0), 204, "phase 1 share 0.2");
	/* Back to 0.8 for 3 windows: returns to the existing phase 0. */
	for (i = 0, changes = 0; i < 3; i++)
		changes += sbridge_phase_update(&ph, 0, 819, 200, 3, 1024);
	EQ(changes, 1, "one change back");
	EQ(ph.cur, 0, "back in phase 0");
	EQ(ph.nphases, 2, "no new phase for a known share");
	/* Fill the table, then a fifth share reuses a slot but not cur. */
	for (i = 0; i < 3; i++)
		sbridge_phase_update(&ph, 0, 512, 200, 3, 1024);
	for (i = 0; i < 3; i++)
		sbridge_phase_update(&ph, 0, 0, 200, 3, 1024);
	EQ(ph.nphases, 4, "four phases");
	EQ(ph.cur, 3, "phase 3 (share 0)");
	for (i = 0; i < 3; i++)
		sbridge_phase_update(&ph, 0, 1024 - 0, 200, 3, 1024);
	/* 1.0 is within 0.2 of phase 0 (0.8)? |1024-819| = 205 >= 200: new. */
	EQ(ph.nphases, 4, "still four phases (bounded)");
	CHECK(ph.cur != 3, "victim is not the current phase");
	EQ(sbridge_phase_share(&ph, ph.cur, 0), 1024, "recycled slot holds 1.0");
	/* nwin = 1: immediate. */
	memset(&ph, 0, sizeof(ph));
	sbridge_phase_update(&ph, 0, 0, 200, 1, 1024);
	CHECK(sbridge_phase_update(&ph, 0, 1024, 200, 1, 1024), "nwin 1 changes at once");
}

/*
 * The phase key does not depend on the core type: the same code shows
 * another share on a core with a bigger cache, and a migration is no
 * phase change (measured-speedup review: the phase must not follow the
 * type, or each type's accumulator holds different phases).
 */
static void test_phase_types(void)
{
	struct sbridge_phase ph;
	int i, changes = 0;

	memset(&ph, 0, sizeof(ph));
	/* on little (type 0): memory-bound look, 0.3 */
	for (i = 0; i < 5; i++)
		changes += sbridge_phase_update(&ph, 0, 307, 200, 3, 1024);
	/* migrated to big (type 1): its LLC holds the data, 0.9 */
	for (i = 0; i < 5; i++)
		changes += sbridge_phase_update(&ph, 1, 921, 200, 3, 1024);
	EQ(changes, 0, "a migration is not a phase change");
	EQ(ph.nphases, 1, "one phase, two centroids");
	EQ(sbridge_phase_share(&ph, 0, 1), 921, "phase 0 on big: 0.9");
	EQ(sbridge_phase_share(&ph, 0, 0), 307, "phase 0 on little: 0.3");
	/* a real change, seen on big, makes phase 1 */
	for (i = 0; i < 3; i++)
		changes += sbridge_phase_update(&ph, 1, 204, 200, 3, 1024);
	EQ(changes, 1, "a change on one type is a change");
	EQ(ph.cur, 1, "phase 1");
	/* back on little in phase 1: its little centroid is learned */
	CHECK(!sbridge_phase_update(&ph, 0, 102, 200, 3, 1024), "phase 1 first seen on little");
	EQ(sbridge_phase_share(&ph, 1, 0), 102, "phase 1 on little: 0.1");
	/* on little, phase 0's look (0.3) takes it back to phase 0 */
	for (i = 0, changes = 0; i < 3; i++)
		changes += sbridge_phase_update(&ph, 0, 307, 200, 3, 1024);
	EQ(changes, 1, "phase 0 recognised on little");
	EQ(ph.cur, 0, "back in phase 0");
	/* candidates do not mix types: 2 on big + 1 on little is no run */
	sbridge_phase_update(&ph, 1, 204, 200, 3, 1024);
	sbridge_phase_update(&ph, 1, 204, 200, 3, 1024);
	CHECK(!sbridge_phase_update(&ph, 0, 102, 200, 3, 1024), "a type switch restarts a candidate");
	EQ(ph.cur, 0, "still phase 0");
	EQ(sbridge_phase_update(&ph, 9, 0, 200, 1, 1024), 0, "type out of range: ignored");
}

/*
 * A phase first seen on a second type must be code it can be: the stall
 * time per instruction does not grow on the faster type, the compute part
 * shrinks by at most the gain. All stall on big (0.0) is not computing
 * on little (0.8): a new phase, after phase_windows windows.
 */
static void test_phase_fits(void)
{
	struct sbridge_phase ph;
	int i, changes = 0;

	memset(&ph, 0, sizeof(ph));
	sbridge_phase_update(&ph, 1, 0, 200, 3, 1024);
	for (i = 0; i < 3; i++)
		changes += sbridge_phase_update(&ph, 0, 819, 200, 3, 1024);
	EQ(changes, 1, "0.0 on big then 0.8 on little: a phase change");
	EQ(ph.nphases, 2, "two phases");
	EQ(sbridge_phase_share(&ph, 0, 0), SBRIDGE_SHARE_UNKNOWN,
	   "phase 0 has no little centroid");
	/* on big, 0.6 is phase 1's compute part halved: the same code */
	CHECK(!sbridge_phase_update(&ph, 1, 614, 200, 3, 1024), "phase 1 seen on big");
	EQ(sbridge_phase_share(&ph, 1, 1), 614, "its big centroid 0.6");
	/* little first (0.8), then big at 0.2: it cannot stall that much more */
	memset(&ph, 0, sizeof(ph));
	sbridge_phase_update(&ph, 0, 819, 200, 3, 1024);
	for (i = 0, changes = 0; i < 3; i++)
		changes += sbridge_phase_update(&ph, 1, 204, 200, 3, 1024);
	EQ(changes, 1, "0.8 on little then 0.2 on big: a phase change");
	/* memory-bound on both (0.1 on little, 0.0 on big): one phase */
	memset(&ph, 0, sizeof(ph));
	sbridge_phase_update(&ph, 0, 102, 200, 3, 1024);
	CHECK(!sbridge_phase_update(&ph, 1, 0, 200, 3, 1024), "0.1 and 0.0: one phase");
	EQ(ph.nphases, 1, "one phase, two centroids");
}

static void test_group(void)
{
	u8 type[16];
	u32 tcap[SBRIDGE_MAX_CORE_TYPES];
	int n;

	/* 1+3+4 (e.g. SD855: 1 prime, 3 gold, 4 silver), CPUs unordered. */
	const u32 c1[8] = { 380, 380, 380, 380, 870, 870, 870, 1024 };
	const u32 c2[8] = { 1024, 870, 380, 870, 380, 380, 870, 380 };

	n = sbridge_group_types(c1, 8, type, tcap, SBRIDGE_MAX_CORE_TYPES);
	EQ(n, 3, "1+3+4 -> 3 types");
	EQ(type[0], 0, "cpu0 little");
	EQ(type[4], 1, "cpu4 middle");
	EQ(type[7], 2, "cpu7 big");
	EQ(tcap[0], 380, "type 0 cap");
	EQ(tcap[1], 870, "type 1 cap");
	EQ(tcap[2], 1024, "type 2 cap");

	n = sbridge_group_types(c2, 8, type, tcap, SBRIDGE_MAX_CORE_TYPES);
	EQ(n, 3, "shuffled 1+3+4 -> 3 types");
	EQ(type[0], 2, "shuffled cpu0 big");
	EQ(type[1], 1, "shuffled cpu1 middle");
	EQ(type[2], 0, "shuffled cpu2 little");

	/* Symmetric. */
	{
		const u32 s[4] = { 1024, 1024, 1024, 1024 };

		n = sbridge_group_types(s, 4, type, tcap, SBRIDGE_MAX_CORE_TYPES);
		EQ(n, 1, "symmetric -> 1 type");
		EQ(type[3], 0, "symmetric type 0");
	}
	/* 1B-3S as QEMU reports it, with 1% jitter inside a type. */
	{
		const u32 s[4] = { 1024, 446, 450, 443 };

		n = sbridge_group_types(s, 4, type, tcap, SBRIDGE_MAX_CORE_TYPES);
		EQ(n, 2, "1B-3S -> 2 types");
		EQ(type[0], 1, "1B-3S cpu0 big");
		EQ(type[2], 0, "1B-3S cpu2 little");
		EQ(tcap[0], 446, "little mean cap (446+450+443)/3");
	}
	/* More levels than types: closest pair merged. */
	{
		const u32 s[5] = { 100, 200, 400, 800, 850 };

		n = sbridge_group_types(s, 5, type, tcap, SBRIDGE_MAX_CORE_TYPES);
		EQ(n, 4, "5 levels -> 4 types");
		EQ(type[3], 3, "800 merged with 850");
		EQ(type[4], 3, "850 merged with 800");
		EQ(tcap[3], 825, "merged mean");
	}
	/* Offline (0) CPUs ignored; empty input. */
	{
		const u32 s[3] = { 0, 512, 1024 };

		n = sbridge_group_types(s, 3, type, tcap, SBRIDGE_MAX_CORE_TYPES);
		EQ(n, 2, "offline ignored");
		EQ(type[2], 1, "1024 is big");
		EQ(sbridge_group_types(s, 0, type, tcap, 4), 0, "no cpus -> 0");
	}
}

static void test_wavg(void)
{
	EQ(sbridge_model_wavg(1024, 0, 204, 3), 204, "wavg: no history");
	EQ(sbridge_model_wavg(1024, 3, 0, 1), 768, "wavg 3:1");
	EQ(sbridge_model_wavg(77, 0, 5, 0), 77, "wavg: no weights");
}

int main(void)
{
	test_penalty();
	test_quantise();
	test_cpi();
	test_factor();
	test_phase();
	test_phase_types();
	test_phase_fits();
	test_group();
	test_wavg();
	return TAP_DONE();
}
