/*
 * genci.c — GENCI regulation of under-consumption (IDRIS/CINES/TGCC): the
 * pure functions of docs/regulation.md#genci-pure-functions, the rules as
 * docs/policies.md#genci-monthly-regulation and
 * docs/policies.md#genci-mid-term-regulation read them.  The SQL around
 * them (the journal, the procedure, the report) is extension/genci.sql.
 *
 * A report or a BI tool calls them once per allocation and day: a year of
 * daily status for 10^4 allocations is 3.65 million calls.  PostgreSQL can
 * neither inline nor speed up a procedural function, so they are C, each
 * within a small factor of the same arithmetic written as a plain SQL
 * expression (docs/performance.md#the-per-row-functions).
 *
 *   theoretical_consumption   A × E / D
 *   genci_period_months       the divisor of the monthly allocation
 *   genci_allocation_month    month k of the allocation a day falls in
 *   genci_status, genci_penalty
 *                             the monthly regulation (GENCI and TGCC)
 *   genci_midterm_status, genci_midterm_penalty
 *                             the mid-term regulation
 *
 * They answer exactly what the rules' SQL arithmetic answers, to the last
 * bit and to the error (sql/genci_reference.sql compares them with that
 * arithmetic, written in PL/pgSQL, over a grid of inputs):
 *   - hours are float8, combined with utils/float.h's float8_mul,
 *     float8_div ... in the order the rules write them: the same overflow
 *     and underflow errors (22003) as the SQL operators;
 *   - a day count is a difference of dates (int4); "start + n months" is
 *     PostgreSQL's date + interval (timestamp_pl_interval: the day clamped
 *     to the month's last, 22008 past the timestamps' last day, 294276-12-31);
 *     the months between two days are counted from extract(year) and
 *     extract(month), which know no year 0 (1 BC is year −1);
 *   - the argument checks, their order, messages and SQLSTATEs are the
 *     rules' (docs/regulation.md#genci-pure-functions); a number in a
 *     message is printed by float8out and a day by date_out, so that
 *     extra_float_digits and DateStyle apply as to any value a query shows.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/int.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/float.h"

#include "fairshare.h"

/* a float8 as a message prints it (float8out: extra_float_digits applies) */
static char *
hours_text(float8 x)
{
	return DatumGetCString(DirectFunctionCall1(float8out, Float8GetDatum(x)));
}

/* a day as a message prints it (date_out: DateStyle applies) */
static char *
day_text(DateADT d)
{
	return DatumGetCString(DirectFunctionCall1(date_out, DateADTGetDatum(d)));
}

static inline bool
valid_hours(float8 x)
{
	/* false for NaN too */
	return x >= 0.0 && x < get_float8_infinity();
}

/*
 * The checks every GENCI function makes, in this order
 * (docs/regulation.md#genci-pure-functions): the allocation, then the
 * consumption (each a finite number of hours >= 0: 22023; NULL pointer: the
 * function has no such argument), the three days finite (22008), the period
 * not ending before it starts (22023).  fn names the function in the
 * message.
 */
static void
check_args(const char *fn, const float8 *allocation, const float8 *consumed,
		   DateADT period_start, DateADT period_end, DateADT as_of)
{
	if (allocation != NULL && unlikely(!valid_hours(*allocation)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: allocation must be a finite number of hours >= 0, not %s",
						fn, hours_text(*allocation)),
				 errhint("Pass the net allocation in hours (initial grant + additions − take-backs).")));
	if (consumed != NULL && unlikely(!valid_hours(*consumed)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: consumed must be a finite number of hours >= 0, not %s",
						fn, hours_text(*consumed)),
				 errhint("Consumption is the hours used since the period started.")));
	if (unlikely(DATE_NOT_FINITE(period_start) || DATE_NOT_FINITE(period_end) || DATE_NOT_FINITE(as_of)))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("%s: dates must be finite (period %s to %s, as_of %s)",
						fn, day_text(period_start), day_text(period_end), day_text(as_of)),
				 errhint("An allocation period and the day of the check are calendar days.")));
	if (unlikely(period_end < period_start))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: period_end %s is before period_start %s",
						fn, day_text(period_end), day_text(period_start)),
				 errhint("The period is inclusive: it ends on or after the day it starts.")));
}

/*
 * Month arithmetic.  Days are DateADT (days from 2000-01-01), finite.
 */

/* the calendar date of a day (astronomical year: 1 BC is 0) */
static inline void
day_ymd(DateADT day, int *year, int *month, int *mday)
{
	j2date(day + POSTGRES_EPOCH_JDATE, year, month, mday);
}

/*
 * Months from the month of a to the month of b, as
 * (extract(year FROM b) − extract(year FROM a)) × 12 + extract(month FROM b)
 * − extract(month FROM a) counts them: extract(year) has no year 0, so
 * across 1 BC / 1 AD the count is 12 more than the calendar's.
 */
static int
month_count(int year_a, int month_a, int year_b, int month_b)
{
	int			ya = year_a > 0 ? year_a : year_a - 1;
	int			yb = year_b > 0 ? year_b : year_b - 1;

	/* |years| < 6 × 10^6: no overflow */
	return (yb - ya) * MONTHS_PER_YEAR + month_b - month_a;
}

/*
 * start + n months, as date + make_interval(months => n) gives it (a
 * timestamp at midnight, here its day): the day of the month kept, or
 * clamped to the last day of a shorter month (31 Jan + 1 month = 28 Feb);
 * 22008 for a start or a result past the timestamps' range, with
 * PostgreSQL's messages.
 */
static DateADT
add_months(DateADT start, int n)
{
	int			year,
				month,
				mday,
				julian;

	if (unlikely(start >= TIMESTAMP_END_JULIAN - POSTGRES_EPOCH_JDATE))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("date out of range for timestamp")));
	day_ymd(start, &year, &month, &mday);
	month += n;
	if (month > MONTHS_PER_YEAR)
	{
		year += (month - 1) / MONTHS_PER_YEAR;
		month = ((month - 1) % MONTHS_PER_YEAR) + 1;
	}
	else if (month < 1)
	{
		year += month / MONTHS_PER_YEAR - 1;
		month = month % MONTHS_PER_YEAR + MONTHS_PER_YEAR;
	}
	if (mday > day_tab[isleap(year)][month - 1])
		mday = day_tab[isleap(year)][month - 1];
	/* tm2timestamp's checks: a Julian day it can compute, a valid timestamp */
	if (unlikely(!IS_VALID_JULIAN(year, month, mday)))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
	julian = date2j(year, month, mday);
	if (unlikely(julian < DATETIME_MIN_JULIAN || julian >= TIMESTAMP_END_JULIAN))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range")));
	return julian - POSTGRES_EPOCH_JDATE;
}

/*
 * The number of months of a period (docs/policies.md#genci-monthly-regulation):
 * n when period_start + n months is the day after period_end (n >= 1), else
 * its days × 12 / 365.25.  The arguments are checked.
 */
static float8
period_months(DateADT period_start, DateADT period_end)
{
	DateADT		after = period_end + 1;
	int			y0,
				m0,
				d0,
				y1,
				m1,
				d1,
				n;
	int32		days12;

	/* period_end + 1 (date_pli) */
	if (unlikely(!IS_VALID_DATE(after)))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("date out of range")));
	day_ymd(period_start, &y0, &m0, &d0);
	day_ymd(after, &y1, &m1, &d1);
	n = month_count(y0, m0, y1, m1);
	/* the right side only when n >= 1, as AND evaluates it */
	if (n >= 1 && add_months(period_start, n) == after)
		return (float8) n;
	/* (after − period_start) × 12 in int4, then / 365.25 in float8 */
	if (unlikely(pg_mul_s32_overflow(after - period_start, 12, &days12)))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("integer out of range")));
	return float8_div((float8) days12, 365.25);
}

/*
 * Month k (1, 2, ...) of an allocation that as_of falls in: month k runs
 * from period_start + (k − 1) months to the day before period_start + k
 * months; 0 before the start.  The arguments are checked.
 */
static int32
allocation_month(DateADT period_start, DateADT as_of)
{
	int			y0,
				m0,
				d0,
				y1,
				m1,
				d1,
				n;

	if (as_of < period_start)
		return 0;
	day_ymd(period_start, &y0, &m0, &d0);
	day_ymd(as_of, &y1, &m1, &d1);
	n = month_count(y0, m0, y1, m1);
	/* a day past the timestamps' range is after any start + n months */
	if (add_months(period_start, n) > as_of)
		n--;
	return n + 1;
}

/*
 * theoretical(as_of) = A × E / D (docs/policies.md#genci-monthly-regulation):
 * D the days of the inclusive period, E those from period_start to as_of,
 * as_of not counted; 0 up to the start, A after the end.  The arguments are
 * checked.
 */
static float8
theoretical(float8 allocation, DateADT period_start, DateADT period_end, DateADT as_of)
{
	if (as_of <= period_start)
		return 0.0;
	if (as_of > period_end)
		return allocation;
	return float8_div(float8_mul(allocation, (float8) (as_of - period_start)),
					  (float8) (period_end - period_start + 1));
}

/* The monthly regulation on a day (genci_status's columns). */
typedef struct MonthlyStatus
{
	float8		theoretical;
	float8		lag;
	float8		lag_days;		/* NULL (has_ratio false) for a zero allocation */
	float8		monthly;
	float8		ratio;			/* the same */
	const char *status;			/* the same (NULL) */
	int32		allocation_month;
	bool		check_day;
	float8		penalty;
	bool		has_ratio;
} MonthlyStatus;

/*
 * The variant of the monthly rule: 'genci' (lag in months) or 'tgcc' (lag
 * in days); anything else is 22023.
 */
static bool
variant_is_tgcc(text *variant)
{
	const char *s = VARDATA_ANY(variant);
	int			len = VARSIZE_ANY_EXHDR(variant);

	if (len == 4 && memcmp(s, "tgcc", 4) == 0)
		return true;
	if (len == 5 && memcmp(s, "genci", 5) == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("genci_status: unknown variant \"%s\"", text_to_cstring(variant)),
			 errhint("The variants are 'genci' (lag in months) and 'tgcc' (lag in days).")));
	return false;				/* not reached */
}

/*
 * The monthly regulation (docs/policies.md#genci-monthly-regulation), from
 * checked arguments, every figure computed in the rule's order, so that the
 * first figure out of range raises whichever column is asked for:
 *   lag = theoretical − consumed, monthly = A / months,
 *   ratio = lag / monthly, lag_days = lag × D / A;
 *   'genci': on track (ratio < 1), late (1 <= ratio <= 2), very late; a
 *   very late project loses `monthly` on a check day;
 *   'tgcc': the same bands in days (< 30, 30..60, > 60), the penalty
 *   A × 30 / D.
 * A check day is the 15th of month 3 or later, within the period.  A zero
 * allocation has no ratio, no lag in days and no status, and loses nothing.
 */
static void
monthly_status(float8 allocation, float8 consumed, DateADT period_start, DateADT period_end,
			   DateADT as_of, bool tgcc, MonthlyStatus *st)
{
	int32		d = period_end - period_start + 1;
	int			year,
				month,
				mday;

	st->theoretical = theoretical(allocation, period_start, period_end, as_of);
	st->lag = float8_mi(st->theoretical, consumed);
	st->monthly = float8_div(allocation, period_months(period_start, period_end));
	st->allocation_month = allocation_month(period_start, as_of);
	day_ymd(as_of, &year, &month, &mday);
	st->check_day = mday == 15 && st->allocation_month >= 3 && as_of <= period_end;
	st->penalty = 0.0;
	st->status = NULL;
	st->ratio = st->lag_days = 0.0;
	st->has_ratio = false;
	if (allocation == 0.0)
		return;
	st->has_ratio = true;
	st->ratio = float8_div(st->lag, st->monthly);
	st->lag_days = float8_div(float8_mul(st->lag, (float8) d), allocation);
	if (!tgcc)
	{
		st->status = st->ratio < 1.0 ? "on track" : st->ratio <= 2.0 ? "late" : "very late";
		if (st->check_day && st->ratio > 2.0)
			st->penalty = st->monthly;
	}
	else
	{
		st->status = st->lag_days < 30.0 ? "on track" : st->lag_days <= 60.0 ? "late" : "very late";
		if (st->check_day && st->lag_days > 60.0)
			st->penalty = float8_div(float8_mul(allocation, 30.0), (float8) d);
	}
}

/* The mid-term regulation on a day (genci_midterm_status's columns). */
typedef struct MidtermStatus
{
	float8		used_fraction;	/* NULL (has_fraction false) for a zero allocation */
	bool		has_fraction;
	bool		under_used;
	bool		alert_day;
	bool		check_day;
	float8		take_back;
} MidtermStatus;

/*
 * The mid-term regulation (docs/policies.md#genci-mid-term-regulation), the
 * allocation, consumption and days checked here under fn's name, then cap
 * and used_limit in [0, 1] (22023): the alert on period_start + 4 months,
 * the check on period_start + 5 months (both within the period); on the
 * check day an under-used project (consumed <= used_limit × A) loses
 * min(cap × A, max(0, A × 5 / months − consumed)).
 */
static void
midterm_status(const char *fn, float8 allocation, float8 consumed, DateADT period_start,
			   DateADT period_end, DateADT as_of, float8 cap, float8 used_limit,
			   MidtermStatus *st)
{
	check_args(fn, &allocation, &consumed, period_start, period_end, as_of);
	/* false for NaN too */
	if (!(cap >= 0.0 && cap <= 1.0) || !(used_limit >= 0.0 && used_limit <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: cap %s and used_limit %s must lie in [0, 1]",
						fn, hours_text(cap), hours_text(used_limit)),
				 errhint("GENCI 2017: cap 0.40 (up to 40 %% taken back), used_limit 0.30.")));
	st->has_fraction = allocation > 0.0;
	st->used_fraction = st->has_fraction ? float8_div(consumed, allocation) : 0.0;
	st->under_used = consumed <= float8_mul(used_limit, allocation);
	st->alert_day = as_of == add_months(period_start, 4) && as_of <= period_end;
	st->check_day = as_of == add_months(period_start, 5) && as_of <= period_end;
	st->take_back = 0.0;
	if (st->check_day && st->under_used)
	{
		/*
		 * least() and greatest() evaluate every argument, left to right
		 * (which figure raises first), and keep the first of equal values
		 */
		float8		capped = float8_mul(cap, allocation);
		float8		five = float8_mul(allocation, 5.0);
		float8		months = period_months(period_start, period_end);
		float8		due = float8_mi(float8_div(five, months), consumed);

		due = due > 0.0 ? due : 0.0;
		st->take_back = due < capped ? due : capped;
	}
}

/* The row type of a function's result, once per call site. */
static TupleDesc
result_tupdesc(FunctionCallInfo fcinfo, const char *fn)
{
	TupleDesc	tupdesc = (TupleDesc) fcinfo->flinfo->fn_extra;

	if (tupdesc == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "%s: return type must be a row type", fn);
		tupdesc = BlessTupleDesc(CreateTupleDescCopy(tupdesc));
		fcinfo->flinfo->fn_extra = tupdesc;
		MemoryContextSwitchTo(old);
	}
	return tupdesc;
}

/*
 * The SQL entry points: each checks its arguments under its own name, as
 * docs/regulation.md#genci-pure-functions lists them.  All are STRICT.
 */

PG_FUNCTION_INFO_V1(fs_genci_period_months);

/* (period_start date, period_end date) → float8 */
Datum
fs_genci_period_months(PG_FUNCTION_ARGS)
{
	DateADT		period_start = PG_GETARG_DATEADT(0);
	DateADT		period_end = PG_GETARG_DATEADT(1);

	check_args("genci_period_months", NULL, NULL, period_start, period_end, period_start);
	PG_RETURN_FLOAT8(period_months(period_start, period_end));
}

PG_FUNCTION_INFO_V1(fs_genci_allocation_month);

/* (period_start date, as_of date) → integer */
Datum
fs_genci_allocation_month(PG_FUNCTION_ARGS)
{
	DateADT		period_start = PG_GETARG_DATEADT(0);
	DateADT		as_of = PG_GETARG_DATEADT(1);

	check_args("genci_allocation_month", NULL, NULL, period_start, period_start, as_of);
	PG_RETURN_INT32(allocation_month(period_start, as_of));
}

PG_FUNCTION_INFO_V1(fs_theoretical_consumption);

/* (allocation float8, period_start date, period_end date, as_of date) → float8 */
Datum
fs_theoretical_consumption(PG_FUNCTION_ARGS)
{
	float8		allocation = PG_GETARG_FLOAT8(0);
	DateADT		period_start = PG_GETARG_DATEADT(1);
	DateADT		period_end = PG_GETARG_DATEADT(2);
	DateADT		as_of = PG_GETARG_DATEADT(3);

	check_args("theoretical_consumption", &allocation, NULL, period_start, period_end, as_of);
	PG_RETURN_FLOAT8(theoretical(allocation, period_start, period_end, as_of));
}

PG_FUNCTION_INFO_V1(fs_genci_status);

/*
 * (allocation, consumed, period_start, period_end, as_of, variant) →
 * (theoretical, lag, lag_days, monthly, ratio, status, allocation_month,
 * check_day, penalty)
 */
Datum
fs_genci_status(PG_FUNCTION_ARGS)
{
	float8		allocation = PG_GETARG_FLOAT8(0);
	float8		consumed = PG_GETARG_FLOAT8(1);
	DateADT		period_start = PG_GETARG_DATEADT(2);
	DateADT		period_end = PG_GETARG_DATEADT(3);
	DateADT		as_of = PG_GETARG_DATEADT(4);
	TupleDesc	tupdesc = result_tupdesc(fcinfo, "genci_status");
	MonthlyStatus st;
	bool		tgcc;
	Datum		values[9];
	bool		nulls[9] = {false};

	check_args("genci_status", &allocation, &consumed, period_start, period_end, as_of);
	tgcc = variant_is_tgcc(PG_GETARG_TEXT_PP(5));
	monthly_status(allocation, consumed, period_start, period_end, as_of, tgcc, &st);
	values[0] = Float8GetDatum(st.theoretical);
	values[1] = Float8GetDatum(st.lag);
	values[2] = Float8GetDatum(st.lag_days);
	values[3] = Float8GetDatum(st.monthly);
	values[4] = Float8GetDatum(st.ratio);
	nulls[2] = nulls[4] = nulls[5] = !st.has_ratio;
	values[5] = st.has_ratio ? CStringGetTextDatum(st.status) : (Datum) 0;
	values[6] = Int32GetDatum(st.allocation_month);
	values[7] = BoolGetDatum(st.check_day);
	values[8] = Float8GetDatum(st.penalty);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(fs_genci_penalty);

/*
 * (allocation, consumed, period_start, period_end, as_of) → float8: the
 * penalty column of genci_status with the 'genci' variant, its checks and
 * messages included.
 */
Datum
fs_genci_penalty(PG_FUNCTION_ARGS)
{
	float8		allocation = PG_GETARG_FLOAT8(0);
	float8		consumed = PG_GETARG_FLOAT8(1);
	DateADT		period_start = PG_GETARG_DATEADT(2);
	DateADT		period_end = PG_GETARG_DATEADT(3);
	DateADT		as_of = PG_GETARG_DATEADT(4);
	MonthlyStatus st;

	check_args("genci_status", &allocation, &consumed, period_start, period_end, as_of);
	monthly_status(allocation, consumed, period_start, period_end, as_of, false, &st);
	PG_RETURN_FLOAT8(st.penalty);
}

PG_FUNCTION_INFO_V1(fs_genci_midterm_status);

/*
 * (allocation, consumed, period_start, period_end, as_of, cap, used_limit)
 * → (used_fraction, under_used, alert_day, check_day, take_back)
 */
Datum
fs_genci_midterm_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc = result_tupdesc(fcinfo, "genci_midterm_status");
	MidtermStatus st;
	Datum		values[5];
	bool		nulls[5] = {false};

	midterm_status("genci_midterm_status", PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1),
				   PG_GETARG_DATEADT(2), PG_GETARG_DATEADT(3), PG_GETARG_DATEADT(4),
				   PG_GETARG_FLOAT8(5), PG_GETARG_FLOAT8(6), &st);
	values[0] = Float8GetDatum(st.used_fraction);
	nulls[0] = !st.has_fraction;
	values[1] = BoolGetDatum(st.under_used);
	values[2] = BoolGetDatum(st.alert_day);
	values[3] = BoolGetDatum(st.check_day);
	values[4] = Float8GetDatum(st.take_back);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(fs_genci_midterm_penalty);

/*
 * (allocation, consumed, period_start, period_end, as_of, cap, used_limit)
 * → float8: the take_back column of genci_midterm_status, its checks and
 * messages included.
 */
Datum
fs_genci_midterm_penalty(PG_FUNCTION_ARGS)
{
	MidtermStatus st;

	midterm_status("genci_midterm_status", PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1),
				   PG_GETARG_DATEADT(2), PG_GETARG_DATEADT(3), PG_GETARG_DATEADT(4),
				   PG_GETARG_FLOAT8(5), PG_GETARG_FLOAT8(6), &st);
	PG_RETURN_FLOAT8(st.take_back);
}
