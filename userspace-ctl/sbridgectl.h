/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What sbridgectl's commands see: the library (lib/, every symbol sb_*)
 * and the command table. A command is one file defining cmd_NAME() and
 * one SB_COMMAND() line of commands.h.
 */
#ifndef SBRIDGECTL_H
#define SBRIDGECTL_H

#include <stdint.h>
#include <stdio.h>
#include <getopt.h>

#include "cpulist.h"
#include "cpus.h"
#include "grow.h"
#include "json.h"
#include "lex.h"
#include "nl.h"
#include "params.h"
#include "predictor.h"
#include "term.h"
#include "util.h"

struct sb_cmd {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0] is the name */
	const char *summary;
};

/* The entry points, cmd_NAME(), one per line of commands.h. */
#define SB_COMMAND(name, summary)	int cmd_##name(int argc, char **argv);
#include "commands.h"
#undef SB_COMMAND

/* get.c: the CPUs of the GET_CPUS dump as text and JSON (get, status). */
void get_print_cpus(const struct sb_cpu *cpus, size_t n, const void *filter);
void get_json_cpus(const struct sb_cpu *cpus, size_t n, const void *filter);
/*
 * get.c: `get param [NAME]` once the module is known to be there: every
 * parameter of @path, or @name's, as text or JSON. Returns an exit code:
 * 1 if @path cannot be read, 2 for a NAME it does not list.
 */
int get_show_params(const char *path, const char *name);
/*
 * config.c, for doctor: the settings of the configuration file @path
 * against what is in force (@p from SB_PARAMS_PATH, @cpus the GET_CPUS dump), as `tuned-adm
 * verify` does: @fn gets one message per setting that differs (the last
 * line for a parameter or a CPU is the one that counts); with @fn NULL
 * the file is only checked, as `config check` does. Returns how many
 * settings the file holds, or -1 with @why if it cannot be read or parsed.
 */
int config_verify(const char *path, const struct sb_params *p,
		     const struct sb_cpu *cpus, size_t n,
		     void (*fn)(void *arg, const char *msg), void *arg,
		     char *why, size_t whylen);
/* rules.c, for doctor: the rules in force (RULES_GET) appended to @set,
 * factors per type index as the kernel has them: 0 or a negative errno. */
struct sb_rp_set;
int rules_get(struct sb_nl *nl, struct sb_rp_set *set);

/* calibrate.c: where the calibration is stored, and what status shows of it */
#define SB_CAL_STATE		"/var/lib/sbridge/calibration.conf"
#define SB_CAL_MAX_LAT_NS	100000	/* model.mem_latency_ns's range */
void calibrate_status(void);
/* calibrate's arithmetic (host-tested): cost of an iteration in ns at the
 * top clock (cycles x 10^6 / kHz, or wall ns without cycles or kHz); the
 * smallest of @n with the relative spread; a cost ratio as a CPU factor
 * (0 if outside [0.125, 8]); an LLC miss's latency (0, or -1); the busy
 * share (per mille) of @cpu between two /proc/stat texts, -1 unknown. */
double calibrate_cost(uint64_t cycles, uint64_t ns, uint64_t iters, uint32_t khz);
double calibrate_best(const double *v, size_t n, double *spread);
uint32_t calibrate_factor(double cost, double ref_cost);
int calibrate_latency(double chase, double llc, double *ns);
int calibrate_clock_low(uint32_t cur_khz, uint32_t top_khz);
int calibrate_busy(const char *before, const char *after, unsigned int cpu);

#endif
