// SPDX-License-Identifier: GPL-2.0
/*
 * Capacity actuator: writes the CPU factors (user overrides) into the
 * per-CPU capacity the scheduler reads (cpu_scale, arm64 only).
 *
 * How CFS picks the new value up without a kernel patch: every load
 * balance refreshes rq->cpu_capacity (and on 6.1 rq->cpu_capacity_orig)
 * from arch_scale_cpu_capacity() in update_cpu_capacity(), and wakeup
 * placement (select_idle_capacity, EAS fits) reads it directly. What is
 * computed only when sched domains are built is SD_ASYM_CPUCAPACITY and
 * the asym-capacity static key: rebuild_sched_domains() is not exported
 * on any supported kernel, so on a board that was symmetric at boot the
 * status line says that a domain rebuild (cpuset change or CPU hotplug)
 * is needed for asymmetric placement.
 *
 * Only CPUs with a factor override change: with no override the factor is
 * the boot capacity ratio and the boot value stays, bit for bit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/sched/topology.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "act_ops.h"
#include "trace_act.h"

/* act.capacity: this actuator's switch (SET_PARAM and module parameter) */
static u32 sbridge_cap_on;	/* off at load */
static struct sbridge_param_desc sbridge_cap_switch = {
	.name = "act.capacity", .val = &sbridge_cap_on, .min = 0, .max = 1,
};
sbridge_module_param(act_capacity, sbridge_cap_switch,
		     "1: write CPU factor overrides into cpu_scale");

/**
 * struct sbridge_cap_state - what the capacity actuator changed
 * @orig: cpu_scale of each possible CPU at load (array, nr_cpu_ids)
 * @written: value we last wrote per CPU, 0 == untouched
 * @applied: some CPU carries a value we wrote
 *
 * Only the actuator runner and exit touch this, under sbridge_cap_lock.
 */
struct sbridge_cap_state {
	unsigned long *orig;
	unsigned long *written;
	bool applied;
};
static struct sbridge_cap_state sbridge_cap;
static DEFINE_MUTEX(sbridge_cap_lock);

/* Capacity for @cpu's factor: reference capacity / factor, boot if none. */
static unsigned long sbridge_cap_target(int cpu)
{
	const struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);
	u32 f = READ_ONCE(c->factor);
	u64 cap;

	if (!READ_ONCE(c->factor_override) || !f)
		return sbridge_cap.orig[cpu];
	cap = div_u64((u64)READ_ONCE(sbridge_topo.type_capacity[sbridge_topo.ref_type]) *
		      SBRIDGE_FP_ONE, f);
	return clamp_t(u64, cap, 1, SCHED_CAPACITY_SCALE);
}

/* Writes back what we changed, unless the kernel rewrote it meanwhile. */
static void sbridge_cap_restore_locked(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!sbridge_cap.written[cpu])
			continue;
		/* only if it still holds ours: a kernel rescale since wins */
		if (sbridge_topo_write_capacity(cpu, sbridge_cap.written[cpu],
						sbridge_cap.orig[cpu], false))
			trace_sbridge_act(SBRIDGE_TP_ACT_CAPACITY,
					  SBRIDGE_TP_OP_RESTORE, NULL, cpu, NULL,
					  sbridge_cap.orig[cpu], 0);
		sbridge_cap.written[cpu] = 0;
	}
	if (sbridge_cap.applied)
		pr_info("capacity actuator: boot capacities restored\n");
	sbridge_cap.applied = false;
}

static void sbridge_cap_apply_locked(void)
{
	unsigned long want, cur;
	int cpu;

	for_each_possible_cpu(cpu) {
		/* one read: what is checked below is what the write expects */
		cur = sbridge_cpu_capacity(cpu);
		/* untouched: the kernel's current value is the one to keep */
		if (!sbridge_cap.written[cpu])
			sbridge_cap.orig[cpu] = cur;
		want = sbridge_cap_target(cpu);
		if (cur == want)
			continue;
		/* Someone else (cpufreq rescale) moved it: adopt theirs. */
		if (sbridge_cap.written[cpu] && cur != sbridge_cap.written[cpu])
			sbridge_cap.orig[cpu] = cur;
		if (!sbridge_topo_write_capacity(cpu, cur, want,
						 want != sbridge_cap.orig[cpu])) {
			/* rescaled since the read: theirs stays, next run adopts it */
			sbridge_cap.written[cpu] = 0;
			pr_debug("capacity actuator: cpu%d rescaled by the kernel meanwhile\n",
				 cpu);
			continue;
		}
		trace_sbridge_act(SBRIDGE_TP_ACT_CAPACITY, SBRIDGE_TP_OP_APPLY,
				  NULL, cpu, NULL, want, 0);
		sbridge_cap.written[cpu] = want == sbridge_cap.orig[cpu] ? 0 : want;
		pr_info("capacity actuator: cpu%d capacity %lu\n", cpu, want);
	}
	sbridge_cap.applied = false;
	for_each_possible_cpu(cpu)
		if (sbridge_cap.written[cpu])
			sbridge_cap.applied = true;
}

static void sbridge_cap_apply(const struct sbridge_decision *d)
{
	if (!SBRIDGE_HAVE_CPU_SCALE)
		return;
	mutex_lock(&sbridge_cap_lock);
	sbridge_cap_apply_locked();
	mutex_unlock(&sbridge_cap_lock);
}

static void sbridge_cap_restore(void)
{
	mutex_lock(&sbridge_cap_lock);
	if (sbridge_cap.applied)
		sbridge_cap_restore_locked();
	mutex_unlock(&sbridge_cap_lock);
}

static bool sbridge_cap_active(void)
{
	return READ_ONCE(sbridge_cap.applied);
}

static const char *sbridge_cap_status(void)
{
	if (!SBRIDGE_HAVE_CPU_SCALE)
		return "unavailable: no writable per-CPU capacity";
	if (!READ_ONCE(sbridge_cap_on))
		return "off";
	if (READ_ONCE(sbridge_act_params.observe))
		return "off (observe only)";
	if (!sbridge_cap_active())
		return "on (no CPU factor override: boot capacities kept)";
	if (sbridge_topo.ntypes < 2)
		return "on (domains symmetric at boot: asym placement needs a sched-domain rebuild)";
	return "on";
}

/* Saves the boot capacities. */
static int sbridge_cap_init(void)
{
	int cpu;

	sbridge_cap.orig = kcalloc(nr_cpu_ids, sizeof(long), GFP_KERNEL);
	sbridge_cap.written = kcalloc(nr_cpu_ids, sizeof(long), GFP_KERNEL);
	if (!sbridge_cap.orig || !sbridge_cap.written) {
		kfree(sbridge_cap.orig);
		kfree(sbridge_cap.written);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		sbridge_cap.orig[cpu] = sbridge_cpu_capacity(cpu);
	return 0;
}

static void sbridge_cap_exit(void)
{
	mutex_lock(&sbridge_cap_lock);
	sbridge_cap_restore_locked();
	mutex_unlock(&sbridge_cap_lock);
	kfree(sbridge_cap.orig);
	kfree(sbridge_cap.written);
	sbridge_cap.orig = NULL;
	sbridge_cap.written = NULL;
}

const struct sbridge_actuator sbridge_act_capacity = {
	.name = "capacity",
	.param = &sbridge_cap_switch,
	.trace_id = SBRIDGE_TP_ACT_CAPACITY,
	.hint_bit = SBRIDGE_HINT_CAPACITY,
	.init = sbridge_cap_init,
	.apply = sbridge_cap_apply,
	.restore = sbridge_cap_restore,
	.exit = sbridge_cap_exit,
	.active = sbridge_cap_active,
	.status = sbridge_cap_status,
};
