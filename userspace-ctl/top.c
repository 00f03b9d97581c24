// SPDX-License-Identifier: GPL-2.0
/* top: a refreshing view of the tracked tasks, busiest first. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rules_parse.h"
#include "sbridgectl.h"
#include "tasks.h"

static const char top_help[] =
"usage: sbridgectl top [--interval=SECONDS] [--iterations=N] [--limit=N]\n"
"                      [--comm=NAME] [--uid=UID] [--json]\n"
"\n"
"Refreshing view of the tracked tasks, busiest first (CPU share over the\n"
"last interval). --interval defaults to 2 (0.1 to 3600, 3 decimals at most),\n"
"--iterations to forever, --limit to 20. With --json one object per refresh.\n"
"\n"
"Keys, on a terminal: q quit, space pause, s next sort key, r reverse,\n"
"/ show one task name only (empty: all), u one user only, c clear both,\n"
"+ and - double or halve the interval, h this list.\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_pid(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* top's sort keys, in the order "s" steps through them */
static const int top_sorts[] = { S_DELTA, S_PID, S_COMM, S_CPU, S_CPI, S_CPIB,
				 S_SPEEDUP, S_RUNTIME };
static const char *const top_sort_names[] = { "%cpu", "pid", "comm", "cpu", "cpi",
					      "cpib", "speedup", "runtime" };

/* The interactive state of top, what its keys change. */
struct top_ui {
	int on, colour, paused, sort, help;
	char comm[SBRIDGE_KEY_LEN + 1];
	char msg[96];
};

/* One key: returns 1 to refresh now, 0 to go on waiting, -1 to quit. */
static int top_key(int c, struct top_ui *ui, struct filter *f,
		   unsigned long long *interval_ms)
{
	char line[SBRIDGE_KEY_LEN + 1];
	char *end;
	unsigned long long u;
	long v;

	ui->msg[0] = '\0';
	switch (c) {
	case 'q': case 'Q': case -2:
		return -1;
	case ' ': case 'p':
		ui->paused = !ui->paused;
		return 1;
	case 's':
		ui->sort = (ui->sort + 1) % (int)(sizeof(top_sorts) / sizeof(*top_sorts));
		return 1;
	case 'r':
		f->reverse = !f->reverse;
		return 1;
	case '/':
		if (sb_term_line("show task name (empty: all): ", line, sizeof(line)))
			return 1;
		memcpy(ui->comm, line, sizeof(ui->comm));
		f->comm = ui->comm[0] ? ui->comm : NULL;
		return 1;
	case 'u':
		if (sb_term_line("show uid (empty: all): ", line, sizeof(line)))
			return 1;
		v = strtol(line, &end, 10);
		if (!line[0])
			f->uid = -1;
		else if ((*end || v < 0) && !sb_rp_user_uid(NULL, line, &u))
			f->uid = (long long)u;
		else if (*end || v < 0)
			snprintf(ui->msg, sizeof(ui->msg), "not a uid or user: '%s'", line);
		else
			f->uid = v;
		return 1;
	case 'c':
		f->comm = NULL;
		f->uid = -1;
		return 1;
	case '+':
		if (*interval_ms < 60000)
			*interval_ms *= 2;
		return 1;
	case '-':
		if (*interval_ms >= 200)
			*interval_ms /= 2;
		return 1;
	case 'h': case '?':
		ui->help = !ui->help;
		return 1;
	default:
		return 0;
	}
}

/* The lines above the table: counts, keys, what is in force. */
static void top_header(const struct top_ui *ui, const struct filter *f, size_t n,
		       unsigned long long interval_ms, unsigned int ntypes)
{
	const char *b = ui->colour ? "\033[1;7m" : "", *e = ui->colour ? "\033[0m" : "";

	printf("%ssbridgectl top: %zu tasks tracked, every %llu.%01llu s, sort %s%s%s%s%s\n",
	       b, n, interval_ms / 1000, interval_ms % 1000 / 100,
	       f->reverse ? "-" : "", top_sort_names[ui->sort],
	       ui->paused ? ", PAUSED" : "", f->comm ? ", comm " : "", f->comm ? f->comm : "");
	if (f->uid >= 0)
		printf(", uid %lld", f->uid);
	printf("%s\n", e);
	/* the core types in FACTORS order: little first, big last */
	if (ntypes == 2)
		printf("FACTORS: little/big");
	else if (ntypes > 2)
		printf("FACTORS: little .. big, %u types", ntypes);
	if (ui->on)
		printf("%s%s", ntypes > 1 ? "   " : "",
		       ui->help ? "keys: q quit, space pause, s sort, r reverse, / name, u uid, "
				  "c clear, +/- interval, h hide" : "h: keys");
	if (ui->msg[0])
		printf("   %s", ui->msg);
	printf("\n\n");
}

/*
 * Waits out one interval. On a terminal, for keys: a key that changes the
 * view (pausing too) refreshes at once, and while paused only a key ends
 * the wait.
 */
static void top_wait(struct top_ui *ui, struct filter *f, unsigned long long *interval_ms)
{
	struct timespec ts = { (time_t)(*interval_ms / 1000),
			       (long)(*interval_ms % 1000) * 1000000L };
	uint64_t until = now_ns() + *interval_ms * 1000000ULL;

	if (!ui->on) {
		while (nanosleep(&ts, &ts) && !stop)
			;
		return;
	}
	for (;;) {
		uint64_t t = now_ns();
		int k, r;

		if (stop)
			break;
		if (!ui->paused && t >= until)
			break;
		k = sb_term_key(ui->paused ? -1 : (int)((until - t) / 1000000ULL) + 1);
		if (k == -1)
			continue;
		r = top_key(k, ui, f, interval_ms);
		if (r < 0)
			stop = 1;
		else if (r > 0)
			break;
	}
}

/* CPU share: runtime growth since the previous sample (both by pid). */
static void top_deltas(struct tlist *cur, const struct tlist *prev)
{
	size_t i;

	for (i = 0; i < cur->n; i++) {
		struct task *p = bsearch(&cur->v[i], prev->v, prev->n,
					 sizeof(*prev->v), cmp_pid);

		cur->v[i].delta = p && cur->v[i].runtime >= p->runtime ?
				  cur->v[i].runtime - p->runtime : 0;
	}
}

/* One refresh of @cur, sorted as @ui says, over @ns nanoseconds. */
static void top_show(const struct tlist *cur, const struct filter *f, const struct top_ui *ui,
		     int tty, unsigned long long interval_ms, unsigned int ntypes, uint64_t ns)
{
	struct tlist tmp = *cur;

	tasks_sort(&tmp, top_sorts[ui->sort]);
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_uint("interval_ns", ns);
		tasks_print(&tmp, f, ns);
		sb_js_obj_end();
		return;
	}
	if (tty)
		fputs("\033[H\033[2J", stdout);
	top_header(ui, f, cur->n, interval_ms, ntypes);
	tasks_print(&tmp, f, ns);
	if (!tty)
		putchar('\n');
	fflush(stdout);
}

int cmd_top(int argc, char **argv)
{
	struct filter f = { NULL, -1, -1, -1, 20, S_DELTA, 0 };
	struct tlist cur = { NULL, 0, 0 }, prev = { NULL, 0, 0 }, tmp;
	unsigned long long interval_ms = 2000, iterations = 0, it;
	int tty = isatty(1), ret;
	struct top_ui ui = { 0 };
	struct sb_status st = { 0 };
	uint64_t t0, t1;
	struct sb_nl nl;

	ret = tasks_parse_filter(argc, argv, &f, top_help, 1, &interval_ms, &iterations);
	if (ret)
		return ret == 'h' ? SB_EXIT_OK : ret;
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	if (sb_get_status(&nl, &st))
		st.ntypes = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* keys only on a terminal both ways, never with --json */
	ui.on = !sb_json && tty && !sb_term_raw();
	ui.colour = !sb_json && sb_term_colour();
	tasks_row_colour = ui.colour;
	t0 = now_ns();
	ret = tasks_fetch(&nl, &prev);
	if (ret)
		goto fail;
	qsort(prev.v, prev.n, sizeof(*prev.v), cmp_pid);
	for (it = 0; !stop && (!iterations || it < iterations); it++) {
		top_wait(&ui, &f, &interval_ms);
		if (stop)
			break;
		t1 = now_ns();
		ret = tasks_fetch(&nl, &cur);
		if (ret)
			goto fail;
		qsort(cur.v, cur.n, sizeof(*cur.v), cmp_pid);
		top_deltas(&cur, &prev);
		top_show(&cur, &f, &ui, tty, interval_ms, st.ntypes, t1 - t0);
		qsort(cur.v, cur.n, sizeof(*cur.v), cmp_pid);
		tmp = prev;
		prev = cur;
		cur = tmp;
		t0 = t1;
	}
	ret = 0;
	goto out;
fail:
	ret = sb_fail(&nl, ret, "reading tasks");
out:
	sb_term_restore();
	free(cur.v);
	free(prev.v);
	sb_nl_close(&nl);
	return ret;
}
