// SPDX-License-Identifier: GPL-2.0
/*
 * Effective frequency per CPU, so that the core's CPU factor can be made
 * frequency-invariant, as the scheduler's own x86 frequency invariance
 * does ("x86, sched: Add support for frequency invariance", v5.7).
 *
 * Only a clock something measures or sets is reported, never a nominal
 * one: with none of the sources below a CPU's effective frequency is 0
 * (unknown) and the core keeps its nominal factor. Sources, best first:
 *  - x86: APERF/MPERF. delta APERF / delta MPERF x the nominal frequency is
 *    the average frequency while not idle. MSR reads are not free, so a CPU
 *    samples its own MSRs at most every SBRIDGE_PMU_MSR_NS, from the
 *    context-switch path (IRQs off, local CPU) as the seed amortises it on
 *    the tick.
 *  - the emulation rig's counters (tools/rig), a test double of the two
 *    above: its PMU, rig_pmu, counts core cycles and constant-rate cycles
 *    (SBRIDGE_PMU_RIG_REF_KHZ while not idle) as APERF/MPERF and AMU's
 *    core and constant counters do; the same ratio, sampled the same way.
 *    Only a PMU named "rig_pmu" is read this way: the rate of a hardware
 *    PMU's reference cycles is its own business.
 *  - arm64 (any GENERIC_ARCH_TOPOLOGY arch): arch_freq_scale, which AMU,
 *    CPPC counters or the cpufreq driver keep as cur/max in 1/1024, x the
 *    hardware maximum; it stays exactly 1024 when nothing keeps it.
 *  - cpufreq's current frequency (what the driver set).
 * cpufreq_quick_get() and friends take cpufreq locks and must not be called
 * with IRQs off, so a delayed work samples them into a per-CPU cache that
 * effective_khz() reads: every SBRIDGE_PMU_SAMPLE_MS while a CPU has no
 * counter that measures its clock, else once a second.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpufreq.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/msr.h>
#endif
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
#include <linux/arch_topology.h>
#include <linux/sched/topology.h>
#endif

#include <sbridge/compat.h>

#include "pmu.h"


#define SBRIDGE_PMU_SAMPLE_MS	100
#define SBRIDGE_PMU_SAMPLE_SLOW_MS	1000
#define SBRIDGE_PMU_MSR_NS	(4 * NSEC_PER_MSEC)
/* Fewer reference ticks than this (mostly idle) says too little: keep the old value. */
#define SBRIDGE_PMU_MIN_MPERF	10000
/* The rig's reference counter: 1 GHz (tools/rig/guest/rig_pmu_abi.h, RIG_PMU_REF_HZ). */
#define SBRIDGE_PMU_RIG_REF_KHZ	1000000
#define SBRIDGE_PMU_RIG_NAME	"rig_pmu"

/**
 * struct sbridge_pmu_freq - frequency cache of one CPU
 * @cyc_ev: the rig's core-cycle counter, NULL if none; published with
 *	smp_store_release() by the hotplug callback once both events exist,
 *	set to NULL before they are released. Read on the owning CPU with
 *	IRQs off.
 * @ref_ev: the rig's constant-rate counter (same rules)
 * @base_cyc: APERF or core cycles at the last sample (written by the CPU
 *	itself, IRQs off)
 * @base_ref: MPERF or reference cycles at the last sample (same)
 * @stamp: local_clock() of the last sample, 0 = none yet (same)
 * @khz: counter result, 0 = not known yet (written by the CPU itself and
 *	reset by the hotplug callback; read anywhere with READ_ONCE)
 * @kind: enum sbridge_clock of @khz (same rules)
 * @cpufreq_khz: cpufreq_quick_get() (written by the sampling work)
 * @max_khz: cpufreq_get_hw_max_freq() (written by the sampling work)
 */
struct sbridge_pmu_freq {
	struct perf_event *cyc_ev;
	struct perf_event *ref_ev;
	u64 base_cyc;
	u64 base_ref;
	u64 stamp;
	u32 khz;
	u32 kind;
	u32 cpufreq_khz;
	u32 max_khz;
};

static DEFINE_PER_CPU(struct sbridge_pmu_freq, sbridge_pmu_freq);
static bool sbridge_pmu_have_aperfmperf;
static enum cpuhp_state sbridge_pmu_freq_hp;

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

/*
 * cpufreq's current frequency is the clock only of a CPU whose clock no
 * counter measures (APERF/MPERF, the rig's pair): every
 * SBRIDGE_PMU_SAMPLE_MS while one such CPU is online, else once a second
 * for the hardware maximum and a driver that came since. Each sample is
 * a wakeup of the CPU it runs on and a preemption of what runs there.
 */
static unsigned int sbridge_pmu_sample_ms(void)
{
	unsigned int cpu;

	if (sbridge_pmu_have_aperfmperf)
		return SBRIDGE_PMU_SAMPLE_SLOW_MS;
	for_each_online_cpu(cpu)
		if (!READ_ONCE(per_cpu_ptr(&sbridge_pmu_freq, cpu)->cyc_ev))
			return SBRIDGE_PMU_SAMPLE_MS;
	return SBRIDGE_PMU_SAMPLE_SLOW_MS;
}

/*
 * (Re)arms the sample where sbridge_core's own works run, on a CPU of the
 * slowest type (sbridge_topo_house_queue()): up to ten times a second on
 * the CPU that loaded the module, often a big one, it preempted the task
 * that gains most there.
 */
static void sbridge_pmu_sample_arm(unsigned int ms)
{
	sbridge_topo_house_queue(&sbridge_pmu_sample_work, msecs_to_jiffies(ms));
}

static void sbridge_pmu_sample_fn(struct work_struct *work)
{
	sbridge_pmu_sample_cpufreq();
	sbridge_pmu_sample_arm(sbridge_pmu_sample_ms());
}

/*
 * A new sample of a cycle counter @cyc and a reference counter @ref
 * ticking at @ref_khz while not idle: the average clock over the busy
 * time since the last sample goes to @f->khz as @kind. Local CPU, IRQs off.
 */
static void sbridge_pmu_freq_sample(struct sbridge_pmu_freq *f, u64 cyc, u64 ref,
				    u64 ref_khz, u32 kind, u64 now)
{
	u64 dc, dr;

	if (f->stamp) {
		dc = cyc - f->base_cyc;
		dr = ref - f->base_ref;
		if (dr < SBRIDGE_PMU_MIN_MPERF)
			return;		/* keep the old base, wait for more ticks */
		while (dc > U32_MAX) {
			dc >>= 1;
			dr >>= 1;
		}
		if (dr) {
			WRITE_ONCE(f->khz, (u32)min_t(u64, div64_u64(ref_khz * dc, dr),
						      U32_MAX));
			WRITE_ONCE(f->kind, kind);
		}
	}
	f->base_cyc = cyc;
	f->base_ref = ref;
	f->stamp = now;
}

#ifdef CONFIG_X86
/* Local CPU, IRQs off. */
static void sbridge_pmu_sample_aperfmperf(struct sbridge_pmu_freq *f)
{
	u64 now = local_clock(), a, m;

	if (f->stamp && now - f->stamp < SBRIDGE_PMU_MSR_NS)
		return;
	if (sbridge_rdmsr_safe(MSR_IA32_APERF, &a) ||
	    sbridge_rdmsr_safe(MSR_IA32_MPERF, &m))
		return;
	sbridge_pmu_freq_sample(f, a, m, cpu_khz, SBRIDGE_CLOCK_COUNTERS, now);
}
#endif

/* The rig's pair; local CPU, IRQs off. */
static void sbridge_pmu_sample_rig(struct sbridge_pmu_freq *f, unsigned int cpu)
{
	/* pairs with the release at publication: base and stamp were reset */
	struct perf_event *cyc_ev = smp_load_acquire(&f->cyc_ev);
	struct perf_event *ref_ev = f->ref_ev;
	u64 now = local_clock(), c, r, en, run;

	if (!cyc_ev || (f->stamp && now - f->stamp < SBRIDGE_PMU_MSR_NS))
		return;
	if (!sbridge_perf_read_here(cyc_ev, cpu, &c, &en, &run) ||
	    !sbridge_perf_read_here(ref_ev, cpu, &r, &en, &run)) {
		f->stamp = 0;		/* not counting: start over */
		return;
	}
	sbridge_pmu_freq_sample(f, c, r, SBRIDGE_PMU_RIG_REF_KHZ,
				SBRIDGE_CLOCK_EMULATED, now);
}

/* Measured kHz of @cpu and where it comes from (enum sbridge_clock). */
static u32 sbridge_pmu_clock_of(unsigned int cpu, u32 *khz)
{
	struct sbridge_pmu_freq *f;
	u32 k;

	*khz = 0;
	if (cpu >= nr_cpu_ids)
		return SBRIDGE_CLOCK_NONE;
	f = per_cpu_ptr(&sbridge_pmu_freq, cpu);
	if (irqs_disabled() && cpu == raw_smp_processor_id()) {
#ifdef CONFIG_X86
		if (sbridge_pmu_have_aperfmperf)
			sbridge_pmu_sample_aperfmperf(f);
		else
#endif
			sbridge_pmu_sample_rig(f, cpu);
	}
	k = READ_ONCE(f->khz);
	if (k) {
		*khz = k;
		return READ_ONCE(f->kind);
	}
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
	{
		unsigned long scale = topology_get_freq_scale(cpu);
		u32 max = READ_ONCE(f->max_khz);

		/* exactly 1024 when nothing keeps it: cpufreq's then */
		if (max && scale != SCHED_CAPACITY_SCALE) {
			*khz = (u32)(((u64)max * scale) >> SCHED_CAPACITY_SHIFT);
			return SBRIDGE_CLOCK_FIE;
		}
	}
#endif
	*khz = READ_ONCE(f->cpufreq_khz);
	return *khz ? SBRIDGE_CLOCK_CPUFREQ : SBRIDGE_CLOCK_NONE;
}

/**
 * sbridge_pmu_effective_khz() - measured frequency of a CPU
 * @cpu: any CPU; only the local one (with IRQs off) refreshes its counters
 *
 * Safe with IRQs off and the runqueue lock held: reads per-CPU caches,
 * and for the local CPU at most two MSRs or two perf events.
 *
 * Return: kHz, 0 if nothing measures the clock (no nominal guess).
 */
u32 sbridge_pmu_effective_khz(unsigned int cpu)
{
	u32 khz;

	sbridge_pmu_clock_of(cpu, &khz);
	return khz;
}

/**
 * sbridge_pmu_clock() - where sbridge_pmu_effective_khz() of @cpu comes from
 * @cpu: any CPU
 * @name: gets a static string naming the source, NULL for none
 *
 * Same context rules as sbridge_pmu_effective_khz().
 *
 * Return: enum sbridge_clock.
 */
u32 sbridge_pmu_clock(unsigned int cpu, const char **name)
{
	static const char *const names[] = {
		[SBRIDGE_CLOCK_NONE]	 = NULL,
		[SBRIDGE_CLOCK_COUNTERS] = "APERF/MPERF",
		[SBRIDGE_CLOCK_FIE]	 = "arch_freq_scale",
		[SBRIDGE_CLOCK_CPUFREQ]	 = "cpufreq",
		[SBRIDGE_CLOCK_EMULATED] = "rig counters",
	};
	u32 khz, kind = sbridge_pmu_clock_of(cpu, &khz);

	*name = kind < ARRAY_SIZE(names) ? names[kind] : NULL;
	return kind;
}

/**
 * sbridge_pmu_freq_source() - which source effective_khz() uses first
 *
 * Return: a static string for the load report.
 */
const char *sbridge_pmu_freq_source(void)
{
	unsigned int cpu;

	if (sbridge_pmu_have_aperfmperf)
		return "APERF/MPERF";
	for_each_online_cpu(cpu)
		if (READ_ONCE(per_cpu_ptr(&sbridge_pmu_freq, cpu)->cyc_ev))
			return "the rig's cycle counters (emulated APERF/MPERF, AMU)";
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
	return "arch_freq_scale x max, else cpufreq, else none";
#else
	return "cpufreq, else none";
#endif
}

/* ---- the rig's counters: per-CPU events (hotplug thread, may sleep) ---- */

static struct perf_event *sbridge_pmu_freq_event(unsigned int cpu, u64 config)
{
	struct perf_event_attr attr = {
		.type	= PERF_TYPE_HARDWARE,
		.size	= sizeof(attr),
		.config	= config,
		.pinned	= 1,
	};
	struct perf_event *ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
								 NULL, NULL);

	if (IS_ERR(ev))
		return NULL;
	/* no counter left for it (ERROR state): as if absent */
	if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
	    strcmp(ev->pmu->name ?: "", SBRIDGE_PMU_RIG_NAME)) {
		perf_event_release_kernel(ev);
		return NULL;
	}
	return ev;
}

static int sbridge_pmu_freq_online(unsigned int cpu)
{
	struct sbridge_pmu_freq *f = per_cpu_ptr(&sbridge_pmu_freq, cpu);
	struct perf_event *cyc, *ref;

	WRITE_ONCE(f->khz, 0);
	cyc = sbridge_pmu_freq_event(cpu, PERF_COUNT_HW_CPU_CYCLES);
	if (!cyc)
		return 0;
	ref = sbridge_pmu_freq_event(cpu, PERF_COUNT_HW_REF_CPU_CYCLES);
	if (!ref) {
		perf_event_release_kernel(cyc);
		return 0;
	}
	f->ref_ev = ref;
	f->stamp = 0;
	/* pairs with the acquire in the sample path: stamp is seen reset */
	smp_store_release(&f->cyc_ev, cyc);
	return 0;
}

static int sbridge_pmu_freq_offline(unsigned int cpu)
{
	struct sbridge_pmu_freq *f = per_cpu_ptr(&sbridge_pmu_freq, cpu);
	struct perf_event *cyc = f->cyc_ev, *ref = f->ref_ev;

	if (!cyc)
		return 0;
	WRITE_ONCE(f->cyc_ev, NULL);
	/* as counters.c: readers run on @cpu with IRQs off (RCU read side) */
	if (cpu != raw_smp_processor_id())
		synchronize_rcu();
	f->ref_ev = NULL;
	WRITE_ONCE(f->khz, 0);
	perf_event_release_kernel(cyc);
	perf_event_release_kernel(ref);
	return 0;
}

/**
 * sbridge_pmu_freq_init() - fill the caches and start the sampling
 *
 * Opens the rig's clock counters on every CPU whose PMU is the rig's
 * (a CPU hotplug state), after the model's counters so that a PMU with
 * few counters gives them to the model first.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; nothing is left behind on failure.
 */
int sbridge_pmu_freq_init(void)
{
	int ret;

#ifdef CONFIG_X86
	sbridge_pmu_have_aperfmperf = boot_cpu_has(X86_FEATURE_APERFMPERF);
#endif
	if (!sbridge_pmu_have_aperfmperf) {
		ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "sbridge/pmu-freq:online",
					sbridge_pmu_freq_online,
					sbridge_pmu_freq_offline);
		if (ret < 0) {
			pr_err("cannot set up the frequency counters' hotplug state (%d)\n",
			       ret);
			return ret;
		}
		sbridge_pmu_freq_hp = ret;
	}
	sbridge_pmu_sample_cpufreq();
	sbridge_pmu_sample_arm(SBRIDGE_PMU_SAMPLE_MS);
	return 0;
}

/**
 * sbridge_pmu_freq_exit() - stop the sampling, release the counters
 *
 * The caller must have unregistered from the core first. Process context;
 * waits for a running sample to finish.
 */
void sbridge_pmu_freq_exit(void)
{
	cancel_delayed_work_sync(&sbridge_pmu_sample_work);
	if (sbridge_pmu_freq_hp)
		cpuhp_remove_state(sbridge_pmu_freq_hp);
	sbridge_pmu_freq_hp = 0;
}
