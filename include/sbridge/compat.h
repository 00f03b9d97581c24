/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel-version differences live. Every shim names
 * the kernel range it covers; delete it when that range is no longer built.
 * Supported: Debian's 6.1 (bookworm), 6.12 (trixie), 7.x (trixie-backports).
 */
#ifndef _SBRIDGE_COMPAT_H
#define _SBRIDGE_COMPAT_H

#include <linux/version.h>
#include <linux/topology.h>
#include <linux/sched/topology.h>

/*
 * cpuid_eax(): <asm/processor.h> up to 6.14 (6.1, 6.12), moved to
 * <asm/cpuid/api.h> in 6.15 (7.x), which processor.h no longer pulls in.
 */
#ifdef CONFIG_X86
#include <asm/processor.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
#include <asm/cpuid/api.h>
#endif
#endif

/*
 * sbridge_percpu_wq: the per-CPU system workqueue that
 * queue_delayed_work_on() is given. system_wq up to 6.16 (6.1, 6.12);
 * 6.17 (7.x) adds system_percpu_wq for it and warns at every work
 * queued on system_wq ("enqueued on deprecated workqueue").
 */
#include <linux/workqueue.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define sbridge_percpu_wq	system_percpu_wq
#else
#define sbridge_percpu_wq	system_wq
#endif

/*
 * sbridge_rdmsr_safe(): rdmsrl_safe() up to 6.15 (6.1, 6.12), renamed
 * rdmsrq_safe() in 6.16 (7.x) by the x86/msr rename series.
 */
#ifdef CONFIG_X86
#include <asm/msr.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define sbridge_rdmsr_safe(msr, p)	rdmsrq_safe(msr, p)
#else
#define sbridge_rdmsr_safe(msr, p)	rdmsrl_safe(msr, p)
#endif
#endif

/*
 * CPU capacity the scheduler uses. All supported kernels (6.1 .. 7.x)
 * provide arch_scale_cpu_capacity(): arm64 reads the exported per-CPU
 * cpu_scale. x86 6.1 returns SCHED_CAPACITY_SCALE; x86 6.12 .. 7.x
 * (commit "x86/sched: Add basic support for CPU capacity scaling") makes
 * it an exported function returning what intel_pstate set for hybrid
 * parts with arch_set_cpu_capacity(), which may change at run time
 * (topology.c follows it: docs/reliability.md, L13), else
 * SCHED_CAPACITY_SCALE.
 */
static inline unsigned long sbridge_cpu_capacity(int cpu)
{
	return arch_scale_cpu_capacity(cpu);
}

/*
 * Cluster id of a CPU. arm64 (GENERIC_ARCH_TOPOLOGY, 6.1 .. 7.x): the
 * arch topology's cluster_id (cpu_topology is exported), -1 when the
 * firmware gave none. x86 (6.1 .. 7.x): topology_cluster_id() reads
 * cpu_l2c_id, which is not exported, so use the package id there.
 */
static inline int sbridge_cpu_cluster(int cpu)
{
#ifdef CONFIG_GENERIC_ARCH_TOPOLOGY
	int id = topology_cluster_id(cpu);

	return id >= 0 ? id : topology_physical_package_id(cpu);
#else
	return topology_physical_package_id(cpu);
#endif
}

/*
 * Probe prototype of the sched_switch tracepoint. 5.18 .. 7.x (so all
 * supported kernels): (preempt, prev, next, prev_state).
 */
#define SBRIDGE_SCHED_SWITCH_PROTO					\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next, unsigned int prev_state

/*
 * Probe prototype of sched_stat_runtime: 6.1 .. 6.7 pass the vruntime too,
 * 6.8 .. 7.x (commit 5fe6ec8f6ab5) only (task, runtime).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define SBRIDGE_SCHED_RUNTIME_PROTO					\
	void *data, struct task_struct *p, u64 runtime
#else
#define SBRIDGE_SCHED_RUNTIME_PROTO					\
	void *data, struct task_struct *p, u64 runtime, u64 vruntime
#endif

/*
 * Writable per-CPU capacity. arm64 (GENERIC_ARCH_TOPOLOGY), 6.1 .. 7.x:
 * arch_scale_cpu_capacity() reads the exported per-CPU cpu_scale, declared
 * in <linux/arch_topology.h> up to 6.12 and in <linux/topology.h> from 6.16
 * (7.x); topology_set_cpu_scale() is not exported, so write it directly,
 * with a compare-and-exchange: the kernel's own writer (a plain store from
 * topology_normalize_cpu_scale(), e.g. when a cpufreq driver registers)
 * may run at any moment, and a value it stored since @old was read must
 * not be overwritten. Returns true if @cap was written.
 * x86 (6.1 .. 7.x): capacity is not a variable a module can write.
 */
#ifdef CONFIG_ARM64
#include <linux/arch_topology.h>
#define SBRIDGE_HAVE_CPU_SCALE	1
static inline bool sbridge_cmpxchg_cpu_scale(int cpu, unsigned long old,
					     unsigned long cap)
{
	return cmpxchg(per_cpu_ptr(&cpu_scale, cpu), old, cap) == old;
}
#else
#define SBRIDGE_HAVE_CPU_SCALE	0
static inline bool sbridge_cmpxchg_cpu_scale(int cpu, unsigned long old,
					     unsigned long cap)
{
	return false;
}
#endif

/*
 * A reference to a mm's executable file (get_mm_exe_file() is not
 * exported). 6.1 .. 6.6: files are freed after an RCU grace period and
 * get_file_rcu() is a macro taking the file; 6.7 .. 7.x (files
 * SLAB_TYPESAFE_BY_RCU, commit 0ede61d8589c): get_file_rcu() takes the
 * address of the __rcu pointer and re-checks it after the increment.
 */
#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
static inline struct file *sbridge_mm_exe_file(struct mm_struct *mm)
{
	struct file *f;

	rcu_read_lock();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	f = get_file_rcu(&mm->exe_file);
#else
	f = rcu_dereference(mm->exe_file);
	if (f && !get_file_rcu(f))
		f = NULL;
#endif
	rcu_read_unlock();
	return f;
}

/*
 * Probe prototypes of task_rename and cgroup_attach_task: the same on 6.1,
 * 6.12 and 7.x. task_rename fires in __set_task_comm() with task_lock()
 * held, before the new name is copied; cgroup_attach_task fires after the
 * migration with cgroup_mutex, the threadgroup rwsem and (IRQs off) the
 * tracepoint's path lock held.
 */
#define SBRIDGE_TASK_RENAME_PROTO					\
	void *data, struct task_struct *task, const char *comm
#define SBRIDGE_CGROUP_ATTACH_PROTO					\
	void *data, struct cgroup *dst_cgrp, const char *path,		\
	struct task_struct *task, bool threadgroup

/*
 * Queued on a runqueue: p->on_rq == TASK_ON_RQ_QUEUED (kernel/sched/sched.h;
 * task_on_rq_queued() is private to kernel/sched), the same on 6.1 .. 7.x.
 * Runnable also needs TASK_RUNNING from 6.12 on: EEVDF's delayed dequeue
 * (6.12 .. 7.x) keeps a sleeping task queued until its lag is spent; on
 * 6.1 the extra test is always true for a queued task.
 */
#include <linux/sched.h>
#define SBRIDGE_ON_RQ_QUEUED	1
static inline bool sbridge_task_queued(const struct task_struct *p)
{
	return READ_ONCE(p->on_rq) == SBRIDGE_ON_RQ_QUEUED;
}

static inline bool sbridge_task_runnable(const struct task_struct *p)
{
	return task_is_running(p) && sbridge_task_queued(p);
}

/*
 * A task's nice weight as CFS shares CPU time by it (nice 0: 1024,
 * SCHED_IDLE: 3). 6.1 .. 7.x on 64-bit keep se.load.weight scaled up by
 * SCHED_FIXEDPOINT_SHIFT (scale_load(), kernel/sched/sched.h, not a
 * public header); 32-bit does not.
 */
static inline u32 sbridge_task_weight(const struct task_struct *p)
{
	unsigned long w = READ_ONCE(p->se.load.weight);

#ifdef CONFIG_64BIT
	w >>= SCHED_FIXEDPOINT_SHIFT;
#endif
	return w ? (u32)min_t(unsigned long, w, U32_MAX) : 1;
}

/*
 * Reading a perf event from the sched_switch tracepoint: 6.1 .. 7.x export
 * neither perf_event_read_local() (absent from each cell's Module.symvers)
 * nor a non-sleeping read (perf_event_read_value() takes child_mutex). This
 * is the one case of perf_event_read_local() (kernel/events/core.c) that a
 * pinned per-CPU event read on its own CPU with IRQs off needs: an ACTIVE
 * event there is read through its PMU first, any other has a frozen count.
 * pmu-monitor/counters.c says why that is safe. Returns whether @ev counts.
 */
#include <linux/perf_event.h>
static inline bool sbridge_perf_read_here(struct perf_event *ev, int cpu,
					  u64 *val, u64 *enabled, u64 *running)
{
	bool active = ev->oncpu == cpu &&
		      READ_ONCE(ev->state) == PERF_EVENT_STATE_ACTIVE;

	if (active)
		ev->pmu->read(ev);
	*val = local64_read(&ev->count);
	*enabled = ev->total_time_enabled;
	*running = ev->total_time_running;
	return active;
}

/*
 * genl_family.pre_doit gets the command's struct genl_ops on 6.1 and a
 * struct genl_split_ops from 6.2 (6.12, 7.x); both carry internal_flags.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define SBRIDGE_GENL_PRE_DOIT_OPS	struct genl_split_ops
#else
#define SBRIDGE_GENL_PRE_DOIT_OPS	struct genl_ops
#endif

/*
 * The affinity a task's user asked for. From 6.2 (6.12, 7.x; commit
 * 8f9ea86fdf99 "sched: Always preserve the user requested cpumask")
 * every sched_setaffinity() stores it in a new p->user_cpus_ptr, no other
 * set_cpus_allowed_ptr() caller does, and do_set_cpus_allowed() (the
 * hotplug fallback) clears it. 6.1 keeps it only for arm64's 32-bit
 * tasks: no record there. Returns the pointer (to compare by identity,
 * never to dereference) and copies the mask into @copy; NULL for none.
 * Read under p->pi_lock, which every writer of the field holds.
 */
#include <linux/sched.h>
static inline const void *sbridge_user_cpus(struct task_struct *p,
					    struct cpumask *copy)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	unsigned long flags;
	const void *ptr;

	raw_spin_lock_irqsave(&p->pi_lock, flags);
	ptr = p->user_cpus_ptr;
	if (ptr)
		cpumask_copy(copy, p->user_cpus_ptr);
	raw_spin_unlock_irqrestore(&p->pi_lock, flags);
	return ptr;
#else
	return NULL;
#endif
}

/*
 * kfuncs for BPF schedulers (kfuncs.c). sched_ext is in 6.12 .. 7.x, but
 * Debian enables CONFIG_SCHED_CLASS_EXT only from 7.x (trixie-backports;
 * 6.1 has no sched_ext, Debian's 6.12 leaves it off). A module's kfuncs
 * also need its own BTF (CONFIG_DEBUG_INFO_BTF_MODULES and a vmlinux in
 * the headers when it was built: kfuncs.c checks that at load).
 * __bpf_kfunc_start_defs() and BTF_KFUNCS_START() exist from 6.9, so
 * wherever sched_ext does.
 */
#if IS_ENABLED(CONFIG_SCHED_CLASS_EXT) && IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES)
#define SBRIDGE_HAVE_KFUNCS	1
#else
#define SBRIDGE_HAVE_KFUNCS	0
#endif

#endif /* _SBRIDGE_COMPAT_H */
