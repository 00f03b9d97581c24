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
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "act_ops.h"
#include "act_ledger.h"
#include "trace_act.h"

/* act.uclamp: this actuator's switch (SET_PARAM and module parameter) */
static u32 sbridge_clamp_on;	/* off at load */
static struct sbridge_param_desc sbridge_clamp_switch = {
	.name = "act.uclamp", .val = &sbridge_clamp_on, .min = 0, .max = 1,
};
sbridge_module_param(act_uclamp, sbridge_clamp_switch,
		     "1: util_min/util_max of hot tasks from their CPI_B share");

#ifdef CONFIG_UCLAMP_TASK

#define SBRIDGE_CLAMP_MAX	256	/* tasks clamped by runs at once */
#define SBRIDGE_CLAMP_RESET	((u32)-1)	/* sched_attr: back to unset */
#define SBRIDGE_SETPARAM_POLICY	((u32)-1)	/* keep policy and reset-on-fork */

/**
 * struct sbridge_clamp - a task whose clamps we set
 * @le: its ledger record (state, task, run)
 * @orig: util_min/util_max before, SBRIDGE_CLAMP_RESET if the task had not
 *	set it
 * @set: what we set (kept after release, to recognise children)
 * @prev: what we set before @set (a child may have copied it just before
 *	a re-clamp); @prev_ok says whether there is one
 * @prev_ok: @prev holds a value
 *
 * Changes under the ledger's lock.
 */
struct sbridge_clamp {
	struct sbridge_lent le;
	u32 orig[UCLAMP_CNT];
	u32 set[UCLAMP_CNT];
	u32 prev[UCLAMP_CNT];
	bool prev_ok;
};

#define sbridge_clamp_of(e)	container_of(e, struct sbridge_clamp, le)

/*
 * Writes the clamps @min/@max (SBRIDGE_CLAMP_RESET: back to unset) and
 * nothing else. sched_setattr_nocheck() skips the syscall's KEEP_PARAMS
 * read of the task's own parameters, and __sched_setscheduler() checks
 * the attr's priority against the policy even with KEEP_PARAMS: an RT
 * task needs its own rt_priority, a deadline task its own runtime,
 * deadline and period, or the write is refused (-EINVAL). They are read
 * here without the task's locks: a policy changed between this read and
 * the kernel's makes it refuse, and the caller keeps its entry and
 * retries.
 */
static int sbridge_clamp_set(struct task_struct *p, u32 min, u32 max)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SBRIDGE_SETPARAM_POLICY,
		.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP,
		.sched_util_min = min,
		.sched_util_max = max,
	};
	int policy = READ_ONCE(p->policy);

	if (policy == SCHED_FIFO || policy == SCHED_RR) {
		attr.sched_priority = READ_ONCE(p->rt_priority);
	} else if (policy == SCHED_DEADLINE) {
		attr.sched_runtime = READ_ONCE(p->dl.dl_runtime);
		attr.sched_deadline = READ_ONCE(p->dl.dl_deadline);
		attr.sched_period = READ_ONCE(p->dl.dl_period);
	}
	return sched_setattr_nocheck(p, &attr);
}

static int sbridge_clamp_write(struct task_struct *p, u32 min, u32 max)
{
	if (sbridge_ledger_fail(SBRIDGE_FAIL_WRITE))
		return -EINVAL;
	return sbridge_clamp_set(p, min, max);
}

/*
 * The first clamp write of a boot enables the kernel's uclamp static key
 * (uclamp_validate()) and so patches code on every CPU: milliseconds on
 * a board, far more under emulation, spent after the kernel has read the
 * task's reset-on-fork flag and before it takes the task's lock (the
 * SETPARAM_POLICY race, docs/reliability.md). A program that set the
 * flag in that window lost it (act-fork-audit). Once per load, before
 * the first task is clamped, a write of "unset" on the worker running
 * the actuators takes that cost out of every task's window. It changes
 * nothing of the worker, and a worker that chose a clamp itself is left
 * alone: its clamp enabled the key already.
 */
static void sbridge_clamp_warm(void)
{
	static bool warm;

	if (warm)
		return;
	warm = true;
	if (current->uclamp_req[UCLAMP_MIN].user_defined ||
	    current->uclamp_req[UCLAMP_MAX].user_defined)
		return;
	if (sbridge_clamp_set(current, SBRIDGE_CLAMP_RESET, SBRIDGE_CLAMP_RESET))
		warm = false;
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

static struct sbridge_lent *sbridge_clamp_alloc(gfp_t gfp)
{
	struct sbridge_clamp *c = kzalloc(sizeof(*c), gfp);

	return c ? &c->le : NULL;
}

static void sbridge_clamp_free(struct sbridge_lent *e)
{
	kfree(sbridge_clamp_of(e));
}

/*
 * The kernel keeps no record of who wrote a clamp (user_defined is set
 * by every sched_setattr(), ours too): the value decides. A user's
 * sched_setattr() of exactly our values is taken as ours
 * (docs/reliability.md).
 */
static enum sbridge_le_owner sbridge_clamp_owner(struct sbridge_lent *e)
{
	return sbridge_clamp_is(e->p, sbridge_clamp_of(e)->set) ?
	       SBRIDGE_OWN_OURS : SBRIDGE_OWN_THEIRS;
}

/*
 * Does @p carry a clamp @pe set on @parent, now or before a re-clamp,
 * while @parent does not hold that clamp by its own choice?
 */
static bool sbridge_clamp_carries(const struct sbridge_lent *pe,
				  struct task_struct *parent,
				  struct task_struct *p)
{
	const struct sbridge_clamp *c = sbridge_clamp_of(pe);
	const u32 *v;

	if (sbridge_clamp_is(p, c->set))
		v = c->set;
	else if (c->prev_ok && sbridge_clamp_is(p, c->prev))
		v = c->prev;
	else
		return false;
	/* the parent holds it and it is not ours (any more): its own */
	return !(sbridge_clamp_is(parent, v) &&
		 (pe->state != SBRIDGE_LE_SET || v != c->set));
}

static void sbridge_clamp_inherit(struct sbridge_lent *e,
				  const struct sbridge_lent *pe,
				  struct task_struct *child)
{
	struct sbridge_clamp *c = sbridge_clamp_of(e);
	const struct sbridge_clamp *pc = sbridge_clamp_of(pe);

	memcpy(c->orig, pc->orig, sizeof(c->orig));
	c->set[UCLAMP_MIN] = child->uclamp_req[UCLAMP_MIN].value;
	c->set[UCLAMP_MAX] = child->uclamp_req[UCLAMP_MAX].value;
	c->prev_ok = false;
}

static int sbridge_clamp_write_own(struct sbridge_lent *e)
{
	u32 orig[UCLAMP_CNT];
	int ret;

	memcpy(orig, sbridge_clamp_of(e)->orig, sizeof(orig));
	ret = sbridge_clamp_write(e->p, orig[UCLAMP_MIN], orig[UCLAMP_MAX]);
	if (!ret)
		sbridge_clamp_trace(SBRIDGE_TP_OP_RESTORE, e->p);
	return ret;
}

static int sbridge_clamp_write_from(const struct sbridge_lent *pe,
				    struct task_struct *p)
{
	const struct sbridge_clamp *c = sbridge_clamp_of(pe);
	int ret;

	ret = sbridge_clamp_write(p, c->orig[UCLAMP_MIN], c->orig[UCLAMP_MAX]);
	if (!ret)
		sbridge_clamp_trace(SBRIDGE_TP_OP_RESTORE, p);
	return ret;
}

static const struct sbridge_ledger_ops sbridge_clamp_ops = {
	.alloc = sbridge_clamp_alloc,
	.free = sbridge_clamp_free,
	.owner = sbridge_clamp_owner,
	.carries = sbridge_clamp_carries,
	.inherit = sbridge_clamp_inherit,
	.write_own = sbridge_clamp_write_own,
	.write_from = sbridge_clamp_write_from,
};

static struct sbridge_ledger sbridge_clamps =
	SBRIDGE_LEDGER_INIT(sbridge_clamps, "uclamp", &sbridge_clamp_ops,
			    SBRIDGE_CLAMP_MAX);

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
	struct sbridge_ledger *l = &sbridge_clamps;
	struct task_struct *p = h->p;
	struct sbridge_clamp *c = NULL;
	struct sbridge_lent *e, *n = NULL;
	u32 want[UCLAMP_CNT], old[UCLAMP_CNT], oldprev[UCLAMP_CNT];
	bool oldprev_ok;
	u8 state, was;

	/* nothing known of it: no clamp (a held one is released by the sweep) */
	if (!h->known)
		return;
	sbridge_clamp_want(h, want);
	e = sbridge_ledger_look(l, p, &state);
	if (e) {
		c = sbridge_clamp_of(e);
		if (state == SBRIDGE_LE_HANDS_OFF ||
		    (state == SBRIDGE_LE_SET && !memcmp(c->set, want, sizeof(want))))
			return;
	}
	/* A clamp the task chose itself is its business. */
	if (state != SBRIDGE_LE_SET &&
	    (p->uclamp_req[UCLAMP_MIN].user_defined ||
	     p->uclamp_req[UCLAMP_MAX].user_defined))
		return;
	if (!e) {
		n = sbridge_ledger_reserve(l, p);
		if (!n)
			return;
	}
	spin_lock(&l->lock);
	if (n) {
		e = n;
		c = sbridge_clamp_of(e);
		sbridge_ledger_commit(l, e, p);
		was = SBRIDGE_LE_RELEASED;
	} else {
		was = e->state;
		e->seen = l->run;
		sbridge_ledger_state(l, e, SBRIDGE_LE_SET);
	}
	if (was != SBRIDGE_LE_SET) {
		c->orig[UCLAMP_MIN] = SBRIDGE_CLAMP_RESET;
		c->orig[UCLAMP_MAX] = SBRIDGE_CLAMP_RESET;
	}
	memcpy(old, c->set, sizeof(old));
	memcpy(oldprev, c->prev, sizeof(oldprev));
	oldprev_ok = c->prev_ok;
	if (!n) {
		memcpy(c->prev, c->set, sizeof(c->prev));
		c->prev_ok = true;
	}
	memcpy(c->set, want, sizeof(want));
	spin_unlock(&l->lock);
	if (sbridge_clamp_write(p, want[UCLAMP_MIN], want[UCLAMP_MAX])) {
		/* the task holds what it held: the record says so */
		spin_lock(&l->lock);
		memcpy(c->set, old, sizeof(old));
		memcpy(c->prev, oldprev, sizeof(oldprev));
		c->prev_ok = oldprev_ok;
		sbridge_ledger_state(l, e, was);
		spin_unlock(&l->lock);
		return;
	}
	sbridge_clamp_trace(SBRIDGE_TP_OP_APPLY, p);
}

static void sbridge_clamp_apply(const struct sbridge_decision *d)
{
	unsigned int i;

	sbridge_clamp_warm();
	sbridge_ledger_begin(&sbridge_clamps);
	for (i = 0; i < d->n; i++)
		sbridge_clamp_one(&d->task[i]);
	sbridge_ledger_end(&sbridge_clamps, false);
}

static void sbridge_clamp_restore(void)
{
	sbridge_ledger_begin(&sbridge_clamps);
	sbridge_ledger_end(&sbridge_clamps, true);
}

/* sched_process_fork: uclamp_fork() gave @child @parent's clamp request. */
static void sbridge_clamp_fork(struct task_struct *parent,
			       struct task_struct *child)
{
	sbridge_ledger_fork(&sbridge_clamps, parent, child);
}

static int sbridge_clamp_init(void)
{
	sbridge_ledger_init(&sbridge_clamps);
	return 0;
}

/* Hooks are gone: restore, find every thread still carrying a clamp, free. */
static void sbridge_clamp_exit(void)
{
	sbridge_ledger_exit(&sbridge_clamps);
}

static bool sbridge_clamp_active(void)
{
	return sbridge_ledger_live(&sbridge_clamps) > 0;
}

static const char *sbridge_clamp_status(void)
{
	if (!READ_ONCE(sbridge_clamp_on))
		return "off";
	return READ_ONCE(sbridge_act_params.observe) ? "off (observe only)" : "on";
}

/**
 * sbridge_uclamp_read_counts() - uclamp's ledger counters
 * @c: filled
 */
void sbridge_uclamp_read_counts(struct sbridge_ledger_counts *c)
{
	sbridge_ledger_read(&sbridge_clamps, c);
}

const struct sbridge_actuator sbridge_act_uclamp = {
	.name = "uclamp",
	.param = &sbridge_clamp_switch,
	.trace_id = SBRIDGE_TP_ACT_UCLAMP,
	.hint_bit = SBRIDGE_HINT_UCLAMP,
	.init = sbridge_clamp_init,
	.apply = sbridge_clamp_apply,
	.restore = sbridge_clamp_restore,
	.exit = sbridge_clamp_exit,
	.fork = sbridge_clamp_fork,
	.active = sbridge_clamp_active,
	.status = sbridge_clamp_status,
	.bpf_sched_off = true,
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

void sbridge_uclamp_read_counts(struct sbridge_ledger_counts *c)
{
	memset(c, 0, sizeof(*c));
}

const struct sbridge_actuator sbridge_act_uclamp = {
	.name = "uclamp",
	.param = &sbridge_clamp_switch,
	.trace_id = SBRIDGE_TP_ACT_UCLAMP,
	.hint_bit = SBRIDGE_HINT_UCLAMP,
	.apply = sbridge_clamp_none,
	.restore = sbridge_clamp_nothing,
	.active = sbridge_clamp_active,
	.status = sbridge_clamp_status,
	.bpf_sched_off = true,
};

#endif /* CONFIG_UCLAMP_TASK */
