// SPDX-License-Identifier: GPL-2.0
/* tasks and top: per-task CPI stack, factors per core type and placement. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rules_parse.h"
#include "sbridgectl.h"

static const char tasks_help[] =
"usage: sbridgectl tasks [--sort=KEY] [--reverse] [--pid=PID] [--comm=NAME]\n"
"                        [--uid=UID|USER] [--class=CLASS] [--limit=N] [--json]\n"
"\n"
"List the tasks sbridge tracks: last CPU, class in force, phase, CPI, stall\n"
"CPI, CPI_B share (how compute-bound, 0..1), big/little speedup predicted\n"
"from the CPI stack (PRED), measured on both core types (MEAS: the task's\n"
"own warm windows and its workload's earlier runs, '-' until one ran on\n"
"both) and the estimate in force (SPEEDUP) with its standard error (ERR)\n"
"and where it comes from (SRC: pred, meas, matrix, blend, rule, user:\n"
"a CPU factor you set), the decision layer's hint (PLACE: fast, slow or\n"
"'-'; in parentheses while the placement actuator is off: advice nothing\n"
"acts on; a '*' while the task's affinity is sbridge's narrowing, not its\n"
"own), factor per core\n"
"type, its runtime and the rule (file:line) in force on it, '-' if none.\n"
"Counter columns of other users' tasks show '-' without CAP_PERFMON or\n"
"CAP_SYS_ADMIN.\n"
"\n"
"  --sort=KEY    pid (default), comm, cpu, cpi, stall, cpib, speedup,\n"
"                runtime, uid\n"
"  --reverse     reverse the order\n"
"  --pid, --comm, --uid, --class   show only matching tasks\n"
"  --limit=N     show at most N tasks\n";

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
static const char *const sort_names[] = {
	"pid", "comm", "cpu", "cpi", "stall", "cpib", "runtime", "uid", "speedup", NULL,
};

static int task_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	struct tlist *l = arg;
	const struct nlattr *f;
	struct task *t, *nv;
	int rem;

	(void)cmd;
	if (!at->a[SBRIDGE_A_TASK_PID])
		return 0;
	nv = sb_grow(l->v, &l->cap, l->n, sizeof(*nv), 256);
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	t = &l->v[l->n++];
	memset(t, 0, sizeof(*t));
	t->pid = sb_u32(at->a[SBRIDGE_A_TASK_PID], 0);
	t->uid = sb_u32(at->a[SBRIDGE_A_TASK_UID], 0);
	t->cpu = sb_u32(at->a[SBRIDGE_A_TASK_CPU], 0);
	t->cls = sb_u32(at->a[SBRIDGE_A_TASK_CLASS], 0);
	t->phase = sb_u32(at->a[SBRIDGE_A_TASK_PHASE], 0);
	t->has_cpi = at->a[SBRIDGE_A_TASK_CPI] != NULL;
	t->cpi = sb_u32(at->a[SBRIDGE_A_TASK_CPI], 0);
	t->stall = sb_u32(at->a[SBRIDGE_A_TASK_CPI_STALL], 0);
	t->cpib = sb_u32(at->a[SBRIDGE_A_TASK_CPIB_SHARE], 0);
	t->hint = sb_u32(at->a[SBRIDGE_A_TASK_HINT], 0);
	t->steered = at->a[SBRIDGE_A_TASK_STEERED] ?
		     (int)sb_u32(at->a[SBRIDGE_A_TASK_STEERED], 0) : -1;
	t->has_speedup = at->a[SBRIDGE_A_TASK_SPEEDUP] != NULL;
	t->speedup = sb_u32(at->a[SBRIDGE_A_TASK_SPEEDUP], 0);
	t->pred = sb_u32(at->a[SBRIDGE_A_TASK_SPEEDUP_PRED], 0);
	t->has_meas = at->a[SBRIDGE_A_TASK_SPEEDUP_MEAS] != NULL;
	t->meas = sb_u32(at->a[SBRIDGE_A_TASK_SPEEDUP_MEAS], 0);
	t->has_own = at->a[SBRIDGE_A_TASK_SPEEDUP_OWN] != NULL;
	t->own = sb_u32(at->a[SBRIDGE_A_TASK_SPEEDUP_OWN], 0);
	t->warm = sb_u32(at->a[SBRIDGE_A_TASK_WARM], 0);
	t->has_err = at->a[SBRIDGE_A_TASK_SPEEDUP_ERR] != NULL;
	t->err = sb_u32(at->a[SBRIDGE_A_TASK_SPEEDUP_ERR], 0);
	t->has_pred_kind = at->a[SBRIDGE_A_TASK_PRED_KIND] != NULL;
	t->pred_kind = sb_u32(at->a[SBRIDGE_A_TASK_PRED_KIND], SBRIDGE_PRED_EQ3);
	if (at->a[SBRIDGE_A_TASK_MIX]) {
		sb_for_each_nested(f, at->a[SBRIDGE_A_TASK_MIX], rem) {
			if (t->nmix < SBRIDGE_MIX_NR)
				t->mix[t->nmix++] = sb_u32(f, 0);
		}
	}
	t->src = sb_u32(at->a[SBRIDGE_A_TASK_SPEEDUP_SRC], SBRIDGE_SRC_NONE);
	t->runtime = sb_u64(at->a[SBRIDGE_A_TASK_RUNTIME_NS], 0);
	snprintf(t->comm, sizeof(t->comm), "%s", sb_str(at->a[SBRIDGE_A_TASK_COMM]));
	if (at->a[SBRIDGE_A_TASK_RULE])
		snprintf(t->rule, sizeof(t->rule), "%s",
			 sb_str(at->a[SBRIDGE_A_TASK_RULE]));
	if (at->a[SBRIDGE_A_TASK_FACTORS]) {
		sb_for_each_nested(f, at->a[SBRIDGE_A_TASK_FACTORS], rem) {
			if (t->nf < SBRIDGE_MAX_CORE_TYPES)
				t->factors[t->nf++] = sb_u32(f, 0);
		}
	}
	return 0;
}

static int fetch(struct sb_nl *nl, struct tlist *l)
{
	struct sb_msg m;
	int ret;

	l->n = 0;
	sb_msg_init(&m, nl, SBRIDGE_CMD_GET_TASKS, 1);
	ret = sb_request(nl, &m, task_cb, l);
	sb_msg_free(&m);
	return ret;
}

static int sort_key;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_task(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;
	int r;

	switch (sort_key) {
	case S_COMM: r = strcmp(a->comm, b->comm); break;
	case S_CPU: r = cmp_u64(a->cpu, b->cpu); break;
	case S_CPI: r = cmp_u64(a->cpi, b->cpi); break;
	case S_STALL: r = cmp_u64(a->stall, b->stall); break;
	case S_CPIB: r = cmp_u64(a->cpib, b->cpib); break;
	case S_RUNTIME: r = cmp_u64(a->runtime, b->runtime); break;
	case S_UID: r = cmp_u64(a->uid, b->uid); break;
	case S_SPEEDUP: r = cmp_u64(a->speedup, b->speedup); break;
	case S_DELTA: r = -cmp_u64(a->delta, b->delta); break;
	default: r = 0;
	}
	return r ? r : cmp_u64(a->pid, b->pid);
}

static int keep(const struct task *t, const struct filter *f)
{
	return (!f->comm || !strcmp(t->comm, f->comm)) &&
	       (f->pid < 0 || t->pid == f->pid) &&
	       (f->uid < 0 || t->uid == f->uid) &&
	       (f->cls < 0 || (int)t->cls == f->cls);
}

/* The decision layer's hint: the fast cores, off them, or no decision. */
static const char *hint_name(uint32_t hint)
{
	switch (hint) {
	case SBRIDGE_HINT_FAST:
		return "fast";
	case SBRIDGE_HINT_SLOW:
		return "slow";
	default:
		return "-";
	}
}

/* Where a speedup estimate comes from (SBRIDGE_A_TASK_SPEEDUP_SRC). */
static const char *src_name(uint32_t src)
{
	static const char *const names[] = {
		[SBRIDGE_SRC_NONE] = "-",
		[SBRIDGE_SRC_PRED] = "pred",
		[SBRIDGE_SRC_MEAS] = "meas",
		[SBRIDGE_SRC_MATRIX] = "matrix",
		[SBRIDGE_SRC_BLEND] = "blend",
		[SBRIDGE_SRC_RULE] = "rule",
		[SBRIDGE_SRC_OVERRIDE] = "user",
	};

	return src < sizeof(names) / sizeof(names[0]) ? names[src] : "?";
}

/* top on a colour terminal: compute-bound green, memory-bound blue */
static int row_colour;

static const char *class_colour(uint32_t cls)
{
	if (!row_colour)
		return "";
	switch (cls) {
	case SBRIDGE_CLASS_COMPUTE:
		return "\033[32m";
	case SBRIDGE_CLASS_MEMORY:
		return "\033[34m";
	default:
		return "\033[0m";
	}
}

/*
 * Whether the placement actuator acts on PLACE. A module without the
 * parameters file is taken as acting: the column reads as it always did.
 */
static int placement_on(void)
{
	unsigned long long v;

	return sb_read_param("act.placement", &v) || v;
}

static void print_tasks(const struct tlist *l, const struct filter *f,
			uint64_t interval_ns)
{
	unsigned long long shown = 0;
	int placing = placement_on();
	size_t i, k;

	if (sb_json)
		js_arr_begin("tasks");
	else
		printf("%7s %6s %-15s %4s %-7s %2s %6s %6s %5s %5s %5s %7s %5s %-6s %6s %-19s %10s%s %s\n",
		       "PID", "UID", "COMM", "CPU", "CLASS", "PH", "CPI", "STALL",
		       "CPI_B", "PRED", "MEAS", "SPEEDUP", "ERR", "SRC", "PLACE", "FACTORS",
		       "RUNTIME_MS", interval_ns ? "  %CPU" : "", "RULE");
	for (k = 0; k < l->n && (!f->limit || shown < f->limit); k++) {
		const struct task *t = &l->v[f->reverse ? l->n - 1 - k : k];
		char fac[64] = "-", place[8];
		size_t o = 0;

		if (!keep(t, f))
			continue;
		shown++;
		if (sb_json) {
			js_obj_begin(NULL);
			js_uint("pid", t->pid);
			js_uint("uid", t->uid);
			js_str("comm", t->comm);
			js_uint("cpu", t->cpu);
			js_str("class", rp_class_name(t->cls));
			js_uint("phase", t->phase);
			if (t->has_cpi) {
				js_fp("cpi", t->cpi);
				js_fp("cpi_stall", t->stall);
				js_fp("cpib_share", t->cpib);
			}
			if (t->has_speedup) {
				js_fp("speedup_pred", t->pred);
				if (t->has_pred_kind)
					js_str("pred_kind", t->pred_kind == SBRIDGE_PRED_MIX ?
					       "mix" : "eq3");
				if (t->has_meas)
					js_fp("speedup_meas", t->meas);
				if (t->has_own)
					js_fp("speedup_own", t->own);
				js_fp("speedup", t->speedup);
				if (t->has_err) {
					js_fp("speedup_err", t->err);
					js_str("speedup_src", src_name(t->src));
					js_uint("warm_windows", t->warm);
				}
			}
			js_arr_begin("factors");
			for (i = 0; i < t->nf; i++)
				js_fp(NULL, t->factors[i]);
			js_arr_end();
			if (t->nmix == SBRIDGE_MIX_NR) {
				js_obj_begin("mix");
				js_fp("ldst", t->mix[SBRIDGE_MIX_LDST]);
				js_fp("int", t->mix[SBRIDGE_MIX_INT]);
				js_fp("fp", t->mix[SBRIDGE_MIX_FP]);
				js_fp("branch", t->mix[SBRIDGE_MIX_BRANCH]);
				js_obj_end();
			}
			js_str("hint", hint_name(t->hint));
			js_bool("hint_in_force", placing && t->hint != SBRIDGE_HINT_NONE);
			if (t->steered >= 0)
				js_bool("mask_narrowed", t->steered);
			js_uint("runtime_ns", t->runtime);
			if (interval_ns)
				js_uint("cpu_permille", t->delta * 1000 / interval_ns);
			if (t->rule[0])
				js_str("rule", t->rule);
			js_obj_end();
			continue;
		}
		for (i = 0; i < t->nf && o < sizeof(fac) - 8; i++)
			o += (size_t)snprintf(fac + o, sizeof(fac) - o, "%s%s",
					      i ? "/" : "", sb_fp(t->factors[i]));
		/* sb_fp() rotates four buffers: at most three per printf. */
		printf("%7u %6u %-15s %4u %s%-7s%s %2u %6s %6s %5s", t->pid, t->uid,
		       t->comm, t->cpu, class_colour(t->cls), rp_class_name(t->cls),
		       row_colour ? "\033[0m" : "", t->phase,
		       t->has_cpi ? sb_fp(t->cpi) : "-",
		       t->has_cpi ? sb_fp(t->stall) : "-",
		       t->has_cpi ? sb_fp(t->cpib) : "-");
		/* '*': the mask taskset -p shows is sbridge's narrowing */
		snprintf(place, sizeof(place),
			 placing || t->hint == SBRIDGE_HINT_NONE ? "%s%s" : "(%s)%s",
			 hint_name(t->hint), t->steered > 0 ? "*" : "");
		printf(" %5s %5s %7s",
		       t->has_speedup ? sb_fp(t->pred) : "-",
		       t->has_meas ? sb_fp(t->meas) : "-",
		       t->has_speedup ? sb_fp(t->speedup) : "-");
		printf(" %5s %-6s %6s %-19s %10llu",
		       t->has_err ? sb_fp(t->err) : "-", src_name(t->src), place, fac,
		       (unsigned long long)(t->runtime / 1000000));
		if (interval_ns)
			printf("  %3llu.%llu",
			       (unsigned long long)(t->delta * 100 / interval_ns),
			       (unsigned long long)(t->delta * 1000 / interval_ns % 10));
		printf(" %s\n", t->rule[0] ? t->rule : "-");
	}
	if (sb_json)
		js_arr_end();
}

/* One filter option @c of tasks and top; 0 or an exit code. */
static int filter_opt(int c, const char *arg, struct filter *f, const char *help,
		      int top)
{
	static const char *const classes[] = {
		[SBRIDGE_CLASS_AUTO] = "auto",
		[SBRIDGE_CLASS_COMPUTE] = "compute",
		[SBRIDGE_CLASS_MEMORY] = "memory",
	};
	unsigned long long v;
	int i;

	switch (c) {
	case 's':
		for (i = 0; sort_names[i] && strcmp(sort_names[i], arg); i++)
			;
		if (top || !sort_names[i])
			return sb_usage(help, top ? "top always sorts by CPU share" :
					"unknown sort key '%s' (pid, comm, cpu, cpi, stall, cpib, speedup, runtime, uid)",
					arg);
		f->sort = i;
		return 0;
	case 'r':
		f->reverse = 1;
		return 0;
	case 'p':
		if (sb_parse_uint(arg, 0x7fffffff, &v))
			return sb_usage(help, "bad PID '%s'", arg);
		f->pid = (long long)v;
		return 0;
	case 'c':
		if (!*arg || strlen(arg) >= SBRIDGE_KEY_LEN)
			return sb_usage(help, "bad comm '%s' (1 to %d bytes)", arg,
					SBRIDGE_KEY_LEN - 1);
		f->comm = arg;
		return 0;
	case 'u':
		/* a number or a user name, as rules take uid= */
		if (sb_parse_uint(arg, 0xffffffffULL, &v) && rp_user_uid(NULL, arg, &v))
			return sb_usage(help, "bad UID '%s' (a number or a user in /etc/passwd)",
					arg);
		f->uid = (long long)v;
		return 0;
	case 'C':
		for (i = 0; i < (int)SB_ARRAY_SIZE(classes); i++)
			if (classes[i] && !strcmp(arg, classes[i]))
				break;
		if (i == (int)SB_ARRAY_SIZE(classes))
			return sb_usage(help, "unknown class '%s' (auto, compute, memory)", arg);
		f->cls = i;
		return 0;
	case 'l':
		if (sb_parse_uint(arg, 1000000000ULL, &f->limit))
			return sb_usage(help, "bad limit '%s'", arg);
		return 0;
	}
	return SB_EXIT_USAGE;
}

/* Options shared by tasks and top; returns 0, 'h' or an exit code. */
static int parse_filter(int argc, char **argv, struct filter *f, const char *help,
			int top, unsigned long long *interval_ms,
			unsigned long long *iterations)
{
	static const struct option opts[] = {
		{ "sort", required_argument, NULL, 's' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "uid", required_argument, NULL, 'u' },
		{ "class", required_argument, NULL, 'C' },
		{ "limit", required_argument, NULL, 'l' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long ms;
	int c, ret;

	while ((c = sb_getopt(argc, argv, "s:rp:c:u:C:l:i:n:", opts, help)) != -1) {
		if (c == 'h')
			return 'h';
		if ((c == 'i' || c == 'n') && !top)
			return sb_usage(help, "--%s is for top",
					c == 'i' ? "interval" : "iterations");
		if (c == 'i') {
			if (sb_parse_seconds(optarg, 3600000ULL, &ms) || ms < 100)
				return sb_usage(help, "bad interval '%s' (seconds, 0.1 to 3600)",
						optarg);
			*interval_ms = ms;
		} else if (c == 'n') {
			if (sb_parse_uint(optarg, 1000000000ULL, iterations) || !*iterations)
				return sb_usage(help, "bad iteration count '%s'", optarg);
		} else {
			ret = filter_opt(c, optarg, f, help, top);
			if (ret)
				return ret;
		}
	}
	if (optind < argc)
		return sb_usage(help, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int cmd_tasks(int argc, char **argv)
{
	struct filter f = { NULL, -1, -1, -1, 0, S_PID, 0 };
	struct tlist l = { NULL, 0, 0 };
	struct sb_nl nl;
	int ret;

	ret = parse_filter(argc, argv, &f, tasks_help, 0, NULL, NULL);
	if (ret)
		return ret == 'h' ? SB_EXIT_OK : ret;
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	ret = fetch(&nl, &l);
	if (ret) {
		ret = sb_fail(&nl, ret, "reading tasks");
	} else {
		sort_key = f.sort;
		qsort(l.v, l.n, sizeof(*l.v), cmp_task);
		if (sb_json)
			js_obj_begin(NULL);
		print_tasks(&l, &f, 0);
		if (sb_json)
			js_obj_end();
	}
	free(l.v);
	sb_nl_close(&nl);
	return ret;
}

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

	return cmp_u64(a->pid, b->pid);
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
		else if ((*end || v < 0) && !rp_user_uid(NULL, line, &u))
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

	ret = parse_filter(argc, argv, &f, top_help, 1, &interval_ms, &iterations);
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
	row_colour = ui.colour;
	t0 = now_ns();
	ret = fetch(&nl, &prev);
	if (ret)
		goto fail;
	qsort(prev.v, prev.n, sizeof(*prev.v), cmp_pid);
	for (it = 0; !stop && (!iterations || it < iterations); it++) {
		struct timespec ts = { (time_t)(interval_ms / 1000),
				       (long)(interval_ms % 1000) * 1000000L };
		uint64_t until = now_ns() + interval_ms * 1000000ULL;
		size_t i;

		if (ui.on) {
			/* wait out the interval for keys; a key that changes
			 * the view (pausing too) refreshes at once, and while
			 * paused only a key ends the wait */
			for (;;) {
				uint64_t t = now_ns();
				int k, r;

				if (stop)
					break;
				if (!ui.paused && t >= until)
					break;
				k = sb_term_key(ui.paused ? -1 : (int)((until - t) / 1000000ULL) + 1);
				if (k == -1)
					continue;
				r = top_key(k, &ui, &f, &interval_ms);
				if (r < 0)
					stop = 1;
				else if (r > 0)
					break;
			}
		} else {
			while (nanosleep(&ts, &ts) && !stop)
				;
		}
		if (stop)
			break;
		t1 = now_ns();
		ret = fetch(&nl, &cur);
		if (ret)
			goto fail;
		/* CPU share: runtime growth since the previous sample. */
		qsort(cur.v, cur.n, sizeof(*cur.v), cmp_pid);
		for (i = 0; i < cur.n; i++) {
			struct task *p = bsearch(&cur.v[i], prev.v, prev.n,
						 sizeof(*prev.v), cmp_pid);

			cur.v[i].delta = p && cur.v[i].runtime >= p->runtime ?
					 cur.v[i].runtime - p->runtime : 0;
		}
		tmp = cur;
		sort_key = top_sorts[ui.sort];
		qsort(tmp.v, tmp.n, sizeof(*tmp.v), cmp_task);
		if (sb_json) {
			js_obj_begin(NULL);
			js_uint("interval_ns", t1 - t0);
			print_tasks(&tmp, &f, t1 - t0);
			js_obj_end();
		} else {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			top_header(&ui, &f, cur.n, interval_ms, st.ntypes);
			print_tasks(&tmp, &f, t1 - t0);
			if (!tty)
				putchar('\n');
			fflush(stdout);
		}
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
