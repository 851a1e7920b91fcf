/*
 * reports.c — the sreport reports' formatting of a value
 * (docs/reports.md#the-sreport-reports).
 *
 * report_format(secs, total, units) is a SQL expression that PostgreSQL
 * inlines into the query calling it once per row; its percentages come
 * from _report_percent.  Written in SQL, _report_percent could not be
 * inlined (to_char() is only stable and it is immutable), so each row paid
 * a SQL function's call (docs/performance.md#the-per-row-functions).  Here
 * it calls the same to_char() on the same number.
 */
#include "postgres.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/float.h"
#include "fairshare.h"

/*
 * _report_percent(secs bigint, total bigint) → text: to_char(CASE WHEN
 * COALESCE(total, 0) = 0 THEN 0 ELSE secs::float8 * 100 / total::float8
 * END, 'FM9999999990.00') || '%'; NULL when secs is NULL and total is not
 * 0, as that expression gives.
 */
PG_FUNCTION_INFO_V1(fs__report_percent);
Datum
fs__report_percent(PG_FUNCTION_ARGS)
{
	float8		v;
	text	   *s;

	if (PG_ARGISNULL(1) || PG_GETARG_INT64(1) == 0)
		v = 0.0;
	else if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	else
		v = float8_div(float8_mul((float8) PG_GETARG_INT64(0), 100.0), (float8) PG_GETARG_INT64(1));
	s = DatumGetTextPP(DirectFunctionCall2(float8_to_char, Float8GetDatum(v),
										   PointerGetDatum(cstring_to_text("FM9999999990.00"))));
	PG_RETURN_TEXT_P(DatumGetTextPP(DirectFunctionCall2(textcat, PointerGetDatum(s),
														PointerGetDatum(cstring_to_text("%")))));
}
