// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_core - heterogeneity-aware hints for the unmodified scheduler.
 *
 * Skeleton: load, unload, report version. The framework proper lands with
 * its own issue.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <sbridge/sbridge.h>
#include <sbridge/compat.h>

static struct kobject *sbridge_kobj;

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", SBRIDGE_VERSION);
}
static struct kobj_attribute version_attr = __ATTR_RO(version);

static struct attribute *sbridge_attrs[] = {
	&version_attr.attr,
	NULL,
};

static const struct attribute_group sbridge_group = {
	.attrs = sbridge_attrs,
};

/**
 * sbridge_api_version() - version of the in-kernel API this core provides
 *
 * Return: SBRIDGE_API_VERSION.
 */
u32 sbridge_api_version(void)
{
	return SBRIDGE_API_VERSION;
}
EXPORT_SYMBOL_GPL(sbridge_api_version);

static int __init sbridge_init(void)
{
	int ret;

	sbridge_kobj = kobject_create_and_add("sbridge", kernel_kobj);
	if (!sbridge_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(sbridge_kobj, &sbridge_group);
	if (ret) {
		kobject_put(sbridge_kobj);
		return ret;
	}
	pr_info("version %s loaded\n", SBRIDGE_VERSION);
	return 0;
}

static void __exit sbridge_exit(void)
{
	sysfs_remove_group(sbridge_kobj, &sbridge_group);
	kobject_put(sbridge_kobj);
	pr_info("unloaded\n");
}

module_init(sbridge_init);
module_exit(sbridge_exit);
MODULE_DESCRIPTION("sbridge: heterogeneity-aware hints for the unmodified scheduler");
MODULE_LICENSE("GPL");
MODULE_VERSION(SBRIDGE_VERSION);
