// SPDX-License-Identifier: GPL-2.0
/*
 * record: sbridge's trace events, context switches and a per-CPU sample
 * to one text file (docs/record-format.md).
 *
 * The recorder works in a tracefs instance of its own so the global buffer
 * and any other tracer are left alone; its clock is "mono", the clock of
 * the samples. It wakes at the sample rate (at least every 100 ms), drains
 * the instance's trace_pipe without blocking and takes a sample when one
 * is due: no wakeup per event, so recording does not feed the switches it
 * records. With --defer it does not read at all until the end: the events
 * wait in the instance's buffer and the samples in memory, merged by time
 * when the recording stops, so what is recorded pays for none of the
 * text formatting (the dear part, and all of it on the recorder's CPU).
 * Every exit path after the instance exists removes it.
 */
#define _GNU_SOURCE	/* memmem */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cpulist.h"
#include "record_parse.h"
#include "sbridgectl.h"

static const char record_help[] =
"usage: sbridgectl record [-o FILE] [-d SECONDS] [-r HZ] [-s MAX_BYTES]\n"
"                         [-b BUFFER] [--defer] [--sbridge-events=LIST]\n"
"                         [--no-switches] [--force]\n"
"\n"
"Record sbridge's trace events, the scheduler's context switches, wakeups\n"
"and migrations and a per-CPU sample (runnable tasks, busy share,\n"
"frequency) to FILE, in the\n"
"text format sbridgectl(8) (record) describes, until SECONDS have passed,\n"
"SIGINT, SIGTERM or SIGHUP, or FILE reaches MAX_BYTES; the file then ends\n"
"with an `end` line naming why, and the exit status is 0. Needs root\n"
"(tracefs; exit 4 otherwise). Without the sbridge module, records\n"
"switches and samples only. Works in a tracefs instance of its own,\n"
"removed on exit, and mounts tracefs if it is not.\n"
"\n"
"  -o, --output=FILE       where to write (default sbridge.rec, '-' for\n"
"                          stdout); an existing FILE is kept unless --force\n"
"  -d, --duration=SECONDS  stop after SECONDS, 1-2000000 (default: at a\n"
"                          signal)\n"
"  -r, --rate=HZ           samples per CPU a second, 1-100 (default 20)\n"
"  -s, --max-size=BYTES    size limit, 4096 to 1G, suffix K, M or G\n"
"                          (default 16M); the end line fits within it\n"
"  -b, --buffer=BYTES      the kernel's trace buffer per CPU, 64K to 1G\n"
"                          (default: the kernel's, 1408K on most)\n"
"  --defer                 read nothing until the recording ends: the\n"
"                          events wait in the kernel's buffer (-b; when it\n"
"                          is full later events are lost, and counted),\n"
"                          the samples in memory; the recorder only wakes\n"
"                          to sample, so it takes almost no CPU meanwhile\n"
"  --sbridge-events=LIST   sbridge's trace events to record: all (default),\n"
"                          none, or a comma list of window, phase, period,\n"
"                          decide, act, report (e.g. decide,act); window,\n"
"                          one per counter window of every task, is by far\n"
"                          the most\n"
"  --no-switches           leave out sched_switch, wakeups and migrations\n"
"                          (the runnable count then scans /proc per\n"
"                          sample: costlier)\n"
"  -f, --force             overwrite FILE\n";

#define REC_LINE_MAX	8192	/* a longer trace_pipe line is skipped */
#define REC_END_RESERVE	256	/* room always kept for the end line */
#define REC_MAX_TICK_NS	100000000ULL
/*
 * The event-driven runnable count is reseeded from /proc this often. A
 * LOST line (the usual cause of drift) brings the next reseed forward,
 * never closer than 1 s to the last; the periodic one only bounds how
 * long a rarer miss (events read out of order across CPUs) can skew the
 * count. A scan costs 0.1-0.25 s of CPU on the TCG demo board (~140
 * threads), so 10 s keeps it near 1-2 % of a CPU.
 */
#define REC_RESYNC_NS	10000000000ULL
#define REC_RESYNC_MIN_NS 1000000000ULL

/* What the command line asks of a recording. */
struct rec_opts {
	unsigned long long duration, rate, max;
	unsigned long long buffer;	/* kernel buffer per CPU, bytes; 0: the kernel's */
	const char *out;
	int switches, force, defer;
	unsigned int sbev;		/* sbridge events, a mask of sb_rec_events */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct rec {
	FILE *out;
	const char *path;		/* NULL for stdout */
	unsigned long long size, max;
	unsigned long long events, samples, switches, wakeups, migrations, dropped, lost, bad;
	int full;
	char tracefs[64];
	char inst[128];			/* our instance's directory, "" if none */
	int mounted;			/* we mounted tracefs */
	int pipe_fd;
	int defer;			/* --defer: read only at the end */
	/* samples */
	unsigned int ncpu;		/* highest possible CPU + 1 */
	struct sb_cpuset possible;
	unsigned long long *busy, *total;	/* previous /proc/stat, per CPU */
	unsigned long long *cbusy, *ctotal;	/* the current one */
	unsigned int *nr;
	struct sb_rec_rq rq;		/* runnable tasks from the events */
	int track;			/* rq follows the sched events */
	uint64_t resync_at, resynced;	/* next and last /proc reseed */
	unsigned long long resyncs;
	int *khz_fd;
	/* --defer: samples held until the events before them are read */
	struct rec_held {
		uint64_t ts;
		unsigned int cpu, nr, busy;
		unsigned long long khz;
	} *held;
	size_t nheld, held_cap, held_next;
	int stat_fd;
	char *stat_buf;
	size_t stat_len;
	/* trace_pipe line assembly */
	char line[REC_LINE_MAX];
	size_t line_len;
	int line_skip;			/* inside an overlong line */
	char obuf[3 * REC_LINE_MAX + 64];
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Writes @val to a tracefs or sysfs file; 0 or a negative errno. */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), ret = 0;
	size_t n = strlen(val);

	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != (ssize_t)n)
		ret = -errno;
	close(fd);
	return ret;
}

static int inst_write(struct rec *r, const char *rel, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", r->inst, rel);
	return write_file(path, val);
}

/* A small sysfs/proc file's first line as a number; @def if unreadable. */
static unsigned long long read_ull(const char *path, unsigned long long def)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return def;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || buf[0] < '0' || buf[0] > '9')
		return def;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

/* Re-reads a sysfs/proc file kept open (seq_file regenerates at offset 0). */
static ssize_t reread(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static int find_tracefs(struct rec *r)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	char p[96];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/instances", dirs[i]);
		if (!access(p, F_OK)) {
			snprintf(r->tracefs, sizeof(r->tracefs), "%s", dirs[i]);
			return 0;
		}
	}
	if (mount("tracefs", dirs[0], "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		sb_err("record: tracefs is not mounted and mounting it on %s failed: %s "
		       "(a kernel without CONFIG_TRACING?)", dirs[0], strerror(errno));
		return SB_EXIT_ERR;
	}
	r->mounted = 1;
	snprintf(r->tracefs, sizeof(r->tracefs), "%s", dirs[0]);
	return 0;
}

/* Disables what we enabled and removes the instance; quiet if none. */
static int drop_instance(struct rec *r)
{
	int i, ret = 0;

	if (r->pipe_fd >= 0)
		close(r->pipe_fd);
	r->pipe_fd = -1;
	if (r->inst[0]) {
		inst_write(r, "tracing_on", "0");
		inst_write(r, "events/enable", "0");
		/* a reader of the pipe may still hold it for a moment */
		for (i = 0; i < 50 && rmdir(r->inst) && errno == EBUSY; i++)
			poll(NULL, 0, 20);
		if (!access(r->inst, F_OK)) {
			sb_err("record: cannot remove the tracefs instance %s: %s",
			       r->inst, strerror(errno));
			ret = SB_EXIT_ERR;
		}
		r->inst[0] = '\0';
	}
	if (r->mounted)
		umount(r->tracefs);
	r->mounted = 0;
	return ret;
}

/*
 * Removes instances a recorder killed by SIGKILL left behind. A live
 * recorder's instance is safe: its pid answers, and its open trace_pipe
 * would make rmdir fail with EBUSY anyway.
 */
static void reap_stale(struct rec *r)
{
	char dir[96], p[384];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/instances", r->tracefs);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;
		char *end;

		if (strncmp(e->d_name, "sbridge-record-", 15))
			continue;
		pid = strtol(e->d_name + 15, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || !kill((pid_t)pid, 0) ||
		    errno != ESRCH)
			continue;
		snprintf(p, sizeof(p), "%s/%s/events/enable", dir, e->d_name);
		write_file(p, "0");
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (!rmdir(p))
			sb_err("record: removed %s, left by a recorder that was killed", p);
	}
	closedir(d);
}

#define REC_EVNAMES_MAX	1024	/* the names of the sbridge events recorded */

/*
 * The names (without "sbridge_") of every event under the instance's
 * events/sbridge/, into @names: the known ones in sb_rec_events order,
 * then any this sbridgectl does not know (a newer module's), or "none".
 */
static int list_sbridge(struct rec *r, char *names, size_t len)
{
	char p[256], extra[REC_EVNAMES_MAX] = "";
	unsigned int found = 0;
	size_t n, x = 0;
	struct dirent *e;
	DIR *d;
	int i;

	snprintf(p, sizeof(p), "%s/events/sbridge", r->inst);
	d = opendir(p);
	if (!d) {
		sb_err("record: cannot list %s: %s", p, strerror(errno));
		return SB_EXIT_ERR;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "sbridge_", 8) || !e->d_name[8])
			continue;
		for (i = 0; i < SB_REC_NEVENTS && strcmp(e->d_name + 8, sb_rec_events[i]); i++)
			;
		if (i < SB_REC_NEVENTS) {
			found |= 1u << i;
			continue;
		}
		n = strlen(e->d_name + 8);
		if (x + n + 2 > sizeof(extra)) {
			closedir(d);
			sb_err("record: too many sbridge events to name in the header");
			return SB_EXIT_ERR;
		}
		x += (size_t)snprintf(extra + x, sizeof(extra) - x, ",%s", e->d_name + 8);
	}
	closedir(d);
	if (!found && !x) {
		sb_rec_events_str(0, names, len);
		return 0;
	}
	n = found ? sb_rec_events_str(found, names, len) : 0;
	if (n == (size_t)-1 || n + x + 1 > len) {
		sb_err("record: too many sbridge events to name in the header");
		return SB_EXIT_ERR;
	}
	/* each extra name is led by a comma: none before the first name */
	memcpy(names + n, extra + !found, x + 1 - !found);
	return 0;
}

/*
 * Enables the sbridge events of @mask in the instance: for SB_REC_EV_ALL
 * all of the module's (events/sbridge/enable: a newer module's too), else
 * each one's own. *@have: the module has trace events. @names: what was
 * enabled, for the header ("none" if nothing). 0 or an exit code; an event
 * asked for that the loaded module lacks is an error.
 */
static int enable_sbridge(struct rec *r, unsigned int mask, int *have, char *names,
			  size_t len)
{
	char p[256];
	int i, ret;

	snprintf(p, sizeof(p), "%s/events/sbridge/enable", r->inst);
	*have = !access(p, F_OK);
	if (!*have || !mask) {
		sb_rec_events_str(0, names, len);
		return 0;
	}
	if (mask == SB_REC_EV_ALL) {
		ret = write_file(p, "1");
		if (ret) {
			sb_err("record: cannot enable the sbridge events: %s", strerror(-ret));
			return SB_EXIT_ERR;
		}
		return list_sbridge(r, names, len);
	}
	for (i = 0; i < SB_REC_NEVENTS; i++) {
		if (!(mask & (1u << i)))
			continue;
		snprintf(p, sizeof(p), "%s/events/sbridge/sbridge_%s/enable", r->inst,
			 sb_rec_events[i]);
		ret = write_file(p, "1");
		if (ret) {
			sb_err("record: cannot enable sbridge_%s: %s%s", sb_rec_events[i],
			       strerror(-ret), ret == -ENOENT ?
			       " (the loaded sbridge module does not have it: an older one?)" : "");
			return SB_EXIT_ERR;
		}
	}
	if (sb_rec_events_str(mask, names, len) == (size_t)-1)
		return SB_EXIT_ERR;	/* cannot happen: REC_EVNAMES_MAX holds all */
	return 0;
}

/*
 * The instance's buffer: @bytes per CPU (0 keeps the kernel's size), and
 * with --defer no overwriting, so a full buffer loses the newest events
 * and what is kept stays a whole prefix the runnable count can replay.
 */
static int size_buffer(struct rec *r, unsigned long long bytes, int defer)
{
	char kb[32];
	int ret;

	if (bytes) {
		snprintf(kb, sizeof(kb), "%llu", (bytes + 1023) / 1024);
		ret = inst_write(r, "buffer_size_kb", kb);
		if (ret) {
			sb_err("record: cannot size the trace buffer to %s KiB per CPU: %s", kb,
			       strerror(-ret));
			return SB_EXIT_ERR;
		}
	}
	if (defer) {
		ret = inst_write(r, "options/overwrite", "0");
		if (ret) {
			sb_err("record: cannot turn off overwriting in %s: %s", r->inst,
			       strerror(-ret));
			return SB_EXIT_ERR;
		}
	}
	return 0;
}

/*
 * Events the kernel could not keep, from each CPU's stats: overwritten
 * before they were read ("overrun") or refused by a full buffer that does
 * not overwrite ("dropped events", 4.x and later).
 */
static unsigned long long lost_events(struct rec *r)
{
	unsigned long long n = 0;
	char p[256], l[128];
	unsigned int c;

	for (c = 0; c < r->ncpu; c++) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%u/stats", r->inst, c);
		f = fopen(p, "re");
		if (!f)
			continue;
		while (fgets(l, sizeof(l), f)) {
			if (!strncmp(l, "overrun: ", 9))
				n += strtoull(l + 9, NULL, 10);
			else if (!strncmp(l, "dropped events: ", 16))
				n += strtoull(l + 16, NULL, 10);
		}
		fclose(f);
	}
	return n;
}

static int make_instance(struct rec *r, const struct rec_opts *o, int *sbridge_events,
			 char *names, size_t len)
{
	static const char *const track[] = { "sched_wakeup", "sched_wakeup_new",
					      "sched_migrate_task" };
	char p[256], ev[64];
	size_t i;
	int ret;

	snprintf(r->inst, sizeof(r->inst), "%s/instances/sbridge-record-%d",
		 r->tracefs, (int)getpid());
	if (mkdir(r->inst, 0700)) {
		sb_err("record: cannot create the tracefs instance %s: %s", r->inst,
		       strerror(errno));
		r->inst[0] = '\0';
		return errno == EACCES || errno == EPERM ? SB_EXIT_PERM : SB_EXIT_ERR;
	}
	/* nothing recorded until the header is out */
	inst_write(r, "tracing_on", "0");
	ret = inst_write(r, "trace_clock", "mono");
	if (ret) {
		sb_err("record: cannot set trace_clock=mono in %s: %s", r->inst,
		       strerror(-ret));
		return SB_EXIT_ERR;
	}
	/* the parser reads either header; without irq-info it is shorter */
	inst_write(r, "options/irq-info", "0");
	ret = size_buffer(r, o->buffer, o->defer);
	if (ret)
		return ret;
	if (o->switches) {
		ret = inst_write(r, "events/sched/sched_switch/enable", "1");
		if (ret) {
			sb_err("record: cannot enable sched/sched_switch: %s", strerror(-ret));
			return SB_EXIT_ERR;
		}
		/*
		 * For the runnable count and written (wakeup, migrate): with
		 * the switches they follow every runqueue change. Without one
		 * of them the count falls back to a /proc scan per sample and
		 * the file says so (meta wakeups no).
		 */
		r->track = 1;
		for (i = 0; i < SB_ARRAY_SIZE(track) && r->track; i++) {
			snprintf(ev, sizeof(ev), "events/sched/%s/enable", track[i]);
			if (inst_write(r, ev, "1"))
				r->track = 0;
		}
		if (!r->track)
			for (i = 0; i < SB_ARRAY_SIZE(track); i++) {
				snprintf(ev, sizeof(ev), "events/sched/%s/enable", track[i]);
				inst_write(r, ev, "0");
			}
	}
	ret = enable_sbridge(r, o->sbev, sbridge_events, names, len);
	if (ret)
		return ret;
	snprintf(p, sizeof(p), "%s/trace_pipe", r->inst);
	r->pipe_fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->pipe_fd < 0) {
		sb_err("record: cannot open %s: %s", p, strerror(errno));
		return SB_EXIT_ERR;
	}
	return 0;
}

/* One record line: written if it fits the limit with the end line's room. */
static void emit(struct rec *r, const char *s, size_t len)
{
	if (!r->full && r->size + len + 1 + REC_END_RESERVE > r->max)
		r->full = 1;
	if (r->full) {
		r->dropped++;
		return;
	}
	fwrite(s, 1, len, r->out);
	fputc('\n', r->out);
	r->size += len + 1;
}

/* One sample line; @nr from the event-driven count when it is kept. */
static void emit_sample(struct rec *r, uint64_t ts, unsigned int cpu, unsigned int nr,
			unsigned int busy, unsigned long long khz)
{
	char line[128];
	int len;

	len = snprintf(line, sizeof(line), "sample %llu %u %u %u %llu",
		       (unsigned long long)ts, cpu, r->track ? r->nr[cpu] : nr, busy, khz);
	emit(r, line, (size_t)len);
	if (!r->full)
		r->samples++;
}

/*
 * --defer: writes the held samples taken up to @ts, with the runnable
 * count the events replayed so far give, as the live recorder would have.
 */
static void flush_held(struct rec *r, uint64_t ts)
{
	struct rec_held *h;

	for (; r->held_next < r->nheld && r->held[r->held_next].ts <= ts; r->held_next++) {
		h = &r->held[r->held_next];
		emit_sample(r, h->ts, h->cpu, h->nr, h->busy, h->khz);
	}
}

/* --defer: keeps one CPU's sample; past what the file could hold, drops it. */
static void hold_sample(struct rec *r, uint64_t ts, unsigned int cpu, unsigned int nr,
			unsigned int busy, unsigned long long khz)
{
	struct rec_held *h;

	/* a sample line is at least 16 bytes: more could not be written */
	if (r->nheld >= r->max / 16) {
		r->dropped++;
		return;
	}
	if (r->nheld == r->held_cap) {
		size_t cap = r->held_cap ? r->held_cap * 2 : 1024;

		h = realloc(r->held, cap * sizeof(*h));
		if (!h) {
			r->dropped++;
			return;
		}
		r->held = h;
		r->held_cap = cap;
	}
	r->held[r->nheld++] = (struct rec_held){ ts, cpu, nr, busy, khz };
}

static void trace_line(struct rec *r, const char *s, size_t len)
{
	struct sb_rec_trace tr;
	int kind;

	if (sb_rec_parse_trace(s, len, &tr)) {
		/* "CPU:1 [LOST 12 EVENTS]": the kernel's buffer overran */
		const char *l = memmem(s, len, "[LOST ", 6);

		if (l) {
			r->lost += strtoull(l + 6, NULL, 10);
			/* the runnable count missed changes: reseed soon */
			if (r->track && r->resync_at > r->resynced + REC_RESYNC_MIN_NS)
				r->resync_at = r->resynced + REC_RESYNC_MIN_NS;
		} else {
			r->bad++;
		}
		return;
	}
	flush_held(r, tr.ts_ns);
	kind = sb_rec_format_trace(&tr, r->obuf, sizeof(r->obuf));
	/* a bad switch line counts once, below */
	if (r->track && sb_rec_rq_event(&r->rq, &tr) < 0 && kind >= 0)
		r->bad++;
	if (kind == SB_REC_NONE)
		return;
	if (kind < 0) {
		r->bad++;
		return;
	}
	if (r->full) {
		r->dropped++;
		return;
	}
	emit(r, r->obuf, strlen(r->obuf));
	if (r->full)
		return;
	if (kind == SB_REC_SWITCH)
		r->switches++;
	else if (kind == SB_REC_WAKEUP)
		r->wakeups++;
	else if (kind == SB_REC_MIGRATE)
		r->migrations++;
	else
		r->events++;
}

/* Reads what trace_pipe has (at most @budget bytes) into records. */
static int drain(struct rec *r, size_t budget)
{
	char buf[16384];

	while (budget) {
		ssize_t n = read(r->pipe_fd, buf, sizeof(buf)), i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			sb_err("record: reading trace_pipe: %s", strerror(errno));
			return -1;
		}
		if (!n)
			return 0;
		budget = (size_t)n >= budget ? 0 : budget - (size_t)n;
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				if (!r->line_skip)
					trace_line(r, r->line, r->line_len);
				else
					r->bad++;
				r->line_len = 0;
				r->line_skip = 0;
			} else if (r->line_len < sizeof(r->line)) {
				r->line[r->line_len++] = buf[i];
			} else {
				r->line_skip = 1;
			}
		}
	}
	return 0;
}

/* /proc/stat per CPU: busy (all but idle and iowait) and total jiffies. */
static int read_stat(struct rec *r, unsigned long long *busy, unsigned long long *total,
		     struct sb_cpuset *seen)
{
	char *p;
	ssize_t n;

	for (;;) {
		n = reread(r->stat_fd, r->stat_buf, r->stat_len);
		if (n < 0)
			return -1;
		if ((size_t)n < r->stat_len - 1)
			break;
		p = realloc(r->stat_buf, r->stat_len * 2);
		if (!p)
			return -1;
		r->stat_buf = p;
		r->stat_len *= 2;
	}
	memset(seen, 0, sizeof(*seen));
	for (p = r->stat_buf; (p = strstr(p, "\ncpu")); ) {
		unsigned long long v[10] = { 0 }, t = 0;
		unsigned int cpu, k;
		char *e;

		p += 4;
		cpu = (unsigned int)strtoul(p, &e, 10);
		if (e == p || *e != ' ' || cpu >= r->ncpu)
			continue;
		for (k = 0; k < 10; k++) {
			v[k] = strtoull(e, &e, 10);
			if (k < 8)	/* guest time is inside user time */
				t += v[k];
		}
		busy[cpu] = t - v[3] - v[4];
		total[cpu] = t;
		seen->bits[cpu / 64] |= 1ULL << (cpu % 64);
	}
	return 0;
}

/*
 * A stat file's word @k after the "(comm)" (0: the state, field 3);
 * NULL if it is not there.
 */
static const char *stat_word(const char *buf, int k)
{
	const char *c = strrchr(buf, ')');

	if (!c || c[1] != ' ')
		return NULL;
	for (c += 2; *c && k; c++)
		if (*c == ' ')
			k--;
	return *c ? c : NULL;
}

/* Reads @rel's stat under @dirfd; adds the task if it is in state R. */
static int stat_task(struct rec *r, int dirfd, const char *rel, int tid, char *buf,
		     size_t len)
{
	const char *c;
	ssize_t n;
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	c = stat_word(buf, 0);
	if (c && *c == 'R' && tid != (int)getpid()) {
		/* field 39, the CPU it last ran on */
		c = stat_word(buf, 36);
		if (c && *c >= '0' && *c <= '9') {
			unsigned long cpu = strtoul(c, NULL, 10);

			if (cpu < r->ncpu)
				sb_rec_rq_set(&r->rq, tid, (unsigned int)cpu);
		}
	}
	return 0;
}

/*
 * Tasks runnable per CPU from /proc: threads in state R by their last CPU
 * (field 39 of /proc/PID/task/TID/stat), the recorder left out, into the
 * table the events then keep up to date. No per-CPU runqueue length is
 * exported outside debugfs, whose dump walks every task under the
 * runqueue locks. Opening every thread's stat is costly (~0.1 s under
 * TCG for 140 threads), so it runs per sample only without the events.
 */
static void count_runnable(struct rec *r)
{
	DIR *d = opendir("/proc"), *t;
	struct dirent *e, *f;
	char path[300], buf[1024];

	sb_rec_rq_clear(&r->rq);
	r->resyncs++;
	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *c;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		/* most are single-threaded (kernel threads): their stat is the thread's */
		snprintf(path, sizeof(path), "%s/stat", e->d_name);
		if (stat_task(r, dirfd(d), path, atoi(e->d_name), buf, sizeof(buf)))
			continue;
		c = stat_word(buf, 17);		/* field 20, num_threads */
		if (c && c[0] == '1' && c[1] == ' ')
			continue;
		sb_rec_rq_del(&r->rq, atoi(e->d_name));	/* counted below as a thread */
		snprintf(path, sizeof(path), "/proc/%s/task", e->d_name);
		t = opendir(path);
		if (!t)
			continue;
		while ((f = readdir(t)))
			if (f->d_name[0] >= '1' && f->d_name[0] <= '9') {
				snprintf(path, sizeof(path), "%s/stat", f->d_name);
				stat_task(r, dirfd(t), path, atoi(f->d_name), buf, sizeof(buf));
			}
		closedir(t);
	}
	closedir(d);
}

static void sample(struct rec *r)
{
	unsigned long long *busy = r->cbusy, *total = r->ctotal;
	struct sb_cpuset seen;
	uint64_t ts;
	unsigned int c;
	char kbuf[32];

	if (read_stat(r, busy, total, &seen))
		return;
	ts = now_ns(CLOCK_MONOTONIC);
	/* deferred events are replayed later: no reseed can be placed among them */
	if (!r->track || (!r->defer && ts >= r->resync_at)) {
		/* what the pipe holds is older than the scan: replayed after it */
		count_runnable(r);
		r->resynced = ts;
		r->resync_at = ts + REC_RESYNC_NS;
		ts = now_ns(CLOCK_MONOTONIC);
	}
	for (c = 0; c < r->ncpu; c++) {
		unsigned long long db, dt, khz = 0;
		unsigned int permille;

		if (!sb_cpuset_has(&seen, c))
			continue;
		db = busy[c] - r->busy[c];
		dt = total[c] - r->total[c];
		if (total[c] < r->total[c] || busy[c] < r->busy[c])
			db = dt = 0;	/* CPU went away and came back */
		r->busy[c] = busy[c];
		r->total[c] = total[c];
		if (r->khz_fd[c] >= 0 && reread(r->khz_fd[c], kbuf, sizeof(kbuf)) > 0)
			khz = strtoull(kbuf, NULL, 10);
		permille = dt ? (db > dt ? 1000 : (unsigned int)(db * 1000 / dt)) : 0;
		if (r->defer) {
			hold_sample(r, ts, c, r->nr[c], permille, khz);
			continue;
		}
		emit_sample(r, ts, c, r->nr[c], permille, khz);
		if (r->full)
			return;
	}
}

static int setup_samples(struct rec *r)
{
	struct sb_cpuset seen;
	unsigned int c;
	char p[96];

	r->busy = calloc(r->ncpu, sizeof(*r->busy));
	r->total = calloc(r->ncpu, sizeof(*r->total));
	r->cbusy = calloc(r->ncpu, sizeof(*r->cbusy));
	r->ctotal = calloc(r->ncpu, sizeof(*r->ctotal));
	r->nr = calloc(r->ncpu, sizeof(*r->nr));
	r->khz_fd = calloc(r->ncpu, sizeof(*r->khz_fd));
	r->stat_len = 4096;
	r->stat_buf = malloc(r->stat_len);
	r->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (!r->busy || !r->total || !r->cbusy || !r->ctotal || !r->nr || !r->khz_fd || !r->stat_buf ||
	    r->stat_fd < 0) {
		sb_err("record: cannot set up sampling: %s",
		       r->stat_fd < 0 ? "cannot open /proc/stat" : "out of memory");
		return SB_EXIT_ERR;
	}
	for (c = 0; c < r->ncpu; c++) {
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu%u/cpufreq/scaling_cur_freq", c);
		r->khz_fd[c] = sb_cpuset_has(&r->possible, c) ? open(p, O_RDONLY | O_CLOEXEC) : -1;
	}
	if (read_stat(r, r->busy, r->total, &seen)) {
		sb_err("record: cannot read /proc/stat");
		return SB_EXIT_ERR;
	}
	sb_rec_rq_init(&r->rq, r->nr, r->ncpu, (int)getpid());
	return 0;
}

static void free_samples(struct rec *r)
{
	unsigned int c;

	for (c = 0; r->khz_fd && c < r->ncpu; c++)
		if (r->khz_fd[c] >= 0)
			close(r->khz_fd[c]);
	if (r->stat_fd >= 0)
		close(r->stat_fd);
	free(r->busy);
	free(r->total);
	free(r->cbusy);
	free(r->ctotal);
	free(r->nr);
	free(r->khz_fd);
	free(r->stat_buf);
	free(r->held);
}

/* Appends to a growing text buffer; -1 when out of memory. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static int sbuf_add(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int sbuf_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t cap;
	char *s;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return -1;
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return 0;
		}
		/* on failure @b keeps what it had, for the caller to free */
		cap = (b->cap + (size_t)n + 1) * 2;
		s = realloc(b->s, cap);
		if (!s)
			return -1;
		b->s = s;
		b->cap = cap;
	}
}

static int cmp_asc(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The header: format version, kernel, clocks, rate, whether sbridge is
 * there, one "meta cpu" per possible CPU. Types come from sbridge when it
 * is loaded, else from cpu_capacity numbered as sbridge numbers them (one
 * type per capacity, ascending: the smallest 0), so events' type fields
 * and the meta lines always agree. The capacity is sbridge's for the CPU's
 * type when it is loaded (declared types too), else cpu_capacity.
 */
static int make_meta(struct rec *r, struct sbuf *b, unsigned int rate, int *loaded)
{
	struct sb_cpu *cpus = NULL;
	unsigned long long caps[256], tcap[SBRIDGE_MAX_CORE_TYPES] = { 0 };
	size_t ncpus = 0, ncaps = 0, i;
	struct utsname u;
	struct sb_nl nl;
	char rel[3 * sizeof(u.release) + 1], p[96];
	unsigned int c;
	uint64_t wall, mono;

	*loaded = !sb_nl_open(&nl);
	if (*loaded) {
		if (sb_get_cpus(&nl, &cpus, &ncpus))
			ncpus = 0;
		sb_nl_close(&nl);
	}
	uname(&u);
	sb_rec_escape(u.release, strlen(u.release), rel, sizeof(rel));
	wall = now_ns(CLOCK_REALTIME);
	mono = now_ns(CLOCK_MONOTONIC);
	if (sbuf_add(b, "sbridge-record 4\nmeta kernel %s\nmeta start %llu %llu\n"
		     "meta rate_hz %u\nmeta sbridge %s\n", rel,
		     (unsigned long long)wall, (unsigned long long)mono, rate,
		     *loaded ? "loaded" : "absent")) {
		free(cpus);
		return -1;
	}
	for (c = 0; c < r->ncpu; c++) {
		unsigned long long cap;

		if (!sb_cpuset_has(&r->possible, c))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%u/cpu_capacity", c);
		cap = read_ull(p, 1024);
		for (i = 0; i < ncaps && caps[i] != cap; i++)
			;
		if (i == ncaps && ncaps < 256)
			caps[ncaps++] = cap;
	}
	qsort(caps, ncaps, sizeof(caps[0]), cmp_asc);
	/* sbridge's capacity per type: declared types (cpu_types=) included */
	if (*loaded) {
		FILE *f = fopen("/sys/kernel/sbridge/types", "re");
		char l[256];
		unsigned int ti, tc;

		while (f && fgets(l, sizeof(l), f))
			if (sscanf(l, "%u capacity=%u", &ti, &tc) == 2 &&
			    ti < SBRIDGE_MAX_CORE_TYPES)
				tcap[ti] = tc;
		if (f)
			fclose(f);
	}
	for (c = 0; c < r->ncpu; c++) {
		unsigned long long cap, khz;
		long type = -1;

		if (!sb_cpuset_has(&r->possible, c))
			continue;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%u/cpu_capacity", c);
		cap = read_ull(p, 1024);
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%u/cpufreq/cpuinfo_max_freq", c);
		khz = read_ull(p, 0);
		for (i = 0; i < ncpus; i++)
			if (cpus[i].id == c)
				type = cpus[i].type;
		if (type >= 0 && type < SBRIDGE_MAX_CORE_TYPES && tcap[type])
			cap = tcap[type];
		for (i = 0; type < 0 && i < ncaps; i++)
			if (caps[i] == cap)
				type = (long)i;
		if (sbuf_add(b, "meta cpu %u %ld %llu %llu\n", c, type, cap, khz)) {
			free(cpus);
			return -1;
		}
	}
	free(cpus);
	return 0;
}

static int read_possible(struct rec *r)
{
	char buf[4096];
	const char *why;
	unsigned int col;
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC), last;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (sb_cpulist_parse(buf, &r->possible, &why, &col))
		return -1;
	last = sb_cpuset_last(&r->possible);
	if (last < 0)
		return -1;
	r->ncpu = (unsigned int)last + 1;
	return 0;
}

/* "16M" -> bytes; K, M, G are powers of 1024. */
static int parse_size(const char *s, unsigned long long *out)
{
	char num[32];
	size_t n = strlen(s);
	unsigned int shift = 0;

	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, s, n + 1);
	switch (num[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	}
	if (shift)
		num[n - 1] = '\0';
	/* at most 1 GiB: what tools/sbridge-plot reads */
	if (sb_parse_uint(num, (1ULL << 30) >> shift, out))
		return -1;
	*out <<= shift;
	return 0;
}

/* What is wrong with --sbridge-events=@arg, whose name @bad (@blen) failed. */
static int events_usage(const char *arg, const char *bad, size_t blen)
{
	if (!blen)
		return sb_usage(record_help, "--sbridge-events '%s': an empty name", arg);
	if ((blen == 3 && !memcmp(bad, "all", 3)) || (blen == 4 && !memcmp(bad, "none", 4)))
		return sb_usage(record_help, "--sbridge-events '%s': '%.*s' stands alone, not "
				"in a list", arg, (int)blen, bad);
	return sb_usage(record_help, "--sbridge-events: unknown event '%.*s' (known: window, "
			"phase, period, decide, act, report; or all, none)", (int)blen, bad);
}

/* The options, checked: -1 to go on, else the exit code (0 after --help). */
static int record_options(int argc, char **argv, struct rec_opts *o)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "max-size", required_argument, NULL, 's' },
		{ "no-switches", no_argument, NULL, 'S' },
		{ "sbridge-events", required_argument, NULL, 'E' },
		{ "force", no_argument, NULL, 'f' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "defer", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bad;
	size_t blen;
	int c;

	while ((c = sb_getopt(argc, argv, "o:d:r:s:b:f", opts, record_help)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return sb_usage(record_help, "empty output file name");
			o->out = optarg;
			continue;
		case 'd':
			if (!sb_parse_uint(optarg, 2000000ULL, &o->duration) && o->duration)
				continue;
			return sb_usage(record_help, "bad duration '%s' (whole seconds, 1-2000000)",
					optarg);
		case 'r':
			if (!sb_parse_uint(optarg, 100, &o->rate) && o->rate)
				continue;
			return sb_usage(record_help, "bad rate '%s' (samples a second, 1-100)",
					optarg);
		case 's':
			if (!parse_size(optarg, &o->max) && o->max >= 4096)
				continue;
			return sb_usage(record_help, "bad size limit '%s' (bytes, 4096 to 1G; "
					"K, M, G suffixes)", optarg);
		case 'b':
			if (!parse_size(optarg, &o->buffer) && o->buffer >= 65536)
				continue;
			return sb_usage(record_help, "bad buffer size '%s' (bytes per CPU, 64K "
					"to 1G; K, M, G suffixes)", optarg);
		case 'D':
			o->defer = 1;
			continue;
		case 'S':
			o->switches = 0;
			continue;
		case 'E':
			if (!sb_rec_parse_events(optarg, &o->sbev, &bad, &blen))
				continue;
			return events_usage(optarg, bad, blen);
		case 'f':
			o->force = 1;
			continue;
		}
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	if (optind < argc)
		return sb_usage(record_help, "unexpected argument '%s'", argv[optind]);
	if (sb_json)
		return sb_usage(record_help, "record writes its own format; --json does not apply");
	if (strcmp(o->out, "-") && !o->force && !access(o->out, F_OK)) {
		sb_err("record: '%s' exists; not overwriting it without --force", o->out);
		return SB_EXIT_USAGE;
	}
	if (geteuid() != 0) {
		sb_err("record: permission denied: tracefs needs root (run as root)");
		return SB_EXIT_PERM;
	}
	return -1;
}

/*
 * Everything before the tracefs instance: the signals, the CPUs, the
 * sampling state, the file's header in @meta and tracefs found. 0 or an
 * exit code.
 */
static int record_prepare(struct rec *r, const struct rec_opts *o, struct sbuf *meta,
			  int *loaded)
{
	struct sigaction sa;
	int ret;

	memset(r, 0, sizeof(*r));
	r->pipe_fd = -1;
	r->stat_fd = -1;
	r->max = o->max;
	r->defer = o->defer;
	/* Before the instance exists, so a signal never leaves it behind. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (read_possible(r)) {
		sb_err("record: cannot read /sys/devices/system/cpu/possible");
		return SB_EXIT_ERR;
	}
	ret = setup_samples(r);
	if (ret)
		return ret;
	if (make_meta(r, meta, (unsigned int)o->rate, loaded)) {
		sb_err("record: out of memory");
		return SB_EXIT_ERR;
	}
	if (meta->len + REC_END_RESERVE > o->max) {
		sb_err("record: size limit %llu is below the header's %zu bytes",
		       o->max, meta->len + REC_END_RESERVE);
		return SB_EXIT_USAGE;
	}
	return find_tracefs(r);
}

/* The output, stdout for "-": 0 or an exit code. */
static int record_open(struct rec *r, const struct rec_opts *o)
{
	int fd;

	if (!strcmp(o->out, "-")) {
		r->out = stdout;
		return 0;
	}
	fd = open(o->out, O_WRONLY | O_CREAT | O_CLOEXEC | (o->force ? O_TRUNC : O_EXCL), 0644);
	r->out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!r->out) {
		sb_err("record: cannot create '%s': %s", o->out, strerror(errno));
		if (fd >= 0)
			close(fd);
		return errno == EEXIST ? SB_EXIT_USAGE : SB_EXIT_ERR;
	}
	r->path = o->out;
	return 0;
}

/*
 * Traces until the duration is over, a signal comes or the file is full,
 * sampling at @o->rate, then stops tracing and takes what the kernel had.
 * 0 with *@end_ns the time it stopped, or an exit code.
 */
static int record_run(struct rec *r, const struct rec_opts *o, uint64_t *end_ns)
{
	uint64_t start, period, next, deadline, t;
	int ret;

	ret = inst_write(r, "tracing_on", "1");
	if (ret) {
		sb_err("record: cannot start tracing: %s", strerror(-ret));
		return SB_EXIT_ERR;
	}
	/* the seed; events from here on are replayed on top of it */
	if (r->track) {
		count_runnable(r);
		r->resynced = now_ns(CLOCK_MONOTONIC);
		r->resync_at = r->resynced + REC_RESYNC_NS;
	}
	start = now_ns(CLOCK_MONOTONIC);
	period = 1000000000ULL / o->rate;
	deadline = o->duration ? start + o->duration * 1000000000ULL : UINT64_MAX;
	next = start + period;
	while (!stop && !r->full) {
		t = now_ns(CLOCK_MONOTONIC);
		if (t >= deadline)
			break;
		if (t < next) {
			uint64_t wait = next - t;

			if (deadline - t < wait)
				wait = deadline - t;
			if (wait > REC_MAX_TICK_NS)
				wait = REC_MAX_TICK_NS;
			/* a signal cuts the wait short (no SA_RESTART) */
			poll(NULL, 0, (int)((wait + 999999) / 1000000));
		}
		if (!r->defer && drain(r, 4 << 20))
			return SB_EXIT_ERR;
		t = now_ns(CLOCK_MONOTONIC);
		if (t >= next && !stop) {
			sample(r);
			next += period;
			if (next <= t)	/* fell behind: skip, never burst */
				next = t + period;
		}
	}
	/* Stop the kernel side first, then take what it had. */
	inst_write(r, "tracing_on", "0");
	*end_ns = now_ns(CLOCK_MONOTONIC);
	if (drain(r, (size_t)-1))
		return SB_EXIT_ERR;
	flush_held(r, UINT64_MAX);
	t = lost_events(r);
	if (t > r->lost)	/* the pipe's LOST lines count the overruns too */
		r->lost = t;
	return 0;
}

/* The end line, what went missing and the summary: the exit code. */
static int record_end(struct rec *r, uint64_t t, int sbev, int loaded, unsigned int mask)
{
	char end[REC_END_RESERVE];
	const char *reason;
	int c, ret;

	reason = r->full ? "size" : stop ? "signal" : "duration";
	c = snprintf(end, sizeof(end), "end %llu %s events=%llu samples=%llu switches=%llu "
		     "dropped=%llu wakeups=%llu migrations=%llu lost=%llu",
		     (unsigned long long)t, reason, r->events, r->samples, r->switches,
		     r->dropped, r->wakeups, r->migrations, r->lost);
	fwrite(end, 1, (size_t)c, r->out);
	fputc('\n', r->out);
	r->size += (size_t)c + 1;
	ret = SB_EXIT_OK;
	if (fflush(r->out) || ferror(r->out)) {
		sb_err("record: writing '%s': %s", r->path ? r->path : "stdout",
		       strerror(errno));
		ret = SB_EXIT_ERR;
	}
	if (r->lost)
		sb_err("record: %s: %llu events lost", r->defer ?
		       "the kernel's trace buffer filled (a larger -b holds more)" :
		       "the kernel's trace buffer overran", r->lost);
	if (r->bad)
		sb_err("record: %llu trace lines not understood, left out", r->bad);
	if (r->rq.overflow)
		sb_err("record: more than %d tasks runnable at once: %llu left out of "
		       "the runnable count", SB_REC_RQ_MAX, r->rq.overflow);
	if (!ret && r->path)
		printf("%s: %llu bytes, %llu events, %llu switches, %llu samples, "
		       "%llu dropped (%s)%s\n", r->path, r->size, r->events, r->switches,
		       r->samples, r->dropped, reason,
		       sbev ? (mask ? "" : "; no sbridge events (--sbridge-events=none)") :
		       loaded ? "; the sbridge module has no trace events" :
		       "; sbridge not loaded");
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct rec_opts o = { 0, 20, 16 << 20, 0, "sbridge.rec", 1, 0, 0, SB_REC_EV_ALL };
	char evnames[REC_EVNAMES_MAX];
	struct sbuf meta = { NULL, 0, 0 };
	static struct rec rr;
	struct rec *r = &rr;
	int c, ret, loaded, sbev = 0;
	uint64_t t;

	ret = record_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = record_prepare(r, &o, &meta, &loaded);
	if (ret)
		goto out_free;
	reap_stale(r);
	ret = make_instance(r, &o, &sbev, evnames, sizeof(evnames));
	if (ret)
		goto out_inst;
	/*
	 * whether the file holds every wakeup and migration (the runnable
	 * tasks), and which sbridge events it holds
	 */
	if (sbuf_add(&meta, "meta wakeups %s\nmeta sbridge_events %s\n", r->track ? "yes" : "no",
		     evnames)) {
		sb_err("record: out of memory");
		ret = SB_EXIT_ERR;
		goto out_inst;
	}
	ret = record_open(r, &o);
	if (ret)
		goto out_inst;
	setvbuf(r->out, NULL, _IOFBF, 1 << 16);
	fwrite(meta.s, 1, meta.len, r->out);
	r->size = meta.len;

	ret = record_run(r, &o, &t);
	if (!ret)
		ret = record_end(r, t, sbev, loaded, o.sbev);
	if (r->out && r->out != stdout && fclose(r->out) && !ret) {
		sb_err("record: closing '%s': %s", o.out, strerror(errno));
		ret = SB_EXIT_ERR;
	}
	r->out = NULL;
out_inst:
	c = drop_instance(r);
	if (c && !ret)
		ret = c;
out_free:
	free_samples(r);
	free(meta.s);
	return ret;
}
