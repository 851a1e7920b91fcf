-- ---------------------------------------------------------------------------
-- decay: decayed usage aggregates (docs/policies.md#decay, docs/decay.md)
--
-- State float8[3] = {rows, sum, Neumaier compensation}; a real type with a
-- combine function, so parallel query and Citus both split these.
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@_internal._decay_combine(float8[], float8[]) RETURNS float8[]
AS 'MODULE_PATHNAME', 'fs_decay_combine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@_internal._decay_final(float8[]) RETURNS float8
AS 'MODULE_PATHNAME', 'fs_decay_final' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- usage charged at an instant, continuous half-life
CREATE FUNCTION @extschema@_internal._decay_point_accum(float8[], float8, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage(usage float8, at timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@_internal._decay_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage(float8, timestamptz, timestamptz, interval) IS
'Σ usage × 2^(−(as_of − at)/half_life) over rows with at <= as_of; half_life 0 or NULL = no decay.';

-- usage accrued uniformly over [started, ended], exact integral of the decay
CREATE FUNCTION @extschema@_internal._decay_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@_internal._decay_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage(float8, timestamptz, timestamptz, timestamptz, interval) IS
'usage accrued uniformly over [started, ended]; the part up to as_of counts, each instant decayed from when it accrued.';

-- Slurm-compatible: per-second factor 1 − 0.693/half_life_seconds
CREATE FUNCTION @extschema@_internal._decay_slurm_point_accum(float8[], float8, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_slurm_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm(usage float8, at timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@_internal._decay_slurm_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm(float8, timestamptz, timestamptz, interval) IS
'Σ usage × (1 − 0.693/half_life_s)^age_s, the factor Slurm''s priority/multifactor really applies.';

CREATE FUNCTION @extschema@_internal._decay_slurm_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_slurm_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, half_life interval) (
    SFUNC = @extschema@_internal._decay_slurm_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm(float8, timestamptz, timestamptz, timestamptz, interval) IS
'Slurm-compatible decay of usage accrued over [started, ended].';

-- PBS step decay: × decay_factor at every decay_interval boundary since 1970-01-01 UTC
CREATE FUNCTION @extschema@_internal._decay_step_point_accum(float8[], float8, timestamptz, timestamptz, interval, float8)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_step_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_step(usage float8, at timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@_internal._decay_step_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_step(float8, timestamptz, timestamptz, interval, float8) IS
'PBS step decay: usage × decay_factor^(decay_interval boundaries between at and as_of), boundaries counted from 1970-01-01 UTC.';

CREATE FUNCTION @extschema@_internal._decay_step_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz, interval, float8)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_step_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_step(usage float8, started timestamptz, ended timestamptz, as_of timestamptz, decay_interval interval, decay_factor float8) (
    SFUNC = @extschema@_internal._decay_step_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_step(float8, timestamptz, timestamptz, timestamptz, interval, float8) IS
'PBS step decay of usage accrued uniformly over [started, ended].';

-- Slurm's passes (decay_mode 'slurm_passes'): usage as slurmctld's decay
-- thread leaves it, one pass every PriorityCalcPeriod from the phase (the
-- instant of one pass; NULL: whole multiples of the period since
-- 1970-01-01 UTC).  The span form takes the billing per second and the
-- real end (NULL or after as_of: still running); each job is one closed
-- form, a geometric series over the passes its run spans (decay.c).
CREATE FUNCTION @extschema@_internal._decay_passes_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz,
                                                     interval, interval, timestamptz)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_passes_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm_passes(billing float8, started timestamptz, ended timestamptz,
                                                         as_of timestamptz, half_life interval,
                                                         calc_period interval, phase timestamptz) (
    SFUNC = @extschema@_internal._decay_passes_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, timestamptz, interval, interval, timestamptz) IS
'Usage of jobs billed billing per second over [started, ended] (ended NULL: running) as slurmctld''s passes leave it at as_of: every pass multiplies usage by f^Δ (f = 1 − 0.693/half_life_s) and charges each running job billing × d × f^d for the d seconds since the previous pass; a job that ends is charged so at its end.';

CREATE FUNCTION @extschema@_internal._decay_passes_point_accum(float8[], float8, timestamptz, timestamptz,
                                                      interval, interval, timestamptz)
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_passes_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm_passes(usage float8, at timestamptz, as_of timestamptz,
                                                         half_life interval, calc_period interval,
                                                         phase timestamptz) (
    SFUNC = @extschema@_internal._decay_passes_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, interval, interval, timestamptz) IS
'Usage charged at an instant, decayed by slurmctld''s passes after it: × f^(last pass by as_of − last pass by at).';

CREATE FUNCTION @extschema@.slurm_last_pass(as_of timestamptz, calc_period interval, phase timestamptz DEFAULT NULL)
RETURNS timestamptz AS 'MODULE_PATHNAME', 'fs_slurm_last_pass'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.slurm_last_pass(timestamptz, interval, timestamptz) IS
'The instant of slurmctld''s last decay pass at or before as_of: passes every calc_period (PriorityCalcPeriod) from phase (one pass''s instant, e.g. priority_last_decay_ran; NULL: multiples of calc_period since 1970-01-01 UTC). NULL as_of gives NULL.';

-- slurmctld's (re)starts (docs/decay.md#slurmctld-restarts): each start is
-- a pass (it decays and charges the running jobs for the time since the
-- last pass of the run before it) and the passes after it keep its phase,
-- one every calc_period from the start; before the first start, the passes
-- of phase.  starts: the instants, in any order (NULL or empty: none).
CREATE FUNCTION @extschema@_internal._decay_passes_span_accum(float8[], float8, timestamptz, timestamptz, timestamptz,
                                                     interval, interval, timestamptz, timestamptz[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_passes_span_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@_internal._decay_passes_point_accum(float8[], float8, timestamptz, timestamptz,
                                                      interval, interval, timestamptz, timestamptz[])
RETURNS float8[] AS 'MODULE_PATHNAME', 'fs_decay_passes_point_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE @extschema@.decayed_usage_slurm_passes(billing float8, started timestamptz, ended timestamptz,
                                                         as_of timestamptz, half_life interval,
                                                         calc_period interval, phase timestamptz,
                                                         starts timestamptz[]) (
    SFUNC = @extschema@_internal._decay_passes_span_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@.decayed_usage_slurm_passes(float8, timestamptz, timestamptz, timestamptz, interval, interval, timestamptz, timestamptz[]) IS
'decayed_usage_slurm_passes with slurmctld''s starts: each start a pass that charges the time since the last pass of the run before it, the passes after it every calc_period from it.';
-- (The point form with starts is private: public, its seven arguments
-- would make a call of the span form with untyped literals ambiguous.)
CREATE AGGREGATE @extschema@_internal._decayed_usage_slurm_passes_point(usage float8, at timestamptz, as_of timestamptz,
                                                                half_life interval, calc_period interval,
                                                                phase timestamptz, starts timestamptz[]) (
    SFUNC = @extschema@_internal._decay_passes_point_accum, STYPE = float8[], INITCOND = '{0,0,0}',
    COMBINEFUNC = @extschema@_internal._decay_combine, FINALFUNC = @extschema@_internal._decay_final,
    PARALLEL = SAFE);
COMMENT ON AGGREGATE @extschema@_internal._decayed_usage_slurm_passes_point(float8, timestamptz, timestamptz, interval, interval, timestamptz, timestamptz[]) IS
'Usage charged at an instant, decayed by slurmctld''s passes after it, its starts among them: × f^(last pass by as_of − last pass by at).';

CREATE FUNCTION @extschema@.slurm_last_pass(as_of timestamptz, calc_period interval, phase timestamptz,
                                            starts timestamptz[])
RETURNS timestamptz AS 'MODULE_PATHNAME', 'fs_slurm_last_pass'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.slurm_last_pass(timestamptz, interval, timestamptz, timestamptz[]) IS
'The instant of slurmctld''s last decay pass at or before as_of, with its starts: the last start at or before as_of plus whole calc_periods (before the first start: the passes of phase). NULL as_of gives NULL.';

CREATE FUNCTION @extschema@.slurm_next_pass(as_of timestamptz, calc_period interval, phase timestamptz DEFAULT NULL,
                                            starts timestamptz[] DEFAULT NULL)
RETURNS timestamptz AS 'MODULE_PATHNAME', 'fs_slurm_next_pass'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.slurm_next_pass(timestamptz, interval, timestamptz, timestamptz[]) IS
'The instant of slurmctld''s first decay pass after as_of: a calc_period after the last one, or the next start of slurmctld if it comes first. NULL as_of gives NULL.';
