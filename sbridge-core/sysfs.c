// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only status under /sys/kernel/sbridge/: one value per file so that
 * shell scripts (and the in-guest tests) can read it without a client.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/cpumask.h>
#include "internal.h"
#include "actuators.h"
#include "checker.h"
#include "act_ledger.h"

static struct kobject *sbridge_kobj;

#define SBRIDGE_ATTR_RO(_name)						\
	static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

#define SBRIDGE_STAT_ATTR(_name, _expr)					\
	static ssize_t _name##_show(struct kobject *k,			\
				    struct kobj_attribute *a, char *buf) \
	{								\
		return sysfs_emit(buf, "%lld\n", (long long)(_expr));	\
	}								\
	SBRIDGE_ATTR_RO(_name)

SBRIDGE_STAT_ATTR(api, SBRIDGE_API_VERSION);
SBRIDGE_STAT_ATTR(tasks, sbridge_tasks_live());
SBRIDGE_STAT_ATTR(allocs, atomic64_read(&sbridge_stats.allocs));
SBRIDGE_STAT_ATTR(frees, atomic64_read(&sbridge_stats.frees));
SBRIDGE_STAT_ATTR(alloc_fail, atomic64_read(&sbridge_stats.alloc_fail));
SBRIDGE_STAT_ATTR(matrix_hits, atomic64_read(&sbridge_stats.matrix_hits));
SBRIDGE_STAT_ATTR(samples, sbridge_sample_samples());
SBRIDGE_STAT_ATTR(windows_cut, sbridge_sample_windows_cut());
SBRIDGE_STAT_ATTR(phase_changes, sbridge_sample_phase_changes());
SBRIDGE_STAT_ATTR(rule_hits, atomic64_read(&sbridge_stats.rule_hits));
SBRIDGE_STAT_ATTR(type_migrations, sbridge_hooks_type_migrations());
SBRIDGE_STAT_ATTR(switches, sbridge_sample_switches(NULL));
SBRIDGE_STAT_ATTR(ticks, sbridge_sample_runtime_reads());
SBRIDGE_STAT_ATTR(matrix, sbridge_matrix_count());
SBRIDGE_STAT_ATTR(rules, sbridge_rules_count());
SBRIDGE_STAT_ATTR(ntypes, sbridge_topo.ntypes);
SBRIDGE_STAT_ATTR(learning, sbridge_learning_possible());
SBRIDGE_STAT_ATTR(task_entry_bytes, sizeof(struct sbridge_task));

static ssize_t version_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", SBRIDGE_VERSION);
}
SBRIDGE_ATTR_RO(version);

static ssize_t untracked_show(struct kobject *k, struct kobj_attribute *a,
			      char *buf)
{
	u64 u;

	sbridge_sample_switches(&u);
	return sysfs_emit(buf, "%llu\n", u);
}
SBRIDGE_ATTR_RO(untracked);

static ssize_t source_show(struct kobject *k, struct kobj_attribute *a,
			   char *buf)
{
	char name[32];

	sbridge_source_describe(name, sizeof(name));
	return sysfs_emit(buf, "%s\n", name[0] ? name : "none");
}
SBRIDGE_ATTR_RO(source);

static ssize_t events_show(struct kobject *k, struct kobj_attribute *a,
			   char *buf)
{
	char name[8];

	return sysfs_emit(buf, "0x%x\n", sbridge_source_describe(name, sizeof(name)));
}
SBRIDGE_ATTR_RO(events);

static ssize_t message_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	char name[32];
	u32 ev = sbridge_source_describe(name, sizeof(name));

	return sysfs_emit(buf, "%s\n", sbridge_status_message(ev, name[0]));
}
SBRIDGE_ATTR_RO(message);

/* One line per core type: index, nominal capacity, max kHz, CPU factor, CPUs. */
static ssize_t types_show(struct kobject *k, struct kobj_attribute *a,
			  char *buf)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < sbridge_topo.ntypes; i++)
		n += sysfs_emit_at(buf, n, "%u capacity=%u max_khz=%u factor=%u cpus=%*pbl\n",
				   i, READ_ONCE(sbridge_topo.type_capacity[i]),
				   READ_ONCE(sbridge_topo.type_max_khz[i]),
				   sbridge_type_factor(i),
				   cpumask_pr_args(&sbridge_topo.type_mask[i]));
	return n;
}
SBRIDGE_ATTR_RO(types);

/* Room kept for one more line, so none is cut in the middle. */
#define SBRIDGE_SYSFS_LINE	256

/* One line per possible CPU; past a page, a count of the CPUs left out. */
static ssize_t cpus_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	int cpu, n = 0, more = 0;

	for_each_possible_cpu(cpu) {
		const struct sbridge_cpu *c = per_cpu_ptr(&sbridge_cpus, cpu);

		if (n > PAGE_SIZE - 2 * SBRIDGE_SYSFS_LINE) {
			more++;
			continue;
		}
		n += sysfs_emit_at(buf, n,
				   "%d type=%u cluster=%u capacity=%u factor=%u override=%u max_khz=%u model=%s cache_kb=%u/%u/%u\n",
				   cpu, c->type, c->cluster, READ_ONCE(c->orig_capacity),
				   READ_ONCE(c->factor), READ_ONCE(c->factor_override),
				   READ_ONCE(c->max_khz), c->model, c->cache_kb[0], c->cache_kb[1],
				   c->cache_kb[2]);
	}
	if (more)
		n += sysfs_emit_at(buf, n,
				   "# %d more CPUs not shown: sbridgectl get CPU\n",
				   more);
	return n;
}
SBRIDGE_ATTR_RO(cpus);

static ssize_t params_show(struct kobject *k, struct kobj_attribute *a,
			   char *buf)
{
	const char *name;
	unsigned int i;
	int n = 0;
	u64 v;

	for (i = 0; (name = sbridge_param_get(i, &v)); i++)
		n += sysfs_emit_at(buf, n, "%s %llu\n", name, v);
	return n;
}
SBRIDGE_ATTR_RO(params);

/* "actuators": one status line per actuator, the checker, the mode. */
static ssize_t actuators_show(struct kobject *k, struct kobj_attribute *a,
			      char *buf)
{
	const struct sbridge_actuator *act;
	char mode[160];
	unsigned int i;
	u64 runs, kicks;
	int n = 0;

	for (i = 0; (act = sbridge_actuator_at(i)); i++)
		n += sysfs_emit_at(buf, n, "%s: %s\n", act->name, act->status());
	sbridge_actuators_counts(&runs, &kicks);
	return n + sysfs_emit_at(buf, n,
				 "checker: %s\nhints_in_force: 0x%x\nmode: %s\n"
				 "decisions: %llu runs, %llu early (a fast core idle), %llu sampling swaps\n",
				 READ_ONCE(sbridge_act_params.checker) ? "on" : "off",
				 sbridge_hints_in_force(),
				 sbridge_actuators_mode(mode, sizeof(mode)),
				 runs, kicks, sbridge_policy_swaps());
}
static struct kobj_attribute actuators_attr = __ATTR_RO(actuators);

/* "checker": the checker's, placement's and uclamp's counters, one per line. */
static ssize_t checker_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	struct sbridge_placement_counts p;
	struct sbridge_checker_counts c;
	struct sbridge_ledger_counts u;
	int n;

	sbridge_checker_read_counts(&c);
	sbridge_placement_read_counts(&p);
	sbridge_uclamp_read_counts(&u);
	n = sysfs_emit(buf,
		       "checks %llu\ncandidates %llu\ntransient %llu\nreports %llu\nunavoidable %llu\nyields %llu\n"
		       "placement_steered %u\nplacement_steers %llu\nplacement_releases %llu\nplacement_user_wins %llu\nplacement_yields %llu\nplacement_inherits %llu\nplacement_inherit_lost %llu\nplacement_swept %llu\n",
		       c.checks, c.candidates, c.transient, c.reports,
		       c.unavoidable, c.yields, p.steered, p.steers,
		       p.releases, p.user_wins, p.yields, p.inherits,
		       p.inherit_lost, p.swept);
	return n + sysfs_emit_at(buf, n,
				 "placement_fallbacks %llu\nplacement_refused %llu\n"
				 "uclamp_live %u\nuclamp_releases %llu\nuclamp_refused %llu\nuclamp_user_wins %llu\nuclamp_inherits %llu\nuclamp_inherit_lost %llu\nuclamp_swept %llu\n",
				 p.fallbacks, p.refused, u.live, u.releases,
				 u.refused, u.user_wins, u.inherits, u.lost,
				 u.found);
}
static struct kobj_attribute checker_attr = __ATTR_RO(checker);

/* "reports": the checker's ring, oldest first, the newest that fit a page. */
static ssize_t reports_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	struct sbridge_report r;
	u64 seq, end, now;
	int n = 0;

	sbridge_checker_get_report(0, &r, &end);	/* for end */
	seq = end > SBRIDGE_REPORTS ? end - SBRIDGE_REPORTS : 0;
	if (end - seq > SBRIDGE_REPORTS_SHOWN) {
		n += sysfs_emit_at(buf, n, "# %llu older reports not shown\n",
				   (u64)(end - seq - SBRIDGE_REPORTS_SHOWN));
		seq = end - SBRIDGE_REPORTS_SHOWN;
	}
	for (; seq < end; seq++)
		if (sbridge_checker_get_report(seq, &r, &now))
			n += sysfs_emit_at(buf, n,
					   "time_ns=%llu idle_cpu=%u busy_cpu=%u nr_waiting=%u hints=0x%x\n",
					   r.time_ns, r.idle_cpu, r.busy_cpu,
					   r.nr_waiting, r.hints);
	return n;
}
static struct kobj_attribute reports_attr = __ATTR_RO(reports);

static struct attribute *sbridge_attrs[] = {
	&version_attr.attr,
	&api_attr.attr,
	&tasks_attr.attr,
	&allocs_attr.attr,
	&frees_attr.attr,
	&alloc_fail_attr.attr,
	&switches_attr.attr,
	&ticks_attr.attr,
	&untracked_attr.attr,
	&matrix_attr.attr,
	&matrix_hits_attr.attr,
	&rules_attr.attr,
	&rule_hits_attr.attr,
	&samples_attr.attr,
	&windows_cut_attr.attr,
	&phase_changes_attr.attr,
	&type_migrations_attr.attr,
	&ntypes_attr.attr,
	&learning_attr.attr,
	&source_attr.attr,
	&events_attr.attr,
	&message_attr.attr,
	&types_attr.attr,
	&cpus_attr.attr,
	&params_attr.attr,
	&task_entry_bytes_attr.attr,
	&actuators_attr.attr,
	&checker_attr.attr,
	&reports_attr.attr,
	&sbridge_predictor_attr.attr,
	NULL,
};

static const struct attribute_group sbridge_group = {
	.attrs = sbridge_attrs,
};

/**
 * sbridge_sysfs_init() - create /sys/kernel/sbridge
 *
 * Return: 0 or a negative errno.
 */
int sbridge_sysfs_init(void)
{
	int ret;

	sbridge_kobj = kobject_create_and_add("sbridge", kernel_kobj);
	if (!sbridge_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(sbridge_kobj, &sbridge_group);
	if (ret) {
		kobject_put(sbridge_kobj);
		sbridge_kobj = NULL;
	}
	return ret;
}

/**
 * sbridge_sysfs_exit() - remove /sys/kernel/sbridge
 */
void sbridge_sysfs_exit(void)
{
	if (!sbridge_kobj)
		return;
	sysfs_remove_group(sbridge_kobj, &sbridge_group);
	kobject_put(sbridge_kobj);
	sbridge_kobj = NULL;
}
