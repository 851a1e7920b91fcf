-- ---------------------------------------------------------------------------
-- rwth: RWTH Aachen (CLAIX) three-month sliding-window core-hour quota
-- (POLICIES.md §6; the reading of the "Resource Quotas" page is fixed in
-- policies-research.md B).
--
-- Pure functions (the available quota, the quota status), then the monthly
-- consumption of every project from the job table and `r_wlm_usage`, the
-- view that prints what `r_wlm_usage -q` prints, for every project and
-- month.  Months are calendar months in the cluster's time zone; a month
-- outside the accounting period counts 0 (passed as NULL).
-- ---------------------------------------------------------------------------

-- Argument checks shared by the RWTH functions: the current month's
-- allowance and consumption are required; a previous month inside the
-- period needs its consumption; every number given is finite and >= 0.
CREATE FUNCTION @extschema@._rwth_check(fn text, allowance_prev float8, allowance_cur float8,
                                        allowance_next float8, consumed_prev float8, consumed_cur float8)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    names text[] := ARRAY['allowance_prev', 'allowance_cur', 'allowance_next', 'consumed_prev', 'consumed_cur'];
    vals float8[] := ARRAY[allowance_prev, allowance_cur, allowance_next, consumed_prev, consumed_cur];
BEGIN
    FOR i IN 1..5 LOOP
        IF vals[i] IS NOT NULL AND NOT (vals[i] >= 0 AND vals[i] < 'Infinity') THEN
            RAISE EXCEPTION '%: % must be a finite number of core-hours >= 0, not %', fn, names[i], vals[i]
                USING ERRCODE = '22023', HINT = 'Allowances and consumption are core-hours; NULL marks a month outside the period.';
        END IF;
    END LOOP;
    IF allowance_cur IS NULL OR consumed_cur IS NULL THEN
        RAISE EXCEPTION '%: the current month''s allowance and consumption must not be NULL', fn
            USING ERRCODE = '22004', HINT = 'Only the previous and the next month may be NULL (outside the accounting period).';
    END IF;
    IF allowance_prev IS NOT NULL AND consumed_prev IS NULL THEN
        RAISE EXCEPTION '%: consumed_prev is NULL but the previous month lies in the period (allowance_prev %)', fn, allowance_prev
            USING ERRCODE = '22004', HINT = 'Pass 0 for a month without jobs, or NULL allowance_prev for a month outside the period.';
    END IF;
END
$$;

-- available(m) = A(m−1) + A(m) + A(m+1) − C(m−1) − C(m); a NULL previous or
-- next allowance means that month lies outside the accounting period and
-- counts 0 (no transfer into the first month, no borrowing in the last);
-- consumed_prev is then ignored.
CREATE FUNCTION @extschema@.rwth_available_quota(allowance_prev float8, allowance_cur float8,
                                                 allowance_next float8, consumed_prev float8,
                                                 consumed_cur float8)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM @extschema@._rwth_check('rwth_available_quota', allowance_prev, allowance_cur,
                                    allowance_next, consumed_prev, consumed_cur);
    RETURN coalesce(allowance_prev, 0) + allowance_cur + coalesce(allowance_next, 0)
           - CASE WHEN allowance_prev IS NULL THEN 0 ELSE consumed_prev END
           - consumed_cur;
END
$$;
COMMENT ON FUNCTION @extschema@.rwth_available_quota(float8, float8, float8, float8, float8) IS
'RWTH: core-hours usable in month m: A(m−1) + A(m) + A(m+1) − C(m−1) − C(m); NULL previous/next allowance = month outside the period = 0.';

-- The quota status of month m (POLICIES.md §6):
--   remaining_prev = A(m−1) − C(m−1) (0 outside the period),
--   balance = remaining_prev + A(m) − C(m), balance_pct = 100 × balance / A(m)
--   (the page's "Consumable core-h (%)": 1000 a month, 800 used last month
--   → 120), balance_pct_display the same with values below −100 shown as
--   −101 (what r_wlm_usage prints), available = rwth_available_quota (the
--   page's "Consumable core-h", 2200), available_pct = 100 × available / A(m);
--   low_priority when available <= 0; blocked when C(m) > 6 × A(m) or, the
--   totals given, consumed_total > 2 × allowance_total (both strict).
-- Percentages are NULL for a zero allowance.
CREATE FUNCTION @extschema@.rwth_quota_status(
    allowance_prev float8, allowance_cur float8, allowance_next float8,
    consumed_prev float8, consumed_cur float8,
    allowance_total float8 DEFAULT NULL, consumed_total float8 DEFAULT NULL,
    OUT available float8, OUT remaining_prev float8, OUT balance float8,
    OUT balance_pct float8, OUT balance_pct_display float8, OUT available_pct float8,
    OUT low_priority boolean, OUT blocked boolean)
LANGUAGE plpgsql IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    available := @extschema@.rwth_available_quota(allowance_prev, allowance_cur, allowance_next,
                                                  consumed_prev, consumed_cur);
    IF allowance_total IS NOT NULL AND NOT (allowance_total >= 0 AND allowance_total < 'Infinity')
       OR consumed_total IS NOT NULL AND NOT (consumed_total >= 0 AND consumed_total < 'Infinity') THEN
        RAISE EXCEPTION 'rwth_quota_status: totals must be finite numbers of core-hours >= 0 (allowance_total %, consumed_total %)',
                        allowance_total, consumed_total
            USING ERRCODE = '22023', HINT = 'NULL totals skip the "total quota exceeded twice" test.';
    END IF;
    remaining_prev := CASE WHEN allowance_prev IS NULL THEN 0 ELSE allowance_prev - consumed_prev END;
    balance := remaining_prev + allowance_cur - consumed_cur;
    IF allowance_cur > 0 THEN
        balance_pct := 100 * balance / allowance_cur;
        balance_pct_display := CASE WHEN balance_pct < -100 THEN -101 ELSE balance_pct END;
        available_pct := 100 * available / allowance_cur;
    END IF;
    low_priority := available <= 0;
    blocked := consumed_cur > 6 * allowance_cur
               OR coalesce(consumed_total > 2 * allowance_total, false);
END
$$;
COMMENT ON FUNCTION @extschema@.rwth_quota_status(float8, float8, float8, float8, float8, float8, float8) IS
'RWTH quota status of a month: available, remaining of the previous month, balance (hours, %, % as displayed, clamped at −101), available %, low priority (available <= 0), blocked (C(m) > 6·A(m) or total > 2·total allowance).';

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
    WITH al AS (
        -- each project, with bounds[k] the instant month k of its period
        -- begins (k = 1 .. n + 1, bounds[n + 1] the end of the last month)
        SELECT a.allocation_id, a.cluster, a.account, a.period_start, a.period_end, c.timezone AS tz,
               c.gpu_hour_factor, m.m0, m.n,
               coalesce(a.monthly_allowance,
                        @extschema@.allocation_net_hours(a.allocation_id, timezone(c.timezone, $1)::date)
                        / m.n) AS allowance,
               a.period_start::timestamp AT TIME ZONE c.timezone AS t0,
               least((a.period_end + 1)::timestamp AT TIME ZONE c.timezone, $1) AS t1,
               ARRAY(SELECT (m.m0 + make_interval(months => i)) AT TIME ZONE c.timezone
                       FROM generate_series(0, m.n) i ORDER BY i) AS bounds
          FROM @extschema@.allocations a
          JOIN @extschema@.clusters c ON c.cluster = a.cluster
         CROSS JOIN LATERAL (
                SELECT date_trunc('month', a.period_start::timestamp) AS m0,
                       ((extract(year FROM a.period_end) - extract(year FROM a.period_start)) * 12
                         + extract(month FROM a.period_end) - extract(month FROM a.period_start))::integer + 1 AS n
               ) m
         WHERE a.policy = 'rwth'
           AND a.period_start::timestamp AT TIME ZONE c.timezone <= $1
    ), pieces AS (
        -- every job of the project cut at the month boundaries, the period
        -- and as_of: months k from the one it starts in to the one it ends
        -- in, found by binary search in bounds (time zone conversions per
        -- job, and generate_series in FROM, cost more than all the rest)
        SELECT mo.allocation_id, mo.k,
               @extschema@.core_hours(mo.cpus, pc.ws, pc.we, mo.exclusive OR p.whole_node, mo.nodes,
                                      p.cores_per_node, mo.gpus, mo.gpu_hour_factor) AS h
          FROM (SELECT al.allocation_id, al.bounds, al.t0, al.t1, al.gpu_hour_factor,
                       j.cluster, j.partition, j.start_time, j.end_time, j.cpus, j.exclusive, j.nodes, j.gpus,
                       generate_series(width_bucket(greatest(j.start_time, al.t0), al.bounds),
                                       width_bucket(least(coalesce(j.end_time, al.t1), al.t1), al.bounds)) AS k
                  FROM al
                  JOIN @extschema@.jobs j
                    ON j.cluster = al.cluster AND j.account = al.account
                   AND j.start_time IS NOT NULL AND j.start_time < al.t1
                   AND (j.end_time IS NULL OR j.end_time > al.t0)) mo
          JOIN @extschema@.partitions p ON p.cluster = mo.cluster AND p.partition = mo.partition
         CROSS JOIN LATERAL (
                SELECT greatest(mo.start_time, mo.t0, mo.bounds[mo.k]) AS ws,
                       least(coalesce(mo.end_time, mo.t1), mo.t1, mo.bounds[mo.k + 1]) AS we
               ) pc
         WHERE pc.ws < pc.we
    ), used AS (
        SELECT pieces.allocation_id, pieces.k, sum(pieces.h) AS h
          FROM pieces GROUP BY pieces.allocation_id, pieces.k
    )
    SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end,
           (al.m0 + make_interval(months => g.i))::date, g.i + 1, al.n, al.allowance,
           coalesce(u.h, 0)
      FROM al
     CROSS JOIN LATERAL generate_series(0, al.n - 1) g(i)
      LEFT JOIN used u ON u.allocation_id = al.allocation_id AND u.k = g.i + 1
     WHERE al.bounds[g.i + 1] <= $1
     ORDER BY al.cluster, al.account, al.period_start, g.i;
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
    WITH m AS (
        SELECT u.*,
               lag(u.consumed) OVER w AS consumed_prev,
               sum(u.consumed) OVER w AS running
          FROM @extschema@.rwth_monthly_usage_at($1) u
        WINDOW w AS (PARTITION BY u.allocation_id ORDER BY u.month ROWS UNBOUNDED PRECEDING)
    )
    SELECT m.cluster, m.account, m.allocation_id, m.month, m.period_start, m.period_end,
           CASE WHEN q.blocked THEN 'blocked' WHEN q.low_priority THEN 'low priority' ELSE 'active Quota' END,
           m.allowance, q.remaining_prev, m.consumed, q.balance_pct_display, q.available,
           q.balance_pct, q.available_pct, m.running, m.allowance * m.months, q.low_priority, q.blocked
      FROM m
     CROSS JOIN LATERAL @extschema@.rwth_quota_status(
               CASE WHEN m.month_no > 1 THEN m.allowance END,
               m.allowance,
               CASE WHEN m.month_no < m.months THEN m.allowance END,
               m.consumed_prev, m.consumed,
               m.allowance * m.months, m.running) q
     ORDER BY m.cluster, m.account, m.month;
END
$$;
COMMENT ON FUNCTION @extschema@.r_wlm_usage_at(timestamptz) IS
'RWTH r_wlm_usage -q for every project and month begun by as_of: monthly, remaining of prev. month, consumed, consumable % (clamped at −101) and core-h, state, low priority, blocked.';

CREATE VIEW @extschema@.r_wlm_usage AS
SELECT * FROM @extschema@.r_wlm_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.r_wlm_usage IS 'r_wlm_usage_at(now()).';
