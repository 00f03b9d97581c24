/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sbridge's trace events (events/sbridge/ in tracefs), layer 4's half:
 * what the decision layer decided and why, what the actuators and the
 * checker did (trace.h has the model's). The fields and their layout are
 * a contract with the recorder and the plotter: docs/record-format.md. Every event prints
 * key=value; a ratio is in thousandths (the model's fixed point,
 * SBRIDGE_FP_ONE == 1.0, is converted when the event is recorded); comm=
 * comes last. Free when disabled: each call site is a static key.
 *
 * policy.c defines CREATE_TRACE_POINTS; everything else only includes this.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sbridge

#if !defined(_SBRIDGE_TRACE_ACT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SBRIDGE_TRACE_ACT_H

#include <linux/tracepoint.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "internal.h"
#include "policy.h"
#include "trace_fp.h"

#ifndef _SBRIDGE_TRACE_ACT_HELPERS
#define _SBRIDGE_TRACE_ACT_HELPERS
/* Core type a hint gives a task, -1 for none (left to the scheduler). */
static inline int sbridge_tp_to_type(u8 hint, unsigned int fast)
{
	return hint == SBRIDGE_HINT_FAST ? (int)fast :
	       hint == SBRIDGE_HINT_SLOW ? 0 : -1;
}

/* Actuators and operations of sbridge_act. */
#define SBRIDGE_TP_ACT_PLACEMENT	0
#define SBRIDGE_TP_ACT_UCLAMP		1
#define SBRIDGE_TP_ACT_FREQ		2
#define SBRIDGE_TP_ACT_CAPACITY		3
#define SBRIDGE_TP_OP_APPLY		0
#define SBRIDGE_TP_OP_RESTORE		1
/* What the checker did (sbridge_report). */
#define SBRIDGE_TP_REPORT		0
#define SBRIDGE_TP_YIELD		1
#define SBRIDGE_TP_VAL_LEN		64
#endif

TRACE_DEFINE_ENUM(SBRIDGE_HINT_NONE);
TRACE_DEFINE_ENUM(SBRIDGE_HINT_FAST);
TRACE_DEFINE_ENUM(SBRIDGE_HINT_SLOW);

#define sbridge_tp_hint(h)						\
	__print_symbolic(h, { SBRIDGE_HINT_NONE, "none" },		\
			 { SBRIDGE_HINT_FAST, "fast" },			\
			 { SBRIDGE_HINT_SLOW, "slow" })

#define sbridge_tp_why(w)						\
	__print_symbolic(w, { SBRIDGE_WHY_GAIN, "gain" },		\
			 { SBRIDGE_WHY_HOLD, "hold" },			\
			 { SBRIDGE_WHY_RULE, "rule" },			\
			 { SBRIDGE_WHY_FULL, "full" },			\
			 { SBRIDGE_WHY_LOW, "low" },			\
			 { SBRIDGE_WHY_PINNED, "pinned" },		\
			 { SBRIDGE_WHY_IDLE, "idle" },			\
			 { SBRIDGE_WHY_ONE_TYPE, "one-type" },		\
			 { SBRIDGE_WHY_SELFTEST, "selftest" },		\
			 { SBRIDGE_WHY_TURN, "turn" },			\
			 { SBRIDGE_WHY_FILL, "fill" },			\
			 { SBRIDGE_WHY_SAMPLE, "sample" },		\
			 { SBRIDGE_WHY_TIE, "tie" })

/* One decision period ended (before its sbridge_decide events). */
TRACE_EVENT(sbridge_period,
	TP_PROTO(const struct sbridge_decision *d),
	TP_ARGS(d),
	TP_STRUCT__entry(
		__field(unsigned int, n)
		__field(unsigned int, want_fast)
		__field(unsigned int, on_fast)
		__field(unsigned int, nfast)
		__field(unsigned int, nslow)
		__field(u32, load_fast)
		__field(u32, load_slow)
	),
	TP_fast_assign(
		__entry->n = d->n;
		__entry->want_fast = d->want_fast;
		__entry->on_fast = d->on_fast;
		__entry->nfast = d->nfast;
		__entry->nslow = d->nslow;
		__entry->load_fast = sbridge_tp_milli(d->load_fast);
		__entry->load_slow = sbridge_tp_milli(d->load_slow);
	),
	TP_printk("n=%u want_fast=%u on_fast=%u nfast=%u nslow=%u load_fast=%u load_slow=%u",
		  __entry->n, __entry->want_fast, __entry->on_fast,
		  __entry->nfast, __entry->nslow, __entry->load_fast,
		  __entry->load_slow)
);

/*
 * One task of a period's decision. @lf_fast and @lf_slow: its load
 * factors on the fast and the slowest type (fp); @prev: its hint before;
 * err: the speedup's standard error; target and got: the fraction of its
 * time the plan gives it fast, and that it got lately.
 */
TRACE_EVENT(sbridge_decide,
	TP_PROTO(const struct sbridge_decision *d, const struct sbridge_hint *h,
		 u8 prev, u32 lf_fast, u32 lf_slow),
	TP_ARGS(d, h, prev, lf_fast, lf_slow),
	TP_STRUCT__entry(
		__field(int, pid)
		__field(int, from)
		__field(int, to)
		__field(u8, hint)
		__field(u8, prev)
		__field(u8, why)
		__field(u32, speedup)
		__field(u32, err)
		__field(u32, lf_fast)
		__field(u32, lf_slow)
		__field(u32, load)
		__field(u32, target)
		__field(u32, got)
		__array(char, comm, TASK_COMM_LEN)
	),
	TP_fast_assign(
		__entry->pid = task_pid_nr(h->p);
		__entry->from = h->cpu < nr_cpu_ids ?
				(int)sbridge_cpu_type(h->cpu) : -1;
		__entry->to = sbridge_tp_to_type(h->hint, d->fast_type);
		__entry->hint = h->hint;
		__entry->prev = prev;
		__entry->why = h->why;
		__entry->speedup = sbridge_tp_milli(h->speedup);
		__entry->err = sbridge_tp_milli(h->err);
		__entry->lf_fast = sbridge_tp_milli(lf_fast);
		__entry->lf_slow = sbridge_tp_milli(lf_slow);
		__entry->load = h->busy;
		__entry->target = sbridge_tp_milli(h->target);
		__entry->got = sbridge_tp_milli(h->got);
		strscpy_pad(__entry->comm, h->p->comm, TASK_COMM_LEN);
	),
	TP_printk("pid=%d from=%d to=%d hint=%s prev=%s speedup=%u err=%u lf_fast=%u lf_slow=%u load=%u target=%u got=%u why=%s comm=%s",
		  __entry->pid, __entry->from, __entry->to,
		  sbridge_tp_hint(__entry->hint), sbridge_tp_hint(__entry->prev),
		  __entry->speedup, __entry->err, __entry->lf_fast, __entry->lf_slow,
		  __entry->load, __entry->target, __entry->got,
		  sbridge_tp_why(__entry->why), __entry->comm)
);

/*
 * An actuator applied or restored a setting. @p: the task, NULL for a
 * per-CPU setting; @cpu: the CPU, -1 for a per-task one. The value is a
 * mask (@mask non-NULL), a uclamp pair @v0/@v1, or the number @v0.
 */
TRACE_EVENT(sbridge_act,
	TP_PROTO(unsigned int act, unsigned int op, struct task_struct *p,
		 int cpu, const struct cpumask *mask, u32 v0, u32 v1),
	TP_ARGS(act, op, p, cpu, mask, v0, v1),
	TP_STRUCT__entry(
		__field(unsigned int, act)
		__field(unsigned int, op)
		__field(int, pid)
		__field(int, cpu)
		__array(char, val, SBRIDGE_TP_VAL_LEN)
		__array(char, comm, TASK_COMM_LEN)
	),
	TP_fast_assign(
		__entry->act = act;
		__entry->op = op;
		__entry->pid = p ? task_pid_nr(p) : -1;
		__entry->cpu = cpu;
		/* no stale bytes of the ring buffer in the record */
		memset(__entry->val, 0, SBRIDGE_TP_VAL_LEN);
		if (mask)
			scnprintf(__entry->val, SBRIDGE_TP_VAL_LEN, "0x%*pb",
				  cpumask_pr_args(mask));
		else if (act == SBRIDGE_TP_ACT_UCLAMP)
			scnprintf(__entry->val, SBRIDGE_TP_VAL_LEN, "%u/%u", v0, v1);
		else
			scnprintf(__entry->val, SBRIDGE_TP_VAL_LEN, "%u", v0);
		if (p)
			strscpy_pad(__entry->comm, p->comm, TASK_COMM_LEN);
		else
			memset(__entry->comm, 0, TASK_COMM_LEN);
	),
	TP_printk("act=%s op=%s pid=%d cpu=%d val=%s comm=%s",
		  __print_symbolic(__entry->act,
				   { SBRIDGE_TP_ACT_PLACEMENT, "placement" },
				   { SBRIDGE_TP_ACT_UCLAMP, "uclamp" },
				   { SBRIDGE_TP_ACT_FREQ, "freq" },
				   { SBRIDGE_TP_ACT_CAPACITY, "capacity" }),
		  __print_symbolic(__entry->op,
				   { SBRIDGE_TP_OP_APPLY, "apply" },
				   { SBRIDGE_TP_OP_RESTORE, "restore" }),
		  __entry->pid, __entry->cpu, __entry->val, __entry->comm)
);

/*
 * The checker confirmed a violation: CPU @idle idled while @busy had work
 * for @waited_ms. One event per task whose steering yielded (@culprit),
 * or one with @culprit NULL when nothing yielded.
 */
TRACE_EVENT(sbridge_report,
	TP_PROTO(u32 idle, u32 busy, u32 waited_ms, struct task_struct *culprit,
		 unsigned int action),
	TP_ARGS(idle, busy, waited_ms, culprit, action),
	TP_STRUCT__entry(
		__field(u32, idle)
		__field(u32, busy)
		__field(u32, waited_ms)
		__field(int, culprit)
		__field(unsigned int, action)
		__array(char, comm, TASK_COMM_LEN)
	),
	TP_fast_assign(
		__entry->idle = idle;
		__entry->busy = busy;
		__entry->waited_ms = waited_ms;
		__entry->culprit = culprit ? task_pid_nr(culprit) : -1;
		__entry->action = action;
		if (culprit)
			strscpy_pad(__entry->comm, culprit->comm, TASK_COMM_LEN);
		else
			memset(__entry->comm, 0, TASK_COMM_LEN);
	),
	TP_printk("idle=%u busy=%u waited_ms=%u culprit=%d action=%s comm=%s",
		  __entry->idle, __entry->busy, __entry->waited_ms,
		  __entry->culprit,
		  __print_symbolic(__entry->action,
				   { SBRIDGE_TP_REPORT, "report" },
				   { SBRIDGE_TP_YIELD, "yield" }),
		  __entry->comm)
);

#endif /* _SBRIDGE_TRACE_ACT_H */

/* Out of tree: define_trace.h finds this file through -I$(src) (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_act
#include <trace/define_trace.h>
