// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler hooks through the sched_* tracepoints: no kernel patch, no
 * kprobe. The tracepoints are not exported as symbols, so they are found
 * by name with for_each_kernel_tracepoint().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/tracepoint.h>
#include <linux/binfmts.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/percpu.h>
#include <linux/err.h>
#include <linux/jhash.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"

/**
 * struct sbridge_path_buf - per-CPU buffer for the exec path
 * @path: d_path() output
 *
 * Used only by the exec probe, which runs with preemption off.
 */
struct sbridge_path_buf {
	char path[SBRIDGE_PATH_LEN];
};
static DEFINE_PER_CPU(struct sbridge_path_buf, sbridge_exe_buf);

/*
 * A new entry with no tracked parent to inherit from (a fork of an
 * untracked task, a task adopted at load): rules by name, then the matrix
 * seeds what is known of the program.
 */
static void sbridge_track_fresh(struct sbridge_task *t)
{
	sbridge_rules_apply(t, NULL);
	sbridge_matrix_seed(t);
}

/*
 * An adopted entry took the task's name before it was published. An exec
 * in between makes its own entry, unless this one went in between the
 * exec probe's lookup and its insert: then the probe's is dropped and this
 * one keeps the old name. The barrier pairs with the exec probe's: either
 * that lookup saw this entry, or the name read here is the new one. The
 * matrix seed taken under the old name stays (re-seeding here would race
 * the runtime probe, which writes the model from the task's own CPU);
 * learning replaces it.
 */
static void sbridge_track_adopted(struct sbridge_task *t,
				  struct task_struct *p)
{
	/* the entry in the table before p->comm is read: see above */
	smp_mb();
	sbridge_rules_adopted(t, p);
}

/*
 * The child inherits its parent's identity, rules and learned model (a
 * thread or a fork runs the same program); an untracked parent's child is
 * matched and seeded afresh. Preemption is off already; the explicit RCU
 * section keeps lockdep-RCU quiet.
 */
static void sbridge_probe_fork(void *data, struct task_struct *parent,
			       struct task_struct *child)
{
	struct sbridge_task *t, *pt;

	t = sbridge_task_new(child, GFP_NOWAIT);
	if (t) {
		rcu_read_lock();
		pt = sbridge_task_lookup(current);
		if (pt) {
			sbridge_task_inherit(t, pt);
			sbridge_rules_inherit(t, pt);
		}
		rcu_read_unlock();
		if (!pt)
			sbridge_track_fresh(t);
		sbridge_task_insert(t);
	}
	sbridge_actuators_fork(parent, child);
}

/*
 * Exec: what the old program learned since the last fold is folded under
 * its name first, by the rename probe (exec renames before this) or here
 * if that probe did not run; the windows since belong to neither and go
 * with the model reset. Fold, re-key and reset happen under the matrix
 * lock, so a periodic fold sees the entry before or after the exec, never
 * in between; with IRQs off, the runtime probe cannot sample into the
 * half-reset model either, nor into the seeding. Then rules are matched
 * again (new comm and executable, cgroup part kept) and the matrix seeds
 * the new program if it is known.
 */
static void sbridge_track_exec(struct task_struct *p, const char *exe)
{
	u32 hash = exe ? jhash(exe, strlen(exe), 0) : 0;
	struct sbridge_task *t;
	unsigned long flags;

	/*
	 * The new name is in p->comm; pairs with sbridge_track_adopted(): an
	 * entry published too late for this lookup sees the new name there.
	 */
	smp_mb();
	rcu_read_lock();
	t = sbridge_task_get(p);
	if (t) {
		flags = sbridge_matrix_lock();
		if ((t->flags & SBRIDGE_TF_LEARNED) &&
		    strncmp(t->comm, p->comm, SBRIDGE_KEY_LEN))
			sbridge_matrix_learn_locked(t);
		sbridge_task_rekey(t, p, hash);
		sbridge_matrix_unlock(flags);
		sbridge_rules_exec(t, p, exe);
		/* the seed writes the model the runtime probe writes: IRQs off */
		local_irq_save(flags);
		sbridge_matrix_seed(t);
		local_irq_restore(flags);
	}
	rcu_read_unlock();
}

static void sbridge_probe_exec(void *data, struct task_struct *p,
			       pid_t old_pid, struct linux_binprm *bprm)
{
	char *buf = this_cpu_ptr(&sbridge_exe_buf)->path;
	const char *exe = NULL;

	if (bprm && bprm->file) {
		exe = d_path(&bprm->file->f_path, buf, SBRIDGE_PATH_LEN);
		if (IS_ERR(exe))
			exe = NULL;
	}
	sbridge_track_exec(p, exe);
}

/* What a task learned outlives it in the matrix. RCU callback or process. */
static void sbridge_probe_free(void *data, struct task_struct *p)
{
	struct sbridge_task *t;

	rcu_read_lock();
	t = sbridge_task_remove(p);
	if (t) {
		if (t->flags & SBRIDGE_TF_LEARNED)
			sbridge_matrix_learn(t);
		sbridge_task_release(t);
	}
	rcu_read_unlock();
}

/* Migrations between core types, counted on the CPU that moves the task. */
static DEFINE_PER_CPU(u64, sbridge_pcpu_type_migrations);

static void sbridge_probe_migrate(void *data, struct task_struct *p,
				  int dest_cpu)
{
	if (sbridge_cpu_type(task_cpu(p)) != sbridge_cpu_type(dest_cpu))
		this_cpu_inc(sbridge_pcpu_type_migrations);
}

/**
 * sbridge_hooks_type_migrations() - migrations between core types since load
 *
 * Return: the per-CPU counts summed (a racy but monotonic read).
 */
u64 sbridge_hooks_type_migrations(void)
{
	return sbridge_pcpu_sum(sbridge_pcpu_type_migrations);
}

static void sbridge_probe_switch(SBRIDGE_SCHED_SWITCH_PROTO)
{
	sbridge_sample_switch(prev, next, smp_processor_id(),
			      prev_state != TASK_RUNNING);
}

/*
 * update_curr() charges the running task at every tick (and at enqueues,
 * dequeues, switches): the one hook that sees a task owning its CPU.
 */
static void sbridge_probe_runtime(SBRIDGE_SCHED_RUNTIME_PROTO)
{
	sbridge_sample_runtime(p, smp_processor_id());
}

/*
 * A task that names itself before a window of its own (a fork of a
 * multi-call program, as stress-ng's workers, or a named thread) runs
 * another workload than the one it inherited: it starts from what its
 * new name learned, as an exec would, if the matrix knows the name. Only
 * the task itself (@t its entry, under RCU), IRQs off: the runtime probe
 * writes the same model from its tick. A task with windows of its own
 * keeps them.
 */
static void sbridge_track_renamed(struct sbridge_task *t)
{
	unsigned long flags;

	local_irq_save(flags);
	if (!(t->flags & (SBRIDGE_TF_LEARNED | SBRIDGE_TF_EXEC)))
		sbridge_matrix_seed(t);
	local_irq_restore(flags);
}

/*
 * A comm change (prctl(PR_SET_NAME), /proc/PID/comm, exec) re-matches
 * rules; what was learned under the old name is folded first, under it,
 * and a task renaming itself is seeded under the new one.
 */
static void sbridge_probe_rename(SBRIDGE_TASK_RENAME_PROTO)
{
	struct sbridge_task *t;
	unsigned long flags;
	bool exec;

	/*
	 * The matrix key is the comm: windows learned under the old name are
	 * folded under it now (task_lock() held up to 6.12; the fold takes
	 * the IRQ-safe matrix lock and allocates atomically).
	 *
	 * An exec renames its task once the new mm is in and before the exec
	 * probe keys the entry anew (uid, executable, model): a periodic fold
	 * in between would learn the exec's own windows under the new name
	 * in the old program's scope. The entry is marked so nothing folds
	 * until then; IRQs off, so the task's own sampling cannot interleave.
	 * Only the task itself writes @mm_tag, so it is read here unlocked.
	 * One lookup serves the fold, the rules and the seed: the probe's
	 * cost is bounded per rename (docs/reliability.md, N7).
	 */
	rcu_read_lock();
	t = sbridge_task_lookup(task);
	exec = t && task == current && sbridge_mm_tag(current->mm) != t->mm_tag;
	if (t && (exec || (READ_ONCE(t->flags) & SBRIDGE_TF_LEARNED))) {
		flags = sbridge_matrix_lock();
		if (t->flags & SBRIDGE_TF_LEARNED)
			sbridge_matrix_learn_locked(t);
		if (exec)
			t->flags |= SBRIDGE_TF_EXEC;
		sbridge_matrix_unlock(flags);
	}
	sbridge_rules_renamed(t, task, comm);
	if (t && task == current && !exec)
		sbridge_track_renamed(t);
	rcu_read_unlock();
}

/* A move to another cgroup (v2 moves matter) re-matches rules. */
static void sbridge_probe_cgroup_attach(SBRIDGE_CGROUP_ATTACH_PROTO)
{
	sbridge_rules_moved(dst_cgrp, path, task, threadgroup);
}

/**
 * struct sbridge_hook - one tracepoint probe
 * @name: tracepoint name
 * @probe: our probe
 * @optional: load anyway without it (a warning says what is lost)
 * @tp: the tracepoint, found at init
 * @registered: probe is attached
 *
 * Only touched at init and exit (module load/unload serialise them).
 */
struct sbridge_hook {
	const char *name;
	void *probe;
	bool optional;
	struct tracepoint *tp;
	bool registered;
};

/*
 * Registration order matters: free before fork/exec before adopting the
 * live tasks (see sbridge_tasks_adopt()), switch, runtime and migrate
 * after; rename and cgroup attach (rules, none loaded yet at init) last.
 */
enum { SBRIDGE_HOOK_FREE, SBRIDGE_HOOK_FORK, SBRIDGE_HOOK_EXEC, SBRIDGE_HOOK_SWITCH,
	SBRIDGE_HOOK_RUNTIME, SBRIDGE_HOOK_MIGRATE, SBRIDGE_HOOK_RENAME, SBRIDGE_HOOK_CGROUP,
	SBRIDGE_NR_HOOKS };

static struct sbridge_hook sbridge_hooks[SBRIDGE_NR_HOOKS] = {
	[SBRIDGE_HOOK_FREE]	 = { "sched_process_free", sbridge_probe_free },
	[SBRIDGE_HOOK_FORK]	 = { "sched_process_fork", sbridge_probe_fork },
	[SBRIDGE_HOOK_EXEC]	 = { "sched_process_exec", sbridge_probe_exec },
	[SBRIDGE_HOOK_SWITCH] = { "sched_switch", sbridge_probe_switch },
	[SBRIDGE_HOOK_RUNTIME] = { "sched_stat_runtime", sbridge_probe_runtime },
	[SBRIDGE_HOOK_MIGRATE] = { "sched_migrate_task", sbridge_probe_migrate },
	[SBRIDGE_HOOK_RENAME] = { "task_rename", sbridge_probe_rename, true },
	[SBRIDGE_HOOK_CGROUP] = { "cgroup_attach_task", sbridge_probe_cgroup_attach,
			     true },
};

static void sbridge_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < SBRIDGE_NR_HOOKS; i++)
		if (!strcmp(tp->name, sbridge_hooks[i].name))
			sbridge_hooks[i].tp = tp;
}

static int sbridge_hook_register(unsigned int i)
{
	struct sbridge_hook *h = &sbridge_hooks[i];
	int ret;

	ret = tracepoint_probe_register(h->tp, h->probe, NULL);
	if (ret) {
		pr_err("cannot attach to %s: %d\n", h->name, ret);
		return ret;
	}
	h->registered = true;
	return 0;
}

/**
 * sbridge_hooks_exit() - detach every probe and wait for running ones and
 *	for the work they queued
 *
 * Context: process context, sleeps.
 */
void sbridge_hooks_exit(void)
{
	int i;

	for (i = SBRIDGE_NR_HOOKS - 1; i >= 0; i--) {
		struct sbridge_hook *h = &sbridge_hooks[i];

		if (!h->registered)
			continue;
		tracepoint_probe_unregister(h->tp, h->probe, NULL);
		h->registered = false;
	}
	tracepoint_synchronize_unregister();
	/* the rules' re-matches the probes queued, before the task table goes */
	sbridge_rules_drain();
}

/**
 * sbridge_hooks_init() - attach the probes and adopt live tasks
 *
 * Context: process context at init.
 * Return: 0 or a negative errno; on error nothing stays attached.
 */
int sbridge_hooks_init(void)
{
	unsigned int i;
	int ret, n;

	for_each_kernel_tracepoint(sbridge_find_tp, NULL);
	for (i = 0; i < SBRIDGE_NR_HOOKS; i++) {
		if (sbridge_hooks[i].tp)
			continue;
		if (sbridge_hooks[i].optional) {
			pr_warn("tracepoint %s not found: rules are not matched again on it\n",
				sbridge_hooks[i].name);
			continue;
		}
		pr_err("tracepoint %s not found\n", sbridge_hooks[i].name);
		return -ENOENT;
	}
	for (i = SBRIDGE_HOOK_FREE; i <= SBRIDGE_HOOK_EXEC; i++) {
		ret = sbridge_hook_register(i);
		if (ret)
			goto fail;
	}
	n = sbridge_tasks_adopt(sbridge_track_fresh, sbridge_track_adopted);
	for (i = SBRIDGE_HOOK_SWITCH; i < SBRIDGE_NR_HOOKS; i++) {
		if (!sbridge_hooks[i].tp)
			continue;
		ret = sbridge_hook_register(i);
		if (ret)
			goto fail;
	}
	pr_info("hooks attached, %d live tasks adopted\n", n);
	return 0;
fail:
	sbridge_hooks_exit();
	return ret;
}
