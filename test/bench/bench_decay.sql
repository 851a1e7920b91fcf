-- decayed_usage over :rows rows against PostgreSQL's sum(float8) over the
-- same rows, and against the same decay written as a plain SQL expression;
-- serial, and with 2 parallel workers.  Targets (docs/performance.md): at most 1.3x the
-- sum, at least 3x faster than the SQL expression, at least 1.6x faster
-- with 2 workers than with none.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench.usage_rows;
DO $$ BEGIN PERFORM setseed(0.5); END $$;
CREATE UNLOGGED TABLE bench.usage_rows AS
SELECT (random() * 1000)::float8 AS usage,
       '2024-01-01 00:00+00'::timestamptz + random() * interval '730 days' AS at
  FROM generate_series(1, :rows);
VACUUM ANALYZE bench.usage_rows;

\o /dev/null
SELECT bench.compare('decayed_usage, serial',
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.usage_rows$q$,
  'sum(float8), serial',
  $q$SELECT sum(usage) FROM bench.usage_rows$q$,
  :reps, NULL, 1.3, 'ratio <= 1.3', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
SELECT bench.compare('decayed_usage vs the SQL expression, serial',
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.usage_rows$q$,
  'the same decay as a SQL expression, serial',
  $q$SELECT sum(usage * power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - at) / 1209600.0::float8))
       FROM bench.usage_rows WHERE at <= '2026-01-01'$q$,
  :reps, NULL, 1 / 3.0, 'ratio <= 0.333 (3x faster)', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
SELECT bench.compare('decayed_usage, 2 workers',
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.usage_rows$q$,
  'decayed_usage, serial',
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.usage_rows$q$,
  :reps, NULL, 1 / 1.6, 'ratio <= 0.625 (1.6x faster)', 'max_parallel_workers_per_gather=2', 'max_parallel_workers_per_gather=0');
-- the span form (usage accrued over an hour, the exact integral of the
-- decay): the same, against its SQL expression
--   u / (e - s) * h / ln 2 * (2^(-(T - min(e, T)) / h) - 2^(-(T - s) / h))
SELECT bench.compare('decayed_usage, span form, serial',
  $q$SELECT fairshare.decayed_usage(usage, at, at + interval '1 hour', '2026-01-01', '14 days') FROM bench.usage_rows$q$,
  'sum(float8), serial',
  $q$SELECT sum(usage) FROM bench.usage_rows$q$,
  :reps, NULL, NULL, NULL, 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
SELECT bench.compare('decayed_usage, span form vs the SQL expression, serial',
  $q$SELECT fairshare.decayed_usage(usage, at, at + interval '1 hour', '2026-01-01', '14 days') FROM bench.usage_rows$q$,
  'the same integral as a SQL expression, serial',
  $q$SELECT sum(CASE WHEN e = s THEN usage * power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - s) / 1209600.0::float8)
                     ELSE usage / date_part('epoch', e - s) * 1209600.0::float8 / ln(2::float8)
                          * (power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - least(e, timestamptz '2026-01-01')) / 1209600.0::float8)
                             - power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - s) / 1209600.0::float8)) END)
       FROM (SELECT usage, at AS s, at + interval '1 hour' AS e FROM bench.usage_rows) x
      WHERE s <= '2026-01-01'$q$,
  :reps, NULL, 1 / 3.0, 'ratio <= 0.333 (3x faster)', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
\o
DROP TABLE bench.usage_rows;
