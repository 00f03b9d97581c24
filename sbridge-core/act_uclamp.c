// SPDX-License-Identifier: GPL-2.0
/*
 * uclamp actuator: util_min / util_max of a task from what sbridge knows
 * about it, through sched_setattr_nocheck() (the kernel's own path for
 * sched_setattr(2), which schedutil and the wakeup capacity fit honour).
 *
 * Only tasks sbridge knows something about are clamped: a rule class or a
 * learned phase. The CPI_B share s (the compute part of the CPI stack,
 * the quantity the factors are built from) gives:
 *   util_min = s * 512 when s >= 0.5 (compute-bound: ask for capacity),
 *   util_max = the little type's capacity when s < 0.25 (memory-bound:
 *   speed is wasted on it), 1024 otherwise.
 * The values in force before are saved and put back on disable and
 * unload (a value the task had not set itself goes back to "unset");
 * if anyone else changed the clamp meanwhile, theirs stays and the task
 * is left alone from then on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"

#ifdef CONFIG_UCLAMP_TASK

#define SBRIDGE_CLAMP_MAX	256	/* tasks clamped at once */
#define SBRIDGE_CLAMP_BATCH	16
#define SBRIDGE_CLAMP_RESET	((u32)-1)	/* sched_attr: back to unset */

/**
 * struct sbridge_clamp - a task whose clamps we set
 * @node: in sbridge_clamp_list
 * @p: the task, referenced
 * @orig: util_min/util_max before, SBRIDGE_CLAMP_RESET if the task had not
 *	set it
 * @set: what we set
 * @hands_off: someone else changed the clamp: never touch again
 *
 * Only the work item and exit (after cancelling it) touch the list,
 * under sbridge_clamp_mutex.
 */
struct sbridge_clamp {
	struct list_head node;
	struct task_struct *p;
	u32 orig[UCLAMP_CNT];
	u32 set[UCLAMP_CNT];
	bool hands_off;
};

static LIST_HEAD(sbridge_clamp_list);
static unsigned int sbridge_clamp_count, sbridge_clamp_live;
static DEFINE_MUTEX(sbridge_clamp_mutex);
static void sbridge_clamp_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_clamp_work, sbridge_clamp_fn);

static int sbridge_clamp_write(struct task_struct *p, u32 min, u32 max)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP,
		.sched_util_min = min,
		.sched_util_max = max,
	};

	return sched_setattr_nocheck(p, &attr);
}

static bool sbridge_clamp_intact(struct sbridge_clamp *e)
{
	return e->p->uclamp_req[UCLAMP_MIN].value == e->set[UCLAMP_MIN] &&
	       e->p->uclamp_req[UCLAMP_MAX].value == e->set[UCLAMP_MAX];
}

/* Puts the saved clamps back and frees @e. */
static void sbridge_clamp_drop(struct sbridge_clamp *e, bool restore)
{
	if (restore && !e->hands_off && !e->p->exit_state &&
	    sbridge_clamp_intact(e))
		sbridge_clamp_write(e->p, e->orig[UCLAMP_MIN], e->orig[UCLAMP_MAX]);
	if (!e->hands_off)
		sbridge_clamp_live--;
	list_del(&e->node);
	sbridge_clamp_count--;
	put_task_struct(e->p);
	kfree(e);
}

/* Clamps from the share; false if sbridge knows nothing about @p. */
static bool sbridge_clamp_want(struct task_struct *p, u32 *min, u32 *max)
{
	struct sbridge_task *t = sbridge_task_lookup(p);
	u32 s;

	if (!t || READ_ONCE(t->pref) == SBRIDGE_PREF_EXCLUDE)
		return false;
	if (READ_ONCE(t->class) == SBRIDGE_CLASS_AUTO && !READ_ONCE(t->ph.nphases))
		return false;
	s = sbridge_task_share(t);
	*min = s >= SBRIDGE_FP_ONE / 2 ? s * (SCHED_CAPACITY_SCALE / 2) / SBRIDGE_FP_ONE : 0;
	*max = s < SBRIDGE_FP_ONE / 4 ?
	       max_t(u32, sbridge_topo.type_capacity[0], SCHED_CAPACITY_SCALE / 4) :
	       SCHED_CAPACITY_SCALE;
	return true;
}

static struct sbridge_clamp *sbridge_clamp_find(struct task_struct *p)
{
	struct sbridge_clamp *e;

	list_for_each_entry(e, &sbridge_clamp_list, node)
		if (e->p == p)
			return e;
	return NULL;
}

/**
 * struct sbridge_clamp_cand - a task to (re)clamp
 * @p: referenced
 * @min: util_min wanted
 * @max: util_max wanted
 */
struct sbridge_clamp_cand {
	struct task_struct *p;
	u32 min, max;
};

static void sbridge_clamp_apply(struct sbridge_clamp_cand *c)
{
	struct sbridge_clamp *e = sbridge_clamp_find(c->p);
	struct task_struct *p = c->p;

	if (e) {
		if (e->hands_off)
			return;
		if (!sbridge_clamp_intact(e)) {
			e->hands_off = true;
			sbridge_clamp_live--;
			return;
		}
		if (e->set[UCLAMP_MIN] == c->min && e->set[UCLAMP_MAX] == c->max)
			return;
	} else {
		if (sbridge_clamp_count >= SBRIDGE_CLAMP_MAX)
			return;
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e)
			return;
		e->orig[UCLAMP_MIN] = p->uclamp_req[UCLAMP_MIN].user_defined ?
				      p->uclamp_req[UCLAMP_MIN].value : SBRIDGE_CLAMP_RESET;
		e->orig[UCLAMP_MAX] = p->uclamp_req[UCLAMP_MAX].user_defined ?
				      p->uclamp_req[UCLAMP_MAX].value : SBRIDGE_CLAMP_RESET;
		/* A clamp the task chose itself is its business. */
		if (p->uclamp_req[UCLAMP_MIN].user_defined ||
		    p->uclamp_req[UCLAMP_MAX].user_defined) {
			kfree(e);
			return;
		}
		get_task_struct(p);
		e->p = p;
		list_add(&e->node, &sbridge_clamp_list);
		sbridge_clamp_count++;
		sbridge_clamp_live++;
	}
	if (sbridge_clamp_write(p, c->min, c->max)) {
		sbridge_clamp_drop(e, true);
		return;
	}
	e->set[UCLAMP_MIN] = c->min;
	e->set[UCLAMP_MAX] = c->max;
}

static void sbridge_clamp_pass(void)
{
	struct sbridge_clamp_cand c[SBRIDGE_CLAMP_BATCH];
	struct task_struct *g, *p;
	unsigned int n = 0, i;
	u32 min, max;

	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (n >= ARRAY_SIZE(c))
			break;
		if ((p->flags & (PF_KTHREAD | PF_EXITING)) ||
		    !sbridge_fair_policy(p->policy))
			continue;
		if (!sbridge_clamp_want(p, &min, &max))
			continue;
		/* Already in force: nothing to do, keep the pass short. */
		if (p->uclamp_req[UCLAMP_MIN].value == min &&
		    p->uclamp_req[UCLAMP_MAX].value == max)
			continue;
		get_task_struct(p);
		c[n].p = p;
		c[n].min = min;
		c[n++].max = max;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		sbridge_clamp_apply(&c[i]);
		put_task_struct(c[i].p);
	}
}

static void sbridge_clamp_fn(struct work_struct *w)
{
	struct sbridge_clamp *e, *n;
	bool on = READ_ONCE(sbridge_act_params.uclamp);

	mutex_lock(&sbridge_clamp_mutex);
	list_for_each_entry_safe(e, n, &sbridge_clamp_list, node)
		if (!on || e->p->exit_state || (e->p->flags & PF_EXITING))
			sbridge_clamp_drop(e, on ? false : true);
	if (on)
		sbridge_clamp_pass();
	mutex_unlock(&sbridge_clamp_mutex);
	schedule_delayed_work(&sbridge_clamp_work,
			      msecs_to_jiffies(READ_ONCE(sbridge_act_params.period_ms)));
}

/**
 * sbridge_uclamp_active() - some task carries clamps set by sbridge
 *
 * Return: true if so.
 */
bool sbridge_uclamp_active(void)
{
	return READ_ONCE(sbridge_clamp_live) > 0;
}

/**
 * sbridge_uclamp_status() - one status word for the uclamp actuator
 *
 * Return: static string.
 */
const char *sbridge_uclamp_status(void)
{
	return READ_ONCE(sbridge_act_params.uclamp) ? "on" : "off";
}

/**
 * sbridge_uclamp_init() - start the uclamp work
 *
 * Return: 0.
 */
int sbridge_uclamp_init(void)
{
	schedule_delayed_work(&sbridge_clamp_work, 0);
	return 0;
}

/**
 * sbridge_uclamp_exit() - stop and put every saved clamp back
 *
 * Context: process context, sleeps.
 */
void sbridge_uclamp_exit(void)
{
	struct sbridge_clamp *e, *n;

	cancel_delayed_work_sync(&sbridge_clamp_work);
	mutex_lock(&sbridge_clamp_mutex);
	list_for_each_entry_safe(e, n, &sbridge_clamp_list, node)
		sbridge_clamp_drop(e, true);
	mutex_unlock(&sbridge_clamp_mutex);
}

#else /* !CONFIG_UCLAMP_TASK */

bool sbridge_uclamp_active(void)
{
	return false;
}

const char *sbridge_uclamp_status(void)
{
	return "unavailable: kernel built without CONFIG_UCLAMP_TASK";
}

int sbridge_uclamp_init(void)
{
	return 0;
}

void sbridge_uclamp_exit(void)
{
}

#endif /* CONFIG_UCLAMP_TASK */
