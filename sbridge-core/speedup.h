/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The big/little speedup estimator as pure integer arithmetic, with no
 * kernel dependency (as model.h): the same speedup.c is built into the
 * module and into the host unit tests (tests/unit/).
 *
 * A task's speedup of a fast core type over a slow one is measured as the
 * ratio of its time per instruction (tpi) on the slow type to that on the
 * fast type, in the same phase, from warm windows only, and predicted from
 * its CPI stack while the measurement is thin. Each value comes with its
 * standard error, so a prediction, the task's own measurement and what
 * its workload measured before (the matrix) combine by inverse variance,
 * and the decision layer can tell which estimates are uncertain enough to
 * be worth a sampling swap. docs/estimate.md has the reasoning.
 *
 * Fixed point: SBRIDGE_FP_ONE (1024) == 1.0, as in model.h.
 */
#ifndef _SBRIDGE_CORE_SPEEDUP_H
#define _SBRIDGE_CORE_SPEEDUP_H

#include "model.h"

/*
 * Time per instruction is measured in 1/16 ps (a 3 GHz core at IPC 4 is
 * 1333 of them; the rig's paced 24 MHz core at CPI 10 some 6.7e6) and
 * kept as its base-2 logarithm in 1/128 (SBRIDGE_LG_ONE): 12 bits cover
 * 1/16 ps to 268 us per instruction in steps of 0.54 %. Means in the log
 * domain are geometric means, so the ratio of two types' means is the
 * mean ratio, and a speedup is one subtraction and one power of two.
 */
#define SBRIDGE_TPI_PER_NS	16000ULL
#define SBRIDGE_LG_SHIFT	7
#define SBRIDGE_LG_ONE		(1U << SBRIDGE_LG_SHIFT)
#define SBRIDGE_LG_MAX		4095U

/*
 * A task's accumulator cell (u16, so a lockless reader sees a whole one):
 * the mean log tpi of its warm windows on one core type in one phase
 * (bits 0-11) and how many windows are behind it (bits 12-15, saturating
 * at 15). The mean is a plain mean over the first SBRIDGE_EST_HIST
 * windows, then exponential with weight 1/SBRIDGE_EST_HIST. 0 is empty.
 */
#define SBRIDGE_TCELL_N_SHIFT	12
#define SBRIDGE_TCELL_N_MAX	15
#define SBRIDGE_EST_HIST	16

/* Relative standard error no measurement goes below: 3 % (fp). */
#define SBRIDGE_EST_BIAS	31
/* Window dispersion assumed at least: 9/128 of log2, about 5 %. */
#define SBRIDGE_EST_DEV_FLOOR	9
/*
 * Warm windows a phase needs on each of two types before their ratio is
 * a measurement: one window cannot be told from a transient (a table
 * cleared, a burst of kernel work), and says nothing of its spread.
 */
#define SBRIDGE_EST_MIN_WIN	2

/**
 * struct sbridge_acc - an accumulator, unpacked
 * @lg: mean log2 of the time per instruction, in 1/SBRIDGE_LG_ONE
 * @n: samples behind it (windows; for a workload in the matrix, the
 *	visits and runs its windows came from); 0 is empty
 * @dev: mean absolute deviation of a sample's @lg from the mean (the
 *	relative spread), in 1/SBRIDGE_LG_ONE of log2, saturating at 255
 *
 * A plain value: no locking.
 */
struct sbridge_acc {
	u32 lg;
	u32 n;
	u32 dev;
};

/**
 * enum sbridge_win_kind - what a closed model window is good for
 * @SBRIDGE_WIN_STARTUP: the task's start-up after exec (or fork): kept
 *	apart from every steady phase, never measured
 * @SBRIDGE_WIN_COLD: right after a migration or exec, while caches refill:
 *	counted, never measured
 * @SBRIDGE_WIN_WARM: a steady window: phases and throughput learn from it
 */
enum sbridge_win_kind {
	SBRIDGE_WIN_STARTUP,
	SBRIDGE_WIN_COLD,
	SBRIDGE_WIN_WARM,
};

/* A window a migration cuts is sampled from this fraction of a full one. */
#define SBRIDGE_WIN_CUT_DIV	8

/* Unit of struct sbridge_warm's @left, in instructions. */
#define SBRIDGE_WARM_UNIT	1024

/**
 * struct sbridge_warm - warm-up state of one task
 * @left: instructions still to skip before a window can be warm, in
 *	SBRIDGE_WARM_UNIT
 * @mpm: LLC misses per million instructions of the last window, saturating
 *	at 0xffff (0 when no miss counter)
 * @extra: windows skipped after @left ran out because the miss rate had
 *	not settled yet
 * @visited: this stay on a core type gave a warm window (a visit counted)
 *
 * No locking of its own: one writer (the task's own CPU, see sample.c).
 */
struct sbridge_warm {
	u16 left;
	u16 mpm;
	u8 extra;
	u8 visited;
};

/* Windows skipped at most beyond the warm-up instructions. */
#define SBRIDGE_WARM_EXTRA_MAX	4
/*
 * A miss refills one line: it counts as this many instructions of
 * warm-up, so the default 2 M instructions equal 32 Ki misses, the lines
 * of a 2 MiB last-level cache.
 */
#define SBRIDGE_WARM_MISS	64

/**
 * struct sbridge_est_state - what a task learns of its own speed
 * @ph: phase tracker (model.h)
 * @warm: warm-up state after the last migration or exec
 * @cell: accumulator cell per core type and phase (the mean log time per
 *	instruction of its warm windows there, and how many)
 * @dev: spread of the warm windows around their cell's mean, per type
 * @visits: stays on each core type that gave a warm window (saturating)
 * @warm_n: warm windows per core type (wrapping)
 * @ph_n: warm windows per phase (wrapping)
 *
 * Embedded in a task's entry. One writer: the task's own CPU (switch and
 * runtime probes) or its exec; readers elsewhere read each cell and
 * counter whole (READ_ONCE()).
 */
struct sbridge_est_state {
	struct sbridge_phase ph;
	struct sbridge_warm warm;
	u16 cell[SBRIDGE_MAX_CORE_TYPES][SBRIDGE_MAX_PHASES];
	u8 dev[SBRIDGE_MAX_CORE_TYPES];
	u8 visits[SBRIDGE_MAX_CORE_TYPES];
	u8 warm_n[SBRIDGE_MAX_CORE_TYPES];
	u8 ph_n[SBRIDGE_MAX_PHASES];
};

/**
 * struct sbridge_est - one speedup estimate
 * @val: speedup of the fast type over the slow one (fp), 0 if none
 * @err: its standard error, absolute (fp), 0 if none
 * @n: samples behind a measurement on the less-sampled type; 0 for a
 *	prediction
 *
 * A plain value: no locking.
 */
struct sbridge_est {
	u32 val;
	u32 err;
	u32 n;
};

/**
 * struct sbridge_est_how - how a task's two core types are compared
 * @shift: learn.tpi_shift (sbridge_est_accs())
 * @share_tol: learn.share_tol (sbridge_shares_agree())
 * @gain: what a non-stalled cycle gains on the fast type, minus 1 (fp)
 *
 * A plain value: no locking.
 */
struct sbridge_est_how {
	u32 shift;
	u32 share_tol;
	u32 gain;
};

u32 sbridge_lg(u64 x);
u64 sbridge_lg_exp(u32 lg);
u32 sbridge_lg_ratio(u32 lg_num, u32 lg_den);
u16 sbridge_tcell_add(u16 cell, u32 lg, u8 *dev);
void sbridge_tcell_get(u16 cell, u8 dev, struct sbridge_acc *a);
void sbridge_acc_fold(struct sbridge_acc *a, const struct sbridge_acc *from,
		      u32 k, u32 hist);
u64 sbridge_window_tpi(const struct sbridge_window *w, u64 stall,
		       u32 khz_eff, u32 khz_ref);
u32 sbridge_clock_khz(u64 cycles, u64 ns);
bool sbridge_win_full(const struct sbridge_window *win, u32 instr, u32 us,
		      u32 khz);
bool sbridge_win_cut_ok(const struct sbridge_window *win, u32 instr, u32 us,
			u32 khz);
void sbridge_warm_reset(struct sbridge_warm *w, u32 instr);
enum sbridge_win_kind sbridge_warm_classify(struct sbridge_warm *w,
					    const struct sbridge_window *win,
					    bool has_misses);
void sbridge_est_reset(struct sbridge_est_state *st, u32 warm_instr);
void sbridge_est_arrive(struct sbridge_est_state *st, bool new_type,
			u32 warm_instr);
enum sbridge_win_kind sbridge_est_classify(struct sbridge_est_state *st,
					   const struct sbridge_window *win,
					   bool has_misses, bool startup);
bool sbridge_est_warm(struct sbridge_est_state *st, unsigned int type,
		      u32 share_q, u64 tpi, u32 delta, u32 nwin, u32 gain);
void sbridge_est_accs(const struct sbridge_est_state *st, unsigned int type,
		      u32 shift, struct sbridge_acc *a);
bool sbridge_shares_agree(u32 fast, u32 slow, u32 gain, u32 tol);
int sbridge_est_own(const struct sbridge_est_state *st, unsigned int fast,
		    unsigned int slow, const struct sbridge_est_how *how,
		    struct sbridge_est *out);
int sbridge_est_measure(const struct sbridge_acc *fast,
			const struct sbridge_acc *slow, unsigned int nph,
			unsigned int cur, u32 visits, struct sbridge_est *out);
/*
 * The highest speedup the core types can explain (fp): a non-stalled
 * cycle gaining at most twice what their nominal factors say, 1 + @gain;
 * the lowest is 1. sbridge_task_bound() doubts a measurement outside,
 * sbridge_memfit_result() keeps the compute factor inside.
 */
#define SBRIDGE_EST_PLAUSIBLE_HI(gain)	(SBRIDGE_FP_ONE + 2ULL * (gain))
void sbridge_est_bound(struct sbridge_est *e, u32 lo, u32 hi, u32 visits);
u64 sbridge_est_weight(const struct sbridge_est *e);
void sbridge_est_combine(const struct sbridge_est *a,
			 const struct sbridge_est *b, struct sbridge_est *out);
u32 sbridge_est_predict(u32 share, bool on_fast, u32 gain);
void sbridge_est_unknown(u32 gain, u32 rel_err, struct sbridge_est *out);
u32 sbridge_share_on_fast(u32 share, u32 gain);
u64 sbridge_isqrt(u64 x);

/*
 * How the memory part of a task's time scales from a fast core type to a
 * slow one, learned per board from the workloads measured on both
 * (sbridge_memfit_*()): the same phase's stalls can shrink on a fast core
 * with a larger cache or more misses in flight (the ratio above the CPU
 * factor), stay (memory latency), or grow less than the compute part
 * (bandwidth). Fixed point: x and y in Q16 (SBRIDGE_MEMFIT_ONE); a
 * sample's weight is 1 .. SBRIDGE_MEMFIT_W_MAX; at most
 * SBRIDGE_MEMFIT_MAX samples a fit, so the sums stay within 2^60.
 */
#define SBRIDGE_MEMFIT_SHIFT	16
#define SBRIDGE_MEMFIT_ONE	(1U << SBRIDGE_MEMFIT_SHIFT)
#define SBRIDGE_MEMFIT_W_MAX	16
#define SBRIDGE_MEMFIT_MAX	256
/* A sample stalled for less than a tenth of its time says little: not counted. */
#define SBRIDGE_MEMFIT_X_MIN	(SBRIDGE_MEMFIT_ONE / 10)

/**
 * struct sbridge_memfit - a weighted least-squares fit on two regressors
 * @sss: sum of w s^2
 * @ssx: sum of w s x
 * @sxx: sum of w x^2
 * @sys: sum of w s y
 * @syx: sum of w x y
 * @syy: sum of w y^2
 * @n: samples with x >= SBRIDGE_MEMFIT_X_MIN (workloads that stall)
 * @m: samples added, at most SBRIDGE_MEMFIT_MAX
 *
 * s is a phase's CPI_B share on the side it was seen, x = 1 - s its
 * stalled share, y its measured speedup (seen on the fast type) or the
 * inverse (on the slow type); the coefficients are the compute factor and
 * the memory ratio (sbridge_memfit_add()). A value of its builder's: no
 * locking.
 */
struct sbridge_memfit {
	u64 sss;
	u64 ssx;
	u64 sxx;
	s64 sys;
	s64 syx;
	u64 syy;
	u32 n;
	u32 m;
};

/**
 * struct sbridge_memrate - how a phase's parts scale, for a prediction
 * @comp: seen on the fast type: the compute part's time on the slow type
 *	over the fast type's (fp); seen on the slow type: its inverse
 * @coef: the same of the memory part (rho; seen on the slow type 1 /
 *	rho), 0 unknown
 * @err: standard error of @coef for a task not in the fit (fp)
 * @n: workloads behind it, 0 for none (a calibrated or the default value)
 *
 * A plain value: no locking.
 */
struct sbridge_memrate {
	u32 comp;
	u32 coef;
	u32 err;
	u32 n;
};
void sbridge_memfit_add(struct sbridge_memfit *f, u32 share, bool on_fast,
			const struct sbridge_est *sp);
void sbridge_memfit_result(const struct sbridge_memfit *f, bool on_fast,
			   u32 gain, struct sbridge_memrate *r);
void sbridge_memrate_default(bool on_fast, u32 gain, u32 ratio,
			     struct sbridge_memrate *r);
void sbridge_est_predict_mem(u32 share, bool on_fast, u32 gain,
			     const struct sbridge_memrate *r, u32 rel_err,
			     struct sbridge_est *out);
#endif /* _SBRIDGE_CORE_SPEEDUP_H */
