// SPDX-License-Identifier: GPL-2.0
/*
 * rig_pmu.c - guest side of the sbridge emulated big.LITTLE rig.
 *
 * The rig's QEMU TCG plugin models per-vCPU counters (instructions, cycles,
 * LLC references/misses, memory stall cycles) and publishes them in a shared
 * page that QEMU exposes as BAR2 of an ivshmem-plain PCI device
 * (1af4:1110).  This driver maps that BAR and registers a perf PMU, named
 * "rig_pmu", that serves the generic PERF_TYPE_HARDWARE events (and the
 * matching PERF_TYPE_HW_CACHE ones) from it, so unmodified perf_event users
 * (pmu-monitor, perf_event_open) get a CPI stack from an emulated machine.
 *
 * The published counters are free running per vCPU and only ever written by
 * the host thread of that vCPU; guest CPU n is vCPU n (arm64 virt and x86
 * number them the same way).  Counting events only: no sampling.
 *
 * Privilege modes: the plugin also publishes every counter a perf event can
 * ask for split into what the CPU counted in user mode and in kernel mode
 * (RIG_FEAT_MODES), so exclude_user and exclude_kernel filter as the arm64
 * PMUv3 and x86 PMUs do. exclude_hv is accepted and changes nothing: the
 * guest has no hypervisor mode (x86 ignores it too). exclude_idle is
 * accepted as on x86: a vCPU in WFI/HLT counts nothing anyway. Without the
 * split (an older plugin) an event that excludes a mode is refused
 * (-EINVAL, as a PMU without mode filtering: PERF_PMU_CAP_NO_EXCLUDE).
 *
 * Raw events (the PMU's own type, and PERF_TYPE_RAW, which no other PMU
 * owns here) take the Arm PMUv3 common event numbers where the rig counts
 * what one means, and rig-specific numbers in PMUv3's IMPLEMENTATION
 * DEFINED range 0xc0-0xff otherwise (rig_events[] below; README "PMU").
 * Module parameters hide events and cap the counters in use, so that a
 * counter source's fallbacks can be exercised.
 *
 * The rig's clocks: the companion module rig_cpufreq claims them through
 * rig_pmu_clock_claim(); while it holds them the freq file refuses writes.
 *
 * This is test equipment, not part of the sbridge product.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "rig_pmu_abi.h"
#include "rig_pmu.h"

static bool pace = true;
module_param(pace, bool, 0444);
MODULE_PARM_DESC(pace, "Ask the rig to pace vCPUs in wall-clock time while loaded (default 1)");

static char *hide;
module_param(hide, charp, 0444);
MODULE_PARM_DESC(hide, "Comma-separated rig counters whose events are refused (-ENOENT), as a PMU without them: instructions, cycles, llc_refs, llc_misses, stall_cycles, l1_refs, ref_cycles, alu, ldst, branch, mul, idiv, fdiv, vfp, ase");

#define RIG_MAX_REFUSE	8
static unsigned long refuse[RIG_MAX_REFUSE];
static int nr_refuse;
module_param_array(refuse, ulong, &nr_refuse, 0444);
MODULE_PARM_DESC(refuse, "Comma-separated raw event codes refused (-ENOENT), as a PMU without those events while it has the counters (e.g. refuse=0x33,0x4005: no LL_CACHE_MISS, no STALL_BACKEND_MEM; L2D_CACHE_REFILL, STALL_BACKEND still served); at most 8");

static unsigned int counters;
module_param(counters, uint, 0444);
MODULE_PARM_DESC(counters, "At most this many events count at once on a CPU (0: no limit); more fail to schedule, as on a PMU with fewer counters");

/**
 * struct rig_dev - the one rig device this driver binds to.
 * @pdev: the ivshmem-plain PCI function.
 * @base: BAR2 mapping (struct rig_pmu_hdr followed by per-CPU records).
 * @nr_cpus: number of per-CPU records published by the plugin.
 * @mode_offset: byte offset of CPU 0's struct rig_pmu_modes in @base,
 *	0 if the plugin does not count by privilege mode.
 * @mode_stride: bytes between two CPUs' struct rig_pmu_modes.
 * @pmu: the registered perf PMU.
 * @freq_lock: serialises frequency requests (read-modify-wait in freq_store)
 *	and the clock claim.
 * @clock: the module that holds the clocks (rig_cpufreq), NULL if none.
 *
 * Locking: set up once in probe before the PMU is registered and torn down
 * in remove after it is unregistered; read-only in between, so the perf
 * callbacks (IRQs off, any CPU) need no lock.  The shared page's
 * freq_req_mhz words are written by freq_store only under @freq_lock and
 * only while @clock is NULL; otherwise only by @clock's owner.
 */
struct rig_dev {
	struct pci_dev *pdev;
	void __iomem *base;
	u32 nr_cpus;
	u32 mode_offset, mode_stride;
	struct pmu pmu;
	struct mutex freq_lock;
	const struct rig_pmu_clock_ops *clock;
};

/* The bound device; rig_mutex serialises it against the clock claim. */
static struct rig_dev *rig;
static DEFINE_MUTEX(rig_mutex);
/* The device whose clocks are claimed: the claimant's page until it ends. */
static struct rig_dev *rig_claimed;
/* rig counters (BIT(enum rig_pmu_counter)) whose events are refused */
static u32 rig_hidden;
/* events counting on each CPU now (add/del run on that CPU, IRQs off) */
static DEFINE_PER_CPU(unsigned int, rig_active);

static void __iomem *rig_cpu_rec(struct rig_dev *r, unsigned int cpu)
{
	return r->base + RIG_PMU_CPU_OFFSET + cpu * RIG_PMU_CPU_STRIDE;
}

static u64 rig_read_ctr(struct rig_dev *r, unsigned int cpu, unsigned int ctr)
{
	if (cpu >= r->nr_cpus || ctr >= RIG_NR_COUNTERS)
		return 0;
	return readq(rig_cpu_rec(r, cpu) + ctr * sizeof(u64));
}

/*
 * Which modes an event counts (event->hw.config_base): every mode from the
 * per-CPU record, or the per-mode records' user or kernel part, or none.
 */
enum rig_modes {
	RIG_COUNT_ALL,
	RIG_COUNT_USER,
	RIG_COUNT_KERNEL,
	RIG_COUNT_NONE,
};

/* @cpu's counter @ctr (< RIG_PMU_MODE_COUNTERS) counted in @mode only. */
static u64 rig_read_mode(struct rig_dev *r, unsigned int cpu,
			 enum rig_pmu_mode mode, unsigned int ctr)
{
	if (cpu >= r->nr_cpus || !r->mode_offset)
		return 0;
	return readq(r->base + r->mode_offset + cpu * r->mode_stride +
		     (mode * RIG_PMU_MODE_COUNTERS + ctr) * sizeof(u64));
}

/*
 * Sum of the counters in @mask (BIT(enum rig_pmu_counter)) of @cpu, in the
 * modes @modes; a mode filter only ever comes with a @mask within
 * RIG_PMU_MODE_SPLIT (rig_event_init()).
 */
static u64 rig_read_sum(struct rig_dev *r, unsigned int cpu, u32 mask,
			enum rig_modes modes)
{
	u64 sum = 0;

	if (modes == RIG_COUNT_NONE)
		return 0;
	while (mask) {
		unsigned int ctr = __ffs(mask);

		if (modes == RIG_COUNT_ALL)
			sum += rig_read_ctr(r, cpu, ctr);
		else
			sum += rig_read_mode(r, cpu, modes == RIG_COUNT_USER ?
					     RIG_MODE_USER : RIG_MODE_KERNEL, ctr);
		mask &= mask - 1;
	}
	return sum;
}

/* ------------------------------------------------------------------ perf */

#define C(x)	BIT(RIG_CTR_##x)

/*
 * Raw event numbers. Arm PMUv3 common events (arch/arm64's perf_event.h
 * names) where the rig counts what the event means; 0xc0-0xff
 * (IMPLEMENTATION DEFINED in PMUv3) for the rig's own; 0xe0 + n is rig
 * counter n, whatever it is. The rig's caches are a private L1 and a
 * private L2 that is the last level; its only backend stall is the memory
 * latency of an LLC miss.
 */
static const struct rig_event {
	u16 config;
	u32 mask;		/* counters summed */
	const char *name;	/* what the rig counts, for the README */
} rig_events[] = {
	{ 0x0003, C(LLC_REFS),		"L1D_CACHE_REFILL: L1 data misses" },
	{ 0x0004, C(L1_REFS),		"L1D_CACHE: L1 data accesses" },
	{ 0x0008, C(INSTRUCTIONS),	"INST_RETIRED" },
	{ 0x0011, C(CYCLES),		"CPU_CYCLES: at the clock in force" },
	{ 0x0016, C(LLC_REFS),		"L2D_CACHE: last-level accesses" },
	{ 0x0017, C(LLC_MISSES),	"L2D_CACHE_REFILL: last-level misses" },
	{ 0x0021, C(CLS_BRANCH),	"BR_RETIRED: branch class" },
	{ 0x0024, C(STALL_CYCLES),	"STALL_BACKEND: memory stall cycles" },
	{ 0x0032, C(LLC_REFS),		"LL_CACHE" },
	{ 0x0033, C(LLC_MISSES),	"LL_CACHE_MISS" },
	{ 0x0072, C(CLS_LDST),		"LDST_SPEC: load/store class" },
	{ 0x0073, C(CLS_ALU) | C(CLS_MUL) | C(CLS_IDIV),
					"DP_SPEC: integer ALU, multiply, divide" },
	{ 0x0074, C(CLS_ASE),		"ASE_SPEC: SIMD" },
	{ 0x0075, C(CLS_VFP) | C(CLS_FDIV), "VFP_SPEC: scalar FP incl. divide" },
	{ 0x4004, C(REF_CYCLES),	"CNT_CYCLES: constant 1 GHz while busy" },
	{ 0x4005, C(STALL_CYCLES),	"STALL_BACKEND_MEM" },
	{ 0x00c0, C(CLS_ALU),		"rig: ALU class" },
	{ 0x00c1, C(CLS_LDST),		"rig: load/store class" },
	{ 0x00c2, C(CLS_BRANCH),	"rig: branch class" },
	{ 0x00c3, C(CLS_MUL),		"rig: multiply class" },
	{ 0x00c4, C(CLS_IDIV) | C(CLS_FDIV), "rig: divide class" },
	{ 0x00c5, C(CLS_VFP) | C(CLS_ASE), "rig: FP/SIMD class" },
	{ 0x00c6, C(CLS_IDIV),		"rig: integer divide" },
	{ 0x00c7, C(CLS_FDIV),		"rig: FP divide/sqrt" },
};

/* Counter names of the hide= parameter, in enum rig_pmu_counter order. */
static const char *const rig_ctr_names[RIG_NR_COUNTERS] = {
	[RIG_CTR_INSTRUCTIONS]	= "instructions",
	[RIG_CTR_CYCLES]	= "cycles",
	[RIG_CTR_LLC_REFS]	= "llc_refs",
	[RIG_CTR_LLC_MISSES]	= "llc_misses",
	[RIG_CTR_STALL_CYCLES]	= "stall_cycles",
	[RIG_CTR_L1_REFS]	= "l1_refs",
	[RIG_CTR_REF_CYCLES]	= "ref_cycles",
	[RIG_CTR_CLS_ALU]	= "alu",
	[RIG_CTR_CLS_LDST]	= "ldst",
	[RIG_CTR_CLS_BRANCH]	= "branch",
	[RIG_CTR_CLS_MUL]	= "mul",
	[RIG_CTR_CLS_IDIV]	= "idiv",
	[RIG_CTR_CLS_FDIV]	= "fdiv",
	[RIG_CTR_CLS_VFP]	= "vfp",
	[RIG_CTR_CLS_ASE]	= "ase",
};

static u32 rig_raw_event(u64 config)
{
	unsigned int i;

	if (config >= 0xe0 && config < 0xe0 + RIG_NR_COUNTERS)
		return BIT(config - 0xe0);
	for (i = 0; i < ARRAY_SIZE(rig_events); i++)
		if (rig_events[i].config == config)
			return rig_events[i].mask;
	return 0;
}

static u32 rig_hw_event(u64 config)
{
	switch (config) {
	case PERF_COUNT_HW_CPU_CYCLES:
		return C(CYCLES);
	case PERF_COUNT_HW_INSTRUCTIONS:
		return C(INSTRUCTIONS);
	case PERF_COUNT_HW_CACHE_REFERENCES:
		return C(LLC_REFS);
	case PERF_COUNT_HW_CACHE_MISSES:
		return C(LLC_MISSES);
	case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
		return C(STALL_CYCLES);
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
		return C(CLS_BRANCH);
	case PERF_COUNT_HW_REF_CPU_CYCLES:
		return C(REF_CYCLES);
	default:
		return 0;
	}
}

static u32 rig_cache_event(u64 config)
{
	unsigned int id = config & 0xff, op = (config >> 8) & 0xff;
	unsigned int res = (config >> 16) & 0xff;

	if (op != PERF_COUNT_HW_CACHE_OP_READ)
		return 0;
	if (id == PERF_COUNT_HW_CACHE_LL)
		return res == PERF_COUNT_HW_CACHE_RESULT_ACCESS ? C(LLC_REFS) :
		       C(LLC_MISSES);
	if (id == PERF_COUNT_HW_CACHE_L1D && res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		return C(L1_REFS);
	return 0;
}

#undef C

/*
 * The modes @event counts (enum rig_modes), from its exclude_user and
 * exclude_kernel; -EINVAL if it excludes one and the rig cannot tell them
 * apart for a counter of @mask.
 */
static int rig_event_modes(struct rig_dev *r, struct perf_event *event, u32 mask)
{
	bool user = !event->attr.exclude_user;
	bool kernel = !event->attr.exclude_kernel;

	if (user && kernel)
		return RIG_COUNT_ALL;
	if (!r->mode_offset || (mask & ~RIG_PMU_MODE_SPLIT))
		return -EINVAL;
	if (user)
		return RIG_COUNT_USER;
	return kernel ? RIG_COUNT_KERNEL : RIG_COUNT_NONE;
}

static int rig_event_init(struct perf_event *event)
{
	struct rig_dev *r = container_of(event->pmu, struct rig_dev, pmu);
	u64 config = event->attr.config;
	int modes;
	u32 mask;

	if (event->attr.type == PERF_TYPE_HARDWARE ||
	    event->attr.type == PERF_TYPE_HW_CACHE) {
		/* extended type (PMU type in the upper half) must be ours */
		if ((config >> 32) && (config >> 32) != r->pmu.type)
			return -ENOENT;
		config &= 0xffffffffULL;
		mask = event->attr.type == PERF_TYPE_HARDWARE ?
		       rig_hw_event(config) : rig_cache_event(config);
		if (!mask)
			return -ENOENT;
	} else if (event->attr.type == r->pmu.type ||
		   event->attr.type == PERF_TYPE_RAW) {
		int i;

		mask = rig_raw_event(config);
		for (i = 0; i < nr_refuse; i++)
			if (config == refuse[i])
				mask = 0;
		if (!mask)
			return event->attr.type == PERF_TYPE_RAW ? -ENOENT : -EINVAL;
	} else {
		return -ENOENT;
	}
	/* a PMU without that counter: it does not have the event */
	if (mask & rig_hidden)
		return -ENOENT;
	if (is_sampling_event(event))
		return -EOPNOTSUPP;
	if (event->cpu >= 0 && event->cpu >= r->nr_cpus)
		return -ENODEV;
	modes = rig_event_modes(r, event, mask);
	if (modes < 0)
		return modes;
	event->hw.config = mask;
	event->hw.config_base = modes;
	return 0;
}

static void rig_event_update(struct perf_event *event)
{
	struct rig_dev *r = container_of(event->pmu, struct rig_dev, pmu);
	struct hw_perf_event *hwc = &event->hw;
	u64 now, prev;

	now = rig_read_sum(r, hwc->idx, hwc->config, hwc->config_base);
	prev = local64_read(&hwc->prev_count);
	/*
	 * A busy-time count (REF_CYCLES) is folded in floating point by the
	 * plugin and may read one below its last value: never step back.
	 */
	if ((s64)(now - prev) <= 0)
		return;
	local64_set(&hwc->prev_count, now);
	local64_add(now - prev, &event->count);
}

static void rig_event_start(struct perf_event *event, int flags)
{
	struct rig_dev *r = container_of(event->pmu, struct rig_dev, pmu);
	struct hw_perf_event *hwc = &event->hw;

	hwc->idx = smp_processor_id();
	local64_set(&hwc->prev_count, rig_read_sum(r, hwc->idx, hwc->config,
						   hwc->config_base));
	hwc->state = 0;
}

static void rig_event_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	rig_event_update(event);
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

/* add/del run on the event's CPU with IRQs off (the perf context lock). */
static int rig_event_add(struct perf_event *event, int flags)
{
	unsigned int *active = this_cpu_ptr(&rig_active);

	if (counters && *active >= counters)
		return -EAGAIN;		/* no free counter: perf multiplexes */
	(*active)++;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		rig_event_start(event, PERF_EF_RELOAD);
	return 0;
}

static void rig_event_del(struct perf_event *event, int flags)
{
	rig_event_stop(event, PERF_EF_UPDATE);
	this_cpu_dec(rig_active);
}

static void rig_event_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		rig_event_update(event);
}

/* hide=: names of rig counters, comma-separated; -EINVAL on a bad one. */
static int rig_parse_hide(const char *spec)
{
	char *buf, *p, *tok;
	int ret = 0, i;

	if (!spec || !*spec)
		return 0;
	buf = kstrdup(spec, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	p = buf;
	while ((tok = strsep(&p, ",")) != NULL) {
		tok = strim(tok);
		if (!*tok)
			continue;
		for (i = 0; i < RIG_NR_COUNTERS; i++)
			if (rig_ctr_names[i] && !strcmp(tok, rig_ctr_names[i]))
				break;
		if (i == RIG_NR_COUNTERS) {
			pr_err("hide: no rig counter '%s'\n", tok);
			ret = -EINVAL;
			break;
		}
		rig_hidden |= BIT(i);
	}
	kfree(buf);
	return ret;
}

/* ----------------------------------------------------------------- sysfs */

static ssize_t counters_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct rig_dev *r = pci_get_drvdata(to_pci_dev(dev));
	char name[17];
	int len = 0;
	u32 cpu;

	len += sysfs_emit_at(buf, len,
			     "cpu type freq_mhz instructions cycles llc_refs llc_misses stall_cycles l1_refs lag_ns ref_cycles alu ldst branch mul idiv fdiv vfp ase kernel_instructions kernel_cycles\n");
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		void __iomem *rec = rig_cpu_rec(r, cpu);
		unsigned int k;

		memcpy_fromio(name, rec + offsetof(struct rig_pmu_cpu, type_name), 16);
		name[16] = '\0';
		len += sysfs_emit_at(buf, len, "%u %s %u %llu %llu %llu %llu %llu %llu %llu %llu",
				     cpu, name,
				     readl(rec + offsetof(struct rig_pmu_cpu, freq_mhz)),
				     rig_read_ctr(r, cpu, RIG_CTR_INSTRUCTIONS),
				     rig_read_ctr(r, cpu, RIG_CTR_CYCLES),
				     rig_read_ctr(r, cpu, RIG_CTR_LLC_REFS),
				     rig_read_ctr(r, cpu, RIG_CTR_LLC_MISSES),
				     rig_read_ctr(r, cpu, RIG_CTR_STALL_CYCLES),
				     rig_read_ctr(r, cpu, RIG_CTR_L1_REFS),
				     rig_read_ctr(r, cpu, RIG_CTR_LAG_NS),
				     rig_read_ctr(r, cpu, RIG_CTR_REF_CYCLES));
		for (k = RIG_CTR_CLS_ALU; k <= RIG_CTR_CLS_ASE; k++)
			len += sysfs_emit_at(buf, len, " %llu", rig_read_ctr(r, cpu, k));
		/* the kernel-mode part ("-" if the rig does not tell modes apart) */
		if (r->mode_offset)
			len += sysfs_emit_at(buf, len, " %llu %llu\n",
					     rig_read_mode(r, cpu, RIG_MODE_KERNEL,
							   RIG_CTR_INSTRUCTIONS),
					     rig_read_mode(r, cpu, RIG_MODE_KERNEL,
							   RIG_CTR_CYCLES));
		else
			len += sysfs_emit_at(buf, len, " - -\n");
	}
	return len;
}
static DEVICE_ATTR_RO(counters);

static void rig_nop(void *arg)
{
}

/*
 * Energy and clock accounting per CPU, in model time. The plugin folds a
 * vCPU's idle stretch when it leaves idle: wake every online CPU first so
 * that the idle energy is up to date (an IPI is the least work that makes
 * a vCPU run).
 */
static ssize_t energy_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct rig_dev *r = pci_get_drvdata(to_pci_dev(dev));
	u64 tot = 0, e;
	u32 cpu;
	int len;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		if (cpu < r->nr_cpus)
			smp_call_function_single(cpu, rig_nop, NULL, 1);
	cpus_read_unlock();
	len = sysfs_emit(buf, "cpu domain freq_mhz busy_us idle_us dyn_uj idle_uj energy_uj low_us wake_low_us wakeups\n");
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		u64 dyn = rig_read_ctr(r, cpu, RIG_CTR_ENERGY_DYN_PJ);
		u64 idle = rig_read_ctr(r, cpu, RIG_CTR_ENERGY_IDLE_PJ);

		e = dyn + idle;
		tot += e;
		len += sysfs_emit_at(buf, len, "%u %u %u %llu %llu %llu %llu %llu %llu %llu %llu\n",
				     cpu, readl(rig_cpu_rec(r, cpu) +
						offsetof(struct rig_pmu_cpu, domain)),
				     readl(rig_cpu_rec(r, cpu) +
					   offsetof(struct rig_pmu_cpu, freq_mhz)),
				     div_u64(rig_read_ctr(r, cpu, RIG_CTR_REF_CYCLES), 1000),
				     div_u64(rig_read_ctr(r, cpu, RIG_CTR_IDLE_NS), 1000),
				     div_u64(dyn, 1000000), div_u64(idle, 1000000),
				     div_u64(e, 1000000),
				     div_u64(rig_read_ctr(r, cpu, RIG_CTR_LOW_NS), 1000),
				     div_u64(rig_read_ctr(r, cpu, RIG_CTR_WAKE_LOW_NS), 1000),
				     rig_read_ctr(r, cpu, RIG_CTR_WAKEUPS));
	}
	len += sysfs_emit_at(buf, len, "total energy_uj %llu\n", div_u64(tot, 1000000));
	return len;
}
static DEVICE_ATTR_RO(energy);

static void rig_set_pace(struct rig_dev *r, bool on)
{
	void __iomem *ctrl = r->base + offsetof(struct rig_pmu_hdr, ctrl);
	u32 v = readl(ctrl);

	writel(on ? v | RIG_CTRL_PACE : v & ~RIG_CTRL_PACE, ctrl);
}

static ssize_t pace_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct rig_dev *r = pci_get_drvdata(to_pci_dev(dev));

	return sysfs_emit(buf, "%u\n",
			  !!(readl(r->base + offsetof(struct rig_pmu_hdr, ctrl)) &
			     RIG_CTRL_PACE));
}

static ssize_t pace_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct rig_dev *r = pci_get_drvdata(to_pci_dev(dev));
	bool on;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = kstrtobool(buf, &on);
	if (ret)
		return ret;
	rig_set_pace(r, on);
	return count;
}
static DEVICE_ATTR_RW(pace);

/*
 * Frequency knob: one file for all CPUs, "CPU MHZ" per write (0 = the core
 * type's configured frequency), one line per CPU on read (with the core
 * type's capacity: the board's description in one place).  One file rather
 * than one per CPU: a request is one write that names its CPU, and one read
 * shows the whole board, like the counters table.
 */
static u32 rig_cpu_u32(struct rig_dev *r, unsigned int cpu, size_t off)
{
	return readl(rig_cpu_rec(r, cpu) + off);
}

#define RIG_FREQ(r, cpu, field) \
	rig_cpu_u32(r, cpu, offsetof(struct rig_pmu_cpu, field))

struct rig_freq_wait {
	struct rig_dev *r;
	unsigned int cpu;
	u32 mhz;
};

/*
 * Runs on the CPU whose frequency changes: the plugin applies a request at
 * that vCPU's next pacing check, which comes only while the vCPU executes,
 * so keep it executing (an idle vCPU would sit in WFI/HLT) until the new
 * frequency is in force.  Checks come every check_us of wall time.
 */
static long rig_freq_wait_fn(void *arg)
{
	struct rig_freq_wait *w = arg;
	unsigned long end = jiffies + msecs_to_jiffies(500);

	while (RIG_FREQ(w->r, w->cpu, freq_mhz) != w->mhz) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		cond_resched();
		cpu_relax();
	}
	return 0;
}

/* Write @mhz as @cpu's request and wait until the plugin applied it. */
static int rig_freq_set(struct rig_dev *r, unsigned int cpu, u32 mhz)
{
	struct rig_freq_wait w = { .r = r, .cpu = cpu };
	void __iomem *req = rig_cpu_rec(r, cpu) +
			    offsetof(struct rig_pmu_cpu, freq_req_mhz);
	int ret = 0;

	w.mhz = mhz ? mhz : RIG_FREQ(r, cpu, freq_cfg_mhz);
	writel(mhz, req);
	cpus_read_lock();
	/* an offline vCPU picks the request up when it comes back */
	if (w.mhz && cpu_online(cpu))
		ret = work_on_cpu(cpu, rig_freq_wait_fn, &w);
	cpus_read_unlock();
	return ret;
}

static ssize_t freq_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct rig_dev *r = pci_get_drvdata(to_pci_dev(dev));
	char name[17];
	int len;
	u32 cpu;

	len = sysfs_emit(buf, "cpu type capacity configured_mhz requested_mhz freq_mhz\n");
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		memcpy_fromio(name, rig_cpu_rec(r, cpu) +
			      offsetof(struct rig_pmu_cpu, type_name), 16);
		name[16] = '\0';
		len += sysfs_emit_at(buf, len, "%u %s %u %u %u %u\n", cpu, name,
				     RIG_FREQ(r, cpu, capacity),
				     RIG_FREQ(r, cpu, freq_cfg_mhz),
				     RIG_FREQ(r, cpu, freq_req_mhz),
				     RIG_FREQ(r, cpu, freq_mhz));
	}
	return len;
}

/* "CPU MHZ": two decimal numbers and nothing else. */
static int rig_freq_parse(const char *buf, u32 *cpu, u32 *mhz)
{
	char tmp[32], *s, *tok;

	if (strscpy(tmp, buf, sizeof(tmp)) < 0)
		return -EINVAL;
	s = strim(tmp);
	tok = strsep(&s, " \t");
	if (!s)
		return -EINVAL;
	s = skip_spaces(s);
	if (kstrtou32(tok, 10, cpu) || kstrtou32(s, 10, mhz))
		return -EINVAL;
	return 0;
}

static ssize_t freq_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct rig_dev *r = pci_get_drvdata(to_pci_dev(dev));
	u32 cpu, mhz, old;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (rig_freq_parse(buf, &cpu, &mhz) || cpu >= r->nr_cpus ||
	    (mhz && (mhz < RIG_PMU_FREQ_MIN_MHZ || mhz > RIG_PMU_FREQ_MAX_MHZ)))
		return -EINVAL;
	mutex_lock(&r->freq_lock);
	if (r->clock) {
		/* a cpufreq driver sets the clocks: use its policies */
		mutex_unlock(&r->freq_lock);
		dev_info_ratelimited(dev, "freq: the clocks belong to %s (cpufreq)\n",
				     r->clock->name);
		return -EBUSY;
	}
	old = RIG_FREQ(r, cpu, freq_req_mhz);
	ret = rig_freq_set(r, cpu, mhz);
	if (ret) {
		/* leave things as they were: withdraw the request */
		writel(old, rig_cpu_rec(r, cpu) +
		       offsetof(struct rig_pmu_cpu, freq_req_mhz));
		dev_warn(dev, "cpu%u: rig did not apply %u MHz\n", cpu, mhz);
	}
	mutex_unlock(&r->freq_lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(freq);

static struct attribute *rig_attrs[] = {
	&dev_attr_counters.attr,
	&dev_attr_pace.attr,
	&dev_attr_freq.attr,
	&dev_attr_energy.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rig);

/* ------------------------------------------------------- clock ownership */

/* Every CPU back to its configured clock (the caller owns the requests). */
static void rig_withdraw_requests(struct rig_dev *r)
{
	u32 cpu;

	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		writel(0, rig_cpu_rec(r, cpu) +
		       offsetof(struct rig_pmu_cpu, freq_req_mhz));
}

/**
 * rig_pmu_clock_claim() - take the rig's clocks for a cpufreq driver
 * @ops: the claimant; @ops->gone is called (process context) if the rig
 *	device goes away while claimed, before the page is unmapped, and
 *	the claim ends then
 *
 * From then on the freq file refuses writes and the claimant alone writes
 * the page's clock requests, through rig_pmu_cpu_rec().
 *
 * Context: process context; sleeps.
 * Return: the number of rig CPUs, -ENODEV if no rig is bound, -EBUSY if
 *	the clocks are claimed already.
 */
int rig_pmu_clock_claim(const struct rig_pmu_clock_ops *ops)
{
	int ret;

	mutex_lock(&rig_mutex);
	if (!rig) {
		ret = -ENODEV;
	} else {
		mutex_lock(&rig->freq_lock);
		if (rig->clock) {
			ret = -EBUSY;
		} else {
			rig->clock = ops;
			rig_claimed = rig;
			ret = rig->nr_cpus;
		}
		mutex_unlock(&rig->freq_lock);
	}
	mutex_unlock(&rig_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(rig_pmu_clock_claim);

/**
 * rig_pmu_clock_release() - end a claim; every CPU back to its configured clock
 * @ops: what was passed to rig_pmu_clock_claim()
 *
 * Nothing happens if the claim already ended (the device went away).
 *
 * Context: process context; sleeps.
 */
void rig_pmu_clock_release(const struct rig_pmu_clock_ops *ops)
{
	mutex_lock(&rig_mutex);
	if (rig) {
		mutex_lock(&rig->freq_lock);
		if (rig->clock == ops) {
			rig->clock = NULL;
			rig_claimed = NULL;
			rig_withdraw_requests(rig);
		}
		mutex_unlock(&rig->freq_lock);
	}
	mutex_unlock(&rig_mutex);
}
EXPORT_SYMBOL_GPL(rig_pmu_clock_release);

/**
 * rig_pmu_cpu_rec() - the page's record of @cpu, for the clock's owner
 * @cpu: a rig CPU (below what rig_pmu_clock_claim() returned)
 *
 * Valid while the claim lasts.
 *
 * Context: any.
 * Return: the mapped struct rig_pmu_cpu of @cpu.
 */
void __iomem *rig_pmu_cpu_rec(unsigned int cpu)
{
	return rig_cpu_rec(rig_claimed, cpu);
}
EXPORT_SYMBOL_GPL(rig_pmu_cpu_rec);

/**
 * rig_pmu_hdr() - the page's header, for the clock's owner
 *
 * Valid while the claim lasts.
 *
 * Context: any.
 * Return: the mapped struct rig_pmu_hdr.
 */
void __iomem *rig_pmu_hdr(void)
{
	return rig_claimed->base;
}
EXPORT_SYMBOL_GPL(rig_pmu_hdr);

/* ------------------------------------------------------------------- PCI */

/*
 * 6.1 lets one perf_hw_context PMU have task events and warns at the next
 * (this one again, after a reload) unless its CPUs are heterogeneous, as
 * the rig's core types are; from 6.2 (6.12, 7.x) the flag and the check
 * are gone.
 */
#ifdef PERF_PMU_CAP_HETEROGENEOUS_CPUS
#define RIG_PMU_CAPS	PERF_PMU_CAP_HETEROGENEOUS_CPUS
#else
#define RIG_PMU_CAPS	0
#endif

/* Does the plugin count by privilege mode? Sets @r->mode_offset if so. */
static void rig_probe_modes(struct rig_dev *r)
{
	u32 feat = readl(r->base + offsetof(struct rig_pmu_hdr, features));
	u32 off = readl(r->base + offsetof(struct rig_pmu_hdr, mode_offset));
	u32 stride = readl(r->base + offsetof(struct rig_pmu_hdr, mode_stride));

	BUILD_BUG_ON(sizeof(struct rig_pmu_modes) != RIG_PMU_MODE_STRIDE);
	BUILD_BUG_ON(RIG_PMU_MODE_OFFSET + RIG_PMU_MAX_CPUS * RIG_PMU_MODE_STRIDE >
		     RIG_PMU_SHM_SIZE);
	if (!(feat & RIG_FEAT_MODES))
		return;
	if (off < RIG_PMU_CPU_OFFSET + r->nr_cpus * RIG_PMU_CPU_STRIDE ||
	    stride < sizeof(struct rig_pmu_modes) ||
	    (u64)off + (u64)r->nr_cpus * stride > RIG_PMU_SHM_SIZE) {
		dev_warn(&r->pdev->dev, "per-mode counters out of the page (offset %u stride %u): counting every mode only\n",
			 off, stride);
		return;
	}
	r->mode_offset = off;
	r->mode_stride = stride;
}

static int rig_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct rig_dev *r;
	u32 magic, version;
	int ret;

	if (rig)
		return -EBUSY;		/* one rig per guest */
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->pdev = pdev;
	mutex_init(&r->freq_lock);
	ret = pci_enable_device_mem(pdev);
	if (ret)
		goto err_free;
	/*
	 * BAR2 is deliberately not claimed with pci_request_region(): a busy
	 * region is exclusive under IO_STRICT_DEVMEM and user space (rigstat)
	 * could no longer mmap sysfs resource2 to read the raw counters.
	 */
	if (!(pci_resource_flags(pdev, 2) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 2) < RIG_PMU_SHM_SIZE) {
		ret = -ENODEV;
		goto err_disable;
	}
	r->base = pci_iomap(pdev, 2, RIG_PMU_SHM_SIZE);
	if (!r->base) {
		ret = -ENOMEM;
		goto err_disable;
	}
	magic = readl(r->base + offsetof(struct rig_pmu_hdr, magic));
	version = readl(r->base + offsetof(struct rig_pmu_hdr, version));
	r->nr_cpus = readl(r->base + offsetof(struct rig_pmu_hdr, nr_cpus));
	if (magic != RIG_PMU_MAGIC || version != RIG_PMU_VERSION ||
	    !r->nr_cpus || r->nr_cpus > RIG_PMU_MAX_CPUS ||
	    readl(r->base + offsetof(struct rig_pmu_hdr, cpu_stride)) !=
	    RIG_PMU_CPU_STRIDE) {
		/* an ivshmem device that is not a rig: leave it alone */
		dev_info(&pdev->dev, "no rig counters (magic %#x version %u)\n",
			 magic, version);
		ret = -ENODEV;
		goto err_unmap;
	}
	if (r->nr_cpus < num_possible_cpus())
		dev_warn(&pdev->dev, "rig publishes %u CPUs, guest has %u\n",
			 r->nr_cpus, num_possible_cpus());
	rig_probe_modes(r);
	pci_set_drvdata(pdev, r);

	r->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_hw_context,
		.capabilities	= RIG_PMU_CAPS,
		.event_init	= rig_event_init,
		.add		= rig_event_add,
		.del		= rig_event_del,
		.start		= rig_event_start,
		.stop		= rig_event_stop,
		.read		= rig_event_read,
	};
	/* Dynamic type: generic hardware events still reach this PMU through
	 * perf_init_event()'s walk over all PMUs when no PMU owns
	 * PERF_TYPE_RAW (the guest boots with QEMU's own PMU off).
	 */
	ret = perf_pmu_register(&r->pmu, "rig_pmu", -1);
	if (ret)
		goto err_unmap;
	mutex_lock(&rig_mutex);
	rig = r;
	mutex_unlock(&rig_mutex);
	if (pace)
		rig_set_pace(r, true);
	dev_info(&pdev->dev, "rig PMU for %u CPUs, perf type %d, pacing %s, %s\n",
		 r->nr_cpus, r->pmu.type, pace ? "on" : "left as is",
		 r->mode_offset ? "user and kernel mode apart" : "every mode together");
	return 0;

err_unmap:
	pci_iounmap(pdev, r->base);
err_disable:
	pci_disable_device(pdev);
err_free:
	kfree(r);
	return ret;
}

static void rig_remove(struct pci_dev *pdev)
{
	struct rig_dev *r = pci_get_drvdata(pdev);
	const struct rig_pmu_clock_ops *clock;

	mutex_lock(&rig_mutex);
	rig = NULL;
	mutex_lock(&r->freq_lock);
	clock = r->clock;
	r->clock = NULL;
	mutex_unlock(&r->freq_lock);
	mutex_unlock(&rig_mutex);
	/* the clocks' owner stops using the page before it goes */
	if (clock) {
		clock->gone(clock);
		rig_claimed = NULL;
	}
	perf_pmu_unregister(&r->pmu);
	if (pace)
		rig_set_pace(r, false);
	/* sysfs is gone: no request can race; hand back the configured clocks */
	rig_withdraw_requests(r);
	pci_iounmap(pdev, r->base);
	pci_disable_device(pdev);
	kfree(r);
}

static const struct pci_device_id rig_ids[] = {
	{ PCI_DEVICE(0x1af4, 0x1110) },		/* ivshmem */
	{ }
};
MODULE_DEVICE_TABLE(pci, rig_ids);

static struct pci_driver rig_driver = {
	.name		= "rig_pmu",
	.id_table	= rig_ids,
	.probe		= rig_probe,
	.remove		= rig_remove,
	.dev_groups	= rig_groups,
};
static int __init rig_init(void)
{
	int ret = rig_parse_hide(hide);

	if (ret)
		return ret;
	return pci_register_driver(&rig_driver);
}

static void __exit rig_exit(void)
{
	pci_unregister_driver(&rig_driver);
}

module_init(rig_init);
module_exit(rig_exit);

MODULE_DESCRIPTION("sbridge rig: perf PMU serving modelled counters from a QEMU TCG plugin");
MODULE_LICENSE("GPL");
