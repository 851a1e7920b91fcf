/*
 * priority.c — Slurm's multifactor job priority (PROTEUS, CALI:
 * docs/policies.md#job-priority; Slurm's arithmetic:
 * docs/slurm.md#multifactor-job-priority).
 *
 * These are the pure functions: the weighted sum and the factors that feed
 * it.  They reproduce the arithmetic of Slurm's priority/multifactor plugin
 * (set_priority_factors and _get_priority_internal) operation by operation,
 * in IEEE double, because users compare our numbers with sprio's:
 *
 *   priority = age×Wage + fs×Wfs + js×Wjs + part×Wpart + qos×Wqos − nice
 *
 * added left to right in exactly that order (Slurm's site and association
 * terms are 0 here, and adding 0 first changes nothing).  A sum below 1
 * becomes 1 (0 is reserved for held jobs); otherwise it is truncated, not
 * rounded, and capped at 4294967295.  The order matters: 0.7 × 90000 is
 * 62999.99999999999 in double, so a lone fair-share factor of 0.7 under
 * PROTEUS's weight gives 62999, as Slurm prints.
 *
 * Every factor is a number in [0, 1]; anything else is an error, never a
 * silent clamp (the clamps below are the ones Slurm itself applies).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "common/int.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "regex/regex.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"

#include "fairshare.h"

/* Slurm stores priorities as uint32; 0 means held. */
#define PRIORITY_MAX	4294967295.0

/* Raise 22023 unless x is a factor in [0, 1]. */
static void
check_factor(double x, const char *what)
{
	if (isnan(x) || x < 0.0 || x > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s factor must be in [0, 1], not %s", what, fs_float_text(x)),
				 errhint("Priority factors are normalised: pass the %s factor, not the weighted value.",
						 what)));
}

/* Raise 22023 unless w is a finite weight >= 0. */
static void
check_weight(double w, const char *what)
{
	if (isnan(w) || isinf(w) || w < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a finite number >= 0, not %s", what, fs_float_text(w)),
				 errhint("Slurm's PriorityWeight* parameters are unsigned integers.")));
}

/*
 * factor × weight, rounded once to double.  The volatile store keeps a
 * compiler from fusing the product into the following addition (an FMA would
 * round once where Slurm, which stores each weighted factor, rounds twice).
 */
static double
weighted(double factor, double weight)
{
	volatile double w = factor * weight;

	return w;
}

/*
 * job_priority(fairshare, age, job_size, partition, qos,
 *              weight_fairshare, weight_age, weight_job_size,
 *              weight_partition, weight_qos, nice) → bigint
 *
 * STRICT: a NULL anywhere gives NULL.
 */
PG_FUNCTION_INFO_V1(fs_job_priority);

Datum
fs_job_priority(PG_FUNCTION_ARGS)
{
	double		fs = PG_GETARG_FLOAT8(0);
	double		age = PG_GETARG_FLOAT8(1);
	double		js = PG_GETARG_FLOAT8(2);
	double		part = PG_GETARG_FLOAT8(3);
	double		qos = PG_GETARG_FLOAT8(4);
	double		w_fs = PG_GETARG_FLOAT8(5);
	double		w_age = PG_GETARG_FLOAT8(6);
	double		w_js = PG_GETARG_FLOAT8(7);
	double		w_part = PG_GETARG_FLOAT8(8);
	double		w_qos = PG_GETARG_FLOAT8(9);
	int64		nice = PG_GETARG_INT64(10);
	double		priority;

	check_factor(fs, "fairshare");
	check_factor(age, "age");
	check_factor(js, "job_size");
	check_factor(part, "partition");
	check_factor(qos, "qos");
	check_weight(w_fs, "weight_fairshare");
	check_weight(w_age, "weight_age");
	check_weight(w_js, "weight_job_size");
	check_weight(w_part, "weight_partition");
	check_weight(w_qos, "weight_qos");

	/* _get_priority_internal's order: age, fs, js, part, qos, then − nice */
	priority = weighted(age, w_age);
	priority += weighted(fs, w_fs);
	priority += weighted(js, w_js);
	priority += weighted(part, w_part);
	priority += weighted(qos, w_qos);
	priority -= (double) nice;

	/* Priority 0 is reserved for held jobs */
	if (!(priority >= 1.0))
		PG_RETURN_INT64(1);
	/* (uint64) truncation, then the uint32 cap; also catches +Infinity */
	if (priority >= PRIORITY_MAX + 1.0)
		PG_RETURN_INT64((int64) PRIORITY_MAX);
	PG_RETURN_INT64((int64) priority);
}

/*
 * age_factor(eligible, as_of, max_age) → float8
 *
 * Slurm: diff = as_of − accrue_time in whole seconds (0 if negative);
 * diff < max_age ? diff / max_age : 1.0.  Instants are read to the whole
 * second, as Slurm's time_t.  A job not yet eligible at as_of (eligible NULL
 * or later than as_of) gets 0; with max_age 0 every eligible job gets 1.
 * NULL as_of or max_age gives NULL.
 */
PG_FUNCTION_INFO_V1(fs_age_factor);

Datum
fs_age_factor(PG_FUNCTION_ARGS)
{
	TimestampTz eligible,
				as_of;
	Interval   *max_age_iv;
	double		max_age;
	int64		diff;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	as_of = PG_GETARG_TIMESTAMPTZ(1);
	max_age_iv = PG_GETARG_INTERVAL_P(2);
	fs_check_timestamp(as_of, "as_of");
	max_age = fs_interval_seconds(max_age_iv);
	if (max_age < 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_age must not be negative, not %s",
						DatumGetCString(DirectFunctionCall1(interval_out,
															IntervalPGetDatum(max_age_iv)))),
				 errhint("PriorityMaxAge is a duration >= 0; 0 gives every eligible job the full age factor.")));

	if (PG_ARGISNULL(0))
		PG_RETURN_FLOAT8(0.0);
	eligible = PG_GETARG_TIMESTAMPTZ(0);
	fs_check_timestamp(eligible, "eligible");
	if (eligible > as_of)
		PG_RETURN_FLOAT8(0.0);

	/* whole seconds of each instant (floor), then their difference */
	diff = (as_of / USECS_PER_SEC - (as_of % USECS_PER_SEC < 0 ? 1 : 0))
		- (eligible / USECS_PER_SEC - (eligible % USECS_PER_SEC < 0 ? 1 : 0));

	if ((double) diff < max_age)
		PG_RETURN_FLOAT8((double) diff / max_age);
	PG_RETURN_FLOAT8(1.0);
}

/* Raise 22023 unless a count is >= 0. */
static void
check_count(int64 n, const char *what)
{
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative, not " INT64_FORMAT, what, n),
				 errhint("Counts of nodes, CPUs and priorities are >= 0.")));
}

/* Raise 22023 unless a cluster total is > 0. */
static void
check_total(int64 n, const char *what)
{
	if (n <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be > 0, not " INT64_FORMAT, what, n),
				 errhint("The job-size factor divides by the cluster's node and CPU counts.")));
}

/*
 * job_size_factor(nodes, cpus, total_nodes, total_cpus, favor_small) → float8
 *
 * Slurm's default (favour large): (nodes/N + cpus/C) / 2; with
 * PriorityFavorSmall: ((N − nodes)/N + (C − cpus)/C) / 2.  With cpus = 0 the
 * node term stands alone, not halved.  The result is clamped to [0, 1] as
 * Slurm clamps it.  A job asking for more than the cluster has makes a
 * favour-small term negative: we count it as 0 (max(N − nodes, 0)), where
 * Slurm's unsigned subtraction would wrap round and clamp to 1; such a job
 * can never start anyway.
 */
PG_FUNCTION_INFO_V1(fs_job_size_factor);

Datum
fs_job_size_factor(PG_FUNCTION_ARGS)
{
	int64		nodes = PG_GETARG_INT64(0);
	int64		cpus = PG_GETARG_INT64(1);
	int64		total_nodes = PG_GETARG_INT64(2);
	int64		total_cpus = PG_GETARG_INT64(3);
	bool		favor_small = PG_GETARG_BOOL(4);
	double		js;

	check_count(nodes, "nodes");
	check_count(cpus, "cpus");
	check_total(total_nodes, "total_nodes");
	check_total(total_cpus, "total_cpus");

	if (favor_small)
	{
		js = (double) Max(total_nodes - nodes, 0) / (double) total_nodes;
		if (cpus)
		{
			js += (double) Max(total_cpus - cpus, 0) / (double) total_cpus;
			js /= 2;
		}
	}
	else
	{
		js = (double) nodes / (double) total_nodes;
		if (cpus)
		{
			js += (double) cpus / (double) total_cpus;
			js /= 2;
		}
	}
	if (js < 0.0)
		js = 0.0;
	else if (js > 1.0)
		js = 1.0;
	PG_RETURN_FLOAT8(js);
}

/*
 * value / max(largest, 1), for the partition factor (PriorityJobFactor over
 * the largest of the cluster's partitions) and the QOS factor (QOS priority
 * over the largest QOS priority).  0 stays 0.  A value above the largest is
 * an error: the largest is a maximum over a set that contains the value.
 */
static double
normalised(int64 value, int64 largest, const char *what, const char *largest_what,
		   const char *over)
{
	check_count(value, what);
	check_count(largest, largest_what);
	if (value > Max(largest, 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s " INT64_FORMAT " exceeds %s " INT64_FORMAT,
						what, value, largest_what, largest),
				 errhint("Pass the largest value over all of the cluster's %s.", over)));
	if (value == 0)
		return 0.0;
	return (double) value / (double) Max(largest, 1);
}

PG_FUNCTION_INFO_V1(fs_partition_factor);

Datum
fs_partition_factor(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(normalised(PG_GETARG_INT64(0), PG_GETARG_INT64(1),
								"priority_job_factor", "max_priority_job_factor",
								"partitions"));
}

PG_FUNCTION_INFO_V1(fs_qos_factor);

Datum
fs_qos_factor(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(normalised(PG_GETARG_INT64(0), PG_GETARG_INT64(1),
								"qos_priority", "max_qos_priority", "QOS"));
}

/*
 * slurm_cluster_size(nodes text) → (total_nodes integer, total_cpus integer)
 *
 * The rule is docs/priority.md's (and the comment on the function in
 * priority.sql); this is the PL/pgSQL it replaces, step for step, so that
 * each text gives the same answer or the same error.  Every test that
 * depends on the database's character classes (\s, \S, \w, \d) is made by
 * PostgreSQL's own regular expression engine, with the patterns the
 * PL/pgSQL used, under the call's collation; upper() and lower() are
 * PostgreSQL's; numbers are read by int8in and numeric_in (their messages);
 * sums and products overflow as bigint does ("bigint out of range"), the
 * totals as integer does.  The parsing that only looks at ASCII characters
 * (lines, '#', brackets, commas) is done here.  A cluster is read once per
 * row of a clusters table (docs/performance.md#the-per-row-functions).
 */

enum
{
	RE_REC,						/* ^\s*NodeName= : a node record starts */
	RE_SPACE,					/* ^\s : a continuation line */
	RE_BLANK,					/* ^\s*$ */
	RE_KV,						/* (\w+)=(\S*) : Key=Value */
	RE_NAME,					/* NodeName=(\S+) */
	RE_RANGE,					/* ^\d+-\d+$ */
	RE_NUM,						/* ^\d+$ */
	RE_COUNT
};

static const char *const size_patterns[RE_COUNT] = {
	"^\\s*NodeName=", "^\\s", "^\\s*$", "(\\w+)=(\\S*)", "NodeName=(\\S+)", "^\\d+-\\d+$", "^\\d+$"
};

/* the patterns compiled for one collation, kept for the backend's life */
typedef struct SizeRegexps
{
	Oid			collation;
	regex_t		re[RE_COUNT];
	struct SizeRegexps *next;
} SizeRegexps;

static SizeRegexps *size_regexps = NULL;

static SizeRegexps *
size_regexps_for(Oid collation)
{
	SizeRegexps *s;
	MemoryContext old;
	int			i;

	for (s = size_regexps; s != NULL; s = s->next)
		if (s->collation == collation)
			return s;
	old = MemoryContextSwitchTo(TopMemoryContext);
	s = palloc0(sizeof(SizeRegexps));
	for (i = 0; i < RE_COUNT; i++)
	{
		int			len = strlen(size_patterns[i]);
		pg_wchar   *w = palloc((len + 1) * sizeof(pg_wchar));
		int			wlen = pg_mb2wchar_with_len(size_patterns[i], w, len);
		int			rc = pg_regcomp(&s->re[i], w, wlen, REG_ADVANCED, collation);

		if (rc != REG_OKAY)
		{
			char		msg[100];

			pg_regerror(rc, &s->re[i], msg, sizeof(msg));
			MemoryContextSwitchTo(old);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
					 errmsg("invalid regular expression: %s", msg)));
		}
	}
	s->collation = collation;
	s->next = size_regexps;
	size_regexps = s;
	MemoryContextSwitchTo(old);
	return s;
}

/* A string of pg_wchar (the regular expression engine's characters). */
typedef struct WStr
{
	pg_wchar   *c;
	int			len;
} WStr;

static bool
size_match(regex_t *re, WStr s, int start, int nmatch, regmatch_t *pmatch)
{
	int			rc;

	CHECK_FOR_INTERRUPTS();
	rc = pg_regexec(re, s.c, s.len, start, NULL, nmatch, pmatch, 0);
	if (rc == REG_NOMATCH)
		return false;
	if (rc != REG_OKAY)
	{
		char		msg[100];

		pg_regerror(rc, re, msg, sizeof(msg));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_REGULAR_EXPRESSION),
				 errmsg("regular expression failed: %s", msg)));
	}
	return true;
}

/* the buffer of an empty text: never NULL, so that no library call gets one */
static pg_wchar wempty[1];

static WStr
wsub(WStr s, int from, int to)
{
	WStr		r = {s.c + from, to - from};

	return r;
}

static WStr
wcat(WStr a, WStr b)
{
	WStr		r;

	r.c = palloc((a.len + b.len + 1) * sizeof(pg_wchar));
	/* (an empty text may have no buffer: memcpy's pointers must not be NULL) */
	if (a.len > 0)
		memcpy(r.c, a.c, a.len * sizeof(pg_wchar));
	if (b.len > 0)
		memcpy(r.c + a.len, b.c, b.len * sizeof(pg_wchar));
	r.len = a.len + b.len;
	return r;
}

static char *
wstr_cstring(WStr s)
{
	char	   *r = palloc(s.len * pg_database_encoding_max_length() + 1);

	pg_wchar2mb_with_len(s.c, r, s.len);
	return r;
}

/* the bigint a Key=Value's value reads as (int8in: its errors) */
static int64
size_bigint(WStr v)
{
	return DatumGetInt64(DirectFunctionCall1(int8in, CStringGetDatum(wstr_cstring(v))));
}

/* (pg_noreturn: fairshare.h, for PostgreSQL 18 and before) */
pg_noreturn static void bigint_out_of_range(void);

static void
bigint_out_of_range(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("bigint out of range")));
}

/* the keys the CPU count reads, lower case */
enum
{
	K_CPUEFCTV,
	K_CPUTOT,
	K_CPUS,
	K_BOARDS,
	K_SOCKETSPERBOARD,
	K_SOCKETS,
	K_CORESPERSOCKET,
	K_THREADSPERCORE,
	K_COUNT
};

static const char *const size_keys[K_COUNT] = {
	"cpuefctv", "cputot", "cpus", "boards", "socketsperboard", "sockets", "corespersocket", "threadspercore"
};

/*
 * The hosts one item of a host list names (n[01-16,20] is 17): the product,
 * over its bracket groups, of the sizes of their ranges; *isnull for an
 * empty group (the PL/pgSQL's sum over no element: NULL).
 */
static int64
size_item(SizeRegexps *rx, WStr item, const char *names, bool *isnull)
{
	int64		count = 1;
	int			pos = 0;

	*isnull = false;
	for (;;)
	{
		int			open = -1,
					close = -1,
					i;
		__int128	sum = 0;
		bool		any = false;
		int			from;

		/* the next [ ... ] group: a [ with a ] after it, to that ] */
		for (i = pos; i < item.len && open < 0; i++)
			if (item.c[i] == '[')
				open = i;
		if (open < 0)
			break;
		for (i = open + 1; i < item.len; i++)
			if (item.c[i] == ']')
			{
				close = i;
				break;
			}
		if (close < 0)
			break;
		pos = close + 1;
		/* its elements, split at every comma (none when it is empty) */
		from = open + 1;
		for (i = open + 1; close > open + 1 && i <= close; i++)
		{
			WStr		x;
			char	   *xs;
			regmatch_t m[1];

			if (i < close && item.c[i] != ',')
				continue;
			x = wsub(item, from, i);
			from = i + 1;
			any = true;
			if (size_match(&rx->re[RE_RANGE], x, 0, 1, m))
			{
				int			dash = 0;
				char	   *lo,
						   *hi;
				int64		l,
							h,
							d;
				Datum		nh,
							nl;

				while (x.c[dash] != '-')
					dash++;
				lo = wstr_cstring(wsub(x, 0, dash));
				hi = wstr_cstring(wsub(x, dash + 1, x.len));
				/* hi::numeric < lo::numeric, hi read first */
				nh = DirectFunctionCall3(numeric_in, CStringGetDatum(hi), ObjectIdGetDatum(InvalidOid),
										 Int32GetDatum(-1));
				nl = DirectFunctionCall3(numeric_in, CStringGetDatum(lo), ObjectIdGetDatum(InvalidOid),
										 Int32GetDatum(-1));
				if (DatumGetBool(DirectFunctionCall2(numeric_lt, nh, nl)))
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("slurm_cluster_size: the host range \"%s\" in \"%s\" runs backwards (%s is below %s)",
									wstr_cstring(x), names, hi, lo),
							 errhint("A range is low-high, e.g. n[01-16]: write n[1-10], not n[10-1].")));
				h = DatumGetInt64(DirectFunctionCall1(int8in, CStringGetDatum(hi)));
				l = DatumGetInt64(DirectFunctionCall1(int8in, CStringGetDatum(lo)));
				if (pg_sub_s64_overflow(h, l, &d) || pg_add_s64_overflow(d, 1, &d))
					bigint_out_of_range();
				sum += d;
			}
			else if (size_match(&rx->re[RE_NUM], x, 0, 1, m))
				sum += 1;
			else
			{
				xs = wstr_cstring(x);
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("slurm_cluster_size: cannot read the host range \"%s\" in \"%s\"", xs, names),
						 errhint("Host lists look like n[01-16,20].")));
			}
		}
		if (!any || *isnull)
		{
			*isnull = true;
			continue;
		}
		/* count × sum in numeric, then back into a bigint */
		if (sum > PG_INT64_MAX || (__int128) count * sum > PG_INT64_MAX)
			bigint_out_of_range();
		count = (int64) ((__int128) count * sum);
	}
	return count;
}

PG_FUNCTION_INFO_V1(fs_slurm_cluster_size);
Datum
fs_slurm_cluster_size(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);
	Oid			collation = OidIsValid(PG_GET_COLLATION()) ? PG_GET_COLLATION() : DEFAULT_COLLATION_OID;
	SizeRegexps *rx = size_regexps_for(collation);
	const char *bytes = VARDATA_ANY(t);
	int			nbytes = VARSIZE_ANY_EXHDR(t);
	WStr		all;
	bool		is_conf;
	WStr	   *recs;
	int			nrecs = 0;
	WStr		rec = {wempty, 0};
	bool		in_rec = false;
	int			pos;
	WStr		defaults = {wempty, 0};
	WStr		space;
	pg_wchar	space_c = ' ';
	int64		nodes_total = 0,
				cpus_total = 0;
	bool		totals_null = false;
	int			r;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	space.c = &space_c;
	space.len = 1;
	all.c = palloc((nbytes + 1) * sizeof(pg_wchar));
	all.len = pg_mb2wchar_with_len(bytes, all.c, nbytes);
	/* scontrol prints "OS=Linux ... #1 SMP ...": a # there is no comment */
	is_conf = true;
	for (pos = 0; pos + 7 <= nbytes; pos++)
		if (memcmp(bytes + pos, "CPUTot=", 7) == 0)
		{
			is_conf = false;
			break;
		}

	/* records: a NodeName= line and the indented lines after it */
	/* at most one record a line, and a line a character (and one more) */
	recs = palloc(sizeof(WStr) * (all.len + 1));
	pos = 0;
	for (;;)
	{
		int			end = pos,
					next;
		WStr		line;
		int			i;
		regmatch_t	lm[1];

		while (end < all.len && all.c[end] != '\n')
			end++;
		next = end + 1;
		/* the line ends before "\r\n" or "\n" */
		if (end < all.len && end > pos && all.c[end - 1] == '\r')
			end--;
		line = wsub(all, pos, end);
		if (is_conf)
			for (i = 0; i < line.len; i++)
				if (line.c[i] == '#')
				{
					line.len = i;
					break;
				}
		if (size_match(&rx->re[RE_REC], line, 0, 1, lm))
		{
			if (in_rec)
				recs[nrecs++] = rec;
			rec = line;
			in_rec = true;
		}
		else if (in_rec && size_match(&rx->re[RE_SPACE], line, 0, 1, lm))
			rec = wcat(wcat(rec, space), line);
		else if (!size_match(&rx->re[RE_BLANK], line, 0, 1, lm))
		{
			if (in_rec)
				recs[nrecs++] = rec;
			in_rec = false;
		}
		if (next > all.len)
			break;
		pos = next;
	}
	if (in_rec)
		recs[nrecs++] = rec;

	for (r = 0; r < nrecs; r++)
	{
		WStr		kvs = wcat(wcat(defaults, space), recs[r]);
		WStr		val[K_COUNT];
		bool		has[K_COUNT] = {false};
		regmatch_t m[3];
		int			start = 0;
		char	   *names = NULL;
		WStr		names_w = {wempty, 0};
		int64		n = 0,
					cpus;
		bool		n_null = false;
		int			k;

		/* Key=Value tokens, keys in lower case; the last of a key counts */
		while (start <= kvs.len && size_match(&rx->re[RE_KV], kvs, start, 3, m))
		{
			text	   *key = DatumGetTextPP(DirectFunctionCall1Coll(lower, collation,
																	 PointerGetDatum(cstring_to_text(wstr_cstring(wsub(kvs, m[1].rm_so, m[1].rm_eo))))));
			char	   *ks = text_to_cstring(key);

			for (k = 0; k < K_COUNT; k++)
				if (strcmp(ks, size_keys[k]) == 0)
				{
					val[k] = wsub(kvs, m[2].rm_so, m[2].rm_eo);
					has[k] = true;
				}
			start = m[0].rm_eo;
			if (m[0].rm_so == m[0].rm_eo)
				start++;
		}
		if (size_match(&rx->re[RE_NAME], recs[r], 0, 2, m))
		{
			names_w = wsub(recs[r], m[1].rm_so, m[1].rm_eo);
			names = wstr_cstring(names_w);
			if (strcmp(text_to_cstring(DatumGetTextPP(DirectFunctionCall1Coll(upper, collation,
																			  PointerGetDatum(cstring_to_text(names))))),
					   "DEFAULT") == 0)
			{
				/* the record without its first NodeName=..., for the records after it */
				defaults = wcat(wcat(wcat(defaults, space), wsub(recs[r], 0, m[0].rm_so)),
								wsub(recs[r], m[0].rm_eo, recs[r].len));
				continue;
			}
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("FOREACH expression must not be null")));

		/*
		 * how many hosts the host list names: items split at commas outside
		 * brackets (a comma whose next bracket is a ]), each the product of
		 * its bracket ranges' sizes
		 */
		{
			int			from = 0,
						i;

			for (i = 0; i <= names_w.len; i++)
			{
				bool		split = i == names_w.len;
				bool		item_null;
				int64		c;

				if (!split && names_w.c[i] == ',')
				{
					int			j = i + 1;

					while (j < names_w.len && names_w.c[j] != '[' && names_w.c[j] != ']')
						j++;
					split = !(j < names_w.len && names_w.c[j] == ']');
				}
				if (!split)
					continue;
				c = size_item(rx, wsub(names_w, from, i), names, &item_null);
				from = i + 1;
				if (item_null || n_null)
					n_null = true;
				else if (pg_add_s64_overflow(n, c, &n))
					bigint_out_of_range();
			}
		}

		/* CPUEfctv, else CPUTot, else CPUs, else the product */
		if (has[K_CPUEFCTV])
			cpus = size_bigint(val[K_CPUEFCTV]);
		else if (has[K_CPUTOT])
			cpus = size_bigint(val[K_CPUTOT]);
		else if (has[K_CPUS])
			cpus = size_bigint(val[K_CPUS]);
		else
		{
			int64		f;

			cpus = has[K_BOARDS] ? size_bigint(val[K_BOARDS]) : 1;
			f = has[K_SOCKETSPERBOARD] ? size_bigint(val[K_SOCKETSPERBOARD])
				: has[K_SOCKETS] ? size_bigint(val[K_SOCKETS]) : 1;
			if (pg_mul_s64_overflow(cpus, f, &cpus))
				bigint_out_of_range();
			f = has[K_CORESPERSOCKET] ? size_bigint(val[K_CORESPERSOCKET]) : 1;
			if (pg_mul_s64_overflow(cpus, f, &cpus))
				bigint_out_of_range();
			f = has[K_THREADSPERCORE] ? size_bigint(val[K_THREADSPERCORE]) : 1;
			if (pg_mul_s64_overflow(cpus, f, &cpus))
				bigint_out_of_range();
		}
		/*
		 * nodes_total + n, then cpus_total + n × cpus: a NULL n makes both
		 * NULL for good, and n × cpus is computed (may overflow) whenever n
		 * is not NULL
		 */
		if (n_null)
			totals_null = true;
		else
		{
			int64		c;

			if (!totals_null && pg_add_s64_overflow(nodes_total, n, &nodes_total))
				bigint_out_of_range();
			if (pg_mul_s64_overflow(n, cpus, &c) || (!totals_null && pg_add_s64_overflow(cpus_total, c, &cpus_total)))
				bigint_out_of_range();
		}
	}
	if (!totals_null && nodes_total == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("slurm_cluster_size: no node found in the text given"),
				 errhint("Pass the output of \"scontrol show node\" (or -o), or slurm.conf's NodeName lines.")));

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "slurm_cluster_size: return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	if (totals_null)
		nulls[0] = nulls[1] = true;
	else
	{
		if (nodes_total < PG_INT32_MIN || nodes_total > PG_INT32_MAX ||
			cpus_total < PG_INT32_MIN || cpus_total > PG_INT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("integer out of range")));
		values[0] = Int32GetDatum((int32) nodes_total);
		values[1] = Int32GetDatum((int32) cpus_total);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
