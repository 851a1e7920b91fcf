/*
 * import.c — reading a scheduler's accounting records (docs/import.md).
 *
 * Two line parsers, called by extension/import.sql:
 *
 *   _sacct_line(line, header, time_zone, cluster)
 *       one line of `sacct --parsable2` output, its columns found through the
 *       export's own header line (any order, extra columns ignored); the
 *       import reads every staged line through it in one call of
 *       _sacct_parse(staging, header, header_no, time_zone, cluster), which
 *       returns the import's work table (docs/performance.md#importing-jobs);
 *   _pbs_record(line, time_zone)
 *       one record of a PBS / OpenPBS / PBS Pro accounting log,
 *       "MM/DD/YYYY HH:MM:SS;T;job id;key=value ..." (OpenPBS
 *       src/server/accounting.c, the PBS Professional Reference Guide's
 *       "Accounting Log" chapter).
 *
 * and the readers of the other exports, one line a call in file order:
 * _sacct_efficiency_line (extension/efficiency.sql), _sacctmgr_event_line
 * and _sacctmgr_reservation_line (sacctmgr show event / reservation -P,
 * extension/reports.sql), _squeue_nice_line (squeue -h -o '%i|%y',
 * extension/nice.sql).
 *
 * A bad line is not an error: the parser returns kind 'reject' with the
 * SQLSTATE and the reason, so that the import rejects that line and keeps
 * the others; a line that is not valid text in the database encoding is
 * one (staged with ENCODING 'SQL_ASCII', see span_invalid_at).
 * Errors are raised only for bad arguments (a time zone PostgreSQL
 * does not know, a header that is not sacct's).  The per-query state (parsed
 * header, time zone, result descriptor) lives in fn_extra, in fn_mcxt; each
 * line's work is palloc'd in the per-tuple context of the caller (in
 * _sacct_parse, in a context reset for each line).
 *
 * Parsing is in C because it is most of the cost of an import: one call per
 * line does the split, the timestamps (read in the stated zone with
 * PostgreSQL's own DetermineTimeZoneOffset, so the answer is the one
 * `timestamp AT TIME ZONE zone` gives), the state normalisation and the TRES
 * counts.  The TRES grammar is the one billing.c accepts, so that every TRES
 * string passed on satisfies the jobs table's CHECK.
 */
#include "postgres.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>

#include "access/htup_details.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "fairshare.h"

/* A piece of a line: not NUL-terminated. */
typedef struct Span
{
	const char *p;
	int			len;
} Span;

static Span
span_make(const char *p, int len)
{
	Span		s;

	s.p = p;
	s.len = len;
	return s;
}

static bool
span_eq_ci(Span s, const char *lit)
{
	return (int) strlen(lit) == s.len && pg_strncasecmp(s.p, lit, s.len) == 0;
}

/* A value quoted into a reason, cut at 80 bytes so one bad field cannot
 * make a reject row of megabytes.  The cut falls between two characters of
 * the database encoding: cut inside one, the reason would not be valid text
 * (the line itself was checked whole, span_invalid_at). */
static char *
span_show(Span s)
{
	int			cut = 0;

	if (s.len <= 80)
		return pnstrdup(s.p, s.len);
	for (;;)
	{
		int			n = pg_encoding_mblen(GetDatabaseEncoding(), s.p + cut);

		if (n <= 0 || cut + n > 80)
			break;
		cut += n;
	}
	return psprintf("%.*s...", cut, s.p);
}

/*
 * Where a staged line stops being valid text in the database encoding: the
 * offset of its first invalid byte, or -1 when it is all valid.  The staging
 * \copy the README recommends reads the file as SQL_ASCII, which COPY does
 * not verify (one bad byte in a JobName made COPY fail the whole
 * night's file with 22021), so the parsers check every line themselves and
 * reject only the bad one.  Nothing of an invalid line reaches a table.
 */
static int
span_invalid_at(Span s)
{
	int			valid = pg_encoding_verifymbstr(GetDatabaseEncoding(), s.p, s.len);

	return valid == s.len ? -1 : valid;
}

/* The bytes of the invalid sequence at s.p[at], as PostgreSQL's own
 * "invalid byte sequence" message shows them ("0xe9 0x7c 0x32"). */
static char *
span_bad_bytes(Span s, int at)
{
	int			n = Min(pg_encoding_mblen(GetDatabaseEncoding(), s.p + at), s.len - at);
	char	   *out = palloc(n * 5 + 1);	/* " 0xNN" per byte */
	int			o = 0;
	int			i;

	for (i = 0; i < n; i++)
		o += snprintf(out + o, n * 5 + 1 - o, "%s0x%02x", i > 0 ? " " : "", (unsigned char) s.p[at + i]);
	out[o] = '\0';
	return out;
}

static Datum
span_text(Span s)
{
	return PointerGetDatum(cstring_to_text_with_len(s.p, s.len));
}

/* Non-negative decimal integer, all of s; false when empty, not digits or
 * above max. */
static bool
span_uint(Span s, int64 max, int64 *out)
{
	int64		v = 0;
	int			i;

	if (s.len == 0)
		return false;
	for (i = 0; i < s.len; i++)
	{
		if (!isdigit((unsigned char) s.p[i]))
			return false;
		v = v * 10 + (s.p[i] - '0');
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

/* Integer with an optional leading minus (PBS Exit_status). */
static bool
span_int(Span s, int32 *out)
{
	int64		v;
	bool		neg = s.len > 0 && s.p[0] == '-';

	if (!span_uint(neg ? span_make(s.p + 1, s.len - 1) : s, (int64) PG_INT32_MAX, &v))
		return false;
	*out = (int32) (neg ? -v : v);
	return true;
}

static pg_tz *
lookup_time_zone(const char *name)
{
	pg_tz	   *tz = pg_tzset(name);

	if (tz == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time zone \"%s\" not recognized", name),
				 errhint("Pass the zone the scheduler wrote its local times in, as a tz database name such as 'Europe/Paris' or 'UTC'.")));
	return tz;
}

/*
 * A local wall-clock time in zone tz, as `timestamp AT TIME ZONE tz` reads it
 * (PostgreSQL's rule for times skipped or repeated by a DST change).
 */
static bool
local_time(int y, int mo, int d, int h, int mi, int s, pg_tz *tz, TimestampTz *out)
{
	struct pg_tm tm;
	int			tzoff;
	Timestamp	t;

	if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > day_tab[isleap(y)][mo - 1]
		|| h > 23 || mi > 59 || s > 59)
		return false;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y;
	tm.tm_mon = mo;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	tzoff = DetermineTimeZoneOffset(&tm, tz);
	if (tm2timestamp(&tm, 0, &tzoff, &t) != 0 || !IS_VALID_TIMESTAMP(t))
		return false;
	*out = t;
	return true;
}

/* Two or four digits at p (no sign, no blanks). */
static bool
digits_at(const char *p, int n, int *out)
{
	int			v = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		if (!isdigit((unsigned char) p[i]))
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return true;
}

typedef enum
{
	VAL_OK,
	VAL_NULL,
	VAL_BAD
} ValResult;

/* sacct's "2026-11-21T17:25:21" (or with a blank for the T); "Unknown",
 * "None" and "" are NULL. */
static ValResult
slurm_time(Span s, pg_tz *tz, TimestampTz *out)
{
	const char *p = s.p;
	int			y,
				mo,
				d,
				h,
				mi,
				sec;

	if (s.len == 0 || span_eq_ci(s, "Unknown") || span_eq_ci(s, "None"))
		return VAL_NULL;
	if (s.len != 19 || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != ' ')
		|| p[13] != ':' || p[16] != ':')
		return VAL_BAD;
	if (!digits_at(p, 4, &y) || !digits_at(p + 5, 2, &mo) || !digits_at(p + 8, 2, &d)
		|| !digits_at(p + 11, 2, &h) || !digits_at(p + 14, 2, &mi) || !digits_at(p + 17, 2, &sec))
		return VAL_BAD;
	return local_time(y, mo, d, h, mi, sec, tz, out) ? VAL_OK : VAL_BAD;
}

/* PBS record time "11/21/2026 17:25:21" (OpenPBS write_account_record). */
static ValResult
pbs_time(Span s, pg_tz *tz, TimestampTz *out)
{
	const char *p = s.p;
	int			y,
				mo,
				d,
				h,
				mi,
				sec;

	if (s.len != 19 || p[2] != '/' || p[5] != '/' || p[10] != ' ' || p[13] != ':' || p[16] != ':')
		return VAL_BAD;
	if (!digits_at(p, 2, &mo) || !digits_at(p + 3, 2, &d) || !digits_at(p + 6, 4, &y)
		|| !digits_at(p + 11, 2, &h) || !digits_at(p + 14, 2, &mi) || !digits_at(p + 17, 2, &sec))
		return VAL_BAD;
	return local_time(y, mo, d, h, mi, sec, tz, out) ? VAL_OK : VAL_BAD;
}

/* Seconds since 1970-01-01 UTC (PBS ctime, etime, start, end); 0 is "not
 * set", as PBS writes start=0 for a job that never ran. */
static ValResult
epoch_time(Span s, TimestampTz *out)
{
	int64		v;

	if (!span_uint(s, (int64) 100000 * 366 * SECS_PER_DAY, &v))
		return VAL_BAD;
	if (v == 0)
		return VAL_NULL;
	*out = (TimestampTz) (v - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)
		* USECS_PER_SEC;
	return IS_VALID_TIMESTAMP(*out) ? VAL_OK : VAL_BAD;
}

/*
 * A duration "[[H:]M:]S" (PBS walltime, cput; hours unbounded) or, with
 * slurm = true, sacct's Timelimit "[D-]HH:MM:SS" / "MM:SS", where
 * "UNLIMITED", "Partition_Limit" and "" are NULL.
 */
static ValResult
duration(Span s, bool slurm, Interval *out)
{
	int64		part[3];
	int			nparts = 0;
	int64		days = 0;
	int			i = 0;
	int64		secs;

	if (slurm && (s.len == 0 || span_eq_ci(s, "UNLIMITED") || span_eq_ci(s, "Partition_Limit")))
		return VAL_NULL;
	if (slurm)
	{
		int			dash;

		for (dash = 0; dash < s.len && s.p[dash] != '-'; dash++)
			;
		if (dash < s.len)
		{
			if (!span_uint(span_make(s.p, dash), 1000000, &days))
				return VAL_BAD;
			i = dash + 1;
		}
	}
	while (nparts < 3)
	{
		int			j = i;

		while (j < s.len && s.p[j] != ':')
			j++;
		if (!span_uint(span_make(s.p + i, j - i), PG_INT32_MAX, &part[nparts]))
			return VAL_BAD;
		nparts++;
		if (j == s.len)
			break;
		i = j + 1;
		if (nparts == 3)
			return VAL_BAD;		/* a fourth part */
	}
	/* minutes and seconds below 60 when a larger unit precedes them */
	for (i = 1; i < nparts; i++)
		if (part[i] > 59)
			return VAL_BAD;
	if (slurm && nparts < 2)
		return VAL_BAD;
	secs = 0;
	for (i = 0; i < nparts; i++)
		secs = secs * 60 + part[i];
	out->month = 0;
	out->day = (int32) days;
	out->time = secs * USECS_PER_SEC;
	return VAL_OK;
}

/* ---------------------------------------------------------------------------
 * TRES strings ("billing=40,cpu=8,mem=16G,node=1,gres/gpu=2"): the grammar of
 * billing.c's parse_tres_list, keeping only the counts the jobs table holds.
 * ---------------------------------------------------------------------------
 */
typedef struct TresCounts
{
	double		cpu;
	double		mem;			/* MiB */
	double		node;
	double		gpu;			/* gres/gpu */
	double		gpu_typed;		/* Σ gres/gpu:TYPE */
	bool		has_cpu;
	bool		has_mem;
	bool		has_node;
	bool		has_gpu;
	double		max;			/* the largest count of any item */
} TresCounts;

/* NULL when s is a valid TRES string (counts filled), else why not. */
static const char *
scan_tres(Span s, TresCounts *c)
{
	char	   *copy = pnstrdup(s.p, s.len);
	char	   *tok;
	char	   *next;
	char	  **names = palloc(sizeof(char *) * (s.len / 2 + 1));
	int			nnames = 0;

	memset(c, 0, sizeof(*c));
	for (tok = copy;; tok = next + 1)
	{
		char	   *eq;
		char	   *num;
		char	   *end;
		char	   *p;
		double		v;
		int			pw = 0;
		int			i;

		next = strchr(tok, ',');
		if (next)
			*next = '\0';
		while (isspace((unsigned char) *tok))
			tok++;
		for (p = tok + strlen(tok); p > tok && isspace((unsigned char) p[-1]); p--)
			p[-1] = '\0';
		if (*tok == '\0')
			return "empty item";
		eq = strchr(tok, '=');
		if (eq == NULL)
			return psprintf("missing \"=\" in \"%s\"", tok);
		if (eq == tok)
			return psprintf("missing name in \"%s\"", tok);
		for (p = tok; p < eq; p++)
			if (!(isalnum((unsigned char) *p) || strchr("/:_-.", *p)))
				return psprintf("bad character in name \"%s\"", tok);
		num = eq + 1;
		if (!(isdigit((unsigned char) *num) || (*num == '.' && isdigit((unsigned char) num[1]))))
			return psprintf("value is not a non-negative number in \"%s\"", tok);
		errno = 0;
		v = strtod(num, &end);
		if (errno == ERANGE || !isfinite(v))
			return psprintf("value out of range in \"%s\"", tok);
		for (p = num; p < end; p++)
			if (!(isdigit((unsigned char) *p) || strchr(".eE+-", *p)))
				return psprintf("value is not a decimal number in \"%s\"", tok);
		if (*end != '\0')
		{
			switch (toupper((unsigned char) *end))
			{
				case 'K':
					pw = 1;
					break;
				case 'M':
					pw = 2;
					break;
				case 'G':
					pw = 3;
					break;
				case 'T':
					pw = 4;
					break;
				case 'P':
					pw = 5;
					break;
			}
			if (pw == 0 || end[1] != '\0')
				return psprintf("unknown unit suffix in \"%s\" (use K, M, G, T or P)", tok);
		}
		*eq = '\0';
		for (i = 0; i < nnames; i++)
			if (pg_strcasecmp(names[i], tok) == 0)
				return psprintf("\"%s\" given twice", tok);
		names[nnames++] = tok;

		/* memory is counted in MiB: a suffix is relative to M */
		if (pw != 0)
			v *= ldexp(1.0, 10 * (pw - (pg_strcasecmp(tok, "mem") == 0 ? 2 : 0)));
		if (!isfinite(v))
			return psprintf("value out of range for \"%s\"", tok);
		c->max = Max(c->max, v);

		if (pg_strcasecmp(tok, "cpu") == 0)
			c->cpu = v, c->has_cpu = true;
		else if (pg_strcasecmp(tok, "mem") == 0)
			c->mem = v, c->has_mem = true;
		else if (pg_strcasecmp(tok, "node") == 0)
			c->node = v, c->has_node = true;
		else if (pg_strcasecmp(tok, "gres/gpu") == 0)
			c->gpu = v, c->has_gpu = true;
		else if (pg_strncasecmp(tok, "gres/gpu:", 9) == 0)
			c->gpu_typed += v;

		if (next == NULL)
			break;
	}
	return NULL;
}

/* A whole count that fits an integer column, or -1. */
static int64
whole(double v, int64 max)
{
	if (v < 0 || v > (double) max || v != floor(v))
		return -1;
	return (int64) v;
}

/* ---------------------------------------------------------------------------
 * Result rows.  Both parsers fill a values/nulls pair; reject() records why
 * a line cannot be imported and keeps what was read (job id, cluster) so that
 * the rejects can be grouped.
 * ---------------------------------------------------------------------------
 */
typedef struct Row
{
	int			natts;
	Datum	   *values;
	bool	   *nulls;
	int			kind_att;
	int			sqlstate_att;
	int			reason_att;
} Row;

static void
row_set(Row *r, int att, Datum v)
{
	r->values[att] = v;
	r->nulls[att] = false;
}

static void
row_text(Row *r, int att, const char *s)
{
	row_set(r, att, CStringGetTextDatum(s));
}

/* Always returns false, so that a parser can `return reject(...)`. */
static bool
reject(Row *r, const char *sqlstate, const char *reason)
{
	row_text(r, r->kind_att, "reject");
	row_text(r, r->sqlstate_att, sqlstate);
	row_text(r, r->reason_att, reason);
	return false;
}

static void
row_init(Row *r, int natts, int kind_att, int sqlstate_att, int reason_att)
{
	int			i;

	r->natts = natts;
	r->values = palloc0(sizeof(Datum) * natts);
	r->nulls = palloc(sizeof(bool) * natts);
	for (i = 0; i < natts; i++)
		r->nulls[i] = true;
	r->kind_att = kind_att;
	r->sqlstate_att = sqlstate_att;
	r->reason_att = reason_att;
}

/* The result row's descriptor, kept in fn_mcxt for every later call. */
static TupleDesc
result_desc(FunctionCallInfo fcinfo, int natts, int min_natts, const char *type)
{
	TupleDesc	desc;
	MemoryContext old;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE
		|| desc->natts < min_natts || desc->natts > natts)
		elog(ERROR, "return type of %s must be a row of %d columns", type, natts);
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	desc = BlessTupleDesc(CreateTupleDescCopy(desc));
	MemoryContextSwitchTo(old);
	return desc;
}

/* Split on sep into at most max pieces; returns the count, or max + 1 when
 * there are more. */
static int
split(Span line, char sep, Span *out, int max)
{
	int			n = 0;
	int			start = 0;
	int			i;

	for (i = 0; i <= line.len; i++)
	{
		if (i == line.len || line.p[i] == sep)
		{
			if (n == max)
				return max + 1;
			out[n++] = span_make(line.p + start, i - start);
			start = i + 1;
		}
	}
	return n;
}

/* The line without a trailing carriage return (a file written on Windows). */
static Span
text_span(text *t)
{
	Span		s = span_make(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));

	if (s.len > 0 && s.p[s.len - 1] == '\r')
		s.len--;
	return s;
}

/* ===========================================================================
 * Slurm: sacct --parsable2
 * ===========================================================================
 */

/* The sacct columns the import reads; any other column is ignored. */
typedef enum SacctCol
{
	SC_JOBID,
	SC_USER,
	SC_ACCOUNT,
	SC_PARTITION,
	SC_QOS,
	SC_ALLOCCPUS,
	SC_REQTRES,
	SC_ALLOCTRES,
	SC_SUBMIT,
	SC_ELIGIBLE,
	SC_START,
	SC_END,
	SC_STATE,
	SC_NNODES,
	SC_CLUSTER,
	SC_TIMELIMIT,
	SC_SUSPENDED,
	SC_RESVID,
	SC_NCOLS
} SacctCol;

static const char *const sacct_col_names[SC_NCOLS] = {
	"JobID", "User", "Account", "Partition", "QOS", "AllocCPUS", "ReqTRES",
	"AllocTRES", "Submit", "Eligible", "Start", "End", "State", "NNodes",
	"Cluster", "Timelimit", "Suspended", "ReservationId"
};

/* Result columns: the type @extschema@._sacct_line. */
enum
{
	SO_KIND,
	SO_CLUSTER,
	SO_JOB_ID,
	SO_STEP,
	SO_USER,
	SO_ACCOUNT,
	SO_PARTITION,
	SO_QOS,
	SO_STATE,
	SO_SUBMIT,
	SO_ELIGIBLE,
	SO_START,
	SO_END,
	SO_TIME_LIMIT,
	SO_TRES,
	SO_CPUS,
	SO_MEM,
	SO_GPUS,
	SO_NODES,
	SO_SQLSTATE,
	SO_REASON,
	SO_SUSPENDED,				/* added in 1.2: after the columns of 1.1 */
	SO_RESV_ID,
	SO_NATTS
};

/* Allowed fields per line: sacct can print about 120 columns. */
#define SACCT_MAX_FIELDS 512

typedef struct SacctState
{
	/*
	 * The header the lines are read through: the export's first line, then
	 * each later line that is a header of its own (concatenated exports), in
	 * header_cap bytes of cxt.
	 */
	MemoryContext cxt;
	char	   *header;
	int			header_len;
	int			header_cap;
	int			nfields;
	/* the staged number of the line being read (0: not known) */
	int64		line_no;
	/*
	 * A later header that could not be read (a column missing, twice, ...):
	 * the lines after it follow its layout, which is not known, so they are
	 * rejected until a header that can be read comes.  refused_why is NULL
	 * while no header is refused; refused_line is that header's number.
	 */
	char	   *refused_why;
	int64		refused_line;
	int			col[SC_NCOLS];	/* field index, or -1 */
	char	   *tz_name;
	pg_tz	   *tz;
	TupleDesc	desc;
	/* the last timestamp read: Submit, Eligible and Start often agree */
	char		last_time[19];
	TimestampTz last_value;
	bool		last_valid;
	/* cluster and id of the last job line: sacct prints a job's steps right
	 * after it, and those fold without any lookup */
	char	   *last_job;
	int			last_job_len;
	int			last_job_cap;
} SacctState;

/* Is (cluster, job) the last job line's?  With remember, make it so. */
static bool
sacct_last_job(SacctState *st, Span cluster, Span job, bool remember)
{
	int			len = cluster.len + 1 + job.len;

	if (!remember)
		return st->last_job_len == len
			&& memcmp(st->last_job, cluster.p, cluster.len) == 0
			&& memcmp(st->last_job + cluster.len + 1, job.p, job.len) == 0;
	if (len > st->last_job_cap)
	{
		st->last_job_cap = Max(len, 64) * 2;
		st->last_job = st->last_job
			? repalloc(st->last_job, st->last_job_cap)
			: MemoryContextAlloc(GetMemoryChunkContext(st), st->last_job_cap);
	}
	memcpy(st->last_job, cluster.p, cluster.len);
	st->last_job[cluster.len] = '|';
	memcpy(st->last_job + cluster.len + 1, job.p, job.len);
	st->last_job_len = len;
	return true;
}

/* What a header line lacks, if anything (the column concerned in *col). */
typedef enum HeaderCheck
{
	HDR_OK,
	HDR_ENCODING,
	HDR_TOO_WIDE,
	HDR_TWICE,
	HDR_MISSING,
	HDR_NO_SIZE
} HeaderCheck;

/*
 * The columns of header h into st, or what is wrong with it.  On failure
 * st's columns are left as they were: a refused second header does not
 * change how the export's first header reads (sacct_next_header).
 */
static HeaderCheck
sacct_read_header(SacctState *st, Span h, int *col)
{
	Span		fields[SACCT_MAX_FIELDS];
	int			n;
	int			i;
	int			c;
	int			cols[SC_NCOLS];

	if (span_invalid_at(h) >= 0)
		return HDR_ENCODING;
	n = split(h, '|', fields, SACCT_MAX_FIELDS);
	if (n > SACCT_MAX_FIELDS)
		return HDR_TOO_WIDE;
	for (c = 0; c < SC_NCOLS; c++)
		cols[c] = -1;
	for (i = 0; i < n; i++)
		for (c = 0; c < SC_NCOLS; c++)
			if (span_eq_ci(fields[i], sacct_col_names[c]))
			{
				if (cols[c] >= 0)
				{
					*col = c;
					return HDR_TWICE;
				}
				cols[c] = i;
			}
	for (c = 0; c <= SC_STATE; c++)
	{
		if (c == SC_QOS || c == SC_ALLOCCPUS || c == SC_REQTRES || c == SC_ALLOCTRES
			|| c == SC_ELIGIBLE)
			continue;
		if (cols[c] < 0)
		{
			*col = c;
			return HDR_MISSING;
		}
	}
	if (cols[SC_ALLOCTRES] < 0 && cols[SC_REQTRES] < 0 && cols[SC_ALLOCCPUS] < 0)
		return HDR_NO_SIZE;
	memcpy(st->col, cols, sizeof(cols));
	st->nfields = n;
	return HDR_OK;
}

/* What is wrong with a header, in words (a reject's reason). */
static char *
sacct_header_problem(HeaderCheck hc, int c)
{
	switch (hc)
	{
		case HDR_OK:
			break;
		case HDR_ENCODING:
			return psprintf("it holds a byte sequence that is not valid %s", GetDatabaseEncodingName());
		case HDR_TOO_WIDE:
			return psprintf("it has more than %d columns", SACCT_MAX_FIELDS);
		case HDR_TWICE:
			return psprintf("it names column %s twice", sacct_col_names[c]);
		case HDR_MISSING:
			return psprintf("column %s is missing", sacct_col_names[c]);
		case HDR_NO_SIZE:
			return pstrdup("it has none of AllocTRES, ReqTRES, AllocCPUS");
	}
	return NULL;
}

static void
sacct_header_error(HeaderCheck hc, int c, Span h)
{
	switch (hc)
	{
		case HDR_OK:
			break;
		case HDR_ENCODING:
			/* the header itself is not quoted: it is not valid text */
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("sacct header has an invalid byte sequence for encoding \"%s\": %s",
							GetDatabaseEncodingName(), span_bad_bytes(h, span_invalid_at(h))),
					 errhint("The first staged line must be sacct's header; check the file and the \\copy that staged it.")));
			break;
		case HDR_TOO_WIDE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("sacct header has more than %d columns", SACCT_MAX_FIELDS)));
			break;
		case HDR_TWICE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("sacct header names column %s twice", sacct_col_names[c]),
					 errhint("List each column once in sacct -o.")));
			break;
		case HDR_MISSING:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("the first staged line is not an sacct --parsable2 header: column %s is missing",
							sacct_col_names[c]),
					 errdetail("First line: \"%s\"", span_show(h)),
					 errhint("Export with sacct -P (without -n) and at least -o JobID,User,Account,Partition,Submit,Start,End,State,AllocTRES.")));
			break;
		case HDR_NO_SIZE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("sacct header has none of AllocTRES, ReqTRES, AllocCPUS: the jobs' sizes are unknown"),
					 errhint("Add AllocTRES (and ReqTRES for pending jobs) to sacct -o.")));
			break;
	}
}

static void
sacct_parse_header(SacctState *st, Span h)
{
	int			c = 0;

	sacct_header_error(sacct_read_header(st, h, &c), c, h);
}

/* Job id without its step: 123, 123_4, 123_[1-3,7%2], 123+0; step after a dot. */
static bool
sacct_job_id(Span s, Span *job, Span *step)
{
	int			i = 0;

	while (i < s.len && isdigit((unsigned char) s.p[i]))
		i++;
	if (i == 0)
		return false;
	if (i < s.len && s.p[i] == '_')
	{
		i++;
		if (i < s.len && isdigit((unsigned char) s.p[i]))
		{
			while (i < s.len && isdigit((unsigned char) s.p[i]))
				i++;
		}
		else if (i < s.len && s.p[i] == '[')
		{
			int			open = i;

			i++;
			while (i < s.len && (isdigit((unsigned char) s.p[i]) || strchr(",-%:", s.p[i])))
				i++;
			if (i >= s.len || s.p[i] != ']' || i == open + 1)
				return false;
			i++;
		}
		else
			return false;
	}
	/* a heterogeneous job's component (arrays of het jobs do not exist) */
	if (i < s.len && s.p[i] == '+' && memchr(s.p, '_', i) == NULL)
	{
		int			d = ++i;

		while (i < s.len && isdigit((unsigned char) s.p[i]))
			i++;
		if (i == d)
			return false;
	}
	*job = span_make(s.p, i);
	*step = span_make(s.p + i, 0);
	if (i == s.len)
		return true;
	if (s.p[i] != '.' || i + 1 == s.len)
		return false;
	*step = span_make(s.p + i + 1, s.len - i - 1);
	for (i = 0; i < step->len; i++)
		if (!(isalnum((unsigned char) step->p[i]) || step->p[i] == '_' || step->p[i] == '-'))
			return false;
	return true;
}

/*
 * The pending remainder of a job array, "123_[5-7,9%2]": the bracket of a job
 * id that sacct_job_id accepted, or an empty span when the id has none.
 */
static Span
sacct_array_range(Span job)
{
	int			i;

	for (i = 0; i + 1 < job.len; i++)
		if (job.p[i] == '_' && job.p[i + 1] == '[')
			return span_make(job.p + i + 2, job.len - i - 3);
	return span_make(job.p, 0);
}

/* An array index as _array_tasks reads it: 1 to 9 digits. */
static bool
array_index(Span s, int64 *v)
{
	return s.len <= 9 && span_uint(s, 999999999, v);
}

/*
 * Why the range of a pending remainder is not one Slurm prints, or NULL: items
 * N, N-M or N-M:S (N <= M, S >= 1, 1 to 9 digits each) separated by commas,
 * then an optional %K throttle.  The import expands the range into task ids
 * (_array_tasks) to tell a stale remainder from a current one; that
 * expansion skips an item it cannot read and reads a reversed range "5-1"
 * as no task at all, which stored the remainder as if it had no tasks.
 * Such a line is rejected here instead.
 */
static char *
sacct_array_why(Span range)
{
	int			end;
	int			i;

	for (end = 0; end < range.len && range.p[end] != '%'; end++)
		;
	if (end < range.len)
	{
		int64		k;

		if (!array_index(span_make(range.p + end + 1, range.len - end - 1), &k))
			return psprintf("array throttle \"%s\" is not %%K", span_show(span_make(range.p + end, range.len - end)));
	}
	for (i = 0; i <= end;)
	{
		Span		item;
		int			j = i,
					dash,
					colon;
		int64		n,
					m = 0,
					step = 0;

		while (j < end && range.p[j] != ',')
			j++;
		item = span_make(range.p + i, j - i);
		for (dash = 0; dash < item.len && item.p[dash] != '-'; dash++)
			;
		for (colon = 0; colon < item.len && item.p[colon] != ':'; colon++)
			;
		if (!array_index(span_make(item.p, Min(dash, colon)), &n)
			|| (dash < item.len
				&& (colon < dash
					|| !array_index(span_make(item.p + dash + 1, colon - dash - 1), &m)
					|| (colon < item.len
						&& !array_index(span_make(item.p + colon + 1, item.len - colon - 1), &step))))
			|| (dash == item.len && colon < item.len))
			return psprintf("\"%s\" is not an array index range (N, N-M or N-M:S)", span_show(item));
		if (dash < item.len && m < n)
			return psprintf("array range " INT64_FORMAT "-" INT64_FORMAT " is reversed", n, m);
		if (colon < item.len && step == 0)
			return psprintf("array range \"%s\" has a step of 0", span_show(item));
		i = j + 1;
	}
	return NULL;
}

/*
 * sacct's state name to the jobs table's.  "CANCELLED by 0" is CANCELLED; a
 * trailing '+' (sacct's mark of a truncated field) is dropped.  States the
 * table does not have are read as what they mean for usage: a job still
 * holding its allocation is RUNNING, one put back in the queue REQUEUED.
 */
static const char *
slurm_state(Span s)
{
	static const char *const map[][2] = {
		{"PENDING", "PENDING"}, {"RUNNING", "RUNNING"}, {"SUSPENDED", "SUSPENDED"},
		{"COMPLETED", "COMPLETED"}, {"CANCELLED", "CANCELLED"}, {"FAILED", "FAILED"},
		{"TIMEOUT", "TIMEOUT"}, {"NODE_FAIL", "NODE_FAIL"}, {"PREEMPTED", "PREEMPTED"},
		{"BOOT_FAIL", "BOOT_FAIL"}, {"DEADLINE", "DEADLINE"},
		{"OUT_OF_MEMORY", "OUT_OF_MEMORY"}, {"REQUEUED", "REQUEUED"},
		{"CONFIGURING", "RUNNING"}, {"COMPLETING", "RUNNING"}, {"RESIZING", "RUNNING"},
		{"SIGNALING", "RUNNING"}, {"STAGE_OUT", "RUNNING"}, {"STOPPED", "RUNNING"},
		{"REQUEUE_FED", "REQUEUED"}, {"REQUEUE_HOLD", "REQUEUED"},
		{"SPECIAL_EXIT", "REQUEUED"}, {"RESV_DEL_HOLD", "PENDING"},
		{"REVOKED", "CANCELLED"}
	};
	int			w = 0;
	int			i;

	while (w < s.len && s.p[w] != ' ')
		w++;
	if (w > 0 && s.p[w - 1] == '+')
		w--;
	for (i = 0; i < (int) lengthof(map); i++)
		if (span_eq_ci(span_make(s.p, w), map[i][0]))
			return map[i][1];
	return NULL;
}

static Span
sacct_field(const SacctState *st, const Span *f, SacctCol c)
{
	return st->col[c] >= 0 ? f[st->col[c]] : span_make("", 0);
}

/* One timestamp column into the row; false (after reject) when malformed. */
static bool
sacct_time(SacctState *st, Row *r, const Span *f, SacctCol c, int att)
{
	Span		s = sacct_field(st, f, c);
	TimestampTz t;
	ValResult	res;

	if (s.len == 19 && st->last_valid && memcmp(s.p, st->last_time, 19) == 0)
	{
		row_set(r, att, TimestampTzGetDatum(st->last_value));
		return true;
	}
	res = slurm_time(s, st->tz, &t);
	if (res == VAL_BAD)
		return reject(r, "22008", psprintf("%s \"%s\" is not a timestamp (YYYY-MM-DDTHH:MM:SS)",
										   sacct_col_names[c], span_show(s)));
	if (res == VAL_OK)
	{
		row_set(r, att, TimestampTzGetDatum(t));
		memcpy(st->last_time, s.p, 19);
		st->last_value = t;
		st->last_valid = true;
	}
	return true;
}

static bool
sacct_required(Row *r, Span s, SacctCol c, int att)
{
	if (s.len == 0)
		return reject(r, "22004", psprintf("%s is empty", sacct_col_names[c]));
	row_set(r, att, span_text(s));
	return true;
}

/*
 * Suspended: the time the run spent suspended, "[D-]HH:MM:SS" (0 when the
 * column is absent or empty).  slurmctld charges a run's fairshare usage
 * for End - Start, suspension included, so the usage code does not read
 * it; it is kept for the reports that, like sreport, leave it out.  It
 * cannot exceed the run.
 */
static bool
sacct_suspended(SacctState *st, Row *r, const Span *f)
{
	Span		s = sacct_field(st, f, SC_SUSPENDED);
	Interval   *susp = palloc0(sizeof(Interval));

	/* absent or empty: never suspended; "UNLIMITED" is a limit, not a time */
	if (s.len > 0 && (span_eq_ci(s, "UNLIMITED") || span_eq_ci(s, "Partition_Limit")
					  || duration(s, true, susp) != VAL_OK))
		return reject(r, "22P02", psprintf("Suspended \"%s\" is not a duration ([D-]HH:MM:SS)", span_show(s)));
	if (!r->nulls[SO_START] && !r->nulls[SO_END])
	{
		int64		run = DatumGetTimestampTz(r->values[SO_END]) - DatumGetTimestampTz(r->values[SO_START]);
		int64		us = susp->time + (int64) susp->day * USECS_PER_DAY;

		if (us > run)
			return reject(r, "23514", psprintf("Suspended \"%s\" is longer than the run (End - Start = %lld s)",
											   span_show(s), (long long) (run / USECS_PER_SEC)));
	}
	row_set(r, SO_SUSPENDED, IntervalPGetDatum(susp));
	return true;
}

/*
 * ReservationId: the reservation the run ran in (slurmdbd's id_resv); NULL
 * when the column is absent, empty or 0 (no reservation).  The rollups take
 * a run's time in its reservation out of the reservation's idle time, as
 * slurmdbd does.
 */
static bool
sacct_resv_id(SacctState *st, Row *r, const Span *f)
{
	Span		s = sacct_field(st, f, SC_RESVID);
	int64		id;

	if (s.len == 0)
		return true;
	if (!span_uint(s, PG_INT32_MAX, &id))
		return reject(r, "22P02", psprintf("ReservationId \"%s\" is not a reservation id (a whole number)", span_show(s)));
	if (id > 0)
		row_set(r, SO_RESV_ID, Int32GetDatum((int32) id));
	return true;
}

/* Fill r from one data line; false when the line is rejected. */
static bool
sacct_fill(SacctState *st, Row *r, Span line, text *cluster_arg)
{
	Span		f[SACCT_MAX_FIELDS];
	int			n = split(line, '|', f, st->nfields);
	Span		s,
				job,
				step,
				range,
				tres_s;
	const char *state;
	char	   *why;
	TresCounts	tc;
	bool		have_tres = false;
	int64		cpus = -1,
				nodes = -1,
				gpus = 0,
				mem = 0;
	Interval   *limit;
	ValResult	res;

	if (n != st->nfields)
		return reject(r, "22P02", n > st->nfields
					  ? psprintf("line has more than %d fields, the header has %d", st->nfields, st->nfields)
					  : psprintf("line has %d fields, the header has %d", n, st->nfields));

	s = f[st->col[SC_JOBID]];
	if (!sacct_job_id(s, &job, &step))
		return reject(r, "22P02", psprintf("JobID \"%s\" is not a Slurm job id (123, 123_4, 123_[5-9], 123+0, with an optional .step)",
										   span_show(s)));
	row_set(r, SO_JOB_ID, span_text(job));
	range = sacct_array_range(job);
	if (range.len > 0 && (why = sacct_array_why(range)) != NULL)
		return reject(r, "22P02", psprintf("JobID \"%s\": %s", span_show(s), why));

	/* cluster: the column when there is one, checked against the argument */
	s = sacct_field(st, f, SC_CLUSTER);
	if (cluster_arg != NULL)
	{
		Span		a = text_span(cluster_arg);

		row_set(r, SO_CLUSTER, PointerGetDatum(cluster_arg));
		if (s.len > 0 && (s.len != a.len || memcmp(s.p, a.p, s.len) != 0))
			return reject(r, "22023", psprintf("Cluster \"%s\" is not the cluster being imported (%.*s)",
											   span_show(s), a.len, a.p));
		s = a;
	}
	else if (!sacct_required(r, s, SC_CLUSTER, SO_CLUSTER))
		return false;

	if (step.len > 0)
	{
		/*
		 * A step folds into its job.  Right after its job's line (how sacct
		 * prints them) that is settled here; a step anywhere else is a
		 * 'lone_step' whose job the import looks for.
		 */
		row_text(r, SO_KIND, sacct_last_job(st, s, job, false) ? "step" : "lone_step");
		row_set(r, SO_STEP, span_text(step));
		return true;
	}
	/* the job's line, even if rejected below, is where its steps fold */
	sacct_last_job(st, s, job, true);

	if (!sacct_required(r, f[st->col[SC_USER]], SC_USER, SO_USER)
		|| !sacct_required(r, f[st->col[SC_ACCOUNT]], SC_ACCOUNT, SO_ACCOUNT))
		return false;
	/* a pending job submitted to several partitions lists them all: the
	 * first one is the job's partition until it starts */
	s = f[st->col[SC_PARTITION]];
	{
		int			comma = 0;

		while (comma < s.len && s.p[comma] != ',')
			comma++;
		if (!sacct_required(r, span_make(s.p, comma), SC_PARTITION, SO_PARTITION))
			return false;
	}
	s = sacct_field(st, f, SC_QOS);
	if (s.len > 0)
		row_set(r, SO_QOS, span_text(s));

	s = f[st->col[SC_STATE]];
	state = slurm_state(s);
	if (state == NULL)
		return reject(r, "22P02", psprintf("State \"%s\" is not a Slurm job state", span_show(s)));
	row_text(r, SO_STATE, state);

	if (!sacct_time(st, r, f, SC_SUBMIT, SO_SUBMIT)
		|| !sacct_time(st, r, f, SC_ELIGIBLE, SO_ELIGIBLE)
		|| !sacct_time(st, r, f, SC_START, SO_START)
		|| !sacct_time(st, r, f, SC_END, SO_END))
		return false;
	if (r->nulls[SO_SUBMIT])
		return reject(r, "22004", "Submit is Unknown: a job without a submit time cannot be stored");

	/* the jobs table's CHECKs, so that one line cannot abort the import */
	if (!r->nulls[SO_ELIGIBLE] && DatumGetTimestampTz(r->values[SO_ELIGIBLE]) < DatumGetTimestampTz(r->values[SO_SUBMIT]))
		return reject(r, "23514", "Eligible is before Submit");
	if (!r->nulls[SO_START] && !r->nulls[SO_END]
		&& DatumGetTimestampTz(r->values[SO_END]) < DatumGetTimestampTz(r->values[SO_START]))
		return reject(r, "23514", "End is before Start");
	if (strcmp(state, "PENDING") == 0 && !(r->nulls[SO_START] && r->nulls[SO_END]))
		return reject(r, "23514", "a PENDING job has a Start or End time");
	if ((strcmp(state, "RUNNING") == 0 || strcmp(state, "SUSPENDED") == 0)
		&& (r->nulls[SO_START] || !r->nulls[SO_END]))
		return reject(r, "23514", psprintf("a %s job needs a Start time and no End time", state));

	/*
	 * A pending remainder is the part of an array not started yet: its tasks
	 * run under ids of their own (123_5).  One that holds an allocation, or
	 * ran, is not something Slurm prints; stored, it was charged as one job
	 * and, not PENDING, never replaced by the tasks' lines.
	 */
	if (range.len > 0
		&& (strcmp(state, "RUNNING") == 0 || strcmp(state, "SUSPENDED") == 0
			|| (!r->nulls[SO_START] && !r->nulls[SO_END]
				&& DatumGetTimestampTz(r->values[SO_END]) > DatumGetTimestampTz(r->values[SO_START]))))
		return reject(r, "23514", psprintf("JobID \"%s\" is a job array's pending remainder: it cannot be %s",
										   span_show(job), strcmp(state, "RUNNING") == 0 || strcmp(state, "SUSPENDED") == 0
										   ? state : "a job that ran (End after Start)"));

	/*
	 * Every other state is final: the job has ended, and its End is when.
	 * Without it the usage code would take the job for one still running
	 * and charge it up to every report's instant.
	 */
	if (strcmp(state, "PENDING") != 0 && strcmp(state, "RUNNING") != 0
		&& strcmp(state, "SUSPENDED") != 0 && r->nulls[SO_END])
		return reject(r, "23514", psprintf("a %s job has ended: its End cannot be Unknown", state));
	if (!sacct_suspended(st, r, f) || !sacct_resv_id(st, r, f))
		return false;

	/* size: AllocTRES, or ReqTRES when nothing was allocated (pending, or
	 * cancelled before it started) */
	tres_s = sacct_field(st, f, SC_ALLOCTRES);
	if (tres_s.len == 0)
		tres_s = sacct_field(st, f, SC_REQTRES);
	if (tres_s.len > 0)
	{
		const char *why = scan_tres(tres_s, &tc);

		if (why != NULL)
			return reject(r, "22P02", psprintf("TRES \"%s\": %s", span_show(tres_s), why));
		have_tres = true;
		row_set(r, SO_TRES, span_text(tres_s));
		if (tc.has_cpu && (cpus = whole(tc.cpu, PG_INT32_MAX)) < 0)
			return reject(r, "22P02", psprintf("TRES \"%s\": cpu must be a whole number from 0 to 2147483647", span_show(tres_s)));
		if (tc.has_node && (nodes = whole(tc.node, PG_INT32_MAX)) < 0)
			return reject(r, "22P02", psprintf("TRES \"%s\": node must be a whole number from 0 to 2147483647", span_show(tres_s)));
		if ((gpus = whole(tc.has_gpu ? tc.gpu : tc.gpu_typed, PG_INT32_MAX)) < 0)
			return reject(r, "22P02", psprintf("TRES \"%s\": gres/gpu must be a whole number from 0 to 2147483647", span_show(tres_s)));
		if (tc.mem > (double) PG_INT64_MAX / 2)
			return reject(r, "22003", psprintf("TRES \"%s\": mem out of range", span_show(tres_s)));
		mem = (int64) ceil(tc.mem);
	}
	if (cpus < 0)
	{
		s = sacct_field(st, f, SC_ALLOCCPUS);
		if (s.len == 0)
			return reject(r, "22004", have_tres ? "TRES has no cpu and AllocCPUS is empty"
						  : "no AllocTRES, ReqTRES or AllocCPUS: the job's size is unknown");
		if (!span_uint(s, PG_INT32_MAX, &cpus))
			return reject(r, "22P02", psprintf("AllocCPUS \"%s\" is not a CPU count", span_show(s)));
	}
	if (nodes < 0)
	{
		s = sacct_field(st, f, SC_NNODES);
		nodes = 1;				/* Slurm's minimum, when nothing says more */
		if (s.len > 0 && !span_uint(s, PG_INT32_MAX, &nodes))
			return reject(r, "22P02", psprintf("NNodes \"%s\" is not a node count", span_show(s)));
	}
	/*
	 * A job that started ran on at least one node.  Stored with 0, a job
	 * paying whole nodes (exclusive, or a whole-node partition) costs 0
	 * core-hours: silently free.  A job that never started may
	 * have no node.
	 */
	if (nodes == 0 && !r->nulls[SO_START])
		return reject(r, "23514", "0 nodes for a job that started: it ran on at least one node");
	row_set(r, SO_CPUS, Int32GetDatum((int32) cpus));
	row_set(r, SO_MEM, Int64GetDatum(mem));
	row_set(r, SO_GPUS, Int32GetDatum((int32) gpus));
	row_set(r, SO_NODES, Int32GetDatum((int32) nodes));

	s = sacct_field(st, f, SC_TIMELIMIT);
	limit = palloc(sizeof(Interval));
	res = duration(s, true, limit);
	if (res == VAL_BAD)
		return reject(r, "22P02", psprintf("Timelimit \"%s\" is not a duration ([D-]HH:MM:SS, UNLIMITED)", span_show(s)));
	if (res == VAL_OK)
	{
		if (limit->time == 0 && limit->day == 0)
			return reject(r, "23514", "Timelimit is zero");
		row_set(r, SO_TIME_LIMIT, IntervalPGetDatum(limit));
	}
	row_text(r, SO_KIND, "job");
	return true;
}

/* h becomes the header lines are compared with (its copy in st->cxt). */
static void
sacct_set_header(SacctState *st, Span h)
{
	if (st->header == NULL || h.len + 1 > st->header_cap)
	{
		st->header_cap = Max(h.len + 1, 256);
		st->header = st->header
			? repalloc(st->header, st->header_cap)
			: MemoryContextAlloc(st->cxt, st->header_cap);
	}
	memcpy(st->header, h.p, h.len);
	st->header_len = h.len;
}

/* The header the lines are read through: its columns parsed once, again
 * only when another header comes. */
static void
sacct_use_header(SacctState *st, Span header)
{
	if (st->header != NULL && st->header_len == header.len
		&& memcmp(st->header, header.p, header.len) == 0)
		return;
	sacct_parse_header(st, header);
	sacct_set_header(st, header);
	st->refused_why = NULL;
}

/*
 * Does the line look like a header of a '|'-separated export: every field a
 * column name (a letter, then letters, digits or '_'), `key` among them?
 * sacct's key is JobID, sacctmgr's TimeStart: a data line never looks like
 * one, its key field being a job id or a time (digits), or empty; nor does
 * a stray line of text without that field.
 */
static bool
header_like(Span line, const char *key)
{
	bool		has_key = false;
	int			start = 0;
	int			i;

	for (i = 0; i <= line.len; i++)
	{
		Span		f;
		int			k;

		if (i < line.len && line.p[i] != '|')
			continue;
		f = span_make(line.p + start, i - start);
		if (f.len == 0 || !isalpha((unsigned char) f.p[0]))
			return false;
		for (k = 1; k < f.len; k++)
			if (!isalnum((unsigned char) f.p[k]) && f.p[k] != '_')
				return false;
		if (span_eq_ci(f, key))
			has_key = true;
		start = i + 1;
	}
	return has_key;
}

/*
 * A header after the first: two exports staged together (concatenated
 * files) whose headers order the columns differently.  It becomes the
 * header the lines after it are read through (they were read
 * through the first header's columns, and a job of 8 CPUs on 1 node was
 * stored as 1 CPU on 8 nodes).  A header that cannot be read rejects itself
 * and, until the next header, every line after it: their layout is unknown.
 */
static void
sacct_next_header(SacctState *st, Row *r, Span line)
{
	int			c = 0;
	HeaderCheck hc = sacct_read_header(st, line, &c);

	if (hc == HDR_OK)
	{
		sacct_set_header(st, line);
		st->refused_why = NULL;
		row_text(r, SO_KIND, "header");
		return;
	}
	st->refused_why = MemoryContextStrdup(st->cxt, sacct_header_problem(hc, c));
	st->refused_line = st->line_no;
	(void) reject(r, "22P02", psprintf("a header that cannot be read: %s; the lines up to the next header are rejected",
									   st->refused_why));
}

static void
sacct_use_zone(SacctState *st, const char *tz_name, MemoryContext cxt)
{
	if (st->tz_name != NULL && strcmp(st->tz_name, tz_name) == 0)
		return;
	st->tz = lookup_time_zone(tz_name);
	st->tz_name = MemoryContextStrdup(cxt, tz_name);
	st->last_valid = false;
}

/*
 * One staged line (NULL: a NULL line) into r: blank, a repeat of the
 * header, another header (which the lines after it are then read through),
 * or data.
 */
static void
sacct_line(SacctState *st, Row *r, text *line_t, text *cluster_arg)
{
	Span		line;
	int			bad;

	if (line_t == NULL)
	{
		row_text(r, SO_KIND, "blank");
		return;
	}
	line = text_span(line_t);
	if (line.len == 0)
		row_text(r, SO_KIND, "blank");
	else if (line.len == st->header_len && memcmp(line.p, st->header, line.len) == 0)
	{
		/* a repeat of the header in force ends a refused one's lines too */
		row_text(r, SO_KIND, "header");
		st->refused_why = NULL;
	}
	else if ((bad = span_invalid_at(line)) >= 0)
	{
		/*
		 * Which field, so that the admin can find it; the job id when that
		 * field is valid, so that the reject names the job.
		 */
		Span		f[SACCT_MAX_FIELDS];
		Span		hf[SACCT_MAX_FIELDS];
		int			n = split(line, '|', f, SACCT_MAX_FIELDS);
		int			field = 0;
		int			i;
		Span		job,
					step;

		for (i = 0; i < bad; i++)
			if (line.p[i] == '|')
				field++;
		if (n == st->nfields && span_invalid_at(f[st->col[SC_JOBID]]) < 0
			&& sacct_job_id(f[st->col[SC_JOBID]], &job, &step))
			row_set(r, SO_JOB_ID, span_text(job));
		(void) split(span_make(st->header, st->header_len), '|', hf, SACCT_MAX_FIELDS);
		(void) reject(r, "22021",
					  psprintf("field %d%s holds an invalid byte sequence for encoding \"%s\": %s",
							   field + 1,
							   field < st->nfields
							   ? psprintf(" (%s)", span_show(hf[field])) : "",
							   GetDatabaseEncodingName(), span_bad_bytes(line, bad)));
	}
	else if (header_like(line, "JobID"))
		sacct_next_header(st, r, line);
	else if (st->refused_why != NULL)
		(void) reject(r, "22P02",
					  st->refused_line > 0
					  ? psprintf("not read: the header on line " INT64_FORMAT " could not be read (%s)",
								 st->refused_line, st->refused_why)
					  : psprintf("not read: the last header could not be read (%s)", st->refused_why));
	else
		(void) sacct_fill(st, r, line, cluster_arg);
}

static void
sacct_null_args(FunctionCallInfo fcinfo, int header_arg, int zone_arg)
{
	if (PG_ARGISNULL(header_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("sacct header must not be NULL"),
				 errhint("Pass the export's first line, the one naming its columns.")));
	if (PG_ARGISNULL(zone_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("time_zone must not be NULL"),
				 errhint("sacct prints local times without an offset: state the zone they are in.")));
}

PG_FUNCTION_INFO_V1(fs_sacct_line);

/*
 * _sacct_line(line text, header text, time_zone text, cluster text)
 *   -> _sacct_line: kind 'job', 'step' (of the job line just before it),
 *   'lone_step' (a step anywhere else), 'header' (a repeat of the header, or
 *   another header: the caller passes the header in force with each line),
 *   'blank' or 'reject' (with sqlstate and reason).
 */
Datum
fs_sacct_line(PG_FUNCTION_ARGS)
{
	SacctState *st = (SacctState *) fcinfo->flinfo->fn_extra;
	Row			r;

	sacct_null_args(fcinfo, 1, 2);
	if (st == NULL)
	{
		st = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(SacctState));
		st->cxt = fcinfo->flinfo->fn_mcxt;
		/* a database not yet updated to 1.2 has the type without suspended */
		st->desc = result_desc(fcinfo, SO_NATTS, SO_SUSPENDED, "_sacct_line");
		fcinfo->flinfo->fn_extra = st;
	}
	sacct_use_header(st, text_span(PG_GETARG_TEXT_PP(1)));
	sacct_use_zone(st, text_to_cstring(PG_GETARG_TEXT_PP(2)), fcinfo->flinfo->fn_mcxt);

	row_init(&r, SO_NATTS, SO_KIND, SO_SQLSTATE, SO_REASON);
	sacct_line(st, &r, PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0),
			   PG_ARGISNULL(3) ? NULL : PG_GETARG_TEXT_PP(3));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(st->desc, r.values, r.nulls)));
}

/*
 * Columns of _sacct_parse: line_no, then _sacct_line's columns up to nodes,
 * exclusive, stored, sqlstate, reason, line (the staged line, for rejects)
 * and folded (the steps folded into the line).
 */
enum
{
	SP_LINE_NO,
	SP_FIRST,					/* SO_KIND ... SO_NODES */
	SP_EXCLUSIVE = SP_FIRST + SO_NODES + 1,
	SP_STORED,
	SP_SQLSTATE,
	SP_REASON,
	SP_LINE,
	SP_FOLDED,
	SP_SUSPENDED,
	SP_RESV_ID,
	SP_NATTS
};

/* A line read and parsed, held until the lines after it are known not to
 * be its steps. */
typedef struct SacctHeld
{
	MemoryContext cxt;
	int64		line_no;
	text	   *line;			/* the staged line of a reject, else NULL */
	Row			r;
	int64		folded;
} SacctHeld;

static void
sacct_put(Tuplestorestate *ts, TupleDesc desc, SacctHeld *h)
{
	Datum		v[SP_NATTS];
	bool		n[SP_NATTS];
	int			i;

	v[SP_LINE_NO] = Int64GetDatum(h->line_no);
	n[SP_LINE_NO] = false;
	for (i = 0; i <= SO_NODES; i++)
	{
		v[SP_FIRST + i] = h->r.values[i];
		n[SP_FIRST + i] = h->r.nulls[i];
	}
	n[SP_EXCLUSIVE] = true;
	v[SP_EXCLUSIVE] = (Datum) 0;
	v[SP_STORED] = BoolGetDatum(false);
	n[SP_STORED] = false;
	v[SP_SQLSTATE] = h->r.values[SO_SQLSTATE];
	n[SP_SQLSTATE] = h->r.nulls[SO_SQLSTATE];
	v[SP_REASON] = h->r.values[SO_REASON];
	n[SP_REASON] = h->r.nulls[SO_REASON];
	n[SP_LINE] = h->line == NULL;
	v[SP_LINE] = PointerGetDatum(h->line);
	v[SP_FOLDED] = Int64GetDatum(h->folded);
	n[SP_FOLDED] = false;
	v[SP_SUSPENDED] = h->r.values[SO_SUSPENDED];
	n[SP_SUSPENDED] = h->r.nulls[SO_SUSPENDED];
	v[SP_RESV_ID] = h->r.values[SO_RESV_ID];
	n[SP_RESV_ID] = h->r.nulls[SO_RESV_ID];
	tuplestore_putvalues(ts, desc, v, n);
}

/* Is the parsed line of that kind? */
static bool
sacct_kind_is(const Row *r, const char *kind)
{
	text	   *k = DatumGetTextPP(r->values[SO_KIND]);

	return VARSIZE_ANY_EXHDR(k) == (int) strlen(kind) && memcmp(VARDATA_ANY(k), kind, strlen(kind)) == 0;
}

/* Does the header name the column (sacct's names are case-insensitive)? */
static bool
sacct_header_has(Span h, const char *name)
{
	int			start = 0;
	int			i;

	for (i = 0; i <= h.len; i++)
		if (i == h.len || h.p[i] == '|')
		{
			if (span_eq_ci(span_make(h.p + start, i - start), name))
				return true;
			start = i + 1;
		}
	return false;
}

/* The staging table as a name for a query. */
static char *
staging_name(Oid relid)
{
	char	   *rel = get_rel_name(relid);

	if (rel == NULL)
		elog(ERROR, "staging table %u does not exist", relid);
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), rel);
}

/*
 * One pass over the staging table: every line parsed and put into ts, the
 * steps folded into the line before them.  A non-blank line numbered before
 * header_no (the header the caller found) is remembered in *first and
 * *first_no: the caller then reads the table again with that line as the
 * header.
 */
static void
sacct_scan(SacctState *st, Oid relid, int64 header_no, text *cluster_arg,
		   Tuplestorestate *ts, TupleDesc desc, text **first, int64 *first_no)
{
	MemoryContext caller = CurrentMemoryContext;
	SacctHeld	held[2];
	SacctHeld  *h = NULL;		/* the line held back, if any */
	int			next = 0;
	char	   *query;
	SPIPlanPtr	plan;
	Portal		portal;

	held[0].cxt = AllocSetContextCreate(caller, "sacct line", ALLOCSET_DEFAULT_SIZES);
	held[1].cxt = AllocSetContextCreate(caller, "sacct line", ALLOCSET_DEFAULT_SIZES);
	*first = NULL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	query = psprintf("SELECT line_no, line FROM %s", staging_name(relid));
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", query, SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		uint64		i;

		SPI_cursor_fetch(portal, true, 1000);
		if (SPI_processed == 0)
			break;
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			TupleDesc	td = SPI_tuptable->tupdesc;
			SacctHeld  *cur = &held[next];
			text	   *line;
			bool		isnull;
			Datum		d;
			MemoryContext old;

			MemoryContextReset(cur->cxt);
			old = MemoryContextSwitchTo(cur->cxt);
			d = SPI_getbinval(tup, td, 1, &isnull);
			cur->line_no = isnull ? 0 : DatumGetInt64(d);
			d = SPI_getbinval(tup, td, 2, &isnull);
			line = isnull ? NULL : DatumGetTextPP(d);
			cur->folded = 0;
			row_init(&cur->r, SO_NATTS, SO_KIND, SO_SQLSTATE, SO_REASON);
			st->line_no = cur->line_no;
			sacct_line(st, &cur->r, line, cluster_arg);
			/* a rejected line is kept whole, as staged (line points into
			 * the fetched batch, freed before this row may be put) */
			cur->line = sacct_kind_is(&cur->r, "reject")
				? (text *) PG_DETOAST_DATUM_COPY(PointerGetDatum(line)) : NULL;

			/* the header must be the first non-blank line: is this one before it? */
			if (line != NULL && VARSIZE_ANY_EXHDR(line) > 0 && cur->line_no < header_no
				&& (*first == NULL || cur->line_no < *first_no))
			{
				MemoryContextSwitchTo(caller);
				*first = (text *) PG_DETOAST_DATUM_COPY(PointerGetDatum(line));
				*first_no = cur->line_no;
			}
			MemoryContextSwitchTo(old);

			if (h != NULL && sacct_kind_is(&cur->r, "step"))
			{
				h->folded++;
				continue;		/* cur's context is reused for the next line */
			}
			if (h != NULL)
				sacct_put(ts, desc, h);
			h = cur;
			next = 1 - next;
		}
		SPI_freetuptable(SPI_tuptable);
	}
	if (h != NULL)
		sacct_put(ts, desc, h);
	SPI_cursor_close(portal);
	SPI_finish();
	MemoryContextDelete(held[0].cxt);
	MemoryContextDelete(held[1].cxt);
}

/* The first non-blank line of the staging table by line_no (NULL: none),
 * allocated in the caller's context. */
static text *
staging_first_line(Oid relid, int64 *line_no)
{
	MemoryContext caller = CurrentMemoryContext;
	text	   *first = NULL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(psprintf("SELECT line_no, line FROM %s WHERE line <> '' ORDER BY line_no LIMIT 1",
							 staging_name(relid)), true, 1) != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute failed");
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
		MemoryContext old;

		*line_no = isnull ? 0 : DatumGetInt64(d);
		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
		old = MemoryContextSwitchTo(caller);
		first = (text *) PG_DETOAST_DATUM_COPY(d);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return first;
}

/* import_sacct's check of the header it found, for a header found here. */
static void
sacct_require_cluster(text *cluster_arg, Span header)
{
	if (cluster_arg == NULL && !sacct_header_has(header, "Cluster"))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cluster is NULL and the export has no Cluster column"),
				 errhint("Pass the cluster, or add Cluster to sacct -o.")));
}

PG_FUNCTION_INFO_V1(fs_sacct_parse);

/*
 * _sacct_parse(staging regclass, header text, header_no bigint,
 *              time_zone text, cluster text) -> SETOF (line_no, kind, ...)
 *
 * The whole staging table through _sacct_line's parser, in one call, as
 * import_sacct's work table: the lines in the table's physical order (the
 * order \copy wrote them in, the export's: a step folds into the job line
 * read just before it), each with its line_no, and the staged text of the
 * rejected ones.  The steps that fold are not returned: each row counts in
 * folded those that followed it, so that the lines read are count(*) +
 * sum(folded) of the result.  One call instead of one per line spares the
 * row value built per line and taken apart again column by column, and a
 * pass over the staging table to count its lines
 * (docs/performance.md#importing-jobs).
 *
 * header is the staged line the caller took for the export's header, number
 * header_no: the first non-blank line of the table's first block, which is
 * the table's first line after import_stage() and \copy.  The header is the
 * first non-blank line by line_no: should a non-blank line numbered before
 * it come up in the pass (a staging table filled some other way), the table
 * is read again with the first of them as the header, and a header about to
 * be refused is first checked to be the first line.
 */
Datum
fs_sacct_parse(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	text	   *header_t;
	int64		header_no;
	text	   *cluster_arg;
	char	   *tz_name;
	SacctState *st;
	HeaderCheck hc;
	int			col = 0;
	text	   *first;
	int64		first_no = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("staging table and header line number must not be NULL"),
				 errhint("Call import_sacct(); it finds the header line and its number.")));
	sacct_null_args(fcinfo, 1, 3);
	relid = PG_GETARG_OID(0);
	header_t = PG_GETARG_TEXT_PP(1);
	header_no = PG_GETARG_INT64(2);
	tz_name = text_to_cstring(PG_GETARG_TEXT_PP(3));
	cluster_arg = PG_ARGISNULL(4) ? NULL : PG_GETARG_TEXT_PP(4);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	/* the values are formed through the caller's descriptor: a database
	 * not yet updated to 1.2 expects them without suspended, the last */
	if (rsinfo->setDesc->natts != SP_NATTS && rsinfo->setDesc->natts != SP_SUSPENDED)
		elog(ERROR, "_sacct_parse must return %d columns", SP_NATTS);

	st = palloc0(sizeof(SacctState));
	st->cxt = CurrentMemoryContext;
	sacct_use_zone(st, tz_name, CurrentMemoryContext);
	hc = sacct_read_header(st, text_span(header_t), &col);
	if (hc != HDR_OK)
	{
		first = staging_first_line(relid, &first_no);
		if (first != NULL && first_no < header_no)
		{
			header_t = first;
			header_no = first_no;
			sacct_require_cluster(cluster_arg, text_span(header_t));
			hc = sacct_read_header(st, text_span(header_t), &col);
		}
		sacct_header_error(hc, col, text_span(header_t));
	}
	sacct_set_header(st, text_span(header_t));
	sacct_scan(st, relid, header_no, cluster_arg,
			   rsinfo->setResult, rsinfo->setDesc, &first, &first_no);
	if (first != NULL)
	{
		sacct_require_cluster(cluster_arg, text_span(first));
		tuplestore_clear(rsinfo->setResult);
		memset(st, 0, sizeof(SacctState));
		st->cxt = CurrentMemoryContext;
		sacct_use_zone(st, tz_name, CurrentMemoryContext);
		sacct_parse_header(st, text_span(first));
		sacct_set_header(st, text_span(first));
		sacct_scan(st, relid, first_no, cluster_arg,
				   rsinfo->setResult, rsinfo->setDesc, &first, &first_no);
	}
	return (Datum) 0;
}

/* ===========================================================================
 * Slurm: the efficiency columns of an sacct export (import_sacct_efficiency,
 * docs/reports.md#job-efficiency).  The same staged export as import_sacct,
 * read through the same header rules (a later header switches the columns,
 * an invalid byte rejects its line alone), but only the columns seff needs:
 * a line's bad value rejects that line with its reason, never the import.
 * ===========================================================================
 */

typedef enum EffCol
{
	EC_JOBID,
	EC_SUBMIT,
	EC_USER,
	EC_ACCOUNT,
	EC_ALLOCNODES,
	EC_NNODES,
	EC_ALLOCCPUS,
	EC_TOTALCPU,
	EC_MAXRSS,
	EC_REQMEM,
	EC_REQTRES,
	EC_ENERGY,
	EC_USAGEAVE,
	EC_NCOLS
} EffCol;

static const char *const eff_col_names[EC_NCOLS] = {
	"JobID", "Submit", "User", "Account", "AllocNodes", "NNodes", "AllocCPUS",
	"TotalCPU", "MaxRSS", "ReqMem", "ReqTRES", "ConsumedEnergyRaw", "TRESUsageInAve"
};

/* Result columns: the type @extschema@._sacct_efficiency_line. */
enum
{
	EO_KIND,
	EO_JOB_ID,
	EO_STEP,
	EO_SUBMIT,
	EO_USER,
	EO_ACCOUNT,
	EO_TOTAL_CPU,
	EO_MAX_RSS,
	EO_REQ_MEM,
	EO_REQ_TRES,
	EO_ENERGY,
	EO_GPU_UTIL,
	EO_SQLSTATE,
	EO_REASON,
	EO_NATTS
};

typedef struct EffState
{
	MemoryContext cxt;
	char	   *first;			/* the header argument, as last passed */
	int			first_len;
	char	   *header;			/* the header in force */
	int			header_len;
	int			header_cap;
	int			nfields;
	int			col[EC_NCOLS];	/* field index, or -1 */
	char	   *refused_why;	/* as in SacctState */
	char	   *tz_name;
	pg_tz	   *tz;
	TupleDesc	desc;
} EffState;

/* The columns of header h, or why they cannot be read (NULL: read). */
static const char *
eff_read_header(EffState *st, Span h)
{
	Span		fields[SACCT_MAX_FIELDS];
	int			cols[EC_NCOLS];
	int			n;
	int			i;
	int			c;

	if (span_invalid_at(h) >= 0)
		return psprintf("it holds a byte sequence that is not valid %s", GetDatabaseEncodingName());
	n = split(h, '|', fields, SACCT_MAX_FIELDS);
	if (n > SACCT_MAX_FIELDS)
		return psprintf("it has more than %d columns", SACCT_MAX_FIELDS);
	for (c = 0; c < EC_NCOLS; c++)
		cols[c] = -1;
	for (i = 0; i < n; i++)
		for (c = 0; c < EC_NCOLS; c++)
			if (span_eq_ci(fields[i], eff_col_names[c]))
			{
				if (cols[c] >= 0)
					return psprintf("it names column %s twice", eff_col_names[c]);
				cols[c] = i;
			}
	if (cols[EC_JOBID] < 0 || cols[EC_SUBMIT] < 0)
		return psprintf("column %s is missing", eff_col_names[cols[EC_JOBID] < 0 ? EC_JOBID : EC_SUBMIT]);
	memcpy(st->col, cols, sizeof(cols));
	st->nfields = n;
	return NULL;
}

/* h becomes the header in force (its copy in st->cxt, the buffer reused:
 * an export may switch headers on every other line). */
static void
eff_set_header(EffState *st, Span h)
{
	if (st->header == NULL || h.len + 1 > st->header_cap)
	{
		st->header_cap = Max(h.len + 1, 256);
		st->header = st->header
			? repalloc(st->header, st->header_cap)
			: MemoryContextAlloc(st->cxt, st->header_cap);
	}
	memcpy(st->header, h.p, h.len);
	st->header_len = h.len;
}

/* The field of column c, or an empty span when the header has none. */
static Span
eff_field(const EffState *st, const Span *f, EffCol c)
{
	return st->col[c] >= 0 ? f[st->col[c]] : span_make("", 0);
}

/* A non-negative decimal "123" or "12.5" (all of s) as a double. */
static bool
span_decimal(Span s, double *out)
{
	char		buf[64];
	int			i;
	int			dots = 0;

	if (s.len == 0 || s.len >= (int) sizeof(buf) || s.p[0] == '.' || s.p[s.len - 1] == '.')
		return false;
	for (i = 0; i < s.len; i++)
	{
		if (s.p[i] == '.')
			dots++;
		else if (!isdigit((unsigned char) s.p[i]))
			return false;
	}
	if (dots > 1)
		return false;
	memcpy(buf, s.p, s.len);
	buf[s.len] = '\0';
	*out = strtod(buf, NULL);
	return isfinite(*out);
}

/*
 * sacct's durations with fractions ([DD-][HH:]MM:SS[.fff], TotalCPU) in
 * seconds; "", Unknown, INVALID, UNLIMITED and Partition_Limit are NULL.
 */
static ValResult
sacct_seconds(Span s, double *out)
{
	int64		days = 0;
	int64		part[2];
	int			nparts = 0;
	int			i = 0;
	int			j;
	double		secs;

	if (s.len == 0 || span_eq_ci(s, "Unknown") || span_eq_ci(s, "INVALID")
		|| span_eq_ci(s, "UNLIMITED") || span_eq_ci(s, "Partition_Limit"))
		return VAL_NULL;
	for (j = 0; j < s.len && s.p[j] != '-'; j++)
		;
	if (j < s.len)
	{
		if (!span_uint(span_make(s.p, j), 1000000, &days))
			return VAL_BAD;
		i = j + 1;
	}
	/* [HH:]MM: then SS[.fff] */
	for (;;)
	{
		for (j = i; j < s.len && s.p[j] != ':'; j++)
			;
		if (j == s.len)
			break;
		if (nparts == 2 || !span_uint(span_make(s.p + i, j - i), PG_INT32_MAX, &part[nparts]))
			return VAL_BAD;
		nparts++;
		i = j + 1;
	}
	if (nparts == 0 || !span_decimal(span_make(s.p + i, s.len - i), &secs))
		return VAL_BAD;
	*out = (double) days * 86400 + (nparts == 2 ? (double) part[0] * 3600 + part[1] * 60 : (double) part[0] * 60) + secs;
	return VAL_OK;
}

/*
 * sacct's sizes (MaxRSS 2572K, ReqMem 16G or 1000Mc; a bare number is
 * bytes) in MiB; *per is the trailing 'c' (per CPU) or 'n' (per node), or
 * '\0'.  "" is NULL.
 */
static ValResult
sacct_size_mb(Span s, double *out, char *per)
{
	static const char units[] = "KMGTP";
	double		scale = 1.0 / 1048576;	/* bytes */
	double		v;
	const char *u;

	*per = '\0';
	if (s.len == 0)
		return VAL_NULL;
	if (s.p[s.len - 1] == 'n' || s.p[s.len - 1] == 'c')
	{
		*per = s.p[s.len - 1];
		s.len--;
	}
	if (s.len > 0 && (u = memchr(units, s.p[s.len - 1], 5)) != NULL)
	{
		scale = ldexp(1.0, 10 * (int) (u - units) - 10);	/* K 2^-10 ... P 2^30 */
		s.len--;
	}
	if (!span_decimal(s, &v))
		return VAL_BAD;
	*out = v * scale;
	return isfinite(*out) ? VAL_OK : VAL_BAD;
}

/* gres/gpuutil=N of TRESUsageInAve ("cpu=00:01:00,gres/gpuutil=80"). */
static ValResult
sacct_gpu_util(Span s, double *out)
{
	static const char key[] = "gres/gpuutil=";
	int			i = 0;

	while (i < s.len)
	{
		int			j;

		for (j = i; j < s.len && s.p[j] != ','; j++)
			;
		if (j - i > (int) strlen(key) && pg_strncasecmp(s.p + i, key, strlen(key)) == 0)
			return span_decimal(span_make(s.p + i + strlen(key), j - i - strlen(key)), out) ? VAL_OK : VAL_BAD;
		i = j + 1;
	}
	return VAL_NULL;
}

/* One value of a line into the row, or the line rejected naming it. */
static bool
eff_number(Row *r, ValResult res, double v, int att, Span s, EffCol c, const char *what)
{
	if (res == VAL_BAD)
		return reject(r, c == EC_TOTALCPU ? "22007" : "22P02",
					  psprintf("%s \"%s\" is not %s", eff_col_names[c], span_show(s), what));
	if (res == VAL_OK)
		row_set(r, att, Float8GetDatum(v));
	return true;
}

/* A data line into r: job id and step, Submit, the efficiency values. */
static bool
eff_fill(EffState *st, Row *r, Span line)
{
	Span		f[SACCT_MAX_FIELDS];
	int			n = split(line, '|', f, st->nfields);
	Span		s,
				job,
				step;
	TimestampTz t;
	ValResult	res;
	double		v = 0;
	char		per;
	int64		count = 1;

	if (n != st->nfields)
		return reject(r, "22P02", n > st->nfields
					  ? psprintf("line has more than %d fields, the header has %d", st->nfields, st->nfields)
					  : psprintf("line has %d fields, the header has %d", n, st->nfields));
	s = f[st->col[EC_JOBID]];
	if (!sacct_job_id(s, &job, &step))
		return reject(r, "22P02", psprintf("JobID \"%s\" is not a Slurm job id (123, 123_4, 123_[5-9], 123+0, with an optional .step)",
										   span_show(s)));
	row_set(r, EO_JOB_ID, span_text(job));
	row_text(r, EO_KIND, step.len > 0 ? "step" : "job");
	if (step.len > 0)
		row_set(r, EO_STEP, span_text(step));

	s = f[st->col[EC_SUBMIT]];
	res = slurm_time(s, st->tz, &t);
	if (res == VAL_BAD)
		return reject(r, "22007", psprintf("Submit \"%s\" is not a time (YYYY-MM-DDTHH:MM:SS)", span_show(s)));
	if (res == VAL_OK)
		row_set(r, EO_SUBMIT, TimestampTzGetDatum(t));
	if ((s = eff_field(st, f, EC_USER)).len > 0)
		row_set(r, EO_USER, span_text(s));
	if ((s = eff_field(st, f, EC_ACCOUNT)).len > 0)
		row_set(r, EO_ACCOUNT, span_text(s));
	if ((s = eff_field(st, f, EC_REQTRES)).len > 0)
		row_set(r, EO_REQ_TRES, span_text(s));

	/* (each value parsed before it is passed: C fixes no order of arguments) */
	s = eff_field(st, f, EC_TOTALCPU);
	res = sacct_seconds(s, &v);
	if (!eff_number(r, res, v, EO_TOTAL_CPU, s, EC_TOTALCPU, "[DD-][HH:]MM:SS[.fff]"))
		return false;
	s = eff_field(st, f, EC_MAXRSS);
	res = sacct_size_mb(s, &v, &per);
	if (!eff_number(r, res, v, EO_MAX_RSS, s, EC_MAXRSS, "a number with an optional K, M, G, T or P"))
		return false;
	s = eff_field(st, f, EC_ENERGY);
	res = s.len == 0 ? VAL_NULL : span_decimal(s, &v) ? VAL_OK : VAL_BAD;
	if (!eff_number(r, res, v, EO_ENERGY, s, EC_ENERGY, "a number of joules"))
		return false;
	s = eff_field(st, f, EC_USAGEAVE);
	res = sacct_gpu_util(s, &v);
	if (!eff_number(r, res, v, EO_GPU_UTIL, s, EC_USAGEAVE, "TRES usage with a number as gres/gpuutil"))
		return false;

	/* ReqMem per CPU (c) or per node (n): times the job's CPUs or nodes */
	s = eff_field(st, f, EC_REQMEM);
	res = sacct_size_mb(s, &v, &per);
	if (res == VAL_OK && per != '\0')
	{
		Span		k = eff_field(st, f, per == 'c' ? EC_ALLOCCPUS
								  : st->col[EC_ALLOCNODES] >= 0 ? EC_ALLOCNODES : EC_NNODES);

		if (k.len > 0 && !span_uint(k, PG_INT32_MAX, &count))
			return reject(r, "22P02", psprintf("%s \"%s\" is not a count", per == 'c' ? "AllocCPUS" : "AllocNodes",
											   span_show(k)));
		v *= count;
	}
	return eff_number(r, res, v, EO_REQ_MEM, s, EC_REQMEM, "a number with an optional K, M, G, T or P, then c or n");
}

/* One staged line: blank, a header (the header in force, or another that
 * the lines after it are read through), data, or a reject. */
static void
eff_line(EffState *st, Row *r, text *line_t)
{
	Span		line;
	int			bad;

	if (line_t == NULL || (line = text_span(line_t)).len == 0)
		row_text(r, EO_KIND, "blank");
	else if (line.len == st->header_len && memcmp(line.p, st->header, line.len) == 0)
	{
		row_text(r, EO_KIND, "header");
		st->refused_why = NULL;
	}
	else if ((bad = span_invalid_at(line)) >= 0)
	{
		/* the field and its column named, the job id when it is valid */
		Span		f[SACCT_MAX_FIELDS];
		Span		hf[SACCT_MAX_FIELDS];
		int			n = split(line, '|', f, SACCT_MAX_FIELDS);
		int			field = 0;
		int			i;
		Span		job,
					step;

		for (i = 0; i < bad; i++)
			if (line.p[i] == '|')
				field++;
		if (n == st->nfields && span_invalid_at(f[st->col[EC_JOBID]]) < 0
			&& sacct_job_id(f[st->col[EC_JOBID]], &job, &step))
			row_set(r, EO_JOB_ID, span_text(job));
		(void) split(span_make(st->header, st->header_len), '|', hf, SACCT_MAX_FIELDS);
		(void) reject(r, "22021", psprintf("field %d%s holds an invalid byte sequence for encoding \"%s\": %s",
										   field + 1,
										   field < st->nfields ? psprintf(" (%s)", span_show(hf[field])) : "",
										   GetDatabaseEncodingName(), span_bad_bytes(line, bad)));
	}
	else if (header_like(line, "JobID"))
	{
		const char *why = eff_read_header(st, line);

		if (why == NULL)
		{
			eff_set_header(st, line);
			st->refused_why = NULL;
			row_text(r, EO_KIND, "header");
		}
		else
		{
			st->refused_why = MemoryContextStrdup(st->cxt, why);
			(void) reject(r, "22P02", psprintf("a header that cannot be read: %s; the lines up to the next header are rejected",
											   why));
		}
	}
	else if (st->refused_why != NULL)
		(void) reject(r, "22P02", psprintf("not read: the last header could not be read (%s)", st->refused_why));
	else
		(void) eff_fill(st, r, line);
}

PG_FUNCTION_INFO_V1(fs_sacct_efficiency_line);

/*
 * _sacct_efficiency_line(line text, header text, time_zone text)
 *   -> _sacct_efficiency_line: kind 'job', 'step', 'header', 'blank' or
 *   'reject' (with sqlstate and reason).  The lines must come in file
 *   order: a later header changes how the lines after it read.
 */
Datum
fs_sacct_efficiency_line(PG_FUNCTION_ARGS)
{
	EffState   *st = (EffState *) fcinfo->flinfo->fn_extra;
	Span		first;
	char	   *tz_name;
	Row			r;

	sacct_null_args(fcinfo, 1, 2);
	if (st == NULL)
	{
		st = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(EffState));
		st->cxt = fcinfo->flinfo->fn_mcxt;
		st->desc = result_desc(fcinfo, EO_NATTS, EO_NATTS, "_sacct_efficiency_line");
		fcinfo->flinfo->fn_extra = st;
	}
	first = text_span(PG_GETARG_TEXT_PP(1));
	if (st->first == NULL || st->first_len != first.len || memcmp(st->first, first.p, first.len) != 0)
	{
		const char *why = eff_read_header(st, first);

		if (why != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("sacct header cannot be read for the efficiency columns: %s", why),
					 errdetail("Header: \"%s\"", span_show(first)),
					 errhint("Export with sacct -P (without -n) and at least -o JobID,Submit,TotalCPU,MaxRSS,ReqMem.")));
		st->first = MemoryContextAlloc(st->cxt, first.len + 1);
		memcpy(st->first, first.p, first.len);
		st->first_len = first.len;
		eff_set_header(st, first);
		st->refused_why = NULL;
	}
	tz_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (st->tz_name == NULL || strcmp(st->tz_name, tz_name) != 0)
	{
		st->tz = lookup_time_zone(tz_name);
		st->tz_name = MemoryContextStrdup(st->cxt, tz_name);
	}
	row_init(&r, EO_NATTS, EO_KIND, EO_SQLSTATE, EO_REASON);
	eff_line(st, &r, PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(st->desc, r.values, r.nulls)));
}

/* ===========================================================================
 * sacctmgr -P exports: events and reservations (import_events,
 * import_reservations; docs/reports.md#events-and-reservations).  The
 * lines are read as the efficiency parser reads sacct's: through the
 * export's own header (any order, names in any case), a later header
 * switching the columns, an invalid byte rejecting its line alone.  A bad
 * line comes back as kind 'reject' with the SQLSTATE and the message the
 * PostgreSQL cast or the import's check gives for it, so that the rejects
 * read the same whichever value is bad (docs/bad-input.md).
 * ===========================================================================
 */

typedef enum PsvCol
{
	PC_CLUSTER,
	PC_NODENAME,
	PC_NODENAMES,
	PC_ID,
	PC_NAME,
	PC_TIMESTART,
	PC_TIMEEND,
	PC_STATE,
	PC_STATERAW,
	PC_TRES,
	PC_REASON,
	PC_USER,
	PC_FLAGS,
	PC_ASSOCS,
	PC_ASSOCIATIONS,
	PC_NCOLS
} PsvCol;

static const char *const psv_col_names[PC_NCOLS] = {
	"Cluster", "NodeName", "NodeNames", "ID", "Name", "TimeStart", "TimeEnd", "State", "StateRaw",
	"TRES", "Reason", "User", "Flags", "Assocs", "Associations"
};

/* The columns each export must have (sacctmgr's format= names). */
static const PsvCol psv_event_required[] = {PC_NODENAME, PC_TIMESTART, PC_TIMEEND, PC_TRES};
static const PsvCol psv_resv_required[] = {PC_ID, PC_NAME, PC_TIMESTART, PC_TIMEEND, PC_TRES};

/* Result columns: the type @extschema@._sacctmgr_event_line. */
enum
{
	VO_KIND,
	VO_NODE_NAME,
	VO_TIME_START,
	VO_TIME_END,
	VO_STATE,
	VO_STATE_RAW,
	VO_TRES,
	VO_EVENT_REASON,
	VO_USER_REF,
	VO_SQLSTATE,
	VO_REASON,
	VO_NATTS
};

/* Result columns: the type @extschema@._sacctmgr_reservation_line. */
enum
{
	RO_KIND,
	RO_ID,
	RO_RESV_ID,
	RO_NAME,
	RO_TIME_START,
	RO_TIME_END,
	RO_FLAGS,
	RO_TRES,
	RO_NODES,
	RO_ASSOCS,
	RO_SQLSTATE,
	RO_REASON,
	RO_NATTS
};

typedef struct PsvState
{
	MemoryContext cxt;
	bool		resv;			/* reservations, else events */
	const char *what;			/* the import, for the header's ERROR */
	char	   *first;			/* the header argument, as last passed */
	int			first_len;
	char	   *header;			/* the header in force */
	int			header_len;
	int			header_cap;
	int			nfields;
	int			col[PC_NCOLS];	/* field index, or -1 */
	char	   *refused_why;	/* as in SacctState */
	char	   *tz_name;
	pg_tz	   *tz;
	TupleDesc	desc;
} PsvState;

/*
 * The columns of header h, or why they cannot be read (NULL: read); when
 * columns the export needs are missing, *missing lists them.
 */
static const char *
psv_read_header(PsvState *st, Span h, char **missing)
{
	Span		fields[SACCT_MAX_FIELDS];
	int			cols[PC_NCOLS];
	const PsvCol *req = st->resv ? psv_resv_required : psv_event_required;
	int			nreq = st->resv ? lengthof(psv_resv_required) : lengthof(psv_event_required);
	StringInfoData miss;
	int			n;
	int			i;
	int			c;

	*missing = NULL;
	if (span_invalid_at(h) >= 0)
		return psprintf("it holds a byte sequence that is not valid %s", GetDatabaseEncodingName());
	n = split(h, '|', fields, SACCT_MAX_FIELDS);
	if (n > SACCT_MAX_FIELDS)
		return psprintf("it has more than %d columns", SACCT_MAX_FIELDS);
	for (c = 0; c < PC_NCOLS; c++)
		cols[c] = -1;
	for (i = 0; i < n; i++)
		for (c = 0; c < PC_NCOLS; c++)
			if (span_eq_ci(fields[i], psv_col_names[c]))
			{
				if (cols[c] >= 0)
					return psprintf("it names column %s twice", psv_col_names[c]);
				cols[c] = i;
			}
	initStringInfo(&miss);
	for (i = 0; i < nreq; i++)
		if (cols[req[i]] < 0)
			appendStringInfo(&miss, "%s%s", miss.len > 0 ? ", " : "", psv_col_names[req[i]]);
	if (miss.len > 0)
	{
		*missing = miss.data;
		return psprintf("it has no column %s", miss.data);
	}
	memcpy(st->col, cols, sizeof(cols));
	st->nfields = n;
	return NULL;
}

/* h becomes the header in force (its copy in st->cxt, the buffer reused). */
static void
psv_set_header(PsvState *st, Span h)
{
	if (st->header == NULL || h.len + 1 > st->header_cap)
	{
		st->header_cap = Max(h.len + 1, 256);
		st->header = st->header
			? repalloc(st->header, st->header_cap)
			: MemoryContextAlloc(st->cxt, st->header_cap);
	}
	memcpy(st->header, h.p, h.len);
	st->header_len = h.len;
}

/* The field of column c; empty when the header has none (sacctmgr's empty
 * field and a missing column read the same: NULL). */
static Span
psv_field(const PsvState *st, const Span *f, PsvCol c)
{
	return st->col[c] >= 0 ? f[st->col[c]] : span_make("", 0);
}

static void
psv_set_text(Row *r, int att, Span s)
{
	if (s.len > 0)
		row_set(r, att, span_text(s));
}

/* An instant as the messages show it: timestamptz's own output, in the
 * session's DateStyle and TimeZone, as the import's SQL printed it. */
static char *
psv_show_time(TimestampTz t)
{
	return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum(t)));
}

/*
 * A value PostgreSQL's `v::timestamp` reads but sacctmgr does not print
 * (no T, fractions, a date alone, epoch, infinity): read by PostgreSQL's
 * own date/time parser, with the cast's SQLSTATE and message when it
 * refuses it (those of DateTimeParseError), then placed in zone tz as
 * `timezone(tz, timestamp)` does.
 */
static bool
psv_pg_time(Span s, pg_tz *tz, TimestampTz *out, Row *r)
{
	char	   *str = pnstrdup(s.p, s.len);
	char		workbuf[MAXDATELEN + MAXDATEFIELDS];
	char	   *field[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	int			nf;
	int			dtype;
	int			dterr;
	int			tzoff;
	struct pg_tm tm;
	fsec_t		fsec;
	Timestamp	ts;

	dterr = ParseDateTime(str, workbuf, sizeof(workbuf), field, ftype, MAXDATEFIELDS, &nf);
	if (dterr == 0)
	{
#if PG_VERSION_NUM >= 160000
		/* PostgreSQL 16 passes back what a time zone error names */
		DateTimeErrorExtra extra;

		dterr = DecodeDateTime(field, ftype, nf, &dtype, &tm, &fsec, &tzoff, &extra);
#else
		dterr = DecodeDateTime(field, ftype, nf, &dtype, &tm, &fsec, &tzoff);
#endif
	}
	switch (dterr)
	{
		case 0:
			break;
		case DTERR_FIELD_OVERFLOW:
		case DTERR_MD_FIELD_OVERFLOW:
			return reject(r, "22008", psprintf("date/time field value out of range: \"%s\"", str));
		case DTERR_INTERVAL_OVERFLOW:
			return reject(r, "22015", psprintf("interval field value out of range: \"%s\"", str));
		case DTERR_TZDISP_OVERFLOW:
			return reject(r, "22009", psprintf("time zone displacement out of range: \"%s\"", str));
		default:
			return reject(r, "22007", psprintf("invalid input syntax for type timestamp: \"%s\"", str));
	}
	switch (dtype)
	{
		case DTK_DATE:
			if (tm2timestamp(&tm, fsec, NULL, &ts) != 0)
				return reject(r, "22008", psprintf("timestamp out of range: \"%s\"", str));
			break;
		case DTK_EPOCH:
			ts = SetEpochTimestamp();
			break;
		case DTK_LATE:
			*out = DT_NOEND;
			return true;
		case DTK_EARLY:
			*out = DT_NOBEGIN;
			return true;
		default:
			return reject(r, "22007", psprintf("invalid input syntax for type timestamp: \"%s\"", str));
	}
	/* timezone(tz, ts): the wall-clock time read in tz */
	if (timestamp2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
		return reject(r, "22008", "timestamp out of range");
	tzoff = DetermineTimeZoneOffset(&tm, tz);
	if (tm2timestamp(&tm, fsec, &tzoff, out) != 0)
		return reject(r, "22008", "timestamp out of range");
	return true;
}

/*
 * A sacctmgr instant (local time of the export's zone): "Unknown", "None"
 * and "" are NULL (*set false).  sacctmgr's own form is read by
 * slurm_time; anything else as the cast reads it.  False: r rejected.
 */
static bool
psv_time(PsvState *st, Row *r, Span s, int att, TimestampTz *out, bool *set)
{
	*set = false;
	if (s.len == 0 || (s.len == 7 && memcmp(s.p, "Unknown", 7) == 0)
		|| (s.len == 4 && memcmp(s.p, "None", 4) == 0))
		return true;
	if (slurm_time(s, st->tz, out) != VAL_OK && !psv_pg_time(s, st->tz, out, r))
		return false;
	*set = true;
	row_set(r, att, TimestampTzGetDatum(*out));
	return true;
}

/*
 * A bigint as `v::bigint` reads it (PostgreSQL's pg_strtoint64: blanks
 * around, a sign, decimal digits), with the cast's SQLSTATE and message.
 * "" is NULL (*set false).  False: r rejected.
 */
static bool
psv_bigint(Row *r, Span s, int64 *out, bool *set)
{
	int			i = 0;
	bool		neg = false;
	uint64		v = 0;
	int			digits = 0;

	*set = false;
	if (s.len == 0)
		return true;
	while (i < s.len && isspace((unsigned char) s.p[i]))
		i++;
	if (i < s.len && (s.p[i] == '-' || s.p[i] == '+'))
		neg = s.p[i++] == '-';
	for (; i < s.len && isdigit((unsigned char) s.p[i]); i++, digits++)
	{
		uint64		limit = (uint64) PG_INT64_MAX + (neg ? 1 : 0);
		int			d = s.p[i] - '0';

		if (v > (limit - d) / 10)
			return reject(r, "22003", psprintf("value \"%s\" is out of range for type bigint", pnstrdup(s.p, s.len)));
		v = v * 10 + d;
	}
	while (i < s.len && isspace((unsigned char) s.p[i]))
		i++;
	if (digits == 0 || i < s.len)
		return reject(r, "22P02", psprintf("invalid input syntax for type bigint: \"%s\"", pnstrdup(s.p, s.len)));
	*out = neg ? (int64) (0 - v) : (int64) v;
	*set = true;
	return true;
}

/* The first n characters of s (SQL's left(s, n)), in the database
 * encoding. */
static Span
psv_left(Span s, int n)
{
	int			len = 0;
	int			k;

	for (k = 0; k < n && len < s.len; k++)
		len += pg_encoding_mblen(GetDatabaseEncoding(), s.p + len);
	return span_make(s.p, Min(len, s.len));
}

/*
 * The checks an event and a reservation share: within the cluster's
 * accounting (clusters.accounting_start up to a year ahead), the end
 * after the start, a TRES string the rollups can read
 * (docs/bad-input.md).
 */
static bool
psv_check(Row *r, TimestampTz ts, TimestampTz te, bool has_te, Span tres,
		  TimestampTz floor_at, TimestampTz horizon, Span cluster)
{
	TresCounts	c;
	const char *why;

	if (ts < floor_at || (has_te && te < floor_at))
		return reject(r, "22008", psprintf("%s %s is before %s, the accounting start of cluster \"%s\" (clusters.accounting_start)",
										   ts < floor_at ? "TimeStart" : "TimeEnd",
										   psv_show_time(has_te ? Min(ts, te) : ts), psv_show_time(floor_at),
										   pnstrdup(cluster.p, cluster.len)));
	if (ts > horizon || (has_te && te > horizon))
		return reject(r, "22008", psprintf("%s %s is more than a year ahead of the database's clock",
										   ts > horizon ? "TimeStart" : "TimeEnd",
										   psv_show_time(has_te ? Max(ts, te) : ts)));
	if (has_te && te < ts)
		return reject(r, "23514", psprintf("TimeEnd %s is before TimeStart %s", psv_show_time(te), psv_show_time(ts)));
	if (tres.len == 0)
		return true;
	why = scan_tres(tres, &c);
	if (why == NULL && c.max > 1e12)
		why = psprintf("a count of %g is more than any cluster has (at most 10^12)", c.max);
	if (why != NULL)
	{
		Span		shown = psv_left(tres, 200);

		return reject(r, "22P02", psprintf("TRES \"%s\" cannot be read: %s", pnstrdup(shown.p, shown.len), why));
	}
	return true;
}

/* The arguments every line shares. */
typedef struct PsvArgs
{
	Span		cluster;
	TimestampTz floor_at;
	TimestampTz horizon;
} PsvArgs;

/* An event line into r (its fields f, as many as the header's). */
static bool
psv_event_fill(PsvState *st, Row *r, const Span *f, const PsvArgs *a)
{
	TimestampTz ts = 0,
				te = 0;
	bool		has_ts,
				has_te,
				has_sr;
	int64		sr;

	/* in the order the values were cast: TimeStart, TimeEnd, StateRaw */
	if (!psv_time(st, r, psv_field(st, f, PC_TIMESTART), VO_TIME_START, &ts, &has_ts)
		|| !psv_time(st, r, psv_field(st, f, PC_TIMEEND), VO_TIME_END, &te, &has_te)
		|| !psv_bigint(r, psv_field(st, f, PC_STATERAW), &sr, &has_sr))
		return false;
	if (has_sr)
		row_set(r, VO_STATE_RAW, Int64GetDatum(sr));
	if (!has_ts)
		return reject(r, "22004", "the event has no TimeStart");
	if (!psv_check(r, ts, te, has_te, psv_field(st, f, PC_TRES), a->floor_at, a->horizon, a->cluster))
		return false;
	/* node_name '' is the cluster's own event (docs/reports.md) */
	row_set(r, VO_NODE_NAME, span_text(psv_field(st, f, PC_NODENAME)));
	row_set(r, VO_TRES, span_text(psv_field(st, f, PC_TRES)));
	psv_set_text(r, VO_STATE, psv_field(st, f, PC_STATE));
	psv_set_text(r, VO_EVENT_REASON, psv_field(st, f, PC_REASON));
	psv_set_text(r, VO_USER_REF, psv_field(st, f, PC_USER));
	row_text(r, VO_KIND, "event");
	return true;
}

/* A reservation line into r; its Assocs ids are checked against the
 * association export by the import (a set, read once). */
static bool
psv_resv_fill(PsvState *st, Row *r, const Span *f, const PsvArgs *a)
{
	TimestampTz ts = 0,
				te = 0;
	bool		has_id,
				has_ts,
				has_te;
	int64		id = 0;
	Span		nodes;

	psv_set_text(r, RO_ID, psv_field(st, f, PC_ID));
	if (!psv_bigint(r, psv_field(st, f, PC_ID), &id, &has_id)
		|| !psv_time(st, r, psv_field(st, f, PC_TIMESTART), RO_TIME_START, &ts, &has_ts)
		|| !psv_time(st, r, psv_field(st, f, PC_TIMEEND), RO_TIME_END, &te, &has_te))
		return false;
	if (!has_id || !has_ts || !has_te)
	{
		StringInfoData m;

		initStringInfo(&m);
		if (!has_id)
			appendStringInfoString(&m, "ID");
		if (!has_ts)
			appendStringInfo(&m, "%sTimeStart", m.len > 0 ? ", " : "");
		if (!has_te)
			appendStringInfo(&m, "%sTimeEnd", m.len > 0 ? ", " : "");
		return reject(r, "22004", psprintf("the reservation has no %s", m.data));
	}
	if (!psv_check(r, ts, te, true, psv_field(st, f, PC_TRES), a->floor_at, a->horizon, a->cluster))
		return false;
	row_set(r, RO_RESV_ID, Int64GetDatum(id));
	psv_set_text(r, RO_NAME, psv_field(st, f, PC_NAME));
	row_set(r, RO_FLAGS, span_text(psv_field(st, f, PC_FLAGS)));
	row_set(r, RO_TRES, span_text(psv_field(st, f, PC_TRES)));
	nodes = psv_field(st, f, PC_NODENAMES);
	psv_set_text(r, RO_NODES, nodes.len > 0 ? nodes : psv_field(st, f, PC_NODENAME));
	nodes = psv_field(st, f, PC_ASSOCS);
	psv_set_text(r, RO_ASSOCS, nodes.len > 0 ? nodes : psv_field(st, f, PC_ASSOCIATIONS));
	row_text(r, RO_KIND, "reservation");
	return true;
}

/*
 * A data line: another cluster's (kind 'other': a multi-cluster export,
 * not this import's to read), one whose fields do not match the header,
 * or an event / a reservation.
 */
static bool
psv_fill(PsvState *st, Row *r, Span line, const PsvArgs *a)
{
	Span		f[SACCT_MAX_FIELDS];
	int			n = split(line, '|', f, st->nfields);
	int			c = st->col[PC_CLUSTER];
	int			nf = 1;
	int			i;

	if (c >= 0 && c < Min(n, st->nfields) && f[c].len > 0
		&& !(f[c].len == a->cluster.len && memcmp(f[c].p, a->cluster.p, f[c].len) == 0))
	{
		row_text(r, r->kind_att, "other");
		return true;
	}
	if (n != st->nfields)
	{
		for (i = 0; i < line.len; i++)
			nf += line.p[i] == '|';
		return reject(r, "22P02", psprintf("the line has %d fields, the header %d", nf, st->nfields));
	}
	return st->resv ? psv_resv_fill(st, r, f, a) : psv_event_fill(st, r, f, a);
}

/* One line of the export: blank, a header (the one in force, or another
 * that the lines after it are read through), data, or a reject. */
static void
psv_line(PsvState *st, Row *r, text *line_t, const PsvArgs *a)
{
	Span		line;
	int			bad;

	if (line_t == NULL || (line = text_span(line_t)).len == 0)
		row_text(r, r->kind_att, "blank");
	else if (line.len == st->header_len && memcmp(line.p, st->header, line.len) == 0)
	{
		row_text(r, r->kind_att, "header");
		st->refused_why = NULL;
	}
	else if ((bad = span_invalid_at(line)) >= 0)
	{
		Span		hf[SACCT_MAX_FIELDS];
		int			field = 0;
		int			i;

		for (i = 0; i < bad; i++)
			if (line.p[i] == '|')
				field++;
		(void) split(span_make(st->header, st->header_len), '|', hf, SACCT_MAX_FIELDS);
		(void) reject(r, "22021", psprintf("field %d%s holds an invalid byte sequence for encoding \"%s\": %s",
										   field + 1,
										   field < st->nfields ? psprintf(" (%s)", span_show(hf[field])) : "",
										   GetDatabaseEncodingName(), span_bad_bytes(line, bad)));
	}
	else if (header_like(line, "TimeStart"))
	{
		char	   *missing;
		const char *why = psv_read_header(st, line, &missing);

		if (why == NULL)
		{
			psv_set_header(st, line);
			st->refused_why = NULL;
			row_text(r, r->kind_att, "header");
		}
		else
		{
			st->refused_why = MemoryContextStrdup(st->cxt, why);
			(void) reject(r, "22P02", psprintf("a header that cannot be read: %s; the lines up to the next header are rejected",
											   why));
		}
	}
	else if (st->refused_why != NULL)
		(void) reject(r, "22P02", psprintf("not read: the last header could not be read (%s)", st->refused_why));
	else
		(void) psv_fill(st, r, line, a);
}

/*
 * The shared entry of both line functions: (line, header, time_zone,
 * cluster, accounting_start, horizon).
 */
static Datum
psv_entry(FunctionCallInfo fcinfo, bool resv)
{
	PsvState   *st = (PsvState *) fcinfo->flinfo->fn_extra;
	const char *what = resv ? "import_reservations" : "import_events";
	Span		first;
	char	   *tz_name;
	PsvArgs		a;
	Row			r;
	int			i;

	for (i = 1; i <= 5; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: argument %d of the line parser must not be NULL", what, i + 1),
					 errhint("Pass the header line, the time zone, the cluster, its accounting_start and the horizon.")));
	if (st == NULL)
	{
		st = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PsvState));
		st->cxt = fcinfo->flinfo->fn_mcxt;
		st->resv = resv;
		st->what = what;
		st->desc = resv ? result_desc(fcinfo, RO_NATTS, RO_NATTS, "_sacctmgr_reservation_line")
			: result_desc(fcinfo, VO_NATTS, VO_NATTS, "_sacctmgr_event_line");
		fcinfo->flinfo->fn_extra = st;
	}
	first = text_span(PG_GETARG_TEXT_PP(1));
	if (st->first == NULL || st->first_len != first.len || memcmp(st->first, first.p, first.len) != 0)
	{
		char	   *missing;
		const char *why = psv_read_header(st, first, &missing);

		if (why != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 missing != NULL
					 ? errmsg("%s: the header \"%s\" has no column %s", what, pnstrdup(first.p, first.len), missing)
					 : errmsg("%s: the header \"%s\" cannot be read: %s", what, span_show(first), why),
					 errhint("Export with sacctmgr -P and a format= that names them (docs/reports.md).")));
		st->first = MemoryContextAlloc(st->cxt, first.len + 1);
		memcpy(st->first, first.p, first.len);
		st->first_len = first.len;
		psv_set_header(st, first);
		st->refused_why = NULL;
	}
	tz_name = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (st->tz_name == NULL || strcmp(st->tz_name, tz_name) != 0)
	{
		st->tz = lookup_time_zone(tz_name);
		st->tz_name = MemoryContextStrdup(st->cxt, tz_name);
	}
	a.cluster = text_span(PG_GETARG_TEXT_PP(3));
	a.floor_at = PG_GETARG_TIMESTAMPTZ(4);
	a.horizon = PG_GETARG_TIMESTAMPTZ(5);
	if (resv)
		row_init(&r, RO_NATTS, RO_KIND, RO_SQLSTATE, RO_REASON);
	else
		row_init(&r, VO_NATTS, VO_KIND, VO_SQLSTATE, VO_REASON);
	psv_line(st, &r, PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0), &a);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(st->desc, r.values, r.nulls)));
}

PG_FUNCTION_INFO_V1(fs_sacctmgr_event_line);

/*
 * _sacctmgr_event_line(line, header, time_zone, cluster, accounting_start,
 * horizon) -> _sacctmgr_event_line: kind 'event', 'other' (another
 * cluster's), 'header', 'blank' or 'reject' (with sqlstate and reason).
 * The lines must come in file order: a later header changes how the
 * lines after it read.
 */
Datum
fs_sacctmgr_event_line(PG_FUNCTION_ARGS)
{
	return psv_entry(fcinfo, false);
}

PG_FUNCTION_INFO_V1(fs_sacctmgr_reservation_line);

/* _sacctmgr_reservation_line(...): as _sacctmgr_event_line, kind
 * 'reservation' for a line read. */
Datum
fs_sacctmgr_reservation_line(PG_FUNCTION_ARGS)
{
	return psv_entry(fcinfo, true);
}

/* ===========================================================================
 * squeue -h -o '%i|%y': a pending job's id and nice (import_nice,
 * docs/priority.md#nice).  No header: squeue -h prints none, and a line
 * that is not "JOBID|NICE" is rejected with its reason.
 * ===========================================================================
 */

/* Result columns: the type @extschema@._squeue_nice_line. */
enum
{
	NO_KIND,
	NO_JOB_ID,
	NO_NICE,
	NO_SQLSTATE,
	NO_REASON,
	NO_NATTS
};

/* Slurm keeps nice within ±(NICE_OFFSET − 3) (slurm.h: NICE_OFFSET 2^31) */
#define SLURM_NICE_MAX INT64CONST(2147483645)

/* the blanks of squeue's fields: the ASCII white space */
static int
skip_space(Span s, int i)
{
	while (i < s.len && isspace((unsigned char) s.p[i]))
		i++;
	return i;
}

/*
 * "JOBID|NICE": a job id as squeue prints it (123, 123_4, 123_[5-9%2],
 * 123+1: a digit, then digits and _+[],%-), a signed integer of at most 12
 * digits, blanks around each.
 */
static bool
nice_fill(Row *r, Span line)
{
	static const char job_chars[] = "0123456789_+[],%-";
	int			i = skip_space(line, 0);
	int			job_start = i;
	int			job_end;
	int			digits = 0;
	bool		neg = false;
	int64		v = 0;
	Span		job;

	if (i < line.len && isdigit((unsigned char) line.p[i]))
		for (i++; i < line.len && line.p[i] != '\0' && strchr(job_chars, line.p[i]) != NULL; i++)
			;
	job_end = i;
	i = skip_space(line, i);
	if (job_end > job_start && i < line.len && line.p[i] == '|')
	{
		i = skip_space(line, i + 1);
		if (i < line.len && (line.p[i] == '-' || line.p[i] == '+'))
			neg = line.p[i++] == '-';
		for (; i < line.len && isdigit((unsigned char) line.p[i]) && digits < 13; i++, digits++)
			v = v * 10 + (line.p[i] - '0');
		i = skip_space(line, i);
	}
	if (job_end == job_start || digits == 0 || digits > 12 || i < line.len)
		return reject(r, "22P02", "not \"JOBID|NICE\" (squeue -h -o '%i|%y')");
	/*
	 * the job id without the blanks around it, whichever they are: with a
	 * tab kept, "202\t|5" would name a job no run has, and its nice would
	 * be dropped without a word
	 */
	job = span_make(line.p + job_start, job_end - job_start);
	row_set(r, NO_JOB_ID, span_text(job));
	if (neg)
		v = -v;
	if (v < -SLURM_NICE_MAX || v > SLURM_NICE_MAX)
		return reject(r, "22003", psprintf("nice " INT64_FORMAT " is out of range: Slurm's nice lies between -2147483645 and 2147483645", v));
	row_set(r, NO_NICE, Int32GetDatum((int32) v));
	row_text(r, NO_KIND, "nice");
	return true;
}

PG_FUNCTION_INFO_V1(fs_squeue_nice_line);

/*
 * _squeue_nice_line(line text) -> _squeue_nice_line: kind 'nice' (job_id,
 * nice), 'blank' (empty or spaces only) or 'reject' (with sqlstate and
 * reason; job_id when the line's form was read).
 */
Datum
fs_squeue_nice_line(PG_FUNCTION_ARGS)
{
	TupleDesc	desc = (TupleDesc) fcinfo->flinfo->fn_extra;
	Row			r;
	text	   *t;
	Span		line;
	int			i;
	int			bad;

	if (desc == NULL)
	{
		desc = result_desc(fcinfo, NO_NATTS, NO_NATTS, "_squeue_nice_line");
		fcinfo->flinfo->fn_extra = desc;
	}
	row_init(&r, NO_NATTS, NO_KIND, NO_SQLSTATE, NO_REASON);
	if (PG_ARGISNULL(0))
	{
		row_text(&r, NO_KIND, "blank");
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, r.values, r.nulls)));
	}
	t = PG_GETARG_TEXT_PP(0);
	line = span_make(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	for (i = 0; i < line.len && line.p[i] == ' '; i++)
		;
	if (i == line.len)
		row_text(&r, NO_KIND, "blank");
	else if ((bad = span_invalid_at(line)) >= 0)
		(void) reject(&r, "22021", psprintf("the line holds an invalid byte sequence for encoding \"%s\": %s",
											GetDatabaseEncodingName(), span_bad_bytes(line, bad)));
	else
		(void) nice_fill(&r, line);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, r.values, r.nulls)));
}

PG_FUNCTION_INFO_V1(fs_sacct_duration);

/* _sacct_duration(v text) -> float8 seconds; NULL when empty; 22007 naming
 * any other form. */
Datum
fs_sacct_duration(PG_FUNCTION_ARGS)
{
	text	   *t;
	Span		s;
	double		v = 0;
	ValResult	res;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	t = PG_GETARG_TEXT_PP(0);
	s = span_make(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	res = sacct_seconds(s, &v);
	if (res == VAL_BAD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_DATETIME_FORMAT),
				 errmsg("sacct duration \"%s\" is not [DD-][HH:]MM:SS[.fff]", span_show(s)),
				 errhint("TotalCPU as sacct -P prints it, e.g. 1-02:03:04 or 05:06.789.")));
	if (res == VAL_NULL)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(v);
}

PG_FUNCTION_INFO_V1(fs_sacct_size_mb);

/* _sacct_size_mb(v text) -> float8 MiB (a trailing n or c ignored); NULL
 * when empty; 22023 naming any other form. */
Datum
fs_sacct_size_mb(PG_FUNCTION_ARGS)
{
	text	   *t;
	Span		s;
	double		v = 0;
	char		per;
	ValResult	res;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	t = PG_GETARG_TEXT_PP(0);
	s = span_make(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	res = sacct_size_mb(s, &v, &per);
	if (res == VAL_BAD)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sacct size \"%s\" is not a number with an optional K, M, G, T or P", span_show(s)),
				 errhint("MaxRSS or ReqMem as sacct -P prints them, e.g. 2572K or 16G.")));
	if (res == VAL_NULL)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(v);
}

PG_FUNCTION_INFO_V1(fs_tres_problem);

/*
 * _tres_problem(tres text) -> text: NULL when tres is a TRES string the
 * rollups can read ('' is none) whose every count is at most 10^12, else
 * why not.  The event and reservation imports reject such a line with it
 * (docs/bad-input.md): stored, one "cpu=abc" would make refresh_rollups
 * fail for every cluster, and a count past 10^12 (more of any TRES than a cluster
 * has; a month of it in seconds still fits a bigint) would overflow the
 * rollups' sums.
 */
Datum
fs_tres_problem(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	Span		s = span_make(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	TresCounts	c;
	const char *why;

	if (s.len == 0)
		PG_RETURN_NULL();
	if (span_invalid_at(s) >= 0)
		PG_RETURN_TEXT_P(cstring_to_text("it is not valid text"));
	why = scan_tres(s, &c);
	if (why == NULL && c.max > 1e12)
		why = psprintf("a count of %g is more than any cluster has (at most 10^12)", c.max);
	if (why == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(why));
}

/* ===========================================================================
 * PBS accounting log records
 * ===========================================================================
 */

/* Result columns: the type @extschema@._pbs_record. */
enum
{
	PO_KIND,
	PO_REC_TIME,
	PO_REC_TYPE,
	PO_JOB_ID,
	PO_USER,
	PO_GROUP,
	PO_ACCOUNT,
	PO_PROJECT,
	PO_QUEUE,
	PO_SUBMIT,
	PO_ELIGIBLE,
	PO_START,
	PO_END,
	PO_EXIT_STATUS,
	PO_TIME_LIMIT,
	PO_WALLTIME_USED,
	PO_CPU_TIME_USED,
	PO_TRES,
	PO_CPUS,
	PO_MEM,
	PO_GPUS,
	PO_NODES,
	PO_EXCLUSIVE,
	PO_SQLSTATE,
	PO_REASON,
	PO_NATTS
};

typedef struct PbsState
{
	char	   *tz_name;
	pg_tz	   *tz;
	TupleDesc	desc;
} PbsState;

/*
 * Record types (OpenPBS src/include/acct.h).  Job records change a job's
 * state; the others carry nothing the jobs table holds.
 */
static const char *
pbs_record_kind(char t, const char **why)
{
	switch (t)
	{
		case 'Q':				/* queued */
		case 'S':				/* started */
		case 's':				/* started, reliable startup pruned the resources */
		case 'T':				/* restarted from a checkpoint */
		case 'r':				/* resumed */
		case 'z':				/* suspended */
		case 'C':				/* checkpointed and held */
		case 'R':				/* rerun: the run so far, then back to the queue */
		case 'E':				/* ended, with the usage */
		case 'D':				/* deleted by request */
		case 'A':				/* aborted by the server */
			return "job";
		case 'L':
			*why = "license record";
			return "skip";
		case 'M':
			*why = "job moved to another server, whose log accounts for it";
			return "skip";
		case 'a':
			*why = "attribute alteration; the job's next Q, S or E record carries the values";
			return "skip";
		case 'u':
		case 'c':
		case 'e':
			*why = "phased-job usage record; the job's E record carries the total";
			return "skip";
		case 'P':
		case 'p':
			*why = "provisioning record";
			return "skip";
		case 'B':
		case 'F':
		case 'K':
		case 'k':
		case 'U':
		case 'Y':
			*why = "reservation record";
			return "skip";
	}
	return NULL;
}

/*
 * PBS size: an integer with an optional unit b, kb, mb, gb, tb, pb (bytes
 * times 1024^k) or w, kw, ... (8-byte words); no unit is bytes.  MiB,
 * rounded up.
 */
static bool
pbs_size_mb(Span s, int64 *out)
{
	int			i = 0;
	int64		v = 0;
	int			pw = 0;
	double		bytes;

	while (i < s.len && isdigit((unsigned char) s.p[i]))
	{
		/* checked before the step: v * 10 + 9 must not pass int64 */
		if (v > (PG_INT64_MAX - (s.p[i] - '0')) / 10)
			return false;
		v = v * 10 + (s.p[i] - '0');
		i++;
	}
	if (i == 0)
		return false;
	if (i < s.len)
	{
		Span		u = span_make(s.p + i, s.len - i);
		bool		words = false;

		if (u.len == 2 || u.len == 1)
		{
			char		last = tolower((unsigned char) u.p[u.len - 1]);

			if (last == 'w')
				words = true;
			else if (last != 'b')
				return false;
			if (u.len == 2)
			{
				switch (tolower((unsigned char) u.p[0]))
				{
					case 'k':
						pw = 1;
						break;
					case 'm':
						pw = 2;
						break;
					case 'g':
						pw = 3;
						break;
					case 't':
						pw = 4;
						break;
					case 'p':
						pw = 5;
						break;
					default:
						return false;
				}
			}
			bytes = (double) v * ldexp(1.0, 10 * pw) * (words ? 8 : 1);
		}
		else
			return false;
	}
	else
		bytes = (double) v;
	bytes = ceil(bytes / 1048576.0);
	if (bytes > (double) PG_INT64_MAX / 2)
		return false;
	*out = (int64) bytes;
	return true;
}

static int
span_cmp(const void *a, const void *b)
{
	const Span *x = a;
	const Span *y = b;
	int			c = memcmp(x->p, y->p, Min(x->len, y->len));

	return c != 0 ? c : x->len - y->len;
}

/* exec_host "n1/0*4+n2/0*4" (or the older "n1/0+n1/1"): distinct hosts and
 * CPUs. */
static bool
pbs_exec_host(Span s, int64 *hosts, int64 *cpus)
{
	int			max = 1;
	int			n;
	int			i;
	Span	   *chunks;

	for (i = 0; i < s.len; i++)
		if (s.p[i] == '+')
			max++;
	chunks = palloc(sizeof(Span) * max);
	n = split(s, '+', chunks, max);
	*cpus = 0;
	for (i = 0; i < n; i++)
	{
		Span		c = chunks[i];
		int			slash = 0;
		int			star;
		int64		k = 1;

		while (slash < c.len && c.p[slash] != '/')
			slash++;
		if (slash == 0 || slash == c.len)
			return false;
		for (star = slash; star < c.len && c.p[star] != '*'; star++)
			;
		if (star < c.len && !span_uint(span_make(c.p + star + 1, c.len - star - 1), PG_INT32_MAX, &k))
			return false;
		*cpus += k;
		chunks[i] = span_make(c.p, slash);
	}
	qsort(chunks, n, sizeof(Span), span_cmp);
	*hosts = 0;
	for (i = 0; i < n; i++)
		if (i == 0 || span_cmp(&chunks[i - 1], &chunks[i]) != 0)
			(*hosts)++;
	return true;
}

/* The values of a record that the import reads (the rest are ignored). */
typedef enum PbsKey
{
	PK_CTIME,
	PK_QTIME,
	PK_ETIME,
	PK_START,
	PK_END,
	PK_EXIT_STATUS,
	PK_EXEC_HOST,
	PK_NCPUS,
	PK_MEM,
	PK_NGPUS,
	PK_NODECT,
	PK_WALLTIME,
	PK_PLACE,
	PK_USED_WALLTIME,
	PK_USED_CPUT,
	PK_USED_NCPUS,
	PK_USED_MEM,
	PK_NKEYS
} PbsKey;

static const char *const pbs_key_names[PK_NKEYS] = {
	"ctime", "qtime", "etime", "start", "end", "Exit_status", "exec_host",
	"Resource_List.ncpus", "Resource_List.mem", "Resource_List.ngpus",
	"Resource_List.nodect", "Resource_List.walltime", "Resource_List.place",
	"resources_used.walltime", "resources_used.cput", "resources_used.ncpus",
	"resources_used.mem"
};

typedef struct PbsFields
{
	Span		val[PK_NKEYS];
	bool		has[PK_NKEYS];
} PbsFields;

/* Split the message into key=value pairs; false (after reject) when a token
 * is malformed.  Names go straight into the row, the rest into pf. */
static bool
pbs_message(Row *r, Span msg, PbsFields *pf)
{
	static const struct
	{
		const char *key;
		int			att;
	}			names[] = {
		{"user", PO_USER}, {"group", PO_GROUP}, {"account", PO_ACCOUNT},
		{"project", PO_PROJECT}, {"queue", PO_QUEUE}
	};
	int			i = 0;
	bool		named[lengthof(names)] = {false};

	memset(pf, 0, sizeof(*pf));
	while (i < msg.len)
	{
		Span		key,
					val;
		int			k;

		while (i < msg.len && msg.p[i] == ' ')
			i++;
		if (i == msg.len)
			break;
		k = i;
		while (i < msg.len && msg.p[i] != '=' && msg.p[i] != ' ')
			i++;
		if (i == msg.len || msg.p[i] != '=' || i == k)
		{
			int			e = i;

			while (e < msg.len && msg.p[e] != ' ')
				e++;
			return reject(r, "22P02", psprintf("\"%s\" is not key=value",
											   span_show(span_make(msg.p + k, e - k))));
		}
		key = span_make(msg.p + k, i - k);
		i++;
		/* a value holding blanks is quoted with " (or ' when it holds a ") */
		if (i < msg.len && (msg.p[i] == '"' || msg.p[i] == '\''))
		{
			char		q = msg.p[i];
			int			v = ++i;

			while (i < msg.len && msg.p[i] != q)
				i++;
			if (i == msg.len)
				return reject(r, "22P02", psprintf("value of %s has no closing quote", span_show(key)));
			val = span_make(msg.p + v, i - v);
			i++;
			if (i < msg.len && msg.p[i] != ' ')
				return reject(r, "22P02", psprintf("value of %s continues after its closing quote", span_show(key)));
		}
		else
		{
			int			v = i;

			while (i < msg.len && msg.p[i] != ' ')
				i++;
			val = span_make(msg.p + v, i - v);
		}

		/*
		 * A key the import reads given twice: PBS writes each once, so the
		 * record is malformed or forged (a second user= would have decided
		 * whose job it is: the last one won).  Keys the import
		 * does not read may repeat.
		 */
		for (k = 0; k < (int) lengthof(names); k++)
			if (span_eq_ci(key, names[k].key))
			{
				if (named[k])
					return reject(r, "22P02", psprintf("key %s is given twice", span_show(key)));
				named[k] = true;
				row_set(r, names[k].att, span_text(val));
			}
		for (k = 0; k < PK_NKEYS; k++)
			if (span_eq_ci(key, pbs_key_names[k]))
			{
				if (pf->has[k])
					return reject(r, "22P02", psprintf("key %s is given twice", span_show(key)));
				pf->val[k] = val;
				pf->has[k] = true;
			}
	}
	return true;
}

/* An epoch field into the row. */
static bool
pbs_epoch(Row *r, const PbsFields *pf, PbsKey k, int att)
{
	TimestampTz t;
	ValResult	res;

	if (!pf->has[k])
		return true;
	res = epoch_time(pf->val[k], &t);
	if (res == VAL_BAD)
		return reject(r, "22008", psprintf("%s \"%s\" is not a time in seconds since 1970",
										   pbs_key_names[k], span_show(pf->val[k])));
	if (res == VAL_OK && att >= 0)
		row_set(r, att, TimestampTzGetDatum(t));
	return true;
}

static bool
pbs_duration(Row *r, const PbsFields *pf, PbsKey k, int att)
{
	Interval   *iv;

	if (!pf->has[k])
		return true;
	iv = palloc(sizeof(Interval));
	if (duration(pf->val[k], false, iv) != VAL_OK)
		return reject(r, "22P02", psprintf("%s \"%s\" is not a duration ([[HH:]MM:]SS)",
										   pbs_key_names[k], span_show(pf->val[k])));
	row_set(r, att, IntervalPGetDatum(iv));
	return true;
}

static bool
pbs_count(Row *r, const PbsFields *pf, PbsKey k, int64 *out)
{
	if (pf->has[k] && !span_uint(pf->val[k], PG_INT32_MAX, out))
		return reject(r, "22P02", psprintf("%s \"%s\" is not a count",
										   pbs_key_names[k], span_show(pf->val[k])));
	return true;
}

/* Fill r from one record; false when it is rejected. */
static bool
pbs_fill(PbsState *st, Row *r, Span line)
{
	Span		part[4];
	int			semis = 0;
	int			i;
	TimestampTz t;
	const char *kind;
	const char *why = NULL;
	PbsFields	pf;
	int64		cpus = -1,
				used_cpus = -1,
				nodes = -1,
				gpus = 0,
				mem = 0,
				v;

	/* date;type;id;message — the message may itself hold ';' */
	part[0].p = line.p;
	for (i = 0; i < line.len && semis < 3; i++)
		if (line.p[i] == ';')
		{
			part[semis].len = (int) (line.p + i - part[semis].p);
			part[++semis].p = line.p + i + 1;
		}
	if (semis < 3)
		return reject(r, "22P02", "not a PBS accounting record (date;type;id;message)");
	part[3].len = (int) (line.p + line.len - part[3].p);

	if (pbs_time(part[0], st->tz, &t) != VAL_OK)
		return reject(r, "22008", psprintf("record time \"%s\" is not MM/DD/YYYY HH:MM:SS", span_show(part[0])));
	row_set(r, PO_REC_TIME, TimestampTzGetDatum(t));
	if (part[1].len != 1 || (kind = pbs_record_kind(part[1].p[0], &why)) == NULL)
		return reject(r, "22P02", psprintf("\"%s\" is not a PBS record type", span_show(part[1])));
	row_set(r, PO_REC_TYPE, span_text(part[1]));
	if (part[2].len == 0)
		return reject(r, "22004", "record has no id");
	row_set(r, PO_JOB_ID, span_text(part[2]));
	if (strcmp(kind, "skip") == 0)
	{
		row_text(r, PO_KIND, "skip");
		row_text(r, PO_REASON, why);
		return true;
	}
	/* an array job's parent "123[]": its subjobs "123[4]" carry the usage */
	for (i = 0; i + 1 < part[2].len; i++)
		if (part[2].p[i] == '[' && part[2].p[i + 1] == ']')
		{
			row_text(r, PO_KIND, "skip");
			row_text(r, PO_REASON, "array job parent; its subjobs carry the usage");
			return true;
		}

	if (!pbs_message(r, part[3], &pf))
		return false;
	if (!pbs_epoch(r, &pf, PK_CTIME, PO_SUBMIT)
		|| !pbs_epoch(r, &pf, PK_QTIME, -1)
		|| !pbs_epoch(r, &pf, PK_ETIME, PO_ELIGIBLE)
		|| !pbs_epoch(r, &pf, PK_START, PO_START)
		|| !pbs_epoch(r, &pf, PK_END, PO_END))
		return false;
	if (pf.has[PK_EXIT_STATUS])
	{
		int32		x;

		if (!span_int(pf.val[PK_EXIT_STATUS], &x))
			return reject(r, "22P02", psprintf("Exit_status \"%s\" is not an integer",
											   span_show(pf.val[PK_EXIT_STATUS])));
		row_set(r, PO_EXIT_STATUS, Int32GetDatum(x));
	}
	if (!pbs_duration(r, &pf, PK_WALLTIME, PO_TIME_LIMIT)
		|| !pbs_duration(r, &pf, PK_USED_WALLTIME, PO_WALLTIME_USED)
		|| !pbs_duration(r, &pf, PK_USED_CPUT, PO_CPU_TIME_USED))
		return false;
	if (!r->nulls[PO_TIME_LIMIT] && DatumGetIntervalP(r->values[PO_TIME_LIMIT])->time == 0)
		return reject(r, "23514", "Resource_List.walltime is zero");

	/* size: what was allocated (Resource_List), else what exec_host shows */
	if (!pbs_count(r, &pf, PK_NCPUS, &cpus)
		|| !pbs_count(r, &pf, PK_NGPUS, &gpus)
		|| !pbs_count(r, &pf, PK_NODECT, &nodes)
		|| !pbs_count(r, &pf, PK_USED_NCPUS, &used_cpus))
		return false;
	if (cpus < 0)
		cpus = used_cpus;
	if (pf.has[PK_MEM] && !pbs_size_mb(pf.val[PK_MEM], &mem))
		return reject(r, "22P02", psprintf("Resource_List.mem \"%s\" is not a size (e.g. 4gb, 512mb)",
										   span_show(pf.val[PK_MEM])));
	if (pf.has[PK_USED_MEM] && !pbs_size_mb(pf.val[PK_USED_MEM], &v))
		return reject(r, "22P02", psprintf("resources_used.mem \"%s\" is not a size (e.g. 4gb, 512mb)",
										   span_show(pf.val[PK_USED_MEM])));
	if (pf.has[PK_EXEC_HOST])
	{
		int64		hosts,
					hcpus;

		if (!pbs_exec_host(pf.val[PK_EXEC_HOST], &hosts, &hcpus))
			return reject(r, "22P02", psprintf("exec_host \"%s\" is not host/index[*ncpus]+...",
											   span_show(pf.val[PK_EXEC_HOST])));
		if (nodes < 0)
			nodes = hosts;
		if (cpus < 0)
			cpus = Min(hcpus, (int64) PG_INT32_MAX);
	}
	if (cpus >= 0 || pf.has[PK_MEM] || pf.has[PK_NODECT] || pf.has[PK_EXEC_HOST])
	{
		if (cpus < 0)
			cpus = 0;
		if (nodes < 0)
			nodes = 1;
		/* as for sacct: a job that started ran on at least one node */
		if (nodes == 0 && !r->nulls[PO_START])
			return reject(r, "23514", "Resource_List.nodect=0 for a job that started: it ran on at least one node");
		row_set(r, PO_CPUS, Int32GetDatum((int32) cpus));
		row_set(r, PO_MEM, Int64GetDatum(mem));
		row_set(r, PO_GPUS, Int32GetDatum((int32) gpus));
		row_set(r, PO_NODES, Int32GetDatum((int32) nodes));
		/* the same size as a Slurm TRES string, so partitions' billing
		 * weights apply to PBS jobs too */
		row_text(r, PO_TRES, gpus > 0
				 ? psprintf("cpu=" INT64_FORMAT ",mem=" INT64_FORMAT "M,node=" INT64_FORMAT ",gres/gpu=" INT64_FORMAT,
							cpus, mem, nodes, gpus)
				 : psprintf("cpu=" INT64_FORMAT ",mem=" INT64_FORMAT "M,node=" INT64_FORMAT,
							cpus, mem, nodes));
		/* place=excl or exclhost: the job had its nodes to itself */
		row_set(r, PO_EXCLUSIVE,
				BoolGetDatum(pf.has[PK_PLACE]
							 && strstr(pnstrdup(pf.val[PK_PLACE].p, pf.val[PK_PLACE].len), "excl") != NULL));
	}
	row_text(r, PO_KIND, "job");
	return true;
}

PG_FUNCTION_INFO_V1(fs_pbs_record);

/*
 * _pbs_record(line text, time_zone text) -> _pbs_record: kind 'job',
 * 'skip' (a record that carries no job usage, with why), 'blank' or
 * 'reject' (with sqlstate and reason).
 */
Datum
fs_pbs_record(PG_FUNCTION_ARGS)
{
	PbsState   *st = (PbsState *) fcinfo->flinfo->fn_extra;
	char	   *tz_name;
	Row			r;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("time_zone must not be NULL"),
				 errhint("PBS writes each record's time in the server's local time: state that zone.")));
	tz_name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	if (st == NULL)
	{
		st = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PbsState));
		st->desc = result_desc(fcinfo, PO_NATTS, PO_NATTS, "_pbs_record");
		fcinfo->flinfo->fn_extra = st;
	}
	if (st->tz_name == NULL || strcmp(st->tz_name, tz_name) != 0)
	{
		st->tz = lookup_time_zone(tz_name);
		st->tz_name = MemoryContextStrdup(fcinfo->flinfo->fn_mcxt, tz_name);
	}

	row_init(&r, PO_NATTS, PO_KIND, PO_SQLSTATE, PO_REASON);
	if (PG_ARGISNULL(0) || text_span(PG_GETARG_TEXT_PP(0)).len == 0)
		row_text(&r, PO_KIND, "blank");
	else
	{
		Span		line = text_span(PG_GETARG_TEXT_PP(0));
		int			bad = span_invalid_at(line);

		/*
		 * As for sacct (span_invalid_at): only this record is lost.  The
		 * reject names the job and the key whose value holds the bad byte
		 * when the bytes before it say so (they are valid).
		 */
		if (bad >= 0)
		{
			int			semi[3];
			int			nsemi = 0;
			int			i,
						k;

			for (i = 0; i < bad && nsemi < 3; i++)
				if (line.p[i] == ';')
					semi[nsemi++] = i;
			if (nsemi == 3 && semi[2] > semi[1] + 1)
				row_set(&r, PO_JOB_ID, span_text(span_make(line.p + semi[1] + 1, semi[2] - semi[1] - 1)));
			for (k = bad; k > 0 && line.p[k - 1] != ' ' && line.p[k - 1] != ';'; k--)
				;
			for (i = k; i < bad && line.p[i] != '='; i++)
				;
			(void) reject(&r, "22021",
						  psprintf("%s holds an invalid byte sequence for encoding \"%s\": %s",
								   nsemi == 3 && i < bad && i > k
								   ? psprintf("the value of %s", span_show(span_make(line.p + k, i - k)))
								   : psprintf("byte %d", bad + 1),
								   GetDatabaseEncodingName(), span_bad_bytes(line, bad)));
		}
		else
			(void) pbs_fill(st, &r, line);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(st->desc, r.values, r.nulls)));
}

PG_FUNCTION_INFO_V1(fs_import_line_text);

/*
 * _import_line_text(line text) -> text: a staged line as import_rejects
 * keeps it.  A line that is not valid in the database encoding (staged
 * with ENCODING 'SQL_ASCII', see span_invalid_at) must not be stored as it
 * is: it would be text no client could read and pg_dump could not restore.
 * Each invalid byte is written \xNN; a valid line comes back unchanged.
 */
Datum
fs_import_line_text(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	const char *p = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);
	int			enc = GetDatabaseEncoding();
	int			bad = 0;
	int			i;
	bool		escape;
	char	   *out;
	char	   *o;

	/* how many invalid bytes: each becomes 4 characters */
	for (i = 0; i < len;)
	{
		i += pg_encoding_verifymbstr(enc, p + i, len - i);
		if (i < len)
		{
			bad++;
			i++;
		}
	}
	if (bad == 0)
		PG_RETURN_TEXT_P(t);
	/*
	 * A staged line can be up to 1 GB: escaped, it could pass what a text
	 * value holds.  Then each invalid byte becomes '?' (the line keeps its
	 * length), so that keeping a reject never fails the import.
	 */
	escape = (Size) len + 3 * (Size) bad <= MaxAllocSize - VARHDRSZ - 1;
	out = o = palloc(escape ? (Size) len + 3 * (Size) bad + 1 : (Size) len + 1);
	for (i = 0; i < len;)
	{
		int			valid = pg_encoding_verifymbstr(enc, p + i, len - i);

		memcpy(o, p + i, valid);
		o += valid;
		i += valid;
		if (i < len)
		{
			if (escape)
				o += snprintf(o, 5, "\\x%02X", (unsigned char) p[i]);
			else
				*o++ = '?';
			i++;
		}
	}
	PG_RETURN_TEXT_P(cstring_to_text_with_len(out, o - out));
}

PG_FUNCTION_INFO_V1(fs_import_time_zone);

/* _import_time_zone(name text) -> text: name, or 22023 when PostgreSQL's tz
 * database does not know it (checked before any line is read). */
Datum
fs_import_time_zone(PG_FUNCTION_ARGS)
{
	text	   *name = PG_GETARG_TEXT_PP(0);

	(void) lookup_time_zone(text_to_cstring(name));
	PG_RETURN_TEXT_P(name);
}
