/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task ledger: what the placement and uclamp actuators changed in a
 * task, one record per task and actuator, shared code for both (docs/
 * architecture.md, "Ownership"). Internal to sbridge_core.
 */
#ifndef _SBRIDGE_CORE_ACT_LEDGER_H
#define _SBRIDGE_CORE_ACT_LEDGER_H

#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct task_struct;

/* zero (a new, zeroed entry) is "released": not yet counted as live */
enum sbridge_le_state {
	SBRIDGE_LE_RELEASED,	/* the task's own value is back (tombstone) */
	SBRIDGE_LE_SET,		/* the task holds the value we set */
	SBRIDGE_LE_HANDS_OFF,	/* someone else changed it, or we yielded */
};

/* What sbridge_ledger_ops.owner() finds on the task. */
enum sbridge_le_owner {
	SBRIDGE_OWN_THEIRS,	/* the user, a cgroup or the kernel chose it */
	SBRIDGE_OWN_OURS,	/* still what we set */
	/* the kernel replaced ours by its own fallback (hotplug): give back */
	SBRIDGE_OWN_LOST,
};

/**
 * struct sbridge_lent - one task's record in a ledger
 * @node: in the ledger's list (or its pool)
 * @hnode: in the ledger's hash, keyed by @p
 * @gnode: in the ledger's process hash, keyed by @p's signal_struct
 * @p: the task; a reference is held while the entry is in the ledger
 * @state: enum sbridge_le_state
 * @hint: the actuator's hint the value implements
 * @refused: releases the kernel refused in a row (retried each run)
 * @seen: run number that last found the task in the decision
 *
 * The actuator's saved and set values follow in the structure that
 * embeds this one (container_of()). Everything changes under the
 * ledger's lock.
 */
struct sbridge_lent {
	struct list_head node;
	struct hlist_node hnode;
	struct hlist_node gnode;
	struct task_struct *p;
	u8 state;
	u8 hint;
	u8 refused;
	u64 seen;
};

struct sbridge_ledger;

/**
 * struct sbridge_ledger_ops - what one actuator's values are
 * @alloc: a zeroed entry with its values allocated (@gfp), or NULL
 * @free: frees what @alloc made
 * @owner: under the ledger's lock: who holds the value @e's task has
 *	now, by the kernel's own records where it keeps them
 * @carries: under the ledger's lock: @p, which has no entry, holds a
 *	value @pe set (now or before a re-set) that is not @p's own;
 *	@parent is @pe's task
 * @inherit: under the ledger's lock: fill the new entry @e of @child,
 *	which carries @pe's value, with @pe's saved own value
 * @write_own: give @e's task its own value back (process context, no
 *	ledger lock); 0, or the kernel's error (the entry stays and the
 *	release is retried)
 * @write_from: give @p, which carries @pe's value and has no entry, the
 *	own value @pe saved (process context, no ledger lock)
 *
 * Constant, one per actuator.
 */
struct sbridge_ledger_ops {
	struct sbridge_lent *(*alloc)(gfp_t gfp);
	void (*free)(struct sbridge_lent *e);
	enum sbridge_le_owner (*owner)(struct sbridge_lent *e);
	bool (*carries)(const struct sbridge_lent *pe, struct task_struct *parent,
			struct task_struct *p);
	void (*inherit)(struct sbridge_lent *e, const struct sbridge_lent *pe,
			struct task_struct *child);
	int (*write_own)(struct sbridge_lent *e);
	int (*write_from)(const struct sbridge_lent *pe, struct task_struct *p);
};

/**
 * struct sbridge_ledger_counts - a ledger's counters since load
 * @live: entries whose task holds our value now
 * @entries: entries, with tombstones and children
 * @releases: own values given back
 * @refused: releases the kernel refused (each retried)
 * @user_wins: values someone else changed (hands off)
 * @fallbacks: values the kernel replaced by its own fallback (hotplug)
 * @inherits: children recorded by the fork hook
 * @lost: children the fork hook could not record (found by a scan)
 * @found: children found by a scan of every thread
 */
struct sbridge_ledger_counts {
	u32 live, entries;
	u64 releases, refused, user_wins, fallbacks, inherits, lost, found;
};

/**
 * struct sbridge_ledger - the records of one actuator
 * @name: "placement" or "uclamp" (logs)
 * @ops: the actuator's values
 * @live_max: entries live at once that runs may add
 * @lock: the list, hash, pool and every entry; taken by the fork hook
 *	(preemption off), never in IRQ context
 * @mutex: held by everyone who frees entries or writes a task's value
 *	(the runner, a yield, exit): a holder may use an entry after
 *	dropping @lock
 * @list: every entry
 * @pool: entries reserved for the fork hook, refilled by the runner
 * @npool: entries in @pool
 * @hash: @list by task
 * @ghash: @list by process (signal_struct, alive while an entry holds
 *	its task)
 * @run: run number (sbridge_ledger_begin())
 * @dirty: a child went unrecorded: the next run scans every thread
 * @c: counters
 */
struct sbridge_ledger {
	const char *name;
	const struct sbridge_ledger_ops *ops;
	unsigned int live_max;
	spinlock_t lock;
	struct mutex mutex;
	struct list_head list;
	struct list_head pool;
	unsigned int npool;
	DECLARE_HASHTABLE(hash, 8);
	DECLARE_HASHTABLE(ghash, 8);
	u64 run;
	bool dirty;
	struct sbridge_ledger_counts c;
};

#define SBRIDGE_LEDGER_INIT(l, n, o, max) {				\
	.name = (n), .ops = (o), .live_max = (max),			\
	.lock = __SPIN_LOCK_UNLOCKED((l).lock),				\
	.mutex = __MUTEX_INITIALIZER((l).mutex),			\
	.list = LIST_HEAD_INIT((l).list),				\
	.pool = LIST_HEAD_INIT((l).pool),				\
}

void sbridge_ledger_init(struct sbridge_ledger *l);
void sbridge_ledger_begin(struct sbridge_ledger *l);
void sbridge_ledger_end(struct sbridge_ledger *l, bool all);
struct sbridge_lent *sbridge_ledger_find(struct sbridge_ledger *l,
					 struct task_struct *p);
struct sbridge_lent *sbridge_ledger_look(struct sbridge_ledger *l,
					 struct task_struct *p, u8 *state);
struct sbridge_lent *sbridge_ledger_reserve(struct sbridge_ledger *l,
					    struct task_struct *p);
void sbridge_ledger_commit(struct sbridge_ledger *l, struct sbridge_lent *e,
			   struct task_struct *p);
void sbridge_ledger_state(struct sbridge_ledger *l, struct sbridge_lent *e,
			  u8 state);
void sbridge_ledger_release(struct sbridge_ledger *l, struct sbridge_lent *e);
void sbridge_ledger_yield(struct sbridge_ledger *l, struct task_struct *p);
void sbridge_ledger_fork(struct sbridge_ledger *l, struct task_struct *parent,
			 struct task_struct *child);
void sbridge_ledger_exit(struct sbridge_ledger *l);
void sbridge_ledger_read(struct sbridge_ledger *l,
			 struct sbridge_ledger_counts *c);
u32 sbridge_ledger_live(struct sbridge_ledger *l);
int sbridge_ledger_fail(unsigned int what);

/* sbridge_ledger_fail(): fault points (debugfs, CONFIG_FAULT_INJECTION) */
#define SBRIDGE_FAIL_FORK	0	/* the fork hook finds no entry */
#define SBRIDGE_FAIL_WRITE	1	/* the kernel refuses a steer or clamp */
int sbridge_ledger_faults_init(void);
void sbridge_ledger_faults_exit(void);

#endif /* _SBRIDGE_CORE_ACT_LEDGER_H */
