/*
 * fuzz_rows.h — checks shared by the import harnesses: what a parsed row
 * must satisfy so that storing it cannot fail (the jobs table's CHECKs) and
 * reading it cannot read out of bounds.  A failed check aborts: a finding.
 */
#ifndef FAIRSHARE_FUZZ_ROWS_H
#define FAIRSHARE_FUZZ_ROWS_H

#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "shim.h"

extern Datum fs_tres_weights_valid(PG_FUNCTION_ARGS);

static void
row_fail(const char *what, const char *detail)
{
	fprintf(stderr, "bad parsed row: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

/* A text value as a C string; every byte is read, so ASan sees its bounds. */
static char *
row_text(const Datum *values, const bool *nulls, int att, bool required, const char *what)
{
	text	   *t;
	int			len;
	char	   *s;

	if (nulls[att])
	{
		if (required)
			row_fail(what, "NULL");
		return NULL;
	}
	t = (text *) DatumGetPointer(values[att]);
	len = VARSIZE_ANY_EXHDR(t);
	if (len < 0 || len > 1 << 20)
		row_fail(what, "bad length");
	s = palloc(len + 1);
	memcpy(s, VARDATA_ANY(t), len);
	s[len] = '\0';
	if ((int) strlen(s) != len)
		row_fail(what, "holds a NUL byte");
	/* text that is not valid UTF8 must never reach a table */
	if (pg_encoding_verifymbstr(PG_UTF8, s, len) != len)
		row_fail(what, "is not valid UTF8");
	return s;
}

static bool
row_is(const char *s, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (s && strcmp(s, *allowed) == 0)
			return true;
	return false;
}

/* A finite timestamp PostgreSQL accepts, or NULL; DT_NOBEGIN when NULL. */
static TimestampTz
row_time(const Datum *values, const bool *nulls, int att, const char *what)
{
	TimestampTz t;

	if (nulls[att])
		return DT_NOBEGIN;
	t = DatumGetTimestampTz(values[att]);
	if (!IS_VALID_TIMESTAMP(t))
		row_fail(what, "not a valid timestamp");
	return t;
}

/* An integer column value that the jobs table accepts (>= 0). */
static void
row_count(const Datum *values, const bool *nulls, int att, bool is64, const char *what)
{
	int64		v;

	if (nulls[att])
		return;
	v = is64 ? DatumGetInt64(values[att]) : (int64) DatumGetInt32(values[att]);
	if (v < 0)
		row_fail(what, "negative");
}

/* A duration: NULL, or >= 0 (> 0 when positive is required). */
static void
row_interval(const Datum *values, const bool *nulls, int att, bool positive, const char *what)
{
	Interval   *iv;

	if (nulls[att])
		return;
	iv = DatumGetIntervalP(values[att]);
	if (iv->month != 0 || iv->day < 0 || iv->time < 0 || (positive && iv->day == 0 && iv->time == 0))
		row_fail(what, "not a duration the jobs table accepts");
}

/* The TRES string passes the jobs table's CHECK, billing.c's parser. */
static void
row_tres(const char *tres, const char *what)
{
	LOCAL_FCINFO(fcinfo, 1);

	if (tres == NULL)
		return;
	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = PointerGetDatum(cstring_to_text(tres));
	fcinfo->args[0].isnull = false;
	if (!SHIM_TRY((void) fs_tres_weights_valid(fcinfo)))
		row_fail(what, psprintf("\"%s\" is refused by tres_weights_valid: %s", tres, shim_last_message));
}

/* A reject carries one of the SQLSTATEs a line can be rejected with, and why. */
static void
row_reject(const Datum *values, const bool *nulls, int sqlstate_att, int reason_att)
{
	static const char *const codes[] = {"22P02", "22008", "22004", "22003", "22023", "23514", "22021", NULL};
	char	   *code = row_text(values, nulls, sqlstate_att, true, "sqlstate");

	if (!row_is(code, codes))
		row_fail("sqlstate", code);
	(void) row_text(values, nulls, reason_att, true, "reason");
}

/* Split data at '\n' into lines (views into data); returns how many. */
static int
split_lines(const char *data, size_t size, const char **starts, size_t *lens, int max)
{
	const char *p = data;
	const char *end = data + size;
	int			n = 0;

	while (n < max && p <= end)
	{
		const char *nl = memchr(p, '\n', end - p);
		const char *stop = nl ? nl : end;

		starts[n] = p;
		lens[n++] = stop - p;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return n;
}

#endif							/* FAIRSHARE_FUZZ_ROWS_H */
