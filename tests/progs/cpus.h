/* SPDX-License-Identifier: GPL-2.0 */
/* A CPU list such as "0", "1-3" or "0,2-3" into a cpu_set_t (evalrun, hmpd). */
#ifndef SB_PROGS_CPUS_H
#define SB_PROGS_CPUS_H

#include <sched.h>
#include <stdlib.h>

/* 0, or -1 if @s is not a CPU list; commas or spaces separate */
static int parse_cpus(const char *s, cpu_set_t *set)
{
	char *end;
	long a, b;

	CPU_ZERO(set);
	while (*s) {
		a = strtol(s, &end, 10);
		if (end == s || a < 0 || a >= CPU_SETSIZE)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b >= CPU_SETSIZE)
				return -1;
		}
		for (; a <= b; a++)
			CPU_SET(a, set);
		s = end;
		if (*s == ',' || *s == ' ')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

#endif
