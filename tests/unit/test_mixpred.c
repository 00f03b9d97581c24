// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of sbridge-core/mixpred.c: the class shares a task keeps,
 * the fixed-point predictor against a floating-point reference of the
 * same formula, the coefficient checks and the line parser, and the case
 * the predictor is for: two compute-bound mixes eq. 3 cannot tell apart.
 * Prints TAP. Host code: floating point is fine here, never in the module.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "mixpred.h"
#include "speedup.h"

static double fp(u32 v)
{
	return v / 1024.0;
}

/* A board like the rig's A15/A7 pair: CPI per term, clock 1600/1200. */
static void board(struct sbridge_mixcoef *c)
{
	/* other, ldst, int, fp, branch */
	static const double f[SBRIDGE_MIX_TERMS] = { 0.45, 0.6, 0.45, 0.8, 0.6 };
	static const double s[SBRIDGE_MIX_TERMS] = { 0.65, 1.0, 0.65, 1.6, 0.9 };
	int k;

	for (k = 0; k < SBRIDGE_MIX_TERMS; k++) {
		c->cpi[0][k] = (u32)lround(f[k] * 1024);
		c->cpi[1][k] = (u32)lround(s[k] * 1024);
	}
	c->clock = (u32)lround(1600.0 / 1200.0 * 1024);
	c->err = 61;
}

/* The same prediction in floating point. */
static double ref_predict(const struct sbridge_mixcoef *c, const double *sh,
			  double stall, int on_fast, double rho)
{
	double cf = 0, cs = 0, sum = 0, clk = fp(c->clock);
	int k;

	for (k = 0; k < SBRIDGE_MIX_NR; k++) {
		cf += fp(c->cpi[0][k + 1]) * sh[k];
		cs += fp(c->cpi[1][k + 1]) * sh[k];
		sum += sh[k];
	}
	if (sum < 1) {
		cf += fp(c->cpi[0][0]) * (1 - sum);
		cs += fp(c->cpi[1][0]) * (1 - sum);
	}
	if (!on_fast)
		return (cs * clk + stall * clk) / (cf + stall * clk / rho);
	return (cs * clk + stall * rho) / (cf + stall);
}

static void to_mix(const double *sh, u16 *mix)
{
	int k;

	for (k = 0; k < SBRIDGE_MIX_NR; k++)
		mix[k] = (u16)lround(sh[k] * SBRIDGE_MIX_ONE);
}

static void test_update(void)
{
	u16 mix[SBRIDGE_MIX_NR] = { 0 };
	u64 cls[SBRIDGE_MIX_NR] = { 300, 500, 0, 200 };
	u64 big[SBRIDGE_MIX_NR] = { ~0ULL, 0, 0, 0 };
	u64 other[SBRIDGE_MIX_NR] = { 1000, 0, 0, 0 };

	CHECK(!sbridge_mix_known(mix), "no shares: not known");
	sbridge_mix_update(mix, cls, 0, 4000);
	CHECK(!sbridge_mix_known(mix), "a delta without instructions changes nothing");
	sbridge_mix_update(mix, cls, 1000, 4000);
	EQ(mix[0], 300 * SBRIDGE_MIX_ONE / 1000, "the first delta sets the ldst share");
	EQ(mix[1], 500 * SBRIDGE_MIX_ONE / 1000, "... and the int share");
	EQ(mix[2], 0, "... and fp");
	CHECK(sbridge_mix_known(mix), "classes that sum to 1.0 are known");
	/* 1000 instructions of loads only against a history of 4000: 1/5 */
	sbridge_mix_update(mix, other, 1000, 4000);
	EQ(mix[0], 9830 + (SBRIDGE_MIX_ONE - 9830 + 4) / 5,
	   "a delta moves a share by n / (n + hist) of the way, rounded up");
	EQ(mix[1], 16384 - (16384 + 4) / 5, "... down as well");
	/* a long stretch converges */
	for (int i = 0; i < 200; i++)
		sbridge_mix_update(mix, other, 1000, 4000);
	EQ(mix[0], SBRIDGE_MIX_ONE, "a steady mix converges to its shares");
	EQ(mix[1], 0, "... and a class that stopped to 0");
	sbridge_mix_update(mix, big, 1, 4000);
	EQ(mix[0], SBRIDGE_MIX_ONE + (0xffff - SBRIDGE_MIX_ONE + 4000) / 4001,
	   "an absurd count saturates, weighted as one instruction");
}

static void test_known(void)
{
	u16 half[SBRIDGE_MIX_NR] = { SBRIDGE_MIX_ONE / 2, 0, 0, 0 };
	u16 low[SBRIDGE_MIX_NR] = { SBRIDGE_MIX_ONE / 2 - 1, 0, 0, 0 };
	u16 over[SBRIDGE_MIX_NR] = { SBRIDGE_MIX_ONE, SBRIDGE_MIX_ONE / 2, 1, 0 };
	u16 max[SBRIDGE_MIX_NR] = { SBRIDGE_MIX_ONE, SBRIDGE_MIX_ONE / 2, 0, 0 };

	CHECK(sbridge_mix_known(half), "classes covering half the instructions count");
	CHECK(!sbridge_mix_known(low), "less than half: a PMU counting 0 for events it lacks");
	CHECK(sbridge_mix_known(max), "1.5x the instructions still counts (speculation)");
	CHECK(!sbridge_mix_known(over), "more is not what the classes claim");
}

static void test_cpi(void)
{
	struct sbridge_mixcoef c;
	u16 mix[SBRIDGE_MIX_NR] = { 0 };
	int k;

	board(&c);
	for (k = 0; k < SBRIDGE_MIX_NR; k++) {
		memset(mix, 0, sizeof(mix));
		mix[k] = SBRIDGE_MIX_ONE;
		EQ(sbridge_mix_cpi(c.cpi[1], mix), c.cpi[1][k + 1],
		   "a pure class costs its coefficient");
	}
	memset(mix, 0, sizeof(mix));
	mix[0] = SBRIDGE_MIX_ONE / 2;
	EQ(sbridge_mix_cpi(c.cpi[0], mix), (c.cpi[0][1] + c.cpi[0][0] + 1) / 2,
	   "instructions in no class cost the 'other' term");
}

static void test_predict(void)
{
	struct sbridge_mixcoef c;
	double worst = 0, worst_mem = 0;
	u16 mix[SBRIDGE_MIX_NR];
	int i, k, side;

	board(&c);
	srand(27);
	for (i = 0; i < 20000; i++) {
		double sh[SBRIDGE_MIX_NR], sum = 0, stall, want, e, r, dl;
		u32 got, st, rho, mem;

		for (k = 0; k < SBRIDGE_MIX_NR; k++) {
			sh[k] = rand() / (double)RAND_MAX;
			sum += sh[k];
		}
		/* shares summing to 0.6 .. 1.2 */
		for (k = 0; k < SBRIDGE_MIX_NR; k++)
			sh[k] *= (0.6 + 0.6 * rand() / (double)RAND_MAX) / sum;
		to_mix(sh, mix);
		for (k = 0; k < SBRIDGE_MIX_NR; k++)
			sh[k] = mix[k] / (double)SBRIDGE_MIX_ONE;
		st = (u32)(rand() % (40 * 1024));
		stall = fp(st);
		side = rand() & 1;
		/* half with no ratio (1.0), half 0.7 .. 2.5 */
		rho = rand() & 1 ? 0 : 717 + (u32)(rand() % (2560 - 717));
		/* the scale the kernel passes: rho seen from the fast side,
		 * 1 / rho from the slow
		 */
		got = sbridge_mix_predict(&c, mix, st, side,
					  !rho || side ? rho :
					  (u32)((1024ULL * 1024 + rho / 2) / rho), &mem);
		want = ref_predict(&c, sh, stall, side, rho ? fp(rho) : 1.0);
		if (want > fp(SBRIDGE_FACTOR_MAX))
			want = fp(SBRIDGE_FACTOR_MAX);
		e = fabs(fp(got) - want) / want;
		if (e > worst)
			worst = e;
		/* @mem: |d ln(speedup) / d ln(rho)|, by a 1 % step of the formula */
		r = rho ? fp(rho) : 1.0;
		dl = log(ref_predict(&c, sh, stall, side, r * 1.01) /
			 ref_predict(&c, sh, stall, side, r)) / log(1.01);
		if (fabs(dl - fp(mem)) > worst_mem)
			worst_mem = fabs(dl - fp(mem));
	}
	CHECK(worst < 0.002, "fixed point within 0.2 %% of the formula over 20000 mixes (worst %.4f %%)",
	      worst * 100);
	CHECK(worst_mem < 0.01, "the ratio's leverage within 0.01 of the formula's (worst %.4f)",
	      worst_mem);
	/* a slow type's longer stalls: less to gain, the more it stalls */
	memset(mix, 0, sizeof(mix));
	mix[1] = SBRIDGE_MIX_ONE;
	CHECK(sbridge_mix_predict(&c, mix, 2 * 1024, true, 1536, NULL) >
	      sbridge_mix_predict(&c, mix, 2 * 1024, true, 0, NULL),
	      "stalls 1.5x longer on the slow type: a larger speedup seen from the fast side");
	/* from the slow side the fast type's stalls are 1 / 1.5 of its own */
	CHECK(sbridge_mix_predict(&c, mix, 2 * 1024, false, 683, NULL) >
	      sbridge_mix_predict(&c, mix, 2 * 1024, false, 0, NULL),
	      "... and from the slow side");
	EQ(sbridge_mix_predict(&c, mix, 2 * 1024, true, 1024, NULL),
	   sbridge_mix_predict(&c, mix, 2 * 1024, true, 0, NULL), "a ratio of 1.0 is no ratio");

	/* memory-bound: the stall dominates, the speedup tends to 1 */
	memset(mix, 0, sizeof(mix));
	mix[1] = SBRIDGE_MIX_ONE;
	CHECK(sbridge_mix_predict(&c, mix, 200 * 1024, true, 0, NULL) < 1024 + 20,
	      "a window stalled 200 cycles per instruction gains almost nothing (%.3f)",
	      fp(sbridge_mix_predict(&c, mix, 200 * 1024, true, 0, NULL)));
	/* the stall seen on the slow type is fewer cycles for the same time */
	CHECK(sbridge_mix_predict(&c, mix, 3 * 1024, false, 0, NULL) <
	      sbridge_mix_predict(&c, mix, 3 * 1024, true, 0, NULL),
	      "3 stall cycles on the slow type take longer than 3 on the fast one");
	CHECK(abs((int)sbridge_mix_predict(&c, mix, 3 * 1024, false, 0, NULL) -
		  (int)sbridge_mix_predict(&c, mix, 4 * 1024, true, 0, NULL)) <= 2,
	      "... as long as 4 of the fast one's (clock 4/3)");
	/* a zero-cost model cannot divide by zero */
	memset(&c, 0, sizeof(c));
	EQ(sbridge_mix_predict(&c, mix, 0, true, 0, NULL), 1024, "no cycles at all: 1.0");
}

/* What eq. 3 cannot see: two compute-bound mixes, same stall share. */
static void test_mix_vs_eq3(void)
{
	/* ldst, int, fp, branch: an integer loop and its FP twin */
	static const double a[SBRIDGE_MIX_NR] = { 0.35, 0.50, 0.00, 0.15 };
	static const double b[SBRIDGE_MIX_NR] = { 0.35, 0.15, 0.35, 0.15 };
	struct sbridge_mixcoef c;
	u16 ma[SBRIDGE_MIX_NR], mb[SBRIDGE_MIX_NR];
	u32 pa, pb, ea, eb, gain = 512;

	board(&c);
	to_mix(a, ma);
	to_mix(b, mb);
	pa = sbridge_mix_predict(&c, ma, 0, true, 0, NULL);
	pb = sbridge_mix_predict(&c, mb, 0, true, 0, NULL);
	CHECK(pb > pa + 100, "the FP twin gains more: %.3f vs %.3f", fp(pb), fp(pa));
	CHECK(fabs(fp(pa) - ref_predict(&c, a, 0, 1, 1.0)) < 0.01 &&
	      fabs(fp(pb) - ref_predict(&c, b, 0, 1, 1.0)) < 0.01,
	      "both as the board's CPI tables say (%.3f, %.3f)",
	      ref_predict(&c, a, 0, 1, 1.0), ref_predict(&c, b, 0, 1, 1.0));
	ea = sbridge_est_predict(1024, true, gain);
	eb = sbridge_est_predict(1024, true, gain);
	EQ(ea, eb, "eq. 3 predicts them alike (share 1.0 both)");
}

static void test_parse(void)
{
	struct sbridge_mixcoef c;
	unsigned int f, s;
	static const char *const bad[] = {
		"",
		"1 0 1365 61 461 614 461 819 614 666 1024 666 1638 922 7",
		"1 0 1365 61 461 614 461 819 614 666 1024 666 1638",
		"1 0 1365 61 461 614 461 819 614 666 1024 666 1638 x",
		"1 0 1365 61 461 614 461 819 614 666 1024 666 -1638 922",
		"1 0 1365 61 461 614 461 819 614 666 1024 666 1638 922x",
		"1 1 1365 61 461 614 461 819 614 666 1024 666 1638 922",
		"4 0 1365 61 461 614 461 819 614 666 1024 666 1638 922",
		"1 0 1365 61 0 614 461 819 614 666 1024 666 1638 922",
		"1 0 1365 61 461 614 461 819 614 666 1024 666 1638 65537",
		"1 0 127 61 461 614 461 819 614 666 1024 666 1638 922",
		"1 0 8193 61 461 614 461 819 614 666 1024 666 1638 922",
		"1 0 1365 9 461 614 461 819 614 666 1024 666 1638 922",
		"1 0 1365 4097 461 614 461 819 614 666 1024 666 1638 922",
		"1 0 1365 61 461 614 461 819 614 666 1024 666 1638 99999999999",
	};
	unsigned int i;

	EQ(sbridge_mixcoef_parse("1 0 1365 61 461 614 461 819 614 666 1024 666 1638 922",
				 &f, &s, &c), 0, "a good line parses");
	CHECK(f == 1 && s == 0 && c.clock == 1365 && c.err == 61 &&
	      c.cpi[0][3] == 819 && c.cpi[1][4] == 922,
	      "... into the pair, clock, error and both types' CPIs");
	EQ(sbridge_mixcoef_parse("\t2 1  1024 10 1 1 1 1 1 65536 65536 65536 65536 65536",
				 &f, &s, &c), 0, "blanks and the bounds are fine");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(sbridge_mixcoef_parse(bad[i], &f, &s, &c) == -EINVAL,
		      "refused: '%s'", bad[i]);
}

int main(void)
{
	test_update();
	test_known();
	test_cpi();
	test_predict();
	test_mix_vs_eq3();
	test_parse();
	return TAP_DONE();
}
