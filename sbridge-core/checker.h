/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The work-conserving invariant checker of "The Linux Scheduler: a
 * Decade of Wasted Cores" (checker.c), beside the actuators: it reads
 * which of them are in force and asks the runner to undo a steering it
 * blames. main.c starts it after the runner and stops it first.
 * Internal to sbridge_core.
 */
#ifndef _SBRIDGE_CORE_CHECKER_H
#define _SBRIDGE_CORE_CHECKER_H

#include <linux/types.h>

/* Bits of SBRIDGE_A_REPORT_HINTS beside the actuators' (actuators.h). */
/* The report's waiting task was steered by sbridge (placement yielded). */
#define SBRIDGE_HINT_CAUSED	BIT(8)
/* A fast CPU idled while a task that gains from it ran on a slow one. */
#define SBRIDGE_HINT_SLOWER	BIT(9)

/* The checker's ring of reports; sysfs shows the newest that fit a page. */
#define SBRIDGE_REPORTS		64
#define SBRIDGE_REPORTS_SHOWN	32

/**
 * struct sbridge_report - one confirmed violation
 * @time_ns: CLOCK_MONOTONIC when it was confirmed
 * @idle_cpu: the CPU left idle
 * @busy_cpu: the CPU with waiting work
 * @nr_waiting: tasks waiting on @busy_cpu
 * @hints: SBRIDGE_HINT_* in force (and SBRIDGE_HINT_CAUSED)
 */
struct sbridge_report {
	u64 time_ns;
	u32 idle_cpu;
	u32 busy_cpu;
	u32 nr_waiting;
	u32 hints;
};

/**
 * struct sbridge_checker_counts - the checker's counters since load
 * @checks: passes
 * @candidates: violations seen once
 * @transient: candidates gone when looked at again
 * @reports: violations confirmed and reported
 * @unavoidable: passes that saw only violations pinning makes unavoidable
 * @yields: tasks placement released on the checker's behalf
 */
struct sbridge_checker_counts {
	u64 checks, candidates, transient, reports, unavoidable, yields;
};

int sbridge_checker_init(void);
void sbridge_checker_exit(void);
void sbridge_checker_read_counts(struct sbridge_checker_counts *c);
bool sbridge_checker_get_report(u64 seq, struct sbridge_report *r, u64 *end);

#endif /* _SBRIDGE_CORE_CHECKER_H */
