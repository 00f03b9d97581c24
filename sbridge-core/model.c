// SPDX-License-Identifier: GPL-2.0
/*
 * The S-Bridge load model as integer arithmetic. No kernel dependency on
 * purpose (see model.h): tests/unit/ builds this very file on the host.
 */
#ifdef __KERNEL__
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/overflow.h>
#include <linux/math64.h>
#include <linux/string.h>
#define SBRIDGE_DIV64(a, b)	div64_u64((a), (b))
#else
#define SBRIDGE_DIV64(a, b)	((a) / (b))
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define U64_MAX		(~0ULL)
#include <string.h>
#endif
#include "model.h"

/* Default clock assumed for the miss penalty when the frequency is unknown. */
#define SBRIDGE_DEFAULT_KHZ	1000000U
/* Capacities within 2 % of each other are one core type. */
#define SBRIDGE_TYPE_TOL_PCT	2

static u32 sbridge_sat32(u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (u32)v;
}

static u32 sbridge_absdiff(u32 a, u32 b)
{
	return a > b ? a - b : b - a;
}

/**
 * sbridge_model_penalty_cycles() - C_penalty of eq. 2 in core cycles
 * @mem_latency_ns: memory latency in ns
 * @khz: clock of the core the sample was taken on, 0 if unknown (1 GHz)
 *
 * Return: @mem_latency_ns * @khz / 10^6, at least 1.
 */
u32 sbridge_model_penalty_cycles(u32 mem_latency_ns, u32 khz)
{
	u64 c;

	if (!khz)
		khz = SBRIDGE_DEFAULT_KHZ;
	c = SBRIDGE_DIV64((u64)mem_latency_ns * khz, 1000000ULL);
	return c ? sbridge_sat32(c) : 1;
}

/**
 * sbridge_model_quantise() - round a CPI_B share to the nearest 0.1
 * @share: share in fixed point, [0, SBRIDGE_FP_ONE]
 *
 * The paper puts programs into 0.1 buckets so that noise does not flip
 * decisions. Rounding to the nearest bucket (not down) keeps values that
 * are exactly on a bucket, such as 0.3 (307/1024), in that bucket.
 *
 * Return: bucket * SBRIDGE_FP_ONE / 10, i.e. 0, 102, 204, 307, ... 1024.
 */
u32 sbridge_model_quantise(u32 share)
{
	u32 b;

	if (share > SBRIDGE_FP_ONE)
		share = SBRIDGE_FP_ONE;
	b = (share * SBRIDGE_SHARE_BUCKETS + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT;
	return b * SBRIDGE_FP_ONE / SBRIDGE_SHARE_BUCKETS;
}

/**
 * sbridge_model_cpi() - CPI stack of one window (eqs. 1 and 2)
 * @w: counter deltas
 * @penalty_cycles: C_penalty, memory latency in cycles
 * @out: result
 *
 * CPI = cycles / instructions. CPI_stall = M_ref x C_miss x C_penalty,
 * which is LLC misses per instruction x penalty (M_ref x C_miss = misses
 * / instructions). Without miss counts, backend stall cycles per
 * instruction stand in; without either, CPI_stall is 0 (share 1.0).
 * Misses x penalty above the window's cycles cannot be: the misses
 * overlapped, or were stores the core did not wait for (a table being
 * cleared), and the penalty does not hold for this window; the counted
 * stall cycles then stand in, if there are any. Stall cycles are capped
 * at the window's cycles, so 0 <= share <= 1.
 *
 * Return: 0, or -1 if the window has no cycles or no instructions.
 */
int sbridge_model_cpi(const struct sbridge_window *w, u32 penalty_cycles,
		      struct sbridge_cpi *out)
{
	u64 stall;

	if (!w->instr || !w->cycles)
		return -1;
	if (w->misses) {
		/* a source's latency is not bounded: saturate, then clamp */
		if (check_mul_overflow((u64)w->misses, (u64)penalty_cycles, &stall))
			stall = U64_MAX;
		if (stall > w->cycles && w->stall)
			stall = w->stall;
	} else
		stall = w->stall;
	if (stall > w->cycles)
		stall = w->cycles;

	out->cpi = sbridge_sat32(SBRIDGE_DIV64(w->cycles << SBRIDGE_FP_SHIFT, w->instr));
	out->cpi_stall = sbridge_sat32(SBRIDGE_DIV64(stall << SBRIDGE_FP_SHIFT, w->instr));
	if (out->cpi_stall > out->cpi)
		out->cpi_stall = out->cpi;
	out->cpi_base = out->cpi - out->cpi_stall;
	out->share = (u32)SBRIDGE_DIV64((w->cycles - stall) << SBRIDGE_FP_SHIFT,
				   w->cycles);
	out->share_q = sbridge_model_quantise(out->share);
	return 0;
}

/**
 * sbridge_model_cap_ratio() - Cap(k/j) of eq. 3
 * @cap_ref: capacity of the reference core type k
 * @cap_j: capacity of core type j
 *
 * Return: @cap_ref / @cap_j in fixed point (1.0 if @cap_j is 0).
 */
u32 sbridge_model_cap_ratio(u32 cap_ref, u32 cap_j)
{
	if (!cap_j || !cap_ref)
		return SBRIDGE_FP_ONE;
	return sbridge_sat32(SBRIDGE_DIV64((u64)cap_ref << SBRIDGE_FP_SHIFT, cap_j));
}

/**
 * sbridge_model_clamp() - clamp a factor to the ABI's range
 * @factor: fixed-point factor
 *
 * Return: @factor within [SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX].
 */
u32 sbridge_model_clamp(u64 factor)
{
	if (factor < SBRIDGE_FACTOR_MIN)
		return SBRIDGE_FACTOR_MIN;
	if (factor > SBRIDGE_FACTOR_MAX)
		return SBRIDGE_FACTOR_MAX;
	return (u32)factor;
}

/**
 * sbridge_model_factor() - LF_ij = C x Cap(k/j) x CPI_B(i/m) (eq. 3)
 * @c: the constant C (fp)
 * @cap_ratio: Cap(k/j), CPU factor of core type j (fp)
 * @share_i: CPI_B share of task i (fp)
 * @share_m: CPI_B share of the reference task m (fp), 0 means 1.0
 *
 * Return: the clamped load scale factor (fp).
 */
u32 sbridge_model_factor(u32 c, u32 cap_ratio, u32 share_i, u32 share_m)
{
	u64 num, den;

	if (!share_m)
		share_m = SBRIDGE_FP_ONE;
	/* c * cap * share_i carries FP^3; divide by share_m * FP to get FP. */
	num = (u64)c * cap_ratio * share_i;
	den = (u64)share_m << SBRIDGE_FP_SHIFT;
	return sbridge_model_clamp(SBRIDGE_DIV64(num, den));
}

/**
 * sbridge_phase_bucket() - a quantised share as a centroid
 * @share_q: quantised share (fp), as sbridge_model_quantise() returns
 *
 * Return: its 0.1 bucket plus 1 (1 .. SBRIDGE_SHARE_BUCKETS + 1).
 */
u8 sbridge_phase_bucket(u32 share_q)
{
	return (u8)(((sbridge_model_quantise(share_q) * SBRIDGE_SHARE_BUCKETS +
		      SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT) + 1);
}

/* The quantised share (fp) of a centroid, bucket + 1. */
static u32 sbridge_bucket_share(u8 c)
{
	return (u32)(c - 1) * SBRIDGE_FP_ONE / SBRIDGE_SHARE_BUCKETS;
}

static bool sbridge_bucket_near(u8 a, u8 b, u32 delta)
{
	return sbridge_absdiff(sbridge_bucket_share(a), sbridge_bucket_share(b)) < delta;
}

/**
 * sbridge_phase_share() - quantised share of a phase on a core type
 * @ph: tracker
 * @phase: phase index
 * @type: core type
 *
 * Return: the share (fp), or SBRIDGE_SHARE_UNKNOWN if the phase was not
 *	seen on @type.
 */
u32 sbridge_phase_share(const struct sbridge_phase *ph, unsigned int phase,
			unsigned int type)
{
	u8 c;

	if (phase >= SBRIDGE_MAX_PHASES || type >= SBRIDGE_MAX_CORE_TYPES ||
	    phase >= ph->nphases)
		return SBRIDGE_SHARE_UNKNOWN;
	c = ph->cen[phase][type];
	return c ? sbridge_bucket_share(c) : SBRIDGE_SHARE_UNKNOWN;
}

/*
 * Can a window of centroid @b on @type be the phase seen as @c on @other?
 * The same code does not stall longer per instruction on a faster core
 * type (its caches are no smaller, the memory is the same), and its
 * compute part shrinks by at most 1 + @gain: on the faster of the two its
 * share is at least the slower one's with the compute part divided by
 * 1 + @gain (it may be higher: a bigger cache removes stalls). Core types
 * are numbered by capacity, the faster higher. @delta of slack.
 */
static bool sbridge_phase_fits(u8 c, unsigned int other, u8 b,
			       unsigned int type, u32 gain, u32 delta)
{
	u64 g = SBRIDGE_FP_ONE + (u64)gain, s, f, lo, den;

	if (type == other)
		return sbridge_bucket_near(b, c, delta);
	/* s: the share on the slower type, f: on the faster one */
	s = sbridge_bucket_share(type > other ? c : b);
	f = sbridge_bucket_share(type > other ? b : c);
	den = s + ((g * (SBRIDGE_FP_ONE - s)) >> SBRIDGE_FP_SHIFT);
	lo = den ? SBRIDGE_DIV64(s << SBRIDGE_FP_SHIFT, den) : 0;
	return f + delta > lo;
}

/* Does a window of centroid @b on @type fit phase @p as seen elsewhere? */
static bool sbridge_phase_fits_all(const struct sbridge_phase *ph,
				   unsigned int p, u8 b, unsigned int type,
				   u32 gain, u32 delta)
{
	unsigned int o;

	for (o = 0; o < SBRIDGE_MAX_CORE_TYPES; o++)
		if (o != type && ph->cen[p][o] &&
		    !sbridge_phase_fits(ph->cen[p][o], o, b, type, gain, delta))
			return false;
	return true;
}

/**
 * sbridge_phase_update() - feed one quantised share to the phase tracker
 * @ph: tracker
 * @type: core type the window ran on (< SBRIDGE_MAX_CORE_TYPES)
 * @share_q: the window's quantised CPI_B share (fp)
 * @delta: share difference that makes a different phase (fp, >= 1)
 * @nwin: consecutive windows a new share must hold (>= 1)
 * @gain: what a non-stalled cycle gains on the fastest type over the
 *	slowest, minus 1 (fp; sbridge_est_predict()): how far a phase's share
 *	may fall from one type to a faster one
 *
 * A phase not yet seen on @type takes the window as its centroid there
 * only if the window could be the same code as the phase seen on the
 * other types (sbridge_phase_fits()); else the window is a candidate for
 * another phase, as a change seen on one type is.
 *
 * Return: true if the current phase changed with this sample.
 */
bool sbridge_phase_update(struct sbridge_phase *ph, unsigned int type,
			  u32 share_q, u32 delta, u32 nwin, u32 gain)
{
	u8 b = sbridge_phase_bucket(share_q), c;
	unsigned int i;

	if (type >= SBRIDGE_MAX_CORE_TYPES)
		return false;
	if (!delta)
		delta = 1;
	if (!nwin)
		nwin = 1;
	if (!ph->nphases || ph->cur >= ph->nphases) {
		memset(ph, 0, sizeof(*ph));
		ph->cen[0][type] = b;
		ph->nphases = 1;
		return false;
	}
	c = ph->cen[ph->cur][type];
	if (!c) {
		/*
		 * The current phase was not seen on @type yet. A phase that
		 * was, and looks like this window, is the evidence: the task
		 * is in that one (it changed phase as it migrated). Else, if
		 * the window can be the same code as the phase seen on the
		 * other types, the phase went on across the migration: this
		 * is its centroid.
		 */
		for (i = 0; i < ph->nphases; i++) {
			c = ph->cen[i][type];
			if (i != ph->cur && c && sbridge_bucket_near(c, b, delta)) {
				ph->cand_count = 0;
				ph->cur = (u8)i;
				return true;
			}
		}
		if (sbridge_phase_fits_all(ph, ph->cur, b, type, gain, delta)) {
			ph->cand_count = 0;
			ph->cen[ph->cur][type] = b;
			return false;
		}
		/* code the current phase cannot be: another phase begins */
	} else if (sbridge_bucket_near(b, c, delta)) {
		ph->cand_count = 0;
		return false;
	}
	if (ph->cand_count && ph->cand_type == type &&
	    sbridge_bucket_near(b, ph->cand, delta)) {
		ph->cand_count++;
	} else {
		ph->cand = b;
		ph->cand_type = (u8)type;
		ph->cand_count = 1;
	}
	if (ph->cand_count < nwin)
		return false;

	ph->cand_count = 0;
	for (i = 0; i < ph->nphases; i++) {
		c = ph->cen[i][type];
		if (i != ph->cur && c && sbridge_bucket_near(c, ph->cand, delta)) {
			ph->cur = (u8)i;
			return true;
		}
	}
	if (ph->nphases < SBRIDGE_MAX_PHASES) {
		i = ph->nphases++;
	} else {
		i = ph->next_slot % SBRIDGE_MAX_PHASES;
		if (i == ph->cur)
			i = (i + 1) % SBRIDGE_MAX_PHASES;
		ph->next_slot = (u8)((i + 1) % SBRIDGE_MAX_PHASES);
	}
	memset(ph->cen[i], 0, sizeof(ph->cen[i]));
	ph->cen[i][type] = ph->cand;
	ph->cur = (u8)i;
	return true;
}

/**
 * sbridge_model_wavg() - weighted mean of an old value and a new one
 * @old: old value
 * @old_w: its weight
 * @val: new value
 * @w: its weight
 *
 * Return: (@old x @old_w + @val x @w) / (@old_w + @w); @old if both are 0.
 */
u32 sbridge_model_wavg(u32 old, u32 old_w, u32 val, u32 w)
{
	if (!old_w && !w)
		return old;
	return (u32)SBRIDGE_DIV64((u64)old * old_w + (u64)val * w, (u64)old_w + w);
}

/**
 * struct sbridge_level - a capacity level while grouping core types
 * @min: lowest capacity in the level
 * @max: highest capacity in the level
 * @sum: sum of member capacities
 * @count: members
 */
struct sbridge_level {
	u32 min, max;
	u64 sum;
	u32 count;
};

static bool sbridge_near(u32 a, u32 b)
{
	u32 hi = a > b ? a : b;

	return (u64)sbridge_absdiff(a, b) * 100 <= (u64)hi * SBRIDGE_TYPE_TOL_PCT;
}

/**
 * sbridge_group_types() - group CPUs into core types by capacity
 * @cap: capacity of each of the @n CPUs (0 entries are ignored: offline)
 * @n: number of CPUs
 * @type: out, core type of each CPU (0 == lowest capacity)
 * @type_cap: out, mean capacity of each type, @max_types entries
 * @max_types: at most this many types (<= SBRIDGE_MAX_CORE_TYPES)
 *
 * CPUs whose capacities are within 2 % are one type. If there are more
 * distinct capacities than @max_types, the two adjacent levels closest to
 * each other (by ratio) are merged until they fit. Three-cluster parts
 * such as 1+3+4 give three types.
 *
 * Return: number of types (0 if @n is 0 or all capacities are 0).
 */
int sbridge_group_types(const u32 *cap, unsigned int n, u8 *type,
			u32 *type_cap, unsigned int max_types)
{
	struct sbridge_level lv[SBRIDGE_MAX_CORE_TYPES + 1];
	unsigned int nl = 0, i, j;

	if (max_types > SBRIDGE_MAX_CORE_TYPES)
		max_types = SBRIDGE_MAX_CORE_TYPES;
	if (!max_types)
		return 0;

	for (i = 0; i < n; i++) {
		u32 v = cap[i];

		if (!v)
			continue;
		for (j = 0; j < nl; j++) {
			if ((v >= lv[j].min && v <= lv[j].max) ||
			    sbridge_near(v, lv[j].min) || sbridge_near(v, lv[j].max))
				break;
		}
		if (j < nl) {
			if (v < lv[j].min)
				lv[j].min = v;
			if (v > lv[j].max)
				lv[j].max = v;
			lv[j].sum += v;
			lv[j].count++;
			continue;
		}
		/* New level, kept sorted ascending. */
		for (j = nl; j > 0 && lv[j - 1].min > v; j--)
			lv[j] = lv[j - 1];
		lv[j].min = v;
		lv[j].max = v;
		lv[j].sum = v;
		lv[j].count = 1;
		nl++;
		if (nl > max_types) {
			/* Merge the adjacent pair with the smallest ratio. */
			unsigned int best = 0;
			u64 best_r = ~0ULL;

			for (j = 0; j + 1 < nl; j++) {
				u64 r = SBRIDGE_DIV64((u64)lv[j + 1].min << 16,
						 lv[j].max);

				if (r < best_r) {
					best_r = r;
					best = j;
				}
			}
			lv[best].max = lv[best + 1].max;
			lv[best].sum += lv[best + 1].sum;
			lv[best].count += lv[best + 1].count;
			for (j = best + 1; j + 1 < nl; j++)
				lv[j] = lv[j + 1];
			nl--;
		}
	}

	for (j = 0; j < nl; j++)
		type_cap[j] = (u32)SBRIDGE_DIV64(lv[j].sum, lv[j].count);
	for (i = 0; i < n; i++) {
		type[i] = 0;
		for (j = 0; j < nl; j++) {
			if (cap[i] && cap[i] >= lv[j].min && cap[i] <= lv[j].max)
				type[i] = (u8)j;
		}
	}
	return (int)nl;
}
