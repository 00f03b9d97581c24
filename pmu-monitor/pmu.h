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
 * SBRIDGE_EV_* flag for the core. The first four are the CPI stack's,
 * pinned; the instruction-class kinds from SBRIDGE_PMU_FIRST_MIX on are
 * flexible (perf rotates them when counters run short) and opened only on
 * PMUs known to count the classes (Arm PMUv3, the rig) or given by
 * raw_events=.
 */
enum sbridge_pmu_kind {
	SBRIDGE_PMU_CYCLES,
	SBRIDGE_PMU_INSTRUCTIONS,
	SBRIDGE_PMU_LLC_MISSES,
	SBRIDGE_PMU_STALL,
	SBRIDGE_PMU_LDST,
	SBRIDGE_PMU_DP,
	SBRIDGE_PMU_ASE,
	SBRIDGE_PMU_VFP,
	SBRIDGE_PMU_BR,
	SBRIDGE_PMU_NR_KINDS,
};

#define SBRIDGE_PMU_FIRST_MIX	SBRIDGE_PMU_LDST
/* Kinds a CPU needs for SBRIDGE_EV_MIX; and one of ASE, VFP at least. */
#define SBRIDGE_PMU_MIX_NEED	(BIT(SBRIDGE_PMU_LDST) | BIT(SBRIDGE_PMU_DP) | \
				 BIT(SBRIDGE_PMU_BR))
#define SBRIDGE_PMU_MIX_FP	(BIT(SBRIDGE_PMU_ASE) | BIT(SBRIDGE_PMU_VFP))

/* main.c: the mix= parameter (count instruction classes where possible) */
extern bool sbridge_pmu_mix;
/* main.c: the kernel= parameter (count kernel mode too; default user only) */
extern bool sbridge_pmu_kernel;
extern unsigned int sbridge_pmu_mix_every;

/* Names used in raw_events= and in the `events` report. */
extern const char * const sbridge_pmu_kind_name[SBRIDGE_PMU_NR_KINDS];
extern const u32 sbridge_pmu_kind_ev[SBRIDGE_PMU_NR_KINDS];

/* counters.c */
int sbridge_pmu_parse_raw_events(const char *spec);
int sbridge_pmu_counters_init(void);
void sbridge_pmu_counters_exit(void);
u32 sbridge_pmu_events_everywhere(void);
bool sbridge_pmu_mix_complete(u32 mask);
int sbridge_pmu_format_events(char *buf, size_t len);
int sbridge_pmu_format_table(char *buf, size_t len);
int sbridge_pmu_format_counts(char *buf, size_t len);
void sbridge_pmu_read_delta(unsigned int cpu, struct sbridge_counts *delta);
bool sbridge_pmu_cpu_pmu(unsigned int cpu, char *name, size_t name_len,
			 char *chain, size_t chain_len);

/* freq.c */
int sbridge_pmu_freq_init(void);
void sbridge_pmu_freq_exit(void);
u32 sbridge_pmu_effective_khz(unsigned int cpu);
u32 sbridge_pmu_clock(unsigned int cpu, const char **name);
const char *sbridge_pmu_freq_source(void);

/* latency.c */
int sbridge_pmu_calibrate_latency(void);

#endif /* _SBRIDGE_PMU_H */
