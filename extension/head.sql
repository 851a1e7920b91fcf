-- fairshare install script, assembled by the Makefile from extension/*.sql
-- (one piece per policy area, in the order of SQL_ORDER).
--
-- Every object is created as @extschema@.name, every built-in is called as
-- pg_catalog.name and every operator written OPERATOR(pg_catalog.x), so the
-- script does not depend on search_path (docs/security.md#install-script-safety).

\echo Use "CREATE EXTENSION fairshare" to load this file. \quit

-- The private routines and types (their names begin with "_") live in a
-- schema of their own, so that schema fairshare holds only what a user
-- calls and reads (docs/design.md#two-layers).  The script creates it: if a
-- schema of that name already exists, CREATE EXTENSION stops here, before
-- anything could be captured by objects someone else put in it
-- (docs/security.md#install-script-safety).
CREATE SCHEMA @extschema@_internal;
COMMENT ON SCHEMA @extschema@_internal IS
'fairshare''s private routines and types: called by the functions, views and procedures of schema fairshare, not meant to be called directly.';

-- Raise an error from inside an expression (SQL functions, CHECKs, views).
CREATE FUNCTION @extschema@_internal._raise(sqlstate text, message text, hint text, result anyelement)
RETURNS anyelement LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
END
$$;

