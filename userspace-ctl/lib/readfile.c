// SPDX-License-Identifier: GPL-2.0
/* The bounded reader of rules, configuration and matrix files (readfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readfile.h"

int sb_read_fd(int fd, const struct stat *st, size_t max, int idle_ms,
	       char **out, size_t *len)
{
	/* pipes and sockets can be kept open and silent by their writer */
	int stream = S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode);
	size_t cap = 0, n = 0, want;
	char *buf = NULL, *nb;

	*out = NULL;
	*len = 0;
	if (S_ISREG(st->st_mode) && st->st_size >= 0 && (unsigned long long)st->st_size > max)
		return -EFBIG;
	for (;;) {
		ssize_t r;

		/* room for max + 1 bytes at most (to see "more"), and the NUL */
		if (n + 1 >= cap) {
			want = cap ? cap * 2 : 65536;
			if (want > max + 2)
				want = max + 2;
			if (want <= cap) {
				free(buf);
				return -EFBIG;
			}
			nb = realloc(buf, want);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap = want;
		}
		if (stream) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			int k = poll(&p, 1, idle_ms);

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				int e = errno;

				free(buf);
				return -e;
			}
			if (!k) {
				free(buf);
				return -ETIMEDOUT;
			}
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN)) {
			/* a stream polls above; anything else waits here */
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (errno == EAGAIN && !stream)
				poll(&p, 1, -1);
			continue;
		}
		if (r < 0) {
			int e = errno;

			free(buf);
			return -e;
		}
		if (!r)
			break;
		n += (size_t)r;
		if (n > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int sb_read_path(const char *path, size_t max, int idle_ms, char **out,
		 size_t *len)
{
	struct stat st;
	int fd, ret;

	*out = NULL;
	*len = 0;
	if (!strcmp(path, "-")) {
		if (fstat(0, &st))
			return -errno;
		return sb_read_fd(0, &st, max, idle_ms, out, len);
	}
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
	} else if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
	} else if (S_ISBLK(st.st_mode)) {
		ret = -EINVAL;
	} else {
		/* a terminal is read as it types; pipes are polled */
		if (S_ISCHR(st.st_mode))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		ret = sb_read_fd(fd, &st, max, idle_ms, out, len);
	}
	close(fd);
	return ret;
}

const char *sb_read_strerror(int err, size_t max, int idle_ms)
{
	static char buf[128];

	switch (err) {
	case -EFBIG:
		if (max % (1u << 20) == 0)
			snprintf(buf, sizeof(buf), "larger than %zu MiB, the most an input file may hold",
				 max >> 20);
		else
			snprintf(buf, sizeof(buf), "larger than %zu bytes, the most an input file may hold",
				 max);
		return buf;
	case -ETIMEDOUT:
		snprintf(buf, sizeof(buf), "nothing came through it for %d s (a pipe or FIFO whose writer never closes it?)",
			 idle_ms / 1000);
		return buf;
	case -ENOMEM:
		return "out of memory";
	case -EISDIR:
		return "is a directory";
	case -EINVAL:
		return "not a file, pipe or terminal";
	}
	return strerror(-err);
}
