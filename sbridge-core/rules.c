// SPDX-License-Identifier: GPL-2.0
/*
 * Per-workload rules: match a task at exec by comm, executable or cgroup
 * and fix its class, preference or per-type factors. The rule set is one
 * immutable array published under RCU and replaced as a whole, so a
 * lookup at exec takes no lock and a load is all-or-nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/cgroup.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include "internal.h"

#define SBRIDGE_RULE_SRC_LEN	128

/**
 * struct sbridge_rule - one validated rule
 * @match: enum sbridge_rule_match
 * @class: enum sbridge_task_class
 * @pref: enum sbridge_pref
 * @nfactors: entries given in @factors (0 == none given)
 * @factors: fixed factor per core type (fp), 0 == learn
 * @pattern: comm, absolute exe path or cgroup path prefix
 * @source: "file:line" from the client, may be empty
 *
 * Immutable once published.
 */
struct sbridge_rule {
	u8 match;
	u8 class;
	u8 pref;
	u8 nfactors;
	u16 factors[SBRIDGE_MAX_CORE_TYPES];
	char *pattern;
	char *source;
};

/**
 * struct sbridge_ruleset - the rules in force
 * @n: number of rules
 * @has_cgroup: some rule matches on cgroup (exec then computes the path)
 * @r: rules, first match wins
 *
 * Published through sbridge_rules (RCU); replaced, never modified.
 */
struct sbridge_ruleset {
	u32 n;
	bool has_cgroup;
	struct sbridge_rule r[];
};

static struct sbridge_ruleset __rcu *sbridge_rules;
static DEFINE_MUTEX(sbridge_rules_lock);

/**
 * struct sbridge_cg_buf - per-CPU buffer for cgroup paths at exec/fork
 * @path: cgroup_path() output
 *
 * Used with preemption off (tracepoint probes) or under a spinlock-free
 * preempt-disabled section in sbridge_rules_apply().
 */
struct sbridge_cg_buf {
	char path[SBRIDGE_PATH_LEN];
};
static DEFINE_PER_CPU(struct sbridge_cg_buf, sbridge_cg_buf);

static void sbridge_ruleset_free(struct sbridge_ruleset *rs)
{
	u32 i;

	if (!rs)
		return;
	for (i = 0; i < rs->n; i++) {
		kfree(rs->r[i].pattern);
		kfree(rs->r[i].source);
	}
	kvfree(rs);
}

static bool sbridge_cg_match(const char *pattern, const char *path)
{
	size_t n;

	/* Patterns may omit the leading '/'; paths from the kernel have it. */
	if (pattern[0] != '/' && path[0] == '/')
		path++;
	n = strlen(pattern);
	if (strncmp(path, pattern, n))
		return false;
	/* Prefix on a path component boundary: "/a" matches "/a/b", not "/ab". */
	return path[n] == '\0' || path[n] == '/' || (n && pattern[n - 1] == '/');
}

static const char *sbridge_task_cgroup(struct task_struct *p)
{
#ifdef CONFIG_CGROUPS
	char *buf = this_cpu_ptr(&sbridge_cg_buf)->path;
	struct cgroup *cg;
	int ret;

	rcu_read_lock();
	cg = task_dfl_cgroup(p);
	ret = cg ? cgroup_path(cg, buf, SBRIDGE_PATH_LEN) : -ENOENT;
	rcu_read_unlock();
	return ret < 0 ? NULL : buf;
#else
	return NULL;
#endif
}

/**
 * sbridge_rules_apply() - set class, preference and factors from rules
 * @t: entry of a task being forked, exec'ed or adopted
 * @exe: executable path, NULL if unknown (exe rules then do not match)
 *
 * Context: preemption off (tracepoint) or under rcu_read_lock() in
 *	process context with preemption off; lock-free.
 */
void sbridge_rules_apply(struct sbridge_task *t, const char *exe)
{
	const struct sbridge_ruleset *rs;
	const char *cg = NULL;
	u32 i;

	preempt_disable();
	rcu_read_lock();
	rs = rcu_dereference(sbridge_rules);
	if (!rs || !rs->n)
		goto out;
	if (rs->has_cgroup && t->task == current)
		cg = sbridge_task_cgroup(t->task);
	for (i = 0; i < rs->n; i++) {
		const struct sbridge_rule *r = &rs->r[i];
		bool hit;

		switch (r->match) {
		case SBRIDGE_MATCH_COMM:
			hit = !strncmp(t->comm, r->pattern, SBRIDGE_KEY_LEN);
			break;
		case SBRIDGE_MATCH_EXE:
			hit = exe && !strcmp(exe, r->pattern);
			break;
		case SBRIDGE_MATCH_CGROUP:
			hit = cg && sbridge_cg_match(r->pattern, cg);
			break;
		default:
			hit = false;
		}
		if (!hit)
			continue;
		t->class = r->class;
		t->pref = r->pref;
		memcpy(t->rule_factor, r->factors, sizeof(t->rule_factor));
		atomic64_inc(&sbridge_stats.rule_hits);
		break;
	}
out:
	rcu_read_unlock();
	preempt_enable();
}

/**
 * sbridge_rules_count() - rules in force
 *
 * Return: number of rules.
 */
u32 sbridge_rules_count(void)
{
	const struct sbridge_ruleset *rs;
	u32 n;

	rcu_read_lock();
	rs = rcu_dereference(sbridge_rules);
	n = rs ? rs->n : 0;
	rcu_read_unlock();
	return n;
}

static int sbridge_rule_fill(struct sk_buff *skb, const struct sbridge_rule *r)
{
	struct nlattr *e, *f;
	u32 i;

	e = nla_nest_start(skb, SBRIDGE_A_RULE);
	if (!e)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SBRIDGE_A_RULE_MATCH, r->match) ||
	    nla_put_string(skb, SBRIDGE_A_RULE_PATTERN, r->pattern) ||
	    nla_put_u32(skb, SBRIDGE_A_RULE_CLASS, r->class) ||
	    nla_put_u32(skb, SBRIDGE_A_RULE_PREF, r->pref) ||
	    (r->source && nla_put_string(skb, SBRIDGE_A_RULE_SOURCE, r->source)))
		goto cancel;
	if (r->nfactors) {
		f = nla_nest_start(skb, SBRIDGE_A_RULE_FACTORS);
		if (!f)
			goto cancel;
		for (i = 0; i < r->nfactors; i++)
			if (nla_put_u32(skb, SBRIDGE_A_FACTOR, r->factors[i]))
				goto cancel;
		nla_nest_end(skb, f);
	}
	nla_nest_end(skb, e);
	return 0;
cancel:
	nla_nest_cancel(skb, e);
	return -EMSGSIZE;
}

/**
 * sbridge_rules_dump() - RULES_GET dump, one SBRIDGE_A_RULE nest a message
 * @skb: dump buffer
 * @cb: cb->args[0] is the number of rules already sent
 *
 * Context: process context.
 * Return: skb->len.
 */
int sbridge_rules_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct sbridge_ruleset *rs;
	unsigned long i;
	void *hdr;

	rcu_read_lock();
	rs = rcu_dereference(sbridge_rules);
	for (i = cb->args[0]; rs && i < rs->n; i++) {
		hdr = sbridge_nl_dump_hdr(skb, cb, SBRIDGE_CMD_RULES_GET);
		if (!hdr)
			break;
		if (sbridge_rule_fill(skb, &rs->r[i])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = i + 1;
	}
	rcu_read_unlock();
	return skb->len;
}

static const struct nla_policy sbridge_rule_policy[SBRIDGE_A_RULE_SOURCE + 1] = {
	[SBRIDGE_A_RULE_MATCH]	 = NLA_POLICY_RANGE(NLA_U32, SBRIDGE_MATCH_COMM,
						    SBRIDGE_MATCH_CGROUP),
	[SBRIDGE_A_RULE_PATTERN] = { .type = NLA_NUL_STRING,
				     .len = SBRIDGE_PATH_LEN - 1 },
	[SBRIDGE_A_RULE_CLASS]	 = NLA_POLICY_MAX(NLA_U32, SBRIDGE_CLASS_MEMORY),
	[SBRIDGE_A_RULE_PREF]	 = NLA_POLICY_MAX(NLA_U32, SBRIDGE_PREF_EXCLUDE),
	[SBRIDGE_A_RULE_FACTORS] = { .type = NLA_NESTED },
	[SBRIDGE_A_RULE_SOURCE]	 = { .type = NLA_NUL_STRING,
				     .len = SBRIDGE_RULE_SRC_LEN - 1 },
};

/* Validates and copies one SBRIDGE_A_RULE nest into @r. */
static int sbridge_rule_parse(struct nlattr *e, struct sbridge_rule *r,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[SBRIDGE_A_RULE_SOURCE + 1];
	const char *pat;
	struct nlattr *f;
	int ret, rem;

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
	r->match = nla_get_u32(tb[SBRIDGE_A_RULE_MATCH]);
	pat = nla_data(tb[SBRIDGE_A_RULE_PATTERN]);
	if (!pat[0]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SBRIDGE_A_RULE_PATTERN],
				    "empty rule pattern");
		return -EINVAL;
	}
	if (r->match == SBRIDGE_MATCH_COMM && strlen(pat) >= SBRIDGE_KEY_LEN) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SBRIDGE_A_RULE_PATTERN],
				    "comm pattern longer than 15 bytes");
		return -EINVAL;
	}
	if (r->match == SBRIDGE_MATCH_EXE && pat[0] != '/') {
		NL_SET_ERR_MSG_ATTR(extack, tb[SBRIDGE_A_RULE_PATTERN],
				    "exe pattern must be an absolute path");
		return -EINVAL;
	}
	r->class = tb[SBRIDGE_A_RULE_CLASS] ?
		   nla_get_u32(tb[SBRIDGE_A_RULE_CLASS]) : SBRIDGE_CLASS_AUTO;
	r->pref = tb[SBRIDGE_A_RULE_PREF] ?
		  nla_get_u32(tb[SBRIDGE_A_RULE_PREF]) : SBRIDGE_PREF_NONE;
	if (tb[SBRIDGE_A_RULE_FACTORS]) {
		nla_for_each_nested(f, tb[SBRIDGE_A_RULE_FACTORS], rem) {
			u32 v;

			if (nla_type(f) != SBRIDGE_A_FACTOR ||
			    nla_len(f) != sizeof(u32)) {
				NL_SET_ERR_MSG_ATTR(extack, f,
						    "factors nest holds only u32 factors");
				return -EINVAL;
			}
			if (r->nfactors >= SBRIDGE_MAX_CORE_TYPES) {
				NL_SET_ERR_MSG_ATTR(extack, f,
						    "more factors than core types");
				return -EINVAL;
			}
			v = nla_get_u32(f);
			if (v && (v < SBRIDGE_FACTOR_MIN || v > SBRIDGE_FACTOR_MAX)) {
				NL_SET_ERR_MSG_ATTR(extack, f,
						    "factor outside [128, 8192] (1/8 .. 8)");
				return -EINVAL;
			}
			r->factors[r->nfactors++] = v;
		}
		if (rem) {
			NL_SET_ERR_MSG_ATTR(extack, tb[SBRIDGE_A_RULE_FACTORS],
					    "trailing bytes in factors nest");
			return -EINVAL;
		}
	}
	r->pattern = kstrdup(pat, GFP_KERNEL);
	if (!r->pattern)
		return -ENOMEM;
	if (tb[SBRIDGE_A_RULE_SOURCE]) {
		r->source = kstrdup(nla_data(tb[SBRIDGE_A_RULE_SOURCE]), GFP_KERNEL);
		if (!r->source)
			return -ENOMEM;
	}
	return 0;
}

static void sbridge_rules_swap(struct sbridge_ruleset *rs)
{
	struct sbridge_ruleset *old;

	mutex_lock(&sbridge_rules_lock);
	old = rcu_replace_pointer(sbridge_rules, rs,
				  lockdep_is_held(&sbridge_rules_lock));
	mutex_unlock(&sbridge_rules_lock);
	synchronize_rcu();
	sbridge_ruleset_free(old);
}

/**
 * sbridge_rules_load() - replace the rule set atomically (RULES_LOAD)
 * @nest: SBRIDGE_A_RULES, a nest of SBRIDGE_A_RULE nests (may be empty)
 * @extack: error report, pointing at the offending attribute
 *
 * Rules apply to tasks that exec (or fork from untracked parents) after
 * the load; running tasks keep what they have.
 *
 * Context: process context, sleeps.
 * Return: 0, -EINVAL, -E2BIG or -ENOMEM; on error nothing changed.
 */
int sbridge_rules_load(struct nlattr *nest, struct netlink_ext_ack *extack)
{
	struct sbridge_ruleset *rs;
	struct nlattr *e;
	u32 n = 0;
	int rem, ret;

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
	rs = kvzalloc(struct_size(rs, r, n), GFP_KERNEL);
	if (!rs)
		return -ENOMEM;
	nla_for_each_nested(e, nest, rem) {
		ret = sbridge_rule_parse(e, &rs->r[rs->n], extack);
		/* Count it even on error: its strings may need freeing. */
		rs->n++;
		if (ret) {
			sbridge_ruleset_free(rs);
			return ret;
		}
		if (rs->r[rs->n - 1].match == SBRIDGE_MATCH_CGROUP)
			rs->has_cgroup = true;
	}
	n = rs->n;
	sbridge_rules_swap(rs);
	pr_info("%u rules loaded\n", n);
	return 0;
}

/**
 * sbridge_rules_clear() - drop every rule (RULES_CLEAR)
 *
 * Context: process context, sleeps.
 */
void sbridge_rules_clear(void)
{
	sbridge_rules_swap(NULL);
}

/**
 * sbridge_rules_init() - nothing to allocate; the set starts empty
 *
 * Return: 0.
 */
int sbridge_rules_init(void)
{
	return 0;
}

/**
 * sbridge_rules_exit() - free the rule set at unload
 */
void sbridge_rules_exit(void)
{
	sbridge_rules_swap(NULL);
}
