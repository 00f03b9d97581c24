// SPDX-License-Identifier: GPL-2.0
/*
 * uclamp actuator: util_min / util_max of the hot tasks the decision layer
 * holds and sbridge knows something about (a rule class or a learned
 * phase), through sched_setattr_nocheck() (the kernel's own path for
 * sched_setattr(2), which schedutil and the wakeup capacity fit honour).
 *
 * From the CPI_B share s of a decided task (the compute part of its CPI
 * stack, the quantity the factors are built from):
 *   util_min = s * 512 when s >= 0.5 (compute-bound: ask for capacity),
 *   util_max = the little type's capacity when s < 0.25 (memory-bound:
 *   speed is wasted on it), 1024 otherwise.
 * The values in force before are saved and put back when the task leaves
 * the decision, on disable and unload (a value the task had not set
 * itself goes back to "unset"); if anyone else changed the clamp
 * meanwhile, theirs stays and the task is left alone from then on. A
 * task that chose a clamp itself is never touched. The policy and
 * reset-on-fork flag are kept (SETPARAM_POLICY).
 *
 * Children: uclamp_fork() copies the parent's uclamp_req to every child
 * and thread. The fork hook gives such a child an entry of its own with
 * the parent's saved values, so it is restored like the parent. Released
 * entries stay as tombstones until their task exits, so a child that
 * copied the clamp before a release is still recognised; unload restores
 * once with the fork hook attached and once after.
 *
 * Locking: the list and hash change only under sbridge_clamp_lock and
 * every walk takes it; entries are freed only under sbridge_clamp_mutex
 * (the runner and exit). The fork hook only adds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <uapi/linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"
#include "trace.h"

#ifdef CONFIG_UCLAMP_TASK

#define SBRIDGE_CLAMP_MAX	256	/* tasks clamped by runs at once */
#define SBRIDGE_CLAMP_TOTAL	4096	/* entries, with tombstones and children */
#define SBRIDGE_CLAMP_BATCH	32
#define SBRIDGE_CLAMP_RESET	((u32)-1)	/* sched_attr: back to unset */
#define SBRIDGE_SETPARAM_POLICY	((u32)-1)	/* keep policy and reset-on-fork */

/* zero (a new, zeroed entry) is "released": not yet counted as live */
enum { SBRIDGE_CL_RELEASED, SBRIDGE_CL_SET, SBRIDGE_CL_HANDS_OFF };

/**
 * struct sbridge_clamp - a task whose clamps we set
 * @node: in sbridge_clamp_list
 * @hnode: in sbridge_clamp_hash, keyed by @p
 * @p: the task, referenced
 * @orig: util_min/util_max before, SBRIDGE_CLAMP_RESET if the task had not
 *	set it
 * @set: what we set (kept after release, to recognise children)
 * @state: SBRIDGE_CL_SET, SBRIDGE_CL_RELEASED or SBRIDGE_CL_HANDS_OFF
 * @seen: run number that last found the task in the decision
 *
 * All fields change under sbridge_clamp_lock.
 */
struct sbridge_clamp {
	struct list_head node;
	struct hlist_node hnode;
	struct task_struct *p;
	u32 orig[UCLAMP_CNT];
	u32 set[UCLAMP_CNT];
	u8 state;
	u64 seen;
};

static LIST_HEAD(sbridge_clamp_list);
static DEFINE_HASHTABLE(sbridge_clamp_hash, 8);
static unsigned int sbridge_clamp_count, sbridge_clamp_live;
static DEFINE_SPINLOCK(sbridge_clamp_lock);
static DEFINE_MUTEX(sbridge_clamp_mutex);
static u64 sbridge_clamp_run, sbridge_clamp_inherits, sbridge_clamp_lost;

static int sbridge_clamp_write(struct task_struct *p, u32 min, u32 max)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SBRIDGE_SETPARAM_POLICY,
		.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP,
		.sched_util_min = min,
		.sched_util_max = max,
	};

	return sched_setattr_nocheck(p, &attr);
}

/* The clamp request @p holds now (an "unset" one reads as its default). */
static void sbridge_clamp_trace(unsigned int op, struct task_struct *p)
{
	trace_sbridge_act(SBRIDGE_TP_ACT_UCLAMP, op, p, -1, NULL,
			  p->uclamp_req[UCLAMP_MIN].value,
			  p->uclamp_req[UCLAMP_MAX].value);
}

static bool sbridge_clamp_is(const struct task_struct *p, const u32 *v)
{
	return p->uclamp_req[UCLAMP_MIN].value == v[UCLAMP_MIN] &&
	       p->uclamp_req[UCLAMP_MAX].value == v[UCLAMP_MAX];
}

static struct sbridge_clamp *sbridge_clamp_find(struct task_struct *p)
{
	struct sbridge_clamp *e;

	lockdep_assert_held(&sbridge_clamp_lock);
	hash_for_each_possible(sbridge_clamp_hash, e, hnode, (unsigned long)p)
		if (e->p == p)
			return e;
	return NULL;
}

static void sbridge_clamp_state(struct sbridge_clamp *e, u8 state)
{
	lockdep_assert_held(&sbridge_clamp_lock);
	if (e->state == SBRIDGE_CL_SET && state != SBRIDGE_CL_SET)
		sbridge_clamp_live--;
	else if (e->state != SBRIDGE_CL_SET && state == SBRIDGE_CL_SET)
		sbridge_clamp_live++;
	e->state = state;
}

static void sbridge_clamp_add(struct sbridge_clamp *e, struct task_struct *p)
{
	lockdep_assert_held(&sbridge_clamp_lock);
	get_task_struct(p);
	e->p = p;
	list_add(&e->node, &sbridge_clamp_list);
	hash_add(sbridge_clamp_hash, &e->hnode, (unsigned long)p);
	sbridge_clamp_count++;
}

/* Puts the saved clamps back; keeps @e as a tombstone. Under the mutex. */
static void sbridge_clamp_release(struct sbridge_clamp *e)
{
	u32 orig[UCLAMP_CNT];
	bool intact;

	spin_lock(&sbridge_clamp_lock);
	intact = e->state == SBRIDGE_CL_SET && !e->p->exit_state &&
		 sbridge_clamp_is(e->p, e->set);
	if (e->state == SBRIDGE_CL_SET && !intact)
		sbridge_clamp_state(e, SBRIDGE_CL_HANDS_OFF);
	memcpy(orig, e->orig, sizeof(orig));
	spin_unlock(&sbridge_clamp_lock);
	if (!intact)
		return;
	/* check-then-write: a sched_setattr right here is overwritten */
	if (!sbridge_clamp_write(e->p, orig[UCLAMP_MIN], orig[UCLAMP_MAX]))
		sbridge_clamp_trace(SBRIDGE_TP_OP_RESTORE, e->p);
	spin_lock(&sbridge_clamp_lock);
	sbridge_clamp_state(e, SBRIDGE_CL_RELEASED);
	spin_unlock(&sbridge_clamp_lock);
}

/* Clamps from the decision's share of the task. */
static void sbridge_clamp_want(const struct sbridge_hint *h, u32 *v)
{
	u32 s = h->share;

	v[UCLAMP_MIN] = s >= SBRIDGE_FP_ONE / 2 ?
			s * (SCHED_CAPACITY_SCALE / 2) / SBRIDGE_FP_ONE : 0;
	v[UCLAMP_MAX] = s < SBRIDGE_FP_ONE / 4 ?
			max_t(u32, READ_ONCE(sbridge_topo.type_capacity[0]),
			      SCHED_CAPACITY_SCALE / 4) :
			SCHED_CAPACITY_SCALE;
}

static void sbridge_clamp_one(const struct sbridge_hint *h)
{
	struct task_struct *p = h->p;
	struct sbridge_clamp *e, *n = NULL;
	u32 want[UCLAMP_CNT];
	u8 state = SBRIDGE_CL_RELEASED;

	/* nothing known of it: no clamp (a held one is released by the sweep) */
	if (!h->known)
		return;
	sbridge_clamp_want(h, want);
	spin_lock(&sbridge_clamp_lock);
	e = sbridge_clamp_find(p);
	if (e) {
		e->seen = sbridge_clamp_run;
		if (e->state == SBRIDGE_CL_SET && !sbridge_clamp_is(p, e->set))
			sbridge_clamp_state(e, SBRIDGE_CL_HANDS_OFF);
		state = e->state;
	}
	spin_unlock(&sbridge_clamp_lock);
	if (e && (state == SBRIDGE_CL_HANDS_OFF ||
		  (state == SBRIDGE_CL_SET && !memcmp(e->set, want, sizeof(want)))))
		return;
	/* A clamp the task chose itself is its business. */
	if ((!e || state == SBRIDGE_CL_RELEASED) &&
	    (p->uclamp_req[UCLAMP_MIN].user_defined ||
	     p->uclamp_req[UCLAMP_MAX].user_defined))
		return;
	if (!e) {
		if (sbridge_clamp_live >= SBRIDGE_CLAMP_MAX ||
		    sbridge_clamp_count >= SBRIDGE_CLAMP_TOTAL)
			return;
		n = kzalloc(sizeof(*n), GFP_KERNEL);
		if (!n)
			return;
	}
	spin_lock(&sbridge_clamp_lock);
	if (n) {
		sbridge_clamp_add(n, p);
		e = n;
	}
	if (e->state != SBRIDGE_CL_SET) {
		e->orig[UCLAMP_MIN] = SBRIDGE_CLAMP_RESET;
		e->orig[UCLAMP_MAX] = SBRIDGE_CLAMP_RESET;
	}
	memcpy(e->set, want, sizeof(want));
	e->seen = sbridge_clamp_run;
	sbridge_clamp_state(e, SBRIDGE_CL_SET);
	spin_unlock(&sbridge_clamp_lock);
	if (sbridge_clamp_write(p, want[UCLAMP_MIN], want[UCLAMP_MAX])) {
		spin_lock(&sbridge_clamp_lock);
		sbridge_clamp_state(e, SBRIDGE_CL_RELEASED);
		spin_unlock(&sbridge_clamp_lock);
		return;
	}
	sbridge_clamp_trace(SBRIDGE_TP_OP_APPLY, p);
}

/* Releases entries the decision no longer holds (or all); drops the dead. */
static void sbridge_clamp_sweep(bool all)
{
	struct sbridge_clamp *e, *n, *rel[SBRIDGE_CLAMP_BATCH];
	LIST_HEAD(dead);
	int i, nrel;

	do {
		nrel = 0;
		spin_lock(&sbridge_clamp_lock);
		list_for_each_entry_safe(e, n, &sbridge_clamp_list, node) {
			if (e->p->exit_state || (e->p->flags & PF_EXITING)) {
				sbridge_clamp_state(e, SBRIDGE_CL_RELEASED);
				list_move(&e->node, &dead);
				hash_del(&e->hnode);
				sbridge_clamp_count--;
				continue;
			}
			if (e->state == SBRIDGE_CL_SET &&
			    (all || e->seen != sbridge_clamp_run) &&
			    nrel < ARRAY_SIZE(rel)) {
				e->seen = sbridge_clamp_run;
				rel[nrel++] = e;
			}
		}
		spin_unlock(&sbridge_clamp_lock);
		for (i = 0; i < nrel; i++)
			sbridge_clamp_release(rel[i]);
	} while (nrel == ARRAY_SIZE(rel));
	list_for_each_entry_safe(e, n, &dead, node) {
		list_del(&e->node);
		put_task_struct(e->p);
		kfree(e);
	}
}

static void sbridge_clamp_apply(const struct sbridge_decision *d)
{
	unsigned int i;

	mutex_lock(&sbridge_clamp_mutex);
	sbridge_clamp_run++;
	for (i = 0; i < d->n; i++)
		sbridge_clamp_one(&d->task[i]);
	sbridge_clamp_sweep(false);
	mutex_unlock(&sbridge_clamp_mutex);
}

static void sbridge_clamp_restore(void)
{
	mutex_lock(&sbridge_clamp_mutex);
	sbridge_clamp_run++;
	sbridge_clamp_sweep(true);
	mutex_unlock(&sbridge_clamp_mutex);
}

/*
 * sched_process_fork: uclamp_fork() gave @child @parent's clamp request.
 * If that is the clamp we set (set now, or a tombstone @parent no longer
 * carries), @child gets an entry with @parent's saved values.
 */
static void sbridge_clamp_fork(struct task_struct *parent,
			       struct task_struct *child)
{
	struct sbridge_clamp *e, *pe;
	bool inherited;

	if (!READ_ONCE(sbridge_clamp_count))
		return;
	spin_lock(&sbridge_clamp_lock);
	pe = sbridge_clamp_find(parent);
	inherited = pe && pe->state != SBRIDGE_CL_HANDS_OFF &&
		    sbridge_clamp_is(child, pe->set) &&
		    !(pe->state == SBRIDGE_CL_RELEASED && sbridge_clamp_is(parent, pe->set));
	spin_unlock(&sbridge_clamp_lock);
	if (!inherited)
		return;
	e = kzalloc(sizeof(*e), GFP_NOWAIT | __GFP_NOWARN);
	spin_lock(&sbridge_clamp_lock);
	pe = sbridge_clamp_find(parent);
	if (!e || !pe || sbridge_clamp_count >= SBRIDGE_CLAMP_TOTAL) {
		sbridge_clamp_lost++;
		spin_unlock(&sbridge_clamp_lock);
		pr_warn_ratelimited("pid %d: keeps its parent's clamp (no entry)\n",
				    task_pid_nr(child));
		kfree(e);
		return;
	}
	memcpy(e->orig, pe->orig, sizeof(e->orig));
	memcpy(e->set, pe->set, sizeof(e->set));
	sbridge_clamp_add(e, child);
	sbridge_clamp_state(e, SBRIDGE_CL_SET);
	sbridge_clamp_inherits++;
	spin_unlock(&sbridge_clamp_lock);
}

/* Hooks are gone: restore children added last, then orphans, then free. */
static void sbridge_clamp_exit(void)
{
	struct task_struct *g, *p, *fix[SBRIDGE_CLAMP_BATCH];
	struct sbridge_clamp *e, *n, *pe, *own[SBRIDGE_CLAMP_BATCH];
	unsigned int i, nf, rounds = 0;
	bool more;

	mutex_lock(&sbridge_clamp_mutex);
	sbridge_clamp_run++;
	sbridge_clamp_sweep(true);
	do {	/* children whose fork hook did not run any more */
		more = false;
		nf = 0;
		rcu_read_lock();
		spin_lock(&sbridge_clamp_lock);
		for_each_process_thread(g, p) {
			if (p->flags & PF_KTHREAD || sbridge_clamp_find(p))
				continue;
			pe = sbridge_clamp_find(rcu_dereference(p->real_parent));
			if (!pe)
				pe = sbridge_clamp_find(p->group_leader);
			if (!pe || pe->state == SBRIDGE_CL_HANDS_OFF ||
			    !sbridge_clamp_is(p, pe->set))
				continue;
			if (nf == ARRAY_SIZE(fix)) {
				more = true;
				break;
			}
			get_task_struct(p);
			own[nf] = pe;
			fix[nf++] = p;
		}
		spin_unlock(&sbridge_clamp_lock);
		rcu_read_unlock();
		for (i = 0; i < nf; i++) {
			if (sbridge_clamp_is(fix[i], own[i]->set) &&
			    !sbridge_clamp_write(fix[i], own[i]->orig[UCLAMP_MIN],
						 own[i]->orig[UCLAMP_MAX]))
				sbridge_clamp_trace(SBRIDGE_TP_OP_RESTORE, fix[i]);
			put_task_struct(fix[i]);
		}
	} while (more && ++rounds < 64);
	spin_lock(&sbridge_clamp_lock);
	list_for_each_entry_safe(e, n, &sbridge_clamp_list, node) {
		list_del(&e->node);
		hash_del(&e->hnode);
		sbridge_clamp_state(e, SBRIDGE_CL_RELEASED);
		sbridge_clamp_count--;
		put_task_struct(e->p);
		kfree(e);
	}
	spin_unlock(&sbridge_clamp_lock);
	mutex_unlock(&sbridge_clamp_mutex);
	if (sbridge_clamp_inherits || sbridge_clamp_lost)
		pr_info("uclamp: %llu children restored with their parent, %llu lost\n",
			sbridge_clamp_inherits, sbridge_clamp_lost);
}

static bool sbridge_clamp_active(void)
{
	return READ_ONCE(sbridge_clamp_live) > 0;
}

static const char *sbridge_clamp_status(void)
{
	if (!READ_ONCE(sbridge_act_params.uclamp))
		return "off";
	return READ_ONCE(sbridge_act_params.observe) ? "off (observe only)" : "on";
}

const struct sbridge_actuator sbridge_act_uclamp = {
	.name = "uclamp",
	.enabled = &sbridge_act_params.uclamp,
	.hint_bit = SBRIDGE_HINT_UCLAMP,
	.apply = sbridge_clamp_apply,
	.restore = sbridge_clamp_restore,
	.exit = sbridge_clamp_exit,
	.fork = sbridge_clamp_fork,
	.active = sbridge_clamp_active,
	.status = sbridge_clamp_status,
};

#else /* !CONFIG_UCLAMP_TASK */

static void sbridge_clamp_none(const struct sbridge_decision *d)
{
}

static void sbridge_clamp_nothing(void)
{
}

static bool sbridge_clamp_active(void)
{
	return false;
}

static const char *sbridge_clamp_status(void)
{
	return "unavailable: kernel built without CONFIG_UCLAMP_TASK";
}

const struct sbridge_actuator sbridge_act_uclamp = {
	.name = "uclamp",
	.enabled = &sbridge_act_params.uclamp,
	.hint_bit = SBRIDGE_HINT_UCLAMP,
	.apply = sbridge_clamp_none,
	.restore = sbridge_clamp_nothing,
	.active = sbridge_clamp_active,
	.status = sbridge_clamp_status,
};

#endif /* CONFIG_UCLAMP_TASK */
