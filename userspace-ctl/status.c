// SPDX-License-Identifier: GPL-2.0
/* status: what the module is doing and what it can measure. */
#include <stdlib.h>
#include <string.h>

#include "sbridgectl.h"

static const char status_help[] =
"usage: sbridgectl status [--json]\n"
"\n"
"Show the module version, the counter source and the events it delivers,\n"
"where the CPUs' clock comes from (the best source any CPU has; `get`\n"
"shows each CPU's) and whether it is real,\n"
"whether CPI learning is possible (and why not), which speedup predictor\n"
"is in force (the instruction mix or eq. 3, and why), tracked tasks, rules,\n"
"matrix size, core types, what sbridge changes in the scheduler now and\n"
"why (actuators on, the last decision), whether BPF schedulers (sched_ext)\n"
"get sbridge's kfuncs and whether scx_sbridge runs, and every CPU's\n"
"capacity and factor.\n";

struct status {
	char version[64], source[64], message[256], mode[256], clock[64];
	char predictor[128], sched_ext[128];
	uint32_t api, events, matrix, rules, ntypes, from, clock_kind;
	int learning, has_source;
	uint64_t tasks, allocs, frees, switches;
};

static const char *const ev_names[] = {
	"cycles", "instructions", "llc-refs", "llc-misses", "stall-cycles",
	"instr-classes",
};

static int status_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	struct status *s = arg;

	(void)cmd;
	snprintf(s->version, sizeof(s->version), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_VERSION]));
	s->has_source = at->a[SBRIDGE_A_STATUS_SOURCE] != NULL;
	snprintf(s->source, sizeof(s->source), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_SOURCE]));
	snprintf(s->message, sizeof(s->message), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_MESSAGE]));
	snprintf(s->mode, sizeof(s->mode), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_MODE]));
	s->api = sb_u32(at->a[SBRIDGE_A_STATUS_API], 0);
	s->events = sb_u32(at->a[SBRIDGE_A_STATUS_EVENTS], 0);
	s->learning = (int)sb_u32(at->a[SBRIDGE_A_STATUS_LEARNING], 0);
	s->tasks = sb_u64(at->a[SBRIDGE_A_STATUS_TASKS], 0);
	s->allocs = sb_u64(at->a[SBRIDGE_A_STATUS_ALLOCS], 0);
	s->frees = sb_u64(at->a[SBRIDGE_A_STATUS_FREES], 0);
	s->matrix = sb_u32(at->a[SBRIDGE_A_STATUS_MATRIX], 0);
	s->rules = sb_u32(at->a[SBRIDGE_A_STATUS_RULES], 0);
	s->ntypes = sb_u32(at->a[SBRIDGE_A_STATUS_NTYPES], 0);
	s->switches = sb_u64(at->a[SBRIDGE_A_STATUS_SWITCHES], 0);
	s->from = sb_u32(at->a[SBRIDGE_A_STATUS_TYPES_FROM], 0);
	/* a module before API 5 does not say: none known */
	snprintf(s->clock, sizeof(s->clock), "%s", sb_str(at->a[SBRIDGE_A_STATUS_CLOCK]));
	snprintf(s->predictor, sizeof(s->predictor), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_PREDICTOR]));
	s->clock_kind = sb_u32(at->a[SBRIDGE_A_STATUS_CLOCK_KIND], SBRIDGE_CLOCK_NONE);
	/* an older module does not say */
	snprintf(s->sched_ext, sizeof(s->sched_ext), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_SCHED_EXT]));
	return 0;
}

/* What a clock kind means, for the status line. */
static const char *clock_meaning(uint32_t kind)
{
	switch (kind) {
	case SBRIDGE_CLOCK_COUNTERS:
		return "measured by the CPUs' cycle counters";
	case SBRIDGE_CLOCK_FIE:
		return "the kernel's frequency-invariance scale";
	case SBRIDGE_CLOCK_CPUFREQ:
		return "what the cpufreq driver set";
	case SBRIDGE_CLOCK_EMULATED:
		return "measured by the emulation rig's counters, not hardware";
	default:
		return "nothing measures it: CPU factors stay nominal";
	}
}

/* Without the module, a consumer of --json gets JSON too (exit 3 still says it). */
static void status_json_absent(void)
{
	int inst = sb_module_installed();

	sb_js_obj_begin(NULL);
	sb_js_bool("loaded", 0);
	if (inst < 0)
		sb_js_str("installed", NULL);
	else
		sb_js_bool("installed", inst);
	sb_js_obj_end();
}

static void status_json(const struct status *s, const struct sb_cpu *cpus, size_t ncpus)
{
	size_t i;

	sb_js_obj_begin(NULL);
	sb_js_str("version", s->version);
	sb_js_uint("api", s->api);
	sb_js_str("source", s->has_source ? s->source : NULL);
	sb_js_arr_begin("events");
	for (i = 0; i < sizeof(ev_names) / sizeof(ev_names[0]); i++)
		if (s->events & (1u << i))
			sb_js_str(NULL, ev_names[i]);
	sb_js_arr_end();
	sb_js_bool("learning", s->learning);
	sb_js_uint("tasks", s->tasks);
	sb_js_uint("allocs", s->allocs);
	sb_js_uint("frees", s->frees);
	sb_js_uint("switches", s->switches);
	sb_js_uint("rules", s->rules);
	sb_js_uint("matrix", s->matrix);
	sb_js_uint("core_types", s->ntypes);
	sb_js_bool("core_types_declared", ncpus && cpus[0].declared);
	/* API 5: how they were found; null from an older module */
	sb_js_str("core_types_from", sb_types_from(s->from));
	sb_js_str("message", s->message);
	sb_js_str("mode", s->mode);
	sb_js_obj_begin("clock");
	sb_js_str("source", s->clock_kind ? s->clock : NULL);
	sb_js_str("kind", sb_clock_kind(s->clock_kind));
	sb_js_bool("real", sb_clock_real(s->clock_kind));
	sb_js_obj_end();
	sb_js_str("predictor", s->predictor[0] ? s->predictor : NULL);
	sb_js_str("sched_ext", s->sched_ext[0] ? s->sched_ext : NULL);
	calibrate_status();
	get_json_cpus(cpus, ncpus, NULL);
	sb_js_obj_end();
}

/* How core types were found where every CPU reports one capacity. */
static const char *status_types_how(uint32_t from)
{
	switch (from) {
	case SBRIDGE_TYPES_CPUFREQ:
		return "by maximum frequency";
	case SBRIDGE_TYPES_X86_HYBRID:
		return "by CPUID 0x1A core type, HWP highest performance";
	case SBRIDGE_TYPES_RANKING:
		return "by the CPPC preferred-core ranking";
	case SBRIDGE_TYPES_MIDR:
		return "by MIDR part and maximum frequency";
	default:
		return NULL;
	}
}

static void status_print(const struct status *s, const struct sb_cpu *cpus, size_t ncpus)
{
	size_t i;

	printf("sbridge %s (genl API %u, sbridgectl speaks %u)\n",
	       s->version[0] ? s->version : "?", s->api, SBRIDGE_GENL_VERSION);
	printf("counter source:   %s", s->has_source ? s->source : "none");
	for (i = 0; i < sizeof(ev_names) / sizeof(ev_names[0]); i++)
		if (s->events & (1u << i))
			printf("%s%s", i && (s->events & ((1u << i) - 1)) ? " " : " (",
			       ev_names[i]);
	printf("%s\n", s->events ? ")" : "");
	printf("clock:            %s (%s)\n", s->clock_kind ? s->clock : "none",
	       clock_meaning(s->clock_kind));
	printf("CPI learning:     %s\n", s->learning ? "yes" : "no");
	if (s->predictor[0])
		printf("predictor:        %s\n", s->predictor);
	printf("core types:       %u", s->ntypes);
	if (ncpus && cpus[0].declared)
		printf(" (declared with cpu_types=)");
	else if (status_types_how(s->from))
		printf(" (%s: every CPU reports one capacity)", status_types_how(s->from));
	else if (s->ntypes == 1)
		printf(" (every CPU reports one capacity: nothing is steered;\n"
		       "                  declare core types with the cpu_types= module parameter)");
	putchar('\n');
	printf("tasks tracked:    %llu (allocated %llu, freed %llu)\n",
	       (unsigned long long)s->tasks, (unsigned long long)s->allocs,
	       (unsigned long long)s->frees);
	printf("context switches: %llu\n", (unsigned long long)s->switches);
	printf("rules in force:   %u\n", s->rules);
	printf("matrix entries:   %u\n", s->matrix);
	if (s->sched_ext[0])
		printf("sched_ext:        %s\n", s->sched_ext);
	if (s->mode[0])
		printf("in force:         %s\n", s->mode);
	if (s->message[0])
		printf("note:             %s\n", s->message);
	calibrate_status();
	if (ncpus) {
		putchar('\n');
		get_print_cpus(cpus, ncpus, NULL);
	}
}

int cmd_status(int argc, char **argv)
{
	struct status s;
	struct sb_cpu *cpus = NULL;
	struct sb_nl nl;
	struct sb_msg m;
	size_t ncpus = 0;
	int c, ret;

	while ((c = sb_getopt(argc, argv, "", NULL, status_help)) != -1)
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	if (optind < argc)
		return sb_usage(status_help, "unexpected argument '%s'", argv[optind]);
	ret = sb_connect(&nl);
	if (ret) {
		if (sb_json && ret == SB_EXIT_NOMOD)
			status_json_absent();
		return ret;
	}
	memset(&s, 0, sizeof(s));
	sb_msg_init(&m, &nl, SBRIDGE_CMD_GET_STATUS, 0);
	ret = sb_request(&nl, &m, status_cb, &s);
	sb_msg_free(&m);
	if (ret) {
		ret = sb_fail(&nl, ret, "reading status");
		goto out;
	}
	/* CPUs are part of the picture; a module without them still reports. */
	if (sb_get_cpus(&nl, &cpus, &ncpus))
		ncpus = 0;
	if (sb_json)
		status_json(&s, cpus, ncpus);
	else
		status_print(&s, cpus, ncpus);
out:
	free(cpus);
	sb_nl_close(&nl);
	return ret;
}
