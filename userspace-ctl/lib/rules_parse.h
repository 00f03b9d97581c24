/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rule-file parser: pure C, no netlink, so the host tests can run it under
 * ASan/UBSan. The format is documented in rules/README.md.
 */
#ifndef SBRIDGECTL_RULES_PARSE_H
#define SBRIDGECTL_RULES_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/sbridge.h>

#include "lex.h"
#include "readfile.h"

#define SB_RP_MAX_DEPTH	8		/* include nesting */
#define SB_RP_MAX_FILE	SB_READ_MAX	/* bytes per file (readfile.h) */
#define SB_RP_SRC_LEN	128		/* "file:line" sent as SBRIDGE_A_RULE_SOURCE */

/* One parsed rule; factors are fixed point (SBRIDGE_FP_ONE), 0 == learn. */
struct sb_rp_rule {
	uint32_t match;			/* enum sbridge_rule_match */
	uint32_t cls;			/* enum sbridge_task_class */
	uint32_t pref;			/* enum sbridge_pref */
	uint32_t factors[SBRIDGE_MAX_CORE_TYPES];
	uint32_t big;			/* factor for "big" (highest type), 0 == unset */
	char pattern[SBRIDGE_PATH_LEN];
	char source[SB_RP_SRC_LEN];
	uint32_t layer;			/* top file of a layered set, 0 if none */
};

#define SB_RP_SKIPPED_NAMES	8	/* skipped entries named in warnings */

struct sb_rp_set {
	struct sb_rp_rule *rules;
	size_t n, cap;
	unsigned int skipped;	/* directory entries not named *.rules */
	unsigned int overridden; /* rules a later file of a layered set replaced */
	/* the first skipped entries, as paths (a long one's tail) */
	char skipped_name[SB_RP_SKIPPED_NAMES][256];
	unsigned int dirs;	/* sb_rp_parse_system(): layer directories found */
};

/* Errors a parse stops after: a file full of mistakes is not a report. */
#define SB_RP_MAX_ERRORS	20

/* An error's text without its place; its file name's tail past this. */
#define SB_RP_TEXT_LEN	400
#define SB_RP_ERR_FILE	256

/* One error, taken apart (for --json): @file "" and @line, @col 0 if none. */
struct sb_rp_error_at {
	char file[SB_RP_ERR_FILE];
	unsigned int line, col;
	char text[SB_RP_TEXT_LEN];
};

/*
 * "file:line:column: message", or "file: message" when no line applies.
 * @msg is the first error; a parse goes on past a bad line, and every
 * later error is a line of @more; @n counts them all. @at holds the first
 * SB_RP_MAX_ERRORS of them taken apart. Running out of memory is an error,
 * never the end of a file, and sets @oom.
 */
struct sb_rp_error {
	char msg[512];
	char more[4096];
	unsigned int n;
	int oom;		/* one of them is running out of memory */
	struct sb_rp_error_at at[SB_RP_MAX_ERRORS];
};

/* Parse a file, a directory (its *.rules in name order; README and
 * README.* are left alone, other names counted in @set->skipped) or "-" (stdin),
 * appending to @set. Returns 0, or -1 with @err filled (every bad line,
 * up to SB_RP_MAX_ERRORS); on error @set may hold a partial result that the
 * caller must not use (only sb_rp_free it). */
int sb_rp_parse_path(struct sb_rp_set *set, const char *path, struct sb_rp_error *err);

/*
 * The system's layered rule set: every *.rules file of SB_RP_SYSTEM_DIRS
 * under @root ("" for /). A file masks any of the same name in the
 * directories before it, as in udev and systemd (one linked to /dev/null,
 * or empty, disables it). Files are read directory by directory, shipped
 * first and the admin's last, by name within each, and a rule matching
 * what an earlier file's rule matched replaces that rule where it stood:
 * the admin's rules win (a duplicate inside one file is still an error).
 */
#define SB_RP_SYSTEM_DIRS	{ "/usr/lib/sbridge/rules.d", "/run/sbridge/rules.d", \
			  "/etc/sbridge/rules.d" }
int sb_rp_parse_system(struct sb_rp_set *set, const char *root, struct sb_rp_error *err);

/* Parse an in-memory buffer named @name (used for messages and to resolve
 * relative includes). */
int sb_rp_parse_buffer(struct sb_rp_set *set, const char *name, const char *buf,
		    size_t len, struct sb_rp_error *err);

/* @err emptied, then one error without a place: the text of @fmt. */
void sb_rp_error_text(struct sb_rp_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Map "big" to type @ntypes - 1 and check every type index is < @ntypes. */
int sb_rp_resolve(struct sb_rp_set *set, unsigned int ntypes, struct sb_rp_error *err);

void sb_rp_free(struct sb_rp_set *set);

/* Canonical one-line form of a rule (the syntax the parser reads). */
void sb_rp_format_rule(const struct sb_rp_rule *r, char *buf, size_t len);

/*
 * A user name to its uid, from @root's /etc/passwd (@root NULL or "" for
 * /; not NSS: the tool is static, and an image's users are its own).
 * 0, or -1 if there is no such user.
 */
int sb_rp_user_uid(const char *root, const char *user, unsigned long long *uid);

const char *sb_rp_match_name(uint32_t match);
const char *sb_rp_class_name(uint32_t cls);
const char *sb_rp_pref_name(uint32_t pref);

#endif
