// SPDX-License-Identifier: GPL-2.0
/*
 * Memory latency calibration for the CPI_stall penalty: a pointer chase
 * over a buffer several times larger than the last-level cache, in a random
 * cyclic order so that every load depends on the previous one and no
 * prefetcher can guess the next line. ns per load = elapsed / loads.
 * The result includes TLB misses, as real memory-bound code sees them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/processor.h>
#endif

#include "pmu.h"

#define SBRIDGE_PMU_LINE	64		/* one chase step per cache line */
#define SBRIDGE_PMU_BUF_MIN	SZ_8M
#define SBRIDGE_PMU_BUF_DEF	SZ_32M
#define SBRIDGE_PMU_BUF_MAX	SZ_128M
/* Whole calibration, setup included, stays under 200 ms. */
#define SBRIDGE_PMU_BUDGET_NS	(190 * NSEC_PER_MSEC)
#define SBRIDGE_PMU_SETUP_NS	(100 * NSEC_PER_MSEC)
#define SBRIDGE_PMU_WARMUP_NS	(10 * NSEC_PER_MSEC)
#define SBRIDGE_PMU_CHUNK	1024
#define SBRIDGE_PMU_MIN_LOADS	(4 * SBRIDGE_PMU_CHUNK)
#define SBRIDGE_PMU_STEP	(SBRIDGE_PMU_LINE / sizeof(u32))

static size_t sbridge_pmu_buf_size(void)
{
	size_t llc = 0;

#ifdef CONFIG_X86
	/* KB; the largest (last-level) cache CPUID reports, 0 if unknown */
	if ((int)boot_cpu_data.x86_cache_size > 0)
		llc = (size_t)boot_cpu_data.x86_cache_size * SZ_1K;
#endif
	return clamp_t(size_t, 4 * llc, SBRIDGE_PMU_BUF_DEF, SBRIDGE_PMU_BUF_MAX);
}

/* xorshift64: cheap enough to shuffle a million lines quickly. */
static u64 sbridge_pmu_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/**
 * sbridge_pmu_calibrate_latency() - measure memory latency by pointer chase
 *
 * Allocates up to SBRIDGE_PMU_BUF_MAX with vmalloc() and frees it before
 * returning. Bounded to SBRIDGE_PMU_BUDGET_NS in total.
 *
 * Context: process context (module init), may sleep.
 * Return: ns per dependent load (at least 1); -ENOMEM without a buffer;
 * -ETIME when setup plus enough loads do not fit in the time budget (a
 * slow or emulated machine).
 */
int sbridge_pmu_calibrate_latency(void)
{
	size_t size = sbridge_pmu_buf_size(), n, i;
	u64 start = ktime_get_ns(), t0 = 0, t1 = 0, loads = 0, seed;
	u32 *buf = NULL, *perm, idx = 0;

	for (; size >= SBRIDGE_PMU_BUF_MIN; size /= 2) {
		buf = vmalloc(size);
		if (buf)
			break;
	}
	if (!buf)
		return -ENOMEM;
	n = size / SBRIDGE_PMU_LINE;
	perm = vmalloc(array_size(n, sizeof(*perm)));
	if (!perm) {
		vfree(buf);
		return -ENOMEM;
	}

	/*
	 * Shuffle line numbers in a compact array (cheap, mostly cached), then
	 * link the lines in that order into one cycle through all of them.
	 */
	for (i = 0; i < n; i++)
		perm[i] = i;
	seed = get_random_u64() | 1;
	for (i = n - 1; i > 0; i--) {
		size_t j = (size_t)(sbridge_pmu_rand(&seed) % (i + 1));

		swap(perm[i], perm[j]);
		if (!(i & 0xffff) && ktime_get_ns() - start > SBRIDGE_PMU_SETUP_NS)
			break;	/* a slow machine (emulator): a partial shuffle */
	}
	for (i = 0; i < n; i++)
		buf[perm[i] * SBRIDGE_PMU_STEP] = perm[i + 1 < n ? i + 1 : 0];
	idx = perm[0];
	vfree(perm);

	/* Warm up (TLB, page tables) for a quarter of what is left, <= 10 ms. */
	t0 = ktime_get_ns();
	if (t0 - start >= SBRIDGE_PMU_BUDGET_NS)
		goto out;
	t1 = t0 + min_t(u64, (SBRIDGE_PMU_BUDGET_NS - (t0 - start)) / 4,
			SBRIDGE_PMU_WARMUP_NS);
	while (ktime_get_ns() < t1)
		for (i = 0; i < SBRIDGE_PMU_CHUNK; i++)
			idx = READ_ONCE(buf[idx * SBRIDGE_PMU_STEP]);

	t0 = ktime_get_ns();
	t1 = start + SBRIDGE_PMU_BUDGET_NS;
	do {
		for (i = 0; i < SBRIDGE_PMU_CHUNK; i++)
			idx = READ_ONCE(buf[idx * SBRIDGE_PMU_STEP]);
		loads += SBRIDGE_PMU_CHUNK;
	} while (ktime_get_ns() < t1);
	t1 = ktime_get_ns();
	if (loads < SBRIDGE_PMU_MIN_LOADS)
		loads = 0;
out:
	vfree(buf);
	/* idx keeps the chase alive for the compiler; it is always < n. */
	if (!loads || idx >= n)
		return -ETIME;
	pr_debug("pointer chase: %llu loads over %zu MiB in %llu ns\n",
		 loads, size >> 20, t1 - t0);
	return (int)clamp_t(u64, div64_u64(t1 - t0, loads), 1, INT_MAX);
}
