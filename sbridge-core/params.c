// SPDX-License-Identifier: GPL-2.0
/*
 * The tunables: their storage and defaults, read everywhere with
 * READ_ONCE(), and the one registry that writes them (SET_PARAM and the
 * module parameters, which share its table and ranges) under its lock.
 * An actuator keeps its own switch (act_*.c, as schedutil keeps its
 * tunables): the registry collects it (sbridge_params_add()) and lists it
 * where the actuators' switches stand. Kept below every layer that reads
 * them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "internal.h"

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
	.warm_instr = 2000000,
	.startup_ms = 200,
	.pred_err = SBRIDGE_FP_ONE / 5,
	.mem_latency_ns = 0,	/* the counter source's */
	.mem_ratio = 0,		/* none: learned from the matrix */
	.window_us = 4000,	/* a tick at HZ=250 */
	.tpi_shift = 0,		/* the mean (docs/estimate.md, "Window by window") */
	.share_tol = 300,	/* docs/estimate.md, "Shares that cannot be one code" */
};

struct sbridge_act_params sbridge_act_params = {
	.observe = 0,
	.period_ms = 200,
	.up_util = 512,
	.down_util = 256,
	.gain = SBRIDGE_FP_ONE / 10,
	.model = 1,
	.hold_ms = 1000,
	.fair = SBRIDGE_FP_ONE * 4 / 5,
	.sample_pct = 5,
	.margin = SBRIDGE_FP_ONE,
	.checker = 1,
	.check_period_ms = 1000,
	.watch_ms = 100,
	.selftest = 0,
};

static DEFINE_MUTEX(sbridge_param_lock);

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
	SBRIDGE_P_LEARN_WARM_INSTR,
	SBRIDGE_P_LEARN_STARTUP_MS,
	SBRIDGE_P_LEARN_PRED_ERR,
	SBRIDGE_P_ACT_OBSERVE,
	/* here the actuators' switches, in their apply order */
	SBRIDGE_P_ACTUATORS,
	SBRIDGE_P_ACT_PERIOD_MS = SBRIDGE_P_ACTUATORS,
	SBRIDGE_P_ACT_UP_UTIL,
	SBRIDGE_P_ACT_DOWN_UTIL,
	SBRIDGE_P_ACT_GAIN,
	SBRIDGE_P_ACT_MODEL,
	SBRIDGE_P_ACT_HOLD_MS,
	SBRIDGE_P_ACT_FAIR,
	SBRIDGE_P_ACT_SAMPLE_PCT,
	SBRIDGE_P_CHECKER_ON,
	SBRIDGE_P_CHECKER_PERIOD_MS,
	SBRIDGE_P_CHECKER_WATCH_MS,
	SBRIDGE_P_CHECKER_SELFTEST,
	SBRIDGE_P_MODEL_MEM_LAT_NS,
	SBRIDGE_P_ACT_MARGIN,
	SBRIDGE_P_MODEL_MEM_RATIO,
	SBRIDGE_P_WINDOW_US,
	SBRIDGE_P_LEARN_TPI_SHIFT,
	SBRIDGE_P_LEARN_SHARE_TOL,
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
	[SBRIDGE_P_LEARN_WARM_INSTR] = { "learn.warm_instr", &sbridge_params.warm_instr, 0, 0xffff * SBRIDGE_WARM_UNIT },
	[SBRIDGE_P_LEARN_STARTUP_MS] = { "learn.startup_ms", &sbridge_params.startup_ms, 0, 60000 },
	[SBRIDGE_P_LEARN_PRED_ERR] = { "learn.pred_err", &sbridge_params.pred_err, 10, SBRIDGE_FP_ONE * 4 },
	[SBRIDGE_P_ACT_OBSERVE] = { "act.observe", &sbridge_act_params.observe, 0, 1 },
	[SBRIDGE_P_ACT_PERIOD_MS] = { "act.period_ms", &sbridge_act_params.period_ms, 10, 60000 },
	[SBRIDGE_P_ACT_UP_UTIL] = { "act.up_util", &sbridge_act_params.up_util, 1, SCHED_CAPACITY_SCALE },
	[SBRIDGE_P_ACT_DOWN_UTIL] = { "act.down_util", &sbridge_act_params.down_util, 0, SCHED_CAPACITY_SCALE },
	[SBRIDGE_P_ACT_GAIN] = { "act.gain", &sbridge_act_params.gain, 0, SBRIDGE_FACTOR_MAX },
	[SBRIDGE_P_ACT_MODEL] = { "act.model", &sbridge_act_params.model, 0, 1 },
	[SBRIDGE_P_ACT_HOLD_MS] = { "act.hold_ms", &sbridge_act_params.hold_ms, 0, 60000 },
	[SBRIDGE_P_ACT_FAIR] = { "act.fair", &sbridge_act_params.fair, 0, SBRIDGE_FP_ONE },
	[SBRIDGE_P_ACT_SAMPLE_PCT] = { "act.sample_pct", &sbridge_act_params.sample_pct, 0, 50 },
	[SBRIDGE_P_CHECKER_ON] = { "checker.on", &sbridge_act_params.checker, 0, 1 },
	[SBRIDGE_P_CHECKER_PERIOD_MS] = { "checker.period_ms", &sbridge_act_params.check_period_ms, 10, 3600000 },
	[SBRIDGE_P_CHECKER_WATCH_MS] = { "checker.watch_ms", &sbridge_act_params.watch_ms, 1, 10000 },
	[SBRIDGE_P_CHECKER_SELFTEST] = { "checker.selftest", &sbridge_act_params.selftest, 0, 1 },
	[SBRIDGE_P_MODEL_MEM_LAT_NS] = { "model.mem_latency_ns", &sbridge_params.mem_latency_ns, 0, 100000 },
	[SBRIDGE_P_ACT_MARGIN] = { "act.margin", &sbridge_act_params.margin, 0, SBRIDGE_FP_ONE * 4 },
	[SBRIDGE_P_MODEL_MEM_RATIO] = { "model.mem_ratio", &sbridge_params.mem_ratio, 0, SBRIDGE_FACTOR_MAX },
	[SBRIDGE_P_WINDOW_US] = { "window_us", &sbridge_params.window_us, 0, 1000000 },
	[SBRIDGE_P_LEARN_TPI_SHIFT] = { "learn.tpi_shift", &sbridge_params.tpi_shift, 0, 3000 },
	[SBRIDGE_P_LEARN_SHARE_TOL] = { "learn.share_tol", &sbridge_params.share_tol, 0, 1000 },
};

/* The actuators' switches, collected at load (sbridge_params_add()). */
#define SBRIDGE_PARAMS_ADDED	8
static struct sbridge_param_desc *sbridge_param_added[SBRIDGE_PARAMS_ADDED];
static unsigned int sbridge_param_nadded;

/* The @i-th tunable in listing order, NULL past the last. */
static struct sbridge_param_desc *sbridge_param_at(unsigned int i)
{
	/* pairs with sbridge_params_add()'s release: the slot is filled */
	unsigned int added = smp_load_acquire(&sbridge_param_nadded);

	if (i < SBRIDGE_P_ACTUATORS)
		return &sbridge_param_tab[i];
	if (i - SBRIDGE_P_ACTUATORS < added)
		return sbridge_param_added[i - SBRIDGE_P_ACTUATORS];
	i -= added;
	return i < ARRAY_SIZE(sbridge_param_tab) ? &sbridge_param_tab[i] : NULL;
}

/**
 * sbridge_params_add() - collect a tunable that lives with its user
 * @d: its name, storage and range (an actuator's switch); static
 *
 * Listed after act.observe, in the order added; SET_PARAM finds it by
 * name. Its module parameter the caller declares itself
 * (sbridge_module_param()).
 *
 * Context: process context, module init, before the netlink family.
 * Return: 0, or -ENOSPC when SBRIDGE_PARAMS_ADDED are in.
 */
int sbridge_params_add(struct sbridge_param_desc *d)
{
	int ret = 0;

	mutex_lock(&sbridge_param_lock);
	if (sbridge_param_nadded < SBRIDGE_PARAMS_ADDED) {
		sbridge_param_added[sbridge_param_nadded] = d;
		/* published after the slot: lockless readers see it whole */
		smp_store_release(&sbridge_param_nadded, sbridge_param_nadded + 1);
	} else {
		ret = -ENOSPC;
	}
	mutex_unlock(&sbridge_param_lock);
	return ret;
}

/* up_util and down_util as a pair: two thresholds, never inverted. */
static bool sbridge_param_pair_ok(const u32 *val, u64 value)
{
	if (val == &sbridge_act_params.up_util)
		return value >= READ_ONCE(sbridge_act_params.down_util);
	if (val == &sbridge_act_params.down_util)
		return value <= READ_ONCE(sbridge_act_params.up_util);
	return true;
}

/*
 * Set once init starts (sbridge_params_start()) and never cleared: from
 * then on every write, also during the rest of init and during exit, is
 * checked as a pair, needs CAP_SYS_ADMIN and is logged. Before, the
 * load's arguments are parsed in any order and the pair is checked once.
 */
static bool sbridge_live;

/**
 * sbridge_params_start() - check the load's parameters as a whole
 *
 * The pair check of the load's arguments, under the registry's lock, and
 * from here on every write is checked on its own.
 *
 * Context: process context, first thing at module init.
 * Return: 0, or -EINVAL if act.down_util is above act.up_util.
 */
int sbridge_params_start(void)
{
	int ret = 0;

	mutex_lock(&sbridge_param_lock);
	if (sbridge_act_params.down_util > sbridge_act_params.up_util) {
		pr_err("act_down_util %u is above act_up_util %u\n",
		       sbridge_act_params.down_util, sbridge_act_params.up_util);
		ret = -EINVAL;
	} else {
		WRITE_ONCE(sbridge_live, true);
	}
	mutex_unlock(&sbridge_param_lock);
	return ret;
}

/* Range and pair checks, then write @d's tunable; -ERANGE if refused. */
static int sbridge_param_write(const struct sbridge_param_desc *d, u64 value)
{
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
		pr_info("parameter %s = %llu\n", d->name, value);
	return 0;
}

/**
 * sbridge_param_set() - set a tunable by name (SET_PARAM)
 * @name: parameter name
 * @value: new value
 *
 * Context: process context; takes sbridge_param_lock.
 * Return: 0, -EOPNOTSUPP for an unknown name, -ERANGE if out of range or
 *	if it would put act.down_util above act.up_util.
 */
int sbridge_param_set(const char *name, u64 value)
{
	const struct sbridge_param_desc *d;
	unsigned int i;

	for (i = 0; (d = sbridge_param_at(i)); i++)
		if (!strcmp(name, d->name))
			return sbridge_param_write(d, value);
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
	ret = sbridge_param_write(d, v);
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

const struct kernel_param_ops sbridge_param_ops = {
	.set = sbridge_mp_set,
	.get = sbridge_mp_get,
};

module_param_cb(learning, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_LEARNING], 0644);
MODULE_PARM_DESC(learning, "0 stops the model (factors frozen)");
module_param_cb(window_instr, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_WINDOW_INSTR], 0644);
MODULE_PARM_DESC(window_instr, "instructions per model window");
module_param_cb(window_cycles, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_WINDOW_CYCLES], 0644);
MODULE_PARM_DESC(window_cycles, "cycles per window without instructions");
module_param_cb(phase_windows, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_PHASE_WINDOWS], 0644);
MODULE_PARM_DESC(phase_windows, "windows a new CPI_B share must hold to be a phase");
module_param_cb(phase_delta, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_PHASE_DELTA], 0644);
MODULE_PARM_DESC(phase_delta, "share change that is a new phase (1024 = 1.0)");
module_param_cb(c, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_C], 0644);
MODULE_PARM_DESC(c, "the model's constant C (1024 = 1.0)");
module_param_cb(ref_share, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_REF_SHARE], 0644);
MODULE_PARM_DESC(ref_share, "CPI_B share of the reference task (1024 = 1.0)");
module_param_cb(matrix_max, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_MATRIX_MAX], 0644);
MODULE_PARM_DESC(matrix_max, "matrix cells kept before LRU eviction");
module_param_cb(tick_ms, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_TICK_MS], 0644);
MODULE_PARM_DESC(tick_ms, "least ms between counter reads of a running task, 0 = switches only");
module_param_cb(learn_measured, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_LEARN_MEASURED], 0644);
MODULE_PARM_DESC(learn_measured, "1: blend the measured big/little speedup into decisions");
module_param_cb(learn_warm_instr, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_LEARN_WARM_INSTR], 0644);
MODULE_PARM_DESC(learn_warm_instr, "instructions skipped after a migration or exec before a window is measured");
module_param_cb(learn_startup_ms, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_LEARN_STARTUP_MS], 0644);
MODULE_PARM_DESC(learn_startup_ms, "CPU time after exec whose windows are the start-up phase, ms");
module_param_cb(learn_pred_err, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_LEARN_PRED_ERR], 0644);
MODULE_PARM_DESC(learn_pred_err, "relative error of the CPI-stack prediction (1024 = 100 %)");
module_param_cb(act_observe, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_OBSERVE], 0644);
MODULE_PARM_DESC(act_observe, "1: every actuator off, learn and report only");
module_param_cb(act_period_ms, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_PERIOD_MS], 0644);
MODULE_PARM_DESC(act_period_ms, "period of the decision and actuators, ms");
module_param_cb(act_up_util, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_UP_UTIL], 0644);
MODULE_PARM_DESC(act_up_util, "busy share of its CPU (1024 = all) to enter a decision");
module_param_cb(act_down_util, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_DOWN_UTIL], 0644);
MODULE_PARM_DESC(act_down_util, "busy share below which a task leaves it (<= up_util)");
module_param_cb(act_gain, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_GAIN], 0644);
MODULE_PARM_DESC(act_gain, "least predicted speedup above 1.0 to want the fast cores (1024 = 1.0)");
module_param_cb(act_model, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_MODEL], 0644);
MODULE_PARM_DESC(act_model, "1 = rank by the learned speedup, 0 = by load alone (HMP-style)");
module_param_cb(act_hold_ms, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_HOLD_MS], 0644);
MODULE_PARM_DESC(act_hold_ms, "hint kept through a sleep, ms");
module_param_cb(act_fair, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_FAIR], 0644);
MODULE_PARM_DESC(act_fair, "each task's progress at least this of its equal-share rate (1024 = 1.0)");
module_param_cb(act_sample_pct, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_SAMPLE_PCT], 0644);
MODULE_PARM_DESC(act_sample_pct, "fast time sampling swaps may take, percent (0 = none)");
module_param_cb(checker_on, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_ON], 0644);
MODULE_PARM_DESC(checker_on, "1: run the work-conserving checker");
module_param_cb(checker_period_ms, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_PERIOD_MS], 0644);
MODULE_PARM_DESC(checker_period_ms, "checker period S, ms");
module_param_cb(checker_watch_ms, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_WATCH_MS], 0644);
MODULE_PARM_DESC(checker_watch_ms, "checker confirmation delay M, ms");
module_param_cb(checker_selftest, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_CHECKER_SELFTEST], 0644);
MODULE_PARM_DESC(checker_selftest, "1: steer every hot task to one CPU to provoke a report");
module_param_cb(model_mem_latency_ns, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_MODEL_MEM_LAT_NS], 0644);
MODULE_PARM_DESC(model_mem_latency_ns, "memory latency of the stall penalty, ns (0 = the counter source's; sbridgectl calibrate sets it)");
module_param_cb(act_margin, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_ACT_MARGIN], 0644);
MODULE_PARM_DESC(act_margin, "standard errors two speedups must differ by to be told apart (1024 = 1.0; 0 = any difference)");
module_param_cb(model_mem_ratio, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_MODEL_MEM_RATIO], 0644);
MODULE_PARM_DESC(model_mem_ratio, "memory-bound time on the slowest type over the reference type's before one is learned (1024 = 1.0; 0 = none: the CPU factor, widely doubted)");
module_param_cb(window_us, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_WINDOW_US], 0644);
MODULE_PARM_DESC(window_us, "the task's CPU time (us) a model window spans at most, whatever its instructions (0: window_instr only)");
module_param_cb(learn_tpi_shift, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_LEARN_TPI_SHIFT], 0644);
MODULE_PARM_DESC(learn_tpi_shift, "thousandths of a task's spread of log time per instruction taken off each phase's mean before core types are compared (0: the mean; 845: about the 25th percentile)");
module_param_cb(learn_share_tol, &sbridge_param_ops, &sbridge_param_tab[SBRIDGE_P_LEARN_SHARE_TOL], 0644);
MODULE_PARM_DESC(learn_share_tol, "thousandths of a CPI_B share a phase's share on the faster type may exceed what its share on the slower type becomes there before the two are not compared (1000: always compared)");

/**
 * sbridge_param_get() - read the @i-th tunable
 * @i: index
 * @value: out
 *
 * Return: its name, NULL past the end.
 */
const char *sbridge_param_get(unsigned int i, u64 *value)
{
	const struct sbridge_param_desc *d = sbridge_param_at(i);

	if (!d)
		return NULL;
	*value = READ_ONCE(*d->val);
	return d->name;
}
