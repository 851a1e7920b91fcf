-- sprio: the pending jobs' priorities over the model, with time travel, and
-- PROTEUS's start-next procedure (docs/policies.md#job-priority,
-- docs/slurm.md#what-sshare-and-sprio-print).
SET search_path = fairshare, public;

-- ---------------------------------------------------------------------------
-- 1. A synthetic cluster whose numbers are easy to follow by hand.  The
--    fair-share weight is 0 here, so nothing depends on the tree.
--    PriorityMaxAge 16 s and weight_age 8: a job pending d seconds shows
--    d/16 × 8 = d/2 (exact in binary), which exercises sprio's %.0f.
-- ---------------------------------------------------------------------------
INSERT INTO clusters (cluster, weight_fairshare, weight_age, weight_job_size, weight_partition, weight_qos,
                      priority_max_age, total_nodes, total_cpus)
VALUES ('tt', 0, 8, 5000, 30000, 1000, '16 seconds', 4, 128);
INSERT INTO partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('tt', 'p1', 10, 2, 64, 262144),
  ('tt', 'p2', 40, 2, 64, 262144);
INSERT INTO qos (cluster, qos, priority) VALUES ('tt', 'normal', 0), ('tt', 'low', 10), ('tt', 'high', 50);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('tt', 'root', NULL, 1), ('tt', 'a1', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('tt', 'a1', 'u1', 1);

-- T = 2026-06-01 12:00:00+00.  Every job is u1's in a1.
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes, nice) VALUES
  -- pending at T
  ('tt', '101',  'u1', 'a1', 'p2', 'high',   'PENDING',   '2026-06-01 11:58:20+00', '2026-06-01 11:59:55+00', NULL, NULL,  64,    0, 2,    0),
  ('tt', '102',  'u1', 'a1', 'p1', 'low',    'PENDING',   '2026-06-01 11:59:57+00', '2026-06-01 11:59:57+00', NULL, NULL,   0,    0, 1,  100),
  ('tt', '103',  'u1', 'a1', 'p1', NULL,     'PENDING',   '2026-06-01 11:59:59+00', '2026-06-01 11:59:59+00', NULL, NULL,   4, 2048, 1,   -7),
  ('tt', '111',  'u1', 'a1', 'p1', NULL,     'PENDING',   '2026-06-01 11:59:10+00', '2026-06-01 11:59:59+00', NULL, NULL,   4, 2048, 1,   -7),
  ('tt', '1003', 'u1', 'a1', 'p1', NULL,     'PENDING',   '2026-06-01 11:59:59+00', '2026-06-01 11:59:59+00', NULL, NULL,   4, 2048, 1,   -7),
  -- started after T: still pending at T
  ('tt', '105',  'u1', 'a1', 'p1', 'normal', 'COMPLETED', '2026-06-01 11:59:00+00', '2026-06-01 11:59:00+00',
         '2026-06-01 12:00:10+00', '2026-06-01 12:01:40+00', 128, 0, 1, 0),
  -- submitted after T
  ('tt', '104',  'u1', 'a1', 'p1', NULL,     'PENDING',   '2026-06-01 12:00:01+00', '2026-06-01 12:00:01+00', NULL, NULL,   1,    0, 1,    0),
  -- eligible only after T (a begin time or a dependency)
  ('tt', '106',  'u1', 'a1', 'p1', NULL,     'PENDING',   '2026-06-01 11:59:00+00', '2026-06-01 12:00:30+00', NULL, NULL,   1,    0, 1,    0),
  -- cancelled while pending, before T
  ('tt', '107',  'u1', 'a1', 'p1', NULL,     'CANCELLED', '2026-06-01 11:59:00+00', '2026-06-01 11:59:00+00',
         NULL, '2026-06-01 11:59:50+00', 1, 0, 1, 0),
  -- ran and ended before T
  ('tt', '108',  'u1', 'a1', 'p1', NULL,     'COMPLETED', '2026-06-01 11:59:00+00', '2026-06-01 11:59:00+00',
         '2026-06-01 11:59:30+00', '2026-06-01 11:59:55+00', 1, 0, 1, 0),
  -- never eligible (held, or a dependency never satisfied)
  ('tt', '109',  'u1', 'a1', 'p1', NULL,     'PENDING',   '2026-06-01 11:59:00+00', NULL, NULL, NULL, 1, 0, 1, 0);

-- Worked by hand (weights: age 8, job size 5000, partition 30000, QOS 1000;
-- max age 16 s; 4 nodes, 128 CPUs; largest PriorityJobFactor 40, largest QOS
-- priority 50):
--   101  age 5 s: 5/16 × 8 = 2.5 (sprio %.0f: 2, ties go to even)
--        size (2/4 + 64/128)/2 = 0.5 × 5000 = 2500; partition 40/40 × 30000 = 30000
--        QOS high 50/50 × 1000 = 1000;  2.5 + 2500 + 30000 + 1000 = 33502.5 → 33502
--   105  age 60 s ≥ 16 s: 1 × 8 = 8; size (1/4 + 128/128)/2 = 0.625 × 5000 = 3125
--        partition 10/40 = 0.25 × 30000 = 7500; QOS normal has priority 0: 0
--        8 + 3125 + 7500 = 10633
--   102  age 3 s: 1.5 (shows 2); 0 CPUs: size 1/4 alone = 0.25 × 5000 = 1250
--        partition 7500; QOS low 10/50 × 1000 = 200; nice 100
--        1.5 + 1250 + 7500 + 200 − 100 = 8851.5 → 8851
--   103, 111, 1003  age 1 s: 0.5 (shows 0); size (1/4 + 4/128)/2 = 0.140625 × 5000
--        = 703.125 (shows 703); partition 7500; no QOS; nice −7
--        0.5 + 703.125 + 7500 + 7 = 8210.625 → 8210
SELECT job_id, priority, age, fairshare, job_size, partition_prio, qos_prio, nice
  FROM sprio_at('2026-06-01 12:00:00+00') WHERE cluster = 'tt' ORDER BY priority DESC, job_id;
SELECT job_id, age_weighted, job_size_weighted, partition_weighted, qos_weighted, priority_exact,
       age_factor, fairshare_factor, job_size_factor, partition_factor, qos_factor
  FROM sprio_at('2026-06-01 12:00:00+00') WHERE cluster = 'tt' ORDER BY priority DESC, job_id;
SELECT job_id, explanation
  FROM sprio_at('2026-06-01 12:00:00+00') WHERE cluster = 'tt' ORDER BY priority DESC, job_id;

-- Time travel: each instant sees the jobs pending then.
--   11:59:40  105 (start 12:00:10), 107 (cancelled 11:59:50), 108 (started
--             11:59:30: no); 101 is not eligible before 11:59:55
--   12:00:10  105 started at 12:00:10: no; 104 (submitted 12:00:01) yes
--   12:00:30  106 becomes eligible
SELECT t.as_of AT TIME ZONE 'UTC' AS as_of_utc, pg_catalog.string_agg(s.job_id, ' ' ORDER BY s.job_id::int) AS pending
  FROM (VALUES ('2026-06-01 11:59:40+00'::timestamptz), ('2026-06-01 12:00:00+00'),
               ('2026-06-01 12:00:10+00'), ('2026-06-01 12:00:30+00')) t(as_of)
  CROSS JOIN LATERAL sprio_at(t.as_of) s
 WHERE s.cluster = 'tt'
 GROUP BY t.as_of ORDER BY t.as_of;
-- 105 at 11:59:40: pending 40 s ≥ 16 → age 8; 8 + 3125 + 7500 = 10633 as at T.
-- 107 at 11:59:40: age 8, size (1/4 + 1/128)/2 = 0.12890625 × 5000 = 644.53125,
-- partition 7500: 8152.53125 → 8152.
SELECT job_id, priority, age, job_size_weighted
  FROM sprio_at('2026-06-01 11:59:40+00') WHERE cluster = 'tt' ORDER BY job_id;

-- ---------------------------------------------------------------------------
-- 2. PROTEUS's procedure: start in priority order while resources remain.
--    Queue at T: 101 (33502), 105 (10633), 102 (8851), then three at 8210
--    in order of submission (111 at 11:59:10) then job id, read as a number
--    (103 before 1003).  Free: p1 8 CPUs and 3000 MB, p2 64 CPUs.
--    Backfill: 101 takes p2's 64 CPUs; 105 needs 128 CPUs of p1's 8: skipped;
--    102 (0 CPUs) starts; 111 takes 4 CPUs and 2048 MB (4 CPUs, 952 MB left);
--    103 and 1003 need 2048 MB: skipped.
-- ---------------------------------------------------------------------------
SELECT queue_position, job_id, partition, priority, cpus, mem_mb, starts, start_order,
       cpus_left, mem_mb_left, gpus_left, reason
  FROM start_next('[{"cluster": "tt", "partition": "p1", "cpus": 8, "mem_mb": 3000},
                    {"cluster": "tt", "partition": "p2", "cpus": 64, "gpus": 0}]',
                  '2026-06-01 12:00:00+00')
 ORDER BY queue_position;
-- Without backfill, 105 blocks p1: nothing behind it in p1 starts.
SELECT queue_position, job_id, partition, starts, start_order, reason
  FROM start_next('[{"cluster": "tt", "partition": "p1", "cpus": 8, "mem_mb": 3000},
                    {"cluster": "tt", "partition": "p2", "cpus": 64, "gpus": 0}]',
                  '2026-06-01 12:00:00+00', backfill => false)
 ORDER BY queue_position;
-- Only p2 has room: the p1 jobs are listed but start nothing; a resource left
-- out is not limited (p2 has no CPU limit here).
SELECT queue_position, job_id, partition, starts, cpus_left, reason
  FROM start_next('[{"cluster": "tt", "partition": "p2"}]', '2026-06-01 12:00:00+00')
 ORDER BY queue_position;
-- No room at all: every job is listed; only 102, which asks for nothing (0
-- CPUs, 0 MB, 0 GPUs), fits.
SELECT pg_catalog.count(*) AS listed, pg_catalog.count(*) FILTER (WHERE starts) AS starting
  FROM start_next('[{"cluster": "tt", "partition": "p1", "cpus": 0, "mem_mb": 0, "gpus": 0}]',
                  '2026-06-01 12:00:00+00');
-- An empty list names no cluster: no rows.
SELECT pg_catalog.count(*) FROM start_next('[]', '2026-06-01 12:00:00+00');
-- Bad input.
SELECT * FROM start_next(NULL, '2026-06-01 12:00:00+00');
SELECT * FROM start_next('{"cluster": "tt"}', '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[1]', '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[{"cluster": "tt", "partition": "p1", "mem": 5}]', '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[{"cluster": "tt", "partition": "nope", "cpus": 5}]', '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[{"partition": "p1", "cpus": 5}]', '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[{"cluster": "tt", "partition": "p1", "cpus": -1}]', '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[{"cluster": "tt", "partition": "p1", "cpus": "8"}]', '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[{"cluster": "tt", "partition": "p1"}, {"cluster": "tt", "partition": "p1"}]',
                         '2026-06-01 12:00:00+00');
SELECT * FROM start_next('[]', 'infinity');

DELETE FROM jobs WHERE cluster = 'tt';
DELETE FROM clusters WHERE cluster = 'tt';

-- ---------------------------------------------------------------------------
-- 3. A real Slurm 22.05 cluster (test/fixtures/slurm): the same
--    accounting loaded into the model must give, for every pending job, the
--    Priority that Slurm itself recorded (70000 fairshare, 30000 partition,
--    5000 age, 5000 job size; 14-day max age; no decay; one 64-CPU node).
--    The fair-share factors come from fairshare.sshare_at (Fair Tree); the
--    ranks are worked by hand in sql/priority.sql.
-- ---------------------------------------------------------------------------
INSERT INTO clusters (cluster, decay_half_life, weight_fairshare, weight_partition, weight_age, weight_job_size,
                      priority_max_age, total_nodes, total_cpus)
VALUES ('oracle', '0', 70000, 30000, 5000, 5000, '14 days', 1, 64);
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G',    100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G',    10, 1, 64, 256000);
INSERT INTO qos (cluster, qos, priority) VALUES ('oracle', 'normal', 0);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('oracle', 'root', NULL, 1),
  ('oracle', 'partners', 'root', 100),
  ('oracle', 'cistem', 'partners', 1),
  ('oracle', 'ingenomix', 'partners', 1),
  ('oracle', 'unilim', 'root', 900),
  ('oracle', 'geist', 'unilim', 283),
  ('oracle', 'geistlab', 'geist', NULL),
  ('oracle', 'ipam', 'unilim', 283),
  ('oracle', 'shs', 'unilim', 150),
  ('oracle', 'xlim', 'unilim', 283);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES
  ('oracle', 'root', 'root', 1),
  ('oracle', 'cistem', 'alice', 1),
  ('oracle', 'ingenomix', 'bob', 1),
  ('oracle', 'ingenomix', 'ivan', 1),
  ('oracle', 'geist', 'frank', 1),
  ('oracle', 'geistlab', 'grace', 1),
  ('oracle', 'geistlab', 'heidi', 2),
  ('oracle', 'ipam', 'carol', 1),
  ('oracle', 'ipam', 'erin', 1),
  ('oracle', 'shs', 'judy', NULL),
  ('oracle', 'shs', 'kate', 1),
  ('oracle', 'xlim', 'carol', 10),
  ('oracle', 'xlim', 'dave', 5);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time,
                  start_time, end_time, tres, cpus, mem_mb, nodes, nice) VALUES
  ('oracle', '1',  'alice', 'cistem',    'big', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:22+00', 'billing=40,cpu=8,mem=16G,node=1',      8, 16384, 1, 0),
  ('oracle', '2',  'bob',   'ingenomix', 'std', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:52+00', 'billing=4,cpu=2,mem=4G,node=1',        2,  4096, 1, 0),
  ('oracle', '3',  'carol', 'xlim',      'std', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:52+00', 'billing=32,cpu=16,mem=32G,node=1',    16, 32768, 1, 0),
  ('oracle', '4',  'carol', 'ipam',      'low', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:22+00', 'billing=4,cpu=4,mem=8G,node=1',        4,  8192, 1, 0),
  ('oracle', '5',  'dave',  'xlim',      'big', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:07+00', 'billing=20,cpu=4,mem=10G,node=1',      4, 10240, 1, 0),
  ('oracle', '6',  'erin',  'ipam',      'std', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:42+00', 'billing=1,cpu=1,mem=1000M,node=1',     1,  1000, 1, 0),
  ('oracle', '7',  'frank', 'geist',     'big', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:37+00', 'billing=67,cpu=12,mem=48G,node=1',    12, 49152, 1, 0),
  ('oracle', '8',  'grace', 'geistlab',  'std', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:02+00', 'billing=12,cpu=6,mem=12G,node=1',      6, 12288, 1, 0),
  ('oracle', '9',  'heidi', 'geistlab',  'low', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:12+00', 'billing=1,cpu=2,mem=3G,node=1',        2,  3072, 1, 0),
  ('oracle', '10', 'judy',  'shs',       'std', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:52+00', 'billing=6,cpu=3,mem=6G,node=1',        3,  6144, 1, 0),
  ('oracle', '11', 'kate',  'shs',       'big', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:25+00', '2026-11-21 17:25:45+00', 'billing=5,cpu=1,mem=2G,node=1',        1,  2048, 1, 0),
  ('oracle', '12', 'alice', 'cistem',    'big', 'normal', 'PENDING', '2026-11-21 17:27:06+00', '2026-11-21 17:27:06+00', NULL, NULL, 'billing=37,cpu=8,mem=8000M,node=1',    8,  8000, 1, 0),
  ('oracle', '13', 'bob',   'ingenomix', 'std', 'normal', 'PENDING', '2026-11-21 17:27:06+00', '2026-11-21 17:27:06+00', NULL, NULL, 'billing=1,cpu=1,mem=1000M,node=1',     1,  1000, 1, 0),
  ('oracle', '14', 'ivan',  'ingenomix', 'std', 'normal', 'PENDING', '2026-11-21 17:27:06+00', '2026-11-21 17:27:06+00', NULL, NULL, 'billing=2,cpu=2,mem=2000M,node=1',     2,  2000, 1, 0),
  ('oracle', '15', 'carol', 'xlim',      'std', 'normal', 'PENDING', '2026-11-21 17:27:06+00', '2026-11-21 17:27:06+00', NULL, NULL, 'billing=23,cpu=16,mem=16000M,node=1', 16, 16000, 1, 0),
  ('oracle', '16', 'carol', 'ipam',      'low', 'normal', 'PENDING', '2026-11-21 17:27:06+00', '2026-11-21 17:27:06+00', NULL, NULL, 'billing=2,cpu=4,mem=4000M,node=1',     4,  4000, 1, 0),
  ('oracle', '17', 'dave',  'xlim',      'big', 'normal', 'PENDING', '2026-11-21 17:27:06+00', '2026-11-21 17:27:06+00', NULL, NULL, 'billing=150,cpu=32,mem=32000M,node=1', 32, 32000, 1, 0),
  ('oracle', '18', 'erin',  'ipam',      'std', 'normal', 'PENDING', '2026-11-21 17:27:07+00', '2026-11-21 17:27:07+00', NULL, NULL, 'billing=95,cpu=64,mem=64000M,node=1', 64, 64000, 1, 0),
  -- sacct does not print nice; 500 is the only integer that fits job 19's
  -- recorded priority (sql/priority.sql)
  ('oracle', '19', 'erin',  'ipam',      'std', 'normal', 'PENDING', '2026-11-21 17:27:07+00', '2026-11-21 17:27:07+00', NULL, NULL, 'billing=2,cpu=2,mem=2000M,node=1',     2,  2000, 1, 500),
  ('oracle', '20', 'frank', 'geist',     'big', 'normal', 'PENDING', '2026-11-21 17:27:07+00', '2026-11-21 17:27:07+00', NULL, NULL, 'billing=18,cpu=4,mem=4000M,node=1',    4,  4000, 1, 0),
  ('oracle', '21', 'grace', 'geistlab',  'std', 'normal', 'PENDING', '2026-11-21 17:27:07+00', '2026-11-21 17:27:07+00', NULL, NULL, 'billing=1,cpu=1,mem=1000M,node=1',     1,  1000, 1, 0),
  ('oracle', '22', 'heidi', 'geistlab',  'low', 'normal', 'PENDING', '2026-11-21 17:27:07+00', '2026-11-21 17:27:07+00', NULL, NULL, 'billing=1,cpu=2,mem=2000M,node=1',     2,  2000, 1, 0),
  ('oracle', '23', 'judy',  'shs',       'std', 'normal', 'PENDING', '2026-11-21 17:27:07+00', '2026-11-21 17:27:07+00', NULL, NULL, 'billing=11,cpu=8,mem=8000M,node=1',    8,  8000, 1, 0),
  ('oracle', '24', 'kate',  'shs',       'big', 'normal', 'PENDING', '2026-11-21 17:27:07+00', '2026-11-21 17:27:07+00', NULL, NULL, 'billing=9,cpu=2,mem=2000M,node=1',     2,  2000, 1, 0);

-- At 17:27:07 every pending job's factors are those of its submission but
-- jobs 12-17 have aged 1 s: 5000 × 1/1209600 = 0.0041, which moves no
-- truncation (sql/priority.sql lists each sum).  Slurm's recorded Priority:
SELECT s.job_id, s.user_name, s.account, s.priority, v.slurm AS slurm_printed,
       s.priority = v.slurm AS same, s.fairshare_factor * 13 AS rank
  FROM sprio_at('2026-11-21 17:27:07+00') s
  JOIN (VALUES ('12', 38197), ('13', 23308), ('14', 28731), ('15', 50817), ('16', 62887), ('17', 76826),
               ('18', 79615), ('19', 76693), ('20', 54194), ('21', 39462), ('22', 35885), ('23', 66658),
               ('24', 81039)) v(job_id, slurm) ON v.job_id = s.job_id
 WHERE s.cluster = 'oracle'
 ORDER BY s.job_id::int;

-- sprio's display rounds each column (%.0f) but truncates the total, so the
-- columns need not add up (docs/slurm.md#what-sshare-and-sprio-print).  Job
-- 24: fairshare 9/13 × 70000 = 48461.54 shows 48462, job size (1 + 2/64)/2 ×
-- 5000 = 2578.125 shows 2578, partition 30000: the columns add to 81040,
-- PRIORITY is 81039.
SELECT job_id, priority, age, fairshare, job_size, partition_prio, qos_prio, nice,
       age + fairshare + job_size + partition_prio + qos_prio - nice AS columns_add_to,
       round(priority_exact::numeric, 4) AS priority_exact
  FROM sprio_at('2026-11-21 17:27:07+00') WHERE cluster = 'oracle' AND job_id IN ('20', '24') ORDER BY job_id;
SELECT explanation FROM sprio_at('2026-11-21 17:27:07+00') WHERE cluster = 'oracle' AND job_id = '19';

-- Time travel: at 17:27:06 jobs 18-24 were not yet submitted.
SELECT pg_catalog.string_agg(job_id, ' ' ORDER BY job_id::int) AS pending_at_17_27_06
  FROM sprio_at('2026-11-21 17:27:06+00') WHERE cluster = 'oracle';
-- At 17:25:23 jobs 1-10 had started (17:25:22); job 11 waited until 17:25:25.
SELECT job_id, age_weighted = 5000 * (1 / 1209600::float8) AS pending_one_second
  FROM sprio_at('2026-11-21 17:25:23+00') WHERE cluster = 'oracle';

-- The start-next list on the node's 64 CPUs, all in std: 18 (79615) needs
-- all 64 and starts; nothing is left for 19 (76693), 23, 15, 21, 14, 13.
SELECT queue_position, job_id, partition, priority, cpus, starts, cpus_left
  FROM start_next('[{"cluster": "oracle", "partition": "std", "cpus": 64}]', '2026-11-21 17:27:07+00')
 WHERE partition = 'std' ORDER BY queue_position;

DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';

-- The fair-share factors kept with the usage checkpoints
-- (extension/sprio.sql, docs/priority.md#cached-fair-share-factors).
-- sprio_at reads them instead of computing sshare's tree while they are
-- what sshare_at would compute; the results must be the same to the bit.
-- Everything runs in one transaction, rolled back at the end; the clusters
-- of the other suites are set aside in it (every fair_tree and classic
-- cluster needs its factors for sprio_at to read them).
SET search_path = fairshare, public;
SET extra_float_digits = 3;
SET timezone = 'UTC';
BEGIN;
DELETE FROM clusters;

-- Cluster sc: Slurm's passes every 5 minutes from 00:00, half-life 1 day.
--   root ── a (2) ── u1 (1), u2 (1)
--        └─ b (1) ── u3 (1)
-- The checkpoint is at T0 = 12:02; slurmctld's last pass then was 12:00 and
-- the next is 12:05: from 12:02 to 12:04:59.999999 the tree usage is the
-- 12:00 pass's, so the cached factors hold; from 12:05 on they do not.
INSERT INTO clusters (cluster, decay_mode, decay_half_life, priority_calc_period, priority_last_decay,
                      weight_fairshare, weight_age, weight_partition, priority_max_age, total_nodes, total_cpus)
VALUES ('sc', 'slurm_passes', '1 day', '5 minutes', '2026-06-01 00:00+00', 100000, 1000, 1000, '1 day', 2, 64);
INSERT INTO partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('sc', 'p', 1, 2, 32, 65536);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('sc', 'root', NULL, 1), ('sc', 'a', 'root', 2), ('sc', 'b', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES
  ('sc', 'a', 'u1', 1), ('sc', 'a', 'u2', 1), ('sc', 'b', 'u3', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, nodes) VALUES
  -- usage: ended before T0, and one running from 11:00 to 12:30 (charged
  -- at each pass while it runs)
  ('sc', '1', 'u1', 'a', 'p', 'COMPLETED', '2026-06-01 08:00+00', '2026-06-01 08:00+00',
         '2026-06-01 08:00+00', '2026-06-01 09:00+00', 8, 1),
  ('sc', '2', 'u2', 'a', 'p', 'COMPLETED', '2026-06-01 09:00+00', '2026-06-01 09:00+00',
         '2026-06-01 09:00+00', '2026-06-01 09:20+00', 4, 1),
  ('sc', '3', 'u3', 'b', 'p', 'COMPLETED', '2026-06-01 10:00+00', '2026-06-01 10:00+00',
         '2026-06-01 10:00+00', '2026-06-01 10:30+00', 16, 1),
  ('sc', '4', 'u2', 'a', 'p', 'COMPLETED', '2026-06-01 11:00+00', '2026-06-01 11:00+00',
         '2026-06-01 11:00+00', '2026-06-01 12:30+00', 2, 1),
  -- pending from 11:50 to past 12:30
  ('sc', '11', 'u1', 'a', 'p', 'PENDING', '2026-06-01 11:50+00', '2026-06-01 11:50+00', NULL, NULL, 1, 1),
  ('sc', '12', 'u2', 'a', 'p', 'PENDING', '2026-06-01 11:51+00', '2026-06-01 11:51+00', NULL, NULL, 2, 1),
  ('sc', '13', 'u3', 'b', 'p', 'PENDING', '2026-06-01 11:52+00', '2026-06-01 11:52+00', NULL, NULL, 4, 1);

CREATE TEMP TABLE instants (t) AS
SELECT unnest(ARRAY['2026-06-01 12:02:00+00', '2026-06-01 12:03:30+00', '2026-06-01 12:04:59.999999+00',
                    '2026-06-01 12:05:00+00', '2026-06-01 12:20:00+00']::timestamptz[]);

CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
-- one set of factors, for the three user associations, holding until 12:05
SELECT cluster, as_of, valid_before FROM usage_checkpoint_factors;
SELECT account, user_name, fairshare FROM usage_checkpoint_factor_rows ORDER BY account, user_name;

-- sprio_at with the cached factors, then with them deleted (sshare_at from
-- the same checkpoint): the same rows, every column, to the bit
CREATE TEMP TABLE cached AS SELECT i.t, s.* FROM instants i, sprio_at(i.t) s;
DELETE FROM usage_checkpoint_factors;
CREATE TEMP TABLE computed AS SELECT i.t, s.* FROM instants i, sprio_at(i.t) s;
SELECT (SELECT count(*) FROM cached) AS rows,
       (SELECT count(*) FROM (TABLE cached EXCEPT ALL TABLE computed) x) AS cached_only,
       (SELECT count(*) FROM (TABLE computed EXCEPT ALL TABLE cached) x) AS computed_only;
SELECT t, job_id, priority, fairshare, fairshare_factor FROM computed ORDER BY t, job_id;

-- The factors are read while they hold, and only then: with u1's made up
-- (0.5), sprio_at shows 0.5 × 100000 = 50000 for job 11 until 12:05, and
-- the computed factor from 12:05 on.
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
SELECT i.t, s.fairshare, s.fairshare_factor = c.fairshare_factor AS as_computed
  FROM instants i, sprio_at(i.t) s, computed c
 WHERE s.job_id = '11' AND c.job_id = '11' AND c.t = i.t ORDER BY i.t;

-- A change to the tree deletes the cluster's factors ...
UPDATE account_users SET shares = 3 WHERE user_name = 'u3';
SELECT count(*) AS factor_sets FROM usage_checkpoint_factors;
SELECT count(*) AS factor_rows FROM usage_checkpoint_factor_rows;
UPDATE account_users SET shares = 1 WHERE user_name = 'u3';
-- ... as does one to the cluster (its algorithm, its dampening)
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE clusters SET fairshare_dampening = 1 WHERE cluster = 'sc';
SELECT count(*) AS factor_sets FROM usage_checkpoint_factors;

-- An invalidated checkpoint's factors are not read: a job started before
-- T0 comes in; the made-up factor stays unread
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, nodes)
VALUES ('sc', '5', 'u3', 'b', 'p', 'COMPLETED', '2026-06-01 07:00+00', '2026-06-01 07:00+00',
        '2026-06-01 07:00+00', '2026-06-01 07:10+00', 1, 1);
SELECT invalidated_by IS NOT NULL AS invalidated FROM usage_checkpoints WHERE as_of = '2026-06-01 12:02+00';
SELECT job_id, fairshare_factor <> 0.5 AS computed FROM sprio_at('2026-06-01 12:03+00') ORDER BY job_id;
DELETE FROM jobs WHERE job_id = '5';

-- A cluster without factors (here one without a checkpoint) makes sprio_at
-- compute every cluster's: the made-up factor is not read either
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
INSERT INTO clusters (cluster) VALUES ('other');
SELECT fairshare_factor <> 0.5 AS computed FROM sprio_at('2026-06-01 12:03+00') WHERE job_id = '11';
DELETE FROM clusters WHERE cluster = 'other';
SELECT fairshare_factor = 0.5 AS cached FROM sprio_at('2026-06-01 12:03+00') WHERE job_id = '11';

-- The factors are cached with the tree as of the checkpoint
-- (docs/history.md#the-history-of-the-tree): b's share 1 -> 3 recorded at
-- 12:03, between the 12:00 pass and the 12:05 one.  A checkpoint at 12:02
-- (before the change) and one at 12:04 (after it, before the next pass:
-- slurmctld's FairShare is still the 12:00 pass's, computed with the tree
-- before the change, docs/slurm.md#the-tree-changes) both cache the
-- FairShare of the tree before the change, sshare_at's at those instants.
SAVEPOINT tree_change;
CREATE TEMP TABLE fs_before AS
SELECT user_name, fairshare FROM sshare_at('2026-06-01 12:02+00') WHERE cluster = 'sc' AND user_name IS NOT NULL;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:03+00';
UPDATE accounts SET shares = 3 WHERE cluster = 'sc' AND account = 'b';
RESET fairshare.tree_change_at;
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
CALL checkpoint_usage('sc', '2026-06-01 12:04+00');
SELECT f.as_of, f.user_name, f.fairshare = b.fairshare AS tree_before_change,
       f.fairshare = (SELECT s.fairshare FROM sshare_at(f.as_of) s
                       WHERE s.cluster = 'sc' AND s.account = f.account AND s.user_name = f.user_name) AS as_sshare_at
  FROM usage_checkpoint_factor_rows f JOIN fs_before b ON b.user_name = f.user_name
 ORDER BY 1, 2;
-- b's NormShares: 1/(2 + 1) = 0.333333 at 12:02, 3/(2 + 3) = 0.6 at 12:04
-- (at once, before the next pass)
SELECT a.t, s.raw_shares, round(s.norm_shares::numeric, 6) AS norm_shares
  FROM (VALUES ('2026-06-01 12:02+00'::timestamptz), ('2026-06-01 12:04+00')) a (t), sshare_at(a.t) s
 WHERE s.cluster = 'sc' AND s.account = 'b' AND s.user_name IS NULL ORDER BY 1;
ROLLBACK TO SAVEPOINT tree_change;

-- decay_mode 'exact': the factors hold at the checkpoint's instant only
-- (the mode set before the runs: the mode as of the checkpoint's instant
-- decides, docs/history.md#the-decay-as-of-an-instant)
SET LOCAL fairshare.tree_change_at = '2026-05-01 00:00+00';
UPDATE clusters SET decay_mode = 'exact' WHERE cluster = 'sc';
RESET fairshare.tree_change_at;
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
SELECT as_of, valid_before FROM usage_checkpoint_factors;
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
SELECT i.t, s.fairshare_factor = 0.5 AS cached
  FROM instants i, sprio_at(i.t) s WHERE s.job_id = '11' ORDER BY i.t;

-- The explanation is still sprio_at's, computed only when a query reads it:
-- the plan of sprio -l's columns builds no text
SELECT explanation FROM sprio_at('2026-06-01 12:02+00') WHERE job_id = '13';
CREATE FUNCTION pg_temp.plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; p text := '';
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP p := p || r || E'\n'; END LOOP;
    RETURN p;
END $$;
SELECT strpos(pg_temp.plan($$SELECT job_id, priority, fairshare FROM sprio_at('2026-06-01 12:02+00')$$),
              'concat_ws') = 0 AS no_text_built,
       strpos(pg_temp.plan($$SELECT job_id, explanation FROM sprio_at('2026-06-01 12:02+00')$$),
              'concat_ws') > 0 AS text_built_when_read;

-- The cached factors are computed from the tree directly, not through
-- sshare_at (whose TRESRunMins read every running job): they must be
-- sshare_at's FairShare to the bit, for Fair Tree with a Fairshare=parent
-- account and for classic fair share with a dampening, two clusters
-- checkpointed at once (cluster NULL), with a job still running at T0.
INSERT INTO clusters (cluster, fairshare_algorithm, fairshare_dampening, decay_half_life)
VALUES ('ft', 'fair_tree', 1, '7 days'), ('cl', 'classic', 3, '7 days');
INSERT INTO partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('ft', 'p', 1, 2, 32, 65536), ('cl', 'p', 1, 2, 32, 65536);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('ft', 'root', NULL, 1), ('ft', 'x', 'root', 3), ('ft', 'y', 'root', 1), ('ft', 'yp', 'y', NULL),
  ('cl', 'root', NULL, 1), ('cl', 'x', 'root', 3), ('cl', 'y', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES
  ('ft', 'x', 'v1', 1), ('ft', 'x', 'v2', 2), ('ft', 'yp', 'v3', 1), ('ft', 'yp', 'v4', 1), ('ft', 'y', 'v5', 1),
  ('cl', 'x', 'v1', 1), ('cl', 'x', 'v2', 2), ('cl', 'y', 'v3', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, nodes)
SELECT c, g::text, u, a, 'p', CASE WHEN g = 9 THEN 'RUNNING' ELSE 'COMPLETED' END,
       '2026-06-01 00:00+00'::timestamptz + g * interval '1 hour', '2026-06-01 00:00+00'::timestamptz + g * interval '1 hour',
       '2026-06-01 00:00+00'::timestamptz + g * interval '1 hour',
       CASE WHEN g = 9 THEN NULL ELSE '2026-06-01 00:30+00'::timestamptz + g * interval '1 hour' + g * interval '7 minutes' END,
       g, 1
  FROM (VALUES ('ft'), ('cl')) k(c),
       LATERAL (VALUES (1, 'v1', 'x'), (2, 'v2', 'x'), (3, 'v3', CASE WHEN c = 'ft' THEN 'yp' ELSE 'y' END),
                       (4, 'v4', 'yp'), (5, 'v5', 'y'), (9, 'v1', 'x')) j(g, u, a)
 WHERE c = 'ft' OR g IN (1, 2, 3, 9);
CALL checkpoint_usage(NULL, '2026-06-01 12:00+00');
SELECT f.cluster, count(*) AS users,
       count(*) FILTER (WHERE f.fairshare IS DISTINCT FROM s.fairshare) AS differ,
       count(DISTINCT f.fairshare) AS distinct_factors
  FROM usage_checkpoint_factor_rows f
  JOIN sshare_at('2026-06-01 12:00+00') s USING (cluster, account, user_name)
 WHERE f.cluster IN ('ft', 'cl') AND f.as_of = '2026-06-01 12:00+00'
 GROUP BY f.cluster ORDER BY f.cluster;
SELECT count(*) FROM sprio_at(NULL);
ROLLBACK;
