// SPDX-License-Identifier: GPL-2.0
/*
 * set predictor FILE | none, get predictor: the instruction-mix
 * predictor's coefficients (sbridge-core/mixpred.h), per pair of core
 * types. The file is decimal, one pair a line:
 *
 *   pair 1/0 clock=1.3333 err=0.06 fast=0.45,0.6,0.45,0.8,0.6 slow=...
 *
 * terms in the order other, ldst, int, fp, branch; '#' comments. The
 * kernel gets fixed point through /sys/kernel/sbridge/predictor, all
 * pairs in one write: it takes all or nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbridgectl.h"
#include "readfile.h"

#define SB_PRED_PATH	"/sys/kernel/sbridge/predictor"
#define SB_PRED_TERMS	(SBRIDGE_MIX_NR + 1)
#define SB_PRED_MAXPAIRS	(SBRIDGE_MAX_CORE_TYPES * SBRIDGE_MAX_CORE_TYPES)

static const char *const sb_pred_terms[SB_PRED_TERMS] = {
	"other", "ldst", "int", "fp", "branch",
};

struct sb_pred {
	unsigned int fast, slow;
	double clock, err, cpi[2][SB_PRED_TERMS];
};

/* "a,b,c,d,e": SB_PRED_TERMS CPIs in (0, 64]. */
static int parse_cpis(const char *v, double *out)
{
	char *end;
	int k;

	for (k = 0; k < SB_PRED_TERMS; k++) {
		out[k] = strtod(v, &end);
		if (end == v || !(out[k] > 0) || out[k] > 64)
			return -1;
		if (k < SB_PRED_TERMS - 1 && *end != ',')
			return -1;
		v = end + 1;
	}
	return *end ? -1 : 0;
}

/* One "pair F/S key=value..." line into @p; message in @msg. */
static int parse_line(char *line, struct sb_pred *p, char *msg, size_t len)
{
	int have = 0;
	char *tok, *save, *end;

	tok = strtok_r(line, " \t", &save);
	if (!tok || strcmp(tok, "pair")) {
		snprintf(msg, len, "a line starts with 'pair FAST/SLOW'");
		return -1;
	}
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || sscanf(tok, "%u/%u", &p->fast, &p->slow) != 2 ||
	    p->fast >= SBRIDGE_MAX_CORE_TYPES || p->slow >= p->fast) {
		snprintf(msg, len, "'%s': want FAST/SLOW core types, FAST the higher, below %d",
			 tok ? tok : "", SBRIDGE_MAX_CORE_TYPES);
		return -1;
	}
	while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
		char *v = strchr(tok, '=');

		if (!v) {
			snprintf(msg, len, "'%s' is not key=value", tok);
			return -1;
		}
		*v++ = '\0';
		if (!strcmp(tok, "clock")) {
			p->clock = strtod(v, &end);
			if (end == v || *end || !(p->clock >= 0.125) || p->clock > 8) {
				snprintf(msg, len, "clock=%s: the fast type's clock over the slow type's, 0.125 to 8", v);
				return -1;
			}
			have |= 1;
		} else if (!strcmp(tok, "err")) {
			p->err = strtod(v, &end);
			if (end == v || *end || !(p->err >= 0.01) || p->err > 4) {
				snprintf(msg, len, "err=%s: a relative error, 0.01 to 4", v);
				return -1;
			}
			have |= 2;
		} else if (!strcmp(tok, "fast") || !strcmp(tok, "slow")) {
			if (parse_cpis(v, p->cpi[tok[0] == 's'])) {
				snprintf(msg, len, "%s=%s: want %d CPIs in (0, 64] (other,ldst,int,fp,branch)",
					 tok, v, SB_PRED_TERMS);
				return -1;
			}
			have |= tok[0] == 's' ? 8 : 4;
		} else {
			snprintf(msg, len, "unknown key '%s' (clock, err, fast, slow)", tok);
			return -1;
		}
	}
	if (have != 15) {
		snprintf(msg, len, "a pair needs clock=, err=, fast= and slow=");
		return -1;
	}
	return 0;
}

static unsigned int to_fp(double v)
{
	long r = (long)(v * SBRIDGE_FP_ONE + 0.5);

	return r < 1 ? 1 : (unsigned int)r;
}

/* Parse @text into @p (at most SB_PRED_MAXPAIRS); returns pairs or -1. */
static int parse_file(char *text, const char *path, struct sb_pred *p)
{
	char *line, *save = NULL, msg[160];
	int n = 0, no = 0, i;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, '#');

		no++;
		if (c)
			*c = '\0';
		line += strspn(line, " \t\r");
		if (!*line)
			continue;
		if (n == SB_PRED_MAXPAIRS) {
			sb_err("%s:%d: too many pairs", path, no);
			return -1;
		}
		if (parse_line(line, &p[n], msg, sizeof(msg))) {
			sb_err("%s:%d: %s", path, no, msg);
			return -1;
		}
		for (i = 0; i < n; i++)
			if (p[i].fast == p[n].fast && p[i].slow == p[n].slow) {
				sb_err("%s:%d: pair %u/%u given twice", path, no,
				       p[n].fast, p[n].slow);
				return -1;
			}
		n++;
	}
	if (!n)
		sb_err("%s: no pair (use 'set predictor none' to clear)", path);
	return n ? n : -1;
}

static int write_sysfs(const char *buf)
{
	size_t len = strlen(buf);
	int fd = open(SB_PRED_PATH, O_WRONLY | O_CLOEXEC), ret = SB_EXIT_OK;
	ssize_t w;

	if (fd < 0) {
		if (errno == ENOENT) {
			sb_err("%s: no such file: sbridge_core not loaded (or too old)",
			       SB_PRED_PATH);
			return SB_EXIT_NOMOD;
		}
		sb_err("%s: %s", SB_PRED_PATH, strerror(errno));
		return errno == EACCES || errno == EPERM ? SB_EXIT_PERM : SB_EXIT_ERR;
	}
	w = write(fd, buf, len);
	if (w != (ssize_t)len) {
		int e = w < 0 ? errno : EIO;

		sb_err("%s: %s%s", SB_PRED_PATH, strerror(e),
		       e == EINVAL ? " (a type the board does not have? dmesg says which line)" : "");
		ret = e == EACCES || e == EPERM ? SB_EXIT_PERM : SB_EXIT_ERR;
	}
	close(fd);
	return ret;
}

static int show(void)
{
	char *text = NULL, *line, *save = NULL;
	size_t len;
	int ret, n = 0;

	ret = sb_read_path(SB_PRED_PATH, 1 << 16, -1, &text, &len);
	if (ret) {
		sb_err("%s: %s", SB_PRED_PATH, ret == -ENOENT ?
		       "no such file: sbridge_core not loaded (or too old)" :
		       sb_read_strerror(ret, 1 << 16, -1));
		return ret == -ENOENT ? SB_EXIT_NOMOD :
		       ret == -EACCES ? SB_EXIT_PERM : SB_EXIT_ERR;
	}
	if (sb_json)
		sb_js_arr_begin("predictor");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int v[4 + 2 * SB_PRED_TERMS], k, t;

		if (sscanf(line, "%u %u %u %u %u %u %u %u %u %u %u %u %u %u",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
			   &v[8], &v[9], &v[10], &v[11], &v[12], &v[13]) != 14)
			continue;
		n++;
		if (sb_json) {
			sb_js_obj_begin(NULL);
			sb_js_uint("fast", v[0]);
			sb_js_uint("slow", v[1]);
			sb_js_fp("clock", v[2]);
			sb_js_fp("err", v[3]);
			for (t = 0; t < 2; t++) {
				sb_js_obj_begin(t ? "slow" : "fast");
				for (k = 0; k < SB_PRED_TERMS; k++)
					sb_js_fp(sb_pred_terms[k], v[4 + t * SB_PRED_TERMS + k]);
				sb_js_obj_end();
			}
			sb_js_obj_end();
			continue;
		}
		printf("pair %u/%u clock=%.4f err=%.3f", v[0], v[1],
		       v[2] / (double)SBRIDGE_FP_ONE, v[3] / (double)SBRIDGE_FP_ONE);
		for (t = 0; t < 2; t++)
			for (k = 0; k < SB_PRED_TERMS; k++)
				printf("%s%.3f", k ? "," : t ? " slow=" : " fast=",
				       v[4 + t * SB_PRED_TERMS + k] / (double)SBRIDGE_FP_ONE);
		putchar('\n');
	}
	if (sb_json)
		sb_js_arr_end();
	else if (!n)
		printf("# no coefficients: the speedup prediction is eq. 3's\n");
	free(text);
	return SB_EXIT_OK;
}

/**
 * sb_predictor_get() - `get predictor`: the coefficients in force
 *
 * Return: an SB_EXIT_* code.
 */
int sb_predictor_get(void)
{
	int ret;

	if (sb_json)
		sb_js_obj_begin(NULL);
	ret = show();
	if (sb_json)
		sb_js_obj_end();
	return ret;
}

/**
 * sb_predictor_set() - `set predictor FILE|none`
 * @arg: the file ("-": standard input), or "none" to clear
 * @help: usage text for errors
 *
 * The whole file is checked before anything is written; the kernel then
 * takes all pairs or none.
 *
 * Return: an SB_EXIT_* code.
 */
int sb_predictor_set(const char *arg, const char *help)
{
	struct sb_pred p[SB_PRED_MAXPAIRS];
	char *text = NULL, *out;
	size_t len, o = 0, cap;
	int n, i, k, t, ret;

	(void)help;
	if (!strcmp(arg, "none")) {
		ret = write_sysfs("none\n");
		if (!ret && !sb_json)
			printf("predictor coefficients cleared: eq. 3\n");
		return ret;
	}
	ret = sb_read_path(arg, SB_READ_MAX, SB_READ_IDLE_MS, &text, &len);
	if (ret) {
		sb_err("%s: %s", arg, ret == -ENOENT ? "no such file" :
		       sb_read_strerror(ret, SB_READ_MAX, SB_READ_IDLE_MS));
		return SB_EXIT_USAGE;
	}
	memset(p, 0, sizeof(p));
	n = parse_file(text, arg, p);
	free(text);
	if (n < 0)
		return SB_EXIT_USAGE;
	cap = (size_t)n * 160 + 1;
	out = malloc(cap);
	if (!out) {
		sb_err("out of memory");
		return SB_EXIT_ERR;
	}
	for (i = 0; i < n; i++) {
		o += snprintf(out + o, cap - o, "%u %u %u %u", p[i].fast, p[i].slow,
			      to_fp(p[i].clock), to_fp(p[i].err));
		for (t = 0; t < 2; t++)
			for (k = 0; k < SB_PRED_TERMS; k++)
				o += snprintf(out + o, cap - o, " %u", to_fp(p[i].cpi[t][k]));
		o += snprintf(out + o, cap - o, "\n");
	}
	ret = write_sysfs(out);
	free(out);
	if (ret)
		return ret;
	if (!sb_json)
		return show();
	sb_js_obj_begin(NULL);
	ret = show();
	sb_js_obj_end();
	return ret;
}
