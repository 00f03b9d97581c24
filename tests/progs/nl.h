/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl.h - the few generic-netlink helpers the test programs share
 * (nltest.c, nlfuzz.c). Static, no libnl: one request is built in tx
 * (msg_init, put*, nest, nest_end), answers are read into rx and split
 * with parse(). resolve() opens the socket and finds the sbridge family.
 *
 * A program may define NL_TXSIZE before including this for a larger
 * request buffer.
 */
#ifndef SBRIDGE_TESTS_NL_H
#define SBRIDGE_TESTS_NL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include "../../include/uapi/linux/sbridge.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

#ifndef NL_TXSIZE
#define NL_TXSIZE 16384
#endif

static int fd, family;
static uint32_t seq = 1;
static char tx[NL_TXSIZE] __attribute__((aligned(8)));
static char rx[65536] __attribute__((aligned(8)));
static size_t txlen;

static inline void msg_init(int type, int cmd, int flags)
{
	struct nlmsghdr *n = (void *)tx;
	struct genlmsghdr *g = NLMSG_DATA(n);

	memset(tx, 0, txlen);	/* put() writes below txlen only: the rest is 0 */
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = ++seq;
	g->cmd = cmd;
	g->version = 1;
	txlen = NLMSG_HDRLEN + GENL_HDRLEN;
}

static inline struct nlattr *put(int type, const void *data, int len)
{
	struct nlattr *a = (void *)(tx + txlen);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	txlen += NLA_ALIGN(a->nla_len);
	return a;
}

static inline void put_u32(int type, uint32_t v) { put(type, &v, 4); }
static inline void put_str(int type, const char *s) { put(type, s, strlen(s) + 1); }
static inline struct nlattr *nest(int type) { return put(type | NLA_F_NESTED, NULL, 0); }
static inline void nest_end(struct nlattr *a) { a->nla_len = tx + txlen - (char *)a; }

static inline void parse(struct nlattr **tb, int max, void *p, int len)
{
	struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (a = p; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) <= max)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
}

static inline void *data(struct nlattr *a) { return (char *)a + NLA_HDRLEN; }
static inline uint32_t u32(struct nlattr *a) { return a ? *(uint32_t *)data(a) : 0; }
static inline uint64_t u64(struct nlattr *a)
{
	uint64_t v = 0;

	if (a)
		memcpy(&v, data(a), 8);
	return v;
}

/* Opens fd and sets family to the sbridge family's id; exits 2 if absent. */
static inline int resolve(void)
{
	struct nlmsghdr *h;
	int len, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	msg_init(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	put_str(CTRL_ATTR_FAMILY_NAME, SBRIDGE_GENL_NAME);
	((struct nlmsghdr *)tx)->nlmsg_len = txlen;
	if (send(fd, tx, txlen, 0) < 0)
		return -1;
	len = recv(fd, rx, sizeof(rx), 0);
	h = (void *)rx;
	if (len < 0 || !NLMSG_OK(h, len) || h->nlmsg_type == NLMSG_ERROR) {
		fprintf(stderr, "family %s not found (module loaded?)\n",
			SBRIDGE_GENL_NAME);
		exit(2);
	}
	{
		struct nlattr *tb[CTRL_ATTR_MAX + 1];

		parse(tb, CTRL_ATTR_MAX, (char *)NLMSG_DATA(h) + GENL_HDRLEN,
		      h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
		if (!tb[CTRL_ATTR_FAMILY_ID])
			exit(2);
		family = *(uint16_t *)data(tb[CTRL_ATTR_FAMILY_ID]);
	}
	return 0;
}

#endif /* SBRIDGE_TESTS_NL_H */
