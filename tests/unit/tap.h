/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output shared by the host unit tests: CHECK() prints one numbered
 * "ok"/"not ok" line, EQ() compares integers, TAP_DONE() prints the plan
 * and returns the exit status.
 */
#ifndef SBRIDGE_TEST_TAP_H
#define SBRIDGE_TEST_TAP_H

#include <stdio.h>

static int n_ok, n_fail;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		n_ok++;							\
		printf("ok %d - ", n_ok + n_fail);			\
	} else {							\
		n_fail++;						\
		printf("not ok %d - ", n_ok + n_fail);			\
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

#define EQ(got, want, what) do {					\
	unsigned long long g_ = (got), w_ = (want);			\
	CHECK(g_ == w_, "%s: got %llu want %llu", what, g_, w_);	\
} while (0)

#define TAP_DONE() ({							\
	printf("1..%d\n# %d passed, %d failed\n",			\
	       n_ok + n_fail, n_ok, n_fail);				\
	n_fail ? 1 : 0;							\
})

#endif
