/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lexer of sbridgectl's input files (lex.c): the tokenizer the rule,
 * configuration and matrix readers share, fixed-point numbers as text,
 * quoting, and the UTF-8 checks and escapes. Pure C, host-testable.
 */
#ifndef SBRIDGECTL_LEX_H
#define SBRIDGECTL_LEX_H

#include <stddef.h>
#include <stdint.h>

#define SB_RP_MAX_LINE	4096		/* bytes per line, newline excluded */

/* Decimal ("1", "0.6", "1.25") -> fixed point, exact, rounded half up;
 * no floating point. Accepts at most 10 fractional digits and values up to
 * 1000. Returns 0, or -1 with *why set to a static message. */
int sb_parse_fp(const char *s, uint32_t *out, const char **why);

/* Fixed point -> shortest decimal with at most 4 fractional digits
 * (enough to parse back to the same value). */
void sb_format_fp(uint32_t v, char *buf, size_t len);

/* Length (1-4) of the valid UTF-8 sequence at @s (@len bytes left), 0 if
 * it is not one (overlong, surrogate, past U+10FFFF, cut off). An ASCII
 * byte, control characters included, is 1. */
size_t sb_rp_utf8_len(const unsigned char *s, size_t len);

/*
 * @s into @out (@len bytes with the NUL) as a terminal may show it:
 * control bytes, DEL and every byte that is not part of valid UTF-8 as
 * \xNN, the rest as it is; cut short (never inside a sequence) if @out
 * is full.
 */
void sb_rp_escape(const char *s, char *out, size_t len);

/* @len bytes of one line of a rule or configuration file: 0, or -1 with
 * *@col and *@why at the first NUL, control character (a tab, or a CR
 * ending the line, is fine) or byte of invalid UTF-8. */
int sb_rp_check_bytes(const unsigned char *s, size_t len, unsigned int *col,
		   const char **why);

/* Append @s to @buf, double-quoted and escaped if it needs it. */
void sb_rp_quote(char *buf, size_t len, const char *s);

/*
 * Tokenizer shared by the rule, configuration and matrix file readers: splits one line into
 * whitespace-separated tokens, honours "double quotes" (with \" and \\) and
 * stops at an unquoted '#'. Each token is split at its first unquoted '='.
 */
#define SB_RP_MAX_TOKENS 64
struct sb_rp_token {
	char *key;		/* NUL-terminated, unquoted */
	char *val;		/* NULL if the token had no '=' */
	unsigned int col;	/* 1-based byte column of the token */
	unsigned int vcol;	/* column of the value */
};

struct sb_rp_line {
	struct sb_rp_token tok[SB_RP_MAX_TOKENS];
	unsigned int n;
	char store[SB_RP_MAX_LINE + 2 * SB_RP_MAX_TOKENS + 1];
};

/* Returns 0, or -1 with *col (1-based) and *why describing the problem. */
int sb_rp_tokenize(const char *line, size_t len, struct sb_rp_line *out,
		unsigned int *col, const char **why);

/* Fixed point as text, e.g. "1.25" (four rotating static buffers). */
const char *sb_fp(uint32_t v);

#endif
