// SPDX-License-Identifier: GPL-2.0
/*
 * x86 side of the core-type seam (topo.h): family/model and CPUID 0x1A's
 * hybrid core type, cache sizes from the deterministic cache parameters,
 * and the highest performance the CPU reports: Intel HWP_CAPABILITIES
 * (what ITMT ranks hybrid cores by; the scheduler's own priorities are
 * not exported to modules) or AMD CPPC_CAP1 (the preferred-core ranking
 * amd-pstate shows as amd_pstate_prefcore_ranking). AMD parts with
 * shared-memory CPPC (no CPPC MSRs) report none here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/smp.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <asm/processor.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "topo.h"

#define SBRIDGE_CPUID_HYBRID		0x1a

/*
 * Cache sizes from the deterministic cache parameters: leaf 4 on Intel,
 * 0x8000001d on AMD (same layout). cacheinfo is not exported to modules.
 */
static void sbridge_read_caches(struct sbridge_cpu *c, struct cpuinfo_x86 *ci)
{
	u32 leaf, a, b, cc, d, i;

	if (ci->x86_vendor == X86_VENDOR_INTEL && ci->cpuid_level >= 4)
		leaf = 4;
	else if ((ci->x86_vendor == X86_VENDOR_AMD ||
		  ci->x86_vendor == X86_VENDOR_HYGON) &&
		 boot_cpu_has(X86_FEATURE_TOPOEXT))
		leaf = 0x8000001d;
	else
		return;
	for (i = 0; i < 8; i++) {
		u32 type, level;
		u64 bytes;

		cpuid_count(leaf, i, &a, &b, &cc, &d);
		type = a & 0x1f;	/* 0 none, 1 data, 2 instruction, 3 unified */
		if (!type)
			break;
		level = (a >> 5) & 7;
		if (type == 2 || level < 1 || level > SBRIDGE_CACHE_LEVELS)
			continue;
		bytes = (u64)(((b >> 22) & 0x3ff) + 1) * (((b >> 12) & 0x3ff) + 1) *
			((b & 0xfff) + 1) * (cc + 1);
		c->cache_kb[level - 1] = bytes >> 10;
	}
}

/* Highest performance of the local CPU: HWP on Intel, CPPC on AMD; 0 none. */
static u32 sbridge_read_perf(const struct cpuinfo_x86 *ci)
{
	u64 v;

	if (ci->x86_vendor == X86_VENDOR_INTEL && boot_cpu_has(X86_FEATURE_HWP) &&
	    !sbridge_rdmsr_safe(MSR_HWP_CAPABILITIES, &v))
		return v & 0xff;
	if ((ci->x86_vendor == X86_VENDOR_AMD || ci->x86_vendor == X86_VENDOR_HYGON) &&
	    boot_cpu_has(X86_FEATURE_CPPC) &&
	    !sbridge_rdmsr_safe(MSR_AMD_CPPC_CAP1, &v))
		return (v >> 24) & 0xff;
	return 0;
}

struct sbridge_x86_read {
	struct sbridge_cpu *c;
	struct sbridge_ct_cpu *hw;
};

/* On the CPU itself (IPI): CPUID and MSRs are the local CPU's. */
static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_x86_read *r = arg;
	struct cpuinfo_x86 *ci = &cpu_data(smp_processor_id());
	u32 hybrid = 0;

	/* Leaf 0x1a EAX[31:24]: core type on hybrid parts (0x20 Atom, 0x40 Core). */
	if (boot_cpu_has(X86_FEATURE_HYBRID_CPU) &&
	    ci->cpuid_level >= SBRIDGE_CPUID_HYBRID)
		hybrid = cpuid_eax(SBRIDGE_CPUID_HYBRID) >> 24;
	snprintf(r->c->model, sizeof(r->c->model), "%u:0x%x:0x%x", ci->x86,
		 ci->x86_model, hybrid);
	sbridge_read_caches(r->c, ci);
	r->hw->x86_type = hybrid;
	r->hw->perf = sbridge_read_perf(ci);
	r->hw->amd = ci->x86_vendor == X86_VENDOR_AMD ||
		     ci->x86_vendor == X86_VENDOR_HYGON;
}

void sbridge_arch_cpu_info(int cpu, struct sbridge_cpu *c, struct sbridge_ct_cpu *hw)
{
	struct sbridge_x86_read r = { .c = c, .hw = hw };

	hw->core = cpumask_first(topology_sibling_cpumask(cpu));
	if (hw->core >= nr_cpu_ids)
		hw->core = cpu;
	smp_call_function_single(cpu, sbridge_read_cpu_info, &r, 1);
}

static void sbridge_read_perf_fn(void *arg)
{
	*(u32 *)arg = sbridge_read_perf(&cpu_data(smp_processor_id()));
}

u32 sbridge_arch_cpu_perf(int cpu)
{
	u32 perf = 0;

	smp_call_function_single(cpu, sbridge_read_perf_fn, &perf, 1);
	return perf;
}
