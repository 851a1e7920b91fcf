-- ---------------------------------------------------------------------------
-- genci: GENCI regulation of under-consumption; how the 2017 IDRIS/CINES/TGCC
-- text is read is in docs/policies.md#genci-regulation-of-under-consumption.
--
-- Pure functions first (theoretical consumption, the monthly penalty and its
-- status, the mid-term rule, the TGCC variant), then the model side: the
-- consumption of an allocation from the job table, the journal of checks and
-- the notifications, the procedure that applies the regulation, and the
-- report.  Calendar days are `date`, hours `float8`.  Every computation takes
-- as_of; nothing reads the clock except the defaults "today".
-- ---------------------------------------------------------------------------

-- The pure functions are C (extension/genci.c): a report or a BI tool calls
-- them once per allocation and day, and PostgreSQL can neither inline nor
-- speed up a procedural function (docs/performance.md#the-per-row-functions).
-- Each checks its arguments, in this order: allocation and consumption are
-- finite numbers of hours >= 0 (22023), dates are finite (22008), the period
-- does not end before it starts (22023); the message names the function and
-- the value.  docs/regulation.md#genci-pure-functions lists them.

-- Number of months of a period, the divisor of the monthly theoretical
-- allocation: the whole number n of calendar months when period_start + n
-- months is the day after period_end (12 for a one-year period), else the
-- length in days over the mean month, D × 12 / 365.25
-- (docs/policies.md#genci-monthly-regulation).
CREATE FUNCTION @extschema@.genci_period_months(period_start date, period_end date)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_genci_period_months'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.genci_period_months(date, date) IS
'GENCI: months of a period: n when period_start + n months = period_end + 1 day (12 for one year), else days × 12 / 365.25.';

-- Month k of the allocation as_of falls in: month k runs from
-- period_start + (k−1) months to the day before period_start + k months
-- (a period starting 17 March has months 17 Mar–16 Apr, 17 Apr–16 May, …;
-- PostgreSQL's month arithmetic, which clamps to the month's last day).
-- 0 before the start.
CREATE FUNCTION @extschema@.genci_allocation_month(period_start date, as_of date)
RETURNS integer
AS 'MODULE_PATHNAME', 'fs_genci_allocation_month'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.genci_allocation_month(date, date) IS
'GENCI: month k (1, 2, …) of an allocation that as_of falls in, months counted from the start day; 0 before the start.';

-- theoretical(as_of) = A × E / D: D the days of the inclusive period, E the
-- days from period_start to as_of not counting as_of (1 May 2017 → 106 on
-- 15 Aug 2017); 0 up to the start, A after the end.
CREATE FUNCTION @extschema@.theoretical_consumption(allocation float8, period_start date,
                                                    period_end date, as_of date)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_theoretical_consumption'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.theoretical_consumption(float8, date, date, date) IS
'GENCI: allocation × E / D, D the inclusive days of the period, E the days before as_of; 0 before the start, the allocation after the end.';

-- The whole monthly-regulation status on a day
-- (docs/policies.md#genci-monthly-regulation):
--   lag = theoretical − consumed (> 0: behind), lag_days = lag / (A / D),
--   monthly = A / months, ratio = lag / monthly;
--   variant 'genci': on track (ratio < 1), late (1 ≤ ratio ≤ 2), very late
--   (ratio > 2); a very late project loses `monthly` on a check day;
--   variant 'tgcc': the same bands in days (< 30, 30..60, > 60) and the
--   penalty is 30 days' worth, A × 30 / D.
-- A check day is the 15th of month 3 or later of the allocation, within the
-- period.  A zero allocation has no ratio and no status.  Another variant
-- raises 22023.
CREATE FUNCTION @extschema@.genci_status(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    variant text DEFAULT 'genci',
    OUT theoretical float8, OUT lag float8, OUT lag_days float8, OUT monthly float8,
    OUT ratio float8, OUT status text, OUT allocation_month integer,
    OUT check_day boolean, OUT penalty float8)
AS 'MODULE_PATHNAME', 'fs_genci_status'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.genci_status(float8, float8, date, date, date, text) IS
'GENCI monthly regulation on a day: theoretical, lag (hours, days), monthly, ratio, status (on track / late / very late), allocation month, check day, penalty; variant genci or tgcc.';

-- Hours the monthly regulation takes back on as_of
-- (docs/policies.md#genci-monthly-regulation): one
-- month of theoretical consumption when as_of is a check day and the ratio
-- is above 2 (strictly); 0 otherwise.  `allocation` is the net allocation.
-- The penalty column of genci_status(..., 'genci'), its messages included.
CREATE FUNCTION @extschema@.genci_penalty(allocation float8, consumed float8, period_start date,
                                          period_end date, as_of date)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_genci_penalty'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.genci_penalty(float8, float8, date, date, date) IS
'GENCI: hours taken back on as_of: allocation / months on the 15th of month >= 3 when (theoretical − consumed) / monthly > 2; else 0.';

-- Mid-term regulation, for allocations below the cluster's threshold
-- (docs/policies.md#genci-mid-term-regulation): the alert goes out on the
-- first day of month 5 (period_start + 4 months) to projects that have used
-- at most used_limit of their hours; on the first day after month 5
-- (period_start + 5 months) such a project loses
-- min(cap × A, max(0, A × 5 / months − consumed)).  A cap or used_limit
-- outside [0, 1] raises 22023.
-- Exemptions (justification filed, second-half use declared) are the
-- allocation's, applied by the procedure and the report.
CREATE FUNCTION @extschema@.genci_midterm_status(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    cap float8 DEFAULT 0.40, used_limit float8 DEFAULT 0.30,
    OUT used_fraction float8, OUT under_used boolean, OUT alert_day boolean,
    OUT check_day boolean, OUT take_back float8)
AS 'MODULE_PATHNAME', 'fs_genci_midterm_status'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.genci_midterm_status(float8, float8, date, date, date, float8, float8) IS
'GENCI mid-term regulation: used fraction, under-used (<= used_limit), alert day (start + 4 months), check day (start + 5 months), take-back min(cap·A, max(0, A·5/months − consumed)).';

-- The take_back column of genci_midterm_status, its messages included.
CREATE FUNCTION @extschema@.genci_midterm_penalty(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    cap float8 DEFAULT 0.40, used_limit float8 DEFAULT 0.30)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_genci_midterm_penalty'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.genci_midterm_penalty(float8, float8, date, date, date, float8, float8) IS
'GENCI mid-term: hours taken back on period_start + 5 months from a project that used <= 30 %: min(0.40·A, max(0, A·5/12 − consumed)).';

-- ---------------------------------------------------------------------------
-- The model side
-- ---------------------------------------------------------------------------

-- Core-hours (RWTH rules, billing.sql core_hours) of an account's jobs on a
-- cluster between two instants: each job counts for the part of its run
-- inside [since, until); a job without an end counts up to until; exclusive
-- jobs and jobs in whole-node partitions pay every core of their nodes;
-- GPU-hours are billed with the cluster's gpu_hour_factor.  Read from the
-- rollups for the hours they hold and from the runs for the rest, the
-- core-microseconds summed exactly and divided once
-- (docs/regulation.md#consumption-from-the-rollups): the same figure either
-- way, in a time that does not grow with the history.
CREATE FUNCTION @extschema@.account_core_hours(cluster text, account text,
                                               since timestamptz, until timestamptz)
RETURNS float8 LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    total_us numeric;
    rolled tstzmultirange;
    piece tstzrange;
BEGIN
    IF NOT isfinite(since) OR NOT isfinite(until) THEN
        RAISE EXCEPTION 'account_core_hours: instants must be finite (since %, until %)', since, until
            USING ERRCODE = '22008', HINT = 'Give the window of time to count as two finite instants.';
    END IF;
    IF until < since THEN
        RAISE EXCEPTION 'account_core_hours: until % is before since %', until, since
            USING ERRCODE = '22023', HINT = 'The window is [since, until).';
    END IF;
    -- core-microseconds, exact, from the rollups where they answer and
    -- from the runs elsewhere (_core_rolled, as _rwth_usage reads them, in
    -- statements of their own: each keeps its plan); divided once, with
    -- enough decimals that the float8 is the quotient rounded
    rolled := @extschema@_internal._core_rolled(cluster, since, until, ARRAY[since, until]);
    total_us := 0;
    IF NOT isempty(rolled) THEN
        SELECT coalesce(sum(u.core_us), 0) INTO total_us
          FROM @extschema@_internal._core_rollup_rows(cluster, account, rolled, ARRAY[since, until]) u;
    END IF;
    FOR piece IN SELECT r FROM unnest(tstzmultirange(tstzrange(since, until)) - rolled) r LOOP
        total_us := total_us
                    + coalesce((SELECT sum(@extschema@_internal._core_billed(j.cpus, j.exclusive OR p.whole_node, j.nodes,
                                                                           p.cores_per_node, j.gpus, c.gpu_hour_factor)
                                           * (EXTRACT(epoch FROM least(coalesce(j.end_time, 'infinity'), upper(piece))
                                                                 - greatest(j.start_time, lower(piece))) * 1000000))
                                  FROM @extschema@.jobs j
                                  -- the node shapes and GPU factor of the
                                  -- scenario of the report running, if any
                                  -- (docs/history.md#the-policy-lab)
                                  JOIN @extschema@_internal._partitions_scenario() p
                                    ON p.cluster = j.cluster AND p.partition = j.partition
                                  JOIN @extschema@_internal._clusters_scenario() c ON c.cluster = j.cluster
                                 WHERE j.cluster = cluster AND j.account = account
                                   AND j.start_time IS NOT NULL
                                   AND j.start_time < upper(piece)
                                   AND (j.end_time IS NULL OR j.end_time > lower(piece))), 0);
    END LOOP;
    RETURN (round(total_us, 40) / 3600000000)::float8;
END
$$;
COMMENT ON FUNCTION @extschema@.account_core_hours(text, text, timestamptz, timestamptz) IS
'Core-hours of an account''s jobs on a cluster inside [since, until), each job counted for its time inside the window (exclusive / whole-node jobs pay whole nodes).';

-- Consumption of an allocation on a day: core-hours of its account's jobs
-- on its cluster from the start of the period up to the start of as_of (the
-- day itself not counted, as in the theoretical consumption), or up to the
-- end of the period; days begin at midnight in the cluster's time zone.
CREATE FUNCTION @extschema@.allocation_consumption(allocation_id bigint, as_of date)
RETURNS float8 LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    a record;
    upto date;
BEGIN
    IF NOT isfinite(as_of) THEN
        RAISE EXCEPTION 'allocation_consumption: as_of must be a finite date, not %', as_of
            USING ERRCODE = '22008', HINT = 'Pass the day of the check.';
    END IF;
    SELECT al.cluster, al.account, al.period_start, al.period_end, c.timezone
      INTO a
      FROM @extschema@.allocations al JOIN @extschema@.clusters c ON c.cluster = al.cluster
     WHERE al.allocation_id = allocation_id;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    upto := least(as_of, a.period_end + 1);
    IF upto <= a.period_start THEN
        RETURN 0;
    END IF;
    RETURN @extschema@.account_core_hours(a.cluster, a.account,
                                          a.period_start::timestamp AT TIME ZONE a.timezone,
                                          upto::timestamp AT TIME ZONE a.timezone);
END
$$;
COMMENT ON FUNCTION @extschema@.allocation_consumption(bigint, date) IS
'Core-hours used by an allocation''s account on its cluster from the period start to the start of as_of (cluster time zone); NULL for an unknown allocation.';

-- allocation_consumption of many (allocation, day) pairs at once: the
-- pairs allocation_ids[i], days[i], one row each (NULL for an unknown
-- allocation or a NULL element, 0 for a day not after the period start).
-- The regulation's catch-up run and genci_report_at ask for every pair they
-- evaluate in one call: one query over the runs instead of one per pair,
-- which on Citus is one distributed query instead of thousands
-- (docs/citus.md#what-citus-does-not-do-and-what-is-done-instead).
-- The same figure as allocation_consumption, to the last bit: each pair's
-- window [period start, as_of or the day after the period) in the
-- cluster's time zone, the whole hours of it the rollups answer
-- (_core_rolled, with the same cuts) read from them (_core_rollup_rows),
-- the rest from the runs, billed by _core_billed, in exact
-- core-microseconds divided once (docs/regulation.md#consumption-from-the-rollups).
-- The runs are read once per allocation, not once per pair: the parts of
-- its windows the rollups do not answer, united, cut at every bound of
-- every part (_core_cut), so that each piece lies wholly inside or outside
-- each pair's part; a pair adds the pieces inside it, exact sums of the same
-- products.  A day must be finite (22008); the arrays of the same length
-- (22023).
CREATE FUNCTION @extschema@_internal._allocation_consumptions(allocation_ids bigint[], days date[])
RETURNS TABLE (allocation_id bigint, as_of date, used float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
    IF $1 IS NULL OR $2 IS NULL THEN
        RAISE EXCEPTION '_allocation_consumptions: the allocations and the days must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass two arrays of the same length: allocation_ids[i] is counted up to days[i].';
    END IF;
    IF cardinality($1) <> cardinality($2) OR array_ndims($1) > 1 OR array_ndims($2) > 1 THEN
        RAISE EXCEPTION '_allocation_consumptions: % allocations for % days', cardinality($1), cardinality($2)
            USING ERRCODE = '22023', HINT = 'Pass two one-dimensional arrays of the same length: allocation_ids[i] is counted up to days[i].';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest($2) d(d) WHERE NOT isfinite(d.d)) THEN
        RAISE EXCEPTION '_allocation_consumptions: days must be finite, not %',
                        (SELECT d.d FROM unnest($2) d(d) WHERE NOT isfinite(d.d) LIMIT 1)
            USING ERRCODE = '22008', HINT = 'Pass the days of the checks.';
    END IF;
    RETURN QUERY
    WITH x AS MATERIALIZED (
        SELECT t.allocation_id, t.as_of, t.i
          FROM unnest($1, $2) WITH ORDINALITY t(allocation_id, as_of, i)
    ), p AS MATERIALIZED (
        -- each pair's window, as allocation_consumption takes it, and the
        -- whole hours of it the rollups answer, as account_core_hours
        -- reads them
        SELECT x.i, al.allocation_id, al.cluster, al.account, w.since, w.until,
               -- (none for a cluster without core rollups, asked once for
               -- it rather than once per pair: 0.5 ms a pair)
               CASE WHEN cr.cluster IS NULL THEN '{}'::tstzmultirange
                    ELSE @extschema@_internal._core_rolled(al.cluster, w.since, w.until, ARRAY[w.since, w.until]) END
                 AS rolled
          FROM x
          JOIN @extschema@.allocations al ON al.allocation_id = x.allocation_id
          JOIN @extschema@.clusters c ON c.cluster = al.cluster
          LEFT JOIN @extschema@.core_rollup_state cr ON cr.cluster = al.cluster
         CROSS JOIN LATERAL (SELECT al.period_start::timestamp AT TIME ZONE c.timezone AS since,
                                    least(x.as_of, al.period_end + 1)::timestamp AT TIME ZONE c.timezone AS until) w
         WHERE x.as_of IS NOT NULL AND least(x.as_of, al.period_end + 1) > al.period_start
    ), rr AS MATERIALIZED (
        -- core-microseconds of each pair from the rollups
        SELECT p.i, sum(y.core_us) AS us
          FROM p CROSS JOIN LATERAL @extschema@_internal._core_rollup_rows(p.cluster, p.account, p.rolled,
                                                                         ARRAY[p.since, p.until]) y
         WHERE NOT isempty(p.rolled)
         GROUP BY p.i
    ), u AS MATERIALIZED (
        -- the parts of each pair's window the rollups do not answer
        SELECT p.i, p.allocation_id, p.cluster, p.account,
               tstzmultirange(tstzrange(p.since, p.until)) - p.rolled AS unrolled
          FROM p
    ), s AS MATERIALIZED (
        -- per allocation, the union of those parts and every bound of
        -- every part
        SELECT u.allocation_id, u.cluster, u.account, range_agg(r.r) AS span,
               array_agg(DISTINCT b.b ORDER BY b.b) AS cuts
          FROM u
         CROSS JOIN LATERAL unnest(u.unrolled) r(r)
         CROSS JOIN LATERAL (VALUES (lower(r.r)), (upper(r.r))) b(b)
         GROUP BY u.allocation_id, u.cluster, u.account
    ), g AS MATERIALIZED (
        -- each piece of those unions, with the node shapes of its cluster's
        -- partitions and its GPU factor, those of the scenario of the report
        -- running if any (docs/history.md#the-policy-lab), as arrays each
        -- run looks its partition up in.  Joined to the runs as relations,
        -- the partitions were joined to the pieces first (the planner
        -- expects one row of a CTE's join) and each allocation's runs were
        -- read once per partition of its cluster; and the pieces are
        -- materialized, so that each probe of the runs' index has its
        -- bounds (docs/performance.md#genci-and-rwth-reports)
        SELECT s.allocation_id, s.cluster, s.account, s.cuts, lower(r.r) AS lo, upper(r.r) AS hi,
               pa.names, pa.whole_node, pa.cores_per_node, c.gpu_hour_factor
          FROM s
         CROSS JOIN LATERAL unnest(s.span) r(r)
          JOIN @extschema@_internal._clusters_scenario() c ON c.cluster = s.cluster
          LEFT JOIN (SELECT p.cluster, array_agg(p.partition ORDER BY p.partition) AS names,
                            array_agg(p.whole_node ORDER BY p.partition) AS whole_node,
                            array_agg(p.cores_per_node ORDER BY p.partition) AS cores_per_node
                       FROM @extschema@_internal._partitions_scenario() p
                      GROUP BY p.cluster) pa ON pa.cluster = s.cluster
    ), runs AS MATERIALIZED (
        -- the runs in those pieces, billed as account_core_hours bills them
        -- (a run's partition is one of its cluster's: a foreign key) and
        -- cut at the bounds, summed by allocation and piece (on Citus, on
        -- the workers); a join rather than a subquery per allocation, so
        -- that Citus can plan it, as _rwth_usage's
        SELECT g.allocation_id, y.k, sum(y.core_us) AS core_us
          FROM g
          JOIN @extschema@.jobs j
            ON j.cluster = g.cluster AND j.account = g.account
           AND j.start_time IS NOT NULL AND j.start_time < g.hi
           AND coalesce(j.end_time, 'infinity'::timestamptz) > g.lo
         CROSS JOIN LATERAL (SELECT array_position(g.names, j.partition) AS i) pi
         CROSS JOIN LATERAL @extschema@_internal._core_cut(
                @extschema@_internal._core_billed(j.cpus, j.exclusive OR g.whole_node[pi.i], j.nodes, g.cores_per_node[pi.i],
                                                  j.gpus, g.gpu_hour_factor),
                greatest(j.start_time, g.lo), least(coalesce(j.end_time, 'infinity'::timestamptz), g.hi), g.cuts) y
         GROUP BY g.allocation_id, y.k
    ), rn AS MATERIALIZED (
        -- core-microseconds of each pair from the runs: the pieces inside
        -- its part
        SELECT u.i, sum(runs.core_us) AS us
          FROM u
          JOIN s ON s.allocation_id = u.allocation_id
          JOIN runs ON runs.allocation_id = u.allocation_id
         WHERE u.unrolled @> tstzrange(s.cuts[runs.k], s.cuts[runs.k + 1])
         GROUP BY u.i
    )
    SELECT x.allocation_id, x.as_of,
           CASE WHEN al.allocation_id IS NULL OR x.as_of IS NULL THEN NULL::float8
                WHEN p.i IS NULL THEN 0::float8
                -- divided once, as account_core_hours divides
                ELSE (round(coalesce(rr.us, 0) + coalesce(rn.us, 0), 40) / 3600000000)::float8 END
      FROM x
      LEFT JOIN @extschema@.allocations al ON al.allocation_id = x.allocation_id
      LEFT JOIN p ON p.i = x.i
      LEFT JOIN rr ON rr.i = x.i
      LEFT JOIN rn ON rn.i = x.i
     ORDER BY x.i;
END
$$;

-- Per-cluster settings of the GENCI regulation.  A cluster without a row
-- uses the defaults (the 2017 GENCI text).  The threshold between the
-- monthly and the mid-term regimes is clusters.regulation_threshold.
CREATE TABLE @extschema@.genci_settings (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    -- monthly rule: 'genci' (lag in months, one month taken) or 'tgcc'
    -- (lag in days, 30 days' worth taken above 60 days)
    variant              text NOT NULL DEFAULT 'genci' CHECK (variant IN ('genci', 'tgcc')),
    -- mid-term rule: up to this fraction taken back ...
    midterm_cap          float8 NOT NULL DEFAULT 0.40
                         CHECK (midterm_cap OPERATOR(pg_catalog.>=) 0 AND midterm_cap OPERATOR(pg_catalog.<=) 1),
    -- ... from projects that used at most this fraction in months 1–5
    midterm_used_limit   float8 NOT NULL DEFAULT 0.30
                         CHECK (midterm_used_limit OPERATOR(pg_catalog.>=) 0 AND midterm_used_limit OPERATOR(pg_catalog.<=) 1)
);
COMMENT ON TABLE @extschema@.genci_settings IS 'GENCI regulation per cluster: monthly variant (genci / tgcc) and mid-term cap and used limit.';

-- Journal of the regulation: one row per allocation, rule and check day
-- evaluated, with the numbers it was decided on.  Its primary key makes a
-- check day count once, whatever runs and however often.
CREATE TABLE @extschema@.regulation_checks (
    allocation_id        bigint NOT NULL REFERENCES @extschema@.allocations ON DELETE CASCADE,
    rule                 text NOT NULL CHECK (rule IN ('genci_monthly', 'tgcc_monthly', 'genci_midterm_alert', 'genci_midterm')),
    check_day            date NOT NULL CHECK (pg_catalog.isfinite(check_day)),
    net_hours            float8 NOT NULL,
    consumed             float8 NOT NULL,
    theoretical          float8 NOT NULL,
    lag                  float8 NOT NULL,
    ratio                float8,
    status               text,
    hours_taken          float8 NOT NULL DEFAULT 0 CHECK (hours_taken OPERATOR(pg_catalog.>=) 0),
    checked_at           timestamptz NOT NULL DEFAULT pg_catalog.now(),
    checked_by           text NOT NULL DEFAULT CURRENT_USER,
    PRIMARY KEY (allocation_id, rule, check_day)
);
COMMENT ON TABLE @extschema@.regulation_checks IS 'Every GENCI check day evaluated for an allocation, with the figures it was decided on; each counts once.';

-- What project leaders are to be told.  A mailer reads the rows with
-- sent_at NULL and stamps them.
CREATE TABLE @extschema@.regulation_notifications (
    notification_id      bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    allocation_id        bigint NOT NULL REFERENCES @extschema@.allocations ON DELETE CASCADE,
    cluster              text NOT NULL,
    account              text NOT NULL,
    rule                 text NOT NULL,
    check_day            date NOT NULL,
    -- warning: late / very late without take-back; alert: mid-term alert;
    -- take_back: hours were taken; exempt: mid-term exemption applied
    kind                 text NOT NULL CHECK (kind IN ('warning', 'alert', 'take_back', 'exempt')),
    hours                float8 NOT NULL DEFAULT 0 CHECK (hours OPERATOR(pg_catalog.>=) 0),
    message              text NOT NULL,
    created_at           timestamptz NOT NULL DEFAULT pg_catalog.now(),
    sent_at              timestamptz,
    UNIQUE (allocation_id, rule, check_day, kind)
);
COMMENT ON TABLE @extschema@.regulation_notifications IS 'GENCI regulation notices to project leaders (warnings, mid-term alerts, take-backs, exemptions); sent_at NULL = not sent yet.';
CREATE INDEX ON @extschema@.regulation_notifications (sent_at) WHERE sent_at IS NULL;

SELECT pg_catalog.pg_extension_config_dump('@extschema@.genci_settings', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.regulation_checks', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.regulation_notifications', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.regulation_notifications_notification_id_seq', '');

-- The net allocation a check on as_of is decided on: the grant plus every
-- ledger entry effective on or before as_of, except the take-backs the
-- regulation itself made on as_of (so that the same day evaluates the same
-- way before and after it was applied).
CREATE FUNCTION @extschema@_internal._genci_net_before(allocation_id bigint, as_of date)
RETURNS float8 LANGUAGE sql STABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.hours OPERATOR(pg_catalog.+) COALESCE(pg_catalog.sum(
               CASE WHEN l.kind OPERATOR(pg_catalog.=) 'take_back'
                    THEN OPERATOR(pg_catalog.-) l.hours ELSE l.hours END), 0)
      FROM @extschema@.allocations a
      LEFT JOIN @extschema@.ledger l
        ON l.allocation_id OPERATOR(pg_catalog.=) a.allocation_id
       AND l.effective_date OPERATOR(pg_catalog.<=) _genci_net_before.as_of
       AND NOT (l.kind OPERATOR(pg_catalog.=) 'take_back'
                AND l.rule OPERATOR(pg_catalog.<>) 'manual'
                AND l.effective_date OPERATOR(pg_catalog.=) _genci_net_before.as_of)
     WHERE a.allocation_id OPERATOR(pg_catalog.=) _genci_net_before.allocation_id
     GROUP BY a.hours;
END;

-- The net allocation a check on as_of is decided on (_genci_net_before),
-- and why, if it cannot be, the regulation cannot be computed for the
-- allocation on that day (docs/bad-input.md#the-six-defects): net is then
-- NULL.  An initial grant or a ledger entry above 10^12 hours (accepted
-- before 1.2, see _allocation_hours_bounded) made the float8 sums and the
-- status overflow:
-- one entry of 1e308 failed the GENCI report of every allocation with a
-- bare 22003, for good, the ledger being append-only.  Take-backs beyond
-- the grant (a negative net) failed it with 22023.  And a consumption of
-- 10^15 core-hours or more (10^7 cores for 11,000 years: a job's size or a
-- cluster's gpu_hour_factor is wrong) would overflow the lag in days.
-- Within these bounds nothing the report or the procedure computes can
-- overflow: the sums stay below 10^21 and the products with a period's days
-- (at most 2.2 × 10^9) below 10^31.  The net is summed only once the
-- entries are known to be within the bound.  used is the allocation's
-- consumption on as_of (allocation_consumption).
CREATE FUNCTION @extschema@_internal._genci_refusal(allocation_id bigint, as_of date, used float8,
                                           OUT net float8, OUT why text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
BEGIN
    SELECT CASE WHEN a.hours > 1e12
                THEN format('its initial grant of %s hours is more than any allocation can hold (at most 1e12)', a.hours)
                ELSE (SELECT format('ledger entry %s (%s, %s) holds %s hours, more than any allocation can hold (at most 1e12)',
                                    l.entry_id, l.kind, to_char(l.effective_date, 'YYYY-MM-DD'), l.hours)
                        FROM @extschema@.ledger l
                       WHERE l.allocation_id = a.allocation_id AND l.effective_date <= as_of AND l.hours > 1e12
                       ORDER BY l.entry_id LIMIT 1) END
      INTO why
      FROM @extschema@.allocations a WHERE a.allocation_id = allocation_id;
    IF why IS NOT NULL THEN
        RETURN;
    END IF;
    net := @extschema@_internal._genci_net_before(allocation_id, as_of);
    IF net < 0 THEN
        why := format('its take-backs exceed what it was granted: the net allocation is %s hours', net);
    ELSIF used >= 1e15 THEN
        why := format('its consumption of %s core-hours is more than any machine could burn (at most 1e15)', used);
    END IF;
    IF why IS NOT NULL THEN
        net := NULL;
    END IF;
END
$$;

-- The row of an allocation _genci_refusal refused, in genci_report_at: a
-- WARNING naming the allocation and why, and the status 'error'.
CREATE FUNCTION @extschema@_internal._genci_report_error(allocation_id bigint, cluster text, account text, why text)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE WARNING 'genci_report_at: allocation % (cluster "%", account "%"): %', $1, $2, $3, $4
        USING DETAIL = 'Its row has status ''error'' and no figures; the other allocations'' rows are computed.',
              HINT = 'Correct the allocation: an entry the ledger must not hold can only be removed by a superuser.';
    RETURN 'error';
END
$$;

-- The check days of an allocation, each with its rule: every 15th of the
-- period for the monthly regime (the status is reviewed every month; hours
-- are only taken from month 3 on), the first days of months 5 and 6 for the
-- mid-term regime.  None when an argument is NULL, nor 15ths for a period
-- with an infinite start or end (their series would never end).  SQL that
-- PostgreSQL inlines into the procedure's queries, which read it for every
-- allocation (so neither STRICT nor SET: either would stop the inlining):
-- each regime's arithmetic is reached only for that regime, behind a CASE.
CREATE FUNCTION @extschema@_internal._genci_check_days(period_start date, period_end date, regime text, variant text)
RETURNS TABLE (rule text, check_day date)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN variant OPERATOR(pg_catalog.=) 'tgcc' THEN 'tgcc_monthly' ELSE 'genci_monthly' END,
           g::date
      FROM (SELECT CASE WHEN regime OPERATOR(pg_catalog.=) 'monthly' AND variant IS NOT NULL
                             AND pg_catalog.isfinite(period_start) AND pg_catalog.isfinite(period_end)
                        THEN pg_catalog.date_trunc('month', period_start::timestamp)::date OPERATOR(pg_catalog.+) 14
                   END AS first15) f
     CROSS JOIN LATERAL pg_catalog.generate_series(
                CASE WHEN f.first15 OPERATOR(pg_catalog.<) period_start
                     THEN f.first15 OPERATOR(pg_catalog.+) interval '1 month'
                     ELSE f.first15::timestamp END,
                CASE WHEN f.first15 IS NOT NULL THEN period_end::timestamp END,
                interval '1 month') g
    UNION ALL
    SELECT m.rule, m.check_day
      FROM (SELECT v.r AS rule,
                   CASE WHEN regime OPERATOR(pg_catalog.<>) 'monthly' AND variant IS NOT NULL
                        THEN (period_start OPERATOR(pg_catalog.+) v.i)::date END AS check_day
              FROM (VALUES ('genci_midterm_alert', interval '4 months'),
                           ('genci_midterm', interval '5 months')) v(r, i)) m
     WHERE m.check_day OPERATOR(pg_catalog.<=) period_end;
END;

-- The GENCI regulation of every allocation as of a day: consumption
-- against theoretical consumption, lag in hours and days, status, what the
-- regulation takes on that day, the last penalty and the hours taken back
-- so far (every take-back, manual ones included).  The status is computed on the net
-- allocation before that day's own regulation take-backs; net_hours is
-- that allocation.  regime is 'monthly' (initial grant >= the cluster's
-- regulation_threshold; NULL threshold = 0) or 'mid-term'.  An allocation
-- whose figures cannot be computed (_genci_refusal) gets status 'error',
-- NULL figures and a WARNING that names it; the other rows are computed
-- (docs/bad-input.md#the-six-defects).  Without an EXCEPTION block, which
-- would make the report PARALLEL UNSAFE: the refusal is decided before any arithmetic, and the
-- sums over the ledger run only for the allocations it lets through.
CREATE FUNCTION @extschema@.genci_report_at(as_of date)
RETURNS TABLE (cluster text, account text, allocation_id bigint, period_start date, period_end date,
               regime text, variant text, initial_hours float8, net_hours float8,
               consumed float8, theoretical float8, lag_hours float8, lag_days float8,
               monthly float8, ratio float8, status text, allocation_month integer,
               check_day boolean, exempt boolean, penalty float8,
               last_penalty_date date, last_penalty_hours float8, taken_back_hours float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    ids bigint[];
    useds float8[];
BEGIN
    IF $1 IS NULL THEN
        RAISE EXCEPTION 'genci_report_at: as_of must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass the day the report is for.';
    ELSIF NOT isfinite($1) THEN
        RAISE EXCEPTION 'genci_report_at: as_of must be a finite date, not %', $1
            USING ERRCODE = '22008', HINT = 'Pass the day the report is for.';
    END IF;
    -- the consumption of every allocation in one call (one query over the
    -- runs, not one per allocation: docs/citus.md); the statements of a
    -- STABLE function share the caller's snapshot, so these are the
    -- allocations the report reads below
    SELECT coalesce(array_agg(al.allocation_id), '{}') INTO ids
      FROM @extschema@.allocations al WHERE al.policy = 'genci';
    SELECT coalesce(array_agg(c.allocation_id), '{}'), coalesce(array_agg(c.used), '{}')
      INTO ids, useds
      FROM @extschema@_internal._allocation_consumptions(ids, array_fill($1, ARRAY[cardinality(ids)])) c;
    RETURN QUERY
    -- the consumption and the net computed once per allocation (OFFSET 0,
    -- MATERIALIZED): an expression of a subquery pulled up into its parent
    -- is evaluated at every reference to it
    WITH a AS MATERIALIZED (
        SELECT u.*, g.net, g.why
          FROM (SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end, al.hours,
                       al.justification_filed, al.second_half_declared,
                       -- the settings, with the overrides of the scenario of
                       -- the report running, if any (docs/history.md#the-policy-lab)
                       CASE WHEN al.hours >= coalesce((o.c ->> 'regulation_threshold')::float8,
                                                      c.regulation_threshold, 0)
                            THEN 'monthly' ELSE 'mid-term' END AS regime,
                       coalesce(o.g ->> 'variant', s.variant, 'genci') AS variant,
                       coalesce((o.g ->> 'midterm_cap')::float8, s.midterm_cap, 0.40) AS cap,
                       coalesce((o.g ->> 'midterm_used_limit')::float8, s.midterm_used_limit, 0.30) AS used_limit,
                       CASE WHEN uc.allocation_id IS NOT NULL THEN uc.used
                            ELSE @extschema@.allocation_consumption(al.allocation_id, $1) END AS used
                  FROM @extschema@.allocations al
                  LEFT JOIN unnest(ids, useds) uc(allocation_id, used) ON uc.allocation_id = al.allocation_id
                  JOIN @extschema@.clusters c ON c.cluster = al.cluster
                  LEFT JOIN @extschema@.genci_settings s ON s.cluster = al.cluster
                  -- outside a scenario no row: _scenario() is NULL
                  LEFT JOIN (SELECT x.cluster,
                                    pg_catalog.jsonb_object_agg(x.table_name, x.settings) -> 'clusters' AS c,
                                    pg_catalog.jsonb_object_agg(x.table_name, x.settings) -> 'genci_settings' AS g
                               FROM @extschema@.scenario_settings x
                              WHERE x.scenario = @extschema@_internal._scenario()
                                AND x.table_name IN ('clusters', 'genci_settings')
                              GROUP BY x.cluster) o ON o.cluster = al.cluster
                 WHERE al.policy = 'genci'
                OFFSET 0) u
         CROSS JOIN LATERAL @extschema@_internal._genci_refusal(u.allocation_id, $1, u.used) g
    )
    SELECT a.cluster, a.account, a.allocation_id, a.period_start, a.period_end, a.regime, a.variant,
           a.hours, a.net, a.used, st.theoretical, st.lag, st.lag_days, st.monthly, st.ratio,
           CASE WHEN a.why IS NULL THEN st.status
                ELSE @extschema@_internal._genci_report_error(a.allocation_id, a.cluster, a.account, a.why) END,
           st.allocation_month,
           CASE WHEN a.regime = 'monthly' THEN st.check_day ELSE mt.check_day END,
           ex.exempt,
           CASE WHEN a.why IS NOT NULL THEN NULL::float8
                WHEN a.regime = 'monthly' THEN st.penalty
                WHEN ex.exempt THEN 0::float8 ELSE mt.take_back END,
           lp.effective_date, lp.hours,
           CASE WHEN a.why IS NULL THEN coalesce(tb.hours, 0) END
      FROM a
     CROSS JOIN LATERAL @extschema@.genci_status(a.net, a.used, a.period_start, a.period_end, $1, a.variant) st
     CROSS JOIN LATERAL @extschema@.genci_midterm_status(a.net, a.used, a.period_start, a.period_end, $1,
                                                          a.cap, a.used_limit) mt
     CROSS JOIN LATERAL (SELECT a.regime = 'mid-term'
                                AND (a.second_half_declared
                                     OR coalesce(a.justification_filed < a.period_start + interval '5 months', false))
                                AS exempt) ex
      LEFT JOIN LATERAL (SELECT l.effective_date, l.hours FROM @extschema@.ledger l
                          WHERE l.allocation_id = a.allocation_id AND l.kind = 'take_back'
                            AND l.rule <> 'manual' AND l.effective_date <= $1
                          ORDER BY l.effective_date DESC, l.entry_id DESC LIMIT 1) lp ON true
      LEFT JOIN LATERAL (SELECT sum(l.hours) AS hours FROM @extschema@.ledger l
                          WHERE a.why IS NULL
                            AND l.allocation_id = a.allocation_id AND l.kind = 'take_back'
                            AND l.effective_date <= $1) tb ON true
     ORDER BY a.cluster, a.account, a.period_start;
END
$$;
COMMENT ON FUNCTION @extschema@.genci_report_at(date) IS
'GENCI report as of a day: per allocation consumption vs theoretical, lag (hours, days), monthly, ratio, status, check day, penalty due, last penalty, hours taken back so far.';

-- Each cluster's rows as of its own today: one call per distinct local date.
CREATE VIEW @extschema@.genci_report AS
SELECT r.*
  FROM (SELECT DISTINCT pg_catalog.timezone(c.timezone, pg_catalog.now())::date AS today
          FROM @extschema@.clusters c) t
 CROSS JOIN LATERAL @extschema@.genci_report_at(t.today) r
  JOIN @extschema@.clusters c
    ON c.cluster OPERATOR(pg_catalog.=) r.cluster
   AND pg_catalog.timezone(c.timezone, pg_catalog.now())::date OPERATOR(pg_catalog.=) t.today;
COMMENT ON VIEW @extschema@.genci_report IS 'genci_report_at(today in each cluster''s time zone).';

-- Applies the GENCI regulation due on or before a day (NULL: today in each
-- cluster's time zone) to every 'genci' allocation (of one cluster, or all):
-- every check day not yet evaluated is evaluated once, in date order, on the
-- net allocation left by the earlier ones (catch-up after downtime); hours
-- go to the ledger as take_back entries with the rule's name, notices to
-- regulation_notifications, the figures to regulation_checks.
--
-- Safe to run again (a check day in regulation_checks is never evaluated
-- twice; the ledger's ledger_rule_once index backs it up) and concurrently:
-- each allocation is locked (FOR NO KEY UPDATE, in allocation order, so two
-- runs cannot deadlock) before its pending check days are read, and read
-- committed gives every later statement a snapshot that sees the other
-- run's committed work.  Run it in READ COMMITTED (the default); at higher
-- isolation levels a concurrent run fails with a serialization error
-- instead of taking hours twice.  A day after today is refused: hours are
-- never taken on incomplete consumption.
CREATE PROCEDURE @extschema@.apply_genci_regulation(as_of date DEFAULT NULL, cluster text DEFAULT NULL)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    cl record;
    al record;
    cd record;
    today date;
    upto date;
    net float8;
    used float8;
    st record;
    mt record;
    is_exempt boolean;
    taken float8;
    notice text;
    check_status text;
    msg text;
    checked record;
    n_clusters integer := 0;
    -- the consumption of every pending day, by allocation and day
    pre_ids bigint[];
    pre_days date[];
    pre_used float8[];
    k integer;
BEGIN
    IF $1 IS NOT NULL AND NOT isfinite($1) THEN
        RAISE EXCEPTION 'apply_genci_regulation: as_of must be a finite date, not %', $1
            USING ERRCODE = '22008', HINT = 'Pass the day to apply the regulation for, or NULL for today.';
    END IF;
    FOR cl IN
        SELECT c.cluster, c.timezone, coalesce(c.regulation_threshold, 0) AS threshold,
               coalesce(s.variant, 'genci') AS variant,
               coalesce(s.midterm_cap, 0.40) AS cap,
               coalesce(s.midterm_used_limit, 0.30) AS used_limit
          FROM @extschema@.clusters c
          LEFT JOIN @extschema@.genci_settings s ON s.cluster = c.cluster
         WHERE $2 IS NULL OR c.cluster = $2
         ORDER BY c.cluster
    LOOP
        n_clusters := n_clusters + 1;
        today := timezone(cl.timezone, now())::date;
        upto := coalesce($1, today);
        IF upto > today THEN
            RAISE EXCEPTION 'apply_genci_regulation: % has not begun on cluster "%"', to_char(upto, 'YYYY-MM-DD'), cl.cluster
                USING ERRCODE = '22023', DETAIL = format('Today is %s in time zone %s.', to_char(today, 'YYYY-MM-DD'), cl.timezone),
                      HINT = 'Hours are only taken on days that have begun in the cluster''s time zone.';
        END IF;
        -- the consumption of every day pending now, in one call (one query
        -- over the runs, not one per day: docs/citus.md): it depends on
        -- the runs only, not on the take-backs of the days before, which
        -- the loop below applies in order.  Sorted by allocation and day,
        -- the order the loop takes them in; a day that becomes pending
        -- meanwhile (a grant changed by another session) is computed on
        -- its own below
        SELECT coalesce(array_agg(d.allocation_id), '{}'), coalesce(array_agg(d.check_day), '{}')
          INTO pre_ids, pre_days
          FROM (SELECT DISTINCT a.allocation_id, d.check_day
                  FROM @extschema@.allocations a
                 CROSS JOIN LATERAL @extschema@_internal._genci_check_days(a.period_start, a.period_end,
                          CASE WHEN a.hours >= cl.threshold THEN 'monthly' ELSE 'mid-term' END,
                          cl.variant) d
                 WHERE a.cluster = cl.cluster AND a.policy = 'genci' AND a.period_start <= upto
                   AND d.check_day <= upto
                   AND NOT EXISTS (SELECT 1 FROM @extschema@.regulation_checks r
                                    WHERE r.allocation_id = a.allocation_id
                                      AND r.rule = d.rule AND r.check_day = d.check_day)) d;
        -- (a statement that names no table: the runs' query is planned
        -- inside, on Citus as a distributed one)
        SELECT coalesce(array_agg(c.allocation_id ORDER BY c.allocation_id, c.as_of), '{}'),
               coalesce(array_agg(c.as_of ORDER BY c.allocation_id, c.as_of), '{}'),
               coalesce(array_agg(c.used ORDER BY c.allocation_id, c.as_of), '{}')
          INTO pre_ids, pre_days, pre_used
          FROM @extschema@_internal._allocation_consumptions(pre_ids, pre_days) c;
        k := 1;
        -- only allocations with a check day still to evaluate: a day found
        -- evaluated (committed) cannot become pending again, so the others
        -- are skipped without a lock
        FOR al IN
            SELECT a.allocation_id, a.account, a.period_start, a.period_end, a.hours,
                   a.justification_filed, a.second_half_declared
              FROM @extschema@.allocations a
             WHERE a.cluster = cl.cluster AND a.policy = 'genci' AND a.period_start <= upto
               AND EXISTS (SELECT 1
                             FROM @extschema@_internal._genci_check_days(a.period_start, a.period_end,
                                      CASE WHEN a.hours >= cl.threshold THEN 'monthly' ELSE 'mid-term' END,
                                      cl.variant) d
                            WHERE d.check_day <= upto
                              AND NOT EXISTS (SELECT 1 FROM @extschema@.regulation_checks r
                                               WHERE r.allocation_id = a.allocation_id
                                                 AND r.rule = d.rule AND r.check_day = d.check_day))
             ORDER BY a.allocation_id
        LOOP
            -- serialise with any other run on this allocation; what follows
            -- reads with snapshots taken after the lock was granted
            PERFORM 1 FROM @extschema@.allocations a WHERE a.allocation_id = al.allocation_id FOR NO KEY UPDATE;
            FOR cd IN
                SELECT d.rule, d.check_day
                  FROM @extschema@_internal._genci_check_days(al.period_start, al.period_end,
                           CASE WHEN al.hours >= cl.threshold THEN 'monthly' ELSE 'mid-term' END,
                           cl.variant) d
                 WHERE d.check_day <= upto
                   AND NOT EXISTS (SELECT 1 FROM @extschema@.regulation_checks r
                                    WHERE r.allocation_id = al.allocation_id
                                      AND r.rule = d.rule AND r.check_day = d.check_day)
                 ORDER BY d.check_day, d.rule
            LOOP
                -- its consumption computed above (the loops go in the same
                -- order: skip the days evaluated meanwhile by another run)
                WHILE k <= cardinality(pre_ids)
                      AND (pre_ids[k] < al.allocation_id
                           OR (pre_ids[k] = al.allocation_id AND pre_days[k] < cd.check_day)) LOOP
                    k := k + 1;
                END LOOP;
                IF k <= cardinality(pre_ids) AND pre_ids[k] = al.allocation_id AND pre_days[k] = cd.check_day THEN
                    used := pre_used[k];
                ELSE
                    used := @extschema@.allocation_consumption(al.allocation_id, cd.check_day);
                END IF;
                -- figures that cannot be computed (_genci_refusal): this
                -- allocation's days stay pending, the others go on
                SELECT * INTO checked FROM @extschema@_internal._genci_refusal(al.allocation_id, cd.check_day, used);
                IF checked.why IS NOT NULL THEN
                    RAISE WARNING 'apply_genci_regulation: allocation % (cluster "%", account "%") skipped from %: %',
                                  al.allocation_id, cl.cluster, al.account, to_char(cd.check_day, 'YYYY-MM-DD'), checked.why
                        USING DETAIL = 'Its check days stay pending; the other allocations are regulated.',
                              HINT = 'Correct the allocation and run the procedure again.';
                    EXIT;
                END IF;
                net := checked.net;
                SELECT * INTO st FROM @extschema@.genci_status(net, used, al.period_start, al.period_end,
                                                               cd.check_day, cl.variant);
                taken := 0;
                notice := NULL;
                msg := NULL;
                IF cd.rule IN ('genci_monthly', 'tgcc_monthly') THEN
                    check_status := st.status;
                    taken := st.penalty;
                    IF taken > 0 THEN
                        notice := 'take_back';
                        msg := format('%s on %s: consumed %s h against %s h theoretical (lag %s h, %s days, ratio %s); %s h taken back',
                                      al.account, to_char(cd.check_day, 'YYYY-MM-DD'), round(used::numeric, 2), round(st.theoretical::numeric, 2),
                                      round(st.lag::numeric, 2), round(st.lag_days::numeric, 1),
                                      round(st.ratio::numeric, 3), round(taken::numeric, 2));
                    ELSIF st.status IN ('late', 'very late') THEN
                        notice := 'warning';
                        msg := format('%s on %s: %s, consumed %s h against %s h theoretical (lag %s h, %s days, ratio %s)',
                                      al.account, to_char(cd.check_day, 'YYYY-MM-DD'), st.status, round(used::numeric, 2),
                                      round(st.theoretical::numeric, 2), round(st.lag::numeric, 2),
                                      round(st.lag_days::numeric, 1), round(st.ratio::numeric, 3));
                    END IF;
                ELSE
                    SELECT * INTO mt FROM @extschema@.genci_midterm_status(net, used, al.period_start, al.period_end,
                                                                          cd.check_day, cl.cap, cl.used_limit);
                    is_exempt := al.second_half_declared
                                 OR coalesce(al.justification_filed < al.period_start + interval '5 months', false);
                    -- the mid-term words: exempt, under-used (<= used_limit), on track
                    check_status := CASE WHEN NOT mt.under_used THEN 'on track'
                                         WHEN cd.rule = 'genci_midterm' AND is_exempt THEN 'exempt'
                                         ELSE 'under-used' END;
                    IF cd.rule = 'genci_midterm_alert' AND mt.under_used THEN
                        notice := 'alert';
                        msg := format('%s: %s h used of %s h (%s %%) at the start of month 5; a justification filed before %s can exempt the project from the mid-term take-back',
                                      al.account, round(used::numeric, 2), round(net::numeric, 2),
                                      round(100 * coalesce(mt.used_fraction, 0)::numeric, 1),
                                      to_char(al.period_start + interval '5 months', 'YYYY-MM-DD'));
                    ELSIF cd.rule = 'genci_midterm' AND mt.under_used AND is_exempt THEN
                        notice := 'exempt';
                        msg := format('%s: %s h used of %s h after month 5; exempt from the mid-term take-back (%s)',
                                      al.account, round(used::numeric, 2), round(net::numeric, 2),
                                      CASE WHEN al.second_half_declared THEN 'second-half use declared'
                                           ELSE 'justification filed on ' || to_char(al.justification_filed, 'YYYY-MM-DD') END);
                    ELSIF cd.rule = 'genci_midterm' AND mt.take_back > 0 THEN
                        taken := mt.take_back;
                        notice := 'take_back';
                        msg := format('%s: %s h used of %s h (%s %%) after month 5; %s h taken back',
                                      al.account, round(used::numeric, 2), round(net::numeric, 2),
                                      round(100 * coalesce(mt.used_fraction, 0)::numeric, 1), round(taken::numeric, 2));
                    END IF;
                END IF;

                INSERT INTO @extschema@.regulation_checks AS r
                       (allocation_id, rule, check_day, net_hours, consumed, theoretical, lag, ratio, status, hours_taken)
                VALUES (al.allocation_id, cd.rule, cd.check_day, net, used, st.theoretical, st.lag, st.ratio,
                        check_status, taken)
                ON CONFLICT DO NOTHING;
                IF NOT FOUND THEN
                    CONTINUE;       -- evaluated meanwhile by another run
                END IF;
                IF taken > 0 THEN
                    INSERT INTO @extschema@.ledger (allocation_id, kind, hours, rule, reason, effective_date)
                    VALUES (al.allocation_id, 'take_back', taken, cd.rule, msg, cd.check_day);
                END IF;
                IF notice IS NOT NULL THEN
                    INSERT INTO @extschema@.regulation_notifications
                           (allocation_id, cluster, account, rule, check_day, kind, hours, message)
                    VALUES (al.allocation_id, cl.cluster, al.account, cd.rule, cd.check_day, notice, taken, msg);
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;
    IF $2 IS NOT NULL AND n_clusters = 0 THEN
        RAISE EXCEPTION 'apply_genci_regulation: no cluster "%"', $2
            USING ERRCODE = '22023', HINT = 'Name a cluster of fairshare.clusters, or NULL for every cluster.';
    END IF;
END
$$;
COMMENT ON PROCEDURE @extschema@.apply_genci_regulation(date, text) IS
'Applies every GENCI check day due on or before as_of (NULL: today in each cluster''s time zone) once, in order: take-backs to the ledger, notices to regulation_notifications. Idempotent and safe to run concurrently.';
