// SPDX-License-Identifier: GPL-2.0
/*
 * Counter-source registry. One source at a time (e.g. sbridge_pmu); the
 * core reaches its ops only through an RCU-protected pointer, so the
 * source can go away at any moment: unregistering swaps the pointer to
 * NULL and waits for every reader (the sched_switch probe runs with
 * preemption off, which is an RCU read-side section) before returning.
 *
 * The core takes no reference on the source module: it would then never
 * reach its exit function. The source depends on the core's symbols, so
 * the core cannot be unloaded while a source is loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include "internal.h"

/* Written under sbridge_source_lock, read under RCU. */
const struct sbridge_source_ops __rcu *sbridge_source;
static DEFINE_MUTEX(sbridge_source_lock);
/* Bumped on every swap so that per-CPU baselines know to restart. */
atomic_t sbridge_source_gen = ATOMIC_INIT(0);

/**
 * sbridge_register_source() - install a counter source
 * @ops: the source's operations; must stay valid until
 *	sbridge_unregister_source() returns
 *
 * Context: process context, may sleep. Takes the registry mutex.
 * Return: 0, -EINVAL for bad @ops, -EBUSY if another source is installed.
 */
int sbridge_register_source(const struct sbridge_source_ops *ops)
{
	int ret = 0;

	if (!ops || !ops->name || !ops->name[0])
		return -EINVAL;
	if (ops->events & ~SBRIDGE_EV_ALL)
		return -EINVAL;

	mutex_lock(&sbridge_source_lock);
	if (rcu_access_pointer(sbridge_source)) {
		ret = -EBUSY;
	} else {
		atomic_inc(&sbridge_source_gen);
		rcu_assign_pointer(sbridge_source, ops);
	}
	mutex_unlock(&sbridge_source_lock);

	if (ret) {
		pr_warn("source %s refused: one is already registered\n",
			ops->name);
		return ret;
	}
	pr_info("counter source %s registered (events 0x%x)\n", ops->name,
		ops->events);
	sbridge_event_post(SBRIDGE_EVENT_SOURCE, ops->name);
	return 0;
}
EXPORT_SYMBOL_GPL(sbridge_register_source);

/**
 * sbridge_unregister_source() - remove a counter source
 * @ops: the ops passed to sbridge_register_source()
 *
 * After return no CPU is inside or will enter any of @ops' callbacks, so
 * the caller may free them or unload.
 *
 * Context: process context, sleeps (synchronize_rcu()). Takes the registry
 * mutex.
 */
void sbridge_unregister_source(const struct sbridge_source_ops *ops)
{
	const struct sbridge_source_ops *cur;

	mutex_lock(&sbridge_source_lock);
	cur = rcu_dereference_protected(sbridge_source,
					lockdep_is_held(&sbridge_source_lock));
	if (cur == ops && ops) {
		RCU_INIT_POINTER(sbridge_source, NULL);
		atomic_inc(&sbridge_source_gen);
	}
	mutex_unlock(&sbridge_source_lock);

	if (cur != ops || !ops) {
		pr_warn("unregister of a source that is not registered\n");
		return;
	}
	/* Readers run in the switch path with preemption off. */
	synchronize_rcu();
	pr_info("counter source %s unregistered\n", ops->name);
	sbridge_event_post(SBRIDGE_EVENT_SOURCE, "none");
}
EXPORT_SYMBOL_GPL(sbridge_unregister_source);

/**
 * sbridge_source_events() - what the current source delivers
 *
 * Context: any.
 * Return: its SBRIDGE_EV_* mask, 0 if there is no source.
 */
u32 sbridge_source_events(void)
{
	const struct sbridge_source_ops *ops;
	u32 events = 0;

	rcu_read_lock();
	ops = rcu_dereference(sbridge_source);
	if (ops)
		events = ops->events;
	rcu_read_unlock();
	return events;
}

/**
 * sbridge_source_describe() - copy the current source's name and events
 * @name: buffer of @len bytes, gets "" when there is no source
 * @len: size of @name
 *
 * Context: any.
 * Return: the SBRIDGE_EV_* mask of the current source, 0 if none.
 */
u32 sbridge_source_describe(char *name, size_t len)
{
	const struct sbridge_source_ops *ops;
	u32 events = 0;

	rcu_read_lock();
	ops = rcu_dereference(sbridge_source);
	if (ops) {
		strscpy(name, ops->name, len);
		events = ops->events;
	} else if (len) {
		name[0] = '\0';
	}
	rcu_read_unlock();
	return events;
}

/**
 * sbridge_source_effective_khz() - effective frequency of @cpu
 * @cpu: CPU number
 *
 * Context: any; the source callback is called under RCU.
 * Return: kHz from the source, 0 if none or unknown.
 */
u32 sbridge_source_effective_khz(unsigned int cpu)
{
	const struct sbridge_source_ops *ops;
	u32 khz = 0;

	rcu_read_lock();
	ops = rcu_dereference(sbridge_source);
	if (ops && ops->effective_khz)
		khz = ops->effective_khz(cpu);
	rcu_read_unlock();
	return khz;
}

/**
 * sbridge_source_clock() - where the source's effective clock of @cpu comes from
 * @cpu: CPU number
 * @name: buffer of @len bytes for the source's name of it, "" if none
 * @len: size of @name
 *
 * Context: any; the source callback is called under RCU.
 * Return: enum sbridge_clock, SBRIDGE_CLOCK_NONE without a source or a
 *	source that does not say.
 */
u32 sbridge_source_clock(unsigned int cpu, char *name, size_t len)
{
	const struct sbridge_source_ops *ops;
	const char *n = NULL;
	u32 kind = SBRIDGE_CLOCK_NONE;

	rcu_read_lock();
	ops = rcu_dereference(sbridge_source);
	if (ops && ops->clock)
		kind = ops->clock(cpu, &n);
	strscpy(name, n && kind != SBRIDGE_CLOCK_NONE ? n : "", len);
	rcu_read_unlock();
	return kind;
}

/**
 * sbridge_source_pmu() - the PMU the source counts @cpu with
 * @cpu: CPU number
 * @name: buffer of @name_len bytes for the perf PMU's name
 * @name_len: size of @name
 * @chain: buffer of @chain_len bytes for the event chain chosen on it
 * @chain_len: size of @chain
 *
 * Context: process context; the source callback is called under RCU.
 * Return: true with both filled, false (both "") without a source, a
 *	source that does not say, or a CPU without a PMU.
 */
bool sbridge_source_pmu(unsigned int cpu, char *name, size_t name_len,
			char *chain, size_t chain_len)
{
	const struct sbridge_source_ops *ops;
	bool ok = false;

	if (!name_len || !chain_len)
		return false;
	name[0] = '\0';
	chain[0] = '\0';
	rcu_read_lock();
	ops = rcu_dereference(sbridge_source);
	if (ops && ops->pmu)
		ok = ops->pmu(cpu, name, name_len, chain, chain_len);
	rcu_read_unlock();
	/* whatever the source wrote, both are strings */
	name[name_len - 1] = '\0';
	chain[chain_len - 1] = '\0';
	if (!ok || !name[0]) {
		name[0] = '\0';
		chain[0] = '\0';
		return false;
	}
	return true;
}

/*
 * A source module that forgets to unregister (or whose init fails after
 * registering) would leave the core calling freed code. The module
 * notifier runs after the source's exit function and before its memory
 * is freed, so the core drops such a source here, and likewise consumers.
 */
static int sbridge_source_module_cb(struct notifier_block *nb,
				    unsigned long state, void *data)
{
	struct module *mod = data;
	const struct sbridge_source_ops *cur;
	bool mine;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	/*
	 * Another module's source may be unregistered and freed at once:
	 * look at it only under RCU. Ours lives in @mod, whose memory stays
	 * until this notifier returns.
	 */
	rcu_read_lock();
	cur = rcu_dereference(sbridge_source);
	mine = cur && cur->owner == mod;
	rcu_read_unlock();
	if (mine) {
		pr_err("source %s: module %s left without unregistering; dropped\n",
		       cur->name, mod->name);
		sbridge_unregister_source(cur);
	}
	return NOTIFY_DONE;
}

static struct notifier_block sbridge_source_nb = {
	.notifier_call = sbridge_source_module_cb,
};

/**
 * sbridge_source_init() - watch source modules going away
 *
 * Return: 0 or a negative errno.
 */
int sbridge_source_init(void)
{
	return register_module_notifier(&sbridge_source_nb);
}

/**
 * sbridge_source_exit() - stop watching
 */
void sbridge_source_exit(void)
{
	unregister_module_notifier(&sbridge_source_nb);
}

/**
 * sbridge_status_message() - one line saying what works and what does not
 * @events: SBRIDGE_EV_* of the current source
 * @has_source: a source is registered
 *
 * Return: static string.
 */
const char *sbridge_status_message(u32 events, bool has_source)
{
	if (!has_source)
		return "no counter source: factors are neutral (rules and CPU factors still apply)";
	if ((events & SBRIDGE_EV_LEARN) != SBRIDGE_EV_LEARN)
		return "counter source lacks cycles or instructions: no CPI learning";
	if (!(events & (SBRIDGE_EV_LLC_MISSES | SBRIDGE_EV_STALL_CYCLES)))
		return "no LLC-miss or stall counts: CPI_stall taken as 0 (tasks look compute-bound)";
	if (!READ_ONCE(sbridge_params.learning))
		return "learning switched off";
	return "ok";
}

/**
 * sbridge_learning_possible() - can the model learn right now
 *
 * Context: any (the decision's estimates too); RCU inside, lock-free.
 * Return: true if learning is on and the source gives cycles and
 *	instructions.
 */
bool sbridge_learning_possible(void)
{
	return READ_ONCE(sbridge_params.learning) &&
	       (sbridge_source_events() & SBRIDGE_EV_LEARN) == SBRIDGE_EV_LEARN;
}
