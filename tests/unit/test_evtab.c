// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of pmu-monitor/evtab.c: which events sbridge_pmu opens for
 * the LLC-miss and memory-stall inputs on real CPUs, described as the
 * kernel sees them (MIDR_EL1 values as /proc/cpuinfo and
 * /sys/devices/system/cpu/cpuN/regs/identification/midr_el1 show them on
 * those boards, x86 family/model as /proc/cpuinfo, the PMU names the
 * kernel registers), mixed boards included, and each fallback step as
 * PMCEID bits take events away. Prints TAP.
 */
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "evtab.h"

#define ARM64(midr, pmu)	{ SBRIDGE_EVTAB_ARCH_ARM64, midr, 0, 0, pmu }
#define INTEL(fam, mod, pmu)	{ SBRIDGE_EVTAB_ARCH_INTEL, 0, fam, mod, pmu }
#define AMD(fam, mod)		{ SBRIDGE_EVTAB_ARCH_AMD, 0, fam, mod, "cpu" }

/* A PMU described by its PMCEID bits; x86 and the rig: a set of codes. */
struct fake_pmu {
	unsigned long long pmceid, ext;
	bool pmuv3;
	const unsigned long long *refuse;	/* 0-terminated codes that fail */
	bool no_generic;
};

static bool fake_has(const struct sbridge_evtab_event *ev, void *arg)
{
	const struct fake_pmu *p = arg;
	const unsigned long long *r;

	if (ev->config == SBRIDGE_EVTAB_GENERIC)
		return !p->no_generic;
	if (p->pmuv3 && ev->common &&
	    !sbridge_evtab_pmuv3_has(p->pmceid, p->ext, ev->config))
		return false;
	for (r = p->refuse; r && *r; r++)
		if (*r == ev->config)
			return false;
	return true;
}

static const char *pick_name(const struct sbridge_evtab_cpu *cpu, unsigned int kind,
			     struct fake_pmu *p, unsigned int *step)
{
	const struct sbridge_evtab_event *ev;

	ev = sbridge_evtab_pick(sbridge_evtab_find(cpu), kind, fake_has, p, step);
	return ev ? ev->name : "none";
}

struct board_cpu {
	const char *board;
	struct sbridge_evtab_cpu cpu;
	const char *core;	/* expected table entry, NULL: generic events */
};

/* Real CPUs, one line per core type of the board. */
static const struct board_cpu boards[] = {
	/* Rockchip RK3399 (big.LITTLE A72 + A53) */
	{ "RK3399 big", ARM64(0x410fd082, "armv8_cortex_a72"), "Cortex-A72" },
	{ "RK3399 LITTLE", ARM64(0x410fd034, "armv8_cortex_a53"), "Cortex-A53" },
	/* Rockchip RK3588 (DynamIQ A76 + A55) */
	{ "RK3588 big", ARM64(0x414fd0b0, "armv8_cortex_a76"), "Cortex-A76" },
	{ "RK3588 LITTLE", ARM64(0x412fd050, "armv8_cortex_a55"), "Cortex-A55" },
	/* Snapdragon 888 (X1 + A78 + A55; Kryo 680 reports Arm's parts) */
	{ "SD888 prime", ARM64(0x411fd440, "armv8_pmuv3"), "Cortex-X1" },
	{ "SD888 gold", ARM64(0x411fd410, "armv8_pmuv3"), "Cortex-A78" },
	{ "SD888 silver", ARM64(0x411fd050, "armv8_pmuv3"), "Cortex-A55" },
	/* Dimensity 9000 (X2 + A710 + A510) */
	{ "D9000 X2", ARM64(0x410fd480, "armv9_cortex_x2"), "Cortex-X2" },
	{ "D9000 A710", ARM64(0x410fd470, "armv9_cortex_a710"), "Cortex-A710" },
	{ "D9000 A510", ARM64(0x410fd460, "armv9_cortex_a510"), "Cortex-A510" },
	/* Arm servers under ACPI: the PMU is named armv8_pmuv3_0 */
	{ "Graviton2", ARM64(0x413fd0c1, "armv8_pmuv3_0"), "Neoverse-N1" },
	{ "Graviton3", ARM64(0x411fd401, "armv8_pmuv3_0"), "Neoverse-V1" },
	{ "Grace", ARM64(0x410fd4f0, "armv8_pmuv3_0"), "Neoverse-V2" },
	/* a PMUv3 core the table does not know: the common events */
	{ "Ampere eMAG", ARM64(0x503f0002, "armv8_pmuv3_0"), "Arm PMUv3 core" },
	/* not PMUv3 at all: generic events */
	{ "Apple M1 Icestorm", ARM64(0x611f0220, "apple_icestorm_pmu"), NULL },
	/* the emulation rig, whatever the guest's MIDR */
	{ "rig arm64", ARM64(0x411fd070, "rig_pmu"), "rig" },
	{ "rig x86", { SBRIDGE_EVTAB_ARCH_AMD, 0, 0x0f, 0x6b, "rig_pmu" }, "rig" },
	/* Intel Alder Lake i7-12700 (P + E, HT on the P-cores) */
	{ "ADL P", INTEL(6, 0x97, "cpu_core"), "Intel P-core" },
	{ "ADL E", INTEL(6, 0x97, "cpu_atom"), "Intel E-core (Gracemont)" },
	{ "Skylake", INTEL(6, 0x5e, "cpu"), "Intel core" },
	/* AMD: Zen 1 not in the table; Zen 2, 3, 4, 5 and 5c */
	{ "Ryzen 1800X", AMD(0x17, 0x01), NULL },
	{ "Ryzen 3700X", AMD(0x17, 0x71), "AMD Zen 2" },
	{ "Ryzen 5950X", AMD(0x19, 0x21), "AMD Zen 3/4" },
	{ "Ryzen 7950X", AMD(0x19, 0x61), "AMD Zen 3/4" },
	{ "Ryzen 9950X", AMD(0x1a, 0x44), "AMD Zen 5" },
	{ "Strix Point Zen 5c", AMD(0x1a, 0x24), "AMD Zen 5" },
};

static void test_find(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(boards) / sizeof(boards[0]); i++) {
		const struct sbridge_evtab_core *c = sbridge_evtab_find(&boards[i].cpu);
		const char *got = c ? c->name : "(generic)";
		const char *want = boards[i].core ? boards[i].core : "(generic)";

		CHECK(!strcmp(got, want), "%s: %s (want %s)", boards[i].board, got, want);
	}
}

/* Every core of the brief's list is in the table, and each chain is sane. */
static void test_table(void)
{
	static const char * const need[] = {
		"Cortex-A53", "Cortex-A55", "Cortex-A57", "Cortex-A72", "Cortex-A73",
		"Cortex-A75", "Cortex-A76", "Cortex-A77", "Cortex-A78", "Cortex-A510",
		"Cortex-A520", "Cortex-A710", "Cortex-A715", "Cortex-A720", "Cortex-X1",
		"Cortex-X2", "Cortex-X3", "Cortex-X4", "Neoverse-N1", "Neoverse-N2",
		"Neoverse-V1", "Neoverse-V2", "Intel P-core", "Intel E-core (Gracemont)",
		"AMD Zen 2", "AMD Zen 3/4", "AMD Zen 5",
	};
	unsigned int i, j, k, bad = 0, nllc = 0;

	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		for (j = 0; j < sbridge_evtab_nr_cores(); j++)
			if (!strcmp(sbridge_evtab_core_at(j)->name, need[i]))
				break;
		CHECK(j < sbridge_evtab_nr_cores(), "%s is in the table", need[i]);
	}
	for (j = 0; j < sbridge_evtab_nr_cores(); j++) {
		const struct sbridge_evtab_core *c = sbridge_evtab_core_at(j);

		for (k = 0; k < SBRIDGE_EVTAB_NR_KINDS; k++) {
			const struct sbridge_evtab_event *first = c->chain[k][0];

			if (!first || !first->cost || !first->name)
				bad++;
			/* the bug this table fixes: no L1D refill on arm64 */
			if (c->arch == SBRIDGE_EVTAB_ARCH_ARM64)
				for (i = 0; c->chain[k][i]; i++)
					if (c->chain[k][i]->config == SBRIDGE_EVTAB_GENERIC ||
					    c->chain[k][i]->config == 0x03)
						bad++;
		}
		nllc += c->chain[SBRIDGE_EVTAB_LLC][0] != NULL;
	}
	EQ(bad, 0, "every chain starts with a named, costed event; no arm64 chain has L1D refills or a generic event");
	EQ(nllc, sbridge_evtab_nr_cores(), "every core has an LLC-miss chain");
}

static void test_pick(void)
{
	/* RK3588: A76 has everything the DSU era offers but STALL_BACKEND_MEM */
	static const struct sbridge_evtab_cpu a76 = ARM64(0x414fd0b0, "armv8_cortex_a76");
	static const struct sbridge_evtab_cpu a55 = ARM64(0x412fd050, "armv8_cortex_a55");
	static const struct sbridge_evtab_cpu a53 = ARM64(0x410fd034, "armv8_cortex_a53");
	static const struct sbridge_evtab_cpu x2 = ARM64(0x410fd480, "armv9_cortex_x2");
	static const struct sbridge_evtab_cpu adlp = INTEL(6, 0x97, "cpu_core");
	static const struct sbridge_evtab_cpu zen4 = AMD(0x19, 0x61);
	static const struct sbridge_evtab_cpu m1 = ARM64(0x611f0220, "apple_icestorm_pmu");
	static const struct sbridge_evtab_cpu rig = ARM64(0x411fd070, "rig_pmu");
	/* PMCEID0: bits 0x00-0x1f, PMCEID1: 0x20-0x3f, as one 64-bit word */
	struct fake_pmu dsu = { .pmuv3 = true, .pmceid = ~0ULL, .ext = 0 };
	struct fake_pmu v9 = { .pmuv3 = true, .pmceid = ~0ULL, .ext = ~0ULL };
	struct fake_pmu v80 = { .pmuv3 = true, .pmceid = 0xffffffffULL | (0x1fULL << 32) };
	struct fake_pmu no_ll = { .pmuv3 = true, .pmceid = ~0ULL & ~(1ULL << 0x37) & ~(1ULL << 0x33) };
	struct fake_pmu bare = { .pmuv3 = true };
	static const unsigned long long rig_codes[] = { 0x37, 0 };
	static const unsigned long long rig_less[] = { 0x37, 0x33, 0x2a, 0x4005, 0 };
	static const unsigned long long rig_none[] = { 0x37, 0x33, 0x2a, 0x17, 0x4005, 0x24, 0 };
	struct fake_pmu rpmu = { .refuse = rig_codes };
	struct fake_pmu x86 = { 0 };
	unsigned int step = 99;
	const char *n;

	n = pick_name(&a76, SBRIDGE_EVTAB_LLC, &dsu, &step);
	CHECK(!strcmp(n, "LL_CACHE_MISS_RD") && step == 0, "A76 LLC: %s (step %u)", n, step);
	n = pick_name(&a76, SBRIDGE_EVTAB_STALL, &dsu, &step);
	CHECK(!strcmp(n, "STALL_BACKEND") && step == 1, "A76 without 0x4005 stall: %s (step %u)", n, step);
	n = pick_name(&x2, SBRIDGE_EVTAB_STALL, &v9, &step);
	CHECK(!strcmp(n, "STALL_BACKEND_MEM") && step == 0, "X2 stall: %s", n);
	n = pick_name(&a55, SBRIDGE_EVTAB_STALL, &dsu, &step);
	CHECK(!strcmp(n, "STALL_BACKEND_LD_CACHE") && step == 1, "A55 stall (IMP DEF): %s", n);
	n = pick_name(&a55, SBRIDGE_EVTAB_LLC, &no_ll, &step);
	CHECK(!strcmp(n, "L3D_CACHE_REFILL") && step == 2, "A55 without LL_CACHE_*: %s", n);
	n = pick_name(&a53, SBRIDGE_EVTAB_LLC, &v80, &step);
	CHECK(!strcmp(n, "L2D_CACHE_REFILL") && step == 0, "A53 LLC: %s", n);
	n = pick_name(&a53, SBRIDGE_EVTAB_STALL, &v80, &step);
	CHECK(!strcmp(n, "LD_DEP_STALL"), "A53 stall: %s", n);
	n = pick_name(&a76, SBRIDGE_EVTAB_LLC, &bare, &step);
	CHECK(!strcmp(n, "none"), "a PMU with no cache events: LLC %s", n);
	n = pick_name(&adlp, SBRIDGE_EVTAB_STALL, &x86, &step);
	CHECK(!strcmp(n, "CYCLE_ACTIVITY.STALLS_L3_MISS"), "ADL P-core stall: %s", n);
	n = pick_name(&zen4, SBRIDGE_EVTAB_LLC, &x86, &step);
	CHECK(!strcmp(n, "ls_any_fills_from_sys.dram_io_all"), "Zen 4 LLC: %s", n);
	n = pick_name(&m1, SBRIDGE_EVTAB_LLC, &x86, &step);
	CHECK(!strcmp(n, "none"), "Apple PMU: no table entry (%s): generic events", n);
	/* the rig: default, then fewer events, then none */
	n = pick_name(&rig, SBRIDGE_EVTAB_LLC, &rpmu, &step);
	CHECK(!strcmp(n, "LL_CACHE_MISS") && step == 1, "rig LLC: %s (step %u)", n, step);
	n = pick_name(&rig, SBRIDGE_EVTAB_STALL, &rpmu, &step);
	CHECK(!strcmp(n, "STALL_BACKEND_MEM") && step == 0, "rig stall: %s", n);
	rpmu.refuse = rig_less;
	n = pick_name(&rig, SBRIDGE_EVTAB_LLC, &rpmu, &step);
	CHECK(!strcmp(n, "L2D_CACHE_REFILL") && step == 3, "rig refusing LL/L3: %s", n);
	n = pick_name(&rig, SBRIDGE_EVTAB_STALL, &rpmu, &step);
	CHECK(!strcmp(n, "STALL_BACKEND") && step == 1, "rig refusing 0x4005: %s", n);
	rpmu.refuse = rig_none;
	n = pick_name(&rig, SBRIDGE_EVTAB_LLC, &rpmu, &step);
	CHECK(!strcmp(n, "none"), "rig refusing every miss event: %s", n);
}

static void test_pmceid(void)
{
	CHECK(sbridge_evtab_pmuv3_has(1ULL << 0x37, 0, 0x37), "PMCEID bit 0x37");
	CHECK(!sbridge_evtab_pmuv3_has(~(1ULL << 0x37), 0, 0x37), "PMCEID without 0x37");
	CHECK(sbridge_evtab_pmuv3_has(0, 1ULL << 5, 0x4005), "PMCEID ext bit 5 is 0x4005");
	CHECK(!sbridge_evtab_pmuv3_has(~0ULL, 0, 0x4005), "no ext bits: no 0x4005");
	CHECK(sbridge_evtab_pmuv3_has(0, 0, 0xe9), "IMP DEF events are trusted");
}

int main(void)
{
	printf("TAP version 13\n");
	test_find();
	test_table();
	test_pick();
	test_pmceid();
	return TAP_DONE();
}
