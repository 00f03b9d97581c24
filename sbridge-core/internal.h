/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of sbridge_core. Nothing here is
 * visible to other modules: the exported API is include/sbridge/sbridge.h.
 */
#ifndef _SBRIDGE_CORE_INTERNAL_H
#define _SBRIDGE_CORE_INTERNAL_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/rhashtable-types.h>
#include <linux/rcupdate.h>
#include <linux/percpu.h>
#include <linux/moduleparam.h>
#include <linux/spinlock_types.h>
#include <sbridge/sbridge.h>
#include "model.h"
#include "speedup.h"
#include "mixpred.h"

#define SBRIDGE_EV_ALL		(SBRIDGE_EV_CYCLES | SBRIDGE_EV_INSTRUCTIONS | \
				 SBRIDGE_EV_LLC_MISSES | SBRIDGE_EV_STALL_CYCLES | \
				 SBRIDGE_EV_MIX)
/* Events without which no CPI can be computed. */
#define SBRIDGE_EV_LEARN	(SBRIDGE_EV_CYCLES | SBRIDGE_EV_INSTRUCTIONS)
#define SBRIDGE_DEFAULT_MEM_LAT_NS	80

/* ---- source.c ---- */
extern const struct sbridge_source_ops __rcu *sbridge_source;
extern atomic_t sbridge_source_gen;
u32 sbridge_source_describe(char *name, size_t len);
u32 sbridge_source_events(void);
u32 sbridge_source_effective_khz(unsigned int cpu);
u32 sbridge_source_clock(unsigned int cpu, char *name, size_t len);
bool sbridge_source_pmu(unsigned int cpu, char *name, size_t name_len,
			char *chain, size_t chain_len);
const char *sbridge_status_message(u32 events, bool has_source);
int sbridge_source_init(void);
void sbridge_source_exit(void);

/* ---- predictor.c: the mix predictor's coefficients ---- */
extern struct kobj_attribute sbridge_predictor_attr;
int sbridge_predictor_get(unsigned int fast, unsigned int slow,
			  struct sbridge_mixcoef *c);
const char *sbridge_predictor_describe(char *buf, size_t len, u32 events);
void sbridge_predictor_set_memrate(bool on_fast, const struct sbridge_memrate *r);
void sbridge_predictor_memrate(bool on_fast, struct sbridge_memrate *r);
void sbridge_predictor_exit(void);
/* Instructions a task's class shares remember, in windows (window_instr). */
#define SBRIDGE_MIX_HIST	4

/* ---- api.c ---- */
void sbridge_consumers_notify(bool cpu_mask_changed);
int sbridge_api_init(void);
void sbridge_api_exit(void);

/* ---- topology.c ---- */
#define SBRIDGE_MODEL_LEN	24
#define SBRIDGE_CACHE_LEVELS	3

/**
 * struct sbridge_cpu - what the core knows about one CPU
 * @type: core type index, 0 == lowest capacity
 * @cluster: cluster id (arch topology, else package id)
 * @orig_capacity: the kernel's capacity of the CPU (at load, then as the
 *	kernel changes it: sbridge_topo_follow_locked())
 * @max_khz: maximum frequency (cpufreq), 0 if unknown (filled in when a
 *	cpufreq driver arrives after load)
 * @cap_written: capacity sbridge's capacity actuator wrote into cpu_scale,
 *	0 if none (its own value is not taken for the kernel's)
 * @factor_override: user CPU factor (fp), 0 == none
 * @factor: nominal CPU factor (fp): override, else Cap(ref/type)
 * @factor_eff: effective CPU factor (fp): @factor scaled by the current/max
 *	frequency of the reference type over this CPU's
 * @freq_ratio: current/max frequency at the last refresh (fp), 0 unknown
 * @model: MIDR "implementer:part" on arm64, "family:model:hybrid" on x86
 * @cache_kb: data/unified cache size per level (L1..L3) in KiB, 0 unknown
 * @type_from: how @type was found, enum sbridge_types_from
 *
 * Per CPU. @type, @type_from, @cluster, @model and @cache_kb are written once at
 * load; the rest is written under sbridge_topo_lock (@freq_ratio and
 * @cap_written are only used there); @orig_capacity, @max_khz, @factor
 * and @factor_eff are read locklessly with READ_ONCE() (aligned u32s).
 */
struct sbridge_cpu {
	u8 type;
	u32 cluster;
	u32 orig_capacity;
	u32 max_khz;
	u32 cap_written;
	u32 factor_override;
	u32 factor;
	u32 factor_eff;
	u32 freq_ratio;
	char model[SBRIDGE_MODEL_LEN];
	u32 cache_kb[SBRIDGE_CACHE_LEVELS];
	u32 type_from;
};
DECLARE_PER_CPU(struct sbridge_cpu, sbridge_cpus);

/**
 * struct sbridge_topology - core types found at load
 * @ntypes: number of core types (>= 1)
 * @declared: the types were declared by the user (cpu_types=)
 * @from: how they were found, enum sbridge_types_from
 * @ref_type: reference core type k of the model (the biggest)
 * @type_capacity: nominal capacity per type (mean of its CPUs)
 * @type_max_khz: highest max frequency per type
 * @type_mask: CPUs of each type
 *
 * Written at init. The types and their CPUs stay until unload;
 * @type_capacity and @type_max_khz follow the kernel's later
 * changes under sbridge_topo_lock (sbridge_topo_follow_locked()), and
 * @type_capacity and @type_max_khz are read with READ_ONCE().
 */
struct sbridge_topology {
	unsigned int ntypes;
	bool declared;
	u32 from;
	unsigned int ref_type;
	u32 type_capacity[SBRIDGE_MAX_CORE_TYPES];
	u32 type_max_khz[SBRIDGE_MAX_CORE_TYPES];
	struct cpumask type_mask[SBRIDGE_MAX_CORE_TYPES];
};
extern struct sbridge_topology sbridge_topo;
int sbridge_topology_init(void);
void sbridge_topology_exit(void);
int sbridge_set_cpu_factor(const struct cpumask *mask, u32 factor);
bool sbridge_topo_write_capacity(int cpu, unsigned long old, unsigned long cap,
				 bool ours);
u32 sbridge_type_factor(unsigned int type);
u32 sbridge_type_factor_nominal(unsigned int type);
u32 sbridge_type_factor_user(unsigned int type);
u32 sbridge_type_reach(unsigned int type);
bool sbridge_topo_regroup_pending(void);
unsigned int sbridge_topo_cpu_type(int cpu, u32 *from);
struct delayed_work;
bool sbridge_topo_house_kick(struct delayed_work *dw, unsigned long delay);

static inline unsigned int sbridge_cpu_type(int cpu)
{
	return per_cpu(sbridge_cpus, cpu).type;
}

/* ---- task.c ---- */
/* struct sbridge_task.got of a task not planned lately. */
#define SBRIDGE_GOT_NONE	0xffff

/**
 * struct sbridge_task - per-task state
 * @node: rhashtable linkage, keyed by @task
 * @task: the task (key only; never dereferenced after its free hook)
 * @rcu: deferred free
 * @comm: task name (at fork, exec, or the last rename): rule input and
 *	workload key of the matrix
 * @exe_hash: jhash of the executable path at the last exec, 0 if unknown
 * @uid: real uid at the last exec/fork (with SBRIDGE_TF_PRIVATE: who may
 *	see the entry without CAP_PERFMON); also its matrix scope
 * @pid: pid, for reporting
 * @class: enum sbridge_task_class in force (rule or AUTO)
 * @pref: enum sbridge_pref from a rule
 * @flags: SBRIDGE_TF_*
 * @last_cpu: CPU it last ran on
 * @gen: source generation the window was started under
 * @win: counter deltas accumulated on the current core type
 * @win_type: core type @win belongs to
 * @est: what the task learns of its own speed: phases, warm-up, the time
 *	per instruction of its warm windows per core type and phase, visits
 *	(speedup.h)
 * @cpi: CPI of the last model window (fp)
 * @cpi_stall: CPI_stall of the last model window (fp)
 * @cpi_type: core type of the last model window
 * @mix: the task's instruction-class shares (enum sbridge_mix,
 *	SBRIDGE_MIX_ONE == 1.0), a mean over its recent instructions, all 0
 *	until the source counts classes (mixpred.h)
 * @rule_factor: factor fixed by a rule per type (fp), 0 == learn
 * @rule_lock: serialises the writers of the rule state (below)
 * @rule_seq: bumped by every commit of the rule state
 * @rule_gen: generation of the rule set @rule refers to
 * @exe_gen: generation of the rule set @exe_rule was computed for
 * @cg_gen: generation of the rule set @cg_rule was computed for
 * @rule: 1 + index of the rule in force, 0 == none
 * @exe_rule: 1 + index of the first exe rule matching the executable
 * @cg_rule: 1 + index of the first cgroup rule matching the v2 cgroup
 * @exec_run: the task's sum_exec_runtime at its last exec, in
 *	2^SBRIDGE_EXEC_RUN_SHIFT ns rounded up, saturating (0: no exec seen);
 *	the decision layer counts a program's CPU time from there. 16 bits
 *	fit a hole of the 256-byte budget; a saturated value (an exec after
 *	about 68 s of the thread's CPU time) only makes that wait shorter.
 * @switch_in_ns: clock at the last switch-in
 * @runtime_ns: time run while tracked
 * @hint: enum sbridge_hint_type the decision layer gave the task
 * @hint_at: jiffies (low 16 bits) when @hint was last confirmed
 * @got: the fraction of its time the decision layer gave it the fast type
 *	lately (fp, a moving average over about 16 decisions): the deficit
 *	that makes tasks take turns (plan.c); SBRIDGE_GOT_NONE while it has
 *	not been planned lately (no history: not starved either)
 * @visits_folded: @est.visits when the task was last folded into the matrix
 * @warm_folded: @est.warm_n when the task was last folded into the matrix
 * @ph_folded: @est.ph_n when the task was last folded into the matrix
 * @seed_sp: measured speedup of its workload from the matrix (the phase
 *	it starts in, else the most certain one) or from its parent at fork,
 *	reference over slowest type (fp), 0 if none
 * @seed_err: its standard error (fp)
 * @mm_tag: sbridge_mm_tag() of the task's mm when the entry was keyed
 *	(fork, exec, adoption): a task renaming itself under another tag is
 *	in the middle of an exec. 16 bits fit a hole of the 256-byte budget;
 *	a clash (1 in 65 536) only lets that exec's windows fold, as before.
 *
 * Locking: the switch probe writes @win, @est, @cpi, @cpi_stall, @cpi_type,
 * @mix (each u16 whole), @last_cpu, @runtime_ns for prev/next on the CPU they run
 * on, and the runtime probe the same for the running task, both under that
 * CPU's runqueue lock with IRQs off, so there is one writer at a time per
 * task.
 * Exec writes the identity and model fields while the task is running its
 * own exec (same CPU, preemption off, IRQs on: a tick probe may interrupt
 * it and see a half-reset window, which costs one sample at most). The
 * sampling path writes @est's cells and counters with one WRITE_ONCE()
 * each (a u16 cell is read whole); the
 * *_folded fields are written only by matrix folds, under the matrix lock,
 * which exec also holds while it folds and resets the model, so no window
 * is folded twice. @seed_sp and @seed_err are written at fork (before the
 * entry is published), at exec and adoption (seeding) only.
 *
 * Rule state (@comm, @class, @pref, @rule_factor and @rule_lock .. @cg_rule)
 * has several writers in process context: the task's exec, a rename of it
 * (task_rename, task_lock held, possibly by another task), a cgroup move
 * (IRQs off) and the walk after a rules load or clear. They serialise on
 * @rule_lock, a raw spinlock that is never taken in hardirq context, so
 * it needs no IRQ disabling and nests inside task_lock and the cgroup
 * tracepoint's lock; nothing is taken inside it. Fork copies the parent's
 * rule state under the parent's @rule_lock into the unpublished child. The
 * switch, tick and actuator paths never write rule state and read @class,
 * @pref and each @rule_factor with READ_ONCE() (written with WRITE_ONCE()):
 * each field is a whole value, but a reader racing a commit can combine
 * the old rule's @pref with the new rule's @class for that one read; every
 * consumer recomputes from the fields at its next period, so such a mix
 * lasts one decision. @comm's last byte is always NUL, so a racing reader
 * gets a bounded string, at worst a mix of the old and new name once.
 * @exec_run is written by the task's own exec and read by the decision
 * layer with READ_ONCE().
 * @hint, @hint_at and @got are written only by the decision layer's
 * work item (one writer) and read with READ_ONCE() elsewhere.
 * Readers (netlink dump, API) take rcu_read_lock() and may see a torn
 * multi-field snapshot, which is harmless for statistics.
 */
struct sbridge_task {
	struct rhash_head node;
	struct task_struct *task;
	struct rcu_head rcu;
	char comm[SBRIDGE_KEY_LEN];
	u32 exe_hash;
	u32 uid;
	u32 pid;
	u8 class;
	u8 pref;
	u8 flags;
	u8 win_type;
	u16 last_cpu;
	u16 gen;
	u16 hint_at;
	u16 got;
	struct sbridge_window win;
	u64 switch_in_ns;
	u64 runtime_ns;
	struct sbridge_est_state est;
	u16 cpi;
	u16 cpi_stall;
	u16 rule_factor[SBRIDGE_MAX_CORE_TYPES];
	u16 exec_run;
	u16 mm_tag;
	raw_spinlock_t rule_lock;
	u32 rule_seq;
	u32 rule_gen;
	u32 exe_gen;
	u32 cg_gen;
	u16 rule;
	u16 exe_rule;
	u16 cg_rule;
	u8 hint;
	u8 ph_folded[SBRIDGE_MAX_PHASES];
	u8 warm_folded[SBRIDGE_MAX_CORE_TYPES];
	u8 visits_folded[SBRIDGE_MAX_CORE_TYPES];
	u8 cpi_type;
	u16 seed_sp;
	u16 seed_err;
	u16 mix[SBRIDGE_MIX_NR];
};

#define SBRIDGE_EXEC_RUN_SHIFT	20	/* @exec_run's unit: about 1 ms */

/* @mm_tag of an mm: hashed, never dereferenced */
static inline u16 sbridge_mm_tag(const struct mm_struct *mm)
{
	return hash_ptr((void *)mm, 16);
}

#define SBRIDGE_TF_LEARNED	BIT(1)	/* has at least one model sample */
/* runs a set-id program: only CAP_PERFMON sees its data (as perf) */
#define SBRIDGE_TF_PRIVATE	BIT(2)
/* renamed by its exec, not yet keyed anew by the exec probe: no fold */
#define SBRIDGE_TF_EXEC		BIT(3)
/* Sampled on core type @ty since exec (bits 4..7; 4 types at most). */
#define SBRIDGE_TF_SAMPLED(ty)	BIT(4 + (ty))
#define SBRIDGE_TF_SAMPLED_ALL	(0xf0)

/**
 * struct sbridge_stats - global counters, all atomic, no lock
 * @allocs: task entries allocated since load
 * @frees: task entries freed since load
 * @alloc_fail: fork/adopt allocations that failed (task untracked)
 * @matrix_hits: tasks seeded from the matrix at exec
 * @rule_hits: times a task came under a rule (exec, rename, cgroup move,
 *	rules load; not inheritance at fork)
 *
 * What the switch and migration paths count is per CPU instead
 * (sbridge_sample_samples() and its neighbours in sample.c,
 * sbridge_hooks_type_migrations()): an atomic
 * there would bounce one cache line between every CPU.
 */
struct sbridge_stats {
	atomic64_t allocs;
	atomic64_t frees;
	atomic64_t alloc_fail;
	atomic64_t matrix_hits;
	atomic64_t rule_hits;
};
extern struct sbridge_stats sbridge_stats;

int sbridge_tasks_init(void);
void sbridge_tasks_exit(void);
int sbridge_tasks_adopt(void (*fresh)(struct sbridge_task *t),
			void (*published)(struct sbridge_task *t,
					  struct task_struct *p));
struct sbridge_task *sbridge_task_lookup(struct task_struct *p);
struct sbridge_task *sbridge_task_new(struct task_struct *p, gfp_t gfp);
struct sbridge_task *sbridge_task_insert(struct sbridge_task *t);
struct sbridge_task *sbridge_task_get(struct task_struct *p);
void sbridge_task_inherit(struct sbridge_task *t, const struct sbridge_task *parent);
void sbridge_task_rekey(struct sbridge_task *t, struct task_struct *p, u32 exe_hash);
struct sbridge_task *sbridge_task_remove(struct task_struct *p);
void sbridge_task_release(struct sbridge_task *t);
u32 sbridge_task_factor_on(const struct sbridge_task *t, unsigned int type);
u32 sbridge_task_placement(const struct sbridge_task *t);
u32 sbridge_task_share(const struct sbridge_task *t);
u32 sbridge_task_gain(unsigned int fast, unsigned int slow);
bool sbridge_task_memrate(unsigned int fast, unsigned int slow, bool on_fast,
			  struct sbridge_memrate *r);
void sbridge_task_bound(struct sbridge_est *e, unsigned int fast,
			unsigned int slow, u32 visits);
/**
 * struct sbridge_task_est - a task's speedup estimate and its parts
 * @pred: what its CPI stack (or a rule) predicts, with the prediction's
 *	error (learn.pred_err, and the memory ratio's: sbridge_task_memrate())
 * @own: measured on the task itself, from its warm windows (val 0: none)
 * @seed: measured on its workload before (matrix) or its parent (val 0:
 *	none)
 * @meas: @own and @seed combined
 * @est: the estimate decisions use
 * @src: where @est comes from (enum sbridge_est_src)
 * @pred_kind: which predictor made @pred (enum sbridge_pred_kind)
 *
 * A value on the caller's stack: no locking.
 */
struct sbridge_task_est {
	struct sbridge_est pred;
	struct sbridge_est own;
	struct sbridge_est seed;
	struct sbridge_est meas;
	struct sbridge_est est;
	u8 src;
	u8 pred_kind;
};
void sbridge_task_estimate(const struct sbridge_task *t, unsigned int fast,
			   unsigned int slow, struct sbridge_task_est *e);
void sbridge_task_seed_set(struct sbridge_task *t, const struct sbridge_est *e);
u32 sbridge_task_speedup(const struct sbridge_task *t, u32 *pred, u32 *meas);
s64 sbridge_tasks_live(void);
/* Calls @fn for each live tracked task by pid from *@cursor; stops on nonzero. */
int sbridge_tasks_walk(int (*fn)(struct sbridge_task *t, void *arg), void *arg,
		       int *cursor);

/* ---- sample.c: windows and model samples on switch and tick ---- */
void sbridge_sample_switch(struct task_struct *prev, struct task_struct *next,
			   int cpu, bool blocked);
void sbridge_sample_runtime(struct task_struct *p, int cpu);
u64 sbridge_sample_runtime_reads(void);
u64 sbridge_sample_switches(u64 *untracked);
u64 sbridge_sample_kinds(enum sbridge_win_kind kind);
u64 sbridge_sample_samples(void);
u64 sbridge_sample_windows_cut(void);
u64 sbridge_sample_phase_changes(void);

/* The sum over every possible CPU of a per-CPU u64 counter (racy, monotonic). */
#define sbridge_pcpu_sum(var) ({				\
	u64 __sum = 0;						\
	int __cpu;						\
								\
	for_each_possible_cpu(__cpu)				\
		__sum += per_cpu(var, __cpu);			\
	__sum;							\
})
u32 sbridge_sample_cpu_khz(unsigned int cpu);
u32 sbridge_sample_khz(unsigned int cpu, const struct sbridge_source_ops *src,
		       u32 *ref);
struct irq_work;
void sbridge_sample_kick_set(struct irq_work *w);
void sbridge_sample_kick_arm(bool armed);

/* ---- hooks.c ---- */
int sbridge_hooks_init(void);
void sbridge_hooks_exit(void);
u64 sbridge_hooks_type_migrations(void);

/* ---- params (params.c) ---- */
/**
 * struct sbridge_params - tunables (SET_PARAM)
 * @learning: 0 stops the model (factors frozen)
 * @window_instr: instructions per model window
 * @window_cycles: cycles per model window when instructions are absent
 * @phase_windows: consecutive windows a new share must hold to be a phase
 * @phase_delta: share change (fp) that counts as a different phase
 * @c_const: the model's constant C (fp)
 * @ref_share: CPI_B share of the reference task m (fp)
 * @matrix_max: cells the matrix holds before LRU eviction
 * @tick_ms: least time between reads of a running task's counters
 *	between switches, 0 == read at switches only
 * @learn_measured: 1 blends the measured big/little speedup into
 *	sbridge_task_speedup(), 0 returns the CPI-stack prediction only
 * @warm_instr: instructions a task runs after a migration or exec before
 *	its windows are measured (caches refill)
 * @startup_ms: CPU time after exec whose windows are the start-up phase
 * @pred_err: relative standard error of the CPI-stack prediction (fp),
 *	what weighs it against measurements
 * @mem_latency_ns: model.mem_latency_ns, the memory latency (ns) of the
 *	CPI_stall penalty; 0 takes the counter source's (sbridge_pmu measures
 *	one at load), nonzero overrides it (sbridgectl calibrate)
 * @mem_ratio: model.mem_ratio, a memory-bound probe's time on the slowest
 *	type over the reference type's (fp; sbridgectl calibrate's memory
 *	ratio): the prediction's memory ratio until the matrix teaches one;
 *	0 for none
 * @window_us: the task's CPU time (us) a model window spans at most,
 *	measured in cycles at the CPU's clock over the scheduler's time; 0
 *	closes windows by @window_instr only
 * @tpi_shift: learn.tpi_shift, thousandths of a task's spread of log time
 *	per instruction on a core type taken off each phase's mean there
 *	before types are compared (sbridge_est_accs()); 0 compares means
 * @share_tol: learn.share_tol, thousandths of a share a phase's share on
 *	the faster type may exceed what its share on the slower one becomes
 *	there before the phase is not compared (sbridge_shares_agree())
 *
 * Each is one aligned word written with WRITE_ONCE() under
 * sbridge_param_lock and read with READ_ONCE() anywhere.
 */
struct sbridge_params {
	u32 learning;
	u32 window_instr;
	u32 window_cycles;
	u32 phase_windows;
	u32 phase_delta;
	u32 c_const;
	u32 ref_share;
	u32 matrix_max;
	u32 tick_ms;
	u32 learn_measured;
	u32 warm_instr;
	u32 startup_ms;
	u32 pred_err;
	u32 mem_latency_ns;
	u32 mem_ratio;
	u32 window_us;
	u32 tpi_shift;
	u32 share_tol;
};
extern struct sbridge_params sbridge_params;
/**
 * struct sbridge_act_params - actuator, decision and checker tunables
 * @observe: act.observe, 1 turns every actuator off (learn and report only)
 * @period_ms: act.period_ms, period of the decision and actuator work
 * @up_util: act.up_util, busy share of its CPU (0..1024: util_avg over
 *	the CPU's capacity) a runnable task needs to enter the decision
 * @down_util: act.down_util, busy share below which a task with a hint
 *	leaves it (<= @up_util: two thresholds, no ping-pong)
 * @gain: act.gain, least predicted big/little speedup above 1.0 (fp) for
 *	a task to want the fast cores
 * @model: act.model, 1 ranks tasks by the learned speedup; 0 gives every
 *	hot task the fast/slow capacity ratio, so placement steers by load
 *	alone (the HMP-style baseline of the evaluation)
 * @hold_ms: act.hold_ms, time a hint is kept through a sleep
 * @fair: act.fair, the fairness bound (fp): each task's progress at least
 *	this much of its equal-share rate (docs/policy.md)
 * @sample_pct: act.sample_pct, fast time the sampling swaps may take, in
 *	percent (0: none)
 * @margin: act.margin, standard errors (fp) of each estimate by which two
 *	tasks' speedups must differ for the plan to choose between them (0:
 *	any difference); closer ones are left to the stock scheduler
 * @checker: checker.on, 1 runs the invariant checker
 * @check_period_ms: checker.period_ms, S of the Wasted Cores checker
 * @watch_ms: checker.watch_ms, M of the Wasted Cores checker
 * @selftest: checker.selftest, 1 makes placement steer every hot task to
 *	one CPU regardless of saturation, to provoke a violation on purpose
 *
 * Each is one aligned word written with WRITE_ONCE() by sbridge_param_set()
 * and read with READ_ONCE(); the work items notice changes on their next
 * run, so a switch takes effect within one period.
 */
struct sbridge_act_params {
	u32 observe;
	u32 period_ms;
	u32 up_util;
	u32 down_util;
	u32 gain;
	u32 model;
	u32 hold_ms;
	u32 fair;
	u32 sample_pct;
	u32 margin;
	u32 checker;
	u32 check_period_ms;
	u32 watch_ms;
	u32 selftest;
};
extern struct sbridge_act_params sbridge_act_params;

/**
 * struct sbridge_param_desc - one tunable's name, storage and range
 * @name: name on the wire (SET_PARAM, sbridgectl set param)
 * @val: the tunable, written with WRITE_ONCE(), read with READ_ONCE()
 * @min: smallest accepted value
 * @max: largest accepted value
 *
 * Constant after load (not const: module parameters point into it).
 */
struct sbridge_param_desc {
	const char *name;
	u32 *val;
	u32 min, max;
};
int sbridge_params_add(struct sbridge_param_desc *d);
extern const struct kernel_param_ops sbridge_param_ops;
/*
 * A tunable's module parameter (@mp: its wire name with '_' for '.'),
 * declared in the file that keeps the tunable, as params.c declares its
 * own: the same checks as SET_PARAM.
 */
#define sbridge_module_param(mp, desc, text)				\
	module_param_cb(mp, &sbridge_param_ops, &(desc), 0644);		\
	MODULE_PARM_DESC(mp, text)
int sbridge_params_start(void);
int sbridge_param_set(const char *name, u64 value);
bool sbridge_learning_possible(void);
/* Iterates the parameter table; returns NULL past the end. */
const char *sbridge_param_get(unsigned int i, u64 *value);

/* ---- matrix.c ---- */
int sbridge_matrix_init(void);
void sbridge_matrix_exit(void);
bool sbridge_matrix_seed(struct sbridge_task *t);
void sbridge_matrix_learn(struct sbridge_task *t);
unsigned long sbridge_matrix_lock(void);
void sbridge_matrix_unlock(unsigned long flags);
void sbridge_matrix_learn_locked(struct sbridge_task *t);
void sbridge_matrix_refresh(void);
u32 sbridge_matrix_count(void);

/**
 * struct sbridge_mx_cell - one matrix cell, as the interfaces show it
 * @key: workload key (comm)
 * @type: core type
 * @phase: phase (SBRIDGE_PHASE_STARTUP: start-up)
 * @factor: learned factor (fp)
 * @share: CPI_B share (fp, quantised)
 * @speedup: measured speedup of the workload and phase, 0 if none
 * @samples: windows folded into it
 * @exe: jhash of the executable path, 0 if unknown
 * @scope: real uid it learned from, 0 for root's and loaded cells
 * @warm: warm windows behind @tpi, 0 == no time per instruction
 * @tpi: mean time per instruction, 1/16 ps (with @warm)
 * @spread: relative spread between folds, 1/64 (with @warm)
 * @visits: stays on the type folded into it (with @warm)
 */
struct sbridge_mx_cell {
	char key[SBRIDGE_KEY_LEN];
	u32 type;
	u32 phase;
	u32 factor;
	u32 share;
	u32 speedup;
	u32 samples;
	u32 exe;
	u32 scope;
	u32 warm;
	u64 tpi;
	u32 spread;
	u32 visits;
};

/**
 * struct sbridge_mx_cursor - where a matrix walk resumes
 * @bkt: hash bucket
 * @last: id of the last cell of @bkt shown, 0 == none yet
 */
struct sbridge_mx_cursor {
	unsigned long bkt;
	unsigned long last;
};
void sbridge_matrix_walk(struct sbridge_mx_cursor *cur, bool all, u32 uid,
			 int (*fn)(const struct sbridge_mx_cell *c, void *arg),
			 void *arg);

/**
 * struct sbridge_mx_spec - one cell to load, as an interface parsed it
 * @key: workload key, NUL-terminated, not empty
 * @type: core type (checked against the machine's)
 * @phase: phase, at most SBRIDGE_PHASE_STARTUP
 * @share: CPI_B share (fp, at most SBRIDGE_FP_ONE)
 * @factor: learned factor (fp, in range), 0: the model's for @share
 * @samples: windows folded into it
 * @exe: jhash of the executable path, 0 if unknown
 * @scope: real uid, 0 for root's
 * @speedup: a file of an older version's measured speedup (fp, in
 *	range), 0 if none
 * @tpi: mean time per instruction, 1/16 ps, with @has_tpi
 * @warm: warm windows behind @tpi, with @has_warm
 * @spread: relative spread, 1/64 (at most 255), with @has_spread
 * @visits: stays on the type, with @has_visits
 * @has_tpi: @tpi was given
 * @has_warm: @warm was given
 * @has_spread: @spread was given
 * @has_visits: @visits was given
 */
struct sbridge_mx_spec {
	const char *key;
	u32 type;
	u32 phase;
	u32 share;
	u32 factor;
	u32 samples;
	u32 exe;
	u32 scope;
	u32 speedup;
	u64 tpi;
	u32 warm;
	u32 spread;
	u32 visits;
	bool has_tpi;
	bool has_warm;
	bool has_spread;
	bool has_visits;
};

/* What is wrong with a cell to load (sbridge_matrix_load_add()). */
enum sbridge_mx_bad {
	SBRIDGE_MX_OK,
	SBRIDGE_MX_BAD_TYPE,	/* the core type does not exist here */
	SBRIDGE_MX_BAD_TPI,	/* time per instruction out of range */
	SBRIDGE_MX_BAD_NO_TPI,	/* warm, spread or visits without one */
	SBRIDGE_MX_BAD_DUP,	/* a second cell of the same workload, type, phase */
};

/**
 * struct sbridge_matrix_load - a matrix being loaded
 * @fresh: its cells, not yet in the matrix
 * @n: cells in @fresh
 * @max: most cells the matrix holds (matrix_max when the load began)
 *
 * The loader's own; sbridge_matrix_load_commit() or _abort() ends it.
 */
struct sbridge_matrix_load {
	struct list_head fresh;
	u32 n;
	u32 max;
};
void sbridge_matrix_load_begin(struct sbridge_matrix_load *ld);
int sbridge_matrix_load_add(struct sbridge_matrix_load *ld,
			    const struct sbridge_mx_spec *spec,
			    enum sbridge_mx_bad *bad);
void sbridge_matrix_load_commit(struct sbridge_matrix_load *ld);
void sbridge_matrix_load_abort(struct sbridge_matrix_load *ld);

/* ---- rules.c ---- */
#define SBRIDGE_RULE_SRC_LEN	128	/* "file:line" of a rule, with NUL */
int sbridge_rules_init(void);
void sbridge_rules_exit(void);
void sbridge_rules_apply(struct sbridge_task *t, const char *exe);
void sbridge_rules_exec(struct sbridge_task *t, struct task_struct *p,
			const char *exe);
void sbridge_rules_renamed(struct sbridge_task *t, struct task_struct *p,
			   const char *comm);
void sbridge_rules_adopted(struct sbridge_task *t, struct task_struct *p);
struct cgroup;
void sbridge_rules_moved(struct cgroup *dst, const char *path,
			 struct task_struct *leader, bool threadgroup);
void sbridge_rules_inherit(struct sbridge_task *child,
			   struct sbridge_task *parent);
bool sbridge_rules_task_rule(struct sbridge_task *t, char *buf, size_t len);
u32 sbridge_rules_count(void);

/**
 * struct sbridge_rule_spec - one rule to load, as an interface parsed it
 * @match: enum sbridge_rule_match
 * @class: enum sbridge_task_class
 * @pref: enum sbridge_pref
 * @nfactors: entries of @factors given, 0 == none
 * @factors: fixed factor per core type (fp), 0 or within
 *	[SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX]
 * @pattern: NUL-terminated; what sbridge_rule_check() accepts
 * @source: "file:line" from the client, NULL if none
 *
 * The caller's memory; sbridge_ruleset_add() copies what it keeps.
 * sbridge_rules_walk() shows the rules in force in one too.
 */
struct sbridge_rule_spec {
	u32 match;
	u32 class;
	u32 pref;
	u32 nfactors;
	u32 factors[SBRIDGE_MAX_CORE_TYPES];
	const char *pattern;
	const char *source;
};

/**
 * struct sbridge_rule_view - one rule in force, as the interfaces show it
 * @rule: the rule as it was loaded; its strings are the set's
 * @hits: tasks the rule matched since it was loaded
 *
 * Filled by sbridge_rules_walk(); valid only during the walk's callback.
 */
struct sbridge_rule_view {
	struct sbridge_rule_spec rule;
	u64 hits;
};
unsigned long sbridge_rules_walk(unsigned long from,
				 int (*fn)(const struct sbridge_rule_view *r, void *arg),
				 void *arg);

/* What is wrong with a rule's pattern (sbridge_rule_check()). */
enum sbridge_rule_bad {
	SBRIDGE_RULE_OK,
	SBRIDGE_RULE_BAD_EMPTY,		/* empty */
	SBRIDGE_RULE_BAD_COMM_LONG,	/* a comm longer than 15 bytes */
	SBRIDGE_RULE_BAD_EXE_RELATIVE,	/* an exe path not absolute */
	SBRIDGE_RULE_BAD_UID,		/* a uid not a valid decimal uid */
};
struct sbridge_ruleset;
enum sbridge_rule_bad sbridge_rule_check(u32 match, const char *pattern);
struct sbridge_ruleset *sbridge_ruleset_alloc(u32 n);
int sbridge_ruleset_add(struct sbridge_ruleset *rs,
			const struct sbridge_rule_spec *spec);
void sbridge_ruleset_free(struct sbridge_ruleset *rs);
int sbridge_rules_publish(struct sbridge_ruleset *rs);
int sbridge_rules_clear(void);
void sbridge_rules_drain(void);

/* ---- event.c: lower layers post, interfaces listen ---- */
/*
 * Events of this value and above are sbridge's own, never multicast:
 * SBRIDGE_EVENT_FACTORS_MOVED: the effective CPU factors moved (cpufreq),
 * for the in-kernel consumers (api.c).
 */
#define SBRIDGE_EVENT_INTERNAL		0x100
#define SBRIDGE_EVENT_FACTORS_MOVED	(SBRIDGE_EVENT_INTERNAL + 0)
struct notifier_block;
void sbridge_event_post(u32 type, const char *text);
int sbridge_event_listen(struct notifier_block *nb);
void sbridge_event_unlisten(struct notifier_block *nb);

/* ---- netlink.c ---- */
int sbridge_netlink_init(void);
void sbridge_netlink_exit(void);

/* ---- sysfs.c ---- */
int sbridge_sysfs_init(void);
void sbridge_sysfs_exit(void);

/* ---- kfuncs.c ---- */
void sbridge_kfuncs_init(void);
const char *sbridge_kfuncs_status(char *buf, size_t len);

#endif /* _SBRIDGE_CORE_INTERNAL_H */
