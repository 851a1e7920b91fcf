/*
 * decay_floor.c — measurement only, never installed with the extension: the
 * floors under decayed_usage's per-row cost (docs/performance.md#decayed_usage).
 *
 * Each transition function takes decayed_usage's point-form arguments
 * (state float8[3], usage, at, as_of, half_life), is non-strict and updates
 * its state in place as decay.c does, and does one step more than the one
 * before it:
 *
 *   count  the row count only: a C aggregate of these four arguments
 *   kahan  + the Neumaier sum of the usage
 *   div    + the exponent −age/half_life (the usage times it summed)
 *   exp    + glibc's exp2: decayed_usage's own arithmetic (the same bits,
 *          checked by decay_floor.sql before timing)
 *
 * and count1, the row count of a one-argument aggregate (usage): the
 * executor's cost of the three arguments more.  Rows with a NULL are skipped;
 * the half-life is read once per state (bench rows: one constant).
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/timestamp.h"

PG_MODULE_MAGIC;

typedef struct FloorCache
{
	const void *state;			/* the state array checked last */
	float8	   *v;				/* its three values */
	double		half_life_us;
} FloorCache;

/* The state's values, checked once per state array (as decay.c does). */
static float8 *
floor_state(FunctionCallInfo fcinfo, bool with_half_life)
{
	FloorCache *c = (FloorCache *) fcinfo->flinfo->fn_extra;
	ArrayType  *a;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(FloorCache));
		fcinfo->flinfo->fn_extra = c;
	}
	if (likely(c->state == DatumGetPointer(PG_GETARG_DATUM(0))))
		return c->v;
	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "decay_floor: an aggregate's transition function only");
	a = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_NDIM(a) != 1 || ARR_DIMS(a)[0] != 3 || ARR_HASNULL(a)
		|| ARR_ELEMTYPE(a) != FLOAT8OID)
		elog(ERROR, "decay_floor: expected a 3-element float8 state array");
	if (with_half_life)
	{
		Interval   *h = PG_GETARG_INTERVAL_P(4);

		c->half_life_us = (double) h->time
			+ ((double) h->day + (double) h->month * DAYS_PER_MONTH) * USECS_PER_DAY;
		if (!(c->half_life_us > 0))
			elog(ERROR, "decay_floor: a positive half-life only");
	}
	c->state = a;
	c->v = (float8 *) ARR_DATA_PTR(a);
	return c->v;
}

/* decay.c's kahan_add */
static inline void
floor_add(float8 *v, double x)
{
	double		t = v[1] + x;

	if (unlikely(isinf(t)))
		elog(ERROR, "decay_floor: the sum overflows");
	if (fabs(v[1]) >= fabs(x))
		v[2] += (v[1] - t) + x;
	else
		v[2] += (x - t) + v[1];
	v[1] = t;
	v[0] += 1.0;
}

#define FLOOR_ARGS_NULL(n) \
	(PG_ARGISNULL(0) | PG_ARGISNULL(1) | ((n) > 1 && (PG_ARGISNULL(2) | PG_ARGISNULL(3) | PG_ARGISNULL(4))))

/* −(as_of − at) in microseconds, as decay.c's point form computes it */
static inline double
floor_neg_age(FunctionCallInfo fcinfo)
{
	TimestampTz at = PG_GETARG_TIMESTAMPTZ(2);
	TimestampTz as_of = PG_GETARG_TIMESTAMPTZ(3);

	if (at > as_of)
		elog(ERROR, "decay_floor: rows before as_of only");
	return -((double) ((uint64) as_of - (uint64) at));
}

PG_FUNCTION_INFO_V1(decay_floor_count1);
Datum
decay_floor_count1(PG_FUNCTION_ARGS)
{
	if (FLOOR_ARGS_NULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	floor_state(fcinfo, false)[0] += 1.0;
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(decay_floor_count);
Datum
decay_floor_count(PG_FUNCTION_ARGS)
{
	if (FLOOR_ARGS_NULL(4))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	floor_state(fcinfo, true)[0] += 1.0;
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(decay_floor_kahan);
Datum
decay_floor_kahan(PG_FUNCTION_ARGS)
{
	if (FLOOR_ARGS_NULL(4))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	floor_add(floor_state(fcinfo, true), PG_GETARG_FLOAT8(1));
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(decay_floor_div);
Datum
decay_floor_div(PG_FUNCTION_ARGS)
{
	float8	   *v;

	if (FLOOR_ARGS_NULL(4))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	v = floor_state(fcinfo, true);
	floor_add(v, PG_GETARG_FLOAT8(1) * (floor_neg_age(fcinfo) / ((FloorCache *) fcinfo->flinfo->fn_extra)->half_life_us));
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(decay_floor_exp);
Datum
decay_floor_exp(PG_FUNCTION_ARGS)
{
	float8	   *v;

	if (FLOOR_ARGS_NULL(4))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	v = floor_state(fcinfo, true);
	floor_add(v, PG_GETARG_FLOAT8(1) * exp2(floor_neg_age(fcinfo) / ((FloorCache *) fcinfo->flinfo->fn_extra)->half_life_us));
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
