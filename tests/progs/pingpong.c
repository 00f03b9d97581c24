// SPDX-License-Identifier: GPL-2.0
/* pingpong N: N one-byte round trips over two pipes between a parent and
 * a child, i.e. about 2N context switches. Prints ns per round trip. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int a[2], b[2];
	struct timespec t0, t1;
	char c = 0;
	pid_t pid;
	double ns;

	if (n <= 0) {
		fprintf(stderr, "usage: pingpong N\n");
		return 2;
	}
	if (pipe(a) || pipe(b)) {
		perror("pingpong: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) {
			perror("pingpong");
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waitpid(pid, NULL, 0);
	ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	printf("pingpong trips=%ld ns_per_trip=%.0f\n", n, ns / n);
	return 0;
}
