\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(40);

-- ---------------------------------------------------------------------------
-- API shape: sprio_at(as_of) + the sprio view, start_next(free, as_of, backfill).
-- ---------------------------------------------------------------------------
SELECT has_function('fairshare', 'sprio_at', ARRAY['timestamp with time zone'], 'sprio_at(as_of) exists');
SELECT volatility_is('fairshare', 'sprio_at', ARRAY['timestamp with time zone'], 'stable',
                     'sprio_at is STABLE (it reads tables)');
SELECT is((SELECT p.proretset FROM pg_catalog.pg_proc p
            WHERE p.oid = 'fairshare.sprio_at(timestamptz)'::regprocedure), true, 'sprio_at returns a set');
SELECT has_view('fairshare', 'sprio', 'view sprio exists');
SELECT columns_are('fairshare', 'sprio', ARRAY[
    'cluster', 'job_id', 'partition', 'user_name', 'account', 'qos', 'priority',
    'age', 'fairshare', 'job_size', 'partition_prio', 'qos_prio', 'nice',
    'age_weighted', 'fairshare_weighted', 'job_size_weighted', 'partition_weighted', 'qos_weighted',
    'priority_exact', 'age_factor', 'fairshare_factor', 'job_size_factor', 'partition_factor', 'qos_factor',
    'submit_time', 'eligible_time', 'explanation'], 'sprio has sprio -l''s columns and the full-precision ones');
SELECT col_type_is('fairshare', 'sprio', 'priority', 'bigint', 'PRIORITY is an integer');
SELECT col_type_is('fairshare', 'sprio', 'fairshare', 'bigint', 'the rounded FAIRSHARE column is an integer');
SELECT col_type_is('fairshare', 'sprio', 'fairshare_weighted', 'double precision', 'the full-precision column is float8');
SELECT has_function('fairshare', 'start_next', ARRAY['jsonb', 'timestamp with time zone', 'boolean'],
                    'start_next(free, as_of, backfill) exists');
SELECT volatility_is('fairshare', 'start_next', ARRAY['jsonb', 'timestamp with time zone', 'boolean'], 'stable',
                     'start_next is STABLE: it only reads');
SELECT is((SELECT p.pronargdefaults::int FROM pg_catalog.pg_proc p
            WHERE p.oid = 'fairshare.start_next(jsonb,timestamptz,boolean)'::regprocedure),
          2, 'as_of defaults to now() and backfill to true');

-- ---------------------------------------------------------------------------
-- A small cluster: weights 1000 age (max age 100 s) and 1000 partition only.
-- ---------------------------------------------------------------------------
INSERT INTO fairshare.clusters (cluster, weight_age, weight_partition, priority_max_age, total_nodes, total_cpus)
VALUES ('tap', 1000, 1000, '100 seconds', 2, 16);
INSERT INTO fairshare.partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('tap', 'a', 1, 2, 8, 1000), ('tap', 'b', 4, 2, 8, 1000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
VALUES ('tap', 'root', NULL, 1), ('tap', 'g', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name) VALUES ('tap', 'g', 'u');
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                            start_time, end_time, cpus) VALUES
  -- pending since 10:00:00: at 10:00:50, age 50/100 × 1000 = 500, partition 4/4 × 1000: 1500
  ('tap', 'j1', 'u', 'g', 'b', 'PENDING', '2026-01-01 10:00:00+00', '2026-01-01 10:00:00+00', NULL, NULL, 4),
  -- started at 10:00:50
  ('tap', 'j2', 'u', 'g', 'a', 'RUNNING', '2026-01-01 10:00:00+00', '2026-01-01 10:00:00+00',
          '2026-01-01 10:00:50+00', NULL, 4),
  -- submitted at 10:00:50
  ('tap', 'j3', 'u', 'g', 'a', 'PENDING', '2026-01-01 10:00:50+00', '2026-01-01 10:00:50+00', NULL, NULL, 4);

SELECT is((SELECT priority FROM fairshare.sprio_at('2026-01-01 10:00:50+00') WHERE job_id = 'j1'),
          1500::bigint, '500 age + 1000 partition = 1500');
SELECT is((SELECT explanation FROM fairshare.sprio_at('2026-01-01 10:00:50+00') WHERE job_id = 'j1'),
          'age: 0-00:00:50 pending / max_age 0-00:01:40 = 0.5 × 1000 = 500; '
          'partition: PriorityJobFactor 4 / max 4 = 1 × 1000 = 1000; total 1500 → 1500',
          'the explanation names the inputs of each weighted factor and the total');
SELECT is((SELECT pg_catalog.string_agg(job_id, ',' ORDER BY job_id) FROM fairshare.sprio_at('2026-01-01 10:00:50+00')
            WHERE cluster = 'tap'), 'j1,j3',
          'a job started at as_of is no longer pending; one submitted at as_of is');
SELECT is((SELECT pg_catalog.string_agg(job_id, ',' ORDER BY job_id) FROM fairshare.sprio_at('2026-01-01 10:00:49+00')
            WHERE cluster = 'tap'), 'j1,j2',
          'one second earlier: j2 still pending, j3 not yet submitted');
SELECT is((SELECT pg_catalog.count(*)::int FROM fairshare.sprio_at('2026-01-01 09:59:59+00') WHERE cluster = 'tap'),
          0, 'before any submission nothing is pending');
-- j2 at its submission: age 0; partition 1/4 × 1000 = 250
SELECT is((SELECT priority FROM fairshare.sprio_at('2026-01-01 10:00:00+00') WHERE job_id = 'j2'),
          250::bigint, 'partition factor 1 of the largest 4');
SELECT is((SELECT fairshare_factor FROM fairshare.sprio_at('2026-01-01 10:00:00+00') WHERE job_id = 'j2'),
          0::float8, 'weight_fairshare 0: the fair-share factor is not computed (0), as in Slurm');
-- now: j1 has waited far longer than 100 s: age 1 × 1000 + 1000 = 2000
SELECT is((SELECT priority FROM fairshare.sprio WHERE job_id = 'j1'), 2000::bigint,
          'the sprio view is sprio_at(now())');
SELECT is((SELECT pg_catalog.count(*)::int FROM fairshare.sprio_at(NULL)), 0, 'NULL as_of gives no rows');
-- The settings below are changed as of 2026-01-01 00:00, before the
-- instants read (sprio_at reads them as of as_of: docs/history.md#the-history-of-the-settings).
SET LOCAL fairshare.tree_change_at = '2026-01-01 00:00:00+00';
-- Cluster size left NULL: summed over the partitions, 2 + 2 nodes, 2×8 + 2×8 CPUs.
-- j1 (1 node, 4 CPUs): (1/4 + 4/32)/2 = 0.1875 × 1000 = 187.5
UPDATE fairshare.clusters SET total_nodes = NULL, total_cpus = NULL, weight_job_size = 1000 WHERE cluster = 'tap';
SELECT is((SELECT job_size_weighted FROM fairshare.sprio_at('2026-01-01 10:00:50+00') WHERE job_id = 'j1'),
          187.5::float8, 'NULL total_nodes/total_cpus: the sums over the cluster''s partitions');
-- favour small: ((4 − 1)/4 + (32 − 4)/32)/2 = (0.75 + 0.875)/2 = 0.8125 × 1000 = 812.5
UPDATE fairshare.clusters SET favor_small = true WHERE cluster = 'tap';
SELECT is((SELECT job_size_weighted FROM fairshare.sprio_at('2026-01-01 10:00:50+00') WHERE job_id = 'j1'),
          812.5::float8, 'favor_small inverts the job-size factor');
SELECT ok((SELECT explanation FROM fairshare.sprio_at('2026-01-01 10:00:50+00') WHERE job_id = 'j1')
          LIKE '%job_size: ((4 − 1 nodes)/4 + (32 − 4 cpus)/32)/2 = 0.8125 × 1000 = 812.5;%',
          'the explanation shows the favour-small formula');
-- QOS: j1 has none; with weight_qos > 0 the factor is 0 and says so.
UPDATE fairshare.clusters SET weight_qos = 10 WHERE cluster = 'tap';
SELECT ok((SELECT explanation FROM fairshare.sprio_at('2026-01-01 10:00:50+00') WHERE job_id = 'j1')
          LIKE '%; qos: none = 0; %', 'a job without QOS has QOS factor 0');
SELECT throws_ok($$SELECT * FROM fairshare.sprio_at('infinity')$$, '22008', NULL, 'infinite as_of');

-- start_next at 10:00:50: j1 (1500, partition b, 4 CPUs) then j3 (250, a, 4 CPUs).
SELECT results_eq(
    $$SELECT job_id, starts FROM fairshare.start_next(
          '[{"cluster": "tap", "partition": "a", "cpus": 4}, {"cluster": "tap", "partition": "b", "cpus": 3}]',
          '2026-01-01 10:00:50+00') ORDER BY queue_position$$,
    $$VALUES ('j1', false), ('j3', true)$$,
    'j1 needs 4 CPUs of b''s 3 and waits; j3 fits in a');
SELECT is((SELECT pg_catalog.count(*)::int FROM fairshare.start_next('[{"cluster": "tap", "partition": "a", "cpus": 8}]')
            WHERE starts), 1, 'as_of defaults to now(): j1 waits for b, j3 starts in a');
SELECT throws_ok($$SELECT * FROM fairshare.start_next(NULL)$$, '22004', NULL, 'NULL free');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[]', '2026-01-01', NULL)$$, '22004', NULL, 'NULL backfill');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[]', NULL)$$, '22004', NULL, 'NULL as_of');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[]', 'infinity')$$, '22008', NULL, 'infinite as_of');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('{}')$$, '22023', NULL, 'free is not an array');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('["a"]')$$, '22023', NULL, 'an element is not an object');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[{"cluster": "tap", "partition": "a", "cores": 4}]')$$,
                 '22023', NULL, 'unknown key');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[{"cluster": "tap", "partition": "zz"}]')$$,
                 '22023', NULL, 'unknown partition');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[{"cluster": "nope", "partition": "a"}]')$$,
                 '22023', NULL, 'unknown cluster');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[{"cluster": "tap", "partition": "a", "gpus": -1}]')$$,
                 '22023', NULL, 'negative free resource');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[{"cluster": "tap", "partition": "a", "mem_mb": true}]')$$,
                 '22023', NULL, 'a free resource that is not a number');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[{"cluster": "tap", "partition": "a"}, {"cluster": "tap", "partition": "a"}]')$$,
                 '22023', NULL, 'a partition given twice');
SELECT throws_ok($$SELECT * FROM fairshare.start_next('[{"cluster": 1, "partition": "a"}]')$$,
                 '22023', NULL, 'a cluster that is not a string');
SELECT * FROM finish();
ROLLBACK;
