/* SPDX-License-Identifier: GPL-2.0 */
/* Shared bits of sbridgectl: exit codes, command table, output helpers. */
#ifndef SBRIDGECTL_H
#define SBRIDGECTL_H

#include <stdint.h>
#include <stdio.h>
#include <getopt.h>

#include "grow.h"
#include "nl.h"

/* Exit codes: stable, documented in sbridgectl(8). */
#define SB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define SB_EXIT_OK	0	/* success */
#define SB_EXIT_ERR	1	/* kernel or runtime error */
#define SB_EXIT_USAGE	2	/* bad command line or bad input file; nothing sent */
#define SB_EXIT_NOMOD	3	/* sbridge module not loaded */
#define SB_EXIT_PERM	4	/* permission denied (needs CAP_SYS_ADMIN) */

struct sb_cmd {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the name */
	const char *summary;
};

extern int sb_json;		/* --json given */
extern const char *sb_prog;	/* "sbridgectl" */

/* Subcommand entry points, one file per group. */
int cmd_status(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_tasks(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

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

/* term.c: raw keys for "top". sb_term_raw() returns 0 if stdin is a
 * terminal now in raw mode (restored at exit and by sb_term_restore());
 * sb_term_key() waits up to @timeout_ms (-1: forever) and returns a byte,
 * -1 on timeout, -2 at end of input; sb_term_line() reads a line after
 * @prompt (0, or -1 if Escape or end of input); sb_term_colour() says if
 * stdout is a terminal that takes colour (NO_COLOR and TERM=dumb say no). */
int sb_term_raw(void);
void sb_term_restore(void);
int sb_term_key(int timeout_ms);
int sb_term_line(const char *prompt, char *buf, size_t len);
int sb_term_colour(void);
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

/* The module's runtime parameters, "NAME VALUE" a line. */
#define SB_PARAMS_PATH	"/sys/kernel/sbridge/params"

/* One parameter from SB_PARAMS_PATH: 0, or -1 if not there. */
int sb_read_param(const char *name, unsigned long long *v);

/* Fixed point as text, e.g. "1.25" (four rotating static buffers). */
const char *sb_fp(uint32_t v);

/* Minimal JSON writer to stdout; a NULL key inside arrays. */
void js_obj_begin(const char *key);
void js_obj_end(void);
void js_arr_begin(const char *key);
void js_arr_end(void);
void js_str(const char *key, const char *v);
void js_uint(const char *key, uint64_t v);
void js_fp(const char *key, uint32_t v);
void js_bool(const char *key, int v);
void js_null(const char *key);
/*
 * One error of an input file, the one schema every --json error list
 * uses: {"file":F,"line":N,"column":N,"message":M}, @file NULL, @line or
 * @col 0 as null where they do not apply.
 */
void sb_json_error(const char *file, unsigned int line, unsigned int col,
		   const char *msg);



/* One CPU of the SBRIDGE_CMD_GET_CPUS dump (status.c, cpu.c). */
struct sb_cpu {
	uint32_t id, type, capacity, orig_capacity, factor, override;
	uint32_t factor_nominal, cur_khz, max_khz, cluster;
	uint32_t clock;	/* enum sbridge_clock of cur_khz */
	int declared;	/* core types declared by the user (cpu_types=) */
	char model[32];
};

/* enum sbridge_clock as a word ("emulated"), and whether it is the
 * machine's own clock information (counters, FIE, cpufreq). */
const char *sb_clock_kind(uint32_t kind);
int sb_clock_real(uint32_t kind);

/* Dumps the CPUs; *out is malloc'ed. Returns 0 or a negative errno. */
int sb_get_cpus(struct sb_nl *nl, struct sb_cpu **out, size_t *n);
void sb_print_cpus(const struct sb_cpu *cpus, size_t n, const void *filter);
void sb_json_cpus(const struct sb_cpu *cpus, size_t n, const void *filter);

/*
 * Parse steps of `set cpu-factor` and `set param`, shared with `config`
 * (cpu.c): no kernel contact. Each returns 0, or -1 with @e->msg a whole
 * message naming the bad argument and @e->off the 0-based offset of the
 * problem inside it (@e->value: the VALUE, not the NAME, of a param).
 */
#define SB_PARAM_NAME_MAX	31	/* the kernel's SBRIDGE_PARAM_NAME_LEN - 1 */
struct sb_perr {
	char msg[512];
	unsigned int off;
	int value;
};
struct cpuset;
int sb_parse_cpus(const char *s, struct cpuset *set, struct sb_perr *e);
/* A factor in [0.125, 8], or 0 / clear / none (drop the override: *v = 0). */
int sb_parse_factor(const char *s, uint32_t *v, struct sb_perr *e);
int sb_parse_param(const char *name, const char *value, uint64_t *v,
		   struct sb_perr *e);
/* The NAME half of sb_parse_param(). */
int sb_check_param_name(const char *name, struct sb_perr *e);

/*
 * The core's parameter table as this sbridgectl was built with it
 * (sbridge-core/params.c through gen-params.sh): name, accepted range,
 * default. The module of the same version has the same table.
 */
struct sb_param_desc {
	const char *name;
	uint64_t min, max, def;
};
const struct sb_param_desc *sb_param_desc(const char *name);
/* The @i-th entry, NULL past the end. */
const struct sb_param_desc *sb_param_nth(size_t i);
/* 0 if the table knows @name and @v is in its range, else -1 with @e
 * (a name in modprobe.d's spelling, act_gain, is named as such). */
int sb_check_param_table(const char *name, uint64_t v, struct sb_perr *e);

/* The parameters in force, in the order the module lists them. */
struct sb_param {
	char name[SB_PARAM_NAME_MAX + 1];
	uint64_t value;
};

struct sb_params {
	struct sb_param *v;
	size_t n, cap;
};

/* The "NAME VALUE" lines of @path (SB_PARAMS_PATH) into @p, emptied
 * first: 0 or a negative errno. The caller frees p->v in both cases. */
int sb_read_params(const char *path, struct sb_params *p);
int sb_add_param(struct sb_params *p, const char *name, uint64_t value);
/* Where @p holds the value of @name, NULL if it has none. */
uint64_t *sb_find_param(const struct sb_params *p, const char *name);
/*
 * `get param [NAME]` once the module is known to be there: every
 * parameter of @path, or @name's, as text or JSON. Returns an exit code:
 * 1 if @path cannot be read, 2 for a NAME it does not list.
 */
int sb_show_params(const char *path, const char *name);
/* -1 with @msg if a CPU of @want is not in @cpus (the GET_CPUS dump). */
int sb_cpus_unknown(const struct cpuset *want, const struct sb_cpu *cpus,
		    size_t n, char *msg, size_t len);
/*
 * Overrides that do less than they seem to, as warnings on stderr (with
 * @warn): a set covering part of a core type (the type takes the factor
 * of its first CPU, topology.c) and a factor other than 1 on the
 * reference (biggest) type. @v 0 clears. Returns how many there are.
 */
int sb_factor_warnings(const struct cpuset *set, uint32_t v, const struct sb_cpu *cpus,
		       size_t n, int warn);
/*
 * doctor: the settings of the configuration file @path against what is in
 * force (@p from SB_PARAMS_PATH, @cpus the GET_CPUS dump), as `tuned-adm
 * verify` does: @fn gets one message per setting that differs (the last
 * line for a parameter or a CPU is the one that counts); with @fn NULL
 * the file is only checked, as `config check` does. Returns how many
 * settings the file holds, or -1 with @why if it cannot be read or parsed.
 */
int sb_config_verify(const char *path, const struct sb_params *p,
		     const struct sb_cpu *cpus, size_t n,
		     void (*fn)(void *arg, const char *msg), void *arg,
		     char *why, size_t whylen);
/* The rules in force (RULES_GET) appended to @set, factors per type
 * index as the kernel has them: 0 or a negative errno. */
struct rp_set;
int sb_rules_get(struct sb_nl *nl, struct rp_set *set);
/* SET_CPU_FACTOR / SET_PARAM requests; 0 or a negative errno. */
int sb_set_cpu_factor(struct sb_nl *nl, const struct cpuset *set, uint32_t v);
int sb_set_param(struct sb_nl *nl, const char *name, uint64_t v);
/* predictor.c: set/get predictor */
int sb_predictor_set(const char *arg, const char *help);
int sb_predictor_get(void);

/* calibrate.c: where the calibration is stored, and what status shows of it */
#define SB_CAL_STATE		"/var/lib/sbridge/calibration.conf"
#define SB_CAL_MAX_LAT_NS	100000	/* model.mem_latency_ns's range */
void sb_calibration_status(void);
/* calibrate's arithmetic (host-tested): cost of an iteration in ns at the
 * top clock (cycles x 10^6 / kHz, or wall ns without cycles or kHz); the
 * smallest of @n with the relative spread; a cost ratio as a CPU factor
 * (0 if outside [0.125, 8]); an LLC miss's latency (0, or -1); the busy
 * share (per mille) of @cpu between two /proc/stat texts, -1 unknown. */
double sb_cal_cost(uint64_t cycles, uint64_t ns, uint64_t iters, uint32_t khz);
double sb_cal_best(const double *v, size_t n, double *spread);
uint32_t sb_cal_factor(double cost, double ref_cost);
int sb_cal_latency(double chase, double llc, double *ns);
int sb_cal_busy(const char *before, const char *after, unsigned int cpu);

#endif
