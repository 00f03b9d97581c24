// SPDX-License-Identifier: GPL-2.0
/*
 * Effective frequency per CPU, so that the core's CPU factor can be made
 * frequency-invariant, as the scheduler's own x86 frequency invariance
 * does ("x86, sched: Add support for frequency invariance", v5.7).
 *
 * Sources, best first:
 *  - x86: APERF/MPERF. delta APERF / delta MPERF x the nominal frequency is
 *    the average frequency while not idle. MSR reads are not free, so a CPU
 *    samples its own MSRs at most every SBRIDGE_PMU_MSR_NS, from the
 *    context-switch path (IRQs off, local CPU) as the seed amortises it on
 *    the tick.
 *  - arm64 (any GENERIC_ARCH_TOPOLOGY arch): arch_freq_scale, which AMU or
 *    the cpufreq driver keep as cur/max in 1/1024, x the hardware maximum.
 *  - cpufreq's last requested frequency.
 * cpufreq_quick_get() and friends take cpufreq locks and must not be called
 * with IRQs off, so a delayed work samples them every
 * SBRIDGE_PMU_SAMPLE_MS into a per-CPU cache that effective_khz() reads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/tsc.h>
#endif
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
#include <linux/arch_topology.h>
#include <linux/sched/topology.h>
#endif

#include <sbridge/compat.h>

#include "pmu.h"


#define SBRIDGE_PMU_SAMPLE_MS	100
#define SBRIDGE_PMU_MSR_NS	(4 * NSEC_PER_MSEC)
/* Fewer MPERF ticks than this (mostly idle) says too little: keep the old value. */
#define SBRIDGE_PMU_MIN_MPERF	10000

/**
 * struct sbridge_pmu_freq - frequency cache of one CPU
 * @aperf: APERF at the last sample (x86; written by the CPU itself, IRQs off)
 * @mperf: MPERF at the last sample (same)
 * @stamp: local_clock() of the last sample, 0 = none yet (same)
 * @khz: APERF/MPERF result, 0 = not known yet (written by the CPU itself,
 *	read anywhere with READ_ONCE)
 * @cpufreq_khz: cpufreq_quick_get() (written by the sampling work)
 * @max_khz: cpufreq_get_hw_max_freq() (written by the sampling work)
 */
struct sbridge_pmu_freq {
	u64 aperf;
	u64 mperf;
	u64 stamp;
	u32 khz;
	u32 cpufreq_khz;
	u32 max_khz;
};

static DEFINE_PER_CPU(struct sbridge_pmu_freq, sbridge_pmu_freq);
static bool sbridge_pmu_have_aperfmperf;

static void sbridge_pmu_sample_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(sbridge_pmu_sample_work, sbridge_pmu_sample_fn);

static void sbridge_pmu_sample_cpufreq(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct sbridge_pmu_freq *f = per_cpu_ptr(&sbridge_pmu_freq, cpu);

		WRITE_ONCE(f->cpufreq_khz, cpufreq_quick_get(cpu));
		WRITE_ONCE(f->max_khz, cpufreq_get_hw_max_freq(cpu));
	}
}

static void sbridge_pmu_sample_fn(struct work_struct *work)
{
	sbridge_pmu_sample_cpufreq();
	schedule_delayed_work(&sbridge_pmu_sample_work,
			      msecs_to_jiffies(SBRIDGE_PMU_SAMPLE_MS));
}

#ifdef CONFIG_X86
/* Local CPU, IRQs off. */
static void sbridge_pmu_sample_aperfmperf(struct sbridge_pmu_freq *f)
{
	u64 now = local_clock(), a, m, da, dm;

	if (f->stamp && now - f->stamp < SBRIDGE_PMU_MSR_NS)
		return;
	if (sbridge_rdmsr_safe(MSR_IA32_APERF, &a) ||
	    sbridge_rdmsr_safe(MSR_IA32_MPERF, &m))
		return;
	if (f->stamp) {
		da = a - f->aperf;
		dm = m - f->mperf;
		if (dm < SBRIDGE_PMU_MIN_MPERF)
			return;		/* keep the old base, wait for more ticks */
		while (da > U32_MAX) {
			da >>= 1;
			dm >>= 1;
		}
		if (dm)
			WRITE_ONCE(f->khz, (u32)min_t(u64, div64_u64((u64)cpu_khz * da, dm),
						      U32_MAX));
	}
	f->aperf = a;
	f->mperf = m;
	f->stamp = now;
}
#endif

/**
 * sbridge_pmu_effective_khz() - effective frequency of a CPU
 * @cpu: any CPU; only the local one (with IRQs off) refreshes APERF/MPERF
 *
 * Safe with IRQs off and the runqueue lock held: reads per-CPU caches,
 * and on x86 at most two local MSRs.
 *
 * Return: kHz, 0 if unknown.
 */
u32 sbridge_pmu_effective_khz(unsigned int cpu)
{
	struct sbridge_pmu_freq *f;
	u32 khz;

	if (cpu >= nr_cpu_ids)
		return 0;
	f = per_cpu_ptr(&sbridge_pmu_freq, cpu);
#ifdef CONFIG_X86
	if (sbridge_pmu_have_aperfmperf) {
		if (irqs_disabled() && cpu == raw_smp_processor_id())
			sbridge_pmu_sample_aperfmperf(f);
		khz = READ_ONCE(f->khz);
		if (khz)
			return khz;
	}
#endif
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
	{
		unsigned long scale = topology_get_freq_scale(cpu);
		u32 max = READ_ONCE(f->max_khz);

		/*
		 * arch_freq_scale stays exactly 1024 when nothing maintains
		 * it (no AMU, driver without frequency invariance): then the
		 * requested frequency below is the better guess.
		 */
		if (max && scale != SCHED_CAPACITY_SCALE)
			return (u32)(((u64)max * scale) >> SCHED_CAPACITY_SHIFT);
	}
#endif
	khz = READ_ONCE(f->cpufreq_khz);
	if (khz)
		return khz;
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
	if (READ_ONCE(f->max_khz))
		return READ_ONCE(f->max_khz);
#endif
#ifdef CONFIG_X86
	/* No cpufreq (e.g. a VM): the calibrated nominal clock is all we know. */
	return cpu_khz;
#else
	return 0;
#endif
}

/**
 * sbridge_pmu_freq_source() - which source effective_khz() uses first
 *
 * Return: a static string for the load report.
 */
const char *sbridge_pmu_freq_source(void)
{
	if (sbridge_pmu_have_aperfmperf)
		return "APERF/MPERF";
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
	return "arch_freq_scale x max, else cpufreq";
#elif defined(CONFIG_X86)
	return "cpufreq, else nominal";
#else
	return "cpufreq";
#endif
}

/**
 * sbridge_pmu_freq_init() - fill the caches and start the sampling work
 *
 * Process context. Cannot fail.
 */
void sbridge_pmu_freq_init(void)
{
#ifdef CONFIG_X86
	sbridge_pmu_have_aperfmperf = boot_cpu_has(X86_FEATURE_APERFMPERF);
#endif
	sbridge_pmu_sample_cpufreq();
	schedule_delayed_work(&sbridge_pmu_sample_work,
			      msecs_to_jiffies(SBRIDGE_PMU_SAMPLE_MS));
}

/**
 * sbridge_pmu_freq_exit() - stop the sampling work
 *
 * Process context; waits for a running sample to finish.
 */
void sbridge_pmu_freq_exit(void)
{
	cancel_delayed_work_sync(&sbridge_pmu_sample_work);
}
