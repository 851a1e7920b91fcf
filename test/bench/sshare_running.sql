-- sshare_at with many running jobs under few accounts: 3 accounts of 10,000
-- users each, 8,000 running jobs and 30,000 finished ones.  The TRESRunMins
-- lines joined with the tree on (cluster, account, user_name IS NOT DISTINCT
-- FROM ...) were merge-joined on the cluster and account alone and filtered
-- pair by pair (51.8 s here); compared with COALESCE the join is on all three
-- (0.8 s).  Run in an empty database (it creates the extension):
--   createdb fs_sshare_running && psql -X -d fs_sshare_running -f test/bench/sshare_running.sql
\set ON_ERROR_STOP 1
CREATE EXTENSION fairshare;
SET client_min_messages = warning;
INSERT INTO fairshare.clusters (cluster) VALUES ('x');
INSERT INTO fairshare.partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb, gpus_per_node) VALUES ('x','p',100,32,128000,0);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('x','root',NULL,1);
INSERT INTO fairshare.accounts SELECT 'x','a'||i,'root',1 FROM generate_series(1,300) i;
INSERT INTO fairshare.account_users SELECT 'x','a'||i,'u'||i||'_'||k,1 FROM generate_series(1,3) i, generate_series(1,10000) k;
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, time_limit, cpus)
SELECT 'x', n::text, 'u'||(n%3+1)||'_'||(n%10000+1), 'a'||(n%3+1), 'p', 'RUNNING', '2026-11-25 10:00', '2026-11-25 10:00', NULL, '1 day', 4
  FROM generate_series(1,8000) n;
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, time_limit, cpus)
SELECT 'x', (100000+n)::text, 'u'||(n%3+1)||'_'||(n%10000+1), 'a'||(n%3+1), 'p', 'COMPLETED', '2026-11-20 10:00', '2026-11-20 10:00', '2026-11-20 12:00', '1 day', 4
  FROM generate_series(1,30000) n;
ANALYZE;
\timing on
SELECT count(*), count(tres_run_mins) FROM fairshare.sshare_at('2026-11-25 12:00');
SELECT count(*), count(tres_run_mins) FROM fairshare.sshare_at('2026-11-25 12:00');
