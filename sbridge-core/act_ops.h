/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an actuator is: the ops table each act_*.c defines (one lever of
 * the unmodified scheduler) and the runner (actuators.c) runs. A header
 * of types (and the actuators' own counters, which sysfs.c shows), so an
 * actuator depends on the decision's types (policy.h) and not on the
 * runner that lists it. Internal to sbridge_core.
 */
#ifndef _SBRIDGE_CORE_ACT_OPS_H
#define _SBRIDGE_CORE_ACT_OPS_H

#include <linux/types.h>
#include "policy.h"

struct sbridge_param_desc;

struct task_struct;
struct cpumask;

/* Bits of SBRIDGE_A_REPORT_HINTS: actuators in force (checker.h: more). */
#define SBRIDGE_HINT_CAPACITY	BIT(0)
#define SBRIDGE_HINT_PLACEMENT	BIT(1)
#define SBRIDGE_HINT_UCLAMP	BIT(2)
#define SBRIDGE_HINT_FREQ	BIT(3)

/**
 * struct sbridge_actuator - one lever of the unmodified scheduler
 * @name: short name (status, logs)
 * @param: its act.* switch: name, storage (1 on), range; kept in its
 *	act_*.c with its module parameter, collected by params.c at load
 * @trace_id: its id in the sbridge_act trace event (SBRIDGE_TP_ACT_*,
 *	trace_act.h)
 * @hint_bit: SBRIDGE_HINT_* bit reported while it holds a changed value
 * @init: allocate; no task touched yet (may be NULL)
 * @apply: act on this period's decision (process context, may sleep)
 * @restore: put back every value it changed (switched off, observe mode)
 * @exit: restore and free; the runner is stopped (may be NULL)
 * @fork: a task was forked (sched_process_fork: atomic, no sleeping;
 *	may be NULL)
 * @active: it holds some changed value now
 * @status: one status word
 * @user_mask: the CPUs @p chose itself, if this actuator narrowed its
 *	affinity (any non-IRQ context; may be NULL)
 * @yield: give @p its own value back for good, the checker blames it
 *	(process context; may be NULL)
 * @bpf_sched_off: stands down (restores, applies nothing) while an
 *	sbridge-aware BPF scheduler runs (kfuncs.c): it places every wakeup
 *	itself, and this lever would narrow or bias what it may choose
 *
 * Constant tables, one per act_*.c; actuators.c runs them in order
 * (docs/architecture.md: adding an actuator).
 */
struct sbridge_actuator {
	const char *name;
	struct sbridge_param_desc *param;
	u32 trace_id;
	u32 hint_bit;
	int (*init)(void);
	void (*apply)(const struct sbridge_decision *d);
	void (*restore)(void);
	void (*exit)(void);
	void (*fork)(struct task_struct *parent, struct task_struct *child);
	bool (*active)(void);
	const char *(*status)(void);
	bool (*user_mask)(struct task_struct *p, struct cpumask *mask);
	void (*yield)(struct task_struct *p);
	bool bpf_sched_off;
};

extern const struct sbridge_actuator sbridge_act_capacity;
extern const struct sbridge_actuator sbridge_act_placement;
extern const struct sbridge_actuator sbridge_act_uclamp;
extern const struct sbridge_actuator sbridge_act_freq;

/* ---- act_placement.c ---- */

/**
 * struct sbridge_placement_counts - placement's counters since load
 * @steered: tasks steered now
 * @steers: times a task was steered
 * @releases: steered tasks handed back
 * @user_wins: steered tasks whose user changed the affinity
 * @yields: tasks released for the checker
 * @inherits: children that took their parent's steering
 * @inherit_lost: children whose steering could not be recorded
 * @swept: children found by a scan of every thread (fork hook without
 *	an entry to spare, unload)
 * @fallbacks: steered tasks the kernel's hotplug fallback widened, given
 *	their own mask back
 * @refused: releases the kernel refused (each retried)
 */
struct sbridge_placement_counts {
	u32 steered;
	u64 steers, releases, user_wins, yields, inherits, inherit_lost, swept;
	u64 fallbacks, refused;
};
void sbridge_placement_read_counts(struct sbridge_placement_counts *c);

/* ---- act_uclamp.c ---- */
struct sbridge_ledger_counts;
void sbridge_uclamp_read_counts(struct sbridge_ledger_counts *c);

#endif /* _SBRIDGE_CORE_ACT_OPS_H */
