// SPDX-License-Identifier: GPL-2.0
/* asuser UID CMD [ARGS...]: run CMD as UID (gid == UID, no supplementary
 * groups). From root, setuid() to a non-zero uid clears every capability,
 * so CMD runs unprivileged. Debian's busybox setpriv lacks --reuid. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long uid;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser UID CMD [ARGS...]\n");
		return 2;
	}
	errno = 0;
	uid = strtol(argv[1], &end, 10);
	if (errno || *end || uid <= 0 || uid > 65534) {
		fprintf(stderr, "asuser: bad uid '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		fprintf(stderr, "asuser: dropping to uid %ld: %s\n", uid, strerror(errno));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "asuser: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
