-- runs: job identity as slurmdbd keeps it.  One row per run,
-- keyed (cluster, job_id, submit_time): job ids wrap and are reused, each
-- run of a requeued job is its own row, suspended time is kept and charged.
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET intervalstyle = 'postgres';
\set SHOW_CONTEXT never

-- No decay (PriorityDecayHalfLife=0): raw usage = Σ billing × (End − Start).
-- No billing weights: a job bills its CPUs.
INSERT INTO clusters (cluster, decay_half_life) VALUES ('h', '0');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('h', 'p', 64, 256000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('h', 'root', NULL, 1), ('h', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('h', 'a', 'alice'), ('h', 'a', 'bob');

CREATE TEMP TABLE export (line text);
CREATE FUNCTION pg_temp.import(lines text[]) RETURNS TABLE (imported bigint, updated bigint, unchanged bigint, rejected bigint)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM fairshare.import_stage();
    INSERT INTO import_staging (line)
    SELECT 'JobID|User|Account|Partition|AllocCPUS|Submit|Eligible|Start|End|State|Timelimit|Suspended'
    UNION ALL SELECT unnest(lines);
    RETURN QUERY SELECT i.imported, i.updated, i.unchanged, i.rejected FROM fairshare.import_sacct('h', 'UTC') i;
END
$$;
CREATE FUNCTION pg_temp.usage() RETURNS TABLE (user_name text, raw_usage float8, jobs bigint)
LANGUAGE sql AS $$
    SELECT u.user_name, u.raw_usage, u.jobs FROM fairshare.association_usage_at('2026-03-02 00:00+00') u
     WHERE u.cluster = 'h' ORDER BY 1
$$;

-- ===========================================================================
-- 1. sacct -a -P --duplicates: every run
-- ===========================================================================
-- job 1: 4 CPUs, ran 10:00-10:30, requeued (its End is the requeue), its
--        second run submitted at the requeue 10:30, eligible 2 minutes
--        later, ran 10:32-11:02: 4 × 1800 + 4 × 1800 = 14400
-- job 2: 2 CPUs, 10:00-11:00, suspended 20 minutes of it: charged for the
--        whole hour as slurmctld charges it, 2 × 3600 = 7200
-- job 3 (alice, 1 CPU, 09:00-09:10): 600; then the id wrapped and bob's
-- job 3 (8 CPUs, 12:00-12:05): 8 × 300 = 2400
-- alice: 14400 + 7200 + 600 = 22200; bob: 2400
SELECT * FROM pg_temp.import(ARRAY[
  '1|alice|a|p|4|2026-03-01T09:59:00|2026-03-01T09:59:00|2026-03-01T10:00:00|2026-03-01T10:30:00|REQUEUED|01:00:00|00:00:00',
  '1|alice|a|p|4|2026-03-01T10:30:00|2026-03-01T10:32:00|2026-03-01T10:32:00|2026-03-01T11:02:00|COMPLETED|01:00:00|00:00:00',
  '2|alice|a|p|2|2026-03-01T09:59:00|2026-03-01T09:59:00|2026-03-01T10:00:00|2026-03-01T11:00:00|COMPLETED|02:00:00|00:20:00',
  '3|alice|a|p|1|2026-03-01T08:59:00|2026-03-01T08:59:00|2026-03-01T09:00:00|2026-03-01T09:10:00|COMPLETED|01:00:00|00:00:00',
  '3|bob|a|p|8|2026-03-01T11:59:00|2026-03-01T11:59:00|2026-03-01T12:00:00|2026-03-01T12:05:00|COMPLETED|01:00:00|00:00:00']);
SELECT job_id, submit_time, user_name, state, start_time, end_time, cpus, suspended
  FROM jobs WHERE cluster = 'h' ORDER BY job_id, submit_time;
SELECT * FROM pg_temp.usage();
-- nothing to warn about: every run of every id is in the export
SELECT count(*) AS warnings FROM import_warnings;

-- The same file again changes nothing.
SELECT * FROM pg_temp.import(ARRAY[
  '1|alice|a|p|4|2026-03-01T09:59:00|2026-03-01T09:59:00|2026-03-01T10:00:00|2026-03-01T10:30:00|REQUEUED|01:00:00|00:00:00',
  '1|alice|a|p|4|2026-03-01T10:30:00|2026-03-01T10:32:00|2026-03-01T10:32:00|2026-03-01T11:02:00|COMPLETED|01:00:00|00:00:00',
  '2|alice|a|p|2|2026-03-01T09:59:00|2026-03-01T09:59:00|2026-03-01T10:00:00|2026-03-01T11:00:00|COMPLETED|02:00:00|00:20:00',
  '3|alice|a|p|1|2026-03-01T08:59:00|2026-03-01T08:59:00|2026-03-01T09:00:00|2026-03-01T09:10:00|COMPLETED|01:00:00|00:00:00',
  '3|bob|a|p|8|2026-03-01T11:59:00|2026-03-01T11:59:00|2026-03-01T12:00:00|2026-03-01T12:05:00|COMPLETED|01:00:00|00:00:00']);
SELECT count(*) AS runs FROM jobs WHERE cluster = 'h';

-- A later export that adds a run adds exactly that run: job 1 requeued
-- again is a third run (submitted 11:02, ran 11:10-11:20, 4 × 600 = 2400).
-- Its second run's line now says REQUEUED: an update of that run.
SELECT * FROM pg_temp.import(ARRAY[
  '1|alice|a|p|4|2026-03-01T09:59:00|2026-03-01T09:59:00|2026-03-01T10:00:00|2026-03-01T10:30:00|REQUEUED|01:00:00|00:00:00',
  '1|alice|a|p|4|2026-03-01T10:30:00|2026-03-01T10:32:00|2026-03-01T10:32:00|2026-03-01T11:02:00|REQUEUED|01:00:00|00:00:00',
  '1|alice|a|p|4|2026-03-01T11:02:00|2026-03-01T11:04:00|2026-03-01T11:10:00|2026-03-01T11:20:00|COMPLETED|01:00:00|00:00:00']);
SELECT job_id, submit_time, state, start_time, end_time FROM jobs
 WHERE cluster = 'h' AND job_id = '1' ORDER BY submit_time;
-- alice: 22200 + 2400 = 24600
SELECT * FROM pg_temp.usage();

-- ===========================================================================
-- 2. sacct without --duplicates: only the newest run of an id
-- ===========================================================================
-- job 4 is running (run 1, submitted 13:00, started 13:00) at the first
-- export; it is requeued at 13:20 and its second run ends at 13:50.  The
-- second export, without --duplicates, prints only run 2.  Run 1 would stay
-- RUNNING and be charged up to every report's instant: it is closed at
-- run 2's Submit (the requeue instant), REQUEUED, and the import says so.
SELECT * FROM pg_temp.import(ARRAY[
  '4|bob|a|p|2|2026-03-01T13:00:00|2026-03-01T13:00:00|2026-03-01T13:00:00|Unknown|RUNNING|01:00:00|00:00:00']);
SELECT * FROM pg_temp.import(ARRAY[
  '4|bob|a|p|2|2026-03-01T13:20:00|2026-03-01T13:22:00|2026-03-01T13:22:00|2026-03-01T13:50:00|COMPLETED|01:00:00|00:00:00']);
SELECT job_id, submit_time, state, start_time, end_time FROM jobs
 WHERE cluster = 'h' AND job_id = '4' ORDER BY submit_time;
SELECT line_no, job_id, warning FROM import_warnings
 WHERE import_id = (SELECT max(import_id) FROM imports);
-- bob: 2400 + 2 × 1200 (13:00-13:20) + 2 × 1680 (13:22-13:50) = 8160
SELECT * FROM pg_temp.usage();
-- The --duplicates export of the same instant brings run 1's own line,
-- whose End is that same requeue instant: nothing changes.
SELECT * FROM pg_temp.import(ARRAY[
  '4|bob|a|p|2|2026-03-01T13:00:00|2026-03-01T13:00:00|2026-03-01T13:00:00|2026-03-01T13:20:00|REQUEUED|01:00:00|00:00:00',
  '4|bob|a|p|2|2026-03-01T13:20:00|2026-03-01T13:22:00|2026-03-01T13:22:00|2026-03-01T13:50:00|COMPLETED|01:00:00|00:00:00']);

-- A stored run of another user left open: alice's job 11 was running at
-- the last export; the id has since been reused by bob (submitted 16:00).
-- Alice's run ended by 16:00 at the latest: closed then, CANCELLED (not a
-- requeue: another user), and noted.  alice: 1 CPU 15:00-16:00 = 3600 more.
SELECT * FROM pg_temp.import(ARRAY[
  '11|alice|a|p|1|2026-03-01T15:00:00|2026-03-01T15:00:00|2026-03-01T15:00:00|Unknown|RUNNING|01:00:00|00:00:00']);
SELECT * FROM pg_temp.import(ARRAY[
  '11|bob|a|p|1|2026-03-01T16:00:00|2026-03-01T16:00:00|2026-03-01T16:00:00|2026-03-01T16:10:00|COMPLETED|01:00:00|00:00:00']);
SELECT job_id, submit_time, user_name, state, start_time, end_time FROM jobs
 WHERE cluster = 'h' AND job_id = '11' ORDER BY submit_time;
SELECT line_no, job_id, warning FROM import_warnings
 WHERE import_id = (SELECT max(import_id) FROM imports);

-- A reused id without --duplicates: bob's job 3 is stored; alice's new job
-- 3 (another submit time) is another job, kept beside it, and noted.  The
-- import looks for other runs of an id among the runs still open and those
-- that ended after the export's earliest start (here 12:00, job 10): bob's
-- job 3 ended at 12:05.
SELECT * FROM pg_temp.import(ARRAY[
  '10|alice|a|p|1|2026-03-01T12:00:00|2026-03-01T12:00:00|2026-03-01T12:00:00|2026-03-01T12:01:00|COMPLETED|01:00:00|00:00:00',
  '3|alice|a|p|1|2026-03-01T14:00:00|2026-03-01T14:00:00|2026-03-01T14:00:00|2026-03-01T14:01:00|COMPLETED|01:00:00|00:00:00']);
SELECT job_id, submit_time, user_name FROM jobs WHERE cluster = 'h' AND job_id = '3' ORDER BY submit_time;
SELECT line_no, job_id, warning FROM import_warnings
 WHERE import_id = (SELECT max(import_id) FROM imports);

-- Same id, same submit time, other content: an update of that run, not a
-- second job (job 2's CPU count corrected from 2 to 3).
SELECT * FROM pg_temp.import(ARRAY[
  '2|alice|a|p|3|2026-03-01T09:59:00|2026-03-01T09:59:00|2026-03-01T10:00:00|2026-03-01T11:00:00|COMPLETED|02:00:00|00:20:00']);
SELECT job_id, submit_time, cpus FROM jobs WHERE cluster = 'h' AND job_id = '2';

-- ===========================================================================
-- 3. Bad input: each a rejected line with its reason, the rest imported
-- ===========================================================================
-- line 2: a run of job 1 that overlaps its first run (10:00-10:30)
-- line 3: suspended 2 hours of a 1-hour run
-- line 4: COMPLETED with End=Unknown (it was charged as
--         running for ever)
-- line 5: a good job
-- line 6 and 7: two runs of job 8 in the export that overlap: the later
--         submitted is rejected
SELECT * FROM pg_temp.import(ARRAY[
  '1|alice|a|p|4|2026-03-01T10:10:00|2026-03-01T10:10:00|2026-03-01T10:15:00|2026-03-01T10:45:00|COMPLETED|01:00:00|00:00:00',
  '6|alice|a|p|1|2026-03-01T15:00:00|2026-03-01T15:00:00|2026-03-01T15:00:00|2026-03-01T16:00:00|COMPLETED|03:00:00|02:00:00',
  '7|alice|a|p|1|2026-03-01T15:00:00|2026-03-01T15:00:00|2026-03-01T15:00:00|Unknown|COMPLETED|03:00:00|00:00:00',
  '5|bob|a|p|1|2026-03-01T15:00:00|2026-03-01T15:00:00|2026-03-01T15:00:00|2026-03-01T15:10:00|COMPLETED|03:00:00|00:00:00',
  '8|bob|a|p|1|2026-03-01T16:00:00|2026-03-01T16:00:00|2026-03-01T16:00:00|2026-03-01T16:30:00|COMPLETED|03:00:00|00:00:00',
  '8|bob|a|p|1|2026-03-01T16:10:00|2026-03-01T16:10:00|2026-03-01T16:20:00|2026-03-01T16:40:00|COMPLETED|03:00:00|00:00:00']);
SELECT line_no, job_id, sqlstate, reason FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no;
SELECT job_id, submit_time FROM jobs WHERE cluster = 'h' AND job_id IN ('5', '8') ORDER BY 1, 2;

-- The table refuses the same rows from any writer.
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, cpus)
VALUES ('h', '9', 'alice', 'a', 'p', 'COMPLETED', '2026-03-01 15:00+00', '2026-03-01 15:00+00', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, suspended)
VALUES ('h', '9', 'alice', 'a', 'p', 'COMPLETED', '2026-03-01 15:00+00', '2026-03-01 15:00+00', '2026-03-01 15:30+00', 1, '00:31');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, suspended)
VALUES ('h', '9', 'alice', 'a', 'p', 'COMPLETED', '2026-03-01 15:00+00', '2026-03-01 15:00+00', '2026-03-01 15:30+00', 1, '-00:01');
-- Two runs of one id, same submit time: the key refuses the second.
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('h', '5', 'bob', 'a', 'p', 'COMPLETED', '2026-03-01 15:00+00', '2026-03-01 17:00+00', '2026-03-01 17:30+00', 1);

-- all_or_nothing: an overlapping run fails the whole import
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|Submit|Eligible|Start|End|State|Timelimit|Suspended'),
  ('1|alice|a|p|4|2026-03-01T10:10:00|2026-03-01T10:10:00|2026-03-01T10:15:00|2026-03-01T10:45:00|COMPLETED|01:00:00|00:00:00');
SELECT * FROM import_sacct('h', 'UTC', all_or_nothing => true);

-- ReservationId: the reservation a run ran in (resv_id; empty or 0: none,
-- NULL); a value that is not a whole number rejects its line.  A later
-- export that gives the run another one updates it.
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|Submit|Eligible|Start|End|State|Timelimit|Suspended|ReservationId'),
  ('71|alice|a|p|1|2026-03-02T10:00:00|2026-03-02T10:00:00|2026-03-02T10:05:00|2026-03-02T10:35:00|COMPLETED|01:00:00|00:00:00|7'),
  ('72|alice|a|p|1|2026-03-02T10:00:00|2026-03-02T10:00:00|2026-03-02T10:05:00|2026-03-02T10:35:00|COMPLETED|01:00:00|00:00:00|'),
  ('73|alice|a|p|1|2026-03-02T10:00:00|2026-03-02T10:00:00|2026-03-02T10:05:00|2026-03-02T10:35:00|COMPLETED|01:00:00|00:00:00|0'),
  ('74|alice|a|p|1|2026-03-02T10:00:00|2026-03-02T10:00:00|2026-03-02T10:05:00|2026-03-02T10:35:00|COMPLETED|01:00:00|00:00:00|r_chem');
SELECT imported, rejected FROM import_sacct('h', 'UTC');
SELECT line_no, sqlstate, reason FROM import_rejects
 WHERE import_id = (SELECT max(import_id) FROM imports WHERE cluster = 'h');
SELECT job_id, resv_id FROM jobs WHERE cluster = 'h' AND job_id IN ('71', '72', '73', '74') ORDER BY job_id;
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|Submit|Eligible|Start|End|State|Timelimit|Suspended|ReservationId'),
  ('71|alice|a|p|1|2026-03-02T10:00:00|2026-03-02T10:00:00|2026-03-02T10:05:00|2026-03-02T10:35:00|COMPLETED|01:00:00|00:00:00|8');
SELECT imported, updated, unchanged FROM import_sacct('h', 'UTC');
SELECT job_id, resv_id FROM jobs WHERE cluster = 'h' AND job_id = '71';

-- ===========================================================================
-- 4. PBS: an R (rerun) record ends a run, and the records after it are the
--    next run, submitted at the R record's instant (the same shape as a
--    Slurm requeue).  Job 1005 of test/fixtures/pbs/20261121, loaded in
--    three pieces as a nightly import would see it, then whole: 2 CPUs,
--    4 GB, billing 2 + 4 × 0.25 = 3; first run 10:30-10:40 Paris (600 s,
--    1800), second run 10:45-11:15 (1800 s, 5400): 7200 in all.
-- ===========================================================================
INSERT INTO clusters (cluster, scheduler, decay_half_life) VALUES ('hp', 'pbs', '0');
INSERT INTO partitions (cluster, partition, billing_weights, nodes, cores_per_node, mem_per_node_mb)
VALUES ('hp', 'workq', 'CPU=1.0,Mem=0.25G', 8, 64, 262144);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('hp', 'root', NULL, 1), ('hp', 'chem', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('hp', 'chem', 'alice');
CREATE FUNCTION pg_temp.pbs(lines text[]) RETURNS TABLE (imported bigint, updated bigint, unchanged bigint, rejected bigint)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM fairshare.import_stage();
    INSERT INTO import_staging (line) SELECT unnest(lines);
    RETURN QUERY SELECT i.imported, i.updated, i.unchanged, i.rejected FROM fairshare.import_pbs('hp', 'Europe/Paris') i;
END
$$;
CREATE FUNCTION pg_temp.runs() RETURNS TABLE (submit_time timestamptz, state text, eligible_time timestamptz,
                                             start_time timestamptz, end_time timestamptz)
LANGUAGE sql AS $$
    SELECT j.submit_time, j.state, j.eligible_time, j.start_time, j.end_time FROM fairshare.jobs j
     WHERE j.cluster = 'hp' ORDER BY j.submit_time
$$;
-- the first night: queued and started (09:30 UTC)
SELECT * FROM pg_temp.pbs(ARRAY[
  $r$11/21/2026 10:30:00;Q;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795253400 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00$r$,
  $r$11/21/2026 10:30:00;S;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795253400 start=1795253400 exec_host=node04/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00$r$]);
SELECT * FROM pg_temp.runs();
-- the second: rerun at 10:40 Paris and started again: the first run ends
-- then, REQUEUED; the second is submitted then and eligible from then
SELECT * FROM pg_temp.pbs(ARRAY[
  $r$11/21/2026 10:40:00;R;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795253400 start=1795253400 exec_host=node04/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00 session=4245 end=1795254000 Exit_status=-11 resources_used.cpupercent=99 resources_used.cput=00:19:00 resources_used.mem=1048576kb resources_used.ncpus=2 resources_used.vmem=1048576kb resources_used.walltime=00:10:00 run_count=1$r$,
  $r$11/21/2026 10:45:00;S;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795254000 start=1795254300 exec_host=node05/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00$r$]);
SELECT * FROM pg_temp.runs();
-- the third: the end of the second run
SELECT * FROM pg_temp.pbs(ARRAY[
  $r$11/21/2026 11:15:00;E;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795254000 start=1795254300 exec_host=node05/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00 session=4246 end=1795256100 Exit_status=0 resources_used.cpupercent=99 resources_used.cput=00:59:00 resources_used.mem=1048576kb resources_used.ncpus=2 resources_used.vmem=1048576kb resources_used.walltime=00:30:00 run_count=2$r$]);
SELECT * FROM pg_temp.runs();
SELECT user_name, raw_usage, jobs FROM association_usage_at('2026-11-22 00:00+00') WHERE cluster = 'hp';
-- the whole log again: the same two runs, unchanged
SELECT * FROM pg_temp.pbs(ARRAY[
  $r$11/21/2026 10:30:00;Q;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795253400 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00$r$,
  $r$11/21/2026 10:30:00;S;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795253400 start=1795253400 exec_host=node04/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00$r$,
  $r$11/21/2026 10:40:00;R;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795253400 start=1795253400 exec_host=node04/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00 session=4245 end=1795254000 Exit_status=-11 resources_used.cpupercent=99 resources_used.cput=00:19:00 resources_used.mem=1048576kb resources_used.ncpus=2 resources_used.vmem=1048576kb resources_used.walltime=00:10:00 run_count=1$r$,
  $r$11/21/2026 10:45:00;S;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795254000 start=1795254300 exec_host=node05/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00$r$,
  $r$11/21/2026 11:15:00;E;1005.pbs01;user=alice group=users account="chem" project=_pbs_project_default jobname=again queue=workq ctime=1795253400 qtime=1795253400 etime=1795254000 start=1795254300 exec_host=node05/0*2 Resource_List.mem=4gb Resource_List.ncpus=2 Resource_List.nodect=1 Resource_List.place=pack Resource_List.select=1:ncpus=2:mem=4gb Resource_List.walltime=01:00:00 session=4246 end=1795256100 Exit_status=0 resources_used.cpupercent=99 resources_used.cput=00:59:00 resources_used.mem=1048576kb resources_used.ncpus=2 resources_used.vmem=1048576kb resources_used.walltime=00:30:00 run_count=2$r$]);
SELECT count(*) AS runs FROM jobs WHERE cluster = 'hp';
DROP FUNCTION pg_temp.pbs(text[]);
DROP FUNCTION pg_temp.runs();
DELETE FROM jobs WHERE cluster = 'hp';
DELETE FROM imports WHERE cluster = 'hp';
DELETE FROM clusters WHERE cluster = 'hp';

DROP FUNCTION pg_temp.import(text[]);
DROP FUNCTION pg_temp.usage();
DELETE FROM jobs WHERE cluster = 'h';
DELETE FROM imports WHERE cluster = 'h';
DELETE FROM account_users WHERE cluster = 'h';
DELETE FROM accounts WHERE cluster = 'h' AND account <> 'root';
DELETE FROM accounts WHERE cluster = 'h';
DELETE FROM partitions WHERE cluster = 'h';
DELETE FROM clusters WHERE cluster = 'h';
