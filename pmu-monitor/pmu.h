/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sbridge_pmu internals shared by main.c, counters.c, freq.c, latency.c.
 */
#ifndef _SBRIDGE_PMU_H
#define _SBRIDGE_PMU_H

#include <linux/types.h>
#include <sbridge/sbridge.h>

/*
 * Counter kinds: the events the core's model reads, nothing more (every
 * open counter takes one of a core's few). Masks of kinds (BIT(kind))
 * stay inside this module; sbridge_pmu_kind_ev[] gives each kind's
 * SBRIDGE_EV_* flag for the core.
 */
enum sbridge_pmu_kind {
	SBRIDGE_PMU_CYCLES,
	SBRIDGE_PMU_INSTRUCTIONS,
	SBRIDGE_PMU_LLC_MISSES,
	SBRIDGE_PMU_STALL,
	SBRIDGE_PMU_NR_KINDS,
};

/* Names used in raw_events= and in the `events` report. */
extern const char * const sbridge_pmu_kind_name[SBRIDGE_PMU_NR_KINDS];
extern const u32 sbridge_pmu_kind_ev[SBRIDGE_PMU_NR_KINDS];

/* counters.c */
int sbridge_pmu_parse_raw_events(const char *spec);
int sbridge_pmu_counters_init(void);
void sbridge_pmu_counters_exit(void);
u32 sbridge_pmu_events_everywhere(void);
int sbridge_pmu_format_events(char *buf, size_t len);
int sbridge_pmu_format_counts(char *buf, size_t len);
void sbridge_pmu_read_delta(unsigned int cpu, struct sbridge_counts *delta);

/* freq.c */
int sbridge_pmu_freq_init(void);
void sbridge_pmu_freq_exit(void);
u32 sbridge_pmu_effective_khz(unsigned int cpu);
u32 sbridge_pmu_clock(unsigned int cpu, const char **name);
const char *sbridge_pmu_freq_source(void);

/* latency.c */
int sbridge_pmu_calibrate_latency(void);

#endif /* _SBRIDGE_PMU_H */
