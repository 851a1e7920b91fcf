-- install: CREATE EXTENSION, and the invariants every object of the
-- extension must keep (each query lists the violators; none expected).
CREATE EXTENSION fairshare;
SELECT extname, extversion, extrelocatable, n.nspname
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE extname = 'fairshare';

-- every table and sequence of the extension is dumped with its rows
SELECT c.relname AS not_config_dumped
  FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'fairshare')
   AND c.relkind IN ('r', 'S')
   AND c.oid <> ALL ((SELECT extconfig FROM pg_extension WHERE extname = 'fairshare')::oid[])
 ORDER BY 1;

-- every routine lives in schema fairshare, the private ones (their names
-- begin with "_") in schema fairshare_internal, and nothing else does
SELECT pg_describe_object(d.classid, d.objid, 0) AS outside_schema
  FROM pg_depend d
  JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'fairshare')
   AND p.pronamespace <> CASE WHEN p.proname LIKE '\_%' THEN 'fairshare_internal' ELSE 'fairshare' END::regnamespace;
SELECT pg_describe_object(d.classid, d.objid, 0) AS private_type_outside_schema
  FROM pg_depend d
  JOIN pg_type t ON d.classid = 'pg_type'::regclass AND t.oid = d.objid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'fairshare')
   AND t.typname LIKE '\_%' AND t.typelem = 0  -- (an array type's name begins with _ too)
   AND t.typnamespace <> 'fairshare_internal'::regnamespace;
SELECT n.nspname, count(p.oid) FILTER (WHERE p.proname LIKE '\_%') > 100 AS many_private_routines,
       count(p.oid) FILTER (WHERE p.proname NOT LIKE '\_%') > 100 AS many_public_routines
  FROM pg_namespace n LEFT JOIN pg_proc p ON p.pronamespace = n.oid
 WHERE n.nspname IN ('fairshare', 'fairshare_internal')
 GROUP BY 1 ORDER BY 1;

-- functions that only compute are PARALLEL SAFE (docs/design.md#two-layers),
-- but the lab's reports, which set fairshare.scenario for their duration
-- (a setting a parallel worker cannot change) and say so by their SET
-- clause (docs/history.md#the-policy-lab): PARALLEL RESTRICTED
SELECT p.oid::regprocedure AS not_parallel_safe
  FROM pg_proc p
 WHERE p.pronamespace IN ('fairshare'::regnamespace, 'fairshare_internal'::regnamespace)
   AND p.provolatile <> 'v' AND p.proparallel <> 's' AND p.prokind <> 'p'
   AND p.prorettype <> 'trigger'::regtype
   AND NOT (p.proparallel = 'r' AND 'fairshare.scenario=' = ANY (p.proconfig))
 ORDER BY 1;

-- no SECURITY DEFINER function without a fixed search_path
SELECT p.oid::regprocedure AS definer_without_search_path
  FROM pg_proc p
 WHERE p.pronamespace IN ('fairshare'::regnamespace, 'fairshare_internal'::regnamespace) AND p.prosecdef
   AND NOT coalesce(p.proconfig::text LIKE '%search_path=%', false);

-- every PL/pgSQL function runs with jit = off (security.sql says why):
-- none without it; procedures cannot (a SET clause forbids their COMMIT)
SELECT p.oid::regprocedure AS plpgsql_function_with_jit
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.pronamespace IN ('fairshare'::regnamespace, 'fairshare_internal'::regnamespace) AND l.lanname = 'plpgsql' AND p.prokind = 'f'
   AND NOT coalesce('jit=off' = ANY (p.proconfig), false);
-- (the check above is not vacuous: it sees the extension's PL/pgSQL functions,
-- 88 when this was written; per-row work moves to C, so the floor is 50)
SELECT count(*) > 50 AS many_plpgsql_functions_checked
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.pronamespace IN ('fairshare'::regnamespace, 'fairshare_internal'::regnamespace) AND l.lanname = 'plpgsql' AND p.prokind = 'f';

-- For the other suites: err(sql) runs a statement and returns its SQLSTATE
-- and message (or 'no error'), so expected files show the code of every
-- rejected input without line numbers of C files.
CREATE FUNCTION public.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
