// SPDX-License-Identifier: GPL-2.0
/*
 * The one file that instantiates sbridge's trace events (trace.h): the
 * tracepoints, their tracefs entries under events/sbridge/ and their
 * output formats. The call sites only include trace.h.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
