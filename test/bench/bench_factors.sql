-- The cached fair-share factors of a checkpoint, two ways, on the benchmark
-- centre (test/bench/centre.sql) with a checkpoint at its instant (made
-- here first, removed at the end): through
-- sshare_at (what _checkpoint_factors did before: sshare_at's TRESRunMins read
-- every running job) against the tree function over association_tree_at (what
-- it did next: the usage computed again) and over _checkpoint_tree (what it
-- does now: the usage read from the checkpoint's rows).  Alternating rounds
-- in one session, the first a warm-up; the rows of the three are compared
-- (the file stops if they differ) and the medians go into the benchmark
-- table.
-- docs/performance.md#history-at-scale.
--   PGOPTIONS='-c work_mem=64MB -c jit=off' psql -X -f test/bench/bench_factors.sql
\set ON_ERROR_STOP 1
SET work_mem = '64MB'; SET jit = off;
-- checkpoint_usage's own settings (extension/checkpoint.sql)
SET enable_nestloop = off; SET enable_mergejoin = off;
SET client_min_messages = warning;
DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench' AND NOT pinned;
CALL fairshare.checkpoint_usage('bench', bench.as_of());
SELECT set_config('bench.factors_at', bench.as_of()::text, false) IS NOT NULL AS instant_set \g /dev/null
CREATE TEMP TABLE t_old (cluster text, account text, user_name text, fairshare float8);
CREATE TEMP TABLE t_new (LIKE t_old);
CREATE TEMP TABLE t_rows (LIKE t_old);
CREATE TEMP TABLE times (round int, variant text, secs float8);
DO $$
DECLARE
    t0 timestamptz;
    at timestamptz := current_setting('bench.factors_at')::timestamptz;
BEGIN
  FOR r IN 0..5 LOOP
    TRUNCATE t_old; TRUNCATE t_new; TRUNCATE t_rows;
    t0 := clock_timestamp();
    INSERT INTO t_old SELECT s.cluster, s.account, s.user_name, s.fairshare
      FROM fairshare.sshare_at(at) s WHERE s.user_name IS NOT NULL AND s.cluster = 'bench';
    INSERT INTO times VALUES (r, 'through sshare_at (before)', extract(epoch FROM clock_timestamp() - t0));
    t0 := clock_timestamp();
    INSERT INTO t_new SELECT s.cluster, s.account, s.user_name, (s.f).fairshare
      FROM (SELECT t.cluster, t.account, t.user_name,
                   fairshare_internal._sshare_tree(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.algorithm,
                       CASE WHEN t.algorithm = 'classic'
                            THEN (SELECT c.fairshare_dampening FROM fairshare.clusters c WHERE c.cluster = t.cluster) END,
                       t.raw_usage) OVER (PARTITION BY t.cluster) AS f
              FROM fairshare.association_tree_at(at) t
             WHERE t.algorithm = ANY (ARRAY['fair_tree', 'classic']) AND t.cluster = 'bench') s
     WHERE s.user_name IS NOT NULL;
    INSERT INTO times VALUES (r, 'tree function over association_tree_at', extract(epoch FROM clock_timestamp() - t0));
    t0 := clock_timestamp();
    INSERT INTO t_rows SELECT s.cluster, s.account, s.user_name, (s.f).fairshare
      FROM (SELECT t.cluster, t.account, t.user_name,
                   fairshare_internal._sshare_tree(
                       ROW(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.raw_usage)::fairshare_internal._sshare_tree_node,
                       t.algorithm,
                       CASE WHEN t.algorithm = 'classic'
                            THEN (SELECT c.fairshare_dampening FROM fairshare.clusters c WHERE c.cluster = t.cluster) END)
                     OVER (PARTITION BY t.cluster) AS f
              FROM fairshare_internal._checkpoint_tree(at) t
             WHERE t.algorithm = ANY (ARRAY['fair_tree', 'classic']) AND t.cluster = 'bench') s
     WHERE s.user_name IS NOT NULL;
    INSERT INTO times VALUES (r, 'tree function over the checkpoint''s rows (now)', extract(epoch FROM clock_timestamp() - t0));
  END LOOP;
END $$;
SELECT (SELECT count(*) FROM t_old) AS rows_before, (SELECT count(*) FROM t_new) AS rows_now,
       (SELECT count(*) FROM t_rows) AS rows_from_rows,
       (SELECT count(*) FROM t_old o FULL JOIN t_new n USING (cluster, account, user_name)
         WHERE o.fairshare IS DISTINCT FROM n.fairshare) AS rows_differ,
       (SELECT count(*) FROM t_old o FULL JOIN t_rows n USING (cluster, account, user_name)
         WHERE o.fairshare IS DISTINCT FROM n.fairshare) AS rows_differ_rows \gset
\echo :rows_before rows through sshare_at, :rows_now from the tree function, :rows_differ differ; :rows_from_rows from the rows of the checkpoint, :rows_differ_rows differ
DO $$
BEGIN
    IF (SELECT count(*) FROM t_old) = 0 OR EXISTS (
           SELECT FROM t_old o FULL JOIN t_new n USING (cluster, account, user_name)
            WHERE o.fairshare IS DISTINCT FROM n.fairshare)
       OR EXISTS (
           SELECT FROM t_old o FULL JOIN t_rows n USING (cluster, account, user_name)
            WHERE o.fairshare IS DISTINCT FROM n.fairshare) THEN
        RAISE EXCEPTION 'bench_factors: the two ways give different factors (or none)';
    END IF;
END $$;
SELECT variant, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY secs)::numeric, 3) AS median_s,
       round(min(secs)::numeric, 3) AS min_s, round(max(secs)::numeric, 3) AS max_s, count(*) AS rounds
  FROM times WHERE round > 0 GROUP BY variant ORDER BY variant;
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY n.secs / o.secs)::numeric, 3) AS median_ratio_association_tree_at_over_sshare_at
  FROM times o JOIN times n USING (round)
 WHERE o.variant LIKE 'through%' AND n.variant LIKE '%association_tree_at' AND round > 0;
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY n.secs / o.secs)::numeric, 3) AS median_ratio_rows_over_association_tree_at
  FROM times o JOIN times n USING (round)
 WHERE o.variant LIKE '%association_tree_at' AND n.variant LIKE '%rows (now)' AND round > 0;
\o /dev/null
SELECT bench.record(format('the fair-share factors a checkpoint caches: the tree function over the checkpoint''s rows (%s user associations)', :rows_from_rows),
                    1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY n.secs), 'the same over association_tree_at',
                    1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY o.secs),
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY n.secs / o.secs), 5, NULL, NULL, NULL)
  FROM times o JOIN times n USING (round)
 WHERE o.variant LIKE '%association_tree_at' AND n.variant LIKE '%rows (now)' AND round > 0;
\o
DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench' AND as_of = bench.as_of() AND NOT pinned;
