// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rig.c - QEMU TCG plugin for the sbridge emulated big.LITTLE rig.
 *
 * Every vCPU is given a core type (big = out-of-order, little = in-order)
 * from the rig configuration.  At translation time each guest instruction is
 * classified by its encoding (ALU, load/store, branch, multiply, divide,
 * FP/SIMD); the per-type cost of a translation block is precomputed, so at
 * run time a block costs one callback.  Data accesses go through a per-vCPU
 * L1 and last-level cache model; an LLC miss stalls for a memory latency
 * that is fixed in nanoseconds, hence costs more cycles on a faster core.
 * Each vCPU thread is then paced in wall-clock time: when its modelled time
 * (cycles / frequency, dilated by "slowdown") runs ahead of the wall clock
 * it sleeps.  A compute-bound loop therefore runs at the modelled IPC x
 * frequency ratio, while a cache-missing loop runs at nearly memory speed on
 * either core type.
 *
 * Modelled counters are published per vCPU into a shared-memory file that
 * QEMU maps into the guest as an ivshmem-plain BAR (see rig_pmu_abi.h).
 *
 * Clocks: each core type has operating points (rig.conf opp_mhz/opp_mv);
 * the guest asks for a clock per vCPU through the page (the rig_cpufreq
 * driver, or rig_pmu's freq file) and the vCPU reaches it after a DVFS
 * latency and ramp, both in model time.  Beside the core cycle counter the
 * rig keeps a constant-rate reference counter (1 count per busy modelled
 * ns: what APERF/MPERF and AMU's core/constant counters give), energy from
 * the energy model (coefficient x V^2 per cycle, plus idle power), the busy
 * time spent at low clocks (also just after a wakeup) and retired
 * instructions per class.
 *
 * Privilege modes: each block is user or kernel code by the address it runs
 * from (kernel_half()), and every counter a perf event can ask for is also
 * kept for kernel mode alone, so that the guest's PMU can honour
 * exclude_user and exclude_kernel as hardware PMUs do.
 *
 * Plugin arguments: config=FILE (required), topology=NAME, shm=FILE,
 * stats=FILE, pace=always|guest|off (overrides the configuration); for
 * overhead experiments paddr=off (LLC by virtual address) and mem=off (no
 * cache model at all).
 *
 * MTTCG runs each vCPU on its own thread and a vCPU's state is only touched
 * by that thread, so nothing here takes a lock.  Translation-time data is
 * written once before the block can run and is read-only afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <qemu-plugin.h>

#include "rig_pmu_abi.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

_Static_assert(sizeof(struct rig_pmu_modes) == RIG_PMU_MODE_STRIDE,
	       "rig_pmu_modes layout");
_Static_assert(RIG_PMU_MODE_OFFSET + RIG_PMU_MAX_CPUS * RIG_PMU_MODE_STRIDE <=
	       RIG_PMU_SHM_SIZE, "per-mode records fit in the page");

#define FP_SHIFT	8		/* cycles are kept in 1/256 units */
#define FP_ONE		(1u << FP_SHIFT)
#define MAX_TYPES	4

/* Cost classes: one cpi_* of the configuration each. */
enum insn_class { C_ALU, C_LDST, C_BRANCH, C_MUL, C_DIV, C_FP, NR_CLASSES };
static const char *const class_key[NR_CLASSES] = {
	"cpi_alu", "cpi_ldst", "cpi_branch", "cpi_mul", "cpi_div", "cpi_fp"
};

/*
 * Counting kinds: the cost classes, with DIV split into integer and FP
 * divide and FP into scalar FP and SIMD, so that each maps onto the Arm
 * PMU's common events (rig_pmu.c); in ctr[] order from RIG_CTR_CLS_ALU.
 */
enum insn_kind { K_ALU, K_LDST, K_BRANCH, K_MUL, K_IDIV, K_FDIV, K_VFP, K_ASE,
		 NR_KINDS };

enum pace_mode { PACE_OFF, PACE_GUEST, PACE_ALWAYS };

/* One core type: [type.NAME] section of the configuration. */
struct core_type {
	char name[16];
	double cpi[NR_CLASSES];
	uint32_t freq_mhz;
	uint32_t capacity;
	uint32_t l1_kb, l1_assoc;
	uint32_t llc_kb, llc_assoc;
	double llc_hit_cycles;
	uint32_t nr_opps;
	struct rig_pmu_opp opp[RIG_PMU_MAX_OPPS];	/* lowest first */
	uint32_t dyn_power;	/* uW/MHz/V^2, 0 = no energy model */
	uint32_t idle_uw;
};

/* Set-associative cache model with LRU kept by move-to-front. */
struct cache {
	uint64_t *tags;		/* sets * ways, line number + 1, 0 = invalid */
	uint32_t ways;
	uint64_t set_mask;
};

/*
 * What a vCPU counted while in kernel mode (blocks from the kernel's half
 * of the address space); the same counts of struct vcpu are every mode's,
 * user mode is the difference.
 */
struct kcounts {
	uint64_t cyc_fp, stall_fp;
	uint64_t insns, l1_refs, llc_refs, llc_misses;
	uint64_t kinds[NR_KINDS];
	uint64_t acc_fp;		/* cyc_fp at the last accounting point */
	double busy_ns;			/* modelled busy ns, folded by account() */
};

/*
 * Per-vCPU model state, touched only by the vCPU's own thread (and by the
 * exit report once every vCPU has stopped).
 *
 * Accounting: the cycles since @acc_fp ran at @freq_mhz; account() folds
 * them into the busy time, energy and low-clock totals at every pacing
 * check, before every clock change and when the vCPU goes idle.
 */
struct vcpu {
	uint64_t cyc_fp;		/* modelled cycles, 1/256 units */
	uint64_t stall_fp;		/* of which memory stall */
	uint64_t insns, l1_refs, llc_refs, llc_misses;
	uint64_t kinds[NR_KINDS];	/* retired instructions per kind */
	uint64_t next_check_fp, check_fp;
	uint64_t anchor_fp;
	int64_t anchor_wall;
	double wall_ns_per_fp;
	uint64_t mem_fp, store_mem_fp, llc_hit_fp;
	uint32_t freq_mhz;
	int type;
	bool pacing, slack_set;
	uint64_t slept_ns, sleeps, lag_ns, lag_events;
	/* clock: the request taken, and the ramp towards it */
	uint32_t target_mhz, low_mhz;
	bool ramping, waking;
	double ramp_from;		/* MHz when the ramp was asked for */
	int64_t ramp_t0;		/* wall ns the clock starts to move */
	/* accounting (see above) */
	uint64_t acc_fp;
	double ns_per_fp, pj_per_fp;	/* at freq_mhz */
	double busy_ns, idle_ns, low_ns, wake_low_ns, dyn_pj, idle_pj;
	uint64_t wakeups;
	int64_t idle_start;		/* wall ns, 0 = running */
	struct kcounts k;		/* the kernel-mode part of the above */
	struct cache l1, llc;
	struct rig_pmu_cpu *pub;
	struct rig_pmu_modes *modes;	/* NULL: modes not told apart */
} __attribute__((aligned(64)));

/* Translation-time summary of one block, shared by all vCPUs. */
struct tb_info {
	uint32_t n_insns;
	uint32_t cost_fp[MAX_TYPES];
	uint16_t kinds[NR_KINDS];
	bool kernel;		/* runs from the kernel's half (kernel_half()) */
};

static struct core_type types[MAX_TYPES];
static int nr_types;
static struct vcpu *vcpus;
static int nr_vcpus;
static bool is_a64;
/* The address bit that selects the kernel's half; 0: modes not told apart. */
static uint64_t kernel_va_bit;
static enum pace_mode pace_mode = PACE_ALWAYS;
static uint32_t slowdown = 100, mem_latency_ns = 100, line_shift = 6;
static double store_stall = 0.25;
static int64_t check_us = 200, max_lag_us = 20000, min_sleep_ns = 20000;
/* DVFS, model time: latency before the clock moves, then its ramp rate. */
static double dvfs_latency_us = 100, dvfs_ramp_mhz_per_us = 10;
static uint32_t low_clock_pct = 75;
static struct rig_pmu_hdr *hdr;
static size_t shm_len;
static char *stats_path;
static char topo_name[64];
static gchar **domain_list;	/* [domains] of the topology, or NULL */
static bool use_paddr = true, model_mem = true;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---------------------------------------------------------------- caches */

static bool cache_init(struct cache *c, uint32_t kb, uint32_t ways)
{
	uint64_t lines = (uint64_t)kb * 1024 >> line_shift;
	uint64_t sets;

	if (!ways || lines < ways)
		return false;
	sets = lines / ways;
	if (sets & (sets - 1))
		return false;
	c->ways = ways;
	c->set_mask = sets - 1;
	c->tags = g_new0(uint64_t, sets * ways);
	return true;
}

/* Returns true on hit; on miss the line is filled as most recently used. */
static inline bool cache_access(struct cache *c, uint64_t line)
{
	uint64_t *set = &c->tags[(line & c->set_mask) * c->ways];
	uint64_t tag = line + 1;
	uint32_t w;

	if (set[0] == tag)
		return true;
	for (w = 1; w < c->ways; w++) {
		if (set[w] == tag) {
			memmove(set + 1, set, w * sizeof(*set));
			set[0] = tag;
			return true;
		}
	}
	memmove(set + 1, set, (c->ways - 1) * sizeof(*set));
	set[0] = tag;
	return false;
}

/* ------------------------------------------------------- classification */

/*
 * AArch64: top-level decode groups of the A64 encoding (ARM DDI 0487 C4.1).
 * Returns the cost class; *kind gets the counting kind.
 */
static enum insn_class classify_a64(uint32_t i, enum insn_kind *kind)
{
	uint32_t op0 = (i >> 25) & 0xf;

	*kind = K_ALU;
	if ((op0 & 0xe) == 0x8)			/* 100x data processing imm */
		return C_ALU;
	if ((op0 & 0xe) == 0xa) {		/* 101x branch/exception/system */
		if ((i >> 22) == 0x354)		/* HINT, barriers, MSR/MRS */
			return C_ALU;
		*kind = K_BRANCH;
		return C_BRANCH;
	}
	if ((op0 & 0x5) == 0x4) {		/* x1x0 loads and stores */
		*kind = K_LDST;
		return C_LDST;
	}
	if ((op0 & 0x7) == 0x5) {		/* x101 data processing reg */
		if (((i >> 24) & 0x1f) == 0x1b) {	/* 3-source: MADD, SMULL, ... */
			*kind = K_MUL;
			return C_MUL;
		}
		if (((i >> 21) & 0xff) == 0xd6 && !((i >> 30) & 1)) {
			uint32_t opc = (i >> 10) & 0x3f;

			if (opc == 2 || opc == 3) {	/* UDIV, SDIV */
				*kind = K_IDIV;
				return C_DIV;
			}
		}
		return C_ALU;
	}
	if ((op0 & 0x7) == 0x7) {		/* x111 SIMD and FP */
		if ((i & 0xff20fc00) == 0x1e201800 ||	/* FDIV scalar */
		    (i & 0xff3ffc00) == 0x1e21c000) {	/* FSQRT scalar */
			*kind = K_FDIV;
			return C_DIV;
		}
		/* bits 28 = 1, 30 = 0: scalar FP; else Advanced SIMD, crypto */
		*kind = ((i >> 28) & 1) && !((i >> 30) & 1) ? K_VFP : K_ASE;
		return C_FP;
	}
	return C_ALU;
}

/* x86 SSE opcodes (0f xx) that are scalar FP with an f2/f3 prefix. */
static bool x86_sse_scalar(uint8_t op2)
{
	return op2 == 0x10 || op2 == 0x11 || op2 == 0x2a || op2 == 0x2c ||
	       op2 == 0x2d || (op2 >= 0x51 && op2 <= 0x5f) || op2 == 0xc2;
}

/* x86-64: coarse opcode-byte heuristics, good enough for a cost model. */
static enum insn_class classify_x86(const uint8_t *p, size_t len,
				    enum insn_kind *kind)
{
	size_t k = 0;
	uint8_t op, modrm;
	bool rep = false;

	*kind = K_ALU;
	while (k < len && (p[k] == 0x66 || p[k] == 0x67 || p[k] == 0xf2 ||
			   p[k] == 0xf3 || p[k] == 0xf0 || p[k] == 0x2e ||
			   p[k] == 0x3e || p[k] == 0x26 || p[k] == 0x36 ||
			   p[k] == 0x64 || p[k] == 0x65 || (p[k] & 0xf0) == 0x40)) {
		rep |= p[k] == 0xf2 || p[k] == 0xf3;
		k++;
	}
	if (k >= len)
		return C_ALU;
	op = p[k++];
	modrm = k < len ? p[k] : 0;
	if (op == 0x0f) {
		uint8_t op2 = k < len ? p[k] : 0;

		if (op2 >= 0x80 && op2 <= 0x8f) {
			*kind = K_BRANCH;
			return C_BRANCH;
		}
		if (op2 == 0xaf) {
			*kind = K_MUL;
			return C_MUL;
		}
		if ((op2 >= 0x10 && op2 <= 0x17) || (op2 >= 0x28 && op2 <= 0x2f) ||
		    (op2 >= 0x50 && op2 <= 0x7f) || op2 >= 0xd0 ||
		    op2 == 0x38 || op2 == 0x3a || op2 == 0xc2 || op2 == 0xc6) {
			/* scalar: f2/f3 forms, and (u)comis[sd] */
			*kind = (rep && x86_sse_scalar(op2)) || op2 == 0x2e ||
				op2 == 0x2f ? K_VFP : K_ASE;
			return C_FP;
		}
		return C_ALU;
	}
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3) ||
	    op == 0xe8 || op == 0xe9 || op == 0xeb || op == 0xc2 ||
	    op == 0xc3 || op == 0xca || op == 0xcb || op == 0xcf ||
	    (op == 0xff && ((modrm >> 3) & 7) >= 2 && ((modrm >> 3) & 7) <= 5)) {
		*kind = K_BRANCH;
		return C_BRANCH;
	}
	if (op == 0xf6 || op == 0xf7) {
		if (((modrm >> 3) & 7) == 4 || ((modrm >> 3) & 7) == 5) {
			*kind = K_MUL;
			return C_MUL;
		}
		if (((modrm >> 3) & 7) >= 6) {
			*kind = K_IDIV;
			return C_DIV;
		}
	}
	if (op == 0x69 || op == 0x6b) {
		*kind = K_MUL;
		return C_MUL;
	}
	if (op >= 0xd8 && op <= 0xdf) {		/* x87 */
		*kind = K_VFP;
		return C_FP;
	}
	if (((op >= 0x88 && op <= 0x8b) && (modrm >> 6) != 3) ||
	    (op >= 0x50 && op <= 0x5f) || (op >= 0xa4 && op <= 0xaf)) {
		*kind = K_LDST;
		return C_LDST;
	}
	return C_ALU;
}

/* ---------------------------------------------------------------- timing */

static void anchor(struct vcpu *v, int64_t now)
{
	v->anchor_wall = now;
	v->anchor_fp = v->cyc_fp;
}

/* Supply voltage (V) of core type @t at @mhz: its OPP table, linear
 * between operating points, the end points' outside them. */
static double volts_at(const struct core_type *t, double mhz)
{
	uint32_t i;

	if (mhz <= t->opp[0].mhz)
		return t->opp[0].mv / 1000.0;
	for (i = 1; i < t->nr_opps; i++) {
		const struct rig_pmu_opp *lo = &t->opp[i - 1], *hi = &t->opp[i];

		if (mhz <= hi->mhz)
			return (lo->mv + (hi->mv - lo->mv) * (mhz - lo->mhz) /
				(hi->mhz - lo->mhz)) / 1000.0;
	}
	return t->opp[t->nr_opps - 1].mv / 1000.0;
}

/* Accounting points only: what is not published after every block. */
static void publish_acc(struct vcpu *v)
{
	uint64_t *c = v->pub->ctr;

	c[RIG_CTR_ENERGY_DYN_PJ] = (uint64_t)v->dyn_pj;
	c[RIG_CTR_ENERGY_IDLE_PJ] = (uint64_t)v->idle_pj;
	c[RIG_CTR_IDLE_NS] = (uint64_t)v->idle_ns;
	c[RIG_CTR_LOW_NS] = (uint64_t)v->low_ns;
	c[RIG_CTR_WAKE_LOW_NS] = (uint64_t)v->wake_low_ns;
	c[RIG_CTR_WAKEUPS] = v->wakeups;
}

/*
 * Fold the cycles run since the last accounting point, all at the clock
 * in force: busy time, dynamic energy (the energy model's coefficient x
 * V^2 per cycle, i.e. its power x busy time) and the low-clock totals.
 * A vCPU "waking" (out of idle, not yet at a high clock) stops waking at
 * its first stretch at a high clock.
 */
static void account(struct vcpu *v)
{
	uint64_t d = v->cyc_fp - v->acc_fp;
	double ns;

	if (!d)
		return;
	ns = d * v->ns_per_fp;
	v->busy_ns += ns;
	v->k.busy_ns += (v->k.cyc_fp - v->k.acc_fp) * v->ns_per_fp;
	v->k.acc_fp = v->k.cyc_fp;
	v->dyn_pj += d * v->pj_per_fp;
	if (v->freq_mhz < v->low_mhz) {
		v->low_ns += ns;
		if (v->waking)
			v->wake_low_ns += ns;
	} else {
		v->waking = false;
	}
	v->acc_fp = v->cyc_fp;
	publish_acc(v);
}

/* The clock in force becomes @mhz (the caller accounted up to now). */
static void set_freq(struct vcpu *v, uint32_t mhz)
{
	const struct core_type *t = &types[v->type];
	double volts = volts_at(t, mhz);

	v->freq_mhz = mhz;
	/* wall ns per modelled cycle = slowdown * 1000 / MHz */
	v->wall_ns_per_fp = (double)slowdown * 1000.0 / mhz / FP_ONE;
	v->ns_per_fp = 1000.0 / mhz / FP_ONE;
	/* pJ per cycle = uW/MHz/V^2 x V^2 */
	v->pj_per_fp = (double)t->dyn_power * volts * volts / FP_ONE;
	/* A fixed latency in ns is more cycles on a faster clock. */
	v->mem_fp = (uint64_t)((double)mem_latency_ns * mhz / 1000.0 * FP_ONE);
	v->store_mem_fp = (uint64_t)(v->mem_fp * store_stall);
	v->llc_hit_fp = (uint64_t)(t->llc_hit_cycles * FP_ONE);
	v->check_fp = (uint64_t)(check_us * 1000.0 / v->wall_ns_per_fp);
	if (v->pub)
		v->pub->freq_mhz = mhz;
}

/*
 * DVFS: take a new request from the page, and move the clock along its
 * ramp: dvfs_latency_us after the request the clock starts to move, at
 * dvfs_ramp_mhz_per_us (0: at once), both modelled time, i.e. slowdown x
 * that in wall time, which is the guest's. A request is taken when the
 * vCPU looks (a pacing check, or leaving idle): an idle vCPU's clock
 * does not move, so an idle core at a low clock really takes time to come
 * up once it runs. Returns true if the clock in force changed.
 */
static bool dvfs_update(struct vcpu *v, int64_t now)
{
	const struct core_type *t = &types[v->type];
	uint32_t req = ((volatile struct rig_pmu_cpu *)v->pub)->freq_req_mhz;
	double f;
	uint32_t mhz;

	/* 0 withdraws the request: back to the core type's frequency. */
	if (!req)
		req = t->freq_mhz;
	if (req != v->target_mhz && req >= RIG_PMU_FREQ_MIN_MHZ &&
	    req <= RIG_PMU_FREQ_MAX_MHZ) {
		v->target_mhz = req;
		v->pub->target_mhz = req;
		v->ramp_from = v->freq_mhz;
		v->ramp_t0 = now + (int64_t)(dvfs_latency_us * 1000.0 * slowdown);
		v->ramping = true;
	}
	if (!v->ramping || now < v->ramp_t0)
		return false;
	f = v->target_mhz;
	if (dvfs_ramp_mhz_per_us > 0) {
		double step = dvfs_ramp_mhz_per_us * (double)(now - v->ramp_t0) /
			      (1000.0 * slowdown);

		if (v->target_mhz > v->ramp_from)
			f = fmin(v->target_mhz, v->ramp_from + step);
		else
			f = fmax(v->target_mhz, v->ramp_from - step);
	}
	mhz = (uint32_t)lround(f);
	if (mhz == v->target_mhz)
		v->ramping = false;
	if (mhz == v->freq_mhz)
		return false;
	account(v);
	set_freq(v, mhz);
	return true;
}

/*
 * The kernel-mode counts, and the user-mode ones as every mode's minus
 * them: each is a sum of its own increments (cycles in 1/256 units, busy
 * time folded apart), so each only grows.
 */
static void publish_modes(struct vcpu *v)
{
	uint64_t *u = v->modes->ctr[RIG_MODE_USER];
	uint64_t *kc = v->modes->ctr[RIG_MODE_KERNEL];
	const struct kcounts *k = &v->k;
	double kbusy = k->busy_ns + (k->cyc_fp - k->acc_fp) * v->ns_per_fp;
	double ubusy = v->busy_ns - k->busy_ns +
		       ((v->cyc_fp - v->acc_fp) - (k->cyc_fp - k->acc_fp)) *
		       v->ns_per_fp;
	int i;

	kc[RIG_CTR_INSTRUCTIONS] = k->insns;
	kc[RIG_CTR_CYCLES] = k->cyc_fp >> FP_SHIFT;
	kc[RIG_CTR_LLC_REFS] = k->llc_refs;
	kc[RIG_CTR_LLC_MISSES] = k->llc_misses;
	kc[RIG_CTR_STALL_CYCLES] = k->stall_fp >> FP_SHIFT;
	kc[RIG_CTR_L1_REFS] = k->l1_refs;
	kc[RIG_CTR_REF_CYCLES] = (uint64_t)kbusy;
	u[RIG_CTR_INSTRUCTIONS] = v->insns - k->insns;
	u[RIG_CTR_CYCLES] = (v->cyc_fp - k->cyc_fp) >> FP_SHIFT;
	u[RIG_CTR_LLC_REFS] = v->llc_refs - k->llc_refs;
	u[RIG_CTR_LLC_MISSES] = v->llc_misses - k->llc_misses;
	u[RIG_CTR_STALL_CYCLES] = (v->stall_fp - k->stall_fp) >> FP_SHIFT;
	u[RIG_CTR_L1_REFS] = v->l1_refs - k->l1_refs;
	u[RIG_CTR_REF_CYCLES] = ubusy > 0 ? (uint64_t)ubusy : 0;
	for (i = 0; i < NR_KINDS; i++) {
		kc[RIG_CTR_CLS_ALU + i] = k->kinds[i];
		u[RIG_CTR_CLS_ALU + i] = v->kinds[i] - k->kinds[i];
	}
}

static void publish(struct vcpu *v)
{
	uint64_t *c = v->pub->ctr;
	int k;

	c[RIG_CTR_INSTRUCTIONS] = v->insns;
	c[RIG_CTR_CYCLES] = v->cyc_fp >> FP_SHIFT;
	c[RIG_CTR_LLC_REFS] = v->llc_refs;
	c[RIG_CTR_LLC_MISSES] = v->llc_misses;
	c[RIG_CTR_STALL_CYCLES] = v->stall_fp >> FP_SHIFT;
	c[RIG_CTR_L1_REFS] = v->l1_refs;
	c[RIG_CTR_REF_CYCLES] = (uint64_t)(v->busy_ns +
					   (v->cyc_fp - v->acc_fp) * v->ns_per_fp);
	for (k = 0; k < NR_KINDS; k++)
		c[RIG_CTR_CLS_ALU + k] = v->kinds[k];
	if (v->modes)
		publish_modes(v);
}

static void publish_lag(struct vcpu *v)
{
	v->pub->ctr[RIG_CTR_LAG_NS] = v->lag_ns;
}

static void pace(struct vcpu *v)
{
	int64_t now = now_ns(), model;
	bool want;

	account(v);
	if (dvfs_update(v, now))
		v->pacing = false;		/* re-anchor below */
	v->next_check_fp = v->cyc_fp + v->check_fp;
	want = pace_mode == PACE_ALWAYS ||
	       (pace_mode == PACE_GUEST &&
		(((volatile struct rig_pmu_hdr *)hdr)->ctrl & RIG_CTRL_PACE));
	if (!want) {
		if (v->pacing)
			hdr->flags &= ~RIG_FLAG_PACING;
		v->pacing = false;
		return;
	}
	if (!v->slack_set) {
		/* default 50 us timer slack would swamp short sleeps */
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
		v->slack_set = true;
	}
	if (!v->pacing) {
		v->pacing = true;
		hdr->flags |= RIG_FLAG_PACING;
		anchor(v, now);
		return;
	}
	model = v->anchor_wall +
		(int64_t)((double)(v->cyc_fp - v->anchor_fp) * v->wall_ns_per_fp);
	if (model - now > min_sleep_ns) {
		struct timespec ts = {
			.tv_sec = model / 1000000000,
			.tv_nsec = model % 1000000000,
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		v->slept_ns += model - now;
		v->sleeps++;
	} else if (now - model > max_lag_us * 1000) {
		/* Host too slow (or vCPU was descheduled): forgive the debt
		 * instead of letting the vCPU burst to catch up. */
		v->lag_ns += now - model;
		v->lag_events++;
		publish_lag(v);
		anchor(v, now);
	}
}

/* -------------------------------------------------------------- callbacks */

static void tb_exec(unsigned int vi, void *udata)
{
	const struct tb_info *ti = udata;
	struct vcpu *v = &vcpus[vi];
	int k;

	v->insns += ti->n_insns;
	for (k = 0; k < NR_KINDS; k++)
		v->kinds[k] += ti->kinds[k];
	v->cyc_fp += ti->cost_fp[v->type];
	if (ti->kernel) {
		v->k.insns += ti->n_insns;
		for (k = 0; k < NR_KINDS; k++)
			v->k.kinds[k] += ti->kinds[k];
		v->k.cyc_fp += ti->cost_fp[v->type];
	}
	publish(v);
	if (v->cyc_fp >= v->next_check_fp)
		pace(v);
}

/*
 * L1 is indexed and tagged by guest virtual address (cheap, and real L1s
 * are virtually indexed); only an L1 miss pays for the guest-physical
 * lookup that indexes the LLC.  Cross-process aliases in the L1 are a known
 * simplification.  @udata is non-NULL for an instruction of a kernel-mode
 * block: what it costs is also counted as kernel mode's.
 */
static void mem_access(unsigned int vi, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct vcpu *v = &vcpus[vi];
	struct kcounts *k = udata ? &v->k : NULL;
	struct qemu_plugin_hwaddr *hw;
	uint64_t line, stall;

	v->l1_refs++;
	if (k)
		k->l1_refs++;
	if (cache_access(&v->l1, vaddr >> line_shift))
		return;
	line = vaddr >> line_shift;
	if (use_paddr) {
		hw = qemu_plugin_get_hwaddr(info, vaddr);
		if (hw) {
			if (qemu_plugin_hwaddr_is_io(hw))
				return;		/* MMIO: not cached */
			line = qemu_plugin_hwaddr_phys_addr(hw) >> line_shift;
		}
	}
	v->llc_refs++;
	v->cyc_fp += v->llc_hit_fp;
	if (k) {
		k->llc_refs++;
		k->cyc_fp += v->llc_hit_fp;
	}
	if (cache_access(&v->llc, line))
		return;
	v->llc_misses++;
	/* Store misses drain through the write buffer: charge only a part. */
	stall = qemu_plugin_mem_is_store(info) ? v->store_mem_fp : v->mem_fp;
	v->cyc_fp += stall;
	v->stall_fp += stall;
	if (k) {
		k->llc_misses++;
		k->cyc_fp += stall;
		k->stall_fp += stall;
	}
}

/* The vCPU goes idle (WFI/HLT): close the busy stretch. */
static void vcpu_idle(qemu_plugin_id_t id, unsigned int vi)
{
	struct vcpu *v;

	if (vi >= (unsigned int)nr_vcpus)
		return;
	v = &vcpus[vi];
	account(v);
	v->waking = false;
	v->idle_start = now_ns();
}

/* Idle time (model ns, wall / slowdown) and its energy since @idle_start. */
static void end_idle(struct vcpu *v, int64_t now)
{
	double ns;

	if (!v->idle_start)
		return;
	ns = (double)(now - v->idle_start) / slowdown;
	v->idle_ns += ns;
	v->idle_pj += (double)types[v->type].idle_uw * ns / 1000.0;
	v->idle_start = 0;
}

static void vcpu_resume(qemu_plugin_id_t id, unsigned int vi)
{
	struct vcpu *v;
	int64_t now;

	if (vi >= (unsigned int)nr_vcpus)
		return;
	v = &vcpus[vi];
	now = now_ns();
	if (v->idle_start) {
		end_idle(v, now);
		v->wakeups++;
		v->waking = true;
		publish_acc(v);
	}
	dvfs_update(v, now);
	if (v->pacing)
		anchor(v, now);		/* idle time is not owed */
}

/*
 * Is @va in the kernel's half of the guest's address space? Both guests
 * split it in two and never run code of one half in the other mode:
 * - AArch64: bit 55 selects the translation table (TTBR1_EL1 above, the
 *   kernel's; TTBR0_EL1 below, the process's), whatever the top byte
 *   holds (TBI); Linux maps no user-executable page through TTBR1 and
 *   runs nothing at EL1 from TTBR0 once the MMU is on (PXN on user
 *   pages, PAN).
 * - x86-64: canonical addresses with bit 63 set (0xffff8000... up) are
 *   the kernel's, user space is below 0x00007fff...; the legacy vsyscall
 *   page up there is not executable from user mode (it traps and the
 *   kernel emulates it).
 * Kernel code that runs from low addresses (the identity map while the
 *   MMU is switched on, a CPU coming up, a resume) is counted as user
 *   mode's: it runs once per boot or hotplug, not while a task runs.
 */
static bool kernel_half(uint64_t va)
{
	return kernel_va_bit && (va & kernel_va_bit);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct tb_info *ti = g_new0(struct tb_info, 1);
	double cost[MAX_TYPES] = { 0 };
	int t;

	/* A block never crosses a change of mode: one mode per block. */
	ti->kernel = kernel_half(qemu_plugin_tb_vaddr(tb));

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *data = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		enum insn_class c;
		enum insn_kind k;

		if (is_a64 && len == 4) {
			uint32_t w;

			memcpy(&w, data, 4);
			c = classify_a64(GUINT32_FROM_LE(w), &k);
		} else {
			c = classify_x86(data, len, &k);
		}
		ti->kinds[k]++;
		for (t = 0; t < nr_types; t++)
			cost[t] += types[t].cpi[c];
		/* A64 only touches data memory from the load/store group;
		 * x86 ALU ops take memory operands, so watch every insn. */
		if (model_mem && (!is_a64 || c == C_LDST))
			qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 ti->kernel ? ti : NULL);
	}
	ti->n_insns = n;
	for (t = 0; t < nr_types; t++)
		ti->cost_fp[t] = (uint32_t)lround(cost[t] * FP_ONE);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     ti);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

static void report(qemu_plugin_id_t id, void *p)
{
	GString *s = g_string_new(NULL);
	int64_t now = now_ns();
	FILE *f;
	int i;

	g_string_append_printf(s, "rig: topology=%s slowdown=%u mem_latency_ns=%u "
			       "dvfs_latency_us=%g dvfs_ramp_mhz_per_us=%g low_clock_pct=%u\n",
			       topo_name, slowdown, mem_latency_ns, dvfs_latency_us,
			       dvfs_ramp_mhz_per_us, low_clock_pct);
	g_string_append(s, "rig: vcpu type freq_mhz instructions cycles l1_refs "
			"llc_refs llc_misses stall_cycles ipc slept_ms lag_ms "
			"lag_events\n");
	for (i = 0; i < nr_vcpus; i++) {
		struct vcpu *v = &vcpus[i];
		uint64_t cyc = v->cyc_fp >> FP_SHIFT;

		g_string_append_printf(s,
			"rig: %d %s %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %.3f %.1f %.1f %" PRIu64 "\n",
			i, types[v->type].name, v->freq_mhz, v->insns, cyc,
			v->l1_refs, v->llc_refs, v->llc_misses,
			v->stall_fp >> FP_SHIFT,
			cyc ? (double)v->insns / cyc : 0.0,
			v->slept_ns / 1e6, v->lag_ns / 1e6, v->lag_events);
	}
	/* Every vCPU has stopped: fold what is left of their stretches. */
	g_string_append(s, "rig: vcpu domain busy_ms idle_ms dyn_mj idle_mj "
			"energy_mj low_pct wake_low_pct wakeups\n");
	for (i = 0; i < nr_vcpus; i++) {
		struct vcpu *v = &vcpus[i];

		account(v);
		end_idle(v, now);
		g_string_append_printf(s,
			"rig: %d %u %.3f %.3f %.3f %.3f %.3f %.1f %.1f %" PRIu64 "\n",
			i, v->pub->domain, v->busy_ns / 1e6, v->idle_ns / 1e6,
			v->dyn_pj / 1e9, v->idle_pj / 1e9,
			(v->dyn_pj + v->idle_pj) / 1e9, pct(v->low_ns, v->busy_ns),
			pct(v->wake_low_ns, v->busy_ns), v->wakeups);
	}
	if (kernel_va_bit) {
		g_string_append(s, "rig: vcpu kernel_instructions kernel_cycles "
				"kernel_insn_pct kernel_cycle_pct\n");
		for (i = 0; i < nr_vcpus; i++) {
			struct vcpu *v = &vcpus[i];

			g_string_append_printf(s,
				"rig: %d %" PRIu64 " %" PRIu64 " %.1f %.1f\n", i,
				v->k.insns, v->k.cyc_fp >> FP_SHIFT,
				pct(v->k.insns, v->insns), pct(v->k.cyc_fp, v->cyc_fp));
		}
	}
	/* qemu_plugin_outs() needs "-d plugin"; stderr always works */
	fputs(s->str, stderr);
	if (stats_path) {
		f = fopen(stats_path, "w");
		if (f) {
			fputs(s->str, f);
			fclose(f);
		}
	}
	g_string_free(s, TRUE);
}

/* ---------------------------------------------------------- configuration */

/*
 * Optional key of [@group] as a list of integers separated by blanks or
 * commas (GKeyFile's lists take ';'); NULL if absent, *@bad on a bad one.
 */
static gint *int_list(GKeyFile *kf, const char *group, const char *key,
		      gsize *n, bool *bad)
{
	gchar *val = g_key_file_get_string(kf, group, key, NULL);
	gchar **tok;
	gint *l;
	gsize i;

	*n = 0;
	if (!val)
		return NULL;
	tok = g_strsplit_set(g_strstrip(val), " \t,", -1);
	l = g_new0(gint, g_strv_length(tok) + 1);
	for (i = 0; tok[i]; i++) {
		char *end;
		long v;

		if (!*tok[i])
			continue;
		v = strtol(tok[i], &end, 10);
		if (*end || v < 0 || v > G_MAXINT) {
			fprintf(stderr, "rig: [%s] %s: '%s' is not a number\n", group,
				key, tok[i]);
			*bad = true;
			break;
		}
		l[(*n)++] = (gint)v;
	}
	g_strfreev(tok);
	g_free(val);
	if (*bad) {
		g_free(l);
		return NULL;
	}
	return l;
}

/* Optional non-negative integer key of [@group]; @def if absent. */
static bool opt_uint(GKeyFile *kf, const char *group, const char *key,
		     uint32_t def, uint32_t *out)
{
	GError *err = NULL;
	gint v = g_key_file_get_integer(kf, group, key, &err);

	if (err) {
		bool absent = g_error_matches(err, G_KEY_FILE_ERROR,
					      G_KEY_FILE_ERROR_KEY_NOT_FOUND);

		if (!absent)
			fprintf(stderr, "rig: [%s] %s: %s\n", group, key, err->message);
		g_error_free(err);
		*out = def;
		return absent;
	}
	if (v < 0) {
		fprintf(stderr, "rig: [%s] %s must not be negative\n", group, key);
		return false;
	}
	*out = v;
	return true;
}

/*
 * The type's operating points: opp_mhz (ascending, the last one its
 * freq_mhz) and opp_mv (one voltage each, for the energy model); without
 * them one OPP at freq_mhz, 1000 mV. dyn_power (uW/MHz/V^2, the device
 * tree's dynamic-power-coefficient) and idle_uw are 0 when absent.
 */
static bool load_opps(GKeyFile *kf, const char *group, struct core_type *t)
{
	gsize nf = 0, nv = 0, i;
	bool bad = false, ok = false;
	gint *f = int_list(kf, group, "opp_mhz", &nf, &bad);
	gint *mv = bad ? NULL : int_list(kf, group, "opp_mv", &nv, &bad);

	if (bad)
		goto out;
	if (!f && !mv) {
		t->nr_opps = 1;
		t->opp[0].mhz = t->freq_mhz;
		t->opp[0].mv = 1000;
	} else if (!f || !mv || nf != nv || !nf || nf > RIG_PMU_MAX_OPPS) {
		fprintf(stderr, "rig: [%s] opp_mhz and opp_mv need the same number "
			"of entries (1..%u)\n", group, RIG_PMU_MAX_OPPS);
		goto out;
	} else {
		for (i = 0; i < nf; i++) {
			if (f[i] < (gint)RIG_PMU_FREQ_MIN_MHZ ||
			    f[i] > (gint)RIG_PMU_FREQ_MAX_MHZ ||
			    (i && f[i] <= f[i - 1]) || mv[i] < 100 || mv[i] > 5000) {
				fprintf(stderr, "rig: [%s] opp %zu: %d MHz %d mV: clocks "
					"ascending in %u..%u, voltages 100..5000\n",
					group, i, f[i], mv[i], RIG_PMU_FREQ_MIN_MHZ,
					RIG_PMU_FREQ_MAX_MHZ);
				goto out;
			}
			t->opp[i].mhz = f[i];
			t->opp[i].mv = mv[i];
		}
		t->nr_opps = nf;
		if (t->opp[nf - 1].mhz != t->freq_mhz) {
			fprintf(stderr, "rig: [%s] the last of opp_mhz must be freq_mhz\n",
				group);
			goto out;
		}
	}
	ok = opt_uint(kf, group, "dyn_power", 0, &t->dyn_power) &&
	     opt_uint(kf, group, "idle_uw", 0, &t->idle_uw);
out:
	g_free(f);
	g_free(mv);
	return ok;
}

static bool load_type(GKeyFile *kf, const char *group, struct core_type *t)
{
	GError *err = NULL;
	int c;

	g_strlcpy(t->name, group + 5, sizeof(t->name));
#define GET_U(field, key)						\
	do {								\
		t->field = g_key_file_get_integer(kf, group, key, &err); \
		if (err)						\
			goto bad;					\
	} while (0)
	for (c = 0; c < NR_CLASSES; c++) {
		t->cpi[c] = g_key_file_get_double(kf, group, class_key[c], &err);
		if (err)
			goto bad;
		if (t->cpi[c] < 0 || t->cpi[c] > 1000) {
			fprintf(stderr, "rig: [%s] %s out of range\n", group,
				class_key[c]);
			return false;
		}
	}
	GET_U(freq_mhz, "freq_mhz");
	GET_U(capacity, "capacity");
	GET_U(l1_kb, "l1_kb");
	GET_U(l1_assoc, "l1_assoc");
	GET_U(llc_kb, "llc_kb");
	GET_U(llc_assoc, "llc_assoc");
	t->llc_hit_cycles = g_key_file_get_double(kf, group, "llc_hit_cycles", &err);
	if (err)
		goto bad;
#undef GET_U
	if (t->freq_mhz < RIG_PMU_FREQ_MIN_MHZ ||
	    t->freq_mhz > RIG_PMU_FREQ_MAX_MHZ) {
		fprintf(stderr, "rig: [%s] freq_mhz out of range\n", group);
		return false;
	}
	return load_opps(kf, group, t);
bad:
	fprintf(stderr, "rig: [%s]: %s\n", group, err->message);
	g_error_free(err);
	return false;
}

static int type_index(const char *name)
{
	int i;

	for (i = 0; i < nr_types; i++)
		if (!strcmp(types[i].name, name))
			return i;
	return -1;
}

static uint64_t opt_u64(GKeyFile *kf, const char *key, uint64_t def)
{
	GError *err = NULL;
	gint64 v = g_key_file_get_int64(kf, "rig", key, &err);

	if (err) {
		g_error_free(err);
		return def;
	}
	return v > 0 ? (uint64_t)v : def;
}

/* [rig] @key as a number >= 0 (0 allowed, unlike opt_u64()). */
static bool opt_double(GKeyFile *kf, const char *key, double max, double *out)
{
	GError *err = NULL;
	double v = g_key_file_get_double(kf, "rig", key, &err);

	if (err) {
		bool absent = g_error_matches(err, G_KEY_FILE_ERROR,
					      G_KEY_FILE_ERROR_KEY_NOT_FOUND);

		if (!absent)
			fprintf(stderr, "rig: [rig] %s: %s\n", key, err->message);
		g_error_free(err);
		return absent;
	}
	if (!(v >= 0 && v <= max)) {
		fprintf(stderr, "rig: [rig] %s must be in 0..%g\n", key, max);
		return false;
	}
	*out = v;
	return true;
}

static bool parse_pace(const char *s, enum pace_mode *m)
{
	if (!strcmp(s, "always"))
		*m = PACE_ALWAYS;
	else if (!strcmp(s, "guest"))
		*m = PACE_GUEST;
	else if (!strcmp(s, "off"))
		*m = PACE_OFF;
	else
		return false;
	return true;
}

/* Returns the per-vCPU type list of the chosen topology, or NULL. */
static gchar **load_config(const char *path, const char *topo)
{
	GKeyFile *kf = g_key_file_new();
	GError *err = NULL;
	gchar **groups, **list = NULL, *val = NULL, *ps;
	gsize ng, i;
	double d;

	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &err)) {
		fprintf(stderr, "rig: %s: %s\n", path, err->message);
		g_error_free(err);
		goto out;
	}
	slowdown = opt_u64(kf, "slowdown", slowdown);
	mem_latency_ns = opt_u64(kf, "mem_latency_ns", mem_latency_ns);
	check_us = opt_u64(kf, "check_us", check_us);
	max_lag_us = opt_u64(kf, "max_lag_us", max_lag_us);
	line_shift = opt_u64(kf, "line_shift", line_shift);
	d = g_key_file_get_double(kf, "rig", "store_stall", &err);
	if (err)
		g_clear_error(&err);
	else if (d >= 0 && d <= 1)
		store_stall = d;
	ps = g_key_file_get_string(kf, "rig", "pace", NULL);
	if (ps && !parse_pace(g_strstrip(ps), &pace_mode)) {
		fprintf(stderr, "rig: bad pace=%s\n", ps);
		g_free(ps);
		goto out;
	}
	g_free(ps);
	if (line_shift < 4 || line_shift > 8) {
		fprintf(stderr, "rig: line_shift out of range\n");
		goto out;
	}
	d = low_clock_pct;
	if (!opt_double(kf, "dvfs_latency_us", 1e6, &dvfs_latency_us) ||
	    !opt_double(kf, "dvfs_ramp_mhz_per_us", 1e6, &dvfs_ramp_mhz_per_us) ||
	    !opt_double(kf, "low_clock_pct", 100, &d))
		goto out;
	low_clock_pct = (uint32_t)d;

	groups = g_key_file_get_groups(kf, &ng);
	for (i = 0; i < ng; i++) {
		if (strncmp(groups[i], "type.", 5))
			continue;
		if (nr_types == MAX_TYPES) {
			fprintf(stderr, "rig: too many core types\n");
			g_strfreev(groups);
			goto out;
		}
		if (!load_type(kf, groups[i], &types[nr_types])) {
			g_strfreev(groups);
			goto out;
		}
		nr_types++;
	}
	g_strfreev(groups);
	if (!nr_types) {
		fprintf(stderr, "rig: no [type.*] section in %s\n", path);
		goto out;
	}

	if (!topo || !*topo) {
		val = g_key_file_get_string(kf, "topology", "default", &err);
		if (!val) {
			fprintf(stderr, "rig: no topology= and no [topology] default\n");
			g_clear_error(&err);
			goto out;
		}
		topo = g_strstrip(val);
	}
	g_strlcpy(topo_name, topo, sizeof(topo_name));
	g_free(val);
	val = g_key_file_get_string(kf, "topology", topo_name, &err);
	if (!val) {
		fprintf(stderr, "rig: topology '%s' not in [topology]\n", topo_name);
		g_clear_error(&err);
		goto out;
	}
	list = g_strsplit_set(g_strstrip(val), " \t,", -1);
	/* optional clock domains of this topology (default: one per type) */
	g_free(val);
	val = g_key_file_get_string(kf, "domains", topo_name, NULL);
	if (val)
		domain_list = g_strsplit_set(g_strstrip(val), " \t,", -1);
out:
	g_free(val);
	g_key_file_free(kf);
	return list;
}

static bool map_shm(const char *path, int n)
{
	int fd;
	struct stat st;

	if (!path) {
		shm_len = RIG_PMU_SHM_SIZE;
		hdr = g_malloc0(shm_len);
		return true;
	}
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "rig: %s: %s\n", path, strerror(errno));
		return false;
	}
	if (st.st_size < RIG_PMU_SHM_SIZE &&
	    ftruncate(fd, RIG_PMU_SHM_SIZE)) {
		fprintf(stderr, "rig: %s: %s\n", path, strerror(errno));
		close(fd);
		return false;
	}
	shm_len = RIG_PMU_SHM_SIZE;
	hdr = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (hdr == MAP_FAILED) {
		fprintf(stderr, "rig: mmap %s: %s\n", path, strerror(errno));
		return false;
	}
	memset(hdr, 0, shm_len);
	return true;
}

/* The plugin's arguments, as given on QEMU's command line. */
struct rig_args {
	const char *config, *topo, *shm, *pace;
};

/* Parse "key=value" arguments into @a (and the globals they set). */
static bool parse_args(int argc, char **argv, struct rig_args *a)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "rig: bad argument '%s'\n", argv[i]);
			return false;
		}
		*eq = '\0';
		if (!strcmp(argv[i], "config"))
			a->config = eq + 1;
		else if (!strcmp(argv[i], "topology"))
			a->topo = eq + 1;
		else if (!strcmp(argv[i], "shm"))
			a->shm = eq + 1;
		else if (!strcmp(argv[i], "stats"))
			stats_path = g_strdup(eq + 1);
		else if (!strcmp(argv[i], "pace"))
			a->pace = eq + 1;
		else if (!strcmp(argv[i], "paddr"))
			qemu_plugin_bool_parse(argv[i], eq + 1, &use_paddr);
		else if (!strcmp(argv[i], "mem"))
			qemu_plugin_bool_parse(argv[i], eq + 1, &model_mem);
		else {
			fprintf(stderr, "rig: unknown argument '%s'\n", argv[i]);
			return false;
		}
	}
	if (!a->config) {
		fprintf(stderr, "rig: config=FILE is required\n");
		return false;
	}
	if (a->pace && !parse_pace(a->pace, &pace_mode)) {
		fprintf(stderr, "rig: bad pace=%s\n", a->pace);
		return false;
	}
	return true;
}

/* vCPU @i runs as core type @name: its caches, clock and published page. */
static bool vcpu_init(int i, const char *name)
{
	struct vcpu *v = &vcpus[i];
	struct rig_pmu_cpu *pub = (void *)((char *)hdr + RIG_PMU_CPU_OFFSET +
					   i * RIG_PMU_CPU_STRIDE);
	const struct core_type *t;

	v->type = type_index(name);
	if (v->type < 0) {
		fprintf(stderr, "rig: topology '%s': unknown core type '%s'\n",
			topo_name, name);
		return false;
	}
	t = &types[v->type];
	if (!cache_init(&v->l1, t->l1_kb, t->l1_assoc) ||
	    !cache_init(&v->llc, t->llc_kb, t->llc_assoc)) {
		fprintf(stderr, "rig: [type.%s]: cache size/assoc must give a power-of-two set count\n",
			t->name);
		return false;
	}
	v->pub = pub;
	if (kernel_va_bit)
		v->modes = (void *)((char *)hdr + RIG_PMU_MODE_OFFSET +
				    i * RIG_PMU_MODE_STRIDE);
	pub->type = v->type;
	pub->capacity = t->capacity;
	pub->freq_cfg_mhz = t->freq_mhz;
	g_strlcpy(pub->type_name, t->name, sizeof(pub->type_name));
	pub->domain = v->type;
	if (domain_list) {
		char *end;
		long d = (long)g_strv_length(domain_list) > i ?
			 strtol(domain_list[i], &end, 10) : -1;

		if (d < 0 || d >= (long)RIG_PMU_MAX_CPUS || *end) {
			fprintf(stderr, "rig: [domains] %s: vCPU %d needs a domain 0..%u\n",
				topo_name, i, RIG_PMU_MAX_CPUS - 1);
			return false;
		}
		pub->domain = d;
	}
	pub->nr_opps = t->nr_opps;
	memcpy(pub->opp, t->opp, sizeof(pub->opp));
	pub->dyn_power = t->dyn_power;
	pub->idle_uw = t->idle_uw;
	v->target_mhz = t->freq_mhz;
	pub->target_mhz = t->freq_mhz;
	v->low_mhz = (uint32_t)((uint64_t)t->freq_mhz * low_clock_pct / 100);
	set_freq(v, t->freq_mhz);
	v->next_check_fp = v->check_fp;
	return true;
}

/* One clock domain runs one core type: it has one OPP table. */
static bool domains_check(void)
{
	int i, j;

	for (i = 0; i < nr_vcpus; i++)
		for (j = 0; j < i; j++)
			if (vcpus[i].pub->domain == vcpus[j].pub->domain &&
			    vcpus[i].type != vcpus[j].type) {
				fprintf(stderr, "rig: [domains] %s: vCPUs %d and %d share "
					"a clock domain but not a core type\n",
					topo_name, j, i);
				return false;
			}
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	struct rig_args a = {};
	gchar **list;
	int i, n;

	if (!parse_args(argc, argv, &a))
		return -1;
	if (!info->system_emulation) {
		fprintf(stderr, "rig: needs system emulation\n");
		return -1;
	}
	is_a64 = !strcmp(info->target_name, "aarch64");
	/* kernel_half(): the other targets' modes are not told apart */
	if (is_a64)
		kernel_va_bit = 1ull << 55;
	else if (!strcmp(info->target_name, "x86_64"))
		kernel_va_bit = 1ull << 63;
	list = load_config(a.config, a.topo);
	if (!list)
		return -1;
	n = info->system.max_vcpus;
	if (n > (int)RIG_PMU_MAX_CPUS || (int)g_strv_length(list) < n) {
		fprintf(stderr, "rig: topology '%s' lists %u cores, guest has %d vCPUs\n",
			topo_name, g_strv_length(list), n);
		return -1;
	}
	if (!map_shm(a.shm, n))
		return -1;
	nr_vcpus = n;
	vcpus = g_new0(struct vcpu, n);
	for (i = 0; i < n; i++)
		if (!vcpu_init(i, list[i]))
			return -1;
	g_strfreev(list);
	g_strfreev(domain_list);
	if (!domains_check())
		return -1;
	hdr->version = RIG_PMU_VERSION;
	hdr->nr_cpus = n;
	hdr->cpu_offset = RIG_PMU_CPU_OFFSET;
	hdr->cpu_stride = RIG_PMU_CPU_STRIDE;
	hdr->slowdown = slowdown;
	hdr->mem_latency_ns = mem_latency_ns;
	hdr->dvfs_latency_us = (uint32_t)lround(dvfs_latency_us);
	hdr->dvfs_ramp_khz_per_us = (uint32_t)lround(dvfs_ramp_mhz_per_us * 1000);
	hdr->low_clock_pct = low_clock_pct;
	if (kernel_va_bit) {
		hdr->features = RIG_FEAT_MODES;
		hdr->mode_offset = RIG_PMU_MODE_OFFSET;
		hdr->mode_stride = RIG_PMU_MODE_STRIDE;
	}
	__atomic_store_n(&hdr->magic, RIG_PMU_MAGIC, __ATOMIC_RELEASE);

	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_vcpu_idle_cb(id, vcpu_idle);
	qemu_plugin_register_vcpu_resume_cb(id, vcpu_resume);
	qemu_plugin_register_atexit_cb(id, report, NULL);
	return 0;
}
