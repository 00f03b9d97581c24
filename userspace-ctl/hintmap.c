// SPDX-License-Identifier: GPL-2.0
/*
 * hintmap create|write|dump PATH: sbridge's decision-layer hints in the
 * task-hint map of scx_layered (--task-hint-map), a BPF task-storage map
 * pinned on a BPF filesystem, through the raw bpf(2) syscall: sbridgectl
 * stays static and free of libbpf.
 *
 * The layout is scx_layered's (scheds/rust/scx_layered/src/bpf/main.bpf.c,
 * scx_layered_task_hint_map): BPF_MAP_TYPE_TASK_STORAGE, BPF_F_NO_PREALLOC,
 * an int key (from user space a pidfd of the task) and a 32-byte value
 * struct task_hint { u64 hint; u64 __reserved[3]; }, hints 0 to 1024.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "sbridgectl.h"
#include "tasks.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC	0xcafe4a11
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL	/* 6.9: a pidfd of a thread, not only a leader */
#endif

#define HM_KEY_SIZE	4	/* int: a pidfd */
#define HM_VALUE_SIZE	32	/* struct task_hint */
#define HM_HINT_MAX	1024	/* scx_layered ignores larger hints */

struct hm_value {
	uint64_t hint;
	uint64_t reserved[3];
};

static const char hintmap_help[] =
"usage: sbridgectl hintmap write [--base=N] [--comm=NAME] [--interval=SECONDS]\n"
"                                [--keep] PATH\n"
"       sbridgectl hintmap dump [--json] PATH\n"
"       sbridgectl hintmap create PATH\n"
"\n"
"Hand sbridge's hints to scx_layered, which matches tasks on a hint\n"
"(HintEquals) it reads from its task-hint map, pinned where its option\n"
"--task-hint-map=PATH says. See sched-ext.md.\n"
"\n"
"write   set each tracked task's hint in the map to BASE plus the decision\n"
"        layer's hint: BASE+0 no decision, BASE+1 fast, BASE+2 slow (BASE\n"
"        0 to 1022, default 0). Once, or with --interval every SECONDS\n"
"        (0.1 to 3600) until SIGINT or SIGTERM, removing the entries of\n"
"        tasks no longer tracked or matching, and at the end all it wrote\n"
"        unless --keep. --comm: only tasks of that name. A thread that is\n"
"        not a process's first needs Linux 6.9 (pidfds of threads);\n"
"        before, it is counted as skipped.\n"
"dump    the tasks with an entry in the map: thread id, value, name.\n"
"create  create and pin an empty map of scx_layered's layout at PATH (on\n"
"        a bpffs), for a test or to create it before scx_layered, which\n"
"        reuses a pinned map of the same layout.\n"
"\n"
"PATH must be a task-storage map with a 4-byte key and a 32-byte value;\n"
"anything else is refused (exit 2) before anything is written. Needs\n"
"CAP_SYS_ADMIN or CAP_BPF (the bpf(2) system call).\n";

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* Exit code for a failed bpf(2) or open: 4 for permission, 1 otherwise. */
static int hm_fail(const char *path, const char *what, int err)
{
	if (err == EPERM || err == EACCES) {
		sb_err("%s: %s: %s (needs CAP_SYS_ADMIN or CAP_BPF)", path, what, strerror(err));
		return SB_EXIT_PERM;
	}
	sb_err("%s: %s: %s", path, what, strerror(err));
	return SB_EXIT_ERR;
}

/* 0 if the directory holding @path is on a BPF filesystem, else an exit code. */
static int hm_on_bpffs(const char *path, int exists)
{
	char dir[4096], *slash;
	struct statfs fs;

	if (strlen(path) >= sizeof(dir)) {
		sb_err("%s: path too long", path);
		return SB_EXIT_USAGE;
	}
	strcpy(dir, path);
	if (!exists) {
		slash = strrchr(dir, '/');
		if (!slash)
			strcpy(dir, ".");
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
	if (statfs(dir, &fs)) {
		sb_err("%s: %s", dir, strerror(errno));
		return SB_EXIT_USAGE;
	}
	if ((unsigned long)fs.f_type != BPF_FS_MAGIC) {
		sb_err("%s: not on a BPF filesystem (mount -t bpf bpf /sys/fs/bpf)", path);
		return SB_EXIT_USAGE;
	}
	return 0;
}

/*
 * The map pinned at @path, checked to be of scx_layered's layout, in *@fd:
 * 0 or an exit code after saying why (2 for a path that is not such a map).
 */
static int hm_open(const char *path, int rdonly, int *fd)
{
	struct bpf_map_info info;
	union bpf_attr attr;
	char link[64], fdp[64];
	struct stat st;
	ssize_t n;
	int ret;

	if (stat(path, &st)) {
		if (errno == EACCES)
			return hm_fail(path, "cannot reach it", errno);
		sb_err("%s: %s", path, strerror(errno));
		return SB_EXIT_USAGE;
	}
	if (!S_ISREG(st.st_mode)) {
		/* what bpffs pins is a regular file; a directory is EPERM there */
		sb_err("%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory" :
		       "not a pinned BPF object");
		return SB_EXIT_USAGE;
	}
	ret = hm_on_bpffs(path, 1);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(uintptr_t)path;
	attr.file_flags = rdonly ? BPF_F_RDONLY : 0;
	*fd = (int)sys_bpf(BPF_OBJ_GET, &attr);
	if (*fd < 0)
		return hm_fail(path, "cannot open the pinned object", errno);
	/* BPF_OBJ_GET opens programs and links too: the fd's file says which */
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", *fd);
	n = readlink(fdp, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	if (n > 0 && strcmp(link, "anon_inode:bpf-map")) {
		sb_err("%s: not a BPF map (%s)", path, link);
		goto bad;
	}
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)*fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		ret = hm_fail(path, "cannot read the map's description", errno);
		close(*fd);
		return ret;
	}
	if (info.type != BPF_MAP_TYPE_TASK_STORAGE || info.key_size != HM_KEY_SIZE ||
	    info.value_size != HM_VALUE_SIZE) {
		sb_err("%s: a map of type %u with a %u-byte key and a %u-byte value; "
		       "scx_layered's task-hint map is a task-storage map (type %u) with a "
		       "%u-byte key and a %u-byte value", path, info.type,
		       info.key_size, info.value_size, BPF_MAP_TYPE_TASK_STORAGE,
		       HM_KEY_SIZE, HM_VALUE_SIZE);
		goto bad;
	}
	return 0;
bad:
	close(*fd);
	*fd = -1;
	return SB_EXIT_USAGE;
}

/* --- create ------------------------------------------------------------- */

/*
 * The BTF a task-storage map must have (the kernel enforces it): key type 1,
 * a 32-bit int; value type 4, struct task_hint as scx_layered declares it.
 */
#define HM_BTF_INFO(kind, vlen)	((uint32_t)(kind) << 24 | (uint32_t)(vlen))
#define HM_BTF_INT(enc, bits)	((uint32_t)(enc) << 24 | (uint32_t)(bits))

static const char hm_btf_str[] = "\0int\0unsigned long long\0task_hint\0hint\0__reserved";
enum { S_INT = 1, S_U64 = 5, S_TASK_HINT = 24, S_HINT = 34, S_RESERVED = 39 };

static const uint32_t hm_btf_types[] = {
	/* [1] int */
	S_INT, HM_BTF_INFO(BTF_KIND_INT, 0), 4, HM_BTF_INT(BTF_INT_SIGNED, 32),
	/* [2] unsigned long long */
	S_U64, HM_BTF_INFO(BTF_KIND_INT, 0), 8, HM_BTF_INT(0, 64),
	/* [3] unsigned long long[3], indexed by int */
	0, HM_BTF_INFO(BTF_KIND_ARRAY, 0), 0, 2, 1, 3,
	/* [4] struct task_hint { hint at bit 0; __reserved at bit 64 } */
	S_TASK_HINT, HM_BTF_INFO(BTF_KIND_STRUCT, 2), HM_VALUE_SIZE,
	S_HINT, 2, 0,
	S_RESERVED, 3, 64,
};

static int hm_create(const char *path)
{
	unsigned char btf[sizeof(struct btf_header) + sizeof(hm_btf_types) + sizeof(hm_btf_str)];
	struct btf_header *h = (struct btf_header *)btf;
	int btf_fd, map_fd, ret;
	union bpf_attr attr;
	struct stat st;

	if (!lstat(path, &st)) {
		sb_err("%s: exists", path);
		return SB_EXIT_USAGE;
	}
	ret = hm_on_bpffs(path, 0);
	if (ret)
		return ret;
	memset(btf, 0, sizeof(btf));
	h->magic = BTF_MAGIC;
	h->version = BTF_VERSION;
	h->hdr_len = sizeof(*h);
	h->type_off = 0;
	h->type_len = sizeof(hm_btf_types);
	h->str_off = sizeof(hm_btf_types);
	h->str_len = sizeof(hm_btf_str);
	memcpy(btf + sizeof(*h), hm_btf_types, sizeof(hm_btf_types));
	memcpy(btf + sizeof(*h) + sizeof(hm_btf_types), hm_btf_str, sizeof(hm_btf_str));

	memset(&attr, 0, sizeof(attr));
	attr.btf = (uint64_t)(uintptr_t)btf;
	attr.btf_size = sizeof(btf);
	btf_fd = (int)sys_bpf(BPF_BTF_LOAD, &attr);
	if (btf_fd < 0)
		return hm_fail(path, "loading the map's BTF", errno);

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_TASK_STORAGE;
	attr.key_size = HM_KEY_SIZE;
	attr.value_size = HM_VALUE_SIZE;
	attr.max_entries = 0;
	attr.map_flags = BPF_F_NO_PREALLOC;
	strncpy(attr.map_name, "task_hint_map", sizeof(attr.map_name) - 1);
	attr.btf_fd = (uint32_t)btf_fd;
	attr.btf_key_type_id = 1;
	attr.btf_value_type_id = 4;
	map_fd = (int)sys_bpf(BPF_MAP_CREATE, &attr);
	if (map_fd < 0) {
		ret = hm_fail(path, "creating the map", errno);
		close(btf_fd);
		return ret;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(uintptr_t)path;
	attr.bpf_fd = (uint32_t)map_fd;
	ret = sys_bpf(BPF_OBJ_PIN, &attr) ? hm_fail(path, "pinning the map", errno) : 0;
	close(map_fd);
	close(btf_fd);
	if (!ret && !sb_json)
		printf("%s: created an empty task-hint map\n", path);
	return ret;
}

/* --- tasks by pidfd ----------------------------------------------------- */

/*
 * A pidfd of thread @tid: a process's first thread takes no flag, the
 * others PIDFD_THREAD (6.9; without it they get EINVAL, from 6.15 ENOENT).
 * -errno: -ESRCH gone, -EOPNOTSUPP a thread this kernel cannot name (it
 * refuses the flag).
 */
static int hm_pidfd(uint32_t tid)
{
	long fd = syscall(SYS_pidfd_open, (pid_t)tid, 0);

	if (fd >= 0)
		return (int)fd;
	if (errno != EINVAL && errno != ENOENT)
		return -errno;
	fd = syscall(SYS_pidfd_open, (pid_t)tid, PIDFD_THREAD);
	if (fd >= 0)
		return (int)fd;
	if (errno == EINVAL)
		return -EOPNOTSUPP;
	return errno == ENOENT ? -ESRCH : -errno;
}

/* bpf(2) @cmd on @tid's entry: 0 or -errno (-ESRCH: no such task) */
static int hm_elem(int map_fd, int cmd, uint32_t tid, struct hm_value *v)
{
	union bpf_attr attr;
	int pfd = hm_pidfd(tid), ret;

	if (pfd < 0)
		return pfd;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)map_fd;
	attr.key = (uint64_t)(uintptr_t)&pfd;
	attr.value = (uint64_t)(uintptr_t)v;
	attr.flags = cmd == BPF_MAP_UPDATE_ELEM ? BPF_ANY : 0;
	ret = sys_bpf(cmd, &attr) ? -errno : 0;
	close(pfd);
	return ret;
}

/* --- dump --------------------------------------------------------------- */

/* The name of thread @tid of process @pid, "?" if it is gone. */
static void hm_comm(const char *pid, unsigned long long tid, char *comm, size_t len)
{
	char path[96];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%.16s/task/%llu/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, len - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(comm, len, "?");
		return;
	}
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

static int hm_dump(const char *path)
{
	unsigned long long n = 0, hidden = 0;
	struct hm_value v;
	struct dirent *pe, *te;
	DIR *pd, *td;
	char dir[64], comm[64];
	int fd, ret;

	ret = hm_open(path, 1, &fd);
	if (ret)
		return ret;
	pd = opendir("/proc");
	if (!pd) {
		close(fd);
		return hm_fail("/proc", "cannot list", errno);
	}
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_arr_begin("entries");
	} else {
		printf("%8s %6s  %s\n", "TID", "HINT", "COMM");
	}
	while ((pe = readdir(pd))) {
		if (pe->d_name[0] < '1' || pe->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/%.16s/task", pe->d_name);
		td = opendir(dir);
		if (!td)
			continue;	/* gone meanwhile */
		while ((te = readdir(td))) {
			unsigned long long tid;
			int r;

			if (sb_parse_uint(te->d_name, 0x7fffffff, &tid) || !tid)
				continue;
			memset(&v, 0, sizeof(v));
			r = hm_elem(fd, BPF_MAP_LOOKUP_ELEM, (uint32_t)tid, &v);
			if (r == -EOPNOTSUPP) {
				hidden++;
				continue;
			}
			if (r == -ENOENT || r == -ESRCH)
				continue;
			if (r) {
				ret = hm_fail(path, "reading an entry", -r);
				break;
			}
			hm_comm(pe->d_name, tid, comm, sizeof(comm));
			n++;
			if (sb_json) {
				sb_js_obj_begin(NULL);
				sb_js_uint("tid", tid);
				sb_js_uint("hint", v.hint);
				sb_js_str("comm", comm);
				sb_js_obj_end();
			} else {
				printf("%8llu %6llu  %s\n", tid, (unsigned long long)v.hint, comm);
			}
		}
		closedir(td);
		if (ret)
			break;
	}
	closedir(pd);
	close(fd);
	if (sb_json) {
		sb_js_arr_end();
		sb_js_uint("count", n);
		sb_js_uint("threads_unreadable", hidden);
		sb_js_obj_end();
	} else if (!ret) {
		printf("%llu entr%s", n, n == 1 ? "y" : "ies");
		if (hidden)
			printf("; %llu threads not readable (pidfds of threads need Linux 6.9)",
			       hidden);
		printf("\n");
	}
	return ret;
}

/* --- write -------------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct hm_pass {
	unsigned long long wrote, removed, gone, skipped;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Removes the entries of @old (sorted) that @cur (sorted) does not hold:
 * a task gone took its entry with it (the kernel frees a task's storage
 * with the task, once reaped), one still there loses it. 0 or -errno.
 */
static int hm_remove(int fd, const uint32_t *old, size_t nold, const uint32_t *cur,
		     size_t ncur, struct hm_pass *p)
{
	size_t i, j = 0;
	int r;

	for (i = 0; i < nold; i++) {
		while (j < ncur && cur[j] < old[i])
			j++;
		if (j < ncur && cur[j] == old[i])
			continue;
		r = hm_elem(fd, BPF_MAP_DELETE_ELEM, old[i], NULL);
		if (!r)
			p->removed++;
		else if (r == -ESRCH)
			p->gone++;
		else if (r != -ENOENT)
			return r;
	}
	return 0;
}

static void hm_report(const struct hm_pass *p, unsigned long long pass, const char *what)
{
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_uint("pass", pass);
		if (what)
			sb_js_str("event", what);
		sb_js_uint("wrote", p->wrote);
		sb_js_uint("removed", p->removed);
		sb_js_uint("gone", p->gone);
		sb_js_uint("skipped", p->skipped);
		sb_js_obj_end();
	} else {
		printf("%s%s%s%llu: wrote %llu, removed %llu, gone %llu, skipped %llu\n",
		       what ? what : "", what ? " " : "", what ? "after pass " : "pass ",
		       pass, p->wrote, p->removed, p->gone, p->skipped);
	}
	fflush(stdout);
}

/* What a writer carries from pass to pass. */
struct hm_writer {
	int fd;
	uint64_t base;
	const char *comm;
	struct tlist l;			/* the tracked tasks of this pass */
	uint32_t *cur, *old;		/* tids written this pass, the last (sorted) */
	size_t ncur, nold, cap, oldcap;
};

/* One pass over @w->l: write, then remove the stale. 0 or -errno. */
static int hm_pass_once(struct hm_writer *w, struct hm_pass *p)
{
	uint32_t *tmp;
	size_t i, c;
	int r = 0;

	memset(p, 0, sizeof(*p));
	w->ncur = 0;
	for (i = 0; i < w->l.n; i++) {
		const struct task *t = &w->l.v[i];
		struct hm_value v = { w->base + t->hint, { 0, 0, 0 } };

		if ((w->comm && strcmp(t->comm, w->comm)) || t->hint > SBRIDGE_HINT_SLOW)
			continue;
		r = hm_elem(w->fd, BPF_MAP_UPDATE_ELEM, t->pid, &v);
		if (r == -ESRCH || r == -ENOENT)
			continue;	/* exited since the list */
		if (r == -EOPNOTSUPP) {
			p->skipped++;	/* a thread, before 6.9 */
			continue;
		}
		if (r)
			return r;
		tmp = sb_grow(w->cur, &w->cap, w->ncur, sizeof(*w->cur), 256);
		if (!tmp)
			return -ENOMEM;
		w->cur = tmp;
		w->cur[w->ncur++] = t->pid;
		p->wrote++;
	}
	if (w->ncur)
		qsort(w->cur, w->ncur, sizeof(*w->cur), cmp_u32);
	r = hm_remove(w->fd, w->old, w->nold, w->cur, w->ncur, p);
	if (r)
		return r;
	/* this pass's tids are the next one's old */
	tmp = w->old;
	w->old = w->cur;
	w->cur = tmp;
	w->nold = w->ncur;
	w->ncur = 0;
	c = w->oldcap;
	w->oldcap = w->cap;
	w->cap = c;
	return 0;
}

/* Sleeps @ms unless a signal comes first. */
static void hm_nap(unsigned long long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int hm_write(const char *path, unsigned long long base, const char *comm,
		    unsigned long long interval_ms, int keep)
{
	struct hm_writer w = { .fd = -1, .base = base, .comm = comm };
	unsigned long long pass = 0, last_wrote = ~0ULL;
	struct hm_pass p = { 0 };
	struct sigaction sa;
	struct sb_nl nl;
	int ret, r;

	ret = hm_open(path, 0, &w.fd);
	if (ret)
		return ret;
	ret = sb_connect(&nl);
	if (ret) {
		close(w.fd);
		return ret;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		ret = tasks_fetch(&nl, &w.l);
		if (ret) {
			/* a signal cutting the request short is the end, no error */
			ret = stop ? 0 : sb_fail(&nl, ret, "reading tasks");
			break;
		}
		r = hm_pass_once(&w, &p);
		if (r) {
			ret = hm_fail(path, "writing an entry", -r);
			break;
		}
		pass++;
		/* a line for the first pass and whenever the picture changed */
		if (!interval_ms || pass == 1 || p.wrote != last_wrote || p.removed ||
		    p.gone || p.skipped)
			hm_report(&p, pass, NULL);
		last_wrote = p.wrote;
		if (!interval_ms)
			break;
		hm_nap(interval_ms);
	}
	/*
	 * A loop that ends (signal or error) takes its hints with it: the
	 * last pass's, and those of a pass an error cut short.
	 */
	if (interval_ms && !keep && (w.nold || w.ncur)) {
		memset(&p, 0, sizeof(p));
		if (w.ncur)
			qsort(w.cur, w.ncur, sizeof(*w.cur), cmp_u32);
		r = hm_remove(w.fd, w.old, w.nold, w.cur, w.ncur, &p);
		if (!r)
			r = hm_remove(w.fd, w.cur, w.ncur, NULL, 0, &p);
		if (r && !ret)
			ret = hm_fail(path, "removing an entry", -r);
		else if (!r)
			hm_report(&p, pass, "cleared");
	}
	free(w.cur);
	free(w.old);
	free(w.l.v);
	sb_nl_close(&nl);
	close(w.fd);
	return ret;
}

int cmd_hintmap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "comm", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, 'i' },
		{ "keep", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long base = 0, interval_ms = 0;
	const char *comm = NULL, *sub;
	int c, keep = 0, wopt = 0;

	while ((c = sb_getopt(argc, argv, "", opts, hintmap_help)) != -1) {
		switch (c) {
		case 'b':
			if (sb_parse_uint(optarg, HM_HINT_MAX - SBRIDGE_HINT_SLOW, &base))
				return sb_usage(hintmap_help, "bad base '%s' (0 to %d)", optarg,
						HM_HINT_MAX - SBRIDGE_HINT_SLOW);
			break;
		case 'c':
			if (!*optarg || strlen(optarg) >= SBRIDGE_KEY_LEN)
				return sb_usage(hintmap_help, "bad name '%s' (1 to %d characters)",
						optarg, SBRIDGE_KEY_LEN - 1);
			comm = optarg;
			break;
		case 'i':
			if (sb_parse_seconds(optarg, 3600000, &interval_ms) || interval_ms < 100)
				return sb_usage(hintmap_help,
						"bad interval '%s' (0.1 to 3600 seconds)", optarg);
			break;
		case 'k':
			keep = 1;
			break;
		default:
			return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
		}
		wopt = 1;
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return sb_usage(hintmap_help, "missing action (write, dump or create)");
	sub = argv[0];
	if (strcmp(sub, "write") && strcmp(sub, "dump") && strcmp(sub, "create"))
		return sb_usage(hintmap_help, "unknown action '%s'", sub);
	if (wopt && strcmp(sub, "write"))
		return sb_usage(hintmap_help,
				"--base, --comm, --interval and --keep are for hintmap write");
	if (keep && !interval_ms)
		return sb_usage(hintmap_help, "--keep goes with --interval");
	if (argc != 2)
		return sb_usage(hintmap_help, "hintmap %s takes exactly one PATH", sub);
	if (!strcmp(sub, "create"))
		return hm_create(argv[1]);
	if (!strcmp(sub, "dump"))
		return hm_dump(argv[1]);
	return hm_write(argv[1], base, comm, interval_ms, keep);
}
