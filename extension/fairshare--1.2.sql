-- fairshare install script, assembled by the Makefile from extension/*.sql
-- (one piece per policy area, in the order of SQL_ORDER).
--
-- Every object is created as @extschema@.name, every built-in is called as
-- pg_catalog.name and every operator written OPERATOR(pg_catalog.x), so the
-- script does not depend on search_path (docs/security.md#install-script-safety).

\echo Use "CREATE EXTENSION fairshare" to load this file. \quit

-- Raise an error from inside an expression (SQL functions, CHECKs, views).
CREATE FUNCTION @extschema@._raise(sqlstate text, message text, hint text, result anyelement)
RETURNS anyelement LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
END
$$;

-- ---------------------------------------------------------------------------
-- billing: Slurm's billable TRES and RWTH core-hours
-- (docs/policies.md#usage-and-billing, docs/slurm.md#billable-tres)
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@.tres_billing(tres text, weights text, mode text DEFAULT 'sum')
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_tres_billing'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tres_billing(text, text, text) IS
'Slurm billing rate of an allocated-TRES string under TRESBillingWeights; mode sum, max_tres or max_tres_gres. NULL tres gives NULL; NULL weights bill the CPUs.';

CREATE FUNCTION @extschema@.tres_count(tres text, name text)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_tres_count'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tres_count(text, text) IS
'Count of one TRES in a TRES string, in base units (memory in MiB); 0 when absent.';

CREATE FUNCTION @extschema@.tres_weights_valid(weights text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'fs_tres_weights_valid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tres_weights_valid(text) IS
'true for a well-formed TRESBillingWeights string; raises 22P02 naming the bad item otherwise.';

-- core_hours' errors, raised from inside its expression: 22008 for a run
-- without a finite start or end, 22023 otherwise.  A function of its
-- own because format() is STABLE (it prints timestamps in the session's time
-- zone): an IMMUTABLE SQL function whose body calls it is never inlined, and
-- core_hours runs once per job in the GENCI and RWTH reports
-- (docs/performance.md#what-was-fixed-and-how-it-was-found).
CREATE FUNCTION @extschema@._core_hours_invalid(cpus integer, nodes integer, gpus integer,
                                                gpu_hour_factor float8, started timestamptz, ended timestamptz)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT pg_catalog.isfinite(started) OR NOT pg_catalog.isfinite(ended) THEN
        RAISE EXCEPTION USING ERRCODE = '22008',
            MESSAGE = format('core_hours: a run must start and end at finite instants, not %s to %s', started, ended),
            HINT = 'A job that has not ended has no core-hours yet.';
    END IF;
    RAISE EXCEPTION USING ERRCODE = '22023',
        MESSAGE = format('core_hours: negative or reversed input (cpus %s, nodes %s, gpus %s, gpu_hour_factor %s, started %s, ended %s)',
                         cpus, nodes, gpus, gpu_hour_factor, started, ended),
        HINT = 'Counts and factors are >= 0 and a job ends after it starts.';
END
$$;

-- RWTH: cores × elapsed hours; exclusive jobs pay every core of every node;
-- a GPU-hour may be billed as gpu_hour_factor core-hours (24 at RWTH), in
-- which case the job pays the larger of its cores and its GPUs' worth.
CREATE FUNCTION @extschema@.core_hours(
    cpus integer, started timestamptz, ended timestamptz,
    exclusive boolean DEFAULT false, nodes integer DEFAULT 1,
    cores_per_node integer DEFAULT NULL,
    gpus integer DEFAULT 0, gpu_hour_factor float8 DEFAULT 0)
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    WHEN cpus IS NULL OR started IS NULL OR ended IS NULL THEN NULL
    WHEN cpus OPERATOR(pg_catalog.<) 0 OR nodes OPERATOR(pg_catalog.<) 0
         OR gpus OPERATOR(pg_catalog.<) 0 OR gpu_hour_factor OPERATOR(pg_catalog.<) 0
         OR gpu_hour_factor OPERATOR(pg_catalog.=) 'NaN'::float8
         OR gpu_hour_factor OPERATOR(pg_catalog.=) 'Infinity'::float8
         OR ended OPERATOR(pg_catalog.<) started
         -- (explicit: from PostgreSQL 17 on, infinity - t is an infinite
         -- interval rather than error 22008, and would bill Infinity)
         OR NOT pg_catalog.isfinite(started) OR NOT pg_catalog.isfinite(ended)
      THEN @extschema@._core_hours_invalid(cpus, nodes, gpus, gpu_hour_factor, started, ended)
    ELSE GREATEST(
           CASE WHEN exclusive AND cores_per_node IS NOT NULL
                THEN (nodes OPERATOR(pg_catalog.*) cores_per_node)::float8
                ELSE cpus::float8 END,
           gpus::float8 OPERATOR(pg_catalog.*) COALESCE(gpu_hour_factor, 0))
         OPERATOR(pg_catalog.*)
         (pg_catalog.date_part('epoch', ended OPERATOR(pg_catalog.-) started)
          OPERATOR(pg_catalog./) 3600.0)
END;
COMMENT ON FUNCTION @extschema@.core_hours(integer, timestamptz, timestamptz, boolean, integer, integer, integer, float8) IS
'RWTH core-hours: cores × elapsed hours (NULL when cpus, started or ended is NULL); exclusive jobs pay nodes × cores_per_node; with gpu_hour_factor > 0 a job pays max(cores, gpus × factor) per hour.';
-- ---------------------------------------------------------------------------
-- decay: decayed usage aggregates (docs/policies.md#decay, docs/decay.md)
--
-- State float8[3] = {rows, sum, Neumaier compensation}; a real type with a
-- combine function, so parallel query and Citus both split these.
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@._decay_combine(float8[], float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_decay_combine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._decay_final(float8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'fs_decay_final' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- usage charged at an instant, continuous half-life
CREATE FUNCTION @extschema@._decay_point_accum(float8[], float8, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage(usage float8, at timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@._decay_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage(float8, timestamptz, timestamptz, interval) IS
'Σ usage × 2^(−(as_of − at)/half_life) over rows with at <= as_of; half_life 0 or NULL = no decay.';

-- usage accrued uniformly over [started, ended], exact integral of the decay
CREATE FUNCTION @extschema@._decay_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@._decay_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage(float8, timestamptz, timestamptz, timestamptz, interval) IS
'usage accrued uniformly over [started, ended]; the part up to as_of counts, each instant decayed from when it accrued.';

-- Slurm-compatible: per-second factor 1 − 0.693/half_life_seconds
CREATE FUNCTION @extschema@._decay_slurm_point_accum(float8[], float8, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_slurm_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm(usage float8, at timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@._decay_slurm_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm(float8, timestamptz, timestamptz, interval) IS
'Σ usage × (1 − 0.693/half_life_s)^age_s, the factor Slurm''s priority/multifactor really applies.';

CREATE FUNCTION @extschema@._decay_slurm_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_slurm_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@._decay_slurm_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm(float8, timestamptz, timestamptz, timestamptz, interval) IS
'Slurm-compatible decay of usage accrued over [started, ended].';

-- PBS step decay: × decay_factor at every decay_interval boundary since 1970-01-01 UTC
CREATE FUNCTION @extschema@._decay_step_point_accum(float8[], float8, timestamptz, timestamptz, interval, float8)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_step_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_step(usage float8, at timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@._decay_step_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_step(float8, timestamptz, timestamptz, interval, float8) IS
'PBS step decay: usage × decay_factor^(decay_interval boundaries between at and as_of), boundaries counted from 1970-01-01 UTC.';

CREATE FUNCTION @extschema@._decay_step_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval, float8)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_step_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_step(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@._decay_step_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@._decay_combine, FINALFUNC = @extschema@._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_step(float8, timestamptz, timestamptz, timestamptz, interval, float8) IS
'PBS step decay of usage accrued uniformly over [started, ended].';

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
-- ---------------------------------------------------------------------------
-- model: the accounting database — clusters, partitions, the association
-- tree, jobs, allocations and their append-only ledger
-- (docs/design.md#the-model).
--
-- Constraints reject what the policies cannot use.  Every table holds a
-- centre's data, so each is registered with pg_extension_config_dump and
-- survives pg_dump / restore.
-- ---------------------------------------------------------------------------

-- Validators of the clusters' Slurm decay settings, for their CHECK
-- constraints: an error naming the value and saying what is expected,
-- where a failed CHECK would only name the constraint.
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

-- PriorityUsageResetPeriod, in any case as slurm.conf takes it; NOW (a reset
-- once, when slurmctld started) needs the instant of that reset.
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

CREATE TABLE @extschema@.clusters (
    cluster              text PRIMARY KEY CHECK (cluster OPERATOR(pg_catalog.<>) ''),
    scheduler            text NOT NULL DEFAULT 'slurm' CHECK (scheduler IN ('slurm', 'pbs')),
    -- fairshare: Slurm Fair Tree (default), classic (NO_FAIR_TREE) or the PBS tree
    fairshare_algorithm  text NOT NULL DEFAULT 'fair_tree'
                         CHECK (fairshare_algorithm IN ('fair_tree', 'classic', 'pbs')),
    -- decay: 'exact' 2^(-t/h), 'slurm' (1-0.693/h)^t, 'step' PBS factor per interval,
    -- 'slurm_passes' slurmctld's passes every priority_calc_period (docs/decay.md)
    decay_mode           text NOT NULL DEFAULT 'exact'
                         CHECK (decay_mode IN ('exact', 'slurm', 'step', 'slurm_passes')),
    decay_half_life      interval NOT NULL DEFAULT '7 days'
                         CHECK (decay_half_life OPERATOR(pg_catalog.>=) '0'::interval),
    decay_interval       interval NOT NULL DEFAULT '24 hours'
                         CHECK (decay_interval OPERATOR(pg_catalog.>) '0'::interval),
    decay_factor         float8 NOT NULL DEFAULT 0.5
                         CHECK (decay_factor OPERATOR(pg_catalog.>=) 0 AND decay_factor OPERATOR(pg_catalog.<=) 1),
    fairshare_dampening  float8 NOT NULL DEFAULT 1
                         CHECK (fairshare_dampening OPERATOR(pg_catalog.>) 0 AND fairshare_dampening OPERATOR(pg_catalog.<) 'Infinity'),
    -- multifactor priority (PriorityWeight*: uint32 in Slurm)
    weight_fairshare     bigint NOT NULL DEFAULT 0 CHECK (weight_fairshare BETWEEN 0 AND 4294967295),
    weight_age           bigint NOT NULL DEFAULT 0 CHECK (weight_age BETWEEN 0 AND 4294967295),
    weight_job_size      bigint NOT NULL DEFAULT 0 CHECK (weight_job_size BETWEEN 0 AND 4294967295),
    weight_partition     bigint NOT NULL DEFAULT 0 CHECK (weight_partition BETWEEN 0 AND 4294967295),
    weight_qos           bigint NOT NULL DEFAULT 0 CHECK (weight_qos BETWEEN 0 AND 4294967295),
    priority_max_age     interval NOT NULL DEFAULT '7 days'
                         CHECK (priority_max_age OPERATOR(pg_catalog.>=) '0'::interval),
    favor_small          boolean NOT NULL DEFAULT false,
    -- cluster size for the job-size factor (NULL: summed over partitions)
    total_nodes          integer CHECK (total_nodes OPERATOR(pg_catalog.>) 0),
    total_cpus           integer CHECK (total_cpus OPERATOR(pg_catalog.>) 0),
    -- GENCI: allocations at or above this many hours get the monthly
    -- regulation, below it the mid-term one (5 M h Turing, 1 M h Ada)
    regulation_threshold float8 CHECK (regulation_threshold OPERATOR(pg_catalog.>=) 0
                                       AND regulation_threshold OPERATOR(pg_catalog.<) 'Infinity'),
    -- RWTH: core-hours charged per GPU-hour (24 on CLAIX); 0 = GPUs not billed
    gpu_hour_factor      float8 NOT NULL DEFAULT 0
                         CHECK (gpu_hour_factor OPERATOR(pg_catalog.>=) 0 AND gpu_hour_factor OPERATOR(pg_catalog.<) 'Infinity'),
    -- the time zone in which the centre's calendar (months, check days) runs
    timezone             text NOT NULL DEFAULT 'UTC'
                         CHECK (pg_catalog.timezone(timezone, '2000-01-01 00:00+00'::timestamptz) IS NOT NULL),
    description          text,
    -- slurmctld's decay thread (decay_mode 'slurm_passes'): a pass every
    -- PriorityCalcPeriod, and the instant of one pass, which fixes the
    -- others (priority_last_decay_ran in StateSaveLocation; NULL: whole
    -- multiples of the period since 1970-01-01 UTC)
    priority_calc_period interval NOT NULL DEFAULT '5 minutes'
                         CHECK (@extschema@._check_calc_period(priority_calc_period)),
    priority_last_decay  timestamptz CHECK (pg_catalog.isfinite(priority_last_decay)),
    -- PriorityUsageResetPeriod: usage starts again from 0 at each period's
    -- start, in the cluster's time zone (with 'slurm_passes', at the first
    -- pass from then); NOW resets once, at usage_last_reset
    usage_reset_period   text NOT NULL DEFAULT 'NONE',
    usage_last_reset     timestamptz CHECK (pg_catalog.isfinite(usage_last_reset)),
    CONSTRAINT clusters_usage_reset_check
        CHECK (@extschema@._check_usage_reset(usage_reset_period, usage_last_reset))
);
COMMENT ON TABLE @extschema@.clusters IS 'One row per cluster with its policy parameters (decay, priority weights, regulation).';

CREATE TABLE @extschema@.partitions (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    partition            text NOT NULL CHECK (partition OPERATOR(pg_catalog.<>) ''),
    -- Slurm TRESBillingWeights; NULL bills the CPUs
    billing_weights      text CHECK (@extschema@.tres_weights_valid(billing_weights)),
    billing_mode         text NOT NULL DEFAULT 'sum' CHECK (billing_mode IN ('sum', 'max_tres', 'max_tres_gres')),
    priority_job_factor  integer NOT NULL DEFAULT 1 CHECK (priority_job_factor BETWEEN 0 AND 65535),
    -- node shape
    nodes                integer NOT NULL DEFAULT 1 CHECK (nodes OPERATOR(pg_catalog.>) 0),
    cores_per_node       integer NOT NULL CHECK (cores_per_node OPERATOR(pg_catalog.>) 0),
    mem_per_node_mb      bigint NOT NULL CHECK (mem_per_node_mb OPERATOR(pg_catalog.>) 0),
    gpus_per_node        integer NOT NULL DEFAULT 0 CHECK (gpus_per_node OPERATOR(pg_catalog.>=) 0),
    scratch_per_node_mb  bigint NOT NULL DEFAULT 0 CHECK (scratch_per_node_mb OPERATOR(pg_catalog.>=) 0),
    -- MetaCentrum: per-CPU speed of the nodes (SPEC, 3..10)
    spec                 float8 NOT NULL DEFAULT 1
                         CHECK (spec OPERATOR(pg_catalog.>) 0 AND spec OPERATOR(pg_catalog.<) 'Infinity'),
    -- RWTH JARA-style: jobs pay every core of every allocated node
    whole_node           boolean NOT NULL DEFAULT false,
    PRIMARY KEY (cluster, partition)
);
COMMENT ON TABLE @extschema@.partitions IS 'Partitions (queues) with billing weights, PriorityJobFactor, node shape and spec.';

CREATE TABLE @extschema@.qos (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    qos                  text NOT NULL CHECK (qos OPERATOR(pg_catalog.<>) ''),
    priority             integer NOT NULL DEFAULT 0 CHECK (priority OPERATOR(pg_catalog.>=) 0),
    usage_factor         float8 NOT NULL DEFAULT 1
                         CHECK (usage_factor OPERATOR(pg_catalog.>=) 0 AND usage_factor OPERATOR(pg_catalog.<) 'Infinity'),
    PRIMARY KEY (cluster, qos)
);
COMMENT ON TABLE @extschema@.qos IS 'Slurm QOS: priority (for the QOS factor) and UsageFactor.';

-- The account tree.  shares NULL = Fairshare=parent.  'root' is the only
-- account without a parent.
CREATE TABLE @extschema@.accounts (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account              text NOT NULL CHECK (account OPERATOR(pg_catalog.<>) ''),
    parent_account       text,
    shares               integer DEFAULT 1 CHECK (shares OPERATOR(pg_catalog.>=) 0),
    description          text,
    PRIMARY KEY (cluster, account),
    FOREIGN KEY (cluster, parent_account) REFERENCES @extschema@.accounts (cluster, account) ON UPDATE CASCADE,
    CHECK ((account OPERATOR(pg_catalog.=) 'root') OPERATOR(pg_catalog.=) (parent_account IS NULL)),
    CHECK (account OPERATOR(pg_catalog.<>) 'root' OR shares IS NOT NULL)
);
COMMENT ON TABLE @extschema@.accounts IS 'Account associations: the tree under root, raw shares (NULL = Fairshare=parent).';

-- Users in accounts (user associations).  One user may sit in several accounts.
CREATE TABLE @extschema@.account_users (
    cluster              text NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL CHECK (user_name OPERATOR(pg_catalog.<>) ''),
    shares               integer DEFAULT 1 CHECK (shares OPERATOR(pg_catalog.>=) 0),
    PRIMARY KEY (cluster, account, user_name),
    FOREIGN KEY (cluster, account) REFERENCES @extschema@.accounts ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.account_users IS 'User associations: a user in an account with raw shares (NULL = Fairshare=parent).';
CREATE INDEX ON @extschema@.account_users (user_name);

-- A cycle in the account tree would make every tree function fail: refuse it.
CREATE FUNCTION @extschema@._accounts_no_cycle() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    cur text := NEW.parent_account;
    steps int := 0;
BEGIN
    WHILE cur IS NOT NULL LOOP
        IF cur = NEW.account THEN
            RAISE EXCEPTION 'account "%" on cluster "%" would be its own ancestor', NEW.account, NEW.cluster
                USING ERRCODE = '23514', HINT = 'The account tree must not contain a cycle.';
        END IF;
        SELECT a.parent_account INTO cur FROM @extschema@.accounts a
         WHERE a.cluster = NEW.cluster AND a.account = cur;
        steps := steps + 1;
        IF steps > 10000 THEN
            RAISE EXCEPTION 'account tree of cluster "%" is deeper than 10000 levels', NEW.cluster
                USING ERRCODE = '23514';
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER accounts_no_cycle AFTER INSERT OR UPDATE OF parent_account ON @extschema@.accounts
    DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW EXECUTE FUNCTION @extschema@._accounts_no_cycle();

-- Partitioned by submit time, one partition per calendar month (UTC), so
-- that a month of history can be detached whole (retain_jobs) and no table
-- or index grows with the whole history (issue 18; docs/history.md).  The
-- partition key is submit_time because:
--   * a unique key of a partitioned table must contain the partition key,
--     and (cluster, job_id, submit_time) is the run's identity;
--   * a run's submit time never changes, so an update never moves a row
--     to another partition;
--   * every run has one, pending ones too (their start and end are NULL).
-- Queries by start or end (the jobs after a checkpoint, a window of an
-- allocation) are served by each partition's local indexes: one cheap
-- probe per partition.  The months come from maintain_partitions; a run
-- of a month without its partition goes to jobs_default.
CREATE TABLE @extschema@.jobs (
    cluster              text NOT NULL,
    job_id               text NOT NULL CHECK (job_id OPERATOR(pg_catalog.<>) ''),
    user_name            text NOT NULL,
    account              text NOT NULL,
    partition            text NOT NULL,
    qos                  text,
    state                text NOT NULL CHECK (state IN ('PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETED',
                            'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL',
                            'DEADLINE', 'OUT_OF_MEMORY', 'REQUEUED')),
    submit_time          timestamptz NOT NULL,
    eligible_time        timestamptz,
    start_time           timestamptz,
    end_time             timestamptz,
    time_limit           interval CHECK (time_limit OPERATOR(pg_catalog.>) '0'::interval),
    -- allocated TRES as sacct prints them (requested TRES while pending)
    tres                 text,
    cpus                 integer NOT NULL CHECK (cpus OPERATOR(pg_catalog.>=) 0),
    mem_mb               bigint NOT NULL DEFAULT 0 CHECK (mem_mb OPERATOR(pg_catalog.>=) 0),
    gpus                 integer NOT NULL DEFAULT 0 CHECK (gpus OPERATOR(pg_catalog.>=) 0),
    nodes                integer NOT NULL DEFAULT 1 CHECK (nodes OPERATOR(pg_catalog.>=) 0),
    scratch_mb           bigint NOT NULL DEFAULT 0 CHECK (scratch_mb OPERATOR(pg_catalog.>=) 0),
    exclusive            boolean NOT NULL DEFAULT false,
    -- per-CPU speed of the node the job ran on, when it differs from the partition's
    spec                 float8 CHECK (spec OPERATOR(pg_catalog.>) 0 AND spec OPERATOR(pg_catalog.<) 'Infinity'),
    nice                 integer NOT NULL DEFAULT 0,
    -- time the run spent suspended (sacct Suspended).  Fairshare usage
    -- charges End - Start all the same, as slurmctld does; sreport leaves
    -- it out.
    suspended            interval NOT NULL DEFAULT '0'
                         CHECK (suspended OPERATOR(pg_catalog.>=) '0'::interval),
    -- the reservation the run ran in (sacct ReservationId, slurmdbd's
    -- id_resv), NULL for none: the rollups take the run's time in it out
    -- of the reservation's idle time, as slurmdbd does (docs/reports.md)
    resv_id              integer CHECK (resv_id OPERATOR(pg_catalog.>) 0),
    -- A run is identified as slurmdbd identifies it (UNIQUE (id_job,
    -- time_submit) in its job table): ids wrap at MaxJobId and are reused,
    -- and each run of a requeued job is its own row, submitted at the
    -- instant of the requeue.
    PRIMARY KEY (cluster, job_id, submit_time),
    FOREIGN KEY (cluster, partition) REFERENCES @extschema@.partitions ON UPDATE CASCADE,
    FOREIGN KEY (cluster, account, user_name) REFERENCES @extschema@.account_users ON UPDATE CASCADE,
    CHECK (tres IS NULL OR @extschema@.tres_weights_valid(tres)),
    -- an infinite instant would make every usage report of the centre fail
    CONSTRAINT jobs_finite_times CHECK (pg_catalog.isfinite(submit_time) AND pg_catalog.isfinite(eligible_time)
           AND pg_catalog.isfinite(start_time) AND pg_catalog.isfinite(end_time)),
    CHECK (eligible_time IS NULL OR eligible_time OPERATOR(pg_catalog.>=) submit_time),
    CHECK (end_time IS NULL OR start_time IS NULL OR end_time OPERATOR(pg_catalog.>=) start_time),
    CHECK (state OPERATOR(pg_catalog.<>) 'PENDING' OR (start_time IS NULL AND end_time IS NULL)),
    CHECK (state NOT IN ('RUNNING', 'SUSPENDED') OR (start_time IS NOT NULL AND end_time IS NULL)),
    -- every other state is final: a run without an end would be charged
    -- as running up to every report's instant
    CONSTRAINT jobs_ended_have_end CHECK (state IN ('PENDING', 'RUNNING', 'SUSPENDED') OR end_time IS NOT NULL),
    CONSTRAINT jobs_suspended_within_run CHECK (end_time IS NULL OR start_time IS NULL
           OR suspended OPERATOR(pg_catalog.<=) (end_time OPERATOR(pg_catalog.-) start_time))
) PARTITION BY RANGE (submit_time);
COMMENT ON TABLE @extschema@.jobs IS 'Job runs as the scheduler accounted them, one row per run (cluster, job id, submit time): who, where, when, what was allocated.';
-- An association's jobs (the foreign key to account_users, per-project
-- consumption).  The account leads: with one cluster, a leading cluster
-- column has correlation 1 in the statistics and the planner takes a full
-- scan of the index in association order for a sequential read, where it
-- reads the table in random order (docs/performance.md).
CREATE INDEX ON @extschema@.jobs (account, user_name, cluster);
-- How many associations have jobs, for the hash aggregates over jobs
-- (association_usage_at): the columns are not independent.
CREATE STATISTICS @extschema@.jobs_association_stats (ndistinct) ON cluster, account, user_name
    FROM @extschema@.jobs;
-- The jobs not started (nor ended) by an instant, the jobs pending then
-- (sprio_at): found by a range scan instead of a scan of the whole table,
-- and counted by the expression's statistics (separate estimates of
-- "start_time IS NULL OR start_time > t" and the same on end_time multiply
-- to 1/100 of the truth, and sprio joined 10^5 pending jobs to sshare's
-- 10^5 rows by a merge join on the cluster alone: 450 s).
CREATE INDEX jobs_first_event_idx ON @extschema@.jobs ((COALESCE(start_time, end_time, 'infinity'::timestamptz)));
-- A project's jobs over a window of time, with what its core-hours need
-- (GENCI allocation_consumption, RWTH rwth_monthly_usage_at): an index-only
-- scan of the window instead of a visit to every job of the account in the
-- table (the regulation of 10^4 allocations, 12 s -> 1.4 s;
-- docs/performance.md).
CREATE INDEX ON @extschema@.jobs (account, cluster, start_time)
    INCLUDE (end_time, cpus, nodes, gpus, exclusive, partition);
-- The pending jobs: the stored remainders of job arrays that an import
-- replaces (import_sacct), found without reading every job.
CREATE INDEX jobs_pending_idx ON @extschema@.jobs (cluster, submit_time) WHERE state OPERATOR(pg_catalog.=) 'PENDING';
-- The runs in a reservation, few: the rollups take their time out of the
-- reservation's idle time (reports.sql, _rollup_hours).
CREATE INDEX jobs_resv_idx ON @extschema@.jobs (cluster, resv_id) WHERE resv_id IS NOT NULL;
-- Each index costs every job stored: an import of 296,132 jobs spends 0.3
-- to 0.7 s in each index of the table (docs/performance.md#importing-jobs).
-- No query reads a cluster's jobs by start time, so there is no index on
-- (cluster, start_time); a cluster's jobs are the primary key's range.

-- The runs of the months that have no partition of their own: all of them
-- right after CREATE EXTENSION or an update from 1.1, until the first
-- maintain_partitions moves them to their months; in steady state none (the
-- months ahead are made in advance), so that making a month's partition,
-- which scans this one, is quick.  An extension member and a configuration
-- table, so that pg_dump keeps its rows; the monthly partitions are made by
-- maintain_partitions, are not members, and pg_dump keeps them and their
-- rows like any table (docs/history.md: restoring a dump).
CREATE TABLE @extschema@.jobs_default PARTITION OF @extschema@.jobs DEFAULT;
COMMENT ON TABLE @extschema@.jobs_default IS 'The runs of the months without a partition of their own (maintain_partitions makes them); read and written through jobs.';

-- Allocations of hours to project accounts (GENCI, RWTH).  `hours` is the
-- initial grant; later changes live in the ledger.
CREATE TABLE @extschema@.allocations (
    allocation_id        bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    cluster              text NOT NULL,
    account              text NOT NULL,
    policy               text NOT NULL CHECK (policy IN ('genci', 'rwth', 'none')),
    period_start         date NOT NULL CHECK (pg_catalog.isfinite(period_start)),
    period_end           date NOT NULL CHECK (pg_catalog.isfinite(period_end)),
    hours                float8 NOT NULL CHECK (hours OPERATOR(pg_catalog.>=) 0 AND hours OPERATOR(pg_catalog.<) 'Infinity'),
    -- RWTH monthly allowance in core-hours (NULL: hours spread evenly over the months)
    monthly_allowance    float8 CHECK (monthly_allowance OPERATOR(pg_catalog.>=) 0
                                       AND monthly_allowance OPERATOR(pg_catalog.<) 'Infinity'),
    -- GENCI mid-term exemptions
    justification_filed  date,
    second_half_declared boolean NOT NULL DEFAULT false,
    FOREIGN KEY (cluster, account) REFERENCES @extschema@.accounts ON UPDATE CASCADE,
    UNIQUE (cluster, account, period_start),
    CHECK (period_end OPERATOR(pg_catalog.>=) period_start)
);
COMMENT ON TABLE @extschema@.allocations IS 'Hours allocated to a project account for a period (GENCI, RWTH); changes go to the ledger.';

-- Append-only ledger of changes to allocations.  hours is always >= 0; the
-- kind gives the sign: grant/addition/restitution add, take_back removes.
CREATE TABLE @extschema@.ledger (
    entry_id             bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    allocation_id        bigint NOT NULL REFERENCES @extschema@.allocations,
    kind                 text NOT NULL CHECK (kind IN ('grant', 'addition', 'take_back', 'restitution')),
    hours                float8 NOT NULL CHECK (hours OPERATOR(pg_catalog.>=) 0 AND hours OPERATOR(pg_catalog.<) 'Infinity'),
    rule                 text NOT NULL DEFAULT 'manual',
    reason               text,
    effective_date       date NOT NULL CHECK (pg_catalog.isfinite(effective_date)),
    recorded_at          timestamptz NOT NULL DEFAULT pg_catalog.now(),
    recorded_by          text NOT NULL DEFAULT CURRENT_USER
);
COMMENT ON TABLE @extschema@.ledger IS 'Append-only history of grants, additions, take-backs and restitutions of allocation hours.';
CREATE INDEX ON @extschema@.ledger (allocation_id, effective_date);
-- a regulation rule takes hours at most once per allocation and check day
CREATE UNIQUE INDEX ledger_rule_once ON @extschema@.ledger (allocation_id, rule, effective_date)
    WHERE kind OPERATOR(pg_catalog.=) 'take_back' AND rule OPERATOR(pg_catalog.<>) 'manual';

CREATE FUNCTION @extschema@._ledger_append_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % is not allowed', TG_OP
        USING ERRCODE = '55000', HINT = 'Record a correction as a new entry (addition, take_back or restitution).';
END
$$;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON @extschema@.ledger
    FOR EACH ROW EXECUTE FUNCTION @extschema@._ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON @extschema@.ledger
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._ledger_append_only();

-- What an allocation's grant or a ledger entry may hold: at most 10^12 hours
-- (issue 20).  The largest machines have about 10^7 cores, which burn
-- 8.8 × 10^10 core-hours a year: 10^12 is more than any of them could use
-- in eleven years, so a figure above it is a typo or an attack, never a
-- grant.  The finite, non-negative CHECKs took 1e308, after which the GENCI
-- report overflowed for every allocation, and an entry in the append-only
-- ledger could only be removed by a superuser.  The bound also keeps the
-- reports' sums far from float8's limit (10^9 entries add up to 10^21).
-- A constant rather than the cluster's cores × the period's hours: a check
-- that reads other rows refuses a restore whenever they come later or have
-- changed since (pg_restore loads the ledger before the partitions, and a
-- partition may shrink after an entry was made).  A trigger rather than a
-- CHECK, so that updating from 1.1 keeps the entries already recorded: the
-- GENCI report names their allocation instead of failing (_genci_refusal).
CREATE FUNCTION @extschema@._allocation_hours_bounded() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- (NaN is above every number: refused here as by the CHECK)
    IF NEW.hours > 1e12 THEN
        RAISE EXCEPTION '% of allocation %: % hours is more than any allocation can hold (at most 1e12)',
                        CASE TG_TABLE_NAME WHEN 'ledger' THEN 'ledger entry' ELSE 'initial grant' END,
                        NEW.allocation_id, NEW.hours
            USING ERRCODE = '23514',
                  HINT = '10^12 hours is more than a 10^7-core machine burns in eleven years: check the figure.';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER hours_bounded BEFORE INSERT ON @extschema@.ledger
    FOR EACH ROW EXECUTE FUNCTION @extschema@._allocation_hours_bounded();
CREATE TRIGGER hours_bounded BEFORE INSERT OR UPDATE OF hours ON @extschema@.allocations
    FOR EACH ROW EXECUTE FUNCTION @extschema@._allocation_hours_bounded();

-- Net hours of an allocation on a date: the grant plus every ledger entry
-- effective on or before that date (GENCI: "en tenant compte des ajouts
-- et/ou des reprises d'heures").
CREATE FUNCTION @extschema@.allocation_net_hours(allocation_id bigint, as_of date)
RETURNS float8 LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.hours OPERATOR(pg_catalog.+) COALESCE(pg_catalog.sum(
               CASE WHEN l.kind OPERATOR(pg_catalog.=) 'take_back'
                    THEN OPERATOR(pg_catalog.-) l.hours ELSE l.hours END), 0)
      FROM @extschema@.allocations a
      LEFT JOIN @extschema@.ledger l
        ON l.allocation_id OPERATOR(pg_catalog.=) a.allocation_id
       AND l.effective_date OPERATOR(pg_catalog.<=) allocation_net_hours.as_of
     WHERE a.allocation_id OPERATOR(pg_catalog.=) allocation_net_hours.allocation_id
     GROUP BY a.hours;
END;
COMMENT ON FUNCTION @extschema@.allocation_net_hours(bigint, date) IS
'Initial grant plus grants, additions and restitutions minus take-backs effective on or before as_of.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.clusters', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.partitions', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.qos', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.accounts', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_users', '');
-- (jobs is partitioned: its rows are its partitions')
SELECT pg_catalog.pg_extension_config_dump('@extschema@.jobs_default', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.allocations', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.allocations_allocation_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger_entry_id_seq', '');
-- ---------------------------------------------------------------------------
-- Association limits (issue 19): GrpTRESMins, as sshare -l prints it.
--
-- Each association (account or user in an account) may hold a GrpTRESMins
-- limit: TRES by name and minutes, 'billing=3600' or 'cpu=600,billing=3600'.
-- NULL is no limit.  A centre sets it by hand (UPDATE accounts SET
-- grp_tres_mins = ...); on a cluster fed from slurmdbd, sync_slurmdbd copies
-- what slurmdbd holds, the TRES ids turned into names.  sshare_at shows it
-- in sshare's order (docs/fairshare.md).
-- ---------------------------------------------------------------------------

-- (ALTER TABLE, not a column in model.sql: the upgrade adds the columns at
-- the end of the tables, and a fresh install must lay them out the same.)
ALTER TABLE @extschema@.accounts ADD COLUMN grp_tres_mins text
    CHECK (grp_tres_mins OPERATOR(pg_catalog.~)
           '^[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18})(,[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18}))*$');
ALTER TABLE @extschema@.account_users ADD COLUMN grp_tres_mins text
    CHECK (grp_tres_mins OPERATOR(pg_catalog.~)
           '^[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18})(,[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18}))*$');
COMMENT ON COLUMN @extschema@.accounts.grp_tres_mins IS
'The account''s GrpTRESMins limit as TRES names and minutes (''billing=3600''); NULL: none. Copied from slurmdbd by sync_slurmdbd on a fed cluster.';
COMMENT ON COLUMN @extschema@.account_users.grp_tres_mins IS
'The user association''s GrpTRESMins limit as TRES names and minutes (''billing=600''); NULL: none. Copied from slurmdbd by sync_slurmdbd on a fed cluster.';

-- A GrpTRESMins limit as sshare prints it: slurmctld's TRES order (cpu,
-- mem, energy, node, billing, fs/disk, vmem, pages, then the others such as
-- gres/gpu, here by name), name=minutes joined by commas, a limit of 0
-- printed as 0.  Each TRES once: the last value given for a name counts,
-- as sacctmgr keeps the last one.
CREATE FUNCTION @extschema@._grp_tres_mins_text(limits text)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT pg_catalog.string_agg(l.tres OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) l.minutes, ','
                                 ORDER BY COALESCE(pg_catalog.array_position(
                                     ARRAY['cpu', 'mem', 'energy', 'node', 'billing', 'fs/disk', 'vmem', 'pages'],
                                     l.tres), 9), l.tres COLLATE "C")
      FROM (SELECT DISTINCT ON (pg_catalog.split_part(e.e, '=', 1))
                   pg_catalog.split_part(e.e, '=', 1) AS tres, pg_catalog.split_part(e.e, '=', 2) AS minutes
              FROM pg_catalog.regexp_split_to_table(limits, ',') WITH ORDINALITY e (e, i)
             WHERE e.e OPERATOR(pg_catalog.<>) ''
             ORDER BY pg_catalog.split_part(e.e, '=', 1), e.i DESC) l;
END;
COMMENT ON FUNCTION @extschema@._grp_tres_mins_text(text) IS
'A GrpTRESMins limit (TRES names and minutes) as sshare -l prints it: slurmctld''s TRES order, each TRES once (internal to sshare_at and sync_slurmdbd).';
-- ---------------------------------------------------------------------------
-- usage_views: each job billed under its partition's weights, and the
-- decayed usage of every user association, as of any instant (time travel).
-- ---------------------------------------------------------------------------

-- Billing rate of every job (billable TRES per second, × QOS UsageFactor).
-- Pending jobs carry their requested TRES; jobs without a TRES string are
-- billed by their CPU count.
CREATE VIEW @extschema@.job_billing AS
SELECT j.cluster, j.job_id, j.user_name, j.account, j.partition, j.state,
       j.start_time, j.end_time,
       @extschema@.tres_billing(COALESCE(j.tres, 'cpu=' OPERATOR(pg_catalog.||) j.cpus),
                                p.billing_weights, p.billing_mode)
         OPERATOR(pg_catalog.*) COALESCE(q.usage_factor, 1) AS billing
  FROM @extschema@.jobs j
  JOIN @extschema@.partitions p
    ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
  LEFT JOIN @extschema@.qos q
    ON q.cluster OPERATOR(pg_catalog.=) j.cluster AND q.qos OPERATOR(pg_catalog.=) j.qos;
COMMENT ON VIEW @extschema@.job_billing IS 'Each job''s Slurm billing rate under its partition''s TRESBillingWeights and billing mode.';

-- The as_of of a time-travel function: NULL is 22004 and an infinite
-- instant 22008, whatever rows the tables hold.  Used as a WHERE clause
-- without columns, it is evaluated once per query (a one-time filter, or
-- at plan time for a constant), and keeps the SQL functions inlinable.
CREATE FUNCTION @extschema@._check_as_of(as_of timestamptz)
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

-- The instant of a cluster's last usage reset at or before as_of
-- (PriorityUsageResetPeriod; NULL: none).  Periods start as slurmctld's
-- _next_reset counts them, in local time (the cluster's time zone):
-- DAILY at midnight, WEEKLY at midnight between Saturday and Sunday,
-- MONTHLY on the 1st, QUARTERLY on January, April, July and October 1st,
-- YEARLY on January 1st; NOW once, at last_reset.  slurmctld zeroes the
-- usage at the first pass of its decay thread at or after the period's
-- start: with 'slurm_passes' that pass is the reset instant (and when it
-- comes after as_of, the previous period's is).  Usage charged from the
-- reset instant on counts (usage_views.sql, _association_usage).
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

-- ---------------------------------------------------------------------------
-- Usage checkpoints (docs/design.md#usage-checkpoints).  Summing every
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

-- A cluster has a chain of checkpoints (issue 18): each is computed from
-- the newest valid one before it plus the jobs since, so its cost follows
-- the jobs since that one, not the history.  A change that invalidates the
-- newest falls back to an older one still valid: checkpoint_usage keeps a
-- few recent ones and the newest of each of the last days.
CREATE TABLE @extschema@.usage_checkpoints (
    cluster              text NOT NULL
                         REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    -- T0: the instant the stored usage is decayed to
    as_of                timestamptz NOT NULL CHECK (pg_catalog.isfinite(as_of)),
    created_at           timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- set by the triggers below: the checkpoint is ignored from then on,
    -- until checkpoint_usage replaces or prunes it
    invalidated_at       timestamptz,
    invalidated_by       text,
    -- a checkpoint that retention relies on (the usage of jobs no longer
    -- in the table): never pruned, and the jobs started before it cannot
    -- change any more
    pinned               boolean NOT NULL DEFAULT false,
    -- what it was computed from: the checkpoint it chained from (NULL: the
    -- jobs alone)
    computed_from        timestamptz,
    PRIMARY KEY (cluster, as_of),
    CHECK ((invalidated_at IS NULL) OPERATOR(pg_catalog.=) (invalidated_by IS NULL))
);
COMMENT ON TABLE @extschema@.usage_checkpoints IS
'Usage checkpoints of each cluster (checkpoint_usage): the instant their usage is decayed to, what they were computed from, and when and why a later change invalidated them.';

CREATE TABLE @extschema@.usage_checkpoint_rows (
    cluster              text NOT NULL,
    as_of                timestamptz NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL,
    -- the association's decayed usage as of T0, and its jobs then
    raw_usage            float8 NOT NULL
                         CHECK (raw_usage OPERATOR(pg_catalog.>=) 0 AND raw_usage OPERATOR(pg_catalog.<) 'Infinity'),
    jobs                 bigint NOT NULL CHECK (jobs OPERATOR(pg_catalog.>) 0),
    pass_usage           float8
                         CHECK (pass_usage OPERATOR(pg_catalog.>=) 0 AND pass_usage OPERATOR(pg_catalog.<) 'Infinity'),
    -- decay_mode 'slurm_passes': pass_usage is the usage as slurmctld's last
    -- pass at or before T0 left it (what sshare's tree columns show until
    -- the next pass), when it differs from raw_usage; NULL: raw_usage
    PRIMARY KEY (cluster, as_of, account, user_name),
    FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoints ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.usage_checkpoint_rows IS
'The decayed usage (billing-seconds) and job count of every user association with jobs, as of each checkpoint of its cluster.';

-- The jobs still running at an instant or started after it: those whose
-- end (infinity while running) is after it.  A range scan of the few jobs
-- after a checkpoint instead of a scan of the table.
CREATE INDEX jobs_end_idx ON @extschema@.jobs ((COALESCE(end_time, 'infinity'::timestamptz)))
    WHERE start_time IS NOT NULL;

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
-- counts from the pass before R (R − priority_calc_period), its first
-- charge after R being that whole stretch.
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
CREATE FUNCTION @extschema@._association_usage(as_of timestamptz, checkpointing boolean, only_cluster text)
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
        -- per cluster, the newest valid checkpoint at or before as_of
        SELECT COALESCE(array_agg(k.cluster ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(k.as_of ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(CASE WHEN c.decay_mode = 'slurm_passes'
                                       THEN @extschema@.slurm_last_pass(k.as_of, c.priority_calc_period,
                                                                        c.priority_last_decay)
                                       ELSE k.as_of END ORDER BY k.cluster), '{}'),
               COALESCE(array_agg(w.decay ORDER BY k.cluster), '{}'),
               min(k.as_of)
          INTO cp_clusters, cp_times, cp_from, cp_decay, since
          FROM (SELECT DISTINCT ON (x.cluster) x.cluster, x.as_of
                  FROM @extschema@.usage_checkpoints x
                 WHERE x.invalidated_at IS NULL AND x.as_of <= _association_usage.as_of
                   AND (_association_usage.only_cluster IS NULL OR x.cluster = _association_usage.only_cluster)
                 ORDER BY x.cluster, x.as_of DESC) k
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
         -- a reset after T0 leaves nothing of what the checkpoint holds
         WHERE NOT COALESCE(rs_at[array_position(rs_clusters, k.cluster)] > k.as_of, false);
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
         WHERE any_cp AND r.cluster = ANY (cp_clusters) AND r.as_of = ANY (cp_times)
           AND r.as_of = cp_times[array_position(cp_clusters, r.cluster)]
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

-- What a checkpoint's fair-share factors are computed from besides its
-- usage: the association tree and the settings of one cluster (NULL: of
-- every cluster), as one text, each table's rows counted and their text
-- hashed.  checkpoint_usage computes the factors before taking its lock
-- and compares this under the lock: a change to the tree committed in
-- between makes it differ, and the factors are dropped.
CREATE FUNCTION @extschema@._checkpoint_tree_fingerprint(cluster text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN concat_ws('/',
        (SELECT count(*) || ':' || COALESCE(sum(hashtext(c::text)), 0) FROM @extschema@.clusters c
          WHERE _checkpoint_tree_fingerprint.cluster IS NULL OR c.cluster = _checkpoint_tree_fingerprint.cluster),
        (SELECT count(*) || ':' || COALESCE(sum(hashtext(a::text)), 0) FROM @extschema@.accounts a
          WHERE _checkpoint_tree_fingerprint.cluster IS NULL OR a.cluster = _checkpoint_tree_fingerprint.cluster),
        (SELECT count(*) || ':' || COALESCE(sum(hashtext(u::text)), 0) FROM @extschema@.account_users u
          WHERE _checkpoint_tree_fingerprint.cluster IS NULL OR u.cluster = _checkpoint_tree_fingerprint.cluster));
END
$$;

-- What a chained checkpoint as of as_of reads (of one cluster, or every
-- cluster for NULL), as text, to compare before and under its lock: per
-- cluster the newest valid checkpoint at or before as_of, which it chains
-- from, then every run it reads (started by as_of, and running or ended
-- after that checkpoint) as the usage reads it: its association, start,
-- end and billing (job_billing), so that a write of anything else (a
-- state, a priority, a nice) leaves the rows standing.  NULL when a cluster has no
-- checkpoint to chain from (every run is read: no shortcut), and NULL
-- past max_runs runs: a checkpoint chained from one months or years back
-- reads millions, whose text outgrows PostgreSQL's 1 GB array (at 3×10^7
-- runs, chained from a checkpoint two years back, it failed); it then
-- computes again under its lock, as it did before this shortcut.  A few
-- thousand runs in 5 minutes at 10^7: one range scan of jobs_end_idx.
CREATE FUNCTION @extschema@._checkpoint_runs_read(cluster text, as_of timestamptz,
                                                     max_runs integer DEFAULT 250000)
RETURNS text[]
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    clusters text[];
    bases timestamptz[];
    oldest timestamptz;
    runs text[];
    n bigint;
BEGIN
    IF max_runs IS NULL OR max_runs < 0 THEN
        RAISE EXCEPTION '_checkpoint_runs_read: max_runs must be 0 or more, not %', max_runs
            USING ERRCODE = '22023', HINT = 'Pass the most runs to compare, or leave the default.';
    END IF;
    SELECT array_agg(c.cluster ORDER BY c.cluster),
           array_agg((SELECT max(k.as_of) FROM @extschema@.usage_checkpoints k
                       WHERE k.cluster = c.cluster AND k.invalidated_at IS NULL
                         AND k.as_of <= _checkpoint_runs_read.as_of) ORDER BY c.cluster)
      INTO clusters, bases
      FROM @extschema@.clusters c
     WHERE _checkpoint_runs_read.cluster IS NULL OR c.cluster = _checkpoint_runs_read.cluster;
    IF clusters IS NULL THEN
        RETURN '{}';
    END IF;
    IF array_position(bases, NULL) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    SELECT min(b) INTO oldest FROM unnest(bases) b;
    SELECT COALESCE(array_agg(r.t ORDER BY r.cluster, r.job_id, r.start_time, r.end_time, r.billing), '{}'),
           count(*)
      INTO runs, n
      FROM (SELECT j.cluster, j.job_id, j.start_time, j.end_time, j.billing,
                   ROW(j.cluster, j.job_id, j.account, j.user_name, j.start_time, j.end_time, j.billing)::text AS t
              FROM @extschema@.job_billing j
             WHERE j.start_time IS NOT NULL AND j.start_time <= _checkpoint_runs_read.as_of
               AND COALESCE(j.end_time, 'infinity'::timestamptz) > oldest
               AND j.cluster = ANY (clusters)
               AND COALESCE(j.end_time, 'infinity'::timestamptz) > bases[array_position(clusters, j.cluster)]
             LIMIT max_runs::bigint + 1) r;
    IF n > max_runs THEN
        RETURN NULL;
    END IF;
    RETURN ARRAY(SELECT format('%s as of %s', c, b) FROM unnest(clusters, bases) x(c, b)) || runs;
END
$$;

-- Make (or replace) a usage checkpoint of a cluster, or of every cluster
-- for NULL, as of an instant: association_usage_at(as_of), stored.  Run it
-- every few minutes (pg_cron), as Slurm recomputes usage every
-- PriorityCalcPeriod: usage reports as of any later instant then read the
-- jobs since as_of only.
--
-- Chained: the usage is computed as association_usage_at computes it, from
-- the cluster's newest valid checkpoint at or before as_of plus the jobs
-- since (the jobs alone when there is none, or with from_jobs), so that a
-- checkpoint every few minutes costs the few jobs since the last one, not
-- the history (issue 18).  In real arithmetic that is the sum over every
-- job; in float8 it differs from it by a few units in the last place per
-- link (sql/checkpoint.sql measures it).
--
-- Then the cluster's checkpoints are pruned to the keep_recent newest valid
-- ones and the newest valid one of each of the last keep_days days (in the
-- cluster's time zone), so that a change that invalidates the newest (an
-- import of jobs that started before it) falls back to an older one, and
-- invalid ones go; pinned ones (retention) stay.
--
-- Its end holds a SHARE lock on jobs, partitions, qos and clusters: a
-- change to them committed between the snapshot the checkpoint is computed
-- from and the checkpoint's own commit would find no checkpoint to
-- invalidate, so such writes wait.  The lock is taken late: the rows are
-- first written from a computation without it (writing every association's
-- row is most of the time), then, under the lock, the usage is computed
-- again (the jobs since the previous checkpoint, and a hash join with its
-- rows) and compared with what was written.  Equal, the rows stand: they
-- are what the computation under the lock gives.  A write committed in
-- between that changed an association makes its row differ, and those
-- rows are written again under the lock, and the factors computed before
-- dropped (also when the tree changed in between).  Either way what is
-- committed is the computation under the lock, and an import waits only
-- for the second computation and the pruning, not for the writing of
-- every row and factor (docs/design.md#usage-checkpoints).  With from_jobs (every job
-- read: seconds), or a checkpoint at the same instant to replace (its row
-- is locked by the DELETE, which a writer invalidating it would wait for
-- while the checkpoint waits for the writer's lock), the lock is taken
-- first, as before.  It runs under READ COMMITTED only: its statements
-- take their snapshots after the lock, when every earlier writer has
-- committed.
--
-- enable_mergejoin = off: chained, the previous checkpoint's rows (every
-- association) are joined with the few associations that ran since; a
-- merge join sorted the 75,001 rows by their text keys, a hash join of the
-- few probes them as they come (0.24-0.27 s -> 0.15-0.19 s at 10^7 jobs,
-- docs/performance.md).
--
-- enable_nestloop = off: _checkpoint_factors, when it read sshare_at
-- whole (inlined into its INSERT), joined each of the tree's rows with the
-- TRESRunMins lines by a nested loop over a CTE scan (7,499 x 1,086 rows at
-- 10^6 jobs: 1.0 s of the checkpoint's 1.9 s).  It now reads the tree
-- function alone (sprio_cache.sql), and the setting stays as a guard: no
-- statement here wants a nested loop: the usage is one range scan of
-- jobs_end_idx and a hash join, the foreign keys' checks single index probes
-- (docs/performance.md#history-at-scale).  jit = off: a plan that needs
-- a nested loop all the same (a lateral call) is priced past
-- jit_above_cost by the setting, and compiling each statement took longer
-- than the checkpoint (25 s instead of 1.6 s at 10^6 jobs, where JIT is
-- on by default).
CREATE PROCEDURE @extschema@.checkpoint_usage(cluster text DEFAULT NULL,
                                              as_of timestamptz DEFAULT pg_catalog.now(),
                                              from_jobs boolean DEFAULT false,
                                              keep_recent integer DEFAULT 3,
                                              keep_days integer DEFAULT 7)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET enable_mergejoin = off
SET enable_nestloop = off
SET jit = off
AS $$
DECLARE
    -- the lock taken before the rows are written (see above)
    lock_first boolean;
    -- associations whose usage differs under the lock
    changed bigint;
    -- the tree and settings the factors were computed with, and whether
    -- they were computed before the lock
    tree_before text;
    factors_done boolean := false;
    -- what the rows written before the lock were computed from
    runs_read text[];
BEGIN
    -- no checkpoint stays valid when jobs is a Citus table (citus.sql)
    PERFORM @extschema@._citus_no_checkpoints('checkpoint_usage');
    PERFORM @extschema@._check_as_of(checkpoint_usage.as_of);
    IF checkpoint_usage.as_of > now() THEN
        RAISE EXCEPTION 'checkpoint_usage: as_of % is in the future', checkpoint_usage.as_of
            USING ERRCODE = '22023',
                  HINT = 'Every job that starts before a checkpoint invalidates it: make it as of now() or earlier.';
    END IF;
    IF from_jobs IS NULL OR keep_recent IS NULL OR keep_days IS NULL THEN
        RAISE EXCEPTION 'checkpoint_usage: from_jobs, keep_recent and keep_days must not be NULL'
            USING ERRCODE = '22004', HINT = 'Leave them out for their defaults (false, 3, 7).';
    END IF;
    IF keep_recent NOT BETWEEN 1 AND 1000 OR keep_days NOT BETWEEN 0 AND 3660 THEN
        RAISE EXCEPTION 'checkpoint_usage: keep_recent % and keep_days % out of range', keep_recent, keep_days
            USING ERRCODE = '22023',
                  HINT = 'keep_recent counts checkpoints to keep (1 to 1000, the new one included), keep_days the days back with one kept each (0 to 3660).';
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
    lock_first := from_jobs
                  OR EXISTS (SELECT FROM @extschema@.usage_checkpoints k
                              WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
                                AND k.as_of = checkpoint_usage.as_of);
    IF lock_first THEN
        LOCK TABLE @extschema@.clusters, @extschema@.partitions, @extschema@.qos, @extschema@.jobs IN SHARE MODE;
    END IF;

    -- A checkpoint at the same instant is replaced: the new one chains
    -- from the one before it.  The new checkpoints are written marked
    -- invalid, so that the computation, which reads the valid ones, does
    -- not start from them, then marked valid; all in this transaction.
    DELETE FROM @extschema@.usage_checkpoints k
     WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
       AND k.as_of = checkpoint_usage.as_of;
    INSERT INTO @extschema@.usage_checkpoints (cluster, as_of, invalidated_at, invalidated_by, computed_from)
    SELECT c.cluster, checkpoint_usage.as_of, now(), 'being computed',
           (SELECT max(k.as_of) FROM @extschema@.usage_checkpoints k
             WHERE NOT from_jobs AND k.cluster = c.cluster AND k.invalidated_at IS NULL
               AND k.as_of <= checkpoint_usage.as_of)
      FROM @extschema@.clusters c
     WHERE checkpoint_usage.cluster IS NULL OR c.cluster = checkpoint_usage.cluster;
    -- The rows, and (chained, lock taken late) what they were computed
    -- from, in one statement, so from one snapshot: the runs read and the
    -- checkpoint chained from (_checkpoint_runs_read).
    WITH written AS (
        INSERT INTO @extschema@.usage_checkpoint_rows (cluster, as_of, account, user_name, raw_usage, jobs, pass_usage)
        SELECT u.cluster, checkpoint_usage.as_of, u.account, u.user_name, u.raw_usage, u.jobs,
               NULLIF(u.pass_usage, u.raw_usage)
          FROM @extschema@._association_usage(checkpoint_usage.as_of, from_jobs, checkpoint_usage.cluster) u
        RETURNING 1)
    SELECT CASE WHEN NOT lock_first
                THEN @extschema@._checkpoint_runs_read(checkpoint_usage.cluster, checkpoint_usage.as_of) END
      INTO runs_read;
    IF NOT lock_first THEN
        -- the fair-share factors of these rows, before the lock too
        -- (_checkpoint_factors reads valid checkpoints only: marked valid
        -- for it, invisible outside this transaction, then marked back), and
        -- what they were computed from besides the usage: the tree and the
        -- clusters' settings, fingerprinted before
        tree_before := @extschema@._checkpoint_tree_fingerprint(checkpoint_usage.cluster);
        UPDATE @extschema@.usage_checkpoints k SET invalidated_at = NULL, invalidated_by = NULL
         WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
           AND k.as_of = checkpoint_usage.as_of;
        PERFORM @extschema@._checkpoint_factors(checkpoint_usage.cluster, checkpoint_usage.as_of);
        UPDATE @extschema@.usage_checkpoints k SET invalidated_at = now(), invalidated_by = 'being computed'
         WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
           AND k.as_of = checkpoint_usage.as_of;

        LOCK TABLE @extschema@.clusters, @extschema@.partitions, @extschema@.qos, @extschema@.jobs IN SHARE MODE;
        -- Nothing the rows were computed from changed if, under the lock,
        -- the same checkpoint is the newest valid one to chain from and the
        -- runs it reads are the same as the usage reads them (association,
        -- start, end, billing): then the rows are
        -- what the computation under the lock gives, without computing it
        -- (a change to any other run that counts before that checkpoint
        -- invalidates it; a change to the partitions, QOS or decay settings
        -- invalidates every checkpoint of the cluster).
        IF runs_read IS NOT NULL
           AND runs_read = @extschema@._checkpoint_runs_read(checkpoint_usage.cluster, checkpoint_usage.as_of) THEN
            changed := 0;
            RAISE DEBUG 'checkpoint_usage: nothing it read changed before the lock; its rows stand';
        ELSE
            -- the same computation under the lock, against the rows written
            SELECT count(*) INTO changed
              FROM (SELECT r.cluster, r.account, r.user_name, r.raw_usage, r.jobs, r.pass_usage
                      FROM @extschema@.usage_checkpoint_rows r
                     WHERE (checkpoint_usage.cluster IS NULL OR r.cluster = checkpoint_usage.cluster)
                       AND r.as_of = checkpoint_usage.as_of) w
              FULL JOIN
                   (SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs,
                           NULLIF(u.pass_usage, u.raw_usage) AS pass_usage
                      FROM @extschema@._association_usage(checkpoint_usage.as_of, false, checkpoint_usage.cluster) u) n
                ON n.cluster = w.cluster AND n.account = w.account AND n.user_name = w.user_name
             WHERE w.cluster IS NULL OR n.cluster IS NULL
                OR (w.raw_usage, w.jobs, w.pass_usage) IS DISTINCT FROM (n.raw_usage, n.jobs, n.pass_usage);
            -- the associations that differ (a write committed in between) are
            -- written again, those alone (the usage computed once more: rare)
            IF changed > 0 THEN
                WITH n AS MATERIALIZED (
                    SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs,
                           NULLIF(u.pass_usage, u.raw_usage) AS pass_usage
                      FROM @extschema@._association_usage(checkpoint_usage.as_of, false, checkpoint_usage.cluster) u),
                w AS MATERIALIZED (
                    SELECT r.cluster, r.account, r.user_name, r.raw_usage, r.jobs, r.pass_usage
                      FROM @extschema@.usage_checkpoint_rows r
                     WHERE (checkpoint_usage.cluster IS NULL OR r.cluster = checkpoint_usage.cluster)
                       AND r.as_of = checkpoint_usage.as_of),
                d AS MATERIALIZED (
                    SELECT COALESCE(n.cluster, w.cluster) AS cluster, COALESCE(n.account, w.account) AS account,
                           COALESCE(n.user_name, w.user_name) AS user_name,
                           w.cluster IS NOT NULL AS written, n.cluster IS NOT NULL AS computed,
                           n.raw_usage, n.jobs, n.pass_usage
                      FROM w FULL JOIN n
                        ON n.cluster = w.cluster AND n.account = w.account AND n.user_name = w.user_name
                     WHERE w.cluster IS NULL OR n.cluster IS NULL
                        OR (w.raw_usage, w.jobs, w.pass_usage) IS DISTINCT FROM (n.raw_usage, n.jobs, n.pass_usage)),
                gone AS (
                    DELETE FROM @extschema@.usage_checkpoint_rows r
                     USING d
                     WHERE d.written AND NOT d.computed AND r.cluster = d.cluster AND r.as_of = checkpoint_usage.as_of
                       AND r.account = d.account AND r.user_name = d.user_name),
                redone AS (
                    UPDATE @extschema@.usage_checkpoint_rows r
                       SET raw_usage = d.raw_usage, jobs = d.jobs, pass_usage = d.pass_usage
                      FROM d
                     WHERE d.written AND d.computed AND r.cluster = d.cluster AND r.as_of = checkpoint_usage.as_of
                       AND r.account = d.account AND r.user_name = d.user_name),
                added AS (
                    INSERT INTO @extschema@.usage_checkpoint_rows (cluster, as_of, account, user_name, raw_usage, jobs, pass_usage)
                    SELECT d.cluster, checkpoint_usage.as_of, d.account, d.user_name, d.raw_usage, d.jobs, d.pass_usage
                      FROM d WHERE NOT d.written)
                SELECT count(*) INTO changed FROM d;
            END IF;
        END IF;
        -- the checkpoint chained from, as seen under the lock (a write in
        -- between may have invalidated the one seen before)
        UPDATE @extschema@.usage_checkpoints k
           SET computed_from = (SELECT max(x.as_of) FROM @extschema@.usage_checkpoints x
                                 WHERE x.cluster = k.cluster AND x.invalidated_at IS NULL
                                   AND x.as_of <= checkpoint_usage.as_of)
         WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
           AND k.as_of = checkpoint_usage.as_of;
        -- the factors written before the lock hold if neither the usage nor
        -- the tree changed; otherwise they are dropped, not computed again
        -- under the lock (writes would wait for them): sprio_at computes the
        -- tree itself until the next checkpoint (sprio_cache.sql)
        IF changed > 0
           OR tree_before IS DISTINCT FROM @extschema@._checkpoint_tree_fingerprint(checkpoint_usage.cluster) THEN
            DELETE FROM @extschema@.usage_checkpoint_factors f
             WHERE (checkpoint_usage.cluster IS NULL OR f.cluster = checkpoint_usage.cluster)
               AND f.as_of = checkpoint_usage.as_of;
        END IF;
        factors_done := true;
    END IF;
    UPDATE @extschema@.usage_checkpoints k SET invalidated_at = NULL, invalidated_by = NULL
     WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
       AND k.as_of = checkpoint_usage.as_of;

    -- prune: invalid ones, and valid ones neither among the keep_recent
    -- newest nor the newest of a day of the last keep_days
    DELETE FROM @extschema@.usage_checkpoints k
     USING (SELECT x.cluster, x.as_of,
                   x.invalidated_at IS NULL
                   AND (row_number() OVER (PARTITION BY x.cluster, x.invalidated_at IS NULL ORDER BY x.as_of DESC)
                          <= keep_recent
                        OR (row_number() OVER (PARTITION BY x.cluster, x.invalidated_at IS NULL,
                                                            (x.as_of AT TIME ZONE c.timezone)::date
                                               ORDER BY x.as_of DESC) = 1
                            AND (x.as_of AT TIME ZONE c.timezone)::date
                                > (checkpoint_usage.as_of AT TIME ZONE c.timezone)::date - keep_days)) AS kept
              FROM @extschema@.usage_checkpoints x
              JOIN @extschema@.clusters c ON c.cluster = x.cluster
             WHERE checkpoint_usage.cluster IS NULL OR x.cluster = checkpoint_usage.cluster) p
     WHERE k.cluster = p.cluster AND k.as_of = p.as_of AND NOT p.kept AND NOT k.pinned;
    -- the fair-share factors as of the new checkpoints, for sprio_at (sprio_cache.sql)
    IF NOT factors_done THEN
        PERFORM @extschema@._checkpoint_factors(checkpoint_usage.cluster, checkpoint_usage.as_of);
    END IF;
END
$$;
COMMENT ON PROCEDURE @extschema@.checkpoint_usage(text, timestamptz, boolean, integer, integer) IS
'Store every association''s decayed usage as of an instant (default now()) for one cluster or all (NULL), chained from the newest valid checkpoint before it (from_jobs: from the jobs alone), keeping keep_recent recent checkpoints and one per day for keep_days days; run it every few minutes, like Slurm''s PriorityCalcPeriod.';

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
    FOR cp IN SELECT k.cluster, k.as_of, k.pinned FROM @extschema@.usage_checkpoints k
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
              FROM old_jobs o FULL JOIN new_jobs n
                ON n.cluster = o.cluster AND n.job_id = o.job_id AND n.submit_time = o.submit_time
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
        IF job IS NOT NULL AND cp.pinned THEN
            RAISE EXCEPTION 'job % of cluster % started before the pinned usage checkpoint as of %: it cannot change',
                            job, cp.cluster, cp.as_of
                USING ERRCODE = '55000',
                      HINT = 'Retention removed jobs older than that checkpoint and keeps their usage in it only; restore the archived partitions and unpin it (fairshare.usage_checkpoints.pinned) to change history before it.';
        END IF;
        IF job IS NOT NULL THEN
            UPDATE @extschema@.usage_checkpoints k
               SET invalidated_at = now(),
                   invalidated_by = CASE WHEN TG_OP = 'TRUNCATE' THEN 'TRUNCATE jobs'
                                         ELSE format('%s on jobs: job %s, started before the checkpoint', TG_OP, job) END
             WHERE k.cluster = cp.cluster AND k.as_of = cp.as_of AND k.invalidated_at IS NULL;
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
    IF EXISTS (SELECT FROM @extschema@.usage_checkpoints k
                WHERE k.pinned AND k.invalidated_at IS NULL AND (TG_OP = 'TRUNCATE' OR k.cluster = ANY (affected))) THEN
        RAISE EXCEPTION '% on %: % while a pinned usage checkpoint holds usage computed with the old settings',
                        TG_OP, TG_TABLE_NAME, TG_ARGV[0]
            USING ERRCODE = '55000',
                  HINT = 'Retention removed jobs older than that checkpoint; their usage cannot be billed again. Restore the archived partitions and unpin it first.';
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
                       OR OLD.decay_factor IS DISTINCT FROM NEW.decay_factor
                       OR OLD.priority_calc_period IS DISTINCT FROM NEW.priority_calc_period
                       OR OLD.priority_last_decay IS DISTINCT FROM NEW.priority_last_decay
                       OR OLD.usage_reset_period IS DISTINCT FROM NEW.usage_reset_period
                       OR OLD.usage_last_reset IS DISTINCT FROM NEW.usage_last_reset
                       -- the periods of a reset start in the cluster's time zone
                       OR (OLD.timezone IS DISTINCT FROM NEW.timezone
                           AND pg_catalog.upper(NEW.usage_reset_period) NOT IN ('NONE', 'NOW')))
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
-- ---------------------------------------------------------------------------
-- fair_tree: Slurm's fair share over an association tree (PROTEUS, CALI;
-- docs/policies.md#fair-share), read from Slurm's code
-- (docs/slurm.md#fair-tree, docs/slurm.md#classic-fair-share,
-- docs/slurm.md#edge-cases).
--
-- Window functions over the rows of one tree per partition:
--   f(id, parent_id, shares, usage, is_user) OVER (PARTITION BY cluster)
-- parent_id NULL = the root; shares NULL = Fairshare=parent; usage = raw
-- usage charged to the association itself (an account's raw usage is its
-- own plus its descendants').  Not STRICT: NULL parent_id and shares mean
-- something; a NULL id, usage or is_user is an error (22004).
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@.fair_tree_rank(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS bigint AS 'MODULE_PATHNAME', 'fs_fair_tree_rank'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_rank(text, text, float8, float8, boolean) IS
'Slurm Fair Tree rank of a user association: N (number of user rows) for the most deserving, counting down, ties as Slurm assigns them; NULL for accounts.';

CREATE FUNCTION @extschema@.fair_tree_factor(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_factor'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_factor(text, text, float8, float8, boolean) IS
'Fair Tree fair-share factor rank/N (sshare FairShare); NULL for accounts.';

CREATE FUNCTION @extschema@.fair_tree_level_fs(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_level_fs'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_level_fs(text, text, float8, float8, boolean) IS
'Fair Tree Level FS = NormShares/EffectvUsage (Infinity when shares > 0 and usage 0, 0 when shares 0); NULL for the root and Fairshare=parent rows, as sshare leaves them empty.';

CREATE FUNCTION @extschema@.fair_tree_norm_shares(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_norm_shares'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_norm_shares(text, text, float8, float8, boolean) IS
'Fair Tree NormShares: shares / shares of the fs sibling group; a Fairshare=parent row shows its fs parent''s; 0 for the root.';

CREATE FUNCTION @extschema@.fair_tree_effective_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_effective_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_effective_usage(text, text, float8, float8, boolean) IS
'Fair Tree EffectvUsage: raw usage / raw usage of the fs parent (0 when that is 0); 1 for the root.';

CREATE FUNCTION @extschema@.classic_norm_shares(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_norm_shares'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_norm_shares(text, text, float8, float8, boolean) IS
'Classic (NO_FAIR_TREE) NormShares: product of shares/level shares down the path, Fairshare=parent resolved to the fs parent; 1 for the root.';

CREATE FUNCTION @extschema@.classic_effective_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_effective_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_effective_usage(text, text, float8, float8, boolean) IS
'Classic EffectvUsage: UN under the root, else UN + (UE(parent) - UN) x shares/level shares; 1 for the root.';

CREATE FUNCTION @extschema@.classic_factor(id text, parent_id text, shares float8, usage float8, is_user boolean,
                                           dampening float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_factor'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_factor(text, text, float8, float8, boolean, float8) IS
'Classic fair-share factor 2^(-(EffectvUsage/NormShares)/dampening), 0 when NormShares is 0; accounts too (sshare prints them); NULL for the root.';

CREATE FUNCTION @extschema@.tree_raw_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_tree_raw_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_raw_usage(text, text, float8, float8, boolean) IS
'Raw usage of an association: its own usage plus all its descendants'' (sshare RawUsage before truncation).';

CREATE FUNCTION @extschema@.tree_norm_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_tree_norm_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_norm_usage(text, text, float8, float8, boolean) IS
'NormUsage: raw usage / raw usage of the root, at most 1; 0 when the root has no usage.';

CREATE FUNCTION @extschema@.tree_depth(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS integer AS 'MODULE_PATHNAME', 'fs_tree_depth'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_depth(text, text, float8, float8, boolean) IS
'Depth of an association in the tree, the root 0.';

CREATE FUNCTION @extschema@.tree_order(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS bigint AS 'MODULE_PATHNAME', 'fs_tree_order'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_order(text, text, float8, float8, boolean) IS
'Position (1 = root) in Slurm''s lineage order: pre-order, users before sub-accounts, each by id; sshare lists in this order and Fair Tree breaks exact ties with it.';
-- ---------------------------------------------------------------------------
-- pbs: MetaCentrum's processor-equivalent usage, PBS step decay with its
-- floor of 1, and the PBS fairshare tree (docs/policies.md#metacentrum-usage,
-- docs/policies.md#metacentrum-and-pbs, docs/metacentrum.md; C in pbs.c).
-- ---------------------------------------------------------------------------

-- Processor equivalent: per resource used / node total × node CPUs × weight;
-- 'sum' (MetaCentrum) adds the four terms, 'max' (Maui) takes the largest.
CREATE FUNCTION @extschema@.processor_equivalent(
    cpus float8, mem_mb float8, scratch_mb float8, gpus float8,
    node_cpus float8, node_mem_mb float8, node_scratch_mb float8, node_gpus float8,
    nodes float8 DEFAULT 1, mode text DEFAULT 'sum',
    weight_cpu float8 DEFAULT 1, weight_mem float8 DEFAULT 1,
    weight_scratch float8 DEFAULT 1, weight_gpu float8 DEFAULT 1)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_processor_equivalent'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.processor_equivalent(float8, float8, float8, float8, float8, float8, float8, float8, float8, text, float8, float8, float8, float8) IS
'MetaCentrum processor equivalent of a job on its node: Σ (sum) or max (Maui) of used_r / node_r × node_cpus × weight_r over CPUs, memory, scratch, GPUs.';

CREATE FUNCTION @extschema@.processor_equivalent_parts(
    cpus float8, mem_mb float8, scratch_mb float8, gpus float8,
    node_cpus float8, node_mem_mb float8, node_scratch_mb float8, node_gpus float8,
    nodes float8 DEFAULT 1, mode text DEFAULT 'sum',
    weight_cpu float8 DEFAULT 1, weight_mem float8 DEFAULT 1,
    weight_scratch float8 DEFAULT 1, weight_gpu float8 DEFAULT 1,
    OUT cpu float8, OUT mem float8, OUT scratch float8, OUT gpu float8, OUT total float8)
AS 'MODULE_PATHNAME', 'fs_processor_equivalent_parts'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.processor_equivalent_parts(float8, float8, float8, float8, float8, float8, float8, float8, float8, text, float8, float8, float8, float8) IS
'The four terms of the processor equivalent (CPU, memory, scratch, GPU) and their total (sum or max, per mode).';

-- usage = spec × walltime × PE (apply it to each part for per-resource usage)
CREATE FUNCTION @extschema@.metacentrum_usage(pe float8, walltime interval, spec float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_metacentrum_usage'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.metacentrum_usage(float8, interval, float8) IS
'MetaCentrum usage of a job: spec × walltime (seconds) × processor equivalent.';

-- PBS step decay with the floor: the usage PBS keeps for one entity.  Internal
-- state (charges per decay interval) with combine and serial functions.
CREATE FUNCTION @extschema@._pbs_decay_point_accum(internal, float8, timestamptz, timestamptz, interval, float8)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._pbs_decay_span_accum(internal, float8, timestamptz, timestamptz, timestamptz, interval, float8)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._pbs_decay_combine(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@._pbs_decay_serial(internal)
RETURNS bytea AS 'MODULE_PATHNAME', 'fs_pbs_decay_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._pbs_decay_deserial(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@._pbs_decay_final(internal)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_pbs_decay_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.decayed_usage_pbs(usage float8, at timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@._pbs_decay_point_accum, STYPE = internal, SSPACE = 64,
    COMBINEFUNC = @extschema@._pbs_decay_combine,
    SERIALFUNC = @extschema@._pbs_decay_serial, DESERIALFUNC = @extschema@._pbs_decay_deserial,
    FINALFUNC = @extschema@._pbs_decay_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_pbs(float8, timestamptz, timestamptz, interval, float8) IS
'PBS entity usage at as_of: starts at 1, usage charged at an instant is added, every decay_interval (from 1970-01-01 UTC) it is multiplied by decay_factor and raised back to 1 if below.';

CREATE AGGREGATE @extschema@.decayed_usage_pbs(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@._pbs_decay_span_accum, STYPE = internal, SSPACE = 64,
    COMBINEFUNC = @extschema@._pbs_decay_combine,
    SERIALFUNC = @extschema@._pbs_decay_serial, DESERIALFUNC = @extschema@._pbs_decay_deserial,
    FINALFUNC = @extschema@._pbs_decay_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_pbs(float8, timestamptz, timestamptz, timestamptz, interval, float8) IS
'PBS entity usage at as_of, usage accrued uniformly over [started, ended] and charged to the decay intervals it falls in.';

-- The PBS fairshare tree over (id, parent_id, shares, usage, is_user) rows,
-- one tree per window partition.
CREATE FUNCTION @extschema@.pbs_fairshare_perc(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_pbs_fairshare_perc'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pbs_fairshare_perc(text, text, float8, float8, boolean) IS
'PBS fairshare_perc: product of shares / Σ sibling shares from the root down (1 for the root).';

CREATE FUNCTION @extschema@.pbs_fairshare_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_pbs_fairshare_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pbs_fairshare_usage(text, text, float8, float8, boolean) IS
'The usage PBS holds for the node: a user''s usage, at least 1; a group''s 1 + its own + the usage of the users beneath it that are above 1.';

CREATE FUNCTION @extschema@.pbs_tree_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_pbs_tree_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pbs_tree_usage(text, text, float8, float8, boolean) IS
'PBS fairshare_tree_usage: usage / root usage for a child of the root; deeper u + (parent tree usage − u) × share of its group; NULL for the root.';

CREATE FUNCTION @extschema@.pbs_fairshare_factor(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_pbs_fairshare_factor'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pbs_fairshare_factor(text, text, float8, float8, boolean) IS
'PBS fairshare_factor: 2^(−tree usage / perc), 0 when perc is 0; NULL for the root.';

CREATE FUNCTION @extschema@.pbs_fairshare_rank(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS bigint AS 'MODULE_PATHNAME', 'fs_pbs_fairshare_rank'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.pbs_fairshare_rank(text, text, float8, float8, boolean) IS
'Order in which PBS fair_share runs users (compare_path): 1 first, ties share a rank; NULL for groups.';
-- ---------------------------------------------------------------------------
-- metacentrum: a MetaCentrum / PBS cluster over the accounting model
-- (docs/policies.md#metacentrum-usage, docs/policies.md#metacentrum-and-pbs,
-- docs/metacentrum.md).  Clusters whose
-- fairshare_algorithm is 'pbs' get: each job's processor equivalent and
-- usage (spec × walltime × PE, per resource), each user's usage decayed
-- in PBS steps (decay_interval, decay_factor, floor 1), an optional
-- publication multiplier, and the PBS fairshare tree as pbsfs shows it.
-- ---------------------------------------------------------------------------

-- Per-cluster MetaCentrum settings.  A PBS cluster without a row uses the
-- defaults: PE 'sum', every weight 1, publications without effect.
CREATE TABLE @extschema@.pbs_settings (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    -- 'sum' adds the CPU, memory, scratch and GPU terms (MetaCentrum), 'max' takes the largest (Maui)
    pe_mode              text NOT NULL DEFAULT 'sum' CHECK (pe_mode IN ('sum', 'max')),
    weight_cpu           float8 NOT NULL DEFAULT 1
                         CHECK (weight_cpu OPERATOR(pg_catalog.>=) 0 AND weight_cpu OPERATOR(pg_catalog.<) 'Infinity'),
    weight_mem           float8 NOT NULL DEFAULT 1
                         CHECK (weight_mem OPERATOR(pg_catalog.>=) 0 AND weight_mem OPERATOR(pg_catalog.<) 'Infinity'),
    weight_scratch       float8 NOT NULL DEFAULT 1
                         CHECK (weight_scratch OPERATOR(pg_catalog.>=) 0 AND weight_scratch OPERATOR(pg_catalog.<) 'Infinity'),
    weight_gpu           float8 NOT NULL DEFAULT 1
                         CHECK (weight_gpu OPERATOR(pg_catalog.>=) 0 AND weight_gpu OPERATOR(pg_catalog.<) 'Infinity'),
    -- publications: multiplier = publication_factor ^ (weighted acknowledged
    -- publications), applied to the user's usage (e.g. 0.9: −10 % each) or
    -- to its shares (e.g. 1.1: +10 % each).  1 = no effect.
    publication_target   text NOT NULL DEFAULT 'usage' CHECK (publication_target IN ('usage', 'shares')),
    publication_factor   float8 NOT NULL DEFAULT 1
                         CHECK (publication_factor OPERATOR(pg_catalog.>) 0 AND publication_factor OPERATOR(pg_catalog.<) 'Infinity'),
    -- only publications of the last publication_window count (NULL: all)
    publication_window   interval CHECK (publication_window OPERATOR(pg_catalog.>) '0'::interval)
);
COMMENT ON TABLE @extschema@.pbs_settings IS 'MetaCentrum settings of a PBS cluster: PE mode and weights, and how publications change fairshare.';

-- Publications acknowledging the centre, as users report them.
CREATE TABLE @extschema@.publications (
    publication_id       bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    user_name            text NOT NULL CHECK (user_name OPERATOR(pg_catalog.<>) ''),
    title                text NOT NULL CHECK (title OPERATOR(pg_catalog.<>) ''),
    published            date NOT NULL CHECK (pg_catalog.isfinite(published)),
    -- only publications with an acknowledgement of the centre count
    acknowledged         boolean NOT NULL DEFAULT true,
    -- how many publications this one counts for (1; a centre may weigh them)
    weight               float8 NOT NULL DEFAULT 1
                         CHECK (weight OPERATOR(pg_catalog.>=) 0 AND weight OPERATOR(pg_catalog.<) 'Infinity')
);
COMMENT ON TABLE @extschema@.publications IS 'Users'' publications; acknowledged ones raise the user''s fairshare priority per pbs_settings.';
CREATE INDEX ON @extschema@.publications (user_name, published);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.pbs_settings', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.publications', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.publications_publication_id_seq', '');

-- factor ^ publications: the per-user multiplier (1 when factor is 1 or no publication)
CREATE FUNCTION @extschema@.publication_multiplier(publications float8, factor float8)
RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
    WHEN NOT (publications OPERATOR(pg_catalog.>=) 0 AND publications OPERATOR(pg_catalog.<) 'Infinity')
      THEN @extschema@._raise('22023', pg_catalog.format('publications must be a finite number >= 0, not %s', publications),
           'Count the user''s acknowledged publications.', NULL::float8)
    WHEN NOT (factor OPERATOR(pg_catalog.>) 0 AND factor OPERATOR(pg_catalog.<) 'Infinity')
      THEN @extschema@._raise('22023', pg_catalog.format('factor must be a finite number > 0, not %s', factor),
           'Below 1 lowers usage (on usage), above 1 raises shares (on shares); 1 has no effect.', NULL::float8)
    ELSE pg_catalog.power(factor, publications)
END;
COMMENT ON FUNCTION @extschema@.publication_multiplier(float8, float8) IS
'factor ^ publications: how much a user''s usage (or shares) is multiplied by for its acknowledged publications.';

-- Each started job of a PBS cluster: spec, walltime up to as_of, processor
-- equivalent and usage per resource.  Spec is the job's own when it carries
-- one, else its partition's; an exclusive job holds its nodes whole.
CREATE FUNCTION @extschema@.metacentrum_job_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, job_id text, user_name text, account text, partition text,
               start_time timestamptz, end_time timestamptz, spec float8, walltime interval,
               pe_cpu float8, pe_mem float8, pe_scratch float8, pe_gpu float8, pe float8,
               usage_cpu float8, usage_mem float8, usage_scratch float8, usage_gpu float8, usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH j AS (
        SELECT j.cluster, j.job_id, j.user_name, j.account, j.partition, j.start_time, j.end_time,
               COALESCE(j.spec, p.spec) AS spec,
               LEAST(COALESCE(j.end_time, metacentrum_job_usage_at.as_of), metacentrum_job_usage_at.as_of)
                 OPERATOR(pg_catalog.-) j.start_time AS walltime,
               pe.cpu, pe.mem, pe.scratch, pe.gpu, pe.total
          FROM @extschema@.jobs j
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN @extschema@.partitions p
            ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
          LEFT JOIN @extschema@.pbs_settings s ON s.cluster OPERATOR(pg_catalog.=) j.cluster
         CROSS JOIN LATERAL @extschema@.processor_equivalent_parts(
               CASE WHEN j.exclusive THEN GREATEST(j.nodes, 1) OPERATOR(pg_catalog.*) p.cores_per_node ELSE j.cpus END,
               CASE WHEN j.exclusive THEN GREATEST(j.nodes, 1) OPERATOR(pg_catalog.*) p.mem_per_node_mb ELSE j.mem_mb END,
               CASE WHEN j.exclusive THEN GREATEST(j.nodes, 1) OPERATOR(pg_catalog.*) p.scratch_per_node_mb ELSE j.scratch_mb END,
               CASE WHEN j.exclusive THEN GREATEST(j.nodes, 1) OPERATOR(pg_catalog.*) p.gpus_per_node ELSE j.gpus END,
               p.cores_per_node, p.mem_per_node_mb, p.scratch_per_node_mb, p.gpus_per_node,
               GREATEST(j.nodes, 1), COALESCE(s.pe_mode, 'sum'),
               COALESCE(s.weight_cpu, 1), COALESCE(s.weight_mem, 1),
               COALESCE(s.weight_scratch, 1), COALESCE(s.weight_gpu, 1)) pe
         WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) 'pbs'
           AND j.start_time IS NOT NULL
           AND j.start_time OPERATOR(pg_catalog.<=) metacentrum_job_usage_at.as_of
    )
    SELECT j.cluster, j.job_id, j.user_name, j.account, j.partition, j.start_time, j.end_time,
           j.spec, j.walltime, j.cpu, j.mem, j.scratch, j.gpu, j.total,
           @extschema@.metacentrum_usage(j.cpu, j.walltime, j.spec),
           @extschema@.metacentrum_usage(j.mem, j.walltime, j.spec),
           @extschema@.metacentrum_usage(j.scratch, j.walltime, j.spec),
           @extschema@.metacentrum_usage(j.gpu, j.walltime, j.spec),
           @extschema@.metacentrum_usage(j.total, j.walltime, j.spec)
      FROM j
     WHERE @extschema@._check_as_of(metacentrum_job_usage_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.metacentrum_job_usage_at(timestamptz) IS
'Each job of a PBS cluster started by as_of: spec, walltime up to as_of, processor equivalent and usage (spec × seconds × PE) per resource and in total.';

CREATE VIEW @extschema@.metacentrum_job_usage AS
SELECT * FROM @extschema@.metacentrum_job_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.metacentrum_job_usage IS 'metacentrum_job_usage_at(now()).';

-- Every user association of a PBS cluster as of an instant: usage per
-- resource decayed in the cluster's steps (no floor: parts of a whole), the
-- PBS usage (floored, as the scheduler keeps it; 1 without jobs), the
-- publications counted and the multiplier, and the usage fairshare uses.
CREATE FUNCTION @extschema@.metacentrum_user_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text,
               usage_cpu float8, usage_mem float8, usage_scratch float8, usage_gpu float8,
               usage float8, jobs bigint, publications float8, multiplier float8, fairshare_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH spans AS (
        -- whole jobs: the aggregates keep only what accrued by as_of
        SELECT j.cluster, j.account, j.user_name, j.start_time AS s,
               COALESCE(j.end_time, GREATEST(j.start_time, metacentrum_user_usage_at.as_of)) AS e,
               j.spec, j.pe_cpu, j.pe_mem, j.pe_scratch, j.pe_gpu, j.pe
          FROM @extschema@.metacentrum_job_usage_at(metacentrum_user_usage_at.as_of) j
    ), charged AS (
        SELECT s.cluster, s.account, s.user_name, s.s, s.e,
               @extschema@.metacentrum_usage(s.pe_cpu, s.e OPERATOR(pg_catalog.-) s.s, s.spec) AS u_cpu,
               @extschema@.metacentrum_usage(s.pe_mem, s.e OPERATOR(pg_catalog.-) s.s, s.spec) AS u_mem,
               @extschema@.metacentrum_usage(s.pe_scratch, s.e OPERATOR(pg_catalog.-) s.s, s.spec) AS u_scratch,
               @extschema@.metacentrum_usage(s.pe_gpu, s.e OPERATOR(pg_catalog.-) s.s, s.spec) AS u_gpu,
               @extschema@.metacentrum_usage(s.pe, s.e OPERATOR(pg_catalog.-) s.s, s.spec) AS u
          FROM spans s
    ), pubs AS (
        -- publications up to as_of's date in the cluster's time zone
        SELECT au.cluster, au.user_name, COALESCE(pg_catalog.sum(pb.weight), 0) AS n
          FROM (SELECT DISTINCT a.cluster, a.user_name, x.today, st.publication_window
                  FROM @extschema@.account_users a
                  JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
                  LEFT JOIN @extschema@.pbs_settings st ON st.cluster OPERATOR(pg_catalog.=) a.cluster
                 CROSS JOIN LATERAL (SELECT pg_catalog.timezone(c.timezone, metacentrum_user_usage_at.as_of)::date AS today) x
                 WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) 'pbs') au
          LEFT JOIN @extschema@.publications pb
            ON pb.user_name OPERATOR(pg_catalog.=) au.user_name
           AND pb.acknowledged
           AND pb.published OPERATOR(pg_catalog.<=) au.today
           AND (au.publication_window IS NULL
                OR pb.published OPERATOR(pg_catalog.>) (au.today OPERATOR(pg_catalog.-) au.publication_window))
         GROUP BY au.cluster, au.user_name
    ), per_user AS (
        SELECT au.cluster, au.account, au.user_name,
               COALESCE(@extschema@.decayed_usage_step(ch.u_cpu, ch.s, ch.e, metacentrum_user_usage_at.as_of, c.decay_interval, c.decay_factor), 0) AS usage_cpu,
               COALESCE(@extschema@.decayed_usage_step(ch.u_mem, ch.s, ch.e, metacentrum_user_usage_at.as_of, c.decay_interval, c.decay_factor), 0) AS usage_mem,
               COALESCE(@extschema@.decayed_usage_step(ch.u_scratch, ch.s, ch.e, metacentrum_user_usage_at.as_of, c.decay_interval, c.decay_factor), 0) AS usage_scratch,
               COALESCE(@extschema@.decayed_usage_step(ch.u_gpu, ch.s, ch.e, metacentrum_user_usage_at.as_of, c.decay_interval, c.decay_factor), 0) AS usage_gpu,
               COALESCE(@extschema@.decayed_usage_pbs(ch.u, ch.s, ch.e, metacentrum_user_usage_at.as_of, c.decay_interval, c.decay_factor), 1) AS usage,
               pg_catalog.count(ch.u) AS jobs
          FROM @extschema@.account_users au
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
          LEFT JOIN charged ch
            ON ch.cluster OPERATOR(pg_catalog.=) au.cluster
           AND ch.account OPERATOR(pg_catalog.=) au.account
           AND ch.user_name OPERATOR(pg_catalog.=) au.user_name
         WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) 'pbs'
         GROUP BY au.cluster, au.account, au.user_name
    )
    SELECT u.cluster, u.account, u.user_name, u.usage_cpu, u.usage_mem, u.usage_scratch, u.usage_gpu,
           u.usage, u.jobs, p.n,
           @extschema@.publication_multiplier(p.n, COALESCE(st.publication_factor, 1)),
           CASE WHEN COALESCE(st.publication_target, 'usage') OPERATOR(pg_catalog.=) 'usage'
                THEN GREATEST(1, u.usage OPERATOR(pg_catalog.*)
                                 @extschema@.publication_multiplier(p.n, COALESCE(st.publication_factor, 1)))
                ELSE u.usage END
      FROM per_user u
      JOIN pubs p ON p.cluster OPERATOR(pg_catalog.=) u.cluster AND p.user_name OPERATOR(pg_catalog.=) u.user_name
      LEFT JOIN @extschema@.pbs_settings st ON st.cluster OPERATOR(pg_catalog.=) u.cluster
     WHERE @extschema@._check_as_of(metacentrum_user_usage_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.metacentrum_user_usage_at(timestamptz) IS
'Each user association of a PBS cluster as of an instant: decayed usage per resource, PBS usage (floored at 1), publications, multiplier and the usage fairshare uses.';

CREATE VIEW @extschema@.metacentrum_user_usage AS
SELECT * FROM @extschema@.metacentrum_user_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.metacentrum_user_usage IS 'metacentrum_user_usage_at(now()).';

-- The PBS fairshare tree of every PBS cluster as pbsfs shows it: the account
-- tree with the user associations as entities.  A user's shares are
-- multiplied by its publication multiplier when the cluster applies it to
-- shares, its usage when it applies it to usage.
CREATE FUNCTION @extschema@.pbsfs_at(as_of timestamptz)
RETURNS TABLE (cluster text, entity text, is_user boolean, account text, shares float8,
               usage float8, fairshare_perc float8, usage_perc float8,
               fairshare_tree_usage float8, fairshare_factor float8, fairshare_rank bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH nodes AS (
        SELECT a.cluster, a.account AS entity, false AS is_user, a.parent_account AS account,
               pg_catalog.json_build_array(a.account)::text AS id,
               CASE WHEN a.parent_account IS NOT NULL
                    THEN pg_catalog.json_build_array(a.parent_account)::text END AS parent_id,
               a.shares::float8 AS shares, 0::float8 AS usage
          FROM @extschema@.accounts a
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
         WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) 'pbs'
        UNION ALL
        SELECT u.cluster, u.user_name, true, u.account,
               pg_catalog.json_build_array(u.account, u.user_name)::text,
               pg_catalog.json_build_array(u.account)::text,
               au.shares::float8 OPERATOR(pg_catalog.*)
                 CASE WHEN st.publication_target OPERATOR(pg_catalog.=) 'shares' THEN u.multiplier ELSE 1 END,
               u.fairshare_usage
          FROM @extschema@.metacentrum_user_usage_at(pbsfs_at.as_of) u
          JOIN @extschema@.account_users au
            ON au.cluster OPERATOR(pg_catalog.=) u.cluster AND au.account OPERATOR(pg_catalog.=) u.account
           AND au.user_name OPERATOR(pg_catalog.=) u.user_name
          LEFT JOIN @extschema@.pbs_settings st ON st.cluster OPERATOR(pg_catalog.=) u.cluster
    ), tree AS (
        SELECT n.cluster, n.entity, n.is_user, n.account, n.shares,
               @extschema@.pbs_fairshare_usage(n.id, n.parent_id, n.shares, n.usage, n.is_user) OVER w AS usage,
               @extschema@.pbs_fairshare_perc(n.id, n.parent_id, n.shares, n.usage, n.is_user) OVER w AS perc,
               @extschema@.pbs_tree_usage(n.id, n.parent_id, n.shares, n.usage, n.is_user) OVER w AS tree_usage,
               @extschema@.pbs_fairshare_factor(n.id, n.parent_id, n.shares, n.usage, n.is_user) OVER w AS factor,
               @extschema@.pbs_fairshare_rank(n.id, n.parent_id, n.shares, n.usage, n.is_user) OVER w AS rank
          FROM nodes n
        WINDOW w AS (PARTITION BY n.cluster)
    )
    SELECT t.cluster, t.entity, t.is_user, t.account, t.shares, t.usage, t.perc,
           CASE WHEN t.perc OPERATOR(pg_catalog.>) 0 THEN t.usage OPERATOR(pg_catalog./) t.perc END,
           t.tree_usage, t.factor, t.rank
      FROM tree t
     WHERE @extschema@._check_as_of(pbsfs_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.pbsfs_at(timestamptz) IS
'The PBS fairshare tree of every PBS cluster as of an instant (pbsfs): shares, usage, fairshare_perc, usage/perc, fairshare_tree_usage, fairshare_factor and the order PBS runs users in.';

CREATE VIEW @extschema@.pbsfs AS
SELECT * FROM @extschema@.pbsfs_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.pbsfs IS 'pbsfs_at(now()).';
-- ---------------------------------------------------------------------------
-- priority: Slurm's multifactor job priority and its factors
-- (docs/slurm.md#multifactor-job-priority, docs/policies.md#job-priority;
-- PROTEUS: 90000 fairshare / 5000 age / 5000 job size, 14-day max
-- age; CALI: 70000 fairshare / 30000 partition).  Pure functions: they read
-- their arguments only.  The model's view is fairshare.sprio (sprio.sql).
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@.job_priority(
    fairshare float8, age float8 DEFAULT 0, job_size float8 DEFAULT 0,
    partition float8 DEFAULT 0, qos float8 DEFAULT 0,
    weight_fairshare float8 DEFAULT 0, weight_age float8 DEFAULT 0,
    weight_job_size float8 DEFAULT 0, weight_partition float8 DEFAULT 0,
    weight_qos float8 DEFAULT 0, nice bigint DEFAULT 0)
RETURNS bigint
AS 'MODULE_PATHNAME', 'fs_job_priority'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.job_priority(float8, float8, float8, float8, float8, float8, float8, float8, float8, float8, bigint) IS
'Slurm multifactor priority: age×Wage + fs×Wfs + js×Wjs + part×Wpart + qos×Wqos − nice, added in Slurm''s order; below 1 gives 1, truncated, at most 4294967295. Factors in [0,1], weights finite >= 0 (else 22023). STRICT: NULL in, NULL out.';

CREATE FUNCTION @extschema@.age_factor(eligible timestamptz, as_of timestamptz, max_age interval)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_age_factor'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.age_factor(timestamptz, timestamptz, interval) IS
'Slurm age factor: whole seconds pending since eligible / PriorityMaxAge, at most 1; 0 when not eligible at as_of (eligible NULL or later); max_age 0 gives 1 to eligible jobs. NULL as_of or max_age gives NULL.';

CREATE FUNCTION @extschema@.job_size_factor(nodes bigint, cpus bigint, total_nodes bigint, total_cpus bigint,
                                             favor_small boolean DEFAULT false)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_job_size_factor'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.job_size_factor(bigint, bigint, bigint, bigint, boolean) IS
'Slurm job-size factor: (nodes/total_nodes + cpus/total_cpus)/2, or with favor_small ((N−nodes)/N + (C−cpus)/C)/2; cpus 0 uses the node term alone; clamped to [0,1]. STRICT.';

CREATE FUNCTION @extschema@.partition_factor(priority_job_factor bigint, max_priority_job_factor bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_partition_factor'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.partition_factor(bigint, bigint) IS
'Slurm partition factor: PriorityJobFactor / the largest PriorityJobFactor of the cluster''s partitions (that largest taken as at least 1). STRICT.';

CREATE FUNCTION @extschema@.qos_factor(qos_priority bigint, max_qos_priority bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_qos_factor'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.qos_factor(bigint, bigint) IS
'Slurm QOS factor: the QOS priority / the largest QOS priority of the cluster (0 when the priority is 0). STRICT.';

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
-- ---------------------------------------------------------------------------
-- sshare: Slurm's `sshare -l` over the accounting model, as of any instant
-- (PROTEUS, CALI; docs/policies.md#fair-share; column meanings in
-- docs/slurm.md#what-sshare-and-sprio-print).
--
-- Every cluster whose fairshare_algorithm is 'fair_tree' or 'classic' gets
-- one row per association: its accounts (user_name NULL) and its user
-- associations, with the decayed usage of association_usage_at(as_of).
-- The account tree itself is the current one: the model keeps no history
-- of accounts and shares.
-- ---------------------------------------------------------------------------

-- The association tree of every cluster as rows for the tree window
-- functions (fair_tree.sql), with each user association's decayed usage as
-- of an instant (association_usage_at's, from _association_usage directly:
-- association_usage_at would join the user associations a second time);
-- accounts carry no usage of their own.  Ids: 'a:' ||
-- account, and 'u:' || length(account) || ':' || account || ':' || user for
-- user associations, so ids never collide and sibling ids sort by account
-- or user name (the lineage order Slurm breaks ties with).  usage is the
-- usage the tree is computed from and raw_usage the usage now: the same,
-- except under decay_mode 'slurm_passes', where usage is what the last
-- pass of slurmctld's decay thread left and raw_usage adds the charges of
-- the jobs that ended since (sshare's RawUsage).
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

-- Every tree column of sshare for one row, from one build of the
-- partition's tree (fair_tree.c): sshare would otherwise call nine tree
-- window functions over the same rows, each reading the partition and
-- building the tree again.  algorithm is 'fair_tree' or 'classic' (the
-- cluster's, one per partition); dampening is read for 'classic' only.
CREATE TYPE @extschema@._sshare_tree_row AS (
    depth integer, tree_order bigint, norm_shares float8, raw_usage float8, norm_usage float8,
    effectv_usage float8, fairshare float8, level_fs float8, fs_rank bigint);
CREATE FUNCTION @extschema@._sshare_tree(id text, parent_id text, shares float8, usage float8, is_user boolean,
                                         algorithm text, dampening float8)
RETURNS @extschema@._sshare_tree_row AS 'MODULE_PATHNAME', 'fs_sshare_tree'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._sshare_tree(text, text, float8, float8, boolean, text, float8) IS
'sshare''s tree columns of a row in one window function call: depth, tree_order and raw/norm usage, with NormShares, EffectvUsage, FairShare (and for fair_tree LevelFS and rank) under the given algorithm.';
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
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
DECLARE
    -- the accounts with jobs running at as_of, then each with its
    -- ancestors (itself included), read by queries of their own: on a
    -- Citus cluster a recursive query cannot read the distributed jobs,
    -- and a SQL function reading jobs cannot be planned inside
    -- my_sshare_at (docs/citus.md).  Only the accounts that run: every
    -- account of 25,000 with its ancestors was 0.29 s at 10^7 jobs.
    run_cluster text[];
    run_account text[];
    anc_cluster text[];
    anc_account text[];
    anc_ancestor text[];
BEGIN
    SELECT COALESCE(pg_catalog.array_agg(x.cluster), '{}'), COALESCE(pg_catalog.array_agg(x.account), '{}')
      INTO run_cluster, run_account
      FROM (SELECT DISTINCT j.cluster, j.account
              FROM @extschema@.jobs j
             WHERE j.start_time OPERATOR(pg_catalog.<) _tres_run_mins_at.as_of
               AND COALESCE(j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) _tres_run_mins_at.as_of
               AND j.time_limit IS NOT NULL) x;
    WITH RECURSIVE anc AS (
        SELECT a.cluster, a.account, a.account AS ancestor, a.parent_account
          FROM @extschema@.accounts a
          JOIN ROWS FROM (pg_catalog.unnest(run_cluster), pg_catalog.unnest(run_account)) AS r (cluster, account)
            ON a.cluster OPERATOR(pg_catalog.=) r.cluster AND a.account OPERATOR(pg_catalog.=) r.account
        UNION ALL
        SELECT x.cluster, x.account, p.account, p.parent_account
          FROM anc x
          JOIN @extschema@.accounts p
            ON p.cluster OPERATOR(pg_catalog.=) x.cluster AND p.account OPERATOR(pg_catalog.=) x.parent_account
    )
    SELECT COALESCE(pg_catalog.array_agg(x.cluster), '{}'), COALESCE(pg_catalog.array_agg(x.account), '{}'),
           COALESCE(pg_catalog.array_agg(x.ancestor), '{}')
      INTO anc_cluster, anc_account, anc_ancestor
      FROM anc x;
    -- One row per association with the seconds left of each TRES summed
    -- in columns, and the text built at the end: a row per TRES (nine per
    -- association), grouped and joined by text keys, was 2 to 3 s of
    -- sshare_at's 4.4 s at 10^7 jobs (11,000 associations with running
    -- jobs).  energy, fs/disk, vmem and pages are always 0 (no job
    -- requests them here); gres/gpu only where a partition has GPUs.
    RETURN QUERY
    WITH names AS (
        SELECT c.cluster, c.decay_mode, c.priority_calc_period, c.priority_last_decay,
               EXISTS (SELECT FROM @extschema@.partitions p
                        WHERE p.cluster OPERATOR(pg_catalog.=) c.cluster
                          AND p.gpus_per_node OPERATOR(pg_catalog.>) 0) AS has_gpu
          FROM @extschema@.clusters c
         WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
    ), running AS (
        -- the jobs running at as_of and the seconds left of their time limit
        SELECT j.cluster, j.account, j.user_name, j.tres, j.cpus, j.mem_mb, j.nodes, j.gpus,
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
    ), user_secs AS MATERIALIZED (
        SELECT r.cluster, r.account, r.user_name,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*) r.cpus::bigint) AS cpu,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'mem')::bigint, r.mem_mb)) AS mem,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'node')::bigint, r.nodes::bigint)) AS node,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'billing')::bigint, 0::bigint)) AS billing,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'gres/gpu')::bigint, r.gpus::bigint)) AS gpu
          FROM running r
         GROUP BY r.cluster, r.account, r.user_name
    ), anc AS (
        SELECT x.cluster, x.account, x.ancestor
          FROM ROWS FROM (pg_catalog.unnest(anc_cluster), pg_catalog.unnest(anc_account),
                          pg_catalog.unnest(anc_ancestor)) AS x (cluster, account, ancestor)
    ), secs AS (
        SELECT u.cluster, u.account, u.user_name, u.cpu, u.mem, u.node, u.billing, u.gpu FROM user_secs u
        UNION ALL
        SELECT u.cluster, x.ancestor, NULL::text, pg_catalog.sum(u.cpu), pg_catalog.sum(u.mem),
               pg_catalog.sum(u.node), pg_catalog.sum(u.billing), pg_catalog.sum(u.gpu)
          FROM user_secs u
          JOIN anc x ON x.cluster OPERATOR(pg_catalog.=) u.cluster AND x.account OPERATOR(pg_catalog.=) u.account
         GROUP BY u.cluster, x.ancestor
        UNION ALL
        -- for every cluster the line of the others (account NULL): every TRES 0
        SELECT n.cluster, NULL::text, NULL::text, 0, 0, 0, 0, 0 FROM names n
    )
    -- whole minutes, truncated: sshare divides integers
    SELECT v.cluster, v.account, v.user_name,
           'cpu=' OPERATOR(pg_catalog.||) pg_catalog.div(v.cpu, 60)::text
           OPERATOR(pg_catalog.||) ',mem=' OPERATOR(pg_catalog.||) pg_catalog.div(v.mem, 60)::text
           OPERATOR(pg_catalog.||) ',energy=0,node=' OPERATOR(pg_catalog.||) pg_catalog.div(v.node, 60)::text
           OPERATOR(pg_catalog.||) ',billing=' OPERATOR(pg_catalog.||) pg_catalog.div(v.billing, 60)::text
           OPERATOR(pg_catalog.||) ',fs/disk=0,vmem=0,pages=0'
           OPERATOR(pg_catalog.||) CASE WHEN n.has_gpu
                                        THEN ',gres/gpu=' OPERATOR(pg_catalog.||) pg_catalog.div(v.gpu, 60)::text
                                        ELSE '' END
      FROM secs v
      JOIN names n ON n.cluster OPERATOR(pg_catalog.=) v.cluster
     WHERE @extschema@._check_as_of(_tres_run_mins_at.as_of);
END
$$;
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
    WITH lim AS (
        -- GrpTRESMins: the association's limit as it is now (limits keep no
        -- history); an account's line has user_name '' here
        SELECT a.cluster, a.account, ''::text AS user_name, a.grp_tres_mins
          FROM @extschema@.accounts a
         WHERE a.grp_tres_mins IS NOT NULL
        UNION ALL
        SELECT u.cluster, u.account, u.user_name, u.grp_tres_mins
          FROM @extschema@.account_users u
         WHERE u.grp_tres_mins IS NOT NULL
    ), run AS MATERIALIZED (
        SELECT m.cluster, m.account, COALESCE(m.user_name, '') AS user_name, m.tres_run_mins
          FROM @extschema@._tres_run_mins_at(sshare_at.as_of) m
    ), r AS (
        SELECT t.cluster, t.account, t.user_name, t.parent, t.algorithm, t.shares,
               g.grp_tres_mins, m.tres_run_mins,
               @extschema@._sshare_tree(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.algorithm,
                   -- a subquery, not a join: a join with clusters would leave
                   -- the planner guessing 1/200 of the rows (docs/performance.md)
                   CASE WHEN t.algorithm OPERATOR(pg_catalog.=) 'classic'
                        THEN (SELECT c.fairshare_dampening FROM @extschema@.clusters c
                               WHERE c.cluster OPERATOR(pg_catalog.=) t.cluster) END,
                   t.raw_usage)
                 OVER (PARTITION BY t.cluster) AS f
          FROM @extschema@.association_tree_at(sshare_at.as_of) t
          -- The limits and the TRESRunMins lines are joined here, below the
          -- window, on the three names: the rows are not sorted yet, so the
          -- planner sorts or hashes them on all three.  Joined above the
          -- window, whose rows come out sorted by cluster, it merged on the
          -- cluster alone and filtered the other names pair by pair (minutes
          -- at 10^7 jobs); and a lookup of the limits per line was a fifth
          -- of sshare_at's time there (docs/performance.md).
          LEFT JOIN lim g
            ON g.cluster OPERATOR(pg_catalog.=) t.cluster AND g.account OPERATOR(pg_catalog.=) t.account
           AND g.user_name OPERATOR(pg_catalog.=) COALESCE(t.user_name, '')
          LEFT JOIN run m
            ON m.cluster OPERATOR(pg_catalog.=) t.cluster AND m.account OPERATOR(pg_catalog.=) t.account
           AND m.user_name OPERATOR(pg_catalog.=) COALESCE(t.user_name, '')
         WHERE t.algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
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
           -- in sshare's order
           @extschema@._grp_tres_mins_text(r.grp_tres_mins),
           -- an association without running jobs: its cluster's line of
           -- zeros (account NULL)
           COALESCE(r.tres_run_mins, z.tres_run_mins)
      FROM r
      LEFT JOIN run z ON z.cluster OPERATOR(pg_catalog.=) r.cluster AND z.account IS NULL
     WHERE @extschema@._check_as_of(sshare_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.sshare_at(timestamptz) IS
'Slurm sshare -l as of an instant: every association of every fair_tree/classic cluster with RawShares, NormShares, RawUsage (decayed billing-seconds), NormUsage, EffectvUsage, FairShare, LevelFS, GrpTRESMins (the association''s limit, NULL for none) and TRESRunMins; ORDER BY cluster, tree_order for sshare''s listing.';

CREATE VIEW @extschema@.sshare AS
SELECT * FROM @extschema@.sshare_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.sshare IS 'sshare_at(now()): Slurm sshare -l for every fair_tree/classic cluster.';

-- Why does one user have a lower FairShare than another?  fair_tree.html's
-- recipe: find the first common ancestor of the two associations in the
-- tree Fair Tree walks (Fairshare=parent accounts are skipped), and compare
-- the Level FS of the two children of that ancestor on the way down: the
-- higher one, and everything below it, ranks first.  One row per pair of
-- associations (a user may be in several accounts).
CREATE FUNCTION @extschema@.sshare_explain(cluster text, user_name text, other_user text,
                                           as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (account text, fairshare float8, other_account text, other_fairshare float8,
               common_ancestor text, branch text, branch_level_fs float8,
               other_branch text, other_branch_level_fs float8, explanation text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    algo text;
BEGIN
    SELECT c.fairshare_algorithm INTO algo FROM @extschema@.clusters c WHERE c.cluster = sshare_explain.cluster;
    IF algo IS NULL THEN
        RAISE EXCEPTION 'cluster "%" does not exist', sshare_explain.cluster
            USING ERRCODE = '22023', HINT = 'Pass a cluster of fairshare.clusters.';
    ELSIF algo <> 'fair_tree' THEN
        RAISE EXCEPTION 'cluster "%" uses the % fair share, not Fair Tree', sshare_explain.cluster, algo
            USING ERRCODE = '22023',
                  HINT = 'Under classic fair share each factor is 2^(-effectv_usage/norm_shares): compare those columns of sshare_at().';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.account_users au
                    WHERE au.cluster = sshare_explain.cluster AND au.user_name = sshare_explain.user_name)
    THEN
        RAISE EXCEPTION 'user "%" has no association on cluster "%"', sshare_explain.user_name, sshare_explain.cluster
            USING ERRCODE = '22023', HINT = 'Users and their accounts are in fairshare.account_users.';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.account_users au
                    WHERE au.cluster = sshare_explain.cluster AND au.user_name = sshare_explain.other_user)
    THEN
        RAISE EXCEPTION 'user "%" has no association on cluster "%"', sshare_explain.other_user, sshare_explain.cluster
            USING ERRCODE = '22023', HINT = 'Users and their accounts are in fairshare.account_users.';
    END IF;

    RETURN QUERY
    WITH RECURSIVE s AS MATERIALIZED (
        SELECT * FROM @extschema@.sshare_at(sshare_explain.as_of) x WHERE x.cluster = sshare_explain.cluster
    ), acc AS (
        SELECT x.account, x.parent, x.depth, x.raw_shares, x.level_fs FROM s x WHERE x.user_name IS NULL
    ), me AS (
        SELECT 1 AS side, x.account, x.user_name, x.fairshare, x.raw_shares, x.level_fs
          FROM s x WHERE x.user_name = sshare_explain.user_name
        UNION ALL
        SELECT 2, x.account, x.user_name, x.fairshare, x.raw_shares, x.level_fs
          FROM s x WHERE x.user_name = sshare_explain.other_user
    ), walk AS (
        SELECT m.side, m.account AS assoc, a.account, a.parent, a.depth, a.raw_shares, a.level_fs
          FROM me m JOIN acc a ON a.account = m.account
        UNION ALL
        SELECT w.side, w.assoc, a.account, a.parent, a.depth, a.raw_shares, a.level_fs
          FROM walk w JOIN acc a ON a.account = w.parent
    ), paths AS (
        -- the path Fair Tree walks: root, the non-parent accounts, the user
        SELECT m.side, m.account, m.fairshare,
               array_agg('account ' || w.account ORDER BY w.depth)
                 FILTER (WHERE w.raw_shares IS NOT NULL OR w.depth = 0)
                 || ('user ' || m.user_name) AS nodes,
               array_agg(w.level_fs ORDER BY w.depth)
                 FILTER (WHERE w.raw_shares IS NOT NULL OR w.depth = 0)
                 -- a Fairshare=parent user ranks as if its Level FS were infinite
                 || CASE WHEN m.raw_shares IS NULL THEN 'Infinity'::float8 ELSE m.level_fs END AS lfs
          FROM me m JOIN walk w ON w.side = m.side AND w.assoc = m.account
         GROUP BY m.side, m.account, m.user_name, m.fairshare, m.raw_shares, m.level_fs
    ), pairs AS (
        SELECT a.account, a.fairshare, b.account AS other_account, b.fairshare AS other_fairshare,
               a.nodes, a.lfs, b.nodes AS onodes, b.lfs AS olfs,
               (SELECT min(i) FROM generate_series(1, least(cardinality(a.nodes), cardinality(b.nodes))) i
                 WHERE a.nodes[i] IS DISTINCT FROM b.nodes[i]) AS k
          FROM paths a, paths b
         WHERE a.side = 1 AND b.side = 2
    )
    SELECT p.account, p.fairshare, p.other_account, p.other_fairshare,
           substr(p.nodes[p.k - 1], strpos(p.nodes[p.k - 1], ' ') + 1),
           p.nodes[p.k], p.lfs[p.k], p.onodes[p.k], p.olfs[p.k],
           CASE
             WHEN p.k IS NULL THEN 'the same association'
             WHEN p.lfs[p.k] <> p.olfs[p.k] THEN
               format('under %s, %s has Level FS %s and %s has %s: %s',
                      p.nodes[p.k - 1], p.nodes[p.k], p.lfs[p.k], p.onodes[p.k], p.olfs[p.k],
                      CASE WHEN p.lfs[p.k] > p.olfs[p.k] THEN p.nodes[p.k] ELSE p.onodes[p.k] END
                      || CASE WHEN (CASE WHEN p.lfs[p.k] > p.olfs[p.k] THEN p.nodes[p.k] ELSE p.onodes[p.k] END)
                                   LIKE 'user %' THEN ' ranks first'
                              ELSE ' and all the users below it rank first' END)
             WHEN p.nodes[p.k] LIKE 'user %' AND p.onodes[p.k] LIKE 'user %' THEN
               format('under %s, %s and %s tie at Level FS %s: they share a rank',
                      p.nodes[p.k - 1], p.nodes[p.k], p.onodes[p.k], p.lfs[p.k])
             ELSE
               format('under %s, %s and %s tie at Level FS %s: Slurm visits a user before an account, '
                      'and tied accounts in lineage order (alphabetical); the first user of an account '
                      'tied with the sibling before it keeps the rank of the last user ranked',
                      p.nodes[p.k - 1], p.nodes[p.k], p.onodes[p.k], p.lfs[p.k])
           END
      FROM pairs p
     ORDER BY p.account, p.other_account;
END
$$;
COMMENT ON FUNCTION @extschema@.sshare_explain(text, text, text, timestamptz) IS
'Why user_name''s FairShare differs from other_user''s (Fair Tree): the first common ancestor and the Level FS of the two branches below it (fair_tree.html).';
-- ---------------------------------------------------------------------------
-- sprio: every pending job's multifactor priority over the model, as
-- `sprio -l` shows it, at any instant (docs/policies.md#job-priority;
-- docs/slurm.md#what-sshare-and-sprio-print), and PROTEUS's procedure (its
-- page, seed 001 in docs/policies.md#the-five-pages): order the pending jobs by
-- priority and start them while resources remain.
--
-- Weights, PriorityMaxAge, PriorityFavorSmall and the cluster size come from
-- fairshare.clusters, PriorityJobFactor from fairshare.partitions, QOS
-- priorities from fairshare.qos, and the fair-share factor from
-- fairshare.sshare_at(as_of).  The configuration tables hold the current
-- configuration only: a past as_of sees the jobs and usage known then under
-- today's weights.
-- ---------------------------------------------------------------------------

-- Seconds as Slurm prints a duration: D-HH:MM:SS (whole seconds).  Strict
-- operators only (format() is not strict), so that the planner inlines it
-- into sprio_at instead of running a SQL function per pending job
-- (docs/performance.md).
CREATE FUNCTION @extschema@._slurm_duration(seconds float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.floor(seconds OPERATOR(pg_catalog./) 86400)::bigint::text
    OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 3600)::bigint OPERATOR(pg_catalog.%) 24)::text, 2, '0')
    OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 60)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0')
    OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0');

-- An interval in seconds, a month counting 30 days, as age_factor reads it.
CREATE FUNCTION @extschema@._interval_seconds(iv interval)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (((((pg_catalog.date_part('year', iv) OPERATOR(pg_catalog.*) 12)
             OPERATOR(pg_catalog.+) pg_catalog.date_part('month', iv)) OPERATOR(pg_catalog.*) 30)
           OPERATOR(pg_catalog.+) pg_catalog.date_part('day', iv)) OPERATOR(pg_catalog.*) 86400)
       OPERATOR(pg_catalog.+) (pg_catalog.date_part('hour', iv) OPERATOR(pg_catalog.*) 3600)
       OPERATOR(pg_catalog.+) (pg_catalog.date_part('minute', iv) OPERATOR(pg_catalog.*) 60)
       OPERATOR(pg_catalog.+) pg_catalog.date_part('second', iv);

-- A number for the explanation: fixed decimals, no trailing zeros.
CREATE FUNCTION @extschema@._num(x float8, decimals integer)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.trim_scale(pg_catalog.round(x::numeric, decimals))::text;

-- sprio_at's rows, without the explanation: with what it prints besides
-- them (the x_ columns), from which sprio_at builds it when it is read.
CREATE FUNCTION @extschema@._sprio_rows(as_of timestamptz)
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
    -- what sprio_at's explanation prints besides the columns above
    x_pending_s        float8,
    x_max_age_text     text,
    x_w_age            float8,
    x_w_fs             float8,
    x_w_js             float8,
    x_w_part           float8,
    x_w_qos            float8,
    x_no_share         boolean,
    x_favor_small      boolean,
    x_nodes            integer,
    x_cpus             integer,
    x_total_nodes      bigint,
    x_total_cpus       bigint,
    x_pjf              integer,
    x_max_pjf          integer,
    x_qos_priority     integer,
    x_max_qos          integer)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
-- The planner has no statistics for sshare_at's rows: it prices a hash join
-- on them as if each key were shared by a tenth of the rows, and sorts the
-- pending jobs and the associations for a merge join instead (0.2 s of
-- 1.5 s at 10^5 pending jobs; docs/performance.md).
SET enable_mergejoin = off
-- PL/pgSQL, not SQL: a SQL function that cannot be inlined (STRICT, SET)
-- plans its query with as_of unknown, which Citus cannot distribute; here
-- each call plans it with the value (docs/citus.md).
SET plan_cache_mode = force_custom_plan
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    -- the clusters whose fair-share factors are cached for as_of, and the
    -- checkpoints they are cached with (sprio_cache.sql)
    cp_clusters text[];
    cp_times timestamptz[];
    -- every fair_tree and classic cluster has them: read them instead of
    -- computing sshare_at's tree
    cached boolean;
BEGIN
    -- per cluster, the checkpoint _association_usage starts from at as_of
    -- (the newest valid one at or before it, none when the usage was reset
    -- since), when its factors hold at as_of
    SELECT COALESCE(array_agg(k.cluster), '{}'), COALESCE(array_agg(k.as_of), '{}')
      INTO cp_clusters, cp_times
      FROM (SELECT DISTINCT ON (x.cluster) x.cluster, x.as_of
              FROM @extschema@.usage_checkpoints x
             WHERE x.invalidated_at IS NULL AND x.as_of <= _sprio_rows.as_of
             ORDER BY x.cluster, x.as_of DESC) k
      JOIN @extschema@.clusters c ON c.cluster = k.cluster
      JOIN @extschema@.usage_checkpoint_factors f
        ON f.cluster = k.cluster AND f.as_of = k.as_of AND _sprio_rows.as_of < f.valid_before
     WHERE upper(c.usage_reset_period) = 'NONE'
        OR NOT COALESCE(@extschema@._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                                       c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                                       _sprio_rows.as_of) > k.as_of, false);
    SELECT NOT EXISTS (SELECT FROM @extschema@.clusters c
                        WHERE c.fairshare_algorithm IN ('fair_tree', 'classic') AND c.cluster <> ALL (cp_clusters))
      INTO cached;
    RETURN QUERY
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
         WHERE (pg_catalog.isfinite(_sprio_rows.as_of)
                OR @extschema@._raise('22008', pg_catalog.format('sprio_at: as_of must be a finite timestamp, not %s',
                                                                 _sprio_rows.as_of),
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
         WHERE j.submit_time OPERATOR(pg_catalog.<=) _sprio_rows.as_of
           AND j.eligible_time OPERATOR(pg_catalog.<=) _sprio_rows.as_of
           AND COALESCE(j.start_time, j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) _sprio_rows.as_of
           AND (j.state OPERATOR(pg_catalog.=) 'PENDING' OR j.start_time IS NOT NULL OR j.end_time IS NOT NULL)
    ), shares AS (
        -- sshare_at's FairShare: cached with the usage checkpoints, or
        -- computed.  cached is a constant of the custom plan: the branch
        -- not taken is left out of it, unplanned.
        SELECT r.cluster, r.account, r.user_name, r.fairshare
          FROM ROWS FROM (pg_catalog.unnest(cp_clusters), pg_catalog.unnest(cp_times)) AS k (cluster, as_of)
          JOIN @extschema@.usage_checkpoint_factor_rows r
            ON r.cluster OPERATOR(pg_catalog.=) k.cluster AND r.as_of OPERATOR(pg_catalog.=) k.as_of
         WHERE cached
        UNION ALL
        SELECT s.cluster, s.account, s.user_name, s.fairshare
          FROM @extschema@.sshare_at(_sprio_rows.as_of) s
         WHERE NOT cached AND s.user_name IS NOT NULL
    ), factors AS (
        SELECT j.cluster, j.job_id, j.partition, j.user_name, j.account, j.qos, j.nice,
               j.submit_time, j.eligible_time, j.nodes, j.cpus,
               c.weight_age::float8 AS w_age, c.weight_fairshare::float8 AS w_fs,
               c.weight_job_size::float8 AS w_js, c.weight_partition::float8 AS w_part,
               c.weight_qos::float8 AS w_qos,
               c.priority_max_age, c.favor_small, z.total_nodes, z.total_cpus,
               p.priority_job_factor AS pjf, z.max_pjf, z.max_age_text, q.priority AS qos_priority, z.max_qos,
               pg_catalog.floor(pg_catalog.date_part('epoch', _sprio_rows.as_of))
                 OPERATOR(pg_catalog.-) pg_catalog.floor(pg_catalog.date_part('epoch', j.eligible_time)) AS pending_s,
               sh.fairshare AS sshare_fairshare,
               CASE WHEN c.weight_age OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.age_factor(j.eligible_time, _sprio_rows.as_of, c.priority_max_age) END AS f_age,
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
           s.pending_s, s.max_age_text, s.w_age, s.w_fs, s.w_js, s.w_part, s.w_qos,
           s.sshare_fairshare IS NULL, s.favor_small, s.nodes, s.cpus, s.total_nodes, s.total_cpus,
           s.pjf, s.max_pjf, s.qos_priority, s.max_qos
      FROM summed s;
END
$$;
COMMENT ON FUNCTION @extschema@._sprio_rows(timestamptz) IS
'sprio_at''s rows without the explanation, and what the explanation prints besides them (x_*). STRICT: NULL as_of gives no rows; an infinite one raises 22008.';

-- PROTEUS's procedure (docs/policies.md#job-priority): order the pending
-- jobs by priority, start the first, and repeat while resources and pending
-- jobs remain.
--
-- free: a jsonb array with one object per partition that has room, e.g.
--   '[{"cluster": "proteus", "partition": "metis", "cpus": 48, "mem_mb": 196608, "gpus": 0}]'
-- cluster and partition are required; cpus, mem_mb and gpus are counts >= 0,
-- and a resource left out (or null) is not limited.  Resources are pooled
-- per partition: node boundaries are not modelled.
--
-- Every job pending at as_of on a cluster named in free is listed, in queue
-- order (priority descending, then earlier submission, then job id), with
-- starts = true for those that would start.  Partitions not in free start
-- nothing.  With backfill (the default) a job that does not fit is skipped
-- and lower-priority jobs that fit still start: Slurm's backfill scheduler
-- starts them too as long as they do not delay the higher-priority job,
-- which needs the running jobs' end times that a free-resource snapshot does
-- not have, so this is the upper bound.  With backfill => false the first
-- job that does not fit blocks its partition, as Slurm's main scheduler does.
CREATE FUNCTION @extschema@.start_next(free jsonb, as_of timestamptz DEFAULT pg_catalog.now(),
                                       backfill boolean DEFAULT true)
RETURNS TABLE (
    queue_position bigint,
    cluster        text,
    partition      text,
    job_id         text,
    user_name      text,
    account        text,
    priority       bigint,
    submit_time    timestamptz,
    cpus           integer,
    mem_mb         bigint,
    gpus           integer,
    starts         boolean,
    start_order    integer,
    cpus_left      numeric,
    mem_mb_left    numeric,
    gpus_left      numeric,
    reason         text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item        jsonb;
    k           text;
    n           integer := 0;
    i           integer;
    clusters    text[] := '{}';
    keys        text[] := '{}';     -- cluster || E'\x1f' || partition
    f_cpus      numeric[] := '{}';  -- NULL = not limited
    f_mem       numeric[] := '{}';
    f_gpus      numeric[] := '{}';
    blocked_by  text[] := '{}';     -- strict mode: the job that blocks the partition
    v           numeric;
    started     integer := 0;
    short       text;
    r           record;
BEGIN
    IF free IS NULL THEN
        RAISE EXCEPTION 'start_next: free must not be NULL'
            USING ERRCODE = '22004',
                  HINT = 'Pass a jsonb array such as [{"cluster": "c", "partition": "p", "cpus": 8}].';
    END IF;
    IF as_of IS NULL OR backfill IS NULL THEN
        RAISE EXCEPTION 'start_next: as_of and backfill must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass an instant and true or false.';
    END IF;
    IF NOT isfinite(as_of) THEN
        RAISE EXCEPTION 'start_next: as_of must be a finite timestamp, not %', as_of
            USING ERRCODE = '22008', HINT = 'Pass a real instant for as_of.';
    END IF;
    IF jsonb_typeof(free) <> 'array' THEN
        RAISE EXCEPTION 'start_next: free must be a jsonb array of objects, not %', free
            USING ERRCODE = '22023',
                  HINT = 'Pass [{"cluster": "c", "partition": "p", "cpus": 8, "mem_mb": 16384, "gpus": 0}, ...].';
    END IF;

    FOR item IN SELECT e FROM jsonb_array_elements(free) e LOOP
        IF jsonb_typeof(item) <> 'object' THEN
            RAISE EXCEPTION 'start_next: each element of free must be an object, not %', item
                USING ERRCODE = '22023', HINT = 'Pass {"cluster": "c", "partition": "p", "cpus": 8}.';
        END IF;
        FOR k IN SELECT jsonb_object_keys(item) LOOP
            IF k NOT IN ('cluster', 'partition', 'cpus', 'mem_mb', 'gpus') THEN
                RAISE EXCEPTION 'start_next: unknown key "%" in %', k, item
                    USING ERRCODE = '22023', HINT = 'The keys are cluster, partition, cpus, mem_mb and gpus.';
            END IF;
        END LOOP;
        IF jsonb_typeof(item -> 'cluster') IS DISTINCT FROM 'string'
           OR jsonb_typeof(item -> 'partition') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION 'start_next: cluster and partition must be strings in %', item
                USING ERRCODE = '22023', HINT = 'Name the partition and its cluster.';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM @extschema@.partitions p
                        WHERE p.cluster = item ->> 'cluster' AND p.partition = item ->> 'partition') THEN
            RAISE EXCEPTION 'start_next: no partition "%" on cluster "%"', item ->> 'partition', item ->> 'cluster'
                USING ERRCODE = '22023', HINT = 'Name a partition of fairshare.partitions.';
        END IF;
        k := (item ->> 'cluster') || E'\x1f' || (item ->> 'partition');
        IF k = ANY (keys) THEN
            RAISE EXCEPTION 'start_next: partition "%" of cluster "%" appears twice in free',
                            item ->> 'partition', item ->> 'cluster'
                USING ERRCODE = '22023', HINT = 'Give each partition once.';
        END IF;
        n := n + 1;
        keys[n] := k;
        blocked_by[n] := NULL;
        IF NOT (item ->> 'cluster') = ANY (clusters) THEN
            clusters := clusters || (item ->> 'cluster');
        END IF;
        FOREACH k IN ARRAY ARRAY['cpus', 'mem_mb', 'gpus'] LOOP
            IF item -> k IS NULL OR jsonb_typeof(item -> k) = 'null' THEN
                v := NULL;
            ELSIF jsonb_typeof(item -> k) <> 'number' OR (item ->> k)::numeric < 0 THEN
                RAISE EXCEPTION 'start_next: % must be a number >= 0, not % (partition "%")',
                                k, item -> k, item ->> 'partition'
                    USING ERRCODE = '22023', HINT = 'Free resources are counts >= 0; leave a resource out for no limit.';
            ELSE
                v := (item ->> k)::numeric;
            END IF;
            CASE k WHEN 'cpus' THEN f_cpus[n] := v;
                   WHEN 'mem_mb' THEN f_mem[n] := v;
                   ELSE f_gpus[n] := v;
            END CASE;
        END LOOP;
    END LOOP;

    FOR r IN
        SELECT s.cluster AS c, s.partition AS p, s.job_id AS j, s.user_name AS u, s.account AS a,
               s.priority AS prio, s.submit_time AS st, jb.cpus AS ncpu, jb.mem_mb AS nmem, jb.gpus AS ngpu,
               row_number() OVER (ORDER BY s.priority DESC, s.submit_time,
                                  substring(s.job_id FROM '^[0-9]+')::numeric NULLS LAST, s.job_id) AS pos
          FROM @extschema@.sprio_at(as_of) s
          JOIN @extschema@.jobs jb ON jb.cluster = s.cluster AND jb.job_id = s.job_id
                                  AND jb.submit_time = s.submit_time
         WHERE s.cluster = ANY (clusters)
         ORDER BY pos
    LOOP
        queue_position := r.pos; cluster := r.c; partition := r.p; job_id := r.j;
        user_name := r.u; account := r.a; priority := r.prio; submit_time := r.st;
        cpus := r.ncpu; mem_mb := r.nmem; gpus := r.ngpu;
        starts := false; start_order := NULL; reason := NULL;
        i := array_position(keys, r.c || E'\x1f' || r.p);
        IF i IS NULL THEN
            cpus_left := NULL; mem_mb_left := NULL; gpus_left := NULL;
            reason := 'no free resources given for this partition';
        ELSE
            short := concat_ws(', ',
                CASE WHEN f_cpus[i] < r.ncpu THEN format('needs %s cpus, %s free', r.ncpu, f_cpus[i]) END,
                CASE WHEN f_mem[i] < r.nmem THEN format('needs %s MB, %s free', r.nmem, f_mem[i]) END,
                CASE WHEN f_gpus[i] < r.ngpu THEN format('needs %s gpus, %s free', r.ngpu, f_gpus[i]) END);
            IF blocked_by[i] IS NOT NULL THEN
                reason := format('partition blocked by job %s (higher priority, does not fit)', blocked_by[i]);
            ELSIF short <> '' THEN
                reason := short;
                IF NOT backfill THEN
                    blocked_by[i] := r.j;
                END IF;
            ELSE
                f_cpus[i] := f_cpus[i] - r.ncpu;
                f_mem[i] := f_mem[i] - r.nmem;
                f_gpus[i] := f_gpus[i] - r.ngpu;
                started := started + 1;
                starts := true; start_order := started;
                reason := 'starts';
            END IF;
            cpus_left := f_cpus[i]; mem_mb_left := f_mem[i]; gpus_left := f_gpus[i];
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.start_next(jsonb, timestamptz, boolean) IS
'PROTEUS (seed 001): the jobs pending at as_of in queue order (priority, then submission, then job id) and which would start in the free CPUs/memory/GPUs given per partition; backfill skips jobs that do not fit, backfill => false stops each partition at its first job that does not fit.';
-- ---------------------------------------------------------------------------
-- Fair-share factors kept with the usage checkpoints (issue 21;
-- docs/priority.md#cached-fair-share-factors).
--
-- slurmctld computes every association's fair-share factor at each pass of
-- its priority thread and answers sprio from those.  sprio_at needs the same
-- factor for every pending job's association, which is sshare_at's FairShare
-- column: the whole tree.  checkpoint_usage now also stores that column of
-- every user association as of the checkpoint, and sprio_at reads it instead
-- of computing the tree again, whenever it is what sshare_at would compute:
--
--   * the checkpoint is the one association_usage_at starts from at as_of
--     (the newest valid one at or before it, with no usage reset in
--     between), and it is still valid;
--   * the tree usage at as_of is the checkpoint's: as_of is the
--     checkpoint's own instant or, with decay_mode 'slurm_passes', before
--     slurmctld's next pass (the tree columns are those of the last pass
--     until the next one, exactly as slurmctld's cached factors);
--   * the association tree (accounts, account_users, the cluster's
--     algorithm and dampening) has not changed since: any change to it
--     deletes the cluster's cached factors (the triggers below).
--
-- Otherwise sprio_at computes the factors from sshare_at as before.
-- ---------------------------------------------------------------------------

CREATE TABLE @extschema@.usage_checkpoint_factors (
    cluster      text NOT NULL,
    as_of        timestamptz NOT NULL,
    -- the factors hold for every instant in [as_of, valid_before)
    valid_before timestamptz NOT NULL,
    computed_at  timestamptz NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (cluster, as_of),
    CHECK (valid_before OPERATOR(pg_catalog.>) as_of),
    FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoints ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.usage_checkpoint_factors IS
'The usage checkpoints whose fair-share factors are cached (usage_checkpoint_factor_rows), and the instants they hold for: [as_of, valid_before). Deleted with the checkpoint, and when the association tree of the cluster changes.';

CREATE TABLE @extschema@.usage_checkpoint_factor_rows (
    cluster   text NOT NULL,
    as_of     timestamptz NOT NULL,
    account   text NOT NULL,
    user_name text NOT NULL,
    -- sshare_at(as_of)'s FairShare of the association
    fairshare float8 NOT NULL,
    PRIMARY KEY (cluster, as_of, account, user_name),
    FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoint_factors ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.usage_checkpoint_factor_rows IS
'sshare_at''s FairShare of every user association as of each usage checkpoint of usage_checkpoint_factors: what sprio_at reads instead of computing the tree.';

-- Store the factors of the checkpoints as of an instant (one cluster, or
-- every cluster for NULL): called by checkpoint_usage once its checkpoints
-- are valid, so that sshare_at(as_of) starts from them.
CREATE FUNCTION @extschema@._checkpoint_factors(cluster text, as_of timestamptz)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM @extschema@.usage_checkpoint_factors f
     WHERE (_checkpoint_factors.cluster IS NULL OR f.cluster = _checkpoint_factors.cluster)
       AND f.as_of = _checkpoint_factors.as_of;
    INSERT INTO @extschema@.usage_checkpoint_factors (cluster, as_of, valid_before)
    SELECT k.cluster, k.as_of,
           CASE WHEN c.decay_mode = 'slurm_passes'
                THEN @extschema@.slurm_last_pass(k.as_of, c.priority_calc_period, c.priority_last_decay)
                     + c.priority_calc_period
                -- the instant itself (the resolution of timestamptz)
                ELSE k.as_of + interval '1 microsecond' END
      FROM @extschema@.usage_checkpoints k
      JOIN @extschema@.clusters c ON c.cluster = k.cluster
     WHERE (_checkpoint_factors.cluster IS NULL OR k.cluster = _checkpoint_factors.cluster)
       AND k.as_of = _checkpoint_factors.as_of AND k.invalidated_at IS NULL
       AND c.fairshare_algorithm IN ('fair_tree', 'classic');
    -- sshare_at's FairShare, from the same tree function over the same
    -- rows, but without the rest of sshare_at: its TRESRunMins read every
    -- running job, which at 10^7 runs was 1.6 s of this statement's 4 s and
    -- planned as a nested loop (docs/performance.md).  The window is
    -- partitioned by cluster, so keeping one cluster's rows changes nothing
    -- in its answers.
    INSERT INTO @extschema@.usage_checkpoint_factor_rows (cluster, as_of, account, user_name, fairshare)
    SELECT s.cluster, _checkpoint_factors.as_of, s.account, s.user_name, (s.f).fairshare
      FROM (SELECT t.cluster, t.account, t.user_name,
                   @extschema@._sshare_tree(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.algorithm,
                       CASE WHEN t.algorithm = 'classic'
                            THEN (SELECT c.fairshare_dampening FROM @extschema@.clusters c
                                   WHERE c.cluster = t.cluster) END,
                       t.raw_usage)
                     OVER (PARTITION BY t.cluster) AS f
              FROM @extschema@.association_tree_at(_checkpoint_factors.as_of) t
             WHERE t.algorithm = ANY (ARRAY['fair_tree', 'classic'])
               AND (_checkpoint_factors.cluster IS NULL OR t.cluster = _checkpoint_factors.cluster)) s
     WHERE s.user_name IS NOT NULL
       AND EXISTS (SELECT FROM @extschema@.usage_checkpoint_factors f
                    WHERE f.cluster = s.cluster AND f.as_of = _checkpoint_factors.as_of);
END
$$;
COMMENT ON FUNCTION @extschema@._checkpoint_factors(text, timestamptz) IS
'Cache sshare_at(as_of)''s FairShare of every user association of the valid usage checkpoints as of as_of (of one cluster, or all for NULL), for sprio_at; checkpoint_usage calls it.';

-- A change to the association tree deletes the cached factors of the
-- clusters concerned (TRUNCATE: all of them).  Per statement, over its
-- rows; a role that writes the tree needs DELETE on
-- usage_checkpoint_factors (fairshare_admin has it).
CREATE FUNCTION @extschema@._tree_drop_checkpoint_factors() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM @extschema@.usage_checkpoint_factors;
    ELSIF TG_OP = 'INSERT' THEN
        DELETE FROM @extschema@.usage_checkpoint_factors f WHERE f.cluster IN (SELECT n.cluster FROM new_rows n);
    ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM @extschema@.usage_checkpoint_factors f WHERE f.cluster IN (SELECT o.cluster FROM old_rows o);
    ELSE
        DELETE FROM @extschema@.usage_checkpoint_factors f
         WHERE f.cluster IN (SELECT o.cluster FROM old_rows o UNION SELECT n.cluster FROM new_rows n);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER drop_checkpoint_factors_insert AFTER INSERT ON @extschema@.accounts
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_update AFTER UPDATE ON @extschema@.accounts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_delete AFTER DELETE ON @extschema@.accounts
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_truncate AFTER TRUNCATE ON @extschema@.accounts
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_insert AFTER INSERT ON @extschema@.account_users
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_update AFTER UPDATE ON @extschema@.account_users
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_delete AFTER DELETE ON @extschema@.account_users
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_truncate AFTER TRUNCATE ON @extschema@.account_users
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
-- the cluster's algorithm and dampening (its decay settings invalidate the
-- checkpoint itself: usage_views.sql)
CREATE TRIGGER drop_checkpoint_factors AFTER UPDATE ON @extschema@.clusters
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();

-- ---------------------------------------------------------------------------
-- sprio_at's fast path: from the cached factors, in SQL (issue 21).
--
-- While the factors hold, sprio_at is a join of the pending jobs with them,
-- in sprio_at's own SQL, which the planner inlines into the caller's query
-- and plans once with it: no PL/pgSQL function to compile in a new
-- session, no separate query to plan for the cache's check, no tuplestore
-- between the two (docs/performance.md#sprio-and-sshare-against-slurmctld).
-- When they do not hold, a one-time filter skips that join and another
-- runs _sprio_rows, which computes the factors from sshare_at.
-- ---------------------------------------------------------------------------

-- Per cluster, the checkpoint association_usage_at starts from at as_of
-- (the newest valid one at or before it, none when the usage was reset
-- since), when its factors are cached and hold at as_of.
CREATE FUNCTION @extschema@._sprio_cached_checkpoints(as_of timestamptz)
RETURNS TABLE (cluster text, as_of timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT k.cluster, k.as_of
      FROM (SELECT DISTINCT ON (x.cluster) x.cluster, x.as_of
              FROM @extschema@.usage_checkpoints x
             WHERE x.invalidated_at IS NULL AND x.as_of OPERATOR(pg_catalog.<=) _sprio_cached_checkpoints.as_of
             ORDER BY x.cluster, x.as_of DESC) k
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) k.cluster
      JOIN @extschema@.usage_checkpoint_factors f
        ON f.cluster OPERATOR(pg_catalog.=) k.cluster AND f.as_of OPERATOR(pg_catalog.=) k.as_of
       AND _sprio_cached_checkpoints.as_of OPERATOR(pg_catalog.<) f.valid_before
     WHERE pg_catalog.upper(c.usage_reset_period) OPERATOR(pg_catalog.=) 'NONE'
        OR NOT COALESCE(@extschema@._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                                       c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                                       _sprio_cached_checkpoints.as_of) OPERATOR(pg_catalog.>) k.as_of,
                        false);
END;
COMMENT ON FUNCTION @extschema@._sprio_cached_checkpoints(timestamptz) IS
'Per cluster, the usage checkpoint whose cached fair-share factors hold at as_of (sprio_at''s fast path).';

-- sprio_at's explanation of one job, from _sprio_rows's columns.  A SQL
-- expression that the planner inlines where it is read, and only there:
-- a query that does not select the explanation neither plans nor
-- computes it.
CREATE FUNCTION @extschema@._sprio_explanation(
    x_w_age float8,
    x_pending_s float8,
    x_max_age_text text,
    age_factor float8,
    age_weighted float8,
    x_w_fs float8,
    x_no_share boolean,
    account text,
    user_name text,
    fairshare_factor float8,
    fairshare_weighted float8,
    x_w_js float8,
    x_favor_small boolean,
    x_cpus integer,
    x_total_nodes bigint,
    x_nodes integer,
    x_total_cpus bigint,
    job_size_factor float8,
    job_size_weighted float8,
    x_w_part float8,
    x_pjf integer,
    x_max_pjf integer,
    partition_factor float8,
    partition_weighted float8,
    x_w_qos float8,
    qos text,
    x_qos_priority integer,
    x_max_qos integer,
    qos_factor float8,
    qos_weighted float8,
    nice integer,
    priority_exact float8,
    priority bigint)
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
RETURN pg_catalog.concat_ws('; ',
         CASE WHEN _sprio_explanation.x_w_age OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('age: %s pending / max_age %s = %s × %s = %s',
              @extschema@._slurm_duration(GREATEST(_sprio_explanation.x_pending_s, 0)), _sprio_explanation.x_max_age_text,
              @extschema@._num(_sprio_explanation.age_factor, 4), _sprio_explanation.x_w_age, @extschema@._num(_sprio_explanation.age_weighted, 2)) END,
         CASE WHEN _sprio_explanation.x_w_fs OPERATOR(pg_catalog.<>) 0 THEN
              CASE WHEN _sprio_explanation.x_no_share
                   THEN pg_catalog.format('fairshare: no sshare row for %s/%s = 0', _sprio_explanation.account, _sprio_explanation.user_name)
                   ELSE pg_catalog.format('fairshare: sshare FairShare %s × %s = %s',
                        @extschema@._num(_sprio_explanation.fairshare_factor, 6), _sprio_explanation.x_w_fs, @extschema@._num(_sprio_explanation.fairshare_weighted, 2)) END END,
         CASE WHEN _sprio_explanation.x_w_js OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('job_size: %s = %s × %s = %s',
              CASE WHEN _sprio_explanation.x_favor_small AND _sprio_explanation.x_cpus OPERATOR(pg_catalog.<>) 0
                     THEN pg_catalog.format('((%s − %s nodes)/%s + (%s − %s cpus)/%s)/2', _sprio_explanation.x_total_nodes, _sprio_explanation.x_nodes,
                          _sprio_explanation.x_total_nodes, _sprio_explanation.x_total_cpus, _sprio_explanation.x_cpus, _sprio_explanation.x_total_cpus)
                   WHEN _sprio_explanation.x_favor_small
                     THEN pg_catalog.format('(%s − %s nodes)/%s', _sprio_explanation.x_total_nodes, _sprio_explanation.x_nodes, _sprio_explanation.x_total_nodes)
                   WHEN _sprio_explanation.x_cpus OPERATOR(pg_catalog.<>) 0
                     THEN pg_catalog.format('(%s nodes/%s + %s cpus/%s)/2', _sprio_explanation.x_nodes, _sprio_explanation.x_total_nodes, _sprio_explanation.x_cpus, _sprio_explanation.x_total_cpus)
                   ELSE pg_catalog.format('%s nodes/%s', _sprio_explanation.x_nodes, _sprio_explanation.x_total_nodes) END,
              @extschema@._num(_sprio_explanation.job_size_factor, 4), _sprio_explanation.x_w_js, @extschema@._num(_sprio_explanation.job_size_weighted, 2)) END,
         CASE WHEN _sprio_explanation.x_w_part OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('partition: PriorityJobFactor %s / max %s = %s × %s = %s',
              _sprio_explanation.x_pjf, _sprio_explanation.x_max_pjf, @extschema@._num(_sprio_explanation.partition_factor, 4), _sprio_explanation.x_w_part, @extschema@._num(_sprio_explanation.partition_weighted, 2)) END,
         CASE WHEN _sprio_explanation.x_w_qos OPERATOR(pg_catalog.<>) 0 THEN
              CASE WHEN _sprio_explanation.qos IS NULL THEN 'qos: none = 0'
                   WHEN _sprio_explanation.x_qos_priority IS NULL THEN pg_catalog.format('qos: %s is not in fairshare.qos = 0', _sprio_explanation.qos)
                   ELSE pg_catalog.format('qos: %s priority %s / max %s = %s × %s = %s', _sprio_explanation.qos, _sprio_explanation.x_qos_priority,
                        _sprio_explanation.x_max_qos, @extschema@._num(_sprio_explanation.qos_factor, 4), _sprio_explanation.x_w_qos, @extschema@._num(_sprio_explanation.qos_weighted, 2)) END END,
         CASE WHEN _sprio_explanation.nice OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('nice: %s', _sprio_explanation.nice) END,
         pg_catalog.format('total %s → %s%s', @extschema@._num(_sprio_explanation.priority_exact, 2), _sprio_explanation.priority,
              CASE WHEN _sprio_explanation.priority_exact OPERATOR(pg_catalog.<) 1 THEN ' (below 1)'
                   WHEN _sprio_explanation.priority_exact OPERATOR(pg_catalog.>=) 4294967296 THEN ' (capped)'
                   WHEN _sprio_explanation.priority_exact OPERATOR(pg_catalog.<>) pg_catalog.trunc(_sprio_explanation.priority_exact) THEN ' (truncated)'
                   ELSE '' END));
COMMENT ON FUNCTION @extschema@._sprio_explanation(float8, float8, text, float8, float8, float8, boolean, text, text, float8, float8, float8, boolean, integer, bigint, integer, bigint, float8, float8, float8, integer, integer, float8, float8, float8, text, integer, integer, float8, float8, integer, float8, bigint) IS
'sprio_at''s explanation of a job''s priority, from the columns of _sprio_rows (sprio_at, my_sprio_at).';

-- sprio -l as of an instant.  A SQL function that the planner inlines into
-- the calling query: the explanation, a text built per job (about 9 µs
-- each, and most of the output's bytes), is computed only when the query
-- reads it, which sprio -l's columns do not (docs/performance.md#sprio-and-sshare-against-slurmctld).
-- Not STRICT, which would keep it from being inlined: _sprio_rows is, and
-- the cache does not hold for NULL, so a NULL as_of still gives no rows.
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
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH cp AS MATERIALIZED (
        -- per cluster, the checkpoint whose cached factors hold at as_of
        SELECT k.cluster, k.as_of FROM @extschema@._sprio_cached_checkpoints(sprio_at.as_of) k
    ), hold AS MATERIALIZED (
        -- every fair_tree and classic cluster has them
        SELECT sprio_at.as_of IS NOT NULL AND pg_catalog.isfinite(sprio_at.as_of)
               AND NOT EXISTS (SELECT FROM @extschema@.clusters c
                                WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
                                  AND NOT EXISTS (SELECT FROM cp WHERE cp.cluster OPERATOR(pg_catalog.=) c.cluster)) AS cached
    ), sizes AS (
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
                 WHERE q.cluster OPERATOR(pg_catalog.=) c.cluster) AS max_qos,
               -- the checkpoint whose factors the cluster's jobs read
               (SELECT k.as_of FROM cp k WHERE k.cluster OPERATOR(pg_catalog.=) c.cluster) AS cp_as_of
          FROM @extschema@.clusters c
          LEFT JOIN @extschema@.partitions p ON p.cluster OPERATOR(pg_catalog.=) c.cluster
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
          -- sshare_at's FairShare, cached with the checkpoint: the table
          -- itself, on its whole key, so that the planner sees its rows
          -- (joined through cp, a CTE, it saw one row before the table was
          -- analyzed, and chose a nested loop or a merge join on the
          -- cluster alone: 1,000 × 1,001 rows)
          LEFT JOIN @extschema@.usage_checkpoint_factor_rows sh
            ON sh.cluster OPERATOR(pg_catalog.=) j.cluster AND sh.as_of OPERATOR(pg_catalog.=) z.cp_as_of
           AND sh.account OPERATOR(pg_catalog.=) j.account AND sh.user_name OPERATOR(pg_catalog.=) j.user_name
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
    ), r AS (
        -- _sprio_rows's query over the cached factors (the same columns and
        -- expressions), or _sprio_rows itself: two one-time filters, one
        -- branch runs
        SELECT s.cluster,
               s.job_id,
               s.partition,
               s.user_name,
               s.account,
               s.qos,
               s.prio AS priority,
               pg_catalog.round(s.x_age)::bigint AS age,
               pg_catalog.round(s.x_fs)::bigint AS fairshare,
               pg_catalog.round(s.x_js)::bigint AS job_size,
               pg_catalog.round(s.x_part)::bigint AS partition_prio,
               pg_catalog.round(s.x_qos)::bigint AS qos_prio,
               s.nice,
               s.x_age AS age_weighted,
               s.x_fs AS fairshare_weighted,
               s.x_js AS job_size_weighted,
               s.x_part AS partition_weighted,
               s.x_qos AS qos_weighted,
               s.exact AS priority_exact,
               s.f_age AS age_factor,
               s.f_fs AS fairshare_factor,
               s.f_js AS job_size_factor,
               s.f_part AS partition_factor,
               s.f_qos AS qos_factor,
               s.submit_time,
               s.eligible_time,
               s.pending_s AS x_pending_s,
               s.max_age_text AS x_max_age_text,
               s.w_age AS x_w_age,
               s.w_fs AS x_w_fs,
               s.w_js AS x_w_js,
               s.w_part AS x_w_part,
               s.w_qos AS x_w_qos,
               s.sshare_fairshare IS NULL AS x_no_share,
               s.favor_small AS x_favor_small,
               s.nodes AS x_nodes,
               s.cpus AS x_cpus,
               s.total_nodes AS x_total_nodes,
               s.total_cpus AS x_total_cpus,
               s.pjf AS x_pjf,
               s.max_pjf AS x_max_pjf,
               s.qos_priority AS x_qos_priority,
               s.max_qos AS x_max_qos
          FROM summed s
         WHERE (SELECT h.cached FROM hold h)
        UNION ALL
        SELECT * FROM @extschema@._sprio_rows(sprio_at.as_of)
         WHERE NOT (SELECT h.cached FROM hold h)
    )
    SELECT s.cluster, s.job_id, s.partition, s.user_name, s.account, s.qos, s.priority,
           s.age, s.fairshare, s.job_size, s.partition_prio, s.qos_prio, s.nice,
           s.age_weighted, s.fairshare_weighted, s.job_size_weighted, s.partition_weighted, s.qos_weighted,
           s.priority_exact, s.age_factor, s.fairshare_factor, s.job_size_factor, s.partition_factor, s.qos_factor,
           s.submit_time, s.eligible_time,
           @extschema@._sprio_explanation(s.x_w_age, s.x_pending_s, s.x_max_age_text, s.age_factor,
               s.age_weighted, s.x_w_fs, s.x_no_share, s.account, s.user_name, s.fairshare_factor,
               s.fairshare_weighted, s.x_w_js, s.x_favor_small, s.x_cpus, s.x_total_nodes, s.x_nodes,
               s.x_total_cpus, s.job_size_factor, s.job_size_weighted, s.x_w_part, s.x_pjf, s.x_max_pjf,
               s.partition_factor, s.partition_weighted, s.x_w_qos, s.qos, s.x_qos_priority, s.x_max_qos,
               s.qos_factor, s.qos_weighted, s.nice, s.priority_exact, s.priority)
      FROM r s;
END;
COMMENT ON FUNCTION @extschema@.sprio_at(timestamptz) IS
'sprio -l as of an instant: every job pending then (submitted and eligible, not started, not ended), its weighted factors rounded as sprio prints them and at full precision, the normalised factors, the truncated priority, and an explanation of each factor (computed only when read). NULL as_of gives no rows; an infinite one raises 22008.';

CREATE VIEW @extschema@.sprio AS
SELECT * FROM @extschema@.sprio_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.sprio IS 'sprio_at(now()): the pending jobs and their priority factors now.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_factors', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_factor_rows', '');
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

-- Argument checks shared by the GENCI functions: allocation and consumption
-- are finite and >= 0, dates are finite, the period does not end before it
-- starts.  `fn` names the calling function in the message.
CREATE FUNCTION @extschema@._genci_check(fn text, allocation float8, consumed float8,
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

-- Number of months of a period, the divisor of the monthly theoretical
-- allocation: the whole number n of calendar months when period_start + n
-- months is the day after period_end (12 for a one-year period), else the
-- length in days over the mean month, D × 12 / 365.25
-- (docs/policies.md#genci-monthly-regulation).
CREATE FUNCTION @extschema@.genci_period_months(period_start date, period_end date)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    after date;
    n integer;
BEGIN
    PERFORM @extschema@._genci_check('genci_period_months', NULL, NULL, period_start, period_end, period_start);
    after := period_end + 1;
    n := (extract(year FROM after)::integer - extract(year FROM period_start)::integer) * 12
         + extract(month FROM after)::integer - extract(month FROM period_start)::integer;
    IF n >= 1 AND period_start + make_interval(months => n) = after THEN
        RETURN n;
    END IF;
    RETURN (after - period_start) * 12 / 365.25::float8;
END
$$;
COMMENT ON FUNCTION @extschema@.genci_period_months(date, date) IS
'GENCI: months of a period: n when period_start + n months = period_end + 1 day (12 for one year), else days × 12 / 365.25.';

-- Month k of the allocation as_of falls in: month k runs from
-- period_start + (k−1) months to the day before period_start + k months
-- (a period starting 17 March has months 17 Mar–16 Apr, 17 Apr–16 May, …;
-- PostgreSQL's month arithmetic, which clamps to the month's last day).
-- 0 before the start.
CREATE FUNCTION @extschema@.genci_allocation_month(period_start date, as_of date)
RETURNS integer LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    n integer;
BEGIN
    PERFORM @extschema@._genci_check('genci_allocation_month', NULL, NULL, period_start, period_start, as_of);
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
COMMENT ON FUNCTION @extschema@.genci_allocation_month(date, date) IS
'GENCI: month k (1, 2, …) of an allocation that as_of falls in, months counted from the start day; 0 before the start.';

-- theoretical(as_of) = A × E / D: D the days of the inclusive period, E the
-- days from period_start to as_of not counting as_of (1 May 2017 → 106 on
-- 15 Aug 2017); 0 up to the start, A after the end.
CREATE FUNCTION @extschema@.theoretical_consumption(allocation float8, period_start date,
                                                    period_end date, as_of date)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM @extschema@._genci_check('theoretical_consumption', allocation, NULL, period_start, period_end, as_of);
    IF as_of <= period_start THEN
        RETURN 0;
    ELSIF as_of > period_end THEN
        RETURN allocation;
    END IF;
    RETURN allocation * (as_of - period_start) / (period_end - period_start + 1);
END
$$;
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
-- period.  A zero allocation has no ratio and no status.
CREATE FUNCTION @extschema@.genci_status(
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
    PERFORM @extschema@._genci_check('genci_status', allocation, consumed, period_start, period_end, as_of);
    IF variant NOT IN ('genci', 'tgcc') THEN
        RAISE EXCEPTION 'genci_status: unknown variant "%"', variant
            USING ERRCODE = '22023', HINT = 'The variants are ''genci'' (lag in months) and ''tgcc'' (lag in days).';
    END IF;
    d := period_end - period_start + 1;
    theoretical := @extschema@.theoretical_consumption(allocation, period_start, period_end, as_of);
    lag := theoretical - consumed;
    monthly := allocation / @extschema@.genci_period_months(period_start, period_end);
    allocation_month := @extschema@.genci_allocation_month(period_start, as_of);
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
COMMENT ON FUNCTION @extschema@.genci_status(float8, float8, date, date, date, text) IS
'GENCI monthly regulation on a day: theoretical, lag (hours, days), monthly, ratio, status (on track / late / very late), allocation month, check day, penalty; variant genci or tgcc.';

-- Hours the monthly regulation takes back on as_of
-- (docs/policies.md#genci-monthly-regulation): one
-- month of theoretical consumption when as_of is a check day and the ratio
-- is above 2 (strictly); 0 otherwise.  `allocation` is the net allocation.
CREATE FUNCTION @extschema@.genci_penalty(allocation float8, consumed float8, period_start date,
                                          period_end date, as_of date)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT s.penalty FROM @extschema@.genci_status(allocation, consumed, period_start, period_end, as_of, 'genci') s;
END;
COMMENT ON FUNCTION @extschema@.genci_penalty(float8, float8, date, date, date) IS
'GENCI: hours taken back on as_of: allocation / months on the 15th of month >= 3 when (theoretical − consumed) / monthly > 2; else 0.';

-- Mid-term regulation, for allocations below the cluster's threshold
-- (docs/policies.md#genci-mid-term-regulation): the alert goes out on the
-- first day of month 5 (period_start + 4 months) to projects that have used
-- at most used_limit of their hours; on the first day after month 5
-- (period_start + 5 months) such a project loses
-- min(cap × A, max(0, A × 5 / months − consumed)).
-- Exemptions (justification filed, second-half use declared) are the
-- allocation's, applied by the procedure and the report.
CREATE FUNCTION @extschema@.genci_midterm_status(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    cap float8 DEFAULT 0.40, used_limit float8 DEFAULT 0.30,
    OUT used_fraction float8, OUT under_used boolean, OUT alert_day boolean,
    OUT check_day boolean, OUT take_back float8)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM @extschema@._genci_check('genci_midterm_status', allocation, consumed, period_start, period_end, as_of);
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
                           greatest(0, allocation * 5 / @extschema@.genci_period_months(period_start, period_end)
                                       - consumed));
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.genci_midterm_status(float8, float8, date, date, date, float8, float8) IS
'GENCI mid-term regulation: used fraction, under-used (<= used_limit), alert day (start + 4 months), check day (start + 5 months), take-back min(cap·A, max(0, A·5/months − consumed)).';

CREATE FUNCTION @extschema@.genci_midterm_penalty(
    allocation float8, consumed float8, period_start date, period_end date, as_of date,
    cap float8 DEFAULT 0.40, used_limit float8 DEFAULT 0.30)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT s.take_back
      FROM @extschema@.genci_midterm_status(allocation, consumed, period_start, period_end, as_of, cap, used_limit) s;
END;
COMMENT ON FUNCTION @extschema@.genci_midterm_penalty(float8, float8, date, date, date, float8, float8) IS
'GENCI mid-term: hours taken back on period_start + 5 months from a project that used <= 30 %: min(0.40·A, max(0, A·5/12 − consumed)).';

-- ---------------------------------------------------------------------------
-- The model side
-- ---------------------------------------------------------------------------

-- Core-hours (RWTH rules, billing.sql core_hours) of an account's jobs on a
-- cluster between two instants: each job counts for the part of its run
-- inside [since, until); a job without an end counts up to until; exclusive
-- jobs and jobs in whole-node partitions pay every core of their nodes;
-- GPU-hours are billed with the cluster's gpu_hour_factor.
CREATE FUNCTION @extschema@.account_core_hours(cluster text, account text,
                                               since timestamptz, until timestamptz)
RETURNS float8 LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    total float8;
BEGIN
    IF NOT isfinite(since) OR NOT isfinite(until) THEN
        RAISE EXCEPTION 'account_core_hours: instants must be finite (since %, until %)', since, until
            USING ERRCODE = '22008', HINT = 'Give the window of time to count as two finite instants.';
    END IF;
    IF until < since THEN
        RAISE EXCEPTION 'account_core_hours: until % is before since %', until, since
            USING ERRCODE = '22023', HINT = 'The window is [since, until).';
    END IF;
    SELECT sum(@extschema@.core_hours(j.cpus, greatest(j.start_time, since),
                                      least(coalesce(j.end_time, until), until),
                                      j.exclusive OR p.whole_node, j.nodes, p.cores_per_node,
                                      j.gpus, c.gpu_hour_factor))
      INTO total
      FROM @extschema@.jobs j
      JOIN @extschema@.partitions p ON p.cluster = j.cluster AND p.partition = j.partition
      JOIN @extschema@.clusters c ON c.cluster = j.cluster
     WHERE j.cluster = cluster AND j.account = account
       AND j.start_time IS NOT NULL
       AND j.start_time < until
       AND (j.end_time IS NULL OR j.end_time > since);
    RETURN coalesce(total, 0);
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
CREATE FUNCTION @extschema@._genci_net_before(allocation_id bigint, as_of date)
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
-- allocation on that day (issue 20): net is then NULL.  An initial grant or
-- a ledger entry above 10^12 hours (accepted before 1.2, see
-- _allocation_hours_bounded) made the float8 sums and the status overflow:
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
CREATE FUNCTION @extschema@._genci_refusal(allocation_id bigint, as_of date, used float8,
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
    net := @extschema@._genci_net_before(allocation_id, as_of);
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
CREATE FUNCTION @extschema@._genci_report_error(allocation_id bigint, cluster text, account text, why text)
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
-- mid-term regime.
CREATE FUNCTION @extschema@._genci_check_days(period_start date, period_end date, regime text, variant text)
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

-- The GENCI regulation of every allocation as of a day: consumption
-- against theoretical consumption, lag in hours and days, status, what the
-- regulation takes on that day, the last penalty and the hours taken back
-- so far (every take-back, manual ones included).  The status is computed on the net
-- allocation before that day's own regulation take-backs; net_hours is
-- that allocation.  regime is 'monthly' (initial grant >= the cluster's
-- regulation_threshold; NULL threshold = 0) or 'mid-term'.  An allocation
-- whose figures cannot be computed (_genci_refusal) gets status 'error',
-- NULL figures and a WARNING that names it; the other rows are computed
-- (issue 20).  Without an EXCEPTION block, which would make the report
-- PARALLEL UNSAFE: the refusal is decided before any arithmetic, and the
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
BEGIN
    IF $1 IS NULL THEN
        RAISE EXCEPTION 'genci_report_at: as_of must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass the day the report is for.';
    ELSIF NOT isfinite($1) THEN
        RAISE EXCEPTION 'genci_report_at: as_of must be a finite date, not %', $1
            USING ERRCODE = '22008', HINT = 'Pass the day the report is for.';
    END IF;
    RETURN QUERY
    -- the consumption and the net computed once per allocation (OFFSET 0,
    -- MATERIALIZED): an expression of a subquery pulled up into its parent
    -- is evaluated at every reference to it
    WITH a AS MATERIALIZED (
        SELECT u.*, g.net, g.why
          FROM (SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end, al.hours,
                       al.justification_filed, al.second_half_declared,
                       CASE WHEN al.hours >= coalesce(c.regulation_threshold, 0) THEN 'monthly' ELSE 'mid-term' END AS regime,
                       coalesce(s.variant, 'genci') AS variant,
                       coalesce(s.midterm_cap, 0.40) AS cap,
                       coalesce(s.midterm_used_limit, 0.30) AS used_limit,
                       @extschema@.allocation_consumption(al.allocation_id, $1) AS used
                  FROM @extschema@.allocations al
                  JOIN @extschema@.clusters c ON c.cluster = al.cluster
                  LEFT JOIN @extschema@.genci_settings s ON s.cluster = al.cluster
                 WHERE al.policy = 'genci'
                OFFSET 0) u
         CROSS JOIN LATERAL @extschema@._genci_refusal(u.allocation_id, $1, u.used) g
    )
    SELECT a.cluster, a.account, a.allocation_id, a.period_start, a.period_end, a.regime, a.variant,
           a.hours, a.net, a.used, st.theoretical, st.lag, st.lag_days, st.monthly, st.ratio,
           CASE WHEN a.why IS NULL THEN st.status
                ELSE @extschema@._genci_report_error(a.allocation_id, a.cluster, a.account, a.why) END,
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
        -- only allocations with a check day still to evaluate: a day found
        -- evaluated (committed) cannot become pending again, so the others
        -- are skipped without a lock
        FOR al IN
            SELECT a.allocation_id, a.account, a.period_start, a.period_end, a.hours,
                   a.justification_filed, a.second_half_declared
              FROM @extschema@.allocations a
             WHERE a.cluster = cl.cluster AND a.policy = 'genci' AND a.period_start <= upto
               AND EXISTS (SELECT 1
                             FROM @extschema@._genci_check_days(a.period_start, a.period_end,
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
                  FROM @extschema@._genci_check_days(al.period_start, al.period_end,
                           CASE WHEN al.hours >= cl.threshold THEN 'monthly' ELSE 'mid-term' END,
                           cl.variant) d
                 WHERE d.check_day <= upto
                   AND NOT EXISTS (SELECT 1 FROM @extschema@.regulation_checks r
                                    WHERE r.allocation_id = al.allocation_id
                                      AND r.rule = d.rule AND r.check_day = d.check_day)
                 ORDER BY d.check_day, d.rule
            LOOP
                used := @extschema@.allocation_consumption(al.allocation_id, cd.check_day);
                -- figures that cannot be computed (_genci_refusal): this
                -- allocation's days stay pending, the others go on
                SELECT * INTO checked FROM @extschema@._genci_refusal(al.allocation_id, cd.check_day, used);
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
-- ---------------------------------------------------------------------------
-- rwth: RWTH Aachen (CLAIX) three-month sliding-window core-hour quota
-- (how the "Resource Quotas" page is read:
-- docs/policies.md#rwth-sliding-window-quota).
--
-- Pure functions (the available quota, the quota status), then the monthly
-- consumption of every project from the job table and `r_wlm_usage`, the
-- view that prints what `r_wlm_usage -q` prints, for every project and
-- month.  Months are calendar months in the cluster's time zone; a month
-- outside the accounting period counts 0 (passed as NULL).  What runs per
-- job or per project month is in C (rwth.c): the reports cover 10^4
-- projects × 24 months in about 1.3 s (docs/performance.md).
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

-- The instants the calendar months of a period begin in a time zone, and
-- the end of the last month: n + 1 instants for a period touching n months,
-- each (first of the month)::timestamp AT TIME ZONE timezone (rwth.c).
-- Internal to rwth_monthly_usage_at.
CREATE FUNCTION @extschema@._rwth_month_starts(period_start date, period_end date, timezone text)
RETURNS timestamptz[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_starts'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._rwth_month_starts(date, date, text) IS
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
-- arrays: none).  Internal to rwth_monthly_usage_at and r_wlm_usage_at:
-- with the months cut in SQL, every job became a row per month it touched
-- and was joined to its partition, and that was most of r_wlm_usage's time
-- (docs/performance.md).
CREATE FUNCTION @extschema@._rwth_month_hours_accum(float8[], timestamptz[], timestamptz, timestamptz,
                                                    text[], boolean[], integer[], float8,
                                                    text, integer, timestamptz, timestamptz, boolean,
                                                    integer, integer)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_hours_accum'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
-- Two partial states of a group added month by month: parallel query and
-- Citus's workers split the aggregate with it (rwth.c).
CREATE FUNCTION @extschema@._rwth_month_hours_combine(float8[], float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_month_hours_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@._rwth_month_hours(bounds timestamptz[], since timestamptz, until timestamptz,
                                               partitions text[], whole_node boolean[],
                                               cores_per_node integer[], gpu_hour_factor float8,
                                               partition text, cpus integer, started timestamptz,
                                               ended timestamptz, exclusive boolean, nodes integer,
                                               gpus integer) (
    SFUNC = @extschema@._rwth_month_hours_accum, STYPE = float8[],
    COMBINEFUNC = @extschema@._rwth_month_hours_combine, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@._rwth_month_hours(timestamptz[], timestamptz, timestamptz, text[], boolean[], integer[], float8, text, integer, timestamptz, timestamptz, boolean, integer, integer) IS
'RWTH (internal): core_hours of the jobs between since and until, cut at bounds[1..n+1] and summed per month: float8[n].';

-- Running totals of the months' hours (rwth.c): element k the sum of
-- hours[1..k] (a NULL array or element counting 0), added as sum() OVER
-- (ORDER BY month) adds them.  Internal to r_wlm_usage_at.
CREATE FUNCTION @extschema@._rwth_running_hours(hours float8[], months integer)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_rwth_running_hours'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._rwth_running_hours(float8[], integer) IS
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
-- The projects' jobs are joined and aggregated per project (GROUP BY), not
-- aggregated in a LATERAL subquery per project: on a Citus cluster a
-- LATERAL aggregate over the distributed jobs cannot be pushed to the
-- workers, a grouped join is, each worker cutting its jobs' months and the
-- coordinator adding the partial sums (_rwth_month_hours_combine).  On one
-- server the join still reads each project's jobs by the index on
-- (account, cluster, start_time).
CREATE FUNCTION @extschema@._rwth_usage(as_of timestamptz)
RETURNS TABLE (cluster text, account text, allocation_id bigint, period_start date, period_end date,
               months integer, first_month date, starts timestamptz[], allowance float8, hours float8[],
               running float8[])
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH al AS (
        -- the project, with [t0, t1) its period up to as_of (a CTE read
        -- twice: computed once per project)
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
    ), u AS (
        -- its jobs in the period, each cut at the month boundaries by one
        -- aggregate per project
        SELECT al.allocation_id,
               @extschema@._rwth_month_hours(al.starts, al.t0, al.t1, al.partitions, al.whole_node,
                                             al.cores_per_node, al.gpu_hour_factor, j.partition, j.cpus,
                                             j.start_time, j.end_time, j.exclusive, j.nodes, j.gpus) AS h
          FROM al
          JOIN @extschema@.jobs j
            ON j.cluster OPERATOR(pg_catalog.=) al.cluster AND j.account OPERATOR(pg_catalog.=) al.account
           AND j.start_time IS NOT NULL AND j.start_time OPERATOR(pg_catalog.<) al.t1
           AND (j.end_time IS NULL OR j.end_time OPERATOR(pg_catalog.>) al.t0)
         GROUP BY al.allocation_id
    )
    SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end, al.n,
           al.first_month, al.starts, al.allowance, u.h, @extschema@._rwth_running_hours(u.h, al.n)
      FROM al
      LEFT JOIN u ON u.allocation_id OPERATOR(pg_catalog.=) al.allocation_id
     ORDER BY al.cluster, al.account, al.period_start;
END;
COMMENT ON FUNCTION @extschema@._rwth_usage(timestamptz) IS
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
      FROM @extschema@._rwth_usage($1) u
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
COMMENT ON FUNCTION @extschema@.r_wlm_usage_at(timestamptz) IS
'RWTH r_wlm_usage -q for every project and month begun by as_of: monthly, remaining of prev. month, consumed, consumable % (clamped at −101) and core-h, state, low priority, blocked.';

CREATE VIEW @extschema@.r_wlm_usage AS
SELECT * FROM @extschema@.r_wlm_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.r_wlm_usage IS 'r_wlm_usage_at(now()).';
-- ---------------------------------------------------------------------------
-- import: jobs in from a scheduler's accounting (docs/import.md).  Slurm
-- `sacct --parsable2` exports and PBS / OpenPBS / PBS Pro accounting logs go
-- into fairshare.jobs by one call each:
--
--   SELECT fairshare.import_stage();                  -- TEMP table import_staging
--   \copy import_staging (line) FROM 'day.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
--   SELECT * FROM fairshare.import_sacct('oracle', 'UTC');
--
-- Every staged line is one text value (the odd delimiter and quote make COPY
-- take each line whole, untouched), numbered in file order by an identity
-- column.  ENCODING 'SQL_ASCII' makes COPY take the bytes unchecked, so that
-- one invalid byte rejects its line (the parsers check each line, 22021)
-- instead of failing the whole COPY (issue 20).  The parsers are C (import.c), one call per line; the rest is set
-- SQL over a TEMP work table: find unknown clusters, associations and
-- partitions (reject, or create them when asked), fold steps and repeated
-- lines, then one INSERT ... ON CONFLICT into jobs.  A bad line is rejected
-- with its number, SQLSTATE and reason into import_rejects; the good ones
-- are imported, unless the caller asks for all-or-nothing.
--
-- Staging is a TEMP table, not an UNLOGGED one: it is private to the session
-- (two clusters' loads can run at once without mixing their lines), it
-- writes no WAL, it holds nothing pg_dump should keep, and it needs no
-- cleanup after a crash or a forgotten load.  COPY is as fast into either
-- (1.0 s for 10^6 lines on the test machine); the price is that parallel
-- workers cannot scan a TEMP table, so the parse runs in one backend.
--
-- The work tables are changed by statements that read only work tables:
-- what they need of fairshare.jobs and the model is read first, by plain
-- queries, into TEMP tables of their own (the stored runs a PBS load
-- continues, the stored jobs of a lone step's id, the tasks of an array's
-- remainder, the recent runs).  On a Citus cluster a statement that changes
-- a TEMP table cannot read a Citus table, nor can a query correlate a Citus
-- table with a TEMP table (EXISTS ... WHERE x.k = w.k): Citus plans the
-- jobs' side on the workers and the TEMP table's on the coordinator
-- (docs/citus.md).  On one server each is the join the lookup it replaces
-- made.
-- ---------------------------------------------------------------------------

-- One row per import: who, when, what, and the summary it returned.
CREATE TABLE @extschema@.imports (
    import_id            bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    source               text NOT NULL CHECK (source IN ('sacct', 'pbs')),
    cluster              text,
    time_zone            text NOT NULL,
    staging              text NOT NULL,
    started_at           timestamptz NOT NULL DEFAULT pg_catalog.now(),
    imported_by          text NOT NULL DEFAULT CURRENT_USER,
    lines_read           bigint,
    imported             bigint,
    updated              bigint,
    unchanged            bigint,
    removed              bigint,
    folded               bigint,
    skipped              bigint,
    rejected             bigint,
    created_accounts     bigint,
    created_users        bigint,
    created_partitions   bigint
);
COMMENT ON TABLE @extschema@.imports IS 'One row per import_sacct / import_pbs call, with the summary it returned.';

-- The lines an import could not take, with why.
CREATE TABLE @extschema@.import_rejects (
    import_id            bigint NOT NULL REFERENCES @extschema@.imports ON DELETE CASCADE,
    line_no              bigint NOT NULL,
    job_id               text,
    sqlstate             text NOT NULL,
    reason               text NOT NULL,
    line                 text,
    PRIMARY KEY (import_id, line_no)
);
COMMENT ON TABLE @extschema@.import_rejects IS 'Lines an import rejected: line number in the staged file, SQLSTATE, reason and the line itself.';

-- What an import could tell but not fix, line by line: a run it closed
-- because a later run of the same job id came (an export without
-- --duplicates), or a job id it found reused.
CREATE TABLE @extschema@.import_warnings (
    import_id            bigint NOT NULL REFERENCES @extschema@.imports ON DELETE CASCADE,
    line_no              bigint NOT NULL,
    job_id               text,
    warning              text NOT NULL,
    PRIMARY KEY (import_id, line_no, warning)
);
COMMENT ON TABLE @extschema@.import_warnings IS 'What an import noticed about the runs of a job id (runs closed, ids reused), per line of the staged file.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.imports', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.imports_import_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.import_rejects', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.import_warnings', '');

-- What the line parsers return (import.c).
CREATE TYPE @extschema@._sacct_line AS (
    kind text, cluster text, job_id text, step text, user_name text, account text,
    partition text, qos text, state text, submit_time timestamptz,
    eligible_time timestamptz, start_time timestamptz, end_time timestamptz,
    time_limit interval, tres text, cpus integer, mem_mb bigint, gpus integer,
    nodes integer, sqlstate text, reason text, suspended interval, resv_id integer);

CREATE TYPE @extschema@._pbs_record AS (
    kind text, rec_time timestamptz, rec_type text, job_id text, user_name text,
    group_name text, account text, project text, queue text, submit_time timestamptz,
    eligible_time timestamptz, start_time timestamptz, end_time timestamptz,
    exit_status integer, time_limit interval, walltime_used interval,
    cpu_time_used interval, tres text, cpus integer, mem_mb bigint, gpus integer,
    nodes integer, exclusive boolean, sqlstate text, reason text);

-- VOLATILE: whether a step is 'step' (its job's line came just before) or
-- 'lone_step' depends on the lines read before it in the same scan.
CREATE FUNCTION @extschema@._sacct_line(line text, header text, time_zone text, cluster text)
RETURNS @extschema@._sacct_line
AS 'MODULE_PATHNAME', 'fs_sacct_line'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._sacct_line(text, text, text, text) IS
'One line of sacct --parsable2 output read through its header: kind job, step, lone_step, header, blank or reject (with sqlstate and reason).';

-- The whole staging table through the same parser in one call: import_sacct's
-- work table (its rows but the steps folded, with line_no, the staged text
-- of rejected lines, and per row the steps folded into it).  Reads the
-- session's TEMP staging table: PARALLEL RESTRICTED.
CREATE FUNCTION @extschema@._sacct_parse(staging regclass, header text, header_no bigint,
                                         time_zone text, cluster text)
RETURNS TABLE (line_no bigint, kind text, cluster text, job_id text, step text, user_name text,
               account text, partition text, qos text, state text, submit_time timestamptz,
               eligible_time timestamptz, start_time timestamptz, end_time timestamptz,
               time_limit interval, tres text, cpus integer, mem_mb bigint, gpus integer,
               nodes integer, exclusive boolean, stored boolean, sqlstate text, reason text,
               line text, folded bigint, suspended interval, resv_id integer)
AS 'MODULE_PATHNAME', 'fs_sacct_parse'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED ROWS 100000;
COMMENT ON FUNCTION @extschema@._sacct_parse(regclass, text, bigint, text, text) IS
'Every line of an sacct --parsable2 export staged in a table, parsed in one pass: the rows of import_sacct''s work table, steps folded (counted in folded).';

CREATE FUNCTION @extschema@._pbs_record(line text, time_zone text)
RETURNS @extschema@._pbs_record
AS 'MODULE_PATHNAME', 'fs_pbs_record'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._pbs_record(text, text) IS
'One PBS accounting log record: kind job, skip (no job usage in it), blank or reject (with sqlstate and reason).';

-- A staged line as import_rejects keeps it: unchanged, or, when it is not
-- valid text in the database encoding (staged with ENCODING 'SQL_ASCII'),
-- with each invalid byte written \xNN, so that the reject is text any client
-- can read and pg_dump can restore (import.c).
CREATE FUNCTION @extschema@._import_line_text(line text)
RETURNS text
AS 'MODULE_PATHNAME', 'fs_import_line_text'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION @extschema@._import_time_zone(name text)
RETURNS text
AS 'MODULE_PATHNAME', 'fs_import_time_zone'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------------
-- Staging
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@.import_stage(staging text DEFAULT 'import_staging')
RETURNS regclass
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF staging IS NULL OR staging !~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN
        RAISE EXCEPTION 'staging table name % is not a plain identifier', COALESCE(quote_literal(staging), 'NULL')
            USING ERRCODE = '22023', HINT = 'Name the TEMP table with letters, digits and underscores, e.g. import_staging.';
    END IF;
    IF to_regclass('pg_temp.' || quote_ident(staging)) IS NULL THEN
        EXECUTE format('CREATE TEMP TABLE %I (line_no bigint GENERATED ALWAYS AS IDENTITY, line text)', staging);
    ELSE
        EXECUTE format('TRUNCATE pg_temp.%I RESTART IDENTITY', staging);
    END IF;
    RETURN ('pg_temp.' || quote_ident(staging))::regclass;
END
$$;
COMMENT ON FUNCTION @extschema@.import_stage(text) IS
'Creates (or empties) the session''s TEMP staging table (line_no, line) that \copy fills with one export line per row.';

-- The staging table named by the caller, checked: it must have line_no
-- bigint (file order) and line text.
CREATE FUNCTION @extschema@._import_staging(staging text)
RETURNS regclass
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel regclass;
BEGIN
    IF staging IS NULL THEN
        RAISE EXCEPTION 'staging must not be NULL' USING ERRCODE = '22004',
            HINT = 'Name the table the export was copied into (default import_staging, made by fairshare.import_stage()).';
    END IF;
    rel := to_regclass(staging);
    IF rel IS NULL THEN
        RAISE EXCEPTION 'staging table "%" does not exist', staging USING ERRCODE = '42P01',
            HINT = 'Run SELECT fairshare.import_stage(); then \copy import_staging (line) FROM ''file'' (FORMAT csv, DELIMITER E''\x1f'', QUOTE E''\x1e'', ENCODING ''SQL_ASCII'').';
    END IF;
    IF (SELECT count(*) FROM pg_attribute a
         WHERE a.attrelid = rel AND NOT a.attisdropped
           AND ((a.attname = 'line_no' AND a.atttypid = 'bigint'::regtype AND a.attnotnull)
                OR (a.attname = 'line' AND a.atttypid = 'text'::regtype))) <> 2 THEN
        RAISE EXCEPTION 'staging table % needs columns line_no bigint NOT NULL and line text', rel USING ERRCODE = '22023',
            HINT = 'Create it with fairshare.import_stage(), or as (line_no bigint GENERATED ALWAYS AS IDENTITY, line text).';
    END IF;
    RETURN rel;
END
$$;

-- After a successful import the staging table is emptied (its numbering
-- restarted), so that the next \copy starts at line 1.  A staging table the
-- caller may not truncate is left as it is.
CREATE FUNCTION @extschema@._import_empty(src regclass)
RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    EXECUTE format('TRUNCATE %s RESTART IDENTITY', src);
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'staging table % left as it is: %', src, SQLERRM;
END
$$;

-- The zone the scheduler's local times are read in: the argument, else the
-- cluster's clusters.timezone.
CREATE FUNCTION @extschema@._import_zone(cluster text, time_zone text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tz text := time_zone;
BEGIN
    IF tz IS NULL AND cluster IS NOT NULL THEN
        SELECT c.timezone INTO tz FROM @extschema@.clusters c WHERE c.cluster = _import_zone.cluster;
    END IF;
    IF tz IS NULL THEN
        RAISE EXCEPTION 'time_zone is NULL and no cluster row gives one' USING ERRCODE = '22004',
            HINT = 'The scheduler writes local times without an offset: pass time_zone => ''Europe/Paris'' (or the cluster, whose clusters.timezone is used).';
    END IF;
    RETURN @extschema@._import_time_zone(tz);
END
$$;

-- ---------------------------------------------------------------------------
-- The steps both imports share.  They work on pg_temp._fs_import_jobs, one
-- row per job (kind 'job') with the jobs table's columns, line_no, kind,
-- sqlstate and reason.
-- ---------------------------------------------------------------------------

-- Unknown clusters, partitions, accounts and user associations: the jobs
-- that need them are rejected (23503), or, with create_missing, they are
-- created: accounts under root with 1 share, users with 1 share, partitions
-- with the smallest shape that fits every imported job in them and no
-- billing weights (Slurm bills the CPUs then).  The cluster itself must exist.
CREATE FUNCTION @extschema@._import_resolve(create_missing boolean,
    OUT created_accounts bigint, OUT created_users bigint, OUT created_partitions bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
BEGIN
    created_accounts := 0; created_users := 0; created_partitions := 0;
    -- one scan of the work table; the rest works on these few rows.  The
    -- shapes a created partition needs are computed only when partitions
    -- may be created: in numeric, per job, they were most of this scan
    -- (0.38 s of 10^5 lines, against 0.07 s without them)
    IF to_regclass('pg_temp._fs_import_assoc') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_assoc; END IF;
    CREATE TEMP TABLE _fs_import_assoc AS
    SELECT w.cluster, w.account, w.user_name, w.partition,
           max(w.nodes) FILTER (WHERE create_missing) AS nodes,
           max(ceil(w.cpus::numeric / GREATEST(w.nodes, 1))) FILTER (WHERE create_missing) AS cpus_per_node,
           max(ceil(w.mem_mb::numeric / GREATEST(w.nodes, 1))) FILTER (WHERE create_missing) AS mem_per_node,
           max(ceil(w.gpus::numeric / GREATEST(w.nodes, 1))) FILTER (WHERE create_missing) AS gpus_per_node
      FROM pg_temp._fs_import_jobs w
     WHERE w.kind = 'job'
     GROUP BY 1, 2, 3, 4;

    -- clusters: never created, they carry the centre's policy parameters
    -- (the known ones read first: the statements below change work tables)
    IF to_regclass('pg_temp._fs_import_clusters') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_clusters; END IF;
    CREATE TEMP TABLE _fs_import_clusters AS SELECT c.cluster FROM @extschema@.clusters c;
    DELETE FROM _fs_import_assoc a
     WHERE NOT EXISTS (SELECT 1 FROM pg_temp._fs_import_clusters c WHERE c.cluster = a.cluster);
    IF FOUND THEN
        UPDATE pg_temp._fs_import_jobs w
           SET kind = 'reject', sqlstate = '23503',
               reason = format('cluster %s is not in fairshare.clusters', quote_literal(w.cluster))
         WHERE w.kind = 'job'
           AND NOT EXISTS (SELECT 1 FROM pg_temp._fs_import_clusters c WHERE c.cluster = w.cluster);
    END IF;
    DROP TABLE pg_temp._fs_import_clusters;

    IF create_missing THEN
        INSERT INTO @extschema@.partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb, gpus_per_node)
        SELECT a.cluster, a.partition, GREATEST(max(a.nodes), 1),
               GREATEST(max(a.cpus_per_node), 1)::integer, GREATEST(max(a.mem_per_node), 1)::bigint,
               GREATEST(max(a.gpus_per_node), 0)::integer
          FROM _fs_import_assoc a
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.partitions p
                            WHERE p.cluster = a.cluster AND p.partition = a.partition)
         GROUP BY a.cluster, a.partition;
        GET DIAGNOSTICS n = ROW_COUNT;
        created_partitions := n;

        -- root first: every other account hangs under it
        INSERT INTO @extschema@.accounts (cluster, account, parent_account, shares)
        SELECT DISTINCT a.cluster, 'root', NULL::text, 1
          FROM _fs_import_assoc a
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.accounts x WHERE x.cluster = a.cluster AND x.account = 'root');
        GET DIAGNOSTICS n = ROW_COUNT;
        created_accounts := n;
        INSERT INTO @extschema@.accounts (cluster, account, parent_account, shares)
        SELECT DISTINCT a.cluster, a.account, 'root', 1
          FROM _fs_import_assoc a
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.accounts x WHERE x.cluster = a.cluster AND x.account = a.account);
        GET DIAGNOSTICS n = ROW_COUNT;
        created_accounts := created_accounts + n;

        INSERT INTO @extschema@.account_users (cluster, account, user_name, shares)
        SELECT DISTINCT a.cluster, a.account, a.user_name, 1
          FROM _fs_import_assoc a
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.account_users u
                            WHERE u.cluster = a.cluster AND u.account = a.account AND u.user_name = a.user_name);
        GET DIAGNOSTICS n = ROW_COUNT;
        created_users := n;
    ELSE
        -- the first thing missing, in the order partition, account, user
        IF to_regclass('pg_temp._fs_import_missing') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_missing; END IF;
        CREATE TEMP TABLE _fs_import_missing AS
        SELECT a.cluster, a.account, a.user_name, a.partition,
               CASE
                 WHEN NOT EXISTS (SELECT 1 FROM @extschema@.partitions p
                                   WHERE p.cluster = a.cluster AND p.partition = a.partition)
                   THEN format('partition %s is not in fairshare.partitions for cluster %s',
                               quote_literal(a.partition), quote_literal(a.cluster))
                 WHEN NOT EXISTS (SELECT 1 FROM @extschema@.accounts x
                                   WHERE x.cluster = a.cluster AND x.account = a.account)
                   THEN format('account %s is not in fairshare.accounts for cluster %s',
                               quote_literal(a.account), quote_literal(a.cluster))
                 ELSE format('user %s has no association with account %s on cluster %s (fairshare.account_users)',
                             quote_literal(a.user_name), quote_literal(a.account), quote_literal(a.cluster))
               END AS reason
          FROM _fs_import_assoc a
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.partitions p
                            WHERE p.cluster = a.cluster AND p.partition = a.partition)
            OR NOT EXISTS (SELECT 1 FROM @extschema@.account_users u
                            WHERE u.cluster = a.cluster AND u.account = a.account AND u.user_name = a.user_name);
        IF EXISTS (SELECT 1 FROM _fs_import_missing) THEN
            UPDATE pg_temp._fs_import_jobs w
               SET kind = 'reject', sqlstate = '23503', reason = m.reason
              FROM _fs_import_missing m
             WHERE w.kind = 'job' AND w.cluster = m.cluster AND w.account = m.account
               AND w.user_name = m.user_name AND w.partition = m.partition;
        END IF;
        DROP TABLE _fs_import_missing;
    END IF;
    DROP TABLE _fs_import_assoc;
END
$$;

-- The work table's jobs (kind 'job') into fairshare.jobs, in two statements:
-- the jobs already stored go through INSERT ... ON CONFLICT DO UPDATE, the
-- new ones through a plain INSERT (a third faster than ON CONFLICT, which
-- pays for its speculative insertion on every row).  A stored job is
-- updated when the line differs from it and is not older than it (its
-- latest time is not before the stored one's, or it shows the run started or
-- ended where the stored one did not; never the reverse), so that an older
-- export loaded after a newer one changes nothing.  Columns the import does not
-- read (scratch_mb, spec, nice; exclusive for Slurm) keep their values.
--
-- Each row inserted has its two foreign keys checked by a query per row
-- (partitions, account_users) that PostgreSQL plans in the session and
-- keeps.  On a table of a few hundred associations (3 pages) the planner
-- prices a sequential scan as high as the primary key's index, picks it, and
-- every job then reads every association: 10 us a row instead of 3 (issue
-- 7: 2.1 s of an import of 296,132 jobs).  Sequential scans are off in here, so
-- that those checks are planned on the keys' indexes; the work table has no
-- index and is still read in sequence, the jobs table through its primary
-- key (as the planner does anyway once it holds more than a few jobs).  JIT
-- is off because the cost of a plan forced so passes jit_above_cost: it
-- would compile each statement (0.15 s) for rows it handles in microseconds.
--
-- A run twice in the work table makes ON CONFLICT raise 21000 or the plain
-- INSERT 23505: only then are the repeats looked for and folded (the line
-- with the latest time wins, on a tie the later line), and the statements
-- run again.  If they still fail (a constraint nothing checked before, a
-- trigger of the centre's, a concurrent import of the same jobs), the jobs
-- go one by one and the failing ones are rejected with the error's SQLSTATE
-- and message.
CREATE FUNCTION @extschema@._import_upsert(with_exclusive boolean,
    OUT imported bigint, OUT updated bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
SET jit = off
AS $$
DECLARE
    cols text := 'cluster, job_id, user_name, account, partition, qos, state, submit_time,
                  eligible_time, start_time, end_time, time_limit, tres, cpus, mem_mb, gpus,
                  nodes, exclusive, suspended, resv_id';
    vals text := 'w.cluster, w.job_id, w.user_name, w.account, w.partition, w.qos, w.state,
                  w.submit_time, w.eligible_time, w.start_time, w.end_time, w.time_limit,
                  w.tres, w.cpus, w.mem_mb, w.gpus, w.nodes, COALESCE(w.exclusive, false),
                  w.suspended, w.resv_id';
    excl text := CASE WHEN with_exclusive THEN 'excluded.exclusive' ELSE 'j.exclusive' END;
    stored_jobs text;
    new_jobs text;
    one record;
    attempt integer;
    st text;
    msg text;
    part record;
    months tstzrange[];
BEGIN
    -- %1$s narrows the work table's jobs (one line, for the one-by-one retry)
    stored_jobs := format($q$
        WITH up AS (
            INSERT INTO @extschema@.jobs AS j (%2$s)
            SELECT %3$s
              FROM pg_temp._fs_import_jobs w
             WHERE w.kind = 'job' AND w.stored %%1$s
            ON CONFLICT (cluster, job_id, submit_time) DO UPDATE
               SET user_name = excluded.user_name, account = excluded.account,
                   partition = excluded.partition, qos = excluded.qos, state = excluded.state,
                   eligible_time = excluded.eligible_time,
                   start_time = excluded.start_time, end_time = excluded.end_time,
                   time_limit = excluded.time_limit, tres = excluded.tres, cpus = excluded.cpus,
                   mem_mb = excluded.mem_mb, gpus = excluded.gpus, nodes = excluded.nodes,
                   exclusive = %1$s, suspended = excluded.suspended, resv_id = excluded.resv_id
             WHERE (j.user_name, j.account, j.partition, j.qos, j.state,
                    j.eligible_time, j.start_time, j.end_time, j.time_limit, j.tres, j.cpus,
                    j.mem_mb, j.gpus, j.nodes, j.exclusive, j.suspended, j.resv_id)
                   IS DISTINCT FROM
                   (excluded.user_name, excluded.account, excluded.partition, excluded.qos,
                    excluded.state, excluded.eligible_time,
                    excluded.start_time, excluded.end_time, excluded.time_limit, excluded.tres,
                    excluded.cpus, excluded.mem_mb, excluded.gpus, excluded.nodes, %1$s,
                    excluded.suspended, excluded.resv_id)
               AND (GREATEST(excluded.submit_time, excluded.eligible_time, excluded.start_time, excluded.end_time)
                    >= GREATEST(j.submit_time, j.eligible_time, j.start_time, j.end_time)
                    -- a run seen started (or ended) is newer than a record of it
                    -- not started (not ended), whatever its eligible time: a
                    -- pending run held to a later BeginTime and then started
                    -- early (scontrol update StartTime=now, a release) has a
                    -- stored eligible time after its start and end (issue 13)
                    OR (j.start_time IS NULL AND excluded.start_time IS NOT NULL)
                    OR (j.end_time IS NULL AND excluded.end_time IS NOT NULL))
               -- and never the other way: a run does not un-start nor un-end
               AND NOT (j.start_time IS NOT NULL AND excluded.start_time IS NULL)
               AND NOT (j.end_time IS NOT NULL AND excluded.end_time IS NULL)
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
        -- (one index probe per run, in the partition of its submit time:
        -- a hash join would read every run of the history).  One statement
        -- per monthly partition the runs' submit times fall in, bounded by
        -- its month as constants: the planner keeps that partition alone
        -- and each probe is one index lookup; through every partition, the
        -- Append of 30 partitions was pruned again for each of the 10^5
        -- probes (0.44-0.60 s -> 0.27-0.37 s at 10^6 runs,
        -- docs/performance.md#one-day-into-a-large-history).  Then the runs
        -- outside every monthly partition (jobs_default) through jobs.  An
        -- export of more than 3 months (a backfill) is probed through jobs
        -- at once: each statement reads the whole work table.
        SET LOCAL enable_hashjoin = off;
        SET LOCAL enable_mergejoin = off;
        months := '{}';
        FOR part IN
            WITH m AS (
                SELECT DISTINCT date_trunc('month', w.submit_time AT TIME ZONE 'UTC') AS m
                  FROM pg_temp._fs_import_jobs w
                 WHERE w.kind = 'job' AND NOT w.stored),
            p AS (
                SELECT DISTINCT p.month_start, p.month_end
                  FROM @extschema@.job_partitions() p
                  JOIN m ON p.month_start < (m.m + interval '1 month') AT TIME ZONE 'UTC'
                        AND p.month_end > m.m AT TIME ZONE 'UTC')
            SELECT p.month_start, p.month_end FROM p
             WHERE (SELECT count(*) FROM m) <= 3
        LOOP
            EXECUTE format($q$
                UPDATE pg_temp._fs_import_jobs w SET stored = true
                  FROM @extschema@.jobs x
                 WHERE w.kind = 'job' AND NOT w.stored AND x.cluster = w.cluster AND x.job_id = w.job_id
                   AND x.submit_time = w.submit_time
                   AND w.submit_time >= %1$L AND w.submit_time < %2$L
                   AND x.submit_time >= %1$L AND x.submit_time < %2$L$q$, part.month_start, part.month_end);
            months := months || tstzrange(part.month_start, part.month_end);
        END LOOP;
        UPDATE pg_temp._fs_import_jobs w SET stored = true
          FROM @extschema@.jobs x
         WHERE w.kind = 'job' AND NOT w.stored AND x.cluster = w.cluster AND x.job_id = w.job_id
           AND x.submit_time = w.submit_time
           AND NOT w.submit_time OPERATOR(pg_catalog.<@) ANY (months);
        RESET enable_hashjoin;
        RESET enable_mergejoin;
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
                       row_number() OVER (PARTITION BY d.cluster, d.job_id, d.submit_time
                                          ORDER BY GREATEST(d.submit_time, d.eligible_time, d.start_time, d.end_time) DESC,
                                                   d.line_no DESC) AS rn
                  FROM pg_temp._fs_import_jobs d
                 WHERE d.kind = 'job'
                   AND (d.cluster, d.job_id, d.submit_time) IN
                       (SELECT x.cluster, x.job_id, x.submit_time FROM pg_temp._fs_import_jobs x
                         WHERE x.kind = 'job' GROUP BY 1, 2, 3 HAVING count(*) > 1)) r
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

-- Runs of one job id (issue 18).  slurmdbd keeps one row per run, as jobs
-- does: a job id reused after MaxJobId wrapped is another job, and each run
-- of a requeued job is a row of its own, submitted at the instant of the
-- requeue.  Most lines of an export are the only run of their id; the few
-- ids with other runs, in the export or stored, are gathered here
-- (pg_temp._fs_import_runs) and checked before the upsert:
--   * runs of one id cannot overlap in time (an id is unique among live
--     jobs, and a requeued run has ended before the next one starts): a line
--     whose run overlaps another run of its id is rejected (23514), the later
--     submitted of two lines of the export;
--   * a stored run of another job under the same id (not a run that was
--     requeued) is a reused id: both are kept, and import_warnings says so,
--     since sacct without --duplicates prints only the newest job of an id.
-- After the upsert, _import_close_runs closes the stored runs that an
-- export without --duplicates left open.
--
-- The stored runs looked at are the ones that matter to those checks and
-- no more: the runs still open (pending, running, suspended) and the runs
-- that ended after the export's earliest start or submit (only they can
-- overlap a run of the export).  They are found through the indexes on the
-- open and recent runs, each partition's, in one range scan each, and
-- hashed: a lookup of every line's id in the whole history would probe
-- every monthly partition for every line (issue 18: 10^5 lines into 10^7
-- runs).  A reused id whose older job ended before the export's earliest
-- start is kept all the same (another submit time is another run); only
-- its warning is not given.
CREATE FUNCTION @extschema@._import_runs(import_id bigint)
RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
    since timestamptz;
BEGIN
    IF to_regclass('pg_temp._fs_import_runs') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_runs; END IF;
    SELECT min(LEAST(w.start_time, w.submit_time)) INTO since
      FROM pg_temp._fs_import_jobs w WHERE w.kind = 'job';
    IF since IS NULL THEN
        RETURN;
    END IF;
    -- every run of the ids with other runs: the export's (line_no) and the
    -- stored open and recent ones it does not repeat (line_no NULL)
    CREATE TEMP TABLE _fs_import_runs AS
    -- (the recent runs read once, with what the stored side below needs:
    -- on a Citus cluster no statement here may correlate jobs with a TEMP
    -- table, docs/citus.md)
    WITH recent AS MATERIALIZED (
        SELECT x.cluster, x.job_id, x.submit_time, x.user_name, x.account, x.state, x.start_time, x.end_time
          FROM @extschema@.jobs x
         WHERE x.start_time IS NOT NULL AND COALESCE(x.end_time, 'infinity'::timestamptz) > since
        UNION ALL
        SELECT x.cluster, x.job_id, x.submit_time, x.user_name, x.account, x.state, x.start_time, x.end_time
          FROM @extschema@.jobs x
         WHERE x.state = 'PENDING'),
    ids AS (
        SELECT w.cluster, w.job_id FROM pg_temp._fs_import_jobs w
         WHERE w.kind = 'job'
         GROUP BY 1, 2 HAVING count(DISTINCT w.submit_time) > 1
        UNION
        SELECT w.cluster, w.job_id FROM pg_temp._fs_import_jobs w
          JOIN recent x ON x.cluster = w.cluster AND x.job_id = w.job_id AND x.submit_time <> w.submit_time
         WHERE w.kind = 'job')
    SELECT w.line_no, w.cluster, w.job_id, w.submit_time, w.user_name, w.account, w.state,
           w.start_time, w.end_time
      FROM pg_temp._fs_import_jobs w JOIN ids USING (cluster, job_id)
     WHERE w.kind = 'job'
    UNION ALL
    SELECT NULL::bigint, x.cluster, x.job_id, x.submit_time, x.user_name, x.account, x.state,
           x.start_time, x.end_time
      FROM recent x JOIN ids USING (cluster, job_id)
     WHERE NOT EXISTS (SELECT 1 FROM pg_temp._fs_import_jobs w
                        WHERE w.kind = 'job' AND w.cluster = x.cluster AND w.job_id = x.job_id
                          AND w.submit_time = x.submit_time);
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n = 0 THEN
        DROP TABLE pg_temp._fs_import_runs;
        RETURN;
    END IF;
    ALTER TABLE pg_temp._fs_import_runs ADD COLUMN close_at timestamptz, ADD COLUMN next_line bigint,
        ADD COLUMN next_user text, ADD COLUMN next_account text;
    ANALYZE pg_temp._fs_import_runs;

    -- a stored run still open has ended by the time the next run of its
    -- id was submitted (not before it started)
    UPDATE pg_temp._fs_import_runs r
       SET close_at = n.submit_time, next_line = n.line_no, next_user = n.user_name, next_account = n.account
      FROM (SELECT DISTINCT ON (o.cluster, o.job_id, o.submit_time)
                   o.cluster, o.job_id, o.submit_time AS open_submit, f.submit_time, f.line_no,
                   f.user_name, f.account
              FROM pg_temp._fs_import_runs o
              JOIN pg_temp._fs_import_runs f
                ON f.cluster = o.cluster AND f.job_id = o.job_id AND f.line_no IS NOT NULL
               AND f.submit_time > o.submit_time
             WHERE o.line_no IS NULL AND o.state IN ('PENDING', 'RUNNING', 'SUSPENDED')
               AND (o.start_time IS NULL OR f.submit_time >= o.start_time)
             ORDER BY o.cluster, o.job_id, o.submit_time, f.submit_time) n
     WHERE r.line_no IS NULL AND r.cluster = n.cluster AND r.job_id = n.job_id
       AND r.submit_time = n.open_submit;

    -- overlapping runs: the line is rejected, against a stored run or an
    -- earlier submitted line of the export
    UPDATE pg_temp._fs_import_jobs w
       SET kind = 'reject', sqlstate = '23514',
           reason = format('job %s: this run (submitted %s, ran %s to %s) overlaps its run submitted %s (ran %s to %s); runs of one job id cannot overlap',
                           o.job_id, o.f_submit, o.f_start, COALESCE(o.f_end::text, 'now'),
                           o.g_submit, o.g_start, COALESCE(o.g_end::text, 'now'))
      FROM (SELECT DISTINCT ON (f.line_no) f.line_no, f.job_id, f.submit_time AS f_submit,
                   f.start_time AS f_start, f.end_time AS f_end, g.submit_time AS g_submit,
                   g.start_time AS g_start, COALESCE(g.end_time, g.close_at) AS g_end
              FROM pg_temp._fs_import_runs f
              JOIN pg_temp._fs_import_runs g
                ON g.cluster = f.cluster AND g.job_id = f.job_id AND g.submit_time <> f.submit_time
               AND (g.line_no IS NULL OR g.submit_time < f.submit_time)
             WHERE f.line_no IS NOT NULL AND f.start_time IS NOT NULL AND g.start_time IS NOT NULL
               AND f.start_time < COALESCE(g.end_time, g.close_at, 'infinity')
               AND g.start_time < COALESCE(f.end_time, 'infinity')
               -- a run of zero length overlaps nothing
               AND f.start_time < COALESCE(f.end_time, 'infinity')
               AND g.start_time < COALESCE(g.end_time, g.close_at, 'infinity')
             ORDER BY f.line_no, g.submit_time) o
     WHERE w.line_no = o.line_no AND w.kind = 'job';

    -- reused ids
    INSERT INTO @extschema@.import_warnings (import_id, line_no, job_id, warning)
    SELECT DISTINCT ON (f.line_no) _import_runs.import_id, f.line_no, f.job_id,
           format('job id %s reused: the job submitted %s by %s (account %s) is kept beside this one (submitted %s by %s); sacct without --duplicates prints only the newest job of a reused id',
                  f.job_id, g.submit_time, g.user_name, g.account, f.submit_time, f.user_name)
      FROM pg_temp._fs_import_runs f
      JOIN pg_temp._fs_import_runs g
        ON g.cluster = f.cluster AND g.job_id = f.job_id AND g.line_no IS NULL
       AND g.submit_time < f.submit_time AND g.state <> 'REQUEUED' AND g.close_at IS NULL
      JOIN pg_temp._fs_import_jobs w ON w.line_no = f.line_no AND w.kind = 'job'
     WHERE f.line_no IS NOT NULL
     ORDER BY f.line_no, g.submit_time DESC;
END
$$;

-- The stored runs that _import_runs found still open while a later run of
-- their id came, closed at that run's Submit: REQUEUED when it is the same
-- user's in the same account (slurmctld's requeue: the requeued run ends,
-- and the next one is submitted, at the instant of the requeue), CANCELLED
-- otherwise (a reused id; a run that never started).  Only an export
-- without --duplicates leaves them: with it, the requeued run's own line
-- comes and updates the stored one.  Each is noted in import_warnings.
CREATE FUNCTION @extschema@._import_close_runs(import_id bigint)
RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF to_regclass('pg_temp._fs_import_runs') IS NULL THEN
        RETURN;
    END IF;
    WITH c AS (
        UPDATE @extschema@.jobs j
           SET state = CASE WHEN j.start_time IS NOT NULL AND (j.user_name, j.account) = (r.next_user, r.next_account)
                            THEN 'REQUEUED' ELSE 'CANCELLED' END,
               end_time = r.close_at
          FROM pg_temp._fs_import_runs r
          JOIN pg_temp._fs_import_jobs w ON w.line_no = r.next_line AND w.kind = 'job'
         WHERE r.line_no IS NULL AND r.close_at IS NOT NULL
           AND j.cluster = r.cluster AND j.job_id = r.job_id AND j.submit_time = r.submit_time
           AND j.state IN ('PENDING', 'RUNNING', 'SUSPENDED')
        RETURNING r.next_line, j.job_id, j.submit_time, r.state AS was, j.state, j.end_time)
    INSERT INTO @extschema@.import_warnings (import_id, line_no, job_id, warning)
    SELECT _import_close_runs.import_id, c.next_line, c.job_id,
           format('job %s: its run submitted %s was still %s in fairshare.jobs and a later run of the id came: closed as %s at %s, the later run''s Submit; an export with --duplicates gives the run''s own end',
                  c.job_id, c.submit_time, c.was, c.state, c.end_time)
      FROM c;
    DROP TABLE pg_temp._fs_import_runs;
END
$$;

-- Rejected lines into import_rejects (fetching the text of lines rejected
-- after parsing from the staging table); with all_or_nothing, any reject
-- raises the first one's SQLSTATE and nothing stays imported.
CREATE FUNCTION @extschema@._import_rejects(import_id bigint, lines regclass, src regclass,
                                            all_or_nothing boolean)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
    late bigint;
    first record;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s WHERE kind = ''reject''', lines) INTO n;
    IF n = 0 THEN
        RETURN 0;
    END IF;
    EXECUTE format('SELECT line_no, sqlstate, reason FROM %s WHERE kind = ''reject'' ORDER BY line_no LIMIT 1', lines)
       INTO first;
    IF all_or_nothing THEN
        RAISE EXCEPTION 'line %: %', first.line_no, first.reason
            USING ERRCODE = first.sqlstate,
                  DETAIL = format('%s line(s) rejected; nothing was imported (all_or_nothing).', n),
                  HINT = 'Fix those lines, or import with all_or_nothing => false to keep the good lines and find the bad ones in fairshare.import_rejects.';
    END IF;
    -- the text of lines rejected after parsing, from the staging table
    -- (analyzed first, so that the join hashes the few rejects)
    EXECUTE format('SELECT count(*) FROM %s WHERE kind = ''reject'' AND line IS NULL', lines) INTO late;
    IF late > 0 THEN
        EXECUTE format('ANALYZE %s', src);
        EXECUTE format('UPDATE %s l SET line = s.line FROM %s s
                         WHERE l.kind = ''reject'' AND l.line IS NULL AND s.line_no = l.line_no', lines, src);
    END IF;
    -- (a line staged with an invalid byte is kept with it written \xNN)
    EXECUTE format('INSERT INTO @extschema@.import_rejects (import_id, line_no, job_id, sqlstate, reason, line)
                    SELECT $1, l.line_no, l.job_id, l.sqlstate, l.reason, @extschema@._import_line_text(l.line) FROM %s l
                     WHERE l.kind = ''reject''', lines) USING import_id;
    RETURN n;
END
$$;

-- ---------------------------------------------------------------------------
-- Slurm
-- ---------------------------------------------------------------------------

-- The tasks of a job array's pending remainder: "123_[5-7,9]" gives 123_5,
-- 123_6, 123_7, 123_9.  Slurm's range syntax: items N, N-M or N-M:S
-- separated by commas, and a "%K" throttle at the end.
CREATE FUNCTION @extschema@._array_tasks(job_id text)
RETURNS SETOF text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT pg_catalog.split_part(_array_tasks.job_id, '_', 1) OPERATOR(pg_catalog.||) '_'
           OPERATOR(pg_catalog.||) n::text
      FROM pg_catalog.unnest(pg_catalog.string_to_array(pg_catalog.regexp_replace(
               pg_catalog.substring(_array_tasks.job_id, '_\[([^]]*)\]'), '%.*$', ''), ',')) AS r(item),
           pg_catalog.generate_series(
               pg_catalog.split_part(pg_catalog.split_part(r.item, ':', 1), '-', 1)::integer,
               COALESCE(NULLIF(pg_catalog.split_part(pg_catalog.split_part(r.item, ':', 1), '-', 2), ''),
                        pg_catalog.split_part(pg_catalog.split_part(r.item, ':', 1), '-', 1))::integer,
               GREATEST(COALESCE(NULLIF(pg_catalog.split_part(r.item, ':', 2), ''), '1')::integer, 1)) AS n
     WHERE r.item OPERATOR(pg_catalog.~) '^[0-9]{1,9}(-[0-9]{1,9}(:[0-9]{1,9})?)?$';
END;

CREATE FUNCTION @extschema@.import_sacct(
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
        -- them (a hash of every job: 0.1 s for 296,132 jobs); the stored
        -- jobs of their ids read first, into a work table.
        IF to_regclass('pg_temp._fs_import_lone') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_lone; END IF;
        CREATE TEMP TABLE _fs_import_lone AS
        SELECT DISTINCT x.cluster, x.job_id
          FROM @extschema@.jobs x
         WHERE (x.cluster, x.job_id) IN (SELECT w.cluster, w.job_id FROM pg_temp._fs_import_jobs w
                                          WHERE w.kind = 'lone_step');
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
           AND NOT EXISTS (SELECT 1 FROM pg_temp._fs_import_lone x WHERE x.cluster = l.cluster AND x.job_id = l.job_id);
        DROP TABLE pg_temp._fs_import_lone;
    END IF;

    IF all_or_nothing THEN
        PERFORM @extschema@._import_rejects(import_sacct.import_id, 'pg_temp._fs_import_jobs', src, true);
    END IF;

    IF n_remainders > 0 THEN
        -- Job arrays.  A pending remainder ("123_[5-10]") is one record
        -- whatever its range: of several in the export the latest line is
        -- kept.  It is stale when a task in its range is known (stored, or
        -- in this export) with a later time: an older export loaded after
        -- a newer one.  The stored tasks of every remainder, read first.
        IF to_regclass('pg_temp._fs_import_tasks') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_tasks; END IF;
        CREATE TEMP TABLE _fs_import_tasks AS
        SELECT x.cluster, x.job_id, GREATEST(x.submit_time, x.eligible_time, x.start_time, x.end_time) AS latest
          FROM @extschema@.jobs x
         WHERE (x.cluster, x.job_id) IN (SELECT w.cluster, task.id
                                           FROM pg_temp._fs_import_jobs w,
                                                @extschema@._array_tasks(w.job_id) AS task(id)
                                          WHERE w.kind = 'job' AND strpos(w.job_id, '_[') > 0);
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
                OR EXISTS (SELECT 1 FROM pg_temp._fs_import_tasks j
                            WHERE j.cluster = t.cluster AND j.job_id = t.id AND j.latest > t.latest))
        UPDATE pg_temp._fs_import_jobs w SET kind = verdict.kind
          FROM verdict WHERE w.line_no = verdict.line_no;
        DROP TABLE pg_temp._fs_import_tasks;
    END IF;

    removed := 0;
    IF n_array_lines > 0 THEN
        -- A stored remainder is replaced by what a newer export says of the
        -- array: its own remainder record, or (when every task has started)
        -- the tasks' lines.
        -- The stored remainders found first, those the export repeats left
        -- out, then removed by their key.
        IF to_regclass('pg_temp._fs_import_gone') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_gone; END IF;
        CREATE TEMP TABLE _fs_import_gone AS
        WITH arrays AS (
            SELECT w.cluster, split_part(w.job_id, '_', 1) AS base,
                   max(GREATEST(w.submit_time, w.eligible_time, w.start_time, w.end_time)) AS latest
              FROM pg_temp._fs_import_jobs w
             WHERE w.kind = 'job' AND strpos(w.job_id, '_') > 0
             GROUP BY 1, 2)
        SELECT j.cluster, j.job_id, j.submit_time
          FROM @extschema@.jobs j
          JOIN arrays a
            ON j.state = 'PENDING' AND j.cluster = a.cluster
           AND strpos(j.job_id, '_[') > 0 AND split_part(j.job_id, '_', 1) = a.base
           AND GREATEST(j.submit_time, j.eligible_time) <= a.latest;
        DELETE FROM pg_temp._fs_import_gone g
         WHERE EXISTS (SELECT 1 FROM pg_temp._fs_import_jobs w
                        WHERE w.kind = 'job' AND w.cluster = g.cluster AND w.job_id = g.job_id);
        DELETE FROM @extschema@.jobs j
         USING pg_temp._fs_import_gone g
         WHERE j.cluster = g.cluster AND j.job_id = g.job_id AND j.submit_time = g.submit_time;
        GET DIAGNOSTICS removed = ROW_COUNT;
        DROP TABLE pg_temp._fs_import_gone;
    END IF;

    PERFORM @extschema@._import_runs(import_sacct.import_id);
    IF all_or_nothing THEN
        PERFORM @extschema@._import_rejects(import_sacct.import_id, 'pg_temp._fs_import_jobs', src, true);
    END IF;
    upserted := @extschema@._import_upsert(false);
    imported := upserted.imported;
    updated := upserted.updated;
    PERFORM @extschema@._import_close_runs(import_sacct.import_id);

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
COMMENT ON FUNCTION @extschema@.import_sacct(text, text, boolean, boolean, text) IS
'Imports the sacct --parsable2 export staged in import_staging into fairshare.jobs; returns lines read, jobs imported/updated/unchanged, lines folded (steps, repeats), skipped and rejected.';

-- ---------------------------------------------------------------------------
-- PBS
-- ---------------------------------------------------------------------------

-- A job's records in one load fold into one row per run: an R (rerun)
-- record ends a run, REQUEUED, and the records after it are the next run,
-- submitted at the R record's instant, as slurmdbd records a requeued Slurm
-- job (issue 18).  Within a run the latest record (by its time, then its
-- line) gives the state; each other column is the latest value any record
-- gave, merged with the stored run for what this load does not say (a D
-- record names no user).
--   Q -> PENDING; S, s, T, r -> RUNNING; z -> SUSPENDED; R, C -> REQUEUED;
--   D -> CANCELLED; A -> FAILED; E -> CANCELLED if the job was deleted (a D
--   record, or stored CANCELLED), else by Exit_status: 0 COMPLETED,
--   -29 (JOB_EXEC_KILL_WALLTIME) TIMEOUT, -26/-27 (KILL_VMEM/KILL_MEM)
--   OUT_OF_MEMORY, anything else FAILED.
CREATE FUNCTION @extschema@.import_pbs(
    cluster text, time_zone text DEFAULT NULL, account_from text DEFAULT 'account',
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
    tz text;
    created record;
    upserted record;
    jobs_accepted bigint;
    lines_accepted bigint;
BEGIN
    IF cluster IS NULL THEN
        RAISE EXCEPTION 'cluster must not be NULL' USING ERRCODE = '22004',
            HINT = 'A PBS accounting log does not name its cluster: pass it.';
    END IF;
    IF account_from IS NULL OR account_from NOT IN ('account', 'project', 'group') THEN
        RAISE EXCEPTION 'account_from must be account, project or group, not %', COALESCE(quote_literal(account_from), 'NULL')
            USING ERRCODE = '22023',
                  HINT = 'It names the record field that holds the fairshare account: account (qsub -A), project (qsub -P) or group.';
    END IF;
    IF create_missing IS NULL OR all_or_nothing IS NULL THEN
        RAISE EXCEPTION 'create_missing and all_or_nothing must not be NULL' USING ERRCODE = '22004';
    END IF;
    tz := @extschema@._import_zone(cluster, time_zone);

    -- one import at a time: see import_sacct
    LOCK TABLE @extschema@.jobs IN SHARE ROW EXCLUSIVE MODE;

    INSERT INTO @extschema@.imports (source, cluster, time_zone, staging)
    VALUES ('pbs', cluster, tz, src::text)
    RETURNING imports.import_id INTO import_pbs.import_id;

    IF to_regclass('pg_temp._fs_import_lines') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_lines; END IF;
    EXECUTE format($q$
        CREATE TEMP TABLE _fs_import_lines AS
        SELECT q.line_no, (q.r).kind, (q.r).rec_time, (q.r).rec_type, (q.r).job_id,
               (q.r).user_name,
               CASE $2 WHEN 'account' THEN (q.r).account WHEN 'project' THEN (q.r).project
                       ELSE (q.r).group_name END AS account,
               (q.r).queue AS partition, (q.r).submit_time, (q.r).eligible_time,
               (q.r).start_time, (q.r).end_time, (q.r).exit_status, (q.r).time_limit,
               (q.r).tres, (q.r).cpus, (q.r).mem_mb, (q.r).gpus, (q.r).nodes,
               (q.r).exclusive, (q.r).sqlstate, (q.r).reason,
               CASE WHEN (q.r).kind = 'reject' THEN q.line END AS line
          FROM (SELECT s.line_no, s.line, @extschema@._pbs_record(s.line, $1) AS r
                  FROM %s s OFFSET 0) q$q$, src)
    USING tz, account_from;
    GET DIAGNOSTICS lines_read = ROW_COUNT;
    ANALYZE pg_temp._fs_import_lines;

    -- every stored run of the load's job ids, read once under the lock:
    -- the runs the records continue, and _import_runs's stored runs
    IF to_regclass('pg_temp._fs_import_stored') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_stored; END IF;
    CREATE TEMP TABLE _fs_import_stored AS
    SELECT x.* FROM @extschema@.jobs x
     WHERE x.cluster = import_pbs.cluster
       AND x.job_id IN (SELECT l.job_id FROM pg_temp._fs_import_lines l WHERE l.kind = 'job');
    ANALYZE pg_temp._fs_import_stored;

    -- one row per job: the latest value of each column (ORDER BY ... DESC,
    -- first non-NULL), merged with the stored row
    IF to_regclass('pg_temp._fs_import_jobs') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_jobs; END IF;
    CREATE TEMP TABLE _fs_import_jobs AS
    WITH seg AS (
        -- each record's run: the R (rerun) records before it
        SELECT l.*,
               count(*) FILTER (WHERE l.rec_type = 'R') OVER w AS run_no,
               max(l.rec_time) FILTER (WHERE l.rec_type = 'R') OVER w AS rerun_at
          FROM pg_temp._fs_import_lines l
         WHERE l.kind = 'job'
        WINDOW w AS (PARTITION BY l.job_id ORDER BY l.rec_time, l.line_no
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)),
    g0 AS (
        SELECT l.job_id, l.run_no, max(l.rerun_at) AS rerun_at, min(l.rec_time) AS first_time,
               (array_agg(l.line_no ORDER BY l.rec_time DESC, l.line_no DESC))[1] AS line_no,
               (array_agg(l.rec_type ORDER BY l.rec_time DESC, l.line_no DESC))[1] AS last_type,
               max(l.rec_time) AS last_time,
               bool_or(l.rec_type = 'D') AS deleted,
               max(l.rec_time) FILTER (WHERE l.rec_type IN ('D', 'A')) AS stopped_at,
               (array_agg(l.user_name ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.user_name IS NOT NULL))[1] AS user_name,
               (array_agg(l.account ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.account IS NOT NULL))[1] AS account,
               (array_agg(l.partition ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.partition IS NOT NULL))[1] AS partition,
               (array_agg(l.submit_time ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.submit_time IS NOT NULL))[1] AS submit_time,
               (array_agg(l.eligible_time ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.eligible_time IS NOT NULL))[1] AS eligible_time,
               (array_agg(l.start_time ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.start_time IS NOT NULL))[1] AS start_time,
               (array_agg(l.end_time ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.end_time IS NOT NULL))[1] AS end_time,
               (array_agg(l.exit_status ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.exit_status IS NOT NULL))[1] AS exit_status,
               (array_agg(l.time_limit ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.time_limit IS NOT NULL))[1] AS time_limit,
               (array_agg(l.tres ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.tres IS NOT NULL))[1] AS tres,
               (array_agg(l.cpus ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.tres IS NOT NULL))[1] AS cpus,
               (array_agg(l.mem_mb ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.tres IS NOT NULL))[1] AS mem_mb,
               (array_agg(l.gpus ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.tres IS NOT NULL))[1] AS gpus,
               (array_agg(l.nodes ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.tres IS NOT NULL))[1] AS nodes,
               (array_agg(l.exclusive ORDER BY l.rec_time DESC, l.line_no DESC) FILTER (WHERE l.tres IS NOT NULL))[1] AS exclusive
          FROM seg l
         GROUP BY l.job_id, l.run_no),
    g AS (
        -- the run's Submit: after the k-th R record, its instant (the run
        -- before ended then and the job went back to the queue); records
        -- before any R of this load continue the stored run they fall in,
        -- or start the run after a stored run that was requeued, or are
        -- the job's first run (ctime).  A later ctime than every stored run
        -- of the id is another job under a reused id.
        SELECT g0.*,
               CASE WHEN g0.run_no > 0 THEN g0.rerun_at
                    ELSE COALESCE(c.submit_time,
                                  CASE WHEN p.state = 'REQUEUED' AND p.end_time <= g0.first_time
                                            AND (g0.submit_time IS NULL OR g0.submit_time <= p.submit_time)
                                       THEN p.end_time END,
                                  g0.submit_time) END AS run_submit
          FROM g0
          LEFT JOIN LATERAL (
              SELECT x.submit_time FROM pg_temp._fs_import_stored x
               WHERE x.cluster = import_pbs.cluster AND x.job_id = g0.job_id
                 AND x.submit_time <= g0.first_time
                 AND (x.end_time IS NULL OR x.end_time >= g0.first_time)
                 AND (g0.submit_time IS NULL OR x.submit_time >= g0.submit_time)
               ORDER BY x.submit_time DESC LIMIT 1) c ON g0.run_no = 0
          LEFT JOIN LATERAL (
              SELECT x.submit_time, x.state, x.end_time FROM pg_temp._fs_import_stored x
               WHERE x.cluster = import_pbs.cluster AND x.job_id = g0.job_id
               ORDER BY x.submit_time DESC LIMIT 1) p ON g0.run_no = 0),
    s AS (
        SELECT g.*, j.job_id IS NOT NULL AS stored,
               CASE
                 WHEN g.last_type = 'Q' THEN 'PENDING'
                 WHEN g.last_type IN ('S', 's', 'T', 'r') THEN 'RUNNING'
                 WHEN g.last_type = 'z' THEN 'SUSPENDED'
                 WHEN g.last_type IN ('R', 'C') THEN 'REQUEUED'
                 WHEN g.last_type = 'D' THEN 'CANCELLED'
                 WHEN g.last_type = 'A' THEN 'FAILED'
                 WHEN g.deleted OR j.state = 'CANCELLED' THEN 'CANCELLED'
                 WHEN g.exit_status = 0 THEN 'COMPLETED'
                 WHEN g.exit_status = -29 THEN 'TIMEOUT'
                 WHEN g.exit_status IN (-26, -27) THEN 'OUT_OF_MEMORY'
                 ELSE 'FAILED'
               END AS state,
               j.user_name AS j_user, j.account AS j_account, j.partition AS j_partition,
               j.qos AS j_qos, j.submit_time AS j_submit, j.eligible_time AS j_eligible,
               j.start_time AS j_start, j.end_time AS j_end, j.time_limit AS j_limit,
               j.tres AS j_tres, j.cpus AS j_cpus, j.mem_mb AS j_mem, j.gpus AS j_gpus,
               j.nodes AS j_nodes, j.exclusive AS j_exclusive
          FROM g
          -- the stored run these records continue, if any
          LEFT JOIN pg_temp._fs_import_stored j
            ON j.cluster = import_pbs.cluster AND j.job_id = g.job_id AND j.submit_time = g.run_submit)
    SELECT s.line_no, 'job'::text AS kind, import_pbs.cluster AS cluster, s.job_id,
           COALESCE(s.user_name, s.j_user) AS user_name,
           COALESCE(s.account, s.j_account) AS account,
           COALESCE(s.partition, s.j_partition) AS partition,
           s.j_qos AS qos, s.state,
           COALESCE(s.run_submit, s.j_submit) AS submit_time,
           -- a rerun is eligible from its Submit at the earliest (its
           -- records keep the job's first etime)
           CASE WHEN s.run_submit > s.submit_time
                THEN GREATEST(COALESCE(s.eligible_time, s.j_eligible), s.run_submit)
                ELSE COALESCE(s.eligible_time, s.j_eligible) END AS eligible_time,
           CASE WHEN s.state = 'PENDING' THEN NULL ELSE COALESCE(s.start_time, s.j_start) END AS start_time,
           CASE WHEN s.state IN ('PENDING', 'RUNNING', 'SUSPENDED') THEN NULL
                WHEN s.state = 'REQUEUED' THEN COALESCE(s.end_time, s.j_end, s.last_time)
                ELSE COALESCE(s.end_time, s.stopped_at, s.j_end, s.last_time) END AS end_time,
           COALESCE(s.time_limit, s.j_limit) AS time_limit,
           COALESCE(s.tres, s.j_tres) AS tres,
           COALESCE(s.cpus, s.j_cpus, 0) AS cpus,
           COALESCE(s.mem_mb, s.j_mem, 0) AS mem_mb,
           COALESCE(s.gpus, s.j_gpus, 0) AS gpus,
           COALESCE(s.nodes, s.j_nodes, 1) AS nodes,
           COALESCE(s.exclusive, s.j_exclusive, false) AS exclusive,
           NULL::text AS sqlstate, NULL::text AS reason, s.stored,
           '0'::interval AS suspended, NULL::integer AS resv_id
      FROM s;
    ANALYZE pg_temp._fs_import_jobs;

    -- what the jobs table needs and no record of the job gave
    UPDATE pg_temp._fs_import_jobs w
       SET kind = 'reject',
           sqlstate = CASE WHEN w.user_name IS NULL OR w.account IS NULL OR w.partition IS NULL
                             OR w.submit_time IS NULL THEN '22004' ELSE '23514' END,
           reason = CASE
             WHEN w.user_name IS NULL OR w.partition IS NULL OR w.submit_time IS NULL
               THEN format('job %s: no record in this load%s gives its %s (Q, S and E records do)',
                           w.job_id, CASE WHEN w.stored THEN '' ELSE ' or in fairshare.jobs' END,
                           concat_ws(', ', CASE WHEN w.user_name IS NULL THEN 'user' END,
                                           CASE WHEN w.partition IS NULL THEN 'queue' END,
                                           CASE WHEN w.submit_time IS NULL THEN 'ctime' END))
             WHEN w.account IS NULL
               THEN format('job %s: its records have no %s= (account_from => %L)',
                           w.job_id, account_from, account_from)
             WHEN w.eligible_time < w.submit_time THEN format('job %s: etime is before ctime', w.job_id)
             ELSE format('job %s: end is before start', w.job_id)
           END
     WHERE w.user_name IS NULL OR w.account IS NULL OR w.partition IS NULL OR w.submit_time IS NULL
        OR w.eligible_time < w.submit_time OR w.end_time < w.start_time;

    created := @extschema@._import_resolve(create_missing);
    created_accounts := created.created_accounts;
    created_users := created.created_users;
    created_partitions := created.created_partitions;

    -- a rejected job rejects every record of it
    UPDATE pg_temp._fs_import_lines l
       SET kind = 'reject', sqlstate = w.sqlstate, reason = w.reason
      FROM pg_temp._fs_import_jobs w
     WHERE w.kind = 'reject' AND l.kind = 'job' AND l.job_id = w.job_id;
    IF all_or_nothing THEN
        PERFORM @extschema@._import_rejects(import_pbs.import_id, 'pg_temp._fs_import_lines', src, true);
    END IF;

    PERFORM @extschema@._import_runs(import_pbs.import_id);
    IF all_or_nothing THEN
        UPDATE pg_temp._fs_import_lines l
           SET kind = 'reject', sqlstate = w.sqlstate, reason = w.reason
          FROM pg_temp._fs_import_jobs w
         WHERE w.kind = 'reject' AND l.kind = 'job' AND l.job_id = w.job_id;
        PERFORM @extschema@._import_rejects(import_pbs.import_id, 'pg_temp._fs_import_lines', src, true);
    END IF;
    upserted := @extschema@._import_upsert(true);
    imported := upserted.imported;
    updated := upserted.updated;
    PERFORM @extschema@._import_close_runs(import_pbs.import_id);
    removed := 0;
    UPDATE pg_temp._fs_import_lines l
       SET kind = 'reject', sqlstate = w.sqlstate, reason = w.reason
      FROM pg_temp._fs_import_jobs w
     WHERE w.kind = 'reject' AND l.kind = 'job' AND l.job_id = w.job_id;

    rejected := @extschema@._import_rejects(import_pbs.import_id, 'pg_temp._fs_import_lines', src, all_or_nothing);
    SELECT count(*) FILTER (WHERE w.kind = 'job') INTO jobs_accepted FROM pg_temp._fs_import_jobs w;
    SELECT count(*) FILTER (WHERE l.kind = 'job'),
           count(*) FILTER (WHERE l.kind IN ('skip', 'blank'))
      INTO lines_accepted, skipped
      FROM pg_temp._fs_import_lines l;
    unchanged := jobs_accepted - imported - updated;
    folded := lines_accepted - jobs_accepted;

    UPDATE @extschema@.imports i
       SET lines_read = import_pbs.lines_read, imported = import_pbs.imported,
           updated = import_pbs.updated, unchanged = import_pbs.unchanged,
           removed = import_pbs.removed, folded = import_pbs.folded,
           skipped = import_pbs.skipped, rejected = import_pbs.rejected,
           created_accounts = import_pbs.created_accounts,
           created_users = import_pbs.created_users,
           created_partitions = import_pbs.created_partitions
     WHERE i.import_id = import_pbs.import_id;
    DROP TABLE pg_temp._fs_import_lines;
    DROP TABLE pg_temp._fs_import_jobs, pg_temp._fs_import_stored;
    PERFORM @extschema@._import_empty(src);
END
$$;
COMMENT ON FUNCTION @extschema@.import_pbs(text, text, text, boolean, boolean, text) IS
'Imports the PBS accounting log records staged in import_staging into fairshare.jobs (one row per job, its Q/S/R/D/E records folded); returns the same summary as import_sacct.';
-- ---------------------------------------------------------------------------
-- Nice (issue 19): the nice value of pending jobs, from squeue.
--
-- sacct does not print a job's Nice and slurmdbd 22.05 does not store it,
-- so neither import_sacct nor sync_slurmdbd has it: jobs.nice is 0 unless
-- set.  import_nice reads squeue's job id and nice, one job a line:
--
--   squeue -h -t PENDING -o '%i|%y' > nice.txt
--   SELECT fairshare.import_nice('oracle', pg_read_file(...) or psql's :'var');
--
-- and sets jobs.nice of the pending runs it names (docs/priority.md).
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@.import_nice(cluster text, squeue_output text)
RETURNS bigint LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    line text;
    line_no bigint := 0;
    ids text[] := '{}';
    nices integer[] := '{}';
    v numeric;
    n bigint;
BEGIN
    IF cluster IS NULL OR squeue_output IS NULL THEN
        RAISE EXCEPTION 'import_nice: cluster and squeue_output must not be NULL' USING ERRCODE = '22004',
              HINT = 'SELECT fairshare.import_nice(''oracle'', <the output of squeue -h -o ''%i|%y''>);';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster OPERATOR(pg_catalog.=) cluster) THEN
        RAISE EXCEPTION 'import_nice: there is no cluster "%"', cluster USING ERRCODE = '23503',
              HINT = 'INSERT INTO fairshare.clusters (cluster, ...) first.';
    END IF;
    FOREACH line IN ARRAY pg_catalog.regexp_split_to_array(squeue_output, E'\r?\n') LOOP
        line_no := line_no OPERATOR(pg_catalog.+) 1;
        CONTINUE WHEN pg_catalog.btrim(line) OPERATOR(pg_catalog.=) '';
        -- a job id as squeue prints it (123, 123_4, 123_[5-9%2], 123+1)
        -- and a signed integer
        IF line OPERATOR(pg_catalog.!~) '^\s*[0-9][0-9_+\[\],%-]*\s*\|\s*[-+]?[0-9]{1,12}\s*$' THEN
            RAISE EXCEPTION 'import_nice: line % is not "JOBID|NICE": %', line_no, pg_catalog.left(line, 200)
                USING ERRCODE = '22P02',
                      HINT = 'Give the output of squeue -h -o ''%i|%y'' (no header, one job a line).  Nothing was updated.';
        END IF;
        v := pg_catalog.split_part(line, '|', 2)::numeric;
        -- Slurm keeps nice within ±(NICE_OFFSET − 3)
        IF v OPERATOR(pg_catalog.<) -2147483645 OR v OPERATOR(pg_catalog.>) 2147483645 THEN
            RAISE EXCEPTION 'import_nice: line %: nice % is out of range: %', line_no, v, pg_catalog.left(line, 200)
                USING ERRCODE = '22003',
                      HINT = 'Slurm''s nice lies between -2147483645 and 2147483645.  Nothing was updated.';
        END IF;
        ids := ids OPERATOR(pg_catalog.||) pg_catalog.btrim(pg_catalog.split_part(line, '|', 1));
        nices := nices OPERATOR(pg_catalog.||) v::integer;
    END LOOP;
    -- the pending runs squeue lists whose nice changes (a job listed
    -- twice: its last line); running and ended runs, and jobs fairshare
    -- does not hold, unchanged
    WITH s AS (
        SELECT DISTINCT ON (x.job_id) x.job_id, x.nice
          FROM ROWS FROM (pg_catalog.unnest(ids), pg_catalog.unnest(nices)) WITH ORDINALITY AS x (job_id, nice, i)
         ORDER BY x.job_id, x.i DESC
    ), u AS (
        UPDATE @extschema@.jobs j SET nice = s.nice
          FROM s
         WHERE j.cluster OPERATOR(pg_catalog.=) cluster AND j.job_id OPERATOR(pg_catalog.=) s.job_id
           AND j.state OPERATOR(pg_catalog.=) 'PENDING' AND j.nice OPERATOR(pg_catalog.<>) s.nice
        RETURNING 1
    )
    SELECT count(*) INTO n FROM u;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_nice(text, text) IS
'Sets jobs.nice of a cluster''s pending runs from squeue -h -o ''%i|%y'' output (job id|nice, one a line); returns the number of pending runs whose nice changed. A malformed line: 22P02 naming it, nothing updated.';
-- ---------------------------------------------------------------------------
-- history: the job table's monthly partitions, their maintenance and the
-- retention of old months (issue 18; docs/history.md).
--
-- jobs is partitioned by submit_time (model.sql says why), one partition per
-- calendar month in UTC, named jobs_pYYYY_MM, plus jobs_default for the
-- runs of months without a partition.  The months are made by
-- maintain_partitions, a procedure of this extension rather than
-- pg_partman: one fixed monthly scheme needs no second extension that every
-- DBA must install and upgrade, nor its configuration tables (which pg_dump
-- and the upgrade test would have to follow); a run of a month that has no
-- partition yet is kept in jobs_default, and the next maintenance moves it.
-- Schedule it with pg_cron (docs/history.md).
--
-- Both procedures here run as the owner of jobs (the role that ran CREATE
-- EXTENSION): creating, attaching and detaching a partition needs it.
-- ---------------------------------------------------------------------------

-- The partitions of jobs and the months they hold, [month_start,
-- month_end); both NULL for jobs_default.  The bounds are read back from
-- the catalog in ISO style, whatever the session's DateStyle.
CREATE FUNCTION @extschema@.job_partitions()
RETURNS TABLE (relation regclass, month_start timestamptz, month_end timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET "DateStyle" = 'ISO, YMD'
BEGIN ATOMIC
    SELECT c.oid::pg_catalog.regclass,
           (pg_catalog.regexp_match(b.bound, '^FOR VALUES FROM \(''([^'']+)''\)'))[1]::timestamptz,
           (pg_catalog.regexp_match(b.bound, ' TO \(''([^'']+)''\)$'))[1]::timestamptz
      FROM pg_catalog.pg_inherits i
      JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.inhrelid
     CROSS JOIN LATERAL (SELECT pg_catalog.pg_get_expr(c.relpartbound, c.oid) AS bound) b
     WHERE i.inhparent OPERATOR(pg_catalog.=) '@extschema@.jobs'::pg_catalog.regclass
     ORDER BY 2 NULLS FIRST, 1;
END;
COMMENT ON FUNCTION @extschema@.job_partitions() IS
'The partitions of fairshare.jobs and the month each holds, [month_start, month_end) in UTC (NULL for jobs_default).';

-- Refuses a caller who cannot create or detach partitions of jobs.
CREATE FUNCTION @extschema@._jobs_owner_check(caller text)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    owner_name name;
BEGIN
    SELECT c.relowner::regrole::name INTO owner_name FROM pg_class c WHERE c.oid = '@extschema@.jobs'::regclass;
    IF NOT pg_has_role(current_user, owner_name, 'USAGE') THEN
        RAISE EXCEPTION '%: role "%" does not own fairshare.jobs', caller, current_user
            USING ERRCODE = '42501',
                  HINT = 'Partitions are made and detached by the owner of the extension''s tables (the role that ran CREATE EXTENSION): call it as that role, or schedule it with pg_cron as that role.';
    END IF;
END
$$;

-- The first day (UTC) of each month that needs a partition: every month
-- from the oldest one present (a monthly partition, or a run in
-- jobs_default) up to months_ahead months after the current one, that no
-- partition covers yet.  One scan of jobs_default (empty in steady state).
CREATE FUNCTION @extschema@._jobs_months_to_make(months_ahead integer)
RETURNS SETOF date
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
    oldest date;
BEGIN
    IF months_ahead IS NULL THEN
        RAISE EXCEPTION 'maintain_partitions: months_ahead must not be NULL'
            USING ERRCODE = '22004', HINT = 'Leave it out for its default, 3 months ahead.';
    ELSIF months_ahead NOT BETWEEN 0 AND 120 THEN
        RAISE EXCEPTION 'maintain_partitions: months_ahead must be between 0 and 120, not %', months_ahead
            USING ERRCODE = '22023',
                  HINT = 'It counts the empty monthly partitions made ahead of the current month (default 3).';
    END IF;
    SELECT min(m) INTO oldest
      FROM (SELECT (p.month_start AT TIME ZONE 'UTC')::date AS m
              FROM @extschema@.job_partitions() p WHERE p.month_start IS NOT NULL
            UNION ALL
            SELECT date_trunc('month', min(d.submit_time) AT TIME ZONE 'UTC')::date
              FROM ONLY @extschema@.jobs_default d) x;
    RETURN QUERY
    SELECT g::date
      FROM generate_series(LEAST(COALESCE(oldest, this_month), this_month)::timestamp,
                           (this_month + make_interval(months => months_ahead))::timestamp,
                           interval '1 month') g
     WHERE NOT EXISTS (SELECT FROM @extschema@.job_partitions() p
                        WHERE p.month_start < ((g + interval '1 month') AT TIME ZONE 'UTC')
                          AND p.month_end > (g AT TIME ZONE 'UTC'))
     ORDER BY 1;
END
$$;

-- Makes the partition of one month (its first day, UTC) in the caller's
-- transaction: the month's runs are moved out of jobs_default into a new
-- table, which is then attached.  The caller commits: a kill at any point
-- leaves either no partition and the runs in jobs_default, or both done.
-- Returns the runs moved; NULL when the month was skipped (made meanwhile
-- by another run, or its name taken by a table that is not a partition).
--
-- Locks: those ATTACH PARTITION takes, all taken first, in the order
-- checkpoint_usage takes its own (the tables jobs refers to, then jobs);
-- checkpoint_usage reads jobs before its lock (usage_views.sql), so a
-- wait here for jobs_default and its wait for partitions can cross, which
-- the time-out below (or PostgreSQL's deadlock report) undoes:
--   partitions, account_users  SHARE ROW EXCLUSIVE: ATTACH adds the new
--                        partition's foreign keys to them; their writers
--                        and checkpoint_usage wait, their readers do not
--   jobs itself          SHARE UPDATE EXCLUSIVE: imports and checkpoints
--                        wait, readers do not
--   jobs_default         ACCESS EXCLUSIVE: ATTACH scans it for runs of the
--                        new month; taken before the move so that no run
--                        of the month comes in between; readers of jobs
--                        wait
-- Each wait is cut at 0.5 s (lock_timeout, below the 1 s after which
-- PostgreSQL looks for deadlocks) and retried: while maintenance waits for
-- a lock, the imports and reports that queue behind it wait too, so it
-- never waits long (with an autovacuum worker about: see below).  In steady state the month is made ahead and empty and
-- jobs_default is empty: the locks are held for milliseconds.
CREATE FUNCTION @extschema@._jobs_make_partition(month date)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    part text := format('jobs_p%s', to_char(month, 'YYYY_MM'));
    lo timestamptz := month::timestamp AT TIME ZONE 'UTC';
    hi timestamptz := (month + interval '1 month')::timestamp AT TIME ZONE 'UTC';
    cols text;
    moved bigint;
    attempt integer := 0;
    autovacuum boolean := false;
BEGIN
    IF month IS NULL OR month <> date_trunc('month', month)::date THEN
        RAISE EXCEPTION '_jobs_make_partition: % is not the first day of a month', month
            USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@._citus_sequential();
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout',
                              CASE WHEN autovacuum
                                   THEN (extract(epoch FROM current_setting('deadlock_timeout')::interval) * 1000 + 500)::bigint::text
                                   ELSE '500' END, true);
            LOCK TABLE @extschema@.partitions, @extschema@.account_users IN SHARE ROW EXCLUSIVE MODE;
            LOCK TABLE ONLY @extschema@.jobs IN SHARE UPDATE EXCLUSIVE MODE;
            LOCK TABLE ONLY @extschema@.jobs_default IN ACCESS EXCLUSIVE MODE;
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            attempt := attempt + 1;
            -- an autovacuum worker of this database may be what holds it (a
            -- partition just loaded): PostgreSQL cancels such a worker only
            -- for a lock waited on longer than deadlock_timeout, so the next
            -- try waits that long (a 10^7-job jobs_default failed 20 tries).
            -- Waiting that long, a checkpoint that read jobs_default and
            -- waits for partitions is a deadlock PostgreSQL reports here:
            -- the locks are let go and taken again, as after a time-out
            autovacuum := EXISTS (SELECT FROM pg_stat_activity a
                                   WHERE a.backend_type = 'autovacuum worker'
                                     AND a.datname = current_database());
            IF attempt >= 20 THEN
                RAISE EXCEPTION 'maintain_partitions: jobs stayed locked by other sessions (20 tries over about 1 minute) while making %', part
                    USING ERRCODE = '55P03',
                          HINT = 'A long import, checkpoint or report holds fairshare.jobs; the next scheduled run makes the partition.';
            END IF;
            PERFORM pg_sleep(LEAST(attempt, 5) * 0.5);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', '0', true);

    -- made meanwhile by a run that committed while this one waited
    IF EXISTS (SELECT FROM @extschema@.job_partitions() p WHERE p.month_start < hi AND p.month_end > lo) THEN
        RETURN NULL;
    END IF;
    IF to_regclass(format('@extschema@.%I', part)) IS NOT NULL THEN
        RAISE WARNING 'maintain_partitions: fairshare.% exists and is not a partition of jobs: month % left in jobs_default', part, to_char(month, 'YYYY-MM')
            USING HINT = 'A month retain_jobs detached and kept? Archive it and drop it, or rename it; the next run makes the partition.';
        RETURN NULL;
    END IF;

    -- the parent's columns in its order, named on both sides of the move
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
      FROM pg_attribute a
     WHERE a.attrelid = '@extschema@.jobs'::regclass AND a.attnum > 0 AND NOT a.attisdropped;
    EXECUTE format('CREATE TABLE @extschema@.%I (LIKE @extschema@.jobs INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
    -- (a direct write to a partition fires none of jobs' statement
    -- triggers: moving runs changes no usage and invalidates no checkpoint)
    EXECUTE format('WITH m AS (DELETE FROM ONLY @extschema@.jobs_default
                                WHERE submit_time >= $1 AND submit_time < $2 RETURNING %1$s)
                    INSERT INTO @extschema@.%2$I (%1$s) SELECT %1$s FROM m', cols, part)
      USING lo, hi;
    GET DIAGNOSTICS moved = ROW_COUNT;
    -- builds the partition's indexes (and checks its foreign keys) on the
    -- rows moved, in bulk; checks that jobs_default holds no run of the month
    EXECUTE format('ALTER TABLE @extschema@.jobs ATTACH PARTITION @extschema@.%I FOR VALUES FROM (%L) TO (%L)',
                   part, lo, hi);
    IF moved > 0 THEN
        EXECUTE format('ANALYZE @extschema@.%I', part);
    END IF;
    RETURN moved;
END
$$;

-- Makes the monthly partitions of jobs: every month from the oldest one
-- present up to months_ahead months after the current one (UTC) that has
-- none, moving the runs of that month out of jobs_default first.  Each
-- month is its own transaction (a kill -9 leaves each month either done or
-- not begun; the next run completes the rest), so CALL it on its own, not
-- inside BEGIN ... COMMIT.  Schedule it daily with pg_cron
-- (docs/history.md): it makes one partition a month, ahead of time, empty.
CREATE PROCEDURE @extschema@.maintain_partitions(months_ahead integer DEFAULT 3)
LANGUAGE plpgsql
AS $$
DECLARE
    m pg_catalog.date;
    moved pg_catalog.int8;
BEGIN
    -- (no SET clause: a procedure with one cannot COMMIT.  Every name here
    -- is qualified, and the functions it calls set their own search_path.)
    PERFORM @extschema@._jobs_owner_check('maintain_partitions');
    PERFORM @extschema@._citus_sequential();
    FOR m IN SELECT x FROM @extschema@._jobs_months_to_make(months_ahead) x LOOP
        moved := @extschema@._jobs_make_partition(m);
        IF moved IS NOT NULL THEN
            RAISE NOTICE 'maintain_partitions: fairshare.jobs_p% made, % run(s) moved from jobs_default',
                         pg_catalog.to_char(m, 'YYYY_MM'), moved;
        END IF;
        COMMIT;
    END LOOP;
END
$$;
COMMENT ON PROCEDURE @extschema@.maintain_partitions(integer) IS
'Make the monthly partitions of jobs (UTC months, jobs_pYYYY_MM) from the oldest month present to months_ahead months ahead, moving their runs out of jobs_default; one transaction per month. Schedule it daily (pg_cron).';

-- ---------------------------------------------------------------------------
-- Retention
--
-- A monthly partition can go when none of its runs can change a report any
-- more.  Each rule below names the reports it keeps identical:
--   * every run has ended (sprio_at: no pending run; usage: no run still
--     accruing);
--   * no run is of a cluster with the PBS fair share (metacentrum_*,
--     pbsfs_at read every run the cluster ever ran: there is no
--     checkpoint of them);
--   * no run falls inside the period of an allocation of its account,
--     open or closed (genci_report_at and r_wlm_usage_at list every
--     allocation with the core-hours of its period, and the GENCI
--     regulation and the RWTH months and sliding windows lie inside it);
--   * for each cluster with a started run, a valid usage checkpoint as of
--     its last end or later: that checkpoint holds their decayed usage
--     (association_usage_at, sshare_at, sprio_at read only the runs that
--     end after the checkpoint they start from).  Retention pins the oldest
--     such checkpoint (usage_checkpoints.pinned): it is never pruned, and
--     the runs started before it can no longer change (the checkpoint
--     triggers refuse it), so the fewer runs it freezes the better.
-- As of any instant at or after the pinned checkpoint every report is
-- unchanged.  Reports as of an earlier instant (time travel to before it)
-- no longer see the retained runs: the checkpoint is what remains of them.
-- ---------------------------------------------------------------------------

-- Why the runs submitted in [month_start, month_end) can or cannot be
-- retained: NULL reason when they can, with the checkpoints they rely on,
-- one per cluster with a started run (pin_clusters, pin_times).  Reads them
-- through jobs (the bounds prune every other partition), so that a reader
-- can ask too.
CREATE FUNCTION @extschema@._jobs_retention_check(month_start timestamptz, month_end timestamptz,
    OUT reason text, OUT hint text, OUT jobs bigint, OUT pin_clusters text[], OUT pin_times timestamptz[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    cp timestamptz;
    job text;
BEGIN
    pin_clusters := '{}';
    pin_times := '{}';
    jobs := 0;
    -- per cluster: its runs, the first not ended, the last end of a started one
    FOR r IN
        SELECT j.cluster, count(*) AS n,
               min(j.job_id || ' (' || j.state || ')') FILTER (WHERE j.end_time IS NULL) AS open_job,
               max(j.end_time) FILTER (WHERE j.start_time IS NOT NULL) AS last_end,
               c.fairshare_algorithm
          FROM @extschema@.jobs j LEFT JOIN @extschema@.clusters c ON c.cluster = j.cluster
         WHERE j.submit_time >= _jobs_retention_check.month_start AND j.submit_time < _jobs_retention_check.month_end
         GROUP BY j.cluster, c.fairshare_algorithm ORDER BY j.cluster
    LOOP
        jobs := jobs + r.n;
        IF reason IS NOT NULL THEN
            CONTINUE;
        ELSIF r.open_job IS NOT NULL THEN
            reason := format('job %s of cluster %s has not ended', r.open_job, r.cluster);
            hint := 'A month can go when every run submitted in it has ended (and its usage is in a checkpoint).';
        ELSIF r.fairshare_algorithm = 'pbs' THEN
            reason := format('cluster %s uses the PBS fair share, whose usage (metacentrum_user_usage_at, pbsfs_at) is computed from every run the cluster ran', r.cluster);
            hint := 'The runs of a PBS cluster are kept: there is no usage checkpoint of the PBS fair share.';
        ELSIF r.last_end IS NOT NULL THEN
            -- the oldest valid checkpoint as of the last end or later: it
            -- freezes the fewest runs
            SELECT k.as_of INTO cp
              FROM @extschema@.usage_checkpoints k
             WHERE k.cluster = r.cluster AND k.invalidated_at IS NULL AND k.as_of >= r.last_end
             ORDER BY k.as_of LIMIT 1;
            IF NOT FOUND THEN
                reason := format('cluster %s has no valid usage checkpoint as of %s (the last end of its runs here) or later',
                                 r.cluster, r.last_end);
                hint := format('Make one first, e.g. CALL fairshare.checkpoint_usage(%L, %L): it will hold the usage of these runs.',
                               r.cluster, r.last_end);
            ELSE
                pin_clusters := pin_clusters || r.cluster;
                pin_times := pin_times || cp;
            END IF;
        END IF;
    END LOOP;
    IF reason IS NOT NULL THEN
        RETURN;
    END IF;
    -- a run within the period (days in the cluster's time zone) of an
    -- allocation of its account: one probe of the partition's index on
    -- (account, cluster, start_time) per allocation
    FOR r IN
        SELECT a.allocation_id, a.policy, a.cluster, a.account, a.period_start, a.period_end,
               a.period_end >= (now() AT TIME ZONE c.timezone)::date AS open,
               a.period_start::timestamp AT TIME ZONE c.timezone AS t0,
               (a.period_end + 1)::timestamp AT TIME ZONE c.timezone AS t1
          FROM @extschema@.allocations a JOIN @extschema@.clusters c ON c.cluster = a.cluster
         WHERE a.policy IN ('genci', 'rwth')
         ORDER BY a.allocation_id
    LOOP
        SELECT j.job_id INTO job
          FROM @extschema@.jobs j
         WHERE j.submit_time >= _jobs_retention_check.month_start AND j.submit_time < _jobs_retention_check.month_end
           AND j.account = r.account AND j.cluster = r.cluster
           AND j.start_time < r.t1 AND j.end_time > r.t0
         LIMIT 1;
        IF FOUND THEN
            reason := format('job %s of account %s on cluster %s ran within the period %s to %s of %s allocation %s, which %s',
                             job, r.account, r.cluster, r.period_start, r.period_end, r.policy, r.allocation_id,
                             CASE WHEN r.open THEN 'is still open'
                                  ELSE 'is over but still reported with the core-hours of its period (genci_report_at, r_wlm_usage_at)' END);
            hint := 'The runs within an allocation''s period are kept as long as the allocation is: its consumption is computed from them.';
            RETURN;
        END IF;
    END LOOP;
END
$$;

-- Every monthly partition holding only months before the day `before`
-- (UTC), whether retain_jobs(before) may detach it, and why not.
CREATE FUNCTION @extschema@.job_retention(before date)
RETURNS TABLE (relation regclass, month_start timestamptz, month_end timestamptz, jobs bigint,
               retainable boolean, reason text, hint text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF before IS NULL OR NOT isfinite(before) THEN
        RAISE EXCEPTION 'job_retention: before must be a finite date, not %', COALESCE(before::text, 'NULL')
            USING ERRCODE = '22023', HINT = 'Pass the first day to keep: the monthly partitions that end by then are examined.';
    END IF;
    RETURN QUERY
    SELECT p.relation, p.month_start, p.month_end, k.jobs, k.reason IS NULL, k.reason, k.hint
      FROM @extschema@.job_partitions() p
     CROSS JOIN LATERAL @extschema@._jobs_retention_check(p.month_start, p.month_end) k
     WHERE p.month_end <= before::timestamp AT TIME ZONE 'UTC'
     ORDER BY p.month_start;
END
$$;
COMMENT ON FUNCTION @extschema@.job_retention(date) IS
'The monthly partitions of jobs that end by before (UTC), their runs, and whether retain_jobs may detach them (reason and hint when not).';

-- Detaches every monthly partition of jobs that ends by the day `before`
-- (UTC), when each can go (job_retention says why not); with archive_dir,
-- writes each first to archive_dir/jobs_pYYYY_MM.csv (COPY, CSV with a
-- header: the server writes it, so archive_dir is a directory of the
-- database server, and the caller must be a superuser or hold
-- pg_write_server_files) and drops it; without, leaves it as a table of
-- its own (fairshare.jobs_pYYYY_MM, without its foreign keys, so that the
-- users and partitions it names can still be deleted) for the DBA to
-- archive and drop.  Refuses (55000), before it changes anything, when a
-- partition cannot go.  Each partition is its own transaction: a kill -9
-- leaves it attached (its archive file, if written, is written again by
-- the next run).
--
-- Locks, per partition, in the order checkpoint_usage takes its own (see
-- _jobs_make_partition): while it checks again, pins the checkpoints and
-- archives, SHARE on what a checkpoint or a report depends on (clusters,
-- qos, allocations), SHARE ROW EXCLUSIVE on the tables the partition's
-- foreign keys refer to (partitions, account_users: DETACH drops them),
-- SHARE UPDATE EXCLUSIVE on jobs (imports and checkpoints wait, readers do
-- not) and SHARE on the partition; then ACCESS EXCLUSIVE on jobs and
-- jobs_default for the detach alone (milliseconds; readers wait).  Each
-- wait is cut at 0.5 s and retried, as in maintain_partitions.
CREATE PROCEDURE @extschema@.retain_jobs(before date, archive_dir text DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
    p record;
    bad record;
BEGIN
    -- (no SET clause: a procedure with one cannot COMMIT.  Every name here
    -- is qualified, and the functions it calls set their own search_path.)
    PERFORM @extschema@._jobs_owner_check('retain_jobs');
    -- retention pins usage checkpoints, which a Citus cluster cannot keep
    PERFORM @extschema@._citus_no_checkpoints('retain_jobs');
    IF archive_dir IS NOT NULL THEN
        PERFORM @extschema@._jobs_archive_check(archive_dir);
    END IF;
    SELECT r.relation, r.reason, r.hint INTO bad
      FROM @extschema@.job_retention(before) r WHERE NOT r.retainable ORDER BY r.month_start LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'retain_jobs: partition % cannot go: %', bad.relation, bad.reason
            USING ERRCODE = '55000', HINT = bad.hint;
    END IF;
    FOR p IN SELECT r.relation FROM @extschema@.job_retention(before) r ORDER BY r.month_start LOOP
        PERFORM @extschema@._jobs_retain_partition(p.relation, archive_dir);
        COMMIT;
    END LOOP;
END
$$;
COMMENT ON PROCEDURE @extschema@.retain_jobs(date, text) IS
'Detach the monthly partitions of jobs that end by before (UTC) when no report needs their runs any more (job_retention), pinning the usage checkpoints that hold their usage; with archive_dir, COPY each to archive_dir/jobs_pYYYY_MM.csv on the server and drop it. Refuses (55000) with the reason otherwise.';

-- archive_dir: an absolute directory of the server the caller may write.
CREATE FUNCTION @extschema@._jobs_archive_check(archive_dir text)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF archive_dir !~ '^/' OR archive_dir ~ '[\n\r]' THEN
        RAISE EXCEPTION 'retain_jobs: archive_dir must be an absolute path of the database server, not %', archive_dir
            USING ERRCODE = '22023', HINT = 'The server writes the archive (COPY ... TO): give a directory of its machine, e.g. /var/lib/postgresql/archive.';
    END IF;
    IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user)
       AND NOT pg_has_role(current_user, 'pg_write_server_files', 'MEMBER') THEN
        RAISE EXCEPTION 'retain_jobs: role "%" may not write files on the server (archive_dir %)', current_user, archive_dir
            USING ERRCODE = '42501', HINT = 'Archiving uses COPY ... TO a server file: run it as a superuser, or GRANT pg_write_server_files to the role.';
    END IF;
    IF NOT COALESCE((pg_stat_file(archive_dir, true)).isdir, false) THEN
        RAISE EXCEPTION 'retain_jobs: archive_dir % is not a directory of the server', archive_dir
            USING ERRCODE = '58P01', HINT = 'Create it first, writable by the server''s operating-system user.';
    END IF;
END
$$;

-- One partition, in the caller's transaction (see retain_jobs).
CREATE FUNCTION @extschema@._jobs_retain_partition(part regclass, archive_dir text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bounds record;
    chk record;
    fk record;
    attempt integer := 0;
    autovacuum boolean := false;
    file text;
    rel text;
BEGIN
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout',
                              CASE WHEN autovacuum
                                   THEN (extract(epoch FROM current_setting('deadlock_timeout')::interval) * 1000 + 500)::bigint::text
                                   ELSE '500' END, true);
            LOCK TABLE @extschema@.clusters IN SHARE MODE;
            LOCK TABLE @extschema@.partitions, @extschema@.account_users IN SHARE ROW EXCLUSIVE MODE;
            LOCK TABLE @extschema@.qos, @extschema@.allocations IN SHARE MODE;
            LOCK TABLE ONLY @extschema@.jobs IN SHARE UPDATE EXCLUSIVE MODE;
            EXECUTE format('LOCK TABLE ONLY %s IN SHARE MODE', part);
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            attempt := attempt + 1;
            -- an autovacuum worker of this database may be what holds it (a
            -- partition just loaded): PostgreSQL cancels such a worker only
            -- for a lock waited on longer than deadlock_timeout, so the next
            -- try waits that long (a 10^7-job jobs_default failed 20 tries).
            -- Waiting that long, a checkpoint that read jobs_default and
            -- waits for partitions is a deadlock PostgreSQL reports here:
            -- the locks are let go and taken again, as after a time-out
            autovacuum := EXISTS (SELECT FROM pg_stat_activity a
                                   WHERE a.backend_type = 'autovacuum worker'
                                     AND a.datname = current_database());
            IF attempt >= 20 THEN
                RAISE EXCEPTION 'retain_jobs: jobs stayed locked by other sessions (20 tries over about 1 minute) while retaining %', part
                    USING ERRCODE = '55P03', HINT = 'A long import, checkpoint or report holds fairshare.jobs; run it again.';
            END IF;
            PERFORM pg_sleep(LEAST(attempt, 5) * 0.5);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', '0', true);

    -- again, now that nothing can change it
    SELECT p.month_start, p.month_end INTO bounds FROM @extschema@.job_partitions() p WHERE p.relation = part;
    chk := @extschema@._jobs_retention_check(bounds.month_start, bounds.month_end);
    IF chk.reason IS NOT NULL THEN
        RAISE EXCEPTION 'retain_jobs: partition % cannot go: %', part, chk.reason
            USING ERRCODE = '55000', HINT = chk.hint;
    END IF;
    UPDATE @extschema@.usage_checkpoints k SET pinned = true
      FROM unnest(chk.pin_clusters, chk.pin_times) AS x (cluster, as_of)
     WHERE k.cluster = x.cluster AND k.as_of = x.as_of AND NOT k.pinned;

    SELECT c.relname INTO rel FROM pg_class c WHERE c.oid = part;
    IF archive_dir IS NOT NULL THEN
        file := rtrim(archive_dir, '/') || '/' || rel || '.csv';
        EXECUTE format('COPY %s TO %L WITH (FORMAT csv, HEADER true)', part, file);
    END IF;

    LOOP
        BEGIN
            PERFORM set_config('lock_timeout',
                              CASE WHEN autovacuum
                                   THEN (extract(epoch FROM current_setting('deadlock_timeout')::interval) * 1000 + 500)::bigint::text
                                   ELSE '500' END, true);
            LOCK TABLE ONLY @extschema@.jobs IN ACCESS EXCLUSIVE MODE;
            LOCK TABLE ONLY @extschema@.jobs_default IN ACCESS EXCLUSIVE MODE;
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            attempt := attempt + 1;
            -- an autovacuum worker of this database may be what holds it (a
            -- partition just loaded): PostgreSQL cancels such a worker only
            -- for a lock waited on longer than deadlock_timeout, so the next
            -- try waits that long (a 10^7-job jobs_default failed 20 tries).
            -- Waiting that long, a checkpoint that read jobs_default and
            -- waits for partitions is a deadlock PostgreSQL reports here:
            -- the locks are let go and taken again, as after a time-out
            autovacuum := EXISTS (SELECT FROM pg_stat_activity a
                                   WHERE a.backend_type = 'autovacuum worker'
                                     AND a.datname = current_database());
            IF attempt >= 40 THEN
                RAISE EXCEPTION 'retain_jobs: jobs stayed in use by other sessions while detaching %', part
                    USING ERRCODE = '55P03', HINT = 'A long report reads fairshare.jobs; run it again.';
            END IF;
            PERFORM pg_sleep(LEAST(attempt, 5) * 0.2);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', '0', true);
    EXECUTE format('ALTER TABLE @extschema@.jobs DETACH PARTITION %s', part);
    IF archive_dir IS NOT NULL THEN
        EXECUTE format('DROP TABLE %s', part);
    ELSE
        FOR fk IN SELECT c.conname FROM pg_constraint c WHERE c.conrelid = part AND c.contype = 'f' LOOP
            EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', part, fk.conname);
        END LOOP;
        EXECUTE format('COMMENT ON TABLE %s IS %L', part,
                       format('Runs retained by retain_jobs on %s (detached from fairshare.jobs; their usage is in the pinned usage checkpoints): archive and drop.',
                              now()::date));
    END IF;
END
$$;
-- ---------------------------------------------------------------------------
-- citus: the model on a Citus cluster (docs/citus.md).  One call on the
-- coordinator, fairshare.distribute(), turns the tables into Citus tables:
-- jobs hash-distributed on job_id, every other table of the extension a
-- reference table (a copy on every node).  The reports are unchanged: the
-- decayed-usage aggregates have a combine function and a plain state type
-- (float8[3]), so Citus computes them on the workers as partial aggregates
-- and combines them on the coordinator; the joins with the small tables run
-- on the workers against their copies.
--
-- Why job_id.  Citus enforces a primary key on each shard only, so the
-- distribution column must be part of it: (cluster, job_id, submit_time),
-- one row per run (docs/runs.md).  Of these, cluster puts a one-cluster
-- centre on one shard; submit_time and job_id both spread the runs evenly,
-- and job_id keeps every run of one id on one shard, so the import's
-- per-id work (the runs of an id, closed and reused ids) joins jobs on
-- (cluster, job_id) within a shard.  account, which would keep an
-- association's jobs together, is not in the key, and the renames of
-- accounts and users cascade into jobs (ON UPDATE CASCADE), which Citus
-- cannot do to a distribution column.  The per-association aggregates
-- therefore run as partial aggregates on every shard; the coordinator
-- receives at most (associations × shards) states, not the jobs.
--
-- What Citus does not do, and what is done instead:
--   * triggers on distributed tables: the usage checkpoints are kept valid
--     by statement triggers with transition tables on jobs (usage_views.sql),
--     which cannot fire on the shards.  distribute() marks every checkpoint
--     invalid and drops those triggers and the settings triggers that only
--     invalidate checkpoints; checkpoint_usage then refuses to run
--     (_citus_no_checkpoints), and every report reads the jobs, spread over
--     the workers.  Pinned checkpoints (retention) hold the usage of jobs no
--     longer in the table: distribute() refuses while one exists.
--   * triggers on reference tables are created on every copy when
--     citus.enable_unsafe_triggers is on at distribution time.  The ledger's
--     append-only triggers and the bound on allocation hours read no other
--     table, and the account tree's cycle check reads only accounts, the
--     copy on the node where it fires: they are kept so, and tested
--     (test/citus/test.sh).  Any other trigger makes distribute() refuse.
--   * foreign keys: Citus turns a local table that references a reference
--     table into a "Citus local table" by renaming it, which the extension's
--     views cannot follow.  distribute() drops the foreign keys among the
--     extension's tables, converts every table, and adds them again, same
--     names and definitions (distributed -> reference keys are supported,
--     with their ON UPDATE CASCADE, since job_id is in none of them).
--   * row-level security: policies without subqueries are copied to every
--     shard; the workers run each query as the calling role, so a plain
--     user's queries see its own rows there too.
--   * pg_extension_config_dump: pg_dump on the coordinator reads the
--     distributed tables through Citus, so a dump holds every row; it
--     restores as a single server, and distribute() distributes it again.
-- ---------------------------------------------------------------------------

-- How Citus holds a table: 'distributed', 'reference', 'local' (a Citus
-- local table), or NULL when Citus is not installed or the table is not a
-- Citus table.  Dynamic SQL: pg_dist_partition exists only with Citus.
CREATE FUNCTION @extschema@._citus_table_kind(rel regclass)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind text;
BEGIN
    IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE 'SELECT CASE WHEN p.partmethod = ''h'' THEN ''distributed''
                         WHEN p.partmethod = ''n'' AND p.repmodel = ''t'' THEN ''reference''
                         ELSE ''local'' END
               FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid = $1'
       INTO kind USING rel;
    RETURN kind;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_table_kind(regclass) IS
'How Citus holds a table: distributed, reference, local, or NULL (no Citus, or not a Citus table).';

-- Called first by what needs the usage checkpoints kept valid: refuses
-- once jobs is a distributed table, whose shards fire none of the
-- invalidation triggers (docs/citus.md#what-citus-does-not-do-and-what-is-done-instead).
-- On a Citus cluster, for the rest of the transaction: one connection per
-- node.  A transaction that writes the distributed jobs and touches the
-- reference tables its foreign keys point to (maintain_partitions moving
-- runs and attaching a partition) must use no parallel connection from its
-- first distributed query on.  Nothing without Citus.
CREATE FUNCTION @extschema@._citus_sequential()
RETURNS void LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF @extschema@._citus_table_kind('@extschema@.jobs'::regclass) IS NOT NULL THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_sequential() IS
'On a Citus cluster, makes the rest of the transaction use one connection per node (citus.multi_shard_modify_mode); nothing otherwise.';

CREATE FUNCTION @extschema@._citus_no_checkpoints(caller text)
RETURNS void LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF @extschema@._citus_table_kind('@extschema@.jobs'::regclass) IS NOT NULL THEN
        RAISE EXCEPTION '%: usage checkpoints are not available when fairshare.jobs is a Citus table', caller
            USING ERRCODE = '0A000',
                  DETAIL = 'A checkpoint stays valid only while the triggers on jobs see every change to it; Citus fires no trigger of the distributed table on its shards.',
                  HINT = 'Every report reads the jobs instead, spread over the workers (docs/citus.md).';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_no_checkpoints(text) IS
'Raises 0A000 when jobs is a Citus table: usage checkpoints cannot be kept valid there.';

-- Whether fairshare's planner hook (citus.c) runs for every query: the
-- library was loaded with shared_preload_libraries after citus.
CREATE FUNCTION @extschema@._citus_inliner() RETURNS boolean
AS 'MODULE_PATHNAME', 'fs_citus_inliner' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._citus_inliner() IS
'true when fairshare was preloaded after citus (shared_preload_libraries = ''citus,fairshare''), so that its planner hook inlines the reports'' SQL functions before Citus plans a query.';

CREATE FUNCTION @extschema@.distribute(shard_count integer DEFAULT 32)
RETURNS TABLE (table_name regclass, citus_table text, distribution_column text, shards bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext oid;
    citus_version text;
    r record;
    bad text;
    fkeys text[] := '{}';
    dropped_triggers text[] := '{}';
    -- the triggers that only keep usage checkpoints valid: dropped, as
    -- checkpoints are refused on Citus
    checkpoint_triggers text[] := ARRAY[
        'jobs.invalidate_usage_checkpoints_insert', 'jobs.invalidate_usage_checkpoints_update',
        'jobs.invalidate_usage_checkpoints_delete', 'jobs.invalidate_usage_checkpoints_truncate',
        'clusters.invalidate_usage_checkpoints', 'partitions.invalidate_usage_checkpoints',
        'qos.invalidate_usage_checkpoints_insert', 'qos.invalidate_usage_checkpoints_update',
        'qos.invalidate_usage_checkpoints_delete', 'qos.invalidate_usage_checkpoints_truncate',
        -- the fair-share factors cached with the checkpoints (sprio_cache.sql)
        'accounts.drop_checkpoint_factors_insert', 'accounts.drop_checkpoint_factors_update',
        'accounts.drop_checkpoint_factors_delete', 'accounts.drop_checkpoint_factors_truncate',
        'account_users.drop_checkpoint_factors_insert', 'account_users.drop_checkpoint_factors_update',
        'account_users.drop_checkpoint_factors_delete', 'account_users.drop_checkpoint_factors_truncate',
        'clusters.drop_checkpoint_factors',
        -- and those that mark the hours of the usage rollups stale: dropped
        -- too, refresh_rollups refuses on Citus (reports.sql)
        'jobs.mark_rollups_insert', 'jobs.mark_rollups_update', 'jobs.mark_rollups_delete',
        'jobs.mark_rollups_truncate'];
    -- the triggers kept on every copy of a reference table: each reads
    -- nothing, or only the table it fires on
    copied_triggers text[] := ARRAY[
        'ledger.ledger_append_only', 'ledger.ledger_no_truncate', 'accounts.accounts_no_cycle',
        'ledger.hours_bounded', 'allocations.hours_bounded'];
BEGIN
    SELECT e.extversion INTO citus_version FROM pg_catalog.pg_extension e WHERE e.extname = 'citus';
    IF citus_version IS NULL THEN
        RAISE EXCEPTION 'fairshare.distribute: the citus extension is not installed in database "%"', current_database()
            USING ERRCODE = '0A000',
                  HINT = 'On every node: shared_preload_libraries = ''citus'' and CREATE EXTENSION citus; on the coordinator, citus_add_node() for each worker; then call fairshare.distribute() there (docs/citus.md).';
    END IF;
    IF shard_count IS NULL OR shard_count NOT BETWEEN 1 AND 64000 THEN
        RAISE EXCEPTION 'fairshare.distribute: shard_count % is out of range', COALESCE(shard_count::text, 'NULL')
            USING ERRCODE = '22023',
                  HINT = 'Pass 1 to 64000 shards; a few per core of the workers (32 by default) lets Citus spread a query.';
    END IF;
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'fairshare.distribute: role "%" is not a superuser', current_user
            USING ERRCODE = '42501',
                  HINT = 'Citus converts tables their owner owns: run it as the superuser that created the extension.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO STRICT r;
    IF NOT r.citus_is_coordinator THEN
        RAISE EXCEPTION 'fairshare.distribute: this node is not the Citus coordinator'
            USING ERRCODE = '0A000',
                  HINT = 'Call it on the coordinator, after citus_set_coordinator_host() and citus_add_node() for each worker.';
    END IF;
    -- The reports call PL/pgSQL functions from queries on the reference
    -- tables; those queries must run on the coordinator, which needs its
    -- own copy of the reference tables: it must be in the metadata.
    EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_node n WHERE n.groupid = 0)' INTO STRICT r;
    IF NOT r.exists THEN
        RAISE EXCEPTION 'fairshare.distribute: the coordinator is not in the Citus metadata'
            USING ERRCODE = '0A000',
                  HINT = 'SELECT citus_set_coordinator_host(''its host'', its port) first: the coordinator then keeps a copy of every reference table, where the reports run.';
    END IF;
    IF NOT @extschema@._citus_inliner() THEN
        RAISE EXCEPTION 'fairshare.distribute: fairshare is not in shared_preload_libraries after citus'
            USING ERRCODE = '0A000',
                  DETAIL = 'Citus cannot plan the reports'' SQL functions unless fairshare inlines them first, which it does from a library loaded at server start.',
                  HINT = 'Set shared_preload_libraries = ''citus,fairshare'' on every node and restart them (docs/citus.md).';
    END IF;

    SELECT e.oid INTO ext FROM pg_catalog.pg_extension e WHERE e.extname = 'fairshare';
    CREATE TEMP TABLE _fs_tables ON COMMIT DROP AS
    SELECT c.oid::regclass AS rel, c.relname::text AS name
      FROM pg_catalog.pg_depend d
      JOIN pg_catalog.pg_class c ON c.oid = d.objid
     WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.refclassid = 'pg_catalog.pg_extension'::regclass
       AND d.refobjid = ext AND d.deptype = 'e' AND c.relkind IN ('r', 'p') AND NOT c.relispartition;

    IF @extschema@._citus_table_kind('@extschema@.jobs'::regclass) IS NULL THEN
        -- Checkpoints: those pinned by retention hold the usage of jobs no
        -- longer in the table, which no report on Citus could read.
        SELECT string_agg(format('%s as of %s', k.cluster, k.as_of), ', ') INTO bad
          FROM @extschema@.usage_checkpoints k WHERE k.pinned;
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION 'fairshare.distribute: pinned usage checkpoints hold the usage of removed jobs: %', bad
                USING ERRCODE = '0A000',
                      HINT = 'Retention keeps that usage in the checkpoints only, which Citus cannot keep valid: restore the archived jobs and unpin them first.';
        END IF;
        UPDATE @extschema@.usage_checkpoints k
           SET invalidated_at = now(),
               invalidated_by = 'fairshare.distribute: jobs became a Citus table, whose shards fire no invalidation trigger'
         WHERE k.invalidated_at IS NULL;

        -- Every trigger must be one of those known here: a trigger added
        -- later must be thought through, not silently lost.
        SELECT string_agg(format('%s on %s', t.tgname, c.relname), ', ') INTO bad
          FROM pg_catalog.pg_trigger t
          JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
          JOIN pg_temp._fs_tables x ON x.rel = c.oid
         WHERE NOT t.tgisinternal
           AND c.relname || '.' || t.tgname <> ALL (checkpoint_triggers || copied_triggers);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION 'fairshare.distribute: triggers it does not know how to carry to Citus: %', bad
                USING ERRCODE = '0A000',
                      HINT = 'Citus fires no trigger of a distributed table; each trigger needs a way of its own (docs/citus.md).';
        END IF;
        FOR r IN SELECT c.relname, t.tgname FROM pg_catalog.pg_trigger t
                   JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
                   JOIN pg_temp._fs_tables x ON x.rel = c.oid
                  WHERE NOT t.tgisinternal AND c.relname || '.' || t.tgname = ANY (checkpoint_triggers)
                  ORDER BY 1, 2 LOOP
            EXECUTE format('DROP TRIGGER %I ON @extschema@.%I', r.tgname, r.relname);
        END LOOP;

        -- The foreign keys among the tables, dropped and added again after
        -- (a partition's own copies follow its parent's).
        FOR r IN SELECT c.conname, c.conrelid::regclass AS rel, pg_catalog.pg_get_constraintdef(c.oid) AS def
                   FROM pg_catalog.pg_constraint c
                   JOIN pg_temp._fs_tables x ON x.rel = c.conrelid
                  WHERE c.contype = 'f' AND c.conparentid = 0
                  ORDER BY c.conrelid, c.conname LOOP
            fkeys := fkeys || format('ALTER TABLE %s ADD CONSTRAINT %I %s', r.rel, r.conname, r.def);
            EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.rel, r.conname);
        END LOOP;

        -- Triggers on the reference tables are created on their copies only
        -- with this setting on; those left are the copied_triggers above.
        PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
        -- one connection per node for everything that follows: the keys
        -- between the distributed table and the reference tables require it
        -- in the transaction that adds them
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
        FOR r IN SELECT x.rel FROM pg_temp._fs_tables x WHERE x.name <> 'jobs' ORDER BY x.name LOOP
            EXECUTE 'SELECT pg_catalog.create_reference_table($1)' USING r.rel;
        END LOOP;
        EXECUTE 'SELECT pg_catalog.create_distributed_table($1, $2, colocate_with => ''none'', shard_count => $3)'
          USING '@extschema@.jobs'::regclass, 'job_id', distribute.shard_count;
        -- The workers' copies of the tables (each worker's own CREATE
        -- EXTENSION made them) still have the keys: dropping them here
        -- drops them there too, in this transaction, before they come back.
        FOR r IN SELECT unnest(fkeys) AS cmd LOOP
            EXECUTE regexp_replace(r.cmd, '^(ALTER TABLE \S+) ADD CONSTRAINT (\S+) .*$', '\1 DROP CONSTRAINT IF EXISTS \2');
            EXECUTE r.cmd;
        END LOOP;
        -- the rows copied into the shards are still in the coordinator's
        -- own files, invisible: free them (past the ledger's no-truncate
        -- trigger, which guards the rows, now in the shards)
        PERFORM set_config('session_replication_role', 'replica', true);
        FOR r IN SELECT x.rel FROM pg_temp._fs_tables x ORDER BY x.name LOOP
            EXECUTE 'SELECT pg_catalog.truncate_local_data_after_distributing_table($1)' USING r.rel;
        END LOOP;
        PERFORM set_config('session_replication_role', 'origin', true);
    END IF;

    RETURN QUERY EXECUTE
        'SELECT x.rel, @extschema@._citus_table_kind(x.rel),
                pg_catalog.column_to_column_name(p.logicalrelid, p.partkey),
                (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid = x.rel)
           FROM pg_temp._fs_tables x
           LEFT JOIN pg_catalog.pg_dist_partition p ON p.logicalrelid = x.rel
          ORDER BY @extschema@._citus_table_kind(x.rel), x.name';
END
$$;
COMMENT ON FUNCTION @extschema@.distribute(integer) IS
'On a Citus coordinator: jobs becomes a table hash-distributed on job_id over shard_count shards, every other table of the extension a reference table; usage checkpoints are given up (Citus fires no trigger on the shards). Returns each table, how Citus holds it and its shards; calling it again only reports.';
-- ---------------------------------------------------------------------------
-- reports: the everyday reports of a centre, read from rollups (issue 14;
-- docs/reports.md).
--
-- Like slurmdbd, usage is rolled up by the hour, then by the day and the
-- month, and every report reads the rollups, never the jobs:
--
--   usage_hourly, usage_daily, usage_monthly   per cluster, account, user,
--       partition, QOS and job size (allocated CPUs): TRES-seconds of cpu,
--       mem, node, billing and gres/gpu, the energy, the runs started and
--       their wait (start - eligible)
--   cluster_usage_hourly, _daily, _monthly     per cluster and TRES: what
--       the cluster reported, and the seconds allocated, down, planned down
--       (maintenance reservations), planned (eligible jobs waiting) and idle
--
-- Kept up to date incrementally.  Statement triggers on jobs record the
-- hours a write touched (rollup_dirty: one range per cluster and
-- statement); refresh_rollups(), the one maintenance call (pg_cron can run
-- it every few minutes), recomputes those hours and the hours completed
-- since its last call from the jobs, then the days and months that hold
-- them.  A late job, an update, a deletion: each corrects its hours at the
-- next refresh.
--
-- Concurrency.  An import only appends ranges to rollup_dirty, so it never
-- waits for a refresh.  A refresh takes the ranges it can see (DELETE ...
-- RETURNING) and then reads the jobs in a later snapshot: every job whose
-- range it took is in that snapshot; a range written by a transaction that
-- commits later stays for the next refresh.  Two refreshes are serialized
-- by an advisory lock (specs/rollups.spec).
--
-- Seconds, not minutes: a TRES-second is exact in bigint; sreport divides
-- at print time and so do the report functions.  Suspended time is left out
-- of the TRES-seconds, as sreport does, and kept apart (suspended_secs):
-- fairshare usage charges it (docs/runs.md).  A run's suspended total is
-- spread over its hours in proportion to their length (sacct gives only the
-- total).
-- ---------------------------------------------------------------------------

-- The rollups of jobs: one row per period, cluster, association,
-- partition, QOS ('' for none) and job size (allocated CPUs).
CREATE TABLE @extschema@.usage_hourly (
    cluster              text NOT NULL,
    period_start         timestamptz NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL,
    partition            text NOT NULL,
    qos                  text NOT NULL,
    cpus                 integer NOT NULL,
    -- seconds of the period the runs ran (suspended time left out), and
    -- the TRES-seconds: each run's seconds times its allocated count
    run_secs             bigint NOT NULL,
    cpu_secs             bigint NOT NULL,
    mem_secs             bigint NOT NULL,       -- MiB-seconds
    node_secs            bigint NOT NULL,
    billing_secs         bigint NOT NULL,
    gpu_secs             bigint NOT NULL,
    energy               bigint NOT NULL,       -- joules (energy TRES), by the run's share in the period
    -- the seconds of the period the runs spent suspended, and times their CPUs
    suspended_secs       bigint NOT NULL,
    suspended_cpu_secs   bigint NOT NULL,
    -- runs started in the period, and their waits (start - eligible)
    jobs                 bigint NOT NULL,
    wait_secs            bigint NOT NULL,
    -- runs already running when the period began: with the runs started
    -- in a report's window, the runs that ran in it, which sreport's job
    -- reports count (docs/reports.md#rollups, "Job size")
    jobs_at_start        bigint NOT NULL,
    PRIMARY KEY (cluster, period_start, account, user_name, partition, qos, cpus)
);
COMMENT ON TABLE @extschema@.usage_hourly IS
'Usage by hour (UTC hours), cluster, account, user, partition, QOS and job size: TRES-seconds without suspended time, suspended seconds, runs started and their wait, runs already running at the start. Kept by refresh_rollups().';
CREATE TABLE @extschema@.usage_daily (LIKE @extschema@.usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.usage_daily IS
'usage_hourly summed by day of the cluster''s time zone (period_start: the local midnight). Kept by refresh_rollups().';
CREATE TABLE @extschema@.usage_monthly (LIKE @extschema@.usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.usage_monthly IS
'usage_hourly summed by month of the cluster''s time zone (period_start: the first local midnight). Kept by refresh_rollups().';
-- a user's or an account's periods (the reports filter by period first)
CREATE INDEX ON @extschema@.usage_monthly (period_start, cluster);
CREATE INDEX ON @extschema@.usage_daily (period_start, cluster);

-- usage_monthly summed by account: what account_usage_monthly reads.  A
-- month of usage_monthly has a row per association, partition, QOS and
-- job size (30,000 a month at 10^6 jobs over two years); summing a year
-- of them took most of a second on a loaded machine, where a year of this
-- table is 12 rows per account, read in the report's order from its key.
CREATE TABLE @extschema@.usage_monthly_by_account (
    cluster              text NOT NULL,
    period_start         timestamptz NOT NULL,
    account              text NOT NULL,
    run_secs             bigint NOT NULL,
    cpu_secs             bigint NOT NULL,
    gpu_secs             bigint NOT NULL,
    billing_secs         bigint NOT NULL,
    jobs                 bigint NOT NULL,
    wait_secs            bigint NOT NULL,
    PRIMARY KEY (cluster, period_start, account)
);
COMMENT ON TABLE @extschema@.usage_monthly_by_account IS
'usage_monthly summed by cluster, month and account (the reservations'' rows included): run, CPU, GPU and billing seconds, runs started and their wait. Kept by refresh_rollups().';

-- The cluster's side: what it had and what became of it, per TRES.
CREATE TABLE @extschema@.cluster_usage_hourly (
    cluster              text NOT NULL,
    period_start         timestamptz NOT NULL,
    tres                 text NOT NULL,
    reported_secs        bigint NOT NULL,   -- count the cluster registered, times seconds
    alloc_secs           bigint NOT NULL,
    down_secs            bigint NOT NULL,   -- nodes down or drained (node events)
    pdown_secs           bigint NOT NULL,   -- maintenance reservations
    planned_secs         bigint NOT NULL,   -- eligible jobs not yet started
    idle_secs            bigint NOT NULL,   -- reported - the four above, at least 0
    over_secs            bigint NOT NULL,   -- the four above beyond reported
    PRIMARY KEY (cluster, period_start, tres)
);
COMMENT ON TABLE @extschema@.cluster_usage_hourly IS
'Cluster utilisation by hour and TRES, as sreport cluster Utilization reads it: reported, allocated, down, planned down, planned, idle, over (TRES-seconds). Kept by refresh_rollups().';
CREATE TABLE @extschema@.cluster_usage_daily (LIKE @extschema@.cluster_usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.cluster_usage_daily IS 'cluster_usage_hourly summed by day of the cluster''s time zone.';
CREATE TABLE @extschema@.cluster_usage_monthly (LIKE @extschema@.cluster_usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.cluster_usage_monthly IS 'cluster_usage_hourly summed by month of the cluster''s time zone.';

-- Node and cluster events, as sacctmgr show event -P prints them
-- (import_events): node_name '' is the cluster's own event, whose TRES is
-- what the cluster registered; a node's event is a time it was down or
-- drained, with that node's TRES.  time_end NULL: still going on.
CREATE TABLE @extschema@.node_events (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    node_name            text NOT NULL,
    time_start           timestamptz NOT NULL CHECK (pg_catalog.isfinite(time_start)),
    time_end             timestamptz CHECK (pg_catalog.isfinite(time_end)),
    state                text,
    state_raw            bigint,
    tres                 text NOT NULL,
    reason               text,
    user_ref             text,
    PRIMARY KEY (cluster, node_name, time_start),
    CHECK (time_end IS NULL OR time_end OPERATOR(pg_catalog.>=) time_start)
);
COMMENT ON TABLE @extschema@.node_events IS
'Cluster (node_name '''') and node events from sacctmgr show event: the TRES the cluster registered, and the times nodes were down. Read by refresh_rollups().';

-- Reservations, as sacctmgr show reservation -P prints them
-- (import_reservations).
CREATE TABLE @extschema@.reservations (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    resv_id              bigint NOT NULL,
    name                 text NOT NULL,
    time_start           timestamptz NOT NULL CHECK (pg_catalog.isfinite(time_start)),
    time_end             timestamptz NOT NULL CHECK (pg_catalog.isfinite(time_end)),
    flags                text NOT NULL DEFAULT '',
    tres                 text NOT NULL,
    nodes                text,
    -- the associations it was for (sacctmgr's Assocs, as account and user;
    -- user '' for an account's own association): its time is charged to
    -- them, split evenly
    accounts             text[] NOT NULL DEFAULT '{}',
    users                text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (cluster, resv_id, time_start),
    CHECK (pg_catalog.cardinality(accounts) OPERATOR(pg_catalog.=) pg_catalog.cardinality(users)),
    CHECK (time_end OPERATOR(pg_catalog.>=) time_start)
);
COMMENT ON TABLE @extschema@.reservations IS
'Reservations from sacctmgr show reservation: maintenance ones (flag MAINT) count as planned down in the cluster rollups.';

-- What refresh_rollups still has to recompute: hour ranges per cluster
-- (NULL cluster: every cluster), appended by the triggers on jobs and by
-- the event imports.  No key: an import never waits on a refresh.
CREATE TABLE @extschema@.rollup_dirty (
    cluster              text REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    hours                tstzrange NOT NULL,
    marked_at            timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE @extschema@.rollup_dirty IS
'Ranges of hours whose rollups a write made stale (cluster NULL: every cluster); refresh_rollups() recomputes and removes them.';

-- How far each cluster is rolled up: every hour before rolled_to is in the
-- rollups (apart from rollup_dirty's).
CREATE TABLE @extschema@.rollup_state (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    rolled_from          timestamptz NOT NULL,
    rolled_to            timestamptz NOT NULL,
    refreshed_at         timestamptz NOT NULL DEFAULT pg_catalog.now(),
    CHECK (rolled_to OPERATOR(pg_catalog.>=) rolled_from)
);
COMMENT ON TABLE @extschema@.rollup_state IS
'Per cluster, the hours the rollups cover [rolled_from, rolled_to) and when refresh_rollups() last ran.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_hourly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_daily', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_monthly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_monthly_by_account', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_usage_hourly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_usage_daily', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_usage_monthly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.node_events', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.reservations', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.rollup_dirty', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.rollup_state', '');

-- The hours a statement's runs cover, merged per cluster: the first hour
-- of each run's start to the end of its last (running: no end).  Pending
-- runs count from their eligible time (they are planned time).
CREATE FUNCTION @extschema@._jobs_mark_rollups() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO @extschema@.rollup_dirty (cluster, hours) VALUES (NULL, '(,)');
        RETURN NULL;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO @extschema@.rollup_dirty (cluster, hours)
        SELECT m.cluster, r
          FROM (SELECT n.cluster,
                       range_agg(tstzrange(date_trunc('hour', COALESCE(n.eligible_time, n.start_time, n.submit_time)),
                                           COALESCE(date_trunc('hour', n.end_time) + interval '1 hour', 'infinity'))) AS m
                  FROM new_jobs n GROUP BY n.cluster) m,
               unnest(m.m) r
         WHERE EXISTS (SELECT FROM @extschema@.clusters k WHERE k.cluster = m.cluster);
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        INSERT INTO @extschema@.rollup_dirty (cluster, hours)
        SELECT m.cluster, r
          FROM (SELECT o.cluster,
                       range_agg(tstzrange(date_trunc('hour', COALESCE(o.eligible_time, o.start_time, o.submit_time)),
                                           COALESCE(date_trunc('hour', o.end_time) + interval '1 hour', 'infinity'))) AS m
                  FROM old_jobs o GROUP BY o.cluster) m,
               unnest(m.m) r
         -- a renamed cluster's old name (renames cascade into jobs): its
         -- rows are marked under the new name
         WHERE EXISTS (SELECT FROM @extschema@.clusters k WHERE k.cluster = m.cluster);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER mark_rollups_insert AFTER INSERT ON @extschema@.jobs
    REFERENCING NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_mark_rollups();
CREATE TRIGGER mark_rollups_update AFTER UPDATE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_mark_rollups();
CREATE TRIGGER mark_rollups_delete AFTER DELETE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_mark_rollups();
CREATE TRIGGER mark_rollups_truncate AFTER TRUNCATE ON @extschema@.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._jobs_mark_rollups();

-- Marks hours stale by hand (after editing node_events or reservations,
-- or jobs in a way no trigger sees, such as attaching a partition).
CREATE FUNCTION @extschema@.invalidate_rollups(cluster text, time_from timestamptz, time_to timestamptz)
RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@._report_check_range(time_from, time_to);
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    VALUES (invalidate_rollups.cluster,
            tstzrange(date_trunc('hour', time_from),
                      CASE WHEN date_trunc('hour', time_to) = time_to THEN time_to
                           ELSE date_trunc('hour', time_to) + interval '1 hour' END));
END
$$;
COMMENT ON FUNCTION @extschema@.invalidate_rollups(text, timestamptz, timestamptz) IS
'Marks the hours of [time_from, time_to) of a cluster (NULL: every cluster) stale: the next refresh_rollups() recomputes them.';

-- A time range of a report: finite, in order.
CREATE FUNCTION @extschema@._report_check_range(time_from timestamptz, time_to timestamptz)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF time_from IS NULL OR time_to IS NULL OR NOT isfinite(time_from) OR NOT isfinite(time_to) THEN
        RAISE EXCEPTION 'report range must have a finite start and end, not [%, %)',
                        COALESCE(time_from::text, 'NULL'), COALESCE(time_to::text, 'NULL')
            USING ERRCODE = '22023',
                  HINT = 'Give both ends, e.g. ''2026-01-01'' and ''2026-02-01''.';
    END IF;
    IF time_to <= time_from THEN
        RAISE EXCEPTION 'report range is reversed or empty: start % is not before end %', time_from, time_to
            USING ERRCODE = '22023',
                  HINT = 'The start comes first, as sreport''s start= and end=; swap them.';
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@._report_check_range(timestamptz, timestamptz) IS
'true for a finite report range in order; raises 22023 naming the values otherwise.';

-- The TRES the rollups count, in sreport's order (its TRES ids).
CREATE FUNCTION @extschema@.report_tres()
RETURNS TABLE (tres text, tres_order integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT t.tres, t.ord::integer
      FROM unnest(ARRAY['cpu', 'mem', 'energy', 'node', 'billing', 'gres/gpu']) WITH ORDINALITY AS t (tres, ord);
END;
COMMENT ON FUNCTION @extschema@.report_tres() IS
'The TRES the rollups count (cpu, mem, energy, node, billing, gres/gpu) in the order sreport lists them.';

-- sreport's -T: a comma list of TRES (any case; ALL: every one).
CREATE FUNCTION @extschema@._report_tres_list(tres_list text)
RETURNS TABLE (tres text, tres_order integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item text;
    known text[] := ARRAY['cpu', 'mem', 'energy', 'node', 'billing', 'gres/gpu'];
    picked text[] := '{}';
BEGIN
    IF _report_tres_list.tres_list IS NULL OR btrim(_report_tres_list.tres_list) = '' THEN
        picked := ARRAY['cpu'];
    ELSIF lower(btrim(_report_tres_list.tres_list)) = 'all' THEN
        picked := known;
    ELSE
        FOREACH item IN ARRAY string_to_array(lower(_report_tres_list.tres_list), ',') LOOP
            item := btrim(item);
            IF item = 'gpu' THEN item := 'gres/gpu'; END IF;
            IF NOT item = ANY (known) THEN
                RAISE EXCEPTION 'TRES "%" is not one the reports count', item
                    USING ERRCODE = '22023',
                          HINT = 'Use cpu, mem, energy, node, billing or gres/gpu (a comma list, or ALL), as sreport -T.';
            END IF;
            IF NOT item = ANY (picked) THEN picked := picked || item; END IF;
        END LOOP;
    END IF;
    RETURN QUERY SELECT k.tres, k.ord::integer FROM unnest(known) WITH ORDINALITY AS k (tres, ord)
                  WHERE k.tres = ANY (picked) ORDER BY k.ord;
END
$$;
COMMENT ON FUNCTION @extschema@._report_tres_list(text) IS
'The TRES of a sreport -T list, in sreport''s order; raises 22023 naming a TRES the rollups do not count.';

-- sreport's -t: the unit names it takes (any case, as its own parser).
CREATE FUNCTION @extschema@._report_units(units text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    u text := lower(btrim(COALESCE(units, 'minutes')));
BEGIN
    RETURN CASE
        WHEN u IN ('s', 'sec', 'secs', 'second', 'seconds') THEN 'seconds'
        WHEN u IN ('m', 'min', 'mins', 'minute', 'minutes') THEN 'minutes'
        WHEN u IN ('h', 'hour', 'hours') THEN 'hours'
        WHEN u IN ('p', 'per', 'percent') THEN 'percent'
        WHEN u IN ('secper', 'sp') THEN 'secper'
        WHEN u IN ('minper', 'mp') THEN 'minper'
        WHEN u IN ('hourper', 'hp') THEN 'hourper'
        ELSE @extschema@._raise('22023', format('unknown report units "%s"', units),
                                'Use Seconds, Minutes, Hours, Percent, SecPer, MinPer or HourPer, as sreport -t.', NULL::text)
    END;
END
$$;
COMMENT ON FUNCTION @extschema@._report_units(text) IS
'The canonical name of a sreport -t unit (seconds, minutes, hours, percent, secper, minper, hourper); raises 22023 naming an unknown one.';

CREATE FUNCTION @extschema@._report_percent(secs bigint, total bigint)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT pg_catalog.to_char(CASE WHEN COALESCE(total, 0) OPERATOR(pg_catalog.=) 0 THEN 0::float8
                                   ELSE secs::float8 OPERATOR(pg_catalog.*) 100 OPERATOR(pg_catalog./) total::float8 END,
                              'FM9999999990.00') OPERATOR(pg_catalog.||) '%';
END;
COMMENT ON FUNCTION @extschema@._report_percent(bigint, bigint) IS
'secs as a percentage of total with two decimals and a % sign, as sreport prints it (0.00% of nothing).';

-- A value in TRES-seconds as sreport -P prints it in a unit: the quotient
-- rounded to the nearest (half to even, like printf's %.0f on a double),
-- or a percentage of total with two decimals.
CREATE FUNCTION @extschema@.report_format(secs bigint, total bigint, units text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE @extschema@._report_units(units)
        WHEN 'seconds' THEN secs::text
        WHEN 'minutes' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 60)::bigint::text
        WHEN 'hours' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 3600)::bigint::text
        WHEN 'percent' THEN @extschema@._report_percent(secs, total)
        WHEN 'secper' THEN secs::text OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) @extschema@._report_percent(secs, total) OPERATOR(pg_catalog.||) ')'
        WHEN 'minper' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 60)::bigint::text
                           OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) @extschema@._report_percent(secs, total) OPERATOR(pg_catalog.||) ')'
        ELSE pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 3600)::bigint::text
             OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) @extschema@._report_percent(secs, total) OPERATOR(pg_catalog.||) ')'
    END;
END;
COMMENT ON FUNCTION @extschema@.report_format(bigint, bigint, text) IS
'A TRES-seconds value as sreport -P prints it in a -t unit (Minutes: rounded to the nearest; Percent: of total, two decimals).';


-- Proper names for the reports' "Proper Name" column (sreport takes the
-- GECOS field of the machine it runs on); a user without a row has none.
CREATE TABLE @extschema@.user_info (
    user_name            text PRIMARY KEY CHECK (user_name OPERATOR(pg_catalog.<>) ''),
    proper_name          text NOT NULL DEFAULT ''
);
COMMENT ON TABLE @extschema@.user_info IS
'The proper name the sreport-like reports print for a user (sreport reads the GECOS field of the passwd entry).';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.user_info', '');

-- ---------------------------------------------------------------------------
-- Refreshing the rollups
-- ---------------------------------------------------------------------------

-- Refuses on a Citus cluster: the shards of a distributed jobs fire no
-- trigger, so no write would mark its hours (docs/citus.md).
CREATE FUNCTION @extschema@._citus_no_rollups(caller text)
RETURNS void LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF @extschema@._citus_table_kind('@extschema@.jobs'::regclass) IS NOT NULL THEN
        RAISE EXCEPTION '%: the usage rollups are not available when fairshare.jobs is a Citus table', caller
            USING ERRCODE = '0A000',
                  DETAIL = 'The rollups are kept by triggers on jobs that mark the hours each write touches; Citus fires no trigger of the distributed table on its shards.',
                  HINT = 'Compute usage from the jobs instead (association_usage_at), spread over the workers (docs/citus.md).';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_no_rollups(text) IS
'Raises 0A000 when jobs is a Citus table: the rollups cannot be kept up to date there.';

-- Whether a run's reservation takes its time (slurmdbd: a job with a
-- reservation id adds nothing to the cluster's allocated and planned time,
-- the reservation's whole time being allocated).  A reservation flagged
-- IGNORE_JOBS, or one that was not imported, does not: its runs count as
-- runs outside any reservation.
CREATE FUNCTION @extschema@._rollup_in_reservation(c text, resv bigint)
RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT EXISTS (SELECT FROM @extschema@.reservations v
                    WHERE v.cluster OPERATOR(pg_catalog.=) c AND v.resv_id OPERATOR(pg_catalog.=) resv
                      AND NOT 'IGNORE_JOBS' OPERATOR(pg_catalog.=) ANY (pg_catalog.string_to_array(pg_catalog.upper(v.flags), ',')));
END;
COMMENT ON FUNCTION @extschema@._rollup_in_reservation(text, bigint) IS
'true when a run of reservation resv (a reservation of cluster c, not IGNORE_JOBS) counts in the reservation''s time, not as allocated time of its own.';

-- Recompute the hours of one range [a, b) of one cluster from the jobs, the
-- events and the reservations; w is the refresh's instant (the end of a
-- running job).
--
-- Set-based and linear in what it writes: each run (event, reservation) is
-- cut into its own hours only (generate_series from its first hour to its
-- last), never joined with every hour of the range, and the parts are
-- aggregated once per hour and key.  The cutting is done in integer
-- microseconds since the epoch: a run's bounds are converted once, each
-- hour's part is a subtraction, and the seconds are rounded half up as
-- extract(epoch ...)::bigint rounds them (so the figures are those of the
-- timestamp arithmetic, to the second).  Per-run values (its duration,
-- TRES, wait) are computed once per run behind an OFFSET 0: inlined into
-- the hours, they were recomputed for each hour of the run, which was most
-- of the time of a first refresh (docs/performance.md, "Reports from
-- rollups").  The sums are float8 sums of integers, exact below 2^53 (an
-- hour of a million CPUs is 3.6 × 10^9 CPU-seconds), and cheaper than
-- bigint sums, whose state is a 128-bit integer allocated per group.
CREATE FUNCTION @extschema@._rollup_hours(c text, a timestamptz, b timestamptz, w timestamptz)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- the range in microseconds since the epoch
    a_us bigint := (extract(epoch FROM a) * 1000000)::bigint;
    b_us bigint := (extract(epoch FROM b) * 1000000)::bigint;
    w_us bigint := (extract(epoch FROM w) * 1000000)::bigint;
    hour_us constant bigint := 3600000000;
BEGIN
    DELETE FROM @extschema@.usage_hourly u WHERE u.cluster = c AND u.period_start >= a AND u.period_start < b;
    DELETE FROM @extschema@.cluster_usage_hourly u WHERE u.cluster = c AND u.period_start >= a AND u.period_start < b;

    -- the runs: each hour's part of each run that overlaps [a, b).  For a
    -- run from s to its stop e (its end, or w while it runs) and an hour h:
    -- secs = the part of [s, e) in [h, h + 1 h); its suspended part is the
    -- run's suspended total spread in proportion to time, the integer part
    -- of total × (offset of the part's end) / duration minus the same at
    -- the part's start, so the hours of a run add up to its total.
    INSERT INTO @extschema@.usage_hourly
    SELECT c, to_timestamp((g.h / 1000000)::float8), g.account, g.user_name, g.partition, g.qos, g.cpus,
           g.run::bigint, (g.run * g.cpus)::bigint, g.mem::bigint, g.node::bigint, g.billing::bigint, g.gpu::bigint,
           g.energy::bigint, g.susp::bigint, (g.susp * g.cpus)::bigint, g.jobs, g.wait::bigint, g.at_start
      FROM (SELECT h.h, j.account, j.user_name, j.partition, j.qos, j.cpus,
                   sum(p.run::float8) AS run, sum((p.run * j.mem_mb)::float8) AS mem,
                   sum((p.run * j.nodes)::float8) AS node, sum((p.run * j.billing)::float8) AS billing,
                   sum((p.run * j.gpus)::float8) AS gpu,
                   sum(CASE WHEN j.dur > 0 THEN j.energy * p.secs / j.dur ELSE 0 END::float8) AS energy,
                   sum(p.susp::float8) AS susp,
                   -- the runs started in the hour, and their waits
                   count(*) FILTER (WHERE j.s_us >= h.h AND j.s_us < h.h + hour_us) AS jobs,
                   COALESCE(sum(j.wait::float8) FILTER (WHERE j.s_us >= h.h AND j.s_us < h.h + hour_us), 0) AS wait,
                   -- the runs that started before the hour (and run in it)
                   count(*) FILTER (WHERE j.s_us < h.h) AS at_start
              FROM (SELECT x.account, x.user_name, x.partition, COALESCE(x.qos, '') AS qos, x.cpus,
                           x.mem_mb, x.nodes, x.gpus,
                           extract(epoch FROM LEAST(COALESCE(x.end_time, w), w) - x.start_time)::bigint AS dur,
                           (extract(epoch FROM x.start_time) * 1000000)::bigint AS s_us,
                           (extract(epoch FROM LEAST(COALESCE(x.end_time, w), w)) * 1000000)::bigint AS e_us,
                           (extract(epoch FROM GREATEST(date_trunc('hour', x.start_time), a)) * 1000000)::bigint AS h0,
                           extract(epoch FROM x.suspended)::bigint AS susp_total,
                           COALESCE(round(@extschema@.tres_count(x.tres, 'billing')), 0)::bigint AS billing,
                           COALESCE(round(@extschema@.tres_count(x.tres, 'energy')), 0)::bigint AS energy,
                           extract(epoch FROM x.start_time - COALESCE(x.eligible_time, x.submit_time))::bigint AS wait
                      FROM @extschema@.jobs x
                     WHERE x.cluster = c AND x.start_time IS NOT NULL AND x.start_time < b
                       AND COALESCE(x.end_time, 'infinity'::timestamptz) > a
                       AND LEAST(COALESCE(x.end_time, w), w) > x.start_time
                    OFFSET 0) j
             CROSS JOIN LATERAL generate_series(j.h0, LEAST(j.e_us, b_us) - 1, hour_us) AS h (h)
             CROSS JOIN LATERAL (SELECT (LEAST(j.e_us, h.h + hour_us) - GREATEST(j.s_us, h.h) + 500000) / 1000000 AS secs,
                                        CASE WHEN j.dur > 0 AND j.susp_total > 0
                                             THEN j.susp_total * ((LEAST(j.e_us, h.h + hour_us) - j.s_us + 500000) / 1000000) / j.dur
                                                  - j.susp_total * ((GREATEST(j.s_us, h.h) - j.s_us + 500000) / 1000000) / j.dur
                                             ELSE 0 END AS susp) r
             CROSS JOIN LATERAL (SELECT r.secs, r.secs - r.susp AS run, r.susp) p
             GROUP BY h.h, j.account, j.user_name, j.partition, j.qos, j.cpus) g
     -- in hour order: the index takes the rows near each other
     ORDER BY g.h;

    -- the reservations' idle time: charged to their associations (split
    -- evenly), as slurmdbd does, in rows of partition '' (no job has that
    -- partition).  Idle is the reservation's TRES-seconds of the hour less
    -- what the runs in it used: slurmdbd 22.05 takes each run's seconds
    -- inside the reservation times the reservation's TRES, not the run's
    -- (a run of 8 CPUs for 2000 s in a reservation of 64 leaves 1600 s x 64
    -- idle of an hour; the capture sreport_resv shows it), and charges
    -- nothing when no time of the hour was left idle.
    INSERT INTO @extschema@.usage_hourly
    WITH used AS (
        SELECT v.resv_id, v.time_start AS v_start, h.h, sum(p.secs) AS secs
          FROM @extschema@.jobs j
          JOIN @extschema@.reservations v ON v.cluster = j.cluster AND v.resv_id = j.resv_id
         CROSS JOIN LATERAL (SELECT GREATEST(j.start_time, v.time_start) AS s,
                                    LEAST(COALESCE(j.end_time, w), w, v.time_end) AS e) q
         CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', q.s), a), LEAST(q.e, b) - interval '1 microsecond',
                                            interval '1 hour') AS h (h)
         CROSS JOIN LATERAL (SELECT extract(epoch FROM LEAST(q.e, h.h + interval '1 hour') - GREATEST(q.s, h.h))::bigint AS secs) p
         WHERE j.cluster = c AND j.resv_id IS NOT NULL AND j.start_time IS NOT NULL AND j.start_time < b
           AND COALESCE(j.end_time, 'infinity'::timestamptz) > a AND q.e > q.s
         GROUP BY 1, 2, 3
    )
    SELECT r.cluster, h.h, x.account, x.user_name, '', '', 0,
           sum(d.secs / r.n), sum(i.cpu / r.n), sum(i.mem / r.n), sum(i.node / r.n),
           sum(i.billing / r.n), sum(i.gpu / r.n), 0, 0, 0, 0, 0, 0
      FROM (SELECT v.*, GREATEST(pg_catalog.cardinality(v.accounts), 1) AS n,
                   round(@extschema@.tres_count(v.tres, 'cpu'))::bigint AS cpu,
                   round(@extschema@.tres_count(v.tres, 'mem'))::bigint AS mem,
                   round(@extschema@.tres_count(v.tres, 'node'))::bigint AS node,
                   round(@extschema@.tres_count(v.tres, 'billing'))::bigint AS billing,
                   round(@extschema@.tres_count(v.tres, 'gres/gpu'))::bigint AS gpu
              FROM @extschema@.reservations v
             WHERE v.cluster = c AND v.time_start < b AND v.time_end > a
               AND NOT 'IGNORE_JOBS' = ANY (string_to_array(upper(v.flags), ','))
            OFFSET 0) r
     CROSS JOIN LATERAL unnest(r.accounts, r.users) AS x (account, user_name)
     CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', r.time_start), a),
                                        LEAST(r.time_end, b) - interval '1 microsecond', interval '1 hour') AS h (h)
     CROSS JOIN LATERAL (SELECT extract(epoch FROM LEAST(r.time_end, h.h + interval '1 hour') - GREATEST(r.time_start, h.h))::bigint AS secs) o
      LEFT JOIN used u ON u.resv_id = r.resv_id AND u.v_start = r.time_start AND u.h = h.h
     CROSS JOIN LATERAL (SELECT o.secs - COALESCE(u.secs, 0) AS secs) d
     CROSS JOIN LATERAL (SELECT d.secs * r.cpu AS cpu, d.secs * r.mem AS mem, d.secs * r.node AS node,
                                d.secs * r.billing AS billing, d.secs * r.gpu AS gpu) i
     WHERE x.account IS NOT NULL AND d.secs > 0
     GROUP BY r.cluster, h.h, x.account, x.user_name
    ON CONFLICT (cluster, period_start, account, user_name, partition, qos, cpus) DO UPDATE
       SET run_secs = @extschema@.usage_hourly.run_secs + EXCLUDED.run_secs,
           cpu_secs = @extschema@.usage_hourly.cpu_secs + EXCLUDED.cpu_secs,
           mem_secs = @extschema@.usage_hourly.mem_secs + EXCLUDED.mem_secs,
           node_secs = @extschema@.usage_hourly.node_secs + EXCLUDED.node_secs,
           billing_secs = @extschema@.usage_hourly.billing_secs + EXCLUDED.billing_secs,
           gpu_secs = @extschema@.usage_hourly.gpu_secs + EXCLUDED.gpu_secs;

    -- the cluster: per hour and TRES, what it reported and what became of
    -- it.  Events and reservations are cut into their own hours, as the
    -- runs are (a join with every hour of the range made a first refresh
    -- of years with thousands of events quadratic).
    INSERT INTO @extschema@.cluster_usage_hourly
    WITH tres AS (
        SELECT t.tres FROM @extschema@.report_tres() t
    ), ev AS (          -- events: the cluster's (reported) and its nodes' (down)
        SELECT h.h, t.tres,
               sum(x.secs) FILTER (WHERE x.whole) AS reported,
               sum(x.secs) FILTER (WHERE NOT x.whole) AS down
          FROM @extschema@.node_events e
         CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', e.time_start), a),
                                            LEAST(COALESCE(e.time_end, w), b) - interval '1 microsecond',
                                            interval '1 hour') AS h (h)
         CROSS JOIN tres t
         CROSS JOIN LATERAL (SELECT e.node_name = '' AS whole,
                                    round(@extschema@.tres_count(e.tres, t.tres))::bigint
                                    * extract(epoch FROM LEAST(COALESCE(e.time_end, w), h.h + interval '1 hour')
                                                         - GREATEST(e.time_start, h.h))::bigint AS secs) x
         WHERE e.cluster = c AND e.time_start < b AND COALESCE(e.time_end, w) > a
         GROUP BY 1, 2
    ), resv AS (        -- reservations: maintenance (planned down) and others (allocated)
        SELECT h.h, t.tres,
               sum(x.secs) FILTER (WHERE x.maint) AS pdown,
               sum(x.secs) FILTER (WHERE NOT x.maint) AS alloc
          FROM @extschema@.reservations v
         CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', v.time_start), a),
                                            LEAST(v.time_end, b) - interval '1 microsecond',
                                            interval '1 hour') AS h (h)
         CROSS JOIN tres t
         CROSS JOIN LATERAL (SELECT 'MAINT' = ANY (string_to_array(upper(v.flags), ',')) AS maint,
                                    round(@extschema@.tres_count(v.tres, t.tres))::bigint
                                    * extract(epoch FROM LEAST(v.time_end, h.h + interval '1 hour')
                                                         - GREATEST(v.time_start, h.h))::bigint AS secs) x
         WHERE v.cluster = c AND v.time_start < b AND v.time_end > a
           AND NOT 'IGNORE_JOBS' = ANY (string_to_array(upper(v.flags), ','))
         GROUP BY 1, 2
    ), in_resv AS (     -- the runs in a reservation (not IGNORE_JOBS): slurmdbd
                        -- counts the reservation's whole time as allocated
                        -- (resv below) and not their own time again; their
                        -- parts of each hour as the runs' rows have them
        SELECT h.h, sum((r.run * j.cpus)::float8) AS cpu, sum((r.run * j.mem_mb)::float8) AS mem,
               sum((r.run * j.nodes)::float8) AS node, sum((r.run * j.billing)::float8) AS billing,
               sum((r.run * j.gpus)::float8) AS gpu
          FROM (SELECT x.cpus, x.mem_mb, x.nodes, x.gpus,
                       COALESCE(round(@extschema@.tres_count(x.tres, 'billing')), 0)::bigint AS billing,
                       extract(epoch FROM LEAST(COALESCE(x.end_time, w), w) - x.start_time)::bigint AS dur,
                       (extract(epoch FROM x.start_time) * 1000000)::bigint AS s_us,
                       (extract(epoch FROM LEAST(COALESCE(x.end_time, w), w)) * 1000000)::bigint AS e_us,
                       (extract(epoch FROM GREATEST(date_trunc('hour', x.start_time), a)) * 1000000)::bigint AS h0,
                       extract(epoch FROM x.suspended)::bigint AS susp_total
                  FROM @extschema@.jobs x
                 WHERE x.cluster = c AND x.resv_id IS NOT NULL AND x.start_time IS NOT NULL AND x.start_time < b
                   AND COALESCE(x.end_time, 'infinity'::timestamptz) > a
                   AND LEAST(COALESCE(x.end_time, w), w) > x.start_time
                   AND @extschema@._rollup_in_reservation(c, x.resv_id)
                OFFSET 0) j
         CROSS JOIN LATERAL generate_series(j.h0, LEAST(j.e_us, b_us) - 1, hour_us) AS g (g)
         CROSS JOIN LATERAL (SELECT (LEAST(j.e_us, g.g + hour_us) - GREATEST(j.s_us, g.g) + 500000) / 1000000
                                    - CASE WHEN j.dur > 0 AND j.susp_total > 0
                                           THEN j.susp_total * ((LEAST(j.e_us, g.g + hour_us) - j.s_us + 500000) / 1000000) / j.dur
                                                - j.susp_total * ((GREATEST(j.s_us, g.g) - j.s_us + 500000) / 1000000) / j.dur
                                           ELSE 0 END AS run) r
         CROSS JOIN LATERAL (SELECT to_timestamp((g.g / 1000000)::float8) AS h) h
         GROUP BY h.h
    ), alloc AS (       -- the runs, from the rows just written: one pass, each
                        -- hour's sums (less the runs in reservations) then one
                        -- row per TRES
        SELECT s.h, t.tres, t.secs
          FROM (SELECT u.period_start AS h, sum(u.cpu_secs) AS cpu, sum(u.mem_secs) AS mem,
                       sum(u.node_secs) AS node, sum(u.billing_secs) AS billing, sum(u.gpu_secs) AS gpu,
                       sum(u.energy) AS energy
                  FROM @extschema@.usage_hourly u
                 WHERE u.cluster = c AND u.period_start >= a AND u.period_start < b AND u.partition <> ''
                 GROUP BY 1) s
          LEFT JOIN in_resv ir ON ir.h = s.h
         CROSS JOIN LATERAL (VALUES ('cpu', s.cpu - COALESCE(ir.cpu, 0)::bigint), ('mem', s.mem - COALESCE(ir.mem, 0)::bigint),
                                    ('energy', s.energy), ('node', s.node - COALESCE(ir.node, 0)::bigint),
                                    ('billing', s.billing - COALESCE(ir.billing, 0)::bigint),
                                    ('gres/gpu', s.gpu - COALESCE(ir.gpu, 0)::bigint)) AS t (tres, secs)
    ), planned AS (     -- eligible runs not yet started, from eligible to start (or end):
                        -- their CPUs only, as slurmdbd counts them; cut into
                        -- hours in microseconds, as the runs are
        SELECT to_timestamp((g.h / 1000000)::float8) AS h, 'cpu'::text AS tres, g.secs::bigint AS secs
          FROM (SELECT h.h, sum((j.cpus * ((LEAST(j.e_us, h.h + hour_us) - GREATEST(j.s_us, h.h) + 500000) / 1000000))::float8) AS secs
                  FROM (SELECT x.cpus,
                               (extract(epoch FROM x.eligible_time) * 1000000)::bigint AS s_us,
                               (extract(epoch FROM COALESCE(x.start_time, x.end_time, w)) * 1000000)::bigint AS e_us,
                               (extract(epoch FROM GREATEST(date_trunc('hour', x.eligible_time), a)) * 1000000)::bigint AS h0
                          FROM @extschema@.jobs x
                         WHERE x.cluster = c AND x.eligible_time < b
                           AND COALESCE(x.start_time, x.end_time, 'infinity'::timestamptz) > a
                           AND COALESCE(x.start_time, x.end_time, w) > x.eligible_time
                           -- slurmdbd counts no planned time for a job of a reservation
                           AND (x.resv_id IS NULL OR NOT @extschema@._rollup_in_reservation(c, x.resv_id))
                        OFFSET 0) j
                 CROSS JOIN LATERAL generate_series(j.h0, LEAST(j.e_us, b_us) - 1, hour_us) AS h (h)
                 GROUP BY h.h) g
    ), sums AS (
        SELECT k.h, k.tres,
               COALESCE(ev.reported, 0) AS reported,
               COALESCE(alloc.secs, 0) + COALESCE(resv.alloc, 0) AS alloc,
               COALESCE(ev.down, 0) AS down,
               COALESCE(resv.pdown, 0) AS pdown,
               COALESCE(planned.secs, 0) AS planned
          FROM (SELECT ev.h, ev.tres FROM ev UNION SELECT resv.h, resv.tres FROM resv
                UNION SELECT alloc.h, alloc.tres FROM alloc UNION SELECT planned.h, planned.tres FROM planned) k
          LEFT JOIN ev ON ev.h = k.h AND ev.tres = k.tres
          LEFT JOIN resv ON resv.h = k.h AND resv.tres = k.tres
          LEFT JOIN alloc ON alloc.h = k.h AND alloc.tres = k.tres
          LEFT JOIN planned ON planned.h = k.h AND planned.tres = k.tres
    )
    SELECT c, s.h, s.tres, s.reported, s.alloc, s.down, s.pdown, s.planned,
           GREATEST(s.reported - s.alloc - s.down - s.pdown - s.planned, 0),
           GREATEST(s.alloc + s.down + s.pdown + s.planned - s.reported, 0)
      FROM sums s
     WHERE s.reported <> 0 OR s.alloc <> 0 OR s.down <> 0 OR s.pdown <> 0 OR s.planned <> 0;

    RETURN (extract(epoch FROM b - a) / 3600)::bigint;
END
$$;
COMMENT ON FUNCTION @extschema@._rollup_hours(text, timestamptz, timestamptz, timestamptz) IS
'Recomputes usage_hourly and cluster_usage_hourly for the hours [a, b) of a cluster from its jobs, events and reservations (w: the end of running jobs); returns the number of hours.';

-- Sum the hours of [a, b) into the days and months of the cluster's time
-- zone that hold them, one month at a time: the month's days from its
-- hours, then the month from its days.  A month's rows fit in memory where
-- two years' did not (the sort of every hourly row of a first refresh took
-- longer than computing them).
CREATE FUNCTION @extschema@._rollup_days_months(c text, tz text, a timestamptz, b timestamptz)
RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d0 timestamptz := date_trunc('day', a, tz);
    d1 timestamptz := (date_trunc('day', b - interval '1 microsecond', tz) AT TIME ZONE tz + interval '1 day') AT TIME ZONE tz;
    m1 timestamptz := (date_trunc('month', b - interval '1 microsecond', tz) AT TIME ZONE tz + interval '1 month') AT TIME ZONE tz;
    ma timestamptz := date_trunc('month', a, tz);
    mb timestamptz;
    da timestamptz;
    db timestamptz;
BEGIN
    WHILE ma < m1 LOOP
        mb := (ma AT TIME ZONE tz + interval '1 month') AT TIME ZONE tz;
        -- the days of this month that hold hours of [a, b)
        da := GREATEST(d0, ma);
        db := LEAST(d1, mb);
        DELETE FROM @extschema@.usage_daily u WHERE u.cluster = c AND u.period_start >= da AND u.period_start < db;
        INSERT INTO @extschema@.usage_daily
        SELECT u.cluster, date_trunc('day', u.period_start, tz), u.account, u.user_name, u.partition, u.qos, u.cpus,
               sum(u.run_secs), sum(u.cpu_secs), sum(u.mem_secs), sum(u.node_secs), sum(u.billing_secs), sum(u.gpu_secs),
               sum(u.energy), sum(u.suspended_secs), sum(u.suspended_cpu_secs), sum(u.jobs), sum(u.wait_secs),
               -- the runs at the day's start: those at the start of its first hour
               COALESCE(sum(u.jobs_at_start) FILTER (WHERE u.period_start < date_trunc('day', u.period_start, tz) + interval '1 hour'), 0)
          FROM @extschema@.usage_hourly u
         WHERE u.cluster = c AND u.period_start >= da AND u.period_start < db
         GROUP BY 1, 2, 3, 4, 5, 6, 7;
        DELETE FROM @extschema@.usage_monthly u WHERE u.cluster = c AND u.period_start >= ma AND u.period_start < mb;
        INSERT INTO @extschema@.usage_monthly
        SELECT u.cluster, date_trunc('month', u.period_start, tz), u.account, u.user_name, u.partition, u.qos, u.cpus,
               sum(u.run_secs), sum(u.cpu_secs), sum(u.mem_secs), sum(u.node_secs), sum(u.billing_secs), sum(u.gpu_secs),
               sum(u.energy), sum(u.suspended_secs), sum(u.suspended_cpu_secs), sum(u.jobs), sum(u.wait_secs),
               -- and at the month's start: those of its first day
               COALESCE(sum(u.jobs_at_start) FILTER (WHERE u.period_start = date_trunc('month', u.period_start, tz)), 0)
          FROM @extschema@.usage_daily u
         WHERE u.cluster = c AND u.period_start >= ma AND u.period_start < mb
         GROUP BY 1, 2, 3, 4, 5, 6, 7;
        DELETE FROM @extschema@.usage_monthly_by_account u WHERE u.cluster = c AND u.period_start >= ma AND u.period_start < mb;
        INSERT INTO @extschema@.usage_monthly_by_account
        SELECT u.cluster, u.period_start, u.account, sum(u.run_secs), sum(u.cpu_secs), sum(u.gpu_secs),
               sum(u.billing_secs), sum(u.jobs), sum(u.wait_secs)
          FROM @extschema@.usage_monthly u
         WHERE u.cluster = c AND u.period_start >= ma AND u.period_start < mb
         GROUP BY 1, 2, 3;

        DELETE FROM @extschema@.cluster_usage_daily u WHERE u.cluster = c AND u.period_start >= da AND u.period_start < db;
        INSERT INTO @extschema@.cluster_usage_daily
        SELECT u.cluster, date_trunc('day', u.period_start, tz), u.tres, sum(u.reported_secs), sum(u.alloc_secs),
               sum(u.down_secs), sum(u.pdown_secs), sum(u.planned_secs), sum(u.idle_secs), sum(u.over_secs)
          FROM @extschema@.cluster_usage_hourly u
         WHERE u.cluster = c AND u.period_start >= da AND u.period_start < db
         GROUP BY 1, 2, 3;
        DELETE FROM @extschema@.cluster_usage_monthly u WHERE u.cluster = c AND u.period_start >= ma AND u.period_start < mb;
        INSERT INTO @extschema@.cluster_usage_monthly
        SELECT u.cluster, date_trunc('month', u.period_start, tz), u.tres, sum(u.reported_secs), sum(u.alloc_secs),
               sum(u.down_secs), sum(u.pdown_secs), sum(u.planned_secs), sum(u.idle_secs), sum(u.over_secs)
          FROM @extschema@.cluster_usage_daily u
         WHERE u.cluster = c AND u.period_start >= ma AND u.period_start < mb
         GROUP BY 1, 2, 3;
        ma := mb;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@._rollup_days_months(text, text, timestamptz, timestamptz) IS
'Sums the hourly rollups of the days and months (in time zone tz) that hold [a, b) of a cluster into the daily and monthly ones.';

-- The maintenance call.  Recomputes, for one cluster or every one (NULL),
-- the hours marked stale and the hours completed since the last call (the
-- first call: every hour since the cluster's first job or event), up to
-- the hour that holds up_to, and the days and months that hold them.
-- Safe to run while imports run (see the header); pg_cron:
--   SELECT cron.schedule('fairshare-rollups', '*/10 * * * *', 'SELECT fairshare.refresh_rollups()');
CREATE FUNCTION @extschema@.refresh_rollups(cluster_name text DEFAULT NULL, up_to timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (cluster text, hours_recomputed bigint, rolled_from timestamptz, rolled_to timestamptz)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    w timestamptz;
    k record;
    st record;
    m tstzmultirange;
    r tstzrange;
    lo timestamptz;
    c0 timestamptz;
    c1 timestamptz;
    n bigint;
BEGIN
    PERFORM @extschema@._citus_no_rollups('fairshare.refresh_rollups');
    IF up_to IS NULL OR NOT isfinite(up_to) THEN
        RAISE EXCEPTION 'refresh_rollups: up_to must be a finite instant, not %', COALESCE(up_to::text, 'NULL')
            USING ERRCODE = '22023', HINT = 'Leave it out: the rollups are kept up to now().';
    END IF;
    IF refresh_rollups.cluster_name IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.clusters x WHERE x.cluster = refresh_rollups.cluster_name) THEN
        RAISE EXCEPTION 'refresh_rollups: cluster "%" does not exist', refresh_rollups.cluster_name
            USING ERRCODE = '22023', HINT = 'Pass a cluster of fairshare.clusters, or NULL for every one.';
    END IF;
    -- one refresh at a time; imports never wait for it
    PERFORM pg_advisory_xact_lock(hashtext('fairshare.refresh_rollups'));
    w := date_trunc('hour', up_to);
    -- a mark for every cluster (TRUNCATE jobs) becomes one per cluster
    WITH d AS (DELETE FROM @extschema@.rollup_dirty x WHERE x.cluster IS NULL RETURNING x.hours)
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT x.cluster, d.hours FROM d CROSS JOIN @extschema@.clusters x;

    FOR k IN SELECT x.cluster, x.timezone FROM @extschema@.clusters x
              WHERE refresh_rollups.cluster_name IS NULL OR x.cluster = refresh_rollups.cluster_name
              ORDER BY x.cluster LOOP
        SELECT s.rolled_from, s.rolled_to INTO st FROM @extschema@.rollup_state s WHERE s.cluster = k.cluster;
        WITH d AS (DELETE FROM @extschema@.rollup_dirty x WHERE x.cluster = k.cluster RETURNING x.hours)
        SELECT range_agg(d.hours) INTO m FROM d;
        m := COALESCE(m, '{}'::tstzmultirange);
        -- the first hour the rollups cover: the cluster's first run or
        -- event, or the earliest hour marked
        lo := LEAST(st.rolled_from,
                    (SELECT date_trunc('hour', min(COALESCE(j.start_time, j.end_time, 'infinity'::timestamptz)))
                       FROM @extschema@.jobs j WHERE j.cluster = k.cluster AND st.rolled_from IS NULL),
                    (SELECT date_trunc('hour', min(j.eligible_time))
                       FROM @extschema@.jobs j WHERE j.cluster = k.cluster AND st.rolled_from IS NULL),
                    (SELECT date_trunc('hour', min(e.time_start)) FROM @extschema@.node_events e
                      WHERE e.cluster = k.cluster AND st.rolled_from IS NULL),
                    (SELECT min(lower(x)) FROM unnest(m) x WHERE NOT lower_inf(x)),
                    w);
        m := (m + tstzmultirange(tstzrange(COALESCE(st.rolled_to, lo), w)))
             * tstzmultirange(tstzrange(lo, w));
        n := 0;
        FOR r IN SELECT x FROM unnest(m) x ORDER BY lower(x) LOOP
            -- a week of hours at a time: a week's runs aggregate in memory,
            -- where the 17,520 hours of a first refresh over two years
            -- spilled to disk in many batches (each hour depends only on
            -- the runs, events and reservations that overlap it, so the
            -- pieces give the same rows as one pass)
            c0 := lower(r);
            WHILE c0 < upper(r) LOOP
                c1 := LEAST(c0 + interval '168 hours', upper(r));
                n := n + @extschema@._rollup_hours(k.cluster, c0, c1, w);
                c0 := c1;
            END LOOP;
            PERFORM @extschema@._rollup_days_months(k.cluster, k.timezone, lower(r), upper(r));
        END LOOP;
        INSERT INTO @extschema@.rollup_state AS s (cluster, rolled_from, rolled_to, refreshed_at)
        VALUES (k.cluster, lo, GREATEST(w, lo), now())
        ON CONFLICT ON CONSTRAINT rollup_state_pkey DO UPDATE
           SET rolled_from = LEAST(s.rolled_from, EXCLUDED.rolled_from),
               rolled_to = GREATEST(s.rolled_to, EXCLUDED.rolled_to),
               refreshed_at = EXCLUDED.refreshed_at;
        cluster := k.cluster;
        hours_recomputed := n;
        SELECT s.rolled_from, s.rolled_to INTO rolled_from, rolled_to
          FROM @extschema@.rollup_state s WHERE s.cluster = k.cluster;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.refresh_rollups(text, timestamptz) IS
'The rollups'' maintenance call: recomputes the hours writes marked stale and the hours completed since the last call (one cluster, or NULL: every one), then their days and months; safe to run during imports; schedule it with pg_cron.';

-- ---------------------------------------------------------------------------
-- Reading the rollups
-- ---------------------------------------------------------------------------

-- Where a range [f, t) of a cluster in time zone tz is read from: whole
-- months [m0, m1) from the monthly rollups, whole days [d0, m0) and
-- [m1, d1) from the daily ones, and the hours [f, d0) and [d1, t) from
-- the hourly ones.  A year of usage is 12 monthly periods.
CREATE FUNCTION @extschema@._rollup_bounds(tz text, f timestamptz, t timestamptz,
                                           OUT d0 timestamptz, OUT d1 timestamptz,
                                           OUT m0 timestamptz, OUT m1 timestamptz)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    d0 := date_trunc('day', f, tz);
    IF d0 < f THEN d0 := (d0 AT TIME ZONE tz + interval '1 day') AT TIME ZONE tz; END IF;
    d1 := date_trunc('day', t, tz);
    IF d0 >= d1 THEN d0 := t; d1 := t; END IF;
    m0 := date_trunc('month', d0, tz);
    IF m0 < d0 THEN m0 := (m0 AT TIME ZONE tz + interval '1 month') AT TIME ZONE tz; END IF;
    m1 := date_trunc('month', d1, tz);
    IF m0 >= m1 THEN m0 := d1; m1 := d1; END IF;
END
$$;
COMMENT ON FUNCTION @extschema@._rollup_bounds(text, timestamptz, timestamptz) IS
'Splits [f, t) into the whole months, whole days and hours of time zone tz that the rollups answer it from.';

-- A report's range as sreport takes it: both ends down to their hour.
CREATE FUNCTION @extschema@._report_range(time_from timestamptz, time_to timestamptz,
                                          OUT f timestamptz, OUT t timestamptz)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@._report_check_range(time_from, time_to);
    f := date_trunc('hour', time_from);
    t := date_trunc('hour', time_to);
    IF t <= f THEN
        RAISE EXCEPTION 'report range [%, %) holds no whole hour', time_from, time_to
            USING ERRCODE = '22023',
                  HINT = 'The rollups are by the hour, as slurmdbd''s: sreport takes both ends down to their hour.';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@._report_range(timestamptz, timestamptz) IS
'A report range taken down to whole hours as sreport does; raises 22023 when reversed or shorter than an hour.';

-- The arguments every sreport-like report takes, checked at its entry: a
-- range of whole hours in order, a -t unit and a -T list.  Each report
-- calls it in a statement of its own before its query, so a bad argument
-- raises whatever the data: a check inside the query runs only when the
-- plan reaches it (not at all over an empty cluster list, or when a join's
-- other side is empty).
CREATE FUNCTION @extschema@._report_check_args(time_from timestamptz, time_to timestamptz, units text, tres text)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@._report_range(time_from, time_to);
    PERFORM @extschema@._report_units(units);
    PERFORM @extschema@._report_tres_list(tres);
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@._report_check_args(timestamptz, timestamptz, text, text) IS
'true when a report''s range (whole hours, in order), -t unit and -T list are valid; raises 22023 naming the bad one otherwise.';

-- The usage rows of [f, t) of one cluster (NULL: every one), from the
-- coarsest rollups that cover it.
CREATE FUNCTION @extschema@.usage_between(cluster text, time_from timestamptz, time_to timestamptz)
RETURNS SETOF @extschema@.usage_hourly
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the range is checked first, whatever the clusters (_report_check_args)
    SELECT @extschema@._report_range(time_from, time_to);
    WITH r AS (SELECT * FROM @extschema@._report_range(time_from, time_to)),
    b AS (SELECT k.cluster, r.f, r.t, x.d0, x.d1, x.m0, x.m1
            FROM @extschema@.clusters k CROSS JOIN r
           CROSS JOIN LATERAL @extschema@._rollup_bounds(k.timezone, r.f, r.t) x
           WHERE usage_between.cluster IS NULL OR k.cluster OPERATOR(pg_catalog.=) usage_between.cluster)
    SELECT u.* FROM b JOIN @extschema@.usage_monthly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND u.period_start OPERATOR(pg_catalog.>=) b.m0 AND u.period_start OPERATOR(pg_catalog.<) b.m1
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.usage_daily u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.d0 AND u.period_start OPERATOR(pg_catalog.<) b.m0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.m1 AND u.period_start OPERATOR(pg_catalog.<) b.d1))
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.usage_hourly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.f AND u.period_start OPERATOR(pg_catalog.<) b.d0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.d1 AND u.period_start OPERATOR(pg_catalog.<) b.t));
END;
COMMENT ON FUNCTION @extschema@.usage_between(text, timestamptz, timestamptz) IS
'The rollup rows that make up [time_from, time_to) (whole hours) of a cluster (NULL: every one): whole months from usage_monthly, whole days from usage_daily, the rest from usage_hourly.';

CREATE FUNCTION @extschema@.cluster_usage_between(cluster text, time_from timestamptz, time_to timestamptz)
RETURNS SETOF @extschema@.cluster_usage_hourly
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the range is checked first, whatever the clusters (_report_check_args)
    SELECT @extschema@._report_range(time_from, time_to);
    WITH r AS (SELECT * FROM @extschema@._report_range(time_from, time_to)),
    b AS (SELECT k.cluster, r.f, r.t, x.d0, x.d1, x.m0, x.m1
            FROM @extschema@.clusters k CROSS JOIN r
           CROSS JOIN LATERAL @extschema@._rollup_bounds(k.timezone, r.f, r.t) x
           WHERE cluster_usage_between.cluster IS NULL OR k.cluster OPERATOR(pg_catalog.=) cluster_usage_between.cluster)
    SELECT u.* FROM b JOIN @extschema@.cluster_usage_monthly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND u.period_start OPERATOR(pg_catalog.>=) b.m0 AND u.period_start OPERATOR(pg_catalog.<) b.m1
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.cluster_usage_daily u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.d0 AND u.period_start OPERATOR(pg_catalog.<) b.m0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.m1 AND u.period_start OPERATOR(pg_catalog.<) b.d1))
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.cluster_usage_hourly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.f AND u.period_start OPERATOR(pg_catalog.<) b.d0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.d1 AND u.period_start OPERATOR(pg_catalog.<) b.t));
END;
COMMENT ON FUNCTION @extschema@.cluster_usage_between(text, timestamptz, timestamptz) IS
'The cluster rollup rows that make up [time_from, time_to) (whole hours) of a cluster (NULL: every one), from the coarsest rollups that cover it.';

-- One TRES's seconds of a usage row.
CREATE FUNCTION @extschema@._usage_tres_secs(u @extschema@.usage_hourly, tres text)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE tres WHEN 'cpu' THEN u.cpu_secs WHEN 'mem' THEN u.mem_secs WHEN 'node' THEN u.node_secs
                     WHEN 'billing' THEN u.billing_secs WHEN 'gres/gpu' THEN u.gpu_secs ELSE u.energy END;
END;
COMMENT ON FUNCTION @extschema@._usage_tres_secs(@extschema@.usage_hourly, text) IS
'The TRES-seconds of one TRES (cpu, mem, node, billing, gres/gpu; energy: joules) in a usage rollup row.';

-- Monthly usage per account over a range, from the rollups: the report the
-- performance target is set on (docs/performance.md).  It reads
-- usage_monthly_by_account, already summed: a range scan of its key in
-- the order printed.
CREATE FUNCTION @extschema@.account_usage_monthly(time_from timestamptz, time_to timestamptz, cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, month timestamptz, account text, cpu_hours float8, gpu_hours float8,
               billing_hours float8, jobs bigint, wait_hours float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the range is checked first, whatever the data (_report_check_args)
    SELECT @extschema@._report_check_range(time_from, time_to);
    SELECT u.cluster, u.period_start, u.account,
           u.cpu_secs::float8 OPERATOR(pg_catalog./) 3600, u.gpu_secs::float8 OPERATOR(pg_catalog./) 3600,
           u.billing_secs::float8 OPERATOR(pg_catalog./) 3600, u.jobs,
           u.wait_secs::float8 OPERATOR(pg_catalog./) 3600
      FROM @extschema@.usage_monthly_by_account u
      JOIN @extschema@.clusters k ON k.cluster OPERATOR(pg_catalog.=) u.cluster
     WHERE (account_usage_monthly.cluster IS NULL OR u.cluster OPERATOR(pg_catalog.=) account_usage_monthly.cluster)
       AND u.period_start OPERATOR(pg_catalog.>=) pg_catalog.date_trunc('month', time_from, k.timezone)
       AND u.period_start OPERATOR(pg_catalog.<) time_to
     ORDER BY u.cluster, u.period_start, u.account;
END;
COMMENT ON FUNCTION @extschema@.account_usage_monthly(timestamptz, timestamptz, text) IS
'Per cluster, month (of the cluster''s time zone) and account: CPU-, GPU- and billing-hours (suspended time left out), runs started and their wait in hours, read from usage_monthly_by_account.';

-- ---------------------------------------------------------------------------
-- sreport's reports (sreport -P prints the same cells: sql/sreport.sql)
-- ---------------------------------------------------------------------------

-- Each association's TRES-seconds over a range (jobs and reservations),
-- with the cluster's reported TRES-seconds (the total of Percent).
CREATE FUNCTION @extschema@._assoc_usage(cluster text, time_from timestamptz, time_to timestamptz, tres text)
RETURNS TABLE (cluster text, account text, user_name text, tres text, tres_order integer,
               secs bigint, energy bigint, reported bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH t AS (SELECT * FROM @extschema@._report_tres_list(tres)),
    u AS (SELECT * FROM @extschema@.usage_between(_assoc_usage.cluster, time_from, time_to)),
    rep AS (SELECT c.cluster, c.tres, sum(c.reported_secs)::bigint AS reported
              FROM @extschema@.cluster_usage_between(_assoc_usage.cluster, time_from, time_to) c
             GROUP BY c.cluster, c.tres)
    SELECT u.cluster, u.account, u.user_name, t.tres, t.tres_order,
           sum(@extschema@._usage_tres_secs(u::@extschema@.usage_hourly, t.tres))::bigint,
           sum(u.energy)::bigint, COALESCE(min(rep.reported), 0)
      FROM u CROSS JOIN t
      LEFT JOIN rep ON rep.cluster OPERATOR(pg_catalog.=) u.cluster AND rep.tres OPERATOR(pg_catalog.=) t.tres
     GROUP BY u.cluster, u.account, u.user_name, t.tres, t.tres_order;
END;
COMMENT ON FUNCTION @extschema@._assoc_usage(text, timestamptz, timestamptz, text) IS
'Per association and TRES of a sreport -T list: TRES-seconds and energy over a range from the rollups, with the cluster''s reported TRES-seconds.';

-- sreport cluster AccountUtilizationByUser: the account tree, each
-- account with its subtree's usage, its users (first) and sub-accounts
-- (then), by name; root first with the whole cluster's.
CREATE FUNCTION @extschema@.sreport_account_utilization_by_user(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL)
RETURNS TABLE (line bigint, cluster text, account text, login text, proper_name text, tres_name text,
               used text, energy text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@._report_check_args(time_from, time_to, units, tres);
    WITH RECURSIVE a AS (SELECT * FROM @extschema@._assoc_usage(sreport_account_utilization_by_user.cluster, time_from, time_to, tres)),
    tree AS (
        SELECT k.cluster, k.account, ARRAY['1:' OPERATOR(pg_catalog.||) k.account] AS path,
               ARRAY[k.account] AS accounts
          FROM @extschema@.accounts k WHERE k.parent_account IS NULL
        UNION ALL
        SELECT k.cluster, k.account, tree.path OPERATOR(pg_catalog.||) ('1:' OPERATOR(pg_catalog.||) k.account),
               tree.accounts OPERATOR(pg_catalog.||) k.account
          FROM @extschema@.accounts k
          JOIN tree ON k.cluster OPERATOR(pg_catalog.=) tree.cluster AND k.parent_account OPERATOR(pg_catalog.=) tree.account
    ),
    rows_ AS (
        -- an account: its subtree (its own association and every one below)
        SELECT tree.cluster, tree.account, ''::text AS login, tree.path, a.tres, a.tres_order,
               sum(a.secs)::bigint AS secs, sum(a.energy)::bigint AS energy, min(a.reported) AS reported
          FROM tree
          JOIN tree sub ON sub.cluster OPERATOR(pg_catalog.=) tree.cluster AND tree.account OPERATOR(pg_catalog.=) ANY (sub.accounts)
          JOIN a ON a.cluster OPERATOR(pg_catalog.=) sub.cluster AND a.account OPERATOR(pg_catalog.=) sub.account
         GROUP BY tree.cluster, tree.account, tree.path, a.tres, a.tres_order
        UNION ALL
        -- a user in an account
        SELECT a.cluster, a.account, a.user_name, tree.path OPERATOR(pg_catalog.||) ('0:' OPERATOR(pg_catalog.||) a.user_name),
               a.tres, a.tres_order, a.secs, a.energy, a.reported
          FROM a JOIN tree ON tree.cluster OPERATOR(pg_catalog.=) a.cluster AND tree.account OPERATOR(pg_catalog.=) a.account
         WHERE a.user_name OPERATOR(pg_catalog.<>) ''
    )
    SELECT pg_catalog.row_number() OVER (ORDER BY r.cluster, r.path, r.tres_order),
           r.cluster, r.account, r.login, COALESCE(i.proper_name, ''), r.tres,
           @extschema@.report_format(r.secs, r.reported, units),
           @extschema@.report_format(r.energy, r.reported, units)
      FROM rows_ r LEFT JOIN @extschema@.user_info i ON i.user_name OPERATOR(pg_catalog.=) r.login
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_account_utilization_by_user(timestamptz, timestamptz, text, text, text) IS
'sreport cluster AccountUtilizationByUser from the rollups: per account (its subtree) and user in tree order, usage in a -t unit, per TRES of a -T list.';

-- sreport cluster UserUtilizationByAccount: each user in each account,
-- the most used first.
CREATE FUNCTION @extschema@.sreport_user_utilization_by_account(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL)
RETURNS TABLE (line bigint, cluster text, login text, proper_name text, account text, tres_name text,
               used text, energy text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@._report_check_args(time_from, time_to, units, tres);
    WITH a AS (SELECT x.*, pg_catalog.first_value(x.secs) OVER (PARTITION BY x.cluster, x.account, x.user_name ORDER BY x.tres_order) AS rank_secs
                 FROM @extschema@._assoc_usage(sreport_user_utilization_by_account.cluster, time_from, time_to, tres) x
                WHERE x.user_name OPERATOR(pg_catalog.<>) '')
    SELECT pg_catalog.row_number() OVER (ORDER BY a.cluster, a.rank_secs DESC, a.user_name, a.account, a.tres_order),
           a.cluster, a.user_name, COALESCE(i.proper_name, ''), a.account, a.tres,
           @extschema@.report_format(a.secs, a.reported, units), @extschema@.report_format(a.energy, a.reported, units)
      FROM a LEFT JOIN @extschema@.user_info i ON i.user_name OPERATOR(pg_catalog.=) a.user_name
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_user_utilization_by_account(timestamptz, timestamptz, text, text, text) IS
'sreport cluster UserUtilizationByAccount from the rollups: each user in each account, the most used first, in a -t unit, per TRES of a -T list.';

CREATE FUNCTION @extschema@._report_check_count(n integer)
RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN n IS NULL OR n OPERATOR(pg_catalog.<) 1
                THEN @extschema@._raise('22023', pg_catalog.format('top_count must be 1 or more, not %s', COALESCE(n::text, 'NULL')),
                                        'sreport''s TopCount: how many users to list (10 by default).', NULL::integer)
                ELSE n END;
END;
COMMENT ON FUNCTION @extschema@._report_check_count(integer) IS 'n when it is 1 or more; raises 22023 naming it otherwise.';

-- sreport user TopUsage: the top_count users (each account apart, or all
-- of a user's accounts together with group), the most used first.
CREATE FUNCTION @extschema@.sreport_top_usage(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL,
        top_count integer DEFAULT 10, "group" boolean DEFAULT false)
RETURNS TABLE (line bigint, cluster text, login text, proper_name text, account text, tres_name text,
               used text, energy text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@._report_check_args(time_from, time_to, units, tres), @extschema@._report_check_count(top_count);
    WITH a AS (SELECT x.cluster, x.user_name,
                      CASE WHEN sreport_top_usage."group" THEN '' ELSE x.account END AS grp,
                      pg_catalog.string_agg(x.account, ',' ORDER BY x.account) AS account,
                      x.tres, x.tres_order, sum(x.secs)::bigint AS secs, sum(x.energy)::bigint AS energy,
                      min(x.reported) AS reported
                 FROM @extschema@._assoc_usage(sreport_top_usage.cluster, time_from, time_to, tres) x
                WHERE x.user_name OPERATOR(pg_catalog.<>) ''
                GROUP BY 1, 2, 3, 5, 6),
    ranked AS (SELECT a.*, pg_catalog.first_value(a.secs) OVER (PARTITION BY a.cluster, a.user_name, a.grp ORDER BY a.tres_order) AS rank_secs
                 FROM a),
    top AS (SELECT r.cluster, r.user_name, r.grp,
                   pg_catalog.row_number() OVER (PARTITION BY r.cluster ORDER BY r.rank_secs DESC, r.user_name, r.grp) AS n
              FROM ranked r WHERE r.tres_order OPERATOR(pg_catalog.=) (SELECT min(x.tres_order) FROM ranked x))
    SELECT pg_catalog.row_number() OVER (ORDER BY r.cluster, top.n, r.tres_order),
           r.cluster, r.user_name, COALESCE(i.proper_name, ''), r.account, r.tres,
           @extschema@.report_format(r.secs, r.reported, units), @extschema@.report_format(r.energy, r.reported, units)
      FROM ranked r
      JOIN top ON top.cluster OPERATOR(pg_catalog.=) r.cluster AND top.user_name OPERATOR(pg_catalog.=) r.user_name
              AND top.grp OPERATOR(pg_catalog.=) r.grp
      LEFT JOIN @extschema@.user_info i ON i.user_name OPERATOR(pg_catalog.=) r.user_name
     WHERE top.n OPERATOR(pg_catalog.<=) @extschema@._report_check_count(top_count)
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_top_usage(timestamptz, timestamptz, text, text, text, integer, boolean) IS
'sreport user TopUsage from the rollups: the top_count users by usage (each account apart; group: all their accounts together), in a -t unit, per TRES of a -T list.';

-- sreport cluster Utilization: allocated, down, planned down, idle,
-- planned and reported, per TRES.
CREATE FUNCTION @extschema@.sreport_cluster_utilization(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL)
RETURNS TABLE (line bigint, cluster text, tres_name text, allocated text, down text, plnd_down text,
               idle text, planned text, reported text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@._report_check_args(time_from, time_to, units, tres);
    WITH t AS (SELECT * FROM @extschema@._report_tres_list(tres)),
    s AS (SELECT c.cluster, c.tres, sum(c.alloc_secs)::bigint AS alloc, sum(c.down_secs)::bigint AS down,
                 sum(c.pdown_secs)::bigint AS pdown, sum(c.idle_secs)::bigint AS idle,
                 sum(c.planned_secs)::bigint AS planned, sum(c.reported_secs)::bigint AS reported
            FROM @extschema@.cluster_usage_between(sreport_cluster_utilization.cluster, time_from, time_to) c
           GROUP BY c.cluster, c.tres)
    SELECT pg_catalog.row_number() OVER (ORDER BY s.cluster, t.tres_order), s.cluster, s.tres,
           @extschema@.report_format(s.alloc, s.reported, units), @extschema@.report_format(s.down, s.reported, units),
           @extschema@.report_format(s.pdown, s.reported, units), @extschema@.report_format(s.idle, s.reported, units),
           @extschema@.report_format(s.planned, s.reported, units), @extschema@.report_format(s.reported, s.reported, units)
      FROM s JOIN t ON t.tres OPERATOR(pg_catalog.=) s.tres
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_cluster_utilization(timestamptz, timestamptz, text, text, text) IS
'sreport cluster Utilization from the rollups: allocated, down, planned down (maintenance reservations), idle, planned (eligible jobs waiting, CPUs) and reported, in a -t unit, per TRES of a -T list.';



-- sreport's grouping=: ascending positive CPU counts.
CREATE FUNCTION @extschema@._report_check_groups(cpu_groups integer[])
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    i integer;
BEGIN
    IF COALESCE(cardinality(cpu_groups), 0) = 0 OR array_position(cpu_groups, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'grouping must be a list of CPU counts, not %', COALESCE(cpu_groups::text, 'NULL')
            USING ERRCODE = '22023', HINT = 'As sreport''s grouping=: ascending CPU counts, e.g. {50,250,500,1000}.';
    END IF;
    FOR i IN 1 .. cardinality(cpu_groups) LOOP
        IF cpu_groups[i] < 1 OR (i > 1 AND cpu_groups[i] <= cpu_groups[i - 1]) THEN
            RAISE EXCEPTION 'grouping % is not a list of ascending positive CPU counts (at %)', cpu_groups, cpu_groups[i]
                USING ERRCODE = '22023', HINT = 'As sreport''s grouping=: ascending CPU counts, e.g. {50,250,500,1000}.';
        END IF;
    END LOOP;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@._report_check_groups(integer[]) IS
'true for a list of ascending positive CPU counts (sreport''s grouping=); raises 22023 naming the list otherwise.';

-- The size buckets of sreport's grouping= (ascending CPU counts): their
-- lower bounds and labels ("0-49 CPUs", ..., ">= 1000 CPUs").
CREATE FUNCTION @extschema@._report_size_buckets(cpu_groups integer[])
RETURNS TABLE (bucket integer, lo integer, hi integer, label text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    i integer;
    n integer := COALESCE(cardinality(cpu_groups), 0);
BEGIN
    PERFORM @extschema@._report_check_groups(cpu_groups);
    bucket := 1; lo := 0; hi := cpu_groups[1]; label := format('0-%s CPUs', cpu_groups[1] - 1);
    RETURN NEXT;
    FOR i IN 1 .. n - 1 LOOP
        bucket := i + 1; lo := cpu_groups[i]; hi := cpu_groups[i + 1];
        label := format('%s-%s CPUs', cpu_groups[i], cpu_groups[i + 1] - 1);
        RETURN NEXT;
    END LOOP;
    bucket := n + 1; lo := cpu_groups[n]; hi := NULL; label := format('>= %s CPUs', cpu_groups[n]);
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION @extschema@._report_size_buckets(integer[]) IS
'The job-size buckets of sreport''s grouping= with their labels; raises 22023 on a list that is not ascending positive CPU counts.';

-- sreport job SizesByAccount: each account's jobs' CPU time (or number of
-- runs that ran in the window, job_count) by job size, and its share of the
-- cluster's.  sreport reads these from slurmdbd's job table (every run
-- with time in the window, cut to it); here they come from the rollups.
-- accounts NULL: root (every job); flat: each account's own jobs only.
CREATE FUNCTION @extschema@.sreport_job_sizes_by_account(time_from timestamptz, time_to timestamptz,
        cpu_groups integer[] DEFAULT '{50,250,500,1000}', units text DEFAULT 'minutes',
        accounts text[] DEFAULT NULL, flat boolean DEFAULT false, job_count boolean DEFAULT false,
        cluster text DEFAULT NULL)
RETURNS TABLE (line bigint, cluster text, account text, labels text[], sizes text[], pct_of_cluster text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@._report_check_args(time_from, time_to, units, 'cpu'), @extschema@._report_check_groups(cpu_groups);
    WITH RECURSIVE b AS (SELECT * FROM @extschema@._report_size_buckets(cpu_groups)),
    -- the runs that ran in the window, as sreport counts them: those
    -- started in it, and those already running at its start (the rows of
    -- its first period)
    u AS (SELECT x.cluster, x.account, x.cpus,
                 CASE WHEN NOT job_count THEN x.cpu_secs
                      WHEN x.period_start OPERATOR(pg_catalog.=) time_from THEN x.jobs OPERATOR(pg_catalog.+) x.jobs_at_start
                      ELSE x.jobs END AS v
            FROM @extschema@.usage_between(sreport_job_sizes_by_account.cluster, time_from, time_to) x
           WHERE x.partition OPERATOR(pg_catalog.<>) ''),
    total AS (SELECT u.cluster, sum(u.v)::bigint AS v FROM u GROUP BY u.cluster),
    tree AS (
        SELECT k.cluster, k.account, ARRAY[k.account] AS accounts
          FROM @extschema@.accounts k WHERE k.parent_account IS NULL
        UNION ALL
        SELECT k.cluster, k.account, tree.accounts OPERATOR(pg_catalog.||) k.account
          FROM @extschema@.accounts k
          JOIN tree ON k.cluster OPERATOR(pg_catalog.=) tree.cluster AND k.parent_account OPERATOR(pg_catalog.=) tree.account
    ),
    -- the rows: each account asked for (root by default) with its subtree,
    -- or with flat each account with its own jobs
    picked AS (
        SELECT t.cluster, t.account AS head, sub.account
          FROM tree t JOIN tree sub ON sub.cluster OPERATOR(pg_catalog.=) t.cluster AND t.account OPERATOR(pg_catalog.=) ANY (sub.accounts)
         WHERE NOT flat AND t.account OPERATOR(pg_catalog.=) ANY (COALESCE(sreport_job_sizes_by_account.accounts, ARRAY['root']))
        UNION ALL
        SELECT t.cluster, t.account, t.account FROM tree t
         WHERE flat AND (sreport_job_sizes_by_account.accounts IS NULL OR t.account OPERATOR(pg_catalog.=) ANY (sreport_job_sizes_by_account.accounts))
    ),
    cells AS (
        SELECT p.cluster, p.head, b.bucket, b.label, COALESCE(sum(u.v), 0)::bigint AS v
          FROM (SELECT DISTINCT p.cluster, p.head FROM picked p) p
         CROSS JOIN b
          LEFT JOIN (picked q JOIN u ON u.cluster OPERATOR(pg_catalog.=) q.cluster AND u.account OPERATOR(pg_catalog.=) q.account)
                 ON q.cluster OPERATOR(pg_catalog.=) p.cluster AND q.head OPERATOR(pg_catalog.=) p.head
                AND u.cpus OPERATOR(pg_catalog.>=) b.lo AND (b.hi IS NULL OR u.cpus OPERATOR(pg_catalog.<) b.hi)
         GROUP BY p.cluster, p.head, b.bucket, b.label
    )
    SELECT pg_catalog.row_number() OVER (ORDER BY c.cluster, c.head), c.cluster, c.head,
           pg_catalog.array_agg(c.label ORDER BY c.bucket),
           pg_catalog.array_agg(CASE WHEN job_count THEN c.v::text
                                     ELSE @extschema@.report_format(c.v, total.v, units) END ORDER BY c.bucket),
           @extschema@._report_percent(sum(c.v)::bigint, total.v)
      FROM cells c JOIN total ON total.cluster OPERATOR(pg_catalog.=) c.cluster
     WHERE NOT flat OR c.head IN (SELECT u.account FROM u WHERE u.cluster OPERATOR(pg_catalog.=) c.cluster)
     GROUP BY c.cluster, c.head, total.v
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_job_sizes_by_account(timestamptz, timestamptz, integer[], text, text[], boolean, boolean, text) IS
'sreport job SizesByAccount from the rollups: per account (root by default, its subtree; flat: its own jobs), CPU time of the jobs by size bucket of grouping= in a -t unit (job_count: the runs that ran in the window), and the share of the cluster''s.';

-- ---------------------------------------------------------------------------
-- Events and reservations in from sacctmgr
-- ---------------------------------------------------------------------------

-- One export's header and lines: the position of each column, by name.
CREATE FUNCTION @extschema@._psv_columns(export text, required text[], what text)
RETURNS TABLE (line integer, col text, val text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lines text[];
    header text[];
    missing text;
BEGIN
    IF export IS NULL OR btrim(export, E' \n\r\t') = '' THEN
        RAISE EXCEPTION '%: the export is empty', what
            USING ERRCODE = '22023', HINT = 'Pass what sacctmgr -P printed, its header line first.';
    END IF;
    lines := regexp_split_to_array(rtrim(replace(export, E'\r', ''), E'\n'), E'\n');
    header := string_to_array(lines[1], '|');
    SELECT string_agg(r, ', ') INTO missing FROM unnest(required) r
     WHERE NOT lower(r) = ANY (SELECT lower(h) FROM unnest(header) h);
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION '%: the header "%" has no column %', what, lines[1], missing
            USING ERRCODE = '22023', HINT = 'Export with sacctmgr -P and a format= that names them (docs/reports.md).';
    END IF;
    RETURN QUERY
    SELECT l.n::integer, lower(h.name), NULLIF(f.val, '')
      FROM unnest(lines[2:]) WITH ORDINALITY AS l (txt, n)
     CROSS JOIN LATERAL unnest(string_to_array(l.txt, '|')) WITH ORDINALITY AS f (val, i)
      JOIN unnest(header) WITH ORDINALITY AS h (name, i) ON h.i = f.i
     WHERE l.txt <> '';
END
$$;
COMMENT ON FUNCTION @extschema@._psv_columns(text, text[], text) IS
'The cells of a sacctmgr -P export by line and lower-cased column name; raises 22023 naming the columns it lacks.';

-- An instant as sacctmgr prints it (local time of time_zone; Unknown or
-- None: NULL).
CREATE FUNCTION @extschema@._psv_time(v text, time_zone text)
RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN v IS NULL OR v IN ('Unknown', 'None', '') THEN NULL
                ELSE pg_catalog.timezone(time_zone, v::timestamp) END;
END;
COMMENT ON FUNCTION @extschema@._psv_time(text, text) IS
'A sacct/sacctmgr instant (local time of time_zone) as timestamptz; Unknown and None are NULL.';

-- sacctmgr show event -P all_time format=Cluster,ClusterNodes,Event,
-- NodeName,TimeStart,TimeEnd,State,StateRaw,TRES,Reason,User: replaces the
-- events of the cluster that start at the same instants, and marks their
-- hours stale.
CREATE FUNCTION @extschema@.import_events(cluster text, export text, time_zone text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tz text;
    n bigint;
BEGIN
    SELECT k.timezone INTO tz FROM @extschema@.clusters k WHERE k.cluster = import_events.cluster;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'import_events: cluster "%" does not exist', import_events.cluster
            USING ERRCODE = '22023', HINT = 'Create it in fairshare.clusters first.';
    END IF;
    tz := COALESCE(time_zone, tz);
    CREATE TEMP TABLE _fs_events ON COMMIT DROP AS
    SELECT max(c.val) FILTER (WHERE c.col = 'cluster') AS cluster,
           COALESCE(max(c.val) FILTER (WHERE c.col = 'nodename'), '') AS node_name,
           @extschema@._psv_time(max(c.val) FILTER (WHERE c.col = 'timestart'), tz) AS time_start,
           @extschema@._psv_time(max(c.val) FILTER (WHERE c.col = 'timeend'), tz) AS time_end,
           max(c.val) FILTER (WHERE c.col = 'state') AS state,
           max(c.val) FILTER (WHERE c.col = 'stateraw')::bigint AS state_raw,
           COALESCE(max(c.val) FILTER (WHERE c.col = 'tres'), '') AS tres,
           max(c.val) FILTER (WHERE c.col = 'reason') AS reason,
           max(c.val) FILTER (WHERE c.col = 'user') AS user_ref
      FROM @extschema@._psv_columns(export, ARRAY['NodeName', 'TimeStart', 'TimeEnd', 'TRES'], 'import_events') c
     GROUP BY c.line;
    DELETE FROM pg_temp._fs_events e WHERE e.cluster IS DISTINCT FROM import_events.cluster AND e.cluster IS NOT NULL;
    IF EXISTS (SELECT FROM pg_temp._fs_events e WHERE e.time_start IS NULL) THEN
        RAISE EXCEPTION 'import_events: an event has no TimeStart'
            USING ERRCODE = '22023', HINT = 'Every line of sacctmgr show event has one.';
    END IF;
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT import_events.cluster, tstzrange(date_trunc('hour', e.time_start),
                                            COALESCE(date_trunc('hour', e.time_end) + interval '1 hour', 'infinity'))
      FROM (SELECT x.time_start, x.time_end FROM pg_temp._fs_events x
            UNION ALL
            SELECT v.time_start, v.time_end FROM @extschema@.node_events v
              JOIN pg_temp._fs_events x ON v.cluster = import_events.cluster AND v.node_name = x.node_name
                                       AND v.time_start = x.time_start) e;
    INSERT INTO @extschema@.node_events AS v (cluster, node_name, time_start, time_end, state, state_raw, tres, reason, user_ref)
    SELECT import_events.cluster, e.node_name, e.time_start, e.time_end, e.state, e.state_raw, e.tres, e.reason, e.user_ref
      FROM pg_temp._fs_events e
    ON CONFLICT ON CONSTRAINT node_events_pkey DO UPDATE
       SET time_end = EXCLUDED.time_end, state = EXCLUDED.state, state_raw = EXCLUDED.state_raw,
           tres = EXCLUDED.tres, reason = EXCLUDED.reason, user_ref = EXCLUDED.user_ref;
    GET DIAGNOSTICS n = ROW_COUNT;
    DROP TABLE pg_temp._fs_events;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_events(text, text, text) IS
'Imports a sacctmgr show event -P export (the cluster''s TRES and its nodes'' down times) into node_events and marks their hours stale; returns the events written.';

-- sacctmgr show reservation -P format=Cluster,Name,ID,TRES,TimeStart,
-- TimeEnd,Flags,NodeNames,UnusedWall,Associations; associations: the
-- sacctmgr show assoc -P export with ID, Account and User that maps the
-- Assocs ids to accounts and users.
CREATE FUNCTION @extschema@.import_reservations(cluster text, export text, associations text DEFAULT NULL,
                                                time_zone text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tz text;
    n bigint;
    bad text;
BEGIN
    SELECT k.timezone INTO tz FROM @extschema@.clusters k WHERE k.cluster = import_reservations.cluster;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'import_reservations: cluster "%" does not exist', import_reservations.cluster
            USING ERRCODE = '22023', HINT = 'Create it in fairshare.clusters first.';
    END IF;
    tz := COALESCE(time_zone, tz);
    CREATE TEMP TABLE _fs_resv ON COMMIT DROP AS
    SELECT max(c.val) FILTER (WHERE c.col = 'cluster') AS cluster,
           max(c.val) FILTER (WHERE c.col = 'id')::bigint AS resv_id,
           max(c.val) FILTER (WHERE c.col = 'name') AS name,
           @extschema@._psv_time(max(c.val) FILTER (WHERE c.col = 'timestart'), tz) AS time_start,
           @extschema@._psv_time(max(c.val) FILTER (WHERE c.col = 'timeend'), tz) AS time_end,
           COALESCE(max(c.val) FILTER (WHERE c.col = 'flags'), '') AS flags,
           COALESCE(max(c.val) FILTER (WHERE c.col = 'tres'), '') AS tres,
           max(c.val) FILTER (WHERE c.col IN ('nodename', 'nodenames')) AS nodes,
           string_to_array(max(c.val) FILTER (WHERE c.col IN ('assocs', 'associations')), ',') AS assoc_ids
      FROM @extschema@._psv_columns(export, ARRAY['ID', 'Name', 'TimeStart', 'TimeEnd', 'TRES'], 'import_reservations') c
     GROUP BY c.line;
    DELETE FROM pg_temp._fs_resv e WHERE e.cluster IS DISTINCT FROM import_reservations.cluster AND e.cluster IS NOT NULL;
    IF EXISTS (SELECT FROM pg_temp._fs_resv e WHERE e.time_start IS NULL OR e.time_end IS NULL OR e.resv_id IS NULL) THEN
        RAISE EXCEPTION 'import_reservations: a reservation has no ID, TimeStart or TimeEnd'
            USING ERRCODE = '22023', HINT = 'Every line of sacctmgr show reservation has them.';
    END IF;
    CREATE TEMP TABLE _fs_assoc ON COMMIT DROP AS
    SELECT max(c.val) FILTER (WHERE c.col = 'id') AS id,
           btrim(max(c.val) FILTER (WHERE c.col = 'account')) AS account,
           COALESCE(max(c.val) FILTER (WHERE c.col = 'user'), '') AS user_name
      FROM @extschema@._psv_columns(COALESCE(associations, E'ID|Account|User\n'), ARRAY['ID', 'Account', 'User'],
                                    'import_reservations (associations)') c
     GROUP BY c.line;
    SELECT string_agg(DISTINCT a, ', ') INTO bad
      FROM pg_temp._fs_resv e CROSS JOIN LATERAL unnest(e.assoc_ids) a
     WHERE NOT EXISTS (SELECT FROM pg_temp._fs_assoc x WHERE x.id = btrim(a));
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'import_reservations: association ids % are not in the association export', bad
            USING ERRCODE = '22023',
                  HINT = 'Pass the output of sacctmgr show assoc -P format=Cluster,Account,User,ID as associations: a reservation''s time is charged to its associations.';
    END IF;
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT import_reservations.cluster,
           tstzrange(date_trunc('hour', e.time_start), date_trunc('hour', e.time_end) + interval '1 hour')
      FROM (SELECT x.time_start, x.time_end FROM pg_temp._fs_resv x
            UNION ALL
            SELECT v.time_start, v.time_end FROM @extschema@.reservations v
              JOIN pg_temp._fs_resv x ON v.cluster = import_reservations.cluster AND v.resv_id = x.resv_id
                                     AND v.time_start = x.time_start) e;
    INSERT INTO @extschema@.reservations AS v (cluster, resv_id, name, time_start, time_end, flags, tres, nodes, accounts, users)
    SELECT import_reservations.cluster, e.resv_id, e.name, e.time_start, e.time_end, e.flags, e.tres, e.nodes,
           COALESCE((SELECT array_agg(x.account ORDER BY o.n) FROM unnest(e.assoc_ids) WITH ORDINALITY o (id, n)
                       JOIN pg_temp._fs_assoc x ON x.id = btrim(o.id)), '{}'),
           COALESCE((SELECT array_agg(x.user_name ORDER BY o.n) FROM unnest(e.assoc_ids) WITH ORDINALITY o (id, n)
                       JOIN pg_temp._fs_assoc x ON x.id = btrim(o.id)), '{}')
      FROM pg_temp._fs_resv e
    ON CONFLICT ON CONSTRAINT reservations_pkey DO UPDATE
       SET name = EXCLUDED.name, time_end = EXCLUDED.time_end, flags = EXCLUDED.flags, tres = EXCLUDED.tres,
           nodes = EXCLUDED.nodes, accounts = EXCLUDED.accounts, users = EXCLUDED.users;
    GET DIAGNOSTICS n = ROW_COUNT;
    DROP TABLE pg_temp._fs_resv;
    DROP TABLE pg_temp._fs_assoc;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_reservations(text, text, text, text) IS
'Imports a sacctmgr show reservation -P export into reservations (its Assocs mapped to accounts and users through a sacctmgr show assoc -P export) and marks their hours stale; returns the reservations written.';
-- ---------------------------------------------------------------------------
-- efficiency: what jobs did with what they were given, like seff (issue 14;
-- docs/reports.md#job-efficiency).
--
-- sacct's TotalCPU (CPU time of every step), MaxRSS (the largest resident
-- set of any task of any step), ReqMem and ReqTRES, and the energy
-- (ConsumedEnergyRaw) and GPU utilisation (gres/gpuutil of TRESUsageInAve)
-- where the export has them, read from the same staged export as
-- import_sacct, before it (import_sacct empties the staging table):
--
--   SELECT fairshare.import_stage();
--   \copy import_staging (line) FROM 'day.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
--   SELECT fairshare.import_sacct_efficiency('oracle', 'UTC');
--   SELECT * FROM fairshare.import_sacct('oracle', 'UTC');
--
-- An export without those columns gives no row here and imports as before.
-- ---------------------------------------------------------------------------

CREATE TABLE @extschema@.job_efficiency (
    cluster              text NOT NULL,
    job_id               text NOT NULL,
    submit_time          timestamptz NOT NULL,
    user_name            text,
    account              text,
    total_cpu_secs       float8 CHECK (total_cpu_secs OPERATOR(pg_catalog.>=) 0),
    max_rss_mb           float8 CHECK (max_rss_mb OPERATOR(pg_catalog.>=) 0),
    req_mem_mb           float8 CHECK (req_mem_mb OPERATOR(pg_catalog.>=) 0),
    req_tres             text,
    energy_joules        float8 CHECK (energy_joules OPERATOR(pg_catalog.>=) 0),
    gpu_util_percent     float8 CHECK (gpu_util_percent OPERATOR(pg_catalog.>=) 0),
    PRIMARY KEY (cluster, job_id, submit_time)
);
COMMENT ON TABLE @extschema@.job_efficiency IS
'Per run (cluster, job id, submit time): sacct''s TotalCPU, the largest MaxRSS of its steps, ReqMem (MiB, for the whole job), ReqTRES, energy and GPU utilisation. Filled by import_sacct_efficiency.';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.job_efficiency', '');

-- sacct's [DD-][HH:]MM:SS[.fff] as seconds (NULL when empty).
CREATE FUNCTION @extschema@._sacct_duration(v text)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m text[];
BEGIN
    IF v IS NULL OR v IN ('', 'INVALID', 'UNLIMITED', 'Partition_Limit') THEN
        RETURN NULL;
    END IF;
    m := regexp_match(v, '^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$');
    IF m IS NULL THEN
        RAISE EXCEPTION 'sacct duration "%" is not [DD-][HH:]MM:SS[.fff]', v
            USING ERRCODE = '22007', HINT = 'TotalCPU as sacct -P prints it, e.g. 1-02:03:04 or 05:06.789.';
    END IF;
    RETURN COALESCE(m[1]::float8, 0) * 86400 + COALESCE(m[2]::float8, 0) * 3600 + m[3]::float8 * 60 + m[4]::float8;
END
$$;
COMMENT ON FUNCTION @extschema@._sacct_duration(text) IS
'A sacct duration ([DD-][HH:]MM:SS[.fff], e.g. TotalCPU) in seconds; NULL when empty; raises 22007 naming a value of another form.';

-- sacct's sizes (MaxRSS 2572K, ReqMem 16G; a bare number is bytes) in MiB.
CREATE FUNCTION @extschema@._sacct_size_mb(v text)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m text[];
BEGIN
    IF v IS NULL OR v = '' THEN
        RETURN NULL;
    END IF;
    m := regexp_match(v, '^(\d+(?:\.\d+)?)([KMGTP]?)[nc]?$');
    IF m IS NULL THEN
        RAISE EXCEPTION 'sacct size "%" is not a number with an optional K, M, G, T or P', v
            USING ERRCODE = '22023', HINT = 'MaxRSS or ReqMem as sacct -P prints them, e.g. 2572K or 16G.';
    END IF;
    RETURN m[1]::float8 * CASE m[2] WHEN '' THEN 1.0 / 1048576 WHEN 'K' THEN 1.0 / 1024 WHEN 'M' THEN 1
                                    WHEN 'G' THEN 1024 WHEN 'T' THEN 1048576 ELSE 1073741824 END;
END
$$;
COMMENT ON FUNCTION @extschema@._sacct_size_mb(text) IS
'A sacct size (MaxRSS, ReqMem; K, M, G, T, P suffixes, a bare number in bytes, a trailing n or c ignored) in MiB; raises 22023 naming a value of another form.';

-- Reads the staged export (before import_sacct, which empties it): one
-- row per run, its steps folded in (a step belongs to the last line of its
-- job id above it, as sacct --duplicates prints each run before its
-- steps).  Replaces the rows of the same runs; returns how many.
CREATE FUNCTION @extschema@.import_sacct_efficiency(cluster text, time_zone text DEFAULT NULL,
                                                    staging text DEFAULT 'import_staging')
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel regclass := @extschema@._import_staging(staging);
    tz text;
    header text[];
    n bigint;
BEGIN
    SELECT k.timezone INTO tz FROM @extschema@.clusters k WHERE k.cluster = import_sacct_efficiency.cluster;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'import_sacct_efficiency: cluster "%" does not exist', import_sacct_efficiency.cluster
            USING ERRCODE = '22023', HINT = 'Create it in fairshare.clusters first.';
    END IF;
    tz := COALESCE(time_zone, tz);
    EXECUTE format('SELECT string_to_array(lower(s.line), ''|'') FROM %s s ORDER BY s.line_no LIMIT 1', rel) INTO header;
    IF header IS NULL OR NOT (header && ARRAY['totalcpu', 'maxrss', 'reqmem', 'reqtres', 'consumedenergyraw', 'tresusageinave'])
       OR NOT 'jobid' = ANY (header) OR NOT 'submit' = ANY (header) THEN
        RETURN 0;       -- an export without them: nothing to read
    END IF;
    EXECUTE format($q$
        CREATE TEMP TABLE _fs_eff ON COMMIT DROP AS
        WITH cells AS (
            SELECT s.line_no, h.name, f.val
              FROM %s s
             CROSS JOIN LATERAL unnest(string_to_array(s.line, '|')) WITH ORDINALITY AS f (val, i)
              JOIN unnest($1) WITH ORDINALITY AS h (name, i) ON h.i = f.i
             WHERE s.line_no > (SELECT min(x.line_no) FROM %s x)
        ), l AS (
            SELECT c.line_no,
                   max(c.val) FILTER (WHERE c.name = 'jobid') AS jobid,
                   max(c.val) FILTER (WHERE c.name = 'submit') AS submit,
                   max(c.val) FILTER (WHERE c.name = 'user') AS user_name,
                   max(c.val) FILTER (WHERE c.name = 'account') AS account,
                   max(c.val) FILTER (WHERE c.name = 'allocnodes' OR c.name = 'nnodes') AS nodes,
                   max(c.val) FILTER (WHERE c.name = 'alloccpus') AS cpus,
                   max(c.val) FILTER (WHERE c.name = 'totalcpu') AS total_cpu,
                   max(c.val) FILTER (WHERE c.name = 'maxrss') AS max_rss,
                   max(c.val) FILTER (WHERE c.name = 'reqmem') AS req_mem,
                   max(c.val) FILTER (WHERE c.name = 'reqtres') AS req_tres,
                   max(c.val) FILTER (WHERE c.name = 'consumedenergyraw') AS energy,
                   max(c.val) FILTER (WHERE c.name = 'tresusageinave') AS usage_ave
              FROM cells c GROUP BY c.line_no
        ), owned AS (   -- each line with the line number of its run's job line
            SELECT l.*, split_part(l.jobid, '.', 1) AS job,
                   max(l.line_no) FILTER (WHERE strpos(l.jobid, '.') = 0)
                       OVER (PARTITION BY split_part(l.jobid, '.', 1) ORDER BY l.line_no) AS run_line
              FROM l WHERE NULLIF(l.jobid, '') IS NOT NULL
        )
        SELECT j.job AS job_id, timezone($2, j.submit::timestamp) AS submit_time, j.user_name, j.account,
               @extschema@._sacct_duration(j.total_cpu) AS total_cpu_secs,
               (SELECT max(@extschema@._sacct_size_mb(o.max_rss)) FROM owned o WHERE o.run_line = j.line_no) AS max_rss_mb,
               @extschema@._sacct_size_mb(j.req_mem)
                 * CASE WHEN j.req_mem LIKE '%%c' THEN COALESCE(NULLIF(j.cpus, '')::float8, 1)
                        WHEN j.req_mem LIKE '%%n' THEN COALESCE(NULLIF(j.nodes, '')::float8, 1) ELSE 1 END AS req_mem_mb,
               NULLIF(j.req_tres, '') AS req_tres,
               NULLIF(j.energy, '')::float8 AS energy_joules,
               (SELECT max(substring(o.usage_ave FROM '(?:^|,)gres/gpuutil=([0-9.]+)')::float8) FROM owned o
                 WHERE o.run_line = j.line_no) AS gpu_util_percent
          FROM owned j
         WHERE j.line_no = j.run_line AND NULLIF(j.submit, '') IS NOT NULL AND j.submit <> 'Unknown'$q$, rel, rel)
    USING header, tz;
    INSERT INTO @extschema@.job_efficiency AS e (cluster, job_id, submit_time, user_name, account, total_cpu_secs,
                                                 max_rss_mb, req_mem_mb, req_tres, energy_joules, gpu_util_percent)
    SELECT DISTINCT ON (x.job_id, x.submit_time) import_sacct_efficiency.cluster, x.job_id, x.submit_time, x.user_name,
           x.account, x.total_cpu_secs, x.max_rss_mb, x.req_mem_mb, x.req_tres, x.energy_joules, x.gpu_util_percent
      FROM pg_temp._fs_eff x
    ON CONFLICT ON CONSTRAINT job_efficiency_pkey DO UPDATE
       SET user_name = EXCLUDED.user_name, account = EXCLUDED.account, total_cpu_secs = EXCLUDED.total_cpu_secs,
           max_rss_mb = EXCLUDED.max_rss_mb, req_mem_mb = EXCLUDED.req_mem_mb, req_tres = EXCLUDED.req_tres,
           energy_joules = EXCLUDED.energy_joules, gpu_util_percent = EXCLUDED.gpu_util_percent;
    GET DIAGNOSTICS n = ROW_COUNT;
    DROP TABLE pg_temp._fs_eff;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_sacct_efficiency(text, text, text) IS
'Reads TotalCPU, MaxRSS (largest of the steps), ReqMem, ReqTRES, ConsumedEnergyRaw and gres/gpuutil from a staged sacct export (call it before import_sacct, which empties the staging table) into job_efficiency; returns the runs written (0 for an export without those columns).';

-- seff per run: CPU efficiency = TotalCPU / (elapsed x allocated CPUs),
-- memory efficiency = MaxRSS / ReqMem; the core-hours the CPUs were
-- allocated and not used.
CREATE VIEW @extschema@.job_seff AS
SELECT j.cluster, j.job_id, j.submit_time, j.user_name, j.account, j.state, j.cpus,
       EXTRACT(epoch FROM j.end_time OPERATOR(pg_catalog.-) j.start_time)::float8 AS elapsed_secs,
       e.total_cpu_secs,
       CASE WHEN j.cpus OPERATOR(pg_catalog.>) 0 AND j.end_time OPERATOR(pg_catalog.>) j.start_time
            THEN e.total_cpu_secs OPERATOR(pg_catalog./)
                 (j.cpus OPERATOR(pg_catalog.*) EXTRACT(epoch FROM j.end_time OPERATOR(pg_catalog.-) j.start_time)::float8) END
           AS cpu_efficiency,
       e.max_rss_mb, e.req_mem_mb,
       CASE WHEN e.req_mem_mb OPERATOR(pg_catalog.>) 0 THEN e.max_rss_mb OPERATOR(pg_catalog./) e.req_mem_mb END AS mem_efficiency,
       GREATEST(j.cpus OPERATOR(pg_catalog.*) EXTRACT(epoch FROM j.end_time OPERATOR(pg_catalog.-) j.start_time)::float8
                OPERATOR(pg_catalog.-) e.total_cpu_secs, 0) OPERATOR(pg_catalog./) 3600 AS core_hours_wasted,
       e.energy_joules, e.gpu_util_percent
  FROM @extschema@.jobs j
  JOIN @extschema@.job_efficiency e ON e.cluster OPERATOR(pg_catalog.=) j.cluster AND e.job_id OPERATOR(pg_catalog.=) j.job_id
                                   AND e.submit_time OPERATOR(pg_catalog.=) j.submit_time
 WHERE j.start_time IS NOT NULL AND j.end_time IS NOT NULL;
COMMENT ON VIEW @extschema@.job_seff IS
'seff per ended run: CPU efficiency (TotalCPU / elapsed x CPUs), memory efficiency (MaxRSS / ReqMem), core-hours allocated and not used, energy and GPU utilisation.';

-- Per user in each account: core-hours, those wasted, and the share of
-- runs under 25 % CPU efficiency.
CREATE VIEW @extschema@.efficiency_by_user AS
SELECT s.cluster, s.account, s.user_name, pg_catalog.count(*) AS jobs,
       pg_catalog.sum(s.cpus OPERATOR(pg_catalog.*) s.elapsed_secs) OPERATOR(pg_catalog./) 3600 AS core_hours,
       pg_catalog.sum(s.core_hours_wasted) AS core_hours_wasted,
       pg_catalog.avg(CASE WHEN s.cpu_efficiency OPERATOR(pg_catalog.<) 0.25 THEN 1.0 ELSE 0.0 END)::float8 AS share_under_25_percent
  FROM @extschema@.job_seff s
 WHERE s.cpu_efficiency IS NOT NULL
 GROUP BY s.cluster, s.account, s.user_name;
COMMENT ON VIEW @extschema@.efficiency_by_user IS
'Per cluster, account and user: runs with a CPU efficiency, their core-hours, the core-hours wasted and the share of runs under 25 % CPU efficiency.';

CREATE VIEW @extschema@.efficiency_by_account AS
SELECT s.cluster, s.account, pg_catalog.count(*) AS jobs,
       pg_catalog.sum(s.cpus OPERATOR(pg_catalog.*) s.elapsed_secs) OPERATOR(pg_catalog./) 3600 AS core_hours,
       pg_catalog.sum(s.core_hours_wasted) AS core_hours_wasted,
       pg_catalog.avg(CASE WHEN s.cpu_efficiency OPERATOR(pg_catalog.<) 0.25 THEN 1.0 ELSE 0.0 END)::float8 AS share_under_25_percent
  FROM @extschema@.job_seff s
 WHERE s.cpu_efficiency IS NOT NULL
 GROUP BY s.cluster, s.account;
COMMENT ON VIEW @extschema@.efficiency_by_account IS
'Per cluster and account: runs with a CPU efficiency, their core-hours, the core-hours wasted and the share of runs under 25 % CPU efficiency.';
-- ---------------------------------------------------------------------------
-- statements: limits and alerts for every allocation (GENCI, RWTH or none),
-- monthly statements, and charts in SVG (docs/statements.md).
--
-- Every figure of usage here comes from one function, usage_buckets: the
-- core-hours of a cluster's (or an account's) jobs per hour, day or month.
-- It reads the job table today; when hourly, daily and monthly rollups
-- exist, it is the one place to switch to them.  Hours are core-hours as
-- the allocations count them (billing.sql core_hours: exclusive and
-- whole-node jobs pay whole nodes, GPU-hours at the cluster's
-- gpu_hour_factor).  Every computation takes as_of (time travel); the
-- charts draw with nothing but SVG 1.1, at 800 × 400.
-- ---------------------------------------------------------------------------

-- A bad argument: SQLSTATE, message naming the value, hint.
CREATE FUNCTION @extschema@._statement_refuse(sqlstate text, message text, hint text)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
END
$$;

-- A window of time: both ends given and finite, until after since.
CREATE FUNCTION @extschema@._statement_check_window(fn text, since timestamptz, until timestamptz)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF since IS NULL OR until IS NULL THEN
        PERFORM @extschema@._statement_refuse('22004', format('%s: the window needs both ends (since %s, until %s)',
                                              fn, coalesce(since::text, 'NULL'), coalesce(until::text, 'NULL')),
                                              'Give the window of time as two instants, since < until.');
    END IF;
    IF NOT isfinite(since) OR NOT isfinite(until) THEN
        PERFORM @extschema@._statement_refuse('22008', format('%s: instants must be finite (since %s, until %s)', fn, since, until),
                                              'Give the window of time as two finite instants.');
    END IF;
    IF until <= since THEN
        PERFORM @extschema@._statement_refuse('22023', format('%s: the window is reversed or empty: until %s is not after since %s', fn, until, since),
                                              'The window is [since, until): swap the two instants, or widen it.');
    END IF;
END
$$;

-- The cluster's time zone; 22023 for a cluster that does not exist.
CREATE FUNCTION @extschema@._statement_cluster_tz(fn text, cluster text)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    tz text;
BEGIN
    SELECT c.timezone INTO tz FROM @extschema@.clusters c WHERE c.cluster = _statement_cluster_tz.cluster;
    IF NOT FOUND THEN
        PERFORM @extschema@._statement_refuse('22023', format('%s: no cluster "%s"', fn, cluster),
                                              'Name a cluster of fairshare.clusters.');
    END IF;
    RETURN tz;
END
$$;

-- ---------------------------------------------------------------------------
-- Usage: the one query every report and chart here reads
-- ---------------------------------------------------------------------------

-- Core-hours of a cluster's jobs (of one account, or every account when
-- account is NULL) inside [since, until), per bucket ('hour', 'day' or
-- 'month', starting at midnight / the first of the month in the cluster's
-- time zone), account and user.  Each job counts for the part of its run
-- inside each bucket and the window; a job without an end runs up to
-- until.  core_hours bills as the allocations do (allocation_consumption);
-- cpu_hours counts the cores held, without the GPU factor (utilisation).
-- Computed from the jobs; switch this function to the rollup tables when
-- they exist, and every statement, alert and chart follows.
CREATE FUNCTION @extschema@.usage_buckets(cluster text, of_account text, since timestamptz, until timestamptz,
                                          bucket text DEFAULT 'day')
RETURNS TABLE (bucket_start timestamptz, account text, user_name text, core_hours float8, cpu_hours float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    tz text;
    step interval;
BEGIN
    IF $1 IS NULL OR $5 IS NULL THEN
        PERFORM @extschema@._statement_refuse('22004', 'usage_buckets: cluster and bucket must not be NULL',
                                              'Pass a cluster, and ''hour'', ''day'' or ''month''; of_account NULL means every account.');
    END IF;
    PERFORM @extschema@._statement_check_window('usage_buckets', $3, $4);
    IF lower($5) NOT IN ('hour', 'day', 'month') THEN
        PERFORM @extschema@._statement_refuse('22023', format('usage_buckets: unknown bucket "%s"', $5),
                                              'The buckets are ''hour'', ''day'' and ''month''.');
    END IF;
    tz := @extschema@._statement_cluster_tz('usage_buckets', $1);
    step := ('1 ' || lower($5))::interval;
    RETURN QUERY
    SELECT b.b_start, j.account, j.user_name,
           sum(@extschema@.core_hours(j.cpus, greatest(j.start_time, b.b_start, $3),
                                      least(coalesce(j.end_time, $4), b.b_end, $4),
                                      j.exclusive OR p.whole_node, j.nodes, p.cores_per_node,
                                      j.gpus, c.gpu_hour_factor)),
           sum(@extschema@.core_hours(j.cpus, greatest(j.start_time, b.b_start, $3),
                                      least(coalesce(j.end_time, $4), b.b_end, $4),
                                      j.exclusive OR p.whole_node, j.nodes, p.cores_per_node, 0, 0))
      FROM @extschema@.jobs j
      JOIN @extschema@.partitions p ON p.cluster = j.cluster AND p.partition = j.partition
      JOIN @extschema@.clusters c ON c.cluster = j.cluster
     CROSS JOIN LATERAL (
            SELECT g AT TIME ZONE tz AS b_start, (g + step) AT TIME ZONE tz AS b_end
              FROM generate_series(date_trunc(lower($5), timezone(tz, greatest(j.start_time, $3))),
                                   timezone(tz, least(coalesce(j.end_time, $4), $4)), step) g
             WHERE g AT TIME ZONE tz < least(coalesce(j.end_time, $4), $4)) b
     WHERE j.cluster = $1 AND ($2 IS NULL OR j.account = $2)
       AND j.start_time IS NOT NULL
       AND j.start_time < $4
       AND (j.end_time IS NULL OR j.end_time > $3)
     GROUP BY 1, 2, 3;
END
$$;
COMMENT ON FUNCTION @extschema@.usage_buckets(text, text, timestamptz, timestamptz, text) IS
'Core-hours (billed as allocations count them) and CPU-hours of a cluster''s jobs (one account, or all when NULL) inside [since, until), per hour, day or month of the cluster''s time zone, account and user. The one usage query of statements, alerts and charts.';

-- Hours an allocation has used from its start up to as_of (or its end):
-- allocation_consumption to the instant rather than to the start of a day.
CREATE FUNCTION @extschema@.allocation_used(allocation_id bigint, as_of timestamptz)
RETURNS float8 LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    a record;
    since timestamptz;
    upto timestamptz;
BEGIN
    SELECT al.cluster, al.account, al.period_start, al.period_end, c.timezone INTO a
      FROM @extschema@.allocations al JOIN @extschema@.clusters c ON c.cluster = al.cluster
     WHERE al.allocation_id = $1;
    IF NOT FOUND THEN
        PERFORM @extschema@._statement_refuse('22023', format('allocation_used: no allocation %s', $1),
                                              'Name an allocation_id of fairshare.allocations.');
    END IF;
    IF NOT isfinite(as_of) THEN
        PERFORM @extschema@._statement_refuse('22008', format('allocation_used: as_of must be finite, not %s', as_of),
                                              'Pass the instant to count up to.');
    END IF;
    since := a.period_start::timestamp AT TIME ZONE a.timezone;
    upto := least(as_of, (a.period_end + 1)::timestamp AT TIME ZONE a.timezone);
    IF upto <= since THEN
        RETURN 0;
    END IF;
    RETURN coalesce((SELECT sum(u.core_hours)
                       FROM @extschema@.usage_buckets(a.cluster, a.account, since, upto, 'month') u), 0);
END
$$;
COMMENT ON FUNCTION @extschema@.allocation_used(bigint, timestamptz) IS
'Core-hours an allocation''s account used on its cluster from the period start up to as_of (at most the period end); 22023 for an unknown allocation.';

-- ---------------------------------------------------------------------------
-- Limits and alerts
-- ---------------------------------------------------------------------------

-- Alert thresholds.  A row applies to one allocation, to every allocation
-- of a cluster, or (both NULL) to every allocation of the centre.  For each
-- kind, an allocation uses the rows of the narrowest level that has any:
-- its own, else its cluster's, else the centre's, else the defaults (50, 80
-- and 100 % of the hours used; 30 and 7 days before the end).
-- (No surrogate key: the unique constraint, NULLs equal, is the key.)
CREATE TABLE @extschema@.alert_thresholds (
    cluster              text REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    allocation_id        bigint REFERENCES @extschema@.allocations ON DELETE CASCADE,
    -- used_percent: hours used ≥ value % of the net allocation;
    -- days_left: value days or fewer before the period ends (0: it has ended)
    kind                 text NOT NULL CHECK (kind IN ('used_percent', 'days_left')),
    value                float8 NOT NULL
                         CHECK (value OPERATOR(pg_catalog.>=) 0 AND value OPERATOR(pg_catalog.<=) 100000),
    CHECK (kind OPERATOR(pg_catalog.<>) 'used_percent' OR value OPERATOR(pg_catalog.>) 0),
    CHECK (kind OPERATOR(pg_catalog.<>) 'days_left' OR value OPERATOR(pg_catalog.=) pg_catalog.round(value)),
    CHECK (cluster IS NULL OR allocation_id IS NULL),
    UNIQUE NULLS NOT DISTINCT (cluster, allocation_id, kind, value)
);
COMMENT ON TABLE @extschema@.alert_thresholds IS 'Alert thresholds (hours used in %, days before the end) for one allocation, a cluster''s or the whole centre''s; the narrowest level with rows wins, per kind; none: 50/80/100 % and 30/7 days.';

-- The thresholds in force for an allocation, and where each comes from.
CREATE FUNCTION @extschema@.allocation_thresholds(allocation_id bigint)
RETURNS TABLE (kind text, value float8, source text)
LANGUAGE sql STABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    WITH al AS (
        SELECT a.allocation_id, a.cluster FROM @extschema@.allocations a
         WHERE a.allocation_id OPERATOR(pg_catalog.=) allocation_thresholds.allocation_id),
    candidates AS (
        SELECT t.kind, t.value, 1 AS level, 'allocation' AS source
          FROM @extschema@.alert_thresholds t, al WHERE t.allocation_id OPERATOR(pg_catalog.=) al.allocation_id
        UNION ALL
        SELECT t.kind, t.value, 2, 'cluster'
          FROM @extschema@.alert_thresholds t, al WHERE t.cluster OPERATOR(pg_catalog.=) al.cluster
        UNION ALL
        SELECT t.kind, t.value, 3, 'centre'
          FROM @extschema@.alert_thresholds t, al WHERE t.cluster IS NULL AND t.allocation_id IS NULL
        UNION ALL
        SELECT d.kind, d.value, 4, 'default'
          FROM al, (VALUES ('used_percent', 50::float8), ('used_percent', 80), ('used_percent', 100),
                           ('days_left', 30), ('days_left', 7)) d(kind, value))
    SELECT c.kind, c.value, c.source
      FROM candidates c
     WHERE c.level OPERATOR(pg_catalog.=) (SELECT pg_catalog.min(c2.level) FROM candidates c2
                                            WHERE c2.kind OPERATOR(pg_catalog.=) c.kind)
     ORDER BY c.kind DESC, c.value;
END;
COMMENT ON FUNCTION @extschema@.allocation_thresholds(bigint) IS
'The alert thresholds in force for an allocation (used_percent, days_left) and their level: allocation, cluster, centre or default.';

-- A threshold is notified once per allocation, whatever runs and however
-- often: the rule names the threshold, and this index holds one row per
-- allocation and rule (the GENCI rules never start with limit_).
CREATE UNIQUE INDEX regulation_notifications_limit_once
    ON @extschema@.regulation_notifications (allocation_id, rule)
    WHERE rule OPERATOR(pg_catalog.^@) 'limit_';

-- The threshold name in a notification's rule: limit_used_80,
-- limit_days_30 (12.5 % gives limit_used_12.5).
CREATE FUNCTION @extschema@._alert_rule(kind text, value float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE kind WHEN 'used_percent' THEN 'limit_used_' ELSE 'limit_days_' END
       OPERATOR(pg_catalog.||) value::text;

-- Notifies every threshold an allocation (of any policy) has crossed as of
-- as_of (NULL: now), once each, into regulation_notifications (the table
-- a mailer reads: kind 'alert', rule limit_used_<percent> or
-- limit_days_<days>, check_day the cluster's day of the check).  Hours used
-- are allocation_used, against the net allocation of that day; an
-- allocation of 0 hours is alerted only once it has used some.  Days
-- thresholds fire within the period (days left = period_end + 1 − day),
-- and days_left 0 once it has ended.  Safe to run again and concurrently:
-- the unique index regulation_notifications_limit_once keeps one row per
-- threshold (a second run waits for the first and skips what it wrote).
-- A future as_of is refused.  pg_cron: CALL fairshare.check_allocation_alerts().
CREATE PROCEDURE @extschema@.check_allocation_alerts(as_of timestamptz DEFAULT NULL, cluster text DEFAULT NULL)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    at timestamptz := coalesce($1, now());
    al record;
    th record;
    day date;
    net float8;
    used float8;
    msg text;
BEGIN
    IF NOT isfinite(at) THEN
        PERFORM @extschema@._statement_refuse('22008', format('check_allocation_alerts: as_of must be finite, not %s', at),
                                              'Pass the instant of the check, or NULL for now.');
    END IF;
    IF at > now() THEN
        PERFORM @extschema@._statement_refuse('22023', format('check_allocation_alerts: as_of %s is in the future', at),
                                              'Alerts are sent on usage that has happened: pass an instant up to now, or NULL.');
    END IF;
    IF $2 IS NOT NULL THEN
        PERFORM @extschema@._statement_cluster_tz('check_allocation_alerts', $2);
    END IF;
    FOR al IN
        SELECT a.allocation_id, a.cluster, a.account, a.policy, a.period_start, a.period_end, c.timezone
          FROM @extschema@.allocations a JOIN @extschema@.clusters c ON c.cluster = a.cluster
         WHERE ($2 IS NULL OR a.cluster = $2)
           AND a.period_start <= timezone(c.timezone, at)::date
         ORDER BY a.allocation_id
    LOOP
        day := timezone(al.timezone, at)::date;
        net := @extschema@.allocation_net_hours(al.allocation_id, day);
        used := @extschema@.allocation_used(al.allocation_id, at);
        FOR th IN SELECT t.kind, t.value FROM @extschema@.allocation_thresholds(al.allocation_id) t LOOP
            msg := NULL;
            IF th.kind = 'used_percent' AND used > 0 AND used * 100 >= th.value * net THEN
                msg := format('%s (%s allocation on %s, %s to %s): %s h used of %s h (%s %%) on %s, threshold %s %%',
                              al.account, al.policy, al.cluster, to_char(al.period_start, 'YYYY-MM-DD'),
                              to_char(al.period_end, 'YYYY-MM-DD'), round(used::numeric, 2), round(net::numeric, 2),
                              CASE WHEN net > 0 THEN round((100 * used / net)::numeric, 1)::text ELSE 'no hours granted' END,
                              to_char(day, 'YYYY-MM-DD'), th.value);
            ELSIF th.kind = 'days_left'
                  AND ((th.value > 0 AND day <= al.period_end AND al.period_end + 1 - day <= th.value)
                       OR (th.value = 0 AND day > al.period_end)) THEN
                msg := format('%s (%s allocation on %s): %s on %s; %s h used of %s h, %s h left; threshold %s days',
                              al.account, al.policy, al.cluster,
                              CASE WHEN day > al.period_end THEN 'ended ' || to_char(al.period_end, 'YYYY-MM-DD')
                                   ELSE format('ends %s, %s days left', to_char(al.period_end, 'YYYY-MM-DD'), al.period_end + 1 - day) END,
                              to_char(day, 'YYYY-MM-DD'), round(used::numeric, 2), round(net::numeric, 2),
                              round((net - used)::numeric, 2), th.value);
            END IF;
            IF msg IS NOT NULL THEN
                INSERT INTO @extschema@.regulation_notifications AS n
                       (allocation_id, cluster, account, rule, check_day, kind, hours, message)
                VALUES (al.allocation_id, al.cluster, al.account, @extschema@._alert_rule(th.kind, th.value),
                        day, 'alert', 0, msg)
                ON CONFLICT (allocation_id, rule) WHERE rule ^@ 'limit_' DO NOTHING;
            END IF;
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON PROCEDURE @extschema@.check_allocation_alerts(timestamptz, text) IS
'Notifies, once each, every alert threshold (hours used in %, days before the end) that an allocation of any policy has crossed as of as_of (NULL: now), into regulation_notifications (kind alert, rule limit_*). Idempotent and safe to run concurrently; for pg_cron.';

-- ---------------------------------------------------------------------------
-- Statements
-- ---------------------------------------------------------------------------

-- Project leaders: who is told about an account's allocations and may read
-- its statements (my_allocation_statements).  Row-level security shows a
-- plain user its own rows, as for every table with a user_name.
CREATE TABLE @extschema@.account_leaders (
    cluster              text NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL CHECK (user_name OPERATOR(pg_catalog.<>) ''),
    PRIMARY KEY (cluster, account, user_name),
    FOREIGN KEY (cluster, account) REFERENCES @extschema@.accounts ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.account_leaders IS 'Project leaders of accounts (user_name = their database role): they read the statements of their accounts'' allocations.';

-- The monthly statement of every allocation whose period meets the month
-- (any day of it), as of as_of (a month not over yet is stated up to
-- as_of), one row per line, in order:
--   grant            the initial grant (day: period start)
--   opening_balance  net allocation before the month − hours used before it
--   addition, restitution, grant, take_back
--                    the ledger's entries effective in the month (take-backs
--                    negative), note: rule and reason
--   used             hours used in the month, one line per user
--   used_total       hours used in the month
--   closing_balance  net allocation at the month's end (or as_of) − hours
--                    used to then = opening + entries − used_total
--   used_to_date     hours used from the period start
--   theoretical      GENCI's theoretical consumption of the net allocation
--                    (linear over the period) on the statement's last day
--   projected_exhaustion  day the balance runs out at the month's rate
--                    (hours: core-hours a day); NULL when nothing is used
--   alert            every notification of the month (GENCI warnings,
--                    take-backs, thresholds), note: rule and message
-- Hours are core-hours; days the cluster's calendar.
CREATE FUNCTION @extschema@.allocation_statements(in_month date, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (allocation_id bigint, cluster text, account text, policy text, month date,
               line integer, item text, user_name text, day date, hours float8, note text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    m date;
    a record;
    ms_day date;            -- first day of the month within the period
    me_day date;            -- day after the statement's last day
    ms timestamptz;
    me timestamptz;
    n integer;
    opening_net float8;
    used_before float8;
    used_month float8;
    used_to_date float8;
    net_end float8;
    balance float8;
    elapsed float8;
    rate float8;
    proj date;
    r record;
BEGIN
    IF $1 IS NULL OR $2 IS NULL THEN
        PERFORM @extschema@._statement_refuse('22004', 'allocation_statements: month and as_of must not be NULL',
                                              'Pass any day of the month to state, and the instant to state it as of.');
    END IF;
    IF NOT isfinite($1) OR NOT isfinite($2) THEN
        PERFORM @extschema@._statement_refuse('22008', format('allocation_statements: month %s and as_of %s must be finite', $1, $2),
                                              'Pass any day of the month to state, and the instant to state it as of.');
    END IF;
    m := date_trunc('month', $1)::date;
    FOR a IN
        SELECT al.allocation_id, al.cluster, al.account, al.policy, al.period_start, al.period_end, al.hours, c.timezone
          FROM @extschema@.allocations al JOIN @extschema@.clusters c ON c.cluster = al.cluster
         WHERE al.period_start < (m + interval '1 month')::date AND al.period_end >= m
         ORDER BY al.cluster, al.account, al.period_start
    LOOP
        ms_day := greatest(m, a.period_start);
        ms := ms_day::timestamp AT TIME ZONE a.timezone;
        me_day := least((m + interval '1 month')::date, a.period_end + 1);
        me := least(me_day::timestamp AT TIME ZONE a.timezone, $2);
        IF me <= ms THEN
            -- the month has not begun as of as_of: nothing to state yet
            CONTINUE;
        END IF;
        me_day := least(me_day, (timezone(a.timezone, me) + interval '1 day' - interval '1 microsecond')::date);
        n := 0;
        allocation_id := a.allocation_id; cluster := a.cluster; account := a.account;
        policy := a.policy; month := m;

        line := 1; item := 'grant'; user_name := NULL; day := a.period_start; hours := a.hours;
        note := format('%s allocation, %s to %s', a.policy, to_char(a.period_start, 'YYYY-MM-DD'), to_char(a.period_end, 'YYYY-MM-DD'));
        RETURN NEXT;

        opening_net := @extschema@.allocation_net_hours(a.allocation_id, ms_day - 1);
        used_before := @extschema@.allocation_used(a.allocation_id, ms);
        line := 2; item := 'opening_balance'; day := ms_day; hours := opening_net - used_before;
        note := format('%s h net before the month, %s h used', round(opening_net::numeric, 2), round(used_before::numeric, 2));
        RETURN NEXT;
        n := 2;

        FOR r IN SELECT l.kind, l.effective_date, l.hours, l.rule, l.reason
                   FROM @extschema@.ledger l
                  WHERE l.allocation_id = a.allocation_id AND l.effective_date >= ms_day AND l.effective_date < me_day
                  ORDER BY l.effective_date, l.entry_id LOOP
            n := n + 1; line := n; item := r.kind; day := r.effective_date;
            hours := CASE WHEN r.kind = 'take_back' THEN -r.hours ELSE r.hours END;
            note := r.rule || coalesce(': ' || r.reason, '');
            RETURN NEXT;
        END LOOP;

        used_month := 0;
        FOR r IN SELECT u.user_name, sum(u.core_hours) AS h
                   FROM @extschema@.usage_buckets(a.cluster, a.account, ms, me, 'month') u
                  GROUP BY u.user_name ORDER BY u.user_name LOOP
            n := n + 1; line := n; item := 'used'; user_name := r.user_name; day := NULL; hours := r.h;
            note := NULL;
            used_month := used_month + r.h;
            RETURN NEXT;
        END LOOP;
        user_name := NULL;
        n := n + 1; line := n; item := 'used_total'; day := NULL; hours := used_month;
        note := format('%s to %s (%s)', to_char(timezone(a.timezone, ms), 'YYYY-MM-DD HH24:MI'),
                       to_char(timezone(a.timezone, me), 'YYYY-MM-DD HH24:MI'), a.timezone);
        RETURN NEXT;

        net_end := @extschema@.allocation_net_hours(a.allocation_id, me_day - 1);
        used_to_date := used_before + used_month;
        balance := net_end - used_to_date;
        n := n + 1; line := n; item := 'closing_balance'; day := me_day - 1; hours := balance;
        note := format('%s h net, %s h used to date', round(net_end::numeric, 2), round(used_to_date::numeric, 2));
        RETURN NEXT;
        n := n + 1; line := n; item := 'used_to_date'; day := me_day - 1; hours := used_to_date; note := NULL;
        RETURN NEXT;
        n := n + 1; line := n; item := 'theoretical'; day := me_day - 1;
        hours := @extschema@.theoretical_consumption(net_end, a.period_start, a.period_end, me_day);
        note := 'net allocation × days elapsed / days of the period';
        RETURN NEXT;

        elapsed := extract(epoch FROM me - ms) / 86400.0;
        rate := used_month / elapsed;
        proj := NULL;
        IF balance <= 0 THEN
            note := 'exhausted';
        ELSIF rate > 0 THEN
            proj := timezone(a.timezone, me + make_interval(secs => least(balance / rate * 86400.0, 3.0e9)))::date;
            note := format('at %s h a day, the rate of the month', round(rate::numeric, 2))
                    || CASE WHEN proj > a.period_end THEN ', not before the period ends' ELSE '' END;
        ELSE
            note := 'nothing used this month: no projection';
        END IF;
        n := n + 1; line := n; item := 'projected_exhaustion'; day := proj; hours := rate;
        RETURN NEXT;

        FOR r IN SELECT x.rule, x.check_day, x.kind, x.hours, x.message, x.sent_at
                   FROM @extschema@.regulation_notifications x
                  WHERE x.allocation_id = a.allocation_id AND x.check_day >= ms_day AND x.check_day < me_day
                    AND x.check_day <= timezone(a.timezone, $2)::date
                  ORDER BY x.check_day, x.notification_id LOOP
            n := n + 1; line := n; item := 'alert'; day := r.check_day; hours := r.hours;
            note := r.rule || ' (' || r.kind || CASE WHEN r.sent_at IS NULL THEN ', not sent yet' ELSE ', sent' END
                    || '): ' || r.message;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.allocation_statements(date, timestamptz) IS
'Monthly statement of every allocation (GENCI, RWTH, none) meeting the month, as of as_of: grant, opening balance, ledger entries, hours used per user, closing balance, theoretical consumption, projected exhaustion, alerts. One row per line, for COPY ... CSV.';

-- ---------------------------------------------------------------------------
-- Charts: SVG, 800 × 400, drawn with nothing but SVG
-- ---------------------------------------------------------------------------
-- The plot area runs from x 70 to 640 and from y 350 (0) up to 40 (the top
-- of the scale); the legend is right of it, from x 655.  The scale's top is
-- the smallest 1, 2, 2.5 or 5 × 10^k at or above the largest value; an
-- instant t of [t0, t1] is at x = 70 + 570 (t − t0) / (t1 − t0), a value v
-- at y = 350 − 310 v / top (test/charts.sh reads the charts this way).

CREATE FUNCTION @extschema@._chart_top(v float8)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    p float8;
    f float8;
BEGIN
    IF NOT (v > 0) OR v = 'Infinity' THEN
        RETURN 1;
    END IF;
    p := power(10::float8, floor(log(v)));
    FOREACH f IN ARRAY ARRAY[1, 2, 2.5, 5, 10]::float8[] LOOP
        IF f * p >= v * (1 - 1e-12) THEN
            RETURN f * p;
        END IF;
    END LOOP;
    RETURN 10 * p;
END
$$;

CREATE FUNCTION @extschema@._chart_x(t timestamptz, t0 timestamptz, t1 timestamptz)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN 70 OPERATOR(pg_catalog.+) ((570 OPERATOR(pg_catalog.*)
       pg_catalog.date_part('epoch', t OPERATOR(pg_catalog.-) t0))
       OPERATOR(pg_catalog./) pg_catalog.date_part('epoch', t1 OPERATOR(pg_catalog.-) t0));

CREATE FUNCTION @extschema@._chart_y(v float8, top float8)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN 350 OPERATOR(pg_catalog.-) ((310 OPERATOR(pg_catalog.*) v) OPERATOR(pg_catalog./) top);

-- A coordinate or number as SVG writes it.
CREATE FUNCTION @extschema@._svg_n(v float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.round(v::numeric, 1)::text;

CREATE FUNCTION @extschema@._svg_escape(s text)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
           s, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;');

-- A tick label: 1 500 000 → 1.5M, 2 500 → 2.5k, 0.25 → 0.25.
CREATE FUNCTION @extschema@._chart_label(v float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.>=) 1e6
            THEN pg_catalog.trim_scale(pg_catalog.round((v OPERATOR(pg_catalog./) 1e6)::numeric, 2))::text OPERATOR(pg_catalog.||) 'M'
            WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.>=) 1e4
            THEN pg_catalog.trim_scale(pg_catalog.round((v OPERATOR(pg_catalog./) 1e3)::numeric, 2))::text OPERATOR(pg_catalog.||) 'k'
            ELSE pg_catalog.trim_scale(pg_catalog.round(v::numeric, 2))::text END;

-- The frame: white background, title, the y axis with 5 intervals up to
-- top and its unit, the x axis with date ticks over [t0, t1] (at most
-- about 8, on whole hours, days or months of the time zone), a legend of
-- (colour, label) pairs, and the body drawn over the grid.
CREATE FUNCTION @extschema@._svg_chart(title text, unit text, top float8, t0 timestamptz, t1 timestamptz,
                                       tz text, legend text[], body text)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    s text;
    i integer;
    span float8 := extract(epoch FROM t1 - t0);
    step interval;
    trunc_to text;
    fmt text;
    g timestamp;
    x float8;
BEGIN
    s := '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400" viewBox="0 0 800 400" '
         || 'font-family="DejaVu Sans, Arial, Helvetica, sans-serif" font-size="12">'
         || '<rect x="0" y="0" width="800" height="400" fill="#ffffff"/>'
         || '<text x="400" y="22" text-anchor="middle" font-size="15" font-weight="bold">'
         || @extschema@._svg_escape(title) || '</text>';
    -- y axis: grid, ticks, labels, unit
    FOR i IN 0..5 LOOP
        s := s || format('<line x1="70" y1="%1$s" x2="640" y2="%1$s" stroke="#e0e0e0" stroke-width="1"/>'
                         '<text x="64" y="%2$s" text-anchor="end">%3$s</text>',
                         @extschema@._svg_n(350 - 62 * i), @extschema@._svg_n(350 - 62 * i + 4),
                         @extschema@._chart_label(top * i / 5));
    END LOOP;
    s := s || format('<text x="18" y="195" text-anchor="middle" transform="rotate(-90 18 195)">%s</text>',
                     @extschema@._svg_escape(unit));
    -- x axis: ticks on whole hours, days or months
    SELECT st, tr, f INTO step, trunc_to, fmt
      FROM (VALUES (interval '10 minutes', 'hour', 'HH24:MI'), (interval '15 minutes', 'hour', 'HH24:MI'),
                   (interval '30 minutes', 'hour', 'HH24:MI'),
                   (interval '1 hour', 'hour', 'HH24:MI'), (interval '3 hours', 'hour', 'MM-DD HH24h'),
                   (interval '6 hours', 'hour', 'MM-DD HH24h'), (interval '12 hours', 'hour', 'MM-DD HH24h'),
                   (interval '1 day', 'day', 'YYYY-MM-DD'), (interval '2 days', 'day', 'YYYY-MM-DD'),
                   (interval '7 days', 'day', 'YYYY-MM-DD'), (interval '14 days', 'day', 'YYYY-MM-DD'),
                   (interval '1 month', 'month', 'YYYY-MM-DD'), (interval '2 months', 'month', 'YYYY-MM-DD'),
                   (interval '3 months', 'month', 'YYYY-MM-DD'), (interval '6 months', 'month', 'YYYY-MM'),
                   (interval '1 year', 'year', 'YYYY')) v(st, tr, f)
     WHERE span / extract(epoch FROM st) <= 7
     ORDER BY extract(epoch FROM st) LIMIT 1;
    IF step IS NULL THEN
        step := interval '10 years'; trunc_to := 'year'; fmt := 'YYYY';
    END IF;
    IF span <= 86400 * 2 AND fmt = 'HH24:MI' THEN
        -- a short window: say which day it is
        s := s || format('<text x="355" y="392" text-anchor="middle" fill="#555555">%s (%s)</text>',
                         to_char(timezone(tz, t0), 'YYYY-MM-DD'), @extschema@._svg_escape(tz));
    END IF;
    g := date_trunc(trunc_to, timezone(tz, t0));
    -- (a bar chart with a label under each bar passes no t0: no date ticks)
    WHILE t0 IS NOT NULL AND g AT TIME ZONE tz <= t1 LOOP
        IF g AT TIME ZONE tz >= t0 THEN
            x := @extschema@._chart_x(g AT TIME ZONE tz, t0, t1);
            s := s || format('<line x1="%1$s" y1="350" x2="%1$s" y2="356" stroke="#333333"/>'
                             '<text x="%1$s" y="370" text-anchor="middle">%2$s</text>',
                             @extschema@._svg_n(x), to_char(g, fmt));
        END IF;
        g := g + step;
    END LOOP;
    -- the axes under the data: a line at 0 stays visible
    s := s || '<line x1="70" y1="350" x2="640" y2="350" stroke="#333333" stroke-width="1"/>'
           || '<line x1="70" y1="40" x2="70" y2="350" stroke="#333333" stroke-width="1"/>';
    s := s || body;
    -- legend
    FOR i IN 1..coalesce(array_length(legend, 1), 0) / 2 LOOP
        s := s || format('<rect x="655" y="%s" width="14" height="14" fill="%s"/><text x="675" y="%s">%s</text>',
                         50 + 22 * (i - 1), legend[2 * i - 1], 50 + 22 * (i - 1) + 12,
                         @extschema@._svg_escape(left(legend[2 * i], 18)));
    END LOOP;
    RETURN s || '</svg>';
END
$$;

-- The units the charts take: a factor from core-hours and the axis name.
CREATE FUNCTION @extschema@._chart_units(fn text, units text, percent_ok boolean, OUT factor float8, OUT label text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    CASE lower(coalesce(units, ''))
        WHEN 'hours' THEN factor := 1; label := 'core-hours';
        WHEN 'minutes' THEN factor := 60; label := 'core-minutes';
        WHEN 'seconds' THEN factor := 3600; label := 'core-seconds';
        WHEN 'percent' THEN
            IF NOT percent_ok THEN
                PERFORM @extschema@._statement_refuse('22023', format('%s: units "%s" do not apply here', fn, units),
                                                      'This chart takes ''hours'', ''minutes'' or ''seconds''.');
            END IF;
            factor := NULL; label := '% of the cluster''s cores';
        ELSE
            PERFORM @extschema@._statement_refuse('22023', format('%s: unknown units "%s"', fn, coalesce(units, 'NULL')),
                                                  CASE WHEN percent_ok THEN 'The units are ''percent'', ''hours'', ''minutes'' and ''seconds'' (as sreport -t).'
                                                       ELSE 'The units are ''hours'', ''minutes'' and ''seconds'' (as sreport -t).' END);
    END CASE;
END
$$;

-- The colours of the charts' series (Tableau 10).
CREATE FUNCTION @extschema@._chart_colour(i integer)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (ARRAY['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'])
       [1 OPERATOR(pg_catalog.+) ((i OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.%) 10)];

-- An allocation's burn-down over its period, as of as_of: hours used
-- (cumulative, day by day up to as_of; blue), the theoretical consumption
-- of the net allocation (orange), the net allocation (green, stepping at
-- ledger entries), take-backs (red triangles at the net they leave, with
-- their hours), and as_of (grey).
CREATE FUNCTION @extschema@.burndown_svg(allocation_id bigint, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    a record;
    t0 timestamptz;
    t1 timestamptz;
    upto timestamptz;
    top float8;
    used_t timestamptz[];
    used_v float8[];
    net_t timestamptz[];
    net_v float8[];
    theo_t timestamptz[];
    theo_v float8[];
    tb_t timestamptz[];
    tb_v float8[];
    tb_h float8[];
    pts text;
    body text := '';
    i integer;
BEGIN
    IF $1 IS NULL OR $2 IS NULL THEN
        PERFORM @extschema@._statement_refuse('22004', 'burndown_svg: allocation_id and as_of must not be NULL',
                                              'Pass an allocation_id of fairshare.allocations and an instant.');
    END IF;
    SELECT al.allocation_id, al.cluster, al.account, al.policy, al.period_start, al.period_end, c.timezone INTO a
      FROM @extschema@.allocations al JOIN @extschema@.clusters c ON c.cluster = al.cluster
     WHERE al.allocation_id = $1;
    IF NOT FOUND THEN
        PERFORM @extschema@._statement_refuse('22023', format('burndown_svg: no allocation %s', $1),
                                              'Name an allocation_id of fairshare.allocations.');
    END IF;
    IF NOT isfinite($2) THEN
        PERFORM @extschema@._statement_refuse('22008', format('burndown_svg: as_of must be finite, not %s', $2),
                                              'Pass the instant to draw the burn-down as of.');
    END IF;
    t0 := a.period_start::timestamp AT TIME ZONE a.timezone;
    t1 := (a.period_end + 1)::timestamp AT TIME ZONE a.timezone;
    upto := greatest(least($2, t1), t0);
    -- hours used: 0 at the start, then at the end of each day (of the
    -- cluster's calendar) up to as_of
    IF upto > t0 THEN
        SELECT array_agg(x.t ORDER BY x.t), array_agg(x.v ORDER BY x.t) INTO used_t, used_v
          FROM (SELECT t0 AS t, 0::float8 AS v
                UNION ALL
                SELECT least((g + interval '1 day') AT TIME ZONE a.timezone, upto),
                       sum(coalesce(u.h, 0)) OVER (ORDER BY g)
                  FROM generate_series(a.period_start::timestamp, timezone(a.timezone, upto - interval '1 microsecond'),
                                       interval '1 day') g
                  LEFT JOIN (SELECT b.bucket_start, sum(b.core_hours) AS h
                               FROM @extschema@.usage_buckets(a.cluster, a.account, t0, upto, 'day') b
                              GROUP BY 1) u ON u.bucket_start = g AT TIME ZONE a.timezone) x;
    END IF;
    -- the net allocation from the start and on each day it changes
    SELECT array_agg(x.day::timestamp AT TIME ZONE a.timezone ORDER BY x.day),
           array_agg(@extschema@.allocation_net_hours(a.allocation_id, x.day) ORDER BY x.day)
      INTO net_t, net_v
      FROM (SELECT a.period_start AS day
            UNION
            SELECT l.effective_date FROM @extschema@.ledger l
             WHERE l.allocation_id = a.allocation_id AND l.effective_date > a.period_start
               AND l.effective_date <= a.period_end) x;
    -- theoretical consumption of the net allocation, day by day
    SELECT array_agg(g AT TIME ZONE a.timezone ORDER BY g),
           array_agg(@extschema@.theoretical_consumption(
                         @extschema@.allocation_net_hours(a.allocation_id, least(g::date, a.period_end)),
                         a.period_start, a.period_end, g::date) ORDER BY g)
      INTO theo_t, theo_v
      FROM generate_series(a.period_start::timestamp, (a.period_end + 1)::timestamp, interval '1 day') g;
    -- take-backs: the day, the net they leave, the hours taken
    SELECT array_agg(l.effective_date::timestamp AT TIME ZONE a.timezone ORDER BY l.effective_date),
           array_agg(@extschema@.allocation_net_hours(a.allocation_id, l.effective_date) ORDER BY l.effective_date),
           array_agg(l.h ORDER BY l.effective_date)
      INTO tb_t, tb_v, tb_h
      FROM (SELECT l.effective_date, sum(l.hours) AS h FROM @extschema@.ledger l
             WHERE l.allocation_id = a.allocation_id AND l.kind = 'take_back'
               AND l.effective_date >= a.period_start AND l.effective_date <= a.period_end
             GROUP BY l.effective_date) l;

    top := @extschema@._chart_top(greatest((SELECT max(v) FROM unnest(used_v) v), (SELECT max(v) FROM unnest(net_v) v),
                                           (SELECT max(v) FROM unnest(theo_v) v)));
    -- the net allocation as steps, to the end of the period
    pts := '';
    FOR i IN 1..array_length(net_t, 1) LOOP
        IF i > 1 THEN
            pts := pts || @extschema@._svg_n(@extschema@._chart_x(net_t[i], t0, t1)) || ','
                       || @extschema@._svg_n(@extschema@._chart_y(net_v[i - 1], top)) || ' ';
        END IF;
        pts := pts || @extschema@._svg_n(@extschema@._chart_x(net_t[i], t0, t1)) || ','
                   || @extschema@._svg_n(@extschema@._chart_y(net_v[i], top)) || ' ';
    END LOOP;
    pts := pts || '640,' || @extschema@._svg_n(@extschema@._chart_y(net_v[array_length(net_v, 1)], top));
    body := body || format('<polyline points="%s" fill="none" stroke="#2ca02c" stroke-width="3"/>', pts);
    SELECT string_agg(@extschema@._svg_n(@extschema@._chart_x(t, t0, t1)) || ',' || @extschema@._svg_n(@extschema@._chart_y(v, top)), ' ' ORDER BY o)
      INTO pts FROM unnest(theo_t, theo_v) WITH ORDINALITY x(t, v, o);
    body := body || format('<polyline points="%s" fill="none" stroke="#ff7f0e" stroke-width="3"/>', pts);
    IF used_t IS NOT NULL THEN
        SELECT string_agg(@extschema@._svg_n(@extschema@._chart_x(t, t0, t1)) || ',' || @extschema@._svg_n(@extschema@._chart_y(v, top)), ' ' ORDER BY o)
          INTO pts FROM unnest(used_t, used_v) WITH ORDINALITY x(t, v, o);
        body := body || format('<polyline points="%s" fill="none" stroke="#1f77b4" stroke-width="3"/>', pts);
    END IF;
    FOR i IN 1..coalesce(array_length(tb_t, 1), 0) LOOP
        -- the triangle's tip on the net it leaves; its hours (3 digits:
        -- monthly take-backs are 47 px apart on a year) under that net,
        -- right of the step
        body := body || format('<path d="M %1$s %2$s l -7 -12 l 14 0 z" fill="#d62728"/>'
                               '<text x="%5$s" y="%3$s" fill="#d62728" font-size="11">-%4$s</text>',
                               @extschema@._svg_n(@extschema@._chart_x(tb_t[i], t0, t1)),
                               @extschema@._svg_n(@extschema@._chart_y(tb_v[i], top)),
                               @extschema@._svg_n(@extschema@._chart_y(tb_v[i], top) + 14),
                               @extschema@._chart_label(CASE WHEN tb_h[i] > 0
                                   THEN round(tb_h[i]::numeric, 2 - floor(log(tb_h[i]))::integer)::float8 ELSE 0 END),
                               @extschema@._svg_n(@extschema@._chart_x(tb_t[i], t0, t1) + 4));
    END LOOP;
    IF $2 > t0 AND $2 < t1 THEN
        body := body || format('<line x1="%1$s" y1="40" x2="%1$s" y2="350" stroke="#999999" stroke-width="1" stroke-dasharray="4 3"/>'
                               '<text x="%1$s" y="36" text-anchor="middle" fill="#777777" font-size="11">as of %2$s</text>',
                               @extschema@._svg_n(@extschema@._chart_x($2, t0, t1)), to_char(timezone(a.timezone, $2), 'YYYY-MM-DD'));
    END IF;
    RETURN @extschema@._svg_chart(
        format('%s on %s (%s): burn-down', a.account, a.cluster, a.policy), 'core-hours', top, t0, t1, a.timezone,
        ARRAY['#1f77b4', 'hours used', '#ff7f0e', 'theoretical', '#2ca02c', 'net allocation', '#d62728', 'take-back'],
        body);
END
$$;
COMMENT ON FUNCTION @extschema@.burndown_svg(bigint, timestamptz) IS
'SVG (800×400) of an allocation''s burn-down as of as_of: cumulative hours used, theoretical consumption, net allocation with take-backs marked.';

-- An account's usage per month over [since, until) (the months they
-- meet), stacked by user (the 9 biggest, then "others"), in hours,
-- minutes or seconds.
CREATE FUNCTION @extschema@.account_usage_svg(cluster text, account text, since date, until date,
                                              units text DEFAULT 'hours')
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    tz text;
    u record;
    t0 timestamptz;
    t1 timestamptz;
    m0 date;
    nm integer;
    top float8;
    body text := '';
    legend text[] := ARRAY[]::text[];
    band float8;
    ks integer[];
    users text[];
    months date[];
    vs float8[];
    belows float8[];
    i integer;
BEGIN
    IF $1 IS NULL OR $2 IS NULL THEN
        PERFORM @extschema@._statement_refuse('22004', 'account_usage_svg: cluster and account must not be NULL',
                                              'Name an account of fairshare.accounts and its cluster.');
    END IF;
    SELECT * INTO u FROM @extschema@._chart_units('account_usage_svg', $5, false);
    IF $3 IS NULL OR $4 IS NULL OR NOT isfinite($3) OR NOT isfinite($4) OR $4 <= $3 THEN
        PERFORM @extschema@._statement_refuse(CASE WHEN $3 IS NULL OR $4 IS NULL THEN '22004'
                                                   WHEN NOT isfinite($3) OR NOT isfinite($4) THEN '22008' ELSE '22023' END,
                                              format('account_usage_svg: the range is reversed, empty or open: until %s is not after since %s',
                                                     coalesce($4::text, 'NULL'), coalesce($3::text, 'NULL')),
                                              'Pass since < until (days; until is not included).');
    END IF;
    tz := @extschema@._statement_cluster_tz('account_usage_svg', $1);
    IF NOT EXISTS (SELECT 1 FROM @extschema@.accounts ac WHERE ac.cluster = $1 AND ac.account = $2) THEN
        PERFORM @extschema@._statement_refuse('22023', format('account_usage_svg: no account "%s" on cluster "%s"', $2, $1),
                                              'Name an account of fairshare.accounts.');
    END IF;
    m0 := date_trunc('month', $3)::date;
    nm := (extract(year FROM $4 - 1)::integer - extract(year FROM m0)::integer) * 12
          + extract(month FROM $4 - 1)::integer - extract(month FROM m0)::integer + 1;
    t0 := m0::timestamp AT TIME ZONE tz;
    t1 := (m0 + make_interval(months => nm))::timestamp AT TIME ZONE tz;
    WITH b AS (
        SELECT timezone(tz, x.bucket_start)::date AS month, x.user_name, x.core_hours * u.factor AS v
          FROM @extschema@.usage_buckets($1, $2, $3::timestamp AT TIME ZONE tz, $4::timestamp AT TIME ZONE tz, 'month') x),
    ranked AS (
        SELECT b.user_name, row_number() OVER (ORDER BY sum(b.v) DESC, b.user_name) AS k
          FROM b GROUP BY b.user_name),
    stack AS (
        SELECT least(r.k, 10) AS k,
               CASE WHEN r.k >= 10 AND (SELECT count(*) FROM ranked) > 10 THEN 'others' ELSE r.user_name END AS user_name,
               b.month, sum(b.v) AS v
          FROM b JOIN ranked r USING (user_name)
         GROUP BY 1, 2, 3)
    SELECT array_agg(s.k ORDER BY s.month, s.k), array_agg(s.user_name ORDER BY s.month, s.k),
           array_agg(s.month ORDER BY s.month, s.k), array_agg(s.v ORDER BY s.month, s.k),
           array_agg(s.below ORDER BY s.month, s.k)
      INTO ks, users, months, vs, belows
      FROM (SELECT stack.*, sum(stack.v) OVER (PARTITION BY stack.month ORDER BY stack.k) - stack.v AS below
              FROM stack) s;
    top := @extschema@._chart_top(coalesce((SELECT max(x.b + x.v) FROM unnest(belows, vs) x(b, v)), 0));
    band := 570.0 / nm;
    FOR i IN 1..coalesce(array_length(ks, 1), 0) LOOP
        body := body || format('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s %s: %s</title></rect>',
                               @extschema@._svg_n(70 + band * ((extract(year FROM months[i]) - extract(year FROM m0)) * 12
                                                               + extract(month FROM months[i]) - extract(month FROM m0)) + band * 0.15),
                               @extschema@._svg_n(@extschema@._chart_y(belows[i] + vs[i], top)),
                               @extschema@._svg_n(band * 0.7),
                               @extschema@._svg_n(310 * vs[i] / top),
                               @extschema@._chart_colour(ks[i]), to_char(months[i], 'YYYY-MM'),
                               @extschema@._svg_escape(users[i]), round(vs[i]::numeric, 2));
    END LOOP;
    -- a month's label under each bar (every other one past 12 months)
    FOR i IN 0..nm - 1 LOOP
        IF nm <= 12 OR i % ((nm + 11) / 12) = 0 THEN
            body := body || format('<text x="%s" y="386" text-anchor="middle" font-size="11" fill="#333333">%s</text>',
                                   @extschema@._svg_n(70 + band * (i + 0.5)), to_char(m0 + make_interval(months => i), 'YYYY-MM'));
        END IF;
    END LOOP;
    SELECT coalesce(array_agg(x ORDER BY d.k, v.o), ARRAY[]::text[]) INTO legend
      FROM (SELECT DISTINCT s.k, s.user_name FROM unnest(ks, users) s(k, user_name)) d
     CROSS JOIN LATERAL (VALUES (1, @extschema@._chart_colour(d.k)), (2, d.user_name)) v(o, x);
    IF legend = ARRAY[]::text[] THEN
        legend := ARRAY['#ffffff', 'no usage'];
    END IF;
    RETURN @extschema@._svg_chart(format('%s on %s: usage per month by user', $2, $1), u.label, top, NULL, NULL, tz,
                                  legend, body);
END
$$;
COMMENT ON FUNCTION @extschema@.account_usage_svg(text, text, date, date, text) IS
'SVG (800×400) of an account''s usage per month over [since, until), stacked by user; units hours, minutes or seconds.';

-- A cluster's utilisation over [since, until): the cores its jobs held
-- per hour, day or month (bucket NULL: hours up to 2 days, days up to 92,
-- else months), as a percentage of its cores (clusters.total_cpus, else
-- the partitions' nodes × cores) or in hours, minutes or seconds.
CREATE FUNCTION @extschema@.cluster_utilisation_svg(cluster text, since timestamptz, until timestamptz,
                                                    units text DEFAULT 'percent', bucket text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    tz text;
    u record;
    b text;
    step interval;
    cores float8;
    top float8;
    body text := '';
    b0s timestamptz[];
    b1s timestamptz[];
    vs float8[];
    i integer;
BEGIN
    SELECT * INTO u FROM @extschema@._chart_units('cluster_utilisation_svg', $4, true);
    PERFORM @extschema@._statement_check_window('cluster_utilisation_svg', $2, $3);
    IF $1 IS NULL THEN
        PERFORM @extschema@._statement_refuse('22004', 'cluster_utilisation_svg: cluster must not be NULL',
                                              'Name a cluster of fairshare.clusters.');
    END IF;
    tz := @extschema@._statement_cluster_tz('cluster_utilisation_svg', $1);
    b := lower(coalesce($5, CASE WHEN $3 - $2 <= interval '2 days' THEN 'hour'
                                 WHEN $3 - $2 <= interval '92 days' THEN 'day' ELSE 'month' END));
    IF b NOT IN ('hour', 'day', 'month') THEN
        PERFORM @extschema@._statement_refuse('22023', format('cluster_utilisation_svg: unknown bucket "%s"', $5),
                                              'The buckets are ''hour'', ''day'' and ''month'', or NULL to choose from the window.');
    END IF;
    step := ('1 ' || b)::interval;
    SELECT coalesce(c.total_cpus::float8, (SELECT sum(p.nodes::float8 * p.cores_per_node) FROM @extschema@.partitions p
                                             WHERE p.cluster = c.cluster))
      INTO cores FROM @extschema@.clusters c WHERE c.cluster = $1;
    -- every bucket of the window, the empty ones too, cut to the window
    SELECT array_agg(x.b0 ORDER BY x.b0), array_agg(x.b1 ORDER BY x.b0), array_agg(x.v ORDER BY x.b0)
      INTO b0s, b1s, vs
      FROM (SELECT greatest(g AT TIME ZONE tz, $2) AS b0, least((g + step) AT TIME ZONE tz, $3) AS b1,
                   coalesce(coalesce(y.h, 0) / CASE WHEN u.factor IS NULL
                                 THEN nullif(cores * extract(epoch FROM least((g + step) AT TIME ZONE tz, $3)
                                                                        - greatest(g AT TIME ZONE tz, $2)) / 3600.0, 0) / 100
                                 ELSE 1 / u.factor END, 0) AS v
              FROM generate_series(date_trunc(b, timezone(tz, $2)), timezone(tz, $3) - interval '1 microsecond', step) g
              LEFT JOIN (SELECT z.bucket_start, sum(z.cpu_hours) AS h
                           FROM @extschema@.usage_buckets($1, NULL, $2, $3, b) z GROUP BY 1) y
                ON y.bucket_start = g AT TIME ZONE tz) x;
    top := (SELECT max(v) FROM unnest(vs) v);
    top := CASE WHEN u.factor IS NULL AND coalesce(top, 0) <= 100 THEN 100
                ELSE @extschema@._chart_top(coalesce(top, 0)) END;
    FOR i IN 1..coalesce(array_length(vs, 1), 0) LOOP
        body := body || format('<rect x="%s" y="%s" width="%s" height="%s" fill="#1f77b4"><title>%s: %s</title></rect>',
                               @extschema@._svg_n(@extschema@._chart_x(b0s[i], $2, $3) + 0.5),
                               @extschema@._svg_n(@extschema@._chart_y(vs[i], top)),
                               @extschema@._svg_n(greatest(@extschema@._chart_x(b1s[i], $2, $3) - @extschema@._chart_x(b0s[i], $2, $3) - 1, 1)),
                               @extschema@._svg_n(310 * vs[i] / top),
                               to_char(timezone(tz, b0s[i]), 'YYYY-MM-DD HH24:MI'), round(vs[i]::numeric, 2));
    END LOOP;
    RETURN @extschema@._svg_chart(format('%s (%s cores): utilisation per %s', $1, cores, b), u.label, top, $2, $3, tz,
                                  ARRAY['#1f77b4', 'cores in use'], body);
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_utilisation_svg(text, timestamptz, timestamptz, text, text) IS
'SVG (800×400) of a cluster''s utilisation over [since, until) per hour, day or month: the cores its jobs held, in percent of its cores or in hours, minutes, seconds.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.alert_thresholds', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_leaders', '');
-- ---------------------------------------------------------------------------
-- slurmdbd: the live feed from a Slurm accounting database and the
-- decisions back to it (issue 13; docs/slurmdbd.md).
--
--   In:  SELECT fairshare.slurmdbd_connect('oracle', 'slurmdbd');   -- once
--        CALL fairshare.sync_slurmdbd('oracle');                   -- every minute
--   Out: SELECT command, reason FROM fairshare.slurm_decisions('oracle');
--
-- slurmdbd's MariaDB tables are read through mysql_fdw foreign tables that
-- slurmdbd_connect makes in a schema of the centre's choosing.  A sync reads
-- what changed since the last one (slurmdbd's mod_time, jobs still open,
-- the deleted flags), writes the jobs as the sacct lines `sacct -a -P
-- --duplicates` prints for them and hands them to import_sacct: the feed and
-- the file import are one code path, so they store the same runs.  The whole
-- sync is one transaction with the change marks it moves: a sync killed or
-- failed leaves nothing behind, and the next one reads the same rows again;
-- a sync repeated re-reads rows at the mark, which the import's upsert on
-- the run's key leaves unchanged.
-- ---------------------------------------------------------------------------

-- One row per cluster fed from a slurmdbd: where its foreign tables are, the
-- change marks, the last sync, and how decisions map to Slurm.
CREATE TABLE @extschema@.slurmdbd_feeds (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    foreign_schema       name NOT NULL,
    -- slurmdbd's mod_time (Unix seconds) up to which jobs and associations
    -- have been read; the next sync reads from this second on, inclusive
    job_mark             bigint NOT NULL DEFAULT 0 CHECK (job_mark OPERATOR(pg_catalog.>=) 0),
    assoc_mark           bigint NOT NULL DEFAULT 0 CHECK (assoc_mark OPERATOR(pg_catalog.>=) 0),
    last_sync            timestamptz,
    last_import_id       bigint,
    last_jobs_read       bigint,
    last_assocs_read     bigint,
    -- decisions: the TRES of the GrpTRESMins limits (GENCI hours, blocks)
    limit_tres           text NOT NULL DEFAULT 'billing' CHECK (limit_tres OPERATOR(pg_catalog.~) '^[a-z][a-z0-9_/]*$'),
    -- RWTH: the QOS of a project in low priority and of a blocked one
    -- (NULL: a blocked project gets GrpTRESMins=<limit_tres>=0 instead, a
    -- low-priority one nothing), and of a project in neither
    rwth_low_priority_qos text,
    rwth_blocked_qos     text,
    rwth_normal_qos      text NOT NULL DEFAULT 'normal'
);
COMMENT ON TABLE @extschema@.slurmdbd_feeds IS 'Clusters fed from a slurmdbd through mysql_fdw: foreign schema, change marks, last sync, and how decisions map to Slurm limits and QOS.';

-- Which fairshare association each slurmdbd association id is, so that a
-- rename in Slurm (same id, new name) renames here too.
CREATE TABLE @extschema@.slurmdbd_associations (
    cluster              text NOT NULL REFERENCES @extschema@.slurmdbd_feeds ON UPDATE CASCADE ON DELETE CASCADE,
    id_assoc             bigint NOT NULL,
    account              text NOT NULL,
    -- the user of a user association, '' for an account's
    slurm_user           text NOT NULL DEFAULT '',
    deleted              boolean NOT NULL DEFAULT false,
    PRIMARY KEY (cluster, id_assoc)
);
COMMENT ON TABLE @extschema@.slurmdbd_associations IS 'slurmdbd association ids and the account (and user) each one is in fairshare, for following renames.';


SELECT pg_catalog.pg_extension_config_dump('@extschema@.slurmdbd_feeds', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.slurmdbd_associations', '');

-- A memory size in MB as sacct prints it (Slurm's convert_num_unit, exact):
-- divided by 1024 while it divides, 4096 -> 4G, 1500 -> 1500M.
CREATE FUNCTION @extschema@._slurm_mem_text(mb numeric)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE
        WHEN mb OPERATOR(pg_catalog.=) 0 THEN '0'
        WHEN mb OPERATOR(pg_catalog.%) 1099511627776 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1099511627776)::bigint::text OPERATOR(pg_catalog.||) 'E'
        WHEN mb OPERATOR(pg_catalog.%) 1073741824 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1073741824)::bigint::text OPERATOR(pg_catalog.||) 'P'
        WHEN mb OPERATOR(pg_catalog.%) 1048576 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1048576)::bigint::text OPERATOR(pg_catalog.||) 'T'
        WHEN mb OPERATOR(pg_catalog.%) 1024 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1024)::bigint::text OPERATOR(pg_catalog.||) 'G'
        ELSE mb::bigint::text OPERATOR(pg_catalog.||) 'M' END;
END;
COMMENT ON FUNCTION @extschema@._slurm_mem_text(numeric) IS
'A size in MB as sacct prints it: 4096 -> 4G, 1500 -> 1500M (internal to sync_slurmdbd).';

-- A Slurm time limit in minutes as sacct prints it: [D-]HH:MM:SS,
-- UNLIMITED (INFINITE, 0xffffffff) or Partition_Limit (NO_VAL, 0xfffffffe).
CREATE FUNCTION @extschema@._slurm_minutes_text(minutes bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE
        WHEN minutes OPERATOR(pg_catalog.=) 4294967295 THEN 'UNLIMITED'
        WHEN minutes OPERATOR(pg_catalog.>=) 4294967294 THEN 'Partition_Limit'
        WHEN minutes OPERATOR(pg_catalog.>=) 1440
        THEN (minutes OPERATOR(pg_catalog./) 1440)::text OPERATOR(pg_catalog.||) '-'
             OPERATOR(pg_catalog.||) pg_catalog.to_char((minutes OPERATOR(pg_catalog.%) 1440) OPERATOR(pg_catalog./) 60, 'FM00')
             OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char(minutes OPERATOR(pg_catalog.%) 60, 'FM00') OPERATOR(pg_catalog.||) ':00'
        ELSE pg_catalog.to_char(minutes OPERATOR(pg_catalog./) 60, 'FM00')
             OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char(minutes OPERATOR(pg_catalog.%) 60, 'FM00') OPERATOR(pg_catalog.||) ':00' END;
END;
COMMENT ON FUNCTION @extschema@._slurm_minutes_text(bigint) IS
'A Slurm time limit in minutes as sacct prints it: 00:10:00, 1-00:00:00, UNLIMITED, Partition_Limit (internal to sync_slurmdbd).';

-- An instant of slurmdbd (Unix seconds, 0: none) as sacct prints it in UTC.
CREATE FUNCTION @extschema@._slurmdbd_time(t bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN t OPERATOR(pg_catalog.<=) 0 THEN 'Unknown'
                ELSE pg_catalog.to_char(pg_catalog.timezone('UTC', pg_catalog.to_timestamp(t::float8)), 'YYYY-MM-DD"T"HH24:MI:SS') END;
END;
COMMENT ON FUNCTION @extschema@._slurmdbd_time(bigint) IS
'A slurmdbd time (Unix seconds) as sacct prints it in UTC; 0 is Unknown (internal to sync_slurmdbd).';

-- A job_table state as sacct prints it: the base state (Slurm's enum
-- job_states, the low byte) unless the run was requeued (JOB_REQUEUE, 0x400).
CREATE FUNCTION @extschema@._slurmdbd_state(state bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN state OPERATOR(pg_catalog.&) 1024 OPERATOR(pg_catalog.<>) 0 THEN 'REQUEUED'
                ELSE (ARRAY['PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT',
                            'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'OUT_OF_MEMORY'])
                     [(state OPERATOR(pg_catalog.&) 255) OPERATOR(pg_catalog.+) 1] END;
END;
COMMENT ON FUNCTION @extschema@._slurmdbd_state(bigint) IS
'A slurmdbd job state as sacct prints it: PENDING ... OUT_OF_MEMORY, REQUEUED (internal to sync_slurmdbd).';

-- A duration in seconds as sacct prints it: [D-]HH:MM:SS.
CREATE FUNCTION @extschema@._slurm_seconds_text(seconds bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN seconds OPERATOR(pg_catalog.>=) 86400
                THEN (seconds OPERATOR(pg_catalog./) 86400)::text OPERATOR(pg_catalog.||) '-' ELSE '' END
           OPERATOR(pg_catalog.||) pg_catalog.to_char((seconds OPERATOR(pg_catalog.%) 86400) OPERATOR(pg_catalog./) 3600, 'FM00')
           OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char((seconds OPERATOR(pg_catalog.%) 3600) OPERATOR(pg_catalog./) 60, 'FM00')
           OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char(seconds OPERATOR(pg_catalog.%) 60, 'FM00');
END;
COMMENT ON FUNCTION @extschema@._slurm_seconds_text(bigint) IS
'A duration in seconds as sacct prints it: 00:00:42, 1-02:03:04 (internal to sync_slurmdbd).';

-- The foreign tables of a cluster's slurmdbd, in a schema of their own.
-- Only the columns the feed and the decisions read: mysql_fdw matches them
-- by name, and sends MariaDB the conditions on them.
CREATE FUNCTION @extschema@.slurmdbd_connect(cluster text, server name,
    foreign_schema name DEFAULT NULL, database text DEFAULT 'slurm_acct_db',
    slurm_cluster text DEFAULT NULL)
RETURNS name LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    sch name := coalesce(foreign_schema, ('slurmdbd_' OPERATOR(pg_catalog.||) cluster)::name);
    sc text := coalesce(slurm_cluster, cluster);
BEGIN
    IF cluster IS NULL OR server IS NULL OR database IS NULL THEN
        RAISE EXCEPTION 'slurmdbd_connect: cluster, server and database must not be NULL'
            USING ERRCODE = '22004', HINT = 'e.g. SELECT fairshare.slurmdbd_connect(''oracle'', ''slurmdbd'');';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster OPERATOR(pg_catalog.=) slurmdbd_connect.cluster) THEN
        RAISE EXCEPTION 'slurmdbd_connect: cluster "%" is not in fairshare.clusters', cluster
            USING ERRCODE = '23503', HINT = 'INSERT INTO fairshare.clusters (cluster, ...) first, with its decay and priority settings.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_foreign_server s WHERE s.srvname OPERATOR(pg_catalog.=) server) THEN
        RAISE EXCEPTION 'slurmdbd_connect: there is no foreign server "%"', server
            USING ERRCODE = '42704',
                  HINT = 'CREATE SERVER ... FOREIGN DATA WRAPPER mysql_fdw and a user mapping first (docs/slurmdbd.md).';
    END IF;
    IF sc OPERATOR(pg_catalog.!~) '^[A-Za-z0-9_-]+$' THEN
        RAISE EXCEPTION 'slurmdbd_connect: "%" is not a Slurm cluster name', sc
            USING ERRCODE = '22023', HINT = 'ClusterName of slurm.conf: letters, digits, _ and -.';
    END IF;
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', sch);
    EXECUTE format($f$CREATE FOREIGN TABLE %I.job_table (
        job_db_inx bigint, mod_time bigint, deleted integer, account text, array_task_str text,
        id_array_job bigint, id_array_task bigint, id_assoc bigint, id_job bigint, id_qos bigint,
        het_job_id bigint, het_job_offset bigint, nodes_alloc bigint, cpus_req bigint, "partition" text,
        state bigint, timelimit bigint, time_submit bigint, time_eligible bigint, time_start bigint,
        time_end bigint, time_suspended bigint, tres_alloc text, tres_req text, id_resv bigint)
        SERVER %I OPTIONS (dbname %L, table_name %L)$f$, sch, server, database, sc OPERATOR(pg_catalog.||) '_job_table');
    EXECUTE format($f$CREATE FOREIGN TABLE %I.assoc_table (
        mod_time bigint, deleted integer, id_assoc bigint, "user" text, acct text, "partition" text,
        parent_acct text, lft bigint, shares bigint, grp_tres_mins text, def_qos_id bigint, qos text)
        SERVER %I OPTIONS (dbname %L, table_name %L)$f$, sch, server, database, sc OPERATOR(pg_catalog.||) '_assoc_table');
    EXECUTE format($f$CREATE FOREIGN TABLE %I.tres_table (id bigint, deleted integer, type text, name text)
        SERVER %I OPTIONS (dbname %L, table_name 'tres_table')$f$, sch, server, database);
    EXECUTE format($f$CREATE FOREIGN TABLE %I.qos_table (id bigint, deleted integer, name text)
        SERVER %I OPTIONS (dbname %L, table_name 'qos_table')$f$, sch, server, database);
    INSERT INTO @extschema@.slurmdbd_feeds (cluster, foreign_schema) VALUES (slurmdbd_connect.cluster, sch)
    ON CONFLICT ON CONSTRAINT slurmdbd_feeds_pkey DO UPDATE SET foreign_schema = EXCLUDED.foreign_schema;
    RETURN sch;
END
$$;
COMMENT ON FUNCTION @extschema@.slurmdbd_connect(text, name, name, text, text) IS
'Makes the mysql_fdw foreign tables of a cluster''s slurmdbd (job, association, TRES and QOS tables) in a schema of their own and registers the feed; returns the schema.';

-- What slurmdbd holds, read once per sync into TEMP tables: nothing of the
-- sync reads MariaDB after this, so a connection lost half-way fails here,
-- before anything is written.
CREATE FUNCTION @extschema@._slurmdbd_read(sch name, job_mark bigint, assoc_mark bigint, cluster text)
RETURNS void LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    BEGIN
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_tres ON COMMIT DROP AS SELECT id, CASE WHEN coalesce(name, %L) = %L THEN type ELSE type || %L || name END AS tres
                          FROM %I.tres_table', '', '', '/', sch);
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_qos ON COMMIT DROP AS SELECT id, name FROM %I.qos_table', sch);
        -- jobs first, then associations: an association a job names is
        -- never newer than the association rows read after it
        -- from a minute before the mark: a row slurmdbd stamped before the
        -- last read but committed after it is read all the same (the
        -- import leaves the rows it already holds unchanged)
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_jobs ON COMMIT DROP AS SELECT * FROM %I.job_table
                         WHERE mod_time >= %s OR time_end = 0 OR time_end >= %s', sch, job_mark - 60, job_mark - 60);
        -- every association: slurmdbd renames a user without a new mod_time
        -- (UPDATE ... SET user = new WHERE user = old), so a rename shows
        -- only as an id whose name changed; there are few of them
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_assocs ON COMMIT DROP AS SELECT * FROM %I.assoc_table', sch);
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'sync_slurmdbd: cannot read the slurmdbd of cluster "%" (foreign tables %): %', cluster, sch, SQLERRM
            USING ERRCODE = '08001',
                  HINT = 'Is MariaDB up, and do the foreign server and the user mapping reach it (docs/slurmdbd.md)?  Nothing was synced.';
    END;
END
$$;

-- The account tree, the users, the shares and the GrpTRESMins limits from the associations that
-- changed since assoc_mark, that are new to the feed, or whose name changed
-- (a rename keeps the id).  Partition associations are not in fairshare's
-- tree and are left out.
CREATE FUNCTION @extschema@._slurmdbd_sync_tree(cluster text, assoc_mark bigint)
RETURNS bigint LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    r record;
    n bigint := 0;
BEGIN
    FOR r IN
        SELECT a.id_assoc, a.deleted OPERATOR(pg_catalog.<>) 0 AS deleted, coalesce(a."user", '') AS user_name,
               a.acct AS account, NULLIF(a.parent_acct, '') AS parent,
               CASE WHEN a.shares OPERATOR(pg_catalog.=) 2147483647 THEN NULL ELSE a.shares::integer END AS shares,
               -- GrpTRESMins: slurmdbd's TRES ids as names; no limit (-1,
               -- or 2^64-1 as slurmdbd may keep it) left out
               @extschema@._grp_tres_mins_text((
                   SELECT pg_catalog.string_agg(t.tres OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||)
                                                pg_catalog.split_part(e, '=', 2), ',')
                     FROM pg_catalog.regexp_split_to_table(NULLIF(a.grp_tres_mins, ''), ',') e
                     JOIN pg_temp._fs_sdbd_tres t ON t.id::text OPERATOR(pg_catalog.=) pg_catalog.split_part(e, '=', 1)
                    WHERE pg_catalog.split_part(e, '=', 2) OPERATOR(pg_catalog.~) '^[0-9]{1,19}$'
                      AND pg_catalog.split_part(e, '=', 2)::numeric OPERATOR(pg_catalog.<) 9223372036854775807)) AS grp_tres_mins,
               m.account AS old_account, m.slurm_user AS old_user
          FROM pg_temp._fs_sdbd_assocs a
          LEFT JOIN @extschema@.slurmdbd_associations m
            ON m.cluster OPERATOR(pg_catalog.=) cluster AND m.id_assoc OPERATOR(pg_catalog.=) a.id_assoc
         WHERE coalesce(a."partition", '') OPERATOR(pg_catalog.=) ''
           AND (a.mod_time OPERATOR(pg_catalog.>=) assoc_mark OR m.id_assoc IS NULL
                OR m.account OPERATOR(pg_catalog.<>) a.acct
                OR m.slurm_user OPERATOR(pg_catalog.<>) coalesce(a."user", ''))
         ORDER BY a.deleted, a.lft
    LOOP
        n := n + 1;
        IF r.user_name OPERATOR(pg_catalog.=) '' THEN
            -- an account association
            IF NOT r.deleted AND r.old_account IS NOT NULL AND r.old_account OPERATOR(pg_catalog.<>) r.account
               AND NOT EXISTS (SELECT FROM @extschema@.accounts x WHERE x.cluster OPERATOR(pg_catalog.=) cluster
                                  AND x.account OPERATOR(pg_catalog.=) r.account) THEN
                UPDATE @extschema@.accounts x SET account = r.account
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.old_account;
            END IF;
            IF r.deleted THEN
                DELETE FROM @extschema@.accounts x
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account
                   AND x.account OPERATOR(pg_catalog.<>) 'root'
                   AND NOT EXISTS (SELECT FROM @extschema@.accounts c WHERE c.cluster OPERATOR(pg_catalog.=) cluster AND c.parent_account OPERATOR(pg_catalog.=) r.account)
                   AND NOT EXISTS (SELECT FROM @extschema@.account_users u WHERE u.cluster OPERATOR(pg_catalog.=) cluster AND u.account OPERATOR(pg_catalog.=) r.account)
                   AND NOT EXISTS (SELECT FROM @extschema@.allocations l WHERE l.cluster OPERATOR(pg_catalog.=) cluster AND l.account OPERATOR(pg_catalog.=) r.account);
            ELSE
                INSERT INTO @extschema@.accounts AS x (cluster, account, parent_account, shares, grp_tres_mins)
                VALUES (cluster, r.account, r.parent, CASE WHEN r.parent IS NULL THEN coalesce(r.shares, 1) ELSE r.shares END,
                        r.grp_tres_mins)
                ON CONFLICT ON CONSTRAINT accounts_pkey DO UPDATE
                   SET parent_account = EXCLUDED.parent_account, shares = EXCLUDED.shares,
                       grp_tres_mins = EXCLUDED.grp_tres_mins
                 WHERE x.parent_account IS DISTINCT FROM EXCLUDED.parent_account
                    OR x.shares IS DISTINCT FROM EXCLUDED.shares
                    OR x.grp_tres_mins IS DISTINCT FROM EXCLUDED.grp_tres_mins;
            END IF;
        ELSE
            -- a user association
            IF NOT r.deleted AND r.old_user IS NOT NULL AND r.old_user OPERATOR(pg_catalog.<>) '' AND r.old_account OPERATOR(pg_catalog.=) r.account
               AND r.old_user OPERATOR(pg_catalog.<>) r.user_name
               AND NOT EXISTS (SELECT FROM @extschema@.account_users x WHERE x.cluster OPERATOR(pg_catalog.=) cluster
                                  AND x.account OPERATOR(pg_catalog.=) r.account AND x.user_name OPERATOR(pg_catalog.=) r.user_name) THEN
                UPDATE @extschema@.account_users x SET user_name = r.user_name
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account
                   AND x.user_name OPERATOR(pg_catalog.=) r.old_user;
            END IF;
            IF r.deleted THEN
                DELETE FROM @extschema@.account_users x
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account
                   AND x.user_name OPERATOR(pg_catalog.=) r.user_name
                   AND NOT EXISTS (SELECT FROM @extschema@.jobs j WHERE j.cluster OPERATOR(pg_catalog.=) cluster
                                      AND j.account OPERATOR(pg_catalog.=) r.account AND j.user_name OPERATOR(pg_catalog.=) r.user_name);
            ELSIF EXISTS (SELECT FROM @extschema@.accounts x WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account) THEN
                INSERT INTO @extschema@.account_users AS x (cluster, account, user_name, shares, grp_tres_mins)
                VALUES (cluster, r.account, r.user_name, r.shares, r.grp_tres_mins)
                ON CONFLICT ON CONSTRAINT account_users_pkey DO UPDATE
                   SET shares = EXCLUDED.shares, grp_tres_mins = EXCLUDED.grp_tres_mins
                 WHERE x.shares IS DISTINCT FROM EXCLUDED.shares
                    OR x.grp_tres_mins IS DISTINCT FROM EXCLUDED.grp_tres_mins;
            END IF;
        END IF;
        INSERT INTO @extschema@.slurmdbd_associations AS m (cluster, id_assoc, account, slurm_user, deleted)
        VALUES (cluster, r.id_assoc, r.account, r.user_name, r.deleted)
        ON CONFLICT ON CONSTRAINT slurmdbd_associations_pkey DO UPDATE
           SET account = EXCLUDED.account, slurm_user = EXCLUDED.slurm_user, deleted = EXCLUDED.deleted;
    END LOOP;
    RETURN n;
END
$$;

-- One sync: associations, then jobs, as one transaction with the marks.
CREATE PROCEDURE @extschema@.sync_slurmdbd(cluster text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    f record;
    n_assocs bigint;
    n_jobs bigint;
    n_deleted bigint;
    n_rejects bigint;
    new_job_mark bigint;
    new_assoc_mark bigint;
    res record;
BEGIN
    IF cluster IS NULL THEN
        RAISE EXCEPTION 'sync_slurmdbd: cluster must not be NULL' USING ERRCODE = '22004',
              HINT = 'CALL fairshare.sync_slurmdbd(''oracle'');';
    END IF;
    -- one sync of a cluster at a time: a second waits for the first and
    -- then reads from the marks the first moved
    SELECT * INTO f FROM @extschema@.slurmdbd_feeds s WHERE s.cluster OPERATOR(pg_catalog.=) cluster FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'sync_slurmdbd: cluster "%" has no slurmdbd feed', cluster USING ERRCODE = '42704',
              HINT = 'SELECT fairshare.slurmdbd_connect(cluster, server) first (docs/slurmdbd.md).';
    END IF;
    PERFORM @extschema@._slurmdbd_read(f.foreign_schema, f.job_mark, f.assoc_mark, cluster);
    SELECT coalesce(max(mod_time), f.assoc_mark) INTO new_assoc_mark FROM pg_temp._fs_sdbd_assocs;
    SELECT coalesce(max(mod_time), f.job_mark) INTO new_job_mark FROM pg_temp._fs_sdbd_jobs;
    n_assocs := @extschema@._slurmdbd_sync_tree(cluster, f.assoc_mark);

    -- the jobs as sacct prints them
    CREATE TEMP TABLE _fs_sdbd_lines (line_no bigint GENERATED ALWAYS AS IDENTITY, line text) ON COMMIT DROP;
    CREATE TEMP TABLE _fs_sdbd_rejects (job_id text, reason text, line text) ON COMMIT DROP;
    -- each distinct TRES string once, as sacct prints it (a centre's jobs
    -- repeat a few shapes: 10^5 jobs, a few hundred strings), with the
    -- ids tres_table does not have and the CPU count
    CREATE TEMP TABLE _fs_sdbd_tresfmt ON COMMIT DROP AS
    SELECT r.raw,
           (SELECT pg_catalog.string_agg(t.tres OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||)
                       CASE WHEN t.tres OPERATOR(pg_catalog.=) 'mem' THEN @extschema@._slurm_mem_text(x.v) ELSE x.v::text END,
                       ',' ORDER BY t.tres COLLATE "C")
              FROM pg_catalog.regexp_split_to_table(r.raw, ',') e
              CROSS JOIN LATERAL (SELECT pg_catalog.split_part(e, '=', 1) AS id, pg_catalog.split_part(e, '=', 2)::numeric AS v) x
              JOIN pg_temp._fs_sdbd_tres t ON t.id::text OPERATOR(pg_catalog.=) x.id
             WHERE x.v OPERATOR(pg_catalog.<) 18446744073709551614) AS formatted,
           (SELECT pg_catalog.string_agg(pg_catalog.split_part(e, '=', 1), ',')
              FROM pg_catalog.regexp_split_to_table(r.raw, ',') e
             WHERE NOT EXISTS (SELECT FROM pg_temp._fs_sdbd_tres t
                                WHERE t.id::text OPERATOR(pg_catalog.=) pg_catalog.split_part(e, '=', 1))) AS unknown,
           (SELECT pg_catalog.split_part(e, '=', 2) FROM pg_catalog.regexp_split_to_table(r.raw, ',') e
             WHERE pg_catalog.split_part(e, '=', 1) OPERATOR(pg_catalog.=) '1') AS cpus
      FROM (SELECT j.tres_alloc AS raw FROM pg_temp._fs_sdbd_jobs j WHERE j.tres_alloc OPERATOR(pg_catalog.<>) ''
            UNION
            SELECT j.tres_req FROM pg_temp._fs_sdbd_jobs j WHERE j.tres_req OPERATOR(pg_catalog.<>) '') r;
    CREATE TEMP TABLE _fs_sdbd_work ON COMMIT DROP AS
    SELECT j.*,
           CASE WHEN j.het_job_id OPERATOR(pg_catalog.<>) 0
                THEN j.het_job_id::text OPERATOR(pg_catalog.||) '+' OPERATOR(pg_catalog.||) j.het_job_offset::text
                WHEN j.id_array_job OPERATOR(pg_catalog.<>) 0 AND j.id_array_task OPERATOR(pg_catalog.<) 4294967294
                THEN j.id_array_job::text OPERATOR(pg_catalog.||) '_' OPERATOR(pg_catalog.||) j.id_array_task::text
                WHEN j.id_array_job OPERATOR(pg_catalog.<>) 0 AND coalesce(j.array_task_str, '') OPERATOR(pg_catalog.<>) ''
                THEN j.id_array_job::text OPERATOR(pg_catalog.||) '_[' OPERATOR(pg_catalog.||) j.array_task_str OPERATOR(pg_catalog.||) ']'
                ELSE j.id_job::text END AS job_key,
           m.account AS f_account, NULLIF(m.slurm_user, '') AS f_user, q.name AS qos_name,
           fa.formatted AS alloc_text, fr.formatted AS req_text,
           NULLIF(pg_catalog.concat_ws(',', fa.unknown, fr.unknown), '') AS unknown_tres,
           fa.cpus AS alloc_cpus
      FROM pg_temp._fs_sdbd_jobs j
      LEFT JOIN @extschema@.slurmdbd_associations m
        ON m.cluster OPERATOR(pg_catalog.=) cluster AND m.id_assoc OPERATOR(pg_catalog.=) j.id_assoc
      LEFT JOIN pg_temp._fs_sdbd_qos q ON q.id OPERATOR(pg_catalog.=) j.id_qos
      LEFT JOIN pg_temp._fs_sdbd_tresfmt fa ON fa.raw OPERATOR(pg_catalog.=) j.tres_alloc
      LEFT JOIN pg_temp._fs_sdbd_tresfmt fr ON fr.raw OPERATOR(pg_catalog.=) j.tres_req;

    -- runs slurmdbd marked deleted: removed here too
    WITH d AS (
        DELETE FROM @extschema@.jobs x USING pg_temp._fs_sdbd_work w
         WHERE w.deleted OPERATOR(pg_catalog.<>) 0 AND x.cluster OPERATOR(pg_catalog.=) cluster
           AND x.job_id OPERATOR(pg_catalog.=) w.job_key
           AND x.submit_time OPERATOR(pg_catalog.=) pg_catalog.to_timestamp(w.time_submit)
        RETURNING 1)
    SELECT count(*) INTO n_deleted FROM d;

    INSERT INTO pg_temp._fs_sdbd_rejects (job_id, reason, line)
    SELECT w.job_key,
           CASE WHEN w.unknown_tres IS NOT NULL
                THEN pg_catalog.format('unknown TRES id %s (not in tres_table)', w.unknown_tres)
                WHEN w.f_user IS NULL AND w.f_account IS NOT NULL
                THEN pg_catalog.format('association %s is an account association, not a user''s', w.id_assoc)
                ELSE pg_catalog.format('association %s is not in the association table of slurmdbd', w.id_assoc) END,
           pg_catalog.format('job_db_inx=%s id_job=%s id_assoc=%s tres_alloc=%s tres_req=%s',
                             w.job_db_inx, w.id_job, w.id_assoc, w.tres_alloc, w.tres_req)
      FROM pg_temp._fs_sdbd_work w
     WHERE w.deleted OPERATOR(pg_catalog.=) 0 AND (w.unknown_tres IS NOT NULL OR w.f_user IS NULL);

    INSERT INTO pg_temp._fs_sdbd_lines (line)
    VALUES ('JobID|User|Account|Partition|QOS|AllocCPUS|ReqTRES|AllocTRES|Submit|Eligible|Start|End|State|NNodes|Cluster|Timelimit|Suspended|ReservationId');
    INSERT INTO pg_temp._fs_sdbd_lines (line)
    -- (every field given, NULL as empty: concat_ws would drop a NULL's field)
    SELECT pg_catalog.array_to_string(ARRAY[
             w.job_key, w.f_user, w.f_account, w.partition, w.qos_name,
             coalesce(w.alloc_cpus, w.cpus_req::text), w.req_text, w.alloc_text,
             @extschema@._slurmdbd_time(w.time_submit), @extschema@._slurmdbd_time(w.time_eligible),
             @extschema@._slurmdbd_time(w.time_start), @extschema@._slurmdbd_time(w.time_end),
             @extschema@._slurmdbd_state(w.state),
             CASE WHEN w.nodes_alloc OPERATOR(pg_catalog.>) 0 THEN w.nodes_alloc ELSE 1 END::text,
             cluster, @extschema@._slurm_minutes_text(w.timelimit),
             -- seconds suspended; while suspended, slurmdbd holds the
             -- instant the suspension began less the time suspended before
             @extschema@._slurm_seconds_text(CASE WHEN w.state OPERATOR(pg_catalog.&) 255 OPERATOR(pg_catalog.=) 2
                  THEN (pg_catalog.date_part('epoch', pg_catalog.now())::bigint OPERATOR(pg_catalog.-) w.time_suspended)
                  ELSE w.time_suspended END),
             -- the reservation it ran in (0: none)
             w.id_resv::text], '|', '')
      FROM pg_temp._fs_sdbd_work w
     WHERE w.deleted OPERATOR(pg_catalog.=) 0 AND w.unknown_tres IS NULL AND w.f_user IS NOT NULL
     ORDER BY w.time_submit, w.job_db_inx;
    SELECT count(*) INTO n_jobs FROM pg_temp._fs_sdbd_work;

    SELECT * INTO res FROM @extschema@.import_sacct(cluster, 'UTC', staging => 'pg_temp._fs_sdbd_lines');
    INSERT INTO @extschema@.import_rejects (import_id, line_no, job_id, sqlstate, reason, line)
    SELECT res.import_id, res.lines_read OPERATOR(pg_catalog.+) pg_catalog.row_number() OVER (ORDER BY r.job_id, r.line),
           r.job_id, '23503', r.reason, r.line
      FROM pg_temp._fs_sdbd_rejects r;
    GET DIAGNOSTICS n_rejects = ROW_COUNT;
    IF n_rejects OPERATOR(pg_catalog.>) 0 THEN
        UPDATE @extschema@.imports i SET rejected = i.rejected OPERATOR(pg_catalog.+) n_rejects
         WHERE i.import_id OPERATOR(pg_catalog.=) res.import_id;
    END IF;
    UPDATE @extschema@.slurmdbd_feeds s
       SET job_mark = new_job_mark, assoc_mark = new_assoc_mark, last_sync = pg_catalog.now(),
           last_import_id = res.import_id, last_jobs_read = n_jobs, last_assocs_read = n_assocs
     WHERE s.cluster OPERATOR(pg_catalog.=) cluster;
    DROP TABLE pg_temp._fs_sdbd_lines, pg_temp._fs_sdbd_rejects, pg_temp._fs_sdbd_jobs,
               pg_temp._fs_sdbd_assocs, pg_temp._fs_sdbd_tres, pg_temp._fs_sdbd_qos, pg_temp._fs_sdbd_work,
               pg_temp._fs_sdbd_tresfmt;
    RAISE NOTICE 'sync_slurmdbd %: % associations, % job rows read (% deleted), import %: % imported, % updated, % unchanged, % rejected',
        cluster, n_assocs, n_jobs, n_deleted, res.import_id, res.imported, res.updated, res.unchanged, res.rejected OPERATOR(pg_catalog.+) n_rejects;
END
$$;
COMMENT ON PROCEDURE @extschema@.sync_slurmdbd(text) IS
'Brings the cluster''s associations, shares and job runs in from its slurmdbd (mysql_fdw), from the change marks on, in one transaction: exactly once, through import_sacct.';

-- ---------------------------------------------------------------------------
-- Out: fairshare's decisions as sacctmgr commands
-- ---------------------------------------------------------------------------

-- A word of a sacctmgr command line, quoted for sh when it needs it.
CREATE FUNCTION @extschema@._sh_word(word text)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN word OPERATOR(pg_catalog.~) '^[A-Za-z0-9_./@+=:,-]+$' THEN word
                ELSE '''' OPERATOR(pg_catalog.||) pg_catalog.replace(word, '''', '''\''''') OPERATOR(pg_catalog.||) '''' END;
END;
COMMENT ON FUNCTION @extschema@._sh_word(text) IS
'A word for a sh command line, single-quoted when it holds anything but letters, digits and _./@+=:,- (internal to slurm_decisions).';

-- What to run so that the cluster's slurmdbd holds what fairshare decided,
-- compared with what it holds now (read through the feed's foreign tables):
--   1 accounts missing from Slurm, parents first   (add account)
--   2 an account's parent or Fairshare             (modify account)
--   3 user associations missing from Slurm         (add user)
--   4 a user association's Fairshare               (modify user)
--   5 limits: GrpTRESMins=<limit_tres>=minutes of an account with
--     allocations: a GENCI allocation's net hours (take-backs lower it), 0
--     for a blocked RWTH project without a blocked QOS, 0 once every
--     allocation of the account has ended, none (-1) otherwise
--   6 QOS of RWTH projects when the centre configured them
-- Nothing is ever deleted in Slurm.  An empty result means Slurm matches.
CREATE FUNCTION @extschema@.slurm_decisions(cluster text, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (step integer, account text, user_name text, command text, reason text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    f record;
    tz text;
    d date;
BEGIN
    IF $1 IS NULL OR $2 IS NULL OR NOT isfinite($2) THEN
        RAISE EXCEPTION 'slurm_decisions: cluster and as_of must be given (as_of finite), not %, %', $1, $2
            USING ERRCODE = '22004', HINT = 'SELECT * FROM fairshare.slurm_decisions(''oracle'');';
    END IF;
    SELECT s.*, c.timezone AS tz INTO f
      FROM @extschema@.slurmdbd_feeds s JOIN @extschema@.clusters c USING (cluster)
     WHERE s.cluster = $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'slurm_decisions: cluster "%" has no slurmdbd feed', $1 USING ERRCODE = '42704',
              HINT = 'SELECT fairshare.slurmdbd_connect(cluster, server) first (docs/slurmdbd.md).';
    END IF;
    d := ($2 AT TIME ZONE f.tz)::date;
    BEGIN
        EXECUTE format('CREATE TEMP TABLE _fs_dec_assoc ON COMMIT DROP AS SELECT coalesce("user", %L) AS user_name, acct, parent_acct,
                               shares, grp_tres_mins, def_qos_id, qos FROM %I.assoc_table
                         WHERE deleted = 0 AND coalesce("partition", %L) = %L', '', f.foreign_schema, '', '');
        EXECUTE format('CREATE TEMP TABLE _fs_dec_tres ON COMMIT DROP AS SELECT id, CASE WHEN coalesce(name, %L) = %L THEN type ELSE type || %L || name END AS tres
                          FROM %I.tres_table WHERE deleted = 0', '', '', '/', f.foreign_schema);
        EXECUTE format('CREATE TEMP TABLE _fs_dec_qos ON COMMIT DROP AS SELECT id, name FROM %I.qos_table WHERE deleted = 0', f.foreign_schema);
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'slurm_decisions: cannot read the slurmdbd of cluster "%" (foreign tables %): %', $1, f.foreign_schema, SQLERRM
            USING ERRCODE = '08001', HINT = 'Is MariaDB up, and do the foreign server and the user mapping reach it (docs/slurmdbd.md)?';
    END;
    IF NOT EXISTS (SELECT FROM pg_temp._fs_dec_tres t WHERE t.tres = f.limit_tres) THEN
        RAISE EXCEPTION 'slurm_decisions: slurmdbd of cluster "%" has no TRES "%" (slurmdbd_feeds.limit_tres)', $1, f.limit_tres
            USING ERRCODE = '22023', HINT = 'Use a TRES of tres_table, e.g. billing or cpu.';
    END IF;

    RETURN QUERY
    WITH RECURSIVE
    tree AS (
        SELECT a.account, a.parent_account, a.shares, 0 AS depth
          FROM @extschema@.accounts a WHERE a.cluster = $1 AND a.parent_account IS NULL
        UNION ALL
        SELECT a.account, a.parent_account, a.shares, t.depth + 1
          FROM @extschema@.accounts a JOIN tree t ON a.parent_account = t.account WHERE a.cluster = $1),
    s_acct AS (SELECT * FROM pg_temp._fs_dec_assoc s WHERE s.user_name = ''),
    s_user AS (SELECT * FROM pg_temp._fs_dec_assoc s WHERE s.user_name <> ''),
    limit_id AS (SELECT t.id FROM pg_temp._fs_dec_tres t WHERE t.tres = f.limit_tres),
    -- the allocations of each account: the one running on d, else the last ended
    alloc AS (
        SELECT DISTINCT ON (l.account) l.*, l.period_start <= d AND d <= l.period_end AS running
          FROM @extschema@.allocations l
         WHERE l.cluster = $1 AND l.period_start <= d AND l.policy IN ('genci', 'rwth')
         ORDER BY l.account, (l.period_start <= d AND d <= l.period_end) DESC, l.period_end DESC),
    rwth AS (
        SELECT DISTINCT ON (r.allocation_id) r.allocation_id, r.month, r.state, r.blocked, r.low_priority,
               r.consumed, r.consumable
          FROM @extschema@.r_wlm_usage_at($2) r WHERE r.cluster = $1
         ORDER BY r.allocation_id, r.month DESC),
    wanted AS (
        SELECT a.account, a.allocation_id,
               CASE WHEN NOT a.running THEN 0::bigint
                    WHEN a.policy = 'genci' THEN floor(@extschema@.allocation_net_hours(a.allocation_id, d) * 60)::bigint
                    WHEN r.blocked AND f.rwth_blocked_qos IS NULL THEN 0::bigint
                    ELSE -1::bigint END AS minutes,
               CASE WHEN NOT a.running
                    THEN format('allocation %s (%s) ended on %s: no further hours', a.allocation_id, a.policy, a.period_end)
                    WHEN a.policy = 'genci'
                    THEN format('GENCI allocation %s (%s to %s): %s h granted, %s h net of the ledger on %s',
                                a.allocation_id, a.period_start, a.period_end, a.hours,
                                @extschema@.allocation_net_hours(a.allocation_id, d), d)
                    WHEN r.blocked AND f.rwth_blocked_qos IS NULL
                    THEN format('RWTH project blocked in %s (allocation %s: %s core-h consumed this month, %s available); no blocked QOS configured',
                                to_char(r.month, 'YYYY-MM'), a.allocation_id, round(r.consumed::numeric, 1), round(r.consumable::numeric, 1))
                    ELSE format('RWTH allocation %s: %s in %s, no limit', a.allocation_id, coalesce(r.state, 'no month begun'),
                                coalesce(to_char(r.month, 'YYYY-MM'), '-')) END AS why,
               CASE WHEN a.running AND a.policy = 'rwth'
                     AND (f.rwth_blocked_qos IS NOT NULL OR f.rwth_low_priority_qos IS NOT NULL)
                    THEN CASE WHEN r.blocked AND f.rwth_blocked_qos IS NOT NULL THEN f.rwth_blocked_qos
                              WHEN (r.blocked OR r.low_priority) AND f.rwth_low_priority_qos IS NOT NULL THEN f.rwth_low_priority_qos
                              ELSE f.rwth_normal_qos END END AS qos,
               CASE WHEN r.blocked THEN format('RWTH project blocked in %s (allocation %s)', to_char(r.month, 'YYYY-MM'), a.allocation_id)
                    WHEN r.low_priority THEN format('RWTH project in low priority in %s (allocation %s: %s core-h available)',
                                                    to_char(r.month, 'YYYY-MM'), a.allocation_id, round(r.consumable::numeric, 1))
                    ELSE format('RWTH project back to normal in %s (allocation %s)', coalesce(to_char(r.month, 'YYYY-MM'), '-'), a.allocation_id) END AS qos_why
          FROM alloc a LEFT JOIN rwth r ON r.allocation_id = a.allocation_id),
    out AS (
        -- 1, 2: accounts
        SELECT 1 AS step, t.depth, t.account, NULL::text AS user_name,
               format('sacctmgr -i add account %s cluster=%s parent=%s fairshare=%s',
                      @extschema@._sh_word(t.account), @extschema@._sh_word($1), @extschema@._sh_word(t.parent_account),
                      coalesce(t.shares::text, 'parent')) AS command,
               format('account %s is in fairshare (under %s, %s shares), not in slurmdbd', t.account, t.parent_account,
                      coalesce(t.shares::text, 'parent')) AS reason
          FROM tree t WHERE t.parent_account IS NOT NULL
           AND NOT EXISTS (SELECT FROM s_acct s WHERE s.acct = t.account)
        UNION ALL
        SELECT 2, t.depth, t.account, NULL,
               format('sacctmgr -i modify account where name=%s cluster=%s set%s%s', @extschema@._sh_word(t.account), @extschema@._sh_word($1),
                      CASE WHEN s.parent_acct IS DISTINCT FROM t.parent_account THEN ' parent=' || @extschema@._sh_word(t.parent_account) ELSE '' END,
                      CASE WHEN s.shares IS DISTINCT FROM coalesce(t.shares::bigint, 2147483647)
                           THEN ' fairshare=' || coalesce(t.shares::text, 'parent') ELSE '' END),
               concat_ws('; ',
                   CASE WHEN s.parent_acct IS DISTINCT FROM t.parent_account
                        THEN format('parent in fairshare %s, in slurmdbd %s', t.parent_account, s.parent_acct) END,
                   CASE WHEN s.shares IS DISTINCT FROM coalesce(t.shares::bigint, 2147483647)
                        THEN format('Fairshare in fairshare %s, in slurmdbd %s', coalesce(t.shares::text, 'parent'),
                                    CASE WHEN s.shares = 2147483647 THEN 'parent' ELSE s.shares::text END) END)
          FROM tree t JOIN s_acct s ON s.acct = t.account
         WHERE t.parent_account IS NOT NULL
           AND (s.parent_acct IS DISTINCT FROM t.parent_account OR s.shares IS DISTINCT FROM coalesce(t.shares::bigint, 2147483647))
        UNION ALL
        -- 3, 4: user associations
        SELECT 3, 0, u.account, u.user_name,
               format('sacctmgr -i add user %s account=%s cluster=%s fairshare=%s', @extschema@._sh_word(u.user_name),
                      @extschema@._sh_word(u.account), @extschema@._sh_word($1), coalesce(u.shares::text, 'parent')),
               format('user %s in account %s is in fairshare (%s shares), not in slurmdbd', u.user_name, u.account,
                      coalesce(u.shares::text, 'parent'))
          FROM @extschema@.account_users u
         WHERE u.cluster = $1 AND NOT EXISTS (SELECT FROM s_user s WHERE s.acct = u.account AND s.user_name = u.user_name)
        UNION ALL
        SELECT 4, 0, u.account, u.user_name,
               format('sacctmgr -i modify user where name=%s account=%s cluster=%s set fairshare=%s', @extschema@._sh_word(u.user_name),
                      @extschema@._sh_word(u.account), @extschema@._sh_word($1), coalesce(u.shares::text, 'parent')),
               format('Fairshare of user %s in account %s: in fairshare %s, in slurmdbd %s', u.user_name, u.account,
                      coalesce(u.shares::text, 'parent'), CASE WHEN s.shares = 2147483647 THEN 'parent' ELSE s.shares::text END)
          FROM @extschema@.account_users u JOIN s_user s ON s.acct = u.account AND s.user_name = u.user_name
         WHERE u.cluster = $1 AND s.shares IS DISTINCT FROM coalesce(u.shares::bigint, 2147483647)
        UNION ALL
        -- 5: limits
        SELECT 5, 0, w.account, NULL,
               format('sacctmgr -i modify account where name=%s cluster=%s set GrpTRESMins=%s=%s',
                      @extschema@._sh_word(w.account), @extschema@._sh_word($1), f.limit_tres, w.minutes),
               format('%s: %s=%s minutes (slurmdbd has %s)', w.why, f.limit_tres,
                      CASE WHEN w.minutes < 0 THEN 'no limit' ELSE w.minutes::text END,
                      coalesce(cur.minutes::text, 'no limit'))
          FROM wanted w
          LEFT JOIN s_acct s ON s.acct = w.account
          LEFT JOIN LATERAL (
                SELECT split_part(e, '=', 2)::bigint AS minutes
                  FROM regexp_split_to_table(NULLIF(s.grp_tres_mins, ''), ',') e
                 WHERE split_part(e, '=', 1) = (SELECT l.id::text FROM limit_id l)) cur ON true
         WHERE coalesce(cur.minutes, -1) IS DISTINCT FROM greatest(w.minutes, -1)
        UNION ALL
        -- 6: QOS
        SELECT 6, 0, w.account, NULL,
               format('sacctmgr -i modify account where name=%s cluster=%s set QOS=%s DefaultQOS=%s',
                      @extschema@._sh_word(w.account), @extschema@._sh_word($1), @extschema@._sh_word(w.qos), @extschema@._sh_word(w.qos)),
               format('%s: QOS %s (slurmdbd has %s)', w.qos_why, w.qos, coalesce(q.name, 'none'))
          FROM wanted w
          LEFT JOIN s_acct s ON s.acct = w.account
          LEFT JOIN pg_temp._fs_dec_qos q ON q.id = s.def_qos_id
         WHERE w.qos IS NOT NULL
           AND (q.name IS DISTINCT FROM w.qos
                OR s.qos IS DISTINCT FROM (SELECT ',' || q2.id || ',' FROM pg_temp._fs_dec_qos q2 WHERE q2.name = w.qos)))
    SELECT o.step, o.account, o.user_name, o.command, o.reason
      FROM out o ORDER BY o.step, o.depth, o.account, o.user_name;
    DROP TABLE pg_temp._fs_dec_assoc, pg_temp._fs_dec_tres, pg_temp._fs_dec_qos;
END
$$;
COMMENT ON FUNCTION @extschema@.slurm_decisions(text, timestamptz) IS
'sacctmgr commands that make the cluster''s slurmdbd hold fairshare''s decisions (accounts, Fairshare, GENCI GrpTRESMins net of take-backs, RWTH blocks and QOS, ended allocations), each with its reason; none when slurmdbd matches.';
-- ---------------------------------------------------------------------------
-- security: roles, privileges and row-level security (docs/security.md).
-- The last piece of the install script, so that its loops cover every
-- object the pieces before it created; a piece added later before this one
-- is covered without an edit here.
--
--   fairshare_admin   manages the model (clusters, partitions, QOS,
--                     accounts, users, jobs, allocations), appends to the
--                     ledger, runs the regulation procedure and the imports
--   fairshare_reader  reads every table, view and function (reports, BI)
--   fairshare_user    a cluster user: the configuration, the pure policy
--                     functions, and only its own jobs, usage, sshare and
--                     sprio rows (Slurm's PrivateData=jobs,usage,users)
--
-- A database role stands for the scheduler user of the same name:
-- jobs.user_name = the role name.  Row-level security on every table with a
-- user_name column shows a plain user the rows whose user_name is
-- CURRENT_USER.  Fair share and priority are computed over everyone's usage,
-- which a plain user may not read: the my_* functions below are SECURITY
-- DEFINER (owned by the superuser that ran CREATE EXTENSION, so they read
-- every row), compute over everything and return the caller's rows only.
-- Inside them CURRENT_USER is their owner; the caller is the role of the
-- session, my_user_name(): the role set with SET ROLE, else the login role
-- (SESSION_USER) -- the same role as CURRENT_USER outside SECURITY DEFINER
-- functions.
--
-- Nothing here needs a superuser after CREATE EXTENSION: the three roles
-- are group roles (NOLOGIN); a DBA grants them to login roles.
-- ---------------------------------------------------------------------------

-- Install-script safety (docs/security.md#install-script-safety).  During
-- CREATE EXTENSION the search path is "fairshare, pg_temp" with pg_catalog
-- searched first: objects in public cannot capture anything, but objects
-- already in schema fairshare could (a better-typed overload of a function
-- the script calls, e.g. _raise(text, text, text, float8)).  CREATE EXTENSION
-- reuses an existing schema of that name, whoever owns it.  So: the schema
-- must belong to a superuser, nobody else may create objects in it, and it
-- must hold nothing but this extension's objects.  Nothing the pieces above
-- created has run yet (no rows, no calls), so refusing here, which rolls the
-- whole script back, is in time.
DO $$
DECLARE
    ext oid;
    nsp oid;
    owner_name text;
    owner_super boolean;
    bad text;
BEGIN
    SELECT e.oid, e.extnamespace INTO ext, nsp
      FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'fairshare';
    SELECT r.rolname, r.rolsuper INTO owner_name, owner_super
      FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
     WHERE n.oid OPERATOR(pg_catalog.=) nsp;
    IF NOT owner_super THEN
        RAISE EXCEPTION 'schema % belongs to role "%", who is not a superuser', nsp::pg_catalog.regnamespace, owner_name
            USING ERRCODE = '55000',
                  DETAIL = 'Its owner could rename it or plant objects that the extension''s functions would call.',
                  HINT = 'Check what the schema holds, drop it (or ALTER SCHEMA ... OWNER TO a superuser) and run CREATE EXTENSION again.';
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(COALESCE(r.rolname, 'PUBLIC')), ', ') INTO bad
      FROM pg_catalog.pg_namespace n
     CROSS JOIN LATERAL pg_catalog.aclexplode(n.nspacl) a
      LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
     WHERE n.oid OPERATOR(pg_catalog.=) nsp
       AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
       AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner
       AND NOT COALESCE(r.rolsuper, false);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'schema % lets % create objects in it', nsp::pg_catalog.regnamespace, bad
            USING ERRCODE = '55000',
                  HINT = 'REVOKE CREATE ON SCHEMA from them (and drop what they created), then run CREATE EXTENSION again.';
    END IF;
    -- every object with a namespace depends on it; members also on the extension
    SELECT pg_catalog.string_agg(pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid), ', ') INTO bad
      FROM pg_catalog.pg_depend d
     WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
       AND d.refobjid OPERATOR(pg_catalog.=) nsp
       AND NOT (d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
                AND d.objid OPERATOR(pg_catalog.=) ext)
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend m
                        WHERE m.classid OPERATOR(pg_catalog.=) d.classid
                          AND m.objid OPERATOR(pg_catalog.=) d.objid
                          AND m.deptype OPERATOR(pg_catalog.=) 'e'
                          AND m.refobjid OPERATOR(pg_catalog.=) ext)
       -- statistics objects are never extension members (like indexes,
       -- they belong to their table): accept those on the extension's tables
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_statistic_ext s
                         JOIN pg_catalog.pg_depend m
                           ON m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                          AND m.objid OPERATOR(pg_catalog.=) s.stxrelid
                          AND m.deptype OPERATOR(pg_catalog.=) 'e'
                          AND m.refobjid OPERATOR(pg_catalog.=) ext
                        WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass
                          AND s.oid OPERATOR(pg_catalog.=) d.objid);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'schema % already holds objects that are not part of the extension: %', nsp::pg_catalog.regnamespace, bad
            USING ERRCODE = '55000',
                  HINT = 'Move or drop them, then run CREATE EXTENSION again: the extension''s own names must not be shadowed.';
    END IF;
END
$$;

-- The three group roles, created when missing.  Roles belong to the whole
-- cluster: DROP EXTENSION leaves them (and a second database reuses them).
-- A role that already exists is only accepted if it cannot defeat what is
-- granted below: not SUPERUSER, BYPASSRLS, CREATEROLE or REPLICATION, and no
-- non-superuser holding ADMIN OPTION on it (who could hand it out; on
-- PostgreSQL 16 the non-superuser who created a role holds that option).
DO $$
DECLARE
    role_name text;
    r record;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['fairshare_admin', 'fairshare_reader', 'fairshare_user'] LOOP
        SELECT a.rolsuper, a.rolbypassrls, a.rolcreaterole, a.rolreplication,
               (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(g.rolname), ', ')
                  FROM pg_catalog.pg_auth_members m
                  JOIN pg_catalog.pg_roles g ON g.oid OPERATOR(pg_catalog.=) m.member
                 WHERE m.roleid OPERATOR(pg_catalog.=) a.oid AND m.admin_option AND NOT g.rolsuper) AS admins
          INTO r
          FROM pg_catalog.pg_roles a WHERE a.rolname OPERATOR(pg_catalog.=) role_name;
        IF NOT FOUND THEN
            EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', role_name);
            EXECUTE pg_catalog.format('COMMENT ON ROLE %I IS %L', role_name,
                CASE role_name
                  WHEN 'fairshare_admin' THEN 'fairshare: manages clusters, accounts, users, jobs and allocations, runs regulation and imports'
                  WHEN 'fairshare_reader' THEN 'fairshare: reads every table, view and report'
                  ELSE 'fairshare: a cluster user, sees only its own jobs, usage, sshare and sprio rows' END);
        ELSIF r.rolsuper OR r.rolbypassrls OR r.rolcreaterole OR r.rolreplication OR r.admins IS NOT NULL THEN
            RAISE EXCEPTION 'role "%" already exists with powers the extension does not give it', role_name
                USING ERRCODE = '55000',
                      DETAIL = pg_catalog.format('superuser %s, bypassrls %s, createrole %s, replication %s, admin option held by %s',
                                                 r.rolsuper, r.rolbypassrls, r.rolcreaterole, r.rolreplication,
                                                 COALESCE(r.admins, 'nobody')),
                      HINT = 'fairshare creates this group role itself: drop it, or remove those attributes and ADMIN OPTION grants, then run CREATE EXTENSION again.';
        END IF;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Private views: the caller's rows, computed over everyone's usage
-- ---------------------------------------------------------------------------

-- The scheduler user the private views answer for: the session's role (the
-- one SET ROLE chose, else the login role).  Outside SECURITY DEFINER
-- functions this is CURRENT_USER, the role row-level security filters by.
CREATE FUNCTION @extschema@.my_user_name()
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
RETURN COALESCE(NULLIF(pg_catalog.current_setting('role'), 'none'), SESSION_USER::text);
COMMENT ON FUNCTION @extschema@.my_user_name() IS
'The user_name the private views (my_sshare, my_sprio, my_pbsfs) answer for: the role chosen with SET ROLE, else the login role.';

-- SECURITY DEFINER bodies are BEGIN ATOMIC: every name in them was bound
-- when the script ran, so neither search_path nor objects created later can
-- change what they call.
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
    -- sprio_at's columns from _sprio_rows, which plans its query with as_of
    -- known: sprio_at's own query, inlined here, would be planned with
    -- as_of unknown, which Citus cannot distribute (docs/citus.md)
    SELECT s.cluster, s.job_id, s.partition, s.user_name, s.account, s.qos, s.priority,
           s.age, s.fairshare, s.job_size, s.partition_prio, s.qos_prio, s.nice,
           s.age_weighted, s.fairshare_weighted, s.job_size_weighted, s.partition_weighted, s.qos_weighted,
           s.priority_exact, s.age_factor, s.fairshare_factor, s.job_size_factor, s.partition_factor, s.qos_factor,
           s.submit_time, s.eligible_time,
           @extschema@._sprio_explanation(s.x_w_age, s.x_pending_s, s.x_max_age_text, s.age_factor,
               s.age_weighted, s.x_w_fs, s.x_no_share, s.account, s.user_name, s.fairshare_factor,
               s.fairshare_weighted, s.x_w_js, s.x_favor_small, s.x_cpus, s.x_total_nodes, s.x_nodes,
               s.x_total_cpus, s.job_size_factor, s.job_size_weighted, s.x_w_part, s.x_pjf, s.x_max_pjf,
               s.partition_factor, s.partition_weighted, s.x_w_qos, s.qos, s.x_qos_priority, s.x_max_qos,
               s.qos_factor, s.qos_weighted, s.nice, s.priority_exact, s.priority)
      FROM @extschema@._sprio_rows(my_sprio_at.as_of) s
     WHERE s.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_sprio_at(timestamptz) IS
'The caller''s pending jobs of sprio_at(as_of), their priority computed over every user''s usage (Slurm PrivateData=jobs). STRICT: NULL as_of gives no rows.';

CREATE VIEW @extschema@.my_sprio AS
SELECT * FROM @extschema@.my_sprio_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.my_sprio IS 'my_sprio_at(now()): the caller''s pending jobs and their priority factors.';

CREATE FUNCTION @extschema@.my_pbsfs_at(as_of timestamptz)
RETURNS SETOF @extschema@.pbsfs
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.* FROM @extschema@.pbsfs_at(my_pbsfs_at.as_of) s
     WHERE s.is_user AND s.entity OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_pbsfs_at(timestamptz) IS
'The caller''s entities of pbsfs_at(as_of) (PBS / MetaCentrum fair share), computed over every user. STRICT: NULL as_of gives no rows.';

CREATE VIEW @extschema@.my_pbsfs AS
SELECT * FROM @extschema@.my_pbsfs_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.my_pbsfs IS 'my_pbsfs_at(now()): the caller''s PBS fair-share rows.';

-- A project leader's statements (account_leaders): the monthly statements
-- of the allocations of the accounts the caller leads (statements.sql).
CREATE FUNCTION @extschema@.my_allocation_statements(in_month date, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (allocation_id bigint, cluster text, account text, policy text, month date,
               line integer, item text, user_name text, day date, hours float8, note text)
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.allocation_id, s.cluster, s.account, s.policy, s.month, s.line, s.item, s.user_name, s.day, s.hours, s.note
      FROM @extschema@.allocation_statements(my_allocation_statements.in_month, my_allocation_statements.as_of) s
     WHERE EXISTS (SELECT FROM @extschema@.account_leaders l
                    WHERE l.cluster OPERATOR(pg_catalog.=) s.cluster AND l.account OPERATOR(pg_catalog.=) s.account
                      AND l.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name());
END;
COMMENT ON FUNCTION @extschema@.my_allocation_statements(date, timestamptz) IS
'The monthly statements (allocation_statements) of the allocations of the accounts the caller leads (account_leaders), computed with the definer''s rights. STRICT: NULL arguments give no rows.';

-- ---------------------------------------------------------------------------
-- Grants.  Loops over the extension's members; the few exceptions are named.
-- ---------------------------------------------------------------------------
DO $$
DECLARE
    ext oid;
    r record;
    cols text;
    -- functions a plain user may call beyond the pure (IMMUTABLE) ones:
    -- each reads only what row-level security lets the caller see and
    -- computes every row from that row's own data, so it is right for the
    -- caller's rows (the tree functions are not: see my_*)
    user_functions text[] := ARRAY[
        'association_usage_at(timestamp with time zone)',
        '_association_usage(timestamp with time zone, boolean, text)',
        'metacentrum_job_usage_at(timestamp with time zone)',
        'metacentrum_user_usage_at(timestamp with time zone)',
        'my_user_name()',
        'my_sshare_at(timestamp with time zone)',
        'my_sprio_at(timestamp with time zone)',
        'my_pbsfs_at(timestamp with time zone)',
        'my_allocation_statements(date, timestamp with time zone)'];
    -- what a plain user may read: the configuration those functions need,
    -- the views over them, and (added below) every table with a user_name
    -- column, filtered to the caller's rows
    user_relations text[] := ARRAY[
        'clusters', 'partitions', 'qos', 'pbs_settings',
        'job_billing', 'association_usage', 'metacentrum_job_usage', 'metacentrum_user_usage',
        -- when and whether each cluster's usage checkpoint holds (its rows,
        -- per user, are filtered like jobs); not why (user_hidden_columns)
        'usage_checkpoints',
        'my_sshare', 'my_sprio', 'my_pbsfs'];
    -- columns of those relations a plain user may not read: why a
    -- checkpoint was invalidated names the job that did it ("INSERT on
    -- jobs: job 42, ..."), which PrivateData=jobs hides from other users
    -- (issue 20).  The user gets SELECT on the other columns only.
    user_hidden_columns text[] := ARRAY['usage_checkpoints.invalidated_by'];
    -- journals: the administrator appends, never changes or removes
    append_only text[] := ARRAY['ledger', 'regulation_checks'];
    -- columns the administrator may not change once a row exists:
    -- an allocation's initial grant (changes go to the ledger)
    fixed_columns text[] := ARRAY['allocations.hours'];
BEGIN
    SELECT e.oid INTO ext FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'fairshare';

    EXECUTE 'REVOKE ALL ON SCHEMA @extschema@ FROM PUBLIC';
    EXECUTE 'GRANT USAGE ON SCHEMA @extschema@ TO fairshare_admin, fairshare_reader, fairshare_user';

    -- Routines.  CREATE FUNCTION grants EXECUTE to PUBLIC: take it back from
    -- every one, then by volatility: IMMUTABLE functions read only their
    -- arguments (everyone), STABLE ones read the model (reader, admin),
    -- VOLATILE ones and procedures write (admin).  Trigger functions need
    -- no grant.  SECURITY DEFINER functions get only the grants named here.
    EXECUTE 'REVOKE ALL ON ALL ROUTINES IN SCHEMA @extschema@ FROM PUBLIC';
    FOR r IN
        SELECT p.oid, p.provolatile, p.prokind, p.prosecdef,
               pg_catalog.format('%I.%I(%s)', n.nspname, p.proname,
                                 pg_catalog.oidvectortypes(p.proargtypes)) AS sig,
               pg_catalog.format('%s(%s)', p.proname, pg_catalog.oidvectortypes(p.proargtypes)) AS local_sig
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) d.objid
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=) ext AND d.deptype OPERATOR(pg_catalog.=) 'e'
           AND p.prorettype OPERATOR(pg_catalog.<>) 'pg_catalog.trigger'::pg_catalog.regtype
    LOOP
        IF r.prosecdef THEN
            IF r.local_sig OPERATOR(pg_catalog.=) ANY (user_functions) THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin, fairshare_reader, fairshare_user', r.sig);
            END IF;
        ELSIF r.prokind OPERATOR(pg_catalog.=) 'p' OR r.provolatile OPERATOR(pg_catalog.=) 'v' THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin', r.sig);
        ELSIF r.provolatile OPERATOR(pg_catalog.=) 's' THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin, fairshare_reader', r.sig);
            IF r.local_sig OPERATOR(pg_catalog.=) ANY (user_functions) THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_user', r.sig);
            END IF;
        ELSE
            EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin, fairshare_reader, fairshare_user', r.sig);
        END IF;
    END LOOP;

    -- Relations.
    FOR r IN
        SELECT c.oid, c.relname, c.relkind, c.relispartition,
               pg_catalog.format('%I.%I', n.nspname, c.relname) AS name,
               EXISTS (SELECT FROM pg_catalog.pg_attribute a
                        WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND NOT a.attisdropped
                          AND a.attname OPERATOR(pg_catalog.=) 'user_name') AS per_user
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=) ext AND d.deptype OPERATOR(pg_catalog.=) 'e'
           AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', r.name);
        -- a partition (jobs_default) is read and written through its
        -- parent, whose grants and policies apply; it gets no grant of its
        -- own, so that no role reads it past the parent's policies (the
        -- monthly partitions maintain_partitions makes get none either)
        IF r.relispartition THEN
            CONTINUE;
        END IF;
        IF r.relkind OPERATOR(pg_catalog.=) 'S' THEN
            -- identity columns take their values without these
            EXECUTE pg_catalog.format('GRANT SELECT ON SEQUENCE %s TO fairshare_reader', r.name);
            EXECUTE pg_catalog.format('GRANT USAGE, SELECT ON SEQUENCE %s TO fairshare_admin', r.name);
            CONTINUE;
        END IF;
        EXECUTE pg_catalog.format('GRANT SELECT ON %s TO fairshare_admin, fairshare_reader', r.name);
        IF EXISTS (SELECT FROM pg_catalog.unnest(user_hidden_columns) f
                    WHERE f OPERATOR(pg_catalog.^@) (r.relname OPERATOR(pg_catalog.||) '.')) THEN
            SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
              FROM pg_catalog.pg_attribute a
             WHERE a.attrelid OPERATOR(pg_catalog.=) r.oid AND a.attnum OPERATOR(pg_catalog.>) 0
               AND NOT a.attisdropped
               AND (r.relname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) a.attname)
                   OPERATOR(pg_catalog.<>) ALL (user_hidden_columns);
            EXECUTE pg_catalog.format('GRANT SELECT (%s) ON %s TO fairshare_user', cols, r.name);
        ELSIF r.relname OPERATOR(pg_catalog.=) ANY (user_relations) OR (r.per_user AND r.relkind IN ('r', 'p')) THEN
            EXECUTE pg_catalog.format('GRANT SELECT ON %s TO fairshare_user', r.name);
        END IF;
        IF r.relkind IN ('v', 'm') THEN
            -- a view reads its tables with the caller's rights and row
            -- filters, never with its owner's (a superuser, who sees all)
            IF r.relkind OPERATOR(pg_catalog.=) 'v' THEN
                EXECUTE pg_catalog.format('ALTER VIEW %s SET (security_invoker = true)', r.name);
            END IF;
            CONTINUE;
        END IF;

        -- base tables: what the administrator may write
        IF r.relname OPERATOR(pg_catalog.=) ANY (append_only) THEN
            -- INSERT on every column but the identity and the stamps of
            -- who and when (DEFAULT CURRENT_USER / now()), which the
            -- administrator cannot forge
            SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
              FROM pg_catalog.pg_attribute a
              LEFT JOIN pg_catalog.pg_attrdef df
                ON df.adrelid OPERATOR(pg_catalog.=) a.attrelid AND df.adnum OPERATOR(pg_catalog.=) a.attnum
             WHERE a.attrelid OPERATOR(pg_catalog.=) r.oid AND a.attnum OPERATOR(pg_catalog.>) 0
               AND NOT a.attisdropped AND a.attidentity OPERATOR(pg_catalog.=) ''
               AND COALESCE(pg_catalog.pg_get_expr(df.adbin, df.adrelid) NOT IN ('CURRENT_USER', 'now()'), true);
            EXECUTE pg_catalog.format('GRANT INSERT (%s) ON %s TO fairshare_admin', cols, r.name);
        ELSE
            EXECUTE pg_catalog.format('GRANT INSERT, DELETE ON %s TO fairshare_admin', r.name);
            IF EXISTS (SELECT FROM pg_catalog.unnest(fixed_columns) f
                        WHERE f OPERATOR(pg_catalog.^@) (r.relname OPERATOR(pg_catalog.||) '.')) THEN
                SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
                  FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid OPERATOR(pg_catalog.=) r.oid AND a.attnum OPERATOR(pg_catalog.>) 0
                   AND NOT a.attisdropped
                   AND (r.relname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) a.attname)
                       OPERATOR(pg_catalog.<>) ALL (fixed_columns);
                EXECUTE pg_catalog.format('GRANT UPDATE (%s) ON %s TO fairshare_admin', cols, r.name);
            ELSE
                EXECUTE pg_catalog.format('GRANT UPDATE ON %s TO fairshare_admin', r.name);
            END IF;
        END IF;

        -- Slurm's PrivateData: a plain user sees its own rows; readers and
        -- the administrator see every row
        IF r.per_user THEN
            EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', r.name);
            EXECUTE pg_catalog.format('CREATE POLICY fairshare_reader_all ON %s FOR SELECT TO fairshare_reader USING (true)', r.name);
            EXECUTE pg_catalog.format('CREATE POLICY fairshare_admin_all ON %s FOR ALL TO fairshare_admin USING (true) WITH CHECK (true)', r.name);
            EXECUTE pg_catalog.format('CREATE POLICY fairshare_user_own ON %s FOR SELECT TO fairshare_user '
                                      'USING (user_name OPERATOR(pg_catalog.=) CURRENT_USER::text)', r.name);
        END IF;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Every PL/pgSQL function of the extension runs with jit = off.
--
-- PostgreSQL compiles a query with LLVM when its estimated cost is above
-- jit_above_cost (and inlines and optimises it above 500,000), and JIT is on
-- in a stock server.  The queries inside these routines read functions and
-- trees whose row counts the planner can only guess, so their estimates are
-- far above what they cost, and compiling them took longer than running
-- them: at 10^7 jobs with jit on, sprio_at took 17 s instead of 4.3 s and
-- sshare_at 7.6 s instead of 1.8 s (docs/performance.md#jit).  A SQL function
-- that PostgreSQL inlines into the calling query is left alone (a SET clause
-- would keep it from being inlined): that query follows the session's
-- setting.  So is a procedure: one with a SET clause cannot commit
-- (maintain_partitions and retain_jobs do), and their heavy queries run in
-- the functions they call.  Run last, so that it sees every function; an
-- upgrade script that adds functions runs it again.
-- ---------------------------------------------------------------------------
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT p.oid::pg_catalog.regprocedure AS routine
          FROM pg_catalog.pg_proc p
          JOIN pg_catalog.pg_language l ON l.oid OPERATOR(pg_catalog.=) p.prolang
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
         WHERE n.nspname OPERATOR(pg_catalog.=) '@extschema@'
           AND l.lanname OPERATOR(pg_catalog.=) 'plpgsql'
           AND p.prokind OPERATOR(pg_catalog.=) 'f'
         ORDER BY p.oid
    LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET jit = off', r.routine);
    END LOOP;
END
$$;
