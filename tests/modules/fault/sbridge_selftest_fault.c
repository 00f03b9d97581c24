// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_selftest_fault - misbehaves on purpose so the test harness can
 * prove it notices: mode=warn WARNs, mode=oops dereferences NULL (in a
 * kthread, so insmod itself returns), mode=hang blocks in D state until
 * the hung-task detector fires. Test builds only; never installed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>

static char *mode = "none";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "none, warn, oops or hang");

static int *sbridge_selftest_null;

static int sbridge_selftest_oops(void *unused)
{
	return READ_ONCE(*sbridge_selftest_null);
}

static int sbridge_selftest_hang(void *unused)
{
	/* uninterruptible and never woken: what a deadlock looks like */
	set_current_state(TASK_UNINTERRUPTIBLE);
	schedule();
	return 0;
}

static int __init sbridge_selftest_init(void)
{
	pr_info("mode=%s\n", mode);
	if (!strcmp(mode, "warn"))
		WARN(1, "sbridge selftest: deliberate warning\n");
	else if (!strcmp(mode, "oops"))
		kthread_run(sbridge_selftest_oops, NULL, "sb_selftest_oops");
	else if (!strcmp(mode, "hang"))
		kthread_run(sbridge_selftest_hang, NULL, "sb_selftest_hang");
	else if (strcmp(mode, "none"))
		return -EINVAL;
	return 0;
}
module_init(sbridge_selftest_init);
/* no exit function: a module that hung or oopsed must not be unloadable */
MODULE_DESCRIPTION("sbridge test harness self-test: deliberate faults");
MODULE_LICENSE("GPL");
