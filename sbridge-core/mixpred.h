/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction-mix predictor of a task's big/little speedup, as pure
 * integer arithmetic with no kernel dependency (as model.h): the same
 * mixpred.c is built into the module and into the host unit tests.
 *
 * Where the counter source counts instruction classes (enum sbridge_mix),
 * each core type's compute CPI is predicted as a linear function of the
 * task's class shares, with per-board coefficients fitted offline
 * (tools/mixfit.py), and the memory-stall part of the CPI stack is added
 * as the time it takes (memory latency does not scale with the core):
 *
 *	CPI_t   = sum over terms k of cpi[t][k] x share_k   (k 0: other)
 *	speedup = (CPI_slow x clock + stall_f) / (CPI_fast + stall_f)
 *
 * with clock the fast type's clock over the slow type's and stall_f the
 * stall CPI measured, in the fast type's cycles. docs/estimate.md has the
 * reasoning.
 */
#ifndef _SBRIDGE_CORE_MIXPRED_H
#define _SBRIDGE_CORE_MIXPRED_H

#include "model.h"

/* A class share: 1.0 == SBRIDGE_MIX_ONE instructions per instruction. */
#define SBRIDGE_MIX_SHIFT	15
#define SBRIDGE_MIX_ONE		(1U << SBRIDGE_MIX_SHIFT)
/* Terms of the linear model: "other" (term 0), then each class. */
#define SBRIDGE_MIX_TERMS	(SBRIDGE_MIX_NR + 1)
/* Coefficient bounds: CPI per term (fp), clock ratio (fp), error (fp). */
#define SBRIDGE_MIX_CPI_MAX	(64 * SBRIDGE_FP_ONE)
#define SBRIDGE_MIX_CLOCK_MIN	(SBRIDGE_FP_ONE / 8)
#define SBRIDGE_MIX_CLOCK_MAX	(8 * SBRIDGE_FP_ONE)
#define SBRIDGE_MIX_ERR_MIN	10
#define SBRIDGE_MIX_ERR_MAX	(4 * SBRIDGE_FP_ONE)
/*
 * The classes must account for between half and one and a half of the
 * instructions, else they are not what they claim (a PMU that accepts
 * an event it does not implement counts 0; speculative counts overshoot)
 * and the task's prediction stays eq. 3's.
 */
#define SBRIDGE_MIX_COVER_MIN	(SBRIDGE_MIX_ONE / 2)
#define SBRIDGE_MIX_COVER_MAX	(SBRIDGE_MIX_ONE + SBRIDGE_MIX_ONE / 2)

/**
 * struct sbridge_mixcoef - the mix predictor's coefficients for one pair
 *	of core types
 * @cpi: compute CPI (fp) of each term, [0] on the fast type, [1] on the
 *	slow one; term 0 is the instructions in no class, then enum
 *	sbridge_mix order
 * @clock: the fast type's clock over the slow type's (fp)
 * @err: relative standard error of a prediction (fp), from the fit's
 *	residuals; it weighs the prediction against measurements
 *
 * A plain value, validated by sbridge_mixcoef_check(); no locking.
 */
struct sbridge_mixcoef {
	u32 cpi[2][SBRIDGE_MIX_TERMS];
	u32 clock;
	u32 err;
};

void sbridge_mix_update(u16 *mix, const u64 *cls, u64 instr, u32 hist);
bool sbridge_mix_known(const u16 *mix);
u32 sbridge_mix_cpi(const u32 *cpi, const u16 *mix);
u32 sbridge_mix_predict(const struct sbridge_mixcoef *c, const u16 *mix,
			u32 cpi_stall, bool on_fast, u32 scale, u32 *mem);
int sbridge_mixcoef_check(const struct sbridge_mixcoef *c);
int sbridge_mixcoef_parse(const char *line, unsigned int *fast,
			  unsigned int *slow, struct sbridge_mixcoef *c);

#endif /* _SBRIDGE_CORE_MIXPRED_H */
