-- fairshare 1.1 → 1.2 (ALTER EXTENSION fairshare UPDATE TO '1.2').
--
-- The released 1.1 script (extension/fairshare--1.1.sql) is never edited:
-- every change since ships here, in the order of the pieces
-- (extension/*.sql), and test/upgrade.sh checks that a 1.0 or 1.1 database
-- updated by this script has the same objects and gives the same reports as
-- a fresh 1.2.

\echo Use "ALTER EXTENSION fairshare UPDATE TO '1.2'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- billing: core_hours refuses a run without a finite start or end (22008) on
-- every major.  PostgreSQL 15 and 16 raised it from infinity - t; from 17 on
-- that is an infinite interval, and core_hours returned Infinity.
-- ---------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION @extschema@._core_hours_invalid(cpus integer, nodes integer, gpus integer,
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

CREATE OR REPLACE FUNCTION @extschema@.core_hours(
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
