/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What scx_sbridge's BPF side (scx_sbridge.bpf.c) and its loader
 * (scx_sbridge.c) share: limits, the counters, how it exited.
 */
#ifndef _SCX_SBRIDGE_H
#define _SCX_SBRIDGE_H

#define SCX_SBRIDGE_MAX_CPUS	64	/* the loader refuses more */
#define SCX_SBRIDGE_MAX_SMT	4	/* siblings per core it balances */

/* Counters since load (the BPF side's .bss). */
struct scx_sbridge_stats {
	unsigned long long hint_reads;	/* sbridge_task_hint() calls */
	unsigned long long hint_found;	/* ... for a task sbridge tracks */
	unsigned long long fast_placed;	/* wakeups put on an idle fast CPU */
	unsigned long long slow_placed;	/* wakeups put on an idle slow CPU */
	unsigned long long enq_fast;	/* fast wanters queued (no idle CPU) */
	unsigned long long enq_shared;	/* others queued */
	unsigned long long overflow;	/* fast wanters a slow CPU took */
	unsigned long long enq_pinned;	/* one-CPU tasks queued on that CPU */
	unsigned long long smove_kept;	/* Smove: wakees kept on the waker's CPU */
	unsigned long long smove_ran;	/* ... that ran there */
	unsigned long long smove_moved;	/* ... moved after the delay */
	unsigned long long smt_searches;	/* SMT-balanced idle searches */
	unsigned long long stalled;	/* stall_pid's enqueues held back (-S) */
	/* per-CPU queues (issue 33) */
	unsigned long long enq_cpu;	/* tasks queued on their CPU's own queue */
	unsigned long long cpu_ran;	/* ... taken there by that CPU */
	unsigned long long cpu_stolen;	/* ... by another that would idle */
	unsigned long long cpu_balanced;	/* ... by a busy one (queue >= 2) */
	unsigned long long overdue;	/* shared queue served first after a slice */
	unsigned long long misfit;	/* fast wanters moved off a slow CPU */
	unsigned long long up_idle;	/* lone tasks moved to an idle fast CPU */
};

/* How it exited (ops.exit), for the loader. */
struct scx_sbridge_exit {
	int exited;
	int attached;		/* told sbridge_core (sbridge_scx_attach()) */
	int kind;		/* enum scx_exit_kind */
	long long exit_code;
	char reason[128];
	char msg[256];
};

#endif /* _SCX_SBRIDGE_H */
