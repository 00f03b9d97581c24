// SPDX-License-Identifier: GPL-2.0
/*
 * The S-Bridge load model as integer arithmetic. No kernel dependency on
 * purpose (see model.h): tests/unit/ builds this very file on the host.
 */
#ifdef __KERNEL__
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/overflow.h>
#include <linux/math64.h>
#define SBRIDGE_DIV64(a, b)	div64_u64((a), (b))
#else
#define SBRIDGE_DIV64(a, b)	((a) / (b))
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define U64_MAX		(~0ULL)
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
 * Stall cycles are capped at the window's cycles, so 0 <= share <= 1.
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
		if (check_mul_overflow(w->misses, (u64)penalty_cycles, &stall))
			stall = U64_MAX;
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
 * sbridge_phase_update() - feed one quantised share to the phase tracker
 * @ph: tracker
 * @share_q: the window's quantised CPI_B share (fp)
 * @delta: share difference that makes a different phase (fp, >= 1)
 * @nwin: consecutive windows a new share must hold (>= 1)
 *
 * Return: true if the current phase changed with this sample.
 */
bool sbridge_phase_update(struct sbridge_phase *ph, u32 share_q, u32 delta,
			  u32 nwin)
{
	unsigned int i;

	if (!delta)
		delta = 1;
	if (!nwin)
		nwin = 1;
	if (!ph->nphases) {
		ph->share[0] = share_q;
		ph->nphases = 1;
		ph->cur = 0;
		ph->cand_count = 0;
		return false;
	}
	if (sbridge_absdiff(share_q, ph->share[ph->cur]) < delta) {
		ph->cand_count = 0;
		return false;
	}
	if (ph->cand_count && sbridge_absdiff(share_q, ph->cand) < delta) {
		ph->cand_count++;
	} else {
		ph->cand = share_q;
		ph->cand_count = 1;
	}
	if (ph->cand_count < nwin)
		return false;

	ph->cand_count = 0;
	for (i = 0; i < ph->nphases; i++) {
		if (i != ph->cur && sbridge_absdiff(ph->share[i], ph->cand) < delta) {
			ph->cur = i;
			return true;
		}
	}
	if (ph->nphases < SBRIDGE_MAX_PHASES) {
		i = ph->nphases++;
	} else {
		i = ph->next_slot % SBRIDGE_MAX_PHASES;
		if (i == ph->cur)
			i = (i + 1) % SBRIDGE_MAX_PHASES;
		ph->next_slot = (i + 1) % SBRIDGE_MAX_PHASES;
	}
	ph->share[i] = ph->cand;
	ph->cur = i;
	return true;
}

#define SBRIDGE_TP_CPI_MASK	((1ULL << SBRIDGE_TP_CPI_BITS) - 1)
#define SBRIDGE_TP_KHZ_MASK	((1ULL << SBRIDGE_TP_KHZ_BITS) - 1)

static u64 sbridge_tp_cpi(u64 tp)
{
	return tp & SBRIDGE_TP_CPI_MASK;
}

static u64 sbridge_tp_khz(u64 tp)
{
	return (tp >> SBRIDGE_TP_CPI_BITS) & SBRIDGE_TP_KHZ_MASK;
}

/**
 * sbridge_model_tp_count() - windows summed in a throughput accumulator
 * @tp: accumulator (see model.h)
 *
 * Return: 0 .. SBRIDGE_TP_N_MAX.
 */
unsigned int sbridge_model_tp_count(u64 tp)
{
	return (unsigned int)(tp >> SBRIDGE_TP_N_SHIFT);
}

/**
 * sbridge_model_tp_add() - add one window to a throughput accumulator
 * @tp: accumulator (see model.h)
 * @cpi: the window's CPI (fp); values above 0xfffe count as 0xfffe
 * @khz: clock the window ran at, 0 if unknown
 *
 * Shifts and adds only: this runs in the context-switch path. Until
 * SBRIDGE_TP_N_MAX windows the sums are plain sums; then each new window
 * first takes 1/16 off both sums, so the means follow the task (EWMA)
 * and the sums stay below 16 x the largest input.
 *
 * Return: the new accumulator.
 */
u64 sbridge_model_tp_add(u64 tp, u32 cpi, u32 khz)
{
	u64 n = sbridge_model_tp_count(tp);
	u64 c = sbridge_tp_cpi(tp), k = sbridge_tp_khz(tp);

	if (cpi > 0xfffe)
		cpi = 0xfffe;
	if (n >= SBRIDGE_TP_N_MAX) {
		n = SBRIDGE_TP_N_MAX;
		c -= c >> 4;
		k -= k >> 4;
	} else {
		n++;
	}
	c += cpi;
	k += khz;
	return (n << SBRIDGE_TP_N_SHIFT) | ((k & SBRIDGE_TP_KHZ_MASK) << SBRIDGE_TP_CPI_BITS) |
	       (c & SBRIDGE_TP_CPI_MASK);
}

/**
 * sbridge_model_tp_speedup() - measured speedup of one core type over another
 * @fast: accumulator of the faster core type
 * @slow: accumulator of the slower core type
 * @equal_clocks: out, set when a clock is unknown and both were taken as
 *	equal (the result is then the IPC ratio); may be NULL
 *
 * Throughput on a type is its mean IPC x its mean clock, i.e. mean clock /
 * mean CPI: instructions per unit of frequency-normalised time. Windows
 * hold equal instruction counts, so the mean CPI (time per instruction) is
 * the right average. The speedup is throughput(@fast) / throughput(@slow).
 *
 * Return: the speedup (fp) clamped to [SBRIDGE_FACTOR_MIN,
 *	SBRIDGE_FACTOR_MAX], or 0 if either accumulator is empty.
 */
u32 sbridge_model_tp_speedup(u64 fast, u64 slow, bool *equal_clocks)
{
	u64 nf = sbridge_model_tp_count(fast), ns = sbridge_model_tp_count(slow);
	u64 cf = sbridge_tp_cpi(fast), cs = sbridge_tp_cpi(slow);
	u64 kf = sbridge_tp_khz(fast), ks = sbridge_tp_khz(slow);
	u64 num, den;

	if (equal_clocks)
		*equal_clocks = false;
	if (!nf || !ns || !cf || !cs)
		return 0;
	if (!kf || !ks) {
		/* Unknown clock: throughput is 1 / mean CPI on both. */
		if (equal_clocks)
			*equal_clocks = true;
		kf = nf;
		ks = ns;
	}
	/*
	 * (kf / cf) / (ks / cs): mean clock / mean CPI on each type, the
	 * counts cancel. Each product is below 2^59; scale both down until
	 * the numerator leaves room for the fixed-point shift.
	 */
	num = kf * cs;
	den = cf * ks;
	while (num >> (63 - SBRIDGE_FP_SHIFT)) {
		num >>= 1;
		den >>= 1;
	}
	if (!den)
		return SBRIDGE_FACTOR_MAX;
	return sbridge_model_clamp(SBRIDGE_DIV64(num << SBRIDGE_FP_SHIFT, den));
}

/**
 * sbridge_model_speedup_blend() - trust a measured speedup as data grows
 * @pred: speedup the CPI stack predicts (fp)
 * @own: speedup measured on the task itself (fp), 0 if none
 * @own_w: its weight: windows on the less-sampled of the two types
 * @seed: measured speedup its workload had in the matrix (fp), 0 if none
 * @seed_w: its weight (same unit)
 * @meas: out, the measured speedup in force (fp), 0 if none
 *
 * The task's own measurement fills up to SBRIDGE_SPEEDUP_TRUST windows of
 * trust; the matrix's value fills what is missing; @pred the rest. With
 * SBRIDGE_SPEEDUP_TRUST windows on each type the measurement alone counts.
 *
 * Return: the blended speedup (fp); @pred if nothing was measured.
 */
u32 sbridge_model_speedup_blend(u32 pred, u32 own, u32 own_w, u32 seed,
				u32 seed_w, u32 *meas)
{
	u64 m, trust;
	u32 sw;

	if (!own)
		own_w = 0;
	if (own_w > SBRIDGE_SPEEDUP_TRUST)
		own_w = SBRIDGE_SPEEDUP_TRUST;
	sw = seed ? SBRIDGE_SPEEDUP_TRUST - own_w : 0;
	if (sw > seed_w)
		sw = seed_w;
	trust = own_w + sw;
	if (!trust) {
		*meas = own ? own : seed;
		return pred;
	}
	m = SBRIDGE_DIV64((u64)own * own_w + (u64)seed * sw, trust);
	*meas = (u32)m;
	return (u32)SBRIDGE_DIV64(m * trust + (u64)pred * (SBRIDGE_SPEEDUP_TRUST - trust),
				  SBRIDGE_SPEEDUP_TRUST);
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
