-- Reports from rollups (docs/performance.md#reports-from-rollups): a year of monthly usage per account read
-- from usage_monthly_by_account (account_usage_monthly), against the same
-- report computed from the jobs (each run's CPU-seconds cut at the month
-- bounds).  Target: under 100 ms at 10^7
-- jobs.  Also timed: the first refresh_rollups (every hour of the history),
-- and a refresh after a late import of 1000 jobs into past hours.  Starts
-- from no rollups and removes its own at the end (bench.clear_rollups), so
-- that the first refresh is the first in any order of the files.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT count(*) FILTER (WHERE state <> 'PENDING') AS n_jobs FROM fairshare.jobs \gset
SELECT date_trunc('month', bench.as_of() - interval '12 months', 'UTC') AS y0,
       date_trunc('month', bench.as_of(), 'UTC') AS y1 \gset
SELECT bench.clear_rollups() \g /dev/null
\o /dev/null
-- the first refresh builds every hour since the first job (once, kept:
-- it is the longest thing here, and the reports below read what it wrote).
-- Its baseline, timed just before it: one plain GROUP BY of the same runs
-- by association, partition, QOS and size (their CPU-seconds and count),
-- written to an unindexed temporary table: the least a rollup of the
-- history can cost (one pass over the jobs, one write).
SELECT pg_catalog.clock_timestamp() AS t0 \gset
CREATE TEMP TABLE bench_groupby AS
SELECT j.account, j.user_name, j.partition, COALESCE(j.qos, '') AS qos, j.cpus,
       sum(j.cpus * extract(epoch FROM LEAST(COALESCE(j.end_time, bench.as_of()), bench.as_of()) - j.start_time)) AS cpu_secs,
       count(*) AS runs
  FROM fairshare.jobs j
 WHERE j.start_time IS NOT NULL AND j.start_time < bench.as_of()
 GROUP BY 1, 2, 3, 4, 5;
SELECT extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000 AS base_ms \gset
DROP TABLE bench_groupby;
-- and the least an hourly rollup can cost: the same runs cut into their
-- hours and grouped by association and hour (CPU-seconds and count),
-- written to an unindexed temporary table
SELECT pg_catalog.clock_timestamp() AS t0 \gset
CREATE TEMP TABLE bench_groupby_hours AS
SELECT j.account, j.user_name, h.h,
       sum(j.cpus * extract(epoch FROM LEAST(j.e, h.h + interval '1 hour') - GREATEST(j.start_time, h.h))) AS cpu_secs,
       count(*) AS runs
  FROM (SELECT x.account, x.user_name, x.cpus, x.start_time,
               LEAST(COALESCE(x.end_time, bench.as_of()), bench.as_of()) AS e
          FROM fairshare.jobs x
         WHERE x.start_time IS NOT NULL AND x.start_time < bench.as_of()) j
 CROSS JOIN LATERAL generate_series(date_trunc('hour', j.start_time), j.e - interval '1 microsecond', interval '1 hour') AS h (h)
 GROUP BY 1, 2, 3;
SELECT extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000 AS hours_ms \gset
DROP TABLE bench_groupby_hours;
SELECT pg_catalog.clock_timestamp() AS t0 \gset
SELECT fairshare.refresh_rollups(up_to => bench.as_of());
SELECT extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000 AS refresh_ms \gset
SELECT bench.record(format('refresh_rollups, first call: every hour of the history (%s jobs)', :n_jobs),
                    :refresh_ms, 'one GROUP BY of the same runs by association, partition, QOS, size',
                    :base_ms, :refresh_ms / :base_ms, 1, NULL, NULL, NULL);
SELECT bench.record(format('refresh_rollups, first call, against the runs cut into hours (%s jobs)', :n_jobs),
                    :refresh_ms, 'one GROUP BY (association, hour) of the same runs cut into their hours',
                    :hours_ms, :refresh_ms / :hours_ms, 1, NULL, 1.5, '<= 1.5x');
ANALYZE fairshare.usage_monthly;
SELECT bench.compare(format('a year of monthly account usage from usage_monthly_by_account (%s jobs)', :n_jobs),
  format($q$SELECT * FROM fairshare.account_usage_monthly(%L, %L)$q$, :'y0', :'y1'),
  'the same from the jobs',
  format($q$SELECT j.cluster, m.m, j.account,
                   sum(j.cpus * extract(epoch FROM LEAST(j.end_time, m.m + interval '1 month') - GREATEST(j.start_time, m.m))) / 3600
              FROM fairshare.jobs j
             CROSS JOIN LATERAL generate_series(date_trunc('month', GREATEST(j.start_time, %L::timestamptz), 'UTC'),
                                                LEAST(j.end_time, %L::timestamptz) - interval '1 microsecond',
                                                interval '1 month') AS m (m)
             WHERE j.start_time < %L AND j.end_time > %L AND j.end_time > j.start_time
             GROUP BY 1, 2, 3$q$, :'y0', :'y1', :'y1', :'y0'),
  :reps, 100, NULL, '< 100 ms');
-- a late import: 1000 jobs of last month, then the refresh that corrects
-- their hours (rolled back each round)
SELECT bench.measure(format('refresh_rollups after 1000 late jobs of last month (%s jobs)', :n_jobs),
  $q$SELECT bench.call_ms($s$
       WITH x AS (INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time,
                                             start_time, end_time, cpus, nodes)
                  SELECT j.cluster, 'late' || j.job_id, j.user_name, j.account, j.partition, 'COMPLETED',
                         bench.as_of() - interval '20 days', bench.as_of() - interval '20 days',
                         bench.as_of() - interval '20 days' + interval '3 hours', j.cpus, j.nodes
                    FROM fairshare.jobs j WHERE j.state = 'COMPLETED' LIMIT 1000 RETURNING 1)
       SELECT count(*) FROM x; SELECT fairshare.refresh_rollups(up_to => bench.as_of())$s$)$q$, :reps);
\o
SELECT count(*) AS hourly_rows, pg_size_pretty(pg_total_relation_size('fairshare.usage_hourly')) AS hourly_size,
       (SELECT count(*) FROM fairshare.usage_monthly) AS monthly_rows
  FROM fairshare.usage_hourly;
SELECT bench.clear_rollups() \g /dev/null
