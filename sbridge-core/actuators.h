/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The actuator runner (actuators.c): every act.period_ms it hands the
 * decision layer's decision to each actuator's ops (act_ops.h), and it
 * answers for all of them at once (values in force, a task's own CPUs, a
 * yield). Internal to sbridge_core.
 */
#ifndef _SBRIDGE_CORE_ACTUATORS_H
#define _SBRIDGE_CORE_ACTUATORS_H

#include <linux/types.h>
#include <linux/sched.h>
#include "act_ops.h"

struct task_struct;
struct cpumask;

/* ---- actuators.c ---- */
int sbridge_actuators_params(void);
int sbridge_actuators_init(void);
void sbridge_actuators_stop(void);
void sbridge_actuators_exit(void);
void sbridge_actuators_fork(struct task_struct *parent,
			    struct task_struct *child);
u32 sbridge_hints_in_force(void);
const char *sbridge_actuators_mode(char *buf, size_t len);
const struct sbridge_actuator *sbridge_actuator_at(unsigned int i);
void sbridge_actuators_kick(void);
void sbridge_actuators_counts(u64 *runs, u64 *kicks);
bool sbridge_actuators_user_mask(struct task_struct *p, struct cpumask *mask);
void sbridge_actuators_yield(struct task_struct *p);
void sbridge_actuators_bpf_sched(bool on);
bool sbridge_actuators_bpf_sched_on(void);

#endif /* _SBRIDGE_CORE_ACTUATORS_H */
