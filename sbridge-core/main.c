// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_core - heterogeneity-aware hints for the unmodified scheduler.
 *
 * Module init/exit and the housekeeping work item (the tunables and their
 * module parameters are params.c's). The pieces: topology.c (core types), task.c +
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
#include "checker.h"

/*
 * Housekeeping, once a second: fold what running tasks learned into the
 * matrix (bounded per period, see sbridge_matrix_refresh()) and tell
 * consumers when the model moved (the switch path cannot notify: it runs
 * with IRQs off).
 */
#define SBRIDGE_HOUSEKEEPING_PERIOD	HZ
static void sbridge_housekeeping_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_housekeeping_work, sbridge_housekeeping_fn);
static u64 sbridge_hk_samples, sbridge_hk_phases;

static void sbridge_housekeeping_fn(struct work_struct *w)
{
	u64 s = sbridge_sample_samples();
	u64 p = sbridge_sample_phase_changes();

	sbridge_matrix_refresh();
	if (s != sbridge_hk_samples)
		sbridge_consumers_notify(false);
	if (p != sbridge_hk_phases)
		sbridge_event_post(SBRIDGE_EVENT_PHASE, "phase change");
	sbridge_hk_samples = s;
	sbridge_hk_phases = p;
	sbridge_topo_house_queue(&sbridge_housekeeping_work, SBRIDGE_HOUSEKEEPING_PERIOD);
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
	ret = sbridge_params_start();
	if (ret)
		return ret;
	ret = sbridge_actuators_params();
	if (ret)
		return ret;
	ret = sbridge_api_init();
	if (ret)
		return ret;
	ret = sbridge_topology_init();
	if (ret)
		goto err_api;
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
	/* the checker reads what the actuators hold, and asks them to yield */
	ret = sbridge_checker_init();
	if (ret)
		goto err_actuators;
	/* last: a BPF program may call them once they are registered */
	sbridge_kfuncs_init();
	sbridge_topo_house_queue(&sbridge_housekeeping_work, SBRIDGE_HOUSEKEEPING_PERIOD);
	pr_info("version %s loaded: %u core type(s), API %u\n", SBRIDGE_VERSION,
		sbridge_topo.ntypes, SBRIDGE_API_VERSION);
	return 0;

err_actuators:
	/* as at unload: the final restore once the fork hook is gone */
	sbridge_actuators_stop();
	sbridge_sysfs_exit();
	sbridge_predictor_exit();
	sbridge_netlink_exit();
	sbridge_hooks_exit();
	sbridge_actuators_exit();
	goto err_tasks;
err_sysfs:
	sbridge_sysfs_exit();
	sbridge_predictor_exit();
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
err_topology:
	sbridge_topology_exit();
err_api:
	sbridge_api_exit();
	return ret;
}

static void __exit sbridge_exit(void)
{
	cancel_delayed_work_sync(&sbridge_housekeeping_work);
	sbridge_checker_exit();
	/* restore while the fork hook still sees children, ... */
	sbridge_actuators_stop();
	sbridge_sysfs_exit();
	sbridge_predictor_exit();
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
