-- Fair Tree over 10^4, 10^5, 10^6 associations (docs/performance.md: 10^5 under 0.3 s,
-- 10^6 under 3 s, memory under 300 bytes per association, n log n growth).
-- Baseline: PostgreSQL's rank() over the same rows ordered by usage (one
-- sort of the partition), interleaved with it in the same run.
--
-- Trees shaped like the centre's (centre.sql), one per size n: n/4
-- accounts on 5 levels under root (proportions 10:100:1000:6000:17889),
-- 3n/4 user associations, 95 % under leaf accounts, shares 1..100, usage
-- skewed.  Sizes: :tree_sizes (default 10^4, 10^5, 10^6).
--
-- Memory (measured by run.sh once these trees exist): the peak resident
-- memory of a fresh backend running the query, above its resident memory
-- after the same call over a one-row tree, minus the same for
-- count(*) OVER () over the same rows, per association (VmHWM and VmRSS
-- from /proc/self/status, superuser).
\set ON_ERROR_STOP 1
SELECT set_config('bench.reps', :'reps', false) AS bench_reps \gset
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench.tree;
CREATE UNLOGGED TABLE bench.tree (n int, id text, parent_id text, shares float8, usage float8, is_user boolean);
DO $$ BEGIN PERFORM setseed(0.7); END $$;
CREATE TEMP TABLE sizes AS SELECT unnest(string_to_array(:'tree_sizes', ','))::int AS n;
CREATE TEMP TABLE tacc (n int, l int, i int, id text, parent text, leaf boolean);
INSERT INTO tacc SELECT n, 0, 0, 'root', NULL, false FROM sizes;
INSERT INTO tacc
SELECT s.n, v.l, i, 'a' || v.l || '_' || i, NULL, v.l = 5
  FROM sizes s
  CROSS JOIN (VALUES (1, 10), (2, 100), (3, 1000), (4, 6000), (5, 17889)) v(l, f)
  CROSS JOIN LATERAL generate_series(0, greatest(round((s.n / 4 - 1)::numeric * v.f / 25000), 1)::int - 1) i;
CREATE TEMP TABLE tlev AS SELECT n, l, count(*) AS k FROM tacc GROUP BY n, l;
-- parents: uniform over the level above; level 5 over the first half of level 4
UPDATE tacc a SET parent = CASE WHEN a.l = 1 THEN 'root'
                                ELSE 'a' || (a.l - 1) || '_' ||
                                     floor(random() * CASE WHEN a.l = 5 THEN ceil(k.k / 2.0) ELSE k.k END)::int END
  FROM tlev k WHERE k.n = a.n AND k.l = a.l - 1 AND a.l > 0;
UPDATE tacc a SET leaf = true
 WHERE a.l BETWEEN 1 AND 4
   AND NOT EXISTS (SELECT FROM tacc c WHERE c.n = a.n AND c.parent = a.id);
INSERT INTO bench.tree
SELECT n, id, parent, CASE WHEN l = 0 THEN 1 ELSE 1 + floor(random() * 100) END, 0, false FROM tacc ORDER BY n, l, i;
CREATE TEMP TABLE tleaf AS
SELECT n, row_number() OVER (PARTITION BY n ORDER BY l, i) - 1 AS k, id FROM tacc WHERE leaf;
CREATE TEMP TABLE tinner AS
SELECT n, row_number() OVER (PARTITION BY n ORDER BY l, i) - 1 AS k, id FROM tacc WHERE NOT leaf AND l > 0;
CREATE INDEX ON tleaf (n, k);
CREATE INDEX ON tinner (n, k);
ANALYZE tleaf, tinner;
CREATE TEMP TABLE tcount AS
SELECT s.n, (SELECT count(*) FROM tleaf x WHERE x.n = s.n) AS nl,
       (SELECT count(*) FROM tinner x WHERE x.n = s.n) AS ni,
       s.n - (SELECT count(*) FROM tacc a WHERE a.n = s.n)::int AS nu
  FROM sizes s;
INSERT INTO bench.tree
SELECT d.n, 'u' || d.j, COALESCE(lf.id, ia.id), 1 + floor(d.r * 10), floor(1e9 * power(random(), 4)), true
  FROM (SELECT c.n, j, random() < 0.95 AS at_leaf, random() AS r, c.nl, c.ni
          FROM tcount c CROSS JOIN LATERAL generate_series(1, c.nu) j
        OFFSET 0) d
  LEFT JOIN tleaf lf ON d.at_leaf AND lf.n = d.n AND lf.k = floor(d.r * d.nl)::bigint
  LEFT JOIN tinner ia ON NOT d.at_leaf AND ia.n = d.n AND ia.k = floor(d.r * d.ni)::bigint;
SELECT n AS associations, count(*) FILTER (WHERE NOT is_user) AS accounts,
       count(*) FILTER (WHERE is_user) AS users FROM bench.tree GROUP BY n ORDER BY n;
-- one table per size, so that every query reads exactly its tree
SELECT unnest(ARRAY[format('DROP TABLE IF EXISTS bench.tree_%s', n),
                     format('CREATE UNLOGGED TABLE bench.tree_%s AS SELECT id, parent_id, shares, usage, is_user FROM bench.tree WHERE n = %s', n, n),
                     format('VACUUM ANALYZE bench.tree_%s', n)])
  FROM sizes ORDER BY n \gexec
DROP TABLE bench.tree;

\o /dev/null
-- Three queries interleaved in every round, in the same run: rank(), the
-- five-argument form and the node form (one composite argument per row,
-- read once: docs/performance.md#fair-tree).  Each form's median against
-- the median of rank() in the same rounds; the ratio is the median of the
-- rounds' ratios, as bench.compare gives it.
CREATE TEMP TABLE ft_rounds (n int, round int, what text, ms float8);
DO $d$
DECLARE
    s record;
    q_rank text;
    q_five text;
    q_node text;
BEGIN
    FOR s IN SELECT n FROM sizes ORDER BY n LOOP
        q_rank := format('SELECT rank() OVER (ORDER BY usage) FROM bench.tree_%s', s.n);
        q_five := format('SELECT fairshare.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER () FROM bench.tree_%s', s.n);
        q_node := format('SELECT fairshare.fair_tree_factor(ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node) OVER () FROM bench.tree_%s', s.n);
        -- round 0 warms the caches and is not counted
        FOR i IN 0..current_setting('bench.reps')::int LOOP
            INSERT INTO ft_rounds VALUES (s.n, i, 'rank', bench.run_ms(q_rank)),
                                         (s.n, i, 'five', bench.run_ms(q_five)),
                                         (s.n, i, 'node', bench.run_ms(q_node));
        END LOOP;
    END LOOP;
END $d$;
SELECT bench.record(CASE f.what WHEN 'five' THEN 'Fair Tree, ' ELSE 'Fair Tree node form, ' END || f.n || ' associations',
                    bench.median(array_agg(f.ms)), 'rank() over ' || f.n || ' rows',
                    bench.median(array_agg(r.ms)), bench.median(array_agg(f.ms / r.ms)), count(*)::int,
                    CASE f.n WHEN 100000 THEN 300 WHEN 1000000 THEN 3000 END,
                    CASE WHEN f.what = 'node' AND f.n = 1000000 THEN 1.5 END)
  FROM ft_rounds f
  JOIN ft_rounds r ON r.n = f.n AND r.round = f.round AND r.what = 'rank'
 WHERE f.what IN ('five', 'node') AND f.round > 0
 GROUP BY f.n, f.what;

-- growth: time per association / log2(n), flat for n log n
SELECT bench.note('Fair Tree, ' || n || ' associations',
         format('%s ns per association per log2(n)',
                round((ms / n / log(2, n::numeric)::float8 * 1e6)::numeric, 1)))
  FROM bench.results r JOIN sizes s ON r.name = 'Fair Tree, ' || s.n || ' associations';
\o

-- The bench.tree_N tables stay for the memory probe of run.sh, which drops them.
