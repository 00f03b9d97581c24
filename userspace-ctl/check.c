// SPDX-License-Identifier: GPL-2.0
/* check: reports of the online work-conserving invariant checker. */
#include <string.h>

#include "sbridgectl.h"

static const char check_help[] =
"usage: sbridgectl check [--json]\n"
"\n"
"List the work-conserving invariant reports the module recorded: moments\n"
"when a CPU stayed idle beyond the grace period while another CPU had\n"
"tasks waiting, with the hints (actuators) in force then. Exit status is 0\n"
"whether or not there are reports; the count is printed last.\n";

struct ctx {
	size_t n;
};

static void one(const struct nlattr *const *tb, struct ctx *cx)
{
	uint64_t t = sb_u64(tb[SBRIDGE_A_REPORT_TIME_NS], 0);

	cx->n++;
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_uint("time_ns", t);
		sb_js_uint("idle_cpu", sb_u32(tb[SBRIDGE_A_REPORT_IDLE_CPU], 0));
		sb_js_uint("busy_cpu", sb_u32(tb[SBRIDGE_A_REPORT_BUSY_CPU], 0));
		sb_js_uint("nr_waiting", sb_u32(tb[SBRIDGE_A_REPORT_NR_WAITING], 0));
		sb_js_uint("hints", sb_u32(tb[SBRIDGE_A_REPORT_HINTS], 0));
		sb_js_obj_end();
		return;
	}
	printf("%10llu.%06llu %8u %8u %10u   0x%x\n",
	       (unsigned long long)(t / 1000000000ULL),
	       (unsigned long long)(t % 1000000000ULL / 1000),
	       sb_u32(tb[SBRIDGE_A_REPORT_IDLE_CPU], 0),
	       sb_u32(tb[SBRIDGE_A_REPORT_BUSY_CPU], 0),
	       sb_u32(tb[SBRIDGE_A_REPORT_NR_WAITING], 0),
	       sb_u32(tb[SBRIDGE_A_REPORT_HINTS], 0));
}

/* Accepts nested SBRIDGE_A_REPORT or loose SBRIDGE_A_REPORT_* attributes. */
static int report_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	const struct nlattr *tb[SBRIDGE_A_MAX + 1], *a;

	(void)cmd;
	if (at->a[SBRIDGE_A_REPORT]) {
		a = at->a[SBRIDGE_A_REPORT];
		sb_parse(tb, SBRIDGE_A_MAX, sb_nla_data(a), sb_nla_len(a));
		one(tb, arg);
	} else if (at->a[SBRIDGE_A_REPORT_TIME_NS]) {
		one(at->a, arg);
	}
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct ctx cx = { 0 };
	struct sb_nl nl;
	struct sb_msg m;
	int c, ret;

	while ((c = sb_getopt(argc, argv, "", NULL, check_help)) != -1)
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	if (optind < argc)
		return sb_usage(check_help, "unexpected argument '%s'", argv[optind]);
	ret = sb_connect(&nl);
	if (ret)
		return ret;
	if (sb_json) {
		sb_js_obj_begin(NULL);
		sb_js_arr_begin("reports");
	} else {
		printf("%17s %8s %8s %10s   %s\n", "TIME_S", "IDLE_CPU", "BUSY_CPU",
		       "NR_WAITING", "HINTS");
	}
	sb_msg_init(&m, &nl, SBRIDGE_CMD_GET_REPORTS, 1);
	ret = sb_request(&nl, &m, report_cb, &cx);
	sb_msg_free(&m);
	if (sb_json) {
		sb_js_arr_end();
		sb_js_uint("count", cx.n);
		sb_js_obj_end();
	} else if (!ret) {
		printf("%zu report%s: work-conserving invariant %s\n", cx.n,
		       cx.n == 1 ? "" : "s", cx.n ? "was violated" : "held");
	}
	if (ret)
		ret = sb_fail(&nl, ret, "reading reports");
	sb_nl_close(&nl);
	return ret;
}
