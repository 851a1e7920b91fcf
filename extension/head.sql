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

