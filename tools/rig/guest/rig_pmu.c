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
 * number them the same way).  Counting events only: no sampling, and
 * exclude_user/kernel are ignored (the model counts every mode).
 *
 * This is test equipment, not part of the sbridge product.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/io.h>
#include <linux/jiffies.h>
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

static bool pace = true;
module_param(pace, bool, 0444);
MODULE_PARM_DESC(pace, "Ask the rig to pace vCPUs in wall-clock time while loaded (default 1)");

/**
 * struct rig_dev - the one rig device this driver binds to.
 * @pdev: the ivshmem-plain PCI function.
 * @base: BAR2 mapping (struct rig_pmu_hdr followed by per-CPU records).
 * @nr_cpus: number of per-CPU records published by the plugin.
 * @pmu: the registered perf PMU.
 *
 * @freq_lock: serialises frequency requests (read-modify-wait in freq_store).
 *
 * Locking: set up once in probe before the PMU is registered and torn down
 * in remove after it is unregistered; read-only in between, so the perf
 * callbacks (IRQs off, any CPU) need no lock.  The shared page's
 * freq_req_mhz words are written only under @freq_lock.
 */
struct rig_dev {
	struct pci_dev *pdev;
	void __iomem *base;
	u32 nr_cpus;
	struct pmu pmu;
	struct mutex freq_lock;
};

static struct rig_dev *rig;

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

/* ------------------------------------------------------------------ perf */

static int rig_hw_event(u64 config)
{
	switch (config) {
	case PERF_COUNT_HW_CPU_CYCLES:
		return RIG_CTR_CYCLES;
	case PERF_COUNT_HW_INSTRUCTIONS:
		return RIG_CTR_INSTRUCTIONS;
	case PERF_COUNT_HW_CACHE_REFERENCES:
		return RIG_CTR_LLC_REFS;
	case PERF_COUNT_HW_CACHE_MISSES:
		return RIG_CTR_LLC_MISSES;
	case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
		return RIG_CTR_STALL_CYCLES;
	default:
		return -ENOENT;
	}
}

static int rig_cache_event(u64 config)
{
	unsigned int id = config & 0xff, op = (config >> 8) & 0xff;
	unsigned int res = (config >> 16) & 0xff;

	if (op != PERF_COUNT_HW_CACHE_OP_READ)
		return -ENOENT;
	if (id == PERF_COUNT_HW_CACHE_LL)
		return res == PERF_COUNT_HW_CACHE_RESULT_ACCESS ? RIG_CTR_LLC_REFS :
		       RIG_CTR_LLC_MISSES;
	if (id == PERF_COUNT_HW_CACHE_L1D && res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		return RIG_CTR_L1_REFS;
	return -ENOENT;
}

static int rig_event_init(struct perf_event *event)
{
	struct rig_dev *r = container_of(event->pmu, struct rig_dev, pmu);
	u64 config = event->attr.config;
	int ctr;

	if (event->attr.type == PERF_TYPE_HARDWARE ||
	    event->attr.type == PERF_TYPE_HW_CACHE) {
		/* extended type (PMU type in the upper half) must be ours */
		if ((config >> 32) && (config >> 32) != r->pmu.type)
			return -ENOENT;
		config &= 0xffffffffULL;
		ctr = event->attr.type == PERF_TYPE_HARDWARE ?
		      rig_hw_event(config) : rig_cache_event(config);
		if (ctr < 0)
			return ctr;
	} else if (event->attr.type == r->pmu.type) {
		if (config >= RIG_NR_COUNTERS)
			return -EINVAL;
		ctr = config;
	} else {
		return -ENOENT;
	}
	if (is_sampling_event(event))
		return -EOPNOTSUPP;
	if (event->cpu >= 0 && event->cpu >= r->nr_cpus)
		return -ENODEV;
	event->hw.config = ctr;
	return 0;
}

static void rig_event_update(struct perf_event *event)
{
	struct rig_dev *r = container_of(event->pmu, struct rig_dev, pmu);
	struct hw_perf_event *hwc = &event->hw;
	u64 now, prev;

	now = rig_read_ctr(r, hwc->idx, hwc->config);
	prev = local64_xchg(&hwc->prev_count, now);
	local64_add(now - prev, &event->count);
}

static void rig_event_start(struct perf_event *event, int flags)
{
	struct rig_dev *r = container_of(event->pmu, struct rig_dev, pmu);
	struct hw_perf_event *hwc = &event->hw;

	hwc->idx = smp_processor_id();
	local64_set(&hwc->prev_count, rig_read_ctr(r, hwc->idx, hwc->config));
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

static int rig_event_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		rig_event_start(event, PERF_EF_RELOAD);
	return 0;
}

static void rig_event_del(struct perf_event *event, int flags)
{
	rig_event_stop(event, PERF_EF_UPDATE);
}

static void rig_event_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		rig_event_update(event);
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
			     "cpu type freq_mhz instructions cycles llc_refs llc_misses stall_cycles l1_refs lag_ns\n");
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		void __iomem *rec = rig_cpu_rec(r, cpu);

		memcpy_fromio(name, rec + offsetof(struct rig_pmu_cpu, type_name), 16);
		name[16] = '\0';
		len += sysfs_emit_at(buf, len, "%u %s %u %llu %llu %llu %llu %llu %llu %llu\n",
				     cpu, name,
				     readl(rec + offsetof(struct rig_pmu_cpu, freq_mhz)),
				     rig_read_ctr(r, cpu, RIG_CTR_INSTRUCTIONS),
				     rig_read_ctr(r, cpu, RIG_CTR_CYCLES),
				     rig_read_ctr(r, cpu, RIG_CTR_LLC_REFS),
				     rig_read_ctr(r, cpu, RIG_CTR_LLC_MISSES),
				     rig_read_ctr(r, cpu, RIG_CTR_STALL_CYCLES),
				     rig_read_ctr(r, cpu, RIG_CTR_L1_REFS),
				     rig_read_ctr(r, cpu, RIG_CTR_LAG_NS));
	}
	return len;
}
static DEVICE_ATTR_RO(counters);

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
	NULL,
};
ATTRIBUTE_GROUPS(rig);

/* ------------------------------------------------------------------- PCI */

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
	    !r->nr_cpus || r->nr_cpus > RIG_PMU_MAX_CPUS) {
		/* an ivshmem device that is not a rig: leave it alone */
		dev_info(&pdev->dev, "no rig counters (magic %#x version %u)\n",
			 magic, version);
		ret = -ENODEV;
		goto err_unmap;
	}
	if (r->nr_cpus < num_possible_cpus())
		dev_warn(&pdev->dev, "rig publishes %u CPUs, guest has %u\n",
			 r->nr_cpus, num_possible_cpus());
	pci_set_drvdata(pdev, r);

	r->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_hw_context,
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
	rig = r;
	if (pace)
		rig_set_pace(r, true);
	dev_info(&pdev->dev, "rig PMU for %u CPUs, perf type %d, pacing %s\n",
		 r->nr_cpus, r->pmu.type, pace ? "on" : "left as is");
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
	u32 cpu;

	perf_pmu_unregister(&r->pmu);
	rig = NULL;
	if (pace)
		rig_set_pace(r, false);
	/* sysfs is gone: no request can race; hand back the configured clocks */
	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		writel(0, rig_cpu_rec(r, cpu) +
		       offsetof(struct rig_pmu_cpu, freq_req_mhz));
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
module_pci_driver(rig_driver);

MODULE_DESCRIPTION("sbridge rig: perf PMU serving modelled counters from a QEMU TCG plugin");
MODULE_LICENSE("GPL");
