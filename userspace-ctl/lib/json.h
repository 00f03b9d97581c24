/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON writer of every --json output (json.c). */
#ifndef SBRIDGECTL_JSON_H
#define SBRIDGECTL_JSON_H

#include <stdint.h>

/* Minimal JSON writer to stdout; a NULL key inside arrays. */
void sb_js_obj_begin(const char *key);
void sb_js_obj_end(void);
void sb_js_arr_begin(const char *key);
void sb_js_arr_end(void);
void sb_js_str(const char *key, const char *v);
void sb_js_uint(const char *key, uint64_t v);
void sb_js_fp(const char *key, uint32_t v);
void sb_js_bool(const char *key, int v);
void sb_js_null(const char *key);
/*
 * One error of an input file, the one schema every --json error list
 * uses: {"file":F,"line":N,"column":N,"message":M}, @file NULL, @line or
 * @col 0 as null where they do not apply.
 */
void sb_json_error(const char *file, unsigned int line, unsigned int col,
		   const char *msg);

#endif
