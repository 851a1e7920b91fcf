-- ---------------------------------------------------------------------------
-- usage: each job billed under its partition's weights, and the decayed
-- usage of every user association, as of any instant (time travel), from
-- the jobs and the usage checkpoints (their tables and checkpoint_usage are
-- in checkpoint.sql, the next piece).
-- ---------------------------------------------------------------------------

-- Billing rate of every job (billable TRES per second, × QOS UsageFactor).
-- Pending jobs carry their requested TRES; jobs without a TRES string are
-- billed by their CPU count.  A run is billed with its partition's weights
-- and mode of its start, as slurmctld computes a job's billable TRES once
-- when it starts (docs/history.md#usagefactor-and-billing-weights-as-of-an-instant);
-- the UsageFactor is the QOS's present one.
CREATE VIEW @extschema@.job_billing AS
SELECT j.cluster, j.job_id, j.user_name, j.account, j.partition, j.state,
       j.start_time, j.end_time,
       @extschema@.tres_billing(COALESCE(j.tres, 'cpu=' OPERATOR(pg_catalog.||) j.cpus),
                                CASE WHEN v.settings IS NULL THEN p.billing_weights
                                     ELSE v.settings OPERATOR(pg_catalog.->>) 'billing_weights' END,
                                CASE WHEN v.settings IS NULL THEN p.billing_mode
                                     ELSE v.settings OPERATOR(pg_catalog.->>) 'billing_mode' END)
         OPERATOR(pg_catalog.*) COALESCE(q.usage_factor, 1) AS billing
  FROM @extschema@.jobs j
  JOIN @extschema@.partitions p
    ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
  -- the partition's version at the run's start, where it changed since
  LEFT JOIN @extschema@.settings_history v
    ON v.cluster OPERATOR(pg_catalog.=) j.cluster AND v.table_name OPERATOR(pg_catalog.=) 'partitions'
   AND v.name OPERATOR(pg_catalog.=) j.partition AND v.valid_to IS NOT NULL
   AND j.start_time OPERATOR(pg_catalog.>=) v.valid_from AND j.start_time OPERATOR(pg_catalog.<) v.valid_to
  LEFT JOIN @extschema@.qos q
    ON q.cluster OPERATOR(pg_catalog.=) j.cluster AND q.qos OPERATOR(pg_catalog.=) j.qos;
COMMENT ON VIEW @extschema@.job_billing IS 'Each job''s Slurm billing rate under its partition''s TRESBillingWeights and billing mode of its start, times its QOS''s UsageFactor.';

-- The as_of of a time-travel function: NULL is 22004 and an infinite
-- instant 22008, whatever rows the tables hold.  Used as a WHERE clause
-- without columns, it is evaluated once per query (a one-time filter, or
-- at plan time for a constant), and keeps the SQL functions inlinable.
CREATE FUNCTION @extschema@_internal._check_as_of(as_of timestamptz)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF as_of IS NULL THEN
        RAISE EXCEPTION 'as_of must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass the instant to report on, e.g. now().';
    ELSIF NOT isfinite(as_of) THEN
        RAISE EXCEPTION 'as_of must be a finite timestamp, not %', as_of
            USING ERRCODE = '22008', HINT = 'Pass the instant to report on, e.g. now().';
    END IF;
    RETURN true;
END
$$;

-- slurmctld's starts of each cluster (docs/decay.md#slurmctld-restarts):
-- with decay_mode 'slurm_passes' each start is a pass of the decay thread
-- and sets the phase of the passes after it (priority_last_decay holds
-- before the first one); a NOW reset happens at a start.  Filled by the
-- administrator or a script from slurmctld's log or state file, never
-- guessed from the Slurm version (from 23.11 every `scontrol reconfigure`
-- is a start, docs/slurm.md#scontrol-reconfigure-restarts-slurmctld); the
-- slurmdbd feed does not fill it (slurmdbd keeps no record of the starts).
CREATE TABLE @extschema@.slurmctld_starts (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    -- the instant the new slurmctld's decay thread started (its first pass)
    started_at           timestamptz NOT NULL,
    -- where the instant was read (free text, e.g. the log line)
    note                 text,
    PRIMARY KEY (cluster, started_at)
);
COMMENT ON TABLE @extschema@.slurmctld_starts IS
'The instants slurmctld started (or restarted, e.g. at a reconfigure from Slurm 23.11 on) on each cluster: with decay_mode slurm_passes, each is a pass and sets the phase of the passes after it.';

-- A start is a finite instant of the cluster's accounting: 22008 and
-- 22023 with the reason, rather than a CHECK's 23514 without one.
CREATE FUNCTION @extschema@_internal._slurmctld_start_check()
RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    floor_at timestamptz;
BEGIN
    IF NOT isfinite(NEW.started_at) THEN
        RAISE EXCEPTION 'slurmctld start of cluster % must be a finite instant, not %', quote_literal(NEW.cluster), NEW.started_at
            USING ERRCODE = '22008',
                  HINT = 'Give the instant slurmctld started, e.g. from the "slurmctld version ... started" line of its log.';
    END IF;
    SELECT c.accounting_start INTO floor_at FROM @extschema@.clusters c WHERE c.cluster = NEW.cluster;
    IF NEW.started_at < floor_at THEN
        RAISE EXCEPTION 'slurmctld start % of cluster % is before its accounting start %',
                        NEW.started_at, quote_literal(NEW.cluster), floor_at
            USING ERRCODE = '22023',
                  HINT = 'A start before clusters.accounting_start is a typing or clock error: correct it, or set accounting_start earlier if the accounting truly began then.';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER slurmctld_start_check BEFORE INSERT OR UPDATE ON @extschema@.slurmctld_starts
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._slurmctld_start_check();
SELECT pg_catalog.pg_extension_config_dump('@extschema@.slurmctld_starts', '');

-- A cluster's slurmctld starts, ascending (NULL: none), as the pass
-- functions take them.
CREATE FUNCTION @extschema@_internal._slurmctld_starts(cluster text)
RETURNS timestamptz[] LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT pg_catalog.array_agg(s.started_at ORDER BY s.started_at)
      FROM @extschema@.slurmctld_starts s
     WHERE s.cluster OPERATOR(pg_catalog.=) _slurmctld_starts.cluster;
END;
COMMENT ON FUNCTION @extschema@_internal._slurmctld_starts(text) IS
'A cluster''s slurmctld starts (fairshare.slurmctld_starts), ascending, NULL when none.';

-- The instant of a cluster's last usage reset at or before as_of
-- (PriorityUsageResetPeriod; NULL: none).  Periods start as slurmctld's
-- _next_reset counts them, in local time (the cluster's time zone):
-- DAILY at midnight, WEEKLY at midnight between Saturday and Sunday,
-- MONTHLY on the 1st, QUARTERLY on January, April, July and October 1st,
-- YEARLY on January 1st; NOW once, at last_reset.  slurmctld zeroes the
-- usage at the first pass of its decay thread at or after the period's
-- start: with 'slurm_passes' that pass is the reset instant (and when it
-- comes after as_of, the previous period's is).  Usage charged from the
-- reset instant on counts (usage.sql, _association_usage).
CREATE FUNCTION @extschema@_internal._usage_reset_at(period text, last_reset timestamptz, time_zone text,
                                            decay_mode text, calc_period interval, phase timestamptz,
                                            as_of timestamptz, starts timestamptz[])
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
            PERFORM @extschema@_internal._check_usage_reset(period, last_reset);
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
    -- the first pass at or after b (a start of slurmctld is one: a NOW
    -- reset given at a start happens at it)
    r := @extschema@.slurm_next_pass(b - interval '1 microsecond', calc_period, phase, starts);
    IF r > as_of AND step IS NOT NULL THEN
        b := timezone(time_zone, local_start - step);
        r := @extschema@.slurm_next_pass(b - interval '1 microsecond', calc_period, phase, starts);
    END IF;
    RETURN CASE WHEN r <= as_of THEN r END;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._usage_reset_at(text, timestamptz, text, text, interval, timestamptz, timestamptz, timestamptz[]) IS
'The instant of a cluster''s last usage reset (PriorityUsageResetPeriod) at or before as_of, or NULL: the period''s start in the cluster''s time zone, with decay_mode slurm_passes the first pass of slurmctld from then (its starts among the passes).';
-- The same for a cluster without slurmctld starts.
CREATE FUNCTION @extschema@_internal._usage_reset_at(period text, last_reset timestamptz, time_zone text,
                                            decay_mode text, calc_period interval, phase timestamptz,
                                            as_of timestamptz)
RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
    SELECT @extschema@_internal._usage_reset_at(period, last_reset, time_zone, decay_mode, calc_period, phase, as_of,
                                                NULL::timestamptz[])
$$;
COMMENT ON FUNCTION @extschema@_internal._usage_reset_at(text, timestamptz, text, text, interval, timestamptz, timestamptz) IS
'_usage_reset_at without slurmctld starts.';

-- The decay law of a cluster: its decay mode, half-life, and the interval
-- and factor of the step decay.  slurmctld keeps each association's usage
-- as a running total that every pass decays with the half-life in force
-- at that pass, so a change of the law decays the usage before it with the
-- old law up to the change and with the new one after it: piecewise
-- (docs/history.md#the-decay-as-of-an-instant).  The newest instant at or
-- before up_to at which the cluster's law changed (NULL: it never did, or
-- the scenario of the report running overrides the law, which then holds
-- over the whole history).
CREATE FUNCTION @extschema@_internal._decay_law_changed(cluster text, up_to timestamptz)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT pg_catalog.max(h.valid_to)
      FROM @extschema@.settings_history h
      JOIN @extschema@.clusters l ON l.cluster OPERATOR(pg_catalog.=) h.cluster
      -- the version that followed (the live row when none is kept)
      LEFT JOIN @extschema@.settings_history n
        ON n.cluster OPERATOR(pg_catalog.=) h.cluster AND n.table_name OPERATOR(pg_catalog.=) 'clusters'
       AND n.name OPERATOR(pg_catalog.=) '' AND n.valid_from OPERATOR(pg_catalog.=) h.valid_to
     CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(l, h.settings) o
     CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(l, COALESCE(n.settings, '{}'::jsonb)) v
     WHERE h.cluster OPERATOR(pg_catalog.=) _decay_law_changed.cluster
       AND h.table_name OPERATOR(pg_catalog.=) 'clusters' AND h.name OPERATOR(pg_catalog.=) ''
       AND h.valid_to OPERATOR(pg_catalog.<=) _decay_law_changed.up_to
       -- typed, so that '1 day' and '24 hours' are one law
       AND ROW(o.decay_mode, o.decay_half_life, o.decay_interval, o.decay_factor)
           IS DISTINCT FROM ROW(v.decay_mode, v.decay_half_life, v.decay_interval, v.decay_factor)
       AND NOT @extschema@_internal._scenario_overrides(
               h.cluster, ARRAY['decay_mode', 'decay_half_life', 'decay_interval', 'decay_factor']);
END;
COMMENT ON FUNCTION @extschema@_internal._decay_law_changed(text, timestamptz) IS
'The newest instant at or before up_to at which a cluster''s decay law (mode, half-life, step interval and factor) changed; NULL when it never did or the scenario of the report running overrides it.';

-- A QOS's UsageFactor: slurmctld multiplies each pass's charge by the
-- factor the QOS has at that pass (_apply_new_usage), so a change splits
-- the usage as a change of the decay law does: the runs' parts before it
-- at the old factor, after it at the new one
-- (docs/history.md#usagefactor-and-billing-weights-as-of-an-instant).
-- The newest instant at or before up_to at which the UsageFactor of one of
-- a cluster's QOS changed: a version of the QOS began with another factor
-- than the one before it, or one ended with none after it (the QOS
-- deleted: a run whose QOS is unknown is charged at 1, and so is one of a
-- QOS re-created later, between the two); NULL when none did.  A QOS whose
-- UsageFactor the scenario of the report running overrides holds that one
-- over the whole history, and its changes are left out.
CREATE FUNCTION @extschema@_internal._usage_factor_changed(cluster text, up_to timestamptz)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT pg_catalog.max(x.at)
      FROM (-- a version begins: its factor against the one that ended
            -- then (none: the QOS did not exist, 1)
            SELECT v.name, v.valid_from AS at
              FROM @extschema@.settings_history v
              LEFT JOIN @extschema@.settings_history b
                ON b.cluster OPERATOR(pg_catalog.=) v.cluster AND b.table_name OPERATOR(pg_catalog.=) 'qos'
               AND b.name OPERATOR(pg_catalog.=) v.name AND b.valid_to OPERATOR(pg_catalog.=) v.valid_from
             WHERE v.cluster OPERATOR(pg_catalog.=) _usage_factor_changed.cluster
               AND v.table_name OPERATOR(pg_catalog.=) 'qos'
               AND v.valid_from OPERATOR(pg_catalog.>) '-infinity'::timestamptz
               AND v.valid_from OPERATOR(pg_catalog.<=) _usage_factor_changed.up_to
               AND COALESCE((b.settings OPERATOR(pg_catalog.->>) 'usage_factor')::float8, 1::float8)
                   IS DISTINCT FROM (v.settings OPERATOR(pg_catalog.->>) 'usage_factor')::float8
            UNION ALL
            -- a version ends with none after it: the QOS deleted
            SELECT h.name, h.valid_to
              FROM @extschema@.settings_history h
             WHERE h.cluster OPERATOR(pg_catalog.=) _usage_factor_changed.cluster
               AND h.table_name OPERATOR(pg_catalog.=) 'qos'
               AND h.valid_to OPERATOR(pg_catalog.<=) _usage_factor_changed.up_to
               AND (h.settings OPERATOR(pg_catalog.->>) 'usage_factor')::float8 OPERATOR(pg_catalog.<>) 1::float8
               AND NOT EXISTS (SELECT FROM @extschema@.settings_history n
                                WHERE n.cluster OPERATOR(pg_catalog.=) h.cluster
                                  AND n.table_name OPERATOR(pg_catalog.=) 'qos'
                                  AND n.name OPERATOR(pg_catalog.=) h.name
                                  AND n.valid_from OPERATOR(pg_catalog.=) h.valid_to)) x
     WHERE NOT EXISTS (SELECT FROM @extschema@.scenario_settings s
                        WHERE s.scenario OPERATOR(pg_catalog.=) @extschema@_internal._scenario()
                          AND s.cluster OPERATOR(pg_catalog.=) _usage_factor_changed.cluster
                          AND s.table_name OPERATOR(pg_catalog.=) 'qos' AND s.name OPERATOR(pg_catalog.=) x.name
                          AND s.settings OPERATOR(pg_catalog.?) 'usage_factor');
END;
COMMENT ON FUNCTION @extschema@_internal._usage_factor_changed(text, timestamptz) IS
'The newest instant at or before up_to at which the UsageFactor of one of a cluster''s QOS changed; NULL when none did (a QOS whose UsageFactor the scenario of the report running overrides is left out).';

-- What splits a cluster's usage into pieces: the newest change, at or
-- before up_to, of its decay law or of one of its QOS's UsageFactor.
CREATE FUNCTION @extschema@_internal._usage_law_changed(cluster text, up_to timestamptz)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT GREATEST(@extschema@_internal._decay_law_changed(_usage_law_changed.cluster, _usage_law_changed.up_to),
                    @extschema@_internal._usage_factor_changed(_usage_law_changed.cluster,
                                                               _usage_law_changed.up_to));
END;
COMMENT ON FUNCTION @extschema@_internal._usage_law_changed(text, timestamptz) IS
'The newest instant at or before up_to at which a cluster''s decay law or one of its QOS''s UsageFactor changed (the usage is piecewise over them); NULL when none did.';

-- Every cluster's live row with the decay law in force at as_of laid over
-- it, and the scenario's overrides over both (as _clusters_scenario); its
-- other settings stay the live ones (docs/history.md#the-decay-as-of-an-instant).
CREATE FUNCTION @extschema@_internal._clusters_decay_law_at(as_of timestamptz)
RETURNS SETOF @extschema@.clusters
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the table's row (typed: Citus sends this to the workers, and a
    -- function's row laid over would be an anonymous record there), the
    -- law of as_of over it, the scenario's overrides over both
    SELECT r.*
      FROM @extschema@.clusters c
      LEFT JOIN @extschema@.settings_history h
        ON h.cluster OPERATOR(pg_catalog.=) c.cluster AND h.table_name OPERATOR(pg_catalog.=) 'clusters'
       AND h.name OPERATOR(pg_catalog.=) ''
       AND h.valid_from OPERATOR(pg_catalog.<=) _clusters_decay_law_at.as_of
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) _clusters_decay_law_at.as_of)
       AND NOT @extschema@_internal._scenario_overrides(
               c.cluster, ARRAY['decay_mode', 'decay_half_life', 'decay_interval', 'decay_factor'])
     -- (a version holds every column: _settings_of.  No subquery here: a
     -- correlated one is parallel restricted, and the usage's scan of the
     -- runs, which joins this, ran serial at twice the time)
     CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(c,
               CASE WHEN h.settings IS NULL THEN '{}'::jsonb
                    ELSE pg_catalog.jsonb_build_object(
                           'decay_mode', h.settings OPERATOR(pg_catalog.->) 'decay_mode',
                           'decay_half_life', h.settings OPERATOR(pg_catalog.->) 'decay_half_life',
                           'decay_interval', h.settings OPERATOR(pg_catalog.->) 'decay_interval',
                           'decay_factor', h.settings OPERATOR(pg_catalog.->) 'decay_factor') END
               OPERATOR(pg_catalog.||) @extschema@_internal._scenario_settings(c.cluster, 'clusters', '')) r;
END;
COMMENT ON FUNCTION @extschema@_internal._clusters_decay_law_at(timestamptz) IS
'Every cluster''s row (with the overrides of the scenario of the report running) under the decay law in force at an instant.';

-- Decayed usage (billing-seconds) and jobs of every user association with
-- jobs, as of an instant, with its cluster's decay: of one cluster, or of
-- every cluster when only_cluster is NULL.  A job counts from its start; a
-- job still running at as_of counts up to as_of; a job that started after
-- as_of does not count (what was known then).  With decay_mode
-- 'slurm_passes' a job counts as slurmctld's passes charged it (decay.c):
-- up to the last pass by as_of while it runs, and all of it once it ended;
-- pass_usage is then the usage as that last pass left it (the end charges
-- since left out), from which sshare's tree columns are computed; for the
-- other modes it is raw_usage.
--
-- A usage reset (PriorityUsageResetPeriod) at R <= as_of: only what was
-- charged from R on counts.  For the continuous decays that is each job's
-- part after R.  slurmctld resets at a pass and charges, in that same pass,
-- the running jobs' stretches since the previous pass: with 'slurm_passes'
-- a job that ended before R counts nothing, and one that ended from R on
-- counts from the pass before R (R − priority_calc_period, or the last pass
-- of the run before when R is a slurmctld start), its first charge after R
-- being that whole stretch.
--
-- For association_usage_at (checkpointing false), a cluster with a valid
-- checkpoint at T0 <= as_of, and no usage reset between T0 and as_of,
-- starts from the newest such: its usage times the weight at as_of of a
-- unit charged at T0 (the aggregate's own point form over one row, so the
-- decay is counted exactly as decay.c counts it), plus the jobs' parts
-- after T0; the other clusters are read from the jobs alone.  With
-- 'slurm_passes' the parts after T0 are those charged after T0: the jobs
-- that ended after T0, from the last pass P(T0) at or before T0 (their
-- first charge after T0 is the stretch from P(T0)).  With checkpointing
-- true (checkpoint_usage from_jobs), every cluster is read from the jobs
-- alone.
--
-- The decay law (mode, half-life, step) is the one in force at decay_at
-- (the 3-argument form: at as_of).  A cluster whose law changed at C <=
-- decay_at, with no newer checkpoint, starts from C as from a checkpoint:
-- the usage as of C under the law before C (this function at C, its law
-- read at C - 1 microsecond, itself piecewise before C) decayed with the
-- new law, plus the jobs' parts after C (docs/history.md#the-decay-as-of-an-instant).
-- A checkpoint older than C is not used past C.
--
-- The jobs are aggregated first, per association, and the associations
-- joined after (association_usage_at): one scan of the job table
-- (parallel, hash-aggregated) instead of one index probe per association,
-- which reads a large table in random order (docs/performance.md).
-- No merge joins: the checkpoint's rows (every association) and the
-- associations that ran since are joined by hash; a merge join sorted the
-- 75,001 rows by their names, in the database's collation (0.19 s of the
-- function's 0.49 s at 10^7 jobs, against 0.23 s in all without).
-- PL/pgSQL plans each call with its values (force_custom_plan): the
-- checkpoints, resets and pass clusters found decide which branches run (a
-- branch whose condition is false is dropped from the plan), and the
-- planner sees how few jobs end after the oldest checkpoint.
CREATE FUNCTION @extschema@_internal._association_usage(as_of timestamptz, checkpointing boolean, only_cluster text,
                                                       decay_at timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint, pass_usage float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan
SET enable_mergejoin = off
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
    -- the decay law's instant, and per cluster whose law changed by then
    -- (and has no checkpoint since) the instant C of the newest change:
    -- such a cluster starts from C (its rows: this function at C), and
    -- is among cp_clusters too; ck_*: the checkpoints proper
    law_at timestamptz := COALESCE(_association_usage.decay_at, _association_usage.as_of);
    bd_clusters text[] := '{}';
    bd_times timestamptz[] := '{}';
    ck_clusters text[] := '{}';
    ck_times timestamptz[] := '{}';
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
    any_st boolean;
    -- the billing overrides of the scenario of the report running, if any
    -- (docs/history.md#the-policy-lab): {cluster: {partition: settings}}
    -- and {cluster: {qos: settings}}, NULL without
    sc_part jsonb;
    sc_qos jsonb;
    any_bill boolean;
    -- whether a partition's settings changed (a run is billed with the
    -- weights of its start) and whether a QOS's settings at law_at are a
    -- version kept rather than the live row (its UsageFactor then): both
    -- constants of the custom plan, false for a centre that changed none
    any_pv boolean;
    any_qv boolean;
BEGIN
    PERFORM @extschema@_internal._check_as_of(_association_usage.as_of);
    SELECT jsonb_object_agg(x.cluster, x.o) FILTER (WHERE x.table_name = 'partitions'),
           jsonb_object_agg(x.cluster, x.o) FILTER (WHERE x.table_name = 'qos')
      INTO sc_part, sc_qos
      FROM (SELECT s.cluster, s.table_name, jsonb_object_agg(s.name, s.settings) AS o
              FROM @extschema@.scenario_settings s
             WHERE s.scenario = @extschema@_internal._scenario()
               AND s.table_name IN ('partitions', 'qos')
               AND s.settings ?| ARRAY['billing_weights', 'billing_mode', 'usage_factor']
             GROUP BY s.cluster, s.table_name) x;
    any_bill := sc_part IS NOT NULL OR sc_qos IS NOT NULL;
    any_pv := EXISTS (SELECT FROM @extschema@.settings_history h
                       WHERE h.table_name = 'partitions' AND h.valid_to IS NOT NULL);
    any_qv := EXISTS (SELECT FROM @extschema@.settings_history h
                       WHERE h.table_name = 'qos' AND (h.valid_to > law_at OR h.valid_from > law_at));
    -- per cluster: its last pass and its last reset, once
    SELECT COALESCE(array_agg(x.cluster ORDER BY x.cluster) FILTER (WHERE x.reset_at IS NOT NULL), '{}'),
           COALESCE(array_agg(x.reset_at ORDER BY x.cluster) FILTER (WHERE x.reset_at IS NOT NULL), '{}'),
           COALESCE(array_agg(CASE WHEN x.decay_mode = 'slurm_passes'
                                   THEN @extschema@.slurm_last_pass(x.reset_at - interval '1 microsecond',
                                                                    x.priority_calc_period, x.priority_last_decay,
                                                                    x.starts)
                                   ELSE x.reset_at END
                              ORDER BY x.cluster) FILTER (WHERE x.reset_at IS NOT NULL), '{}'),
           COALESCE(array_agg(x.cluster ORDER BY x.cluster) FILTER (WHERE x.decay_mode = 'slurm_passes'), '{}'),
           COALESCE(array_agg(@extschema@.slurm_last_pass(_association_usage.as_of, x.priority_calc_period,
                                                          x.priority_last_decay, x.starts)
                              ORDER BY x.cluster) FILTER (WHERE x.decay_mode = 'slurm_passes'), '{}')
      INTO rs_clusters, rs_at, rs_from, ps_clusters, ps_last
      FROM (SELECT c.cluster, c.decay_mode, c.priority_calc_period, c.priority_last_decay, st.starts,
                   @extschema@_internal._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                               c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                               _association_usage.as_of, st.starts) AS reset_at
              -- the decay of the scenario of the report running, if any
              -- (docs/history.md#the-policy-lab)
              FROM @extschema@_internal._clusters_decay_law_at(law_at) c
             CROSS JOIN LATERAL (SELECT CASE WHEN c.decay_mode = 'slurm_passes'
                                             THEN @extschema@_internal._slurmctld_starts(c.cluster) END AS starts) st
             WHERE _association_usage.only_cluster IS NULL OR c.cluster = _association_usage.only_cluster) x;
    -- whether a 'slurm_passes' cluster has slurmctld starts
    any_st := EXISTS (SELECT FROM @extschema@.slurmctld_starts s WHERE s.cluster = ANY (ps_clusters));
    -- per cluster, the newest change of its decay law or of a QOS's
    -- UsageFactor by law_at (none before a reset after it: the usage then
    -- starts from the reset)
    SELECT COALESCE(array_agg(b.cluster ORDER BY b.cluster), '{}'), COALESCE(array_agg(b.at ORDER BY b.cluster), '{}')
      INTO bd_clusters, bd_times
      FROM (SELECT c.cluster, @extschema@_internal._usage_law_changed(c.cluster, law_at) AS at
              FROM @extschema@.clusters c
             WHERE _association_usage.only_cluster IS NULL OR c.cluster = _association_usage.only_cluster) b
     WHERE b.at IS NOT NULL
       AND NOT COALESCE(rs_at[array_position(rs_clusters, b.cluster)] > b.at, false);
    -- a change before the cluster's first run splits nothing (no usage
    -- before it), as when a centre sets its decay before loading its runs:
    -- read once, under the law after it.  One probe of jobs_first_event_idx
    -- per cluster with a change (a statement of its own, not a correlated
    -- subquery, which Citus cannot run over the distributed runs)
    FOR i IN 1 .. cardinality(bd_clusters) LOOP
        PERFORM FROM @extschema@.jobs j
          WHERE COALESCE(j.start_time, j.end_time, 'infinity'::timestamptz) <= bd_times[i]
            AND j.cluster = bd_clusters[i]
          LIMIT 1;
        IF NOT FOUND THEN
            bd_times[i] := NULL;
        END IF;
    END LOOP;
    SELECT COALESCE(array_agg(b.cluster ORDER BY b.cluster), '{}'), COALESCE(array_agg(b.at ORDER BY b.cluster), '{}')
      INTO bd_clusters, bd_times
      FROM unnest(bd_clusters, bd_times) b(cluster, at)
     WHERE b.at IS NOT NULL;
    IF NOT _association_usage.checkpointing THEN
        -- per cluster, the newest valid checkpoint at or before as_of, and
        -- not before the newest change of its decay law
        SELECT COALESCE(array_agg(k.cluster ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(k.as_of ORDER BY k.cluster), '{}')
          INTO ck_clusters, ck_times
          FROM (SELECT DISTINCT ON (x.cluster) x.cluster, x.as_of
                  FROM @extschema@.usage_checkpoints x
                 WHERE x.invalidated_at IS NULL AND x.as_of <= _association_usage.as_of
                   AND x.as_of >= COALESCE(bd_times[array_position(bd_clusters, x.cluster)], '-infinity')
                   AND (_association_usage.only_cluster IS NULL OR x.cluster = _association_usage.only_cluster)
                   -- a scenario's other decay, billing or UsageFactor:
                   -- the checkpoint's usage was computed with the live ones,
                   -- so every job is read
                   AND NOT @extschema@_internal._scenario_overrides(
                           x.cluster, ARRAY['decay_half_life', 'decay_mode', 'decay_interval', 'decay_factor',
                                            'priority_calc_period', 'usage_reset_period', 'usage_last_reset',
                                            'billing_weights', 'billing_mode', 'usage_factor'])
                 ORDER BY x.cluster, x.as_of DESC) k
         -- a reset after T0 leaves nothing of what the checkpoint holds
         WHERE NOT COALESCE(rs_at[array_position(rs_clusters, k.cluster)] > k.as_of, false);
    END IF;
    -- the changes of the law newer than the checkpoint (or without one)
    SELECT COALESCE(array_agg(b.cluster ORDER BY b.cluster), '{}'), COALESCE(array_agg(b.at ORDER BY b.cluster), '{}')
      INTO bd_clusters, bd_times
      FROM unnest(bd_clusters, bd_times) b(cluster, at)
     WHERE b.cluster <> ALL (ck_clusters);
    cp_clusters := ck_clusters || bd_clusters;
    cp_times := ck_times || bd_times;
    IF cardinality(cp_clusters) > 0 THEN
        -- where the jobs' parts after T0 start, and the decay from T0 to
        -- as_of under the law of law_at (same order)
        SELECT array_agg(CASE WHEN c.decay_mode = 'slurm_passes'
                              THEN @extschema@.slurm_last_pass(k.as_of, c.priority_calc_period,
                                                               c.priority_last_decay,
                                                               @extschema@_internal._slurmctld_starts(c.cluster))
                              ELSE k.as_of END ORDER BY k.o),
               array_agg(w.decay ORDER BY k.o),
               min(k.as_of)
          INTO cp_from, cp_decay, since
          FROM unnest(cp_clusters, cp_times) WITH ORDINALITY k(cluster, as_of, o)
          JOIN @extschema@_internal._clusters_decay_law_at(law_at) c ON c.cluster = k.cluster
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
                        @extschema@_internal._decayed_usage_slurm_passes_point(
                            one.u, k.as_of, _association_usage.as_of, c.decay_half_life, c.priority_calc_period,
                            c.priority_last_decay, @extschema@_internal._slurmctld_starts(c.cluster))
                          FILTER (WHERE c.decay_mode = 'slurm_passes')) AS decay
                 FROM (VALUES (1::float8)) one (u)) w;
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
               -- its cluster's slurmctld starts (NULL: none)
               j.starts,
               -- a job counts once: in the checkpoint if it started by t0
               CASE WHEN j.from_cp AND j.start_time <= j.t0 THEN 0 ELSE 1 END::bigint AS n
          FROM (SELECT b.cluster, b.account, b.user_name, b.start_time, b.end_time, b.billing,
                       c.decay_mode, c.decay_half_life, c.decay_interval, c.decay_factor,
                       c.priority_calc_period, c.priority_last_decay, st.starts,
                       any_cp AND b.cluster = ANY (cp_clusters) AS from_cp,
                       cp_times[array_position(cp_clusters, b.cluster)] AS t0,
                       cp_from[array_position(cp_clusters, b.cluster)] AS cp_from,
                       CASE WHEN any_rs THEN rs_from[array_position(rs_clusters, b.cluster)] END AS reset_from
                  -- job_billing's billing: the billing weights and mode of
                  -- the run's start, the UsageFactor of law_at
                  -- (docs/history.md#usagefactor-and-billing-weights-as-of-an-instant),
                  -- or those of the scenario of the report running where
                  -- it has some (docs/history.md#the-policy-lab); any_bill,
                  -- any_pv and any_qv are constants of the custom plan:
                  -- without a scenario or a change the expression is the
                  -- live rows'
                  FROM (SELECT j.cluster, j.account, j.user_name, j.start_time, j.end_time,
                               @extschema@.tres_billing(
                                   COALESCE(j.tres, 'cpu=' || j.cpus),
                                   CASE WHEN any_bill
                                        THEN COALESCE(sc_part -> j.cluster -> j.partition ->> 'billing_weights',
                                                      CASE WHEN any_pv AND width_bucket(j.start_time, pv.tos)
                                                                           < cardinality(pv.tos)
                                                           THEN pv.weights[width_bucket(j.start_time, pv.tos) + 1]
                                                           ELSE p.billing_weights END)
                                        WHEN any_pv AND width_bucket(j.start_time, pv.tos) < cardinality(pv.tos)
                                        THEN pv.weights[width_bucket(j.start_time, pv.tos) + 1]
                                        ELSE p.billing_weights END,
                                   CASE WHEN any_bill
                                        THEN COALESCE(sc_part -> j.cluster -> j.partition ->> 'billing_mode',
                                                      CASE WHEN any_pv AND width_bucket(j.start_time, pv.tos)
                                                                           < cardinality(pv.tos)
                                                           THEN pv.modes[width_bucket(j.start_time, pv.tos) + 1]
                                                           ELSE p.billing_mode END)
                                        WHEN any_pv AND width_bucket(j.start_time, pv.tos) < cardinality(pv.tos)
                                        THEN pv.modes[width_bucket(j.start_time, pv.tos) + 1]
                                        ELSE p.billing_mode END)
                                 * COALESCE(CASE WHEN any_bill
                                                 THEN (sc_qos -> j.cluster -> j.qos ->> 'usage_factor')::float8 END,
                                            CASE WHEN any_qv AND NOT qv.live
                                                 THEN COALESCE(qv.usage_factor, 1) ELSE q.usage_factor END,
                                            1) AS billing
                          FROM @extschema@.jobs j
                          JOIN @extschema@.partitions p ON p.cluster = j.cluster AND p.partition = j.partition
                          -- the versions of the partition's settings closed
                          -- since, in order: their ends and billing (versions
                          -- follow each other from -infinity, so the one of
                          -- an instant t is the (n + 1)th, n = the ends <= t,
                          -- width_bucket; none left: the live row).  One row
                          -- per partition: without a change (any_pv false)
                          -- nothing reads it, and the planner drops the join
                          LEFT JOIN (SELECT h.cluster, h.name,
                                            array_agg(h.valid_to ORDER BY h.valid_to) AS tos,
                                            array_agg(h.settings ->> 'billing_weights' ORDER BY h.valid_to) AS weights,
                                            array_agg(h.settings ->> 'billing_mode' ORDER BY h.valid_to) AS modes
                                       FROM @extschema@.settings_history h
                                      WHERE any_pv AND h.table_name = 'partitions' AND h.valid_to IS NOT NULL
                                      GROUP BY h.cluster, h.name) pv
                            ON pv.cluster = j.cluster AND pv.name = j.partition
                          LEFT JOIN @extschema@.qos q ON q.cluster = j.cluster AND q.qos = j.qos
                          -- the UsageFactor at law_at of a QOS with a
                          -- history: its version closed since (NULL when
                          -- none held then: not yet created, or deleted),
                          -- or live when the open one holds (read from the
                          -- live row); dropped as pv is
                          LEFT JOIN (SELECT h.cluster, h.name,
                                            max((h.settings ->> 'usage_factor')::float8)
                                              FILTER (WHERE h.valid_to > law_at AND h.valid_from <= law_at)
                                              AS usage_factor,
                                            bool_or(h.valid_to IS NULL AND h.valid_from <= law_at) AS live
                                       FROM @extschema@.settings_history h
                                      WHERE any_qv AND h.table_name = 'qos'
                                      GROUP BY h.cluster, h.name) qv
                            ON qv.cluster = j.cluster AND qv.name = j.qos) b
                  -- the half-life of the scenario of the report running, if
                  -- any (docs/history.md#the-policy-lab)
                  JOIN @extschema@_internal._clusters_decay_law_at(law_at) c ON c.cluster = b.cluster
                  -- the cluster's slurmctld starts, one array per cluster,
                  -- hash-joined: the same array for each of its jobs (an
                  -- array made per row, a slice of one of every start,
                  -- took 4.2 s at 10^6 jobs and 300 starts; this join 0.8
                  -- to 1.3 s, as without starts, on a shared machine)
                  LEFT JOIN (SELECT x.cluster, array_agg(x.started_at ORDER BY x.started_at) AS starts
                               FROM @extschema@.slurmctld_starts x
                              WHERE any_st AND x.cluster = ANY (ps_clusters)
                              GROUP BY x.cluster) st ON st.cluster = b.cluster
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
                                                        sp.priority_last_decay, sp.starts)
                   FILTER (WHERE any_ps AND sp.decay_mode = 'slurm_passes')) AS raw_usage,
               @extschema@.decayed_usage_slurm_passes(sp.billing, sp.s, sp.ended, sp.last_pass,
                                                      sp.decay_half_life, sp.priority_calc_period,
                                                      sp.priority_last_decay, sp.starts)
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
          -- (a sparse checkpoint completed with its base's rows:
          -- docs/design.md#sparse-checkpoints)
          FROM (SELECT x.cluster, x.account, x.user_name, x.raw_usage, x.jobs, x.pass_usage
                  FROM @extschema@_internal._checkpoint_rows(ck_clusters, ck_times) x
                 WHERE cardinality(ck_clusters) > 0
                UNION ALL
                -- the usage as of the change of the law, under the law
                -- before it (bounded by the changes kept: one call each)
                SELECT x.cluster, x.account, x.user_name, x.raw_usage, x.jobs, x.pass_usage
                  FROM unnest(bd_clusters, bd_times) b(cluster, at)
                 CROSS JOIN LATERAL @extschema@_internal._association_usage(
                           b.at, _association_usage.checkpointing, b.cluster, b.at - interval '1 microsecond') x
                 WHERE cardinality(bd_clusters) > 0) r
         WHERE any_cp
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
COMMENT ON FUNCTION @extschema@_internal._association_usage(timestamptz, boolean, text, timestamptz) IS
'Decayed usage and jobs of every user association with jobs as of an instant (of one cluster, or every cluster for NULL), under the decay law of decay_at (NULL: as_of), piecewise over its changes, and for slurm_passes clusters the usage as their last pass left it: for association_usage_at (checkpointing false) from valid usage checkpoints where there are, for checkpoint_usage (true) from the jobs alone.';

-- The same under the decay law of as_of (every caller but the function
-- itself, which reads the usage at a change of the law under the law
-- before it).
CREATE FUNCTION @extschema@_internal._association_usage(as_of timestamptz, checkpointing boolean, only_cluster text)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint, pass_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs, u.pass_usage
      FROM @extschema@_internal._association_usage(_association_usage.as_of, _association_usage.checkpointing,
                                                   _association_usage.only_cluster, NULL::timestamptz) u;
END;
COMMENT ON FUNCTION @extschema@_internal._association_usage(timestamptz, boolean, text) IS
'Decayed usage and jobs of every user association with jobs as of an instant (of one cluster, or every cluster for NULL), under the decay law as of it: _association_usage with decay_at NULL.';

-- Decayed usage (billing-seconds) of every user association as of an
-- instant, under its cluster's decay, from the cluster's usage checkpoint
-- when it has a valid one at or before as_of (the same numbers, see above).
CREATE FUNCTION @extschema@.association_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT au.cluster, au.account, au.user_name,
           COALESCE(u.raw_usage, 0) AS raw_usage,
           COALESCE(u.jobs, 0) AS jobs
      FROM @extschema@.account_users au
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN @extschema@_internal._association_usage(association_usage_at.as_of, false, NULL) u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name
     WHERE @extschema@_internal._check_as_of(association_usage_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.association_usage_at(timestamptz) IS
'Decayed usage (billing-seconds) of every user association as of an instant, under its cluster''s decay.';

CREATE VIEW @extschema@.association_usage AS
SELECT * FROM @extschema@.association_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.association_usage IS 'association_usage_at(now()).';

