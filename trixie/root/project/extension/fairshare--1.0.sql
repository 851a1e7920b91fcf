-- fairshare install script, assembled by the Makefile from extension/*.sql
-- (one piece per policy area, in the order of SQL_ORDER).
--
-- Every object is created as @extschema@.name, every built-in is called as
-- pg_catalog.name and every operator written OPERATOR(pg_catalog.x), so the
-- script does not depend on search_path (pg-extension.md §5.1).

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
-- billing: Slurm's billable TRES and RWTH core-hours (POLICIES.md §1)
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

-- core_hours' error, raised from inside its expression.  A function of its
-- own because format() is STABLE (it prints timestamps in the session's time
-- zone): an IMMUTABLE SQL function whose body calls it is never inlined, and
-- core_hours runs once per job in the GENCI and RWTH reports (issue 7).
CREATE FUNCTION @extschema@._core_hours_invalid(cpus integer, nodes integer, gpus integer,
                                                gpu_hour_factor float8, started timestamptz, ended timestamptz)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
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
-- decay: decayed usage aggregates (POLICIES.md §2)
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
-- ---------------------------------------------------------------------------
-- model: the accounting database — clusters, partitions, the association
-- tree, jobs, allocations and their append-only ledger (DESIGN.md).
--
-- Constraints reject what the policies cannot use.  Every table holds a
-- centre's data, so each is registered with pg_extension_config_dump and
-- survives pg_dump / restore.
-- ---------------------------------------------------------------------------

CREATE TABLE @extschema@.clusters (
    cluster              text PRIMARY KEY CHECK (cluster OPERATOR(pg_catalog.<>) ''),
    scheduler            text NOT NULL DEFAULT 'slurm' CHECK (scheduler IN ('slurm', 'pbs')),
    -- fairshare: Slurm Fair Tree (default), classic (NO_FAIR_TREE) or the PBS tree
    fairshare_algorithm  text NOT NULL DEFAULT 'fair_tree'
                         CHECK (fairshare_algorithm IN ('fair_tree', 'classic', 'pbs')),
    -- decay: 'exact' 2^(-t/h), 'slurm' (1-0.693/h)^t, 'step' PBS factor per interval
    decay_mode           text NOT NULL DEFAULT 'exact' CHECK (decay_mode IN ('exact', 'slurm', 'step')),
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
    description          text
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
    PRIMARY KEY (cluster, job_id),
    FOREIGN KEY (cluster, partition) REFERENCES @extschema@.partitions ON UPDATE CASCADE,
    FOREIGN KEY (cluster, account, user_name) REFERENCES @extschema@.account_users ON UPDATE CASCADE,
    CHECK (tres IS NULL OR @extschema@.tres_weights_valid(tres)),
    -- an infinite instant would make every usage report of the centre fail
    CONSTRAINT jobs_finite_times CHECK (pg_catalog.isfinite(submit_time) AND pg_catalog.isfinite(eligible_time)
           AND pg_catalog.isfinite(start_time) AND pg_catalog.isfinite(end_time)),
    CHECK (eligible_time IS NULL OR eligible_time OPERATOR(pg_catalog.>=) submit_time),
    CHECK (end_time IS NULL OR start_time IS NULL OR end_time OPERATOR(pg_catalog.>=) start_time),
    CHECK (state OPERATOR(pg_catalog.<>) 'PENDING' OR (start_time IS NULL AND end_time IS NULL)),
    CHECK (state NOT IN ('RUNNING', 'SUSPENDED') OR (start_time IS NOT NULL AND end_time IS NULL))
);
COMMENT ON TABLE @extschema@.jobs IS 'Jobs as the scheduler accounted them: who, where, when, what was allocated.';
-- An association's jobs (the foreign key to account_users, per-project
-- consumption).  The account leads: with one cluster, a leading cluster
-- column has correlation 1 in the statistics and the planner takes a full
-- scan of the index in association order for a sequential read, where it
-- reads the table in random order (issue 7; README "Performance").
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
CREATE INDEX ON @extschema@.jobs (cluster, start_time);
-- A project's jobs over a window of time, with what its core-hours need
-- (GENCI allocation_consumption, RWTH rwth_monthly_usage_at): an index-only
-- scan of the window instead of a visit to every job of the account in the
-- table (issue 7: the regulation of 10^4 allocations, 12 s -> 1.4 s).
CREATE INDEX ON @extschema@.jobs (account, cluster, start_time)
    INCLUDE (end_time, cpus, nodes, gpus, exclusive, partition);
CREATE INDEX jobs_pending_idx ON @extschema@.jobs (cluster, submit_time) WHERE state OPERATOR(pg_catalog.=) 'PENDING';

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
SELECT pg_catalog.pg_extension_config_dump('@extschema@.jobs', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.allocations', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.allocations_allocation_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger_entry_id_seq', '');
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

-- Decayed usage (billing-seconds) of every user association as of an
-- instant, with its cluster's decay.  A job counts from its start; a job
-- still running at as_of counts up to as_of; a job that started after
-- as_of does not count (what was known then).
--
-- The jobs are aggregated first, per association, and the associations
-- joined after: one scan of the job table (parallel, hash-aggregated)
-- instead of one index probe per association, which reads a large table
-- in random order (issue 7; README "Performance").
CREATE FUNCTION @extschema@.association_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH spans AS (
        SELECT b.cluster, b.account, b.user_name, b.start_time AS s,
               COALESCE(b.end_time, GREATEST(b.start_time, association_usage_at.as_of)) AS e,
               b.billing
          FROM @extschema@.job_billing b
         WHERE b.start_time IS NOT NULL
           AND b.start_time OPERATOR(pg_catalog.<=) association_usage_at.as_of
    ), charged AS (
        SELECT s.cluster, s.account, s.user_name, s.s, s.e,
               s.billing OPERATOR(pg_catalog.*)
                 pg_catalog.date_part('epoch', s.e OPERATOR(pg_catalog.-) s.s) AS usage
          FROM spans s
    ), per_association AS (
        SELECT ch.cluster, ch.account, ch.user_name,
               COALESCE(
                 @extschema@.decayed_usage(ch.usage, ch.s, ch.e, association_usage_at.as_of, c.decay_half_life)
                   FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'exact'),
                 @extschema@.decayed_usage_slurm(ch.usage, ch.s, ch.e, association_usage_at.as_of, c.decay_half_life)
                   FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'slurm'),
                 @extschema@.decayed_usage_step(ch.usage, ch.s, ch.e, association_usage_at.as_of, c.decay_interval, c.decay_factor)
                   FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'step')) AS raw_usage,
               pg_catalog.count(ch.usage) AS jobs
          FROM charged ch
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) ch.cluster
         GROUP BY ch.cluster, ch.account, ch.user_name
    )
    SELECT au.cluster, au.account, au.user_name,
           COALESCE(u.raw_usage, 0) AS raw_usage,
           COALESCE(u.jobs, 0) AS jobs
      FROM @extschema@.account_users au
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN per_association u
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
-- ---------------------------------------------------------------------------
-- fair_tree: Slurm's fair share over an association tree (PROTEUS, CALI;
-- POLICIES.md §3), read from Slurm's code (slurm-semantics.md §1, §2, §6).
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
-- floor of 1, and the PBS fairshare tree (POLICIES.md §1-3; C in pbs.c).
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
-- (POLICIES.md §1-3; policies-research.md C).  Clusters whose
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
-- priority: Slurm's multifactor job priority and its factors (POLICIES.md §4;
-- PROTEUS seed 001: 90000 fairshare / 5000 age / 5000 job size, 14-day max
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
-- ---------------------------------------------------------------------------
-- sshare: Slurm's `sshare -l` over the accounting model, as of any instant
-- (PROTEUS, CALI; POLICIES.md §3; column meanings in slurm-semantics.md §1.6).
--
-- Every cluster whose fairshare_algorithm is 'fair_tree' or 'classic' gets
-- one row per association: its accounts (user_name NULL) and its user
-- associations, with the decayed usage of association_usage_at(as_of).
-- The account tree itself is the current one: the model keeps no history
-- of accounts and shares.
-- ---------------------------------------------------------------------------

-- The association tree of every cluster as rows for the tree window
-- functions (fair_tree.sql), with each user association's decayed usage as
-- of an instant; accounts carry no usage of their own.  Ids: 'a:' ||
-- account, and 'u:' || length(account) || ':' || account || ':' || user for
-- user associations, so ids never collide and sibling ids sort by account
-- or user name (the lineage order Slurm breaks ties with).
CREATE FUNCTION @extschema@.association_tree_at(as_of timestamptz)
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
      LEFT JOIN @extschema@.association_usage_at(association_tree_at.as_of) u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name;
END;
COMMENT ON FUNCTION @extschema@.association_tree_at(timestamptz) IS
'Every cluster''s association tree (accounts and user associations) with each user association''s decayed usage as of an instant: the rows (id, parent_id, shares, usage, is_user) for the tree window functions.';

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

CREATE FUNCTION @extschema@.sshare_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, parent text, depth integer,
               tree_order bigint, algorithm text,
               raw_shares integer, norm_shares float8, raw_usage float8, raw_usage_int bigint,
               norm_usage float8, effectv_usage float8, fairshare float8, level_fs float8,
               fs_rank bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH r AS (
        SELECT t.cluster, t.account, t.user_name, t.parent, t.algorithm, t.shares,
               @extschema@._sshare_tree(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.algorithm,
                   -- a subquery, not a join: a join with clusters would leave
                   -- the planner guessing 1/200 of the rows (issue 7)
                   CASE WHEN t.algorithm OPERATOR(pg_catalog.=) 'classic'
                        THEN (SELECT c.fairshare_dampening FROM @extschema@.clusters c
                               WHERE c.cluster OPERATOR(pg_catalog.=) t.cluster) END)
                 OVER (PARTITION BY t.cluster) AS f
          FROM @extschema@.association_tree_at(sshare_at.as_of) t
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
           (r.f).fs_rank
      FROM r
     WHERE @extschema@._check_as_of(sshare_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.sshare_at(timestamptz) IS
'Slurm sshare -l as of an instant: every association of every fair_tree/classic cluster with RawShares, NormShares, RawUsage (decayed billing-seconds), NormUsage, EffectvUsage, FairShare, LevelFS; ORDER BY cluster, tree_order for sshare''s listing.';

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
-- `sprio -l` shows it, at any instant (POLICIES.md §4; slurm-semantics.md
-- §4.3), and PROTEUS's procedure (seed 001): order the pending jobs by
-- priority and start them while resources remain.
--
-- Weights, PriorityMaxAge, PriorityFavorSmall and the cluster size come from
-- fairshare.clusters, PriorityJobFactor from fairshare.partitions, QOS
-- priorities from fairshare.qos, and the fair-share factor from
-- fairshare.sshare_at(as_of).  The configuration tables hold the current
-- configuration only: a past as_of sees the jobs and usage known then under
-- today's weights.
-- ---------------------------------------------------------------------------

-- Seconds as Slurm prints a duration: D-HH:MM:SS (whole seconds).
CREATE FUNCTION @extschema@._slurm_duration(seconds float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.format('%s-%s:%s:%s',
    pg_catalog.floor(seconds OPERATOR(pg_catalog./) 86400)::bigint,
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 3600)::bigint OPERATOR(pg_catalog.%) 24)::text, 2, '0'),
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 60)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0'),
    pg_catalog.lpad((pg_catalog.floor(seconds)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0'));

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
BEGIN ATOMIC
    WITH sizes AS (
        -- the cluster's size for the job-size factor: configured, or the
        -- sum over its partitions
        SELECT c.cluster,
               COALESCE(c.total_nodes::bigint, pg_catalog.sum(p.nodes)) AS total_nodes,
               COALESCE(c.total_cpus::bigint,
                        pg_catalog.sum(p.nodes::bigint OPERATOR(pg_catalog.*) p.cores_per_node)::bigint) AS total_cpus,
               GREATEST(pg_catalog.max(p.priority_job_factor), 1) AS max_pjf,
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
               p.priority_job_factor AS pjf, z.max_pjf, q.priority AS qos_priority, z.max_qos,
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
                  @extschema@._slurm_duration(GREATEST(s.pending_s, 0)),
                  @extschema@._slurm_duration(@extschema@._interval_seconds(s.priority_max_age)),
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

-- PROTEUS's procedure (seed 001): order the pending jobs by priority, start
-- the first, and repeat while resources and pending jobs remain.
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
-- genci: GENCI regulation of under-consumption (POLICIES.md §5; the reading
-- of the 2017 IDRIS/CINES/TGCC text is fixed in policies-research.md A).
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
-- length in days over the mean month, D × 12 / 365.25 (research A.4).
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

-- The whole monthly-regulation status on a day (POLICIES.md §5):
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

-- Hours the monthly regulation takes back on as_of (POLICIES.md §5): one
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
-- (POLICIES.md §5): the alert goes out on the first day of month 5
-- (period_start + 4 months) to projects that have used at most used_limit
-- of their hours; on the first day after month 5 (period_start + 5 months)
-- such a project loses min(cap × A, max(0, A × 5 / months − consumed)).
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
-- regulation_threshold; NULL threshold = 0) or 'mid-term'.
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
    WITH a AS (
        SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end, al.hours,
               al.justification_filed, al.second_half_declared,
               CASE WHEN al.hours >= coalesce(c.regulation_threshold, 0) THEN 'monthly' ELSE 'mid-term' END AS regime,
               coalesce(s.variant, 'genci') AS variant,
               coalesce(s.midterm_cap, 0.40) AS cap,
               coalesce(s.midterm_used_limit, 0.30) AS used_limit,
               @extschema@._genci_net_before(al.allocation_id, $1) AS net,
               @extschema@.allocation_consumption(al.allocation_id, $1) AS used
          FROM @extschema@.allocations al
          JOIN @extschema@.clusters c ON c.cluster = al.cluster
          LEFT JOIN @extschema@.genci_settings s ON s.cluster = al.cluster
         WHERE al.policy = 'genci'
    )
    SELECT a.cluster, a.account, a.allocation_id, a.period_start, a.period_end, a.regime, a.variant,
           a.hours, a.net, a.used, st.theoretical, st.lag, st.lag_days, st.monthly, st.ratio,
           st.status, st.allocation_month,
           CASE WHEN a.regime = 'monthly' THEN st.check_day ELSE mt.check_day END,
           ex.exempt,
           CASE WHEN a.regime = 'monthly' THEN st.penalty
                WHEN ex.exempt THEN 0::float8 ELSE mt.take_back END,
           lp.effective_date, lp.hours,
           coalesce(tb.hours, 0)
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
                          WHERE l.allocation_id = a.allocation_id AND l.kind = 'take_back'
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
                net := @extschema@._genci_net_before(al.allocation_id, cd.check_day);
                used := @extschema@.allocation_consumption(al.allocation_id, cd.check_day);
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
-- ---------------------------------------------------------------------------
-- import: jobs in from a scheduler's accounting (issue 6; README "Importing
-- jobs").  Slurm `sacct --parsable2` exports and PBS / OpenPBS / PBS Pro
-- accounting logs go into fairshare.jobs by one call each:
--
--   SELECT fairshare.import_stage();                  -- TEMP table import_staging
--   \copy import_staging (line) FROM 'day.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
--   SELECT * FROM fairshare.import_sacct('oracle', 'Europe/Paris');
--
-- Every staged line is one text value (the odd delimiter and quote make COPY
-- take each line whole, untouched), numbered in file order by an identity
-- column.  The parsers are C (import.c), one call per line; the rest is set
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

SELECT pg_catalog.pg_extension_config_dump('@extschema@.imports', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.imports_import_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.import_rejects', '');

-- What the line parsers return (import.c).
CREATE TYPE @extschema@._sacct_line AS (
    kind text, cluster text, job_id text, step text, user_name text, account text,
    partition text, qos text, state text, submit_time timestamptz,
    eligible_time timestamptz, start_time timestamptz, end_time timestamptz,
    time_limit interval, tres text, cpus integer, mem_mb bigint, gpus integer,
    nodes integer, sqlstate text, reason text);

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

CREATE FUNCTION @extschema@._pbs_record(line text, time_zone text)
RETURNS @extschema@._pbs_record
AS 'MODULE_PATHNAME', 'fs_pbs_record'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._pbs_record(text, text) IS
'One PBS accounting log record: kind job, skip (no job usage in it), blank or reject (with sqlstate and reason).';

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
            HINT = 'Run SELECT fairshare.import_stage(); then \copy import_staging (line) FROM ''file'' (FORMAT csv, DELIMITER E''\x1f'', QUOTE E''\x1e'').';
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

-- The staging table's first non-blank line and its number of lines.  After
-- import_stage() and \copy the first lines are in the table's first block:
-- the head is taken from there (a TID range scan) and one counting pass
-- checks that no earlier line exists anywhere else, instead of sorting.
CREATE FUNCTION @extschema@._import_head(src regclass, OUT first_line text, OUT lines bigint)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    first_no bigint;
    earlier bigint;
BEGIN
    EXECUTE format('SELECT line_no, line FROM %s WHERE ctid < ''(1,0)''::tid AND line <> ''''
                     ORDER BY line_no LIMIT 1', src) INTO first_no, first_line;
    EXECUTE format('SELECT count(*), count(*) FILTER (WHERE line_no < $1 AND line <> '''') FROM %s', src)
       INTO lines, earlier USING COALESCE(first_no, 9223372036854775807);
    IF earlier > 0 THEN
        EXECUTE format('SELECT line FROM %s WHERE line <> '''' ORDER BY line_no LIMIT 1', src) INTO first_line;
    END IF;
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
    -- one scan of the work table; the rest works on these few rows
    IF to_regclass('pg_temp._fs_import_assoc') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_assoc; END IF;
    CREATE TEMP TABLE _fs_import_assoc AS
    SELECT w.cluster, w.account, w.user_name, w.partition,
           max(w.nodes) AS nodes,
           max(ceil(w.cpus::numeric / GREATEST(w.nodes, 1))) AS cpus_per_node,
           max(ceil(w.mem_mb::numeric / GREATEST(w.nodes, 1))) AS mem_per_node,
           max(ceil(w.gpus::numeric / GREATEST(w.nodes, 1))) AS gpus_per_node
      FROM pg_temp._fs_import_jobs w
     WHERE w.kind = 'job'
     GROUP BY 1, 2, 3, 4;

    -- clusters: never created, they carry the centre's policy parameters
    DELETE FROM _fs_import_assoc a
     WHERE NOT EXISTS (SELECT 1 FROM @extschema@.clusters c WHERE c.cluster = a.cluster);
    IF FOUND THEN
        UPDATE pg_temp._fs_import_jobs w
           SET kind = 'reject', sqlstate = '23503',
               reason = format('cluster %s is not in fairshare.clusters', quote_literal(w.cluster))
         WHERE w.kind = 'job'
           AND NOT EXISTS (SELECT 1 FROM @extschema@.clusters c WHERE c.cluster = w.cluster);
    END IF;

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
-- latest time is not before the stored one's), so that an older export
-- loaded after a newer one changes nothing.  Columns the import does not
-- read (scratch_mb, spec, nice; exclusive for Slurm) keep their values.
--
-- A job twice in the work table makes ON CONFLICT raise 21000 or the plain
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
    EXECUTE format('INSERT INTO @extschema@.import_rejects (import_id, line_no, job_id, sqlstate, reason, line)
                    SELECT $1, l.line_no, l.job_id, l.sqlstate, l.reason, l.line FROM %s l
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
    created record;
    upserted record;
    kept bigint;
    n_lone bigint;
    n_remainders bigint;
    n_array_lines bigint;
    jobs_accepted bigint;
BEGIN
    IF create_missing IS NULL OR all_or_nothing IS NULL THEN
        RAISE EXCEPTION 'create_missing and all_or_nothing must not be NULL' USING ERRCODE = '22004';
    END IF;
    -- the export's header: its first non-blank line
    SELECT h.first_line, h.lines INTO hdr, lines_read FROM @extschema@._import_head(src) h;
    IF hdr IS NULL THEN
        RAISE EXCEPTION 'staging table % is empty: no sacct header line', src USING ERRCODE = '22023',
            HINT = 'sacct -P prints its header even when no job matches; check the \copy that filled the staging table.';
    END IF;
    IF cluster IS NULL AND hdr !~* '(^|\|)Cluster(\||\r?$)' THEN
        RAISE EXCEPTION 'cluster is NULL and the export has no Cluster column' USING ERRCODE = '22004',
            HINT = 'Pass the cluster, or add Cluster to sacct -o.';
    END IF;

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

    -- Parse every line once (the OFFSET keeps the subquery, so the parser
    -- runs once per line and its fields are read from the one result).  A
    -- step printed right after its job's line is folded here and not kept.
    IF to_regclass('pg_temp._fs_import_jobs') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_jobs; END IF;
    EXECUTE format($q$
        CREATE TEMP TABLE _fs_import_jobs AS
        SELECT q.line_no, (q.r).kind, (q.r).cluster, (q.r).job_id, (q.r).step,
               (q.r).user_name, (q.r).account, (q.r).partition, (q.r).qos, (q.r).state,
               (q.r).submit_time, (q.r).eligible_time, (q.r).start_time, (q.r).end_time,
               (q.r).time_limit, (q.r).tres, (q.r).cpus, (q.r).mem_mb, (q.r).gpus,
               (q.r).nodes, NULL::boolean AS exclusive, false AS stored, (q.r).sqlstate, (q.r).reason,
               CASE WHEN (q.r).kind = 'reject' THEN q.line END AS line
          FROM (SELECT s.line_no, s.line, @extschema@._sacct_line(s.line, $1, $2, $3) AS r
                  FROM %s s OFFSET 0) q
         WHERE (q.r).kind <> 'step'$q$, src)
    USING hdr, tz, cluster;
    GET DIAGNOSTICS kept = ROW_COUNT;
    -- statistics, so that the joins below hash (a small sample will do)
    ANALYZE pg_temp._fs_import_jobs;

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
        -- a line in the export, or be stored
        UPDATE pg_temp._fs_import_jobs w
           SET kind = 'reject', sqlstate = '23503',
               reason = format('step %s.%s: job %s is neither in this export nor in fairshare.jobs',
                               w.job_id, w.step, w.job_id)
         WHERE w.kind = 'lone_step'
           AND NOT EXISTS (SELECT 1 FROM pg_temp._fs_import_jobs j
                                WHERE j.kind IN ('job', 'reject')
                              AND j.cluster = w.cluster AND j.job_id = w.job_id)
           AND NOT EXISTS (SELECT 1 FROM @extschema@.jobs x WHERE x.cluster = w.cluster AND x.job_id = w.job_id);
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

    rejected := @extschema@._import_rejects(import_sacct.import_id, 'pg_temp._fs_import_jobs', src, all_or_nothing);
    SELECT count(*) FILTER (WHERE w.kind IN ('job', 'stale')),
           count(*) FILTER (WHERE w.kind IN ('lone_step', 'duplicate')),
           count(*) FILTER (WHERE w.kind IN ('header', 'blank'))
      INTO jobs_accepted, folded, skipped
      FROM pg_temp._fs_import_jobs w;
    unchanged := jobs_accepted - imported - updated;
    folded := folded + lines_read - kept;      -- and the steps folded while parsing

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

-- A job's records in one load fold into one row: the latest record (by its
-- time, then its line) gives the state; each other column is the latest
-- value any record gave, merged with the stored row for what this load does
-- not say (a D record names no user).
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

    -- one row per job: the latest value of each column (ORDER BY ... DESC,
    -- first non-NULL), merged with the stored row
    IF to_regclass('pg_temp._fs_import_jobs') IS NOT NULL THEN DROP TABLE pg_temp._fs_import_jobs; END IF;
    CREATE TEMP TABLE _fs_import_jobs AS
    WITH g AS (
        SELECT l.job_id,
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
          FROM pg_temp._fs_import_lines l
         WHERE l.kind = 'job'
         GROUP BY l.job_id),
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
          LEFT JOIN @extschema@.jobs j ON j.cluster = import_pbs.cluster AND j.job_id = g.job_id)
    SELECT s.line_no, 'job'::text AS kind, import_pbs.cluster AS cluster, s.job_id,
           COALESCE(s.user_name, s.j_user) AS user_name,
           COALESCE(s.account, s.j_account) AS account,
           COALESCE(s.partition, s.j_partition) AS partition,
           s.j_qos AS qos, s.state,
           COALESCE(s.submit_time, s.j_submit) AS submit_time,
           COALESCE(s.eligible_time, s.j_eligible) AS eligible_time,
           CASE WHEN s.state = 'PENDING' THEN NULL ELSE COALESCE(s.start_time, s.j_start) END AS start_time,
           CASE WHEN s.state IN ('PENDING', 'RUNNING', 'SUSPENDED') THEN NULL
                WHEN s.state = 'REQUEUED' THEN COALESCE(s.end_time, s.j_end)
                ELSE COALESCE(s.end_time, s.stopped_at, s.j_end, s.last_time) END AS end_time,
           COALESCE(s.time_limit, s.j_limit) AS time_limit,
           COALESCE(s.tres, s.j_tres) AS tres,
           COALESCE(s.cpus, s.j_cpus, 0) AS cpus,
           COALESCE(s.mem_mb, s.j_mem, 0) AS mem_mb,
           COALESCE(s.gpus, s.j_gpus, 0) AS gpus,
           COALESCE(s.nodes, s.j_nodes, 1) AS nodes,
           COALESCE(s.exclusive, s.j_exclusive, false) AS exclusive,
           NULL::text AS sqlstate, NULL::text AS reason, s.stored
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

    upserted := @extschema@._import_upsert(true);
    imported := upserted.imported;
    updated := upserted.updated;
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
    DROP TABLE pg_temp._fs_import_jobs;
    PERFORM @extschema@._import_empty(src);
END
$$;
COMMENT ON FUNCTION @extschema@.import_pbs(text, text, text, boolean, boolean, text) IS
'Imports the PBS accounting log records staged in import_staging into fairshare.jobs (one row per job, its Q/S/R/D/E records folded); returns the same summary as import_sacct.';
-- ---------------------------------------------------------------------------
-- security: roles, privileges and row-level security (issue 8, README
-- "Roles and privileges").  The last piece of the install script, so that
-- its loops cover every object the pieces before it created; a piece added
-- later before this one is covered without an edit here.
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

-- Install-script safety (pg-extension.md §5.1).  During CREATE EXTENSION
-- the search path is "fairshare, pg_temp" with pg_catalog searched first:
-- objects in public cannot capture anything, but objects already in schema
-- fairshare could (a better-typed overload of a function the script calls,
-- e.g. _raise(text, text, text, float8)).  CREATE EXTENSION reuses an
-- existing schema of that name, whoever owns it.  So: the schema must belong
-- to a superuser, nobody else may create objects in it, and it must hold
-- nothing but this extension's objects.  Nothing the pieces above created
-- has run yet (no rows, no calls), so refusing here, which rolls the whole
-- script back, is in time.
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
    SELECT s.* FROM @extschema@.sprio_at(my_sprio_at.as_of) s
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
        'metacentrum_job_usage_at(timestamp with time zone)',
        'metacentrum_user_usage_at(timestamp with time zone)',
        'my_user_name()',
        'my_sshare_at(timestamp with time zone)',
        'my_sprio_at(timestamp with time zone)',
        'my_pbsfs_at(timestamp with time zone)'];
    -- what a plain user may read: the configuration those functions need,
    -- the views over them, and (added below) every table with a user_name
    -- column, filtered to the caller's rows
    user_relations text[] := ARRAY[
        'clusters', 'partitions', 'qos', 'pbs_settings',
        'job_billing', 'association_usage', 'metacentrum_job_usage', 'metacentrum_user_usage',
        'my_sshare', 'my_sprio', 'my_pbsfs'];
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
        SELECT c.oid, c.relname, c.relkind,
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
        IF r.relkind OPERATOR(pg_catalog.=) 'S' THEN
            -- identity columns take their values without these
            EXECUTE pg_catalog.format('GRANT SELECT ON SEQUENCE %s TO fairshare_reader', r.name);
            EXECUTE pg_catalog.format('GRANT USAGE, SELECT ON SEQUENCE %s TO fairshare_admin', r.name);
            CONTINUE;
        END IF;
        EXECUTE pg_catalog.format('GRANT SELECT ON %s TO fairshare_admin, fairshare_reader', r.name);
        IF r.relname OPERATOR(pg_catalog.=) ANY (user_relations) OR (r.per_user AND r.relkind IN ('r', 'p')) THEN
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
