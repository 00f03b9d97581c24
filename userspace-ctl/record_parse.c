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
#include "rules_parse.h"

size_t rec_escape(const char *s, size_t len, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < len) {
		unsigned char c = p[i];
		size_t n = c >= 0x80 ? rp_utf8_len(p + i, len - i) : 1;

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
		     struct rec_trace *t)
{
	const char *q = digits(p + 1, end, 5), *r, *n;
	unsigned int cpu = 0;

	if (!q || q == end || *q != ']' || q + 1 == end || q[1] != ' ')
		return -1;
	/* the task column before it ends in "-PID" or "(TGID)", then spaces */
	r = p;
	while (r > start && r[-1] == ' ')
		r--;
	if (r == p || r == start)
		return -1;
	if (r[-1] != ')') {
		while (r > start && is_digit(r[-1]))
			r--;
		if (r == start || r[-1] != '-' || !is_digit(*r))
			return -1;
	}
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
	t->name = q;
	t->name_len = (size_t)(n - q);
	n++;
	if (n < end && *n == ' ')
		n++;
	t->payload = n;
	t->payload_len = (size_t)(end - n);
	return 0;
}

int rec_parse_trace(const char *line, size_t len, struct rec_trace *t)
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
	n = rec_escape(s, len, out + o, outlen - o);
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

/*
 * sched_switch: "prev_comm=A prev_pid=N prev_prio=N prev_state=S ==>
 * next_comm=B next_pid=N next_prio=N", where A and B may hold spaces:
 * each comm ends where the rest of the fixed shape matches.
 */
static int fmt_switch(const struct rec_trace *t, char *out, size_t outlen)
{
	const char *p = t->payload, *end = p + t->payload_len;
	const char *pc, *pce = NULL, *pp = NULL, *ppe = NULL, *nc = NULL, *nce = NULL;
	const char *np = NULL, *npe = NULL, *q;
	char head[64];
	size_t o;

	pc = lit(p, end, "prev_comm=");
	if (!pc)
		return -1;
	for (q = pc; q < end && !nc; q++) {
		const char *r = lit(q, end, " prev_pid=");
		const char *s = r ? integer(r, end) : NULL;

		s = lit(s, end, " prev_prio=");
		s = s ? integer(s, end) : NULL;
		s = lit(s, end, " prev_state=");
		if (!s)
			continue;
		while (s < end && *s != ' ')
			s++;
		s = lit(s, end, " ==> next_comm=");
		if (!s)
			continue;
		pce = q;
		pp = r;
		ppe = integer(r, end);
		nc = s;
	}
	if (!nc)
		return -1;
	for (q = nc; q < end && !np; q++) {
		const char *r = lit(q, end, " next_pid=");
		const char *s = r ? integer(r, end) : NULL;

		s = lit(s, end, " next_prio=");
		s = s ? integer(s, end) : NULL;
		if (s != end)
			continue;
		nce = q;
		np = r;
		npe = integer(r, end);
	}
	if (!np)
		return -1;
	snprintf(head, sizeof(head), "switch %llu %u ",
		 (unsigned long long)t->ts_ns, t->cpu);
	o = put(out, 0, outlen, head, strlen(head));
	o = put(out, o, outlen, pp, (size_t)(ppe - pp));
	o = put(out, o, outlen, " ", 1);
	o = put_esc(out, o, outlen, pc, (size_t)(pce - pc));
	o = put(out, o, outlen, " ", 1);
	o = put(out, o, outlen, np, (size_t)(npe - np));
	o = put(out, o, outlen, " ", 1);
	o = put_esc(out, o, outlen, nc, (size_t)(nce - nc));
	return o == (size_t)-1 ? -1 : REC_SWITCH;
}

/* sbridge_*: the key=value fields verbatim (each escaped as a word, so a
 * stray byte cannot break the line), "comm=" last and to the line end.
 */
static int fmt_event(const struct rec_trace *t, char *out, size_t outlen)
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
	return o == (size_t)-1 ? -1 : REC_EVENT;
}

int rec_format(const char *line, size_t len, char *out, size_t outlen)
{
	struct rec_trace t;

	if (outlen)
		out[0] = '\0';
	if (rec_parse_trace(line, len, &t))
		return -1;
	if (t.name_len == 12 && !memcmp(t.name, "sched_switch", 12))
		return fmt_switch(&t, out, outlen);
	if (t.name_len > 8 && !memcmp(t.name, "sbridge_", 8))
		return fmt_event(&t, out, outlen);
	return REC_NONE;
}
