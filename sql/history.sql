-- history: jobs partitioned by submit month, maintain_partitions and
-- retention (docs/history.md).  In a database of its own: the
-- monthly partitions made here are tables of the schema, which the other
-- suites' listings would show.
SELECT current_database() AS regress_db \gset
CREATE DATABASE regress_fs_history;
\c regress_fs_history
SET client_min_messages = warning;
CREATE EXTENSION fairshare;
SET search_path = public, fairshare;
SET timezone = 'UTC';
SET extra_float_digits = 0;
CREATE FUNCTION err(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE sql;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    DECLARE st text; msg text; hnt text;
    BEGIN
        GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hnt = PG_EXCEPTION_HINT;
        RETURN st || ': ' || msg || CASE WHEN hnt <> '' THEN E'\nHINT: ' || hnt ELSE '' END;
    END;
END $$;
-- the rows of each partition of jobs (months before 2025: this suite's)
CREATE VIEW layout AS
SELECT p.relation, p.month_start, p.month_end,
       (xpath('//n/text()', query_to_xml(format('SELECT count(*) AS n FROM %s', p.relation), false, false, '')))[1]::text::int AS runs
  FROM job_partitions() p
 WHERE p.month_start IS NULL OR p.month_start < '2025-01-01';

-- ---------------------------------------------------------------------------
-- 1. The layout a fresh install has: jobs partitioned by range of
--    submit_time, and its default partition alone.
-- ---------------------------------------------------------------------------
SELECT c.relkind, pg_get_partkeydef(c.oid) FROM pg_class c WHERE c.oid = 'jobs'::regclass;
SELECT * FROM layout;

-- A Slurm cluster hx (half-life 7 days), a PBS cluster hp, and a GENCI
-- allocation of account g on hx for February 2024 (over).
INSERT INTO clusters (cluster, decay_half_life, timezone) VALUES ('hx', '7 days', 'Europe/Paris');
INSERT INTO clusters (cluster, fairshare_algorithm, decay_mode) VALUES ('hp', 'pbs', 'step');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb)
VALUES ('hx', 'p', 8, 16384), ('hp', 'q', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares)
VALUES ('hx', 'root', NULL, 1), ('hx', 'a', 'root', 1), ('hx', 'g', 'root', 1), ('hp', 'root', NULL, 1), ('hp', 'b', 'root', 1);
INSERT INTO account_users (cluster, account, user_name)
VALUES ('hx', 'a', 'ann'), ('hx', 'a', 'bob'), ('hx', 'g', 'gil'), ('hp', 'b', 'pat');
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('hx', 'g', 'genci', '2024-02-01', '2024-02-29', 1000);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('hx', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-01-03 10:00+00', '2024-01-03 11:00+00', '2024-01-03 15:00+00', 4),
  ('hx', '2', 'bob', 'a', 'p', 'COMPLETED', '2024-01-20 10:00+00', '2024-01-20 10:30+00', '2024-01-22 10:30+00', 1),
  -- submitted in January, ended in February: January's last end
  ('hx', '3', 'ann', 'a', 'p', 'TIMEOUT',   '2024-01-31 23:00+00', '2024-02-01 00:00+00', '2024-02-02 00:00+00', 2),
  -- cancelled while pending: no usage
  ('hx', '4', 'bob', 'a', 'p', 'CANCELLED', '2024-01-25 09:00+00', NULL, '2024-01-25 09:05+00', 1),
  ('hx', '5', 'ann', 'a', 'p', 'COMPLETED', '2024-02-05 08:00+00', '2024-02-05 08:00+00', '2024-02-05 20:00+00', 8),
  -- within allocation 1's period
  ('hx', '6', 'gil', 'g', 'p', 'COMPLETED', '2024-02-10 08:00+00', '2024-02-10 09:00+00', '2024-02-10 19:00+00', 8),
  ('hp', '7', 'pat', 'b', 'q', 'COMPLETED', '2024-03-01 08:00+00', '2024-03-01 09:00+00', '2024-03-02 09:00+00', 4),
  -- still running
  ('hx', '8', 'bob', 'a', 'p', 'RUNNING',   '2024-04-10 08:00+00', '2024-04-10 09:00+00', NULL, 2);
-- every run in jobs_default so far
SELECT * FROM layout;

-- ---------------------------------------------------------------------------
-- 2. maintain_partitions: a partition per month (UTC) from the oldest run
--    (January 2024) to 3 months after the current one, each run moved to
--    its month, nothing left in jobs_default.
-- ---------------------------------------------------------------------------
SELECT err($$CALL maintain_partitions(NULL)$$);     -- 22004
SELECT err($$CALL maintain_partitions(-1)$$);       -- 22023
SELECT err($$CALL maintain_partitions(121)$$);      -- 22023
CALL maintain_partitions();
SELECT * FROM layout;
-- and every month after, up to 3 months ahead (count: January 2024 to the
-- current month, + 3)
SELECT count(*) AS monthly_partitions FROM job_partitions() WHERE month_start IS NOT NULL \gset
SELECT count(*) = (SELECT count(*) FROM generate_series('2024-01-01'::timestamp,
                           date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months', interval '1 month'))
         AS january_2024_to_3_months_ahead,
       bool_and((SELECT c.relname FROM pg_class c WHERE c.oid = relation) = 'jobs_p' || to_char(month_start, 'YYYY_MM')
                AND month_end = month_start + interval '1 month') AS named_and_bounded_by_month
  FROM job_partitions() WHERE month_start IS NOT NULL;
-- moving runs is not a change: the invalidation triggers did not fire, and
-- the runs are the same
SELECT count(*) AS runs, min(submit_time), max(submit_time) FROM jobs;
-- nothing to do the second time
CALL maintain_partitions();
SELECT count(*) = :monthly_partitions AS same_partitions FROM job_partitions() WHERE month_start IS NOT NULL;

-- A new run goes to its month; a run of a month before the oldest goes to
-- jobs_default until the next maintenance makes its month (and the months
-- between: the partitions stay contiguous).
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('hx', '9', 'bob', 'a', 'p', 'COMPLETED', '2024-02-12 08:00+00', '2024-02-12 08:00+00', '2024-02-12 09:00+00', 1),
  ('hx', '10', 'ann', 'a', 'p', 'COMPLETED', '2023-11-15 08:00+00', '2023-11-15 08:00+00', '2023-11-15 10:00+00', 2);
SELECT job_id, tableoid::regclass FROM jobs WHERE job_id IN ('9', '10') ORDER BY 1;
CALL maintain_partitions();
SELECT * FROM layout;
SELECT job_id, tableoid::regclass FROM jobs WHERE job_id IN ('9', '10') ORDER BY 1;

-- The key's uniqueness holds across the table (it contains the partition
-- key), and a constraint error names the partition the row went to.
SELECT err($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
             VALUES ('hx', '9', 'bob', 'a', 'p', 'PENDING', '2024-02-12 08:00+00', 1)$$);   -- 23505
-- A query by submit time reads only its month (partition pruning).
EXPLAIN (COSTS OFF) SELECT count(*) FROM jobs WHERE submit_time >= '2024-02-01 00:00+00' AND submit_time < '2024-03-01 00:00+00';

-- A partition is read through jobs: it gives no role anything.
SELECT p.relation, (SELECT count(*) FROM aclexplode(c.relacl) a WHERE a.grantee <> c.relowner) AS grants,
       c.relrowsecurity
  FROM job_partitions() p JOIN pg_class c ON c.oid = p.relation
 WHERE p.month_start IS NULL OR p.month_start = '2024-01-01';
-- Only the owner of jobs makes partitions.
SET ROLE fairshare_admin;
SELECT err($$CALL fairshare.maintain_partitions()$$);   -- 42501
SELECT err($$CALL fairshare.retain_jobs('2024-02-01')$$);   -- 42501
RESET ROLE;
-- An owner whose name SQL must quote (regrole writes it "regress-fs owner")
-- is still found: the check reaches the argument's error, 22004, not 42704.
CREATE ROLE "regress-fs owner";
ALTER TABLE jobs OWNER TO "regress-fs owner";
SELECT err($$CALL fairshare.maintain_partitions(NULL)$$);   -- 22004
ALTER TABLE jobs OWNER TO CURRENT_USER;
DROP ROLE "regress-fs owner";

-- ---------------------------------------------------------------------------
-- 3. Retention: which months before a day can go, and why not.
-- ---------------------------------------------------------------------------
SELECT err($$CALL retain_jobs(NULL)$$);                                  -- 22023
SELECT err($$CALL retain_jobs('2024-02-01', 'relative/dir')$$);          -- 22023
SELECT err($$CALL retain_jobs('2024-02-01', '/nonexistent/fairshare')$$);  -- 58P01
-- Without a checkpoint, no month with a started run can go: the hint says
-- which checkpoint would hold the month's usage (its last end; November's
-- run ended 2023-11-15 10:00, January's last on 2024-02-02).  December is
-- empty.  February: the checkpoint first, then the allocation's period.
-- March: the PBS cluster.  April: a run still running.
SELECT relation, jobs, retainable, reason, hint FROM job_retention('2024-05-01');
SELECT err($$CALL retain_jobs('2024-05-01')$$);   -- 55000, nothing changed
SELECT count(*) AS monthly_partitions FROM job_partitions() WHERE month_start < '2024-05-01';

-- Two checkpoints of hx after January's runs: 2024-03-15 and 2024-05-01;
-- the first is sparse (docs/design.md#sparse-checkpoints), standing on one
-- at 2024-02-01, before January's last run ended.
CALL checkpoint_usage('hx', '2024-02-01 00:00+00');
CALL checkpoint_usage('hx', '2024-03-15 00:00+00');
CALL checkpoint_usage('hx', '2024-05-01 00:00+00');
SELECT relation, jobs, retainable, reason FROM job_retention('2024-05-01');
-- The rollups must hold a month's runs before it goes: retention freezes the
-- rollups of the hours its runs ran in (up to January's last end, 02-02
-- 00:00, so the hours before 02-02 01:00).  Refreshed up to 2024-06-01,
-- November and January can go.
SELECT cluster, rolled_to FROM refresh_rollups('hx', '2024-06-01 00:00+00');
SELECT relation, jobs, retainable, reason FROM job_retention('2024-05-01');
-- An allocation still open over January keeps it too.
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('hx', 'a', 'rwth', '2023-12-01', '2099-12-31', 1000);
SELECT relation, retainable, reason FROM job_retention('2024-02-01');
DELETE FROM allocations WHERE period_end = '2099-12-31';

-- The reports as of 2024-06-01, before.
CREATE TEMP VIEW reports AS
SELECT 'usage' AS report, to_jsonb(u) AS r FROM association_usage_at('2024-06-01 00:00+00') u
UNION ALL SELECT 'sshare', to_jsonb(s) FROM sshare_at('2024-06-01 00:00+00') s
UNION ALL SELECT 'sprio', to_jsonb(s) FROM sprio_at('2024-06-01 00:00+00') s
UNION ALL SELECT 'genci', to_jsonb(g) FROM genci_report_at('2024-06-01') g
UNION ALL SELECT 'pbsfs', to_jsonb(p) FROM pbsfs_at('2024-06-01 00:00+00') p;
CREATE TEMP TABLE before AS SELECT * FROM reports;
-- and as of 2024-02-15, before the checkpoints
CREATE TEMP TABLE travel AS
SELECT user_name, jobs FROM association_usage_at('2024-02-15 00:00+00') WHERE cluster = 'hx';
-- and as of 2024-01-25, before every checkpoint
CREATE TEMP TABLE travel_jan AS
SELECT user_name, jobs FROM association_usage_at('2024-01-25 00:00+00') WHERE cluster = 'hx';
SELECT report, count(*) FROM before GROUP BY 1 ORDER BY 1;

-- November, December and January go: January's runs are kept as a table of
-- their own, without foreign keys, outside jobs.
CALL retain_jobs('2024-02-01');
SELECT * FROM layout;
SELECT c.relname, c.relispartition, (SELECT count(*) FROM fairshare.jobs_p2024_01) AS runs,
       (SELECT count(*) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f') AS foreign_keys,
       obj_description(c.oid, 'pg_class') LIKE 'Runs retained by retain_jobs on %' AS commented
  FROM pg_class c WHERE c.oid = 'fairshare.jobs_p2024_01'::regclass;
-- The oldest checkpoint as of January's last end or later is pinned (it
-- freezes the fewest runs), not the newest; and the checkpoint it stands
-- on, whose rows it reads.
SELECT cluster, as_of, base, pinned, invalidated_at FROM usage_checkpoints ORDER BY 1, 2;
-- Every report as of 2024-06-01 (after the pinned checkpoint) is unchanged.
CREATE TEMP TABLE after AS SELECT * FROM reports;
SELECT (SELECT count(*) FROM after) AS rows,
       (SELECT count(*) FROM (TABLE before EXCEPT ALL TABLE after) d) AS only_before,
       (SELECT count(*) FROM (TABLE after EXCEPT ALL TABLE before) d) AS only_after;
-- Retention is final for the rollups too (docs/history.md#retention-retain_jobs):
-- importing the cluster's registered TRES as sacctmgr show event all_time
-- prints it (an open event, here from 2023-01-01) marks every hour from then
-- on; the hours up to the retained runs' last end are dropped from the mark
-- with a NOTICE, and the refresh recomputes only the 2,879 hours from
-- 02-02 01:00 to 06-01 00:00 ((27 + 31 + 30 + 31 + 1) days × 24 − 1 h).
CREATE TEMP TABLE rollups_before AS
SELECT 'usage_hourly' AS t, to_jsonb(u) AS r FROM usage_hourly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-02 01:00+00'
UNION ALL SELECT 'cluster_usage_hourly', to_jsonb(u) FROM cluster_usage_hourly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-02 01:00+00'
UNION ALL SELECT 'usage_monthly', to_jsonb(u) FROM usage_monthly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-01 00:00+01'
UNION ALL SELECT 'cluster_usage_monthly', to_jsonb(u) FROM cluster_usage_monthly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-01 00:00+01';
SET client_min_messages = notice;
SELECT import_events('hx', E'Cluster|ClusterNodes|Event|NodeName|TimeStart|TimeEnd|State|StateRaw|TRES|Reason|User\n'
                           'hx|n[1-2]|Cluster||2023-01-01T00:00:00|Unknown|||cpu=16|Cluster Registered TRES|\n');
SET client_min_messages = warning;
SELECT cluster, hours_recomputed FROM refresh_rollups('hx', '2024-06-01 00:00+00');
SELECT t, count(*) AS rows,
       count(*) FILTER (WHERE (t, r) NOT IN (SELECT x.t, x.r FROM (
           SELECT 'usage_hourly' AS t, to_jsonb(u) AS r FROM usage_hourly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-02 01:00+00'
           UNION ALL SELECT 'cluster_usage_hourly', to_jsonb(u) FROM cluster_usage_hourly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-02 01:00+00'
           UNION ALL SELECT 'usage_monthly', to_jsonb(u) FROM usage_monthly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-01 00:00+01'
           UNION ALL SELECT 'cluster_usage_monthly', to_jsonb(u) FROM cluster_usage_monthly u WHERE u.cluster = 'hx' AND u.period_start < '2024-02-01 00:00+01') x)) AS changed_or_gone
  FROM rollups_before GROUP BY t ORDER BY t;
-- January (UTC) allocated job 1's 4 CPUs × 4 h + job 2's 1 CPU × 48 h =
-- 960 + 2,880 = 3,840 CPU-minutes, still (recomputed from the emptied runs,
-- 0), and reported nothing before retention, still; the
-- event counts from 02-02 01:00 on: the hour of job 5 (02-05 08:00) reported
-- 16 CPUs × 3,600 s = 57,600 and allocated job 5's 8 CPUs × 3,600 s = 28,800.
SELECT cluster, allocated, idle, reported FROM sreport_cluster_utilization('2024-01-01 00:00+00', '2024-02-01 00:00+00', cluster => 'hx');
SELECT period_start, reported_secs, alloc_secs FROM cluster_usage_hourly
 WHERE cluster = 'hx' AND tres = 'cpu' AND period_start = '2024-02-05 08:00+00';
-- The runs started before the pinned checkpoint can no longer change.
SELECT err($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
             VALUES ('hx', '11', 'ann', 'a', 'p', 'COMPLETED', '2024-01-10 08:00+00', '2024-01-10 08:00+00', '2024-01-10 09:00+00', 1)$$);  -- 55000
-- A month whose name a kept table holds is left in jobs_default (warning),
-- the others are made.
SELECT err($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
             VALUES ('hx', '12', 'ann', 'a', 'p', 'PENDING', '2024-01-10 08:00+00', 1)$$);
SET client_min_messages = warning;
CALL maintain_partitions();
SELECT job_id, tableoid::regclass FROM jobs WHERE job_id = '12';
DELETE FROM jobs WHERE job_id = '12';
DROP TABLE fairshare.jobs_p2024_01;
-- Time travel to before every pinned checkpoint no longer sees the
-- retained runs: as of 2024-01-25 November's and January's runs are gone,
-- and no checkpoint holds them as of then.  As of 2024-02-15 ann had run
-- 10 (November), 1 and 3 (January) and 5 (February), bob 2 (January) and
-- 9 (February): the pinned checkpoint of 2024-02-01 (the base of the
-- sparse one retention pinned) still holds the retained ones.
SELECT t.user_name, t.jobs AS jobs_before, u.jobs AS jobs_after
  FROM travel_jan t LEFT JOIN association_usage_at('2024-01-25 00:00+00') u ON u.cluster = 'hx' AND u.user_name = t.user_name
 ORDER BY 1;
SELECT t.user_name, t.jobs AS jobs_before, u.jobs AS jobs_after
  FROM travel t JOIN association_usage_at('2024-02-15 00:00+00') u ON u.cluster = 'hx' AND u.user_name = t.user_name
 ORDER BY 1;

-- ---------------------------------------------------------------------------
-- 4. The bounds of maintain_partitions (docs/history.md#maintain_partitions).
--    A run submitted before the earliest clusters.accounting_start
--    (default 2000-01-01) makes no partition: it stays in jobs_default and
--    a WARNING says so (1.2 made every month from the oldest run: one
--    Submit of 1900 made 1,527 partitions, after which every query of jobs
--    ran out of lock slots).  And one call makes at most 120 months, the
--    newest first; the older ones wait for the next call.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE parts_before AS SELECT relation FROM job_partitions();
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
VALUES ('hx', '1900', 'bob', 'a', 'p', 'PENDING', '1900-01-01 00:00+00', 1);
SET client_min_messages = warning;
CALL maintain_partitions();
RESET client_min_messages;
SELECT job_id, tableoid::regclass FROM jobs WHERE job_id = '1900';   -- jobs_default
SELECT count(*) AS partitions_made FROM job_partitions() WHERE relation NOT IN (SELECT relation FROM parts_before);  -- 0
-- A centre whose accounting began in 1980 says so; a run of January 1980
-- then needs every month from 1980-01 to the oldest partition, more than
-- 120 (44 years): one call makes the newest 120 or fewer (a month whose
-- name a kept table holds is skipped), 1980-01 waits in jobs_default.
-- (The WARNING names months counted from today: not shown.)
-- (The NOTICEs: hx's rollups before 2024-02-02 01:00 are final, since the
-- retention above; these runs' marks keep only the hours after.)
DELETE FROM jobs WHERE job_id = '1900';
UPDATE clusters SET accounting_start = '1980-01-01 00:00+00' WHERE cluster = 'hx';
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
VALUES ('hx', '1980', 'bob', 'a', 'p', 'PENDING', '1980-01-15 00:00+00', 1);
SET client_min_messages = error;
CALL maintain_partitions();
RESET client_min_messages;
SELECT count(*) BETWEEN 1 AND 120 AS at_most_120, min(month_start) > '1980-01-01' AS january_1980_left
  FROM job_partitions() WHERE relation NOT IN (SELECT relation FROM parts_before);
SELECT job_id, tableoid::regclass FROM jobs WHERE job_id = '1980';   -- jobs_default

-- ---------------------------------------------------------------------------
-- 5. jobs_default's indexes after a move (docs/history.md#jobs_default).
--    20,000 runs of the month before the oldest partition wait in
--    jobs_default; maintain_partitions moves them into that month's new
--    partition and rebuilds jobs_default's indexes.  Each index of an empty
--    table is one page (its metapage, 8,192 bytes); before the rebuild a
--    DELETE left every entry in them.
-- ---------------------------------------------------------------------------
DELETE FROM jobs WHERE job_id = '1980';
SELECT count(*) AS left_in_default FROM ONLY jobs_default;   -- 0
SELECT (min(month_start) - interval '1 month')::date AS m FROM job_partitions() \gset
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
SELECT 'hx', 'd' || i, 'bob', 'a', 'p', 'PENDING', :'m'::timestamptz + i * interval '1 minute', 1
  FROM generate_series(1, 20000) i;
SELECT count(*) AS in_default FROM ONLY jobs_default;   -- 20,000
SELECT max(pg_relation_size(x.indexrelid)) > 8192 * 10 AS an_index_holds_them   -- e.g. the primary key
  FROM pg_index x WHERE x.indrelid = 'jobs_default'::regclass;
-- (the WARNINGs: the months 2023-11 and 2023-12 that section 3 kept)
SET client_min_messages = error;
CALL maintain_partitions();
RESET client_min_messages;
SELECT tableoid::regclass AS partition, count(*) FROM jobs WHERE job_id LIKE 'd%' GROUP BY 1;   -- 20,000 in the new month
SELECT count(*) AS indexes, max(pg_relation_size(x.indexrelid)) AS largest_bytes   -- 8192: a metapage each
  FROM pg_index x WHERE x.indrelid = 'jobs_default'::regclass;

\c :regress_db
DROP DATABASE regress_fs_history;
