// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of `sbridgectl calibrate`'s arithmetic (userspace-ctl/
 * calibrate.c): the cost of an iteration from cycles and the top clock or
 * from time, the best of several runs, cost ratios as CPU factors and
 * their range, the memory latency from the two pointer chases, a clock
 * under the top, and the busy share of a CPU from two /proc/stat samples. Numbers are worked by
 * hand in the comments. TAP; exit 1 if any fails.
 */
#include <stdio.h>
#include <string.h>

#include "sbridgectl.h"

static int n, failed;

static void ok(int cond, const char *what)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, what);
	failed += !cond;
}

static int near(double a, double b, double tol)
{
	return a - b <= tol && b - a <= tol;
}

static void test_cost(void)
{
	/* 3 200 000 cycles at 1.6 GHz for 1000 iterations: 2000 ns each */
	ok(near(calibrate_cost(3200000, 999, 1000, 1600000), 2000, 1e-9),
	   "cost: cycles over the top clock, not the wall time");
	/* without cycles, or without a clock, the wall time */
	ok(near(calibrate_cost(0, 5000, 1000, 1600000), 5, 1e-12), "cost: no cycles -> time");
	ok(near(calibrate_cost(3200000, 5000, 1000, 0), 5, 1e-12), "cost: no clock -> time");
	ok(calibrate_cost(1, 1, 0, 1) == 0, "cost: no iterations -> 0");
}

static void test_best(void)
{
	double v[] = { 1.10, 1.00, 1.05 }, sp = -1;

	ok(near(calibrate_best(v, 3, &sp), 1.00, 1e-12), "best: the cheapest run");
	ok(near(sp, 0.10, 1e-12), "best: spread (max - min) / min = 10 %");
	ok(near(calibrate_best(v, 1, &sp), 1.10, 1e-12) && sp == 0, "best: one run, no spread");
}

static void test_factor(void)
{
	/* the rig's little over big for xorshift: 1.93 -> 1976/1024 */
	ok(calibrate_factor(17.8 / 1200, 12.3 / 1600) == 1976, "factor: 1.9295 -> 1976 (1.93)");
	ok(calibrate_factor(2.0, 2.0) == SBRIDGE_FP_ONE, "factor: equal costs -> 1.0");
	/* a type faster than the reference: below 1, still in range */
	ok(calibrate_factor(1.0, 2.0) == 512, "factor: 0.5");
	/* the ends of [0.125, 8] are accepted, beyond them refused */
	ok(calibrate_factor(8.0, 1.0) == SBRIDGE_FACTOR_MAX, "factor: 8 accepted");
	ok(calibrate_factor(0.125, 1.0) == SBRIDGE_FACTOR_MIN, "factor: 0.125 accepted");
	ok(calibrate_factor(8.1, 1.0) == 0, "factor: 8.1 refused");
	ok(calibrate_factor(0.12, 1.0) == 0, "factor: 0.12 refused");
	ok(calibrate_factor(0, 1.0) == 0 && calibrate_factor(1.0, 0) == 0 &&
	   calibrate_factor(-1, 1) == 0, "factor: zero or negative costs refused");
}

static void test_latency(void)
{
	double ns = -1;

	/*
	 * The rig's big core: a load missing L1 and hitting the LLC costs
	 * 0.6 + 12 cycles, one missing the LLC 160 more (100 ns at 1.6 GHz);
	 * in ns at 1.6 GHz: 7.875 and 107.875 -> 100 ns.
	 */
	ok(!calibrate_latency(107.875, 7.875, &ns) && near(ns, 100, 1e-9),
	   "latency: chase - LLC chase = 100 ns");
	ok(calibrate_latency(7.875, 7.875, &ns) == -1, "latency: no difference -> refused");
	ok(calibrate_latency(5, 7.875, &ns) == -1, "latency: chase cheaper than LLC -> refused");
	ok(calibrate_latency(0, 0, &ns) == -1, "latency: nothing measured -> refused");
	ok(calibrate_latency(200000, 1, &ns) == -1, "latency: above the parameter's 100000 -> refused");
}

static void test_clock(void)
{
	/* 800 MHz against a 1.6 GHz top: half, low; 90 % is the line */
	ok(calibrate_clock_low(800000, 1600000), "clock: half the top is low");
	ok(!calibrate_clock_low(1440000, 1600000), "clock: 90 % of the top is not");
	ok(calibrate_clock_low(1439999, 1600000), "clock: just under 90 % is");
	ok(!calibrate_clock_low(1700000, 1600000), "clock: above the top (turbo) is not");
	ok(!calibrate_clock_low(0, 1600000), "clock: unknown is not low");
	ok(!calibrate_clock_low(800000, 0), "clock: no top clock, nothing to compare");
}

static void test_busy(void)
{
	const char *a =
		"cpu  100 0 100 800 0 0 0 0 0 0\n"
		"cpu0 50 0 50 400 0 0 0 0 0 0\n"
		"cpu1 50 0 50 400 0 0 0 0 0 0\n"
		"cpu10 0 0 0 100 0 0 0 0 0 0\n"
		"intr 1 2 3\n";
	const char *b =
		"cpu  300 0 100 1000 0 0 0 0 0 0\n"
		"cpu0 60 0 50 490 0 0 0 0 0 0\n"
		"cpu1 240 0 50 400 10 0 0 0 0 0\n"
		"cpu10 0 0 0 200 0 0 0 0 0 0\n"
		"intr 1 2 3\n";

	/* cpu0: 10 busy of 100 -> 100 per mille */
	ok(calibrate_busy(a, b, 0) == 100, "busy: cpu0 10 %");
	/* cpu1: 190 busy, 10 iowait (idle) of 200 -> 950 */
	ok(calibrate_busy(a, b, 1) == 950, "busy: cpu1 95 %, iowait counts as idle");
	/* "cpu1" must not match the "cpu10" line */
	ok(calibrate_busy(a, b, 10) == 0, "busy: cpu10 is not cpu1");
	ok(calibrate_busy(a, b, 2) == -1, "busy: a CPU /proc/stat lacks -> unknown");
	ok(calibrate_busy(a, a, 0) == 0, "busy: no time passed -> 0");
	ok(calibrate_busy(b, a, 0) == -1, "busy: counters going back -> unknown");
	ok(calibrate_busy("cpu0 1 2\n", "cpu0 1 2\n", 0) == -1, "busy: a truncated line -> unknown");
}

int main(void)
{
	printf("TAP version 13\n");
	test_cost();
	test_best();
	test_factor();
	test_latency();
	test_clock();
	test_busy();
	printf("1..%d\n", n);
	printf("%d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
