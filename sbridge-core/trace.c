// SPDX-License-Identifier: GPL-2.0
/*
 * The one file that instantiates the model's trace events (trace.h):
 * sbridge_window and sbridge_phase, their tracefs entries under
 * events/sbridge/ and their output formats (trace_act.c: layer 4's).
 * The call sites only include trace.h.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
