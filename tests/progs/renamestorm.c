// SPDX-License-Identifier: GPL-2.0
/*
 * renamestorm N SECONDS [PERIOD_MS]: keep N tasks alive in processes of at
 * most 2000 threads (as manytasks), each thread renaming itself with
 * prctl(PR_SET_NAME) every PERIOD_MS (default 2000, spread at random),
 * alternately "rs-a" and "rs-b"; each process's leader renames itself
 * too, so every leader rename makes sbridge re-match its whole process.
 * Nobody renames before all N are up (the storm would otherwise starve
 * the thread creation it runs beside: under TCG, 30 000 threads then took
 * longer to come up than the scenario's timeout). Prints "alive M of N"
 * once all are up, "renames R" at the end, SECONDS after the start;
 * exit 0 only if all N came up.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER	2000

static long period_ms = 2000;
static volatile int done;
/* the start: a thread sleeps on @go_cond until the leader sets @go */
static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR && !done)
		;
}

/* renames itself until done; returns how often */
static long renamer(unsigned int seed)
{
	long n = 0;

	nap_ms(rand_r(&seed) % period_ms);
	while (!done) {
		prctl(PR_SET_NAME, n & 1 ? "rs-b" : "rs-a", 0, 0, 0);
		n++;
		nap_ms(period_ms);
	}
	return n;
}

static void *thread_fn(void *arg)
{
	pthread_mutex_lock(&go_lock);
	while (!go)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
	return (void *)renamer((unsigned int)(long)arg);
}

static void on_alarm(int s)
{
	(void)s;
	done = 1;
}

/*
 * child: @n threads and itself rename for @secs from a byte on @gofd;
 * reports count, renames on @fd
 */
static void child(long n, int secs, int fd, int gofd)
{
	pthread_t *t = calloc(n, sizeof(*t));
	pthread_attr_t a;
	long i, up, rep[2] = { 0, 0 };
	char g;
	void *r;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN > 16384 ? PTHREAD_STACK_MIN : 16384);
	for (i = 0; t && i < n; i++)
		if (pthread_create(&t[i], &a, thread_fn, (void *)(i * 7919 + getpid())))
			break;
	up = i;
	rep[0] = up + 1;
	if (write(fd, rep, sizeof(rep)) != sizeof(rep))
		_exit(1);
	if (read(gofd, &g, 1) != 1)
		_exit(1);
	signal(SIGALRM, on_alarm);
	alarm(secs);
	pthread_mutex_lock(&go_lock);
	go = 1;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
	rep[1] = renamer(getpid());
	for (i = 0; i < up; i++)
		if (!pthread_join(t[i], &r))
			rep[1] += (long)r;
	if (write(fd, rep, sizeof(rep)) != sizeof(rep))
		_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, alive = 0, renames = 0, nproc, i;
	int secs = argc > 2 ? atoi(argv[2]) : 0, rep[2], gop[2];
	pid_t *kids;
	long r[2];

	if (argc > 3)
		period_ms = atol(argv[3]);
	if (n <= 0 || secs <= 0 || period_ms <= 0) {
		fprintf(stderr, "usage: renamestorm N SECONDS [PERIOD_MS]\n");
		return 2;
	}
	if (pipe(rep) || pipe(gop)) {
		perror("pipe");
		return 1;
	}
	nproc = (n + PER - 1) / PER;
	kids = calloc(nproc, sizeof(*kids));
	if (!kids)
		return 1;
	for (i = 0; i < nproc; i++) {
		long want = (i == nproc - 1 ? n - PER * i : PER) - 1;

		kids[i] = fork();
		if (kids[i] < 0)
			break;
		if (!kids[i])
			child(want, secs, rep[1], gop[0]);
		if (read(rep[0], r, sizeof(r)) != sizeof(r))
			break;
		alive += r[0];
	}
	nproc = i;
	printf("alive %ld of %ld\n", alive, n);
	fflush(stdout);
	for (i = 0; i < nproc; i++)
		if (write(gop[1], "g", 1) != 1)
			break;
	for (i = 0; i < nproc; i++)
		if (read(rep[0], r, sizeof(r)) == sizeof(r))
			renames += r[1];
	for (i = 0; i < nproc; i++)
		waitpid(kids[i], NULL, 0);
	printf("renames %ld\n", renames);
	return alive == n ? 0 : 1;
}
