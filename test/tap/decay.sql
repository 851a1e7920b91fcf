\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(28);

SELECT is_aggregate('fairshare', 'decayed_usage', ARRAY['double precision', 'timestamp with time zone',
                    'timestamp with time zone', 'interval']);
SELECT is_aggregate('fairshare', 'decayed_usage', ARRAY['double precision', 'timestamp with time zone',
                    'timestamp with time zone', 'timestamp with time zone', 'interval']);
SELECT is_aggregate('fairshare', 'decayed_usage_slurm', ARRAY['double precision', 'timestamp with time zone',
                    'timestamp with time zone', 'interval']);
SELECT is_aggregate('fairshare', 'decayed_usage_step', ARRAY['double precision', 'timestamp with time zone',
                    'timestamp with time zone', 'interval', 'double precision']);
SELECT is_aggregate('fairshare', 'decayed_usage_step', ARRAY['double precision', 'timestamp with time zone',
                    'timestamp with time zone', 'timestamp with time zone', 'interval', 'double precision']);
SELECT is_aggregate('fairshare', 'decayed_usage_slurm_passes', ARRAY['double precision', 'timestamp with time zone',
                    'timestamp with time zone', 'timestamp with time zone', 'interval', 'interval', 'timestamp with time zone']);
SELECT is_aggregate('fairshare', 'decayed_usage_slurm_passes', ARRAY['double precision', 'timestamp with time zone',
                    'timestamp with time zone', 'interval', 'interval', 'timestamp with time zone']);
SELECT is(fairshare.decayed_usage_slurm_passes(1, '2024-01-01 00:00:30+00', NULL, '2024-01-01 00:05:10+00', NULL, '1 minute', NULL),
          270::float8, 'slurm_passes, no decay: a running job counts up to the last pass (00:05): 270 s');
SELECT is(fairshare.slurm_last_pass('2024-01-01 00:05:10+00', '1 minute', '2024-01-01 00:00:20+00'),
          '2024-01-01 00:04:20+00'::timestamptz, 'slurm_last_pass: passes at :20');
SELECT throws_ok($$SELECT fairshare.decayed_usage_slurm_passes(1, now(), NULL, now(), '1 day', '0', NULL)$$,
                 '22023', 'calc_period must be a positive interval, not 00:00:00', 'slurm_passes: calc_period 0 is 22023');
-- every decay aggregate: parallel safe, with a combine function, on a non-pseudo state (Citus can split it)
SELECT is((SELECT count(*) FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
            WHERE ((p.pronamespace = 'fairshare'::regnamespace AND p.proname LIKE 'decayed_usage%')
                   OR (p.pronamespace = 'fairshare_internal'::regnamespace AND p.proname LIKE '\_decayed_usage%'))
              AND p.proparallel = 's' AND a.aggcombinefn <> 0 AND a.aggtranstype = 'float8[]'::regtype),
          10::bigint, 'ten decay aggregates (the point form with slurmctld starts private), all PARALLEL SAFE with a combine function and a float8[] state');

SELECT is(fairshare.decayed_usage(u, t, '2024-06-01', '7 days'), 1.5::float8, '1 now + 1 one half-life ago = 1.5')
  FROM (VALUES (1::float8, '2024-06-01'::timestamptz), (1, '2024-05-25')) v(u, t);
SELECT is(fairshare.decayed_usage(u, t, '2024-06-01', '7 days'), NULL::float8, 'no rows: NULL')
  FROM (VALUES (1::float8, '2024-06-01'::timestamptz)) v(u, t) WHERE false;
SELECT is(fairshare.decayed_usage(0, '2024-01-01', '2024-06-01', '1 day'), 0::float8, 'zero usage: 0');
SELECT is(fairshare.decayed_usage(5, '2024-06-02', '2024-06-01', '1 day'), 0::float8, 'usage after as_of: 0');
SELECT is(fairshare.decayed_usage(4, '2024-01-01 00:00+00', '2024-01-31 00:00+00', '1 month'), 2::float8,
          'a month in a half-life counts 30 days: 30 days old at 1 month = 2^-1');
SELECT is(fairshare.decayed_usage(10, '2024-01-01 00:00+00', '2024-01-01 10:00+00', '2024-01-01 10:00+00', NULL), 10::float8,
          'span finished before as_of, no decay: all of it');
SELECT is(fairshare.decayed_usage(10, '2024-01-01 00:00+00', '2024-01-01 10:00+00', '2024-01-01 02:00+00', NULL), 2::float8,
          'span at 2 h of 10 h: 2/10 of it');
SELECT is(fairshare.decayed_usage_step(8, '2024-01-01 12:00+00', '2024-01-05 12:00+00', '1 day', 0.5), 0.5::float8,
          'step: 4 midnights crossed: 8 × 0.5^4 = 0.5');
SELECT is(fairshare.decayed_usage_step(8, '2024-01-01 12:00+00', '2024-01-05 12:00+00', '1 day', 0), 0::float8,
          'step factor 0 forgets at the first boundary');

SELECT throws_ok($$SELECT fairshare.decayed_usage(-0.001, now(), now(), '1 day')$$, '22023', NULL, 'negative usage');
SELECT throws_ok($$SELECT fairshare.decayed_usage(1, now(), now(), '-1 s')$$, '22023', NULL, 'negative half-life');
SELECT throws_ok($$SELECT fairshare.decayed_usage('-Infinity', now(), now(), '1 day')$$, '22023', NULL, '-Infinity usage');
SELECT throws_ok($$SELECT fairshare.decayed_usage(1, now(), now() - interval '1 s', now(), '1 day')$$, '22023', NULL, 'span ends before it starts');
SELECT throws_ok($$SELECT fairshare.decayed_usage(1, now(), now(), NULL::timestamptz, '1 day')$$, '22004', NULL, 'NULL as_of (span)');
SELECT throws_ok($$SELECT fairshare.decayed_usage_slurm(1, now(), now(), '-1 day')$$, '22023', NULL, 'slurm: negative half-life');
SELECT throws_ok($$SELECT fairshare.decayed_usage_step(1, now(), now(), '-1 day', 0.5)$$, '22023', NULL, 'step: negative interval');
SELECT throws_ok($$SELECT fairshare.decayed_usage_step(1, now(), now(), '1 day', 'Infinity')$$, '22023', NULL, 'step: infinite factor');

SELECT * FROM finish();
ROLLBACK;
