\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(17);

-- _sshare_tree: sshare's tree columns from one build of the tree
-- (docs/design.md#window-functions).
-- API shape: a WINDOW function, IMMUTABLE, not STRICT, PARALLEL SAFE.
SELECT has_function('fairshare_internal', '_sshare_tree',
       ARRAY['text', 'text', 'double precision', 'double precision', 'boolean', 'text', 'double precision'],
       'fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, algorithm, dampening) exists');
SELECT function_returns('fairshare_internal', '_sshare_tree',
       ARRAY['text', 'text', 'double precision', 'double precision', 'boolean', 'text', 'double precision'],
       'fairshare_internal._sshare_tree_row', 'it returns a _sshare_tree_row');
SELECT volatility_is('fairshare_internal', '_sshare_tree',
       ARRAY['text', 'text', 'double precision', 'double precision', 'boolean', 'text', 'double precision'],
       'immutable', 'it is IMMUTABLE');
SELECT isnt_strict('fairshare_internal', '_sshare_tree',
       ARRAY['text', 'text', 'double precision', 'double precision', 'boolean', 'text', 'double precision'],
       'it is not STRICT (NULL parent_id and shares mean something)');
SELECT is((SELECT p.prokind::text || p.proparallel::text FROM pg_proc p
            WHERE p.oid = 'fairshare_internal._sshare_tree(text, text, float8, float8, boolean, text, float8)'::regprocedure),
          'ws', 'it is a window function and PARALLEL SAFE');

-- A tree with every case: root; account a (shares 1) with users a1 (1, 10)
-- and a2 (2, 30); account b (3) with user b1 (1, 5) and a user of no usage
-- b2 (1, 0); account p with Fairshare=parent (NULL shares) and its user p1
-- (1, 20); a user of the root r1 (NULL shares, 0).
CREATE TEMP TABLE t (id text, parent_id text, shares float8, usage float8, is_user boolean);
INSERT INTO t VALUES
  ('root', NULL, 1, 0, false),
  ('a', 'root', 1, 0, false), ('a1', 'a', 1, 10, true), ('a2', 'a', 2, 30, true),
  ('b', 'root', 3, 0, false), ('b1', 'b', 1, 5, true), ('b2', 'b', 1, 0, true),
  ('p', 'root', NULL, 0, false), ('p1', 'p', 1, 20, true),
  ('r1', 'root', NULL, 0, true);

-- It answers what the nine separate window functions answer, to the digit.
SELECT is((SELECT count(*) FROM (
             SELECT (fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', NULL) OVER ()).*,
                    fairshare.tree_depth(id, parent_id, shares, usage, is_user) OVER () AS d,
                    fairshare.tree_order(id, parent_id, shares, usage, is_user) OVER () AS o,
                    fairshare.fair_tree_norm_shares(id, parent_id, shares, usage, is_user) OVER () AS ns,
                    fairshare.tree_raw_usage(id, parent_id, shares, usage, is_user) OVER () AS ru,
                    fairshare.tree_norm_usage(id, parent_id, shares, usage, is_user) OVER () AS nu,
                    fairshare.fair_tree_effective_usage(id, parent_id, shares, usage, is_user) OVER () AS eu,
                    fairshare.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER () AS f,
                    fairshare.fair_tree_level_fs(id, parent_id, shares, usage, is_user) OVER () AS lf,
                    fairshare.fair_tree_rank(id, parent_id, shares, usage, is_user) OVER () AS r
               FROM t) x
            WHERE (depth, tree_order, norm_shares, raw_usage, norm_usage, effectv_usage, fairshare, level_fs, fs_rank)
                  IS DISTINCT FROM (d, o, ns, ru, nu, eu, f, lf, r)), 0::bigint,
          'fair_tree: every column equals the separate window functions''');
SELECT is((SELECT count(*) FROM (
             SELECT (fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'classic', 2) OVER ()).*,
                    fairshare.tree_depth(id, parent_id, shares, usage, is_user) OVER () AS d,
                    fairshare.tree_order(id, parent_id, shares, usage, is_user) OVER () AS o,
                    fairshare.classic_norm_shares(id, parent_id, shares, usage, is_user) OVER () AS ns,
                    fairshare.tree_raw_usage(id, parent_id, shares, usage, is_user) OVER () AS ru,
                    fairshare.tree_norm_usage(id, parent_id, shares, usage, is_user) OVER () AS nu,
                    fairshare.classic_effective_usage(id, parent_id, shares, usage, is_user) OVER () AS eu,
                    fairshare.classic_factor(id, parent_id, shares, usage, is_user, 2) OVER () AS f
               FROM t) x
            WHERE (depth, tree_order, norm_shares, raw_usage, norm_usage, effectv_usage, fairshare, level_fs, fs_rank)
                  IS DISTINCT FROM (d, o, ns, ru, nu, eu,
                                    -- the root: classic_factor NULL, sshare's FairShare (next test)
                                    CASE WHEN d = 0 THEN fairshare ELSE f END, NULL::float8, NULL::bigint)), 0::bigint,
          'classic (dampening 2): every column equals the separate window functions'', level_fs and fs_rank NULL');
-- the root's FairShare as sshare prints it: 2^(-(UE/S)/d) with UE 1 and S 1,
-- dampening 2: 2^(-1/2) = 0.707107 (0.500000 undampened)
SELECT is((SELECT round(x.fairshare::numeric, 6) FROM (SELECT (fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'classic', 2) OVER ()).* FROM t) x
            WHERE x.depth = 0), 0.707107, 'classic: the root''s FairShare is 2^(-(1/1)/2) = 0.707107, as sshare prints it');
-- a1: Level FS (1/3) / (10/40) = 4/3; a2: (2/3) / (30/40) = 8/9; ranks of
-- the 6 users counted down from 6 (b2's usage 0 gives +inf, first)
SELECT is((SELECT (fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', NULL) OVER ()).level_fs
             FROM t ORDER BY id = 'a1' DESC LIMIT 1)::numeric(10, 6), (4 / 3.0)::numeric(10, 6),
          'a1''s Level FS is (1/3) / (10/40) = 4/3');
SELECT is((SELECT max(x.fs_rank) FROM (SELECT (fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', NULL) OVER ()).* FROM t) x),
          6::bigint, 'the top rank is the number of users, 6');

-- Defined answers for bad input
SELECT throws_ok($$SELECT fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'pbs', 1) OVER () FROM t$$,
                 '22023', 'algorithm must be ''fair_tree'' or ''classic'', not "pbs"', 'unknown algorithm: 22023');
SELECT throws_ok($$SELECT fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, NULL, 1) OVER () FROM t$$,
                 '22004', 'algorithm must not be NULL', 'NULL algorithm: 22004');
SELECT throws_ok($$SELECT fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user,
                          CASE WHEN id = 'b1' THEN 'classic' ELSE 'fair_tree' END, 1) OVER () FROM t$$,
                 '22023', 'algorithm must be the same on every row of a window partition', 'two algorithms in one partition: 22023');
SELECT throws_ok($$SELECT fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'classic', NULL) OVER () FROM t$$,
                 '22004', 'dampening must not be NULL', 'classic with NULL dampening: 22004');
SELECT throws_ok($$SELECT fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'classic', 0) OVER () FROM t$$,
                 '22023', 'dampening must be a finite number > 0, not 0', 'classic with dampening 0: 22023');
SELECT lives_ok($$SELECT fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', 'NaN') OVER () FROM t$$,
                'fair_tree ignores the dampening');
SELECT throws_ok($$SELECT fairshare_internal._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', NULL) OVER ()
                     FROM (VALUES ('r', NULL::text, 1::float8, 0::float8, false), ('r', 'r', 1, 0, true)) v(id, parent_id, shares, usage, is_user)$$,
                 '23505', NULL, 'a bad tree raises what the tree functions raise (duplicate id: 23505)');

SELECT * FROM finish();
ROLLBACK;
