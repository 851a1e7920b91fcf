-- Update from fairshare 1.2 to 1.3: what runs once (CONTRIBUTING.md#upgrades).
--
-- The Makefile builds extension/fairshare--1.2--1.3.sql from this file
-- followed by every function, procedure, aggregate, view, trigger, comment,
-- grant and DO block of the pieces, re-created.  So this file holds only
-- what the pieces create once: new tables, columns, types, indexes,
-- constraints and policies, changed data, and the DROPs of objects 1.3 no
-- longer has or whose signature, return type or view columns changed.
-- test/upgrade.sh proves the result equal to a fresh install of 1.3.

-- Retention makes the rollups of the retained hours final
-- (docs/history.md#retention-retain_jobs): rollup_state.retained_to.
ALTER TABLE @extschema@.rollup_state ADD COLUMN retained_to timestamptz;

-- slurmdbd decisions (docs/slurmdbd.md#the-decisions-slurm_decisions): the
-- Slurm cluster name the decisions use, kept from slurmdbd_connect (read
-- back from the foreign table it made: <ClusterName>_job_table); the
-- decisions as rows with sacctmgr's argument vector instead of sh lines.
ALTER TABLE @extschema@.slurmdbd_feeds ADD COLUMN slurm_cluster text;
UPDATE @extschema@.slurmdbd_feeds s
   SET slurm_cluster = coalesce((
        SELECT pg_catalog.regexp_replace(o.option_value, '_job_table$', '')
          FROM pg_catalog.pg_foreign_table ft
          JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) ft.ftrelid
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
         CROSS JOIN LATERAL pg_catalog.pg_options_to_table(ft.ftoptions) o
         WHERE n.nspname OPERATOR(pg_catalog.=) s.foreign_schema AND c.relname OPERATOR(pg_catalog.=) 'job_table'
           AND o.option_name OPERATOR(pg_catalog.=) 'table_name'), s.cluster);
ALTER TABLE @extschema@.slurmdbd_feeds ALTER COLUMN slurm_cluster SET NOT NULL,
    ADD CONSTRAINT slurmdbd_feeds_slurm_cluster_check
        CHECK (slurm_cluster OPERATOR(pg_catalog.~) '^[A-Za-z0-9_][A-Za-z0-9_-]*$');
DROP FUNCTION @extschema@.slurm_decisions(text, timestamptz);
DROP FUNCTION @extschema@._sh_word(text);

-- ---------------------------------------------------------------------------
-- The private routines and types move to schema fairshare_internal
-- (extension/head.sql says why).  Keep this block last: the blocks above
-- name them where 1.2 had them.  Moved, not re-created, each keeps its OID,
-- so what refers to it (columns of its type, triggers, the functions whose
-- bodies were parsed at creation) follows; the code below then re-creates
-- every routine with its new qualified name.
-- ---------------------------------------------------------------------------
CREATE SCHEMA @extschema@_internal;
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT p.oid::pg_catalog.regprocedure AS routine,
               CASE p.prokind WHEN 'a' THEN 'AGGREGATE' WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END AS kind
          FROM pg_catalog.pg_proc p
         WHERE p.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
           AND p.proname OPERATOR(pg_catalog.^@) '_'
         ORDER BY p.oid
    LOOP
        EXECUTE pg_catalog.format('ALTER %s %s SET SCHEMA @extschema@_internal', r.kind, r.routine);
    END LOOP;
    FOR r IN
        SELECT t.oid::pg_catalog.regtype AS type
          FROM pg_catalog.pg_type t
         WHERE t.typnamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
           AND t.typname OPERATOR(pg_catalog.^@) '_' AND t.typtype OPERATOR(pg_catalog.=) 'c'
           AND t.typrelid OPERATOR(pg_catalog.<>) 0
           AND (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) t.typrelid) OPERATOR(pg_catalog.=) 'c'
         ORDER BY t.oid
    LOOP
        EXECUTE pg_catalog.format('ALTER TYPE %s SET SCHEMA @extschema@_internal', r.type);
    END LOOP;
END
$$;
