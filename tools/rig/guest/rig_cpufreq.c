// SPDX-License-Identifier: GPL-2.0
/*
 * rig_cpufreq.c - cpufreq driver for the clocks of the sbridge emulation rig.
 *
 * The rig's TCG plugin models a clock per vCPU: each core type has operating
 * points (rig.conf opp_mhz/opp_mv), the vCPUs of a clock domain (by default
 * the CPUs of one core type: a cluster) share one clock, and a request
 * written to the shared page is reached after a DVFS latency and ramp of
 * model time. This driver makes those clocks a cpufreq driver's: one policy
 * per domain with the type's OPP table, target_index() and fast_switch()
 * that post the request for every CPU of the policy, get() that reads the
 * clock in force, and the transition latency the rig models (in the guest's
 * time), so the kernel's governors (schedutil, ondemand, conservative,
 * performance, powersave, userspace) drive the emulated speed.
 *
 * The kernel's frequency invariance: on arm64 the scheduler scales load by
 * arch_freq_scale. A target_index/fast_switch driver gets it set by the
 * cpufreq core to the *requested* clock at each change; this driver instead
 * registers a counter-based source, as arm64's AMU does: every tick,
 * arch_freq_scale = (delta core cycles / delta constant-rate cycles) x the
 * reference rate / the policy's maximum, from the rig's counters, so it is
 * the clock the CPU really ran at during the ramp too. x86 keeps its own
 * (APERF/MPERF, which TCG's CPU does not have): there the kernel is not
 * frequency-invariant on the rig, as on an x86 machine without them.
 *
 * Energy model: with the types' dynamic-power coefficients the driver
 * registers one perf domain per policy (power = coefficient x MHz x V^2,
 * the numbers the rig accounts energy with), so EAS can run on arm64 rig
 * boards whose device tree gives capacity-dmips-mhz per MHz (the --energy
 * boards).
 *
 * Loads after rig_pmu (which owns the shared page) and instead of any other
 * cpufreq driver: cpufreq takes one driver. While loaded, rig_pmu's freq
 * file refuses writes. Unloading hands every CPU back its configured clock.
 *
 * This is test equipment, not part of the sbridge product.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/energy_model.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/version.h>
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
#include <linux/arch_topology.h>
#endif

#include "rig_pmu_abi.h"
#include "rig_pmu.h"

static bool fie = true;
module_param(fie, bool, 0444);
MODULE_PARM_DESC(fie, "arm64: keep arch_freq_scale from the rig's cycle counters, as AMU does (default 1; 0: the cpufreq core sets it to the requested clock)");

static bool energy_model = true;
module_param(energy_model, bool, 0444);
MODULE_PARM_DESC(energy_model, "register an energy model per policy from the rig's OPP voltages and power coefficients (default 1)");

#define RIG_REC(cpu, field) \
	(rig_pmu_cpu_rec(cpu) + offsetof(struct rig_pmu_cpu, field))
#define RIG_CTR(cpu, n) \
	(rig_pmu_cpu_rec(cpu) + offsetof(struct rig_pmu_cpu, ctr) + (n) * sizeof(u64))

/* CPUs the rig publishes (rig_pmu_clock_claim()'s answer), under rig_cf_lock. */
static unsigned int rig_cf_nr_cpus;
/* Serialises load, unload and the rig device going away. */
static DEFINE_MUTEX(rig_cf_lock);
static bool rig_cf_registered;
/* CPUs whose arch_freq_scale this driver keeps (under rig_cf_lock). */
static struct cpumask rig_cf_fie_cpus;

/* ------------------------------------------------------------ requests */

/* Every CPU of @policy gets @khz as its request (IRQs may be off). */
static void rig_cf_request(struct cpufreq_policy *policy, unsigned int khz)
{
	unsigned int cpu;

	for_each_cpu(cpu, policy->related_cpus)
		writel(khz / 1000, RIG_REC(cpu, freq_req_mhz));
}

static int rig_cf_target_index(struct cpufreq_policy *policy, unsigned int index)
{
	/* posted: the rig reaches it after its latency and ramp */
	rig_cf_request(policy, policy->freq_table[index].frequency);
	return 0;
}

/* schedutil's path: scheduler context, IRQs off; the table is sorted. */
static unsigned int rig_cf_fast_switch(struct cpufreq_policy *policy,
				       unsigned int target_freq)
{
	struct cpufreq_frequency_table *pos;
	unsigned int khz = 0;

	/* the lowest OPP at or above the target, else the highest */
	cpufreq_for_each_valid_entry(pos, policy->freq_table) {
		khz = pos->frequency;
		if (khz >= target_freq)
			break;
	}
	if (khz)
		rig_cf_request(policy, khz);
	return khz;
}

/* The clock in force now (mid-ramp it is not the one requested). */
static unsigned int rig_cf_get(unsigned int cpu)
{
	if (cpu >= rig_cf_nr_cpus)
		return 0;
	return readl(RIG_REC(cpu, freq_mhz)) * 1000;
}

/* ---------------------------------------------- frequency invariance */

#ifdef CONFIG_ARM64
/**
 * struct rig_cf_fie - the counters at the last tick of one CPU
 * @cycles: core cycles
 * @ref: constant-rate (RIG_PMU_REF_HZ) cycles
 * @max_mhz: the CPU's policy maximum (its type's top OPP)
 * @primed: @cycles and @ref hold a sample
 *
 * Written by the CPU itself from the tick (IRQs off), @max_mhz before the
 * source is registered.
 */
struct rig_cf_fie {
	u64 cycles;
	u64 ref;
	u32 max_mhz;
	bool primed;
};

static DEFINE_PER_CPU(struct rig_cf_fie, rig_cf_fie);

/*
 * topology_scale_freq_tick(): local CPU, IRQs off. Fewer than 1 us of
 * busy reference time since the last tick says nothing: keep the scale.
 */
static void rig_cf_fie_tick(void)
{
	struct rig_cf_fie *f = this_cpu_ptr(&rig_cf_fie);
	unsigned int cpu = smp_processor_id();
	u64 cyc, ref, dc, dr, scale;

	if (cpu >= rig_cf_nr_cpus)
		return;
	cyc = readq(RIG_CTR(cpu, RIG_CTR_CYCLES));
	ref = readq(RIG_CTR(cpu, RIG_CTR_REF_CYCLES));
	if (f->primed) {
		dc = cyc - f->cycles;
		dr = ref - f->ref;
		if (dr < 1000)
			return;
		/* MHz now = dc / dr x 1000 (ref counts ns); / max, in 1/1024 */
		scale = div64_u64(dc * 1000 * SCHED_CAPACITY_SCALE,
				  dr * f->max_mhz);
		this_cpu_write(arch_freq_scale,
			       clamp_t(u64, scale, 1, SCHED_CAPACITY_SCALE));
	}
	f->cycles = cyc;
	f->ref = ref;
	f->primed = true;
}

static struct scale_freq_data rig_cf_sfd = {
	/* a firmware-counter source, as CPPC's; AMU's own (ARCH) wins */
	.source = SCALE_FREQ_SOURCE_CPPC,
	.set_freq_scale = rig_cf_fie_tick,
};

static void rig_cf_fie_start(struct cpufreq_policy *policy)
{
	unsigned int cpu;

	if (!fie)
		return;
	for_each_cpu(cpu, policy->related_cpus) {
		struct rig_cf_fie *f = per_cpu_ptr(&rig_cf_fie, cpu);

		f->primed = false;
		f->max_mhz = policy->cpuinfo.max_freq / 1000;
	}
	cpumask_or(&rig_cf_fie_cpus, &rig_cf_fie_cpus, policy->related_cpus);
	topology_set_scale_freq_source(&rig_cf_sfd, policy->related_cpus);
}

/*
 * Unregister the source (waits for ticks using it). Every rig CPU back to
 * full scale: the clocks return to the top OPP once the driver is gone,
 * and without the source the cpufreq core would have left its last
 * request there.
 */
static void rig_cf_fie_stop(void)
{
	unsigned int cpu;

	if (!cpumask_empty(&rig_cf_fie_cpus))
		topology_clear_scale_freq_source(SCALE_FREQ_SOURCE_CPPC,
						 &rig_cf_fie_cpus);
	cpumask_clear(&rig_cf_fie_cpus);
	for_each_possible_cpu(cpu)
		if (cpu < rig_cf_nr_cpus)
			per_cpu(arch_freq_scale, cpu) = SCHED_CAPACITY_SCALE;
}
#else
static void rig_cf_fie_start(struct cpufreq_policy *policy)
{
}

static void rig_cf_fie_stop(void)
{
}
#endif

/* --------------------------------------------------------- energy model */

/* power = coefficient (uW/MHz/V^2) x MHz x V^2, at the OPP at or above *freq */
static int rig_cf_em_power(struct device *dev, unsigned long *power,
			   unsigned long *freq)
{
	unsigned int cpu = dev->id, n, i;
	u32 coef, mhz = 0, mv = 0;

	if (cpu >= rig_cf_nr_cpus)
		return -EINVAL;
	n = min_t(u32, readl(RIG_REC(cpu, nr_opps)), RIG_PMU_MAX_OPPS);
	coef = readl(RIG_REC(cpu, dyn_power));
	for (i = 0; i < n; i++) {
		mhz = readl(RIG_REC(cpu, opp[i].mhz));
		mv = readl(RIG_REC(cpu, opp[i].mv));
		if (mhz * 1000UL >= *freq)
			break;
	}
	if (!mhz || i == n)
		return -EINVAL;
	*freq = mhz * 1000UL;
	*power = div_u64((u64)coef * mhz * mv * mv, 1000000);
	return 0;
}

static void rig_cf_register_em(struct cpufreq_policy *policy)
{
	struct em_data_callback cb = EM_DATA_CB(rig_cf_em_power);
	struct device *dev = get_cpu_device(policy->cpu);
	int ret;

	if (!energy_model || !dev || !readl(RIG_REC(policy->cpu, dyn_power)))
		return;
	ret = em_dev_register_perf_domain(dev, readl(RIG_REC(policy->cpu, nr_opps)),
					  &cb, policy->related_cpus, true);
	/* a CPU's energy model outlives its drivers: -EEXIST on a reload */
	if (ret && ret != -EEXIST)
		pr_warn("cpu%u: no energy model (%d)\n", policy->cpu, ret);
}

/* ---------------------------------------------------------------- policy */

static int rig_cf_init(struct cpufreq_policy *policy)
{
	struct cpufreq_frequency_table *table;
	unsigned int cpu = policy->cpu, other, n, i, lat_us;
	void __iomem *hdr = rig_pmu_hdr();
	u32 dom, ramp, lo, hi;

	if (cpu >= rig_cf_nr_cpus)
		return -ENODEV;
	n = readl(RIG_REC(cpu, nr_opps));
	if (!n || n > RIG_PMU_MAX_OPPS)
		return -ENODEV;
	table = kcalloc(n + 1, sizeof(*table), GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		table[i].driver_data = i;
		table[i].frequency = readl(RIG_REC(cpu, opp[i].mhz)) * 1000;
	}
	table[n].frequency = CPUFREQ_TABLE_END;
	dom = readl(RIG_REC(cpu, domain));
	for_each_possible_cpu(other)
		if (other < rig_cf_nr_cpus && readl(RIG_REC(other, domain)) == dom)
			cpumask_set_cpu(other, policy->cpus);
	policy->freq_table = table;
	/*
	 * What the guest waits for a full swing: latency plus the ramp over
	 * the whole table, model time x slowdown (the guest's clock is wall
	 * time). The governors derive their rate limits from it.
	 */
	lo = table[0].frequency / 1000;
	hi = table[n - 1].frequency / 1000;
	ramp = readl(hdr + offsetof(struct rig_pmu_hdr, dvfs_ramp_khz_per_us));
	lat_us = readl(hdr + offsetof(struct rig_pmu_hdr, dvfs_latency_us)) +
		 (ramp ? DIV_ROUND_UP((hi - lo) * 1000, ramp) : 0);
	policy->cpuinfo.transition_latency =
		lat_us * readl(hdr + offsetof(struct rig_pmu_hdr, slowdown)) * NSEC_PER_USEC;
	policy->fast_switch_possible = true;
	policy->dvfs_possible_from_any_cpu = true;
	return 0;
}

static void rig_cf_policy_exit(struct cpufreq_policy *policy)
{
	kfree(policy->freq_table);
	policy->freq_table = NULL;
}

/* ->exit() returns void from 6.11 (6.12, 7.x), int up to 6.10 (6.1). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static void rig_cf_exit(struct cpufreq_policy *policy)
{
	rig_cf_policy_exit(policy);
}
#else
static int rig_cf_exit(struct cpufreq_policy *policy)
{
	rig_cf_policy_exit(policy);
	return 0;
}
#endif

/* The policy is ready: its CPUs' frequency invariance from the counters. */
static void rig_cf_ready(struct cpufreq_policy *policy)
{
	rig_cf_fie_start(policy);
}

/*
 * scaling_available_frequencies: 6.1 and 6.12 drivers ask for it with
 * cpufreq_generic_attr; by 7.x the core creates it for every frequency
 * table and the export is gone (the supported kernels bracket 6.15).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0)
#define RIG_CF_ATTR	cpufreq_generic_attr
#else
#define RIG_CF_ATTR	NULL
#endif

static struct cpufreq_driver rig_cf_driver = {
	.name		= "rig-cpufreq",
	.flags		= CPUFREQ_NEED_INITIAL_FREQ_CHECK,
	.init		= rig_cf_init,
	.exit		= rig_cf_exit,
	.verify		= cpufreq_generic_frequency_table_verify,
	.target_index	= rig_cf_target_index,
	.fast_switch	= rig_cf_fast_switch,
	.get		= rig_cf_get,
	.ready		= rig_cf_ready,
	.register_em	= rig_cf_register_em,
	.attr		= RIG_CF_ATTR,
};

/* ----------------------------------------------------------------- module */

/* Undo the registration; under rig_cf_lock. */
static void rig_cf_teardown(void)
{
	if (!rig_cf_registered)
		return;
	cpufreq_unregister_driver(&rig_cf_driver);
	rig_cf_fie_stop();
	rig_cf_registered = false;
}

static void rig_cf_gone(const struct rig_pmu_clock_ops *ops)
{
	mutex_lock(&rig_cf_lock);
	if (rig_cf_registered)
		pr_warn("the rig device went away: cpufreq driver unregistered\n");
	rig_cf_teardown();
	mutex_unlock(&rig_cf_lock);
}

static const struct rig_pmu_clock_ops rig_cf_ops = {
	.name	= KBUILD_MODNAME,
	.gone	= rig_cf_gone,
};

static int __init rig_cf_mod_init(void)
{
	int ret;

	mutex_lock(&rig_cf_lock);
	ret = rig_pmu_clock_claim(&rig_cf_ops);
	if (ret < 0) {
		pr_err("cannot take the rig's clocks (%d): %s\n", ret,
		       ret == -ENODEV ? "no rig device bound to rig_pmu" :
		       "another module holds them");
		goto out;
	}
	rig_cf_nr_cpus = ret;
	ret = cpufreq_register_driver(&rig_cf_driver);
	if (ret) {
		pr_err("cannot register (%d)%s\n", ret,
		       ret == -EEXIST ? ": another cpufreq driver is loaded (cpufreq-dt?)" : "");
		rig_cf_fie_stop();
		rig_pmu_clock_release(&rig_cf_ops);
		goto out;
	}
	rig_cf_registered = true;
	pr_info("clocks of %u CPUs; frequency invariance: %s\n", rig_cf_nr_cpus,
		!cpumask_empty(&rig_cf_fie_cpus) ? "rig cycle counters" :
		IS_ENABLED(CONFIG_ARM64) ? "cpufreq (requested clock)" : "none (x86)");
out:
	mutex_unlock(&rig_cf_lock);
	return ret;
}

static void __exit rig_cf_mod_exit(void)
{
	mutex_lock(&rig_cf_lock);
	rig_cf_teardown();
	mutex_unlock(&rig_cf_lock);
	rig_pmu_clock_release(&rig_cf_ops);
}

module_init(rig_cf_mod_init);
module_exit(rig_cf_mod_exit);
MODULE_DESCRIPTION("sbridge rig: cpufreq driver for the emulated clocks");
MODULE_LICENSE("GPL");
