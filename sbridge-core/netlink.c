// SPDX-License-Identifier: GPL-2.0
/*
 * Control: the "sbridge" generic-netlink family (include/uapi/linux/
 * sbridge.h). Every request attribute has a strict policy: unknown or
 * malformed attributes are refused by the genetlink core with an extack
 * message before any handler runs, and handlers validate everything before
 * changing anything. Changes need CAP_SYS_ADMIN, checked explicitly
 * (GENL_ADMIN_PERM would test CAP_NET_ADMIN instead).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <sbridge/compat.h>
#include "internal.h"
#include "actuators.h"
#include "checker.h"

#define SBRIDGE_CPUMASK_MAX_BYTES	1024	/* 8192 CPUs */
#define SBRIDGE_PARAM_NAME_LEN		32
/* longest event chain a source names (SBRIDGE_A_CPU_PMU_CHAIN), with NUL */
#define SBRIDGE_PMU_CHAIN_LEN		128

static const struct nla_policy sbridge_policy[SBRIDGE_A_MAX + 1] = {
	[SBRIDGE_A_CPUMASK]	= { .type = NLA_BINARY,
				    .len = SBRIDGE_CPUMASK_MAX_BYTES },
	[SBRIDGE_A_FACTOR]	= NLA_POLICY_MAX(NLA_U32, SBRIDGE_FACTOR_MAX),
	[SBRIDGE_A_RULES]	= { .type = NLA_NESTED },
	[SBRIDGE_A_MATRIX]	= { .type = NLA_NESTED },
	[SBRIDGE_A_PARAM_NAME]	= { .type = NLA_NUL_STRING,
				    .len = SBRIDGE_PARAM_NAME_LEN - 1 },
	[SBRIDGE_A_PARAM_VALUE]	= { .type = NLA_U64 },
};

static const struct genl_multicast_group sbridge_mcgrps[] = {
	{ .name = SBRIDGE_GENL_MCGRP_EVENTS },
};

static struct genl_family sbridge_family;

/* One message of a dump of the family. */
static void *sbridge_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb,
			      u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &sbridge_family, NLM_F_MULTI, cmd);
}

/*
 * A nest @attrtype of @n SBRIDGE_A_FACTOR values, one per core type: the
 * layout tasks and rules share. Returns 0 or -EMSGSIZE, the nest undone.
 */
static int sbridge_nla_put_factors(struct sk_buff *skb, int attrtype,
				   const u32 *factors, u32 n)
{
	struct nlattr *f = nla_nest_start(skb, attrtype);
	u32 i;

	if (!f)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (nla_put_u32(skb, SBRIDGE_A_FACTOR, factors[i])) {
			nla_nest_cancel(skb, f);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, f);
	return 0;
}

/* May the requester of a dump see every user's tasks and cells? */
static bool sbridge_nl_sees_all(struct netlink_callback *cb)
{
	return netlink_capable(cb->skb, CAP_PERFMON) ||
	       netlink_capable(cb->skb, CAP_SYS_ADMIN);
}

static u32 sbridge_nl_uid(struct netlink_callback *cb)
{
	return from_kuid_munged(&init_user_ns, NETLINK_CB(cb->skb).creds.uid);
}

/*
 * The listener of event.c's chain: each event goes to the
 * SBRIDGE_GENL_MCGRP_EVENTS group. Best effort: dropped if nobody listens
 * or memory is short.
 */
static int sbridge_nl_event(struct notifier_block *nb, unsigned long type,
			    void *data)
{
	const char *text = data;
	struct sk_buff *skb;
	void *hdr;

	if (type >= SBRIDGE_EVENT_INTERNAL ||
	    !genl_has_listeners(&sbridge_family, &init_net, 0))
		return NOTIFY_DONE;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return NOTIFY_DONE;
	hdr = genlmsg_put(skb, 0, 0, &sbridge_family, 0, SBRIDGE_CMD_EVENT);
	if (!hdr ||
	    nla_put_u32(skb, SBRIDGE_A_EVENT_TYPE, type) ||
	    (text && nla_put_string(skb, SBRIDGE_A_EVENT_TEXT, text))) {
		nlmsg_free(skb);
		return NOTIFY_DONE;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&sbridge_family, skb, 0, 0, GFP_ATOMIC);
	return NOTIFY_OK;
}

static struct notifier_block sbridge_nl_event_nb = {
	.notifier_call = sbridge_nl_event,
};

/* internal_flags of the ops that change state */
#define SBRIDGE_NL_ADMIN	BIT(0)

/* Every changing command passes here first: CAP_SYS_ADMIN of the sender. */
static int sbridge_nl_pre_doit(const SBRIDGE_GENL_PRE_DOIT_OPS *ops,
			       struct sk_buff *req, struct genl_info *info)
{
	if (!(ops->internal_flags & SBRIDGE_NL_ADMIN) ||
	    netlink_capable(req, CAP_SYS_ADMIN))
		return 0;
	NL_SET_ERR_MSG(info->extack, "changing sbridge needs CAP_SYS_ADMIN");
	return -EPERM;
}

/*
 * The clock @cpu's CUR_KHZ is: the counter source's, else cpufreq's
 * current frequency, which the core reads itself; "" / NONE if neither.
 */
static u32 sbridge_cpu_clock(int cpu, char *name, size_t len)
{
	u32 kind = sbridge_source_clock(cpu, name, len);

	if (kind == SBRIDGE_CLOCK_NONE && cpufreq_quick_get(cpu)) {
		strscpy(name, "cpufreq", len);
		kind = SBRIDGE_CLOCK_CPUFREQ;
	}
	return kind;
}

/*
 * The best measured clock of the online CPUs (none < cpufreq < FIE <
 * counters, emulated counters): the source in force, for the status line.
 * A CPU that has not run since the source came keeps a lesser one until
 * it does (each CPU's is in SBRIDGE_A_CPU_CLOCK_KIND).
 */
static u32 sbridge_status_clock(char *name, size_t len)
{
	static const u8 rank[] = {
		[SBRIDGE_CLOCK_NONE]	 = 0,
		[SBRIDGE_CLOCK_CPUFREQ]	 = 1,
		[SBRIDGE_CLOCK_FIE]	 = 2,
		[SBRIDGE_CLOCK_COUNTERS] = 3,
		[SBRIDGE_CLOCK_EMULATED] = 3,
	};
	u32 best = SBRIDGE_CLOCK_NONE, kind;
	bool first = true;
	char n[32];
	int cpu;

	strscpy(name, "", len);
	for_each_online_cpu(cpu) {
		kind = sbridge_cpu_clock(cpu, n, sizeof(n));
		if (kind >= ARRAY_SIZE(rank))
			kind = SBRIDGE_CLOCK_NONE;
		if (first || rank[kind] > rank[best]) {
			best = kind;
			strscpy(name, n, len);
			first = false;
		}
	}
	return best;
}

static int sbridge_nl_get_status(struct sk_buff *req, struct genl_info *info)
{
	char src[32], mode[160], clock[32], pred[128], scx[96];
	struct sk_buff *skb;
	u32 events, clock_kind;
	u64 switches;
	void *hdr;

	events = sbridge_source_describe(src, sizeof(src));
	clock_kind = sbridge_status_clock(clock, sizeof(clock));
	switches = sbridge_sample_switches(NULL);
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put_reply(skb, info, &sbridge_family, 0,
				SBRIDGE_CMD_GET_STATUS);
	if (!hdr)
		goto nomem;
	if (nla_put_string(skb, SBRIDGE_A_STATUS_VERSION, SBRIDGE_VERSION) ||
	    nla_put_u32(skb, SBRIDGE_A_STATUS_API, SBRIDGE_GENL_VERSION) ||
	    (src[0] && nla_put_string(skb, SBRIDGE_A_STATUS_SOURCE, src)) ||
	    nla_put_u32(skb, SBRIDGE_A_STATUS_EVENTS, events) ||
	    nla_put_u8(skb, SBRIDGE_A_STATUS_LEARNING, sbridge_learning_possible()) ||
	    nla_put_u64_64bit(skb, SBRIDGE_A_STATUS_TASKS, sbridge_tasks_live(),
			      SBRIDGE_A_PAD) ||
	    nla_put_u64_64bit(skb, SBRIDGE_A_STATUS_ALLOCS,
			      atomic64_read(&sbridge_stats.allocs), SBRIDGE_A_PAD) ||
	    nla_put_u64_64bit(skb, SBRIDGE_A_STATUS_FREES,
			      atomic64_read(&sbridge_stats.frees), SBRIDGE_A_PAD) ||
	    nla_put_u32(skb, SBRIDGE_A_STATUS_MATRIX, sbridge_matrix_count()) ||
	    nla_put_u32(skb, SBRIDGE_A_STATUS_RULES, sbridge_rules_count()) ||
	    nla_put_u32(skb, SBRIDGE_A_STATUS_NTYPES, sbridge_topo.ntypes) ||
	    nla_put_u64_64bit(skb, SBRIDGE_A_STATUS_SWITCHES, switches,
			      SBRIDGE_A_PAD) ||
	    nla_put_string(skb, SBRIDGE_A_STATUS_MESSAGE,
			   sbridge_status_message(events, src[0])) ||
	    nla_put_string(skb, SBRIDGE_A_STATUS_MODE,
			   sbridge_actuators_mode(mode, sizeof(mode))) ||
	    nla_put_u32(skb, SBRIDGE_A_STATUS_TYPES_FROM, sbridge_topo.from) ||
	    nla_put_u8(skb, SBRIDGE_A_STATUS_TYPES_STALE,
		       sbridge_topo_regroup_pending()) ||
	    nla_put_string(skb, SBRIDGE_A_STATUS_CLOCK, clock[0] ? clock : "none") ||
	    nla_put_u32(skb, SBRIDGE_A_STATUS_CLOCK_KIND, clock_kind) ||
	    nla_put_string(skb, SBRIDGE_A_STATUS_PREDICTOR,
			   sbridge_predictor_describe(pred, sizeof(pred), events)) ||
	    nla_put_string(skb, SBRIDGE_A_STATUS_SCHED_EXT,
			   sbridge_kfuncs_status(scx, sizeof(scx))))
		goto nomem;
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
nomem:
	nlmsg_free(skb);
	return -EMSGSIZE;
}

static u32 sbridge_cpu_cur_khz(int cpu)
{
	u32 khz = sbridge_source_effective_khz(cpu);

	return khz ? khz : cpufreq_quick_get(cpu);
}

static int sbridge_nl_get_cpus(struct sk_buff *skb, struct netlink_callback *cb)
{
	int cpu;

	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++) {
		char clock[32], pmu[32], chain[SBRIDGE_PMU_CHAIN_LEN];
		const struct sbridge_cpu *c;
		bool has_pmu;
		void *hdr;

		if (!cpu_possible(cpu))
			continue;
		c = per_cpu_ptr(&sbridge_cpus, cpu);
		has_pmu = sbridge_source_pmu(cpu, pmu, sizeof(pmu), chain,
					     sizeof(chain));
		hdr = sbridge_dump_hdr(skb, cb, SBRIDGE_CMD_GET_CPUS);
		if (!hdr)
			break;
		if (nla_put_u32(skb, SBRIDGE_A_CPU_ID, cpu) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_TYPE, c->type) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_CAPACITY,
				sbridge_cpu_capacity(cpu)) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_ORIG_CAPACITY, READ_ONCE(c->orig_capacity)) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_FACTOR, READ_ONCE(c->factor_eff)) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_FACTOR_NOMINAL,
				READ_ONCE(c->factor)) ||
		    nla_put_u8(skb, SBRIDGE_A_CPU_DECLARED, sbridge_topo.declared) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_FACTOR_OVERRIDE,
				READ_ONCE(c->factor_override)) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_CUR_KHZ, sbridge_cpu_cur_khz(cpu)) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_MAX_KHZ, READ_ONCE(c->max_khz)) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_CLUSTER, c->cluster) ||
		    nla_put_string(skb, SBRIDGE_A_CPU_MODEL, c->model) ||
		    (c->cache_kb[0] &&
		     nla_put_u32(skb, SBRIDGE_A_CPU_L1D_KB, c->cache_kb[0])) ||
		    (c->cache_kb[1] &&
		     nla_put_u32(skb, SBRIDGE_A_CPU_L2_KB, c->cache_kb[1])) ||
		    (c->cache_kb[2] &&
		     nla_put_u32(skb, SBRIDGE_A_CPU_L3_KB, c->cache_kb[2])) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_CLOCK_KIND,
				sbridge_cpu_clock(cpu, clock, sizeof(clock))) ||
		    nla_put_u32(skb, SBRIDGE_A_CPU_TYPE_FROM, c->type_from) ||
		    (has_pmu &&
		     (nla_put_string(skb, SBRIDGE_A_CPU_PMU, pmu) ||
		      nla_put_string(skb, SBRIDGE_A_CPU_PMU_CHAIN, chain)))) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = cpu + 1;
	}
	return skb->len;
}

static int sbridge_nl_set_cpu_factor(struct sk_buff *req, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *a = info->attrs[SBRIDGE_A_CPUMASK];
	cpumask_var_t mask;
	unsigned int i, len;
	const u8 *bytes;
	u32 factor;
	int ret;

	if (!a || !info->attrs[SBRIDGE_A_FACTOR]) {
		NL_SET_ERR_MSG(extack, "need SBRIDGE_A_CPUMASK and SBRIDGE_A_FACTOR");
		return -EINVAL;
	}
	factor = nla_get_u32(info->attrs[SBRIDGE_A_FACTOR]);
	if (factor && factor < SBRIDGE_FACTOR_MIN) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[SBRIDGE_A_FACTOR],
				    "factor below 128 (1/8); 0 clears the override");
		return -EINVAL;
	}
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	bytes = nla_data(a);
	len = nla_len(a);
	for (i = 0; i < len * 8; i++) {
		if (!(bytes[i / 8] & (1U << (i % 8))))
			continue;
		if (i >= nr_cpu_ids || !cpu_possible(i)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "CPU mask names a CPU that does not exist");
			ret = -EINVAL;
			goto out;
		}
		cpumask_set_cpu(i, mask);
	}
	if (cpumask_empty(mask)) {
		NL_SET_ERR_MSG_ATTR(extack, a, "empty CPU mask");
		ret = -EINVAL;
		goto out;
	}
	ret = sbridge_set_cpu_factor(mask, factor);
	if (ret) {
		NL_SET_ERR_MSG(extack, "CPU factor refused");
		goto out;
	}
	sbridge_consumers_notify(true);
	sbridge_event_post(SBRIDGE_EVENT_FACTORS, "cpu factor set");
out:
	free_cpumask_var(mask);
	return ret;
}

/**
 * struct sbridge_task_dump - state of one GET_TASKS dump pass
 * @skb: dump buffer
 * @cb: dump state
 * @uid: requester's uid
 * @privileged: requester may see every task (CAP_PERFMON or CAP_SYS_ADMIN)
 * @tmp: scratch mask for sbridge_actuators_user_mask()
 */
struct sbridge_task_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	u32 uid;
	bool privileged;
	cpumask_var_t tmp;
};

static int sbridge_task_fill(struct sbridge_task *t, void *arg)
{
	struct sbridge_task_dump *d = arg;
	struct sk_buff *skb = d->skb;
	unsigned int type, nt, cpu = t->last_cpu;
	u32 place = sbridge_task_placement(t);
	struct sbridge_task_est e;
	char rule[SBRIDGE_RULE_SRC_LEN];
	u32 factors[SBRIDGE_MAX_CORE_TYPES], mix[SBRIDGE_MIX_NR];
	u16 m[SBRIDGE_MIX_NR];
	void *hdr;

	/*
	 * Without CAP_PERFMON a user sees only his own tasks, and not those
	 * running a set-id program (perf's rule; /proc's hidepid is not
	 * bypassed either).
	 */
	if (!d->privileged &&
	    (t->uid != d->uid || (READ_ONCE(t->flags) & SBRIDGE_TF_PRIVATE)))
		return 0;
	hdr = sbridge_dump_hdr(skb, d->cb, SBRIDGE_CMD_GET_TASKS);
	if (!hdr)
		return -EMSGSIZE;
	type = cpu < nr_cpu_ids ? sbridge_cpu_type(cpu) : 0;
	if (nla_put_u32(skb, SBRIDGE_A_TASK_PID, t->pid) ||
	    nla_put_string(skb, SBRIDGE_A_TASK_COMM, t->comm) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_UID, t->uid) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_CPU, cpu) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_CLASS, READ_ONCE(t->class)) ||
	    (place < SBRIDGE_MAX_CORE_TYPES &&
	     nla_put_u32(skb, SBRIDGE_A_TASK_PLACEMENT, place)) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_HINT, READ_ONCE(t->hint)) ||
	    /* the mask taskset shows is sbridge's narrowing, not the task's own */
	    nla_put_u8(skb, SBRIDGE_A_TASK_STEERED,
		       sbridge_actuators_user_mask(t->task, d->tmp)) ||
	    nla_put_u64_64bit(skb, SBRIDGE_A_TASK_RUNTIME_NS, t->runtime_ns,
			      SBRIDGE_A_PAD) ||
	    (sbridge_rules_task_rule(t, rule, sizeof(rule)) &&
	     nla_put_string(skb, SBRIDGE_A_TASK_RULE, rule)))
		goto cancel;
	sbridge_task_estimate(t, sbridge_topo.ref_type, 0, &e);
	if (nla_put_u32(skb, SBRIDGE_A_TASK_PHASE, t->est.ph.cur) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_CPIB_SHARE,
			sbridge_task_share(t)) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_SPEEDUP_PRED, e.pred.val ?: SBRIDGE_FP_ONE) ||
	    (e.meas.val && nla_put_u32(skb, SBRIDGE_A_TASK_SPEEDUP_MEAS, e.meas.val)) ||
	    (e.own.val && nla_put_u32(skb, SBRIDGE_A_TASK_SPEEDUP_OWN, e.own.val)) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_WARM, e.own.n) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_SPEEDUP, e.est.val) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_SPEEDUP_ERR, e.est.err) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_SPEEDUP_SRC, e.src) ||
	    nla_put_u32(skb, SBRIDGE_A_TASK_PRED_KIND, e.pred_kind))
		goto cancel;
	for (type = 0; type < SBRIDGE_MIX_NR; type++) {
		m[type] = READ_ONCE(t->mix[type]);
		mix[type] = m[type] >> (SBRIDGE_MIX_SHIFT - SBRIDGE_FP_SHIFT);
	}
	if (sbridge_mix_known(m) &&
	    sbridge_nla_put_factors(skb, SBRIDGE_A_TASK_MIX, mix, SBRIDGE_MIX_NR))
		goto cancel;
	if ((t->flags & SBRIDGE_TF_LEARNED) &&
	    (nla_put_u32(skb, SBRIDGE_A_TASK_CPI, READ_ONCE(t->cpi)) ||
	     nla_put_u32(skb, SBRIDGE_A_TASK_CPI_STALL, READ_ONCE(t->cpi_stall))))
		goto cancel;
	nt = min_t(unsigned int, sbridge_topo.ntypes, SBRIDGE_MAX_CORE_TYPES);
	for (type = 0; type < nt; type++)
		factors[type] = sbridge_task_factor_on(t, type);
	if (sbridge_nla_put_factors(skb, SBRIDGE_A_TASK_FACTORS, factors, nt))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int sbridge_nl_get_tasks(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct sbridge_task_dump d = {
		.skb = skb,
		.cb = cb,
		.uid = sbridge_nl_uid(cb),
		.privileged = sbridge_nl_sees_all(cb),
	};
	int next = cb->args[0];	/* the pid to resume at */

	if (!zalloc_cpumask_var(&d.tmp, GFP_KERNEL))
		return -ENOMEM;
	sbridge_tasks_walk(sbridge_task_fill, &d, &next);
	free_cpumask_var(d.tmp);
	cb->args[0] = next;
	return skb->len;
}

/**
 * struct sbridge_nl_dump - one message of a dump per item
 * @skb: dump buffer
 * @cb: dump state
 * @cmd: the dump's command
 * @fill: puts one item's attributes into @skb
 */
struct sbridge_nl_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	u8 cmd;
	int (*fill)(struct sk_buff *skb, const void *item);
};

/* One item of a walk as a message of its own; nonzero when @skb is full. */
static int sbridge_nl_dump_one(struct sbridge_nl_dump *d, const void *item)
{
	void *hdr = sbridge_dump_hdr(d->skb, d->cb, d->cmd);

	if (!hdr)
		return -EMSGSIZE;
	if (d->fill(d->skb, item)) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	return 0;
}

/* ---- rules: RULES_LOAD, RULES_GET ---- */

static const struct nla_policy sbridge_rule_policy[SBRIDGE_A_RULE_SOURCE + 1] = {
	[SBRIDGE_A_RULE_MATCH]	 = NLA_POLICY_RANGE(NLA_U32, SBRIDGE_MATCH_COMM,
						    SBRIDGE_MATCH_UID),
	[SBRIDGE_A_RULE_PATTERN] = { .type = NLA_NUL_STRING,
				     .len = SBRIDGE_PATH_LEN - 1 },
	[SBRIDGE_A_RULE_CLASS]	 = NLA_POLICY_MAX(NLA_U32, SBRIDGE_CLASS_MEMORY),
	[SBRIDGE_A_RULE_PREF]	 = NLA_POLICY_MAX(NLA_U32, SBRIDGE_PREF_EXCLUDE),
	[SBRIDGE_A_RULE_FACTORS] = { .type = NLA_NESTED },
	[SBRIDGE_A_RULE_SOURCE]	 = { .type = NLA_NUL_STRING,
				     .len = SBRIDGE_RULE_SRC_LEN - 1 },
};

/* -EINVAL with @msg (a literal) on @attr for the netlink caller */
#define SBRIDGE_NL_BAD(extack, attr, msg)			\
	({ NL_SET_ERR_MSG_ATTR(extack, attr, msg); -EINVAL; })

/* rules.c's verdict on the pattern @a of match kind @match. */
static int sbridge_nl_rule_pattern(u32 match, const struct nlattr *a,
				   struct netlink_ext_ack *extack)
{
	switch (sbridge_rule_check(match, nla_data(a))) {
	case SBRIDGE_RULE_OK:
		return 0;
	case SBRIDGE_RULE_BAD_EMPTY:
		return SBRIDGE_NL_BAD(extack, a, "empty rule pattern");
	case SBRIDGE_RULE_BAD_COMM_LONG:
		return SBRIDGE_NL_BAD(extack, a, "comm pattern longer than 15 bytes");
	case SBRIDGE_RULE_BAD_EXE_RELATIVE:
		return SBRIDGE_NL_BAD(extack, a, "exe pattern must be an absolute path");
	default:
		return SBRIDGE_NL_BAD(extack, a, "uid pattern must be a decimal uid");
	}
}

/* The SBRIDGE_A_RULE_FACTORS nest @nest into @r->factors. */
static int sbridge_nl_rule_factors(struct sbridge_rule_spec *r,
				   const struct nlattr *nest,
				   struct netlink_ext_ack *extack)
{
	const struct nlattr *f;
	int rem;
	u32 v;

	nla_for_each_nested(f, nest, rem) {
		if (nla_type(f) != SBRIDGE_A_FACTOR || nla_len(f) != sizeof(u32))
			return SBRIDGE_NL_BAD(extack, f,
					      "factors nest holds only u32 factors");
		if (r->nfactors >= SBRIDGE_MAX_CORE_TYPES)
			return SBRIDGE_NL_BAD(extack, f, "more factors than core types");
		v = nla_get_u32(f);
		if (v && (v < SBRIDGE_FACTOR_MIN || v > SBRIDGE_FACTOR_MAX))
			return SBRIDGE_NL_BAD(extack, f,
					      "factor outside [128, 8192] (1/8 .. 8)");
		r->factors[r->nfactors++] = v;
	}
	if (rem)
		return SBRIDGE_NL_BAD(extack, nest, "trailing bytes in factors nest");
	return 0;
}

/* Validates one SBRIDGE_A_RULE nest into @r (pointing into the message). */
static int sbridge_nl_rule_parse(struct nlattr *e, struct sbridge_rule_spec *r,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[SBRIDGE_A_RULE_SOURCE + 1];
	int ret;

	if (nla_type(e) != SBRIDGE_A_RULE) {
		NL_SET_ERR_MSG_ATTR(extack, e, "rules nest holds only rules");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, SBRIDGE_A_RULE_SOURCE, e, sbridge_rule_policy,
			       extack);
	if (ret)
		return ret;
	if (!tb[SBRIDGE_A_RULE_MATCH] || !tb[SBRIDGE_A_RULE_PATTERN]) {
		NL_SET_ERR_MSG_ATTR(extack, e, "rule needs a match kind and a pattern");
		return -EINVAL;
	}
	memset(r, 0, sizeof(*r));
	r->match = nla_get_u32(tb[SBRIDGE_A_RULE_MATCH]);
	ret = sbridge_nl_rule_pattern(r->match, tb[SBRIDGE_A_RULE_PATTERN], extack);
	if (ret)
		return ret;
	r->pattern = nla_data(tb[SBRIDGE_A_RULE_PATTERN]);
	r->class = tb[SBRIDGE_A_RULE_CLASS] ?
		   nla_get_u32(tb[SBRIDGE_A_RULE_CLASS]) : SBRIDGE_CLASS_AUTO;
	r->pref = tb[SBRIDGE_A_RULE_PREF] ?
		  nla_get_u32(tb[SBRIDGE_A_RULE_PREF]) : SBRIDGE_PREF_NONE;
	if (tb[SBRIDGE_A_RULE_FACTORS]) {
		ret = sbridge_nl_rule_factors(r, tb[SBRIDGE_A_RULE_FACTORS], extack);
		if (ret)
			return ret;
	}
	if (tb[SBRIDGE_A_RULE_SOURCE])
		r->source = nla_data(tb[SBRIDGE_A_RULE_SOURCE]);
	return 0;
}

/*
 * RULES_LOAD: SBRIDGE_A_RULES, a nest of SBRIDGE_A_RULE nests (may be
 * empty), replaces the rule set as a whole; on any error nothing changed.
 */
static int sbridge_nl_rules_load(struct sk_buff *req, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *e, *nest = info->attrs[SBRIDGE_A_RULES];
	struct sbridge_rule_spec spec;
	struct sbridge_ruleset *rs;
	u32 n = 0;
	int rem, ret;

	if (!nest) {
		NL_SET_ERR_MSG(extack, "need SBRIDGE_A_RULES");
		return -EINVAL;
	}
	nla_for_each_nested(e, nest, rem)
		n++;
	if (rem) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "trailing bytes in rules nest");
		return -EINVAL;
	}
	if (n > SBRIDGE_MAX_RULES) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "more than 4096 rules");
		return -E2BIG;
	}
	rs = sbridge_ruleset_alloc(n);
	if (!rs)
		return -ENOMEM;
	nla_for_each_nested(e, nest, rem) {
		ret = sbridge_nl_rule_parse(e, &spec, extack);
		if (!ret)
			ret = sbridge_ruleset_add(rs, &spec);
		if (ret) {
			sbridge_ruleset_free(rs);
			return ret;
		}
	}
	ret = sbridge_rules_publish(rs);
	if (!ret)
		sbridge_event_post(SBRIDGE_EVENT_RULES, "rules loaded");
	return ret;
}

/* One rule as an SBRIDGE_A_RULE nest. */
static int sbridge_nl_rule_put(struct sk_buff *skb, const void *item)
{
	const struct sbridge_rule_view *v = item;
	const struct sbridge_rule_spec *r = &v->rule;
	struct nlattr *e;

	e = nla_nest_start(skb, SBRIDGE_A_RULE);
	if (!e)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SBRIDGE_A_RULE_MATCH, r->match) ||
	    nla_put_string(skb, SBRIDGE_A_RULE_PATTERN, r->pattern) ||
	    nla_put_u32(skb, SBRIDGE_A_RULE_CLASS, r->class) ||
	    nla_put_u32(skb, SBRIDGE_A_RULE_PREF, r->pref) ||
	    (r->source && nla_put_string(skb, SBRIDGE_A_RULE_SOURCE, r->source)) ||
	    nla_put_u64_64bit(skb, SBRIDGE_A_RULE_HITS, v->hits, SBRIDGE_A_PAD))
		goto cancel;
	if (r->nfactors &&
	    sbridge_nla_put_factors(skb, SBRIDGE_A_RULE_FACTORS, r->factors,
				    r->nfactors))
		goto cancel;
	nla_nest_end(skb, e);
	return 0;
cancel:
	nla_nest_cancel(skb, e);
	return -EMSGSIZE;
}

static int sbridge_nl_rule_msg(const struct sbridge_rule_view *r, void *arg)
{
	return sbridge_nl_dump_one(arg, r);
}

/* RULES_GET: one SBRIDGE_A_RULE nest a message; cb->args[0] rules sent. */
static int sbridge_nl_rules_get(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct sbridge_nl_dump d = {
		.skb = skb, .cb = cb, .cmd = SBRIDGE_CMD_RULES_GET,
		.fill = sbridge_nl_rule_put,
	};

	cb->args[0] = sbridge_rules_walk(cb->args[0], sbridge_nl_rule_msg, &d);
	return skb->len;
}

static int sbridge_nl_rules_clear(struct sk_buff *req, struct genl_info *info)
{
	int ret = sbridge_rules_clear();

	if (!ret)
		sbridge_event_post(SBRIDGE_EVENT_RULES, "rules cleared");
	return ret;
}

/* ---- matrix: MATRIX_LOAD, MATRIX_GET ---- */

#define SBRIDGE_MX_ATTR_MAX	SBRIDGE_A_MX_VISITS

static const struct nla_policy sbridge_mx_policy[SBRIDGE_MX_ATTR_MAX + 1] = {
	[SBRIDGE_A_MX_KEY]	  = { .type = NLA_NUL_STRING,
				      .len = SBRIDGE_KEY_LEN - 1 },
	[SBRIDGE_A_MX_TYPE]	  = NLA_POLICY_MAX(NLA_U32, SBRIDGE_MAX_CORE_TYPES - 1),
	[SBRIDGE_A_MX_PHASE]	  = NLA_POLICY_MAX(NLA_U32, SBRIDGE_PHASE_STARTUP),
	[SBRIDGE_A_MX_FACTOR]	  = NLA_POLICY_RANGE(NLA_U32, SBRIDGE_FACTOR_MIN,
						     SBRIDGE_FACTOR_MAX),
	[SBRIDGE_A_MX_CPIB_SHARE] = NLA_POLICY_MAX(NLA_U32, SBRIDGE_FP_ONE),
	[SBRIDGE_A_MX_SAMPLES]	  = { .type = NLA_U32 },
	[SBRIDGE_A_MX_EXE_HASH]	  = { .type = NLA_U32 },
	[SBRIDGE_A_MX_SPEEDUP_MEAS] = NLA_POLICY_RANGE(NLA_U32, SBRIDGE_FACTOR_MIN,
						       SBRIDGE_FACTOR_MAX),
	[SBRIDGE_A_MX_UID]	  = { .type = NLA_U32 },
	[SBRIDGE_A_MX_TPI]	  = { .type = NLA_U64 },
	[SBRIDGE_A_MX_WARM]	  = { .type = NLA_U32 },
	[SBRIDGE_A_MX_SPREAD]	  = NLA_POLICY_MAX(NLA_U32, 255),
	/* above U16_MAX a count saturates: s16 policy bounds cannot say it */
	[SBRIDGE_A_MX_VISITS]	  = { .type = NLA_U32 },
};

/* The u32 attribute @a, or @def when it is absent. */
static u32 sbridge_nl_u32(const struct nlattr *a, u32 def)
{
	return a ? nla_get_u32(a) : def;
}

/* One SBRIDGE_A_MX_ENTRY nest, validated, into @m (pointing into the message). */
static int sbridge_nl_mx_parse(struct nlattr *e, struct nlattr **tb,
			       struct sbridge_mx_spec *m,
			       struct netlink_ext_ack *extack)
{
	int ret;

	if (nla_type(e) != SBRIDGE_A_MX_ENTRY) {
		NL_SET_ERR_MSG_ATTR(extack, e, "matrix nest holds only entries");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, SBRIDGE_MX_ATTR_MAX, e, sbridge_mx_policy,
			       extack);
	if (ret)
		return ret;
	if (!tb[SBRIDGE_A_MX_KEY] || !tb[SBRIDGE_A_MX_TYPE] ||
	    !tb[SBRIDGE_A_MX_CPIB_SHARE]) {
		NL_SET_ERR_MSG_ATTR(extack, e, "matrix entry needs key, type and share");
		return -EINVAL;
	}
	if (!nla_len(tb[SBRIDGE_A_MX_KEY]) ||
	    !*(char *)nla_data(tb[SBRIDGE_A_MX_KEY])) {
		NL_SET_ERR_MSG_ATTR(extack, e, "empty matrix key");
		return -EINVAL;
	}
	memset(m, 0, sizeof(*m));
	m->key = nla_data(tb[SBRIDGE_A_MX_KEY]);
	m->type = nla_get_u32(tb[SBRIDGE_A_MX_TYPE]);
	m->exe = sbridge_nl_u32(tb[SBRIDGE_A_MX_EXE_HASH], 0);
	m->scope = sbridge_nl_u32(tb[SBRIDGE_A_MX_UID], 0);
	m->phase = sbridge_nl_u32(tb[SBRIDGE_A_MX_PHASE], 0);
	m->share = nla_get_u32(tb[SBRIDGE_A_MX_CPIB_SHARE]);
	m->factor = sbridge_nl_u32(tb[SBRIDGE_A_MX_FACTOR], 0);
	m->samples = sbridge_nl_u32(tb[SBRIDGE_A_MX_SAMPLES], 1);
	m->speedup = sbridge_nl_u32(tb[SBRIDGE_A_MX_SPEEDUP_MEAS], 0);
	m->has_tpi = !!tb[SBRIDGE_A_MX_TPI];
	m->tpi = m->has_tpi ? nla_get_u64(tb[SBRIDGE_A_MX_TPI]) : 0;
	m->has_warm = !!tb[SBRIDGE_A_MX_WARM];
	m->warm = sbridge_nl_u32(tb[SBRIDGE_A_MX_WARM], 0);
	m->has_spread = !!tb[SBRIDGE_A_MX_SPREAD];
	m->spread = sbridge_nl_u32(tb[SBRIDGE_A_MX_SPREAD], 0);
	m->has_visits = !!tb[SBRIDGE_A_MX_VISITS];
	m->visits = sbridge_nl_u32(tb[SBRIDGE_A_MX_VISITS], 0);
	return 0;
}

/* matrix.c's verdict on entry @e (attributes @tb) as an extack message. */
static void sbridge_nl_mx_bad(enum sbridge_mx_bad bad, struct nlattr *e,
			      struct nlattr **tb, struct netlink_ext_ack *extack)
{
	switch (bad) {
	case SBRIDGE_MX_BAD_TYPE:
		NL_SET_ERR_MSG_ATTR(extack, tb[SBRIDGE_A_MX_TYPE],
				    "core type does not exist on this machine");
		break;
	case SBRIDGE_MX_BAD_TPI:
		NL_SET_ERR_MSG_ATTR(extack, tb[SBRIDGE_A_MX_TPI],
				    "time per instruction out of range");
		break;
	case SBRIDGE_MX_BAD_NO_TPI:
		NL_SET_ERR_MSG_ATTR(extack, e, "warm windows, spread or visits without a time per instruction");
		break;
	case SBRIDGE_MX_BAD_DUP:
		NL_SET_ERR_MSG_ATTR(extack, e, "duplicate matrix entry");
		break;
	default:
		break;
	}
}

/*
 * MATRIX_LOAD: SBRIDGE_A_MATRIX, a nest of SBRIDGE_A_MX_ENTRY nests,
 * replaces the matrix as a whole; on any error nothing changed.
 */
static int sbridge_nl_matrix_load(struct sk_buff *req, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *e, *nest = info->attrs[SBRIDGE_A_MATRIX];
	struct nlattr *tb[SBRIDGE_MX_ATTR_MAX + 1];
	struct sbridge_matrix_load ld;
	struct sbridge_mx_spec spec;
	enum sbridge_mx_bad bad;
	int rem, ret;

	if (!nest) {
		NL_SET_ERR_MSG(extack, "need SBRIDGE_A_MATRIX");
		return -EINVAL;
	}
	sbridge_matrix_load_begin(&ld);
	nla_for_each_nested(e, nest, rem) {
		if (ld.n >= ld.max) {
			NL_SET_ERR_MSG_ATTR(extack, e, "more entries than the matrix holds");
			ret = -E2BIG;
			goto fail;
		}
		ret = sbridge_nl_mx_parse(e, tb, &spec, extack);
		if (ret)
			goto fail;
		ret = sbridge_matrix_load_add(&ld, &spec, &bad);
		if (ret) {
			sbridge_nl_mx_bad(bad, e, tb, extack);
			goto fail;
		}
	}
	if (rem) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "trailing bytes in matrix nest");
		ret = -EINVAL;
		goto fail;
	}
	sbridge_matrix_load_commit(&ld);
	sbridge_consumers_notify(false);
	sbridge_event_post(SBRIDGE_EVENT_MATRIX, "matrix loaded");
	return 0;
fail:
	sbridge_matrix_load_abort(&ld);
	return ret;
}

/* One cell as an SBRIDGE_A_MX_ENTRY nest. */
static int sbridge_nl_mx_put(struct sk_buff *skb, const void *item)
{
	const struct sbridge_mx_cell *c = item;
	struct nlattr *e = nla_nest_start(skb, SBRIDGE_A_MX_ENTRY);

	if (!e)
		return -EMSGSIZE;
	if (nla_put_string(skb, SBRIDGE_A_MX_KEY, c->key) ||
	    nla_put_u32(skb, SBRIDGE_A_MX_TYPE, c->type) ||
	    nla_put_u32(skb, SBRIDGE_A_MX_PHASE, c->phase) ||
	    nla_put_u32(skb, SBRIDGE_A_MX_FACTOR, c->factor) ||
	    nla_put_u32(skb, SBRIDGE_A_MX_CPIB_SHARE, c->share) ||
	    (c->speedup && nla_put_u32(skb, SBRIDGE_A_MX_SPEEDUP_MEAS, c->speedup)) ||
	    nla_put_u32(skb, SBRIDGE_A_MX_SAMPLES, c->samples) ||
	    (c->exe && nla_put_u32(skb, SBRIDGE_A_MX_EXE_HASH, c->exe)) ||
	    (c->scope && nla_put_u32(skb, SBRIDGE_A_MX_UID, c->scope)) ||
	    (c->warm &&
	     (nla_put_u64_64bit(skb, SBRIDGE_A_MX_TPI, c->tpi, SBRIDGE_A_PAD) ||
	      nla_put_u32(skb, SBRIDGE_A_MX_WARM, c->warm) ||
	      nla_put_u32(skb, SBRIDGE_A_MX_SPREAD, c->spread) ||
	      nla_put_u32(skb, SBRIDGE_A_MX_VISITS, c->visits)))) {
		nla_nest_cancel(skb, e);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, e);
	return 0;
}

static int sbridge_nl_mx_msg(const struct sbridge_mx_cell *c, void *arg)
{
	return sbridge_nl_dump_one(arg, c);
}

/*
 * MATRIX_GET: one SBRIDGE_A_MX_ENTRY a message; cb->args[0] is the hash
 * bucket the dump is in, cb->args[1] the id of the last cell of it sent.
 * Without CAP_PERFMON or CAP_SYS_ADMIN a requester sees only the cells of
 * his own scope (what his programs taught), as with GET_TASKS.
 */
static int sbridge_nl_matrix_get(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct sbridge_nl_dump d = {
		.skb = skb, .cb = cb, .cmd = SBRIDGE_CMD_MATRIX_GET,
		.fill = sbridge_nl_mx_put,
	};
	struct sbridge_mx_cursor cur = { cb->args[0], cb->args[1] };

	sbridge_matrix_walk(&cur, sbridge_nl_sees_all(cb), sbridge_nl_uid(cb),
			    sbridge_nl_mx_msg, &d);
	cb->args[0] = cur.bkt;
	cb->args[1] = cur.last;
	return skb->len;
}

static int sbridge_nl_set_param(struct sk_buff *req, struct genl_info *info)
{
	struct nlattr *n = info->attrs[SBRIDGE_A_PARAM_NAME];
	struct nlattr *v = info->attrs[SBRIDGE_A_PARAM_VALUE];
	int ret;

	if (!n || !v) {
		NL_SET_ERR_MSG(info->extack,
			       "need SBRIDGE_A_PARAM_NAME and SBRIDGE_A_PARAM_VALUE");
		return -EINVAL;
	}
	ret = sbridge_param_set(nla_data(n), nla_get_u64(v));
	if (ret == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(info->extack, n, "unknown parameter");
	else if (ret)
		NL_SET_ERR_MSG_ATTR(info->extack, v, "value out of range for this parameter");
	return ret;
}

/* One report as SBRIDGE_A_REPORT, nested. */
static int sbridge_nl_put_report(struct sk_buff *skb, const struct sbridge_report *r)
{
	struct nlattr *nest = nla_nest_start(skb, SBRIDGE_A_REPORT);

	if (!nest ||
	    nla_put_u64_64bit(skb, SBRIDGE_A_REPORT_TIME_NS, r->time_ns, SBRIDGE_A_PAD) ||
	    nla_put_u32(skb, SBRIDGE_A_REPORT_IDLE_CPU, r->idle_cpu) ||
	    nla_put_u32(skb, SBRIDGE_A_REPORT_BUSY_CPU, r->busy_cpu) ||
	    nla_put_u32(skb, SBRIDGE_A_REPORT_NR_WAITING, r->nr_waiting) ||
	    nla_put_u32(skb, SBRIDGE_A_REPORT_HINTS, r->hints))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * GET_REPORTS: one message per report still in the checker's ring,
 * oldest first; cb->args[0] is the sequence number of the next. A report
 * the ring overwrote while the dump was under way is left out.
 */
static int sbridge_nl_get_reports(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct sbridge_report r;
	u64 seq, end, now;
	void *hdr;

	sbridge_checker_get_report(0, &r, &end);	/* for end */
	seq = cb->args[0];
	if (end > SBRIDGE_REPORTS && seq < end - SBRIDGE_REPORTS)
		seq = end - SBRIDGE_REPORTS;
	for (; seq < end; seq++) {
		if (!sbridge_checker_get_report(seq, &r, &now))
			continue;
		hdr = sbridge_dump_hdr(skb, cb, SBRIDGE_CMD_GET_REPORTS);
		if (!hdr)
			break;
		if (sbridge_nl_put_report(skb, &r)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = seq;
	return skb->len;
}

#define SBRIDGE_NL_DO(c, fn, flags) \
	{ .cmd = (c), .doit = (fn), .internal_flags = (flags) }
#define SBRIDGE_NL_DUMP(c, fn) { .cmd = (c), .dumpit = (fn) }

static const struct genl_ops sbridge_ops[] = {
	SBRIDGE_NL_DO(SBRIDGE_CMD_GET_STATUS, sbridge_nl_get_status, 0),
	SBRIDGE_NL_DUMP(SBRIDGE_CMD_GET_CPUS, sbridge_nl_get_cpus),
	SBRIDGE_NL_DO(SBRIDGE_CMD_SET_CPU_FACTOR, sbridge_nl_set_cpu_factor,
		      SBRIDGE_NL_ADMIN),
	SBRIDGE_NL_DUMP(SBRIDGE_CMD_GET_TASKS, sbridge_nl_get_tasks),
	SBRIDGE_NL_DO(SBRIDGE_CMD_RULES_LOAD, sbridge_nl_rules_load,
		      SBRIDGE_NL_ADMIN),
	SBRIDGE_NL_DUMP(SBRIDGE_CMD_RULES_GET, sbridge_nl_rules_get),
	SBRIDGE_NL_DO(SBRIDGE_CMD_RULES_CLEAR, sbridge_nl_rules_clear,
		      SBRIDGE_NL_ADMIN),
	SBRIDGE_NL_DUMP(SBRIDGE_CMD_MATRIX_GET, sbridge_nl_matrix_get),
	SBRIDGE_NL_DO(SBRIDGE_CMD_MATRIX_LOAD, sbridge_nl_matrix_load,
		      SBRIDGE_NL_ADMIN),
	SBRIDGE_NL_DUMP(SBRIDGE_CMD_GET_REPORTS, sbridge_nl_get_reports),
	SBRIDGE_NL_DO(SBRIDGE_CMD_SET_PARAM, sbridge_nl_set_param,
		      SBRIDGE_NL_ADMIN),
};

static struct genl_family sbridge_family = {
	.name = SBRIDGE_GENL_NAME,
	.version = SBRIDGE_GENL_VERSION,
	.maxattr = SBRIDGE_A_MAX,
	.policy = sbridge_policy,
	.netnsok = false,
	.module = THIS_MODULE,
	.pre_doit = sbridge_nl_pre_doit,
	.ops = sbridge_ops,
	.n_ops = ARRAY_SIZE(sbridge_ops),
	.mcgrps = sbridge_mcgrps,
	.n_mcgrps = ARRAY_SIZE(sbridge_mcgrps),
	/* Every op validates reserved header bytes and has a policy. */
	.resv_start_op = SBRIDGE_CMD_GET_STATUS,
};

/**
 * sbridge_netlink_init() - register the family
 *
 * Return: 0 or a negative errno.
 */
int sbridge_netlink_init(void)
{
	int ret = genl_register_family(&sbridge_family);

	if (ret)
		return ret;
	ret = sbridge_event_listen(&sbridge_nl_event_nb);
	if (ret)
		genl_unregister_family(&sbridge_family);
	return ret;
}

/**
 * sbridge_netlink_exit() - unregister the family
 */
void sbridge_netlink_exit(void)
{
	sbridge_event_unlisten(&sbridge_nl_event_nb);
	genl_unregister_family(&sbridge_family);
}
