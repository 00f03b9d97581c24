// SPDX-License-Identifier: GPL-2.0
/*
 * The decision layer, second version (docs/policy.md): which hot task runs
 * on the fast core type, this period and on average.
 *
 * The objective is stated in plan.c, which solves it: maximise the work
 * the tasks get done, each weighted by its speedup on the fast type,
 * subject to a fairness bound (every task progresses at least act.fair of
 * the rate an equal share of every core type would give it). Targets of
 * fast time come from water-filling; each period's fast places go to the
 * tasks owed most of their target. This file collects the tasks (the hot
 * runnable ones, their speedup estimates, how busy, their nice weight, the
 * fast share they got lately), groups them by the CPUs they may use (a
 * cpuset or an affinity mask is a board of its own), asks plan.c, runs
 * the sampling swaps that measure what the estimates leave uncertain, and
 * writes the hints the actuators apply. It runs from the actuator work
 * every act.period_ms and sooner when a fast core goes idle while a task
 * that wants it waits on a slow one (sample.c notices, actuators.c kicks).
 *
 * Rules come first: prefer=big before any learned speedup, prefer=little
 * never fast, exclude never touched. A task whose own mask does not reach
 * both kinds of core is left alone (its load still counts where it runs).
 * SMT siblings of the fast type count as one fast core; SCHED_IDLE tasks
 * get fast time only where it would idle; nice weights set CPU shares.
 * The fast type is the reference type; the slower types together are the
 * slow side (a middle type of a three-tier board shares the slow side's
 * masks, where the stock scheduler places it by capacity).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/topology.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "policy.h"
#include "plan.h"
/* layer 4's trace events are defined here, with the decision they trace */
#define CREATE_TRACE_POINTS
#include "trace_act.h"

/* Boards of their own one decision plans at most (distinct reachable masks). */
#define SBRIDGE_POLICY_GROUPS	4
/* A sampling swap ends after this many warm windows on the visited type ... */
#define SBRIDGE_SWAP_WINDOWS	4
/* ... or after this many periods at most. */
#define SBRIDGE_SWAP_PERIODS	5
/* A swap is worth it when the estimate's error is above this (fp, 10 %). */
#define SBRIDGE_SWAP_ERR	(SBRIDGE_FP_ONE / 10)
/* The swap budget's memory halves every this many ms. */
#define SBRIDGE_SWAP_HALF_MS	30000

/**
 * struct sbridge_pcand - decision scratch for one collected task
 * @t: its entry (valid inside the RCU section of the decision)
 * @prev: hint it had before this decision
 * @kind: what it can be: planned, sleeper, pinned (its own mask keeps it
 *	on one kind of core)
 * @group: the board (reachable CPUs) it is planned on
 * @err: the standard error of its speedup estimate (fp)
 * @src: where the estimate comes from (enum sbridge_est_src)
 *
 * Owned by the decision work (one at a time): no locking.
 */
struct sbridge_pcand {
	struct sbridge_task *t;
	u8 prev;
	u8 kind;
	u8 group;
	u8 src;
	u32 err;
};

enum { SBRIDGE_PC_PLAN, SBRIDGE_PC_SLEEPER, SBRIDGE_PC_PINNED };

/**
 * struct sbridge_pgroup - one board of the decision: tasks that may use
 *	the same CPUs
 * @mask: those CPUs (active ones)
 * @nfast: fast cores among them (physical: SMT siblings count once)
 * @nslow: slow CPUs among them
 * @n: tasks planned on it
 * @idx: their indices in the decision
 *
 * Decision scratch: no locking.
 */
struct sbridge_pgroup {
	cpumask_var_t mask;
	u32 nfast, nslow;
	unsigned int n;
	u8 idx[SBRIDGE_DECISION_MAX];
};

/**
 * struct sbridge_swap - the one sampling swap under way
 * @who: the task measured on the other kind of core (a reference held)
 * @partner: the task it swaps places with (a reference held), or NULL
 * @who_hint: the hint @who has during the swap
 * @tied: @partner was a tie when the swap began: it holds its place by
 *	the stock scheduler, not by the plan
 * @who_type: the core type @who visits
 * @who_warm: its warm windows there when the swap began
 * @partner_type: the core type @partner visits
 * @partner_warm: its warm windows there when the swap began
 * @periods: decisions the swap has lasted
 * @swaps: swaps since load
 * @spent_ms: fast time given to swaps lately (decaying)
 * @fast_ms: fast time there was lately (decaying)
 * @last: jiffies of the last decision
 *
 * Owned by the decision work (one at a time): no locking.
 */
struct sbridge_swap {
	struct task_struct *who, *partner;
	u8 who_hint;
	bool tied;
	u8 who_type, partner_type;
	u8 who_warm, partner_warm;
	u32 periods;
	u64 swaps;
	u64 spent_ms, fast_ms;
	unsigned long last;
};

static struct sbridge_pcand sbridge_pc[SBRIDGE_DECISION_MAX];
static struct sbridge_plan_task sbridge_pt[SBRIDGE_DECISION_MAX];
static struct sbridge_plan_task sbridge_pt_one[SBRIDGE_DECISION_MAX];
static struct sbridge_plan_scratch sbridge_psc;
static struct sbridge_pgroup sbridge_pg[SBRIDGE_POLICY_GROUPS];
static struct sbridge_swap sbridge_swp;
static cpumask_var_t sbridge_policy_tmp;
/* The runner's record of a task's own CPUs, for the decision under way. */
static sbridge_user_mask_fn sbridge_policy_user_mask;

/**
 * sbridge_policy_speedup() - the speedup the decision layer uses for @p
 * @p: task, under RCU
 *
 * Context: any, under rcu_read_lock().
 * Return: fixed-point speedup of the fast over the slowest type, 1.0 if
 *	@p is untracked or there is one core type.
 */
u32 sbridge_policy_speedup(struct task_struct *p)
{
	struct sbridge_task *t = sbridge_task_lookup(p);

	if (!t || sbridge_topo.ntypes < 2)
		return SBRIDGE_FP_ONE;
	return sbridge_task_speedup(t, NULL, NULL);
}

/*
 * Share of its CPU @p wants, 0..1024: the time it ran (util_avg) or was
 * runnable (runnable_avg), whichever is more. Two compute-bound tasks
 * sharing one CPU each run half the time but each wants all of it.
 */
static u32 sbridge_policy_busy(struct task_struct *p)
{
	unsigned long cap = sbridge_cpu_capacity(task_cpu(p));
	u64 util = max(READ_ONCE(p->se.avg.util_avg),
		       READ_ONCE(p->se.avg.runnable_avg));

	if (!cap)
		cap = SCHED_CAPACITY_SCALE;
	return min_t(u64, div64_u64(util << SCHED_CAPACITY_SHIFT, cap),
		     SCHED_CAPACITY_SCALE);
}

/*
 * Share of its life @p ran, 0..1024, from its sum_exec_runtime, which
 * every scheduling class keeps: sched_ext keeps no PELT for the tasks it
 * runs. An average since fork, not a recent share (the task entry has no
 * room for a mark per walk): a long-lived task that turns busy gains it
 * slowly.
 */
static u32 sbridge_policy_run_busy(struct task_struct *p)
{
	u64 age = ktime_get_ns() - p->start_time;

	if (!age)
		return 0;
	return min_t(u64, div64_u64(READ_ONCE(p->se.sum_exec_runtime) << SCHED_CAPACITY_SHIFT,
				    age), SCHED_CAPACITY_SCALE);
}

/* @p's own CPUs (not the mask sbridge set), the active ones, into @tmp. */
static void sbridge_policy_own(struct task_struct *p, struct cpumask *tmp)
{
	if (!sbridge_policy_user_mask(p, tmp))
		cpumask_copy(tmp, &p->cpus_mask);
	cpumask_and(tmp, tmp, cpu_active_mask);
}

/* Can @p run on both kinds of core? */
static bool sbridge_policy_reach(const struct cpumask *own, unsigned int fast)
{
	return cpumask_intersects(own, &sbridge_topo.type_mask[fast]) &&
	       !cpumask_subset(own, &sbridge_topo.type_mask[fast]);
}

/* Fast cores of @mask: a core's SMT siblings count once. */
static u32 sbridge_policy_cores(const struct cpumask *mask, unsigned int fast)
{
	u32 n = 0;
	int cpu;

	for_each_cpu_and(cpu, mask, &sbridge_topo.type_mask[fast])
		if (cpu == cpumask_first_and(topology_sibling_cpumask(cpu), mask))
			n++;
	return n;
}

/* The board @p plans on: its reachable CPUs'; -1 if all boards are taken. */
static int sbridge_policy_group(const struct cpumask *own, unsigned int fast)
{
	unsigned int g;

	for (g = 0; g < SBRIDGE_POLICY_GROUPS; g++) {
		struct sbridge_pgroup *pg = &sbridge_pg[g];

		if (pg->nfast + pg->nslow && cpumask_equal(pg->mask, own))
			return g;
		if (pg->nfast + pg->nslow)
			continue;
		cpumask_copy(pg->mask, own);
		pg->nfast = sbridge_policy_cores(own, fast);
		pg->nslow = cpumask_weight(own) -
			    cpumask_weight_and(own, &sbridge_topo.type_mask[fast]);
		pg->n = 0;
		return g;
	}
	return -1;
}

static void sbridge_policy_clear(struct sbridge_task *t)
{
	if (READ_ONCE(t->hint) != SBRIDGE_HINT_NONE)
		WRITE_ONCE(t->hint, SBRIDGE_HINT_NONE);
	if (READ_ONCE(t->got) != SBRIDGE_GOT_NONE)
		WRITE_ONCE(t->got, SBRIDGE_GOT_NONE);
}

/* @p has run @min_run ns of CPU since its exec (or its fork). */
static bool sbridge_policy_settled(struct task_struct *p,
				   const struct sbridge_task *t, u64 min_run)
{
	u64 at = (u64)READ_ONCE(t->exec_run) << SBRIDGE_EXEC_RUN_SHIFT;

	return READ_ONCE(p->se.sum_exec_runtime) >= at + min_run;
}

/*
 * act.model 0: every task gets the fast/slowest capacity ratio as its
 * speedup, so load alone decides. The evaluation's ablation.
 */
static u32 sbridge_policy_flat(const struct sbridge_decision *d)
{
	u32 slow = READ_ONCE(sbridge_topo.type_capacity[0]);

	if (!slow)
		return SBRIDGE_FP_ONE;
	return div_u64((u64)READ_ONCE(sbridge_topo.type_capacity[d->fast_type]) <<
		       SBRIDGE_FP_SHIFT, slow);
}

/* What a task may get, from its rule and its scheduling policy. */
static u8 sbridge_policy_want(struct task_struct *p, const struct sbridge_task *t)
{
	switch (READ_ONCE(t->pref)) {
	case SBRIDGE_PREF_BIG:
		return SBRIDGE_PW_BIG;
	case SBRIDGE_PREF_LITTLE:
		return SBRIDGE_PW_LITTLE;
	}
	return p->policy == SCHED_IDLE ? SBRIDGE_PW_IDLE : SBRIDGE_PW_AUTO;
}

/*
 * @v, a speedup (or its error) at the types' maximum clocks, at the clocks
 * their busy work can reach now (sbridge_type_reach(): a capped or held
 * cluster): the compute part, @share of the time on the fast type, scales
 * with the clock ratio, stalls on memory do not.
 */
static u32 sbridge_policy_at_clocks(u32 v, unsigned int fast, u32 share)
{
	u64 q = div_u64((u64)sbridge_type_reach(fast) << SBRIDGE_FP_SHIFT,
			max_t(u32, sbridge_type_reach(0), 1));
	s64 f;

	if (q == SBRIDGE_FP_ONE)
		return v;
	f = SBRIDGE_FP_ONE + ((((s64)q - SBRIDGE_FP_ONE) *
			       min_t(u32, share, SBRIDGE_FP_ONE)) >> SBRIDGE_FP_SHIFT);
	return (u32)clamp_t(s64, ((s64)v * f) >> SBRIDGE_FP_SHIFT, 0,
			    SBRIDGE_FACTOR_MAX);
}

/* Fills the plan task and the hint of collected task @i. */
static void sbridge_policy_fill(struct sbridge_decision *d, unsigned int i,
				struct task_struct *p, struct sbridge_task *t,
				u32 busy, u32 flat)
{
	struct sbridge_hint *h = &d->task[i];
	struct sbridge_plan_task *pt = &sbridge_pt[i];
	struct sbridge_task_est e;

	sbridge_task_estimate(t, d->fast_type, 0, &e);
	h->share = sbridge_task_share(t);
	/* the estimate is at full clocks: the decision is for these ones */
	h->speedup = flat ?: max_t(u32, sbridge_policy_at_clocks(e.est.val,
					d->fast_type, h->share), SBRIDGE_FACTOR_MIN);
	h->err = flat ? 0 : sbridge_policy_at_clocks(e.est.err, d->fast_type,
						     h->share);
	h->known = READ_ONCE(t->class) != SBRIDGE_CLASS_AUTO ||
		   READ_ONCE(t->est.ph.nphases);
	h->busy = busy;
	h->cpu = task_cpu(p);
	h->got = READ_ONCE(t->got);
	/*
	 * No history yet (new, or back from a sleep or a quiet spell): it
	 * starts from an even mix of the core types, not from a starved 0,
	 * which would owe it a fairness turn the moment it turns hot
	 */
	if (h->got == SBRIDGE_GOT_NONE)
		h->got = d->nfast + d->nslow ?
			 (u32)div_u64((u64)d->nfast << SBRIDGE_FP_SHIFT, d->nfast + d->nslow) : 0;
	h->target = 0;
	sbridge_pc[i].err = h->err;
	sbridge_pc[i].src = e.src;
	memset(pt, 0, sizeof(*pt));
	pt->s = h->speedup;
	/* a rule's or the user's factor is no estimate: it has no error */
	pt->err = e.src == SBRIDGE_SRC_RULE || e.src == SBRIDGE_SRC_OVERRIDE ? 0 : h->err;
	pt->busy = busy;
	pt->weight = sbridge_task_weight(p);
	pt->got = h->got;
	pt->on_fast = cpumask_test_cpu(h->cpu, &sbridge_topo.type_mask[d->fast_type]);
	pt->prev = READ_ONCE(t->hint);
	pt->want = sbridge_policy_want(p, t);
}

/* How much a collected task matters: runnable ones before sleepers, then busy. */
static u32 sbridge_policy_rank(u8 kind, u32 busy)
{
	return (kind == SBRIDGE_PC_SLEEPER ? 0 : SCHED_CAPACITY_SCALE + 1) + busy;
}

/*
 * @d is full: make room for a task of rank @rank by dropping the entry of
 * lowest rank below it (its reference, its hint, its place in its
 * board). Return: the freed index, or SBRIDGE_DECISION_MAX if every
 * entry ranks at least @rank.
 */
static unsigned int sbridge_policy_evict(struct sbridge_decision *d, u32 rank, bool plan)
{
	unsigned int i, j, low = SBRIDGE_DECISION_MAX;
	u32 r, low_rank = rank;
	struct sbridge_pgroup *pg;

	for (i = 0; i < d->n; i++) {
		r = sbridge_policy_rank(sbridge_pc[i].kind, d->task[i].busy);
		if (r < low_rank) {
			low_rank = r;
			low = i;
		}
	}
	if (low >= SBRIDGE_DECISION_MAX)
		return low;
	if (sbridge_pc[low].kind == SBRIDGE_PC_PLAN && plan) {
		pg = &sbridge_pg[sbridge_pc[low].group];
		for (j = 0; j < pg->n; j++)
			if (pg->idx[j] == low) {
				pg->idx[j] = pg->idx[--pg->n];
				break;
			}
	}
	sbridge_policy_clear(sbridge_pc[low].t);
	put_task_struct(d->task[low].p);
	d->task[low].p = NULL;
	return low;
}

/*
 * Adds the hot runnable tasks (and hinted short sleepers) to @d; past
 * SBRIDGE_DECISION_MAX the busiest runnable ones stay, whatever their
 * place in the task list.
 */
static void sbridge_policy_collect(struct sbridge_decision *d, bool plan)
{
	u32 up = READ_ONCE(sbridge_act_params.up_util);
	u32 down = READ_ONCE(sbridge_act_params.down_util);
	unsigned long hold = msecs_to_jiffies(READ_ONCE(sbridge_act_params.hold_ms));
	u64 min_run = (u64)READ_ONCE(sbridge_act_params.period_ms) * NSEC_PER_MSEC;
	u32 busy, flat = READ_ONCE(sbridge_act_params.model) ? 0 :
			 sbridge_policy_flat(d);
	struct task_struct *g, *p;
	struct sbridge_task *t;
	bool hinted, runnable, hot;
	unsigned int i;
	int grp;
	u8 kind;

	for_each_process_thread(g, p) {
		t = sbridge_task_lookup(p);
		if (!t)
			continue;
		hinted = READ_ONCE(t->hint) != SBRIDGE_HINT_NONE;
		if ((p->flags & (PF_KTHREAD | PF_EXITING | PF_NO_SETAFFINITY)) ||
		    !sbridge_fair_policy(p->policy) ||
		    READ_ONCE(t->pref) == SBRIDGE_PREF_EXCLUDE) {
			sbridge_policy_clear(t);
			continue;
		}
		runnable = sbridge_task_runnable(p);
		busy = d->run_busy ? sbridge_policy_run_busy(p) : sbridge_policy_busy(p);
		/*
		 * A new task's util_avg is the kernel's guess from its
		 * parent's CPU, not its own load: it is hot only once it has
		 * run for a period since its exec (its start-up, which the
		 * estimator keeps apart too).
		 */
		hot = runnable && (busy >= up || (hinted && busy >= down)) &&
		      sbridge_policy_settled(p, t, min_run);
		grp = 0;
		if (hot) {
			kind = SBRIDGE_PC_PLAN;
			if (plan) {
				sbridge_policy_own(p, sbridge_policy_tmp);
				grp = sbridge_policy_reach(sbridge_policy_tmp, d->fast_type) ?
				      sbridge_policy_group(sbridge_policy_tmp, d->fast_type) :
				      -1;
				if (grp < 0)
					kind = SBRIDGE_PC_PINNED;
			}
		} else if (hinted && !runnable &&
			   READ_ONCE(t->hint) != SBRIDGE_HINT_FAST &&
			   (u16)((u16)jiffies - READ_ONCE(t->hint_at)) < hold) {
			/*
			 * A slow hint is kept through a sleep: it keeps the
			 * task off the fast cores, which costs no one. A fast
			 * one is not: the sleeper's place is not planned, so
			 * another task gets it, and each wakeup of the
			 * sleeper, pinned there with its sleep's credit,
			 * preempts that task.
			 */
			kind = SBRIDGE_PC_SLEEPER;
		} else {
			sbridge_policy_clear(t);
			continue;
		}
		i = d->n < SBRIDGE_DECISION_MAX ? d->n :
		    sbridge_policy_evict(d, sbridge_policy_rank(kind, busy), plan);
		if (i >= SBRIDGE_DECISION_MAX) {
			sbridge_policy_clear(t);
			continue;
		}
		get_task_struct(p);
		d->task[i].p = p;
		sbridge_pc[i].t = t;
		sbridge_pc[i].prev = READ_ONCE(t->hint);
		sbridge_pc[i].kind = kind;
		sbridge_pc[i].group = grp < 0 ? 0 : grp;
		sbridge_policy_fill(d, i, p, t, busy, flat);
		d->task[i].hint = kind == SBRIDGE_PC_SLEEPER ? READ_ONCE(t->hint) :
				  SBRIDGE_HINT_NONE;
		d->task[i].why = kind == SBRIDGE_PC_SLEEPER ? SBRIDGE_WHY_IDLE :
				 kind == SBRIDGE_PC_PINNED ? SBRIDGE_WHY_PINNED :
				 SBRIDGE_WHY_LOW;
		if (kind == SBRIDGE_PC_PLAN && plan)
			sbridge_pg[grp].idx[sbridge_pg[grp].n++] = i;
		if (i == d->n)
			d->n++;
	}
}

/* Plans each board and writes its tasks' hints into @d. */
static void sbridge_policy_plan(struct sbridge_decision *d)
{
	u32 fair = READ_ONCE(sbridge_act_params.fair);
	u32 gain = READ_ONCE(sbridge_act_params.gain);
	u32 margin = READ_ONCE(sbridge_act_params.margin);
	u64 fast_demand = 0;
	unsigned int g, i;

	for (g = 0; g < SBRIDGE_POLICY_GROUPS; g++) {
		struct sbridge_pgroup *pg = &sbridge_pg[g];
		struct sbridge_plan pl = {
			.nfast = pg->nfast,
			.nslow = pg->nslow,
			.fair = fair,
			.gain = gain,
			.margin = margin,
		};

		if (!pg->n || !pg->nfast || !pg->nslow)
			continue;
		for (i = 0; i < pg->n; i++)
			sbridge_pt_one[i] = sbridge_pt[pg->idx[i]];
		sbridge_plan_solve(&pl, sbridge_pt_one, pg->n, &sbridge_psc);
		for (i = 0; i < pg->n; i++) {
			struct sbridge_hint *h = &d->task[pg->idx[i]];

			sbridge_pt[pg->idx[i]] = sbridge_pt_one[i];
			h->hint = sbridge_pt_one[i].hint;
			h->why = sbridge_pt_one[i].why;
			h->target = sbridge_pt_one[i].x;
		}
		d->want_fast += pl.want_fast;
		d->on_fast += pl.on_fast;
		fast_demand += pl.fast_demand;
	}
	d->load_fast = (u32)min_t(u64, div_u64(fast_demand, max(d->nfast, 1U)), U32_MAX);
}

/* ---- sampling swaps: measure what the estimates leave uncertain ---- */

static void sbridge_swap_end(void)
{
	if (sbridge_swp.who)
		put_task_struct(sbridge_swp.who);
	if (sbridge_swp.partner)
		put_task_struct(sbridge_swp.partner);
	sbridge_swp.who = NULL;
	sbridge_swp.partner = NULL;
}

/* The collected index of @p in @d, or -1. */
static int sbridge_swap_find(const struct sbridge_decision *d,
			     const struct task_struct *p)
{
	unsigned int i;

	for (i = 0; p && i < d->n; i++)
		if (d->task[i].p == p && sbridge_pc[i].kind == SBRIDGE_PC_PLAN)
			return i;
	return -1;
}

/* Warm windows task @i of @d has on @type. */
static u8 sbridge_swap_warm(unsigned int i, unsigned int type)
{
	return READ_ONCE(sbridge_pc[i].t->est.warm_n[type]);
}

/*
 * Is the task worth a swap? Its estimate is uncertain and the decision
 * depends on it: given slow, it could be better than the worst holder of
 * a fast place; given fast, worse than the best waiting one.
 */
static bool sbridge_swap_worth(const struct sbridge_decision *d, unsigned int i,
			       u32 fast_min, u32 slow_max)
{
	const struct sbridge_hint *h = &d->task[i];
	u64 rel = div_u64((u64)h->err << SBRIDGE_FP_SHIFT, max(h->speedup, 1U));

	/*
	 * a rule's or the user's factor is no estimate to measure; a task
	 * with no warm stay yet on either kind (nothing counted: the whole
	 * range as its error) is measured where it runs first
	 */
	if (sbridge_pc[i].kind != SBRIDGE_PC_PLAN || rel < SBRIDGE_SWAP_ERR ||
	    !(READ_ONCE(sbridge_pc[i].t->est.visits[d->fast_type]) |
	      READ_ONCE(sbridge_pc[i].t->est.visits[0])) ||
	    sbridge_pt[i].want != SBRIDGE_PW_AUTO ||
	    sbridge_pc[i].src == SBRIDGE_SRC_RULE ||
	    sbridge_pc[i].src == SBRIDGE_SRC_OVERRIDE)
		return false;
	/* a tie: only a measurement can tell its tasks apart */
	if (h->hint == SBRIDGE_HINT_NONE)
		return h->why == SBRIDGE_WHY_TIE;
	if (h->hint == SBRIDGE_HINT_SLOW)
		return (u64)h->speedup + 2 * h->err >= fast_min;
	return h->speedup <= slow_max + 2 * (u64)h->err;
}

/* Swap places: @who gets @hint, @partner (if any) the other one. */
static void sbridge_swap_apply(struct sbridge_decision *d, int who, int partner,
			       u8 hint)
{
	d->task[who].hint = hint;
	d->task[who].why = SBRIDGE_WHY_SAMPLE;
	if (partner >= 0) {
		d->task[partner].hint = hint == SBRIDGE_HINT_FAST ? SBRIDGE_HINT_SLOW :
					SBRIDGE_HINT_FAST;
		d->task[partner].why = SBRIDGE_WHY_SAMPLE;
	}
}

/*
 * A swap that measured what it was for sends its tasks back: big-little-
 * big, the holder's time on either side brackets the visit. The plan
 * places a task it tells apart itself; a tie it leaves where the stock
 * scheduler has it, which after a visit to a fast core is that core:
 * without this, the sampled task (the most uncertain, often the most
 * memory-bound, which gains least) kept the fast CPU it visited and the
 * holder the slow one it was sent to (eval 1b3s 4d832f0: stress-stream,
 * 1.59 alone, ran 84 % of its time on the big CPU after one visit). One
 * period of the old hints moves them; the tie keeps them there.
 */
static void sbridge_swap_back(struct sbridge_decision *d, int who, int partner)
{
	u8 home = sbridge_swp.who_hint == SBRIDGE_HINT_FAST ? SBRIDGE_HINT_SLOW :
		  SBRIDGE_HINT_FAST;

	if (d->task[who].hint != SBRIDGE_HINT_NONE)
		return;
	d->task[who].hint = home;
	d->task[who].why = SBRIDGE_WHY_SAMPLE;
	if (partner >= 0 && d->task[partner].hint == SBRIDGE_HINT_NONE) {
		d->task[partner].hint = sbridge_swp.who_hint;
		d->task[partner].why = SBRIDGE_WHY_SAMPLE;
	}
}

/*
 * One decision's part of the sampling swaps (act.sample_pct of the fast
 * time at most): go on with the one under way until both tasks have
 * SBRIDGE_SWAP_WINDOWS warm windows on the type they visit (or the swap
 * ran SBRIDGE_SWAP_PERIODS), else start one for the task whose uncertain
 * estimate matters most (its error times how busy it is; a tied task
 * visits the kind it is not on), paired with the most uncertain holder of
 * the place it visits (planned there, or tied and there). Both go back
 * after (big-little-big, sbridge_swap_back()). A swap a later plan has
 * made no swap ends at once
 * (sbridge_plan_swap_holds(): a fast place would idle). Never in
 * start-up (only hot, settled tasks are planned).
 */
static void sbridge_policy_swap(struct sbridge_decision *d, unsigned long now)
{
	u32 pct = READ_ONCE(sbridge_act_params.sample_pct), fast_min = U32_MAX;
	u32 slow_max = 0, best = 0, elapsed, v;
	u8 visit;
	unsigned int fast = d->fast_type, i;
	int who, partner = -1;

	elapsed = jiffies_to_msecs(now - sbridge_swp.last);
	sbridge_swp.last = now;
	if (elapsed > SBRIDGE_SWAP_HALF_MS)
		elapsed = SBRIDGE_SWAP_HALF_MS;
	sbridge_swp.fast_ms += (u64)elapsed * d->nfast;
	if (sbridge_swp.fast_ms > 2ULL * SBRIDGE_SWAP_HALF_MS * max(d->nfast, 1U)) {
		sbridge_swp.fast_ms /= 2;
		sbridge_swp.spent_ms /= 2;
	}
	if (sbridge_swp.who) {
		sbridge_swp.spent_ms += elapsed;
		who = sbridge_swap_find(d, sbridge_swp.who);
		partner = sbridge_swap_find(d, sbridge_swp.partner);
		if (who < 0 || (sbridge_swp.partner && partner < 0) ||
		    !sbridge_plan_swap_holds(sbridge_swp.who_hint, d->task[who].hint,
					     partner >= 0 ? d->task[partner].hint : -1,
					     sbridge_swp.tied)) {
			sbridge_swap_end();
			return;
		}
		if (++sbridge_swp.periods > SBRIDGE_SWAP_PERIODS ||
		    ((u8)(sbridge_swap_warm(who, sbridge_swp.who_type) -
			  sbridge_swp.who_warm) >= SBRIDGE_SWAP_WINDOWS &&
		     (partner < 0 ||
		      (u8)(sbridge_swap_warm(partner, sbridge_swp.partner_type) -
			   sbridge_swp.partner_warm) >= SBRIDGE_SWAP_WINDOWS))) {
			sbridge_swap_back(d, who, partner);
			sbridge_swap_end();
			return;
		}
		sbridge_swap_apply(d, who, partner, sbridge_swp.who_hint);
		return;
	}
	if (!pct || !READ_ONCE(sbridge_params.learn_measured) ||
	    sbridge_swp.spent_ms * 100 > sbridge_swp.fast_ms * pct)
		return;
	for (i = 0; i < d->n; i++) {
		if (sbridge_pc[i].kind != SBRIDGE_PC_PLAN)
			continue;
		if (d->task[i].hint == SBRIDGE_HINT_FAST)
			fast_min = min(fast_min, d->task[i].speedup);
		else if (d->task[i].hint == SBRIDGE_HINT_SLOW)
			slow_max = max(slow_max, d->task[i].speedup);
	}
	who = -1;
	for (i = 0; i < d->n; i++) {
		if (!sbridge_swap_worth(d, i, fast_min, slow_max))
			continue;
		v = (u32)min_t(u64, div_u64((u64)d->task[i].err * d->task[i].busy,
					    max(d->task[i].speedup, 1U)), U32_MAX);
		if (v > best) {
			best = v;
			who = i;
		}
	}
	if (who < 0)
		return;
	/* it visits the other kind of core: a tie the one it is not on now */
	visit = d->task[who].hint == SBRIDGE_HINT_FAST ||
		(d->task[who].hint == SBRIDGE_HINT_NONE && sbridge_pt[who].on_fast) ?
		SBRIDGE_HINT_SLOW : SBRIDGE_HINT_FAST;
	/*
	 * its partner: the most uncertain task holding what it visits,
	 * planned there or tied and running there
	 */
	best = 0;
	for (i = 0; i < d->n; i++) {
		bool there = d->task[i].hint == visit ||
			     (d->task[i].hint == SBRIDGE_HINT_NONE &&
			      d->task[i].why == SBRIDGE_WHY_TIE &&
			      !!sbridge_pt[i].on_fast == (visit == SBRIDGE_HINT_FAST));

		if (i == who || sbridge_pc[i].kind != SBRIDGE_PC_PLAN ||
		    sbridge_pt[i].want == SBRIDGE_PW_BIG ||
		    sbridge_pt[i].want == SBRIDGE_PW_LITTLE || !there)
			continue;
		v = d->task[i].err + 1;
		if (v > best) {
			best = v;
			partner = i;
		}
	}
	if (partner < 0 && d->task[who].hint == SBRIDGE_HINT_FAST)
		return;	/* nobody to take its place */
	sbridge_swp.who_hint = visit;
	sbridge_swp.who_type = sbridge_swp.who_hint == SBRIDGE_HINT_FAST ? fast : 0;
	sbridge_swp.who_warm = sbridge_swap_warm(who, sbridge_swp.who_type);
	sbridge_swp.who = d->task[who].p;
	get_task_struct(sbridge_swp.who);
	sbridge_swp.tied = partner >= 0 && d->task[partner].hint == SBRIDGE_HINT_NONE;
	if (partner >= 0) {
		sbridge_swp.partner_type = sbridge_swp.who_type == fast ? 0 : fast;
		sbridge_swp.partner_warm = sbridge_swap_warm(partner,
							     sbridge_swp.partner_type);
		sbridge_swp.partner = d->task[partner].p;
		get_task_struct(sbridge_swp.partner);
	}
	sbridge_swp.periods = 0;
	sbridge_swp.swaps++;
	sbridge_swap_apply(d, who, partner, sbridge_swp.who_hint);
}

/**
 * sbridge_policy_swaps() - sampling swaps since load
 *
 * Return: how many swaps were started.
 */
u64 sbridge_policy_swaps(void)
{
	return READ_ONCE(sbridge_swp.swaps);
}

/*
 * The sbridge_period event, then one sbridge_decide per task. Inside the
 * decision's RCU section: the candidates' entries are valid.
 */
static void sbridge_policy_trace(const struct sbridge_decision *d)
{
	unsigned int i;

	trace_sbridge_period(d);
	if (!trace_sbridge_decide_enabled())
		return;
	for (i = 0; i < d->n; i++) {
		struct sbridge_task *t = sbridge_pc[i].t;

		trace_sbridge_decide(d, &d->task[i], sbridge_pc[i].prev,
				     sbridge_task_factor_on(t, d->fast_type),
				     sbridge_task_factor_on(t, 0));
	}
}

/* The hints and the fast shares they give, into the entries. */
static void sbridge_policy_write(struct sbridge_decision *d)
{
	unsigned int i;
	u32 waiting = 0;

	for (i = 0; i < d->n; i++) {
		struct sbridge_pcand *c = &sbridge_pc[i];
		struct sbridge_hint *h = &d->task[i];

		if (c->kind == SBRIDGE_PC_SLEEPER)
			continue;
		WRITE_ONCE(c->t->hint, h->hint);
		if (h->hint != SBRIDGE_HINT_NONE)
			WRITE_ONCE(c->t->hint_at, (u16)jiffies);
		if (c->kind == SBRIDGE_PC_PLAN)
			WRITE_ONCE(c->t->got, sbridge_plan_got(h->got,
				   sbridge_plan_ran_fast(h->hint, h->why,
							 sbridge_pt[i].on_fast)));
		if (h->hint == SBRIDGE_HINT_SLOW && h->why == SBRIDGE_WHY_FULL)
			waiting++;
	}
	/* a fast core going idle while these wait re-decides at once */
	sbridge_sample_kick_arm(waiting > 0);
}

/**
 * sbridge_policy_decide() - one period's decision
 * @d: out; task references are held until sbridge_policy_put()
 * @own: a task's own CPUs where an actuator narrowed its affinity
 *
 * Context: process context (the actuator work), may sleep only outside
 * its RCU section.
 * Return: number of tasks in @d.
 */
int sbridge_policy_decide(struct sbridge_decision *d, sbridge_user_mask_fn own)
{
	unsigned int i, g, fast = sbridge_topo.ref_type;
	unsigned long now = jiffies;

	sbridge_policy_user_mask = own;

	d->n = 0;
	d->fast_type = fast;
	d->want_fast = 0;
	d->tied = 0;
	d->on_fast = 0;
	d->load_fast = 0;
	d->load_slow = 0;
	d->nfast = sbridge_policy_cores(cpu_active_mask, fast);
	/* one read of the active mask: two could differ (hotplug) and wrap */
	cpumask_andnot(sbridge_policy_tmp, cpu_active_mask, &sbridge_topo.type_mask[fast]);
	d->nslow = cpumask_weight(sbridge_policy_tmp);
	for (g = 0; g < SBRIDGE_POLICY_GROUPS; g++) {
		sbridge_pg[g].nfast = 0;
		sbridge_pg[g].nslow = 0;
		sbridge_pg[g].n = 0;
	}
	if (READ_ONCE(sbridge_act_params.selftest)) {
		/* provoke a violation: every hot task to the fast type */
		rcu_read_lock();
		sbridge_policy_collect(d, false);
		for (i = 0; i < d->n; i++) {
			if (sbridge_pc[i].kind == SBRIDGE_PC_SLEEPER)
				continue;
			d->task[i].hint = SBRIDGE_HINT_FAST;
			d->task[i].why = SBRIDGE_WHY_SELFTEST;
			WRITE_ONCE(sbridge_pc[i].t->hint, SBRIDGE_HINT_FAST);
			WRITE_ONCE(sbridge_pc[i].t->hint_at, (u16)jiffies);
		}
		sbridge_policy_trace(d);
		rcu_read_unlock();
		snprintf(d->why, sizeof(d->why),
			 "checker selftest: %u hot tasks to one CPU", d->n);
		return d->n;
	}
	if (sbridge_topo.ntypes < 2 || !d->nfast || !d->nslow) {
		strscpy(d->why, sbridge_topo.ntypes < 2 ?
			"one core type: nothing to decide" :
			"one kind of core active: nothing to decide", sizeof(d->why));
		rcu_read_lock();
		sbridge_policy_collect(d, false);
		for (i = 0; i < d->n; i++) {
			sbridge_policy_clear(sbridge_pc[i].t);
			d->task[i].hint = SBRIDGE_HINT_NONE;
			d->task[i].why = SBRIDGE_WHY_ONE_TYPE;
		}
		sbridge_policy_trace(d);
		rcu_read_unlock();
		sbridge_sample_kick_arm(false);
		return d->n;
	}
	rcu_read_lock();
	sbridge_policy_collect(d, true);
	sbridge_policy_plan(d);
	sbridge_policy_swap(d, now);
	sbridge_policy_write(d);
	sbridge_policy_trace(d);
	rcu_read_unlock();
	for (i = 0; i < d->n; i++)
		d->tied += d->task[i].hint == SBRIDGE_HINT_NONE &&
			   d->task[i].why == SBRIDGE_WHY_TIE;
	snprintf(d->why, sizeof(d->why),
		 "%u hot, %u gain from fast: %u fast on %u cores, %u tied%s", d->n,
		 d->want_fast, d->on_fast, d->nfast, d->tied,
		 sbridge_swp.who ? ", sampling" : "");
	return d->n;
}

/**
 * sbridge_policy_put() - drop the task references of a decision
 * @d: decision
 */
void sbridge_policy_put(struct sbridge_decision *d)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		put_task_struct(d->task[i].p);
	d->n = 0;
}

/**
 * sbridge_policy_init() - scratch space
 *
 * Return: 0 or -ENOMEM.
 */
int sbridge_policy_init(void)
{
	unsigned int g;

	if (!zalloc_cpumask_var(&sbridge_policy_tmp, GFP_KERNEL))
		return -ENOMEM;
	for (g = 0; g < SBRIDGE_POLICY_GROUPS; g++) {
		if (zalloc_cpumask_var(&sbridge_pg[g].mask, GFP_KERNEL))
			continue;
		while (g--)
			free_cpumask_var(sbridge_pg[g].mask);
		free_cpumask_var(sbridge_policy_tmp);
		return -ENOMEM;
	}
	sbridge_swp.last = jiffies;
	return 0;
}

/**
 * sbridge_policy_exit() - end a swap under way, free the scratch space
 *
 * Context: process context; the runner is stopped.
 */
void sbridge_policy_exit(void)
{
	unsigned int g;

	sbridge_swap_end();
	for (g = 0; g < SBRIDGE_POLICY_GROUPS; g++)
		free_cpumask_var(sbridge_pg[g].mask);
	free_cpumask_var(sbridge_policy_tmp);
}
