/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure half of `sbridgectl record` (docs/record-format.md): string
 * escaping and the conversion of tracefs trace_pipe lines to records. No
 * I/O, so the host tests can drive it directly.
 */
#ifndef SBRIDGECTL_RECORD_PARSE_H
#define SBRIDGECTL_RECORD_PARSE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Percent-escapes @len bytes of @s into @out (a space, '%', a control
 * byte, DEL or a byte that is not part of valid UTF-8 becomes %XX) and
 * NUL-terminates it. Returns the escaped length, or (size_t)-1 if @outlen
 * is too small (3 * @len + 1 always suffices).
 */
size_t sb_rec_escape(const char *s, size_t len, char *out, size_t outlen);

/*
 * The sbridge trace events record can enable, by their names without the
 * "sbridge_" prefix, in the order of docs/record-format.md's table. Bit i
 * of an event mask is sb_rec_events[i].
 */
#define SB_REC_NEVENTS	6
#define SB_REC_EV_ALL	((1u << SB_REC_NEVENTS) - 1)
extern const char *const sb_rec_events[SB_REC_NEVENTS];

/*
 * Parses --sbridge-events: a comma list of names of sb_rec_events
 * ("decide,act"; a name twice counts once), "all" or "none", into *@mask.
 * Returns 0, or -1 with *@bad and *@badlen the first word that is none of
 * them (an empty word too: "", "decide,", "none,act" give -1).
 */
int sb_rec_parse_events(const char *s, unsigned int *mask, const char **bad,
			size_t *badlen);

/*
 * Writes @mask as the comma list of its names in sb_rec_events order, or
 * "none", NUL-terminated, to @out. Returns the length, or (size_t)-1 if
 * @outlen is too small (64 always suffices).
 */
size_t sb_rec_events_str(unsigned int mask, char *out, size_t outlen);

/* A trace_pipe line's header: "<comm>-<pid> [CPU] FLAGS TS: NAME: ". */
struct sb_rec_trace {
	unsigned int cpu;
	int pid;		/* the task that was running (the column's PID) */
	uint64_t ts_ns;		/* the timestamp, seconds.fraction, as ns */
	const char *name;	/* the event name (not NUL-terminated) */
	size_t name_len;
	const char *payload;	/* what follows "NAME: " up to the line end */
	size_t payload_len;
};

/*
 * Parses @line (no newline). Returns 0, or -1 if it is not an event line
 * (e.g. "CPU:1 [LOST 12 EVENTS]").
 */
int sb_rec_parse_trace(const char *line, size_t len, struct sb_rec_trace *t);

/* The record kinds sb_rec_format() makes. */
enum { SB_REC_NONE, SB_REC_SWITCH, SB_REC_EVENT, SB_REC_WAKEUP, SB_REC_MIGRATE };

/*
 * Turns one trace_pipe line into its record line (no newline) in @out:
 * "switch TS CPU PREV_PID PREV_COMM NEXT_PID NEXT_COMM PREV_STATE" for
 * sched_switch, "wakeup TS CPU PID TARGET_CPU wake|new WAKER COMM" for
 * sched_wakeup[_new], "migrate TS CPU PID ORIG_CPU DEST_CPU" for
 * sched_migrate_task, "event TS CPU NAME K=V ... [comm=ESCAPED]" for
 * sbridge_*. Returns the
 * kind, SB_REC_NONE for a line of another event, or -1 for a line it cannot
 * parse (@out then holds nothing useful). @outlen must be at least
 * 3 * @len + 64.
 */
int sb_rec_format(const char *line, size_t len, char *out, size_t outlen);

/* sb_rec_format() of a line sb_rec_parse_trace() has already parsed. */
int sb_rec_format_trace(const struct sb_rec_trace *t, char *out, size_t outlen);

/*
 * Runnable tasks per CPU, kept from the scheduler's events: a task is in
 * the table from its wakeup (on target_cpu) until it is switched out in a
 * state other than R/R+, a migration moves it, the task a switch brings in
 * runs on that CPU. pid 0 (the idle tasks) and @self are never counted.
 * Open addressing keyed by pid, bounded: at most SB_REC_RQ_MAX tasks, more
 * are counted in @overflow and left out until the next reseed.
 */
#define SB_REC_RQ_SLOTS	4096	/* a power of two */
#define SB_REC_RQ_MAX	2048	/* keeps probes short */

struct sb_rec_rq {
	unsigned int *nr;		/* per CPU, @ncpu entries, the caller's */
	unsigned int ncpu;
	int self;
	unsigned int used;
	unsigned long long overflow;
	struct { int pid; unsigned int cpu; } slot[SB_REC_RQ_SLOTS];	/* pid 0: free */
};

void sb_rec_rq_init(struct sb_rec_rq *q, unsigned int *nr, unsigned int ncpu, int self);
/* Empties the table (before a reseed from /proc). */
void sb_rec_rq_clear(struct sb_rec_rq *q);
/* @pid is runnable on @cpu (added or moved); a CPU past @ncpu removes it. */
void sb_rec_rq_set(struct sb_rec_rq *q, int pid, unsigned int cpu);
void sb_rec_rq_del(struct sb_rec_rq *q, int pid);

/*
 * Applies a parsed sched_switch, sched_wakeup, sched_wakeup_new or
 * sched_migrate_task line. Returns 1 if it was one of them, 0 for any
 * other event, -1 for one of them it cannot parse (nothing changed).
 */
int sb_rec_rq_event(struct sb_rec_rq *q, const struct sb_rec_trace *t);

#endif
