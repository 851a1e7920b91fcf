-- Nice from squeue (docs/priority.md#nice): sacct and slurmdbd do
-- not carry a job's nice, import_nice reads it from squeue -h -o '%i|%y'.
SET search_path = fairshare, public;

-- A cluster where only the partition factor weighs: every pending job's
-- priority is 1000 × 1 − nice (one partition, PriorityJobFactor 1 of 1).
INSERT INTO clusters (cluster, weight_fairshare, weight_age, weight_job_size, weight_partition, weight_qos)
VALUES ('nc', 0, 0, 0, 1000, 0);
INSERT INTO partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('nc', 'p', 1, 2, 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('nc', 'root', NULL, 1), ('nc', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('nc', 'a', 'u', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus) VALUES
  ('nc', '201',     'u', 'a', 'p', 'PENDING', '2026-06-01 11:00+00', '2026-06-01 11:00+00', NULL, NULL, 1),
  ('nc', '202',     'u', 'a', 'p', 'PENDING', '2026-06-01 11:00+00', '2026-06-01 11:00+00', NULL, NULL, 1),
  ('nc', '203',     'u', 'a', 'p', 'PENDING', '2026-06-01 11:00+00', '2026-06-01 11:00+00', NULL, NULL, 1),
  ('nc', '205',     'u', 'a', 'p', 'PENDING', '2026-06-01 11:00+00', '2026-06-01 11:00+00', NULL, NULL, 1),
  ('nc', '206_[1-3]', 'u', 'a', 'p', 'PENDING', '2026-06-01 11:00+00', '2026-06-01 11:00+00', NULL, NULL, 1),
  ('nc', '204',     'u', 'a', 'p', 'RUNNING', '2026-06-01 11:00+00', '2026-06-01 11:00+00', '2026-06-01 11:30+00', NULL, 1);

-- Without import_nice every job's nice is 0: PRIORITY 1000 − 0 = 1000
SELECT job_id, priority, partition_prio, nice FROM sprio_at('2026-06-01 12:00+00') WHERE cluster = 'nc' ORDER BY job_id;

-- squeue -h -o '%i|%y' (pending and running jobs; a trailing newline; 999
-- is a job fairshare does not hold): the pending runs whose nice changes
-- are updated, 202 203 205 206_[1-3] = 4; 201 keeps 0 (unchanged, not
-- counted), the running 204 and the unknown 999 are left alone
SELECT import_nice('nc', E'201|0\n202|50\n203|-20\n204|100\n205|5000\n206_[1-3]|10\n999|5\n') AS updated;
-- Worked by hand, PRIORITY = 1000 − nice, below 1 gives 1:
--   201  1000 − 0    = 1000
--   202  1000 − 50   =  950
--   203  1000 + 20   = 1020
--   205  1000 − 5000 = −4000 → 1
--   206_[1-3]  1000 − 10 = 990
SELECT job_id, priority, partition_prio, nice, priority_exact FROM sprio_at('2026-06-01 12:00+00') WHERE cluster = 'nc' ORDER BY job_id;
SELECT job_id, state, nice FROM jobs WHERE cluster = 'nc' AND job_id = '204';
-- the same output again: nothing changes
SELECT import_nice('nc', E'201|0\n202|50\n203|-20\n204|100\n205|5000\n206_[1-3]|10\n999|5\n') AS updated;
-- Windows line ends and blanks around the fields are accepted
SELECT import_nice('nc', E' 202 | 0 \r\n') AS updated;
-- a tab around the job id is a blank too, not part of the id (one kept
-- would name no run, and the nice would be dropped without a word):
-- 202 0 -> 5, 1 updated; then back to 0, 1 updated
SELECT import_nice('nc', E'\t202\t|\t5\n') AS updated;
SELECT job_id, nice FROM jobs WHERE cluster = 'nc' AND job_id = '202';  -- 5
SELECT import_nice('nc', E'202|0\n') AS updated;

-- Bad lines: a line that is not "JOBID|NICE", or whose nice Slurm cannot
-- hold, is rejected with its reason into import_rejects (the WARNING
-- names the import) and the other lines are read; 1.2 refused the whole
-- output for one such line.  203 is pending at -20.
SELECT last_value AS imports_last, is_called AS imports_called
  FROM fairshare.imports_import_id_seq \gset
SET client_min_messages = error;
SELECT import_nice('nc', E'203|0\nJOBID|NICE\n') AS updated;     -- 1: 203 -20 -> 0, line 2 rejected
SELECT import_nice('nc', E'203|7\n203|ten\n') AS updated;        -- 1: 203 0 -> 7, line 2 rejected
SELECT import_nice('nc', E'203|7\n203|2147483646\n') AS updated; -- 0: 203 stays 7, line 2 rejected
RESET client_min_messages;
SELECT i.source, i.lines_read, i.imported, i.rejected, r.line_no, r.job_id, r.sqlstate, r.reason, r.line
  FROM imports i JOIN import_rejects r USING (import_id)
 WHERE i.cluster = 'nc' ORDER BY i.import_id, r.line_no;
SELECT job_id, nice FROM jobs WHERE cluster = 'nc' AND job_id = '203';  -- 7
-- Bad arguments: an error naming them
\set VERBOSITY default
SELECT import_nice('nowhere', E'203|0\n');
SELECT import_nice('nc', NULL);
\set VERBOSITY terse
DELETE FROM imports WHERE cluster = 'nc';
SELECT setval('fairshare.imports_import_id_seq', :imports_last, :'imports_called'::boolean) IS NOT NULL AS numbering_restored;

DELETE FROM jobs WHERE cluster = 'nc';
DELETE FROM account_users WHERE cluster = 'nc';
DELETE FROM accounts WHERE cluster = 'nc' AND parent_account IS NOT NULL;
DELETE FROM accounts WHERE cluster = 'nc';
DELETE FROM partitions WHERE cluster = 'nc';
DELETE FROM clusters WHERE cluster = 'nc';
