// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_schedwatch - evidence of what the stock scheduler did, for the
 * evaluation's baselines (bench/eval/guest.sh); not part of sbridge.
 *
 * /proc/sbridge_schedwatch, one line of counters since load:
 *
 *   overutilized_ns  time the root domain was overutilized, as the
 *                    scheduler's own sched_overutilized_tp reports it
 *                    (EAS stands aside while it is)
 *   observed_ns      time since load
 *   ou_events        sched_overutilized_tp hits
 *   migrations       sched_migrate_task hits
 *   up, down         of which from a little to a big CPU and back ("big"
 *                    module parameter: the big CPUs, a CPU list)
 *   active_up        up-migrations done by a CPU's stopper thread
 *                    (migration/N): the push of a running task, i.e. misfit
 *                    or active load balance, or an affinity change that
 *                    moved a running task
 *   active_down      the same, big to little
 *
 * The tracepoints are not exported: they are found by name, as sbridge's
 * hooks find theirs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static char *big = "";
module_param(big, charp, 0444);
MODULE_PARM_DESC(big, "the big CPUs (a CPU list such as 0 or 0-2)");

static cpumask_var_t sbridge_sw_big;
static struct tracepoint *sbridge_sw_tp_ou, *sbridge_sw_tp_mig;
static bool sbridge_sw_ou_on, sbridge_sw_mig_on;

/* Overutilized accounting, under sbridge_sw_lock (a leaf lock). */
static DEFINE_RAW_SPINLOCK(sbridge_sw_lock);
static bool sbridge_sw_ou;
static u64 sbridge_sw_since, sbridge_sw_ou_ns, sbridge_sw_t0;

static atomic64_t sbridge_sw_ou_events, sbridge_sw_mig, sbridge_sw_up, sbridge_sw_down,
	sbridge_sw_aup, sbridge_sw_adown;

struct root_domain;

static void sbridge_sw_probe_ou(void *data, struct root_domain *rd, bool overutilized)
{
	unsigned long flags;
	u64 now = local_clock();

	atomic64_inc(&sbridge_sw_ou_events);
	raw_spin_lock_irqsave(&sbridge_sw_lock, flags);
	if (sbridge_sw_ou && now > sbridge_sw_since)
		sbridge_sw_ou_ns += now - sbridge_sw_since;
	sbridge_sw_since = now;
	sbridge_sw_ou = overutilized;
	raw_spin_unlock_irqrestore(&sbridge_sw_lock, flags);
}

static void sbridge_sw_probe_mig(void *data, struct task_struct *p, int dest)
{
	bool from_big = cpumask_test_cpu(task_cpu(p), sbridge_sw_big);
	bool to_big = cpumask_test_cpu(dest, sbridge_sw_big);
	bool stopper = !strncmp(current->comm, "migration/", 10);

	atomic64_inc(&sbridge_sw_mig);
	if (!from_big && to_big) {
		atomic64_inc(&sbridge_sw_up);
		if (stopper)
			atomic64_inc(&sbridge_sw_aup);
	} else if (from_big && !to_big) {
		atomic64_inc(&sbridge_sw_down);
		if (stopper)
			atomic64_inc(&sbridge_sw_adown);
	}
}

static int sbridge_sw_show(struct seq_file *m, void *v)
{
	unsigned long flags;
	u64 now = local_clock(), ou;

	raw_spin_lock_irqsave(&sbridge_sw_lock, flags);
	ou = sbridge_sw_ou_ns;
	if (sbridge_sw_ou && now > sbridge_sw_since)
		ou += now - sbridge_sw_since;
	raw_spin_unlock_irqrestore(&sbridge_sw_lock, flags);
	seq_printf(m, "overutilized_ns %llu observed_ns %llu ou_events %lld migrations %lld up %lld down %lld active_up %lld active_down %lld\n",
		   ou, now - sbridge_sw_t0, atomic64_read(&sbridge_sw_ou_events),
		   atomic64_read(&sbridge_sw_mig), atomic64_read(&sbridge_sw_up),
		   atomic64_read(&sbridge_sw_down), atomic64_read(&sbridge_sw_aup),
		   atomic64_read(&sbridge_sw_adown));
	return 0;
}

static void sbridge_sw_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_overutilized_tp"))
		sbridge_sw_tp_ou = tp;
	else if (!strcmp(tp->name, "sched_migrate_task"))
		sbridge_sw_tp_mig = tp;
}

static void sbridge_sw_detach(void)
{
	if (sbridge_sw_mig_on)
		tracepoint_probe_unregister(sbridge_sw_tp_mig, sbridge_sw_probe_mig, NULL);
	if (sbridge_sw_ou_on)
		tracepoint_probe_unregister(sbridge_sw_tp_ou, sbridge_sw_probe_ou, NULL);
	sbridge_sw_mig_on = false;
	sbridge_sw_ou_on = false;
	tracepoint_synchronize_unregister();
}

static int __init sbridge_sw_init(void)
{
	int ret;

	if (!zalloc_cpumask_var(&sbridge_sw_big, GFP_KERNEL))
		return -ENOMEM;
	if (*big && cpulist_parse(big, sbridge_sw_big)) {
		pr_err("big=%s is not a CPU list\n", big);
		ret = -EINVAL;
		goto out_mask;
	}
	for_each_kernel_tracepoint(sbridge_sw_find, NULL);
	if (!sbridge_sw_tp_ou || !sbridge_sw_tp_mig) {
		pr_err("tracepoint %s not found\n",
		       sbridge_sw_tp_ou ? "sched_migrate_task" : "sched_overutilized_tp");
		ret = -ENOENT;
		goto out_mask;
	}
	sbridge_sw_t0 = local_clock();
	sbridge_sw_since = sbridge_sw_t0;
	ret = tracepoint_probe_register(sbridge_sw_tp_ou, sbridge_sw_probe_ou, NULL);
	if (ret)
		goto out_mask;
	sbridge_sw_ou_on = true;
	ret = tracepoint_probe_register(sbridge_sw_tp_mig, sbridge_sw_probe_mig, NULL);
	if (ret)
		goto out_detach;
	sbridge_sw_mig_on = true;
	if (!proc_create_single("sbridge_schedwatch", 0444, NULL, sbridge_sw_show)) {
		ret = -ENOMEM;
		goto out_detach;
	}
	return 0;
out_detach:
	sbridge_sw_detach();
out_mask:
	free_cpumask_var(sbridge_sw_big);
	return ret;
}

static void __exit sbridge_sw_exit(void)
{
	remove_proc_entry("sbridge_schedwatch", NULL);
	sbridge_sw_detach();
	free_cpumask_var(sbridge_sw_big);
}

module_init(sbridge_sw_init);
module_exit(sbridge_sw_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sbridge evaluation: overutilized time and migrations of the stock scheduler");
