// SPDX-License-Identifier: GPL-2.0
/*
 * Work-conserving invariant checker and guard ("The Linux Scheduler: a
 * Decade of Wasted Cores", section 4.1):
 * "no CPU is idle while another CPU has a runnable task waiting that is
 * allowed to run on it".
 *
 * Every S (checker.period_ms, 1 s) one slow pass over the task list under
 * RCU, never in the switch path: a CPU is busy if some task has on_cpu
 * set there, idle otherwise (active CPUs only); a fair task that is
 * TASK_RUNNING, queued and not on a CPU waits on task_cpu(). A candidate
 * violation is an idle CPU i and a busy CPU b with a waiting task whose
 * allowed mask contains i. Affinity decides what counts:
 *  - i in the task's cpus_ptr: a violation the scheduler should fix;
 *  - i only in the mask the task had before sbridge steered it: a
 *    violation sbridge's placement caused;
 *  - i in neither: pinning makes it unavoidable; counted, never reported.
 * A second kind, for heterogeneous machines: a fast CPU idle while a task
 * that gains from it (decision layer speedup >= 1 + act.gain) runs on a
 * slow CPU its own mask lets it leave. The decision layer fixes that on
 * its next run, so such a candidate is confirmed only after two actuator
 * periods; it is reported, and nothing yields for it.
 *
 * A candidate is watched for M (checker.watch_ms, 100 ms): the paper
 * traces migrations, forks and exits during M; whatever they do, what
 * matters is whether the violation is still there at the end, so the
 * pass simply runs again then. The candidate names one task that waits
 * and could use the idle CPU: a fork storm always has some fresh child
 * queued behind a busy CPU for an instant, and a different task each
 * time is churn, not a CPU left idle. If the same idle CPU is still left
 * idle with the same kind of violation and that task is still runnable
 * (waiting, or running beside others that wait) on another CPU, a report
 * is recorded (ring of
 * SBRIDGE_REPORTS), SBRIDGE_EVENT_VIOLATION is multicast, and when
 * placement caused it, placement yields: the tasks get their own masks
 * back and are never steered again.
 *
 * The pass reads other CPUs' task state without their runqueue locks:
 * a single snapshot can be wrong, which is why nothing is reported
 * without the confirmation M later.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"
#include "checker.h"
#include "trace_act.h"

#define SBRIDGE_YIELD_BATCH	8

/**
 * struct sbridge_checker - checker state
 * @lock: protects @reports and @nreports
 * @reports: ring of the last SBRIDGE_REPORTS reports
 * @nreports: reports recorded since load (ring index = nreports % size)
 * @checks: passes run
 * @candidates: violations seen by a pass
 * @transient: candidates gone at the end of M
 * @unavoidable: passes that saw only violations pinning makes unavoidable
 * @yields: tasks placement released on the checker's behalf
 * @watching: a candidate is under watch
 * @cand_idle: its idle CPU
 * @cand_caused: it was caused by sbridge's steering
 * @cand_slower: it is a fast CPU idle while a gaining task runs slow
 * @cand_pid: a task that waited and could use @cand_idle (not for slower)
 * @cand_ns: when it was seen (ktime_get_ns())
 * @busy: scratch: CPUs with a task on them
 * @idle: scratch: active CPUs without
 * @tmp: scratch mask
 * @nwait: scratch: waiting tasks per CPU
 * @any: scratch: union of waiting tasks' cpus_ptr per CPU
 * @user: scratch: union of waiting tasks' own masks (before steering)
 * @gain: scratch: per slow CPU, the own mask of the task running there if
 *	it gains from the fast type (empty otherwise)
 *
 * The ring and counters are written by the work item and read by sysfs
 * and netlink under @lock (counters read racily, single words). Scratch
 * and candidate fields belong to the work item alone.
 */
struct sbridge_checker {
	spinlock_t lock;
	struct sbridge_report reports[SBRIDGE_REPORTS];
	u64 nreports;
	u64 checks, candidates, transient, unavoidable, yields;
	bool watching;
	u32 cand_idle;
	bool cand_caused;
	bool cand_slower;
	pid_t cand_pid;
	u64 cand_ns;
	cpumask_var_t busy, idle, tmp;
	unsigned int *nwait;
	void *any, *user, *gain;
};

static struct sbridge_checker sbridge_chk = {
	.lock = __SPIN_LOCK_UNLOCKED(sbridge_chk.lock),
};

static void sbridge_checker_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(sbridge_checker_work, sbridge_checker_fn);

static struct cpumask *sbridge_chk_mask(void *base, int cpu)
{
	return (struct cpumask *)((char *)base + (size_t)cpu * cpumask_size());
}

/**
 * struct sbridge_violation - result of one pass
 * @found: a violation (avoidable) exists
 * @caused: ... and only the steered masks made it
 * @slower: ... it is a fast CPU idle while a task that gains from it runs
 *	on a slow CPU (nothing waits)
 * @unavoidable: some waiting task could not use an idle CPU by affinity
 * @idle: its idle CPU
 * @busy: its busy CPU
 * @nwait: tasks waiting on @busy
 * @pid: one of them that could use @idle (0 for @slower)
 */
struct sbridge_violation {
	bool found, caused, slower, unavoidable;
	u32 idle, busy, nwait;
	pid_t pid;
};

/* Whether @p's mask (its own one if @caused: before steering) has @cpu. */
static bool sbridge_checker_allows(struct task_struct *p, int cpu, bool caused)
{
	if (caused && sbridge_actuators_user_mask(p, sbridge_chk.tmp))
		return cpumask_test_cpu(cpu, sbridge_chk.tmp);
	return cpumask_test_cpu(cpu, p->cpus_ptr);
}

/* A fair task waiting on @busy that could run on @idle: its pid, or 0. */
static pid_t sbridge_checker_waiter(int busy, int idle, bool caused)
{
	struct task_struct *g, *p;
	pid_t pid = 0;

	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (p == current || task_cpu(p) != busy || READ_ONCE(p->on_cpu) ||
		    !sbridge_task_runnable(p) || !sbridge_fair_policy(p->policy) ||
		    !sbridge_checker_allows(p, idle, caused))
			continue;
		pid = p->pid;
		break;
	}
	rcu_read_unlock();
	return pid;
}

/*
 * The watched task @pid is still runnable on a CPU other than @idle that
 * has more runnable tasks than itself (@busy and nwait of the pass just
 * run), and could still use @idle.
 */
static bool sbridge_checker_still_waits(pid_t pid, int idle, bool caused)
{
	struct task_struct *p;
	bool waits = false;
	int cpu;

	rcu_read_lock();
	p = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID);
	if (p && sbridge_task_runnable(p) && sbridge_fair_policy(p->policy)) {
		cpu = task_cpu(p);
		waits = cpu != idle && cpumask_test_cpu(cpu, sbridge_chk.busy) &&
			sbridge_chk.nwait[cpu] > 0 &&
			sbridge_checker_allows(p, idle, caused);
	}
	rcu_read_unlock();
	return waits;
}

/*
 * @p runs on @cpu: if that is a slow CPU and @p gains from the fast type,
 * remember the mask it could run in (its own, not the one we set).
 */
static void sbridge_checker_gainer(struct task_struct *p, int cpu, u32 gain,
				   const struct cpumask *fast)
{
	struct cpumask *m = sbridge_chk_mask(sbridge_chk.gain, cpu);

	if (!fast || cpumask_test_cpu(cpu, fast) || (p->flags & PF_KTHREAD) ||
	    !sbridge_fair_policy(p->policy) || sbridge_policy_speedup(p) < gain)
		return;
	if (!sbridge_actuators_user_mask(p, m))
		cpumask_copy(m, p->cpus_ptr);
}

/* One snapshot; @want_idle >= 0 restricts the search to that idle CPU. */
static void sbridge_checker_scan(struct sbridge_violation *v, int want_idle)
{
	u32 gain = SBRIDGE_FP_ONE + READ_ONCE(sbridge_act_params.gain);
	const struct cpumask *fast = sbridge_topo.ntypes > 1 ?
		&sbridge_topo.type_mask[sbridge_topo.ref_type] : NULL;
	struct task_struct *g, *p;
	int cpu, b, i, self;

	memset(v, 0, sizeof(*v));
	cpumask_clear(sbridge_chk.busy);
	for_each_possible_cpu(cpu) {
		sbridge_chk.nwait[cpu] = 0;
		cpumask_clear(sbridge_chk_mask(sbridge_chk.any, cpu));
		cpumask_clear(sbridge_chk_mask(sbridge_chk.user, cpu));
		cpumask_clear(sbridge_chk_mask(sbridge_chk.gain, cpu));
	}
	rcu_read_lock();
	for_each_process_thread(g, p) {
		/* Not ourselves (see the end of the pass). */
		if (p == current)
			continue;
		cpu = task_cpu(p);
		if (READ_ONCE(p->on_cpu)) {
			cpumask_set_cpu(cpu, sbridge_chk.busy);
			sbridge_checker_gainer(p, cpu, gain, fast);
			continue;
		}
		if (!task_is_running(p) ||
		    !sbridge_task_queued(p) ||
		    !sbridge_fair_policy(p->policy))
			continue;
		sbridge_chk.nwait[cpu]++;
		cpumask_or(sbridge_chk_mask(sbridge_chk.any, cpu), sbridge_chk_mask(sbridge_chk.any, cpu),
			   p->cpus_ptr);
		if (!sbridge_actuators_user_mask(p, sbridge_chk.tmp))
			cpumask_copy(sbridge_chk.tmp, p->cpus_ptr);
		cpumask_or(sbridge_chk_mask(sbridge_chk.user, cpu), sbridge_chk_mask(sbridge_chk.user, cpu),
			   sbridge_chk.tmp);
	}
	rcu_read_unlock();

	/*
	 * Our own CPU is judged as if we were not there (the work runs on a
	 * bound kworker, so this is the CPU of the whole pass), and so is
	 * every CPU where the walk saw nothing running: idle if nothing
	 * waits there, else one waiting task is the one it runs. The walk
	 * is no snapshot: a task seen asleep early in it may run by the
	 * time its CPU's waiters are seen, and a CPU with a queued task is
	 * at most switching to it, never idle.
	 */
	self = raw_smp_processor_id();
	cpumask_clear_cpu(self, sbridge_chk.busy);
	for_each_cpu(cpu, cpu_active_mask) {
		if (cpumask_test_cpu(cpu, sbridge_chk.busy) ||
		    !sbridge_chk.nwait[cpu])
			continue;
		cpumask_set_cpu(cpu, sbridge_chk.busy);
		sbridge_chk.nwait[cpu]--;
	}
	cpumask_andnot(sbridge_chk.idle, cpu_active_mask, sbridge_chk.busy);
	for_each_cpu(b, sbridge_chk.busy) {
		if (!sbridge_chk.nwait[b])
			continue;
		/* b runs one task and has nwait[b] more: >= 2 runnable. */
		for_each_cpu(i, sbridge_chk.idle) {
			bool in_any = cpumask_test_cpu(i, sbridge_chk_mask(sbridge_chk.any, b));
			bool in_user = cpumask_test_cpu(i, sbridge_chk_mask(sbridge_chk.user, b));

			if (want_idle >= 0 && i != want_idle)
				continue;
			if (!in_any && !in_user) {
				v->unavoidable = true;
				continue;
			}
			/* A scheduler-side violation outranks a steered one. */
			if (v->found && !v->caused)
				continue;
			if (v->found && !in_any)
				continue;
			v->found = true;
			v->caused = !in_any;
			v->idle = i;
			v->busy = b;
			v->nwait = sbridge_chk.nwait[b];
		}
	}
	if (v->found || !fast)
		return;
	/* A fast CPU idle while a task that gains from it runs slow. */
	for_each_cpu(b, sbridge_chk.busy) {
		struct cpumask *m = sbridge_chk_mask(sbridge_chk.gain, b);

		for_each_cpu_and(i, sbridge_chk.idle, fast) {
			if ((want_idle >= 0 && i != want_idle) ||
			    !cpumask_test_cpu(i, m))
				continue;
			v->found = true;
			v->slower = true;
			v->idle = i;
			v->busy = b;
			return;
		}
	}
}

/* Steered tasks waiting on @busy whose own mask has @idle: referenced. */
static int sbridge_checker_culprits(u32 idle, u32 busy, struct task_struct **out,
				    int max)
{
	struct task_struct *g, *p;
	int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (n >= max)
			break;
		if (task_cpu(p) != busy || READ_ONCE(p->on_cpu) ||
		    !task_is_running(p) ||
		    cpumask_test_cpu(idle, p->cpus_ptr) ||
		    !sbridge_actuators_user_mask(p, sbridge_chk.tmp) ||
		    !cpumask_test_cpu(idle, sbridge_chk.tmp))
			continue;
		get_task_struct(p);
		out[n++] = p;
	}
	rcu_read_unlock();
	return n;
}

static void sbridge_checker_report(const struct sbridge_violation *v)
{
	struct task_struct *culprit[SBRIDGE_YIELD_BATCH];
	struct sbridge_report r = {
		.time_ns = ktime_get_ns(),
		.idle_cpu = v->idle,
		.busy_cpu = v->busy,
		.nr_waiting = v->nwait,
		.hints = sbridge_hints_in_force() |
			 (v->caused ? SBRIDGE_HINT_CAUSED : 0) |
			 (v->slower ? SBRIDGE_HINT_SLOWER : 0),
	};
	u32 waited = (u32)min_t(u64, div_u64(r.time_ns - sbridge_chk.cand_ns, NSEC_PER_MSEC),
				U32_MAX);
	char text[96];
	int i, n = 0;

	spin_lock_bh(&sbridge_chk.lock);
	sbridge_chk.reports[sbridge_chk.nreports % SBRIDGE_REPORTS] = r;
	sbridge_chk.nreports++;
	spin_unlock_bh(&sbridge_chk.lock);
	if (v->slower)
		snprintf(text, sizeof(text),
			 "fast cpu%u idle while cpu%u runs a task that gains from it (hints 0x%x)",
			 r.idle_cpu, r.busy_cpu, r.hints);
	else
		snprintf(text, sizeof(text),
			 "cpu%u idle while cpu%u has %u waiting (hints 0x%x)",
			 r.idle_cpu, r.busy_cpu, r.nr_waiting, r.hints);
	pr_info("work-conserving violation: %s\n", text);
	sbridge_event_post(SBRIDGE_EVENT_VIOLATION, text);
	/* slower: the decision layer moves the task on its next run */
	if (v->caused && !v->slower)
		n = sbridge_checker_culprits(v->idle, v->busy, culprit,
					     ARRAY_SIZE(culprit));
	if (!n)
		trace_sbridge_report(r.idle_cpu, r.busy_cpu, waited, NULL,
				     SBRIDGE_TP_REPORT);
	for (i = 0; i < n; i++) {
		trace_sbridge_report(r.idle_cpu, r.busy_cpu, waited, culprit[i],
				     SBRIDGE_TP_YIELD);
		sbridge_actuators_yield(culprit[i]);
		put_task_struct(culprit[i]);
		WRITE_ONCE(sbridge_chk.yields, sbridge_chk.yields + 1);
	}
}

static void sbridge_checker_fn(struct work_struct *w)
{
	unsigned long next = msecs_to_jiffies(READ_ONCE(sbridge_act_params.check_period_ms));
	struct sbridge_violation v;

	if (!READ_ONCE(sbridge_act_params.checker)) {
		sbridge_chk.watching = false;
		goto out;
	}
	if (sbridge_chk.watching) {
		sbridge_chk.watching = false;
		sbridge_checker_scan(&v, sbridge_chk.cand_idle);
		if (v.found && v.caused == sbridge_chk.cand_caused &&
		    v.slower == sbridge_chk.cand_slower &&
		    (v.slower || sbridge_checker_still_waits(sbridge_chk.cand_pid,
							     v.idle, v.caused)))
			sbridge_checker_report(&v);
		else
			WRITE_ONCE(sbridge_chk.transient, sbridge_chk.transient + 1);
		goto out;
	}
	WRITE_ONCE(sbridge_chk.checks, sbridge_chk.checks + 1);
	sbridge_checker_scan(&v, -1);
	if (v.found) {
		WRITE_ONCE(sbridge_chk.candidates, sbridge_chk.candidates + 1);
		if (!v.slower)
			v.pid = sbridge_checker_waiter(v.busy, v.idle, v.caused);
		/* the waiter ran or left between the two walks: nothing to watch */
		if (!v.slower && !v.pid) {
			WRITE_ONCE(sbridge_chk.transient, sbridge_chk.transient + 1);
			goto out;
		}
		sbridge_chk.watching = true;
		sbridge_chk.cand_idle = v.idle;
		sbridge_chk.cand_caused = v.caused;
		sbridge_chk.cand_slower = v.slower;
		sbridge_chk.cand_pid = v.pid;
		sbridge_chk.cand_ns = ktime_get_ns();
		next = msecs_to_jiffies(READ_ONCE(sbridge_act_params.watch_ms));
		/* the decision layer gets two periods to fix a slower one */
		if (v.slower)
			next = max(next, msecs_to_jiffies(2 *
				   READ_ONCE(sbridge_act_params.period_ms)));
	} else if (v.unavoidable) {
		WRITE_ONCE(sbridge_chk.unavoidable, sbridge_chk.unavoidable + 1);
	}
out:
	sbridge_topo_house_queue(&sbridge_checker_work, next ?: 1);
}

/**
 * sbridge_checker_read_counts() - the checker's counters
 * @c: filled (each word read on its own, not as one snapshot)
 */
void sbridge_checker_read_counts(struct sbridge_checker_counts *c)
{
	c->checks = READ_ONCE(sbridge_chk.checks);
	c->candidates = READ_ONCE(sbridge_chk.candidates);
	c->transient = READ_ONCE(sbridge_chk.transient);
	c->reports = READ_ONCE(sbridge_chk.nreports);
	c->unavoidable = READ_ONCE(sbridge_chk.unavoidable);
	c->yields = READ_ONCE(sbridge_chk.yields);
}

/**
 * sbridge_checker_get_report() - a report of the ring, by sequence number
 * @seq: 0 for the first report since load
 * @r: filled if it is still in the ring
 * @end: out, the sequence number the next report will get
 *
 * Context: process context (takes the ring's lock with BHs off).
 * Return: true if @r was filled; false if @seq is not in the ring (yet or
 *	any more).
 */
bool sbridge_checker_get_report(u64 seq, struct sbridge_report *r, u64 *end)
{
	bool in;

	spin_lock_bh(&sbridge_chk.lock);
	*end = sbridge_chk.nreports;
	in = seq < sbridge_chk.nreports && sbridge_chk.nreports - seq <= SBRIDGE_REPORTS;
	if (in)
		*r = sbridge_chk.reports[seq % SBRIDGE_REPORTS];
	spin_unlock_bh(&sbridge_chk.lock);
	return in;
}

/**
 * sbridge_checker_init() - scratch space, start the checker
 *
 * Return: 0 or -ENOMEM.
 */
int sbridge_checker_init(void)
{
	if (!zalloc_cpumask_var(&sbridge_chk.busy, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&sbridge_chk.idle, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&sbridge_chk.tmp, GFP_KERNEL))
		goto nomem;
	sbridge_chk.nwait = kcalloc(nr_cpu_ids, sizeof(*sbridge_chk.nwait), GFP_KERNEL);
	sbridge_chk.any = kvcalloc(nr_cpu_ids, cpumask_size(), GFP_KERNEL);
	sbridge_chk.user = kvcalloc(nr_cpu_ids, cpumask_size(), GFP_KERNEL);
	sbridge_chk.gain = kvcalloc(nr_cpu_ids, cpumask_size(), GFP_KERNEL);
	if (!sbridge_chk.nwait || !sbridge_chk.any || !sbridge_chk.user || !sbridge_chk.gain)
		goto nomem;
	sbridge_topo_house_queue(&sbridge_checker_work,
				 msecs_to_jiffies(READ_ONCE(sbridge_act_params.check_period_ms)));
	return 0;
nomem:
	sbridge_checker_exit();
	return -ENOMEM;
}

/**
 * sbridge_checker_exit() - stop the checker, free the scratch space
 *
 * Context: process context, sleeps. Safe after a partial init.
 */
void sbridge_checker_exit(void)
{
	cancel_delayed_work_sync(&sbridge_checker_work);
	kvfree(sbridge_chk.gain);
	kvfree(sbridge_chk.user);
	kvfree(sbridge_chk.any);
	kfree(sbridge_chk.nwait);
	sbridge_chk.gain = NULL;
	sbridge_chk.user = NULL;
	sbridge_chk.any = NULL;
	sbridge_chk.nwait = NULL;
	free_cpumask_var(sbridge_chk.tmp);
	free_cpumask_var(sbridge_chk.idle);
	free_cpumask_var(sbridge_chk.busy);
}
