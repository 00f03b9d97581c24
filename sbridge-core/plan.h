/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decision layer's core as pure integer arithmetic, with no kernel
 * dependency (as model.h): the same plan.c is built into the module and
 * into the host tests (tests/unit/test_plan.c), whose simulator replays
 * task sets against it. policy.c collects the tasks and applies the plan.
 *
 * The objective (docs/policy.md): maximise the progress the tasks make,
 * each weighted by its speedup on the fast type, subject to a fairness
 * bound: no task progresses at less than @fair of the rate it would get
 * from an equal share of every core type. Fast-core time shares are set by
 * water-filling, fastest-gaining first; they are realised over time by a
 * per-task deficit (the target share minus the share it got lately): fast
 * slots go to the largest deficits, so equal tasks take turns and each
 * gets its share.
 *
 * Fixed point: SBRIDGE_FP_ONE (1024) == 1.0, a whole CPU or a whole share.
 */
#ifndef _SBRIDGE_CORE_PLAN_H
#define _SBRIDGE_CORE_PLAN_H

#include "model.h"

/* Busy share of its CPU from which a task counts as CPU-bound. */
#define SBRIDGE_PLAN_SATURATED	920
/* A holder keeps its fast slot until another's deficit is this much larger. */
#define SBRIDGE_PLAN_HOLD	(SBRIDGE_FP_ONE / 4)
/*
 * Speedups within 1/32 of each other (and within act.margin of their
 * errors) share fast time equally.
 */
#define SBRIDGE_PLAN_TIE_SHIFT	5
/* A task's fast share follows what it got with weight 1/2^this a decision. */
#define SBRIDGE_PLAN_GOT_SHIFT	4

/**
 * enum sbridge_plan_want - what a task may get
 * @SBRIDGE_PW_AUTO: by its speedup (wants fast from 1 + gain)
 * @SBRIDGE_PW_BIG: a rule's prefer=big: before any learned speedup
 * @SBRIDGE_PW_LITTLE: a rule's prefer=little: never fast
 * @SBRIDGE_PW_IDLE: SCHED_IDLE: fast only if the fast cores would idle
 */
enum sbridge_plan_want {
	SBRIDGE_PW_AUTO,
	SBRIDGE_PW_BIG,
	SBRIDGE_PW_LITTLE,
	SBRIDGE_PW_IDLE,
};

/**
 * struct sbridge_plan_task - one hot task in a plan
 * @s: its speedup of the fast type over the slow ones (fp); an estimate
 *	(@err > 0) below 1.0 is raised to 1.0 in place by the plan
 * @err: the standard error of @s (fp); 0 for a rule's or the user's factor
 * @busy: share of the CPU it runs on that it keeps busy (fp)
 * @weight: its nice weight (nice 0: 1024)
 * @got: the share of its time it ran on the fast type lately (fp)
 * @on_fast: it runs on a fast CPU now
 * @prev: the hint it had (enum sbridge_hint_type)
 * @want: enum sbridge_plan_want
 * @c: out: the CPU share it gets (fp of one CPU)
 * @floor: out: the fraction of its time (fp) it needs on the fast type to
 *	meet its fairness bound
 * @x: out: the fraction of its time (fp) the plan gives it on the fast type
 *	(as @got, not a share of a CPU)
 * @hint: out: enum sbridge_hint_type for this period
 * @why: out: SBRIDGE_WHY_* (actuators.h) of @hint
 *
 * A plain value in the planner's array: no locking.
 */
struct sbridge_plan_task {
	u32 s;
	u32 err;
	u32 busy;
	u32 weight;
	u32 got;
	u8 on_fast;
	u8 prev;
	u8 want;
	u32 c;
	u32 floor;
	u32 x;
	u8 hint;
	u8 why;
};

/**
 * struct sbridge_plan - one plan's board and settings, and its result
 * @nfast: fast cores (physical: SMT siblings count once)
 * @nslow: CPUs of the slower types
 * @fair: the fairness bound (fp): each task's progress at least this much
 *	of its equal-share rate
 * @gain: least speedup above 1.0 (fp) for a task to want the fast type
 * @margin: errors (fp, 1.0: one standard error of each) by which two
 *	speedups must differ for the plan to choose between their tasks;
 *	0 chooses on any difference
 * @want_fast: out: tasks that want the fast type
 * @on_fast: out: tasks given it this period
 * @fast_demand: out: what those tasks ask of the fast cores (fp of a CPU)
 * @target: out: sum of the target fast shares (fp of a CPU)
 *
 * A plain value: no locking.
 */
struct sbridge_plan {
	u32 nfast;
	u32 nslow;
	u32 fair;
	u32 gain;
	u32 margin;
	u32 want_fast;
	u32 on_fast;
	u32 fast_demand;
	u32 target;
};

/* Why a task got its hint (the sbridge_decide trace event's why=). */
#define SBRIDGE_WHY_GAIN	0	/* gains most: given the fast type */
#define SBRIDGE_WHY_HOLD	1	/* keeps its slot (hysteresis) */
#define SBRIDGE_WHY_RULE	2	/* a rule's prefer= decided */
#define SBRIDGE_WHY_FULL	3	/* kept slow: the fast type is full */
#define SBRIDGE_WHY_LOW		4	/* gains too little to want fast */
#define SBRIDGE_WHY_PINNED	5	/* its own mask keeps it on one kind */
#define SBRIDGE_WHY_IDLE	6	/* not hot: a sleeper keeping its hint */
#define SBRIDGE_WHY_ONE_TYPE	7	/* one kind of core: nothing to decide */
#define SBRIDGE_WHY_SELFTEST	8	/* checker.selftest stacks it */
#define SBRIDGE_WHY_TURN	9	/* its turn: owed fast time (fairness) */
#define SBRIDGE_WHY_FILL	10	/* fills a fast core that would idle */
#define SBRIDGE_WHY_SAMPLE	11	/* a sampling swap measures it */
#define SBRIDGE_WHY_TIE		12	/* not told apart: stock shares */

/* A task's rank beside a tie (struct sbridge_plan_scratch.rank). */
#define SBRIDGE_PLAN_TIED	1	/* in a level left to stock */
#define SBRIDGE_PLAN_ABOVE	2	/* told apart above the first tie */

/* Tasks one plan holds at most (the decision's). */
#define SBRIDGE_PLAN_MAX	64

/**
 * struct sbridge_plan_scratch - the planner's working space
 * @order: task indices being sorted
 * @key: sort keys
 * @dem: demands being shared out (sorted with @wgt)
 * @wgt: their nice weights
 * @cost: what a unit of each task's fast time takes of the fast CPUs (fp)
 * @rank: each task's place beside a tie: SBRIDGE_PLAN_ABOVE, _TIED or 0
 *
 * Owned by one caller at a time (the decision work): no locking.
 */
struct sbridge_plan_scratch {
	u8 order[SBRIDGE_PLAN_MAX];
	s64 key[SBRIDGE_PLAN_MAX];
	u32 dem[SBRIDGE_PLAN_MAX];
	u32 wgt[SBRIDGE_PLAN_MAX];
	u32 cost[SBRIDGE_PLAN_MAX];
	u8 rank[SBRIDGE_PLAN_MAX];
};

void sbridge_plan_solve(struct sbridge_plan *pl, struct sbridge_plan_task *t,
			unsigned int n, struct sbridge_plan_scratch *sc);
u32 sbridge_plan_got(u32 got, bool fast);
u32 sbridge_plan_fast_demand(const struct sbridge_plan_task *t);
bool sbridge_plan_ran_fast(u8 hint, u8 why, bool on_fast);
bool sbridge_plan_swap_holds(u8 visit, u8 who, int partner, bool tied);

#endif /* _SBRIDGE_CORE_PLAN_H */
