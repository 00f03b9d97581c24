// SPDX-License-Identifier: GPL-2.0
/*
 * Generic-netlink layer for sbridgectl: family lookup (CTRL_CMD_GETFAMILY),
 * requests with acks, dumps, extended-ack messages and the multicast group.
 *
 * Hand-written instead of libmnl/libnl on purpose: sbridgectl is linked
 * statically (the guests, the boards, the Debian package), and Debian's
 * libmnl-dev ships no static archive, only libmnl.so (checked: bookworm's
 * 1.0.4-3); libnl is a much larger library for the few messages needed
 * here. So the tool depends on nothing but libc.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define RX_SIZE 65536			/* dumps are at most 32 KiB per message */
#define MSG_HDRS (NLMSG_HDRLEN + GENL_HDRLEN)

static void msg_grow(struct sb_msg *m, size_t add)
{
	size_t need = m->len + add;
	char *nb;

	if (m->err || need <= m->cap)
		return;
	if (need > (64u << 20)) {
		m->err = -EMSGSIZE;
		return;
	}
	nb = realloc(m->buf, need * 2);
	if (!nb) {
		m->err = -ENOMEM;
		return;
	}
	memset(nb + m->cap, 0, need * 2 - m->cap);
	m->buf = nb;
	m->cap = need * 2;
}

static void msg_init_raw(struct sb_msg *m, uint16_t type, uint16_t flags,
			 uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *h;
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	msg_grow(m, 4096);
	if (m->err)
		return;
	h = (struct nlmsghdr *)m->buf;
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = version;
	m->len = MSG_HDRS;
}

void sb_msg_init(struct sb_msg *m, const struct sb_nl *nl, uint8_t cmd, int dump)
{
	/* Dumps end with NLMSG_DONE; only plain requests ask for an ack. */
	msg_init_raw(m, nl->family, NLM_F_REQUEST |
		     (dump ? NLM_F_DUMP : NLM_F_ACK), cmd, SBRIDGE_GENL_VERSION);
}

void sb_msg_free(struct sb_msg *m)
{
	free(m->buf);
	m->buf = NULL;
	m->len = m->cap = 0;
}

void sb_put(struct sb_msg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a;

	if (len > 65535 - NLA_HDRLEN) {
		m->err = -EMSGSIZE;
		return;
	}
	msg_grow(m, NLA_HDRLEN + NLA_ALIGN(len));
	if (m->err)
		return;
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy(m->buf + m->len + NLA_HDRLEN, data, len);
	m->len += NLA_HDRLEN + NLA_ALIGN(len);
}

void sb_put_u32(struct sb_msg *m, uint16_t type, uint32_t v)
{
	sb_put(m, type, &v, sizeof(v));
}

void sb_put_u64(struct sb_msg *m, uint16_t type, uint64_t v)
{
	sb_put(m, type, &v, sizeof(v));
}

void sb_put_str(struct sb_msg *m, uint16_t type, const char *s)
{
	sb_put(m, type, s, strlen(s) + 1);
}

size_t sb_nest_start(struct sb_msg *m, uint16_t type)
{
	size_t off = m->len;

	sb_put(m, type | NLA_F_NESTED, NULL, 0);
	return off;
}

void sb_nest_end(struct sb_msg *m, size_t off)
{
	struct nlattr *a;

	if (m->err)
		return;
	if (m->len - off > 65535) {
		m->err = -EMSGSIZE;	/* nla_len is 16 bits */
		return;
	}
	a = (struct nlattr *)(m->buf + off);
	a->nla_len = (uint16_t)(m->len - off);
}

void sb_parse(const struct nlattr **tb, int max, const void *data, size_t len)
{
	const struct nlattr *a = data;
	int rem = (int)len;

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	while (rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       (int)a->nla_len <= rem) {
		int t = sb_nla_type(a);

		if (t <= max)
			tb[t] = a;
		rem -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

uint32_t sb_u32(const struct nlattr *a, uint32_t def)
{
	uint32_t v;

	if (!a)
		return def;
	if (sb_nla_len(a) == 1)
		return *(const uint8_t *)sb_nla_data(a);
	if (sb_nla_len(a) == 2) {
		uint16_t s;

		memcpy(&s, sb_nla_data(a), 2);
		return s;
	}
	if (sb_nla_len(a) < 4)
		return def;
	memcpy(&v, sb_nla_data(a), 4);
	return v;
}

uint64_t sb_u64(const struct nlattr *a, uint64_t def)
{
	uint64_t v;

	if (!a)
		return def;
	if (sb_nla_len(a) < 8)
		return sb_u32(a, (uint32_t)def);
	memcpy(&v, sb_nla_data(a), 8);	/* may be only 4-byte aligned */
	return v;
}

const char *sb_str(const struct nlattr *a)
{
	const char *s;
	size_t n;

	if (!a || !sb_nla_len(a))
		return "";
	s = sb_nla_data(a);
	n = sb_nla_len(a);
	return memchr(s, '\0', n) ? s : "";
}

static int send_msg(struct sb_nl *nl, struct sb_msg *m)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	ssize_t n;

	if (m->err)
		return m->err;
	h->nlmsg_len = (uint32_t)m->len;
	h->nlmsg_seq = ++nl->seq;
	do {
		n = sendto(nl->fd, m->buf, m->len, 0, (struct sockaddr *)&sa,
			   sizeof(sa));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return 0;
}

/* Reads NLMSGERR_ATTR_MSG / _OFFS from an error or ack message. */
static void parse_extack(struct sb_nl *nl, const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (NLMSG_HDRLEN + off > h->nlmsg_len)
		return;
	sb_parse(tb, NLMSGERR_ATTR_MAX, (const char *)e + off,
		 h->nlmsg_len - NLMSG_HDRLEN - off);
	if (tb[NLMSGERR_ATTR_MSG]) {
		strncpy(nl->extack, sb_str(tb[NLMSGERR_ATTR_MSG]),
			sizeof(nl->extack) - 1);
		nl->extack[sizeof(nl->extack) - 1] = '\0';
	}
	if (tb[NLMSGERR_ATTR_OFFS])
		nl->extack_off = (int)sb_u32(tb[NLMSGERR_ATTR_OFFS], 0);
}

/* Reads one datagram and dispatches its messages. Returns 1 when the
 * request with sequence @seq is finished, 0 to keep reading, <0 on error. */
static int recv_once(struct sb_nl *nl, uint32_t seq, sb_cb cb, void *arg,
		     uint16_t want_type, int *cb_err, int *events)
{
	static char buf[RX_SIZE] __attribute__((aligned(8)));
	struct sockaddr_nl sa;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_name = &sa, .msg_namelen = sizeof(sa),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	const struct nlmsghdr *h;
	ssize_t n;
	int rem;

	do {
		n = recvmsg(nl->fd, &mh, 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (mh.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	if (sa.nl_pid != 0)
		return 0;		/* not from the kernel */
	rem = (int)n;
	for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, rem);
	     h = NLMSG_NEXT(h, rem)) {
		if (seq && h->nlmsg_seq != seq)
			continue;	/* stale reply of an earlier request */
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(int)))
				return -EBADMSG;
			parse_extack(nl, h);
			return e->error ? e->error : 1;
		}
		if (h->nlmsg_type == NLMSG_DONE) {
			int err = 0;

			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
				memcpy(&err, NLMSG_DATA(h), sizeof(int));
			if (err && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				parse_extack(nl, h);
			return err ? err : 1;
		}
		if (h->nlmsg_type != want_type || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
			continue;
		if (cb && !*cb_err) {
			const struct genlmsghdr *g = NLMSG_DATA(h);
			struct sb_attrs at;

			sb_parse(at.a, SBRIDGE_A_MAX, (const char *)g + GENL_HDRLEN,
				 h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			*cb_err = cb(&at, g->cmd, arg);
		}
		if (events)
			(*events)++;
	}
	return 0;
}

int sb_request(struct sb_nl *nl, struct sb_msg *m, sb_cb cb, void *arg)
{
	int ret, cb_err = 0;

	nl->extack[0] = '\0';
	nl->extack_off = -1;
	ret = send_msg(nl, m);
	if (ret)
		return ret;
	do {
		ret = recv_once(nl, nl->seq, cb, arg, nl->family, &cb_err, NULL);
	} while (ret == 0);
	if (ret < 0)
		return ret;
	return cb_err;
}

/* CTRL_CMD_GETFAMILY reply: family id, version, multicast groups. */
static int family_cb(struct sb_nl *nl, const struct nlmsghdr *h)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *g;
	int rem;

	sb_parse(tb, CTRL_ATTR_MAX, (const char *)NLMSG_DATA(h) + GENL_HDRLEN,
		 h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	nl->family = (uint16_t)sb_u32(tb[CTRL_ATTR_FAMILY_ID], 0);
	nl->version = sb_u32(tb[CTRL_ATTR_VERSION], 0);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	sb_for_each_nested(g, tb[CTRL_ATTR_MCAST_GROUPS], rem) {
		const struct nlattr *gt[CTRL_ATTR_MCAST_GRP_MAX + 1];

		sb_parse(gt, CTRL_ATTR_MCAST_GRP_MAX, sb_nla_data(g), sb_nla_len(g));
		if (!strcmp(sb_str(gt[CTRL_ATTR_MCAST_GRP_NAME]),
			    SBRIDGE_GENL_MCGRP_EVENTS))
			nl->mcgrp = sb_u32(gt[CTRL_ATTR_MCAST_GRP_ID], 0);
	}
	return 0;
}

static int resolve_family(struct sb_nl *nl)
{
	static char buf[RX_SIZE] __attribute__((aligned(8)));
	struct sb_msg m;
	int ret, found = 0;

	msg_init_raw(&m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK,
		     CTRL_CMD_GETFAMILY, 1);
	sb_put_str(&m, CTRL_ATTR_FAMILY_NAME, SBRIDGE_GENL_NAME);
	ret = send_msg(nl, &m);
	sb_msg_free(&m);
	if (ret)
		return ret;
	for (;;) {
		const struct nlmsghdr *h;
		ssize_t n = recv(nl->fd, buf, sizeof(buf), 0);
		int rem;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		rem = (int)n;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, rem);
		     h = NLMSG_NEXT(h, rem)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (e->error)
					return e->error;	/* -ENOENT: not loaded */
				return found ? 0 : -ENOENT;
			}
			if (h->nlmsg_type == GENL_ID_CTRL &&
			    h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN)) {
				ret = family_cb(nl, h);
				if (ret)
					return ret;
				found = 1;
			}
		}
	}
}

int sb_nl_open(struct sb_nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, ret, size = 4 << 20;

	memset(nl, 0, sizeof(*nl));
	nl->extack_off = -1;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	/* Best effort: messages on errors, no echo of big requests, room for
	 * a large rule set (FORCE needs CAP_NET_ADMIN, else capped). */
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(nl->fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(nl->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto fail;
	}
	ret = resolve_family(nl);
	if (ret)
		goto fail;
	return 0;
fail:
	close(nl->fd);
	nl->fd = -1;
	return ret;
}

void sb_nl_close(struct sb_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

int sb_subscribe(struct sb_nl *nl)
{
	int grp = (int)nl->mcgrp;

	if (!grp)
		return -ENOENT;
	if (setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		       sizeof(grp)))
		return -errno;
	return 0;
}

int sb_recv_events(struct sb_nl *nl, int timeout_ms, sb_cb cb, void *arg)
{
	struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
	int ret, cb_err = 0, events = 0;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (!ret)
		return 0;
	ret = recv_once(nl, 0, cb, arg, nl->family, &cb_err, &events);
	if (ret < 0)
		return ret;
	return cb_err ? cb_err : events;
}

int sb_get(struct sb_nl *nl, uint8_t cmd, int dump, sb_cb cb, void *arg)
{
	struct sb_msg m;
	int ret;

	sb_msg_init(&m, nl, cmd, dump);
	ret = sb_request(nl, &m, cb, arg);
	sb_msg_free(&m);
	return ret;
}
