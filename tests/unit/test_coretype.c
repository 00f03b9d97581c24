// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of sbridge-core/coretype.c and the grouping after it
 * (model.c's sbridge_group_types()): the core types sbridge finds on real
 * boards, as the kernel describes them to the module, mixed boards
 * included. Prints TAP.
 *
 * Where the values come from: MIDRs are the parts' published MIDR_EL1
 * (arch/arm64/include/asm/cputype.h) with the revisions the boards report;
 * maximum frequencies are the vendors' specifications; CPUID 0x1A EAX is
 * 0x40000001 on Golden Cove and 0x20000001 on Gracemont. HWP highest
 * performance and AMD preferred-core rankings are not captured from
 * machines here: the values below are shaped like the ones such machines
 * publish (P-cores above E-cores, favoured cores a step above the rest,
 * Zen 5c well below Zen 5), which is what the rules must get right.
 */
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "coretype.h"

#define MAXCPU	32

struct board {
	const char *name;
	unsigned int n;
	struct sbridge_ct_cpu cpu[MAXCPU];
	u32 want_from;
	int want_types;
	/* CPUs expected in the fastest type, as a bitmask */
	unsigned long long want_fast;
};

static struct board boards[16];
static unsigned int nboards;

static struct board *add(const char *name, u32 from, int types)
{
	struct board *b = &boards[nboards++];

	memset(b, 0, sizeof(*b));
	b->name = name;
	b->want_from = from;
	b->want_types = types;
	return b;
}

/* @count CPUs (SMT @smt threads per core) of one kind. */
static void cpus(struct board *b, unsigned int count, unsigned int smt, u32 capacity,
		 u32 khz, u32 midr, u8 x86_type, u32 perf, bool amd, bool fast)
{
	unsigned int i, first = b->n;

	for (i = 0; i < count; i++) {
		struct sbridge_ct_cpu *c = &b->cpu[b->n];

		c->capacity = capacity;
		c->max_khz = khz;
		c->midr = midr;
		c->x86_type = x86_type;
		c->perf = perf;
		c->amd = amd;
		c->core = first + i - (i % smt);
		if (fast)
			b->want_fast |= 1ULL << b->n;
		b->n++;
	}
}

static void build(void)
{
	struct board *b;

	/* RK3588, kernel capacities from rk3588s.dtsi (A55 530, A76 1024 dmips/MHz) x clocks */
	b = add("RK3588 A76+A55, DT capacities", SBRIDGE_TYPES_CAPACITY, 2);
	cpus(b, 4, 1, 397, 1800000, 0x412fd050, 0, 0, false, false);
	cpus(b, 4, 1, 1024, 2400000, 0x414fd0b0, 0, 0, false, true);
	/* RK3588 booted through ACPI (EDK2): one capacity, MIDRs differ */
	b = add("RK3588 A76+A55, ACPI, one capacity", SBRIDGE_TYPES_MIDR, 2);
	cpus(b, 4, 1, 1024, 1800000, 0x412fd050, 0, 0, false, false);
	cpus(b, 4, 1, 1024, 2400000, 0x414fd0b0, 0, 0, false, true);
	/* Snapdragon 888: 1 X1 @2.84 + 3 A78 @2.42 + 4 A55 @1.80, one capacity */
	b = add("SD888 X1+A78+A55, one capacity", SBRIDGE_TYPES_MIDR, 3);
	cpus(b, 4, 1, 1024, 1804800, 0x411fd050, 0, 0, false, false);
	cpus(b, 3, 1, 1024, 2419200, 0x411fd410, 0, 0, false, false);
	cpus(b, 1, 1, 1024, 2841600, 0x411fd440, 0, 0, false, true);
	/* Graviton2: 64 N1 at one clock, but 32 here: one type */
	b = add("Graviton2 (N1 only)", SBRIDGE_TYPES_CAPACITY, 1);
	cpus(b, 32, 1, 1024, 2500000, 0x413fd0c1, 0, 0, false, true);
	/* i7-12700: 8 P-cores with HT (16 CPUs) + 4 E-cores; 6.1 says 1024 everywhere */
	b = add("i7-12700 P+E with HT, one capacity", SBRIDGE_TYPES_X86_HYBRID, 2);
	cpus(b, 4, 2, 1024, 4900000, 0, SBRIDGE_CT_X86_CORE, 64, false, true);
	cpus(b, 12, 2, 1024, 4700000, 0, SBRIDGE_CT_X86_CORE, 62, false, true);
	cpus(b, 4, 1, 1024, 3600000, 0, SBRIDGE_CT_X86_ATOM, 36, false, false);
	/* the same without HWP (a guest): the cpufreq maxima */
	b = add("P+E without HWP", SBRIDGE_TYPES_X86_HYBRID, 2);
	cpus(b, 16, 2, 1024, 4900000, 0, SBRIDGE_CT_X86_CORE, 0, false, true);
	cpus(b, 4, 1, 1024, 3600000, 0, SBRIDGE_CT_X86_ATOM, 0, false, false);
	/* Linux 6.12+, HT off: intel_pstate sets hybrid capacities: they win */
	b = add("P+E without SMT on 6.12 (kernel capacities)", SBRIDGE_TYPES_CAPACITY, 2);
	cpus(b, 8, 1, 1024, 4900000, 0, SBRIDGE_CT_X86_CORE, 64, false, true);
	cpus(b, 4, 1, 590, 3600000, 0, SBRIDGE_CT_X86_ATOM, 36, false, false);
	/* Ryzen AI 9 HX 370: 4 Zen 5 + 8 Zen 5c, SMT; rankings step within each */
	b = add("Zen 5 + Zen 5c with SMT", SBRIDGE_TYPES_RANKING, 2);
	cpus(b, 2, 2, 1024, 5100000, 0, 0, 236, true, true);
	cpus(b, 6, 2, 1024, 5100000, 0, 0, 226, true, true);
	cpus(b, 8, 2, 1024, 3300000, 0, 0, 151, true, false);
	cpus(b, 8, 2, 1024, 3300000, 0, 0, 146, true, false);
	/* Ryzen 9 7950X: rankings in small steps down one design: one type */
	b = add("Zen 4 desktop, ranking steps", SBRIDGE_TYPES_CAPACITY, 1);
	cpus(b, 4, 2, 1024, 5700000, 0, 0, 236, true, true);
	cpus(b, 4, 2, 1024, 5700000, 0, 0, 226, true, true);
	cpus(b, 4, 2, 1024, 5700000, 0, 0, 211, true, true);
	cpus(b, 4, 2, 1024, 5700000, 0, 0, 196, true, true);
	/* the paper's x86 setup: one design, two clocks */
	b = add("one design at 3.2 and 1.6 GHz", SBRIDGE_TYPES_CPUFREQ, 2);
	cpus(b, 2, 1, 1024, 3200000, 0, 0, 0, false, true);
	cpus(b, 2, 1, 1024, 1600000, 0, 0, 0, false, false);
	/* an offline/impossible CPU (capacity 0) is not a type of its own */
	b = add("A76+A55 with a CPU not present", SBRIDGE_TYPES_MIDR, 2);
	cpus(b, 3, 1, 1024, 1800000, 0x412fd050, 0, 0, false, false);
	cpus(b, 1, 1, 0, 0, 0, 0, 0, false, false);
	cpus(b, 4, 1, 1024, 2400000, 0x414fd0b0, 0, 0, false, true);
}

static void test_boards(void)
{
	unsigned int i, j;

	for (i = 0; i < nboards; i++) {
		struct board *b = &boards[i];
		u32 cap[MAXCPU] = { 0 }, type_cap[SBRIDGE_MAX_CORE_TYPES];
		u8 type[MAXCPU];
		unsigned long long fast = 0;
		u32 from = sbridge_ct_classify(b->cpu, b->n, cap);
		int nt = sbridge_group_types(cap, b->n, type, type_cap,
					     SBRIDGE_MAX_CORE_TYPES);

		CHECK(from == b->want_from, "%s: found by %s (want %s)", b->name,
		      sbridge_ct_from_name(from), sbridge_ct_from_name(b->want_from));
		EQ(nt, b->want_types, b->name);
		for (j = 0; j < b->n; j++)
			if (cap[j] && type[j] == nt - 1)
				fast |= 1ULL << j;
		CHECK(fast == b->want_fast, "%s: fastest type CPUs 0x%llx (want 0x%llx)",
		      b->name, fast, b->want_fast);
	}
}

static void test_details(void)
{
	struct sbridge_ct_cpu c[4] = { 0 };
	u32 cap[4] = { 0 };

	/* SMT: a sibling takes its core's performance, not its own */
	c[0] = (struct sbridge_ct_cpu){ 1024, 4900000, 0, SBRIDGE_CT_X86_CORE, 64, false, 0 };
	c[1] = (struct sbridge_ct_cpu){ 1024, 4900000, 0, SBRIDGE_CT_X86_CORE, 0, false, 0 };
	c[2] = (struct sbridge_ct_cpu){ 1024, 3600000, 0, SBRIDGE_CT_X86_ATOM, 32, false, 2 };
	c[3] = (struct sbridge_ct_cpu){ 1024, 3600000, 0, SBRIDGE_CT_X86_ATOM, 32, false, 3 };
	EQ(sbridge_ct_classify(c, 4, cap), SBRIDGE_TYPES_X86_HYBRID, "hybrid with a sibling that reads 0");
	CHECK(cap[0] == 1024 && cap[1] == 1024 && cap[2] == 512 && cap[3] == 512,
	      "HWP 64 vs 32: capacities %u %u %u %u", cap[0], cap[1], cap[2], cap[3]);
	/* ranking: a drop of exactly 1/8 stays one type, more splits */
	memset(c, 0, sizeof(c));
	c[0] = (struct sbridge_ct_cpu){ 1024, 0, 0, 0, 200, true, 0 };
	c[1] = (struct sbridge_ct_cpu){ 1024, 0, 0, 0, 175, true, 1 };
	EQ(sbridge_ct_classify(c, 2, cap), SBRIDGE_TYPES_CAPACITY, "ranking 200 -> 175 (1/8): one type");
	c[1].perf = 174;
	EQ(sbridge_ct_classify(c, 2, cap), SBRIDGE_TYPES_RANKING, "ranking 200 -> 174: two types");
	CHECK(cap[0] == 1024 && cap[1] == 890, "ranking capacities %u %u", cap[0], cap[1]);
	/* an AMD CPU without a ranking: no ranking types */
	c[1].perf = 0;
	EQ(sbridge_ct_classify(c, 2, cap), SBRIDGE_TYPES_CAPACITY, "a CPU without ranking: no types from rankings");
	/* tiers */
	EQ(sbridge_ct_arm_tier(0x410fd034), 512, "A53 tier");
	EQ(sbridge_ct_arm_tier(0x411fd440), 1280, "X1 tier");
	EQ(sbridge_ct_arm_tier(0x611f0220), 1024, "Apple part: neutral tier");
}

int main(void)
{
	printf("TAP version 13\n");
	build();
	test_boards();
	test_details();
	return TAP_DONE();
}
