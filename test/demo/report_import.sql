-- Demo: importing a scheduler's accounting (docs/import.md).  Runs after
-- test/demo/centre.sql; adds two clusters of its own, "oracle" (the real
-- Slurm 22.05 export in test/fixtures/slurm/) and "hydra" (PBS records in
-- test/fixtures/pbs/), and prints what the imports did.
\set QUIET 1
\pset pager off
SET search_path = fairshare, public;
SET timezone = 'UTC';

-- oracle as its slurm.conf describes it, and its association tree from
-- `sacctmgr show assoc tree -P`
INSERT INTO clusters (cluster, decay_half_life, weight_fairshare, weight_partition, weight_age,
                      weight_job_size, priority_max_age, description)
VALUES ('oracle', '0', 70000, 30000, 5000, 5000, '14 days', 'Slurm 22.05 fixture (test/fixtures/slurm)');
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
       ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
       ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000);
CREATE TEMP TABLE demo_assoc (cluster text, account text, user_name text, partition text, share text,
                              parent text, id int, lft int, rgt int, def_qos text, qos text);
\copy demo_assoc FROM 'test/fixtures/slurm/assoc.psv' (FORMAT csv, DELIMITER '|', HEADER)
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT cluster, btrim(account), NULLIF(parent, ''), NULLIF(share, 'parent')::int
  FROM demo_assoc WHERE COALESCE(user_name, '') = '' ORDER BY lft;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT cluster, btrim(account), user_name, NULLIF(share, 'parent')::int
  FROM demo_assoc WHERE COALESCE(user_name, '') <> '';

\echo
\echo == import_sacct: the oracle export (sacct -a -P), read in UTC
SELECT import_stage() \gset
\copy import_staging (line) FROM 'test/fixtures/slurm/sacct.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT lines_read, imported, updated, unchanged, folded, skipped, rejected FROM import_sacct('oracle', 'UTC');

\echo == the same export again: nothing changes
SELECT import_stage() \gset
\copy import_staging (line) FROM 'test/fixtures/slurm/sacct.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT lines_read, imported, updated, unchanged FROM import_sacct('oracle', 'UTC');

\echo == oracle: usage per association (billing x elapsed, slurm.conf weights, no decay)
SELECT account, user_name, round(raw_usage::numeric, 3) AS raw_usage, jobs
  FROM association_usage_at('2026-11-22 00:00+00') WHERE cluster = 'oracle'
 ORDER BY raw_usage DESC, account, user_name;

\echo == steps, arrays, heterogeneous jobs: one row per job
SELECT import_stage() \gset
\copy import_staging (line) FROM 'test/fixtures/slurm/steps.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT lines_read, imported, folded, skipped, rejected FROM import_sacct(time_zone => 'UTC');
SELECT job_id, user_name, state, partition, tres FROM jobs
 WHERE cluster = 'oracle' AND submit_time >= '2026-11-22' ORDER BY job_id;

\echo == a malformed export: the good lines in, each bad one with its line and reason
SELECT import_stage() \gset
\copy import_staging (line) FROM 'test/fixtures/slurm/malformed.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT lines_read, imported, skipped, rejected FROM import_sacct('oracle', 'UTC');
SELECT line_no, sqlstate, left(reason, 90) AS reason
  FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports)
 ORDER BY line_no LIMIT 12;

\echo == import_pbs: two days of PBS accounting logs for "hydra", whose accounts, users
\echo == and queues do not exist yet (create_missing)
INSERT INTO clusters (cluster, scheduler, timezone, description)
VALUES ('hydra', 'pbs', 'Europe/Paris', 'PBS fixture (test/fixtures/pbs)');
SELECT import_stage() \gset
\copy import_staging (line) FROM 'test/fixtures/pbs/20261121' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT lines_read, imported, folded, skipped, rejected, created_accounts, created_users, created_partitions
  FROM import_pbs('hydra', create_missing => true);
SELECT import_stage() \gset
\copy import_staging (line) FROM 'test/fixtures/pbs/20261122' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT lines_read, imported, updated FROM import_pbs('hydra', create_missing => true);
SELECT job_id, user_name, account, partition, state, start_time, end_time, tres
  FROM jobs WHERE cluster = 'hydra' ORDER BY job_id;
\echo == hydra: partitions as created (smallest shape fitting the jobs, no billing weights)
SELECT partition, nodes, cores_per_node, mem_per_node_mb, gpus_per_node, billing_weights
  FROM partitions WHERE cluster = 'hydra' ORDER BY partition;

\echo == the import log
SELECT import_id, source, cluster, time_zone, lines_read, imported, updated, unchanged, folded, rejected
  FROM imports ORDER BY import_id;
