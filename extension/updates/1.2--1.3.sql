-- Update from fairshare 1.2 to 1.3: what runs once (CONTRIBUTING.md#upgrades).
--
-- The Makefile builds extension/fairshare--1.2--1.3.sql from this file
-- followed by every function, procedure, aggregate, view, trigger, comment,
-- grant and DO block of the pieces, re-created.  So this file holds only
-- what the pieces create once: new tables, columns, types, indexes,
-- constraints and policies, changed data, and the DROPs of objects 1.3 no
-- longer has or whose signature, return type or view columns changed.
-- test/upgrade.sh proves the result equal to a fresh install of 1.3.

-- Checkpoints: what the cached fair-share factors are computed from is
-- counted by the triggers (tree_changes, below), no longer fingerprinted
-- from the tables' rows.
DROP FUNCTION @extschema@._checkpoint_tree_fingerprint(text);

-- GENCI: the pure GENCI functions are C (extension/genci.c) and check their
-- own arguments; the PL/pgSQL helper they shared is gone.
DROP FUNCTION @extschema@._genci_check(text, float8, float8, date, date, date);

-- Retention makes the rollups of the retained hours final
-- (docs/history.md#retention-retain_jobs): rollup_state.retained_to.
ALTER TABLE @extschema@.rollup_state ADD COLUMN retained_to timestamptz;

-- Imports: the first instant a cluster's accounting can hold; imports
-- reject runs before it and maintain_partitions makes no month before it
-- (docs/import.md#times-a-centre-cannot-have)
-- (added without a default, then filled: a constant default would be kept
-- as the column's "missing value", which a fresh install does not have)
ALTER TABLE @extschema@.clusters ADD COLUMN accounting_start timestamptz;
UPDATE @extschema@.clusters SET accounting_start = '2000-01-01 00:00:00+00';
ALTER TABLE @extschema@.clusters
    ALTER COLUMN accounting_start SET DEFAULT '2000-01-01 00:00:00+00',
    ALTER COLUMN accounting_start SET NOT NULL,
    ADD CONSTRAINT clusters_accounting_start_check CHECK (pg_catalog.isfinite(accounting_start));

-- RWTH: the rule of the projects' quota, the "Resource Quotas" page's
-- formula ('window', what 1.2 computed) or the newer page's three
-- consecutive months (docs/policies.md#rwth-sliding-window-quota); added
-- and filled as accounting_start above
ALTER TABLE @extschema@.clusters ADD COLUMN rwth_rule text CHECK (rwth_rule IN ('window', 'three_months'));
UPDATE @extschema@.clusters SET rwth_rule = 'window';
ALTER TABLE @extschema@.clusters
    ALTER COLUMN rwth_rule SET DEFAULT 'window',
    ALTER COLUMN rwth_rule SET NOT NULL;

-- Imports: the efficiency, event, reservation and nice imports record
-- themselves in imports, their rejected lines in import_rejects
ALTER TABLE @extschema@.imports DROP CONSTRAINT imports_source_check;
ALTER TABLE @extschema@.imports ADD CONSTRAINT imports_source_check
    CHECK (source IN ('sacct', 'pbs', 'sacct_efficiency', 'events', 'reservations', 'nice'));
-- the efficiency parser's row (import.c; moved to fairshare_internal by the
-- block below, as every private type)
CREATE TYPE @extschema@._sacct_efficiency_line AS (
    kind text, job_id text, step text, submit_time timestamptz, user_name text, account text,
    total_cpu_secs float8, max_rss_mb float8, req_mem_mb float8, req_tres text,
    energy_joules float8, gpu_util_percent float8, sqlstate text, reason text);
-- (_sacct_duration and _sacct_size_mb are C now, same signatures: the
-- pieces re-create them)
-- allocations may end on 9999-12-31 at the latest (trigger period_bounded,
-- docs/bad-input.md); one stored later is kept, and named here: the reports
-- fail on it until its end is corrected
DO $$
DECLARE
    bad text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.format('%s (%s, %s, ends %s)', a.allocation_id, a.cluster, a.account, a.period_end), ', ')
      INTO bad
      FROM @extschema@.allocations a
     WHERE pg_catalog.isfinite(a.period_end) AND a.period_end OPERATOR(pg_catalog.>) '9999-12-31'::date;
    IF bad IS NOT NULL THEN
        RAISE WARNING 'fairshare 1.3: allocations ending after 9999-12-31, which the reports cannot represent: %', bad
            USING HINT = 'UPDATE fairshare.allocations SET period_end = ... WHERE allocation_id = ...; the GENCI report and the statements fail until then.';
    END IF;
END
$$;

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

-- Slurm 24.11 numbers job records with 64-bit SLUIDs, above bigint's range
-- for half the cluster ids (docs/slurm.md#job-records-dbindex-is-a-64-bit-sluid):
-- the job_table of every feed already connected reads job_db_inx as numeric.
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT s.foreign_schema FROM @extschema@.slurmdbd_feeds s
              WHERE EXISTS (SELECT FROM pg_catalog.pg_class c
                              JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
                             WHERE n.nspname OPERATOR(pg_catalog.=) s.foreign_schema
                               AND c.relname OPERATOR(pg_catalog.=) 'job_table' AND c.relkind OPERATOR(pg_catalog.=) 'f')
    LOOP
        EXECUTE pg_catalog.format('ALTER FOREIGN TABLE %I.job_table ALTER COLUMN job_db_inx TYPE numeric', f.foreign_schema);
    END LOOP;
END
$$;

-- The rollup helpers' parameters are named (CREATE OR REPLACE cannot rename
-- them): dropped here, re-created with the code.  The report functions
-- whose SQL bodies call _rollup_bounds go with it and come back the same way.
DROP FUNCTION @extschema@._rollup_hours(text, timestamptz, timestamptz, timestamptz);
DROP FUNCTION @extschema@._rollup_days_months(text, text, timestamptz, timestamptz);
DROP FUNCTION @extschema@._rollup_in_reservation(text, bigint);
DROP FUNCTION @extschema@._rollup_bounds(text, timestamptz, timestamptz) CASCADE;

-- Events and reservations: the sacctmgr exports are read in C, one line a
-- call (import.c); the SQL reader of their times is gone.  The parsers'
-- rows (moved to fairshare_internal by the block below, as every private
-- type)
DROP FUNCTION @extschema@._psv_time(text, text);
CREATE TYPE @extschema@._sacctmgr_event_line AS (
    kind text, node_name text, time_start timestamptz, time_end timestamptz, state text, state_raw bigint,
    tres text, event_reason text, user_ref text, sqlstate text, reason text);
CREATE TYPE @extschema@._sacctmgr_reservation_line AS (
    kind text, id text, resv_id bigint, name text, time_start timestamptz, time_end timestamptz,
    flags text, tres text, nodes text, assocs text, sqlstate text, reason text);
-- and squeue's nice lines (import_nice)
CREATE TYPE @extschema@._squeue_nice_line AS (
    kind text, job_id text, nice integer, sqlstate text, reason text);

-- sreport (docs/reports.md#the-sreport-reports): AccountUtilizationByUser
-- takes Accounts= and tree, SizesByAccount grouping=individual (new
-- parameters), Utilization returns OverCommitted and TresCount (new
-- columns): the old ones are dropped, the code re-creates them (the CASCADE
-- above may have taken them already).  The rollups are data and stay as
-- they are: the reports leave out their node rows, and docs/reports.md#rollups
-- says how to recompute them with the registered TRES' rows.
DROP FUNCTION IF EXISTS @extschema@.sreport_account_utilization_by_user(timestamptz, timestamptz, text, text, text);
DROP FUNCTION IF EXISTS @extschema@.sreport_job_sizes_by_account(timestamptz, timestamptz, integer[], text, text[], boolean, boolean, text);
DROP FUNCTION IF EXISTS @extschema@.sreport_cluster_utilization(timestamptz, timestamptz, text, text, text);

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

-- Slurm versions of the feed (docs/slurmdbd.md#slurm-versions): the release
-- the administrator sets, the one the last sync read, and the foreign table
-- of slurmdbd's schema version for every feed already connected (made on
-- the server and database of its job_table).
ALTER TABLE @extschema@.slurmdbd_feeds
    ADD COLUMN slurm_version text CHECK (slurm_version OPERATOR(pg_catalog.=) ANY (ARRAY['22.05', '24.11'])),
    ADD COLUMN last_slurm_version text;
DO $$
DECLARE
    f record;
BEGIN
    FOR f IN SELECT s.foreign_schema, fs.srvname,
                    (SELECT pg_catalog.split_part(o, '=', 2) FROM pg_catalog.unnest(ft.ftoptions) o
                      WHERE o OPERATOR(pg_catalog.~~) 'dbname=%') AS dbname
               FROM @extschema@.slurmdbd_feeds s
               JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) s.foreign_schema
               JOIN pg_catalog.pg_class c ON c.relnamespace OPERATOR(pg_catalog.=) n.oid
                AND c.relname OPERATOR(pg_catalog.=) 'job_table' AND c.relkind OPERATOR(pg_catalog.=) 'f'
               JOIN pg_catalog.pg_foreign_table ft ON ft.ftrelid OPERATOR(pg_catalog.=) c.oid
               JOIN pg_catalog.pg_foreign_server fs ON fs.oid OPERATOR(pg_catalog.=) ft.ftserver
              WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class x
                                 WHERE x.relnamespace OPERATOR(pg_catalog.=) n.oid
                                   AND x.relname OPERATOR(pg_catalog.=) 'convert_version_table')
    LOOP
        EXECUTE pg_catalog.format('CREATE FOREIGN TABLE %I.convert_version_table (version bigint) SERVER %I OPTIONS (dbname %L, table_name %L)',
                                  f.foreign_schema, f.srvname, coalesce(f.dbname, 'slurm_acct_db'), 'convert_version_table');
        -- the feed's table, as slurmdbd_connect makes it, not the extension's
        EXECUTE pg_catalog.format('ALTER EXTENSION fairshare DROP FOREIGN TABLE %I.convert_version_table', f.foreign_schema);
    END LOOP;
END
$$;

-- sreport-shaped reports: the Slurm release a cluster runs, which decides
-- the form they print (docs/slurm.md#which-release-a-cluster-runs); NULL
-- (not told) keeps 22.05's form, the one the reports printed so far
ALTER TABLE @extschema@.clusters
    ADD COLUMN slurm_version text CHECK (slurm_version OPERATOR(pg_catalog.=) ANY (ARRAY['22.05', '24.11']));

-- Fair Tree's node form (docs/fairshare.md#the-node-form): the row of a
-- tree as one composite, read once per row; the functions taking it are
-- re-created by the code below.  (After the move above: _sshare_tree_node
-- is created where it lives.)
CREATE TYPE @extschema@.fair_tree_node AS (id text, parent_id text, shares float8, usage float8, is_user boolean);
CREATE TYPE @extschema@_internal._sshare_tree_node AS (
    id text, parent_id text, shares float8, usage float8, is_user boolean, raw_usage float8);

-- The history of the tree (docs/history.md#the-history-of-the-tree): one
-- version per change of an account's parent and shares and of a user
-- association's shares.  An upgraded centre's history starts at the
-- upgrade: the tables start empty (an association without a version is
-- read as it is, for every instant: the tree before the upgrade is not
-- known); the triggers (re-created with the code) record every change
-- from then on.
CREATE TABLE @extschema@.account_history (
    cluster        text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account        text NOT NULL,
    parent_account text,
    shares         integer,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
CREATE INDEX account_history_key_idx ON @extschema@.account_history (cluster, account, valid_from);
CREATE UNIQUE INDEX account_history_open_idx ON @extschema@.account_history (cluster, account) WHERE valid_to IS NULL;
CREATE INDEX account_history_from_idx ON @extschema@.account_history (valid_from);
CREATE INDEX account_history_to_idx ON @extschema@.account_history (valid_to);
CREATE TABLE @extschema@.account_user_history (
    cluster    text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account    text NOT NULL,
    user_name  text NOT NULL,
    shares     integer,
    valid_from timestamptz NOT NULL,
    valid_to   timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
CREATE INDEX account_user_history_key_idx ON @extschema@.account_user_history (cluster, account, user_name, valid_from);
CREATE UNIQUE INDEX account_user_history_open_idx ON @extschema@.account_user_history (cluster, account, user_name) WHERE valid_to IS NULL;
CREATE INDEX account_user_history_from_idx ON @extschema@.account_user_history (valid_from);
CREATE INDEX account_user_history_to_idx ON @extschema@.account_user_history (valid_to);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_history', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_user_history', '');

-- slurmctld's (re)starts (docs/decay.md#slurmctld-restarts): the table
-- (usage.sql); its triggers, functions, the pass aggregates and functions
-- taking the starts are created by the code below
CREATE TABLE @extschema@.slurmctld_starts (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    started_at           timestamptz NOT NULL,
    note                 text,
    PRIMARY KEY (cluster, started_at)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.slurmctld_starts', '');

-- The rows of a usage checkpoint and of its cached fair-share factors
-- without a foreign key to their checkpoint nor a primary key, indexed by
-- their checkpoint (docs/design.md#usage-checkpoints): the check of every
-- row written and the unique index on four columns were most of a chained
-- checkpoint's time at 10^5 associations.  The triggers
-- _checkpoint_rows_follow (created by the code below) delete, rename and
-- truncate them with their checkpoint, as the cascades did.  The rows
-- stored stay as they are, valid: the keys held until now, so each has its
-- checkpoint and one row per association; nothing is converted.
ALTER TABLE @extschema@.usage_checkpoint_rows DROP CONSTRAINT usage_checkpoint_rows_cluster_as_of_fkey;
ALTER TABLE @extschema@.usage_checkpoint_rows DROP CONSTRAINT usage_checkpoint_rows_pkey;
CREATE INDEX usage_checkpoint_rows_checkpoint_idx ON @extschema@.usage_checkpoint_rows (cluster, as_of);
ALTER TABLE @extschema@.usage_checkpoint_factor_rows DROP CONSTRAINT usage_checkpoint_factor_rows_cluster_as_of_fkey;
ALTER TABLE @extschema@.usage_checkpoint_factor_rows DROP CONSTRAINT usage_checkpoint_factor_rows_pkey;
CREATE INDEX usage_checkpoint_factor_rows_checkpoint_idx ON @extschema@.usage_checkpoint_factor_rows (cluster, as_of);

-- refresh_rollups on Citus (docs/citus.md#the-usage-rollups-on-citus): the
-- writers mark the hours of the runs they write there, so refresh_rollups
-- no longer refuses and its refusal goes; the functions the writers and
-- the triggers share (_rollup_run_hours, _rollups_mark, _rollups_by_writer)
-- are created by the code below
DROP FUNCTION @extschema@_internal._citus_no_rollups(text);

-- The history of the policy settings (docs/history.md#the-history-of-the-settings):
-- the table settings_history, empty at the upgrade (the history begins
-- there); its triggers settings_history on clusters, partitions and qos and
-- its readers _cluster_at, _partitions_at, _qos_at are created by the code
-- below.
CREATE TABLE @extschema@.settings_history (
    -- a cluster's history goes with it, and follows its renaming
    cluster     text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    table_name  text NOT NULL CHECK (table_name IN ('clusters', 'partitions', 'qos')),
    -- the partition or the QOS; '' for the cluster's own row
    name        text NOT NULL,
    settings    jsonb NOT NULL,
    valid_from  timestamptz NOT NULL,
    valid_to    timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
COMMENT ON TABLE @extschema@.settings_history IS
'Every version of the settings of each cluster, partition and QOS, valid over [valid_from, valid_to) (valid_to NULL: in force now); written by the triggers settings_history of clusters, partitions and qos.';
CREATE INDEX settings_history_key_idx ON @extschema@.settings_history (cluster, table_name, name, valid_from);
CREATE UNIQUE INDEX settings_history_open_idx ON @extschema@.settings_history (cluster, table_name, name) WHERE valid_to IS NULL;

SELECT pg_catalog.pg_extension_config_dump('@extschema@.settings_history', '');

-- GENCI and RWTH consumption from the rollups
-- (docs/regulation.md#consumption-from-the-rollups): the core-microseconds
-- per cluster, account and hour, day, month, and from which hour each
-- cluster has them.  Empty: no cluster has them yet, the reports read the
-- runs as before, and the next refresh_rollups() computes them for every
-- hour its rollups hold (core_rollup_state).
CREATE TABLE @extschema@.core_rollup_state (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    core_from            timestamptz NOT NULL
);
CREATE TABLE @extschema@.core_usage_hourly (
    cluster              text NOT NULL,
    account              text NOT NULL,
    period_start         timestamptz NOT NULL,
    core_us              numeric NOT NULL,
    PRIMARY KEY (cluster, account, period_start)
);
CREATE TABLE @extschema@.core_usage_daily (LIKE @extschema@.core_usage_hourly INCLUDING ALL);
CREATE TABLE @extschema@.core_usage_monthly (LIKE @extschema@.core_usage_hourly INCLUDING ALL);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_rollup_state', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_usage_hourly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_usage_daily', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_usage_monthly', '');

-- usage checkpoints and retain_jobs on Citus
-- (docs/citus.md#usage-checkpoints-and-retention-on-citus): fairshare's
-- writers invalidate the checkpoints there through the functions the
-- triggers share (created by the code below), so checkpoint_usage and
-- retain_jobs no longer refuse and their refusal goes
DROP FUNCTION @extschema@_internal._citus_no_checkpoints(text);

-- the policy lab (docs/history.md#the-policy-lab): the scenarios and their
-- overrides, empty; the trigger that checks each override and the reports
-- that take a scenario are created by the code below
CREATE TABLE @extschema@.scenarios (
    scenario     text PRIMARY KEY CHECK (scenario OPERATOR(pg_catalog.~) '^[A-Za-z0-9_.-]{1,64}$'),
    description  text,
    created_by   name NOT NULL DEFAULT CURRENT_USER,
    created_at   timestamptz NOT NULL DEFAULT pg_catalog.now()
);
CREATE TABLE @extschema@.scenario_settings (
    scenario    text NOT NULL REFERENCES @extschema@.scenarios ON UPDATE CASCADE ON DELETE CASCADE,
    cluster     text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    table_name  text NOT NULL,
    name        text NOT NULL DEFAULT '',
    settings    jsonb NOT NULL,
    PRIMARY KEY (scenario, cluster, table_name, name),
    CONSTRAINT scenario_settings_check
        CHECK ((table_name OPERATOR(pg_catalog.=) ANY (ARRAY['clusters', 'genci_settings'])) = (name OPERATOR(pg_catalog.=) ''))
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.scenarios', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.scenario_settings', '');
CREATE TABLE @extschema@.scenario_tree (
    scenario          text NOT NULL REFERENCES @extschema@.scenarios ON UPDATE CASCADE ON DELETE CASCADE,
    cluster           text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account           text NOT NULL CHECK (account OPERATOR(pg_catalog.<>) ''),
    user_name         text NOT NULL DEFAULT '',
    shares            integer CHECK (shares OPERATOR(pg_catalog.>=) 0),
    fairshare_parent  boolean NOT NULL DEFAULT false,
    parent_account    text CHECK (parent_account OPERATOR(pg_catalog.<>) ''),
    PRIMARY KEY (scenario, cluster, account, user_name),
    CONSTRAINT scenario_tree_not_root CHECK (account OPERATOR(pg_catalog.<>) 'root'
                                             OR user_name OPERATOR(pg_catalog.<>) ''),
    CONSTRAINT scenario_tree_overrides CHECK (shares IS NOT NULL OR fairshare_parent OR parent_account IS NOT NULL),
    CONSTRAINT scenario_tree_shares_or_parent CHECK (NOT (fairshare_parent AND shares IS NOT NULL)),
    CONSTRAINT scenario_tree_move_accounts CHECK (parent_account IS NULL OR user_name OPERATOR(pg_catalog.=) ''),
    CONSTRAINT scenario_tree_not_own_parent CHECK (parent_account OPERATOR(pg_catalog.<>) account)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.scenario_tree', '');

-- the history of the limits (docs/history.md#the-history-of-the-limits),
-- empty: an updated centre's starts at the update; its triggers and
-- reader are created by the code below
CREATE TABLE @extschema@.limit_history (
    cluster        text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account        text NOT NULL,
    user_name      text NOT NULL,
    grp_tres_mins  text,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
CREATE INDEX limit_history_key_idx ON @extschema@.limit_history (cluster, account, user_name, valid_from);
CREATE UNIQUE INDEX limit_history_open_idx ON @extschema@.limit_history (cluster, account, user_name) WHERE valid_to IS NULL;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.limit_history', '');

-- Sparse usage checkpoints (docs/design.md#sparse-checkpoints): a chained
-- checkpoint holds only the associations that ran since the full
-- checkpoint it stands on.  The checkpoints stored are full (NULL).
ALTER TABLE @extschema@.usage_checkpoints
    ADD COLUMN base timestamptz,
    ADD COLUMN base_decay float8,
    ADD CONSTRAINT usage_checkpoints_base_check
        CHECK ((base IS NULL) OPERATOR(pg_catalog.=) (base_decay IS NULL)
               AND base OPERATOR(pg_catalog.<) as_of
               AND base_decay OPERATOR(pg_catalog.>=) 0 AND base_decay OPERATOR(pg_catalog.<=) 1);
ALTER TABLE @extschema@.usage_checkpoint_factors
    ADD COLUMN base timestamptz,
    ADD CONSTRAINT usage_checkpoint_factors_base_check CHECK (base OPERATOR(pg_catalog.<) as_of);

-- The count of changes of what the cached fair-share factors are computed
-- from (checkpoint.sql, _tree_changed).
CREATE SEQUENCE @extschema@_internal.tree_changes;
SELECT pg_catalog.pg_extension_config_dump('@extschema@_internal.tree_changes', '');
