// SPDX-License-Identifier: GPL-2.0
/*
 * Events per core model (see evtab.h). No kernel dependency on purpose:
 * tests/unit/ builds this very file on the host.
 *
 * Sources: the Arm Architecture Reference Manual's PMUv3 common events
 * and the kernel's tools/perf/pmu-events/arch/arm64/arm/<core>/ JSON files
 * (which list, per core, the common events it implements and its
 * IMPLEMENTATION DEFINED ones); tools/perf/pmu-events/arch/x86/
 * alderlake*, zen4 for Intel and AMD. docs/pmu-events.md says which
 * entries were checked against which file.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <stddef.h>
#include <string.h>
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#include "evtab.h"

/* ---- the events ---------------------------------------------------------- */

/* Arm PMUv3 common events (numbers from the Arm ARM). */
static const struct sbridge_evtab_event ev_ll_miss_rd = {
	"LL_CACHE_MISS_RD", 0x37, true,
	"none: last-level read misses are what the model's miss penalty is for"
};
static const struct sbridge_evtab_event ev_ll_miss = {
	"LL_CACHE_MISS", 0x33, true,
	"counts write misses too: store-heavy code looks more memory-bound"
};
static const struct sbridge_evtab_event ev_l3d_refill = {
	"L3D_CACHE_REFILL", 0x2a, true,
	"the cluster L3's misses: where a system cache sits below it, its hits count as memory misses"
};
static const struct sbridge_evtab_event ev_l2d_refill = {
	"L2D_CACHE_REFILL", 0x17, true,
	"L2 refills: exact where the L2 is the last level; where an L3 or system cache sits below it, its hits count as memory misses (memory share overestimated)"
};
static const struct sbridge_evtab_event ev_stall_mem = {
	"STALL_BACKEND_MEM", 0x4005, true,
	"none: backend stall cycles with a last-level miss outstanding"
};
static const struct sbridge_evtab_event ev_stall_backend = {
	"STALL_BACKEND", 0x24, true,
	"every backend stall, not only memory: execution-resource stalls are taken for memory ones (used only where no miss count exists)"
};
/* IMPLEMENTATION DEFINED: trusted by MIDR, never in PMCEID. */
static const struct sbridge_evtab_event ev_a53_ld_dep_stall = {
	"LD_DEP_STALL", 0xe7, false,
	"Wr-stage stalls on any load miss, L2 hits included: overestimates memory stalls"
};
static const struct sbridge_evtab_event ev_a55_ld_cache_stall = {
	"STALL_BACKEND_LD_CACHE", 0xe9, false,
	"load stalls on any cache miss, L2 and L3 hits included: overestimates memory stalls"
};

/* Generic perf events (PERF_TYPE_HARDWARE), as each PMU driver maps them. */
static const struct sbridge_evtab_event ev_intel_llc = {
	"LONGEST_LAT_CACHE.MISS", SBRIDGE_EVTAB_GENERIC, false,
	"none: Intel's generic cache-misses is the LLC miss count (demand loads, RFOs, code)"
};
static const struct sbridge_evtab_event ev_amd_generic_llc = {
	"cache-misses (L2 miss)", SBRIDGE_EVTAB_GENERIC, false,
	"the kernel maps AMD's generic cache-misses to L2 misses: L3 hits count as memory misses"
};
static const struct sbridge_evtab_event ev_generic_stall = {
	"stalled-cycles-backend", SBRIDGE_EVTAB_GENERIC, false,
	"whatever the PMU driver maps it to (often nothing): every backend stall at best"
};

/* Intel, raw codes from tools/perf/pmu-events/arch/x86/alderlake. */
static const struct sbridge_evtab_event ev_intel_stalls_l3 = {
	"CYCLE_ACTIVITY.STALLS_L3_MISS", 0x060006a3, false,
	"none: execution stalls while a demand load misses the L3"
};
static const struct sbridge_evtab_event ev_grt_dram_stall = {
	"MEM_BOUND_STALLS.LOAD_DRAM_HIT", 0x0434, false,
	"none on Gracemont: load stalls served by DRAM (later E-cores renumbered it)"
};

/* AMD, raw codes from tools/perf/pmu-events/arch/x86/zen4 (0x48 umask). */
static const struct sbridge_evtab_event ev_zen_fills_dram = {
	"ls_any_fills_from_sys.dram_io_all", 0x4844, false,
	"counts prefetch fills too: streaming code looks more memory-bound"
};
static const struct sbridge_evtab_event ev_zen2_refills_dram = {
	"ls_refills_from_sys.ls_mabresp_{lcl,rmt}_dram", 0x4843, false,
	"demand data-cache refills from DRAM (not checked against a perf JSON here)"
};

/* ---- the cores ------------------------------------------------------------ */

#define ARM(part)	(0x41 << 12 | (part))

/* Chains shared by many cores. */
#define LLC_V80		{ &ev_l2d_refill, NULL }
#define LLC_DSU		{ &ev_ll_miss_rd, &ev_ll_miss, &ev_l3d_refill, &ev_l2d_refill, NULL }
#define STALL_V80	{ &ev_stall_backend, NULL }
#define STALL_MEM	{ &ev_stall_mem, &ev_stall_backend, NULL }
#define STALL_A53	{ &ev_a53_ld_dep_stall, NULL }
#define STALL_A55	{ &ev_stall_mem, &ev_a55_ld_cache_stall, &ev_stall_backend, NULL }

#define ARM_CORE(nm, part, llc, stall, has_amu) \
	{ .name = nm, .arch = SBRIDGE_EVTAB_ARCH_ARM64, .id = ARM(part), \
	  .chain = { llc, stall }, .amu = has_amu }

static const struct sbridge_evtab_core sbridge_evtab_cores[] = {
	/* Armv8.0 clusters: the cluster L2 is the last on-chip level on most boards */
	ARM_CORE("Cortex-A53", 0xd03, LLC_V80, STALL_A53, false),
	ARM_CORE("Cortex-A57", 0xd07, LLC_V80, STALL_V80, false),
	ARM_CORE("Cortex-A72", 0xd08, LLC_V80, STALL_V80, false),
	ARM_CORE("Cortex-A73", 0xd09, LLC_V80, STALL_V80, false),
	/* DynamIQ (Armv8.2+): DSU L3, LL_CACHE_* events */
	ARM_CORE("Cortex-A55", 0xd05, LLC_DSU, STALL_A55, false),
	ARM_CORE("Cortex-A75", 0xd0a, LLC_DSU, STALL_MEM, false),
	ARM_CORE("Cortex-A76", 0xd0b, LLC_DSU, STALL_MEM, false),
	ARM_CORE("Neoverse-N1", 0xd0c, LLC_DSU, STALL_MEM, false),
	ARM_CORE("Cortex-A77", 0xd0d, LLC_DSU, STALL_MEM, false),
	ARM_CORE("Neoverse-V1", 0xd40, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Cortex-A78", 0xd41, LLC_DSU, STALL_MEM, false),
	ARM_CORE("Cortex-X1", 0xd44, LLC_DSU, STALL_MEM, false),
	/* Armv9 */
	ARM_CORE("Cortex-A510", 0xd46, LLC_DSU, STALL_A55, true),
	ARM_CORE("Cortex-A710", 0xd47, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Cortex-X2", 0xd48, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Neoverse-N2", 0xd49, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Cortex-A715", 0xd4d, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Cortex-X3", 0xd4e, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Neoverse-V2", 0xd4f, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Cortex-A520", 0xd80, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Cortex-A720", 0xd81, LLC_DSU, STALL_MEM, true),
	ARM_CORE("Cortex-X4", 0xd82, LLC_DSU, STALL_MEM, true),
	/* Intel hybrid: each core type has its own PMU */
	{ .name = "Intel P-core", .arch = SBRIDGE_EVTAB_ARCH_INTEL, .id = 6,
	  .model_hi = 0xff, .pmu = "cpu_core",
	  .chain = { { &ev_intel_llc, NULL }, { &ev_intel_stalls_l3, NULL } } },
	{ .name = "Intel E-core (Gracemont)", .arch = SBRIDGE_EVTAB_ARCH_INTEL, .id = 6,
	  .model_hi = 0xff, .pmu = "cpu_atom",
	  .chain = { { &ev_intel_llc, NULL }, { &ev_grt_dram_stall, NULL } } },
	/* Intel, one core type: the memory stall event differs per generation */
	{ .name = "Intel core", .arch = SBRIDGE_EVTAB_ARCH_INTEL, .id = 6,
	  .model_hi = 0xff,
	  .chain = { { &ev_intel_llc, NULL }, { &ev_generic_stall, NULL } } },
	/* AMD: family 0x17 models 0x30+ Zen 2, 0x19 Zen 3/4, 0x1a Zen 5 (and 5c) */
	{ .name = "AMD Zen 2", .arch = SBRIDGE_EVTAB_ARCH_AMD, .id = 0x17,
	  .model_lo = 0x30, .model_hi = 0xff,
	  .chain = { { &ev_zen2_refills_dram, &ev_amd_generic_llc, NULL },
		     { &ev_generic_stall, NULL } } },
	{ .name = "AMD Zen 3/4", .arch = SBRIDGE_EVTAB_ARCH_AMD, .id = 0x19,
	  .model_hi = 0xff,
	  .chain = { { &ev_zen_fills_dram, &ev_amd_generic_llc, NULL },
		     { &ev_generic_stall, NULL } } },
	{ .name = "AMD Zen 5", .arch = SBRIDGE_EVTAB_ARCH_AMD, .id = 0x1a,
	  .model_hi = 0xff,
	  .chain = { { &ev_zen_fills_dram, &ev_amd_generic_llc, NULL },
		     { &ev_generic_stall, NULL } } },
};

/* Any other Arm PMUv3 core: the common events, as its PMCEID says. */
static const struct sbridge_evtab_core sbridge_evtab_pmuv3 =
	ARM_CORE("Arm PMUv3 core", 0, LLC_DSU, STALL_MEM, false);

/*
 * The emulation rig's PMU (tools/rig): numbered as the PMUv3 common
 * events on both guest architectures, without PMCEID: an event it lacks
 * fails to open. Its rig_pmu module can refuse codes (refuse=), so each
 * step of the chain runs in a scenario (pmu-fallback).
 */
static const struct sbridge_evtab_core sbridge_evtab_rig = {
	.name = "rig", .pmu = "rig_pmu",
	.chain = { LLC_DSU, STALL_MEM },
};

/**
 * sbridge_evtab_find() - the table entry of a CPU's core model
 * @cpu: its description
 *
 * The rig's PMU by name; arm64 by MIDR, else (an unknown part) the PMUv3
 * common events; x86 by vendor, family and model, hybrid parts by the PMU
 * their core type's events live on.
 *
 * Return: the entry, or NULL (use the generic events).
 */
const struct sbridge_evtab_core *sbridge_evtab_find(const struct sbridge_evtab_cpu *cpu)
{
	const char *pmu = cpu->pmu ? cpu->pmu : "";
	unsigned int i;

	if (!strcmp(pmu, sbridge_evtab_rig.pmu))
		return &sbridge_evtab_rig;
	for (i = 0; i < ARRAY_SIZE(sbridge_evtab_cores); i++) {
		const struct sbridge_evtab_core *c = &sbridge_evtab_cores[i];

		if (c->arch != cpu->arch)
			continue;
		if (c->arch == SBRIDGE_EVTAB_ARCH_ARM64) {
			if (c->id == SBRIDGE_EVTAB_MIDR_ID(cpu->midr))
				return c;
			continue;
		}
		if (c->id != cpu->family || cpu->model < c->model_lo ||
		    cpu->model > c->model_hi)
			continue;
		if (c->pmu && strcmp(c->pmu, pmu))
			continue;
		return c;
	}
	if (cpu->arch == SBRIDGE_EVTAB_ARCH_ARM64 &&
	    (!strncmp(pmu, "armv8_", 6) || !strncmp(pmu, "armv9_", 6)))
		return &sbridge_evtab_pmuv3;
	return NULL;
}

/**
 * sbridge_evtab_pick() - the first event of a chain the PMU has
 * @core: table entry
 * @kind: enum sbridge_evtab_kind
 * @has: says whether the PMU has (in the kernel: opened) an event
 * @arg: passed to @has
 * @step: set to the index of the event in the chain (0: the best)
 *
 * Return: the event, or NULL if the chain is empty or none exists.
 */
const struct sbridge_evtab_event *
sbridge_evtab_pick(const struct sbridge_evtab_core *core, unsigned int kind,
		   bool (*has)(const struct sbridge_evtab_event *ev, void *arg),
		   void *arg, unsigned int *step)
{
	unsigned int i;

	if (!core || kind >= SBRIDGE_EVTAB_NR_KINDS)
		return NULL;
	for (i = 0; i < SBRIDGE_EVTAB_CHAIN && core->chain[kind][i]; i++) {
		if (has(core->chain[kind][i], arg)) {
			*step = i;
			return core->chain[kind][i];
		}
	}
	return NULL;
}

/**
 * sbridge_evtab_pmuv3_has() - does a PMUv3 PMU implement an event
 * @pmceid: common events 0x00..0x3f it implements (PMCEID0/1 low halves)
 * @pmceid_ext: common events 0x4000..0x403f (PMCEID0/1 high halves)
 * @config: event number
 *
 * An unimplemented common event opens and counts nothing on PMUv3, so
 * the PMCEID bits, not the open, decide. IMPLEMENTATION DEFINED numbers
 * are not described there: true.
 *
 * Return: true if the PMU counts @config.
 */
bool sbridge_evtab_pmuv3_has(u64 pmceid, u64 pmceid_ext, u64 config)
{
	if (config < 0x40)
		return (pmceid >> config) & 1;
	if (config >= 0x4000 && config < 0x4040)
		return (pmceid_ext >> (config - 0x4000)) & 1;
	return true;
}

/* The table, for tests and docs. */
unsigned int sbridge_evtab_nr_cores(void)
{
	return ARRAY_SIZE(sbridge_evtab_cores);
}

const struct sbridge_evtab_core *sbridge_evtab_core_at(unsigned int i)
{
	return i < ARRAY_SIZE(sbridge_evtab_cores) ? &sbridge_evtab_cores[i] : NULL;
}
