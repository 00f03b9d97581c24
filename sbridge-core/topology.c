// SPDX-License-Identifier: GPL-2.0
/*
 * CPU heterogeneity collector: core types, clusters, models, frequency
 * range, and the CPU factor (Cap(k/j) of the model) with user overrides.
 *
 * Core types come from the capacities the scheduler reports; where every
 * CPU reports one capacity, from what the hardware says (coretype.c over
 * what topo_x86.c / topo_arm64.c read: CPUID 0x1A's hybrid core type with
 * HWP highest performance, AMD's preferred-core ranking, the MIDR, the
 * cpufreq maximum); or, when the user declares them with the cpu_types=
 * module parameter, from that declaration. Each CPU keeps how its type
 * was found (sbridge_topo_cpu_type()). The types and their CPUs are fixed
 * at load: placement holds masks built from them. Their capacities follow
 * the kernel's if it changes them later (sbridge_topo_follow_locked()),
 * and AMD's ranking if firmware changes it (sbridge_topo_follow_rank_locked()).
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
#include <sbridge/compat.h>
#include "internal.h"
#include "topo.h"

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
/*
 * What the hardware said at load, kept only where the types come from
 * AMD's preferred-core ranking (firmware may change it at run time):
 * written at init and under sbridge_topo_lock, freed at exit.
 */
static struct sbridge_ct_cpu *sbridge_topo_hw;
/* The ranking now groups the CPUs otherwise (as sbridge_topo_stale). */
static bool sbridge_topo_rank_stale;
/*
 * Where sbridge's own periodic works run: a CPU of the slowest type
 * (type 0) where one is online. Each pass of them (the decision, the
 * checker, the matrix refresh, the clock follow-up) is time the fast
 * cores would otherwise give the tasks that gain there, and a
 * self-arming delayed work stays on the CPU it first ran on, the one
 * that loaded the module: in the evaluation's mixes sbridge's kworkers
 * took about 1 % of the big CPU's time, stock's 0.1 %. WORK_CPU_UNBOUND
 * (the local CPU) with one type or none of type 0 online.
 * Preemption off: the CPU must be online when its timer is added.
 */
static int sbridge_topo_house_cpu(void)
{
	unsigned int cpu;

	if (sbridge_topo.ntypes < 2)
		return WORK_CPU_UNBOUND;
	cpu = cpumask_any_and(&sbridge_topo.type_mask[0], cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : WORK_CPU_UNBOUND;
}

/* queue (@move false) or move (true) @dw's timer, preemption off (below) */
static bool sbridge_topo_house_arm(struct delayed_work *dw, unsigned long delay, bool move)
{
	bool ret;
	int cpu;

	preempt_disable();
	cpu = sbridge_topo_house_cpu();
	if (move)
		ret = mod_delayed_work_on(cpu, sbridge_percpu_wq, dw, delay);
	else
		ret = queue_delayed_work_on(cpu, sbridge_percpu_wq, dw, delay);
	preempt_enable();
	return ret;
}

/**
 * sbridge_topo_house_queue() - arm one of sbridge's periodic works
 * @dw: the work (not yet pending, or left as it is)
 * @delay: in jiffies
 *
 * On a CPU of the slowest type (see sbridge_topo_house_cpu()). A delayed
 * work's timer added on a CPU that is offline by then would never fire
 * until the CPU came back (queue_delayed_work_on()): the pick and the
 * add are done with preemption off, which holds off stop_machine and so
 * every CPU's removal from cpu_online_mask. A CPU that goes offline
 * later takes its timers along and the work runs elsewhere.
 *
 * Context: any.
 * Return: false if @dw was already pending.
 */
bool sbridge_topo_house_queue(struct delayed_work *dw, unsigned long delay)
{
	return sbridge_topo_house_arm(dw, delay, false);
}
/* sbridge_pmu's clock sample runs there too (API version 6) */
EXPORT_SYMBOL_GPL(sbridge_topo_house_queue);

/**
 * sbridge_topo_house_kick() - run one of sbridge's periodic works after @delay
 * @dw: the work (pending or not: its timer is moved)
 * @delay: in jiffies
 *
 * sbridge_topo_house_queue() for a work that may be pending: as
 * mod_delayed_work_on(), on a CPU of the slowest type.
 *
 * Context: any, including hard IRQ.
 * Return: false if @dw was idle, true if it was pending and was modified.
 */
bool sbridge_topo_house_kick(struct delayed_work *dw, unsigned long delay)
{
	return sbridge_topo_house_arm(dw, delay, true);
}

static void sbridge_topo_freq_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_topo_freq_work, sbridge_topo_freq_fn);

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
 * Do @cap's capacities (grouped only if @grouped, else one type) still
 * group the CPUs into the types found at load? If so, the types'
 * capacities follow them (a change logged with @why) and the result is
 * 1; if not, the types stay, *@stale is set (@what said once in the
 * log) and the result is 0; -ENOMEM if it could not look.
 */
static int sbridge_topo_regroup_locked(const u32 *cap, bool grouped, bool *stale,
				       const char *what, const char *why)
{
	u32 type_cap[SBRIDGE_MAX_CORE_TYPES] = { SCHED_CAPACITY_SCALE };
	unsigned int n = nr_cpu_ids, i;
	bool same;
	u8 *type;
	int cpu, nt = 1;

	type = kcalloc(n, sizeof(*type), GFP_KERNEL);
	if (!type)
		return -ENOMEM;
	if (grouped)
		nt = sbridge_group_types(cap, n, type, type_cap,
					 SBRIDGE_MAX_CORE_TYPES);
	same = nt == sbridge_topo.ntypes;
	for_each_possible_cpu(cpu)
		if (type[cpu] != per_cpu_ptr(&sbridge_cpus, cpu)->type)
			same = false;
	kfree(type);
	if (!same) {
		if (!*stale)
			pr_warn("%s changed and group the CPUs into other core types than at load: reload sbridge to regroup\n",
				what);
		WRITE_ONCE(*stale, true);
		return 0;
	}
	WRITE_ONCE(*stale, false);
	for (i = 0; i < sbridge_topo.ntypes; i++) {
		if (type_cap[i] != sbridge_topo.type_capacity[i])
			pr_info("core type %u: capacity %u, was %u (%s)\n",
				i, type_cap[i], sbridge_topo.type_capacity[i], why);
		WRITE_ONCE(sbridge_topo.type_capacity[i], type_cap[i]);
	}
	return 1;
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
	unsigned int n = nr_cpu_ids;
	bool moved = false;
	u32 *cap;
	int cpu;

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
	if (!cap)
		return false;	/* the next refresh tries again */
	for_each_possible_cpu(cpu)
		cap[cpu] = sbridge_topo_kernel_cap(cpu);
	moved = sbridge_topo_regroup_locked(cap, true, &sbridge_topo_stale,
					    "the kernel's CPU capacities",
					    "the kernel's changed") > 0;
	if (moved) {
		for_each_possible_cpu(cpu)
			WRITE_ONCE(per_cpu_ptr(&sbridge_cpus, cpu)->orig_capacity,
				   cap[cpu]);
		sbridge_refresh_factors_locked();
	}
	kfree(cap);
	return moved;
}

/**
 * sbridge_topo_write_capacity() - write a CPU's scheduler capacity
 * @cpu: possible CPU
 * @old: the capacity the caller read and decided on
 * @cap: the capacity
 * @ours: @cap is sbridge's own (a factor override), not the kernel's value
 *	put back
 *
 * The capacity actuator writes cpu_scale only through here, so that
 * following the kernel's capacities never takes sbridge's own for it.
 * The write is a compare-and-exchange with @old: if the kernel rescaled
 * the CPU after the caller read @old, the kernel's value stays, sbridge
 * no longer holds one there, and the caller stands down (its next run
 * reads the new value). A kernel store that lands after the exchange
 * overwrites sbridge's value, which is the kernel's right; the next run
 * sees that too (docs/reliability.md, N15).
 *
 * Context: process context; takes sbridge_topo_lock.
 * Return: true if @cap was written, false if the CPU no longer held @old.
 */
bool sbridge_topo_write_capacity(int cpu, unsigned long old, unsigned long cap,
				 bool ours)
{
	struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);
	bool done;

	mutex_lock(&sbridge_topo_lock);
	done = sbridge_cmpxchg_cpu_scale(cpu, old, cap);
	/* on a miss the value there is the kernel's, not ours */
	c->cap_written = done && ours ? cap : 0;
	mutex_unlock(&sbridge_topo_lock);
	return done;
}

/*
 * AMD's preferred-core ranking can change at run time (firmware notifies
 * amd-pstate, which re-reads it): re-read it and, if it still groups the
 * CPUs into the same types, let the types' capacities follow; another
 * grouping is not taken (as with the kernel's capacities: reload).
 * Returns true when capacities moved.
 */
static bool sbridge_topo_follow_rank_locked(void)
{
	u32 old[SBRIDGE_MAX_CORE_TYPES], *cap;
	unsigned int n = nr_cpu_ids, i;
	bool changed = false, moved = false;
	int cpu;

	if (!sbridge_topo_hw)
		return false;
	for_each_online_cpu(cpu) {
		u32 perf = sbridge_arch_cpu_perf(cpu);

		if (perf && perf != sbridge_topo_hw[cpu].perf) {
			sbridge_topo_hw[cpu].perf = perf;
			changed = true;
		}
	}
	if (!changed)
		return false;
	cap = kcalloc(n, sizeof(*cap), GFP_KERNEL);
	if (!cap)
		return false;
	memcpy(old, sbridge_topo.type_capacity, sizeof(old));
	if (sbridge_topo_regroup_locked(cap, sbridge_ct_classify(sbridge_topo_hw, n, cap) ==
					SBRIDGE_TYPES_RANKING, &sbridge_topo_rank_stale,
					"the preferred-core ranking",
					"the preferred-core ranking changed") > 0) {
		for (i = 0; i < sbridge_topo.ntypes; i++)
			moved |= old[i] != sbridge_topo.type_capacity[i];
		if (moved)
			sbridge_refresh_factors_locked();
	}
	kfree(cap);
	return moved;
}

static void sbridge_topo_freq_fn(struct work_struct *w)
{
	bool moved;

	mutex_lock(&sbridge_topo_lock);
	moved = sbridge_topo_follow_rank_locked();
	moved |= sbridge_topo_follow_locked();
	moved |= sbridge_topo_refresh_eff_locked();
	mutex_unlock(&sbridge_topo_lock);
	if (moved)
		sbridge_event_post(SBRIDGE_EVENT_FACTORS_MOVED, NULL);
	sbridge_topo_house_queue(&sbridge_topo_freq_work,
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
	u32 *cap, from = SBRIDGE_TYPES_CAPACITY;
	struct sbridge_ct_cpu *hw;
	u8 *type;
	int cpu, nt, ret;

	cap = kcalloc(n, sizeof(*cap), GFP_KERNEL);
	hw = kcalloc(n, sizeof(*hw), GFP_KERNEL);
	type = kcalloc(n, sizeof(*type), GFP_KERNEL);
	if (!cap || !hw || !type) {
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
		hw[cpu].core = cpu;
		if (cpu_online(cpu))
			sbridge_arch_cpu_info(cpu, c, &hw[cpu]);
		else
			strscpy(c->model, "offline", sizeof(c->model));
		hw[cpu].capacity = c->orig_capacity;
		hw[cpu].max_khz = c->max_khz;
	}
	if (declared) {
		from = SBRIDGE_TYPES_DECLARED;
		nt = sbridge_declared_types(cap, n, type, sbridge_topo.type_capacity);
	} else {
		from = sbridge_ct_classify(hw, n, cap);
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
		c->type_from = from;
		cpumask_set_cpu(cpu, &sbridge_topo.type_mask[c->type]);
		if (c->max_khz > sbridge_topo.type_max_khz[c->type])
			sbridge_topo.type_max_khz[c->type] = c->max_khz;
	}

	mutex_lock(&sbridge_topo_lock);
	sbridge_refresh_factors_locked();
	mutex_unlock(&sbridge_topo_lock);

	for (i = 0; i < sbridge_topo.ntypes; i++)
		pr_info("core type %u (%s): capacity %u, max %u kHz, cpus %*pbl\n",
			i, sbridge_ct_from_name(from),
			sbridge_topo.type_capacity[i],
			sbridge_topo.type_max_khz[i],
			cpumask_pr_args(&sbridge_topo.type_mask[i]));
	if (sbridge_topo.ntypes < 2)
		pr_info("one core type: nothing is steered (declare types with cpu_types=)\n");
	sbridge_topo_house_queue(&sbridge_topo_freq_work,
				 msecs_to_jiffies(SBRIDGE_TOPO_FREQ_MS));
	ret = 0;
	if (from == SBRIDGE_TYPES_RANKING) {
		sbridge_topo_hw = hw;	/* kept for the ranking refresh */
		hw = NULL;
	}
out:
	kfree(cap);
	kfree(hw);
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
	kfree(sbridge_topo_hw);
	sbridge_topo_hw = NULL;
}

/**
 * sbridge_topo_cpu_type() - a CPU's core type and how it was found
 * @cpu: possible CPU
 * @from: set to the enum sbridge_types_from of its type (may be NULL)
 *
 * Context: any; lock-free (both are written once at load).
 * Return: the core type index, 0 == lowest capacity.
 */
unsigned int sbridge_topo_cpu_type(int cpu, u32 *from)
{
	const struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

	if (from)
		*from = c->type_from;
	return c->type;
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
 * True while the capacities the kernel reports (or AMD's preferred-core
 * ranking, where it made the types) now group the CPUs into other core
 * types than sbridge found at load (the log said to reload).
 *
 * Context: any; lock-free.
 * Return: true if a reload would find other core types.
 */
bool sbridge_topo_regroup_pending(void)
{
	return READ_ONCE(sbridge_topo_stale) || READ_ONCE(sbridge_topo_rank_stale);
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
