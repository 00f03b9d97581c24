/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one array-grow step of sbridgectl. Inline in a header of its own so
 * that the rule parser has it too: the host tests link rules_parse.c
 * without util.c.
 */
#ifndef SBRIDGECTL_GROW_H
#define SBRIDGECTL_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * The array @v of *@cap elements of @size bytes, @n in use, with room for
 * one more: as it was if it has room, else doubled (@first elements the
 * first time) and *@cap updated. NULL if out of memory, @v then untouched
 * (the caller still owns and frees it).
 */
static inline void *sb_grow(void *v, size_t *cap, size_t n, size_t size,
			    size_t first)
{
	size_t nc;

	if (n < *cap)
		return v;
	nc = *cap ? *cap * 2 : first;
	if (nc <= *cap || nc > SIZE_MAX / size)
		return NULL;
	v = realloc(v, nc * size);
	if (v)
		*cap = nc;
	return v;
}

#endif
