// SPDX-License-Identifier: GPL-2.0
/*
 * The decision layer's core: fast-core time shares by water-filling and a
 * deficit that realises them. No kernel dependency on purpose (plan.h):
 * tests/unit/ builds this very file on the host and simulates it.
 *
 * Units (fixed point, SBRIDGE_FP_ONE == 1.0): CPU time in CPUs, work in
 * little-core CPUs (a task's work rate is what it gets done per second,
 * counted in seconds of a slow core), a task's fast time as the fraction
 * of its time it spends on the fast cores.
 */
#ifdef __KERNEL__
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/math64.h>
#include <linux/string.h>
#define SBRIDGE_DIV64(a, b)	div64_u64((a), (b))
#else
#include <string.h>
#define SBRIDGE_DIV64(a, b)	((a) / (b))
#endif
#include "plan.h"

#define FP	SBRIDGE_FP_ONE

static u64 sbridge_plan_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

static bool sbridge_plan_saturated(const struct sbridge_plan_task *t)
{
	return t->busy >= SBRIDGE_PLAN_SATURATED;
}

/* What it asks of a slow CPU: a whole one if CPU-bound. */
static u32 sbridge_plan_ds(const struct sbridge_plan_task *t)
{
	if (sbridge_plan_saturated(t))
		return FP;
	if (!t->on_fast)
		return t->busy;
	return (u32)sbridge_plan_min(((u64)t->busy * t->s) >> SBRIDGE_FP_SHIFT, FP);
}

/* What it asks of a fast CPU: a whole one if CPU-bound. */
static u32 sbridge_plan_df(const struct sbridge_plan_task *t)
{
	if (sbridge_plan_saturated(t))
		return FP;
	if (t->on_fast || t->s <= FP)
		return t->busy;
	return (u32)SBRIDGE_DIV64((u64)t->busy << SBRIDGE_FP_SHIFT, t->s);
}

static bool sbridge_plan_wants(const struct sbridge_plan *pl,
			       const struct sbridge_plan_task *t)
{
	if (t->want == SBRIDGE_PW_BIG)
		return true;
	return t->want == SBRIDGE_PW_AUTO && t->s >= FP + pl->gain;
}

/*
 * Could it want the fast type, as far as its estimate's error tells (within
 * act.margin of it)? The wanting threshold is a line drawn through noisy
 * estimates as much as a level is: on the rig, estimates that fell below
 * it were mostly of programs that gain twice (docs/policy.md, step 5).
 */
static bool sbridge_plan_could_want(const struct sbridge_plan *pl,
				    const struct sbridge_plan_task *t)
{
	if (sbridge_plan_wants(pl, t))
		return true;
	return t->want == SBRIDGE_PW_AUTO && t->err &&
	       (u64)t->s + (((u64)t->err * pl->margin) >> SBRIDGE_FP_SHIFT) >=
	       (u64)FP + pl->gain;
}

/* May the task have fast time at all (to fill what would idle)? */
static bool sbridge_plan_may(const struct sbridge_plan_task *t)
{
	return t->want == SBRIDGE_PW_BIG ||
	       (t->want != SBRIDGE_PW_LITTLE && t->s > FP);
}

/* Priority for fast time: rules, then the wanting, then the rest, by speedup. */
static s64 sbridge_plan_prio(const struct sbridge_plan *pl,
			     const struct sbridge_plan_task *t)
{
	if (t->want == SBRIDGE_PW_BIG)
		return ((s64)3 << 40) + t->s;
	if (sbridge_plan_wants(pl, t))
		return ((s64)2 << 40) + t->s;
	if (t->want == SBRIDGE_PW_IDLE)
		return t->s;
	return ((s64)1 << 40) + t->s;
}

/* Sorts @order[0..@n) by @key descending (insertion: at most 64). */
static void sbridge_plan_sort(u8 *order, unsigned int n, const s64 *key)
{
	unsigned int i, j;
	u8 v;

	for (i = 1; i < n; i++) {
		v = order[i];
		for (j = i; j > 0 && key[order[j - 1]] < key[v]; j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
}

/*
 * The max-min fair level of @cap CPUs shared by @n tasks asking @d[i]
 * each with nice weight @w[i]: a task asking less than the level times its
 * weight gets what it asks, the others the level times their weight. Both
 * arrays are reordered (ascending by @d / @w). Return: the level per unit
 * of weight (fp: CPUs x FP / weight), large when everyone gets what it
 * asks.
 */
static u64 sbridge_plan_level(u32 *d, u32 *w, unsigned int n, u64 cap)
{
	u64 wsum = 0, lvl;
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		u32 v = d[i], vw = w[i];

		for (j = i; j > 0 && (u64)d[j - 1] * vw > (u64)v * w[j - 1]; j--) {
			d[j] = d[j - 1];
			w[j] = w[j - 1];
		}
		d[j] = v;
		w[j] = vw;
	}
	for (i = 0; i < n; i++)
		wsum += w[i];
	for (i = 0; i < n; i++) {
		lvl = SBRIDGE_DIV64(cap * FP, wsum ? wsum : 1);
		if ((u64)d[i] * FP > lvl * w[i])
			return lvl;
		cap = cap > d[i] ? cap - d[i] : 0;
		wsum -= w[i];
	}
	return (u64)FP * FP * FP;
}

/*
 * CPU shares on the whole board, max-min fair by nice weight as CFS gives
 * them: the reference for each task's equal share.
 */
static void sbridge_plan_shares(const struct sbridge_plan *pl,
				struct sbridge_plan_task *t, unsigned int n,
				struct sbridge_plan_scratch *sc)
{
	u64 cap = (u64)(pl->nfast + pl->nslow) * FP, lvl;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sc->dem[i] = sbridge_plan_ds(&t[i]);
		sc->wgt[i] = t[i].weight ? t[i].weight : 1;
	}
	lvl = sbridge_plan_level(sc->dem, sc->wgt, n, cap);
	for (i = 0; i < n; i++) {
		u64 w = t[i].weight ? t[i].weight : 1;

		t[i].c = (u32)sbridge_plan_min(sbridge_plan_ds(&t[i]),
					       (lvl * w) >> SBRIDGE_FP_SHIFT);
	}
}

/*
 * Is a task better off on the fast cores with @room left there than on a
 * slow core? It would get at most @room of a fast CPU and do @room x s of
 * work, against what it does on a slow core (its share, at most its
 * demand). A fast core with less room than that is better left part idle:
 * the task would take its time from the ones there and do less itself.
 */
static bool sbridge_plan_fits(const struct sbridge_plan_task *t, u64 room)
{
	u64 slow = sbridge_plan_min(sbridge_plan_ds(t), t->c ? t->c : FP);

	return room * t->s >= slow * FP;
}

/**
 * sbridge_plan_fast_demand() - what a task takes of the fast CPUs
 * @t: the task (its CPU share @c computed)
 *
 * What it asks of a fast CPU (a whole one when CPU-bound, less by its
 * speedup than it keeps busy on a slow one otherwise), at most its share.
 *
 * Return: a share of one fast CPU (fp).
 */
u32 sbridge_plan_fast_demand(const struct sbridge_plan_task *t)
{
	return (u32)sbridge_plan_min(sbridge_plan_df(t), t->c ? t->c : FP);
}

/**
 * sbridge_plan_got() - a task's recent fast share after one more decision
 * @got: its share so far (fp)
 * @fast: it was given the fast type this time
 *
 * Return: the new share (fp), an average over about 2^SBRIDGE_PLAN_GOT_SHIFT
 *	decisions.
 */
u32 sbridge_plan_got(u32 got, bool fast)
{
	u32 v = fast ? FP : 0;

	if (got > FP)
		got = FP;
	if (v >= got)
		return got + ((v - got + (1U << SBRIDGE_PLAN_GOT_SHIFT) - 1) >>
			      SBRIDGE_PLAN_GOT_SHIFT);
	return got - ((got - v + (1U << SBRIDGE_PLAN_GOT_SHIFT) - 1) >>
		      SBRIDGE_PLAN_GOT_SHIFT);
}

/*
 * How the board would be shared if the best went fast first: the
 * max-min level of the fast CPUs among the tasks there (@lf) and of the
 * slow CPUs among the others (@ls), per unit of nice weight.
 */
static void sbridge_plan_sides(const struct sbridge_plan *pl,
			       struct sbridge_plan_task *t, unsigned int n,
			       struct sbridge_plan_scratch *sc, u64 *lf, u64 *ls)
{
	u64 room = (u64)pl->nfast * FP;
	unsigned int i, m = 0, nf = 0, ns = 0;

	for (i = 0; i < n; i++) {
		t[i].hint = SBRIDGE_HINT_SLOW;
		if (!sbridge_plan_may(&t[i]))
			continue;
		sc->order[m++] = (u8)i;
		sc->key[i] = sbridge_plan_prio(pl, &t[i]);
	}
	sbridge_plan_sort(sc->order, m, sc->key);
	for (i = 0; i < m; i++) {
		struct sbridge_plan_task *p = &t[sc->order[i]];
		u32 d = sbridge_plan_fast_demand(p);

		if (!sbridge_plan_fits(p, room))
			break;
		p->hint = SBRIDGE_HINT_FAST;
		room = room > d ? room - d : 0;
	}
	for (i = 0; i < n; i++) {
		u32 w = t[i].weight ? t[i].weight : 1;

		if (t[i].hint == SBRIDGE_HINT_FAST) {
			sc->dem[nf] = sbridge_plan_df(&t[i]);
			sc->wgt[nf++] = w;
		}
	}
	*lf = sbridge_plan_level(sc->dem, sc->wgt, nf, (u64)pl->nfast * FP);
	for (i = 0; i < n; i++) {
		u32 w = t[i].weight ? t[i].weight : 1;

		if (t[i].hint != SBRIDGE_HINT_FAST) {
			sc->dem[ns] = sbridge_plan_ds(&t[i]);
			sc->wgt[ns++] = w;
		}
	}
	*ls = sbridge_plan_level(sc->dem, sc->wgt, ns, (u64)pl->nslow * FP);
}

/*
 * The fairness floor of a task's fast time, as a fraction of its time: its
 * equal-share rate is what its CPU share c earns on an even mix of the
 * board's core types, c x (nfast x s + nslow) / (nfast + nslow), no more
 * than the work it has; it must progress at @fair of that, doing @fast
 * while fast and @slow while slow.
 */
static u32 sbridge_plan_floor(const struct sbridge_plan *pl,
			      const struct sbridge_plan_task *t, u64 fast, u64 slow)
{
	u64 ncpu = pl->nfast + pl->nslow, eq, need;

	if (!sbridge_plan_may(t) || t->want == SBRIDGE_PW_IDLE || !ncpu || fast <= slow)
		return 0;
	eq = SBRIDGE_DIV64((u64)t->c * ((u64)pl->nfast * t->s + (u64)pl->nslow * FP),
			   ncpu * FP);
	if (!sbridge_plan_saturated(t))
		eq = sbridge_plan_min(eq, sbridge_plan_ds(t));
	need = (eq * pl->fair) >> SBRIDGE_FP_SHIFT;
	if (need <= slow)
		return 0;
	need = SBRIDGE_DIV64((need - slow) << SBRIDGE_FP_SHIFT, fast - slow);
	return (u32)sbridge_plan_min(need, FP);
}

/*
 * Is @q in the level of @top (sorted after it)? The same priority class
 * and a speedup the plan cannot tell below @top's: within 1/32 of it, or
 * within act.margin of the two estimates' errors.
 */
static bool sbridge_plan_level_of(const struct sbridge_plan *pl,
				  const struct sbridge_plan_task *top,
				  const struct sbridge_plan_task *q)
{
	u64 tol = (top->s >> SBRIDGE_PLAN_TIE_SHIFT) +
		  ((((u64)top->err + q->err) * pl->margin) >> SBRIDGE_FP_SHIFT);

	return sbridge_plan_prio(pl, q) >> 40 == sbridge_plan_prio(pl, top) >> 40 &&
	       q->s + tol >= top->s;
}

/* The end of the level that starts at @order[@a] (sbridge_plan_level_of()). */
static unsigned int sbridge_plan_level_end(const struct sbridge_plan *pl,
					   const struct sbridge_plan_task *t,
					   const u8 *order, unsigned int a,
					   unsigned int m)
{
	unsigned int b;

	for (b = a + 1; b < m; b++)
		if (!sbridge_plan_level_of(pl, &t[order[a]], &t[order[b]]))
			break;
	return b;
}

/*
 * Pours @*rest of fast capacity (fp of a CPU) into the tasks
 * @order[0..@m), level by level (sbridge_plan_level_of()), the same
 * fraction of time to each in a level, none above all of its time; a unit
 * of task i's time costs @sc->cost[i] of the fast CPUs.
 */
static void sbridge_plan_pour(const struct sbridge_plan *pl,
			      struct sbridge_plan_task *t, const u8 *order,
			      unsigned int m, u64 *rest,
			      const struct sbridge_plan_scratch *sc)
{
	unsigned int a = 0, b, i;

	while (a < m && *rest) {
		b = sbridge_plan_level_end(pl, t, order, a, m);
		for (;;) {
			u64 cost = 0, step = FP, give;

			for (i = a; i < b; i++) {
				const struct sbridge_plan_task *p = &t[order[i]];

				if (p->x >= FP || !sc->cost[order[i]])
					continue;
				cost += sc->cost[order[i]];
				step = sbridge_plan_min(step, FP - p->x);
			}
			if (!cost || !*rest)
				break;
			/* the same fraction to each open task, what fits */
			give = sbridge_plan_min(step, SBRIDGE_DIV64(*rest * FP, cost));
			if (!give)
				give = 1;
			for (i = a; i < b; i++) {
				struct sbridge_plan_task *p = &t[order[i]];
				u64 c = SBRIDGE_DIV64(give * sc->cost[order[i]] + FP - 1, FP);

				if (p->x >= FP || !sc->cost[order[i]])
					continue;
				p->x += (u32)give;
				*rest = *rest > c ? *rest - c : 0;
			}
		}
		a = b;
	}
}

/*
 * Marks the levels the plan cannot choose within (SBRIDGE_WHY_TIE): two
 * tasks or more that only their estimates' errors tell apart, among which
 * the fast time is split (one gets some, one less than all of its time).
 * Turns among them would be decided by noise; the stock scheduler shares
 * them as well without the migrations, so they are left to it. Levels of
 * exact equals (a rule's or the user's factors, act.model 0: no error)
 * still take turns. Ranks each task in @sc->rank: in a level above the
 * first tie, tied, or neither (all neither when there is no tie).
 * Return: there is a tie.
 */
static bool sbridge_plan_ties(const struct sbridge_plan *pl,
			      struct sbridge_plan_task *t, const u8 *order,
			      unsigned int m, struct sbridge_plan_scratch *sc)
{
	unsigned int a, b, i;
	bool tie = false;

	memset(sc->rank, 0, sizeof(sc->rank));
	for (a = 0; pl->margin && a < m; a = b) {
		bool some = false, part = false, err = false;

		b = sbridge_plan_level_end(pl, t, order, a, m);
		for (i = a; i < b; i++) {
			const struct sbridge_plan_task *p = &t[order[i]];

			some |= p->x > 0;
			/* short of all its time by more than the pour's rounding */
			part |= p->x + (FP >> 6) < FP;
			err |= p->err > 0 && p->want != SBRIDGE_PW_BIG;
		}
		if (b - a < 2 || !some || !part || !err) {
			for (i = a; !tie && i < b; i++)
				sc->rank[order[i]] = SBRIDGE_PLAN_ABOVE;
			continue;
		}
		tie = true;
		for (i = a; i < b; i++) {
			t[order[i]].why = SBRIDGE_WHY_TIE;
			sc->rank[order[i]] = SBRIDGE_PLAN_TIED;
		}
	}
	return tie;
}

/*
 * Is the task owed fast time by the fairness bound? Below its floor; a
 * tie given its turn keeps it until 1/8 above, so turns are not one
 * period each.
 */
static bool sbridge_plan_owed(const struct sbridge_plan_task *t)
{
	if (t->got < t->floor)
		return true;
	return t->why == SBRIDGE_WHY_TIE && t->floor && t->prev == SBRIDGE_HINT_FAST &&
	       t->got < t->floor + (FP >> 3);
}

/**
 * sbridge_plan_ran_fast() - does a decision count as fast time for a task
 * @hint: the hint it was given (enum sbridge_hint_type)
 * @why: why (SBRIDGE_WHY_*)
 * @on_fast: it runs on a fast CPU now
 *
 * A fast hint does; a tie left to the stock scheduler counts where that
 * put it, a sample of the share it gets there.
 *
 * Return: true if the decision counts as fast time.
 */
bool sbridge_plan_ran_fast(u8 hint, u8 why, bool on_fast)
{
	return hint == SBRIDGE_HINT_FAST ||
	       (hint == SBRIDGE_HINT_NONE && why == SBRIDGE_WHY_TIE && on_fast);
}

/*
 * No room for the task on the fast cores: it waits on a slow one, unless
 * it wants the fast type (or its estimate's error cannot tell it does not)
 * and a tie in its group makes what the fast cores hold the stock
 * scheduler's (a wanter pinned slow beside a tie the stock scheduler put
 * elsewhere would leave a fast core idle; a task kept slow on an estimate
 * that cannot tell would be kept from its share by noise).
 */
static void sbridge_plan_wait(const struct sbridge_plan *pl,
			      struct sbridge_plan_task *t, bool tie)
{
	if (tie && sbridge_plan_could_want(pl, t)) {
		t->hint = SBRIDGE_HINT_NONE;
		t->why = SBRIDGE_WHY_TIE;
	} else if (!sbridge_plan_wants(pl, t)) {
		t->hint = SBRIDGE_HINT_SLOW;
		t->why = SBRIDGE_WHY_LOW;
	} else {
		t->hint = SBRIDGE_HINT_SLOW;
		t->why = SBRIDGE_WHY_FULL;
	}
}

/**
 * sbridge_plan_swap_holds() - may a sampling swap under way go on
 * @visit: the hint the swap gives its task (the kind it visits)
 * @who: this period's planned hint of the task
 * @partner: this period's planned hint of its partner, or -1 for none
 * @tied: the partner was a tie when the swap began (its place was the
 *	stock scheduler's, not the plan's)
 *
 * A swap moves its task to the kind of core its partner leaves, and the
 * partner to the one the task leaves. When a later plan already gives
 * the task that kind, or no longer gives the partner the place the task
 * visits, going on would not be a swap: a fast place the task leaves
 * would stay empty beside tasks the plan keeps slow (or the fast cores
 * would take one more than planned). A partner taken from a tie still a
 * tie holds its place as it did. The same holds for a task visiting a
 * slow core without a partner that the plan now gives a fast place.
 *
 * Return: true if the swap may be applied again this period.
 */
bool sbridge_plan_swap_holds(u8 visit, u8 who, int partner, bool tied)
{
	if (who == visit)
		return false;
	if (partner >= 0)
		return partner == visit || (tied && partner == SBRIDGE_HINT_NONE);
	return !(visit == SBRIDGE_HINT_SLOW && who == SBRIDGE_HINT_FAST);
}

/**
 * sbridge_plan_solve() - this period's plan
 * @pl: the board and settings; its results are filled in
 * @t: the hot tasks; their outputs are filled in
 * @n: number of tasks (at most SBRIDGE_PLAN_MAX are planned)
 * @sc: working space
 *
 * 1. CPU shares on the whole board (max-min fair by weight, as CFS): the
 * equal-share reference; 2. how each side would be shared if the best went
 * fast first (sbridge_plan_sides()), so each task's rate while fast and
 * while slow is known; 3. each task's fairness floor of fast time, scaled
 * down together if the fast cores cannot carry them all; 4. the rest of
 * the fast capacity poured into the tasks that want it, rules first, then
 * best speedup, then into the others that gain anything (a fast core is
 * not left idle while a task that would do more work there runs slow);
 * 5. a level whose tasks only their errors tell apart and among which
 * the fast time is split is left to the stock scheduler (a tie); 6. this
 * period's fast places to the tasks owed most of their target
 * (target fraction of their time minus the fraction they got lately, a
 * holder keeping its place until another is owed SBRIDGE_PLAN_HOLD more)
 * while the fast cores have room that does the task more good than a slow
 * core (sbridge_plan_fits()); everyone else with a target waits on a slow
 * core for its turn; tasks with none are kept slow while the fast cores
 * are full and left to the stock scheduler otherwise.
 */
void sbridge_plan_solve(struct sbridge_plan *pl, struct sbridge_plan_task *t,
			unsigned int n, struct sbridge_plan_scratch *sc)
{
	u64 cap = (u64)pl->nfast * FP, rest, floors = 0, demand = 0, lf, ls;
	u8 *order = sc->order;
	s64 *key = sc->key;
	unsigned int i, m = 0, k;
	bool held, tie;

	if (n > SBRIDGE_PLAN_MAX)
		n = SBRIDGE_PLAN_MAX;
	pl->want_fast = 0;
	pl->on_fast = 0;
	pl->fast_demand = 0;
	pl->target = 0;
	memset(key, 0, sizeof(sc->key));
	for (i = 0; i < n; i++) {
		/*
		 * an estimate below 1.0 says the fast type is the slower, which
		 * its capacity denies (sbridge_est_bound()): read as 1.0, no
		 * gain, so it does not keep a task off an idle fast core (on
		 * the rig, jq, 4.7 alone, read 0.38 and ran 18 s on a little
		 * CPU beside the idle big one). A user's factor stands.
		 */
		if (t[i].err && t[i].s < FP)
			t[i].s = FP;
		t[i].c = 0;
		t[i].x = 0;
		t[i].floor = 0;
		t[i].why = SBRIDGE_WHY_LOW;
		if (sbridge_plan_wants(pl, &t[i]))
			pl->want_fast++;
	}
	sbridge_plan_shares(pl, t, n, sc);
	sbridge_plan_sides(pl, t, n, sc, &lf, &ls);
	for (i = 0; i < n; i++) {
		u64 w = t[i].weight ? t[i].weight : 1;
		u64 on_f = sbridge_plan_min(sbridge_plan_df(&t[i]), (lf * w) >> SBRIDGE_FP_SHIFT);
		u64 on_s = sbridge_plan_min(sbridge_plan_ds(&t[i]), (ls * w) >> SBRIDGE_FP_SHIFT);

		t[i].hint = SBRIDGE_HINT_NONE;
		/* a unit of its fast time costs the fast CPUs what it takes there */
		sc->cost[i] = (u32)sbridge_plan_min(on_f, FP);
		t[i].floor = sbridge_plan_floor(pl, &t[i], (on_f * t[i].s) >> SBRIDGE_FP_SHIFT,
						on_s);
		floors += SBRIDGE_DIV64((u64)t[i].floor * sc->cost[i], FP);
	}
	for (i = 0; i < n; i++) {
		if (floors > cap)
			t[i].floor = (u32)SBRIDGE_DIV64((u64)t[i].floor * cap, floors);
		t[i].x = t[i].floor;
	}
	rest = cap > floors ? cap - floors : 0;

	/* the rest: the wanting tasks first, then any that gains at all */
	for (i = 0; i < n; i++) {
		if (!sbridge_plan_may(&t[i]))
			continue;
		order[m++] = (u8)i;
		key[i] = sbridge_plan_prio(pl, &t[i]);
	}
	sbridge_plan_sort(order, m, key);
	sbridge_plan_pour(pl, t, order, m, &rest, sc);
	tie = sbridge_plan_ties(pl, t, order, m, sc);

	/*
	 * places: rules first, then the tasks below their fairness floor (no
	 * holder's bonus outweighs fairness), then the largest deficit, while
	 * the fast cores have room; with a tie, the tasks told apart above it
	 * before it and the ones below after it
	 */
	for (i = 0, m = 0; i < n; i++) {
		pl->target += t[i].x;
		if (!t[i].x)
			continue;
		key[i] = (((s64)t[i].x - t[i].got) << 16) + t[i].s;
		if (t[i].want == SBRIDGE_PW_BIG)
			key[i] += (s64)3 << 40;
		else if (sbridge_plan_owed(&t[i]))
			key[i] += (s64)2 << 40;
		else if (t[i].prev == SBRIDGE_HINT_FAST)
			key[i] += ((s64)sc->rank[i] << 36) + ((s64)SBRIDGE_PLAN_HOLD << 16);
		else
			key[i] += (s64)sc->rank[i] << 36;
		order[m++] = (u8)i;
	}
	sbridge_plan_sort(order, m, key);
	for (k = 0; k < m; k++) {
		struct sbridge_plan_task *p = &t[order[k]];

		if (p->why == SBRIDGE_WHY_TIE && !sbridge_plan_owed(p)) {
			/*
			 * the stock scheduler places it: what it takes of the
			 * fast CPUs is what it takes there now, not a target
			 * (a target it may not take would keep a wanter out)
			 */
			p->hint = SBRIDGE_HINT_NONE;
			if (p->on_fast)
				demand += sbridge_plan_fast_demand(p);
			continue;
		}
		if (!sbridge_plan_fits(p, cap > demand ? cap - demand : 0)) {
			sbridge_plan_wait(pl, p, tie);
			continue;
		}
		p->hint = SBRIDGE_HINT_FAST;
		demand += sbridge_plan_fast_demand(p);
		pl->on_fast++;
		/* held: would a later task have taken the place without the bonus? */
		held = p->prev == SBRIDGE_HINT_FAST && k + 1 < m &&
		       key[order[k + 1]] > key[order[k]] - ((s64)SBRIDGE_PLAN_HOLD << 16);
		if (p->want == SBRIDGE_PW_BIG)
			p->why = SBRIDGE_WHY_RULE;
		else if (!sbridge_plan_wants(pl, p))
			p->why = SBRIDGE_WHY_FILL;
		else if (held)
			p->why = SBRIDGE_WHY_HOLD;
		else if (p->x < FP)
			p->why = SBRIDGE_WHY_TURN;
		else
			p->why = SBRIDGE_WHY_GAIN;
	}
	pl->fast_demand = (u32)sbridge_plan_min(demand, 0xffffffffULL);
	for (i = 0; i < n; i++) {
		if (t[i].x)
			continue;
		if (t[i].want == SBRIDGE_PW_LITTLE) {
			t[i].hint = SBRIDGE_HINT_SLOW;
			t[i].why = SBRIDGE_WHY_RULE;
		} else if (!sbridge_plan_fits(&t[i], cap > demand ? cap - demand : 0)) {
			sbridge_plan_wait(pl, &t[i], tie);
		}
	}
}
