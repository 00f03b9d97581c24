/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sbridge's trace events (events/sbridge/ in tracefs), the model's half:
 * what the model saw (sbridge_window, sbridge_phase). trace_act.h has the
 * decision layer's, the actuators' and the checker's (layer 4), so a file
 * of layer 2 that traces a window includes nothing of layer 4. The fields
 * and their layout are a contract with the recorder and the plotter:
 * docs/record-format.md. Every event prints
 * key=value; a ratio is in thousandths (the model's fixed point,
 * SBRIDGE_FP_ONE == 1.0, is converted when the event is recorded); comm=
 * comes last. Free when disabled: each call site is a static key.
 *
 * trace.c defines CREATE_TRACE_POINTS; everything else only includes this.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sbridge

#if !defined(_SBRIDGE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SBRIDGE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "internal.h"
#include "trace_fp.h"

/*
 * A task's counter window closed and yielded a CPI stack. Called from the
 * switch and tick path (runqueue lock held, IRQs off): the arguments are
 * values already at hand, nothing is looked up.
 */
TRACE_EVENT(sbridge_window,
	TP_PROTO(const struct sbridge_task *t, unsigned int cpu,
		 unsigned int type, const struct sbridge_cpi *c, u32 khz,
		 unsigned int phase, unsigned int kind, u64 tpi),
	TP_ARGS(t, cpu, type, c, khz, phase, kind, tpi),
	TP_STRUCT__entry(
		__field(int, pid)
		__field(unsigned int, cpu)
		__field(unsigned int, type)
		__field(u32, cpi)
		__field(u32, stall)
		__field(u32, share)
		__field(u32, khz)
		__field(unsigned int, phase)
		__field(unsigned int, kind)
		__field(u64, tpi)
		__array(char, comm, SBRIDGE_KEY_LEN)
	),
	TP_fast_assign(
		__entry->pid = t->pid;
		__entry->cpu = cpu;
		__entry->type = type;
		__entry->cpi = sbridge_tp_milli(c->cpi);
		__entry->stall = sbridge_tp_milli(c->cpi_stall);
		__entry->share = sbridge_tp_milli(c->share_q);
		__entry->khz = khz;
		__entry->phase = phase;
		__entry->kind = kind;
		__entry->tpi = tpi;
		strscpy_pad(__entry->comm, t->comm, SBRIDGE_KEY_LEN);
	),
	TP_printk("pid=%d cpu=%u type=%u cpi=%u stall=%u share=%u khz=%u phase=%u kind=%s tpi=%llu comm=%s",
		  __entry->pid, __entry->cpu, __entry->type, __entry->cpi,
		  __entry->stall, __entry->share, __entry->khz, __entry->phase,
		  __print_symbolic(__entry->kind, { 0, "startup" }, { 1, "cold" },
				   { 2, "warm" }),
		  __entry->tpi, __entry->comm)
);

/* A task's phase tracker confirmed a new phase (same path as above). */
TRACE_EVENT(sbridge_phase,
	TP_PROTO(const struct sbridge_task *t, unsigned int from,
		 unsigned int to, u32 share),
	TP_ARGS(t, from, to, share),
	TP_STRUCT__entry(
		__field(int, pid)
		__field(unsigned int, from)
		__field(unsigned int, to)
		__field(u32, share)
		__array(char, comm, SBRIDGE_KEY_LEN)
	),
	TP_fast_assign(
		__entry->pid = t->pid;
		__entry->from = from;
		__entry->to = to;
		__entry->share = sbridge_tp_milli(share);
		strscpy_pad(__entry->comm, t->comm, SBRIDGE_KEY_LEN);
	),
	TP_printk("pid=%d from=%u to=%u share=%u comm=%s",
		  __entry->pid, __entry->from, __entry->to, __entry->share,
		  __entry->comm)
);

#endif /* _SBRIDGE_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src) (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
