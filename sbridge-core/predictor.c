// SPDX-License-Identifier: GPL-2.0
/*
 * The board's coefficients of the instruction-mix predictor (mixpred.c):
 * one set per pair of core types, set as a whole through
 * /sys/kernel/sbridge/predictor (sbridgectl set predictor FILE) and read
 * locklessly by the estimator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "internal.h"

/**
 * struct sbridge_mixset - the coefficient sets in force
 * @rcu: deferred free
 * @have: bit fast x SBRIDGE_MAX_CORE_TYPES + slow per pair that has a set
 * @c: the sets, by fast and slow core type
 *
 * Never changed once published: a write builds a new one and replaces it
 * under sbridge_mixset_lock (RCU pointer); readers hold rcu_read_lock().
 */
struct sbridge_mixset {
	struct rcu_head rcu;
	u32 have;
	struct sbridge_mixcoef c[SBRIDGE_MAX_CORE_TYPES][SBRIDGE_MAX_CORE_TYPES];
};

static struct sbridge_mixset __rcu *sbridge_mixset;
static DEFINE_MUTEX(sbridge_mixset_lock);

#define SBRIDGE_MIX_BIT(f, s)	BIT((f) * SBRIDGE_MAX_CORE_TYPES + (s))

/*
 * Eq. 3's memory ratio for the reference type over the slowest, as the
 * matrix's workloads taught it, per side a share is seen on (0: the
 * slowest, 1: the reference type), packed 16 bits a field: written by the
 * matrix's refresh, read locklessly by every prediction (one aligned u64
 * each). Kept here, below the matrix and the task entries, because both
 * the estimate (task.c) and the status line read it.
 */
static u64 sbridge_memrate[2];

/**
 * sbridge_predictor_set_memrate() - publish the memory ratio the matrix fit
 * @on_fast: for a share seen on the reference type (else the slowest)
 * @r: the compute factor, the ratio, its error and the workloads it
 *	came from (n 0: none measured on both types)
 *
 * Context: any; lock-free (the matrix's refresh is the one writer).
 */
void sbridge_predictor_set_memrate(bool on_fast, const struct sbridge_memrate *r)
{
	WRITE_ONCE(sbridge_memrate[on_fast],
		   (u64)min_t(u32, r->coef, U16_MAX) |
		   (u64)min_t(u32, r->err, U16_MAX) << 16 |
		   (u64)min_t(u32, r->comp, U16_MAX) << 32 |
		   (u64)min_t(u32, r->n, U16_MAX) << 48);
}

/**
 * sbridge_predictor_memrate() - the memory ratio the matrix taught
 * @on_fast: for a share seen on the reference type (else the slowest)
 * @r: out: the compute factor, the memory ratio and its error
 *	(sbridge_memfit_result()); n 0 if no workload that stalls was
 *	measured on both types
 *
 * For the reference type over the slowest, the pair the matrix keeps.
 *
 * Context: any; lock-free.
 */
void sbridge_predictor_memrate(bool on_fast, struct sbridge_memrate *r)
{
	u64 v = READ_ONCE(sbridge_memrate[on_fast]);

	r->coef = v & U16_MAX;
	r->err = (v >> 16) & U16_MAX;
	r->comp = (v >> 32) & U16_MAX;
	r->n = v >> 48;
}

/**
 * sbridge_predictor_get() - the coefficients of a pair of core types
 * @fast: the faster core type
 * @slow: the slower core type
 * @c: out, a copy of the pair's coefficients
 *
 * Context: any; lock-free (RCU).
 * Return: 0, or -ENOENT if the pair has none.
 */
int sbridge_predictor_get(unsigned int fast, unsigned int slow,
			  struct sbridge_mixcoef *c)
{
	const struct sbridge_mixset *set;
	int ret = -ENOENT;

	if (fast >= SBRIDGE_MAX_CORE_TYPES || slow >= SBRIDGE_MAX_CORE_TYPES)
		return ret;
	rcu_read_lock();
	set = rcu_dereference(sbridge_mixset);
	if (set && (set->have & SBRIDGE_MIX_BIT(fast, slow))) {
		*c = set->c[fast][slow];
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

/**
 * sbridge_predictor_describe() - the predictor in force for the board's
 *	main pair (reference type over type 0), and why; for eq. 3, where
 *	its memory ratio comes from (sbridge_task_memrate())
 * @buf: output
 * @len: size of @buf
 * @events: SBRIDGE_EV_* of the counter source
 *
 * Context: any.
 * Return: @buf.
 */
const char *sbridge_predictor_describe(char *buf, size_t len, u32 events)
{
	struct sbridge_memrate rf, rs;
	struct sbridge_mixcoef c;
	unsigned int fast = sbridge_topo.ref_type;
	int n;

	if (sbridge_topo.ntypes < 2) {
		strscpy(buf, "none: one core type", len);
		return buf;
	}
	if (!(events & SBRIDGE_EV_MIX))
		n = scnprintf(buf, len, "eq. 3: the counters give no instruction classes");
	else if (sbridge_predictor_get(fast, 0, &c))
		n = scnprintf(buf, len,
			      "eq. 3: no coefficients for types %u/0 (sbridgectl set predictor FILE)",
			      fast);
	else {
		scnprintf(buf, len, "instruction mix, types %u/0 (error %u%%)",
			  fast, (c.err * 100 + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT);
		return buf;
	}
	/* eq. 3's memory ratio: learned, calibrated or not known */
	sbridge_predictor_memrate(true, &rf);
	sbridge_predictor_memrate(false, &rs);
	if (rf.n || rs.n)
		scnprintf(buf + n, len - n, "; memory ratio from %u workloads",
			  max(rf.n, rs.n));
	else
		scnprintf(buf + n, len - n, "; memory ratio %s",
			  READ_ONCE(sbridge_params.mem_ratio) ? "model.mem_ratio" :
			  "unknown");
	return buf;
}

static ssize_t predictor_show(struct kobject *k, struct kobj_attribute *a,
			      char *buf)
{
	const struct sbridge_mixset *set;
	unsigned int f, s, i;
	int n = 0;

	rcu_read_lock();
	set = rcu_dereference(sbridge_mixset);
	for (f = 0; set && f < SBRIDGE_MAX_CORE_TYPES; f++) {
		for (s = 0; s < SBRIDGE_MAX_CORE_TYPES; s++) {
			const struct sbridge_mixcoef *c = &set->c[f][s];

			if (!(set->have & SBRIDGE_MIX_BIT(f, s)))
				continue;
			n += sysfs_emit_at(buf, n, "%u %u %u %u", f, s, c->clock,
					   c->err);
			for (i = 0; i < 2 * SBRIDGE_MIX_TERMS; i++)
				n += sysfs_emit_at(buf, n, " %u",
						   c->cpi[i / SBRIDGE_MIX_TERMS][i % SBRIDGE_MIX_TERMS]);
			n += sysfs_emit_at(buf, n, "\n");
		}
	}
	rcu_read_unlock();
	return n;
}

/* Parse every line of @text into @set; @ntypes types exist. */
static int sbridge_predictor_parse(char *text, unsigned int ntypes,
				   struct sbridge_mixset *set)
{
	unsigned int f, s, no = 0;
	char *line;

	while ((line = strsep(&text, "\n")) != NULL) {
		struct sbridge_mixcoef c;

		no++;
		line = strim(line);
		if (!*line || *line == '#')
			continue;
		if (sbridge_mixcoef_parse(line, &f, &s, &c)) {
			pr_err("predictor: line %u: want FAST SLOW CLOCK ERR and %u CPIs per type, in range\n",
			       no, SBRIDGE_MIX_TERMS);
			return -EINVAL;
		}
		if (f >= ntypes || s >= ntypes || f <= s) {
			pr_err("predictor: line %u: types %u/%u: the fast type must be the higher of two of the %u types\n",
			       no, f, s, ntypes);
			return -EINVAL;
		}
		if (set->have & SBRIDGE_MIX_BIT(f, s)) {
			pr_err("predictor: line %u: types %u/%u given twice\n",
			       no, f, s);
			return -EINVAL;
		}
		set->c[f][s] = c;
		set->have |= SBRIDGE_MIX_BIT(f, s);
	}
	return 0;
}

/*
 * A write replaces every set at once: "none" (or nothing) clears them, a
 * bad line changes nothing. CAP_SYS_ADMIN, as every setting.
 */
static ssize_t predictor_store(struct kobject *k, struct kobj_attribute *a,
			       const char *buf, size_t count)
{
	struct sbridge_mixset *set = NULL, *old;
	char *text;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	text = kstrndup(buf, count, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	if (strcmp(strim(text), "none")) {
		set = kzalloc(sizeof(*set), GFP_KERNEL);
		if (!set) {
			ret = -ENOMEM;
			goto out;
		}
		ret = sbridge_predictor_parse(text, sbridge_topo.ntypes, set);
		if (ret)
			goto out;
		if (!set->have) {
			kfree(set);
			set = NULL;
		}
	}
	mutex_lock(&sbridge_mixset_lock);
	old = rcu_replace_pointer(sbridge_mixset, set,
				  lockdep_is_held(&sbridge_mixset_lock));
	mutex_unlock(&sbridge_mixset_lock);
	if (old)
		kfree_rcu(old, rcu);
	pr_info("predictor: %s\n", set ? "coefficients set" : "coefficients cleared: eq. 3");
	set = NULL;
	ret = count;
out:
	kfree(set);
	kfree(text);
	return ret;
}

struct kobj_attribute sbridge_predictor_attr = __ATTR_RW_MODE(predictor, 0600);

/**
 * sbridge_predictor_exit() - drop the coefficients (module unload)
 *
 * Context: process context, after every reader is gone (the sysfs file
 * removed, the hooks unregistered).
 */
void sbridge_predictor_exit(void)
{
	struct sbridge_mixset *old;

	mutex_lock(&sbridge_mixset_lock);
	old = rcu_replace_pointer(sbridge_mixset, NULL,
				  lockdep_is_held(&sbridge_mixset_lock));
	mutex_unlock(&sbridge_mixset_lock);
	synchronize_rcu();
	kfree(old);
}
