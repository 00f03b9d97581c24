// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling pipeline: on every context switch, and between switches
 * for a task that owns its CPU, read the counter source's deltas for this
 * CPU, add them to the outgoing task's window, and when a window is full
 * turn it into one model sample (CPI stack, throughput on this core type,
 * phase). Runs in scheduler context: O(1), lock-free, no allocation; it
 * only touches the entries of the tasks on this CPU (task.c's table).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include "internal.h"
#include "trace.h"

/* Hot counters of the switch path: per CPU, so no shared cache line. */
static DEFINE_PER_CPU(u64, sbridge_pcpu_switches);
static DEFINE_PER_CPU(u64, sbridge_pcpu_untracked);
/* Counter reads between switches, and when this CPU last read (clock). */
static DEFINE_PER_CPU(u64, sbridge_pcpu_runtime_reads);
static DEFINE_PER_CPU(u64, sbridge_pcpu_read_ns);
/* Windows of each kind closed on this CPU (enum sbridge_win_kind). */
static DEFINE_PER_CPU(u64, sbridge_pcpu_kind[SBRIDGE_WIN_WARM + 1]);
/* Of them, cut short by a migration; and phase changes seen here. */
static DEFINE_PER_CPU(u64, sbridge_pcpu_cut);
static DEFINE_PER_CPU(u64, sbridge_pcpu_phases);
/*
 * The clock this CPU ran at while busy, measured: cycles over the time
 * between two reads, averaged (1/4 per busy stretch of at least
 * SBRIDGE_CLOCK_MIN_NS). The time a window took when no clock source
 * reports one (no cpufreq, a VM, the rig), kHz, 0 until measured.
 */
static DEFINE_PER_CPU(u32, sbridge_pcpu_khz);
#define SBRIDGE_CLOCK_MIN_NS	(100 * NSEC_PER_USEC)

/*
 * The decision layer's kick (actuators.c): queued when a fast core goes
 * idle as its task blocks or exits while tasks that want a fast core wait
 * on slow ones (@sbridge_kick_armed, set by each decision). An irq_work:
 * safe with the runqueue lock held and IRQs off; the work it kicks runs
 * later. Published under RCU (the switch probe reads it with IRQs off).
 */
static struct irq_work __rcu *sbridge_kick;
static bool sbridge_kick_armed;

/**
 * sbridge_sample_kick_set() - who to kick when a fast core goes idle
 * @w: the irq_work to queue, NULL for none
 *
 * Context: process context. Setting NULL is followed by a grace period
 * and irq_work_sync() of the old one by the caller.
 */
void sbridge_sample_kick_set(struct irq_work *w)
{
	rcu_assign_pointer(sbridge_kick, w);
}

/**
 * sbridge_sample_kick_arm() - tasks that want a fast core wait on slow ones
 * @armed: true while the last decision kept such tasks slow
 *
 * Context: the decision work.
 */
void sbridge_sample_kick_arm(bool armed)
{
	if (READ_ONCE(sbridge_kick_armed) != armed)
		WRITE_ONCE(sbridge_kick_armed, armed);
}

/*
 * @prev, holding a fast hint, blocked or exited on fast core @cpu and
 * @next is no fast holder (the idle task, a kernel thread, anything the
 * decision did not put there), while wanters wait: kick the decision.
 * O(1), no lock (the irq_work's own claim is a cmpxchg), under RCU with
 * IRQs off.
 */
static void sbridge_sample_kick(struct task_struct *prev,
				struct task_struct *next, int cpu)
{
	struct sbridge_task *t;
	struct irq_work *w;

	if (!READ_ONCE(sbridge_kick_armed) ||
	    sbridge_cpu_type(cpu) != sbridge_topo.ref_type)
		return;
	t = sbridge_task_lookup(prev);
	if (!t || READ_ONCE(t->hint) != SBRIDGE_HINT_FAST)
		return;
	t = is_idle_task(next) ? NULL : sbridge_task_lookup(next);
	if (t && READ_ONCE(t->hint) == SBRIDGE_HINT_FAST)
		return;
	w = rcu_dereference(sbridge_kick);
	if (w)
		irq_work_queue(w);
}

static u16 sbridge_sat16(u32 v)
{
	return v > 0xfffe ? 0xfffe : v;
}

/* @acc + @v, saturating at U32_MAX */
static u32 sbridge_sat_add32(u32 acc, u64 v)
{
	return v >= U32_MAX - acc ? U32_MAX : acc + (u32)v;
}

/* A busy stretch of @ns on this CPU that counted @d: the measured clock. */
static void sbridge_sample_clock(const struct sbridge_counts *d, u64 ns)
{
	u32 khz, old;

	if (!(d->valid & SBRIDGE_EV_CYCLES) || ns < SBRIDGE_CLOCK_MIN_NS)
		return;
	khz = sbridge_clock_khz(d->cycles, ns);
	old = __this_cpu_read(sbridge_pcpu_khz);
	/* a first read after a source (re)load may span more than @ns */
	if (old && khz / 16 > old)
		khz = old * 16;
	__this_cpu_write(sbridge_pcpu_khz, old ? old - old / 4 + khz / 4 : khz);
}

/**
 * sbridge_sample_khz() - the clock a window on @cpu ran at
 * @cpu: CPU
 * @src: the counter source
 * @ref: out, the clock of @cpu's core type to normalise to (kHz), 0 when
 *	the clock is not one the source reported (then nothing is normalised)
 *
 * In order: the source's measured clock (APERF/MPERF, AMU, cpufreq), the
 * clock measured from cycles over busy time, the type's declared maximum.
 *
 * Context: any; the measured clock is @cpu's own per-CPU value.
 * Return: kHz, 0 if no clock is known.
 */
u32 sbridge_sample_khz(unsigned int cpu, const struct sbridge_source_ops *src,
		       u32 *ref)
{
	u32 khz = src && src->effective_khz ? src->effective_khz(cpu) : 0;

	*ref = 0;
	if (khz) {
		*ref = READ_ONCE(sbridge_topo.type_max_khz[sbridge_cpu_type(cpu)]);
		return khz;
	}
	khz = READ_ONCE(per_cpu(sbridge_pcpu_khz, cpu));
	return khz ?: READ_ONCE(per_cpu(sbridge_cpus, cpu).max_khz);
}

/* Still in its start-up: less than learn.startup_ms of CPU since exec. */
static bool sbridge_sample_startup(const struct sbridge_task *t,
				   const struct task_struct *p)
{
	u64 at = (u64)READ_ONCE(t->exec_run) << SBRIDGE_EXEC_RUN_SHIFT;

	return p->se.sum_exec_runtime <
	       at + (u64)READ_ONCE(sbridge_params.startup_ms) * NSEC_PER_MSEC;
}

/* A warm window on @type: phases and throughput learn. */
static void sbridge_sample_warm(struct sbridge_task *t, unsigned int type,
				u32 share_q, u64 tpi)
{
	unsigned int from = t->est.ph.cur;

	if (sbridge_est_warm(&t->est, type, share_q, tpi,
			     READ_ONCE(sbridge_params.phase_delta),
			     READ_ONCE(sbridge_params.phase_windows),
			     sbridge_task_gain(sbridge_topo.ref_type, 0))) {
		__this_cpu_inc(sbridge_pcpu_phases);
		trace_sbridge_phase(t, from, t->est.ph.cur,
				    sbridge_phase_share(&t->est.ph, t->est.ph.cur, type));
	}
}

/* One model sample from @t's window on core type @type; false if none. */
static bool sbridge_sample_window(struct sbridge_task *t, struct task_struct *p,
				  unsigned int type, unsigned int cpu,
				  const struct sbridge_source_ops *src)
{
	enum sbridge_win_kind kind;
	struct sbridge_cpi c;
	u32 khz, ref, pen, pkhz;
	u64 tpi, stall;

	kind = sbridge_est_classify(&t->est, &t->win,
				    src->events & SBRIDGE_EV_LLC_MISSES,
				    sbridge_sample_startup(t, p));
	/*
	 * The miss penalty is latency x the core's own clock: the reported
	 * one, else the type's declared one (a clock measured in guest time
	 * would not be the one the counted cycles tick at on an emulator).
	 */
	khz = sbridge_sample_khz(cpu, src, &ref);
	pkhz = ref ? khz : READ_ONCE(per_cpu(sbridge_cpus, cpu).max_khz);
	pen = sbridge_model_penalty_cycles(READ_ONCE(sbridge_params.mem_latency_ns) ?:
					   src->mem_latency_ns ?:
					   SBRIDGE_DEFAULT_MEM_LAT_NS, pkhz);
	if (sbridge_model_cpi(&t->win, pen, &c))
		return false;
	__this_cpu_inc(sbridge_pcpu_kind[kind]);
	WRITE_ONCE(t->cpi, sbridge_sat16(c.cpi));
	WRITE_ONCE(t->cpi_stall, sbridge_sat16(c.cpi_stall));
	WRITE_ONCE(t->cpi_type, type);
	t->flags |= SBRIDGE_TF_LEARNED | SBRIDGE_TF_SAMPLED(type);
	stall = ((u64)c.cpi_stall * t->win.instr) >> SBRIDGE_FP_SHIFT;
	tpi = sbridge_window_tpi(&t->win, stall, khz, ref);
	if (kind == SBRIDGE_WIN_WARM)
		sbridge_sample_warm(t, type, c.share_q, tpi);
	/* static key: the values are at hand, nothing more is computed */
	trace_sbridge_window(t, cpu, type, &c, khz, t->est.ph.cur, kind, tpi);
	return true;
}

/* Adds the counts @p accumulated on @cpu to its window; samples if full. */
static void sbridge_sample_account(struct sbridge_task *t, struct task_struct *p,
				   unsigned int cpu,
				   const struct sbridge_source_ops *src,
				   const struct sbridge_counts *dp)
{
	const struct sbridge_counts d = *dp;
	unsigned int type = sbridge_cpu_type(cpu);
	u16 gen = (u16)atomic_read(&sbridge_source_gen);
	bool full;

	if (t->gen != gen || t->win_type != type) {
		memset(&t->win, 0, sizeof(t->win));
		t->gen = gen;
		t->win_type = type;
	}
	if (!(d.valid & SBRIDGE_EV_CYCLES))
		return;
	t->win.cycles += d.cycles;
	if (d.valid & SBRIDGE_EV_INSTRUCTIONS)
		t->win.instr += d.instructions;
	if (d.valid & SBRIDGE_EV_LLC_MISSES)
		t->win.misses = sbridge_sat_add32(t->win.misses, d.llc_misses);
	if (d.valid & SBRIDGE_EV_STALL_CYCLES)
		t->win.stall = sbridge_sat_add32(t->win.stall, d.stall_cycles);
	/* the classes are the code's, not the core's: every delta counts */
	if ((d.valid & SBRIDGE_EV_MIX) && READ_ONCE(sbridge_params.learning))
		sbridge_mix_update(t->mix, d.mix, d.instructions,
				   SBRIDGE_MIX_HIST * READ_ONCE(sbridge_params.window_instr));

	full = sbridge_win_full(&t->win, READ_ONCE(sbridge_params.window_instr),
				READ_ONCE(sbridge_params.window_us),
				__this_cpu_read(sbridge_pcpu_khz));
	if (!full && !t->win.instr)
		full = t->win.cycles >= READ_ONCE(sbridge_params.window_cycles);
	if (!full)
		return;
	if (READ_ONCE(sbridge_params.learning))
		sbridge_sample_window(t, p, type, cpu, src);
	memset(&t->win, 0, sizeof(t->win));
}

/*
 * A window a migration cuts short still measured the stay that ends, on
 * @last, if it retired an eighth of window_instr or spans half of
 * window_us (sbridge_win_cut_ok()): it is sampled as that CPU's. A task
 * on a slow core, the rig's above all (50x slower than the scheduler's
 * clock), can migrate before any window fills and would never be
 * measured; the memory-bound, slowest per instruction, first.
 */
static void sbridge_sample_cut(struct sbridge_task *t, struct task_struct *p,
			       unsigned int last,
			       const struct sbridge_source_ops *src)
{
	if (!src || last >= nr_cpu_ids ||
	    !sbridge_win_cut_ok(&t->win, READ_ONCE(sbridge_params.window_instr),
				READ_ONCE(sbridge_params.window_us),
				READ_ONCE(per_cpu(sbridge_pcpu_khz, last))) ||
	    t->gen != (u16)atomic_read(&sbridge_source_gen) ||
	    t->win_type != sbridge_cpu_type(last) ||
	    !READ_ONCE(sbridge_params.learning))
		return;
	if (sbridge_sample_window(t, p, t->win_type, last, src))
		__this_cpu_inc(sbridge_pcpu_cut);
}

/*
 * @t (@p) is switched in on @cpu: if it ran elsewhere last, it migrated,
 * and what it runs until its caches are warm again tells nothing of this
 * core type. The partial window from the old CPU is sampled there if it
 * is long enough (sbridge_sample_cut()), else dropped; a new core type
 * starts a new stay (a visit, once it has a warm window).
 */
static void sbridge_sample_arrive(struct sbridge_task *t, struct task_struct *p,
				  unsigned int cpu,
				  const struct sbridge_source_ops *src)
{
	unsigned int last = t->last_cpu;

	if (last == cpu)
		return;
	sbridge_sample_cut(t, p, last, src);
	memset(&t->win, 0, sizeof(t->win));
	sbridge_est_arrive(&t->est, last >= nr_cpu_ids ||
			   sbridge_cpu_type(last) != sbridge_cpu_type(cpu),
			   READ_ONCE(sbridge_params.warm_instr));
	t->last_cpu = cpu;
}

/**
 * sbridge_sample_switch() - context-switch hook (sched_switch)
 * @prev: task leaving @cpu
 * @next: task entering @cpu
 * @cpu: this CPU
 * @blocked: @prev sleeps or exits (it was not preempted)
 *
 * O(1): two hash lookups, one source read, at most one model sample, at
 * most one irq_work queued. No lock, no allocation, no sleeping.
 *
 * Context: runqueue lock held, IRQs off.
 */
void sbridge_sample_switch(struct task_struct *prev, struct task_struct *next,
			   int cpu, bool blocked)
{
	const struct sbridge_source_ops *src;
	struct sbridge_counts d = { 0 };
	struct sbridge_task *t;
	u64 now = local_clock(), last = __this_cpu_read(sbridge_pcpu_read_ns);

	__this_cpu_inc(sbridge_pcpu_switches);
	__this_cpu_write(sbridge_pcpu_read_ns, now);
	/*
	 * IRQs are off, which already is an RCU read-side section; the
	 * explicit one documents it and keeps lockdep-RCU quiet.
	 */
	rcu_read_lock();
	src = rcu_dereference(sbridge_source);
	if (src && !src->read_delta)
		src = NULL;
	/*
	 * Always read, even for idle or untracked prev: the delta is what
	 * this CPU ran since the last switch, and must not leak into the
	 * next task's share.
	 */
	if (src)
		src->read_delta(cpu, &d);

	if (!is_idle_task(prev)) {
		if (src && last && now > last)
			sbridge_sample_clock(&d, now - last);
		t = sbridge_task_lookup(prev);
		if (t) {
			if (t->switch_in_ns && now > t->switch_in_ns)
				t->runtime_ns += now - t->switch_in_ns;
			t->switch_in_ns = 0;
			if (src)
				sbridge_sample_account(t, prev, cpu, src, &d);
		} else {
			__this_cpu_inc(sbridge_pcpu_untracked);
		}
	}

	if (!is_idle_task(next)) {
		t = sbridge_task_lookup(next);
		if (t) {
			t->switch_in_ns = now;
			sbridge_sample_arrive(t, next, cpu, src);
		}
	}
	if (blocked && !is_idle_task(prev))
		sbridge_sample_kick(prev, next, cpu);
	rcu_read_unlock();
}

/**
 * sbridge_sample_runtime() - charge the running task's counts between switches
 * @p: task update_curr() just charged runtime to (sched_stat_runtime)
 * @cpu: this CPU
 *
 * A task that owns its CPU is seldom switched out, so its windows would
 * close only at the next switch and its phase would go stale. At most
 * once per tick_ms per CPU this reads the source like a switch does and
 * adds the deltas to @p. update_curr() also runs for a remote runqueue's
 * current task; only @p running here is charged.
 *
 * Context: runqueue lock held, IRQs off. O(1), no lock, no allocation.
 */
void sbridge_sample_runtime(struct task_struct *p, int cpu)
{
	u64 gap = (u64)READ_ONCE(sbridge_params.tick_ms) * NSEC_PER_MSEC;
	const struct sbridge_source_ops *src;
	struct sbridge_counts d = { 0 };
	struct sbridge_task *t;
	u64 now, last;

	if (!gap || p != current || is_idle_task(p))
		return;
	now = local_clock();
	last = __this_cpu_read(sbridge_pcpu_read_ns);
	if (now - last < gap)
		return;
	__this_cpu_write(sbridge_pcpu_read_ns, now);
	rcu_read_lock();
	src = rcu_dereference(sbridge_source);
	t = sbridge_task_lookup(p);
	if (src && src->read_delta && t) {
		src->read_delta(cpu, &d);
		__this_cpu_inc(sbridge_pcpu_runtime_reads);
		sbridge_sample_clock(&d, now - last);
		sbridge_sample_account(t, p, cpu, src, &d);
	}
	rcu_read_unlock();
}

/**
 * sbridge_sample_runtime_reads() - counter reads between switches, all CPUs
 *
 * Return: reads sbridge_sample_runtime() made since load.
 */
u64 sbridge_sample_runtime_reads(void)
{
	return sbridge_pcpu_sum(sbridge_pcpu_runtime_reads);
}

/**
 * sbridge_sample_switches() - sum of the per-CPU switch counters
 * @untracked: out, switches of tasks without an entry (may be NULL)
 *
 * Return: context switches seen since load.
 */
u64 sbridge_sample_switches(u64 *untracked)
{
	u64 s = 0, u = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		s += per_cpu(sbridge_pcpu_switches, cpu);
		u += per_cpu(sbridge_pcpu_untracked, cpu);
	}
	if (untracked)
		*untracked = u;
	return s;
}

/**
 * sbridge_sample_windows_cut() - samples from windows a migration cut short
 *
 * Return: since load, all CPUs.
 */
u64 sbridge_sample_windows_cut(void)
{
	return sbridge_pcpu_sum(sbridge_pcpu_cut);
}

/**
 * sbridge_sample_phase_changes() - phase changes detected since load, all CPUs
 *
 * Return: the count.
 */
u64 sbridge_sample_phase_changes(void)
{
	return sbridge_pcpu_sum(sbridge_pcpu_phases);
}

/**
 * sbridge_sample_kinds() - model windows closed since load, by kind
 * @kind: SBRIDGE_WIN_STARTUP, _COLD or _WARM
 *
 * Return: windows of @kind on all CPUs.
 */
u64 sbridge_sample_kinds(enum sbridge_win_kind kind)
{
	if (kind > SBRIDGE_WIN_WARM)
		return 0;
	return sbridge_pcpu_sum(sbridge_pcpu_kind[kind]);
}

/**
 * sbridge_sample_samples() - model samples taken since load, all CPUs
 *
 * Return: the windows of every kind.
 */
u64 sbridge_sample_samples(void)
{
	u64 s = 0;
	unsigned int k;

	for (k = 0; k <= SBRIDGE_WIN_WARM; k++)
		s += sbridge_sample_kinds(k);
	return s;
}

/**
 * sbridge_sample_cpu_khz() - the clock measured on @cpu while busy
 * @cpu: CPU
 *
 * Return: kHz (cycles over busy time, averaged), 0 if not measured.
 */
u32 sbridge_sample_cpu_khz(unsigned int cpu)
{
	return cpu < nr_cpu_ids ? READ_ONCE(per_cpu(sbridge_pcpu_khz, cpu)) : 0;
}
