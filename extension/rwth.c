/*
 * rwth.c — RWTH Aachen (CLAIX) three-month sliding-window core-hour quota
 * (how the "Resource Quotas" page is read:
 * docs/policies.md#rwth-sliding-window-quota).  The SQL around it is
 * extension/rwth.sql.
 *
 * What lives here runs for every job or every project month of
 * r_wlm_usage (10^4 projects × 24 months under 2 s: docs/performance.md):
 *
 *   _rwth_month_hours   an aggregate: a project's jobs cut at the month
 *                       boundaries, the core-hours of each piece
 *                       (billing.sql core_hours, the node shape looked up
 *                       in the cluster's partitions) summed per month, in
 *                       one pass.  Written in SQL, each job became a row
 *                       per month it touched (generate_series), was joined
 *                       to its partition, evaluated core_hours per piece
 *                       and went through a hash aggregate on (project,
 *                       month): 3/4 of the report.
 *   _rwth_month_starts, _rwth_running_hours
 *                       the instants the months of a period begin, and the
 *                       running totals of the months: per project, where
 *                       SQL needed a sorted subquery for each.
 *   rwth_available_quota, rwth_quota_status
 *                       the month's quota arithmetic.  In PL/pgSQL each call
 *                       went through three functions with SET search_path.
 *   rwth_month_status   the same from the whole period's months, under
 *                       either rule of clusters.rwth_rule: the formula
 *                       ('window') or any three consecutive months
 *                       ('three_months'; docs/policies.md#the-three-consecutive-months-rule).
 *
 * They compute exactly what the SQL they replace computed, to the last bit:
 * the same float8 operations in the same order (utils/float.h's float8_pl,
 * float8_mul ... raise the same overflow errors as the SQL operators), the
 * hours of a piece as date_part('epoch', ended - started) / 3600.0 gives
 * them, and the sums in the order the rows arrive, as sum(float8) adds
 * (rwth_monthly_usage_at feeds the jobs in the order they started).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/int.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/datum.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "fairshare.h"

/*
 * The most months a period can touch: _rwth_month_starts gives the n + 1
 * instants its months begin, all within PostgreSQL's timestamps, whose
 * first whole month is December 4714 BC (astronomical year -4713) and whose
 * last month with an end is November 294276: n <= (294276 + 4713) × 12.
 */
#define RWTH_MAX_MONTHS		((294276 + 4713) * MONTHS_PER_YEAR)


/*
 * The arguments of _rwth_month_hours_accum, by number: the state, the
 * group's constants (the months, the window, the cluster's partitions and
 * GPU-hour factor), then the job's columns.
 */
#define ARG_BOUNDS			1
#define ARG_SINCE			2
#define ARG_UNTIL			3
#define ARG_PARTITIONS		4
#define ARG_WHOLE_NODE		5
#define ARG_CORES_PER_NODE	6
#define ARG_FACTOR			7
#define ARG_PARTITION		8
#define ARG_CPUS			9
#define ARG_STARTED			10
#define ARG_ENDED			11
#define ARG_EXCLUSIVE		12
#define ARG_NODES			13
#define ARG_GPUS			14

/*
 * The cluster's partitions as the aggregate was last given them (one per
 * call site, in fn_extra): the three arrays as they came, to recognise them
 * on the next row with a memcmp, and what the jobs need of each partition.
 * Looked up in C, a job's partition costs a few bytes compared; as a join to
 * the partitions table it was a quarter of r_wlm_usage (docs/performance.md).
 */
typedef struct PartitionTable
{
	MemoryContext cxt;			/* everything below; reset on a new table */
	struct varlena *raw[3];		/* partitions, whole_node, cores_per_node */
	bool		raw_null[3];
	int			n;
	char	  **name;
	int		   *name_len;
	bool	   *whole;			/* whole_node (NULL element: false) */
	bool	   *whole_null;
	int32	   *cores;			/* cores_per_node */
	bool	   *cores_null;
	int			hint;			/* the month of the previous row */
} PartitionTable;

/* The same datum as before, byte for byte (NULL equals NULL). */
static bool
same_raw(FunctionCallInfo fcinfo, int argno, const struct varlena *raw, bool raw_null)
{
	struct varlena *v;

	if (PG_ARGISNULL(argno) || raw_null)
		return PG_ARGISNULL(argno) && raw_null;
	v = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));
	return VARSIZE_ANY(v) == VARSIZE_ANY(raw) && memcmp(v, raw, VARSIZE_ANY(v)) == 0;
}

/* A one-dimensional array argument's elements (a NULL array has none). */
static int
array_elements(FunctionCallInfo fcinfo, int argno, Oid elemtype, int16 elmlen, bool elmbyval,
			   char elmalign, Datum **values, bool **nulls)
{
	ArrayType  *a;
	int			n;

	if (PG_ARGISNULL(argno))
	{
		*values = NULL;
		*nulls = NULL;
		return 0;
	}
	a = PG_GETARG_ARRAYTYPE_P_COPY(argno);
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_rwth_month_hours: the partitions must be given as one-dimensional arrays"),
				 errhint("Pass the cluster's partitions, whole_node and cores_per_node as three arrays of the same length.")));
	deconstruct_array(a, elemtype, elmlen, elmbyval, elmalign, values, nulls, &n);
	return n;
}

/* The cluster's partitions of this row: the cached table, or parsed anew. */
static PartitionTable *
partition_table(FunctionCallInfo fcinfo)
{
	PartitionTable *pt = (PartitionTable *) fcinfo->flinfo->fn_extra;
	MemoryContext old;
	Datum	   *names,
			   *whole,
			   *cores;
	bool	   *names_null,
			   *whole_null,
			   *cores_null;
	int			n,
				i;

	if (pt == NULL)
	{
		pt = (PartitionTable *) MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PartitionTable));
		pt->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt, "rwth partitions", ALLOCSET_SMALL_SIZES);
		pt->n = -1;
		fcinfo->flinfo->fn_extra = pt;
	}
	else if (pt->n >= 0
			 && same_raw(fcinfo, ARG_PARTITIONS, pt->raw[0], pt->raw_null[0])
			 && same_raw(fcinfo, ARG_WHOLE_NODE, pt->raw[1], pt->raw_null[1])
			 && same_raw(fcinfo, ARG_CORES_PER_NODE, pt->raw[2], pt->raw_null[2]))
		return pt;

	MemoryContextReset(pt->cxt);
	pt->n = -1;
	old = MemoryContextSwitchTo(pt->cxt);
	for (i = 0; i < 3; i++)
	{
		pt->raw_null[i] = PG_ARGISNULL(ARG_PARTITIONS + i);
		pt->raw[i] = pt->raw_null[i] ? NULL
			: (struct varlena *) datumCopy(PG_GETARG_DATUM(ARG_PARTITIONS + i), false, -1);
	}
	n = array_elements(fcinfo, ARG_PARTITIONS, TEXTOID, -1, false, TYPALIGN_INT, &names, &names_null);
	if (array_elements(fcinfo, ARG_WHOLE_NODE, BOOLOID, 1, true, TYPALIGN_CHAR, &whole, &whole_null) != n
		|| array_elements(fcinfo, ARG_CORES_PER_NODE, INT4OID, 4, true, TYPALIGN_INT, &cores, &cores_null) != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_rwth_month_hours: partitions, whole_node and cores_per_node must have the same length"),
				 errhint("Pass the cluster's partitions, whole_node and cores_per_node as three arrays of the same length.")));
	pt->name = (char **) palloc0(Max(n, 1) * sizeof(char *));
	pt->name_len = (int *) palloc0(Max(n, 1) * sizeof(int));
	pt->whole = (bool *) palloc0(Max(n, 1) * sizeof(bool));
	pt->whole_null = (bool *) palloc0(Max(n, 1) * sizeof(bool));
	pt->cores = (int32 *) palloc0(Max(n, 1) * sizeof(int32));
	pt->cores_null = (bool *) palloc0(Max(n, 1) * sizeof(bool));
	for (i = 0; i < n; i++)
	{
		if (names_null[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("_rwth_month_hours: partition %d has no name", i + 1),
					 errhint("Pass the names of the cluster's partitions (fairshare.partitions.partition).")));
		pt->name[i] = VARDATA_ANY(DatumGetPointer(names[i]));
		pt->name_len[i] = VARSIZE_ANY_EXHDR(DatumGetPointer(names[i]));
		pt->whole_null[i] = whole_null[i];
		pt->whole[i] = !whole_null[i] && DatumGetBool(whole[i]);
		pt->cores_null[i] = cores_null[i];
		pt->cores[i] = cores_null[i] ? 0 : DatumGetInt32(cores[i]);
	}
	MemoryContextSwitchTo(old);
	pt->n = n;
	return pt;
}

/*
 * Hours from started to ended (started <= ended), bit for bit what
 * date_part('epoch', ended - started) / 3600.0 gives: timestamptz minus
 * timestamptz is an interval justified into whole days and the rest of a
 * day, and date_part adds the seconds of the rest to 86400 × the days.
 */
static inline float8
piece_hours(TimestampTz started, TimestampTz ended)
{
	int64		us = ended - started;
	int64		days = us / USECS_PER_DAY;
	float8		secs;

	secs = (us - days * USECS_PER_DAY) / 1000000.0;
	secs += ((double) SECS_PER_DAY) * days;
	return float8_div(secs, 3600.0);
}

/*
 * The core-hours rate of a job, as core_hours (billing.sql) computes it for
 * a job joined to its partition p: GREATEST(cores, gpus × gpu_hour_factor),
 * where cores is nodes × p.cores_per_node for a job that pays whole nodes
 * (exclusive OR p.whole_node) and its CPUs otherwise.  NULLs follow the
 * SQL: a NULL factor counts 0, GREATEST skips a NULL side, and false comes
 * back when both sides are NULL or the partition is not in the table (the
 * job counts nothing, as sum() skips a NULL and the join dropped the job).
 */
static bool
job_rate(FunctionCallInfo fcinfo, const PartitionTable *pt, float8 *rate)
{
	text	   *partition;
	const char *name;
	int			len,
				i;
	int32		cpus = PG_GETARG_INT32(ARG_CPUS);
	bool		nodes_null = PG_ARGISNULL(ARG_NODES),
				gpus_null = PG_ARGISNULL(ARG_GPUS);
	int32		nodes = nodes_null ? 0 : PG_GETARG_INT32(ARG_NODES);
	int32		gpus = gpus_null ? 0 : PG_GETARG_INT32(ARG_GPUS);
	float8		factor = PG_ARGISNULL(ARG_FACTOR) ? 0.0 : PG_GETARG_FLOAT8(ARG_FACTOR);
	bool		exclusive_null = PG_ARGISNULL(ARG_EXCLUSIVE);
	bool		exclusive = !exclusive_null && PG_GETARG_BOOL(ARG_EXCLUSIVE);
	bool		whole,
				have_cores = true;
	float8		cores = 0,
				gpu_rate;

	if (PG_ARGISNULL(ARG_PARTITION))
		return false;
	partition = PG_GETARG_TEXT_PP(ARG_PARTITION);
	name = VARDATA_ANY(partition);
	len = VARSIZE_ANY_EXHDR(partition);
	for (i = 0; i < pt->n; i++)
		if (pt->name_len[i] == len && memcmp(pt->name[i], name, len) == 0)
			break;
	if (i == pt->n)
		return false;

	/* core_hours' own check (its error would come from _core_hours_invalid) */
	if (cpus < 0 || nodes < 0 || gpus < 0 || !(factor >= 0.0 && factor < get_float8_infinity()))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("core_hours: negative or reversed input (cpus %d, nodes %s, gpus %s, gpu_hour_factor %s)",
						cpus, nodes_null ? "NULL" : psprintf("%d", nodes),
						gpus_null ? "NULL" : psprintf("%d", gpus), fs_float_text(factor)),
				 errhint("Counts and factors are >= 0 and a job ends after it starts.")));
	/* (exclusive OR whole_node) AND cores_per_node IS NOT NULL, NULL as false */
	whole = (exclusive || pt->whole[i]) && !pt->cores_null[i];
	if (whole)
	{
		int32		product;

		if (nodes_null)
			have_cores = false;
		else if (pg_mul_s32_overflow(nodes, pt->cores[i], &product))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("integer out of range")));
		else
			cores = (float8) product;
	}
	else
		cores = (float8) cpus;
	if (gpus_null)
	{
		*rate = cores;
		return have_cores;
	}
	gpu_rate = float8_mul((float8) gpus, factor);
	/* GREATEST keeps the first of equal values */
	*rate = (!have_cores || gpu_rate > cores) ? gpu_rate : cores;
	return true;
}

/*
 * The bounds of a row: n + 1 instants b[0] <= ... <= b[n], finite, no NULL;
 * month k (0-based) is [b[k], b[k+1]).
 */
static const TimestampTz *
row_bounds(FunctionCallInfo fcinfo, int *n)
{
	ArrayType  *a;
	const TimestampTz *b;
	int			len,
				k;

	if (PG_ARGISNULL(ARG_BOUNDS))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("_rwth_month_hours: bounds must not be NULL"),
				 errhint("Pass the instants the months begin, and the end of the last one.")));
	a = PG_GETARG_ARRAYTYPE_P(ARG_BOUNDS);
	len = ARR_NDIM(a) == 1 ? ARR_DIMS(a)[0] : 0;
	if (ARR_NDIM(a) > 1 || len < 2 || ARR_HASNULL(a))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_rwth_month_hours: bounds must be a one-dimensional array of at least 2 instants without NULLs"),
				 errhint("Pass the instants the months begin, and the end of the last one.")));
	b = (const TimestampTz *) ARR_DATA_PTR(a);
	for (k = 0; k < len; k++)
	{
		if (unlikely(TIMESTAMP_NOT_FINITE(b[k])))
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("_rwth_month_hours: bound %d is %s, not a finite instant", k + 1,
							TIMESTAMP_IS_NOBEGIN(b[k]) ? "-infinity" : "infinity"),
					 errhint("Pass the instants the months begin, and the end of the last one.")));
		if (unlikely(k > 0 && b[k] < b[k - 1]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("_rwth_month_hours: bounds must not decrease (bound %d is before bound %d)", k + 1, k),
					 errhint("Pass the instants the months begin in order.")));
	}
	*n = len - 1;
	return b;
}

/* The state: n sums, float8[n], all 0 to begin with. */
static ArrayType *
state_new(int n)
{
	ArrayType  *st;
	Size		size = ARR_OVERHEAD_NONULLS(1) + n * sizeof(float8);

	st = (ArrayType *) palloc0(size);
	SET_VARSIZE(st, size);
	st->ndim = 1;
	st->dataoffset = 0;
	st->elemtype = FLOAT8OID;
	ARR_DIMS(st)[0] = n;
	ARR_LBOUND(st)[0] = 1;
	return st;
}

PG_FUNCTION_INFO_V1(fs_rwth_month_hours_accum);

/*
 * (state float8[], bounds timestamptz[], since, until, partitions text[],
 * whole_node boolean[], cores_per_node integer[], gpu_hour_factor,
 * partition, cpus, started, ended, exclusive, nodes, gpus): the job's
 * core-hours within [since, until) added to the months it touches, the
 * piece in month k being [max(started, since, b[k]), min(ended, until,
 * b[k + 1])), as rwth_monthly_usage_at cut them in SQL.  A job without an
 * end runs to until.  A row without cpus or started counts nothing, as
 * core_hours gives NULL for it; nor does a job outside the bounds or the
 * window, or ending when it starts, or in a partition not in the table.
 * The state is updated in place when called as an aggregate.
 */
Datum
fs_rwth_month_hours_accum(PG_FUNCTION_ARGS)
{
	const TimestampTz *b;
	int			n,
				lo,
				hi,
				k;
	TimestampTz s,
				e,
				until;
	ArrayType  *st;
	float8	   *sum;
	float8		rate;
	PartitionTable *pt;

	b = row_bounds(fcinfo, &n);
	if (PG_ARGISNULL(ARG_SINCE) || PG_ARGISNULL(ARG_UNTIL))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("_rwth_month_hours: since and until must not be NULL"),
				 errhint("Pass the window the jobs count in: the period, up to as_of.")));
	pt = partition_table(fcinfo);
	if (PG_ARGISNULL(ARG_CPUS) || PG_ARGISNULL(ARG_STARTED))
		goto unchanged;
	until = PG_GETARG_TIMESTAMPTZ(ARG_UNTIL);
	s = Max(Max(PG_GETARG_TIMESTAMPTZ(ARG_STARTED), PG_GETARG_TIMESTAMPTZ(ARG_SINCE)), b[0]);
	e = PG_ARGISNULL(ARG_ENDED) ? until : Min(PG_GETARG_TIMESTAMPTZ(ARG_ENDED), until);
	e = Min(e, b[n]);
	/* b[0] <= s < e <= b[n]: the job has a piece in some month */
	if (s >= e || !job_rate(fcinfo, pt, &rate))
		goto unchanged;

	if (PG_ARGISNULL(0))
		st = state_new(n);		/* the executor copies it into the aggregate's context */
	else
	{
		st = PG_GETARG_ARRAYTYPE_P(0);
		if (!AggCheckCallContext(fcinfo, NULL))
			st = (ArrayType *) pg_detoast_datum_copy((struct varlena *) st);
		/* (only a direct call can pass a state the aggregate did not make) */
		if (ARR_NDIM(st) != 1 || ARR_HASNULL(st) || ARR_ELEMTYPE(st) != FLOAT8OID)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("_rwth_month_hours: the state must be a one-dimensional float8 array without NULLs"),
					 errhint("Call the aggregate _rwth_month_hours, not its transition function.")));
		if (ARR_DIMS(st)[0] != n)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("_rwth_month_hours: bounds give %d months, earlier rows of the group %d", n, ARR_DIMS(st)[0]),
					 errhint("Pass the same number of months for every row of a group.")));
	}
	sum = (float8 *) ARR_DATA_PTR(st);

	/*
	 * The first month ending after s: the smallest k with b[k + 1] > s.  The
	 * rows come in the order of their start, so the previous row's month
	 * (checked before use) is nearly always it.
	 */
	lo = pt->hint;
	if (!(lo < n && b[lo + 1] > s && (lo == 0 || b[lo] <= s)))
	{
		lo = 0;
		hi = n - 1;
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (b[mid + 1] > s)
				hi = mid;
			else
				lo = mid + 1;
		}
		pt->hint = lo;
	}
	for (k = lo; k < n && b[k] < e; k++)
	{
		TimestampTz ws = Max(s, b[k]),
					we = Min(e, b[k + 1]);

		if (ws < we)
			sum[k] = float8_pl(sum[k], float8_mul(rate, piece_hours(ws, we)));
	}
	PG_RETURN_ARRAYTYPE_P(st);

unchanged:
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}


/*
 * The first of the month i months after y-m, 00:00, as a timestamp; false
 * when that is outside the range of timestamps.
 */
static bool
month_start(int y, int m, int i, Timestamp *ts)
{
	int			mm = m - 1 + i;
	int			jd = date2j(y + mm / MONTHS_PER_YEAR, mm % MONTHS_PER_YEAR + 1, 1);

	/* (checked before the multiplication, which could overflow) */
	if (jd < DATETIME_MIN_JULIAN || jd >= TIMESTAMP_END_JULIAN)
		return false;
	*ts = (Timestamp) (jd - POSTGRES_EPOCH_JDATE) * USECS_PER_DAY;
	return IS_VALID_TIMESTAMP(*ts);
}

/*
 * (a float8[], b float8[]): the combine function of _rwth_month_hours, two
 * partial states of one group added month by month, so that parallel query
 * and Citus's workers split the aggregate (docs/citus.md).  NULL is the
 * state of no piece yet.  Not STRICT: with one side NULL the other is the
 * result, copied into the aggregate's context by the executor.
 */
PG_FUNCTION_INFO_V1(fs_rwth_month_hours_combine);

static ArrayType *
combine_state(FunctionCallInfo fcinfo, int argno)
{
	ArrayType  *st = PG_GETARG_ARRAYTYPE_P(argno);

	if (ARR_NDIM(st) != 1 || ARR_HASNULL(st) || ARR_ELEMTYPE(st) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_rwth_month_hours: the state must be a one-dimensional float8 array without NULLs"),
				 errhint("Call the aggregate _rwth_month_hours, not its combine function.")));
	return st;
}

Datum
fs_rwth_month_hours_combine(PG_FUNCTION_ARGS)
{
	ArrayType  *a,
			   *b;
	float8	   *x;
	const float8 *y;
	int			n,
				k;

	if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_ARRAYTYPE_P(combine_state(fcinfo, 0));
	if (PG_ARGISNULL(0))
		PG_RETURN_ARRAYTYPE_P(combine_state(fcinfo, 1));
	a = combine_state(fcinfo, 0);
	b = combine_state(fcinfo, 1);
	n = ARR_DIMS(a)[0];
	if (ARR_DIMS(b)[0] != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_rwth_month_hours: partial states of %d and %d months", n, ARR_DIMS(b)[0]),
				 errhint("Pass the same number of months for every row of a group.")));
	/* in place in the aggregate's own state; a copy for a direct call */
	if (!AggCheckCallContext(fcinfo, NULL))
		a = (ArrayType *) pg_detoast_datum_copy((struct varlena *) a);
	x = (float8 *) ARR_DATA_PTR(a);
	y = (const float8 *) ARR_DATA_PTR(b);
	for (k = 0; k < n; k++)
		x[k] = float8_pl(x[k], y[k]);
	PG_RETURN_ARRAYTYPE_P(a);
}

PG_FUNCTION_INFO_V1(fs_rwth_month_starts);

/*
 * (period_start date, period_end date, timezone text) → timestamptz[]: the
 * instants the calendar months from period_start's to period_end's begin in
 * the time zone, and the end of the last: n + 1 instants for n months, each
 * (first of the month)::timestamp AT TIME ZONE timezone.  STRICT.
 */
Datum
fs_rwth_month_starts(PG_FUNCTION_ARGS)
{
	DateADT		first = PG_GETARG_DATEADT(0),
				last = PG_GETARG_DATEADT(1);
	Datum		zone = PG_GETARG_DATUM(2);
	int			y0,
				m0,
				y1,
				m1,
				d,
				n,
				i;
	Timestamp	local;
	Datum	   *starts;

	if (DATE_NOT_FINITE(first) || DATE_NOT_FINITE(last))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("_rwth_month_starts: the period must have finite dates"),
				 errhint("An accounting period starts and ends on real days.")));
	if (last < first)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_rwth_month_starts: period_end is before period_start"),
				 errhint("An accounting period ends on or after the day it starts.")));
	j2date(first + POSTGRES_EPOCH_JDATE, &y0, &m0, &d);
	j2date(last + POSTGRES_EPOCH_JDATE, &y1, &m1, &d);
	n = (y1 - y0) * MONTHS_PER_YEAR + m1 - m0 + 1;
	/* the starts increase: the first and the last in range, all are */
	if (!month_start(y0, m0, 0, &local) || !month_start(y0, m0, n, &local))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("date out of range for timestamp")));
	starts = (Datum *) palloc((n + 1) * sizeof(Datum));
	for (i = 0; i <= n; i++)
	{
		(void) month_start(y0, m0, i, &local);
		starts[i] = DirectFunctionCall2(timestamp_zone, zone, TimestampGetDatum(local));
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(starts, n + 1, TIMESTAMPTZOID, sizeof(TimestampTz),
										  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

PG_FUNCTION_INFO_V1(fs_rwth_running_hours);

/*
 * (hours float8[], months integer) → float8[months]: element k the sum of
 * hours[1..k], a missing or NULL element counting 0 and a NULL array being
 * all 0; added left to right from the first, as sum() OVER (ORDER BY month
 * ROWS UNBOUNDED PRECEDING) adds the months.  r_wlm_usage's consumed_total.
 */
Datum
fs_rwth_running_hours(PG_FUNCTION_ARGS)
{
	int			n,
				len = 0,
				k;
	ArrayType  *a = NULL;
	const float8 *h = NULL;
	const bits8 *nullbits = NULL;
	Datum	   *out;
	float8		run = 0.0;

	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	n = PG_GETARG_INT32(1);
	/*
	 * months sizes the result: unchecked, 2^31 - 1 asked for a 16 GB array
	 * (XX000) and 10^8 built 800 MB for any role.  No period has
	 * more months than _rwth_month_starts can give, the months PostgreSQL's
	 * timestamps span (RWTH_MAX_MONTHS, 29 MB of float8).
	 */
	if (n < 0 || n > RWTH_MAX_MONTHS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("_rwth_running_hours: months must be between 0 and %d, not %d", RWTH_MAX_MONTHS, n),
				 errhint("Pass the number of months of the period.")));
	if (!PG_ARGISNULL(0))
	{
		a = PG_GETARG_ARRAYTYPE_P(0);
		if (ARR_NDIM(a) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("_rwth_running_hours: hours must be a one-dimensional array"),
					 errhint("Pass the hours of each month, as _rwth_month_hours gives them.")));
		len = ARR_NDIM(a) == 1 ? ARR_DIMS(a)[0] : 0;
		h = (const float8 *) ARR_DATA_PTR(a);
		nullbits = ARR_NULLBITMAP(a);
	}
	out = (Datum *) palloc((n > 0 ? n : 1) * sizeof(Datum));
	for (k = 0; k < n; k++)
	{
		float8		x = 0.0;

		if (k < len)
		{
			if (nullbits == NULL || (nullbits[k / 8] & (1 << (k % 8))))
				x = *h++;
		}
		/* sum() starts from the first value itself */
		run = k == 0 ? x : float8_pl(run, x);
		out[k] = Float8GetDatum(run);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(out, n, FLOAT8OID, sizeof(float8),
										  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * The quota of a month (rwth_available_quota, rwth_quota_status).  Checks
 * and messages are those of the PL/pgSQL they replace: every number given
 * is finite and >= 0, the current month's allowance and consumption are
 * required, and a previous month inside the period needs its consumption.
 */
static const char *const quota_arg_names[5] = {
	"allowance_prev", "allowance_cur", "allowance_next", "consumed_prev", "consumed_cur"
};

/* a float8 as RAISE prints it (float8out, extra_float_digits applies) */
static char *
float_out(float8 x)
{
	return DatumGetCString(DirectFunctionCall1(float8out, Float8GetDatum(x)));
}

static inline bool
valid_hours(float8 x)
{
	/* false for NaN too */
	return x >= 0.0 && x < get_float8_infinity();
}

/*
 * Reads the five arguments (0..4) into v / isnull and checks them; fn names
 * the function in the messages.
 */
static void
quota_args(FunctionCallInfo fcinfo, const char *fn, float8 *v, bool *isnull)
{
	int			i;

	for (i = 0; i < 5; i++)
	{
		isnull[i] = PG_ARGISNULL(i);
		v[i] = isnull[i] ? 0.0 : PG_GETARG_FLOAT8(i);
		if (!isnull[i] && !valid_hours(v[i]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s must be a finite number of core-hours >= 0, not %s",
							fn, quota_arg_names[i], float_out(v[i])),
					 errhint("Allowances and consumption are core-hours; NULL marks a month outside the period.")));
	}
	if (isnull[1] || isnull[4])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: the current month's allowance and consumption must not be NULL", fn),
				 errhint("Only the previous and the next month may be NULL (outside the accounting period).")));
	if (!isnull[0] && isnull[3])
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: consumed_prev is NULL but the previous month lies in the period (allowance_prev %s)",
						fn, float_out(v[0])),
				 errhint("Pass 0 for a month without jobs, or NULL allowance_prev for a month outside the period.")));
}

/*
 * available(m) = A(m−1) + A(m) + A(m+1) − C(m−1) − C(m), a NULL (outside
 * the period) A(m−1) or A(m+1) counting 0 and ignoring C(m−1), added in
 * that order.
 */
static float8
quota_available(const float8 *v, const bool *isnull)
{
	float8		r;

	r = float8_pl(isnull[0] ? 0.0 : v[0], v[1]);
	r = float8_pl(r, isnull[2] ? 0.0 : v[2]);
	r = float8_mi(r, isnull[0] ? 0.0 : v[3]);
	return float8_mi(r, v[4]);
}

PG_FUNCTION_INFO_V1(fs_rwth_available_quota);

Datum
fs_rwth_available_quota(PG_FUNCTION_ARGS)
{
	float8		v[5];
	bool		isnull[5];

	quota_args(fcinfo, "rwth_available_quota", v, isnull);
	PG_RETURN_FLOAT8(quota_available(v, isnull));
}

/*
 * The totals of rwth_quota_status and rwth_month_status (arguments at_arg
 * and at_arg + 1), when given, finite and >= 0 (22023).
 */
static void
quota_totals_check(FunctionCallInfo fcinfo, const char *fn, int at_arg)
{
	bool		at_null = PG_ARGISNULL(at_arg),
				ct_null = PG_ARGISNULL(at_arg + 1);
	float8		at = at_null ? 0.0 : PG_GETARG_FLOAT8(at_arg),
				ct = ct_null ? 0.0 : PG_GETARG_FLOAT8(at_arg + 1);

	if ((!at_null && !valid_hours(at)) || (!ct_null && !valid_hours(ct)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: totals must be finite numbers of core-hours >= 0 (allowance_total %s, consumed_total %s)",
						fn, at_null ? "<NULL>" : float_out(at), ct_null ? "<NULL>" : float_out(ct)),
				 errhint("NULL totals skip the \"total quota exceeded twice\" test.")));
}

/*
 * The row of rwth_quota_status and rwth_month_status from a month's
 * available quota, the previous month's remainder and the balance: the
 * percentages of A(m) (cur_allowance), low priority and blocked, the same
 * whichever rule gave available and balance
 * (docs/policies.md#rwth-sliding-window-quota); the totals checked by
 * quota_totals_check.
 */
static Datum
quota_status_row(FunctionCallInfo fcinfo, const char *fn, int at_arg, float8 available,
				 float8 remaining_prev, float8 balance, float8 cur_allowance, float8 cur_consumed)
{
	bool		at_null = PG_ARGISNULL(at_arg),
				ct_null = PG_ARGISNULL(at_arg + 1);
	float8		at = at_null ? 0.0 : PG_GETARG_FLOAT8(at_arg),
				ct = ct_null ? 0.0 : PG_GETARG_FLOAT8(at_arg + 1);
	bool		blocked;
	Datum		values[8];
	bool		nulls[8] = {false};
	TupleDesc	tupdesc = (TupleDesc) fcinfo->flinfo->fn_extra;

	/* the row type, once per call site */
	if (tupdesc == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "%s: return type must be a row type", fn);
		tupdesc = BlessTupleDesc(CreateTupleDescCopy(tupdesc));
		fcinfo->flinfo->fn_extra = tupdesc;
		MemoryContextSwitchTo(old);
	}

	values[0] = Float8GetDatum(available);
	values[1] = Float8GetDatum(remaining_prev);
	values[2] = Float8GetDatum(balance);
	if (cur_allowance > 0)
	{
		float8		pct = float8_div(float8_mul(100.0, balance), cur_allowance);

		values[3] = Float8GetDatum(pct);
		values[4] = Float8GetDatum(pct < -100.0 ? -101.0 : pct);
		values[5] = Float8GetDatum(float8_div(float8_mul(100.0, available), cur_allowance));
	}
	else
		nulls[3] = nulls[4] = nulls[5] = true;
	values[6] = BoolGetDatum(available <= 0.0);
	/*
	 * C(m) > 6 × A(m) OR coalesce(total > 2 × allowance_total, false), as
	 * SQL evaluates it: the right side only when the left is false, and
	 * 2 × allowance_total (whose overflow raises) whenever it is given
	 */
	blocked = cur_consumed > float8_mul(6.0, cur_allowance);
	if (!blocked && !at_null)
	{
		float8		twice = float8_mul(2.0, at);

		blocked = !ct_null && ct > twice;
	}
	values[7] = BoolGetDatum(blocked);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(fs_rwth_quota_status);

/*
 * (allowance_prev, allowance_cur, allowance_next, consumed_prev,
 * consumed_cur, allowance_total, consumed_total) → (available,
 * remaining_prev, balance, balance_pct, balance_pct_display, available_pct,
 * low_priority, blocked); see rwth.sql for the rule.
 */
Datum
fs_rwth_quota_status(PG_FUNCTION_ARGS)
{
	float8		v[5];
	bool		isnull[5];
	float8		available,
				remaining_prev,
				balance;

	quota_args(fcinfo, "rwth_available_quota", v, isnull);
	available = quota_available(v, isnull);
	/* (the totals after the month's arithmetic, as always) */
	quota_totals_check(fcinfo, "rwth_quota_status", 5);
	remaining_prev = isnull[0] ? 0.0 : float8_mi(v[0], v[3]);
	balance = float8_mi(float8_pl(remaining_prev, v[1]), v[4]);
	return quota_status_row(fcinfo, "rwth_quota_status", 5, available, remaining_prev, balance, v[1], v[4]);
}

/*
 * rwth_month_status: the quota of month m of a period from the allowances
 * and consumption of all its months, under either rule of
 * clusters.rwth_rule (docs/policies.md#rwth-sliding-window-quota):
 *
 *   window        the "Resource Quotas" page's A(m−1) + A(m) + A(m+1) −
 *                 C(m−1) − C(m), computed by quota_available as
 *                 rwth_quota_status computes it, to the last bit;
 *   three_months  the "Computing Time Accounting" page's "up to three
 *                 times the monthly quota over any three consecutive
 *                 months": the smallest, over the three windows of three
 *                 months that contain m, of the allowances of the window's
 *                 months inside the period minus the consumption of its
 *                 months up to m.
 */
#define RWTH_RULE_WINDOW		0
#define RWTH_RULE_THREE_MONTHS	1

/*
 * A float8[] argument of rwth_month_status: one-dimensional, no NULL, each
 * element a finite number of core-hours >= 0.  Returns its elements (the
 * array's own storage) and their number.
 */
static const float8 *
month_hours_arg(FunctionCallInfo fcinfo, int argno, const char *name, int *n)
{
	ArrayType  *a;
	const float8 *x;
	int			len,
				k;

	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rwth_month_status: %s must not be NULL", name),
				 errhint("Pass the core-hours of each month of the accounting period, in order (0 for a month without jobs).")));
	a = PG_GETARG_ARRAYTYPE_P(argno);
	len = ARR_NDIM(a) == 1 ? ARR_DIMS(a)[0] : 0;
	if (ARR_NDIM(a) != 1 || len < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rwth_month_status: %s must be a one-dimensional array of at least one month, not one of %d dimensions",
						name, ARR_NDIM(a)),
				 errhint("Pass the core-hours of each month of the accounting period, in order.")));
	if (ARR_HASNULL(a))
	{
		const bits8 *bits = ARR_NULLBITMAP(a);

		for (k = 0; k < len; k++)
			if (!(bits[k / 8] & (1 << (k % 8))))
				break;
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rwth_month_status: %s[%d] is NULL", name, k + 1),
				 errhint("Pass 0 for a month without jobs; every month of the period has an allowance.")));
	}
	x = (const float8 *) ARR_DATA_PTR(a);
	for (k = 0; k < len; k++)
		if (!valid_hours(x[k]))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rwth_month_status: %s[%d] must be a finite number of core-hours >= 0, not %s",
							name, k + 1, float_out(x[k])),
					 errhint("Allowances and consumption are core-hours.")));
	*n = len;
	return x;
}

PG_FUNCTION_INFO_V1(fs_rwth_month_status);

/*
 * (allowances float8[], consumed float8[], month integer, rule text,
 * allowance_total float8, consumed_total float8) → the row of
 * rwth_quota_status.  allowances holds A(1..n); consumed C(1..k), month
 * <= k <= n (the months after month are not read: they have consumed
 * nothing yet at month's end); month is m, 1..n.  The balance is available
 * without the allowances of the months after m (under window, A(m−1) +
 * A(m) − C(m−1) − C(m), as rwth_quota_status), remaining_prev A(m−1) −
 * C(m−1) under both rules.  CALLED ON NULL INPUT: every NULL but the
 * totals' raises 22004, naming the argument.
 */
Datum
fs_rwth_month_status(PG_FUNCTION_ARGS)
{
	const float8 *a,
			   *c;
	int			n,
				nc,
				m,
				rule;
	float8		available,
				remaining_prev,
				balance;

	a = month_hours_arg(fcinfo, 0, "allowances", &n);
	c = month_hours_arg(fcinfo, 1, "consumed", &nc);
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rwth_month_status: month must not be NULL"),
				 errhint("Pass the number of the month in the period, 1 for its first month.")));
	m = PG_GETARG_INT32(2);
	if (m < 1 || m > n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rwth_month_status: month must be between 1 and %d (the months of allowances), not %d", n, m),
				 errhint("Pass the number of the month in the period, 1 for its first month.")));
	if (nc < m || nc > n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rwth_month_status: consumed has %d months, month %d of a period of %d needs %d to %d",
						nc, m, n, m, n),
				 errhint("Pass the consumption of every month of the period up to the month, at least.")));
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rwth_month_status: rule must not be NULL"),
				 errhint("Pass 'window' or 'three_months', as clusters.rwth_rule.")));
	{
		text	   *r = PG_GETARG_TEXT_PP(3);
		const char *rs = VARDATA_ANY(r);
		int			rl = VARSIZE_ANY_EXHDR(r);

		if (rl == 6 && memcmp(rs, "window", 6) == 0)
			rule = RWTH_RULE_WINDOW;
		else if (rl == 12 && memcmp(rs, "three_months", 12) == 0)
			rule = RWTH_RULE_THREE_MONTHS;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("rwth_month_status: rule must be window or three_months, not \"%s\"",
							text_to_cstring(r)),
					 errhint("window: A(m−1) + A(m) + A(m+1) − C(m−1) − C(m); three_months: any three consecutive months within their allowances (docs/policies.md#rwth-sliding-window-quota).")));
	}
	quota_totals_check(fcinfo, "rwth_month_status", 4);

	/* (0-based below: month k of the period is a[k - 1], c[k - 1]) */
	remaining_prev = m > 1 ? float8_mi(a[m - 2], c[m - 2]) : 0.0;
	if (rule == RWTH_RULE_WINDOW)
	{
		float8		v[5];
		bool		isnull[5];

		isnull[0] = isnull[3] = m == 1;
		isnull[1] = isnull[4] = false;
		isnull[2] = m == n;
		v[0] = m > 1 ? a[m - 2] : 0.0;
		v[1] = a[m - 1];
		v[2] = m < n ? a[m] : 0.0;
		v[3] = m > 1 ? c[m - 2] : 0.0;
		v[4] = c[m - 1];
		available = quota_available(v, isnull);
		balance = float8_mi(float8_pl(remaining_prev, v[1]), v[4]);
	}
	else
	{
		int			s,
					k;

		/*
		 * The windows [s, s + 2] for s = m − 2 .. m, each cut to the period:
		 * its allowances summed from its first month (those up to m apart,
		 * for the balance), its consumption up to m, the smallest of each
		 * difference kept.  A window that starts before the period or ends
		 * after it has only its months inside: months outside count 0.
		 */
		available = balance = 0.0;
		for (s = m - 2; s <= m; s++)
		{
			float8		sum_a = 0.0,
						sum_a_to_m = 0.0,
						sum_c = 0.0,
						w_available,
						w_balance;

			for (k = Max(s, 1); k <= Min(s + 2, n); k++)
			{
				sum_a = float8_pl(sum_a, a[k - 1]);
				if (k <= m)
				{
					sum_a_to_m = float8_pl(sum_a_to_m, a[k - 1]);
					sum_c = float8_pl(sum_c, c[k - 1]);
				}
			}
			w_available = float8_mi(sum_a, sum_c);
			w_balance = float8_mi(sum_a_to_m, sum_c);
			if (s == m - 2 || w_available < available)
				available = w_available;
			if (s == m - 2 || w_balance < balance)
				balance = w_balance;
		}
	}
	return quota_status_row(fcinfo, "rwth_month_status", 4, available, remaining_prev, balance,
							a[m - 1], c[m - 1]);
}
