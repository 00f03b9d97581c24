// SPDX-License-Identifier: GPL-2.0
/* spin SECONDS [ITERS]: compute-bound loop (integer ALU, no memory traffic)
 * for SECONDS, or until ITERS iterations are done if given (fixed work:
 * then SECONDS is only a cap). Prints "spin iters=N secs=S rate=N/s" so
 * tests can compare core speeds and benchmarks completion times. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, t0 = now(), t;
	unsigned long iters = 0, limit = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	unsigned int x = 1;

	if (secs <= 0) {
		fprintf(stderr, "usage: spin SECONDS [ITERS]\n");
		return 2;
	}
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 1103515245u + 12345u;	/* dependent ALU chain */
		iters++;
		t = now();
	} while (t - t0 < secs && (!limit || iters < limit));
	printf("spin iters=%lu secs=%.3f rate=%.1f/s x=%u\n", iters, t - t0,
	       iters / (t - t0), x & 1);
	return 0;
}
