/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal generic-netlink client. Hand-written rather than libmnl/libnl:
 * the arm64 static build cannot link foreign-arch Debian library packages
 * on the build host, and a few hundred lines cover what sbridgectl needs.
 */
#ifndef SBRIDGECTL_NL_H
#define SBRIDGECTL_NL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/sbridge.h>

struct sb_nl {
	int fd;
	uint16_t family;
	uint32_t mcgrp;			/* id of the "events" group, 0 if none */
	uint32_t seq;
	uint32_t version;		/* family version the kernel reports */
	char extack[256];		/* last kernel message ("" if none) */
	int extack_off;			/* offending attribute offset or -1 */
};

/* Outgoing message under construction; any failure sticks in ->err. */
struct sb_msg {
	char *buf;
	size_t len, cap;
	int err;
};

/* Attributes of one message, indexed by type; newer attributes are ignored. */
struct sb_attrs {
	const struct nlattr *a[SBRIDGE_A_MAX + 1];
};

/* Opens the socket and resolves the family. -ENOENT: module not loaded. */
int sb_nl_open(struct sb_nl *nl);
void sb_nl_close(struct sb_nl *nl);

void sb_msg_init(struct sb_msg *m, const struct sb_nl *nl, uint8_t cmd, int dump);
void sb_msg_free(struct sb_msg *m);
void sb_put(struct sb_msg *m, uint16_t type, const void *data, size_t len);
void sb_put_u32(struct sb_msg *m, uint16_t type, uint32_t v);
void sb_put_u64(struct sb_msg *m, uint16_t type, uint64_t v);
void sb_put_str(struct sb_msg *m, uint16_t type, const char *s);
size_t sb_nest_start(struct sb_msg *m, uint16_t type);
void sb_nest_end(struct sb_msg *m, size_t off);

/* Called once per reply (or dump part / event) with its parsed attributes. */
typedef int (*sb_cb)(const struct sb_attrs *at, uint8_t cmd, void *arg);

/* Sends @m and reads until the ack or the end of the dump.
 * Returns 0 or a negative errno (kernel's or local). */
int sb_request(struct sb_nl *nl, struct sb_msg *m, sb_cb cb, void *arg);

/* A request without attributes (@dump: a dump), answered into @cb:
 * sb_msg_init(), sb_request() and sb_msg_free() in one. */
int sb_get(struct sb_nl *nl, uint8_t cmd, int dump, sb_cb cb, void *arg);

/* Events: join the multicast group, then wait up to @timeout_ms (-1: forever)
 * for messages. Returns >0 events handled, 0 on timeout, <0 errno. */
int sb_subscribe(struct sb_nl *nl);
int sb_recv_events(struct sb_nl *nl, int timeout_ms, sb_cb cb, void *arg);

/* Parse a stream of attributes (e.g. a nest's payload) into @tb[0..max]. */
void sb_parse(const struct nlattr **tb, int max, const void *data, size_t len);

/* Attribute getters; all tolerate NULL (return @def / ""). */
uint32_t sb_u32(const struct nlattr *a, uint32_t def);
uint64_t sb_u64(const struct nlattr *a, uint64_t def);
const char *sb_str(const struct nlattr *a);

/* Iterate the attributes in a nest. */
#define sb_nla_data(a)	((const void *)((const char *)(a) + NLA_HDRLEN))
#define sb_nla_len(a)	((size_t)(a)->nla_len - NLA_HDRLEN)
#define sb_nla_type(a)	((a)->nla_type & NLA_TYPE_MASK)
#define sb_for_each_nested(pos, nest, rem)				\
	for ((pos) = sb_nla_data(nest), (rem) = (int)sb_nla_len(nest);	\
	     (rem) >= NLA_HDRLEN && (pos)->nla_len >= NLA_HDRLEN &&	\
	     (int)(pos)->nla_len <= (rem);				\
	     (rem) -= NLA_ALIGN((pos)->nla_len),				\
	     (pos) = (const struct nlattr *)((const char *)(pos) +	\
					     NLA_ALIGN((pos)->nla_len)))

#endif
