// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz - fuzzer of the sbridge generic-netlink family, run in the guest.
 *
 *   nlfuzz N SEED [USER_EXPECT_EPERM]
 *
 * Sends N requests to the family and reads the answer of each (a dump to
 * NLMSG_DONE; no answer within the receive timeout counts as a timeout).
 * About a quarter are raw: random command, flags, genl version and
 * payload, bogus attribute headers, truncated messages. The rest start
 * from a valid request of a real command (SET_CPU_FACTOR, RULES_LOAD,
 * RULES_CLEAR, MATRIX_LOAD, SET_PARAM, GET_STATUS and the dumps) and get
 * 0..4 mutations: bytes flipped or replaced, boundary values, an
 * attribute's type or length changed, attributes dropped, duplicated or
 * swapped, strings without NUL or overlong, nests wrapped deep, entries
 * beyond the limits. A private PRNG seeded by SEED makes a run repeat:
 * message i never depends on the kernel's answers.
 *
 * The state fingerprint (64-bit FNV-1a) covers the rules (RULES_GET, hit
 * counts left out), each CPU's factor and override (GET_CPUS), the matrix
 * cells' key, type, phase, executable hash and scope (MATRIX_GET) and the
 * text of /sys/kernel/sbridge/params. It is taken before the run and after
 * every accepted change; after every rejected request, and after every
 * accepted request that changes nothing by definition, it must be the
 * same, or that is a violation. So is any kernel log line of the kinds
 * the harness fails a run on (WARNING:, BUG:, Oops, ...) that appears
 * while the run reads /dev/kmsg (root). With USER_EXPECT_EPERM=1 (run as
 * an unprivileged user) any accepted change is a violation too.
 *
 * As root, learning is forced to 0 and the actuators to observe-only
 * (act.observe 1; placement, uclamp, freq, capacity and the checker's
 * selftest 0) at the start and again whenever an accepted SET_PARAM moved
 * one of them, so the state does not change by itself and the guest stays
 * usable.
 *
 * Output: the first few violations (message index, command, length, first
 * 64 bytes in hex), a line of accepted/sent per command and
 *   nlfuzz: sent=N accepted=A rejected=R timeouts=T violations=V seed=S
 * Exit 0 only without violations, 1 with, 2 on usage or setup errors.
 * NLFUZZ_TRACE=1 in the environment prints every request and its answer.
 */
#define NL_TXSIZE 65536
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include "nl.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FZ_SIZE		(NL_TXSIZE + 4096)
#define MAX_ATTRS	1024
#define MAX_PARAMS	64
#define SHOW_MAX	5
#define CMD_SLOTS	42	/* commands 0..40, 41: anything above */

static const char params_path[] = "/sys/kernel/sbridge/params";

/* the request under test, kept apart from tx (the fingerprint uses tx) */
static uint8_t fz[FZ_SIZE] __attribute__((aligned(8)));
static uint32_t flen;

static uint64_t rstate;
static unsigned int ncpus = 1, ntypes = 1;
static char pnames[MAX_PARAMS][32];
static unsigned int npnames;
static int pfd = -1, kfd = -1;
static int user_mode;
static unsigned long viol, kmsg_lost, fp_errors;
static unsigned long by_sent[CMD_SLOTS], by_acc[CMD_SLOTS];

/* ---- PRNG (splitmix64) ------------------------------------------------ */

static uint64_t rnd(void)
{
	uint64_t z = (rstate += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static const uint64_t bounds[] = {
	0, 1, 2, 3, 4, 7, 8, 10, 15, 16, 64, 65, 100, 127, 128, 129, 255, 256,
	512, 1000, 1023, 1024, 1025, 4096, 4097, 8191, 8192, 8193, 10000, 60000,
	60001, 65535, 65536, 65537, 3600000, 3600001, 1000000000, 1000000001,
	0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ULL,
	0x100000001ULL, 0x7fffffffffffffffULL, ~0ULL,
};

static uint64_t bval(void)
{
	uint64_t v;

	if (rn(8))
		return bounds[rn(ARRAY_SIZE(bounds))];
	v = rnd();
	return v >> rn(64);
}

/* Now and then a template's field is out of its range: 1 in bad_odds. */
static unsigned int bad_odds = 24;

static int bad(void)
{
	return bad_odds && !rn(bad_odds);
}

/* A factor: 0 or in [128, 8192], or (bad) just outside or far off. */
static uint32_t factor_val(void)
{
	static const uint32_t ok[] = { 0, 128, 129, 512, 1024, 1536, 4096, 8191, 8192 };
	static const uint32_t ko[] = { 1, 127, 8193, 0x80000000, 0xffffffff };

	if (bad())
		return ko[rn(ARRAY_SIZE(ko))];
	return rn(4) ? ok[rn(ARRAY_SIZE(ok))] : 128 + rn(8065);
}

/* ---- FNV-1a ------------------------------------------------------------ */

#define FNV_OFF		0xcbf29ce484222325ULL

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t fnv_u32(uint64_t h, uint32_t v)
{
	return fnv(h, &v, 4);
}

/* ---- talking to the kernel --------------------------------------------- */

typedef void (*msg_cb)(struct nlmsghdr *h);

/* extack message of the last error, for NLFUZZ_TRACE */
static char errmsg[96];

static void extack_msg(struct nlmsghdr *h)
{
	struct nlmsgerr *e = NLMSG_DATA(h);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int off = sizeof(*e);

	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (off < (int)sizeof(*e) ||
	    (int)h->nlmsg_len - NLMSG_HDRLEN - off < NLA_HDRLEN)
		return;
	parse(tb, NLMSGERR_ATTR_MAX, (char *)e + off,
	      h->nlmsg_len - NLMSG_HDRLEN - off);
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(errmsg, sizeof(errmsg), "%.*s",
			 tb[NLMSGERR_ATTR_MSG]->nla_len - NLA_HDRLEN,
			 (char *)data(tb[NLMSGERR_ATTR_MSG]));
}

/*
 * Reads the answer to request @sq: 0 accepted (ACK, DONE, or the reply of
 * a request without NLM_F_ACK), an errno (> 0) if refused, -1 if nothing
 * came within the receive timeout. Messages of other requests are skipped.
 */
static int answer(uint32_t sq, int acked, msg_cb cb)
{
	int got_data = 0;

	for (;;) {
		int len = recv(fd, rx, sizeof(rx), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return got_data ? 0 : -1;
			perror("nlfuzz: recv");
			exit(2);
		}
		for (h = (void *)rx; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != sq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return EBADMSG;
				if (e->error)
					extack_msg(h);
				return -e->error;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(h), sizeof(int));
				return err < 0 ? -err : 0;
			}
			got_data = 1;
			if (cb)
				cb(h);
			if (!(h->nlmsg_flags & NLM_F_MULTI) && !acked)
				return 0;
		}
	}
}

static int xmit(const void *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, buf, len, 0, (void *)&sa, sizeof(sa)) < 0)
		return errno;
	return 0;
}

/* Sends tx (a well-formed request of our own) and reads its answer. */
static int request(msg_cb cb)
{
	struct nlmsghdr *n = (void *)tx;
	int ret;

	n->nlmsg_len = txlen;
	ret = xmit(tx, txlen);
	if (ret)
		return ret;
	return answer(n->nlmsg_seq, !!(n->nlmsg_flags & NLM_F_ACK), cb);
}

/* The attributes of a genl message into tb[0..max]. */
static void parse_msg(struct nlattr **tb, int max, struct nlmsghdr *h)
{
	parse(tb, max, (char *)NLMSG_DATA(h) + GENL_HDRLEN,
	      (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
}

/* ---- state fingerprint ------------------------------------------------- */

static uint64_t fp_h, fp_mx;

static void rules_fp(struct nlmsghdr *h)
{
	struct nlattr *tb[SBRIDGE_A_MAX + 1], *a;
	int rem;

	parse_msg(tb, SBRIDGE_A_MAX, h);
	fp_h = fnv(fp_h, "rule", 4);
	if (!tb[SBRIDGE_A_RULE])
		return;
	a = data(tb[SBRIDGE_A_RULE]);
	rem = tb[SBRIDGE_A_RULE]->nla_len - NLA_HDRLEN;
	for (; rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		int t = a->nla_type & NLA_TYPE_MASK;

		if (t == SBRIDGE_A_RULE_HITS || t == SBRIDGE_A_PAD)
			continue;
		fp_h = fnv(fp_h, a, a->nla_len);
	}
}

static void cpus_fp(struct nlmsghdr *h)
{
	struct nlattr *tb[SBRIDGE_A_MAX + 1];

	parse_msg(tb, SBRIDGE_A_MAX, h);
	fp_h = fnv_u32(fp_h, u32(tb[SBRIDGE_A_CPU_ID]));
	fp_h = fnv_u32(fp_h, u32(tb[SBRIDGE_A_CPU_FACTOR]));
	fp_h = fnv_u32(fp_h, u32(tb[SBRIDGE_A_CPU_FACTOR_OVERRIDE]));
	if (u32(tb[SBRIDGE_A_CPU_ID]) + 1 > ncpus)
		ncpus = u32(tb[SBRIDGE_A_CPU_ID]) + 1;
}

static uint64_t mx_field(uint64_t c, struct nlattr **tb, int type)
{
	c = fnv_u32(c, type);
	if (tb[type])
		c = fnv(c, data(tb[type]), tb[type]->nla_len - NLA_HDRLEN);
	return c;
}

/* Cells come in no particular order: their hashes are summed. */
static void matrix_fp(struct nlmsghdr *h)
{
	struct nlattr *top[SBRIDGE_A_MAX + 1], *tb[SBRIDGE_A_MAX + 1];
	uint64_t c = FNV_OFF;

	parse_msg(top, SBRIDGE_A_MAX, h);
	if (!top[SBRIDGE_A_MX_ENTRY])
		return;
	parse(tb, SBRIDGE_A_MAX, data(top[SBRIDGE_A_MX_ENTRY]),
	      top[SBRIDGE_A_MX_ENTRY]->nla_len - NLA_HDRLEN);
	c = mx_field(c, tb, SBRIDGE_A_MX_KEY);
	c = mx_field(c, tb, SBRIDGE_A_MX_TYPE);
	c = mx_field(c, tb, SBRIDGE_A_MX_PHASE);
	c = mx_field(c, tb, SBRIDGE_A_MX_EXE_HASH);
#if SBRIDGE_GENL_VERSION >= 4	/* SBRIDGE_A_MX_UID appended in version 4 */
	c = mx_field(c, tb, SBRIDGE_A_MX_UID);
#endif
	fp_mx += c;
}

static int read_params(char *buf, size_t size)
{
	ssize_t n = pread(pfd, buf, size - 1, 0);

	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return n;
}

static void dump_fp(int cmd, msg_cb cb)
{
	int ret;

	msg_init(family, cmd, NLM_F_DUMP);
	ret = request(cb);
	if (ret) {
		/* a dump that fails is a problem of its own: never equal */
		fp_errors++;
		fprintf(stderr, "nlfuzz: fingerprint dump of command %d: error %d\n",
			cmd, ret);
		fp_h = fnv_u32(fp_h, fp_errors);
	}
}

static uint64_t fingerprint(void)
{
	char buf[4096];
	int n;

	fp_h = FNV_OFF;
	fp_mx = 0;
	dump_fp(SBRIDGE_CMD_RULES_GET, rules_fp);
	dump_fp(SBRIDGE_CMD_GET_CPUS, cpus_fp);
	dump_fp(SBRIDGE_CMD_MATRIX_GET, matrix_fp);
	fp_h = fnv(fp_h, &fp_mx, sizeof(fp_mx));
	n = read_params(buf, sizeof(buf));
	return fnv(fp_h, buf, n);
}

/* ---- parameters -------------------------------------------------------- */

static int param_value(const char *text, const char *name, uint64_t *v)
{
	size_t l = strlen(name);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, l) && p[l] == ' ') {
			*v = strtoull(p + l + 1, NULL, 10);
			return 1;
		}
	return 0;
}

static int set_param(const char *name, uint64_t v)
{
	msg_init(family, SBRIDGE_CMD_SET_PARAM, NLM_F_ACK);
	put_str(SBRIDGE_A_PARAM_NAME, name);
	put(SBRIDGE_A_PARAM_VALUE, &v, 8);
	return request(NULL);
}

/* Keeps the model frozen and the actuators observe-only (root only). */
static void guard_params(int force)
{
	static const struct {
		const char *name;
		uint64_t want;
	} g[] = {
		{ "learning", 0 }, { "act.observe", 1 }, { "act.placement", 0 },
		{ "act.uclamp", 0 }, { "act.freq", 0 }, { "act.capacity", 0 },
		{ "checker.selftest", 0 },
	};
	char buf[4096];
	unsigned int i;
	uint64_t v;
	int ret;

	read_params(buf, sizeof(buf));
	for (i = 0; i < ARRAY_SIZE(g); i++) {
		if (!param_value(buf, g[i].name, &v) || (!force && v == g[i].want))
			continue;
		ret = set_param(g[i].name, g[i].want);
		if (ret)
			fprintf(stderr, "nlfuzz: cannot set %s to %llu: error %d\n",
				g[i].name, (unsigned long long)g[i].want, ret);
	}
}

static void load_param_names(void)
{
	char buf[4096], *p, *sp;

	read_params(buf, sizeof(buf));
	for (p = buf; *p && npnames < MAX_PARAMS; p = strchr(p, '\n') + 1) {
		sp = strchr(p, ' ');
		if (!sp || !strchr(p, '\n'))
			break;
		if (sp - p > 0 && sp - p < (int)sizeof(pnames[0])) {
			memcpy(pnames[npnames], p, sp - p);
			pnames[npnames++][sp - p] = '\0';
		}
	}
}

static void status_cb(struct nlmsghdr *h)
{
	struct nlattr *tb[SBRIDGE_A_MAX + 1];

	parse_msg(tb, SBRIDGE_A_MAX, h);
	if (tb[SBRIDGE_A_STATUS_NTYPES])
		ntypes = u32(tb[SBRIDGE_A_STATUS_NTYPES]);
}

/* ---- kernel log -------------------------------------------------------- */

static const char *const kbad[] = {
	"Oops", "BUG:", "WARNING:", "Kernel panic", "general protection fault",
	"Unable to handle kernel", "scheduling while atomic",
	"possible circular locking", "possible recursive locking",
	"inconsistent lock state", "lockdep is turned off", "DEBUG_LOCKS_WARN_ON",
	"blocked for more than",
	"soft lockup", "hard LOCKUP", "rcu_sched self-detected", "rcu: INFO:",
	"detected stall", "UBSAN:", "KASAN:", "refcount_t:",
	"list_add corruption", "list_del corruption", "Call Trace:",
};

/* New kernel log records that look like a failure; prints the first ones. */
static unsigned int kmsg_check(void)
{
	static unsigned int shown;
	unsigned int nbad = 0, i;
	char b[2048], *text;
	ssize_t n;

	if (kfd < 0)
		return 0;
	for (;;) {
		n = read(kfd, b, sizeof(b) - 1);
		if (n < 0 && errno == EPIPE) {
			kmsg_lost++;
			continue;
		}
		if (n <= 0)
			return nbad;
		b[n] = '\0';
		text = strchr(b, ';');
		text = text ? text + 1 : b;
		text[strcspn(text, "\n")] = '\0';
		for (i = 0; i < ARRAY_SIZE(kbad); i++)
			if (strstr(text, kbad[i]))
				break;
		if (i == ARRAY_SIZE(kbad))
			continue;
		nbad++;
		if (shown++ < 20)
			printf("nlfuzz: kernel: %s\n", text);
	}
}

/* ---- building requests --------------------------------------------------- */

static const char *const comms[] = {
	"fz0", "fz1", "fz2", "spin", "chase", "sh", "nlfuzz", "a",
	"fifteen-chars-x", "kworker/0:1",
};
static const char *const exes[] = {
	"/sbridge/bin/spin", "/bin/sh", "/usr/bin/fz", "/", "/x/y/z",
};
static const char *const cgroups[] = {
	"/fz", "fz/a", "/", "/sbridge.slice", "fz/",
};
static const char *const keys[] = {
	"fz0", "fz1", "spin", "chase", "sh", "fifteen-chars-x",
};
static const char *const bad_names[] = {
	"", "no_such_param", "LEARNING", "learning ", "act.",
	"a-name-of-thirty-one-characters", "a-name-of-thirty-two-characters!",
	"act.observe.x",
};

#define TX_ROOM(n)	(txlen + (n) < NL_TXSIZE - 256)

static void t_rule(unsigned int i)
{
	struct nlattr *r = nest(SBRIDGE_A_RULE), *f;
	uint32_t m = bad() ? rn(5) : 1 + rn(3);
	unsigned int k;
	char src[32];

	put_u32(SBRIDGE_A_RULE_MATCH, m);
	if (m == SBRIDGE_MATCH_EXE)
		put_str(SBRIDGE_A_RULE_PATTERN, exes[rn(ARRAY_SIZE(exes))]);
	else if (m == SBRIDGE_MATCH_CGROUP)
		put_str(SBRIDGE_A_RULE_PATTERN, cgroups[rn(ARRAY_SIZE(cgroups))]);
	else
		put_str(SBRIDGE_A_RULE_PATTERN, comms[rn(ARRAY_SIZE(comms))]);
	if (rn(2))
		put_u32(SBRIDGE_A_RULE_CLASS, bad() ? bval() : rn(3));
	if (rn(2))
		put_u32(SBRIDGE_A_RULE_PREF, bad() ? bval() : rn(4));
	if (!rn(3)) {
		f = nest(SBRIDGE_A_RULE_FACTORS);
		for (k = bad() ? rn(6) : 1 + rn(ntypes); k; k--)
			put_u32(SBRIDGE_A_FACTOR, factor_val());
		nest_end(f);
	}
	if (!rn(3)) {
		snprintf(src, sizeof(src), "fuzz.rules:%u", i + 1);
		put_str(SBRIDGE_A_RULE_SOURCE, src);
	}
	nest_end(r);
}

static void t_rules_load(void)
{
	struct nlattr *rs, *r;
	unsigned int i, n;
	char pat[16];

	msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
	rs = nest(SBRIDGE_A_RULES);
	switch (rn(64)) {
	case 0:
	case 1:		/* one more than SBRIDGE_MAX_RULES */
		for (i = 0; i <= SBRIDGE_MAX_RULES; i++)
			nest_end(nest(SBRIDGE_A_RULE));
		break;
	case 2:		/* many small valid rules */
		n = 300 + rn(1200);
		for (i = 0; i < n && TX_ROOM(32); i++) {
			r = nest(SBRIDGE_A_RULE);
			put_u32(SBRIDGE_A_RULE_MATCH, SBRIDGE_MATCH_COMM);
			snprintf(pat, sizeof(pat), "fz%u", i);
			put_str(SBRIDGE_A_RULE_PATTERN, pat);
			nest_end(r);
		}
		break;
	case 3:
	case 4:
	case 5:		/* empty set */
		break;
	default:
		for (i = 0, n = 1 + rn(8); i < n; i++)
			t_rule(i);
	}
	nest_end(rs);
}

/* One cell; the core type and phase are drawn from [0, types) x [0, phases). */
static void t_mx(const char *key, uint32_t types, uint32_t phases)
{
	struct nlattr *e = nest(SBRIDGE_A_MX_ENTRY);
	uint32_t type = bad() ? rn(SBRIDGE_MAX_CORE_TYPES + 1) : rn(types);

	put_str(SBRIDGE_A_MX_KEY, key);
	put_u32(SBRIDGE_A_MX_TYPE, type);
	if (rn(4))
		put_u32(SBRIDGE_A_MX_PHASE, bad() ? bval() : rn(phases));
	put_u32(SBRIDGE_A_MX_CPIB_SHARE, bad() ? bval() : rn(1025));
	if (!rn(3))
		put_u32(SBRIDGE_A_MX_FACTOR, factor_val());
	if (!rn(3))
		put_u32(SBRIDGE_A_MX_SAMPLES, rn(2) ? rn(100) : bval());
	if (!rn(3))
		put_u32(SBRIDGE_A_MX_EXE_HASH, rn(2) ? rnd() : 0);
	if (!rn(4))
		put_u32(SBRIDGE_A_MX_SPEEDUP_MEAS, factor_val());
#if SBRIDGE_GENL_VERSION >= 4
	if (!rn(3))
		put_u32(SBRIDGE_A_MX_UID, rn(2) ? 1000 : rnd());
#endif
	nest_end(e);
}

static void t_matrix_load(void)
{
	unsigned int i, n, r = rn(64);
	struct nlattr *m;
	char key[16];

	msg_init(family, SBRIDGE_CMD_MATRIX_LOAD, NLM_F_ACK);
	m = nest(SBRIDGE_A_MATRIX);
	if (r == 0) {		/* many cells, up to what one nest holds */
		n = 200 + rn(1200);
		bad_odds = rn(2) ? 0 : 24;	/* half of them valid */
		for (i = 0; i < n && txlen < 60000; i++) {
			snprintf(key, sizeof(key), "mx%u", i);
			t_mx(key, ntypes, SBRIDGE_MAX_PHASES);
		}
		bad_odds = 24;
	} else if (r < 4) {	/* empty matrix */
	} else if (r < 20) {	/* names that repeat: duplicates likely */
		for (i = 0, n = 1 + rn(8); i < n; i++)
			t_mx(keys[rn(ARRAY_SIZE(keys))], ntypes, 2);
	} else {
		for (i = 0, n = 1 + rn(8); i < n; i++) {
			snprintf(key, sizeof(key), "fz%u", i);
			t_mx(key, ntypes, SBRIDGE_MAX_PHASES);
		}
	}
	nest_end(m);
}

static void t_cpu_factor(void)
{
	static uint8_t mask[1100];
	unsigned int len = (ncpus + 7) / 8, c;

	memset(mask, 0, sizeof(mask));
	msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
	switch (rn(3) ? 4 : rn(5)) {
	case 0:		/* empty */
		len = rn(2) ? 0 : 4;
		break;
	case 1:		/* one CPU that does not exist */
		mask[0] = 1;
		mask[ncpus / 8] |= 1 << (ncpus % 8);
		len = ncpus / 8 + 1;
		break;
	case 2:		/* the largest mask the policy takes, last bit set */
		mask[0] = 1;
		mask[1023] = 0x80;
		len = 1024;
		break;
	case 3:		/* one byte beyond it */
		mask[0] = 1;
		len = 1025;
		break;
	default:
		for (c = 0; c < ncpus; c++)
			if (rn(2))
				mask[c / 8] |= 1 << (c % 8);
		c = rn(ncpus);
		mask[c / 8] |= 1 << (c % 8);
		if (!rn(4))
			len += rn(8);
	}
	put(SBRIDGE_A_CPUMASK, mask, len);
	put_u32(SBRIDGE_A_FACTOR, factor_val());
}

static void t_set_param(void)
{
	uint64_t v = bval();
	const char *name;

	if (npnames && rn(8))
		name = pnames[rn(npnames)];
	else
		name = bad_names[rn(ARRAY_SIZE(bad_names))];
	msg_init(family, SBRIDGE_CMD_SET_PARAM, NLM_F_ACK);
	put_str(SBRIDGE_A_PARAM_NAME, name);
	put(SBRIDGE_A_PARAM_VALUE, &v, 8);
}

/* A valid request of a real command, into tx. */
static void gen_template(void)
{
	static const uint8_t dumps[] = {
		SBRIDGE_CMD_GET_CPUS, SBRIDGE_CMD_GET_TASKS,
		SBRIDGE_CMD_RULES_GET, SBRIDGE_CMD_MATRIX_GET,
		SBRIDGE_CMD_GET_REPORTS,
	};
	unsigned int r = rn(22);

	if (r < 3)
		t_cpu_factor();
	else if (r < 7)
		t_rules_load();
	else if (r < 8)
		msg_init(family, SBRIDGE_CMD_RULES_CLEAR, NLM_F_ACK);
	else if (r < 12)
		t_matrix_load();
	else if (r < 16)
		t_set_param();
	else if (r < 17)
		msg_init(family, SBRIDGE_CMD_GET_STATUS, NLM_F_ACK);
	else
		msg_init(family, dumps[r - 17], NLM_F_DUMP | (rn(2) ? NLM_F_ACK : 0));
	((struct nlmsghdr *)tx)->nlmsg_len = txlen;
}

/* ---- raw requests ---------------------------------------------------------- */

static void raw_attr(int depth)
{
	struct nlattr *a = (void *)(fz + flen);
	uint32_t start = flen, plen, k;
	uint64_t v;

	if (flen + NLA_HDRLEN + 600 > FZ_SIZE)
		return;
	a->nla_type = rn(4) ? rn(SBRIDGE_A_MAX + 4) : rnd();
	flen += NLA_HDRLEN;
	if (depth < 4 && !rn(4)) {
		a->nla_type |= NLA_F_NESTED;
		for (k = rn(5); k; k--)
			raw_attr(depth + 1);
		plen = flen - start - NLA_HDRLEN;
	} else {
		switch (rn(4)) {
		case 0:
			plen = 4;
			v = bval();
			memcpy(fz + flen, &v, 4);
			break;
		case 1:
			plen = 8;
			v = bval();
			memcpy(fz + flen, &v, 8);
			break;
		case 2:
			plen = 1 + rn(40);
			memset(fz + flen, 'a' + rn(26), plen);
			if (rn(4))
				fz[flen + plen - 1] = '\0';
			break;
		default:
			plen = rn(rn(8) ? 64 : 513);
			for (k = 0; k < plen; k++)
				fz[flen + k] = rnd();
		}
		flen += NLA_ALIGN(plen);
	}
	a->nla_len = NLA_HDRLEN + plen;
	if (!rn(8))
		a->nla_len = rn(2) ? rn(8) : rnd();
}

static void gen_raw(void)
{
	struct nlmsghdr *n = (void *)fz;
	struct genlmsghdr *g = NLMSG_DATA(n);
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
	uint32_t k;

	memset(fz, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	if (rn(2))
		flags |= NLM_F_DUMP;
	if (!rn(4))
		flags |= rnd() & 0xff0;
	if (!rn(256))
		flags &= ~NLM_F_ACK;
	if (!rn(256))
		flags &= ~NLM_F_REQUEST;
	n->nlmsg_type = family;
	n->nlmsg_flags = flags;
	n->nlmsg_seq = ++seq;
	g->cmd = rn(41);
	g->version = rn(4) ? 1 : rnd();
	g->reserved = rn(16) ? 0 : rnd();
	flen = NLMSG_HDRLEN + GENL_HDRLEN;
	if (!rn(4)) {
		for (k = rn(rn(4) ? 64 : 2048); k; k--)
			fz[flen++] = rnd();
	} else {
		for (k = rn(12); k; k--)
			raw_attr(0);
	}
	n->nlmsg_len = flen;
	if (!rn(8)) {		/* truncated */
		flen = NLMSG_HDRLEN + rn(flen - NLMSG_HDRLEN + 1);
		n->nlmsg_len = flen;
	}
	if (!rn(64)) {		/* trailing bytes too few for a header */
		for (k = 1 + rn(15); k; k--)
			fz[flen++] = rnd();
	}
	if (!rn(512))		/* a length the kernel drops silently */
		n->nlmsg_len = rn(2) ? rn(NLMSG_HDRLEN) : flen + 1 + rn(64);
}

/* ---- mutations ----------------------------------------------------------- */

struct attr_ref {
	uint32_t off;
	int parent;
};

static struct attr_ref at[MAX_ATTRS];
static int nat;

static struct nlattr *A(int i)
{
	return (void *)(fz + at[i].off);
}

static void scan_from(uint32_t off, uint32_t end, int parent, int depth)
{
	while (off + NLA_HDRLEN <= end && nat < MAX_ATTRS) {
		struct nlattr *a = (void *)(fz + off);
		int me;

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > end)
			return;
		me = nat++;
		at[me].off = off;
		at[me].parent = parent;
		if ((a->nla_type & NLA_F_NESTED) && depth < 16)
			scan_from(off + NLA_HDRLEN, off + a->nla_len, me, depth + 1);
		off += NLA_ALIGN(a->nla_len);
	}
}

static void scan(void)
{
	nat = 0;
	scan_from(NLMSG_HDRLEN + GENL_HDRLEN, flen, -1, 0);
}

/* The aligned size of attribute i, never past its parent's end. */
static uint32_t asize(int i)
{
	uint32_t end = flen, sz = NLA_ALIGN(A(i)->nla_len);

	if (at[i].parent >= 0)
		end = at[at[i].parent].off + A(at[i].parent)->nla_len;
	return at[i].off + sz > end ? end - at[i].off : sz;
}

static void grow(int parent, int delta)
{
	for (; parent >= 0; parent = at[parent].parent)
		A(parent)->nla_len += delta;
}

/* Inserts n bytes from src (zeros if NULL) at off, inside parent. */
static int ins(uint32_t off, const void *src, uint32_t n, int parent)
{
	if (flen + n > FZ_SIZE - 16)
		return -1;
	memmove(fz + off + n, fz + off, flen - off);
	if (src)
		memcpy(fz + off, src, n);
	else
		memset(fz + off, 0, n);
	flen += n;
	grow(parent, n);
	return 0;
}

static void del(uint32_t off, uint32_t n, int parent)
{
	memmove(fz + off, fz + off + n, flen - off - n);
	flen -= n;
	grow(parent, -(int)n);
}

static int pick_attr(int (*ok)(int i))
{
	int i, c = 0, pick = -1;

	for (i = 0; i < nat; i++)
		if (!ok || ok(i))
			if (!rn(++c))
				pick = i;
	return pick;
}

static int is_num(int i)
{
	return A(i)->nla_len == NLA_HDRLEN + 4 || A(i)->nla_len == NLA_HDRLEN + 8;
}

static int is_str(int i)
{
	uint32_t l = A(i)->nla_len;

	return l > NLA_HDRLEN && !(A(i)->nla_type & NLA_F_NESTED) &&
	       fz[at[i].off + l - 1] == '\0';
}

/* Applies one mutation; returns 1 if the message was cut (stop there). */
static int mutate(void)
{
	struct nlmsghdr *n = (void *)fz;
	struct genlmsghdr *g = NLMSG_DATA(n);
	static uint8_t tmp[FZ_SIZE];
	uint32_t pos, sz, k, d;
	int i, j;
	uint64_t v;

	scan();
	switch (rn(15)) {
	case 0:		/* flip a bit past the netlink header */
		pos = NLMSG_HDRLEN + rn(flen - NLMSG_HDRLEN);
		fz[pos] ^= 1 << rn(8);
		break;
	case 1:		/* replace a byte */
		pos = NLMSG_HDRLEN + rn(flen - NLMSG_HDRLEN);
		fz[pos] = rn(2) ? rnd() : (rn(2) ? 0 : 0xff);
		break;
	case 2:
	case 3:		/* boundary value in a number */
		i = pick_attr(is_num);
		if (i < 0)
			break;
		v = bval();
		memcpy(fz + at[i].off + NLA_HDRLEN, &v, A(i)->nla_len - NLA_HDRLEN);
		break;
	case 4:		/* another type, or the flags */
		i = pick_attr(NULL);
		if (i < 0)
			break;
		if (rn(3))
			A(i)->nla_type = (A(i)->nla_type & ~NLA_TYPE_MASK) |
					 rn(SBRIDGE_A_MAX + 4);
		else
			A(i)->nla_type ^= rn(2) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
		break;
	case 5:		/* another length, data left where it is */
		i = pick_attr(NULL);
		if (i < 0)
			break;
		sz = A(i)->nla_len;
		switch (rn(6)) {
		case 0:
			A(i)->nla_len = rn(4);
			break;
		case 1:
			A(i)->nla_len = NLA_HDRLEN;
			break;
		case 2:
			A(i)->nla_len = sz - 1;
			break;
		case 3:
			A(i)->nla_len = sz + 1;
			break;
		case 4:
			A(i)->nla_len = sz + 4;
			break;
		default:
			A(i)->nla_len = rnd();
		}
		break;
	case 6:		/* drop */
		i = pick_attr(NULL);
		if (i >= 0)
			del(at[i].off, asize(i), at[i].parent);
		break;
	case 7:		/* duplicate, sometimes many times */
		i = pick_attr(NULL);
		if (i < 0)
			break;
		sz = asize(i);
		memcpy(tmp, fz + at[i].off, sz);
		for (k = rn(4) ? 1 : 1 + rn(64); k; k--)
			if (ins(at[i].off + sz, tmp, sz, at[i].parent))
				break;
		break;
	case 8:		/* swap with the next sibling */
		i = pick_attr(NULL);
		if (i < 0)
			break;
		for (j = i + 1; j < nat && at[j].parent != at[i].parent; j++)
			;
		if (j >= nat || at[j].off != at[i].off + asize(i))
			break;
		sz = asize(i);
		k = asize(j);
		memcpy(tmp, fz + at[i].off, sz);
		memmove(fz + at[i].off, fz + at[j].off, k);
		memcpy(fz + at[i].off + k, tmp, sz);
		break;
	case 9:		/* string without its NUL, or overlong */
		i = pick_attr(is_str);
		if (i < 0)
			break;
		sz = A(i)->nla_len;
		if (rn(2)) {
			fz[at[i].off + sz - 1] = 'Z';
			break;
		}
		{
			static const uint32_t more[] = {
				1, 14, 15, 16, 17, 30, 31, 32, 200, 254, 255, 256, 300,
			};
			uint32_t add = more[rn(ARRAY_SIZE(more))], old = asize(i);
			uint32_t nl = sz + add;

			memcpy(tmp, fz + at[i].off, sz - 1);
			memset(tmp + sz - 1, 'x', add);
			tmp[nl - 1] = '\0';
			memset(tmp + nl, 0, NLA_ALIGN(nl) - nl);
			((struct nlattr *)tmp)->nla_len = nl;
			if (flen + NLA_ALIGN(nl) > FZ_SIZE - 16)
				break;
			del(at[i].off, old, at[i].parent);
			ins(at[i].off, tmp, NLA_ALIGN(nl), at[i].parent);
		}
		break;
	case 10:	/* wrapped in nests, one or many levels deep */
		i = pick_attr(NULL);
		if (i < 0)
			break;
		d = rn(2) ? 1 + rn(3) : 1 + rn(64);
		sz = asize(i);
		if (ins(at[i].off, NULL, d * NLA_HDRLEN, at[i].parent))
			break;
		for (k = 0; k < d; k++) {
			struct nlattr *w = (void *)(fz + at[i].off + k * NLA_HDRLEN);

			w->nla_len = (d - k) * NLA_HDRLEN + sz;
			w->nla_type = NLA_F_NESTED |
				      (rn(2) ? A(i)->nla_type & NLA_TYPE_MASK :
				       rn(SBRIDGE_A_MAX + 1));
		}
		break;
	case 11:	/* netlink flags other than REQUEST and ACK */
		n->nlmsg_flags ^= rn(2) ? NLM_F_DUMP : (rn(2) ? NLM_F_ECHO : 0x10 << rn(8));
		n->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
		break;
	case 12:	/* genl header */
		if (rn(2))
			g->version = rnd();
		else if (rn(2))
			g->reserved = rnd();
		else
			g->cmd = rn(41);
		break;
	case 13:	/* random attribute appended (top level or in a nest) */
		i = pick_attr(NULL);
		k = flen;
		if (i >= 0 && (A(i)->nla_type & NLA_F_NESTED) && rn(2)) {
			/* build at the end, then move it to the nest's end */
			raw_attr(2);
			sz = flen - k;
			memcpy(tmp, fz + k, sz);
			flen = k;
			ins(at[i].off + asize(i), tmp, sz, at[i].parent);
			A(i)->nla_len += sz;
		} else {
			raw_attr(0);
		}
		break;
	default:	/* cut */
		flen = NLMSG_HDRLEN + rn(flen - NLMSG_HDRLEN + 1);
		n->nlmsg_len = flen;
		return 1;
	}
	n->nlmsg_len = flen;
	return 0;
}

/* ---- the run ----------------------------------------------------------------- */

static int mutating(uint8_t cmd, uint16_t flags)
{
	if (!(flags & NLM_F_REQUEST) || (flags & NLM_F_DUMP) == NLM_F_DUMP)
		return 0;
	return cmd == SBRIDGE_CMD_SET_CPU_FACTOR || cmd == SBRIDGE_CMD_RULES_LOAD ||
	       cmd == SBRIDGE_CMD_RULES_CLEAR || cmd == SBRIDGE_CMD_MATRIX_LOAD ||
	       cmd == SBRIDGE_CMD_SET_PARAM;
}

static void violation(long i, const char *what, int err)
{
	struct nlmsghdr *n = (void *)fz;
	uint32_t k;

	viol++;
	if (viol > SHOW_MAX)
		return;
	printf("nlfuzz: violation %lu at message %ld: %s (answer %d): cmd=%u flags=0x%x len=%u nlmsg_len=%u hex=",
	       viol, i, what, err, flen >= NLMSG_HDRLEN + 1 ? fz[NLMSG_HDRLEN] : 0,
	       n->nlmsg_flags, flen, n->nlmsg_len);
	for (k = 0; k < flen && k < 64; k++)
		printf("%02x", fz[k]);
	printf("\n");
	fflush(stdout);
}

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	unsigned long accepted = 0, rejected = 0, timeouts = 0;
	struct timeval tmo = { .tv_sec = 0, .tv_usec = 250000 };
	unsigned long long seed;
	uint64_t base, cur;
	long i, count;
	double t0;
	char line[1024];
	unsigned int m;
	int ret, trace;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: nlfuzz N SEED [USER_EXPECT_EPERM]\n");
		return 2;
	}
	count = strtol(argv[1], NULL, 0);
	seed = strtoull(argv[2], NULL, 0);
	user_mode = argc > 3 && atoi(argv[3]);
	rstate = seed;
	trace = getenv("NLFUZZ_TRACE") != NULL;
	t0 = now();

	resolve();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	pfd = open(params_path, O_RDONLY);
	if (pfd < 0) {
		perror(params_path);
		return 2;
	}
	if (!user_mode) {
		/* from the first record kept: boot and load are checked too */
		kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	}
	load_param_names();
	msg_init(family, SBRIDGE_CMD_GET_STATUS, NLM_F_ACK);
	ret = request(status_cb);
	if (ret) {
		fprintf(stderr, "nlfuzz: GET_STATUS: error %d\n", ret);
		return 2;
	}
	if (kmsg_check()) {
		viol++;
		printf("nlfuzz: the kernel log had complaints before the run\n");
	}
	if (!user_mode)
		guard_params(1);
	base = fingerprint();	/* also learns ncpus */

	for (i = 0; i < count; i++) {
		struct nlmsghdr *n = (void *)fz;
		unsigned int slot;
		uint8_t cmd;

		if (rn(4)) {
			gen_template();
			memcpy(fz, tx, txlen);
			flen = txlen;
			for (m = rn(5); m && !mutate(); m--)
				;
		} else {
			gen_raw();
		}
		cmd = flen > NLMSG_HDRLEN ? fz[NLMSG_HDRLEN] : 0;
		slot = cmd < CMD_SLOTS - 1 ? cmd : CMD_SLOTS - 1;
		by_sent[slot]++;

		errmsg[0] = '\0';
		ret = xmit(fz, flen);
		if (!ret)
			ret = answer(n->nlmsg_seq, !!(n->nlmsg_flags & NLM_F_ACK), NULL);
		if (trace)
			printf("%ld: cmd=%u flags=0x%x len=%u/%u -> %d %s\n", i, cmd,
			       n->nlmsg_flags, n->nlmsg_len, flen, ret, errmsg);
		if (kmsg_check())
			violation(i, "kernel log complaint", ret);
		if (ret < 0) {
			/* no answer: accepted or dropped, either may be right */
			timeouts++;
			base = fingerprint();
			continue;
		}
		if (ret == 0) {
			accepted++;
			by_acc[slot]++;
			if (mutating(cmd, n->nlmsg_flags)) {
				if (user_mode)
					violation(i, "unprivileged change accepted", ret);
				else if (cmd == SBRIDGE_CMD_SET_PARAM)
					guard_params(0);
				base = fingerprint();
				continue;
			}
			cur = fingerprint();
			if (cur != base)
				violation(i, "state changed by a request that changes nothing", ret);
			base = cur;
			continue;
		}
		rejected++;
		cur = fingerprint();
		if (cur != base)
			violation(i, "state changed by a rejected request", ret);
		base = cur;
	}
	if (kmsg_check())
		violation(i, "kernel log complaint after the run", 0);
	if (fp_errors)
		viol++;

	line[0] = '\0';
	for (m = 0; m < CMD_SLOTS; m++)
		if (by_sent[m])
			snprintf(line + strlen(line), sizeof(line) - strlen(line),
				 " %u:%lu/%lu", m, by_acc[m], by_sent[m]);
	printf("nlfuzz: accepted/sent by command:%s; %.1f s%s%s\n", line,
	       now() - t0, kfd < 0 && !user_mode ? "; /dev/kmsg not read" : "",
	       kmsg_lost ? "; kernel log records lost" : "");
	printf("nlfuzz: sent=%ld accepted=%lu rejected=%lu timeouts=%lu violations=%lu seed=%llu\n",
	       count, accepted, rejected, timeouts, viol, seed);
	return viol ? 1 : 0;
}
