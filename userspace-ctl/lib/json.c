// SPDX-License-Identifier: GPL-2.0
/* The JSON writer every --json output goes through: to stdout, in order. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "lex.h"

/* JSON writer: one flag per nesting level says whether a comma is due. */
static int sb_js_depth;
static int sb_js_comma[32];

/*
 * A JSON string: quotes, backslashes and control bytes escaped, valid UTF-8
 * passed through and every other byte (overlong forms, surrogates, values
 * past U+10FFFF, stray continuation bytes) replaced by U+FFFD, so that any
 * task name a user can set with prctl() still makes valid JSON. Validity
 * is the lexer's (sb_rp_utf8_len()).
 */
static void sb_js_put_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n;

	putchar('"');
	while (left) {
		unsigned char c = *p;

		if (c == '"' || c == '\\') {
			printf("\\%c", c);
			n = 1;
		} else if (c < 0x20 || c == 0x7f) {
			printf("\\u%04x", c);
			n = 1;
		} else if (c < 0x80) {
			putchar(c);
			n = 1;
		} else if ((n = sb_rp_utf8_len(p, left))) {
			fwrite(p, 1, n, stdout);
		} else {
			fputs("\\ufffd", stdout);
			n = 1;
		}
		p += n;
		left -= n;
	}
	putchar('"');
}

static void sb_js_key(const char *key)
{
	if (sb_js_depth > 0 && sb_js_comma[sb_js_depth - 1])
		putchar(',');
	if (sb_js_depth > 0)
		sb_js_comma[sb_js_depth - 1] = 1;
	if (key) {
		sb_js_put_string(key);
		putchar(':');
	}
}

static void sb_js_open(const char *key, char c)
{
	sb_js_key(key);
	putchar(c);
	if (sb_js_depth < 31)
		sb_js_comma[sb_js_depth++] = 0;
}

static void sb_js_close(char c)
{
	putchar(c);
	if (sb_js_depth > 0)
		sb_js_depth--;
	if (!sb_js_depth) {
		putchar('\n');
		fflush(stdout);
	}
}

void sb_js_obj_begin(const char *key) { sb_js_open(key, '{'); }
void sb_js_obj_end(void) { sb_js_close('}'); }
void sb_js_arr_begin(const char *key) { sb_js_open(key, '['); }
void sb_js_arr_end(void) { sb_js_close(']'); }

void sb_js_str(const char *key, const char *v)
{
	sb_js_key(key);
	if (v)
		sb_js_put_string(v);
	else
		fputs("null", stdout);
}

void sb_js_uint(const char *key, uint64_t v)
{
	sb_js_key(key);
	printf("%llu", (unsigned long long)v);
}

void sb_js_fp(const char *key, uint32_t v)
{
	sb_js_key(key);
	fputs(sb_fp(v), stdout);
}

void sb_js_bool(const char *key, int v)
{
	sb_js_key(key);
	fputs(v ? "true" : "false", stdout);
}

void sb_js_null(const char *key)
{
	sb_js_key(key);
	fputs("null", stdout);
}

void sb_json_error(const char *file, unsigned int line, unsigned int col,
		   const char *msg)
{
	sb_js_obj_begin(NULL);
	sb_js_str("file", file);
	if (line)
		sb_js_uint("line", line);
	else
		sb_js_null("line");
	if (col)
		sb_js_uint("column", col);
	else
		sb_js_null("column");
	sb_js_str("message", msg);
	sb_js_obj_end();
}
