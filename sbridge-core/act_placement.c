// SPDX-License-Identifier: GPL-2.0
/*
 * Placement actuator: applies the decision layer's per-task hint through
 * affinity. FAST restricts a task to the fast core type, SLOW to the
 * others, NONE gives it its own mask back; always inside the mask the
 * task had (never widened, never empty).
 *
 * Guarantees:
 *  - an entry (the task's own mask and the mask we set) is published
 *    before set_cpus_allowed_ptr(), so a fork racing the change always
 *    finds it;
 *  - a released entry stays as a tombstone until its task exits: a child
 *    that copied the narrow mask before the release (dup_task_struct()
 *    runs long before sched_process_fork) is still recognised, by its
 *    mask, and gets an entry of its own that the next run releases;
 *  - if the task's mask changes under us (sched_setaffinity, cpuset) the
 *    user wins at once and the task is never touched again; the checker
 *    can make a task yield the same way;
 *  - switching off, observe mode and unload put back exactly the mask
 *    saved; unload restores once with the fork hook attached and once
 *    more, with a sweep of the task list, after it is gone.
 *
 * Locking: the list and hash change only under sbridge_steer_lock; every
 * walk and search takes it too. Entries are freed only by holders of
 * sbridge_place_mutex (the runner, yield, exit), so a mutex holder may use
 * an entry pointer after dropping the spinlock. The fork hook only adds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"
#include "trace.h"

#define SBRIDGE_STEER_MAX	128	/* tasks steered by runs at once */
#define SBRIDGE_STEER_TOTAL	4096	/* entries, with tombstones and children */
#define SBRIDGE_STEER_BATCH	32	/* entries released per walk */

/* zero (a new, zeroed entry) is "released": not yet counted as steered */
enum { SBRIDGE_RELEASED, SBRIDGE_STEERED, SBRIDGE_HANDS_OFF };

/**
 * struct sbridge_steer - a task placement touched
 * @node: in sbridge_steer_list
 * @hnode: in sbridge_steer_hash, keyed by @p
 * @p: the task; a reference is held while the entry exists
 * @user: the task's own mask before we steered it
 * @set: the mask we set (kept after release, to recognise children)
 * @prev: the mask we set before @set (a child may have copied it just
 *	before a re-steer), empty if none
 * @state: SBRIDGE_STEERED, SBRIDGE_RELEASED (own mask given back), or SBRIDGE_HANDS_OFF
 *	(the user changed it or the checker made us yield: never again)
 * @hint: the hint @set implements
 * @seen: run number that last found the task in the decision
 *
 * All fields change under sbridge_steer_lock.
 */
struct sbridge_steer {
	struct list_head node;
	struct hlist_node hnode;
	struct task_struct *p;
	cpumask_var_t user;
	cpumask_var_t set;
	cpumask_var_t prev;
	u8 state;
	u8 hint;
	u64 seen;
};

static LIST_HEAD(sbridge_steer_list);
static DEFINE_HASHTABLE(sbridge_steer_hash, 8);
static unsigned int sbridge_steer_count, sbridge_steered_now;
static DEFINE_SPINLOCK(sbridge_steer_lock);
static DEFINE_MUTEX(sbridge_place_mutex);
static u64 sbridge_place_run;
static int sbridge_selftest_cpu = -1;
static cpumask_var_t sbridge_place_tmp;
static u64 sbridge_place_steers, sbridge_place_releases, sbridge_place_user_wins,
	   sbridge_place_yields, sbridge_place_inherits, sbridge_place_inherit_lost,
	   sbridge_place_swept;

/**
 * sbridge_pick_cpu() - O(1) randomized choice of a CPU in @mask
 * @mask: candidate CPUs, non-empty
 *
 * A random starting point and the next set bit from there (the O(1)
 * randomized search of "Fast and Scalable Idle Core Search"), instead of
 * a full scan for the "best" CPU: spreads choices without global state.
 *
 * Return: a CPU of @mask, or nr_cpu_ids if it is empty.
 */
static int sbridge_pick_cpu(const struct cpumask *mask)
{
	int start = get_random_u32() % nr_cpu_ids;
	int cpu = cpumask_next(start - 1, mask);

	return cpu < nr_cpu_ids ? cpu : cpumask_first(mask);
}

/* Under sbridge_steer_lock. */
static struct sbridge_steer *sbridge_steer_find(struct task_struct *p)
{
	struct sbridge_steer *e;

	lockdep_assert_held(&sbridge_steer_lock);
	hash_for_each_possible(sbridge_steer_hash, e, hnode, (unsigned long)p)
		if (e->p == p)
			return e;
	return NULL;
}

static struct sbridge_steer *sbridge_steer_lookup(struct task_struct *p)
{
	struct sbridge_steer *e;

	spin_lock(&sbridge_steer_lock);
	e = sbridge_steer_find(p);
	spin_unlock(&sbridge_steer_lock);
	return e;
}

static struct sbridge_steer *sbridge_steer_alloc(gfp_t gfp)
{
	struct sbridge_steer *e = kzalloc(sizeof(*e), gfp);

	if (!e)
		return NULL;
	if (!zalloc_cpumask_var(&e->user, gfp) ||
	    !zalloc_cpumask_var(&e->set, gfp) ||
	    !zalloc_cpumask_var(&e->prev, gfp)) {
		free_cpumask_var(e->set);
		free_cpumask_var(e->user);
		kfree(e);
		return NULL;
	}
	return e;
}

static void sbridge_steer_free(struct sbridge_steer *e)
{
	if (e->p)
		put_task_struct(e->p);
	free_cpumask_var(e->user);
	free_cpumask_var(e->set);
	free_cpumask_var(e->prev);
	kfree(e);
}

/* Under sbridge_steer_lock: a new entry for @p (referenced by the caller). */
static void sbridge_steer_add(struct sbridge_steer *e, struct task_struct *p)
{
	lockdep_assert_held(&sbridge_steer_lock);
	e->p = p;
	list_add(&e->node, &sbridge_steer_list);
	hash_add(sbridge_steer_hash, &e->hnode, (unsigned long)p);
	sbridge_steer_count++;
}

/* Under sbridge_steer_lock. */
static void sbridge_steer_state(struct sbridge_steer *e, u8 state)
{
	lockdep_assert_held(&sbridge_steer_lock);
	if (e->state == SBRIDGE_STEERED && state != SBRIDGE_STEERED)
		sbridge_steered_now--;
	else if (e->state != SBRIDGE_STEERED && state == SBRIDGE_STEERED)
		sbridge_steered_now++;
	e->state = state;
}

static void sbridge_steer_set_state(struct sbridge_steer *e, u8 state)
{
	spin_lock(&sbridge_steer_lock);
	sbridge_steer_state(e, state);
	spin_unlock(&sbridge_steer_lock);
}

/*
 * Gives @e's task its own mask back and keeps @e as a tombstone; if the
 * mask is no longer the one we set, the user took over: hands off.
 * Under sbridge_place_mutex.
 */
static void sbridge_steer_release(struct sbridge_steer *e)
{
	struct task_struct *p = e->p;
	bool intact;

	spin_lock(&sbridge_steer_lock);
	intact = e->state == SBRIDGE_STEERED && cpumask_equal(&p->cpus_mask, e->set);
	if (e->state == SBRIDGE_STEERED && !intact) {
		sbridge_steer_state(e, SBRIDGE_HANDS_OFF);
		sbridge_place_user_wins++;
	}
	cpumask_copy(sbridge_place_tmp, e->user);
	spin_unlock(&sbridge_steer_lock);
	if (!intact)
		return;
	/* check-then-write: a sched_setaffinity right here is overwritten */
	if (set_cpus_allowed_ptr(p, sbridge_place_tmp) == 0) {
		sbridge_place_releases++;
		trace_sbridge_act(SBRIDGE_TP_ACT_PLACEMENT, SBRIDGE_TP_OP_RESTORE,
				  p, -1, sbridge_place_tmp, 0, 0);
	}
	sbridge_steer_set_state(e, SBRIDGE_RELEASED);
}

/*
 * Steers @p to @set (a strict, non-empty subset of its own mask):
 * entry first, then the mask. Under sbridge_place_mutex.
 */
static void sbridge_steer_apply(struct task_struct *p, struct sbridge_steer *e,
				const struct cpumask *set, u8 hint)
{
	struct sbridge_steer *n = NULL;

	if (!e) {
		if (sbridge_steered_now >= SBRIDGE_STEER_MAX ||
		    sbridge_steer_count >= SBRIDGE_STEER_TOTAL)
			return;
		n = sbridge_steer_alloc(GFP_KERNEL);
		if (!n)
			return;
		cpumask_copy(n->user, &p->cpus_mask);
	}
	spin_lock(&sbridge_steer_lock);
	if (n) {
		get_task_struct(p);
		sbridge_steer_add(n, p);
		e = n;
	} else if (e->state == SBRIDGE_RELEASED) {
		/* the user may have changed the mask since we gave it back */
		cpumask_copy(e->user, &p->cpus_mask);
	}
	cpumask_copy(e->prev, e->set);
	cpumask_copy(e->set, set);
	e->hint = hint;
	e->seen = sbridge_place_run;
	sbridge_steer_state(e, SBRIDGE_STEERED);
	spin_unlock(&sbridge_steer_lock);
	if (set_cpus_allowed_ptr(p, set)) {
		sbridge_steer_set_state(e, SBRIDGE_RELEASED);
		return;
	}
	sbridge_place_steers++;
	trace_sbridge_act(SBRIDGE_TP_ACT_PLACEMENT, SBRIDGE_TP_OP_APPLY, p, -1,
			  set, 0, 0);
	pr_debug("pid %d steered %s: %*pbl\n", task_pid_nr(p),
		 hint == SBRIDGE_HINT_FAST ? "fast" : "slow", cpumask_pr_args(set));
}

/* The mask @hint asks for, inside @user; false if there is none to set. */
static bool sbridge_place_mask(const struct sbridge_decision *d, u8 hint,
			       const struct cpumask *user, struct cpumask *set)
{
	const struct cpumask *fast = &sbridge_topo.type_mask[d->fast_type];

	if (hint == SBRIDGE_HINT_FAST)
		cpumask_and(set, user, fast);
	else
		cpumask_andnot(set, user, fast);
	cpumask_and(set, set, cpu_active_mask);
	if (hint == SBRIDGE_HINT_FAST && READ_ONCE(sbridge_act_params.selftest)) {
		if (sbridge_selftest_cpu < 0)
			sbridge_selftest_cpu = sbridge_pick_cpu(set);
		if (sbridge_selftest_cpu >= nr_cpu_ids ||
		    !cpumask_test_cpu(sbridge_selftest_cpu, set))
			return false;
		cpumask_copy(set, cpumask_of(sbridge_selftest_cpu));
	}
	/* Never widen, never a no-op, never empty. */
	return !cpumask_empty(set) && !cpumask_equal(set, user) &&
	       cpumask_subset(set, user);
}

static void sbridge_place_one(const struct sbridge_decision *d,
			      const struct sbridge_hint *h, struct cpumask *set)
{
	struct task_struct *p = h->p;
	struct sbridge_steer *e;
	u8 state = SBRIDGE_RELEASED;
	bool same = false;

	spin_lock(&sbridge_steer_lock);
	e = sbridge_steer_find(p);
	if (e) {
		state = e->state;
		e->seen = sbridge_place_run;
		if (state == SBRIDGE_STEERED && !cpumask_equal(&p->cpus_mask, e->set)) {
			sbridge_steer_state(e, SBRIDGE_HANDS_OFF);
			sbridge_place_user_wins++;
			state = SBRIDGE_HANDS_OFF;
			pr_info("pid %d: user affinity change wins over placement\n",
				task_pid_nr(p));
		}
		/* the mask the hint narrows: the user's, not ours */
		cpumask_copy(sbridge_place_tmp,
			     state == SBRIDGE_STEERED ? e->user : &p->cpus_mask);
	} else {
		cpumask_copy(sbridge_place_tmp, &p->cpus_mask);
	}
	spin_unlock(&sbridge_steer_lock);
	if (state == SBRIDGE_HANDS_OFF)
		return;
	if (h->hint == SBRIDGE_HINT_NONE ||
	    !sbridge_place_mask(d, h->hint, sbridge_place_tmp, set)) {
		if (e && state == SBRIDGE_STEERED)
			sbridge_steer_release(e);
		return;
	}
	if (e && state == SBRIDGE_STEERED) {
		spin_lock(&sbridge_steer_lock);
		same = cpumask_equal(e->set, set);
		spin_unlock(&sbridge_steer_lock);
	}
	if (!same)
		sbridge_steer_apply(p, e, set, h->hint);
}

/*
 * Entries to release: steered ones the last run did not see (the task
 * left the decision), or all steered ones; drops entries of dead tasks.
 * Under sbridge_place_mutex.
 */
static void sbridge_place_sweep(bool all)
{
	struct sbridge_steer *e, *n, *rel[SBRIDGE_STEER_BATCH];
	LIST_HEAD(dead);
	int i, nrel;

	do {
		nrel = 0;
		spin_lock(&sbridge_steer_lock);
		list_for_each_entry_safe(e, n, &sbridge_steer_list, node) {
			if (e->p->exit_state || (e->p->flags & PF_EXITING)) {
				sbridge_steer_state(e, SBRIDGE_RELEASED);
				list_move(&e->node, &dead);
				hash_del(&e->hnode);
				sbridge_steer_count--;
				continue;
			}
			if (e->state == SBRIDGE_STEERED &&
			    (all || e->seen != sbridge_place_run) &&
			    nrel < ARRAY_SIZE(rel)) {
				/* marks it, so the next batch skips it */
				e->seen = sbridge_place_run;
				rel[nrel++] = e;
			}
		}
		spin_unlock(&sbridge_steer_lock);
		for (i = 0; i < nrel; i++)
			sbridge_steer_release(rel[i]);
	} while (nrel == ARRAY_SIZE(rel));
	list_for_each_entry_safe(e, n, &dead, node) {
		list_del(&e->node);
		sbridge_steer_free(e);
	}
}

static void sbridge_place_apply(const struct sbridge_decision *d)
{
	cpumask_var_t set;
	unsigned int i;

	if (!zalloc_cpumask_var(&set, GFP_KERNEL))
		return;
	mutex_lock(&sbridge_place_mutex);
	sbridge_place_run++;
	if (!READ_ONCE(sbridge_act_params.selftest))
		sbridge_selftest_cpu = -1;
	for (i = 0; i < d->n; i++)
		sbridge_place_one(d, &d->task[i], set);
	/* a task the decision no longer holds gets its own mask back */
	sbridge_place_sweep(false);
	mutex_unlock(&sbridge_place_mutex);
	free_cpumask_var(set);
}

static void sbridge_place_restore(void)
{
	mutex_lock(&sbridge_place_mutex);
	sbridge_place_run++;
	sbridge_place_sweep(true);
	mutex_unlock(&sbridge_place_mutex);
}

/**
 * sbridge_placement_user_mask() - the affinity @p had before steering
 * @p: task (RCU-protected by the caller)
 * @mask: out, set only when true is returned
 *
 * Context: any non-IRQ context, takes a spinlock.
 * Return: true if @p is steered by sbridge now.
 */
bool sbridge_placement_user_mask(struct task_struct *p, struct cpumask *mask)
{
	struct sbridge_steer *e;
	bool ret = false;

	spin_lock(&sbridge_steer_lock);
	e = sbridge_steer_find(p);
	if (e && e->state == SBRIDGE_STEERED) {
		cpumask_copy(mask, e->user);
		ret = true;
	}
	spin_unlock(&sbridge_steer_lock);
	return ret;
}

/**
 * sbridge_placement_yield() - the checker blames @p's steering: undo it
 * @p: task (the caller holds a reference)
 *
 * Restores @p's own mask and never steers it again.
 *
 * Context: process context, sleeps.
 */
void sbridge_placement_yield(struct task_struct *p)
{
	struct sbridge_steer *e;

	mutex_lock(&sbridge_place_mutex);
	e = sbridge_steer_lookup(p);
	if (e && e->state == SBRIDGE_STEERED) {
		sbridge_steer_release(e);
		sbridge_steer_set_state(e, SBRIDGE_HANDS_OFF);
		sbridge_place_yields++;
		pr_info("placement yields pid %d to the work-conserving checker\n",
			task_pid_nr(p));
	}
	mutex_unlock(&sbridge_place_mutex);
}

/*
 * Does @p carry a mask @pe set on its parent: the one set now, or the one
 * before (copied just before a re-steer), while the parent does not hold
 * that mask by its own choice? Under sbridge_steer_lock.
 */
static bool sbridge_steer_carries(struct sbridge_steer *pe,
				  struct task_struct *parent,
				  struct task_struct *p)
{
	if (pe->state == SBRIDGE_HANDS_OFF)
		return false;
	if (cpumask_equal(&p->cpus_mask, pe->set))
		return !(pe->state == SBRIDGE_RELEASED &&
			 cpumask_equal(&parent->cpus_mask, pe->set));
	return !cpumask_empty(pe->prev) &&
	       cpumask_equal(&p->cpus_mask, pe->prev) &&
	       !cpumask_equal(&parent->cpus_mask, pe->prev);
}

/*
 * sched_process_fork: @child copied @parent's mask in dup_task_struct(),
 * possibly long before this hook and before a release. If it carries the
 * mask we set on @parent (steered now, or a tombstone whose mask the user
 * has not since chosen himself), it gets its own entry with @parent's own
 * mask, and the next run releases it unless it is hinted itself.
 * Preemption off: GFP_NOWAIT, spinlock only.
 */
static void sbridge_place_fork(struct task_struct *parent,
			       struct task_struct *child)
{
	struct sbridge_steer *e, *pe;
	bool inherited;

	if (!READ_ONCE(sbridge_steer_count))
		return;
	spin_lock(&sbridge_steer_lock);
	pe = sbridge_steer_find(parent);
	inherited = pe && sbridge_steer_carries(pe, parent, child);
	spin_unlock(&sbridge_steer_lock);
	if (!inherited)
		return;
	e = sbridge_steer_alloc(GFP_NOWAIT | __GFP_NOWARN);
	spin_lock(&sbridge_steer_lock);
	pe = sbridge_steer_find(parent);
	if (!e || !pe || sbridge_steer_count >= SBRIDGE_STEER_TOTAL) {
		sbridge_place_inherit_lost++;
		spin_unlock(&sbridge_steer_lock);
		pr_warn_ratelimited("pid %d: keeps its parent's steered affinity (no entry)\n",
				    task_pid_nr(child));
		if (e)
			sbridge_steer_free(e);
		return;
	}
	cpumask_copy(e->user, pe->user);
	cpumask_copy(e->set, &child->cpus_mask);
	e->hint = pe->hint;
	get_task_struct(child);
	sbridge_steer_add(e, child);
	sbridge_steer_state(e, SBRIDGE_STEERED);
	sbridge_place_inherits++;
	spin_unlock(&sbridge_steer_lock);
}

/*
 * After the fork hook is gone: a task forked in the last moments whose
 * hook no longer ran may still carry a steered mask. Its parent's entry
 * (a tombstone now) tells: same mask, no entry of its own -> give it the
 * parent's own mask. Returns the number fixed. Under sbridge_place_mutex.
 */
static unsigned int sbridge_place_orphans(void)
{
	struct task_struct *g, *p, *par, *fix[SBRIDGE_STEER_BATCH];
	struct sbridge_steer *pe, *own[SBRIDGE_STEER_BATCH];
	unsigned int n, i, total = 0, rounds = 0;
	bool more;

	do {
		more = false;
		n = 0;
		rcu_read_lock();
		spin_lock(&sbridge_steer_lock);
		for_each_process_thread(g, p) {
			if (p->flags & PF_KTHREAD || sbridge_steer_find(p))
				continue;
			par = rcu_dereference(p->real_parent);
			pe = sbridge_steer_find(par);
			if (!pe) {
				par = p->group_leader;
				pe = sbridge_steer_find(par);
			}
			if (!pe || !sbridge_steer_carries(pe, par, p))
				continue;
			if (n == ARRAY_SIZE(fix)) {
				more = true;
				break;
			}
			get_task_struct(p);
			own[n] = pe;
			fix[n++] = p;
		}
		spin_unlock(&sbridge_steer_lock);
		rcu_read_unlock();
		/* entries stay (mutex held) and nothing writes them now */
		for (i = 0; i < n; i++) {
			if (!set_cpus_allowed_ptr(fix[i], own[i]->user))
				trace_sbridge_act(SBRIDGE_TP_ACT_PLACEMENT,
						  SBRIDGE_TP_OP_RESTORE, fix[i], -1,
						  own[i]->user, 0, 0);
			put_task_struct(fix[i]);
		}
		total += n;
	} while (more && ++rounds < 64);
	return total;
}

/**
 * sbridge_placement_steered() - tasks steered now
 *
 * Return: count.
 */
static unsigned int sbridge_placement_steered(void)
{
	return READ_ONCE(sbridge_steered_now);
}

static bool sbridge_place_active(void)
{
	return sbridge_placement_steered() > 0;
}

static const char *sbridge_place_status(void)
{
	if (!READ_ONCE(sbridge_act_params.placement))
		return "off";
	if (READ_ONCE(sbridge_act_params.observe))
		return "off (observe only)";
	if (READ_ONCE(sbridge_act_params.selftest))
		return "on (checker selftest: steering ignores saturation)";
	if (sbridge_topo.ntypes < 2)
		return "on (idle: one core type, nothing to steer to)";
	return "on";
}

/**
 * sbridge_placement_read_counts() - placement's counters
 * @c: filled (each word read on its own, not as one snapshot)
 */
void sbridge_placement_read_counts(struct sbridge_placement_counts *c)
{
	c->steered = sbridge_placement_steered();
	c->steers = READ_ONCE(sbridge_place_steers);
	c->releases = READ_ONCE(sbridge_place_releases);
	c->user_wins = READ_ONCE(sbridge_place_user_wins);
	c->yields = READ_ONCE(sbridge_place_yields);
	c->inherits = READ_ONCE(sbridge_place_inherits);
	c->inherit_lost = READ_ONCE(sbridge_place_inherit_lost);
	c->swept = READ_ONCE(sbridge_place_swept);
}

static int sbridge_place_init(void)
{
	if (!zalloc_cpumask_var(&sbridge_place_tmp, GFP_KERNEL))
		return -ENOMEM;
	return 0;
}

/* Hooks are gone: restore late children, fix orphans, free everything. */
static void sbridge_place_exit(void)
{
	struct sbridge_steer *e, *n;

	mutex_lock(&sbridge_place_mutex);
	sbridge_place_run++;
	sbridge_place_sweep(true);
	sbridge_place_swept += sbridge_place_orphans();
	spin_lock(&sbridge_steer_lock);
	list_for_each_entry_safe(e, n, &sbridge_steer_list, node) {
		list_del(&e->node);
		hash_del(&e->hnode);
		sbridge_steer_state(e, SBRIDGE_RELEASED);
		sbridge_steer_count--;
		sbridge_steer_free(e);
	}
	spin_unlock(&sbridge_steer_lock);
	mutex_unlock(&sbridge_place_mutex);
	if (sbridge_place_swept)
		pr_info("placement: %llu late children given their own mask at unload\n",
			sbridge_place_swept);
	free_cpumask_var(sbridge_place_tmp);
}

const struct sbridge_actuator sbridge_act_placement = {
	.name = "placement",
	.enabled = &sbridge_act_params.placement,
	.hint_bit = SBRIDGE_HINT_PLACEMENT,
	.init = sbridge_place_init,
	.apply = sbridge_place_apply,
	.restore = sbridge_place_restore,
	.exit = sbridge_place_exit,
	.fork = sbridge_place_fork,
	.active = sbridge_place_active,
	.status = sbridge_place_status,
};
