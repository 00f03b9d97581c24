// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_core - heterogeneity-aware hints for the unmodified scheduler.
 *
 * Module init/exit, tunables (each also a module parameter) and the
 * housekeeping work item. The pieces: topology.c (core types), task.c +
 * hooks.c (per-task state from the scheduler tracepoints), sample.c (the
 * counter windows sampled on switch and runtime probes), model.c (CPI
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
 * Every tunable once: wire name (SET_PARAM, sbridgectl set param), storage
 * and range; each is also a module parameter (below) named with '_' for
 * '.' (modprobe.d, modinfo, /sys/module/sbridge_core/parameters).
 */
enum {
	SBRIDGE_P_LEARNING,
	SBRIDGE_P_WINDOW_INSTR,
	SBRIDGE_P_WINDOW_CYCLES,
	SBRIDGE_P_PHASE_WINDOWS,
	SBRIDGE_P_PHASE_DELTA,
	SBRIDGE_P_C,
	SBRIDGE_P_REF_SHARE,
	SBRIDGE_P_MATRIX_MAX,
	SBRIDGE_P_TICK_MS,
	SBRIDGE_P_LEARN_MEASURED,
	SBRIDGE_P_ACT_OBSERVE,
	SBRIDGE_P_ACT_CAPACITY,
	SBRIDGE_P_ACT_PLACEMENT,
	SBRIDGE_P_ACT_UCLAMP,
	SBRIDGE_P_ACT_FREQ,
	SBRIDGE_P_ACT_PERIOD_MS,
	SBRIDGE_P_ACT_UP_UTIL,
	SBRIDGE_P_ACT_DOWN_UTIL,
	SBRIDGE_P_ACT_GAIN,
	SBRIDGE_P_ACT_MODEL,
	SBRIDGE_P_ACT_HOLD_MS,
	SBRIDGE_P_CHECKER_ON,
	SBRIDGE_P_CHECKER_PERIOD_MS,
	SBRIDGE_P_CHECKER_WATCH_MS,
	SBRIDGE_P_CHECKER_SELFTEST,
};

static struct sbridge_param_desc sbridge_param_tab[] = {
	[SBRIDGE_P_LEARNING] = { "learning", &sbridge_params.learning, 0, 1 },
	[SBRIDGE_P_WINDOW_INSTR] = { "window_instr", &sbridge_params.window_instr, 1000, 1000000000 },
	[SBRIDGE_P_WINDOW_CYCLES] = { "window_cycles", &sbridge_params.window_cycles, 1000, 1000000000 },
	[SBRIDGE_P_PHASE_WINDOWS] = { "phase_windows", &sbridge_params.phase_windows, 1, 64 },
	[SBRIDGE_P_PHASE_DELTA] = { "phase_delta", &sbridge_params.phase_delta, 1, SBRIDGE_FP_ONE },
	[SBRIDGE_P_C] = { "c", &sbridge_params.c_const, SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX },
	[SBRIDGE_P_REF_SHARE] = { "ref_share", &sbridge_params.ref_share, 1, SBRIDGE_FP_ONE },
	[SBRIDGE_P_MATRIX_MAX] = { "matrix_max", &sbridge_params.matrix_max, 0, 65536 },
	[SBRIDGE_P_TICK_MS] = { "tick_ms", &sbridge_params.tick_ms, 0, 10000 },
	[SBRIDGE_P_LEARN_MEASURED] = { "learn.measured", &sbridge_params.learn_measured, 0, 1 },
	[SBRIDGE_P_ACT_OBSERVE] = { "act.observe", &sbridge_act_params.observe, 0, 1 },
	[SBRIDGE_P_ACT_CAPACITY] = { "act.capacity", &sbridge_act_params.capacity, 0, 1 },
	[SBRIDGE_P_ACT_PLACEMENT] = { "act.placement", &sbridge_act_params.placement, 0, 1 },
	[SBRIDGE_P_ACT_UCLAMP] = { "act.uclamp", &sbridge_act_params.uclamp, 0, 1 },
	[SBRIDGE_P_ACT_FREQ] = { "act.freq", &sbridge_act_params.freq, 0, 1 },
	[SBRIDGE_P_ACT_PERIOD_MS] = { "act.period_ms", &sbridge_act_params.period_ms, 10, 60000 },
	[SBRIDGE_P_ACT_UP_UTIL] = { "act.up_util", &sbridge_act_params.up_util, 1, SCHED_CAPACITY_SCALE },
	[SBRIDGE_P_ACT_DOWN_UTIL] = { "act.down_util", &sbridge_act_params.down_util, 0, SCHED_CAPACITY_SCALE },
	[SBRIDGE_P_ACT_GAIN] = { "act.gain", &sbridge_act_params.gain, 0, SBRIDGE_FACTOR_MAX },
	[SBRIDGE_P_ACT_MODEL] = { "act.model", &sbridge_act_params.model, 0, 1 },
	[SBRIDGE_P_ACT_HOLD_MS] = { "act.hold_ms", &sbridge_act_params.hold_ms, 0, 60000 },
	[SBRIDGE_P_CHECKER_ON] = { "checker.on", &sbridge_act_params.checker, 0, 1 },
	[SBRIDGE_P_CHECKER_PERIOD_MS] = { "checker.period_ms", &sbridge_act_params.check_period_ms, 10, 3600000 },
	[SBRIDGE_P_CHECKER_WATCH_MS] = { "checker.watch_ms", &sbridge_act_params.watch_ms, 1, 10000 },
	[SBRIDGE_P_CHECKER_SELFTEST] = { "checker.selftest", &sbridge_act_params.selftest, 0, 1 },
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

module_param_cb(learning, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_LEARNING], 0644);
MODULE_PARM_DESC(learning, "0 stops the model (factors frozen)");
module_param_cb(window_instr, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_WINDOW_INSTR], 0644);
MODULE_PARM_DESC(window_instr, "instructions per model window");
module_param_cb(window_cycles, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_WINDOW_CYCLES], 0644);
MODULE_PARM_DESC(window_cycles, "cycles per window without instructions");
module_param_cb(phase_windows, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_PHASE_WINDOWS], 0644);
MODULE_PARM_DESC(phase_windows, "windows a new CPI_B share must hold to be a phase");
module_param_cb(phase_delta, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_PHASE_DELTA], 0644);
MODULE_PARM_DESC(phase_delta, "share change that is a new phase (1024 = 1.0)");
module_param_cb(c, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_C], 0644);
MODULE_PARM_DESC(c, "the model's constant C (1024 = 1.0)");
module_param_cb(ref_share, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_REF_SHARE], 0644);
MODULE_PARM_DESC(ref_share, "CPI_B share of the reference task (1024 = 1.0)");
module_param_cb(matrix_max, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_MATRIX_MAX], 0644);
MODULE_PARM_DESC(matrix_max, "matrix cells kept before LRU eviction");
module_param_cb(tick_ms, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_TICK_MS], 0644);
MODULE_PARM_DESC(tick_ms, "least ms between counter reads of a running task, 0 = switches only");
module_param_cb(learn_measured, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_LEARN_MEASURED], 0644);
MODULE_PARM_DESC(learn_measured, "1: blend the measured big/little speedup into decisions");
module_param_cb(act_observe, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_OBSERVE], 0644);
MODULE_PARM_DESC(act_observe, "1: every actuator off, learn and report only");
module_param_cb(act_capacity, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_CAPACITY], 0644);
MODULE_PARM_DESC(act_capacity, "1: write CPU factor overrides into cpu_scale");
module_param_cb(act_placement, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_PLACEMENT], 0644);
MODULE_PARM_DESC(act_placement, "1: steer hot tasks to the core type the decision chose");
module_param_cb(act_uclamp, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_UCLAMP], 0644);
MODULE_PARM_DESC(act_uclamp, "1: util_min/util_max of hot tasks from their CPI_B share");
module_param_cb(act_freq, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_FREQ], 0644);
MODULE_PARM_DESC(act_freq, "1: cpufreq floors under hot compute-bound tasks");
module_param_cb(act_period_ms, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_PERIOD_MS], 0644);
MODULE_PARM_DESC(act_period_ms, "period of the decision and actuators, ms");
module_param_cb(act_up_util, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_UP_UTIL], 0644);
MODULE_PARM_DESC(act_up_util, "busy share of its CPU (1024 = all) to enter a decision");
module_param_cb(act_down_util, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_DOWN_UTIL], 0644);
MODULE_PARM_DESC(act_down_util, "busy share below which a task leaves it (<= up_util)");
module_param_cb(act_gain, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_GAIN], 0644);
MODULE_PARM_DESC(act_gain, "least predicted speedup above 1.0 to want the fast cores (1024 = 1.0)");
module_param_cb(act_model, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_MODEL], 0644);
MODULE_PARM_DESC(act_model, "1 = rank by the learned speedup, 0 = by load alone (HMP-style)");
module_param_cb(act_hold_ms, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_ACT_HOLD_MS], 0644);
MODULE_PARM_DESC(act_hold_ms, "hint kept through a sleep; aging step for turns on the fast cores (0 = no turns)");
module_param_cb(checker_on, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_ON], 0644);
MODULE_PARM_DESC(checker_on, "1: run the work-conserving checker");
module_param_cb(checker_period_ms, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_PERIOD_MS], 0644);
MODULE_PARM_DESC(checker_period_ms, "checker period S, ms");
module_param_cb(checker_watch_ms, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_WATCH_MS], 0644);
MODULE_PARM_DESC(checker_watch_ms, "checker confirmation delay M, ms");
module_param_cb(checker_selftest, &sbridge_mp_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_SELFTEST], 0644);
MODULE_PARM_DESC(checker_selftest, "1: steer every hot task to one CPU to provoke a report");

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
#define SBRIDGE_HOUSEKEEPING_PERIOD	HZ
static void sbridge_housekeeping_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_housekeeping_work, sbridge_housekeeping_fn);
static s64 sbridge_hk_samples, sbridge_hk_phases;

static void sbridge_housekeeping_fn(struct work_struct *w)
{
	s64 s = atomic64_read(&sbridge_stats.samples);
	s64 p = atomic64_read(&sbridge_stats.phase_changes);

	sbridge_matrix_refresh();
	if (s != sbridge_hk_samples)
		sbridge_consumers_notify(false);
	if (p != sbridge_hk_phases)
		sbridge_event_post(SBRIDGE_EVENT_PHASE, "phase change");
	sbridge_hk_samples = s;
	sbridge_hk_phases = p;
	schedule_delayed_work(&sbridge_housekeeping_work, SBRIDGE_HOUSEKEEPING_PERIOD);
}

static int __init sbridge_init(void)
{
	int ret;

	/*
	 * The matrix and placement locks are spinlock_t, taken in
	 * tracepoint probes with preemption off; on PREEMPT_RT they sleep.
	 * Until they are raw (and the probes' GFP_NOWAIT allocations are
	 * preallocated), refuse rather than splat.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		pr_err("PREEMPT_RT kernels are not supported: the probes take locks that sleep there\n");
		return -EOPNOTSUPP;
	}
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
	schedule_delayed_work(&sbridge_housekeeping_work, SBRIDGE_HOUSEKEEPING_PERIOD);
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
	cancel_delayed_work_sync(&sbridge_housekeeping_work);
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
