// SPDX-License-Identifier: GPL-2.0
/*
 * renamer [-t THREAD_NAME] NAME SECONDS: sleep for SECONDS; each SIGUSR1
 * renames the main thread to NAME with prctl(PR_SET_NAME), as browsers
 * name their content processes after exec ("Web Content"). With -t a
 * second thread names itself THREAD_NAME at start and sleeps as well.
 * Uses no CPU while it waits. Exit 2 on bad usage.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static const char *thread_name;

static void *worker(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_NAME, thread_name, 0, 0, 0))
		perror("renamer: prctl in thread");
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec end, now, left;
	const char *name;
	pthread_t th;
	sigset_t set;
	double secs;
	int argi = 1;

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		thread_name = argv[2];
		argi = 3;
	}
	if (argc - argi != 2 || (secs = atof(argv[argi + 1])) <= 0) {
		fprintf(stderr, "usage: renamer [-t THREAD_NAME] NAME SECONDS\n");
		return 2;
	}
	name = argv[argi];
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* Blocked before the thread starts, so only sigtimedwait() takes it. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (thread_name && pthread_create(&th, NULL, worker, NULL)) {
		fprintf(stderr, "renamer: cannot start a thread\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec >= end.tv_sec)
			break;
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = 0;
		if (sigtimedwait(&set, NULL, &left) == SIGUSR1) {
			if (prctl(PR_SET_NAME, name, 0, 0, 0))
				perror("renamer: prctl");
		} else if (errno != EAGAIN && errno != EINTR) {
			perror("renamer: sigtimedwait");
			return 1;
		}
	}
	return 0;
}
