/* SPDX-License-Identifier: GPL-2.0 */
/* Module parameters and CPU overrides as text (params.c). */
#ifndef SBRIDGECTL_PARAMS_H
#define SBRIDGECTL_PARAMS_H

#include <stddef.h>
#include <stdint.h>

/* The module's runtime parameters, "NAME VALUE" a line. */
#define SB_PARAMS_PATH	"/sys/kernel/sbridge/params"

/* One parameter from SB_PARAMS_PATH: 0, or -1 if not there. */
int sb_read_param(const char *name, unsigned long long *v);

/*
 * Parse steps of `set cpu-factor` and `set param`, shared with `config`
 * and `get`: no kernel contact. Each returns 0, or -1 with @e->msg a whole
 * message naming the bad argument and @e->off the 0-based offset of the
 * problem inside it (@e->value: the VALUE, not the NAME, of a param).
 */
#define SB_PARAM_NAME_MAX	31	/* the kernel's SBRIDGE_PARAM_NAME_LEN - 1 */
struct sb_perr {
	char msg[512];
	unsigned int off;
	int value;
};
struct sb_cpuset;
int sb_parse_cpus(const char *s, struct sb_cpuset *set, struct sb_perr *e);
/* A factor in [0.125, 8], or 0 / clear / none (drop the override: *v = 0). */
int sb_parse_factor(const char *s, uint32_t *v, struct sb_perr *e);
int sb_parse_param(const char *name, const char *value, uint64_t *v,
		   struct sb_perr *e);
/* The NAME half of sb_parse_param(). */
int sb_check_param_name(const char *name, struct sb_perr *e);

/* sb_parse_cpus() of a command-line argument: 0, or a usage error
 * (SB_EXIT_USAGE) printed with @help. */
int sb_parse_cpus_arg(const char *s, struct sb_cpuset *set, const char *help);

/*
 * The core's parameter table as this sbridgectl was built with it
 * (sbridge-core/params.c through gen-params.sh): name, accepted range,
 * default. The module of the same version has the same table.
 */
struct sb_param_desc {
	const char *name;
	uint64_t min, max, def;
};
const struct sb_param_desc *sb_param_desc(const char *name);
/* The @i-th entry, NULL past the end. */
const struct sb_param_desc *sb_param_nth(size_t i);
/* 0 if the table knows @name and @v is in its range, else -1 with @e
 * (a name in modprobe.d's spelling, act_gain, is named as such). */
int sb_check_param_table(const char *name, uint64_t v, struct sb_perr *e);

/* The parameters in force, in the order the module lists them. */
struct sb_param {
	char name[SB_PARAM_NAME_MAX + 1];
	uint64_t value;
};

struct sb_params {
	struct sb_param *v;
	size_t n, cap;
};

/* The "NAME VALUE" lines of @path (SB_PARAMS_PATH) into @p, emptied
 * first: 0 or a negative errno. The caller frees p->v in both cases. */
int sb_read_params(const char *path, struct sb_params *p);
int sb_add_param(struct sb_params *p, const char *name, uint64_t value);
/* Where @p holds the value of @name, NULL if it has none. */
uint64_t *sb_find_param(const struct sb_params *p, const char *name);

#endif
