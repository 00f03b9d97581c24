// SPDX-License-Identifier: GPL-2.0
/*
 * Core types from the hardware's own description (see coretype.h). No
 * kernel dependency on purpose: tests/unit/ builds this very file on the
 * host. Runs at load and in the once-a-second refresh, never in the
 * context-switch path; quadratic in the CPUs where it walks rankings.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#define SBRIDGE_DIV64(a, b)	div64_u64((a), (b))
#else
#include <stddef.h>
#define SBRIDGE_DIV64(a, b)	((a) / (b))
#endif
#include "coretype.h"

/* MIDR part number and implementer of an arm64 CPU, as one key. */
#define SBRIDGE_CT_PART(midr)	((midr) & 0xff00fff0U)

/**
 * sbridge_ct_arm_tier() - a coarse per-clock speed of an Arm core
 * @midr: its MIDR_EL1
 *
 * For kernels that report one capacity on an arm64 board (no
 * capacity-dmips-mhz in the device tree, ACPI without CPPC): 512 for
 * Arm's in-order little cores (Cortex-A53, A55, A510, A520), 1280 for
 * the X series and the Neoverse V cores, 1024 for every other part. The
 * ratios are round numbers near the device trees' capacity-dmips-mhz of
 * the RK3399 (A53 485 : A72 1024) and RK3588 (A55 530 : A76 1024), not
 * measurements; docs/boards.md lists what was checked.
 *
 * Return: the tier, 1024 for a part it does not know.
 */
u32 sbridge_ct_arm_tier(u32 midr)
{
	if (((midr >> 24) & 0xff) != 0x41)
		return 1024;
	switch ((midr >> 4) & 0xfff) {
	case 0xd03: case 0xd05: case 0xd46: case 0xd80:
		return 512;
	case 0xd44: case 0xd48: case 0xd4e: case 0xd82:	/* X1-X4 */
	case 0xd40: case 0xd4f:				/* V1, V2 */
		return 1280;
	default:
		return 1024;
	}
}

/**
 * sbridge_ct_from_name() - short name of an enum sbridge_types_from
 * @from: the value
 *
 * Return: static string, "unknown" for another value.
 */
const char *sbridge_ct_from_name(u32 from)
{
	switch (from) {
	case SBRIDGE_TYPES_CAPACITY:	return "capacity";
	case SBRIDGE_TYPES_CPUFREQ:	return "cpufreq";
	case SBRIDGE_TYPES_DECLARED:	return "declared";
	case SBRIDGE_TYPES_X86_HYBRID:	return "cpuid-hybrid";
	case SBRIDGE_TYPES_RANKING:	return "cppc-ranking";
	case SBRIDGE_TYPES_MIDR:	return "midr";
	default:			return "unknown";
	}
}

/* The capacity 1024 x @v / @max, at least 1; 1024 if @max is 0. */
static u32 sbridge_ct_scale(u64 v, u64 max)
{
	u64 c;

	if (!max)
		return 1024;
	c = SBRIDGE_DIV64(v * 1024, max);
	return c ? (u32)c : 1;
}

/* @c[i]'s highest performance as its core's (SMT siblings are one core). */
static u32 sbridge_ct_perf(const struct sbridge_ct_cpu *c, unsigned int n,
			   unsigned int i)
{
	return c[i].core < n ? c[c[i].core].perf : c[i].perf;
}

/* Types by CPUID 0x1A: each type's best HWP perf, else its best cpufreq max. */
static bool sbridge_ct_x86_hybrid(const struct sbridge_ct_cpu *c, unsigned int n,
				  u32 *cap)
{
	u32 perf[2] = { 0, 0 }, khz[2] = { 0, 0 };
	bool seen[2] = { false, false }, by_perf = true, by_khz = true;
	unsigned int i, t;

	for (i = 0; i < n; i++) {
		if (!c[i].capacity)
			continue;
		if (c[i].x86_type != SBRIDGE_CT_X86_ATOM &&
		    c[i].x86_type != SBRIDGE_CT_X86_CORE)
			return false;
		t = c[i].x86_type == SBRIDGE_CT_X86_CORE;
		seen[t] = true;
		if (sbridge_ct_perf(c, n, i) > perf[t])
			perf[t] = sbridge_ct_perf(c, n, i);
		if (c[i].max_khz > khz[t])
			khz[t] = c[i].max_khz;
		by_perf = by_perf && sbridge_ct_perf(c, n, i);
		by_khz = by_khz && c[i].max_khz;
	}
	if (!seen[0] || !seen[1])
		return false;
	for (i = 0; i < n; i++) {
		if (!c[i].capacity)
			continue;
		t = c[i].x86_type == SBRIDGE_CT_X86_CORE;
		if (by_perf)
			cap[i] = sbridge_ct_scale(perf[t], perf[0] > perf[1] ? perf[0] : perf[1]);
		else if (by_khz)
			cap[i] = sbridge_ct_scale(khz[t], khz[0] > khz[1] ? khz[0] : khz[1]);
		else
			cap[i] = c[i].capacity;	/* nothing says how much: one type */
	}
	return true;
}

/*
 * The top of @v's ranking group: walk up the distinct rankings while each
 * step up is at most 1/8 of the higher one.
 */
static u32 sbridge_ct_group_top(const struct sbridge_ct_cpu *c, unsigned int n,
				u32 v)
{
	for (;;) {
		u32 next = 0;
		unsigned int i;

		for (i = 0; i < n; i++) {
			u32 p = c[i].capacity ? sbridge_ct_perf(c, n, i) : 0;

			if (p > v && (!next || p < next))
				next = p;
		}
		if (!next || v < next - (next >> SBRIDGE_CT_RANK_GAP_SHIFT))
			return v;
		v = next;
	}
}

/* AMD: types by preferred-core ranking, split at drops of more than 1/8. */
static bool sbridge_ct_ranking(const struct sbridge_ct_cpu *c, unsigned int n,
			       u32 *cap)
{
	u32 top = 0, low = 0, max = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		u32 p;

		if (!c[i].capacity)
			continue;
		p = sbridge_ct_perf(c, n, i);
		if (!c[i].amd || !p)
			return false;
		if (!low || p < low)
			low = p;
		if (p > max)
			max = p;
	}
	if (!max || sbridge_ct_group_top(c, n, low) == max)
		return false;	/* one group */
	for (i = 0; i < n; i++) {
		if (!c[i].capacity)
			continue;
		top = sbridge_ct_group_top(c, n, sbridge_ct_perf(c, n, i));
		cap[i] = sbridge_ct_scale(top, max);
	}
	return true;
}

/* arm64: types by MIDR part, capacity tier x cpufreq maximum. */
static bool sbridge_ct_midr(const struct sbridge_ct_cpu *c, unsigned int n,
			    u32 *cap)
{
	u32 first = 0;
	u64 max = 0;
	bool differ = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		u64 v;

		if (!c[i].capacity)
			continue;
		if (!c[i].midr)
			return false;
		if (!first)
			first = SBRIDGE_CT_PART(c[i].midr);
		differ |= SBRIDGE_CT_PART(c[i].midr) != first;
		v = (u64)sbridge_ct_arm_tier(c[i].midr) * (c[i].max_khz ?: 1);
		if (v > max)
			max = v;
	}
	if (!differ)
		return false;
	for (i = 0; i < n; i++)
		if (c[i].capacity)
			cap[i] = sbridge_ct_scale((u64)sbridge_ct_arm_tier(c[i].midr) *
						  (c[i].max_khz ?: 1), max);
	return true;
}

/* Capacity x cpufreq maximum over the highest (the paper's x86 setup). */
static bool sbridge_ct_cpufreq(const struct sbridge_ct_cpu *c, unsigned int n,
			       u32 *cap)
{
	u32 maxk = 0;
	bool differ = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!c[i].capacity)
			continue;
		if (maxk && c[i].max_khz && c[i].max_khz != maxk)
			differ = true;
		if (c[i].max_khz > maxk)
			maxk = c[i].max_khz;
	}
	if (!differ)
		return false;
	for (i = 0; i < n; i++)
		if (c[i].capacity && c[i].max_khz)
			cap[i] = (u32)SBRIDGE_DIV64((u64)c[i].capacity * c[i].max_khz, maxk);
	return true;
}

/**
 * sbridge_ct_classify() - one capacity per CPU, from what tells them apart
 * @c: the CPUs (entries with capacity 0 are skipped: their @cap is left)
 * @n: number of CPUs
 * @cap: out, the capacity to group each CPU by (sbridge_group_types())
 *
 * The first source of coretype.h's list that tells the CPUs apart wins;
 * the kernel's capacities, when they differ, always do.
 *
 * Return: the source, an enum sbridge_types_from (SBRIDGE_TYPES_CAPACITY
 *	also when nothing tells the CPUs apart: one type).
 */
u32 sbridge_ct_classify(const struct sbridge_ct_cpu *c, unsigned int n, u32 *cap)
{
	u32 first = 0;
	bool flat = true;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!c[i].capacity)
			continue;
		cap[i] = c[i].capacity;
		if (first && c[i].capacity != first)
			flat = false;
		first = first ?: c[i].capacity;
	}
	if (!flat)
		return SBRIDGE_TYPES_CAPACITY;
	if (sbridge_ct_x86_hybrid(c, n, cap))
		return SBRIDGE_TYPES_X86_HYBRID;
	if (sbridge_ct_ranking(c, n, cap))
		return SBRIDGE_TYPES_RANKING;
	if (sbridge_ct_midr(c, n, cap))
		return SBRIDGE_TYPES_MIDR;
	if (sbridge_ct_cpufreq(c, n, cap))
		return SBRIDGE_TYPES_CPUFREQ;
	return SBRIDGE_TYPES_CAPACITY;
}
