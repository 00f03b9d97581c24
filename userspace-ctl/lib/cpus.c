// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs as the module has them: the GET_CPUS dump, the checks a CPU
 * list and an override get against it, and the SET_CPU_FACTOR and
 * SET_PARAM requests (get, set, status, config, doctor, record).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "grow.h"
#include "util.h"
#include "cpus.h"
#include "json.h"

static int cpu_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	struct { struct sb_cpu *v; size_t n, cap; } *l = arg;
	struct sb_cpu *c, *nv;

	(void)cmd;
	if (!at->a[SBRIDGE_A_CPU_ID])
		return 0;
	nv = sb_grow(l->v, &l->cap, l->n, sizeof(*nv), 64);
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	c = &l->v[l->n++];
	memset(c, 0, sizeof(*c));
	c->id = sb_u32(at->a[SBRIDGE_A_CPU_ID], 0);
	c->type = sb_u32(at->a[SBRIDGE_A_CPU_TYPE], 0);
	c->capacity = sb_u32(at->a[SBRIDGE_A_CPU_CAPACITY], 0);
	c->orig_capacity = sb_u32(at->a[SBRIDGE_A_CPU_ORIG_CAPACITY], 0);
	c->factor = sb_u32(at->a[SBRIDGE_A_CPU_FACTOR], 0);
	/* A module before API 3 has no nominal factor: the one in force is it. */
	c->factor_nominal = sb_u32(at->a[SBRIDGE_A_CPU_FACTOR_NOMINAL], c->factor);
	c->declared = sb_u32(at->a[SBRIDGE_A_CPU_DECLARED], 0) != 0;
	c->override = sb_u32(at->a[SBRIDGE_A_CPU_FACTOR_OVERRIDE], 0);
	c->cur_khz = sb_u32(at->a[SBRIDGE_A_CPU_CUR_KHZ], 0);
	c->max_khz = sb_u32(at->a[SBRIDGE_A_CPU_MAX_KHZ], 0);
	c->cluster = sb_u32(at->a[SBRIDGE_A_CPU_CLUSTER], 0);
	c->clock = sb_u32(at->a[SBRIDGE_A_CPU_CLOCK_KIND], SBRIDGE_CLOCK_NONE);
	snprintf(c->model, sizeof(c->model), "%s", sb_str(at->a[SBRIDGE_A_CPU_MODEL]));
	c->type_from = sb_u32(at->a[SBRIDGE_A_CPU_TYPE_FROM], 0);
	/* a source or module that does not say: none */
	snprintf(c->pmu, sizeof(c->pmu), "%s", sb_str(at->a[SBRIDGE_A_CPU_PMU]));
	snprintf(c->pmu_chain, sizeof(c->pmu_chain), "%s",
		 sb_str(at->a[SBRIDGE_A_CPU_PMU_CHAIN]));
	return 0;
}

const char *sb_types_from(uint32_t from)
{
	static const char *const words[] = {
		[SBRIDGE_TYPES_CAPACITY]   = "capacity",
		[SBRIDGE_TYPES_CPUFREQ]    = "cpufreq",
		[SBRIDGE_TYPES_DECLARED]   = "declared",
		[SBRIDGE_TYPES_X86_HYBRID] = "cpuid-hybrid",
		[SBRIDGE_TYPES_RANKING]    = "cppc-ranking",
		[SBRIDGE_TYPES_MIDR]       = "midr",
	};

	return from < sizeof(words) / sizeof(words[0]) ? words[from] : NULL;
}

const char *sb_clock_kind(uint32_t kind)
{
	static const char *const words[] = {
		[SBRIDGE_CLOCK_NONE]	 = "none",
		[SBRIDGE_CLOCK_COUNTERS] = "counters",
		[SBRIDGE_CLOCK_FIE]	 = "fie",
		[SBRIDGE_CLOCK_CPUFREQ]	 = "cpufreq",
		[SBRIDGE_CLOCK_EMULATED] = "emulated",
	};

	return kind < sizeof(words) / sizeof(words[0]) ? words[kind] : "unknown";
}

int sb_clock_real(uint32_t kind)
{
	return kind == SBRIDGE_CLOCK_COUNTERS || kind == SBRIDGE_CLOCK_FIE ||
	       kind == SBRIDGE_CLOCK_CPUFREQ;
}

int sb_get_cpus(struct sb_nl *nl, struct sb_cpu **out, size_t *n)
{
	struct { struct sb_cpu *v; size_t n, cap; } l = { NULL, 0, 0 };
	struct sb_msg m;
	int ret;

	sb_msg_init(&m, nl, SBRIDGE_CMD_GET_CPUS, 1);
	ret = sb_request(nl, &m, cpu_cb, &l);
	sb_msg_free(&m);
	if (ret) {
		free(l.v);
		return ret;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

int sb_cpus_unknown(const struct sb_cpuset *want, const struct sb_cpu *cpus,
		    size_t n, char *msg, size_t len)
{
	struct sb_cpuset have;
	char list[256];
	unsigned int c;
	size_t i;

	memset(&have, 0, sizeof(have));
	for (i = 0; i < n; i++)
		if (cpus[i].id < SB_MAX_CPUS)
			have.bits[cpus[i].id / 64] |= 1ULL << (cpus[i].id % 64);
	for (c = 0; c < SB_MAX_CPUS; c++) {
		if (sb_cpuset_has(want, c) && !sb_cpuset_has(&have, c)) {
			sb_cpulist_format(&have, list, sizeof(list));
			snprintf(msg, len, "CPU %u is not known to sbridge (CPUs: %s)",
				 c, list[0] ? list : "none");
			return -1;
		}
	}
	return 0;
}

int sb_factor_warnings(const struct sb_cpuset *set, uint32_t v, const struct sb_cpu *cpus,
		       size_t n, int warn)
{
	struct sb_cpuset *type = malloc(sizeof(*type)), *in = malloc(sizeof(*in));
	char tl[256], il[256];
	unsigned int t, ntypes = 0, nw = 0;
	size_t i;
	int first;

	if (!type || !in)
		goto out;
	for (i = 0; i < n; i++)
		if (cpus[i].type + 1 > ntypes)
			ntypes = cpus[i].type + 1;
	for (t = 0; t < ntypes && t < SBRIDGE_MAX_CORE_TYPES; t++) {
		int all = 1, any = 0;

		memset(type, 0, sizeof(*type));
		memset(in, 0, sizeof(*in));
		first = -1;
		for (i = 0; i < n; i++) {
			const struct sb_cpu *c = &cpus[i];

			if (c->type != t || c->id >= SB_MAX_CPUS)
				continue;
			if (first < 0 || (int)c->id < first)
				first = (int)c->id;
			type->bits[c->id / 64] |= 1ULL << (c->id % 64);
			if (sb_cpuset_has(set, c->id)) {
				in->bits[c->id / 64] |= 1ULL << (c->id % 64);
				any = 1;
			} else {
				all = 0;
			}
		}
		if (!any)
			continue;
		sb_cpulist_format(type, tl, sizeof(tl));
		sb_cpulist_format(in, il, sizeof(il));
		/* topology.c: a type's factor is its first CPU's */
		if (!all && !sb_cpuset_has(set, (unsigned int)first)) {
			nw++;
			if (warn)
				sb_warn("CPU %s: this changes nothing: core type %u (CPUs %s) takes the factor of its first CPU, %d; give all of %s",
					il, t, tl, first, tl);
		} else if (!all) {
			nw++;
			if (warn)
				sb_warn("CPU %s: core type %u (CPUs %s) takes the factor of its first CPU, %d, so this sets it for all of %s; give all of %s",
					il, t, tl, first, tl, tl);
		}
		if (t == ntypes - 1 && v && v != SBRIDGE_FP_ONE) {
			nw++;
			if (warn)
				sb_warn("CPU %s: core type %u is the reference (biggest)%s type, factor 1 by definition; another factor scales the load of every task there and so every predicted speedup: set the smaller types' factors instead",
					il, t, ntypes == 1 ? ", and only," : "");
		}
	}
out:
	free(type);
	free(in);
	return (int)nw;
}

/* Every CPU of @want must be one the module knows. */
int sb_check_cpus_known(const struct sb_cpuset *want, const struct sb_cpu *cpus,
			    size_t n)
{
	char msg[512];

	if (sb_cpus_unknown(want, cpus, n, msg, sizeof(msg)))
		return sb_usage(NULL, "%s", msg);
	return 0;
}

int sb_set_cpu_factor(struct sb_nl *nl, const struct sb_cpuset *set, uint32_t v)
{
	uint8_t mask[SB_MAX_CPUS / 8];
	struct sb_msg m;
	size_t len;
	int ret;

	len = sb_cpuset_to_le(set, mask, sizeof(mask));
	sb_msg_init(&m, nl, SBRIDGE_CMD_SET_CPU_FACTOR, 0);
	sb_put(&m, SBRIDGE_A_CPUMASK, mask, len);
	sb_put_u32(&m, SBRIDGE_A_FACTOR, v);
	ret = sb_request(nl, &m, NULL, NULL);
	sb_msg_free(&m);
	return ret;
}

int sb_set_param(struct sb_nl *nl, const char *name, uint64_t v)
{
	struct sb_msg m;
	int ret;

	sb_msg_init(&m, nl, SBRIDGE_CMD_SET_PARAM, 0);
	sb_put_str(&m, SBRIDGE_A_PARAM_NAME, name);
	sb_put_u64(&m, SBRIDGE_A_PARAM_VALUE, v);
	ret = sb_request(nl, &m, NULL, NULL);
	sb_msg_free(&m);
	return ret;
}
