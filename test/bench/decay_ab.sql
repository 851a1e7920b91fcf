-- Two builds of decayed_usage in the same run: the installed library against
-- another one copied beside it under another name (the previous build), and
-- both against sum(float8) over the same rows, serial, interleaved round by
-- round (sum, previous, current).  For a change to decay.c, whose effect the
-- load of a shared machine would otherwise hide:
--
--   cp $(pg_config --pkglibdir)/fairshare.so $(pg_config --pkglibdir)/fairshare_old.so  # before
--   make install                                                                        # after
--   psql -f test/bench/lib.sql
--   PGOPTIONS='-c work_mem=64MB -c jit=off' psql -v rows=3000000 -v reps=41 -v old_lib=fairshare_old -f test/bench/decay_ab.sql
--
-- The two builds' answers are compared first, point and span form, exactly
-- (float8 equality: the same bits).  Reports the medians, the median of the
-- per-round ratios to sum(float8) and the ratio of the fastest rounds.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS bench.decay_ab_rows;
DO $$ BEGIN PERFORM setseed(0.5); END $$;
CREATE UNLOGGED TABLE bench.decay_ab_rows AS
SELECT (random() * 1000)::float8 AS usage,
       '2024-01-01 00:00+00'::timestamptz + random() * interval '730 days' AS at
  FROM generate_series(1, :rows);
VACUUM ANALYZE bench.decay_ab_rows;
DROP SCHEMA IF EXISTS bench_old CASCADE;
CREATE SCHEMA bench_old;
SELECT format('CREATE FUNCTION bench_old._point(float8[], float8, timestamptz, timestamptz, interval) RETURNS float8[] AS %L, %L LANGUAGE C IMMUTABLE',
              '$libdir/' || :'old_lib', 'fs_decay_point_accum') \gexec
SELECT format('CREATE FUNCTION bench_old._span(float8[], float8, timestamptz, timestamptz, timestamptz, interval) RETURNS float8[] AS %L, %L LANGUAGE C IMMUTABLE',
              '$libdir/' || :'old_lib', 'fs_decay_span_accum') \gexec
CREATE AGGREGATE bench_old.decayed_usage(float8, timestamptz, timestamptz, interval) (
    SFUNC = bench_old._point, STYPE = float8[], INITCOND = '{0,0,0}', FINALFUNC = fairshare_internal._decay_final);
CREATE AGGREGATE bench_old.decayed_usage(float8, timestamptz, timestamptz, timestamptz, interval) (
    SFUNC = bench_old._span, STYPE = float8[], INITCOND = '{0,0,0}', FINALFUNC = fairshare_internal._decay_final);
DO $$
BEGIN
    IF NOT (SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days')
                     = bench_old.decayed_usage(usage, at, '2026-01-01', '14 days')
               AND fairshare.decayed_usage(usage, at, at + interval '1 hour', '2026-01-01', '14 days')
                     = bench_old.decayed_usage(usage, at, at + interval '1 hour', '2026-01-01', '14 days')
              FROM bench.decay_ab_rows) THEN
        RAISE EXCEPTION 'the two builds give different results';
    END IF;
END $$;
CREATE TEMP TABLE decay_ab (round int, what text, ms float8);
SELECT format($f$DO $d$ BEGIN
    PERFORM bench.run_ms(%1$L); PERFORM bench.run_ms(%2$L); PERFORM bench.run_ms(%3$L);
    FOR i IN 1..%4$s LOOP
        INSERT INTO decay_ab VALUES (i, 'sum', bench.run_ms(%1$L)), (i, 'previous', bench.run_ms(%2$L)),
                                    (i, 'current', bench.run_ms(%3$L));
    END LOOP; END $d$$f$,
  'SELECT sum(usage) FROM bench.decay_ab_rows',
  $q$SELECT bench_old.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.decay_ab_rows$q$,
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.decay_ab_rows$q$,
  :reps) \gexec
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms)::numeric, 1) AS sum_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms)::numeric, 1) AS previous_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.ms)::numeric, 1) AS current_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms / s.ms)::numeric, 3) AS previous_ratio,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.ms / s.ms)::numeric, 3) AS current_ratio,
       round((min(p.ms) / min(s.ms))::numeric, 3) AS previous_fastest_ratio,
       round((min(c.ms) / min(s.ms))::numeric, 3) AS current_fastest_ratio,
       count(*) AS rounds
  FROM decay_ab s JOIN decay_ab p USING (round) JOIN decay_ab c USING (round)
 WHERE s.what = 'sum' AND p.what = 'previous' AND c.what = 'current';
DROP SCHEMA bench_old CASCADE;
DROP TABLE bench.decay_ab_rows;
