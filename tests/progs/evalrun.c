// SPDX-License-Identifier: GPL-2.0
/*
 * evalrun - the evaluation's process runner (bench/eval/guest.sh).
 *
 *   evalrun [-d DIR] [-r COUNTERS] [-o OUT] [-L SECS] [-t T,T...]
 *           [-x CMD] [-n RUNS] SPECFILE
 *
 * Starts every slot of SPECFILE at once and times each of its processes
 * with CLOCK_MONOTONIC, taken in this process right before fork() and
 * right after wait4() returns: no shell, no fork per timestamp while the
 * mix runs. A SPECFILE line is one slot, tab-separated:
 *
 *   NAME  CPUS  OKSTATUSES  STDIN  ARGV0  ARGV1 ...
 *
 * CPUS is a list such as 0 or 1-3 (the slot's affinity) or - (none);
 * OKSTATUSES the exit statuses that mean success (e.g. 0 or 10,20).
 * Each process runs in DIR with LC_ALL=C, stdout and stderr to /dev/null
 * (the exit status is what is judged).
 *
 * A slot runs its program RUNS times one after another (-n, default 1),
 * or, with -L, again and again until SECS have passed (then the running
 * ones are killed and not counted: a loop of fresh processes). At each
 * checkpoint of -t (seconds from the start) it writes the slots' current
 * PIDs and their children's, then runs CMD (-x) through /bin/sh with
 * EVALRUN_T set to the checkpoint, and waits for it.
 *
 * Output (OUT, default stdout), space-separated lines:
 *   ctr0|ctr1 CPU INSTR CYCLES LAG_NS FREQ_MHZ   the rig's counters
 *                 (-r: its sysfs counters file) before and after
 *   stat0|stat1 CPU BUSY_TICKS TOTAL_TICKS       /proc/stat, per CPU
 *   sys0|sys1 CTXT PROCESSES                     /proc/stat
 *   proc SLOT NAME PID START_NS END_NS OK STATUS UTIME_US STIME_US
 *   pids T SLOT NAME PID [CHILD...]
 *   mix START_NS END_NS NPROC NFAIL
 * SIGTERM ends a run early as the -L deadline does.
 * OK is 1 if STATUS (the exit status, or 128 + signal) is one of the
 * slot's OKSTATUSES. Exit status: 0 if every process was OK, 1 if one was
 * not, 2 on bad usage or setup.
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
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"

#define MAX_SLOTS 64
#define MAX_ARGS 96
#define MAX_OK 8

struct slot {
	char *name;
	cpu_set_t cpus;
	int pinned;
	int ok[MAX_OK], nok;
	char *in;
	char *argv[MAX_ARGS + 1];
	pid_t pid;		/* running process, 0 if none */
	long long t0;		/* its start */
	int left;		/* runs still to start (-n) */
};

static struct slot slots[MAX_SLOTS];
static int nslots;
static FILE *out;
static volatile sig_atomic_t alarmed;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile sig_atomic_t stopped;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

static void on_term(int sig)
{
	(void)sig;
	stopped = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "evalrun: %s\n", what);
	exit(2);
}

static void read_spec(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *tok, *save, *o;
	size_t cap = 0;
	int i;

	if (!f)
		die("cannot open the spec file");
	while (getline(&line, &cap, f) > 0) {
		struct slot *s;

		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		if (nslots == MAX_SLOTS)
			die("too many slots");
		s = &slots[nslots];
		tok = strtok_r(line, "\t", &save);
		s->name = strdup(tok);
		tok = strtok_r(NULL, "\t", &save);
		if (!tok)
			die("spec: no CPUS");
		s->pinned = strcmp(tok, "-") != 0;
		if (s->pinned && parse_cpus(tok, &s->cpus))
			die("spec: bad CPUS");
		tok = strtok_r(NULL, "\t", &save);
		if (!tok)
			die("spec: no OKSTATUSES");
		for (o = strtok(tok, ","); o && s->nok < MAX_OK; o = strtok(NULL, ","))
			s->ok[s->nok++] = atoi(o);
		tok = strtok_r(NULL, "\t", &save);
		if (!tok)
			die("spec: no STDIN");
		s->in = strdup(tok);
		for (i = 0; i < MAX_ARGS && (tok = strtok_r(NULL, "\t", &save)); i++)
			s->argv[i] = strdup(tok);
		if (!i)
			die("spec: no ARGV");
		s->argv[i] = NULL;
		nslots++;
		/* strtok_r's tokens were copied: the line buffer is reused */
	}
	free(line);
	fclose(f);
	if (!nslots)
		die("spec: no slots");
}

/* "ctrN CPU INSTR CYCLES LAG FREQ" from the rig's counters file */
static void counters(const char *path, int which)
{
	unsigned long long v[8];
	char buf[256], type[32];
	unsigned int cpu, freq;
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return;
	}
	while (fgets(buf, sizeof(buf), f)) {
		if (sscanf(buf, "%u %31s %u %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   type, &freq, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6]) == 10)
			fprintf(out, "ctr%d %u %llu %llu %llu %u\n", which, cpu, v[0],
				v[1], v[6], freq);
	}
	fclose(f);
}

static void procstat(int which)
{
	unsigned long long u, n, s, idle, io, irq, sirq, st;
	char buf[512];
	FILE *f = fopen("/proc/stat", "r");
	unsigned int cpu;

	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f)) {
		if (buf[3] != ' ' && sscanf(buf, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   &u, &n, &s, &idle, &io, &irq, &sirq, &st) == 9)
			fprintf(out, "stat%d %u %llu %llu\n", which, cpu,
				u + n + s + irq + sirq, u + n + s + idle + io + irq + sirq);
		else if (!strncmp(buf, "ctxt ", 5))
			fprintf(out, "sys%d ctxt %s", which, buf + 5);
		else if (!strncmp(buf, "processes ", 10))
			fprintf(out, "sys%d processes %s", which, buf + 10);
	}
	fclose(f);
}

static const char *dir = ".";

static void start(struct slot *s)
{
	pid_t pid;
	int fd;

	s->t0 = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork failed");
	if (!pid) {
		if (s->pinned && sched_setaffinity(0, sizeof(s->cpus), &s->cpus))
			_exit(126);
		if (chdir(dir))
			_exit(126);
		fd = open(s->in, O_RDONLY);
		if (fd < 0 || dup2(fd, 0) < 0)
			_exit(126);
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		setenv("LC_ALL", "C", 1);
		signal(SIGALRM, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(s->argv[0], s->argv);
		_exit(127);
	}
	s->pid = pid;
	if (s->left > 0)
		s->left--;
}

/* "pids T SLOT NAME PID CHILD..." for every running slot */
static void pids(double t)
{
	struct dirent *e;
	int i;

	for (i = 0; i < nslots; i++) {
		DIR *d;

		if (!slots[i].pid)
			continue;
		fprintf(out, "pids %g %d %s %d", t, i, slots[i].name, slots[i].pid);
		d = opendir("/proc");
		while (d && (e = readdir(d))) {
			char path[300], buf[512], *p;
			int ppid;
			FILE *f;

			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f)) {
				p = strrchr(buf, ')');
				if (p && sscanf(p + 2, "%*c %d", &ppid) == 1 &&
				    ppid == slots[i].pid)
					fprintf(out, " %s", e->d_name);
			}
			fclose(f);
		}
		if (d)
			closedir(d);
		fputc('\n', out);
	}
	fflush(out);
}

static void run_cmd(const char *cmd, double t)
{
	char v[32];
	pid_t pid;
	int st;

	snprintf(v, sizeof(v), "%g", t);
	pid = fork();
	if (!pid) {
		setenv("EVALRUN_T", v, 1);
		signal(SIGALRM, SIG_DFL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

static int status_ok(const struct slot *s, int status)
{
	int i;

	for (i = 0; i < s->nok; i++)
		if (s->ok[i] == status)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *ctr = NULL, *cmd = NULL, *outp = NULL;
	int ncheck = 0, nextcheck = 0, runs = 1, c, i, nrun = 0, nfail = 0;
	long long t_start, t_end, deadline = 0, loop_ns = 0;
	double checks[16];
	struct sigaction sa;
	char *p;

	while ((c = getopt(argc, argv, "d:r:o:L:t:x:n:")) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'r':
			ctr = optarg;
			break;
		case 'o':
			outp = optarg;
			break;
		case 'L':
			loop_ns = (long long)(atof(optarg) * 1e9);
			break;
		case 't':
			for (p = strtok(optarg, ","); p && ncheck < 16; p = strtok(NULL, ","))
				checks[ncheck++] = atof(p);
			break;
		case 'x':
			cmd = optarg;
			break;
		case 'n':
			runs = atoi(optarg);
			break;
		default:
			die("usage: evalrun [-d DIR] [-r COUNTERS] [-o OUT] [-L SECS] [-t T,...] [-x CMD] [-n RUNS] SPECFILE");
		}
	}
	if (optind != argc - 1 || runs < 1)
		die("usage: evalrun [-d DIR] [-r COUNTERS] [-o OUT] [-L SECS] [-t T,...] [-x CMD] [-n RUNS] SPECFILE");
	out = outp ? fopen(outp, "w") : stdout;
	if (!out)
		die("cannot write the output file");
	read_spec(argv[optind]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: wait4() returns EINTR */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_term;	/* TERM: kill the slots' processes, report */
	sigaction(SIGTERM, &sa, NULL);

	counters(ctr, 0);
	procstat(0);
	t_start = now_ns();
	if (loop_ns)
		deadline = t_start + loop_ns;
	for (i = 0; i < nslots; i++) {
		slots[i].left = loop_ns ? -1 : runs;
		start(&slots[i]);
	}
	for (;;) {
		long long t = now_ns(), next = 0;
		struct rusage ru;
		int st, running = 0, status;
		pid_t pid;

		while (nextcheck < ncheck && t >= t_start + (long long)(checks[nextcheck] * 1e9)) {
			pids(checks[nextcheck]);
			if (cmd)
				run_cmd(cmd, checks[nextcheck]);
			nextcheck++;
			t = now_ns();
		}
		if (stopped || (deadline && t >= deadline)) {
			for (i = 0; i < nslots; i++)
				if (slots[i].pid) {
					kill(slots[i].pid, SIGKILL);
					waitpid(slots[i].pid, &st, 0);
					slots[i].pid = 0;
				}
			break;
		}
		for (i = 0; i < nslots; i++)
			running += slots[i].pid != 0;
		if (!running)
			break;
		if (nextcheck < ncheck)
			next = t_start + (long long)(checks[nextcheck] * 1e9);
		if (deadline && (!next || deadline < next))
			next = deadline;
		if (next) {
			struct itimerval it = { { 0, 0 }, { 0, 0 } };
			long long d = next - t;

			it.it_value.tv_sec = d / 1000000000LL;
			it.it_value.tv_usec = (d % 1000000000LL) / 1000 + 1;
			alarmed = 0;
			setitimer(ITIMER_REAL, &it, NULL);
		}
		pid = wait4(-1, &st, 0, &ru);
		t = now_ns();
		if (next) {
			struct itimerval off = { { 0, 0 }, { 0, 0 } };

			setitimer(ITIMER_REAL, &off, NULL);
		}
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < nslots && slots[i].pid != pid; i++)
			;
		if (i == nslots)
			continue;	/* a checkpoint command's, or an orphan */
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		fprintf(out, "proc %d %s %d %lld %lld %d %d %ld %ld\n", i, slots[i].name,
			pid, slots[i].t0 - t_start, t - t_start,
			status_ok(&slots[i], status), status,
			ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
			ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec);
		nrun++;
		nfail += !status_ok(&slots[i], status);
		slots[i].pid = 0;
		if (slots[i].left != 0 && !stopped && !(deadline && t >= deadline))
			start(&slots[i]);
	}
	t_end = now_ns();
	counters(ctr, 1);
	procstat(1);
	fprintf(out, "mix 0 %lld %d %d\n", t_end - t_start, nrun, nfail);
	fclose(out);
	return nfail ? 1 : 0;
}
