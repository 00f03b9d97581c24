// SPDX-License-Identifier: GPL-2.0
/*
 * nltest - tiny generic-netlink client for the sbridge core scenarios.
 * Static, no libnl. Sends well-formed and deliberately malformed requests
 * and prints what the kernel answered, so that scenarios can check
 * privilege checks, policy rejection and "nothing changed".
 *
 *   nltest status                      key=value lines
 *   nltest tasks                       "pid comm uid has_cpi share class" lines
 *                                      (share 9999 == counter data withheld)
 *   nltest matrix                      "key type phase factor share samples exe"
 *   nltest rules                       "match pattern class pref"
 *   nltest cpu-factor CPU FACTOR       set the CPU factor of one CPU
 *   nltest matrix-load KEY TYPE PHASE SHARE
 *   nltest matrix-load-file FILE       load "nltest matrix" output at once
 *   nltest rule-comm COMM CLASS [PREF] load a one-rule set
 *   nltest rule MATCH PATTERN CLASS PREF  same, any match kind (1 comm,
 *                                      2 exe, 3 cgroup)
 *   nltest rules-clear
 *   nltest param NAME VALUE
 *   nltest bad KIND                    send a malformed request (see below)
 *
 * Exit: 0 if the kernel accepted (for "bad": if it rejected), 1 otherwise,
 * 2 on usage or socket errors. Errors print "error=<errno> msg=<extack>".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nl.h"

typedef void (*cb_t)(struct nlattr **tb);

/* Sends tx, reads until ACK/DONE; calls cb for each data message. */
static int xfer(cb_t cb)
{
	struct nlmsghdr *n = (void *)tx;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	n->nlmsg_len = txlen;
	if (sendto(fd, tx, txlen, 0, (void *)&sa, sizeof(sa)) < 0) {
		perror("sendto");
		exit(2);
	}
	for (;;) {
		int len = recv(fd, rx, sizeof(rx), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			perror("recv");
			exit(2);
		}
		for (h = (void *)rx; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);
				struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
				int off = sizeof(*e);

				if (!e->error)
					return 0;
				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				parse(tb, NLMSGERR_ATTR_MAX, (char *)e + off,
				      h->nlmsg_len - NLMSG_HDRLEN - off);
				printf("error=%d msg=%s\n", -e->error,
				       tb[NLMSGERR_ATTR_MSG] ?
				       (char *)data(tb[NLMSGERR_ATTR_MSG]) : "");
				return e->error;
			}
			if (cb) {
				struct nlattr *tb[SBRIDGE_A_MAX + 1];

				parse(tb, SBRIDGE_A_MAX,
				      (char *)NLMSG_DATA(h) + GENL_HDRLEN,
				      h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
				cb(tb);
			}
		}
	}
}

static void status_cb(struct nlattr **tb)
{
	printf("version=%s\n", tb[SBRIDGE_A_STATUS_VERSION] ?
	       (char *)data(tb[SBRIDGE_A_STATUS_VERSION]) : "");
	printf("api=%u\n", u32(tb[SBRIDGE_A_STATUS_API]));
	printf("source=%s\n", tb[SBRIDGE_A_STATUS_SOURCE] ?
	       (char *)data(tb[SBRIDGE_A_STATUS_SOURCE]) : "none");
	printf("events=%u\n", u32(tb[SBRIDGE_A_STATUS_EVENTS]));
	printf("learning=%u\n", tb[SBRIDGE_A_STATUS_LEARNING] ?
	       *(uint8_t *)data(tb[SBRIDGE_A_STATUS_LEARNING]) : 0);
	printf("tasks=%llu\n", (unsigned long long)u64(tb[SBRIDGE_A_STATUS_TASKS]));
	printf("allocs=%llu\n", (unsigned long long)u64(tb[SBRIDGE_A_STATUS_ALLOCS]));
	printf("frees=%llu\n", (unsigned long long)u64(tb[SBRIDGE_A_STATUS_FREES]));
	printf("matrix=%u\n", u32(tb[SBRIDGE_A_STATUS_MATRIX]));
	printf("rules=%u\n", u32(tb[SBRIDGE_A_STATUS_RULES]));
	printf("ntypes=%u\n", u32(tb[SBRIDGE_A_STATUS_NTYPES]));
	printf("switches=%llu\n", (unsigned long long)u64(tb[SBRIDGE_A_STATUS_SWITCHES]));
	printf("message=%s\n", tb[SBRIDGE_A_STATUS_MESSAGE] ?
	       (char *)data(tb[SBRIDGE_A_STATUS_MESSAGE]) : "");
}

static void task_cb(struct nlattr **tb)
{
	printf("%u %s %u %d %u %u\n", u32(tb[SBRIDGE_A_TASK_PID]),
	       tb[SBRIDGE_A_TASK_COMM] ? (char *)data(tb[SBRIDGE_A_TASK_COMM]) : "?",
	       u32(tb[SBRIDGE_A_TASK_UID]), tb[SBRIDGE_A_TASK_CPI] != NULL,
	       tb[SBRIDGE_A_TASK_CPIB_SHARE] ? u32(tb[SBRIDGE_A_TASK_CPIB_SHARE]) : 9999,
	       u32(tb[SBRIDGE_A_TASK_CLASS]));
}

static void matrix_cb(struct nlattr **top)
{
	struct nlattr *tb[SBRIDGE_A_MAX + 1];
	struct nlattr *e = top[SBRIDGE_A_MX_ENTRY];

	if (!e)
		return;
	parse(tb, SBRIDGE_A_MAX, data(e), e->nla_len - NLA_HDRLEN);
	printf("%s %u %u %u %u %u 0x%x %u\n",
	       tb[SBRIDGE_A_MX_KEY] ? (char *)data(tb[SBRIDGE_A_MX_KEY]) : "?",
	       u32(tb[SBRIDGE_A_MX_TYPE]), u32(tb[SBRIDGE_A_MX_PHASE]),
	       u32(tb[SBRIDGE_A_MX_FACTOR]), u32(tb[SBRIDGE_A_MX_CPIB_SHARE]),
	       u32(tb[SBRIDGE_A_MX_SAMPLES]), u32(tb[SBRIDGE_A_MX_EXE_HASH]),
	       u32(tb[SBRIDGE_A_MX_UID]));
}

static void rules_cb(struct nlattr **top)
{
	struct nlattr *tb[SBRIDGE_A_MAX + 1];
	struct nlattr *e = top[SBRIDGE_A_RULE];

	if (!e)
		return;
	parse(tb, SBRIDGE_A_MAX, data(e), e->nla_len - NLA_HDRLEN);
	printf("%u %s %u %u\n", u32(tb[SBRIDGE_A_RULE_MATCH]),
	       tb[SBRIDGE_A_RULE_PATTERN] ? (char *)data(tb[SBRIDGE_A_RULE_PATTERN]) : "?",
	       u32(tb[SBRIDGE_A_RULE_CLASS]), u32(tb[SBRIDGE_A_RULE_PREF]));
}

static void one_rule(int match, const char *pat, uint32_t cls, uint32_t pref)
{
	struct nlattr *rs = nest(SBRIDGE_A_RULES), *r = nest(SBRIDGE_A_RULE);

	put_u32(SBRIDGE_A_RULE_MATCH, match);
	put_str(SBRIDGE_A_RULE_PATTERN, pat);
	put_u32(SBRIDGE_A_RULE_CLASS, cls);
	put_u32(SBRIDGE_A_RULE_PREF, pref);
	nest_end(r);
	nest_end(rs);
}

static void one_mx(const char *key, uint32_t type, uint32_t phase, uint32_t share)
{
	struct nlattr *m = nest(SBRIDGE_A_MATRIX), *e = nest(SBRIDGE_A_MX_ENTRY);

	put_str(SBRIDGE_A_MX_KEY, key);
	put_u32(SBRIDGE_A_MX_TYPE, type);
	put_u32(SBRIDGE_A_MX_PHASE, phase);
	put_u32(SBRIDGE_A_MX_CPIB_SHARE, share);
	nest_end(e);
	nest_end(m);
}

/* Malformed requests; each must be refused. */
static int bad(const char *kind)
{
	uint8_t mask[1024] = { 0 };

	if (!strcmp(kind, "factor-range")) {
		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		mask[0] = 1;
		put(SBRIDGE_A_CPUMASK, mask, 1);
		put_u32(SBRIDGE_A_FACTOR, 99999);
	} else if (!strcmp(kind, "factor-low")) {
		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		mask[0] = 1;
		put(SBRIDGE_A_CPUMASK, mask, 1);
		put_u32(SBRIDGE_A_FACTOR, 5);
	} else if (!strcmp(kind, "factor-short")) {
		uint16_t v = 1024;

		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		mask[0] = 1;
		put(SBRIDGE_A_CPUMASK, mask, 1);
		put(SBRIDGE_A_FACTOR, &v, 2);
	} else if (!strcmp(kind, "mask-empty")) {
		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		put(SBRIDGE_A_CPUMASK, mask, 4);
		put_u32(SBRIDGE_A_FACTOR, 1024);
	} else if (!strcmp(kind, "mask-nocpu")) {
		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		mask[0] = 1;
		mask[1000] = 0x80;	/* CPU 8007 */
		put(SBRIDGE_A_CPUMASK, mask, 1001);
		put_u32(SBRIDGE_A_FACTOR, 1024);
	} else if (!strcmp(kind, "mask-missing")) {
		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		put_u32(SBRIDGE_A_FACTOR, 1024);
	} else if (!strcmp(kind, "unknown-attr")) {
		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		mask[0] = 1;
		put(SBRIDGE_A_CPUMASK, mask, 1);
		put_u32(SBRIDGE_A_FACTOR, 1024);
		put_str(SBRIDGE_A_STATUS_VERSION, "x");
	} else if (!strcmp(kind, "attr-beyond-max")) {
		msg_init(family, SBRIDGE_CMD_SET_PARAM, NLM_F_ACK);
		put_u32(SBRIDGE_A_MAX + 5, 1);
	} else if (!strcmp(kind, "rule-match")) {
		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		one_rule(77, "x", 0, 0);
	} else if (!strcmp(kind, "rule-comm-long")) {
		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		one_rule(SBRIDGE_MATCH_COMM, "a-very-long-command-name", 0, 0);
	} else if (!strcmp(kind, "rule-exe-relative")) {
		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		one_rule(SBRIDGE_MATCH_EXE, "bin/true", 0, 0);
	} else if (!strcmp(kind, "rule-class")) {
		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		one_rule(SBRIDGE_MATCH_COMM, "x", 9, 0);
	} else if (!strcmp(kind, "rule-second-bad")) {
		/* First rule fine, second bad: nothing may be loaded. */
		struct nlattr *rs, *r;

		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		rs = nest(SBRIDGE_A_RULES);
		r = nest(SBRIDGE_A_RULE);
		put_u32(SBRIDGE_A_RULE_MATCH, SBRIDGE_MATCH_COMM);
		put_str(SBRIDGE_A_RULE_PATTERN, "good");
		nest_end(r);
		r = nest(SBRIDGE_A_RULE);
		put_u32(SBRIDGE_A_RULE_MATCH, SBRIDGE_MATCH_COMM);
		put_str(SBRIDGE_A_RULE_PATTERN, "");
		nest_end(r);
		nest_end(rs);
	} else if (!strcmp(kind, "rule-factor")) {
		struct nlattr *rs, *r, *f;

		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		rs = nest(SBRIDGE_A_RULES);
		r = nest(SBRIDGE_A_RULE);
		put_u32(SBRIDGE_A_RULE_MATCH, SBRIDGE_MATCH_COMM);
		put_str(SBRIDGE_A_RULE_PATTERN, "x");
		f = nest(SBRIDGE_A_RULE_FACTORS);
		put_u32(SBRIDGE_A_FACTOR, 50000);
		nest_end(f);
		nest_end(r);
		nest_end(rs);
	} else if (!strcmp(kind, "matrix-type")) {
		msg_init(family, SBRIDGE_CMD_MATRIX_LOAD, NLM_F_ACK);
		one_mx("x", 3, 0, 512);
	} else if (!strcmp(kind, "matrix-share")) {
		msg_init(family, SBRIDGE_CMD_MATRIX_LOAD, NLM_F_ACK);
		one_mx("x", 0, 0, 5000);
	} else if (!strcmp(kind, "matrix-dup")) {
		struct nlattr *m, *e;
		int i;

		msg_init(family, SBRIDGE_CMD_MATRIX_LOAD, NLM_F_ACK);
		m = nest(SBRIDGE_A_MATRIX);
		for (i = 0; i < 2; i++) {
			e = nest(SBRIDGE_A_MX_ENTRY);
			put_str(SBRIDGE_A_MX_KEY, "dup");
			put_u32(SBRIDGE_A_MX_TYPE, 0);
			put_u32(SBRIDGE_A_MX_CPIB_SHARE, 512);
			nest_end(e);
		}
		nest_end(m);
	} else if (!strcmp(kind, "matrix-nokey")) {
		struct nlattr *m, *e;

		msg_init(family, SBRIDGE_CMD_MATRIX_LOAD, NLM_F_ACK);
		m = nest(SBRIDGE_A_MATRIX);
		e = nest(SBRIDGE_A_MX_ENTRY);
		put_u32(SBRIDGE_A_MX_TYPE, 0);
		put_u32(SBRIDGE_A_MX_CPIB_SHARE, 512);
		nest_end(e);
		nest_end(m);
	} else if (!strcmp(kind, "param-unknown")) {
		uint64_t v = 1;

		msg_init(family, SBRIDGE_CMD_SET_PARAM, NLM_F_ACK);
		put_str(SBRIDGE_A_PARAM_NAME, "no_such_param");
		put(SBRIDGE_A_PARAM_VALUE, &v, 8);
	} else if (!strcmp(kind, "param-range")) {
		uint64_t v = 5;

		msg_init(family, SBRIDGE_CMD_SET_PARAM, NLM_F_ACK);
		put_str(SBRIDGE_A_PARAM_NAME, "learning");
		put(SBRIDGE_A_PARAM_VALUE, &v, 8);
	} else if (!strcmp(kind, "param-unterminated")) {
		uint64_t v = 1;

		msg_init(family, SBRIDGE_CMD_SET_PARAM, NLM_F_ACK);
		put(SBRIDGE_A_PARAM_NAME, "learning", 8);
		put(SBRIDGE_A_PARAM_VALUE, &v, 8);
	} else if (!strcmp(kind, "bad-cmd")) {
		msg_init(family, 200, NLM_F_ACK);
	} else {
		fprintf(stderr, "unknown bad kind %s\n", kind);
		return 2;
	}
	return xfer(NULL) ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: see the comment at the top of nltest.c\n");
		return 2;
	}
	resolve();
	if (!strcmp(argv[1], "status")) {
		msg_init(family, SBRIDGE_CMD_GET_STATUS, NLM_F_ACK);
		return xfer(status_cb) ? 1 : 0;
	} else if (!strcmp(argv[1], "tasks")) {
		msg_init(family, SBRIDGE_CMD_GET_TASKS, NLM_F_DUMP);
		return xfer(task_cb) ? 1 : 0;
	} else if (!strcmp(argv[1], "matrix")) {
		msg_init(family, SBRIDGE_CMD_MATRIX_GET, NLM_F_DUMP);
		return xfer(matrix_cb) ? 1 : 0;
	} else if (!strcmp(argv[1], "rules")) {
		msg_init(family, SBRIDGE_CMD_RULES_GET, NLM_F_DUMP);
		return xfer(rules_cb) ? 1 : 0;
	} else if (!strcmp(argv[1], "cpu-factor") && argc == 4) {
		uint8_t mask[128] = { 0 };
		int cpu = atoi(argv[2]);

		if (cpu < 0 || cpu >= 1024)
			return 2;
		mask[cpu / 8] |= 1 << (cpu % 8);
		msg_init(family, SBRIDGE_CMD_SET_CPU_FACTOR, NLM_F_ACK);
		put(SBRIDGE_A_CPUMASK, mask, cpu / 8 + 1);
		put_u32(SBRIDGE_A_FACTOR, strtoul(argv[3], NULL, 0));
		return xfer(NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "matrix-load") && argc == 6) {
		msg_init(family, SBRIDGE_CMD_MATRIX_LOAD, NLM_F_ACK);
		one_mx(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
		return xfer(NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "matrix-load-file") && argc == 3) {
		FILE *f = fopen(argv[2], "r");
		unsigned int t, p, fa, sh, sa, ex, uid;
		struct nlattr *m, *e;
		char key[64], line[256];

		if (!f) {
			perror(argv[2]);
			return 2;
		}
		msg_init(family, SBRIDGE_CMD_MATRIX_LOAD, NLM_F_ACK);
		m = nest(SBRIDGE_A_MATRIX);
		while (fgets(line, sizeof(line), f)) {
			ex = 0;
			uid = 0;
			if (sscanf(line, "%63s %u %u %u %u %u %x %u", key, &t, &p,
				   &fa, &sh, &sa, &ex, &uid) < 6)
				continue;
			if (txlen > sizeof(tx) - 256) {
				fprintf(stderr, "matrix file too large for nltest\n");
				return 2;
			}
			e = nest(SBRIDGE_A_MX_ENTRY);
			put_str(SBRIDGE_A_MX_KEY, key);
			put_u32(SBRIDGE_A_MX_TYPE, t);
			put_u32(SBRIDGE_A_MX_PHASE, p);
			put_u32(SBRIDGE_A_MX_FACTOR, fa);
			put_u32(SBRIDGE_A_MX_CPIB_SHARE, sh);
			put_u32(SBRIDGE_A_MX_SAMPLES, sa);
			if (ex)
				put_u32(SBRIDGE_A_MX_EXE_HASH, ex);
			if (uid)
				put_u32(SBRIDGE_A_MX_UID, uid);
			nest_end(e);
		}
		fclose(f);
		nest_end(m);
		return xfer(NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "rule-comm") && argc >= 4) {
		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		one_rule(SBRIDGE_MATCH_COMM, argv[2], atoi(argv[3]),
			 argc > 4 ? atoi(argv[4]) : 0);
		return xfer(NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "rule") && argc == 6) {
		msg_init(family, SBRIDGE_CMD_RULES_LOAD, NLM_F_ACK);
		one_rule(atoi(argv[2]), argv[3], atoi(argv[4]), atoi(argv[5]));
		return xfer(NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "rules-clear")) {
		msg_init(family, SBRIDGE_CMD_RULES_CLEAR, NLM_F_ACK);
		return xfer(NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "param") && argc == 4) {
		uint64_t v = strtoull(argv[3], NULL, 0);

		msg_init(family, SBRIDGE_CMD_SET_PARAM, NLM_F_ACK);
		put_str(SBRIDGE_A_PARAM_NAME, argv[2]);
		put(SBRIDGE_A_PARAM_VALUE, &v, 8);
		return xfer(NULL) ? 1 : 0;
	} else if (!strcmp(argv[1], "bad") && argc == 3) {
		return bad(argv[2]);
	}
	fprintf(stderr, "usage: see the comment at the top of nltest.c\n");
	return 2;
}
