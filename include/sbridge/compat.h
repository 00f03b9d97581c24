/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel-version differences live. Every shim names
 * the kernel range it covers; delete it when that range is no longer built.
 * Supported: Debian's 6.1 (bookworm), 6.12 (trixie), 7.x (trixie-backports).
 */
#ifndef _SBRIDGE_COMPAT_H
#define _SBRIDGE_COMPAT_H

#include <linux/version.h>

#endif /* _SBRIDGE_COMPAT_H */
