/* SPDX-License-Identifier: GPL-2.0 */
/* The CPUs as the module has them, and the requests that change them (cpus.c). */
#ifndef SBRIDGECTL_CPUS_H
#define SBRIDGECTL_CPUS_H

#include <stddef.h>
#include <stdint.h>

#include "nl.h"

struct sb_cpuset;

/* One CPU of the SBRIDGE_CMD_GET_CPUS dump (get, status, config, doctor, record). */
struct sb_cpu {
	uint32_t id, type, capacity, orig_capacity, factor, override;
	uint32_t factor_nominal, cur_khz, max_khz, cluster;
	uint32_t clock;	/* enum sbridge_clock of cur_khz */
	int declared;	/* core types declared by the user (cpu_types=) */
	char model[32];
	uint32_t type_from;	/* enum sbridge_types_from of its type, 0 unknown */
	char pmu[32];		/* the counter source's PMU on it, "" if none said */
	char pmu_chain[128];	/* the event chain the source chose there */
};

/* enum sbridge_clock as a word ("emulated"), and whether it is the
 * machine's own clock information (counters, FIE, cpufreq). */
const char *sb_clock_kind(uint32_t kind);
/* enum sbridge_types_from as a word ("cpuid-hybrid"), NULL if unknown. */
const char *sb_types_from(uint32_t from);
int sb_clock_real(uint32_t kind);

/* Dumps the CPUs; *out is malloc'ed. Returns 0 or a negative errno. */
int sb_get_cpus(struct sb_nl *nl, struct sb_cpu **out, size_t *n);
/* -1 with @msg if a CPU of @want is not in @cpus (the GET_CPUS dump). */
int sb_cpus_unknown(const struct sb_cpuset *want, const struct sb_cpu *cpus,
		    size_t n, char *msg, size_t len);
/* sb_cpus_unknown() as a usage error: 0 or SB_EXIT_USAGE. */
int sb_check_cpus_known(const struct sb_cpuset *want, const struct sb_cpu *cpus,
			size_t n);
/*
 * Overrides that do less than they seem to, as warnings on stderr (with
 * @warn): a set covering part of a core type (the type takes the factor
 * of its first CPU, topology.c) and a factor other than 1 on the
 * reference (biggest) type. @v 0 clears. Returns how many there are.
 */
int sb_factor_warnings(const struct sb_cpuset *set, uint32_t v, const struct sb_cpu *cpus,
		       size_t n, int warn);
/* SET_CPU_FACTOR / SET_PARAM requests; 0 or a negative errno. */
int sb_set_cpu_factor(struct sb_nl *nl, const struct sb_cpuset *set, uint32_t v);
int sb_set_param(struct sb_nl *nl, const char *name, uint64_t v);

#endif
