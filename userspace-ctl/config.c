// SPDX-License-Identifier: GPL-2.0
/*
 * config apply|check|save: a boot configuration file of `set` values, so
 * what an admin set at run time survives a reboot. One setting a line:
 *
 *	param NAME VALUE
 *	cpu-factor CPUS VALUE
 *
 * parsed with the same steps as `set param` and `set cpu-factor` (lib/params.c).
 * The whole file is checked before anything is sent; apply then sets the
 * lines in order and, if the kernel refuses one, puts back every value it
 * changed, so a file is applied completely or not at all.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "readfile.h"
#include "rules_parse.h"
#include "sbridgectl.h"

#define CF_MAX_ITEMS	4096	/* settings per file */
#define CF_MAX_ERRORS	50	/* reported before giving up */
#define CF_PARAMS	SB_PARAMS_PATH
#define CF_MODPARAMS	"/sys/module/sbridge_core/parameters"

static const char config_help[] =
"usage: sbridgectl config apply FILE | check [--print] FILE | save [FILE] [--json]\n"
"\n"
"A boot configuration file (/etc/sbridge/sbridge.conf) keeps what\n"
"`sbridgectl set` changed across reboots. One setting a line, '#' starts a\n"
"comment:\n"
"    param NAME VALUE          as `set param NAME VALUE`\n"
"    cpu-factor CPUS VALUE     as `set cpu-factor CPUS VALUE`\n"
"\n"
"apply   check every line, then set them in order; if the kernel refuses\n"
"        one, every value already changed is put back (all or nothing).\n"
"        Needs CAP_SYS_ADMIN. FILE may be - for standard input.\n"
"check   parse and check only (no module needed); --print shows each\n"
"        setting in canonical form.\n"
"save    write every parameter and every CPU factor override in force to\n"
"        FILE (standard output without FILE or with -), through FILE.tmp\n"
"        and a rename.\n"
"Errors name FILE:LINE:COLUMN.\n";

/* One setting of the file. */
struct cf_item {
	unsigned int line, col;		/* of the keyword */
	unsigned int acol;		/* of NAME or CPUS */
	int cpu;			/* 1: cpu-factor, 0: param */
	char name[SB_PARAM_NAME_MAX + 1];
	uint64_t value;			/* param */
	struct sb_cpuset *cpus;		/* cpu-factor */
	uint32_t factor;		/* cpu-factor, 0 == clear the override */
	/* apply: what the step replaced, to undo it */
	uint64_t old_value;
	uint32_t *old_override;		/* per CPU of the GET_CPUS dump */
	int deferred;
};

struct cf_error {
	unsigned int line, col;
	char msg[600];
};

struct cf_file {
	const char *path;
	struct cf_item *v;
	size_t n, cap;
	struct cf_error *err;
	size_t nerr;
	int fatal;			/* cannot read the file: the exit code ... */
	char why[512];			/* ... and why */
	int offline;			/* check: names and ranges from the table */
};

static void cf_free(struct cf_file *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].cpus);
		free(f->v[i].old_override);
	}
	free(f->v);
	free(f->err);
}

static void cf_bad(struct cf_file *f, unsigned int line, unsigned int col,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void cf_bad(struct cf_file *f, unsigned int line, unsigned int col,
		   const char *fmt, ...)
{
	struct cf_error *e;
	va_list ap;

	if (!f->err)
		f->err = calloc(CF_MAX_ERRORS + 1, sizeof(*f->err));
	if (!f->err || f->nerr > CF_MAX_ERRORS)
		return;
	e = &f->err[f->nerr++];
	e->line = line;
	e->col = col;
	if (f->nerr > CF_MAX_ERRORS) {
		snprintf(e->msg, sizeof(e->msg), "too many errors, giving up");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* "param NAME VALUE" or "cpu-factor CPUS VALUE" from the tokens of a line. */
static void cf_line(struct cf_file *f, const struct sb_rp_line *ln, unsigned int lineno,
		    unsigned int eol)
{
	const struct sb_rp_token *t = ln->tok;
	struct cf_item it, *nv;
	struct sb_perr pe;
	unsigned int i;
	int cpu;

	for (i = 0; i < ln->n; i++) {
		if (t[i].val) {
			cf_bad(f, lineno, t[i].vcol - 1,
			       "unexpected '=' in '%s=%s' (a setting is KEYWORD ARG VALUE, separated by spaces)",
			       t[i].key, t[i].val);
			return;
		}
	}
	if (strcmp(t[0].key, "param") && strcmp(t[0].key, "cpu-factor")) {
		cf_bad(f, lineno, t[0].col, "unknown keyword '%s' (expected param or cpu-factor)",
		       t[0].key);
		return;
	}
	cpu = t[0].key[0] == 'c';
	if (ln->n < 3) {
		cf_bad(f, lineno, ln->n == 2 ? eol : t[0].col, cpu ?
		       "cpu-factor needs CPUS and VALUE, e.g. cpu-factor 1-3 1.5" :
		       "param needs NAME and VALUE, e.g. param act.gain 154");
		return;
	}
	if (ln->n > 3) {
		cf_bad(f, lineno, t[3].col, "unexpected '%s' after the value", t[3].key);
		return;
	}
	memset(&it, 0, sizeof(it));
	it.line = lineno;
	it.col = t[0].col;
	it.acol = t[1].col;
	it.cpu = cpu;
	if (cpu) {
		it.cpus = malloc(sizeof(*it.cpus));
		if (!it.cpus) {
			cf_bad(f, lineno, t[0].col, "out of memory");
			return;
		}
		if (sb_parse_cpus(t[1].key, it.cpus, &pe)) {
			cf_bad(f, lineno, t[1].col + pe.off, "%s", pe.msg);
			goto drop;
		}
		if (sb_parse_factor(t[2].key, &it.factor, &pe)) {
			cf_bad(f, lineno, t[2].col, "%s", pe.msg);
			goto drop;
		}
	} else {
		/* apply asks the loaded module (cf_check_live()) instead */
		if (sb_parse_param(t[1].key, t[2].key, &it.value, &pe) ||
		    (f->offline && sb_check_param_table(t[1].key, it.value, &pe))) {
			cf_bad(f, lineno, (pe.value ? t[2].col : t[1].col) + pe.off,
			       "%s", pe.msg);
			return;
		}
		memcpy(it.name, t[1].key, strlen(t[1].key) + 1);
	}
	if (f->n == CF_MAX_ITEMS) {
		cf_bad(f, lineno, 1, "too many settings (at most %u)", CF_MAX_ITEMS);
		goto drop;
	}
	nv = sb_grow(f->v, &f->cap, f->n, sizeof(*nv), 16);
	if (!nv) {
		cf_bad(f, lineno, 1, "out of memory");
		goto drop;
	}
	f->v = nv;
	f->v[f->n++] = it;
	return;
drop:
	free(it.cpus);
}

/* Reads and checks the whole file; errors land in @f->err. */
static void cf_parse(struct cf_file *f)
{
	struct sb_rp_line *ln;
	char *buf, *line;
	size_t len, pos = 0, n;
	unsigned int lineno = 0, col;
	const char *why;
	int ret;

	ret = sb_read_path(f->path, SB_READ_MAX, SB_READ_IDLE_MS, &buf, &len);
	if (!strcmp(f->path, "-"))
		f->path = "<stdin>";	/* in messages, as the rules parser says */
	if (ret) {
		snprintf(f->why, sizeof(f->why), "cannot read '%s': %s", f->path,
			 sb_read_strerror(ret, SB_READ_MAX, SB_READ_IDLE_MS));
		f->fatal = ret == -ENOMEM ? SB_EXIT_ERR : SB_EXIT_USAGE;
		return;
	}
	ln = malloc(sizeof(*ln));
	if (!ln) {
		snprintf(f->why, sizeof(f->why), "out of memory");
		f->fatal = SB_EXIT_ERR;
		goto out;
	}
	/* editors on some systems start UTF-8 files with a byte order mark */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len && f->nerr <= CF_MAX_ERRORS) {
		char *nl = memchr(buf + pos, '\n', len - pos);

		line = buf + pos;
		n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		lineno++;
		if (n > SB_RP_MAX_LINE) {
			cf_bad(f, lineno, SB_RP_MAX_LINE + 1, "line too long");
			continue;
		}
		if (sb_rp_check_bytes((const unsigned char *)line, n, &col, &why)) {
			cf_bad(f, lineno, col, "%s", why);
			continue;
		}
		if (sb_rp_tokenize(line, n, ln, &col, &why)) {
			cf_bad(f, lineno, col, "%s", why);
			continue;
		}
		if (ln->n)
			cf_line(f, ln, lineno, (unsigned int)n + 1);
	}
out:
	free(ln);
	free(buf);
}

static void cf_report(const struct cf_file *f)
{
	size_t i;

	for (i = 0; i < f->nerr; i++)
		sb_err("%s:%u:%u: %s", f->path, f->err[i].line, f->err[i].col,
		       f->err[i].msg);
}

/* {"ok":..,"file":..,@key:@count,"errors":[...]}: rules check's schema */
static void cf_json(const struct cf_file *f, const char *key, size_t count)
{
	size_t i;

	sb_js_obj_begin(NULL);
	sb_js_bool("ok", !f->nerr);
	sb_js_str("file", f->path);
	sb_js_uint(key, count);
	sb_js_arr_begin("errors");
	for (i = 0; i < f->nerr; i++)
		sb_json_error(f->path, f->err[i].line, f->err[i].col, f->err[i].msg);
	sb_js_arr_end();
	sb_js_obj_end();
}

/* The errors: in the JSON object with --json, else on stderr. */
static void cf_errors(const struct cf_file *f, const char *key, size_t count)
{
	if (sb_json)
		cf_json(f, key, count);
	else
		cf_report(f);
}

static void cf_format(FILE *out, const struct cf_item *it)
{
	char list[4096];

	if (!it->cpu) {
		fprintf(out, "param %s %llu\n", it->name, (unsigned long long)it->value);
		return;
	}
	sb_cpulist_format(it->cpus, list, sizeof(list));
	fprintf(out, "cpu-factor %s %s\n", list, it->factor ? sb_fp(it->factor) : "clear");
}

static int config_check(const char *path, int print)
{
	struct cf_file f = { .path = path, .offline = 1 };
	size_t i;
	int ret;

	cf_parse(&f);
	if (f.fatal) {
		sb_err("%s", f.why);
		cf_free(&f);
		return f.fatal;
	}
	ret = f.nerr ? SB_EXIT_USAGE : SB_EXIT_OK;
	cf_errors(&f, "settings", f.nerr ? 0 : f.n);
	if (!sb_json && print && !f.nerr)
		for (i = 0; i < f.n; i++)
			cf_format(stdout, &f.v[i]);
	cf_free(&f);
	return ret;
}

/* The module parameter file of a wire name: '_' for '.'. */
static int cf_read_modparam(const char *name, uint64_t *v)
{
	char path[128], *c;
	unsigned long long u;
	FILE *in;
	int ok;

	snprintf(path, sizeof(path), CF_MODPARAMS "/%s", name);
	for (c = path + strlen(CF_MODPARAMS) + 1; *c; c++)
		if (*c == '.')
			*c = '_';
	in = fopen(path, "r");
	if (!in)
		return -1;
	ok = fscanf(in, "%llu", &u) == 1;
	fclose(in);
	*v = u;
	return ok ? 0 : -1;
}

/* Puts the overrides of the CPUs of @it back as @old has them: one request
 * per distinct value. */
static int cf_undo_cpus(struct sb_nl *nl, const struct cf_item *it,
			struct sb_cpu *cpus, size_t n)
{
	struct sb_cpuset *set = malloc(sizeof(*set));
	size_t i, j;
	int ret = 0, r;

	if (!set)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t v = it->old_override[i];
		int first = 1;

		if (!sb_cpuset_has(it->cpus, cpus[i].id))
			continue;
		for (j = 0; j < i && first; j++)
			if (sb_cpuset_has(it->cpus, cpus[j].id) && it->old_override[j] == v)
				first = 0;
		if (!first)
			continue;
		memset(set, 0, sizeof(*set));
		for (j = i; j < n; j++)
			if (sb_cpuset_has(it->cpus, cpus[j].id) && it->old_override[j] == v &&
			    cpus[j].id < SB_MAX_CPUS)
				set->bits[cpus[j].id / 64] |= 1ULL << (cpus[j].id % 64);
		r = sb_set_cpu_factor(nl, set, v);
		if (r)
			ret = r;
		for (j = i; j < n; j++)
			if (sb_cpuset_has(set, cpus[j].id))
				cpus[j].override = v;
	}
	free(set);
	return ret;
}

/* Sends one setting; records what it replaces first. */
static int cf_do(struct sb_nl *nl, struct cf_item *it, struct sb_params *p,
		 struct sb_cpu *cpus, size_t n)
{
	size_t i;
	int ret;

	if (!it->cpu) {
		uint64_t *cur = sb_find_param(p, it->name);

		/* cf_check_live() put every name of the file in @p */
		if (!cur)
			return -EINVAL;
		it->old_value = *cur;
		ret = sb_set_param(nl, it->name, it->value);
		if (!ret)
			*cur = it->value;
		return ret;
	}
	if (!it->old_override) {
		it->old_override = calloc(n ? n : 1, sizeof(*it->old_override));
		if (!it->old_override)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		it->old_override[i] = cpus[i].override;
	ret = sb_set_cpu_factor(nl, it->cpus, it->factor);
	if (!ret)
		for (i = 0; i < n; i++)
			if (sb_cpuset_has(it->cpus, cpus[i].id))
				cpus[i].override = it->factor;
	return ret;
}

static int cf_undo(struct sb_nl *nl, struct cf_item *it, struct sb_params *p,
		   struct sb_cpu *cpus, size_t n)
{
	uint64_t *cur;
	int ret;

	if (it->cpu)
		return cf_undo_cpus(nl, it, cpus, n);
	cur = sb_find_param(p, it->name);
	if (!cur)
		return -EINVAL;
	ret = sb_set_param(nl, it->name, it->old_value);
	if (!ret)
		*cur = it->old_value;
	return ret;
}

/* Is @it's parameter set again by a later line? */
static int cf_set_later(const struct cf_file *f, size_t i)
{
	size_t j;

	for (j = i + 1; j < f->n; j++)
		if (!f->v[j].cpu && !strcmp(f->v[j].name, f->v[i].name))
			return 1;
	return 0;
}

/* Checks what needs the module (parameter names, CPUs), before any change. */
static void cf_check_live(struct cf_file *f, struct sb_params *p,
			  const struct sb_cpu *cpus, size_t n, int have_cpus)
{
	char msg[512];
	uint64_t v;
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct cf_item *it = &f->v[i];

		if (it->cpu) {
			if (!have_cpus)
				cf_bad(f, it->line, it->col,
				       "cannot read the CPUs (needed to undo a failed apply)");
			else if (sb_cpus_unknown(it->cpus, cpus, n, msg, sizeof(msg)))
				cf_bad(f, it->line, it->acol, "%s", msg);
			else if (sb_factor_warnings(it->cpus, it->factor, cpus, n, 0)) {
				/* the line, then what is wrong with it */
				sb_warn("%s:%u:%u: this cpu-factor does less than it says:",
					f->path, it->line, it->col);
				sb_factor_warnings(it->cpus, it->factor, cpus, n, 1);
			}
			continue;
		}
		if (sb_find_param(p, it->name))
			continue;
		/* Not in the module's list: its module parameter file, if any. */
		if (cf_read_modparam(it->name, &v))
			cf_bad(f, it->line, it->acol,
			       "unknown parameter '%s' (see sbridgectl(8), PARAMETERS)",
			       it->name);
		else if (sb_add_param(p, it->name, v))
			cf_bad(f, it->line, it->col, "out of memory");
	}
}

/* An apply under way: what is in force, what has been sent. */
struct cf_apply {
	struct sb_nl nl;
	struct sb_params p;
	struct sb_cpu *cpus;
	size_t ncpus;
	size_t *done, ndone;		/* the items sent, in order */
	struct cf_item *bad;		/* the one the kernel refused */
};

/*
 * Sends the settings in order. A parameter out of range only against
 * another one (the act.up_util / act.down_util pair) is tried again
 * after the rest, unless a later line sets it anyway. 0, or the error of
 * the one refused (@a->bad).
 */
static int cf_send(struct cf_file *f, struct cf_apply *a)
{
	size_t i, k;
	int err = 0;

	for (k = 0; k < 2 && !err; k++) {
		for (i = 0; i < f->n && !err; i++) {
			struct cf_item *it = &f->v[i];
			int r;

			if (k && !it->deferred)
				continue;
			r = cf_do(&a->nl, it, &a->p, a->cpus, a->ncpus);
			if (!r) {
				a->done[a->ndone++] = i;
				continue;
			}
			if (!k && r == -ERANGE && !it->cpu && !cf_set_later(f, i)) {
				it->deferred = 1;
				continue;
			}
			err = r;
			a->bad = it;
		}
	}
	return err;
}

/* Refused with @err: name the line, then undo in reverse order. The exit code. */
static int cf_refused(struct cf_file *f, struct cf_apply *a, int err)
{
	const char *ka = a->nl.extack[0] ? a->nl.extack : NULL;
	const struct cf_item *bad = a->bad;
	size_t undone = 0;
	int ret;

	if (err == -EPERM || err == -EACCES) {
		cf_bad(f, bad->line, bad->col,
		       "permission denied: this needs CAP_SYS_ADMIN (run as root)");
		ret = SB_EXIT_PERM;
	} else {
		cf_bad(f, bad->line, bad->col, "the kernel refused %s %s: %s%s%s%s",
		       bad->cpu ? "cpu-factor" : "param",
		       bad->cpu ? "override" : bad->name, ka ? ka : "",
		       ka ? " (" : "", strerror(-err), ka ? ")" : "");
		ret = SB_EXIT_ERR;
	}
	if (!sb_json)
		cf_report(f);
	while (a->ndone) {
		struct cf_item *it = &f->v[a->done[--a->ndone]];
		int r = cf_undo(&a->nl, it, &a->p, a->cpus, a->ncpus);

		if (r) {
			sb_err("%s:%u:%u: cannot undo this setting: %s; the settings up to it remain in force",
			       f->path, it->line, it->col, strerror(-r));
			ret = SB_EXIT_ERR;
			break;
		}
		undone++;
	}
	if (!a->ndone)
		sb_err("%s: nothing applied (%zu change%s undone)", f->path, undone,
		       undone == 1 ? "" : "s");
	if (sb_json)
		cf_json(f, "applied", a->ndone);
	return ret;
}

static int config_apply(const char *path)
{
	struct cf_file f = { .path = path };
	struct cf_apply a = { .p = { NULL, 0, 0 } };
	int ret, err, have_cpus, nlopen = 0;

	cf_parse(&f);
	if (f.fatal) {
		sb_err("%s", f.why);
		ret = f.fatal;
		goto out;
	}
	if (f.nerr) {
		ret = SB_EXIT_USAGE;
		goto report;
	}
	ret = sb_connect(&a.nl);
	if (ret)
		goto out;
	nlopen = 1;
	have_cpus = !sb_get_cpus(&a.nl, &a.cpus, &a.ncpus);
	sb_read_params(CF_PARAMS, &a.p);	/* else each name through its module parameter */
	cf_check_live(&f, &a.p, a.cpus, a.ncpus, have_cpus);
	if (f.nerr) {
		ret = SB_EXIT_USAGE;
		goto report;
	}
	a.done = calloc(f.n ? f.n : 1, sizeof(*a.done));
	if (!a.done) {
		sb_err("out of memory");
		ret = SB_EXIT_ERR;
		goto out;
	}
	err = cf_send(&f, &a);
	if (err) {
		ret = cf_refused(&f, &a, err);
	} else if (sb_json) {
		cf_json(&f, "applied", a.ndone);
	} else {
		printf("%s: applied %zu setting%s\n", path, a.ndone, a.ndone == 1 ? "" : "s");
	}
	goto out;
report:
	cf_errors(&f, "applied", 0);
out:
	if (nlopen)
		sb_nl_close(&a.nl);
	free(a.done);
	free(a.cpus);
	free(a.p.v);
	cf_free(&f);
	return ret;
}

/* config_verify()'s parameters: the last line for a name is the one in force. */
static void cf_verify_params(const struct cf_file *f, const struct sb_params *p,
			     void (*fn)(void *arg, const char *msg), void *arg)
{
	char msg[700];
	size_t i, j;

	for (i = 0; i < f->n; i++) {
		const struct cf_item *it = &f->v[i];
		const uint64_t *have;

		if (it->cpu)
			continue;
		for (j = i + 1; j < f->n && (f->v[j].cpu || strcmp(f->v[j].name, it->name)); j++)
			;
		if (j < f->n)
			continue;
		have = sb_find_param(p, it->name);
		if (!have)
			snprintf(msg, sizeof(msg), "%s:%u: param %s: the loaded module has no such parameter",
				 f->path, it->line, it->name);
		else if (*have != it->value)
			snprintf(msg, sizeof(msg), "%s:%u: param %s is %llu in force, the file says %llu",
				 f->path, it->line, it->name, (unsigned long long)*have,
				 (unsigned long long)it->value);
		else
			continue;
		fn(arg, msg);
	}
}

/*
 * config_verify()'s CPU factors: per CPU, the last line naming it;
 * @want and @line hold that line's factor and number per CPU. One
 * message per line, naming the CPUs it does not hold for.
 */
static void cf_verify_cpus(const struct cf_file *f, const struct sb_cpu *cpus, size_t n,
			   uint32_t *want, unsigned int *line, struct sb_cpuset *bad,
			   void (*fn)(void *arg, const char *msg), void *arg)
{
	char msg[700], list[256];
	size_t i, k;

	for (i = 0; i < f->n; i++)
		for (k = 0; f->v[i].cpu && k < n; k++)
			if (sb_cpuset_has(f->v[i].cpus, cpus[k].id)) {
				want[k] = f->v[i].factor;
				line[k] = f->v[i].line;
			}
	for (i = 0; i < f->n; i++) {
		const struct cf_item *it = &f->v[i];

		if (!it->cpu)
			continue;
		memset(bad, 0, sizeof(*bad));
		for (k = 0; k < n; k++)
			if (line[k] == it->line && cpus[k].override != want[k] &&
			    cpus[k].id < SB_MAX_CPUS)
				bad->bits[cpus[k].id / 64] |= 1ULL << (cpus[k].id % 64);
		if (sb_cpuset_last(bad) < 0)
			continue;
		sb_cpulist_format(bad, list, sizeof(list));
		for (k = 0; k < n && !sb_cpuset_has(bad, cpus[k].id); k++)
			;
		if (cpus[k].override)
			snprintf(msg, sizeof(msg), "%s:%u: cpu-factor: CPU %s has override %s in force, the file says %s",
				 f->path, it->line, list, sb_fp(cpus[k].override),
				 it->factor ? sb_fp(it->factor) : "clear");
		else
			snprintf(msg, sizeof(msg), "%s:%u: cpu-factor: CPU %s has no override in force, the file says %s",
				 f->path, it->line, list, it->factor ? sb_fp(it->factor) : "clear");
		fn(arg, msg);
	}
}

int config_verify(const char *path, const struct sb_params *p,
		     const struct sb_cpu *cpus, size_t n,
		     void (*fn)(void *arg, const char *msg), void *arg,
		     char *why, size_t whylen)
{
	/* without the module, only what config check would say */
	struct cf_file f = { .path = path, .offline = !fn };
	struct sb_cpuset *bad = malloc(sizeof(*bad));
	uint32_t *want = NULL;
	unsigned int *line = NULL;
	int ret;

	cf_parse(&f);
	if (f.fatal || f.nerr || !bad) {
		if (f.fatal)
			snprintf(why, whylen, "%s", f.why);
		else if (f.nerr)
			snprintf(why, whylen, "%s:%u:%u: %s", f.path, f.err[0].line,
				 f.err[0].col, f.err[0].msg);
		else
			snprintf(why, whylen, "out of memory");
		ret = -1;
		goto out;
	}
	ret = (int)f.n;
	if (!fn)
		goto out;
	cf_verify_params(&f, p, fn, arg);
	want = calloc(n ? n : 1, sizeof(*want));
	line = calloc(n ? n : 1, sizeof(*line));
	if (!want || !line) {
		snprintf(why, whylen, "out of memory");
		ret = -1;
		goto out;
	}
	cf_verify_cpus(&f, cpus, n, want, line, bad, fn, arg);
out:
	free(want);
	free(line);
	free(bad);
	cf_free(&f);
	return ret;
}

static size_t cf_write(FILE *out, const struct sb_params *p, const struct sb_cpu *cpus,
		       size_t n, size_t *nfactors)
{
	struct sb_cpuset *set = malloc(sizeof(*set));
	char list[4096];
	size_t i, j;

	fprintf(out, "# sbridge boot configuration (sbridgectl(8), config), written by\n"
		"# sbridgectl config save; applied at boot by sbridge-config.service.\n");
	for (i = 0; i < p->n; i++)
		fprintf(out, "param %s %llu\n", p->v[i].name, (unsigned long long)p->v[i].value);
	*nfactors = 0;
	for (i = 0; set && i < n; i++) {
		uint32_t v = cpus[i].override;
		int first = 1;

		if (!v)
			continue;
		for (j = 0; j < i && first; j++)
			if (cpus[j].override == v)
				first = 0;
		if (!first)
			continue;
		memset(set, 0, sizeof(*set));
		for (j = i; j < n; j++)
			if (cpus[j].override == v && cpus[j].id < SB_MAX_CPUS)
				set->bits[cpus[j].id / 64] |= 1ULL << (cpus[j].id % 64);
		sb_cpulist_format(set, list, sizeof(list));
		fprintf(out, "cpu-factor %s %s\n", list, sb_fp(v));
		(*nfactors)++;
	}
	free(set);
	return p->n;
}

static int config_save(const char *path)
{
	struct sb_params p = { NULL, 0, 0 };
	struct sb_cpu *cpus = NULL;
	size_t ncpus = 0, nf = 0;
	char tmp[4096];
	struct sb_nl nl;
	FILE *out;
	int ret;

	ret = sb_connect(&nl);
	if (ret)
		return ret;
	ret = sb_get_cpus(&nl, &cpus, &ncpus);
	if (ret) {
		ret = sb_fail(&nl, ret, "reading CPUs");
		goto out;
	}
	ret = sb_read_params(CF_PARAMS, &p);
	if (ret) {
		sb_err("cannot read %s: %s", CF_PARAMS, strerror(-ret));
		ret = SB_EXIT_ERR;
		goto out;
	}
	if (!path || !strcmp(path, "-")) {
		cf_write(stdout, &p, cpus, ncpus, &nf);
		goto out;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		ret = sb_usage(config_help, "path too long");
		goto out;
	}
	out = fopen(tmp, "w");
	if (!out) {
		sb_err("cannot write '%s': %s", tmp, strerror(errno));
		ret = SB_EXIT_ERR;
		goto out;
	}
	cf_write(out, &p, cpus, ncpus, &nf);
	if (fflush(out) || ferror(out) || fsync(fileno(out))) {
		sb_err("cannot write '%s': %s", tmp, strerror(errno));
		fclose(out);
		unlink(tmp);
		ret = SB_EXIT_ERR;
		goto out;
	}
	if (fclose(out) || rename(tmp, path)) {
		sb_err("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		ret = SB_EXIT_ERR;
		goto out;
	}
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_str("file", path);
		sb_js_uint("params", p.n);
		sb_js_uint("cpu_factors", nf);
		sb_js_obj_end();
	} else {
		printf("saved %zu parameters and %zu CPU factor override%s to %s\n",
		       p.n, nf, nf == 1 ? "" : "s", path);
	}
out:
	free(cpus);
	free(p.v);
	sb_nl_close(&nl);
	return ret;
}

int cmd_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "print", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub;
	int c, print = 0;

	while ((c = sb_getopt(argc, argv, "", opts, config_help)) != -1) {
		if (c == 'p') {
			print = 1;
			continue;
		}
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return sb_usage(config_help, "missing action (apply, check or save)");
	sub = argv[0];
	if (print && strcmp(sub, "check"))
		return sb_usage(config_help, "--print is for config check");
	if (!strcmp(sub, "apply") || !strcmp(sub, "check")) {
		if (argc != 2)
			return sb_usage(config_help, "config %s needs exactly one FILE", sub);
		return sub[0] == 'a' ? config_apply(argv[1]) : config_check(argv[1], print);
	}
	if (!strcmp(sub, "save")) {
		if (argc > 2)
			return sb_usage(config_help, "config save takes at most one FILE");
		return config_save(argc == 2 ? argv[1] : NULL);
	}
	return sb_usage(config_help, "unknown action '%s' (apply, check or save)", sub);
}
