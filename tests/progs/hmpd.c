// SPDX-License-Identifier: GPL-2.0
/*
 * hmpd - the ARM big.LITTLE MP ("HMP") task placement, as a user-space
 * daemon: the evaluation's HMP baseline (bench/eval), apart from sbridge.
 *
 *   hmpd -b BIGCPUS -l LITTLECPUS [-p PERIOD_MS] [-u UP] [-d DOWN]
 *        [-w DELAY_MS] [-s STATSFILE]
 *
 * The algorithm of Linaro's CONFIG_SCHED_HMP (kernel/sched/fair.c of the
 * big.LITTLE MP patches): every task has a load ratio, the share of time
 * it was runnable (running or waiting on a run queue), tracked like the
 * kernel's per-entity load with a 32 ms half-life, scaled to 0..1023. A
 * task on the little cluster whose load is above the up threshold (700)
 * moves to the big cluster when a big CPU has room (the idle pull: no big
 * CPU would get a second such task); a task on the big cluster whose load
 * falls below the down threshold (512) moves back. Between two migrations
 * of one task at least DELAY_MS pass (hmp_next_up/down_threshold, 4 ms).
 * New tasks start at full load, as HMP's forked tasks do, so they go big
 * when there is room. The heaviest candidate goes first.
 *
 * What differs from the in-kernel HMP: the load comes from
 * /proc/PID/task/TID/schedstat (run time + run-queue wait) every PERIOD_MS
 * (default 50) instead of every tick, and a cluster is enforced by CPU
 * affinity (sched_setaffinity), within which the stock scheduler balances.
 * Kernel threads and this daemon are left alone. On SIGTERM it writes
 * "hmpd cpu_us=N polls=N up=N down=N tasks=N" (its own CPU time, and the
 * migrations it made) to STATSFILE (or stderr) and exits.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"

#define MAX_TASKS 1024
#define MAX_PIDS 4096
#define HMP_MAX_LOAD 1023

enum where { UNSET, BIG, LITTLE };

struct task {
	int tgid, tid, fd;
	int seen;		/* in this poll */
	double load;		/* 0..1023 */
	unsigned long long rt;	/* run + wait ns at the last poll */
	long long last_move;	/* ns */
	enum where at;
};

static struct task tasks[MAX_TASKS];
static int ntasks;
static int ignored[MAX_PIDS];	/* kernel threads: never looked at again */
static cpu_set_t big, little;
static int nbig;
static volatile sig_atomic_t stop;
static unsigned long polls, ups, downs, tracked;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* run + wait ns of an open schedstat file, or -1 if the task is gone */
static long long runwait(int fd)
{
	unsigned long long run, wait;
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return -1;
	return (long long)(run + wait);
}

static int is_kthread(int pid)
{
	char path[64], buf[512], *p;
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 2, "%*c %d", &ppid) != 1)
			ppid = -1;
	}
	fclose(f);
	return pid == 2 || ppid == 2 || ppid < 0;
}

static void add_task(int tgid, int tid)
{
	char path[64];
	struct task *t;
	int fd;

	if (ntasks == MAX_TASKS)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", tgid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	t = &tasks[ntasks++];
	memset(t, 0, sizeof(*t));
	t->tgid = tgid;
	t->tid = tid;
	t->fd = fd;
	t->seen = 1;
	t->load = HMP_MAX_LOAD;	/* as HMP's new tasks */
	t->rt = runwait(fd);
	t->at = UNSET;
	tracked++;
}

static struct task *find(int tid)
{
	int i;

	for (i = 0; i < ntasks; i++)
		if (tasks[i].tid == tid)
			return &tasks[i];
	return NULL;
}

/*
 * Every thread of every user process, new ones added. A known process's
 * threads are listed again only every 8th poll (new threads of a running
 * process are picked up within 8 periods): listing costs more than the
 * rest of a poll under emulation.
 */
static void scan(int self, int full)
{
	struct dirent *e, *te;
	DIR *d = opendir("/proc");
	int i;

	for (i = 0; i < ntasks; i++)
		tasks[i].seen = 0;
	while (d && (e = readdir(d))) {
		char path[300];
		int pid = atoi(e->d_name);
		struct task *known;
		DIR *td;

		if (pid <= 1 || pid == self)
			continue;
		if (pid < MAX_PIDS && ignored[pid])
			continue;
		known = find(pid);
		if (!known && is_kthread(pid)) {
			if (pid < MAX_PIDS)
				ignored[pid] = 1;
			continue;
		}
		if (known && !full) {
			/* its threads stay as they were: mark them all seen */
			for (i = 0; i < ntasks; i++)
				if (tasks[i].tgid == pid)
					tasks[i].seen = 1;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		while (td && (te = readdir(td))) {
			int tid = atoi(te->d_name);
			struct task *t;

			if (tid <= 0)
				continue;
			t = find(tid);
			if (t)
				t->seen = 1;
			else
				add_task(pid, tid);
		}
		if (td)
			closedir(td);
	}
	if (d)
		closedir(d);
	/* gone tasks out; a kthread's PID may be reused by a user task later */
	for (i = 0; i < ntasks; i++) {
		if (tasks[i].seen)
			continue;
		close(tasks[i].fd);
		tasks[i--] = tasks[--ntasks];
	}
}

static void move(struct task *t, enum where to, long long now)
{
	if (sched_setaffinity(t->tid, sizeof(cpu_set_t), to == BIG ? &big : &little))
		return;
	if (t->at == LITTLE && to == BIG)
		ups++;
	else if (t->at == BIG && to == LITTLE)
		downs++;
	t->at = to;
	t->last_move = now;
}

int main(int argc, char **argv)
{
	int period_ms = 50, up = 700, down = 512, delay_ms = 4, c, i, self = getpid();
	const char *stats = NULL;
	long long last = now_ns();
	struct sigaction sa;
	struct rusage ru;
	FILE *f;

	CPU_ZERO(&big);
	CPU_ZERO(&little);
	while ((c = getopt(argc, argv, "b:l:p:u:d:w:s:")) != -1) {
		switch (c) {
		case 'b':
			if (parse_cpus(optarg, &big))
				return 2;
			break;
		case 'l':
			if (parse_cpus(optarg, &little))
				return 2;
			break;
		case 'p':
			period_ms = atoi(optarg);
			break;
		case 'u':
			up = atoi(optarg);
			break;
		case 'd':
			down = atoi(optarg);
			break;
		case 'w':
			delay_ms = atoi(optarg);
			break;
		case 's':
			stats = optarg;
			break;
		default:
			fprintf(stderr, "usage: hmpd -b BIGCPUS -l LITTLECPUS [-p MS] [-u UP] [-d DOWN] [-w MS] [-s FILE]\n");
			return 2;
		}
	}
	nbig = CPU_COUNT(&big);
	if (!nbig || !CPU_COUNT(&little) || period_ms < 1 || down > up) {
		fprintf(stderr, "hmpd: need big and little CPUs, a period, down <= up\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop) {
		struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000L };
		long long now, dt;
		double decay;
		int onbig;

		nanosleep(&ts, NULL);
		if (stop)
			break;
		now = now_ns();
		dt = now - last;
		last = now;
		polls++;
		scan(self, polls % 8 == 1);
		/* PELT-like: y per ms, y^32 = 1/2 (no libm in static progs) */
		decay = 1;
		for (i = 0; i < dt / 1000000; i++)
			decay *= 0.978572062;
		for (i = 0; i < ntasks; i++) {
			struct task *t = &tasks[i];
			long long rt = runwait(t->fd);
			double r;

			if (rt < 0)
				continue;
			r = dt > 0 ? (double)(rt - (long long)t->rt) / (double)dt : 0;
			if (r > 1)
				r = 1;
			if (r < 0)
				r = 0;
			t->rt = (unsigned long long)rt;
			t->load = t->load * decay + HMP_MAX_LOAD * r * (1 - decay);
		}
		/* down: big tasks whose load fell below the down threshold */
		onbig = 0;
		for (i = 0; i < ntasks; i++) {
			struct task *t = &tasks[i];

			if (t->at == BIG && t->load < down &&
			    now - t->last_move >= delay_ms * 1000000LL)
				move(t, LITTLE, now);
			onbig += t->at == BIG;
		}
		/* up: while a big CPU has room, the heaviest task above the
		 * up threshold; the rest of the heavy ones stay little */
		for (;;) {
			struct task *best = NULL;

			for (i = 0; i < ntasks; i++) {
				struct task *t = &tasks[i];

				if (t->at == BIG || t->load < up ||
				    now - t->last_move < delay_ms * 1000000LL)
					continue;
				if (!best || t->load > best->load)
					best = t;
			}
			if (!best || onbig >= nbig)
				break;
			move(best, BIG, now);
			onbig++;
		}
		/* whatever is left unplaced (new, light or waiting) is little */
		for (i = 0; i < ntasks; i++)
			if (tasks[i].at == UNSET)
				move(&tasks[i], LITTLE, now);
	}
	getrusage(RUSAGE_SELF, &ru);
	f = stats ? fopen(stats, "w") : stderr;
	if (f) {
		fprintf(f, "hmpd cpu_us=%ld polls=%lu up=%lu down=%lu tasks=%lu\n",
			(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
			ru.ru_utime.tv_usec + ru.ru_stime.tv_usec,
			polls, ups, downs, tracked);
		if (f != stderr)
			fclose(f);
	}
	/* leave every task it placed free again */
	CPU_OR(&big, &big, &little);
	for (i = 0; i < ntasks; i++)
		sched_setaffinity(tasks[i].tid, sizeof(cpu_set_t), &big);
	return 0;
}
