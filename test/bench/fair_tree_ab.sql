-- Two builds of fair_tree_factor in the same run: the installed library
-- against another one copied beside it under another name (the previous
-- build), over the bench.tree_N tables that bench_fair_tree.sql leaves,
-- interleaved with rank() over the same rows.  For a change to the C code,
-- whose effect the load of a shared machine would otherwise hide:
--
--   cp $(pg_config --pkglibdir)/fairshare.so $(pg_config --pkglibdir)/fairshare_old.so  # before
--   make install                                                                        # after
--   psql -v reps=5 -v tree_sizes=1000000 -v old_lib=fairshare_old -f test/bench/fair_tree_ab.sql
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
ALTER FUNCTION bench_old.sshare_tree(text, text, float8, float8, boolean, text, float8) RENAME TO _sshare_tree;
ALTER FUNCTION bench_old.sshare_tree(text, text, float8, float8, boolean, text, float8, float8) RENAME TO _sshare_tree;
DELETE FROM bench.results WHERE name LIKE 'Fair Tree (%' OR name LIKE 'rank(), %';
CREATE TEMP TABLE ab_sizes AS SELECT unnest(string_to_array(:'tree_sizes', ','))::int AS n;
-- Each output of both libraries, row by row (matched by id), exactly
-- (float8 equality is bit equality but for -0 and NaN, which no output
-- holds).  The
-- sshare variant with a usage now of its own: 1.5 × the usage on every
-- third row, the same usage (NULL) elsewhere.
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
                                   %1$s._sshare_tree(id, parent_id, shares, usage, is_user, 'fair_tree', 1) OVER w AS a13,
                                   %1$s._sshare_tree(id, parent_id, shares, usage, is_user, 'classic', 0.5,
                                                     CASE WHEN k %% 3 = 0 THEN usage * 1.5 END) OVER w AS a14
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
                                                     CASE WHEN k %% 3 = 0 THEN usage * 1.5 END) OVER w
                              FROM (SELECT *, row_number() OVER () AS k FROM bench.tree_%2$s) t
                            WINDOW w AS (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) y USING (id)
                     WHERE x IS DISTINCT FROM y) THEN
        RAISE EXCEPTION 'the two libraries differ over %2$s associations';
    END IF;
    RAISE WARNING 'the two libraries agree on every output over %2$s associations';
END $d$$q$, 'fairshare', n, 'bench_old') FROM ab_sizes ORDER BY n \gexec
\o /dev/null
SELECT bench.compare('Fair Tree (this build), ' || n,
         format('SELECT fairshare.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER () FROM bench.tree_%s', n),
         'rank(), ' || n || ' rows (this build''s rounds)',
         format('SELECT rank() OVER (ORDER BY usage) FROM bench.tree_%s', n), :reps),
       bench.compare('Fair Tree (' || :'old_lib' || '), ' || n,
         format('SELECT bench_old.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER () FROM bench.tree_%s', n),
         'rank(), ' || n || ' rows (old build''s rounds)',
         format('SELECT rank() OVER (ORDER BY usage) FROM bench.tree_%s', n), :reps)
  FROM ab_sizes ORDER BY n;
\o
SELECT measurement, median_s, baseline_s, ratio FROM bench.report() WHERE measurement LIKE 'Fair Tree (%';
DROP SCHEMA bench_old CASCADE;
