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
