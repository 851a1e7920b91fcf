-- efficiency: seff per run and roll-ups per user and account, from the
-- TotalCPU, MaxRSS, ReqMem and ReqTRES of a sacct export
-- (test/fixtures/slurm/efficiency/sacct.psv, written by hand: the capture
-- cluster runs jobacct_gather/none, which records no step usage).
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;
-- the suites share a database: the numbering of imports is put back at the end
SELECT last_value AS imports_last, is_called AS imports_called
  FROM fairshare.imports_import_id_seq \gset
INSERT INTO clusters (cluster) VALUES ('eff');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('eff', 'p', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account) VALUES ('eff', 'root', NULL), ('eff', 'a', 'root'), ('eff', 'b', 'root');
INSERT INTO account_users (cluster, account, user_name) VALUES ('eff', 'a', 'u1'), ('eff', 'b', 'u2');

SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/efficiency/sacct.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
-- before import_sacct, which empties the staging table
SELECT import_sacct_efficiency('eff', 'UTC');
SELECT imported, folded, rejected FROM import_sacct('eff', 'UTC');
SELECT job_id, submit_time, user_name, account, total_cpu_secs, max_rss_mb, req_mem_mb, energy_joules, gpu_util_percent
  FROM job_efficiency WHERE cluster = 'eff' ORDER BY job_id;

-- Job 10: 4 CPUs x 3600 s = 14400 core-seconds, TotalCPU 7200 -> 0.5;
--   MaxRSS the larger of its steps, 1048576K = 1024 MiB and 2G = 2048 MiB,
--   of 8G = 8192 MiB -> 0.25; wasted (14400 - 7200) / 3600 = 2 core-hours
-- Job 11: 2 CPUs x 1800 s = 3600, TotalCPU 600 -> 0.1667 (under 25 %);
--   ReqMem 1000Mc is per CPU: 2000 MiB, MaxRSS 500 -> 0.25; wasted 3000 s
--   = 0.8333 core-hours
-- Job 12: 1 CPU x 600 s, TotalCPU 540 -> 0.9; 1536 of 2048 MiB -> 0.75;
--   wasted 60 s = 0.0167; GPU utilisation 80 (gres/gpuutil of its step)
SELECT job_id, user_name, cpus, elapsed_secs, round(cpu_efficiency::numeric, 4) AS cpu_eff,
       round(mem_efficiency::numeric, 4) AS mem_eff, round(core_hours_wasted::numeric, 4) AS wasted, gpu_util_percent
  FROM job_seff WHERE cluster = 'eff' ORDER BY job_id;
-- u1: 2 runs, (14400 + 3600) / 3600 = 5 core-hours, 2 + 0.8333 wasted,
-- 1 of 2 under 25 %; u2: 1 run, 600 / 3600 = 0.1667, none under 25 %
SELECT account, user_name, jobs, round(core_hours::numeric, 4) AS core_hours,
       round(core_hours_wasted::numeric, 4) AS wasted, share_under_25_percent
  FROM efficiency_by_user WHERE cluster = 'eff' ORDER BY 1, 2;
SELECT account, jobs, round(core_hours::numeric, 4) AS core_hours, share_under_25_percent
  FROM efficiency_by_account WHERE cluster = 'eff' ORDER BY 1;

-- an export without those columns reads nothing here and imports as before
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|Submit|Start|End|State|AllocTRES'),
  ('13|u2|b|p|2026-03-02T11:00:00|2026-03-02T11:00:00|2026-03-02T11:05:00|COMPLETED|cpu=1');
SELECT import_sacct_efficiency('eff', 'UTC');
SELECT imported, rejected FROM import_sacct('eff', 'UTC');

-- bad input
\set VERBOSITY default
\set SHOW_CONTEXT never
-- a header naming a column read here twice: a WARNING, nothing read (bad
-- lines: sql/bad_input.sql, defect 9)
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|Submit|TotalCPU|TotalCPU'), ('14|2026-03-02T11:00:00|00:01:00|00:02:00');
SELECT import_sacct_efficiency('eff', 'UTC');
SELECT fairshare_internal._sacct_duration('3 hours');
SELECT fairshare_internal._sacct_size_mb('lots');
SELECT import_sacct_efficiency('nowhere', 'UTC');

-- the suites share a database: leave nothing behind
\set VERBOSITY terse
DELETE FROM job_efficiency WHERE cluster = 'eff';
DELETE FROM jobs WHERE cluster = 'eff';
DELETE FROM imports WHERE cluster = 'eff';
DELETE FROM clusters WHERE cluster = 'eff';
SELECT setval('fairshare.imports_import_id_seq', :imports_last, :'imports_called'::boolean) IS NOT NULL AS numbering_restored;
