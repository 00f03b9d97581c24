/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Core types from what the hardware says, as pure integer code with no
 * kernel dependency (as model.h): the same coretype.c is built into the
 * module and into the host unit tests (tests/unit/test_coretype.c).
 *
 * topo_x86.c and topo_arm64.c fill one struct sbridge_ct_cpu per CPU from
 * the hardware (capacity, cpufreq maximum, MIDR, CPUID 0x1A core type,
 * HWP or CPPC highest performance, SMT siblings); sbridge_ct_classify()
 * turns them into one capacity per CPU for sbridge_group_types() and says
 * where the difference between the CPUs was found:
 *
 *   1. the kernel's capacities, where they differ (arm64's
 *      capacity-dmips-mhz, x86 6.12+ hybrid parts without SMT);
 *   2. x86 hybrid: CPUID 0x1A's core type (Core vs Atom), the types'
 *      capacities from HWP highest performance (SMT siblings counted as
 *      their core), else from cpufreq maximum;
 *   3. AMD: CPPC highest performance (the preferred-core ranking that
 *      amd_pstate_prefcore_ranking shows), split where it drops by more
 *      than 1/8, so that ranking steps within one core design stay one
 *      type (Zen 5 + Zen 5c parts split, a Ryzen desktop does not);
 *   4. arm64: the MIDR part, the capacity from a coarse per-part tier x
 *      the cpufreq maximum;
 *   5. the cpufreq maximum alone;
 *   6. else one type.
 */
#ifndef _SBRIDGE_CORE_CORETYPE_H
#define _SBRIDGE_CORE_CORETYPE_H

#include "model.h"

/* CPUID 0x1A EAX[31:24] core types. */
#define SBRIDGE_CT_X86_ATOM	0x20
#define SBRIDGE_CT_X86_CORE	0x40
/* AMD: a ranking step of more than 1/8 (>> 3) of the higher is a new type. */
#define SBRIDGE_CT_RANK_GAP_SHIFT	3

/**
 * struct sbridge_ct_cpu - what the hardware says about one CPU
 * @capacity: the kernel's capacity (arch_scale_cpu_capacity()), 0 if the
 *	CPU is not to be classified (not possible)
 * @max_khz: cpufreq maximum, 0 unknown
 * @midr: arm64 MIDR_EL1, 0 unknown or not arm64
 * @x86_type: CPUID 0x1A EAX[31:24], 0 if not hybrid
 * @perf: highest performance (Intel HWP_CAPABILITIES[7:0], AMD
 *	CPPC_CAP1[31:24]), 0 unknown
 * @amd: an AMD CPU (its @perf is a preferred-core ranking)
 * @core: index of the CPU's first SMT sibling (itself if none)
 */
struct sbridge_ct_cpu {
	u32 capacity;
	u32 max_khz;
	u32 midr;
	u8 x86_type;
	u32 perf;
	bool amd;
	u32 core;
};

u32 sbridge_ct_classify(const struct sbridge_ct_cpu *c, unsigned int n, u32 *cap);
u32 sbridge_ct_arm_tier(u32 midr);
const char *sbridge_ct_from_name(u32 from);

#endif /* _SBRIDGE_CORE_CORETYPE_H */
