// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of sbridgectl: rule parser against golden files, CPU lists,
 * fixed-point decimals, robustness (random bytes, 1 MB lines, 100 000
 * rules, bad UTF-8, deep and cyclic includes), the recorder's escaping
 * and trace_pipe line conversion, what `get` prints, command-line errors
 * of the real binary and its `config check` against golden/config. Built
 * with ASan/UBSan; a crash fails the run.
 *
 * usage: test_ctl SBRIDGECTL SBRIDGECTL_PLAIN  (run everything from this dir;
 *        the second binary is built without sanitizers)
 *        test_ctl --show FILE.rules       (print what a golden file gives)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpulist.h"
#include "grow.h"
#include "readfile.h"
#include "record_parse.h"
#include "rules_parse.h"
#include "sbridgectl.h"

static int passed, failed, skipped;

static void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", passed + failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok)
		passed++;
	else
		failed++;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	if (len)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

/* Output of a golden case: canonical rules, or "error: MSG". */
static char *run_golden(const char *path)
{
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error err;
	size_t cap = 1 << 16, o = 0, i;
	char *out = malloc(cap), line[1024];

	out[0] = '\0';
	if (sb_rp_parse_path(&set, path, &err)) {
		snprintf(out, cap, "error: %s\n", err.msg);
	} else {
		for (i = 0; i < set.n && o + 1200 < cap; i++) {
			sb_rp_format_rule(&set.rules[i], line, sizeof(line));
			o += (size_t)snprintf(out + o, cap - o, "%s\t# %s\n", line,
					      set.rules[i].source);
		}
	}
	sb_rp_free(&set);
	return out;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_golden(void)
{
	struct dirent *de;
	char *names[512];
	size_t n = 0, i;
	DIR *d = opendir("golden");

	if (!d) {
		result(0, "golden directory missing");
		return;
	}
	while ((de = readdir(d)) && n < 512)
		if (ends_with(de->d_name, ".rules"))
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		char path[512], exp[512], *got, *want;

		snprintf(path, sizeof(path), "golden/%s", names[i]);
		snprintf(exp, sizeof(exp), "golden/%.*s.out",
			 (int)strlen(names[i]) - 6, names[i]);
		want = slurp(exp, NULL);
		if (!want) {
			snprintf(exp, sizeof(exp), "golden/%.*s.err",
				 (int)strlen(names[i]) - 6, names[i]);
			want = slurp(exp, NULL);
		}
		got = run_golden(path);
		if (!want)
			result(0, "golden %s: no .out or .err file", names[i]);
		else
			result(!strcmp(got, want), "golden %s%s%s", names[i],
			       strcmp(got, want) ? ": got " : "",
			       strcmp(got, want) ? got : "");
		free(got);
		free(want);
		free(names[i]);
	}
}

static void test_cpulist(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "0", "0" }, { "0-3", "0-3" }, { "0-3,5,7-9:2", "0-3,5,7,9" },
		{ "1,1,1", "1" }, { "3,2,1,0", "0-3" }, { "0-10:5", "0,5,10" },
		{ "8191", "8191" }, { "0-8191:4096", "0,4096" }, { "2-2", "2" },
		{ "0-1,0-1", "0-1" }, { "63,64", "63-64" },
		{ "", NULL }, { "8192", NULL }, { "3-1", NULL }, { "a", NULL },
		{ "1,", NULL }, { ",1", NULL }, { "1-", NULL }, { "-1", NULL },
		{ "0-3:0", NULL }, { "0-3:", NULL }, { "1 2", NULL }, { "1;2", NULL },
		{ "99999999999999999999", NULL }, { "0x1", NULL }, { "1:2", NULL },
		{ "0-3,5-", NULL }, { " 1", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_cpuset s;
		const char *why = "";
		unsigned int col = 0;
		char buf[256];
		int r = sb_cpulist_parse(cases[i].in, &s, &why, &col);

		if (cases[i].out) {
			if (!r)
				sb_cpulist_format(&s, buf, sizeof(buf));
			result(!r && !strcmp(buf, cases[i].out), "cpulist '%s' -> %s%s%s",
			       cases[i].in, cases[i].out, r ? ": " : "", r ? why : "");
		} else {
			result(r && col >= 1 && col <= strlen(cases[i].in) + 1,
			       "cpulist '%s' rejected (%s at %u)", cases[i].in, why, col);
		}
	}
	{
		struct sb_cpuset s;
		const char *why;
		unsigned int col;
		uint8_t b[16];
		size_t n;

		sb_cpulist_parse("0,9,65", &s, &why, &col);
		n = sb_cpuset_to_le(&s, b, sizeof(b));
		result(n == 16 && b[0] == 1 && b[1] == 2 && b[8] == 2 && b[2] == 0,
		       "cpumask little-endian bytes for 0,9,65");
	}
}

static void test_fp(void)
{
	static const struct { const char *in; int64_t v; } cases[] = {
		{ "1", 1024 }, { "1.0", 1024 }, { "0.5", 512 }, { "0.125", 128 },
		{ "8", 8192 }, { "0.6", 614 }, { "1.5", 1536 }, { "0.0005", 1 },
		{ "0.00048828125", -1 }, { "0.0004882812", 0 }, { "0.0004882813", 1 },
		{ "2.25", 2304 }, { "1000", 1024000 }, { "1001", -1 }, { "", -1 },
		{ ".5", -1 }, { "1.", -1 }, { "1e3", -1 }, { "-1", -1 }, { "+1", -1 },
		{ "1,5", -1 }, { "0x10", -1 }, { "1.2.3", -1 }, { " 1", -1 },
		{ "1.00000000001", -1 }, { "0.9999999999", 1024 },
	};
	uint32_t v, back;
	const char *why;
	char buf[32];
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = sb_parse_fp(cases[i].in, &v, &why);

		if (cases[i].v < 0)
			result(r != 0, "decimal '%s' rejected", cases[i].in);
		else
			result(!r && v == cases[i].v, "decimal '%s' -> %lld (got %u)",
			       cases[i].in, (long long)cases[i].v, r ? 0 : v);
	}
	/* Every representable factor survives format -> parse unchanged. */
	for (v = 0; v <= 1024 * 1000; v += v < 9000 ? 1 : 997) {
		sb_format_fp(v, buf, sizeof(buf));
		if (sb_parse_fp(buf, &back, &why) || back != v)
			bad++;
	}
	result(!bad, "fixed point format/parse round trip (%d mismatches)", bad);
}

/* Parser must return cleanly on any input; ASan/UBSan catch the rest. */
static int parse_buf_ok(const char *buf, size_t len, char *err, size_t errlen)
{
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error e;
	int r = sb_rp_parse_buffer(&set, "fuzz", buf, len, &e);

	if (err)
		snprintf(err, errlen, "%s", r ? e.msg : "");
	sb_rp_free(&set);
	return r;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static void test_fuzz(void)
{
	static const char *seeds[] = {
		"comm=ffmpeg class=compute prefer=big\n",
		"exe=/usr/bin/x265 class=compute factor little=0.6 big=1.0 # c\n",
		"cgroup=/system.slice/x prefer=little\ncomm=\"a b\" exclude\n",
		"include /nonexistent\ncomm=a factor 0=1 1=2 2=learn\n",
	};
	char buf[8192], err[600];
	size_t len, i, k;
	int clean = 1, ok_count = 0, err_count = 0;
	char *big;

	/* random bytes */
	for (i = 0; i < 3000; i++) {
		len = rnd() % sizeof(buf);
		for (k = 0; k < len; k++)
			buf[k] = (char)rnd();
		if (!parse_buf_ok(buf, len, err, sizeof(err)))
			ok_count++;
		else if (strncmp(err, "fuzz:", 5))
			clean = 0;
		else
			err_count++;
	}
	result(clean, "3000 random buffers: %d parsed, %d clean errors", ok_count, err_count);

	/* mutations of valid rules: flip, insert and drop bytes */
	clean = 1;
	ok_count = err_count = 0;
	for (i = 0; i < 20000; i++) {
		const char *s = seeds[i % 4];
		int m;

		len = strlen(s);
		memcpy(buf, s, len);
		for (m = (int)(rnd() % 4); m >= 0; m--) {
			size_t at = rnd() % (len + 1);

			switch (rnd() % 3) {
			case 0:
				if (at < len)
					buf[at] = "=\"\\# \t\n\x01\xff.0a/"[rnd() % 14];
				break;
			case 1:
				memmove(buf + at + 1, buf + at, len - at);
				buf[at] = (char)rnd();
				len++;
				break;
			default:
				if (at < len) {
					memmove(buf + at, buf + at + 1, len - at - 1);
					len--;
				}
			}
		}
		if (!parse_buf_ok(buf, len, err, sizeof(err)))
			ok_count++;
		else if (strncmp(err, "fuzz:", 5) && strncmp(err, "/nonexistent", 12))
			clean = 0;
		else
			err_count++;
	}
	result(clean, "20000 mutated rule lines: %d parsed, %d clean errors", ok_count,
	       err_count);

	/* a 1 MB line */
	big = malloc((1 << 20) + 64);
	memset(big, 'a', 1 << 20);
	memcpy(big, "comm=", 5);
	result(parse_buf_ok(big, 1 << 20, err, sizeof(err)) &&
	       strstr(err, "fuzz:1:4097: line too long"), "1 MB line: %s", err);
	/* 1 MB of newlines and 1 MB of '#' comments */
	memset(big, '\n', 1 << 20);
	result(!parse_buf_ok(big, 1 << 20, NULL, 0), "1 MB of empty lines parses");
	memset(big, '"', 4000);
	result(parse_buf_ok(big, 4000, err, sizeof(err)) && strstr(err, "fuzz:1:"),
	       "4000 quotes: %s", err);
	free(big);

	/* bad UTF-8 of every kind gets a clean error naming the column */
	{
		static const char *bad[] = {
			"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80",
			"\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x80\x80\x80",
			"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xfe", "\xff",
			"\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xc3\x28",
		};
		int good = 1;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			len = (size_t)snprintf(buf, sizeof(buf), "comm=a%s class=compute\n", bad[i]);
			if (!parse_buf_ok(buf, len, err, sizeof(err)) ||
			    !strstr(err, "fuzz:1:7: invalid UTF-8"))
				good = 0;
		}
		result(good, "16 malformed UTF-8 sequences rejected at their column");
		len = (size_t)snprintf(buf, sizeof(buf),
				       "comm=\xf0\x9f\x98\x80 class=compute\n");
		result(!parse_buf_ok(buf, len, err, sizeof(err)), "4-byte UTF-8 accepted %s", err);
	}
}

static char *make_rules(size_t n, size_t *len)
{
	char *buf = malloc(n * 40 + 1);
	size_t o = 0, i;

	for (i = 0; i < n; i++)
		o += (size_t)sprintf(buf + o, "comm=t%zu class=compute\n", i);
	*len = o;
	return buf;
}

static void test_many(void)
{
	char err[600], *buf;
	size_t len;

	buf = make_rules(100000, &len);
	result(parse_buf_ok(buf, len, err, sizeof(err)) &&
	       strstr(err, "fuzz:4097:1: too many rules (at most 4096)"),
	       "100000 rules: %s", err);
	free(buf);
	buf = make_rules(SBRIDGE_MAX_RULES, &len);
	result(!parse_buf_ok(buf, len, err, sizeof(err)), "4096 rules parse %s", err);
	free(buf);
}

static void write_file(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void write_file(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void test_includes(void)
{
	char dir[] = "/tmp/sbridge-ctl-test.XXXXXX", p[256], q[256];
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error e;
	int i, r;

	if (!mkdtemp(dir)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	/* chain d0 -> d1 -> ... -> d11 */
	for (i = 0; i < 12; i++) {
		snprintf(p, sizeof(p), "%s/d%d.rules", dir, i);
		if (i < 11)
			write_file(p, "comm=d%d class=compute\ninclude d%d.rules\n", i, i + 1);
		else
			write_file(p, "comm=d%d class=compute\n", i);
	}
	snprintf(p, sizeof(p), "%s/d0.rules", dir);
	r = sb_rp_parse_path(&set, p, &e);
	result(r && strstr(e.msg, "nested more than 8 deep"), "include chain of 12: %s", e.msg);
	sb_rp_free(&set);
	snprintf(p, sizeof(p), "%s/d4.rules", dir);
	r = sb_rp_parse_path(&set, p, &e);
	result(!r && set.n == 8, "include chain of 8 parses (%zu rules) %s", set.n, e.msg);
	sb_rp_free(&set);

	/* a -> b -> c -> a */
	snprintf(p, sizeof(p), "%s/a.rules", dir);
	write_file(p, "include b.rules\n");
	snprintf(q, sizeof(q), "%s/b.rules", dir);
	write_file(q, "comm=b exclude\ninclude c.rules\n");
	snprintf(q, sizeof(q), "%s/c.rules", dir);
	write_file(q, "include ./a.rules\n");
	r = sb_rp_parse_path(&set, p, &e);
	result(r && strstr(e.msg, "c.rules:1:9: include cycle"), "include cycle a->b->c->a: %s",
	       e.msg);
	sb_rp_free(&set);

	/* a directory that includes itself through one of its files */
	snprintf(p, sizeof(p), "%s/sub", dir);
	mkdir(p, 0700);
	snprintf(q, sizeof(q), "%s/sub/x.rules", dir);
	write_file(q, "include .\n");
	r = sb_rp_parse_path(&set, p, &e);
	result(r && strstr(e.msg, "include cycle"), "directory including itself: %s", e.msg);
	sb_rp_free(&set);

	/* a device named on the command line is read like /dev/stdin; an
	 * include must be a file */
	r = sb_rp_parse_path(&set, "/dev/null", &e);
	result(!r && set.n == 0, "/dev/null on the command line: an empty set %s", e.msg);
	sb_rp_free(&set);
	write_file("/tmp/sb-inc-dev.rules", "include /dev/null\n");
	r = sb_rp_parse_path(&set, "/tmp/sb-inc-dev.rules", &e);
	result(r && strstr(e.msg, "not a regular file"), "include /dev/null: %s", e.msg);
	sb_rp_free(&set);
	unlink("/tmp/sb-inc-dev.rules");
	r = sb_rp_parse_path(&set, "/nonexistent/x.rules", &e);
	result(r && strstr(e.msg, "No such file"), "missing file: %s", e.msg);
	sb_rp_free(&set);

	/* an empty directory is an empty, valid rule set */
	snprintf(p, sizeof(p), "%s/empty", dir);
	mkdir(p, 0700);
	r = sb_rp_parse_path(&set, p, &e);
	result(!r && !set.n, "empty directory: no rules");
	sb_rp_free(&set);

	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p))
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

/*
 * sb_grow() and the parser's arrays it grows: rules, a directory's names,
 * the layered set's files, and the buffer a file is read into.
 */
static void test_grow(void)
{
	char dir[] = "/tmp/sbridge-ctl-grow.XXXXXX", p[256], *big;
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error e;
	size_t cap = 0, n;
	int *v = NULL, *nv, i, r, ok = 1;
	FILE *f;

	for (n = 0; n < 1000 && ok; n++) {
		nv = sb_grow(v, &cap, n, sizeof(*v), 4);
		ok = nv && cap > n && (n < 4 ? cap == 4 : cap >= 2 * (n / 2));
		if (nv) {
			v = nv;
			v[n] = (int)n;
		}
	}
	for (n = 0; ok && n < 1000; n++)
		ok = v[n] == (int)n;
	result(ok && cap == 1024, "sb_grow: 1000 elements in 4, 8 ... 1024 (cap %zu)", cap);
	nv = sb_grow(v, &cap, 10, sizeof(*v), 4);
	result(nv == v && cap == 1024, "sb_grow: an array with room is left as it is");
	cap = SIZE_MAX / sizeof(*v) / 2 + 1;
	nv = sb_grow(v, &cap, cap, sizeof(*v), 4);
	result(!nv && cap == SIZE_MAX / sizeof(*v) / 2 + 1,
	       "sb_grow: a size past SIZE_MAX is NULL, the array untouched");
	free(v);

	if (!mkdtemp(dir)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	/*
	 * 40 files of 3 rules each, in a directory (names: 16, 32, 64) and
	 * as the admin's layer of the system set (files: 32, 64)
	 */
	snprintf(p, sizeof(p), "mkdir -p '%s/etc/sbridge/rules.d'", dir);
	r = system(p);
	for (i = 0; i < 40; i++) {
		snprintf(p, sizeof(p), "%s/%02d.rules", dir, i);
		write_file(p, "comm=a%d exclude\ncomm=b%d exclude\ncomm=c%d exclude\n", i, i, i);
		snprintf(p, sizeof(p), "%s/etc/sbridge/rules.d/%02d.rules", dir, i);
		write_file(p, "comm=a%d exclude\ncomm=b%d exclude\ncomm=c%d exclude\n", i, i, i);
	}
	r |= sb_rp_parse_path(&set, dir, &e);
	result(!r && set.n == 120 && set.cap == 128 &&
	       !strcmp(set.rules[119].pattern, "c39"),
	       "a directory of 40 files: 120 rules in order (cap %zu) %s", set.cap, e.msg);
	sb_rp_free(&set);
	r = sb_rp_parse_system(&set, dir, &e);
	result(!r && set.n == 120 && !strcmp(set.rules[0].pattern, "a0"),
	       "a layer of 40 files: 120 rules (%zu) %s", set.n, e.msg);
	sb_rp_free(&set);
	/* exactly 16 MiB of comments is read; a byte more is refused */
	big = malloc(SB_RP_MAX_FILE);
	if (!big) {
		result(0, "malloc of 16 MiB");
		goto out;
	}
	memset(big, '#', SB_RP_MAX_FILE);
	for (n = 1000; n < SB_RP_MAX_FILE; n += 1000)
		big[n] = '\n';
	snprintf(p, sizeof(p), "%s/big.rules", dir);
	f = fopen(p, "w");
	if (f) {
		fwrite(big, 1, SB_RP_MAX_FILE, f);
		fclose(f);
	}
	r = sb_rp_parse_path(&set, p, &e);
	result(!r && !set.n, "a file of exactly 16 MiB is read %s", r ? e.msg : "");
	sb_rp_free(&set);
	f = fopen(p, "a");
	if (f) {
		fputc('\n', f);
		fclose(f);
	}
	r = sb_rp_parse_path(&set, p, &e);
	result(r && strstr(e.msg, "larger than 16 MiB"), "16 MiB and a byte: %s", e.msg);
	sb_rp_free(&set);
	free(big);
out:
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p))
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

/* The shipped rule files parse, and their canonical form parses back the same. */
static void test_shipped(void)
{
	struct sb_rp_set set = { .rules = NULL }, back = { .rules = NULL };
	struct sb_rp_error e;
	char *text;
	size_t i, o = 0;
	int r, same;

	r = sb_rp_parse_path(&set, "../../../rules", &e);
	result(!r && set.n > 20, "shipped rules/ parse (%zu rules) %s", set.n, r ? e.msg : "");
	text = malloc(set.n * 1100 + 1);
	text[0] = '\0';
	for (i = 0; i < set.n; i++) {
		sb_rp_format_rule(&set.rules[i], text + o, 1100);
		o += strlen(text + o);
		text[o++] = '\n';
	}
	r = sb_rp_parse_buffer(&back, "canonical", text, o, &e);
	same = !r && back.n == set.n;
	for (i = 0; same && i < set.n; i++) {
		struct sb_rp_rule a = set.rules[i], b = back.rules[i];

		memset(a.source, 0, sizeof(a.source));
		memset(b.source, 0, sizeof(b.source));
		same = !memcmp(&a, &b, sizeof(a));
	}
	result(same, "canonical form round-trips %s", r ? e.msg : "");
	/* resolve: big maps to the top type; type beyond ntypes is refused */
	r = sb_rp_resolve(&set, 2, &e);
	result(!r, "shipped rules resolve for 2 core types %s", r ? e.msg : "");
	free(text);
	sb_rp_free(&set);
	sb_rp_free(&back);
	{
		struct sb_rp_set s = { .rules = NULL };
		const char *t = "comm=a factor little=0.5 big=2\ncomm=b factor 3=1\n";

		sb_rp_parse_buffer(&s, "r", t, strlen(t), &e);
		r = sb_rp_resolve(&s, 2, &e);
		result(r && strstr(e.msg, "r:2: factor for core type 3, but this system has 2"),
		       "resolve refuses type 3 on 2 types: %s", e.msg);
		result(s.rules[0].factors[0] == 512 && s.rules[0].factors[1] == 2048 &&
		       !s.rules[0].big, "resolve maps big to type 1 of 2");
		sb_rp_free(&s);
	}
}

/* record: escaping and trace_pipe lines of 6.1, 6.12 and 7.x kernels. */
static void test_record(void)
{
	static const struct { const char *in; size_t len; const char *want; } esc[] = {
		{ "spin", 4, "spin" },
		{ "a b%c\t\x7f", 7, "a%20b%25c%09%7F" },
		{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },
		{ "\xf0\x9f\x98\x80!", 5, "\xf0\x9f\x98\x80!" },
		{ "\xc0\xaf", 2, "%C0%AF" },		/* overlong '/' */
		{ "\xed\xa0\x80", 3, "%ED%A0%80" },	/* surrogate */
		{ "x\xe2\x82", 3, "x%E2%82" },		/* cut off */
		{ "\xff\xfe", 2, "%FF%FE" },
		{ "a\0b", 3, "a%00b" },
		{ "", 0, "" },
	};
	static const struct { int kind; const char *in, *want; } lines[] = {
		/* 6.1, irq-info on; a next_comm that holds a fake field */
		{ SB_REC_SWITCH, "          <idle>-0       [001] d..2.   123.456789: sched_switch: "
		  "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
		  "next_comm=my prog prev_pid=5 next_pid=42 next_prio=120",
		  "switch 123456789000 1 0 swapper/1 42 my%20prog%20prev_pid=5 R" },
		/* irq-info off (what record sets) */
		{ SB_REC_SWITCH, "            bash-1234    [000]     5.000001: sched_switch: "
		  "prev_comm=bash prev_pid=1234 prev_prio=120 prev_state=S ==> "
		  "next_comm=swapper/0 next_pid=0 next_prio=120",
		  "switch 5000001000 0 1234 bash 0 swapper/0 S" },
		/* 6.12: spaces in both comms, and in the task column */
		{ SB_REC_SWITCH, "         my prog-77      [003] dN.2.  1.5: sched_switch: "
		  "prev_comm=my prog prev_pid=77 prev_prio=120 prev_state=R+ ==> "
		  "next_comm=a b ==> c next_pid=9 next_prio=100",
		  "switch 1500000000 3 77 my%20prog 9 a%20b%20==>%20c R+" },
		/* 7.x: lazy-preemption letters, D|K state, record-tgid column */
		{ SB_REC_SWITCH, "    kworker/u8:2-95      (     95) [002] dLb2.  3141.592653: "
		  "sched_switch: prev_comm=kworker/u8:2 prev_pid=95 prev_prio=120 "
		  "prev_state=D|K ==> next_comm=spin next_pid=300 next_prio=120",
		  "switch 3141592653000 2 95 kworker/u8:2 300 spin D|K" },
		/* a task column made to look like a header before the real one */
		{ SB_REC_SWITCH, "   a [1] 9.9: x: b-5     [000] .... 1.000000: sched_switch: "
		  "prev_comm=a [1] 9.9: x: b prev_pid=5 prev_prio=120 prev_state=S ==> "
		  "next_comm=c next_pid=6 next_prio=120",
		  "switch 1000000000 0 5 a%20[1]%209.9:%20x:%20b 6 c S" },
		{ SB_REC_EVENT, "            spin-300     [001] d..2.    10.000100: sbridge_decide: "
		  "pid=300 from=1 to=0 hint=fast prev=none speedup=1800 lf_fast=1000 "
		  "lf_slow=1800 load=1024 why=gain comm=spin [x] 100%",
		  "event 10000100000 1 sbridge_decide pid=300 from=1 to=0 hint=fast prev=none "
		  "speedup=1800 lf_fast=1000 lf_slow=1800 load=1024 why=gain "
		  "comm=spin%20[x]%20100%25" },
		{ SB_REC_EVENT, "  kworker/0:1-12 [000] 7.25: sbridge_period: n=3 want_fast=1 "
		  "on_fast=1 nfast=1 nslow=3 load_fast=900 load_slow=100",
		  "event 7250000000 0 sbridge_period n=3 want_fast=1 on_fast=1 nfast=1 "
		  "nslow=3 load_fast=900 load_slow=100" },
		{ SB_REC_EVENT, "  x-1 [000] 1.000000: sbridge_act: act=placement op=apply "
		  "pid=9 cpu=-1 val=0x1 comm=caf\xc3\xa9\xff\x01",
		  "event 1000000000 0 sbridge_act act=placement op=apply pid=9 cpu=-1 "
		  "val=0x1 comm=caf\xc3\xa9%FF%01" },
		{ SB_REC_EVENT, "  x-1 [000] 1.000000: sbridge_phase: pid=9 from=0 to=1 share=700 comm=",
		  "event 1000000000 0 sbridge_phase pid=9 from=0 to=1 share=700 comm=" },
		/* 6.1 pads target_cpu; a comm that holds a fake pid= */
		{ SB_REC_WAKEUP, "  x-1 [000] 1.000000: sched_wakeup: comm=a pid=2 prio=120 target_cpu=003",
		  "wakeup 1000000000 0 2 3 wake 1 a" },
		{ SB_REC_WAKEUP, "  x y-41  (     40) [002] 1.5: sched_wakeup_new: comm=b pid=7 prio=1 "
		  "pid=8 prio=120 target_cpu=001", "wakeup 1500000000 2 8 1 new 41 b%20pid=7%20prio=1" },
		{ SB_REC_MIGRATE, "  x-1 [001] 2.0: sched_migrate_task: comm=c d pid=9 prio=120 "
		  "orig_cpu=3 dest_cpu=0", "migrate 2000000000 1 9 3 0" },
		{ -1, "  x-1 [001] 2.0: sched_migrate_task: comm=c pid=9 prio=120 orig_cpu=3", "" },
		{ SB_REC_NONE, "  x-1 [000] 1.000000: sched_process_exit: comm=a pid=2 prio=120", "" },
		{ -1, "CPU:1 [LOST 12 EVENTS]", "" },
		{ -1, "", "" },
		{ -1, "  x-1 [000] 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
		  "prev_state=S ==> next_comm=b next_pid=2", "" },
		{ -1, "  x-1 [000] 1.000000: sched_switch: prev_comm=a prev_pid=x prev_prio=1 "
		  "prev_state=S ==> next_comm=b next_pid=2 next_prio=1", "" },
		{ -1, "  x-1 [000] 1: sched_switch: prev_comm=a", "" },
		{ -1, "  x-1 [abc] 1.0: sbridge_act: act=x", "" },
		{ -1, "  x [000] 1.0: sbridge_act: act=x", "" },
	};
	char out[1024];
	size_t i, n;

	for (i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
		n = sb_rec_escape(esc[i].in, esc[i].len, out, sizeof(out));
		result(n == strlen(esc[i].want) && !strcmp(out, esc[i].want),
		       "record escape %zu -> '%s' (got '%s')", i, esc[i].want, out);
	}
	n = sb_rec_escape("a b", 3, out, 4);
	result(n == (size_t)-1, "record escape refuses a short buffer");
	n = sb_rec_escape("ab", 2, out, 3);
	result(n == 2 && !strcmp(out, "ab"), "record escape fills a buffer exactly");
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		int k = sb_rec_format(lines[i].in, strlen(lines[i].in), out, sizeof(out));

		result(k == lines[i].kind && (k <= 0 || !strcmp(out, lines[i].want)),
		       "record line %zu -> kind %d '%s' (got %d '%s')", i, lines[i].kind,
		       lines[i].want, k, k > 0 ? out : "");
	}
	/* random bytes never crash it and never make a line with a newline */
	for (i = 0; i < 20000; i++) {
		char in[200];
		size_t len = rnd() % sizeof(in), k;
		int kind;

		for (k = 0; k < len; k++)
			in[k] = rnd() % 4 ? " [0]1.:-=_abcdeimnopstw>\xc3"[rnd() % 26] : (char)rnd();
		if (i % 3 == 0 && len > 60)
			memcpy(in, " x-1 [000] 1.0: sbridge_x: comm=", 32);
		kind = sb_rec_format(in, len, out, sizeof(out));
		if (kind > 0 && strchr(out, '\n')) {
			result(0, "record line from random bytes holds a newline");
			return;
		}
	}
	result(1, "record lines from 20000 random inputs");
}

/*
 * record --sbridge-events: the list parsed to a mask and written back in
 * the table's order, every bad word named; the table is the module's
 * events (sbridge-core/trace*.h), no more, no fewer.
 */
static void test_record_events(void)
{
	static const struct {
		const char *in;
		int ok;
		const char *out;	/* the mask written back, or the bad word */
	} cases[] = {
		{ "decide", 1, "decide" },
		{ "decide,act", 1, "decide,act" },
		{ "report,window", 1, "window,report" },
		{ "decide,act,decide", 1, "decide,act" },
		{ "window,phase,period,decide,act,report", 1,
		  "window,phase,period,decide,act,report" },
		{ "all", 1, "window,phase,period,decide,act,report" },
		{ "none", 1, "none" },
		{ "", 0, "" },
		{ "decide,", 0, "" },
		{ ",decide", 0, "" },
		{ "decide,,act", 0, "" },
		{ "none,act", 0, "none" },
		{ "act,all", 0, "all" },
		{ "Decide", 0, "Decide" },
		{ "sbridge_decide", 0, "sbridge_decide" },
		{ "decide act", 0, "decide act" },
		{ "decide,windows", 0, "windows" },
	};
	char out[64], *src[2];
	const char *bad;
	unsigned int mask, seen = 0;
	size_t i, blen, n;
	int ok, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bad = NULL;
		blen = 99;
		mask = 0xdead;
		ok = !sb_rec_parse_events(cases[i].in, &mask, &bad, &blen);
		if (ok) {
			n = sb_rec_events_str(mask, out, sizeof(out));
			result(cases[i].ok && n == strlen(out) && !strcmp(out, cases[i].out),
			       "sbridge events '%s' -> '%s' (got %s '%s')", cases[i].in,
			       cases[i].out, cases[i].ok ? "ok" : "accepted", out);
		} else {
			result(!cases[i].ok && bad && blen == strlen(cases[i].out) &&
			       !memcmp(bad, cases[i].out, blen) &&
			       bad >= cases[i].in && bad + blen <= cases[i].in + strlen(cases[i].in),
			       "sbridge events '%s' refused, naming '%s' (got '%.*s')",
			       cases[i].in, cases[i].out, bad ? (int)blen : 0, bad ? bad : "");
		}
	}
	n = sb_rec_events_str(1u << 3, out, 6);
	result(n == (size_t)-1, "sbridge events string refuses a short buffer");
	n = sb_rec_events_str(1u << 3, out, 7);
	result(n == 6 && !strcmp(out, "decide"), "sbridge events string fills a buffer exactly");
	n = sb_rec_events_str(0, out, 4);
	result(n == (size_t)-1, "sbridge events string: no room for 'none'");
	/* the names are the module's trace events */
	src[0] = slurp("../../../sbridge-core/trace.h", NULL);
	src[1] = slurp("../../../sbridge-core/trace_act.h", NULL);
	for (k = 0; k < 2; k++) {
		const char *p = src[k];

		while (p && (p = strstr(p, "TRACE_EVENT(sbridge_"))) {
			p += strlen("TRACE_EVENT(sbridge_");
			n = strcspn(p, ",");
			for (i = 0; i < SB_REC_NEVENTS; i++)
				if (strlen(sb_rec_events[i]) == n && !memcmp(sb_rec_events[i], p, n))
					break;
			result(i < SB_REC_NEVENTS, "trace event sbridge_%.*s is one record can name",
			       (int)n, p);
			if (i < SB_REC_NEVENTS)
				seen |= 1u << i;
		}
	}
	result(src[0] && src[1] && seen == SB_REC_EV_ALL,
	       "every name record knows is a trace event of sbridge-core (%#x of %#x)", seen,
	       SB_REC_EV_ALL);
	free(src[0]);
	free(src[1]);
}

/*
 * record: the runnable count kept from sched events. Each step feeds one
 * trace_pipe line and states the per-CPU counts after it (4 CPUs); the
 * recorder is pid 999.
 */
static void test_runnable(void)
{
	static const struct { const char *in; int ret; unsigned int nr[4]; } steps[] = {
		/* 0: a wakeup puts pid 10 on CPU 1 (6.1: target_cpu=%03d) */
		{ "  x-1 [000] 1.0: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001",
		  1, { 0, 1, 0, 0 } },
		/* 1: woken again while runnable: no double count */
		{ "  x-1 [002] 1.1: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001",
		  1, { 0, 1, 0, 0 } },
		/* 2: a new task, a comm with spaces and a fake field, 6.12+ extra field */
		{ "  x-1 [000] 1.2: sched_wakeup_new: comm=b pid=3 prio=1 x pid=11 prio=120 "
		  "target_cpu=002 reason=new", 1, { 0, 1, 1, 0 } },
		/* 3: 10 runs on CPU 1, the idle task leaves nothing behind */
		{ "  <idle>-0 [001] 1.3: sched_switch: prev_comm=swapper/1 prev_pid=0 "
		  "prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120",
		  1, { 0, 1, 1, 0 } },
		/* 4: 12 wakes on CPU 1 too */
		{ "  x-1 [001] 1.4: sched_wakeup: comm=c pid=12 prio=120 target_cpu=001",
		  1, { 0, 2, 1, 0 } },
		/* 5: 10 preempted (R+) by 12: both stay runnable on CPU 1 */
		{ "  a-10 [001] 1.5: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
		  "prev_state=R+ ==> next_comm=c next_pid=12 next_prio=120", 1, { 0, 2, 1, 0 } },
		/* 6: the runnable 10 migrates to CPU 3 */
		{ "  x-1 [003] 1.6: sched_migrate_task: comm=a pid=10 prio=120 orig_cpu=1 "
		  "dest_cpu=3", 1, { 0, 1, 1, 1 } },
		/* 7: a sleeping task's migration counts nothing */
		{ "  x-1 [003] 1.7: sched_migrate_task: comm=z pid=50 prio=120 orig_cpu=1 "
		  "dest_cpu=0", 1, { 0, 1, 1, 1 } },
		/* 8: 12 blocks (S): it leaves, CPU 1 goes idle */
		{ "  c-12 [001] 1.8: sched_switch: prev_comm=c prev_pid=12 prev_prio=120 "
		  "prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120",
		  1, { 0, 0, 1, 1 } },
		/* 9: 11 runs on CPU 2 then blocks in D (7.x "D|K" spelling too) */
		{ "  b-11 [002] 1.9: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 "
		  "prev_state=D|K ==> next_comm=swapper/2 next_pid=0 next_prio=120",
		  1, { 0, 0, 0, 1 } },
		/* 10: a task never woken in our view, switched in: running counts */
		{ "  <idle>-0 [000] 2.0: sched_switch: prev_comm=swapper/0 prev_pid=0 "
		  "prev_prio=120 prev_state=R ==> next_comm=d next_pid=13 next_prio=120",
		  1, { 1, 0, 0, 1 } },
		/* 11: 13 yields runnable (R) to 10, which migrated here */
		{ "  x-1 [000] 2.05: sched_migrate_task: comm=a pid=10 prio=120 orig_cpu=3 "
		  "dest_cpu=0", 1, { 2, 0, 0, 0 } },
		{ "  d-13 [000] 2.1: sched_switch: prev_comm=d prev_pid=13 prev_prio=120 "
		  "prev_state=R ==> next_comm=a next_pid=10 next_prio=120", 1, { 2, 0, 0, 0 } },
		/* 13: the recorder itself never counts */
		{ "  x-1 [002] 2.2: sched_wakeup: comm=sbridgectl pid=999 prio=120 "
		  "target_cpu=002", 1, { 2, 0, 0, 0 } },
		/* 14: a dead task (X) leaves */
		{ "  a-10 [000] 2.3: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 "
		  "prev_state=X ==> next_comm=d next_pid=13 next_prio=120", 1, { 1, 0, 0, 0 } },
		/* 15: a wakeup onto a CPU past the table: counted nowhere */
		{ "  x-1 [000] 2.4: sched_wakeup: comm=e pid=14 prio=120 target_cpu=009",
		  1, { 1, 0, 0, 0 } },
		/* other events, and broken ones, change nothing */
		{ "  x-1 [000] 2.5: sbridge_period: n=3 want_fast=1", 0, { 1, 0, 0, 0 } },
		{ "  x-1 [000] 2.6: sched_wakeup: comm=e pid=15 prio=120", -1, { 1, 0, 0, 0 } },
		{ "  x-1 [000] 2.7: sched_wakeup: comm=e pid=x prio=120 target_cpu=000",
		  -1, { 1, 0, 0, 0 } },
		{ "  x-1 [000] 2.8: sched_migrate_task: comm=d pid=13 prio=120 orig_cpu=0",
		  -1, { 1, 0, 0, 0 } },
		{ "  x-1 [000] 2.9: sched_switch: prev_comm=d prev_pid=13 prev_prio=120 "
		  "prev_state=S ==> next_comm=b next_pid=2", -1, { 1, 0, 0, 0 } },
	};
	static struct sb_rec_rq q;
	unsigned int nr[4], want[4], i, k;
	struct sb_rec_trace t;
	int ok;

	sb_rec_rq_init(&q, nr, 4, 999);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int ret = sb_rec_parse_trace(steps[i].in, strlen(steps[i].in), &t) ? -2 :
			  sb_rec_rq_event(&q, &t);

		result(ret == steps[i].ret && !memcmp(nr, steps[i].nr, sizeof(nr)),
		       "runnable step %u -> %d [%u %u %u %u] (got %d [%u %u %u %u])", i,
		       steps[i].ret, steps[i].nr[0], steps[i].nr[1], steps[i].nr[2],
		       steps[i].nr[3], ret, nr[0], nr[1], nr[2], nr[3]);
	}
	/* a reseed starts from nothing */
	sb_rec_rq_clear(&q);
	result(!nr[0] && !nr[1] && !nr[2] && !nr[3] && !q.used, "runnable clear empties it");
	/* random churn against a plain model: deletions keep every pid findable */
	{
		static unsigned char model[5000];	/* cpu + 1, 0: not runnable */

		memset(model, 0, sizeof(model));
		for (i = 0, ok = 1; i < 200000 && ok; i++) {
			int pid = 1 + (int)(rnd() % 2999);

			/* about 1500 runnable: below the cap, a loaded table */
			if (rnd() % 2) {
				k = (unsigned int)(rnd() % 4);
				sb_rec_rq_set(&q, pid, k);
				if (pid != 999)
					model[pid] = (unsigned char)(k + 1);
			} else {
				sb_rec_rq_del(&q, pid);
				model[pid] = 0;
			}
			if (i % 997)
				continue;
			memset(want, 0, sizeof(want));
			for (k = 1; k < 5000; k++)
				if (model[k])
					want[model[k] - 1]++;
			ok = !memcmp(want, nr, sizeof(nr)) && !q.overflow;
		}
		result(ok, "runnable table matches a model over 200000 random changes");
		/* more than SB_REC_RQ_MAX runnable: bounded, the rest counted as left out */
		sb_rec_rq_clear(&q);
		q.overflow = 0;
		for (k = 1; k <= SB_REC_RQ_MAX + 10; k++)
			sb_rec_rq_set(&q, (int)k * 7919, 0);
		result(nr[0] == SB_REC_RQ_MAX && q.used == SB_REC_RQ_MAX && q.overflow == 10,
		       "runnable table is capped at %d (got %u, %llu left out)", SB_REC_RQ_MAX,
		       nr[0], q.overflow);
		for (k = 1; k <= SB_REC_RQ_MAX + 10; k++)
			sb_rec_rq_del(&q, (int)k * 7919);
		result(nr[0] == 0 && q.used == 0, "runnable table empties after the cap");
	}
}

/* Runs the binary; returns its exit status and its stderr in @err. */
static int run(const char *bin, char *err, size_t errlen, char *const *args)
{
	char *argv[16];
	int pfd[2], st, i;
	ssize_t n;
	size_t o = 0;
	pid_t pid;

	argv[0] = (char *)bin;
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (!pid) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execv(bin, argv);
		_exit(127);
	}
	close(pfd[1]);
	while (o + 1 < errlen && (n = read(pfd[0], err + o, errlen - 1 - o)) > 0)
		o += (size_t)n;
	while (o && err[o - 1] == '\n')
		o--;
	err[o] = '\0';
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Two temporary files for a run's stdout and stderr (mkstemp templates). */
struct out_files {
	char po[32], pe[32];
	int fo, fe;
};

static int out_files_open(struct out_files *f)
{
	strcpy(f->po, "/tmp/sbridge-ctl-out.XXXXXX");
	strcpy(f->pe, "/tmp/sbridge-ctl-err.XXXXXX");
	f->fo = mkstemp(f->po);
	f->fe = mkstemp(f->pe);
	return f->fo < 0 || f->fe < 0 ? -1 : 0;
}

/* Closes both files and hands back what was written to them. */
static void out_files_take(struct out_files *f, char **out, char **err)
{
	close(f->fo);
	close(f->fe);
	*out = slurp(f->po, NULL);
	*err = slurp(f->pe, NULL);
	unlink(f->po);
	unlink(f->pe);
}

/* Runs the binary with stdout and stderr in files; returns its exit status
 * and both outputs (malloc'ed, NUL-terminated). */
static int run_both(const char *bin, char *const *args, char **out, char **err)
{
	struct out_files f;
	char *argv[16];
	int st, i;
	pid_t pid;

	*out = *err = NULL;
	if (out_files_open(&f))
		return -1;
	argv[0] = (char *)bin;
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	if (!pid) {
		dup2(f.fo, 1);
		dup2(f.fe, 2);
		execv(bin, argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	out_files_take(&f, out, err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * Calls @fn(@arg) in this process, so ASan and LSan watch it, with stdout
 * and stderr in files; returns what it returned, and the two outputs in
 * *@out and *@err (malloc'ed).
 */
static int capture(int (*fn)(const void *), const void *arg, char **out, char **err)
{
	struct out_files f;
	int so, se, r;

	*out = *err = NULL;
	if (out_files_open(&f))
		return -1;
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(f.fo, 1);
	dup2(f.fe, 2);
	r = fn(arg);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	out_files_take(&f, out, err);
	return r;
}

static const struct sb_cpu test_cpus[] = {
	{ .id = 0, .type = 0, .capacity = 446, .orig_capacity = 446, .factor = 2355,
	  .factor_nominal = 2355, .override = 0, .model = "little" },
	{ .id = 1, .type = 1, .capacity = 1024, .orig_capacity = 1024, .factor = 1024,
	  .factor_nominal = 1024, .override = 1536, .model = "big", .pmu = "rig_pmu",
	  .pmu_chain = "rig: llc_misses LL_CACHE_MISS (fallback), stall_cycles STALL_BACKEND_MEM" },
};

static int show_cpus(const void *json)
{
	sb_json = json != NULL;
	if (sb_json) {
		sb_js_obj_begin(NULL);
		get_json_cpus(test_cpus, 2, NULL);
		sb_js_obj_end();
	} else {
		get_print_cpus(test_cpus, 2, NULL);
	}
	sb_json = 0;
	return 0;
}

/* get: no override is "-" in the table and null in JSON, never 0 */
static void test_get_cpus(void)
{
	char *out, *err, *l, ov[2][16] = { "", "" };
	int i;

	capture(show_cpus, NULL, &out, &err);
	/* CPU TYPE CLUSTER CAPACITY ORIG FACTOR NOMINAL OVERRIDE ... */
	for (i = 0, l = out; l && (l = strchr(l, '\n')) && i < 2; i++)
		if (sscanf(++l, "%*u %*u %*u %*u %*u %*s %*s %15s", ov[i]) != 1)
			break;
	result(!strcmp(ov[0], "-") && !strcmp(ov[1], "1.5"),
	       "get: override '-' for none, 1.5 for CPU 1:\n%s", out ? out : "");
	/* PMU and EVENTS close each line: "-" where the source says none */
	result(out && strstr(out, " PMU ") && strstr(out, " EVENTS\n") &&
	       strstr(out, " little       -            -                -\n") &&
	       strstr(out, " rig_pmu          rig: llc_misses LL_CACHE_MISS (fallback), "
			   "stall_cycles STALL_BACKEND_MEM\n"),
	       "get: the PMU and its event chain per CPU, '-' for none:\n%s", out ? out : "");
	free(out);
	free(err);
	capture(show_cpus, "", &out, &err);
	result(out && strstr(out, "{\"cpu\":0,") && strstr(out, "\"override\":null,") &&
	       strstr(out, "\"override\":1.5,") && !strstr(out, "\"override\":0"),
	       "get --json: override null for none, 1.5 for CPU 1: %s", out ? out : "");
	result(out && strstr(out, "\"pmu\":null,\"pmu_chain\":null}") &&
	       strstr(out, "\"pmu\":\"rig_pmu\",\"pmu_chain\":\"rig: llc_misses LL_CACHE_MISS "
			   "(fallback), stall_cycles STALL_BACKEND_MEM\"}"),
	       "get --json: pmu and pmu_chain, null for none: %s", out ? out : "");
	free(out);
	free(err);
}

struct show_params {
	const char *path, *name;
	int json;
};

static int show_params(const void *arg)
{
	const struct show_params *a = arg;
	int r;

	sb_json = a->json;
	r = get_show_params(a->path, a->name);
	sb_json = 0;
	return r;
}

/* get param [NAME] over a made-up params file */
static void test_get_params(void)
{
	static const char path[] = "/tmp/sbridge-ctl-params";
	static const struct {
		const char *name;
		int json, code;
		const char *out, *err;
	} cases[] = {
		{ NULL, 0, 0, "learning         1\nwindow_instr     1000000\n"
		  "act.gain         154\nact.placement    0\nchecker.grace_ms 18446744073709551615\n", "" },
		{ "act.gain", 0, 0, "act.gain 154\n", "" },
		{ "checker.grace_ms", 0, 0, "checker.grace_ms 18446744073709551615\n", "" },
		{ "act.gai", 0, 2, "",
		  "sbridgectl: unknown parameter 'act.gai' (sbridgectl get param lists them)\n" },
		{ "act.gain", 1, 0, "{\"param\":\"act.gain\",\"value\":154}\n", "" },
		{ NULL, 1, 0, "{\"params\":[{\"param\":\"learning\",\"value\":1},"
		  "{\"param\":\"window_instr\",\"value\":1000000},"
		  "{\"param\":\"act.gain\",\"value\":154},"
		  "{\"param\":\"act.placement\",\"value\":0},"
		  "{\"param\":\"checker.grace_ms\",\"value\":18446744073709551615}]}\n", "" },
		{ "nope", 1, 2, "",
		  "sbridgectl: unknown parameter 'nope' (sbridgectl get param lists them)\n" },
	};
	struct show_params a = { path, NULL, 0 };
	char *out, *err;
	size_t i;
	int r;

	write_file(path, "learning 1\nwindow_instr 1000000\nact.gain 154\nact.placement 0\n"
		   "checker.grace_ms 18446744073709551615\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		a.name = cases[i].name;
		a.json = cases[i].json;
		r = capture(show_params, &a, &out, &err);
		result(r == cases[i].code && out && err && !strcmp(out, cases[i].out) &&
		       !strcmp(err, cases[i].err),
		       "get%s param %s -> exit %d (got %d): %s%s", a.json ? " --json" : "",
		       a.name ? a.name : "", cases[i].code, r, out ? out : "", err ? err : "");
		free(out);
		free(err);
	}
	unlink(path);
	a.name = NULL;
	a.json = 0;
	r = capture(show_params, &a, &out, &err);
	result(r == 1 && out && !out[0] && err &&
	       !strcmp(err, "sbridgectl: cannot read /tmp/sbridge-ctl-params: No such file or directory\n"),
	       "get param without the params file -> exit 1: %s", err ? err : "");
	free(out);
	free(err);
	/* bash completion offers param after get, as after set */
	{
		char *sh[] = { "--norc", "--noprofile", "-c",
			"source ../../../userspace-ctl/completion/sbridgectl.bash; "
			"COMP_WORDS=(sbridgectl get ''); COMP_CWORD=2; _sbridgectl; "
			"echo \"${COMPREPLY[*]}\"", NULL };

		r = run_both("/bin/bash", sh, &out, &err);
		result(r == 0 && out && !strcmp(out, "cpu-factor param predictor\n"),
		       "bash completion: get -> cpu-factor param predictor (got %s)", out ? out : "");
	}
	free(out);
	free(err);
}

/*
 * `config check --print` against golden/config: NAME.conf with NAME.out
 * (exit 0, the canonical settings on stdout) or NAME.err (exit 2, the
 * FILE:LINE:COL messages on stderr, nothing on stdout).
 */
static void test_config_golden(const char *bin)
{
	struct dirent *de;
	char *names[256];
	size_t n = 0, i;
	DIR *d = opendir("golden/config");

	if (!d) {
		result(0, "golden/config directory missing");
		return;
	}
	while ((de = readdir(d)) && n < 256)
		if (ends_with(de->d_name, ".conf"))
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	result(n >= 10, "golden/config holds %zu cases", n);
	for (i = 0; i < n; i++) {
		char path[512], exp[512], *want, *out, *err;
		char *args[] = { "config", "check", "--print", path, NULL };
		int code, want_code = 0, ok;

		snprintf(path, sizeof(path), "golden/config/%s", names[i]);
		snprintf(exp, sizeof(exp), "golden/config/%.*s.out",
			 (int)strlen(names[i]) - 5, names[i]);
		want = slurp(exp, NULL);
		if (!want) {
			snprintf(exp, sizeof(exp), "golden/config/%.*s.err",
				 (int)strlen(names[i]) - 5, names[i]);
			want = slurp(exp, NULL);
			want_code = 2;
		}
		code = run_both(bin, args, &out, &err);
		if (!want) {
			result(0, "config golden %s: no .out or .err file", names[i]);
		} else {
			const char *got = want_code ? err : out;

			ok = code == want_code && got && !strcmp(got, want) &&
			     (want_code ? out && !out[0] : err && !err[0]);
			result(ok, "config golden %s -> exit %d%s%s%s%s", names[i], want_code,
			       ok ? "" : ": got exit ", ok ? "" : (code ? "non-zero " : "0 "),
			       ok ? "" : err ? err : "", ok ? "" : out ? out : "");
		}
		/* The canonical form is itself a good file that prints the same. */
		if (want && !want_code && out) {
			char tmp[] = "/tmp/sbridge-ctl-conf.XXXXXX";
			char *args2[] = { "config", "check", "--print", tmp, NULL };
			char *out2, *err2;
			int fd = mkstemp(tmp), c2;

			if (fd < 0 || write(fd, out, strlen(out)) != (ssize_t)strlen(out))
				result(0, "write %s", tmp);
			c2 = run_both(bin, args2, &out2, &err2);
			result(!c2 && out2 && !strcmp(out2, out),
			       "config golden %s: canonical form round-trips", names[i]);
			free(out2);
			free(err2);
			if (fd >= 0)
				close(fd);
			unlink(tmp);
		}
		free(want);
		free(out);
		free(err);
		free(names[i]);
	}
}

/* Whole files through `config check`: random bytes, long lines, many errors,
 * standard input; and `config apply` of a bad file fails before it looks for
 * the module. */
static void test_config_files(const char *bin)
{
	char path[] = "/tmp/sbridge-ctl-cfg.XXXXXX";
	char *args[] = { "config", "check", path, NULL };
	char *apply[] = { "config", "apply", path, NULL };
	char *out, *err, *buf;
	int fd = mkstemp(path), code, i, clean = 1;
	size_t k, len;

	if (fd < 0) {
		result(0, "mkstemp: %s", strerror(errno));
		return;
	}
	buf = malloc(1 << 20);
	for (i = 0; i < 200; i++) {
		len = rnd() % 4096;
		for (k = 0; k < len; k++)
			buf[k] = (char)rnd();
		if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
			result(0, "write %s", path);
		code = run_both(bin, args, &out, &err);
		if (code != 2 || !err || strncmp(err, "sbridgectl: ", 12) ||
		    !strstr(err, path))
			clean = 0;
		free(out);
		free(err);
	}
	result(clean, "config check of 200 random files -> exit 2 naming the file");
	memset(buf, 'x', 1 << 20);
	if (ftruncate(fd, 0) || pwrite(fd, buf, 1 << 20, 0) != (1 << 20))
		result(0, "write %s", path);
	code = run_both(bin, args, &out, &err);
	result(code == 2 && err && strstr(err, ":1:4097: line too long"),
	       "config check of a 1 MB line -> exit 2: %s", err ? err : "");
	free(out);
	free(err);
	/* 100 bad lines: the first 50 reported, then a stop */
	for (len = 0, i = 0; i < 100; i++)
		len += (size_t)sprintf(buf + len, "param act.gain x%d\n", i);
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		result(0, "write %s", path);
	code = run_both(bin, args, &out, &err);
	result(code == 2 && err && strstr(err, ":50:16: bad value 'x49'") &&
	       !strstr(err, ":52:") && strstr(err, "too many errors"),
	       "config check of 100 bad lines stops after 50");
	free(out);
	free(err);
	/* standard input */
	{
		char *sargs[] = { "-c", "", NULL };
		char sh[512];

		snprintf(sh, sizeof(sh), "printf 'param act.gain 1\\nfrob\\n' | '%s' config check -",
			 bin);
		sargs[1] = sh;
		code = run_both("/bin/sh", sargs, &out, &err);
		result(code == 2 && err && strstr(err, "<stdin>:2:1: unknown keyword 'frob'"),
		       "config check - reads standard input: %s", err ? err : "");
		free(out);
		free(err);
	}
	/* a bad file is refused before the module is looked for: exit 2, not 3 */
	len = (size_t)sprintf(buf, "param act.gain 154\ncpu-factor 1-3 fast\n");
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		result(0, "write %s", path);
	code = run_both(bin, apply, &out, &err);
	result(code == 2 && err && strstr(err, ":2:16: bad factor 'fast'") && !strstr(err, "module"),
	       "config apply of a bad file -> exit 2 before the module: %s", err ? err : "");
	free(out);
	free(err);
	/* a good file without the module (the host never has it): exit 3 */
	len = (size_t)sprintf(buf, "param act.gain 154\ncpu-factor 1-3 1.5\n");
	if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
		result(0, "write %s", path);
	code = run_both(bin, apply, &out, &err);
	if (code == 3) {
		result(err && strstr(err, "not loaded") != NULL, "config apply without module -> exit 3");
	} else {
		printf("ok %d - # SKIP config apply without module: module present?\n",
		       passed + failed + skipped + 1);
		skipped++;
	}
	free(out);
	free(err);
	free(buf);
	close(fd);
	unlink(path);
}

static void test_cli(const char *bin)
{
	static const struct { int code; const char *want; char *args[8]; } cases[] = {
		{ 2, "usage", { NULL } },
		{ 2, "unknown command 'frobnicate'", { "frobnicate", NULL } },
		{ 2, "unknown option '--bogus'", { "--bogus", "status", NULL } },
		{ 2, "unexpected argument 'extra'", { "status", "extra", NULL } },
		{ 2, "unknown option '--frob'", { "status", "--frob", NULL } },
		{ 2, "bad CPU list '0-3,x'", { "set", "cpu-factor", "0-3,x", "1", NULL } },
		{ 2, "range end below its start", { "set", "cpu-factor", "5-3", "1", NULL } },
		{ 2, "CPU number too large", { "set", "cpu-factor", "9000", "1", NULL } },
		{ 2, "factor '9' out of range", { "set", "cpu-factor", "0", "9", NULL } },
		{ 2, "factor '0.1' out of range", { "set", "cpu-factor", "0", "0.1", NULL } },
		{ 2, "bad factor '1.2.3'", { "set", "cpu-factor", "0", "1.2.3", NULL } },
		{ 2, "bad factor 'fast'", { "set", "cpu-factor", "0-1", "fast", NULL } },
		{ 2, "'-1...' is a negative number", { "set", "cpu-factor", "0", "-1", NULL } },
		{ 2, "takes exactly two arguments", { "set", "cpu-factor", "0", NULL } },
		{ 2, "unknown setting 'speed'", { "set", "speed", "1", NULL } },
		{ 2, "bad value 'x'", { "set", "param", "foo", "x", NULL } },
		{ 2, "bad parameter name", { "set", "param", "Bad Name", "1", NULL } },
		{ 2, "bad CPU list", { "get", "1-", NULL } },
		{ 2, "bad parameter name 'Bad Name'", { "get", "param", "Bad Name", NULL } },
		{ 2, "get param takes at most one NAME", { "get", "param", "a", "b", NULL } },
		{ 2, "bad CPU list 'param'", { "get", "cpu-factor", "param", NULL } },
		/* parsed (a name, CPUs): on to the module */
		{ 3, "not loaded", { "get", "param", NULL } },
		{ 3, "not loaded", { "--json", "get", "param", "act.gain", NULL } },
		{ 3, "not loaded", { "get", "0-1", NULL } },
		{ 2, "unknown sort key 'size'", { "tasks", "--sort=size", NULL } },
		{ 2, "bad PID 'abc'", { "tasks", "--pid", "abc", NULL } },
		{ 2, "unknown class 'fast'", { "tasks", "--class=fast", NULL } },
		{ 2, "needs a value", { "tasks", "--limit", NULL } },
		{ 2, "bad interval '0.01'", { "top", "--interval=0.01", NULL } },
		{ 2, "bad count '0'", { "events", "--count=0", NULL } },
		{ 2, "bad timeout '1.2345'", { "events", "--timeout=1.2345", NULL } },
		{ 2, "bad timeout '0.000'", { "events", "--timeout=0.000", NULL } },
		{ 2, "bad timeout '.5'", { "events", "--timeout=.5", NULL } },
		{ 2, "bad timeout '2.'", { "events", "--timeout=2.", NULL } },
		{ 2, "bad interval '0.099'", { "top", "--interval=0.099", NULL } },
		{ 2, "bad interval '3600.001'", { "top", "--interval=3600.001", NULL } },
		/* parsed: on to the module, which the host does not have */
		{ 3, "not loaded", { "events", "--timeout=0.25", NULL } },
		{ 3, "not loaded", { "top", "--interval=0.1", "--iterations=1", NULL } },
		{ 0, "", { "help", "--help", NULL } },
		{ 2, "unknown command 'bogus'", { "help", "bogus", NULL } },
		{ 2, "missing action", { "rules", NULL } },
		{ 2, "unknown action 'reload'", { "rules", "reload", NULL } },
		{ 2, "needs at least one PATH", { "rules", "load", NULL } },
		{ 2, "err-unknown-class.rules:1:14: unknown class 'fast'",
		  { "rules", "load", "golden/err-unknown-class.rules", NULL } },
		{ 2, "inc/cyc-b.rules:1:9: include cycle",
		  { "rules", "check", "golden/err-include-cycle.rules", NULL } },

		{ 0, "", { "rules", "check", "--print", "golden/basic.rules", NULL } },
		{ 0, "", { "--json", "rules", "check", "golden/factors.rules", NULL } },
		{ 2, "takes no arguments", { "rules", "list", "x", NULL } },
		{ 2, "needs exactly one FILE", { "matrix", "save", NULL } },
		{ 2, "bad.matrix:2:17: core type must be 0-3",
		  { "matrix", "load", "golden/bad.matrix", NULL } },
		{ 2, "bad-speedup.matrix:2:60: speedup must be a decimal in [0.125, 8]",
		  { "matrix", "load", "golden/bad-speedup.matrix", NULL } },
		{ 2, "unknown sort key 'meas'", { "tasks", "--sort=meas", NULL } },
		{ 2, "cannot read 'golden/missing.matrix': No such file",
		  { "matrix", "load", "golden/missing.matrix", NULL } },
		{ 2, "unknown action 'dump'", { "matrix", "dump", NULL } },
		{ 2, "unexpected argument", { "check", "now", NULL } },
		{ 0, "", { "--help", NULL } },
		{ 0, "", { "--version", NULL } },
		{ 0, "", { "help", "rules", NULL } },
		{ 0, "", { "status", "--help", NULL } },
		{ 0, "", { "get", "--help", NULL } },
		{ 0, "", { "set", "--help", NULL } },
		{ 0, "", { "tasks", "--help", NULL } },
		{ 0, "", { "top", "--help", NULL } },
		{ 0, "", { "matrix", "--help", NULL } },
		{ 0, "", { "check", "--help", NULL } },
		{ 0, "", { "events", "--help", NULL } },
		{ 0, "", { "config", "--help", NULL } },
		{ 2, "missing action", { "config", NULL } },
		{ 2, "unknown action 'load'", { "config", "load", "x", NULL } },
		{ 2, "needs exactly one FILE", { "config", "check", NULL } },
		{ 2, "needs exactly one FILE", { "config", "apply", "a", "b", NULL } },
		{ 2, "at most one FILE", { "config", "save", "a", "b", NULL } },
		{ 2, "--print is for config check", { "config", "apply", "--print", "x", NULL } },
		{ 2, "cannot read 'golden/config/missing.conf': No such file",
		  { "config", "check", "golden/config/missing.conf", NULL } },
		{ 2, "err-bad-factor.conf:1:16: bad factor 'fast'",
		  { "config", "check", "golden/config/err-bad-factor.conf", NULL } },
		{ 0, "", { "config", "check", "../../../dist/etc/sbridge/sbridge.conf", NULL } },
		{ 0, "", { "config", "check", "golden/config/good.conf", NULL } },
		{ 0, "", { "record", "--help", NULL } },
		{ 2, "bad rate '0'", { "record", "-r", "0", NULL } },
		{ 2, "bad rate '101'", { "record", "--rate=101", NULL } },
		{ 2, "bad size limit '4095'", { "record", "-s", "4095", NULL } },
		{ 2, "bad size limit '1T'", { "record", "--max-size=1T", NULL } },
		{ 2, "bad size limit '1025M'", { "record", "--max-size=1025M", NULL } },
		{ 2, "bad buffer size '65535'", { "record", "-b", "65535", NULL } },
		{ 2, "bad buffer size '2G'", { "record", "--buffer=2G", NULL } },
		{ 2, "bad buffer size 'x'", { "record", "--defer", "-b", "x", NULL } },
		{ 2, "bad duration '1.5'", { "record", "-d", "1.5", NULL } },
		{ 2, "bad duration '0'", { "record", "--duration=0", NULL } },
		{ 2, "unexpected argument 'now'", { "record", "now", NULL } },
		{ 2, "empty output file name", { "record", "-o", "", NULL } },
		{ 2, "--json does not apply", { "--json", "record", NULL } },
		{ 2, "--sbridge-events: unknown event 'windows' (known: window, phase, period, "
		  "decide, act, report; or all, none)",
		  { "record", "--sbridge-events=decide,windows", NULL } },
		{ 2, "unknown event 'sbridge_decide'", { "record", "--sbridge-events", "sbridge_decide",
							  NULL } },
		{ 2, "--sbridge-events 'decide,': an empty name",
		  { "record", "--sbridge-events=decide,", NULL } },
		{ 2, "--sbridge-events '': an empty name", { "record", "--sbridge-events=", NULL } },
		{ 2, "'none' stands alone, not in a list",
		  { "record", "--sbridge-events=none,decide", NULL } },
		{ 2, "'all' stands alone", { "record", "--sbridge-events=window,all", NULL } },
		{ 2, "option '--sbridge-events' needs a value", { "record", "--sbridge-events", NULL } },
		{ 2, "exists; not overwriting it without --force",
		  { "record", "-o", "golden/basic.rules", NULL } },
		{ 0, "", { "--json", "config", "check", "golden/config/good.conf", NULL } },
		/* hintmap: arguments, then the path, all before bpf(2) or the module */
		{ 0, "", { "hintmap", "--help", NULL } },
		{ 2, "missing action", { "hintmap", NULL } },
		{ 2, "unknown action 'load'", { "hintmap", "load", "x", NULL } },
		{ 2, "hintmap write takes exactly one PATH", { "hintmap", "write", NULL } },
		{ 2, "hintmap dump takes exactly one PATH", { "hintmap", "dump", "a", "b", NULL } },
		{ 2, "bad base '1023' (0 to 1022)", { "hintmap", "write", "--base=1023", "p", NULL } },
		{ 2, "bad base '-1'", { "hintmap", "write", "--base", "-1", "p", NULL } },
		{ 2, "bad interval '0.05'", { "hintmap", "write", "--interval=0.05", "p", NULL } },
		{ 2, "bad interval '3600.5'", { "hintmap", "write", "--interval=3600.5", "p", NULL } },
		{ 2, "bad name '0123456789abcdef'",
		  { "hintmap", "write", "--comm=0123456789abcdef", "p", NULL } },
		{ 2, "bad name ''", { "hintmap", "write", "--comm=", "p", NULL } },
		{ 2, "are for hintmap write", { "hintmap", "dump", "--comm=spin", "p", NULL } },
		{ 2, "are for hintmap write", { "hintmap", "create", "--base=1", "p", NULL } },
		{ 2, "--keep goes with --interval", { "hintmap", "write", "--keep", "p", NULL } },
		{ 2, "golden/missing: No such file", { "hintmap", "dump", "golden/missing", NULL } },
		{ 2, "golden: is a directory", { "hintmap", "dump", "golden", NULL } },
		{ 2, "/dev/null: not a pinned BPF object", { "hintmap", "write", "/dev/null", NULL } },
		{ 2, "golden/basic.rules: not on a BPF filesystem",
		  { "hintmap", "write", "golden/basic.rules", NULL } },
		{ 2, "golden/sb-hm-new: not on a BPF filesystem",
		  { "hintmap", "create", "golden/sb-hm-new", NULL } },
		{ 2, "golden/basic.rules: exists", { "hintmap", "create", "golden/basic.rules", NULL } },
	};
	char err[4096], cmd[256];
	size_t i;
	int k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int code = run(bin, err, sizeof(err), cases[i].args);
		size_t o = 0;

		cmd[0] = '\0';
		for (k = 0; cases[i].args[k]; k++)
			o += (size_t)snprintf(cmd + o, sizeof(cmd) - o, " %s", cases[i].args[k]);
		result(code == cases[i].code && strstr(err, cases[i].want) &&
		       (code || !err[0]),
		       "sbridgectl%s -> exit %d%s%s", cmd, cases[i].code,
		       code == cases[i].code ? "" : " (got another)",
		       code == cases[i].code && strstr(err, cases[i].want) ? "" : err);
	}
	/* A bad --sbridge-events after -o: refused before the file is made. */
	{
		char *args[] = { "record", "-o", "rec-bad-events.rec", "-d", "1",
				 "--sbridge-events=decide,bogus", NULL };

		unlink("rec-bad-events.rec");
		k = run(bin, err, sizeof(err), args);
		result(k == 2 && strstr(err, "unknown event 'bogus'") &&
		       access("rec-bad-events.rec", F_OK),
		       "record --sbridge-events=decide,bogus: exit 2, no file (%d: %s)", k, err);
		unlink("rec-bad-events.rec");
	}
	/* Warnings on a set that parses: exit 0, said on stderr. */
	{
		char *shipped[] = { "rules", "check", "../../../rules", NULL };
		char *empty[] = { "rules", "check", "golden/empty.rules", NULL };
		char *inverted[] = { "rules", "check", "golden/warn-factor-inverted.rules", NULL };
		char *json[] = { "--json", "rules", "check", "../../../rules", NULL };
		char *pipe_in[] = { "rules", "check", "/dev/stdin", NULL };
		char *out, *e2;
		int code;

		code = run(bin, err, sizeof(err), shipped);
		result(code == 0 && !strstr(err, "warning"),
		       "rules check of rules/ (README.md in it) -> exit 0, nothing warned of: %s",
		       err);
		code = run(bin, err, sizeof(err), inverted);
		result(code == 0 && strstr(err, "warn-factor-inverted.rules:1: factor little=0.600 big=1.000 makes a little core the faster (speedup 0.600), against its prefer=big") &&
		       !strstr(err, ".rules:2:") && !strstr(err, ".rules:3:"),
		       "rules check: factors that make little the faster, against prefer=big -> exit 0, warned of that rule only: %s",
		       err);
		code = run(bin, err, sizeof(err), empty);
		result(code == 0 && strstr(err, "warning: no rules"),
		       "rules check of an empty file -> exit 0, a warning: %s", err);
		code = run_both(bin, json, &out, &e2);
		result(code == 0 && out && strstr(out, "\"ok\":true,\"count\":55,\"skipped\":0,") &&
		       !strstr(out, "\"rules\""),
		       "--json rules check: count and skipped, no rules array without --print: %s",
		       out ? out : "");
		free(out);
		free(e2);
		/* run_both's child inherits our stdin: make it a pipe holding a rule */
		{
			int p[2], save = dup(0);

			if (pipe(p) || write(p[1], "comm=x class=compute\n", 21) != 21)
				result(0, "pipe: %s", strerror(errno));
			close(p[1]);
			dup2(p[0], 0);
			code = run_both(bin, pipe_in, &out, &e2);
			dup2(save, 0);
			close(save);
			close(p[0]);
		}
		result(code == 0 && out && strstr(out, "1 rule OK"),
		       "rules check /dev/stdin reads a pipe: %s", out ? out : "");
		free(out);
		free(e2);
	}
	/* Whole files through the binary: random bytes, 100 000 rules, 1 MB line. */
	{
		char path[] = "/tmp/sbridge-ctl-cli.XXXXXX";
		char *args[] = { "rules", "check", path, NULL };
		int fd = mkstemp(path), code;
		char *buf;
		size_t len, k;

		if (fd < 0) {
			result(0, "mkstemp: %s", strerror(errno));
			return;
		}
		buf = malloc(1 << 20);
		for (k = 0; k < (1 << 20); k++)
			buf[k] = (char)rnd();
		code = (int)write(fd, buf, 1 << 20);
		code = run(bin, err, sizeof(err), args);
		result(code == 2 && strstr(err, path), "rules check of 1 MB random bytes -> exit 2: %s",
		       err);
		free(buf);
		buf = make_rules(100000, &len);
		if (ftruncate(fd, 0) || pwrite(fd, buf, len, 0) != (ssize_t)len)
			result(0, "write %s", path);
		code = run(bin, err, sizeof(err), args);
		result(code == 2 && strstr(err, ":4097:1: too many rules"),
		       "rules check of 100000 rules -> exit 2: %s", err);
		free(buf);
		buf = malloc(1 << 20);
		memset(buf, 'x', 1 << 20);
		if (ftruncate(fd, 0) || pwrite(fd, buf, 1 << 20, 0) != (1 << 20))
			result(0, "write %s", path);
		code = run(bin, err, sizeof(err), args);
		result(code == 2 && strstr(err, ":1:4097: line too long"),
		       "rules check of a 1 MB line -> exit 2: %s", err);
		free(buf);
		close(fd);
		unlink(path);
	}
	/* Without the module (the host never has it) commands that need it exit 3. */
	{
		char *args[] = { "status", NULL };
		int code = run(bin, err, sizeof(err), args);

		if (code == 3)
			result(strstr(err, "not loaded") != NULL, "status without module -> exit 3");
		else {
			printf("ok %d - # SKIP status without module: module present?\n",
			       passed + failed + skipped + 1);
			skipped++;
		}
	}
	{
		char *args[] = { "--json", "status", NULL }, *out, *e2;
		int code = run_both(bin, args, &out, &e2);

		if (code == 3)
			result(out && !strncmp(out, "{\"loaded\":false,\"installed\":", 25) &&
			       out[strlen(out) - 1] == '\n' && strchr(out, '}'),
			       "--json status without module -> JSON and exit 3: %s", out);
		else {
			printf("ok %d - # SKIP --json status without module: module present?\n",
			       passed + failed + skipped + 1);
			skipped++;
		}
		free(out);
		free(e2);
	}
}

/* Small parser messages a user met (usability.md item 7). */
static void test_parser_messages(void)
{
	static const char dir[] = "/tmp/sb-a-directory-name-long-enough-to-be-clipped/sub";
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error e;
	int r;

	write_file("/tmp/sb-bom.rules", "\xef\xbb\xbf" "comm=x class=compute\n");
	r = sb_rp_parse_path(&set, "/tmp/sb-bom.rules", &e);
	result(!r && set.n == 1, "a UTF-8 byte order mark is skipped: %s", e.msg);
	sb_rp_free(&set);
	unlink("/tmp/sb-bom.rules");

	r = sb_rp_parse_path(&set, "/nonexistent.rules", &e);
	result(r && !strcmp(e.msg, "cannot open '/nonexistent.rules': No such file or directory"),
	       "a missing file is named once: %s", e.msg);
	sb_rp_free(&set);

	write_file("/tmp/sb-inc.rules", "include %s/the-missing-file.rules\n", dir);
	r = sb_rp_parse_path(&set, "/tmp/sb-inc.rules", &e);
	result(r && strstr(e.msg, "/the-missing-file.rules'"),
	       "a long include path keeps its file name: %s", e.msg);
	sb_rp_free(&set);
	unlink("/tmp/sb-inc.rules");
}

/* A parse reports every bad line, not only the first (issue 15 item 3). */
static void test_every_error(const char *bin)
{
	char *args[] = { "rules", "check", "/tmp/sb-multi.rules", NULL }, *out, *err;
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error e;
	FILE *f;
	int r, i;

	write_file("/tmp/sb-multi.rules", "comm=a class=fast\ncomm=b class=compute\n"
		   "exe=rel class=compute\ncomm=c factor big=99\n");
	r = sb_rp_parse_path(&set, "/tmp/sb-multi.rules", &e);
	result(r && e.n == 3 && strstr(e.msg, ":1:14: unknown class") &&
	       strstr(e.more, ":3:5: exe must be") && strstr(e.more, ":4:19: factor 99"),
	       "three bad lines, three errors in order: %s | %s", e.msg, e.more);
	sb_rp_free(&set);
	r = run_both(bin, args, &out, &err);
	result(r == 2 && err && strstr(err, ":1:14:") && strstr(err, ":3:5:") &&
	       strstr(err, ":4:19:"), "rules check prints all three: %s", err ? err : "");
	free(out);
	free(err);
	f = fopen("/tmp/sb-multi.rules", "w");
	for (i = 0; f && i < 100; i++)
		fprintf(f, "comm=x%d class=bad\n", i);
	if (f)
		fclose(f);
	r = sb_rp_parse_path(&set, "/tmp/sb-multi.rules", &e);
	result(r && e.n == SB_RP_MAX_ERRORS, "100 bad lines: the parse stops at %d (%u)",
	       SB_RP_MAX_ERRORS, e.n);
	sb_rp_free(&set);
	unlink("/tmp/sb-multi.rules");
}

/* The layered system set: shipped, /run and /etc; masks and overrides. */
static void test_layered(const char *bin)
{
	static const char root[] = "/tmp/sb-layers";
	char *args[] = { "--json", "rules", "check", "--system", "--root=/tmp/sb-layers", NULL };
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error e;
	char *out, *err;
	size_t i;
	int r, cc1 = -1, gone = 1, uid_ok = 0;

	r = system("rm -rf /tmp/sb-layers && mkdir -p /tmp/sb-layers/usr/lib/sbridge/rules.d "
		   "/tmp/sb-layers/etc/sbridge/rules.d /tmp/sb-layers/run/sbridge/rules.d");
	write_file("/tmp/sb-layers/usr/lib/sbridge/rules.d/compilers.rules",
		   "comm=cc1 class=compute\ncomm=ld class=memory\n");
	write_file("/tmp/sb-layers/usr/lib/sbridge/rules.d/video.rules", "comm=ffmpeg class=compute\n");
	write_file("/tmp/sb-layers/usr/lib/sbridge/rules.d/db.rules", "comm=postgres class=memory\n");
	/* the admin: masks video.rules, replaces db.rules, overrides cc1 */
	r |= symlink("/dev/null", "/tmp/sb-layers/etc/sbridge/rules.d/video.rules");
	write_file("/tmp/sb-layers/etc/sbridge/rules.d/db.rules", "comm=mysqld class=memory\n");
	write_file("/tmp/sb-layers/etc/sbridge/rules.d/00-local.rules", "comm=cc1 class=memory\n");
	write_file("/tmp/sb-layers/run/sbridge/rules.d/README", "not a rule file\n");
	write_file("/tmp/sb-layers/run/sbridge/rules.d/notes.txt", "not a rule file\n");
	r |= sb_rp_parse_system(&set, root, &e);
	for (i = 0; i < set.n; i++) {
		if (!strcmp(set.rules[i].pattern, "cc1"))
			cc1 = (int)i;
		if (!strcmp(set.rules[i].pattern, "ffmpeg") ||
		    !strcmp(set.rules[i].pattern, "postgres"))
			gone = 0;
	}
	result(!r && set.n == 3 && cc1 == 0 && set.rules[0].cls == SBRIDGE_CLASS_MEMORY &&
	       gone && set.overridden == 1 && set.skipped == 1 &&
	       !strcmp(set.skipped_name[0], "/tmp/sb-layers/run/sbridge/rules.d/notes.txt"),
	       "layers: masked by name, the admin's cc1 wins in the shipped place "
	       "(%zu rules, cc1 at %d, %u replaced, %u skipped) %s",
	       set.n, cc1, set.overridden, set.skipped, e.msg);
	sb_rp_free(&set);
	/* a duplicate inside one file is still an error */
	write_file("/tmp/sb-layers/etc/sbridge/rules.d/00-local.rules",
		   "comm=cc1 class=memory\ncomm=cc1 class=compute\n");
	r = sb_rp_parse_system(&set, root, &e);
	result(r && strstr(e.msg, "duplicate rule for comm=cc1"), "layers: a duplicate in one file: %s",
	       e.msg);
	sb_rp_free(&set);
	write_file("/tmp/sb-layers/etc/sbridge/rules.d/00-local.rules", "comm=cc1 class=memory\n");
	r = run_both(bin, args, &out, &err);
	result(r == 0 && out && strstr(out, "\"count\":3,") && strstr(out, "\"overridden\":1"),
	       "rules check --system --root: %s", out ? out : "");
	free(out);
	free(err);
	/* user names come from the image's passwd, not the host's */
	r |= system("mkdir -p /tmp/sb-layers/etc && "
		    "echo 'builder:x:4242:4242::/home/builder:/bin/sh' > /tmp/sb-layers/etc/passwd");
	write_file("/tmp/sb-layers/etc/sbridge/rules.d/00-local.rules", "uid=builder prefer=little\n");
	r |= sb_rp_parse_system(&set, root, &e);
	for (i = 0; i < set.n; i++)
		uid_ok |= set.rules[i].match == SBRIDGE_MATCH_UID && !strcmp(set.rules[i].pattern, "4242");
	result(!r && set.n == 4 && uid_ok,
	       "layers: uid=builder is 4242 from --root's /etc/passwd (%zu rules) %s", set.n, e.msg);
	sb_rp_free(&set);
	write_file("/tmp/sb-layers/etc/sbridge/rules.d/00-local.rules", "uid=nobody-here exclude\n");
	r = sb_rp_parse_system(&set, root, &e);
	result(r && strstr(e.msg, "unknown user 'nobody-here' (not in /tmp/sb-layers/etc/passwd"),
	       "layers: an unknown user names the root's passwd: %s", e.msg);
	sb_rp_free(&set);
	r = system("rm -rf /tmp/sb-layers");
	(void)r;
}

/* rules check refuses what a load would: a set past the 64 KiB message */
static void test_check_budget(const char *bin)
{
	char *args[] = { "rules", "check", "/tmp/sb-big.rules", NULL }, *out, *err;
	FILE *f = fopen("/tmp/sb-big.rules", "w");
	int i, r;

	for (i = 0; f && i < 500; i++)
		fprintf(f, "exe=/usr/lib/a/long/directory/name/to/fill/the/netlink/budget/"
			"of/sbridge/program-%d class=compute\n", i);
	if (f)
		fclose(f);
	r = run_both(bin, args, &out, &err);
	result(r == 2 && err && strstr(err, "more than one netlink attribute can carry"),
	       "rules check of 500 long rules (72 KB): exit 2 as a load would: %s",
	       err ? err : "");
	free(out);
	free(err);
	unlink("/tmp/sb-big.rules");
}

/*
 * `make -C userspace-ctl install`, in a copy of the tree as debian/rules
 * makes one: the tool, its man page and completions, the shipped rules,
 * and the rules README that sbridgectl(8) and 50-local.rules point at.
 */
static void test_install(void)
{
	static const char *const files[] = {
		"usr/sbin/sbridgectl", "usr/share/man/man8/sbridgectl.8",
		"usr/share/bash-completion/completions/sbridgectl",
		"usr/share/zsh/vendor-completions/_sbridgectl",
		"usr/share/fish/vendor_completions.d/sbridgectl.fish",
		"usr/lib/sbridge/rules.d/compilers.rules",
		"usr/share/doc/sbridgectl/rules/README.md",
		"usr/share/doc/sbridgectl/record-format.md",
	};
	char dir[] = "/tmp/sbridge-ctl-inst.XXXXXX", cmd[1024], *a, *b;
	struct stat st;
	size_t i;
	int r, ok = 1;

	if (!mkdtemp(dir)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/src/docs %s/src/sbridge-core && cd ../../.. && "
		 "cp -a userspace-ctl include scripts rules %s/src/ && "
		 "cp -a docs/man docs/record-format.md %s/src/docs/ && "
		 "cp sbridge-core/params.c sbridge-core/actuators.c sbridge-core/act_*.c "
		 "%s/src/sbridge-core/ && "
		 "rm -f %s/src/userspace-ctl/sbridgectl %s/src/userspace-ctl/params_tab.h && "
		 "make -s -C %s/src/userspace-ctl install DESTDIR=%s/root PREFIX=/usr "
		 "VERSION=test CFLAGS=-O0 >%s/log 2>&1", dir, dir, dir, dir, dir, dir, dir, dir, dir,
		 dir);
	r = system(cmd);
	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(cmd, sizeof(cmd), "%s/root/%s", dir, files[i]);
		if (stat(cmd, &st) || !S_ISREG(st.st_mode)) {
			printf("# make install: no %s\n", files[i]);
			ok = 0;
		}
	}
	a = slurp("../../../rules/README.md", NULL);
	snprintf(cmd, sizeof(cmd), "%s/root/usr/share/doc/sbridgectl/rules/README.md", dir);
	b = slurp(cmd, NULL);
	result(!r && ok && a && b && !strcmp(a, b),
	       "make install DESTDIR=: the tool, man page, completions, rules and "
	       "/usr/share/doc/sbridgectl/rules/README.md (exit %d)", r);
	free(a);
	free(b);
	/* what points at it */
	a = slurp("../../../docs/man/sbridgectl.8", NULL);
	b = slurp("../../../dist/etc/sbridge/rules.d/50-local.rules", NULL);
	result(a && b && strstr(a, "/usr/share/doc/sbridgectl/rules/README.md") &&
	       strstr(b, "/usr/share/doc/sbridgectl/rules/README.md"),
	       "sbridgectl(8) and 50-local.rules name the README make install puts there");
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

/* Every byte of @s is valid UTF-8 (the rules parser's validator). */
static int utf8_valid(const char *s)
{
	size_t left = strlen(s), n;

	for (; left; s += n, left -= n)
		if (!(n = sb_rp_utf8_len((const unsigned char *)s, left)))
			return 0;
	return 1;
}

/*
 * A file name too long for a message is clipped from the front: the
 * message keeps the name's tail and all of the error text, and never
 * starts inside a UTF-8 sequence.
 */
static void test_long_names(const char *bin)
{
	static const char want[] = ":1:14: unknown class 'fast' (expected compute, memory or auto)";
	char name[700], dir[] = "/tmp/sbridge-ctl-long.XXXXXX", path[700], err[4096];
	char *args[] = { "rules", "check", path, NULL };
	struct sb_rp_set set = { .rules = NULL };
	struct sb_rp_error e;
	const char *rule = "comm=a class=fast\ncomm=b class=slow\n";
	size_t n, i;
	int r;

	/* 645 bytes: two-byte characters, then a tail to find again */
	for (n = 0; n < 630; n += 2)
		memcpy(name + n, "\xc3\xa9", 2);
	snprintf(name + n, sizeof(name) - n, "/the-tail.rules");
	r = sb_rp_parse_buffer(&set, name, rule, strlen(rule), &e);
	n = strlen(e.msg);
	result(r && strlen(name) == 645 && !strncmp(e.msg, "...", 3) && utf8_valid(e.msg) &&
	       n > strlen(want) && !strcmp(e.msg + n - strlen(want), want) &&
	       strstr(e.msg, "\xc3\xa9/the-tail.rules:1:14: ") && strstr(e.more, ":2:14: "),
	       "a 645-byte name: clipped in front, whole error text: %s", e.msg);
	sb_rp_free(&set);

	/* a 645-byte path on disk, through the binary */
	if (!mkdtemp(dir)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	n = (size_t)snprintf(path, sizeof(path), "%s", dir);
	for (i = 0; i < 3; i++) {
		path[n++] = '/';
		memset(path + n, 'd' + (char)i, 200);
		n += 200;
		path[n] = '\0';
		mkdir(path, 0700);
	}
	/* then "/xxx...x.rules" to 645 bytes */
	path[n++] = '/';
	while (n < 645 - 6)
		path[n++] = 'x';
	snprintf(path + n, sizeof(path) - n, ".rules");
	write_file(path, "comm=a class=fast\n");
	r = run(bin, err, sizeof(err), args);
	n = strlen(err);
	result(strlen(path) == 645 && r == 2 && strstr(err, "sbridgectl: ...") &&
	       n > strlen(want) && !strcmp(err + n - strlen(want), want) &&
	       strstr(err, "xxxxx.rules:1:14: "),
	       "rules check of a 645-byte path -> exit 2, the whole error: %s", err);
	snprintf(err, sizeof(err), "rm -rf '%s'", dir);
	if (system(err))
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

/*
 * --json output stays valid UTF-8 whatever bytes it carries: a file name
 * with an overlong form, a surrogate, a value past U+10FFFF and a stray
 * continuation byte (a task name set with prctl() reaches the same writer).
 */
static void test_json_utf8(const char *bin)
{
	static const char *const names[] = {
		"a\xe0\x80\xafz", "b\xed\xa0\x80z", "c\xf4\x90\x80\x80z", "d\x80z",
		"e\xc3\xa9z",	/* valid: passed through */
	};
	char path[64], *out, *err;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		char *args[] = { "--json", "config", "check", path, NULL };
		int rc;

		/* a refused file: the error report names the file */
		snprintf(path, sizeof(path), "/tmp/sb-json-%s.conf", names[i]);
		write_file(path, "bogus\n");
		rc = run_both(bin, args, &out, &err);
		unlink(path);
		result(rc == 2 && out && utf8_valid(out) &&
		       (i == 4 ? strstr(out, "e\xc3\xa9z") != NULL :
			strstr(out, "\\ufffd") != NULL),
		       "--json: file name %zu comes out as valid UTF-8", i);
		free(out);
		free(err);
	}
}


/*
 * The one bounded reader (readfile.c): endless devices, a FIFO whose
 * writer never closes it and a 2 GB file are errors, fast; what fits is
 * read whole.
 */
static void test_reader(void)
{
	char dir[] = "/tmp/sbridge-ctl-read.XXXXXX", p[256];
	char *buf;
	size_t len;
	int r, w, fd;

	r = sb_read_path("/dev/zero", 1 << 20, 200, &buf, &len);
	result(r == -EFBIG && !buf, "/dev/zero: -EFBIG past the limit (%d)", r);
	r = sb_read_path("/dev/urandom", 1 << 20, 200, &buf, &len);
	result(r == -EFBIG && !buf, "/dev/urandom: -EFBIG past the limit (%d)", r);
	if (!mkdtemp(dir)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	/* a sparse 2 GB file: refused from its size, not read */
	snprintf(p, sizeof(p), "%s/big", dir);
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	r = fd >= 0 && !ftruncate(fd, 2LL << 30) ? 0 : -1;
	if (fd >= 0)
		close(fd);
	r = r ? r : sb_read_path(p, SB_READ_MAX, 200, &buf, &len);
	result(r == -EFBIG, "a 2 GB file: -EFBIG from its size (%d): %s", r,
	       sb_read_strerror(r, SB_READ_MAX, 200));
	unlink(p);
	/* a FIFO held open by a writer that sends nothing: given up on */
	snprintf(p, sizeof(p), "%s/fifo", dir);
	r = mkfifo(p, 0600);
	w = r ? -1 : open(p, O_RDWR | O_NONBLOCK);
	r = w < 0 ? -1 : sb_read_path(p, SB_READ_MAX, 300, &buf, &len);
	result(r == -ETIMEDOUT, "a FIFO that never closes: -ETIMEDOUT (%d): %s", r,
	       sb_read_strerror(r, SB_READ_MAX, 300));
	/* the same FIFO with a line in it, then closed: read whole */
	if (w >= 0) {
		pid_t pid = fork();

		if (!pid) {
			int fw = open(p, O_WRONLY);

			close(w);
			usleep(100000);
			if (fw >= 0 && write(fw, "param act.gain 154\n", 19) != 19)
				_exit(1);
			_exit(0);
		}
		close(w);
		r = sb_read_path(p, SB_READ_MAX, 5000, &buf, &len);
		waitpid(pid, NULL, 0);
		result(!r && len == 19 && buf && !strcmp(buf, "param act.gain 154\n"),
		       "a FIFO that sends a line and closes: read whole (%d, %zu bytes)", r, len);
		free(buf);
	}
	unlink(p);
	/* exactly the limit is read, a byte more is not */
	snprintf(p, sizeof(p), "%s/edge", dir);
	write_file(p, "%s", "0123456789");
	r = sb_read_path(p, 10, 200, &buf, &len);
	result(!r && len == 10 && buf[10] == '\0', "10 bytes with a limit of 10: read (%d)", r);
	free(buf);
	r = sb_read_path(p, 9, 200, &buf, &len);
	result(r == -EFBIG, "10 bytes with a limit of 9: -EFBIG (%d)", r);
	r = sb_read_path(dir, 10, 200, &buf, &len);
	result(r == -EISDIR, "a directory: -EISDIR (%d)", r);
	unlink(p);
	rmdir(dir);
}

/* The real binary on endless or silent input: a clear error, quickly. */
static void test_reader_cli(const char *bin, const char *plain)
{
	static const char *const cmds[][2] = {
		{ "config", "check" }, { "rules", "check" }, { "matrix", "load" },
		{ "config", "apply" }, { "rules", "load" },
	};
	char err[4096], cmd[512];
	size_t i;
	int rc;

	for (i = 0; i < SB_ARRAY_SIZE(cmds); i++) {
		char *args[] = { (char *)cmds[i][0], (char *)cmds[i][1], "/dev/zero", NULL };

		rc = run(bin, err, sizeof(err), args);
		result(rc == 2 && strstr(err, "larger than 16 MiB"),
		       "%s %s /dev/zero -> exit 2 before any request: %s", cmds[i][0], cmds[i][1],
		       err);
	}
	{
		char *args[] = { "matrix", "load", "/dev/urandom", NULL };

		rc = run(bin, err, sizeof(err), args);
		result(rc == 2 && !strchr(err, '\033'),
		       "matrix load /dev/urandom -> exit 2, no raw bytes: %.120s", err);
	}
	/* under a memory limit the allocation fails: an error, never the end */
	for (i = 0; i < 3; i++) {
		FILE *p;
		size_t n;

		snprintf(cmd, sizeof(cmd), "ulimit -v 12000; exec %s %s %s /dev/zero 2>&1", plain,
			 cmds[i][0], cmds[i][1]);
		p = popen(cmd, "r");
		n = p ? fread(err, 1, sizeof(err) - 1, p) : 0;
		err[n] = '\0';
		rc = p ? pclose(p) : -1;
		result(WIFEXITED(rc) && WEXITSTATUS(rc) == 1 && strstr(err, "out of memory"),
		       "%s %s /dev/zero under ulimit -v 12000 -> exit 1, out of memory: %s",
		       cmds[i][0], cmds[i][1], err);
	}
}

/* Errors show a file's bytes escaped, and --json has one error schema. */
static void test_error_forms(const char *bin)
{
	char *cfg[] = { "config", "check", "/tmp/sb-esc.conf", NULL };
	char *jcfg[] = { "--json", "config", "check", "/tmp/sb-esc.conf", NULL };
	char *jrules[] = { "--json", "rules", "check", "/tmp/sb-esc.rules", NULL };
	char *out, *err;
	int rc;

	write_file("/tmp/sb-esc.conf", "param act.gain 1\xff\nparam act.gain 1\033[31m\n");
	write_file("/tmp/sb-esc.rules", "comm=a prefer=big\ncomm=b bogus\n");
	rc = run_both(bin, cfg, &out, &err);
	result(rc == 2 && err && strstr(err, ":1:17: invalid UTF-8") &&
	       strstr(err, ":2:17: control character") && !strchr(err, '\033'),
	       "config check: bad bytes are errors with their column: %s", err ? err : "");
	free(out);
	free(err);
	rc = run_both(bin, jcfg, &out, &err);
	result(rc == 2 && out &&
	       strstr(out, "{\"ok\":false,\"file\":\"/tmp/sb-esc.conf\",\"settings\":0,\"errors\":[") &&
	       strstr(out, "{\"file\":\"/tmp/sb-esc.conf\",\"line\":1,\"column\":17,\"message\":") &&
	       err && !err[0],
	       "--json config check: errors as {file,line,column,message}, nothing on stderr: %s",
	       out ? out : "");
	free(out);
	free(err);
	rc = run_both(bin, jrules, &out, &err);
	result(rc == 2 && out &&
	       strstr(out, "{\"ok\":false,\"count\":0,") &&
	       strstr(out, "\"errors\":[{\"file\":\"/tmp/sb-esc.rules\",\"line\":2,\"column\":8,"
		      "\"message\":\"unknown action 'bogus'") && err && !err[0],
	       "--json rules check: the same error objects: %s", out ? out : "");
	free(out);
	free(err);
	/* a path with an escape in it, on the command line */
	{
		char *args[] = { "rules", "check", "/tmp/no\033[31mpe", NULL };

		rc = run_both(bin, args, &out, &err);
		result(rc == 2 && err && strstr(err, "no\\x1b[31mpe") && !strchr(err, '\033'),
		       "a path's escape byte in an error is \\x1b: %s", err ? err : "");
		free(out);
		free(err);
	}
	unlink("/tmp/sb-esc.conf");
	unlink("/tmp/sb-esc.rules");
}

/* config check knows the parameters of its version offline. */
static void test_config_names(const char *bin)
{
	char *args[] = { "config", "check", "/tmp/sb-names.conf", NULL }, *out, *err;
	const struct sb_param_desc *d;
	struct sb_perr e;
	size_t i;
	int rc;

	for (i = 0; (d = sb_param_nth(i)); i++)
		;
	result(i > 20 && sb_param_desc("act.gain") && sb_param_desc("act.gain")->max == 8192 &&
	       sb_param_desc("act.gain")->def == 102,
	       "the table from params.c: %zu parameters, act.gain 0-8192 default 102", i);
	rc = sb_check_param_table("act_gain", 154, &e);
	result(rc && strstr(e.msg, "module parameter spelling, here it is 'act.gain'"),
	       "act_gain: named as the modprobe.d spelling: %s", e.msg);
	rc = sb_check_param_table("act.period_ms", 5, &e);
	result(rc && e.value && strstr(e.msg, "out of range (10 to 60000)"), "act.period_ms 5: %s",
	       e.msg);
	write_file("/tmp/sb-names.conf", "param act_gain 154\nparam nosuch 1\n"
		   "param act.period_ms 5\nparam act.gain 154\n");
	rc = run_both(bin, args, &out, &err);
	result(rc == 2 && err && strstr(err, "sb-names.conf:1:7: unknown parameter 'act_gain'") &&
	       strstr(err, ":2:7: unknown parameter 'nosuch'") &&
	       strstr(err, ":3:21: act.period_ms 5 out of range") && !strstr(err, ":4:"),
	       "config check: names and ranges, offline: %s", err ? err : "");
	free(out);
	free(err);
	unlink("/tmp/sb-names.conf");
}

/* Overrides that do less than they say (a part of a type, the big type). */
static void test_factor_warnings(void)
{
	struct sb_cpu cpus[4];
	struct sb_cpuset set;
	const char *why;
	unsigned int col;
	size_t i;

	memset(cpus, 0, sizeof(cpus));
	for (i = 0; i < 4; i++) {
		cpus[i].id = (uint32_t)i;
		cpus[i].type = i ? 0 : 1;	/* cpu0 big, 1-3 little */
	}
	sb_cpulist_parse("1-3", &set, &why, &col);
	result(!sb_factor_warnings(&set, 1536, cpus, 4, 0), "1-3 1.5: a whole little type, no warning");
	sb_cpulist_parse("2", &set, &why, &col);
	result(sb_factor_warnings(&set, 1536, cpus, 4, 0) == 1, "2 1.5: part of a type, not its first");
	sb_cpulist_parse("1", &set, &why, &col);
	result(sb_factor_warnings(&set, 1536, cpus, 4, 0) == 1, "1 1.5: part of a type, its first");
	sb_cpulist_parse("0", &set, &why, &col);
	result(sb_factor_warnings(&set, 1536, cpus, 4, 0) == 1, "0 1.5: the reference type");
	result(!sb_factor_warnings(&set, 1024, cpus, 4, 0), "0 1.0: the reference's own factor");
	sb_cpulist_parse("0-3", &set, &why, &col);
	result(sb_factor_warnings(&set, 1024, cpus, 4, 0) == 0 &&
	       sb_factor_warnings(&set, 0, cpus, 4, 0) == 0, "0-3 1.0 and 0-3 clear: nothing to say");
}

struct verify_seen {
	char msgs[8][700];
	int n;
};

static void verify_cb(void *arg, const char *msg)
{
	struct verify_seen *v = arg;

	if (v->n < 8)
		snprintf(v->msgs[v->n], sizeof(v->msgs[0]), "%s", msg);
	v->n++;
}

/* doctor's verify: the file's last word per parameter and CPU, against what is in force */
static void test_config_verify(void)
{
	struct sb_params p = { NULL, 0, 0 };
	struct verify_seen v = { .n = 0 };
	struct sb_cpu cpus[4];
	char why[600] = "";
	size_t i;
	int n;

	memset(cpus, 0, sizeof(cpus));
	for (i = 0; i < 4; i++) {
		cpus[i].id = (uint32_t)i;
		cpus[i].type = i ? 0 : 1;
	}
	cpus[1].override = cpus[2].override = cpus[3].override = 1536;
	sb_add_param(&p, "act.gain", 154);
	sb_add_param(&p, "act.hold_ms", 1000);
	write_file("/tmp/sb-verify.conf", "param act.gain 100\nparam act.gain 154\n"
		   "cpu-factor 1-3 1.5\nparam act.hold_ms 1000\n");
	n = config_verify("/tmp/sb-verify.conf", &p, cpus, 4, verify_cb, &v, why, sizeof(why));
	result(n == 4 && v.n == 0, "verify: a file in force says nothing (%d settings, %d diffs)",
	       n, v.n);
	write_file("/tmp/sb-verify.conf", "param act.gain 200\ncpu-factor 1-2 2\ncpu-factor 3 1.5\n"
		   "param nosuch 1\n");
	v.n = 0;
	n = config_verify("/tmp/sb-verify.conf", &p, cpus, 4, verify_cb, &v, why, sizeof(why));
	result(n == 4 && v.n == 3 &&
	       !strcmp(v.msgs[0], "/tmp/sb-verify.conf:1: param act.gain is 154 in force, the file says 200") &&
	       strstr(v.msgs[1], ":4: param nosuch: the loaded module has no such parameter") &&
	       !strcmp(v.msgs[2], "/tmp/sb-verify.conf:2: cpu-factor: CPU 1-2 has override 1.5 in force, the file says 2.0"),
	       "verify: what differs, by line: %s | %s | %s", v.msgs[0], v.msgs[1], v.msgs[2]);
	write_file("/tmp/sb-verify.conf", "param act.gain x\n");
	n = config_verify("/tmp/sb-verify.conf", &p, cpus, 4, verify_cb, &v, why, sizeof(why));
	result(n < 0 && strstr(why, "sb-verify.conf:1:16: bad value 'x'"), "verify: a bad file: %s", why);
	unlink("/tmp/sb-verify.conf");
	free(p.v);
}

/* rules check names what it skips, and says when nothing is there */
static void test_rules_warnings(const char *bin)
{
	char *dir[] = { "rules", "check", "/tmp/sb-skip/", NULL };
	char *none[] = { "rules", "check", "--system", "--root=/nonexistent", NULL };
	char *print[] = { "rules", "check", "--print", "/tmp/sb-skip/", NULL };
	char *out, *err;
	int rc;

	rc = system("rm -rf /tmp/sb-skip && mkdir -p /tmp/sb-skip");
	write_file("/tmp/sb-skip/foo.rule", "comm=a prefer=big\n");
	write_file("/tmp/sb-skip/README.md", "about these rules\n");
	rc = run_both(bin, dir, &out, &err);
	result(rc == 0 && err && strstr(err, "warning: skipped '/tmp/sb-skip/foo.rule': not named *.rules") &&
	       !strstr(err, "README") && strstr(err, "warning: no rules"),
	       "rules check DIR/: the skipped entry named, README left alone, no rules said: %s",
	       err ? err : "");
	free(out);
	free(err);
	write_file("/tmp/sb-skip/a.rules", "comm=a prefer=big\n");
	rc = run_both(bin, print, &out, &err);
	result(rc == 0 && out && strstr(out, "# /tmp/sb-skip/a.rules:1") && !strstr(out, "//"),
	       "rules check DIR/ --print: one slash in the sources: %s", out ? out : "");
	free(out);
	free(err);
	rc = run_both(bin, none, &out, &err);
	result(rc == 0 && err && strstr(err, "none of the rule directories exists (/nonexistent/usr/lib") &&
	       strstr(err, "no rules"),
	       "rules check --system --root=/nonexistent: said: %s", err ? err : "");
	free(out);
	free(err);
	rc = system("rm -rf /tmp/sb-skip");
	(void)rc;
}

/* doctor without the module: exit 3, the files still checked, one JSON object */
static void test_doctor(const char *bin)
{
	char *args[] = { "--json", "doctor", "--root=/tmp/sb-doc", NULL };
	char *text[] = { "doctor", "--root=/tmp/sb-doc", NULL };
	char *out, *err;
	int rc;

	rc = system("rm -rf /tmp/sb-doc && mkdir -p /tmp/sb-doc/etc/sbridge/rules.d "
		    "/tmp/sb-doc/usr/lib/sbridge/rules.d");
	write_file("/tmp/sb-doc/etc/sbridge/sbridge.conf", "param act_gain 154\n");
	write_file("/tmp/sb-doc/usr/lib/sbridge/rules.d/a.rules", "comm=a prefer=big\ncomm=b class=memory\n");
	rc = run_both(bin, args, &out, &err);
	result(rc == 3 && out && !strncmp(out, "{\"ok\":false,", 12) &&
	       strstr(out, "{\"area\":\"modules\",\"status\":\"fail\",\"message\":\"sbridge_core is not") &&
	       strstr(out, "{\"area\":\"config\",\"status\":\"fail\",\"message\":\"/tmp/sb-doc/etc/sbridge/sbridge.conf:1:7: unknown parameter 'act_gain'") &&
	       strstr(out, "{\"area\":\"rules\",\"status\":\"info\",\"message\":\"the rule files hold 2 rules, well formed\"") &&
	       strstr(out, "\"area\":\"sched_ext\""),
	       "doctor --json without the module: exit 3, modules fail, the files checked: %s",
	       out ? out : "");
	free(out);
	free(err);
	write_file("/tmp/sb-doc/etc/sbridge/sbridge.conf", "param act.gain 154\n");
	rc = run_both(bin, text, &out, &err);
	result(rc == 3 && out && strstr(out, "fail  modules") && strstr(out, "-> modprobe sbridge_pmu") &&
	       strstr(out, "sbridge.conf: 1 setting, well formed") && strstr(out, "1 failure"),
	       "doctor without the module: each finding, its fix, a count: %s", out ? out : "");
	free(out);
	free(err);
	rc = system("rm -rf /tmp/sb-doc");
	(void)rc;
}

/* matrix load's errors show the file's control bytes as \xNN, never raw */
static void test_matrix_error_escapes(const char *bin)
{
	char *args[] = { "matrix", "load", "/tmp/sb-ctrl.matrix", NULL }, *out, *err;
	int rc;

	write_file("/tmp/sb-ctrl.matrix",
		   "key=gcc type=0 phase=0 factor=1.25 cpib=0.7 samples=1 bo\033[31mgus=1\n");
	rc = run_both(bin, args, &out, &err);
	unlink("/tmp/sb-ctrl.matrix");
	result(rc == 2 && err && strstr(err, "bo\\x1b[31mgus") && !strchr(err, '\033'),
	       "matrix load: a control byte in the error is shown as \\x1b");
	free(out);
	free(err);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--show")) {
		char *out = run_golden(argv[2]);

		fputs(out, stdout);
		free(out);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: test_ctl SBRIDGECTL SBRIDGECTL_PLAIN | --show FILE\n");
		return 2;
	}
	test_golden();
	test_cpulist();
	test_fp();
	test_fuzz();
	test_many();
	test_includes();
	test_grow();
	test_shipped();
	test_record();
	test_record_events();
	test_runnable();
	test_cli(argv[1]);
	test_get_cpus();
	test_get_params();
	test_install();
	test_config_golden(argv[1]);
	test_config_files(argv[1]);
	test_json_utf8(argv[1]);
	test_long_names(argv[1]);
	test_parser_messages();
	test_every_error(argv[1]);
	test_layered(argv[1]);
	test_check_budget(argv[1]);
	test_matrix_error_escapes(argv[1]);
	test_reader();
	test_reader_cli(argv[1], argv[2]);
	test_error_forms(argv[1]);
	test_config_names(argv[1]);
	test_factor_warnings();
	test_config_verify();
	test_rules_warnings(argv[1]);
	test_doctor(argv[1]);
	if (skipped)
		printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	else
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
