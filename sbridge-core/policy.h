/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decision layer (policy.c): what each hot task should get this
 * period, and why. The actuator runner (actuators.c) asks for a decision
 * and hands it to the actuators; the checker asks for a task's speedup.
 * Policy calls neither: the runner hands it the placement actuator's
 * record of a task's own CPUs. Internal to sbridge_core.
 */
#ifndef _SBRIDGE_CORE_POLICY_H
#define _SBRIDGE_CORE_POLICY_H

#include <linux/types.h>
#include <linux/sched.h>

/*
 * Why a task got its hint (SBRIDGE_WHY_*, one word each in the
 * sbridge_decide trace event, docs/record-format.md): plan.h.
 */
#include "plan.h"

struct task_struct;
struct cpumask;

/* Tasks one decision holds at most (the hottest first). */
#define SBRIDGE_DECISION_MAX	64

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
 * @tied: tasks left to the stock scheduler as a tie (act.margin)
 * @load_fast: what the tasks given fast ask of a fast core (fp)
 * @load_slow: unused (0): the second version has no split
 * @why: one line on what was decided and why
 * @run_busy: in: take a task's busy share from its run time since fork,
 *	not from PELT (a BPF scheduler runs the tasks: the kernel updates no
 *	PELT for tasks sched_ext runs); set by the runner
 * @task: the hot runnable tasks and hinted sleepers, hottest first
 *
 * Built and read by the actuator work alone (actuators.c): no locking.
 */
struct sbridge_decision {
	unsigned int n;
	unsigned int fast_type;
	unsigned int nfast, nslow;
	unsigned int want_fast, on_fast, tied;
	u32 load_fast, load_slow;
	char why[96];
	bool run_busy;
	struct sbridge_hint task[SBRIDGE_DECISION_MAX];
};

/*
 * A task's own CPUs, not the mask an actuator narrowed it to: true and
 * @mask filled if an actuator holds @p's affinity now (the runner's
 * sbridge_actuators_user_mask()).
 */
typedef bool (*sbridge_user_mask_fn)(struct task_struct *p, struct cpumask *mask);

int sbridge_policy_init(void);
void sbridge_policy_exit(void);
int sbridge_policy_decide(struct sbridge_decision *d, sbridge_user_mask_fn own);
void sbridge_policy_put(struct sbridge_decision *d);
u32 sbridge_policy_speedup(struct task_struct *p);
u64 sbridge_policy_swaps(void);

/* A fair-class policy: the checker and actuators only look at CFS/EEVDF. */
#define sbridge_fair_policy(pol)					\
	((pol) == SCHED_NORMAL || (pol) == SCHED_BATCH || (pol) == SCHED_IDLE)

#endif /* _SBRIDGE_CORE_POLICY_H */
