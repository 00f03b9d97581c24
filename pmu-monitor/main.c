// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_pmu - counter source for sbridge_core (perf_event API).
 *
 * Load order: parameters are checked, memory latency is calibrated (or
 * taken from mem_latency_ns=), counters are created on every online CPU
 * (CPU hotplug state), what exists is reported, frequency sampling starts
 * (with the rig's clock counters where its PMU is there), and only then the
 * source is registered with the core. Unload undoes it
 * in reverse: unregister first (the core waits for its readers), then
 * stop sampling, then release the counters.
 *
 * Read-only views in /sys/module/sbridge_pmu/parameters/:
 *   status          one line: "learning on ..." or the degrade reason
 *   events          one line per core type: CPUs, PMU, capacity, events
 *   event_table     one line per core type: the core model the event table
 *                   matched and the event used for each CPI-stack kind
 *   counts          per CPU: read_delta() calls and counts handed out
 *   mem_latency_ns  the memory latency in use
 *   raw_events      the raw codes given at load
 *   freq_source     where the effective frequency comes from first
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <sbridge/sbridge.h>
#include <sbridge/compat.h>

#include "pmu.h"

#define SBRIDGE_PMU_DEFAULT_LAT_NS	100	/* when calibration fails */
#define SBRIDGE_PMU_MAX_LAT_NS		100000
#define SBRIDGE_PMU_STATUS_LEN		160

static char *raw_events;
module_param(raw_events, charp, 0444);
MODULE_PARM_DESC(raw_events,
		 "raw event codes per core type: key:kind=code[,kind=code][;key:...]; key is the PMU name of the core type (e.g. armv8_cortex_a53, cpu_atom) or *; kind is cycles, instructions, llc_misses or stall_cycles");

static unsigned int mem_latency_ns;
module_param(mem_latency_ns, uint, 0444);
MODULE_PARM_DESC(mem_latency_ns,
		 "memory latency in ns for the CPI_stall penalty (1..100000); 0 or unset: measure at load. Shows the value in use.");

bool sbridge_pmu_mix = true;
module_param_named(mix, sbridge_pmu_mix, bool, 0444);
MODULE_PARM_DESC(mix,
		 "count instruction classes (load/store, integer, SIMD, FP, branch) where the PMU has them, for the mix predictor (default 1; 0: the CPI stack alone)");

unsigned int sbridge_pmu_mix_every = 8;
module_param_named(mix_every, sbridge_pmu_mix_every, uint, 0444);
MODULE_PARM_DESC(mix_every,
		 "read the instruction classes over one time slice in this many per CPU (default 8; 1: every slice). Each read costs a few hundred cycles at every context switch; the classes are shares of instructions, so a sample of slices estimates them.");

bool sbridge_pmu_kernel;
module_param_named(kernel, sbridge_pmu_kernel, bool, 0444);
MODULE_PARM_DESC(kernel,
		 "count kernel-mode work too (default 0: user mode only, exclude_kernel and exclude_hv; where the PMU cannot tell modes apart every mode is counted)");

static char sbridge_pmu_status[SBRIDGE_PMU_STATUS_LEN] = "loading";

static int sbridge_pmu_ro_set(const char *val, const struct kernel_param *kp)
{
	pr_err("%s is read-only\n", kp->name);
	return -EPERM;
}

static int sbridge_pmu_status_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", sbridge_pmu_status);
}

static int sbridge_pmu_events_get(char *buf, const struct kernel_param *kp)
{
	return sbridge_pmu_format_events(buf, PAGE_SIZE);
}

static int sbridge_pmu_table_get(char *buf, const struct kernel_param *kp)
{
	return sbridge_pmu_format_table(buf, PAGE_SIZE);
}

static int sbridge_pmu_counts_get(char *buf, const struct kernel_param *kp)
{
	return sbridge_pmu_format_counts(buf, PAGE_SIZE);
}

static int sbridge_pmu_freq_source_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", sbridge_pmu_freq_source());
}

static const struct kernel_param_ops sbridge_pmu_status_ops = {
	.set = sbridge_pmu_ro_set,
	.get = sbridge_pmu_status_get,
};

static const struct kernel_param_ops sbridge_pmu_events_ops = {
	.set = sbridge_pmu_ro_set,
	.get = sbridge_pmu_events_get,
};

static const struct kernel_param_ops sbridge_pmu_table_ops = {
	.set = sbridge_pmu_ro_set,
	.get = sbridge_pmu_table_get,
};

static const struct kernel_param_ops sbridge_pmu_counts_ops = {
	.set = sbridge_pmu_ro_set,
	.get = sbridge_pmu_counts_get,
};

static const struct kernel_param_ops sbridge_pmu_freq_source_ops = {
	.set = sbridge_pmu_ro_set,
	.get = sbridge_pmu_freq_source_get,
};

module_param_cb(status, &sbridge_pmu_status_ops, NULL, 0444);
MODULE_PARM_DESC(status, "read-only: learning on, or why not");
module_param_cb(events, &sbridge_pmu_events_ops, NULL, 0444);
MODULE_PARM_DESC(events, "read-only: counters that exist, per core type");
module_param_cb(event_table, &sbridge_pmu_table_ops, NULL, 0444);
MODULE_PARM_DESC(event_table,
		 "read-only: per core type, the core model the event table matched and the event each CPI-stack kind counts (docs/pmu-events.md)");
module_param_cb(counts, &sbridge_pmu_counts_ops, NULL, 0444);
MODULE_PARM_DESC(counts,
		 "read-only: per CPU, read_delta() calls and counts handed to the core since load");
module_param_cb(freq_source, &sbridge_pmu_freq_source_ops, NULL, 0444);
MODULE_PARM_DESC(freq_source,
		 "read-only: where the effective frequency comes from (APERF/MPERF, arch_freq_scale, cpufreq)");

static struct sbridge_source_ops sbridge_pmu_ops = {
	.name		= "pmu",
	.owner		= THIS_MODULE,
	.read_delta	= sbridge_pmu_read_delta,
	.effective_khz	= sbridge_pmu_effective_khz,
	.clock		= sbridge_pmu_clock,
	.pmu		= sbridge_pmu_cpu_pmu,
};

static u32 sbridge_pmu_ev_all(void)
{
	u32 ev = 0;
	int i;

	for (i = 0; i < SBRIDGE_PMU_FIRST_MIX; i++)
		ev |= sbridge_pmu_kind_ev[i];
	return ev;
}

/* Fill sbridge_pmu_status from what exists on every CPU (SBRIDGE_EV_*). */
static void sbridge_pmu_set_status(u32 ev)
{
	const u32 cpi = SBRIDGE_EV_CYCLES | SBRIDGE_EV_INSTRUCTIONS;
	const char *why;
	int n, i;

	if ((ev & cpi) == cpi) {
		n = scnprintf(sbridge_pmu_status, sizeof(sbridge_pmu_status),
			      "learning on");
		if ((ev & sbridge_pmu_ev_all()) != sbridge_pmu_ev_all()) {
			n += scnprintf(sbridge_pmu_status + n,
				       sizeof(sbridge_pmu_status) - n, " (missing:");
			for (i = 0; i < SBRIDGE_PMU_FIRST_MIX; i++)
				if (!(ev & sbridge_pmu_kind_ev[i]))
					n += scnprintf(sbridge_pmu_status + n,
						       sizeof(sbridge_pmu_status) - n,
						       " %s", sbridge_pmu_kind_name[i]);
			scnprintf(sbridge_pmu_status + n,
				  sizeof(sbridge_pmu_status) - n, ")");
		}
		return;
	}
	if (ev & SBRIDGE_EV_CYCLES)
		why = "cycles only";
	else if (ev & SBRIDGE_EV_INSTRUCTIONS)
		why = "no cycle counter";
	else
		why = "no counters";
	scnprintf(sbridge_pmu_status, sizeof(sbridge_pmu_status),
		  "%s: learning off; rules and static factors still apply", why);
}

/* Say per core type what exists (dmesg), same text as the `events` file. */
static void sbridge_pmu_report(void)
{
	char *buf, *line, *rest;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return;
	if (sbridge_pmu_format_events(buf, PAGE_SIZE) >= 0) {
		rest = buf;
		while ((line = strsep(&rest, "\n")) != NULL)
			if (*line)
				pr_info("events on %s\n", line);
	}
	kfree(buf);
}

static int __init sbridge_pmu_init(void)
{
	const char *lat_from = "set by mem_latency_ns";
	u32 ev;
	int ret;

	if (sbridge_api_version() != SBRIDGE_API_VERSION) {
		pr_err("core speaks API %u, this module needs %u\n",
		       sbridge_api_version(), SBRIDGE_API_VERSION);
		return -EINVAL;
	}
	if (mem_latency_ns > SBRIDGE_PMU_MAX_LAT_NS) {
		pr_err("mem_latency_ns=%u out of range (1..%u, or 0 to measure)\n",
		       mem_latency_ns, SBRIDGE_PMU_MAX_LAT_NS);
		return -EINVAL;
	}
	ret = sbridge_pmu_parse_raw_events(raw_events);
	if (ret)
		return ret;

	if (!mem_latency_ns) {
		int lat = sbridge_pmu_calibrate_latency();

		if (lat > 0) {
			mem_latency_ns = min_t(int, lat, SBRIDGE_PMU_MAX_LAT_NS);
			lat_from = "measured by pointer chase";
		} else {
			mem_latency_ns = SBRIDGE_PMU_DEFAULT_LAT_NS;
			lat_from = lat == -ETIME ?
				"default: pointer chase did not fit in 200 ms, set mem_latency_ns" :
				"default: no memory for the pointer chase";
		}
	}

	ret = sbridge_pmu_counters_init();
	if (ret)
		return ret;
	ev = sbridge_pmu_events_everywhere();
	sbridge_pmu_report();
	sbridge_pmu_set_status(ev);
	pr_info("%s\n", sbridge_pmu_status);

	ret = sbridge_pmu_freq_init();
	if (ret) {
		sbridge_pmu_counters_exit();
		return ret;
	}
	sbridge_pmu_ops.events = ev;
	sbridge_pmu_ops.mem_latency_ns = mem_latency_ns;
	ret = sbridge_register_source(&sbridge_pmu_ops);
	if (ret) {
		pr_err("cannot register with sbridge_core (%d)\n", ret);
		sbridge_pmu_freq_exit();
		sbridge_pmu_counters_exit();
		return ret;
	}
	pr_info("version %s: memory latency %u ns (%s), frequency from %s\n",
		SBRIDGE_VERSION, mem_latency_ns, lat_from,
		sbridge_pmu_freq_source());
	return 0;
}

static void __exit sbridge_pmu_exit(void)
{
	sbridge_unregister_source(&sbridge_pmu_ops);
	sbridge_pmu_freq_exit();
	sbridge_pmu_counters_exit();
	pr_info("unloaded\n");
}

module_init(sbridge_pmu_init);
module_exit(sbridge_pmu_exit);
MODULE_DESCRIPTION("sbridge: hardware counter source (perf_event)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SBRIDGE_VERSION);
