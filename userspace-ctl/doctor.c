// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: everything a user needs to know about sbridge on this machine,
 * each finding with a verdict and, for a problem, what to do about it.
 * Reads the module's status, CPUs and rules over netlink, sbridge_pmu's
 * read-only views in sysfs, the configuration and rule files (compared
 * with what is in force, as `tuned-adm verify` does) and sched_ext's
 * state. Without the module it still checks the files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cpulist.h"
#include "readfile.h"
#include "rules_parse.h"
#include "sbridgectl.h"

static const char doctor_help[] =
"usage: sbridgectl doctor [--root=DIR] [--json]\n"
"\n"
"Check sbridge on this machine and say what to do about each problem:\n"
"the modules and their versions (loaded, installed, this tool's), the\n"
"core types and how they were found, the counters open on each CPU, the\n"
"PMU and event chain the source counts each with and\n"
"what is missing, where the clock (effective frequency) comes from, the\n"
"actuators in force, the configuration file and the layered rules\n"
"compared with what is in force, the checker's reports and sched_ext.\n"
"--root=DIR reads the files under DIR. Exit status: 0 if nothing is\n"
"wrong, 1 if a check warns or fails, 3 without the module.\n";

#define DR_CONF		"/etc/sbridge/sbridge.conf"
#define DR_PMU		"/sys/module/sbridge_pmu"
#define DR_SCX		"/sys/kernel/sched_ext"

enum dr_level { DR_OK, DR_INFO, DR_WARN, DR_FAIL };
static const char *const dr_names[] = { "ok", "info", "warn", "fail" };

struct dr_check {
	const char *area;
	enum dr_level level;
	char msg[1024];
	char fix[512];
};

struct doctor {
	struct dr_check *v;
	size_t n, cap;
	unsigned int warn, fail;
	const char *root;
};

static void dr_add(struct doctor *d, const char *area, enum dr_level level,
		   const char *fix, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void dr_add(struct doctor *d, const char *area, enum dr_level level,
		   const char *fix, const char *fmt, ...)
{
	struct dr_check *c = sb_grow(d->v, &d->cap, d->n, sizeof(*c), 32);
	va_list ap;

	if (level == DR_WARN)
		d->warn++;
	if (level == DR_FAIL)
		d->fail++;
	if (!c)
		return;
	d->v = c;
	c = &d->v[d->n++];
	c->area = area;
	c->level = level;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
}

/* A small sysfs file's text without its last newline; "" if unreadable. */
static char *dr_read(const char *path, char *buf, size_t len)
{
	char *text;
	size_t n;

	buf[0] = '\0';
	if (sb_read_path(path, 1 << 16, 1000, &text, &n))
		return buf;
	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	snprintf(buf, len, "%s", text);
	free(text);
	return buf;
}

/* ---- modules ------------------------------------------------------------ */

struct dr_status {
	char version[64], source[64], message[256], mode[256], clock[64], predictor[128];
	uint32_t api, events, ntypes, from, rules, clock_kind;
	int learning, has_source, has_from, stale, has_clock;
};

static int dr_status_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	struct dr_status *s = arg;

	(void)cmd;
	snprintf(s->version, sizeof(s->version), "%s", sb_str(at->a[SBRIDGE_A_STATUS_VERSION]));
	s->has_source = at->a[SBRIDGE_A_STATUS_SOURCE] != NULL;
	snprintf(s->source, sizeof(s->source), "%s", sb_str(at->a[SBRIDGE_A_STATUS_SOURCE]));
	snprintf(s->message, sizeof(s->message), "%s", sb_str(at->a[SBRIDGE_A_STATUS_MESSAGE]));
	snprintf(s->mode, sizeof(s->mode), "%s", sb_str(at->a[SBRIDGE_A_STATUS_MODE]));
	s->api = sb_u32(at->a[SBRIDGE_A_STATUS_API], 0);
	s->events = sb_u32(at->a[SBRIDGE_A_STATUS_EVENTS], 0);
	s->learning = (int)sb_u32(at->a[SBRIDGE_A_STATUS_LEARNING], 0);
	s->ntypes = sb_u32(at->a[SBRIDGE_A_STATUS_NTYPES], 0);
	s->rules = sb_u32(at->a[SBRIDGE_A_STATUS_RULES], 0);
	/* appended in API 5: absent from older modules */
	s->has_from = at->a[SBRIDGE_A_STATUS_TYPES_FROM] != NULL;
	s->from = sb_u32(at->a[SBRIDGE_A_STATUS_TYPES_FROM], 0);
	s->stale = sb_u32(at->a[SBRIDGE_A_STATUS_TYPES_STALE], 0) != 0;
	s->has_clock = at->a[SBRIDGE_A_STATUS_CLOCK_KIND] != NULL;
	s->clock_kind = sb_u32(at->a[SBRIDGE_A_STATUS_CLOCK_KIND], SBRIDGE_CLOCK_NONE);
	snprintf(s->clock, sizeof(s->clock), "%s", sb_str(at->a[SBRIDGE_A_STATUS_CLOCK]));
	snprintf(s->predictor, sizeof(s->predictor), "%s",
		 sb_str(at->a[SBRIDGE_A_STATUS_PREDICTOR]));
	return 0;
}

/* The version of the sbridge_core that modprobe would load now (DKMS may
 * have built a newer one since the load); "" if it cannot be told. */
static void dr_installed_version(char *buf, size_t len)
{
	FILE *p = popen("modinfo -F version sbridge_core 2>/dev/null", "r");

	buf[0] = '\0';
	if (!p)
		return;
	if (fgets(buf, (int)len, p))
		buf[strcspn(buf, "\n")] = '\0';
	if (pclose(p))
		buf[0] = '\0';
}

static const char reload_fix[] =
	"modprobe -r sbridge_pmu sbridge_core && modprobe sbridge_pmu (the units then apply "
	"the configuration and rules again)";

static void dr_modules(struct doctor *d, const struct dr_status *s, int loaded)
{
	char inst[64], pmu[64], path[128];
	struct utsname u;
	int have;

	dr_installed_version(inst, sizeof(inst));
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (!loaded) {
		have = sb_module_installed();
		if (have == 0)
			dr_add(d, "modules", DR_FAIL,
			       "apt install sbridge-dkms linux-headers-$(uname -r), or from a source tree: make dkms-install",
			       "sbridge_core is not installed for kernel %s", u.release);
		else
			dr_add(d, "modules", DR_FAIL, "modprobe sbridge_pmu (it pulls in sbridge_core)",
			       "sbridge_core is not loaded%s%s%s", inst[0] ? " (installed: " : "",
			       inst, inst[0] ? ")" : "");
		return;
	}
	if (inst[0] && strcmp(inst, s->version))
		dr_add(d, "modules", DR_WARN, reload_fix,
		       "sbridge_core %s is loaded, but %s is installed for kernel %s (rebuilt since the load?)",
		       s->version, inst, u.release);
	else
		dr_add(d, "modules", DR_OK, NULL, "sbridge_core %s loaded (genl API %u)%s",
		       s->version, s->api, inst[0] ? ", the installed one" : "");
	if (s->api < SBRIDGE_GENL_VERSION)
		dr_add(d, "modules", DR_INFO, NULL,
		       "the module speaks genl API %u, this sbridgectl %u: what came later is not shown",
		       s->api, SBRIDGE_GENL_VERSION);
	if (strcmp(SB_VERSION, s->version))
		dr_add(d, "modules", DR_INFO, NULL, "this sbridgectl is %s, the module %s",
		       SB_VERSION, s->version);
	snprintf(path, sizeof(path), "%s/version", DR_PMU);
	if (access(DR_PMU, F_OK))
		dr_add(d, "modules", DR_FAIL, "modprobe sbridge_pmu",
		       "sbridge_pmu is not loaded: no counters, nothing is learned");
	else
		dr_add(d, "modules", DR_OK, NULL, "sbridge_pmu %s loaded",
		       dr_read(path, pmu, sizeof(pmu))[0] ? pmu : "(no version)");
}

/* ---- core types --------------------------------------------------------- */

static void dr_cpus_of(const struct sb_cpu *cpus, size_t n, int type, char *out, size_t len)
{
	struct sb_cpuset set;
	size_t i;

	memset(&set, 0, sizeof(set));
	for (i = 0; i < n; i++)
		if ((type < 0 || (int)cpus[i].type == type) && cpus[i].id < SB_MAX_CPUS)
			set.bits[cpus[i].id / 64] |= 1ULL << (cpus[i].id % 64);
	sb_cpulist_format(&set, out, len);
}

/*
 * x86 CPUID leaf 0x1a's core type from a model string "family:0xmodel:
 * 0xhybrid" (topology.c); 0 for anything else (arm64's "0xIMPL:0xPART").
 */
static unsigned int dr_hybrid(const char *model)
{
	const char *c = strchr(model, ':');

	if (!c || !strchr(c + 1, ':') || model[0] < '0' || model[0] > '9')
		return 0;
	return (unsigned int)strtoul(strrchr(model, ':') + 1, NULL, 16);
}

/* What CPUID says of hybrid x86 parts, next to sbridge's grouping. */
static void dr_types_cpuid(struct doctor *d, const struct sb_cpu *cpus, size_t n)
{
	/* the same grouping: one sbridge type per CPUID type, and back */
	int type_of[SBRIDGE_MAX_CORE_TYPES], hyb_of[SBRIDGE_MAX_CORE_TYPES];
	unsigned int t, h, hyb[SBRIDGE_MAX_CORE_TYPES], nh = 0, mixed = 0;
	char list[256], line[1024] = "";
	struct sb_cpuset set;
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		h = dr_hybrid(cpus[i].model);
		for (t = 0; t < nh && hyb[t] != h; t++)
			;
		if (t == nh && nh < SBRIDGE_MAX_CORE_TYPES)
			hyb[nh++] = h;
	}
	if (!(nh > 1 || (nh == 1 && hyb[0])))
		return;
	for (t = 0; t < SBRIDGE_MAX_CORE_TYPES; t++)
		type_of[t] = hyb_of[t] = -1;
	for (t = 0; t < nh; t++) {
		memset(&set, 0, sizeof(set));
		for (i = 0; i < n; i++) {
			unsigned int st = cpus[i].type;

			if (dr_hybrid(cpus[i].model) != hyb[t] || cpus[i].id >= SB_MAX_CPUS)
				continue;
			set.bits[cpus[i].id / 64] |= 1ULL << (cpus[i].id % 64);
			if (st >= SBRIDGE_MAX_CORE_TYPES ||
			    (type_of[t] >= 0 && type_of[t] != (int)st) ||
			    (hyb_of[st] >= 0 && hyb_of[st] != (int)t)) {
				mixed = 1;
			} else {
				type_of[t] = (int)st;
				hyb_of[st] = (int)t;
			}
		}
		sb_cpulist_format(&set, list, sizeof(list));
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s on CPUs %s", t ? ", " : "",
				      hyb[t] == 0x20 ? "Atom (E-cores)" :
				      hyb[t] == 0x40 ? "Core (P-cores)" : "unknown type", list);
	}
	dr_add(d, "core types", mixed ? DR_WARN : DR_INFO,
	       mixed ? "declare the types CPUID gives with cpu_types= (sbridgectl(8), CORE TYPES)" : NULL,
	       "CPUID (leaf 0x1a) says: %s%s", line,
	       mixed ? "; sbridge grouped them otherwise" : ", as sbridge grouped them");
}

/* Overrides in force that do less than they seem to. */
static void dr_types_overrides(struct doctor *d, const struct sb_cpu *cpus, size_t n)
{
	struct sb_cpuset set;
	char list[256];
	size_t i, o;
	uint32_t v;

	for (i = 0; i < n; i++) {
		if (!cpus[i].override)
			continue;
		v = cpus[i].override;
		memset(&set, 0, sizeof(set));
		for (o = 0; o < n; o++)
			if (cpus[o].override == v && cpus[o].id < SB_MAX_CPUS)
				set.bits[cpus[o].id / 64] |= 1ULL << (cpus[o].id % 64);
		for (o = 0; o < i && cpus[o].override != v; o++)
			;
		if (o < i)
			continue;	/* this value was looked at */
		if (sb_factor_warnings(&set, v, cpus, n, 0)) {
			sb_cpulist_format(&set, list, sizeof(list));
			dr_add(d, "core types", DR_WARN,
			       "set a factor on every CPU of a type, and on the smaller types only (sbridgectl set cpu-factor; the warnings it prints say which)",
			       "CPU factor override %s on CPU %s does less than it seems to",
			       sb_fp(v), list);
		}
	}
}

static void dr_types(struct doctor *d, const struct dr_status *s, const struct sb_cpu *cpus,
		     size_t n)
{
	static const char *const from[] = {
		[SBRIDGE_TYPES_CAPACITY] = "from the capacities the scheduler reports (cpu_capacity)",
		[SBRIDGE_TYPES_CPUFREQ] = "from the CPUs' maximum frequencies (cpufreq): every CPU reports one capacity",
		[SBRIDGE_TYPES_DECLARED] = "declared with cpu_types=",
		[SBRIDGE_TYPES_X86_HYBRID] = "from CPUID 0x1A's core types (Core, Atom), capacities from HWP highest performance: every CPU reports one capacity",
		[SBRIDGE_TYPES_RANKING] = "from the CPPC preferred-core ranking (amd_pstate_prefcore_ranking): every CPU reports one capacity",
		[SBRIDGE_TYPES_MIDR] = "from the MIDR part numbers and maximum frequencies: every CPU reports one capacity",
	};
	char list[256], line[1024] = "", how[160];
	size_t i, o = 0;
	unsigned int t;

	if (s->has_from && s->from < SB_ARRAY_SIZE(from) && from[s->from])
		snprintf(how, sizeof(how), "%s", from[s->from]);
	else
		snprintf(how, sizeof(how), "%s", n && cpus[0].declared ? from[SBRIDGE_TYPES_DECLARED] :
			 "(the module does not say how)");
	for (t = 0; t < s->ntypes && o < sizeof(line); t++) {
		const struct sb_cpu *c = NULL;

		for (i = 0; i < n && !c; i++)
			if (cpus[i].type == t)
				c = &cpus[i];
		dr_cpus_of(cpus, n, (int)t, list, sizeof(list));
		o += (size_t)snprintf(line + o, sizeof(line) - o, "%stype %u: CPUs %s, capacity %u, factor %s%s",
				      t ? "; " : "", t, list, c ? c->orig_capacity : 0,
				      c ? sb_fp(c->factor_nominal) : "?",
				      t + 1 == s->ntypes && s->ntypes > 1 ? " (reference)" : "");
	}
	if (s->ntypes < 2)
		dr_add(d, "core types", DR_WARN,
		       "if the CPUs differ, declare them: options sbridge_core cpu_types=0:1024;1-3:446 in /etc/modprobe.d/sbridge.conf, then reload (sbridgectl(8), CORE TYPES)",
		       "one core type, %s: nothing is steered", how);
	else
		dr_add(d, "core types", DR_OK, NULL, "%u core types, %s: %s", s->ntypes, how, line);
	if (s->stale)
		dr_add(d, "core types", DR_WARN, reload_fix,
		       "the kernel's CPU capacities changed after the load and now group the CPUs into other core types");
	dr_types_cpuid(d, cpus, n);
	dr_types_overrides(d, cpus, n);
}

/* ---- counters and clock ------------------------------------------------- */

static const char *const dr_kinds[] = { "cycles", "instructions", "llc_misses", "stall_cycles" };

/* One line of sbridge_pmu's `events`: "cpus L pmu P capacity C: k k(raw)". */
static void dr_events_line(struct doctor *d, char *line)
{
	char *colon = strchr(line, ':'), *cpus, *pmu, missing[128] = "", raw[128] = "";
	size_t k;

	if (!colon || strncmp(line, "cpus ", 5))
		return;
	*colon = '\0';
	cpus = line + 5;
	pmu = strstr(cpus, " pmu ");
	if (pmu) {
		*pmu = '\0';
		pmu += 5;
		pmu[strcspn(pmu, " ")] = '\0';
	}
	for (k = 0; k < SB_ARRAY_SIZE(dr_kinds); k++) {
		/* the words after the colon: "cycles instructions(raw) ..." */
		const char *w = colon + 1, *hit = NULL;
		size_t l = strlen(dr_kinds[k]);

		while (!hit && (w = strstr(w, dr_kinds[k]))) {
			if (w[-1] == ' ' && (!w[l] || w[l] == ' ' || w[l] == '('))
				hit = w;
			w += l;
		}
		if (!hit)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
				 dr_kinds[k]);
		else if (hit[l] == '(')
			snprintf(raw + strlen(raw), sizeof(raw) - strlen(raw), " %s", dr_kinds[k]);
	}
	if (!missing[0]) {
		dr_add(d, "counters", DR_OK, NULL, "CPUs %s (pmu %s): all 4 events open%s%s", cpus,
		       pmu ? pmu : "?", raw[0] ? "; from raw codes:" : "", raw);
		return;
	}
	if (strstr(missing, "cycles") == missing + 1 || strstr(missing, "instructions"))
		dr_add(d, "counters", DR_WARN,
		       "nothing to do on this machine: a PMU without them (or an emulator or VM that hides them) cannot feed the model; rules and CPU factors still apply",
		       "CPUs %s (pmu %s): no%s: CPI stacks cannot be learned there", cpus,
		       pmu ? pmu : "?", missing);
	else
		dr_add(d, "counters", DR_WARN,
		       "give this PMU's raw event codes: options sbridge_pmu raw_events=PMU:stall_cycles=0xNN,llc_misses=0xNN (sbridgectl(8), COUNTER SOURCE), then reload",
		       "CPUs %s (pmu %s): no%s%s%s: their share of the CPI stack is taken as 0 there",
		       cpus, pmu ? pmu : "?", missing, raw[0] ? "; from raw codes:" : "", raw);
}

/* Same PMU and event chain, as the core's source names them (API 5). */
static int dr_same_pmu(const struct sb_cpu *a, const struct sb_cpu *b)
{
	return !strcmp(a->pmu, b->pmu) && !strcmp(a->pmu_chain, b->pmu_chain);
}

/* One line per group of CPUs the source counts on one PMU with one chain. */
static void dr_pmus(struct doctor *d, const struct sb_cpu *cpus, size_t n)
{
	struct sb_cpuset set;
	char list[256];
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && !dr_same_pmu(&cpus[j], &cpus[i]); j++)
			;
		if (!cpus[i].pmu[0] || j < i)
			continue;	/* none said, or the group is done */
		memset(&set, 0, sizeof(set));
		for (j = i; j < n; j++)
			if (dr_same_pmu(&cpus[j], &cpus[i]) && cpus[j].id < SB_MAX_CPUS)
				set.bits[cpus[j].id / 64] |= 1ULL << (cpus[j].id % 64);
		sb_cpulist_format(&set, list, sizeof(list));
		dr_add(d, "counters", DR_INFO, NULL, "CPUs %s count on PMU %s, events %s",
		       list, cpus[i].pmu, cpus[i].pmu_chain);
	}
}

static void dr_counters(struct doctor *d, const struct dr_status *s, const struct sb_cpu *cpus,
			size_t n)
{
	char buf[8192], lat[32], list[256], *line, *rest;
	struct sb_cpuset none;
	size_t i;

	if (!s->has_source) {
		dr_add(d, "counters", DR_FAIL, "modprobe sbridge_pmu",
		       "no counter source registered: nothing is learned");
	} else if (!access(DR_PMU "/parameters/events", R_OK)) {
		dr_read(DR_PMU "/parameters/events", buf, sizeof(buf));
		for (rest = buf; (line = strsep(&rest, "\n"));)
			if (*line)
				dr_events_line(d, line);
		dr_pmus(d, cpus, n);
		dr_read(DR_PMU "/parameters/mem_latency_ns", lat, sizeof(lat));
		if (lat[0])
			dr_add(d, "counters", DR_INFO, NULL,
			       "memory latency %s ns for the stall penalty (set it with options sbridge_pmu mem_latency_ns=N where the measurement at load is off)",
			       lat);
	}
	if (s->has_source)
		dr_add(d, "counters", s->learning ? DR_OK : DR_WARN,
		       s->learning ? NULL : "see the counters above; rules and CPU factors still steer",
		       "CPI learning %s%s%s", s->learning ? "on" : "off",
		       s->message[0] ? ": " : "", s->message);
	if (s->has_source && s->predictor[0])
		dr_add(d, "counters", DR_INFO,
		       strstr(s->predictor, "no coefficients") ?
		       "fit the board's coefficients (tools/mixfit.py) and apply them: sbridgectl set predictor FILE" :
		       NULL, "speedup predictor: %s", s->predictor);

	/* the clock: the best source any CPU has, as the core says */
	switch (s->has_clock ? s->clock_kind : SBRIDGE_CLOCK_NONE) {
	case SBRIDGE_CLOCK_COUNTERS:
		dr_add(d, "clock", DR_OK, NULL,
		       "effective frequency measured (%s): the factors follow the real clock",
		       s->clock);
		break;
	case SBRIDGE_CLOCK_FIE:
		dr_add(d, "clock", DR_INFO, NULL,
		       "effective frequency from %s: measured where the CPUs have activity monitors (AMU), else the frequency cpufreq asked for, which a throttled or fixed clock does not follow",
		       s->clock);
		break;
	case SBRIDGE_CLOCK_CPUFREQ:
		dr_add(d, "clock", DR_INFO, NULL,
		       "effective frequency from %s: what cpufreq asked for, not measured; a throttled or fixed clock is not seen",
		       s->clock);
		break;
	case SBRIDGE_CLOCK_EMULATED:
		dr_add(d, "clock", DR_INFO, NULL,
		       "effective frequency from %s: the emulation rig's counters, measured but not a machine's own",
		       s->clock);
		break;
	default:
		if (!s->has_clock && s->has_source)
			dr_add(d, "clock", DR_INFO, NULL,
			       "this module does not say where the clock comes from (API %u)",
			       s->api);
		break;
	}
	memset(&none, 0, sizeof(none));
	for (i = 0; i < n; i++)
		if (!cpus[i].cur_khz && cpus[i].id < SB_MAX_CPUS)
			none.bits[cpus[i].id / 64] |= 1ULL << (cpus[i].id % 64);
	if (sb_cpuset_last(&none) >= 0) {
		sb_cpulist_format(&none, list, sizeof(list));
		dr_add(d, "clock", DR_WARN,
		       "load the cpufreq driver of the board (e.g. cpufreq-dt), or accept it: the measured speedup then compares IPC only",
		       "no frequency known on CPU %s: factors stay nominal there and MEAS takes the clocks as equal",
		       list);
	}
}

/* ---- actuators, checker ------------------------------------------------- */

/* Tasks whose mask placement narrows now (SBRIDGE_A_TASK_STEERED). */
static int dr_steered_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	(void)cmd;
	if (sb_u32(at->a[SBRIDGE_A_TASK_STEERED], 0))
		(*(size_t *)arg)++;
	return 0;
}

static void dr_actuators(struct doctor *d, const struct dr_status *s, struct sb_nl *nl)
{
	unsigned long long v;
	char count[32];
	size_t n = 0;

	dr_add(d, "actuators", DR_INFO, NULL, "in force: %s", s->mode[0] ? s->mode : "(not said)");
	if (!sb_read_param("act.observe", &v) && v)
		dr_add(d, "actuators", DR_INFO, "sbridgectl set param act.observe 0",
		       "act.observe is 1: sbridge learns and reports, and changes nothing");
	if (sb_read_param("act.placement", &v) || !v || s->ntypes < 2)
		return;
	if (sb_get(nl, SBRIDGE_CMD_GET_TASKS, 1, dr_steered_cb, &n))
		snprintf(count, sizeof(count), "how many: unknown");
	else
		snprintf(count, sizeof(count), "%zu now", n);
	dr_add(d, "actuators", DR_INFO, NULL,
	       "placement narrows the affinity of the tasks it steers (%s): they see it in taskset -p, nproc and sched_getaffinity(); in sbridgectl tasks their PLACE ends in '*'",
	       count);
}

static int dr_count_cb(const struct sb_attrs *at, uint8_t cmd, void *arg)
{
	(void)cmd;
	if (at->a[SBRIDGE_A_REPORT] || at->a[SBRIDGE_A_REPORT_TIME_NS])
		(*(size_t *)arg)++;
	return 0;
}

static void dr_checker(struct doctor *d, struct sb_nl *nl)
{
	size_t n = 0;

	if (sb_get(nl, SBRIDGE_CMD_GET_REPORTS, 1, dr_count_cb, &n))
		return;
	if (n)
		dr_add(d, "checker", DR_WARN,
		       "sbridgectl check lists them; if little CPUs idle while tasks wait, lower the little types' CPU factor",
		       "%zu work-conserving report%s: a CPU stayed idle while tasks waited elsewhere",
		       n, n == 1 ? "" : "s");
	else
		dr_add(d, "checker", DR_OK, NULL, "no work-conserving reports");
}

/* ---- configuration and rules against what is in force ------------------- */

struct dr_cf {
	struct doctor *d;
	unsigned int n;
};

static void dr_cf_diff(void *arg, const char *msg)
{
	struct dr_cf *c = arg;

	c->n++;
	dr_add(c->d, "config", DR_WARN,
	       "systemctl restart sbridge-config.service, or sbridgectl config apply " DR_CONF,
	       "%s", msg);
}

static void dr_config(struct doctor *d, int loaded)
{
	struct sb_params p = { NULL, 0, 0 };
	struct sb_cpu *cpus = NULL;
	struct dr_cf c = { d, 0 };
	char path[4096], why[600];
	struct sb_nl nl;
	size_t n = 0;
	int ret;

	snprintf(path, sizeof(path), "%s%s", d->root, DR_CONF);
	if (access(path, F_OK)) {
		dr_add(d, "config", DR_INFO, NULL, "no %s: the module's defaults and modprobe.d hold",
		       path);
		return;
	}
	if (loaded && !sb_nl_open(&nl)) {
		sb_get_cpus(&nl, &cpus, &n);
		sb_nl_close(&nl);
	}
	if (loaded)
		sb_read_params(SB_PARAMS_PATH, &p);
	ret = config_verify(path, &p, cpus, n, loaded ? dr_cf_diff : NULL, &c, why, sizeof(why));
	if (ret < 0)
		dr_add(d, "config", DR_FAIL, "fix the file (sbridgectl config check names every error)",
		       "%s", why);
	else if (!loaded)
		dr_add(d, "config", DR_INFO, NULL, "%s: %d setting%s, well formed", path, ret,
		       ret == 1 ? "" : "s");
	else if (!c.n)
		dr_add(d, "config", DR_OK, NULL, "%s: all %d setting%s in force", path, ret,
		       ret == 1 ? "" : "s");
	free(p.v);
	free(cpus);
}

/* Same rule: match, pattern and actions (factors over @ntypes types). */
static int dr_same_rule(const struct sb_rp_rule *a, const struct sb_rp_rule *b, unsigned int ntypes)
{
	unsigned int t;

	if (a->match != b->match || strcmp(a->pattern, b->pattern) || a->cls != b->cls ||
	    a->pref != b->pref)
		return 0;
	for (t = 0; t < ntypes && t < SBRIDGE_MAX_CORE_TYPES; t++)
		if (a->factors[t] != b->factors[t])
			return 0;
	return 1;
}

static const struct sb_rp_rule *dr_find_rule(const struct sb_rp_set *set, const struct sb_rp_rule *r)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->rules[i].match == r->match && !strcmp(set->rules[i].pattern, r->pattern))
			return &set->rules[i];
	return NULL;
}

static void dr_rules(struct doctor *d, const struct dr_status *s, struct sb_nl *nl)
{
	static const char fix[] =
		"sbridgectl rules load --system, or systemctl restart sbridge-rules.service";
	struct sb_rp_set files = { .rules = NULL }, live = { .rules = NULL };
	unsigned int ntypes = s && s->ntypes ? s->ntypes : SBRIDGE_MAX_CORE_TYPES;
	size_t i, missing = 0, extra = 0, changed = 0, order = 0;
	const struct sb_rp_rule *o, *ex_m = NULL, *ex_x = NULL, *ex_c = NULL;
	char line[1024];
	struct sb_rp_error err;

	if (sb_rp_parse_system(&files, d->root, &err) || sb_rp_resolve(&files, ntypes, &err)) {
		dr_add(d, "rules", DR_FAIL, "fix the file (sbridgectl rules check --system names every error)",
		       "the rule files do not load: %s%s", err.msg,
		       err.n > 1 ? " (and more)" : "");
		goto out;
	}
	if (!files.dirs)
		dr_add(d, "rules", DR_INFO, NULL, "none of the rule directories exists under '%s'",
		       d->root[0] ? d->root : "/");
	if (!nl) {
		dr_add(d, "rules", DR_INFO, NULL, "the rule files hold %zu rule%s, well formed",
		       files.n, files.n == 1 ? "" : "s");
		goto out;
	}
	if (rules_get(nl, &live)) {
		dr_add(d, "rules", DR_WARN, NULL, "cannot read the rules in force");
		goto out;
	}
	for (i = 0; i < files.n; i++) {
		o = dr_find_rule(&live, &files.rules[i]);
		if (!o) {
			missing++;
			ex_m = ex_m ? ex_m : &files.rules[i];
		} else if (!dr_same_rule(o, &files.rules[i], ntypes)) {
			changed++;
			ex_c = ex_c ? ex_c : &files.rules[i];
		} else if (i < live.n && !dr_same_rule(&live.rules[i], &files.rules[i], ntypes)) {
			order++;
		}
	}
	for (i = 0; i < live.n; i++) {
		if (!dr_find_rule(&files, &live.rules[i])) {
			extra++;
			ex_x = ex_x ? ex_x : &live.rules[i];
		}
	}
	if (!missing && !extra && !changed && !order) {
		dr_add(d, "rules", DR_OK, NULL,
		       "%zu rule%s in force, as the layered rule files give them", live.n,
		       live.n == 1 ? "" : "s");
		goto out;
	}
	if (missing) {
		sb_rp_format_rule(ex_m, line, sizeof(line));
		dr_add(d, "rules", DR_WARN, fix,
		       "%zu rule%s of the files %s not in force, e.g. %s (%s)", missing,
		       missing == 1 ? "" : "s", missing == 1 ? "is" : "are", line, ex_m->source);
	}
	if (changed) {
		sb_rp_format_rule(ex_c, line, sizeof(line));
		dr_add(d, "rules", DR_WARN, fix,
		       "%zu rule%s in force differ%s from the files, e.g. the files say %s (%s)",
		       changed, changed == 1 ? "" : "s", changed == 1 ? "s" : "", line, ex_c->source);
	}
	if (extra) {
		sb_rp_format_rule(ex_x, line, sizeof(line));
		dr_add(d, "rules", DR_WARN, fix,
		       "%zu rule%s in force %s in no file of the layered set, e.g. %s (loaded from %s)",
		       extra, extra == 1 ? "" : "s", extra == 1 ? "is" : "are", line,
		       ex_x->source[0] ? ex_x->source : "?");
	}
	if (order && !missing && !extra && !changed)
		dr_add(d, "rules", DR_WARN, fix,
		       "the rules in force are the files' but in another order (the first match wins)");
out:
	sb_rp_free(&files);
	sb_rp_free(&live);
}

/* ---- sched_ext ---------------------------------------------------------- */

static void dr_scx(struct doctor *d)
{
	char state[64], ops[128];

	if (access(DR_SCX "/state", F_OK)) {
		dr_add(d, "sched_ext", DR_OK, NULL, "not in this kernel: the stock scheduler runs");
		return;
	}
	dr_read(DR_SCX "/state", state, sizeof(state));
	dr_read(DR_SCX "/root/ops", ops, sizeof(ops));
	if (!strcmp(state, "disabled")) {
		dr_add(d, "sched_ext", DR_OK, NULL, "disabled: the stock scheduler runs");
		return;
	}
	dr_add(d, "sched_ext", DR_WARN,
	       "stop the BPF scheduler (e.g. systemctl stop scx.service) to have sbridge steer the stock scheduler",
	       "%s%s%s: a BPF scheduler places the tasks; it may honour sbridge's affinity but not its capacity, uclamp or frequency hints, and sbridge's decisions were made for the stock scheduler",
	       state[0] ? state : "state unknown", ops[0] ? ", " : "", ops);
}

/* ---- output ------------------------------------------------------------- */

static void dr_print(const struct doctor *d)
{
	const char *area = "";
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct dr_check *c = &d->v[i];

		printf("%-4s  %-10s  %s\n", dr_names[c->level], strcmp(area, c->area) ? c->area : "",
		       c->msg);
		if (c->fix[0] && c->level >= DR_WARN)
			printf("%-4s  %-10s  -> %s\n", "", "", c->fix);
		area = c->area;
	}
	printf("\n%u warning%s, %u failure%s\n", d->warn, d->warn == 1 ? "" : "s", d->fail,
	       d->fail == 1 ? "" : "s");
}

static void dr_json(const struct doctor *d)
{
	size_t i;

	sb_js_obj_begin(NULL);
	sb_js_bool("ok", !d->warn && !d->fail);
	sb_js_uint("warnings", d->warn);
	sb_js_uint("failures", d->fail);
	sb_js_arr_begin("checks");
	for (i = 0; i < d->n; i++) {
		const struct dr_check *c = &d->v[i];

		sb_js_obj_begin(NULL);
		sb_js_str("area", c->area);
		sb_js_str("status", dr_names[c->level]);
		sb_js_str("message", c->msg);
		sb_js_str("fix", c->fix[0] && c->level >= DR_WARN ? c->fix : NULL);
		sb_js_obj_end();
	}
	sb_js_arr_end();
	sb_js_obj_end();
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor d = { .root = "" };
	struct dr_status s;
	struct sb_cpu *cpus = NULL;
	struct sb_nl nl;
	size_t n = 0;
	int c, ret, loaded;

	while ((c = sb_getopt(argc, argv, "", opts, doctor_help)) != -1) {
		if (c == 'r') {
			d.root = optarg;
			continue;
		}
		return c == 'h' ? SB_EXIT_OK : SB_EXIT_USAGE;
	}
	if (optind < argc)
		return sb_usage(doctor_help, "unexpected argument '%s'", argv[optind]);
	memset(&s, 0, sizeof(s));
	ret = sb_nl_open(&nl);
	loaded = !ret;
	if (ret && ret != -ENOENT) {
		sb_err("cannot open a generic netlink socket: %s", strerror(-ret));
		return SB_EXIT_ERR;
	}
	if (loaded) {
		ret = sb_get(&nl, SBRIDGE_CMD_GET_STATUS, 0, dr_status_cb, &s);
		if (ret) {
			ret = sb_fail(&nl, ret, "reading status");
			sb_nl_close(&nl);
			return ret;
		}
		if (sb_get_cpus(&nl, &cpus, &n))
			n = 0;
	}
	dr_modules(&d, &s, loaded);
	if (loaded) {
		dr_types(&d, &s, cpus, n);
		dr_counters(&d, &s, cpus, n);
		dr_actuators(&d, &s, &nl);
		dr_checker(&d, &nl);
	}
	dr_config(&d, loaded);
	dr_rules(&d, loaded ? &s : NULL, loaded ? &nl : NULL);
	dr_scx(&d);
	if (sb_json)
		dr_json(&d);
	else
		dr_print(&d);
	if (loaded)
		sb_nl_close(&nl);
	free(cpus);
	free(d.v);
	if (!loaded)
		return SB_EXIT_NOMOD;
	return d.warn || d.fail ? SB_EXIT_ERR : SB_EXIT_OK;
}
