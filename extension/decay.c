/*
 * decay.c — decayed usage aggregates (docs/policies.md#decay,
 * docs/slurm.md#decay-and-usage-accrual).
 *
 * Every variant sums usage × weight, where the weight says how much of a
 * unit of usage charged (or accrued) at some instant still counts at as_of:
 *
 *   exact   2^(−age / half_life)                 Slurm's documented half-life
 *   slurm   (1 − 0.693 / half_life_s)^age_s       what Slurm really multiplies
 *   step    factor^(interval boundaries crossed)  PBS fairshare_decay_{time,factor}
 *   slurm_passes  slurmctld's own passes, one every PriorityCalcPeriod
 *                 (see "Slurm's passes" below)
 *
 * Usage charged at an instant ("point" forms) is weighted once.  Usage that
 * accrues uniformly over [started, ended] ("span" forms) is integrated
 * exactly over [started, min(ended, as_of)], each instant's share decaying
 * from when it accrued; that is the continuous version of what Slurm adds
 * every PriorityCalcPeriod.  Usage after as_of never counts (time travel).
 *
 * The transition state is a float8[3] {rows, sum, compensation}: a real
 * (non-pseudo) type, so that PostgreSQL parallel query and Citus can both
 * split the aggregate with the combine function alone
 * (docs/design.md#aggregates-parallel-query-and-citus).  Sums use Neumaier's
 * compensated summation so that 10^8 rows of very different sizes still add
 * up to the last digit.  As float8_accum does, the state is updated in place
 * when called as an aggregate.
 *
 * Steps are counted from the Unix epoch, so the same rows always give the
 * same answer whenever the query runs.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/int.h"
#include "nodes/primnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "fairshare.h"



/* Slurm's per-second decay: 1 - 0.693 / half_life_seconds. */
#define SLURM_LN2	0.693

typedef enum DecayKind
{
	DECAY_NONE,
	DECAY_EXACT,
	DECAY_SLURM,
	DECAY_STEP
} DecayKind;

typedef struct Decay
{
	DecayKind	kind;
	double		half_life;		/* seconds (exact, slurm) */
	double		half_life_us;	/* microseconds (exact) */
	double		rate;			/* per second: ln2/h (exact), -log1p(-0.693/h) (slurm) */
	double		interval;		/* seconds (step) */
	double		factor;			/* per interval (step) */
} Decay;

/* ---------- state ---------- */

/* The transition functions are callable from SQL: check what they are given. */
static float8 *
state_values(ArrayType *a)
{
	if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != 3 || ARR_HASNULL(a)
		|| ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("decayed_usage: expected a 3-element float8 state array"),
				 errhint("Call the aggregates, not their support functions.")));
	return (float8 *) ARR_DATA_PTR(a);
}

/*
 * Neumaier: add x to (sum, comp).  A sum past float8 would turn the
 * compensation into NaN: raise 22003 as PostgreSQL's own sum(float8) does.
 */
static inline void
kahan_add(float8 *sum, float8 *comp, double x)
{
	double		t = *sum + x;

	if (unlikely(isinf(t)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("decayed_usage: the usage of the group adds up to more than float8 holds"),
				 errhint("Usage is counted in billing-seconds; a sum above 1.8e308 has no meaning.")));
	if (fabs(*sum) >= fabs(x))
		*comp += (*sum - t) + x;
	else
		*comp += (x - t) + *sum;
	*sum = t;
}

/*
 * The decay parameters are per-query constants in practice, but an
 * aggregate argument may vary per row: keep the last one parsed in
 * fn_extra and reparse only when the raw argument changes.
 *
 * agg_state remembers the last state array this call site checked and found
 * to be an aggregate's own (in place) state; it is only ever compared with
 * the state argument, never read through, so a later state allocated at the
 * same address is one PostgreSQL made from INITCOND or one we returned:
 * either way checked already by construction.  It saves the checks and the
 * AggCheckCallContext call on every row (the per-row cost:
 * docs/performance-history.md#what-was-fixed-and-how-it-was-found).
 */
/*
 * Slurm's passes (decay_mode 'slurm_passes'): the half-life as slurmctld
 * turns it into a per-second factor, and the instants of its passes.
 */
typedef struct PassDecay
{
	double		lf;				/* log(f), f = 1 - 0.693/h in double; 0: no decay */
	double		period_s;		/* PriorityCalcPeriod, seconds */
	int64		period_us;		/* the same, microseconds */
	TimestampTz phase;			/* the instant of one pass before the first start */
	/* slurmctld's (re)starts, ascending: each a pass and the phase from it */
	const TimestampTz *starts;
	int			nstarts;
} PassDecay;

typedef struct DecayCache
{
	bool		valid;
	bool		isnull;
	Interval	raw;
	float8		factor;			/* step decay's second argument */
	Decay		decay;
	/* slurm_passes: the raw calc period and phase, and what they give */
	Interval	raw_period;
	bool		phase_null;
	TimestampTz raw_phase;
	PassDecay	pass;
	/* slurm_passes: the starts argument as given (its bytes) and sorted */
	bool		starts_known;
	bool		starts_null;
	Size		starts_size;
	char	   *starts_raw;
	TimestampTz *starts_sorted;
	const void *agg_state;
	float8	   *agg_values;		/* agg_state's three values */
	/* point forms: as_of and half_life are constants of the query (point_general) */
	bool		fixed_known;
	bool		fixed;
} DecayCache;

/* Return the state with one more row adding x, in place when allowed. */
static Datum
state_add(FunctionCallInfo fcinfo, DecayCache *c, double x)
{
	ArrayType  *a;
	float8	   *v;

	if (likely(c->agg_state == DatumGetPointer(PG_GETARG_DATUM(0))))
	{
		/* the state checked on an earlier row of this aggregate */
		v = (float8 *) ARR_DATA_PTR((ArrayType *) DatumGetPointer(PG_GETARG_DATUM(0)));
		v[0] += 1.0;
		kahan_add(&v[1], &v[2], x);
		return PG_GETARG_DATUM(0);
	}
	a = PG_GETARG_ARRAYTYPE_P(0);
	v = state_values(a);
	if (AggCheckCallContext(fcinfo, NULL))
	{
		c->agg_state = a;
		c->agg_values = v;
		v[0] += 1.0;
		kahan_add(&v[1], &v[2], x);
		PG_RETURN_ARRAYTYPE_P(a);
	}
	else
	{
		Datum		d[3];
		float8		n = v[0] + 1.0,
					s = v[1],
					c = v[2];

		kahan_add(&s, &c, x);
		d[0] = Float8GetDatum(n);
		d[1] = Float8GetDatum(s);
		d[2] = Float8GetDatum(c);
		PG_RETURN_ARRAYTYPE_P(construct_array(d, 3, FLOAT8OID, sizeof(float8),
											  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
}

PG_FUNCTION_INFO_V1(fs_decay_combine);

Datum
fs_decay_combine(PG_FUNCTION_ARGS)
{
	ArrayType  *a1 = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *a2 = PG_GETARG_ARRAYTYPE_P(1);
	float8	   *v1 = state_values(a1);
	float8	   *v2 = state_values(a2);

	if (AggCheckCallContext(fcinfo, NULL))
	{
		v1[0] += v2[0];
		kahan_add(&v1[1], &v1[2], v2[1]);
		v1[2] += v2[2];
		PG_RETURN_ARRAYTYPE_P(a1);
	}
	else
	{
		Datum		d[3];
		float8		s = v1[1],
					c = v1[2];

		kahan_add(&s, &c, v2[1]);
		d[0] = Float8GetDatum(v1[0] + v2[0]);
		d[1] = Float8GetDatum(s);
		d[2] = Float8GetDatum(c + v2[2]);
		PG_RETURN_ARRAYTYPE_P(construct_array(d, 3, FLOAT8OID, sizeof(float8),
											  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	}
}

PG_FUNCTION_INFO_V1(fs_decay_final);

/* NULL when no row had usage, as sum() does. */
Datum
fs_decay_final(PG_FUNCTION_ARGS)
{
	float8	   *v = state_values(PG_GETARG_ARRAYTYPE_P(0));

	if (v[0] == 0.0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(v[1] + v[2]);
}

/* ---------- decay parameters ---------- */

static DecayCache *
decay_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
														  sizeof(DecayCache));
	return (DecayCache *) fcinfo->flinfo->fn_extra;
}

static Decay continuous_decay_parse(FunctionCallInfo fcinfo, int argno, DecayKind kind);
static Decay step_decay_parse(FunctionCallInfo fcinfo, int argno);

/* Half-life argument, cached: see decay_cache. */
static inline const Decay *
continuous_decay(FunctionCallInfo fcinfo, DecayCache *c, int argno, DecayKind kind)
{
	bool		isnull = PG_ARGISNULL(argno);

	if (!c->valid || c->isnull != isnull
		|| (!isnull && memcmp(&c->raw, PG_GETARG_INTERVAL_P(argno), sizeof(Interval)) != 0))
	{
		c->decay = continuous_decay_parse(fcinfo, argno, kind);
		c->isnull = isnull;
		if (!isnull)
			c->raw = *PG_GETARG_INTERVAL_P(argno);
		c->valid = true;
	}
	return &c->decay;
}

/* Step decay arguments (interval, factor), cached likewise. */
static inline const Decay *
step_decay(FunctionCallInfo fcinfo, DecayCache *c, int argno)
{
	bool		isnull = PG_ARGISNULL(argno) || PG_ARGISNULL(argno + 1);
	float8		f = isnull ? 0 : PG_GETARG_FLOAT8(argno + 1);

	if (!c->valid || c->isnull != isnull
		|| (!isnull && (memcmp(&c->raw, PG_GETARG_INTERVAL_P(argno), sizeof(Interval)) != 0
						|| memcmp(&c->factor, &f, sizeof(float8)) != 0)))
	{
		c->decay = step_decay_parse(fcinfo, argno);
		c->isnull = isnull;
		if (!isnull)
		{
			c->raw = *PG_GETARG_INTERVAL_P(argno);
			c->factor = f;
		}
		c->valid = true;
	}
	return &c->decay;
}

/* Half-life argument: NULL or 0 means no decay, negative is an error. */
static Decay
continuous_decay_parse(FunctionCallInfo fcinfo, int argno, DecayKind kind)
{
	Decay		d = {DECAY_NONE, 0, 0, 0, 1};
	double		h;

	if (PG_ARGISNULL(argno))
		return d;
	h = fs_interval_seconds(PG_GETARG_INTERVAL_P(argno));
	if (h < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("half_life must not be negative, not %s",
						DatumGetCString(DirectFunctionCall1(interval_out, PG_GETARG_DATUM(argno)))),
				 errhint("Use a positive interval such as '14 days', or 0 or NULL for no decay.")));
	if (h == 0)
		return d;
	d.kind = kind;
	d.half_life = h;
	d.half_life_us = (double) PG_GETARG_INTERVAL_P(argno)->time
		+ ((double) PG_GETARG_INTERVAL_P(argno)->day
		   + (double) PG_GETARG_INTERVAL_P(argno)->month * DAYS_PER_MONTH) * USECS_PER_DAY;
	if (kind == DECAY_EXACT)
		d.rate = M_LN2 / h;
	else if (h > SLURM_LN2)
		d.rate = -log1p(-SLURM_LN2 / h);
	else
		d.rate = INFINITY;		/* factor <= 0: Slurm clamps to nothing left */
	return d;
}

/* PBS step decay: NULL interval or factor means no decay. */
static Decay
step_decay_parse(FunctionCallInfo fcinfo, int argno)
{
	Decay		d = {DECAY_NONE, 0, 0, 0, 1};
	double		iv,
				f;

	if (PG_ARGISNULL(argno) || PG_ARGISNULL(argno + 1))
		return d;
	iv = fs_interval_seconds(PG_GETARG_INTERVAL_P(argno));
	f = PG_GETARG_FLOAT8(argno + 1);
	if (!(iv > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("decay_interval must be positive, not %s",
						DatumGetCString(DirectFunctionCall1(interval_out, PG_GETARG_DATUM(argno)))),
				 errhint("PBS's default fairshare_decay_time is '24 hours'; pass NULL for no decay.")));
	if (isnan(f) || f < 0 || f > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("decay_factor must be between 0 and 1, not %s", fs_float_text(f)),
				 errhint("PBS's default fairshare_decay_factor is 0.5.")));
	d.kind = DECAY_STEP;
	d.interval = iv;
	d.factor = f;
	return d;
}

/* Index of the step slot holding instant t (seconds since 2000). */
static inline double
step_slot(const Decay *d, double t)
{
	return floor((t + UNIX_EPOCH_OFFSET_S) / d->interval);
}

/*
 * Weight at as_of of a unit of usage charged at `at`.  The age is the exact
 * difference of the two instants in microseconds; the exact decay divides
 * it by the half-life in microseconds: one rounding of age / half_life,
 * where going through seconds rounds each instant, their difference and
 * the quotient (the same result when both are whole seconds, and one
 * division per row instead of three).  Step decay counts its boundaries
 * from the instants themselves.
 */
static inline double
point_weight(const Decay *d, TimestampTz at, TimestampTz as_of)
{
	/* the difference fits in uint64 across the whole timestamp range */
	double		age_us = likely(at <= as_of)
		? (double) ((uint64) as_of - (uint64) at)
		: -(double) ((uint64) at - (uint64) as_of);

	switch (d->kind)
	{
		case DECAY_NONE:
			return 1.0;
		case DECAY_EXACT:
			return exp2(-age_us / d->half_life_us);
		case DECAY_SLURM:
			return isinf(d->rate) ? (age_us > 0 ? 0.0 : 1.0)
				: exp(-d->rate * (age_us / USECS_PER_SEC));
		case DECAY_STEP:
			return pow(d->factor, step_slot(d, (double) as_of / USECS_PER_SEC)
					   - step_slot(d, (double) at / USECS_PER_SEC));
	}
	return 1.0;
}

/*
 * ∫ weight over [s, m], m <= as_of, in seconds: the usage-seconds still
 * counted at as_of of one unit per second accrued over [s, m].  len = m − s
 * and age = as_of − m come exact from the microseconds; the instants
 * themselves only place the step boundaries.
 */
static double
span_weight(const Decay *d, double s, double m, double as_of, double len, double age)
{

	switch (d->kind)
	{
		case DECAY_NONE:
			return len;
		case DECAY_EXACT:
		case DECAY_SLURM:
			if (isinf(d->rate))
				return 0.0;
			/* (1/λ) e^(−λ(T−m)) (1 − e^(−λ len)), with expm1 for short spans */
			return exp(-d->rate * age) * -expm1(-d->rate * len) / d->rate;
		case DECAY_STEP:
			{
				double		f = d->factor;
				double		ks = step_slot(d, s);
				double		km = step_slot(d, m);
				double		kt = step_slot(d, as_of);
				double		first_end,
							last_start,
							full,
							n;

				if (ks == km)
					return len * pow(f, kt - ks);
				/* slot k covers [k·I − offset, (k+1)·I − offset) */
				first_end = (ks + 1) * d->interval - UNIX_EPOCH_OFFSET_S;
				last_start = km * d->interval - UNIX_EPOCH_OFFSET_S;
				n = km - ks - 1;	/* whole slots in between */
				if (n == 0)
					full = 0;
				else if (f == 1.0)
					full = n * d->interval;
				else
					full = d->interval * pow(f, kt - km + 1) * (1 - pow(f, n)) / (1 - f);
				return (first_end - s) * pow(f, kt - ks)
					+ full
					+ (m - last_start) * pow(f, kt - km);
			}
	}
	return len;
}

/* ---------- argument reading ---------- */



/* Usage charged at one instant: args (state, usage, at, as_of, params…). */
static Datum
point_accum(FunctionCallInfo fcinfo, DecayCache *c, const Decay *d)
{
	double		u;
	TimestampTz at,
				as_of;

	u = fs_usage_arg(fcinfo, 1);
	at = fs_timestamp_arg(fcinfo, 2, "at");
	as_of = fs_timestamp_arg(fcinfo, 3, "as_of");
	if (at > as_of)
		return state_add(fcinfo, c, 0.0);
	return state_add(fcinfo, c, u * point_weight(d, at, as_of));
}

/* Usage accrued over a span, decayed: args (state, usage, started, ended, as_of, params…). */
static inline double
span_value(FunctionCallInfo fcinfo, const Decay *d)
{
	double		u;
	TimestampTz s,
				e,
				as_of,
				m;
	double		len,
				dur;

	u = fs_usage_arg(fcinfo, 1);
	s = fs_timestamp_arg(fcinfo, 2, "started");
	e = fs_timestamp_arg(fcinfo, 3, "ended");
	as_of = fs_timestamp_arg(fcinfo, 4, "as_of");
	if (e < s)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ended (%s) is before started (%s)",
						pstrdup(timestamptz_to_str(e)),
						pstrdup(timestamptz_to_str(s))),
				 errhint("A job's usage accrues between its start and its end.")));
	if (s > as_of || (s == as_of && e > s))
		return 0.0;
	if (e == s)					/* an instant: the point form */
		return u * point_weight(d, s, as_of);
	m = Min(e, as_of);

	/*
	 * Lengths from the exact microsecond differences: seconds since 2000 as
	 * float8 are only 1.2e-7 s apart today, which a span cut by as_of would
	 * carry as a relative error of 1e-7 s / its length.
	 */
	len = (double) ((uint64) m - (uint64) s) / USECS_PER_SEC;
	dur = (double) ((uint64) e - (uint64) s) / USECS_PER_SEC;
	if (d->kind == DECAY_NONE)	/* keep m == e exact: u × 1 */
		return u * (len / dur);
	return u / dur
		* span_weight(d, (double) s / USECS_PER_SEC, (double) m / USECS_PER_SEC,
					  (double) as_of / USECS_PER_SEC, len,
					  (double) ((uint64) as_of - (uint64) m) / USECS_PER_SEC);
}

static Datum
span_accum(FunctionCallInfo fcinfo, DecayCache *c, const Decay *d)
{
	return state_add(fcinfo, c, span_value(fcinfo, d));
}


/*
 * Rows whose usage or instants are NULL are ignored, as sum() ignores NULLs.
 * The state is never NULL in the aggregates (INITCOND), but a direct call of
 * a transition function may pass one: refuse it rather than read it.
 */
#define SKIP_IF_NULL(from, to) \
	do { \
		int			i_; \
		if (PG_ARGISNULL(0)) \
			ereport(ERROR, \
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), \
					 errmsg("decayed_usage: the state must not be NULL"), \
					 errhint("Call the aggregates, not their support functions."))); \
		for (i_ = (from); i_ <= (to); i_++) \
			if (PG_ARGISNULL(i_)) \
				PG_RETURN_DATUM(PG_GETARG_DATUM(0)); \
	} while (0)

/*
 * The per-row path of the continuous forms (exact and slurm), taken when the
 * row's state is an aggregate's state (see fast_state_values) and its
 * half-life is the one parsed on an earlier row: no argument left to check
 * but the row's own, and the same operations as the general path, so the
 * same bits.  Any other row (the first, a NULL, a new half-life, a direct
 * call) takes the general path.  It is what brings the aggregate near
 * sum(float8) (docs/performance.md#decayed_usage).
 *
 * The state argument's values, when this call site is an aggregate's
 * (agg_state set: AggCheckCallContext said so on an earlier row, and a call
 * site does not change context) and the state is a state array as the
 * aggregates make it: agg_state itself, checked already, or the state of
 * another group (GROUP BY), checked here as state_values does, header first.
 */
static inline float8 *
fast_state_values(FunctionCallInfo fcinfo, const DecayCache *c)
{
	ArrayType  *a = (ArrayType *) DatumGetPointer(PG_GETARG_DATUM(0));

	if (likely(c->agg_state == a))
		return c->agg_values;
	if (c->agg_state == NULL || VARATT_IS_EXTENDED(a)
		|| ARR_NDIM(a) != 1 || ARR_HASNULL(a) || ARR_DIMS(a)[0] != 3
		|| ARR_ELEMTYPE(a) != FLOAT8OID)
		return NULL;
	return (float8 *) ARR_DATA_PTR(a);
}

static inline float8 *
continuous_fast_state(FunctionCallInfo fcinfo, const DecayCache *c, bool span)
{
	int			argno = span ? 5 : 4;	/* the half-life */

	/* one test for the NULLs (bitwise: no branch per argument) */
	if (unlikely(c == NULL)
		|| (PG_ARGISNULL(0) | PG_ARGISNULL(1) | PG_ARGISNULL(2) | PG_ARGISNULL(3)
			| PG_ARGISNULL(4) | (span && PG_ARGISNULL(5)))
		|| !c->valid || c->isnull
		|| memcmp(&c->raw, PG_GETARG_INTERVAL_P(argno), sizeof(Interval)) != 0)
		return NULL;
	return fast_state_values(fcinfo, c);
}

/* One more row adding x to the checked state v: state_add's in-place branch. */
static inline void
fast_add(float8 *v, double x)
{
	v[0] += 1.0;
	kahan_add(&v[1], &v[2], x);
}

/*
 * Raise the error of the first bad argument of a point row, as point_accum
 * does; called only when one is bad (noreturn: the caller keeps nothing
 * across the call).
 */
static pg_noinline pg_noreturn void
point_arg_error(FunctionCallInfo fcinfo)
{
	(void) fs_usage_arg(fcinfo, 1);
	(void) fs_timestamp_arg(fcinfo, 2, "at");
	(void) fs_timestamp_arg(fcinfo, 3, "as_of");
	elog(ERROR, "decayed_usage: no bad argument found");
}

/*
 * The point form's row on the per-row path: point_accum's operations and
 * checks (fs_usage_arg, fs_timestamp_arg, tested at once, the error raised
 * out of line), its arguments known not NULL; as_of checked already when it
 * is a constant of the query (check_as_of false).  kind: the decay's kind
 * when known to the caller (fixed), else DECAY_NONE: read from c.
 */
static pg_attribute_always_inline void
point_fast(FunctionCallInfo fcinfo, const DecayCache *c, float8 *v, bool check_as_of,
		   DecayKind kind)
{
	double		u = PG_GETARG_FLOAT8(1);
	TimestampTz at = PG_GETARG_TIMESTAMPTZ(2);
	TimestampTz as_of = PG_GETARG_TIMESTAMPTZ(3);

	if (unlikely(!(u >= 0.0 && u <= DBL_MAX)
				 | TIMESTAMP_NOT_FINITE(at) | (check_as_of && TIMESTAMP_NOT_FINITE(as_of))))
		point_arg_error(fcinfo);
	if (at > as_of)
		fast_add(v, 0.0);
	else if (kind == DECAY_EXACT || (kind == DECAY_NONE && c->decay.kind == DECAY_EXACT))
		/* point_weight's case, inline */
		fast_add(v, u * exp2(-((double) ((uint64) as_of - (uint64) at)) / c->decay.half_life_us));
	else
		fast_add(v, u * point_weight(&c->decay, at, as_of));
}

/*
 * Whether the aggregate's argument argno (of the transition function: the
 * state is 0) is a non-NULL constant of the query, the same on every row.
 * Not known for a window aggregate (no Aggref).
 */
static bool
agg_arg_is_const(FunctionCallInfo fcinfo, int argno)
{
	Aggref	   *ag = AggGetAggref(fcinfo);
	TargetEntry *te;

	if (ag == NULL || list_length(ag->args) < argno)
		return false;
	te = list_nth_node(TargetEntry, ag->args, argno - 1);
	return IsA(te->expr, Const) && !castNode(Const, te->expr)->constisnull;
}

static pg_noinline Datum
point_general(FunctionCallInfo fcinfo, DecayKind kind)
{
	DecayCache *c = decay_cache(fcinfo);
	Datum		r;

	SKIP_IF_NULL(1, 2);
	r = point_accum(fcinfo, c, continuous_decay(fcinfo, c, 4, kind));

	/*
	 * Once the state is the aggregate's own and this row's as_of and
	 * half-life were checked and parsed: if both are constants, later rows
	 * need neither checked again.
	 */
	if (!c->fixed_known && c->agg_state != NULL)
	{
		c->fixed_known = true;
		c->fixed = c->valid && !c->isnull && c->decay.kind == kind
			&& agg_arg_is_const(fcinfo, 3) && agg_arg_is_const(fcinfo, 4);
	}
	return r;
}

/*
 * The point form's row when as_of and half-life are constants (point_general):
 * true when taken.
 */
static pg_attribute_always_inline bool
point_fixed(FunctionCallInfo fcinfo, const DecayCache *c, DecayKind kind)
{
	float8	   *v;

	if (c == NULL || !c->fixed
		|| (PG_ARGISNULL(0) | PG_ARGISNULL(1) | PG_ARGISNULL(2)))
		return false;
	if (likely(c->agg_state == DatumGetPointer(PG_GETARG_DATUM(0))))
		v = c->agg_values;
	else if ((v = fast_state_values(fcinfo, c)) == NULL)
		return false;
	point_fast(fcinfo, c, v, false, kind);
	return true;
}

static pg_noinline Datum
span_general(FunctionCallInfo fcinfo, DecayKind kind)
{
	DecayCache *c = decay_cache(fcinfo);

	SKIP_IF_NULL(1, 3);
	return span_accum(fcinfo, c, continuous_decay(fcinfo, c, 5, kind));
}

PG_FUNCTION_INFO_V1(fs_decay_point_accum);
Datum
fs_decay_point_accum(PG_FUNCTION_ARGS)
{
	const DecayCache *c = (const DecayCache *) fcinfo->flinfo->fn_extra;
	float8	   *v;

	if (likely(point_fixed(fcinfo, c, DECAY_EXACT)))
		return PG_GETARG_DATUM(0);
	v = continuous_fast_state(fcinfo, c, false);
	if (unlikely(v == NULL))
		return point_general(fcinfo, DECAY_EXACT);
	point_fast(fcinfo, c, v, true, DECAY_NONE);
	return PG_GETARG_DATUM(0);
}

PG_FUNCTION_INFO_V1(fs_decay_span_accum);
Datum
fs_decay_span_accum(PG_FUNCTION_ARGS)
{
	const DecayCache *c = (const DecayCache *) fcinfo->flinfo->fn_extra;
	float8	   *v = continuous_fast_state(fcinfo, c, true);

	if (unlikely(v == NULL))
		return span_general(fcinfo, DECAY_EXACT);
	fast_add(v, span_value(fcinfo, &c->decay));
	return PG_GETARG_DATUM(0);
}

PG_FUNCTION_INFO_V1(fs_decay_slurm_point_accum);
Datum
fs_decay_slurm_point_accum(PG_FUNCTION_ARGS)
{
	const DecayCache *c = (const DecayCache *) fcinfo->flinfo->fn_extra;
	float8	   *v;

	if (likely(point_fixed(fcinfo, c, DECAY_SLURM)))
		return PG_GETARG_DATUM(0);
	v = continuous_fast_state(fcinfo, c, false);
	if (unlikely(v == NULL))
		return point_general(fcinfo, DECAY_SLURM);
	point_fast(fcinfo, c, v, true, DECAY_NONE);
	return PG_GETARG_DATUM(0);
}

PG_FUNCTION_INFO_V1(fs_decay_slurm_span_accum);
Datum
fs_decay_slurm_span_accum(PG_FUNCTION_ARGS)
{
	const DecayCache *c = (const DecayCache *) fcinfo->flinfo->fn_extra;
	float8	   *v = continuous_fast_state(fcinfo, c, true);

	if (unlikely(v == NULL))
		return span_general(fcinfo, DECAY_SLURM);
	fast_add(v, span_value(fcinfo, &c->decay));
	return PG_GETARG_DATUM(0);
}

PG_FUNCTION_INFO_V1(fs_decay_step_point_accum);
Datum
fs_decay_step_point_accum(PG_FUNCTION_ARGS)
{
	DecayCache *c = decay_cache(fcinfo);

	SKIP_IF_NULL(1, 2);
	return point_accum(fcinfo, c, step_decay(fcinfo, c, 4));
}

PG_FUNCTION_INFO_V1(fs_decay_step_span_accum);
Datum
fs_decay_step_span_accum(PG_FUNCTION_ARGS)
{
	DecayCache *c = decay_cache(fcinfo);

	SKIP_IF_NULL(1, 3);
	return span_accum(fcinfo, c, step_decay(fcinfo, c, 5));
}


/* ---------- Slurm's passes (decay_mode 'slurm_passes') ---------- */

/*
 * slurmctld does not integrate usage continuously: its decay thread
 * (_decay_thread in src/plugins/priority/multifactor/priority_multifactor.c,
 * Slurm 22.05) wakes every PriorityCalcPeriod and, at each pass,
 *
 *   1. multiplies every association's usage by f^Δ, f = 1 - 0.693/h (h the
 *      half-life in seconds, 0.693 Slurm's literal), Δ the seconds since the
 *      previous pass (_apply_decay);
 *   2. charges each running job for the stretch since the previous pass (or
 *      since its start), billing × d × f^d, d the stretch in seconds
 *      (_apply_new_usage from decay_apply_new_usage);
 *
 * and a job that ends is charged at once, between passes, for the stretch
 * from the last pass (or its start) to its end, the same way
 * (priority_p_job_end).  Nothing decays between passes.
 *
 * With passes at P_k = phase + k·c, a report at T sees the passes up to
 * P(T), the last one at or before T.  A job of billing b over [s, e]:
 *
 *   first charge, at P_lo (the first pass after s): b (P_lo − s) f^(P_lo − s),
 *       decayed by every later pass up to P(T): × f^(P(T) − P_lo);
 *   every further pass P_lo + c … P_hi (P_hi = P(min(e, T))): b c f^c,
 *       decayed by f^(P(T) − P_k): together b c f^c f^(P(T) − P_hi)
 *       (1 − f^(mc)) / (1 − f^c) for m such passes, a geometric series;
 *   if it ended by T, the end charge b (e − max(s, P(e))) f^(e − max(s, P(e))),
 *       × f^(P(T) − P(e)).
 *
 * One closed form per job, whatever the number of passes it spans.  A job
 * that ends exactly at a pass instant is taken as charged by that pass (its
 * end charge is then of a stretch of length 0); a job that ended at T is in
 * the report at T.
 *
 * slurmctld's restarts (docs/decay.md#slurmctld-restarts): a new slurmctld
 * makes a pass at its start S (decaying by f^(S − the run before's last
 * pass) and charging the running jobs that stretch) and its passes after
 * that are S + k·c.  So the passes are one arithmetic series per run of
 * slurmctld, each run's first pass possibly closer to the one before than
 * c; a job's charges are then one irregular first charge and one geometric
 * series per run it ran in (pass_run_charges), and the decay to P(T) still
 * adds up as f^(P(T) − P_k).
 */

/* The half-life as Slurm uses it: NULL or 0 means no decay (f = 1). */
static double
passes_log_factor(FunctionCallInfo fcinfo, int argno)
{
	double		h,
				f;

	if (PG_ARGISNULL(argno))
		return 0.0;
	h = fs_interval_seconds(PG_GETARG_INTERVAL_P(argno));
	if (h < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("half_life must not be negative, not %s",
						DatumGetCString(DirectFunctionCall1(interval_out, PG_GETARG_DATUM(argno)))),
				 errhint("Use PriorityDecayHalfLife as an interval such as '14 days', or 0 or NULL for no decay.")));
	if (h == 0)
		return 0.0;
	/* the same double operations as slurmctld: decay_factor = 1 - (0.693 / decay_hl) */
	f = 1.0 - (SLURM_LN2 / h);
	if (!(f > 0.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("half_life %s leaves Slurm no decay factor: 1 - 0.693/%g s is %g",
						DatumGetCString(DirectFunctionCall1(interval_out, PG_GETARG_DATUM(argno))), h, f),
				 errhint("slurmctld's decay thread stops on a factor of 0 or less; PriorityDecayHalfLife is in minutes, use at least '1 minute'.")));
	/* log() of a double near 1 is accurate to the last bit of the result */
	return log(f);
}

/*
 * The calc period in microseconds: positive, and short enough that pass
 * instants stay exact in a double's 53 bits of microseconds (285 years).
 */
static int64
passes_period_us(FunctionCallInfo fcinfo, int argno)
{
	Interval   *iv;
	double		us;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("calc_period must not be NULL"),
				 errhint("Pass PriorityCalcPeriod as an interval, e.g. '5 minutes' (Slurm's default).")));
	iv = PG_GETARG_INTERVAL_P(argno);
	us = (double) iv->time + ((double) iv->day + (double) iv->month * DAYS_PER_MONTH) * USECS_PER_DAY;
	if (!(us > 0) || us > 9.0e15)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("calc_period must be a positive interval, not %s",
						DatumGetCString(DirectFunctionCall1(interval_out, PG_GETARG_DATUM(argno)))),
				 errhint("PriorityCalcPeriod is the time between two passes of slurmctld's decay thread, e.g. '5 minutes'.")));
	return (int64) us;
}

/* The phase: NULL means passes at whole multiples of the period since 1970-01-01 UTC. */
static TimestampTz
passes_phase(FunctionCallInfo fcinfo, int argno)
{
	if (PG_ARGISNULL(argno))
		return (TimestampTz) -((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
	return fs_timestamp_arg(fcinfo, argno, "phase");
}

/*
 * The most slurmctld starts one call considers: each start a job's run
 * spans is one term of its usage (pass_job_usage), so the number is bounded
 * as any loop a caller controls.  A cluster restarted every hour for eleven
 * years stays below it (docs/decay.md#slurmctld-restarts).
 */
#define FS_MAX_SLURMCTLD_STARTS 100000

static int
timestamptz_cmp_qsort(const void *a, const void *b)
{
	TimestampTz x = *(const TimestampTz *) a;
	TimestampTz y = *(const TimestampTz *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/*
 * slurmctld's starts (argument argno, a timestamptz[], NULL or absent: none):
 * sorted and without repeats into the cache, parsed again only when the
 * array's bytes change (the callers pass one array per cluster).  Each start
 * must be a finite instant, the array one-dimensional without NULLs.
 */
static void
pass_starts(FunctionCallInfo fcinfo, DecayCache *c, int argno)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				kept;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
	{
		c->starts_known = true;
		c->starts_null = true;
		c->pass.starts = NULL;
		c->pass.nstarts = 0;
		return;
	}
	a = PG_GETARG_ARRAYTYPE_P(argno);
	if (c->starts_known && !c->starts_null && c->starts_size == VARSIZE(a)
		&& memcmp(c->starts_raw, a, VARSIZE(a)) == 0)
		return;
	c->starts_known = false;
	if (ARR_ELEMTYPE(a) != TIMESTAMPTZOID || ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("starts must be a one-dimensional array of timestamptz"),
				 errhint("Pass the instants slurmctld started, e.g. array_agg(started_at ORDER BY started_at) of fairshare.slurmctld_starts.")));
	deconstruct_array(a, TIMESTAMPTZOID, sizeof(TimestampTz), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elems, &nulls, &n);
	if (n > FS_MAX_SLURMCTLD_STARTS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%d slurmctld starts, more than the %d one cluster may have", n, FS_MAX_SLURMCTLD_STARTS),
				 errhint("Delete the starts long before the oldest job that still counts (fairshare.slurmctld_starts): only the last one before it sets a phase.")));
	if (c->starts_raw)
		pfree(c->starts_raw);
	if (c->starts_sorted)
		pfree(c->starts_sorted);
	c->starts_raw = NULL;
	c->starts_sorted = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(TimestampTz) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		TimestampTz t;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("starts must not hold NULL (element %d)", i + 1),
					 errhint("Each slurmctld start is an instant.")));
		t = DatumGetTimestampTz(elems[i]);
		if (TIMESTAMP_NOT_FINITE(t))
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("a slurmctld start must be a finite instant, not %s (element %d)",
							pstrdup(timestamptz_to_str(t)), i + 1),
					 errhint("Give the instant slurmctld started, e.g. from its log's \"slurmctld version ... started\" line.")));
		c->starts_sorted[i] = t;
	}
	pg_qsort(c->starts_sorted, n, sizeof(TimestampTz), timestamptz_cmp_qsort);
	kept = 0;
	for (int i = 0; i < n; i++)
		if (kept == 0 || c->starts_sorted[kept - 1] != c->starts_sorted[i])
			c->starts_sorted[kept++] = c->starts_sorted[i];
	c->starts_raw = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, VARSIZE(a));
	memcpy(c->starts_raw, a, VARSIZE(a));
	c->starts_size = VARSIZE(a);
	c->starts_null = false;
	c->pass.starts = c->starts_sorted;
	c->pass.nstarts = kept;
	c->starts_known = true;
}

/*
 * The pass parameters (half_life, calc_period, phase at argno, +1, +2, the
 * starts at +3 when given), cached.
 */
static const PassDecay *
pass_decay(FunctionCallInfo fcinfo, DecayCache *c, int argno)
{
	bool		hl_null = PG_ARGISNULL(argno);
	bool		ph_null = PG_ARGISNULL(argno + 2);

	if (!c->valid || c->isnull != hl_null || c->phase_null != ph_null
		|| PG_ARGISNULL(argno + 1)
		|| (!hl_null && memcmp(&c->raw, PG_GETARG_INTERVAL_P(argno), sizeof(Interval)) != 0)
		|| memcmp(&c->raw_period, PG_GETARG_INTERVAL_P(argno + 1), sizeof(Interval)) != 0
		|| (!ph_null && c->raw_phase != PG_GETARG_TIMESTAMPTZ(argno + 2)))
	{
		c->valid = false;
		c->pass.lf = passes_log_factor(fcinfo, argno);
		c->pass.period_us = passes_period_us(fcinfo, argno + 1);
		c->pass.period_s = (double) c->pass.period_us / USECS_PER_SEC;
		c->pass.phase = passes_phase(fcinfo, argno + 2);
		c->isnull = hl_null;
		if (!hl_null)
			c->raw = *PG_GETARG_INTERVAL_P(argno);
		c->raw_period = *PG_GETARG_INTERVAL_P(argno + 1);
		c->phase_null = ph_null;
		if (!ph_null)
			c->raw_phase = PG_GETARG_TIMESTAMPTZ(argno + 2);
		c->valid = true;
	}
	pass_starts(fcinfo, c, argno + 3);
	return &c->pass;
}

/* Seconds from a to b (b >= a), exact from the microseconds. */
static inline double
secs_between(TimestampTz a, TimestampTz b)
{
	return (double) ((uint64) b - (uint64) a) / USECS_PER_SEC;
}

pg_noreturn static void
pass_out_of_range(const PassDecay *d, TimestampTz t)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("the pass before %s is out of the timestamp range (phase %s)",
					pstrdup(timestamptz_to_str(t)), pstrdup(timestamptz_to_str(d->phase))),
			 errhint("Set the cluster's priority_last_decay to a recent pass of slurmctld.")));
	pg_unreachable();
}

/*
 * The run of slurmctld t falls in: the index of the last start at or before
 * t, or -1 before the first start (the passes of priority_last_decay's
 * phase).  A binary search: the starts are sorted.
 */
static int
pass_run(const PassDecay *d, TimestampTz t)
{
	int			lo = 0,
				hi = d->nstarts;	/* answer + 1 in [lo, hi] */

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (d->starts[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* The phase of run k: its start; before the first start, the cluster's phase. */
static inline TimestampTz
run_phase(const PassDecay *d, int k)
{
	return k < 0 ? d->phase : d->starts[k];
}

/*
 * The last pass at or before t of passes every period from phase.  t −
 * phase may not fit in int64 for instants at the two ends of the timestamp
 * range: an error, not a wrap.
 */
static TimestampTz
phase_floor(const PassDecay *d, TimestampTz phase, TimestampTz t)
{
	int64		diff,
				q,
				off;
	TimestampTz r;

	if (pg_sub_s64_overflow(t, phase, &diff))
		pass_out_of_range(d, t);
	q = diff / d->period_us;
	if (diff % d->period_us < 0)	/* C truncates towards zero: floor it */
		q--;
	if (pg_mul_s64_overflow(q, d->period_us, &off) || pg_add_s64_overflow(phase, off, &r)
		|| IS_VALID_TIMESTAMP(r) == false)
		pass_out_of_range(d, t);
	return r;
}

/*
 * The last pass at or before t: in the run of slurmctld t falls in, a whole
 * number of periods after that run's start (docs/decay.md#slurmctld-restarts).
 */
static TimestampTz
pass_floor(const PassDecay *d, TimestampTz t)
{
	return phase_floor(d, run_phase(d, pass_run(d, t)), t);
}

/* The first pass after t: a period after P(t), or the next start if it comes first. */
static TimestampTz
pass_after(const PassDecay *d, TimestampTz t)
{
	int			k = pass_run(d, t);
	TimestampTz next;

	if (pg_add_s64_overflow(phase_floor(d, run_phase(d, k), t), d->period_us, &next)
		|| IS_VALID_TIMESTAMP(next) == false)
		next = DT_NOEND;
	if (k + 1 < d->nstarts && d->starts[k + 1] < next)
		next = d->starts[k + 1];
	return next;
}

/* f^x, x seconds */
static inline double
pass_pow(const PassDecay *d, double x)
{
	return d->lf == 0.0 ? 1.0 : exp(x * d->lf);
}

/* One charge of a stretch of x seconds, per unit of billing: x f^x. */
static inline double
pass_charge(const PassDecay *d, double x)
{
	return x * pass_pow(d, x);
}

/* Σ_{i<m} f^(ic) = (1 − f^(mc)) / (1 − f^c), expm1 keeping the digits when f^c is near 1 */
static inline double
pass_series(const PassDecay *d, int64 m)
{
	if (d->lf == 0.0)
		return (double) m;
	return expm1((double) m * d->period_s * d->lf) / expm1(d->period_s * d->lf);
}

/*
 * The charges, per unit of billing, of a job started at s made by the
 * passes of run k (from its start to the next start, or before the first)
 * up to hi, as a report whose last pass is `last` sees them.  The run's
 * first pass that charges the job charges the stretch since the previous
 * pass or since s: at a start, that previous pass is the last one of the
 * run before (slurmctld's _decay_thread charges start_time − g_last_ran);
 * every later pass of the run is a period after the one before it, a
 * geometric series.
 */
static double
pass_run_charges(const PassDecay *d, int k, TimestampTz s, TimestampTz hi, TimestampTz last)
{
	TimestampTz first,
				prev,
				end,
				lastk;
	int64		m;
	double		total;

	if (k >= 0 && d->starts[k] > s)
	{
		first = d->starts[k];
		prev = Max(s, pass_floor(d, first - 1));
	}
	else
	{
		if (pg_add_s64_overflow(phase_floor(d, run_phase(d, k), s), d->period_us, &first))
			return 0.0;
		prev = s;
	}
	end = hi;
	if (k + 1 < d->nstarts && d->starts[k + 1] <= hi)
		end = d->starts[k + 1] - 1;
	if (first > end)
		return 0.0;
	lastk = phase_floor(d, run_phase(d, k), end);
	m = ((int64) lastk - (int64) first) / d->period_us;	/* the passes after first */
	total = pass_charge(d, secs_between(prev, first)) * pass_pow(d, secs_between(first, last));
	if (m > 0)
		total += pass_charge(d, d->period_s) * pass_pow(d, secs_between(lastk, last)) * pass_series(d, m);
	return total;
}

/*
 * The usage of one job of billing b (per second) over [s, e] as a report at
 * `as_of` shows it: the closed form above, one term per run of slurmctld
 * the job ran in (bounded by FS_MAX_SLURMCTLD_STARTS).  running: the job had
 * not ended by as_of (e is then ignored).
 */
static double
pass_job_usage(const PassDecay *d, double b, TimestampTz s, TimestampTz e, bool running, TimestampTz as_of)
{
	TimestampTz last,
				upto,
				hi;
	double		total = 0.0;

	if (s >= as_of)
		return 0.0;
	last = pass_floor(d, as_of);	/* P(T) */
	upto = running ? as_of : e;
	hi = pass_floor(d, upto);	/* the last pass that charged it */
	for (int k = pass_run(d, s), khi = pass_run(d, hi); k <= khi; k++)
		total += pass_run_charges(d, k, s, hi, last);
	if (!running)
	{
		/* the end charge, from the last pass before the end (or the start) */
		TimestampTz from = Max(s, hi);

		total += pass_charge(d, secs_between(from, e)) * pass_pow(d, secs_between(hi, last));
	}
	return b * total;
}

/*
 * Billing accrued over a run: args (state, billing, started, ended, as_of,
 * half_life, calc_period, phase).  billing is per second (Slurm's billable
 * TRES × UsageFactor); ended NULL or after as_of: still running at as_of.
 */
PG_FUNCTION_INFO_V1(fs_decay_passes_span_accum);
Datum
fs_decay_passes_span_accum(PG_FUNCTION_ARGS)
{
	DecayCache *c = decay_cache(fcinfo);
	const PassDecay *d;
	double		b;
	TimestampTz s,
				e = 0,
				as_of;
	bool		running;

	SKIP_IF_NULL(1, 2);
	d = pass_decay(fcinfo, c, 5);
	b = PG_GETARG_FLOAT8(1);
	if (unlikely(!(b >= 0.0 && b <= DBL_MAX)))
		fs_check_nonneg(b, "billing");
	s = fs_timestamp_arg(fcinfo, 2, "started");
	as_of = fs_timestamp_arg(fcinfo, 4, "as_of");
	running = PG_ARGISNULL(3);
	if (!running)
	{
		e = PG_GETARG_TIMESTAMPTZ(3);
		if (e == DT_NOEND)		/* "not ended" spelt as infinity */
			running = true;
		else
		{
			e = fs_timestamp_arg(fcinfo, 3, "ended");
			if (e < s)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("ended (%s) is before started (%s)",
								pstrdup(timestamptz_to_str(e)),
								pstrdup(timestamptz_to_str(s))),
						 errhint("A job's usage accrues between its start and its end.")));
			running = e > as_of;
		}
	}
	return state_add(fcinfo, c, pass_job_usage(d, b, s, e, running, as_of));
}

/*
 * Usage charged at one instant: args (state, usage, at, as_of, half_life,
 * calc_period, phase).  It decays at every pass after `at` up to as_of:
 * × f^(P(as_of) − P(at)).  A usage checkpoint at T0 decays so: what it
 * holds was charged at or before T0, and nothing of it decays before the
 * next pass.
 */
PG_FUNCTION_INFO_V1(fs_decay_passes_point_accum);
Datum
fs_decay_passes_point_accum(PG_FUNCTION_ARGS)
{
	DecayCache *c = decay_cache(fcinfo);
	const PassDecay *d;
	double		u;
	TimestampTz at,
				as_of;

	SKIP_IF_NULL(1, 2);
	d = pass_decay(fcinfo, c, 4);
	u = fs_usage_arg(fcinfo, 1);
	at = fs_timestamp_arg(fcinfo, 2, "at");
	as_of = fs_timestamp_arg(fcinfo, 3, "as_of");
	if (at > as_of)
		return state_add(fcinfo, c, 0.0);
	return state_add(fcinfo, c, u * pass_pow(d, secs_between(pass_floor(d, at), pass_floor(d, as_of))));
}

/*
 * slurm_last_pass(as_of, calc_period, phase[, starts]) and
 * slurm_next_pass(as_of, calc_period, phase[, starts]): the instant of
 * slurmctld's last decay pass at or before as_of, and of its first one
 * after as_of.  NULL as_of gives NULL.
 */
static const PassDecay *
pass_instants(FunctionCallInfo fcinfo)
{
	DecayCache *c = decay_cache(fcinfo);

	c->pass.lf = 0.0;
	c->pass.period_us = passes_period_us(fcinfo, 1);
	c->pass.period_s = (double) c->pass.period_us / USECS_PER_SEC;
	c->pass.phase = passes_phase(fcinfo, 2);
	pass_starts(fcinfo, c, 3);
	return &c->pass;
}

PG_FUNCTION_INFO_V1(fs_slurm_last_pass);
Datum
fs_slurm_last_pass(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ(pass_floor(pass_instants(fcinfo), fs_timestamp_arg(fcinfo, 0, "as_of")));
}

PG_FUNCTION_INFO_V1(fs_slurm_next_pass);
Datum
fs_slurm_next_pass(PG_FUNCTION_ARGS)
{
	TimestampTz next;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	next = pass_after(pass_instants(fcinfo), fs_timestamp_arg(fcinfo, 0, "as_of"));
	if (next == DT_NOEND)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the pass after %s is out of the timestamp range",
						pstrdup(timestamptz_to_str(PG_GETARG_TIMESTAMPTZ(0)))),
				 errhint("Pass an instant of the cluster's history.")));
	PG_RETURN_TIMESTAMPTZ(next);
}
