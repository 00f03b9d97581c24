// SPDX-License-Identifier: GPL-2.0
/*
 * fcap FILE: give FILE a file capability, CAP_NET_BIND_SERVICE permitted
 * (not effective), as `setcap cap_net_bind_service=p FILE` would: a user
 * who runs it then holds a capability his shell does not. The guests have
 * no libcap tools. Exit 3 where the file system keeps no security
 * attributes (ENOTSUP: the debug kernels have no tmpfs xattrs).
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	struct vfs_cap_data d;

	if (argc != 2) {
		fprintf(stderr, "usage: fcap FILE\n");
		return 2;
	}
	memset(&d, 0, sizeof(d));
	d.magic_etc = VFS_CAP_REVISION_2;
	d.data[0].permitted = 1u << CAP_NET_BIND_SERVICE;
	if (setxattr(argv[1], "security.capability", &d, XATTR_CAPS_SZ_2, 0)) {
		perror(argv[1]);
		return errno == ENOTSUP ? 3 : 1;
	}
	return 0;
}
