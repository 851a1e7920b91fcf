-- import: sacct exports and PBS accounting logs into fairshare.jobs.
-- Fixtures in test/fixtures/ (slurm/ is a real Slurm 22.05 cluster's
-- accounting; pbs/ follows OpenPBS's record format).
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET intervalstyle = 'postgres';
\set SHOW_CONTEXT never

-- ===========================================================================
-- 1. The fixture cluster "oracle" from its slurm.conf and sacctmgr output
-- ===========================================================================
-- PriorityDecayHalfLife=0 (no decay), weights from slurm.conf.
INSERT INTO clusters (cluster, decay_half_life, weight_fairshare, weight_partition,
                      weight_age, weight_job_size, priority_max_age, total_nodes, total_cpus)
VALUES ('oracle', '0', 70000, 30000, 5000, 5000, '14 days', 1, 64);
-- PartitionName=... PriorityJobFactor, TRESBillingWeights; one 64-CPU node
-- with RealMemory=256000.
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor,
                        nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G',    100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G',    10, 1, 64, 256000);

-- The association tree from `sacctmgr show assoc tree -P` (assoc.psv):
-- account rows have no User, "parent" shares are Fairshare=parent (NULL).
CREATE TEMP TABLE assoc (cluster text, account text, user_name text, partition text,
                         share text, parent text, id int, lft int, rgt int, def_qos text, qos text);
\copy assoc FROM 'test/fixtures/slurm/assoc.psv' (FORMAT csv, DELIMITER '|', HEADER)
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT cluster, btrim(account), NULLIF(parent, ''), NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') = '' ORDER BY lft;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT cluster, btrim(account), user_name, NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') <> '';
SELECT account, parent_account, shares FROM accounts ORDER BY account;
SELECT account, user_name, shares FROM account_users ORDER BY account, user_name;

-- ===========================================================================
-- 2. Import the real export: 11 finished jobs, 13 pending, no step lines.
-- Its header has JobName and Priority (ignored) and no Cluster column.
-- ===========================================================================
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/sacct.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT count(*) AS staged FROM import_staging;
-- 25 lines = 1 header (skipped) + 24 jobs imported
SELECT * FROM import_sacct('oracle', 'UTC');
SELECT count(*) AS left_in_staging FROM import_staging;
SELECT job_id, user_name, account, partition, state, submit_time, start_time, end_time,
       tres, cpus, mem_mb, gpus, nodes
  FROM jobs WHERE cluster = 'oracle' ORDER BY job_id::int;

-- Billing rate of each finished job and its usage = billing × ElapsedRaw,
-- against the hand arithmetic with the partitions' weights (Mem per GiB):
--  1 big  8 CPU × 4.4 + 16 GiB × 0.3125 = 35.2 + 5      = 40.2  × 60 s = 2412
--  2 std  2 × 1.0     +  4 GiB × 0.5    = 2 + 2         = 4     × 30   = 120
--  3 std 16 × 1.0     + 32 × 0.5        = 16 + 16       = 32    × 90   = 2880
--  4 low  4 × 0.5     +  8 × 0.25       = 2 + 2         = 4     × 60   = 240
--  5 big  4 × 4.4     + 10 × 0.3125     = 17.6 + 3.125  = 20.725 × 45  = 932.625
--  6 std  1 × 1.0     + 1000/1024 × 0.5 = 1 + 0.48828125 = 1.48828125 × 20 = 29.765625
--  7 big 12 × 4.4     + 48 × 0.3125     = 52.8 + 15     = 67.8  × 75   = 5085
--  8 std  6 × 1.0     + 12 × 0.5        = 6 + 6         = 12    × 40   = 480
--  9 low  2 × 0.5     +  3 × 0.25       = 1 + 0.75      = 1.75  × 50   = 87.5
-- 10 std  3 × 1.0     +  6 × 0.5        = 3 + 3         = 6     × 30   = 180
-- 11 big  1 × 4.4     +  2 × 0.3125     = 4.4 + 0.625   = 5.025 × 20   = 100.5
WITH hand(job_id, billing, elapsed_raw, usage) AS (VALUES
  ('1', 40.2, 60, 2412), ('2', 4, 30, 120), ('3', 32, 90, 2880), ('4', 4, 60, 240),
  ('5', 20.725, 45, 932.625), ('6', 1.48828125, 20, 29.765625), ('7', 67.8, 75, 5085),
  ('8', 12, 40, 480), ('9', 1.75, 50, 87.5), ('10', 6, 30, 180), ('11', 5.025, 20, 100.5))
SELECT b.job_id, round(b.billing::numeric, 8) AS billing,
       extract(epoch FROM b.end_time - b.start_time) AS elapsed,
       round((b.billing * extract(epoch FROM b.end_time - b.start_time))::numeric, 6) AS usage,
       abs(b.billing - h.billing) < 1e-9 AND extract(epoch FROM b.end_time - b.start_time) = h.elapsed_raw
         AND abs(b.billing * h.elapsed_raw - h.usage) < 1e-9 AS as_by_hand
  FROM job_billing b JOIN hand h USING (job_id)
 WHERE b.cluster = 'oracle'
 ORDER BY b.job_id::int;

-- Usage per association (no decay: PriorityDecayHalfLife=0), as of the next
-- day.  carol has two associations (xlim 2880, ipam 240); judy
-- (Fairshare=parent) and every user without a finished job still have a row.
--   cistem/alice 2412, ingenomix/bob 120, ingenomix/ivan 0 (pending only),
--   xlim/carol 2880, xlim/dave 932.625, ipam/carol 240, ipam/erin 29.765625,
--   geist/frank 5085, geistlab/grace 480, geistlab/heidi 87.5,
--   shs/judy 180, shs/kate 100.5, root/root 0.
WITH hand(account, user_name, usage) AS (VALUES
  ('cistem', 'alice', 2412), ('ingenomix', 'bob', 120), ('ingenomix', 'ivan', 0),
  ('xlim', 'carol', 2880), ('xlim', 'dave', 932.625), ('ipam', 'carol', 240),
  ('ipam', 'erin', 29.765625), ('geist', 'frank', 5085), ('geistlab', 'grace', 480),
  ('geistlab', 'heidi', 87.5), ('shs', 'judy', 180), ('shs', 'kate', 100.5), ('root', 'root', 0))
SELECT u.account, u.user_name, round(u.raw_usage::numeric, 6) AS raw_usage, u.jobs,
       abs(u.raw_usage - h.usage) < 1e-9 AS as_by_hand
  FROM association_usage_at('2026-11-22 00:00+00') u
  LEFT JOIN hand h USING (account, user_name)
 WHERE u.cluster = 'oracle'
 ORDER BY u.account, u.user_name;
-- the total, 2412 + 120 + 2880 + 240 + 932.625 + 29.765625 + 5085 + 480
--          + 87.5 + 180 + 100.5 = 12547.390625
SELECT round(sum(raw_usage)::numeric, 6) AS total
  FROM association_usage_at('2026-11-22 00:00+00') WHERE cluster = 'oracle';
-- usage per account, rolled up the tree (unilim = geist + geistlab + ipam + shs + xlim)
WITH RECURSIVE up(account, ancestor) AS (
    SELECT account, account FROM accounts WHERE cluster = 'oracle'
  UNION ALL
    SELECT up.account, a.parent_account FROM up
      JOIN accounts a ON a.cluster = 'oracle' AND a.account = up.ancestor
     WHERE a.parent_account IS NOT NULL)
SELECT up.ancestor AS account, round(sum(u.raw_usage)::numeric, 6) AS usage
  FROM association_usage_at('2026-11-22 00:00+00') u
  JOIN up ON up.account = u.account
 WHERE u.cluster = 'oracle'
 GROUP BY up.ancestor ORDER BY up.ancestor;
-- partners = 2412 + 120 = 2532; unilim = 5085 + 480 + 87.5 + 240 + 29.765625
-- + 180 + 100.5 + 2880 + 932.625 = 10015.390625; root = 12547.390625

-- The same export again: every job unchanged.
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/sacct.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, folded, skipped, rejected FROM import_sacct('oracle', 'UTC');

-- ===========================================================================
-- 3. Steps, arrays, heterogeneous jobs, states, other columns in another order
-- ===========================================================================
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/steps.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
-- 21 lines: header + 11 jobs + 9 steps folded (100.batch, 100.extern, 100.0,
-- 101_1.batch, 101_2.batch, 104+0.batch, 104+1.extern, 107.batch, 109.batch)
SELECT lines_read, imported, updated, unchanged, folded, skipped, rejected FROM import_sacct(time_zone => 'UTC');
SELECT job_id, user_name, account, partition, state, start_time, end_time, time_limit,
       tres, cpus, mem_mb, gpus, nodes
  FROM jobs WHERE cluster = 'oracle' AND submit_time >= '2026-11-22' ORDER BY job_id;
-- 100 billed for its allocation, not its steps: 8 × 1.0 + 16 × 0.5 = 16 per s
-- × 600 s = 9600; 107 (running) counts up to as_of 14:10:30: 4 × 4.4 +
-- 32 × 0.3125 = 17.6 + 10 = 27.6 per s (gres/gpu has no weight) × 600 s = 16560
SELECT job_id, round(billing::numeric, 6) AS billing FROM job_billing
 WHERE cluster = 'oracle' AND job_id IN ('100', '107') ORDER BY job_id;
SELECT account, user_name, round(raw_usage::numeric, 6) AS raw_usage, jobs
  FROM association_usage_at('2026-11-22 14:10:30+00')
 WHERE cluster = 'oracle' AND user_name IN ('frank') ORDER BY 1, 2;
-- frank: 5085 (job 7) + 16560 (job 107 so far) = 21645

-- ===========================================================================
-- 4. Re-import: overlapping exports update instead of duplicating
-- ===========================================================================
-- first export: 200 pending, 201 running, array 202 pending as 202_[1-3]
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/reimport_1.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, removed, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, state, start_time, end_time, tres FROM jobs
 WHERE cluster = 'oracle' AND job_id ~ '^20[0-3]' ORDER BY job_id;
-- later export: 200 and 201 completed, 202_1 ran, 202_[2-3] still pending,
-- 203 new.  The stored 202_[1-3] is replaced by 202_[2-3] (removed 1).
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/reimport_2.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, removed, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, state, start_time, end_time, tres FROM jobs
 WHERE cluster = 'oracle' AND job_id ~ '^20[0-3]' ORDER BY job_id;
-- the older export loaded after the newer one changes no job: its lines are
-- older than the stored rows (200, 201 unchanged), and its remainder
-- 202_[1-3] is older than the stored task 202_1 (unchanged, nothing removed)
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/reimport_1.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, removed, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, state FROM jobs WHERE cluster = 'oracle' AND job_id ~ '^20[0-3]' ORDER BY job_id;
-- both exports in one load (concatenated): each job once, the later line wins
DELETE FROM jobs WHERE cluster = 'oracle' AND job_id ~ '^20[0-3]';
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/reimport_1.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
\copy import_staging (line) FROM 'test/fixtures/slurm/reimport_2.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
-- 12 lines: 2 headers skipped; folded: 2 steps, the older lines of 200 and
-- 201, and the older remainder 202_[1-3]; 5 jobs
SELECT lines_read, imported, updated, unchanged, folded, skipped, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, state FROM jobs WHERE cluster = 'oracle' AND job_id ~ '^20[0-3]' ORDER BY job_id;

-- ===========================================================================
-- 5. Malformed lines: each rejected with its line number and reason, the
-- good ones imported
-- ===========================================================================
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/malformed.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, folded, skipped, rejected FROM import_sacct('oracle', 'UTC');
SELECT line_no, job_id, sqlstate, reason FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no;
SELECT job_id, start_time FROM jobs WHERE cluster = 'oracle' AND job_id IN ('300', '317') ORDER BY 1;
-- the rejected line is kept whole
SELECT line FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports) AND line_no = 3;
-- so are lines rejected after parsing (unknown partition, the lone step)
SELECT line_no, line FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) AND line_no IN (15, 18) ORDER BY line_no;
SELECT count(*) AS without_text FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) AND line IS NULL;

-- the Cluster, NNodes and Timelimit columns
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/malformed_columns.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, rejected FROM import_sacct('oracle', 'UTC');
SELECT line_no, sqlstate, reason FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no;
SELECT job_id, time_limit, nodes, tres FROM jobs WHERE cluster = 'oracle' AND job_id IN ('400', '405', '406') ORDER BY 1;

-- all_or_nothing: the first bad line is the error, nothing is imported
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/malformed.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
DELETE FROM jobs WHERE cluster = 'oracle' AND job_id IN ('300', '317');
SELECT count(*) AS imports_before FROM imports \gset
SELECT * FROM import_sacct('oracle', 'UTC', all_or_nothing => true);
SELECT count(*) = :imports_before AS nothing_logged FROM imports;
SELECT count(*) AS jobs_300 FROM jobs WHERE cluster = 'oracle' AND job_id IN ('300', '317');

-- create_missing: the unknown partition, account and user are created
-- (partition shape: the job's 1 CPU and 1 GiB on 1 node, no weights)
SELECT lines_read, imported, rejected, created_accounts, created_users, created_partitions
  FROM import_sacct('oracle', 'UTC', create_missing => true);
SELECT partition, billing_weights, nodes, cores_per_node, mem_per_node_mb, gpus_per_node
  FROM partitions WHERE cluster = 'oracle' AND partition = 'gpu';
SELECT account, parent_account, shares FROM accounts WHERE cluster = 'oracle' AND account = 'nosuch';
SELECT account, user_name, shares FROM account_users
 WHERE cluster = 'oracle' AND (account, user_name) IN (('nosuch', 'alice'), ('cistem', 'mallory')) ORDER BY 1, 2;
-- what is still rejected is what cannot be created
SELECT line_no, sqlstate FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no;

-- ===========================================================================
-- 6. Time zones: sacct prints local times; the stated zone reads them
-- ===========================================================================
CREATE TEMP TABLE tz_export (line_no bigint GENERATED ALWAYS AS IDENTITY, line text);
INSERT INTO tz_export (line) VALUES
  ('JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State'),
  -- 2026-03-29 02:00 local does not exist in Paris (clocks go to 03:00)
  ('500|alice|cistem|std|cpu=1,mem=1G|2026-03-29T01:30:00|2026-03-29T01:59:00|2026-03-29T03:01:00|COMPLETED'),
  ('501|alice|cistem|std|cpu=1,mem=1G|2026-07-01T12:00:00|2026-07-01T12:00:00|2026-07-01T13:00:00|COMPLETED'),
  ('502|alice|cistem|std|cpu=1,mem=1G|2026-12-01T12:00:00|2026-12-01T12:00:00|2026-12-01T13:00:00|COMPLETED');
SELECT lines_read, imported, rejected FROM import_sacct('oracle', 'Europe/Paris', staging => 'tz_export');
-- 01:59 CET = 00:59 UTC and 03:01 CEST = 01:01 UTC: the job ran 2 minutes
SELECT job_id, start_time, end_time, end_time - start_time AS ran FROM jobs
 WHERE cluster = 'oracle' AND job_id IN ('500', '501', '502') ORDER BY job_id;
-- the same as PostgreSQL's own AT TIME ZONE
SELECT bool_and(j.start_time = t.local::timestamp AT TIME ZONE 'Europe/Paris') AS same
  FROM jobs j JOIN (VALUES ('500', '2026-03-29 01:59:00'), ('501', '2026-07-01 12:00:00'),
                           ('502', '2026-12-01 12:00:00')) t(job_id, local) USING (job_id)
 WHERE j.cluster = 'oracle';
-- with no time_zone argument the cluster's clusters.timezone is used
UPDATE clusters SET timezone = 'America/New_York' WHERE cluster = 'oracle';
DELETE FROM jobs WHERE cluster = 'oracle' AND job_id IN ('500', '501', '502');
INSERT INTO tz_export (line) VALUES
  ('JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State'),
  ('501|alice|cistem|std|cpu=1,mem=1G|2026-07-01T12:00:00|2026-07-01T12:00:00|2026-07-01T13:00:00|COMPLETED');
SELECT lines_read, imported FROM import_sacct('oracle', staging => 'tz_export');
SELECT job_id, start_time FROM jobs WHERE cluster = 'oracle' AND job_id = '501';
UPDATE clusters SET timezone = 'UTC' WHERE cluster = 'oracle';

-- ===========================================================================
-- 7. PBS accounting logs
-- ===========================================================================
INSERT INTO clusters (cluster, scheduler, decay_half_life) VALUES ('hydra', 'pbs', '0');
INSERT INTO partitions (cluster, partition, billing_weights, nodes, cores_per_node, mem_per_node_mb, gpus_per_node) VALUES
  ('hydra', 'workq', 'CPU=1.0,Mem=0.25G', 8, 64, 262144, 0),
  ('hydra', 'gpu', 'CPU=1.0,Mem=0.25G,GRES/gpu=10', 2, 16, 131072, 1);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('hydra', 'root', NULL, 1), ('hydra', 'chem', 'root', 60), ('hydra', 'phys', 'root', 40);
INSERT INTO account_users (cluster, account, user_name) VALUES
  ('hydra', 'chem', 'alice'), ('hydra', 'chem', 'carol'), ('hydra', 'chem', 'frank'),
  ('hydra', 'phys', 'bob'), ('hydra', 'phys', 'dave'), ('hydra', 'phys', 'erin');

SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/pbs/20261121' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
-- 33 records: L and a skipped, the array parent's Q and E skipped; the other
-- 29 records fold into 12 runs of 11 jobs (1001..1005, 1006[1], 1006[2],
-- 1007..1010; 1005 ran twice: its R record at 10:40 ends the first run,
-- REQUEUED, and the second is submitted then, as slurmdbd keeps a requeue)
SELECT lines_read, imported, updated, unchanged, folded, skipped, rejected
  FROM import_pbs('hydra', 'Europe/Paris');
SELECT job_id, user_name, account, partition, state, submit_time, start_time, end_time,
       time_limit, tres, cpus, mem_mb, gpus, nodes, exclusive
  FROM jobs WHERE cluster = 'hydra' ORDER BY job_id, submit_time;
-- the next day's log: 1007 ends
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/pbs/20261122' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged FROM import_pbs('hydra', 'Europe/Paris');
SELECT job_id, state, start_time, end_time FROM jobs WHERE cluster = 'hydra' AND job_id = '1007.pbs01';
-- billing (workq CPU=1.0,Mem=0.25G; gpu adds GRES/gpu=10) × (end − start):
-- 1001:  8 + 16 × 0.25 = 12   × 1200 s (09:00:10-09:20:10)    = 14400
-- 1002:  4 +  8 × 0.25 = 6    × 1800 s (cancelled at 09:35:05) = 10800
-- 1003: never started                                          = 0
-- 1004:  1 +  1 × 0.25 = 1.25 × 602 s                          = 752.5
-- 1005:  2 +  4 × 0.25 = 3    × (600 s (first run 10:30-10:40, rerun)
--                               + 1800 s (second run 10:45-11:15)) = 7200
-- 1006[1]: 1.25 × 60 = 75;  1006[2]: 1.25 × 200 = 250
-- 1007: 16 + 64 × 0.25 = 32   × 7200 s (23:30-01:30)           = 230400
-- 1008: pending                                                = 0
-- 1009: 32 + 128 × 0.25 + 2 × 10 = 84 × 1800 s                 = 151200
-- 1010:  4 +  4 × 0.25 = 5    × 300 s                          = 1500
-- alice 14400 + 7200 = 21600; bob 10800 + 75 + 250 = 11125; carol 230400;
-- dave 752.5; erin 151200; frank 1500
SELECT account, user_name, round(raw_usage::numeric, 6) AS raw_usage, jobs
  FROM association_usage_at('2026-11-23 00:00+00') WHERE cluster = 'hydra' ORDER BY 1, 2;
-- re-reading the first day changes nothing (1007 stays COMPLETED: the S
-- record is older than the stored end)
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/pbs/20261121' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged FROM import_pbs('hydra', 'Europe/Paris');
SELECT job_id, state FROM jobs WHERE cluster = 'hydra' AND job_id = '1007.pbs01';
-- account_from => 'group': the jobs' group "users" is not an account of hydra
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/pbs/20261122' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, rejected FROM import_pbs('hydra', 'Europe/Paris', account_from => 'group');
SELECT line_no, sqlstate, reason FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no;

-- malformed records
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/pbs/malformed' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, skipped, rejected FROM import_pbs('hydra', 'Europe/Paris');
SELECT line_no, job_id, sqlstate, reason FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no;
SELECT job_id, state, start_time, end_time FROM jobs WHERE cluster = 'hydra' AND job_id = '2001.pbs01';

-- sizes of 2^63 bytes and more: "not a size".  The digits were read with
-- a signed overflow (undefined behaviour; found by test/fuzz/fuzz_import_pbs)
-- that wrapped to a negative size.  2^63 − 1 bytes still is one:
-- ⌈(2^63 − 1) / 2^20⌉ MiB = 2^43 = 8796093022208.
SELECT kind, sqlstate, reason FROM fairshare_internal._pbs_record('11/21/2026 09:00:00;Q;3001.pbs01;user=alice queue=workq ctime=1795248000 Resource_List.mem=9223372036854775809b', 'UTC');
SELECT kind, sqlstate, reason FROM fairshare_internal._pbs_record('11/21/2026 09:00:00;Q;3001.pbs01;user=alice queue=workq ctime=1795248000 Resource_List.mem=92233720368547758070kb', 'UTC');
SELECT kind, mem_mb FROM fairshare_internal._pbs_record('11/21/2026 09:00:00;Q;3001.pbs01;user=alice queue=workq ctime=1795248000 Resource_List.mem=9223372036854775807b', 'UTC');

-- the import log
SELECT import_id, source, cluster, time_zone, lines_read, imported, updated, unchanged,
       removed, folded, skipped, rejected
  FROM imports ORDER BY import_id;

-- a bad value quoted into the reason is cut at 80 bytes between two
-- characters: 79 digits then é (2 bytes, the 80th and 81st) are cut before
-- é, so the reason stays valid UTF-8 (cut at byte 80, it held half of é)
SELECT import_stage();
INSERT INTO import_staging (line) VALUES (repeat('1', 79) || 'é' || repeat('2', 10) || ';E;3001.pbs01;user=alice');
SELECT lines_read, rejected FROM import_pbs('hydra', 'Europe/Paris');
SELECT sqlstate, reason, octet_length(reason) AS bytes, reason = convert_from(convert_to(reason, 'UTF8'), 'UTF8') AS valid_text
  FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports);
