// SPDX-License-Identifier: GPL-2.0
/* set cpu-factor / set param / set predictor: overrides and parameters. */
#include <stdlib.h>
#include <string.h>

#include "sbridgectl.h"

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

static int set_cpu_factor(char **args)
{
	struct sb_cpuset set;
	struct sb_cpu *cpus = NULL;
	struct sb_nl nl;
	struct sb_perr e;
	char list[256];
	uint32_t v;
	size_t n = 0;
	int ret;

	ret = sb_parse_cpus_arg(args[0], &set, set_help);
	if (ret)
		return ret;
	if (sb_parse_factor(args[1], &v, &e))
		return sb_usage(set_help, "%s", e.msg);

	ret = sb_connect(&nl);
	if (ret)
		return ret;
	if (!sb_get_cpus(&nl, &cpus, &n)) {
		ret = sb_check_cpus_known(&set, cpus, n);
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
	sb_cpulist_format(&set, list, sizeof(list));
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_str("cpus", list);
		sb_js_fp("factor", v);
		sb_js_obj_end();
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
		sb_js_obj_begin(NULL);
		sb_js_str("param", args[0]);
		sb_js_uint("value", v);
		sb_js_obj_end();
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
