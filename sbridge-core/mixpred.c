// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction-mix predictor as integer arithmetic. No kernel
 * dependency on purpose (see mixpred.h): tests/unit/ builds this very file
 * on the host.
 */
#ifdef __KERNEL__
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/errno.h>
#include <linux/string.h>
#define SBRIDGE_DIV64(a, b)	div64_u64((a), (b))
#else
#include <errno.h>
#include <stdio.h>
#include <string.h>
#define SBRIDGE_DIV64(a, b)	((a) / (b))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#include "mixpred.h"

/**
 * sbridge_mix_update() - fold one counter delta into a task's class shares
 * @mix: the task's shares (SBRIDGE_MIX_ONE == 1.0), all 0 while unknown
 * @cls: instructions of each class in the delta (SBRIDGE_MIX_NR)
 * @instr: instructions in the delta (nothing happens if 0)
 * @hist: instructions the mean remembers (its weight), at least 1
 *
 * A mean weighted by instructions and forgetting exponentially: a delta
 * of n instructions moves each share by n / (n + @hist) of the way to its
 * own share, rounded up so that a mean of integers does not stop short
 * of a steady input. The first delta sets them. One writer (the task's
 * CPU).
 */
void sbridge_mix_update(u16 *mix, const u64 *cls, u64 instr, u32 hist)
{
	bool first = true;
	unsigned int k;

	for (k = 0; k < SBRIDGE_MIX_NR; k++)
		first = first && !mix[k];

	if (!instr)
		return;
	if (!hist)
		hist = 1;
	/* a delta's weight is capped: (n + hist) stays within 2^62 */
	if (instr > (1ULL << 40))
		instr = 1ULL << 40;
	for (k = 0; k < SBRIDGE_MIX_NR; k++) {
		u64 c = cls[k] > (1ULL << 40) ? 1ULL << 40 : cls[k];
		u64 x = SBRIDGE_DIV64(c << SBRIDGE_MIX_SHIFT, instr);
		u64 old = mix[k], d, m;

		if (x > 0xffff)
			x = 0xffff;
		if (first) {
			mix[k] = (u16)x;
			continue;
		}
		d = x > old ? x - old : old - x;
		m = SBRIDGE_DIV64(d * instr + instr + hist - 1, instr + hist);
		mix[k] = (u16)(x > old ? old + m : old - m);
	}
}

/**
 * sbridge_mix_known() - the shares are there and cover the instructions
 * @mix: a task's class shares
 *
 * Return: true if their sum is between SBRIDGE_MIX_COVER_MIN and
 *	SBRIDGE_MIX_COVER_MAX.
 */
bool sbridge_mix_known(const u16 *mix)
{
	u32 sum = 0;
	unsigned int k;

	for (k = 0; k < SBRIDGE_MIX_NR; k++)
		sum += mix[k];
	return sum >= SBRIDGE_MIX_COVER_MIN && sum <= SBRIDGE_MIX_COVER_MAX;
}

/**
 * sbridge_mix_cpi() - compute CPI of one core type for a mix
 * @cpi: the type's CPI per term (fp), SBRIDGE_MIX_TERMS of them
 * @mix: class shares; the instructions in none of the classes (1 - their
 *	sum, 0 if they overshoot) take term 0
 *
 * Return: the CPI (fp), at most U32 range.
 */
u32 sbridge_mix_cpi(const u32 *cpi, const u16 *mix)
{
	u64 acc = 0, sum = 0;
	unsigned int k;

	for (k = 0; k < SBRIDGE_MIX_NR; k++) {
		acc += (u64)cpi[k + 1] * mix[k];
		sum += mix[k];
	}
	if (sum < SBRIDGE_MIX_ONE)
		acc += (u64)cpi[0] * (SBRIDGE_MIX_ONE - sum);
	acc = (acc + SBRIDGE_MIX_ONE / 2) >> SBRIDGE_MIX_SHIFT;
	return acc > 0xffffffffULL ? 0xffffffffU : (u32)acc;
}

/**
 * sbridge_mix_predict() - speedup of the fast type the mix predicts
 * @c: the pair's coefficients (sbridge_mixcoef_check() passed)
 * @mix: the task's class shares (sbridge_mix_known())
 * @cpi_stall: the stall CPI (fp) of its last window
 * @on_fast: @cpi_stall was measured on the fast type (else on the slow)
 * @scale: the stall time on the type it was not measured on over the
 *	measured one's (fp; struct sbridge_memrate's @coef: the memory ratio
 *	rho seen from the fast type, 1 / rho from the slow; 0: equal,
 *	memory latency being in nanoseconds)
 * @mem: out, may be NULL: how the prediction moves with @scale (fp), the
 *	stall's share of the time of the type it was not measured on, so
 *	that a relative error e of @scale is one of @mem x e in the speedup
 *
 * Time per instruction on each type, in the fast type's cycles: its
 * compute CPI (sbridge_mix_cpi()) over its clock, plus the stall time,
 * the measured side's scaled by @scale to the other side (a slow type's
 * smaller caches and fewer misses in flight make its stalls longer than
 * the latency alone would).
 *
 * Return: the predicted speedup (fp), in [SBRIDGE_FACTOR_MIN,
 *	SBRIDGE_FACTOR_MAX].
 */
u32 sbridge_mix_predict(const struct sbridge_mixcoef *c, const u16 *mix,
			u32 cpi_stall, bool on_fast, u32 scale, u32 *mem)
{
	u64 cf = sbridge_mix_cpi(c->cpi[0], mix);
	u64 cs = sbridge_mix_cpi(c->cpi[1], mix);
	u64 st = cpi_stall, sf, ss, num, den;

	if (!scale)
		scale = SBRIDGE_FP_ONE;
	if (on_fast) {
		sf = st;
		ss = (st * scale + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT;
	} else {
		ss = (st * c->clock + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT;
		sf = (ss * scale + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT;
	}
	num = ((cs * c->clock + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT) + ss;
	den = cf + sf;
	if (mem) {
		u64 part = on_fast ? ss : sf, all = on_fast ? num : den;

		*mem = all ? (u32)SBRIDGE_DIV64((part << SBRIDGE_FP_SHIFT) + all / 2, all) : 0;
	}
	if (!den)
		return SBRIDGE_FP_ONE;
	return sbridge_model_clamp(SBRIDGE_DIV64((num << SBRIDGE_FP_SHIFT) + den / 2,
						 den));
}

/**
 * sbridge_mixcoef_check() - are coefficients usable
 * @c: coefficients
 *
 * Every CPI in [1, SBRIDGE_MIX_CPI_MAX] (fp), the clock ratio in
 * [SBRIDGE_MIX_CLOCK_MIN, SBRIDGE_MIX_CLOCK_MAX], the error in
 * [SBRIDGE_MIX_ERR_MIN, SBRIDGE_MIX_ERR_MAX].
 *
 * Return: 0 or -EINVAL.
 */
int sbridge_mixcoef_check(const struct sbridge_mixcoef *c)
{
	unsigned int t, k;

	for (t = 0; t < 2; t++)
		for (k = 0; k < SBRIDGE_MIX_TERMS; k++)
			if (!c->cpi[t][k] || c->cpi[t][k] > SBRIDGE_MIX_CPI_MAX)
				return -EINVAL;
	if (c->clock < SBRIDGE_MIX_CLOCK_MIN || c->clock > SBRIDGE_MIX_CLOCK_MAX)
		return -EINVAL;
	if (c->err < SBRIDGE_MIX_ERR_MIN || c->err > SBRIDGE_MIX_ERR_MAX)
		return -EINVAL;
	return 0;
}

/**
 * sbridge_mixcoef_parse() - one line of the predictor file
 * @line: "FAST SLOW CLOCK ERR" and SBRIDGE_MIX_TERMS CPIs of the fast type,
 *	then as many of the slow type: decimal integers (fixed point, 1024 ==
 *	1.0) separated by blanks, nothing else; no newline
 * @fast: out, the fast core type
 * @slow: out, the slow core type
 * @c: out, the coefficients (validated)
 *
 * Return: 0, or -EINVAL (bad syntax, a value out of range, @fast equal to
 *	@slow, a type beyond SBRIDGE_MAX_CORE_TYPES); @c may be clobbered.
 */
int sbridge_mixcoef_parse(const char *line, unsigned int *fast,
			  unsigned int *slow, struct sbridge_mixcoef *c)
{
	unsigned int v[4 + 2 * SBRIDGE_MIX_TERMS], n = 0, k;
	const char *p = line;

	while (*p) {
		unsigned long long x = 0;

		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p < '0' || *p > '9' || n == ARRAY_SIZE(v))
			return -EINVAL;
		while (*p >= '0' && *p <= '9') {
			x = x * 10 + (unsigned int)(*p - '0');
			if (x > 0xffffffffULL)
				return -EINVAL;
			p++;
		}
		if (*p && *p != ' ' && *p != '\t')
			return -EINVAL;
		v[n++] = (unsigned int)x;
	}
	if (n != ARRAY_SIZE(v))
		return -EINVAL;
	*fast = v[0];
	*slow = v[1];
	if (*fast == *slow || *fast >= SBRIDGE_MAX_CORE_TYPES ||
	    *slow >= SBRIDGE_MAX_CORE_TYPES)
		return -EINVAL;
	c->clock = v[2];
	c->err = v[3];
	for (k = 0; k < SBRIDGE_MIX_TERMS; k++) {
		c->cpi[0][k] = v[4 + k];
		c->cpi[1][k] = v[4 + SBRIDGE_MIX_TERMS + k];
	}
	return sbridge_mixcoef_check(c);
}
