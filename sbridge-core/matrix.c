// SPDX-License-Identifier: GPL-2.0
/*
 * The scale-factor matrix: what was learned per workload (comm) x core type
 * x phase, so that a program seen before starts from its learned factor
 * instead of 1. Bounded; the least recently used entry is evicted.
 *
 * Cells are scoped by the real uid that started the program (a set-id
 * program learns for the user who ran it): a task learns into its own
 * scope and is seeded from it, else from the cells an administrator
 * loaded into scope 0, so no user can train what seeds root's or another
 * user's program of the same name, nor read in his own task's seed what
 * root's programs did (what root's tasks learned seeds root's only; a
 * saved matrix loaded again is published). Unprivileged scopes hold at
 * most half the matrix and evict only each other's cells, never root's;
 * one workload (comm, scope) holds at most SBRIDGE_MX_PER_KEY cells, so
 * no hash chain walked with IRQs off grows with the matrix.
 *
 * One spinlock (IRQ-safe: the free hook runs in softirq context) protects
 * the hash, the LRU list and every entry, and serialises all folds of
 * tasks into the matrix. It is never taken in the context-switch path,
 * only at fork, exec, free, from control and from the once-a-second
 * refresh that keeps the cells of long-running tasks fresh.
 *
 * A cell's share is the mean over the model windows folded into it, each
 * window counted once: a task remembers (win_folded, ph_folded) how many
 * of its windows were already folded, so a periodic fold and the fold at
 * exit or exec never count a window twice.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "internal.h"

#define SBRIDGE_MX_HASH_BITS	11
/* Cells of one (comm, scope), all executables, types and phases. */
#define SBRIDGE_MX_PER_KEY	(4 * SBRIDGE_MAX_CORE_TYPES * (SBRIDGE_MAX_PHASES + 1))
/* A cell's share averages over at most this many past windows ... */
#define SBRIDGE_MX_HIST		32
/* ... and one fold counts as at most this many: it moves a cell <= 20 %. */
#define SBRIDGE_MX_FOLD_MAX	8
/* A cell's time per instruction: history weight, in warm windows. */
#define SBRIDGE_MX_TPI_HIST	64
/* Folds per refresh period: bounds the housekeeping work. */
#define SBRIDGE_MX_REFRESH_MAX	64
/* Cells the memory-ratio fit looks at per refresh (IRQs off meanwhile). */
#define SBRIDGE_MX_MEMFIT_WALK	1024

/**
 * struct sbridge_mx - one matrix cell
 * @hnode: hash linkage (hash of @key and @scope)
 * @lru: LRU linkage (scope 0 or user list), most recent first
 * @key: workload key (comm)
 * @exe: jhash of the executable path, 0 if unknown (adopted tasks, cells
 *	loaded without one)
 * @scope: real uid of the tasks it learned from, 0 for root's and for
 *	loaded cells without a uid
 * @used: jiffies of the last fold or seed (least recently used of a key)
 * @id: when it was linked (sbridge_mx_seq): a bucket's chain runs from
 *	the newest down, which a dump resumes by
 * @type: core type
 * @phase: phase index, SBRIDGE_PHASE_STARTUP for the start-up
 * @learned: a task's windows were folded in since it was loaded (or it
 *	was made by a fold): scope 0's seeds root's tasks only
 * @share: learned CPI_B share (fp), the mean over the windows folded in;
 *	reported and used quantised
 * @visits: stays on @type folded in (a task's visits, saturating)
 * @factor: LF on @type when it was learned or loaded (fp)
 * @samples: model windows folded in (saturating)
 * @tpi: time per instruction on @type in this phase: its mean log, the
 *	warm windows folded in (@tpi.n, 0: nothing measured) and the spread
 *	between folds, how well the runs and visits of the workload agree
 *
 * All fields under sbridge_mx_lock.
 */
struct sbridge_mx {
	struct hlist_node hnode;
	struct list_head lru;
	char key[SBRIDGE_KEY_LEN];
	u32 exe;
	u32 scope;
	unsigned long used;
	u64 id;
	u8 type;
	u8 phase;
	bool learned;
	u16 share;
	u16 visits;
	u32 factor;
	u32 samples;
	struct sbridge_acc tpi;
};

static DEFINE_SPINLOCK(sbridge_mx_lock);
static DEFINE_HASHTABLE(sbridge_mx_hash, SBRIDGE_MX_HASH_BITS);
static LIST_HEAD(sbridge_mx_lru);	/* scope 0 */
static LIST_HEAD(sbridge_mx_lru_user);	/* every other scope */
static u32 sbridge_mx_count;
static u32 sbridge_mx_user_count;
static u64 sbridge_mx_seq;
static struct kmem_cache *sbridge_mx_cache;
/* The pid the next refresh resumes at; only the housekeeping work. */
static int sbridge_mx_cursor;
/*
 * Secret per load: with a known seed a user could aim every cell of their
 * quota at one bucket, walked with IRQs off on each exec, exit and rename.
 */
static u32 sbridge_mx_seed __read_mostly;

static u32 sbridge_mx_hashkey(const char *key, u32 scope)
{
	return jhash(key, strnlen(key, SBRIDGE_KEY_LEN), sbridge_mx_seed ^ scope);
}

static bool sbridge_mx_is(const struct sbridge_mx *m, const char *key, u32 scope)
{
	return m->scope == scope && !strncmp(m->key, key, SBRIDGE_KEY_LEN);
}

static struct sbridge_mx *sbridge_mx_find(const char *key, u32 exe, u32 scope,
					  u8 type, u8 phase)
{
	struct sbridge_mx *m;

	hash_for_each_possible(sbridge_mx_hash, m, hnode,
			       sbridge_mx_hashkey(key, scope))
		if (m->type == type && m->phase == phase && m->exe == exe &&
		    sbridge_mx_is(m, key, scope))
			return m;
	return NULL;
}

static struct list_head *sbridge_mx_lru_of(const struct sbridge_mx *m)
{
	return m->scope ? &sbridge_mx_lru_user : &sbridge_mx_lru;
}

static void sbridge_mx_touch(struct sbridge_mx *m)
{
	list_move(&m->lru, sbridge_mx_lru_of(m));
	m->used = jiffies;
}

static void sbridge_mx_unlink(struct sbridge_mx *m)
{
	hash_del(&m->hnode);
	list_del(&m->lru);
	sbridge_mx_count--;
	if (m->scope)
		sbridge_mx_user_count--;
}

static void sbridge_mx_link(struct sbridge_mx *m)
{
	m->id = ++sbridge_mx_seq;
	m->used = jiffies;
	hash_add(sbridge_mx_hash, &m->hnode, sbridge_mx_hashkey(m->key, m->scope));
	list_add(&m->lru, sbridge_mx_lru_of(m));
	sbridge_mx_count++;
	if (m->scope)
		sbridge_mx_user_count++;
}

/* Moves every cell to @old and empties the matrix. Under sbridge_mx_lock. */
static void sbridge_mx_detach_all(struct list_head *old)
{
	struct sbridge_mx *m;
	struct hlist_node *tmp;
	unsigned int bkt;

	hash_for_each_safe(sbridge_mx_hash, bkt, tmp, m, hnode)
		hash_del(&m->hnode);
	list_splice_init(&sbridge_mx_lru, old);
	list_splice_init(&sbridge_mx_lru_user, old);
	sbridge_mx_count = 0;
	sbridge_mx_user_count = 0;
}

static void sbridge_mx_evict(struct sbridge_mx *m)
{
	sbridge_mx_unlink(m);
	kmem_cache_free(sbridge_mx_cache, m);
}

/*
 * Makes room for one new cell of (@key, @scope) in a matrix of at most
 * @max cells. A workload at SBRIDGE_MX_PER_KEY cells gives up its least
 * recently used one; else a full matrix gives up its least recently used
 * user cell, or root's when there is none and the new cell is root's. A
 * user scope beyond half the matrix evicts user cells only. Under
 * sbridge_mx_lock. Return: false if there is no room for the cell.
 */
static bool sbridge_mx_room(const char *key, u32 scope, u32 max)
{
	struct sbridge_mx *m, *old = NULL;
	unsigned int n = 0;

	hash_for_each_possible(sbridge_mx_hash, m, hnode,
			       sbridge_mx_hashkey(key, scope)) {
		if (!sbridge_mx_is(m, key, scope))
			continue;
		n++;
		if (!old || time_before(m->used, old->used))
			old = m;
	}
	if (n >= SBRIDGE_MX_PER_KEY) {
		sbridge_mx_evict(old);
		return true;
	}
	if (scope && sbridge_mx_user_count >= max / 2) {
		if (list_empty(&sbridge_mx_lru_user))
			return false;
		sbridge_mx_evict(list_last_entry(&sbridge_mx_lru_user,
						 struct sbridge_mx, lru));
		return true;
	}
	if (sbridge_mx_count < max)
		return true;
	if (!list_empty(&sbridge_mx_lru_user))
		old = list_last_entry(&sbridge_mx_lru_user, struct sbridge_mx, lru);
	else if (!scope && !list_empty(&sbridge_mx_lru))
		old = list_last_entry(&sbridge_mx_lru, struct sbridge_mx, lru);
	else
		return false;
	sbridge_mx_evict(old);
	return true;
}

/*
 * The measured speedup of a workload's phase from its two cells (the
 * reference type's @f and the slowest type's @s): runs and visits are
 * the samples, the spread between folds their dispersion.
 */
static void sbridge_mx_estimate(const struct sbridge_mx *f,
				const struct sbridge_mx *s, struct sbridge_est *e)
{
	struct sbridge_acc af, as;

	memset(e, 0, sizeof(*e));
	if (!f || !s || f->tpi.n < SBRIDGE_EST_MIN_WIN ||
	    s->tpi.n < SBRIDGE_EST_MIN_WIN ||
	    !sbridge_shares_agree(f->share, s->share,
				  sbridge_task_gain(f->type, s->type),
				  READ_ONCE(sbridge_params.share_tol)))
		return;
	af = f->tpi;
	as = s->tpi;
	af.n = max_t(u32, f->visits, 1);
	as.n = max_t(u32, s->visits, 1);
	sbridge_est_measure(&af, &as, 1, 0, min(f->visits, s->visits), e);
	sbridge_task_bound(e, f->type, s->type, min(f->visits, s->visits));
}

/**
 * sbridge_matrix_seed() - start a task from what its workload learned
 * @t: entry being set up (fork of an untracked parent, exec, adoption,
 *	a rename before its first window)
 *
 * Copies the learned share of each phase on each core type into its
 * phase tracker (the current phase is the one with most samples), and
 * each phase's measured speedup, with its error, into its seeds. The
 * workload is (comm, executable) in @t's scope: cells of the same
 * executable win; if there are none, cells of the same comm with any
 * executable are used. A scope with no cells of the comm falls back to
 * scope 0's loaded cells (root's own tasks use its learned ones too);
 * scope 0 never looks at a user's.
 *
 * Context: any but hard IRQ; takes sbridge_mx_lock.
 * Return: true if @t was seeded.
 */
bool sbridge_matrix_seed(struct sbridge_task *t)
{
	const struct sbridge_mx *cell[SBRIDGE_MAX_PHASES][SBRIDGE_MAX_CORE_TYPES] = {};
	u32 psamp[SBRIDGE_MAX_PHASES] = { 0 };
	unsigned int p, ty, best = 0, np = 0, fast = sbridge_topo.ref_type;
	struct sbridge_est e[SBRIDGE_MAX_PHASES], seed;
	struct sbridge_mx *m;
	unsigned long flags;
	bool found = false, any_exe = false;
	u32 scope = t->uid;

	spin_lock_irqsave(&sbridge_mx_lock, flags);
again:
	hash_for_each_possible(sbridge_mx_hash, m, hnode,
			       sbridge_mx_hashkey(t->comm, scope)) {
		if (!sbridge_mx_is(m, t->comm, scope) ||
		    (m->learned && scope != t->uid) ||
		    m->phase >= SBRIDGE_MAX_PHASES ||
		    m->type >= SBRIDGE_MAX_CORE_TYPES ||
		    (!any_exe && m->exe != t->exe_hash))
			continue;
		/* with any executable, the cell with most samples speaks */
		if (!cell[m->phase][m->type] ||
		    cell[m->phase][m->type]->samples < m->samples)
			cell[m->phase][m->type] = m;
		sbridge_mx_touch(m);
		found = true;
	}
	if (!found && !any_exe) {
		any_exe = true;
		goto again;
	}
	if (!found && scope) {
		scope = 0;
		any_exe = false;
		goto again;
	}
	if (!found) {
		spin_unlock_irqrestore(&sbridge_mx_lock, flags);
		return false;
	}
	/* Phases keep their matrix index so that learning maps back. */
	memset(&t->est.ph, 0, sizeof(t->est.ph));
	for (p = 0; p < SBRIDGE_MAX_PHASES; p++) {
		for (ty = 0; ty < SBRIDGE_MAX_CORE_TYPES; ty++) {
			const struct sbridge_mx *c = cell[p][ty];

			if (!c)
				continue;
			t->est.ph.cen[p][ty] = sbridge_phase_bucket(c->share);
			psamp[p] = min_t(u32, U32_MAX - c->samples, psamp[p]) + c->samples;
			np = p + 1;
		}
		if (psamp[p] > psamp[best])
			best = p;
		sbridge_mx_estimate(cell[p][fast], fast ? cell[p][0] : NULL, &e[p]);
	}
	spin_unlock_irqrestore(&sbridge_mx_lock, flags);

	/* Holes get the best phase's centroids; they are real slots now. */
	for (p = 0; p < np; p++)
		if (!psamp[p])
			memcpy(t->est.ph.cen[p], t->est.ph.cen[best],
			       sizeof(t->est.ph.cen[p]));
	t->est.ph.nphases = np;
	t->est.ph.cur = best;
	/* the measured speedup of the phase it starts in, else the surest */
	seed = e[best];
	for (p = 0; p < SBRIDGE_MAX_PHASES && !seed.val; p++)
		if (e[p].val && (!seed.val || e[p].err < seed.err))
			seed = e[p];
	sbridge_task_seed_set(t, &seed);
	atomic64_inc(&sbridge_stats.matrix_hits);
	return true;
}

/**
 * struct sbridge_mx_fold_in - what one fold brings to one cell
 * @share: CPI_B share of the windows (fp), SBRIDGE_SHARE_UNKNOWN for none
 * @k: new windows behind @share and @tpi (0: nothing to fold)
 * @tpi: the task's accumulator for this type and phase (n 0: none)
 * @visits: new stays on the type behind @tpi
 *
 * A value on the folder's stack.
 */
struct sbridge_mx_fold_in {
	u32 share;
	u32 k;
	struct sbridge_acc tpi;
	u32 visits;
};

/*
 * Folds @in into cell (@key, @exe, @scope, @type, @phase). Creates the
 * cell only for new windows and if there is room. Under sbridge_mx_lock.
 */
static void sbridge_mx_fold(const char *key, u32 exe, u32 scope, u8 type,
			    u8 phase, const struct sbridge_mx_fold_in *in, u32 max)
{
	struct sbridge_mx *m = sbridge_mx_find(key, exe, scope, type, phase);
	u32 k = in->share <= SBRIDGE_FP_ONE ? in->k : 0;
	bool tpi = in->tpi.n && in->k;

	if (m) {
		sbridge_mx_touch(m);
	} else {
		/* a new cell needs something to hold: a share or a time */
		if (!in->k || !max || (!k && !in->tpi.n))
			return;
		m = kmem_cache_zalloc(sbridge_mx_cache, GFP_ATOMIC | __GFP_NOWARN);
		if (!m)
			return;
		if (!sbridge_mx_room(key, scope, max)) {
			kmem_cache_free(sbridge_mx_cache, m);
			return;
		}
		memcpy(m->key, key, SBRIDGE_KEY_LEN);
		m->exe = exe;
		m->scope = scope;
		m->type = type;
		m->phase = phase;
		m->share = in->share <= SBRIDGE_FP_ONE ? in->share : SBRIDGE_FP_ONE;
		/* a valid factor from the start: a time-only cell is saved too */
		m->factor = sbridge_model_factor(READ_ONCE(sbridge_params.c_const),
						 sbridge_type_factor(type),
						 sbridge_model_quantise(m->share),
						 READ_ONCE(sbridge_params.ref_share));
		sbridge_mx_link(m);
	}
	if (k || tpi)
		m->learned = true;
	if (k) {
		m->share = sbridge_model_wavg(m->share,
					      min_t(u32, m->samples, SBRIDGE_MX_HIST),
					      in->share, min_t(u32, k, SBRIDGE_MX_FOLD_MAX));
		m->factor = sbridge_model_factor(READ_ONCE(sbridge_params.c_const),
						 sbridge_type_factor(type),
						 sbridge_model_quantise(m->share),
						 READ_ONCE(sbridge_params.ref_share));
		m->samples = m->samples > U32_MAX - k ? U32_MAX : m->samples + k;
	}
	if (tpi) {
		sbridge_acc_fold(&m->tpi, &in->tpi,
				 min_t(u32, in->k, SBRIDGE_MX_FOLD_MAX),
				 SBRIDGE_MX_TPI_HIST);
		m->visits = min_t(u32, (u32)m->visits + in->visits, U16_MAX);
	}
}

/**
 * sbridge_matrix_lock() - take the matrix lock (IRQ-safe)
 *
 * For a caller that must change a task's identity atomically with its
 * fold (exec). Context: any but hard IRQ.
 * Return: the IRQ flags for sbridge_matrix_unlock().
 */
unsigned long sbridge_matrix_lock(void)
	__acquires(&sbridge_mx_lock)
{
	unsigned long flags;

	spin_lock_irqsave(&sbridge_mx_lock, flags);
	return flags;
}

/**
 * sbridge_matrix_unlock() - drop the matrix lock
 * @flags: what sbridge_matrix_lock() returned
 */
void sbridge_matrix_unlock(unsigned long flags)
	__releases(&sbridge_mx_lock)
{
	spin_unlock_irqrestore(&sbridge_mx_lock, flags);
}

/* New windows of a wrapping u8 counter since @folded, which catches up. */
static u32 sbridge_mx_new(const u8 *n, u8 *folded)
{
	u8 v = READ_ONCE(*n), k = v - *folded;

	*folded = v;
	return k;
}

/**
 * sbridge_matrix_learn_locked() - fold a task's new windows into the matrix
 * @t: entry
 *
 * Only the windows sampled since the last fold count. For each core type
 * with new warm windows, the cells (workload, type, phase) of the phases
 * the task was in since the last fold learn the phase's share on that type
 * and the task's time per instruction there: the current phase by the
 * number of new windows (SBRIDGE_MX_FOLD_MAX at most) against the cell's
 * history, the others by one window. The speedup is never folded as a
 * ratio: it comes from the cells of two types when a task is seeded, so a
 * run that saw one type only still teaches that type, and a ratio biased
 * by how a run happened to be placed does not compound. New cells may
 * evict the least recently used one.
 *
 * Context: sbridge_mx_lock held (sbridge_matrix_lock()); allocates
 *	atomically.
 */
void sbridge_matrix_learn_locked(struct sbridge_task *t)
	__must_hold(&sbridge_mx_lock)
{
	u32 max = READ_ONCE(sbridge_params.matrix_max);
	unsigned int type, p, np = t->est.ph.nphases ? t->est.ph.nphases : 1;
	u8 cur = t->est.ph.nphases ? t->est.ph.cur % SBRIDGE_MAX_PHASES : 0;
	struct sbridge_acc acc[SBRIDGE_MAX_PHASES];
	struct sbridge_mx_fold_in in;
	u32 kw, kv;
	u8 phases = BIT(cur);

	/* the exec's own windows: new name, old scope; the exec resets them */
	if (t->flags & SBRIDGE_TF_EXEC)
		return;
	for (p = 0; p < SBRIDGE_MAX_PHASES; p++)
		if (sbridge_mx_new(&t->est.ph_n[p], &t->ph_folded[p]))
			phases |= BIT(p);
	for (type = 0; type < sbridge_topo.ntypes && type < SBRIDGE_MAX_CORE_TYPES;
	     type++) {
		kw = sbridge_mx_new(&t->est.warm_n[type], &t->warm_folded[type]);
		kv = sbridge_mx_new(&t->est.visits[type], &t->visits_folded[type]);
		if (!kw)
			continue;
		sbridge_est_accs(&t->est, type, READ_ONCE(sbridge_params.tpi_shift), acc);
		for (p = 0; p < np && p < SBRIDGE_MAX_PHASES; p++) {
			if (!(phases & BIT(p)))
				continue;
			in.share = sbridge_phase_share(&t->est.ph, p, type);
			in.k = p == cur ? kw : 1;
			in.tpi = acc[p];
			in.visits = p == cur ? kv : 0;
			sbridge_mx_fold(t->comm, t->exe_hash, t->uid, type, p,
					&in, max);
		}
	}
}

/**
 * sbridge_matrix_learn() - fold a task's new windows into the matrix
 * @t: entry with at least one sample (SBRIDGE_TF_LEARNED)
 *
 * sbridge_matrix_learn_locked() under the matrix lock.
 *
 * Context: any but hard IRQ; takes sbridge_mx_lock; allocates atomically.
 */
void sbridge_matrix_learn(struct sbridge_task *t)
{
	unsigned long flags = sbridge_matrix_lock();

	sbridge_matrix_learn_locked(t);
	sbridge_matrix_unlock(flags);
}

/*
 * Refit the board's memory ratio from the workloads of scope 0 (root's
 * programs and loaded cells: an unprivileged user's runs teach no more
 * what root's programs are predicted than what they are seeded with)
 * whose phase was measured on the reference and the slowest type, the
 * most recently used first, SBRIDGE_MX_MEMFIT_WALK cells at most.
 */
static void sbridge_mx_memfit(void)
{
	unsigned int fast = sbridge_topo.ref_type, walked = 0;
	u32 gain = sbridge_task_gain(fast, 0);
	struct sbridge_memfit ff = {}, fs = {};
	struct sbridge_memrate r;
	const struct sbridge_mx *m, *o;
	unsigned long flags;
	struct sbridge_est e;

	if (!fast || !gain)
		return;
	spin_lock_irqsave(&sbridge_mx_lock, flags);
	list_for_each_entry(m, &sbridge_mx_lru, lru) {
		if (++walked > SBRIDGE_MX_MEMFIT_WALK || ff.m >= SBRIDGE_MEMFIT_MAX)
			break;
		if (m->type != fast || m->phase >= SBRIDGE_MAX_PHASES ||
		    m->tpi.n < SBRIDGE_EST_MIN_WIN)
			continue;
		o = sbridge_mx_find(m->key, m->exe, m->scope, 0, m->phase);
		sbridge_mx_estimate(m, o, &e);
		if (!e.val)
			continue;
		sbridge_memfit_add(&ff, m->share, true, &e);
		sbridge_memfit_add(&fs, o->share, false, &e);
	}
	spin_unlock_irqrestore(&sbridge_mx_lock, flags);
	sbridge_memfit_result(&fs, false, gain, &r);
	sbridge_predictor_set_memrate(false, &r);
	sbridge_memfit_result(&ff, true, gain, &r);
	sbridge_predictor_set_memrate(true, &r);
}

/* Folds @t if it has new windows; stops the walk when the budget is spent. */
static int sbridge_mx_refresh_one(struct sbridge_task *t, void *arg)
{
	unsigned int *budget = arg, type;
	unsigned long flags;
	bool fresh = false;

	if (!(READ_ONCE(t->flags) & SBRIDGE_TF_LEARNED))
		return 0;
	for (type = 0; type < SBRIDGE_MAX_CORE_TYPES; type++)
		if (READ_ONCE(t->est.warm_n[type]) != READ_ONCE(t->warm_folded[type]))
			fresh = true;
	if (!fresh)
		return 0;
	if (!*budget)
		return 1;
	(*budget)--;
	spin_lock_irqsave(&sbridge_mx_lock, flags);
	/* Exec may have reset it meanwhile: then there is nothing new. */
	if (t->flags & SBRIDGE_TF_LEARNED)
		sbridge_matrix_learn_locked(t);
	spin_unlock_irqrestore(&sbridge_mx_lock, flags);
	return 0;
}

/**
 * sbridge_matrix_refresh() - keep the cells of running tasks fresh
 *
 * Called once a second by the housekeeping work. Folds the windows that
 * tracked tasks sampled since their last fold, at most
 * SBRIDGE_MX_REFRESH_MAX tasks per call (each fold takes the matrix lock
 * briefly, never the switch path); when the budget runs out the next call
 * resumes the walk where this one stopped, so every task gets its turn.
 * Then refits the board's memory ratio (sbridge_predictor_memrate()).
 *
 * Context: process context (the housekeeping work only).
 */
void sbridge_matrix_refresh(void)
{
	unsigned int budget = SBRIDGE_MX_REFRESH_MAX;

	if (!sbridge_tasks_walk(sbridge_mx_refresh_one, &budget,
				&sbridge_mx_cursor))
		sbridge_mx_cursor = 0;
	sbridge_mx_memfit();
}

/**
 * sbridge_matrix_count() - cells in the matrix
 *
 * Return: number of cells.
 */
u32 sbridge_matrix_count(void)
{
	return READ_ONCE(sbridge_mx_count);
}

/*
 * The measured speedup of @m's workload and phase (reference type over
 * the slowest), from @m and its sibling cell. Under sbridge_mx_lock.
 */
static u32 sbridge_mx_speedup(const struct sbridge_mx *m)
{
	unsigned int fast = sbridge_topo.ref_type;
	const struct sbridge_mx *f, *s;
	struct sbridge_est e;

	if (!fast || m->phase > SBRIDGE_PHASE_STARTUP ||
	    (m->type != fast && m->type != 0))
		return 0;
	f = m->type == fast ? m : sbridge_mx_find(m->key, m->exe, m->scope,
						  fast, m->phase);
	s = m->type == 0 ? m : sbridge_mx_find(m->key, m->exe, m->scope, 0,
					       m->phase);
	sbridge_mx_estimate(f, s, &e);
	return e.val;
}

/* @m as the interfaces see it. Under sbridge_mx_lock. */
static void sbridge_mx_view(const struct sbridge_mx *m, struct sbridge_mx_cell *c)
{
	memcpy(c->key, m->key, SBRIDGE_KEY_LEN);
	c->type = m->type;
	c->phase = m->phase;
	c->factor = m->factor;
	c->share = sbridge_model_quantise(m->share);
	c->speedup = sbridge_mx_speedup(m);
	c->samples = m->samples;
	c->exe = m->exe;
	c->scope = m->scope;
	c->warm = m->tpi.n;
	c->tpi = m->tpi.n ? sbridge_lg_exp(m->tpi.lg) : 0;
	c->spread = m->tpi.dev;
	c->visits = m->visits;
}

/**
 * sbridge_matrix_walk() - the cells, for a dump in several batches
 * @cur: where to resume ({0, 0} at first); updated to where to resume next
 * @all: every scope; else only the cells of scope @uid
 * @uid: the requester's real uid
 * @fn: called for each cell under sbridge_mx_lock with IRQs off (must not
 *	sleep); a nonzero return stops the walk before that cell
 * @arg: passed to @fn
 *
 * Walks the hash bucket by bucket, so that each batch costs what it shows
 * plus one bucket, with IRQs off only for one bucket at a time. Every
 * cell present throughout a dump is shown exactly once (a chain is
 * ordered by id); one created during it may be left out. The walk is
 * done when @cur->bkt reaches the hash's size.
 *
 * Context: process context; takes sbridge_mx_lock.
 */
void sbridge_matrix_walk(struct sbridge_mx_cursor *cur, bool all, u32 uid,
			 int (*fn)(const struct sbridge_mx_cell *c, void *arg),
			 void *arg)
{
	struct sbridge_mx_cell c;
	struct sbridge_mx *m;
	bool full = false;

	for (; cur->bkt < HASH_SIZE(sbridge_mx_hash); cur->bkt++, cur->last = 0) {
		spin_lock_irq(&sbridge_mx_lock);
		hlist_for_each_entry(m, &sbridge_mx_hash[cur->bkt], hnode) {
			if ((cur->last && m->id >= cur->last) ||
			    (!all && m->scope != uid))
				continue;
			sbridge_mx_view(m, &c);
			if (fn(&c, arg)) {
				full = true;
				break;
			}
			cur->last = m->id;
		}
		spin_unlock_irq(&sbridge_mx_lock);
		if (full)
			break;
	}
}

static void sbridge_mx_free_list(struct list_head *head)
{
	struct sbridge_mx *m, *n;

	list_for_each_entry_safe(m, n, head, lru) {
		list_del(&m->lru);
		kmem_cache_free(sbridge_mx_cache, m);
	}
}

/* Time per instruction a loaded cell may hold (1/16 ps): what a log can say. */
#define SBRIDGE_MX_TPI_MAX	0xffffffffULL

/*
 * A loaded cell's time per instruction: @spec's with its warm windows,
 * spread and visits; or, from a file of an older version that has only
 * the workload's measured speedup, a time per instruction of 1 ns on the
 * reference type and the speedup's multiple of it on the slowest,
 * trusted as 8 warm windows in 2 visits (the cells of other types get
 * none). Returns what is wrong, SBRIDGE_MX_OK if nothing.
 */
static enum sbridge_mx_bad sbridge_mx_load_tpi(struct sbridge_mx *m,
					       const struct sbridge_mx_spec *spec)
{
	u64 tpi = 0;
	u32 n = 8, spread = 0;

	if (spec->has_tpi) {
		tpi = spec->tpi;
		if (!tpi || tpi > SBRIDGE_MX_TPI_MAX)
			return SBRIDGE_MX_BAD_TPI;
		n = spec->has_warm ? spec->warm : 1;
		spread = spec->has_spread ? spec->spread : 0;
		m->visits = spec->has_visits ? min_t(u32, spec->visits, U16_MAX) : 1;
	} else if (spec->speedup && m->phase < SBRIDGE_MAX_PHASES) {
		if (m->type == sbridge_topo.ref_type)
			tpi = SBRIDGE_TPI_PER_NS;
		else if (m->type == 0)
			tpi = (SBRIDGE_TPI_PER_NS * spec->speedup) >> SBRIDGE_FP_SHIFT;
		m->visits = 2;
	} else if (spec->has_warm || spec->has_spread || spec->has_visits) {
		return SBRIDGE_MX_BAD_NO_TPI;
	}
	if (tpi) {
		m->tpi.lg = sbridge_lg(tpi);
		m->tpi.n = max_t(u32, n, 1);
		m->tpi.dev = spread;
	}
	return SBRIDGE_MX_OK;
}

/* A cell of @fresh for the same workload, type and phase as @m. */
static bool sbridge_mx_dup(const struct list_head *fresh, const struct sbridge_mx *m)
{
	const struct sbridge_mx *n;

	list_for_each_entry(n, fresh, lru)
		if (n->type == m->type && n->phase == m->phase &&
		    n->exe == m->exe && sbridge_mx_is(n, m->key, m->scope))
			return true;
	return false;
}

/**
 * sbridge_matrix_load_begin() - start loading a new matrix (MATRIX_LOAD)
 * @ld: the load, the caller's
 *
 * Every cell is validated and allocated first (sbridge_matrix_load_add());
 * only sbridge_matrix_load_commit() swaps the old matrix out, under the
 * lock. sbridge_matrix_load_abort() leaves the matrix untouched.
 */
void sbridge_matrix_load_begin(struct sbridge_matrix_load *ld)
{
	INIT_LIST_HEAD(&ld->fresh);
	ld->n = 0;
	ld->max = READ_ONCE(sbridge_params.matrix_max);
}

/**
 * sbridge_matrix_load_add() - validate one cell and add it to a load
 * @ld: the load
 * @spec: the cell
 * @bad: set to what is wrong with it on -EINVAL, SBRIDGE_MX_OK otherwise
 *
 * Context: process context, may sleep.
 * Return: 0, -E2BIG past @ld->max cells, -EINVAL or -ENOMEM; the load
 *	then still needs sbridge_matrix_load_abort().
 */
int sbridge_matrix_load_add(struct sbridge_matrix_load *ld,
			    const struct sbridge_mx_spec *spec,
			    enum sbridge_mx_bad *bad)
{
	struct sbridge_mx *m;

	*bad = SBRIDGE_MX_OK;
	if (ld->n >= ld->max)
		return -E2BIG;
	if (spec->type >= sbridge_topo.ntypes) {
		*bad = SBRIDGE_MX_BAD_TYPE;
		return -EINVAL;
	}
	m = kmem_cache_zalloc(sbridge_mx_cache, GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	strscpy(m->key, spec->key, SBRIDGE_KEY_LEN);
	m->type = spec->type;
	m->exe = spec->exe;
	m->scope = spec->scope;
	m->phase = spec->phase;
	m->share = sbridge_model_quantise(spec->share);
	m->factor = spec->factor ?:
		    sbridge_model_factor(READ_ONCE(sbridge_params.c_const),
					 sbridge_type_factor(m->type), m->share,
					 READ_ONCE(sbridge_params.ref_share));
	m->samples = spec->samples;
	*bad = sbridge_mx_load_tpi(m, spec);
	/* Duplicates would make the load order-dependent: refuse. */
	if (!*bad && sbridge_mx_dup(&ld->fresh, m))
		*bad = SBRIDGE_MX_BAD_DUP;
	if (*bad) {
		kmem_cache_free(sbridge_mx_cache, m);
		return -EINVAL;
	}
	list_add_tail(&m->lru, &ld->fresh);
	ld->n++;
	cond_resched();	/* the duplicate check is quadratic */
	return 0;
}

/**
 * sbridge_matrix_load_commit() - replace the matrix with the load's cells
 * @ld: the load, every cell added; ended by this
 *
 * Context: process context, may sleep.
 */
void sbridge_matrix_load_commit(struct sbridge_matrix_load *ld)
{
	struct sbridge_mx *m, *n;
	LIST_HEAD(old);

	spin_lock_irq(&sbridge_mx_lock);
	sbridge_mx_detach_all(&old);
	list_for_each_entry_safe_reverse(m, n, &ld->fresh, lru) {
		list_del(&m->lru);
		sbridge_mx_link(m);
	}
	spin_unlock_irq(&sbridge_mx_lock);
	sbridge_mx_free_list(&old);
	pr_info("matrix loaded: %u entries\n", ld->n);
}

/**
 * sbridge_matrix_load_abort() - drop a load, the matrix untouched
 * @ld: the load; ended by this
 */
void sbridge_matrix_load_abort(struct sbridge_matrix_load *ld)
{
	sbridge_mx_free_list(&ld->fresh);
}

/**
 * sbridge_matrix_init() - create the cell cache
 *
 * Return: 0 or -ENOMEM.
 */
int sbridge_matrix_init(void)
{
	sbridge_mx_seed = get_random_u32();
	sbridge_mx_cache = KMEM_CACHE(sbridge_mx, 0);
	return sbridge_mx_cache ? 0 : -ENOMEM;
}

/**
 * sbridge_matrix_exit() - free every cell and the cache
 *
 * Called after the hooks are gone: nobody else touches the matrix.
 */
void sbridge_matrix_exit(void)
{
	LIST_HEAD(old);

	spin_lock_irq(&sbridge_mx_lock);
	sbridge_mx_detach_all(&old);
	spin_unlock_irq(&sbridge_mx_lock);
	sbridge_mx_free_list(&old);
	kmem_cache_destroy(sbridge_mx_cache);
}
