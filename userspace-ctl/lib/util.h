/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every command shares (util.c): exit codes, option parsing, messages,
 * the connection to the module and number arguments.
 */
#ifndef SBRIDGECTL_UTIL_H
#define SBRIDGECTL_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <getopt.h>

#include "nl.h"

#define SB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Exit codes: stable, documented in sbridgectl(8). */
#define SB_EXIT_OK	0	/* success */
#define SB_EXIT_ERR	1	/* kernel or runtime error */
#define SB_EXIT_USAGE	2	/* bad command line or bad input file; nothing sent */
#define SB_EXIT_NOMOD	3	/* sbridge module not loaded */
#define SB_EXIT_PERM	4	/* permission denied (needs CAP_SYS_ADMIN) */

extern int sb_json;		/* --json given */
extern const char *sb_prog;	/* "sbridgectl" */

/*
 * Option parsing shared by every subcommand: runs getopt_long over @argv
 * with --json/-j and --help/-h added to @extra. Returns the next option
 * character of @extra, -1 at the end, 'h' once help was printed (the caller
 * returns 0) or '?' after printing a usage error (the caller returns 2).
 */
int sb_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *extra, const char *help);

/* Prints "sbridgectl: <msg>" and the usage hint; returns SB_EXIT_USAGE. */
int sb_usage(const char *help, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "sbridgectl: warning: ..." on stderr; the exit status is not changed. */
void sb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Connects to the module; returns 0 or an exit code after printing why. */
int sb_connect(struct sb_nl *nl);

/* 1 if modules.dep of the running kernel lists sbridge_core, 0 if not, -1
 * if that cannot be told (no modules.dep, e.g. in a bare initramfs). */
int sb_module_installed(void);

/* Turns a failed request into a message and an exit code. */
int sb_fail(struct sb_nl *nl, int err, const char *what);

/* Status reply fields the other commands use. */
struct sb_status {
	unsigned int ntypes;
	char source[64];
};
int sb_get_status(struct sb_nl *nl, struct sb_status *st);

/* Parses an unsigned decimal integer option value. */
int sb_parse_uint(const char *s, unsigned long long max, unsigned long long *out);

/* Seconds with at most 3 decimals ("2", "0.1", "1.25") to milliseconds,
 * at most @max_ms. 0, or -1 if malformed or out of range. */
int sb_parse_seconds(const char *s, unsigned long long max_ms, unsigned long long *ms);

#endif
