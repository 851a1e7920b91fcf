-- fairshare 1.1 → 1.2 (ALTER EXTENSION fairshare UPDATE TO '1.2').
--
-- The released 1.1 script (extension/fairshare--1.1.sql) is never edited:
-- every change since ships here, in the order of the pieces
-- (extension/*.sql), and test/upgrade.sh checks that a 1.0 or 1.1 database
-- updated by this script has the same objects and gives the same reports as
-- a fresh 1.2.

\echo Use "ALTER EXTENSION fairshare UPDATE TO '1.2'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- decay (issue 19): decay_mode 'slurm_passes', slurmctld's passes in closed
-- form per job (decay.c, decay.sql); the clusters' PriorityCalcPeriod, pass
-- phase and PriorityUsageResetPeriod (model.sql); usage resets and the usage
-- of the last pass in _association_usage and the checkpoints
-- (usage_views.sql); sshare's tree from the last pass's usage, its
-- GrpTRESMins and TRESRunMins columns, the classic root's FairShare
-- (sshare.sql, fair_tree.c).  _association_usage, association_tree_at and
-- sshare_at return new columns: they are dropped with what is built on them
-- (the usage, sshare and sprio functions and views, and their private
-- forms) and created again as a fresh install creates them, with the grants
-- security.sql's loop gives them.
-- ---------------------------------------------------------------------------
-- Slurm's passes (decay_mode 'slurm_passes'): usage as slurmctld's decay
-- thread leaves it, one pass every PriorityCalcPeriod from the phase (the
-- instant of one pass; NULL: whole multiples of the period since
-- 1970-01-01 UTC).  The span form takes the billing per second and the
-- real end (NULL or after as_of: still running); each job is one closed
-- form, a geometric series over the passes its run spans (decay.c).
CREATE FUNCTION @extschema@._decay_passes_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz,
                                                     interval, interval, timestamptz)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_passes_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm_passes(billing float8, started timestamptz, ended timestamptz,
                                                         as_of timestamptz, half_life interval,
                                                         calc_period interval, phase timestamptz) (
    SFUNC = @extschema@._decay_passes_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, timestamptz, interval, interval, timestamptz) IS
'Usage of jobs billed billing per second over [started, ended] (ended NULL: running) as slurmctld''s passes leave it at as_of: every pass multiplies usage by f^Δ (f = 1 − 0.693/half_life_s) and charges each running job billing × d × f^d for the d seconds since the previous pass; a job that ends is charged so at its end.';

CREATE FUNCTION @extschema@._decay_passes_point_accum(float8[], float8, timestamptz, timestamptz,
                                                      interval, interval, timestamptz)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_passes_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm_passes(usage float8, at timestamptz, as_of timestamptz,
                                                         half_life interval, calc_period interval,
                                                         phase timestamptz) (
    SFUNC = @extschema@._decay_passes_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, interval, interval, timestamptz) IS
'Usage charged at an instant, decayed by slurmctld''s passes after it: × f^(last pass by as_of − last pass by at).';

CREATE FUNCTION @extschema@.slurm_last_pass(as_of timestamptz, calc_period interval, phase timestamptz DEFAULT NULL)
RETURNS timestamptz AS 'MODULE_PATHNAME', 'fs_slurm_last_pass'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.slurm_last_pass(timestamptz, interval, timestamptz) IS
'The instant of slurmctld''s last decay pass at or before as_of: passes every calc_period (PriorityCalcPeriod) from phase (one pass''s instant, e.g. priority_last_decay_ran; NULL: multiples of calc_period since 1970-01-01 UTC). NULL as_of gives NULL.';
REVOKE ALL ON FUNCTION @extschema@._decay_passes_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval, interval, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._decay_passes_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval, interval, timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON FUNCTION @extschema@._decay_passes_point_accum(float8[], float8, timestamptz, timestamptz, interval, interval, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._decay_passes_point_accum(float8[], float8, timestamptz, timestamptz, interval, interval, timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON FUNCTION @extschema@.slurm_last_pass(timestamptz, interval, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.slurm_last_pass(timestamptz, interval, timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON FUNCTION @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, timestamptz, interval, interval, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, timestamptz, interval, interval, timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON FUNCTION @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, interval, interval, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, interval, interval, timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;

-- model.sql: the clusters' Slurm decay settings
CREATE FUNCTION @extschema@._check_calc_period(calc_period interval)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF calc_period <= '0'::interval THEN
        RAISE EXCEPTION 'priority_calc_period must be a positive interval, not %', calc_period
            USING ERRCODE = '22023',
                  HINT = 'PriorityCalcPeriod is the time between two passes of slurmctld''s decay thread (Slurm''s default: 5 minutes).';
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@._check_calc_period(interval) IS
'true for a positive PriorityCalcPeriod; raises 22023 naming the value otherwise.';
CREATE FUNCTION @extschema@._check_usage_reset(period text, last_reset timestamptz)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF period IS NULL THEN
        RETURN true;            -- NOT NULL says so
    ELSIF upper(period) NOT IN ('NONE', 'NOW', 'DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY') THEN
        RAISE EXCEPTION 'usage_reset_period must be NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY, not "%"', period
            USING ERRCODE = '22023',
                  HINT = 'These are the values of Slurm''s PriorityUsageResetPeriod; NONE (the default) never resets usage.';
    ELSIF upper(period) = 'NOW' AND last_reset IS NULL THEN
        RAISE EXCEPTION 'usage_reset_period NOW needs usage_last_reset, the instant the usage was reset'
            USING ERRCODE = '22023',
                  HINT = 'NOW resets usage once, when slurmctld starts: set usage_last_reset to that instant.';
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@._check_usage_reset(text, timestamptz) IS
'true for a PriorityUsageResetPeriod Slurm knows (NOW with the instant of its reset); raises 22023 naming the value otherwise.';
REVOKE ALL ON FUNCTION @extschema@._check_calc_period(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._check_calc_period(interval) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON FUNCTION @extschema@._check_usage_reset(text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._check_usage_reset(text, timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
ALTER TABLE @extschema@.clusters DROP CONSTRAINT clusters_decay_mode_check;
ALTER TABLE @extschema@.clusters ADD CONSTRAINT clusters_decay_mode_check CHECK (decay_mode IN ('exact', 'slurm', 'step', 'slurm_passes'));
-- (the new columns' defaults set after they are added: a default given to
-- ADD COLUMN would stay in the catalog as the existing rows' missing value,
-- which a fresh install has not)
ALTER TABLE @extschema@.clusters
    ADD COLUMN priority_calc_period interval CHECK (@extschema@._check_calc_period(priority_calc_period)),
    ADD COLUMN priority_last_decay  timestamptz CHECK (pg_catalog.isfinite(priority_last_decay)),
    ADD COLUMN usage_reset_period text,
    ADD COLUMN usage_last_reset     timestamptz CHECK (pg_catalog.isfinite(usage_last_reset)),
    ADD CONSTRAINT clusters_usage_reset_check CHECK (@extschema@._check_usage_reset(usage_reset_period, usage_last_reset));
ALTER TABLE @extschema@.clusters ALTER COLUMN priority_calc_period SET DEFAULT '5 minutes';
ALTER TABLE @extschema@.clusters ALTER COLUMN usage_reset_period SET DEFAULT 'NONE';
UPDATE @extschema@.clusters SET priority_calc_period = DEFAULT, usage_reset_period = DEFAULT;
ALTER TABLE @extschema@.clusters ALTER COLUMN priority_calc_period SET NOT NULL;
ALTER TABLE @extschema@.clusters ALTER COLUMN usage_reset_period SET NOT NULL;

-- usage_views.sql: resets, the usage of the last pass, checkpoints
CREATE FUNCTION @extschema@._usage_reset_at(period text, last_reset timestamptz, time_zone text,
                                            decay_mode text, calc_period interval, phase timestamptz,
                                            as_of timestamptz)
RETURNS timestamptz LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    p text := upper(period);
    step interval;
    local_start timestamp;
    b timestamptz;
    r timestamptz;
BEGIN
    IF p IS NULL OR p = 'NONE' OR as_of IS NULL THEN
        RETURN NULL;
    ELSIF p = 'NOW' THEN
        b := last_reset;
    ELSE
        step := CASE p WHEN 'DAILY' THEN interval '1 day' WHEN 'WEEKLY' THEN interval '7 days'
                       WHEN 'MONTHLY' THEN interval '1 month' WHEN 'QUARTERLY' THEN interval '3 months'
                       WHEN 'YEARLY' THEN interval '1 year' END;
        IF step IS NULL THEN
            PERFORM @extschema@._check_usage_reset(period, last_reset);
        END IF;
        local_start := CASE p
            WHEN 'WEEKLY' THEN date_trunc('week', timezone(time_zone, as_of) + interval '1 day') - interval '1 day'
            WHEN 'DAILY' THEN date_trunc('day', timezone(time_zone, as_of))
            WHEN 'MONTHLY' THEN date_trunc('month', timezone(time_zone, as_of))
            WHEN 'QUARTERLY' THEN date_trunc('quarter', timezone(time_zone, as_of))
            ELSE date_trunc('year', timezone(time_zone, as_of)) END;
        b := timezone(time_zone, local_start);
    END IF;
    IF b IS NULL THEN
        RETURN NULL;
    ELSIF decay_mode IS DISTINCT FROM 'slurm_passes' THEN
        RETURN CASE WHEN b <= as_of THEN b END;
    END IF;
    -- the first pass at or after b: the last one before it, plus a period
    r := @extschema@.slurm_last_pass(b - interval '1 microsecond', calc_period, phase) + calc_period;
    IF r > as_of AND step IS NOT NULL THEN
        b := timezone(time_zone, local_start - step);
        r := @extschema@.slurm_last_pass(b - interval '1 microsecond', calc_period, phase) + calc_period;
    END IF;
    RETURN CASE WHEN r <= as_of THEN r END;
END
$$;
COMMENT ON FUNCTION @extschema@._usage_reset_at(text, timestamptz, text, text, interval, timestamptz, timestamptz) IS
'The instant of a cluster''s last usage reset (PriorityUsageResetPeriod) at or before as_of, or NULL: the period''s start in the cluster''s time zone, with decay_mode slurm_passes the first pass of slurmctld from then.';
REVOKE ALL ON FUNCTION @extschema@._usage_reset_at(text, timestamptz, text, text, interval, timestamptz, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._usage_reset_at(text, timestamptz, text, text, interval, timestamptz, timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
-- checkpoints made by 1.1 are of the continuous decays: pass_usage NULL, their raw_usage
ALTER TABLE @extschema@.usage_checkpoint_rows ADD COLUMN pass_usage float8
    CHECK (pass_usage OPERATOR(pg_catalog.>=) 0 AND pass_usage OPERATOR(pg_catalog.<) 'Infinity');
DROP TRIGGER invalidate_usage_checkpoints ON @extschema@.clusters;
CREATE TRIGGER invalidate_usage_checkpoints AFTER UPDATE ON @extschema@.clusters
    FOR EACH ROW WHEN (OLD.decay_mode IS DISTINCT FROM NEW.decay_mode
                       OR OLD.decay_half_life IS DISTINCT FROM NEW.decay_half_life
                       OR OLD.decay_interval IS DISTINCT FROM NEW.decay_interval
                       OR OLD.decay_factor IS DISTINCT FROM NEW.decay_factor
                       OR OLD.priority_calc_period IS DISTINCT FROM NEW.priority_calc_period
                       OR OLD.priority_last_decay IS DISTINCT FROM NEW.priority_last_decay
                       OR OLD.usage_reset_period IS DISTINCT FROM NEW.usage_reset_period
                       OR OLD.usage_last_reset IS DISTINCT FROM NEW.usage_last_reset
                       -- the periods of a reset start in the cluster's time zone
                       OR (OLD.timezone IS DISTINCT FROM NEW.timezone
                           AND pg_catalog.upper(NEW.usage_reset_period) NOT IN ('NONE', 'NOW')))
    EXECUTE FUNCTION @extschema@._settings_invalidate_usage_checkpoints('decay settings changed');
DROP FUNCTION @extschema@._association_usage(timestamptz, boolean, text) CASCADE;
CREATE FUNCTION @extschema@._association_usage(as_of timestamptz, checkpointing boolean, only_cluster text)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint, pass_usage float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    -- the clusters starting from a checkpoint, its instant T0, where its
    -- jobs' parts after T0 start (T0; 'slurm_passes': the last pass by T0)
    -- and the decay from T0 to as_of (same order); the oldest T0
    cp_clusters text[] := '{}';
    cp_times timestamptz[] := '{}';
    cp_from timestamptz[] := '{}';
    cp_decay float8[] := '{}';
    since timestamptz;
    -- the clusters whose usage was reset by as_of: the reset instant, and
    -- where their jobs start to count (same order)
    rs_clusters text[] := '{}';
    rs_at timestamptz[] := '{}';
    rs_from timestamptz[] := '{}';
    -- the 'slurm_passes' clusters and their last pass at or before as_of
    ps_clusters text[] := '{}';
    ps_last timestamptz[] := '{}';
    -- the clusters whose every job is read (NULL: all of them)
    full_clusters text[];
    any_full boolean;
    any_cp boolean;
    any_rs boolean;
    any_ps boolean;
BEGIN
    PERFORM @extschema@._check_as_of(_association_usage.as_of);
    -- per cluster: its last pass and its last reset, once
    SELECT COALESCE(array_agg(x.cluster ORDER BY x.cluster) FILTER (WHERE x.reset_at IS NOT NULL), '{}'),
           COALESCE(array_agg(x.reset_at ORDER BY x.cluster) FILTER (WHERE x.reset_at IS NOT NULL), '{}'),
           COALESCE(array_agg(CASE WHEN x.decay_mode = 'slurm_passes'
                                   THEN x.reset_at - x.priority_calc_period ELSE x.reset_at END
                              ORDER BY x.cluster) FILTER (WHERE x.reset_at IS NOT NULL), '{}'),
           COALESCE(array_agg(x.cluster ORDER BY x.cluster) FILTER (WHERE x.decay_mode = 'slurm_passes'), '{}'),
           COALESCE(array_agg(@extschema@.slurm_last_pass(_association_usage.as_of, x.priority_calc_period,
                                                          x.priority_last_decay)
                              ORDER BY x.cluster) FILTER (WHERE x.decay_mode = 'slurm_passes'), '{}')
      INTO rs_clusters, rs_at, rs_from, ps_clusters, ps_last
      FROM (SELECT c.cluster, c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                   @extschema@._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                               c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                               _association_usage.as_of) AS reset_at
              FROM @extschema@.clusters c
             WHERE _association_usage.only_cluster IS NULL OR c.cluster = _association_usage.only_cluster) x;
    IF NOT _association_usage.checkpointing THEN
        SELECT COALESCE(array_agg(k.cluster ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(k.as_of ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(CASE WHEN c.decay_mode = 'slurm_passes'
                                       THEN @extschema@.slurm_last_pass(k.as_of, c.priority_calc_period,
                                                                        c.priority_last_decay)
                                       ELSE k.as_of END ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(w.decay ORDER BY k.cluster), '{}'),
               min(k.as_of)
          INTO cp_clusters, cp_times, cp_from, cp_decay, since
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
                          FILTER (WHERE c.decay_mode = 'step'),
                        @extschema@.decayed_usage_slurm_passes(one.u, k.as_of, _association_usage.as_of,
                                                               c.decay_half_life, c.priority_calc_period,
                                                               c.priority_last_decay)
                          FILTER (WHERE c.decay_mode = 'slurm_passes')) AS decay
                 FROM (VALUES (1::float8)) one (u)) w
         WHERE k.invalidated_at IS NULL AND k.as_of <= _association_usage.as_of
           -- a reset after T0 leaves nothing of what the checkpoint holds
           AND NOT COALESCE(rs_at[array_position(rs_clusters, k.cluster)] > k.as_of, false)
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
    any_rs := cardinality(rs_clusters) > 0;
    any_ps := cardinality(ps_clusters) > 0;

    -- One scan of the jobs, grouped by their own columns, so that the
    -- planner counts the associations with the jobs' statistics (a GROUP BY
    -- above a UNION ALL of two scans guessed 10^6 groups for 75,001 at 10^7
    -- jobs, and sorted them on disk).  from_cp: the job's cluster starts
    -- from a checkpoint at t0, and only its part after t0 is read.  The
    -- conditions on any_full, any_cp, any_rs and any_ps are constants of
    -- the custom plan: without a checkpoint the scan is the one of every
    -- job, with only checkpoints it is a range scan of jobs_end_idx.
    RETURN QUERY
    WITH spans AS (
        SELECT j.cluster, j.account, j.user_name, j.billing,
               j.decay_mode, j.decay_half_life, j.decay_interval, j.decay_factor,
               j.priority_calc_period, j.priority_last_decay,
               -- where the job starts to count: its start, the checkpoint's
               -- t0 (its last pass), the usage reset (the pass before it)
               GREATEST(j.start_time, CASE WHEN j.from_cp THEN j.cp_from END, j.reset_from) AS s,
               CASE WHEN j.from_cp
                    THEN LEAST(COALESCE(j.end_time, _association_usage.as_of), _association_usage.as_of)
                    ELSE COALESCE(j.end_time, GREATEST(j.start_time, _association_usage.as_of)) END AS e,
               -- 'slurm_passes': the real end (after as_of: still running)
               j.end_time AS ended,
               CASE WHEN any_ps AND j.decay_mode = 'slurm_passes'
                    THEN ps_last[array_position(ps_clusters, j.cluster)] END AS last_pass,
               -- a job counts once: in the checkpoint if it started by t0
               CASE WHEN j.from_cp AND j.start_time <= j.t0 THEN 0 ELSE 1 END::bigint AS n
          FROM (SELECT b.cluster, b.account, b.user_name, b.start_time, b.end_time, b.billing,
                       c.decay_mode, c.decay_half_life, c.decay_interval, c.decay_factor,
                       c.priority_calc_period, c.priority_last_decay,
                       any_cp AND b.cluster = ANY (cp_clusters) AS from_cp,
                       cp_times[array_position(cp_clusters, b.cluster)] AS t0,
                       cp_from[array_position(cp_clusters, b.cluster)] AS cp_from,
                       CASE WHEN any_rs THEN rs_from[array_position(rs_clusters, b.cluster)] END AS reset_from
                  FROM @extschema@.job_billing b
                  JOIN @extschema@.clusters c ON c.cluster = b.cluster
                 WHERE b.start_time IS NOT NULL
                   AND b.start_time <= _association_usage.as_of
                   AND ((any_full AND (full_clusters IS NULL OR b.cluster = ANY (full_clusters)))
                        OR (any_cp AND b.cluster = ANY (cp_clusters)
                            AND COALESCE(b.end_time, 'infinity'::timestamptz) > since
                            AND COALESCE(b.end_time, 'infinity'::timestamptz)
                                > cp_times[array_position(cp_clusters, b.cluster)]))
                   -- after a usage reset: the jobs that ended since
                   AND (NOT any_rs OR NOT COALESCE(COALESCE(b.end_time, 'infinity'::timestamptz)
                                                   < rs_at[array_position(rs_clusters, b.cluster)], false))) j
    ), added AS (
        SELECT sp.cluster, sp.account, sp.user_name,
               COALESCE(
                 @extschema@.decayed_usage(sp.usage, sp.s, sp.e, _association_usage.as_of, sp.decay_half_life)
                   FILTER (WHERE sp.decay_mode = 'exact'),
                 @extschema@.decayed_usage_slurm(sp.usage, sp.s, sp.e, _association_usage.as_of, sp.decay_half_life)
                   FILTER (WHERE sp.decay_mode = 'slurm'),
                 @extschema@.decayed_usage_step(sp.usage, sp.s, sp.e, _association_usage.as_of, sp.decay_interval,
                                                sp.decay_factor)
                   FILTER (WHERE sp.decay_mode = 'step'),
                 @extschema@.decayed_usage_slurm_passes(sp.billing, sp.s, sp.ended, _association_usage.as_of,
                                                        sp.decay_half_life, sp.priority_calc_period,
                                                        sp.priority_last_decay)
                   FILTER (WHERE any_ps AND sp.decay_mode = 'slurm_passes')) AS raw_usage,
               @extschema@.decayed_usage_slurm_passes(sp.billing, sp.s, sp.ended, sp.last_pass,
                                                      sp.decay_half_life, sp.priority_calc_period,
                                                      sp.priority_last_decay)
                 FILTER (WHERE any_ps AND sp.decay_mode = 'slurm_passes') AS pass_usage,
               sum(sp.n) AS jobs
          FROM (SELECT x.*, x.billing * date_part('epoch', x.e - x.s) AS usage FROM spans x) sp
         GROUP BY sp.cluster, sp.account, sp.user_name
    ), kept AS (
        -- the checkpoints' usage, decayed from T0 to as_of; 'slurm_passes':
        -- as of the last pass by as_of the same, unless no pass came since
        -- T0 (the usage of the pass before T0, stored beside)
        SELECT r.cluster, r.account, r.user_name,
               r.raw_usage * cp_decay[array_position(cp_clusters, r.cluster)] AS raw_usage,
               CASE WHEN cp_times[array_position(cp_clusters, r.cluster)]
                         <= ps_last[array_position(ps_clusters, r.cluster)]
                    THEN r.raw_usage * cp_decay[array_position(cp_clusters, r.cluster)]
                    ELSE COALESCE(r.pass_usage, r.raw_usage) END AS pass_usage,
               r.jobs
          FROM @extschema@.usage_checkpoint_rows r
         WHERE any_cp AND r.cluster = ANY (cp_clusters)
    )
    SELECT COALESCE(a.cluster, k.cluster), COALESCE(a.account, k.account), COALESCE(a.user_name, k.user_name),
           COALESCE(k.raw_usage, 0) + COALESCE(a.raw_usage, 0),
           (COALESCE(k.jobs, 0) + COALESCE(a.jobs, 0))::bigint,
           CASE WHEN any_ps AND COALESCE(a.cluster, k.cluster) = ANY (ps_clusters)
                THEN COALESCE(k.pass_usage, 0) + COALESCE(a.pass_usage, 0)
                ELSE COALESCE(k.raw_usage, 0) + COALESCE(a.raw_usage, 0) END
      FROM added a
      FULL JOIN kept k ON k.cluster = a.cluster AND k.account = a.account AND k.user_name = a.user_name;
END
$$;
COMMENT ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) IS
'Decayed usage and jobs of every user association with jobs as of an instant (of one cluster, or every cluster for NULL), and for slurm_passes clusters the usage as their last pass left it: for association_usage_at (checkpointing false) from valid usage checkpoints where there are, for checkpoint_usage (true) from the jobs alone.';
CREATE FUNCTION @extschema@.association_usage_at(as_of timestamptz)
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
CREATE VIEW @extschema@.association_usage AS
SELECT * FROM @extschema@.association_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.association_usage IS 'association_usage_at(now()).';
CREATE OR REPLACE PROCEDURE @extschema@.checkpoint_usage(cluster text DEFAULT NULL,
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
    INSERT INTO @extschema@.usage_checkpoint_rows (cluster, account, user_name, raw_usage, jobs, pass_usage)
    SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs, NULLIF(u.pass_usage, u.raw_usage)
      FROM @extschema@._association_usage(checkpoint_usage.as_of, true, checkpoint_usage.cluster) u;
END
$$;
COMMENT ON PROCEDURE @extschema@.checkpoint_usage(text, timestamptz) IS
'Store every association''s decayed usage as of an instant (default now()) for one cluster or all (NULL), so that usage, sshare and sprio as of later instants read only the jobs since; run it every few minutes, like Slurm''s PriorityCalcPeriod.';

-- sshare.sql
CREATE FUNCTION @extschema@.association_tree_at(as_of timestamptz)
RETURNS TABLE (cluster text, algorithm text, account text, user_name text, parent text,
               id text, parent_id text, shares integer, usage float8, is_user boolean,
               raw_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.cluster, c.fairshare_algorithm, a.account, NULL::text, a.parent_account,
           'a:' OPERATOR(pg_catalog.||) a.account,
           'a:' OPERATOR(pg_catalog.||) a.parent_account,
           a.shares, 0::float8, false, 0::float8
      FROM @extschema@.accounts a
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
     WHERE @extschema@._check_as_of(association_tree_at.as_of)
    UNION ALL
    SELECT au.cluster, c.fairshare_algorithm, au.account, au.user_name, au.account,
           'u:' OPERATOR(pg_catalog.||) pg_catalog.length(au.account)::text
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.account
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.user_name,
           'a:' OPERATOR(pg_catalog.||) au.account,
           au.shares, COALESCE(u.pass_usage, 0), true, COALESCE(u.raw_usage, 0)
      FROM @extschema@.account_users au
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN @extschema@._association_usage(association_tree_at.as_of, false, NULL) u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name;
END;
COMMENT ON FUNCTION @extschema@.association_tree_at(timestamptz) IS
'Every cluster''s association tree (accounts and user associations) with each user association''s decayed usage as of an instant: the rows (id, parent_id, shares, usage, is_user) for the tree window functions; raw_usage adds, under decay_mode slurm_passes, the jobs ended since the last pass.';
-- the same, the raw usage column summed from raw_usage (slurm_passes: the
-- usage now, where the rest is computed from the usage of the last pass)
CREATE FUNCTION @extschema@._sshare_tree(id text, parent_id text, shares float8, usage float8, is_user boolean,
                                         algorithm text, dampening float8, raw_usage float8)
RETURNS @extschema@._sshare_tree_row AS 'MODULE_PATHNAME', 'fs_sshare_tree'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._sshare_tree(text, text, float8, float8, boolean, text, float8, float8) IS
'sshare''s tree columns of a row in one window function call: depth, tree_order and raw/norm usage, with NormShares, EffectvUsage, FairShare (and for fair_tree LevelFS and rank) under the given algorithm; raw usage summed from raw_usage (NULL: usage), the rest from usage.';
-- sshare's TRESRunMins of every association of the fair_tree and classic
-- clusters: for the jobs running at as_of in the association or below it
-- (started before it: one that starts at as_of itself is not counted yet),
-- each TRES's count × the seconds left of the job's time limit, in minutes
-- (the association's seconds divided by 60, truncated, as sshare prints
-- them).  slurmctld adds count × time limit when a job starts
-- (acct_policy_job_begin) and takes off the seconds run at each pass of its
-- decay thread (_apply_new_usage): with decay_mode 'slurm_passes' the
-- seconds run are counted up to the last pass, otherwise up to as_of.  A
-- job without a time limit counts nothing.  The TRES are Slurm's default
-- list (AccountingStorageTRES) in its order, and gres/gpu when a partition
-- of the cluster has GPUs.  slurmctld keeps these counts only under
-- AccountingStorageEnforce=limits; without it sshare prints 0 for every TRES.
-- One row per association with running jobs, and per cluster one row with
-- account NULL: the line of every other association (each TRES 0).
CREATE FUNCTION @extschema@._tres_run_mins_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, tres_run_mins text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH RECURSIVE names AS (
        SELECT c.cluster, c.decay_mode, c.priority_calc_period, c.priority_last_decay,
               ARRAY['cpu', 'mem', 'energy', 'node', 'billing', 'fs/disk', 'vmem', 'pages']
               OPERATOR(pg_catalog.||) CASE WHEN EXISTS (
                   SELECT FROM @extschema@.partitions p
                    WHERE p.cluster OPERATOR(pg_catalog.=) c.cluster AND p.gpus_per_node OPERATOR(pg_catalog.>) 0)
                 THEN ARRAY['gres/gpu'] ELSE '{}'::text[] END AS tres
          FROM @extschema@.clusters c
         WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
    ), running AS (
        -- the jobs running at as_of and the seconds left of their time limit
        SELECT j.cluster, j.account, j.user_name, j.tres, j.cpus, j.mem_mb, j.nodes, j.gpus, n.tres AS names,
               GREATEST(0::bigint,
                        pg_catalog.floor(pg_catalog.date_part('epoch', j.time_limit))::bigint
                        OPERATOR(pg_catalog.-) GREATEST(0::bigint, pg_catalog.floor(pg_catalog.date_part('epoch',
                            CASE WHEN n.decay_mode OPERATOR(pg_catalog.=) 'slurm_passes'
                                 THEN @extschema@.slurm_last_pass(_tres_run_mins_at.as_of, n.priority_calc_period,
                                                                  n.priority_last_decay)
                                 ELSE _tres_run_mins_at.as_of END
                            OPERATOR(pg_catalog.-) j.start_time))::bigint)) AS secs_left
          FROM @extschema@.jobs j
          JOIN names n ON n.cluster OPERATOR(pg_catalog.=) j.cluster
         WHERE j.start_time OPERATOR(pg_catalog.<) _tres_run_mins_at.as_of
           AND COALESCE(j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) _tres_run_mins_at.as_of
           AND j.time_limit IS NOT NULL
    ), user_secs AS (
        SELECT r.cluster, r.account, r.user_name, x.i,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*) CASE x.t
                   WHEN 'cpu' THEN r.cpus::bigint
                   WHEN 'mem' THEN COALESCE(@extschema@.tres_count(r.tres, 'mem')::bigint, r.mem_mb)
                   WHEN 'node' THEN COALESCE(@extschema@.tres_count(r.tres, 'node')::bigint, r.nodes::bigint)
                   WHEN 'billing' THEN COALESCE(@extschema@.tres_count(r.tres, 'billing')::bigint, 0::bigint)
                   WHEN 'gres/gpu' THEN COALESCE(@extschema@.tres_count(r.tres, 'gres/gpu')::bigint, r.gpus::bigint)
                   ELSE 0::bigint END) AS secs
          FROM running r
         CROSS JOIN LATERAL pg_catalog.unnest(r.names) WITH ORDINALITY x(t, i)
         GROUP BY r.cluster, r.account, r.user_name, x.i
    ), anc AS (
        -- every account with each of its ancestors (itself included)
        SELECT a.cluster, a.account, a.account AS ancestor, a.parent_account
          FROM @extschema@.accounts a
        UNION ALL
        SELECT x.cluster, x.account, p.account, p.parent_account
          FROM anc x
          JOIN @extschema@.accounts p
            ON p.cluster OPERATOR(pg_catalog.=) x.cluster AND p.account OPERATOR(pg_catalog.=) x.parent_account
    ), secs AS (
        SELECT u.cluster, u.account, u.user_name, u.i, u.secs FROM user_secs u
        UNION ALL
        SELECT u.cluster, x.ancestor, NULL::text, u.i, pg_catalog.sum(u.secs)
          FROM user_secs u
          JOIN anc x ON x.cluster OPERATOR(pg_catalog.=) u.cluster AND x.account OPERATOR(pg_catalog.=) u.account
         GROUP BY u.cluster, x.ancestor, u.i
    ), assocs AS (
        -- the associations with running jobs, and for every cluster the
        -- line of the others (account NULL): every TRES 0
        SELECT DISTINCT v.cluster, v.account, v.user_name FROM secs v
        UNION ALL
        SELECT n.cluster, NULL::text, NULL::text FROM names n
    )
    SELECT s.cluster, s.account, s.user_name,
           -- whole minutes, truncated: sshare divides integers
           pg_catalog.string_agg(x.t OPERATOR(pg_catalog.||) '='
                                 OPERATOR(pg_catalog.||) pg_catalog.div(COALESCE(v.secs, 0), 60)::text,
                                 ',' ORDER BY x.i)
      FROM assocs s
      JOIN names n ON n.cluster OPERATOR(pg_catalog.=) s.cluster
     CROSS JOIN LATERAL pg_catalog.unnest(n.tres) WITH ORDINALITY x(t, i)
      LEFT JOIN secs v ON v.cluster OPERATOR(pg_catalog.=) s.cluster AND v.account OPERATOR(pg_catalog.=) s.account
                      AND v.user_name IS NOT DISTINCT FROM s.user_name AND v.i OPERATOR(pg_catalog.=) x.i
     WHERE @extschema@._check_as_of(_tres_run_mins_at.as_of)
     GROUP BY s.cluster, s.account, s.user_name;
END;
COMMENT ON FUNCTION @extschema@._tres_run_mins_at(timestamptz) IS
'sshare''s TRESRunMins of the associations of the fair_tree and classic clusters with running jobs as of an instant (each TRES''s count × the seconds left of the time limits of the jobs running in it or below it, in minutes), and per cluster (account NULL) the line of the others.';
CREATE FUNCTION @extschema@.sshare_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, parent text, depth integer,
               tree_order bigint, algorithm text,
               raw_shares integer, norm_shares float8, raw_usage float8, raw_usage_int bigint,
               norm_usage float8, effectv_usage float8, fairshare float8, level_fs float8,
               fs_rank bigint, grp_tres_mins text, tres_run_mins text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH r AS (
        SELECT t.cluster, t.account, t.user_name, t.parent, t.algorithm, t.shares,
               @extschema@._sshare_tree(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.algorithm,
                   -- a subquery, not a join: a join with clusters would leave
                   -- the planner guessing 1/200 of the rows (issue 7)
                   CASE WHEN t.algorithm OPERATOR(pg_catalog.=) 'classic'
                        THEN (SELECT c.fairshare_dampening FROM @extschema@.clusters c
                               WHERE c.cluster OPERATOR(pg_catalog.=) t.cluster) END,
                   t.raw_usage)
                 OVER (PARTITION BY t.cluster) AS f
          FROM @extschema@.association_tree_at(sshare_at.as_of) t
         WHERE t.algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
    ), run AS MATERIALIZED (
        SELECT m.cluster, m.account, m.user_name, m.tres_run_mins
          FROM @extschema@._tres_run_mins_at(sshare_at.as_of) m
    )
    SELECT r.cluster, r.account, r.user_name, r.parent, (r.f).depth, (r.f).tree_order, r.algorithm,
           -- sshare: RawShares empty for the root, "parent" for NULL shares
           CASE WHEN (r.f).depth OPERATOR(pg_catalog.=) 0 THEN NULL ELSE r.shares END,
           (r.f).norm_shares,
           (r.f).raw_usage,
           pg_catalog.trunc((r.f).raw_usage)::bigint,
           -- sshare leaves the root's NormUsage empty
           CASE WHEN (r.f).depth OPERATOR(pg_catalog.=) 0 THEN NULL ELSE (r.f).norm_usage END,
           (r.f).effectv_usage,
           (r.f).fairshare,
           (r.f).level_fs,
           (r.f).fs_rank,
           -- GrpTRESMins: the model holds no association limits yet
           NULL::text,
           COALESCE(m.tres_run_mins, z.tres_run_mins)
      FROM r
      LEFT JOIN run m
        ON m.cluster OPERATOR(pg_catalog.=) r.cluster AND m.account OPERATOR(pg_catalog.=) r.account
       AND m.user_name IS NOT DISTINCT FROM r.user_name
      LEFT JOIN run z ON z.cluster OPERATOR(pg_catalog.=) r.cluster AND z.account IS NULL
     WHERE @extschema@._check_as_of(sshare_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.sshare_at(timestamptz) IS
'Slurm sshare -l as of an instant: every association of every fair_tree/classic cluster with RawShares, NormShares, RawUsage (decayed billing-seconds), NormUsage, EffectvUsage, FairShare, LevelFS, GrpTRESMins (NULL: no limits in the model) and TRESRunMins; ORDER BY cluster, tree_order for sshare''s listing.';
CREATE VIEW @extschema@.sshare AS
SELECT * FROM @extschema@.sshare_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.sshare IS 'sshare_at(now()): Slurm sshare -l for every fair_tree/classic cluster.';

-- priority.sql: the cluster size from the nodes
-- The cluster's size as Slurm's job-size factor counts it: every node once
-- (node_record_count) and the sum of their CPUs (cluster_cpus, each node's
-- effective CPUs), read from the nodes themselves.  Summing the partitions
-- would count a node once per partition holding it, and partitions sharing
-- nodes are the common case.  Takes `scontrol show node` (a record per node,
-- its lines after the first indented), `scontrol show node -o` (a line per
-- node) or slurm.conf's NodeName lines (host lists such as n[01-16,20],
-- NodeName=DEFAULT lines, CPUs= or Boards × SocketsPerBoard (Sockets) ×
-- CoresPerSocket × ThreadsPerCore); other lines are ignored.  A node's CPUs
-- are CPUEfctv (22.05: the CPUs left after CoreSpecCount), else CPUTot, else
-- CPUs, else the product.
CREATE FUNCTION @extschema@.slurm_cluster_size(nodes text, OUT total_nodes integer, OUT total_cpus integer)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    line text;
    rec text := NULL;           -- the node record being read
    recs text[] := '{}';
    defaults text := '';        -- NodeName=DEFAULT settings, for the records after them
    r text;
    kv jsonb;
    names text;
    n bigint;
    cpus bigint;
    nodes_total bigint := 0;
    cpus_total bigint := 0;
    item text;
    part text;
    lo text;
    hi text;
    count_item bigint;
    -- scontrol prints "OS=Linux ... #1 SMP ...": a # there is no comment
    is_conf boolean := nodes !~ 'CPUTot=';
BEGIN
    -- records: a NodeName= line and the indented lines after it
    FOREACH line IN ARRAY regexp_split_to_array(nodes, E'\r?\n') LOOP
        IF is_conf THEN
            line := regexp_replace(line, '#.*$', '');
        END IF;
        IF line ~ '^\s*NodeName=' THEN
            IF rec IS NOT NULL THEN recs := recs || rec; END IF;
            rec := line;
        ELSIF line ~ '^\s' AND rec IS NOT NULL THEN
            rec := rec || ' ' || line;
        ELSIF line !~ '^\s*$' THEN
            IF rec IS NOT NULL THEN recs := recs || rec; END IF;
            rec := NULL;        -- another slurm.conf line (PartitionName=, ...)
        END IF;
    END LOOP;
    IF rec IS NOT NULL THEN recs := recs || rec; END IF;

    FOREACH r IN ARRAY recs LOOP
        -- Key=Value tokens, keys in lower case as slurm.conf takes them
        SELECT COALESCE(jsonb_object_agg(lower(m.m[1]), m.m[2] ORDER BY m.i), '{}') INTO kv
          FROM regexp_matches(defaults || ' ' || r, '(\w+)=(\S*)', 'g') WITH ORDINALITY m(m, i);
        names := (SELECT m[1] FROM regexp_matches(r, 'NodeName=(\S+)') m);
        IF upper(names) = 'DEFAULT' THEN
            defaults := defaults || ' ' || regexp_replace(r, 'NodeName=\S+', '');
            CONTINUE;
        END IF;
        -- how many hosts the host list names: items split at commas outside
        -- brackets, each the product of its bracket ranges' sizes
        n := 0;
        FOREACH item IN ARRAY regexp_split_to_array(names, ',(?![^\[]*\])') LOOP
            count_item := 1;
            FOR part IN SELECT m[1] FROM regexp_matches(item, '\[([^\]]*)\]', 'g') m LOOP
                count_item := count_item * (
                    SELECT sum(CASE WHEN x ~ '^\d+-\d+$'
                                    THEN split_part(x, '-', 2)::bigint - split_part(x, '-', 1)::bigint + 1
                                    WHEN x ~ '^\d+$' THEN 1
                                    ELSE @extschema@._raise('22P02',
                                             format('slurm_cluster_size: cannot read the host range "%s" in "%s"', x, names),
                                             'Host lists look like n[01-16,20].', NULL::bigint) END)
                      FROM unnest(string_to_array(part, ',')) x);
            END LOOP;
            n := n + count_item;
        END LOOP;
        cpus := COALESCE((kv ->> 'cpuefctv')::bigint, (kv ->> 'cputot')::bigint, (kv ->> 'cpus')::bigint,
                         COALESCE((kv ->> 'boards')::bigint, 1)
                         * COALESCE((kv ->> 'socketsperboard')::bigint, (kv ->> 'sockets')::bigint, 1)
                         * COALESCE((kv ->> 'corespersocket')::bigint, 1)
                         * COALESCE((kv ->> 'threadspercore')::bigint, 1));
        nodes_total := nodes_total + n;
        cpus_total := cpus_total + n * cpus;
    END LOOP;
    IF nodes_total = 0 THEN
        RAISE EXCEPTION 'slurm_cluster_size: no node found in the text given'
            USING ERRCODE = '22023',
                  HINT = 'Pass the output of "scontrol show node" (or -o), or slurm.conf''s NodeName lines.';
    END IF;
    total_nodes := nodes_total;
    total_cpus := cpus_total;
END
$$;
COMMENT ON FUNCTION @extschema@.slurm_cluster_size(text) IS
'The node count and CPU count Slurm''s job-size factor divides by, from "scontrol show node" (or -o) output or slurm.conf NodeName lines: every node once, its CPUEfctv/CPUTot/CPUs; for clusters.total_nodes and total_cpus.';
REVOKE ALL ON FUNCTION @extschema@.slurm_cluster_size(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.slurm_cluster_size(text) TO fairshare_admin, fairshare_reader, fairshare_user;

-- sprio.sql
CREATE FUNCTION @extschema@.sprio_at(as_of timestamptz)
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
COMMENT ON FUNCTION @extschema@.sprio_at(timestamptz) IS
'sprio -l as of an instant: every job pending then (submitted and eligible, not started, not ended), its weighted factors rounded as sprio prints them and at full precision, the normalised factors, the truncated priority, and an explanation of each factor. STRICT: NULL as_of gives no rows; an infinite one raises 22008.';
CREATE VIEW @extschema@.sprio AS
SELECT * FROM @extschema@.sprio_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.sprio IS 'sprio_at(now()): the pending jobs and their priority factors now.';

-- security.sql: the private forms
CREATE FUNCTION @extschema@.my_sshare_at(as_of timestamptz)
RETURNS SETOF @extschema@.sshare
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.* FROM @extschema@.sshare_at(my_sshare_at.as_of) s
     WHERE s.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_sshare_at(timestamptz) IS
'The caller''s user associations of sshare_at(as_of): fair share computed over every user, only the caller''s rows returned (Slurm PrivateData=usage). STRICT: NULL as_of gives no rows.';
CREATE VIEW @extschema@.my_sshare AS
SELECT * FROM @extschema@.my_sshare_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.my_sshare IS 'my_sshare_at(now()): the caller''s sshare rows.';
CREATE FUNCTION @extschema@.my_sprio_at(as_of timestamptz)
RETURNS SETOF @extschema@.sprio
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.* FROM @extschema@.sprio_at(my_sprio_at.as_of) s
     WHERE s.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_sprio_at(timestamptz) IS
'The caller''s pending jobs of sprio_at(as_of), their priority computed over every user''s usage (Slurm PrivateData=jobs). STRICT: NULL as_of gives no rows.';
CREATE VIEW @extschema@.my_sprio AS
SELECT * FROM @extschema@.my_sprio_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.my_sprio IS 'my_sprio_at(now()): the caller''s pending jobs and their priority factors.';

-- Grants, as security.sql's loop gives them: STABLE functions to the reader
-- and the administrator (and to plain users the ones in its list),
-- SECURITY DEFINER ones as named there, IMMUTABLE ones to everyone; views
-- read with the caller's rights.
REVOKE ALL ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) TO fairshare_admin, fairshare_reader;
GRANT EXECUTE ON FUNCTION @extschema@._association_usage(timestamptz, boolean, text) TO fairshare_user;
REVOKE ALL ON FUNCTION @extschema@.association_usage_at(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.association_usage_at(timestamptz) TO fairshare_admin, fairshare_reader;
GRANT EXECUTE ON FUNCTION @extschema@.association_usage_at(timestamptz) TO fairshare_user;
REVOKE ALL ON @extschema@.association_usage FROM PUBLIC;
GRANT SELECT ON @extschema@.association_usage TO fairshare_admin, fairshare_reader;
GRANT SELECT ON @extschema@.association_usage TO fairshare_user;
ALTER VIEW @extschema@.association_usage SET (security_invoker = true);
REVOKE ALL ON FUNCTION @extschema@.association_tree_at(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.association_tree_at(timestamptz) TO fairshare_admin, fairshare_reader;
REVOKE ALL ON FUNCTION @extschema@._sshare_tree(text, text, float8, float8, boolean, text, float8, float8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._sshare_tree(text, text, float8, float8, boolean, text, float8, float8) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON FUNCTION @extschema@._tres_run_mins_at(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._tres_run_mins_at(timestamptz) TO fairshare_admin, fairshare_reader;
REVOKE ALL ON FUNCTION @extschema@.sshare_at(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.sshare_at(timestamptz) TO fairshare_admin, fairshare_reader;
REVOKE ALL ON @extschema@.sshare FROM PUBLIC;
GRANT SELECT ON @extschema@.sshare TO fairshare_admin, fairshare_reader;
ALTER VIEW @extschema@.sshare SET (security_invoker = true);
REVOKE ALL ON FUNCTION @extschema@.sprio_at(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.sprio_at(timestamptz) TO fairshare_admin, fairshare_reader;
REVOKE ALL ON @extschema@.sprio FROM PUBLIC;
GRANT SELECT ON @extschema@.sprio TO fairshare_admin, fairshare_reader;
ALTER VIEW @extschema@.sprio SET (security_invoker = true);
REVOKE ALL ON FUNCTION @extschema@.my_sshare_at(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.my_sshare_at(timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON @extschema@.my_sshare FROM PUBLIC;
GRANT SELECT ON @extschema@.my_sshare TO fairshare_admin, fairshare_reader;
GRANT SELECT ON @extschema@.my_sshare TO fairshare_user;
ALTER VIEW @extschema@.my_sshare SET (security_invoker = true);
REVOKE ALL ON FUNCTION @extschema@.my_sprio_at(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.my_sprio_at(timestamptz) TO fairshare_admin, fairshare_reader, fairshare_user;
REVOKE ALL ON @extschema@.my_sprio FROM PUBLIC;
GRANT SELECT ON @extschema@.my_sprio TO fairshare_admin, fairshare_reader;
GRANT SELECT ON @extschema@.my_sprio TO fairshare_user;
ALTER VIEW @extschema@.my_sprio SET (security_invoker = true);
