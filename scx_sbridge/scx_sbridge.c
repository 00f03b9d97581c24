// SPDX-License-Identifier: GPL-2.0
/*
 * scx_sbridge's loader: fills in the topology, loads and attaches the BPF
 * scheduler (scx_sbridge.bpf.c), prints its counters, and on exit says
 * why the scheduler ended. docs/sched-ext.md.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "scx_sbridge.h"
#include "scx_sbridge.skel.h"

/* the hint struct, as userspace sees it */
#include "sbridge_bpf.h"

/* enum scx_ops_flags' SCX_OPS_ENQ_LAST (include/linux/sched/ext.h) */
#define OPS_ENQ_LAST	(1ULL << 1)

static const char usage[] =
"usage: scx_sbridge [-d SEC] [-s SEC] [-H] [-m USEC] [-l PCT] [-w MSEC] [-G] [-S PID] [-v]\n"
"\n"
"Run the scx_sbridge sched_ext scheduler until SIGINT/SIGTERM, -d SEC, or\n"
"the kernel ends it (SysRq-S, the watchdog, an error).\n"
"  -d SEC   run SEC seconds, then exit\n"
"  -s SEC   print the counters every SEC seconds (0: only at exit)\n"
"  -H       at exit, print the hints the scheduler read from sbridge\n"
"  -m USEC  Smove's delay: a wakee kept on its waker's CPU moves after it\n"
"           (default 2000; 0: no Smove)\n"
"  -l PCT   a clock below PCT %% of the CPU's maximum is low (default 80)\n"
"  -w MSEC  the sched_ext watchdog's timeout: a task runnable this long\n"
"           without running ends the scheduler (default 10000, at most 30000)\n"
"  -S PID   test only: never run the task PID, to trip the watchdog\n"
"  -v       libbpf's debug output\n";

static volatile sig_atomic_t stop;
static int verbose;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* First CPU of a list such as "0-1" or "0,4". */
static int read_first_cpu(int cpu)
{
	char path[128], buf[64];
	FILE *f;
	int first = cpu;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
	f = fopen(path, "r");
	if (!f)
		return cpu;
	if (fgets(buf, sizeof(buf), f))
		first = atoi(buf);
	fclose(f);
	return first;
}

/* Cores and their SMT siblings into the BPF side's read-only data. */
static void fill_topology(struct scx_sbridge_bpf *skel, int ncpus)
{
	int core_of_first[SCX_SBRIDGE_MAX_CPUS];
	int nsib[SCX_SBRIDGE_MAX_CPUS] = { 0 };
	int cpu, c, i, ncores = 0, smt = 0;

	for (i = 0; i < SCX_SBRIDGE_MAX_CPUS; i++) {
		core_of_first[i] = -1;
		for (c = 0; c < SCX_SBRIDGE_MAX_SMT; c++)
			skel->rodata->core_cpus[i][c] = -1;
	}
	for (cpu = 0; cpu < ncpus; cpu++) {
		int first = read_first_cpu(cpu);

		if (first < 0 || first >= SCX_SBRIDGE_MAX_CPUS)
			first = cpu;
		if (core_of_first[first] < 0)
			core_of_first[first] = ncores++;
		c = core_of_first[first];
		skel->rodata->cpu_core[cpu] = c;
		if (nsib[c] < SCX_SBRIDGE_MAX_SMT)
			skel->rodata->core_cpus[c][nsib[c]++] = cpu;
		if (nsib[c] > 1)
			smt = 1;
	}
	skel->rodata->nr_cores = ncores;
	skel->rodata->smt = smt;
	printf("scx_sbridge: %d CPUs, %d cores%s\n", ncpus, ncores,
	       smt ? ", SMT: balanced idle search on" : ", no SMT");
}

static void print_stats(const struct scx_sbridge_stats *s)
{
	printf("stats: hint_reads=%llu hint_found=%llu fast_placed=%llu slow_placed=%llu "
	       "enq_fast=%llu enq_shared=%llu enq_pinned=%llu overflow=%llu "
	       "smove_kept=%llu smove_ran=%llu smove_moved=%llu smt_searches=%llu "
	       "stalled=%llu enq_cpu=%llu cpu_ran=%llu cpu_stolen=%llu cpu_balanced=%llu "
	       "overdue=%llu misfit=%llu up_idle=%llu\n",
	       s->hint_reads, s->hint_found, s->fast_placed, s->slow_placed,
	       s->enq_fast, s->enq_shared, s->enq_pinned, s->overflow,
	       s->smove_kept, s->smove_ran, s->smove_moved, s->smt_searches,
	       s->stalled, s->enq_cpu, s->cpu_ran, s->cpu_stolen, s->cpu_balanced,
	       s->overdue, s->misfit, s->up_idle);
	fflush(stdout);
}

static void comm_of(unsigned int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* Every hint the BPF side kept, one line each. */
static void print_hints(struct scx_sbridge_bpf *skel)
{
	int fd = bpf_map__fd(skel->maps.hints);
	unsigned int key, next, n = 0;
	struct sbridge_bpf_hint h;
	unsigned int *prev = NULL;
	char comm[32];

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &h))
			continue;
		comm_of(key, comm, sizeof(comm));
		printf("hint: pid=%u comm=%s version=%u hint=%u speedup=%u pred=%u meas=%u "
		       "got=%u age_ms=%u class=%u\n", key, comm, h.version, h.hint,
		       h.speedup, h.speedup_pred, h.speedup_meas, h.got,
		       h.hint_age_ms, h.class);
		n++;
	}
	printf("hints: %u tasks\n", n);
}

int main(int argc, char **argv)
{
	struct scx_sbridge_bpf *skel;
	struct bpf_link *link;
	int dur = 0, every = 0, hints = 0, global = 0, ncpus, opt, ret = 0;
	long delay_us = -1, low_pct = -1, watchdog_ms = 0, stall_pid = 0;
	int bad = 0;
	time_t start, last;

	while ((opt = getopt(argc, argv, "d:s:Hm:l:w:GS:vh")) != -1) {
		switch (opt) {
		case 'd':
			dur = atoi(optarg);
			break;
		case 's':
			every = atoi(optarg);
			break;
		case 'H':
			hints = 1;
			break;
		case 'm':
			delay_us = strtol(optarg, NULL, 10);
			bad |= delay_us < 0 || delay_us > 1000000;
			break;
		case 'l':
			low_pct = strtol(optarg, NULL, 10);
			bad |= low_pct < 1 || low_pct > 100;
			break;
		case 'w':
			watchdog_ms = strtol(optarg, NULL, 10);
			bad |= watchdog_ms < 1 || watchdog_ms > 30000;
			break;
		case 'G':
			global = 1;
			break;
		case 'S':
			stall_pid = strtol(optarg, NULL, 10);
			bad |= stall_pid < 1 || stall_pid > 0x3fffffff;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fputs(usage, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (dur < 0 || every < 0 || bad) {
		fputs(usage, stderr);
		return 2;
	}
	libbpf_set_print(print_libbpf);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0 || ncpus > SCX_SBRIDGE_MAX_CPUS) {
		fprintf(stderr, "scx_sbridge: %d possible CPUs, at most %d supported\n",
			ncpus, SCX_SBRIDGE_MAX_CPUS);
		return 1;
	}
	skel = scx_sbridge_bpf__open();
	if (!skel) {
		fprintf(stderr, "scx_sbridge: opening the BPF object failed: %s\n",
			strerror(errno));
		return 1;
	}
	skel->rodata->nr_cpus = ncpus;
	if (delay_us >= 0)
		skel->rodata->smove_delay_ns = (unsigned long long)delay_us * 1000;
	if (low_pct > 0)
		skel->rodata->low_clock_pct = low_pct;
	if (watchdog_ms)
		skel->struct_ops.sbridge_ops->timeout_ms = watchdog_ms;
	if (global) {
		/* as before per-CPU queues: no SCX_OPS_ENQ_LAST either */
		skel->rodata->cpu_queues = 0;
		skel->struct_ops.sbridge_ops->flags &= ~OPS_ENQ_LAST;
		printf("scx_sbridge: no per-CPU queues (-G)\n");
	}
	if (stall_pid) {
		skel->rodata->stall_pid = stall_pid;
		printf("scx_sbridge: test: task %ld is never dispatched\n", stall_pid);
	}
	fill_topology(skel, ncpus);
	ret = scx_sbridge_bpf__load(skel);
	if (ret) {
		fprintf(stderr, "scx_sbridge: loading failed: %s (a kernel with sched_ext? root?)\n",
			strerror(-ret));
		goto out;
	}
	link = bpf_map__attach_struct_ops(skel->maps.sbridge_ops);
	if (!link) {
		ret = -errno;
		fprintf(stderr, "scx_sbridge: attaching failed: %s (another sched_ext scheduler?)\n",
			strerror(errno));
		goto out;
	}
	printf("scx_sbridge: running%s\n", skel->bss->exit_info.attached ?
	       "; sbridge_core's affinity and uclamp steering stand down" :
	       "; sbridge_core's kfuncs not found: no hints");
	fflush(stdout);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	start = last = time(NULL);
	while (!stop && !skel->bss->exit_info.exited) {
		time_t now;

		usleep(100000);
		now = time(NULL);
		if (every && now - last >= every) {
			print_stats(&skel->bss->stats);
			last = now;
		}
		if (dur && now - start >= dur)
			break;
	}
	if (hints)
		print_hints(skel);
	bpf_link__destroy(link);
	print_stats(&skel->bss->stats);
	if (skel->bss->exit_info.exited)
		printf("scx_sbridge: exited: kind=%d code=%lld reason=\"%s\" msg=\"%s\"\n",
		       skel->bss->exit_info.kind, skel->bss->exit_info.exit_code,
		       skel->bss->exit_info.reason, skel->bss->exit_info.msg);
	/* 1024 and above: SCX_EXIT_ERROR and worse */
	ret = skel->bss->exit_info.kind >= 1024;
out:
	scx_sbridge_bpf__destroy(skel);
	return ret ? 1 : 0;
}
