// SPDX-License-Identifier: GPL-2.0
/*
 * Per-workload rules: match a task by comm, executable (exact or glob),
 * cgroup or real uid and fix its class, preference or per-type factors.
 * The rule set is one immutable array published under RCU and replaced as
 * a whole, so a lookup takes no lock and a load is all-or-nothing.
 *
 * A task is matched again whenever an input changes: at exec (new comm and
 * executable), at a comm change (task_rename), at a move to another cgroup
 * v2 cgroup (cgroup_attach_task), and every live task when a set is loaded
 * or cleared. First match wins, in the order the rules were loaded.
 *
 * The executable and the cgroup path cannot be had in every context (the
 * rename probe holds task_lock, so it cannot take the mm; cgroup_path()
 * takes kernfs locks that sleep on PREEMPT_RT). They also change only at
 * exec (executable) or a cgroup move, so each entry keeps the result of
 * matching them: the first exe rule and the first cgroup rule that
 * matched, tagged with the generation of the set they were computed for.
 * Exec computes the exe part, the cgroup probe and the load walk the
 * cgroup part, the load walk also the exe part; everyone else reuses them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cgroup.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/cred.h>
#include <linux/glob.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <sbridge/compat.h>
#include "internal.h"

/* Passes of the load walk over tasks whose exe/cgroup part is stale. */
#define SBRIDGE_REMATCH_PASSES	8
/* Optimistic evaluations before one commits regardless (see _eval()). */
#define SBRIDGE_EVAL_TRIES	3

/**
 * struct sbridge_rule - one validated rule
 * @match: enum sbridge_rule_match
 * @class: enum sbridge_task_class
 * @pref: enum sbridge_pref
 * @nfactors: entries given in @factors (0 == none given)
 * @glob: an exe @pattern with wildcards, matched by glob_match()
 * @uid: the real uid a SBRIDGE_MATCH_UID rule matches
 * @factors: fixed factor per core type (fp), 0 == learn
 * @hits: times a task came under this rule (see sbridge_rules_commit())
 * @pattern: comm, absolute exe path or glob, cgroup path prefix, or uid
 * @source: "file:line" from the client, may be empty
 *
 * Immutable once published, except @hits (atomic).
 */
struct sbridge_rule {
	u8 match;
	u8 class;
	u8 pref;
	u8 nfactors;
	bool glob;
	u32 uid;
	u16 factors[SBRIDGE_MAX_CORE_TYPES];
	atomic64_t hits;
	char *pattern;
	char *source;
};

/**
 * struct sbridge_ruleset - the rules in force
 * @n: number of rules
 * @gen: generation, new for every set published (never 0)
 * @has_exe: some rule matches on the executable
 * @has_cgroup: some rule matches on the cgroup
 * @cap: room in @r (while it is filled, before it is published)
 * @r: rules, first match wins
 *
 * Published through sbridge_rules (RCU); replaced, never modified. No set
 * (NULL) is generation 0: nothing matches.
 */
struct sbridge_ruleset {
	u32 n;
	u32 gen;
	bool has_exe;
	bool has_cgroup;
	u32 cap;
	struct sbridge_rule r[];
};

static struct sbridge_ruleset __rcu *sbridge_rules;
/* Serialises loads and clears, and the walk that follows each. */
static DEFINE_MUTEX(sbridge_rules_lock);
static u32 sbridge_rules_gen;

/**
 * sbridge_ruleset_free() - free a rule set that was never published
 * @rs: from sbridge_ruleset_alloc(), may be NULL
 */
void sbridge_ruleset_free(struct sbridge_ruleset *rs)
{
	u32 i;

	if (!rs)
		return;
	for (i = 0; i < rs->n; i++) {
		kfree(rs->r[i].pattern);
		kfree(rs->r[i].source);
	}
	kvfree(rs);
}

static bool sbridge_cg_match(const char *pattern, const char *path)
{
	size_t n;

	/* Patterns may omit the leading '/'; paths from the kernel have it. */
	if (pattern[0] != '/' && path[0] == '/')
		path++;
	n = strlen(pattern);
	if (strncmp(path, pattern, n))
		return false;
	/* Prefix on a path component boundary: "/a" matches "/a/b", not "/ab". */
	return path[n] == '\0' || path[n] == '/' || (n && pattern[n - 1] == '/');
}

/* 1 + index of the first rule of kind @match that @s matches, else 0. */
static u16 sbridge_rules_first(const struct sbridge_ruleset *rs, u8 match,
			       const char *s)
{
	u32 i;

	if (!rs || !s)
		return 0;
	for (i = 0; i < rs->n; i++) {
		const struct sbridge_rule *r = &rs->r[i];

		if (r->match != match)
			continue;
		if (match == SBRIDGE_MATCH_CGROUP ? sbridge_cg_match(r->pattern, s) :
		    r->glob ? glob_match(r->pattern, s) : !strcmp(s, r->pattern))
			return i + 1;
	}
	return 0;
}

/*
 * First rule matching: comm rules on the task's own name or its process's
 * (thread-group leader's) name, uid rules on the real uid, exe and cgroup
 * rules through the indices kept on the entry (0 == none or not known).
 */
static u16 sbridge_rules_match(const struct sbridge_ruleset *rs,
			       const char *comm, const char *lcomm, u32 uid,
			       u16 exe_rule, u16 cg_rule)
{
	u32 i;

	for (i = 0; rs && i < rs->n; i++) {
		const struct sbridge_rule *r = &rs->r[i];
		bool hit;

		switch (r->match) {
		case SBRIDGE_MATCH_COMM:
			hit = !strncmp(comm, r->pattern, SBRIDGE_KEY_LEN) ||
			      (lcomm && !strncmp(lcomm, r->pattern, SBRIDGE_KEY_LEN));
			break;
		case SBRIDGE_MATCH_EXE:
			hit = exe_rule == i + 1;
			break;
		case SBRIDGE_MATCH_CGROUP:
			hit = cg_rule == i + 1;
			break;
		case SBRIDGE_MATCH_UID:
			hit = uid == r->uid;
			break;
		default:
			hit = false;
		}
		if (hit)
			return i + 1;
	}
	return 0;
}

/* Name of @p's thread-group leader into @buf, or NULL if @p leads. */
static const char *sbridge_leader_comm(struct task_struct *p, char *buf)
{
	struct task_struct *l = READ_ONCE(p->group_leader);
	struct sbridge_task *lt;

	if (!l || l == p)
		return NULL;
	/*
	 * The leader's entry has its name already when its rename probe
	 * re-matches the group (the kernel copies the name afterwards). The
	 * copy may be torn by a concurrent rename of the leader; that rename
	 * re-matches this task afterwards.
	 */
	lt = sbridge_task_lookup(l);
	memcpy(buf, lt ? lt->comm : l->comm, SBRIDGE_KEY_LEN);
	buf[SBRIDGE_KEY_LEN - 1] = '\0';
	return buf;
}

/**
 * struct sbridge_rule_in - what changed, for one evaluation
 * @comm: new name (exec, rename), NULL to keep the entry's
 * @exe_known: @exe_rule below is authoritative for the set in force
 * @exe_rule: 1 + index of the first exe rule matching, 0 none
 * @cg_known: @cg_rule below is authoritative for the set in force
 * @cg_rule: 1 + index of the first cgroup rule matching, 0 none
 */
struct sbridge_rule_in {
	const char *comm;
	bool exe_known;
	u16 exe_rule;
	bool cg_known;
	u16 cg_rule;
};

/*
 * Writes the rule-derived fields of @t (t->rule_lock held). A task comes
 * under a rule (hits) when the rule in force changes to it, or the same
 * rule of a newly loaded set matches: inheriting at fork does not count.
 */
static void sbridge_rules_commit(struct sbridge_task *t,
				 struct sbridge_ruleset *rs, u32 gen, u16 idx)
{
	struct sbridge_rule *r = idx ? &rs->r[idx - 1] : NULL;
	unsigned int i;

	if (r && (t->rule != idx || t->rule_gen != gen)) {
		atomic64_inc(&r->hits);
		atomic64_inc(&sbridge_stats.rule_hits);
	}
	WRITE_ONCE(t->class, r ? r->class : SBRIDGE_CLASS_AUTO);
	WRITE_ONCE(t->pref, r ? r->pref : SBRIDGE_PREF_NONE);
	for (i = 0; i < SBRIDGE_MAX_CORE_TYPES; i++)
		WRITE_ONCE(t->rule_factor[i], r ? r->factors[i] : 0);
	WRITE_ONCE(t->rule, idx);
	WRITE_ONCE(t->rule_gen, gen);
}

/*
 * Re-matches @t (the entry of @p) against the set in force. Inputs that
 * are read outside t->rule_lock (the leader's name) are validated with
 * t->rule_seq, which every commit bumps: if another evaluation committed
 * meanwhile, this one starts over, so the last commit always saw inputs
 * at least as new as every earlier one. An event (rename, move, exec)
 * always triggers its own evaluation after its input changed.
 *
 * Context: under rcu_read_lock() (or preemption off); takes t->rule_lock
 * (raw, never from hardirq), nothing else. Lock-free otherwise.
 */
static void sbridge_rules_eval(struct sbridge_task *t, struct task_struct *p,
			       const struct sbridge_rule_in *in)
{
	struct sbridge_ruleset *rs = rcu_dereference(sbridge_rules);
	u32 gen = rs ? rs->gen : 0;
	const char *comm = in->comm;
	char lbuf[SBRIDGE_KEY_LEN];
	const char *lcomm;
	unsigned int tries;
	u32 seq, uid;
	u16 idx;

	for (tries = 0;; tries++) {
		seq = READ_ONCE(t->rule_seq);
		smp_rmb();	/* seq before the inputs read unlocked */
		lcomm = sbridge_leader_comm(p, lbuf);
		/*
		 * Read afresh, not the entry's exec-time copy: a daemon that
		 * drops privileges without exec matches from the next load.
		 */
		uid = from_kuid_munged(&init_user_ns, task_uid(p));
		raw_spin_lock(&t->rule_lock);
		if (comm) {
			/*
			 * The rename probe's name is the caller's string, not
			 * a TASK_COMM_LEN buffer ("kworker/dying" is a
			 * literal): never read past its end.
			 */
			strscpy_pad(t->comm, comm, SBRIDGE_KEY_LEN);
			comm = NULL;
		}
		if (in->exe_known || !rs || !rs->has_exe) {
			t->exe_rule = in->exe_known ? in->exe_rule : 0;
			t->exe_gen = gen;
		}
		if (in->cg_known || !rs || !rs->has_cgroup) {
			t->cg_rule = in->cg_known ? in->cg_rule : 0;
			t->cg_gen = gen;
		}
		if (t->rule_seq != seq && tries < SBRIDGE_EVAL_TRIES) {
			raw_spin_unlock(&t->rule_lock);
			continue;
		}
		idx = sbridge_rules_match(rs, t->comm, lcomm, uid,
					  t->exe_gen == gen ? t->exe_rule : 0,
					  t->cg_gen == gen ? t->cg_rule : 0);
		sbridge_rules_commit(t, rs, gen, idx);
		WRITE_ONCE(t->rule_seq, t->rule_seq + 1);
		raw_spin_unlock(&t->rule_lock);
		return;
	}
}

/**
 * sbridge_rules_apply() - match a new entry (fork of an untracked parent,
 *	adoption at load)
 * @t: entry, not yet in the table
 * @exe: executable path, NULL if unknown (exe rules then do not match)
 *
 * The cgroup is not looked at here; cgroup rules match such a task from
 * the next rules load or cgroup move.
 *
 * Context: preemption off or rcu_read_lock(); lock-free but for the
 *	entry's own lock.
 */
void sbridge_rules_apply(struct sbridge_task *t, const char *exe)
{
	struct sbridge_rule_in in = { };
	const struct sbridge_ruleset *rs;

	rcu_read_lock();
	rs = rcu_dereference(sbridge_rules);
	if (exe) {
		in.exe_known = true;
		in.exe_rule = sbridge_rules_first(rs, SBRIDGE_MATCH_EXE, exe);
	}
	sbridge_rules_eval(t, t->task, &in);
	rcu_read_unlock();
}

/**
 * sbridge_rules_exec() - re-key and re-match a task at exec
 * @t: entry of @p
 * @p: the task, running its exec (== current)
 * @exe: the new executable's path, NULL if it could not be had
 *
 * Takes the new comm and matches the executable; the cgroup part kept on
 * the entry stays valid (exec does not move a task).
 *
 * Context: sched_process_exec probe, preemption off, IRQs on.
 */
void sbridge_rules_exec(struct sbridge_task *t, struct task_struct *p,
			const char *exe)
{
	struct sbridge_rule_in in = { .comm = p->comm, .exe_known = true };

	rcu_read_lock();
	in.exe_rule = sbridge_rules_first(rcu_dereference(sbridge_rules),
					  SBRIDGE_MATCH_EXE, exe);
	sbridge_rules_eval(t, p, &in);
	rcu_read_unlock();
}

/*
 * Re-matching a whole thread group (a rename of its leader: comm rules
 * match the process's name too; a cgroup move of a process) costs
 * threads x rules. The probes that see those events run with task_lock()
 * held or IRQs off, so they only queue the group, and a work item
 * re-matches it in process context, preemptible between batches (safety
 * review 2, N7). The queue holds a reference to each leader (and to the
 * destination cgroup of a move); when it is full, the event's threads
 * keep their rule until their next exec, rename or move or the next rules
 * load, and the log says so.
 */
#define SBRIDGE_DEFER_MAX	64
#define SBRIDGE_DEFER_BATCH	64	/* threads matched per RCU section */

/**
 * struct sbridge_defer - a thread group to re-match
 * @leader: its leader, referenced
 * @dst: a move: the v2 cgroup its threads moved to, referenced; NULL for
 *	a rename
 */
struct sbridge_defer {
	struct task_struct *leader;
	struct cgroup *dst;
};

static struct sbridge_defer sbridge_defer_q[SBRIDGE_DEFER_MAX];
static unsigned int sbridge_defer_n;
static u64 sbridge_defer_dropped;
/* the queue; taken in the probes (IRQs may be off), so raw and IRQ-safe */
static DEFINE_RAW_SPINLOCK(sbridge_defer_lock);
static void sbridge_defer_fn(struct work_struct *w);
static DECLARE_WORK(sbridge_defer_work, sbridge_defer_fn);

/* Queues @leader's group (@dst: moved there, or NULL: renamed). Atomic. */
static void sbridge_rules_defer(struct task_struct *leader, struct cgroup *dst)
{
	unsigned long flags;
	unsigned int i;
	bool queued = false;

	raw_spin_lock_irqsave(&sbridge_defer_lock, flags);
	for (i = 0; i < sbridge_defer_n; i++)
		if (sbridge_defer_q[i].leader == leader &&
		    sbridge_defer_q[i].dst == dst)
			break;
	if (i < sbridge_defer_n) {
		queued = true;
	} else if (sbridge_defer_n < SBRIDGE_DEFER_MAX) {
		get_task_struct(leader);
		if (dst)
			cgroup_get(dst);
		sbridge_defer_q[sbridge_defer_n].leader = leader;
		sbridge_defer_q[sbridge_defer_n++].dst = dst;
		queued = true;
	} else {
		sbridge_defer_dropped++;
	}
	raw_spin_unlock_irqrestore(&sbridge_defer_lock, flags);
	if (queued)
		schedule_work(&sbridge_defer_work);
	else
		pr_warn_ratelimited("re-match queue full: threads of pid %d keep their rule until their next event\n",
				    task_pid_nr(leader));
}

/*
 * Re-matches @leader's threads (those in @dst, if given) with @in, in
 * batches: between two, the RCU section ends and the walk goes on from a
 * referenced thread that is still on the list (pid_alive()); if it left
 * meanwhile, the walk starts over from the leader.
 */
static void sbridge_rules_group(struct task_struct *leader, struct cgroup *dst,
				const struct sbridge_rule_in *in)
{
	struct task_struct *q, *held;
	struct sbridge_task *t;
	unsigned int n = 0, restarts = 0;

	rcu_read_lock();
	if (!pid_alive(leader))
		goto out;
	q = leader;
	do {
		if (!dst || task_dfl_cgroup(q) == dst) {
			t = sbridge_task_lookup(q);
			if (t)
				sbridge_rules_eval(t, q, in);
		}
		q = next_thread(q);
		if (++n % SBRIDGE_DEFER_BATCH || q == leader)
			continue;
		held = q;
		get_task_struct(held);
		rcu_read_unlock();
		cond_resched();
		rcu_read_lock();
		put_task_struct(held);
		if (!pid_alive(held)) {
			if (!pid_alive(leader) || ++restarts > 8)
				break;
			q = next_thread(leader);
		}
	} while (q != leader);
out:
	rcu_read_unlock();
}

static void sbridge_defer_fn(struct work_struct *w)
{
	struct sbridge_defer q[SBRIDGE_DEFER_MAX];
	struct sbridge_ruleset *rs;
	unsigned int n, i;
	char *buf;

	raw_spin_lock_irq(&sbridge_defer_lock);
	n = sbridge_defer_n;
	memcpy(q, sbridge_defer_q, n * sizeof(q[0]));
	sbridge_defer_n = 0;
	raw_spin_unlock_irq(&sbridge_defer_lock);
	buf = kmalloc(SBRIDGE_PATH_LEN, GFP_KERNEL);
	for (i = 0; i < n; i++) {
		struct sbridge_rule_in in = { };

		if (q[i].dst) {
			/* the path afresh: the set may have changed since */
			in.cg_known = buf && cgroup_path(q[i].dst, buf, SBRIDGE_PATH_LEN) >= 0;
			rcu_read_lock();
			rs = rcu_dereference(sbridge_rules);
			if (in.cg_known)
				in.cg_rule = sbridge_rules_first(rs, SBRIDGE_MATCH_CGROUP, buf);
			rcu_read_unlock();
		}
		sbridge_rules_group(q[i].leader, q[i].dst, &in);
		put_task_struct(q[i].leader);
		if (q[i].dst)
			cgroup_put(q[i].dst);
		cond_resched();
	}
	kfree(buf);
}

/**
 * sbridge_rules_drain() - re-match the groups queued so far, now
 *
 * Called once the probes are detached (hooks.c), before the task table
 * goes: nothing is queued after it.
 *
 * Context: process context, sleeps.
 */
void sbridge_rules_drain(void)
{
	flush_work(&sbridge_defer_work);
	sbridge_defer_fn(NULL);
	if (sbridge_defer_dropped)
		pr_info("%llu thread-group re-matches dropped (queue full)\n",
			sbridge_defer_dropped);
	sbridge_defer_dropped = 0;
}

/**
 * sbridge_rules_renamed() - re-match a task whose comm changes
 * @t: @p's entry, or NULL if it has none
 * @p: the task being renamed (task_lock(@p) held by the caller up to 6.12)
 * @comm: its new name; @p->comm still holds the old one
 *
 * If @p leads its thread group, its threads are re-matched too (comm
 * rules also match on the process's name), by the work item: the
 * probe's own work is one task's.
 *
 * Context: task_rename probe, under rcu_read_lock() (which keeps @t):
 *	preemption off, IRQs on, task_lock(@p) up to 6.12.
 */
void sbridge_rules_renamed(struct sbridge_task *t, struct task_struct *p,
			   const char *comm)
{
	struct sbridge_rule_in in = { .comm = comm };

	if (t)
		sbridge_rules_eval(t, p, &in);
	if (thread_group_leader(p) && !thread_group_empty(p))
		sbridge_rules_defer(p, NULL);
}

/**
 * sbridge_rules_adopted() - take the name an adopted task has now
 * @t: entry of @p, just published by the adoption walk
 * @p: the task
 *
 * The walk copied @p's name before publishing @t; an exec that completed
 * in between and lost its own entry's insert to @t re-keyed nothing, so
 * the entry would keep the old name (the matrix key too) until the next
 * one. The caller orders the publication before this read (smp_mb()).
 *
 * Context: under rcu_read_lock(); takes t->rule_lock.
 */
void sbridge_rules_adopted(struct sbridge_task *t, struct task_struct *p)
{
	struct sbridge_rule_in in = { };
	char comm[SBRIDGE_KEY_LEN];
	bool same;

	/*
	 * A rename still under way (its probe is attached after the walk, and
	 * 7.x copies the name without task_lock()) may be torn or missed
	 * here: that name comes in at the next exec or rename.
	 */
	memcpy(comm, p->comm, SBRIDGE_KEY_LEN);
	comm[SBRIDGE_KEY_LEN - 1] = '\0';
	raw_spin_lock(&t->rule_lock);
	same = !strncmp(t->comm, comm, SBRIDGE_KEY_LEN);
	raw_spin_unlock(&t->rule_lock);
	if (same)
		return;
	in.comm = comm;
	sbridge_rules_eval(t, p, &in);
}

static void sbridge_rules_moved_one(struct cgroup *dst, struct task_struct *q,
				    const struct sbridge_rule_in *in)
{
	struct sbridge_task *t;

	if (task_dfl_cgroup(q) != dst)
		return;
	t = sbridge_task_lookup(q);
	if (t)
		sbridge_rules_eval(t, q, in);
}

/**
 * sbridge_rules_moved() - re-match tasks moved to another cgroup
 * @dst: destination cgroup
 * @path: its path (computed by the tracepoint), may be NULL
 * @leader: the task moved, or the leader of the thread group moved
 * @threadgroup: every thread of @leader moved
 *
 * Only moves on the default (v2) hierarchy matter: a task whose v2 cgroup
 * is not @dst after the move is left alone. A whole process's threads
 * are re-matched by the work item; the probe matches one task at most.
 *
 * Context: cgroup_attach_task probe: cgroup_mutex and the threadgroup
 *	rwsem held (the thread list is stable), IRQs off under the
 *	tracepoint's path lock.
 */
void sbridge_rules_moved(struct cgroup *dst, const char *path,
			 struct task_struct *leader, bool threadgroup)
{
	struct sbridge_rule_in in = { .cg_known = true };

	if (threadgroup) {
		sbridge_rules_defer(leader, dst);
		return;
	}
	rcu_read_lock();
	if (path)
		in.cg_rule = sbridge_rules_first(rcu_dereference(sbridge_rules),
						 SBRIDGE_MATCH_CGROUP, path);
	else
		in.cg_known = false;
	sbridge_rules_moved_one(dst, leader, &in);
	rcu_read_unlock();
}

/**
 * sbridge_rules_inherit() - copy the rule state of a parent to its child
 * @child: entry of the new task, not yet in the table
 * @parent: entry of the forking task
 *
 * Under the parent's lock, so the child never gets a mix of two rules.
 *
 * Context: sched_process_fork probe, preemption off.
 */
void sbridge_rules_inherit(struct sbridge_task *child,
			   struct sbridge_task *parent)
{
	raw_spin_lock(&parent->rule_lock);
	child->class = parent->class;
	child->pref = parent->pref;
	memcpy(child->rule_factor, parent->rule_factor,
	       sizeof(child->rule_factor));
	child->rule = parent->rule;
	child->rule_gen = parent->rule_gen;
	child->exe_rule = parent->exe_rule;
	child->exe_gen = parent->exe_gen;
	child->cg_rule = parent->cg_rule;
	child->cg_gen = parent->cg_gen;
	raw_spin_unlock(&parent->rule_lock);
}

/**
 * sbridge_rules_task_rule() - "file:line" of the rule in force on @t
 * @t: entry, under RCU
 * @buf: output
 * @len: size of @buf
 *
 * Context: process context, under rcu_read_lock().
 * Return: true if a rule of the set in force matched @t (@buf filled).
 */
bool sbridge_rules_task_rule(struct sbridge_task *t, char *buf, size_t len)
{
	const struct sbridge_ruleset *rs = rcu_dereference(sbridge_rules);
	u32 gen;
	u16 idx;

	raw_spin_lock(&t->rule_lock);
	gen = t->rule_gen;
	idx = t->rule;
	raw_spin_unlock(&t->rule_lock);
	if (!rs || !idx || gen != rs->gen || idx > rs->n)
		return false;
	if (rs->r[idx - 1].source && rs->r[idx - 1].source[0])
		strscpy(buf, rs->r[idx - 1].source, len);
	else
		snprintf(buf, len, "rule %u", idx);
	return true;
}

/**
 * sbridge_rules_count() - rules in force
 *
 * Return: number of rules.
 */
u32 sbridge_rules_count(void)
{
	const struct sbridge_ruleset *rs;
	u32 n;

	rcu_read_lock();
	rs = rcu_dereference(sbridge_rules);
	n = rs ? rs->n : 0;
	rcu_read_unlock();
	return n;
}

/**
 * sbridge_rules_walk() - the rules in force, for a dump
 * @from: index of the first rule to show
 * @fn: called for each rule from @from on, in order, under
 *	rcu_read_lock(); a nonzero return stops the walk before that rule
 * @arg: passed to @fn
 *
 * The view's strings belong to the set in force and are valid only
 * during the call.
 *
 * Context: process context.
 * Return: the index of the first rule not shown (@from if none).
 */
unsigned long sbridge_rules_walk(unsigned long from,
				 int (*fn)(const struct sbridge_rule_view *r, void *arg),
				 void *arg)
{
	const struct sbridge_ruleset *rs;
	struct sbridge_rule_view v;
	const struct sbridge_rule *r;
	unsigned long i;
	u32 k;

	rcu_read_lock();
	rs = rcu_dereference(sbridge_rules);
	for (i = from; rs && i < rs->n; i++) {
		r = &rs->r[i];
		v.rule.match = r->match;
		v.rule.class = r->class;
		v.rule.pref = r->pref;
		v.rule.nfactors = r->nfactors;
		for (k = 0; k < r->nfactors; k++)
			v.rule.factors[k] = r->factors[k];
		v.rule.pattern = r->pattern;
		v.rule.source = r->source;
		v.hits = atomic64_read(&r->hits);
		if (fn(&v, arg))
			break;
	}
	rcu_read_unlock();
	return i;
}

/**
 * sbridge_rule_check() - is @pattern a valid pattern for match kind @match
 * @match: enum sbridge_rule_match
 * @pattern: NUL-terminated
 *
 * Return: SBRIDGE_RULE_OK, or what is wrong with it.
 */
enum sbridge_rule_bad sbridge_rule_check(u32 match, const char *pattern)
{
	u32 uid;

	if (!pattern[0])
		return SBRIDGE_RULE_BAD_EMPTY;
	if (match == SBRIDGE_MATCH_COMM && strlen(pattern) >= SBRIDGE_KEY_LEN)
		return SBRIDGE_RULE_BAD_COMM_LONG;
	if (match == SBRIDGE_MATCH_EXE && pattern[0] != '/')
		return SBRIDGE_RULE_BAD_EXE_RELATIVE;
	if (match == SBRIDGE_MATCH_UID &&
	    (kstrtou32(pattern, 10, &uid) ||
	     !uid_valid(make_kuid(&init_user_ns, uid))))
		return SBRIDGE_RULE_BAD_UID;
	return SBRIDGE_RULE_OK;
}

/**
 * sbridge_ruleset_alloc() - an empty set with room for @n rules
 * @n: at most SBRIDGE_MAX_RULES
 *
 * Context: process context, may sleep.
 * Return: the set, to fill with sbridge_ruleset_add() and hand to
 *	sbridge_rules_publish() or sbridge_ruleset_free(); NULL if @n is
 *	too large or memory is short.
 */
struct sbridge_ruleset *sbridge_ruleset_alloc(u32 n)
{
	struct sbridge_ruleset *rs;

	if (n > SBRIDGE_MAX_RULES)
		return NULL;
	rs = kvzalloc(struct_size(rs, r, n), GFP_KERNEL);
	if (rs)
		rs->cap = n;
	return rs;
}

/**
 * sbridge_ruleset_add() - append one rule to an unpublished set
 * @rs: from sbridge_ruleset_alloc()
 * @spec: the rule: valid values of the UAPI enums, a pattern that
 *	sbridge_rule_check() accepts, factors 0 or in range
 *
 * The strings are copied.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOSPC when @rs is full, -EINVAL for a bad pattern or
 *	-ENOMEM; @rs then still only needs sbridge_ruleset_free().
 */
int sbridge_ruleset_add(struct sbridge_ruleset *rs,
			const struct sbridge_rule_spec *spec)
{
	struct sbridge_rule *r;
	u32 i;

	if (rs->n >= rs->cap)
		return -ENOSPC;
	if (sbridge_rule_check(spec->match, spec->pattern) ||
	    spec->nfactors > SBRIDGE_MAX_CORE_TYPES)
		return -EINVAL;
	/* Counted at once: its strings may need freeing. */
	r = &rs->r[rs->n++];
	r->match = spec->match;
	r->class = spec->class;
	r->pref = spec->pref;
	r->nfactors = spec->nfactors;
	for (i = 0; i < spec->nfactors; i++)
		r->factors[i] = spec->factors[i];
	if (r->match == SBRIDGE_MATCH_UID && kstrtou32(spec->pattern, 10, &r->uid))
		return -EINVAL;
	r->glob = r->match == SBRIDGE_MATCH_EXE && strpbrk(spec->pattern, "*?[");
	r->pattern = kstrdup(spec->pattern, GFP_KERNEL);
	if (!r->pattern)
		return -ENOMEM;
	if (spec->source) {
		r->source = kstrdup(spec->source, GFP_KERNEL);
		if (!r->source)
			return -ENOMEM;
	}
	if (r->match == SBRIDGE_MATCH_CGROUP)
		rs->has_cgroup = true;
	if (r->match == SBRIDGE_MATCH_EXE)
		rs->has_exe = true;
	return 0;
}

/**
 * struct sbridge_rematch - state of the walk after a load or clear
 * @tasks: references to the tasks of one pass
 * @cap: room in @tasks
 * @exe: d_path() buffer
 * @cg: cgroup_path() buffer
 */
struct sbridge_rematch {
	struct task_struct **tasks;
	unsigned long cap;
	char *exe;
	char *cg;
};

static int sbridge_rematch_alloc(struct sbridge_rematch *w)
{
	s64 live = sbridge_tasks_live();

	w->cap = (live > 0 ? live : 0) + 256;
	w->tasks = kvmalloc_array(w->cap, sizeof(*w->tasks), GFP_KERNEL);
	w->exe = kmalloc(SBRIDGE_PATH_LEN, GFP_KERNEL);
	w->cg = kmalloc(SBRIDGE_PATH_LEN, GFP_KERNEL);
	if (w->tasks && w->exe && w->cg)
		return 0;
	kvfree(w->tasks);
	kfree(w->exe);
	kfree(w->cg);
	return -ENOMEM;
}

static void sbridge_rematch_free(struct sbridge_rematch *w)
{
	kvfree(w->tasks);
	kfree(w->exe);
	kfree(w->cg);
}

/* Executable path of a live task, or NULL (kernel thread, exited, long). */
static const char *sbridge_task_exe(struct task_struct *p, char *buf)
{
	const char *exe = NULL;
	struct mm_struct *mm;
	struct file *f;

	mm = get_task_mm(p);		/* NULL for kernel threads */
	if (!mm)
		return NULL;
	f = sbridge_mm_exe_file(mm);
	mmput(mm);
	if (!f)
		return NULL;
	exe = d_path(&f->f_path, buf, SBRIDGE_PATH_LEN);
	fput(f);
	return IS_ERR(exe) ? NULL : exe;
}

/* Re-matches @p with its executable and cgroup looked up afresh. */
static void sbridge_rematch_one(struct sbridge_rematch *w,
				const struct sbridge_ruleset *rs,
				struct task_struct *p)
{
	struct sbridge_rule_in in = { .exe_known = true, .cg_known = true };
	struct sbridge_task *t;
	struct cgroup *cg;
	int ret = -ENOENT;

	if (rs && rs->has_exe)
		in.exe_rule = sbridge_rules_first(rs, SBRIDGE_MATCH_EXE,
						  sbridge_task_exe(p, w->exe));
	rcu_read_lock();
	if (rs && rs->has_cgroup) {
		/* task_css_set() is stable under RCU; cgroup_path() does not sleep. */
		cg = task_dfl_cgroup(p);
		if (cg)
			ret = cgroup_path(cg, w->cg, SBRIDGE_PATH_LEN);
		in.cg_rule = sbridge_rules_first(rs, SBRIDGE_MATCH_CGROUP,
						 ret < 0 ? NULL : w->cg);
	}
	t = sbridge_task_lookup(p);
	if (t)
		sbridge_rules_eval(t, p, &in);
	rcu_read_unlock();
}

/*
 * Re-matches every tracked task against the set just published (@rs,
 * sbridge_rules_lock held). A pass takes references to the tasks whose
 * exe or cgroup part is not yet of this generation and matches them in
 * process context; tasks forked meanwhile from a not yet re-matched
 * parent inherited the old state and are caught by the next pass.
 * Returns the tasks matched.
 */
static unsigned long sbridge_rematch_all(struct sbridge_rematch *w,
					 const struct sbridge_ruleset *rs)
{
	u32 gen = rs ? rs->gen : 0;
	unsigned long n, i, total = 0;
	struct task_struct *g, *p;
	struct sbridge_task *t;
	unsigned int pass;

	for (pass = 0; pass < SBRIDGE_REMATCH_PASSES; pass++) {
		n = 0;
		rcu_read_lock();
		for_each_process_thread(g, p) {
			t = sbridge_task_lookup(p);
			if (!t || (READ_ONCE(t->exe_gen) == gen &&
				   READ_ONCE(t->cg_gen) == gen &&
				   READ_ONCE(t->rule_gen) == gen))
				continue;
			if (n == w->cap)
				break;
			get_task_struct(p);
			w->tasks[n++] = p;
		}
		rcu_read_unlock();
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			sbridge_rematch_one(w, rs, w->tasks[i]);
			put_task_struct(w->tasks[i]);
			cond_resched();
		}
		total += n;
	}
	return total;
}

/* Publishes @rs (NULL: none) and re-matches the live tasks if @w. */
static void sbridge_rules_swap(struct sbridge_ruleset *rs,
			       struct sbridge_rematch *w)
{
	struct sbridge_ruleset *old;
	unsigned long n = 0;

	mutex_lock(&sbridge_rules_lock);
	if (rs) {
		if (!++sbridge_rules_gen)
			sbridge_rules_gen = 1;
		rs->gen = sbridge_rules_gen;
	}
	old = rcu_replace_pointer(sbridge_rules, rs,
				  lockdep_is_held(&sbridge_rules_lock));
	if (w)
		n = sbridge_rematch_all(w, rs);
	mutex_unlock(&sbridge_rules_lock);
	if (w)
		pr_info("%u rules in force, %lu tasks re-matched\n",
			rs ? rs->n : 0, n);
	synchronize_rcu();
	sbridge_ruleset_free(old);
}

/**
 * sbridge_rules_publish() - replace the rule set atomically (RULES_LOAD)
 * @rs: from sbridge_ruleset_alloc(), filled with sbridge_ruleset_add()
 *	(may hold no rule); taken over, also on error
 *
 * Every tracked task is matched again against the new set before this
 * returns (see sbridge_rematch_all()).
 *
 * Context: process context, sleeps.
 * Return: 0 or -ENOMEM; on error nothing changed and @rs is freed.
 */
int sbridge_rules_publish(struct sbridge_ruleset *rs)
{
	struct sbridge_rematch w;

	if (sbridge_rematch_alloc(&w)) {
		sbridge_ruleset_free(rs);
		return -ENOMEM;
	}
	sbridge_rules_swap(rs, &w);
	sbridge_rematch_free(&w);
	return 0;
}

/**
 * sbridge_rules_clear() - drop every rule (RULES_CLEAR)
 *
 * Every tracked task returns to class auto, no preference, learned
 * factors before this returns.
 *
 * Context: process context, sleeps.
 * Return: 0 or -ENOMEM (then nothing changed).
 */
int sbridge_rules_clear(void)
{
	struct sbridge_rematch w;

	if (sbridge_rematch_alloc(&w))
		return -ENOMEM;
	sbridge_rules_swap(NULL, &w);
	sbridge_rematch_free(&w);
	return 0;
}

/**
 * sbridge_rules_init() - nothing to allocate; the set starts empty
 *
 * Return: 0.
 */
int sbridge_rules_init(void)
{
	return 0;
}

/**
 * sbridge_rules_exit() - free the rule set at unload
 */
void sbridge_rules_exit(void)
{
	sbridge_rules_drain();
	sbridge_rules_swap(NULL, NULL);
}
