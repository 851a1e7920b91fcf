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
CREATE FUNCTION @extschema@_internal._pbs_decay_point_accum(internal, float8, timestamptz, timestamptz, interval, float8)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@_internal._pbs_decay_span_accum(internal, float8, timestamptz, timestamptz, timestamptz, interval, float8)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@_internal._pbs_decay_combine(internal, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@_internal._pbs_decay_serial(internal)
RETURNS bytea AS 'MODULE_PATHNAME', 'fs_pbs_decay_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@_internal._pbs_decay_deserial(bytea, internal)
RETURNS internal AS 'MODULE_PATHNAME', 'fs_pbs_decay_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@_internal._pbs_decay_final(internal)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_pbs_decay_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.decayed_usage_pbs(usage float8, at timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@_internal._pbs_decay_point_accum, STYPE = internal, SSPACE = 64,
    COMBINEFUNC = @extschema@_internal._pbs_decay_combine,
    SERIALFUNC = @extschema@_internal._pbs_decay_serial, DESERIALFUNC = @extschema@_internal._pbs_decay_deserial,
    FINALFUNC = @extschema@_internal._pbs_decay_final, PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_pbs(float8, timestamptz, timestamptz, interval, float8) IS
'PBS entity usage at as_of: starts at 1, usage charged at an instant is added, every decay_interval (from 1970-01-01 UTC) it is multiplied by decay_factor and raised back to 1 if below.';

CREATE AGGREGATE @extschema@.decayed_usage_pbs(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@_internal._pbs_decay_span_accum, STYPE = internal, SSPACE = 64,
    COMBINEFUNC = @extschema@_internal._pbs_decay_combine,
    SERIALFUNC = @extschema@_internal._pbs_decay_serial, DESERIALFUNC = @extschema@_internal._pbs_decay_deserial,
    FINALFUNC = @extschema@_internal._pbs_decay_final, PARALLEL = SAFE);
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
