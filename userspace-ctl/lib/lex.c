// SPDX-License-Identifier: GPL-2.0
/*
 * The lexer every input file of sbridgectl shares (rules, configuration,
 * saved matrices, records): the tokenizer, fixed-point numbers as text,
 * quoting, and the checks and escapes for bytes that are not valid UTF-8.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/sbridge.h>

#include "lex.h"

int sb_parse_fp(const char *s, uint32_t *out, const char **why)
{
	uint64_t ip = 0, fr = 0, scale = 1;
	unsigned int nfrac = 0;
	const char *p = s;

	if (*p < '0' || *p > '9') {
		*why = "not a decimal number";
		return -1;
	}
	while (*p >= '0' && *p <= '9') {
		ip = ip * 10 + (uint64_t)(*p++ - '0');
		if (ip > 1000) {
			*why = "number too large";
			return -1;
		}
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9') {
			*why = "digits expected after '.'";
			return -1;
		}
		while (*p >= '0' && *p <= '9') {
			if (++nfrac > 10) {
				*why = "too many decimal places (at most 10)";
				return -1;
			}
			fr = fr * 10 + (uint64_t)(*p++ - '0');
			scale *= 10;
		}
	}
	if (*p) {
		*why = "not a decimal number";
		return -1;
	}
	/* Exact: fr / scale * 1024, rounded half up, in integers. */
	*out = (uint32_t)(ip * SBRIDGE_FP_ONE +
			  (fr * SBRIDGE_FP_ONE + scale / 2) / scale);
	return 0;
}

/*
 * The fewest decimals (1 to 4) that sb_parse_fp() reads back as @v: 563
 * (what 0.55 parses to) prints as 0.55, not 0.5498. Four always do: a
 * step of 1/1024 is wider than 0.0001.
 */
void sb_format_fp(uint32_t v, char *buf, size_t len)
{
	uint64_t scale = 1, t = 0;
	unsigned int d;

	for (d = 1; d <= 4; d++) {
		scale *= 10;
		t = ((uint64_t)v * scale + SBRIDGE_FP_ONE / 2) / SBRIDGE_FP_ONE;
		if ((t / scale) * SBRIDGE_FP_ONE +
		    ((t % scale) * SBRIDGE_FP_ONE + scale / 2) / scale == v)
			break;
	}
	if (d > 4)
		d = 4;
	snprintf(buf, len, "%llu.%0*llu", (unsigned long long)(t / scale), (int)d,
		 (unsigned long long)(t % scale));
}

void sb_rp_quote(char *buf, size_t len, const char *s)
{
	size_t o = strlen(buf);
	int q = !*s || strpbrk(s, " \t\"\\#=") != NULL;

	if (q && o + 1 < len)
		buf[o++] = '"';
	for (; *s && o + 2 < len; s++) {
		if (q && (*s == '"' || *s == '\\'))
			buf[o++] = '\\';
		buf[o++] = *s;
	}
	if (q && o + 1 < len)
		buf[o++] = '"';
	buf[o < len ? o : len - 1] = '\0';
}


const char *sb_fp(uint32_t v)
{
	static char buf[4][24];
	static int i;

	i = (i + 1) % 4;
	sb_format_fp(v, buf[i], sizeof(buf[i]));
	return buf[i];
}

int sb_rp_tokenize(const char *line, size_t len, struct sb_rp_line *out,
		unsigned int *col, const char **why)
{
	char *p = out->store;
	size_t i = 0;

	out->n = 0;
	while (i < len) {
		struct sb_rp_token *t;
		char c = line[i];

		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (c == '#')
			break;
		if (out->n == SB_RP_MAX_TOKENS) {
			*col = (unsigned int)i + 1;
			*why = "too many words on one line (at most 64)";
			return -1;
		}
		t = &out->tok[out->n++];
		t->key = p;
		t->val = NULL;
		t->col = (unsigned int)i + 1;
		t->vcol = 0;
		while (i < len) {
			c = line[i];
			if (c == ' ' || c == '\t' || c == '\r' || c == '#')
				break;
			if (c == '"') {
				size_t q = i++;

				for (;;) {
					if (i >= len) {
						*col = (unsigned int)q + 1;
						*why = "unterminated quote";
						return -1;
					}
					c = line[i];
					if (c == '"') {
						i++;
						break;
					}
					if (c == '\\') {
						if (i + 1 < len &&
						    (line[i + 1] == '"' ||
						     line[i + 1] == '\\')) {
							*p++ = line[i + 1];
							i += 2;
							continue;
						}
						*col = (unsigned int)i + 1;
						*why = "unknown escape in quotes (only \\\" and \\\\)";
						return -1;
					}
					*p++ = c;
					i++;
				}
				continue;
			}
			if (c == '=' && !t->val) {
				*p++ = '\0';
				t->val = p;
				t->vcol = (unsigned int)i + 2;
				i++;
				continue;
			}
			*p++ = c;
			i++;
		}
		*p++ = '\0';
		if (i < len && line[i] == '#')
			break;
	}
	return 0;
}

size_t sb_rp_utf8_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0];
	size_t n, k;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 1;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 2;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n >= len)
		return 0;
	for (k = 1; k <= n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n + 1;
}

void sb_rp_escape(const char *s, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), o = 0, n;

	if (!len)
		return;
	while (left) {
		n = *p >= 0x20 && *p != 0x7f ? sb_rp_utf8_len(p, left) : 0;
		if (n) {
			if (o + n >= len)
				break;
			memcpy(out + o, p, n);
			o += n;
		} else {
			n = 1;
			if (o + 4 >= len)
				break;
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
		}
		p += n;
		left -= n;
	}
	out[o] = '\0';
}

int sb_rp_check_bytes(const unsigned char *s, size_t len, unsigned int *col,
		   const char **why)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n;

		if (c < 0x80) {
			if (c == 0) {
				*why = "NUL byte";
				goto bad;
			}
			if ((c < 0x20 && c != '\t' && !(c == '\r' && i + 1 == len)) ||
			    c == 0x7f) {
				*why = "control character";
				goto bad;
			}
			i++;
			continue;
		}
		n = sb_rp_utf8_len(s + i, len - i);
		if (!n) {
			/* A good lead byte with its sequence cut off by the end. */
			size_t want = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;

			*why = c >= 0xc2 && c <= 0xf4 && i + want >= len ?
			       "invalid UTF-8 (truncated sequence)" : "invalid UTF-8";
			goto bad;
		}
		i += n;
	}
	return 0;
bad:
	*col = (unsigned int)i + 1;
	return -1;
}
