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
"override (- = none), frequencies, model, how its type was found, the\n"
"PMU the counter source counts it with and the event chain it chose\n"
"there (EVENTS: the core model of sbridge_pmu's event table and the event\n"
"each kind took). TYPE ends in 'd' when the\n"
"core types were declared with the cpu_types= module parameter.\n"
"CPUS is a list as taskset -c takes it: 0-3,5,7-9:2 (default: all).\n"
"\n"
"param  show every module parameter in force, NAME VALUE a line, or the\n"
"       one NAME (the names `set param` takes).\n"
"predictor  the instruction-mix predictor's coefficients in force, as\n"
"       `set predictor` takes them (root: the file is 0600).\n";

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

void get_print_cpus(const struct sb_cpu *cpus, size_t n, const void *filter)
{
	const struct sb_cpuset *f = filter;
	size_t i;

	printf("%4s %4s %7s %8s %8s %7s %7s %8s %8s %8s  %-12s %-12s %-16s %s\n", "CPU",
	       "TYPE", "CLUSTER", "CAPACITY", "ORIG", "FACTOR", "NOMINAL", "OVERRIDE",
	       "CUR_MHZ", "MAX_MHZ", "MODEL", "TYPE_FROM", "PMU", "EVENTS");
	for (i = 0; i < n; i++) {
		const struct sb_cpu *c = &cpus[i];

		if (f && !sb_cpuset_has(f, c->id))
			continue;
		printf("%4u %3u%c %7u %8u %8u %7s %7s %8s %8s %8s  %-12s %-12s %-16s %s\n",
		       c->id, c->type, c->declared ? 'd' : ' ', c->cluster, c->capacity,
		       c->orig_capacity, sb_fp(c->factor), sb_fp(c->factor_nominal),
		       c->override ? sb_fp(c->override) : "-", mhz(c->cur_khz),
		       mhz(c->max_khz), c->model[0] ? c->model : "-",
		       sb_types_from(c->type_from) ?: "-", c->pmu[0] ? c->pmu : "-",
		       c->pmu[0] ? c->pmu_chain : "-");
	}
}

void get_json_cpus(const struct sb_cpu *cpus, size_t n, const void *filter)
{
	const struct sb_cpuset *f = filter;
	size_t i;

	sb_js_arr_begin("cpus");
	for (i = 0; i < n; i++) {
		const struct sb_cpu *c = &cpus[i];

		if (f && !sb_cpuset_has(f, c->id))
			continue;
		sb_js_obj_begin(NULL);
		sb_js_uint("cpu", c->id);
		sb_js_uint("type", c->type);
		sb_js_uint("cluster", c->cluster);
		sb_js_uint("capacity", c->capacity);
		sb_js_uint("orig_capacity", c->orig_capacity);
		sb_js_fp("factor", c->factor);
		sb_js_fp("factor_nominal", c->factor_nominal);
		sb_js_bool("declared", c->declared);
		if (c->override)	/* 0 is none: the text's "-" */
			sb_js_fp("override", c->override);
		else
			sb_js_null("override");
		sb_js_uint("cur_khz", c->cur_khz);
		sb_js_str("clock", sb_clock_kind(c->clock));
		sb_js_uint("max_khz", c->max_khz);
		sb_js_str("model", c->model);
		sb_js_str("type_from", sb_types_from(c->type_from));
		/* API 5: the counter source's PMU there; null if none said */
		sb_js_str("pmu", c->pmu[0] ? c->pmu : NULL);
		sb_js_str("pmu_chain", c->pmu[0] ? c->pmu_chain : NULL);
		sb_js_obj_end();
	}
	sb_js_arr_end();
}

int get_show_params(const char *path, const char *name)
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
		sb_js_obj_begin(NULL);
		if (name) {
			sb_js_str("param", name);
			sb_js_uint("value", *v);
		} else {
			sb_js_arr_begin("params");
			for (i = 0; i < p.n; i++) {
				sb_js_obj_begin(NULL);
				sb_js_str("param", p.v[i].name);
				sb_js_uint("value", p.v[i].value);
				sb_js_obj_end();
			}
			sb_js_arr_end();
		}
		sb_js_obj_end();
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
	return get_show_params(SB_PARAMS_PATH, argc ? argv[0] : NULL);
}

int cmd_get(int argc, char **argv)
{
	struct sb_cpuset set, *filter = NULL;
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
		ret = sb_parse_cpus_arg(argv[first], &set, get_help);
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
		ret = sb_check_cpus_known(filter, cpus, n);
		if (ret)
			goto out;
	}
	if (sb_json) {
		sb_js_obj_begin(NULL);
		get_json_cpus(cpus, n, filter);
		sb_js_obj_end();
	} else {
		get_print_cpus(cpus, n, filter);
	}
out:
	free(cpus);
	sb_nl_close(&nl);
	return ret;
}
