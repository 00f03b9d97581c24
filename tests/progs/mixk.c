// SPDX-License-Identifier: GPL-2.0
/*
 * mixk MODE SECONDS: synthetic microkernels, each dominated by one
 * instruction class, for the mix predictor's calibration (tools/mixfit.py,
 * tests/scenarios/rig-mixcal.sh) and its test (rig-mixpred.sh). Every
 * kernel stays in L1 (a 4 KiB array at most): no memory stalls.
 *
 *   calibration: alu mul ldst branch fp simd blend
 *   test pair:   intloop fploop  (one loop over one array, the same loads
 *                and stores; integer ops in one, floating point in the
 *                other: never used to fit)
 *
 * Prints "mixk MODE iters=N secs=S rate=R/s" (guest time).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N	1024	/* 4 KiB of 32-bit elements: L1-resident */
#define CHUNK	20000	/* iterations between clock reads */

typedef float v4f __attribute__((vector_size(16)));

static uint32_t ua[N];
static float fa[N];
static volatile uint64_t sink;

/* keeps the compiler from folding or vectorising a value */
#define OPAQUE(x)	__asm__ volatile("" : "+r"(x))
#if defined(__aarch64__)
#define OPAQUE_F(x)	__asm__ volatile("" : "+w"(x))
#else
#define OPAQUE_F(x)	__asm__ volatile("" : "+x"(x))
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void k_alu(void)
{
	uint64_t a = 1, b = 2, c = 3, d = 4;
	int i;

	for (i = 0; i < CHUNK; i++) {
		a ^= b << 3; b += c >> 1; c ^= d + 7; d += a ^ 5;
		a += c; b ^= d; c += 11; d ^= b >> 2;
		OPAQUE(a);
	}
	sink = a + b + c + d;
}

static void k_mul(void)
{
	uint64_t a = 1, b = 3, c = 5, d = 7;
	int i;

	for (i = 0; i < CHUNK; i++) {
		a = a * 0x9e3779b97f4a7c15ULL + 1; b = b * 6364136223846793005ULL + 3;
		c = c * 0x9e3779b97f4a7c15ULL + 5; d = d * 6364136223846793005ULL + 7;
		OPAQUE(a);
	}
	sink = a + b + c + d;
}

static void k_ldst(void)
{
	uint32_t *p = ua;
	int i, j;

	for (i = 0; i < CHUNK / 16; i++) {
		OPAQUE(p);
		for (j = 0; j < N - 16; j += 16) {
			p[j + 16] = p[j];	p[j + 17] = p[j + 1];
			p[j + 18] = p[j + 2];	p[j + 19] = p[j + 3];
			p[j + 20] = p[j + 4];	p[j + 21] = p[j + 5];
			p[j + 22] = p[j + 6];	p[j + 23] = p[j + 7];
			OPAQUE(p);
		}
	}
	sink = p[N - 1];
}

static void k_branch(void)
{
	uint64_t x;
	int i;

	for (i = 0; i < CHUNK; i++) {
		x = 16;
		do {
			x--;
			OPAQUE(x);
		} while (x);
	}
	sink = x;
}

static void k_fp(void)
{
	double a = 1.0, b = 1.1, c = 1.2, d = 1.3;
	int i;

	for (i = 0; i < CHUNK; i++) {
		a = a * 0.999 + 0.001; b = b * 0.998 + 0.002;
		c = c * 0.997 + 0.003; d = d * 0.996 + 0.004;
		a = a * 1.0001 - 0.0001; b = b * 1.0002 - 0.0002;
		c = c * 1.0003 - 0.0003; d = d * 1.0004 - 0.0004;
		OPAQUE_F(a);
	}
	sink = (uint64_t)(a + b + c + d);
}

static void k_simd(void)
{
	v4f a = { 1, 2, 3, 4 }, b = { 5, 6, 7, 8 }, m = { 0.999f, 0.998f, 0.997f, 0.996f };
	v4f k = { 0.001f, 0.002f, 0.003f, 0.004f }, c = a, d = b;
	int i;

	for (i = 0; i < CHUNK; i++) {
		a = a * m + k; b = b * m + k; c = c * m + k; d = d * m + k;
		a = a * m - k; b = b * m - k; c = c * m - k; d = d * m - k;
		OPAQUE_F(a);
	}
	a = a + b + c + d;
	sink = (uint64_t)(a[0] + a[1] + a[2] + a[3]);
}

/* a bit of everything, in one loop */
static void k_blend(void)
{
	uint64_t x = 1;
	double f = 1.0;
	int i;

	for (i = 0; i < CHUNK; i++) {
		uint32_t v = ua[i & (N - 1)];

		x ^= v + (x << 5);
		x *= 3;
		f = f * 0.999 + (double)(v & 7);
		ua[(i + 7) & (N - 1)] = (uint32_t)x;
		if (x & 0x100)
			x += 17;
		OPAQUE(x);
	}
	sink = x + (uint64_t)f;
}

/* The test pair: one pass over the array, the same loads and stores. */
static void k_intloop(void)
{
	uint32_t *p = ua;
	int i, j;

	for (i = 0; i < CHUNK / N + 1; i++) {
		OPAQUE(p);
		for (j = 0; j < N; j++) {
			uint32_t s = p[j];

			s = (s ^ 0x5bd1e995u) + 0x27d4eb2du;
			s = (s ^ (s >> 7)) + 0x165667b1u;
			OPAQUE(s);
			p[j] = s;
		}
	}
}

static void k_fploop(void)
{
	float *p = fa;
	int i, j;

	for (i = 0; i < CHUNK / N + 1; i++) {
		OPAQUE(p);
		for (j = 0; j < N; j++) {
			float s = p[j];

			s = s * 0.999f + 0.5f;
			s = s * 1.0001f - 0.25f;
			OPAQUE_F(s);
			p[j] = s;
		}
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
} kernels[] = {
	{ "alu", k_alu }, { "mul", k_mul }, { "ldst", k_ldst },
	{ "branch", k_branch }, { "fp", k_fp }, { "simd", k_simd },
	{ "blend", k_blend }, { "intloop", k_intloop }, { "fploop", k_fploop },
};

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 1.0, t0, t;
	unsigned long iters = 0;
	size_t i;

	for (i = 0; argc > 1 && i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (!strcmp(argv[1], kernels[i].name))
			break;
	if (argc < 2 || i == sizeof(kernels) / sizeof(kernels[0]) || secs <= 0) {
		fprintf(stderr, "usage: mixk alu|mul|ldst|branch|fp|simd|blend|intloop|fploop SECONDS\n");
		return 2;
	}
	for (size_t j = 0; j < N; j++) {
		ua[j] = (uint32_t)(j * 2654435761u);
		fa[j] = (float)j / N;
	}
	t0 = now();
	do {
		kernels[i].fn();
		iters++;
		t = now();
	} while (t - t0 < secs);
	printf("mixk %s iters=%lu secs=%.3f rate=%.2f/s\n", argv[1], iters, t - t0,
	       iters / (t - t0));
	return 0;
}
