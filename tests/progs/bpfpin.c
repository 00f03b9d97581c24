// SPDX-License-Identifier: GPL-2.0
/*
 * bpfpin PATH map TYPE KEY_SIZE VALUE_SIZE: create a BPF map (no BTF, one
 * entry) and pin it at PATH. bpfpin PATH prog: pin a two-instruction socket
 * filter there. Objects `sbridgectl hintmap` must refuse, where the guest
 * has no bpftool. Exit 0 pinned, 1 a bpf(2) failure (printed), 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

int main(int argc, char **argv)
{
	struct bpf_insn insn[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	if (argc == 6 && !strcmp(argv[2], "map")) {
		a.map_type = (unsigned int)atoi(argv[3]);
		a.key_size = (unsigned int)atoi(argv[4]);
		a.value_size = (unsigned int)atoi(argv[5]);
		a.max_entries = 1;
		fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
	} else if (argc == 3 && !strcmp(argv[2], "prog")) {
		a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
		a.insns = (unsigned long)insn;
		a.insn_cnt = 2;
		a.license = (unsigned long)"GPL";
		fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	} else {
		fprintf(stderr, "usage: bpfpin PATH map TYPE KEY VALUE | bpfpin PATH prog\n");
		return 2;
	}
	if (fd < 0) {
		fprintf(stderr, "bpfpin: creating: %s\n", strerror(errno));
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.pathname = (unsigned long)argv[1];
	a.bpf_fd = (unsigned int)fd;
	if (sys_bpf(BPF_OBJ_PIN, &a)) {
		fprintf(stderr, "bpfpin: pinning %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
