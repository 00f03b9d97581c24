// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters and per-CPU overrides as text: the parse steps of
 * `set cpu-factor` and `set param` that `config` shares, the core's
 * parameter table, and the "NAME VALUE" lines of SB_PARAMS_PATH.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "grow.h"
#include "lex.h"
#include "params.h"
#include "util.h"

int sb_parse_cpus(const char *s, struct sb_cpuset *set, struct sb_perr *e)
{
	const char *why;
	unsigned int col;

	if (!sb_cpulist_parse(s, set, &why, &col))
		return 0;
	snprintf(e->msg, sizeof(e->msg),
		 "bad CPU list '%s': %s at position %u (expected e.g. 0-3,5,7-9:2)",
		 s, why, col);
	e->off = col ? col - 1 : 0;
	return -1;
}

int sb_parse_factor(const char *s, uint32_t *v, struct sb_perr *e)
{
	const char *why;

	e->off = 0;
	if (!strcmp(s, "clear") || !strcmp(s, "none")) {
		*v = 0;
		return 0;
	}
	if (sb_parse_fp(s, v, &why)) {
		snprintf(e->msg, sizeof(e->msg),
			 "bad factor '%s': %s (expected a decimal in [0.125, 8], or 0 to clear)",
			 s, why);
		return -1;
	}
	if (*v && (*v < SBRIDGE_FACTOR_MIN || *v > SBRIDGE_FACTOR_MAX)) {
		snprintf(e->msg, sizeof(e->msg),
			 "factor '%s' out of range (0.125 to 8, or 0 to clear)", s);
		return -1;
	}
	return 0;
}

int sb_check_param_name(const char *name, struct sb_perr *e)
{
	const char *p;

	e->off = 0;
	e->value = 0;
	if (!name[0] || strlen(name) > SB_PARAM_NAME_MAX) {
		snprintf(e->msg, sizeof(e->msg), "bad parameter name '%s'", name);
		return -1;
	}
	for (p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.' || *p == '-')) {
			snprintf(e->msg, sizeof(e->msg),
				 "bad parameter name '%s' (letters a-z, digits, _ . -)", name);
			e->off = (unsigned int)(p - name);
			return -1;
		}
	}
	return 0;
}

/* The constants params.c's ranges use: the scheduler's capacity scale and
 * the unit of learn.warm_instr (sbridge-core/speedup.h). */
#define SCHED_CAPACITY_SCALE	1024
#define SBRIDGE_WARM_UNIT	1024

/* sbridge_param_tab[] of sbridge-core/params.c, made by gen-params.sh. */
static const struct sb_param_desc sb_param_tab[] = {
#include "params_tab.h"
};

const struct sb_param_desc *sb_param_desc(const char *name)
{
	size_t i;

	for (i = 0; i < SB_ARRAY_SIZE(sb_param_tab); i++)
		if (!strcmp(sb_param_tab[i].name, name))
			return &sb_param_tab[i];
	return NULL;
}

const struct sb_param_desc *sb_param_nth(size_t i)
{
	return i < SB_ARRAY_SIZE(sb_param_tab) ? &sb_param_tab[i] : NULL;
}

int sb_check_param_table(const char *name, uint64_t v, struct sb_perr *e)
{
	const struct sb_param_desc *d = sb_param_desc(name);
	char alt[SB_PARAM_NAME_MAX + 1], *c;

	e->off = 0;
	e->value = 0;
	if (!d) {
		/* modprobe.d's spelling: '_' where the name has '.' */
		snprintf(alt, sizeof(alt), "%s", name);
		for (c = alt; *c; c++) {
			if (*c != '_')
				continue;
			*c = '.';
			if (sb_param_desc(alt)) {
				snprintf(e->msg, sizeof(e->msg),
					 "unknown parameter '%s': this is its module parameter spelling, here it is '%s'",
					 name, alt);
				return -1;
			}
			*c = '_';
		}
		snprintf(e->msg, sizeof(e->msg),
			 "unknown parameter '%s' (sbridgectl(8), PARAMETERS, lists them)", name);
		return -1;
	}
	if (v < d->min || v > d->max) {
		snprintf(e->msg, sizeof(e->msg), "%s %llu out of range (%llu to %llu)", name,
			 (unsigned long long)v, (unsigned long long)d->min,
			 (unsigned long long)d->max);
		e->value = 1;
		return -1;
	}
	return 0;
}

int sb_parse_param(const char *name, const char *value, uint64_t *v,
		   struct sb_perr *e)
{
	unsigned long long u;

	if (sb_check_param_name(name, e))
		return -1;
	if (sb_parse_uint(value, ~0ULL, &u)) {
		snprintf(e->msg, sizeof(e->msg),
			 "bad value '%s' (expected an unsigned integer)", value);
		e->value = 1;
		return -1;
	}
	*v = u;
	return 0;
}

int sb_parse_cpus_arg(const char *s, struct sb_cpuset *set, const char *help)
{
	struct sb_perr e;

	if (sb_parse_cpus(s, set, &e))
		return sb_usage(help, "%s", e.msg);
	return 0;
}

int sb_add_param(struct sb_params *p, const char *name, uint64_t value)
{
	struct sb_param *nv = sb_grow(p->v, &p->cap, p->n, sizeof(*nv), 32);

	if (!nv)
		return -ENOMEM;
	p->v = nv;
	snprintf(nv[p->n].name, sizeof(nv[p->n].name), "%s", name);
	nv[p->n++].value = value;
	return 0;
}

int sb_read_params(const char *path, struct sb_params *p)
{
	FILE *in = fopen(path, "re");
	char line[256], name[SB_PARAM_NAME_MAX + 1];
	unsigned long long v;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	if (!in)
		return -errno;
	while (!ret && fgets(line, sizeof(line), in))
		if (sscanf(line, "%31s %llu", name, &v) == 2)
			ret = sb_add_param(p, name, v);
	if (!ret && ferror(in))
		ret = -EIO;
	fclose(in);
	return ret;
}

uint64_t *sb_find_param(const struct sb_params *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].name, name))
			return &p->v[i].value;
	return NULL;
}

int sb_read_param(const char *name, unsigned long long *v)
{
	struct sb_params p;
	uint64_t *found;
	int ret = -1;

	if (sb_read_params(SB_PARAMS_PATH, &p))
		goto out;
	found = sb_find_param(&p, name);
	if (found) {
		*v = *found;
		ret = 0;
	}
out:
	free(p.v);
	return ret;
}
