/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The S-Bridge load model (Zhao, Hao, Zhai, Li: "S-Bridge: CPU Load
 * Balancing Agent for Performance Asymmetric Multicore Processors",
 * Journal of Software 31(9), 2020; section 3.2, eqs. 1-3) plus phase
 * tracking and core-type grouping, as pure integer arithmetic with no
 * kernel dependency: the same model.c is built into the module and into
 * the host unit tests (tests/unit/).
 *
 * Fixed point: SBRIDGE_FP_ONE (1024) == 1.0 throughout.
 */
#ifndef _SBRIDGE_CORE_MODEL_H
#define _SBRIDGE_CORE_MODEL_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#include <stdbool.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
#endif
#include <uapi/linux/sbridge.h>

/* CPI_B share buckets: the paper's 0.1 steps. */
#define SBRIDGE_SHARE_BUCKETS	10
/* A share not known (no window on that core type). */
#define SBRIDGE_SHARE_UNKNOWN	0xffff

/**
 * struct sbridge_window - counter deltas gathered for one model sample
 * @cycles: core cycles
 * @instr: retired instructions
 * @misses: last-level cache misses (saturating: past 2^32 misses the
 *	stall is the whole window anyway)
 * @stall: backend stall cycles (used when misses are not available;
 *	saturating, so a window of more than 2^32 stalled cycles, seconds on
 *	one read, counts that many)
 *
 * No locking of its own: embedded in a structure whose rules apply.
 * 24 bytes: a task's entry holds one.
 */
struct sbridge_window {
	u64 cycles;
	u64 instr;
	u32 misses;
	u32 stall;
};

/**
 * struct sbridge_cpi - one CPI stack (all fixed point)
 * @cpi: cycles per instruction
 * @cpi_stall: stall CPI (eq. 2), at most @cpi
 * @cpi_base: @cpi - @cpi_stall (eq. 1)
 * @share: CPI_B share, @cpi_base / @cpi, in [0, SBRIDGE_FP_ONE]
 * @share_q: @share rounded to the nearest 0.1
 *
 * Plain value, no locking.
 */
struct sbridge_cpi {
	u32 cpi;
	u32 cpi_stall;
	u32 cpi_base;
	u32 share;
	u32 share_q;
};

/**
 * struct sbridge_phase - phase tracker over a task's CPI_B share
 * @cen: centroid of each known phase on each core type: its quantised
 *	share as a 0.1 bucket plus 1 (0: not seen on that type). The same
 *	code shows a different share on a core with a larger cache or another
 *	clock, so a phase is one identity with a centroid per type: the key
 *	does not depend on the core type a window ran on
 * @nphases: phases known (0 until the first sample)
 * @cur: current phase index
 * @cand: candidate centroid (bucket + 1) while it is being confirmed
 * @cand_type: core type the candidate's windows ran on
 * @cand_count: consecutive windows seen at @cand
 * @next_slot: round-robin victim when all SBRIDGE_MAX_PHASES are used
 *
 * A phase changes only after the new share held for N consecutive
 * windows on one core type (hysteresis), so that one noisy window does
 * not flip it. A migration is not a phase change: the first window on a
 * type the current phase has no centroid for becomes that centroid.
 * No locking of its own: one writer (the task's CPU).
 */
struct sbridge_phase {
	u8 cen[SBRIDGE_MAX_PHASES][SBRIDGE_MAX_CORE_TYPES];
	u8 nphases;
	u8 cur;
	u8 cand;
	u8 cand_type;
	u8 cand_count;
	u8 next_slot;
};

u32 sbridge_model_penalty_cycles(u32 mem_latency_ns, u32 khz);
int sbridge_model_cpi(const struct sbridge_window *w, u32 penalty_cycles,
		      struct sbridge_cpi *out);
u32 sbridge_model_quantise(u32 share);
u32 sbridge_model_cap_ratio(u32 cap_ref, u32 cap_j);
u32 sbridge_model_factor(u32 c, u32 cap_ratio, u32 share_i, u32 share_m);
u32 sbridge_model_clamp(u64 factor);
bool sbridge_phase_update(struct sbridge_phase *ph, unsigned int type,
			  u32 share_q, u32 delta, u32 nwin, u32 gain);
u32 sbridge_phase_share(const struct sbridge_phase *ph, unsigned int phase,
			unsigned int type);
u8 sbridge_phase_bucket(u32 share_q);
u32 sbridge_model_wavg(u32 old, u32 old_w, u32 val, u32 w);
int sbridge_group_types(const u32 *cap, unsigned int n, u8 *type,
			u32 *type_cap, unsigned int max_types);

#endif /* _SBRIDGE_CORE_MODEL_H */
