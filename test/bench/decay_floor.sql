-- The floors under decayed_usage's per-row cost (docs/performance.md#decayed_usage):
-- C aggregates of decayed_usage's point-form arguments that do one step more
-- each (test/bench/decay_floor/decay_floor.c: the row count alone, of one
-- argument and of the four; + the Neumaier sum; + the exponent; + glibc's
-- exp2, decayed_usage's own arithmetic), timed against sum(float8) and
-- decayed_usage over the same rows, serial, interleaved round by round.
--
--   make -C test/bench/decay_floor install PG_CONFIG=...
--   psql -f test/bench/lib.sql
--   PGOPTIONS='-c work_mem=64MB -c jit=off' psql -v rows=3000000 -v reps=41 -f test/bench/decay_floor.sql
--
-- The exp floor's answer is checked first to be decayed_usage's (float8
-- equality: the same bits).  Reports, per aggregate, the median time, the
-- median of the per-round ratios to sum(float8) and the ratio of the fastest
-- rounds.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS bench.decay_floor_rows;
DO $$ BEGIN PERFORM setseed(0.5); END $$;
CREATE UNLOGGED TABLE bench.decay_floor_rows AS
SELECT (random() * 1000)::float8 AS usage,
       '2024-01-01 00:00+00'::timestamptz + random() * interval '730 days' AS at
  FROM generate_series(1, :rows);
VACUUM ANALYZE bench.decay_floor_rows;
DROP SCHEMA IF EXISTS bench_floor CASCADE;
CREATE SCHEMA bench_floor;
CREATE FUNCTION bench_floor._count1(float8[], float8) RETURNS float8[]
    AS '$libdir/decay_floor', 'decay_floor_count1' LANGUAGE C IMMUTABLE;
CREATE AGGREGATE bench_floor.count1(float8) (
    SFUNC = bench_floor._count1, STYPE = float8[], INITCOND = '{0,0,0}', FINALFUNC = fairshare_internal._decay_final);
SELECT format($f$CREATE FUNCTION bench_floor._%1$s(float8[], float8, timestamptz, timestamptz, interval) RETURNS float8[]
    AS '$libdir/decay_floor', 'decay_floor_%1$s' LANGUAGE C IMMUTABLE$f$, f),
       format($f$CREATE AGGREGATE bench_floor.%1$s(float8, timestamptz, timestamptz, interval) (
    SFUNC = bench_floor._%1$s, STYPE = float8[], INITCOND = '{0,0,0}', FINALFUNC = fairshare_internal._decay_final)$f$, f)
  FROM unnest(ARRAY['count', 'kahan', 'div', 'exp']) AS f \gexec
DO $$
BEGIN
    IF NOT (SELECT bench_floor.exp(usage, at, '2026-01-01', '14 days')
                     = fairshare.decayed_usage(usage, at, '2026-01-01', '14 days')
              FROM bench.decay_floor_rows) THEN
        RAISE EXCEPTION 'the exp floor and decayed_usage give different results';
    END IF;
END $$;
CREATE TEMP TABLE decay_floor (round int, what text, ms float8);
SELECT format($f$DO $d$
DECLARE
    q text[] := %1$L;
    n text[] := %2$L;
BEGIN
    FOR j IN 1..array_length(q, 1) LOOP PERFORM bench.run_ms(q[j]); END LOOP;
    FOR i IN 1..%3$s LOOP
        FOR j IN 1..array_length(q, 1) LOOP
            INSERT INTO decay_floor VALUES (i, n[j], bench.run_ms(q[j]));
        END LOOP;
    END LOOP;
END $d$$f$,
  ARRAY['SELECT sum(usage) FROM bench.decay_floor_rows',
        'SELECT bench_floor.count1(usage) FROM bench.decay_floor_rows',
        $q$SELECT bench_floor.count(usage, at, '2026-01-01', '14 days') FROM bench.decay_floor_rows$q$,
        $q$SELECT bench_floor.kahan(usage, at, '2026-01-01', '14 days') FROM bench.decay_floor_rows$q$,
        $q$SELECT bench_floor.div(usage, at, '2026-01-01', '14 days') FROM bench.decay_floor_rows$q$,
        $q$SELECT bench_floor.exp(usage, at, '2026-01-01', '14 days') FROM bench.decay_floor_rows$q$,
        $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.decay_floor_rows$q$],
  ARRAY['sum', 'count1', 'count', 'kahan', 'div', 'exp', 'decayed_usage'],
  :reps) \gexec
SELECT x.what,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x.ms)::numeric, 1) AS median_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x.ms / s.ms)::numeric, 3) AS ratio,
       round((min(x.ms) / min(s.ms))::numeric, 3) AS fastest_ratio,
       count(*) AS rounds
  FROM decay_floor x JOIN decay_floor s ON s.round = x.round AND s.what = 'sum'
 GROUP BY x.what
 ORDER BY array_position(ARRAY['sum', 'count1', 'count', 'kahan', 'div', 'exp', 'decayed_usage'], x.what);
DROP SCHEMA bench_floor CASCADE;
DROP TABLE bench.decay_floor_rows;
