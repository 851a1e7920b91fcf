-- pbs: MetaCentrum processor equivalent and usage, PBS step decay with its
-- floor, the PBS fairshare tree (docs/policies.md#metacentrum-usage,
-- docs/policies.md#metacentrum-and-pbs).
-- Every expected number is worked out by hand in the comment beside it.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
SET TimeZone = 'UTC';

-- ===================================================================
-- 1. Processor equivalent: used_r / node_r × node_cpus × weight_r
-- ===================================================================
-- Node A: 32 CPUs, 128 GiB = 131072 MB, 400 GB = 409600 MB scratch, no GPU.
-- Job 1: 8 CPUs, 64 GiB, 100 GB scratch.
--   cpu     8 / 32 × 32            = 8
--   mem     65536 / 131072 × 32    = 16
--   scratch 102400 / 409600 × 32   = 8
--   sum 8 + 16 + 8 + 0 = 32;  max(8, 16, 8, 0) = 16
SELECT * FROM processor_equivalent_parts(8, 65536, 102400, 0, 32, 131072, 409600, 0);
SELECT processor_equivalent(8, 65536, 102400, 0, 32, 131072, 409600, 0) AS sum_default,
       processor_equivalent(8, 65536, 102400, 0, 32, 131072, 409600, 0, mode => 'sum') AS sum,
       processor_equivalent(8, 65536, 102400, 0, 32, 131072, 409600, 0, mode => 'max') AS max;
-- Maui's own example shape: 1 of 4 CPUs and 1 GB of a 2 GB node, max → 0.5 × 4 = 2
SELECT processor_equivalent(1, 1024, 0, 0, 4, 2048, 0, 0, mode => 'max') AS maui_example;

-- Whole node A: every term is 32 → sum 32 × 3 = 96 (no GPU), max 32
SELECT * FROM processor_equivalent_parts(32, 131072, 409600, 0, 32, 131072, 409600, 0);
SELECT processor_equivalent(32, 131072, 409600, 0, 32, 131072, 409600, 0, mode => 'max') AS whole_node_max;

-- GPU job on node B: 64 CPUs, 512 GiB = 524288 MB, 1600 GB scratch, 4 GPUs.
-- Job: 8 CPUs, 64 GiB, no scratch, 1 GPU.
--   cpu 8;  mem 65536 / 524288 × 64 = 8;  scratch 0;  gpu 1 / 4 × 64 = 16
--   sum 8 + 8 + 0 + 16 = 32;  max 16
SELECT * FROM processor_equivalent_parts(8, 65536, 0, 1, 64, 524288, 1638400, 4);
SELECT processor_equivalent(8, 65536, 0, 1, 64, 524288, 1638400, 4, mode => 'max') AS gpu_job_max;

-- Weights: job 1 with memory at 0.5 and GPUs at 2 (no GPU used):
--   8 + 16 × 0.5 + 8 + 0 = 24
SELECT processor_equivalent(8, 65536, 102400, 0, 32, 131072, 409600, 0,
                            weight_mem => 0.5, weight_gpu => 2) AS weighted;
-- weight 0 drops a resource: 8 + 16 + 0 = 24
SELECT processor_equivalent(8, 65536, 102400, 0, 32, 131072, 409600, 0, weight_scratch => 0) AS no_scratch;

-- Two whole nodes A: cpu 64 / 32 × 32 = 64, mem 262144 / 131072 × 32 = 64,
-- scratch 0 → sum 128, max 64
SELECT processor_equivalent(64, 262144, 0, 0, 32, 131072, 409600, 0, nodes => 2) AS two_nodes_sum,
       processor_equivalent(64, 262144, 0, 0, 32, 131072, 409600, 0, nodes => 2, mode => 'max') AS two_nodes_max;

-- A resource the node does not have, not requested: term 0 (node without scratch)
SELECT processor_equivalent(4, 1024, 0, 0, 8, 8192, 0, 0) AS no_scratch_node;  -- 4 + 1024/8192 × 8 = 4 + 1 = 5
-- Nothing used: 0
SELECT processor_equivalent(0, 0, 0, 0, 8, 8192, 0, 0) AS idle;
-- NULL in, NULL out (STRICT)
SELECT processor_equivalent(NULL, 0, 0, 0, 8, 8192, 0, 0) IS NULL AS null_gives_null;

-- ===================================================================
-- 2. Usage = spec × walltime × PE
-- ===================================================================
-- Job 1 (PE 32) for 2 hours:
--   spec 3:  3 × 7200 s × 32 = 691200 spec-CPU-seconds = 192 spec-CPU-hours
--   spec 10: 10 × 7200 × 32 = 2304000                  = 640
SELECT metacentrum_usage(32, '2 hours', 3) AS spec3,
       metacentrum_usage(32, '2 hours', 10) AS spec10,
       metacentrum_usage(32, '2 hours', 3) / 3600 AS spec3_hours,
       metacentrum_usage(32, '2 hours', 10) / 3600 AS spec10_hours;
-- per resource (sum mode parts 8, 16, 8, 0 at spec 3, 2 h): 172800, 345600, 172800, 0;
-- they add up to the total 691200
SELECT metacentrum_usage(p.cpu, '2 hours', 3) AS cpu, metacentrum_usage(p.mem, '2 hours', 3) AS mem,
       metacentrum_usage(p.scratch, '2 hours', 3) AS scratch, metacentrum_usage(p.gpu, '2 hours', 3) AS gpu,
       metacentrum_usage(p.total, '2 hours', 3) AS total
  FROM processor_equivalent_parts(8, 65536, 102400, 0, 32, 131072, 409600, 0) p;
-- the same job on the slower node is charged 3/10 of the faster one: 691200 / 2304000 = 0.3
SELECT metacentrum_usage(32, '2 hours', 3) / metacentrum_usage(32, '2 hours', 10) AS ratio;
-- zero walltime: 0
SELECT metacentrum_usage(32, '0', 5) AS no_time;

-- ===================================================================
-- 3. PBS step decay with the floor of 1: decayed_usage_pbs
-- ===================================================================
-- decay_interval 1 day, factor 0.5; boundaries at 00:00 UTC.  The entity
-- starts at 1; a charge of 100 on Jan 1 gives 1 + 100 = 101, then
-- ×0.5 at every midnight: 50.5, 25.25, 12.625, 6.3125, 3.15625,
-- 1.578125, then 0.7890625 < 1 → 1, and 1 from then on.
SELECT k AS days_later,
       decayed_usage_pbs(100, '2024-01-01 10:00+00', '2024-01-01 12:00+00'::timestamptz + k * interval '1 day',
                         '1 day', 0.5) AS pbs,
       decayed_usage_step(100, '2024-01-01 10:00+00', '2024-01-01 12:00+00'::timestamptz + k * interval '1 day',
                          '1 day', 0.5) AS without_floor   -- 100 × 0.5^k
  FROM generate_series(0, 9) k GROUP BY k ORDER BY k;

-- The floor changes what comes after: 100 on Jan 1, 10 on Jan 9.
--   Jan 1..7: 101 … 1.578125 (Jan 7), Jan 8: 1 (floored), Jan 9: max(1, 0.5) + 10 = 11
--   Jan 10: 5.5, Jan 11: 2.75, Jan 12: 1.375, Jan 13: max(1, 0.6875) = 1
--   without the floor on Jan 9: 100 / 2^8 + 10 = 10.390625
SELECT d::date AS as_of,
       decayed_usage_pbs(u, at, d + interval '12 hours', '1 day', 0.5) AS pbs,
       decayed_usage_step(u, at, d + interval '12 hours', '1 day', 0.5) AS without_floor
  FROM (VALUES (100::float8, '2024-01-01 10:00+00'::timestamptz), (10, '2024-01-09 06:00+00')) c(u, at),
       generate_series('2024-01-08 00:00+00'::timestamptz, '2024-01-13 00:00+00', '1 day') d
 GROUP BY d ORDER BY d;

-- Charges in the same interval add: 30 + 70 on Jan 1 → 1 + 100 = 101
SELECT decayed_usage_pbs(u, at, '2024-01-01 23:00+00', '1 day', 0.5) AS same_day
  FROM (VALUES (30::float8, '2024-01-01 01:00+00'::timestamptz), (70, '2024-01-01 22:00+00')) c(u, at);
-- Factor 1 never decays: 1 + 30 + 70 = 101 a year later; NULL interval: no decay either
SELECT decayed_usage_pbs(u, at, '2025-01-01', '1 day', 1) AS factor_one,
       decayed_usage_pbs(u, at, '2025-01-01', NULL, NULL) AS no_decay
  FROM (VALUES (30::float8, '2024-01-01 01:00+00'::timestamptz), (70, '2024-01-01 22:00+00')) c(u, at);
-- Factor 0: everything is gone after one boundary → 1; same interval → 101
SELECT decayed_usage_pbs(100, '2024-01-01 10:00+00', '2024-01-02 00:00+00', '1 day', 0) AS next_day,
       decayed_usage_pbs(100, '2024-01-01 10:00+00', '2024-01-01 23:59+00', '1 day', 0) AS same_day;
-- Weekly steps of 0.9 (a 30-day memory): 1000 on Mon 2024-01-01 (Unix weeks start on
-- Thursdays: 1970-01-01 was one; the boundaries are Thu 2024-01-04, -11, -18, -25).
--   as of Jan 30: 1001 × 0.9^4 = 1001 × 0.6561 = 656.7561
SELECT decayed_usage_pbs(1000, '2024-01-01 12:00+00', '2024-01-30 00:00+00', '7 days', 0.9) AS weekly;
-- Usage after as_of does not count: the entity is at 1; no row at all: NULL
SELECT decayed_usage_pbs(100, '2024-02-01', '2024-01-01', '1 day', 0.5) AS future_only;
SELECT decayed_usage_pbs(u, now(), now(), '1 day', 0.5) AS no_rows FROM (SELECT 1::float8 WHERE false) t(u);
-- NULL usage or instant is ignored (as sum() does): 1 + 5
SELECT decayed_usage_pbs(u, at, '2024-01-01 12:00+00', '1 day', 0.5) AS nulls_skipped
  FROM (VALUES (NULL::float8, '2024-01-01 01:00+00'::timestamptz), (5, NULL), (5, '2024-01-01 02:00+00')) c(u, at);

-- Usage accrued over a run.  480 over 2024-01-01 12:00 .. 01-03 12:00 (10 per hour):
--   Jan 1: 12 h → 120: 1 + 120 = 121
--   Jan 2: 24 h → 240: 121 × 0.5 + 240 = 300.5
--   Jan 3: 12 h → 120: 300.5 × 0.5 + 120 = 270.25
-- and as of Jan 2 18:00 (still running then): 121 × 0.5 + 18 × 10 = 240.5
SELECT decayed_usage_pbs(480, '2024-01-01 12:00+00', '2024-01-03 12:00+00', '2024-01-03 12:00+00', '1 day', 0.5) AS ended,
       decayed_usage_pbs(480, '2024-01-01 12:00+00', '2024-01-03 12:00+00', '2024-01-02 18:00+00', '1 day', 0.5) AS running,
       decayed_usage_pbs(480, '2024-01-01 12:00+00', '2024-01-03 12:00+00', '2024-01-05 00:00+00', '1 day', 0.5) AS later;
       -- later: Jan 4 135.125, Jan 5 67.5625
-- A slow run held at the floor: 2 over 10 days (0.2 a day) from Jan 1 00:00.
-- Each day max(1, 0.5 v) + 0.2 = 1.2 (0.5 × 1.2 = 0.6 < 1); as of Jan 10 12:00: 1 + 0.1 = 1.1.
-- Without the floor it would tend to 0.2 / (1 − 0.5) = 0.4.
SELECT decayed_usage_pbs(2, '2024-01-01 00:00+00', '2024-01-11 00:00+00', '2024-01-10 12:00+00', '1 day', 0.5) AS held_at_floor;
-- A big charge decaying into a slow run: 1000 on Dec 31, then 0.2 a day from Jan 1 for 20 days.
--   Dec 31: 1001; Jan 1: 500.5 + .2 = 500.7; Jan 2: 250.55; Jan 3: 125.475; Jan 4: 62.9375;
--   Jan 5: 31.66875; Jan 6: 16.034375; Jan 7: 8.2171875; Jan 8: 4.30859375;
--   Jan 9: 2.354296875; Jan 10 (12 h, 0.1): 1.1771484375 + 0.1 = 1.2771484375
--   Jan 10 whole: 1.3771484375; Jan 11: 0.5 × 1.3771484375 = 0.688… < 1 → floor 1, and by
--   23:00 23 h of 0.2 a day: 1 + 0.2 × 23/24 = 1.191667; the same any later day at 23:00
--   (each day: max(1, 0.5 × 1.2) + ... , held at the floor)
SELECT decayed_usage_pbs(u, s, e, a, '1 day', 0.5) AS run_into_floor, a
  FROM (VALUES (1000::float8, '2023-12-31 12:00+00'::timestamptz, '2023-12-31 12:00+00'::timestamptz),
               (4, '2024-01-01 00:00+00', '2024-01-21 00:00+00')) c(u, s, e),
       (VALUES ('2024-01-10 12:00+00'::timestamptz), ('2024-01-11 23:00+00'), ('2024-01-18 23:00+00')) t(a)
 GROUP BY a ORDER BY a;

-- The same, checked against a day-by-day replay written independently
-- (recursive CTE: v ← max(1, 0.5 v) + that day's charge), over 60 days
-- of random jobs for 4 users, and in a parallel plan (combine, serial).
-- (a plain table: parallel workers cannot read temporary ones; dropped below)
CREATE TABLE pbs_jobs AS
SELECT (i % 4) AS uid,
       '2024-03-01 00:00+00'::timestamptz + (i * 7919 % 5000) * interval '17 minutes' AS s,
       (i * 31 % 50 + 1) * interval '1 hour' AS len,
       (i * 13 % 97 + 1)::float8 AS u
  FROM generate_series(1, 400) i;
ANALYZE pbs_jobs;
CREATE TEMP TABLE pbs_days AS
SELECT j.uid, d::date AS day,
       sum(j.u * EXTRACT(epoch FROM LEAST(j.s + j.len, d + interval '1 day', '2024-05-01 00:00+00') - GREATEST(j.s, d))
           / EXTRACT(epoch FROM j.len)) AS c
  FROM pbs_jobs j
  JOIN generate_series('2024-03-01 00:00+00'::timestamptz, '2024-04-30 00:00+00', '1 day') d
    ON j.s < d + interval '1 day' AND j.s + j.len > d AND d < '2024-05-01 00:00+00'
 GROUP BY j.uid, d;
CREATE TEMP TABLE pbs_replay AS
WITH RECURSIVE r(uid, day, v) AS (
    SELECT u.uid, '2024-03-01'::date, 1 + COALESCE((SELECT c FROM pbs_days WHERE uid = u.uid AND day = '2024-03-01'), 0)
      FROM generate_series(0, 3) u(uid)
    UNION ALL
    SELECT r.uid, r.day + 1, GREATEST(1, 0.5 * r.v) + COALESCE((SELECT c FROM pbs_days d WHERE d.uid = r.uid AND d.day = r.day + 1), 0)
      FROM r WHERE r.day < '2024-05-01'
)
SELECT uid, day, v FROM r;
-- as of midnight starting day D nothing of D is charged yet: max(1, 0.5 × v(D − 1))
CREATE TEMP TABLE pbs_check AS
SELECT r.uid, r.day + 1 AS as_of_day, GREATEST(1, 0.5 * r.v) AS expected
  FROM pbs_replay r WHERE r.day + 1 IN ('2024-03-05', '2024-03-20', '2024-04-01', '2024-04-17', '2024-05-01');
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2; SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT uid, decayed_usage_pbs(u, s, s + len, '2024-05-01 00:00+00', '1 day', 0.5) FROM pbs_jobs GROUP BY uid;
CREATE TEMP TABLE pbs_parallel AS
SELECT uid, d AS as_of_day, decayed_usage_pbs(u, s, s + len, d::timestamp AT TIME ZONE 'UTC', '1 day', 0.5) AS v
  FROM pbs_jobs, unnest('{2024-03-05,2024-03-20,2024-04-01,2024-04-17,2024-05-01}'::date[]) d
 GROUP BY uid, d;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather; RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
SELECT c.as_of_day, c.uid, round(c.expected::numeric, 6) AS replay,
       abs(a.v - c.expected) <= 1e-9 * c.expected AS serial_matches_replay,
       abs(p.v - a.v) <= 1e-9 * a.v AS parallel_matches_serial
  FROM pbs_check c
  JOIN (SELECT uid, d AS as_of_day, decayed_usage_pbs(u, s, s + len, d::timestamp AT TIME ZONE 'UTC', '1 day', 0.5) AS v
          FROM pbs_jobs, unnest('{2024-03-05,2024-03-20,2024-04-01,2024-04-17,2024-05-01}'::date[]) d
         GROUP BY uid, d) a USING (uid, as_of_day)
  JOIN pbs_parallel p USING (uid, as_of_day)
 ORDER BY c.as_of_day, c.uid;
RESET max_parallel_workers_per_gather;
DROP TABLE pbs_jobs;
-- as a window aggregate (the final function leaves the state intact):
-- 1 + 10 = 11, then 11 + 20 = 31, then 31 + 30 = 61 (all on Jan 1)
SELECT u, decayed_usage_pbs(u, at, '2024-01-01 23:00+00', '1 day', 0.5) OVER (ORDER BY at) AS running
  FROM (VALUES (10::float8, '2024-01-01 01:00+00'::timestamptz), (20, '2024-01-01 02:00+00'), (30, '2024-01-01 03:00+00')) c(u, at);

-- ===================================================================
-- 4. The PBS fairshare tree
-- ===================================================================
-- OpenPBS test/tests/functional/pbs_fairshare.py, set_up_resource_group():
--   group1 (40), group2 (60) under root; "unknown" (unknown_shares 0) is always there
--   pbsuser, pbsuser1 in group1 (50 each); pbsuser2 (60), pbsuser3 (40) in group2
--   usage: pbsuser 100, pbsuser1 100, pbsuser3 1000, pbsuser2 none (1)
-- usage:   group1 = 1 + 100 + 100 = 201; group2 = 1 + 1000 = 1001 (pbsuser2 at 1 adds
--          nothing); root = 1 + 1200 = 1201
-- perc:    pbsuser 0.5 × 0.4 = 0.2, pbsuser1 0.2, pbsuser2 0.6 × 0.6 = 0.36, pbsuser3 0.4 × 0.6 = 0.24
--          (the test's fairshare_perc: 0.2, 0.2, 0.36, 0.24)
-- tree usage: group1 201/1201 = 0.167361; group2 1001/1201 = 0.833472
--   pbsuser  100/1201 = 0.083264 + (0.167361 − 0.083264) × 0.5 = 0.125312   (test: 0.1253)
--   pbsuser2 1/1201   = 0.000833 + (0.833472 − 0.000833) × 0.6 = 0.500416   (test: 0.5004)
--   pbsuser3 1000/1201 = 0.832639 + (0.833472 − 0.832639) × 0.4 = 0.832973  (test: 0.8330)
-- factor:  pbsuser 2^(−0.125312/0.2) = 2^−0.62656 = 0.6477; pbsuser2 2^(−0.500416/0.36)
--          = 2^−1.39004 = 0.3816; pbsuser3 2^(−0.832973/0.24) = 2^−3.47072 = 0.0902
--          (the test's fairshare_factor: 0.6477, 0.6477, 0.3816, 0.0902)
-- order:   pbsuser, pbsuser1 (tied), pbsuser2, pbsuser3 (test_fairshare_formula4)
-- groups:  group1 2^(-0.167361/0.4) = 0.7483, group2 2^(-0.833472/0.6) = 0.3818;
--          unknown: usage 1, 1/1201 = 0.0008, perc 0, so factor 0
CREATE TEMP TABLE pbs_test_tree (id text, parent_id text, shares float8, usage float8, is_user boolean);
INSERT INTO pbs_test_tree VALUES
  ('root', NULL, NULL, 0, false), ('unknown', 'root', 0, 0, false),
  ('group1', 'root', 40, 0, false), ('group2', 'root', 60, 0, false),
  ('pbsuser', 'group1', 50, 100, true), ('pbsuser1', 'group1', 50, 100, true),
  ('pbsuser2', 'group2', 60, 0, true), ('pbsuser3', 'group2', 40, 1000, true);
SELECT id,
       pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER () AS perc,
       pbs_fairshare_usage(id, parent_id, shares, usage, is_user) OVER () AS usage,
       round(pbs_tree_usage(id, parent_id, shares, usage, is_user) OVER ()::numeric, 4) AS tree_usage,
       round(pbs_fairshare_factor(id, parent_id, shares, usage, is_user) OVER ()::numeric, 4) AS factor,
       pbs_fairshare_rank(id, parent_id, shares, usage, is_user) OVER () AS rank
  FROM pbs_test_tree ORDER BY rank NULLS LAST, id;

-- test_pbsfs: two users under root, 10 shares each.  TEST_USER at 100, TEST_USER1 at 1:
-- keys 100/0.5 = 200 and 1/0.5 = 2 → TEST_USER1's job first.  Then TEST_USER1 at 50,
-- TEST_USER at 1: 100 and 2 → TEST_USER first.
SELECT run, id, pbs_fairshare_rank(id, parent_id, shares, usage, is_user) OVER (PARTITION BY run) AS rank
  FROM (VALUES (1, 'root', NULL, NULL, 0::float8, false), (1, 'tuser', 'root', 10, 100, true), (1, 'tuser1', 'root', 10, 0, true),
               (2, 'root', NULL, NULL, 0, false), (2, 'tuser', 'root', 10, 0, true), (2, 'tuser1', 'root', 10, 50, true))
       t(run, id, parent_id, shares, usage, is_user)
 ORDER BY run, rank NULLS FIRST;

-- Three levels.  root: A (1), B (3); A: a1 (1), A2 (1); A2: x (2), y (2); B: b1 (1).
-- usage a1 10, x 30, y 0 (→ 1), b1 60; so A2 = 1 + 30 = 31, A = 1 + 10 + 30 = 41,
-- B = 1 + 60 = 61, root = 1 + 100 = 101.
-- perc: A .25, B .75, a1 .125, A2 .125, x .0625, y .0625, b1 .75
-- tree usage: A 41/101 = 0.405941, B 61/101 = 0.603960
--   a1 10/101 + (0.405941 − 0.099010) × 0.5 = 0.252475
--   A2 31/101 + (0.405941 − 0.306931) × 0.5 = 0.356436
--   x  30/101 + (0.356436 − 0.297030) × 0.5 = 0.326733
--   y   1/101 + (0.356436 − 0.009901) × 0.5 = 0.183168
--   b1 60/101 + (0.603960 − 0.594059) × 1   = 0.603960
-- factor: a1 2^(−0.252475/0.125) = 0.246592, A2 0.138553, x 2^(−0.326733/0.0625) = 0.026687,
--   y 2^(−0.183168/0.0625) = 0.131152, b1 2^(−0.603960/0.75) = 0.572251, A 0.324488, B 0.572251
-- rank: B (61/.75 = 81.3) before A (41/.25 = 164): b1 1; in A: a1 (10/.125 = 80)
--   before A2 (248): a1 2; in A2: y (1/.0625 = 16) before x (480): y 3, x 4
CREATE TEMP TABLE pbs_deep (id text, parent_id text, shares float8, usage float8, is_user boolean);
INSERT INTO pbs_deep VALUES
  ('root', NULL, 1, 0, false), ('A', 'root', 1, 0, false), ('B', 'root', 3, 0, false),
  ('a1', 'A', 1, 10, true), ('A2', 'A', 1, 0, false), ('x', 'A2', 2, 30, true), ('y', 'A2', 2, 0, true),
  ('b1', 'B', 1, 60, true);
SELECT id,
       pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER () AS perc,
       pbs_fairshare_usage(id, parent_id, shares, usage, is_user) OVER () AS usage,
       round(pbs_tree_usage(id, parent_id, shares, usage, is_user) OVER ()::numeric, 6) AS tree_usage,
       round(pbs_fairshare_factor(id, parent_id, shares, usage, is_user) OVER ()::numeric, 6) AS factor,
       pbs_fairshare_rank(id, parent_id, shares, usage, is_user) OVER () AS rank
  FROM pbs_deep ORDER BY id;

-- Ties.  root: G1 (1), G2 (1), t (2, a user); G1: p 5, q 15; G2: r 10, s 10 (shares 1 each).
-- usage: G1 = G2 = 1 + 20 = 21, t 42, root = 1 + 20 + 20 + 42 = 83.
-- keys: G1 = G2 = 21/0.25 = 84 = t's 42/0.5: t first (a user before groups on a tie),
-- then G1's and G2's children merged: p 5/.125 = 40, r = s = 10/.125 = 80, q 120
--   → t 1, p 2, r 3, s 3 (tied), q 5.
-- A group with no shares (Z, 0): perc 0, factor 0; its users z1, z2 tie behind everyone: 6, 6.
SELECT id, pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER () AS perc,
       pbs_fairshare_factor(id, parent_id, shares, usage, is_user) OVER () AS factor,
       pbs_fairshare_rank(id, parent_id, shares, usage, is_user) OVER () AS rank
  FROM (VALUES ('root', NULL, NULL, 0::float8, false),
               ('G1', 'root', 1, 0, false), ('G2', 'root', 1, 0, false), ('t', 'root', 2, 42, true),
               ('p', 'G1', 1, 5, true), ('q', 'G1', 1, 15, true), ('r', 'G2', 1, 10, true), ('s', 'G2', 1, 10, true),
               ('Z', 'root', 0, 0, false), ('z1', 'Z', 1, 5, true), ('z2', 'Z', 1, 500, true))
       t(id, parent_id, shares, usage, is_user)
 ORDER BY rank NULLS LAST, id;

-- A group's own usage counts for it and above: root: g (1), h (1); g has own usage 9 and
-- user gu 0 (→ 1); h: hu 10.  g = 1 + 9 = 10, h = 1 + 10 = 11, root = 1 + 19 = 20.
-- tree usage g 10/20 = 0.5, h 11/20 = 0.55; gu 1/20 + (0.5 − 0.05) × 1 = 0.5
SELECT id, pbs_fairshare_usage(id, parent_id, shares, usage, is_user) OVER () AS usage,
       pbs_tree_usage(id, parent_id, shares, usage, is_user) OVER () AS tree_usage
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('g', 'root', 1, 9, false), ('h', 'root', 1, 0, false),
               ('gu', 'g', 1, 0, true), ('hu', 'h', 1, 10, true)) t(id, parent_id, shares, usage, is_user)
 ORDER BY id;

-- Several trees side by side, one per partition; a lone root has no entity to rank.
SELECT c, id, pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER (PARTITION BY c) AS perc,
       pbs_fairshare_rank(id, parent_id, shares, usage, is_user) OVER (PARTITION BY c) AS rank
  FROM (VALUES (1, 'root', NULL, NULL, 0::float8, false), (2, 'root', NULL, NULL, 0, false), (2, 'u', 'root', 3, 0, true))
       t(c, id, parent_id, shares, usage, is_user)
 ORDER BY c, id;

-- Bad trees: each error names the row.
\set VERBOSITY default
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('a', 'b', 1, 0::float8, false), ('b', 'a', 1, 0, false)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('r1', NULL, 1, 0::float8, false), ('r2', NULL, 1, 0, false)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('a', 'b', 1, 0, false), ('b', 'a', 1, 0, false)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('a', 'a', 1, 0, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'nowhere', 1, 0, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', 1, 0, true), ('u', 'root', 1, 0, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', 1, 0, true), ('v', 'u', 1, 0, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', -1, 0, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', 1, 'NaN', true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', 1, '-Infinity', true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', NULL, 0, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', 1, NULL, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), (NULL, 'root', 1, 0, true)) t(id, parent_id, shares, usage, is_user);
SELECT pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()
  FROM (VALUES ('root', NULL, 1, 0::float8, false), ('u', 'root', 1, 0, NULL)) t(id, parent_id, shares, usage, is_user);

-- Bad inputs to the processor equivalent, usage and decay
SELECT processor_equivalent(40, 0, 0, 0, 32, 131072, 0, 0);            -- more CPUs than the node
SELECT processor_equivalent(8, 0, 0, 1, 32, 131072, 0, 0);             -- a GPU the node does not have
SELECT processor_equivalent(8, -1, 0, 0, 32, 131072, 0, 0);            -- negative memory
SELECT processor_equivalent(8, 'NaN', 0, 0, 32, 131072, 0, 0);
SELECT processor_equivalent(0, 0, 0, 0, 0, 131072, 0, 0);              -- a node without CPUs
SELECT processor_equivalent(8, 0, 0, 0, 32, 131072, 0, 0, mode => 'avg');
SELECT processor_equivalent(8, 0, 0, 0, 32, 131072, 0, 0, nodes => 0);
SELECT processor_equivalent(8, 0, 0, 0, 32, 131072, 0, 0, weight_gpu => -1);
SELECT metacentrum_usage(32, '-1 hour', 3);
SELECT metacentrum_usage(32, '1 hour', 0);
SELECT metacentrum_usage(-1, '1 hour', 3);
SELECT decayed_usage_pbs(-5, '2024-01-01', '2024-01-02', '1 day', 0.5);
SELECT decayed_usage_pbs(5, '2024-01-01', '2024-01-02', '1 day', 1.5);
SELECT decayed_usage_pbs(5, '2024-01-01', '2024-01-02', '0', 0.5);
SELECT decayed_usage_pbs(5, '2024-01-01', NULL, '1 day', 0.5);
SELECT decayed_usage_pbs(5, 'infinity', '2024-01-02', '1 day', 0.5);
SELECT decayed_usage_pbs(5, '2024-01-02', '2024-01-01', '2024-01-03', '1 day', 0.5);
SELECT decayed_usage_pbs(5, '2024-01-01', a, '1 day', 0.5)
  FROM (VALUES ('2024-01-02'::timestamptz), ('2024-01-03')) t(a);
SELECT decayed_usage_pbs(5, '2024-01-01', '2024-01-02', i, 0.5)
  FROM (VALUES ('1 day'::interval), ('2 days')) t(i);
