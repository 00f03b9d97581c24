// SPDX-License-Identifier: GPL-2.0
/* manytasks N [PER]: keep N tasks alive: processes of at most PER threads
 * (default 2000, under vm.max_map_count's 65530 with two mappings per
 * thread stack), every thread blocked in read(). Prints "alive M of N" once
 * all are up (M < N: a clone failed, the reason follows), then waits for
 * SIGTERM or SIGINT, kills the processes and prints "gone". Exit 0 only
 * if all N came up. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static int hold[2];	/* nobody writes: threads block reading it */

static void *sleeper(void *arg)
{
	char c;

	(void)arg;
	while (read(hold[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* child: start @n threads, report how many came up (and errno) on @fd */
static void child(long n, int fd)
{
	pthread_attr_t a;
	long i, rep[2] = { 0, 0 };

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN > 16384 ? PTHREAD_STACK_MIN : 16384);
	for (i = 0; i < n; i++) {
		pthread_t t;
		int e = pthread_create(&t, &a, sleeper, NULL);

		if (e) {
			rep[1] = e;
			break;
		}
	}
	rep[0] = i + 1;	/* the process's own task counts */
	if (write(fd, rep, sizeof(rep)) != sizeof(rep))
		_exit(1);
	for (;;)
		pause();
}

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, per = argc > 2 ? atol(argv[2]) : 2000;
	long alive = 0, err = 0, nproc, i;
	int rep[2];
	pid_t *kids;

	if (n <= 0 || per <= 1) {
		fprintf(stderr, "usage: manytasks N [PER]\n");
		return 2;
	}
	if (pipe(hold) || pipe(rep)) {
		perror("pipe");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	nproc = (n + per - 1) / per;
	kids = calloc(nproc, sizeof(*kids));
	if (!kids)
		return 1;
	for (i = 0; i < nproc; i++) {
		long want = (i == nproc - 1 ? n - per * i : per) - 1;	/* + the process */

		kids[i] = fork();
		if (kids[i] < 0) {
			err = errno;
			break;
		}
		if (!kids[i]) {
			signal(SIGTERM, SIG_DFL);
			child(want, rep[1]);
		}
		/* one at a time: a clone failure stops the rest */
		long r[2];

		if (read(rep[0], r, sizeof(r)) != sizeof(r)) {
			err = EIO;
			i++;
			break;
		}
		alive += r[0];
		if (r[1]) {
			err = r[1];
			i++;
			break;
		}
	}
	nproc = i;
	printf("alive %ld of %ld%s%s\n", alive, n, err ? ": " : "", err ? strerror(err) : "");
	fflush(stdout);
	while (!stop)
		pause();
	for (i = 0; i < nproc; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	for (i = 0; i < nproc; i++)
		if (kids[i] > 0)
			waitpid(kids[i], NULL, 0);
	printf("gone\n");
	return alive == n ? 0 : 1;
}
