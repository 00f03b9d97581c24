// SPDX-License-Identifier: GPL-2.0
/*
 * The task ledger: one record per task of what an actuator (placement,
 * uclamp) changed in it, and the rules that keep every such change owned
 * until it is given back. The actuators say what their values are
 * (struct sbridge_ledger_ops); this file holds the records, their states,
 * the fork hook, the sweep and the unload.
 *
 * Rules (docs/architecture.md, "Ownership"):
 *  - reserve before write: an entry is published, as SET, before the
 *    value is written; the fork hook takes entries from a pool the runner
 *    refills, so it does not depend on an atomic allocation;
 *  - released only on success: if the kernel refuses to give a task its
 *    own value back (a policy changed meanwhile), the entry stays SET and
 *    the release is retried at the next run and at unload;
 *  - "the user changed it" is the actuator's owner() verdict, from the
 *    kernel's own records where it keeps them; then hands off for good;
 *  - every entry keeps the values it set (and the ones before) until its
 *    task exits, tombstones and hands-off entries too, so a child that
 *    copied one long before its fork hook is still recognised;
 *  - nothing lost: a child the fork hook could not record marks the
 *    ledger dirty and the next run scans every thread of the system; the
 *    unload always does, after waiting for forks in flight, so threads
 *    made by any thread and children whose parent is gone are found too.
 *
 * Locking: see struct sbridge_ledger. The fork hook only adds entries.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "act_ledger.h"

#define SBRIDGE_LEDGER_TOTAL	4096	/* entries, with tombstones and children */
#define SBRIDGE_LEDGER_POOL	32	/* entries kept for the fork hook */
#define SBRIDGE_LEDGER_BATCH	32	/* entries released per walk */
#define SBRIDGE_LEDGER_SCAN	64	/* threads fixed per pass of a scan */
#define SBRIDGE_LEDGER_GONE	64	/* entries of exited tasks a scan checks */
#define SBRIDGE_LEDGER_REFUSALS	20	/* retries of a refused release at unload */
#define SBRIDGE_FORK_WAIT_MS	2000	/* longest wait for forks in flight */

static bool sbridge_le_dead(const struct task_struct *p)
{
	return p->exit_state || (p->flags & PF_EXITING);
}

/**
 * sbridge_ledger_find() - the entry of @p
 * @l: ledger, its lock held
 * @p: task
 *
 * Return: the entry or NULL.
 */
struct sbridge_lent *sbridge_ledger_find(struct sbridge_ledger *l,
					 struct task_struct *p)
{
	struct sbridge_lent *e;

	lockdep_assert_held(&l->lock);
	hash_for_each_possible(l->hash, e, hnode, (unsigned long)p)
		if (e->p == p)
			return e;
	return NULL;
}

/**
 * sbridge_ledger_state() - move @e to @state, keeping the live count
 * @l: ledger, its lock held
 * @e: entry
 * @state: enum sbridge_le_state
 */
void sbridge_ledger_state(struct sbridge_ledger *l, struct sbridge_lent *e,
			  u8 state)
{
	lockdep_assert_held(&l->lock);
	if (e->state == SBRIDGE_LE_SET && state != SBRIDGE_LE_SET)
		l->c.live--;
	else if (e->state != SBRIDGE_LE_SET && state == SBRIDGE_LE_SET)
		l->c.live++;
	e->state = state;
	if (state != SBRIDGE_LE_SET)
		e->refused = 0;
}

/* Under the lock: publish @e for @p (referenced here). */
static void sbridge_ledger_add(struct sbridge_ledger *l, struct sbridge_lent *e,
			       struct task_struct *p)
{
	lockdep_assert_held(&l->lock);
	get_task_struct(p);
	e->p = p;
	list_add(&e->node, &l->list);
	hash_add(l->hash, &e->hnode, (unsigned long)p);
	hash_add(l->ghash, &e->gnode, (unsigned long)p->signal);
	l->c.entries++;
}

/* Under the lock: unpublish @e; the caller frees it after unlocking. */
static void sbridge_ledger_del(struct sbridge_ledger *l, struct sbridge_lent *e,
			       struct list_head *to)
{
	lockdep_assert_held(&l->lock);
	sbridge_ledger_state(l, e, SBRIDGE_LE_RELEASED);
	list_move(&e->node, to);
	hash_del(&e->hnode);
	hash_del(&e->gnode);
	l->c.entries--;
}

static void sbridge_ledger_free_list(struct sbridge_ledger *l,
				     struct list_head *head)
{
	struct sbridge_lent *e, *n;

	list_for_each_entry_safe(e, n, head, node) {
		list_del(&e->node);
		if (e->p)
			put_task_struct(e->p);
		l->ops->free(e);
	}
}

/* Tops up the fork hook's pool. Process context, mutex held. */
static void sbridge_ledger_refill(struct sbridge_ledger *l)
{
	struct sbridge_lent *e;

	while (READ_ONCE(l->npool) < SBRIDGE_LEDGER_POOL) {
		e = l->ops->alloc(GFP_KERNEL);
		if (!e)
			return;
		spin_lock(&l->lock);
		list_add(&e->node, &l->pool);
		l->npool++;
		spin_unlock(&l->lock);
	}
}

/* Under the lock: an entry from the pool, else an atomic one, else NULL. */
static struct sbridge_lent *sbridge_ledger_take(struct sbridge_ledger *l)
{
	struct sbridge_lent *e;

	lockdep_assert_held(&l->lock);
	e = list_first_entry_or_null(&l->pool, struct sbridge_lent, node);
	if (e) {
		list_del(&e->node);
		l->npool--;
	}
	return e;
}

/**
 * sbridge_ledger_init() - ready a ledger (statically initialised)
 * @l: ledger
 *
 * Context: module init; fills the pool (failure only shrinks it).
 */
void sbridge_ledger_init(struct sbridge_ledger *l)
{
	mutex_lock(&l->mutex);
	sbridge_ledger_refill(l);
	mutex_unlock(&l->mutex);
}

/**
 * sbridge_ledger_begin() - start a run: take the mutex, next run number
 * @l: ledger
 *
 * Context: process context, sleeps; pair with sbridge_ledger_end().
 */
void sbridge_ledger_begin(struct sbridge_ledger *l)
{
	mutex_lock(&l->mutex);
	l->run++;
	sbridge_ledger_refill(l);
}

/**
 * sbridge_ledger_look() - the entry of @p and its state, as a run sees it
 * @l: ledger, its mutex held
 * @p: task
 * @state: out: the entry's state after the look (RELEASED if none)
 *
 * Marks the entry seen by this run. A SET entry whose value someone else
 * changed goes hands off; one the kernel replaced by its own fallback is
 * given its own value back here.
 *
 * Return: the entry or NULL.
 */
struct sbridge_lent *sbridge_ledger_look(struct sbridge_ledger *l,
					 struct task_struct *p, u8 *state)
{
	enum sbridge_le_owner own = SBRIDGE_OWN_OURS;
	struct sbridge_lent *e;

	lockdep_assert_held(&l->mutex);
	spin_lock(&l->lock);
	e = sbridge_ledger_find(l, p);
	if (e) {
		e->seen = l->run;
		if (e->state == SBRIDGE_LE_SET)
			own = l->ops->owner(e);
		if (own == SBRIDGE_OWN_THEIRS) {
			sbridge_ledger_state(l, e, SBRIDGE_LE_HANDS_OFF);
			l->c.user_wins++;
			pr_info("pid %d: a %s change by the user or the kernel wins\n",
				task_pid_nr(p), l->name);
		}
	}
	spin_unlock(&l->lock);
	if (e && own == SBRIDGE_OWN_LOST)
		sbridge_ledger_release(l, e);
	*state = e ? READ_ONCE(e->state) : SBRIDGE_LE_RELEASED;
	return e;
}

/**
 * sbridge_ledger_reserve() - a new entry for @p, before its value is set
 * @l: ledger, its mutex held
 * @p: task without an entry
 *
 * Return: an unpublished entry (fill it, then sbridge_ledger_commit()),
 * or NULL when the caps are reached or memory is short.
 */
struct sbridge_lent *sbridge_ledger_reserve(struct sbridge_ledger *l,
					    struct task_struct *p)
{
	lockdep_assert_held(&l->mutex);
	if (READ_ONCE(l->c.live) >= l->live_max ||
	    READ_ONCE(l->c.entries) >= SBRIDGE_LEDGER_TOTAL)
		return NULL;
	return l->ops->alloc(GFP_KERNEL);
}

/**
 * sbridge_ledger_commit() - publish a reserved entry as SET
 * @l: ledger, its lock held
 * @e: from sbridge_ledger_reserve(), its values filled
 * @p: its task
 *
 * The caller writes the value after dropping the lock.
 */
void sbridge_ledger_commit(struct sbridge_ledger *l, struct sbridge_lent *e,
			   struct task_struct *p)
{
	sbridge_ledger_add(l, e, p);
	e->seen = l->run;
	sbridge_ledger_state(l, e, SBRIDGE_LE_SET);
}

/**
 * sbridge_ledger_release() - give @e's task its own value back
 * @l: ledger, its mutex held
 * @e: entry
 *
 * Only a SET entry is released. If its value is no longer ours, hands
 * off. If the kernel refuses the write, the entry stays SET and the next
 * run (or the unload) retries.
 */
void sbridge_ledger_release(struct sbridge_ledger *l, struct sbridge_lent *e)
{
	enum sbridge_le_owner own;
	int ret;

	lockdep_assert_held(&l->mutex);
	spin_lock(&l->lock);
	if (e->state != SBRIDGE_LE_SET) {
		spin_unlock(&l->lock);
		return;
	}
	if (sbridge_le_dead(e->p)) {
		/* exiting: nothing to give back, nobody won */
		sbridge_ledger_state(l, e, SBRIDGE_LE_RELEASED);
		spin_unlock(&l->lock);
		return;
	}
	own = l->ops->owner(e);
	if (own == SBRIDGE_OWN_THEIRS) {
		sbridge_ledger_state(l, e, SBRIDGE_LE_HANDS_OFF);
		l->c.user_wins++;
	}
	spin_unlock(&l->lock);
	if (own == SBRIDGE_OWN_THEIRS)
		return;
	/* check-then-write: a change right here is overwritten (L14) */
	ret = l->ops->write_own(e);
	spin_lock(&l->lock);
	if (ret) {
		l->c.refused++;
		if (e->refused < U8_MAX)
			e->refused++;
		if (e->refused == 1)
			pr_info("pid %d: the kernel refused its own %s back (%d), retrying\n",
				task_pid_nr(e->p), l->name, ret);
	} else {
		sbridge_ledger_state(l, e, SBRIDGE_LE_RELEASED);
		l->c.releases++;
		if (own == SBRIDGE_OWN_LOST)
			l->c.fallbacks++;
	}
	spin_unlock(&l->lock);
}

/**
 * sbridge_ledger_yield() - release @p and never set it again
 * @l: ledger
 * @p: task (referenced by the caller)
 *
 * Context: process context, sleeps.
 */
void sbridge_ledger_yield(struct sbridge_ledger *l, struct task_struct *p)
{
	struct sbridge_lent *e;

	mutex_lock(&l->mutex);
	spin_lock(&l->lock);
	e = sbridge_ledger_find(l, p);
	spin_unlock(&l->lock);
	if (e && e->state == SBRIDGE_LE_SET) {
		sbridge_ledger_release(l, e);
		spin_lock(&l->lock);
		/* a refused release stays SET: retried, then hands off */
		if (e->state == SBRIDGE_LE_RELEASED)
			sbridge_ledger_state(l, e, SBRIDGE_LE_HANDS_OFF);
		spin_unlock(&l->lock);
	}
	mutex_unlock(&l->mutex);
}

/*
 * Under the lock: an entry whose value @p (no entry of its own) may have
 * copied, and that @p still carries: its leader's or parent's, else that
 * of any thread of its process or of its parent's process (a thread made
 * by a non-leader thread), found through the process hash, else one of
 * @gone, the entries of exited tasks (a child reparented when its parent
 * exited). RCU held by the caller.
 */
static struct sbridge_lent *sbridge_ledger_origin(struct sbridge_ledger *l,
						  struct task_struct *p,
						  struct sbridge_lent **gone,
						  unsigned int ngone)
{
	struct task_struct *par = rcu_dereference(p->real_parent);
	struct task_struct *cand[3] = { p->group_leader, par,
					par ? par->group_leader : NULL };
	struct sbridge_lent *pe;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cand); i++) {
		if (!cand[i] || cand[i] == p)
			continue;
		pe = sbridge_ledger_find(l, cand[i]);
		if (pe && l->ops->carries(pe, cand[i], p))
			return pe;
	}
	hash_for_each_possible(l->ghash, pe, gnode, (unsigned long)p->signal)
		if (pe->p != p && pe->p->signal == p->signal &&
		    l->ops->carries(pe, pe->p, p))
			return pe;
	if (par && par->signal != p->signal)
		hash_for_each_possible(l->ghash, pe, gnode, (unsigned long)par->signal)
			if (pe->p->signal == par->signal &&
			    l->ops->carries(pe, pe->p, p))
				return pe;
	/* a parent that has exited: @p was reparented */
	for (i = 0; i < ngone; i++)
		if (l->ops->carries(gone[i], gone[i]->p, p))
			return gone[i];
	return NULL;
}

/**
 * sbridge_ledger_fork() - sched_process_fork: record a child that copied
 *	a value of ours
 * @l: ledger
 * @parent: the forking thread
 * @child: the new task
 *
 * dup_task_struct() and the actuator's own copy (uclamp_fork()) ran long
 * before this hook, possibly before a release. A child that carries one
 * of @parent's recorded values gets an entry with @parent's saved own
 * value; the next run releases it unless it is hinted itself. Without an
 * entry to spare, the ledger is marked dirty and the next run scans.
 *
 * Context: preemption off: the lock only, no allocation that can sleep.
 */
void sbridge_ledger_fork(struct sbridge_ledger *l, struct task_struct *parent,
			 struct task_struct *child)
{
	struct sbridge_lent *e = NULL, *pe;

	if (!READ_ONCE(l->c.entries))
		return;
	spin_lock(&l->lock);
	pe = sbridge_ledger_find(l, parent);
	if (!pe || !l->ops->carries(pe, parent, child)) {
		spin_unlock(&l->lock);
		return;
	}
	if (l->c.entries < SBRIDGE_LEDGER_TOTAL &&
	    !sbridge_ledger_fail(SBRIDGE_FAIL_FORK)) {
		e = sbridge_ledger_take(l);
		if (!e)
			e = l->ops->alloc(GFP_NOWAIT | __GFP_NOWARN);
	}
	if (!e) {
		l->dirty = true;
		l->c.lost++;
		spin_unlock(&l->lock);
		pr_warn_ratelimited("pid %d: no %s entry to spare at fork: the next run finds it\n",
				    task_pid_nr(child), l->name);
		return;
	}
	l->ops->inherit(e, pe, child);
	e->hint = pe->hint;
	sbridge_ledger_add(l, e, child);
	sbridge_ledger_state(l, e, SBRIDGE_LE_SET);
	l->c.inherits++;
	spin_unlock(&l->lock);
}

/*
 * Every thread of the system that carries one of our values without an
 * entry of its own gets one (SET, with its origin's own value), so the
 * sweep that follows releases it; when no entry can be had, it gets its
 * own value written at once. The walk takes the lock per thread, never
 * across the walk, and stops after SBRIDGE_LEDGER_SCAN finds; the next
 * pass skips the threads that have entries now. Mutex held. Returns the
 * threads found.
 */
static unsigned int sbridge_ledger_scan(struct sbridge_ledger *l)
{
	struct task_struct *g, *p, *fix[SBRIDGE_LEDGER_SCAN];
	struct sbridge_lent *pe, *own[SBRIDGE_LEDGER_SCAN], *e;
	struct sbridge_lent *gone[SBRIDGE_LEDGER_GONE];
	unsigned int n, i, total = 0, rounds = 0, ngone = 0;
	bool more;

	/* entries of exited tasks stay until the sweep, after this scan */
	spin_lock(&l->lock);
	l->dirty = false;
	list_for_each_entry(e, &l->list, node)
		if (sbridge_le_dead(e->p) && ngone < ARRAY_SIZE(gone))
			gone[ngone++] = e;
	spin_unlock(&l->lock);
	do {
		more = false;
		n = 0;
		rcu_read_lock();
		for_each_process_thread(g, p) {
			if ((p->flags & PF_KTHREAD) || sbridge_le_dead(p))
				continue;
			spin_lock(&l->lock);
			pe = sbridge_ledger_find(l, p) ? NULL :
			     sbridge_ledger_origin(l, p, gone, ngone);
			spin_unlock(&l->lock);
			if (!pe)
				continue;
			if (n == ARRAY_SIZE(fix)) {
				more = true;
				break;
			}
			get_task_struct(p);
			own[n] = pe;
			fix[n++] = p;
		}
		rcu_read_unlock();
		/* entries stay while the mutex is held: own[] is valid */
		for (i = 0; i < n; i++) {
			e = l->ops->alloc(GFP_KERNEL);
			spin_lock(&l->lock);
			if (sbridge_ledger_find(l, fix[i]) || sbridge_le_dead(fix[i])) {
				spin_unlock(&l->lock);
			} else if (!e || l->c.entries >= SBRIDGE_LEDGER_TOTAL) {
				/* no record to keep: its own value now */
				spin_unlock(&l->lock);
				l->ops->write_from(own[i], fix[i]);
				total++;
			} else {
				l->ops->inherit(e, own[i], fix[i]);
				e->hint = own[i]->hint;
				sbridge_ledger_add(l, e, fix[i]);
				/* not seen by this run: the sweep releases it */
				sbridge_ledger_state(l, e, SBRIDGE_LE_SET);
				l->c.found++;
				spin_unlock(&l->lock);
				e = NULL;
				total++;
			}
			if (e)
				l->ops->free(e);
			put_task_struct(fix[i]);
		}
		cond_resched();
	} while (more && ++rounds < 1024);
	return total;
}

/*
 * Releases SET entries the run did not see (or all), drops entries of
 * dead tasks, in batches with the lock dropped around each write. Mutex
 * held.
 */
static void sbridge_ledger_sweep(struct sbridge_ledger *l, bool all)
{
	struct sbridge_lent *e, *n, *rel[SBRIDGE_LEDGER_BATCH];
	LIST_HEAD(dead);
	int i, nrel;

	do {
		nrel = 0;
		spin_lock(&l->lock);
		list_for_each_entry_safe(e, n, &l->list, node) {
			/* while dirty, a scan still needs exited parents */
			if (sbridge_le_dead(e->p)) {
				if (!l->dirty)
					sbridge_ledger_del(l, e, &dead);
				continue;
			}
			if (e->state == SBRIDGE_LE_SET &&
			    (all || e->seen != l->run) &&
			    nrel < ARRAY_SIZE(rel)) {
				/* marks it, so the next batch skips it */
				e->seen = l->run;
				rel[nrel++] = e;
			}
		}
		spin_unlock(&l->lock);
		for (i = 0; i < nrel; i++)
			sbridge_ledger_release(l, rel[i]);
		cond_resched();
	} while (nrel == ARRAY_SIZE(rel));
	sbridge_ledger_free_list(l, &dead);
}

/**
 * sbridge_ledger_end() - end a run: scan if dirty, release, unlock
 * @l: ledger, its mutex held (sbridge_ledger_begin())
 * @all: release every SET entry, not only those the run did not see
 *
 * The scan comes first, while the entries of exited parents are still
 * there to say what their children carry.
 */
void sbridge_ledger_end(struct sbridge_ledger *l, bool all)
{
	if (READ_ONCE(l->dirty))
		sbridge_ledger_scan(l);
	sbridge_ledger_sweep(l, all);
	mutex_unlock(&l->mutex);
}

/*
 * Forks that span the unload: a child whose dup_task_struct() copied a
 * value before the first restore may reach the task list only after the
 * last scan. copy_process() keeps every fork in flight on its process's
 * signal->multiprocess list; wait (bounded) until each process that had
 * one in flight when this started has had an empty list once, so every
 * such child is on the task list before the final scan. Forks begun
 * since copy restored values.
 */
static void sbridge_ledger_wait_forks(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(SBRIDGE_FORK_WAIT_MS);
	struct task_struct *g, *wait[64];
	unsigned int n = 0, i, left;

	rcu_read_lock();
	for_each_process(g) {
		if ((g->flags & PF_KTHREAD) ||
		    hlist_empty(&g->signal->multiprocess))
			continue;
		if (n == ARRAY_SIZE(wait))
			break;
		get_task_struct(g);
		wait[n++] = g;
	}
	rcu_read_unlock();
	do {
		left = 0;
		for (i = 0; i < n; i++) {
			if (!wait[i])
				continue;
			if (sbridge_le_dead(wait[i]) ||
			    hlist_empty(&wait[i]->signal->multiprocess)) {
				put_task_struct(wait[i]);
				wait[i] = NULL;
				continue;
			}
			left++;
		}
		if (left)
			usleep_range(5000, 10000);
	} while (left && time_before(jiffies, end));
	for (i = 0; i < n; i++)
		if (wait[i])
			put_task_struct(wait[i]);
	if (left)
		pr_warn("%u processes still forking after %u ms at unload\n",
			left, SBRIDGE_FORK_WAIT_MS);
}

/**
 * sbridge_ledger_exit() - the hooks are gone: give everything back, free
 * @l: ledger
 *
 * Releases every SET entry (retrying refusals a bounded number of times),
 * waits for forks in flight, scans every thread for values without an
 * entry until a scan finds none, then frees every entry.
 *
 * Context: process context, sleeps; no fork hook runs any more.
 */
void sbridge_ledger_exit(struct sbridge_ledger *l)
{
	struct sbridge_lent *e, *n;
	unsigned int tries, found = 0, left = 0;
	LIST_HEAD(all);

	sbridge_ledger_wait_forks();
	mutex_lock(&l->mutex);
	for (tries = 0; tries < SBRIDGE_LEDGER_REFUSALS; tries++) {
		l->run++;
		found += sbridge_ledger_scan(l);
		sbridge_ledger_sweep(l, true);
		left = 0;
		spin_lock(&l->lock);
		list_for_each_entry(e, &l->list, node)
			left += e->state == SBRIDGE_LE_SET;
		spin_unlock(&l->lock);
		if (!left && !sbridge_ledger_scan(l))
			break;
		usleep_range(10000, 20000);
	}
	spin_lock(&l->lock);
	list_for_each_entry_safe(e, n, &l->list, node) {
		if (e->state == SBRIDGE_LE_SET)
			pr_err("pid %d keeps its %s: the kernel refused it back %u times\n",
			       task_pid_nr(e->p), l->name, e->refused);
		sbridge_ledger_del(l, e, &all);
	}
	list_splice_init(&l->pool, &all);
	l->npool = 0;
	spin_unlock(&l->lock);
	mutex_unlock(&l->mutex);
	sbridge_ledger_free_list(l, &all);
	if (l->c.inherits || l->c.lost || found)
		pr_info("%s: %llu children recorded at fork, %llu found by scans (%llu unrecorded at fork), %u at unload\n",
			l->name, l->c.inherits, l->c.found, l->c.lost, found);
}

/**
 * sbridge_ledger_read() - a ledger's counters
 * @l: ledger
 * @c: filled (each word read on its own, not as one snapshot)
 */
void sbridge_ledger_read(struct sbridge_ledger *l, struct sbridge_ledger_counts *c)
{
	c->live = READ_ONCE(l->c.live);
	c->entries = READ_ONCE(l->c.entries);
	c->releases = READ_ONCE(l->c.releases);
	c->refused = READ_ONCE(l->c.refused);
	c->user_wins = READ_ONCE(l->c.user_wins);
	c->fallbacks = READ_ONCE(l->c.fallbacks);
	c->inherits = READ_ONCE(l->c.inherits);
	c->lost = READ_ONCE(l->c.lost);
	c->found = READ_ONCE(l->c.found);
}

/**
 * sbridge_ledger_live() - entries whose task holds our value now
 * @l: ledger
 *
 * Return: count.
 */
u32 sbridge_ledger_live(struct sbridge_ledger *l)
{
	return READ_ONCE(l->c.live);
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/*
 * Fault points for the scenarios, with the kernel's fault-injection
 * attributes (Documentation/fault-injection): debugfs sbridge/fail_fork
 * makes the fork hook find no entry to spare, sbridge/fail_write makes a
 * steer or clamp fail as if the kernel refused it.
 */
static DECLARE_FAULT_ATTR(sbridge_fail_fork);
static DECLARE_FAULT_ATTR(sbridge_fail_write);
static struct dentry *sbridge_fault_dir;

/**
 * sbridge_ledger_fail() - should fault point @what fail now
 * @what: SBRIDGE_FAIL_*
 *
 * Return: nonzero to fail.
 */
int sbridge_ledger_fail(unsigned int what)
{
	return should_fail(what == SBRIDGE_FAIL_FORK ? &sbridge_fail_fork :
			   &sbridge_fail_write, 1);
}

/**
 * sbridge_ledger_faults_init() - the fault points' debugfs files
 *
 * Return: 0 (without debugfs the points never fail).
 */
int sbridge_ledger_faults_init(void)
{
	struct dentry *d = debugfs_create_dir("sbridge", NULL);

	if (IS_ERR(d))
		return 0;
	sbridge_fault_dir = d;
	fault_create_debugfs_attr("fail_fork", d, &sbridge_fail_fork);
	fault_create_debugfs_attr("fail_write", d, &sbridge_fail_write);
	return 0;
}

/**
 * sbridge_ledger_faults_exit() - remove the fault points' files
 */
void sbridge_ledger_faults_exit(void)
{
	debugfs_remove_recursive(sbridge_fault_dir);
	sbridge_fault_dir = NULL;
}
#else
int sbridge_ledger_fail(unsigned int what)
{
	return 0;
}

int sbridge_ledger_faults_init(void)
{
	return 0;
}

void sbridge_ledger_faults_exit(void)
{
}
#endif
