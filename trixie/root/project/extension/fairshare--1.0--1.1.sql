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
-- checkpoint
-- Usage checkpoints (issue 7): the tables, checkpoint_usage, the triggers
-- that invalidate a checkpoint, and association_usage_at starting from one
-- (usage_views.sql); sshare's tree reading the usage directly (sshare.sql);
-- sprio's own work (sprio.sql); their grants and row security, as the loop
-- of security.sql gives them in a fresh install.
-- ---------------------------------------------------------------------------
-- Usage checkpoints (issue 7; README "Usage checkpoints").  Summing every
-- job of the history at each call is bound by reading and billing the
-- whole jobs table (10^7 jobs: 7 s).  Slurm keeps each association's
-- decayed usage and, every PriorityCalcPeriod, decays it and adds what ran
-- since.  A checkpoint does the same without giving up time travel: the
-- decayed usage of every association of a cluster as of an instant T0,
-- computed from the jobs alone and stored; for any as_of >= T0
--
--   usage(as_of) = usage(T0) × decay(T0 → as_of)
--                + the span form of each job's part after T0,
--                  [max(start, T0), min(end or as_of, as_of)],
--                  over the jobs still running at T0 or started since
--
-- which is the sum over every job, exactly in real arithmetic, for each
-- decay of decay.c.  Each span form is the integral of a weight w(as_of − t)
-- over the span, and w(a + b) = w(a) × w(b): 2^(−x/h) ('exact'),
-- e^(−x·(−ln(1 − 0.693/h))) ('slurm'), f^(slots crossed) ('step', slots
-- counted from the epoch, so the slots crossed from t to as_of are those
-- from t to T0 plus those from T0 to as_of).  A span split at T0 therefore
-- adds up, and the part before T0 decays from T0 by w(as_of − T0), which is
-- the point form's weight of a unit charged at T0, computed by the same
-- aggregate.  In float8 the two computations differ by a few units in the
-- last place (sql/checkpoint.sql).
--
-- A checkpoint is used only while it is valid: the triggers below mark it
-- invalid when a change alters what it holds (a job's part before T0, a
-- partition's billing, a UsageFactor, the decay settings).  An as_of
-- before T0 (time travel to before the checkpoint), and a cluster without
-- a valid checkpoint, are computed from the jobs as before.
-- ---------------------------------------------------------------------------

CREATE TABLE @extschema@.usage_checkpoints (
    cluster              text PRIMARY KEY
                         REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    -- T0: the instant the stored usage is decayed to
    as_of                timestamptz NOT NULL CHECK (pg_catalog.isfinite(as_of)),
    created_at           timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- set by the triggers below: the checkpoint is ignored from then on,
    -- until checkpoint_usage replaces it
    invalidated_at       timestamptz,
    invalidated_by       text,
    CHECK ((invalidated_at IS NULL) OPERATOR(pg_catalog.=) (invalidated_by IS NULL))
);
COMMENT ON TABLE @extschema@.usage_checkpoints IS
'One usage checkpoint per cluster (checkpoint_usage): the instant its usage is decayed to, and when and why a later change invalidated it.';

CREATE TABLE @extschema@.usage_checkpoint_rows (
    cluster              text NOT NULL
                         REFERENCES @extschema@.usage_checkpoints ON UPDATE CASCADE ON DELETE CASCADE,
    account              text NOT NULL,
    user_name            text NOT NULL,
    -- the association's decayed usage as of T0, and its jobs then
    raw_usage            float8 NOT NULL
                         CHECK (raw_usage OPERATOR(pg_catalog.>=) 0 AND raw_usage OPERATOR(pg_catalog.<) 'Infinity'),
    jobs                 bigint NOT NULL CHECK (jobs OPERATOR(pg_catalog.>) 0),
    PRIMARY KEY (cluster, account, user_name)
);
COMMENT ON TABLE @extschema@.usage_checkpoint_rows IS
'The decayed usage (billing-seconds) and job count of every user association with jobs, as of its cluster''s checkpoint.';

-- The jobs still running at an instant or started after it: those whose
-- end (infinity while running) is after it.  A range scan of the few jobs
-- after a checkpoint instead of a scan of the table.
CREATE INDEX jobs_end_idx ON @extschema@.jobs ((COALESCE(end_time, 'infinity'::timestamptz)))
    WHERE start_time IS NOT NULL;

-- Decayed usage (billing-seconds) and jobs of every user association with
-- jobs, as of an instant, with its cluster's decay: of one cluster, or of
-- every cluster when only_cluster is NULL.  A job counts from its start; a
-- job still running at as_of counts up to as_of; a job that started after
-- as_of does not count (what was known then).
--
-- For association_usage_at (checkpointing false), a cluster with a valid
-- checkpoint at T0 <= as_of starts from it: the checkpoint's usage times
-- the weight at as_of of a unit charged at T0 (the aggregate's own point
-- form over one row, so the decay is counted exactly as decay.c counts
-- it), plus the jobs' parts after T0; the other clusters are read from the
-- jobs alone.  For checkpoint_usage (checkpointing true), every cluster is
-- read from the jobs alone: what it stores is what association_usage_at
-- gives without a checkpoint.
--
-- The jobs are aggregated first, per association, and the associations
-- joined after (association_usage_at): one scan of the job table
-- (parallel, hash-aggregated) instead of one index probe per association,
-- which reads a large table in random order (issue 7; README
-- "Performance").  PL/pgSQL plans each call with its values
-- (force_custom_plan): the checkpoints found decide which branches run (a
-- branch whose condition is false is dropped from the plan), and the
-- planner sees how few jobs end after the oldest checkpoint.
CREATE FUNCTION @extschema@._association_usage(as_of timestamptz, checkpointing boolean, only_cluster text)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    -- the clusters starting from a checkpoint, its instant T0 and the
    -- decay from T0 to as_of (same order); the oldest T0
    cp_clusters text[] := '{}';
    cp_times timestamptz[] := '{}';
    cp_decay float8[] := '{}';
    since timestamptz;
    -- the clusters whose every job is read (NULL: all of them)
    full_clusters text[];
    any_full boolean;
    any_cp boolean;
BEGIN
    PERFORM @extschema@._check_as_of(_association_usage.as_of);
    IF NOT _association_usage.checkpointing THEN
        SELECT COALESCE(array_agg(k.cluster ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(k.as_of ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(w.decay ORDER BY k.cluster), '{}'),
               min(k.as_of)
          INTO cp_clusters, cp_times, cp_decay, since
          FROM @extschema@.usage_checkpoints k
          JOIN @extschema@.clusters c ON c.cluster = k.cluster
         CROSS JOIN LATERAL (
               SELECT COALESCE(
                        @extschema@.decayed_usage(one.u, k.as_of, k.as_of, _association_usage.as_of, c.decay_half_life)
                          FILTER (WHERE c.decay_mode = 'exact'),
                        @extschema@.decayed_usage_slurm(one.u, k.as_of, k.as_of, _association_usage.as_of,
                                                        c.decay_half_life)
                          FILTER (WHERE c.decay_mode = 'slurm'),
                        @extschema@.decayed_usage_step(one.u, k.as_of, k.as_of, _association_usage.as_of,
                                                       c.decay_interval, c.decay_factor)
                          FILTER (WHERE c.decay_mode = 'step')) AS decay
                 FROM (VALUES (1::float8)) one (u)) w
         WHERE k.invalidated_at IS NULL AND k.as_of <= _association_usage.as_of
           AND (_association_usage.only_cluster IS NULL OR k.cluster = _association_usage.only_cluster);
    END IF;
    IF cardinality(cp_clusters) > 0 OR _association_usage.only_cluster IS NOT NULL THEN
        SELECT COALESCE(array_agg(c.cluster), '{}') INTO full_clusters
          FROM @extschema@.clusters c
         WHERE c.cluster <> ALL (cp_clusters)
           AND (_association_usage.only_cluster IS NULL OR c.cluster = _association_usage.only_cluster);
    END IF;
    any_full := full_clusters IS NULL OR cardinality(full_clusters) > 0;
    any_cp := cardinality(cp_clusters) > 0;

    -- One scan of the jobs, grouped by their own columns, so that the
    -- planner counts the associations with the jobs' statistics (a GROUP BY
    -- above a UNION ALL of two scans guessed 10^6 groups for 75,001 at 10^7
    -- jobs, and sorted them on disk).  from_cp: the job's cluster starts
    -- from a checkpoint at t0, and only its part after t0 is read.  The
    -- conditions on any_full and any_cp are constants of the custom plan:
    -- without a checkpoint the scan is the one of every job, with only
    -- checkpoints it is a range scan of jobs_end_idx.
    RETURN QUERY
    WITH spans AS (
        SELECT j.cluster, j.account, j.user_name, j.billing,
               j.decay_mode, j.decay_half_life, j.decay_interval, j.decay_factor,
               CASE WHEN j.from_cp THEN GREATEST(j.start_time, j.t0) ELSE j.start_time END AS s,
               CASE WHEN j.from_cp
                    THEN LEAST(COALESCE(j.end_time, _association_usage.as_of), _association_usage.as_of)
                    ELSE COALESCE(j.end_time, GREATEST(j.start_time, _association_usage.as_of)) END AS e,
               -- a job counts once: in the checkpoint if it started by t0
               CASE WHEN j.from_cp AND j.start_time <= j.t0 THEN 0 ELSE 1 END::bigint AS n
          FROM (SELECT b.cluster, b.account, b.user_name, b.start_time, b.end_time, b.billing,
                       c.decay_mode, c.decay_half_life, c.decay_interval, c.decay_factor,
                       any_cp AND b.cluster = ANY (cp_clusters) AS from_cp,
                       cp_times[array_position(cp_clusters, b.cluster)] AS t0
                  FROM @extschema@.job_billing b
                  JOIN @extschema@.clusters c ON c.cluster = b.cluster
                 WHERE b.start_time IS NOT NULL
                   AND b.start_time <= _association_usage.as_of
                   AND ((any_full AND (full_clusters IS NULL OR b.cluster = ANY (full_clusters)))
                        OR (any_cp AND b.cluster = ANY (cp_clusters)
                            AND COALESCE(b.end_time, 'infinity'::timestamptz) > since
                            AND COALESCE(b.end_time, 'infinity'::timestamptz)
                                > cp_times[array_position(cp_clusters, b.cluster)]))) j
    ), added AS (
        SELECT sp.cluster, sp.account, sp.user_name,
               COALESCE(
                 @extschema@.decayed_usage(sp.usage, sp.s, sp.e, _association_usage.as_of, sp.decay_half_life)
                   FILTER (WHERE sp.decay_mode = 'exact'),
                 @extschema@.decayed_usage_slurm(sp.usage, sp.s, sp.e, _association_usage.as_of, sp.decay_half_life)
                   FILTER (WHERE sp.decay_mode = 'slurm'),
                 @extschema@.decayed_usage_step(sp.usage, sp.s, sp.e, _association_usage.as_of, sp.decay_interval,
                                                sp.decay_factor)
                   FILTER (WHERE sp.decay_mode = 'step')) AS raw_usage,
               sum(sp.n) AS jobs
          FROM (SELECT x.*, x.billing * date_part('epoch', x.e - x.s) AS usage FROM spans x) sp
         GROUP BY sp.cluster, sp.account, sp.user_name
    ), kept AS (
        -- the checkpoints' usage, decayed from T0 to as_of
        SELECT r.cluster, r.account, r.user_name,
               r.raw_usage * cp_decay[array_position(cp_clusters, r.cluster)] AS raw_usage, r.jobs
          FROM @extschema@.usage_checkpoint_rows r
         WHERE any_cp AND r.cluster = ANY (cp_clusters)
    )
    SELECT COALESCE(a.cluster, k.cluster), COALESCE(a.account, k.account), COALESCE(a.user_name, k.user_name),
           COALESCE(k.raw_usage, 0) + COALESCE(a.raw_usage, 0),
           (COALESCE(k.jobs, 0) + COALESCE(a.jobs, 0))::bigint
      FROM added a
      FULL JOIN kept k ON k.cluster = a.cluster AND k.account = a.account AND k.user_name = a.user_name;
END
$$;
COMMENT ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) IS
'Decayed usage and jobs of every user association with jobs as of an instant (of one cluster, or every cluster for NULL): for association_usage_at (checkpointing false) from valid usage checkpoints where there are, for checkpoint_usage (true) from the jobs alone.';

-- Decayed usage (billing-seconds) of every user association as of an
-- instant, under its cluster's decay, from the cluster's usage checkpoint
-- when it has a valid one at or before as_of (the same numbers, see above).
CREATE OR REPLACE FUNCTION @extschema@.association_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT au.cluster, au.account, au.user_name,
           COALESCE(u.raw_usage, 0) AS raw_usage,
           COALESCE(u.jobs, 0) AS jobs
      FROM @extschema@.account_users au
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN @extschema@._association_usage(association_usage_at.as_of, false, NULL) u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name
     WHERE @extschema@._check_as_of(association_usage_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.association_usage_at(timestamptz) IS
'Decayed usage (billing-seconds) of every user association as of an instant, under its cluster''s decay.';

-- Make (or replace) the usage checkpoint of a cluster, or of every cluster
-- for NULL, as of an instant: association_usage_at(as_of) computed from
-- the jobs alone and stored.  Run it every few minutes (pg_cron, cron), as
-- Slurm recomputes usage every PriorityCalcPeriod: usage reports as of
-- any later instant then read the jobs since as_of only.
--
-- While it computes, it holds a SHARE lock on jobs, partitions, qos and
-- clusters: a change to them committed between the snapshot the checkpoint
-- is computed from and the checkpoint's own commit would find no
-- checkpoint to invalidate, so such writes wait (7 s at 10^7 jobs).  For
-- the same reason it runs under READ COMMITTED only: its statements take
-- their snapshots after the lock, when every earlier writer has committed.
CREATE PROCEDURE @extschema@.checkpoint_usage(cluster text DEFAULT NULL,
                                              as_of timestamptz DEFAULT pg_catalog.now())
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@._check_as_of(checkpoint_usage.as_of);
    IF checkpoint_usage.as_of > now() THEN
        RAISE EXCEPTION 'checkpoint_usage: as_of % is in the future', checkpoint_usage.as_of
            USING ERRCODE = '22023',
                  HINT = 'Every job that starts before a checkpoint invalidates it: make it as of now() or earlier.';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'checkpoint_usage: cannot run in a % transaction', current_setting('transaction_isolation')
            USING ERRCODE = '25000',
                  HINT = 'Call it under READ COMMITTED: it must see every job committed before it takes its lock.';
    END IF;
    IF checkpoint_usage.cluster IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster = checkpoint_usage.cluster) THEN
        RAISE EXCEPTION 'checkpoint_usage: cluster "%" does not exist', checkpoint_usage.cluster
            USING ERRCODE = '22023', HINT = 'Pass a cluster of fairshare.clusters, or NULL for every cluster.';
    END IF;
    LOCK TABLE @extschema@.clusters, @extschema@.partitions, @extschema@.qos, @extschema@.jobs IN SHARE MODE;
    DELETE FROM @extschema@.usage_checkpoints k
     WHERE checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster;
    INSERT INTO @extschema@.usage_checkpoints (cluster, as_of)
    SELECT c.cluster, checkpoint_usage.as_of
      FROM @extschema@.clusters c
     WHERE checkpoint_usage.cluster IS NULL OR c.cluster = checkpoint_usage.cluster;
    INSERT INTO @extschema@.usage_checkpoint_rows (cluster, account, user_name, raw_usage, jobs)
    SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs
      FROM @extschema@._association_usage(checkpoint_usage.as_of, true, checkpoint_usage.cluster) u;
END
$$;
COMMENT ON PROCEDURE @extschema@.checkpoint_usage(text, timestamptz) IS
'Store every association''s decayed usage as of an instant (default now()) for one cluster or all (NULL), so that usage, sshare and sprio as of later instants read only the jobs since; run it every few minutes, like Slurm''s PriorityCalcPeriod.';

-- Invalidation.  A checkpoint of cluster C at T0 holds the part before T0
-- of C's jobs that started at or before T0, billed and decayed with C's
-- settings.  A write to jobs that changes that part marks it invalid: a job
-- started at or before T0 inserted or deleted, or updated in its start, its
-- end as far as it falls before T0 (least(end, T0): a job running at T0
-- that ends later is the normal case and changes nothing), its TRES, CPUs,
-- partition, QOS, account, user or cluster (renames of accounts, users,
-- partitions and clusters cascade into jobs).  The trigger is per
-- statement, over the statement's rows: while no checkpoint is valid, a
-- write pays one lookup of usage_checkpoints.  A role that writes jobs
-- needs SELECT and UPDATE on usage_checkpoints (fairshare_admin has them).
CREATE FUNCTION @extschema@._jobs_invalidate_usage_checkpoints() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cp record;
    job text;
BEGIN
    FOR cp IN SELECT k.cluster, k.as_of FROM @extschema@.usage_checkpoints k
               WHERE k.invalidated_at IS NULL LOOP
        job := NULL;
        IF TG_OP = 'INSERT' THEN
            SELECT n.job_id INTO job FROM new_jobs n
             WHERE n.cluster = cp.cluster AND n.start_time <= cp.as_of LIMIT 1;
        ELSIF TG_OP = 'DELETE' THEN
            SELECT o.job_id INTO job FROM old_jobs o
             WHERE o.cluster = cp.cluster AND o.start_time <= cp.as_of LIMIT 1;
        ELSIF TG_OP = 'UPDATE' THEN
            -- old and new rows paired by key; a changed key leaves both unpaired
            SELECT COALESCE(o.job_id, n.job_id) INTO job
              FROM old_jobs o FULL JOIN new_jobs n ON n.cluster = o.cluster AND n.job_id = o.job_id
             WHERE CASE WHEN COALESCE(o.cluster = cp.cluster AND o.start_time <= cp.as_of, false)
                        THEN NOT COALESCE(n.cluster = cp.cluster AND n.start_time <= cp.as_of, false)
                             OR (o.account, o.user_name, o.partition, o.qos, o.tres, o.cpus, o.start_time,
                                 LEAST(COALESCE(o.end_time, 'infinity'::timestamptz), cp.as_of))
                                IS DISTINCT FROM
                                (n.account, n.user_name, n.partition, n.qos, n.tres, n.cpus, n.start_time,
                                 LEAST(COALESCE(n.end_time, 'infinity'::timestamptz), cp.as_of))
                        ELSE COALESCE(n.cluster = cp.cluster AND n.start_time <= cp.as_of, false) END
             LIMIT 1;
        ELSE
            job := '';      -- TRUNCATE
        END IF;
        IF job IS NOT NULL THEN
            UPDATE @extschema@.usage_checkpoints k
               SET invalidated_at = now(),
                   invalidated_by = CASE WHEN TG_OP = 'TRUNCATE' THEN 'TRUNCATE jobs'
                                         ELSE format('%s on jobs: job %s, started before the checkpoint', TG_OP, job) END
             WHERE k.cluster = cp.cluster AND k.invalidated_at IS NULL;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER invalidate_usage_checkpoints_insert AFTER INSERT ON @extschema@.jobs
    REFERENCING NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_invalidate_usage_checkpoints();
CREATE TRIGGER invalidate_usage_checkpoints_update AFTER UPDATE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_invalidate_usage_checkpoints();
CREATE TRIGGER invalidate_usage_checkpoints_delete AFTER DELETE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_invalidate_usage_checkpoints();
CREATE TRIGGER invalidate_usage_checkpoints_truncate AFTER TRUNCATE ON @extschema@.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_invalidate_usage_checkpoints();

-- The settings a checkpoint was computed with: a cluster's decay, a
-- partition's billing weights and mode, a QOS's UsageFactor (a job's QOS
-- that is not in qos bills with 1, so adding, removing or renaming a QOS
-- whose factor is not 1 changes the billing too).  A change marks the
-- checkpoints of the clusters concerned invalid (TRUNCATE: every one).
-- The trigger argument says what changed.
CREATE FUNCTION @extschema@._settings_invalidate_usage_checkpoints() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    affected text[] := '{}';
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND TG_LEVEL = 'ROW' THEN
        affected := affected || OLD.cluster;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND TG_LEVEL = 'ROW' THEN
        affected := affected || NEW.cluster;
    END IF;
    UPDATE @extschema@.usage_checkpoints k
       SET invalidated_at = now(),
           invalidated_by = format('%s on %s: %s', TG_OP, TG_TABLE_NAME, TG_ARGV[0])
     WHERE k.invalidated_at IS NULL AND (TG_OP = 'TRUNCATE' OR k.cluster = ANY (affected));
    RETURN NULL;
END
$$;
CREATE TRIGGER invalidate_usage_checkpoints AFTER UPDATE ON @extschema@.clusters
    FOR EACH ROW WHEN (OLD.decay_mode IS DISTINCT FROM NEW.decay_mode
                       OR OLD.decay_half_life IS DISTINCT FROM NEW.decay_half_life
                       OR OLD.decay_interval IS DISTINCT FROM NEW.decay_interval
                       OR OLD.decay_factor IS DISTINCT FROM NEW.decay_factor)
    EXECUTE FUNCTION @extschema@._settings_invalidate_usage_checkpoints('decay settings changed');
CREATE TRIGGER invalidate_usage_checkpoints AFTER UPDATE ON @extschema@.partitions
    FOR EACH ROW WHEN (OLD.billing_weights IS DISTINCT FROM NEW.billing_weights
                       OR OLD.billing_mode IS DISTINCT FROM NEW.billing_mode)
    EXECUTE FUNCTION @extschema@._settings_invalidate_usage_checkpoints('billing weights or mode changed');
CREATE TRIGGER invalidate_usage_checkpoints_insert AFTER INSERT ON @extschema@.qos
    FOR EACH ROW WHEN (NEW.usage_factor OPERATOR(pg_catalog.<>) 1)
    EXECUTE FUNCTION @extschema@._settings_invalidate_usage_checkpoints('a QOS with a UsageFactor other than 1 added');
CREATE TRIGGER invalidate_usage_checkpoints_update AFTER UPDATE ON @extschema@.qos
    FOR EACH ROW WHEN (OLD.usage_factor IS DISTINCT FROM NEW.usage_factor
                       OR OLD.cluster IS DISTINCT FROM NEW.cluster OR OLD.qos IS DISTINCT FROM NEW.qos)
    EXECUTE FUNCTION @extschema@._settings_invalidate_usage_checkpoints('UsageFactor or name changed');
CREATE TRIGGER invalidate_usage_checkpoints_delete AFTER DELETE ON @extschema@.qos
    FOR EACH ROW WHEN (OLD.usage_factor OPERATOR(pg_catalog.<>) 1)
    EXECUTE FUNCTION @extschema@._settings_invalidate_usage_checkpoints('a QOS with a UsageFactor other than 1 removed');
CREATE TRIGGER invalidate_usage_checkpoints_truncate AFTER TRUNCATE ON @extschema@.qos
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._settings_invalidate_usage_checkpoints('every QOS removed');

SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoints', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_rows', '');

-- The association tree of every cluster as rows for the tree window
-- functions (fair_tree.sql), with each user association's decayed usage as
-- of an instant (association_usage_at's, from _association_usage directly:
-- association_usage_at would join the user associations a second time);
-- accounts carry no usage of their own.  Ids: 'a:' ||
-- account, and 'u:' || length(account) || ':' || account || ':' || user for
-- user associations, so ids never collide and sibling ids sort by account
-- or user name (the lineage order Slurm breaks ties with).
CREATE OR REPLACE FUNCTION @extschema@.association_tree_at(as_of timestamptz)
RETURNS TABLE (cluster text, algorithm text, account text, user_name text, parent text,
               id text, parent_id text, shares integer, usage float8, is_user boolean)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.cluster, c.fairshare_algorithm, a.account, NULL::text, a.parent_account,
           'a:' OPERATOR(pg_catalog.||) a.account,
           'a:' OPERATOR(pg_catalog.||) a.parent_account,
           a.shares, 0::float8, false
      FROM @extschema@.accounts a
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
     WHERE @extschema@._check_as_of(association_tree_at.as_of)
    UNION ALL
    SELECT au.cluster, c.fairshare_algorithm, au.account, au.user_name, au.account,
           'u:' OPERATOR(pg_catalog.||) pg_catalog.length(au.account)::text
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.account
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.user_name,
           'a:' OPERATOR(pg_catalog.||) au.account,
           au.shares, COALESCE(u.raw_usage, 0), true
      FROM @extschema@.account_users au
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN @extschema@._association_usage(association_tree_at.as_of, false, NULL) u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name;
END;

-- Seconds as Slurm prints a duration: D-HH:MM:SS (whole seconds).  Strict
-- operators only (format() is not strict), so that the planner inlines it
-- into sprio_at instead of running a SQL function per pending job (issue 7).
CREATE OR REPLACE FUNCTION @extschema@._slurm_duration(seconds float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.floor(seconds OPERATOR(pg_catalog./) 86400)::bigint::text
    OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 3600)::bigint OPERATOR(pg_catalog.%) 24)::text, 2, '0')
    OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 60)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0')
    OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0');

CREATE OR REPLACE FUNCTION @extschema@.sprio_at(as_of timestamptz)
RETURNS TABLE (
    cluster            text,
    job_id             text,
    partition          text,
    user_name          text,
    account            text,
    qos                text,
    -- PRIORITY: the job's priority as Slurm stores it (truncated, 1..4294967295)
    priority           bigint,
    -- AGE FAIRSHARE JOBSIZE PARTITION QOS NICE as sprio -l prints them (%.0f)
    age                bigint,
    fairshare          bigint,
    job_size           bigint,
    partition_prio     bigint,
    qos_prio           bigint,
    nice               integer,
    -- the same weighted factors at full precision
    age_weighted       float8,
    fairshare_weighted float8,
    job_size_weighted  float8,
    partition_weighted float8,
    qos_weighted       float8,
    -- the sum before clamping and truncation
    priority_exact     float8,
    -- the normalised factors (sprio -n); 0 where the weight is 0, as Slurm
    age_factor         float8,
    fairshare_factor   float8,
    job_size_factor    float8,
    partition_factor   float8,
    qos_factor         float8,
    submit_time        timestamptz,
    eligible_time      timestamptz,
    explanation        text)
LANGUAGE sql STABLE STRICT PARALLEL SAFE
-- The planner has no statistics for sshare_at's rows: it prices a hash join
-- on them as if each key were shared by a tenth of the rows, and sorts the
-- pending jobs and the associations for a merge join instead (0.2 s of
-- 1.5 s at 10^5 pending jobs; issue 7).
SET enable_mergejoin = off
BEGIN ATOMIC
    WITH sizes AS (
        -- the cluster's size for the job-size factor: configured, or the
        -- sum over its partitions
        SELECT c.cluster,
               COALESCE(c.total_nodes::bigint, pg_catalog.sum(p.nodes)) AS total_nodes,
               COALESCE(c.total_cpus::bigint,
                        pg_catalog.sum(p.nodes::bigint OPERATOR(pg_catalog.*) p.cores_per_node)::bigint) AS total_cpus,
               GREATEST(pg_catalog.max(p.priority_job_factor), 1) AS max_pjf,
               -- PriorityMaxAge as the explanation prints it, once per cluster
               @extschema@._slurm_duration(@extschema@._interval_seconds(c.priority_max_age)) AS max_age_text,
               (SELECT pg_catalog.max(q.priority) FROM @extschema@.qos q
                 WHERE q.cluster OPERATOR(pg_catalog.=) c.cluster) AS max_qos
          FROM @extschema@.clusters c
          LEFT JOIN @extschema@.partitions p ON p.cluster OPERATOR(pg_catalog.=) c.cluster
         WHERE (pg_catalog.isfinite(sprio_at.as_of)
                OR @extschema@._raise('22008', pg_catalog.format('sprio_at: as_of must be a finite timestamp, not %s',
                                                                 sprio_at.as_of),
                                      'Pass a real instant for as_of.', false))
         GROUP BY c.cluster, c.total_nodes, c.total_cpus
    ), pending AS (
        -- pending at as_of: submitted and eligible by then, neither started
        -- nor ended (cancelled) by then.  A job ends after it starts (a CHECK
        -- of jobs), so "start and end, when known, after as_of" is its first
        -- known event after as_of: one expression, indexed (model.sql), whose
        -- statistics tell the planner how few jobs that is.
        SELECT j.*
          FROM @extschema@.jobs j
         WHERE j.submit_time OPERATOR(pg_catalog.<=) sprio_at.as_of
           AND j.eligible_time OPERATOR(pg_catalog.<=) sprio_at.as_of
           AND COALESCE(j.start_time, j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) sprio_at.as_of
           AND (j.state OPERATOR(pg_catalog.=) 'PENDING' OR j.start_time IS NOT NULL OR j.end_time IS NOT NULL)
    ), shares AS (
        SELECT s.cluster, s.account, s.user_name, s.fairshare
          FROM @extschema@.sshare_at(sprio_at.as_of) s
         WHERE s.user_name IS NOT NULL
    ), factors AS (
        SELECT j.cluster, j.job_id, j.partition, j.user_name, j.account, j.qos, j.nice,
               j.submit_time, j.eligible_time, j.nodes, j.cpus,
               c.weight_age::float8 AS w_age, c.weight_fairshare::float8 AS w_fs,
               c.weight_job_size::float8 AS w_js, c.weight_partition::float8 AS w_part,
               c.weight_qos::float8 AS w_qos,
               c.priority_max_age, c.favor_small, z.total_nodes, z.total_cpus,
               p.priority_job_factor AS pjf, z.max_pjf, z.max_age_text, q.priority AS qos_priority, z.max_qos,
               pg_catalog.floor(pg_catalog.date_part('epoch', sprio_at.as_of))
                 OPERATOR(pg_catalog.-) pg_catalog.floor(pg_catalog.date_part('epoch', j.eligible_time)) AS pending_s,
               sh.fairshare AS sshare_fairshare,
               CASE WHEN c.weight_age OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.age_factor(j.eligible_time, sprio_at.as_of, c.priority_max_age) END AS f_age,
               CASE WHEN c.weight_fairshare OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE COALESCE(sh.fairshare, 0) END AS f_fs,
               CASE WHEN c.weight_job_size OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.job_size_factor(j.nodes, j.cpus, z.total_nodes, z.total_cpus, c.favor_small) END AS f_js,
               CASE WHEN c.weight_partition OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.partition_factor(p.priority_job_factor, z.max_pjf) END AS f_part,
               CASE WHEN c.weight_qos OPERATOR(pg_catalog.=) 0 OR q.priority IS NULL THEN 0::float8
                    ELSE @extschema@.qos_factor(q.priority, z.max_qos) END AS f_qos
          FROM pending j
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN sizes z ON z.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN @extschema@.partitions p
            ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
          LEFT JOIN @extschema@.qos q
            ON q.cluster OPERATOR(pg_catalog.=) j.cluster AND q.qos OPERATOR(pg_catalog.=) j.qos
          LEFT JOIN shares sh
            ON sh.cluster OPERATOR(pg_catalog.=) j.cluster AND sh.account OPERATOR(pg_catalog.=) j.account
           AND sh.user_name OPERATOR(pg_catalog.=) j.user_name
    ), weighted AS (
        -- factor × weight, each rounded once to double, as Slurm stores them
        SELECT f.*,
               f.f_age OPERATOR(pg_catalog.*) f.w_age AS x_age,
               f.f_fs OPERATOR(pg_catalog.*) f.w_fs AS x_fs,
               f.f_js OPERATOR(pg_catalog.*) f.w_js AS x_js,
               f.f_part OPERATOR(pg_catalog.*) f.w_part AS x_part,
               f.f_qos OPERATOR(pg_catalog.*) f.w_qos AS x_qos,
               @extschema@.job_priority(f.f_fs, f.f_age, f.f_js, f.f_part, f.f_qos,
                                        f.w_fs, f.w_age, f.w_js, f.w_part, f.w_qos, f.nice::bigint) AS prio
          FROM factors f
    ), summed AS (
        -- Slurm's order: age, fairshare, job size, partition, QOS, − nice
        SELECT w.*,
               w.x_age OPERATOR(pg_catalog.+) w.x_fs OPERATOR(pg_catalog.+) w.x_js
                 OPERATOR(pg_catalog.+) w.x_part OPERATOR(pg_catalog.+) w.x_qos
                 OPERATOR(pg_catalog.-) w.nice::float8 AS exact
          FROM weighted w
    )
    SELECT s.cluster, s.job_id, s.partition, s.user_name, s.account, s.qos,
           s.prio,
           pg_catalog.round(s.x_age)::bigint, pg_catalog.round(s.x_fs)::bigint,
           pg_catalog.round(s.x_js)::bigint, pg_catalog.round(s.x_part)::bigint,
           pg_catalog.round(s.x_qos)::bigint, s.nice,
           s.x_age, s.x_fs, s.x_js, s.x_part, s.x_qos, s.exact,
           s.f_age, s.f_fs, s.f_js, s.f_part, s.f_qos,
           s.submit_time, s.eligible_time,
           pg_catalog.concat_ws('; ',
             CASE WHEN s.w_age OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('age: %s pending / max_age %s = %s × %s = %s',
                  @extschema@._slurm_duration(GREATEST(s.pending_s, 0)), s.max_age_text,
                  @extschema@._num(s.f_age, 4), s.w_age, @extschema@._num(s.x_age, 2)) END,
             CASE WHEN s.w_fs OPERATOR(pg_catalog.<>) 0 THEN
                  CASE WHEN s.sshare_fairshare IS NULL
                       THEN pg_catalog.format('fairshare: no sshare row for %s/%s = 0', s.account, s.user_name)
                       ELSE pg_catalog.format('fairshare: sshare FairShare %s × %s = %s',
                            @extschema@._num(s.f_fs, 6), s.w_fs, @extschema@._num(s.x_fs, 2)) END END,
             CASE WHEN s.w_js OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('job_size: %s = %s × %s = %s',
                  CASE WHEN s.favor_small AND s.cpus OPERATOR(pg_catalog.<>) 0
                         THEN pg_catalog.format('((%s − %s nodes)/%s + (%s − %s cpus)/%s)/2', s.total_nodes, s.nodes,
                              s.total_nodes, s.total_cpus, s.cpus, s.total_cpus)
                       WHEN s.favor_small
                         THEN pg_catalog.format('(%s − %s nodes)/%s', s.total_nodes, s.nodes, s.total_nodes)
                       WHEN s.cpus OPERATOR(pg_catalog.<>) 0
                         THEN pg_catalog.format('(%s nodes/%s + %s cpus/%s)/2', s.nodes, s.total_nodes, s.cpus, s.total_cpus)
                       ELSE pg_catalog.format('%s nodes/%s', s.nodes, s.total_nodes) END,
                  @extschema@._num(s.f_js, 4), s.w_js, @extschema@._num(s.x_js, 2)) END,
             CASE WHEN s.w_part OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('partition: PriorityJobFactor %s / max %s = %s × %s = %s',
                  s.pjf, s.max_pjf, @extschema@._num(s.f_part, 4), s.w_part, @extschema@._num(s.x_part, 2)) END,
             CASE WHEN s.w_qos OPERATOR(pg_catalog.<>) 0 THEN
                  CASE WHEN s.qos IS NULL THEN 'qos: none = 0'
                       WHEN s.qos_priority IS NULL THEN pg_catalog.format('qos: %s is not in fairshare.qos = 0', s.qos)
                       ELSE pg_catalog.format('qos: %s priority %s / max %s = %s × %s = %s', s.qos, s.qos_priority,
                            s.max_qos, @extschema@._num(s.f_qos, 4), s.w_qos, @extschema@._num(s.x_qos, 2)) END END,
             CASE WHEN s.nice OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('nice: %s', s.nice) END,
             pg_catalog.format('total %s → %s%s', @extschema@._num(s.exact, 2), s.prio,
                  CASE WHEN s.exact OPERATOR(pg_catalog.<) 1 THEN ' (below 1)'
                       WHEN s.exact OPERATOR(pg_catalog.>=) 4294967296 THEN ' (capped)'
                       WHEN s.exact OPERATOR(pg_catalog.<>) pg_catalog.trunc(s.exact) THEN ' (truncated)'
                       ELSE '' END))
      FROM summed s;
END;

-- Grants (security.sql's loop ran in 1.0): the tables as every table of the
-- extension, usage_checkpoints readable by plain users (it says when each
-- cluster's checkpoint holds) and its rows filtered to the caller's own, like
-- jobs; _association_usage like association_usage_at, which calls it;
-- checkpoint_usage for the administrator; no grant on trigger functions.
REVOKE ALL ON @extschema@.usage_checkpoints FROM PUBLIC;
GRANT SELECT ON @extschema@.usage_checkpoints TO fairshare_admin, fairshare_reader;
GRANT SELECT ON @extschema@.usage_checkpoints TO fairshare_user;
GRANT INSERT, DELETE ON @extschema@.usage_checkpoints TO fairshare_admin;
GRANT UPDATE ON @extschema@.usage_checkpoints TO fairshare_admin;
REVOKE ALL ON @extschema@.usage_checkpoint_rows FROM PUBLIC;
GRANT SELECT ON @extschema@.usage_checkpoint_rows TO fairshare_admin, fairshare_reader;
GRANT SELECT ON @extschema@.usage_checkpoint_rows TO fairshare_user;
GRANT INSERT, DELETE ON @extschema@.usage_checkpoint_rows TO fairshare_admin;
GRANT UPDATE ON @extschema@.usage_checkpoint_rows TO fairshare_admin;
ALTER TABLE @extschema@.usage_checkpoint_rows ENABLE ROW LEVEL SECURITY;
CREATE POLICY fairshare_reader_all ON @extschema@.usage_checkpoint_rows FOR SELECT TO fairshare_reader USING (true);
CREATE POLICY fairshare_admin_all ON @extschema@.usage_checkpoint_rows FOR ALL TO fairshare_admin USING (true) WITH CHECK (true);
CREATE POLICY fairshare_user_own ON @extschema@.usage_checkpoint_rows FOR SELECT TO fairshare_user USING (user_name OPERATOR(pg_catalog.=) CURRENT_USER::text);
REVOKE ALL ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) TO fairshare_admin, fairshare_reader;
GRANT EXECUTE ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) TO fairshare_user;
REVOKE ALL ON PROCEDURE @extschema@.checkpoint_usage(text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON PROCEDURE @extschema@.checkpoint_usage(text, timestamptz) TO fairshare_admin;
REVOKE ALL ON FUNCTION @extschema@._jobs_invalidate_usage_checkpoints() FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@._settings_invalidate_usage_checkpoints() FROM PUBLIC;

-- ---------------------------------------------------------------------------
-- import
-- Importing 10^6 sacct lines (issue 7).  The staging table is parsed in one
-- call (_sacct_parse) instead of one call per line, which also counts its
-- lines (_import_head is no longer needed); lone steps are looked for among
-- the jobs, not the other way round; the jobs are stored with sequential
-- scans off, so that the per-row checks of the two foreign keys use the
-- keys' indexes; the index on jobs (cluster, start_time), which no query
-- reads, is dropped.  Same results.
-- ---------------------------------------------------------------------------
DROP INDEX @extschema@.jobs_cluster_start_time_idx;
DROP FUNCTION @extschema@._import_head(regclass);

CREATE FUNCTION @extschema@._sacct_parse(staging regclass, header text, header_no bigint,
                                         time_zone text, cluster text)
RETURNS TABLE (line_no bigint, kind text, cluster text, job_id text, step text, user_name text,
               account text, partition text, qos text, state text, submit_time timestamptz,
               eligible_time timestamptz, start_time timestamptz, end_time timestamptz,
               time_limit interval, tres text, cpus integer, mem_mb bigint, gpus integer,
               nodes integer, exclusive boolean, stored boolean, sqlstate text, reason text,
               line text, folded bigint)
AS 'MODULE_PATHNAME', 'fs_sacct_parse'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 100000;
COMMENT ON FUNCTION @extschema@._sacct_parse(regclass, text, bigint, text, text) IS
'Every line of an sacct --parsable2 export staged in a table, parsed in one pass: the rows of import_sacct''s work table, steps folded (counted in folded).';
REVOKE ALL ON FUNCTION @extschema@._sacct_parse(regclass, text, bigint, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._sacct_parse(regclass, text, bigint, text, text) TO fairshare_admin;

CREATE OR REPLACE FUNCTION @extschema@._import_upsert(with_exclusive boolean,
    OUT imported bigint, OUT updated bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
SET jit = off
AS $$
DECLARE
    cols text := 'cluster, job_id, user_name, account, partition, qos, state, submit_time,
                  eligible_time, start_time, end_time, time_limit, tres, cpus, mem_mb, gpus,
                  nodes, exclusive';
    vals text := 'w.cluster, w.job_id, w.user_name, w.account, w.partition, w.qos, w.state,
                  w.submit_time, w.eligible_time, w.start_time, w.end_time, w.time_limit,
                  w.tres, w.cpus, w.mem_mb, w.gpus, w.nodes, COALESCE(w.exclusive, false)';
    excl text := CASE WHEN with_exclusive THEN 'excluded.exclusive' ELSE 'j.exclusive' END;
    stored_jobs text;
    new_jobs text;
    one record;
    attempt integer;
    st text;
    msg text;
BEGIN
    -- %1$s narrows the work table's jobs (one line, for the one-by-one retry)
    stored_jobs := format($q$
        WITH up AS (
            INSERT INTO @extschema@.jobs AS j (%2$s)
            SELECT %3$s
              FROM pg_temp._fs_import_jobs w
             WHERE w.kind = 'job' AND w.stored %%1$s
            ON CONFLICT (cluster, job_id) DO UPDATE
               SET user_name = excluded.user_name, account = excluded.account,
                   partition = excluded.partition, qos = excluded.qos, state = excluded.state,
                   submit_time = excluded.submit_time, eligible_time = excluded.eligible_time,
                   start_time = excluded.start_time, end_time = excluded.end_time,
                   time_limit = excluded.time_limit, tres = excluded.tres, cpus = excluded.cpus,
                   mem_mb = excluded.mem_mb, gpus = excluded.gpus, nodes = excluded.nodes,
                   exclusive = %1$s
             WHERE (j.user_name, j.account, j.partition, j.qos, j.state, j.submit_time,
                    j.eligible_time, j.start_time, j.end_time, j.time_limit, j.tres, j.cpus,
                    j.mem_mb, j.gpus, j.nodes, j.exclusive)
                   IS DISTINCT FROM
                   (excluded.user_name, excluded.account, excluded.partition, excluded.qos,
                    excluded.state, excluded.submit_time, excluded.eligible_time,
                    excluded.start_time, excluded.end_time, excluded.time_limit, excluded.tres,
                    excluded.cpus, excluded.mem_mb, excluded.gpus, excluded.nodes, %1$s)
               AND GREATEST(excluded.submit_time, excluded.eligible_time, excluded.start_time, excluded.end_time)
                   >= GREATEST(j.submit_time, j.eligible_time, j.start_time, j.end_time)
            RETURNING 1)
        SELECT count(*) FROM up$q$, excl, cols, vals);
    new_jobs := format($q$
        INSERT INTO @extschema@.jobs (%1$s)
        SELECT %2$s
          FROM pg_temp._fs_import_jobs w
         WHERE w.kind = 'job' AND NOT w.stored %%1$s$q$, cols, vals);

    FOR attempt IN 1 .. 2 LOOP
        -- which jobs are stored already, looked up once before writing (a
        -- lookup in the statement that inserts would read back every row
        -- it has inserted so far)
        UPDATE pg_temp._fs_import_jobs w SET stored = true
          FROM @extschema@.jobs x
         WHERE w.kind = 'job' AND NOT w.stored AND x.cluster = w.cluster AND x.job_id = w.job_id;
        BEGIN
            EXECUTE format(stored_jobs, '') INTO updated;
            EXECUTE format(new_jobs, '');
            GET DIAGNOSTICS imported = ROW_COUNT;
            RETURN;
        EXCEPTION WHEN OTHERS THEN
            NULL;               -- a job twice, or worse: see below
        END;
        EXIT WHEN attempt = 2;
        UPDATE pg_temp._fs_import_jobs w SET kind = 'duplicate'
          FROM (SELECT d.line_no,
                       row_number() OVER (PARTITION BY d.cluster, d.job_id
                                          ORDER BY GREATEST(d.submit_time, d.eligible_time, d.start_time, d.end_time) DESC,
                                                   d.line_no DESC) AS rn
                  FROM pg_temp._fs_import_jobs d
                 WHERE d.kind = 'job'
                   AND (d.cluster, d.job_id) IN (SELECT x.cluster, x.job_id FROM pg_temp._fs_import_jobs x
                                                  WHERE x.kind = 'job' GROUP BY 1, 2 HAVING count(*) > 1)) r
         WHERE w.line_no = r.line_no AND r.rn > 1;
        EXIT WHEN NOT FOUND;
    END LOOP;

    -- one by one
    imported := 0;
    updated := 0;
    CREATE INDEX ON pg_temp._fs_import_jobs (line_no);
    FOR one IN SELECT w.line_no FROM pg_temp._fs_import_jobs w WHERE w.kind = 'job' ORDER BY w.line_no LOOP
        DECLARE
            n bigint;
        BEGIN
            EXECUTE format(stored_jobs, 'AND w.line_no = $1') INTO n USING one.line_no;
            updated := updated + n;
            EXECUTE format(new_jobs, 'AND w.line_no = $1') USING one.line_no;
            GET DIAGNOSTICS n = ROW_COUNT;
            imported := imported + n;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
            UPDATE pg_temp._fs_import_jobs w
               SET kind = 'reject', sqlstate = st, reason = msg
             WHERE w.line_no = one.line_no;
        END;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION @extschema@.import_sacct(
    cluster text DEFAULT NULL, time_zone text DEFAULT NULL,
    create_missing boolean DEFAULT false, all_or_nothing boolean DEFAULT false,
    staging text DEFAULT 'import_staging',
    OUT import_id bigint, OUT lines_read bigint, OUT imported bigint, OUT updated bigint,
    OUT unchanged bigint, OUT removed bigint, OUT folded bigint, OUT skipped bigint,
    OUT rejected bigint, OUT created_accounts bigint, OUT created_users bigint,
    OUT created_partitions bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
SET default_statistics_target = 10
AS $$
DECLARE
    src regclass := @extschema@._import_staging(staging);
    tz text := @extschema@._import_zone(cluster, time_zone);
    hdr text;
    hdr_no bigint;
    created record;
    upserted record;
    n_lone bigint;
    n_remainders bigint;
    n_array_lines bigint;
    jobs_accepted bigint;
BEGIN
    IF create_missing IS NULL OR all_or_nothing IS NULL THEN
        RAISE EXCEPTION 'create_missing and all_or_nothing must not be NULL' USING ERRCODE = '22004';
    END IF;
    -- The export's header: its first non-blank line.  After import_stage()
    -- and \copy that is in the table's first block: it is taken from there
    -- (a TID range scan), and the parse below, which reads every line,
    -- checks that no line before it exists anywhere else (and reads the
    -- table again with that one if it does).  Before refusing the import
    -- for its header, the header is looked for in the whole table.
    EXECUTE format('SELECT line_no, line FROM %s WHERE ctid < ''(1,0)''::tid AND line <> ''''
                     ORDER BY line_no LIMIT 1', src) INTO hdr_no, hdr;
    IF hdr IS NULL OR (cluster IS NULL AND hdr !~* '(^|\|)Cluster(\||\r?$)') THEN
        EXECUTE format('SELECT line_no, line FROM %s WHERE line <> '''' ORDER BY line_no LIMIT 1', src)
           INTO hdr_no, hdr;
    END IF;
    IF hdr IS NULL THEN
        RAISE EXCEPTION 'staging table % is empty: no sacct header line', src USING ERRCODE = '22023',
            HINT = 'sacct -P prints its header even when no job matches; check the \copy that filled the staging table.';
    END IF;
    IF cluster IS NULL AND hdr !~* '(^|\|)Cluster(\||\r?$)' THEN
        RAISE EXCEPTION 'cluster is NULL and the export has no Cluster column' USING ERRCODE = '22004',
            HINT = 'Pass the cluster, or add Cluster to sacct -o.';
    END IF;

    -- Parse every line once, in C, into the work table (_sacct_parse): a
    -- step printed right after its job's line is folded there and not
    -- kept, only counted.  The parse reads nothing but the staging table:
    -- it runs before the lock below.
    IF to_regclass('pg_temp._fs_import_jobs') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_jobs; END IF;
    CREATE TEMP TABLE _fs_import_jobs AS
    SELECT * FROM @extschema@._sacct_parse(src, hdr, hdr_no, tz, cluster);
    -- statistics, so that the joins below hash (a small sample will do)
    ANALYZE pg_temp._fs_import_jobs;

    -- One import at a time.  A second import waits here until the first
    -- has committed, then reads what it stored (READ COMMITTED: every later
    -- statement sees it).  Without the lock, two imports of overlapping
    -- exports both took a job for new: the second's insert failed on the
    -- first's row and its lines, newer ones included, were rejected (23505);
    -- inserts in crossing orders could deadlock.  SHARE ROW EXCLUSIVE
    -- conflicts with itself and with writers of jobs, never with readers.
    LOCK TABLE @extschema@.jobs IN SHARE ROW EXCLUSIVE MODE;

    INSERT INTO @extschema@.imports (source, cluster, time_zone, staging)
    VALUES ('sacct', cluster, tz, src::text)
    RETURNING imports.import_id INTO import_sacct.import_id;

    created := @extschema@._import_resolve(create_missing);
    created_accounts := created.created_accounts;
    created_users := created.created_users;
    created_partitions := created.created_partitions;

    -- what the rest has to look at (one pass; most exports have no lone
    -- step and few arrays)
    SELECT count(*) FILTER (WHERE w.kind = 'lone_step'),
           count(*) FILTER (WHERE w.kind = 'job' AND strpos(w.job_id, '_[') > 0),
           count(*) FILTER (WHERE w.kind = 'job' AND strpos(w.job_id, '_') > 0)
      INTO n_lone, n_remainders, n_array_lines
      FROM pg_temp._fs_import_jobs w;

    IF n_lone > 0 THEN
        -- a step elsewhere than after its job's line: its job must have
        -- a line in the export, or be stored.  The few lone steps are
        -- looked for among the jobs (a hash of them), not every job among
        -- them (a hash of every job: 0.1 s for 296,132 jobs).
        WITH lone AS MATERIALIZED (
            SELECT w.ctid AS row_id, w.cluster, w.job_id
              FROM pg_temp._fs_import_jobs w
             WHERE w.kind = 'lone_step'),
        found AS (
            SELECT j.cluster, j.job_id
              FROM pg_temp._fs_import_jobs j
             WHERE j.kind IN ('job', 'reject')
               AND (j.cluster, j.job_id) IN (SELECT l.cluster, l.job_id FROM lone l))
        UPDATE pg_temp._fs_import_jobs w
           SET kind = 'reject', sqlstate = '23503',
               reason = format('step %s.%s: job %s is neither in this export nor in fairshare.jobs',
                               w.job_id, w.step, w.job_id)
          FROM lone l
         WHERE w.ctid = l.row_id
           AND NOT EXISTS (SELECT 1 FROM found f WHERE f.cluster = l.cluster AND f.job_id = l.job_id)
           AND NOT EXISTS (SELECT 1 FROM @extschema@.jobs x WHERE x.cluster = l.cluster AND x.job_id = l.job_id);
    END IF;

    IF all_or_nothing THEN
        PERFORM @extschema@._import_rejects(import_sacct.import_id, 'pg_temp._fs_import_jobs', src, true);
    END IF;

    IF n_remainders > 0 THEN
        -- Job arrays.  A pending remainder ("123_[5-10]") is one record
        -- whatever its range: of several in the export the latest line is
        -- kept.  It is stale when a task in its range is known (stored, or
        -- in this export) with a later time: an older export loaded after
        -- a newer one.
        WITH r AS (
            SELECT w.line_no, w.cluster, w.job_id,
                   GREATEST(w.submit_time, w.eligible_time, w.start_time, w.end_time) AS latest,
                   row_number() OVER (PARTITION BY w.cluster, split_part(w.job_id, '_', 1)
                                      ORDER BY GREATEST(w.submit_time, w.eligible_time, w.start_time, w.end_time) DESC,
                                               w.line_no DESC) AS rn
              FROM pg_temp._fs_import_jobs w
             WHERE w.kind = 'job' AND strpos(w.job_id, '_[') > 0),
        t AS (
            SELECT r.line_no, r.cluster, r.latest, task.id
              FROM r, @extschema@._array_tasks(r.job_id) AS task(id)
             WHERE r.rn = 1),
        verdict AS (
            SELECT r.line_no, 'duplicate' AS kind FROM r WHERE r.rn > 1
            UNION ALL
            SELECT DISTINCT t.line_no, 'stale' FROM t
             WHERE EXISTS (SELECT 1 FROM pg_temp._fs_import_jobs x
                            WHERE x.kind = 'job' AND x.cluster = t.cluster AND x.job_id = t.id
                              AND GREATEST(x.submit_time, x.eligible_time, x.start_time, x.end_time) > t.latest)
                OR EXISTS (SELECT 1 FROM @extschema@.jobs j
                            WHERE j.cluster = t.cluster AND j.job_id = t.id
                              AND GREATEST(j.submit_time, j.eligible_time, j.start_time, j.end_time) > t.latest))
        UPDATE pg_temp._fs_import_jobs w SET kind = verdict.kind
          FROM verdict WHERE w.line_no = verdict.line_no;
    END IF;

    removed := 0;
    IF n_array_lines > 0 THEN
        -- A stored remainder is replaced by what a newer export says of the
        -- array: its own remainder record, or (when every task has started)
        -- the tasks' lines.
        WITH arrays AS (
            SELECT w.cluster, split_part(w.job_id, '_', 1) AS base,
                   max(GREATEST(w.submit_time, w.eligible_time, w.start_time, w.end_time)) AS latest
              FROM pg_temp._fs_import_jobs w
             WHERE w.kind = 'job' AND strpos(w.job_id, '_') > 0
             GROUP BY 1, 2)
        DELETE FROM @extschema@.jobs j
         USING arrays a
         WHERE j.state = 'PENDING' AND j.cluster = a.cluster
           AND strpos(j.job_id, '_[') > 0 AND split_part(j.job_id, '_', 1) = a.base
           AND GREATEST(j.submit_time, j.eligible_time) <= a.latest
           AND NOT EXISTS (SELECT 1 FROM pg_temp._fs_import_jobs w
                            WHERE w.kind = 'job' AND w.cluster = j.cluster AND w.job_id = j.job_id);
        GET DIAGNOSTICS removed = ROW_COUNT;
    END IF;

    upserted := @extschema@._import_upsert(false);
    imported := upserted.imported;
    updated := upserted.updated;

    -- the summary, in one pass over the work table; the lines read are its
    -- rows and the steps folded into them while parsing
    SELECT count(*) + COALESCE(sum(w.folded), 0),
           count(*) FILTER (WHERE w.kind IN ('job', 'stale')),
           count(*) FILTER (WHERE w.kind IN ('lone_step', 'duplicate')) + COALESCE(sum(w.folded), 0),
           count(*) FILTER (WHERE w.kind IN ('header', 'blank')),
           count(*) FILTER (WHERE w.kind = 'reject')
      INTO lines_read, jobs_accepted, folded, skipped, rejected
      FROM pg_temp._fs_import_jobs w;
    unchanged := jobs_accepted - imported - updated;
    IF rejected > 0 THEN
        rejected := @extschema@._import_rejects(import_sacct.import_id, 'pg_temp._fs_import_jobs', src, all_or_nothing);
    END IF;

    UPDATE @extschema@.imports i
       SET lines_read = import_sacct.lines_read, imported = import_sacct.imported,
           updated = import_sacct.updated, unchanged = import_sacct.unchanged,
           removed = import_sacct.removed, folded = import_sacct.folded,
           skipped = import_sacct.skipped, rejected = import_sacct.rejected,
           created_accounts = import_sacct.created_accounts,
           created_users = import_sacct.created_users,
           created_partitions = import_sacct.created_partitions
     WHERE i.import_id = import_sacct.import_id;
    DROP TABLE pg_temp._fs_import_jobs;
    PERFORM @extschema@._import_empty(src);
END
$$;
