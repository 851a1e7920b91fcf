\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
-- pbs / metacentrum: API shape, SQLSTATEs and defined answers for bad input.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SET search_path = fairshare, public;
SET TimeZone = 'UTC';
SELECT plan(72);

-- ---------- shape ----------
SELECT has_function('fairshare', 'processor_equivalent',
    ARRAY['double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','text','double precision','double precision','double precision','double precision']);
SELECT volatility_is('fairshare', 'processor_equivalent',
    ARRAY['double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','text','double precision','double precision','double precision','double precision'], 'immutable');
SELECT is_strict('fairshare', 'processor_equivalent',
    ARRAY['double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','text','double precision','double precision','double precision','double precision']);
SELECT has_function('fairshare', 'processor_equivalent_parts',
    ARRAY['double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','double precision','text','double precision','double precision','double precision','double precision']);
SELECT has_function('fairshare', 'metacentrum_usage', ARRAY['double precision', 'interval', 'double precision']);
SELECT volatility_is('fairshare', 'metacentrum_usage', ARRAY['double precision', 'interval', 'double precision'], 'immutable');
SELECT is_strict('fairshare', 'metacentrum_usage', ARRAY['double precision', 'interval', 'double precision']);
SELECT is_aggregate('fairshare', 'decayed_usage_pbs',
    ARRAY['double precision', 'timestamp with time zone', 'timestamp with time zone', 'interval', 'double precision']);
SELECT is_aggregate('fairshare', 'decayed_usage_pbs',
    ARRAY['double precision', 'timestamp with time zone', 'timestamp with time zone', 'timestamp with time zone', 'interval', 'double precision']);
SELECT is((SELECT aggcombinefn <> 0 AND aggserialfn <> 0 AND aggdeserialfn <> 0 FROM pg_aggregate
            WHERE aggfnoid = 'fairshare.decayed_usage_pbs(float8, timestamptz, timestamptz, timestamptz, interval, float8)'::regprocedure),
          true, 'decayed_usage_pbs has combine, serial and deserial functions');
SELECT is((SELECT proparallel FROM pg_proc
            WHERE oid = 'fairshare.decayed_usage_pbs(float8, timestamptz, timestamptz, interval, float8)'::regprocedure),
          's', 'decayed_usage_pbs is parallel safe');
SELECT is_window('fairshare', 'pbs_fairshare_perc', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean']);
SELECT is_window('fairshare', 'pbs_fairshare_usage', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean']);
SELECT is_window('fairshare', 'pbs_tree_usage', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean']);
SELECT is_window('fairshare', 'pbs_fairshare_factor', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean']);
SELECT is_window('fairshare', 'pbs_fairshare_rank', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean']);
SELECT function_returns('fairshare', 'pbs_fairshare_rank', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean'], 'bigint');
SELECT isnt_strict('fairshare', 'pbs_fairshare_perc', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean'],
                   'pbs_fairshare_perc checks NULLs itself');
SELECT volatility_is('fairshare', 'pbs_tree_usage', ARRAY['text', 'text', 'double precision', 'double precision', 'boolean'], 'immutable');
SELECT has_function('fairshare', 'publication_multiplier', ARRAY['double precision', 'double precision']);
SELECT volatility_is('fairshare', 'publication_multiplier', ARRAY['double precision', 'double precision'], 'immutable');
SELECT has_function('fairshare', 'metacentrum_job_usage_at', ARRAY['timestamp with time zone']);
SELECT volatility_is('fairshare', 'metacentrum_job_usage_at', ARRAY['timestamp with time zone'], 'stable');
SELECT has_function('fairshare', 'metacentrum_user_usage_at', ARRAY['timestamp with time zone']);
SELECT volatility_is('fairshare', 'metacentrum_user_usage_at', ARRAY['timestamp with time zone'], 'stable');
SELECT has_function('fairshare', 'pbsfs_at', ARRAY['timestamp with time zone']);
SELECT volatility_is('fairshare', 'pbsfs_at', ARRAY['timestamp with time zone'], 'stable');
SELECT has_view('fairshare', 'metacentrum_job_usage', 'view metacentrum_job_usage');
SELECT has_view('fairshare', 'metacentrum_user_usage', 'view metacentrum_user_usage');
SELECT has_view('fairshare', 'pbsfs', 'view pbsfs');
SELECT has_table('fairshare', 'pbs_settings', 'table pbs_settings');
SELECT has_table('fairshare', 'publications', 'table publications');
SELECT ok((SELECT 'fairshare.publications'::regclass::oid = ANY (extconfig)
                  AND 'fairshare.pbs_settings'::regclass::oid = ANY (extconfig)
                  AND 'fairshare.publications_publication_id_seq'::regclass::oid = ANY (extconfig)
             FROM pg_extension WHERE extname = 'fairshare'),
          'pbs_settings, publications and its sequence are dumped with their rows');
SELECT col_default_is('fairshare', 'pbs_settings', 'pe_mode', 'sum'::text, 'PE mode defaults to sum');
SELECT col_default_is('fairshare', 'pbs_settings', 'publication_factor', '1'::text, 'publications have no effect by default');

-- ---------- defined answers ----------
SELECT is(processor_equivalent(8, 65536, 102400, 0, 32, 131072, 409600, 0), 32::float8,
          'PE sum: 8/32×32 + 65536/131072×32 + 102400/409600×32 = 8 + 16 + 8 = 32');
SELECT is(processor_equivalent(8, 65536, 102400, 0, 32, 131072, 409600, 0, mode => 'max'), 16::float8,
          'PE max: max(8, 16, 8) = 16');
SELECT is(processor_equivalent(NULL, 0, 0, 0, 32, 131072, 0, 0), NULL, 'PE of NULL is NULL (STRICT)');
SELECT is(metacentrum_usage(32, '2 hours', 10) / metacentrum_usage(32, '2 hours', 3), 10 / 3::float8,
          'spec 10 is charged 10/3 of spec 3');
SELECT is(decayed_usage_pbs(100, '2024-01-01 10:00+00', '2024-01-08 12:00+00', '1 day', 0.5), 1::float8,
          'after 7 halvings 101/128 < 1: floored to 1');
SELECT is(decayed_usage_pbs(100, '2024-01-01 10:00+00', '2024-01-07 12:00+00', '1 day', 0.5), 1.578125::float8,
          'after 6 halvings 101/64 = 1.578125');
SELECT is((SELECT decayed_usage_pbs(u, now(), now(), '1 day', 0.5) FROM (SELECT 1::float8 WHERE false) t(u)), NULL,
          'no rows: NULL');
SELECT is(decayed_usage_pbs(100, '2024-02-01', '2024-01-01', '1 day', 0.5), 1::float8,
          'only usage after as_of: the floor, 1');
SELECT is(publication_multiplier(2, 0.5), 0.25::float8, '0.5^2 = 0.25');
SELECT is((SELECT pbs_fairshare_rank(id, p, s, u, iu) OVER () FROM (VALUES ('r', NULL, NULL::float8, 0::float8, false)) t(id, p, s, u, iu)),
          NULL, 'a tree with only a root ranks nobody');

-- ---------- SQLSTATEs ----------
SELECT throws_ok($$SELECT processor_equivalent(40, 0, 0, 0, 32, 131072, 0, 0)$$, '22023', NULL, 'more CPUs than the node: 22023');
SELECT throws_ok($$SELECT processor_equivalent(8, 0, 0, 1, 32, 131072, 0, 0)$$, '22023', NULL, 'a GPU on a node without: 22023');
SELECT throws_ok($$SELECT processor_equivalent(8, -1, 0, 0, 32, 131072, 0, 0)$$, '22023', NULL, 'negative memory: 22023');
SELECT throws_ok($$SELECT processor_equivalent(8, 0, 'NaN', 0, 32, 131072, 0, 0)$$, '22023', NULL, 'NaN scratch: 22023');
SELECT throws_ok($$SELECT processor_equivalent(8, 0, 0, 0, 32, 'Infinity', 0, 0)$$, '22023', NULL, 'infinite node memory: 22023');
SELECT throws_ok($$SELECT processor_equivalent(0, 0, 0, 0, 0, 1, 0, 0)$$, '22023', NULL, 'node without CPUs: 22023');
SELECT throws_ok($$SELECT processor_equivalent(1, 0, 0, 0, 32, 1, 0, 0, mode => 'mean')$$, '22023', NULL, 'unknown mode: 22023');
SELECT throws_ok($$SELECT processor_equivalent(1, 0, 0, 0, 32, 1, 0, 0, nodes => -1)$$, '22023', NULL, 'negative nodes: 22023');
SELECT throws_ok($$SELECT processor_equivalent(1, 0, 0, 0, 32, 1, 0, 0, weight_cpu => 'NaN')$$, '22023', NULL, 'NaN weight: 22023');
SELECT throws_ok($$SELECT metacentrum_usage(1, '-1 second', 3)$$, '22023', NULL, 'negative walltime: 22023');
SELECT throws_ok($$SELECT metacentrum_usage(1, '1 hour', -3)$$, '22023', NULL, 'negative spec: 22023');
SELECT throws_ok($$SELECT decayed_usage_pbs('NaN', now(), now(), '1 day', 0.5)$$, '22023', NULL, 'NaN usage: 22023');
SELECT throws_ok($$SELECT decayed_usage_pbs(1, now(), NULL, '1 day', 0.5)$$, '22004', NULL, 'NULL as_of: 22004');
SELECT throws_ok($$SELECT decayed_usage_pbs(1, '-infinity', now(), '1 day', 0.5)$$, '22008', NULL, 'infinite instant: 22008');
SELECT throws_ok($$SELECT decayed_usage_pbs(1, now(), now(), '-1 day', 0.5)$$, '22023', NULL, 'negative decay_interval: 22023');
SELECT throws_ok($$SELECT decayed_usage_pbs(1, now(), now(), '1 day', -0.5)$$, '22023', NULL, 'negative decay_factor: 22023');
SELECT throws_ok($$SELECT decayed_usage_pbs(1, '2024-01-02', '2024-01-01', now(), '1 day', 0.5)$$, '22023', NULL, 'job ending before it starts: 22023');
SELECT throws_ok($$SELECT publication_multiplier(-1, 2)$$, '22023', NULL, 'negative publications: 22023');
SELECT throws_ok($$SELECT pbs_fairshare_perc(id, p, s, u, iu) OVER () FROM (VALUES ('a', 'b', 1::float8, 0::float8, false), ('b', 'a', 1, 0, false)) t(id, p, s, u, iu)$$,
                 '22023', NULL, 'no root: 22023');
SELECT throws_ok($$SELECT pbs_fairshare_perc(id, p, s, u, iu) OVER () FROM (VALUES ('r', NULL, 1::float8, 0::float8, false), ('a', 'b', 1, 0, false), ('b', 'a', 1, 0, false)) t(id, p, s, u, iu)$$,
                 '22023', NULL, 'cycle: 22023');
SELECT throws_ok($$SELECT pbs_fairshare_perc(id, p, s, u, iu) OVER () FROM (VALUES ('r', NULL, 1::float8, 0::float8, false), ('a', 'x', 1, 0, true)) t(id, p, s, u, iu)$$,
                 '22023', NULL, 'missing parent: 22023');
SELECT throws_ok($$SELECT pbs_tree_usage(id, p, s, u, iu) OVER () FROM (VALUES ('r', NULL, 1::float8, 0::float8, false), ('a', 'r', 'NaN', 0, true)) t(id, p, s, u, iu)$$,
                 '22023', NULL, 'NaN shares: 22023');
SELECT throws_ok($$SELECT pbs_fairshare_factor(id, p, s, u, iu) OVER () FROM (VALUES ('r', NULL, 1::float8, 0::float8, false), ('a', 'r', 1, -2, true)) t(id, p, s, u, iu)$$,
                 '22023', NULL, 'negative usage: 22023');
SELECT throws_ok($$SELECT pbs_fairshare_rank(id, p, s, u, iu) OVER () FROM (VALUES ('r', NULL, 1::float8, 0::float8, false), ('a', 'r', NULL, 0, true)) t(id, p, s, u, iu)$$,
                 '22004', NULL, 'NULL shares: 22004');
SELECT throws_ok($$SELECT pbs_fairshare_usage(id, p, s, u, iu) OVER () FROM (VALUES ('r', NULL, 1::float8, 0::float8, false), ('a', 'r', 1, 1e308, true), ('b', 'r', 1, 1e308, true)) t(id, p, s, u, iu)$$,
                 '22023', NULL, 'usage adding up past float8: 22023');
SELECT throws_ok($$INSERT INTO fairshare.pbs_settings (cluster, pe_mode) VALUES ('nowhere', 'sum')$$, '23503', NULL,
                 'settings for an unknown cluster: 23503');
SELECT throws_ok($$INSERT INTO fairshare.publications (user_name, title, published, weight) VALUES ('u', 't', '2024-01-01', 'NaN')$$, '23514', NULL,
                 'NaN publication weight: 23514');

SELECT * FROM finish();
ROLLBACK;
