-- fairshare 1.0 → 1.1 (ALTER EXTENSION fairshare UPDATE TO '1.1').
--
-- The released 1.0 script (extension/fairshare--1.0.sql) is never edited:
-- every change since ships here, and test/upgrade.sh checks that a 1.0
-- database updated by this script has the same objects (pg_dump
-- --binary-upgrade of the extension's members) and gives the same reports
-- as a fresh 1.1 install built from the SQL pieces.

\echo Use "ALTER EXTENSION fairshare UPDATE TO '1.1'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- rwth: r_wlm_usage over 10^4 projects × 24 months (issue 7).  The monthly
-- split of the jobs (and their partitions' node shape) moves into an
-- aggregate in C (_rwth_month_hours), the month starts and the running
-- totals into C helpers, the quota arithmetic (rwth_available_quota,
-- rwth_quota_status) from PL/pgSQL into C, and the two reports share one
-- SQL function (_rwth_usage) that the planner inlines.  Same results to the
-- last bit; _rwth_check is no longer needed.
-- ---------------------------------------------------------------------------
DROP FUNCTION @extschema@._rwth_check(text, float8, float8, float8, float8, float8);

CREATE OR REPLACE FUNCTION @extschema@.rwth_available_quota(allowance_prev float8, allowance_cur float8,
                                                 allowance_next float8, consumed_prev float8,
                                                 consumed_cur float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_rwth_available_quota'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.rwth_available_quota(float8, float8, float8, float8, float8) IS
'RWTH: core-hours usable in month m: A(m−1) + A(m) + A(m+1) − C(m−1) − C(m); NULL previous/next allowance = month outside the period = 0.';

CREATE OR REPLACE FUNCTION @extschema@.rwth_quota_status(
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

CREATE FUNCTION @extschema@._rwth_month_starts(period_start date, period_end date, timezone text)
RETURNS timestamptz[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_starts'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._rwth_month_starts(date, date, text) IS
'RWTH (internal): the instants the months of a period begin in a time zone, and the end of the last.';
REVOKE ALL ON FUNCTION @extschema@._rwth_month_starts(date, date, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._rwth_month_starts(date, date, text) TO fairshare_admin, fairshare_reader, fairshare_user;

CREATE FUNCTION @extschema@._rwth_month_hours_accum(float8[], timestamptz[], timestamptz, timestamptz,
                                                    text[], boolean[], integer[], float8,
                                                    text, integer, timestamptz, timestamptz, boolean,
                                                    integer, integer)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_hours_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@._rwth_month_hours(bounds timestamptz[], since timestamptz, until timestamptz,
                                               partitions text[], whole_node boolean[],
                                               cores_per_node integer[], gpu_hour_factor float8,
                                               partition text, cpus integer, started timestamptz,
                                               ended timestamptz, exclusive boolean, nodes integer,
                                               gpus integer) (
    SFUNC = @extschema@._rwth_month_hours_accum, STYPE = float8[], PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@._rwth_month_hours(timestamptz[], timestamptz, timestamptz, text[], boolean[], integer[], float8, text, integer, timestamptz, timestamptz, boolean, integer, integer) IS
'RWTH (internal): core_hours of the jobs between since and until, cut at bounds[1..n+1] and summed per month: float8[n].';
REVOKE ALL ON FUNCTION @extschema@._rwth_month_hours_accum(float8[], timestamptz[], timestamptz, timestamptz, text[], boolean[], integer[], float8, text, integer, timestamptz, timestamptz, boolean, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._rwth_month_hours_accum(float8[], timestamptz[], timestamptz, timestamptz, text[], boolean[], integer[], float8, text, integer, timestamptz, timestamptz, boolean, integer, integer) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON FUNCTION @extschema@._rwth_month_hours(timestamptz[], timestamptz, timestamptz, text[], boolean[], integer[], float8, text, integer, timestamptz, timestamptz, boolean, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._rwth_month_hours(timestamptz[], timestamptz, timestamptz, text[], boolean[], integer[], float8, text, integer, timestamptz, timestamptz, boolean, integer, integer) TO fairshare_admin, fairshare_reader, fairshare_user;

CREATE FUNCTION @extschema@._rwth_running_hours(hours float8[], months integer)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_running_hours'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._rwth_running_hours(float8[], integer) IS
'RWTH (internal): running totals of the hours of the months 1..months (NULL counts 0).';
REVOKE ALL ON FUNCTION @extschema@._rwth_running_hours(float8[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._rwth_running_hours(float8[], integer) TO fairshare_admin, fairshare_reader, fairshare_user;

CREATE FUNCTION @extschema@._rwth_usage(as_of timestamptz)
RETURNS TABLE (cluster text, account text, allocation_id bigint, period_start date, period_end date,
               months integer, first_month date, starts timestamptz[], allowance float8, hours float8[],
               running float8[])
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end, al.n,
           al.first_month, al.starts, al.allowance, u.h, @extschema@._rwth_running_hours(u.h, al.n)
      FROM (
        -- the project, with [t0, t1) its period up to as_of (OFFSET 0:
        -- computed once per project, not once per reference)
        SELECT a.allocation_id, a.cluster, a.account, a.period_start, a.period_end,
               c.gpu_hour_factor, pt.partitions, pt.whole_node, pt.cores_per_node, s.starts,
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
          -- the cluster's partitions, for the jobs' whole nodes
          LEFT JOIN (SELECT p.cluster,
                            pg_catalog.array_agg(p.partition ORDER BY p.partition) AS partitions,
                            pg_catalog.array_agg(p.whole_node ORDER BY p.partition) AS whole_node,
                            pg_catalog.array_agg(p.cores_per_node ORDER BY p.partition) AS cores_per_node
                       FROM @extschema@.partitions p GROUP BY p.cluster) pt
            ON pt.cluster OPERATOR(pg_catalog.=) a.cluster
         CROSS JOIN LATERAL @extschema@._rwth_month_starts(a.period_start, a.period_end, c.timezone) s(starts)
         WHERE a.policy OPERATOR(pg_catalog.=) 'rwth'
           AND pg_catalog.timezone(c.timezone, a.period_start::timestamp) OPERATOR(pg_catalog.<=) _rwth_usage.as_of
        OFFSET 0) al
     -- its jobs in the period, each cut at the month boundaries by one
     -- aggregate, read in the order of the index on (account, cluster,
     -- start_time): an index-only scan
     CROSS JOIN LATERAL (
        SELECT @extschema@._rwth_month_hours(al.starts, al.t0, al.t1, al.partitions, al.whole_node,
                                             al.cores_per_node, al.gpu_hour_factor, j.partition, j.cpus,
                                             j.start_time, j.end_time, j.exclusive, j.nodes, j.gpus) AS h
          FROM @extschema@.jobs j
         WHERE j.cluster OPERATOR(pg_catalog.=) al.cluster AND j.account OPERATOR(pg_catalog.=) al.account
           AND j.start_time IS NOT NULL AND j.start_time OPERATOR(pg_catalog.<) al.t1
           AND (j.end_time IS NULL OR j.end_time OPERATOR(pg_catalog.>) al.t0)
        ) u
     ORDER BY al.cluster, al.account, al.period_start;
END;
COMMENT ON FUNCTION @extschema@._rwth_usage(timestamptz) IS
'RWTH (internal): every project begun by as_of with its month starts, allowance and core-hours per month.';
REVOKE ALL ON FUNCTION @extschema@._rwth_usage(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._rwth_usage(timestamptz) TO fairshare_admin, fairshare_reader;

CREATE OR REPLACE FUNCTION @extschema@.rwth_monthly_usage_at(as_of timestamptz)
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
      FROM @extschema@._rwth_usage($1) u
     CROSS JOIN LATERAL generate_series(0, u.months - 1) g(i)
     WHERE u.starts[g.i + 1] <= $1
     ORDER BY u.cluster, u.account, u.period_start, g.i;
END
$$;

CREATE OR REPLACE FUNCTION @extschema@.r_wlm_usage_at(as_of timestamptz)
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
    -- the months of rwth_monthly_usage_at, with the previous month's
    -- consumption and the running total of the period
    SELECT u.cluster, u.account, u.allocation_id, m.month, u.period_start, u.period_end,
           CASE WHEN q.blocked THEN 'blocked' WHEN q.low_priority THEN 'low priority' ELSE 'active Quota' END,
           u.allowance, q.remaining_prev, m.consumed, q.balance_pct_display, q.available,
           q.balance_pct, q.available_pct, m.running, u.allowance * u.months, q.low_priority, q.blocked
      FROM @extschema@._rwth_usage($1) u
     CROSS JOIN LATERAL generate_series(0, u.months - 1) g(i)
     CROSS JOIN LATERAL (
            SELECT (u.first_month + make_interval(months => g.i))::date AS month,
                   coalesce(u.hours[g.i + 1], 0) AS consumed,
                   CASE WHEN g.i > 0 THEN coalesce(u.hours[g.i], 0) END AS consumed_prev,
                   u.running[g.i + 1] AS running
           ) m
     CROSS JOIN LATERAL @extschema@.rwth_quota_status(
               CASE WHEN g.i > 0 THEN u.allowance END,
               u.allowance,
               CASE WHEN g.i + 1 < u.months THEN u.allowance END,
               m.consumed_prev, m.consumed,
               u.allowance * u.months, m.running) q
     WHERE u.starts[g.i + 1] <= $1
     ORDER BY u.cluster, u.account, m.month;
END
$$;
