// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_pmu - counter source for sbridge_core (perf_event API).
 *
 * Skeleton: checks it speaks the core's API, loads, unloads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <sbridge/sbridge.h>
#include <sbridge/compat.h>

static int __init sbridge_pmu_init(void)
{
	if (sbridge_api_version() != SBRIDGE_API_VERSION) {
		pr_err("core speaks API %u, this module needs %u\n",
		       sbridge_api_version(), SBRIDGE_API_VERSION);
		return -EINVAL;
	}
	pr_info("version %s loaded\n", SBRIDGE_VERSION);
	return 0;
}

static void __exit sbridge_pmu_exit(void)
{
	pr_info("unloaded\n");
}

module_init(sbridge_pmu_init);
module_exit(sbridge_pmu_exit);
MODULE_DESCRIPTION("sbridge: hardware counter source (perf_event)");
MODULE_LICENSE("GPL");
MODULE_VERSION(SBRIDGE_VERSION);
