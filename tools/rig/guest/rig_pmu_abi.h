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
#define RIG_PMU_VERSION		1u
#define RIG_PMU_SHM_SIZE	65536u		/* power of two (PCI BAR) */
#define RIG_PMU_CPU_OFFSET	256u		/* first per-CPU record */
#define RIG_PMU_CPU_STRIDE	128u		/* two host cache lines */
#define RIG_PMU_MAX_CPUS	64u

/* Counter indices inside struct rig_pmu_cpu.ctr[] (also raw event codes). */
enum rig_pmu_counter {
	RIG_CTR_INSTRUCTIONS = 0,
	RIG_CTR_CYCLES = 1,
	RIG_CTR_LLC_REFS = 2,
	RIG_CTR_LLC_MISSES = 3,
	RIG_CTR_STALL_CYCLES = 4,	/* memory (backend) stall cycles */
	RIG_CTR_L1_REFS = 5,		/* data accesses seen by the L1 model */
	RIG_CTR_LAG_NS = 6,		/* wall ns behind the model, forgiven:
					 * host too busy to keep the pace */
	RIG_NR_COUNTERS = 8		/* 7 reserved (reads as 0) */
};

/*
 * Frequencies the plugin accepts, in a [type.*] section and in
 * freq_req_mhz (a request outside them is ignored).
 */
#define RIG_PMU_FREQ_MIN_MHZ	10u
#define RIG_PMU_FREQ_MAX_MHZ	10000u

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
	rig_u32 reserved[7];
};

/**
 * struct rig_pmu_cpu - per-vCPU record, owned by that vCPU's TCG thread.
 * @ctr: free-running modelled counters, see enum rig_pmu_counter.
 * @type: core type index in the rig configuration (0 = first [type.*]).
 * @freq_mhz: modelled frequency currently in force.
 * @freq_req_mhz: guest-written frequency request (0 = configured default),
 *	applied by the vCPU's thread at its next pacing check.
 * @capacity: configured capacity-dmips-mhz of the core type.
 * @type_name: NUL-terminated core type name ("big", "little", ...).
 * @freq_cfg_mhz: configured frequency of the core type (was reserved
 *	space, so a plugin older than this field leaves it 0).
 */
struct rig_pmu_cpu {
	rig_u64 ctr[RIG_NR_COUNTERS];
	rig_u32 type;
	rig_u32 freq_mhz;
	rig_u32 freq_req_mhz;
	rig_u32 capacity;
	char type_name[16];
	rig_u32 freq_cfg_mhz;
};

#endif /* RIG_PMU_ABI_H */
