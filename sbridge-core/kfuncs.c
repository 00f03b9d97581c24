// SPDX-License-Identifier: GPL-2.0
/*
 * kfuncs for BPF schedulers (sched_ext): what sbridge knows of a task and
 * of a CPU, for STRUCT_OPS programs, as sched_ext's own kfuncs sit beside
 * their concern (kernel/sched/ext_idle.c). Registered where the kernel has
 * sched_ext and this module has BTF (include/sbridge/compat.h); elsewhere
 * the module works as before and status says why there are none.
 * Interface: include/uapi/linux/sbridge_bpf.h, docs/sched-ext.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <sbridge/compat.h>
#include <uapi/linux/sbridge_bpf.h>
#include "internal.h"
#include "actuators.h"

#if SBRIDGE_HAVE_KFUNCS
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#endif

/* Registration's outcome: 0, or why there are no kfuncs (status). */
static int sbridge_kfuncs_err = -EOPNOTSUPP;

#if SBRIDGE_HAVE_KFUNCS

/* fixed point (1024 == 1.0) to thousandths */
static u32 sbridge_kf_milli(u32 fp)
{
	return (u32)(((u64)fp * SBRIDGE_BPF_ONE) >> SBRIDGE_FP_SHIFT);
}

/* The caller's @sz bytes of @out: what both know of @src, zeroes after. */
static void sbridge_kf_out(void *out, u32 sz, const void *src, u32 filled)
{
	memcpy(out, src, filled);
	if (sz > filled)
		memset(out + filled, 0, sz - filled);
}

__bpf_kfunc_start_defs();

/**
 * sbridge_task_hint() - what sbridge knows and wants of task @pid
 * @pid: its pid in the initial namespace (task_struct.pid, a thread's id)
 * @out: a struct sbridge_bpf_hint, or the first @out__sz bytes of one
 * @out__sz: size of @out the caller knows (sizeof)
 *
 * Fills min(@out__sz, sizeof(struct sbridge_bpf_hint)) bytes; @out's
 * version and size say what was filled. A pid, not the task: an
 * out-of-tree module's BTF (deduplicated against the headers' vmlinux)
 * may carry its own copy of struct task_struct, which the verifier then
 * tells apart from the kernel's, so a task argument would be refused.
 *
 * Context: any BPF program context, the scheduler's hooks included
 * (runqueue lock held, IRQs off): RCU lookups of the pid and of the task
 * table, no lock, no allocation.
 * Return: 0, -ENOENT if sbridge does not track @p (the rest of @out is
 *	zero, hint none), -EINVAL for a size too small for the header.
 */
__bpf_kfunc int sbridge_task_hint(s32 pid, void *out, u32 out__sz)
{
	struct sbridge_bpf_hint h = {
		.version = SBRIDGE_BPF_VERSION,
	};
	struct sbridge_task *t = NULL;
	struct task_struct *p;
	u32 pred, meas, est, g;
	int ret = -ENOENT;

	if (!out || out__sz < 2 * sizeof(u32))
		return -EINVAL;
	h.size = min_t(u32, out__sz, sizeof(h));
	rcu_read_lock();
	p = pid > 0 ? pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID) : NULL;
	if (p)
		t = sbridge_task_lookup(p);
	if (t) {
		est = sbridge_task_speedup(t, &pred, &meas);
		h.hint = READ_ONCE(t->hint);
		h.speedup = sbridge_kf_milli(est);
		h.speedup_pred = sbridge_kf_milli(pred);
		h.speedup_meas = sbridge_kf_milli(meas);
		g = READ_ONCE(t->got);
		h.got = g == SBRIDGE_GOT_NONE ? 0 : sbridge_kf_milli(g);
		h.hint_age_ms = jiffies_to_msecs((u16)((u16)jiffies -
						       READ_ONCE(t->hint_at)));
		h.class = READ_ONCE(t->class);
		ret = 0;
	}
	rcu_read_unlock();
	sbridge_kf_out(out, out__sz, &h, h.size);
	return ret;
}

/**
 * sbridge_cpu_info() - @cpu as sbridge sees it
 * @cpu: a CPU number
 * @out: a struct sbridge_bpf_cpu, or the first @out__sz bytes of one
 * @out__sz: size of @out the caller knows (sizeof)
 *
 * Context: any BPF program context: per-CPU reads and the counter
 * source's clock under RCU (the switch path's own), no lock.
 * Return: 0, -ENOENT for a CPU that is not possible, -EINVAL for a size
 *	too small for the header.
 */
__bpf_kfunc int sbridge_cpu_info(s32 cpu, void *out, u32 out__sz)
{
	struct sbridge_bpf_cpu c = {
		.version = SBRIDGE_BPF_VERSION,
	};
	unsigned int type;
	int ret = -ENOENT;

	if (!out || out__sz < 2 * sizeof(u32))
		return -EINVAL;
	c.size = min_t(u32, out__sz, sizeof(c));
	if (cpu >= 0 && (unsigned int)cpu < nr_cpu_ids && cpu_possible(cpu)) {
		type = sbridge_cpu_type(cpu);
		c.core_type = type;
		c.fast = type == sbridge_topo.ref_type;
		c.ntypes = sbridge_topo.ntypes;
		c.factor = sbridge_kf_milli(sbridge_type_factor(type));
		c.factor_nominal = sbridge_kf_milli(sbridge_type_factor_nominal(type));
		c.cur_khz = sbridge_source_effective_khz(cpu);
		c.max_khz = READ_ONCE(per_cpu(sbridge_cpus, cpu).max_khz);
		ret = 0;
	}
	sbridge_kf_out(out, out__sz, &c, c.size);
	return ret;
}

/**
 * sbridge_scx_attach() - an sbridge-aware BPF scheduler takes over
 *
 * Called from its ops.init: the affinity and uclamp actuators stand down
 * (they would narrow what the BPF scheduler may place), and the decision
 * layer keeps deciding, so sbridge_task_hint() stays fresh.
 *
 * Context: any (queues the actuator work).
 * Return: 0.
 */
__bpf_kfunc int sbridge_scx_attach(void)
{
	sbridge_actuators_bpf_sched(true);
	return 0;
}

/**
 * sbridge_scx_detach() - the BPF scheduler is leaving
 *
 * Called from its ops.exit, which sched_ext calls however it exits (its
 * own error, the watchdog, SysRq-S, its loader closing): the actuators
 * resume at their next run.
 *
 * Context: any (queues the actuator work).
 */
__bpf_kfunc void sbridge_scx_detach(void)
{
	sbridge_actuators_bpf_sched(false);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(sbridge_kfunc_ids)
BTF_ID_FLAGS(func, sbridge_task_hint)
BTF_ID_FLAGS(func, sbridge_cpu_info)
BTF_ID_FLAGS(func, sbridge_scx_attach)
BTF_ID_FLAGS(func, sbridge_scx_detach)
BTF_KFUNCS_END(sbridge_kfunc_ids)

static const struct btf_kfunc_id_set sbridge_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &sbridge_kfunc_ids,
};

/**
 * sbridge_kfuncs_init() - offer the kfuncs to STRUCT_OPS programs
 *
 * Never fails the load: without them sbridge works as before, and
 * sbridge_kfuncs_status() says why. There is no unregister: the kernel
 * drops a module's kfuncs with its BTF at unload, and a program that
 * uses them holds a reference on the module until it is freed.
 *
 * Context: process context, last step of module init.
 */
void sbridge_kfuncs_init(void)
{
	/* no BTF: kbuild skipped it (no vmlinux in the headers) */
	if (!THIS_MODULE->btf_data_size) {
		sbridge_kfuncs_err = -ENODATA;
		return;
	}
	sbridge_kfuncs_err = register_btf_kfunc_id_set(BPF_PROG_TYPE_STRUCT_OPS,
						       &sbridge_kfunc_set);
	if (sbridge_kfuncs_err)
		pr_warn("registering the sched_ext kfuncs failed: %d\n",
			sbridge_kfuncs_err);
}

#else /* !SBRIDGE_HAVE_KFUNCS */

void sbridge_kfuncs_init(void)
{
}

#endif

/**
 * sbridge_kfuncs_status() - one line: kfuncs registered, or why not
 * @buf: out
 * @len: size of @buf
 *
 * Return: @buf.
 */
const char *sbridge_kfuncs_status(char *buf, size_t len)
{
	const char *why;

	switch (sbridge_kfuncs_err) {
	case 0:
		scnprintf(buf, len, "kfuncs registered%s",
			  sbridge_actuators_bpf_sched_on() ?
			  "; scx_sbridge runs, affinity and uclamp steering off" : "");
		return buf;
	case -EOPNOTSUPP:
		why = IS_ENABLED(CONFIG_SCHED_CLASS_EXT) ?
		      "kernel without module BTF (CONFIG_DEBUG_INFO_BTF_MODULES)" :
		      "kernel without sched_ext (CONFIG_SCHED_CLASS_EXT)";
		break;
	case -ENODATA:
		why = "module built without BTF (no vmlinux in the kernel headers)";
		break;
	default:
		scnprintf(buf, len, "not available: registering the kfuncs failed (%d)",
			  sbridge_kfuncs_err);
		return buf;
	}
	scnprintf(buf, len, "not available: %s", why);
	return buf;
}
