/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events per core model: which hardware event gives the model's
 * last-level misses and memory-bound stall cycles on a given core, with
 * the fallback chain where a core has not got the best one and what each
 * fallback costs the model. Pure data and lookups with no kernel
 * dependency: the same evtab.c is built into sbridge_pmu and into the host
 * unit tests (tests/unit/test_evtab.c). docs/pmu-events.md is the table
 * in prose, with the sources.
 *
 * The cycles and instructions kinds need no table: the generic perf
 * events are right on every PMU here (CPU_CYCLES 0x11 and INST_RETIRED
 * 0x08 on Arm PMUv3; the fixed counters on Intel; the core PMU's on AMD).
 */
#ifndef _SBRIDGE_PMU_EVTAB_H
#define _SBRIDGE_PMU_EVTAB_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#endif

/* The generic perf event of the kind (PERF_TYPE_HARDWARE), not a raw code. */
#define SBRIDGE_EVTAB_GENERIC	(~0ULL)
/* Longest fallback chain, without its terminating NULL. */
#define SBRIDGE_EVTAB_CHAIN	4

/* The kinds the table covers (indices of sbridge_evtab_core.chain). */
enum sbridge_evtab_kind {
	SBRIDGE_EVTAB_LLC,	/* last-level cache misses (reads, ideally) */
	SBRIDGE_EVTAB_STALL,	/* cycles stalled on memory */
	SBRIDGE_EVTAB_NR_KINDS,
};

/* Instruction set of a CPU description. */
enum sbridge_evtab_arch {
	SBRIDGE_EVTAB_ARCH_OTHER = 0,
	SBRIDGE_EVTAB_ARCH_ARM64,
	SBRIDGE_EVTAB_ARCH_INTEL,
	SBRIDGE_EVTAB_ARCH_AMD,
};

/**
 * struct sbridge_evtab_event - one hardware event
 * @name: the architecture manual's name, e.g. "LL_CACHE_MISS_RD"
 * @config: raw perf_event_attr.config on the core's PMU, or
 *	SBRIDGE_EVTAB_GENERIC for the kind's generic perf event
 * @common: an Arm PMUv3 common event the core advertises in PMCEID0/1
 *	(so the PMU driver's bitmap says whether it exists); false for
 *	IMPLEMENTATION DEFINED and x86 events, which are trusted by model
 * @cost: what using it instead of the ideal event costs the model
 */
struct sbridge_evtab_event {
	const char *name;
	u64 config;
	bool common;
	const char *cost;
};

/**
 * struct sbridge_evtab_core - one core model
 * @name: marketing name, e.g. "Cortex-A55"
 * @arch: enum sbridge_evtab_arch
 * @id: arm64: MIDR implementer << 12 | part number; x86: family (any
 *	model in [@model_lo, @model_hi])
 * @model_lo: x86 lowest model number (0 on arm64)
 * @model_hi: x86 highest model number (0 on arm64)
 * @pmu: x86 hybrid: the PMU name the core type's events live on
 *	("cpu_core", "cpu_atom"); NULL matches any
 * @chain: per kind, the events to try in order, NULL-terminated; the
 *	first the PMU has wins. An empty chain: the kind is not counted
 * @amu: the core implements the Activity Monitors (FEAT_AMUv1)
 */
struct sbridge_evtab_core {
	const char *name;
	u8 arch;
	u32 id;
	u8 model_lo, model_hi;
	const char *pmu;
	const struct sbridge_evtab_event *chain[SBRIDGE_EVTAB_NR_KINDS][SBRIDGE_EVTAB_CHAIN + 1];
	bool amu;
};

/**
 * struct sbridge_evtab_cpu - what identifies a CPU's core model
 * @arch: enum sbridge_evtab_arch
 * @midr: arm64 MIDR_EL1 (0 if unknown)
 * @family: x86 family (displayed, i.e. with the extended family added)
 * @model: x86 model (displayed)
 * @pmu: name of the PMU of the CPU's cycle counter ("" if none)
 */
struct sbridge_evtab_cpu {
	u8 arch;
	u32 midr;
	u32 family;
	u32 model;
	const char *pmu;
};

/* Arm implementer << 12 | part number, as @id of a core (Arm Ltd is 0x41). */
#define SBRIDGE_EVTAB_MIDR_ID(midr)	((((midr) >> 24) & 0xff) << 12 | \
					 (((midr) >> 4) & 0xfff))

const struct sbridge_evtab_core *sbridge_evtab_find(const struct sbridge_evtab_cpu *cpu);
const struct sbridge_evtab_event *
sbridge_evtab_pick(const struct sbridge_evtab_core *core, unsigned int kind,
		   bool (*has)(const struct sbridge_evtab_event *ev, void *arg),
		   void *arg, unsigned int *step);
bool sbridge_evtab_pmuv3_has(u64 pmceid, u64 pmceid_ext, u64 config);
unsigned int sbridge_evtab_nr_cores(void);
const struct sbridge_evtab_core *sbridge_evtab_core_at(unsigned int i);

#endif /* _SBRIDGE_PMU_EVTAB_H */
