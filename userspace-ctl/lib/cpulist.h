/* SPDX-License-Identifier: GPL-2.0 */
/* CPU lists as taskset -c takes them: "0-3,5,7-9:2". Pure, host-testable. */
#ifndef SBRIDGECTL_CPULIST_H
#define SBRIDGECTL_CPULIST_H

#include <stddef.h>
#include <stdint.h>

#define SB_MAX_CPUS	8192	/* CONFIG_NR_CPUS upper bound on Debian */

struct sb_cpuset {
	uint64_t bits[SB_MAX_CPUS / 64];
};

static inline int sb_cpuset_has(const struct sb_cpuset *s, unsigned int cpu)
{
	return cpu < SB_MAX_CPUS && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* Returns 0, or -1 with *why (static text) and *col (1-based) set. */
int sb_cpulist_parse(const char *s, struct sb_cpuset *out, const char **why,
		  unsigned int *col);

/* Highest CPU in the set, or -1 if empty. */
int sb_cpuset_last(const struct sb_cpuset *s);

/* Little-endian byte bitmap for SBRIDGE_A_CPUMASK, padded to 8 bytes;
 * returns its length. */
size_t sb_cpuset_to_le(const struct sb_cpuset *s, uint8_t *buf, size_t len);

/* Back to the compact list form ("0-3,5"). */
void sb_cpulist_format(const struct sb_cpuset *s, char *buf, size_t len);

#endif
