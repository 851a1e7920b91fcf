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
