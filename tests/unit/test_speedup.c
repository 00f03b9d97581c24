// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of sbridge-core/speedup.c: the log arithmetic, the
 * accumulators, warm-up, the trust (error) rule, the combination of
 * prediction and measurement, and the selection-bias cases the
 * measured-speedup review reproduced on the rig, replayed here as window
 * sequences through the same functions the switch path calls. Prints TAP.
 * Host code: floating point is fine here, never in the module.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "speedup.h"


static double fp(u32 v)
{
	return v / 1024.0;
}

static double relerr(double got, double want)
{
	return fabs(got - want) / want;
}

static void test_log(void)
{
	double worst = 0, worst_r = 0;
	u64 x;
	int i, j;

	EQ(sbridge_lg(0), 0, "lg(0)");
	EQ(sbridge_lg(1), 0, "lg(1)");
	EQ(sbridge_lg(2), 128, "lg(2) = 1.0");
	EQ(sbridge_lg(1024), 1280, "lg(1024) = 10.0");
	EQ(sbridge_lg(~0ULL), SBRIDGE_LG_MAX, "lg saturates");
	for (x = 3; x < (1ULL << 31); x = x * 7 / 5 + 1) {
		double e = relerr((double)sbridge_lg_exp(sbridge_lg(x)), (double)x);

		if (x > 1000 && e > worst)
			worst = e;
	}
	CHECK(worst < 0.003, "exp(lg(x)) within 0.3 %% of x (worst %.4f)", worst);
	/* ratios over the factor range: within half a log step */
	for (i = 1; i <= 64; i++) {
		for (j = 1; j <= 64; j++) {
			double want = (double)(1000 * i) / (1000 * j);
			u32 r = sbridge_lg_ratio(sbridge_lg(16000ULL * i), sbridge_lg(16000ULL * j));

			if (want < 0.125 || want > 8)
				continue;
			if (relerr(fp(r), want) > worst_r)
				worst_r = relerr(fp(r), want);
		}
	}
	/* two logs each rounded to half a step of 0.54 %% */
	CHECK(worst_r < 0.008, "lg_ratio within 0.8 %% (worst %.4f)", worst_r);
	EQ(sbridge_lg_ratio(SBRIDGE_LG_MAX, 0), SBRIDGE_FACTOR_MAX, "ratio clamps high");
	EQ(sbridge_lg_ratio(0, SBRIDGE_LG_MAX), SBRIDGE_FACTOR_MIN, "ratio clamps low");
	EQ(sbridge_isqrt(0), 0, "isqrt 0");
	EQ(sbridge_isqrt(1048576), 1024, "isqrt 2^20");
	EQ(sbridge_isqrt(1048575), 1023, "isqrt floors");
}

static void test_tpi(void)
{
	struct sbridge_window w = { .cycles = 2000000, .instr = 1000000 };

	/* 2 cycles an instruction at 1 GHz: 2 ns = 32000 units */
	EQ(sbridge_window_tpi(&w, 0, 1000000, 0), 32000, "2 ns per instruction");
	/* at 2 GHz: 1 ns */
	EQ(sbridge_window_tpi(&w, 0, 2000000, 0), 16000, "clock halves the time");
	/* normalised: running at half its 2 GHz reference, compute part at 2 GHz */
	EQ(sbridge_window_tpi(&w, 0, 1000000, 2000000), 16000, "DVFS step normalised away");
	/* but stalls take the time they took: 1 M stall cycles at 1 GHz = 1 ms */
	EQ(sbridge_window_tpi(&w, 1000000, 1000000, 2000000), 24000,
	   "stall time is not normalised");
	EQ(sbridge_window_tpi(&w, 0, 0, 2000000), 0, "unknown clock: no time");
	w.instr = 0;
	EQ(sbridge_window_tpi(&w, 0, 1000000, 0), 0, "no instructions: no time");
	EQ(sbridge_clock_khz(1600000, 1000000), 1600000, "1.6 M cycles in 1 ms: 1.6 GHz");
	EQ(sbridge_clock_khz(32, 1000), 32000, "the rig's paced 32 MHz");
	EQ(sbridge_clock_khz(5, 0), 0, "no time: no clock");
}

static void test_cell(void)
{
	struct sbridge_acc a;
	u16 c = 0;
	u8 dev = 0;
	int i;

	c = sbridge_tcell_add(c, 1280, &dev);
	sbridge_tcell_get(c, dev, &a);
	CHECK(a.n == 1 && a.lg == 1280 && dev == 0, "first window: n 1, mean, no spread");
	c = sbridge_tcell_add(c, 1300, &dev);
	sbridge_tcell_get(c, dev, &a);
	CHECK(a.n == 2 && a.lg == 1290 && dev == 20, "second: plain mean 1290, spread 20 (got %u, %u)",
	      a.lg, dev);
	for (i = 0; i < 100; i++)
		c = sbridge_tcell_add(c, 1500, &dev);
	sbridge_tcell_get(c, dev, &a);
	EQ(a.n, SBRIDGE_TCELL_N_MAX, "n saturates");
	CHECK(a.lg >= 1498 && a.lg <= 1500, "mean follows the task (got %u)", a.lg);
	CHECK(dev <= 2, "spread falls when windows agree (got %u)", dev);
	c = sbridge_tcell_add(c, 9999, &dev);
	sbridge_tcell_get(c, dev, &a);
	CHECK(a.lg <= SBRIDGE_LG_MAX, "input clamped to the log range");
}

static void test_fold(void)
{
	struct sbridge_acc m = { 0 }, f = { .lg = 1000, .n = 10, .dev = 5 };
	int i;

	sbridge_acc_fold(&m, &f, 8, 64);
	CHECK(m.lg == 1000 && m.n == 8 && m.dev == 5, "first fold takes the task's");
	f.lg = 1100;
	sbridge_acc_fold(&m, &f, 8, 64);
	CHECK(m.lg == 1050 && m.dev == 53, "8 against 8: halfway, spread between folds (got %u, %u)",
	      m.lg, m.dev);
	for (i = 0; i < 40; i++)
		sbridge_acc_fold(&m, &f, 8, 64);
	CHECK(m.lg >= 1098, "history is bounded: it follows (got %u)", m.lg);
	CHECK(m.dev < 5, "and agrees again (spread %u)", m.dev);
	f.n = 0;
	sbridge_acc_fold(&m, &f, 8, 64);
	CHECK(m.lg >= 1098, "an empty cell folds nothing");
}

static void test_warm(void)
{
	struct sbridge_window w = { .cycles = 1000000, .instr = 1000000 };
	struct sbridge_warm s;
	/* a cache refill: misses per million falling, then flat */
	static const u32 refill[] = { 50000, 30000, 15000, 8000, 5000, 5000, 5000 };
	enum sbridge_win_kind k[7];
	unsigned int i;

	sbridge_warm_reset(&s, 2000000);
	for (i = 0; i < 7; i++) {
		w.misses = refill[i];
		k[i] = sbridge_warm_classify(&s, &w, true);
	}
	CHECK(k[0] == SBRIDGE_WIN_COLD && k[1] == SBRIDGE_WIN_COLD,
	      "2 M instructions skipped after a migration");
	CHECK(k[2] == SBRIDGE_WIN_COLD && k[3] == SBRIDGE_WIN_COLD && k[4] == SBRIDGE_WIN_COLD,
	      "then cold while misses still fall by a fifth");
	CHECK(k[5] == SBRIDGE_WIN_WARM && k[6] == SBRIDGE_WIN_WARM, "warm once they settle");
	/* never more than SBRIDGE_WARM_EXTRA_MAX extra windows */
	sbridge_warm_reset(&s, 0);
	for (i = 0, w.misses = 1 << 20; i < 10; i++, w.misses /= 2)
		k[i % 7] = sbridge_warm_classify(&s, &w, true);
	EQ(s.extra, SBRIDGE_WARM_EXTRA_MAX, "refill waits are bounded");
	/* compute-bound noise (a few misses) is no refill */
	sbridge_warm_reset(&s, 0);
	w.misses = 90;
	sbridge_warm_classify(&s, &w, true);
	w.misses = 30;
	CHECK(sbridge_warm_classify(&s, &w, true) == SBRIDGE_WIN_WARM,
	      "a fall of 60 per million is noise, not a refill");
	/* without a miss counter, instructions alone */
	sbridge_warm_reset(&s, 1000000);
	CHECK(sbridge_warm_classify(&s, &w, false) == SBRIDGE_WIN_COLD &&
	      sbridge_warm_classify(&s, &w, false) == SBRIDGE_WIN_WARM,
	      "no miss counter: warm after the instructions");
}

static void test_measure(void)
{
	struct sbridge_acc f[4] = { { 0 } }, s[4] = { { 0 } };
	struct sbridge_est e, p, b;

	CHECK(sbridge_est_measure(f, s, 4, 0, 5, &e) == -1, "nothing on both types: none");
	/* phase 0 on big only, phase 1 on little only: still none */
	f[0] = (struct sbridge_acc){ .lg = 1280, .n = 15, .dev = 3 };
	s[1] = (struct sbridge_acc){ .lg = 1408, .n = 15, .dev = 3 };
	CHECK(sbridge_est_measure(f, s, 4, 0, 5, &e) == -1,
	      "different phases on each type are not compared");
	/* phase 0 on both: 2^(128/128) = 2.0 */
	s[0] = (struct sbridge_acc){ .lg = 1408, .n = 15, .dev = 3 };
	CHECK(!sbridge_est_measure(f, s, 4, 0, 5, &e) && e.val == 2048,
	      "ratio of the phase's means: 2.0 (got %u)", e.val);
	CHECK(fp(e.err) / fp(e.val) < 0.06, "15 windows each, 5 visits: < 6 %% (%.3f)",
	      fp(e.err) / fp(e.val));
	/* one window on the fast type, one visit: weaker than a 20 % prediction */
	f[0].n = 1;
	sbridge_est_measure(f, s, 4, 0, 1, &e);
	CHECK(fp(e.err) / fp(e.val) > 0.2, "1 window, 1 visit: > 20 %% (%.3f)",
	      fp(e.err) / fp(e.val));
	/* one visit costs: the same windows in 2 visits are surer */
	f[0].n = 8;
	sbridge_est_measure(f, s, 4, 0, 1, &e);
	sbridge_est_measure(f, s, 4, 0, 2, &b);
	CHECK(b.err * 3 / 2 < e.err, "2 visits halve the error of 1 (%u vs %u)", b.err, e.err);
	/* the current phase weighs four times */
	f[1] = (struct sbridge_acc){ .lg = 1152, .n = 8, .dev = 3 };
	sbridge_est_measure(f, s, 4, 1, 5, &e);
	CHECK(relerr(fp(e.val), 3.6) < 0.01,
	      "current phase (ratio 4) weighs 4:1 over phase 0's 2: 3.6 (got %.2f)", fp(e.val));

	/* inverse variance */
	/* inverse variance, relative: speedups are ratios */
	p = (struct sbridge_est){ .val = 2048, .err = 400 };
	b = (struct sbridge_est){ .val = 1024, .err = 200 };
	sbridge_est_combine(&p, &b, &e);
	CHECK(e.val == 1536 && abs((int)e.err - 212) <= 2,
	      "equal relative errors: the mean, error / sqrt 2 (got %u +- %u)", e.val, e.err);
	b.err = 20;
	sbridge_est_combine(&p, &b, &e);
	CHECK(e.val >= 1033 && e.val <= 1035, "a ten times surer value weighs 100:1: 1034 (got %u)", e.val);
	b.val = 0;
	sbridge_est_combine(&p, &b, &e);
	CHECK(e.val == 2048 && e.err == 400, "nothing to combine with: unchanged");
}

static void test_predict(void)
{
	/* gain 1.0 (a CPU factor of 2): share measured on the fast type */
	EQ(sbridge_est_predict(1024, true, 1024), 2048, "compute-bound on fast: 2.0");
	EQ(sbridge_est_predict(0, true, 1024), 1024, "all stall: 1.0");
	EQ(sbridge_est_predict(512, true, 1024), 1536, "half: 1.5");
	/* the same share measured on the slow type gains less (PIE) */
	CHECK(abs((int)sbridge_est_predict(683, false, 1024) - 1536) <= 3,
	      "s 2/3 on slow: 1 / (1/3 + 1/3) = 1.5, not 1.67 (got %u)",
	      sbridge_est_predict(683, false, 1024));
	EQ(sbridge_est_predict(1024, false, 1024), 2048, "compute-bound on slow: 2.0");
	/* round trip: a slow share seen on fast predicts the same */
	CHECK(abs((int)sbridge_est_predict(sbridge_share_on_fast(683, 1024), true, 1024) -
		  1536) <= 2, "share_on_fast agrees with the slow-side formula");
	EQ(sbridge_share_on_fast(1024, 1024), 1024, "compute-bound stays 1.0");
	EQ(sbridge_share_on_fast(0, 1024), 0, "all stall stays 0");
}

/* ---- the review's bias cases, replayed ---- */

#define WIN	1000000ULL	/* instructions a window */
#define DELTA	200
#define NWIN	3
/* the rig's and the tests' big core: a non-stalled cycle gains 2x */
#define GAIN	1024

/*
 * One window of @cpi_milli cycles per thousand instructions at 1 GHz (so
 * the time per instruction is cpi ns) and @mpm misses per million, fed
 * as sample.c does. Returns its kind.
 */
static enum sbridge_win_kind feed(struct sbridge_est_state *st, unsigned int type,
				  u64 cpi_milli, u32 mpm, u32 share, bool startup)
{
	struct sbridge_window w = { .cycles = cpi_milli * (WIN / 1000), .instr = WIN,
				    .misses = mpm };
	enum sbridge_win_kind k = sbridge_est_classify(st, &w, true, startup);

	if (k == SBRIDGE_WIN_WARM)
		sbridge_est_warm(st, type, share, sbridge_window_tpi(&w, 0, 1000000, 0),
				 DELTA, NWIN, GAIN);
	return k;
}

/* A stay of @n windows on @type, with a cache refill on arrival. */
static void stay(struct sbridge_est_state *st, unsigned int type, unsigned int n,
		 u64 cpi_milli, u32 share, bool *new_type)
{
	static const u32 refill[] = { 40000, 12000 };
	unsigned int i;

	sbridge_est_arrive(st, *new_type, 2 * WIN);
	*new_type = true;
	for (i = 0; i < n; i++) {
		u32 mpm = i < 2 ? refill[i] : 2000;
		/* the refill shows in the time too: 2.25x, then 1.3x */
		u64 c = i == 0 ? cpi_milli * 9 / 4 : i == 1 ? cpi_milli * 13 / 10 : cpi_milli;

		feed(st, type, c, mpm, share, false);
	}
}

/*
 * Review case 1: the holder of the big core. Its little-core windows are
 * its start-up only (slower: the program loads), which the old single
 * accumulator per type took for the steady state: 2.10 for a true 1.40.
 * Start-up is its own phase now: nothing is measured until the task runs
 * warm on the little core, and then the ratio is the true one.
 */
static void test_bias_startup(void)
{
	struct sbridge_est_state st;
	struct sbridge_est e;
	bool nt = false;
	int i;

	sbridge_est_reset(&st, 2 * WIN);
	for (i = 0; i < 4; i++)	/* start-up on little, 1.5x its steady CPI */
		feed(&st, 0, 2100, 3000, 819, true);
	stay(&st, 1, 40, 1000, 921, &nt);	/* then it holds big */
	CHECK(sbridge_est_own(&st, 1, 0, &e) == -1,
	      "start-up windows measure nothing (old: 2.10 for 1.40)");
	/* a sampling swap: a short warm stay on little, then back to big */
	stay(&st, 0, 8, 1400, 819, &nt);
	stay(&st, 1, 6, 1000, 921, &nt);
	CHECK(!sbridge_est_own(&st, 1, 0, &e) && relerr(fp(e.val), 1.4) < 0.03,
	      "after a swap: 1.40 within 3 %% (got %.3f +- %.3f)", fp(e.val), fp(e.err));
	CHECK(fp(e.err) / fp(e.val) > 0.1, "one visit to little: still uncertain (%.3f)",
	      fp(e.err) / fp(e.val));
}

/*
 * Review case 2: a visitor of the big core in short stays. The first
 * window of each stay pays the cache refill (2.25x), so the old mean over
 * all windows read the speedup x0.62. Warm-up skips those windows.
 */
static void test_bias_refill(void)
{
	struct sbridge_est_state st;
	struct sbridge_est e;
	double naive_big = 0;
	bool nt = false;
	int v, n = 0;

	sbridge_est_reset(&st, 2 * WIN);
	stay(&st, 0, 30, 2000, 819, &nt);	/* true speedup 2.0 */
	for (v = 0; v < 6; v++) {
		stay(&st, 1, 2, 1000, 921, &nt);	/* 2-window visits */
		stay(&st, 0, 10, 2000, 819, &nt);
		naive_big += 2.25 + 1.3;
		n += 2;
	}
	CHECK(sbridge_est_own(&st, 1, 0, &e) == -1,
	      "2-window visits are all warm-up: no measurement (old: x%.2f)",
	      1.0 / (naive_big / n));
	for (v = 0; v < 3; v++) {
		stay(&st, 1, 6, 1000, 921, &nt);	/* longer visits */
		stay(&st, 0, 10, 2000, 819, &nt);
	}
	CHECK(!sbridge_est_own(&st, 1, 0, &e) && relerr(fp(e.val), 2.0) < 0.03,
	      "longer visits: 2.0 within 3 %% (got %.3f)", fp(e.val));
	CHECK(fp(e.err) / fp(e.val) < 0.1, "3 visits agree: error < 10 %% (%.3f)",
	      fp(e.err) / fp(e.val));
}

/*
 * Review case 3 (trust): one big window among many little ones earned full
 * trust before. Now one window is no measurement (it cannot be told from
 * a transient: the 1b3s evaluation's one-window ratios read 0.40 to 5.0
 * for truths of 1.4 to 2.3), and two in one visit are weaker than the
 * prediction (20 %): a measurement's weight is its error.
 */
static void test_bias_trust(void)
{
	struct sbridge_est_state st;
	struct sbridge_est e, pred = { .val = 1946, .err = 389 }, b;
	bool nt = false;

	sbridge_est_reset(&st, 0);
	stay(&st, 0, 30, 1300, 819, &nt);
	sbridge_est_arrive(&st, true, 0);
	feed(&st, 1, 1000, 2000, 921, false);	/* one big window */
	CHECK(sbridge_est_own(&st, 1, 0, &e) == -1, "one window: no measurement");
	feed(&st, 1, 1000, 2000, 921, false);	/* and a second */
	sbridge_est_own(&st, 1, 0, &e);
	sbridge_est_combine(&pred, &e, &b);
	CHECK(fp(e.err) / fp(e.val) > 0.15, "two windows, one visit: error > 15 %% (%.3f)",
	      fp(e.err) / fp(e.val));
	CHECK(fp(b.val) > fp(e.val) + 0.3 * (fp(pred.val) - fp(e.val)),
	      "the prediction keeps 30 %% of the weight or more (blend %.2f of %.2f and %.2f)",
	      fp(b.val), fp(e.val), fp(pred.val));
}

/*
 * Phases: big stays in phase A (compute), little in phase B (memory):
 * the ratio across phases (old: one accumulator per type) is no speedup.
 * Only phases seen on both types count.
 */
static void test_bias_phase(void)
{
	struct sbridge_est_state st;
	struct sbridge_est e;
	bool nt = false;

	sbridge_est_reset(&st, 2 * WIN);
	stay(&st, 1, 20, 1000, 1024, &nt);	/* phase A on big */
	stay(&st, 0, 5, 2000, 1024, &nt);	/* A on little: continuity */
	/* B (memory-bound) starts on little: a new phase */
	stay(&st, 0, 30, 6000, 102, &nt);
	stay(&st, 1, 20, 1000, 1024, &nt);	/* back in A on big */
	CHECK(!sbridge_est_own(&st, 1, 0, &e) && relerr(fp(e.val), 2.0) < 0.03,
	      "A's own ratio, not big-A over little-B (got %.3f, cross-phase %.1f)",
	      fp(e.val), 6.0);
	EQ(st.ph.nphases, 2, "two phases");
}

/*
 * Eval 1b3s (gnugo, issue 27): a phase change that comes with a
 * migration. The task's first warm windows on big were all stall (share 0:
 * a start-up that clears a table, say); sbridge moved it to little, where
 * it computes (share 0.8). That phase had no centroid on little, so the
 * little windows were taken as it and the ratio of compute on little over
 * memory clearing on big read 0.54 (the eval: 0.40, its blend 0.79 of a
 * true 1.79). A share of 0 on big and 0.8 on little cannot be one code:
 * the stall time per instruction does not grow on a faster core, and the
 * compute part shrinks at most by the gain. The little windows make a new
 * phase, measured once it is seen on big too.
 */
static void test_bias_phase_migrate(void)
{
	struct sbridge_est_state st;
	struct sbridge_est e;
	bool nt = false;

	sbridge_est_reset(&st, 2 * WIN);
	stay(&st, 1, 5, 5000, 0, &nt);		/* two warm windows on big: all stall */
	stay(&st, 0, 12, 2700, 819, &nt);	/* computing on little */
	CHECK(sbridge_est_own(&st, 1, 0, &e) == -1,
	      "little's compute is not big's clearing (old: %.2f)", 2.7 / 5.0);
	EQ(st.ph.nphases, 2, "the little windows make a phase of their own");
	stay(&st, 1, 8, 1500, 614, &nt);	/* computing on big: 0.6 */
	CHECK(!sbridge_est_own(&st, 1, 0, &e) && relerr(fp(e.val), 1.8) < 0.03,
	      "the compute phase's own ratio: 1.80 within 3 %% (got %.3f)", fp(e.val));
}

/*
 * A measured speedup the core types cannot explain (the fast type slower,
 * or far beyond the gain) is doubted, not clamped: its error widens with
 * its distance from [lo, hi], less so as stays agree.
 */
static void test_bound(void)
{
	struct sbridge_est e = { .val = 405, .err = 50, .n = 1 }, b;
	struct sbridge_est pred = { .val = 1833, .err = 367 };
	struct sbridge_est in = { .val = 2048, .err = 200 };
	double r1, r4;

	sbridge_est_combine(&pred, &e, &b);
	CHECK(fp(b.val) < 1.0, "unbounded, 0.40 drags the blend below 1 (%.2f)", fp(b.val));
	sbridge_est_bound(&e, 1024, 3072, 1);
	EQ(e.val, 405, "the value is kept, not clamped");
	r1 = fp(e.err) / fp(e.val);
	CHECK(r1 > 0.9, "0.40 for a fast type: error > 90 %% (%.3f)", r1);
	sbridge_est_combine(&pred, &e, &b);
	CHECK(relerr(fp(b.val), 1.79) < 0.1, "the blend stays with the prediction (%.2f)",
	      fp(b.val));
	e.err = 50;
	sbridge_est_bound(&e, 1024, 3072, 4);
	r4 = fp(e.err) / fp(e.val);
	CHECK(r4 < r1 && r4 > 0.4, "four agreeing stays doubt it less (%.3f < %.3f)", r4, r1);
	e = (struct sbridge_est){ .val = 4300, .err = 500, .n = 1 };
	sbridge_est_bound(&e, 1024, 3072, 1);
	CHECK(fp(e.err) / fp(e.val) > 0.3, "4.2 beyond 3.0: doubted (%.3f)",
	      fp(e.err) / fp(e.val));
	b = in;
	sbridge_est_bound(&b, 1024, 3072, 1);
	CHECK(b.val == in.val && b.err == in.err, "2.0 in [1, 3]: unchanged");
	sbridge_est_bound(&b, 1024, 0, 1);
	CHECK(b.err == in.err, "no upper bound: unchanged");
}

int main(void)
{
	test_log();
	test_tpi();
	test_cell();
	test_fold();
	test_warm();
	test_measure();
	test_predict();
	test_bias_startup();
	test_bias_refill();
	test_bias_trust();
	test_bias_phase();
	test_bias_phase_migrate();
	test_bound();
	return TAP_DONE();
}
