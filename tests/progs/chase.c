// SPDX-License-Identifier: GPL-2.0
/* chase MB SECONDS [LOADS]: memory-bound dependent pointer chase over a
 * random cyclic permutation much larger than the LLC, for SECONDS or until
 * LOADS loads are done if given (fixed work). Prints loads/s. */
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
	long mb = argc > 1 ? atol(argv[1]) : 16;
	double secs = argc > 2 ? atof(argv[2]) : 1.0, t0, t;
	size_t n, i, j, p = 0;
	unsigned long loads = 0, limit = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	size_t *next, *perm;
	unsigned int seed = 12345;

	if (mb <= 0 || secs <= 0) {
		fprintf(stderr, "usage: chase MB SECONDS [LOADS]\n");
		return 2;
	}
	/* one pointer per 64-byte line so every load touches a new line */
	n = (size_t)mb * 1024 * 1024 / 64;
	next = malloc(n * 64);
	perm = malloc(n * sizeof(*perm));
	if (!next || !perm) {
		perror("chase: malloc");
		return 1;
	}
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {	/* Fisher-Yates */
		seed = seed * 1103515245u + 12345u;
		j = seed % (i + 1);
		p = perm[i]; perm[i] = perm[j]; perm[j] = p;
	}
	for (i = 0; i < n; i++)
		next[perm[i] * 8] = perm[(i + 1) % n] * 8;
	free(perm);
	p = 0;
	t0 = now();
	do {
		for (int k = 0; k < 10000; k++)
			p = next[p];
		loads += 10000;
		t = now();
	} while (t - t0 < secs && (!limit || loads < limit));
	printf("chase loads=%lu secs=%.3f rate=%.1f/s p=%zu\n", loads, t - t0,
	       loads / (t - t0), p & 1);
	return 0;
}
