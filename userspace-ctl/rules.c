// SPDX-License-Identifier: GPL-2.0
/* rules load|list|clear|check: per-workload rules, loaded atomically. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rules_parse.h"
#include "sbridgectl.h"

static const char rules_help[] =
"usage: sbridgectl rules load PATH... | load --system [--root=DIR] | list | clear\n"
"       sbridgectl rules check [--print] PATH... | check [--print] --system [--root=DIR]\n"
"\n"
"load   parse every PATH (a file, a directory of *.rules files, or - for\n"
"       standard input), then replace the rules in force with all of them\n"
"       in one step. On any error nothing changes. Needs CAP_SYS_ADMIN.\n"
"       --system: the layered set instead: every *.rules of\n"
"       /usr/lib/sbridge/rules.d (shipped), /run/sbridge/rules.d and\n"
"       /etc/sbridge/rules.d (yours), read in that order, by name within\n"
"       each; a file masks one of the same name in the directories before\n"
"       it (link it to /dev/null to disable a shipped one), and a rule for\n"
"       what an earlier file's rule matched replaces that rule, so yours\n"
"       win. --root=DIR reads them under DIR.\n"
"list   print the rules in force, in rule-file syntax, in the order they\n"
"       are tried (first match wins); the comment after each names its\n"
"       file:line and how many times a task came under it since the load.\n"
"clear  drop all rules. Needs CAP_SYS_ADMIN.\n"
"check  only parse and report; --print shows each rule in canonical form.\n"
"       Needs no module.\n"
"Format: rules/README.md, sbridgectl(8).\n";

/* --system: the layered directories under this root ("" for /), else NULL */
static const char *sys_root;

/*
 * A rule whose factors say the little type is the faster (speedup 1 +
 * little - big < 1) while it prefers big or says compute contradicts
 * itself: the shipped video.rules once read little=0.6 meaning "does 0.6
 * of the work", when a factor is the time taken over the reference type's.
 */
static void warn_factors(const struct sb_rp_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		const struct sb_rp_rule *r = &set->rules[i];
		uint32_t l = r->factors[0], b = r->big;

		if (!l || !b || l >= b ||
		    (r->pref != SBRIDGE_PREF_BIG && r->cls != SBRIDGE_CLASS_COMPUTE))
			continue;
		sb_warn("%s: factor little=%.3f big=%.3f makes a little core the faster "
			"(speedup %.3f), against its %s: a factor is the time taken "
			"over the reference type's (> 1 on little for a program big cores speed up)",
			r->source, (double)l / SBRIDGE_FP_ONE, (double)b / SBRIDGE_FP_ONE,
			1.0 + ((double)l - b) / SBRIDGE_FP_ONE,
			r->pref == SBRIDGE_PREF_BIG ? "prefer=big" : "class=compute");
	}
}

/* What a user should know about a set that parsed: on stderr, any mode. */
static void warn_set(const struct sb_rp_set *set)
{
	static const char *const dirs[] = SB_RP_SYSTEM_DIRS;
	unsigned int i;

	for (i = 0; i < set->skipped && i < SB_RP_SKIPPED_NAMES; i++)
		sb_warn("skipped '%s': not named *.rules", set->skipped_name[i]);
	if (set->skipped > SB_RP_SKIPPED_NAMES)
		sb_warn("skipped %u more directory entries not named *.rules",
			set->skipped - SB_RP_SKIPPED_NAMES);
	if (sys_root && !set->dirs)
		sb_warn("none of the rule directories exists (%s%s, %s%s, %s%s)",
			sys_root, dirs[0], sys_root, dirs[1], sys_root, dirs[2]);
	if (!set->n)
		sb_warn("no rules: loading this clears the rules in force");
	warn_factors(set);
}

/* Every error of one parse, one a line, and how many did not fit. */
static void print_errors(const struct sb_rp_error *err)
{
	char line[sizeof(err->msg)];
	const char *p, *q;
	unsigned int shown = 1;

	sb_err("%s", err->msg);
	for (p = err->more; *p; p = *q ? q + 1 : q, shown++) {
		q = p + strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)(q - p), p);
		sb_err("%s", line);
	}
	if (err->n > shown)
		sb_err("... and %u more error%s", err->n - shown, err->n - shown == 1 ? "" : "s");
	if (err->n >= SB_RP_MAX_ERRORS)
		sb_err("(the parse stops after %d errors)", SB_RP_MAX_ERRORS);
}

/* Errors kept for --json, where they follow "ok". */
struct errs {
	struct sb_rp_error_at *v;
	size_t n, cap;
};

/* The errors of one parse kept in @l (none if memory is short: "ok" and
 * the exit status still say it failed). */
static void keep_errors(struct errs *l, const struct sb_rp_error *err)
{
	struct sb_rp_error_at *nv;
	unsigned int i;

	for (i = 0; i < err->n && i < SB_RP_MAX_ERRORS; i++) {
		nv = sb_grow(l->v, &l->cap, l->n, sizeof(*nv), 8);
		if (!nv)
			return;
		l->v = nv;
		l->v[l->n++] = err->at[i];
	}
}

/* @l as --json's error objects (sb_json_error()), then freed. */
static void json_errors(struct errs *l)
{
	size_t i;

	sb_js_arr_begin("errors");
	for (i = 0; i < l->n; i++)
		sb_json_error(l->v[i].file[0] ? l->v[i].file : NULL, l->v[i].line,
			      l->v[i].col, l->v[i].text);
	sb_js_arr_end();
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* The @k-th of @n sources: a path, or (--system, one source) the layers. */
static int parse_nth(struct sb_rp_set *set, char **paths, int k, struct sb_rp_error *err)
{
	return sys_root ? sb_rp_parse_system(set, sys_root, err) :
			  sb_rp_parse_path(set, paths[k], err);
}

/*
 * Parses every path, reporting the errors of each (kept in @json for
 * --json, else on stderr); a set with any error is refused whole.
 */
static int parse_all(struct sb_rp_set *set, int n, char **paths, struct errs *json)
{
	struct sb_rp_error err;
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		if (parse_nth(set, paths, i, &err)) {
			if (json)
				keep_errors(json, &err);
			else
				print_errors(&err);
			/* out of memory is the system's failure, not the file's */
			if (err.oom)
				bad = SB_EXIT_ERR;
			else if (!bad)
				bad = SB_EXIT_USAGE;
		}
	}
	if (bad)
		return bad;
	warn_set(set);
	return 0;
}

/* Defaults (class auto, no preference, all factors learned) are left out:
 * the kernel treats a missing attribute as the default, and every byte
 * counts in the 64 KiB SBRIDGE_A_RULES nest. */
static void put_rule(struct sb_msg *m, const struct sb_rp_rule *r, unsigned int ntypes)
{
	size_t rule = sb_nest_start(m, SBRIDGE_A_RULE), f;
	unsigned int t, any = 0;

	sb_put_u32(m, SBRIDGE_A_RULE_MATCH, r->match);
	sb_put_str(m, SBRIDGE_A_RULE_PATTERN, r->pattern);
	if (r->cls != SBRIDGE_CLASS_AUTO)
		sb_put_u32(m, SBRIDGE_A_RULE_CLASS, r->cls);
	if (r->pref != SBRIDGE_PREF_NONE)
		sb_put_u32(m, SBRIDGE_A_RULE_PREF, r->pref);
	for (t = 0; t < ntypes; t++)
		any |= r->factors[t];
	if (any) {
		f = sb_nest_start(m, SBRIDGE_A_RULE_FACTORS);
		for (t = 0; t < ntypes; t++)
			sb_put_u32(m, SBRIDGE_A_FACTOR, r->factors[t]);
		sb_nest_end(m, f);
	}
	sb_put_str(m, SBRIDGE_A_RULE_SOURCE, r->source);
	sb_nest_end(m, rule);
}

/* The RULES_LOAD request for @set on a machine of @ntypes core types
 * (@offs: where each rule starts, for extack; may be NULL). Returns -1
 * with @err saying why if the set does not fit the one attribute that
 * carries it. */
static int build_load(struct sb_msg *m, const struct sb_nl *nl, const struct sb_rp_set *set,
		      unsigned int ntypes, size_t *offs, struct sb_rp_error *err)
{
	size_t i, nest;

	sb_msg_init(m, nl, SBRIDGE_CMD_RULES_LOAD, 0);
	nest = sb_nest_start(m, SBRIDGE_A_RULES);
	for (i = 0; i < set->n; i++) {
		if (offs)
			offs[i] = m->len;
		put_rule(m, &set->rules[i], ntypes);
	}
	if (offs)
		offs[set->n] = m->len;
	sb_nest_end(m, nest);
	if (m->err != -EMSGSIZE)
		return 0;
	/* a load replaces the whole set: it cannot be sent in parts */
	sb_rp_error_text(err, "%zu rules take %zu bytes with %u core type%s, more than one "
		      "netlink attribute can carry (65535); shorten patterns or drop rules",
		      set->n, m->len - nest, ntypes, ntypes == 1 ? "" : "s");
	return -1;
}

/*
 * What "rules load" checks after parsing, done by "rules check" too so
 * that it fails exactly when a load would: the factors' core types and
 * the message size, against the loaded module's core types, or without a
 * module against the most a machine can have (then a set that fits only
 * fewer types is refused here, and the message says with how many).
 */
static int check_as_load(const struct sb_rp_set *parsed, struct sb_rp_error *err)
{
	unsigned int ntypes = SBRIDGE_MAX_CORE_TYPES;
	struct sb_rp_set set = *parsed;
	struct sb_status st;
	struct sb_nl nl;
	struct sb_msg m;
	int ret = 0;

	if (!sb_nl_open(&nl)) {
		if (!sb_get_status(&nl, &st) && st.ntypes)
			ntypes = st.ntypes;
		sb_nl_close(&nl);
	}
	/* sb_rp_resolve() maps "big" in place: work on a copy */
	set.rules = malloc((set.n ? set.n : 1) * sizeof(*set.rules));
	if (!set.rules) {
		sb_rp_error_text(err, "out of memory");
		return SB_EXIT_ERR;
	}
	if (set.n)
		memcpy(set.rules, parsed->rules, set.n * sizeof(*set.rules));
	if (sb_rp_resolve(&set, ntypes, err)) {
		ret = SB_EXIT_USAGE;
	} else {
		memset(&nl, 0, sizeof(nl));	/* only measured, never sent */
		if (build_load(&m, &nl, &set, ntypes, NULL, err))
			ret = SB_EXIT_USAGE;
		sb_msg_free(&m);
	}
	free(set.rules);
	return ret;
}

/* The kernel refused the load @ret: name the rule its extack points into. */
static int load_refused(struct sb_nl *nl, const struct sb_rp_set *set,
			const size_t *offs, int ret)
{
	size_t i;

	for (i = 0; nl->extack_off >= 0 && i < set->n; i++) {
		if ((size_t)nl->extack_off >= offs[i] &&
		    (size_t)nl->extack_off < offs[i + 1]) {
			sb_err("kernel rejected the rule at %s", set->rules[i].source);
			break;
		}
	}
	ret = sb_fail(nl, ret, "rules load");
	if (ret != SB_EXIT_PERM)
		sb_err("the previous rules remain in force");
	return ret;
}

/* What was loaded from where: @paths, or with --system (NULL) the layers. */
static void print_loaded(const struct sb_rp_set *set, int n, char **paths)
{
	static const char *const dirs[] = SB_RP_SYSTEM_DIRS;
	char dir[4096];
	int i;

	if (!sb_json) {
		printf("loaded %zu rule%s\n", set->n, set->n == 1 ? "" : "s");
		return;
	}
	sb_js_obj_begin(NULL);
	sb_js_uint("loaded", set->n);
	sb_js_arr_begin("paths");
	for (i = 0; !paths && i < (int)SB_ARRAY_SIZE(dirs); i++) {
		snprintf(dir, sizeof(dir), "%s%s", sys_root, dirs[i]);
		sb_js_str(NULL, dir);
	}
	for (i = 0; paths && i < n; i++)
		sb_js_str(NULL, paths[i]);
	sb_js_arr_end();
	sb_js_obj_end();
}

static int rules_load(int n, char **paths)
{
	struct sb_rp_set set = { .rules = NULL };
	struct sb_status st;
	struct sb_rp_error err;
	struct sb_nl nl;
	struct sb_msg m;
	size_t *offs = NULL;
	int ret;

	ret = parse_all(&set, n, paths, NULL);
	if (ret)
		goto out_free;
	ret = sb_connect(&nl);
	if (ret)
		goto out_free;
	ret = sb_get_status(&nl, &st);
	if (ret) {
		ret = sb_fail(&nl, ret, "reading status");
		goto out;
	}
	if (sb_rp_resolve(&set, st.ntypes, &err)) {
		print_errors(&err);
		ret = SB_EXIT_USAGE;
		goto out;
	}
	if (!st.ntypes)
		st.ntypes = 1;
	offs = calloc(set.n + 1, sizeof(*offs));
	if (!offs) {
		ret = sb_fail(&nl, -ENOMEM, "rules load");
		goto out;
	}
	if (build_load(&m, &nl, &set, st.ntypes, offs, &err)) {
		print_errors(&err);
		sb_msg_free(&m);
		ret = SB_EXIT_USAGE;
		goto out;
	}
	ret = sb_request(&nl, &m, NULL, NULL);
	sb_msg_free(&m);
	if (ret) {
		ret = load_refused(&nl, &set, offs, ret);
		goto out;
	}
	if (nl.extack[0])
		sb_err("note from the kernel: %s", nl.extack);
	print_loaded(&set, n, paths);
out:
	sb_nl_close(&nl);
out_free:
	free(offs);
	sb_rp_free(&set);
	return ret;
}

static int rules_check(int n, char **paths, int print)
{
	struct sb_rp_set set = { .rules = NULL };
	struct errs errs = { NULL, 0, 0 };
	struct sb_rp_error err;
	char line[1024];
	size_t i;
	int ret;

	ret = parse_all(&set, n, paths, sb_json ? &errs : NULL);
	if (!ret) {
		ret = check_as_load(&set, &err);
		if (ret && sb_json)
			keep_errors(&errs, &err);
		else if (ret)
			print_errors(&err);
	}
	/* {"ok":..,"count":..,...,"errors":[...]}, as config check has it */
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_bool("ok", !ret);
		sb_js_uint("count", ret ? 0 : set.n);
		sb_js_uint("skipped", set.skipped);
		sb_js_uint("overridden", set.overridden);
		json_errors(&errs);
		if (print && !ret) {	/* the rules only when asked for, as without --json */
			sb_js_arr_begin("rules");
			for (i = 0; i < set.n; i++) {
				sb_rp_format_rule(&set.rules[i], line, sizeof(line));
				sb_js_obj_begin(NULL);
				sb_js_str("rule", line);
				sb_js_str("source", set.rules[i].source);
				sb_js_obj_end();
			}
			sb_js_arr_end();
		}
		sb_js_obj_end();
	} else if (!ret) {
		for (i = 0; print && i < set.n; i++) {
			sb_rp_format_rule(&set.rules[i], line, sizeof(line));
			printf("%s\t# %s\n", line, set.rules[i].source);
		}
		if (!print && set.overridden)
			printf("%zu rule%s OK (%u replaced by a later file)\n", set.n,
			       set.n == 1 ? "" : "s", set.overridden);
		else if (!print)
			printf("%zu rule%s OK\n", set.n, set.n == 1 ? "" : "s");
	}
	sb_rp_free(&set);
	return ret;
}

/* One SBRIDGE_A_RULE nest's attributes as a rule; returns its factors. */
static int decode_rule(const struct nlattr *const *tb, struct sb_rp_rule *r)
{
	const struct nlattr *f;
	int rem, t = 0;

	memset(r, 0, sizeof(*r));
	r->match = sb_u32(tb[SBRIDGE_A_RULE_MATCH], 0);
	r->cls = sb_u32(tb[SBRIDGE_A_RULE_CLASS], 0);
	r->pref = sb_u32(tb[SBRIDGE_A_RULE_PREF], 0);
	snprintf(r->pattern, sizeof(r->pattern), "%s", sb_str(tb[SBRIDGE_A_RULE_PATTERN]));
	snprintf(r->source, sizeof(r->source), "%s", sb_str(tb[SBRIDGE_A_RULE_SOURCE]));
	if (tb[SBRIDGE_A_RULE_FACTORS]) {
		sb_for_each_nested(f, tb[SBRIDGE_A_RULE_FACTORS], rem) {
			if (t < SBRIDGE_MAX_CORE_TYPES)
				r->factors[t++] = sb_u32(f, 0);
		}
	}
	return t;
}

/* Turns one SBRIDGE_A_RULE nest (or loose SBRIDGE_A_RULE_* attributes). */
static void list_one(const struct nlattr *const *tb, unsigned int ntypes)
{
	struct sb_rp_rule r;
	const struct nlattr *h = tb[SBRIDGE_A_RULE_HITS];
	unsigned long long hits = sb_u64(h, 0);
	char line[1024], note[sizeof(r.source) + 40];
	int rem, t = decode_rule(tb, &r);

	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_str("match", sb_rp_match_name(r.match));
		sb_js_str("pattern", r.pattern);
		sb_js_str("class", sb_rp_class_name(r.cls));
		sb_js_str("prefer", sb_rp_pref_name(r.pref));
		sb_js_arr_begin("factors");
		for (rem = 0; rem < t; rem++)
			sb_js_fp(NULL, r.factors[rem]);
		sb_js_arr_end();
		sb_js_str("source", r.source);
		if (h)
			sb_js_uint("hits", hits);
		sb_js_obj_end();
		return;
	}
	/* Name the highest type "big", as rule files do. */
	if (ntypes > 1 && ntypes <= SBRIDGE_MAX_CORE_TYPES && r.factors[ntypes - 1]) {
		r.big = r.factors[ntypes - 1];
		r.factors[ntypes - 1] = 0;
	}
	sb_rp_format_rule(&r, line, sizeof(line));
	if (h)
		snprintf(note, sizeof(note), "%s%s%llu hit%s", r.source,
			 r.source[0] ? ", " : "", hits, hits == 1 ? "" : "s");
	else
		snprintf(note, sizeof(note), "%s", r.source);
	if (note[0])
		printf("%s\t# %s\n", line, note);
	else
		printf("%s\n", line);
}

/* Each rule of a RULES_GET reply to @fn. */
static int each_rule(const struct sb_attrs *at,
		     int (*fn)(const struct nlattr *const *tb, void *arg), void *arg)
{
	const struct nlattr *tb[SBRIDGE_A_MAX + 1], *a;
	int rem, ret = 0;

	if (at->a[SBRIDGE_A_RULES]) {
		sb_for_each_nested(a, at->a[SBRIDGE_A_RULES], rem) {
			sb_parse(tb, SBRIDGE_A_MAX, sb_nla_data(a), sb_nla_len(a));
			ret = fn(tb, arg);
			if (ret)
				return ret;
		}
	} else if (at->a[SBRIDGE_A_RULE]) {
		a = at->a[SBRIDGE_A_RULE];
		sb_parse(tb, SBRIDGE_A_MAX, sb_nla_data(a), sb_nla_len(a));
		ret = fn(tb, arg);
	} else if (at->a[SBRIDGE_A_RULE_MATCH]) {
		ret = fn(at->a, arg);
	}
	return ret;
}

static int list_rule(const struct nlattr *const *tb, void *arg)
{
	list_one(tb, *(unsigned int *)arg);
	return 0;
}

static int list_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	(void)cmd;
	return each_rule(at, list_rule, arg);
}

static int keep_rule(const struct nlattr *const *tb, void *arg)
{
	struct sb_rp_set *set = arg;
	struct sb_rp_rule *nr = sb_grow(set->rules, &set->cap, set->n, sizeof(*nr), 64);

	if (!nr)
		return -ENOMEM;
	set->rules = nr;
	decode_rule(tb, &set->rules[set->n++]);
	return 0;
}

static int keep_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	(void)cmd;
	return each_rule(at, keep_rule, arg);
}

int rules_get(struct sb_nl *nl, struct sb_rp_set *set)
{
	return sb_get(nl, SBRIDGE_CMD_RULES_GET, 1, keep_cb, set);
}

static int rules_list(void)
{
	struct sb_status st;
	struct sb_nl nl;
	struct sb_msg m;
	int ret;

	ret = sb_connect(&nl);
	if (ret)
		return ret;
	if (sb_get_status(&nl, &st))
		st.ntypes = 0;
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_arr_begin("rules");
	}
	sb_msg_init(&m, &nl, SBRIDGE_CMD_RULES_GET, 1);
	ret = sb_request(&nl, &m, list_cb, &st.ntypes);
	sb_msg_free(&m);
	if (sb_json) {
		sb_js_arr_end();
		sb_js_obj_end();
	}
	if (ret)
		ret = sb_fail(&nl, ret, "rules list");
	sb_nl_close(&nl);
	return ret;
}

static int rules_clear(void)
{
	struct sb_nl nl;
	struct sb_msg m;
	int ret;

	ret = sb_connect(&nl);
	if (ret)
		return ret;
	sb_msg_init(&m, &nl, SBRIDGE_CMD_RULES_CLEAR, 0);
	ret = sb_request(&nl, &m, NULL, NULL);
	sb_msg_free(&m);
	if (ret) {
		ret = sb_fail(&nl, ret, "rules clear");
	} else if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_bool("cleared", 1);
		sb_js_obj_end();
	} else {
		printf("rules cleared\n");
	}
	sb_nl_close(&nl);
	return ret;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "print", no_argument, NULL, 'p' },
		{ "system", no_argument, NULL, 's' },
		{ "root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int c, print = 0, sys = 0;
	const char *sub, *root = "";

	while ((c = sb_getopt(argc, argv, "p", opts, rules_help)) != -1) {
		if (c == 'p')
			print = 1;
		else if (c == 's')
			sys = 1;
		else if (c == 'r')
			root = optarg;
		else
			return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return sb_usage(rules_help, "missing action (load, list, clear or check)");
	sub = argv[0];
	if (print && strcmp(sub, "check"))
		return sb_usage(rules_help, "--print is for rules check");
	if ((sys || *root) && strcmp(sub, "load") && strcmp(sub, "check"))
		return sb_usage(rules_help, "--system and --root are for rules load and check");
	if (*root && !sys)
		return sb_usage(rules_help, "--root goes with --system");
	if (!strcmp(sub, "load") || !strcmp(sub, "check")) {
		if (sys) {
			if (argc > 1)
				return sb_usage(rules_help, "--system takes no PATH");
			sys_root = root;
			return sub[0] == 'l' ? rules_load(1, NULL) : rules_check(1, NULL, print);
		}
		if (argc < 2)
			return sb_usage(rules_help, "rules %s needs at least one PATH", sub);
		return sub[0] == 'l' ? rules_load(argc - 1, argv + 1) :
				       rules_check(argc - 1, argv + 1, print);
	}
	if (!strcmp(sub, "list") || !strcmp(sub, "clear")) {
		if (argc > 1)
			return sb_usage(rules_help, "rules %s takes no arguments", sub);
		return sub[1] == 'i' ? rules_list() : rules_clear();
	}
	return sb_usage(rules_help, "unknown action '%s' (load, list, clear or check)",
			sub);
}
