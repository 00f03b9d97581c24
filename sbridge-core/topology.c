// SPDX-License-Identifier: GPL-2.0
/*
 * CPU heterogeneity collector: core types, clusters, models, frequency
 * range, and the CPU factor (Cap(k/j) of the model) with user overrides.
 *
 * Core types come from the capacities the scheduler reports, or, when the
 * user declares them with the cpu_types= module parameter, from that
 * declaration (for kernels where every CPU reports one capacity). Either
 * way the types and their CPUs are fixed at load: placement holds masks
 * built from them. Their capacities follow the kernel's if it changes
 * them later (sbridge_topo_follow_locked()).
 *
 * The factor in force is frequency-invariant: a work item refreshes, once
 * a second, each type's effective factor from the current/maximum
 * frequency of its CPUs (see sbridge_topo_refresh_eff_locked()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/sched/topology.h>
#ifdef CONFIG_X86
#include <asm/processor.h>
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#include <asm/sysreg.h>
#include <asm/barrier.h>
#endif
#include <sbridge/compat.h>
#include "internal.h"

DEFINE_PER_CPU(struct sbridge_cpu, sbridge_cpus);
struct sbridge_topology sbridge_topo;
/* Serialises CPU factor overrides and the effective-factor refresh. */
static DEFINE_MUTEX(sbridge_topo_lock);

static char *cpu_types;
module_param(cpu_types, charp, 0444);
MODULE_PARM_DESC(cpu_types,
		 "declare core types instead of using the kernel's capacities: \"CPUS:CAPACITY[;CPUS:CAPACITY...]\", e.g. \"0:1024;1-3:446\" (CPUS as taskset -c takes them, capacity 1..1024, every possible CPU exactly once)");

/* How often the effective (frequency-scaled) factors are refreshed. */
#define SBRIDGE_TOPO_FREQ_MS	1000
/* Effective factor moves that notify API consumers: more than 1/32. */
#define SBRIDGE_TOPO_EFF_NOTIFY_SHIFT	5

/*
 * Effective CPU factor per core type (fp): written with WRITE_ONCE()
 * under sbridge_topo_lock, read locklessly with READ_ONCE().
 */
static u32 sbridge_type_eff[SBRIDGE_MAX_CORE_TYPES];
/* Clock a type's busy work can reach over its maximum (fp), 0 unknown. */
static u32 sbridge_type_reach_ratio[SBRIDGE_MAX_CORE_TYPES];
/*
 * The kernel's capacities regroup the CPUs (warned once): written under
 * the lock, read locklessly by sbridge_topo_regroup_pending().
 */
static bool sbridge_topo_stale;
static void sbridge_topo_freq_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_topo_freq_work, sbridge_topo_freq_fn);

#ifdef CONFIG_X86
#define SBRIDGE_CPUID_HYBRID		0x1a

/*
 * Cache sizes from the deterministic cache parameters: leaf 4 on Intel,
 * 0x8000001d on AMD (same layout). cacheinfo is not exported to modules.
 */
static void sbridge_read_caches(struct sbridge_cpu *c, struct cpuinfo_x86 *ci)
{
	u32 leaf, a, b, cc, d, i;

	if (ci->x86_vendor == X86_VENDOR_INTEL && ci->cpuid_level >= 4)
		leaf = 4;
	else if ((ci->x86_vendor == X86_VENDOR_AMD ||
		  ci->x86_vendor == X86_VENDOR_HYGON) &&
		 boot_cpu_has(X86_FEATURE_TOPOEXT))
		leaf = 0x8000001d;
	else
		return;
	for (i = 0; i < 8; i++) {
		u32 type, level;
		u64 bytes;

		cpuid_count(leaf, i, &a, &b, &cc, &d);
		type = a & 0x1f;	/* 0 none, 1 data, 2 instruction, 3 unified */
		if (!type)
			break;
		level = (a >> 5) & 7;
		if (type == 2 || level < 1 || level > SBRIDGE_CACHE_LEVELS)
			continue;
		bytes = (u64)(((b >> 22) & 0x3ff) + 1) * (((b >> 12) & 0x3ff) + 1) *
			((b & 0xfff) + 1) * (cc + 1);
		c->cache_kb[level - 1] = bytes >> 10;
	}
}

static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_cpu *c = arg;
	struct cpuinfo_x86 *ci = &cpu_data(smp_processor_id());
	u32 hybrid = 0;

	/* Leaf 0x1a EAX[31:24]: core type on hybrid parts (0x20 Atom, 0x40 Core). */
	if (boot_cpu_has(X86_FEATURE_HYBRID_CPU) &&
	    ci->cpuid_level >= SBRIDGE_CPUID_HYBRID)
		hybrid = cpuid_eax(SBRIDGE_CPUID_HYBRID) >> 24;
	snprintf(c->model, sizeof(c->model), "%u:0x%x:0x%x", ci->x86,
		 ci->x86_model, hybrid);
	sbridge_read_caches(c, ci);
}
#elif defined(CONFIG_ARM64)
/* Raw encodings: the named macros differ between 6.1 and 7.x headers. */
#define SBRIDGE_SYS_CLIDR	sys_reg(3, 1, 0, 0, 1)
#define SBRIDGE_SYS_CCSIDR	sys_reg(3, 1, 0, 0, 0)
#define SBRIDGE_SYS_CSSELR	sys_reg(3, 2, 0, 0, 0)
#define SBRIDGE_SYS_MMFR2	sys_reg(3, 0, 0, 7, 2)

/* Cache sizes from CLIDR/CCSIDR; runs in an IPI, IRQs off (CSSELR is ours). */
static void sbridge_read_caches(struct sbridge_cpu *c)
{
	u64 clidr = read_sysreg_s(SBRIDGE_SYS_CLIDR);
	bool ccidx = ((read_sysreg_s(SBRIDGE_SYS_MMFR2) >> 20) & 0xf) != 0;
	unsigned int level;

	for (level = 1; level <= SBRIDGE_CACHE_LEVELS; level++) {
		u32 ctype = (clidr >> (3 * (level - 1))) & 7;
		u64 ccsidr, line, ways, sets;

		/* 2 instruction only, 0 none; 3 separate I+D, 4 unified */
		if (ctype == 0)
			break;
		if (ctype == 1)
			continue;
		write_sysreg_s((level - 1) << 1, SBRIDGE_SYS_CSSELR);
		isb();
		ccsidr = read_sysreg_s(SBRIDGE_SYS_CCSIDR);
		line = 1ULL << ((ccsidr & 7) + 4);
		if (ccidx) {
			ways = ((ccsidr >> 3) & 0x1fffff) + 1;
			sets = ((ccsidr >> 32) & 0xffffff) + 1;
		} else {
			ways = ((ccsidr >> 3) & 0x3ff) + 1;
			sets = ((ccsidr >> 13) & 0x7fff) + 1;
		}
		c->cache_kb[level - 1] = (line * ways * sets) >> 10;
	}
}

static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_cpu *c = arg;
	u32 midr = read_cpuid_id();

	snprintf(c->model, sizeof(c->model), "0x%02x:0x%03x",
		 MIDR_IMPLEMENTOR(midr), MIDR_PARTNUM(midr));
	sbridge_read_caches(c);
}
#else
static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_cpu *c = arg;

	strscpy(c->model, "unknown", sizeof(c->model));
}
#endif

/*
 * On x86 with one capacity everywhere (6.1/6.12 give 1024 to every CPU),
 * hybrid parts and frequency-asymmetric setups still differ: use the
 * maximum frequency as the capacity proxy then, as the paper's x86 setup
 * (3.2 vs 1.6 GHz) did. Returns true if it did.
 */
static bool sbridge_capacity_proxy(u32 *cap, const u32 *khz, unsigned int n)
{
	u32 maxk = 0;
	unsigned int i;
	bool flat = true;

	for (i = 0; i < n; i++) {
		if (cap[i] && cap[0] && cap[i] != cap[0])
			flat = false;
		if (khz[i] > maxk)
			maxk = khz[i];
	}
	if (!flat || !maxk)
		return false;
	for (i = 0; i < n; i++)
		if (cap[i] && khz[i])
			cap[i] = (u32)div_u64((u64)cap[i] * khz[i], maxk);
	return true;
}

/*
 * Current/maximum frequency of @cpu (fp, SBRIDGE_FP_ONE == at its
 * maximum), 0 if unknown. The counter source's effective frequency
 * (APERF/MPERF, AMU, arch_freq_scale) first, else what cpufreq last set.
 * Process context: cpufreq_quick_get() takes cpufreq locks (sleeping
 * ones on PREEMPT_RT).
 */
static u32 sbridge_cpu_freq_ratio(int cpu)
{
	u32 cur, max;

	if (!cpu_online(cpu))
		return 0;
	max = cpufreq_get_hw_max_freq(cpu);
	if (!max)
		max = per_cpu_ptr(&sbridge_cpus, cpu)->max_khz;
	cur = sbridge_source_effective_khz(cpu);
	if (!cur)
		cur = cpufreq_quick_get(cpu);
	if (!cur || !max)
		return 0;
	return (u32)clamp_t(u64, div_u64((u64)cur << SBRIDGE_FP_SHIFT, max), 1,
			    SBRIDGE_FP_ONE);
}

/*
 * The clock busy work on @cpu can reach, over its maximum (fp), 0 if no
 * cpufreq policy: the policy's upper limit (scaling_max_freq, thermal and
 * boost caps) under a governor that raises the clock with load
 * (schedutil, ondemand, performance; and drivers that pick the clock
 * themselves, such as intel_pstate's), the lower one under powersave, the
 * set one under userspace. Not the clock the CPU sits at now: an idle
 * cluster at its lowest OPP ramps up when work comes (frequency
 * inversion if that were taken for its speed). Process context: takes
 * the policy's rwsem.
 */
static u32 sbridge_cpu_reach_ratio(int cpu)
{
	struct cpufreq_policy *pol;
	u32 max, reach;

	if (!cpu_online(cpu))
		return 0;
	pol = cpufreq_cpu_get(cpu);
	if (!pol)
		return 0;
	down_read(&pol->rwsem);
	max = cpufreq_get_hw_max_freq(cpu) ?: pol->cpuinfo.max_freq;
	reach = pol->max;
	if (pol->governor && !strcmp(pol->governor->name, "powersave"))
		reach = pol->min;
	else if (pol->governor && !strcmp(pol->governor->name, "userspace"))
		reach = pol->cur;
	up_read(&pol->rwsem);
	cpufreq_cpu_put(pol);
	if (!reach || !max)
		return 0;
	return (u32)clamp_t(u64, div_u64((u64)reach << SBRIDGE_FP_SHIFT, max), 1,
			    SBRIDGE_FP_ONE);
}

/**
 * sbridge_type_reach() - the clock a core type's busy work can reach
 * @type: core type index
 *
 * Over the type's maximum, the mean of its online CPUs with a cpufreq
 * policy (sbridge_cpu_reach_ratio()), refreshed with the effective
 * factors.
 *
 * Context: any; lock-free.
 * Return: fixed point, SBRIDGE_FP_ONE (the maximum) if unknown.
 */
u32 sbridge_type_reach(unsigned int type)
{
	u32 r;

	if (type >= sbridge_topo.ntypes)
		return SBRIDGE_FP_ONE;
	r = READ_ONCE(sbridge_type_reach_ratio[type]);
	return r ?: SBRIDGE_FP_ONE;
}

/* @nominal x @ref_ratio / @ratio, clamped; nominal if a ratio is unknown. */
static u32 sbridge_scale_factor(u32 nominal, u32 ref_ratio, u32 ratio)
{
	if (!ref_ratio || !ratio)
		return nominal;
	return sbridge_model_clamp(div_u64((u64)nominal * ref_ratio, ratio));
}

/**
 * sbridge_type_factor_nominal() - CPU factor of a core type at full speed
 * @type: core type index
 *
 * Cap(ref)/Cap(type), or the user's override: the factor of the type's
 * first CPU (overrides are per CPU set, and a set normally covers whole
 * types). No frequency scaling.
 *
 * Context: any; lock-free.
 * Return: fixed-point factor, SBRIDGE_FP_ONE for an unknown type.
 */
u32 sbridge_type_factor_nominal(unsigned int type)
{
	unsigned int cpu;

	if (type >= sbridge_topo.ntypes)
		return SBRIDGE_FP_ONE;
	cpu = cpumask_first(&sbridge_topo.type_mask[type]);
	if (cpu >= nr_cpu_ids)
		return SBRIDGE_FP_ONE;
	return READ_ONCE(per_cpu_ptr(&sbridge_cpus, cpu)->factor);
}

/*
 * Effective factors: the factor of type j is Cap(ref)/Cap(j) at the
 * types' maximum frequencies; at the frequencies they run at now it is
 * Cap(ref) x f_ref/fmax_ref over Cap(j) x f_j/fmax_j, i.e. the nominal
 * factor (capacity ratio or user override) x (cur/max of ref) / (cur/max
 * of j). A type's ratio is the mean over its online CPUs that report one;
 * a type with none stays at its nominal factor. Returns true if some
 * type's effective factor moved by more than 1/32.
 */
static bool sbridge_topo_refresh_eff_locked(void)
{
	u32 sum[SBRIDGE_MAX_CORE_TYPES] = {}, cnt[SBRIDGE_MAX_CORE_TYPES] = {};
	u32 rsum[SBRIDGE_MAX_CORE_TYPES] = {}, rcnt[SBRIDGE_MAX_CORE_TYPES] = {};
	u32 ratio[SBRIDGE_MAX_CORE_TYPES], ref, reach;
	unsigned int i, nt = sbridge_topo.ntypes;
	bool moved = false;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		c->freq_ratio = sbridge_cpu_freq_ratio(cpu);
		if (c->freq_ratio && c->type < nt) {
			sum[c->type] += c->freq_ratio;
			cnt[c->type]++;
		}
		reach = sbridge_cpu_reach_ratio(cpu);
		if (reach && c->type < nt) {
			rsum[c->type] += reach;
			rcnt[c->type]++;
		}
	}
	for (i = 0; i < nt; i++) {
		u32 old = READ_ONCE(sbridge_type_reach_ratio[i]);

		ratio[i] = cnt[i] ? sum[i] / cnt[i] : 0;
		reach = rcnt[i] ? rsum[i] / rcnt[i] : 0;
		if ((reach > old ? reach - old : old - reach) >
		    old >> SBRIDGE_TOPO_EFF_NOTIFY_SHIFT)
			moved = true;
		WRITE_ONCE(sbridge_type_reach_ratio[i], reach);
	}
	ref = ratio[sbridge_topo.ref_type];
	for (i = 0; i < nt; i++) {
		u32 old = READ_ONCE(sbridge_type_eff[i]);
		u32 eff = sbridge_scale_factor(sbridge_type_factor_nominal(i),
					       ref, ratio[i]);

		if ((eff > old ? eff - old : old - eff) >
		    old >> SBRIDGE_TOPO_EFF_NOTIFY_SHIFT)
			moved = true;
		WRITE_ONCE(sbridge_type_eff[i], eff);
	}
	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		WRITE_ONCE(c->factor_eff,
			   sbridge_scale_factor(READ_ONCE(c->factor), ref,
						c->freq_ratio));
	}
	return moved;
}

static void sbridge_refresh_factors_locked(void)
{
	u32 ref = sbridge_topo.type_capacity[sbridge_topo.ref_type];
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);
		u32 f = c->factor_override;

		if (!f)
			f = sbridge_model_cap_ratio(ref,
					sbridge_topo.type_capacity[c->type]);
		WRITE_ONCE(c->factor, sbridge_model_clamp(f));
	}
	sbridge_topo_refresh_eff_locked();
}

/* @cpu's capacity as the kernel set it: sbridge's own write is not. */
static u32 sbridge_topo_kernel_cap(int cpu)
{
	const struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);
	u32 cap = sbridge_cpu_capacity(cpu);

	lockdep_assert_held(&sbridge_topo_lock);
	return c->cap_written && cap == c->cap_written ? c->orig_capacity : cap;
}

/* A cpufreq driver that came after load tells each CPU's maximum. */
static void sbridge_topo_follow_khz_locked(void)
{
	u32 khz[SBRIDGE_MAX_CORE_TYPES] = {};
	bool found = false;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		if (!c->max_khz) {
			WRITE_ONCE(c->max_khz, cpufreq_quick_get_max(cpu));
			found |= c->max_khz != 0;
		}
		khz[c->type] = max(khz[c->type], c->max_khz);
	}
	if (!found)
		return;
	for (i = 0; i < sbridge_topo.ntypes; i++) {
		if (khz[i] != sbridge_topo.type_max_khz[i])
			pr_info("core type %u: max %u kHz (cpufreq came after load)\n",
				i, khz[i]);
		WRITE_ONCE(sbridge_topo.type_max_khz[i], khz[i]);
	}
}

/*
 * The kernel may change capacities after load: arm64 scales the device
 * tree's capacity-dmips-mhz by each CPU's maximum frequency once a cpufreq
 * driver has registered every policy (on Debian a module, e.g. cpufreq-dt,
 * which a board can load after sbridge), and x86 6.12+'s intel_pstate sets
 * hybrid capacities. The types keep their CPUs; if the kernel's new
 * capacities group the CPUs into the same types, the types' capacities,
 * and with them the CPU factors, follow. Another grouping is not taken
 * (the model and placement are built on the types): the log says to
 * reload. Declared types (cpu_types=) keep the declared capacities.
 * Returns true when capacities were taken.
 */
static bool sbridge_topo_follow_locked(void)
{
	u32 type_cap[SBRIDGE_MAX_CORE_TYPES];
	unsigned int n = nr_cpu_ids, i;
	bool same, moved = false;
	u32 *cap;
	u8 *type;
	int cpu, nt;

	sbridge_topo_follow_khz_locked();
	if (sbridge_topo.declared)
		return false;
	for_each_possible_cpu(cpu)
		if (sbridge_topo_kernel_cap(cpu) !=
		    per_cpu_ptr(&sbridge_cpus, cpu)->orig_capacity)
			moved = true;
	if (!moved) {
		WRITE_ONCE(sbridge_topo_stale, false);
		return false;
	}
	cap = kcalloc(n, sizeof(*cap), GFP_KERNEL);
	type = kcalloc(n, sizeof(*type), GFP_KERNEL);
	moved = false;
	if (!cap || !type)
		goto out;	/* the next refresh tries again */
	for_each_possible_cpu(cpu)
		cap[cpu] = sbridge_topo_kernel_cap(cpu);
	nt = sbridge_group_types(cap, n, type, type_cap, SBRIDGE_MAX_CORE_TYPES);
	same = nt == sbridge_topo.ntypes;
	for_each_possible_cpu(cpu)
		if (type[cpu] != per_cpu_ptr(&sbridge_cpus, cpu)->type)
			same = false;
	if (!same) {
		if (!sbridge_topo_stale)
			pr_warn("the kernel's CPU capacities changed and group the CPUs into other core types than at load: reload sbridge to regroup\n");
		WRITE_ONCE(sbridge_topo_stale, true);
		goto out;
	}
	WRITE_ONCE(sbridge_topo_stale, false);
	for (i = 0; i < sbridge_topo.ntypes; i++) {
		if (type_cap[i] != sbridge_topo.type_capacity[i])
			pr_info("core type %u: capacity %u, was %u (the kernel's changed)\n",
				i, type_cap[i], sbridge_topo.type_capacity[i]);
		WRITE_ONCE(sbridge_topo.type_capacity[i], type_cap[i]);
	}
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&sbridge_cpus, cpu)->orig_capacity, cap[cpu]);
	sbridge_refresh_factors_locked();
	moved = true;
out:
	kfree(cap);
	kfree(type);
	return moved;
}

/**
 * sbridge_topo_write_capacity() - write a CPU's scheduler capacity
 * @cpu: possible CPU
 * @cap: the capacity
 * @ours: @cap is sbridge's own (a factor override), not the kernel's value
 *	put back
 *
 * The capacity actuator writes cpu_scale only through here, so that
 * following the kernel's capacities never takes sbridge's own for it.
 *
 * Context: process context; takes sbridge_topo_lock.
 */
void sbridge_topo_write_capacity(int cpu, unsigned long cap, bool ours)
{
	mutex_lock(&sbridge_topo_lock);
	per_cpu_ptr(&sbridge_cpus, cpu)->cap_written = ours ? cap : 0;
	sbridge_write_cpu_scale(cpu, cap);
	mutex_unlock(&sbridge_topo_lock);
}

static void sbridge_topo_freq_fn(struct work_struct *w)
{
	bool moved;

	mutex_lock(&sbridge_topo_lock);
	moved = sbridge_topo_follow_locked();
	moved |= sbridge_topo_refresh_eff_locked();
	mutex_unlock(&sbridge_topo_lock);
	if (moved)
		sbridge_event_post(SBRIDGE_EVENT_FACTORS_MOVED, NULL);
	schedule_delayed_work(&sbridge_topo_freq_work,
			      msecs_to_jiffies(SBRIDGE_TOPO_FREQ_MS));
}

/*
 * Parses cpu_types= into @cap (one capacity per CPU, all 0 on entry).
 * Strict: every entry CPUS:CAPACITY well formed, CPUS possible and not
 * named before, CAPACITY in 1..1024, every possible CPU named, at most
 * SBRIDGE_MAX_CORE_TYPES distinct capacities. -EINVAL with a pr_err()
 * naming the problem; @cap is then meaningless and nothing else changed.
 */
static int sbridge_parse_cpu_types(const char *spec, u32 *cap)
{
	u32 seen_cap[SBRIDGE_MAX_CORE_TYPES];
	cpumask_var_t set, seen;
	unsigned int ndistinct = 0, i;
	char *buf, *p, *item;
	int cpu, ret = -EINVAL;

	buf = kstrdup(spec, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&set, GFP_KERNEL)) {
		kfree(buf);
		return -ENOMEM;
	}
	if (!zalloc_cpumask_var(&seen, GFP_KERNEL)) {
		free_cpumask_var(set);
		kfree(buf);
		return -ENOMEM;
	}
	p = buf;
	while ((item = strsep(&p, ";")) != NULL) {
		char *colon, *list = strim(item);
		int err;
		u32 v;

		colon = strrchr(list, ':');
		if (!colon) {
			pr_err("cpu_types: entry '%s' is not CPUS:CAPACITY (e.g. \"0:1024;1-3:446\")\n",
			       list);
			goto out;
		}
		*colon = '\0';
		if (kstrtou32(strim(colon + 1), 10, &v) || v < 1 ||
		    v > SCHED_CAPACITY_SCALE) {
			pr_err("cpu_types: capacity '%s' for CPUs '%s' is not a number in 1..%lu\n",
			       strim(colon + 1), list, SCHED_CAPACITY_SCALE);
			goto out;
		}
		list = strim(list);
		err = *list ? cpulist_parse(list, set) : -EINVAL;
		if (err == -ERANGE) {
			pr_err("cpu_types: CPU list '%s' names CPUs that are not possible (possible: %*pbl)\n",
			       list, cpumask_pr_args(cpu_possible_mask));
			goto out;
		}
		if (err || cpumask_empty(set)) {
			pr_err("cpu_types: bad CPU list '%s' (expected e.g. 0-3,5)\n",
			       list);
			goto out;
		}
		for_each_cpu(cpu, set) {
			if (!cpu_possible(cpu)) {
				pr_err("cpu_types: CPU %d is not possible (possible: %*pbl)\n",
				       cpu, cpumask_pr_args(cpu_possible_mask));
				goto out;
			}
			if (cpumask_test_cpu(cpu, seen)) {
				pr_err("cpu_types: CPU %d is named twice\n", cpu);
				goto out;
			}
			cap[cpu] = v;
		}
		cpumask_or(seen, seen, set);
		for (i = 0; i < ndistinct && seen_cap[i] != v; i++)
			;
		if (i == ndistinct) {
			if (ndistinct == SBRIDGE_MAX_CORE_TYPES) {
				pr_err("cpu_types: more than %d distinct capacities\n",
				       SBRIDGE_MAX_CORE_TYPES);
				goto out;
			}
			seen_cap[ndistinct++] = v;
		}
	}
	for_each_possible_cpu(cpu) {
		if (!cpumask_test_cpu(cpu, seen)) {
			pr_err("cpu_types: CPU %d has no type: name every possible CPU (%*pbl) once\n",
			       cpu, cpumask_pr_args(cpu_possible_mask));
			goto out;
		}
	}
	ret = 0;
out:
	free_cpumask_var(seen);
	free_cpumask_var(set);
	kfree(buf);
	return ret;
}

/*
 * Declared types: one per distinct declared capacity, ascending (type 0
 * lowest), each exactly the declared value. Returns the number of types.
 */
static int sbridge_declared_types(const u32 *cap, unsigned int n, u8 *type,
				  u32 *type_cap)
{
	unsigned int nt = 0, i, j;

	for (i = 0; i < n; i++) {
		if (!cap[i])
			continue;
		for (j = 0; j < nt && type_cap[j] != cap[i]; j++)
			;
		if (j < nt)
			continue;
		/* Insert sorted ascending; the parser bounds nt. */
		for (j = nt; j > 0 && type_cap[j - 1] > cap[i]; j--)
			type_cap[j] = type_cap[j - 1];
		type_cap[j] = cap[i];
		nt++;
	}
	for (i = 0; i < n; i++) {
		type[i] = 0;
		for (j = 0; j < nt; j++)
			if (type_cap[j] == cap[i])
				type[i] = j;
	}
	return nt;
}

/**
 * sbridge_topology_init() - collect core types, clusters and models
 *
 * With cpu_types= set, the declared types replace the grouping by the
 * kernel's capacities; a bad declaration fails the load and changes
 * nothing. Starts the work item that keeps the effective factors.
 *
 * Context: process context at module init, may sleep.
 * Return: 0, -EINVAL (bad cpu_types=) or -ENOMEM.
 */
int sbridge_topology_init(void)
{
	unsigned int n = nr_cpu_ids, i;
	bool declared = cpu_types && *skip_spaces(cpu_types);
	u32 *cap, *khz, from = SBRIDGE_TYPES_CAPACITY;
	u8 *type;
	int cpu, nt, ret;

	cap = kcalloc(n, sizeof(*cap), GFP_KERNEL);
	khz = kcalloc(n, sizeof(*khz), GFP_KERNEL);
	type = kcalloc(n, sizeof(*type), GFP_KERNEL);
	if (!cap || !khz || !type) {
		ret = -ENOMEM;
		goto out;
	}
	/* Validate the declaration before anything is written. */
	if (declared) {
		ret = sbridge_parse_cpu_types(cpu_types, cap);
		if (ret)
			goto out;
	}

	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		c->orig_capacity = sbridge_cpu_capacity(cpu);
		c->max_khz = cpufreq_quick_get_max(cpu);
		c->cluster = sbridge_cpu_cluster(cpu);
		c->factor_override = 0;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, sbridge_read_cpu_info, c, 1);
		else
			strscpy(c->model, "offline", sizeof(c->model));
		if (!declared)
			cap[cpu] = c->orig_capacity;
		khz[cpu] = c->max_khz;
	}
	if (declared) {
		from = SBRIDGE_TYPES_DECLARED;
		nt = sbridge_declared_types(cap, n, type, sbridge_topo.type_capacity);
	} else {
		if (sbridge_capacity_proxy(cap, khz, n))
			from = SBRIDGE_TYPES_CPUFREQ;
		nt = sbridge_group_types(cap, n, type, sbridge_topo.type_capacity,
					 SBRIDGE_MAX_CORE_TYPES);
	}
	if (nt <= 0) {
		nt = 1;
		sbridge_topo.type_capacity[0] = SCHED_CAPACITY_SCALE;
	}
	sbridge_topo.ntypes = nt;
	sbridge_topo.ref_type = nt - 1;
	sbridge_topo.declared = declared;
	sbridge_topo.from = from;
	for (i = 0; i < SBRIDGE_MAX_CORE_TYPES; i++) {
		cpumask_clear(&sbridge_topo.type_mask[i]);
		sbridge_topo.type_max_khz[i] = 0;
		sbridge_type_eff[i] = SBRIDGE_FP_ONE;
	}
	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		c->type = type[cpu] < nt ? type[cpu] : 0;
		cpumask_set_cpu(cpu, &sbridge_topo.type_mask[c->type]);
		if (c->max_khz > sbridge_topo.type_max_khz[c->type])
			sbridge_topo.type_max_khz[c->type] = c->max_khz;
	}

	mutex_lock(&sbridge_topo_lock);
	sbridge_refresh_factors_locked();
	mutex_unlock(&sbridge_topo_lock);

	for (i = 0; i < sbridge_topo.ntypes; i++)
		pr_info("core type %u%s: capacity %u, max %u kHz, cpus %*pbl\n",
			i, declared ? " (declared)" : "",
			sbridge_topo.type_capacity[i],
			sbridge_topo.type_max_khz[i],
			cpumask_pr_args(&sbridge_topo.type_mask[i]));
	if (sbridge_topo.ntypes < 2)
		pr_info("one core type: nothing is steered (declare types with cpu_types=)\n");
	schedule_delayed_work(&sbridge_topo_freq_work,
			      msecs_to_jiffies(SBRIDGE_TOPO_FREQ_MS));
	ret = 0;
out:
	kfree(cap);
	kfree(khz);
	kfree(type);
	return ret;
}

/**
 * sbridge_topology_exit() - stop refreshing the effective factors
 *
 * Context: process context, sleeps (waits for a running refresh).
 */
void sbridge_topology_exit(void)
{
	cancel_delayed_work_sync(&sbridge_topo_freq_work);
}

/**
 * sbridge_set_cpu_factor() - override the CPU factor of a set of CPUs
 * @mask: CPUs, a non-empty subset of the possible CPUs
 * @factor: fixed-point factor in [SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX],
 *	or 0 to go back to the capacity ratio
 *
 * All or nothing: bad input changes nothing.
 *
 * Context: process context; takes sbridge_topo_lock.
 * Return: 0 or -EINVAL.
 */
int sbridge_set_cpu_factor(const struct cpumask *mask, u32 factor)
{
	int cpu;

	if (factor && (factor < SBRIDGE_FACTOR_MIN || factor > SBRIDGE_FACTOR_MAX))
		return -EINVAL;
	if (cpumask_empty(mask) || !cpumask_subset(mask, cpu_possible_mask))
		return -EINVAL;

	mutex_lock(&sbridge_topo_lock);
	for_each_cpu(cpu, mask)
		per_cpu_ptr(&sbridge_cpus, cpu)->factor_override = factor;
	sbridge_refresh_factors_locked();
	mutex_unlock(&sbridge_topo_lock);
	return 0;
}

/**
 * sbridge_type_factor_user() - the CPU factor the user set on a core type
 * @type: core type index
 *
 * An override counts for a type when it is set on the type's first CPU,
 * the CPU whose factor the type takes (sbridge_type_factor_nominal()).
 *
 * Context: any; lock-free.
 * Return: the override (fp), 0 if none.
 */
u32 sbridge_type_factor_user(unsigned int type)
{
	unsigned int cpu;

	if (type >= sbridge_topo.ntypes)
		return 0;
	cpu = cpumask_first(&sbridge_topo.type_mask[type]);
	if (cpu >= nr_cpu_ids)
		return 0;
	return READ_ONCE(per_cpu_ptr(&sbridge_cpus, cpu)->factor_override);
}

/**
 * sbridge_topo_regroup_pending() - do the kernel's capacities regroup the CPUs?
 *
 * True while the capacities the kernel reports now group the CPUs into
 * other core types than sbridge found at load (the log said to reload).
 *
 * Context: any; lock-free.
 * Return: true if a reload would find other core types.
 */
bool sbridge_topo_regroup_pending(void)
{
	return READ_ONCE(sbridge_topo_stale);
}

/**
 * sbridge_type_factor() - CPU factor of a core type in force now
 * @type: core type index
 *
 * The nominal factor scaled by the frequencies the types run at: nominal
 * x (cur/max of the reference type) / (cur/max of @type), refreshed once
 * a second from the counter source's effective frequency, else cpufreq;
 * the nominal factor where neither is known.
 *
 * Context: any, including IRQs off; lock-free.
 * Return: fixed-point factor, SBRIDGE_FP_ONE for an unknown type.
 */
u32 sbridge_type_factor(unsigned int type)
{
	if (type >= sbridge_topo.ntypes)
		return SBRIDGE_FP_ONE;
	return READ_ONCE(sbridge_type_eff[type]);
}
