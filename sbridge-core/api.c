// SPDX-License-Identifier: GPL-2.0
/*
 * The exported in-kernel API (include/sbridge/sbridge.h) minus the source
 * registry (source.c): version, consumers, per-task and per-CPU queries.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/workqueue.h>
#include <linux/cpufreq.h>
#include "internal.h"

/* Consumers: list under sbridge_consumer_lock, called from a work item. */
static LIST_HEAD(sbridge_consumers);
static DEFINE_MUTEX(sbridge_consumer_lock);
static bool sbridge_notify_cpu;		/* accumulated, under the lock */
static bool sbridge_api_dying;		/* under the lock */
static void sbridge_notify_fn(struct work_struct *w);
static DECLARE_WORK(sbridge_notify_work, sbridge_notify_fn);

/**
 * sbridge_api_version() - version of the in-kernel API this core provides
 *
 * Context: any.
 * Return: SBRIDGE_API_VERSION.
 */
u32 sbridge_api_version(void)
{
	return SBRIDGE_API_VERSION;
}
EXPORT_SYMBOL_GPL(sbridge_api_version);

static bool sbridge_consumer_listed(const struct sbridge_consumer *c)
{
	const struct sbridge_consumer *i;

	lockdep_assert_held(&sbridge_consumer_lock);
	list_for_each_entry(i, &sbridge_consumers, node)
		if (i == c)
			return true;
	return false;
}

/**
 * sbridge_register_consumer() - be told when factors change
 * @c: consumer with @c->factors_changed set; @c->node is the core's
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL (no callback) or -EBUSY (already registered).
 */
int sbridge_register_consumer(struct sbridge_consumer *c)
{
	int ret = 0;

	if (!c || !c->factors_changed)
		return -EINVAL;
	mutex_lock(&sbridge_consumer_lock);
	/* a second add would corrupt the list */
	if (sbridge_consumer_listed(c))
		ret = -EBUSY;
	else
		list_add_tail(&c->node, &sbridge_consumers);
	mutex_unlock(&sbridge_consumer_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(sbridge_register_consumer);

/**
 * sbridge_unregister_consumer() - stop notifications to @c
 * @c: a registered consumer (an unknown one is only logged)
 *
 * On return @c's callback is not running and will not be called again.
 *
 * Context: process context, sleeps; must not be called from the callback.
 */
void sbridge_unregister_consumer(struct sbridge_consumer *c)
{
	if (!c)
		return;
	mutex_lock(&sbridge_consumer_lock);
	if (sbridge_consumer_listed(c))
		list_del_init(&c->node);
	else
		pr_warn("unregister of a consumer that is not registered (%ps)\n",
			c->factors_changed);
	mutex_unlock(&sbridge_consumer_lock);
}

/**
 * sbridge_consumers_module_going() - drop the consumers of a leaving module
 * @mod: module in MODULE_STATE_GOING (its exit has run, memory not freed)
 *
 * A consumer module that forgot to unregister would leave the core
 * calling freed code.
 *
 * Context: process context (module notifier).
 */
static void sbridge_consumers_module_going(struct module *mod)
{
	struct sbridge_consumer *c, *n;

	mutex_lock(&sbridge_consumer_lock);
	list_for_each_entry_safe(c, n, &sbridge_consumers, node) {
		if (c->owner != mod)
			continue;
		pr_err("consumer of module %s left without unregistering; dropped\n",
		       mod->name);
		list_del_init(&c->node);
	}
	mutex_unlock(&sbridge_consumer_lock);
}
EXPORT_SYMBOL_GPL(sbridge_unregister_consumer);

static void sbridge_notify_fn(struct work_struct *w)
{
	struct sbridge_consumer *c;
	bool cpu;

	/* Callbacks run under the mutex, so unregister waits for them. */
	mutex_lock(&sbridge_consumer_lock);
	cpu = sbridge_notify_cpu;
	sbridge_notify_cpu = false;
	list_for_each_entry(c, &sbridge_consumers, node)
		c->factors_changed(c, cpu);
	mutex_unlock(&sbridge_consumer_lock);
}

/**
 * sbridge_consumers_notify() - schedule a factors_changed round
 * @cpu_mask_changed: CPU factors moved
 *
 * Context: process context (takes the consumer mutex).
 */
void sbridge_consumers_notify(bool cpu_mask_changed)
{
	mutex_lock(&sbridge_consumer_lock);
	if (cpu_mask_changed)
		sbridge_notify_cpu = true;
	if (!sbridge_api_dying)
		schedule_work(&sbridge_notify_work);
	mutex_unlock(&sbridge_consumer_lock);
}

/* The effective CPU factors moved: a round with cpu_mask_changed. */
static void sbridge_moved_fn(struct work_struct *w)
{
	sbridge_consumers_notify(true);
}
static DECLARE_WORK(sbridge_moved_work, sbridge_moved_fn);

/* event.c's chain is atomic: the round is a work item's to start. */
static int sbridge_api_event(struct notifier_block *nb, unsigned long type,
			     void *data)
{
	if (type == SBRIDGE_EVENT_FACTORS_MOVED)
		schedule_work(&sbridge_moved_work);
	return NOTIFY_DONE;
}

static struct notifier_block sbridge_api_event_nb = {
	.notifier_call = sbridge_api_event,
};

static int sbridge_api_module_cb(struct notifier_block *nb, unsigned long action,
				 void *data)
{
	if (action == MODULE_STATE_GOING)
		sbridge_consumers_module_going(data);
	return NOTIFY_DONE;
}

static struct notifier_block sbridge_api_module_nb = {
	.notifier_call = sbridge_api_module_cb,
};

/**
 * sbridge_api_init() - hear of factor changes and of consumers leaving
 *
 * Context: process context at load.
 * Return: 0 or a negative errno.
 */
int sbridge_api_init(void)
{
	int ret = sbridge_event_listen(&sbridge_api_event_nb);

	if (ret)
		return ret;
	ret = register_module_notifier(&sbridge_api_module_nb);
	if (ret)
		sbridge_event_unlisten(&sbridge_api_event_nb);
	return ret;
}

/**
 * sbridge_api_exit() - stop listening, stop and flush notifications
 *
 * Context: process context, sleeps.
 */
void sbridge_api_exit(void)
{
	unregister_module_notifier(&sbridge_api_module_nb);
	sbridge_event_unlisten(&sbridge_api_event_nb);
	cancel_work_sync(&sbridge_moved_work);
	mutex_lock(&sbridge_consumer_lock);
	sbridge_api_dying = true;
	mutex_unlock(&sbridge_consumer_lock);
	cancel_work_sync(&sbridge_notify_work);
}

/**
 * sbridge_task_factor() - load scale factor of @p on @cpu
 * @p: any task (need not be current)
 * @cpu: a possible CPU
 *
 * LF of the model (eq. 3) for @p on @cpu's core type: a rule's fixed
 * factor, else C x CPU factor x CPI_B(i/m) learned for @p (seeded from the
 * matrix for known workloads), else the CPU factor alone.
 *
 * Context: any, including IRQs off; lock-free (RCU).
 * Return: fixed-point factor in [SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX];
 *	SBRIDGE_FP_ONE for an untracked task or a bad @cpu.
 */
u32 sbridge_task_factor(struct task_struct *p, int cpu)
{
	struct sbridge_task *t;
	u32 f = SBRIDGE_FP_ONE;

	if (!p || cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return SBRIDGE_FP_ONE;
	rcu_read_lock();
	t = sbridge_task_lookup(p);
	if (t)
		f = sbridge_task_factor_on(t, sbridge_cpu_type(cpu));
	rcu_read_unlock();
	return f;
}
EXPORT_SYMBOL_GPL(sbridge_task_factor);

/**
 * sbridge_task_scaled_load() - @load scaled by @p's factor on @cpu
 * @p: any task
 * @cpu: a possible CPU
 * @load: load in the caller's unit (e.g. util or load_avg)
 *
 * Context: any; lock-free.
 * Return: @load * sbridge_task_factor(@p, @cpu) / SBRIDGE_FP_ONE.
 */
unsigned long sbridge_task_scaled_load(struct task_struct *p, int cpu,
				       unsigned long load)
{
	u64 v = (u64)load * sbridge_task_factor(p, cpu);

	return (unsigned long)(v >> SBRIDGE_FP_SHIFT);
}
EXPORT_SYMBOL_GPL(sbridge_task_scaled_load);

/**
 * sbridge_cpu_freq_hint() - frequency hint for @cpu, in kHz
 * @cpu: a possible CPU
 *
 * The effective frequency the counter source measures, else the maximum
 * frequency of @cpu's core type; a frequency governor can use it as a
 * floor for work whose factor says it gains from speed.
 *
 * Context: any; lock-free (calls the source under RCU).
 * Return: kHz, 0 if unknown.
 */
u32 sbridge_cpu_freq_hint(int cpu)
{
	u32 khz;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return 0;
	khz = sbridge_source_effective_khz(cpu);
	if (!khz)
		khz = READ_ONCE(per_cpu(sbridge_cpus, cpu).max_khz);
	return khz;
}
EXPORT_SYMBOL_GPL(sbridge_cpu_freq_hint);
