/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sbridge user-space ABI: the generic-netlink family spoken between the
 * sbridge_core module and sbridgectl (or any other client).
 *
 * Stability rules: commands and attributes are only ever appended; a value
 * once shipped never changes meaning. SBRIDGE_GENL_VERSION is bumped when
 * something is appended so that a client can tell what the kernel speaks.
 *
 * Fixed point: every factor, capacity ratio and CPI value crossing this ABI
 * is an unsigned integer scaled by SBRIDGE_FP_ONE (1024 == 1.0), the same
 * scale the scheduler uses for capacity. No floating point anywhere.
 */
#ifndef _UAPI_LINUX_SBRIDGE_H
#define _UAPI_LINUX_SBRIDGE_H

#include <linux/types.h>

#define SBRIDGE_GENL_NAME		"sbridge"
#define SBRIDGE_GENL_VERSION		5
#define SBRIDGE_GENL_MCGRP_EVENTS	"events"

#define SBRIDGE_FP_SHIFT		10
#define SBRIDGE_FP_ONE			(1U << SBRIDGE_FP_SHIFT)

/* Limits a client can rely on (the kernel rejects anything beyond them). */
#define SBRIDGE_MAX_CORE_TYPES		4
#define SBRIDGE_MAX_PHASES		4
#define SBRIDGE_KEY_LEN			16	/* == TASK_COMM_LEN */
#define SBRIDGE_PATH_LEN		256
#define SBRIDGE_MAX_RULES		4096
/* Factors are clamped to [1/8, 8] (128 .. 8192 in fixed point). */
#define SBRIDGE_FACTOR_MIN		(SBRIDGE_FP_ONE / 8)
#define SBRIDGE_FACTOR_MAX		(SBRIDGE_FP_ONE * 8)

/**
 * enum sbridge_cmd - generic-netlink commands of the "sbridge" family
 * @SBRIDGE_CMD_UNSPEC: unused
 * @SBRIDGE_CMD_GET_STATUS: reply carries the SBRIDGE_A_STATUS_* attributes
 * @SBRIDGE_CMD_GET_CPUS: dump; one message per CPU (SBRIDGE_A_CPU_*)
 * @SBRIDGE_CMD_SET_CPU_FACTOR: needs CAP_SYS_ADMIN; SBRIDGE_A_CPUMASK +
 *	SBRIDGE_A_FACTOR (0 clears the override)
 * @SBRIDGE_CMD_GET_TASKS: dump; one message per tracked task
 *	(SBRIDGE_A_TASK_*); counter data of other users' tasks needs
 *	CAP_PERFMON or CAP_SYS_ADMIN, otherwise those attributes are omitted
 *	(PHASE, CPI, CPI_STALL, CPIB_SHARE, FACTORS, SPEEDUP_PRED,
 *	SPEEDUP_MEAS, SPEEDUP); CPI and CPI_STALL are also absent until the
 *	task was sampled on its current core type
 * @SBRIDGE_CMD_RULES_LOAD: needs CAP_SYS_ADMIN; nested SBRIDGE_A_RULES;
 *	all rules replace the current set atomically, or nothing changes
 * @SBRIDGE_CMD_RULES_GET: dump of the rules in force, one message per rule,
 *	each holding one SBRIDGE_A_RULE nest (as in RULES_LOAD), in order
 * @SBRIDGE_CMD_RULES_CLEAR: needs CAP_SYS_ADMIN
 * @SBRIDGE_CMD_MATRIX_GET: dump of the learned scale-factor matrix, one
 *	message per cell, each holding one SBRIDGE_A_MX_ENTRY nest (as in
 *	MATRIX_LOAD), in no particular order; without CAP_PERFMON or
 *	CAP_SYS_ADMIN only the cells of the requester's own scope (MX_UID)
 * @SBRIDGE_CMD_MATRIX_LOAD: needs CAP_SYS_ADMIN; nested SBRIDGE_A_MATRIX;
 *	atomic like RULES_LOAD: the loaded cells replace the whole matrix.
 *	Each entry needs MX_KEY, MX_TYPE (< the machine's core types) and
 *	MX_CPIB_SHARE; MX_PHASE defaults to 0, MX_SAMPLES to 1, MX_FACTOR is
 *	recomputed from the share when absent, MX_EXE_HASH to 0 (a cell for
 *	any executable of that comm), MX_SPEEDUP_MEAS is optional (none);
 *	MX_SAMPLES counts model windows; MX_UID defaults to 0; duplicates are
 *	refused. A workload is (comm, executable) in a scope, the real uid
 *	that started its programs: a new task uses the cells of its own
 *	executable, else those of its comm, in its own scope, else in scope 0
 *	(root's programs and cells loaded without a uid)
 * @SBRIDGE_CMD_GET_REPORTS: dump of work-conserving invariant reports
 * @SBRIDGE_CMD_SET_PARAM: needs CAP_SYS_ADMIN; SBRIDGE_A_PARAM_NAME +
 *	SBRIDGE_A_PARAM_VALUE (actuator switches, checker periods, ...).
 *	Unknown names give -EOPNOTSUPP, values out of range -ERANGE. The core
 *	knows: learning (0/1), window_instr, window_cycles, phase_windows,
 *	phase_delta (fp), c (the model's C, fp), ref_share (fp), matrix_max,
 *	tick_ms (0: read counters at context switches only), learn.measured
 *	(0/1: blend the measured speedup into SBRIDGE_A_TASK_SPEEDUP)
 * @SBRIDGE_CMD_EVENT: multicast notification on SBRIDGE_GENL_MCGRP_EVENTS
 */
enum sbridge_cmd {
	SBRIDGE_CMD_UNSPEC,
	SBRIDGE_CMD_GET_STATUS,
	SBRIDGE_CMD_GET_CPUS,
	SBRIDGE_CMD_SET_CPU_FACTOR,
	SBRIDGE_CMD_GET_TASKS,
	SBRIDGE_CMD_RULES_LOAD,
	SBRIDGE_CMD_RULES_GET,
	SBRIDGE_CMD_RULES_CLEAR,
	SBRIDGE_CMD_MATRIX_GET,
	SBRIDGE_CMD_MATRIX_LOAD,
	SBRIDGE_CMD_GET_REPORTS,
	SBRIDGE_CMD_SET_PARAM,
	SBRIDGE_CMD_EVENT,

	__SBRIDGE_CMD_MAX,
	SBRIDGE_CMD_MAX = __SBRIDGE_CMD_MAX - 1
};

/**
 * enum sbridge_rule_match - what a rule matches on (SBRIDGE_A_RULE_MATCH)
 * @SBRIDGE_MATCH_COMM: task comm, exact, at most 15 bytes
 * @SBRIDGE_MATCH_EXE: absolute executable path, exact; a glob (as
 *	glob_match(): '*' and '?' also match '/') if it holds '*', '?' or '['
 * @SBRIDGE_MATCH_CGROUP: cgroup v2 path relative to the root, prefix match
 * @SBRIDGE_MATCH_UID: real uid (in the initial user namespace), decimal
 */
enum sbridge_rule_match {
	SBRIDGE_MATCH_COMM = 1,
	SBRIDGE_MATCH_EXE,
	SBRIDGE_MATCH_CGROUP,
	SBRIDGE_MATCH_UID,
};

/**
 * enum sbridge_task_class - what a rule (or the model) says a task is
 * @SBRIDGE_CLASS_AUTO: learn it (default)
 * @SBRIDGE_CLASS_COMPUTE: treat as compute-bound (CPI_B share 1.0)
 * @SBRIDGE_CLASS_MEMORY: treat as memory-bound (CPI_B share 0.0)
 */
enum sbridge_task_class {
	SBRIDGE_CLASS_AUTO = 0,
	SBRIDGE_CLASS_COMPUTE,
	SBRIDGE_CLASS_MEMORY,
};

/**
 * enum sbridge_pref - placement preference set by a rule
 * @SBRIDGE_PREF_NONE: follow the factors
 * @SBRIDGE_PREF_BIG: prefer the highest-capacity core type
 * @SBRIDGE_PREF_LITTLE: prefer the lowest-capacity core type
 * @SBRIDGE_PREF_EXCLUDE: never steer or clamp this task
 */
enum sbridge_pref {
	SBRIDGE_PREF_NONE = 0,
	SBRIDGE_PREF_BIG,
	SBRIDGE_PREF_LITTLE,
	SBRIDGE_PREF_EXCLUDE,
};

/* Bits of SBRIDGE_A_STATUS_EVENTS: which counters the source delivers. */
#define SBRIDGE_EV_CYCLES		(1U << 0)
#define SBRIDGE_EV_INSTRUCTIONS		(1U << 1)
/* (1U << 2), LLC references, is never set: the model does not read them */
#define SBRIDGE_EV_LLC_REFS		(1U << 2)
#define SBRIDGE_EV_LLC_MISSES		(1U << 3)
#define SBRIDGE_EV_STALL_CYCLES		(1U << 4)
/* instruction classes (enum sbridge_mix), all of them: the mix predictor's input */
#define SBRIDGE_EV_MIX			(1U << 5)

/**
 * enum sbridge_mix - instruction classes a counter source may count
 * @SBRIDGE_MIX_LDST: loads and stores (Arm LDST_SPEC, or LD_SPEC + ST_SPEC)
 * @SBRIDGE_MIX_INT: integer data processing (Arm DP_SPEC)
 * @SBRIDGE_MIX_FP: floating point and SIMD (Arm VFP_SPEC + ASE_SPEC)
 * @SBRIDGE_MIX_BRANCH: branches (Arm BR_RETIRED)
 * @SBRIDGE_MIX_NR: number of classes
 *
 * Instructions in none of them (system instructions, or what the
 * counters do not cover) are the "other" term of the predictor.
 */
enum sbridge_mix {
	SBRIDGE_MIX_LDST,
	SBRIDGE_MIX_INT,
	SBRIDGE_MIX_FP,
	SBRIDGE_MIX_BRANCH,
	SBRIDGE_MIX_NR,
};

/**
 * enum sbridge_pred_kind - which predictor a task's prediction comes from
 *	(SBRIDGE_A_TASK_PRED_KIND)
 * @SBRIDGE_PRED_EQ3: the CPI stack alone (eq. 3 of S-Bridge): no class
 *	counters, no coefficients for the pair, or the task's classes not
 *	known yet
 * @SBRIDGE_PRED_MIX: the instruction-mix predictor with the board's
 *	coefficients
 */
enum sbridge_pred_kind {
	SBRIDGE_PRED_EQ3 = 0,
	SBRIDGE_PRED_MIX,
};

enum sbridge_attr {
	SBRIDGE_A_UNSPEC,
	SBRIDGE_A_PAD,

	/* status */
	SBRIDGE_A_STATUS_VERSION,	/* string: module version */
	SBRIDGE_A_STATUS_API,		/* u32: SBRIDGE_GENL_VERSION */
	SBRIDGE_A_STATUS_SOURCE,	/* string: counter source name, absent if none */
	SBRIDGE_A_STATUS_EVENTS,	/* u32: SBRIDGE_EV_* the source delivers */
	SBRIDGE_A_STATUS_LEARNING,	/* u8: 1 if CPI learning is possible */
	SBRIDGE_A_STATUS_TASKS,		/* u64: tasks tracked now */
	SBRIDGE_A_STATUS_ALLOCS,	/* u64: task entries allocated since load */
	SBRIDGE_A_STATUS_FREES,		/* u64: task entries freed since load */
	SBRIDGE_A_STATUS_MATRIX,	/* u32: matrix entries */
	SBRIDGE_A_STATUS_RULES,		/* u32: rules in force */
	SBRIDGE_A_STATUS_NTYPES,	/* u32: core types found */
	SBRIDGE_A_STATUS_SWITCHES,	/* u64: context switches seen */
	SBRIDGE_A_STATUS_MESSAGE,	/* string: human note, e.g. degrade reason */

	/* per CPU */
	SBRIDGE_A_CPU_ID,		/* u32 */
	SBRIDGE_A_CPU_TYPE,		/* u32: core type index, 0 == lowest capacity */
	SBRIDGE_A_CPU_CAPACITY,		/* u32: capacity the scheduler sees (0..1024) */
	SBRIDGE_A_CPU_ORIG_CAPACITY,	/* u32: capacity at load time */
	SBRIDGE_A_CPU_FACTOR,		/* u32 fp: CPU factor in force */
	SBRIDGE_A_CPU_FACTOR_OVERRIDE,	/* u32 fp: user override, 0 == none */
	SBRIDGE_A_CPU_CUR_KHZ,		/* u32: effective frequency */
	SBRIDGE_A_CPU_MAX_KHZ,		/* u32 */
	SBRIDGE_A_CPU_CLUSTER,		/* u32: cluster id */
	SBRIDGE_A_CPU_MODEL,		/* string: e.g. "0x41:0xd03" (MIDR) */

	/* set cpu-factor */
	SBRIDGE_A_CPUMASK,		/* binary: little-endian bitmap of CPUs */
	SBRIDGE_A_FACTOR,		/* u32 fp */

	/* per task */
	SBRIDGE_A_TASK_PID,		/* u32 */
	SBRIDGE_A_TASK_COMM,		/* string */
	SBRIDGE_A_TASK_CPU,		/* u32: last CPU */
	SBRIDGE_A_TASK_CLASS,		/* u32: enum sbridge_task_class in force */
	SBRIDGE_A_TASK_PHASE,		/* u32 */
	SBRIDGE_A_TASK_CPI,		/* u32 fp, on the task's current core type */
	SBRIDGE_A_TASK_CPI_STALL,	/* u32 fp */
	SBRIDGE_A_TASK_CPIB_SHARE,	/* u32 fp, quantised to 0.1 steps */
	SBRIDGE_A_TASK_FACTORS,		/* nest of SBRIDGE_A_FACTOR, one per type */
	SBRIDGE_A_TASK_UID,		/* u32 */
	SBRIDGE_A_TASK_RUNTIME_NS,	/* u64 */
	SBRIDGE_A_TASK_PLACEMENT,	/* u32: core type the decision put it on; absent if none */

	/* rules: nest of SBRIDGE_A_RULE, each a nest of SBRIDGE_A_RULE_* */
	SBRIDGE_A_RULES,
	SBRIDGE_A_RULE,
	SBRIDGE_A_RULE_MATCH,		/* u32: enum sbridge_rule_match */
	SBRIDGE_A_RULE_PATTERN,		/* string */
	SBRIDGE_A_RULE_CLASS,		/* u32: enum sbridge_task_class */
	SBRIDGE_A_RULE_PREF,		/* u32: enum sbridge_pref */
	SBRIDGE_A_RULE_FACTORS,		/* nest of SBRIDGE_A_FACTOR, per type; 0 == learn */
	SBRIDGE_A_RULE_SOURCE,		/* string: "file:line" for messages */

	/* matrix: nest of SBRIDGE_A_MX_ENTRY, each a nest of SBRIDGE_A_MX_* */
	SBRIDGE_A_MATRIX,
	SBRIDGE_A_MX_ENTRY,
	SBRIDGE_A_MX_KEY,		/* string: workload key (comm) */
	SBRIDGE_A_MX_TYPE,		/* u32 */
	SBRIDGE_A_MX_PHASE,		/* u32 */
	SBRIDGE_A_MX_FACTOR,		/* u32 fp */
	SBRIDGE_A_MX_CPIB_SHARE,	/* u32 fp */
	SBRIDGE_A_MX_SAMPLES,		/* u32 */

	/* invariant reports */
	SBRIDGE_A_REPORT,		/* nest */
	SBRIDGE_A_REPORT_TIME_NS,	/* u64 */
	SBRIDGE_A_REPORT_IDLE_CPU,	/* u32 */
	SBRIDGE_A_REPORT_BUSY_CPU,	/* u32 */
	SBRIDGE_A_REPORT_NR_WAITING,	/* u32 */
	SBRIDGE_A_REPORT_HINTS,		/* u32: bitmap of actuators in force */

	/* parameters */
	SBRIDGE_A_PARAM_NAME,		/* string */
	SBRIDGE_A_PARAM_VALUE,		/* u64 */

	/* events */
	SBRIDGE_A_EVENT_TYPE,		/* u32: enum sbridge_event */
	SBRIDGE_A_EVENT_TEXT,		/* string */

	/* appended in SBRIDGE_GENL_VERSION 2 */
	SBRIDGE_A_CPU_L1D_KB,		/* u32: L1 data cache, KiB (absent if unknown) */
	SBRIDGE_A_CPU_L2_KB,		/* u32: L2 cache, KiB */
	SBRIDGE_A_CPU_L3_KB,		/* u32: L3 cache, KiB */
	/* matrix cell: jhash(exe path, seed 0) of the workload; absent == any */
	SBRIDGE_A_MX_EXE_HASH,		/* u32 */

	/* appended in SBRIDGE_GENL_VERSION 3 */
	SBRIDGE_A_TASK_SPEEDUP_PRED,	/* u32 fp: big/little speedup the CPI stack predicts */
	SBRIDGE_A_TASK_SPEEDUP_MEAS,	/* u32 fp: speedup measured on both types, absent if not */
	SBRIDGE_A_TASK_SPEEDUP,		/* u32 fp: the blend the decision layer uses */
	SBRIDGE_A_TASK_HINT,		/* u32: enum sbridge_hint_type the decision layer set */
	SBRIDGE_A_TASK_RULE,		/* string: "file:line" of the rule that matched */
	SBRIDGE_A_MX_SPEEDUP_MEAS,	/* u32 fp: measured speedup of the cell, absent if none */
	SBRIDGE_A_CPU_FACTOR_NOMINAL,	/* u32 fp: CPU factor before frequency scaling */
	SBRIDGE_A_CPU_DECLARED,		/* u8: 1 if the core type was declared by the user */
	SBRIDGE_A_STATUS_MODE,		/* string: what is in force and why (one line) */
	SBRIDGE_A_RULE_HITS,		/* u64: tasks this rule matched since it was loaded */

	/* appended in SBRIDGE_GENL_VERSION 4 */
	SBRIDGE_A_MX_UID,		/* u32: scope (real uid) of a cell; absent == 0 */

	/* appended in SBRIDGE_GENL_VERSION 5 */
	SBRIDGE_A_TASK_SPEEDUP_ERR,	/* u32 fp: standard error of SBRIDGE_A_TASK_SPEEDUP */
	SBRIDGE_A_TASK_SPEEDUP_SRC,	/* u32: enum sbridge_est_src of it */
	SBRIDGE_A_TASK_SPEEDUP_OWN,	/* u32 fp: measured on the task itself, absent if not */
	SBRIDGE_A_TASK_WARM,		/* u32: warm windows behind the task's own measurement */
	SBRIDGE_A_MX_TPI,		/* u64: mean time per instruction, 1/16 ps */
	SBRIDGE_A_MX_WARM,		/* u32: warm windows folded into the cell (saturating) */
	SBRIDGE_A_MX_SPREAD,		/* u32: relative spread between folds, 1/64 */
	SBRIDGE_A_MX_VISITS,		/* u32: stays on the type folded into the cell */
	SBRIDGE_A_STATUS_TYPES_FROM,	/* u32: enum sbridge_types_from */
	SBRIDGE_A_STATUS_TYPES_STALE,	/* u8: 1 if the kernel's capacities now group the CPUs otherwise */
	SBRIDGE_A_TASK_STEERED,		/* u8: 1 while placement holds the task's affinity mask */
	SBRIDGE_A_STATUS_CLOCK,		/* string: source of the CPUs' effective clock, e.g. "APERF/MPERF" */
	SBRIDGE_A_STATUS_CLOCK_KIND,	/* u32: enum sbridge_clock of it (the best any online CPU has) */
	SBRIDGE_A_CPU_CLOCK_KIND,	/* u32: enum sbridge_clock of this CPU's CUR_KHZ */
	SBRIDGE_A_STATUS_PREDICTOR,	/* string: the predictor in force and why, one line */
	SBRIDGE_A_TASK_PRED_KIND,	/* u32: enum sbridge_pred_kind of SPEEDUP_PRED */
	SBRIDGE_A_TASK_MIX,		/* nest of SBRIDGE_A_FACTOR (u32 fp), one per enum sbridge_mix; absent if unknown */
	SBRIDGE_A_CPU_TYPE_FROM,	/* u32: enum sbridge_types_from of this CPU's core type */
	SBRIDGE_A_STATUS_SCHED_EXT,	/* string: "kfuncs registered..." or "not available: why" */
	SBRIDGE_A_CPU_PMU,		/* string: perf PMU the counter source counts this CPU with, absent if none */
	SBRIDGE_A_CPU_PMU_CHAIN,	/* string: the event chain the source chose on it, e.g. "Cortex-A76: llc_misses LL_CACHE_MISS_RD, stall_cycles STALL_BACKEND_MEM" */

	__SBRIDGE_A_MAX,
	SBRIDGE_A_MAX = __SBRIDGE_A_MAX - 1
};

/**
 * enum sbridge_clock - where a CPU's effective clock comes from
 * @SBRIDGE_CLOCK_NONE: nothing measures it: the counter source reports no
 *	clock (never a nominal one), and the CPU factor stays nominal
 * @SBRIDGE_CLOCK_COUNTERS: the CPU's own cycle counters (x86 APERF/MPERF)
 * @SBRIDGE_CLOCK_FIE: the kernel's frequency-invariance scale (arm64
 *	arch_freq_scale, kept by AMU or CPPC counters or by the cpufreq
 *	driver's last request) x the maximum frequency
 * @SBRIDGE_CLOCK_CPUFREQ: the cpufreq driver's current frequency
 * @SBRIDGE_CLOCK_EMULATED: the emulation rig's cycle counters (tools/rig),
 *	a test double of APERF/MPERF and AMU: measured, but not hardware
 *
 * COUNTERS, FIE and CPUFREQ are the machine's own clock information;
 * EMULATED is the rig's; NONE is none.
 */
enum sbridge_clock {
	SBRIDGE_CLOCK_NONE = 0,
	SBRIDGE_CLOCK_COUNTERS,
	SBRIDGE_CLOCK_FIE,
	SBRIDGE_CLOCK_CPUFREQ,
	SBRIDGE_CLOCK_EMULATED,
};

/**
 * enum sbridge_event - SBRIDGE_A_EVENT_TYPE values
 * @SBRIDGE_EVENT_SOURCE: counter source registered or gone
 * @SBRIDGE_EVENT_FACTORS: CPU factors changed
 * @SBRIDGE_EVENT_RULES: rule set replaced or cleared
 * @SBRIDGE_EVENT_MATRIX: matrix loaded
 * @SBRIDGE_EVENT_VIOLATION: the work-conserving checker recorded a report
 * @SBRIDGE_EVENT_PHASE: a tracked workload changed phase
 */
/**
 * enum sbridge_hint_type - where the decision layer wants a task
 * @SBRIDGE_HINT_NONE: no decision: the stock scheduler places it
 * @SBRIDGE_HINT_FAST: on the fastest core type (the big cores)
 * @SBRIDGE_HINT_SLOW: off the fastest core type (the little cores)
 */
enum sbridge_hint_type {
	SBRIDGE_HINT_NONE = 0,
	SBRIDGE_HINT_FAST,
	SBRIDGE_HINT_SLOW,
};

/**
 * enum sbridge_est_src - where a task's speedup estimate comes from
 * @SBRIDGE_SRC_NONE: one core type: nothing to estimate
 * @SBRIDGE_SRC_PRED: the CPI stack's prediction (nothing measured yet, or
 *	the measurement still far less certain)
 * @SBRIDGE_SRC_MEAS: mostly measured on the task itself
 * @SBRIDGE_SRC_MATRIX: mostly measured on its workload's earlier runs (or
 *	its parent)
 * @SBRIDGE_SRC_BLEND: prediction and measurement both count
 * @SBRIDGE_SRC_RULE: a rule's class or factors (rules win)
 * @SBRIDGE_SRC_OVERRIDE: the prediction with a CPU factor the user set
 *	(user factors win over measurements)
 */
enum sbridge_est_src {
	SBRIDGE_SRC_NONE = 0,
	SBRIDGE_SRC_PRED,
	SBRIDGE_SRC_MEAS,
	SBRIDGE_SRC_MATRIX,
	SBRIDGE_SRC_BLEND,
	SBRIDGE_SRC_RULE,
	SBRIDGE_SRC_OVERRIDE,
};

/* Matrix phase index of a workload's start-up (SBRIDGE_A_MX_PHASE). */
#define SBRIDGE_PHASE_STARTUP		SBRIDGE_MAX_PHASES

/**
 * enum sbridge_types_from - how the core types were found
 *	(SBRIDGE_A_STATUS_TYPES_FROM)
 * @SBRIDGE_TYPES_CAPACITY: the capacities the scheduler reports
 *	(cpu_capacity: the device tree's capacity-dmips-mhz, ACPI, or the
 *	kernel's hybrid capacities); one type if they are all equal
 * @SBRIDGE_TYPES_CPUFREQ: every CPU reports one capacity, so each CPU's
 *	maximum frequency (cpufreq) stood in for it
 * @SBRIDGE_TYPES_DECLARED: declared with the cpu_types= module parameter
 * @SBRIDGE_TYPES_X86_HYBRID: every CPU reports one capacity; CPUID 0x1A's
 *	core type (Core, Atom) groups them, HWP highest performance (else the
 *	cpufreq maximum) sets the types' capacities
 * @SBRIDGE_TYPES_RANKING: every CPU reports one capacity; the CPPC highest
 *	performance (AMD's preferred-core ranking) groups them where it
 *	drops by more than 1/8
 * @SBRIDGE_TYPES_MIDR: every CPU reports one capacity; the MIDR part
 *	numbers group them (arm64), a coarse per-part tier x the cpufreq
 *	maximum sets the capacities
 */
enum sbridge_types_from {
	SBRIDGE_TYPES_CAPACITY = 1,
	SBRIDGE_TYPES_CPUFREQ,
	SBRIDGE_TYPES_DECLARED,
	SBRIDGE_TYPES_X86_HYBRID,
	SBRIDGE_TYPES_RANKING,
	SBRIDGE_TYPES_MIDR,
};

enum sbridge_event {
	SBRIDGE_EVENT_SOURCE = 1,
	SBRIDGE_EVENT_FACTORS,
	SBRIDGE_EVENT_RULES,
	SBRIDGE_EVENT_MATRIX,
	SBRIDGE_EVENT_VIOLATION,
	SBRIDGE_EVENT_PHASE,
};

#endif /* _UAPI_LINUX_SBRIDGE_H */
