// SPDX-License-Identifier: GPL-2.0
/*
 * plansim - what the decision layer's plan (sbridge-core/plan.c, built for
 * the host as in test_plan.c) promises for a mix of CPU-bound programs.
 *
 *   plansim NFAST NSLOW < TASKS
 *
 * TASKS: one line a program, "NAME SPEEDUP WORK": its big/little speedup
 * and its work in seconds on a slow core (its time alone there). All start
 * at once and keep a CPU busy until done. A fluid model: at the start and
 * whenever a program finishes, the plan is solved for those left (each
 * CPU-bound, nice 0, no rules); until the next finish each spends the
 * fraction x of its time the plan targets (sbridge_decide's target) placed
 * on the fast type and the rest on the slow ones, each kind of CPU shared
 * equally among the tasks placed there on average: a = min(1, NFAST / sum
 * of x), b = min(1, NSLOW / sum of (1 - x)). Its rate is x a SPEEDUP +
 * (1 - x) b slow-core seconds a second. Prints, per program, "task NAME C
 * X FLOOR FINISH FAST" (the first plan's CPU share, target and floor, the
 * finish time in seconds and the share of its time it ran on the fast
 * type, x a on average) and then "mix STP MAKESPAN FASTBUSY": STP = sum of
 * (alone on big / finish), the fast cores' busy share over the makespan.
 * Used by bench/eval/report.py (the simulator's promise beside the rig's).
 * Floating point is fine here: host code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"

#define FAIR	819	/* 0.8: the default act.fair */
#define GAIN	102	/* 0.1: the default act.gain */

int main(int argc, char **argv)
{
	static struct sbridge_plan_task t[SBRIDGE_PLAN_MAX];
	static struct sbridge_plan_scratch sc;
	char name[SBRIDGE_PLAN_MAX][64];
	double s[SBRIDGE_PLAN_MAX], work[SBRIDGE_PLAN_MAX], left[SBRIDGE_PLAN_MAX];
	double done[SBRIDGE_PLAN_MAX];
	double fast[SBRIDGE_PLAN_MAX], c0[SBRIDGE_PLAN_MAX], x0[SBRIDGE_PLAN_MAX];
	double f0[SBRIDGE_PLAN_MAX], now = 0, fastbusy = 0, stp = 0;
	unsigned int n = 0, nf, ns, i, idx[SBRIDGE_PLAN_MAX];
	char line[256], blank;
	int first = 1;

	if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[2]) < 1 ||
	    atoi(argv[1]) > 1024 || atoi(argv[2]) > 1024) {
		fprintf(stderr, "usage: plansim NFAST NSLOW < 'NAME SPEEDUP WORK' lines\n");
		return 2;
	}
	nf = (unsigned int)atoi(argv[1]);
	ns = (unsigned int)atoi(argv[2]);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, " %c", &blank) != 1)
			continue;
		if (n == SBRIDGE_PLAN_MAX) {
			fprintf(stderr, "plansim: more than %d programs\n", SBRIDGE_PLAN_MAX);
			return 2;
		}
		if (sscanf(line, "%63s %lf %lf", name[n], &s[n], &left[n]) != 3 ||
		    !(s[n] > 0 && s[n] < 64) || !(left[n] > 0)) {
			fprintf(stderr, "plansim: bad line '%s' (NAME SPEEDUP WORK)\n", line);
			return 2;
		}
		work[n] = left[n];
		done[n] = -1;
		fast[n] = 0;
		n++;
	}
	if (!n) {
		fprintf(stderr, "plansim: no programs on stdin\n");
		return 2;
	}
	for (;;) {
		struct sbridge_plan pl = { .nfast = nf, .nslow = ns, .fair = FAIR, .gain = GAIN };
		double dt = -1, rate[SBRIDGE_PLAN_MAX], on_f = 0, on_s = 0, a, b;
		unsigned int k = 0;

		for (i = 0; i < n; i++) {
			if (done[i] >= 0)
				continue;
			memset(&t[k], 0, sizeof(t[k]));
			t[k].s = (u32)(s[i] * SBRIDGE_FP_ONE + 0.5);
			t[k].busy = SBRIDGE_FP_ONE;
			t[k].weight = 1024;
			t[k].want = SBRIDGE_PW_AUTO;
			idx[k++] = i;
		}
		if (!k)
			break;
		sbridge_plan_solve(&pl, t, k, &sc);
		for (i = 0; i < k; i++) {
			on_f += t[i].x / (double)SBRIDGE_FP_ONE;
			on_s += 1 - t[i].x / (double)SBRIDGE_FP_ONE;
		}
		a = on_f > nf ? nf / on_f : 1;
		b = on_s > ns ? ns / on_s : 1;
		for (i = 0; i < k; i++) {
			unsigned int j = idx[i];
			double x = t[i].x / (double)SBRIDGE_FP_ONE;

			if (first) {
				c0[j] = t[i].c / (double)SBRIDGE_FP_ONE;
				x0[j] = x;
				f0[j] = t[i].floor / (double)SBRIDGE_FP_ONE;
			}
			rate[i] = x * a * s[j] + (1 - x) * b;
			if (rate[i] > 0 && (dt < 0 || left[j] / rate[i] < dt))
				dt = left[j] / rate[i];
		}
		if (dt < 0) {
			fprintf(stderr, "plansim: the plan leaves every program without a CPU\n");
			return 1;
		}
		for (i = 0; i < k; i++) {
			unsigned int j = idx[i];
			double x = t[i].x / (double)SBRIDGE_FP_ONE;

			left[j] -= rate[i] * dt;
			fast[j] += x * a * dt;
			fastbusy += x * a * dt;
			if (left[j] <= 1e-9 * work[j])
				done[j] = now + dt;
		}
		now += dt;
		first = 0;
	}
	for (i = 0; i < n; i++) {
		/* alone on big: the slow-core work over the speedup */
		stp += work[i] / s[i] / done[i];
		printf("task %s %.4f %.4f %.4f %.4f %.4f\n", name[i], c0[i], x0[i], f0[i],
		       done[i], fast[i] / done[i]);
	}
	printf("mix %.4f %.4f %.4f\n", stp, now, fastbusy / (nf * now));
	return 0;
}
