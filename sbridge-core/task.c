// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task state: one entry per task, from a kmem_cache, in an rhashtable
 * keyed by the task_struct pointer (unique until the task's free hook,
 * unlike pids, which may be reused before the old task_struct is freed).
 * Lookups are lock-free under RCU; the sampling path (sample.c) only looks up
 * and updates the entries of prev/next, which only that CPU writes then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/cred.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "internal.h"

#define SBRIDGE_SHARE_NONE	0xffff

struct sbridge_stats sbridge_stats;

static struct kmem_cache *sbridge_task_cache;
static struct rhashtable sbridge_tasks;
static bool sbridge_tasks_ready;

static const struct rhashtable_params sbridge_task_params = {
	.key_len = sizeof(struct task_struct *),
	.key_offset = offsetof(struct sbridge_task, task),
	.head_offset = offsetof(struct sbridge_task, node),
	.automatic_shrinking = true,
};

/**
 * sbridge_task_lookup() - the entry of @p
 * @p: task
 *
 * Context: caller holds rcu_read_lock() or runs with preemption off; the
 *	entry stays valid until that ends.
 * Return: entry or NULL if @p is not tracked.
 */
struct sbridge_task *sbridge_task_lookup(struct task_struct *p)
{
	if (unlikely(!READ_ONCE(sbridge_tasks_ready)))
		return NULL;
	return rhashtable_lookup(&sbridge_tasks, &p, sbridge_task_params);
}

static void sbridge_task_reset_model(struct sbridge_task *t)
{
	unsigned int i;

	memset(&t->win, 0, sizeof(t->win));
	memset(&t->ph, 0, sizeof(t->ph));
	for (i = 0; i < SBRIDGE_MAX_CORE_TYPES; i++) {
		t->share[i] = SBRIDGE_SHARE_NONE;
		t->cpi[i] = 0;
		t->cpi_stall[i] = 0;
	}
	memset(t->tp, 0, sizeof(t->tp));
	memset(t->win_n, 0, sizeof(t->win_n));
	memset(t->win_folded, 0, sizeof(t->win_folded));
	memset(t->ph_n, 0, sizeof(t->ph_n));
	memset(t->ph_folded, 0, sizeof(t->ph_folded));
	t->seed_speedup = 0;
	t->seed_w = 0;
	t->flags &= ~(SBRIDGE_TF_LEARNED | SBRIDGE_TF_SAMPLED_ALL);
}

static void sbridge_task_reset_rules(struct sbridge_task *t)
{
	t->class = SBRIDGE_CLASS_AUTO;
	t->pref = SBRIDGE_PREF_NONE;
	memset(t->rule_factor, 0, sizeof(t->rule_factor));
}

/*
 * Would perf refuse @p's owner its counters? For a set-id program (real
 * and effective ids differ), yes. perf also refuses a non-dumpable task;
 * kernels from 7.x no longer export that state to modules, so a program
 * that made itself non-dumpable stays visible to its owner.
 */
static bool sbridge_task_private(struct task_struct *p)
{
	const struct cred *c;
	bool priv;

	rcu_read_lock();
	c = __task_cred(p);
	priv = !uid_eq(c->uid, c->euid) || !gid_eq(c->gid, c->egid);
	rcu_read_unlock();
	return priv;
}

/* Fills a fresh entry @t (from the cache, counted) for @p. */
static struct sbridge_task *sbridge_task_setup(struct sbridge_task *t,
					       struct task_struct *p)
{
	memset(t, 0, sizeof(*t));
	atomic64_inc(&sbridge_stats.allocs);
	t->task = p;
	t->pid = task_pid_nr(p);
	t->uid = from_kuid_munged(&init_user_ns, task_uid(p));
	t->mm_tag = sbridge_mm_tag(READ_ONCE(p->mm));
	memcpy(t->comm, p->comm, SBRIDGE_KEY_LEN);
	t->comm[SBRIDGE_KEY_LEN - 1] = '\0';
	t->last_cpu = task_cpu(p);
	raw_spin_lock_init(&t->rule_lock);
	sbridge_task_reset_model(t);
	sbridge_task_reset_rules(t);
	if (sbridge_task_private(p))
		t->flags |= SBRIDGE_TF_PRIVATE;
	return t;
}

/**
 * sbridge_task_new() - a fresh entry for @p, not yet in the table
 * @p: task
 * @gfp: allocation flags (GFP_NOWAIT in the probes)
 *
 * Context: as @gfp allows.
 * Return: the entry, or NULL (counted in alloc_fail).
 */
struct sbridge_task *sbridge_task_new(struct task_struct *p, gfp_t gfp)
{
	struct sbridge_task *t;

	t = kmem_cache_alloc(sbridge_task_cache, gfp | __GFP_NOWARN);
	if (!t) {
		atomic64_inc(&sbridge_stats.alloc_fail);
		return NULL;
	}
	return sbridge_task_setup(t, p);
}

static void sbridge_task_free_now(struct sbridge_task *t)
{
	kmem_cache_free(sbridge_task_cache, t);
	atomic64_inc(&sbridge_stats.frees);
}

static void sbridge_task_free_rcu(struct rcu_head *head)
{
	sbridge_task_free_now(container_of(head, struct sbridge_task, rcu));
}

/**
 * sbridge_task_insert() - publish a new entry
 * @t: from sbridge_task_new(), filled
 *
 * On a race with another inserter of the same task, or no memory for the
 * table, @t is dropped.
 *
 * Context: any the probes run in; under RCU.
 * Return: @t, or NULL if it was dropped.
 */
struct sbridge_task *sbridge_task_insert(struct sbridge_task *t)
{
	int ret;

	ret = rhashtable_lookup_insert_fast(&sbridge_tasks, &t->node,
					    sbridge_task_params);
	if (ret) {
		if (ret != -EEXIST)
			atomic64_inc(&sbridge_stats.alloc_fail);
		sbridge_task_free_now(t);
		return NULL;
	}
	return t;
}

/* Measured speedup in force for @t and the windows of trust behind it. */
static u32 sbridge_task_meas(const struct sbridge_task *t, u32 *trust)
{
	u32 own, own_w, seed = READ_ONCE(t->seed_speedup), sw = 0, meas;

	own = sbridge_task_speedup_own(t, &own_w);
	if (!own)
		own_w = 0;
	own_w = min_t(u32, own_w, SBRIDGE_SPEEDUP_TRUST);
	if (seed)
		sw = min_t(u32, READ_ONCE(t->seed_w), SBRIDGE_SPEEDUP_TRUST - own_w);
	sbridge_model_speedup_blend(SBRIDGE_FP_ONE, own, own_w, seed, sw, &meas);
	*trust = own_w + sw;
	return meas;
}

static void sbridge_task_inherit_speedup(struct sbridge_task *t,
					 const struct sbridge_task *parent)
{
	u32 trust, meas = sbridge_task_meas(parent, &trust);

	t->seed_speedup = meas > U16_MAX ? U16_MAX : meas;
	t->seed_w = meas ? trust : 0;
}

/**
 * sbridge_task_inherit() - a child's identity and model from its parent
 * @t: the child's new entry, not yet in the table
 * @parent: the parent's entry, under RCU
 *
 * A thread or a fork runs the same program: it starts with what the parent
 * learned, its measured speedup counted once. Rules are the caller's.
 */
void sbridge_task_inherit(struct sbridge_task *t, const struct sbridge_task *parent)
{
	t->exe_hash = parent->exe_hash;
	t->flags = parent->flags & ~(SBRIDGE_TF_LEARNED | SBRIDGE_TF_SAMPLED_ALL);
	t->ph = parent->ph;
	t->ph.cand_count = 0;
	memcpy(t->share, parent->share, sizeof(t->share));
	memcpy(t->cpi, parent->cpi, sizeof(t->cpi));
	memcpy(t->cpi_stall, parent->cpi_stall, sizeof(t->cpi_stall));
	sbridge_task_inherit_speedup(t, parent);
}

/**
 * sbridge_task_get() - the entry of @p, made if it has none
 * @p: task
 *
 * Context: under RCU, preemption off; allocates with GFP_NOWAIT.
 * Return: the entry, or NULL if none could be made.
 */
struct sbridge_task *sbridge_task_get(struct task_struct *p)
{
	struct sbridge_task *t = sbridge_task_lookup(p);

	if (t)
		return t;
	t = sbridge_task_new(p, GFP_NOWAIT);
	return t ? sbridge_task_insert(t) : NULL;
}

/**
 * sbridge_task_rekey() - a new program in @t's task: identity and model anew
 * @t: entry of @p
 * @p: the task, running its exec
 * @exe_hash: jhash of the new executable's path, 0 if unknown
 *
 * Context: the caller holds the matrix lock (IRQs off), so a periodic fold
 *	sees the entry before or after the exec, never in between.
 */
void sbridge_task_rekey(struct sbridge_task *t, struct task_struct *p, u32 exe_hash)
{
	u64 run = DIV_ROUND_UP_ULL(p->se.sum_exec_runtime,
				   1ULL << SBRIDGE_EXEC_RUN_SHIFT);

	t->exe_hash = exe_hash;
	t->mm_tag = sbridge_mm_tag(p->mm);
	WRITE_ONCE(t->exec_run, min_t(u64, run, U16_MAX));
	t->flags &= ~SBRIDGE_TF_EXEC;
	sbridge_task_reset_model(t);
	t->uid = from_kuid_munged(&init_user_ns, task_uid(p));
	if (sbridge_task_private(p))
		t->flags |= SBRIDGE_TF_PRIVATE;
	else
		t->flags &= ~SBRIDGE_TF_PRIVATE;
}

/**
 * sbridge_task_remove() - take @p's entry out of the table
 * @p: the task, about to be freed
 *
 * Context: under RCU; the entry stays readable until that ends.
 * Return: the entry, to be given to sbridge_task_release(), or NULL.
 */
struct sbridge_task *sbridge_task_remove(struct task_struct *p)
{
	struct sbridge_task *t = sbridge_task_lookup(p);

	if (t && !rhashtable_remove_fast(&sbridge_tasks, &t->node,
					 sbridge_task_params))
		return t;
	return NULL;
}

/**
 * sbridge_task_release() - free a removed entry after a grace period
 * @t: from sbridge_task_remove()
 */
void sbridge_task_release(struct sbridge_task *t)
{
	call_rcu(&t->rcu, sbridge_task_free_rcu);
}

/**
 * sbridge_task_factor_on() - LF of a tracked task on a core type
 * @t: entry, under RCU
 * @type: core type
 *
 * Context: any, under RCU.
 * Return: fixed-point factor; SBRIDGE_FP_ONE if nothing is known, as the
 *	paper starts every task at 1.
 */
u32 sbridge_task_factor_on(const struct sbridge_task *t, unsigned int type)
{
	u32 share;
	u8 cur;

	if (type >= SBRIDGE_MAX_CORE_TYPES)
		return SBRIDGE_FP_ONE;
	if (READ_ONCE(t->pref) == SBRIDGE_PREF_EXCLUDE)
		return SBRIDGE_FP_ONE;
	if (READ_ONCE(t->rule_factor[type]))
		return READ_ONCE(t->rule_factor[type]);
	switch (READ_ONCE(t->class)) {
	case SBRIDGE_CLASS_COMPUTE:
		share = SBRIDGE_FP_ONE;
		break;
	case SBRIDGE_CLASS_MEMORY:
		share = 0;
		break;
	default:
		if (!READ_ONCE(t->ph.nphases))
			return SBRIDGE_FP_ONE;
		cur = READ_ONCE(t->ph.cur) % SBRIDGE_MAX_PHASES;
		share = READ_ONCE(t->ph.share[cur]);
		break;
	}
	return sbridge_model_factor(READ_ONCE(sbridge_params.c_const),
				    sbridge_type_factor(type), share,
				    READ_ONCE(sbridge_params.ref_share));
}

/**
 * sbridge_task_speedup_own() - big/little speedup measured on @t itself
 * @t: entry, under RCU
 * @weight: out, windows on the less-sampled of the two core types
 *	(at most SBRIDGE_TP_N_MAX), 0 if nothing was measured
 *
 * Compares the fastest core type @t has windows on with the slowest one
 * (by type index: capacity order) through their throughput accumulators.
 *
 * Context: any, under RCU; lock-free, O(SBRIDGE_MAX_CORE_TYPES).
 * Return: the measured speedup (fp), 0 if @t has not run on two types.
 */
u32 sbridge_task_speedup_own(const struct sbridge_task *t, u32 *weight)
{
	unsigned int type, n = min_t(unsigned int, sbridge_topo.ntypes,
				     SBRIDGE_MAX_CORE_TYPES);
	u64 v, lo = 0, hi = 0;
	bool equal;
	u32 r;

	*weight = 0;
	for (type = 0; type < n; type++) {
		v = READ_ONCE(t->tp[type]);
		if (!sbridge_model_tp_count(v))
			continue;
		if (!lo)
			lo = v;
		else
			hi = v;
	}
	if (!hi)
		return 0;
	r = sbridge_model_tp_speedup(hi, lo, &equal);
	if (!r)
		return 0;
	if (equal)
		pr_info_once("measured speedup: a core type's clock is unknown, clocks taken as equal (IPC ratio)\n");
	*weight = min(sbridge_model_tp_count(hi), sbridge_model_tp_count(lo));
	return r;
}

/**
 * sbridge_task_speedup() - big/little speedup of a task, predicted and measured
 * @t: entry, under RCU
 * @pred: out, the CPI-stack prediction FP_ONE + LF(little) - LF(big),
 *	at least SBRIDGE_FP_ONE (SBRIDGE_FP_ONE with one core type); may be
 *	NULL
 * @meas: out, the measured speedup in force (the task's own, filled up
 *	with its workload's from the matrix while the task's is thin), 0 if
 *	unknown; may be NULL
 *
 * Big is sbridge_topo.ref_type, little type 0. The measured part gains
 * trust with the windows on the less-sampled type (full after
 * SBRIDGE_SPEEDUP_TRUST); parameter learn.measured = 0 turns it off.
 *
 * Context: any, under RCU; lock-free, O(1).
 * Return: the blend of @pred and @meas (fp); @pred if nothing was
 *	measured or learn.measured is 0.
 */
u32 sbridge_task_speedup(const struct sbridge_task *t, u32 *pred, u32 *meas)
{
	u32 p = SBRIDGE_FP_ONE, m, trust, ret;
	s64 d;

	if (sbridge_topo.ntypes > 1) {
		d = (s64)SBRIDGE_FP_ONE + sbridge_task_factor_on(t, 0) -
		    sbridge_task_factor_on(t, sbridge_topo.ref_type);
		p = d > SBRIDGE_FP_ONE ? (u32)d : SBRIDGE_FP_ONE;
	}
	m = sbridge_task_meas(t, &trust);
	ret = sbridge_model_speedup_blend(p, m, trust, 0, 0, &m);
	if (!READ_ONCE(sbridge_params.learn_measured))
		ret = p;
	if (pred)
		*pred = p;
	if (meas)
		*meas = m;
	return ret;
}

/**
 * sbridge_task_share() - CPI_B share the factors of @t use
 * @t: entry, under RCU
 *
 * Return: fixed-point share, or SBRIDGE_FP_ONE if nothing is known.
 */
u32 sbridge_task_share(const struct sbridge_task *t)
{
	u8 cur;
	u8 class = READ_ONCE(t->class);

	if (class == SBRIDGE_CLASS_COMPUTE)
		return SBRIDGE_FP_ONE;
	if (class == SBRIDGE_CLASS_MEMORY)
		return 0;
	if (!t->ph.nphases)
		return SBRIDGE_FP_ONE;
	cur = READ_ONCE(t->ph.cur) % SBRIDGE_MAX_PHASES;
	return READ_ONCE(t->ph.share[cur]);
}

/**
 * sbridge_task_placement() - core type the decision layer put @t on
 * @t: entry, under RCU
 *
 * Return: the fast (reference) type for a FAST hint, the smallest type
 *	for SLOW, SBRIDGE_MAX_CORE_TYPES when there is no decision for @t.
 */
u32 sbridge_task_placement(const struct sbridge_task *t)
{
	switch (READ_ONCE(t->hint)) {
	case SBRIDGE_HINT_FAST:
		return sbridge_topo.ref_type;
	case SBRIDGE_HINT_SLOW:
		return 0;
	default:
		return SBRIDGE_MAX_CORE_TYPES;
	}
}

/**
 * sbridge_tasks_live() - entries allocated and not yet freed
 *
 * Return: allocs - frees.
 */
s64 sbridge_tasks_live(void)
{
	return atomic64_read(&sbridge_stats.allocs) -
	       atomic64_read(&sbridge_stats.frees);
}

/**
 * sbridge_tasks_walk() - call @fn for tracked tasks, in pid order
 * @fn: callback, called under rcu_read_lock(), must not sleep; a nonzero
 *	return stops the walk
 * @arg: passed to @fn
 * @cursor: in, the pid to start from; out, the pid of the task @fn stopped
 *	at (a walk resumed there visits it again), or one past the last pid
 *
 * Walks the pids of the initial namespace, not the table: the table's
 * order changes with every insert, removal and resize, so a walk resumed
 * by position (a netlink dump spread over several messages, the matrix
 * refresh's budget) could skip a task alive throughout, and did (CI: one
 * of 300 sleepers missing from `sbridgectl tasks`). By pid, a resumed walk
 * misses no live task and shows none twice. Tasks already unhashed (exited,
 * their entries not yet freed) are not visited.
 *
 * Context: process context; holds rcu_read_lock() for the walk.
 * Return: the nonzero value of @fn that stopped the walk, else 0.
 */
int sbridge_tasks_walk(int (*fn)(struct sbridge_task *t, void *arg), void *arg,
		       int *cursor)
{
	struct task_struct *p;
	struct sbridge_task *t;
	struct pid *pid;
	int nr = max(*cursor, 1), ret = 0;

	rcu_read_lock();
	while ((pid = find_ge_pid(nr, &init_pid_ns))) {
		nr = pid_nr(pid);
		p = pid_task(pid, PIDTYPE_PID);
		t = p ? sbridge_task_lookup(p) : NULL;
		if (t) {
			ret = fn(t, arg);
			if (ret)
				break;
		}
		nr++;
	}
	rcu_read_unlock();
	*cursor = nr;
	return ret;
}

/* Entries allocated (sleeping) ahead of each stretch of the adoption walk. */
#define SBRIDGE_ADOPT_BATCH	64

/**
 * sbridge_tasks_adopt() - track the tasks that existed before load
 *
 * Must run after the fork and free hooks are registered: a task seen in
 * the task list inside an RCU section cannot reach its free hook before
 * the section ends, so no adopted entry can be missed by the free hook.
 * Entries come from batches allocated with GFP_KERNEL outside the RCU
 * section (no drain of the atomic reserves, no long non-preemptible
 * stretch on hosts with many threads). When a batch runs out, the walk
 * holds the thread it stands on, leaves the section to refill, and goes
 * on from that thread if it is still hashed (as hung_task's
 * rcu_lock_break() does); only if it died does the walk start again,
 * skipping the tasks already tracked. Restarting on every batch made a
 * load with 25 000 threads live take minutes.
 *
 * @fresh: fills a new entry from above (rules, matrix seed) before it is
 *	published; called under RCU, must not sleep
 * @published: called under RCU right after the entry of @p went into the
 *	table, for what may have changed since @fresh read it (an exec or
 *	rename that found no entry); must not sleep
 *
 * Context: process context, sleeps.
 * Return: number of tasks adopted.
 */
int sbridge_tasks_adopt(void (*fresh)(struct sbridge_task *t),
			void (*published)(struct sbridge_task *t,
					  struct task_struct *p))
{
	void *pool[SBRIDGE_ADOPT_BATCH];
	struct task_struct *g, *p;
	struct sbridge_task *t;
	int n = 0, have = 0, used = 0;
	bool alive;

restart:
	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (sbridge_task_lookup(p))
			continue;
		if (used == have) {
			get_task_struct(g);
			get_task_struct(p);
			rcu_read_unlock();
			have = kmem_cache_alloc_bulk(sbridge_task_cache, GFP_KERNEL,
						     SBRIDGE_ADOPT_BATCH, pool);
			used = 0;
			cond_resched();
			rcu_read_lock();
			alive = pid_alive(g) && pid_alive(p);
			put_task_struct(p);
			put_task_struct(g);
			if (!have) {
				atomic64_inc(&sbridge_stats.alloc_fail);
				break;
			}
			if (!alive) {
				rcu_read_unlock();
				goto restart;
			}
		}
		t = sbridge_task_setup(pool[used++], p);
		fresh(t);
		if (sbridge_task_insert(t)) {
			published(t, p);
			n++;
		}
	}
	rcu_read_unlock();
	if (used < have)
		kmem_cache_free_bulk(sbridge_task_cache, have - used, pool + used);
	return n;
}

/**
 * sbridge_tasks_init() - create the cache and the table
 *
 * Context: process context at init.
 * Return: 0 or a negative errno.
 */
int sbridge_tasks_init(void)
{
	int ret;

#if !defined(CONFIG_DEBUG_SPINLOCK) && !defined(CONFIG_DEBUG_LOCK_ALLOC)
	/* the per-task memory goal (bench/README.md); lock debugging grows it */
	BUILD_BUG_ON(sizeof(struct sbridge_task) > 256);
#endif
	sbridge_task_cache = KMEM_CACHE(sbridge_task, 0);
	if (!sbridge_task_cache)
		return -ENOMEM;
	ret = rhashtable_init(&sbridge_tasks, &sbridge_task_params);
	if (ret) {
		kmem_cache_destroy(sbridge_task_cache);
		return ret;
	}
	WRITE_ONCE(sbridge_tasks_ready, true);
	return 0;
}

static void sbridge_task_destroy_one(void *ptr, void *arg)
{
	sbridge_task_free_now(ptr);
}

/**
 * sbridge_tasks_exit() - free every entry and the cache
 *
 * Called after every hook is unregistered and synchronised: no reader or
 * writer is left. Pending RCU frees are flushed before the cache goes.
 *
 * Context: process context, sleeps.
 */
void sbridge_tasks_exit(void)
{
	WRITE_ONCE(sbridge_tasks_ready, false);
	synchronize_rcu();
	rhashtable_free_and_destroy(&sbridge_tasks, sbridge_task_destroy_one,
				    NULL);
	rcu_barrier();
	kmem_cache_destroy(sbridge_task_cache);
	pr_info("task entries: %lld allocated, %lld freed\n",
		(long long)atomic64_read(&sbridge_stats.allocs),
		(long long)atomic64_read(&sbridge_stats.frees));
}
