// SPDX-License-Identifier: GPL-2.0
/*
 * sbridgectl: control tool for the sbridge modules. A cpupower-style
 * command table dispatches to one file per subcommand group; every
 * command validates its arguments before talking to the kernel.
 */
#include <string.h>

#include "sbridgectl.h"

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

static const struct sb_cmd commands[] = {
	{ "status", cmd_status, "module state, counter source, core types" },
	{ "doctor", cmd_doctor, "check sbridge on this machine, say what to fix" },
	{ "get", cmd_get, "per-CPU core type, capacity, factor | get param [NAME]" },
	{ "set", cmd_set, "set cpu-factor CPUS VALUE | set param NAME VALUE" },
	{ "config", cmd_config, "config apply|check|save FILE: set values at boot" },
	{ "tasks", cmd_tasks, "tracked tasks: CPI stack, factors, placement" },
	{ "top", cmd_top, "refreshing view of the busiest tasks" },
	{ "rules", cmd_rules, "rules load|list|clear|check" },
	{ "matrix", cmd_matrix, "matrix save|load FILE: the learned factors" },
	{ "check", cmd_check, "work-conserving invariant reports" },
	{ "events", cmd_events, "stream module events" },
	{ "record", cmd_record, "record events, switches and samples to a file" },
	{ "calibrate", cmd_calibrate, "measure the core types, set CPU factors and latency" },
};

#define NCMDS SB_ARRAY_SIZE(commands)

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: sbridgectl [--json] COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-8s %s\n", "help", "help [COMMAND]");
	fprintf(f, "  %-8s %s\n", "version", "print the version");
	fprintf(f, "\nRun 'sbridgectl COMMAND --help' for a command's options.\n"
		"Exit codes: 0 ok, 1 kernel/runtime error, 2 usage error,\n"
		"3 module not loaded, 4 permission denied. See sbridgectl(8).\n");
}

static const struct sb_cmd *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct sb_cmd *c;
	int i = 1;

	/* Global options before the command. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			sb_json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return SB_EXIT_OK;
		} else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("sbridgectl %s (genl API %u)\n", SB_VERSION,
			       SBRIDGE_GENL_VERSION);
			return SB_EXIT_OK;
		} else {
			sb_err("unknown option '%s'", argv[i]);
			usage(stderr);
			return SB_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return SB_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "version")) {
		printf("sbridgectl %s (genl API %u)\n", SB_VERSION, SBRIDGE_GENL_VERSION);
		return SB_EXIT_OK;
	}
	if (!strcmp(argv[i], "help")) {
		char *hargv[] = { NULL, "--help", NULL };

		/* "help", "help --help", "help -h", "help help": the overview */
		if (i + 1 >= argc || !strcmp(argv[i + 1], "--help") ||
		    !strcmp(argv[i + 1], "-h") || !strcmp(argv[i + 1], "help")) {
			usage(stdout);
			return SB_EXIT_OK;
		}
		c = find(argv[i + 1]);
		if (!c) {
			sb_err("unknown command '%s'", argv[i + 1]);
			return SB_EXIT_USAGE;
		}
		hargv[0] = argv[i + 1];
		return c->run(2, hargv);
	}
	c = find(argv[i]);
	if (!c) {
		sb_err("unknown command '%s' (see 'sbridgectl --help')", argv[i]);
		return SB_EXIT_USAGE;
	}
	optind = 1;
	return c->run(argc - i, argv + i);
}
