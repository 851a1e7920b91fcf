-- ---------------------------------------------------------------------------
-- citus: the model on a Citus cluster (docs/citus.md).  One call on the
-- coordinator, fairshare.distribute(), turns the tables into Citus tables:
-- jobs hash-distributed on job_id, every other table of the extension a
-- reference table (a copy on every node).  The reports are unchanged: the
-- decayed-usage aggregates have a combine function and a plain state type
-- (float8[3]), so Citus computes them on the workers as partial aggregates
-- and combines them on the coordinator; the joins with the small tables run
-- on the workers against their copies.
--
-- Why job_id.  Citus enforces a primary key on each shard only, so the
-- distribution column must be part of it: (cluster, job_id, submit_time),
-- one row per run (docs/runs.md).  Of these, cluster puts a one-cluster
-- centre on one shard; submit_time and job_id both spread the runs evenly,
-- and job_id keeps every run of one id on one shard, so the import's
-- per-id work (the runs of an id, closed and reused ids) joins jobs on
-- (cluster, job_id) within a shard.  account, which would keep an
-- association's jobs together, is not in the key, and the renames of
-- accounts and users cascade into jobs (ON UPDATE CASCADE), which Citus
-- cannot do to a distribution column.  The per-association aggregates
-- therefore run as partial aggregates on every shard; the coordinator
-- receives at most (associations × shards) states, not the jobs.
--
-- What Citus does not do, and what is done instead:
--   * triggers on distributed tables: the hours of the usage rollups a
--     write makes stale are marked by statement triggers on jobs
--     (reports.sql), which cannot fire on the shards.  distribute() drops
--     them; fairshare's own writers (the imports, sync_slurmdbd, the closing
--     of requeued runs) then mark the hours of the rows they write in
--     rollup_dirty themselves, through the function the triggers call
--     (_rollups_mark, _rollup_run_hours), and refresh_rollups gives the
--     rollups of a single server.  A user's own INSERT, UPDATE or DELETE on
--     jobs marks nothing: invalidate_rollups() after it.
--   * the usage checkpoints are kept valid by statement triggers with
--     transition tables on jobs (checkpoint.sql), which cannot fire on the
--     shards.  distribute() drops them; fairshare's writers then hand the
--     runs they write, as they were and as they are, to
--     _usage_checkpoints_by_writer, which marks the checkpoints they
--     change through the functions the triggers call
--     (_checkpoint_run_changed, _usage_checkpoint_invalidate), and
--     checkpoint_usage and retain_jobs work as on one server.  A user's own
--     write to jobs marks nothing: invalidate_usage_checkpoints() after it.
--     The triggers on clusters, partitions, qos and slurmctld_starts that
--     invalidate checkpoints when the decay or billing settings change
--     write usage_checkpoints, which a trigger on a reference table's
--     copies cannot do (and one that reads it there deadlocks a COPY into
--     the table): dropped too; invalidate_usage_checkpoints() after such a
--     change.
--     The checkpoints' rows follow their checkpoint by foreign keys with
--     cascades between the reference tables (their triggers write another
--     table), and no fair-share factors are cached (their triggers on the
--     tree write another table): sprio_at computes the tree itself.
--   * triggers on reference tables are created on every copy when
--     citus.enable_unsafe_triggers is on at distribution time.  The ledger's
--     append-only triggers and the bound on allocation hours read no other
--     table, and the account tree's cycle check reads only accounts, the
--     copy on the node where it fires: they are kept so, and tested
--     (test/citus/test.sh).  Any other trigger makes distribute() refuse.
--   * foreign keys: Citus turns a local table that references a reference
--     table into a "Citus local table" by renaming it, which the extension's
--     views cannot follow.  distribute() drops the foreign keys among the
--     extension's tables, converts every table, and adds them again, same
--     names and definitions (distributed -> reference keys are supported,
--     with their ON UPDATE CASCADE, since job_id is in none of them).
--   * row-level security: policies without subqueries are copied to every
--     shard; the workers run each query as the calling role, so a plain
--     user's queries see its own rows there too.
--   * pg_extension_config_dump: pg_dump on the coordinator reads the
--     distributed tables through Citus, so a dump holds every row; it
--     restores as a single server, and distribute() distributes it again.
-- ---------------------------------------------------------------------------

-- How Citus holds a table: 'distributed', 'reference', 'local' (a Citus
-- local table), or NULL when Citus is not installed or the table is not a
-- Citus table.  Dynamic SQL: pg_dist_partition exists only with Citus.
CREATE FUNCTION @extschema@_internal._citus_table_kind(rel regclass)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind text;
BEGIN
    IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE 'SELECT CASE WHEN p.partmethod = ''h'' THEN ''distributed''
                         WHEN p.partmethod = ''n'' AND p.repmodel = ''t'' THEN ''reference''
                         ELSE ''local'' END
               FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid = $1'
       INTO kind USING rel;
    RETURN kind;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._citus_table_kind(regclass) IS
'How Citus holds a table: distributed, reference, local, or NULL (no Citus, or not a Citus table).';

-- On a Citus cluster, for the rest of the transaction: one connection per
-- node.  A transaction that writes the distributed jobs and touches the
-- reference tables its foreign keys point to (maintain_partitions moving
-- runs and attaching a partition) must use no parallel connection from its
-- first distributed query on.  Nothing without Citus.
CREATE FUNCTION @extschema@_internal._citus_sequential()
RETURNS void LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF @extschema@_internal._citus_table_kind('@extschema@.jobs'::regclass) IS NOT NULL THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._citus_sequential() IS
'On a Citus cluster, makes the rest of the transaction use one connection per node (citus.multi_shard_modify_mode); nothing otherwise.';

-- Whether fairshare's planner hook (citus.c) runs for every query: the
-- library was loaded with shared_preload_libraries after citus.
CREATE FUNCTION @extschema@_internal._citus_inliner() RETURNS boolean
AS 'MODULE_PATHNAME', 'fs_citus_inliner' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._citus_inliner() IS
'true when fairshare was preloaded after citus (shared_preload_libraries = ''citus,fairshare''), so that its planner hook inlines the reports'' SQL functions before Citus plans a query.';

CREATE FUNCTION @extschema@.distribute(shard_count integer DEFAULT 32)
RETURNS TABLE (table_name regclass, citus_table text, distribution_column text, shards bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext oid;
    citus_version text;
    r record;
    bad text;
    fkeys text[] := '{}';
    dropped_triggers text[] := '{}';
    -- the triggers dropped: those on jobs, whose shards fire none, and
    -- those that write another table than their own, which a trigger on
    -- a reference table's copies cannot do.  First the usage checkpoints'
    -- triggers on jobs: on Citus fairshare's writers invalidate the
    -- checkpoints the runs they write change themselves
    -- (_usage_checkpoints_by_writer, checkpoint.sql)
    checkpoint_triggers text[] := ARRAY[
        'jobs.invalidate_usage_checkpoints_insert', 'jobs.invalidate_usage_checkpoints_update',
        'jobs.invalidate_usage_checkpoints_delete', 'jobs.invalidate_usage_checkpoints_truncate',
        -- the settings a checkpoint was computed with: their triggers
        -- write usage_checkpoints (on Citus, invalidate_usage_checkpoints()
        -- after a change, docs/citus.md)
        'clusters.invalidate_usage_checkpoints', 'partitions.invalidate_usage_checkpoints',
        'qos.invalidate_usage_checkpoints_insert', 'qos.invalidate_usage_checkpoints_update',
        'qos.invalidate_usage_checkpoints_delete', 'qos.invalidate_usage_checkpoints_truncate',
        'slurmctld_starts.invalidate_usage_checkpoints', 'slurmctld_starts.invalidate_usage_checkpoints_truncate',
        -- the fair-share factors cached with the checkpoints (sprio.sql):
        -- none is cached on Citus
        'accounts.drop_checkpoint_factors_insert', 'accounts.drop_checkpoint_factors_update',
        'accounts.drop_checkpoint_factors_delete', 'accounts.drop_checkpoint_factors_truncate',
        'account_users.drop_checkpoint_factors_insert', 'account_users.drop_checkpoint_factors_update',
        'account_users.drop_checkpoint_factors_delete', 'account_users.drop_checkpoint_factors_truncate',
        'clusters.drop_checkpoint_factors',
        -- the rows that follow their checkpoint and its cached factors:
        -- on Citus, by foreign keys with cascades (added below)
        'usage_checkpoints.rows_follow_delete', 'usage_checkpoints.rows_follow_update',
        'usage_checkpoints.rows_follow_truncate',
        'usage_checkpoint_factors.rows_follow_delete', 'usage_checkpoint_factors.rows_follow_update',
        'usage_checkpoint_factors.rows_follow_truncate',
        -- the tree's history: its trigger writes another table, which a
        -- trigger on a reference table's copies cannot do; on Citus the
        -- tree is read as it is now (docs/citus.md)
        'accounts.tree_history', 'account_users.tree_history',
        -- and the limits' (docs/citus.md)
        'accounts.limit_history', 'account_users.limit_history',
        -- the settings' history likewise: on Citus the settings are read as
        -- they are now (docs/citus.md)
        'clusters.settings_history', 'partitions.settings_history', 'qos.settings_history',
        -- a change of the settings the core rollups depend on marks every
        -- hour of the cluster: a write to rollup_dirty from a reference
        -- table's copies; on Citus the administrator calls
        -- invalidate_rollups after such a change (docs/citus.md)
        'clusters.core_settings_changed', 'partitions.core_settings_changed',
        -- and those that mark the hours of the usage rollups stale: on
        -- Citus fairshare's writers mark the hours of the runs they write
        -- themselves (_rollups_by_writer, reports.sql)
        'jobs.mark_rollups_insert', 'jobs.mark_rollups_update', 'jobs.mark_rollups_delete',
        'jobs.mark_rollups_truncate',
        -- the trigger that keeps retained hours out of the marks reads
        -- rollup_state, another table: refresh_rollups leaves the hours
        -- before retained_to alone all the same
        'rollup_dirty.final_hours'];
    -- the triggers kept on every copy of a reference table: each reads
    -- nothing, or only the table it fires on
    copied_triggers text[] := ARRAY[
        'ledger.ledger_append_only', 'ledger.ledger_no_truncate', 'accounts.accounts_no_cycle',
        'ledger.hours_bounded', 'allocations.hours_bounded', 'allocations.period_bounded',
        -- reads the cluster's accounting_start only
        'slurmctld_starts.slurmctld_start_check',
        -- checks the override's keys and values, reads no table
        'scenario_settings.scenario_settings_valid'];
    -- the rows of a checkpoint and of its cached factors follow it by these
    -- keys on Citus, as the triggers rows_follow_* do on one server
    -- (checkpoint.sql): cascades between reference tables, which Citus runs
    follow_keys text[] := ARRAY[
        'ALTER TABLE @extschema@.usage_checkpoint_rows ADD CONSTRAINT usage_checkpoint_rows_follow '
        || 'FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoints ON UPDATE CASCADE ON DELETE CASCADE',
        'ALTER TABLE @extschema@.usage_checkpoint_factor_rows ADD CONSTRAINT usage_checkpoint_factor_rows_follow '
        || 'FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoint_factors ON UPDATE CASCADE ON DELETE CASCADE'];
BEGIN
    SELECT e.extversion INTO citus_version FROM pg_catalog.pg_extension e WHERE e.extname = 'citus';
    IF citus_version IS NULL THEN
        RAISE EXCEPTION 'fairshare.distribute: the citus extension is not installed in database "%"', current_database()
            USING ERRCODE = '0A000',
                  HINT = 'On every node: shared_preload_libraries = ''citus'' and CREATE EXTENSION citus; on the coordinator, citus_add_node() for each worker; then call fairshare.distribute() there (docs/citus.md).';
    END IF;
    IF shard_count IS NULL OR shard_count NOT BETWEEN 1 AND 64000 THEN
        RAISE EXCEPTION 'fairshare.distribute: shard_count % is out of range', COALESCE(shard_count::text, 'NULL')
            USING ERRCODE = '22023',
                  HINT = 'Pass 1 to 64000 shards; a few per core of the workers (32 by default) lets Citus spread a query.';
    END IF;
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'fairshare.distribute: role "%" is not a superuser', current_user
            USING ERRCODE = '42501',
                  HINT = 'Citus converts tables their owner owns: run it as the superuser that created the extension.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO STRICT r;
    IF NOT r.citus_is_coordinator THEN
        RAISE EXCEPTION 'fairshare.distribute: this node is not the Citus coordinator'
            USING ERRCODE = '0A000',
                  HINT = 'Call it on the coordinator, after citus_set_coordinator_host() and citus_add_node() for each worker.';
    END IF;
    -- The reports call PL/pgSQL functions from queries on the reference
    -- tables; those queries must run on the coordinator, which needs its
    -- own copy of the reference tables: it must be in the metadata.
    EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_node n WHERE n.groupid = 0)' INTO STRICT r;
    IF NOT r.exists THEN
        RAISE EXCEPTION 'fairshare.distribute: the coordinator is not in the Citus metadata'
            USING ERRCODE = '0A000',
                  HINT = 'SELECT citus_set_coordinator_host(''its host'', its port) first: the coordinator then keeps a copy of every reference table, where the reports run.';
    END IF;
    IF NOT @extschema@_internal._citus_inliner() THEN
        RAISE EXCEPTION 'fairshare.distribute: fairshare is not in shared_preload_libraries after citus'
            USING ERRCODE = '0A000',
                  DETAIL = 'Citus cannot plan the reports'' SQL functions unless fairshare inlines them first, which it does from a library loaded at server start.',
                  HINT = 'Set shared_preload_libraries = ''citus,fairshare'' on every node and restart them (docs/citus.md).';
    END IF;

    SELECT e.oid INTO ext FROM pg_catalog.pg_extension e WHERE e.extname = 'fairshare';
    CREATE TEMP TABLE _fs_tables ON COMMIT DROP AS
    SELECT c.oid::regclass AS rel, c.relname::text AS name
      FROM pg_catalog.pg_depend d
      JOIN pg_catalog.pg_class c ON c.oid = d.objid
     WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.refclassid = 'pg_catalog.pg_extension'::regclass
       AND d.refobjid = ext AND d.deptype = 'e' AND c.relkind IN ('r', 'p') AND NOT c.relispartition;

    IF @extschema@_internal._citus_table_kind('@extschema@.jobs'::regclass) IS NULL THEN
        -- The checkpoints stay as they are (the runs move, unchanged);
        -- their cached fair-share factors go, which no trigger would drop
        -- on Citus when the tree changes (the rows with them, by their
        -- trigger), and any row left without its checkpoint, which the
        -- keys below would refuse.
        DELETE FROM @extschema@.usage_checkpoint_factors;
        DELETE FROM @extschema@.usage_checkpoint_rows x
         WHERE NOT EXISTS (SELECT FROM @extschema@.usage_checkpoints k WHERE k.cluster = x.cluster AND k.as_of = x.as_of);
        -- Sparse checkpoints are made full: each gets its base's rows,
        -- decayed, for the associations it has none of, as the readers
        -- took them (docs/design.md#sparse-checkpoints); on Citus every
        -- checkpoint is written full.
        PERFORM @extschema@_internal._checkpoints_make_full(
                    ARRAY(SELECT k.cluster FROM @extschema@.usage_checkpoints k WHERE k.base IS NOT NULL),
                    ARRAY(SELECT k.base FROM @extschema@.usage_checkpoints k WHERE k.base IS NOT NULL));

        -- Every trigger must be one of those known here: a trigger added
        -- later must be thought through, not silently lost.
        SELECT string_agg(format('%s on %s', t.tgname, c.relname), ', ') INTO bad
          FROM pg_catalog.pg_trigger t
          JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
          JOIN pg_temp._fs_tables x ON x.rel = c.oid
         WHERE NOT t.tgisinternal
           AND c.relname || '.' || t.tgname <> ALL (checkpoint_triggers || copied_triggers);
        IF bad IS NOT NULL THEN
            RAISE EXCEPTION 'fairshare.distribute: triggers it does not know how to carry to Citus: %', bad
                USING ERRCODE = '0A000',
                      HINT = 'Citus fires no trigger of a distributed table; each trigger needs a way of its own (docs/citus.md).';
        END IF;
        FOR r IN SELECT c.relname, t.tgname FROM pg_catalog.pg_trigger t
                   JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
                   JOIN pg_temp._fs_tables x ON x.rel = c.oid
                  WHERE NOT t.tgisinternal AND c.relname || '.' || t.tgname = ANY (checkpoint_triggers)
                  ORDER BY 1, 2 LOOP
            EXECUTE format('DROP TRIGGER %I ON @extschema@.%I', r.tgname, r.relname);
        END LOOP;

        -- The foreign keys among the tables, dropped and added again after
        -- (a partition's own copies follow its parent's).
        FOR r IN SELECT c.conname, c.conrelid::regclass AS rel, pg_catalog.pg_get_constraintdef(c.oid) AS def
                   FROM pg_catalog.pg_constraint c
                   JOIN pg_temp._fs_tables x ON x.rel = c.conrelid
                  WHERE c.contype = 'f' AND c.conparentid = 0
                  ORDER BY c.conrelid, c.conname LOOP
            fkeys := fkeys || format('ALTER TABLE %s ADD CONSTRAINT %I %s', r.rel, r.conname, r.def);
            EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.rel, r.conname);
        END LOOP;

        -- Triggers on the reference tables are created on their copies only
        -- with this setting on; those left are the copied_triggers above.
        PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
        -- one connection per node for everything that follows: the keys
        -- between the distributed table and the reference tables require it
        -- in the transaction that adds them
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
        FOR r IN SELECT x.rel FROM pg_temp._fs_tables x WHERE x.name <> 'jobs' ORDER BY x.name LOOP
            EXECUTE 'SELECT pg_catalog.create_reference_table($1)' USING r.rel;
        END LOOP;
        EXECUTE 'SELECT pg_catalog.create_distributed_table($1, $2, colocate_with => ''none'', shard_count => $3)'
          USING '@extschema@.jobs'::regclass, 'job_id', distribute.shard_count;
        -- The workers' copies of the tables (each worker's own CREATE
        -- EXTENSION made them) still have the keys: dropping them here
        -- drops them there too, in this transaction, before they come back.
        FOR r IN SELECT unnest(fkeys || follow_keys) AS cmd LOOP
            EXECUTE regexp_replace(r.cmd, '^(ALTER TABLE \S+) ADD CONSTRAINT (\S+) .*$', '\1 DROP CONSTRAINT IF EXISTS \2');
            EXECUTE r.cmd;
        END LOOP;
        -- the rows copied into the shards are still in the coordinator's
        -- own files, invisible: free them (past the ledger's no-truncate
        -- trigger, which guards the rows, now in the shards)
        PERFORM set_config('session_replication_role', 'replica', true);
        FOR r IN SELECT x.rel FROM pg_temp._fs_tables x ORDER BY x.name LOOP
            EXECUTE 'SELECT pg_catalog.truncate_local_data_after_distributing_table($1)' USING r.rel;
        END LOOP;
        PERFORM set_config('session_replication_role', 'origin', true);
    END IF;

    RETURN QUERY EXECUTE
        'SELECT x.rel, @extschema@_internal._citus_table_kind(x.rel),
                pg_catalog.column_to_column_name(p.logicalrelid, p.partkey),
                (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid = x.rel)
           FROM pg_temp._fs_tables x
           LEFT JOIN pg_catalog.pg_dist_partition p ON p.logicalrelid = x.rel
          ORDER BY @extschema@_internal._citus_table_kind(x.rel), x.name';
END
$$;
COMMENT ON FUNCTION @extschema@.distribute(integer) IS
'On a Citus coordinator: jobs becomes a table hash-distributed on job_id over shard_count shards, every other table of the extension a reference table; fairshare''s writers then do what the triggers on jobs did (docs/citus.md). Returns each table, how Citus holds it and its shards; calling it again only reports.';
