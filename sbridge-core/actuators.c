// SPDX-License-Identifier: GPL-2.0
/*
 * The actuator runner: one work item, every act.period_ms, asks the
 * decision layer (policy.c) what each hot task should get and hands that
 * decision to every actuator that is switched on. An actuator switched
 * off (or all of them, in observe mode) restores what it changed on the
 * next run. This file owns the actuators' order, their init and exit
 * and what is asked of all of them at once (values in force, a task's
 * own CPUs, a yield); act_*.c apply and restore, params.c keeps their
 * switches and sysfs.c shows their status. The checker (checker.c) sits
 * beside and above: main.c starts it after the runner.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"
#include "act_ledger.h"

/* Order of init and apply; exit runs backwards. */
static const struct sbridge_actuator *const sbridge_acts[] = {
	&sbridge_act_capacity,
	&sbridge_act_placement,
	&sbridge_act_uclamp,
	&sbridge_act_freq,
};

/**
 * struct sbridge_runner - the actuator work's state
 * @lock: serialises a run against stop and exit
 * @was_on: actuator i was on at the last run (so it restores once)
 * @stopped: no run acts any more (unload under way)
 * @dec: the last decision (its task references are dropped after a run)
 * @runs: runs since load
 *
 * Owned by the work item; @lock is held across each run.
 */
struct sbridge_runner {
	struct mutex lock;
	bool was_on[ARRAY_SIZE(sbridge_acts)];
	bool stopped;
	struct sbridge_decision *dec;
	u64 runs;
};
static struct sbridge_runner sbr = {
	.lock = __MUTEX_INITIALIZER(sbr.lock),
};
static char sbridge_last_why[sizeof(((struct sbridge_decision *)0)->why)];

static void sbridge_act_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_act_work, sbridge_act_fn);
/* jiffies when the last run began: kicks come no sooner than half a period */
static unsigned long sbridge_act_began;
static u64 sbridge_act_kicks;
/* sbridge-aware BPF schedulers attached (kfuncs.c): 0 or 1 in practice */
static atomic_t sbridge_act_bpf_scheds = ATOMIC_INIT(0);

/* From sample.c's switch probe, in hard IRQ context: re-decide soon. */
static void sbridge_act_kick_fn(struct irq_work *w)
{
	sbridge_actuators_kick();
}
static struct irq_work sbridge_act_kick = IRQ_WORK_INIT(sbridge_act_kick_fn);

/**
 * sbridge_actuators_kick() - decide again now, not at the next period
 *
 * A fast core went idle while tasks that want one wait on slow ones (the
 * decision layer's event). Rate-bounded: no sooner than half a period
 * after the last run began. Nothing once the runner is stopped.
 *
 * Context: any, including hard IRQ (mod_delayed_work() is IRQ-safe).
 */
void sbridge_actuators_kick(void)
{
	unsigned long gap = msecs_to_jiffies(READ_ONCE(sbridge_act_params.period_ms) / 2);
	unsigned long since = jiffies - READ_ONCE(sbridge_act_began);

	if (READ_ONCE(sbr.stopped))
		return;
	WRITE_ONCE(sbridge_act_kicks, sbridge_act_kicks + 1);
	sbridge_topo_house_kick(&sbridge_act_work, since >= gap ? 0 : gap - since);
}

static bool sbridge_act_on(unsigned int i)
{
	return !READ_ONCE(sbridge_act_params.observe) &&
	       READ_ONCE(*sbridge_acts[i]->param->val) &&
	       !(sbridge_acts[i]->bpf_sched_off && sbridge_actuators_bpf_sched_on());
}

/**
 * sbridge_actuators_bpf_sched() - an sbridge-aware BPF scheduler came or went
 * @on: true from its ops.init, false from its ops.exit
 *
 * While one runs, the actuators marked @bpf_sched_off (placement, uclamp)
 * stand down: the next run restores what they changed. The decision layer
 * goes on deciding, so the hints the BPF scheduler reads stay fresh.
 *
 * Context: any (kicks the runner's work).
 */
void sbridge_actuators_bpf_sched(bool on)
{
	if (on)
		atomic_inc(&sbridge_act_bpf_scheds);
	else
		atomic_dec_if_positive(&sbridge_act_bpf_scheds);
	sbridge_actuators_kick();
}

/**
 * sbridge_actuators_bpf_sched_on() - does an sbridge-aware BPF scheduler run
 *
 * Context: any.
 * Return: true between its attach and its detach.
 */
bool sbridge_actuators_bpf_sched_on(void)
{
	return atomic_read(&sbridge_act_bpf_scheds) > 0;
}

static void sbridge_act_fn(struct work_struct *w)
{
	bool any = false;
	unsigned int i;

	mutex_lock(&sbr.lock);
	if (sbr.stopped)
		goto out;
	WRITE_ONCE(sbridge_act_began, jiffies);
	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++) {
		bool on = sbridge_act_on(i);

		/*
		 * Restore on the run that finds it off, and on every run
		 * after while it still holds a value: children the fork
		 * hook recorded after the first restore (N8).
		 */
		if (!on && (sbr.was_on[i] || sbridge_acts[i]->active()))
			sbridge_acts[i]->restore();
		sbr.was_on[i] = on;
		any |= on;
	}
	/* a BPF scheduler reads the hints: keep deciding for it */
	sbr.dec->run_busy = sbridge_actuators_bpf_sched_on();
	if (any || sbr.dec->run_busy) {
		sbridge_policy_decide(sbr.dec, sbridge_actuators_user_mask);
		strscpy(sbridge_last_why, sbr.dec->why, sizeof(sbridge_last_why));
		for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++)
			if (sbr.was_on[i])
				sbridge_acts[i]->apply(sbr.dec);
		sbridge_policy_put(sbr.dec);
	} else {
		strscpy(sbridge_last_why, "observe only: no actuator on",
			sizeof(sbridge_last_why));
	}
	WRITE_ONCE(sbr.runs, sbr.runs + 1);
	/* a kick may have queued the next run sooner: that one stands */
	sbridge_topo_house_queue(&sbridge_act_work,
				 msecs_to_jiffies(READ_ONCE(sbridge_act_params.period_ms)));
out:
	mutex_unlock(&sbr.lock);
}

/**
 * sbridge_actuators_fork() - tell every actuator about a new task
 * @parent: the forking task
 * @child: the new task, not yet running
 *
 * Called whether or not an actuator is on: a child may have inherited a
 * value an actuator set on @parent before it was switched off.
 *
 * Context: sched_process_fork tracepoint, preemption off.
 */
void sbridge_actuators_fork(struct task_struct *parent, struct task_struct *child)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++)
		if (sbridge_acts[i]->fork)
			sbridge_acts[i]->fork(parent, child);
}

/**
 * sbridge_hints_in_force() - actuators holding a changed value now
 *
 * Return: SBRIDGE_HINT_* bits.
 */
u32 sbridge_hints_in_force(void)
{
	u32 bits = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++)
		if (sbridge_acts[i]->active())
			bits |= sbridge_acts[i]->hint_bit;
	return bits;
}

/**
 * sbridge_actuators_user_mask() - the CPUs @p chose itself, if narrowed
 * @p: task (RCU-protected or referenced by the caller)
 * @mask: out, set only when true is returned
 *
 * Asks the actuators that narrow a task's affinity (placement): the
 * decision layer and the checker reason about what the task allows, not
 * about what sbridge set.
 *
 * Context: any non-IRQ context.
 * Return: true if an actuator holds @p's affinity now.
 */
bool sbridge_actuators_user_mask(struct task_struct *p, struct cpumask *mask)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++)
		if (sbridge_acts[i]->user_mask && sbridge_acts[i]->user_mask(p, mask))
			return true;
	return false;
}

/**
 * sbridge_actuators_yield() - the checker blames @p's steering: undo it
 * @p: task (the caller holds a reference)
 *
 * Every actuator that can yield gives @p its own value back for good.
 *
 * Context: process context, sleeps.
 */
void sbridge_actuators_yield(struct task_struct *p)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++)
		if (sbridge_acts[i]->yield)
			sbridge_acts[i]->yield(p);
}

/**
 * sbridge_actuators_mode() - one line: what is in force and why
 * @buf: out
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *sbridge_actuators_mode(char *buf, size_t len)
{
	unsigned int i;
	int n = 0, start;

	if (READ_ONCE(sbridge_act_params.observe)) {
		strscpy(buf, "observe only (act.observe=1): nothing is changed", len);
		return buf;
	}
	if (sbridge_topo.ntypes < 2) {
		strscpy(buf, "one core type: nothing to steer (declare core types with cpu_types=)",
			len);
		return buf;
	}
	if (sbridge_actuators_bpf_sched_on())
		n = scnprintf(buf, len, "sched_ext: scx_sbridge, affinity steering off; ");
	start = n;
	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++)
		if (sbridge_act_on(i))
			n += scnprintf(buf + n, len - n, "%s%s", n > start ? "+" : "",
				       sbridge_acts[i]->name);
	if (n == start && !start) {
		strscpy(buf, "every actuator off: nothing is changed", len);
		return buf;
	}
	n += scnprintf(buf + n, len - n, "%s", n == start ?
		       "hints for it only, last decision: " : " on; last decision: ");
	scnprintf(buf + n, len - n, "%s",
		  sbridge_last_why[0] ? sbridge_last_why : "none yet");
	return buf;
}

/**
 * sbridge_actuators_counts() - the runner's counters since load
 * @runs: out, decisions made
 * @kicks: out, decisions asked for early (a fast core idle with wanters)
 */
void sbridge_actuators_counts(u64 *runs, u64 *kicks)
{
	*runs = READ_ONCE(sbr.runs);
	*kicks = READ_ONCE(sbridge_act_kicks);
}

/**
 * sbridge_actuator_at() - the actuators in their apply order
 * @i: index from 0
 *
 * Return: the @i-th actuator's ops, or NULL past the last.
 */
const struct sbridge_actuator *sbridge_actuator_at(unsigned int i)
{
	return i < ARRAY_SIZE(sbridge_acts) ? sbridge_acts[i] : NULL;
}

/**
 * sbridge_actuators_params() - hand every actuator's switch to params.c
 *
 * So SET_PARAM and /sys/kernel/sbridge/params find act.<name> (each
 * actuator keeps its switch and declares its module parameter itself).
 *
 * Context: module init, before the netlink family and sysfs exist.
 * Return: 0 or a negative errno.
 */
int sbridge_actuators_params(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++) {
		ret = sbridge_params_add(sbridge_acts[i]->param);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * sbridge_actuators_init() - start every actuator and the runner
 *
 * Context: process context at module init, after the task table and the
 * hooks exist.
 * Return: 0 or a negative errno; on error everything started is undone.
 */
int sbridge_actuators_init(void)
{
	int i, ret;

	sbr.dec = kzalloc(sizeof(*sbr.dec), GFP_KERNEL);
	if (!sbr.dec)
		return -ENOMEM;
	ret = sbridge_policy_init();
	if (ret) {
		kfree(sbr.dec);
		sbr.dec = NULL;
		return ret;
	}
	ret = sbridge_ledger_faults_init();
	if (ret)
		goto err_policy;
	for (i = 0; i < ARRAY_SIZE(sbridge_acts); i++) {
		if (!sbridge_acts[i]->init)
			continue;
		ret = sbridge_acts[i]->init();
		if (ret)
			goto err;
	}
	sbr.stopped = false;
	sbridge_topo_house_queue(&sbridge_act_work, 0);
	sbridge_sample_kick_set(&sbridge_act_kick);
	return 0;
err:
	while (--i >= 0)
		if (sbridge_acts[i]->exit)
			sbridge_acts[i]->exit();
	sbridge_ledger_faults_exit();
err_policy:
	sbridge_policy_exit();
	kfree(sbr.dec);
	sbr.dec = NULL;
	return ret;
}

/**
 * sbridge_actuators_stop() - stop the runner, restore
 *
 * After this no decision is made and every actuator has put back what it
 * changed. Called while the fork hook is still attached: a child forked
 * in the meantime that inherited a changed value is still seen, and
 * sbridge_actuators_exit() restores it once the hooks are gone.
 *
 * Context: process context, sleeps; after sbridge_checker_exit() (the
 * checker asks actuators to yield).
 */
void sbridge_actuators_stop(void)
{
	int i;

	/* no more kicks: none being queued (RCU), none pending (sync) */
	sbridge_sample_kick_set(NULL);
	synchronize_rcu();
	irq_work_sync(&sbridge_act_kick);
	mutex_lock(&sbr.lock);
	WRITE_ONCE(sbr.stopped, true);
	mutex_unlock(&sbr.lock);
	cancel_delayed_work_sync(&sbridge_act_work);
	for (i = ARRAY_SIZE(sbridge_acts) - 1; i >= 0; i--)
		sbridge_acts[i]->restore();
}

/**
 * sbridge_actuators_exit() - final restore and free, in reverse order
 *
 * Context: process context, sleeps; after sbridge_actuators_stop() and
 * after the hooks are detached and synchronised (no fork hook runs).
 */
void sbridge_actuators_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(sbridge_acts) - 1; i >= 0; i--)
		if (sbridge_acts[i]->exit)
			sbridge_acts[i]->exit();
	sbridge_ledger_faults_exit();
	sbridge_policy_exit();
	kfree(sbr.dec);
	sbr.dec = NULL;
}
