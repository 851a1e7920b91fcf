-- Two builds of fair_tree_factor and of pbs_fairshare_perc (the PBS tree) in
-- the same run: the installed library against another one copied beside it
-- under another name (the previous build), over the bench.tree_N tables that
-- bench_fair_tree.sql leaves,
-- interleaved with rank() over the same rows.  For a change to the C code,
-- whose effect the load of a shared machine would otherwise hide:
--
--   cp $(pg_config --pkglibdir)/fairshare.so $(pg_config --pkglibdir)/fairshare_old.so  # before
--   make install                                                                        # after
--   PGOPTIONS='-c work_mem=64MB -c jit=off' psql -v reps=5 -v tree_sizes=1000000 -v old_lib=fairshare_old -f test/bench/fair_tree_ab.sql
--
-- Each library's answers are compared first (every row, exactly).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bench_old CASCADE;
CREATE SCHEMA bench_old;
-- every tree window function of the library, under bench_old
SELECT format('CREATE FUNCTION bench_old.%I(text, text, float8, float8, boolean%s) RETURNS %s AS %L, %L LANGUAGE C WINDOW IMMUTABLE',
              f, extra, rt, '$libdir/' || :'old_lib', 'fs_' || f)
  FROM (VALUES ('fair_tree_rank', '', 'bigint'), ('fair_tree_factor', '', 'float8'),
               ('fair_tree_level_fs', '', 'float8'), ('fair_tree_norm_shares', '', 'float8'),
               ('fair_tree_effective_usage', '', 'float8'), ('classic_norm_shares', '', 'float8'),
               ('classic_effective_usage', '', 'float8'), ('classic_factor', ', float8', 'float8'),
               ('tree_raw_usage', '', 'float8'), ('tree_norm_usage', '', 'float8'),
               ('tree_depth', '', 'integer'), ('tree_order', '', 'bigint'),
               ('sshare_tree', ', text, float8', 'fairshare_internal._sshare_tree_row'),
               ('sshare_tree', ', text, float8, float8', 'fairshare_internal._sshare_tree_row')) v(f, extra, rt) \gexec
-- the PBS tree's (pbs.c)
SELECT format('CREATE FUNCTION bench_old.%I(text, text, float8, float8, boolean) RETURNS %s AS %L, %L LANGUAGE C WINDOW IMMUTABLE',
              f, rt, '$libdir/' || :'old_lib', 'fs_' || f)
  FROM (VALUES ('pbs_fairshare_perc', 'float8'), ('pbs_fairshare_usage', 'float8'), ('pbs_tree_usage', 'float8'),
               ('pbs_fairshare_factor', 'float8'), ('pbs_fairshare_rank', 'bigint')) v(f, rt) \gexec
ALTER FUNCTION bench_old.sshare_tree(text, text, float8, float8, boolean, text, float8) RENAME TO _sshare_tree;
ALTER FUNCTION bench_old.sshare_tree(text, text, float8, float8, boolean, text, float8, float8) RENAME TO _sshare_tree;
-- the node form (one composite argument per row; docs/fairshare.md#the-node-form)
SELECT format('CREATE FUNCTION bench_old.%I(fairshare.fair_tree_node) RETURNS %s AS %L, %L LANGUAGE C WINDOW IMMUTABLE',
              f, rt, '$libdir/' || :'old_lib', 'fs_' || f)
  FROM (VALUES ('fair_tree_rank', 'bigint'), ('fair_tree_factor', 'float8'), ('fair_tree_level_fs', 'float8'),
               ('classic_effective_usage', 'float8')) v(f, rt) \gexec
DELETE FROM bench.results WHERE name LIKE 'Fair Tree (%' OR name LIKE 'Fair Tree node form (%' OR name LIKE 'rank(), %';
CREATE TEMP TABLE ab_sizes AS SELECT unnest(string_to_array(:'tree_sizes', ','))::int AS n;
-- Each output of both libraries, row by row (matched by id), exactly
-- (float8 equality is bit equality but for -0 and NaN, which no output
-- holds).  The
-- sshare variant with a usage now of its own: 1.5 × the usage on every
-- third row, the same usage (NULL) elsewhere.
-- -v skip_check=1: timing only (after a run that compared these builds)
\if :{?skip_check}
\else
SELECT format($q$DO $d$ BEGIN
    IF EXISTS (SELECT FROM (SELECT id, %1$s.fair_tree_rank(id, parent_id, shares, usage, is_user) OVER w AS a1,
                                   %1$s.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER w AS a2,
                                   %1$s.fair_tree_level_fs(id, parent_id, shares, usage, is_user) OVER w AS a3,
                                   %1$s.fair_tree_norm_shares(id, parent_id, shares, usage, is_user) OVER w AS a4,
                                   %1$s.fair_tree_effective_usage(id, parent_id, shares, usage, is_user) OVER w AS a5,
                                   %1$s.classic_norm_shares(id, parent_id, shares, usage, is_user) OVER w AS a6,
                                   %1$s.classic_effective_usage(id, parent_id, shares, usage, is_user) OVER w AS a7,
                                   %1$s.classic_factor(id, parent_id, shares, usage, is_user, 2) OVER w AS a8,
                                   %1$s.tree_raw_usage(id, parent_id, shares, usage, is_user) OVER w AS a9,
                                   %1$s.tree_norm_usage(id, parent_id, shares, usage, is_user) OVER w AS a10,
                                   %1$s.tree_depth(id, parent_id, shares, usage, is_user) OVER w AS a11,
                                   %1$s.tree_order(id, parent_id, shares, usage, is_user) OVER w AS a12,
                                   %4$s._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', 1) OVER w AS a13,
                                   %4$s._sshare_tree(id, parent_id, shares, usage, is_user, 'classic', 0.5,
                                                     CASE WHEN k %% 3 = 0 THEN usage * 1.5 END) OVER w AS a14,
                                   %1$s.fair_tree_rank(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w AS a15,
                                   %1$s.fair_tree_factor(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w AS a16,
                                   %1$s.fair_tree_level_fs(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w AS a17,
                                   %1$s.classic_effective_usage(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w AS a18
                              FROM (SELECT *, row_number() OVER () AS k FROM bench.tree_%2$s) t
                            WINDOW w AS (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) x
                      FULL JOIN
                           (SELECT id, %3$s.fair_tree_rank(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.fair_tree_level_fs(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.fair_tree_norm_shares(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.fair_tree_effective_usage(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.classic_norm_shares(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.classic_effective_usage(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.classic_factor(id, parent_id, shares, usage, is_user, 2) OVER w,
                                   %3$s.tree_raw_usage(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.tree_norm_usage(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.tree_depth(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.tree_order(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', 1) OVER w,
                                   %3$s._sshare_tree(id, parent_id, shares, usage, is_user, 'classic', 0.5,
                                                     CASE WHEN k %% 3 = 0 THEN usage * 1.5 END) OVER w,
                                   %3$s.fair_tree_rank(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w,
                                   %3$s.fair_tree_factor(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w,
                                   %3$s.fair_tree_level_fs(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w,
                                   %3$s.classic_effective_usage(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER w
                              FROM (SELECT *, row_number() OVER () AS k FROM bench.tree_%2$s) t
                            WINDOW w AS (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) y USING (id)
                     WHERE x IS DISTINCT FROM y) THEN
        RAISE EXCEPTION 'the two libraries differ over %2$s associations';
    END IF;
    RAISE WARNING 'the two libraries agree on every output over %2$s associations';
END $d$$q$, 'fairshare', n, 'bench_old', 'fairshare_internal') FROM ab_sizes ORDER BY n \gexec
SELECT format($q$DO $d$ BEGIN
    IF EXISTS (SELECT FROM (SELECT id, %1$s.pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER w AS a1,
                                   %1$s.pbs_fairshare_usage(id, parent_id, shares, usage, is_user) OVER w AS a2,
                                   %1$s.pbs_tree_usage(id, parent_id, shares, usage, is_user) OVER w AS a3,
                                   %1$s.pbs_fairshare_factor(id, parent_id, shares, usage, is_user) OVER w AS a4,
                                   %1$s.pbs_fairshare_rank(id, parent_id, shares, usage, is_user) OVER w AS a5
                              FROM bench.tree_%2$s t
                            WINDOW w AS (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) x
                      FULL JOIN
                           (SELECT id, %3$s.pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.pbs_fairshare_usage(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.pbs_tree_usage(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.pbs_fairshare_factor(id, parent_id, shares, usage, is_user) OVER w,
                                   %3$s.pbs_fairshare_rank(id, parent_id, shares, usage, is_user) OVER w
                              FROM bench.tree_%2$s t
                            WINDOW w AS (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) y USING (id)
                     WHERE x IS DISTINCT FROM y) THEN
        RAISE EXCEPTION 'the two libraries differ over %2$s rows of the PBS tree';
    END IF;
    RAISE WARNING 'the two libraries agree on every PBS output over %2$s rows';
END $d$$q$, 'fairshare', n, 'bench_old') FROM ab_sizes ORDER BY n \gexec
\endif
-- Timing in a fresh backend (the comparison above leaves its memory in
-- this one): every round runs rank() and each build's five-argument and
-- node forms of Fair Tree and its PBS tree, interleaved, so that the load of a shared machine falls on
-- all alike; each median against rank()'s in the same rounds, the ratio
-- the median of the rounds' ratios (as bench.compare gives it).
\c
SET client_min_messages = warning;
CREATE TEMP TABLE ab_sizes AS SELECT unnest(string_to_array(:'tree_sizes', ','))::int AS n;
CREATE TEMP TABLE ab_rounds (n int, round int, what text, ms float8);
SELECT set_config('bench.reps', :'reps', false) AS bench_reps,
       set_config('bench.old_lib', :'old_lib', false) AS bench_old_lib \gset
DO $d$
DECLARE
    s record;
    q text[];
    w text[] := ARRAY['rank', 'five', 'five_old', 'node', 'node_old', 'pbs', 'pbs_old'];
BEGIN
    FOR s IN SELECT n FROM ab_sizes ORDER BY n LOOP
        q := ARRAY[format('SELECT rank() OVER (ORDER BY usage) FROM bench.tree_%s', s.n),
                   format('SELECT fairshare.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER () FROM bench.tree_%s', s.n),
                   format('SELECT bench_old.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER () FROM bench.tree_%s', s.n),
                   format('SELECT fairshare.fair_tree_factor(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER () FROM bench.tree_%s', s.n),
                   format('SELECT bench_old.fair_tree_factor(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER () FROM bench.tree_%s', s.n),
                   format('SELECT fairshare.pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER () FROM bench.tree_%s', s.n),
                   format('SELECT bench_old.pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER () FROM bench.tree_%s', s.n)];
        -- round 0 warms the caches and is not counted
        FOR i IN 0..current_setting('bench.reps')::int LOOP
            FOR j IN 1..7 LOOP
                INSERT INTO ab_rounds VALUES (s.n, i, w[j], bench.run_ms(q[j]));
            END LOOP;
        END LOOP;
    END LOOP;
END $d$;
SELECT CASE f.what WHEN 'five' THEN 'Fair Tree (this build), ' WHEN 'five_old' THEN 'Fair Tree (' || :'old_lib' || '), '
                   WHEN 'node' THEN 'Fair Tree node form (this build), ' WHEN 'node_old' THEN 'Fair Tree node form (' || :'old_lib' || '), '
                   WHEN 'pbs' THEN 'pbs_fairshare_perc (this build), ' ELSE 'pbs_fairshare_perc (' || :'old_lib' || '), ' END
       || f.n AS measurement,
       round((bench.median(array_agg(f.ms)) / 1000)::numeric, 3) AS median_s,
       round((bench.median(array_agg(r.ms)) / 1000)::numeric, 3) AS rank_s,
       round(bench.median(array_agg(f.ms / r.ms))::numeric, 3) AS ratio,
       round(min(f.ms / r.ms)::numeric, 3) AS min_ratio,
       round(max(f.ms / r.ms)::numeric, 3) AS max_ratio,
       count(*) AS rounds
  FROM ab_rounds f
  JOIN ab_rounds r ON r.n = f.n AND r.round = f.round AND r.what = 'rank'
 WHERE f.what <> 'rank' AND f.round > 0
 GROUP BY f.n, f.what ORDER BY f.n, f.what;
DROP SCHEMA bench_old CASCADE;
