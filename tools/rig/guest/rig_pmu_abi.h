/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rig_pmu_abi.h - layout of the shared-memory page between the rig's QEMU
 * TCG plugin (host, writer of counters) and the guest rig_pmu driver
 * (reader of counters, writer of control words).  The page is exposed to
 * the guest as BAR2 of an ivshmem-plain PCI device (1af4:1110).
 *
 * All fields are little-endian (host and guest are both LE).  Counters are
 * naturally aligned 64-bit words written with single stores by the vCPU
 * thread that owns them, so a 64-bit load in the guest never tears.
 *
 * Version 2 added the clock (OPP table, clock domain, DVFS timing), the
 * constant-rate reference counter, energy, the low-clock accounting and
 * the instruction-class counters, and made a per-CPU record 512 bytes.
 * Later version 2 plugins also count by privilege mode (RIG_FEAT_MODES):
 * the header's features, mode_offset and mode_stride were reserved words
 * (0) before, and the per-mode records sit past the last per-CPU record,
 * so a reader that knows nothing of them is unaffected.
 */
#ifndef RIG_PMU_ABI_H
#define RIG_PMU_ABI_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef __u32 rig_u32;
typedef __u64 rig_u64;
#else
#include <stdint.h>
typedef uint32_t rig_u32;
typedef uint64_t rig_u64;
#endif

#define RIG_PMU_MAGIC		0x554d5052u	/* "RPMU" */
#define RIG_PMU_VERSION		2u
#define RIG_PMU_SHM_SIZE	65536u		/* power of two (PCI BAR) */
#define RIG_PMU_CPU_OFFSET	256u		/* first per-CPU record */
#define RIG_PMU_CPU_STRIDE	512u		/* eight host cache lines */
#define RIG_PMU_MAX_CPUS	64u
#define RIG_PMU_MAX_OPPS	16u

/*
 * Rate of the reference counter (RIG_CTR_REF_CYCLES): one count per
 * modelled nanosecond while the CPU is not idle, whatever its clock, as
 * x86's MPERF counts at a fixed rate and arm64's AMU constant counter at
 * the system counter's (fixed at 1 GHz from Armv8.6).
 */
#define RIG_PMU_REF_HZ		1000000000u

/*
 * Counter indices inside struct rig_pmu_cpu.ctr[]:
 *  CYCLES: core clock cycles (what APERF and AMU's core counter count)
 *  STALL_CYCLES: memory (backend) stall cycles
 *  L1_REFS: data accesses seen by the L1 model
 *  LAG_NS: wall ns behind the model, forgiven (host too busy for the pace)
 *  REF_CYCLES: RIG_PMU_REF_HZ while not idle (MPERF, AMU's constant
 *	counter), i.e. busy modelled ns
 *  ENERGY_DYN_PJ: dynamic energy, coefficient x V^2 per cycle at the OPP in
 *	force (the energy model's power x busy time), pJ
 *  ENERGY_IDLE_PJ: idle (WFI/HLT) power x idle time, pJ
 *  IDLE_NS: modelled ns idle
 *  LOW_NS: busy ns at a low clock (below low_clock_pct of the top OPP)
 *  WAKE_LOW_NS: of those, the busy ns after a wakeup from idle before the
 *	clock first came up
 *  WAKEUPS: resumes from idle
 *  CLS_*: retired instructions by class (tools/rig/README.md, "PMU")
 * Reserved ones read as 0.
 */
enum rig_pmu_counter {
	RIG_CTR_INSTRUCTIONS = 0,
	RIG_CTR_CYCLES = 1,
	RIG_CTR_LLC_REFS = 2,
	RIG_CTR_LLC_MISSES = 3,
	RIG_CTR_STALL_CYCLES = 4,
	RIG_CTR_L1_REFS = 5,
	RIG_CTR_LAG_NS = 6,
	RIG_CTR_RESERVED7 = 7,
	RIG_CTR_REF_CYCLES = 8,
	RIG_CTR_ENERGY_DYN_PJ = 9,
	RIG_CTR_ENERGY_IDLE_PJ = 10,
	RIG_CTR_IDLE_NS = 11,
	RIG_CTR_LOW_NS = 12,
	RIG_CTR_WAKE_LOW_NS = 13,
	RIG_CTR_WAKEUPS = 14,
	RIG_CTR_RESERVED15 = 15,
	RIG_CTR_CLS_ALU = 16,		/* integer ALU, incl. system insns */
	RIG_CTR_CLS_LDST = 17,		/* loads and stores */
	RIG_CTR_CLS_BRANCH = 18,	/* branches (and exception generation) */
	RIG_CTR_CLS_MUL = 19,		/* integer multiply(-add) */
	RIG_CTR_CLS_IDIV = 20,		/* integer divide */
	RIG_CTR_CLS_FDIV = 21,		/* scalar FP divide / square root (A64) */
	RIG_CTR_CLS_VFP = 22,		/* other scalar floating point */
	RIG_CTR_CLS_ASE = 23,		/* SIMD (Advanced SIMD, SSE/MMX) */
	RIG_NR_COUNTERS = 32		/* 24..31 reserved */
};

/*
 * Frequencies the plugin accepts, in a [type.*] section and in
 * freq_req_mhz (a request outside them is ignored).
 */
#define RIG_PMU_FREQ_MIN_MHZ	10u
#define RIG_PMU_FREQ_MAX_MHZ	10000u

/*
 * Counting by privilege mode (hdr.features & RIG_FEAT_MODES): per CPU, a
 * struct rig_pmu_modes at hdr.mode_offset + cpu * hdr.mode_stride holds,
 * for each counter index below RIG_PMU_MODE_COUNTERS that is in
 * RIG_PMU_MODE_SPLIT, the part of ctr[] counted while the CPU ran user
 * code and the part counted while it ran kernel code; the two add up to
 * ctr[] (each is written on its own, so each is monotonic). Other indices
 * read as 0. The plugin tells the modes apart by the address a translation
 * block runs from: the upper half of the virtual address space is the
 * kernel's (tools/rig/README.md, "Privilege modes").
 */
enum rig_pmu_mode {
	RIG_MODE_USER = 0,
	RIG_MODE_KERNEL = 1,
	RIG_NR_MODES = 2
};

#define RIG_PMU_MODE_COUNTERS	24u	/* ctr[] indices 0..23 */
#define RIG_PMU_MODE_OFFSET	(RIG_PMU_CPU_OFFSET + \
				 RIG_PMU_MAX_CPUS * RIG_PMU_CPU_STRIDE)
#define RIG_PMU_MODE_STRIDE	(RIG_NR_MODES * RIG_PMU_MODE_COUNTERS * 8u)
#define RIG_PMU_MODE_SPLIT						\
	((1u << RIG_CTR_INSTRUCTIONS) | (1u << RIG_CTR_CYCLES) |	\
	 (1u << RIG_CTR_LLC_REFS) | (1u << RIG_CTR_LLC_MISSES) |	\
	 (1u << RIG_CTR_STALL_CYCLES) | (1u << RIG_CTR_L1_REFS) |	\
	 (1u << RIG_CTR_REF_CYCLES) | (0xffu << RIG_CTR_CLS_ALU))

/**
 * struct rig_pmu_modes - one CPU's counters by privilege mode.
 * @ctr: ctr[RIG_MODE_USER][i] + ctr[RIG_MODE_KERNEL][i] is the per-CPU
 *	record's ctr[i], for i in RIG_PMU_MODE_SPLIT.
 */
struct rig_pmu_modes {
	rig_u64 ctr[RIG_NR_MODES][RIG_PMU_MODE_COUNTERS];
};

/* hdr.features bits, written by the plugin before hdr.magic. */
#define RIG_FEAT_MODES		0x1u	/* struct rig_pmu_modes published */

/* hdr.ctrl bits, written by the guest. */
#define RIG_CTRL_PACE		0x1u	/* request wall-clock pacing */

/* hdr.flags bits, written by the plugin. */
#define RIG_FLAG_PACING		0x1u	/* pacing currently active */

/**
 * struct rig_pmu_hdr - header at offset 0 of the shared page.
 * @magic: RIG_PMU_MAGIC once the plugin has initialised the page.
 * @version: RIG_PMU_VERSION.
 * @nr_cpus: number of per-CPU records that follow (one per vCPU).
 * @cpu_offset: byte offset of record 0 (RIG_PMU_CPU_OFFSET).
 * @cpu_stride: bytes between records (RIG_PMU_CPU_STRIDE).
 * @ctrl: guest-written control bits (RIG_CTRL_*), polled by the plugin.
 * @flags: plugin-written state bits (RIG_FLAG_*).
 * @slowdown: wall-clock nanoseconds per modelled nanosecond.
 * @mem_latency_ns: modelled memory latency (model time).
 * @dvfs_latency_us: modelled microseconds from a new clock request to the
 *	clock starting to move (voltage settling, PLL relock).
 * @dvfs_ramp_khz_per_us: then the clock moves by this much per modelled
 *	microsecond (0: in one step).
 * @low_clock_pct: a clock below this share of the core type's top OPP
 *	counts as low (RIG_CTR_LOW_NS, RIG_CTR_WAKE_LOW_NS).
 * @features: RIG_FEAT_* (0 from plugins that predate them).
 * @mode_offset: byte offset of CPU 0's struct rig_pmu_modes
 *	(RIG_PMU_MODE_OFFSET), 0 without RIG_FEAT_MODES.
 * @mode_stride: bytes between them (RIG_PMU_MODE_STRIDE).
 */
struct rig_pmu_hdr {
	rig_u32 magic;
	rig_u32 version;
	rig_u32 nr_cpus;
	rig_u32 cpu_offset;
	rig_u32 cpu_stride;
	rig_u32 ctrl;
	rig_u32 flags;
	rig_u32 slowdown;
	rig_u32 mem_latency_ns;
	rig_u32 dvfs_latency_us;
	rig_u32 dvfs_ramp_khz_per_us;
	rig_u32 low_clock_pct;
	rig_u32 features;
	rig_u32 mode_offset;
	rig_u32 mode_stride;
	rig_u32 reserved[1];
};

/**
 * struct rig_pmu_opp - one operating point of a core type (rig.conf).
 * @mhz: clock.
 * @mv: supply voltage at that clock (energy model).
 */
struct rig_pmu_opp {
	rig_u32 mhz;
	rig_u32 mv;
};

/**
 * struct rig_pmu_cpu - per-vCPU record, owned by that vCPU's TCG thread.
 * @ctr: free-running modelled counters, see enum rig_pmu_counter.
 * @type: core type index in the rig configuration (0 = first [type.*]).
 * @freq_mhz: modelled clock currently in force.
 * @freq_req_mhz: guest-written clock request (0 = configured default),
 *	taken by the vCPU's thread at its next pacing check (or when it
 *	leaves idle), then reached after the DVFS latency and ramp.
 * @capacity: configured capacity-dmips-mhz of the core type.
 * @type_name: NUL-terminated core type name ("big", "little", ...).
 * @freq_cfg_mhz: configured clock of the core type (its freq_mhz).
 * @target_mhz: the clock the vCPU is moving to (the request it took).
 * @domain: clock domain: vCPUs with the same value share one clock
 *	(by default one domain per core type: a cluster).
 * @nr_opps: entries of @opp in use, lowest clock first.
 * @dyn_power: dynamic-power-coefficient (uW/MHz/V^2), as in the device
 *	tree's energy model; 0 = no energy model for this type.
 * @idle_uw: power while idle (WFI/HLT), uW.
 * @opp: the core type's operating points.
 */
struct rig_pmu_cpu {
	rig_u64 ctr[RIG_NR_COUNTERS];
	rig_u32 type;
	rig_u32 freq_mhz;
	rig_u32 freq_req_mhz;
	rig_u32 capacity;
	char type_name[16];
	rig_u32 freq_cfg_mhz;
	rig_u32 target_mhz;
	rig_u32 domain;
	rig_u32 nr_opps;
	rig_u32 dyn_power;
	rig_u32 idle_uw;
	rig_u32 reserved[6];
	struct rig_pmu_opp opp[RIG_PMU_MAX_OPPS];
};

#endif /* RIG_PMU_ABI_H */
