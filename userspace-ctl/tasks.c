// SPDX-License-Identifier: GPL-2.0
/* tasks (and top's list): per-task CPI stack, factors per core type and placement. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rules_parse.h"
#include "sbridgectl.h"
#include "tasks.h"

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

int tasks_fetch(struct sb_nl *nl, struct tlist *l)
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

void tasks_sort(struct tlist *l, int key)
{
	sort_key = key;
	qsort(l->v, l->n, sizeof(*l->v), cmp_task);
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
int tasks_row_colour;

static const char *class_colour(uint32_t cls)
{
	if (!tasks_row_colour)
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

static void task_json(const struct task *t, int placing, uint64_t interval_ns)
{
	size_t i;

	sb_js_obj_begin(NULL);
	sb_js_uint("pid", t->pid);
	sb_js_uint("uid", t->uid);
	sb_js_str("comm", t->comm);
	sb_js_uint("cpu", t->cpu);
	sb_js_str("class", sb_rp_class_name(t->cls));
	sb_js_uint("phase", t->phase);
	if (t->has_cpi) {
		sb_js_fp("cpi", t->cpi);
		sb_js_fp("cpi_stall", t->stall);
		sb_js_fp("cpib_share", t->cpib);
	}
	if (t->has_speedup) {
		sb_js_fp("speedup_pred", t->pred);
		if (t->has_pred_kind)
			sb_js_str("pred_kind", t->pred_kind == SBRIDGE_PRED_MIX ? "mix" : "eq3");
		if (t->has_meas)
			sb_js_fp("speedup_meas", t->meas);
		if (t->has_own)
			sb_js_fp("speedup_own", t->own);
		sb_js_fp("speedup", t->speedup);
		if (t->has_err) {
			sb_js_fp("speedup_err", t->err);
			sb_js_str("speedup_src", src_name(t->src));
			sb_js_uint("warm_windows", t->warm);
		}
	}
	sb_js_arr_begin("factors");
	for (i = 0; i < t->nf; i++)
		sb_js_fp(NULL, t->factors[i]);
	sb_js_arr_end();
	if (t->nmix == SBRIDGE_MIX_NR) {
		sb_js_obj_begin("mix");
		sb_js_fp("ldst", t->mix[SBRIDGE_MIX_LDST]);
		sb_js_fp("int", t->mix[SBRIDGE_MIX_INT]);
		sb_js_fp("fp", t->mix[SBRIDGE_MIX_FP]);
		sb_js_fp("branch", t->mix[SBRIDGE_MIX_BRANCH]);
		sb_js_obj_end();
	}
	sb_js_str("hint", hint_name(t->hint));
	sb_js_bool("hint_in_force", placing && t->hint != SBRIDGE_HINT_NONE);
	if (t->steered >= 0)
		sb_js_bool("mask_narrowed", t->steered);
	sb_js_uint("runtime_ns", t->runtime);
	if (interval_ns)
		sb_js_uint("cpu_permille", t->delta * 1000 / interval_ns);
	if (t->rule[0])
		sb_js_str("rule", t->rule);
	sb_js_obj_end();
}

static void task_print(const struct task *t, int placing, uint64_t interval_ns)
{
	char fac[64] = "-", place[8];
	size_t i, o = 0;

	for (i = 0; i < t->nf && o < sizeof(fac) - 8; i++)
		o += (size_t)snprintf(fac + o, sizeof(fac) - o, "%s%s",
				      i ? "/" : "", sb_fp(t->factors[i]));
	/* sb_fp() rotates four buffers: at most three per printf. */
	printf("%7u %6u %-15s %4u %s%-7s%s %2u %6s %6s %5s", t->pid, t->uid,
	       t->comm, t->cpu, class_colour(t->cls), sb_rp_class_name(t->cls),
	       tasks_row_colour ? "\033[0m" : "", t->phase,
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

void tasks_print(const struct tlist *l, const struct filter *f, uint64_t interval_ns)
{
	unsigned long long shown = 0;
	int placing = placement_on();
	size_t k;

	if (sb_json)
		sb_js_arr_begin("tasks");
	else
		printf("%7s %6s %-15s %4s %-7s %2s %6s %6s %5s %5s %5s %7s %5s %-6s %6s %-19s %10s%s %s\n",
		       "PID", "UID", "COMM", "CPU", "CLASS", "PH", "CPI", "STALL",
		       "CPI_B", "PRED", "MEAS", "SPEEDUP", "ERR", "SRC", "PLACE", "FACTORS",
		       "RUNTIME_MS", interval_ns ? "  %CPU" : "", "RULE");
	for (k = 0; k < l->n && (!f->limit || shown < f->limit); k++) {
		const struct task *t = &l->v[f->reverse ? l->n - 1 - k : k];

		if (!keep(t, f))
			continue;
		shown++;
		if (sb_json)
			task_json(t, placing, interval_ns);
		else
			task_print(t, placing, interval_ns);
	}
	if (sb_json)
		sb_js_arr_end();
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
		if (sb_parse_uint(arg, 0xffffffffULL, &v) && sb_rp_user_uid(NULL, arg, &v))
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

int tasks_parse_filter(int argc, char **argv, struct filter *f, const char *help,
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

	ret = tasks_parse_filter(argc, argv, &f, tasks_help, 0, NULL, NULL);
	if (ret)
		return ret == 'h' ? SB_EXIT_OK : ret;
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	ret = tasks_fetch(&nl, &l);
	if (ret) {
		ret = sb_fail(&nl, ret, "reading tasks");
	} else {
		tasks_sort(&l, f.sort);
		if (sb_json)
			sb_js_obj_begin(NULL);
		tasks_print(&l, &f, 0);
		if (sb_json)
			sb_js_obj_end();
	}
	free(l.v);
	sb_nl_close(&nl);
	return ret;
}

