/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sbridge in-kernel API, for consumers (schedulers, governors, other
 * modules) and for counter sources such as sbridge_pmu.
 *
 * Versioning: SBRIDGE_API_VERSION is bumped whenever a function or a
 * struct below changes; a consumer checks sbridge_api_version() at init.
 * All values use the fixed-point scale of the UAPI (SBRIDGE_FP_ONE == 1.0).
 */
#ifndef _SBRIDGE_SBRIDGE_H
#define _SBRIDGE_SBRIDGE_H

#include <linux/types.h>
#include <linux/list.h>
#include <uapi/linux/sbridge.h>

#define SBRIDGE_API_VERSION	6

struct task_struct;
struct module;
struct delayed_work;

/**
 * struct sbridge_counts - counter deltas a source hands to the core
 * @valid: SBRIDGE_EV_* bits saying which fields below are meaningful
 * @cycles: core cycles
 * @instructions: retired instructions
 * @llc_misses: last-level cache misses
 * @stall_cycles: backend stall cycles
 * @mix: instructions of each class (enum sbridge_mix), valid with
 *	SBRIDGE_EV_MIX: all classes counted over the same stretch as
 *	@instructions
 *
 * Values are already scaled for multiplexing (time enabled / running).
 */
struct sbridge_counts {
	u32 valid;
	u64 cycles;
	u64 instructions;
	u64 llc_misses;
	u64 stall_cycles;
	u64 mix[SBRIDGE_MIX_NR];
};

/**
 * struct sbridge_source_ops - a counter source (e.g. the sbridge_pmu module)
 * @name: short name shown in status
 * @owner: THIS_MODULE
 * @events: SBRIDGE_EV_* bits the source can deliver on this machine
 * @read_delta: called by the core on the local CPU from the sched_switch
 *	hook (preemption and IRQs off, runqueue lock held): fill @delta with
 *	what the counters of @cpu advanced since the previous call on that
 *	CPU. Must not sleep, allocate or take a lock another CPU can hold for
 *	long. May be NULL for a source that only gives frequencies. The task
 *	the delta belongs to is still current when it is called. The core
 *	calls it on every switch, also when the idle task or an untracked
 *	task leaves @cpu (and discards that delta), so that no delta ever
 *	spans two tasks.
 * @effective_khz: the clock @cpu measurably runs at, in kHz (APERF/MPERF,
 *	AMU or the rig's counters, arch_freq_scale where a FIE keeps it,
 *	cpufreq's current frequency), 0 if only a nominal one is known. Same
 *	context rules as @read_delta.
 * @mem_latency_ns: memory latency used for the CPI_stall penalty
 * @clock: where @effective_khz() of @cpu comes from now: an enum
 *	sbridge_clock, and in *@name a short static string naming the source
 *	(e.g. "APERF/MPERF"; the source's memory). May be NULL: the core then
 *	reports SBRIDGE_CLOCK_NONE. Same context rules as @read_delta.
 * @pmu: which PMU the source counts @cpu with: the perf PMU's name
 *	(e.g. "armv8_cortex_a76", "cpu_core", "cpu_atom", "rig_pmu") into
 *	@name (@name_len bytes) and, into @chain (@chain_len bytes), the
 *	event chain it chose there, in the source's words (sbridge_pmu:
 *	its event table's core model and the events it took from it).
 *	Returns false, the buffers untouched, if @cpu counts on no PMU.
 *	May be NULL. Same context rules as @read_delta, but only called
 *	from process context (status and dumps), never from the switch.
 *
 * The core reaches the ops only under RCU; sbridge_unregister_source()
 * waits for every reader to finish before returning, so the source may be
 * unloaded at any moment after it returns.
 *
 * Version 3 added @clock and made @effective_khz measured-only; version 4
 * added struct sbridge_counts.mix (SBRIDGE_EV_MIX); version 5 added @pmu.
 */
struct sbridge_source_ops {
	const char *name;
	struct module *owner;
	u32 events;
	void (*read_delta)(unsigned int cpu, struct sbridge_counts *delta);
	u32 (*effective_khz)(unsigned int cpu);
	u32 mem_latency_ns;
	u32 (*clock)(unsigned int cpu, const char **name);
	bool (*pmu)(unsigned int cpu, char *name, size_t name_len, char *chain,
		    size_t chain_len);
};

/**
 * struct sbridge_consumer - gets told when factors change
 * @factors_changed: called from process context (a workqueue) after the
 *	CPU factors or a workload's learned factors changed; @cpu_mask_changed
 *	is true if CPU factors moved. May sleep.
 * @owner: THIS_MODULE: a consumer whose module goes away still registered
 *	is dropped (with an error in the log) before its memory is freed
 * @node: owned by the core, do not touch
 *
 * Version 2 added @owner; registering twice is -EBUSY.
 */
struct sbridge_consumer {
	void (*factors_changed)(struct sbridge_consumer *c, bool cpu_mask_changed);
	struct module *owner;
	struct list_head node;
};

u32 sbridge_api_version(void);
int sbridge_register_source(const struct sbridge_source_ops *ops);
void sbridge_unregister_source(const struct sbridge_source_ops *ops);
int sbridge_register_consumer(struct sbridge_consumer *c);
void sbridge_unregister_consumer(struct sbridge_consumer *c);
u32 sbridge_task_factor(struct task_struct *p, int cpu);
unsigned long sbridge_task_scaled_load(struct task_struct *p, int cpu,
				       unsigned long load);
u32 sbridge_cpu_freq_hint(int cpu);
/* version 6: a source's periodic work on the CPU where sbridge's run */
bool sbridge_topo_house_queue(struct delayed_work *dw, unsigned long delay);

#endif /* _SBRIDGE_SBRIDGE_H */
