// SPDX-License-Identifier: GPL-2.0
/*
 * Frequency-floor actuator: one FREQ_QOS_MIN request per cpufreq policy,
 * raised while a hot compute-bound task of the decision (CPI_B share >=
 * 0.5, so it gains from speed) runs on the policy's CPUs: floor = share x
 * policy max, and dropped to 0 otherwise. Requests are removed on disable and unload,
 * which puts the policy back exactly where the other constraints hold it.
 *
 * Without cpufreq (most QEMU guests; act-freq boots one with cpufreq-dt)
 * the actuator reports itself unavailable; the hint is still published to
 * other modules through sbridge_cpu_freq_hint().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/pm_qos.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "act_ops.h"
#include "trace_act.h"

/* act.freq: this actuator's switch (SET_PARAM and module parameter) */
static u32 sbridge_freq_on;	/* off at load */
static struct sbridge_param_desc sbridge_freq_switch = {
	.name = "act.freq", .val = &sbridge_freq_on, .min = 0, .max = 1,
};
sbridge_module_param(act_freq, sbridge_freq_switch,
		     "1: cpufreq floors under hot compute-bound tasks");

/**
 * struct sbridge_freq_req - our floor on one policy
 * @req: the freq_qos request (active while @policy_cpu >= 0)
 * @policy_cpu: first CPU of the policy, -1 if none
 * @floor: kHz requested now
 *
 * Indexed by the policy's first related CPU. The work item, the policy
 * notifier and exit (after cancelling the work) touch these, under
 * sbridge_freq_mutex.
 */
struct sbridge_freq_req {
	struct freq_qos_request req;
	int policy_cpu;
	u32 floor;
};

static struct sbridge_freq_req *sbridge_freq_reqs;
static unsigned int sbridge_freq_live;
static DEFINE_MUTEX(sbridge_freq_mutex);

static bool sbridge_have_cpufreq(void)
{
	struct cpufreq_policy *pol = cpufreq_cpu_get(cpumask_first(cpu_online_mask));

	if (!pol)
		return false;
	cpufreq_cpu_put(pol);
	return true;
}

static void sbridge_freq_remove(struct sbridge_freq_req *r)
{
	if (r->policy_cpu < 0)
		return;
	freq_qos_remove_request(&r->req);
	trace_sbridge_act(SBRIDGE_TP_ACT_FREQ, SBRIDGE_TP_OP_RESTORE, NULL,
			  r->policy_cpu, NULL, 0, 0);
	r->policy_cpu = -1;
	r->floor = 0;
	sbridge_freq_live--;
}

static void sbridge_freq_remove_all(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		sbridge_freq_remove(&sbridge_freq_reqs[cpu]);
}

/*
 * A policy is freed when its cpufreq driver goes (rmmod, driver rebind):
 * our request points into it, so it must go first. The next work period
 * adds a request to whatever policy replaces it.
 */
static int sbridge_freq_policy_event(struct notifier_block *nb,
				     unsigned long event, void *data)
{
	struct cpufreq_policy *pol = data;

	if (event != CPUFREQ_REMOVE_POLICY)
		return NOTIFY_DONE;
	mutex_lock(&sbridge_freq_mutex);
	sbridge_freq_remove(&sbridge_freq_reqs[cpumask_first(pol->related_cpus)]);
	mutex_unlock(&sbridge_freq_mutex);
	return NOTIFY_OK;
}

static struct notifier_block sbridge_freq_nb = {
	.notifier_call = sbridge_freq_policy_event,
};
static bool sbridge_freq_nb_on;

/* Share of the hottest decided compute-bound task per CPU (fp), 0 if none. */
static void sbridge_freq_demand(const struct sbridge_decision *d, u32 *share)
{
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		const struct sbridge_hint *h = &d->task[i];

		if (h->known && h->cpu < nr_cpu_ids && h->share >= SBRIDGE_FP_ONE / 2 &&
		    h->share > share[h->cpu])
			share[h->cpu] = h->share;
	}
}

static void sbridge_freq_apply_locked(const struct sbridge_decision *d)
{
	u32 *share = kcalloc(nr_cpu_ids, sizeof(u32), GFP_KERNEL);
	struct cpufreq_policy *pol;
	int cpu, j;

	if (!share)
		return;
	sbridge_freq_demand(d, share);
	for_each_online_cpu(cpu) {
		struct sbridge_freq_req *r;
		u32 best = 0, floor;
		int first;

		pol = cpufreq_cpu_get(cpu);
		if (!pol)
			continue;
		/* once per policy, at its first online CPU */
		if (cpumask_first_and(pol->related_cpus, cpu_online_mask) != cpu) {
			cpufreq_cpu_put(pol);
			continue;
		}
		for_each_cpu(j, pol->related_cpus)
			best = max(best, share[j]);
		floor = (u32)(((u64)pol->cpuinfo.max_freq * best) >> SBRIDGE_FP_SHIFT);
		first = cpumask_first(pol->related_cpus);
		r = &sbridge_freq_reqs[first];
		if (r->policy_cpu < 0) {
			if (freq_qos_add_request(&pol->constraints, &r->req,
						 FREQ_QOS_MIN, floor) >= 0) {
				r->policy_cpu = first;
				r->floor = floor;
				sbridge_freq_live++;
				trace_sbridge_act(SBRIDGE_TP_ACT_FREQ,
						  SBRIDGE_TP_OP_APPLY, NULL, first,
						  NULL, floor, 0);
			}
		} else if (r->floor != floor) {
			if (freq_qos_update_request(&r->req, floor) >= 0) {
				r->floor = floor;
				trace_sbridge_act(SBRIDGE_TP_ACT_FREQ,
						  SBRIDGE_TP_OP_APPLY, NULL, first,
						  NULL, floor, 0);
			}
		}
		cpufreq_cpu_put(pol);
	}
	kfree(share);
}

static void sbridge_freq_apply(const struct sbridge_decision *d)
{
	mutex_lock(&sbridge_freq_mutex);
	sbridge_freq_apply_locked(d);
	mutex_unlock(&sbridge_freq_mutex);
}

static void sbridge_freq_restore(void)
{
	mutex_lock(&sbridge_freq_mutex);
	sbridge_freq_remove_all();
	mutex_unlock(&sbridge_freq_mutex);
}

static bool sbridge_freq_active(void)
{
	return READ_ONCE(sbridge_freq_live) > 0;
}

static const char *sbridge_freq_status(void)
{
	if (!sbridge_have_cpufreq())
		return "unavailable: no cpufreq (hint still published via sbridge_cpu_freq_hint)";
	if (!READ_ONCE(sbridge_freq_on))
		return "off";
	return READ_ONCE(sbridge_act_params.observe) ? "off (observe only)" : "on";
}

/* Per-policy requests; watch policies go away. */
static int sbridge_freq_init(void)
{
	int cpu, ret;

	sbridge_freq_reqs = kcalloc(nr_cpu_ids, sizeof(*sbridge_freq_reqs),
				    GFP_KERNEL);
	if (!sbridge_freq_reqs)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		sbridge_freq_reqs[cpu].policy_cpu = -1;
	/* -EINVAL: cpufreq is off (cpufreq.off=1), so no policy will appear */
	ret = cpufreq_register_notifier(&sbridge_freq_nb, CPUFREQ_POLICY_NOTIFIER);
	if (ret && ret != -EINVAL) {
		kfree(sbridge_freq_reqs);
		sbridge_freq_reqs = NULL;
		return ret;
	}
	sbridge_freq_nb_on = !ret;
	return 0;
}

static void sbridge_freq_exit(void)
{
	mutex_lock(&sbridge_freq_mutex);
	sbridge_freq_remove_all();
	mutex_unlock(&sbridge_freq_mutex);
	if (sbridge_freq_nb_on)
		cpufreq_unregister_notifier(&sbridge_freq_nb, CPUFREQ_POLICY_NOTIFIER);
	kfree(sbridge_freq_reqs);
	sbridge_freq_reqs = NULL;
}

const struct sbridge_actuator sbridge_act_freq = {
	.name = "freq",
	.param = &sbridge_freq_switch,
	.trace_id = SBRIDGE_TP_ACT_FREQ,
	.hint_bit = SBRIDGE_HINT_FREQ,
	.init = sbridge_freq_init,
	.apply = sbridge_freq_apply,
	.restore = sbridge_freq_restore,
	.exit = sbridge_freq_exit,
	.active = sbridge_freq_active,
	.status = sbridge_freq_status,
};
