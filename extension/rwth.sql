-- ---------------------------------------------------------------------------
-- rwth: RWTH Aachen (CLAIX) three-month sliding-window core-hour quota
-- (how the "Resource Quotas" page is read:
-- docs/policies.md#rwth-sliding-window-quota).
--
-- Pure functions (the available quota, the quota status), then the monthly
-- consumption of every project from the job table and `r_wlm_usage`, the
-- view that prints what `r_wlm_usage -q` prints, for every project and
-- month.  Months are calendar months in the cluster's time zone; a month
-- outside the accounting period counts 0 (passed as NULL).  The months'
-- core-hours come from the core rollups for the hours they hold and from
-- the runs for the rest (_rwth_usage below;
-- docs/regulation.md#consumption-from-the-rollups).  The quota of a month
-- follows the cluster's rwth_rule: the "Resource Quotas" page's formula
-- ('window', the default) or the newer page's three consecutive months
-- ('three_months'; docs/policies.md#the-three-consecutive-months-rule).
-- ---------------------------------------------------------------------------

-- available(m) = A(m−1) + A(m) + A(m+1) − C(m−1) − C(m); a NULL previous or
-- next allowance means that month lies outside the accounting period and
-- counts 0 (no transfer into the first month, no borrowing in the last);
-- consumed_prev is then ignored.  The current month's allowance and
-- consumption are required (22004), a previous month inside the period needs
-- its consumption (22004), every number given is finite and >= 0 (22023).
-- In C (rwth.c): r_wlm_usage calls it for every project month.
CREATE FUNCTION @extschema@.rwth_available_quota(allowance_prev float8, allowance_cur float8,
                                                 allowance_next float8, consumed_prev float8,
                                                 consumed_cur float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_rwth_available_quota'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.rwth_available_quota(float8, float8, float8, float8, float8) IS
'RWTH: core-hours usable in month m: A(m−1) + A(m) + A(m+1) − C(m−1) − C(m); NULL previous/next allowance = month outside the period = 0.';

-- The quota status of month m (docs/policies.md#rwth-sliding-window-quota):
--   remaining_prev = A(m−1) − C(m−1) (0 outside the period),
--   balance = remaining_prev + A(m) − C(m), balance_pct = 100 × balance / A(m)
--   (the page's "Consumable core-h (%)": 1000 a month, 800 used last month
--   → 120), balance_pct_display the same with values below −100 shown as
--   −101 (what r_wlm_usage prints), available = rwth_available_quota (the
--   page's "Consumable core-h", 2200), available_pct = 100 × available / A(m);
--   low_priority when available <= 0; blocked when C(m) > 6 × A(m) or, the
--   totals given, consumed_total > 2 × allowance_total (both strict).
-- Percentages are NULL for a zero allowance.  The arguments are checked as
-- rwth_available_quota's; the totals, when given, are finite and >= 0
-- (22023).  In C (rwth.c), as rwth_available_quota.
CREATE FUNCTION @extschema@.rwth_quota_status(
    allowance_prev float8, allowance_cur float8, allowance_next float8,
    consumed_prev float8, consumed_cur float8,
    allowance_total float8 DEFAULT NULL, consumed_total float8 DEFAULT NULL,
    OUT available float8, OUT remaining_prev float8, OUT balance float8,
    OUT balance_pct float8, OUT balance_pct_display float8, OUT available_pct float8,
    OUT low_priority boolean, OUT blocked boolean)
AS 'MODULE_PATHNAME', 'fs_rwth_quota_status'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.rwth_quota_status(float8, float8, float8, float8, float8, float8, float8) IS
'RWTH quota status of a month: available, remaining of the previous month, balance (hours, %, % as displayed, clamped at −101), available %, low priority (available <= 0), blocked (C(m) > 6·A(m) or total > 2·total allowance).';

-- The quota status of month m of a period under either rule of
-- clusters.rwth_rule (docs/policies.md#rwth-sliding-window-quota), from the
-- allowances A(1..n) of all its months and the consumption C(1..k) of the
-- months up to m at least (m <= k <= n; the months after m are not read,
-- they have consumed nothing yet at m's end):
--   window        available = A(m−1) + A(m) + A(m+1) − C(m−1) − C(m), what
--                 rwth_quota_status computes, to the last bit;
--   three_months  available = the smallest, over the three windows of three
--                 consecutive months that contain m (starting at m − 2,
--                 m − 1 and m), of the allowances of the window's months
--                 inside the period minus the consumption of its months up
--                 to m: months outside the period count 0.
-- Under both, balance is available without the allowances of the months
-- after m (no borrowing), remaining_prev = A(m−1) − C(m−1) (0 in the first
-- month), the percentages are of A(m), low_priority and blocked as
-- rwth_quota_status's.  Every NULL but the totals' raises 22004; a month
-- outside 1..n, a consumption of fewer than m or more than n months, a
-- rule other than window and three_months, an element that is no finite
-- number >= 0 and an array that is not one-dimensional raise 22023.  In C
-- (rwth.c): r_wlm_usage_at calls it for every project month.
CREATE FUNCTION @extschema@.rwth_month_status(
    allowances float8[], consumed float8[], month integer, rule text DEFAULT 'window',
    allowance_total float8 DEFAULT NULL, consumed_total float8 DEFAULT NULL,
    OUT available float8, OUT remaining_prev float8, OUT balance float8,
    OUT balance_pct float8, OUT balance_pct_display float8, OUT available_pct float8,
    OUT low_priority boolean, OUT blocked boolean)
AS 'MODULE_PATHNAME', 'fs_rwth_month_status'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.rwth_month_status(float8[], float8[], integer, text, float8, float8) IS
'RWTH quota status of month m from the allowances and consumption of the period''s months, under the rule window (A(m−1) + A(m) + A(m+1) − C(m−1) − C(m)) or three_months (every three consecutive months within their allowances): the columns of rwth_quota_status.';

-- The instants the calendar months of a period begin in a time zone, and
-- the end of the last month: n + 1 instants for a period touching n months,
-- each (first of the month)::timestamp AT TIME ZONE timezone (rwth.c).
-- Internal to rwth_monthly_usage_at.
CREATE FUNCTION @extschema@_internal._rwth_month_starts(period_start date, period_end date, timezone text)
RETURNS timestamptz[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_starts'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._rwth_month_starts(date, date, text) IS
'RWTH (internal): the instants the months of a period begin in a time zone, and the end of the last.';

-- The core-hours of a project's jobs per month, in one pass over the jobs
-- (rwth.c).  The group's constants come first: bounds, the n + 1 instants
-- b[1] <= ... <= b[n + 1] that cut the months, month k being [b[k],
-- b[k + 1]); the window [since, until) in which jobs count; the cluster's
-- partitions with their whole_node and cores_per_node (three arrays of one
-- length) and its gpu_hour_factor.  Then the job's columns.  Month k gets
-- core_hours (billing.sql) of the piece [greatest(started, since, b[k]),
-- least(ended, until, b[k + 1])), the job joined to its partition (a job
-- without an end runs to until).  The result is float8[n], the pieces of
-- each month added in the order of the rows, as sum() adds them; NULL when
-- no row has a piece (cpus or started NULL, or a partition not in the
-- arrays: none).  The reports take their months from _rwth_usage
-- instead, which reads the rollups where they hold the hours; this
-- aggregate cuts runs at month boundaries in one pass for a caller that
-- reads the runs alone.
CREATE FUNCTION @extschema@_internal._rwth_month_hours_accum(float8[], timestamptz[], timestamptz, timestamptz,
                                                    text[], boolean[], integer[], float8,
                                                    text, integer, timestamptz, timestamptz, boolean,
                                                    integer, integer)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_hours_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
-- Two partial states of a group added month by month: parallel query and
-- Citus's workers split the aggregate with it (rwth.c).
CREATE FUNCTION @extschema@_internal._rwth_month_hours_combine(float8[], float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_hours_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@_internal._rwth_month_hours(bounds timestamptz[], since timestamptz, until timestamptz,
                                               partitions text[], whole_node boolean[],
                                               cores_per_node integer[], gpu_hour_factor float8,
                                               partition text, cpus integer, started timestamptz,
                                               ended timestamptz, exclusive boolean, nodes integer,
                                               gpus integer) (
    SFUNC = @extschema@_internal._rwth_month_hours_accum, STYPE = float8[],
    COMBINEFUNC = @extschema@_internal._rwth_month_hours_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@_internal._rwth_month_hours(timestamptz[], timestamptz, timestamptz, text[], boolean[], integer[], float8, text, integer, timestamptz, timestamptz, boolean, integer, integer) IS
'RWTH (internal): core_hours of the jobs between since and until, cut at bounds[1..n+1] and summed per month: float8[n].';

-- Running totals of the months' hours (rwth.c): element k the sum of
-- hours[1..k] (a NULL array or element counting 0), added as sum() OVER
-- (ORDER BY month) adds them.  Internal to r_wlm_usage_at.
CREATE FUNCTION @extschema@_internal._rwth_running_hours(hours float8[], months integer)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_running_hours'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._rwth_running_hours(float8[], integer) IS
'RWTH (internal): running totals of the hours of the months 1..months (NULL counts 0).';

-- Every RWTH project (allocation with policy 'rwth') whose period has begun
-- by as_of, one row each, in the order of the reports: starts[k] the
-- instant its month k begins in the cluster's time zone (k = 1 .. months
-- + 1, the last the end of the period's last month), first_month the first
-- of the month the period starts in, the allowance of every month (the
-- monthly_allowance, or the net hours spread evenly over the months), and
-- hours[k] the core-hours its jobs used in month k within the period and up
-- to as_of (NULL when none), running[k] those of months 1 .. k.  The two
-- reports below are this, a row per month; in SQL so that it is inlined
-- into them: the planner sees the order (no sort of the months), and leaves
-- out what a report does not use.
--
-- Each project's months are read from the rollups for the
-- whole hours they hold, from the runs for the rest, in exact
-- core-microseconds divided once per month
-- (docs/regulation.md#consumption-from-the-rollups), so the time does not
-- grow with the history.
CREATE FUNCTION @extschema@_internal._rwth_usage(as_of timestamptz)
RETURNS TABLE (cluster text, account text, allocation_id bigint, period_start date, period_end date,
               months integer, first_month date, starts timestamptz[], allowance float8, hours float8[],
               running float8[])
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH al AS (
        -- the project, with [t0, t1) its period up to as_of (a CTE read
        -- twice: computed once per project)
        SELECT a.allocation_id, a.cluster, a.account, a.period_start, a.period_end,
               s.starts,
               pg_catalog.cardinality(s.starts) OPERATOR(pg_catalog.-) 1 AS n,
               pg_catalog.date_trunc('month', a.period_start::timestamp)::date AS first_month,
               pg_catalog.timezone(c.timezone, a.period_start::timestamp) AS t0,
               LEAST(pg_catalog.timezone(c.timezone, (a.period_end OPERATOR(pg_catalog.+) 1)::timestamp),
                     _rwth_usage.as_of) AS t1,
               COALESCE(a.monthly_allowance,
                        @extschema@.allocation_net_hours(a.allocation_id,
                                                         pg_catalog.timezone(c.timezone, _rwth_usage.as_of)::date)
                        OPERATOR(pg_catalog./) (pg_catalog.cardinality(s.starts) OPERATOR(pg_catalog.-) 1)) AS allowance
          FROM @extschema@.allocations a
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
         CROSS JOIN LATERAL @extschema@_internal._rwth_month_starts(a.period_start, a.period_end, c.timezone) s(starts)
         WHERE a.policy OPERATOR(pg_catalog.=) 'rwth'
           AND pg_catalog.timezone(c.timezone, a.period_start::timestamp) OPERATOR(pg_catalog.<=) _rwth_usage.as_of
    ), w AS (
        -- the whole hours of its period the core rollups answer exactly
        -- (_core_rolled: rolled, not stale, or final)
        SELECT al.allocation_id, al.cluster, al.account, al.starts, al.t0, al.t1,
               @extschema@_internal._core_rolled(al.cluster, al.t0, al.t1, al.starts) AS rolled
          FROM al
    ), rolled AS MATERIALIZED (
        -- core-microseconds by project and month k: the rollups' rows for
        -- those hours
        SELECT w.allocation_id, x.k, x.core_us
          FROM w CROSS JOIN LATERAL @extschema@_internal._core_rollup_rows(w.cluster, w.account, w.rolled, w.starts) x
         WHERE NOT pg_catalog.isempty(w.rolled)
    ), runs AS MATERIALIZED (
        -- and the runs for the rest of the period (never rolled, stale,
        -- part of an hour at a local midnight, the hour in progress), each
        -- run's piece billed as core_hours bills it and cut at the months
        -- it spans, summed by project and month (on Citus, on the workers).
        -- Apart from the rollups' part, and a join rather than a subquery
        -- per project, so that Citus can plan each
        -- (docs/citus.md#what-citus-does-not-do-and-what-is-done-instead)
        SELECT g.allocation_id, x.k, pg_catalog.sum(x.core_us) AS core_us
          FROM (SELECT w.allocation_id, w.cluster, w.account, w.starts,
                       pg_catalog.lower(r.r) AS lo, pg_catalog.upper(r.r) AS hi
                  FROM w CROSS JOIN LATERAL
                       pg_catalog.unnest(pg_catalog.tstzmultirange(pg_catalog.tstzrange(w.t0, w.t1))
                                         OPERATOR(pg_catalog.-) w.rolled) r(r)) g
          JOIN @extschema@.jobs j
            ON j.cluster OPERATOR(pg_catalog.=) g.cluster AND j.account OPERATOR(pg_catalog.=) g.account
           AND j.start_time IS NOT NULL AND j.start_time OPERATOR(pg_catalog.<) g.hi
           AND COALESCE(j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) g.lo
          JOIN @extschema@_internal._partitions_scenario() p
            ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
          JOIN @extschema@_internal._clusters_scenario() c ON c.cluster OPERATOR(pg_catalog.=) j.cluster
         CROSS JOIN LATERAL @extschema@_internal._core_cut(
                @extschema@_internal._core_billed(j.cpus, j.exclusive OR p.whole_node, j.nodes, p.cores_per_node,
                                                  j.gpus, c.gpu_hour_factor),
                GREATEST(j.start_time, g.lo), LEAST(COALESCE(j.end_time, 'infinity'::timestamptz), g.hi), g.starts) x
         GROUP BY g.allocation_id, x.k
    ), u AS (
        -- the core-hours of each month, the exact sum divided once
        SELECT m.allocation_id,
               pg_catalog.array_agg((pg_catalog.round(COALESCE(m.us, 0), 40)
                                     OPERATOR(pg_catalog./) 3600000000)::float8 ORDER BY m.k) AS h
          FROM (SELECT al.allocation_id, g.k, s.us
                  FROM al CROSS JOIN LATERAL pg_catalog.generate_series(1, al.n) g(k)
                  LEFT JOIN (SELECT pc.allocation_id, pc.k, pg_catalog.sum(pc.core_us) AS us
                               FROM (SELECT * FROM rolled UNION ALL SELECT * FROM runs) pc
                              GROUP BY pc.allocation_id, pc.k) s
                    ON s.allocation_id OPERATOR(pg_catalog.=) al.allocation_id AND s.k OPERATOR(pg_catalog.=) g.k) m
         GROUP BY m.allocation_id
        HAVING pg_catalog.count(m.us) OPERATOR(pg_catalog.>) 0
    )
    SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end, al.n,
           al.first_month, al.starts, al.allowance, u.h, @extschema@_internal._rwth_running_hours(u.h, al.n)
      FROM al
      LEFT JOIN u ON u.allocation_id OPERATOR(pg_catalog.=) al.allocation_id
     ORDER BY al.cluster, al.account, al.period_start;
END;
COMMENT ON FUNCTION @extschema@_internal._rwth_usage(timestamptz) IS
'RWTH (internal): every project begun by as_of with its month starts, allowance and core-hours per month.';

-- Monthly consumption of every RWTH project (allocations with policy
-- 'rwth') as of an instant: one row per calendar month of the accounting
-- period that has begun by as_of, in the cluster's time zone.  The
-- allowance of each month is the allocation's monthly_allowance, or its
-- net hours spread evenly over the months; the first and the last month get
-- the whole allowance even when the period starts or ends inside them.
-- Consumption is core-hours (core_hours: exclusive jobs and whole-node
-- partitions pay every core of their nodes; GPU-hours with the cluster's
-- gpu_hour_factor) of the account's jobs within the period and up to as_of;
-- a job spanning a month boundary is split between the months by time.
CREATE FUNCTION @extschema@.rwth_monthly_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, allocation_id bigint, period_start date, period_end date,
               month date, month_no integer, months integer, allowance float8, consumed float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
    IF $1 IS NULL THEN
        RAISE EXCEPTION 'rwth_monthly_usage_at: as_of must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass the instant the usage is for, e.g. now().';
    ELSIF NOT isfinite($1) THEN
        RAISE EXCEPTION 'rwth_monthly_usage_at: as_of must be a finite instant, not %', $1
            USING ERRCODE = '22008', HINT = 'Pass the instant the usage is for, e.g. now().';
    END IF;
    RETURN QUERY
    SELECT u.cluster, u.account, u.allocation_id, u.period_start, u.period_end,
           (u.first_month + make_interval(months => g.i))::date, g.i + 1, u.months, u.allowance,
           coalesce(u.hours[g.i + 1], 0)
      FROM @extschema@_internal._rwth_usage($1) u
     CROSS JOIN LATERAL generate_series(0, u.months - 1) g(i)
     WHERE u.starts[g.i + 1] <= $1
     ORDER BY u.cluster, u.account, u.period_start, g.i;
END
$$;
COMMENT ON FUNCTION @extschema@.rwth_monthly_usage_at(timestamptz) IS
'RWTH: allowance and core-hours consumed per project and calendar month (cluster time zone) of its period, for the months begun by as_of; jobs split at month boundaries.';

CREATE VIEW @extschema@.rwth_monthly_usage AS
SELECT * FROM @extschema@.rwth_monthly_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.rwth_monthly_usage IS 'rwth_monthly_usage_at(now()).';

-- What `r_wlm_usage -p <project> -q` prints, for every RWTH project and
-- every month of its period begun by as_of (the state at the end of that
-- month, or at as_of for the current one):
--   Group                             → project
--   Start / End of Accounting Period  → period_start, period_end
--   State of project                  → state ('active Quota', 'low priority', 'blocked')
--   monthly (core-h)                  → monthly
--   Remaining core-h of prev. month   → remaining_prev
--   Consumed core-h act. month        → consumed
--   Consumable core-h (%)             → consumable_pct (balance %, shown −101 below −100)
--   Consumable core-h                 → consumable (the available quota)
-- plus the unclamped balance_pct, available_pct, the totals and the flags.
CREATE FUNCTION @extschema@.r_wlm_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, project text, allocation_id bigint, month date,
               period_start date, period_end date, state text, monthly float8,
               remaining_prev float8, consumed float8, consumable_pct float8, consumable float8,
               balance_pct float8, available_pct float8, consumed_total float8,
               allowance_total float8, low_priority boolean, blocked boolean)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
    IF $1 IS NULL THEN
        RAISE EXCEPTION 'r_wlm_usage_at: as_of must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass the instant the report is for, e.g. now().';
    ELSIF NOT isfinite($1) THEN
        RAISE EXCEPTION 'r_wlm_usage_at: as_of must be a finite instant, not %', $1
            USING ERRCODE = '22008', HINT = 'Pass the instant the report is for, e.g. now().';
    END IF;
    RETURN QUERY
    -- the months of rwth_monthly_usage_at, with the running total of the
    -- period, each month's quota under the cluster's rule as of as_of (its
    -- settings history and the scenario's override: _clusters_at)
    SELECT u.cluster, u.account, u.allocation_id, m.month, u.period_start, u.period_end,
           CASE WHEN q.blocked THEN 'blocked' WHEN q.low_priority THEN 'low priority' ELSE 'active Quota' END,
           u.allowance, q.remaining_prev, m.consumed, q.balance_pct_display, q.available,
           q.balance_pct, q.available_pct, m.running, u.allowance * u.months, q.low_priority, q.blocked
      FROM @extschema@_internal._rwth_usage($1) u
      JOIN (SELECT k.cluster, k.rwth_rule FROM @extschema@_internal._clusters_at($1) k) k
        ON k.cluster = u.cluster
     CROSS JOIN LATERAL (
            -- the period's allowances and consumption, once per project
            SELECT array_fill(u.allowance, ARRAY[u.months]) AS allowances,
                   coalesce(u.hours, array_fill(0::float8, ARRAY[u.months])) AS hours
            OFFSET 0
           ) p
     CROSS JOIN LATERAL generate_series(0, u.months - 1) g(i)
     CROSS JOIN LATERAL (
            SELECT (u.first_month + make_interval(months => g.i))::date AS month,
                   coalesce(u.hours[g.i + 1], 0) AS consumed,
                   u.running[g.i + 1] AS running
           ) m
     CROSS JOIN LATERAL @extschema@.rwth_month_status(
               p.allowances, p.hours, g.i + 1, k.rwth_rule,
               u.allowance * u.months, m.running) q
     WHERE u.starts[g.i + 1] <= $1
     ORDER BY u.cluster, u.account, m.month;
END
$$;
COMMENT ON FUNCTION @extschema@.r_wlm_usage_at(timestamptz) IS
'RWTH r_wlm_usage -q for every project and month begun by as_of: monthly, remaining of prev. month, consumed, consumable % (clamped at −101) and core-h, state, low priority, blocked.';

CREATE VIEW @extschema@.r_wlm_usage AS
SELECT * FROM @extschema@.r_wlm_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.r_wlm_usage IS 'r_wlm_usage_at(now()).';
