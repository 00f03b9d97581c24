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

static u16 sbridge_sat16(u32 v)
{
	return v > 0xfffe ? 0xfffe : v;
}

/* One model sample from @t's window on core type @type. */
static void sbridge_sample_window(struct sbridge_task *t, unsigned int type,
				unsigned int cpu,
				const struct sbridge_source_ops *src)
{
	struct sbridge_cpi c;
	u32 khz = 0, pen;
	unsigned int ph, from;

	if (src->effective_khz)
		khz = src->effective_khz(cpu);
	if (!khz)
		khz = READ_ONCE(per_cpu(sbridge_cpus, cpu).max_khz);
	pen = sbridge_model_penalty_cycles(src->mem_latency_ns ?:
					   SBRIDGE_DEFAULT_MEM_LAT_NS, khz);
	if (sbridge_model_cpi(&t->win, pen, &c))
		return;
	t->cpi[type] = sbridge_sat16(c.cpi);
	t->cpi_stall[type] = sbridge_sat16(c.cpi_stall);
	t->share[type] = c.share_q;
	/* Throughput on this type, for the measured speedup: adds only. */
	WRITE_ONCE(t->tp[type], sbridge_model_tp_add(t->tp[type], c.cpi, khz));
	WRITE_ONCE(t->win_n[type], t->win_n[type] + 1);
	t->flags |= SBRIDGE_TF_LEARNED | SBRIDGE_TF_SAMPLED(type);
	atomic64_inc(&sbridge_stats.samples);
	from = t->ph.cur;
	if (sbridge_phase_update(&t->ph, c.share_q,
				 READ_ONCE(sbridge_params.phase_delta),
				 READ_ONCE(sbridge_params.phase_windows))) {
		atomic64_inc(&sbridge_stats.phase_changes);
		trace_sbridge_phase(t, from, t->ph.cur,
				    t->ph.share[t->ph.cur % SBRIDGE_MAX_PHASES]);
	}
	ph = t->ph.cur % SBRIDGE_MAX_PHASES;
	WRITE_ONCE(t->ph_n[ph], t->ph_n[ph] + 1);
	/* static key: the values are at hand, nothing more is computed */
	trace_sbridge_window(t, cpu, type, &c, khz, t->ph.cur);
}

/* Adds the counts prev accumulated on @cpu to its window; samples if full. */
static void sbridge_sample_account(struct sbridge_task *t, unsigned int cpu,
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
		t->win.misses += d.llc_misses;
	if (d.valid & SBRIDGE_EV_STALL_CYCLES)
		t->win.stall += d.stall_cycles;

	full = t->win.instr >= READ_ONCE(sbridge_params.window_instr);
	if (!full && !t->win.instr)
		full = t->win.cycles >= READ_ONCE(sbridge_params.window_cycles);
	if (!full)
		return;
	if (READ_ONCE(sbridge_params.learning))
		sbridge_sample_window(t, type, cpu, src);
	memset(&t->win, 0, sizeof(t->win));
}

/**
 * sbridge_sample_switch() - context-switch hook (sched_switch)
 * @prev: task leaving @cpu
 * @next: task entering @cpu
 * @cpu: this CPU
 *
 * O(1): two hash lookups, one source read, at most one model sample. No
 * lock, no allocation, no sleeping.
 *
 * Context: runqueue lock held, IRQs off.
 */
void sbridge_sample_switch(struct task_struct *prev, struct task_struct *next,
			 int cpu)
{
	const struct sbridge_source_ops *src;
	struct sbridge_counts d = { 0 };
	struct sbridge_task *t;
	u64 now = local_clock();

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
		t = sbridge_task_lookup(prev);
		if (t) {
			if (t->switch_in_ns && now > t->switch_in_ns)
				t->runtime_ns += now - t->switch_in_ns;
			t->switch_in_ns = 0;
			t->last_cpu = cpu;
			if (src)
				sbridge_sample_account(t, cpu, src, &d);
		} else {
			__this_cpu_inc(sbridge_pcpu_untracked);
		}
	}

	if (!is_idle_task(next)) {
		t = sbridge_task_lookup(next);
		if (t)
			t->switch_in_ns = now;
	}
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
	u64 now;

	if (!gap || p != current || is_idle_task(p))
		return;
	now = local_clock();
	if (now - __this_cpu_read(sbridge_pcpu_read_ns) < gap)
		return;
	__this_cpu_write(sbridge_pcpu_read_ns, now);
	rcu_read_lock();
	src = rcu_dereference(sbridge_source);
	t = sbridge_task_lookup(p);
	if (src && src->read_delta && t) {
		src->read_delta(cpu, &d);
		__this_cpu_inc(sbridge_pcpu_runtime_reads);
		sbridge_sample_account(t, cpu, src, &d);
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
	u64 s = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		s += per_cpu(sbridge_pcpu_runtime_reads, cpu);
	return s;
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
