// SPDX-License-Identifier: GPL-2.0
/* forkhold SECONDS MAXCHILD [rof]: stays compute-bound for SECONDS and
 * forks a child every ~20 ms (at most MAXCHILD), each of which sleeps
 * until killed: children that copied whatever mask or clamp the parent
 * carried at that moment, for an audit. With "rof" the parent first sets
 * SCHED_RESET_ON_FORK and reports at the end whether it still has it.
 * Prints "forkhold children=N rof=R" (R: -1 not asked, 0 lost, 1 kept). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, t0 = now(), next = t0;
	long max = argc > 2 ? atol(argv[2]) : 100, n = 0;
	int rof = argc > 3 && !strcmp(argv[3], "rof") ? 1 : -1;
	unsigned int x = 1;

	if (secs <= 0 || max < 0) {
		fprintf(stderr, "usage: forkhold SECONDS MAXCHILD [rof]\n");
		return 2;
	}
	if (rof == 1) {
		struct sched_param sp = { 0 };

		if (sched_setscheduler(0, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp)) {
			perror("forkhold: sched_setscheduler");
			return 1;
		}
	}
	while (now() - t0 < secs) {
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u;
		if (n < max && now() >= next) {
			pid_t pid = fork();

			if (pid == 0) {
				for (;;)
					pause();
			}
			if (pid > 0)
				n++;
			next = now() + 0.02;
		}
	}
	if (rof == 1)
		rof = !!(sched_getscheduler(0) & SCHED_RESET_ON_FORK);
	printf("forkhold children=%ld rof=%d x=%u\n", n, rof, x & 1);
	return 0;
}
