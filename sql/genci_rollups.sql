-- GENCI and RWTH consumption read from the rollups where they answer and
-- from the runs elsewhere (docs/regulation.md#consumption-from-the-rollups):
-- the same figure whichever part of the window came from where.  One
-- cluster in Asia/Kolkata (UTC+05:30): its local midnights fall at :30 UTC,
-- so the first and last half hours of every window are parts of hours.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
SET client_min_messages = warning;
-- in one transaction, rolled back: the suites after this one see none of it
BEGIN;

INSERT INTO clusters (cluster, gpu_hour_factor, timezone) VALUES ('k_ist', 0, 'Asia/Kolkata');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes, gpus_per_node, whole_node) VALUES
    ('k_ist', 'p', 8, 64000, 10, 0, false);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
    ('k_ist', 'root', NULL, 1), ('k_ist', 'gacc', 'root', 1), ('k_ist', 'racc', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('k_ist', 'gacc', 'u1'), ('k_ist', 'racc', 'u1');
-- the GENCI project gacc and the RWTH project racc have the same runs (ids
-- given: a rolled-back transaction would still advance the identity, and
-- the suites after this one print theirs)
INSERT INTO allocations (allocation_id, cluster, account, policy, period_start, period_end, hours, monthly_allowance) VALUES
    (900001, 'k_ist', 'gacc', 'genci', '2024-01-01', '2024-12-31', 100000, NULL),
    (900002, 'k_ist', 'racc', 'rwth', '2024-01-01', '2024-12-31', 12000, 1000);

-- The runs (UTC).  The window of both reports on 1 April 2024 is
-- [2023-12-31 18:30, 2024-03-31 18:30) UTC (local midnights).
--   1: 4 CPUs 2023-12-31 18:00 .. 2024-01-01 02:00: 7.5 h in the window × 4 = 30
--      (its half hour 18:30-19:00 is part of an hour: from the runs, 2)
--   2: 2 CPUs 2024-01-10 .. 2024-01-20, 5 h of it suspended: 240 h × 2 = 480
--      (core-hours count suspended time: usage_hourly's cpu_secs would give 470)
--   3: exclusive, 1 node of 8 cores, 1 CPU, 2024-02-05 10:00 .. 20:00: 10 h × 8 = 80
--      (February is a whole month: from usage_monthly's counterpart)
--   5: 8 CPUs 2024-03-25 00:00 .. 01:00: 8 (after the rollups' end: from the runs)
--   6: 1 CPU from 2024-03-31 12:00, still running: 6.5 h to 18:30 = 6.5 (from the runs)
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time,
                  cpus, nodes, gpus, exclusive, suspended)
SELECT 'k_ist', a.account || '-' || v.id, 'u1', a.account, 'p', v.state, v.s, v.s, v.e, v.cpus, 1, 0, v.x, v.susp
  FROM (VALUES ('gacc'), ('racc')) a(account),
       (VALUES ('1', 'COMPLETED', '2023-12-31 18:00+00'::timestamptz, '2024-01-01 02:00+00'::timestamptz, 4, false, '0'::interval),
               ('2', 'COMPLETED', '2024-01-10 00:00+00', '2024-01-20 00:00+00', 2, false, '5 hours'),
               ('3', 'COMPLETED', '2024-02-05 10:00+00', '2024-02-05 20:00+00', 1, true, '0'),
               ('5', 'COMPLETED', '2024-03-25 00:00+00', '2024-03-25 01:00+00', 8, false, '0'),
               ('6', 'RUNNING', '2024-03-31 12:00+00', NULL, 1, false, '0')) v(id, state, s, e, cpus, x, susp);

-- never refreshed: everything from the runs, 30 + 480 + 80 + 8 + 6.5 = 604.5
SELECT allocation_consumption(a.allocation_id, '2024-04-01') AS runs_only
  FROM allocations a WHERE a.account = 'gacc';

-- The regulation and the report ask for all their days at once
-- (_allocation_consumptions): allocation_consumption's figure to the bit,
-- for each of the two allocations on every day from a week before the
-- period to a week after it (each day's window its own mix of hours rolled,
-- stale and from the runs, its local midnight at :30 UTC), for an unknown
-- allocation and for a NULL day.  :same counts the pairs (2 × 380 days + 2
-- = 762), those with a figure above 0 (2 × (380 − 8): none up to 1 January,
-- the start, whose window is empty; 744) and those whose figure differs by a
-- bit (none).
CREATE TEMP TABLE pairs AS
SELECT row_number() OVER (ORDER BY a.id, d.d) AS n, a.id, d.d::date AS d
  FROM (VALUES (900001::bigint), (900002), (999999)) a(id)
 CROSS JOIN generate_series('2023-12-25'::date, '2025-01-07'::date, '1 day') d(d)
 WHERE a.id < 999999 OR d.d = '2024-04-01'
UNION ALL SELECT 1000, 900001, NULL;
\set same 'SELECT count(*) AS pairs, count(*) FILTER (WHERE b.used > 0) AS counted, count(*) FILTER (WHERE pg_catalog.float8send(b.used) IS DISTINCT FROM pg_catalog.float8send(allocation_consumption(b.allocation_id, b.as_of))) AS differ FROM fairshare_internal._allocation_consumptions(ARRAY(SELECT p.id FROM pairs p ORDER BY p.n), ARRAY(SELECT p.d FROM pairs p ORDER BY p.n)) b'
:same;

-- rolled up to 2024-03-20 00:00 UTC
SELECT cluster, rolled_to FROM refresh_rollups('k_ist', '2024-03-20 00:00+00');
-- the core rollups hold every rolled hour (a first refresh: -infinity)
SELECT cluster, core_from FROM core_rollup_state WHERE cluster = 'k_ist';
-- 4: imported late, 3 CPUs 2024-03-03 00:00 .. 03:00 (rolled hours, now
-- stale): 3 h × 3 = 9, from the runs
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, nodes)
SELECT 'k_ist', a || '-4', 'u1', a, 'p', 'COMPLETED', '2024-03-03 00:00+00', '2024-03-03 00:00+00', '2024-03-03 03:00+00', 3, 1
  FROM unnest(ARRAY['gacc', 'racc']) a;
SELECT hours FROM rollup_dirty WHERE cluster = 'k_ist';
-- the rollups hold February whole, the exclusive run at 8 cores:
-- 10 h × 8 × 3600 × 10^6 = 288000000000 core-microseconds
SELECT account, period_start, core_us FROM core_usage_monthly
 WHERE cluster = 'k_ist' AND period_start = '2024-02-01 00:00+05:30' ORDER BY account;

-- the hybrid: 30 + 480 + 80 + 9 + 8 + 6.5 = 613.5 (rolled: 28 + 480 + 80;
-- runs: the half hour 2 of run 1, the stale 9, the unrolled 8 and 6.5)
SELECT allocation_consumption(a.allocation_id, '2024-04-01') AS hybrid
  FROM allocations a WHERE a.account = 'gacc';
:same;
SELECT account, consumed FROM genci_report_at('2024-04-01') WHERE cluster = 'k_ist';
-- RWTH per local month: January 30 + 480 = 510, February 80,
-- March 9 + 8 + 6.5 = 23.5, April (begun at as_of) 0
SELECT month, consumed FROM rwth_monthly_usage_at('2024-04-01 00:00+05:30') WHERE cluster = 'k_ist' ORDER BY month;
-- The policy lab (docs/history.md#the-policy-lab): a scenario with nodes of
-- 16 cores sets the rollups aside (summed with 8) and reads every run: the
-- exclusive run 3 pays 10 h × 16 = 160, GENCI 30 + 480 + 160 + 9 + 8 + 6.5
-- = 693.5 and RWTH's February 160 (from the rollups they would stay 613.5
-- and 80).  The live reports after it: 613.5 and 80 again.
INSERT INTO scenarios (scenario) VALUES ('k16');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings)
VALUES ('k16', 'k_ist', 'partitions', 'p', '{"cores_per_node": 16}');
SELECT account, consumed FROM genci_report_at('2024-04-01', 'k16') WHERE cluster = 'k_ist';
SELECT month, consumed FROM rwth_monthly_usage_at('2024-04-01 00:00+05:30', 'k16') WHERE cluster = 'k_ist' ORDER BY month;
SELECT account, consumed FROM genci_report_at('2024-04-01') WHERE cluster = 'k_ist';
SELECT month, consumed FROM rwth_monthly_usage_at('2024-04-01 00:00+05:30') WHERE cluster = 'k_ist' AND month = '2024-02-01';
-- a window inside one hour, 2024-01-10 00:10 .. 00:40 UTC: run 2 alone,
-- 30 min × 2 = 1 (no whole hour: all from the runs)
SELECT account_core_hours('k_ist', 'gacc', '2024-01-10 00:10+00', '2024-01-10 00:40+00') AS in_one_hour;

-- After retention the rollups are all that is left of the runs of the
-- hours before retained_to (docs/history.md#retention-retain_jobs): as
-- retain_jobs leaves them, run 2 gone from jobs (its marks dropped).  The
-- figures stay 613.5 and 510: January's 480 comes from the rollups.
UPDATE rollup_state SET retained_to = '2024-02-01 00:00+00' WHERE cluster = 'k_ist';
DELETE FROM jobs WHERE cluster = 'k_ist' AND job_id IN ('gacc-2', 'racc-2');
SELECT allocation_consumption(a.allocation_id, '2024-04-01') AS after_retention
  FROM allocations a WHERE a.account = 'gacc';
:same;
SELECT month, consumed FROM rwth_monthly_usage_at('2024-04-01 00:00+05:30') WHERE cluster = 'k_ist' ORDER BY month;

-- a mark for every cluster and hour (what TRUNCATE jobs leaves): the
-- hours before retained_to are still the rollups' (run 2's 480), the rest
-- comes from the runs: 613.5, and January 510, as above
INSERT INTO rollup_dirty (cluster, hours) VALUES (NULL, '(,)');
SELECT allocation_consumption(a.allocation_id, '2024-04-01') AS all_marked
  FROM allocations a WHERE a.account = 'gacc';
:same;
SELECT month, consumed FROM rwth_monthly_usage_at('2024-04-01 00:00+05:30') WHERE cluster = 'k_ist' ORDER BY month;
DELETE FROM rollup_dirty WHERE cluster IS NULL;

-- a change of the billing settings marks every hour after retained_to
-- stale: the exclusive run 3 then comes from the runs, still 613.5
UPDATE partitions SET cores_per_node = 8 WHERE cluster = 'k_ist';     -- no change: no mark
SELECT count(*) AS marks_unchanged FROM rollup_dirty WHERE cluster = 'k_ist';
UPDATE partitions SET cores_per_node = 16 WHERE cluster = 'k_ist';
-- run 3 at 16 cores: 10 h × 16 = 160, so 613.5 − 80 + 160 = 693.5
SELECT allocation_consumption(a.allocation_id, '2024-04-01') AS after_cores_change
  FROM allocations a WHERE a.account = 'gacc';
:same;
ROLLBACK;
RESET client_min_messages;

-- _allocation_consumptions refuses arrays it cannot pair: NULL (22004),
-- of different lengths (22023), an infinite day (22008)
\set VERBOSITY sqlstate
SELECT * FROM fairshare_internal._allocation_consumptions(NULL, '{2024-04-01}');
SELECT * FROM fairshare_internal._allocation_consumptions('{1,2}', '{2024-04-01}');
SELECT * FROM fairshare_internal._allocation_consumptions('{1}', '{infinity}');
\set VERBOSITY default
-- no pairs, no rows
SELECT count(*) FROM fairshare_internal._allocation_consumptions('{}', '{}');
