/* SPDX-License-Identifier: GPL-2.0 */
/* A helper both trace headers (trace.h, trace_act.h) use when recording. */
#ifndef _SBRIDGE_CORE_TRACE_FP_H
#define _SBRIDGE_CORE_TRACE_FP_H

#include <linux/minmax.h>
#include <linux/limits.h>
#include "model.h"

/* Fixed point (1024 == 1.0) to thousandths, rounded to nearest. */
static inline u32 sbridge_tp_milli(u64 fp)
{
	return (u32)min_t(u64, (fp * 1000 + SBRIDGE_FP_ONE / 2) >> SBRIDGE_FP_SHIFT,
			  U32_MAX);
}

#endif /* _SBRIDGE_CORE_TRACE_FP_H */
