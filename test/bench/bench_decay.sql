-- decayed_usage against PostgreSQL's sum(float8) over the same rows, and
-- against the same decay written as a plain SQL expression; serial and with
-- 2 parallel workers.  Targets (issue 7): ≤ 1.3× sum, ≥ 3× faster than the
-- SQL expression, ≥ 1.6× faster with 2 workers than with none.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS bench.usage_rows;
CREATE UNLOGGED TABLE bench.usage_rows AS
SELECT (random() * 1000)::float8 AS usage,
       '2024-01-01 00:00+00'::timestamptz + random() * interval '730 days' AS at
  FROM generate_series(1, :rows);
VACUUM ANALYZE bench.usage_rows;
TRUNCATE bench.results;

SET max_parallel_workers_per_gather = 0;
SELECT bench.run('sum(usage), serial',
  'SELECT sum(usage) FROM bench.usage_rows', :reps);
SELECT bench.run('decayed_usage, serial',
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.usage_rows$q$, :reps,
  'sum(usage), serial');
SELECT bench.run('same decay as SQL expression, serial',
  $q$SELECT sum(usage * power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - at) / 1209600.0::float8))
       FROM bench.usage_rows WHERE at <= '2026-01-01'$q$, :reps, 'decayed_usage, serial');
SELECT bench.run('decayed_usage span form, serial',
  $q$SELECT fairshare.decayed_usage(usage, at, at + interval '1 hour', '2026-01-01', '14 days') FROM bench.usage_rows$q$, :reps,
  'sum(usage), serial');
SET max_parallel_workers_per_gather = 2;
SELECT bench.run('sum(usage), 2 workers',
  'SELECT sum(usage) FROM bench.usage_rows', :reps);
SELECT bench.run('decayed_usage, 2 workers',
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.usage_rows$q$, :reps,
  'sum(usage), 2 workers');
RESET max_parallel_workers_per_gather;

SELECT r.name, round(r.ms::numeric, 1) AS median_ms, r.baseline,
       round((r.ms / b.ms)::numeric, 2) AS ratio_to_baseline
  FROM bench.results r LEFT JOIN bench.results b ON b.name = r.baseline
 ORDER BY r.name;
SELECT round((s.ms / p.ms)::numeric, 2) AS decayed_usage_speedup_with_2_workers
  FROM bench.results s, bench.results p
 WHERE s.name = 'decayed_usage, serial' AND p.name = 'decayed_usage, 2 workers';
DROP TABLE bench.usage_rows;
