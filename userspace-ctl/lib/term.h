/* SPDX-License-Identifier: GPL-2.0 */
/* The terminal for `top` (term.c). */
#ifndef SBRIDGECTL_TERM_H
#define SBRIDGECTL_TERM_H

#include <stddef.h>

/* term.c: raw keys for "top". sb_term_raw() returns 0 if stdin is a
 * terminal now in raw mode (restored at exit and by sb_term_restore());
 * sb_term_key() waits up to @timeout_ms (-1: forever) and returns a byte,
 * -1 on timeout, -2 at end of input; sb_term_line() reads a line after
 * @prompt (0, or -1 if Escape or end of input); sb_term_colour() says if
 * stdout is a terminal that takes colour (NO_COLOR and TERM=dumb say no). */
int sb_term_raw(void);
void sb_term_restore(void);
int sb_term_key(int timeout_ms);
int sb_term_line(const char *prompt, char *buf, size_t len);
int sb_term_colour(void);

#endif
