// SPDX-License-Identifier: GPL-2.0
/* mutate FILE SEED: print FILE with 1 to 4 random mutations, the same ones
 * for the same SEED: bit flips, special bytes, spans deleted or doubled,
 * hostile tokens (huge and negative numbers, long words, separators),
 * truncation, two lines swapped. For fuzzing sbridgectl's file parsers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP (64 * 1024)

static uint64_t s;

static uint32_t rnd(uint32_t n)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return n ? (uint32_t)(s % n) : 0;
}

static const char bytes[] = { '\0', '\n', '=', ' ', '#', '\\', '"', (char)0xff,
			      '-', '9', ',', '\t', '/', '.', '*', '\r' };
static const char *tokens[] = {
	"99999999999999999999", "-1", "4294967296", "18446744073709551616",
	"nan", "inf", "0x", "1e9", "=", "==", "%s%n", "\xff\xfe", "key=",
	"type=9", "phase=99", "factor=0", "factor=-0.5", "class=", "comm=",
	"exe=", "uid=-1", "cgroup=/", " ", "\n\n", "#", "0.", ".5", "1.99999999",
};

static size_t insert(char *b, size_t n, size_t at, const char *what, size_t len)
{
	if (n + len > CAP)
		return n;
	memmove(b + at + len, b + at, n - at);
	memcpy(b + at, what, len);
	return n + len;
}

int main(int argc, char **argv)
{
	static char b[CAP], tmp[CAP];
	size_t n, at, len;
	FILE *f;
	int k;

	if (argc != 3) {
		fprintf(stderr, "usage: mutate FILE SEED\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	n = fread(b, 1, CAP / 2, f);
	fclose(f);
	s = strtoull(argv[2], NULL, 10) * 2654435761u + 88172645463325252ull;
	for (k = 1 + rnd(4); k > 0 && n; k--) {
		at = rnd(n);
		switch (rnd(7)) {
		case 0:
			b[at] ^= 1 << rnd(8);
			break;
		case 1:
			b[at] = bytes[rnd(sizeof(bytes))];
			break;
		case 2:
			len = 1 + rnd(16);
			if (at + len > n)
				len = n - at;
			memmove(b + at, b + at + len, n - at - len);
			n -= len;
			break;
		case 3:
			len = 1 + rnd(64);
			if (at + len > n)
				len = n - at;
			memcpy(tmp, b + at, len);
			n = insert(b, n, rnd(n + 1), tmp, len);
			break;
		case 4: {
			const char *t = tokens[rnd(sizeof(tokens) / sizeof(*tokens))];
			char longw[301];

			if (!rnd(6)) {
				memset(longw, 'A', 300);
				longw[300] = 0;
				t = longw;
			}
			n = insert(b, n, at, t, strlen(t));
			break;
		}
		case 5:
			n = at;
			break;
		default: {
			/* swap the line holding @at with the next one */
			size_t a0 = at, a1, b1;

			while (a0 && b[a0 - 1] != '\n')
				a0--;
			for (a1 = at; a1 < n && b[a1] != '\n'; a1++)
				;
			if (a1 + 1 >= n)
				break;
			for (b1 = a1 + 1; b1 < n && b[b1] != '\n'; b1++)
				;
			len = b1 - (a1 + 1);
			memcpy(tmp, b + a1 + 1, len);
			tmp[len] = '\n';
			memcpy(tmp + len + 1, b + a0, a1 - a0);
			memcpy(b + a0, tmp, b1 - a0);
			break;
		}
		}
	}
	fwrite(b, 1, n, stdout);
	return 0;
}
