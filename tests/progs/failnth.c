// SPDX-License-Identifier: GPL-2.0
/*
 * failnth N FILE.ko [PARAMS]: load a module with the N-th fault-injection
 * point of this task failing (/proc/self/fail-nth; failslab and
 * fail_page_alloc count the allocations their debugfs settings let through).
 * Only the finit_module() call is counted, nothing of a program start.
 *   exit 0: loaded; the N-th point was reached (a failure was tolerated)
 *   exit 1: the load failed (its errno is printed)
 *   exit 3: loaded; the load made fewer than N points: every one is covered
 *   exit 2: usage or setup error
 * failnth N -- CMD [ARG...]: exec CMD with the N-th point failing (the
 * exec's own allocations count too); CMD's exit status is failnth's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int set_nth(long n)
{
	char buf[32];
	int fd = open("/proc/self/fail-nth", O_RDWR);
	int len = snprintf(buf, sizeof(buf), "%ld", n);

	if (fd < 0 || write(fd, buf, len) != len) {
		perror("failnth: /proc/self/fail-nth (CONFIG_FAULT_INJECTION?)");
		return -1;
	}
	return fd;
}

static long left(int fd)
{
	char buf[32] = "";

	if (pread(fd, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	return atol(buf);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0;
	int nfd, mfd, ret, err;
	long rest;

	if (n <= 0) {
		fprintf(stderr, "usage: failnth N FILE.ko [PARAMS] | failnth N -- CMD [ARG...]\n");
		return 2;
	}
	if (!strcmp(argv[2], "--")) {
		if (argc < 4 || set_nth(n) < 0)
			return 2;
		execvp(argv[3], argv + 3);
		perror("failnth: exec");
		return 127;
	}
	mfd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (mfd < 0) {
		perror(argv[2]);
		return 2;
	}
	nfd = set_nth(n);
	if (nfd < 0)
		return 2;
	ret = syscall(SYS_finit_module, mfd, argc > 3 ? argv[3] : "", 0);
	err = errno;
	rest = left(nfd);
	if (pwrite(nfd, "0", 1, 0) != 1)
		perror("failnth: reset fail-nth");
	if (ret) {
		printf("failnth %ld: load failed: %s\n", n, strerror(err));
		return 1;
	}
	printf("failnth %ld: loaded (%s)\n", n, rest > 0 ? "point not reached" : "failure tolerated");
	return rest > 0 ? 3 : 0;
}
