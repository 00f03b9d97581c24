// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing, messages and exit codes shared by every command, and
 * the connection to the module.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "rules_parse.h"
#include "sbridgectl.h"

int sb_json;
const char *sb_prog = "sbridgectl";

/*
 * "sbridgectl: [warning: ]message\n" on stderr, after whatever stdout
 * holds. Messages quote file contents, paths and names a user chose:
 * control bytes and invalid UTF-8 come out as \xNN, never raw to a
 * terminal.
 */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char text[4096], shown[4 * sizeof(text)];

	vsnprintf(text, sizeof(text), fmt, ap);
	sb_rp_escape(text, shown, sizeof(shown));
	fflush(stdout);
	fprintf(stderr, "%s: %s%s\n", sb_prog, prefix, shown);
}

void sb_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void sb_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

static void usage_line(const char *help)
{
	const char *end = strstr(help, "\n\n");

	fprintf(stderr, "%.*s\n", end ? (int)(end - help) : (int)strlen(help), help);
}

int sb_usage(const char *help, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	if (help)
		usage_line(help);
	return SB_EXIT_USAGE;
}

int sb_getopt(int argc, char **argv, const char *shortopts,
	      const struct option *extra, const char *help)
{
	static struct option all[32];
	static char sopts[64];
	int n = 0, c, idx = -1;

	while (extra && extra[n].name && n < 29) {
		all[n] = extra[n];
		n++;
	}
	all[n++] = (struct option){ "json", no_argument, NULL, 'j' };
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	all[n] = (struct option){ NULL, 0, NULL, 0 };
	snprintf(sopts, sizeof(sopts), ":%sjh", shortopts ? shortopts : "");
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, sopts, all, &idx);
		if (c == 'j') {
			sb_json = 1;
			continue;
		}
		if (c == 'h') {
			fputs(help, stdout);
			return 'h';
		}
		if (c == ':') {
			sb_usage(help, "option '%s' needs a value", argv[optind - 1]);
			return '?';
		}
		if (c == '?') {
			/* "set cpu-factor 1-3 -1": a value, not an option */
			if (optopt >= '0' && optopt <= '9')
				sb_usage(help, "'-%c...' is a negative number: no value here is below 0",
					 optopt);
			else if (optopt)
				sb_usage(help, "unknown option '-%c'", optopt);
			else
				sb_usage(help, "unknown option '%s'", argv[optind - 1]);
			return '?';
		}
		return c;
	}
}

int sb_parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned long long d = (unsigned long long)(*s - '0');

		if (d > max || v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int sb_parse_seconds(const char *s, unsigned long long max_ms, unsigned long long *ms)
{
	unsigned long long whole, frac = 0;
	const char *dot = strchr(s, '.');
	char ip[24];
	size_t n = dot ? (size_t)(dot - s) : strlen(s), i;

	if (n >= sizeof(ip))
		return -1;
	memcpy(ip, s, n);
	ip[n] = '\0';
	if (sb_parse_uint(ip, max_ms / 1000, &whole))
		return -1;
	if (dot) {
		/* 1 to 3 decimals: a millisecond is as fine as poll() waits */
		for (i = 1; i <= 3 && dot[i] >= '0' && dot[i] <= '9'; i++)
			frac = frac * 10 + (unsigned long long)(dot[i] - '0');
		if (i == 1 || dot[i])
			return -1;
		for (; i <= 3; i++)
			frac *= 10;
	}
	if (whole * 1000 + frac > max_ms)
		return -1;
	*ms = whole * 1000 + frac;
	return 0;
}

int sb_module_installed(void)
{
	char path[512], line[1024];
	struct utsname u;
	int found = 0;
	FILE *f;

	if (uname(&u))
		return -1;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* "kernel/.../sbridge_core.ko[.xz]: deps": the name ends the path */
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *name;

		if (!colon)
			continue;
		*colon = '\0';
		name = strrchr(line, '/');
		name = name ? name + 1 : line;
		found = !strncmp(name, "sbridge_core.ko", 15);
	}
	fclose(f);
	return found;
}

int sb_connect(struct sb_nl *nl)
{
	int ret = sb_nl_open(nl);

	if (!ret)
		return 0;
	if (ret == -ENOENT) {
		struct utsname u;

		if (sb_module_installed() == 0 && !uname(&u))
			sb_err("the sbridge module is not installed for kernel %s "
			       "(install the sbridge-dkms package and this kernel's headers, "
			       "or from a source tree: make dkms-install)",
			       u.release);
		else
			sb_err("the sbridge module is not loaded (try: modprobe sbridge_core)");
		return SB_EXIT_NOMOD;
	}
	sb_err("cannot open a generic netlink socket: %s", strerror(-ret));
	return SB_EXIT_ERR;
}

int sb_fail(struct sb_nl *nl, int err, const char *what)
{
	const char *ka = nl && nl->extack[0] ? nl->extack : NULL;

	if (err == -EPERM || err == -EACCES) {
		sb_err("%s: permission denied: this needs CAP_SYS_ADMIN (run as root)%s%s",
		       what, ka ? "; kernel says: " : "", ka ? ka : "");
		return SB_EXIT_PERM;
	}
	if (ka)
		sb_err("%s failed: %s (%s)", what, ka, strerror(-err));
	else if (err == -EOPNOTSUPP)
		sb_err("%s: not supported by the loaded sbridge module", what);
	else
		sb_err("%s failed: %s", what, strerror(-err));
	return SB_EXIT_ERR;
}

static int status_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	struct sb_status *st = arg;

	(void)cmd;
	st->ntypes = sb_u32(at->a[SBRIDGE_A_STATUS_NTYPES], 0);
	snprintf(st->source, sizeof(st->source), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_SOURCE]));
	return 0;
}

int sb_get_status(struct sb_nl *nl, struct sb_status *st)
{
	struct sb_msg m;
	int ret;

	memset(st, 0, sizeof(*st));
	sb_msg_init(&m, nl, SBRIDGE_CMD_GET_STATUS, 0);
	ret = sb_request(nl, &m, status_cb, st);
	sb_msg_free(&m);
	return ret;
}
