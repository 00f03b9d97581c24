// SPDX-License-Identifier: GPL-2.0
/*
 * rigbench - calibration workloads for the emulated big.LITTLE rig.
 *   rigbench spin  [SECONDS]        compute-bound integer loop
 *   rigbench chase [SECONDS] [MB]   dependent pointer chase over MB of memory
 * Prints "<mode> <rate> iter/s <iters> iters <seconds> s" (guest time).
 * Pin it with taskset; the rate ratio between core types is the point.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct node {
	struct node *next;
	char pad[64 - sizeof(struct node *)];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

static uint64_t spin_chunk(uint64_t x, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static struct node *chase_chunk(struct node *p, long n)
{
	long i;

	for (i = 0; i < n; i++)
		p = p->next;
	return p;
}

static struct node *build(size_t nodes)
{
	struct node *a = malloc(nodes * sizeof(*a));
	uint32_t *idx = malloc(nodes * sizeof(*idx));
	uint64_t r = 88172645463325252ull;
	size_t i;

	if (!a || !idx) {
		fprintf(stderr, "rigbench: out of memory\n");
		exit(1);
	}
	for (i = 0; i < nodes; i++)
		idx[i] = i;
	for (i = nodes - 1; i > 0; i--) {	/* Sattolo: one single cycle */
		size_t j;
		uint32_t t;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		j = r % i;
		t = idx[i];
		idx[i] = idx[j];
		idx[j] = t;
	}
	for (i = 0; i < nodes; i++)
		a[idx[i]].next = &a[idx[(i + 1) % nodes]];
	free(idx);
	return a;
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 1.0, t0, t;
	uint64_t iters = 0;
	int chase;

	if (argc < 2 || (strcmp(argv[1], "spin") && strcmp(argv[1], "chase")) ||
	    secs <= 0 || secs > 600) {
		fprintf(stderr, "usage: rigbench spin|chase [SECONDS] [MB]\n");
		return 2;
	}
	chase = !strcmp(argv[1], "chase");
	if (chase) {
		long mb = argc > 3 ? atol(argv[3]) : 16;
		struct node *p;

		if (mb < 1 || mb > 1024) {
			fprintf(stderr, "rigbench: MB out of range\n");
			return 2;
		}
		p = build((size_t)mb * 1024 * 1024 / sizeof(struct node));
		p = chase_chunk(p, 10000);	/* warm up the TLB path */
		t0 = now();
		do {
			p = chase_chunk(p, 1000);
			iters += 1000;
			t = now();
		} while (t - t0 < secs);
		sink = (uintptr_t)p;
	} else {
		uint64_t x = 1;

		t0 = now();
		do {
			x = spin_chunk(x, 20000);
			iters += 20000;
			t = now();
		} while (t - t0 < secs);
		sink = x;
	}
	printf("%s %.0f iter/s %llu iters %.3f s\n", argv[1],
	       iters / (t - t0), (unsigned long long)iters, t - t0);
	return 0;
}
