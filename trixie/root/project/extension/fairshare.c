/*
 * fairshare.c — module magic and the small checks every policy file shares.
 *
 * Every C entry point of fairshare validates its arguments with these
 * helpers so that bad input is an ERROR with a SQLSTATE, a message naming
 * the value, and a hint: never a crash, never a silently clamped number.
 */
#include "postgres.h"

#include <math.h>

#include "utils/timestamp.h"

#include "fairshare.h"

PG_MODULE_MAGIC;

double
fs_interval_seconds(const Interval *iv)
{
	return (double) iv->time / USECS_PER_SEC
		+ ((double) iv->day + (double) iv->month * DAYS_PER_MONTH) * SECS_PER_DAY;
}

/* A float as PostgreSQL prints it in messages: NaN, Infinity, -Infinity. */
const char *
fs_float_text(double x)
{
	if (isnan(x))
		return "NaN";
	if (isinf(x))
		return x > 0 ? "Infinity" : "-Infinity";
	return psprintf("%.15g", x);
}

void
fs_check_nonneg(double x, const char *what)
{
	if (isnan(x) || isinf(x) || x < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a finite number >= 0, not %s", what, fs_float_text(x)),
				 errhint("Pass a non-negative, finite %s.", what)));
}

void
fs_check_finite(double x, const char *what)
{
	if (isnan(x) || isinf(x))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a finite number, not %s", what, fs_float_text(x)),
				 errhint("NaN and infinity have no meaning for %s.", what)));
}

void
fs_check_timestamp(TimestampTz t, const char *what)
{
	if (TIMESTAMP_NOT_FINITE(t))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("%s must be a finite timestamp, not %s", what,
						TIMESTAMP_IS_NOBEGIN(t) ? "-infinity" : "infinity"),
				 errhint("Pass a real instant for %s.", what)));
}
