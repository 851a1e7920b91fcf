-- rollups: usage_hourly/daily/monthly and the cluster rollups kept
-- incrementally by refresh_rollups (docs/reports.md#rollups): a late job,
-- an update and a deletion correct their hours, and after each step the
-- rollups equal the same rollups computed from nothing.
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';

INSERT INTO clusters (cluster, timezone) VALUES ('r1', 'Europe/Paris');
INSERT INTO partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb) VALUES ('r1', 'p', 4, 32, 128000);
INSERT INTO accounts (cluster, account, parent_account) VALUES ('r1', 'root', NULL), ('r1', 'a', 'root'), ('r1', 'b', 'root');
INSERT INTO account_users (cluster, account, user_name) VALUES ('r1', 'a', 'u1'), ('r1', 'b', 'u2');
INSERT INTO node_events (cluster, node_name, time_start, tres) VALUES ('r1', '', '2026-01-31 00:00+00', 'cpu=128,mem=500G,node=4,billing=128');

-- j1: 8 CPUs, 2026-01-31 22:30 -> 2026-02-01 01:30 UTC (3 h, across a
--     month in Paris: Feb 1 starts at 2026-01-31 23:00 UTC), 1 h suspended
-- j2: 4 CPUs, 2026-02-01 10:00 -> 10:20, waited 600 s
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time, start_time, end_time,
                  cpus, mem_mb, nodes, tres, suspended) VALUES
  ('r1', '1', 'u1', 'a', 'p', 'COMPLETED', '2026-01-31 22:00+00', '2026-01-31 22:00+00', '2026-01-31 22:30+00', '2026-02-01 01:30+00',
   8, 8000, 1, 'cpu=8,mem=8000M,node=1,billing=16', '1 hour'),
  ('r1', '2', 'u2', 'b', 'p', 'COMPLETED', '2026-02-01 09:50+00', '2026-02-01 09:50+00', '2026-02-01 10:00+00', '2026-02-01 10:20+00',
   4, 4000, 1, 'cpu=4,mem=4000M,node=1,billing=4', '0');
SELECT count(*) AS marks FROM rollup_dirty WHERE cluster = 'r1';
SELECT * FROM refresh_rollups('r1', '2026-02-01 12:10+00');
SELECT count(*) AS marks_left FROM rollup_dirty WHERE cluster = 'r1';

-- The runs sreport's job SizesByAccount counts (PrintJobCount): every run
-- with time in the window, so also a run already running at its start
-- (jobs_at_start of the window's first period: an hour, a day or a month).
-- Sizes 0-3, 4-15, >= 16 CPUs; j1 has 8 CPUs, j2 4:
--   Paris February (from 2026-01-31 23:00 UTC; the month row):  j1 at the
--     start, j2 started in it                                  {0,2,0}
--   Paris February 1 (the day row): the same                  {0,2,0}
--   00:00-01:00 UTC Feb 1 (an hour row): j1 at the start       {0,1,0}
--   02:00-12:00 UTC: j1 ended at 01:30; j2                     {0,1,0}
SELECT w.k, r.sizes
  FROM (VALUES (1, 'month', '2026-01-31 23:00+00'::timestamptz, '2026-02-28 23:00+00'::timestamptz),
               (2, 'day', '2026-01-31 23:00+00', '2026-02-01 23:00+00'),
               (3, 'hour', '2026-02-01 00:00+00', '2026-02-01 01:00+00'),
               (4, 'hours', '2026-02-01 02:00+00', '2026-02-01 12:00+00')) AS w (i, k, f, t)
 CROSS JOIN LATERAL sreport_job_sizes_by_account(w.f, w.t, '{4,16}', job_count => true, cluster => 'r1') r
 ORDER BY w.i;

-- j1 per hour: 22:30-23:00 1800 s, 23-00 3600, 00-01 3600, 01-01:30 1800
-- (10800 s).  Its 3600 s suspended are spread in proportion:
-- floor(3600 * elapsed / 10800) at each end: 600, 1200, 1200, 600.
-- run_secs 1200, 2400, 2400, 1200; cpu_secs x 8.
SELECT period_start, account, run_secs, cpu_secs, suspended_secs, billing_secs, jobs, wait_secs
  FROM usage_hourly WHERE cluster = 'r1' ORDER BY period_start, account;
-- days and months of Paris: j1's first 30 min are on Jan 31 (local
-- 23:30-00:00), the rest on Feb 1: 1200 + (2400 + 2400 + 1200) = 6000 s
SELECT period_start, account, run_secs, cpu_secs, jobs FROM usage_daily WHERE cluster = 'r1' ORDER BY 1, 2;
SELECT period_start, account, run_secs, cpu_secs, jobs FROM usage_monthly WHERE cluster = 'r1' ORDER BY 1, 2;
-- a year of monthly account usage: 6000 s x 8 / 3600 = 13.33 h in Feb for
-- a (and 1200 x 8 / 3600 = 2.67 in Jan), 1200 s x 4 / 3600 = 1.33 for b
SELECT cluster, month, account, round(cpu_hours::numeric, 2) AS cpu_hours, jobs, round(wait_hours::numeric, 4) AS wait_hours
  FROM account_usage_monthly('2026-01-01', '2027-01-01', 'r1');
-- account_usage_monthly reads usage_monthly_by_account: the same figures
-- as summing usage_monthly's rows by account (no row differs; r1's months
-- start at midnight in Paris)
SELECT count(*) AS rows_differing
  FROM ((SELECT * FROM account_usage_monthly('2026-01-01', '2027-01-01', 'r1')
         EXCEPT ALL
         SELECT u.cluster, u.period_start, u.account, sum(u.cpu_secs)::float8 / 3600, sum(u.gpu_secs)::float8 / 3600,
                sum(u.billing_secs)::float8 / 3600, sum(u.jobs)::bigint, sum(u.wait_secs)::float8 / 3600
           FROM usage_monthly u WHERE u.cluster = 'r1' AND u.period_start >= date_trunc('month', '2026-01-01'::timestamptz, 'Europe/Paris')
            AND u.period_start < '2027-01-01'
          GROUP BY 1, 2, 3)
        UNION ALL
        (SELECT u.cluster, u.period_start, u.account, sum(u.cpu_secs)::float8 / 3600, sum(u.gpu_secs)::float8 / 3600,
                sum(u.billing_secs)::float8 / 3600, sum(u.jobs)::bigint, sum(u.wait_secs)::float8 / 3600
           FROM usage_monthly u WHERE u.cluster = 'r1' AND u.period_start >= date_trunc('month', '2026-01-01'::timestamptz, 'Europe/Paris')
            AND u.period_start < '2027-01-01'
          GROUP BY 1, 2, 3
         EXCEPT ALL
         SELECT * FROM account_usage_monthly('2026-01-01', '2027-01-01', 'r1'))) d;

-- The same rollups computed from nothing: the rollups must equal them.
CREATE FUNCTION pg_temp.snapshot() RETURNS TABLE (t text, row_text text) LANGUAGE sql AS $$
    SELECT 'h', u::text FROM fairshare.usage_hourly u WHERE u.cluster = 'r1' UNION ALL
    SELECT 'd', u::text FROM fairshare.usage_daily u WHERE u.cluster = 'r1' UNION ALL
    SELECT 'm', u::text FROM fairshare.usage_monthly u WHERE u.cluster = 'r1' UNION ALL
    SELECT 'ma', u::text FROM fairshare.usage_monthly_by_account u WHERE u.cluster = 'r1' UNION ALL
    SELECT 'ch', u::text FROM fairshare.cluster_usage_hourly u WHERE u.cluster = 'r1' UNION ALL
    SELECT 'cd', u::text FROM fairshare.cluster_usage_daily u WHERE u.cluster = 'r1' UNION ALL
    SELECT 'cm', u::text FROM fairshare.cluster_usage_monthly u WHERE u.cluster = 'r1' $$;
CREATE FUNCTION pg_temp.same_as_from_scratch(up_to timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    diff bigint;
BEGIN
    CREATE TEMP TABLE kept AS SELECT * FROM pg_temp.snapshot();
    DELETE FROM fairshare.usage_hourly WHERE cluster = 'r1';
    DELETE FROM fairshare.usage_daily WHERE cluster = 'r1';
    DELETE FROM fairshare.usage_monthly WHERE cluster = 'r1';
    DELETE FROM fairshare.usage_monthly_by_account WHERE cluster = 'r1';
    DELETE FROM fairshare.cluster_usage_hourly WHERE cluster = 'r1';
    DELETE FROM fairshare.cluster_usage_daily WHERE cluster = 'r1';
    DELETE FROM fairshare.cluster_usage_monthly WHERE cluster = 'r1';
    DELETE FROM fairshare.rollup_state WHERE cluster = 'r1';
    DELETE FROM fairshare.rollup_dirty WHERE cluster = 'r1';
    PERFORM fairshare.refresh_rollups('r1', up_to);
    SELECT count(*) INTO diff FROM ((SELECT * FROM kept EXCEPT ALL SELECT * FROM pg_temp.snapshot())
                                   UNION ALL (SELECT * FROM pg_temp.snapshot() EXCEPT ALL SELECT * FROM kept)) x;
    DROP TABLE kept;
    RETURN CASE WHEN diff = 0 THEN 'same' ELSE diff || ' rows differ' END;
END $$;
SELECT pg_temp.same_as_from_scratch('2026-02-01 12:10+00');

-- A late job in a past hour: j3, 16 CPUs, Feb 1 03:00-05:00.  Its hours
-- are marked, [03:00, 06:00) (an end on the hour marks the hour after it
-- too); the next refresh recomputes those 3 hours and no other.
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time, start_time, end_time, cpus, nodes)
VALUES ('r1', '3', 'u2', 'b', 'p', 'COMPLETED', '2026-02-01 03:00+00', '2026-02-01 03:00+00', '2026-02-01 03:00+00', '2026-02-01 05:00+00', 16, 1);
SELECT cluster, lower(hours), upper(hours) FROM rollup_dirty WHERE cluster = 'r1';
SELECT cluster, hours_recomputed FROM refresh_rollups('r1', '2026-02-01 12:10+00');
SELECT period_start, cpu_secs FROM usage_hourly WHERE cluster = 'r1' AND account = 'b' ORDER BY 1;
SELECT pg_temp.same_as_from_scratch('2026-02-01 12:10+00');

-- An update (j2 now ends at 11:15) and a deletion (j3): j2's hours before
-- [09:00, 11:00) and after [09:00, 12:00) (from its eligible hour), j3's
-- [03:00, 06:00): 3 + 3 = 6 hours
UPDATE jobs SET end_time = '2026-02-01 11:15+00' WHERE cluster = 'r1' AND job_id = '2';
DELETE FROM jobs WHERE cluster = 'r1' AND job_id = '3';
SELECT cluster, hours_recomputed FROM refresh_rollups('r1', '2026-02-01 12:10+00');
-- b: 10:00-11:00 3600 x 4 = 14400, 11:00-11:15 900 x 4 = 3600; j3 gone
SELECT period_start, cpu_secs FROM usage_hourly WHERE cluster = 'r1' AND account = 'b' ORDER BY 1;
SELECT pg_temp.same_as_from_scratch('2026-02-01 12:10+00');

-- A running job: counted up to the refresh's hour, then to its end
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time, start_time, cpus, nodes)
VALUES ('r1', '4', 'u1', 'a', 'p', 'RUNNING', '2026-02-01 11:30+00', '2026-02-01 11:30+00', '2026-02-01 11:30+00', 2, 1);
SELECT cluster, hours_recomputed, rolled_to FROM refresh_rollups('r1', '2026-02-01 13:05+00');
-- 11:30-12:00 1800 x 2, 12:00-13:00 3600 x 2
SELECT period_start, cpu_secs FROM usage_hourly WHERE cluster = 'r1' AND account = 'a' AND period_start >= '2026-02-01 11:00+00' ORDER BY 1;
UPDATE jobs SET state = 'COMPLETED', end_time = '2026-02-01 12:30+00' WHERE cluster = 'r1' AND job_id = '4';
SELECT cluster, hours_recomputed, rolled_to FROM refresh_rollups('r1', '2026-02-01 13:05+00');
-- 12:00-12:30 1800 x 2 = 3600
SELECT period_start, cpu_secs FROM usage_hourly WHERE cluster = 'r1' AND account = 'a' AND period_start >= '2026-02-01 11:00+00' ORDER BY 1;
SELECT pg_temp.same_as_from_scratch('2026-02-01 13:05+00');

-- TRUNCATE marks every hour of every cluster (in a transaction rolled
-- back: the suites share a database)
BEGIN;
TRUNCATE jobs;
SELECT cluster, lower_inf(hours), upper_inf(hours) FROM rollup_dirty WHERE cluster = 'r1' OR cluster IS NULL;
SELECT cluster, hours_recomputed FROM refresh_rollups('r1', '2026-02-01 13:05+00');
SELECT count(*) AS job_rows_left FROM usage_hourly WHERE cluster = 'r1';
ROLLBACK;

-- Runs with a reservation id whose reservation does not take their time
-- count as runs outside any (_rollup_hours's resv_in): one in a reservation
-- flagged IGNORE_JOBS, one whose reservation was never imported.  Cluster
-- r2, 64 CPUs, UTC:
--   10:00-11:00  reservation 5 (IGNORE_JOBS, 64 CPUs): nothing of it is
--                allocated nor charged; k1 (8 CPUs, resv 5) 10:00-10:30
--                1800 x 8 = 14400 and k2 (4 CPUs, resv 9, not imported)
--                10:30-11:00 1800 x 4 = 7200: allocated 21600
--   11:00-12:00  reservation 7 (64 CPUs, for account a): allocated
--                3600 x 64 = 230400; k3 (16 CPUs, resv 7) 11:00-11:15 adds
--                nothing to it; a's own row gets (3600 - 900) x 64 = 172800
INSERT INTO clusters (cluster) VALUES ('r2');
INSERT INTO partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb) VALUES ('r2', 'p', 1, 64, 256000);
INSERT INTO accounts (cluster, account, parent_account) VALUES ('r2', 'root', NULL), ('r2', 'a', 'root');
INSERT INTO account_users (cluster, account, user_name) VALUES ('r2', 'a', 'u1');
INSERT INTO node_events (cluster, node_name, time_start, tres) VALUES ('r2', '', '2026-03-01 00:00+00', 'cpu=64');
INSERT INTO reservations (cluster, resv_id, name, time_start, time_end, flags, tres, accounts, users) VALUES
  ('r2', 5, 'ign', '2026-03-01 10:00+00', '2026-03-01 11:00+00', 'IGNORE_JOBS', 'cpu=64', '{a}', '{""}'),
  ('r2', 7, 'res', '2026-03-01 11:00+00', '2026-03-01 12:00+00', '', 'cpu=64', '{a}', '{""}');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time, start_time, end_time,
                  cpus, nodes, tres, resv_id) VALUES
  ('r2', 'k1', 'u1', 'a', 'p', 'COMPLETED', '2026-03-01 10:00+00', '2026-03-01 10:00+00', '2026-03-01 10:00+00', '2026-03-01 10:30+00', 8, 1, 'cpu=8', 5),
  ('r2', 'k2', 'u1', 'a', 'p', 'COMPLETED', '2026-03-01 10:30+00', '2026-03-01 10:30+00', '2026-03-01 10:30+00', '2026-03-01 11:00+00', 4, 1, 'cpu=4', 9),
  ('r2', 'k3', 'u1', 'a', 'p', 'COMPLETED', '2026-03-01 11:00+00', '2026-03-01 11:00+00', '2026-03-01 11:00+00', '2026-03-01 11:15+00', 16, 1, 'cpu=16', 7);
SELECT cluster, hours_recomputed FROM refresh_rollups('r2', '2026-03-01 12:00+00');
SELECT period_start, alloc_secs, planned_secs, idle_secs FROM cluster_usage_hourly
 WHERE cluster = 'r2' AND tres = 'cpu' AND period_start >= '2026-03-01 10:00+00' ORDER BY 1;
SELECT period_start, account, user_name, partition, cpus, cpu_secs FROM usage_hourly
 WHERE cluster = 'r2' ORDER BY 1, 2, 3, 4, 5;
DELETE FROM jobs WHERE cluster = 'r2';
DELETE FROM clusters WHERE cluster = 'r2';
DELETE FROM usage_hourly WHERE cluster = 'r2';
DELETE FROM usage_daily WHERE cluster = 'r2';
DELETE FROM usage_monthly WHERE cluster = 'r2';
DELETE FROM usage_monthly_by_account WHERE cluster = 'r2';
DELETE FROM cluster_usage_hourly WHERE cluster = 'r2';
DELETE FROM cluster_usage_daily WHERE cluster = 'r2';
DELETE FROM cluster_usage_monthly WHERE cluster = 'r2';

-- A run that started before its own submit time (sacct prints such runs:
-- a requeued run keeps its earlier start) is in the hours it ran, though a
-- week's pass reads first the partitions submitted before the week's end
-- (_rollup_runs).  Cluster r3, UTC; the refresh cuts [Mar 2 10:00, Mar 26)
-- into weeks from the first run's hour:
--   q1: 2 CPUs, ran Mar 2 10:00-11:00, submitted Mar 20 (two weeks after
--       the week it ran in ends, Mar 9 10:00): 3600 x 2 = 7200 CPU-seconds
--       in the hour of Mar 2 10:00
--   q2: 4 CPUs, submitted and ran Mar 25 10:00-10:30: 1800 x 4 = 7200
INSERT INTO clusters (cluster) VALUES ('r3');
INSERT INTO partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb) VALUES ('r3', 'p', 1, 64, 256000);
INSERT INTO accounts (cluster, account, parent_account) VALUES ('r3', 'root', NULL), ('r3', 'a', 'root');
INSERT INTO account_users (cluster, account, user_name) VALUES ('r3', 'a', 'u1');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, nodes, tres) VALUES
  ('r3', 'q1', 'u1', 'a', 'p', 'COMPLETED', '2026-03-20 00:00+00', '2026-03-02 10:00+00', '2026-03-02 11:00+00', 2, 1, 'cpu=2'),
  ('r3', 'q2', 'u1', 'a', 'p', 'COMPLETED', '2026-03-25 10:00+00', '2026-03-25 10:00+00', '2026-03-25 10:30+00', 4, 1, 'cpu=4');
SELECT cluster, rolled_from, rolled_to FROM refresh_rollups('r3', '2026-03-26 00:00+00');
SELECT period_start, account, cpus, run_secs, cpu_secs, jobs FROM usage_hourly WHERE cluster = 'r3' ORDER BY 1;
DELETE FROM jobs WHERE cluster = 'r3';
DELETE FROM clusters WHERE cluster = 'r3';
DELETE FROM usage_hourly WHERE cluster = 'r3';
DELETE FROM usage_daily WHERE cluster = 'r3';
DELETE FROM usage_monthly WHERE cluster = 'r3';
DELETE FROM usage_monthly_by_account WHERE cluster = 'r3';
DELETE FROM cluster_usage_hourly WHERE cluster = 'r3';
DELETE FROM cluster_usage_daily WHERE cluster = 'r3';
DELETE FROM cluster_usage_monthly WHERE cluster = 'r3';

-- Bad input: each names the value and says what is expected
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT * FROM sreport_cluster_utilization('2026-02-02', '2026-02-01');
SELECT * FROM sreport_cluster_utilization('2026-02-01 10:10', '2026-02-01 10:50');
SELECT * FROM sreport_cluster_utilization('2026-02-01', '2026-02-02', 'fortnights');
SELECT * FROM sreport_account_utilization_by_user('2026-02-01', '2026-02-02', 'hours', 'cpu,licenses');
SELECT * FROM sreport_top_usage('2026-02-01', '2026-02-02', top_count => 0);
SELECT * FROM sreport_job_sizes_by_account('2026-02-01', '2026-02-02', '{50,20}');
-- at most 100 CPU counts (54000 past them); 100 counts make 101 buckets
SELECT * FROM sreport_job_sizes_by_account('2026-02-01', '2026-02-02', (SELECT array_agg(g) FROM generate_series(1, 101) g));
SELECT account, cardinality(labels) AS buckets, labels[1] AS first, labels[101] AS last
  FROM sreport_job_sizes_by_account('2026-02-01', '2026-02-02', (SELECT array_agg(g) FROM generate_series(1, 100) g), cluster => 'r1');
SELECT * FROM refresh_rollups('nowhere');
SELECT * FROM refresh_rollups('r1', 'infinity');
SELECT * FROM account_usage_monthly('2026-03-01', '2026-02-01');
SELECT import_events('r1', 'Cluster|Start');
-- (a line of import_events or import_reservations that cannot be read is
-- rejected alone: sql/bad_input.sql, defect 10)

-- the suites share a database: leave nothing behind
\set VERBOSITY terse
DELETE FROM jobs WHERE cluster = 'r1';
DELETE FROM clusters WHERE cluster = 'r1';
SELECT count(*) AS left_behind FROM rollup_state WHERE cluster = 'r1';
