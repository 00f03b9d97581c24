// SPDX-License-Identifier: GPL-2.0
/*
 * Placement actuator: HMP-style up/down steering through affinity.
 *
 * From a work item (never the switch path), a tracked fair task whose
 * PELT utilisation crosses act.up_util is restricted to the core type its
 * factors prefer (sbridge_task_placement()), intersected with the affinity
 * it had, and released when its utilisation falls below act.down_util or
 * its preferred type changes: two thresholds, so no ping-pong. Only a
 * runnable task is steered, and a steered one's utilisation is decayed
 * while it sleeps (PELT does not update a blocked task's util_avg).
 *
 * Rules: the mask set is always a strict subset of the task's own mask
 * (never widened); a type gets at most as many steered tasks as it has
 * CPUs (never onto a saturated type); if the task's mask changes under us
 * (sched_setaffinity, cpuset) the user wins at once and the task is never
 * touched again; disable and unload put back exactly the mask saved.
 *
 * A task forked by a steered task inherits the steered mask. So that no
 * such mask outlives sbridge, the fork hook gives the child its own entry
 * with the parent's saved mask (sbridge_placement_fork()): it is then
 * released, handed to the user or restored at unload like any other.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/hashtable.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"

#define SBRIDGE_STEER_MAX	128	/* entries the pass creates */
#define SBRIDGE_STEER_TOTAL	4096	/* with children that inherited a mask */
#define SBRIDGE_STEER_BATCH	16	/* candidates acted on per pass */

enum { SB_STEERED, SB_HANDS_OFF };

/**
 * struct sbridge_steer - a task placement touched
 * @node: in sbridge_steer_list
 * @hnode: in sbridge_steer_hash, keyed by @p
 * @p: the task; a reference is held while the entry exists
 * @user: the task's own mask before we steered it
 * @set: the mask we set
 * @state: SB_STEERED, or SB_HANDS_OFF (user changed it or the checker
 *	made us yield: never steered again)
 * @type: core type it is steered to
 * @off_since: clock when the pass first saw the task off the runqueue,
 *	0 while it is queued (pass only, under sbridge_place_mutex)
 *
 * The list and hash change under sbridge_steer_lock; the pass and
 * release paths also hold sbridge_place_mutex (across the sleeping
 * affinity calls). The fork hook and the checker's RCU walk take only the
 * spinlock, and the fork hook only ever adds entries.
 */
struct sbridge_steer {
	struct list_head node;
	struct hlist_node hnode;
	struct task_struct *p;
	cpumask_var_t user;
	cpumask_var_t set;
	u8 state;
	u8 type;
	u64 off_since;
};

static LIST_HEAD(sbridge_steer_list);
static DEFINE_HASHTABLE(sbridge_steer_hash, 8);
static unsigned int sbridge_steer_count, sbridge_steered_now;
static bool sbridge_steer_closed;	/* exit: the fork hook adds no more */
static DEFINE_SPINLOCK(sbridge_steer_lock);
static DEFINE_MUTEX(sbridge_place_mutex);
static int sbridge_selftest_cpu = -1;
static u64 sbridge_place_steers, sbridge_place_releases, sbridge_place_user_wins,
	   sbridge_place_yields, sbridge_place_inherits, sbridge_place_inherit_lost;

static void sbridge_place_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_place_work, sbridge_place_fn);

/**
 * sbridge_pick_cpu() - O(1) randomized choice of a CPU in @mask (seed 002)
 * @mask: candidate CPUs, non-empty
 *
 * A random starting point and the next set bit from there, instead of a
 * full scan for the "best" CPU: spreads choices without global state.
 *
 * Return: a CPU of @mask, or nr_cpu_ids if it is empty.
 */
int sbridge_pick_cpu(const struct cpumask *mask)
{
	int start = get_random_u32() % nr_cpu_ids;
	int cpu = cpumask_next(start - 1, mask);

	return cpu < nr_cpu_ids ? cpu : cpumask_first(mask);
}

static struct sbridge_steer *sbridge_steer_find(struct task_struct *p)
{
	struct sbridge_steer *e;

	hash_for_each_possible(sbridge_steer_hash, e, hnode, (unsigned long)p)
		if (e->p == p)
			return e;
	return NULL;
}

static void sbridge_steer_add(struct sbridge_steer *e)
{
	list_add(&e->node, &sbridge_steer_list);
	hash_add(sbridge_steer_hash, &e->hnode, (unsigned long)e->p);
	sbridge_steer_count++;
	sbridge_steered_now++;
}

static struct sbridge_steer *sbridge_steer_alloc(gfp_t gfp)
{
	struct sbridge_steer *e = kzalloc(sizeof(*e), gfp);

	if (!e)
		return NULL;
	if (!alloc_cpumask_var(&e->user, gfp) || !alloc_cpumask_var(&e->set, gfp)) {
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
	kfree(e);
}

static void sbridge_steer_del(struct sbridge_steer *e)
{
	spin_lock(&sbridge_steer_lock);
	list_del(&e->node);
	hash_del(&e->hnode);
	sbridge_steer_count--;
	if (e->state == SB_STEERED)
		sbridge_steered_now--;
	spin_unlock(&sbridge_steer_lock);
	sbridge_steer_free(e);
}

static void sbridge_steer_hands_off(struct sbridge_steer *e)
{
	spin_lock(&sbridge_steer_lock);
	if (e->state == SB_STEERED)
		sbridge_steered_now--;
	e->state = SB_HANDS_OFF;
	spin_unlock(&sbridge_steer_lock);
}

/* The task's mask is still the one we set: nobody else changed it. */
static bool sbridge_steer_intact(struct sbridge_steer *e)
{
	return cpumask_equal(&e->p->cpus_mask, e->set);
}

/* Gives the task its own mask back; returns false if the user took over. */
static bool sbridge_steer_release(struct sbridge_steer *e)
{
	if (!sbridge_steer_intact(e)) {
		sbridge_place_user_wins++;
		return false;
	}
	if (set_cpus_allowed_ptr(e->p, e->user))
		return false;
	sbridge_place_releases++;
	return true;
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
	if (e && e->state == SB_STEERED) {
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
	e = sbridge_steer_find(p);
	if (e && e->state == SB_STEERED) {
		sbridge_steer_release(e);
		sbridge_steer_hands_off(e);
		sbridge_place_yields++;
		pr_info("placement yields pid %d to the work-conserving checker\n",
			task_pid_nr(p));
	}
	mutex_unlock(&sbridge_place_mutex);
}

/**
 * sbridge_placement_fork() - @child inherited @parent's steered mask
 * @parent: the forking task
 * @child: the new task, not yet woken
 *
 * Gives @child an entry holding @parent's own mask, so that release,
 * a user's change and unload treat it like @parent. If no entry can be
 * had, the loss is counted and logged: that child keeps the narrow mask.
 *
 * Context: sched_process_fork tracepoint; takes a spinlock, allocates
 * with GFP_NOWAIT only when @parent is steered.
 */
void sbridge_placement_fork(struct task_struct *parent, struct task_struct *child)
{
	struct sbridge_steer *e, *pe;
	bool steered;

	if (!READ_ONCE(sbridge_steered_now))
		return;
	spin_lock(&sbridge_steer_lock);
	pe = sbridge_steer_find(parent);
	steered = pe && pe->state == SB_STEERED;
	spin_unlock(&sbridge_steer_lock);
	if (!steered)
		return;
	e = sbridge_steer_alloc(GFP_NOWAIT | __GFP_NOWARN);
	spin_lock(&sbridge_steer_lock);
	pe = sbridge_steer_find(parent);
	if (!pe || pe->state != SB_STEERED || sbridge_steer_closed) {
		/* released or closed meanwhile: the child has the user's mask */
		spin_unlock(&sbridge_steer_lock);
		goto free;
	}
	if (!e || sbridge_steer_count >= SBRIDGE_STEER_TOTAL) {
		sbridge_place_inherit_lost++;
		spin_unlock(&sbridge_steer_lock);
		pr_warn_ratelimited("pid %d: keeps its parent's steered affinity (no entry)\n",
				    task_pid_nr(child));
		goto free;
	}
	cpumask_copy(e->user, pe->user);
	cpumask_copy(e->set, pe->set);
	e->type = pe->type;
	e->state = SB_STEERED;
	get_task_struct(child);
	e->p = child;
	sbridge_steer_add(e);
	sbridge_place_inherits++;
	spin_unlock(&sbridge_steer_lock);
	return;
free:
	if (e)
		sbridge_steer_free(e);
}

/**
 * sbridge_placement_steered() - tasks steered now
 *
 * Return: count.
 */
unsigned int sbridge_placement_steered(void)
{
	return READ_ONCE(sbridge_steered_now);
}

/**
 * sbridge_placement_active() - placement holds some task's affinity
 *
 * Return: true if at least one task is steered.
 */
bool sbridge_placement_active(void)
{
	return sbridge_placement_steered() > 0;
}

/**
 * sbridge_placement_status() - one status word for placement
 *
 * Return: static string.
 */
const char *sbridge_placement_status(void)
{
	if (!READ_ONCE(sbridge_act_params.placement))
		return "off";
	if (READ_ONCE(sbridge_act_params.selftest))
		return "on (checker selftest: steering ignores saturation)";
	if (sbridge_topo.ntypes < 2)
		return "on (idle: one core type, nothing to steer to)";
	return "on";
}

/**
 * struct sbridge_place_cand - a task the pass wants to act on
 * @p: task, referenced
 * @type: target core type
 */
struct sbridge_place_cand {
	struct task_struct *p;
	unsigned int type;
};

/* Releases every steered task and drops entries of exited tasks. */
static void sbridge_place_prune(bool release_all)
{
	struct sbridge_steer *e, *n;

	list_for_each_entry_safe(e, n, &sbridge_steer_list, node) {
		if (e->p->exit_state || (e->p->flags & PF_EXITING)) {
			sbridge_steer_del(e);
			continue;
		}
		if (e->state != SB_STEERED)
			continue;
		if (!sbridge_steer_intact(e)) {
			sbridge_place_user_wins++;
			pr_info("pid %d: user affinity change wins over placement\n",
				task_pid_nr(e->p));
			sbridge_steer_hands_off(e);
			continue;
		}
		if (release_all) {
			sbridge_steer_release(e);
			sbridge_steer_del(e);
		}
	}
}

/* Target type and whether to steer; called under RCU. */
static bool sbridge_place_want(struct task_struct *p, unsigned int *type)
{
	struct sbridge_task *t = sbridge_task_lookup(p);

	if (!t || READ_ONCE(t->pref) == SBRIDGE_PREF_EXCLUDE)
		return false;
	if (READ_ONCE(sbridge_act_params.selftest)) {
		*type = sbridge_topo.ref_type;
		return true;
	}
	if (sbridge_topo.ntypes < 2)
		return false;
	*type = sbridge_task_placement(t);
	return true;
}

/*
 * PELT leaves a sleeping task's util_avg as it was when it blocked. Decay
 * it as PELT would (halving every 32 ms) from when the pass first saw the
 * task off the runqueue, so a steered task that sleeps on is released and
 * frees its slot on the type instead of holding it with a stale value.
 */
static unsigned long sbridge_steer_util(struct sbridge_steer *e,
					unsigned long util, bool queued,
					u64 now)
{
	u64 halves;

	if (queued) {
		e->off_since = 0;
		return util;
	}
	if (!e->off_since) {
		e->off_since = now;
		return util;
	}
	halves = div64_u64(now - e->off_since, 32 * NSEC_PER_MSEC);
	return halves >= BITS_PER_LONG ? 0 : util >> halves;
}

static int sbridge_place_collect(struct sbridge_place_cand *c, unsigned int max,
				 unsigned int *type_load)
{
	u32 up = READ_ONCE(sbridge_act_params.up_util);
	u32 down = READ_ONCE(sbridge_act_params.down_util);
	struct task_struct *g, *p;
	struct sbridge_steer *e;
	unsigned int n = 0, type;
	u64 now = ktime_get_ns();
	unsigned long util;
	bool want, queued;

	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (n >= max)
			break;
		if ((p->flags & (PF_KTHREAD | PF_EXITING | PF_NO_SETAFFINITY)) ||
		    !sbridge_fair_policy(p->policy))
			continue;
		util = READ_ONCE(p->se.avg.util_avg);
		queued = sbridge_task_queued(p);
		want = sbridge_place_want(p, &type);
		spin_lock(&sbridge_steer_lock);
		e = sbridge_steer_find(p);
		spin_unlock(&sbridge_steer_lock);
		if (e) {
			util = sbridge_steer_util(e, util, queued, now);
			/*
			 * Down: released when cold, preferring another type,
			 * or when inherited entries crowd its type.
			 */
			if (e->state == SB_STEERED &&
			    (util < down || !want || type != e->type ||
			     type_load[e->type] >
			     cpumask_weight_and(&sbridge_topo.type_mask[e->type],
						cpu_active_mask))) {
				type_load[e->type]--;
				get_task_struct(p);
				c[n].p = p;
				c[n++].type = SBRIDGE_MAX_CORE_TYPES;
			}
			continue;
		}
		/* A sleeping task's util is stale: only runnable ones go up. */
		if (!want || !queued || util < up)
			continue;
		if (!READ_ONCE(sbridge_act_params.selftest) &&
		    type_load[type] >=
		    cpumask_weight_and(&sbridge_topo.type_mask[type], cpu_active_mask))
			continue;	/* target type saturated */
		type_load[type]++;
		get_task_struct(p);
		c[n].p = p;
		c[n++].type = type;
	}
	rcu_read_unlock();
	return n;
}

/* Restricts @p to @type inside its own mask; a new entry on success. */
static void sbridge_place_steer(struct task_struct *p, unsigned int type)
{
	struct sbridge_steer *e;

	if (sbridge_steer_count >= SBRIDGE_STEER_MAX)
		return;
	e = sbridge_steer_alloc(GFP_KERNEL);
	if (!e)
		return;
	cpumask_copy(e->user, &p->cpus_mask);
	cpumask_and(e->set, e->user, &sbridge_topo.type_mask[type]);
	cpumask_and(e->set, e->set, cpu_active_mask);
	if (READ_ONCE(sbridge_act_params.selftest)) {
		if (sbridge_selftest_cpu < 0)
			sbridge_selftest_cpu = sbridge_pick_cpu(e->set);
		if (sbridge_selftest_cpu >= nr_cpu_ids ||
		    !cpumask_test_cpu(sbridge_selftest_cpu, e->set))
			goto free;
		cpumask_copy(e->set, cpumask_of(sbridge_selftest_cpu));
	}
	/* Never widen, never a no-op, never empty. */
	if (cpumask_empty(e->set) || cpumask_equal(e->set, e->user) ||
	    !cpumask_subset(e->set, e->user))
		goto free;
	if (set_cpus_allowed_ptr(p, e->set))
		goto free;
	get_task_struct(p);
	e->p = p;
	e->type = type;
	e->state = SB_STEERED;
	spin_lock(&sbridge_steer_lock);
	sbridge_steer_add(e);
	spin_unlock(&sbridge_steer_lock);
	sbridge_place_steers++;
	pr_debug("pid %d steered to type %u: %*pbl\n", task_pid_nr(p), type,
		 cpumask_pr_args(e->set));
	return;
free:
	sbridge_steer_free(e);
}

static void sbridge_place_pass(void)
{
	struct sbridge_place_cand c[SBRIDGE_STEER_BATCH];
	unsigned int type_load[SBRIDGE_MAX_CORE_TYPES] = { 0 };
	struct sbridge_steer *e;
	int i, n;

	list_for_each_entry(e, &sbridge_steer_list, node)
		if (e->state == SB_STEERED)
			type_load[e->type]++;
	n = sbridge_place_collect(c, ARRAY_SIZE(c), type_load);
	for (i = 0; i < n; i++) {
		if (c[i].type < SBRIDGE_MAX_CORE_TYPES) {
			sbridge_place_steer(c[i].p, c[i].type);
		} else {
			e = sbridge_steer_find(c[i].p);
			if (e && e->state == SB_STEERED) {
				if (sbridge_steer_release(e))
					sbridge_steer_del(e);
				else
					sbridge_steer_hands_off(e);
			}
		}
		put_task_struct(c[i].p);
	}
}

static void sbridge_place_fn(struct work_struct *w)
{
	bool on = READ_ONCE(sbridge_act_params.placement);

	mutex_lock(&sbridge_place_mutex);
	if (!READ_ONCE(sbridge_act_params.selftest))
		sbridge_selftest_cpu = -1;
	sbridge_place_prune(!on);
	if (on)
		sbridge_place_pass();
	mutex_unlock(&sbridge_place_mutex);
	schedule_delayed_work(&sbridge_place_work,
			      msecs_to_jiffies(READ_ONCE(sbridge_act_params.period_ms)));
}

/**
 * sbridge_placement_counters() - steer/release/user-win/yield counts
 * @buf: sysfs buffer
 * @at: offset to write at
 *
 * Return: bytes written.
 */
int sbridge_placement_counters(char *buf, int at)
{
	return sysfs_emit_at(buf, at,
			     "placement_steered %u\nplacement_steers %llu\nplacement_releases %llu\nplacement_user_wins %llu\nplacement_yields %llu\nplacement_inherits %llu\nplacement_inherit_lost %llu\n",
			     sbridge_placement_steered(), READ_ONCE(sbridge_place_steers),
			     READ_ONCE(sbridge_place_releases),
			     READ_ONCE(sbridge_place_user_wins),
			     READ_ONCE(sbridge_place_yields),
			     READ_ONCE(sbridge_place_inherits),
			     READ_ONCE(sbridge_place_inherit_lost));
}

/**
 * sbridge_placement_init() - start the placement work
 *
 * Return: 0.
 */
int sbridge_placement_init(void)
{
	schedule_delayed_work(&sbridge_place_work, 0);
	return 0;
}

/**
 * sbridge_placement_exit() - stop, put every steered task's mask back
 *
 * Context: process context, sleeps.
 */
void sbridge_placement_exit(void)
{
	struct sbridge_steer *e, *n;

	cancel_delayed_work_sync(&sbridge_place_work);
	mutex_lock(&sbridge_place_mutex);
	spin_lock(&sbridge_steer_lock);
	sbridge_steer_closed = true;
	spin_unlock(&sbridge_steer_lock);
	sbridge_place_prune(true);
	list_for_each_entry_safe(e, n, &sbridge_steer_list, node)
		sbridge_steer_del(e);
	mutex_unlock(&sbridge_place_mutex);
}
