/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decision layer (policy.c), the actuators (the levers the unmodified
 * scheduler already honours, one ops table each, run by one work item in
 * actuators.c) and the work-conserving invariant checker of "The Linux
 * Scheduler: a Decade of Wasted Cores". Internal to sbridge_core.
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
/* The report's waiting task was steered by sbridge (placement yielded). */
#define SBRIDGE_HINT_CAUSED	BIT(8)
/* A fast CPU idled while a task that gains from it ran on a slow one. */
#define SBRIDGE_HINT_SLOWER	BIT(9)


/* Tasks one decision holds at most (the hottest first). */
#define SBRIDGE_DECISION_MAX	64

/*
 * Why a task got its hint (SBRIDGE_WHY_*, one word each in the
 * sbridge_decide trace event, docs/record-format.md): plan.h.
 */
#include "plan.h"

/**
 * struct sbridge_hint - what the decision layer wants for one task
 * @p: the task, referenced while the decision lives
 * @hint: enum sbridge_hint_type
 * @speedup: predicted or measured big/little speedup (fp)
 * @err: its standard error (fp)
 * @share: CPI_B share the model uses (fp)
 * @known: sbridge knows something of the task (a rule class or a learned
 *	phase): @share is not just the "nothing known" default
 * @busy: share of its CPU it keeps busy (0..1024)
 * @cpu: CPU it ran on when decided
 * @why: SBRIDGE_WHY_*: why it got @hint (the sbridge_decide trace event)
 * @target: the fraction of its time the plan gives it fast (fp)
 * @got: the fraction of its time it was given fast lately (fp)
 */
struct sbridge_hint {
	struct task_struct *p;
	u8 hint;
	u8 why;
	u32 speedup;
	u32 err;
	u32 share;
	bool known;
	u32 busy;
	u32 cpu;
	u32 target;
	u32 got;
};

/**
 * struct sbridge_decision - one period's decision (policy.c)
 * @n: entries in @task
 * @fast_type: the fast core type (the reference type k)
 * @nfast: active cores of the fast type (SMT siblings count once)
 * @nslow: active CPUs of the other types
 * @want_fast: tasks that gain from the fast type
 * @on_fast: tasks given the fast type (may exceed @nfast: sharing)
 * @load_fast: what the tasks given fast ask of a fast core (fp)
 * @load_slow: unused (0): the second version has no split
 * @why: one line on what was decided and why
 * @task: the hot runnable tasks and hinted sleepers, hottest first
 *
 * Built and read by the actuator work alone (actuators.c): no locking.
 */
struct sbridge_decision {
	unsigned int n;
	unsigned int fast_type;
	unsigned int nfast, nslow;
	unsigned int want_fast, on_fast;
	u32 load_fast, load_slow;
	char why[96];
	struct sbridge_hint task[SBRIDGE_DECISION_MAX];
};

/**
 * struct sbridge_actuator - one lever of the unmodified scheduler
 * @name: short name (status, logs)
 * @enabled: its act.* switch
 * @hint_bit: SBRIDGE_HINT_* bit reported while it holds a changed value
 * @init: allocate; no task touched yet (may be NULL)
 * @apply: act on this period's decision (process context, may sleep)
 * @restore: put back every value it changed (switched off, observe mode)
 * @exit: restore and free; the runner is stopped (may be NULL)
 * @fork: a task was forked (sched_process_fork: atomic, no sleeping;
 *	may be NULL)
 * @active: it holds some changed value now
 * @status: one status word
 *
 * Constant tables, one per act_*.c; actuators.c runs them in order.
 */
struct sbridge_actuator {
	const char *name;
	u32 *enabled;
	u32 hint_bit;
	int (*init)(void);
	void (*apply)(const struct sbridge_decision *d);
	void (*restore)(void);
	void (*exit)(void);
	void (*fork)(struct task_struct *parent, struct task_struct *child);
	bool (*active)(void);
	const char *(*status)(void);
};

extern const struct sbridge_actuator sbridge_act_capacity;
extern const struct sbridge_actuator sbridge_act_placement;
extern const struct sbridge_actuator sbridge_act_uclamp;
extern const struct sbridge_actuator sbridge_act_freq;

/* ---- actuators.c ---- */
int sbridge_actuators_init(void);
void sbridge_actuators_stop(void);
void sbridge_actuators_exit(void);
void sbridge_actuators_fork(struct task_struct *parent,
			    struct task_struct *child);
u32 sbridge_hints_in_force(void);
const char *sbridge_actuators_mode(char *buf, size_t len);
const struct sbridge_actuator *sbridge_actuator_at(unsigned int i);

/* ---- policy.c ---- */
int sbridge_policy_init(void);
void sbridge_policy_exit(void);
int sbridge_policy_decide(struct sbridge_decision *d);
void sbridge_policy_put(struct sbridge_decision *d);
u32 sbridge_policy_speedup(struct task_struct *p);
u64 sbridge_policy_swaps(void);
void sbridge_actuators_kick(void);
void sbridge_actuators_counts(u64 *runs, u64 *kicks);

/* ---- act_placement.c ---- */
bool sbridge_placement_user_mask(struct task_struct *p, struct cpumask *mask);
void sbridge_placement_yield(struct task_struct *p);

/**
 * struct sbridge_placement_counts - placement's counters since load
 * @steered: tasks steered now
 * @steers: times a task was steered
 * @releases: steered tasks handed back
 * @user_wins: steered tasks whose user changed the affinity
 * @yields: tasks released for the checker
 * @inherits: children that took their parent's steering
 * @inherit_lost: children whose steering could not be recorded
 * @swept: children found by a scan of every thread (fork hook without
 *	an entry to spare, unload)
 * @fallbacks: steered tasks the kernel's hotplug fallback widened, given
 *	their own mask back
 * @refused: releases the kernel refused (each retried)
 */
struct sbridge_placement_counts {
	u32 steered;
	u64 steers, releases, user_wins, yields, inherits, inherit_lost, swept;
	u64 fallbacks, refused;
};
void sbridge_placement_read_counts(struct sbridge_placement_counts *c);

/* ---- act_uclamp.c ---- */
struct sbridge_ledger_counts;
void sbridge_uclamp_read_counts(struct sbridge_ledger_counts *c);

/* ---- checker.c ---- */
int sbridge_checker_init(void);
void sbridge_checker_exit(void);
int sbridge_checker_dump(struct sk_buff *skb, struct netlink_callback *cb,
			 const struct genl_family *family);

/* The checker's ring of reports; sysfs shows the newest that fit a page. */
#define SBRIDGE_REPORTS		64
#define SBRIDGE_REPORTS_SHOWN	32

/**
 * struct sbridge_report - one confirmed violation
 * @time_ns: CLOCK_MONOTONIC when it was confirmed
 * @idle_cpu: the CPU left idle
 * @busy_cpu: the CPU with waiting work
 * @nr_waiting: tasks waiting on @busy_cpu
 * @hints: SBRIDGE_HINT_* in force (and SBRIDGE_HINT_CAUSED)
 */
struct sbridge_report {
	u64 time_ns;
	u32 idle_cpu;
	u32 busy_cpu;
	u32 nr_waiting;
	u32 hints;
};

/**
 * struct sbridge_checker_counts - the checker's counters since load
 * @checks: passes
 * @candidates: violations seen once
 * @transient: candidates gone when looked at again
 * @reports: violations confirmed and reported
 * @unavoidable: passes that saw only violations pinning makes unavoidable
 * @yields: tasks placement released on the checker's behalf
 */
struct sbridge_checker_counts {
	u64 checks, candidates, transient, reports, unavoidable, yields;
};
void sbridge_checker_read_counts(struct sbridge_checker_counts *c);
bool sbridge_checker_get_report(u64 seq, struct sbridge_report *r, u64 *end);

/* A fair-class policy: the checker and actuators only look at CFS/EEVDF. */
#define sbridge_fair_policy(pol)					\
	((pol) == SCHED_NORMAL || (pol) == SCHED_BATCH || (pol) == SCHED_IDLE)

#endif /* _SBRIDGE_CORE_ACTUATORS_H */
