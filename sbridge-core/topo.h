/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-architecture core-type seam of topology.c: topo_x86.c and
 * topo_arm64.c (built by Kbuild for their architecture only) read what
 * the hardware says about a CPU; topology.c turns it into core types
 * (coretype.c) and keeps them. Another architecture gets topology.c's
 * fallback: a model string "unknown" and nothing but the capacities and
 * cpufreq.
 */
#ifndef _SBRIDGE_CORE_TOPO_H
#define _SBRIDGE_CORE_TOPO_H

#include "coretype.h"

/* include after internal.h (the fallback below fills struct sbridge_cpu) */
struct sbridge_cpu;

#if defined(CONFIG_X86) || defined(CONFIG_ARM64)

/**
 * sbridge_arch_cpu_info() - what the hardware says about one online CPU
 * @cpu: the CPU, online
 * @c: gets its model string and cache sizes
 * @hw: gets its MIDR, CPUID 0x1A core type, highest performance and first
 *	SMT sibling (the fields coretype.c reads; the caller fills capacity
 *	and cpufreq maximum)
 *
 * Context: process context, may sleep (runs a function on @cpu).
 */
void sbridge_arch_cpu_info(int cpu, struct sbridge_cpu *c, struct sbridge_ct_cpu *hw);

/**
 * sbridge_arch_cpu_perf() - the CPU's highest performance now
 * @cpu: the CPU, online
 *
 * For the refresh of AMD's preferred-core ranking, which firmware may
 * change at run time.
 *
 * Context: process context, may sleep (runs a function on @cpu).
 * Return: HWP or CPPC highest performance, 0 unknown (and off x86).
 */
u32 sbridge_arch_cpu_perf(int cpu);
#else
/* No per-architecture file: nothing but capacities and cpufreq. */
static inline void sbridge_arch_cpu_info(int cpu, struct sbridge_cpu *c,
					 struct sbridge_ct_cpu *hw)
{
	strscpy(c->model, "unknown", sizeof(c->model));
	hw->core = cpu;
}

static inline u32 sbridge_arch_cpu_perf(int cpu)
{
	return 0;
}
#endif

#endif /* _SBRIDGE_CORE_TOPO_H */
