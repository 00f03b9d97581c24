// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_core - heterogeneity-aware hints for the unmodified scheduler.
 *
 * Module init/exit, tunables (each also a module parameter) and the
 * housekeeping work item. The pieces: topology.c (core types), task.c +
 * hooks.c (per-task state from the scheduler tracepoints), model.c (CPI
 * stack, factors, phases), matrix.c, rules.c, source.c (counter-source
 * registry), policy.c (the decision layer), actuators.c + act_*.c (the
 * levers) and checker.c, api.c (exported API), netlink.c and sysfs.c
 * (control and status).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <sbridge/sbridge.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"

struct sbridge_params sbridge_params = {
	.learning = 1,
	.window_instr = 1000000,
	.window_cycles = 2000000,
	.phase_windows = 3,
	.phase_delta = 200,	/* two 0.1 buckets */
	.c_const = SBRIDGE_FP_ONE,
	.ref_share = SBRIDGE_FP_ONE,
	.matrix_max = 4096,
	.tick_ms = 8,
	.learn_measured = 1,
};
static DEFINE_MUTEX(sbridge_param_lock);

/**
 * struct sbridge_param_desc - one SET_PARAM name
 * @name: name on the wire
 * @val: the tunable
 * @min: smallest accepted value
 * @max: largest accepted value
 *
 * Constant after load (not const: module parameters point into it).
 */
struct sbridge_param_desc {
	const char *name;
	u32 *val;
	u32 min, max;
};

/*
 * Every tunable once: wire name (SET_PARAM, sbridgectl set param), module
 * parameter name (the same with '_' for '.': modprobe.d, modinfo,
 * /sys/module/sbridge_core/parameters), storage, range, description.
 */
#define SBRIDGE_PARAMS(X)						\
	X(learning, "learning", sbridge_params.learning, 0, 1,		\
	  "0 stops the model (factors frozen)")				\
	X(window_instr, "window_instr", sbridge_params.window_instr,	\
	  1000, 1000000000, "instructions per model window")		\
	X(window_cycles, "window_cycles", sbridge_params.window_cycles,	\
	  1000, 1000000000, "cycles per window without instructions")	\
	X(phase_windows, "phase_windows", sbridge_params.phase_windows,	\
	  1, 64, "windows a new CPI_B share must hold to be a phase")	\
	X(phase_delta, "phase_delta", sbridge_params.phase_delta, 1,	\
	  SBRIDGE_FP_ONE, "share change that is a new phase (1024 = 1.0)") \
	X(c, "c", sbridge_params.c_const, SBRIDGE_FACTOR_MIN,		\
	  SBRIDGE_FACTOR_MAX, "the model's constant C (1024 = 1.0)")	\
	X(ref_share, "ref_share", sbridge_params.ref_share, 1,		\
	  SBRIDGE_FP_ONE, "CPI_B share of the reference task (1024 = 1.0)") \
	X(matrix_max, "matrix_max", sbridge_params.matrix_max, 0, 65536,	\
	  "matrix cells kept before LRU eviction")			\
	X(tick_ms, "tick_ms", sbridge_params.tick_ms, 0, 10000,		\
	  "least ms between counter reads of a running task, 0 = switches only") \
	X(learn_measured, "learn.measured", sbridge_params.learn_measured,	\
	  0, 1, "1: blend the measured big/little speedup into decisions") \
	X(act_observe, "act.observe", sbridge_act_params.observe, 0, 1,	\
	  "1: every actuator off, learn and report only")		\
	X(act_capacity, "act.capacity", sbridge_act_params.capacity, 0, 1, \
	  "1: write CPU factor overrides into cpu_scale")		\
	X(act_placement, "act.placement", sbridge_act_params.placement,	\
	  0, 1, "1: steer hot tasks to the core type the decision chose") \
	X(act_uclamp, "act.uclamp", sbridge_act_params.uclamp, 0, 1,	\
	  "1: util_min/util_max of hot tasks from their CPI_B share")	\
	X(act_freq, "act.freq", sbridge_act_params.freq, 0, 1,		\
	  "1: cpufreq floors under hot compute-bound tasks")		\
	X(act_period_ms, "act.period_ms", sbridge_act_params.period_ms,	\
	  10, 60000, "period of the decision and actuators, ms")	\
	X(act_up_util, "act.up_util", sbridge_act_params.up_util, 1,	\
	  SCHED_CAPACITY_SCALE, "busy share of its CPU (1024 = all) to enter a decision") \
	X(act_down_util, "act.down_util", sbridge_act_params.down_util, 0, \
	  SCHED_CAPACITY_SCALE, "busy share below which a task leaves it (<= up_util)") \
	X(act_gain, "act.gain", sbridge_act_params.gain, 0,		\
	  SBRIDGE_FACTOR_MAX, "least predicted speedup above 1.0 to want the fast cores (1024 = 1.0)") \
	X(act_hold_ms, "act.hold_ms", sbridge_act_params.hold_ms, 0,	\
	  60000, "hint kept through a sleep; aging step for turns on the fast cores (0 = no turns)") \
	X(checker_on, "checker.on", sbridge_act_params.checker, 0, 1,	\
	  "1: run the work-conserving checker")				\
	X(checker_period_ms, "checker.period_ms",			\
	  sbridge_act_params.check_period_ms, 10, 3600000,		\
	  "checker period S, ms")					\
	X(checker_watch_ms, "checker.watch_ms", sbridge_act_params.watch_ms, \
	  1, 10000, "checker confirmation delay M, ms")			\
	X(checker_selftest, "checker.selftest", sbridge_act_params.selftest, \
	  0, 1, "1: steer every hot task to one CPU to provoke a report")

#define SBRIDGE_PARAM_ENTRY(id, wire, var, lo, hi, desc) \
	{ wire, &(var), lo, hi },
static struct sbridge_param_desc sbridge_param_tab[] = {
	SBRIDGE_PARAMS(SBRIDGE_PARAM_ENTRY)
};

/* up_util and down_util as a pair: two thresholds, never inverted. */
static bool sbridge_param_pair_ok(const u32 *val, u64 value)
{
	if (val == &sbridge_act_params.up_util)
		return value >= READ_ONCE(sbridge_act_params.down_util);
	if (val == &sbridge_act_params.down_util)
		return value <= READ_ONCE(sbridge_act_params.up_util);
	return true;
}

static bool sbridge_live;	/* init done: module parameters act at once */

/**
 * sbridge_param_set() - set a tunable by name (SET_PARAM, module parameter)
 * @name: parameter name
 * @value: new value
 *
 * Context: process context; takes sbridge_param_lock.
 * Return: 0, -EOPNOTSUPP for an unknown name, -ERANGE if out of range or
 *	if it would put act.down_util above act.up_util.
 */
int sbridge_param_set(const char *name, u64 value)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sbridge_param_tab); i++) {
		const struct sbridge_param_desc *d = &sbridge_param_tab[i];

		if (strcmp(name, d->name))
			continue;
		if (value < d->min || value > d->max)
			return -ERANGE;
		mutex_lock(&sbridge_param_lock);
		/* at load the pair is checked once all are parsed */
		if (READ_ONCE(sbridge_live) && !sbridge_param_pair_ok(d->val, value)) {
			mutex_unlock(&sbridge_param_lock);
			return -ERANGE;
		}
		WRITE_ONCE(*d->val, (u32)value);
		mutex_unlock(&sbridge_param_lock);
		if (READ_ONCE(sbridge_live))
			pr_info("parameter %s = %llu\n", name, value);
		return 0;
	}
	return -EOPNOTSUPP;
}

/* Module parameters: the same table, through sbridge_param_set(). */
static int sbridge_mp_set(const char *val, const struct kernel_param *kp)
{
	const struct sbridge_param_desc *d = kp->arg;
	u64 v;
	int ret;

	if (READ_ONCE(sbridge_live) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = kstrtou64(val, 0, &v);
	if (ret) {
		pr_err("parameter %s: '%s' is not a number\n", d->name, val);
		return ret;
	}
	ret = sbridge_param_set(d->name, v);
	if (ret == -ERANGE)
		pr_err("parameter %s: %llu out of range %u..%u%s\n", d->name, v,
		       d->min, d->max,
		       READ_ONCE(sbridge_live) ? " (or down_util above up_util)" : "");
	return ret;
}

static int sbridge_mp_get(char *buf, const struct kernel_param *kp)
{
	const struct sbridge_param_desc *d = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*d->val));
}

static const struct kernel_param_ops sbridge_mp_ops = {
	.set = sbridge_mp_set,
	.get = sbridge_mp_get,
};

enum {
#define SBRIDGE_PARAM_INDEX(id, wire, var, lo, hi, desc) SB_P_##id,
	SBRIDGE_PARAMS(SBRIDGE_PARAM_INDEX)
};

#define SBRIDGE_MODULE_PARAM(id, wire, var, lo, hi, desc)		\
	module_param_cb(id, &sbridge_mp_ops, &sbridge_param_tab[SB_P_##id], 0644); \
	MODULE_PARM_DESC(id, desc);
SBRIDGE_PARAMS(SBRIDGE_MODULE_PARAM)

/**
 * sbridge_param_get() - read the @i-th tunable
 * @i: index
 * @value: out
 *
 * Return: its name, NULL past the end.
 */
const char *sbridge_param_get(unsigned int i, u64 *value)
{
	if (i >= ARRAY_SIZE(sbridge_param_tab))
		return NULL;
	*value = READ_ONCE(*sbridge_param_tab[i].val);
	return sbridge_param_tab[i].name;
}

/**
 * sbridge_learning_possible() - can the model learn right now
 *
 * Return: true if learning is on and the source gives cycles and
 *	instructions.
 */
bool sbridge_learning_possible(void)
{
	char name[8];
	u32 ev = sbridge_source_describe(name, sizeof(name));

	return READ_ONCE(sbridge_params.learning) &&
	       (ev & SBRIDGE_EV_LEARN) == SBRIDGE_EV_LEARN;
}

/*
 * Housekeeping, once a second: fold what running tasks learned into the
 * matrix (bounded per period, see sbridge_matrix_refresh()) and tell
 * consumers when the model moved (the switch path cannot notify: it runs
 * with IRQs off).
 */
#define SBRIDGE_TICK	HZ
static void sbridge_tick_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_tick_work, sbridge_tick_fn);
static s64 sbridge_tick_samples, sbridge_tick_phases;

static void sbridge_tick_fn(struct work_struct *w)
{
	s64 s = atomic64_read(&sbridge_stats.samples);
	s64 p = atomic64_read(&sbridge_stats.phase_changes);

	sbridge_matrix_refresh();
	if (s != sbridge_tick_samples)
		sbridge_consumers_notify(false);
	if (p != sbridge_tick_phases)
		sbridge_event_notify(SBRIDGE_EVENT_PHASE, "phase change");
	sbridge_tick_samples = s;
	sbridge_tick_phases = p;
	schedule_delayed_work(&sbridge_tick_work, SBRIDGE_TICK);
}

static int __init sbridge_init(void)
{
	int ret;

	if (sbridge_act_params.down_util > sbridge_act_params.up_util) {
		pr_err("act_down_util %u is above act_up_util %u\n",
		       sbridge_act_params.down_util, sbridge_act_params.up_util);
		return -EINVAL;
	}
	ret = sbridge_topology_init();
	if (ret)
		return ret;
	ret = sbridge_source_init();
	if (ret)
		goto err_topology;
	ret = sbridge_matrix_init();
	if (ret)
		goto err_source;
	ret = sbridge_rules_init();
	if (ret)
		goto err_matrix;
	ret = sbridge_tasks_init();
	if (ret)
		goto err_rules;
	ret = sbridge_hooks_init();
	if (ret)
		goto err_tasks;
	ret = sbridge_netlink_init();
	if (ret)
		goto err_hooks;
	ret = sbridge_sysfs_init();
	if (ret)
		goto err_netlink;
	/* Actuators and checker last: they walk the task table. */
	ret = sbridge_actuators_init();
	if (ret)
		goto err_sysfs;
	schedule_delayed_work(&sbridge_tick_work, SBRIDGE_TICK);
	WRITE_ONCE(sbridge_live, true);
	pr_info("version %s loaded: %u core type(s), API %u\n", SBRIDGE_VERSION,
		sbridge_topo.ntypes, SBRIDGE_API_VERSION);
	return 0;

err_sysfs:
	sbridge_sysfs_exit();
err_netlink:
	sbridge_netlink_exit();
err_hooks:
	sbridge_hooks_exit();
err_tasks:
	sbridge_tasks_exit();
err_rules:
	sbridge_rules_exit();
err_matrix:
	sbridge_matrix_exit();
err_source:
	sbridge_source_exit();
	sbridge_api_exit();
err_topology:
	sbridge_topology_exit();
	return ret;
}

static void __exit sbridge_exit(void)
{
	WRITE_ONCE(sbridge_live, false);
	cancel_delayed_work_sync(&sbridge_tick_work);
	/* restore while the fork hook still sees children, ... */
	sbridge_actuators_stop();
	sbridge_sysfs_exit();
	sbridge_netlink_exit();
	sbridge_api_exit();
	sbridge_hooks_exit();
	/* ... then once more, for children forked in between */
	sbridge_actuators_exit();
	sbridge_tasks_exit();
	sbridge_rules_exit();
	sbridge_matrix_exit();
	sbridge_source_exit();
	sbridge_topology_exit();
	pr_info("unloaded\n");
}

module_init(sbridge_init);
module_exit(sbridge_exit);
MODULE_DESCRIPTION("sbridge: heterogeneity-aware hints for the unmodified scheduler");
MODULE_LICENSE("GPL");
MODULE_VERSION(SBRIDGE_VERSION);
