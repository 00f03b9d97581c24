// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 side of the core-type seam (topo.h): the MIDR (implementer and
 * part number) and cache sizes from CLIDR/CCSIDR. The capacities
 * themselves (the device tree's capacity-dmips-mhz) and cpufreq are
 * read by topology.c; the MIDR tells the cores apart where the kernel
 * reports one capacity for all (coretype.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/smp.h>
#include <linux/string.h>
#include <asm/cputype.h>
#include <asm/sysreg.h>
#include <asm/barrier.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "topo.h"

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

struct sbridge_arm64_read {
	struct sbridge_cpu *c;
	struct sbridge_ct_cpu *hw;
};

static void sbridge_read_cpu_info(void *arg)
{
	struct sbridge_arm64_read *r = arg;
	u32 midr = read_cpuid_id();

	snprintf(r->c->model, sizeof(r->c->model), "0x%02x:0x%03x",
		 MIDR_IMPLEMENTOR(midr), MIDR_PARTNUM(midr));
	r->hw->midr = midr;
	sbridge_read_caches(r->c);
}

void sbridge_arch_cpu_info(int cpu, struct sbridge_cpu *c, struct sbridge_ct_cpu *hw)
{
	struct sbridge_arm64_read r = { .c = c, .hw = hw };

	hw->core = cpu;
	smp_call_function_single(cpu, sbridge_read_cpu_info, &r, 1);
}

u32 sbridge_arch_cpu_perf(int cpu)
{
	return 0;
}
