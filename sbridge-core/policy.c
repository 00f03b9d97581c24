// SPDX-License-Identifier: GPL-2.0
/*
 * The decision layer: S-Bridge's "scaled load at load balancing", done
 * with the levers an unmodified kernel has.
 *
 * Every actuator period it takes the hot runnable tracked tasks (busy for
 * at least act.up_util of their CPU, and run for at least one period of
 * CPU time, so a just-forked task's inherited estimate does not count),
 * each with its predicted (or measured) big/little speedup s_i. With the load factors of eq. 3,
 * LF_ij = C x Cap(k/j) x CPI_B(i/m), the predicted speedup of task i is
 * 1 + LF_i,slow - LF_i,fast: the CPU factor Cap is what makes a
 * compute-bound task heavier on a little core, and with a factor of 1.0
 * on every type no task gains anything and nothing is steered.
 *
 * A task that gains at least act.gain wants the fast type. The wanting
 * tasks are ranked by speedup (plus a bonus for holding the fast type
 * now, hysteresis, and an aging term for the time they waited, so equal
 * tasks take turns and none starves). Then the split is chosen: the top k
 * go fast, the rest slow, for the k that balances scaled load per CPU
 * across the types,
 *
 *	max( sum_{fast} busy_i / nfast',  sum_{slow} busy_i x s_i / nslow' ),
 *
 * smallest; a task on a slow core counts s_i times its load, as the
 * paper's scaled load does, and since a task runs on one CPU at a time,
 * a side's load is spread over at most as many CPUs as it has tasks
 * (nfast' = min(nfast, tasks there), likewise nslow'). Only splits
 * that keep as many CPUs busy as the tasks can are considered (our masks
 * must not idle a CPU the stock balancer would have used); of those that
 * cost about the same, the one needing the least scaled work in all wins,
 * then the one nearest the current split. k may exceed the fast CPUs
 * when every CPU is busy anyway (the fast CPUs are shared when that
 * balances better) or stay below them. When the fast type is full,
 * every other hot task is kept slow so the stock scheduler does not hand
 * a fast CPU to a task that gains less; when it is not full, its free
 * CPUs go to the other hot tasks that gain anything, best first, and the
 * rest are left to the stock scheduler, so a fast CPU never idles while a
 * task that could use it runs slow (a kernel that sees one capacity would
 * not move it up by itself): once a fast task ends, the next run (one
 * period) moves the best candidate up.
 *
 * Rules come first: prefer=big ranks above every learned task, prefer=
 * little is always kept slow, exclude is never touched. A task whose own
 * mask does not reach both kinds of core is left alone.
 *
 * Runs from the actuator work item, never in the switch path; the walk is
 * one RCU pass over the task list, the split O(n) over at most
 * SBRIDGE_DECISION_MAX tasks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sort.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"
#include "trace.h"

/* Hysteresis: the holder of a fast slot ranks this much higher. */
#define SBRIDGE_HOLD_BONUS	(SBRIDGE_FP_ONE / 10)
/* A rule's prefer=big ranks above any learned speedup. */
#define SBRIDGE_PREF_BONUS	(SBRIDGE_FP_ONE * 16)
/* Costs within 1/32 of the best are a tie: keep the current split. */
#define SBRIDGE_TIE_SHIFT	5

/**
 * struct sbridge_pcand - decision scratch for one candidate
 * @t: its entry (valid inside the RCU section of the decision)
 * @prio: rank among the tasks that want the fast type
 * @prev: hint it had before this decision
 * @kind: what it can be: wants fast, other (load only), slow only, sleeper,
 *	pinned (its own mask keeps it on one kind of core: load only)
 */
struct sbridge_pcand {
	struct sbridge_task *t;
	u32 prio;
	u8 prev;
	u8 kind;
};

enum { SBRIDGE_PC_WANT, SBRIDGE_PC_OTHER, SBRIDGE_PC_SLOW, SBRIDGE_PC_SLEEPER, SBRIDGE_PC_PINNED };

static struct sbridge_pcand sbridge_pc[SBRIDGE_DECISION_MAX];
static u8 sbridge_pc_order[SBRIDGE_DECISION_MAX];

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
 * sharing one CPU each run half the time but each wants all of it; their
 * util alone would make sharing the fast type look cheap.
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

/* Can @p run on both kinds of core? Its own mask, not the one we set. */
static bool sbridge_policy_reach(struct task_struct *p, unsigned int fast,
				 struct cpumask *tmp)
{
	if (!sbridge_placement_user_mask(p, tmp))
		cpumask_copy(tmp, &p->cpus_mask);
	cpumask_and(tmp, tmp, cpu_active_mask);
	return cpumask_intersects(tmp, &sbridge_topo.type_mask[fast]) &&
	       !cpumask_subset(tmp, &sbridge_topo.type_mask[fast]);
}

static int sbridge_pc_cmp(const void *a, const void *b)
{
	u32 pa = sbridge_pc[*(const u8 *)a].prio;
	u32 pb = sbridge_pc[*(const u8 *)b].prio;

	return pa > pb ? -1 : pa < pb;
}

static void sbridge_policy_clear(struct sbridge_task *t)
{
	if (READ_ONCE(t->hint) != SBRIDGE_HINT_NONE)
		WRITE_ONCE(t->hint, SBRIDGE_HINT_NONE);
	if (READ_ONCE(t->wait_ms))
		WRITE_ONCE(t->wait_ms, 0);
}

static cpumask_var_t sbridge_policy_tmp;

/*
 * act.model 0: every task gets the fast/slowest capacity ratio as its
 * speedup, so the ranking and the split see load alone, as HMP's
 * up/down migration thresholds did. The evaluation's util-only baseline.
 */
static u32 sbridge_policy_flat(const struct sbridge_decision *d)
{
	u32 slow = READ_ONCE(sbridge_topo.type_capacity[0]);

	if (!slow)
		return SBRIDGE_FP_ONE;
	return div_u64((u64)READ_ONCE(sbridge_topo.type_capacity[d->fast_type]) <<
		       SBRIDGE_FP_SHIFT, slow);
}

/* @p has run @min_run ns of CPU since its exec (or its fork). */
static bool sbridge_policy_settled(struct task_struct *p,
				   const struct sbridge_task *t, u64 min_run)
{
	u64 at = (u64)READ_ONCE(t->exec_run) << SBRIDGE_EXEC_RUN_SHIFT;

	return READ_ONCE(p->se.sum_exec_runtime) >= at + min_run;
}

/* Adds the hot runnable tasks (and hinted short sleepers) to @d. */
static void sbridge_policy_collect(struct sbridge_decision *d, bool split)
{
	u32 up = READ_ONCE(sbridge_act_params.up_util);
	u32 down = READ_ONCE(sbridge_act_params.down_util);
	unsigned long hold = msecs_to_jiffies(READ_ONCE(sbridge_act_params.hold_ms));
	u64 min_run = (u64)READ_ONCE(sbridge_act_params.period_ms) * NSEC_PER_MSEC;
	struct task_struct *g, *p;
	struct sbridge_task *t;
	struct sbridge_hint *h;
	bool hinted, runnable, hot;
	u32 busy, flat = READ_ONCE(sbridge_act_params.model) ? 0 :
			 sbridge_policy_flat(d);
	u8 kind;

	for_each_process_thread(g, p) {
		t = sbridge_task_lookup(p);
		if (!t)
			continue;
		hinted = READ_ONCE(t->hint) != SBRIDGE_HINT_NONE;
		if ((p->flags & (PF_KTHREAD | PF_EXITING | PF_NO_SETAFFINITY)) ||
		    !sbridge_fair_policy(p->policy) ||
		    READ_ONCE(t->pref) == SBRIDGE_PREF_EXCLUDE ||
		    d->n >= SBRIDGE_DECISION_MAX) {
			sbridge_policy_clear(t);
			continue;
		}
		runnable = sbridge_task_runnable(p);
		busy = sbridge_policy_busy(p);
		/*
		 * A new task's util_avg is the kernel's guess from its
		 * parent's CPU, not its own load: it is hot only once it has
		 * run for a period. This also leaves a program's start-up
		 * (where it sets its own policy or reset-on-fork) alone, so
		 * the period counts from its exec: what a shell's child ran
		 * before exec is not the program's.
		 */
		hot = runnable && (busy >= up || (hinted && busy >= down)) &&
		      sbridge_policy_settled(p, t, min_run);
		if (hot) {
			kind = SBRIDGE_PC_OTHER;
			if (split &&
			    !sbridge_policy_reach(p, d->fast_type, sbridge_policy_tmp))
				kind = SBRIDGE_PC_PINNED;
		} else if (hinted && !runnable &&
			   (u16)((u16)jiffies - READ_ONCE(t->hint_at)) < hold) {
			kind = SBRIDGE_PC_SLEEPER;
		} else {
			sbridge_policy_clear(t);
			continue;
		}
		h = &d->task[d->n];
		get_task_struct(p);
		h->p = p;
		h->speedup = flat ?: sbridge_task_speedup(t, NULL, NULL);
		h->share = sbridge_task_share(t);
		h->known = READ_ONCE(t->class) != SBRIDGE_CLASS_AUTO ||
			   READ_ONCE(t->est.ph.nphases);
		h->busy = busy;
		h->cpu = task_cpu(p);
		h->hint = kind == SBRIDGE_PC_SLEEPER ? READ_ONCE(t->hint) : SBRIDGE_HINT_NONE;
		h->why = kind == SBRIDGE_PC_SLEEPER ? SBRIDGE_WHY_IDLE :
			 kind == SBRIDGE_PC_PINNED ? SBRIDGE_WHY_PINNED : SBRIDGE_WHY_LOW;
		sbridge_pc[d->n].t = t;
		sbridge_pc[d->n].prev = READ_ONCE(t->hint);
		sbridge_pc[d->n].kind = kind;
		sbridge_pc[d->n].prio = 0;
		d->n++;
	}
}

/* Slow-side cost of task @i: its load times its speedup (fp x 1024). */
static u64 sbridge_slow_load(const struct sbridge_hint *h)
{
	return (u64)h->busy * h->speedup;
}

/*
 * Load per CPU of one side: its tasks' load over the CPUs they can use. A
 * task runs on one CPU at a time, so fewer tasks than CPUs spread over as
 * many CPUs as there are tasks, not over all of them.
 */
static u64 sbridge_side_load(u64 sum, unsigned int ncpus, unsigned int ntasks)
{
	unsigned int n = min(ncpus, ntasks);

	return n ? div_u64(sum, n) : 0;
}

/* CPUs a split with @k wanting tasks on the fast type keeps busy. */
static unsigned int sbridge_split_used(const struct sbridge_decision *d,
				       unsigned int k, unsigned int m,
				       unsigned int base_n,
				       unsigned int base_fast_n)
{
	return min(d->nfast, base_fast_n + k) + min(d->nslow, base_n + m - k);
}

/*
 * Splits the wanting tasks, hottest first in sbridge_pc_order, between the
 * types: the top k go fast. @base/@base_n: load and count of the tasks
 * that stay slow whatever k is; @base_fast/@base_fast_n: those pinned to
 * the fast type. Returns k.
 */
static unsigned int sbridge_policy_split(struct sbridge_decision *d,
					 unsigned int m, u64 base,
					 unsigned int base_n, u64 base_fast,
					 unsigned int base_fast_n,
					 unsigned int prev_fast)
{
	u64 fast_sum = base_fast, slow_sum = base, cost, best = U64_MAX;
	u64 costs[SBRIDGE_DECISION_MAX + 1], totals[SBRIDGE_DECISION_MAX + 1];
	u64 best_total = U64_MAX;
	unsigned int k, pick = 0, dist, best_dist = UINT_MAX, max_used = 0;

	for (k = 0; k < m; k++)
		slow_sum += sbridge_slow_load(&d->task[sbridge_pc_order[k]]);
	/*
	 * Work conservation first: only splits that keep as many CPUs busy
	 * as the tasks can (no CPU of one type idles while the other type
	 * is shared because of our masks).
	 */
	for (k = 0; k <= m; k++)
		max_used = max(max_used, sbridge_split_used(d, k, m, base_n, base_fast_n));
	for (k = 0; k <= m; k++) {
		if (k) {
			const struct sbridge_hint *h = &d->task[sbridge_pc_order[k - 1]];

			fast_sum += (u64)h->busy << SBRIDGE_FP_SHIFT;
			slow_sum -= sbridge_slow_load(h);
		}
		cost = max(sbridge_side_load(fast_sum, d->nfast, base_fast_n + k),
			   sbridge_side_load(slow_sum, d->nslow, base_n + m - k));
		/* a split that idles CPUs the tasks could use is out */
		if (sbridge_split_used(d, k, m, base_n, base_fast_n) != max_used)
			cost = U64_MAX;
		costs[k] = cost;
		totals[k] = fast_sum + slow_sum;
		best = min(best, cost);
	}
	/*
	 * Of the splits that cost about the best, the one that needs the
	 * least scaled work in all (a fast CPU idle while a task that gains
	 * from it runs slow is a loss), then the one nearest the current
	 * split (hysteresis).
	 */
	for (k = 0; k <= m; k++)
		if (costs[k] <= best + (best >> SBRIDGE_TIE_SHIFT))
			best_total = min(best_total, totals[k]);
	for (k = 0; k <= m; k++) {
		if (costs[k] > best + (best >> SBRIDGE_TIE_SHIFT) ||
		    totals[k] > best_total + (best_total >> SBRIDGE_TIE_SHIFT))
			continue;
		dist = k > prev_fast ? k - prev_fast : prev_fast - k;
		if (dist < best_dist) {
			best_dist = dist;
			pick = k;
		}
	}
	/* loads per CPU of the chosen split, 1024 == one CPU's worth */
	fast_sum = base_fast;
	slow_sum = base;
	for (k = 0; k < m; k++) {
		const struct sbridge_hint *h = &d->task[sbridge_pc_order[k]];

		if (k < pick)
			fast_sum += (u64)h->busy << SBRIDGE_FP_SHIFT;
		else
			slow_sum += sbridge_slow_load(h);
	}
	d->load_fast = (u32)min_t(u64, sbridge_side_load(fast_sum, d->nfast,
				  base_fast_n + pick) >> SBRIDGE_FP_SHIFT, U32_MAX);
	d->load_slow = (u32)min_t(u64, sbridge_side_load(slow_sum, d->nslow,
				  base_n + m - pick) >> SBRIDGE_FP_SHIFT, U32_MAX);
	return pick;
}

/* Rank of a wanting candidate without the holder's bonus. */
static u32 sbridge_pc_raw(const struct sbridge_pcand *c)
{
	return c->prio - (c->prev == SBRIDGE_HINT_FAST ? SBRIDGE_HOLD_BONUS : 0);
}

/* Ranks, splits and writes the hints of the collected tasks. */
static void sbridge_policy_assign(struct sbridge_decision *d)
{
	u32 gain = READ_ONCE(sbridge_act_params.gain);
	u32 hold_ms = READ_ONCE(sbridge_act_params.hold_ms);
	u32 period = READ_ONCE(sbridge_act_params.period_ms);
	unsigned int i, m = 0, k, prev_fast = 0, base_n = 0, base_fast_n = 0;
	unsigned int n_other, nfree;
	u64 base = 0, base_fast = 0;
	u32 rest = 0;

	for (i = 0; i < d->n; i++) {
		struct sbridge_pcand *c = &sbridge_pc[i];
		struct sbridge_hint *h = &d->task[i];
		u8 pref = READ_ONCE(c->t->pref);

		if (c->kind == SBRIDGE_PC_SLEEPER)
			continue;
		if (c->kind == SBRIDGE_PC_PINNED) {
			/* it runs where its mask says: count it there */
			if (cpumask_test_cpu(h->cpu, &sbridge_topo.type_mask[d->fast_type])) {
				base_fast += (u64)h->busy << SBRIDGE_FP_SHIFT;
				base_fast_n++;
			} else {
				base += sbridge_slow_load(h);
				base_n++;
			}
			continue;
		}
		if (pref == SBRIDGE_PREF_LITTLE) {
			c->kind = SBRIDGE_PC_SLOW;
			h->hint = SBRIDGE_HINT_SLOW;
			h->why = SBRIDGE_WHY_RULE;
			base += sbridge_slow_load(h);
			base_n++;
			continue;
		}
		if (pref != SBRIDGE_PREF_BIG && h->speedup < SBRIDGE_FP_ONE + gain) {
			base += sbridge_slow_load(h);
			base_n++;
			continue;
		}
		c->kind = SBRIDGE_PC_WANT;
		c->prio = min_t(u32, h->speedup, SBRIDGE_FACTOR_MAX);
		if (pref == SBRIDGE_PREF_BIG)
			c->prio += SBRIDGE_PREF_BONUS;
		if (c->prev == SBRIDGE_HINT_FAST) {
			c->prio += SBRIDGE_HOLD_BONUS;
			prev_fast++;
		}
		if (hold_ms)
			c->prio += (u32)min_t(u64, div_u64((u64)READ_ONCE(c->t->wait_ms) *
						     SBRIDGE_HOLD_BONUS, hold_ms),
					      SBRIDGE_PREF_BONUS / 2);
		sbridge_pc_order[m++] = i;
	}
	sort(sbridge_pc_order, m, sizeof(sbridge_pc_order[0]), sbridge_pc_cmp, NULL);
	k = sbridge_policy_split(d, m, base, base_n, base_fast, base_fast_n,
				 prev_fast);
	/* the best rank given slow, without the holder's bonus: who was held */
	for (i = k; i < m; i++)
		rest = max(rest, sbridge_pc_raw(&sbridge_pc[sbridge_pc_order[i]]));
	for (i = 0; i < m; i++) {
		struct sbridge_pcand *c = &sbridge_pc[sbridge_pc_order[i]];
		struct sbridge_hint *h = &d->task[sbridge_pc_order[i]];

		h->hint = i < k ? SBRIDGE_HINT_FAST : SBRIDGE_HINT_SLOW;
		if (i >= k)
			h->why = SBRIDGE_WHY_FULL;
		else if (READ_ONCE(c->t->pref) == SBRIDGE_PREF_BIG)
			h->why = SBRIDGE_WHY_RULE;
		else if (c->prev == SBRIDGE_HINT_FAST && sbridge_pc_raw(c) < rest)
			h->why = SBRIDGE_WHY_HOLD;
		else
			h->why = SBRIDGE_WHY_GAIN;
		WRITE_ONCE(c->t->wait_ms, i < k ? 0 :
			   min_t(u32, READ_ONCE(c->t->wait_ms) + period, U16_MAX));
	}
	/*
	 * The fast type full: keep everyone else off it. Not full: its free
	 * CPUs go to the others that gain most (any gain, best first). The
	 * stock scheduler would move them up only where the kernel knows the
	 * capacities differ (misfit); where it sees one capacity (x86 cores
	 * that differ in clock, boards declared with cpu_types=) a task left
	 * running on a slow CPU stays there while a fast CPU idles.
	 */
	n_other = 0;
	for (i = 0; i < d->n; i++) {
		if (sbridge_pc[i].kind != SBRIDGE_PC_OTHER)
			continue;
		sbridge_pc[i].prio = d->task[i].speedup;
		sbridge_pc_order[m + n_other++] = i;
	}
	sort(sbridge_pc_order + m, n_other, sizeof(sbridge_pc_order[0]),
	     sbridge_pc_cmp, NULL);
	nfree = d->nfast > k + base_fast_n ? d->nfast - k - base_fast_n : 0;
	for (i = m; i < m + n_other; i++) {
		struct sbridge_hint *h = &d->task[sbridge_pc_order[i]];

		if (k >= d->nfast) {
			h->hint = SBRIDGE_HINT_SLOW;
			h->why = SBRIDGE_WHY_FULL;
		} else if (nfree && h->speedup > SBRIDGE_FP_ONE) {
			h->hint = SBRIDGE_HINT_FAST;
			h->why = SBRIDGE_WHY_GAIN;
			nfree--;
		} else {
			h->hint = SBRIDGE_HINT_NONE;
			h->why = SBRIDGE_WHY_LOW;
		}
	}
	d->want_fast = m;
	d->on_fast = k;
	snprintf(d->why, sizeof(d->why),
		 "%u hot, %u gain from fast: %u fast on %u cpus, load/cpu fast %u slow %u",
		 d->n, m, k, d->nfast, d->load_fast, d->load_slow);
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

/**
 * sbridge_policy_decide() - one period's decision
 * @d: out; task references are held until sbridge_policy_put()
 *
 * Context: process context (the actuator work), may sleep only outside
 * its RCU section.
 * Return: number of tasks in @d.
 */
int sbridge_policy_decide(struct sbridge_decision *d)
{
	unsigned int i, fast = sbridge_topo.ref_type;

	d->n = 0;
	d->fast_type = fast;
	d->want_fast = 0;
	d->on_fast = 0;
	d->load_fast = 0;
	d->load_slow = 0;
	d->nfast = cpumask_weight_and(&sbridge_topo.type_mask[fast], cpu_active_mask);
	d->nslow = cpumask_weight(cpu_active_mask) - d->nfast;
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
		return d->n;
	}
	rcu_read_lock();
	sbridge_policy_collect(d, true);
	sbridge_policy_assign(d);
	for (i = 0; i < d->n; i++) {
		struct sbridge_pcand *c = &sbridge_pc[i];

		if (c->kind == SBRIDGE_PC_SLEEPER)
			continue;
		WRITE_ONCE(c->t->hint, d->task[i].hint);
		if (d->task[i].hint != SBRIDGE_HINT_NONE)
			WRITE_ONCE(c->t->hint_at, (u16)jiffies);
	}
	sbridge_policy_trace(d);
	rcu_read_unlock();
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
	return zalloc_cpumask_var(&sbridge_policy_tmp, GFP_KERNEL) ? 0 : -ENOMEM;
}

/**
 * sbridge_policy_exit() - free the scratch space
 */
void sbridge_policy_exit(void)
{
	free_cpumask_var(sbridge_policy_tmp);
}
