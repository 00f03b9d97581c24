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
	memset(&t->win, 0, sizeof(t->win));
	sbridge_est_reset(&t->est, READ_ONCE(sbridge_params.warm_instr));
	t->cpi = 0;
	t->cpi_stall = 0;
	t->cpi_type = 0;
	memset(t->mix, 0, sizeof(t->mix));
	memset(t->visits_folded, 0, sizeof(t->visits_folded));
	memset(t->warm_folded, 0, sizeof(t->warm_folded));
	memset(t->ph_folded, 0, sizeof(t->ph_folded));
	t->seed_sp = 0;
	t->seed_err = 0;
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
 * and effective ids differ), yes; for a user's program holding
 * capabilities (file capabilities, ambient ones) too: ptrace's check
 * wants the target's permitted set within the caller's, and the owner's
 * own shells hold none. perf also refuses a non-dumpable task;
 * kernels from 7.x no longer export that state to modules, so a program
 * that made itself non-dumpable stays visible to its owner.
 */
static bool sbridge_task_private(struct task_struct *p)
{
	const struct cred *c;
	bool priv;

	rcu_read_lock();
	c = __task_cred(p);
	priv = !uid_eq(c->uid, c->euid) || !gid_eq(c->gid, c->egid) ||
	       (!uid_eq(c->uid, GLOBAL_ROOT_UID) && !cap_isclear(c->cap_permitted));
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
	t->got = SBRIDGE_GOT_NONE;
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

/**
 * sbridge_task_seed_set() - what a task starts from: a measured speedup
 * @t: entry, not yet published (fork) or being seeded (exec, adoption)
 * @e: the speedup and its error (val 0: none)
 */
void sbridge_task_seed_set(struct sbridge_task *t, const struct sbridge_est *e)
{
	WRITE_ONCE(t->seed_sp, e->val ? min_t(u32, e->val, U16_MAX) : 0);
	WRITE_ONCE(t->seed_err, e->val ? clamp_t(u32, e->err, 1, U16_MAX) : 0);
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
	struct sbridge_task_est e;

	t->exe_hash = parent->exe_hash;
	t->flags = parent->flags & ~(SBRIDGE_TF_LEARNED | SBRIDGE_TF_SAMPLED_ALL);
	/* the phases: the same program; its measurements: the seed below */
	t->est.ph = parent->est.ph;
	t->est.ph.cand_count = 0;
	t->cpi = parent->cpi;
	t->cpi_stall = parent->cpi_stall;
	t->cpi_type = parent->cpi_type;
	memcpy(t->mix, parent->mix, sizeof(t->mix));
	/* what the parent measured counts once: as a seed */
	sbridge_task_estimate(parent, sbridge_topo.ref_type, 0, &e);
	sbridge_task_seed_set(t, &e.meas);
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
 * sbridge_task_gain() - what a non-stalled cycle gains on one type over another
 * @fast: the faster core type
 * @slow: the slower core type
 *
 * C x (nominal CPU factor of @slow over @fast's - 1) / ref_share.
 * Nominal: the types' capability at full clock, not the clock an idle
 * cluster happens to sit at.
 *
 * Context: any; lock-free.
 * Return: the gain minus 1 (fp), 0 if @fast is not faster.
 */
u32 sbridge_task_gain(unsigned int fast, unsigned int slow)
{
	u64 r = div_u64((u64)sbridge_type_factor_nominal(slow) << SBRIDGE_FP_SHIFT,
			max_t(u32, sbridge_type_factor_nominal(fast), 1));

	if (r <= SBRIDGE_FP_ONE)
		return 0;
	r = div_u64((r - SBRIDGE_FP_ONE) * READ_ONCE(sbridge_params.c_const),
		    max_t(u32, READ_ONCE(sbridge_params.ref_share), 1));
	return (u32)min_t(u64, r, SBRIDGE_FACTOR_MAX);
}

/**
 * sbridge_task_bound() - doubt a measured speedup the core types cannot explain
 * @e: a measured speedup of @fast over @slow (val 0: none)
 * @fast: the faster core type
 * @slow: the slower core type
 * @visits: stays on the less-visited of the two behind @e
 *
 * Plausible is [1, 1 + 2 x gain]: the faster type is not slower, and a
 * non-stalled cycle gains at most twice what the types' nominal factors
 * say (a bigger cache can make a program gain more than its compute
 * part). Outside, sbridge_est_bound() widens the error.
 *
 * Context: any; lock-free.
 */
void sbridge_task_bound(struct sbridge_est *e, unsigned int fast,
			unsigned int slow, u32 visits)
{
	u32 gain = sbridge_task_gain(fast, slow);

	sbridge_est_bound(e, SBRIDGE_FP_ONE,
			  gain ? (u32)SBRIDGE_EST_PLAUSIBLE_HI(gain) : 0, visits);
}

/*
 * CPI_B share of @t's current phase and where it was seen: on @fast if
 * it was, else on @slow (*@on_fast false); a rule's class fixes it.
 * Return: the share (fp), or SBRIDGE_SHARE_UNKNOWN.
 */
static u32 sbridge_task_phase_share(const struct sbridge_task *t,
				    unsigned int fast, unsigned int slow,
				    bool *on_fast)
{
	unsigned int cur = READ_ONCE(t->est.ph.cur);
	u32 s;

	*on_fast = true;
	switch (READ_ONCE(t->class)) {
	case SBRIDGE_CLASS_COMPUTE:
		return SBRIDGE_FP_ONE;
	case SBRIDGE_CLASS_MEMORY:
		return 0;
	}
	s = sbridge_phase_share(&t->est.ph, cur, fast);
	if (s != SBRIDGE_SHARE_UNKNOWN)
		return s;
	*on_fast = false;
	return sbridge_phase_share(&t->est.ph, cur, slow);
}

/**
 * sbridge_task_share() - CPI_B share the factors of @t use
 * @t: entry, under RCU
 *
 * The current phase's share as the fast (reference) type sees it: seen
 * there, or converted from the slowest type's through the CPU factor.
 *
 * Return: fixed-point share, or SBRIDGE_FP_ONE if nothing is known.
 */
u32 sbridge_task_share(const struct sbridge_task *t)
{
	unsigned int fast = sbridge_topo.ref_type;
	bool on_fast;
	u32 s = sbridge_task_phase_share(t, fast, 0, &on_fast);

	if (s == SBRIDGE_SHARE_UNKNOWN)
		return SBRIDGE_FP_ONE;
	return on_fast ? s : sbridge_share_on_fast(s, sbridge_task_gain(fast, 0));
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
	if (type >= SBRIDGE_MAX_CORE_TYPES)
		return SBRIDGE_FP_ONE;
	if (READ_ONCE(t->pref) == SBRIDGE_PREF_EXCLUDE)
		return SBRIDGE_FP_ONE;
	if (READ_ONCE(t->rule_factor[type]))
		return READ_ONCE(t->rule_factor[type]);
	if (READ_ONCE(t->class) == SBRIDGE_CLASS_AUTO && !READ_ONCE(t->est.ph.nphases))
		return SBRIDGE_FP_ONE;
	return sbridge_model_factor(READ_ONCE(sbridge_params.c_const),
				    sbridge_type_factor(type), sbridge_task_share(t),
				    READ_ONCE(sbridge_params.ref_share));
}

/**
 * sbridge_task_memrate() - how memory stalls scale from @fast to @slow
 * @fast: the faster core type
 * @slow: the slower core type
 * @on_fast: for a share seen on @fast (else on @slow)
 * @r: out
 *
 * What the matrix's workloads measured on both types taught
 * (sbridge_predictor_memrate(), the reference type over the slowest only,
 * with learn.measured on);
 * until then model.mem_ratio (a ratio the user declares) for
 * that pair, else the CPU factor's, widely doubted
 * (sbridge_memrate_default()).
 *
 * Context: any; lock-free.
 * Return: true if the ratio was learned or declared, false for the CPU
 *	factor's guess.
 */
bool sbridge_task_memrate(unsigned int fast, unsigned int slow, bool on_fast,
			  struct sbridge_memrate *r)
{
	bool main_pair = fast == sbridge_topo.ref_type && !slow;
	u32 ratio = main_pair ? READ_ONCE(sbridge_params.mem_ratio) : 0;

	/* learn.measured 0: nothing measured counts, the fit included */
	if (main_pair && READ_ONCE(sbridge_params.learn_measured)) {
		sbridge_predictor_memrate(on_fast, r);
		if (r->n)
			return true;
	}
	sbridge_memrate_default(on_fast, sbridge_task_gain(fast, slow), ratio, r);
	return ratio;
}

/*
 * The instruction-mix prediction of @t's speedup of @fast over @slow into
 * @e, with the coefficients' error and the memory ratio's: only with
 * class counts from the source, coefficients for the pair and the task's
 * classes known.
 * Return: true if it made one (*@kind SBRIDGE_PRED_MIX).
 */
static bool sbridge_task_predict_mix(const struct sbridge_task *t,
				     unsigned int fast, unsigned int slow,
				     struct sbridge_est *e, u8 *kind)
{
	struct sbridge_memrate r;
	struct sbridge_mixcoef c;
	u16 mix[SBRIDGE_MIX_NR];
	u32 scale = 0, mem = 0;
	unsigned int k;
	bool on_fast;
	u64 rel = 0;

	if (!(sbridge_source_events() & SBRIDGE_EV_MIX) ||
	    sbridge_predictor_get(fast, slow, &c))
		return false;
	for (k = 0; k < SBRIDGE_MIX_NR; k++)
		mix[k] = READ_ONCE(t->mix[k]);
	if (!sbridge_mix_known(mix))
		return false;
	on_fast = READ_ONCE(t->cpi_type) == fast;
	/*
	 * The stalls scale by the memory ratio where one was learned or
	 * declared; else their time is taken as equal (latency is in
	 * ns), not as the CPU factor's guess eq. 3 falls back on: the
	 * coefficients already tell the types' compute apart.
	 */
	if (sbridge_task_memrate(fast, slow, on_fast, &r) && r.coef) {
		scale = r.coef;
		rel = div_u64(((u64)r.err << SBRIDGE_FP_SHIFT) + r.coef / 2, r.coef);
	}
	e->val = sbridge_mix_predict(&c, mix, READ_ONCE(t->cpi_stall), on_fast,
				     scale, &mem);
	/* the coefficients' error and the ratio's, in quadrature */
	rel = (rel * mem) >> SBRIDGE_FP_SHIFT;
	rel = sbridge_isqrt((u64)c.err * c.err + rel * rel);
	e->err = max_t(u32, (e->val * rel) >> SBRIDGE_FP_SHIFT, 1);
	*kind = SBRIDGE_PRED_MIX;
	return true;
}

/*
 * The prediction of @t's speedup of @fast over @slow into @e, and in
 * *@kind which predictor made it. Rules win: a rule's factors (1 +
 * LF(slow) - LF(fast)) or class; then a CPU factor the user set on either
 * type. Return: the enum sbridge_est_src of it.
 */
static u8 sbridge_task_predict(const struct sbridge_task *t, unsigned int fast,
			       unsigned int slow, struct sbridge_est *e, u8 *kind)
{
	u32 rs = READ_ONCE(t->rule_factor[slow]), rf = READ_ONCE(t->rule_factor[fast]);
	u32 err = READ_ONCE(sbridge_params.pred_err), s;
	bool on_fast;
	s64 d;

	e->n = 0;
	if (rs || rf) {
		d = (s64)SBRIDGE_FP_ONE + sbridge_task_factor_on(t, slow) -
		    sbridge_task_factor_on(t, fast);
		e->val = d > SBRIDGE_FACTOR_MIN ? (u32)d : SBRIDGE_FACTOR_MIN;
		e->err = max_t(u32, (e->val * err) >> SBRIDGE_FP_SHIFT, 1);
		return SBRIDGE_SRC_RULE;
	}
	/* a CPU factor the user set is eq. 3's input: it wins over the mix */
	if (READ_ONCE(t->class) == SBRIDGE_CLASS_AUTO &&
	    !sbridge_type_factor_user(fast) && !sbridge_type_factor_user(slow) &&
	    sbridge_task_predict_mix(t, fast, slow, e, kind))
		return SBRIDGE_SRC_PRED;
	s = sbridge_task_phase_share(t, fast, slow, &on_fast);
	if (s == SBRIDGE_SHARE_UNKNOWN) {
		if (sbridge_learning_possible()) {
			/* nothing counted yet: the user's factors give its range */
			sbridge_est_unknown(sbridge_task_gain(fast, slow), err, e);
			return SBRIDGE_SRC_PRED;
		}
		/* nothing ever will be: neutral, as without a counter source */
		e->val = SBRIDGE_FP_ONE;
		e->err = max_t(u32, (e->val * err) >> SBRIDGE_FP_SHIFT, 1);
	} else if (READ_ONCE(t->class) != SBRIDGE_CLASS_AUTO ||
		   sbridge_type_factor_user(fast) || sbridge_type_factor_user(slow)) {
		/* a rule's class or the user's factors say it all: eq. 3 */
		e->val = sbridge_est_predict(s, on_fast, sbridge_task_gain(fast, slow));
		e->err = max_t(u32, (e->val * err) >> SBRIDGE_FP_SHIFT, 1);
	} else {
		struct sbridge_memrate r;

		sbridge_task_memrate(fast, slow, on_fast, &r);
		sbridge_est_predict_mem(s, on_fast, sbridge_task_gain(fast, slow),
					&r, err, e);
	}
	if (READ_ONCE(t->class) != SBRIDGE_CLASS_AUTO)
		return SBRIDGE_SRC_RULE;
	if (sbridge_type_factor_user(fast) || sbridge_type_factor_user(slow))
		return SBRIDGE_SRC_OVERRIDE;
	return SBRIDGE_SRC_PRED;
}

/**
 * sbridge_task_estimate() - a task's speedup of one core type over another
 * @t: entry, under RCU
 * @fast: the faster core type
 * @slow: the slower core type
 * @e: out: the prediction, the task's own measurement, the seed from its
 *	workload (matrix) or parent, their combination, and the estimate in
 *	force with where it came from
 *
 * Precedence: a rule's class or factors, then a CPU factor the user set
 * (the prediction with it), then the measurement and the prediction
 * combined by inverse variance, so the measurement takes over as its
 * error falls below the prediction's (learn.pred_err). learn.measured 0
 * keeps the prediction. Seeds exist for the reference type over the
 * slowest only, the pair the matrix keeps.
 *
 * Context: any, under RCU; lock-free, O(phases).
 */
void sbridge_task_estimate(const struct sbridge_task *t, unsigned int fast,
			   unsigned int slow, struct sbridge_task_est *e)
{
	struct sbridge_est_how how;
	u64 wp, wm;
	u8 src;

	memset(e, 0, sizeof(*e));
	if (sbridge_topo.ntypes < 2 || fast == slow ||
	    fast >= SBRIDGE_MAX_CORE_TYPES || slow >= SBRIDGE_MAX_CORE_TYPES) {
		e->est.val = SBRIDGE_FP_ONE;
		e->src = SBRIDGE_SRC_NONE;
		return;
	}
	src = sbridge_task_predict(t, fast, slow, &e->pred, &e->pred_kind);
	how.shift = READ_ONCE(sbridge_params.tpi_shift);
	how.share_tol = READ_ONCE(sbridge_params.share_tol);
	how.gain = sbridge_task_gain(fast, slow);
	sbridge_est_own(&t->est, fast, slow, &how, &e->own);
	sbridge_task_bound(&e->own, fast, slow,
			   min(READ_ONCE(t->est.visits[fast]),
			       READ_ONCE(t->est.visits[slow])));
	if (fast == sbridge_topo.ref_type && !slow) {
		e->seed.val = READ_ONCE(t->seed_sp);
		e->seed.err = e->seed.val ? READ_ONCE(t->seed_err) : 0;
	}
	sbridge_est_combine(&e->own, &e->seed, &e->meas);
	if (src != SBRIDGE_SRC_PRED || !READ_ONCE(sbridge_params.learn_measured) ||
	    !e->meas.val) {
		e->est = e->pred;
		e->src = src;
		return;
	}
	sbridge_est_combine(&e->pred, &e->meas, &e->est);
	/* which counts most: the weights are 1 / err^2 */
	wp = div64_u64(1ULL << 40, max_t(u64, (u64)e->pred.err * e->pred.err, 1));
	wm = div64_u64(1ULL << 40, max_t(u64, (u64)e->meas.err * e->meas.err, 1));
	if (wm >= 4 * wp)
		e->src = e->own.val && (!e->seed.val || e->own.err <= e->seed.err) ?
			 SBRIDGE_SRC_MEAS : SBRIDGE_SRC_MATRIX;
	else if (wp >= 4 * wm)
		e->src = SBRIDGE_SRC_PRED;
	else
		e->src = SBRIDGE_SRC_BLEND;
}

/**
 * sbridge_task_speedup() - big/little speedup of a task, predicted and measured
 * @t: entry, under RCU
 * @pred: out, the prediction (SBRIDGE_FP_ONE with one core type); may be
 *	NULL
 * @meas: out, the measured speedup (own and seed combined), 0 if none; may
 *	be NULL
 *
 * sbridge_task_estimate() of the reference (big) type over type 0.
 *
 * Context: any, under RCU; lock-free.
 * Return: the estimate in force (fp).
 */
u32 sbridge_task_speedup(const struct sbridge_task *t, u32 *pred, u32 *meas)
{
	struct sbridge_task_est e;

	sbridge_task_estimate(t, sbridge_topo.ref_type, 0, &e);
	if (pred)
		*pred = e.pred.val ?: SBRIDGE_FP_ONE;
	if (meas)
		*meas = e.meas.val;
	return e.est.val;
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
