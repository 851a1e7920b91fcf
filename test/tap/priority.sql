\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(62);

-- ---------------------------------------------------------------------------
-- API shape of the pure priority functions (docs/design.md#two-layers: pure,
-- IMMUTABLE, PARALLEL SAFE, STRICT or documented NULL behaviour).
-- ---------------------------------------------------------------------------
SELECT has_function('fairshare', 'job_priority',
    ARRAY['double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'bigint'],
    'job_priority(fairshare, age, job_size, partition, qos, 5 weights, nice) exists');
SELECT function_returns('fairshare', 'job_priority',
    ARRAY['double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'bigint'], 'bigint',
    'job_priority returns bigint');
SELECT volatility_is('fairshare', 'job_priority',
    ARRAY['double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'bigint'], 'immutable',
    'job_priority is IMMUTABLE');
SELECT is_strict('fairshare', 'job_priority',
    ARRAY['double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'double precision', 'double precision',
          'double precision', 'double precision', 'bigint'],
    'job_priority is STRICT');
SELECT is((SELECT pg_catalog.array_to_string(p.proargnames, ',')
             FROM pg_catalog.pg_proc p
            WHERE p.oid = 'fairshare.job_priority(float8,float8,float8,float8,float8,float8,float8,float8,float8,float8,bigint)'::regprocedure),
          'fairshare,age,job_size,partition,qos,weight_fairshare,weight_age,weight_job_size,weight_partition,weight_qos,nice',
          'job_priority argument names');
SELECT is((SELECT p.pronargdefaults::int FROM pg_catalog.pg_proc p
            WHERE p.oid = 'fairshare.job_priority(float8,float8,float8,float8,float8,float8,float8,float8,float8,float8,bigint)'::regprocedure),
          10, 'every argument after fairshare has a default');

SELECT has_function('fairshare', 'age_factor', ARRAY['timestamp with time zone', 'timestamp with time zone', 'interval'],
    'age_factor(eligible, as_of, max_age) exists');
SELECT volatility_is('fairshare', 'age_factor', ARRAY['timestamp with time zone', 'timestamp with time zone', 'interval'],
    'immutable', 'age_factor is IMMUTABLE');
SELECT isnt_strict('fairshare', 'age_factor', ARRAY['timestamp with time zone', 'timestamp with time zone', 'interval'],
    'age_factor is not STRICT: a NULL eligible time means not eligible (0)');
SELECT has_function('fairshare', 'job_size_factor', ARRAY['bigint', 'bigint', 'bigint', 'bigint', 'boolean'],
    'job_size_factor(nodes, cpus, total_nodes, total_cpus, favor_small) exists');
SELECT is_strict('fairshare', 'job_size_factor', ARRAY['bigint', 'bigint', 'bigint', 'bigint', 'boolean'],
    'job_size_factor is STRICT');
SELECT volatility_is('fairshare', 'job_size_factor', ARRAY['bigint', 'bigint', 'bigint', 'bigint', 'boolean'],
    'immutable', 'job_size_factor is IMMUTABLE');
SELECT has_function('fairshare', 'partition_factor', ARRAY['bigint', 'bigint'], 'partition_factor exists');
SELECT is_strict('fairshare', 'partition_factor', ARRAY['bigint', 'bigint'], 'partition_factor is STRICT');
SELECT has_function('fairshare', 'qos_factor', ARRAY['bigint', 'bigint'], 'qos_factor exists');
SELECT is_strict('fairshare', 'qos_factor', ARRAY['bigint', 'bigint'], 'qos_factor is STRICT');
SELECT is((SELECT pg_catalog.count(*)::int FROM pg_catalog.pg_proc p
            WHERE p.pronamespace = 'fairshare'::regnamespace
              AND p.proname IN ('job_priority', 'age_factor', 'job_size_factor', 'partition_factor', 'qos_factor')
              AND p.proparallel = 's'),
          5, 'the five priority functions are PARALLEL SAFE');

-- ---------------------------------------------------------------------------
-- Defined answers (worked in sql/priority.sql).
-- ---------------------------------------------------------------------------
-- 90000×0.5 + 5000×0.5 + 5000×0.15 = 48250
SELECT is(fairshare.job_priority(0.5, 0.5, 0.15, weight_fairshare => 90000, weight_age => 5000,
                                 weight_job_size => 5000), 48250::bigint, 'PROTEUS weights');
-- (7/10)×90000 = 62999.99999999999 in double → 62999
SELECT is(fairshare.job_priority(7::float8 / 10, weight_fairshare => 90000), 62999::bigint,
          'truncates the double sum, as Slurm does');
-- (1700.0000000000002 + 31499.999999999996) + 2849.9999999999995 = 36050
SELECT is(fairshare.job_priority(0.35, 0.34, 0.57, weight_fairshare => 90000, weight_age => 5000,
                                 weight_job_size => 5000), 36050::bigint, 'adds in Slurm''s order');
-- 70000×0.5 + 30000×1 = 65000
SELECT is(fairshare.job_priority(0.5, partition => 1, weight_fairshare => 70000, weight_partition => 30000),
          65000::bigint, 'CALI weights');
-- 0.99999×1000 = 999.99 → 999
SELECT is(fairshare.job_priority(0.99999, weight_fairshare => 1000), 999::bigint, 'truncated, not rounded');
SELECT is(fairshare.job_priority(0), 1::bigint, 'an empty sum gives 1 (0 is for held jobs)');
SELECT is(fairshare.job_priority(1, weight_fairshare => 100, nice => 1000), 1::bigint, 'below 1 gives 1');
SELECT is(fairshare.job_priority(1, 1, weight_fairshare => 4294967295, weight_age => 4294967295),
          4294967295::bigint, 'capped at 4294967295');
SELECT is(fairshare.job_priority(0.5, weight_fairshare => 70000, nice => -100), 35100::bigint,
          'a negative nice adds');
SELECT is(fairshare.job_priority(0.5, weight_fairshare => 70000, nice => 100), 34900::bigint,
          'a positive nice subtracts');
SELECT ok(fairshare.job_priority(NULL) IS NULL, 'NULL factor gives NULL');
SELECT ok(fairshare.job_priority(0.5, nice => NULL) IS NULL, 'NULL nice gives NULL');
SELECT is(fairshare.age_factor('2026-03-01 00:00+00', '2026-03-04 04:00+00', '14 days'),
          273600::float8 / 1209600, 'age: 3 days 04:00 of 14 days');
SELECT is(fairshare.age_factor(NULL, '2026-03-04 04:00+00', '14 days'), 0::float8,
          'age: never eligible gives 0');
SELECT is(fairshare.age_factor('2026-03-05', '2026-03-04', '14 days'), 0::float8,
          'age: eligible later than as_of gives 0');
SELECT is(fairshare.age_factor('2026-03-01', '2026-03-04', '0'), 1::float8,
          'age: PriorityMaxAge 0 gives 1 to an eligible job');
SELECT ok(fairshare.age_factor('2026-03-01', NULL, '14 days') IS NULL, 'age: NULL as_of gives NULL');
SELECT ok(fairshare.age_factor('2026-03-01', '2026-03-04', NULL) IS NULL, 'age: NULL max_age gives NULL');
SELECT is(fairshare.job_size_factor(3, 0, 12, 768), 0.25::float8, 'job size: cpus 0 uses 3/12 alone');
SELECT is(fairshare.job_size_factor(4, 128, 16, 1024, true), 0.8125::float8,
          'job size: favor_small (0.75 + 0.875)/2');
SELECT is(fairshare.job_size_factor(32, 2048, 16, 1024), 1::float8, 'job size: clamped to 1');
SELECT is(fairshare.partition_factor(0, 0), 0::float8, 'partition: all factors 0 gives 0');
SELECT is(fairshare.qos_factor(10, 20), 0.5::float8, 'qos: 10 of 20');

-- ---------------------------------------------------------------------------
-- Bad input: SQLSTATE 22023 (22008 for infinite instants).
-- ---------------------------------------------------------------------------
SELECT throws_ok('SELECT fairshare.job_priority(1.5)', '22023', NULL, 'fairshare factor above 1');
SELECT throws_ok('SELECT fairshare.job_priority(-0.5)', '22023', NULL, 'fairshare factor below 0');
SELECT throws_ok($$SELECT fairshare.job_priority('NaN')$$, '22023', NULL, 'fairshare factor NaN');
SELECT throws_ok('SELECT fairshare.job_priority(0.5, age => 2)', '22023', NULL, 'age factor above 1');
SELECT throws_ok('SELECT fairshare.job_priority(0.5, job_size => -1)', '22023', NULL, 'job size factor below 0');
SELECT throws_ok($$SELECT fairshare.job_priority(0.5, partition => 'Infinity')$$, '22023', NULL,
                 'partition factor Infinity');
SELECT throws_ok($$SELECT fairshare.job_priority(0.5, qos => 'NaN')$$, '22023', NULL, 'qos factor NaN');
SELECT throws_ok('SELECT fairshare.job_priority(0.5, weight_fairshare => -1)', '22023', NULL,
                 'negative weight');
SELECT throws_ok($$SELECT fairshare.job_priority(0.5, weight_age => 'NaN')$$, '22023', NULL, 'NaN weight');
SELECT throws_ok($$SELECT fairshare.job_priority(0.5, weight_qos => 'Infinity')$$, '22023', NULL,
                 'infinite weight');
SELECT throws_ok($$SELECT fairshare.job_priority(0.5, weight_partition => '-Infinity')$$, '22023', NULL,
                 'minus-infinite weight');
SELECT throws_ok($$SELECT fairshare.age_factor('2026-03-01', '2026-03-02', '-1 second')$$, '22023', NULL,
                 'negative max_age');
SELECT throws_ok($$SELECT fairshare.age_factor('2026-03-01', 'infinity', '14 days')$$, '22008', NULL,
                 'infinite as_of');
SELECT throws_ok($$SELECT fairshare.age_factor('-infinity', '2026-03-02', '14 days')$$, '22008', NULL,
                 'infinite eligible');
SELECT throws_ok('SELECT fairshare.job_size_factor(-1, 2, 1, 64)', '22023', NULL, 'negative nodes');
SELECT throws_ok('SELECT fairshare.job_size_factor(1, -2, 1, 64)', '22023', NULL, 'negative cpus');
SELECT throws_ok('SELECT fairshare.job_size_factor(1, 2, 0, 64)', '22023', NULL, 'total_nodes 0');
SELECT throws_ok('SELECT fairshare.job_size_factor(1, 2, 1, -64)', '22023', NULL, 'negative total_cpus');
SELECT throws_ok('SELECT fairshare.partition_factor(400, 300)', '22023', NULL,
                 'partition factor above the largest');
SELECT throws_ok('SELECT fairshare.partition_factor(-1, 300)', '22023', NULL, 'negative PriorityJobFactor');
SELECT throws_ok('SELECT fairshare.qos_factor(1, -1)', '22023', NULL, 'negative largest QOS priority');
SELECT throws_ok('SELECT fairshare.qos_factor(30, 20)', '22023', NULL, 'QOS priority above the largest');

SELECT * FROM finish();
ROLLBACK;
