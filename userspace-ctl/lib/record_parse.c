// SPDX-License-Identifier: GPL-2.0
/*
 * record: escaping and trace_pipe line conversion (pure, host-tested).
 *
 * A trace_pipe line is "<comm>-<pid> [CPU] FLAGS SECS.FRAC: NAME: PAYLOAD".
 * The task column is padded and its comm may hold spaces, brackets or
 * anything else; FLAGS is there only with the irq-info option and its
 * letters differ between kernels (6.1 "d..2.", lazy preemption adds more
 * need-resched letters). So the header is found by matching its whole
 * shape ("-PID" or a "(TGID)" column, spaces, "[CPU] ", ...) at each '['
 * in turn, and the first full match wins: a comm (at most 15 bytes) would
 * have to be crafted to look like a header to fool it.
 */
#include <stdio.h>
#include <string.h>

#include "record_parse.h"
#include "lex.h"

size_t sb_rec_escape(const char *s, size_t len, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < len) {
		unsigned char c = p[i];
		size_t n = c >= 0x80 ? sb_rp_utf8_len(p + i, len - i) : 1;

		if (n > 1) {
			if (o + n >= outlen)
				return (size_t)-1;
			memcpy(out + o, p + i, n);
			o += n;
			i += n;
			continue;
		}
		if (c <= 0x20 || c == '%' || c == 0x7f || c >= 0x80) {
			if (o + 3 >= outlen)
				return (size_t)-1;
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			if (o + 1 >= outlen)
				return (size_t)-1;
			out[o++] = (char)c;
		}
		i++;
	}
	if (o >= outlen)
		return (size_t)-1;
	out[o] = '\0';
	return o;
}

const char *const sb_rec_events[SB_REC_NEVENTS] = {
	"window", "phase", "period", "decide", "act", "report",
};

/* The index of @len bytes of @w in sb_rec_events, or -1. */
static int event_index(const char *w, size_t len)
{
	int i;

	for (i = 0; i < SB_REC_NEVENTS; i++)
		if (strlen(sb_rec_events[i]) == len && !memcmp(sb_rec_events[i], w, len))
			return i;
	return -1;
}

int sb_rec_parse_events(const char *s, unsigned int *mask, const char **bad,
			size_t *badlen)
{
	unsigned int m = 0;
	const char *w = s;

	if (!strcmp(s, "all") || !strcmp(s, "none")) {
		*mask = s[0] == 'a' ? SB_REC_EV_ALL : 0;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(w, ",");
		int i = event_index(w, len);

		if (i < 0) {
			*bad = w;
			*badlen = len;
			return -1;
		}
		m |= 1u << i;
		if (!w[len])
			break;
		w += len + 1;
	}
	*mask = m;
	return 0;
}

size_t sb_rec_events_str(unsigned int mask, char *out, size_t outlen)
{
	size_t o = 0, n;
	int i;

	if (!(mask & SB_REC_EV_ALL)) {
		if (outlen < 5)
			return (size_t)-1;
		memcpy(out, "none", 5);
		return 4;
	}
	for (i = 0; i < SB_REC_NEVENTS; i++) {
		if (!(mask & (1u << i)))
			continue;
		n = strlen(sb_rec_events[i]);
		if (o + !!o + n >= outlen)
			return (size_t)-1;
		if (o)
			out[o++] = ',';
		memcpy(out + o, sb_rec_events[i], n);
		o += n;
	}
	out[o] = '\0';
	return o;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Skips a run of digits at @p (at most @max); returns the end or NULL. */
static const char *digits(const char *p, const char *end, size_t max)
{
	const char *s = p;

	while (p < end && is_digit(*p) && (size_t)(p - s) < max)
		p++;
	return p > s && (p == end || !is_digit(*p)) ? p : NULL;
}

/* An optionally negative decimal integer; NULL if none. */
static const char *integer(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	return digits(p, end, 10);
}

/* @p starts with the literal @lit (within @end)? Returns past it or NULL. */
static const char *lit(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return p && (size_t)(end - p) >= n && !memcmp(p, s, n) ? p + n : NULL;
}

static const char *spaces(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

/* "SECS.FRAC: " -> ns; returns past the ": " or NULL. */
static const char *timestamp(const char *p, const char *end, uint64_t *ns)
{
	const char *q = digits(p, end, 12), *f;
	uint64_t sec = 0, frac = 0;
	int nd;

	if (!q || q == end || *q != '.')
		return NULL;
	f = digits(q + 1, end, 9);
	if (!f || f == end || *f != ':')
		return NULL;
	for (; p < q; p++)
		sec = sec * 10 + (uint64_t)(*p - '0');
	for (p = q + 1, nd = 0; p < f; p++, nd++)
		frac = frac * 10 + (uint64_t)(*p - '0');
	for (; nd < 9; nd++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return f + 1 < end && f[1] == ' ' ? f + 2 : f + 1;
}

static int name_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Tries the header shape from the '[' at @p. */
static int header_at(const char *start, const char *p, const char *end,
		     struct sb_rec_trace *t)
{
	const char *q = digits(p + 1, end, 5), *r, *n, *d;
	unsigned int cpu = 0;
	long pid = 0;

	if (!q || q == end || *q != ']' || q + 1 == end || q[1] != ' ')
		return -1;
	/* the task column before it ends in "-PID" or "(TGID)", then spaces */
	r = p;
	while (r > start && r[-1] == ' ')
		r--;
	if (r == p || r == start)
		return -1;
	if (r[-1] == ')') {
		/* "-PID (TGID)": the pid is before the tgid column */
		while (r > start && r[-1] != '(')
			r--;
		if (r == start)
			return -1;
		r--;
		while (r > start && r[-1] == ' ')
			r--;
	}
	for (d = r; r > start && is_digit(r[-1]) && d - r < 10; )
		r--;
	if (r == start || r[-1] != '-' || r == d)
		return -1;
	for (; r < d; r++)
		pid = pid * 10 + (*r - '0');
	for (r = p + 1; r < q; r++)
		cpu = cpu * 10 + (unsigned int)(*r - '0');
	r = spaces(q + 1, end);
	q = timestamp(r, end, &t->ts_ns);
	if (!q) {
		/* irq-info flags: one short word without spaces */
		const char *f = r;

		while (r < end && *r != ' ' && r - f < 8)
			r++;
		if (r == f || r == end || *r != ' ')
			return -1;
		q = timestamp(spaces(r, end), end, &t->ts_ns);
		if (!q)
			return -1;
	}
	for (n = q; n < end && name_char(*n); n++)
		;
	if (n == q || n == end || *n != ':')
		return -1;
	t->cpu = cpu;
	t->pid = (int)pid;
	t->name = q;
	t->name_len = (size_t)(n - q);
	n++;
	if (n < end && *n == ' ')
		n++;
	t->payload = n;
	t->payload_len = (size_t)(end - n);
	return 0;
}

int sb_rec_parse_trace(const char *line, size_t len, struct sb_rec_trace *t)
{
	const char *end = line + len, *p;

	for (p = line; p < end; p++)
		if (*p == '[' && !header_at(line, p, end, t))
			return 0;
	return -1;
}

/* Appends @len bytes escaped; returns the new offset or (size_t)-1. */
static size_t put_esc(char *out, size_t o, size_t outlen, const char *s, size_t len)
{
	size_t n;

	if (o == (size_t)-1 || o >= outlen)
		return (size_t)-1;
	n = sb_rec_escape(s, len, out + o, outlen - o);
	return n == (size_t)-1 ? n : o + n;
}

static size_t put(char *out, size_t o, size_t outlen, const char *s, size_t len)
{
	if (o == (size_t)-1 || o + len >= outlen)
		return (size_t)-1;
	memcpy(out + o, s, len);
	out[o + len] = '\0';
	return o + len;
}

/* sched_switch's fields: each [start, end) within the payload. */
struct rec_switch {
	const char *pc, *pce, *pp, *ppe, *ps, *pse, *nc, *nce, *np, *npe;
};

/*
 * sched_switch: "prev_comm=A prev_pid=N prev_prio=N prev_state=S ==>
 * next_comm=B next_pid=N next_prio=N", where A and B may hold spaces:
 * each comm ends where the rest of the fixed shape matches.
 */
static int parse_switch(const struct sb_rec_trace *t, struct rec_switch *w)
{
	const char *p = t->payload, *end = p + t->payload_len, *q;

	memset(w, 0, sizeof(*w));
	w->pc = lit(p, end, "prev_comm=");
	if (!w->pc)
		return -1;
	for (q = w->pc; q < end && !w->nc; q++) {
		const char *r = lit(q, end, " prev_pid=");
		const char *s = r ? integer(r, end) : NULL, *st;

		s = lit(s, end, " prev_prio=");
		s = s ? integer(s, end) : NULL;
		s = lit(s, end, " prev_state=");
		if (!s)
			continue;
		for (st = s; s < end && *s != ' '; s++)
			;
		if (s == st)
			continue;
		w->ps = st;
		w->pse = s;
		s = lit(s, end, " ==> next_comm=");
		if (!s)
			continue;
		w->pce = q;
		w->pp = r;
		w->ppe = integer(r, end);
		w->nc = s;
	}
	if (!w->nc)
		return -1;
	for (q = w->nc; q < end && !w->np; q++) {
		const char *r = lit(q, end, " next_pid=");
		const char *s = r ? integer(r, end) : NULL;

		s = lit(s, end, " next_prio=");
		s = s ? integer(s, end) : NULL;
		if (s != end)
			continue;
		w->nce = q;
		w->np = r;
		w->npe = integer(r, end);
	}
	return w->np ? 0 : -1;
}

static int fmt_switch(const struct sb_rec_trace *t, char *out, size_t outlen)
{
	struct rec_switch w;
	char head[64];
	size_t o;

	if (parse_switch(t, &w))
		return -1;
	snprintf(head, sizeof(head), "switch %llu %u ",
		 (unsigned long long)t->ts_ns, t->cpu);
	o = put(out, 0, outlen, head, strlen(head));
	o = put(out, o, outlen, w.pp, (size_t)(w.ppe - w.pp));
	o = put(out, o, outlen, " ", 1);
	o = put_esc(out, o, outlen, w.pc, (size_t)(w.pce - w.pc));
	o = put(out, o, outlen, " ", 1);
	o = put(out, o, outlen, w.np, (size_t)(w.npe - w.np));
	o = put(out, o, outlen, " ", 1);
	o = put_esc(out, o, outlen, w.nc, (size_t)(w.nce - w.nc));
	o = put(out, o, outlen, " ", 1);
	o = put_esc(out, o, outlen, w.ps, (size_t)(w.pse - w.ps));
	return o == (size_t)-1 ? -1 : SB_REC_SWITCH;
}

/* sbridge_*: the key=value fields verbatim (each escaped as a word, so a
 * stray byte cannot break the line), "comm=" last and to the line end.
 */
static int fmt_event(const struct sb_rec_trace *t, char *out, size_t outlen)
{
	const char *p = t->payload, *end = p + t->payload_len;
	char head[64];
	size_t o;

	snprintf(head, sizeof(head), "event %llu %u ",
		 (unsigned long long)t->ts_ns, t->cpu);
	o = put(out, 0, outlen, head, strlen(head));
	o = put(out, o, outlen, t->name, t->name_len);
	while (p < end) {
		const char *w;

		p = spaces(p, end);
		if (p == end)
			break;
		if (lit(p, end, "comm=")) {
			o = put(out, o, outlen, " comm=", 6);
			o = put_esc(out, o, outlen, p + 5, (size_t)(end - p - 5));
			break;
		}
		for (w = p; p < end && *p != ' '; p++)
			;
		o = put(out, o, outlen, " ", 1);
		o = put_esc(out, o, outlen, w, (size_t)(p - w));
	}
	return o == (size_t)-1 ? -1 : SB_REC_EVENT;
}


/* A decimal integer in [@p, @e) (a '-' allowed) that fits an int. */
static int to_int(const char *p, const char *e, long *v)
{
	int neg = p < e && *p == '-';
	long n = 0;

	if (neg)
		p++;
	if (p == e || e - p > 9)
		return -1;
	for (; p < e; p++) {
		if (!is_digit(*p))
			return -1;
		n = n * 10 + (*p - '0');
	}
	*v = neg ? -n : n;
	return 0;
}

static unsigned int rq_hash(int pid)
{
	return ((unsigned int)pid * 2654435761u) >> 20 & (SB_REC_RQ_SLOTS - 1);
}

/* The slot holding @pid, or the free slot ending its probe run. */
static unsigned int rq_find(const struct sb_rec_rq *q, int pid)
{
	unsigned int i = rq_hash(pid);

	while (q->slot[i].pid && q->slot[i].pid != pid)
		i = (i + 1) & (SB_REC_RQ_SLOTS - 1);
	return i;
}

void sb_rec_rq_init(struct sb_rec_rq *q, unsigned int *nr, unsigned int ncpu, int self)
{
	memset(q, 0, sizeof(*q));
	q->nr = nr;
	q->ncpu = ncpu;
	q->self = self;
	memset(nr, 0, ncpu * sizeof(*nr));
}

void sb_rec_rq_clear(struct sb_rec_rq *q)
{
	memset(q->slot, 0, sizeof(q->slot));
	memset(q->nr, 0, q->ncpu * sizeof(*q->nr));
	q->used = 0;
}

void sb_rec_rq_del(struct sb_rec_rq *q, int pid)
{
	unsigned int i, j, h;

	if (pid <= 0)
		return;
	i = rq_find(q, pid);
	if (!q->slot[i].pid)
		return;
	q->nr[q->slot[i].cpu]--;
	q->used--;
	/* backward-shift deletion: no tombstones, probe runs stay short */
	for (j = i;;) {
		q->slot[i].pid = 0;
		for (;;) {
			j = (j + 1) & (SB_REC_RQ_SLOTS - 1);
			if (!q->slot[j].pid)
				return;
			h = rq_hash(q->slot[j].pid);
			/* j's entry may move to i unless its home lies in (i, j] */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		q->slot[i] = q->slot[j];
		i = j;
	}
}

void sb_rec_rq_set(struct sb_rec_rq *q, int pid, unsigned int cpu)
{
	unsigned int i;

	if (pid <= 0 || pid == q->self)
		return;
	if (cpu >= q->ncpu) {
		sb_rec_rq_del(q, pid);
		return;
	}
	i = rq_find(q, pid);
	if (q->slot[i].pid) {
		q->nr[q->slot[i].cpu]--;
	} else if (q->used >= SB_REC_RQ_MAX) {
		q->overflow++;
		return;
	} else {
		q->slot[i].pid = pid;
		q->used++;
	}
	q->slot[i].cpu = cpu;
	q->nr[cpu]++;
}

/*
 * sched_wakeup[_new] and sched_migrate_task: "comm=C pid=N prio=N" then
 * key=value words (target_cpu=, or orig_cpu= dest_cpu=; later kernels may
 * add more). C may hold spaces: the last place where " pid=N prio=N" and
 * only key=value words follow ends it. Gives pid, the CPU under @key and
 * the comm's [*@comm, *@comm_end).
 */
static int parse_task_cpu(const struct sb_rec_trace *t, const char *key, long *pid, long *cpu,
			  const char **comm, const char **comm_end)
{
	const char *p = t->payload, *end = p + t->payload_len, *q, *c;
	size_t klen = strlen(key);
	int found = 0;

	c = lit(p, end, "comm=");
	if (!c)
		return -1;
	for (q = c; q < end; q++) {
		const char *pp = lit(q, end, " pid="), *ppe, *s, *w;
		long v = -1, n;

		ppe = pp ? integer(pp, end) : NULL;
		s = lit(ppe, end, " prio=");
		s = s ? integer(s, end) : NULL;
		if (!s)
			continue;
		while (s && s < end) {
			const char *eq = NULL;

			s = lit(s, end, " ");
			for (w = s; s && s < end && *s != ' '; s++)
				if (*s == '=' && !eq)
					eq = s;
			if (!s || !eq || eq == w)
				s = NULL;
			else if ((size_t)(eq - w) == klen && !memcmp(w, key, klen) &&
				 to_int(eq + 1, s, &n) == 0)
				v = n;
		}
		if (s != end || v < 0 || to_int(pp, ppe, &n))
			continue;
		*pid = n;
		*cpu = v;
		*comm = c;
		*comm_end = q;
		found = 1;
	}
	return found ? 0 : -1;
}

static int name_is(const struct sb_rec_trace *t, const char *name)
{
	size_t n = strlen(name);

	return t->name_len == n && !memcmp(t->name, name, n);
}

int sb_rec_rq_event(struct sb_rec_rq *q, const struct sb_rec_trace *t)
{
	const char *c, *ce;
	long pid, cpu, next;

	if (name_is(t, "sched_switch")) {
		struct rec_switch w;

		if (parse_switch(t, &w) || to_int(w.pp, w.ppe, &pid) ||
		    to_int(w.np, w.npe, &next))
			return -1;
		/* R or R+ (preempted): still on the runqueue; else it left */
		if (*w.ps == 'R')
			sb_rec_rq_set(q, (int)pid, t->cpu);
		else
			sb_rec_rq_del(q, (int)pid);
		sb_rec_rq_set(q, (int)next, t->cpu);
		return 1;
	}
	if (name_is(t, "sched_wakeup") || name_is(t, "sched_wakeup_new")) {
		if (parse_task_cpu(t, "target_cpu", &pid, &cpu, &c, &ce))
			return -1;
		sb_rec_rq_set(q, (int)pid, (unsigned int)cpu);
		return 1;
	}
	if (name_is(t, "sched_migrate_task")) {
		if (parse_task_cpu(t, "dest_cpu", &pid, &cpu, &c, &ce))
			return -1;
		/* only a runnable task moves; a waking one is placed by its wakeup */
		if (pid > 0 && q->slot[rq_find(q, (int)pid)].pid)
			sb_rec_rq_set(q, (int)pid, (unsigned int)cpu);
		return 1;
	}
	return 0;
}

/*
 * sched_wakeup[_new]: "wakeup TS CPU PID TARGET_CPU wake|new WAKER COMM",
 * WAKER the task the event was traced in (for new: the forking thread);
 * sched_migrate_task: "migrate TS CPU PID ORIG_CPU DEST_CPU".
 */
static int fmt_wakeup(const struct sb_rec_trace *t, int is_new, char *out, size_t outlen)
{
	const char *c, *ce;
	long pid, cpu;
	char head[128];
	size_t o;

	if (parse_task_cpu(t, "target_cpu", &pid, &cpu, &c, &ce))
		return -1;
	snprintf(head, sizeof(head), "wakeup %llu %u %ld %ld %s %d ",
		 (unsigned long long)t->ts_ns, t->cpu, pid, cpu, is_new ? "new" : "wake", t->pid);
	o = put(out, 0, outlen, head, strlen(head));
	o = put_esc(out, o, outlen, c, (size_t)(ce - c));
	return o == (size_t)-1 ? -1 : SB_REC_WAKEUP;
}

static int fmt_migrate(const struct sb_rec_trace *t, char *out, size_t outlen)
{
	const char *c, *ce;
	long pid, from, to;
	int n;

	if (parse_task_cpu(t, "orig_cpu", &pid, &from, &c, &ce) ||
	    parse_task_cpu(t, "dest_cpu", &pid, &to, &c, &ce))
		return -1;
	n = snprintf(out, outlen, "migrate %llu %u %ld %ld %ld",
		     (unsigned long long)t->ts_ns, t->cpu, pid, from, to);
	return n < 0 || (size_t)n >= outlen ? -1 : SB_REC_MIGRATE;
}

int sb_rec_format_trace(const struct sb_rec_trace *t, char *out, size_t outlen)
{
	if (outlen)
		out[0] = '\0';
	if (name_is(t, "sched_switch"))
		return fmt_switch(t, out, outlen);
	if (name_is(t, "sched_wakeup") || name_is(t, "sched_wakeup_new"))
		return fmt_wakeup(t, t->name_len > 12, out, outlen);
	if (name_is(t, "sched_migrate_task"))
		return fmt_migrate(t, out, outlen);
	if (t->name_len > 8 && !memcmp(t->name, "sbridge_", 8))
		return fmt_event(t, out, outlen);
	return SB_REC_NONE;
}

int sb_rec_format(const char *line, size_t len, char *out, size_t outlen)
{
	struct sb_rec_trace t;

	if (outlen)
		out[0] = '\0';
	if (sb_rec_parse_trace(line, len, &t))
		return -1;
	return sb_rec_format_trace(&t, out, outlen);
}
