\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(179);

-- API shape of the tree window functions: WINDOW, IMMUTABLE, not STRICT
-- (NULL parent_id = root, NULL shares = Fairshare=parent), PARALLEL SAFE
CREATE TEMP TABLE api (fn name, args name[], ret text);
INSERT INTO api VALUES
 ('fair_tree_rank',            '{text,text,"double precision","double precision",boolean}', 'bigint'),
 ('fair_tree_factor',          '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('fair_tree_level_fs',        '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('fair_tree_norm_shares',     '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('fair_tree_effective_usage', '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('classic_norm_shares',       '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('classic_effective_usage',   '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('classic_factor',            '{text,text,"double precision","double precision",boolean,"double precision"}', 'double precision'),
 ('tree_raw_usage',            '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('tree_norm_usage',           '{text,text,"double precision","double precision",boolean}', 'double precision'),
 ('tree_depth',                '{text,text,"double precision","double precision",boolean}', 'integer'),
 ('tree_order',                '{text,text,"double precision","double precision",boolean}', 'bigint');
-- the node form of each: one composite argument (docs/fairshare.md#the-node-form)
INSERT INTO api
SELECT fn, CASE WHEN fn = 'classic_factor' THEN '{fairshare.fair_tree_node,"double precision"}'::name[]
                ELSE '{fairshare.fair_tree_node}'::name[] END, ret
  FROM api;
SELECT has_function('fairshare', fn, args) FROM api ORDER BY fn;
SELECT is_window('fairshare', fn, args) FROM api ORDER BY fn;
SELECT volatility_is('fairshare', fn, args, 'immutable') FROM api ORDER BY fn;
SELECT isnt_strict('fairshare', fn, args) FROM api ORDER BY fn;
SELECT function_returns('fairshare', fn, args, ret) FROM api ORDER BY fn;
SELECT is(p.proparallel, 's', p.oid::regprocedure || ' is PARALLEL SAFE')
  FROM pg_proc p
  JOIN api ON p.oid = format('fairshare.%I(%s)', api.fn, array_to_string(api.args, ','))::regprocedure
 ORDER BY api.fn, api.args;

-- the views over the model
SELECT has_function('fairshare', 'sshare_at', ARRAY['timestamp with time zone']);
SELECT volatility_is('fairshare', 'sshare_at', ARRAY['timestamp with time zone'], 'stable');
SELECT has_view('fairshare', 'sshare', 'view sshare');
SELECT has_function('fairshare', 'association_tree_at', ARRAY['timestamp with time zone']);
SELECT volatility_is('fairshare', 'association_tree_at', ARRAY['timestamp with time zone'], 'stable');
SELECT has_function('fairshare', 'sshare_explain', ARRAY['text', 'text', 'text', 'timestamp with time zone']);
SELECT volatility_is('fairshare', 'sshare_explain', ARRAY['text', 'text', 'text', 'timestamp with time zone'], 'stable');
SELECT columns_are('fairshare', 'sshare', ARRAY['cluster', 'account', 'user_name', 'parent', 'depth', 'tree_order',
       'algorithm', 'raw_shares', 'norm_shares', 'raw_usage', 'raw_usage_int', 'norm_usage', 'effectv_usage',
       'fairshare', 'level_fs', 'fs_rank', 'grp_tres_mins', 'tres_run_mins']);
SELECT col_type_is('fairshare', 'sshare', 'fairshare', 'double precision', 'sshare.fairshare is float8 (sprio reads it)');

-- Bad input: the SQLSTATE for each kind of bad tree
SELECT throws_ok($$SELECT fairshare.fair_tree_rank(NULL, NULL, 1, 0, false) OVER ()$$, '22004', NULL, 'NULL id: 22004');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank('r', NULL, 1, NULL, false) OVER ()$$, '22004', NULL, 'NULL usage: 22004');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank('r', NULL, 1, 0, NULL) OVER ()$$, '22004', NULL, 'NULL is_user: 22004');
SELECT throws_ok($$SELECT fairshare.fair_tree_factor(id, p, s, 0, false) OVER ()
                   FROM (VALUES ('r', NULL, 1), ('a', 'r', -1)) v(id, p, s)$$, '22023',
                 'shares of association "a" must be a finite number >= 0, not -1', 'negative shares: 22023, names the row');
SELECT throws_ok($$SELECT fairshare.fair_tree_factor(id, p, s, 0, false) OVER ()
                   FROM (VALUES ('r', NULL, 1), ('a', 'r', 'NaN'::float8)) v(id, p, s)$$, '22023', NULL, 'NaN shares: 22023');
SELECT throws_ok($$SELECT fairshare.fair_tree_factor(id, p, s, 0, false) OVER ()
                   FROM (VALUES ('r', NULL, 1), ('a', 'r', 'Infinity'::float8)) v(id, p, s)$$, '22023', NULL, 'infinite shares: 22023');
SELECT throws_ok($$SELECT fairshare.fair_tree_level_fs(id, p, 1, u, false) OVER ()
                   FROM (VALUES ('r', NULL, 0), ('a', 'r', -1)) v(id, p, u)$$, '22023', NULL, 'negative usage: 22023');
SELECT throws_ok($$SELECT fairshare.fair_tree_level_fs(id, p, 1, u, false) OVER ()
                   FROM (VALUES ('r', NULL, 0), ('a', 'r', 'NaN'::float8)) v(id, p, u)$$, '22023', NULL, 'NaN usage: 22023');
SELECT throws_ok($$SELECT fairshare.tree_raw_usage(id, p, 1, u, false) OVER ()
                   FROM (VALUES ('r', NULL, 0), ('a', 'r', '-Infinity'::float8)) v(id, p, u)$$, '22023', NULL, '-Infinity usage: 22023');
SELECT throws_ok($$SELECT fairshare.classic_factor('r', NULL, 1, 0, false, 0) OVER ()$$, '22023', NULL, 'dampening 0: 22023');
SELECT throws_ok($$SELECT fairshare.classic_factor('r', NULL, 1, 0, false, NULL) OVER ()$$, '22004', NULL, 'dampening NULL: 22004');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank(id, p, 1, 0, false) OVER ()
                   FROM (VALUES ('r', NULL), ('a', 'r'), ('a', 'r')) v(id, p)$$, '23505',
                 'association id "a" appears more than once in the tree', 'duplicate id: 23505');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank(id, p, 1, 0, false) OVER ()
                   FROM (VALUES ('r', NULL), ('a', 'q')) v(id, p)$$, '23503',
                 'parent "q" of association "a" is not in the tree', 'missing parent: 23503');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank(id, p, 1, 0, false) OVER ()
                   FROM (VALUES ('r', NULL), ('s', NULL)) v(id, p)$$, '23514', NULL, 'two roots: 23514');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank(id, p, 1, 0, false) OVER ()
                   FROM (VALUES ('a', 'b'), ('b', 'a')) v(id, p)$$, '23514', NULL, 'no root: 23514');
SELECT throws_ok($$SELECT fairshare.classic_factor(id, p, 1, 0, false) OVER ()
                   FROM (VALUES ('r', NULL), ('a', 'c'), ('b', 'a'), ('c', 'b')) v(id, p)$$, '23514', NULL, 'cycle: 23514');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank(id, p, 1, 0, u) OVER ()
                   FROM (VALUES ('r', NULL, false), ('u', 'r', true), ('x', 'u', true)) v(id, p, u)$$, '23514',
                 'user association "u" has a child, "x"', 'user with a child: 23514');
SELECT throws_ok($$SELECT fairshare.fair_tree_rank('r', NULL, 1, 0, true) OVER ()$$, '23514', NULL, 'user as root: 23514');
SELECT throws_ok($$SELECT * FROM fairshare.sshare_explain('no such cluster', 'a', 'b', now())$$, '22023', NULL,
                 'sshare_explain: unknown cluster: 22023');
INSERT INTO fairshare.clusters (cluster, fairshare_algorithm) VALUES ('tap_classic', 'classic');
SELECT throws_ok($$SELECT * FROM fairshare.sshare_explain('tap_classic', 'a', 'b', now())$$, '22023', NULL,
                 'sshare_explain: classic cluster: 22023');

-- Defined answers at the edges (docs/slurm.md#edge-cases)
-- usage 0 with shares > 0: Level FS +Infinity; shares 0: 0 even with usage 0 (not NaN)
SELECT results_eq(
  $$SELECT fairshare.fair_tree_level_fs(id, p, s, u, is_user) OVER () FROM
      (VALUES ('r', NULL, 1, 0, false, 0), ('a', 'r', 1, 0, true, 1), ('b', 'r', 0, 0, true, 2), ('c', 'r', 1, 4, true, 3))
      v(id, p, s, u, is_user, o) ORDER BY o$$,
  $$VALUES (NULL::float8), ('Infinity'::float8), (0::float8), (0.5::float8)$$,
  'Level FS: NULL for the root, inf without usage, 0 without shares (0/0 too), c: S 1/2, U 4/4 -> 0.5');
-- ties: E5a of sql/fair_tree.sql, tied accounts not merged: a1 4, a2 3, b1 3, b2 3
SELECT results_eq(
  $$SELECT id, fairshare.fair_tree_rank(id, p, s, u, is_user) OVER () FROM
      (VALUES ('root', NULL, 1, 0, false), ('A', 'root', 1, 0, false), ('B', 'root', 1, 0, false),
              ('a1', 'A', 1, 1, true), ('a2', 'A', 1, 3, true), ('b1', 'B', 1, 2, true), ('b2', 'B', 1, 2, true))
      v(id, p, s, u, is_user) ORDER BY id$$,
  $$VALUES ('A', NULL::bigint), ('B', NULL), ('a1', 4), ('a2', 3), ('b1', 3), ('b2', 3), ('root', NULL)$$,
  'tied accounts are not merged: the second one''s first user inherits the previous user''s rank');
-- N counts user associations; the lowest factor is 1/N, never 0
SELECT is(min(f), 1::float8 / 3, 'lowest factor is 1/N (N = 3 user rows, one user twice, one with 0 shares)')
  FROM (SELECT fairshare.fair_tree_factor(id, p, s, u, is_user) OVER () AS f FROM
         (VALUES ('root', NULL, 1, 0, false), ('A', 'root', 1, 0, false), ('B', 'root', 1, 0, false),
                 ('A/carol', 'A', 1, 1, true), ('B/carol', 'B', 1, 3, true), ('B/dan', 'B', 0, 0, true))
         v(id, p, s, u, is_user)) x;
-- a tree with no usage at all: NormUsage 0 everywhere, every user factor 1
SELECT is(max(nu), 0::float8, 'root usage 0: NormUsage 0, no division by zero')
  FROM (SELECT fairshare.tree_norm_usage(id, p, 1, 0, is_user) OVER () AS nu FROM
         (VALUES ('root', NULL, false), ('u', 'root', true)) v(id, p, is_user)) x;
-- classic: S 0 gives F 0; F 0.5 when UE = S
SELECT results_eq(
  $$SELECT fairshare.classic_factor(id, p, s, u, is_user) OVER () FROM
      (VALUES ('root', NULL, 1, 0, false, 0), ('a', 'root', 0, 0, true, 1), ('b', 'root', 1, 2, true, 2))
      v(id, p, s, u, is_user, o) ORDER BY o$$,
  $$VALUES (NULL::float8), (0::float8), (0.5::float8)$$,
  'classic: root NULL; a: S 0 -> 0; b: S 1/1, UE = UN = 2/2 -> 2^-1 = 0.5');
-- one-row tree: nothing to rank
SELECT is(fairshare.fair_tree_rank('root', NULL, 1, 7, false) OVER (), NULL::bigint, 'a tree of one account ranks nobody');

SELECT * FROM finish();
ROLLBACK;
