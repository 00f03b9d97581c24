// SPDX-License-Identifier: GPL-2.0
/*
 * scx_sbridge: a small sched_ext scheduler placing by sbridge's hints.
 *
 * - select_cpu/enqueue: a task sbridge wants fast goes to an idle CPU of
 *   the fastest core type, one it wants slow to an idle slow CPU; tasks
 *   that find no idle CPU wait in FAST_DSQ (fast wanters) or SHARED_DSQ.
 *   Work-conserving: every CPU takes from both queues (fast CPUs FAST_DSQ
 *   first, slow ones SHARED_DSQ first), and an enqueue kicks an idle CPU,
 *   so a fast CPU never idles while a task waits.
 * - Per-CPU queues (issue 33; the idea from scx_bpfland, see below): a
 *   task whose CPU is of the kind its hint wants waits in that CPU's own
 *   queue (CPU_DSQ), which the CPU takes first, so it resumes warm.
 *   A CPU about to idle steals from the longest other one, a busy one
 *   from one at least two long; a global queue not served for a slice
 *   goes first. A task alone on a slow CPU moves to an idle fast CPU,
 *   a fast wanter also to a fast CPU that runs none (SCX_OPS_ENQ_LAST).
 * - Smove (Gouicem et al., ATC'20): a wakee whose idle target runs at a
 *   low clock (or is of a slow type) while the waker's CPU is fast stays
 *   on the waker's CPU (its SMOVE_DSQ); if it has not run within
 *   smove_delay_ns, the idle target takes it.
 * - SMT-balanced idle search (Mazumdar, RFC 2018) where CPUs have SMT:
 *   per-core busy counts, compare the target's core with one random core,
 *   search only the one with more idle siblings.
 *
 * - Clocks: sched_ext leaves schedutil's per-CPU target at the maximum
 *   unless the scheduler sets one, so ops.tick gives it each CPU's busy
 *   share, smoothed with a half-life of about 30 ms as PELT's utilisation
 *   is (schedutil adds its own 25 % headroom), by scx_bpf_cpuperf_set().
 * - Test only: with stall_pid set, never dispatch that task, so that
 *   the sched_ext watchdog ends the scheduler (tests/scenarios/scx-watchdog.sh).
 *
 * ops.init tells sbridge_core (sbridge_scx_attach()) so its affinity and
 * uclamp actuators stand down; ops.exit, which sched_ext calls however the
 * scheduler leaves (error, watchdog, SysRq-S, the loader closing), gives
 * them back. Without sbridge_core (its kfuncs are weak) it schedules all
 * tasks as having no hint.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sbridge_bpf.h"
#include "scx_sbridge.h"

char _license[] SEC("license") = "GPL";

#define BPF_STRUCT_OPS(name, args...) \
	SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) \
	SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

#define SHARED_DSQ	0
#define FAST_DSQ	1
#define STALL_DSQ	2	/* stall_pid waits here: nothing takes from it */
#define SMOVE_DSQ(cpu)	(16 + (u64)(cpu))
/* each CPU's own queue (issue 33): 128 to 128 + SCX_SBRIDGE_MAX_CPUS - 1 */
#define CPU_DSQ(cpu)	(128 + (u64)(cpu))

#define ENOENT		2
#define CLOCK_MONOTONIC	1

/*
 * Set by the loader. Plain C types: the skeleton (scx_sbridge.skel.h)
 * names them in userspace, which has no u32.
 */
const volatile unsigned int nr_cpus = 1;
const volatile unsigned long long slice_ns = 5000000;
/* Smove: how long a wakee waits on its waker's CPU at most */
const volatile unsigned long long smove_delay_ns = 2000000;
/* a clock below this % of its CPU's maximum is low */
const volatile unsigned int low_clock_pct = 80;
const volatile unsigned int smt;	/* CPUs have SMT siblings */
/* per-CPU queues (the loader's -G clears it: the global queues only) */
const volatile unsigned int cpu_queues = 1;
/*
 * Test only (the loader's -S): never dispatch the task of this pid, so
 * that the sched_ext watchdog ends the scheduler (a runnable task stall).
 */
const volatile int stall_pid;
const volatile unsigned int nr_cores = 1;
/* core of each CPU and the CPUs of each core (-1 past its last) */
const volatile unsigned int cpu_core[SCX_SBRIDGE_MAX_CPUS];
const volatile int core_cpus[SCX_SBRIDGE_MAX_CPUS][SCX_SBRIDGE_MAX_SMT];

struct scx_sbridge_stats stats;
struct scx_sbridge_exit exit_info;

/* per CPU: running tasks of its core (SMT balance), Smove state */
static unsigned int core_busy[SCX_SBRIDGE_MAX_CPUS];
/* oldest wakee waiting on each CPU for Smove (ns), 0: none */
static unsigned long long smove_since[SCX_SBRIDGE_MAX_CPUS];
/* the idle CPU it would have had */
static int smove_target[SCX_SBRIDGE_MAX_CPUS];
/* runs a fast wanter now (ops.running, cleared by ops.stopping) */
static unsigned int running_fast[SCX_SBRIDGE_MAX_CPUS];
/*
 * SHARED_DSQ's and FAST_DSQ's (by id) waiting since: when one last had a
 * task taken, or went from empty to queued (ns, 0: none waits).
 */
static unsigned long long queue_since[2];

/*
 * schedutil's input, per CPU (ops.tick): when the current window started,
 * the busy time in it, when the running task started (0: none runs), the
 * smoothed busy share (of SCX_CPUPERF_ONE). Windows of 8 ms, each moving
 * the share 1/6 of the way (a half-life of 3.8 windows, 30 ms).
 */
#define PERF_WINDOW_NS	8000000ULL
#define PERF_MAX_WINDOWS	16	/* idle longer: as 16 windows */
static unsigned long long perf_win_start[SCX_SBRIDGE_MAX_CPUS];
static unsigned long long perf_busy_ns[SCX_SBRIDGE_MAX_CPUS];
static unsigned long long perf_run_start[SCX_SBRIDGE_MAX_CPUS];
static unsigned int perf_util[SCX_SBRIDGE_MAX_CPUS];

/* pid -> the last hint read for it, for the loader (--hints) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, u32);
	__type(value, struct sbridge_bpf_hint);
} hints SEC(".maps");

/* the timer that hands overdue Smove wakees to their idle target */
struct smove_timer {
	struct bpf_timer t;
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct smove_timer);
} smove_timers SEC(".maps");
static unsigned int smove_armed;

static void stat_inc(unsigned long long *c)
{
	__sync_fetch_and_add(c, 1);
}

/* sbridge's hint for @p (NONE without sbridge_core), kept for the loader */
static u32 task_hint(struct task_struct *p)
{
	struct sbridge_bpf_hint h = {};
	u32 pid = p->pid;

	if (!bpf_ksym_exists(sbridge_task_hint))
		return 0;
	stat_inc(&stats.hint_reads);
	if (sbridge_task_hint(pid, &h, sizeof(h)))
		return 0;
	stat_inc(&stats.hint_found);
	bpf_map_update_elem(&hints, &pid, &h, BPF_ANY);
	return h.hint;
}

static bool cpu_info(s32 cpu, struct sbridge_bpf_cpu *c)
{
	if (!bpf_ksym_exists(sbridge_cpu_info))
		return false;
	return !sbridge_cpu_info(cpu, c, sizeof(*c));
}

static bool cpu_fast(s32 cpu)
{
	struct sbridge_bpf_cpu c = {};

	return cpu_info(cpu, &c) && c.ntypes > 1 && c.fast;
}

/*
 * May a task with @hint wait in @cpu's own queue: @cpu is of the fastest
 * type for a fast wanter, of a slower one for the others, or all CPUs
 * are of one type (or without sbridge_core: no types known).
 */
static bool cpu_suits(s32 cpu, u32 hint)
{
	struct sbridge_bpf_cpu c = {};

	if (!cpu_info(cpu, &c) || c.ntypes <= 1)
		return true;
	return hint == SBRIDGE_BPF_HINT_FAST ? c.fast : !c.fast;
}

static bool stalled(const struct task_struct *p)
{
	return stall_pid && p->pid == stall_pid;
}

/* Runs @cpu at a low clock (or is it of a slower type)? */
static bool cpu_slow_now(s32 cpu)
{
	struct sbridge_bpf_cpu c = {};

	if (!cpu_info(cpu, &c))
		return false;
	if (c.ntypes > 1 && !c.fast)
		return true;
	return c.cur_khz && c.max_khz &&
	       (u64)c.cur_khz * 100 < (u64)c.max_khz * low_clock_pct;
}

/* Runs @cpu at its top clock (or is it of the fastest type)? */
static bool cpu_fast_now(s32 cpu)
{
	struct sbridge_bpf_cpu c = {};

	if (!cpu_info(cpu, &c))
		return false;
	if (c.ntypes > 1)
		return c.fast;
	return c.cur_khz && c.max_khz &&
	       (u64)c.cur_khz * 100 >= (u64)c.max_khz * low_clock_pct;
}

/* An idle CPU of the wanted kind @fast that @p may use, from @prev on. */
static s32 pick_idle_kind(struct task_struct *p, s32 prev, bool fast)
{
	u32 i;

	for (i = 0; i < SCX_SBRIDGE_MAX_CPUS && i < nr_cpus; i++) {
		s32 cpu = (prev + i) % nr_cpus;

		if (cpu < 0 || cpu_fast(cpu) != fast ||
		    !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (scx_bpf_test_and_clear_cpu_idle(cpu))
			return cpu;
	}
	return -1;
}

/* Idle siblings of @core now. */
static s32 core_idle(u32 core)
{
	u32 n = 0, i;

	if (core >= SCX_SBRIDGE_MAX_CPUS)
		return 0;
	for (i = 0; i < SCX_SBRIDGE_MAX_SMT; i++)
		if (core_cpus[core][i] >= 0)
			n++;
	return (s32)n - (s32)core_busy[core];
}

/* Seed 002: the better of @prev's core and one random core, searched alone. */
static s32 pick_idle_smt(struct task_struct *p, s32 prev)
{
	u32 core, other, i;

	if (prev < 0 || prev >= SCX_SBRIDGE_MAX_CPUS || !nr_cores)
		return -1;
	core = cpu_core[prev];
	other = bpf_get_prandom_u32() % nr_cores;
	if (core_idle(other) > core_idle(core))
		core = other;
	if (core >= SCX_SBRIDGE_MAX_CPUS)
		return -1;
	stat_inc(&stats.smt_searches);
	for (i = 0; i < SCX_SBRIDGE_MAX_SMT; i++) {
		s32 cpu = core_cpus[core][i];

		if (cpu < 0 || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		if (scx_bpf_test_and_clear_cpu_idle(cpu))
			return cpu;
	}
	return -1;
}

static void smove_arm(void)
{
	struct smove_timer *st;
	u32 key = 0;

	if (__sync_val_compare_and_swap(&smove_armed, 0, 1))
		return;
	st = bpf_map_lookup_elem(&smove_timers, &key);
	if (st)
		bpf_timer_start(&st->t, smove_delay_ns, 0);
}

/*
 * Seed 000: @p woken by the task on @waker's CPU, @target idle at a low
 * clock: queue @p on the waker's CPU, which runs it when the waker
 * blocks; the timer hands it to @target if that takes longer than
 * smove_delay_ns. Returns true if it did.
 */
static bool smove(struct task_struct *p, s32 waker, s32 target, u64 wake_flags)
{
	u64 now;

	if (!smove_delay_ns || waker < 0 || waker >= SCX_SBRIDGE_MAX_CPUS ||
	    waker == target ||
	    !(wake_flags & (SCX_WAKE_TTWU | SCX_WAKE_FORK)) ||
	    !bpf_cpumask_test_cpu(waker, p->cpus_ptr) ||
	    !cpu_fast_now(waker) || !cpu_slow_now(target))
		return false;
	now = bpf_ktime_get_ns();
	if (!scx_bpf_dsq_nr_queued(SMOVE_DSQ(waker)) || !smove_since[waker])
		smove_since[waker] = now;
	smove_target[waker] = target;
	scx_bpf_dsq_insert(p, SMOVE_DSQ(waker), slice_ns, 0);
	stat_inc(&stats.smove_kept);
	smove_arm();
	return true;
}

s32 BPF_STRUCT_OPS(sbridge_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	s32 waker = bpf_get_smp_processor_id();
	u32 hint = task_hint(p);
	bool idle = false;
	s32 cpu = -1;

	if (stalled(p))
		return prev_cpu;	/* to sbridge_enqueue(), not a local DSQ */
	if (hint == SBRIDGE_BPF_HINT_FAST || hint == SBRIDGE_BPF_HINT_SLOW) {
		cpu = pick_idle_kind(p, prev_cpu, hint == SBRIDGE_BPF_HINT_FAST);
		if (cpu >= 0) {
			stat_inc(hint == SBRIDGE_BPF_HINT_FAST ? &stats.fast_placed :
				 &stats.slow_placed);
			idle = true;
		}
	}
	if (cpu < 0 && smt) {
		cpu = pick_idle_smt(p, prev_cpu);
		idle = cpu >= 0;
	}
	if (cpu < 0)
		cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &idle);
	if (!idle)
		return cpu;
	/* the idle CPU is ours now: give it back if Smove keeps @p */
	if (hint != SBRIDGE_BPF_HINT_SLOW && smove(p, waker, cpu, wake_flags)) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return waker;
	}
	scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
	return cpu;
}

/* Wake an idle CPU that can run @p: a fast one first for a fast wanter. */
static void kick_idle(struct task_struct *p, bool fast)
{
	s32 cpu = -1;

	if (fast)
		cpu = pick_idle_kind(p, 0, true);
	if (cpu < 0)
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0)
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
}

/*
 * @p is alone on @cpu, a slow CPU, and its slice ended: move it to a fast
 * CPU that is idle (any task: the last tasks of a workload would
 * otherwise run on slow CPUs beside an idle fast one, where the fair
 * class's misfit migration moves them), or, a fast wanter, to one that
 * runs no fast wanter and has none queued, preempting what runs there
 * (that task then queues as any other). Nothing else would make it
 * leave: no other task comes to its CPU's own queue. Returns true if it
 * did.
 */
static bool misfit_move(struct task_struct *p, s32 cpu, bool fast)
{
	u32 i;

	if (cpu_fast(cpu))
		return false;
	for (i = 0; i < SCX_SBRIDGE_MAX_CPUS && i < nr_cpus; i++) {
		if (!cpu_fast(i) || !bpf_cpumask_test_cpu(i, p->cpus_ptr))
			continue;
		if (scx_bpf_test_and_clear_cpu_idle(i)) {
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | i, slice_ns, 0);
			stat_inc(&stats.up_idle);
		} else if (fast && !running_fast[i] &&
			   !scx_bpf_dsq_nr_queued(CPU_DSQ(i)) &&
			   !scx_bpf_dsq_nr_queued(SMOVE_DSQ(i))) {
			scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | i, slice_ns, SCX_ENQ_PREEMPT);
			stat_inc(&stats.misfit);
		} else {
			continue;
		}
		scx_bpf_kick_cpu(i, SCX_KICK_IDLE);
		return true;
	}
	return false;
}

/* Queue @p on @dsq, SHARED_DSQ or FAST_DSQ, and note since when it waits. */
static void queue_global(struct task_struct *p, u64 dsq, u64 enq_flags)
{
	scx_bpf_dsq_insert(p, dsq, slice_ns, enq_flags);
	if (!queue_since[dsq & 1])
		queue_since[dsq & 1] = bpf_ktime_get_ns();
}

void BPF_STRUCT_OPS(sbridge_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu = scx_bpf_task_cpu(p);
	bool fast;
	u32 hint;

	if (stalled(p)) {
		scx_bpf_dsq_insert(p, STALL_DSQ, slice_ns, enq_flags);
		stat_inc(&stats.stalled);
		return;
	}
	/*
	 * A task that may run on one CPU only (a per-CPU kthread, a task
	 * pinned by its user) waits on that CPU's own queue, which runs
	 * before either shared one: in SHARED_DSQ a fast CPU that always
	 * finds a fast wanter in FAST_DSQ would never take it (a cpuhp
	 * thread starved so for 21 s in a test version, and the rmmod that
	 * waited for it hung).
	 */
	if (p->nr_cpus_allowed == 1) {
		s32 only = bpf_cpumask_first(p->cpus_ptr);

		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL_ON | only, slice_ns, enq_flags);
		stat_inc(&stats.enq_pinned);
		scx_bpf_kick_cpu(only, SCX_KICK_IDLE);
		return;
	}
	hint = task_hint(p);
	fast = hint == SBRIDGE_BPF_HINT_FAST;
	/*
	 * Its slice ended and nothing else wants @cpu (SCX_OPS_ENQ_LAST,
	 * set with cpu_queues): it runs on, unless a fast CPU can take it.
	 */
	if (enq_flags & SCX_ENQ_LAST) {
		if (misfit_move(p, cpu, fast))
			return;
		/*
		 * The CPU has chosen to idle by now: the kick, handled once
		 * it idles, makes it run @p again. With the slice sched_ext
		 * refills when it keeps a task itself (SCX_SLICE_DFL, 20 ms):
		 * a round through idle every 5 ms would cost more.
		 */
		scx_bpf_dsq_insert(p, SCX_DSQ_LOCAL, SCX_SLICE_DFL, enq_flags);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	if (cpu_queues && cpu >= 0 && cpu < SCX_SBRIDGE_MAX_CPUS && (u32)cpu < nr_cpus &&
	    bpf_cpumask_test_cpu(cpu, p->cpus_ptr) && cpu_suits(cpu, hint)) {
		scx_bpf_dsq_insert(p, CPU_DSQ(cpu), slice_ns, enq_flags);
		stat_inc(&stats.enq_cpu);
		/* its CPU if idle, else any idle CPU, which steals it */
		if (scx_bpf_test_and_clear_cpu_idle(cpu))
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		else
			kick_idle(p, fast);
		return;
	}
	queue_global(p, fast ? FAST_DSQ : SHARED_DSQ, enq_flags);
	stat_inc(fast ? &stats.enq_fast : &stats.enq_shared);
	kick_idle(p, fast);
}

/* Take an overdue Smove wakee whose idle target was @cpu. */
static bool smove_steal(s32 cpu)
{
	u64 now = bpf_ktime_get_ns();
	u32 i;

	for (i = 0; i < SCX_SBRIDGE_MAX_CPUS && i < nr_cpus; i++) {
		u64 since = smove_since[i];

		if (!since || now - since < smove_delay_ns)
			continue;
		if (scx_bpf_dsq_move_to_local(SMOVE_DSQ(i))) {
			stat_inc(&stats.smove_moved);
			if (!scx_bpf_dsq_nr_queued(SMOVE_DSQ(i)))
				smove_since[i] = 0;
			return true;
		}
	}
	return false;
}

/* Take a task from @dsq, SHARED_DSQ or FAST_DSQ, and note when. */
static bool take_global(u64 dsq)
{
	if (!scx_bpf_dsq_move_to_local(dsq))
		return false;
	queue_since[dsq & 1] = scx_bpf_dsq_nr_queued(dsq) ? bpf_ktime_get_ns() : 0;
	return true;
}

/*
 * Has @dsq, SHARED_DSQ or FAST_DSQ, had tasks waiting for a slice with
 * none taken? Then it goes before the CPU's own queue, which could
 * otherwise starve it (scx_bpfland's starvation_thresh_ns).
 */
static bool overdue(u64 dsq)
{
	unsigned long long since = queue_since[dsq & 1], now;

	if (!scx_bpf_dsq_nr_queued(dsq))
		return false;
	now = bpf_ktime_get_ns();
	if (!since) {
		queue_since[dsq & 1] = now;
		return false;
	}
	return now - since >= slice_ns;
}

/*
 * Take a task from another CPU's own queue, the longest (as scx_lavd's
 * pick_most_loaded_dsq() picks the per-CPU queue to steal from): any
 * when @cpu would go idle (work-conserving); one at least two long when
 * @cpu would keep running @prev (balance), unless @cpu is fast and @prev
 * a fast wanter, which keeps the CPU it wants.
 */
static bool cpu_steal(s32 cpu, struct task_struct *prev, bool fast)
{
	bool busy = prev && (prev->scx.flags & SCX_TASK_QUEUED);
	s32 best = -1, most = busy ? 1 : 0;
	u32 i;

	if (busy && fast && running_fast[cpu & (SCX_SBRIDGE_MAX_CPUS - 1)])
		return false;
	for (i = 0; i < SCX_SBRIDGE_MAX_CPUS && i < nr_cpus; i++) {
		s32 n;

		if (i == (u32)cpu)
			continue;
		n = scx_bpf_dsq_nr_queued(CPU_DSQ(i));
		if (n > most) {
			most = n;
			best = i;
		}
	}
	if (best < 0 || !scx_bpf_dsq_move_to_local(CPU_DSQ(best)))
		return false;
	stat_inc(busy ? &stats.cpu_balanced : &stats.cpu_stolen);
	return true;
}

void BPF_STRUCT_OPS(sbridge_dispatch, s32 cpu, struct task_struct *prev)
{
	bool fast = cpu_fast(cpu);
	u64 mine = fast ? FAST_DSQ : SHARED_DSQ;
	u32 me;

	if (cpu < 0 || cpu >= SCX_SBRIDGE_MAX_CPUS)
		return;
	me = (u32)cpu & (SCX_SBRIDGE_MAX_CPUS - 1);	/* a bound the verifier keeps */
	if (scx_bpf_dsq_move_to_local(SMOVE_DSQ(me))) {
		stat_inc(&stats.smove_ran);
		if (!scx_bpf_dsq_nr_queued(SMOVE_DSQ(me)))
			smove_since[me] = 0;
		return;
	}
	if (cpu_queues) {
		if (overdue(mine) && take_global(mine)) {
			stat_inc(&stats.overdue);
			return;
		}
		if (scx_bpf_dsq_move_to_local(CPU_DSQ(me))) {
			stat_inc(&stats.cpu_ran);
			return;
		}
	}
	if (take_global(mine))
		return;
	if (take_global(fast ? SHARED_DSQ : FAST_DSQ)) {
		if (!fast)
			stat_inc(&stats.overflow);
		return;
	}
	if (smove_steal(cpu))
		return;
	if (cpu_queues)
		cpu_steal(cpu, prev, fast);
}

void BPF_STRUCT_OPS(sbridge_running, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);

	if (cpu >= 0 && cpu < SCX_SBRIDGE_MAX_CPUS) {
		u32 pid = p->pid, me = (u32)cpu & (SCX_SBRIDGE_MAX_CPUS - 1);
		struct sbridge_bpf_hint *h;

		perf_run_start[me] = bpf_ktime_get_ns();
		/* the hint last read for it (no kfunc call here) */
		h = bpf_map_lookup_elem(&hints, &pid);
		running_fast[me] = h && h->hint == SBRIDGE_BPF_HINT_FAST;
	}
	if (smt && cpu >= 0 && cpu < SCX_SBRIDGE_MAX_CPUS) {
		u32 core = cpu_core[cpu];

		if (core < SCX_SBRIDGE_MAX_CPUS)
			__sync_fetch_and_add(&core_busy[core], 1);
	}
}

void BPF_STRUCT_OPS(sbridge_stopping, struct task_struct *p, bool runnable)
{
	s32 cpu = scx_bpf_task_cpu(p);

	if (cpu >= 0 && cpu < SCX_SBRIDGE_MAX_CPUS) {
		running_fast[cpu] = 0;
		if (perf_run_start[cpu]) {
			perf_busy_ns[cpu] += bpf_ktime_get_ns() - perf_run_start[cpu];
			perf_run_start[cpu] = 0;
		}
	}
	if (smt && cpu >= 0 && cpu < SCX_SBRIDGE_MAX_CPUS) {
		u32 core = cpu_core[cpu];

		if (core < SCX_SBRIDGE_MAX_CPUS && core_busy[core])
			__sync_fetch_and_sub(&core_busy[core], 1);
	}
}

/*
 * At a CPU's tick once PERF_WINDOW_NS passed: its busy share since the
 * window started (idle time included), one smoothing step per window
 * elapsed, as the CPU's performance target. schedutil takes it as the
 * CPU's utilisation (and adds its 25 % headroom).
 */
void BPF_STRUCT_OPS(sbridge_tick, struct task_struct *p)
{
	s32 cpu = scx_bpf_task_cpu(p);
	unsigned long long now = bpf_ktime_get_ns(), span, busy;
	unsigned int share, util, i;

	if (cpu < 0 || cpu >= SCX_SBRIDGE_MAX_CPUS)
		return;
	if (!perf_win_start[cpu]) {
		perf_win_start[cpu] = now;
		return;
	}
	span = now - perf_win_start[cpu];
	if (span < PERF_WINDOW_NS)
		return;
	busy = perf_busy_ns[cpu];
	if (perf_run_start[cpu]) {
		busy += now - perf_run_start[cpu];
		perf_run_start[cpu] = now;
	}
	share = busy >= span ? SCX_CPUPERF_ONE : busy * SCX_CPUPERF_ONE / span;
	util = perf_util[cpu];
	for (i = 0; i < PERF_MAX_WINDOWS && i * PERF_WINDOW_NS < span; i++)
		util = util - util / 6 + share / 6;
	perf_util[cpu] = util;
	scx_bpf_cpuperf_set(cpu, util);
	perf_busy_ns[cpu] = 0;
	perf_win_start[cpu] = now;
}

/* Kick the idle targets of overdue Smove wakees; again while any wait. */
static int smove_timer_fn(void *map, int *key, struct bpf_timer *timer)
{
	u64 now = bpf_ktime_get_ns();
	bool pending = false;
	u32 i;

	for (i = 0; i < SCX_SBRIDGE_MAX_CPUS && i < nr_cpus; i++) {
		u64 since = smove_since[i];

		if (!since)
			continue;
		pending = true;
		if (now - since >= smove_delay_ns && smove_target[i] >= 0)
			scx_bpf_kick_cpu(smove_target[i], SCX_KICK_IDLE);
	}
	if (pending)
		bpf_timer_start(timer, smove_delay_ns, 0);
	else
		smove_armed = 0;
	return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(sbridge_init)
{
	struct smove_timer *st;
	u32 key = 0, i;
	s32 ret;

	ret = scx_bpf_create_dsq(SHARED_DSQ, -1);
	if (!ret)
		ret = scx_bpf_create_dsq(FAST_DSQ, -1);
	if (!ret)
		ret = scx_bpf_create_dsq(STALL_DSQ, -1);
	for (i = 0; !ret && i < SCX_SBRIDGE_MAX_CPUS && i < nr_cpus; i++)
		ret = scx_bpf_create_dsq(SMOVE_DSQ(i), -1);
	for (i = 0; !ret && cpu_queues && i < SCX_SBRIDGE_MAX_CPUS && i < nr_cpus; i++)
		ret = scx_bpf_create_dsq(CPU_DSQ(i), -1);
	if (ret)
		return ret;
	st = bpf_map_lookup_elem(&smove_timers, &key);
	if (!st)
		return -ENOENT;
	bpf_timer_init(&st->t, &smove_timers, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&st->t, smove_timer_fn);
	if (bpf_ksym_exists(sbridge_scx_attach)) {
		sbridge_scx_attach();
		exit_info.attached = 1;
	}
	return 0;
}

void BPF_STRUCT_OPS(sbridge_exit, struct scx_exit_info *ei)
{
	if (exit_info.attached && bpf_ksym_exists(sbridge_scx_detach))
		sbridge_scx_detach();
	exit_info.kind = ei->kind;
	exit_info.exit_code = ei->exit_code;
	bpf_probe_read_kernel_str(exit_info.reason, sizeof(exit_info.reason), ei->reason);
	bpf_probe_read_kernel_str(exit_info.msg, sizeof(exit_info.msg), ei->msg);
	exit_info.exited = 1;
}

SEC(".struct_ops.link")
struct sched_ext_ops sbridge_ops = {
	.select_cpu	= (void *)sbridge_select_cpu,
	.enqueue	= (void *)sbridge_enqueue,
	.dispatch	= (void *)sbridge_dispatch,
	.running	= (void *)sbridge_running,
	.stopping	= (void *)sbridge_stopping,
	.tick		= (void *)sbridge_tick,
	.init		= (void *)sbridge_init,
	.exit		= (void *)sbridge_exit,
	.timeout_ms	= 10000,
	/* ops.enqueue sees a task whose slice ended with nothing else to run */
	.flags		= SCX_OPS_ENQ_LAST,
	.name		= "sbridge",
};
