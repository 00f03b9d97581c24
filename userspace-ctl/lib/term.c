// SPDX-License-Identifier: GPL-2.0
/* The terminal for "top": keys without Enter, then back as it was. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "sbridgectl.h"

static struct termios saved;
static int raw_on;

void sb_term_restore(void)
{
	if (raw_on) {
		tcsetattr(0, TCSAFLUSH, &saved);
		raw_on = 0;
	}
}

int sb_term_raw(void)
{
	struct termios t;

	if (!isatty(0) || tcgetattr(0, &saved))
		return -1;
	t = saved;
	/* no line editing, no echo; signals (Ctrl-C) still work */
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(0, TCSAFLUSH, &t))
		return -1;
	raw_on = 1;
	atexit(sb_term_restore);
	return 0;
}

int sb_term_key(int timeout_ms)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	unsigned char c;
	int r = poll(&p, 1, timeout_ms);

	if (r <= 0)
		return r < 0 && errno != EINTR ? -2 : -1;
	if (read(0, &c, 1) != 1)
		return -2;	/* end of input: quit */
	return c;
}

int sb_term_line(const char *prompt, char *buf, size_t len)
{
	size_t n = 0;
	int c;

	printf("\r\033[K%s", prompt);
	fflush(stdout);
	for (;;) {
		c = sb_term_key(-1);
		if (c == -2 || c == 27)		/* end of input, Escape */
			return -1;
		if (c == '\n' || c == '\r')
			break;
		if ((c == 127 || c == 8) && n) {
			n--;
			fputs("\b \b", stdout);
		} else if (c >= 0x20 && c != 127 && n + 1 < len) {
			buf[n++] = (char)c;
			putchar(c);
		}
		fflush(stdout);
	}
	buf[n] = '\0';
	return 0;
}

int sb_term_colour(void)
{
	const char *term = getenv("TERM");

	return isatty(1) && !getenv("NO_COLOR") && term && *term && strcmp(term, "dumb");
}
