/* SPDX-License-Identifier: GPL-2.0 */
/* The task list tasks.c reads, filters and prints, for top.c too. */
#ifndef SBRIDGECTL_TASKS_H
#define SBRIDGECTL_TASKS_H

#include <stdint.h>
#include <linux/sbridge.h>

#include "nl.h"

struct task {
	uint32_t pid, uid, cpu, cls, phase, cpi, stall, cpib, hint, nf;
	uint32_t pred, meas, own, warm, speedup, err, src;
	uint32_t factors[SBRIDGE_MAX_CORE_TYPES];
	uint32_t pred_kind, nmix, mix[SBRIDGE_MIX_NR];
	uint64_t runtime, delta;
	int has_cpi, has_speedup, has_meas, has_own, has_err, has_pred_kind;
	int steered;	/* placement holds the task's mask: 1, 0, -1 not said */
	char comm[SBRIDGE_KEY_LEN + 1];
	char rule[128];
};

struct tlist {
	struct task *v;
	size_t n, cap;
};

struct filter {
	const char *comm;
	long long pid, uid;
	int cls;
	unsigned long long limit;
	int sort, reverse;
};

enum { S_PID, S_COMM, S_CPU, S_CPI, S_STALL, S_CPIB, S_RUNTIME, S_UID, S_SPEEDUP,
       S_DELTA };

/* The tracked tasks (a GET_TASKS dump) into @l: 0 or a negative errno. */
int tasks_fetch(struct sb_nl *nl, struct tlist *l);
/* @l in the order of sort key @key (S_*), pid breaking ties. */
void tasks_sort(struct tlist *l, int key);
/* The tasks of @l that @f keeps, as text or JSON; @interval_ns (top) adds
 * each task's CPU share over it. */
void tasks_print(const struct tlist *l, const struct filter *f, uint64_t interval_ns);
/* Options shared by tasks and top; returns 0, 'h' or an exit code. */
int tasks_parse_filter(int argc, char **argv, struct filter *f, const char *help,
		       int top, unsigned long long *interval_ms,
		       unsigned long long *iterations);
/* top: colour the rows of tasks_print() by class. */
extern int tasks_row_colour;

#endif
