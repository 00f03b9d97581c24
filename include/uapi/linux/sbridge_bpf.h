/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sbridge's kfuncs for BPF schedulers (sched_ext), as a BPF program sees
 * them: the structs they fill and their declarations. docs/sched-ext.md
 * describes the interface.
 *
 * Versioning: fields are only ever appended. A caller passes the size it
 * knows (sizeof); sbridge fills min(its size, the caller's) bytes and sets
 * @version and @size to what it filled, so an old program runs on a new
 * sbridge and a new program sees which fields an old sbridge left out.
 * SBRIDGE_BPF_VERSION is bumped whenever a field is appended.
 *
 * Include it after vmlinux.h in a BPF program (it then uses vmlinux.h's
 * __u32), or after <linux/types.h> elsewhere.
 */
#ifndef _UAPI_LINUX_SBRIDGE_BPF_H
#define _UAPI_LINUX_SBRIDGE_BPF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define SBRIDGE_BPF_VERSION	1

/* Values below in thousandths: 1000 == 1.0. */
#define SBRIDGE_BPF_ONE		1000

/* struct sbridge_bpf_hint's @hint: enum sbridge_hint_type (sbridge.h) */
#define SBRIDGE_BPF_HINT_NONE	0
#define SBRIDGE_BPF_HINT_FAST	1
#define SBRIDGE_BPF_HINT_SLOW	2

/**
 * struct sbridge_bpf_hint - what sbridge knows and wants of one task
 * @version: SBRIDGE_BPF_VERSION of the sbridge that filled it
 * @size: bytes it filled
 * @hint: SBRIDGE_BPF_HINT_NONE (no decision), _FAST (wants the fastest
 *	core type) or _SLOW (off the fastest type)
 * @speedup: the big/little speedup estimate in force (thousandths)
 * @speedup_pred: what the model predicts (thousandths)
 * @speedup_meas: what was measured on both core types (thousandths), 0 if
 *	nothing yet
 * @got: the share of its time the decision layer gave it the fast type
 *	lately (thousandths)
 * @hint_age_ms: time since the decision layer last confirmed @hint
 *	(saturates at about 65 s)
 * @class: enum sbridge_task_class in force (a rule's or learned)
 */
struct sbridge_bpf_hint {
	__u32 version;
	__u32 size;
	__u32 hint;
	__u32 speedup;
	__u32 speedup_pred;
	__u32 speedup_meas;
	__u32 got;
	__u32 hint_age_ms;
	__u32 class;
};

/**
 * struct sbridge_bpf_cpu - one CPU as sbridge sees it
 * @version: SBRIDGE_BPF_VERSION of the sbridge that filled it
 * @size: bytes it filled
 * @core_type: its core type (0 the smallest)
 * @fast: 1 if its type is the fastest (the reference type)
 * @ntypes: core types sbridge found (1: nothing to tell apart)
 * @factor: the CPU factor in force, frequency-scaled (thousandths; 1000
 *	on the fastest type, above on slower ones)
 * @factor_nominal: the factor before frequency scaling (thousandths)
 * @cur_khz: the clock it measurably runs at, 0 if no counter source says
 * @max_khz: its maximum clock, 0 if unknown
 */
struct sbridge_bpf_cpu {
	__u32 version;
	__u32 size;
	__u32 core_type;
	__u32 fast;
	__u32 ntypes;
	__u32 factor;
	__u32 factor_nominal;
	__u32 cur_khz;
	__u32 max_khz;
};

#ifdef __VMLINUX_H__
/*
 * The kfuncs (STRUCT_OPS programs; weak, so a scheduler loads without
 * sbridge_core: check bpf_ksym_exists() before calling). A task is named
 * by its pid in the initial namespace (p->pid).
 * Return 0, -ENOENT (task untracked, CPU unknown) or -EINVAL.
 */
extern int sbridge_task_hint(__s32 pid, void *out, __u32 out__sz) __ksym __weak;
extern int sbridge_cpu_info(__s32 cpu, void *out, __u32 out__sz) __ksym __weak;
/* ops.init / ops.exit of an sbridge-aware scheduler: actuators stand down / resume */
extern int sbridge_scx_attach(void) __ksym __weak;
extern void sbridge_scx_detach(void) __ksym __weak;
#endif

#endif /* _UAPI_LINUX_SBRIDGE_BPF_H */
