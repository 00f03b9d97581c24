// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_apitest - an in-kernel consumer of sbridge's exported API, for
 * tests/scenarios/core-api.sh: registers a consumer and counts its
 * notifications; writing a PID to "pid" makes "report" show what
 * sbridge_task_factor(), sbridge_task_scaled_load() and
 * sbridge_cpu_freq_hint() return for that task on every possible CPU;
 * reading "house" queues a work by sbridge_topo_house_queue() and says
 * which CPU it ran on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/workqueue.h>
#include <sbridge/sbridge.h>

static int notified, notified_cpu;
module_param(notified, int, 0444);
MODULE_PARM_DESC(notified, "factors_changed calls");
module_param(notified_cpu, int, 0444);
MODULE_PARM_DESC(notified_cpu, "of which with cpu_mask_changed");

static int pid;
module_param(pid, int, 0644);
MODULE_PARM_DESC(pid, "task the report describes");

static void sbridge_apitest_changed(struct sbridge_consumer *c, bool cpu)
{
	WRITE_ONCE(notified, notified + 1);
	if (cpu)
		WRITE_ONCE(notified_cpu, notified_cpu + 1);
}

static struct sbridge_consumer sbridge_apitest_consumer = {
	.factors_changed = sbridge_apitest_changed,
	.owner = THIS_MODULE,
};

/* the API's misuse answers: a second register, an unknown unregister */
static int dup_rc;
module_param(dup_rc, int, 0444);
MODULE_PARM_DESC(dup_rc, "what registering the same consumer twice returned");

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "exit without unregistering (the core must drop it)");

/* "cpu N factor F scaled S khz K" per possible CPU, F and S for load 1024 */
static int sbridge_apitest_report(char *buf, const struct kernel_param *kp)
{
	struct pid *sp = find_get_pid(READ_ONCE(pid));
	struct task_struct *p = get_pid_task(sp, PIDTYPE_PID);
	int cpu, n = 0;

	put_pid(sp);
	if (!p)
		return sysfs_emit(buf, "no task %d\n", READ_ONCE(pid));
	for_each_possible_cpu(cpu)
		n += sysfs_emit_at(buf, n, "cpu %d factor %u scaled %lu khz %u\n",
				   cpu, sbridge_task_factor(p, cpu),
				   sbridge_task_scaled_load(p, cpu, 1024),
				   sbridge_cpu_freq_hint(cpu));
	n += sysfs_emit_at(buf, n, "cpu %d factor %u\n", -1,
			   sbridge_task_factor(p, -1));
	put_task_struct(p);
	return n;
}

static const struct kernel_param_ops sbridge_apitest_report_ops = {
	.get = sbridge_apitest_report,
};
module_param_cb(report, &sbridge_apitest_report_ops, NULL, 0444);
MODULE_PARM_DESC(report, "API answers for the task in pid");

static int house_ran = -1;

static void sbridge_apitest_house_fn(struct work_struct *w)
{
	WRITE_ONCE(house_ran, raw_smp_processor_id());
}

static DECLARE_DELAYED_WORK(sbridge_apitest_house_work, sbridge_apitest_house_fn);

/* "house cpu N": where a work sbridge_topo_house_queue() queued ran */
static int sbridge_apitest_house(char *buf, const struct kernel_param *kp)
{
	WRITE_ONCE(house_ran, -1);
	sbridge_topo_house_queue(&sbridge_apitest_house_work, 0);
	flush_delayed_work(&sbridge_apitest_house_work);
	return sysfs_emit(buf, "house cpu %d\n", READ_ONCE(house_ran));
}

static const struct kernel_param_ops sbridge_apitest_house_ops = {
	.get = sbridge_apitest_house,
};
module_param_cb(house, &sbridge_apitest_house_ops, NULL, 0444);
MODULE_PARM_DESC(house, "the CPU a work queued by sbridge_topo_house_queue() ran on");

static int __init sbridge_apitest_init(void)
{
	static struct sbridge_consumer stranger = {
		.factors_changed = sbridge_apitest_changed,
	};
	int ret;

	if (sbridge_api_version() != SBRIDGE_API_VERSION)
		return -EINVAL;
	ret = sbridge_register_consumer(&sbridge_apitest_consumer);
	if (ret)
		return ret;
	dup_rc = sbridge_register_consumer(&sbridge_apitest_consumer);
	sbridge_unregister_consumer(&stranger);
	return 0;
}

static void __exit sbridge_apitest_exit(void)
{
	cancel_delayed_work_sync(&sbridge_apitest_house_work);
	if (!leak)
		sbridge_unregister_consumer(&sbridge_apitest_consumer);
}

module_init(sbridge_apitest_init);
module_exit(sbridge_apitest_exit);
MODULE_DESCRIPTION("sbridge test: exported API consumer");
MODULE_LICENSE("GPL");
