// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate: measure the core types instead of trusting nominal numbers.
 *
 * Small built-in probes run pinned (sched_setaffinity) on the first CPU
 * of each core type: compute-bound (xorshift, integer ALU), branchy
 * (data-dependent branches) and two pointer chases over a random cycle,
 * one inside the last-level cache and one several times larger than it.
 * Each probe's cost is its cycles per iteration (perf_event_open, user
 * mode only) over the type's top clock, i.e. its time at full speed, the
 * unit the CPU factors are nominal in; without a cycle counter, its time.
 * Counting cycles over the top clock needs the CPU at that clock: a
 * memory stall costs fewer cycles at a lower one. Where cpufreq reports
 * the clock in force (cpuinfo_cur_freq), a run below 90 % of the top is
 * run again, and a CPU that stays there is refused.
 * From them:
 *
 *   CPU factor of type j  = compute cost on j / compute cost on the
 *                           reference (biggest) type
 *   memory latency        = (large chase - LLC chase) cycles per load over
 *                           the clock, mean over the types: what one LLC
 *                           miss costs beyond an LLC hit, in the unit the
 *                           model's penalty (latency x clock) uses
 *
 * Everything is measured before anything is written; a busy machine
 * (another task on a probe CPU, a probe thread preempted) is refused, and
 * a write the kernel refuses undoes the ones before it: a calibration is
 * in force whole or not at all. The result is written as a configuration
 * file (sbridgectl(8) CONFIG FILE) to the state file, which `config
 * apply` and `calibrate --auto` apply again after a reload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "cpulist.h"
#include "sbridgectl.h"

static const char calibrate_help[] =
"usage: sbridgectl calibrate [-n|--dry-run] [--auto] [--budget S] [--wait S]\n"
"                            [--buffer MB] [--state FILE] [--json]\n"
"\n"
"Run small probes (compute-bound, branchy, memory-bound pointer chase) on one\n"
"CPU of each core type and set each type's CPU factor (compute cost over the\n"
"reference type's) and the model's memory latency (model.mem_latency_ns)\n"
"from what they measured. Nothing is written unless every probe succeeded;\n"
"the result is stored in the state file and shown by `status`.\n"
"\n"
"  -n, --dry-run  measure and print, write nothing\n"
"  --auto         what the boot unit runs: apply the stored calibration if\n"
"                 there is one, else measure (bounded by --budget)\n"
"  --budget S     seconds the probes may take (default 5; at most 600)\n"
"  --wait S       wait up to S seconds for the probe CPUs to go idle\n"
"                 (default 0: a busy machine is refused at once)\n"
"  --buffer MB    memory probe buffer (default: 4x the largest cache, at\n"
"                 least 8 MiB; 1..1024)\n"
"  --state FILE   where the result is stored (default " SB_CAL_STATE ";\n"
"                 - for nowhere)\n"
"Writing needs CAP_SYS_ADMIN. Exit 1 if the machine is busy or a probe fails.\n";

/* ---- arithmetic (pure; tests/host/ctl/test_calibrate.c) ---- */

double calibrate_cost(uint64_t cycles, uint64_t ns, uint64_t iters, uint32_t khz)
{
	if (!iters)
		return 0;
	if (cycles && khz)
		return (double)cycles * 1e6 / khz / iters;
	return (double)ns / iters;
}

double calibrate_best(const double *v, size_t n, double *spread)
{
	double lo = 0, hi = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!i || v[i] < lo)
			lo = v[i];
		if (!i || v[i] > hi)
			hi = v[i];
	}
	if (spread)
		*spread = lo > 0 ? (hi - lo) / lo : 0;
	return lo;
}

uint32_t calibrate_factor(double cost, double ref_cost)
{
	double r;

	if (!(cost > 0) || !(ref_cost > 0))
		return 0;
	r = cost / ref_cost * SBRIDGE_FP_ONE;
	if (!(r >= SBRIDGE_FACTOR_MIN - 0.5 && r < SBRIDGE_FACTOR_MAX + 0.5))
		return 0;
	return (uint32_t)(r + 0.5);
}

int calibrate_latency(double chase, double llc, double *ns)
{
	if (!(chase > 0) || !(llc > 0) || chase <= llc)
		return -1;
	*ns = chase - llc;
	return *ns >= 0.5 && *ns <= SB_CAL_MAX_LAT_NS ? 0 : -1;
}

/* "cpuN a b c ..." of /proc/stat text @s: total and idle (idle + iowait) */
static int stat_cpu(const char *s, unsigned int cpu, unsigned long long *tot,
		    unsigned long long *idle)
{
	char key[24];
	const char *p;
	size_t kl;
	int i;

	kl = (size_t)snprintf(key, sizeof(key), "cpu%u ", cpu);
	for (p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *end;

		if (strncmp(p, key, kl))
			continue;
		p += kl;
		*tot = *idle = 0;
		for (i = 0; i < 8; i++) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			p = end;
			*tot += v;
			if (i == 3 || i == 4)
				*idle += v;
		}
		return i >= 4 ? 0 : -1;
	}
	return -1;
}

int calibrate_clock_low(uint32_t cur_khz, uint32_t top_khz)
{
	return cur_khz && top_khz && (uint64_t)cur_khz * 10 < (uint64_t)top_khz * 9;
}

int calibrate_busy(const char *before, const char *after, unsigned int cpu)
{
	unsigned long long t0, i0, t1, i1;

	if (stat_cpu(before, cpu, &t0, &i0) || stat_cpu(after, cpu, &t1, &i1))
		return -1;
	if (t1 < t0 || i1 < i0)
		return -1;
	if (t1 == t0)
		return 0;
	return (int)(1000 - (i1 - i0) * 1000 / (t1 - t0));
}

/* ---- probes ---- */

static volatile uint64_t cal_sink;

#define XS(x)	do { x ^= x << 13; x ^= x >> 7; x ^= x << 17; } while (0)

/* 24 dependent integer ALU operations an iteration */
static void probe_compute(uint64_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	while (n--) {
		XS(x); XS(x); XS(x); XS(x);
		XS(x); XS(x); XS(x); XS(x);
	}
	cal_sink = x;
}

/* four data-dependent branches an iteration; asm keeps them branches */
static void probe_branchy(uint64_t n)
{
	uint64_t x = 0x2545f4914f6cdd1dULL, a = 0, b = 0;

	while (n--) {
		XS(x);
		if (x & 1) { a += x; __asm__ volatile(""); } else { b ^= x; }
		if (x & 4) { a ^= b; __asm__ volatile(""); } else { b += a; }
		if (x & 16) { a += 3; __asm__ volatile(""); } else { b -= 5; }
		if (x & 64) { b ^= x; __asm__ volatile(""); } else { a -= x; }
	}
	cal_sink = x + a + b;
}

/* eight dependent loads an iteration */
static void *probe_chase(void *p, uint64_t n)
{
	while (n--) {
		p = *(void **)p; p = *(void **)p; p = *(void **)p; p = *(void **)p;
		p = *(void **)p; p = *(void **)p; p = *(void **)p; p = *(void **)p;
	}
	return p;
}

#define CAL_LINE	64
#define CAL_LLC_BYTES	(128u << 10)	/* beyond L1, inside any LLC */
#define CAL_MIN_BUF_MB	8
#define CAL_MAX_BUF_MB	256
#define CAL_RUNS	3
#define CAL_TRIES	3

struct chase {
	void *mem, *start;
	size_t len;
};

static uint64_t cal_rand(uint64_t *s)
{
	XS(*s);
	return *s;
}

/*
 * One random cycle through every line of @len bytes, linked in the order
 * it is walked, so that under LRU the walk begins with the lines written
 * longest ago: no line of it is still cached when the walk reaches it.
 */
static int chase_build(struct chase *c, size_t len)
{
	size_t n = len / CAL_LINE, i;
	uint64_t seed = 0x853c49e6748fea9bULL ^ (uint64_t)getpid();
	uint32_t *perm;
	char *b;

	c->mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->mem == MAP_FAILED) {
		c->mem = NULL;
		return -ENOMEM;
	}
	c->len = len;
	madvise(c->mem, len, MADV_HUGEPAGE);	/* fewer TLB misses if it can */
	perm = malloc(n * sizeof(*perm));
	if (!perm) {
		munmap(c->mem, len);
		c->mem = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (i = n - 1; i > 0; i--) {
		size_t j = (size_t)(cal_rand(&seed) % (i + 1));
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	b = c->mem;
	for (i = 0; i < n; i++)
		*(void **)(b + (size_t)perm[i] * CAL_LINE) =
			b + (size_t)perm[i + 1 < n ? i + 1 : 0] * CAL_LINE;
	c->start = b + (size_t)perm[0] * CAL_LINE;
	free(perm);
	return 0;
}

static void chase_free(struct chase *c)
{
	if (c->mem)
		munmap(c->mem, c->len);
	c->mem = NULL;
}

enum { P_COMPUTE, P_BRANCHY, P_LLC, P_CHASE, P_NR };
static const char *const probe_name[P_NR] = { "compute", "branchy", "llc", "chase" };
/* what an iteration is, for the per-iteration costs printed */
static const unsigned int probe_ops[P_NR] = { 1, 1, 8, 8 };

struct cal_ctx {
	struct chase llc, big;
	int perf_fd;		/* cycles of this thread, -1 without */
	uint64_t target_ns;	/* a run's length */
	uint64_t deadline;	/* CLOCK_MONOTONIC ns */
	int busy;		/* a run was preempted CAL_TRIES times */
	uint32_t low_khz;	/* clock of a run below the top, 0 if none */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t perf_read(int fd)
{
	uint64_t v = 0;

	if (fd < 0 || read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * The clock @cpu runs at as its cpufreq driver reads it back (root only;
 * the core re-syncs a stale request from it), 0 where it cannot tell.
 */
static uint32_t cur_khz(unsigned int cpu)
{
	char path[80];
	unsigned long v = 0;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%u/cpufreq/cpuinfo_cur_freq", cpu);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v > UINT32_MAX ? 0 : (uint32_t)v;
}

/*
 * The probes' own cycles: user mode only, as sbridge_pmu counts (the
 * timer ticks and interrupts that land on a probe are not its cost); a
 * PMU that cannot leave kernel mode out counts every mode.
 */
static int perf_cycles_open(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_hv = 1;
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0 && (errno == EINVAL || errno == EOPNOTSUPP)) {
		a.exclude_kernel = 0;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	}
	return fd;
}

/*
 * One run of @probe for @iters iterations: its wall time in *@ns and its
 * cycles in *@cyc (0 without a counter). Returns 1 if the thread was
 * preempted (its CPU time under 90 % of the wall time), else 0.
 */
static int run_once(struct cal_ctx *x, int probe, uint64_t iters,
		    uint64_t *ns, uint64_t *cyc)
{
	uint64_t t0, c0, k0, t1, c1, k1;

	k0 = perf_read(x->perf_fd);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = now_ns(CLOCK_MONOTONIC);
	switch (probe) {
	case P_COMPUTE:
		probe_compute(iters);
		break;
	case P_BRANCHY:
		probe_branchy(iters);
		break;
	case P_LLC:
		x->llc.start = probe_chase(x->llc.start, iters);
		break;
	default:
		x->big.start = probe_chase(x->big.start, iters);
		break;
	}
	t1 = now_ns(CLOCK_MONOTONIC);
	c1 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	k1 = perf_read(x->perf_fd);
	*ns = t1 - t0;
	*cyc = k1 > k0 ? k1 - k0 : 0;
	return (c1 - c0) * 10 < *ns * 9;
}

/*
 * @probe on the CPU this thread is pinned to: iterations doubled until a
 * run takes x->target_ns (these runs warm it up), then CAL_RUNS runs,
 * the cheapest kept. 0, or -1 (x->busy set if preemption was why).
 */
static int run_probe(struct cal_ctx *x, unsigned int cpu, int probe, uint32_t khz,
		     double *cost, double *spread, int *by_cycles)
{
	double v[CAL_RUNS];
	uint64_t iters = 64, ns, cyc;
	int r, tries = 0, slow = 0;
	uint32_t c0, c1;

	/* double while a run is too short to time, then scale to the target */
	for (;;) {
		run_once(x, probe, iters, &ns, &cyc);
		if (now_ns(CLOCK_MONOTONIC) > x->deadline)
			return -1;
		if (ns >= x->target_ns / 8 || iters >= (1ULL << 40))
			break;
		iters *= 2;
	}
	if (ns < x->target_ns && ns)
		iters = (uint64_t)((double)iters * x->target_ns / ns) + 1;
	for (r = 0; r < CAL_RUNS; r++) {
		c0 = khz ? cur_khz(cpu) : 0;
		if (run_once(x, probe, iters, &ns, &cyc)) {
			if (++tries >= CAL_TRIES) {
				x->busy = 1;
				return -1;
			}
			r--;
			continue;
		}
		/* cycles over the top clock: a run at a lower one does not count */
		c1 = khz ? cur_khz(cpu) : 0;
		if (calibrate_clock_low(c0, khz) || calibrate_clock_low(c1, khz)) {
			x->low_khz = calibrate_clock_low(c0, khz) ? c0 : c1;
			if (++slow >= CAL_TRIES)
				return -1;
			r--;
			continue;
		}
		*by_cycles = cyc && khz;
		v[r] = calibrate_cost(*by_cycles ? cyc : 0, ns, iters, khz) / probe_ops[probe];
	}
	*cost = calibrate_best(v, CAL_RUNS, spread);
	return 0;
}

/* One core type: its CPUs, the CPU probed, its costs. */
struct cal_type {
	unsigned int type, cpu, capacity;
	uint32_t khz, old_factor;	/* old_factor: nonzero if any CPU had one */
	struct sb_cpuset cpus;
	double cost[P_NR], spread[P_NR], latency;
	uint32_t factor;
};

static int pin(unsigned int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return sched_setaffinity(0, sizeof(s), &s);
}

/* The largest cache size in /sys of any CPU of @t, 0 if none is listed. */
static size_t largest_cache(const struct cal_type *t, size_t n)
{
	size_t best = 0, i;
	int idx;

	for (i = 0; i < n; i++)
		for (idx = 0; idx < 8; idx++) {
			char path[96], buf[32], *end;
			unsigned long v;
			FILE *f;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%u/cache/index%d/size",
				 t[i].cpu, idx);
			f = fopen(path, "r");
			if (!f)
				break;
			if (fgets(buf, sizeof(buf), f)) {
				v = strtoul(buf, &end, 10);
				if (*end == 'K')
					v <<= 10;
				else if (*end == 'M')
					v <<= 20;
				if (v > best)
					best = v;
			}
			fclose(f);
		}
	return best;
}

static char *slurp_stat(void)
{
	static char buf[2][1 << 16];
	static int k;
	size_t n = 0;
	FILE *f = fopen("/proc/stat", "r");

	k ^= 1;
	buf[k][0] = 0;
	if (f) {
		n = fread(buf[k], 1, sizeof(buf[k]) - 1, f);
		buf[k][n] = 0;
		fclose(f);
	}
	return buf[k];
}

/*
 * Idle enough to measure: over 200 ms no probe CPU was more than 10 %
 * busy. Retries until @wait_ms has passed. 0, or -1 with @why.
 */
static int wait_idle(const struct cal_type *t, size_t n, uint64_t wait_ms,
		     char *why, size_t len)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + wait_ms * 1000000ULL;
	struct timespec nap = { 0, 200000000 };
	size_t i;

	for (;;) {
		char *a = slurp_stat(), *b;
		int worst = -1, wcpu = 0;

		nanosleep(&nap, NULL);
		b = slurp_stat();
		for (i = 0; i < n; i++) {
			int bz = calibrate_busy(a, b, t[i].cpu);

			if (bz > worst) {
				worst = bz;
				wcpu = (int)t[i].cpu;
			}
		}
		if (worst <= 100) {
			if (worst < 0)
				sb_warn("cannot read /proc/stat: not checking that the machine is idle");
			return 0;
		}
		snprintf(why, len, "CPU %d was %d.%d %% busy", wcpu, worst / 10, worst % 10);
		if (now_ns(CLOCK_MONOTONIC) >= end)
			return -1;
	}
}

/* Applies a configuration file as `config apply FILE` does. */
static int apply_file(const char *path)
{
	char *args[] = { "config", "apply", (char *)path, NULL };
	int json = sb_json, ret;

	sb_json = 0;
	optind = 1;
	ret = cmd_config(3, args);
	sb_json = json;
	return ret;
}

/*
 * The overrides of @cpus (the dump before calibrating) back on every CPU
 * of the first @nwritten types of @t, and the old latency; best effort.
 */
static void undo(struct sb_nl *nl, const struct sb_cpu *cpus, size_t ncpus,
		 const struct cal_type *t, size_t nwritten, uint64_t old_lat,
		 int lat_written)
{
	size_t i, k;

	for (k = 0; k < ncpus; k++)
		for (i = 0; i < nwritten; i++)
			if (cpus[k].type == t[i].type) {
				struct sb_cpuset one;

				memset(&one, 0, sizeof(one));
				one.bits[cpus[k].id / 64] |= 1ULL << (cpus[k].id % 64);
				sb_set_cpu_factor(nl, &one, cpus[k].override);
			}
	if (lat_written)
		sb_set_param(nl, "model.mem_latency_ns", old_lat);
}

static int write_state(const char *path, const struct cal_type *t, size_t n,
		       size_t ref, uint32_t lat, int by_cycles)
{
	char tmp[4096], list[256], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	size_t i;

	if (!strcmp(path, "-"))
		return 0;
	if (!strcmp(path, SB_CAL_STATE)) {	/* a bare system may lack them */
		mkdir("/var", 0755);
		mkdir("/var/lib", 0755);
		mkdir("/var/lib/sbridge", 0755);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(f, "# sbridgectl calibrate %s, %s; applied by `sbridgectl calibrate --auto`\n"
		"# and `sbridgectl config apply` (sbridgectl(8) CALIBRATION)\n",
		stamp, by_cycles ? "cycles at each type's top clock" : "time");
	fprintf(f, "# result at=%s by=%s latency_ns=%u\n", stamp,
		by_cycles ? "cycles" : "time", lat);
	for (i = 0; i < n; i++) {
		sb_cpulist_format(&t[i].cpus, list, sizeof(list));
		fprintf(f, "# result type=%u cpus=%s reference=%d compute=%.3f branchy=%.3f memory=%.3f latency_ns=%.1f\n",
			t[i].type, list, i == ref, t[i].cost[P_COMPUTE] / t[ref].cost[P_COMPUTE],
			t[i].cost[P_BRANCHY] / t[ref].cost[P_BRANCHY],
			t[i].cost[P_CHASE] / t[ref].cost[P_CHASE], t[i].latency);
	}
	fprintf(f, "param model.mem_latency_ns %u\n", lat);
	for (i = 0; i < n; i++) {
		sb_cpulist_format(&t[i].cpus, list, sizeof(list));
		fprintf(f, "cpu-factor %s %s\n", list, i == ref ? "clear" : sb_fp(t[i].factor));
	}
	if (fclose(f) || rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return -e;
	}
	return 0;
}

/* how long the buffers and the probes took (ms) and the chase buffer */
static uint64_t cal_setup_ms, cal_total_ms;
static size_t cal_buf_mb;

static void print_result(const struct cal_type *t, size_t n, size_t ref,
			 uint32_t lat, int by_cycles, int written, const char *state)
{
	char list[256];
	size_t i;
	int p;

	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_str("by", by_cycles ? "cycles" : "time");
		sb_js_uint("mem_latency_ns", lat);
		sb_js_arr_begin("types");
		for (i = 0; i < n; i++) {
			sb_cpulist_format(&t[i].cpus, list, sizeof(list));
			sb_js_obj_begin(NULL);
			sb_js_uint("type", t[i].type);
			sb_js_str("cpus", list);
			sb_js_uint("cpu", t[i].cpu);
			sb_js_bool("reference", i == ref);
			sb_js_fp("factor", i == ref ? SBRIDGE_FP_ONE : t[i].factor);
			sb_js_obj_begin("ps");	/* cost per iteration, picoseconds */
			for (p = 0; p < P_NR; p++)
				sb_js_uint(probe_name[p], (uint64_t)(t[i].cost[p] * 1000 + 0.5));
			sb_js_obj_end();
			sb_js_uint("latency_ps", (uint64_t)(t[i].latency * 1000 + 0.5));
			sb_js_obj_end();
		}
		sb_js_arr_end();
		sb_js_uint("buffer_mb", cal_buf_mb);
		sb_js_uint("setup_ms", cal_setup_ms);
		sb_js_uint("total_ms", cal_total_ms);
		sb_js_bool("written", written);
		sb_js_str("state", written && strcmp(state, "-") ? state : NULL);
		sb_js_obj_end();
		return;
	}
	printf("measured by %s\n", by_cycles ? "cycles at each type's top clock (perf)" :
	       "time (no cycle counter)");
	printf("took %llu.%03llu s, of which %llu.%03llu s to build the chases (%zu MiB)\n",
	       (unsigned long long)cal_total_ms / 1000, (unsigned long long)cal_total_ms % 1000,
	       (unsigned long long)cal_setup_ms / 1000, (unsigned long long)cal_setup_ms % 1000,
	       cal_buf_mb);
	for (i = 0; i < n; i++) {
		sb_cpulist_format(&t[i].cpus, list, sizeof(list));
		printf("type %u cpus %s cpu %u%s: compute %.3f ns branchy %.3f ns llc %.2f ns chase %.2f ns (spread %.1f %%)\n",
		       t[i].type, list, t[i].cpu, i == ref ? " (reference)" : "",
		       t[i].cost[P_COMPUTE], t[i].cost[P_BRANCHY], t[i].cost[P_LLC],
		       t[i].cost[P_CHASE], 100 * t[i].spread[P_COMPUTE]);
	}
	for (i = 0; i < n; i++)
		printf("ratio type %u compute %.3f branchy %.3f memory %.3f latency_ns %.1f\n",
		       t[i].type, t[i].cost[P_COMPUTE] / t[ref].cost[P_COMPUTE],
		       t[i].cost[P_BRANCHY] / t[ref].cost[P_BRANCHY],
		       t[i].cost[P_CHASE] / t[ref].cost[P_CHASE], t[i].latency);
	for (i = 0; i < n; i++) {
		if (i == ref)
			continue;
		sb_cpulist_format(&t[i].cpus, list, sizeof(list));
		printf("cpu-factor %s %s\n", list, sb_fp(t[i].factor));
	}
	printf("model.mem_latency_ns %u\n", lat);
	if (!written)
		printf("dry run: nothing written\n");
	else if (strcmp(state, "-"))
		printf("written, stored in %s\n", state);
	else
		printf("written, not stored\n");
}

/* The core types of the GET_CPUS dump, the reference (biggest) first known. */
static int group_types(const struct sb_cpu *cpus, size_t ncpus, struct cal_type *t,
		       size_t max, size_t *n, size_t *ref)
{
	size_t i, j;

	*n = 0;
	for (i = 0; i < ncpus; i++) {
		for (j = 0; j < *n; j++)
			if (t[j].type == cpus[i].type)
				break;
		if (j == *n) {
			if (*n == max)
				return -1;
			memset(&t[j], 0, sizeof(t[j]));
			t[j].type = cpus[i].type;
			t[j].cpu = cpus[i].id;
			t[j].capacity = cpus[i].orig_capacity ?: cpus[i].capacity;
			t[j].khz = cpus[i].max_khz;	/* the top clock, or none */
			(*n)++;
		}
		t[j].old_factor |= cpus[i].override;	/* any override */
		if (cpus[i].id < SB_MAX_CPUS)
			t[j].cpus.bits[cpus[i].id / 64] |= 1ULL << (cpus[i].id % 64);
	}
	*ref = 0;
	for (j = 1; j < *n; j++)
		if (t[j].capacity > t[*ref].capacity)
			*ref = j;
	return 0;
}

#define CAL_MAX_TYPES	16

/* One calibration: its options, the types found and what was measured. */
struct cal_run {
	unsigned long long budget_ms, wait_ms, buf_mb, old_lat;
	const char *state;
	int dry, autom, by_cycles;
	struct cal_type t[CAL_MAX_TYPES];
	size_t n, ref, ncpus;
	struct sb_cpu *cpus;
	struct cal_ctx x;
	uint32_t lat;
	struct sb_nl nl;
};

/* -1 to go on, or the exit code. */
static int cal_options(int argc, char **argv, struct cal_run *r)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "auto", no_argument, NULL, 'A' },
		{ "budget", required_argument, NULL, 'B' },
		{ "wait", required_argument, NULL, 'W' },
		{ "buffer", required_argument, NULL, 'M' },
		{ "state", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = sb_getopt(argc, argv, "n", opts, calibrate_help)) != -1) {
		switch (c) {
		case 'n':
			r->dry = 1;
			break;
		case 'A':
			r->autom = 1;
			break;
		case 'B':
			if (sb_parse_seconds(optarg, 600000, &r->budget_ms) || r->budget_ms < 100)
				return sb_usage(calibrate_help,
						"--budget takes seconds from 0.1 to 600, got '%s'", optarg);
			break;
		case 'W':
			if (sb_parse_seconds(optarg, 600000, &r->wait_ms))
				return sb_usage(calibrate_help,
						"--wait takes seconds from 0 to 600, got '%s'", optarg);
			break;
		case 'M':
			if (sb_parse_uint(optarg, 1024, &r->buf_mb) || !r->buf_mb)
				return sb_usage(calibrate_help,
						"--buffer takes MiB from 1 to 1024, got '%s'", optarg);
			break;
		case 'S':
			if (!*optarg)
				return sb_usage(calibrate_help, "--state takes a file name or -");
			r->state = optarg;
			break;
		default:
			return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return sb_usage(calibrate_help, "unexpected argument '%s'", argv[optind]);
	if (r->autom && r->dry)
		return sb_usage(calibrate_help, "--auto and --dry-run do not go together");
	return -1;
}

/* The CPUs and their types, the right to write, an idle machine: 0 or an exit code. */
static int cal_prepare(struct cal_run *r)
{
	char why[128];
	int ret;

	ret = sb_get_cpus(&r->nl, &r->cpus, &r->ncpus);
	if (ret)
		return sb_fail(&r->nl, ret, "reading the CPUs");
	if (!r->ncpus || group_types(r->cpus, r->ncpus, r->t, CAL_MAX_TYPES, &r->n, &r->ref)) {
		sb_err("the module lists %s core types: nothing to calibrate",
		       r->ncpus ? "too many" : "no CPUs and no");
		return SB_EXIT_ERR;
	}
	if (r->n == 1)
		fprintf(stderr, "%s: one core type: it is the reference (factor 1 by definition); "
			"measuring the memory latency only\n", sb_prog);
	if (sb_read_param("model.mem_latency_ns", &r->old_lat)) {
		sb_err("the loaded module has no model.mem_latency_ns parameter (older than this sbridgectl): not calibrating");
		return SB_EXIT_ERR;
	}
	/* the kernel says whether we may write before seconds of probing */
	if (!r->dry) {
		ret = sb_set_param(&r->nl, "model.mem_latency_ns", r->old_lat);
		if (ret)
			return sb_fail(&r->nl, ret, "calibrate");
	}
	if (wait_idle(r->t, r->n, r->autom && !r->wait_ms ? r->budget_ms : r->wait_ms,
		      why, sizeof(why))) {
		sb_err("the machine is busy (%s): not calibrated, nothing written; "
		       "run it again on an idle machine or give --wait S", why);
		return SB_EXIT_ERR;
	}
	return 0;
}

/* Every probe on one CPU of type @i: 0 or an exit code. */
static int cal_measure_type(struct cal_run *r, size_t i)
{
	struct cal_type *ti = &r->t[i];
	int p, bc = 0;

	if (pin(ti->cpu)) {
		sb_err("cannot pin to CPU %u: %s", ti->cpu, strerror(errno));
		return SB_EXIT_ERR;
	}
	for (p = 0; p < P_NR; p++) {
		r->x.low_khz = 0;
		if (run_probe(&r->x, ti->cpu, p, r->by_cycles ? ti->khz : 0,
			      &ti->cost[p], &ti->spread[p], &bc)) {
			if (r->x.low_khz && !r->x.busy)
				sb_err("CPU %u ran at %u MHz, under its top clock of %u MHz, in %d runs of the %s probe (its governor, a frequency limit or a slow ramp): the cycles it counts would be too few; set the performance governor; not calibrated, nothing written",
				       ti->cpu, r->x.low_khz / 1000, ti->khz / 1000, CAL_TRIES,
				       probe_name[p]);
			else if (r->x.busy)
				sb_err("the machine is busy (the %s probe on CPU %u was preempted %d times): not calibrated, nothing written",
				       probe_name[p], ti->cpu, CAL_TRIES);
			else
				sb_err("the probes took longer than the budget of %llu.%03llu s (building the chases took %llu ms; a busy or slow machine: --budget S): not calibrated, nothing written",
				       r->budget_ms / 1000, r->budget_ms % 1000,
				       (unsigned long long)cal_setup_ms);
			return SB_EXIT_ERR;
		}
		if (r->by_cycles && !bc) {
			sb_err("CPU %u: the cycle counter stopped counting during the %s probe: not calibrated",
			       ti->cpu, probe_name[p]);
			return SB_EXIT_ERR;
		}
	}
	if (calibrate_latency(ti->cost[P_CHASE], ti->cost[P_LLC], &ti->latency)) {
		sb_err("CPU %u: the large chase (%.1f ns a load) is not slower than the LLC-sized one (%.1f ns): the buffer fits a cache (--buffer MB); not calibrated",
		       ti->cpu, ti->cost[P_CHASE], ti->cost[P_LLC]);
		return SB_EXIT_ERR;
	}
	return 0;
}

/* The buffers, every type's probes, the factors and the latency: 0 or an exit code. */
static int cal_measure(struct cal_run *r)
{
	double lat_sum = 0;
	size_t i, big;
	uint64_t t0, v;
	int ret;

	big = r->buf_mb ? (size_t)r->buf_mb << 20 : 4 * largest_cache(r->t, r->n);
	if (!r->buf_mb && big < ((size_t)CAL_MIN_BUF_MB << 20))
		big = (size_t)CAL_MIN_BUF_MB << 20;
	if (!r->buf_mb && big > ((size_t)CAL_MAX_BUF_MB << 20))
		big = (size_t)CAL_MAX_BUF_MB << 20;
	t0 = now_ns(CLOCK_MONOTONIC);
	r->x.deadline = t0 + r->budget_ms * 1000000ULL;
	cal_buf_mb = big >> 20;
	/* the buffers are built on the reference CPU: its caches, not the others' */
	if (pin(r->t[r->ref].cpu) || chase_build(&r->x.llc, CAL_LLC_BYTES) ||
	    chase_build(&r->x.big, big)) {
		sb_err("cannot pin to CPU %u or get %zu MiB for the memory probe: %s",
		       r->t[r->ref].cpu, big >> 20, strerror(errno));
		return SB_EXIT_ERR;
	}
	cal_setup_ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	/* what is left, over 2 runs sizing + CAL_RUNS runs of each probe */
	v = (r->x.deadline - now_ns(CLOCK_MONOTONIC)) / (r->n * P_NR * (CAL_RUNS + 3));
	r->x.target_ns = v < 1000000 ? 1000000 : v;
	/* one unit for every type: cycles at the top clock where all have one */
	r->x.perf_fd = perf_cycles_open();
	for (i = 0; i < r->n; i++)
		r->by_cycles &= r->x.perf_fd >= 0 && r->t[i].khz;
	for (i = 0; i < r->n; i++) {
		ret = cal_measure_type(r, i);
		if (ret)
			return ret;
		lat_sum += r->t[i].latency;
	}
	cal_total_ms = (now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	r->lat = (uint32_t)(lat_sum / r->n + 0.5);
	for (i = 0; i < r->n; i++) {
		if (i == r->ref)
			continue;
		r->t[i].factor = calibrate_factor(r->t[i].cost[P_COMPUTE],
						  r->t[r->ref].cost[P_COMPUTE]);
		if (!r->t[i].factor) {
			sb_err("type %u: compute cost %.3f ns against %.3f ns on the reference is outside [0.125, 8]: not calibrated",
			       r->t[i].type, r->t[i].cost[P_COMPUTE], r->t[r->ref].cost[P_COMPUTE]);
			return SB_EXIT_ERR;
		}
	}
	return 0;
}

/* All measured: write, undoing on the first refusal, then store. */
static int cal_write(struct cal_run *r)
{
	int ret, nw = 0, lat_w;
	size_t i;

	ret = sb_set_param(&r->nl, "model.mem_latency_ns", r->lat);
	lat_w = !ret;
	for (i = 0; !ret && i < r->n; i++, nw++)
		if (i != r->ref || r->t[i].old_factor)
			ret = sb_set_cpu_factor(&r->nl, &r->t[i].cpus,
						i == r->ref ? 0 : r->t[i].factor);
	if (ret) {
		undo(&r->nl, r->cpus, r->ncpus, r->t, (size_t)nw, r->old_lat, lat_w);
		return sb_fail(&r->nl, ret, "calibrate (nothing kept)");
	}
	ret = write_state(r->state, r->t, r->n, r->ref, r->lat, r->by_cycles);
	if (ret) {
		sb_err("cannot store the calibration in %s: %s (nothing kept)", r->state,
		       strerror(-ret));
		undo(&r->nl, r->cpus, r->ncpus, r->t, r->n, r->old_lat, 1);
		return SB_EXIT_ERR;
	}
	print_result(r->t, r->n, r->ref, r->lat, r->by_cycles, 1, r->state);
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	static struct cal_run r;
	cpu_set_t saved;
	struct stat st;
	int ret;

	memset(&r, 0, sizeof(r));
	r.budget_ms = 5000;
	r.state = SB_CAL_STATE;
	r.by_cycles = 1;
	r.x.perf_fd = -1;
	ret = cal_options(argc, argv, &r);
	if (ret >= 0)
		return ret;
	ret = sb_connect(&r.nl);
	if (ret)
		return ret;
	if (r.autom && strcmp(r.state, "-") && !stat(r.state, &st)) {
		sb_nl_close(&r.nl);
		ret = apply_file(r.state);
		if (!ret)
			fprintf(stderr, "%s: calibration of %s applied (run 'sbridgectl calibrate' to measure again)\n",
				sb_prog, r.state);
		return ret;
	}
	ret = cal_prepare(&r);
	if (ret)
		goto out;
	sched_getaffinity(0, sizeof(saved), &saved);
	ret = cal_measure(&r);
	if (!ret && r.dry)
		print_result(r.t, r.n, r.ref, r.lat, r.by_cycles, 0, r.state);
	else if (!ret)
		ret = cal_write(&r);
	if (r.x.perf_fd >= 0)
		close(r.x.perf_fd);
	chase_free(&r.x.llc);
	chase_free(&r.x.big);
	sched_setaffinity(0, sizeof(saved), &saved);
out:
	free(r.cpus);
	sb_nl_close(&r.nl);
	return ret;
}

/* status: the memory latency in force and the stored calibration. */
void calibrate_status(void)
{
	unsigned long long lat = 0, src = 0;
	char line[512];
	int have_src = 0;
	FILE *f;

	sb_read_param("model.mem_latency_ns", &lat);
	f = fopen("/sys/module/sbridge_pmu/parameters/mem_latency_ns", "r");
	if (f) {
		have_src = fscanf(f, "%llu", &src) == 1;
		fclose(f);
	}
	if (sb_json) {
		sb_js_obj_begin("memory_latency");
		sb_js_uint("ns", lat ? lat : src);
		sb_js_str("from", lat ? "model.mem_latency_ns" : have_src ? "counter source" : NULL);
		sb_js_obj_end();
	} else if (lat) {
		printf("memory latency:   %llu ns (model.mem_latency_ns", lat);
		if (have_src)
			printf("; the counter source measured %llu at load", src);
		printf(")\n");
	} else if (have_src) {
		printf("memory latency:   %llu ns (the counter source's, at load)\n", src);
	}
	f = fopen(SB_CAL_STATE, "r");
	if (sb_json) {
		sb_js_arr_begin("calibration");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "# result ", 9)) {
				line[strcspn(line, "\n")] = 0;
				sb_js_str(NULL, line + 9);
			}
		sb_js_arr_end();
	} else if (!f) {
		printf("calibration:      none stored (sbridgectl calibrate)\n");
	} else {
		printf("calibration:      %s\n", SB_CAL_STATE);
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "# result ", 9))
				printf("                  %s", line + 9);
	}
	if (f)
		fclose(f);
}
