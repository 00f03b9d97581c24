// SPDX-License-Identifier: GPL-2.0
/*
 * rigtest - the rig's TCG plugin (tools/rig/plugin/rig.c) on the host,
 * without QEMU: the plugin API functions it calls are stubs here, the test
 * translates A64 blocks of known instructions, "executes" them on a vCPU
 * by calling the plugin's callbacks, and reads the shared page back.
 *
 *   rigtest CONFIG SHM           the model: counters, classes, reference
 *                                cycles, energy, idle, DVFS latency and
 *                                ramp, low clocks after a wakeup, user
 *                                and kernel mode apart
 *   rigtest CONFIG SHM TOPOLOGY  only install; exit status 0 if the plugin
 *                                accepted the configuration
 *
 * Prints "ok - ..." / "not ok - ..." lines; the exit status counts failures.
 * Built and run by tests/test_rig.py (test_rig_plugin_*).
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <qemu-plugin.h>
#include "rig_pmu_abi.h"

struct qemu_plugin_insn {
	uint32_t word;
};

struct qemu_plugin_tb {
	size_t n;
	struct qemu_plugin_insn *insn;
	uint64_t vaddr;
};

static qemu_plugin_vcpu_tb_trans_cb_t trans_cb;
static qemu_plugin_vcpu_simple_cb_t idle_cb, resume_cb;
static qemu_plugin_vcpu_udata_cb_t exec_cb;
static void *exec_udata;
/* the last memory callback registered, and its udata */
static qemu_plugin_vcpu_mem_cb_t mem_cb;
static void *mem_udata;

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb)
{
	trans_cb = cb;
}

void qemu_plugin_register_vcpu_idle_cb(qemu_plugin_id_t id,
				       qemu_plugin_vcpu_simple_cb_t cb)
{
	idle_cb = cb;
}

void qemu_plugin_register_vcpu_resume_cb(qemu_plugin_id_t id,
					 qemu_plugin_vcpu_simple_cb_t cb)
{
	resume_cb = cb;
}

void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata)
{
}

void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata)
{
	exec_cb = cb;
	exec_udata = userdata;
}

void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw,
				      void *userdata)
{
	mem_cb = cb;
	mem_udata = userdata;
}

uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb)
{
	return tb->vaddr;
}

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb)
{
	return tb->n;
}

struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx)
{
	return &tb->insn[idx];
}

const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn)
{
	return &insn->word;
}

size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn)
{
	return 4;
}

bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info)
{
	return false;
}

struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info,
						  uint64_t vaddr)
{
	return NULL;
}

bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr)
{
	return false;
}

uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr)
{
	return 0;
}

bool qemu_plugin_bool_parse(const char *name, const char *val, bool *ret)
{
	*ret = !strcmp(val, "on") || !strcmp(val, "true");
	return true;
}

/* ----------------------------------------------------------------- test */

static int failures;

static void check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failures += !cond;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1e3), (long)((ms - (time_t)(ms / 1e3) * 1e3) * 1e6) };

	nanosleep(&ts, NULL);
}

static struct rig_pmu_hdr *hdr;

static struct rig_pmu_cpu *rec(int cpu)
{
	return (void *)((char *)hdr + RIG_PMU_CPU_OFFSET + cpu * RIG_PMU_CPU_STRIDE);
}

static uint64_t ctr(int cpu, int n)
{
	return ((volatile uint64_t *)rec(cpu)->ctr)[n];
}

/* One block of each kind: ADD, NOP (ALU); LDR; B; MADD; UDIV; FDIV d;
 * FADD d; ADD v.4s. Big core's cost: 2 x 0.45 + 0.6 + 0.6 + 1 + 2 x 6
 * + 2 x 0.8 = 16.7 cycles. */
static struct qemu_plugin_insn block[] = {
	{ 0x91000400 }, { 0xd503201f }, { 0xf9400041 }, { 0x14000001 },
	{ 0x9b020c20 }, { 0x9ac20820 }, { 0x1e621820 }, { 0x1e622820 },
	{ 0x4ea28420 },
};

static void run_blocks(int cpu, long n)
{
	while (n-- > 0)
		exec_cb(cpu, exec_udata);
}

/* @cpu's counter @n counted in @mode only (struct rig_pmu_modes) */
static uint64_t mctr(int cpu, int mode, int n)
{
	struct rig_pmu_modes *m = (void *)((char *)hdr + hdr->mode_offset +
					   cpu * hdr->mode_stride);

	return ((volatile uint64_t *)m->ctr[mode])[n];
}

/*
 * User and kernel mode apart: @tb (user) and a copy from the kernel's half
 * run on @cpu; every split counter's user and kernel parts add up to the
 * total, and each is what its blocks (and their memory accesses) cost.
 */
static void test_modes(int cpu, struct qemu_plugin_tb *tb, uint64_t kaddr)
{
	static const int split[] = { RIG_CTR_INSTRUCTIONS, RIG_CTR_CYCLES,
				     RIG_CTR_LLC_REFS, RIG_CTR_LLC_MISSES,
				     RIG_CTR_STALL_CYCLES, RIG_CTR_L1_REFS,
				     RIG_CTR_REF_CYCLES, RIG_CTR_CLS_ALU,
				     RIG_CTR_CLS_ASE };
	struct qemu_plugin_tb ktb = *tb;
	qemu_plugin_vcpu_mem_cb_t ucb, kcb;
	void *uexec, *kexec, *umem, *kmem;
	uint64_t ku, kk, uc, kc;
	bool ok = true;
	int i;

	check(hdr->features & RIG_FEAT_MODES && hdr->mode_offset == RIG_PMU_MODE_OFFSET &&
	      hdr->mode_stride == RIG_PMU_MODE_STRIDE,
	      "page: counts by mode at %u, %u bytes a CPU", hdr->mode_offset,
	      hdr->mode_stride);
	trans_cb(1, tb);
	uexec = exec_udata;
	ucb = mem_cb;
	umem = mem_udata;
	ktb.vaddr = kaddr;
	trans_cb(1, &ktb);
	kexec = exec_udata;
	kcb = mem_cb;
	kmem = mem_udata;
	check(umem == NULL && kmem != NULL, "memory accesses of a kernel block are marked as such");
	resume_cb(1, cpu);
	for (i = 0; i < 1000; i++) {
		exec_cb(cpu, uexec);
		/* every user load misses (a new line each time), a kernel one hits */
		ucb(cpu, 0, 0x10000000 + (uint64_t)i * 4096 * 64, umem);
		exec_cb(cpu, kexec);
		kcb(cpu, 0, kaddr + 0x140, kmem);
		exec_cb(cpu, kexec);	/* publishes what the accesses cost */
	}
	idle_cb(1, cpu);
	for (i = 0; i < (int)(sizeof(split) / sizeof(split[0])); i++) {
		int n = split[i];

		uint64_t sum = mctr(cpu, RIG_MODE_USER, n) + mctr(cpu, RIG_MODE_KERNEL, n);

		/* cycles are kept in fractions, busy time in ns: one apart at most */
		if (sum > ctr(cpu, n) || sum + 1 < ctr(cpu, n)) {
			printf("# counter %d: user %lu + kernel %lu, all %lu\n", n,
			       (unsigned long)mctr(cpu, RIG_MODE_USER, n),
			       (unsigned long)mctr(cpu, RIG_MODE_KERNEL, n),
			       (unsigned long)ctr(cpu, n));
			ok = false;
		}
	}
	check(ok, "user + kernel = every mode (within one), for each counter split");
	ku = mctr(cpu, RIG_MODE_USER, RIG_CTR_INSTRUCTIONS);
	kk = mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_INSTRUCTIONS);
	check(ku == 9000 && kk == 18000, "instructions: user %lu (9000), kernel %lu (18000)",
	      (unsigned long)ku, (unsigned long)kk);
	check(mctr(cpu, RIG_MODE_USER, RIG_CTR_LLC_MISSES) == 1000 &&
	      mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_LLC_MISSES) <= 1 &&
	      mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_L1_REFS) == 1000,
	      "LLC misses: user %lu (1000), kernel %lu (at most the first); kernel L1 refs %lu (1000)",
	      (unsigned long)mctr(cpu, RIG_MODE_USER, RIG_CTR_LLC_MISSES),
	      (unsigned long)mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_LLC_MISSES),
	      (unsigned long)mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_L1_REFS));
	uc = mctr(cpu, RIG_MODE_USER, RIG_CTR_CYCLES);
	kc = mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_CYCLES);
	check(mctr(cpu, RIG_MODE_USER, RIG_CTR_STALL_CYCLES) >= 1000 * 119 &&
	      uc >= mctr(cpu, RIG_MODE_USER, RIG_CTR_STALL_CYCLES) &&
	      kc >= 2000 * 319 / 10 && kc <= 2000 * 319 / 10 + 200,
	      "cycles: user %lu (with its misses' stalls), kernel %lu (2 x 31.9 a round)",
	      (unsigned long)uc, (unsigned long)kc);
	check(mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_CLS_ASE) == 2000 &&
	      mctr(cpu, RIG_MODE_USER, RIG_CTR_CLS_ALU) == 2000,
	      "classes by mode: kernel SIMD %lu (2000), user ALU %lu (2000)",
	      (unsigned long)mctr(cpu, RIG_MODE_KERNEL, RIG_CTR_CLS_ASE),
	      (unsigned long)mctr(cpu, RIG_MODE_USER, RIG_CTR_CLS_ALU));
	exec_udata = uexec;
}

/* Execute on @cpu for @ms of wall time. */
static void run_for(int cpu, double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		run_blocks(cpu, 200);
}

int main(int argc, char **argv)
{
	char cfg[512], topo[64], shm[512], pace[] = "pace=off";
	char *args[] = { cfg, topo, shm, pace };
	qemu_info_t info = { .target_name = "aarch64", .system_emulation = true,
			     .system = { .smp_vcpus = 2, .max_vcpus = 2 } };
	struct qemu_plugin_tb tb = { sizeof(block) / sizeof(block[0]), block, 0 };
	int fd;
	uint64_t cyc, ref, dyn, idle_ns, idle_pj, c0, r0;
	double t0, mhz;
	int i;

	if (argc < 3)
		return 2;
	snprintf(cfg, sizeof(cfg), "config=%s", argv[1]);
	snprintf(shm, sizeof(shm), "shm=%s", argv[2]);
	snprintf(topo, sizeof(topo), "topology=%s", argc > 3 ? argv[3] : "1b1s");
	if (qemu_plugin_install(1, &info, 4, args))
		return argc > 3 ? 1 : 100;
	if (argc > 3)
		return 0;
	/* the plugin's page, as the guest sees it */
	fd = open(argv[2], O_RDWR);
	hdr = fd < 0 ? MAP_FAILED :
	      mmap(NULL, RIG_PMU_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED)
		return 101;
	close(fd);

	check(hdr->magic == RIG_PMU_MAGIC && hdr->version == RIG_PMU_VERSION &&
	      hdr->nr_cpus == 2 && hdr->cpu_stride == RIG_PMU_CPU_STRIDE,
	      "page: magic, version %u, 2 CPUs, stride %u", hdr->version, hdr->cpu_stride);
	check(hdr->slowdown == 10 && hdr->dvfs_latency_us == 1000 &&
	      hdr->dvfs_ramp_khz_per_us == 1000 && hdr->low_clock_pct == 75,
	      "header: slowdown %u, DVFS latency %u us, ramp %u kHz/us, low %u %%",
	      hdr->slowdown, hdr->dvfs_latency_us, hdr->dvfs_ramp_khz_per_us,
	      hdr->low_clock_pct);
	check(rec(0)->nr_opps == 5 && rec(0)->opp[0].mhz == 800 && rec(0)->opp[0].mv == 900 &&
	      rec(0)->opp[4].mhz == 1600 && rec(0)->opp[4].mv == 1100 &&
	      rec(0)->dyn_power == 530 && rec(0)->idle_uw == 50000 &&
	      rec(1)->nr_opps == 4 && rec(1)->opp[3].mhz == 1200 && rec(1)->dyn_power == 140,
	      "OPP tables and energy model of big and little from the configuration");
	check(rec(0)->domain != rec(1)->domain && rec(0)->freq_mhz == 1600 &&
	      rec(0)->target_mhz == 1600 && rec(1)->freq_mhz == 1200,
	      "one clock domain per type, each at its top OPP (%u, %u MHz)",
	      rec(0)->freq_mhz, rec(1)->freq_mhz);

	trans_cb(1, &tb);
	run_blocks(0, 10000);
	check(ctr(0, RIG_CTR_INSTRUCTIONS) == 90000, "instructions %lu (90000)",
	      (unsigned long)ctr(0, RIG_CTR_INSTRUCTIONS));
	{
		static const uint64_t want[] = { 20000, 10000, 10000, 10000, 10000, 10000,
						 10000, 10000 };
		bool ok = true;

		for (i = 0; i < 8; i++)
			ok &= ctr(0, RIG_CTR_CLS_ALU + i) == want[i];
		check(ok, "classes ALU %lu LDST %lu BRANCH %lu MUL %lu IDIV %lu FDIV %lu VFP %lu ASE %lu",
		      (unsigned long)ctr(0, 16), (unsigned long)ctr(0, 17),
		      (unsigned long)ctr(0, 18), (unsigned long)ctr(0, 19),
		      (unsigned long)ctr(0, 20), (unsigned long)ctr(0, 21),
		      (unsigned long)ctr(0, 22), (unsigned long)ctr(0, 23));
	}
	cyc = ctr(0, RIG_CTR_CYCLES);
	ref = ctr(0, RIG_CTR_REF_CYCLES);
	check(cyc >= 166990 && cyc <= 167000, "cycles %lu (16.7 per block)", (unsigned long)cyc);
	check(ref * 16 >= cyc * 10 - 16 && ref * 16 <= cyc * 10 + 16,
	      "reference cycles %lu: busy ns at 1600 MHz", (unsigned long)ref);
	/* idle: folds the busy stretch, then idle time and its energy */
	idle_cb(1, 0);
	dyn = ctr(0, RIG_CTR_ENERGY_DYN_PJ);
	check(dyn >= cyc * 530 * 121 / 100 - 1000 && dyn <= cyc * 530 * 121 / 100 + 1000,
	      "dynamic energy %lu pJ: 530 x 1.1 V^2 per cycle", (unsigned long)dyn);
	t0 = now_ms();
	sleep_ms(30);
	resume_cb(1, 0);
	t0 = now_ms() - t0;
	idle_ns = ctr(0, RIG_CTR_IDLE_NS);
	idle_pj = ctr(0, RIG_CTR_ENERGY_IDLE_PJ);
	check(idle_ns >= t0 * 1e6 / 10 * 0.95 && idle_ns <= t0 * 1e6 / 10 * 1.05,
	      "idle %lu ns: %.1f ms of wall time / slowdown 10", (unsigned long)idle_ns, t0);
	check(idle_pj >= idle_ns * 50 - 100 && idle_pj <= idle_ns * 50 + 100,
	      "idle energy %lu pJ: 50 mW x idle time", (unsigned long)idle_pj);
	check(ctr(0, RIG_CTR_WAKEUPS) == 1 && ctr(0, RIG_CTR_LOW_NS) == 0,
	      "one wakeup, no busy time at a low clock at 1600 MHz");

	/* DVFS: 1000 us latency (10 ms wall), 1 MHz/us (0.1 MHz per wall us) */
	rec(0)->freq_req_mhz = 800;
	t0 = now_ms();
	run_for(0, 5);
	check(rec(0)->target_mhz == 800 && rec(0)->freq_mhz == 1600,
	      "request taken (target %u) but the clock holds during the latency (%u MHz)",
	      rec(0)->target_mhz, rec(0)->freq_mhz);
	run_for(0, 10 + 4 - (now_ms() - t0));
	mhz = rec(0)->freq_mhz;
	check(mhz > 800 && mhz < 1600,
	      "mid-ramp at %.0f MHz after %.1f ms (1600 - 0.1 MHz/us)", mhz, now_ms() - t0);
	run_for(0, 10);
	check(rec(0)->freq_mhz == 800, "at 800 MHz once the ramp is done (%u MHz)",
	      rec(0)->freq_mhz);
	c0 = ctr(0, RIG_CTR_CYCLES);
	r0 = ctr(0, RIG_CTR_REF_CYCLES);
	run_blocks(0, 20000);
	mhz = 1000.0 * (ctr(0, RIG_CTR_CYCLES) - c0) / (ctr(0, RIG_CTR_REF_CYCLES) - r0);
	check(mhz > 799 && mhz < 801, "cycles per reference ns: %.1f MHz", mhz);
	/* a wakeup at a low clock: its busy time counts as low after a wakeup */
	idle_cb(1, 0);
	c0 = ctr(0, RIG_CTR_WAKE_LOW_NS);
	r0 = ctr(0, RIG_CTR_REF_CYCLES);
	sleep_ms(2);
	resume_cb(1, 0);
	run_blocks(0, 20000);
	idle_cb(1, 0);
	check(ctr(0, RIG_CTR_WAKE_LOW_NS) - c0 == ctr(0, RIG_CTR_REF_CYCLES) - r0 ||
	      ctr(0, RIG_CTR_WAKE_LOW_NS) - c0 + 1 == ctr(0, RIG_CTR_REF_CYCLES) - r0,
	      "woken at 800 MHz (< 75 %% of 1600): all %lu busy ns low after a wakeup (%lu)",
	      (unsigned long)(ctr(0, RIG_CTR_REF_CYCLES) - r0),
	      (unsigned long)(ctr(0, RIG_CTR_WAKE_LOW_NS) - c0));
	dyn = ctr(0, RIG_CTR_ENERGY_DYN_PJ);
	c0 = ctr(0, RIG_CTR_CYCLES);
	resume_cb(1, 0);
	run_blocks(0, 20000);
	idle_cb(1, 0);
	mhz = (double)(ctr(0, RIG_CTR_ENERGY_DYN_PJ) - dyn) / (ctr(0, RIG_CTR_CYCLES) - c0);
	check(mhz > 530 * 0.81 - 0.5 && mhz < 530 * 0.81 + 0.5,
	      "dynamic energy per cycle at 800 MHz: %.1f pJ (530 x 0.9 V^2)", mhz);
	/* back to the configured clock */
	rec(0)->freq_req_mhz = 0;
	resume_cb(1, 0);
	run_for(0, 30);
	check(rec(0)->freq_mhz == 1600 && rec(0)->target_mhz == 1600,
	      "request withdrawn: back at 1600 MHz (%u)", rec(0)->freq_mhz);
	/* the little vCPU, untouched so far: AArch64's kernel half (bit 55) */
	test_modes(1, &tb, 0xffff800008010000ull);
	return failures;
}
