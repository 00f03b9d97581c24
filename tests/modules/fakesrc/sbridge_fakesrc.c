// SPDX-License-Identifier: GPL-2.0
/*
 * sbridge_fakesrc - synthetic counter source for the core's scenarios.
 *
 * QEMU gives no usable CPI counters, so this source makes them up from the
 * running task's name: tasks whose comm starts with "chase" look
 * memory-bound (CPI_B share about 0.2), all others compute-bound (1.0).
 * That makes learning, the matrix and phase tracking observable in any
 * guest. It also serves registry churn tests (load/unload in a loop).
 * The "force" parameter (writable at run time) overrides the name rule:
 * 1 makes every task compute-bound, 2 memory-bound, so that a running
 * task can be given a phase change.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <sbridge/sbridge.h>

static atomic64_t sbridge_fake_reads = ATOMIC64_INIT(0);
static int force;
module_param(force, int, 0644);
MODULE_PARM_DESC(force, "0: by comm (chase* memory-bound), 1: all compute, 2: all memory");

static void sbridge_fake_read_delta(unsigned int cpu, struct sbridge_counts *d)
{
	/* Called from the core's switch or tick hook: current is charged. */
	int f = READ_ONCE(force);
	bool mem = f ? f == 2 : !strncmp(current->comm, "chase", 5);

	atomic64_inc(&sbridge_fake_reads);
	d->valid = SBRIDGE_EV_CYCLES | SBRIDGE_EV_INSTRUCTIONS |
		   SBRIDGE_EV_LLC_MISSES;
	d->cycles = 1000000;
	d->instructions = 500000;
	/* 10000 misses x 80 cycles (80 ns at the 1 GHz default) = 0.8 M. */
	d->llc_misses = mem ? 10000 : 0;
	d->stall_cycles = 0;
}

/*
 * A clock, as a real source measures one: 1 GHz on every CPU, so a window's
 * time is its cycles (same counts on every type: speedup 1.0 measured).
 */
static u32 sbridge_fake_khz(unsigned int cpu)
{
	return 1000000;
}

static const struct sbridge_source_ops sbridge_fake_ops = {
	.name = "fake",
	.owner = THIS_MODULE,
	.events = SBRIDGE_EV_CYCLES | SBRIDGE_EV_INSTRUCTIONS |
		  SBRIDGE_EV_LLC_MISSES,
	.read_delta = sbridge_fake_read_delta,
	.effective_khz = sbridge_fake_khz,
	.mem_latency_ns = 80,
};

static int __init sbridge_fake_init(void)
{
	if (sbridge_api_version() != SBRIDGE_API_VERSION)
		return -EINVAL;
	return sbridge_register_source(&sbridge_fake_ops);
}

static void __exit sbridge_fake_exit(void)
{
	sbridge_unregister_source(&sbridge_fake_ops);
	pr_info("%lld reads\n", (long long)atomic64_read(&sbridge_fake_reads));
}

module_init(sbridge_fake_init);
module_exit(sbridge_fake_exit);
MODULE_DESCRIPTION("sbridge test: synthetic counter source");
MODULE_LICENSE("GPL");
