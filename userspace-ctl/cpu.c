// SPDX-License-Identifier: GPL-2.0
/* get / set cpu-factor / set param: per-CPU view and overrides. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "rules_parse.h"
#include "sbridgectl.h"

static const char get_help[] =
"usage: sbridgectl get [cpu-factor] [CPUS] | get param [NAME]\n"
"                      | get predictor [--json]\n"
"\n"
"Show each CPU's core type, cluster, capacity (now and at load), the CPU\n"
"factor in force (scaled by the current/max frequency of the reference\n"
"type over this CPU's), the nominal factor at full speed, the user\n"
"override (- = none), frequencies and model. TYPE ends in 'd' when the\n"
"core types were declared with the cpu_types= module parameter.\n"
"CPUS is a list as taskset -c takes it: 0-3,5,7-9:2 (default: all).\n"
"\n"
"param  show every module parameter in force, NAME VALUE a line, or the\n"
"       one NAME (the names `set param` takes).\n"
"predictor  the instruction-mix predictor's coefficients in force, as\n"
"       `set predictor` takes them (root: the file is 0600).\n";

static const char set_help[] =
"usage: sbridgectl set cpu-factor CPUS VALUE | set param NAME VALUE\n"
"                      | set predictor FILE|none [--json]\n"
"\n"
"cpu-factor  override the CPU factor of CPUS (a list as taskset -c takes it,\n"
"            e.g. 0-3,5,7-9:2). VALUE is a decimal in [0.125, 8] (1 = the\n"
"            reference, i.e. biggest, core type; a little type's factor is\n"
"            > 1), or 0 / clear to drop the override.\n"
"param       set a module parameter (actuator switches, checker periods);\n"
"            VALUE is an unsigned integer.\n"
"predictor   the instruction-mix predictor's coefficients per pair of core\n"
"            types, from FILE (as tools/mixfit.py writes it; '-' reads\n"
"            standard input), all pairs or none; none goes back to eq. 3.\n"
"All need CAP_SYS_ADMIN.\n";

static int cpu_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	struct { struct sb_cpu *v; size_t n, cap; } *l = arg;
	struct sb_cpu *c, *nv;

	(void)cmd;
	if (!at->a[SBRIDGE_A_CPU_ID])
		return 0;
	nv = sb_grow(l->v, &l->cap, l->n, sizeof(*nv), 64);
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	c = &l->v[l->n++];
	memset(c, 0, sizeof(*c));
	c->id = sb_u32(at->a[SBRIDGE_A_CPU_ID], 0);
	c->type = sb_u32(at->a[SBRIDGE_A_CPU_TYPE], 0);
	c->capacity = sb_u32(at->a[SBRIDGE_A_CPU_CAPACITY], 0);
	c->orig_capacity = sb_u32(at->a[SBRIDGE_A_CPU_ORIG_CAPACITY], 0);
	c->factor = sb_u32(at->a[SBRIDGE_A_CPU_FACTOR], 0);
	/* A module before API 3 has no nominal factor: the one in force is it. */
	c->factor_nominal = sb_u32(at->a[SBRIDGE_A_CPU_FACTOR_NOMINAL], c->factor);
	c->declared = sb_u32(at->a[SBRIDGE_A_CPU_DECLARED], 0) != 0;
	c->override = sb_u32(at->a[SBRIDGE_A_CPU_FACTOR_OVERRIDE], 0);
	c->cur_khz = sb_u32(at->a[SBRIDGE_A_CPU_CUR_KHZ], 0);
	c->max_khz = sb_u32(at->a[SBRIDGE_A_CPU_MAX_KHZ], 0);
	c->cluster = sb_u32(at->a[SBRIDGE_A_CPU_CLUSTER], 0);
	c->clock = sb_u32(at->a[SBRIDGE_A_CPU_CLOCK_KIND], SBRIDGE_CLOCK_NONE);
	snprintf(c->model, sizeof(c->model), "%s", sb_str(at->a[SBRIDGE_A_CPU_MODEL]));
	c->type_from = sb_u32(at->a[SBRIDGE_A_CPU_TYPE_FROM], 0);
	return 0;
}

const char *sb_types_from(uint32_t from)
{
	static const char *const words[] = {
		[SBRIDGE_TYPES_CAPACITY]   = "capacity",
		[SBRIDGE_TYPES_CPUFREQ]    = "cpufreq",
		[SBRIDGE_TYPES_DECLARED]   = "declared",
		[SBRIDGE_TYPES_X86_HYBRID] = "cpuid-hybrid",
		[SBRIDGE_TYPES_RANKING]    = "cppc-ranking",
		[SBRIDGE_TYPES_MIDR]       = "midr",
	};

	return from < sizeof(words) / sizeof(words[0]) ? words[from] : NULL;
}

const char *sb_clock_kind(uint32_t kind)
{
	static const char *const words[] = {
		[SBRIDGE_CLOCK_NONE]	 = "none",
		[SBRIDGE_CLOCK_COUNTERS] = "counters",
		[SBRIDGE_CLOCK_FIE]	 = "fie",
		[SBRIDGE_CLOCK_CPUFREQ]	 = "cpufreq",
		[SBRIDGE_CLOCK_EMULATED] = "emulated",
	};

	return kind < sizeof(words) / sizeof(words[0]) ? words[kind] : "unknown";
}

int sb_clock_real(uint32_t kind)
{
	return kind == SBRIDGE_CLOCK_COUNTERS || kind == SBRIDGE_CLOCK_FIE ||
	       kind == SBRIDGE_CLOCK_CPUFREQ;
}

int sb_get_cpus(struct sb_nl *nl, struct sb_cpu **out, size_t *n)
{
	struct { struct sb_cpu *v; size_t n, cap; } l = { NULL, 0, 0 };
	struct sb_msg m;
	int ret;

	sb_msg_init(&m, nl, SBRIDGE_CMD_GET_CPUS, 1);
	ret = sb_request(nl, &m, cpu_cb, &l);
	sb_msg_free(&m);
	if (ret) {
		free(l.v);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

static const char *mhz(uint32_t khz)
{
	static char buf[2][16];
	static int i;

	i ^= 1;
	if (!khz)
		return "-";
	snprintf(buf[i], sizeof(buf[i]), "%u", khz / 1000);
	return buf[i];
}

void sb_print_cpus(const struct sb_cpu *cpus, size_t n, const void *filter)
{
	const struct cpuset *f = filter;
	size_t i;

	printf("%4s %4s %7s %8s %8s %7s %7s %8s %8s %8s  %-12s %s\n", "CPU", "TYPE",
	       "CLUSTER", "CAPACITY", "ORIG", "FACTOR", "NOMINAL", "OVERRIDE",
	       "CUR_MHZ", "MAX_MHZ", "MODEL", "TYPE_FROM");
	for (i = 0; i < n; i++) {
		const struct sb_cpu *c = &cpus[i];

		if (f && !cpuset_has(f, c->id))
			continue;
		printf("%4u %3u%c %7u %8u %8u %7s %7s %8s %8s %8s  %-12s %s\n", c->id,
		       c->type, c->declared ? 'd' : ' ', c->cluster, c->capacity,
		       c->orig_capacity, sb_fp(c->factor), sb_fp(c->factor_nominal),
		       c->override ? sb_fp(c->override) : "-", mhz(c->cur_khz),
		       mhz(c->max_khz), c->model[0] ? c->model : "-",
		       sb_types_from(c->type_from) ?: "-");
	}
}

void sb_json_cpus(const struct sb_cpu *cpus, size_t n, const void *filter)
{
	const struct cpuset *f = filter;
	size_t i;

	js_arr_begin("cpus");
	for (i = 0; i < n; i++) {
		const struct sb_cpu *c = &cpus[i];

		if (f && !cpuset_has(f, c->id))
			continue;
		js_obj_begin(NULL);
		js_uint("cpu", c->id);
		js_uint("type", c->type);
		js_uint("cluster", c->cluster);
		js_uint("capacity", c->capacity);
		js_uint("orig_capacity", c->orig_capacity);
		js_fp("factor", c->factor);
		js_fp("factor_nominal", c->factor_nominal);
		js_bool("declared", c->declared);
		if (c->override)	/* 0 is none: the text's "-" */
			js_fp("override", c->override);
		else
			js_null("override");
		js_uint("cur_khz", c->cur_khz);
		js_str("clock", sb_clock_kind(c->clock));
		js_uint("max_khz", c->max_khz);
		js_str("model", c->model);
		js_str("type_from", sb_types_from(c->type_from));
		js_obj_end();
	}
	js_arr_end();
}

int sb_parse_cpus(const char *s, struct cpuset *set, struct sb_perr *e)
{
	const char *why;
	unsigned int col;

	if (!cpulist_parse(s, set, &why, &col))
		return 0;
	snprintf(e->msg, sizeof(e->msg),
		 "bad CPU list '%s': %s at position %u (expected e.g. 0-3,5,7-9:2)",
		 s, why, col);
	e->off = col ? col - 1 : 0;
	return -1;
}

int sb_parse_factor(const char *s, uint32_t *v, struct sb_perr *e)
{
	const char *why;

	e->off = 0;
	if (!strcmp(s, "clear") || !strcmp(s, "none")) {
		*v = 0;
		return 0;
	}
	if (sb_parse_fp(s, v, &why)) {
		snprintf(e->msg, sizeof(e->msg),
			 "bad factor '%s': %s (expected a decimal in [0.125, 8], or 0 to clear)",
			 s, why);
		return -1;
	}
	if (*v && (*v < SBRIDGE_FACTOR_MIN || *v > SBRIDGE_FACTOR_MAX)) {
		snprintf(e->msg, sizeof(e->msg),
			 "factor '%s' out of range (0.125 to 8, or 0 to clear)", s);
		return -1;
	}
	return 0;
}

int sb_check_param_name(const char *name, struct sb_perr *e)
{
	const char *p;

	e->off = 0;
	e->value = 0;
	if (!name[0] || strlen(name) > SB_PARAM_NAME_MAX) {
		snprintf(e->msg, sizeof(e->msg), "bad parameter name '%s'", name);
		return -1;
	}
	for (p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.' || *p == '-')) {
			snprintf(e->msg, sizeof(e->msg),
				 "bad parameter name '%s' (letters a-z, digits, _ . -)", name);
			e->off = (unsigned int)(p - name);
			return -1;
		}
	}
	return 0;
}

/* The constants params.c's ranges use: the scheduler's capacity scale and
 * the unit of learn.warm_instr (sbridge-core/speedup.h). */
#define SCHED_CAPACITY_SCALE	1024
#define SBRIDGE_WARM_UNIT	1024

/* sbridge_param_tab[] of sbridge-core/params.c, made by gen-params.sh. */
static const struct sb_param_desc sb_param_tab[] = {
#include "params_tab.h"
};

const struct sb_param_desc *sb_param_desc(const char *name)
{
	size_t i;

	for (i = 0; i < SB_ARRAY_SIZE(sb_param_tab); i++)
		if (!strcmp(sb_param_tab[i].name, name))
			return &sb_param_tab[i];
	return NULL;
}

const struct sb_param_desc *sb_param_nth(size_t i)
{
	return i < SB_ARRAY_SIZE(sb_param_tab) ? &sb_param_tab[i] : NULL;
}

int sb_check_param_table(const char *name, uint64_t v, struct sb_perr *e)
{
	const struct sb_param_desc *d = sb_param_desc(name);
	char alt[SB_PARAM_NAME_MAX + 1], *c;

	e->off = 0;
	e->value = 0;
	if (!d) {
		/* modprobe.d's spelling: '_' where the name has '.' */
		snprintf(alt, sizeof(alt), "%s", name);
		for (c = alt; *c; c++) {
			if (*c != '_')
				continue;
			*c = '.';
			if (sb_param_desc(alt)) {
				snprintf(e->msg, sizeof(e->msg),
					 "unknown parameter '%s': this is its module parameter spelling, here it is '%s'",
					 name, alt);
				return -1;
			}
			*c = '_';
		}
		snprintf(e->msg, sizeof(e->msg),
			 "unknown parameter '%s' (sbridgectl(8), PARAMETERS, lists them)", name);
		return -1;
	}
	if (v < d->min || v > d->max) {
		snprintf(e->msg, sizeof(e->msg), "%s %llu out of range (%llu to %llu)", name,
			 (unsigned long long)v, (unsigned long long)d->min,
			 (unsigned long long)d->max);
		e->value = 1;
		return -1;
	}
	return 0;
}

int sb_parse_param(const char *name, const char *value, uint64_t *v,
		   struct sb_perr *e)
{
	unsigned long long u;

	if (sb_check_param_name(name, e))
		return -1;
	if (sb_parse_uint(value, ~0ULL, &u)) {
		snprintf(e->msg, sizeof(e->msg),
			 "bad value '%s' (expected an unsigned integer)", value);
		e->value = 1;
		return -1;
	}
	*v = u;
	return 0;
}

static int parse_cpus_arg(const char *s, struct cpuset *set, const char *help)
{
	struct sb_perr e;

	if (sb_parse_cpus(s, set, &e))
		return sb_usage(help, "%s", e.msg);
	return 0;
}

int sb_cpus_unknown(const struct cpuset *want, const struct sb_cpu *cpus,
		    size_t n, char *msg, size_t len)
{
	struct cpuset have;
	char list[256];
	unsigned int c;
	size_t i;

	memset(&have, 0, sizeof(have));
	for (i = 0; i < n; i++)
		if (cpus[i].id < SB_MAX_CPUS)
			have.bits[cpus[i].id / 64] |= 1ULL << (cpus[i].id % 64);
	for (c = 0; c < SB_MAX_CPUS; c++) {
		if (cpuset_has(want, c) && !cpuset_has(&have, c)) {
			cpulist_format(&have, list, sizeof(list));
			snprintf(msg, len, "CPU %u is not known to sbridge (CPUs: %s)",
				 c, list[0] ? list : "none");
			return -1;
		}
	}
	return 0;
}

int sb_factor_warnings(const struct cpuset *set, uint32_t v, const struct sb_cpu *cpus,
		       size_t n, int warn)
{
	struct cpuset *type = malloc(sizeof(*type)), *in = malloc(sizeof(*in));
	char tl[256], il[256];
	unsigned int t, ntypes = 0, nw = 0;
	size_t i;
	int first;

	if (!type || !in)
		goto out;
	for (i = 0; i < n; i++)
		if (cpus[i].type + 1 > ntypes)
			ntypes = cpus[i].type + 1;
	for (t = 0; t < ntypes && t < SBRIDGE_MAX_CORE_TYPES; t++) {
		int all = 1, any = 0;

		memset(type, 0, sizeof(*type));
		memset(in, 0, sizeof(*in));
		first = -1;
		for (i = 0; i < n; i++) {
			const struct sb_cpu *c = &cpus[i];

			if (c->type != t || c->id >= SB_MAX_CPUS)
				continue;
			if (first < 0 || (int)c->id < first)
				first = (int)c->id;
			type->bits[c->id / 64] |= 1ULL << (c->id % 64);
			if (cpuset_has(set, c->id)) {
				in->bits[c->id / 64] |= 1ULL << (c->id % 64);
				any = 1;
			} else {
				all = 0;
			}
		}
		if (!any)
			continue;
		cpulist_format(type, tl, sizeof(tl));
		cpulist_format(in, il, sizeof(il));
		/* topology.c: a type's factor is its first CPU's */
		if (!all && !cpuset_has(set, (unsigned int)first)) {
			nw++;
			if (warn)
				sb_warn("CPU %s: this changes nothing: core type %u (CPUs %s) takes the factor of its first CPU, %d; give all of %s",
					il, t, tl, first, tl);
		} else if (!all) {
			nw++;
			if (warn)
				sb_warn("CPU %s: core type %u (CPUs %s) takes the factor of its first CPU, %d, so this sets it for all of %s; give all of %s",
					il, t, tl, first, tl, tl);
		}
		if (t == ntypes - 1 && v && v != SBRIDGE_FP_ONE) {
			nw++;
			if (warn)
				sb_warn("CPU %s: core type %u is the reference (biggest)%s type, factor 1 by definition; another factor scales the load of every task there and so every predicted speedup: set the smaller types' factors instead",
					il, t, ntypes == 1 ? ", and only," : "");
		}
	}
out:
	free(type);
	free(in);
	return (int)nw;
}

/* Every CPU of @want must be one the module knows. */
static int check_cpus_known(const struct cpuset *want, const struct sb_cpu *cpus,
			    size_t n)
{
	char msg[512];

	if (sb_cpus_unknown(want, cpus, n, msg, sizeof(msg)))
		return sb_usage(NULL, "%s", msg);
	return 0;
}

int sb_show_params(const char *path, const char *name)
{
	struct sb_params p;
	uint64_t *v = NULL;
	size_t i;
	int ret, w = 0;

	ret = sb_read_params(path, &p);
	if (ret) {
		sb_err("cannot read %s: %s", path, strerror(-ret));
		ret = SB_EXIT_ERR;
		goto out;
	}
	if (name) {
		v = sb_find_param(&p, name);
		if (!v) {
			ret = sb_usage(NULL, "unknown parameter '%s' (sbridgectl get param lists them)",
				       name);
			goto out;
		}
	}
	if (sb_json) {
		js_obj_begin(NULL);
		if (name) {
			js_str("param", name);
			js_uint("value", *v);
		} else {
			js_arr_begin("params");
			for (i = 0; i < p.n; i++) {
				js_obj_begin(NULL);
				js_str("param", p.v[i].name);
				js_uint("value", p.v[i].value);
				js_obj_end();
			}
			js_arr_end();
		}
		js_obj_end();
	} else if (name) {
		printf("%s %llu\n", name, (unsigned long long)*v);
	} else {
		for (i = 0; i < p.n; i++)
			if ((int)strlen(p.v[i].name) > w)
				w = (int)strlen(p.v[i].name);
		for (i = 0; i < p.n; i++)
			printf("%-*s %llu\n", w, p.v[i].name,
			       (unsigned long long)p.v[i].value);
	}
out:
	free(p.v);
	return ret;
}

/* get param [NAME]: the parameters in force, from sysfs. */
static int get_param(int argc, char **argv)
{
	struct sb_perr e;
	struct sb_nl nl;
	int ret;

	if (argc > 1)
		return sb_usage(get_help, "get param takes at most one NAME");
	if (argc && sb_check_param_name(argv[0], &e))
		return sb_usage(get_help, "%s", e.msg);
	/* as every command: exit 3, and why, without the module */
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	sb_nl_close(&nl);
	return sb_show_params(SB_PARAMS_PATH, argc ? argv[0] : NULL);
}

int cmd_get(int argc, char **argv)
{
	struct cpuset set, *filter = NULL;
	struct sb_cpu *cpus = NULL;
	struct sb_nl nl;
	size_t n = 0;
	int c, ret, first;

	while ((c = sb_getopt(argc, argv, "", NULL, get_help)) != -1)
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	first = optind;
	if (first < argc && !strcmp(argv[first], "param"))
		return get_param(argc - first - 1, argv + first + 1);
	if (first < argc && !strcmp(argv[first], "predictor")) {
		if (argc - first > 1)
			return sb_usage(get_help, "get predictor takes no argument");
		return sb_predictor_get();
	}
	if (first < argc && !strcmp(argv[first], "cpu-factor"))
		first++;
	if (argc - first > 1)
		return sb_usage(get_help, "too many arguments");
	if (first < argc) {
		ret = parse_cpus_arg(argv[first], &set, get_help);
		if (ret)
			return ret;
		filter = &set;
	}
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	ret = sb_get_cpus(&nl, &cpus, &n);
	if (ret) {
		ret = sb_fail(&nl, ret, "reading CPUs");
		goto out;
	}
	if (filter) {
		ret = check_cpus_known(filter, cpus, n);
		if (ret)
			goto out;
	}
	if (sb_json) {
		js_obj_begin(NULL);
		sb_json_cpus(cpus, n, filter);
		js_obj_end();
	} else {
		sb_print_cpus(cpus, n, filter);
	}
out:
	free(cpus);
	sb_nl_close(&nl);
	return ret;
}

int sb_set_cpu_factor(struct sb_nl *nl, const struct cpuset *set, uint32_t v)
{
	uint8_t mask[SB_MAX_CPUS / 8];
	struct sb_msg m;
	size_t len;
	int ret;

	len = cpuset_to_le(set, mask, sizeof(mask));
	sb_msg_init(&m, nl, SBRIDGE_CMD_SET_CPU_FACTOR, 0);
	sb_put(&m, SBRIDGE_A_CPUMASK, mask, len);
	sb_put_u32(&m, SBRIDGE_A_FACTOR, v);
	ret = sb_request(nl, &m, NULL, NULL);
	sb_msg_free(&m);
	return ret;
}

int sb_set_param(struct sb_nl *nl, const char *name, uint64_t v)
{
	struct sb_msg m;
	int ret;

	sb_msg_init(&m, nl, SBRIDGE_CMD_SET_PARAM, 0);
	sb_put_str(&m, SBRIDGE_A_PARAM_NAME, name);
	sb_put_u64(&m, SBRIDGE_A_PARAM_VALUE, v);
	ret = sb_request(nl, &m, NULL, NULL);
	sb_msg_free(&m);
	return ret;
}

static int set_cpu_factor(char **args)
{
	struct cpuset set;
	struct sb_cpu *cpus = NULL;
	struct sb_nl nl;
	struct sb_perr e;
	char list[256];
	uint32_t v;
	size_t n = 0;
	int ret;

	ret = parse_cpus_arg(args[0], &set, set_help);
	if (ret)
		return ret;
	if (sb_parse_factor(args[1], &v, &e))
		return sb_usage(set_help, "%s", e.msg);

	ret = sb_connect(&nl);
	if (ret)
		return ret;
	if (!sb_get_cpus(&nl, &cpus, &n)) {
		ret = check_cpus_known(&set, cpus, n);
		if (!ret)
			sb_factor_warnings(&set, v, cpus, n, 1);
		free(cpus);
		if (ret)
			goto out;
	}
	ret = sb_set_cpu_factor(&nl, &set, v);
	if (ret) {
		ret = sb_fail(&nl, ret, "set cpu-factor");
		goto out;
	}
	cpulist_format(&set, list, sizeof(list));
	if (sb_json) {
		js_obj_begin(NULL);
		js_str("cpus", list);
		js_fp("factor", v);
		js_obj_end();
	} else if (v) {
		printf("CPU %s: factor override %s\n", list, sb_fp(v));
	} else {
		printf("CPU %s: factor override cleared\n", list);
	}
out:
	sb_nl_close(&nl);
	return ret;
}

static int set_param(char **args)
{
	struct sb_perr e;
	struct sb_nl nl;
	uint64_t v;
	int ret;

	if (sb_parse_param(args[0], args[1], &v, &e))
		return sb_usage(set_help, "%s", e.msg);
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	ret = sb_set_param(&nl, args[0], v);
	if (ret) {
		ret = sb_fail(&nl, ret, "set param");
	} else if (sb_json) {
		js_obj_begin(NULL);
		js_str("param", args[0]);
		js_uint("value", v);
		js_obj_end();
	} else {
		printf("%s = %llu\n", args[0], (unsigned long long)v);
	}
	sb_nl_close(&nl);
	return ret;
}

int cmd_set(int argc, char **argv)
{
	int c;

	while ((c = sb_getopt(argc, argv, "", NULL, set_help)) != -1)
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return sb_usage(set_help, "what to set? (cpu-factor, param or predictor)");
	if (!strcmp(argv[0], "predictor")) {
		if (argc != 2)
			return sb_usage(set_help, "set predictor takes one argument: FILE or none");
		return sb_predictor_set(argv[1], set_help);
	}
	if (strcmp(argv[0], "cpu-factor") && strcmp(argv[0], "param"))
		return sb_usage(set_help, "unknown setting '%s' (cpu-factor, param or predictor)",
				argv[0]);
	if (argc != 3)
		return sb_usage(set_help, "set %s takes exactly two arguments", argv[0]);
	return argv[0][0] == 'c' ? set_cpu_factor(argv + 1) : set_param(argv + 1);
}
