-- Demo report: multifactor job priority (sprio) and PROTEUS's start-next
-- procedure on the demo centre (docs/policies.md#job-priority, docs/priority.md).
\pset footer off
\set QUIET on
SET search_path = public, fairshare;

-- The centre's priority weights: CALI 70000 fairshare + 30000 partition;
-- PROTEUS 90000 fairshare + 5000 age (PriorityMaxAge 14 days) + 5000 job
-- size.  centre.sql sets them; set them here only if it left them unset.
UPDATE fairshare.clusters SET weight_fairshare = 70000, weight_partition = 30000
 WHERE cluster = 'cali'
   AND weight_fairshare = 0 AND weight_age = 0 AND weight_job_size = 0 AND weight_partition = 0 AND weight_qos = 0;
UPDATE fairshare.clusters SET weight_fairshare = 90000, weight_age = 5000, weight_job_size = 5000,
                              priority_max_age = '14 days'
 WHERE cluster = 'proteus'
   AND weight_fairshare = 0 AND weight_age = 0 AND weight_job_size = 0 AND weight_partition = 0 AND weight_qos = 0;

\echo
\echo '=== Priority weights (sprio -w) ==='
SELECT cluster, weight_age AS age, weight_fairshare AS fairshare, weight_job_size AS jobsize,
       weight_partition AS partition, weight_qos AS qos, priority_max_age AS max_age, favor_small
  FROM fairshare.clusters ORDER BY cluster;

-- One evaluation of the queue, reused below.
CREATE TEMP TABLE demo_sprio AS SELECT * FROM fairshare.sprio;

\echo
\echo '=== sprio -l: the 8 highest-priority pending jobs of each cluster (columns rounded as sprio prints them) ==='
SELECT cluster, job_id AS jobid, partition, user_name AS user, account, priority,
       age, fairshare, job_size AS jobsize, partition_prio AS "partition", qos_prio AS qos, nice
  FROM (SELECT s.*, row_number() OVER (PARTITION BY cluster ORDER BY priority DESC, submit_time, job_id) AS r
          FROM demo_sprio s) t
 WHERE r <= 8 ORDER BY cluster, r;

\echo
\echo '=== Why: the explanation of the top job of each cluster ==='
SELECT cluster, job_id, explanation
  FROM (SELECT s.*, row_number() OVER (PARTITION BY cluster ORDER BY priority DESC, submit_time, job_id) AS r
          FROM demo_sprio s) t
 WHERE r = 1 ORDER BY cluster;

\echo
\echo '=== sprio rounds each column but truncates PRIORITY: jobs whose columns do not add up ==='
SELECT cluster, count(*) AS pending,
       count(*) FILTER (WHERE age + fairshare + job_size + partition_prio + qos_prio - nice <> priority) AS columns_differ
  FROM demo_sprio GROUP BY cluster ORDER BY cluster;
SELECT cluster, job_id, priority, age, fairshare, job_size, partition_prio,
       age + fairshare + job_size + partition_prio + qos_prio - nice AS columns_add_to,
       round(priority_exact::numeric, 3) AS exact_sum
  FROM demo_sprio
 WHERE age + fairshare + job_size + partition_prio + qos_prio - nice <> priority
 ORDER BY cluster, priority DESC LIMIT 4;

\echo
\echo '=== Time travel: the PROTEUS queue as it stood 2 days ago (only what was known then) ==='
SELECT job_id, user_name, partition, priority, age, fairshare, job_size,
       to_char(submit_time, 'YYYY-MM-DD HH24:MI') AS submitted
  FROM fairshare.sprio_at(now() - interval '2 days')
 WHERE cluster = 'proteus'
 ORDER BY priority DESC, submit_time, job_id LIMIT 5;

\echo
\echo '=== PROTEUS procedure (seed 001): with 48 CPUs / 192 GB free on metis, 40 CPUs on hermesv1 and'
\echo '=== 16 CPUs / 32 GB on calypso16G, start pending jobs in priority order while they fit (backfill) ==='
CREATE TEMP TABLE demo_free AS SELECT
  '[{"cluster": "proteus", "partition": "metis",      "cpus": 48, "mem_mb": 196608},
    {"cluster": "proteus", "partition": "hermesv1",   "cpus": 40},
    {"cluster": "proteus", "partition": "calypso16G", "cpus": 16, "mem_mb": 32768}]'::jsonb AS free;
SELECT n.queue_position AS pos, n.job_id, n.partition, n.user_name, n.priority, n.cpus, n.mem_mb,
       n.start_order AS "order", n.cpus_left, n.mem_mb_left, n.reason
  FROM demo_free f, fairshare.start_next(f.free) n
 WHERE n.partition IN ('metis', 'hermesv1', 'calypso16G')
 ORDER BY n.queue_position LIMIT 15;
\echo
\echo '=== The same without backfill: a job that does not fit blocks its partition ==='
SELECT n.partition, count(*) FILTER (WHERE n.starts) AS start, count(*) FILTER (WHERE NOT n.starts) AS wait,
       string_agg(n.job_id, ' ' ORDER BY n.start_order) FILTER (WHERE n.starts) AS jobs_started
  FROM demo_free f, fairshare.start_next(f.free, now(), backfill => false) n
 WHERE n.partition IN ('metis', 'hermesv1', 'calypso16G')
 GROUP BY n.partition ORDER BY n.partition;

DROP TABLE demo_sprio, demo_free;

-- Usage checkpoints (1.1; skipped when the demo loads into 1.0 for the
-- upgrade test): what sprio computes from a checkpoint is what it computes
-- from every job, and it reads only the jobs running at the checkpoint or
-- started since.
SELECT to_regprocedure('fairshare.checkpoint_usage(text, timestamptz)') IS NOT NULL AS has_checkpoints \gset
\if :has_checkpoints
\echo
\echo '=== Usage checkpoints: CALL fairshare.checkpoint_usage() (every few minutes from cron), then sprio reads only the jobs since ==='
CALL fairshare.checkpoint_usage();
SELECT now() AS demo_at \gset
SELECT k.cluster, k.invalidated_at IS NULL AS valid,
       (SELECT count(*) FROM fairshare.usage_checkpoint_rows r WHERE r.cluster = k.cluster) AS associations,
       (SELECT sum(r.jobs) FROM fairshare.usage_checkpoint_rows r WHERE r.cluster = k.cluster) AS jobs_in_checkpoint,
       (SELECT count(*) FROM fairshare.jobs j WHERE j.cluster = k.cluster AND j.start_time IS NOT NULL
           AND COALESCE(j.end_time, 'infinity') > k.as_of) AS jobs_read_after_it
  FROM fairshare.usage_checkpoints k ORDER BY k.cluster;
CREATE TEMP TABLE demo_cp_sprio AS SELECT * FROM fairshare.sprio_at(:'demo_at');
CREATE TEMP TABLE demo_cp_sshare AS SELECT * FROM fairshare.sshare_at(:'demo_at');
-- the same instant from every job: set the checkpoints aside, then make them again
UPDATE fairshare.usage_checkpoints SET invalidated_at = now(), invalidated_by = 'demo: the full computation, for comparison';
CREATE TEMP TABLE demo_full_sprio AS SELECT * FROM fairshare.sprio_at(:'demo_at');
CREATE TEMP TABLE demo_full_sshare AS SELECT * FROM fairshare.sshare_at(:'demo_at');
CALL fairshare.checkpoint_usage();
SELECT 'sprio' AS report, count(*) AS rows,
       count(*) FILTER (WHERE (c.priority, c.age, c.fairshare, c.job_size, c.partition_prio, c.qos_prio, c.nice)
                              IS DISTINCT FROM (f.priority, f.age, f.fairshare, f.job_size, f.partition_prio, f.qos_prio, f.nice))
         AS printed_columns_differ,
       max(abs(c.fairshare_factor - f.fairshare_factor)) AS max_factor_difference
  FROM demo_cp_sprio c FULL JOIN demo_full_sprio f USING (cluster, job_id)
UNION ALL
SELECT 'sshare', count(*),
       count(*) FILTER (WHERE (c.raw_usage_int, c.fs_rank) IS DISTINCT FROM (f.raw_usage_int, f.fs_rank)),
       max(abs(c.fairshare - f.fairshare))
  FROM demo_cp_sshare c
  FULL JOIN demo_full_sshare f
    ON f.cluster = c.cluster AND f.account = c.account AND COALESCE(f.user_name, '') = COALESCE(c.user_name, '');
DROP TABLE demo_cp_sprio, demo_cp_sshare, demo_full_sprio, demo_full_sshare;
\endif
