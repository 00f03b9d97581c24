// SPDX-License-Identifier: GPL-2.0
/* events: stream the module's multicast notifications. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "sbridgectl.h"

static const char events_help[] =
"usage: sbridgectl events [--count=N] [--timeout=SECONDS] [--json]\n"
"\n"
"Print module events as they happen (counter source registered or gone,\n"
"CPU factors changed, rules replaced, matrix loaded, invariant violation,\n"
"phase change), one a line. Stops after N events, after SECONDS without\n"
"an event (decimals allowed: 0.5), or on Ctrl-C. With --json one object a\n"
"line.\n";

static const char *const names[] = {
	"?", "source", "factors", "rules", "matrix", "violation", "phase",
};

struct ctx {
	unsigned long long seen, count;
};

static int event_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	struct ctx *cx = arg;
	uint32_t type = sb_u32(at->a[SBRIDGE_A_EVENT_TYPE], 0);
	const char *name = type < SB_ARRAY_SIZE(names) ? names[type] : "?";
	struct timespec ts;

	if (cmd != SBRIDGE_CMD_EVENT)
		return 0;
	if (cx->count && cx->seen >= cx->count)
		return 0;
	cx->seen++;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_uint("time_ms", (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
		sb_js_uint("type", type);
		sb_js_str("name", name);
		sb_js_str("text", sb_str(at->a[SBRIDGE_A_EVENT_TEXT]));
		sb_js_obj_end();
	} else {
		struct tm tm;

		localtime_r(&ts.tv_sec, &tm);
		printf("%02d:%02d:%02d.%03ld %-9s %s\n", tm.tm_hour, tm.tm_min,
		       tm.tm_sec, ts.tv_nsec / 1000000, name,
		       sb_str(at->a[SBRIDGE_A_EVENT_TEXT]));
		fflush(stdout);
	}
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int cmd_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx cx = { 0, 0 };
	unsigned long long timeout_ms = 0;
	struct sigaction sa;
	struct sb_nl nl;
	int c, ret;

	while ((c = sb_getopt(argc, argv, "n:t:", opts, events_help)) != -1) {
		if (c == 'n' && !sb_parse_uint(optarg, 1000000000ULL, &cx.count) && cx.count)
			continue;
		if (c == 't' && !sb_parse_seconds(optarg, 2000000000ULL, &timeout_ms) &&
		    timeout_ms)
			continue;
		if (c == 'n')
			return sb_usage(events_help, "bad count '%s' (a positive integer)", optarg);
		if (c == 't')
			return sb_usage(events_help,
					"bad timeout '%s' (seconds, at most 3 decimals, more than 0)",
					optarg);
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	if (optind < argc)
		return sb_usage(events_help, "unexpected argument '%s'", argv[optind]);
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	ret = sb_subscribe(&nl);
	if (ret) {
		if (ret == -ENOENT)
			sb_err("the sbridge module has no '%s' multicast group",
			       SBRIDGE_GENL_MCGRP_EVENTS);
		else
			sb_err("cannot join the events group: %s", strerror(-ret));
		sb_nl_close(&nl);
		return SB_EXIT_ERR;
	}
	/* No SA_RESTART: a signal must wake poll() so we can exit cleanly. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop && (!cx.count || cx.seen < cx.count)) {
		ret = sb_recv_events(&nl, timeout_ms ? (int)timeout_ms : -1,
				     event_cb, &cx);
		if (ret == -ENOBUFS) {
			sb_err("events were lost (reader too slow)");
			continue;
		}
		if (ret < 0) {
			sb_nl_close(&nl);
			return sb_fail(NULL, ret, "events");
		}
		if (!ret && timeout_ms && !stop)
			break;
	}
	sb_nl_close(&nl);
	return SB_EXIT_OK;
}
