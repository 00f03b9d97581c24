// SPDX-License-Identifier: GPL-2.0
/*
 * Internal events: what happened (a counter source came or went, a
 * work-conserving violation, a phase change, a load), posted by the layer
 * it happened in and delivered to whoever listens. netlink.c listens and
 * multicasts them, so no lower layer calls up into an interface.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/notifier.h>
#include "internal.h"

/* RCU-walked: posting takes no lock and may come from softirq context. */
static ATOMIC_NOTIFIER_HEAD(sbridge_event_chain);

/**
 * sbridge_event_post() - tell the listeners that something happened
 * @type: enum sbridge_event
 * @text: short human text, may be NULL; valid only during the call
 *
 * Best effort: listeners drop what they cannot deliver.
 *
 * Context: process or softirq context, not with IRQs off (listeners may
 *	allocate with GFP_ATOMIC).
 */
void sbridge_event_post(u32 type, const char *text)
{
	atomic_notifier_call_chain(&sbridge_event_chain, type, (void *)text);
}

/**
 * sbridge_event_listen() - add a listener
 * @nb: its notifier_block; the callback gets the type as @action and the
 *	text as @data, and must not sleep
 *
 * Return: 0 or a negative errno.
 */
int sbridge_event_listen(struct notifier_block *nb)
{
	return atomic_notifier_chain_register(&sbridge_event_chain, nb);
}

/**
 * sbridge_event_unlisten() - remove a listener
 * @nb: as given to sbridge_event_listen()
 *
 * Context: process context; waits until no post is still calling @nb.
 */
void sbridge_event_unlisten(struct notifier_block *nb)
{
	atomic_notifier_chain_unregister(&sbridge_event_chain, nb);
}
