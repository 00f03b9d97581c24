// SPDX-License-Identifier: GPL-2.0
/*
 * rigstat - check the rig's guest-visible counters against the plugin's.
 *   rigstat -c CPU CMD [ARGS...]
 * Pins itself and CMD to CPU, opens the generic hardware events (cycles, instructions, cache-references,
 * cache-misses, stalled-cycles-backend) system-wide on every CPU and, for the
 * child, per task; runs CMD; then prints per CPU the perf counts next to the
 * deltas of the plugin's raw counters (read from the rig device's BAR2,
 * mmapped through sysfs resource2, just after enabling and just before
 * disabling), and the
 * worst relative difference, per CPU and summed over CPUs.  Exit status 0
 * if every counter of CPU with a raw delta >= 1000000 agrees within 1 %, 1
 * otherwise, 2 on usage/setup errors.  (Other CPUs are only reported: the
 * few ioctls that open and close the perf window run there too and are
 * inside the perf window but outside the raw one.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rig_pmu_abi.h"

#define NEV 5
#define MAXCPU 64
static const uint64_t ev_cfg[NEV] = {
	PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
	PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES,
	PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
};
static const char *const ev_name[NEV] = {
	"instructions", "cycles", "llc_refs", "llc_misses", "stall_cycles"
};

static int popen_ev(uint64_t cfg, pid_t pid, int cpu, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = cfg;
	a.disabled = group < 0;		/* only the leader starts disabled */
	return syscall(SYS_perf_event_open, &a, pid, cpu, group, 0);
}

static volatile uint64_t *bar;	/* BAR2 of the rig device, mmapped */
static int bar_ncpu;

/* Map the rig's shared page once, so reading it costs a few loads. */
static void map_bar(void)
{
	struct rig_pmu_hdr *h;
	glob_t g;
	void *p;
	int f;

	if (glob("/sys/bus/pci/drivers/rig_pmu/*/resource2", 0, NULL, &g) ||
	    !g.gl_pathc) {
		fprintf(stderr, "rigstat: rig_pmu driver not bound\n");
		exit(2);
	}
	f = open(g.gl_pathv[0], O_RDONLY);
	globfree(&g);
	if (f < 0) {
		perror("rigstat: resource2");
		exit(2);
	}
	p = mmap(NULL, RIG_PMU_SHM_SIZE, PROT_READ, MAP_SHARED, f, 0);
	close(f);
	if (p == MAP_FAILED) {
		perror("rigstat: mmap resource2");
		exit(2);
	}
	h = p;
	if (h->magic != RIG_PMU_MAGIC || h->nr_cpus > MAXCPU) {
		fprintf(stderr, "rigstat: no rig counters in BAR2\n");
		exit(2);
	}
	bar = p;
	bar_ncpu = h->nr_cpus;
}

/* raw[cpu][ev] straight from the plugin's counters; returns CPU count. */
static int read_raw(uint64_t raw[MAXCPU][NEV])
{
	static const int map[NEV] = {
		RIG_CTR_INSTRUCTIONS, RIG_CTR_CYCLES, RIG_CTR_LLC_REFS,
		RIG_CTR_LLC_MISSES, RIG_CTR_STALL_CYCLES,
	};
	int c, e;

	for (c = 0; c < bar_ncpu; c++)
		for (e = 0; e < NEV; e++)
			raw[c][e] = bar[(RIG_PMU_CPU_OFFSET + c * RIG_PMU_CPU_STRIDE) / 8 +
					map[e]];
	return bar_ncpu;
}

int main(int argc, char **argv)
{
	static uint64_t r0[MAXCPU][NEV], r1[MAXCPU][NEV];
	static int fd[MAXCPU][NEV];
	int tfd[NEV], ncpu, c, e, go[2], st, bad = 0;
	double worst = 0;
	uint64_t tot[NEV] = { 0 }, tsum[NEV][2] = { { 0 } };
	pid_t pid;
	char b;

	cpu_set_t set;
	char *end;
	long pin;

	if (argc < 4 || strcmp(argv[1], "-c")) {
		fprintf(stderr, "usage: rigstat -c CPU CMD [ARGS...]\n");
		return 2;
	}
	pin = strtol(argv[2], &end, 10);
	if (*end || pin < 0 || pin >= MAXCPU) {
		fprintf(stderr, "rigstat: bad CPU '%s'\n", argv[2]);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(pin, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("rigstat: sched_setaffinity");
		return 2;
	}
	argv += 2;
	map_bar();
	ncpu = read_raw(r0);
	for (c = 0; c < ncpu; c++)
		for (e = 0; e < NEV; e++) {
			/* one group per CPU: a single ioctl starts/stops it */
			fd[c][e] = popen_ev(ev_cfg[e], -1, c, e ? fd[c][0] : -1);
			if (fd[c][e] < 0) {
				fprintf(stderr, "rigstat: perf_event_open(%s, cpu %d): %s\n",
					ev_name[e], c, strerror(errno));
				return 2;
			}
		}
	if (pipe(go))
		return 2;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[1], argv + 1);
		perror("rigstat: exec");
		_exit(127);
	}
	for (e = 0; e < NEV; e++) {
		tfd[e] = popen_ev(ev_cfg[e], pid, -1, e ? tfd[0] : -1);
		if (tfd[e] < 0) {
			fprintf(stderr, "rigstat: task event %s: %s\n", ev_name[e],
				strerror(errno));
			kill(pid, 9);
			return 2;
		}
	}
	ioctl(tfd[0], PERF_EVENT_IOC_ENABLE, 0);
	/* raw reads inside the perf window: only a few loads differ */
	for (c = 0; c < ncpu; c++)
		ioctl(fd[c][0], PERF_EVENT_IOC_ENABLE, 0);
	read_raw(r0);
	if (write(go[1], "x", 1) != 1)
		return 2;
	waitpid(pid, &st, 0);
	read_raw(r1);
	for (c = 0; c < ncpu; c++)
		ioctl(fd[c][0], PERF_EVENT_IOC_DISABLE, 0);

	printf("rigstat: cpu counter perf raw_delta diff%%\n");
	for (c = 0; c < ncpu; c++)
		for (e = 0; e < NEV; e++) {
			uint64_t p = 0, d = r1[c][e] - r0[c][e];
			double rel;

			if (read(fd[c][e], &p, sizeof(p)) != sizeof(p))
				return 2;
			rel = d ? 100.0 * ((double)p - (double)d) / (double)d : 0;
			printf("rigstat: %d %s %llu %llu %.3f\n", c, ev_name[e],
			       (unsigned long long)p, (unsigned long long)d, rel);
			tsum[e][0] += p;
			tsum[e][1] += d;
			if (c == pin && d >= 1000000) {
				if (rel < 0)
					rel = -rel;
				if (rel > worst)
					worst = rel;
				if (rel > 1.0)
					bad = 1;
			}
		}
	for (e = 0; e < NEV; e++) {
		double rel = tsum[e][1] ? 100.0 * ((double)tsum[e][0] -
				(double)tsum[e][1]) / (double)tsum[e][1] : 0;

		printf("rigstat: all %s %llu %llu %.3f\n", ev_name[e],
		       (unsigned long long)tsum[e][0],
		       (unsigned long long)tsum[e][1], rel);
	}
	for (e = 0; e < NEV; e++) {
		if (read(tfd[e], &tot[e], sizeof(tot[e])) != sizeof(tot[e]))
			return 2;
		printf("rigstat: task %s %llu\n", ev_name[e],
		       (unsigned long long)tot[e]);
	}
	if (tot[1])
		printf("rigstat: task ipc %.3f llc_mpki %.2f stall_share %.3f\n",
		       (double)tot[0] / tot[1], 1000.0 * tot[3] / (tot[0] ? tot[0] : 1),
		       (double)tot[4] / tot[1]);
	printf("rigstat: worst_diff_pct %.3f %s\n", worst, bad ? "FAIL" : "ok");
	return bad;
}
