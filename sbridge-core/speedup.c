// SPDX-License-Identifier: GPL-2.0
/*
 * The big/little speedup estimator as integer arithmetic. No kernel
 * dependency on purpose (see speedup.h): tests/unit/ builds this very file
 * on the host, with model.c.
 */
#ifdef __KERNEL__
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/compiler.h>
#include <linux/math64.h>
#include <linux/string.h>
#define SBRIDGE_DIV64(a, b)	div64_u64((a), (b))
#define SBRIDGE_SDIV64(a, b)	div64_s64((a), (b))
#else
#include <string.h>
#define SBRIDGE_DIV64(a, b)	((a) / (b))
#define SBRIDGE_SDIV64(a, b)	((a) / (b))
/* the host tests are single-threaded */
#define READ_ONCE(x)		(x)
#define WRITE_ONCE(x, v)	((x) = (v))
#endif
#include "speedup.h"

/* 2^(i/128) in Q16, i = 0..127: the fraction of a log's power of two. */
static const u32 sbridge_exp2_frac[SBRIDGE_LG_ONE] = {
	65536, 65892, 66250, 66609, 66971, 67335, 67700, 68068,
	68438, 68809, 69183, 69558, 69936, 70316, 70698, 71082,
	71468, 71856, 72246, 72638, 73032, 73429, 73828, 74229,
	74632, 75037, 75444, 75854, 76266, 76680, 77096, 77515,
	77936, 78359, 78785, 79212, 79642, 80075, 80510, 80947,
	81386, 81828, 82273, 82719, 83169, 83620, 84074, 84531,
	84990, 85451, 85915, 86382, 86851, 87322, 87796, 88273,
	88752, 89234, 89719, 90206, 90696, 91188, 91684, 92181,
	92682, 93185, 93691, 94200, 94711, 95226, 95743, 96263,
	96785, 97311, 97839, 98370, 98905, 99442, 99982, 100524,
	101070, 101619, 102171, 102726, 103283, 103844, 104408, 104975,
	105545, 106118, 106694, 107274, 107856, 108442, 109031, 109623,
	110218, 110816, 111418, 112023, 112631, 113243, 113858, 114476,
	115098, 115723, 116351, 116983, 117618, 118257, 118899, 119544,
	120194, 120846, 121502, 122162, 122825, 123492, 124163, 124837,
	125515, 126197, 126882, 127571, 128263, 128960, 129660, 130364,
};

static u64 sbridge_min64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static u32 sbridge_absdiff32(u32 a, u32 b)
{
	return a > b ? a - b : b - a;
}

/**
 * sbridge_lg() - base-2 logarithm in 1/SBRIDGE_LG_ONE
 * @x: value (a time per instruction in 1/16 ps)
 *
 * Rounded to the nearest step; the fraction by repeated squaring of the
 * mantissa, integers only.
 *
 * Return: log2(@x) x SBRIDGE_LG_ONE, 0 for @x <= 1, at most SBRIDGE_LG_MAX.
 */
u32 sbridge_lg(u64 x)
{
	u32 ip = 0, frac = 0, i;
	u64 m;

	if (x <= 1)
		return 0;
	while (ip < 63 && (x >> (ip + 1)))
		ip++;
	/* the mantissa x / 2^ip in Q30, in [1, 2) */
	m = ip >= 30 ? x >> (ip - 30) : x << (30 - ip);
	for (i = 0; i <= SBRIDGE_LG_SHIFT; i++) {
		m = (m * m) >> 30;
		frac <<= 1;
		if (m >= (2ULL << 30)) {
			m >>= 1;
			frac |= 1;
		}
	}
	/* one bit more than kept: round */
	return (u32)sbridge_min64(((u64)ip << SBRIDGE_LG_SHIFT) + ((frac + 1) >> 1),
				  SBRIDGE_LG_MAX);
}

/**
 * sbridge_lg_exp() - the value of a logarithm
 * @lg: log2 x SBRIDGE_LG_ONE
 *
 * Return: 2^(@lg / SBRIDGE_LG_ONE), rounded.
 */
u64 sbridge_lg_exp(u32 lg)
{
	u32 ip;

	if (lg > SBRIDGE_LG_MAX)
		lg = SBRIDGE_LG_MAX;
	ip = lg >> SBRIDGE_LG_SHIFT;
	return (((u64)sbridge_exp2_frac[lg & (SBRIDGE_LG_ONE - 1)] << ip) +
		(1U << 15)) >> 16;
}

/**
 * sbridge_lg_ratio() - the ratio of two values given as logarithms
 * @lg_num: log of the numerator
 * @lg_den: log of the denominator
 *
 * Return: numerator / denominator (fp), within [SBRIDGE_FACTOR_MIN,
 *	SBRIDGE_FACTOR_MAX].
 */
u32 sbridge_lg_ratio(u32 lg_num, u32 lg_den)
{
	u32 d = sbridge_absdiff32(lg_num, lg_den), ip = d >> SBRIDGE_LG_SHIFT;
	u64 f = sbridge_exp2_frac[d & (SBRIDGE_LG_ONE - 1)];

	/* beyond 2^3 either way the clamp decides */
	if (ip >= 3)
		return lg_num > lg_den ? SBRIDGE_FACTOR_MAX : SBRIDGE_FACTOR_MIN;
	f <<= ip;
	if (lg_num >= lg_den)
		return sbridge_model_clamp((f * SBRIDGE_FP_ONE + (1U << 15)) >> 16);
	return sbridge_model_clamp(SBRIDGE_DIV64(((u64)SBRIDGE_FP_ONE << 16) + f / 2, f));
}

/*
 * @old moved towards @val by @w parts in @w + @h, rounded, and by at
 * least one step: a mean of integers that moved less than half a step per
 * sample would stop short of its input for good.
 */
static u32 sbridge_toward(u32 old, u32 val, u32 w, u32 h)
{
	u64 d;

	if (!w || val == old)
		return old;
	d = SBRIDGE_DIV64((u64)sbridge_absdiff32(val, old) * w + (w + h) / 2,
			  (u64)w + h);
	if (!d)
		d = 1;
	return val >= old ? old + (u32)d : old - (u32)d;
}

/**
 * sbridge_tcell_add() - add one warm window to a task's cell
 * @cell: the task's cell for the window's core type and phase
 * @lg: the window's log time per instruction (sbridge_lg())
 * @dev: the task's spread on that core type, updated with the window's
 *	distance from the cell's mean (not for a cell's first window)
 *
 * Return: the new cell.
 */
u16 sbridge_tcell_add(u16 cell, u32 lg, u8 *dev)
{
	u32 n = cell >> SBRIDGE_TCELL_N_SHIFT, m = cell & SBRIDGE_LG_MAX, d;

	if (lg > SBRIDGE_LG_MAX)
		lg = SBRIDGE_LG_MAX;
	if (!n)
		return (u16)((1U << SBRIDGE_TCELL_N_SHIFT) | lg);
	d = sbridge_absdiff32(lg, m);
	*dev = (u8)sbridge_toward(*dev, d > 255 ? 255 : d, 1,
				  (n < SBRIDGE_EST_HIST ? n : SBRIDGE_EST_HIST) - 1);
	m = sbridge_toward(m, lg, 1, n < SBRIDGE_EST_HIST - 1 ? n : SBRIDGE_EST_HIST - 1);
	if (n < SBRIDGE_TCELL_N_MAX)
		n++;
	return (u16)((n << SBRIDGE_TCELL_N_SHIFT) | m);
}

/**
 * sbridge_tcell_get() - a task's cell unpacked
 * @cell: the cell
 * @dev: the task's spread on the cell's core type
 * @a: out
 */
void sbridge_tcell_get(u16 cell, u8 dev, struct sbridge_acc *a)
{
	a->lg = cell & SBRIDGE_LG_MAX;
	a->n = cell >> SBRIDGE_TCELL_N_SHIFT;
	a->dev = dev;
}

/**
 * sbridge_acc_fold() - fold one accumulator into another
 * @a: the accumulator that learns (a matrix cell)
 * @from: what it learns from (a task's cell): its mean counts
 * @k: weight of @from (new windows since the last fold)
 * @hist: weight of @a's history is at most this
 *
 * The mean moves towards @from's by @k against min(@a->n, @hist); the
 * spread becomes the spread between folds (how well the runs and visits
 * of a workload agree), not the spread of windows within one; a first
 * fold takes @from's. @a->n counts what was folded in.
 */
void sbridge_acc_fold(struct sbridge_acc *a, const struct sbridge_acc *from,
		      u32 k, u32 hist)
{
	u32 h, d;

	if (!from->n || !k)
		return;
	if (!a->n) {
		a->lg = from->lg;
		a->dev = from->dev;
		a->n = k;
		return;
	}
	h = a->n < hist ? a->n : hist;
	d = sbridge_absdiff32(from->lg, a->lg);
	a->dev = sbridge_toward(a->dev, d > 255 ? 255 : d, k, h);
	a->lg = sbridge_toward(a->lg, from->lg, k, h);
	a->n = a->n > 0xffffffffU - k ? 0xffffffffU : a->n + k;
}

/**
 * sbridge_window_tpi() - time per instruction of one window
 * @w: the window's counts
 * @stall: its memory-stall cycles (measured or modelled), at most cycles
 * @khz_eff: the clock the window ran at (kHz), 0 if unknown
 * @khz_ref: the clock of its core type to normalise the compute part to
 *	(kHz), 0 for none (the window's own clock)
 *
 * Frequency-normalised: the cycles not stalled on memory take the time
 * they would at the type's reference clock, the stalled ones the time they
 * took (memory latency does not scale with the core clock), so a DVFS
 * step does not read as a change of the task.
 *
 * Return: 1/16 ps per instruction, 0 if the clock or the instructions are
 *	unknown.
 */
u64 sbridge_window_tpi(const struct sbridge_window *w, u64 stall,
		       u32 khz_eff, u32 khz_ref)
{
	u64 ns;

	if (!w->instr || !w->cycles || !khz_eff)
		return 0;
	if (!khz_ref)
		khz_ref = khz_eff;
	if (stall > w->cycles)
		stall = w->cycles;
	/* cycles < 2^44 in any window: the products stay below 2^64 */
	ns = SBRIDGE_DIV64((w->cycles - stall) * 1000000ULL, khz_ref) +
	     SBRIDGE_DIV64(stall * 1000000ULL, khz_eff);
	ns = SBRIDGE_DIV64(ns * SBRIDGE_TPI_PER_NS, w->instr);
	return ns ? ns : 1;
}

/**
 * sbridge_clock_khz() - clock measured from cycles over busy time
 * @cycles: core cycles counted
 * @ns: nanoseconds the CPU ran (not idle) while they were counted
 *
 * Return: kHz, 0 if @ns is 0; saturates at U32 range.
 */
u32 sbridge_clock_khz(u64 cycles, u64 ns)
{
	if (!ns)
		return 0;
	return (u32)sbridge_min64(SBRIDGE_DIV64(cycles * 1000000ULL, ns),
				  0xffffffffULL);
}

/*
 * @win's cycles span @us microseconds at @khz (cycles per busy
 * millisecond of the scheduler's clock), without a division: the switch
 * path calls this.
 */
static bool sbridge_win_spans(const struct sbridge_window *win, u32 us,
			      u32 khz, u32 div)
{
	return us && khz && win->instr &&
	       win->cycles * 1000ULL * div >= (u64)us * khz;
}

/**
 * sbridge_win_full() - is a model window long enough to sample?
 * @win: the window's counts so far
 * @instr: window_instr, the instructions of a full window
 * @us: window_us, the task's CPU time a window spans at most (0: no bound)
 * @khz: the CPU's clock measured over the scheduler's time (cycles per
 *	busy ns x 10^6), 0 if not known
 *
 * A window closes at @instr instructions or at @us of the task's CPU
 * time, whichever comes first. In instructions alone, a slow or stalled
 * task's window outlasts its stay on a core (a memory-bound task on a
 * little core retires a million instructions in several milliseconds;
 * on the rig, whose cores run 50 times slower than the scheduler's clock,
 * in hundreds), and it is never measured there. The time is the
 * scheduler's, so the bound scales with the slices a task gets on a
 * core, whatever the clock.
 *
 * Return: true if the window is to be sampled now.
 */
bool sbridge_win_full(const struct sbridge_window *win, u32 instr, u32 us,
		      u32 khz)
{
	return win->instr >= instr || sbridge_win_spans(win, us, khz, 1);
}

/**
 * sbridge_win_cut_ok() - is a window a migration cut long enough to sample?
 * @win: the window's counts
 * @instr: window_instr
 * @us: window_us (0: no bound)
 * @khz: the clock of the CPU the window ran on (sbridge_win_full())
 *
 * Return: true if @win retired 1/SBRIDGE_WIN_CUT_DIV of @instr, or spans
 * half of @us: still a measurement of the stay it ends.
 */
bool sbridge_win_cut_ok(const struct sbridge_window *win, u32 instr, u32 us,
			u32 khz)
{
	return (win->instr && win->instr >= instr / SBRIDGE_WIN_CUT_DIV) ||
	       sbridge_win_spans(win, us, khz, 2);
}

/**
 * sbridge_warm_reset() - start a warm-up (migration, exec)
 * @w: warm-up state
 * @instr: instructions to skip (rounded up to SBRIDGE_WARM_UNIT, at most
 *	0xffff units)
 */
void sbridge_warm_reset(struct sbridge_warm *w, u32 instr)
{
	/* a reset is a migration or exec: the stay goes on (the caller says) */
	u32 u = (instr + SBRIDGE_WARM_UNIT - 1) / SBRIDGE_WARM_UNIT;

	w->left = u > 0xffff ? 0xffff : u;
	w->extra = 0;
	w->mpm = 0;
}

/**
 * sbridge_warm_classify() - is a closed window warm?
 * @w: warm-up state of the task
 * @win: the window's counts
 * @has_misses: @win->misses is counted
 *
 * Cold while the warm-up instructions are not yet retired (the window
 * that retires the last of them too; each miss counts as
 * SBRIDGE_WARM_MISS of them, so a memory-bound task, whose misses refill
 * the cache fast, is warm sooner), then while the miss rate still falls
 * by more than a fifth (and 0.1 per kilo-instruction) from one window to
 * the next, the caches refilling, at most SBRIDGE_WARM_EXTRA_MAX windows
 * more. Start-up is told apart by the caller, which knows the time.
 *
 * Return: SBRIDGE_WIN_COLD or SBRIDGE_WIN_WARM.
 */
enum sbridge_win_kind sbridge_warm_classify(struct sbridge_warm *w,
					    const struct sbridge_window *win,
					    bool has_misses)
{
	u32 mpm = 0, prev = w->mpm;

	if (has_misses && win->instr)
		mpm = (u32)sbridge_min64(SBRIDGE_DIV64((u64)win->misses * 1000000ULL,
						       win->instr), 0xffff);
	w->mpm = mpm;
	if (w->left) {
		u64 u = win->instr + (has_misses ? (u64)win->misses * SBRIDGE_WARM_MISS : 0);

		u = SBRIDGE_DIV64(u + SBRIDGE_WARM_UNIT - 1, SBRIDGE_WARM_UNIT);

		w->left = u >= w->left ? 0 : w->left - (u16)u;
		return SBRIDGE_WIN_COLD;
	}
	if (has_misses && (u64)mpm * 5 < (u64)prev * 4 && prev - mpm > 100 &&
	    w->extra < SBRIDGE_WARM_EXTRA_MAX) {
		w->extra++;
		return SBRIDGE_WIN_COLD;
	}
	return SBRIDGE_WIN_WARM;
}

/**
 * sbridge_est_reset() - forget what a task learned (exec, a new entry)
 * @st: the task's estimator state
 * @warm_instr: instructions the new program runs before it is measured
 */
void sbridge_est_reset(struct sbridge_est_state *st, u32 warm_instr)
{
	memset(st, 0, sizeof(*st));
	sbridge_warm_reset(&st->warm, warm_instr);
}

/**
 * sbridge_est_arrive() - the task migrated
 * @st: its estimator state
 * @new_type: to another core type (a new stay begins)
 * @warm_instr: instructions it runs before it is measured again
 */
void sbridge_est_arrive(struct sbridge_est_state *st, bool new_type,
			u32 warm_instr)
{
	sbridge_warm_reset(&st->warm, warm_instr);
	if (new_type)
		st->warm.visited = 0;
}

/**
 * sbridge_est_classify() - what a closed window of the task is good for
 * @st: the task's estimator state (its warm-up advances)
 * @win: the window's counts
 * @has_misses: @win->misses is counted
 * @startup: the task is in its start-up (the caller knows the time)
 *
 * Return: the window's kind.
 */
enum sbridge_win_kind sbridge_est_classify(struct sbridge_est_state *st,
					   const struct sbridge_window *win,
					   bool has_misses, bool startup)
{
	enum sbridge_win_kind kind = sbridge_warm_classify(&st->warm, win, has_misses);

	return startup ? SBRIDGE_WIN_STARTUP : kind;
}

/**
 * sbridge_est_warm() - learn from one warm window
 * @st: the task's estimator state
 * @type: core type the window ran on (< SBRIDGE_MAX_CORE_TYPES)
 * @share_q: its quantised CPI_B share (fp): the phase tracker's input
 * @tpi: its time per instruction (1/16 ps), 0 if the clock is unknown
 *	(then only the phase learns)
 * @delta: phase_delta (fp)
 * @nwin: phase_windows
 * @gain: what a non-stalled cycle gains on the fastest type, minus 1 (fp):
 *	how far a phase's share may fall on a faster type
 *
 * The phase tracker sees the window first, so it is accounted to the
 * phase it belongs to, or to none while it is a candidate for a new one;
 * the first warm window of a stay counts a visit.
 *
 * Return: true if the phase changed with this window.
 */
bool sbridge_est_warm(struct sbridge_est_state *st, unsigned int type,
		      u32 share_q, u64 tpi, u32 delta, u32 nwin, u32 gain)
{
	bool changed;
	unsigned int ph;
	u8 dev;

	if (type >= SBRIDGE_MAX_CORE_TYPES)
		return false;
	changed = sbridge_phase_update(&st->ph, type, share_q, delta, nwin, gain);
	/*
	 * A window unlike its phase that did not (yet) make a new one is
	 * left out: it is either an outlier or the start of another phase,
	 * and in neither case the current phase's time.
	 */
	if (!changed && st->ph.cand_count)
		return false;
	ph = st->ph.cur % SBRIDGE_MAX_PHASES;
	WRITE_ONCE(st->ph_n[ph], st->ph_n[ph] + 1);
	if (!tpi)
		return changed;
	dev = st->dev[type];
	WRITE_ONCE(st->cell[type][ph],
		   sbridge_tcell_add(st->cell[type][ph], sbridge_lg(tpi), &dev));
	WRITE_ONCE(st->dev[type], dev);
	WRITE_ONCE(st->warm_n[type], st->warm_n[type] + 1);
	if (!st->warm.visited) {
		st->warm.visited = 1;
		if (st->visits[type] < 0xff)
			WRITE_ONCE(st->visits[type], st->visits[type] + 1);
	}
	return changed;
}

/**
 * sbridge_est_accs() - a task's accumulators on one core type
 * @st: its estimator state
 * @type: core type (< SBRIDGE_MAX_CORE_TYPES)
 * @shift: thousandths of the type's spread taken off each phase's mean
 *	(learn.tpi_shift; 0: the mean)
 * @a: out, one per phase; each cell is read whole
 *
 * What shares a CPU's caches and memory with a task only ever slows its
 * windows, so their mean log time per instruction sits above what the
 * core type does for the task by part of their spread. @shift moves it
 * down by that much, towards the faster windows (845: the 25th
 * percentile, for normally spread logs whose mean absolute deviation
 * the spread is). The spread is the type's, over its phases.
 */
void sbridge_est_accs(const struct sbridge_est_state *st, unsigned int type,
		      u32 shift, struct sbridge_acc *a)
{
	u8 dev = READ_ONCE(st->dev[type]);
	u32 off = (u32)dev * shift / 1000;
	unsigned int p;

	for (p = 0; p < SBRIDGE_MAX_PHASES; p++) {
		sbridge_tcell_get(READ_ONCE(st->cell[type][p]), dev, &a[p]);
		if (a[p].n > 1)
			a[p].lg = a[p].lg > off ? a[p].lg - off : 0;
	}
}

/**
 * sbridge_shares_agree() - can a phase's shares on two types be one code?
 * @fast: its CPI_B share on the faster type (fp, or SBRIDGE_SHARE_UNKNOWN)
 * @slow: on the slower type
 * @gain: as for sbridge_est_predict()
 * @tol: how far @fast may exceed what @slow becomes on the faster type
 *	(thousandths of a share; learn.share_tol)
 *
 * The phase tracker lets a phase's share on the faster type rise without
 * bound (a larger cache removes stalls, sbridge_phase_update()), so a
 * memory-bound stage warm on one type and compute-bound code on the
 * other can be one phase: gnugo's was 0.2 on little and 0.85 on big,
 * and the ratio of their times per instruction (39x) no speedup. A
 * larger cache explains a rise by part of the stalls, not all of them.
 *
 * Return: false if both shares are known and @fast exceeds
 *	sbridge_share_on_fast(@slow, @gain) by more than @tol.
 */
bool sbridge_shares_agree(u32 fast, u32 slow, u32 gain, u32 tol)
{
	u64 lim;

	if (fast == SBRIDGE_SHARE_UNKNOWN || slow == SBRIDGE_SHARE_UNKNOWN)
		return true;
	lim = sbridge_share_on_fast(slow, gain) +
	      SBRIDGE_DIV64((u64)tol * SBRIDGE_FP_ONE, 1000);
	return fast <= lim;
}

/**
 * sbridge_est_own() - what a task measured of its speedup of @fast over @slow
 * @st: its estimator state
 * @fast: the faster core type
 * @slow: the slower core type
 * @how: how to compare the types (learn.tpi_shift, learn.share_tol and
 *	the gain of @fast over @slow)
 * @out: the measurement, its current phase weighing most
 *
 * A phase is compared only where it has SBRIDGE_EST_MIN_WIN warm windows
 * on each type and its shares there can be one code
 * (sbridge_shares_agree()).
 *
 * Return: 0, or -1 (@out zeroed) if no phase was measured on both types
 *	in SBRIDGE_EST_MIN_WIN warm windows each.
 */
int sbridge_est_own(const struct sbridge_est_state *st, unsigned int fast,
		    unsigned int slow, const struct sbridge_est_how *how,
		    struct sbridge_est *out)
{
	struct sbridge_acc f[SBRIDGE_MAX_PHASES], s[SBRIDGE_MAX_PHASES];
	unsigned int p;
	u8 vf, vs;

	memset(out, 0, sizeof(*out));
	if (fast >= SBRIDGE_MAX_CORE_TYPES || slow >= SBRIDGE_MAX_CORE_TYPES)
		return -1;
	sbridge_est_accs(st, fast, how->shift, f);
	sbridge_est_accs(st, slow, how->shift, s);
	for (p = 0; p < SBRIDGE_MAX_PHASES; p++)
		if (f[p].n < SBRIDGE_EST_MIN_WIN || s[p].n < SBRIDGE_EST_MIN_WIN ||
		    !sbridge_shares_agree(sbridge_phase_share(&st->ph, p, fast),
					  sbridge_phase_share(&st->ph, p, slow),
					  how->gain, how->share_tol))
			f[p].n = 0;
	vf = READ_ONCE(st->visits[fast]);
	vs = READ_ONCE(st->visits[slow]);
	return sbridge_est_measure(f, s, SBRIDGE_MAX_PHASES,
				   READ_ONCE(st->ph.cur) % SBRIDGE_MAX_PHASES,
				   vf < vs ? vf : vs, out);
}

/**
 * sbridge_isqrt() - integer square root
 * @x: value
 *
 * Return: floor(sqrt(@x)).
 */
u64 sbridge_isqrt(u64 x)
{
	u64 r = 0, b = 1ULL << 62;

	while (b > x)
		b >>= 2;
	while (b) {
		if (x >= r + b) {
			x -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

/*
 * The squared spread to reckon with for @n samples that showed @dev: at
 * least the floor, and shrunk towards a prior of three times the floor
 * (about 15 %) as if two more samples had shown that, since a few
 * samples say little of their own spread (one says nothing).
 */
static u64 sbridge_dev2(u32 dev, u64 n)
{
	u64 d = dev > SBRIDGE_EST_DEV_FLOOR ? dev : SBRIDGE_EST_DEV_FLOOR;
	u64 prior = 3 * SBRIDGE_EST_DEV_FLOOR;

	return SBRIDGE_DIV64(n * d * d + 2 * prior * prior, n + 2);
}

/**
 * sbridge_est_measure() - measured speedup from two types' accumulators
 * @fast: accumulators of the fast type, one per phase
 * @slow: accumulators of the slow type, one per phase
 * @nph: phases (entries of @fast and @slow)
 * @cur: the phase the task is in now (its ratio weighs four times)
 * @visits: visits (or runs) on the less-sampled of the two types; below
 *	2 the variance is taken four times as large: one stay could be an
 *	odd one
 * @out: the estimate
 *
 * The speedup of a phase is the ratio of its mean times per instruction;
 * phases seen on both types combine, weighted by the samples on the
 * less-sampled side. Its relative variance is the samples' spread squared
 * (sbridge_dev2(): a floor, and a prior while samples are few) over their
 * number on each side, plus SBRIDGE_EST_BIAS squared for what no sample
 * count removes.
 *
 * Return: 0 with @out filled, or -1 (@out untouched) if no phase was seen
 *	on both types.
 */
int sbridge_est_measure(const struct sbridge_acc *fast,
			const struct sbridge_acc *slow, unsigned int nph,
			unsigned int cur, u32 visits, struct sbridge_est *out)
{
	u64 num = 0, den = 0, var = 0, r, rel;
	u32 n = 0;
	unsigned int p;

	for (p = 0; p < nph; p++) {
		u64 nf = fast[p].n, ns = slow[p].n, df, ds, vp, wt;

		if (!nf || !ns)
			continue;
		r = sbridge_lg_ratio(slow[p].lg, fast[p].lg);
		df = sbridge_dev2(fast[p].dev, nf);
		ds = sbridge_dev2(slow[p].dev, ns);
		/*
		 * A spread of d/128 in log2 is a relative one of d x ln 2 / 128;
		 * squared in fp^2 (2^20 == 1.0): d^2 x (ln 2)^2 x 64 ~ d^2 x 31.
		 */
		vp = SBRIDGE_DIV64(df * 31, nf) + SBRIDGE_DIV64(ds * 31, ns);
		wt = (nf < ns ? nf : ns) * (p == cur ? 4 : 1);
		num += wt * r;
		den += wt;
		var += wt * wt * vp;
		n += (u32)(nf < ns ? nf : ns);
	}
	if (!den)
		return -1;
	r = SBRIDGE_DIV64(num + den / 2, den);
	rel = SBRIDGE_DIV64(var, den * den) + SBRIDGE_EST_BIAS * SBRIDGE_EST_BIAS;
	if (visits < 2)
		rel *= 4;
	rel = sbridge_isqrt(rel);
	out->val = (u32)r;
	out->err = (u32)((r * rel + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT) ?: 1;
	out->n = n;
	return 0;
}

/**
 * sbridge_est_bound() - widen the error of a speedup the core types cannot explain
 * @e: a measured speedup (val 0: none), its error widened in place
 * @lo: the lowest plausible speedup (fp)
 * @hi: the highest plausible speedup (fp), 0 for no upper bound
 * @visits: stays on the less-visited type behind @e
 *
 * A measurement outside [@lo, @hi] is more likely one of different code
 * on the two types (another phase, a start-up, an odd stay) than a
 * speedup. Its relative variance grows by the squared log distance to the
 * range; above @hi over @visits (at least 1), so that it takes stays that
 * agree to outweigh a prediction (a larger cache can give what the CPU
 * factors do not), and no single one does. Below @lo, whatever the
 * visits: no cache makes the faster type slower, so stays that agree on
 * it agree on an error that repeats (a phase that falls on one type each
 * time; eval 3b1s fcc8718: minisat read 0.24 +- 0.08 from its
 * stays, 2.52 alone). The value is not clamped: what was measured is
 * shown, with the doubt it deserves.
 */
void sbridge_est_bound(struct sbridge_est *e, u32 lo, u32 hi, u32 visits)
{
	bool below = e->val < lo;
	u64 rel, d;
	u32 b;

	if (!e->val)
		return;
	if (below)
		b = lo;
	else if (hi && e->val > hi)
		b = hi;
	else
		return;
	d = sbridge_absdiff32(sbridge_lg(e->val), sbridge_lg(b));
	rel = SBRIDGE_DIV64(((u64)e->err << SBRIDGE_FP_SHIFT) + e->val / 2, e->val);
	/* (d/128 x ln 2)^2 in fp^2: d^2 x 31, as in sbridge_est_measure() */
	if (below || !visits)
		visits = 1;
	rel = sbridge_isqrt(rel * rel + SBRIDGE_DIV64(d * d * 31, visits));
	e->err = (u32)sbridge_min64(((u64)e->val * rel + SBRIDGE_FP_ONE / 2) >>
				    SBRIDGE_FP_SHIFT, 0xffffffffULL) ?: 1;
}

/**
 * sbridge_est_weight() - what an estimate weighs: 1 / relative variance
 * @e: the estimate (val > 0)
 *
 * Return: 2^40 / (err/val in fp)^2, at least 1.
 */
u64 sbridge_est_weight(const struct sbridge_est *e)
{
	u64 rel = SBRIDGE_DIV64(((u64)(e->err ? e->err : 1) << SBRIDGE_FP_SHIFT) +
				e->val / 2, e->val ? e->val : 1);

	rel = rel ? rel : 1;
	return SBRIDGE_DIV64(1ULL << 40, rel * rel) ? : 1;
}

/**
 * sbridge_est_combine() - combine two independent estimates
 * @a: one estimate (val 0: none)
 * @b: another (val 0: none)
 * @out: their inverse-variance weighted mean and its error (may be @a or @b)
 *
 * Whichever is the more certain (relatively: a speedup is a ratio)
 * counts more; together they are more certain than either.
 */
void sbridge_est_combine(const struct sbridge_est *a,
			 const struct sbridge_est *b, struct sbridge_est *out)
{
	u64 wa, wb, rel;
	struct sbridge_est r;

	if (!a->val || !b->val) {
		*out = a->val ? *a : *b;
		return;
	}
	/* speedups are ratios: weigh by relative error, 2^20 / rel^2 (fp) */
	wa = sbridge_est_weight(a);
	wb = sbridge_est_weight(b);
	r.val = (u32)SBRIDGE_DIV64(wa * a->val + wb * b->val + (wa + wb) / 2,
				   wa + wb);
	rel = sbridge_isqrt(SBRIDGE_DIV64(1ULL << 40, wa + wb));
	r.err = (u32)(((u64)r.val * rel + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT) ?: 1;
	r.n = a->n + b->n;
	*out = r;
}

/**
 * sbridge_est_predict() - speedup the CPI stack predicts
 * @share: CPI_B share of the phase (fp), the part of its cycles not
 *	stalled on memory
 * @on_fast: @share was measured on the fast type (else on the slow one)
 * @gain: what a non-stalled cycle gains on the fast type, minus 1 (fp):
 *	C x (CPU factor of the slow type - 1) / ref_share
 *
 * Only non-stalled cycles speed up (eq. 3's CPI_B, the stall part taking
 * the same time on both). Measured on the fast type that gives
 * 1 + gain x share; measured on the slow type, where the compute part
 * is the larger, 1 / (1 - share + share / (1 + gain)), which is smaller
 * for the same share (Van Craeynest et al., ISCA 2012).
 *
 * Return: the predicted speedup (fp), in [1.0, SBRIDGE_FACTOR_MAX].
 */
u32 sbridge_est_predict(u32 share, bool on_fast, u32 gain)
{
	u64 s = share > SBRIDGE_FP_ONE ? SBRIDGE_FP_ONE : share, den;

	if (on_fast)
		return sbridge_model_clamp(SBRIDGE_FP_ONE +
					   ((s * gain) >> SBRIDGE_FP_SHIFT));
	den = (SBRIDGE_FP_ONE - s) +
	      SBRIDGE_DIV64(s * SBRIDGE_FP_ONE, SBRIDGE_FP_ONE + (u64)gain);
	if (!den)
		return SBRIDGE_FP_ONE;
	return sbridge_model_clamp(SBRIDGE_DIV64((u64)SBRIDGE_FP_ONE * SBRIDGE_FP_ONE +
						 den / 2, den));
}

/**
 * sbridge_est_unknown() - the prediction of a task nothing is counted of
 * @gain: as for sbridge_est_predict()
 * @rel_err: the prediction's relative error (fp), learn.pred_err
 * @out: the middle of the speedups the prediction spans, [1, 1 + @gain],
 *	with half of that range as its error (at least @rel_err of it)
 *
 * Before its first counter window a task has no CPI stack: every speedup
 * from a memory-bound 1 to a compute-bound 1 + @gain is as likely. 1.0
 * with the prediction's usual error read as "gains nothing, surely", and
 * the decision layer pinned every new process to a slow core at its first
 * decision (eval 1b3s: perl and sort pinned little before a window of
 * theirs existed). This estimate ties with any other in range, so the
 * stock scheduler places the task until it is measured.
 */
void sbridge_est_unknown(u32 gain, u32 rel_err, struct sbridge_est *out)
{
	u32 half = gain / 2, least;

	out->val = sbridge_model_clamp(SBRIDGE_FP_ONE + (u64)half);
	least = (u32)(((u64)out->val * rel_err) >> SBRIDGE_FP_SHIFT);
	out->err = half > least ? half : least;
	out->err = out->err ?: 1;
	out->n = 0;
}

/**
 * sbridge_share_on_fast() - a slow-type CPI_B share seen on the fast type
 * @share: share measured on the slow type (fp)
 * @gain: as for sbridge_est_predict()
 *
 * The compute part shrinks by 1 + @gain on the fast type, the stall part
 * stays: s' = s / (s + (1 + gain) (1 - s)).
 *
 * Return: the share on the fast type (fp).
 */
u32 sbridge_share_on_fast(u32 share, u32 gain)
{
	u64 s = share > SBRIDGE_FP_ONE ? SBRIDGE_FP_ONE : share, den;

	den = s + (((SBRIDGE_FP_ONE + (u64)gain) * (SBRIDGE_FP_ONE - s)) >>
		   SBRIDGE_FP_SHIFT);
	if (!den)
		return 0;
	return (u32)SBRIDGE_DIV64(s * SBRIDGE_FP_ONE + den / 2, den);
}

/*
 * The ratios assumed while none is learned: the prior of a fit. The
 * compute part scales by the CPU factor, 1 + @gain. The memory part: seen
 * on the fast type, rho = 1 + @gain (the stalls scale as the compute part:
 * no discount for them) with a standard error of @gain (stalls that stay,
 * rho 1, and stalls a larger cache removes, rho 1 + 2 x gain, both within
 * one); seen on the slow type, both as their inverses, the error a gain's
 * worth of 1 / rho.
 */
static void sbridge_memrate_prior(bool on_fast, u32 gain,
				  struct sbridge_memrate *r)
{
	u64 g1 = SBRIDGE_FP_ONE + (u64)gain;

	r->n = 0;
	if (on_fast) {
		r->comp = (u32)sbridge_min64(g1, SBRIDGE_FACTOR_MAX);
		r->coef = r->comp;
		r->err = gain > SBRIDGE_FP_ONE / 4 ? gain : SBRIDGE_FP_ONE / 4;
		return;
	}
	r->comp = (u32)SBRIDGE_DIV64((u64)SBRIDGE_FP_ONE * SBRIDGE_FP_ONE + g1 / 2, g1);
	r->coef = r->comp;
	r->err = (u32)SBRIDGE_DIV64((u64)r->coef * gain + g1 / 2, g1);
	if (r->err < SBRIDGE_FP_ONE / 16)
		r->err = SBRIDGE_FP_ONE / 16;
}

/**
 * sbridge_memrate_default() - the ratios before any is learned
 * @on_fast: for shares seen on the fast type (else on the slow one)
 * @gain: what a non-stalled cycle gains on the fast type, minus 1 (fp)
 * @ratio: a measured memory ratio (a memory-bound probe's time on the
 *	slow type over the fast, fp, e.g. sbridgectl calibrate's), 0 if none
 * @r: out
 *
 * Without @ratio, the CPU factor alone: the stalls are taken to scale as
 * the compute part does, with an error as wide as the gain (no discount,
 * no bonus: the board has not said which). With @ratio, that, with half
 * the error: a probe is one memory behaviour, not every program's.
 */
void sbridge_memrate_default(bool on_fast, u32 gain, u32 ratio,
			     struct sbridge_memrate *r)
{
	sbridge_memrate_prior(on_fast, gain, r);
	if (!ratio)
		return;
	r->err /= 2;
	r->coef = on_fast ? ratio :
		  (u32)SBRIDGE_DIV64((u64)SBRIDGE_FP_ONE * SBRIDGE_FP_ONE + ratio / 2,
				     ratio);
}

/**
 * sbridge_memfit_add() - one workload's measured speedup as a fit sample
 * @f: the fit
 * @share: CPI_B share of the workload's phase on the side it was seen (fp)
 * @on_fast: @share was seen on the fast type (else on the slow)
 * @sp: the phase's measured speedup and its error (val 0: nothing added)
 *
 * Seen on the fast type, speedup = s a + (1 - s) rho; seen on the slow
 * type, 1 / speedup = s / a + (1 - s) / rho: y (the speedup or its
 * inverse) on the regressors s and x = 1 - s, the compute factor a and
 * the memory ratio rho both learned (a board's compute part need not
 * gain its nominal CPU factor, and what it gains beyond must not be
 * taken for the memory part's). A sample weighs (12.5 % / its relative
 * error)^2, between 1 and SBRIDGE_MEMFIT_W_MAX. A speedup at either clamp
 * (SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX) is a bound, not a value: one
 * type's throughput starved (a vCPU the host left waiting reads 8.0 on
 * the rig), so it is not added; every task the ratio predicts would
 * inherit it. Nor is one below 1: the fast type slower is what its
 * capacity denies (sbridge_est_bound() doubts it in the task's own
 * estimate), and a fit that took such samples in taught every compute-
 * bound task a speedup below 1 (eval 1b3s fcc8718: 0.87 for gawk, perl,
 * gnugo, bzip2 and sort, 1.95 to 2.26 alone, all pinned slow).
 */
void sbridge_memfit_add(struct sbridge_memfit *f, u32 share, bool on_fast,
			const struct sbridge_est *sp)
{
	u64 sh = share > SBRIDGE_FP_ONE ? SBRIDGE_FP_ONE : share, rel, w, x, s;
	s64 y;

	if (!sp->val || sp->val >= SBRIDGE_FACTOR_MAX ||
	    sp->val < SBRIDGE_FP_ONE || f->m >= SBRIDGE_MEMFIT_MAX)
		return;
	s = sh << (SBRIDGE_MEMFIT_SHIFT - SBRIDGE_FP_SHIFT);
	x = SBRIDGE_MEMFIT_ONE - s;
	if (on_fast)
		y = (s64)sbridge_min64(sp->val, SBRIDGE_FACTOR_MAX) <<
		    (SBRIDGE_MEMFIT_SHIFT - SBRIDGE_FP_SHIFT);
	else
		y = (s64)SBRIDGE_DIV64((1ULL << (SBRIDGE_MEMFIT_SHIFT + SBRIDGE_FP_SHIFT)) +
				       sp->val / 2, sp->val);
	rel = SBRIDGE_DIV64(((u64)sp->err << SBRIDGE_FP_SHIFT) + sp->val / 2, sp->val);
	rel = rel < 32 ? 32 : rel;
	w = SBRIDGE_DIV64(128ULL * 128, rel * rel);
	w = w < 1 ? 1 : w > SBRIDGE_MEMFIT_W_MAX ? SBRIDGE_MEMFIT_W_MAX : w;
	f->sss += w * s * s;
	f->ssx += w * s * x;
	f->sxx += w * x * x;
	f->sys += (s64)(w * s) * y;
	f->syx += (s64)(w * x) * y;
	f->syy += w * (u64)(y * y);
	f->m++;
	if (x >= SBRIDGE_MEMFIT_X_MIN)
		f->n++;
}

static s64 sbridge_clamp64(s64 v, s64 lo, s64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/**
 * sbridge_memfit_result() - the ratios a fit gives, and the memory one's error
 * @f: the fit (sbridge_memfit_add())
 * @on_fast: the side its samples were seen on
 * @gain: what a non-stalled cycle gains on the fast type by the CPU
 *	factors, minus 1 (fp): the prior's
 * @r: out: the compute factor and the memory ratio, and the error of the
 *	latter for a workload not in the fit; with no workload that stalls,
 *	the prior (sbridge_memrate_default() without a measured ratio)
 *
 * Least squares on s and x, each coefficient pulled towards the prior as
 * if the prior were one more workload of the least weight, a quarter
 * compute, and one a quarter stalled (which also keeps the fit defined
 * while every workload stalls alike); the compute factor kept within
 * [1, 1 + 2 gain] (its inverse seen on the slow type). The error of the
 * memory ratio is the workloads' spread about the fit per unit of x^2
 * (their stalls differ: latency, capacity), shrunk towards half the
 * prior's error as if that were two more workloads (one or two say little
 * of their spread), plus the ratio's own uncertainty (the spread over the
 * workloads).
 */
void sbridge_memfit_result(const struct sbridge_memfit *f, bool on_fast,
			   u32 gain, struct sbridge_memrate *r)
{
	/* the prior's weight: one sample of weight 1 at s (or x) = 1/4, in Q12 */
	const s64 l = 1LL << (2 * SBRIDGE_MEMFIT_SHIFT - 20 - 4);
	s64 a11, a12, a22, b1, b2, det, ca, cb, ssr, lo, hi;
	struct sbridge_memrate p;
	u64 n = f->n, spread, vs, p2, v, sxx;

	sbridge_memrate_prior(on_fast, gain, &p);
	*r = p;
	sxx = f->sxx >> 20;
	if (!n || !sxx)
		return;
	/* the sums in Q12 (>> 20 of Q32): the products below stay in s64 */
	a11 = (s64)(f->sss >> 20) + l;
	a12 = (s64)(f->ssx >> 20);
	a22 = (s64)sxx + l;
	b1 = (f->sys >> 20) + ((l * p.comp) >> SBRIDGE_FP_SHIFT);
	b2 = (f->syx >> 20) + ((l * p.coef) >> SBRIDGE_FP_SHIFT);
	det = a11 * a22 - a12 * a12;
	if (det <= 0)
		return;
	/* the coefficients in fp */
	ca = SBRIDGE_SDIV64((a22 * b1 - a12 * b2) * SBRIDGE_FP_ONE, det);
	cb = SBRIDGE_SDIV64((a11 * b2 - a12 * b1) * SBRIDGE_FP_ONE, det);
	/*
	 * The compute factor within what the core types can explain,
	 * [1, 1 + 2 gain] (sbridge_task_bound()'s range; seen on the slow
	 * type, its inverse); where the samples pull it out, the memory
	 * ratio is refitted with the factor at the edge.
	 */
	hi = (s64)sbridge_min64(SBRIDGE_EST_PLAUSIBLE_HI(gain), SBRIDGE_FACTOR_MAX);
	lo = SBRIDGE_FP_ONE;
	if (!on_fast) {
		lo = (s64)SBRIDGE_DIV64((u64)SBRIDGE_FP_ONE * SBRIDGE_FP_ONE +
					(u64)hi / 2, (u64)hi);
		hi = SBRIDGE_FP_ONE;
	}
	if (ca < lo || ca > hi) {
		ca = sbridge_clamp64(ca, lo, hi);
		cb = SBRIDGE_SDIV64(b2 * SBRIDGE_FP_ONE - a12 * ca, a22);
	}
	cb = sbridge_clamp64(cb, SBRIDGE_FP_ONE / 64, SBRIDGE_FACTOR_MAX);
	/* residual sum of squares, Q12: sum w (y - ca s - cb x)^2 */
	ssr = (s64)(f->syy >> 20) -
	      2 * ((ca * (f->sys >> 20) + cb * (f->syx >> 20)) >> SBRIDGE_FP_SHIFT) +
	      ((ca * ca * (s64)(f->sss >> 20) + 2 * ca * cb * a12 +
		cb * cb * (s64)sxx) >> (2 * SBRIDGE_FP_SHIFT));
	if (ssr < 0)
		ssr = 0;
	/* the spread per unit of x^2, in fp^2 */
	v = SBRIDGE_DIV64((u64)ssr << (2 * SBRIDGE_FP_SHIFT), sxx);
	p2 = (u64)p.err * p.err;
	spread = SBRIDGE_DIV64(n * v + p2 / 2, n + 2) ?: 1;
	vs = SBRIDGE_DIV64(spread, n) ?: 1;
	r->comp = (u32)ca;
	r->coef = (u32)cb;
	r->err = (u32)sbridge_min64(sbridge_isqrt(spread + SBRIDGE_DIV64(vs * p2, vs + p2)),
				    0xffff) ?: 1;
	r->n = (u32)n;
}

/**
 * sbridge_est_predict_mem() - speedup the CPI stack predicts, with the
 *	board's ratios
 * @share: CPI_B share of the phase (fp), the part of its cycles not
 *	stalled on memory
 * @on_fast: @share was measured on the fast type (else on the slow one)
 * @gain: what a non-stalled cycle gains on the fast type, minus 1 (fp)
 * @r: how the compute and the memory part scale from that side
 *	(sbridge_memfit_result(), sbridge_memrate_default()); NULL or coef
 *	0: the default, none measured
 * @rel_err: relative error of the compute part's prediction (fp,
 *	learn.pred_err)
 * @out: the prediction and its standard error (n 0)
 *
 * Seen on the fast type s a + (1 - s) rho; seen on the slow type
 * 1 / (s / a + (1 - s) / rho), the ratios as @r gives them (a = 1 + gain
 * and rho = 1 is eq. 3 as sbridge_est_predict() has it). The error adds
 * the memory ratio's, (1 - s) times it, to @rel_err in quadrature: a
 * compute-bound task's prediction does not depend on the ratio, a
 * memory-bound one's does, as much as the ratio is uncertain.
 */
void sbridge_est_predict_mem(u32 share, bool on_fast, u32 gain,
			     const struct sbridge_memrate *r, u32 rel_err,
			     struct sbridge_est *out)
{
	u64 s = share > SBRIDGE_FP_ONE ? SBRIDGE_FP_ONE : share;
	u64 x = SBRIDGE_FP_ONE - s, v, rm, rel;
	struct sbridge_memrate d;

	if (!r || !r->coef || !r->comp) {
		sbridge_memrate_default(on_fast, gain, 0, &d);
		r = &d;
	}
	if (on_fast) {
		v = ((s * r->comp + x * r->coef) + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT;
		v = sbridge_model_clamp(v);
		/* sigma = x err, relative: x err / v */
		rm = SBRIDGE_DIV64(x * r->err + v / 2, v);
	} else {
		u64 u = (s * r->comp + x * r->coef + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT;

		v = u ? sbridge_model_clamp(SBRIDGE_DIV64((u64)SBRIDGE_FP_ONE *
							  SBRIDGE_FP_ONE + u / 2, u)) :
			SBRIDGE_FACTOR_MAX;
		/* d(1/u) = du / u^2: relative v x err x x */
		rm = (v * ((x * r->err) >> SBRIDGE_FP_SHIFT)) >> SBRIDGE_FP_SHIFT;
	}
	rel = sbridge_isqrt((u64)rel_err * rel_err + rm * rm);
	out->val = (u32)v;
	out->err = (u32)((v * rel + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT) ?: 1;
	out->n = 0;
}
