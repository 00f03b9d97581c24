// SPDX-License-Identifier: GPL-2.0
/* matrix save|load|show: the learned workload x core type x phase factors. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile.h"
#include "rules_parse.h"
#include "sbridgectl.h"

static const char matrix_help[] =
"usage: sbridgectl matrix save FILE | load FILE | show [--json]\n"
"\n"
"save  write the learned scale-factor matrix to FILE (- for standard\n"
"      output), one entry a line:\n"
"        key=gcc type=1 phase=0 factor=1.25 cpib=0.7 samples=120 [exe=0xHASH]\n"
"        [speedup=1.9] [uid=1000] [tpi=812.5 warm=40 spread=6 visits=3]\n"
"      phase 0-3, or 4 for the start-up; samples counts model windows;\n"
"      tpi is the time per instruction (ps) of the warm windows on that type\n"
"      in that phase, warm how many, spread how far runs and visits\n"
"      disagree (1/128 of log2), visits how many stays on the type they came\n"
"      from; speedup is the big/little speedup they give (reference type\n"
"      over type 0), shown when both types were measured (on load, tpi wins;\n"
"      a file without tpi loads its speedup as measured in 2 visits); uid is\n"
"      the scope: the real uid that started the programs (absent: 0, root's,\n"
"      which seeds every user). Without CAP_PERFMON only your own scope is\n"
"      shown.\n"
"load  replace the module's matrix with FILE's entries in one step (all or\n"
"      nothing), e.g. to start a boot with what the last one learned.\n"
"      Needs CAP_SYS_ADMIN.\n"
"show  print the matrix as a table.\n";

struct mx {
	char key[SBRIDGE_KEY_LEN];
	uint32_t type, phase, factor, cpib, samples;
	uint32_t exe_hash;	/* jhash of the executable path ... */
	int has_exe;		/* ... if the cell is for one executable */
	uint32_t meas;		/* measured speedup (fp), 0 if none */
	uint32_t uid;		/* scope, 0 == root's */
	uint64_t tpi;		/* time per instruction, 1/16 ps, 0 if none */
	uint32_t warm, spread, visits;	/* behind @tpi */
};

struct mxlist {
	struct mx *v;
	size_t n, cap;
};

static int mx_add(struct mxlist *l, const struct mx *e)
{
	struct mx *nv = sb_grow(l->v, &l->cap, l->n, sizeof(*nv), 128);

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	l->v[l->n++] = *e;
	return 0;
}

static int mx_one(struct mxlist *l, const struct nlattr *const *tb)
{
	struct mx e;

	memset(&e, 0, sizeof(e));
	snprintf(e.key, sizeof(e.key), "%s", sb_str(tb[SBRIDGE_A_MX_KEY]));
	e.type = sb_u32(tb[SBRIDGE_A_MX_TYPE], 0);
	e.phase = sb_u32(tb[SBRIDGE_A_MX_PHASE], 0);
	e.factor = sb_u32(tb[SBRIDGE_A_MX_FACTOR], 0);
	e.cpib = sb_u32(tb[SBRIDGE_A_MX_CPIB_SHARE], 0);
	e.samples = sb_u32(tb[SBRIDGE_A_MX_SAMPLES], 0);
	e.has_exe = tb[SBRIDGE_A_MX_EXE_HASH] != NULL;
	e.exe_hash = sb_u32(tb[SBRIDGE_A_MX_EXE_HASH], 0);
	e.meas = sb_u32(tb[SBRIDGE_A_MX_SPEEDUP_MEAS], 0);
	e.uid = sb_u32(tb[SBRIDGE_A_MX_UID], 0);
	e.tpi = sb_u64(tb[SBRIDGE_A_MX_TPI], 0);
	e.warm = sb_u32(tb[SBRIDGE_A_MX_WARM], 0);
	e.spread = sb_u32(tb[SBRIDGE_A_MX_SPREAD], 0);
	e.visits = sb_u32(tb[SBRIDGE_A_MX_VISITS], 0);
	return mx_add(l, &e);
}

/* Accepts SBRIDGE_A_MATRIX { MX_ENTRY... }, one MX_ENTRY, or loose MX_*. */
static int mx_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	const struct nlattr *tb[SBRIDGE_A_MAX + 1], *a;
	int rem, ret = 0;

	(void)cmd;
	if (at->a[SBRIDGE_A_MATRIX]) {
		sb_for_each_nested(a, at->a[SBRIDGE_A_MATRIX], rem) {
			sb_parse(tb, SBRIDGE_A_MAX, sb_nla_data(a), sb_nla_len(a));
			ret = mx_one(arg, tb);
			if (ret)
				return ret;
		}
	} else if (at->a[SBRIDGE_A_MX_ENTRY]) {
		a = at->a[SBRIDGE_A_MX_ENTRY];
		sb_parse(tb, SBRIDGE_A_MAX, sb_nla_data(a), sb_nla_len(a));
		ret = mx_one(arg, tb);
	} else if (at->a[SBRIDGE_A_MX_KEY]) {
		ret = mx_one(arg, at->a);
	}
	return ret;
}

static int fetch(struct sb_nl *nl, struct mxlist *l)
{
	struct sb_msg m;
	int ret;

	sb_msg_init(&m, nl, SBRIDGE_CMD_MATRIX_GET, 1);
	ret = sb_request(nl, &m, mx_cb, l);
	sb_msg_free(&m);
	return ret;
}

/* A time per instruction in 1/16 ps as picoseconds, exactly (4 decimals). */
static const char *ps_str(uint64_t v)
{
	static char buf[4][32];
	static unsigned int i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof(buf[0]), "%llu.%04llu", (unsigned long long)(v / 16),
		 (unsigned long long)(v % 16 * 625));
	return b;
}

static void write_entries(FILE *f, const struct mxlist *l)
{
	char key[64];
	size_t i;

	fprintf(f, "# sbridge scale-factor matrix (sbridgectl matrix save); one entry a line\n");
	for (i = 0; i < l->n; i++) {
		const struct mx *e = &l->v[i];

		key[0] = '\0';
		sb_rp_quote(key, sizeof(key), e->key);
		fprintf(f, "key=%s type=%u phase=%u factor=%s cpib=%s samples=%u",
			key, e->type, e->phase, sb_fp(e->factor), sb_fp(e->cpib),
			e->samples);
		if (e->has_exe)
			fprintf(f, " exe=0x%08x", e->exe_hash);
		if (e->meas)
			fprintf(f, " speedup=%s", sb_fp(e->meas));
		if (e->uid)
			fprintf(f, " uid=%u", e->uid);
		if (e->tpi)
			fprintf(f, " tpi=%s warm=%u spread=%u visits=%u", ps_str(e->tpi),
				e->warm, e->spread, e->visits);
		fputc('\n', f);
	}
}

static void mx_print_one(const struct mx *e)
{
	char ph[12];

	printf("%-15s %4u %5s %7s %5s %8u %7s %6u", e->key, e->type,
	       e->phase == SBRIDGE_PHASE_STARTUP ? "start" :
	       (snprintf(ph, sizeof(ph), "%u", e->phase), ph),
	       sb_fp(e->factor), sb_fp(e->cpib),
	       e->samples, e->meas ? sb_fp(e->meas) : "-", e->uid);
	if (e->tpi)
		printf(" %12s %6u %6u %6u\n", ps_str(e->tpi), e->warm,
		       e->spread, e->visits);
	else
		printf(" %12s %6s %6s %6s\n", "-", "-", "-", "-");
}

static void mx_json_one(const struct mx *e)
{
	sb_js_obj_begin(NULL);
	sb_js_str("key", e->key);
	sb_js_uint("type", e->type);
	sb_js_uint("phase", e->phase);
	sb_js_fp("factor", e->factor);
	sb_js_fp("cpib_share", e->cpib);
	sb_js_uint("samples", e->samples);
	if (e->has_exe)
		sb_js_uint("exe_hash", e->exe_hash);
	if (e->meas)
		sb_js_fp("speedup_meas", e->meas);
	sb_js_uint("uid", e->uid);
	if (e->tpi) {
		sb_js_uint("tpi_16ps", e->tpi);
		sb_js_uint("warm", e->warm);
		sb_js_uint("spread", e->spread);
		sb_js_uint("visits", e->visits);
	}
	sb_js_obj_end();
}

/* The entries as a table, or as JSON with --json. */
static void mx_show(const struct mxlist *l)
{
	size_t i;

	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_arr_begin("matrix");
	} else {
		printf("%-15s %4s %5s %7s %5s %8s %7s %6s %12s %6s %6s %6s\n", "KEY",
		       "TYPE", "PHASE", "FACTOR", "CPI_B", "SAMPLES", "SPEEDUP", "UID",
		       "TPI_PS", "WARM", "SPREAD", "VISITS");
	}
	for (i = 0; i < l->n; i++) {
		if (sb_json)
			mx_json_one(&l->v[i]);
		else
			mx_print_one(&l->v[i]);
	}
	if (sb_json) {
		sb_js_arr_end();
		sb_js_obj_end();
	}
}

/* Writes a temporary file and renames it: a crash never leaves half a file. */
static int mx_write(const char *path, const struct mxlist *l)
{
	char tmp[4096];
	int fail, err;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return sb_usage(matrix_help, "path too long");
	f = fopen(tmp, "w");
	if (!f) {
		sb_err("cannot write '%s': %s", tmp, strerror(errno));
		return SB_EXIT_ERR;
	}
	write_entries(f, l);
	/* fclose() on every path: the stream is gone whatever it returns */
	fail = fflush(f) || ferror(f) || fsync(fileno(f));
	err = errno;
	if (fclose(f) && !fail) {
		fail = 1;
		err = errno;
	}
	if (!fail && rename(tmp, path)) {
		fail = 1;
		err = errno;
	}
	if (fail) {
		sb_err("cannot write '%s': %s", path, strerror(err));
		unlink(tmp);
		return SB_EXIT_ERR;
	}
	if (!sb_json)
		printf("saved %zu matrix entr%s to %s\n", l->n, l->n == 1 ? "y" : "ies", path);
	return 0;
}

static int matrix_save(const char *path, int show)
{
	struct mxlist l = { NULL, 0, 0 };
	struct sb_nl nl;
	int ret;

	ret = sb_connect(&nl);
	if (ret)
		return ret;
	ret = fetch(&nl, &l);
	if (ret) {
		ret = sb_fail(&nl, ret, "reading the matrix");
		goto out;
	}
	if (show || sb_json) {
		mx_show(&l);
		if (show || !strcmp(path, "-"))
			goto out;
	}
	if (!strcmp(path, "-"))
		write_entries(stdout, &l);
	else
		ret = mx_write(path, &l);
out:
	free(l.v);
	sb_nl_close(&nl);
	return ret;
}

static int bad(const char *path, unsigned int line, unsigned int col,
	       const char *msg, const char *what)
{
	char shown[3 * 64 + 4];
	size_t n = 0;

	/* the file's bytes, control ones as \xNN: never raw to a terminal */
	for (; what && *what && n + 8 < sizeof(shown); what++) {
		unsigned char c = (unsigned char)*what;

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(shown + n, sizeof(shown) - n, "\\x%02x", c);
		else
			shown[n++] = (char)c;
	}
	if (what && *what)
		n += (size_t)snprintf(shown + n, sizeof(shown) - n, "...");
	shown[n] = '\0';
	sb_err("%s:%u:%u: %s%s%s%s", path, line, col, msg, what ? " '" : "",
	       what ? shown : "", what ? "'" : "");
	return SB_EXIT_USAGE;
}

/* One field of a saved matrix line: what it holds and how it is checked. */
enum mx_kind { MX_KEY, MX_U32, MX_FP, MX_HASH, MX_PS };

struct mx_field {
	const char *name;
	enum mx_kind kind;
	size_t off;		/* of its uint32_t (MX_PS: uint64_t) in struct mx */
	uint32_t min, max;
	unsigned int need;	/* bit in the required set, 0: optional */
	const char *msg;	/* the error, followed by the value */
};

#define MX_NEEDED	7	/* key, type, factor */

static const struct mx_field mx_fields[] = {
	{ "key", MX_KEY, 0, 1, SBRIDGE_KEY_LEN - 1, 1, "key must be 1 to 15 bytes:" },
	{ "type", MX_U32, offsetof(struct mx, type), 0, SBRIDGE_MAX_CORE_TYPES - 1, 2,
	  "core type must be 0-3, got" },
	{ "phase", MX_U32, offsetof(struct mx, phase), 0, SBRIDGE_PHASE_STARTUP, 0,
	  "phase must be 0-3, or 4 (start-up), got" },
	{ "factor", MX_FP, offsetof(struct mx, factor), SBRIDGE_FACTOR_MIN,
	  SBRIDGE_FACTOR_MAX, 4, "factor must be a decimal in [0.125, 8], got" },
	{ "cpib", MX_FP, offsetof(struct mx, cpib), 0, SBRIDGE_FP_ONE, 0,
	  "cpib must be a decimal in [0, 1], got" },
	{ "samples", MX_U32, offsetof(struct mx, samples), 0, 0xffffffffu, 0,
	  "bad sample count" },
	{ "exe", MX_HASH, offsetof(struct mx, exe_hash), 0, 0xffffffffu, 0,
	  "exe must be a 32-bit hash such as 0x1a2b3c4d, got" },
	{ "speedup", MX_FP, offsetof(struct mx, meas), SBRIDGE_FACTOR_MIN,
	  SBRIDGE_FACTOR_MAX, 0, "speedup must be a decimal in [0.125, 8], got" },
	{ "uid", MX_U32, offsetof(struct mx, uid), 0, 0xfffffffeu, 0,
	  "uid must be a number below 4294967295, got" },
	{ "tpi", MX_PS, offsetof(struct mx, tpi), 0, 0, 0,
	  "tpi must be picoseconds above 0 with at most 4 decimals, below 268435456, got" },
	{ "warm", MX_U32, offsetof(struct mx, warm), 0, 0xffffffffu, 0,
	  "bad warm window count" },
	{ "spread", MX_U32, offsetof(struct mx, spread), 0, 255, 0,
	  "spread must be 0-255, got" },
	{ "visits", MX_U32, offsetof(struct mx, visits), 0, 65535, 0,
	  "visits must be 0-65535, got" },
};

/*
 * Picoseconds with at most 4 decimals into 1/16 ps, rounded; 0 or -1.
 * The module keeps a time per instruction below 2^32 of them.
 */
static int parse_ps(const char *v, uint64_t *out)
{
	unsigned long long ip = 0, frac = 0, scale = 1;
	const char *p = v;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((ip = ip * 10 + (unsigned long long)(*p - '0')) >= (1ULL << 28))
			return -1;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale == 10000)
				return -1;
			frac = frac * 10 + (unsigned long long)(*p - '0');
			scale *= 10;
		}
		if (scale == 1)
			return -1;
	}
	if (*p)
		return -1;
	*out = ip * 16 + (frac * 16 + scale / 2) / scale;
	return *out ? 0 : -1;
}

/* @v into @e's field @fd; 0 or -1 if @v is out of the field's range. */
static int mx_set(const struct mx_field *fd, const char *v, struct mx *e)
{
	uint32_t *out = (uint32_t *)((char *)e + fd->off);
	unsigned long long u;
	const char *why;
	char *end;

	switch (fd->kind) {
	case MX_KEY:
		if (strlen(v) < fd->min || strlen(v) > fd->max)
			return -1;
		memcpy(e->key, v, strlen(v) + 1);
		return 0;
	case MX_U32:
		if (sb_parse_uint(v, fd->max, &u))
			return -1;
		*out = (uint32_t)u;
		return 0;
	case MX_FP:
		return sb_parse_fp(v, out, &why) || *out < fd->min || *out > fd->max ?
			-1 : 0;
	case MX_PS:
		return parse_ps(v, (uint64_t *)((char *)e + fd->off));
	case MX_HASH:
		errno = 0;
		u = strtoull(v, &end, 0);
		if (errno || end == v || *end || u > fd->max)
			return -1;
		*out = (uint32_t)u;
		e->has_exe = 1;
		return 0;
	}
	return -1;
}

/* The entry of one tokenized, non-empty line into @e. */
static int parse_entry(const char *path, unsigned int lineno,
		       const struct sb_rp_line *ln, struct mx *e)
{
	unsigned int seen = 0, i, k;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < ln->n; i++) {
		const struct sb_rp_token *t = &ln->tok[i];
		const struct mx_field *fd = NULL;

		if (!t->val)
			return bad(path, lineno, t->col, "expected KEY=VALUE, got", t->key);
		for (k = 0; k < SB_ARRAY_SIZE(mx_fields) && !fd; k++)
			if (!strcmp(t->key, mx_fields[k].name))
				fd = &mx_fields[k];
		if (!fd)
			return bad(path, lineno, t->col,
				   "unknown field (key, type, phase, factor, cpib, samples, exe, speedup, uid, tpi, warm, spread, visits):",
				   t->key);
		if (mx_set(fd, t->val, e))
			return bad(path, lineno, t->vcol, fd->msg, t->val);
		seen |= fd->need;
	}
	if (seen != MX_NEEDED)
		return bad(path, lineno, 1, "an entry needs key=, type= and factor=", NULL);
	if (!e->tpi && (e->warm || e->spread || e->visits))
		return bad(path, lineno, 1, "warm=, spread= and visits= need tpi=", NULL);
	return 0;
}

/* Reads a saved matrix; every line is checked before anything is sent. */
static int parse_file(const char *path, struct mxlist *l)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	struct sb_rp_line *ln;
	char *buf, *line;
	size_t len, pos = 0, n;
	unsigned int lineno = 0, col;
	const char *why;
	struct mx e;
	int ret;

	ret = sb_read_path(path, SB_READ_MAX, SB_READ_IDLE_MS, &buf, &len);
	if (ret) {
		sb_err("cannot read '%s': %s", name,
		       sb_read_strerror(ret, SB_READ_MAX, SB_READ_IDLE_MS));
		return ret == -ENOMEM ? SB_EXIT_ERR : SB_EXIT_USAGE;
	}
	ln = malloc(sizeof(*ln));
	if (!ln) {
		sb_err("out of memory");
		ret = SB_EXIT_ERR;
		goto out;
	}
	while (!ret && pos < len) {
		char *nl = memchr(buf + pos, '\n', len - pos);

		line = buf + pos;
		n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		lineno++;
		if (n > SB_RP_MAX_LINE)
			ret = bad(name, lineno, SB_RP_MAX_LINE + 1, "line too long", NULL);
		else if (memchr(line, '\0', n))
			ret = bad(name, lineno, 1, "NUL byte in line", NULL);
		else if (sb_rp_tokenize(line, n, ln, &col, &why))
			ret = bad(name, lineno, col, why, NULL);
		else if (ln->n)
			ret = parse_entry(name, lineno, ln, &e);
		if (!ret && ln->n && mx_add(l, &e)) {
			sb_err("out of memory");
			ret = SB_EXIT_ERR;
		}
	}
out:
	free(ln);
	free(buf);
	return ret;
}

static int matrix_load(const char *path)
{
	struct mxlist l = { NULL, 0, 0 };
	struct sb_nl nl;
	struct sb_msg m;
	size_t i, nest;
	int ret;

	ret = parse_file(path, &l);
	if (ret)
		goto out_free;
	ret = sb_connect(&nl);
	if (ret)
		goto out_free;
	sb_msg_init(&m, &nl, SBRIDGE_CMD_MATRIX_LOAD, 0);
	nest = sb_nest_start(&m, SBRIDGE_A_MATRIX);
	for (i = 0; i < l.n; i++) {
		size_t e = sb_nest_start(&m, SBRIDGE_A_MX_ENTRY);

		sb_put_str(&m, SBRIDGE_A_MX_KEY, l.v[i].key);
		sb_put_u32(&m, SBRIDGE_A_MX_TYPE, l.v[i].type);
		sb_put_u32(&m, SBRIDGE_A_MX_PHASE, l.v[i].phase);
		sb_put_u32(&m, SBRIDGE_A_MX_FACTOR, l.v[i].factor);
		sb_put_u32(&m, SBRIDGE_A_MX_CPIB_SHARE, l.v[i].cpib);
		sb_put_u32(&m, SBRIDGE_A_MX_SAMPLES, l.v[i].samples);
		if (l.v[i].has_exe)
			sb_put_u32(&m, SBRIDGE_A_MX_EXE_HASH, l.v[i].exe_hash);
		if (l.v[i].meas)
			sb_put_u32(&m, SBRIDGE_A_MX_SPEEDUP_MEAS, l.v[i].meas);
		if (l.v[i].uid)
			sb_put_u32(&m, SBRIDGE_A_MX_UID, l.v[i].uid);
		if (l.v[i].tpi) {
			sb_put_u64(&m, SBRIDGE_A_MX_TPI, l.v[i].tpi);
			sb_put_u32(&m, SBRIDGE_A_MX_WARM, l.v[i].warm);
			sb_put_u32(&m, SBRIDGE_A_MX_SPREAD, l.v[i].spread);
			sb_put_u32(&m, SBRIDGE_A_MX_VISITS, l.v[i].visits);
		}
		sb_nest_end(&m, e);
	}
	sb_nest_end(&m, nest);
	if (m.err == -EMSGSIZE) {
		sb_err("matrix load: %zu entries do not fit one netlink attribute (65535 bytes)",
		       l.n);
		ret = SB_EXIT_USAGE;
	} else {
		ret = sb_request(&nl, &m, NULL, NULL);
		if (ret)
			ret = sb_fail(&nl, ret, "matrix load");
		else if (sb_json) {
			sb_js_obj_begin(NULL);
			sb_js_uint("loaded", l.n);
			sb_js_obj_end();
		} else {
			printf("loaded %zu matrix entr%s\n", l.n, l.n == 1 ? "y" : "ies");
		}
	}
	sb_msg_free(&m);
	sb_nl_close(&nl);
out_free:
	free(l.v);
	return ret;
}

int cmd_matrix(int argc, char **argv)
{
	int c;

	while ((c = sb_getopt(argc, argv, "", NULL, matrix_help)) != -1)
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return sb_usage(matrix_help, "missing action (save, load or show)");
	if (!strcmp(argv[0], "show")) {
		if (argc != 1)
			return sb_usage(matrix_help, "matrix show takes no arguments");
		return matrix_save("-", 1);
	}
	if (strcmp(argv[0], "save") && strcmp(argv[0], "load"))
		return sb_usage(matrix_help, "unknown action '%s' (save, load or show)",
				argv[0]);
	if (argc != 2)
		return sb_usage(matrix_help, "matrix %s needs exactly one FILE", argv[0]);
	return argv[0][0] == 's' ? matrix_save(argv[1], 0) : matrix_load(argv[1]);
}
