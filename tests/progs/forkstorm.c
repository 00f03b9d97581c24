// SPDX-License-Identifier: GPL-2.0
/* forkstorm N [PARALLEL [retry]]: create N short-lived children, at most
 * PARALLEL alive at once, and reap them all. Exit 0 only if every child
 * exited 0. retry: a fork that fails (fault injection) is counted and tried
 * again instead of ending the storm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long par = argc > 2 ? atol(argv[2]) : 8, alive = 0, done = 0, bad = 0;
	long forkfail = 0;
	int retry = argc > 3 && !strcmp(argv[3], "retry");
	int st;

	if (n <= 0 || par <= 0) {
		fprintf(stderr, "usage: forkstorm N [PARALLEL]\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid;

		while (alive >= par) {
			if (wait(&st) > 0) {
				alive--; done++;
				bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
			}
		}
		pid = fork();
		if (pid < 0 && retry && forkfail < 100 * n) {
			forkfail++;
			i--;
			continue;
		}
		if (pid < 0) {
			perror("forkstorm: fork");
			return 1;
		}
		if (pid == 0)
			_exit(0);
		alive++;
	}
	while (alive > 0 && wait(&st) > 0) {
		alive--; done++;
		bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	printf("forkstorm children=%ld failed=%ld forks-failed=%ld\n", done, bad, forkfail);
	return bad ? 1 : 0;
}
