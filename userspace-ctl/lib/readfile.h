/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one reader of sbridgectl's input files: rules, configuration and
 * saved matrices. Bounded in size and, for pipes, in time, so that
 * /dev/zero, /dev/urandom, a 2 GB file or a FIFO whose writer never
 * closes it each end in an error instead of filling memory or hanging.
 * Pure C without netlink, so that the host tests link it with the rule
 * parser alone.
 */
#ifndef SBRIDGECTL_READFILE_H
#define SBRIDGECTL_READFILE_H

#include <stddef.h>
#include <sys/stat.h>

/* The most bytes one input file may hold (sbridgectl(8), FILES). */
#define SB_READ_MAX		(16u << 20)
/* A pipe, FIFO or socket silent this long is given up on (terminals never). */
#define SB_READ_IDLE_MS		10000

/*
 * Reads @fd (whose fstat() is @st) to its end into a malloc'ed buffer
 * (*@out, *@len bytes, NUL-terminated one past the end; the caller frees
 * it). At most @max bytes: a regular file larger than that is refused
 * from its size, before a byte is read; anything else once it has sent
 * @max + 1. A pipe, FIFO or socket that sends nothing for @idle_ms
 * (-1: wait for ever) is given up on.
 *
 * Returns 0, or a negative errno with *@out NULL: -EFBIG (more than
 * @max), -ETIMEDOUT (silent pipe), -ENOMEM (never taken for the end of
 * the file) or read()'s own error.
 */
int sb_read_fd(int fd, const struct stat *st, size_t max, int idle_ms,
	       char **out, size_t *len);

/*
 * sb_read_fd() of @path, "-" being standard input: a regular file, a
 * pipe, FIFO, socket or character device (a terminal, /dev/stdin); a
 * directory or a block device is -EISDIR or -EINVAL.
 */
int sb_read_path(const char *path, size_t max, int idle_ms, char **out,
		 size_t *len);

/* Why sb_read_*() failed with @err, in words ("larger than 16 MiB"). */
const char *sb_read_strerror(int err, size_t max, int idle_ms);

#endif
