// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU hardware counters: probing, raw event codes, CPU hotplug and the
 * context-switch read path.
 *
 * Every CPU gets one pinned, counting (no sampling), per-CPU kernel event
 * per kind the model reads (cycles, instructions, LLC misses, backend stall
 * cycles) through perf_event_create_kernel_counter(). Events are created by
 * the CPU hotplug "online" callback and released by the "offline" callback;
 * both run in the target CPU's hotplug thread.
 *
 * The LLC-miss and stall kinds come from the table of events per core
 * model (evtab.c, docs/pmu-events.md): the CPU's MIDR, x86 family/model or
 * hybrid PMU picks a chain of hardware events, and the first the PMU has
 * (on Arm PMUv3: that its PMCEID advertises, then that opens) is used.
 * The generic PERF_COUNT_HW_CACHE_MISSES is not a last-level miss count
 * everywhere (PMUv3 maps it to L1D refills, AMD Zen to L2 misses), so a
 * CPU the table knows never falls back to it unless its chain says so.
 * raw_events= still wins over the table, kind by kind.
 *
 * Where the CPU's PMU counts instruction classes (Arm PMUv3's common
 * events LDST_SPEC, DP_SPEC, ASE_SPEC, VFP_SPEC and BR_RETIRED, which the
 * emulation rig's rig_pmu serves too), five more events count them for
 * the mix predictor. Kernel counters cannot be grouped
 * (perf_event_create_kernel_counter() takes no group leader), so they are
 * flexible events: they never take a counter from the pinned CPI-stack
 * events, and when the PMU has too few counters perf rotates them (every
 * perf_event_mux_interval_ms) and each is scaled by its time enabled over
 * running. On a Cortex-A7 (four counters besides the cycle counter) the
 * five class events rotate through the one counter the CPI stack leaves:
 * the shares are then estimates from about a fifth of the time each.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/topology.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#if IS_ENABLED(CONFIG_ARM_PMU) && defined(CONFIG_ARM64)
#include <linux/perf/arm_pmu.h>
#include <asm/cputype.h>
#endif
#ifdef CONFIG_X86
#include <asm/processor.h>
#endif

#include <sbridge/compat.h>
#include "evtab.h"
#include "pmu.h"

const char * const sbridge_pmu_kind_name[SBRIDGE_PMU_NR_KINDS] = {
	[SBRIDGE_PMU_CYCLES]		= "cycles",
	[SBRIDGE_PMU_INSTRUCTIONS]	= "instructions",
	[SBRIDGE_PMU_LLC_MISSES]	= "llc_misses",
	[SBRIDGE_PMU_STALL]		= "stall_cycles",
	[SBRIDGE_PMU_LDST]		= "ldst",
	[SBRIDGE_PMU_DP]		= "int",
	[SBRIDGE_PMU_ASE]		= "ase",
	[SBRIDGE_PMU_VFP]		= "vfp",
	[SBRIDGE_PMU_BR]		= "branch",
};

const u32 sbridge_pmu_kind_ev[SBRIDGE_PMU_NR_KINDS] = {
	[SBRIDGE_PMU_CYCLES]		= SBRIDGE_EV_CYCLES,
	[SBRIDGE_PMU_INSTRUCTIONS]	= SBRIDGE_EV_INSTRUCTIONS,
	[SBRIDGE_PMU_LLC_MISSES]	= SBRIDGE_EV_LLC_MISSES,
	[SBRIDGE_PMU_STALL]		= SBRIDGE_EV_STALL_CYCLES,
	[SBRIDGE_PMU_LDST]		= SBRIDGE_EV_MIX,
	[SBRIDGE_PMU_DP]		= SBRIDGE_EV_MIX,
	[SBRIDGE_PMU_ASE]		= SBRIDGE_EV_MIX,
	[SBRIDGE_PMU_VFP]		= SBRIDGE_EV_MIX,
	[SBRIDGE_PMU_BR]		= SBRIDGE_EV_MIX,
};

/* Generic perf mapping used unless raw_events= gives a code. */
static const u64 sbridge_pmu_generic[SBRIDGE_PMU_FIRST_MIX] = {
	[SBRIDGE_PMU_CYCLES]		= PERF_COUNT_HW_CPU_CYCLES,
	[SBRIDGE_PMU_INSTRUCTIONS]	= PERF_COUNT_HW_INSTRUCTIONS,
	[SBRIDGE_PMU_LLC_MISSES]	= PERF_COUNT_HW_CACHE_MISSES,
	[SBRIDGE_PMU_STALL]		= PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
};

/*
 * The instruction classes as Arm PMUv3 common events (the Arm ARM's
 * numbers, arch/arm64's perf_event.h names), used on the CPU's own PMU
 * when it is a PMUv3 one or the rig's. x86 has no per-class counts of
 * this kind in its architectural events (branches only; FP_ARITH and
 * MEM_INST_RETIRED are model-specific): raw_events= can name them there.
 */
static const u64 sbridge_pmu_mix_code[SBRIDGE_PMU_NR_KINDS] = {
	[SBRIDGE_PMU_LDST]		= 0x72,	/* LDST_SPEC */
	[SBRIDGE_PMU_DP]		= 0x73,	/* DP_SPEC */
	[SBRIDGE_PMU_ASE]		= 0x74,	/* ASE_SPEC */
	[SBRIDGE_PMU_VFP]		= 0x75,	/* VFP_SPEC */
	[SBRIDGE_PMU_BR]		= 0x21,	/* BR_RETIRED */
};

/* The PMU of a CPU's cycle counter serves the Arm common class events. */
static bool sbridge_pmu_knows_mix(const char *pmu_name)
{
	return !strncmp(pmu_name, "armv8_", 6) || !strncmp(pmu_name, "armv9_", 6) ||
	       !strcmp(pmu_name, "rig_pmu");
}

#define SBRIDGE_PMU_MAX_RAW	SBRIDGE_MAX_CORE_TYPES
#define SBRIDGE_PMU_NAME_LEN	32

/**
 * struct sbridge_pmu_raw - raw event codes for one core type
 * @key: PMU name of that core type's cycle counter (as in
 *	/sys/bus/event_source/devices, e.g. "armv8_cortex_a53", "cpu_atom"),
 *	or "*" for every CPU no other entry names
 * @mask: bit per kind that has a code
 * @code: raw event code per kind (perf_event_attr.config)
 *
 * Written only by sbridge_pmu_parse_raw_events() before any CPU is set
 * up, read-only afterwards: no locking.
 */
struct sbridge_pmu_raw {
	char key[SBRIDGE_PMU_NAME_LEN];
	u32 mask;
	u64 code[SBRIDGE_PMU_NR_KINDS];
};

static struct sbridge_pmu_raw sbridge_pmu_raw[SBRIDGE_PMU_MAX_RAW];
static unsigned int sbridge_pmu_nr_raw;

/**
 * struct sbridge_pmu_cpu - counters of one CPU
 * @ev: the events; published with smp_store_release() by the hotplug
 *	callback once created, set to NULL before release. Readers use
 *	smp_load_acquire() on the owning CPU with IRQs off.
 * @prev: raw count at the previous read (owned by the read path)
 * @prev_en: total_time_enabled at the previous read (read path)
 * @prev_run: total_time_running at the previous read (read path)
 * @primed: @prev is valid; set to false by the hotplug callback before
 *	@ev is published, then owned by the read path
 * @reads: read_delta() calls on this CPU since load (read path; other
 *	CPUs read it racily for the `counts` report)
 * @mix_tick: this slice's place in the mix_every cycle (read path)
 * @total: sum of the deltas handed out per kind (same rules as @reads)
 * @mask: kinds open on this CPU (hotplug callback; readers hold
 *	cpus_read_lock())
 * @raw: kinds opened from a raw code (same rules as @mask)
 * @pmu_name: PMU of the cycle counter, "" if none (same rules as @mask)
 * @core: the event table's entry for this CPU, NULL if none (same rules)
 * @tab: per table kind, the table's event in use, NULL if none or not
 *	from the table (same rules)
 * @step: per table kind, its place in the fallback chain (same rules)
 */
struct sbridge_pmu_cpu {
	struct perf_event *ev[SBRIDGE_PMU_NR_KINDS];
	u64 prev[SBRIDGE_PMU_NR_KINDS];
	u64 prev_en[SBRIDGE_PMU_NR_KINDS];
	u64 prev_run[SBRIDGE_PMU_NR_KINDS];
	bool primed[SBRIDGE_PMU_NR_KINDS];
	u64 reads;
	u32 mix_tick;
	u64 total[SBRIDGE_PMU_NR_KINDS];
	u32 mask;
	u32 raw;
	char pmu_name[SBRIDGE_PMU_NAME_LEN];
	const struct sbridge_evtab_core *core;
	const struct sbridge_evtab_event *tab[SBRIDGE_EVTAB_NR_KINDS];
	u8 step[SBRIDGE_EVTAB_NR_KINDS];
};

static DEFINE_PER_CPU(struct sbridge_pmu_cpu, sbridge_pmu_cpu);
static enum cpuhp_state sbridge_pmu_hp_state;

/* ---- raw_events= parsing ------------------------------------------------ */

static int sbridge_pmu_kind_by_name(const char *name)
{
	int i;

	for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++)
		if (!strcmp(name, sbridge_pmu_kind_name[i]))
			return i;
	return -1;
}

static bool sbridge_pmu_key_ok(const char *key)
{
	const char *p;

	if (!strcmp(key, "*"))
		return true;
	if (!*key || strlen(key) >= SBRIDGE_PMU_NAME_LEN)
		return false;
	for (p = key; *p; p++)
		if (!isalnum(*p) && *p != '_' && *p != '-' && *p != '.')
			return false;
	return true;
}

/* Parse "kind=code[,kind=code...]" into @r. */
static int sbridge_pmu_parse_codes(struct sbridge_pmu_raw *r, char *list)
{
	char *item;

	while ((item = strsep(&list, ",")) != NULL) {
		char *val = strchr(item, '=');
		int kind;
		u64 code;

		if (!val) {
			pr_err("raw_events: '%s' is not kind=code\n", item);
			return -EINVAL;
		}
		*val++ = '\0';
		kind = sbridge_pmu_kind_by_name(item);
		if (kind < 0) {
			pr_err("raw_events: unknown event '%s' (cycles, instructions, llc_misses, stall_cycles, ldst, int, ase, vfp, branch)\n",
			       item);
			return -EINVAL;
		}
		if (r->mask & BIT(kind)) {
			pr_err("raw_events: '%s' given twice for '%s'\n",
			       item, r->key);
			return -EINVAL;
		}
		if (!*val || kstrtou64(val, 0, &code)) {
			pr_err("raw_events: bad code '%s' for '%s'\n", val, item);
			return -EINVAL;
		}
		r->code[kind] = code;
		r->mask |= BIT(kind);
	}
	return 0;
}

/**
 * sbridge_pmu_parse_raw_events() - parse the raw_events= module parameter
 * @spec: "key:kind=code[,kind=code...][;key:...]"; NULL or "" means none
 *
 * Strict: any syntax error, unknown kind, duplicate or bad number fails
 * with a message and leaves no entry set. Called once from module init,
 * before any counter exists.
 *
 * Return: 0 or -EINVAL / -ENOMEM.
 */
int sbridge_pmu_parse_raw_events(const char *spec)
{
	char *copy, *rest, *entry;
	unsigned int n = 0, i;
	int ret = 0;

	if (!spec || !*spec)
		return 0;
	copy = kstrdup(spec, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	rest = strim(copy);
	while ((entry = strsep(&rest, ";")) != NULL) {
		struct sbridge_pmu_raw *r;
		char *codes = strchr(entry, ':');

		if (!codes) {
			pr_err("raw_events: '%s' has no 'key:' (PMU name or *)\n",
			       entry);
			ret = -EINVAL;
			break;
		}
		*codes++ = '\0';
		if (!sbridge_pmu_key_ok(entry)) {
			pr_err("raw_events: bad key '%s' (PMU name or *)\n", entry);
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < n; i++)
			if (!strcmp(sbridge_pmu_raw[i].key, entry))
				break;
		if (i < n) {
			pr_err("raw_events: key '%s' given twice\n", entry);
			ret = -EINVAL;
			break;
		}
		if (n == SBRIDGE_PMU_MAX_RAW) {
			pr_err("raw_events: at most %d keys\n", SBRIDGE_PMU_MAX_RAW);
			ret = -EINVAL;
			break;
		}
		r = &sbridge_pmu_raw[n++];
		strscpy(r->key, entry, sizeof(r->key));
		ret = sbridge_pmu_parse_codes(r, codes);
		if (ret)
			break;
	}
	kfree(copy);
	if (ret) {
		memset(sbridge_pmu_raw, 0, sizeof(sbridge_pmu_raw));
		n = 0;
	}
	sbridge_pmu_nr_raw = n;
	return ret;
}

static const struct sbridge_pmu_raw *sbridge_pmu_raw_for(const char *pmu_name)
{
	const struct sbridge_pmu_raw *any = NULL;
	unsigned int i;

	for (i = 0; i < sbridge_pmu_nr_raw; i++) {
		if (!strcmp(sbridge_pmu_raw[i].key, "*"))
			any = &sbridge_pmu_raw[i];
		else if (*pmu_name && !strcmp(sbridge_pmu_raw[i].key, pmu_name))
			return &sbridge_pmu_raw[i];
	}
	return any;
}

/* ---- event creation / release (hotplug thread, may sleep) ---------------- */

static struct perf_event *sbridge_pmu_open(unsigned int cpu, u32 type, u64 config,
					   bool pinned)
{
	struct perf_event_attr attr = {
		.type		= type,
		.size		= sizeof(attr),
		.config		= config,
		/* pinned: never rotated out, no multiplexing gaps */
		.pinned		= pinned,
		/*
		 * The task's own code only (docs/estimate.md, "User mode
		 * only"): the kernel work counted while a task runs is as
		 * much interrupts, softirqs and the scheduler's as its own.
		 */
		.exclude_kernel	= !sbridge_pmu_kernel,
		.exclude_hv	= !sbridge_pmu_kernel,
	};
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev) && attr.exclude_kernel &&
	    (PTR_ERR(ev) == -EINVAL || PTR_ERR(ev) == -EOPNOTSUPP)) {
		/* a PMU that cannot filter by mode (PERF_PMU_CAP_NO_EXCLUDE) */
		attr.exclude_kernel = 0;
		attr.exclude_hv = 0;
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (!IS_ERR(ev))
			pr_info_once("cpu%u: %s cannot leave kernel mode out: counting every mode\n",
				     cpu, ev->pmu->name ?: "the PMU");
	}
	if (IS_ERR(ev))
		return ev;
	/*
	 * A pinned event that cannot get a counter goes to ERROR state at
	 * install time instead of failing: treat it as missing. A flexible
	 * one may wait for its turn (INACTIVE) but not be in error.
	 */
	if (pinned ? READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE :
		     READ_ONCE(ev->state) < PERF_EVENT_STATE_INACTIVE) {
		perf_event_release_kernel(ev);
		return ERR_PTR(-EBUSY);
	}
	return ev;
}

/* ---- the event table (evtab.c) ------------------------------------------ */

#if IS_ENABLED(CONFIG_ARM_PMU) && defined(CONFIG_ARM64)
static void sbridge_pmu_read_midr(void *arg)
{
	*(u32 *)arg = read_cpuid_id();
}
#endif

/* What identifies @cpu's core model for the table; @pmu_name its PMU. */
static void sbridge_pmu_describe(unsigned int cpu, const char *pmu_name,
				 struct sbridge_evtab_cpu *d)
{
	memset(d, 0, sizeof(*d));
	d->pmu = pmu_name;
#if IS_ENABLED(CONFIG_ARM_PMU) && defined(CONFIG_ARM64)
	d->arch = SBRIDGE_EVTAB_ARCH_ARM64;
	smp_call_function_single(cpu, sbridge_pmu_read_midr, &d->midr, 1);
#elif defined(CONFIG_X86)
	{
		const struct cpuinfo_x86 *ci = &cpu_data(cpu);

		if (ci->x86_vendor == X86_VENDOR_INTEL)
			d->arch = SBRIDGE_EVTAB_ARCH_INTEL;
		else if (ci->x86_vendor == X86_VENDOR_AMD ||
			 ci->x86_vendor == X86_VENDOR_HYGON)
			d->arch = SBRIDGE_EVTAB_ARCH_AMD;
		d->family = ci->x86;
		d->model = ci->x86_model;
	}
#endif
}

/*
 * Does the PMU of @pmu have common event @config? Only an Arm PMUv3
 * driver's PMU says (PMCEID): it accepts any number and an unimplemented
 * common event then counts nothing. Elsewhere the open decides.
 */
static bool sbridge_pmu_advertises(struct pmu *pmu, u64 config)
{
#if IS_ENABLED(CONFIG_ARM_PMU) && defined(CONFIG_ARM64)
	if (pmu && pmu->name && (!strncmp(pmu->name, "armv8_", 6) ||
				 !strncmp(pmu->name, "armv9_", 6))) {
		struct arm_pmu *ap = to_arm_pmu(pmu);

		return sbridge_evtab_pmuv3_has(ap->pmceid_bitmap[0],
					       ap->pmceid_ext_bitmap[0], config);
	}
#endif
	return true;
}

/* One attempt of a fallback chain: sbridge_evtab_pick()'s @has. */
struct sbridge_pmu_try {
	unsigned int cpu;
	unsigned int kind;	/* enum sbridge_pmu_kind */
	u32 pmu_type;
	struct pmu *pmu;
	struct perf_event *ev;
};

static bool sbridge_pmu_try_open(const struct sbridge_evtab_event *e, void *arg)
{
	struct sbridge_pmu_try *t = arg;

	if (e->common && !sbridge_pmu_advertises(t->pmu, e->config))
		return false;
	if (e->config == SBRIDGE_EVTAB_GENERIC)
		t->ev = sbridge_pmu_open(t->cpu, PERF_TYPE_HARDWARE,
					 sbridge_pmu_generic[t->kind], true);
	else
		t->ev = sbridge_pmu_open(t->cpu, t->pmu_type, e->config, true);
	if (IS_ERR(t->ev)) {
		t->ev = NULL;
		return false;
	}
	return true;
}

/* The table kind of a counter kind, or -1 if the table has none for it. */
static int sbridge_pmu_tab_kind(int kind)
{
	if (kind == SBRIDGE_PMU_LLC_MISSES)
		return SBRIDGE_EVTAB_LLC;
	if (kind == SBRIDGE_PMU_STALL)
		return SBRIDGE_EVTAB_STALL;
	return -1;
}

/*
 * Opens @kind on @pc's CPU from the table's chain; ERR_PTR(-ENOENT) when
 * the chain is empty or nothing in it exists. Records what it took.
 */
static struct perf_event *sbridge_pmu_open_tab(unsigned int cpu,
					       struct sbridge_pmu_cpu *pc,
					       int kind, u32 pmu_type,
					       struct pmu *pmu)
{
	struct sbridge_pmu_try t = {
		.cpu = cpu, .kind = kind, .pmu_type = pmu_type, .pmu = pmu,
	};
	int tk = sbridge_pmu_tab_kind(kind);
	unsigned int step = 0;

	pc->tab[tk] = sbridge_evtab_pick(pc->core, tk, sbridge_pmu_try_open,
					 &t, &step);
	pc->step[tk] = step;
	if (!pc->tab[tk])
		return ERR_PTR(-ENOENT);
	return t.ev;
}

static int sbridge_pmu_cpu_online(unsigned int cpu)
{
	struct sbridge_pmu_cpu *pc = per_cpu_ptr(&sbridge_pmu_cpu, cpu);
	struct perf_event *ev[SBRIDGE_PMU_NR_KINDS] = { };
	const struct sbridge_pmu_raw *raw;
	struct sbridge_evtab_cpu desc;
	u32 pmu_type = PERF_TYPE_RAW;
	struct pmu *pmu = NULL;
	int i;

	pc->mask = 0;
	pc->raw = 0;
	pc->pmu_name[0] = '\0';
	memset(pc->tab, 0, sizeof(pc->tab));

	/* The generic cycle counter tells which PMU (core type) this CPU has. */
	ev[SBRIDGE_PMU_CYCLES] = sbridge_pmu_open(cpu, PERF_TYPE_HARDWARE,
						  PERF_COUNT_HW_CPU_CYCLES, true);
	if (!IS_ERR(ev[SBRIDGE_PMU_CYCLES])) {
		pmu = ev[SBRIDGE_PMU_CYCLES]->pmu;
		pmu_type = pmu->type;
		strscpy(pc->pmu_name, pmu->name ? pmu->name : "?",
			sizeof(pc->pmu_name));
	}
	raw = sbridge_pmu_raw_for(pc->pmu_name);
	sbridge_pmu_describe(cpu, pc->pmu_name, &desc);
	/* no cycle counter, no PMU to ask: the generic events stay */
	pc->core = pmu ? sbridge_evtab_find(&desc) : NULL;

	for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++) {
		bool use_raw = raw && (raw->mask & BIT(i));
		bool mix = i >= SBRIDGE_PMU_FIRST_MIX;

		if (i == SBRIDGE_PMU_CYCLES && use_raw &&
		    !IS_ERR(ev[i])) {
			perf_event_release_kernel(ev[i]);
			ev[i] = NULL;
		}
		if (mix && (!sbridge_pmu_mix ||
			    (!use_raw && !sbridge_pmu_knows_mix(pc->pmu_name))))
			continue;
		if (i != SBRIDGE_PMU_CYCLES || use_raw) {
			if (use_raw)
				ev[i] = sbridge_pmu_open(cpu, pmu_type, raw->code[i], !mix);
			else if (mix)
				ev[i] = sbridge_pmu_open(cpu, pmu_type,
							 sbridge_pmu_mix_code[i], false);
			else if (pc->core && sbridge_pmu_tab_kind(i) >= 0)
				ev[i] = sbridge_pmu_open_tab(cpu, pc, i, pmu_type, pmu);
			else
				ev[i] = sbridge_pmu_open(cpu, PERF_TYPE_HARDWARE,
							 sbridge_pmu_generic[i], true);
		}
		if (IS_ERR(ev[i])) {
			pr_debug("cpu%u: %s%s unavailable (%ld)\n", cpu,
				 use_raw ? "raw " : "", sbridge_pmu_kind_name[i],
				 PTR_ERR(ev[i]));
			ev[i] = NULL;
			continue;
		}
		pc->mask |= BIT(i);
		if (use_raw)
			pc->raw |= BIT(i);
	}

	/* Publish: the read path primes prev[] on its first look. */
	for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++) {
		if (!ev[i])
			continue;
		WRITE_ONCE(pc->primed[i], false);
		/* pairs with the acquire in the read path: primed is seen reset */
		smp_store_release(&pc->ev[i], ev[i]);
	}
	return 0;
}

static int sbridge_pmu_cpu_offline(unsigned int cpu)
{
	struct sbridge_pmu_cpu *pc = per_cpu_ptr(&sbridge_pmu_cpu, cpu);
	struct perf_event *ev[SBRIDGE_PMU_NR_KINDS];
	int i;

	for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++) {
		ev[i] = pc->ev[i];
		WRITE_ONCE(pc->ev[i], NULL);
	}
	/*
	 * The read path only runs on @cpu with IRQs off. In the hotplug
	 * thread of @cpu (the normal case) a reader runs entirely between two
	 * of our instructions, so none can still hold an event after the
	 * stores above. Anywhere else wait for readers: an IRQs-off region is
	 * an RCU read-side critical section.
	 */
	if (cpu != raw_smp_processor_id())
		synchronize_rcu();
	for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++)
		if (ev[i])
			perf_event_release_kernel(ev[i]);
	pc->mask = 0;
	pc->raw = 0;
	pc->pmu_name[0] = '\0';
	pc->core = NULL;
	memset(pc->tab, 0, sizeof(pc->tab));
	return 0;
}

/**
 * sbridge_pmu_counters_init() - create the counters on every online CPU
 *
 * Sets up a dynamic CPU hotplug state; its online callback runs on every
 * online CPU now and on every CPU that comes online later.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; nothing is left allocated on failure.
 */
int sbridge_pmu_counters_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "sbridge/pmu:online",
				sbridge_pmu_cpu_online, sbridge_pmu_cpu_offline);
	if (ret < 0) {
		pr_err("cannot set up CPU hotplug state (%d)\n", ret);
		return ret;
	}
	sbridge_pmu_hp_state = ret;
	return 0;
}

/**
 * sbridge_pmu_counters_exit() - release every counter
 *
 * The caller must have unregistered from the core first, so that no
 * read_delta() call can start any more.
 */
void sbridge_pmu_counters_exit(void)
{
	cpuhp_remove_state(sbridge_pmu_hp_state);
}

/**
 * sbridge_pmu_mix_complete() - a set of kinds gives every instruction class
 * @mask: kinds (BIT(enum sbridge_pmu_kind))
 *
 * Return: true with load/store, integer, branch and at least one of SIMD
 *	and scalar FP.
 */
bool sbridge_pmu_mix_complete(u32 mask)
{
	return (mask & SBRIDGE_PMU_MIX_NEED) == SBRIDGE_PMU_MIX_NEED &&
	       (mask & SBRIDGE_PMU_MIX_FP);
}

/**
 * sbridge_pmu_events_everywhere() - kinds open on every online CPU
 *
 * SBRIDGE_EV_MIX only when every online CPU counts all instruction
 * classes (sbridge_pmu_mix_complete()).
 *
 * Return: SBRIDGE_EV_* bits. Takes cpus_read_lock(): process context.
 */
u32 sbridge_pmu_events_everywhere(void)
{
	u32 mask = BIT(SBRIDGE_PMU_NR_KINDS) - 1, ev = 0;
	bool mix = true;
	unsigned int cpu;
	int i;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		u32 m = per_cpu_ptr(&sbridge_pmu_cpu, cpu)->mask;

		mask &= m;
		mix = mix && sbridge_pmu_mix_complete(m);
	}
	cpus_read_unlock();
	for (i = 0; i < SBRIDGE_PMU_FIRST_MIX; i++)
		if (mask & BIT(i))
			ev |= sbridge_pmu_kind_ev[i];
	if (mix)
		ev |= SBRIDGE_EV_MIX;
	return ev;
}

static bool sbridge_pmu_same_type(unsigned int a, unsigned int b)
{
	const struct sbridge_pmu_cpu *pa = per_cpu_ptr(&sbridge_pmu_cpu, a);
	const struct sbridge_pmu_cpu *pb = per_cpu_ptr(&sbridge_pmu_cpu, b);

	return pa->mask == pb->mask && pa->raw == pb->raw &&
	       !strcmp(pa->pmu_name, pb->pmu_name) && pa->core == pb->core &&
	       !memcmp(pa->tab, pb->tab, sizeof(pa->tab)) &&
	       arch_scale_cpu_capacity(a) == arch_scale_cpu_capacity(b);
}

/*
 * Calls @line for each group of online CPUs with the same PMU, capacity
 * and events (sbridge_pmu_same_type()), @cpu the group's first; @line
 * writes one line into @buf. Takes cpus_read_lock(): process context.
 * Returns the bytes written, or -ENOMEM.
 */
static int sbridge_pmu_format_groups(char *buf, size_t len,
				     int (*line)(char *buf, size_t len, unsigned int cpu,
						 const struct cpumask *group))
{
	cpumask_var_t done, group;
	unsigned int cpu, other;
	int n = 0;

	if (!zalloc_cpumask_var(&done, GFP_KERNEL))
		return -ENOMEM;
	if (!zalloc_cpumask_var(&group, GFP_KERNEL)) {
		free_cpumask_var(done);
		return -ENOMEM;
	}
	buf[0] = '\0';
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (cpumask_test_cpu(cpu, done))
			continue;
		cpumask_clear(group);
		for_each_online_cpu(other)
			if (!cpumask_test_cpu(other, done) &&
			    sbridge_pmu_same_type(cpu, other))
				cpumask_set_cpu(other, group);
		cpumask_or(done, done, group);
		n += line(buf + n, len - n, cpu, group);
	}
	cpus_read_unlock();
	free_cpumask_var(group);
	free_cpumask_var(done);
	return n;
}

/* One `events` line: "cpus 0-3 pmu armv8_pmuv3_0 capacity 1024: cycles". */
static int sbridge_pmu_events_line(char *buf, size_t len, unsigned int cpu,
				   const struct cpumask *group)
{
	const struct sbridge_pmu_cpu *pc = per_cpu_ptr(&sbridge_pmu_cpu, cpu);
	int n, i;

	n = scnprintf(buf, len, "cpus %*pbl pmu %s capacity %lu:",
		      cpumask_pr_args(group),
		      pc->pmu_name[0] ? pc->pmu_name : "none",
		      arch_scale_cpu_capacity(cpu));
	if (!pc->mask)
		n += scnprintf(buf + n, len - n, " none");
	for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++)
		if (pc->mask & BIT(i))
			n += scnprintf(buf + n, len - n, " %s%s",
				       sbridge_pmu_kind_name[i],
				       pc->raw & BIT(i) ? "(raw)" : "");
	return n + scnprintf(buf + n, len - n, "\n");
}

/**
 * sbridge_pmu_format_events() - describe what exists, one line per core type
 * @buf: output
 * @len: size of @buf
 *
 * A core type here is a set of online CPUs with the same PMU, the same
 * capacity and the same events, e.g.
 * "cpus 0-3 pmu armv8_pmuv3_0 capacity 1024: cycles".
 * Takes cpus_read_lock(): process context only.
 *
 * Return: bytes written (without the NUL), or -ENOMEM.
 */
int sbridge_pmu_format_events(char *buf, size_t len)
{
	return sbridge_pmu_format_groups(buf, len, sbridge_pmu_events_line);
}

/*
 * What @pc's kind @i counts when it is not an event of the table: "none",
 * "raw_events" or "generic"; NULL when it is the table's *@e.
 */
static const char *sbridge_pmu_kind_word(const struct sbridge_pmu_cpu *pc, int i,
					 const struct sbridge_evtab_event **e)
{
	int tk = sbridge_pmu_tab_kind(i);

	*e = tk >= 0 ? pc->tab[tk] : NULL;
	if (!(pc->mask & BIT(i)))
		return "none";
	if (pc->raw & BIT(i))
		return "raw_events";
	return *e ? NULL : "generic";
}

/* What @pc's kind @i counts, for the event_table report. */
static int sbridge_pmu_format_source(char *buf, size_t len,
				     const struct sbridge_pmu_cpu *pc, int i)
{
	int tk = sbridge_pmu_tab_kind(i);
	const struct sbridge_evtab_event *e;
	const char *word = sbridge_pmu_kind_word(pc, i, &e);

	if (word)
		return scnprintf(buf, len, "%s", word);
	if (e->config == SBRIDGE_EVTAB_GENERIC)
		return scnprintf(buf, len, "%s (generic)%s%s", e->name,
				 pc->step[tk] ? ", fallback: " : "",
				 pc->step[tk] ? e->cost : "");
	return scnprintf(buf, len, "%s 0x%llx%s%s", e->name, e->config,
			 pc->step[tk] ? ", fallback: " : "",
			 pc->step[tk] ? e->cost : "");
}

/* One `event_table` line (sbridge_pmu_format_table()). */
static int sbridge_pmu_table_line(char *buf, size_t len, unsigned int cpu,
				  const struct cpumask *group)
{
	const struct sbridge_pmu_cpu *pc = per_cpu_ptr(&sbridge_pmu_cpu, cpu);
	int n, i;

	n = scnprintf(buf, len, "cpus %*pbl core %s:", cpumask_pr_args(group),
		      pc->core ? pc->core->name : "unknown");
	for (i = 0; i < SBRIDGE_PMU_FIRST_MIX; i++) {
		n += scnprintf(buf + n, len - n, "%s %s ", i ? ";" : "",
			       sbridge_pmu_kind_name[i]);
		n += sbridge_pmu_format_source(buf + n, len - n, pc, i);
	}
	return n + scnprintf(buf + n, len - n, "\n");
}

/**
 * sbridge_pmu_format_table() - which event each kind counts, per core type
 * @buf: output
 * @len: size of @buf
 *
 * One line per group of online CPUs as sbridge_pmu_format_events() makes
 * them: "cpus 0-3 core Cortex-A76: llc_misses LL_CACHE_MISS_RD 0x37;
 * stall_cycles STALL_BACKEND 0x24, fallback: ...", the core model the
 * event table matched ("unknown" if none: generic events) and, per CPI
 * stack kind, the event (none, generic, raw_events, or the table's with
 * its code and, for a fallback, what it costs the model).
 * Takes cpus_read_lock(): process context only.
 *
 * Return: bytes written (without the NUL), or -ENOMEM.
 */
int sbridge_pmu_format_table(char *buf, size_t len)
{
	return sbridge_pmu_format_groups(buf, len, sbridge_pmu_table_line);
}

/**
 * sbridge_pmu_cpu_pmu() - the PMU @cpu counts with and the chain chosen
 * @cpu: CPU number
 * @name: gets the perf PMU of the cycle counter, e.g. "armv8_cortex_a76"
 * @name_len: size of @name
 * @chain: gets the event table's core model and what each of its kinds
 *	took, e.g. "Cortex-A76: llc_misses LL_CACHE_MISS_RD, stall_cycles
 *	STALL_BACKEND (fallback)" ("generic" without an entry; "none",
 *	"generic", "raw_events" for a kind the table did not give)
 * @chain_len: size of @chain
 *
 * The core's source op @pmu. The fields are the hotplug callback's; read
 * without its lock (the core calls this under RCU), so a CPU coming or
 * going online meanwhile may show half its old and half its new name,
 * never more than the buffer.
 *
 * Return: false if @cpu has no cycle counter (no PMU).
 */
bool sbridge_pmu_cpu_pmu(unsigned int cpu, char *name, size_t name_len,
			 char *chain, size_t chain_len)
{
	static const int kinds[] = { SBRIDGE_PMU_LLC_MISSES, SBRIDGE_PMU_STALL };
	const struct sbridge_evtab_core *core;
	const struct sbridge_evtab_event *e;
	const struct sbridge_pmu_cpu *pc;
	const char *word;
	unsigned int i;
	size_t n;

	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return false;
	pc = per_cpu_ptr(&sbridge_pmu_cpu, cpu);
	if (!READ_ONCE(pc->pmu_name[0]))
		return false;
	strscpy(name, pc->pmu_name, min_t(size_t, name_len, sizeof(pc->pmu_name)));
	core = READ_ONCE(pc->core);
	n = scnprintf(chain, chain_len, "%s:", core ? core->name : "generic");
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		word = sbridge_pmu_kind_word(pc, kinds[i], &e);
		n += scnprintf(chain + n, chain_len - n, "%s %s %s%s", i ? "," : "",
			       sbridge_pmu_kind_name[kinds[i]], word ?: e->name,
			       !word && pc->step[sbridge_pmu_tab_kind(kinds[i])] ?
			       " (fallback)" : "");
	}
	return true;
}

/* Longest "counts" line: cpu, reads and every kind with a u64. */
#define SBRIDGE_PMU_LINE	(32 + SBRIDGE_PMU_NR_KINDS * 40)

/**
 * sbridge_pmu_format_counts() - what read_delta() handed out, per CPU
 * @buf: output
 * @len: size of @buf
 *
 * One line per online CPU: "cpuN reads R cycles C instructions I ...",
 * totals since load (they survive hotplug). Lockless snapshot of values
 * only their CPU writes; for tests and debugging.
 *
 * Return: bytes written (without the NUL).
 */
int sbridge_pmu_format_counts(char *buf, size_t len)
{
	unsigned int cpu, more = 0;
	int n = 0, i;

	buf[0] = '\0';
	for_each_online_cpu(cpu) {
		const struct sbridge_pmu_cpu *pc = per_cpu_ptr(&sbridge_pmu_cpu, cpu);

		/* whole lines only; past the buffer, count what is left out */
		if (n + 2 * SBRIDGE_PMU_LINE > len) {
			more++;
			continue;
		}
		n += scnprintf(buf + n, len - n, "cpu%u reads %llu", cpu,
			       READ_ONCE(pc->reads));
		for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++)
			n += scnprintf(buf + n, len - n, " %s %llu",
				       sbridge_pmu_kind_name[i],
				       READ_ONCE(pc->total[i]));
		n += scnprintf(buf + n, len - n, "\n");
	}
	if (more)
		n += scnprintf(buf + n, len - n, "# %u more CPUs not shown\n", more);
	return n;
}

/* ---- context-switch read path (IRQs off, local CPU) ----------------------- */

/* @delta * @en / @run, saturated at U64_MAX. */
static u64 sbridge_pmu_scale(u64 delta, u64 en, u64 run)
{
	u64 q, r;

	if (!run || en <= run)
		return delta;
	while (en >> 32) {
		en >>= 1;
		run >>= 1;
	}
	if (!run)
		return delta;
	q = div64_u64_rem(delta, run, &r);
	/* r < run <= en < 2^32: only q * en can overflow; saturate */
	if (check_mul_overflow(q, en, &q) ||
	    check_add_overflow(q, div64_u64(r * en, run), &q))
		return U64_MAX;
	return q;
}

/**
 * sbridge_pmu_read_delta() - counter deltas of the local CPU since last call
 * @cpu: must be the local CPU (anything else gets an empty delta)
 * @delta: filled with the scaled deltas; @delta->valid says which
 *
 * Called by the core from the sched_switch tracepoint: IRQs off, rq lock
 * held. perf_event_read_local() is not exported (6.1 .. 7.x) and
 * perf_event_read_value() may sleep (it takes the event's child_mutex and
 * may IPI), so sbridge_perf_read_here() (compat.h) open-codes the one case
 * of perf_event_read_local() (kernel/events/core.c) that applies here,
 * which is safe because:
 *
 *  - Our events are per-CPU (task == NULL, no inherit) and bound to @cpu,
 *    and we run on @cpu with IRQs off. Every change to such an event's
 *    state, oncpu and total_time_* happens on its CPU with IRQs off (under
 *    ctx->lock, via IPI if requested from elsewhere), so none can happen
 *    while we look. Only the PMU overflow interrupt (an NMI on x86) may
 *    run, and it updates ->count through the same NMI-safe
 *    pmu->read()/event-update code (local64 cmpxchg on prev_count).
 *  - oncpu == this CPU implies state ACTIVE (sched-out sets oncpu = -1):
 *    exactly then perf_event_read_local() calls event->pmu->read(event)
 *    before local64_read(&event->count). Otherwise the count is frozen
 *    and reading it is enough.
 *  - The event cannot be freed under us: the hotplug callback unpublishes
 *    it before releasing it (see sbridge_pmu_cpu_offline()), and module
 *    unload unregisters from the core (which waits for its RCU readers)
 *    before releasing counters.
 *
 * The CPI stack's events are pinned, so they are never multiplexed out
 * (the instruction-class events are flexible: see the top of this file);
 * should one be
 * descheduled anyway (e.g. disabled, or an ERROR state after a conflict),
 * deltas are scaled by time enabled / running as perf reports it, and a
 * kind that is not counting right now is left out of @delta->valid and
 * resynchronised, so a gap is never attributed to the next task.
 */
void sbridge_pmu_read_delta(unsigned int cpu, struct sbridge_counts *delta)
{
	struct sbridge_pmu_cpu *pc;
	u64 *field[SBRIDGE_PMU_NR_KINDS] = {
		[SBRIDGE_PMU_CYCLES]		= &delta->cycles,
		[SBRIDGE_PMU_INSTRUCTIONS]	= &delta->instructions,
		[SBRIDGE_PMU_LLC_MISSES]	= &delta->llc_misses,
		[SBRIDGE_PMU_STALL]		= &delta->stall_cycles,
		[SBRIDGE_PMU_LDST]		= &delta->mix[SBRIDGE_MIX_LDST],
		[SBRIDGE_PMU_DP]		= &delta->mix[SBRIDGE_MIX_INT],
		[SBRIDGE_PMU_ASE]		= &delta->mix[SBRIDGE_MIX_FP],
		[SBRIDGE_PMU_VFP]		= &delta->mix[SBRIDGE_MIX_FP],
		[SBRIDGE_PMU_BR]		= &delta->mix[SBRIDGE_MIX_BRANCH],
	};
	unsigned long flags;
	u32 mixed = 0, open = 0, every, ph;
	int i;

	memset(delta, 0, sizeof(*delta));
	/* IRQs are already off in sched_switch; this keeps other callers safe. */
	local_irq_save(flags);
	if (cpu != smp_processor_id())
		goto out;
	pc = this_cpu_ptr(&sbridge_pmu_cpu);
	WRITE_ONCE(pc->reads, pc->reads + 1);
	/*
	 * The classes over one slice in mix_every: read at the switch that
	 * opens it (phase 0, a baseline) and at the one that closes it
	 * (phase 1, the slice's delta, handed out with the same slice's
	 * instructions); the other switches skip the five reads.
	 */
	every = max(sbridge_pmu_mix_every, 1U);
	ph = pc->mix_tick;
	pc->mix_tick = ph + 1 < every ? ph + 1 : 0;	/* no division here */
	for (i = 0; i < SBRIDGE_PMU_NR_KINDS; i++) {
		/* pairs with the release at publication: primed is up to date */
		struct perf_event *ev = smp_load_acquire(&pc->ev[i]);
		u64 val, en, run, d;

		if (!ev)
			continue;
		if (i >= SBRIDGE_PMU_FIRST_MIX) {
			if (every > 1 && ph > 1)
				continue;
			if (every > 1 && ph == 0) {
				sbridge_perf_read_here(ev, cpu, &pc->prev[i],
						       &pc->prev_en[i],
						       &pc->prev_run[i]);
				pc->primed[i] = true;
				continue;
			}
			open |= BIT(i);
			/*
			 * Flexible: a class event perf rotated out has a
			 * frozen count and no running time; its delta is what
			 * it counted while in, scaled by enabled over running.
			 * An interval it never ran in tells nothing.
			 */
			sbridge_perf_read_here(ev, cpu, &val, &en, &run);
			if (pc->primed[i] &&
			    (run != pc->prev_run[i] || en == pc->prev_en[i])) {
				d = sbridge_pmu_scale(val - pc->prev[i],
						      en - pc->prev_en[i],
						      run - pc->prev_run[i]);
				*field[i] += d;
				WRITE_ONCE(pc->total[i], pc->total[i] + d);
				mixed |= BIT(i);
			}
			pc->prev[i] = val;
			pc->prev_en[i] = en;
			pc->prev_run[i] = run;
			pc->primed[i] = true;
			continue;
		}
		if (!sbridge_perf_read_here(ev, cpu, &val, &en, &run))
			pc->primed[i] = false;	/* not counting: resync */
		if (pc->primed[i]) {
			d = val - pc->prev[i];
			d = sbridge_pmu_scale(d, en - pc->prev_en[i],
					      run - pc->prev_run[i]);
			*field[i] = d;
			WRITE_ONCE(pc->total[i], pc->total[i] + d);
			delta->valid |= sbridge_pmu_kind_ev[i];
		}
		pc->prev[i] = val;
		pc->prev_en[i] = en;
		pc->prev_run[i] = run;
		pc->primed[i] = ev->oncpu == (int)cpu;
	}
	/* the classes only all together, over the instructions' stretch */
	if (mixed == open &&
	    sbridge_pmu_mix_complete(mixed) &&
	    (delta->valid & SBRIDGE_EV_INSTRUCTIONS))
		delta->valid |= SBRIDGE_EV_MIX;
	else
		memset(delta->mix, 0, sizeof(delta->mix));
out:
	local_irq_restore(flags);
}
