-- Measuring helpers of the benchmarks (test/bench/run.sh).
--
-- bench.run_ms(query): one execution time in milliseconds.  The query runs
-- under EXPLAIN (ANALYZE, TIMING OFF), because a plain EXECUTE in PL/pgSQL
-- is never planned with parallel workers, and the executor's own
-- "Execution Time" is read (every output column is computed; no per-node
-- timing overhead; planning time is left out).  A CALL is timed by the
-- clock and rolled back (bench.call_ms).
--
-- bench.compare(name, query, baseline name, baseline query, reps, targets):
-- one warm-up of each, then reps rounds of (baseline, query), interleaved
-- so that the load of a shared machine falls on both alike; records the
-- median of each and the median of the per-round ratios query/baseline.
--
-- bench.results holds one row per measurement; bench.report() prints them.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bench CASCADE;
CREATE SCHEMA bench;

-- A procedure call (CALL ...), timed by the clock and undone: it runs in a
-- subtransaction that an exception rolls back, so that every round finds
-- the same tables (apply_genci_regulation writes its checks and ledger).
CREATE OR REPLACE FUNCTION bench.call_ms(stmt text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    ms float8;
BEGIN
    BEGIN
        t0 := clock_timestamp();
        EXECUTE stmt;
        ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
        RAISE SQLSTATE 'XB001';
    EXCEPTION WHEN SQLSTATE 'XB001' THEN
        NULL;
    END;
    RETURN ms;
END $$;

CREATE OR REPLACE FUNCTION bench.run_ms(q text, settings text DEFAULT NULL) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
    plan json;
    ms float8;
    item text;
    saved text[] := '{}';
BEGIN
    -- settings: 'name=value, name=value', for this query only
    FOREACH item IN ARRAY coalesce(string_to_array(settings, ','), '{}') LOOP
        saved := saved || ARRAY[trim(split_part(item, '=', 1)), current_setting(trim(split_part(item, '=', 1)))];
        PERFORM set_config(trim(split_part(item, '=', 1)), trim(split_part(item, '=', 2)), true);
    END LOOP;
    IF q ~* '^\s*CALL\s' THEN
        ms := bench.call_ms(q);
    ELSE
        EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
        ms := (plan -> 0 ->> 'Execution Time')::float8;
    END IF;
    FOR i IN 1..coalesce(array_length(saved, 1), 0) / 2 LOOP
        PERFORM set_config(saved[2 * i - 1], saved[2 * i], true);
    END LOOP;
    RETURN ms;
END $$;

CREATE OR REPLACE FUNCTION bench.median(xs float8[]) RETURNS float8
LANGUAGE sql IMMUTABLE
RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(xs) x);

DROP TABLE IF EXISTS bench.results;
CREATE TABLE bench.results (
    seq          serial,
    name         text PRIMARY KEY,
    ms           float8,            -- median
    baseline     text,
    baseline_ms  float8,            -- median, same rounds
    ratio        float8,            -- median of the per-round ratios
    reps         int,
    max_ms       float8,            -- target: ms < max_ms
    max_ratio    float8,            -- target: ratio <= max_ratio
    value        float8,            -- a measurement that is not a time (memory)
    max_value    float8,            -- target: value < max_value
    target       text,
    note         text
);

CREATE OR REPLACE FUNCTION bench.record(p_name text, p_ms float8, p_baseline text, p_baseline_ms float8,
                                        p_ratio float8, p_reps int, p_max_ms float8, p_max_ratio float8,
                                        p_target text DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO bench.results AS r (name, ms, baseline, baseline_ms, ratio, reps, max_ms, max_ratio, target)
    VALUES (p_name, p_ms, p_baseline, p_baseline_ms, p_ratio, p_reps, p_max_ms, p_max_ratio,
            COALESCE(p_target, concat_ws(', ',
                CASE WHEN p_max_ms IS NOT NULL THEN format('< %s s', p_max_ms / 1000) END,
                CASE WHEN p_max_ratio IS NOT NULL THEN format('ratio <= %s', round(p_max_ratio::numeric, 3)) END)))
    ON CONFLICT (name) DO UPDATE
       SET ms = excluded.ms, baseline = excluded.baseline, baseline_ms = excluded.baseline_ms,
           ratio = excluded.ratio, reps = excluded.reps, max_ms = excluded.max_ms,
           max_ratio = excluded.max_ratio, target = excluded.target, seq = r.seq;
$$;

-- Interleaved rounds; returns the median ms of the query.  settings and
-- baseline_settings ('name=value, ...') apply to one side only.
CREATE OR REPLACE FUNCTION bench.compare(p_name text, q text, p_baseline text, baseline_q text, reps int,
                                         p_max_ms float8 DEFAULT NULL, p_max_ratio float8 DEFAULT NULL,
                                         p_target text DEFAULT NULL,
                                         settings text DEFAULT NULL, baseline_settings text DEFAULT NULL)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    a float8[] := '{}';
    b float8[] := '{}';
    r float8[] := '{}';
    x float8;
    y float8;
BEGIN
    PERFORM bench.run_ms(baseline_q, baseline_settings);
    PERFORM bench.run_ms(q, settings);
    FOR i IN 1..reps LOOP
        y := bench.run_ms(baseline_q, baseline_settings);
        x := bench.run_ms(q, settings);
        a := a || x;
        b := b || y;
        r := r || (x / y);
    END LOOP;
    PERFORM bench.record(p_name, bench.median(a), p_baseline, bench.median(b), bench.median(r), reps,
                         p_max_ms, p_max_ratio, p_target);
    RETURN bench.median(a);
END $$;

-- A measurement without a baseline of its own.
CREATE OR REPLACE FUNCTION bench.measure(p_name text, q text, reps int, p_max_ms float8 DEFAULT NULL)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    a float8[] := '{}';
BEGIN
    PERFORM bench.run_ms(q);
    FOR i IN 1..reps LOOP
        a := a || bench.run_ms(q);
    END LOOP;
    PERFORM bench.record(p_name, bench.median(a), NULL, NULL, NULL, reps, p_max_ms, NULL);
    RETURN bench.median(a);
END $$;

CREATE OR REPLACE FUNCTION bench.note(p_name text, p_note text) RETURNS void
LANGUAGE sql AS $$
    UPDATE bench.results SET note = concat_ws('; ', note, p_note) WHERE name = p_name;
$$;

-- One line of /proc/self/status of this backend, in kB (VmRSS, VmHWM).
CREATE OR REPLACE FUNCTION bench.proc_kb(field text) RETURNS bigint
LANGUAGE sql AS $$
    SELECT (regexp_match(pg_read_file('/proc/self/status'), field || ':\s+(\d+) kB'))[1]::bigint;
$$;

-- A measurement that is not a time, with its own target (value < max_value).
CREATE OR REPLACE FUNCTION bench.record_value(p_name text, p_value float8, p_max_value float8, p_target text)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO bench.results AS r (name, value, max_value, target) VALUES (p_name, p_value, p_max_value, p_target)
    ON CONFLICT (name) DO UPDATE SET value = excluded.value, max_value = excluded.max_value, target = excluded.target;
$$;

-- No rollups, as centre.sql leaves the centre: bench_reports.sql times the
-- first refresh_rollups from here and comes back here at its end, so that
-- the other files (an import marks the hours it touches stale once
-- rollups exist) measure the same centre in any order.
CREATE OR REPLACE FUNCTION bench.clear_rollups() RETURNS void
LANGUAGE sql AS $$
    TRUNCATE fairshare.usage_hourly, fairshare.usage_daily, fairshare.usage_monthly,
             fairshare.usage_monthly_by_account, fairshare.cluster_usage_hourly,
             fairshare.cluster_usage_daily, fairshare.cluster_usage_monthly, fairshare.core_usage_hourly,
             fairshare.core_usage_daily, fairshare.core_usage_monthly, fairshare.rollup_dirty;
    DELETE FROM fairshare.rollup_state;
    DELETE FROM fairshare.core_rollup_state;
$$;

-- The table of results: each median, its baseline's, the ratio, the target.
CREATE OR REPLACE FUNCTION bench.report()
RETURNS TABLE (measurement text, median_s numeric, baseline text, baseline_s numeric, ratio numeric,
               value numeric, target text, met text, note text)
LANGUAGE sql AS $$
    SELECT r.name, round((r.ms / 1000)::numeric, 3), r.baseline, round((r.baseline_ms / 1000)::numeric, 3),
           round(r.ratio::numeric, 2), round(r.value::numeric, 1), r.target,
           CASE WHEN r.max_ms IS NULL AND r.max_ratio IS NULL AND r.max_value IS NULL THEN ''
                WHEN (r.max_ms IS NULL OR r.ms < r.max_ms) AND (r.max_ratio IS NULL OR r.ratio <= r.max_ratio)
                     AND (r.max_value IS NULL OR r.value < r.max_value)
                THEN 'yes' ELSE 'NO' END,
           r.note
      FROM bench.results r ORDER BY r.seq;
$$;
