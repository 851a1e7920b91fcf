-- Fair Tree over 10^4, 10^5, 10^6 associations (issue 7: 10^5 under 0.3 s,
-- 10^6 under 3 s, growth n log n).  Baseline: PostgreSQL's rank() over the
-- same rows ordered by usage (one sort of the partition), same run.
-- Trees: accounts 6 levels deep with a fan-out that gives the wanted size,
-- 20 users per leaf account on average, random shares and usage.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS bench.tree;
CREATE UNLOGGED TABLE bench.tree (n int, id text, parent_id text, shares float8, usage float8, is_user boolean);
SELECT setseed(0.7);
-- accounts: level k has fanout^k accounts; users under the last level
INSERT INTO bench.tree
SELECT n, 'root', NULL, 1, 0, false FROM (VALUES (10000), (100000), (1000000)) s(n);
INSERT INTO bench.tree
SELECT s.n, 'a' || lvl || '_' || i, CASE WHEN lvl = 1 THEN 'root' ELSE 'a' || (lvl - 1) || '_' || (i / f) END,
       1 + floor(random() * 100), 0, false
  FROM (VALUES (10000, 3), (100000, 4), (1000000, 6)) s(n, f)
  CROSS JOIN generate_series(1, 5) lvl
  CROSS JOIN LATERAL generate_series(0, (f ^ lvl)::int - 1) i;
INSERT INTO bench.tree
SELECT t.n, 'u' || g, a.id, 1, floor(random() * 1e6), true
  FROM (SELECT n, count(*) AS accounts FROM bench.tree GROUP BY n) t
  CROSS JOIN LATERAL generate_series(1, t.n - t.accounts::int) g
  JOIN LATERAL (SELECT id FROM bench.tree x WHERE x.n = t.n AND x.id LIKE 'a5\_%'
                ORDER BY x.id OFFSET (g % (SELECT count(*) FROM bench.tree y WHERE y.n = t.n AND y.id LIKE 'a5\_%')) LIMIT 1) a ON true;
ANALYZE bench.tree;
SELECT n, count(*) AS rows, count(*) FILTER (WHERE is_user) AS users FROM bench.tree GROUP BY n ORDER BY n;

TRUNCATE bench.results;
SELECT bench.run('rank() over ' || n || ' rows',
  format('SELECT count(r) FROM (SELECT rank() OVER (ORDER BY usage) r FROM bench.tree WHERE n = %s) s', n), :reps)
  FROM (VALUES (10000), (100000), (1000000)) s(n);
SELECT bench.run('fair_tree_factor over ' || n || ' rows',
  format('SELECT count(f) FROM (SELECT fairshare.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER () f FROM bench.tree WHERE n = %s) s', n),
  :reps, 'rank() over ' || n || ' rows')
  FROM (VALUES (10000), (100000), (1000000)) s(n);

SELECT r.name, round(r.ms::numeric, 1) AS median_ms, r.baseline,
       round((r.ms / b.ms)::numeric, 2) AS ratio_to_baseline
  FROM bench.results r LEFT JOIN bench.results b ON b.name = r.baseline
 ORDER BY r.name LIKE 'fair%', length(r.name), r.name;
-- growth: time per association × 10^6 / log2(n), flat for n log n
SELECT replace(name, 'fair_tree_factor over ', '') AS associations,
       round((ms / split_part(replace(name, 'fair_tree_factor over ', ''), ' ', 1)::float8
              / log(2, split_part(replace(name, 'fair_tree_factor over ', ''), ' ', 1)::numeric)::float8 * 1e6)::numeric, 1)
         AS ns_per_assoc_per_log2n
  FROM bench.results WHERE name LIKE 'fair_tree%' ORDER BY ms;
DROP TABLE bench.tree;
