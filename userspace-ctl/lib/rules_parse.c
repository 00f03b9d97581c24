// SPDX-License-Identifier: GPL-2.0
/*
 * Rule-file parser. Everything is parsed and checked before anything is
 * sent, so that a load is all-or-nothing from the tool's side too; the
 * kernel validates again. Grammar and semantics: rules/README.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "readfile.h"
#include "rules_parse.h"

struct sb_rp_open {
	dev_t dev;
	ino_t ino;
};

struct sb_rp_ctx {
	struct sb_rp_set *set;
	struct sb_rp_error *err;
	int fatal;			/* no use going on (no memory, set full) */
	uint32_t layer;			/* sb_rp_parse_system(): the file being read */
	const char *root;		/* sb_rp_parse_system(): user names from here */
	int depth;			/* files currently open */
	struct sb_rp_open open[SB_RP_MAX_DEPTH + 2];
};

/* Where an include directive sits, for messages about the included path. */
struct sb_rp_loc {
	const char *name;
	unsigned int line, col;
};

static void set_err(struct sb_rp_error *err, const struct sb_rp_loc *at,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* With ":LINE:COL: " and "..." a message still has room for the last 80
 * bytes of its file name. */
_Static_assert(sizeof(((struct sb_rp_error *)0)->msg) >=
	       SB_RP_TEXT_LEN + sizeof(":4294967295:4294967295: ") + 3 + 80,
	       "sb_rp_error.msg too short for a clipped file name");

/*
 * "name:line:col: text" (or "name: text") in @out: the whole text always,
 * and of a name too long for what is left its tail, where the file name
 * is, after "..." (never from inside a UTF-8 sequence).
 */
static void err_line(char *out, size_t len, const struct sb_rp_loc *at,
		     const char *text)
{
	const char *name = at->name;
	size_t nl = strlen(name), room;
	char pos[32];

	if (at->line)
		snprintf(pos, sizeof(pos), ":%u:%u: ", at->line, at->col);
	else
		snprintf(pos, sizeof(pos), ": ");
	room = len - 1 - strlen(pos) - strlen(text);
	if (nl <= room) {
		snprintf(out, len, "%s%s%s", name, pos, text);
		return;
	}
	name += nl - (room - 3);
	while ((*name & 0xc0) == 0x80)
		name++;
	snprintf(out, len, "...%s%s%s", name, pos, text);
}

static void set_err(struct sb_rp_error *err, const struct sb_rp_loc *at,
		    const char *fmt, ...)
{
	char text[SB_RP_TEXT_LEN], line[sizeof(err->msg)];
	va_list ap;
	size_t o;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (at)
		err_line(line, sizeof(line), at, text);
	else
		snprintf(line, sizeof(line), "%s", text);
	if (err->n < SB_RP_MAX_ERRORS) {
		struct sb_rp_error_at *e = &err->at[err->n];
		const char *name = at ? at->name : "";
		size_t nl = strlen(name);

		/* the tail of a long name, where the file name is */
		if (nl >= sizeof(e->file)) {
			name += nl - (sizeof(e->file) - 4);
			while ((*name & 0xc0) == 0x80)
				name++;
			snprintf(e->file, sizeof(e->file), "...%s", name);
		} else {
			memcpy(e->file, name, nl + 1);
		}
		e->line = at ? at->line : 0;
		e->col = at && at->line ? at->col : 0;
		memcpy(e->text, text, sizeof(e->text));
	}
	/* the first is @msg; later ones are lines of @more while they fit */
	if (!err->n++) {
		memcpy(err->msg, line, sizeof(err->msg));
		return;
	}
	o = strlen(err->more);
	if (o + strlen(line) + 2 < sizeof(err->more))
		snprintf(err->more + o, sizeof(err->more) - o, "%s%s", o ? "\n" : "", line);
}

static void sb_rp_error_reset(struct sb_rp_error *err)
{
	err->msg[0] = '\0';
	err->more[0] = '\0';
	err->n = 0;
	err->oom = 0;
}

void sb_rp_error_text(struct sb_rp_error *err, const char *fmt, ...)
{
	char text[SB_RP_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sb_rp_error_reset(err);
	set_err(err, NULL, "%s", text);
}

/*
 * Short printable form of user text for messages, from four rotating
 * buffers: its first 44 bytes, or (@end, for paths, where the file name
 * is) its last 44.
 */
static const char *clip_text(const char *s, int end)
{
	static char buf[4][64];
	static int which;
	char *b = buf[which = (which + 1) % 4];
	size_t n = strlen(s);

	if (n < 48)
		return s;
	if (end)
		snprintf(b, sizeof(buf[0]), "...%s", s + n - 44);
	else
		snprintf(b, sizeof(buf[0]), "%.44s...", s);
	return b;
}

static const char *clip(const char *s)
{
	return clip_text(s, 0);
}

static const char *clip_path(const char *s)
{
	return clip_text(s, 1);
}

const char *sb_rp_match_name(uint32_t match)
{
	switch (match) {
	case SBRIDGE_MATCH_COMM: return "comm";
	case SBRIDGE_MATCH_EXE: return "exe";
	case SBRIDGE_MATCH_CGROUP: return "cgroup";
	case SBRIDGE_MATCH_UID: return "uid";
	}
	return "?";
}

const char *sb_rp_class_name(uint32_t cls)
{
	switch (cls) {
	case SBRIDGE_CLASS_AUTO: return "auto";
	case SBRIDGE_CLASS_COMPUTE: return "compute";
	case SBRIDGE_CLASS_MEMORY: return "memory";
	}
	return "?";
}

const char *sb_rp_pref_name(uint32_t pref)
{
	switch (pref) {
	case SBRIDGE_PREF_NONE: return "none";
	case SBRIDGE_PREF_BIG: return "big";
	case SBRIDGE_PREF_LITTLE: return "little";
	case SBRIDGE_PREF_EXCLUDE: return "exclude";
	}
	return "?";
}

void sb_rp_format_rule(const struct sb_rp_rule *r, char *buf, size_t len)
{
	char num[32];
	size_t o;
	int i, first = 1;

	snprintf(buf, len, "%s=", sb_rp_match_name(r->match));
	sb_rp_quote(buf, len, r->pattern);
	o = strlen(buf);
	if (r->pref == SBRIDGE_PREF_EXCLUDE) {
		snprintf(buf + o, len - o, " exclude");
		return;
	}
	if (r->cls != SBRIDGE_CLASS_AUTO) {
		snprintf(buf + o, len - o, " class=%s", sb_rp_class_name(r->cls));
		o = strlen(buf);
	}
	if (r->pref != SBRIDGE_PREF_NONE) {
		snprintf(buf + o, len - o, " prefer=%s", sb_rp_pref_name(r->pref));
		o = strlen(buf);
	}
	for (i = 0; i <= SBRIDGE_MAX_CORE_TYPES; i++) {
		uint32_t f = i < SBRIDGE_MAX_CORE_TYPES ? r->factors[i] : r->big;
		char type[16];

		if (!f)
			continue;
		if (i == SBRIDGE_MAX_CORE_TYPES)
			snprintf(type, sizeof(type), "big");
		else if (i == 0)
			snprintf(type, sizeof(type), "little");
		else
			snprintf(type, sizeof(type), "%d", i);
		sb_format_fp(f, num, sizeof(num));
		snprintf(buf + o, len - o, "%s%s=%s", first ? " factor " : " ",
			 type, num);
		o = strlen(buf);
		first = 0;
	}
	/* A rule that only restates the defaults still needs an action. */
	if (r->cls == SBRIDGE_CLASS_AUTO && r->pref == SBRIDGE_PREF_NONE && first)
		snprintf(buf + o, len - o, " class=auto");
}

static int type_index(const char *name, int *idx)
{
	if (!strcmp(name, "little")) {
		*idx = 0;
		return 0;
	}
	if (!strcmp(name, "big")) {
		*idx = SBRIDGE_MAX_CORE_TYPES;	/* resolved by sb_rp_resolve() */
		return 0;
	}
	if (name[0] >= '0' && name[0] <= '9' && !name[1]) {
		*idx = name[0] - '0';
		return 0;
	}
	return -1;
}

static int add_rule(struct sb_rp_ctx *cx, const struct sb_rp_rule *r,
		    const struct sb_rp_loc *at)
{
	struct sb_rp_set *set = cx->set;
	struct sb_rp_rule *nr;
	size_t i;

	if (set->n >= SBRIDGE_MAX_RULES) {
		cx->fatal = 1;
		set_err(cx->err, at, "too many rules (at most %u)",
			SBRIDGE_MAX_RULES);
		return -1;
	}
	for (i = 0; i < set->n; i++) {
		if (set->rules[i].match == r->match &&
		    !strcmp(set->rules[i].pattern, r->pattern)) {
			/* a later file of a layered set wins, in the old place */
			if (cx->layer && set->rules[i].layer < cx->layer) {
				set->rules[i] = *r;
				set->rules[i].layer = cx->layer;
				set->overridden++;
				return 0;
			}
			set_err(cx->err, at, "duplicate rule for %s=%s (first at %s)",
				sb_rp_match_name(r->match), clip(r->pattern),
				set->rules[i].source);
			return -1;
		}
	}
	nr = sb_grow(set->rules, &set->cap, set->n, sizeof(*nr), 64);
	if (!nr) {
		cx->fatal = 1;
		set_err(cx->err, at, "out of memory");
		cx->err->oom = 1;
		return -1;
	}
	set->rules = nr;
	set->rules[set->n] = *r;
	set->rules[set->n++].layer = cx->layer;
	return 0;
}

static int parse_path(struct sb_rp_ctx *cx, const char *path,
		      const struct sb_rp_loc *from);

static int do_include(struct sb_rp_ctx *cx, const char *name,
		      const struct sb_rp_line *ln, struct sb_rp_loc *at)
{
	char path[4096];
	const char *arg, *slash;

	if (ln->n != 2 || ln->tok[0].val || ln->tok[1].val) {
		set_err(cx->err, at, "include takes exactly one path (quote it if it has spaces or '=')");
		return -1;
	}
	arg = ln->tok[1].key;
	at->col = ln->tok[1].col;
	if (!*arg) {
		set_err(cx->err, at, "empty include path");
		return -1;
	}
	slash = strrchr(name, '/');
	if (arg[0] == '/' || !slash) {
		if (snprintf(path, sizeof(path), "%s", arg) >= (int)sizeof(path))
			goto too_long;
	} else if (snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - name),
			    name, arg) >= (int)sizeof(path)) {
		goto too_long;
	}
	if (cx->depth > SB_RP_MAX_DEPTH) {
		set_err(cx->err, at, "includes nested more than %d deep", SB_RP_MAX_DEPTH);
		return -1;
	}
	return parse_path(cx, path, at);
too_long:
	set_err(cx->err, at, "include path too long");
	return -1;
}

static const struct {
	const char *key;
	uint32_t match;
} sb_rp_matches[] = {
	{ "comm", SBRIDGE_MATCH_COMM },
	{ "exe", SBRIDGE_MATCH_EXE },
	{ "cgroup", SBRIDGE_MATCH_CGROUP },
	{ "uid", SBRIDGE_MATCH_UID },
};

/* The match a rule's first word names, 0 if none. */
static uint32_t match_kind(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(sb_rp_matches) / sizeof(*sb_rp_matches); i++)
		if (!strcmp(key, sb_rp_matches[i].key))
			return sb_rp_matches[i].match;
	return 0;
}

int sb_rp_user_uid(const char *root, const char *user, unsigned long long *uid)
{
	char path[2048];
	struct passwd *pw;
	FILE *in;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/etc/passwd", root ? root : "");
	in = fopen(path, "re");
	if (!in)
		return -1;
	while ((pw = fgetpwent(in)))
		if (!strcmp(pw->pw_name, user)) {
			*uid = pw->pw_uid;
			ret = 0;
			break;
		}
	fclose(in);
	return ret;
}

/* uid=N or uid=NAME into the decimal pattern the kernel takes. */
static int parse_uid(struct sb_rp_ctx *cx, const char *v, const struct sb_rp_loc *at,
		     struct sb_rp_rule *r)
{
	unsigned long long uid;
	char *end;

	if (v[0] >= '0' && v[0] <= '9') {
		errno = 0;
		uid = strtoull(v, &end, 10);
		/* (uid_t)-1 is "no uid" to the kernel */
		if (errno || *end || uid >= 0xffffffffULL) {
			set_err(cx->err, at, "bad uid '%s' (a number below 4294967295 or a user name)",
				clip(v));
			return -1;
		}
	} else if (sb_rp_user_uid(cx->root, v, &uid)) {
		set_err(cx->err, at, "unknown user '%s' (not in %s/etc/passwd; give the number)",
			clip(v), cx->root ? clip_path(cx->root) : "");
		return -1;
	}
	snprintf(r->pattern, sizeof(r->pattern), "%llu", uid);
	return 0;
}

/* The first word: what the rule matches, checked as the kernel will. */
static int parse_match(struct sb_rp_ctx *cx, const struct sb_rp_token *t,
		       struct sb_rp_loc *at, struct sb_rp_rule *r)
{
	const char *v = t->val;
	size_t vl = v ? strlen(v) : 0;
	int slash = 0;

	at->col = t->col;
	r->match = v ? match_kind(t->key) : 0;
	if (!r->match) {
		set_err(cx->err, at, "a rule starts with comm=NAME, exe=/PATH, cgroup=/PATH or uid=USER (got '%s')",
			clip(t->key));
		return -1;
	}
	at->col = t->vcol;
	if (!vl) {
		set_err(cx->err, at, "empty %s", t->key);
		return -1;
	}
	switch (r->match) {
	case SBRIDGE_MATCH_COMM:
		if (vl >= SBRIDGE_KEY_LEN) {
			set_err(cx->err, at, "comm '%s' is longer than %d bytes (the kernel truncates task names; use exe=)",
				clip(v), SBRIDGE_KEY_LEN - 1);
			return -1;
		}
		break;
	case SBRIDGE_MATCH_EXE:
		if (v[0] != '/') {
			set_err(cx->err, at, "exe must be an absolute path starting with '/'");
			return -1;
		}
		break;
	case SBRIDGE_MATCH_CGROUP:
		/* as the kernel takes it; spelt one way so duplicates show */
		slash = v[0] != '/';
		break;
	case SBRIDGE_MATCH_UID:
		return parse_uid(cx, v, at, r);
	}
	if (vl + slash >= SBRIDGE_PATH_LEN) {
		set_err(cx->err, at, "path longer than %d bytes", SBRIDGE_PATH_LEN - 1);
		return -1;
	}
	r->pattern[0] = '/';
	memcpy(r->pattern + slash, v, vl + 1);
	return 0;
}

/* The values a class= or prefer= action takes. */
struct sb_rp_word {
	const char *name;
	uint32_t val;
};

struct sb_rp_words {
	const char *key, *kind;		/* "class", what an unknown one is */
	struct sb_rp_word w[4];		/* ends with a NULL name */
};

static const struct sb_rp_words sb_rp_classes = {
	"class", "class", {
		{ "compute", SBRIDGE_CLASS_COMPUTE },
		{ "memory", SBRIDGE_CLASS_MEMORY },
		{ "auto", SBRIDGE_CLASS_AUTO },
		{ NULL, 0 } },
};

static const struct sb_rp_words sb_rp_prefs = {
	"prefer", "preference", {
		{ "big", SBRIDGE_PREF_BIG },
		{ "little", SBRIDGE_PREF_LITTLE },
		{ "none", SBRIDGE_PREF_NONE },
		{ NULL, 0 } },
};

/* KEY=WORD with WORD one of @ws, given once (@seen: times before). */
static int parse_word(struct sb_rp_ctx *cx, const struct sb_rp_token *t, struct sb_rp_loc *at,
		      const struct sb_rp_words *ws, int seen, uint32_t *out)
{
	const struct sb_rp_word *w;

	if (seen) {
		set_err(cx->err, at, "%s given twice", ws->key);
		return -1;
	}
	if (!t->val) {
		set_err(cx->err, at, "%s needs a value: %s=%s|%s|%s", ws->key, ws->key,
			ws->w[0].name, ws->w[1].name, ws->w[2].name);
		return -1;
	}
	at->col = t->vcol;
	for (w = ws->w; w->name; w++)
		if (!strcmp(t->val, w->name)) {
			*out = w->val;
			return 0;
		}
	set_err(cx->err, at, "unknown %s '%s' (expected %s, %s or %s)", ws->kind,
		clip(t->val), ws->w[0].name, ws->w[1].name, ws->w[2].name);
	return -1;
}

/*
 * "factor TYPE=VALUE..." from the token at *@i on; *@i ends on the last
 * pair taken.
 */
static int parse_factors(struct sb_rp_ctx *cx, const struct sb_rp_line *ln, unsigned int *i,
			 struct sb_rp_loc *at, struct sb_rp_rule *r)
{
	const struct sb_rp_token *t = &ln->tok[*i];
	unsigned int fmask = 0;
	const char *why;
	int got = 0;

	if (t->val) {
		set_err(cx->err, at, "write factors as 'factor TYPE=VALUE ...', e.g. factor little=1.7 big=1.0");
		return -1;
	}
	while (*i + 1 < ln->n && ln->tok[*i + 1].val) {
		const struct sb_rp_token *f = &ln->tok[*i + 1];
		uint32_t v;
		int idx;

		if (type_index(f->key, &idx))
			break;
		(*i)++;
		at->col = f->col;
		/* digits 4-9 parse as indices; only 0-3 exist */
		if (f->key[0] != 'b' && idx >= SBRIDGE_MAX_CORE_TYPES) {
			set_err(cx->err, at, "core type index %s out of range (0-%d)",
				f->key, SBRIDGE_MAX_CORE_TYPES - 1);
			return -1;
		}
		if (fmask & (1u << idx)) {
			set_err(cx->err, at, "factor for core type %s given twice", f->key);
			return -1;
		}
		fmask |= 1u << idx;
		at->col = f->vcol;
		if (!strcmp(f->val, "learn")) {
			v = 0;
		} else if (sb_parse_fp(f->val, &v, &why)) {
			set_err(cx->err, at, "bad factor '%s': %s", clip(f->val), why);
			return -1;
		} else if (v < SBRIDGE_FACTOR_MIN || v > SBRIDGE_FACTOR_MAX) {
			set_err(cx->err, at, "factor %s out of range (0.125 to 8, or learn)",
				clip(f->val));
			return -1;
		}
		if (idx == SBRIDGE_MAX_CORE_TYPES)
			r->big = v;
		else
			r->factors[idx] = v;
		got++;
	}
	if (!got) {
		at->col = t->col;
		set_err(cx->err, at, "factor needs TYPE=VALUE pairs, e.g. factor little=1.7 big=1.0 (types: little, big, 0-%d)",
			SBRIDGE_MAX_CORE_TYPES - 1);
		return -1;
	}
	return 0;
}

/* "file:line" of a rule, keeping the file name's tail if too long. */
static void rule_source(struct sb_rp_rule *r, const char *name, unsigned int lineno)
{
	char num[16];
	size_t nl = strlen(name), room;

	snprintf(num, sizeof(num), ":%u", lineno);
	room = sizeof(r->source) - 1 - strlen(num);
	snprintf(r->source, sizeof(r->source), "%s%s%s",
		 nl > room ? "..." : "", nl > room ? name + nl - room + 3 : name, num);
}

/* The actions a rule's line gave so far: times each was given. */
struct sb_rp_seen {
	int cls, pref, excl, factor;
};

/*
 * One action of a rule, the token at *@i; an action that takes the tokens
 * after it (factor) leaves *@i on the last one it took.
 */
typedef int sb_rp_action_fn(struct sb_rp_ctx *cx, const struct sb_rp_line *ln,
			 unsigned int *i, struct sb_rp_loc *at, struct sb_rp_rule *r,
			 struct sb_rp_seen *seen);

static int act_class(struct sb_rp_ctx *cx, const struct sb_rp_line *ln,
		     unsigned int *i, struct sb_rp_loc *at, struct sb_rp_rule *r,
		     struct sb_rp_seen *seen)
{
	return parse_word(cx, &ln->tok[*i], at, &sb_rp_classes, seen->cls++,
			  &r->cls);
}

static int act_prefer(struct sb_rp_ctx *cx, const struct sb_rp_line *ln,
		      unsigned int *i, struct sb_rp_loc *at, struct sb_rp_rule *r,
		      struct sb_rp_seen *seen)
{
	return parse_word(cx, &ln->tok[*i], at, &sb_rp_prefs, seen->pref++,
			  &r->pref);
}

static int act_exclude(struct sb_rp_ctx *cx, const struct sb_rp_line *ln,
		       unsigned int *i, struct sb_rp_loc *at, struct sb_rp_rule *r,
		       struct sb_rp_seen *seen)
{
	(void)r;
	if (ln->tok[*i].val) {
		set_err(cx->err, at, "exclude takes no value");
		return -1;
	}
	if (seen->excl++) {
		set_err(cx->err, at, "exclude given twice");
		return -1;
	}
	return 0;
}

static int act_factor(struct sb_rp_ctx *cx, const struct sb_rp_line *ln,
		      unsigned int *i, struct sb_rp_loc *at, struct sb_rp_rule *r,
		      struct sb_rp_seen *seen)
{
	/* factor=X, a second one too, gets parse_factors()'s message */
	if (seen->factor++ && !ln->tok[*i].val) {
		set_err(cx->err, at, "factor given twice (list all types after one 'factor')");
		return -1;
	}
	return parse_factors(cx, ln, i, at, r);
}

static const struct {
	const char *key;
	sb_rp_action_fn *fn;
} sb_rp_actions[] = {
	{ "class", act_class },
	{ "prefer", act_prefer },
	{ "exclude", act_exclude },
	{ "factor", act_factor },
};

static sb_rp_action_fn *action_fn(const char *key)
{
	size_t k;

	for (k = 0; k < sizeof(sb_rp_actions) / sizeof(*sb_rp_actions); k++)
		if (!strcmp(key, sb_rp_actions[k].key))
			return sb_rp_actions[k].fn;
	return NULL;
}

/* Everything after the match: each action once, and exclude alone. */
static int parse_actions(struct sb_rp_ctx *cx, const struct sb_rp_line *ln,
			 struct sb_rp_loc *at, struct sb_rp_rule *r)
{
	struct sb_rp_seen seen = { 0, 0, 0, 0 };
	sb_rp_action_fn *fn;
	unsigned int i;

	for (i = 1; i < ln->n; i++) {
		const struct sb_rp_token *t = &ln->tok[i];

		at->col = t->col;
		fn = action_fn(t->key);
		if (fn) {
			if (fn(cx, ln, &i, at, r, &seen))
				return -1;
			continue;
		}
		if (match_kind(t->key))
			set_err(cx->err, at, "a rule matches one thing only; write one rule per %s",
				t->key);
		else
			set_err(cx->err, at, "unknown action '%s' (expected class=, prefer=, factor or exclude)",
				clip(t->key));
		return -1;
	}
	at->col = 1;
	if (!seen.cls && !seen.pref && !seen.excl && !seen.factor) {
		set_err(cx->err, at, "rule has no action (class=, prefer=, factor or exclude)");
		return -1;
	}
	if (seen.excl && (seen.cls || seen.pref || seen.factor)) {
		set_err(cx->err, at, "exclude cannot be combined with other actions");
		return -1;
	}
	if (seen.excl)
		r->pref = SBRIDGE_PREF_EXCLUDE;
	return 0;
}

static int parse_line(struct sb_rp_ctx *cx, const char *name, unsigned int lineno,
		      const char *line, size_t len)
{
	struct sb_rp_loc at = { name, lineno, 1 };
	struct sb_rp_line *ln;
	struct sb_rp_rule r;
	const char *why;
	unsigned int col;
	int ret = -1;

	if (len > SB_RP_MAX_LINE) {
		at.col = SB_RP_MAX_LINE + 1;
		set_err(cx->err, &at, "line too long (more than %d bytes)", SB_RP_MAX_LINE);
		return -1;
	}
	if (sb_rp_check_bytes((const unsigned char *)line, len, &col, &why)) {
		at.col = col;
		set_err(cx->err, &at, "%s", why);
		return -1;
	}
	ln = malloc(sizeof(*ln));
	if (!ln) {
		cx->fatal = 1;
		set_err(cx->err, &at, "out of memory");
		cx->err->oom = 1;
		return -1;
	}
	if (sb_rp_tokenize(line, len, ln, &col, &why)) {
		at.col = col;
		set_err(cx->err, &at, "%s", why);
	} else if (!ln->n) {
		ret = 0;
	} else if (!strcmp(ln->tok[0].key, "include") && !ln->tok[0].val) {
		at.col = ln->tok[0].col;
		ret = do_include(cx, name, ln, &at);
	} else {
		memset(&r, 0, sizeof(r));
		if (!parse_match(cx, &ln->tok[0], &at, &r) &&
		    !parse_actions(cx, ln, &at, &r)) {
			rule_source(&r, name, lineno);
			ret = add_rule(cx, &r, &at);
		}
	}
	free(ln);
	return ret;
}

/* Every line is parsed; a bad one is reported and the next one tried,
 * until SB_RP_MAX_ERRORS or an error no later line can help. */
static int parse_buf(struct sb_rp_ctx *cx, const char *name, const char *buf,
		     size_t len)
{
	unsigned int lineno = 0;
	size_t pos = 0;
	int bad = 0;

	/* editors on some systems start UTF-8 files with a byte order mark */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;

		if (++lineno == 0) {
			set_err(cx->err, NULL, "%s: too many lines", name);
			return -1;
		}
		if (parse_line(cx, name, lineno, buf + pos, end - pos)) {
			bad = -1;
			if (cx->fatal || cx->err->n >= SB_RP_MAX_ERRORS)
				break;
		}
		pos = end + 1;
	}
	return bad;
}

int sb_rp_parse_buffer(struct sb_rp_set *set, const char *name, const char *buf,
		    size_t len, struct sb_rp_error *err)
{
	struct sb_rp_ctx cx = { .set = set, .err = err, .depth = 1 };

	sb_rp_error_reset(err);
	return parse_buf(&cx, name, buf, len);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory entry to read: "NAME.rules" (@l: its length), NAME not empty. */
static int rules_name(const char *name, size_t l)
{
	return l >= 7 && !strcmp(name + l - 6, ".rules");
}

/* "DIR/NAME" into @out, one slash between them however DIR ends. */
static void join_path(char *out, size_t len, const char *dir, const char *name)
{
	size_t dl = strlen(dir);

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	snprintf(out, len, "%.*s/%s", (int)dl, dir, name);
}

/*
 * A directory entry that is not read: counted, and the first ones named.
 * A README (README, README.md, ...) is expected next to rules (the
 * project's rules/ has one) and left out of both.
 */
static void skip_entry(struct sb_rp_set *set, const char *dir, const char *name)
{
	char path[4096];
	size_t l;

	if (!strcmp(name, "README") || !strncmp(name, "README.", 7))
		return;
	if (set->skipped < SB_RP_SKIPPED_NAMES) {
		join_path(path, sizeof(path), dir, name);
		l = strlen(path);
		if (l < sizeof(set->skipped_name[0]))
			memcpy(set->skipped_name[set->skipped], path, l + 1);
		else
			snprintf(set->skipped_name[set->skipped], sizeof(set->skipped_name[0]),
				 "...%s", path + l - (sizeof(set->skipped_name[0]) - 4));
	}
	set->skipped++;
}

static int parse_dir(struct sb_rp_ctx *cx, const char *path,
		     const struct sb_rp_loc *from)
{
	struct sb_rp_loc at = { path, 0, 0 };
	char **names = NULL, **nn;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(path);

	if (!d) {
		set_err(cx->err, from, "cannot open directory '%s': %s",
			clip_path(path), strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		if (!rules_name(de->d_name, l)) {
			skip_entry(cx->set, path, de->d_name);
			continue;
		}
		nn = sb_grow(names, &cap, n, sizeof(*nn), 16);
		if (!nn) {
			ret = -1;
			cx->fatal = 1;
			set_err(cx->err, &at, "out of memory");
			cx->err->oom = 1;
			goto out;
		}
		names = nn;
		names[n] = malloc(strlen(path) + l + 2);
		if (!names[n]) {
			ret = -1;
			cx->fatal = 1;
			set_err(cx->err, &at, "out of memory");
			cx->err->oom = 1;
			goto out;
		}
		join_path(names[n++], strlen(path) + l + 2, path, de->d_name);
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n && !ret; i++)
		ret = parse_path(cx, names[i], from);
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

/* @buf (@len bytes, freed here), the file @dev/@ino, as one more open file. */
static int parse_opened(struct sb_rp_ctx *cx, const char *name, char *buf, size_t len,
			dev_t dev, ino_t ino)
{
	int ret;

	cx->open[cx->depth].dev = dev;
	cx->open[cx->depth].ino = ino;
	cx->depth++;
	ret = parse_buf(cx, name, buf, len);
	cx->depth--;
	free(buf);
	return ret;
}

/* "-" named on the command line: standard input. */
static int parse_stdin(struct sb_rp_ctx *cx)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	ret = fstat(0, &st) ? -errno :
	      sb_read_fd(0, &st, SB_RP_MAX_FILE, SB_READ_IDLE_MS, &buf, &len);
	if (ret) {
		set_err(cx->err, NULL, "cannot read standard input: %s",
			sb_read_strerror(ret, SB_RP_MAX_FILE, SB_READ_IDLE_MS));
		cx->err->oom |= ret == -ENOMEM;
		return -1;
	}
	return parse_opened(cx, "<stdin>", buf, len, 0, 0);
}

static int parse_path(struct sb_rp_ctx *cx, const char *path,
		      const struct sb_rp_loc *from)
{
	/* a file named on the command line: the message names it once */
	const struct sb_rp_loc *where = from;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, i, ret;

	if (!strcmp(path, "-") && !from)
		return parse_stdin(cx);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		set_err(cx->err, where, "cannot open '%s': %s", clip_path(path), strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		set_err(cx->err, where, "cannot stat '%s': %s", clip_path(path), strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return parse_dir(cx, path, from);
	}
	/* a pipe or terminal named on the command line (/dev/stdin,
	 * /dev/fd/N, a FIFO) is read to its end; an include must be a file */
	if (!S_ISREG(st.st_mode) && (from || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ||
					       S_ISSOCK(st.st_mode)))) {
		set_err(cx->err, where, "'%s' is not a regular file", clip_path(path));
		close(fd);
		return -1;
	}
	/* a terminal is read as it types; pipes are polled (sb_read_fd()) */
	if (S_ISCHR(st.st_mode))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	for (i = 0; i < cx->depth; i++) {
		if (cx->open[i].ino && cx->open[i].dev == st.st_dev &&
		    cx->open[i].ino == st.st_ino) {
			set_err(cx->err, where, "include cycle: '%s' is already being read",
				clip_path(path));
			close(fd);
			return -1;
		}
	}
	if (cx->depth > SB_RP_MAX_DEPTH) {
		set_err(cx->err, where, "includes nested more than %d deep", SB_RP_MAX_DEPTH);
		close(fd);
		return -1;
	}
	ret = sb_read_fd(fd, &st, SB_RP_MAX_FILE, SB_READ_IDLE_MS, &buf, &len);
	close(fd);
	if (ret) {
		set_err(cx->err, where, "cannot read '%s': %s", clip_path(path),
			sb_read_strerror(ret, SB_RP_MAX_FILE, SB_READ_IDLE_MS));
		cx->err->oom |= ret == -ENOMEM;
		return -1;
	}
	return parse_opened(cx, path, buf, len, st.st_dev, st.st_ino);
}

int sb_rp_parse_path(struct sb_rp_set *set, const char *path, struct sb_rp_error *err)
{
	struct sb_rp_ctx cx = { .set = set, .err = err };

	sb_rp_error_reset(err);
	return parse_path(&cx, path, NULL);
}

struct sb_rp_sysfile {
	char name[256];
	char path[4096];
	size_t dir;		/* index in SB_RP_SYSTEM_DIRS of the file that won */
};

/* the shipped directory first, the admin's last; by name within each */
static int cmp_sysfile(const void *a, const void *b)
{
	const struct sb_rp_sysfile *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return strcmp(x->name, y->name);
}

int sb_rp_parse_system(struct sb_rp_set *set, const char *root, struct sb_rp_error *err)
{
	static const char *const dirs[] = SB_RP_SYSTEM_DIRS;
	struct sb_rp_ctx cx = { .set = set, .err = err, .root = root };
	struct sb_rp_sysfile *f = NULL, *nf;
	size_t n = 0, cap = 0, i, k;
	char dir[2048];
	int ret = 0;

	sb_rp_error_reset(err);
	for (k = 0; k < sizeof(dirs) / sizeof(*dirs); k++) {
		struct dirent *de;
		DIR *d;

		if (snprintf(dir, sizeof(dir), "%s%s", root ? root : "", dirs[k]) >=
		    (int)sizeof(dir)) {
			set_err(err, NULL, "root '%s' is too long", clip_path(root));
			ret = -1;
			goto out;
		}
		d = opendir(dir);
		if (!d) {
			if (errno == ENOENT || errno == ENOTDIR)
				continue;	/* a layer nobody made */
			set_err(err, NULL, "cannot open directory '%s': %s",
				clip_path(dir), strerror(errno));
			ret = -1;
			goto out;
		}
		set->dirs++;
		while ((de = readdir(d))) {
			size_t l = strlen(de->d_name);

			if (de->d_name[0] == '.')
				continue;
			if (!rules_name(de->d_name, l) || l >= sizeof(f->name)) {
				skip_entry(set, dir, de->d_name);
				continue;
			}
			/* a later directory masks the same name in an earlier one */
			for (i = 0; i < n && strcmp(f[i].name, de->d_name); i++)
				;
			if (i == n) {
				nf = sb_grow(f, &cap, n, sizeof(*f), 32);
				if (!nf) {
					closedir(d);
					set_err(err, NULL, "out of memory");
					err->oom = 1;
					ret = -1;
					goto out;
				}
				f = nf;
				n++;
			}
			memcpy(f[i].name, de->d_name, l + 1);
			f[i].dir = k;
			snprintf(f[i].path, sizeof(f[i].path), "%s/%s", dir, de->d_name);
		}
		closedir(d);
	}
	if (n)
		qsort(f, n, sizeof(*f), cmp_sysfile);
	for (i = 0; i < n && !cx.fatal && err->n < SB_RP_MAX_ERRORS; i++) {
		cx.layer = (uint32_t)i + 1;
		if (parse_path(&cx, f[i].path, NULL))
			ret = -1;
	}
out:
	free(f);
	return ret;
}

/* An error about rule @r after the parse: placed at its "file:line". */
static void rule_err(struct sb_rp_error *err, const struct sb_rp_rule *r,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rule_err(struct sb_rp_error *err, const struct sb_rp_rule *r,
		     const char *fmt, ...)
{
	char text[SB_RP_TEXT_LEN], file[SB_RP_SRC_LEN];
	const char *colon = strrchr(r->source, ':');
	struct sb_rp_loc at = { file, 0, 0 };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(file, sizeof(file), "%.*s", colon ? (int)(colon - r->source) : 0,
		 r->source);
	if (colon)
		at.line = (unsigned int)strtoul(colon + 1, NULL, 10);
	set_err(err, NULL, "%s: %s", r->source, text);
	/* "file:line: text", as the message always read, and apart */
	snprintf(err->at[0].file, sizeof(err->at[0].file), "%s", at.name);
	err->at[0].line = at.line;
	memcpy(err->at[0].text, text, sizeof(text));
}

int sb_rp_resolve(struct sb_rp_set *set, unsigned int ntypes, struct sb_rp_error *err)
{
	size_t i;
	unsigned int t;

	sb_rp_error_reset(err);
	if (ntypes < 1)
		ntypes = 1;
	if (ntypes > SBRIDGE_MAX_CORE_TYPES)
		ntypes = SBRIDGE_MAX_CORE_TYPES;
	for (i = 0; i < set->n; i++) {
		struct sb_rp_rule *r = &set->rules[i];

		for (t = ntypes; t < SBRIDGE_MAX_CORE_TYPES; t++) {
			if (r->factors[t]) {
				rule_err(err, r, "factor for core type %u, but this system has %u core type%s (0-%u)",
					 t, ntypes, ntypes > 1 ? "s" : "", ntypes - 1);
				return -1;
			}
		}
		if (r->big) {
			/* With one core type "big" and "little" are the same
			 * type; an explicit little= wins there. */
			if (r->factors[ntypes - 1] && ntypes > 1) {
				rule_err(err, r, "factor for big and for core type %u given, which is the big type here",
					 ntypes - 1);
				return -1;
			}
			if (!r->factors[ntypes - 1])
				r->factors[ntypes - 1] = r->big;
			r->big = 0;
		}
	}
	return 0;
}

void sb_rp_free(struct sb_rp_set *set)
{
	free(set->rules);
	set->rules = NULL;
	set->n = set->cap = 0;
}
