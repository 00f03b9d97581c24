/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Actuators (the levers the unmodified scheduler already honours) and the
 * work-conserving invariant checker (seed 003, 4.1). Internal to
 * sbridge_core. Each piece has init/exit, a runtime switch (a SET_PARAM
 * word below, acted on by the piece's own work item) and a status line.
 */
#ifndef _SBRIDGE_CORE_ACTUATORS_H
#define _SBRIDGE_CORE_ACTUATORS_H

#include <linux/types.h>
#include <linux/sysfs.h>
#include <linux/kobject.h>
#include <linux/sched.h>

struct task_struct;
struct cpumask;
struct sk_buff;
struct netlink_callback;

/* Bits of SBRIDGE_A_REPORT_HINTS: actuators in force. */
#define SBRIDGE_HINT_CAPACITY	BIT(0)
#define SBRIDGE_HINT_PLACEMENT	BIT(1)
#define SBRIDGE_HINT_UCLAMP	BIT(2)
#define SBRIDGE_HINT_FREQ	BIT(3)
/* p->on_rq value of a queued task (TASK_ON_RQ_QUEUED, kernel/sched/sched.h). */
#define SBRIDGE_ON_RQ_QUEUED	1

/* Runnable or running; task_on_rq_queued() is private to kernel/sched. */
static inline bool sbridge_task_queued(const struct task_struct *p)
{
	return READ_ONCE(p->on_rq) == SBRIDGE_ON_RQ_QUEUED;
}

/* The report's waiting task was steered by sbridge (placement yielded). */
#define SBRIDGE_HINT_CAUSED	BIT(8)

/**
 * struct sbridge_act_params - actuator and checker tunables (SET_PARAM)
 * @capacity: act.capacity, 1 writes CPU factors into cpu_scale
 * @placement: act.placement, 1 steers hot tasks by affinity
 * @uclamp: act.uclamp, 1 sets util_min/util_max from factors
 * @freq: act.freq, 1 adds frequency floors (freq_qos)
 * @period_ms: act.period_ms, period of the actuator work items
 * @up_util: act.up_util, PELT util a task needs to be steered (0..1024)
 * @down_util: act.down_util, util below which a steered task is released
 * @checker: checker.on, 1 runs the invariant checker
 * @check_period_ms: checker.period_ms, S of the seed
 * @watch_ms: checker.watch_ms, M of the seed
 * @selftest: checker.selftest, 1 makes placement steer every hot task to
 *	one CPU regardless of saturation, to provoke a violation on purpose
 *
 * Each is one aligned word written with WRITE_ONCE() by sbridge_param_set()
 * and read with READ_ONCE(); the work items notice changes on their next
 * run, so a switch takes effect within one period.
 */
struct sbridge_act_params {
	u32 capacity;
	u32 placement;
	u32 uclamp;
	u32 freq;
	u32 period_ms;
	u32 up_util;
	u32 down_util;
	u32 checker;
	u32 check_period_ms;
	u32 watch_ms;
	u32 selftest;
};
extern struct sbridge_act_params sbridge_act_params;

/* ---- act_capacity.c ---- */
int sbridge_capacity_init(void);
void sbridge_capacity_exit(void);
bool sbridge_capacity_active(void);
const char *sbridge_capacity_status(void);

/* ---- act_placement.c ---- */
int sbridge_placement_init(void);
void sbridge_placement_exit(void);
bool sbridge_placement_active(void);
const char *sbridge_placement_status(void);
bool sbridge_placement_user_mask(struct task_struct *p, struct cpumask *mask);
void sbridge_placement_yield(struct task_struct *p);
void sbridge_placement_fork(struct task_struct *parent, struct task_struct *child);
unsigned int sbridge_placement_steered(void);
int sbridge_pick_cpu(const struct cpumask *mask);
int sbridge_placement_counters(char *buf, int at);

/* ---- act_uclamp.c ---- */
int sbridge_uclamp_init(void);
void sbridge_uclamp_exit(void);
bool sbridge_uclamp_active(void);
const char *sbridge_uclamp_status(void);

/* ---- act_freq.c ---- */
int sbridge_freq_init(void);
void sbridge_freq_exit(void);
bool sbridge_freq_active(void);
const char *sbridge_freq_status(void);

/* ---- checker.c ---- */
int sbridge_checker_init(void);
void sbridge_checker_exit(void);
u32 sbridge_hints_in_force(void);
int sbridge_checker_dump(struct sk_buff *skb, struct netlink_callback *cb);
int sbridge_actuators_init(void);
void sbridge_actuators_exit(void);
extern struct kobj_attribute sbridge_actuators_attr;
extern struct kobj_attribute sbridge_checker_attr;
extern struct kobj_attribute sbridge_reports_attr;

/* A fair-class policy: the checker and actuators only look at CFS/EEVDF. */
#define sbridge_fair_policy(pol)					\
	((pol) == SCHED_NORMAL || (pol) == SCHED_BATCH || (pol) == SCHED_IDLE)

#endif /* _SBRIDGE_CORE_ACTUATORS_H */
