// SPDX-License-Identifier: GPL-2.0
/* ptyrun SCRIPT CMD [ARGS...]: run CMD on a new pseudo-terminal (120x40,
 * TERM=xterm) and type SCRIPT into it: a list of "SECONDS:TEXT" steps,
 * separated by '|', where TEXT may hold \n and \e. Copies everything CMD
 * writes to standard output, then prints "@@ptyrun exit N" and whether
 * the terminal was left in line mode with echo ("@@ptyrun termios ok" or
 * "... changed"). Exits with CMD's status; 124 if CMD outlives the script
 * by 10 s (it is killed). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* copies what the child wrote for up to @secs seconds */
static void pump(int m, double secs)
{
	double end = now() + secs;
	char buf[4096];

	for (;;) {
		double left = end - now();
		struct pollfd p = { .fd = m, .events = POLLIN };
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			return;
		n = read(m, buf, sizeof(buf));
		if (n <= 0)
			return;
		fwrite(buf, 1, (size_t)n, stdout);
	}
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };
	char *script, *step, *save = NULL;
	struct termios t;
	int m, s, st = 0, done = 0;
	double t0;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: ptyrun SCRIPT CMD [ARGS...]\n");
		return 2;
	}
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m)) {
		perror("posix_openpt");
		return 1;
	}
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0) {
		perror("ptsname");
		return 1;
	}
	ioctl(s, TIOCSWINSZ, &ws);
	pid = fork();
	if (!pid) {
		setsid();
		ioctl(s, TIOCSCTTY, 0);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		close(m);
		setenv("TERM", "xterm", 1);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	script = strdup(argv[1]);
	for (step = strtok_r(script, "|", &save); step && !done;
	     step = strtok_r(NULL, "|", &save)) {
		char *text = strchr(step, ':'), out[256];
		size_t n = 0;

		if (!text)
			continue;
		*text++ = '\0';
		pump(m, atof(step));
		for (; *text && n < sizeof(out); text++) {
			if (text[0] == '\\' && text[1] == 'n')
				out[n++] = '\n', text++;
			else if (text[0] == '\\' && text[1] == 'e')
				out[n++] = 27, text++;
			else
				out[n++] = *text;
		}
		if (write(m, out, n) != (ssize_t)n)
			done = 1;
		done |= waitpid(pid, &st, WNOHANG) == pid;
	}
	/* let it finish: 10 s, then it is killed */
	t0 = now();
	while (!done && now() - t0 < 10) {
		pump(m, 0.2);
		done = waitpid(pid, &st, WNOHANG) == pid;
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		pump(m, 0.2);
		printf("\n@@ptyrun killed\n");
		return 124;
	}
	pump(m, 0.2);
	tcgetattr(s, &t);
	printf("\n@@ptyrun exit %d\n@@ptyrun termios %s\n",
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
	       (t.c_lflag & (ICANON | ECHO)) == (ICANON | ECHO) ? "ok" : "changed");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
