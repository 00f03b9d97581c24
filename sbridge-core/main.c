// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_core - heterogeneity-aware hints for the unmodified scheduler.
 *
 * Module init/exit, tunables and the housekeeping work item. The pieces:
 * topology.c (core types), task.c + hooks.c (per-task state from the
 * scheduler tracepoints), model.c (CPI stack, factors, phases), matrix.c,
 * rules.c, source.c (counter-source registry), api.c (exported API),
 * netlink.c and sysfs.c (control and status).
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
};
static DEFINE_MUTEX(sbridge_param_lock);

/**
 * struct sbridge_param_desc - one SET_PARAM name
 * @name: name on the wire
 * @val: the tunable
 * @min: smallest accepted value
 * @max: largest accepted value
 *
 * Constant table.
 */
struct sbridge_param_desc {
	const char *name;
	u32 *val;
	u32 min, max;
};

static const struct sbridge_param_desc sbridge_param_tab[] = {
	{ "learning", &sbridge_params.learning, 0, 1 },
	{ "window_instr", &sbridge_params.window_instr, 1000, 1000000000 },
	{ "window_cycles", &sbridge_params.window_cycles, 1000, 1000000000 },
	{ "phase_windows", &sbridge_params.phase_windows, 1, 64 },
	{ "phase_delta", &sbridge_params.phase_delta, 1, SBRIDGE_FP_ONE },
	{ "c", &sbridge_params.c_const, SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX },
	{ "ref_share", &sbridge_params.ref_share, 1, SBRIDGE_FP_ONE },
	{ "matrix_max", &sbridge_params.matrix_max, 0, 65536 },
	{ "tick_ms", &sbridge_params.tick_ms, 0, 10000 },
	/* actuators and the invariant checker (actuators.h) */
	{ "act.capacity", &sbridge_act_params.capacity, 0, 1 },
	{ "act.placement", &sbridge_act_params.placement, 0, 1 },
	{ "act.uclamp", &sbridge_act_params.uclamp, 0, 1 },
	{ "act.freq", &sbridge_act_params.freq, 0, 1 },
	{ "act.period_ms", &sbridge_act_params.period_ms, 10, 60000 },
	{ "act.up_util", &sbridge_act_params.up_util, 1, SCHED_CAPACITY_SCALE },
	{ "act.down_util", &sbridge_act_params.down_util, 0, SCHED_CAPACITY_SCALE },
	{ "checker.on", &sbridge_act_params.checker, 0, 1 },
	{ "checker.period_ms", &sbridge_act_params.check_period_ms, 10, 3600000 },
	{ "checker.watch_ms", &sbridge_act_params.watch_ms, 1, 10000 },
	{ "checker.selftest", &sbridge_act_params.selftest, 0, 1 },
};

/**
 * sbridge_param_set() - set a tunable by name (SET_PARAM)
 * @name: parameter name
 * @value: new value
 *
 * Context: process context; takes sbridge_param_lock.
 * Return: 0, -EOPNOTSUPP for an unknown name, -ERANGE if out of range.
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
		WRITE_ONCE(*d->val, (u32)value);
		mutex_unlock(&sbridge_param_lock);
		pr_info("parameter %s = %llu\n", name, value);
		return 0;
	}
	return -EOPNOTSUPP;
}

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
 * Housekeeping, once a second: tell consumers when the model moved (the
 * switch path cannot notify: it runs with IRQs off).
 */
#define SBRIDGE_TICK	HZ
static void sbridge_tick_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_tick_work, sbridge_tick_fn);
static s64 sbridge_tick_samples, sbridge_tick_phases;

static void sbridge_tick_fn(struct work_struct *w)
{
	s64 s = atomic64_read(&sbridge_stats.samples);
	s64 p = atomic64_read(&sbridge_stats.phase_changes);

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
	cancel_delayed_work_sync(&sbridge_tick_work);
	sbridge_actuators_exit();
	sbridge_sysfs_exit();
	sbridge_netlink_exit();
	sbridge_api_exit();
	sbridge_hooks_exit();
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
