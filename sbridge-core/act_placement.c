// SPDX-License-Identifier: GPL-2.0
/*
 * Placement actuator: applies the decision layer's per-task hint through
 * affinity. FAST restricts a task to the fast core type, SLOW to the
 * others, NONE gives it its own mask back; always inside the mask the
 * task had (never widened, never empty).
 *
 * The records are the task ledger's (act_ledger.c): an entry is published
 * before set_cpus_allowed_ptr(), kept (with the masks it set) until its
 * task exits, released only when the kernel took the task's own mask
 * back, and a failed steer leaves the record saying what the task holds.
 *
 * Who owns a task's mask is decided from the kernel's own records:
 *  - a move to another cpuset (cgroup attach: the task's cpuset css is
 *    another one, by its serial number, which is never reused) makes the
 *    mask the cpuset's;
 *  - from 6.2 the kernel keeps the mask the user asked for
 *    (user_cpus_ptr, set by every sched_setaffinity(), never by us): a
 *    new request makes the mask the user's, even one equal to ours;
 *  - a mask that is no longer ours while every CPU of our set is offline
 *    was widened by the kernel's hotplug fallback (select_fallback_rq(),
 *    which also clears user_cpus_ptr from 6.2): the task gets its own
 *    mask back, not the fallback;
 *  - otherwise a mask other than ours is someone else's.
 * What no kernel records (docs/reliability.md): on 6.1 a user's request,
 * so there a taskset to exactly our mask is taken for ours; anywhere, a
 * rewrite of the task's own cpuset's CPUs (cpuset.cpus, AllowedCPUs=) to
 * exactly our mask.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "act_ops.h"
#include "act_ledger.h"
#include "trace_act.h"

/* act.placement: this actuator's switch (SET_PARAM and module parameter) */
static u32 sbridge_place_on = 1;	/* idle with one core type: see sbridge_actuators_mode() */
static struct sbridge_param_desc sbridge_place_switch = {
	.name = "act.placement", .val = &sbridge_place_on, .min = 0, .max = 1,
};
sbridge_module_param(act_placement, sbridge_place_switch,
		     "1: steer hot tasks to the core type the decision chose");

#define SBRIDGE_STEER_MAX	128	/* tasks steered by runs at once */

/**
 * struct sbridge_steer - a task placement touched
 * @le: its ledger record (state, task, hint, run)
 * @user: the task's own mask before we steered it
 * @set: the mask we set (kept after release, to recognise children)
 * @prev: the mask we set before @set (a child may have copied it just
 *	before a re-steer), empty if none
 * @ureq: a copy of the user's requested mask (user_cpus_ptr, 6.2+) when
 *	we steered
 * @ureq_ptr: user_cpus_ptr then, compared by identity only
 * @cpuset: serial number of the task's cpuset css then (0 without cpusets)
 *
 * Changes under the ledger's lock.
 */
struct sbridge_steer {
	struct sbridge_lent le;
	cpumask_var_t user;
	cpumask_var_t set;
	cpumask_var_t prev;
	cpumask_var_t ureq;
	const void *ureq_ptr;
	u64 cpuset;
};

#define sbridge_steer_of(e)	container_of(e, struct sbridge_steer, le)

static int sbridge_selftest_cpu = -1;
/* scratch masks: _lk under the ledger's lock, the others under its mutex */
static cpumask_var_t sbridge_place_lk, sbridge_place_tmp, sbridge_place_old,
		     sbridge_place_oldprev;
static u64 sbridge_place_steers, sbridge_place_yields;

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

/* Serial number of @p's cpuset css: another one means another cpuset. */
static u64 sbridge_cpuset_id(struct task_struct *p)
{
#ifdef CONFIG_CPUSETS
	u64 id;

	rcu_read_lock();
	id = task_css(p, cpuset_cgrp_id)->serial_nr;
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

/* Records what the kernel keeps of @p's owners in @s (steer, fork). */
static void sbridge_steer_record(struct sbridge_steer *s, struct task_struct *p)
{
	s->ureq_ptr = sbridge_user_cpus(p, s->ureq);
	s->cpuset = sbridge_cpuset_id(p);
}

static struct sbridge_lent *sbridge_steer_alloc(gfp_t gfp)
{
	struct sbridge_steer *s = kzalloc(sizeof(*s), gfp);

	if (!s)
		return NULL;
	if (!zalloc_cpumask_var(&s->user, gfp) ||
	    !zalloc_cpumask_var(&s->set, gfp) ||
	    !zalloc_cpumask_var(&s->prev, gfp) ||
	    !zalloc_cpumask_var(&s->ureq, gfp)) {
		free_cpumask_var(s->prev);
		free_cpumask_var(s->set);
		free_cpumask_var(s->user);
		kfree(s);
		return NULL;
	}
	return &s->le;
}

static void sbridge_steer_free(struct sbridge_lent *e)
{
	struct sbridge_steer *s = sbridge_steer_of(e);

	free_cpumask_var(s->user);
	free_cpumask_var(s->set);
	free_cpumask_var(s->prev);
	free_cpumask_var(s->ureq);
	kfree(s);
}

/*
 * The user's request on @p since we recorded @s (6.2+): 0 unchanged, 1
 * cleared by the kernel (its hotplug fallback), 2 a new request.
 */
static int sbridge_steer_ureq(const struct sbridge_steer *s,
			      struct task_struct *p)
{
	const void *now = sbridge_user_cpus(p, sbridge_place_lk);

	if (now == s->ureq_ptr &&
	    (!now || cpumask_equal(sbridge_place_lk, s->ureq)))
		return 0;
	return now ? 2 : 1;
}

static enum sbridge_le_owner sbridge_steer_owner(struct sbridge_lent *e)
{
	struct sbridge_steer *s = sbridge_steer_of(e);
	struct task_struct *p = e->p;
	int ureq;

	if (sbridge_cpuset_id(p) != s->cpuset)
		return SBRIDGE_OWN_THEIRS;
	ureq = sbridge_steer_ureq(s, p);
	if (cpumask_equal(&p->cpus_mask, s->set))
		return ureq ? SBRIDGE_OWN_THEIRS : SBRIDGE_OWN_OURS;
	if (ureq != 2 && !cpumask_intersects(s->set, cpu_active_mask))
		return SBRIDGE_OWN_LOST;
	return SBRIDGE_OWN_THEIRS;
}

/*
 * Does @p carry a mask @pe set on @parent (now, or before a re-steer)
 * that is not its own: @parent does not hold it by its own choice, @p
 * did not ask for exactly it (6.2+) and has not moved to another cpuset?
 */
static bool sbridge_steer_carries(const struct sbridge_lent *pe,
				  struct task_struct *parent,
				  struct task_struct *p)
{
	const struct sbridge_steer *s = sbridge_steer_of(pe);
	const struct cpumask *v;

	if (cpumask_equal(&p->cpus_mask, s->set))
		v = s->set;
	else if (!cpumask_empty(s->prev) && cpumask_equal(&p->cpus_mask, s->prev))
		v = s->prev;
	else
		return false;
	if (cpumask_equal(&parent->cpus_mask, v) &&
	    (pe->state != SBRIDGE_LE_SET || v != s->set))
		return false;
	if (sbridge_user_cpus(p, sbridge_place_lk) &&
	    cpumask_equal(sbridge_place_lk, &p->cpus_mask))
		return false;
	return sbridge_cpuset_id(p) == s->cpuset;
}

static void sbridge_steer_inherit(struct sbridge_lent *e,
				  const struct sbridge_lent *pe,
				  struct task_struct *child)
{
	struct sbridge_steer *s = sbridge_steer_of(e);

	cpumask_copy(s->user, sbridge_steer_of(pe)->user);
	cpumask_copy(s->set, &child->cpus_mask);
	cpumask_clear(s->prev);
	sbridge_steer_record(s, child);
}

static int sbridge_place_write_own(struct task_struct *p, const struct cpumask *own)
{
	int ret = set_cpus_allowed_ptr(p, own);

	if (!ret)
		trace_sbridge_act(SBRIDGE_TP_ACT_PLACEMENT, SBRIDGE_TP_OP_RESTORE,
				  p, -1, own, 0, 0);
	return ret;
}

static int sbridge_steer_write_own(struct sbridge_lent *e)
{
	return sbridge_place_write_own(e->p, sbridge_steer_of(e)->user);
}

static int sbridge_steer_write_from(const struct sbridge_lent *pe,
				    struct task_struct *p)
{
	return sbridge_place_write_own(p, sbridge_steer_of(pe)->user);
}

static const struct sbridge_ledger_ops sbridge_steer_ops = {
	.alloc = sbridge_steer_alloc,
	.free = sbridge_steer_free,
	.owner = sbridge_steer_owner,
	.carries = sbridge_steer_carries,
	.inherit = sbridge_steer_inherit,
	.write_own = sbridge_steer_write_own,
	.write_from = sbridge_steer_write_from,
};

static struct sbridge_ledger sbridge_steers =
	SBRIDGE_LEDGER_INIT(sbridge_steers, "affinity", &sbridge_steer_ops,
			    SBRIDGE_STEER_MAX);

/*
 * Steers @p to @set (a strict, non-empty subset of its own mask): record
 * first, then the mask. If the kernel refuses (a CPU of @set went
 * offline meanwhile), the record goes back to what the task holds.
 * Under the ledger's mutex.
 */
static void sbridge_steer_apply(struct task_struct *p, struct sbridge_lent *e,
				const struct cpumask *set, u8 hint)
{
	struct sbridge_ledger *l = &sbridge_steers;
	struct sbridge_lent *n = NULL;
	struct sbridge_steer *s;
	u8 was = SBRIDGE_LE_RELEASED;
	int ret;

	if (!e) {
		n = sbridge_ledger_reserve(l, p);
		if (!n)
			return;
		s = sbridge_steer_of(n);
		cpumask_copy(s->user, &p->cpus_mask);
		sbridge_steer_record(s, p);
	}
	spin_lock(&l->lock);
	if (n) {
		e = n;
		sbridge_ledger_commit(l, e, p);
	} else {
		was = e->state;
		s = sbridge_steer_of(e);
		if (was == SBRIDGE_LE_RELEASED) {
			/* the user may have changed the mask since we gave it back */
			cpumask_copy(s->user, &p->cpus_mask);
			sbridge_steer_record(s, p);
		}
		e->seen = l->run;
		sbridge_ledger_state(l, e, SBRIDGE_LE_SET);
	}
	s = sbridge_steer_of(e);
	cpumask_copy(sbridge_place_old, s->set);
	cpumask_copy(sbridge_place_oldprev, s->prev);
	if (!n)
		cpumask_copy(s->prev, s->set);
	cpumask_copy(s->set, set);
	e->hint = hint;
	spin_unlock(&l->lock);
	ret = sbridge_ledger_fail(SBRIDGE_FAIL_WRITE) ? -EINVAL :
	      set_cpus_allowed_ptr(p, set);
	if (ret) {
		/* the task holds what it held: the record says so */
		spin_lock(&l->lock);
		if (n) {
			cpumask_clear(s->set);
		} else {
			cpumask_copy(s->set, sbridge_place_old);
			cpumask_copy(s->prev, sbridge_place_oldprev);
		}
		sbridge_ledger_state(l, e, was);
		spin_unlock(&l->lock);
		pr_debug("pid %d: steer refused (%d), keeps %s\n", task_pid_nr(p),
			 ret, was == SBRIDGE_LE_SET ? "the mask we set" : "its own mask");
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
	struct sbridge_ledger *l = &sbridge_steers;
	struct task_struct *p = h->p;
	struct sbridge_lent *e;
	bool same = false;
	u8 state;

	e = sbridge_ledger_look(l, p, &state);
	if (state == SBRIDGE_LE_HANDS_OFF)
		return;
	/* the mask the hint narrows: the user's, not ours */
	spin_lock(&l->lock);
	cpumask_copy(sbridge_place_tmp, state == SBRIDGE_LE_SET ?
		     sbridge_steer_of(e)->user : &p->cpus_mask);
	spin_unlock(&l->lock);
	if (h->hint == SBRIDGE_HINT_NONE ||
	    !sbridge_place_mask(d, h->hint, sbridge_place_tmp, set)) {
		if (state == SBRIDGE_LE_SET)
			sbridge_ledger_release(l, e);
		return;
	}
	if (state == SBRIDGE_LE_SET) {
		spin_lock(&l->lock);
		same = cpumask_equal(sbridge_steer_of(e)->set, set);
		spin_unlock(&l->lock);
	}
	if (!same)
		sbridge_steer_apply(p, e, set, h->hint);
}

static void sbridge_place_apply(const struct sbridge_decision *d)
{
	cpumask_var_t set;
	unsigned int i;

	if (!zalloc_cpumask_var(&set, GFP_KERNEL))
		return;
	sbridge_ledger_begin(&sbridge_steers);
	if (!READ_ONCE(sbridge_act_params.selftest))
		sbridge_selftest_cpu = -1;
	for (i = 0; i < d->n; i++)
		sbridge_place_one(d, &d->task[i], set);
	/* a task the decision no longer holds gets its own mask back */
	sbridge_ledger_end(&sbridge_steers, false);
	free_cpumask_var(set);
}

static void sbridge_place_restore(void)
{
	sbridge_ledger_begin(&sbridge_steers);
	sbridge_ledger_end(&sbridge_steers, true);
}

/*
 * The affinity @p had before steering (.user_mask): true and @mask set if
 * @p is steered by sbridge now. Any non-IRQ context, takes a spinlock.
 */
static bool sbridge_place_user_mask(struct task_struct *p, struct cpumask *mask)
{
	struct sbridge_ledger *l = &sbridge_steers;
	struct sbridge_lent *e;
	bool ret = false;

	spin_lock(&l->lock);
	e = sbridge_ledger_find(l, p);
	if (e && e->state == SBRIDGE_LE_SET) {
		cpumask_copy(mask, sbridge_steer_of(e)->user);
		ret = true;
	}
	spin_unlock(&l->lock);
	return ret;
}

/*
 * The checker blames @p's steering (.yield): restore @p's own mask and
 * never steer it again. Process context, sleeps.
 */
static void sbridge_place_yield(struct task_struct *p)
{
	sbridge_ledger_yield(&sbridge_steers, p);
	sbridge_place_yields++;
	pr_info("placement yields pid %d to the work-conserving checker\n",
		task_pid_nr(p));
}

/* sched_process_fork: @child copied @parent's mask in dup_task_struct(). */
static void sbridge_place_fork(struct task_struct *parent,
			       struct task_struct *child)
{
	sbridge_ledger_fork(&sbridge_steers, parent, child);
}

/**
 * sbridge_placement_steered() - tasks steered now
 *
 * Return: count.
 */
static unsigned int sbridge_placement_steered(void)
{
	return sbridge_ledger_live(&sbridge_steers);
}

static bool sbridge_place_active(void)
{
	return sbridge_placement_steered() > 0;
}

static const char *sbridge_place_status(void)
{
	if (!READ_ONCE(sbridge_place_on))
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
	struct sbridge_ledger_counts lc;

	sbridge_ledger_read(&sbridge_steers, &lc);
	c->steered = lc.live;
	c->steers = READ_ONCE(sbridge_place_steers);
	c->releases = lc.releases;
	c->user_wins = lc.user_wins;
	c->yields = READ_ONCE(sbridge_place_yields);
	c->inherits = lc.inherits;
	c->inherit_lost = lc.lost;
	c->swept = lc.found;
	c->fallbacks = lc.fallbacks;
	c->refused = lc.refused;
}

static int sbridge_place_init(void)
{
	if (!zalloc_cpumask_var(&sbridge_place_tmp, GFP_KERNEL))
		return -ENOMEM;
	if (!zalloc_cpumask_var(&sbridge_place_old, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&sbridge_place_oldprev, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&sbridge_place_lk, GFP_KERNEL)) {
		free_cpumask_var(sbridge_place_oldprev);
		free_cpumask_var(sbridge_place_old);
		free_cpumask_var(sbridge_place_tmp);
		return -ENOMEM;
	}
	sbridge_ledger_init(&sbridge_steers);
	return 0;
}

/* Hooks are gone: restore, find every thread still carrying a mask, free. */
static void sbridge_place_exit(void)
{
	sbridge_ledger_exit(&sbridge_steers);
	free_cpumask_var(sbridge_place_lk);
	free_cpumask_var(sbridge_place_oldprev);
	free_cpumask_var(sbridge_place_old);
	free_cpumask_var(sbridge_place_tmp);
}

const struct sbridge_actuator sbridge_act_placement = {
	.name = "placement",
	.param = &sbridge_place_switch,
	.trace_id = SBRIDGE_TP_ACT_PLACEMENT,
	.hint_bit = SBRIDGE_HINT_PLACEMENT,
	.init = sbridge_place_init,
	.apply = sbridge_place_apply,
	.restore = sbridge_place_restore,
	.exit = sbridge_place_exit,
	.fork = sbridge_place_fork,
	.active = sbridge_place_active,
	.status = sbridge_place_status,
	.user_mask = sbridge_place_user_mask,
	.yield = sbridge_place_yield,
	.bpf_sched_off = true,
};
