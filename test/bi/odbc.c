/*
 * Reads queries through psqlODBC (the PostgreSQL ODBC driver, via the
 * unixODBC driver manager) as a BI tool does, for test/bi_drivers.sh
 * (docs/reports.md#bi-tools).
 *
 *   bi_odbc CONNECTION-STRING QUERIES OUTDIR
 *
 * QUERIES and the files written are those of test/bi/BiJdbc.java: for each
 * query, in a transaction of its own (now() one instant for the query),
 * OUTDIR/NAME.meta (the transaction's now() in UTC, then per column: name,
 * kind, SQL type code, the SQL type's name, the driver's type name) and
 * OUTDIR/NAME.rows (the values read through the typed SQL_C_* getters,
 * rendered as psql prints them; fields separated by 0x1f, rows by 0x1e,
 * NULL as \N).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sql.h>
#include <sqlext.h>

#define FS '\037'
#define RS '\036'

static SQLHENV env;
static SQLHDBC dbc;

/* The diagnostics of a failed call, on one line. */
static void
diag(SQLSMALLINT type, SQLHANDLE h, char *out, size_t len)
{
	SQLCHAR		state[6] = "", msg[1024] = "";
	SQLINTEGER	native;
	SQLSMALLINT mlen;

	if (!SQL_SUCCEEDED(SQLGetDiagRec(type, h, 1, state, &native, msg, sizeof msg, &mlen)))
		strcpy((char *) msg, "no diagnostic");
	for (char *p = (char *) msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	snprintf(out, len, "%s %s", state, msg);
}

static const char *
sql_type_name(SQLSMALLINT t)
{
	switch (t)
	{
		case SQL_CHAR: return "SQL_CHAR";
		case SQL_VARCHAR: return "SQL_VARCHAR";
		case SQL_LONGVARCHAR: return "SQL_LONGVARCHAR";
		case SQL_WCHAR: return "SQL_WCHAR";
		case SQL_WVARCHAR: return "SQL_WVARCHAR";
		case SQL_WLONGVARCHAR: return "SQL_WLONGVARCHAR";
		case SQL_BIGINT: return "SQL_BIGINT";
		case SQL_INTEGER: return "SQL_INTEGER";
		case SQL_SMALLINT: return "SQL_SMALLINT";
		case SQL_TINYINT: return "SQL_TINYINT";
		case SQL_NUMERIC: return "SQL_NUMERIC";
		case SQL_DECIMAL: return "SQL_DECIMAL";
		case SQL_DOUBLE: return "SQL_DOUBLE";
		case SQL_FLOAT: return "SQL_FLOAT";
		case SQL_REAL: return "SQL_REAL";
		case SQL_BIT: return "SQL_BIT";
		case SQL_TYPE_DATE: return "SQL_TYPE_DATE";
		case SQL_TYPE_TIME: return "SQL_TYPE_TIME";
		case SQL_TYPE_TIMESTAMP: return "SQL_TYPE_TIMESTAMP";
		case SQL_BINARY: return "SQL_BINARY";
		case SQL_VARBINARY: return "SQL_VARBINARY";
		case SQL_LONGVARBINARY: return "SQL_LONGVARBINARY";
		case SQL_GUID: return "SQL_GUID";
		case SQL_UNKNOWN_TYPE: return "SQL_UNKNOWN_TYPE";
		default:
			if (t >= SQL_INTERVAL_YEAR && t <= SQL_INTERVAL_MINUTE_TO_SECOND)
				return "SQL_INTERVAL";
			return "other";
	}
}

/*
 * How a column is read and compared; "bad" for a type a BI tool cannot
 * map: SQL_UNKNOWN_TYPE, an interval, binary, a code outside ODBC's, or a
 * type psqlODBC does not know.  psqlODBC hands those (arrays, composites,
 * jsonb, regclass, and interval unless asked otherwise) to the
 * application as SQL_VARCHAR text, naming the type "unknown" (an interval:
 * no name): a BI tool then sees a string where the report has a number.
 */
static const char *
kind(SQLSMALLINT t, const char *type_name)
{
	if (type_name[0] == '\0' || strcmp(type_name, "unknown") == 0)
		return "bad";
	switch (t)
	{
		case SQL_CHAR: case SQL_VARCHAR: case SQL_LONGVARCHAR:
		case SQL_WCHAR: case SQL_WVARCHAR: case SQL_WLONGVARCHAR:
			return "text";
		case SQL_BIGINT: case SQL_INTEGER: case SQL_SMALLINT: case SQL_TINYINT:
			return "int";
		case SQL_NUMERIC: case SQL_DECIMAL:
			return "numeric";
		case SQL_DOUBLE: case SQL_FLOAT: case SQL_REAL:
			return "float";
		case SQL_BIT:
			return strcmp(type_name, "bool") == 0 ? "bool" : "bad";
		case SQL_TYPE_DATE:
			return "date";
		case SQL_TYPE_TIMESTAMP:
			return strcmp(type_name, "timestamptz") == 0 ? "timestamptz" : "timestamp";
		default:
			return "bad";
	}
}

/* PostgreSQL's text form of a timestamp: the fraction without trailing zeros. */
static void
put_timestamp(FILE *f, const SQL_TIMESTAMP_STRUCT *ts)
{
	char		frac[8];
	int			n;

	fprintf(f, "%04d-%02u-%02u %02u:%02u:%02u", ts->year, ts->month, ts->day,
			ts->hour, ts->minute, ts->second);
	if (ts->fraction / 1000 != 0)
	{
		snprintf(frac, sizeof frac, "%06lu", (unsigned long) (ts->fraction / 1000));
		for (n = 6; n > 0 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		fprintf(f, ".%s", frac);
	}
}

/* One value, read with the getter of its kind; 0 on a driver error. */
static int
put_value(FILE *f, SQLHSTMT st, SQLUSMALLINT col, const char *k, char *err, size_t errlen)
{
	SQLLEN		ind = 0;
	SQLRETURN	rc;

	if (strcmp(k, "int") == 0)
	{
		SQLBIGINT	v;

		rc = SQLGetData(st, col, SQL_C_SBIGINT, &v, sizeof v, &ind);
		if (SQL_SUCCEEDED(rc) && ind != SQL_NULL_DATA)
			fprintf(f, "%lld", (long long) v);
	}
	else if (strcmp(k, "float") == 0)
	{
		double		v;

		rc = SQLGetData(st, col, SQL_C_DOUBLE, &v, sizeof v, &ind);
		if (SQL_SUCCEEDED(rc) && ind != SQL_NULL_DATA)
		{
			/* %.17g round-trips every double; PostgreSQL's spelling of the
			 * three that are not numbers */
			if (isnan(v))
				fputs("NaN", f);
			else if (isinf(v))
				fputs(v > 0 ? "Infinity" : "-Infinity", f);
			else
				fprintf(f, "%.17g", v);
		}
	}
	else if (strcmp(k, "bool") == 0)
	{
		unsigned char v;

		rc = SQLGetData(st, col, SQL_C_BIT, &v, sizeof v, &ind);
		if (SQL_SUCCEEDED(rc) && ind != SQL_NULL_DATA)
			fputs(v ? "t" : "f", f);
	}
	else if (strcmp(k, "date") == 0)
	{
		SQL_DATE_STRUCT v;

		rc = SQLGetData(st, col, SQL_C_TYPE_DATE, &v, sizeof v, &ind);
		if (SQL_SUCCEEDED(rc) && ind != SQL_NULL_DATA)
			fprintf(f, "%04d-%02u-%02u", v.year, v.month, v.day);
	}
	else if (strcmp(k, "timestamptz") == 0 || strcmp(k, "timestamp") == 0)
	{
		SQL_TIMESTAMP_STRUCT v;

		rc = SQLGetData(st, col, SQL_C_TYPE_TIMESTAMP, &v, sizeof v, &ind);
		if (SQL_SUCCEEDED(rc) && ind != SQL_NULL_DATA)
		{
			put_timestamp(f, &v);
			/* the session's TimeZone is UTC (PGTZ, test/bi_drivers.sh) */
			if (strcmp(k, "timestamptz") == 0)
				fputs("+00", f);
		}
	}
	else
	{
		/* text, numeric and the rest: the characters, in pieces for long values */
		char		buf[4096];

		for (;;)
		{
			rc = SQLGetData(st, col, SQL_C_CHAR, buf, sizeof buf, &ind);
			if (rc == SQL_NO_DATA || !SQL_SUCCEEDED(rc) || ind == SQL_NULL_DATA)
				break;
			if (ind == SQL_NO_TOTAL || ind >= (SQLLEN) sizeof buf)
				fwrite(buf, 1, sizeof buf - 1, f);
			else
				fwrite(buf, 1, (size_t) ind, f);
			if (rc == SQL_SUCCESS)
				break;
		}
		if (rc == SQL_NO_DATA)
			rc = SQL_SUCCESS;
	}
	if (!SQL_SUCCEEDED(rc))
	{
		diag(SQL_HANDLE_STMT, st, err, errlen);
		return 0;
	}
	if (ind == SQL_NULL_DATA)
		fputs("\\N", f);
	return 1;
}

static FILE *
open_out(const char *dir, const char *name, const char *ext)
{
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
	f = fopen(path, "w");
	if (f == NULL)
	{
		perror(path);
		exit(2);
	}
	return f;
}

/* One query: 1 if read, 0 on an error (written into its .meta). */
static int
run_query(const char *dir, const char *name, const char *sql)
{
	FILE	   *meta = open_out(dir, name, "meta"),
			   *rows = open_out(dir, name, "rows");
	SQLHSTMT	st;
	SQLSMALLINT ncols;
	SQLCHAR		now[64] = "";
	SQLLEN		ind;
	char		err[1200] = "";
	const char **kinds = NULL;
	int			ok = 1;

	SQLAllocHandle(SQL_HANDLE_STMT, dbc, &st);
	if (!SQL_SUCCEEDED(SQLExecDirect(st, (SQLCHAR *) "SELECT pg_catalog.timezone('UTC', pg_catalog.now())::text", SQL_NTS))
		|| !SQL_SUCCEEDED(SQLFetch(st))
		|| !SQL_SUCCEEDED(SQLGetData(st, 1, SQL_C_CHAR, now, sizeof now, &ind)))
	{
		diag(SQL_HANDLE_STMT, st, err, sizeof err);
		ok = 0;
		goto done;
	}
	SQLCloseCursor(st);
	fprintf(meta, "%s\n", now);
	if (!SQL_SUCCEEDED(SQLExecDirect(st, (SQLCHAR *) sql, SQL_NTS))
		|| !SQL_SUCCEEDED(SQLNumResultCols(st, &ncols)))
	{
		diag(SQL_HANDLE_STMT, st, err, sizeof err);
		ok = 0;
		goto done;
	}
	kinds = calloc((size_t) ncols + 1, sizeof *kinds);
	for (SQLUSMALLINT i = 1; i <= (SQLUSMALLINT) ncols; i++)
	{
		SQLCHAR		colname[256], type_name[128] = "";
		SQLSMALLINT namelen, type, digits, nullable, tnlen;
		SQLULEN		size;

		SQLDescribeCol(st, i, colname, sizeof colname, &namelen, &type, &size, &digits, &nullable);
		SQLColAttribute(st, i, SQL_DESC_TYPE_NAME, type_name, sizeof type_name, &tnlen, NULL);
		kinds[i] = kind(type, (const char *) type_name);
		fprintf(meta, "%s\t%s\t%d\t%s\t%s\n", colname, kinds[i], type, sql_type_name(type), type_name);
	}
	for (;;)
	{
		SQLRETURN	rc = SQLFetch(st);

		if (rc == SQL_NO_DATA)
			break;
		if (!SQL_SUCCEEDED(rc))
		{
			diag(SQL_HANDLE_STMT, st, err, sizeof err);
			ok = 0;
			break;
		}
		for (SQLUSMALLINT i = 1; i <= (SQLUSMALLINT) ncols && ok; i++)
		{
			if (i > 1)
				fputc(FS, rows);
			ok = put_value(rows, st, i, kinds[i], err, sizeof err);
		}
		if (!ok)
			break;
		fputc(RS, rows);
	}
done:
	SQLFreeHandle(SQL_HANDLE_STMT, st);
	SQLEndTran(SQL_HANDLE_DBC, dbc, ok ? SQL_COMMIT : SQL_ROLLBACK);
	if (!ok)
	{
		/* the error replaces what was written */
		meta = freopen(NULL, "w", meta);
		fprintf(meta, "ERROR %s\n", err);
	}
	free(kinds);
	fclose(meta);
	fclose(rows);
	return ok;
}

int
main(int argc, char **argv)
{
	SQLCHAR		out[1024], info[256];
	SQLSMALLINT outlen;
	char		err[1200];
	FILE	   *q;
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		len;
	int			failed = 0;

	if (argc != 4)
	{
		fprintf(stderr, "usage: %s CONNECTION-STRING QUERIES OUTDIR\n", argv[0]);
		return 2;
	}
	SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &env);
	SQLSetEnvAttr(env, SQL_ATTR_ODBC_VERSION, (SQLPOINTER) SQL_OV_ODBC3, 0);
	SQLAllocHandle(SQL_HANDLE_DBC, env, &dbc);
	if (!SQL_SUCCEEDED(SQLDriverConnect(dbc, NULL, (SQLCHAR *) argv[1], SQL_NTS, out, sizeof out,
										&outlen, SQL_DRIVER_NOPROMPT)))
	{
		diag(SQL_HANDLE_DBC, dbc, err, sizeof err);
		fprintf(stderr, "cannot connect: %s\n", err);
		return 2;
	}
	SQLSetConnectAttr(dbc, SQL_ATTR_AUTOCOMMIT, (SQLPOINTER) SQL_AUTOCOMMIT_OFF, 0);
	SQLGetInfo(dbc, SQL_DRIVER_NAME, info, sizeof info, &outlen);
	printf("# ODBC: %s", info);
	SQLGetInfo(dbc, SQL_DRIVER_VER, info, sizeof info, &outlen);
	printf(" %s", info);
	SQLGetInfo(dbc, SQL_DBMS_VER, info, sizeof info, &outlen);
	printf(", server %s\n", info);
	fflush(stdout);

	q = fopen(argv[2], "r");
	if (q == NULL)
	{
		perror(argv[2]);
		return 2;
	}
	while ((len = getline(&line, &cap, q)) > 0)
	{
		char	   *tab;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		tab = strchr(line, '\t');
		if (tab == NULL)
			continue;
		*tab = '\0';
		failed += !run_query(argv[3], line, tab + 1);
	}
	free(line);
	fclose(q);
	SQLDisconnect(dbc);
	SQLFreeHandle(SQL_HANDLE_DBC, dbc);
	SQLFreeHandle(SQL_HANDLE_ENV, env);
	return failed == 0 ? 0 : 1;
}
