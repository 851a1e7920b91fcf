-- bench.median_ms(query, reps): runs a query reps times (after one warm-up)
-- and returns the median of its execution time in milliseconds.  It runs
-- the query under EXPLAIN (ANALYZE, TIMING OFF), because a plain EXECUTE in
-- PL/pgSQL is never planned with parallel workers, and reads the executor's
-- own "Execution Time" (no per-node timing overhead).
CREATE SCHEMA IF NOT EXISTS bench;
CREATE OR REPLACE FUNCTION bench.median_ms(q text, reps int) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
    plan json;
    ms float8[] := '{}';
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
    FOR i IN 1..reps LOOP
        EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
        ms := ms || (plan -> 0 ->> 'Execution Time')::float8;
    END LOOP;
    RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ms) x);
END $$;

-- bench.report(name, baseline_name): table of results with ratios
CREATE TABLE IF NOT EXISTS bench.results (name text PRIMARY KEY, ms float8, baseline text);
CREATE OR REPLACE FUNCTION bench.run(p_name text, q text, reps int, p_baseline text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bench.results AS r VALUES (p_name, bench.median_ms(q, reps), p_baseline)
    ON CONFLICT ON CONSTRAINT results_pkey DO UPDATE SET ms = excluded.ms, baseline = excluded.baseline;
END $$;
