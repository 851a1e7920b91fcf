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
-- (docs/performance-history.md#what-was-fixed-and-how-it-was-found).
CREATE FUNCTION @extschema@_internal._core_hours_invalid(cpus integer, nodes integer, gpus integer,
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

-- The cores core_hours bills a run for each hour, as an exact numeric:
-- nodes × cores_per_node for an exclusive (or whole-node) run, else its
-- CPUs, or its GPUs × gpu_hour_factor when that is more.  The core-hours of
-- the GENCI and RWTH reports are these times the microseconds run, summed
-- exactly, then divided (docs/regulation.md#consumption-from-the-rollups).
CREATE FUNCTION @extschema@_internal._core_billed(cpus integer, exclusive boolean, nodes integer,
                                                 cores_per_node integer, gpus integer, gpu_hour_factor float8)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN GREATEST(CASE WHEN exclusive AND cores_per_node IS NOT NULL
                     THEN nodes::numeric OPERATOR(pg_catalog.*) cores_per_node::numeric
                     ELSE cpus::numeric END,
                gpus::numeric OPERATOR(pg_catalog.*) COALESCE(gpu_hour_factor, 0)::numeric);

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
      THEN @extschema@_internal._core_hours_invalid(cpus, nodes, gpus, gpu_hour_factor, started, ended)
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
