// SPDX-License-Identifier: GPL-2.0
/*
 * CPU heterogeneity collector: core types, clusters, models, frequency
 * range, and the CPU factor (Cap(k/j) of the model) with user overrides.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sched/topology.h>
#ifdef CONFIG_X86
#include <asm/processor.h>
#include <asm/cpufeature.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/cputype.h>
#include <asm/sysreg.h>
#include <asm/barrier.h>
#endif
#include <sbridge/compat.h>
#include "internal.h"

DEFINE_PER_CPU(struct sbridge_cpu, sbridge_cpus);
struct sbridge_topology sbridge_topo;
/* Serialises CPU factor overrides. */
static DEFINE_MUTEX(sbridge_topo_lock);

#ifdef CONFIG_X86
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

static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_cpu *c = arg;
	struct cpuinfo_x86 *ci = &cpu_data(smp_processor_id());
	u32 hybrid = 0;

	/* Leaf 0x1a EAX[31:24]: core type on hybrid parts (0x20 Atom, 0x40 Core). */
	if (boot_cpu_has(X86_FEATURE_HYBRID_CPU) &&
	    ci->cpuid_level >= SBRIDGE_CPUID_HYBRID)
		hybrid = cpuid_eax(SBRIDGE_CPUID_HYBRID) >> 24;
	snprintf(c->model, sizeof(c->model), "%u:0x%x:0x%x", ci->x86,
		 ci->x86_model, hybrid);
	sbridge_read_caches(c, ci);
}
#elif defined(CONFIG_ARM64)
/* Raw encodings: the named macros differ between 6.1 and 7.x headers. */
#define SBRIDGE_SYS_CLIDR	sys_reg(3, 1, 0, 0, 1)
#define SBRIDGE_SYS_CCSIDR	sys_reg(3, 1, 0, 0, 0)
#define SBRIDGE_SYS_CSSELR	sys_reg(3, 2, 0, 0, 0)
#define SBRIDGE_SYS_MMFR2	sys_reg(3, 0, 0, 7, 2)

/* Cache sizes from CLIDR/CCSIDR; runs in an IPI, IRQs off (CSSELR is ours). */
static void sbridge_read_caches(struct sbridge_cpu *c)
{
	u64 clidr = read_sysreg_s(SBRIDGE_SYS_CLIDR);
	bool ccidx = ((read_sysreg_s(SBRIDGE_SYS_MMFR2) >> 20) & 0xf) != 0;
	unsigned int level;

	for (level = 1; level <= SBRIDGE_CACHE_LEVELS; level++) {
		u32 ctype = (clidr >> (3 * (level - 1))) & 7;
		u64 ccsidr, line, ways, sets;

		/* 2 instruction only, 0 none; 3 separate I+D, 4 unified */
		if (ctype == 0)
			break;
		if (ctype == 1)
			continue;
		write_sysreg_s((level - 1) << 1, SBRIDGE_SYS_CSSELR);
		isb();
		ccsidr = read_sysreg_s(SBRIDGE_SYS_CCSIDR);
		line = 1ULL << ((ccsidr & 7) + 4);
		if (ccidx) {
			ways = ((ccsidr >> 3) & 0x1fffff) + 1;
			sets = ((ccsidr >> 32) & 0xffffff) + 1;
		} else {
			ways = ((ccsidr >> 3) & 0x3ff) + 1;
			sets = ((ccsidr >> 13) & 0x7fff) + 1;
		}
		c->cache_kb[level - 1] = (line * ways * sets) >> 10;
	}
}

static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_cpu *c = arg;
	u32 midr = read_cpuid_id();

	snprintf(c->model, sizeof(c->model), "0x%02x:0x%03x",
		 MIDR_IMPLEMENTOR(midr), MIDR_PARTNUM(midr));
	sbridge_read_caches(c);
}
#else
static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_cpu *c = arg;

	strscpy(c->model, "unknown", sizeof(c->model));
}
#endif

/*
 * On x86 with one capacity everywhere (6.1/6.12 give 1024 to every CPU),
 * hybrid parts and frequency-asymmetric setups still differ: use the
 * maximum frequency as the capacity proxy then, as the paper's x86 setup
 * (3.2 vs 1.6 GHz) did.
 */
static void sbridge_capacity_proxy(u32 *cap, const u32 *khz, unsigned int n)
{
	u32 maxk = 0;
	unsigned int i;
	bool flat = true;

	for (i = 0; i < n; i++) {
		if (cap[i] && cap[0] && cap[i] != cap[0])
			flat = false;
		if (khz[i] > maxk)
			maxk = khz[i];
	}
	if (!flat || !maxk)
		return;
	for (i = 0; i < n; i++)
		if (cap[i] && khz[i])
			cap[i] = (u32)div_u64((u64)cap[i] * khz[i], maxk);
}

static void sbridge_refresh_factors_locked(void)
{
	u32 ref = sbridge_topo.type_capacity[sbridge_topo.ref_type];
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);
		u32 f = c->factor_override;

		if (!f)
			f = sbridge_model_cap_ratio(ref,
					sbridge_topo.type_capacity[c->type]);
		WRITE_ONCE(c->factor, sbridge_model_clamp(f));
	}
}

/**
 * sbridge_topology_init() - collect core types, clusters and models
 *
 * Context: process context at module init, may sleep.
 * Return: 0 or -ENOMEM.
 */
int sbridge_topology_init(void)
{
	unsigned int n = nr_cpu_ids, i;
	u32 *cap, *khz;
	u8 *type;
	int cpu, nt;

	cap = kcalloc(n, sizeof(*cap), GFP_KERNEL);
	khz = kcalloc(n, sizeof(*khz), GFP_KERNEL);
	type = kcalloc(n, sizeof(*type), GFP_KERNEL);
	if (!cap || !khz || !type) {
		kfree(cap);
		kfree(khz);
		kfree(type);
		return -ENOMEM;
	}

	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		c->orig_capacity = sbridge_cpu_capacity(cpu);
		c->max_khz = cpufreq_quick_get_max(cpu);
		c->cluster = sbridge_cpu_cluster(cpu);
		c->factor_override = 0;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, sbridge_read_cpu_info, c, 1);
		else
			strscpy(c->model, "offline", sizeof(c->model));
		cap[cpu] = c->orig_capacity;
		khz[cpu] = c->max_khz;
	}
	sbridge_capacity_proxy(cap, khz, n);
	nt = sbridge_group_types(cap, n, type, sbridge_topo.type_capacity,
				 SBRIDGE_MAX_CORE_TYPES);
	if (nt <= 0) {
		nt = 1;
		sbridge_topo.type_capacity[0] = SCHED_CAPACITY_SCALE;
	}
	sbridge_topo.ntypes = nt;
	sbridge_topo.ref_type = nt - 1;
	for (i = 0; i < SBRIDGE_MAX_CORE_TYPES; i++) {
		cpumask_clear(&sbridge_topo.type_mask[i]);
		sbridge_topo.type_max_khz[i] = 0;
	}
	for_each_possible_cpu(cpu) {
		struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		c->type = type[cpu] < nt ? type[cpu] : 0;
		cpumask_set_cpu(cpu, &sbridge_topo.type_mask[c->type]);
		if (c->max_khz > sbridge_topo.type_max_khz[c->type])
			sbridge_topo.type_max_khz[c->type] = c->max_khz;
	}
	kfree(cap);
	kfree(khz);
	kfree(type);

	mutex_lock(&sbridge_topo_lock);
	sbridge_refresh_factors_locked();
	mutex_unlock(&sbridge_topo_lock);

	for (i = 0; i < sbridge_topo.ntypes; i++)
		pr_info("core type %u: capacity %u, max %u kHz, cpus %*pbl\n",
			i, sbridge_topo.type_capacity[i],
			sbridge_topo.type_max_khz[i],
			cpumask_pr_args(&sbridge_topo.type_mask[i]));
	return 0;
}

/**
 * sbridge_set_cpu_factor() - override the CPU factor of a set of CPUs
 * @mask: CPUs, a non-empty subset of the possible CPUs
 * @factor: fixed-point factor in [SBRIDGE_FACTOR_MIN, SBRIDGE_FACTOR_MAX],
 *	or 0 to go back to the capacity ratio
 *
 * All or nothing: bad input changes nothing.
 *
 * Context: process context; takes sbridge_topo_lock.
 * Return: 0 or -EINVAL.
 */
int sbridge_set_cpu_factor(const struct cpumask *mask, u32 factor)
{
	int cpu;

	if (factor && (factor < SBRIDGE_FACTOR_MIN || factor > SBRIDGE_FACTOR_MAX))
		return -EINVAL;
	if (cpumask_empty(mask) || !cpumask_subset(mask, cpu_possible_mask))
		return -EINVAL;

	mutex_lock(&sbridge_topo_lock);
	for_each_cpu(cpu, mask)
		per_cpu_ptr(&sbridge_cpus, cpu)->factor_override = factor;
	sbridge_refresh_factors_locked();
	mutex_unlock(&sbridge_topo_lock);
	return 0;
}

/**
 * sbridge_type_factor() - CPU factor of a core type
 * @type: core type index
 *
 * The factor of the type's first CPU: overrides are per CPU set, and a
 * set normally covers whole types.
 *
 * Context: any; lock-free.
 * Return: fixed-point factor, SBRIDGE_FP_ONE for an unknown type.
 */
u32 sbridge_type_factor(unsigned int type)
{
	unsigned int cpu;

	if (type >= sbridge_topo.ntypes)
		return SBRIDGE_FP_ONE;
	cpu = cpumask_first(&sbridge_topo.type_mask[type]);
	if (cpu >= nr_cpu_ids)
		return SBRIDGE_FP_ONE;
	return READ_ONCE(per_cpu_ptr(&sbridge_cpus, cpu)->factor);
}
