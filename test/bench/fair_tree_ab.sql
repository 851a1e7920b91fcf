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
SELECT format($f$CREATE FUNCTION bench_old.fair_tree_factor(text, text, float8, float8, boolean)
               RETURNS float8 AS %L, 'fs_fair_tree_factor' LANGUAGE C WINDOW IMMUTABLE$f$,
              '$libdir/' || :'old_lib') \gexec
CREATE TEMP TABLE ab_sizes AS SELECT unnest(string_to_array(:'tree_sizes', ','))::int AS n;
SELECT format($q$DO $d$ BEGIN
    IF EXISTS (SELECT FROM (SELECT fairshare.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER (ORDER BY id) AS a,
                                   bench_old.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER (ORDER BY id) AS b
                              FROM bench.tree_%s) x WHERE a IS DISTINCT FROM b) THEN
        RAISE EXCEPTION 'the two libraries differ over %s associations';
    END IF; END $d$$q$, n, n) FROM ab_sizes ORDER BY n \gexec
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
