// SPDX-License-Identifier: GPL-2.0
/* CPU-list parser, the syntax of taskset -c / cpuset.cpus / bitmap_parselist. */
#include <string.h>
#include <stdio.h>

#include "cpulist.h"

static int num(const char **p, unsigned int *v)
{
	unsigned long n = 0;

	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		n = n * 10 + (unsigned long)(*(*p)++ - '0');
		if (n >= SB_MAX_CPUS)
			return -2;
	}
	*v = (unsigned int)n;
	return 0;
}

int sb_cpulist_parse(const char *s, struct sb_cpuset *out, const char **why,
		  unsigned int *col)
{
	const char *p = s, *start;
	unsigned int a, b, stride, c;
	int r;

	memset(out, 0, sizeof(*out));
	if (!*s) {
		*why = "empty CPU list";
		*col = 1;
		return -1;
	}
	for (;;) {
		start = p;
		r = num(&p, &a);
		if (r)
			goto bad_num;
		b = a;
		stride = 1;
		if (*p == '-') {
			p++;
			start = p;
			r = num(&p, &b);
			if (r)
				goto bad_num;
			if (b < a) {
				*why = "range end below its start";
				goto bad;
			}
			if (*p == ':') {
				p++;
				start = p;
				r = num(&p, &stride);
				if (r)
					goto bad_num;
				if (!stride) {
					*why = "stride must be at least 1";
					goto bad;
				}
			}
		}
		for (c = a; c <= b; c += stride)
			out->bits[c / 64] |= 1ULL << (c % 64);
		if (!*p)
			return 0;
		if (*p != ',') {
			start = p;
			*why = "expected ',', '-' or ':'";
			goto bad;
		}
		p++;
	}
bad_num:
	*why = r == -2 ? "CPU number too large" : "CPU number expected";
bad:
	*col = (unsigned int)(start - s) + 1;
	return -1;
}

int sb_cpuset_last(const struct sb_cpuset *s)
{
	int i;

	for (i = SB_MAX_CPUS - 1; i >= 0; i--)
		if (sb_cpuset_has(s, (unsigned int)i))
			return i;
	return -1;
}

size_t sb_cpuset_to_le(const struct sb_cpuset *s, uint8_t *buf, size_t len)
{
	int last = sb_cpuset_last(s);
	size_t n = last < 0 ? 8 : ((size_t)last / 64 + 1) * 8, i;

	if (n > len)
		n = len;
	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(s->bits[i / 8] >> (8 * (i % 8)));
	return n;
}

void sb_cpulist_format(const struct sb_cpuset *s, char *buf, size_t len)
{
	size_t o = 0;
	unsigned int c = 0, e;

	buf[0] = '\0';
	while (c < SB_MAX_CPUS) {
		if (!sb_cpuset_has(s, c)) {
			c++;
			continue;
		}
		for (e = c; e + 1 < SB_MAX_CPUS && sb_cpuset_has(s, e + 1); e++)
			;
		if (e == c)
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%u",
					      o ? "," : "", c);
		else
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%u-%u",
					      o ? "," : "", c, e);
		if (o >= len) {
			buf[len - 1] = '\0';
			return;
		}
		c = e + 1;
	}
}
