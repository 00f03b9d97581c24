/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rig_pmu.h - what rig_pmu.ko exports to rig_cpufreq.ko: the rig's clocks.
 * Test equipment, not part of the sbridge product.
 */
#ifndef RIG_PMU_H
#define RIG_PMU_H

#include <linux/compiler.h>

/**
 * struct rig_pmu_clock_ops - the holder of the rig's clocks
 * @name: shown when the freq file refuses a write
 * @gone: the rig device is going away: stop using the page (unregister);
 *	process context, may sleep; must not call rig_pmu_clock_release()
 */
struct rig_pmu_clock_ops {
	const char *name;
	void (*gone)(const struct rig_pmu_clock_ops *ops);
};

int rig_pmu_clock_claim(const struct rig_pmu_clock_ops *ops);
void rig_pmu_clock_release(const struct rig_pmu_clock_ops *ops);
void __iomem *rig_pmu_cpu_rec(unsigned int cpu);
void __iomem *rig_pmu_hdr(void);

#endif /* RIG_PMU_H */
