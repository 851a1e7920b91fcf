-- genci_reference: the GENCI pure functions (C, extension/genci.c) answer
-- exactly what the rules' arithmetic answers when written in PL/pgSQL, line
-- for line as docs/policies.md#genci-monthly-regulation states it: the same
-- bits, the same NULLs, the same errors (SQLSTATE, message and hint); so do
-- the check days of the procedure (_genci_check_days, inlinable SQL).  The
-- reference is the PL/pgSQL of extension/fairshare--1.2.sql, recreated in a
-- schema of its own; both are called over a grid of inputs with the edge
-- cases (month ends, leap years and leap days, 1 BC / 1 AD, the last day of
-- timestamps and of dates, zero, -0, tiny, huge, negative, NaN, infinite
-- and NULL arguments, infinite days, float and integer overflow and
-- underflow), and the outcomes compared row by row with EXCEPT.
SET search_path = fairshare, public;
-- every float printed exactly: a difference in the last bit shows, and -0 from 0
SET extra_float_digits = 3;
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE SCHEMA genci_ref;

-- ---------------------------------------------------------------------------
-- The reference (extension/fairshare--1.2.sql, schema renamed)
-- ---------------------------------------------------------------------------
CREATE FUNCTION genci_ref._genci_check(fn text, allocation float8, consumed float8,
                                         period_start date, period_end date, as_of date)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF allocation IS NOT NULL AND NOT (allocation >= 0 AND allocation < 'Infinity') THEN
        RAISE EXCEPTION '%: allocation must be a finite number of hours >= 0, not %', fn, allocation
            USING ERRCODE = '22023', HINT = 'Pass the net allocation in hours (initial grant + additions − take-backs).';
    END IF;
    IF consumed IS NOT NULL AND NOT (consumed >= 0 AND consumed < 'Infinity') THEN
        RAISE EXCEPTION '%: consumed must be a finite number of hours >= 0, not %', fn, consumed
            USING ERRCODE = '22023', HINT = 'Consumption is the hours used since the period started.';
    END IF;
    IF NOT isfinite(period_start) OR NOT isfinite(period_end) OR NOT isfinite(as_of) THEN
        RAISE EXCEPTION '%: dates must be finite (period % to %, as_of %)', fn, period_start, period_end, as_of
            USING ERRCODE = '22008', HINT = 'An allocation period and the day of the check are calendar days.';
    END IF;
    IF period_end < period_start THEN
        RAISE EXCEPTION '%: period_end % is before period_start %', fn, period_end, period_start
            USING ERRCODE = '22023', HINT = 'The period is inclusive: it ends on or after the day it starts.';
    END IF;
END
$$;

CREATE FUNCTION genci_ref.genci_period_months(period_start date, period_end date)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    after date;
    n integer;
BEGIN
    PERFORM genci_ref._genci_check('genci_period_months', NULL, NULL, period_start, period_end, period_start);
    after := period_end + 1;
    n := (extract(year FROM after)::integer - extract(year FROM period_start)::integer) * 12
         + extract(month FROM after)::integer - extract(month FROM period_start)::integer;
    IF n >= 1 AND period_start + make_interval(months => n) = after THEN
        RETURN n;
    END IF;
    RETURN (after - period_start) * 12 / 365.25::float8;
END
$$;

CREATE FUNCTION genci_ref.genci_allocation_month(period_start date, as_of date)
RETURNS integer LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    n integer;
BEGIN
    PERFORM genci_ref._genci_check('genci_allocation_month', NULL, NULL, period_start, period_start, as_of);
    IF as_of < period_start THEN
        RETURN 0;
    END IF;
    n := (extract(year FROM as_of)::integer - extract(year FROM period_start)::integer) * 12
         + extract(month FROM as_of)::integer - extract(month FROM period_start)::integer;
    IF period_start + make_interval(months => n) > as_of THEN
        n := n - 1;
    END IF;
    RETURN n + 1;
END
$$;

CREATE FUNCTION genci_ref.theoretical_consumption(allocation float8, period_start date,
                                                    period_end date, as_of date)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM genci_ref._genci_check('theoretical_consumption', allocation, NULL, period_start, period_end, as_of);
    IF as_of <= period_start THEN
        RETURN 0;
    ELSIF as_of > period_end THEN
        RETURN allocation;
    END IF;
    RETURN allocation * (as_of - period_start) / (period_end - period_start + 1);
END
$$;

CREATE FUNCTION genci_ref.genci_status(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    variant text DEFAULT 'genci',
    OUT theoretical float8, OUT lag float8, OUT lag_days float8, OUT monthly float8,
    OUT ratio float8, OUT status text, OUT allocation_month integer,
    OUT check_day boolean, OUT penalty float8)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    d integer;
BEGIN
    PERFORM genci_ref._genci_check('genci_status', allocation, consumed, period_start, period_end, as_of);
    IF variant NOT IN ('genci', 'tgcc') THEN
        RAISE EXCEPTION 'genci_status: unknown variant "%"', variant
            USING ERRCODE = '22023', HINT = 'The variants are ''genci'' (lag in months) and ''tgcc'' (lag in days).';
    END IF;
    d := period_end - period_start + 1;
    theoretical := genci_ref.theoretical_consumption(allocation, period_start, period_end, as_of);
    lag := theoretical - consumed;
    monthly := allocation / genci_ref.genci_period_months(period_start, period_end);
    allocation_month := genci_ref.genci_allocation_month(period_start, as_of);
    check_day := extract(day FROM as_of) = 15 AND allocation_month >= 3 AND as_of <= period_end;
    penalty := 0;
    IF allocation = 0 THEN
        RETURN;                 -- no ratio, no status, nothing to take
    END IF;
    ratio := lag / monthly;
    lag_days := lag * d / allocation;
    IF variant = 'genci' THEN
        status := CASE WHEN ratio < 1 THEN 'on track' WHEN ratio <= 2 THEN 'late' ELSE 'very late' END;
        IF check_day AND ratio > 2 THEN
            penalty := monthly;
        END IF;
    ELSE
        status := CASE WHEN lag_days < 30 THEN 'on track' WHEN lag_days <= 60 THEN 'late' ELSE 'very late' END;
        IF check_day AND lag_days > 60 THEN
            penalty := allocation * 30 / d;
        END IF;
    END IF;
END
$$;

CREATE FUNCTION genci_ref.genci_penalty(allocation float8, consumed float8, period_start date,
                                          period_end date, as_of date)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT s.penalty FROM genci_ref.genci_status(allocation, consumed, period_start, period_end, as_of, 'genci') s;
END;

CREATE FUNCTION genci_ref.genci_midterm_status(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    cap float8 DEFAULT 0.40, used_limit float8 DEFAULT 0.30,
    OUT used_fraction float8, OUT under_used boolean, OUT alert_day boolean,
    OUT check_day boolean, OUT take_back float8)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM genci_ref._genci_check('genci_midterm_status', allocation, consumed, period_start, period_end, as_of);
    IF NOT (cap >= 0 AND cap <= 1) OR NOT (used_limit >= 0 AND used_limit <= 1) THEN
        RAISE EXCEPTION 'genci_midterm_status: cap % and used_limit % must lie in [0, 1]', cap, used_limit
            USING ERRCODE = '22023', HINT = 'GENCI 2017: cap 0.40 (up to 40 % taken back), used_limit 0.30.';
    END IF;
    used_fraction := CASE WHEN allocation > 0 THEN consumed / allocation END;
    under_used := consumed <= used_limit * allocation;
    alert_day := as_of = period_start + interval '4 months' AND as_of <= period_end;
    check_day := as_of = period_start + interval '5 months' AND as_of <= period_end;
    take_back := 0;
    IF check_day AND under_used THEN
        take_back := least(cap * allocation,
                           greatest(0, allocation * 5 / genci_ref.genci_period_months(period_start, period_end)
                                       - consumed));
    END IF;
END
$$;

CREATE FUNCTION genci_ref.genci_midterm_penalty(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    cap float8 DEFAULT 0.40, used_limit float8 DEFAULT 0.30)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT s.take_back
      FROM genci_ref.genci_midterm_status(allocation, consumed, period_start, period_end, as_of, cap, used_limit) s;
END;

CREATE FUNCTION genci_ref._genci_check_days(period_start date, period_end date, regime text, variant text)
RETURNS TABLE (rule text, check_day date)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    first15 date;
BEGIN
    IF regime = 'monthly' THEN
        first15 := date_trunc('month', period_start)::date + 14;
        IF first15 < period_start THEN
            first15 := (first15 + interval '1 month')::date;
        END IF;
        RETURN QUERY
            SELECT CASE WHEN variant = 'tgcc' THEN 'tgcc_monthly' ELSE 'genci_monthly' END, g::date
              FROM generate_series(first15::timestamp, period_end::timestamp, interval '1 month') g;
    ELSE
        RETURN QUERY
            SELECT r, (period_start + i)::date
              FROM (VALUES ('genci_midterm_alert', interval '4 months'),
                           ('genci_midterm', interval '5 months')) v(r, i)
             WHERE (period_start + i)::date <= period_end;
    END IF;
END
$$;

-- ---------------------------------------------------------------------------
-- One call's outcome as text: the result (a row as its text), or the error
-- as SQLSTATE, message and hint.  impl: 'c' (fairshare) or 'ref'.
-- ---------------------------------------------------------------------------
CREATE FUNCTION genci_ref.outcome(fn text, impl text, a float8, u float8, ps date, pe date, d date,
                                  v text DEFAULT 'genci', cap float8 DEFAULT 0.40, ul float8 DEFAULT 0.30)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text;
    msg text;
    hint text;
BEGIN
    IF impl = 'c' THEN
        CASE fn
        WHEN 'genci_period_months' THEN RETURN fairshare.genci_period_months(ps, pe)::text;
        WHEN 'genci_allocation_month' THEN RETURN fairshare.genci_allocation_month(ps, d)::text;
        WHEN 'theoretical_consumption' THEN RETURN fairshare.theoretical_consumption(a, ps, pe, d)::text;
        WHEN 'genci_status' THEN RETURN (SELECT s::text FROM fairshare.genci_status(a, u, ps, pe, d, v) s);
        WHEN 'genci_penalty' THEN RETURN fairshare.genci_penalty(a, u, ps, pe, d)::text;
        WHEN 'genci_midterm_status' THEN RETURN (SELECT s::text FROM fairshare.genci_midterm_status(a, u, ps, pe, d, cap, ul) s);
        WHEN 'genci_midterm_penalty' THEN RETURN fairshare.genci_midterm_penalty(a, u, ps, pe, d, cap, ul)::text;
        END CASE;
    ELSE
        CASE fn
        WHEN 'genci_period_months' THEN RETURN genci_ref.genci_period_months(ps, pe)::text;
        WHEN 'genci_allocation_month' THEN RETURN genci_ref.genci_allocation_month(ps, d)::text;
        WHEN 'theoretical_consumption' THEN RETURN genci_ref.theoretical_consumption(a, ps, pe, d)::text;
        WHEN 'genci_status' THEN RETURN (SELECT s::text FROM genci_ref.genci_status(a, u, ps, pe, d, v) s);
        WHEN 'genci_penalty' THEN RETURN genci_ref.genci_penalty(a, u, ps, pe, d)::text;
        WHEN 'genci_midterm_status' THEN RETURN (SELECT s::text FROM genci_ref.genci_midterm_status(a, u, ps, pe, d, cap, ul) s);
        WHEN 'genci_midterm_penalty' THEN RETURN genci_ref.genci_midterm_penalty(a, u, ps, pe, d, cap, ul)::text;
        END CASE;
    END IF;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN format('ERROR %s: %s (HINT: %s)', st, msg, hint);
END
$$;

-- ---------------------------------------------------------------------------
-- The grid
-- ---------------------------------------------------------------------------
-- Days for the two-day functions: every day from 28 Dec 2019 to 3 Mar 2020
-- (a year's end, a leap February), the days around the ends and 15ths of
-- 2017's months, 1 BC / 1 AD (no year 0 for extract), 1900 (not leap), the
-- first days of dates and timestamps (4714-11-24 BC), the last of
-- timestamps (294276-12-31) and of dates (5874897-12-31), ±infinity, NULL.
CREATE TABLE genci_ref.days AS
SELECT d::date AS d FROM generate_series('2019-12-28'::date, '2020-03-03', interval '1 day') d
UNION
SELECT d FROM unnest('{2017-01-15,2017-01-16,2017-01-17,2017-01-28,2017-01-30,2017-01-31,2017-02-27,2017-02-28,
                       2017-03-01,2017-03-15,2017-03-16,2017-03-17,2017-03-30,2017-03-31,2017-04-15,2017-04-16,
                       2017-04-17,2017-04-30,2017-05-01,2017-05-15,2017-05-17,2017-06-15,2017-07-15,2017-09-01,
                       2017-10-01,2018-03-16,2018-03-17,2018-04-30,2018-05-01,
                       0001-12-15 BC,0001-12-31 BC,0001-01-01,0001-01-15,0001-02-14,0002-01-15,
                       1900-02-28,1900-03-01,2100-02-28,
                       4714-11-24 BC,4714-12-24 BC,294276-11-30,294276-12-01,294276-12-31,294277-01-01,
                       5874897-12-01,5874897-12-31,infinity,-infinity,NULL}'::date[]) d;

-- Periods (inclusive): whole years from the 1st, mid-month, a month's end
-- (31 Jan + 1 month clamps to 28 Feb), the 15th and 16th; leap years, a
-- leap-day start, 1900; six months, one month, 41 days, one day; across
-- 1 BC / 1 AD; at the first dates, across the timestamps' end, at the last
-- date, all of them (days × 12 overflows int4); reversed, infinite, NULL.
CREATE TABLE genci_ref.periods AS
SELECT ps, pe FROM (VALUES
    ('2017-05-01'::date, '2018-04-30'::date), ('2017-03-17', '2018-03-16'), ('2017-01-31', '2018-01-30'),
    ('2017-01-31', '2017-02-27'), ('2017-01-15', '2018-01-14'), ('2017-01-16', '2018-01-15'),
    ('2019-05-01', '2020-04-30'), ('2020-02-29', '2021-02-27'), ('2020-02-29', '2021-02-28'),
    ('2016-03-01', '2017-02-28'), ('1900-02-28', '1901-02-27'),
    ('2017-05-01', '2017-10-31'), ('2017-05-01', '2017-06-10'), ('2017-05-01', '2017-05-01'),
    ('0001-12-15 BC', '0001-12-14'), ('0001-12-01 BC', '0001-11-30'),
    ('4714-11-24 BC', '4713-11-23 BC'), ('294276-06-01', '294277-05-31'), ('294276-12-31', '294276-12-31'),
    ('5874897-01-01', '5874897-12-31'), ('4714-11-24 BC', '5874897-12-31'),
    ('2018-04-30', '2017-05-01'), ('-infinity', '2017-05-01'), ('2017-05-01', 'infinity'),
    ('2017-05-01', NULL), (NULL, '2018-04-30')) v(ps, pe);

-- The days judged for a period: around its start and end, the start + k
-- months and the day before (check and alert days of the mid-term rule:
-- k = 4, 5), the 15ths of its months (check days of the monthly rule), the
-- extremes, NULL.  A day that cannot be computed (past the last date) is
-- left out.
-- d + k months, NULL where it cannot be computed
CREATE FUNCTION genci_ref.plus_months(d date, k integer) RETURNS date LANGUAGE plpgsql AS $$
BEGIN
    RETURN (d + make_interval(months => k))::date;
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END
$$;
CREATE FUNCTION genci_ref.near(ps date, pe date) RETURNS SETOF date LANGUAGE plpgsql AS $$
DECLARE
    k integer;
    first15 date;
BEGIN
    RETURN QUERY SELECT unnest('{4714-11-24 BC,294276-12-31,294277-01-01,5874897-12-31,infinity,-infinity}'::date[]);
    RETURN NEXT NULL;
    FOREACH k IN ARRAY ARRAY[-1, 0, 1] LOOP
        BEGIN RETURN NEXT ps + k; EXCEPTION WHEN OTHERS THEN NULL; END;
        BEGIN RETURN NEXT pe + k; EXCEPTION WHEN OTHERS THEN NULL; END;
    END LOOP;
    BEGIN
        first15 := date_trunc('month', ps)::date + 14;
    EXCEPTION WHEN OTHERS THEN
        first15 := NULL;
    END;
    FOREACH k IN ARRAY ARRAY[1, 2, 3, 4, 5, 6, 11, 12, 13] LOOP
        BEGIN RETURN NEXT (ps + make_interval(months => k))::date; EXCEPTION WHEN OTHERS THEN NULL; END;
        BEGIN RETURN NEXT (ps + make_interval(months => k))::date - 1; EXCEPTION WHEN OTHERS THEN NULL; END;
        BEGIN RETURN NEXT (first15 + make_interval(months => k - 1))::date; EXCEPTION WHEN OTHERS THEN NULL; END;
    END LOOP;
END
$$;
CREATE TABLE genci_ref.judged AS
SELECT DISTINCT p.ps, p.pe, n.d FROM genci_ref.periods p, genci_ref.near(p.ps, p.pe) n(d);

-- Allocation and consumption: the GENCI text's seed (4 380 000 h; 541 999,
-- 542 000, 907 000 h consumed are the ratio's boundaries on 15 Aug 2017),
-- zero, -0, one hour, tiny (1e-300, the smallest double 5e-324) and huge
-- (1e300, 1e308: A × E overflows) numbers, and every refused value.
CREATE TABLE genci_ref.hours AS
SELECT a, u FROM (VALUES
    (4380000::float8, 0::float8), (4380000, 541999), (4380000, 542000), (4380000, 907000), (4380000, 2000000),
    (366000, 100), (0, 0), ('-0', 10), (1, 0.5), (1e-300, 0), (5e-324, 0), (1e300, 1e-300),
    (100, 5e-324), (1e308, 0), (1e308, 1e308),
    (-1, 0), ('NaN', 0), ('Infinity', 0), (100, -5), (100, 'NaN'), (100, 'Infinity'), (100, '-Infinity'),
    (NULL, 0), (100, NULL)) v(a, u);

-- The boundaries of the bands, where the last bit decides: consumed such
-- that lag = 2 × monthly, 1 × monthly, 60 and 30 days' worth, as the rules
-- compute them, on every judged day of the ordinary periods.
CREATE TABLE genci_ref.bounds AS
SELECT j.ps, j.pe, j.d, x.a, c.t - b.f * b.unit AS u
  FROM (SELECT * FROM genci_ref.judged
         WHERE ps BETWEEN '1900-01-01' AND '2100-12-31' AND pe BETWEEN ps AND '2100-12-31'
           AND d BETWEEN '1900-01-01' AND '2100-12-31' OFFSET 0) j
 CROSS JOIN (VALUES (4380000::float8), (366000), (1000)) x(a)
 CROSS JOIN LATERAL (SELECT genci_ref.theoretical_consumption(x.a, j.ps, j.pe, j.d) AS t,
                            x.a / genci_ref.genci_period_months(j.ps, j.pe) AS monthly,
                            x.a / (j.pe - j.ps + 1) AS per_day) c
 CROSS JOIN LATERAL (VALUES (1::float8, c.monthly), (2, c.monthly), (30, c.per_day), (60, c.per_day)) b(f, unit)
 WHERE c.t - b.f * b.unit >= 0;

-- mid-term parameters: the defaults, other values in [0, 1], -0, and refused ones
CREATE TABLE genci_ref.caps AS
SELECT cap, ul FROM (VALUES (0.40::float8, 0.30::float8), (0.25, 0.30), (0, 0), (1, 1), ('-0', 0.30),
                            (1e-200, 1e-200), (-0.1, 0.30), (0.40, 'NaN'), (1.5, 0.30), ('Infinity', 0.30),
                            (NULL, 0.30)) v(cap, ul);

-- Every call, with its arguments
CREATE TABLE genci_ref.calls AS
SELECT 'genci_period_months' AS fn, NULL::float8 AS a, NULL::float8 AS u, p.d AS ps, e.d AS pe, NULL::date AS d,
       'genci'::text AS v, 0.40::float8 AS cap, 0.30::float8 AS ul
  FROM genci_ref.days p, genci_ref.days e
UNION ALL
SELECT 'genci_allocation_month', NULL, NULL, p.d, NULL, e.d, 'genci', 0.40, 0.30
  FROM genci_ref.days p, genci_ref.days e
UNION ALL
SELECT 'theoretical_consumption', h.a, NULL, j.ps, j.pe, j.d, 'genci', 0.40, 0.30
  FROM genci_ref.judged j, (SELECT DISTINCT a FROM genci_ref.hours) h
UNION ALL
SELECT f, h.a, h.u, j.ps, j.pe, j.d, v, 0.40, 0.30
  FROM genci_ref.judged j, genci_ref.hours h,
       (VALUES ('genci_status', 'genci'), ('genci_status', 'tgcc'), ('genci_penalty', 'genci')) f(f, v)
UNION ALL
SELECT f, b.a, b.u, b.ps, b.pe, b.d, v, 0.40, 0.30
  FROM genci_ref.bounds b,
       (VALUES ('genci_status', 'genci'), ('genci_status', 'tgcc'), ('genci_penalty', 'genci')) f(f, v)
UNION ALL
SELECT 'genci_status', 4380000, 0, '2017-05-01', '2018-04-30', '2017-08-15', v, 0.40, 0.30
  FROM unnest(ARRAY['idris', 'GENCI', 'genci ', '', NULL]) v
UNION ALL
SELECT f, h.a, h.u, j.ps, j.pe, j.d, 'genci', 0.40, 0.30
  FROM genci_ref.judged j, genci_ref.hours h,
       (VALUES ('genci_midterm_status'), ('genci_midterm_penalty')) f(f)
UNION ALL
SELECT f, h.a, h.u, j.ps, j.pe, j.d, 'genci', c.cap, c.ul
  FROM genci_ref.judged j, genci_ref.caps c,
       (SELECT * FROM genci_ref.hours WHERE a IN (4380000, 0, 1e-300, 1e308, -1) AND u IN (0, 541999, 1e-300, 5e-324)) h,
       (VALUES ('genci_midterm_status'), ('genci_midterm_penalty')) f(f)
 WHERE j.d IN (genci_ref.plus_months(j.ps, 4), genci_ref.plus_months(j.ps, 5), j.ps)
    OR j.d = genci_ref.plus_months(j.ps, 5) - 1;

CREATE TABLE genci_ref.outcomes AS
SELECT c.*, genci_ref.outcome(fn, 'c', a, u, ps, pe, d, v, cap, ul) AS c_outcome,
            genci_ref.outcome(fn, 'ref', a, u, ps, pe, d, v, cap, ul) AS ref_outcome
  FROM genci_ref.calls c;

-- ---------------------------------------------------------------------------
-- The comparison: no call whose outcome differs, either way (0 rows each)
-- ---------------------------------------------------------------------------
SELECT fn, a, u, ps, pe, d, v, cap, ul, c_outcome AS outcome FROM genci_ref.outcomes
EXCEPT ALL
SELECT fn, a, u, ps, pe, d, v, cap, ul, ref_outcome FROM genci_ref.outcomes;
SELECT fn, a, u, ps, pe, d, v, cap, ul, ref_outcome AS outcome FROM genci_ref.outcomes
EXCEPT ALL
SELECT fn, a, u, ps, pe, d, v, cap, ul, c_outcome FROM genci_ref.outcomes;

-- What the grid covered, per function: many calls; results; NULLs
-- (STRICT); and each error the rules raise: 22023 (refused hours, period,
-- variant, cap), 22008 (infinite days; start + n months past the
-- timestamps' last day, 294276-12-31; the day after the last date), 22003
-- (float overflow and underflow).  genci_allocation_month takes no hours and
-- no end: no 22023, no 22003; genci_period_months' only 22003 would be its
-- int4 days × 12, over a period of more than 490,000 years, whose start + n
-- months is past the timestamps first (22008): no 22003.
SELECT fn, count(*) > 1000 AS many_calls,
       bool_or(c_outcome NOT LIKE 'ERROR%') AS results,
       bool_or(c_outcome IS NULL OR c_outcome ~ '^\(,') AS nulls,
       bool_or(c_outcome LIKE 'ERROR 22023%') AS e22023,
       bool_or(c_outcome LIKE 'ERROR 22008%') AS e22008,
       bool_or(c_outcome LIKE 'ERROR 22003%') AS e22003
  FROM genci_ref.outcomes GROUP BY fn ORDER BY fn;

-- ---------------------------------------------------------------------------
-- The check days (fairshare_internal._genci_check_days): the same rows,
-- or the same error, for every period of the grid, periods of a year, of
-- 41 days and of one day starting on each day of the grid from 1900 to
-- 2100, each regime ('monthly', 'mid-term', another word, NULL) and
-- variant ('genci', 'tgcc', another word, NULL).
-- ---------------------------------------------------------------------------
CREATE FUNCTION genci_ref.days_outcome(impl text, ps date, pe date, regime text, variant text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text;
    msg text;
    hint text;
BEGIN
    IF impl = 'c' THEN
        RETURN (SELECT coalesce(string_agg(d.rule || ' ' || d.check_day, ', ' ORDER BY d.check_day, d.rule), 'none')
                  FROM fairshare_internal._genci_check_days(ps, pe, regime, variant) d);
    END IF;
    RETURN (SELECT coalesce(string_agg(d.rule || ' ' || d.check_day, ', ' ORDER BY d.check_day, d.rule), 'none')
              FROM genci_ref._genci_check_days(ps, pe, regime, variant) d);
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN format('ERROR %s: %s (HINT: %s)', st, msg, hint);
END
$$;
CREATE TABLE genci_ref.day_calls AS
SELECT p.ps, p.pe, r.regime, v.variant
  FROM (SELECT ps, pe FROM genci_ref.periods
        UNION
        SELECT d, (d + k * interval '1 day')::date
          FROM genci_ref.days, unnest(ARRAY[0, 40, 364]) k
         WHERE d BETWEEN '1900-01-01' AND '2100-12-31') p,
       unnest(ARRAY['monthly', 'mid-term', 'weekly', NULL]) r(regime),
       unnest(ARRAY['genci', 'tgcc', 'idris', NULL]) v(variant);
-- (the reference's series of 15ths from -infinity, or up to infinity,
-- never ends: those calls are shown below, not compared.  A period that
-- ends after 9999-12-31 is not compared either: no allocation holds one
-- (trigger period_bounded, docs/bad-input.md), and past the timestamps'
-- last day the two differ by PostgreSQL version: on 15 and 17 both raise
-- 22008, on 18 the PL/pgSQL returns the days it reaches before the
-- conversion that fails)
CREATE TABLE genci_ref.day_outcomes AS
SELECT c.*, genci_ref.days_outcome('c', ps, pe, regime, variant) AS c_outcome,
            genci_ref.days_outcome('ref', ps, pe, regime, variant) AS ref_outcome
  FROM genci_ref.day_calls c
 WHERE NOT (regime IS NOT DISTINCT FROM 'monthly' AND variant IS NOT NULL
            AND (NOT isfinite(ps) OR NOT isfinite(pe)))
   AND (pe <= '9999-12-31' OR NOT isfinite(pe));
SELECT ps, pe, regime, variant, c_outcome AS outcome FROM genci_ref.day_outcomes
EXCEPT ALL
SELECT ps, pe, regime, variant, ref_outcome FROM genci_ref.day_outcomes;
SELECT ps, pe, regime, variant, ref_outcome AS outcome FROM genci_ref.day_outcomes
EXCEPT ALL
SELECT ps, pe, regime, variant, c_outcome FROM genci_ref.day_outcomes;
-- covered: many calls, rows of both regimes' rules, and no rows (NULLs)
SELECT count(*) > 1000 AS many_calls,
       bool_or(c_outcome LIKE 'genci_monthly%') AS genci_monthly,
       bool_or(c_outcome LIKE 'tgcc_monthly%') AS tgcc_monthly,
       bool_or(c_outcome LIKE '%genci_midterm_alert%genci_midterm %') AS midterm,
       bool_or(c_outcome = 'none') AS none
  FROM genci_ref.day_outcomes;
-- an infinite period in the monthly regime: no check days
SELECT ps, pe, genci_ref.days_outcome('c', ps, pe, 'monthly', 'genci') AS outcome
  FROM genci_ref.periods WHERE NOT isfinite(ps) OR NOT isfinite(pe) ORDER BY ps, pe;

-- The declarations are the reference's too: arguments (names, types,
-- defaults), result, volatility, strictness, parallel safety; C, where the
-- reference is PL/pgSQL or SQL.
SELECT p.proname, l.lanname AS language, rl.lanname AS reference_language,
       pg_get_function_arguments(p.oid) = pg_get_function_arguments(r.oid) AS same_arguments,
       pg_get_function_result(p.oid) = pg_get_function_result(r.oid) AS same_result,
       (p.provolatile, p.proisstrict, p.proparallel) = (r.provolatile, r.proisstrict, r.proparallel) AS same_attributes
  FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang
  JOIN pg_proc r ON r.proname = p.proname AND r.pronamespace = 'genci_ref'::regnamespace
  JOIN pg_language rl ON rl.oid = r.prolang
 WHERE p.pronamespace = 'fairshare'::regnamespace
 ORDER BY p.proname;

-- leave nothing behind for the suites that follow
DROP SCHEMA genci_ref CASCADE;
