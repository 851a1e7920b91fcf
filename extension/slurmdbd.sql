-- ---------------------------------------------------------------------------
-- slurmdbd: the live feed from a Slurm accounting database and the
-- decisions back to it (docs/slurmdbd.md).
--
--   In:  SELECT fairshare.slurmdbd_connect('oracle', 'slurmdbd');   -- once
--        CALL fairshare.sync_slurmdbd('oracle');                   -- every minute
--   Out: fairshare_apply_decisions oracle     (tools/: runs the rows of
--        fairshare.slurm_decisions('oracle') with sacctmgr, no shell)
--
-- slurmdbd's MariaDB tables are read through mysql_fdw foreign tables that
-- slurmdbd_connect makes in a schema of the centre's choosing.  A sync reads
-- what changed since the last one (slurmdbd's mod_time, jobs still open,
-- the deleted flags), writes the jobs as the sacct lines `sacct -a -P
-- --duplicates` prints for them and hands them to import_sacct: the feed and
-- the file import are one code path, so they store the same runs.  The whole
-- sync is one transaction with the change marks it moves: a sync killed or
-- failed leaves nothing behind, and the next one reads the same rows again;
-- a sync repeated re-reads rows at the mark, which the import's upsert on
-- the run's key leaves unchanged.
-- ---------------------------------------------------------------------------

-- One row per cluster fed from a slurmdbd: where its foreign tables are, the
-- change marks, the last sync, and how decisions map to Slurm.
CREATE TABLE @extschema@.slurmdbd_feeds (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    foreign_schema       name NOT NULL,
    -- slurmdbd's mod_time (Unix seconds) up to which jobs and associations
    -- have been read; the next sync reads from this second on, inclusive
    job_mark             bigint NOT NULL DEFAULT 0 CHECK (job_mark OPERATOR(pg_catalog.>=) 0),
    assoc_mark           bigint NOT NULL DEFAULT 0 CHECK (assoc_mark OPERATOR(pg_catalog.>=) 0),
    last_sync            timestamptz,
    last_import_id       bigint,
    last_jobs_read       bigint,
    last_assocs_read     bigint,
    -- decisions: the TRES of the GrpTRESMins limits (GENCI hours, blocks)
    limit_tres           text NOT NULL DEFAULT 'billing' CHECK (limit_tres OPERATOR(pg_catalog.~) '^[a-z][a-z0-9_/]*$'),
    -- RWTH: the QOS of a project in low priority and of a blocked one
    -- (NULL: a blocked project gets GrpTRESMins=<limit_tres>=0 instead, a
    -- low-priority one nothing), and of a project in neither
    rwth_low_priority_qos text,
    rwth_blocked_qos     text,
    rwth_normal_qos      text NOT NULL DEFAULT 'normal',
    -- the ClusterName of slurm.conf, which the decisions name (it may
    -- differ from fairshare's name for the cluster)
    slurm_cluster        text NOT NULL CHECK (slurm_cluster OPERATOR(pg_catalog.~) '^[A-Za-z0-9_][A-Za-z0-9_-]*$'),
    -- the Slurm release whose slurmdbd tables the feed reads, as the
    -- administrator sets it; NULL: read from slurmdbd at every sync
    -- (convert_version_table), a schema not known refused
    -- (docs/slurmdbd.md#slurm-versions)
    slurm_version        text CHECK (slurm_version OPERATOR(pg_catalog.=) ANY (ARRAY['22.05', '24.11'])),
    -- the release the last sync or decision read (or was given)
    last_slurm_version   text
);
COMMENT ON TABLE @extschema@.slurmdbd_feeds IS 'Clusters fed from a slurmdbd through mysql_fdw: foreign schema, change marks, last sync, and how decisions map to Slurm limits and QOS.';

-- Which fairshare association each slurmdbd association id is, so that a
-- rename in Slurm (same id, new name) renames here too.
CREATE TABLE @extschema@.slurmdbd_associations (
    cluster              text NOT NULL REFERENCES @extschema@.slurmdbd_feeds ON UPDATE CASCADE ON DELETE CASCADE,
    id_assoc             bigint NOT NULL,
    account              text NOT NULL,
    -- the user of a user association, '' for an account's
    slurm_user           text NOT NULL DEFAULT '',
    deleted              boolean NOT NULL DEFAULT false,
    PRIMARY KEY (cluster, id_assoc)
);
COMMENT ON TABLE @extschema@.slurmdbd_associations IS 'slurmdbd association ids and the account (and user) each one is in fairshare, for following renames.';


SELECT pg_catalog.pg_extension_config_dump('@extschema@.slurmdbd_feeds', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.slurmdbd_associations', '');

-- A memory size in MB as sacct prints it (Slurm's convert_num_unit, exact):
-- divided by 1024 while it divides, 4096 -> 4G, 1500 -> 1500M.
CREATE FUNCTION @extschema@_internal._slurm_mem_text(mb numeric)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE
        WHEN mb OPERATOR(pg_catalog.=) 0 THEN '0'
        WHEN mb OPERATOR(pg_catalog.%) 1099511627776 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1099511627776)::bigint::text OPERATOR(pg_catalog.||) 'E'
        WHEN mb OPERATOR(pg_catalog.%) 1073741824 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1073741824)::bigint::text OPERATOR(pg_catalog.||) 'P'
        WHEN mb OPERATOR(pg_catalog.%) 1048576 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1048576)::bigint::text OPERATOR(pg_catalog.||) 'T'
        WHEN mb OPERATOR(pg_catalog.%) 1024 OPERATOR(pg_catalog.=) 0 THEN (mb OPERATOR(pg_catalog./) 1024)::bigint::text OPERATOR(pg_catalog.||) 'G'
        ELSE mb::bigint::text OPERATOR(pg_catalog.||) 'M' END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurm_mem_text(numeric) IS
'A size in MB as sacct prints it: 4096 -> 4G, 1500 -> 1500M (internal to sync_slurmdbd).';

-- A Slurm time limit in minutes as sacct prints it: [D-]HH:MM:SS,
-- UNLIMITED (INFINITE, 0xffffffff) or Partition_Limit (NO_VAL, 0xfffffffe).
CREATE FUNCTION @extschema@_internal._slurm_minutes_text(minutes bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE
        WHEN minutes OPERATOR(pg_catalog.=) 4294967295 THEN 'UNLIMITED'
        WHEN minutes OPERATOR(pg_catalog.>=) 4294967294 THEN 'Partition_Limit'
        WHEN minutes OPERATOR(pg_catalog.>=) 1440
        THEN (minutes OPERATOR(pg_catalog./) 1440)::text OPERATOR(pg_catalog.||) '-'
             OPERATOR(pg_catalog.||) pg_catalog.to_char((minutes OPERATOR(pg_catalog.%) 1440) OPERATOR(pg_catalog./) 60, 'FM00')
             OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char(minutes OPERATOR(pg_catalog.%) 60, 'FM00') OPERATOR(pg_catalog.||) ':00'
        ELSE pg_catalog.to_char(minutes OPERATOR(pg_catalog./) 60, 'FM00')
             OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char(minutes OPERATOR(pg_catalog.%) 60, 'FM00') OPERATOR(pg_catalog.||) ':00' END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurm_minutes_text(bigint) IS
'A Slurm time limit in minutes as sacct prints it: 00:10:00, 1-00:00:00, UNLIMITED, Partition_Limit (internal to sync_slurmdbd).';

-- An instant of slurmdbd (Unix seconds, 0: none) as sacct prints it in UTC.
CREATE FUNCTION @extschema@_internal._slurmdbd_time(t bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN t OPERATOR(pg_catalog.<=) 0 THEN 'Unknown'
                ELSE pg_catalog.to_char(pg_catalog.timezone('UTC', pg_catalog.to_timestamp(t::float8)), 'YYYY-MM-DD"T"HH24:MI:SS') END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurmdbd_time(bigint) IS
'A slurmdbd time (Unix seconds) as sacct prints it in UTC; 0 is Unknown (internal to sync_slurmdbd).';

-- A job_table state as sacct prints it: the base state (Slurm's enum
-- job_states, the low byte) unless the run was requeued (JOB_REQUEUE, 0x400).
CREATE FUNCTION @extschema@_internal._slurmdbd_state(state bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN state OPERATOR(pg_catalog.&) 1024 OPERATOR(pg_catalog.<>) 0 THEN 'REQUEUED'
                ELSE (ARRAY['PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT',
                            'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'OUT_OF_MEMORY'])
                     [(state OPERATOR(pg_catalog.&) 255) OPERATOR(pg_catalog.+) 1] END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurmdbd_state(bigint) IS
'A slurmdbd job state as sacct prints it: PENDING ... OUT_OF_MEMORY, REQUEUED (internal to sync_slurmdbd).';

-- A duration in seconds as sacct prints it: [D-]HH:MM:SS.
CREATE FUNCTION @extschema@_internal._slurm_seconds_text(seconds bigint)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN seconds OPERATOR(pg_catalog.>=) 86400
                THEN (seconds OPERATOR(pg_catalog./) 86400)::text OPERATOR(pg_catalog.||) '-' ELSE '' END
           OPERATOR(pg_catalog.||) pg_catalog.to_char((seconds OPERATOR(pg_catalog.%) 86400) OPERATOR(pg_catalog./) 3600, 'FM00')
           OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char((seconds OPERATOR(pg_catalog.%) 3600) OPERATOR(pg_catalog./) 60, 'FM00')
           OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.to_char(seconds OPERATOR(pg_catalog.%) 60, 'FM00');
END;
COMMENT ON FUNCTION @extschema@_internal._slurm_seconds_text(bigint) IS
'A duration in seconds as sacct prints it: 00:00:42, 1-02:03:04 (internal to sync_slurmdbd).';

-- Whose code the feed and the decisions run when they read the foreign
-- schema named in slurmdbd_feeds, a row a fairshare_admin may write: a view
-- there, or a column of a type whose checks call a function, would run its
-- owner's code with the rights of whoever syncs, often a superuser.  So the
-- schema and the four relations must belong to the caller or to a
-- superuser, be tables or foreign tables (no view: reading them runs no
-- code), and hold only columns of the built-in types bigint, integer and
-- text (docs/security.md#the-slurm-loop).  Checked at every use, not only
-- when the feed was made: the row may change after.
CREATE FUNCTION @extschema@_internal._slurmdbd_trusted_schema(sch name, caller text, tables boolean DEFAULT true)
RETURNS void LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    owner name;
    bad text;
BEGIN
    SELECT r.rolname INTO owner
      FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
     WHERE n.nspname OPERATOR(pg_catalog.=) sch AND (r.rolsuper OR r.rolname OPERATOR(pg_catalog.=) current_user);
    IF NOT FOUND THEN
        RAISE EXCEPTION '%: schema % of the slurmdbd tables is neither %''s nor a superuser''s', caller, pg_catalog.quote_ident(sch), current_user
            USING ERRCODE = '42501',
                  HINT = 'The feed reads only a schema owned by the role that runs it or by a superuser (docs/security.md#the-slurm-loop); slurmdbd_connect makes one.';
    END IF;
    IF NOT tables THEN
        RETURN;
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.format('%s (%s)', t.relname,
               CASE WHEN c.oid IS NULL THEN 'missing'
                    WHEN c.relkind OPERATOR(pg_catalog.<>) ALL (ARRAY['r', 'f']::"char"[]) THEN 'not a table nor a foreign table'
                    WHEN NOT (o.rolsuper OR o.rolname OPERATOR(pg_catalog.=) current_user) THEN 'owned by ' OPERATOR(pg_catalog.||) o.rolname
                    ELSE 'a column of a type other than bigint, integer, numeric, text' END), ', ' ORDER BY t.relname) INTO bad
      FROM pg_catalog.unnest(ARRAY['job_table', 'assoc_table', 'tres_table', 'qos_table', 'convert_version_table']) t (relname)
      LEFT JOIN pg_catalog.pg_class c
        ON c.relname OPERATOR(pg_catalog.=) t.relname
       AND c.relnamespace OPERATOR(pg_catalog.=) (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) sch)
      LEFT JOIN pg_catalog.pg_roles o ON o.oid OPERATOR(pg_catalog.=) c.relowner
     WHERE c.oid IS NULL OR c.relkind OPERATOR(pg_catalog.<>) ALL (ARRAY['r', 'f']::"char"[])
        OR NOT (o.rolsuper OR o.rolname OPERATOR(pg_catalog.=) current_user)
        OR EXISTS (SELECT FROM pg_catalog.pg_attribute a
                    WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
                      AND a.atttypid OPERATOR(pg_catalog.<>) ALL (ARRAY['pg_catalog.int8'::pg_catalog.regtype, 'pg_catalog.int4'::pg_catalog.regtype,
                                                                        'pg_catalog.numeric'::pg_catalog.regtype, 'pg_catalog.text'::pg_catalog.regtype]::pg_catalog.oid[]));
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION '%: the slurmdbd tables of schema % cannot be read safely: %', caller, pg_catalog.quote_ident(sch), bad
            USING ERRCODE = '42501',
                  HINT = 'job_table, assoc_table, tres_table, qos_table and convert_version_table must be tables or foreign tables of the caller or of a superuser, with bigint, integer, numeric and text columns only (docs/security.md#the-slurm-loop).';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._slurmdbd_trusted_schema(name, text, boolean) IS
'Refuses (42501) a slurmdbd foreign schema, or tables in it, that neither the caller nor a superuser owns, a view, or a column of a non built-in type: reading it could run another role''s code (internal to the slurmdbd feed).';

-- What is wrong with a job row of slurmdbd, NULL if nothing: a sync turns
-- each row into a sacct line, and a value no sacct line can hold (a TRES
-- string that is not id=count,..., an instant past the year 9999, a
-- negative time limit, a state Slurm does not have) would fail the whole
-- sync, and every sync after it, since the marks would never move.  Such a
-- row is rejected with this reason and the rest synced
-- (docs/slurmdbd.md#the-feed-sync_slurmdbd).  horizon: the latest mod_time
-- believed (a row stamped in the far future would move the mark past every
-- row to come).
CREATE FUNCTION @extschema@_internal._slurmdbd_job_problem(tres_alloc text, tres_req text, mod_time bigint,
    time_submit bigint, time_eligible bigint, time_start bigint, time_end bigint, time_suspended bigint,
    timelimit bigint, state bigint, horizon bigint)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE
        WHEN tres_alloc OPERATOR(pg_catalog.<>) '' AND tres_alloc OPERATOR(pg_catalog.!~) '^[0-9]{1,9}=[0-9]{1,20}(,[0-9]{1,9}=[0-9]{1,20})*$'
        THEN pg_catalog.format('tres_alloc %s is not a list of TRES id=count', pg_catalog.quote_literal(pg_catalog.left(tres_alloc, 100)))
        WHEN tres_req OPERATOR(pg_catalog.<>) '' AND tres_req OPERATOR(pg_catalog.!~) '^[0-9]{1,9}=[0-9]{1,20}(,[0-9]{1,9}=[0-9]{1,20})*$'
        THEN pg_catalog.format('tres_req %s is not a list of TRES id=count', pg_catalog.quote_literal(pg_catalog.left(tres_req, 100)))
        WHEN mod_time IS NULL OR mod_time OPERATOR(pg_catalog.<) 0 OR mod_time OPERATOR(pg_catalog.>) horizon
        THEN pg_catalog.format('mod_time %s is not an instant up to a day from now (Unix seconds)', coalesce(mod_time::text, 'NULL'))
        WHEN time_submit OPERATOR(pg_catalog.<) 0 OR time_submit OPERATOR(pg_catalog.>) 253402300799
        THEN pg_catalog.format('time_submit %s is not an instant before the year 10000 (Unix seconds)', time_submit)
        WHEN time_eligible OPERATOR(pg_catalog.<) 0 OR time_eligible OPERATOR(pg_catalog.>) 253402300799
        THEN pg_catalog.format('time_eligible %s is not an instant before the year 10000 (Unix seconds)', time_eligible)
        WHEN time_start OPERATOR(pg_catalog.<) 0 OR time_start OPERATOR(pg_catalog.>) 253402300799
        THEN pg_catalog.format('time_start %s is not an instant before the year 10000 (Unix seconds)', time_start)
        WHEN time_end OPERATOR(pg_catalog.<) 0 OR time_end OPERATOR(pg_catalog.>) 253402300799
        THEN pg_catalog.format('time_end %s is not an instant before the year 10000 (Unix seconds)', time_end)
        WHEN time_suspended OPERATOR(pg_catalog.<) 0 OR time_suspended OPERATOR(pg_catalog.>) 253402300799
        THEN pg_catalog.format('time_suspended %s is not a number of seconds from 0 to 253402300799', time_suspended)
        WHEN timelimit OPERATOR(pg_catalog.<) 0 OR timelimit OPERATOR(pg_catalog.>) 4294967295
        THEN pg_catalog.format('timelimit %s is not a number of minutes from 0 to 4294967295', timelimit)
        WHEN state OPERATOR(pg_catalog.<) 0 OR state OPERATOR(pg_catalog.>) 4294967295
             OR state OPERATOR(pg_catalog.&) 255 OPERATOR(pg_catalog.>) 11
        THEN pg_catalog.format('state %s is not a job state of Slurm', state) END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurmdbd_job_problem(text, text, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint) IS
'Why a slurmdbd job row cannot be synced (malformed TRES, an instant out of range, a bad time limit or state), NULL if it can (internal to sync_slurmdbd).';

-- The foreign tables of a cluster's slurmdbd, in a schema of their own.
-- Only the columns the feed and the decisions read: mysql_fdw matches them
-- by name, and sends MariaDB the conditions on them.
CREATE FUNCTION @extschema@.slurmdbd_connect(cluster text, server name,
    foreign_schema name DEFAULT NULL, database text DEFAULT 'slurm_acct_db',
    slurm_cluster text DEFAULT NULL)
RETURNS name LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    sch name := coalesce(foreign_schema, ('slurmdbd_' OPERATOR(pg_catalog.||) cluster)::name);
    sc text := coalesce(slurm_cluster, cluster);
BEGIN
    IF cluster IS NULL OR server IS NULL OR database IS NULL THEN
        RAISE EXCEPTION 'slurmdbd_connect: cluster, server and database must not be NULL'
            USING ERRCODE = '22004', HINT = 'e.g. SELECT fairshare.slurmdbd_connect(''oracle'', ''slurmdbd'');';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster OPERATOR(pg_catalog.=) slurmdbd_connect.cluster) THEN
        RAISE EXCEPTION 'slurmdbd_connect: cluster "%" is not in fairshare.clusters', cluster
            USING ERRCODE = '23503', HINT = 'INSERT INTO fairshare.clusters (cluster, ...) first, with its decay and priority settings.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_foreign_server s WHERE s.srvname OPERATOR(pg_catalog.=) server) THEN
        RAISE EXCEPTION 'slurmdbd_connect: there is no foreign server "%"', server
            USING ERRCODE = '42704',
                  HINT = 'CREATE SERVER ... FOREIGN DATA WRAPPER mysql_fdw and a user mapping first (docs/slurmdbd.md).';
    END IF;
    IF sc OPERATOR(pg_catalog.!~) '^[A-Za-z0-9_][A-Za-z0-9_-]*$' THEN
        RAISE EXCEPTION 'slurmdbd_connect: "%" is not a Slurm cluster name', sc
            USING ERRCODE = '22023', HINT = 'ClusterName of slurm.conf: letters, digits, _ and -, not - first.';
    END IF;
    -- a schema that exists already must be one whose code the caller may
    -- run (docs/security.md#the-slurm-loop); a new one is the caller's
    IF EXISTS (SELECT FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) sch) THEN
        PERFORM @extschema@_internal._slurmdbd_trusted_schema(sch, 'slurmdbd_connect', false);
    END IF;
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', sch);
    -- job_db_inx is numeric: Slurm 24.11 makes it a 64-bit SLUID whose top
    -- bits are the cluster's id, above bigint's range for half the ids
    -- (docs/slurm.md#slurm-2411)
    EXECUTE format($f$CREATE FOREIGN TABLE %I.job_table (
        job_db_inx numeric, mod_time bigint, deleted integer, account text, array_task_str text,
        id_array_job bigint, id_array_task bigint, id_assoc bigint, id_job bigint, id_qos bigint,
        het_job_id bigint, het_job_offset bigint, nodes_alloc bigint, cpus_req bigint, "partition" text,
        state bigint, timelimit bigint, time_submit bigint, time_eligible bigint, time_start bigint,
        time_end bigint, time_suspended bigint, tres_alloc text, tres_req text, id_resv bigint)
        SERVER %I OPTIONS (dbname %L, table_name %L)$f$, sch, server, database, sc OPERATOR(pg_catalog.||) '_job_table');
    EXECUTE format($f$CREATE FOREIGN TABLE %I.assoc_table (
        mod_time bigint, deleted integer, id_assoc bigint, "user" text, acct text, "partition" text,
        parent_acct text, lft bigint, shares bigint, grp_tres_mins text, def_qos_id bigint, qos text)
        SERVER %I OPTIONS (dbname %L, table_name %L)$f$, sch, server, database, sc OPERATOR(pg_catalog.||) '_assoc_table');
    EXECUTE format($f$CREATE FOREIGN TABLE %I.tres_table (id bigint, deleted integer, type text, name text)
        SERVER %I OPTIONS (dbname %L, table_name 'tres_table')$f$, sch, server, database);
    EXECUTE format($f$CREATE FOREIGN TABLE %I.qos_table (id bigint, deleted integer, name text)
        SERVER %I OPTIONS (dbname %L, table_name 'qos_table')$f$, sch, server, database);
    -- the version of slurmdbd's schema, which names the Slurm release
    -- (docs/slurmdbd.md#slurm-versions)
    EXECUTE format($f$CREATE FOREIGN TABLE %I.convert_version_table (version bigint)
        SERVER %I OPTIONS (dbname %L, table_name 'convert_version_table')$f$, sch, server, database);
    INSERT INTO @extschema@.slurmdbd_feeds (cluster, foreign_schema, slurm_cluster) VALUES (slurmdbd_connect.cluster, sch, sc)
    ON CONFLICT ON CONSTRAINT slurmdbd_feeds_pkey DO UPDATE
       SET foreign_schema = EXCLUDED.foreign_schema, slurm_cluster = EXCLUDED.slurm_cluster;
    RETURN sch;
END
$$;
COMMENT ON FUNCTION @extschema@.slurmdbd_connect(text, name, name, text, text) IS
'Makes the mysql_fdw foreign tables of a cluster''s slurmdbd (job, association, TRES and QOS tables) in a schema of their own and registers the feed; returns the schema.';

-- The Slurm release whose slurmdbd tables the feed and the decisions read:
-- the one the administrator set in slurmdbd_feeds.slurm_version, else the
-- one slurmdbd's schema version names.  slurmdbd keeps the version of its
-- tables in convert_version_table (CONVERT_VERSION of
-- src/plugins/accounting_storage/mysql/as_mysql_convert.c): 11 and 12 are
-- 22.05's, 16 is 24.11's.  Any other is a schema fairshare was not tested
-- against: refused (0A000), never taken for the nearest one
-- (docs/slurmdbd.md#slurm-versions).
CREATE FUNCTION @extschema@_internal._slurmdbd_version(sch name, set_version text, cluster text, caller text)
RETURNS text LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v bigint;
    n bigint;
BEGIN
    IF set_version IS NOT NULL THEN
        RETURN set_version;
    END IF;
    BEGIN
        EXECUTE format('SELECT max(version), count(*) FROM %I.convert_version_table', sch) INTO v, n;
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION '%: cannot read the slurmdbd of cluster "%" (foreign tables %): %', caller, cluster, sch, SQLERRM
            USING ERRCODE = '08001',
                  HINT = 'Is MariaDB up, and do the foreign server and the user mapping reach it (docs/slurmdbd.md)?'
                         OPERATOR(pg_catalog.||) CASE WHEN caller OPERATOR(pg_catalog.=) 'sync_slurmdbd' THEN '  Nothing was synced.' ELSE '' END;
    END;
    IF v OPERATOR(pg_catalog.=) ANY (ARRAY[11, 12]::bigint[]) THEN
        RETURN '22.05';
    ELSIF v OPERATOR(pg_catalog.=) 16 THEN
        RETURN '24.11';
    END IF;
    RAISE EXCEPTION '%: the slurmdbd of cluster "%" has tables of schema version %, which is neither Slurm 22.05''s (11, 12) nor 24.11''s (16)',
                    caller, cluster,
                    CASE WHEN n OPERATOR(pg_catalog.=) 0 THEN 'none (convert_version_table is empty)'
                         ELSE v::text OPERATOR(pg_catalog.||) ' (convert_version_table)' END
        USING ERRCODE = '0A000',
              HINT = 'fairshare reads the slurmdbd tables of Slurm 22.05 and 24.11 only (docs/slurmdbd.md#slurm-versions).  If this slurmdbd runs one of them, say which: UPDATE fairshare.slurmdbd_feeds SET slurm_version = ''24.11'' WHERE cluster = ...;'
                     OPERATOR(pg_catalog.||) CASE WHEN caller OPERATOR(pg_catalog.=) 'sync_slurmdbd' THEN '  Nothing was synced.' ELSE '' END;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._slurmdbd_version(name, text, text, text) IS
'The Slurm release of a feed''s slurmdbd tables: slurmdbd_feeds.slurm_version, else read from convert_version_table (11, 12: 22.05; 16: 24.11); any other schema version refused with 0A000 (internal to the slurmdbd feed).';

-- What slurmdbd holds, read once per sync into TEMP tables: nothing of the
-- sync reads MariaDB after this, so a connection lost half-way fails here,
-- before anything is written.
CREATE FUNCTION @extschema@_internal._slurmdbd_read(sch name, job_mark bigint, assoc_mark bigint, cluster text)
RETURNS void LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    BEGIN
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_tres ON COMMIT DROP AS SELECT id, CASE WHEN coalesce(name, %L) = %L THEN type ELSE type || %L || name END AS tres
                          FROM %I.tres_table', '', '', '/', sch);
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_qos ON COMMIT DROP AS SELECT id, name FROM %I.qos_table', sch);
        -- jobs first, then associations: an association a job names is
        -- never newer than the association rows read after it
        -- from a minute before the mark: a row slurmdbd stamped before the
        -- last read but committed after it is read all the same (the
        -- import leaves the rows it already holds unchanged)
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_jobs ON COMMIT DROP AS SELECT * FROM %I.job_table
                         WHERE mod_time >= %s OR time_end = 0 OR time_end >= %s', sch, job_mark - 60, job_mark - 60);
        -- every association: slurmdbd renames a user without a new mod_time
        -- (UPDATE ... SET user = new WHERE user = old), so a rename shows
        -- only as an id whose name changed; there are few of them
        EXECUTE format('CREATE TEMP TABLE _fs_sdbd_assocs ON COMMIT DROP AS SELECT * FROM %I.assoc_table', sch);
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'sync_slurmdbd: cannot read the slurmdbd of cluster "%" (foreign tables %): %', cluster, sch, SQLERRM
            USING ERRCODE = '08001',
                  HINT = 'Is MariaDB up, and do the foreign server and the user mapping reach it (docs/slurmdbd.md)?  Nothing was synced.';
    END;
END
$$;

-- The account tree, the users, the shares and the GrpTRESMins limits from the associations that
-- changed since assoc_mark, that are new to the feed, or whose name changed
-- (a rename keeps the id).  Partition associations are not in fairshare's
-- tree and are left out.
CREATE FUNCTION @extschema@_internal._slurmdbd_sync_tree(cluster text, assoc_mark bigint)
RETURNS bigint LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    r record;
    n bigint := 0;
    -- the caller's instant for tree changes, given back at the end
    caller_instant text := pg_catalog.current_setting('fairshare.tree_change_at', true);
BEGIN
    -- each account's depth in the tree the rows describe (root 0), so
    -- that a parent is written before its children; a cycle or a chain
    -- deeper than slurmdbd allows stops the walk
    DROP TABLE IF EXISTS pg_temp._fs_sdbd_depth;
    CREATE TEMP TABLE _fs_sdbd_depth ON COMMIT DROP AS
    WITH RECURSIVE acc AS (
        SELECT DISTINCT ON (x.acct) x.acct, NULLIF(x.parent_acct, '') AS parent
          FROM pg_temp._fs_sdbd_assocs x
         WHERE coalesce(x."user", '') OPERATOR(pg_catalog.=) '' AND coalesce(x."partition", '') OPERATOR(pg_catalog.=) ''
         ORDER BY x.acct, x.deleted, x.id_assoc
    ), walk (acct, depth) AS (
        SELECT acc.acct, 0 FROM acc WHERE acc.parent IS NULL
        UNION
        SELECT acc.acct, w.depth OPERATOR(pg_catalog.+) 1
          FROM walk w JOIN acc ON acc.parent OPERATOR(pg_catalog.=) w.acct
         WHERE w.depth OPERATOR(pg_catalog.<) 1000
    )
    SELECT walk.acct, pg_catalog.min(walk.depth) AS depth FROM walk GROUP BY walk.acct;
    FOR r IN
        SELECT a.id_assoc, a.deleted OPERATOR(pg_catalog.<>) 0 AS deleted, coalesce(a."user", '') AS user_name,
               -- the instant of the row's change in the history of the tree:
               -- slurmdbd's mod_time (whole seconds), never after now(); a row
               -- not stamped since the last sync (a 24.11 move, a rename)
               -- changed at a time slurmdbd does not say: the sync's now()
               CASE WHEN a.mod_time OPERATOR(pg_catalog.>=) assoc_mark THEN
               pg_catalog.to_char(pg_catalog.to_timestamp(LEAST(GREATEST(a.mod_time, 0)::float8,
                                      pg_catalog.date_part('epoch', pg_catalog.now())))
                                  AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') OPERATOR(pg_catalog.||) '+00' END AS changed_at,
               a.acct AS account, NULLIF(a.parent_acct, '') AS parent,
               CASE WHEN a.shares OPERATOR(pg_catalog.=) 2147483647 THEN NULL ELSE a.shares::integer END AS shares,
               -- GrpTRESMins: slurmdbd's TRES ids as names; no limit (-1,
               -- or 2^64-1 as slurmdbd may keep it) left out
               @extschema@_internal._grp_tres_mins_text((
                   SELECT pg_catalog.string_agg(t.tres OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||)
                                                pg_catalog.split_part(e, '=', 2), ',')
                     FROM pg_catalog.regexp_split_to_table(NULLIF(a.grp_tres_mins, ''), ',') e
                     JOIN pg_temp._fs_sdbd_tres t ON t.id::text OPERATOR(pg_catalog.=) pg_catalog.split_part(e, '=', 1)
                    WHERE pg_catalog.split_part(e, '=', 2) OPERATOR(pg_catalog.~) '^[0-9]{1,19}$'
                      AND pg_catalog.split_part(e, '=', 2)::numeric OPERATOR(pg_catalog.<) 9223372036854775807)) AS grp_tres_mins,
               m.account AS old_account, m.slurm_user AS old_user
          FROM pg_temp._fs_sdbd_assocs a
          LEFT JOIN @extschema@.slurmdbd_associations m
            ON m.cluster OPERATOR(pg_catalog.=) cluster AND m.id_assoc OPERATOR(pg_catalog.=) a.id_assoc
         WHERE coalesce(a."partition", '') OPERATOR(pg_catalog.=) ''
           AND (a.mod_time OPERATOR(pg_catalog.>=) assoc_mark OR m.id_assoc IS NULL
                OR m.account OPERATOR(pg_catalog.<>) a.acct
                OR m.slurm_user OPERATOR(pg_catalog.<>) coalesce(a."user", '')
                -- an account moved without a new mod_time (slurmdbd 24.11,
                -- docs/slurm.md#the-tree-changes)
                OR EXISTS (SELECT FROM @extschema@.accounts x
                            WHERE coalesce(a."user", '') OPERATOR(pg_catalog.=) ''
                              AND x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) a.acct
                              AND x.parent_account IS DISTINCT FROM NULLIF(a.parent_acct, '')))
         -- parents before their children: by depth along parent_acct, which
         -- every Slurm keeps (24.11 keeps lft for the root only)
         ORDER BY a.deleted,
                  (SELECT d.depth FROM pg_temp._fs_sdbd_depth d WHERE d.acct OPERATOR(pg_catalog.=) a.acct)
                  OPERATOR(pg_catalog.+) CASE WHEN coalesce(a."user", '') OPERATOR(pg_catalog.=) '' THEN 0 ELSE 1 END,
                  a.id_assoc
    LOOP
        n := n + 1;
        -- docs/history.md#how-an-instant-is-recorded (no mod_time: now())
        PERFORM pg_catalog.set_config('fairshare.tree_change_at', coalesce(r.changed_at, ''), true);
        IF r.user_name OPERATOR(pg_catalog.=) '' THEN
            -- an account association
            IF NOT r.deleted AND r.old_account IS NOT NULL AND r.old_account OPERATOR(pg_catalog.<>) r.account
               AND NOT EXISTS (SELECT FROM @extschema@.accounts x WHERE x.cluster OPERATOR(pg_catalog.=) cluster
                                  AND x.account OPERATOR(pg_catalog.=) r.account) THEN
                UPDATE @extschema@.accounts x SET account = r.account
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.old_account;
            END IF;
            IF r.deleted THEN
                DELETE FROM @extschema@.accounts x
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account
                   AND x.account OPERATOR(pg_catalog.<>) 'root'
                   AND NOT EXISTS (SELECT FROM @extschema@.accounts c WHERE c.cluster OPERATOR(pg_catalog.=) cluster AND c.parent_account OPERATOR(pg_catalog.=) r.account)
                   AND NOT EXISTS (SELECT FROM @extschema@.account_users u WHERE u.cluster OPERATOR(pg_catalog.=) cluster AND u.account OPERATOR(pg_catalog.=) r.account)
                   AND NOT EXISTS (SELECT FROM @extschema@.allocations l WHERE l.cluster OPERATOR(pg_catalog.=) cluster AND l.account OPERATOR(pg_catalog.=) r.account);
            ELSE
                INSERT INTO @extschema@.accounts AS x (cluster, account, parent_account, shares, grp_tres_mins)
                VALUES (cluster, r.account, r.parent, CASE WHEN r.parent IS NULL THEN coalesce(r.shares, 1) ELSE r.shares END,
                        r.grp_tres_mins)
                ON CONFLICT ON CONSTRAINT accounts_pkey DO UPDATE
                   SET parent_account = EXCLUDED.parent_account, shares = EXCLUDED.shares,
                       grp_tres_mins = EXCLUDED.grp_tres_mins
                 WHERE x.parent_account IS DISTINCT FROM EXCLUDED.parent_account
                    OR x.shares IS DISTINCT FROM EXCLUDED.shares
                    OR x.grp_tres_mins IS DISTINCT FROM EXCLUDED.grp_tres_mins;
            END IF;
        ELSE
            -- a user association
            IF NOT r.deleted AND r.old_user IS NOT NULL AND r.old_user OPERATOR(pg_catalog.<>) '' AND r.old_account OPERATOR(pg_catalog.=) r.account
               AND r.old_user OPERATOR(pg_catalog.<>) r.user_name
               AND NOT EXISTS (SELECT FROM @extschema@.account_users x WHERE x.cluster OPERATOR(pg_catalog.=) cluster
                                  AND x.account OPERATOR(pg_catalog.=) r.account AND x.user_name OPERATOR(pg_catalog.=) r.user_name) THEN
                UPDATE @extschema@.account_users x SET user_name = r.user_name
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account
                   AND x.user_name OPERATOR(pg_catalog.=) r.old_user;
            END IF;
            IF r.deleted THEN
                DELETE FROM @extschema@.account_users x
                 WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account
                   AND x.user_name OPERATOR(pg_catalog.=) r.user_name
                   AND NOT EXISTS (SELECT FROM @extschema@.jobs j WHERE j.cluster OPERATOR(pg_catalog.=) cluster
                                      AND j.account OPERATOR(pg_catalog.=) r.account AND j.user_name OPERATOR(pg_catalog.=) r.user_name);
            ELSIF EXISTS (SELECT FROM @extschema@.accounts x WHERE x.cluster OPERATOR(pg_catalog.=) cluster AND x.account OPERATOR(pg_catalog.=) r.account) THEN
                INSERT INTO @extschema@.account_users AS x (cluster, account, user_name, shares, grp_tres_mins)
                VALUES (cluster, r.account, r.user_name, r.shares, r.grp_tres_mins)
                ON CONFLICT ON CONSTRAINT account_users_pkey DO UPDATE
                   SET shares = EXCLUDED.shares, grp_tres_mins = EXCLUDED.grp_tres_mins
                 WHERE x.shares IS DISTINCT FROM EXCLUDED.shares
                    OR x.grp_tres_mins IS DISTINCT FROM EXCLUDED.grp_tres_mins;
            END IF;
        END IF;
        INSERT INTO @extschema@.slurmdbd_associations AS m (cluster, id_assoc, account, slurm_user, deleted)
        VALUES (cluster, r.id_assoc, r.account, r.user_name, r.deleted)
        ON CONFLICT ON CONSTRAINT slurmdbd_associations_pkey DO UPDATE
           SET account = EXCLUDED.account, slurm_user = EXCLUDED.slurm_user, deleted = EXCLUDED.deleted;
    END LOOP;
    PERFORM pg_catalog.set_config('fairshare.tree_change_at', coalesce(caller_instant, ''), true);
    RETURN n;
END
$$;

-- One sync: associations, then jobs, as one transaction with the marks.
CREATE PROCEDURE @extschema@.sync_slurmdbd(cluster text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    f record;
    n_assocs bigint;
    n_jobs bigint;
    n_deleted bigint;
    gone tstzmultirange;
    -- on a Citus cluster: the newest valid usage checkpoint, and the runs
    -- started by then that slurmdbd deleted (_usage_checkpoints_by_writer)
    ckpt_upto timestamptz;
    gone_runs jsonb;
    n_rejects bigint;
    new_job_mark bigint;
    new_assoc_mark bigint;
    horizon bigint;
    res record;
    version text;
BEGIN
    IF cluster IS NULL THEN
        RAISE EXCEPTION 'sync_slurmdbd: cluster must not be NULL' USING ERRCODE = '22004',
              HINT = 'CALL fairshare.sync_slurmdbd(''oracle'');';
    END IF;
    -- one sync of a cluster at a time: a second waits for the first and
    -- then reads from the marks the first moved
    SELECT * INTO f FROM @extschema@.slurmdbd_feeds s WHERE s.cluster OPERATOR(pg_catalog.=) cluster FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'sync_slurmdbd: cluster "%" has no slurmdbd feed', cluster USING ERRCODE = '42704',
              HINT = 'SELECT fairshare.slurmdbd_connect(cluster, server) first (docs/slurmdbd.md).';
    END IF;
    -- on a Citus cluster with a valid usage checkpoint: the lock and one
    -- connection per node, before jobs is read (_checkpoints_by_writer)
    ckpt_upto := @extschema@_internal._checkpoints_by_writer();
    PERFORM @extschema@_internal._slurmdbd_trusted_schema(f.foreign_schema, 'sync_slurmdbd');
    -- the release of the tables, before anything is read from them
    version := @extschema@_internal._slurmdbd_version(f.foreign_schema, f.slurm_version, cluster, 'sync_slurmdbd');
    PERFORM @extschema@_internal._slurmdbd_read(f.foreign_schema, f.job_mark, f.assoc_mark, cluster);
    SELECT coalesce(max(mod_time), f.assoc_mark) INTO new_assoc_mark FROM pg_temp._fs_sdbd_assocs;
    horizon := pg_catalog.date_part('epoch', pg_catalog.now())::bigint OPERATOR(pg_catalog.+) 86400;
    -- a row stamped in the far future is rejected below and does not move
    -- the mark past the rows to come
    SELECT coalesce(max(mod_time), f.job_mark) INTO new_job_mark FROM pg_temp._fs_sdbd_jobs
     WHERE mod_time OPERATOR(pg_catalog.<=) horizon;
    new_job_mark := greatest(new_job_mark, f.job_mark);
    n_assocs := @extschema@_internal._slurmdbd_sync_tree(cluster, f.assoc_mark);

    -- the jobs as sacct prints them
    CREATE TEMP TABLE _fs_sdbd_lines (line_no bigint GENERATED ALWAYS AS IDENTITY, line text) ON COMMIT DROP;
    CREATE TEMP TABLE _fs_sdbd_rejects (job_id text, reason text, line text) ON COMMIT DROP;
    -- each distinct TRES string once, as sacct prints it (a centre's jobs
    -- repeat a few shapes: 10^5 jobs, a few hundred strings), with the
    -- ids tres_table does not have and the CPU count
    CREATE TEMP TABLE _fs_sdbd_tresfmt ON COMMIT DROP AS
    SELECT r.raw,
           (SELECT pg_catalog.string_agg(t.tres OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||)
                       CASE WHEN t.tres OPERATOR(pg_catalog.=) 'mem' THEN @extschema@_internal._slurm_mem_text(x.v) ELSE x.v::text END,
                       ',' ORDER BY t.tres COLLATE "C")
              FROM pg_catalog.regexp_split_to_table(r.raw, ',') e
              CROSS JOIN LATERAL (SELECT pg_catalog.split_part(e, '=', 1) AS id, pg_catalog.split_part(e, '=', 2)::numeric AS v) x
              JOIN pg_temp._fs_sdbd_tres t ON t.id::text OPERATOR(pg_catalog.=) x.id
             WHERE x.v OPERATOR(pg_catalog.<) 18446744073709551614) AS formatted,
           (SELECT pg_catalog.string_agg(pg_catalog.split_part(e, '=', 1), ',')
              FROM pg_catalog.regexp_split_to_table(r.raw, ',') e
             WHERE NOT EXISTS (SELECT FROM pg_temp._fs_sdbd_tres t
                                WHERE t.id::text OPERATOR(pg_catalog.=) pg_catalog.split_part(e, '=', 1))) AS unknown,
           (SELECT pg_catalog.split_part(e, '=', 2) FROM pg_catalog.regexp_split_to_table(r.raw, ',') e
             WHERE pg_catalog.split_part(e, '=', 1) OPERATOR(pg_catalog.=) '1') AS cpus
      FROM (SELECT j.tres_alloc AS raw FROM pg_temp._fs_sdbd_jobs j WHERE j.tres_alloc OPERATOR(pg_catalog.<>) ''
            UNION
            SELECT j.tres_req FROM pg_temp._fs_sdbd_jobs j WHERE j.tres_req OPERATOR(pg_catalog.<>) '') r
     -- (a malformed string is its row's reject: _slurmdbd_job_problem)
     WHERE r.raw OPERATOR(pg_catalog.~) '^[0-9]{1,9}=[0-9]{1,20}(,[0-9]{1,9}=[0-9]{1,20})*$';
    CREATE TEMP TABLE _fs_sdbd_work ON COMMIT DROP AS
    SELECT j.*,
           CASE WHEN j.het_job_id OPERATOR(pg_catalog.<>) 0
                THEN j.het_job_id::text OPERATOR(pg_catalog.||) '+' OPERATOR(pg_catalog.||) j.het_job_offset::text
                WHEN j.id_array_job OPERATOR(pg_catalog.<>) 0 AND j.id_array_task OPERATOR(pg_catalog.<) 4294967294
                THEN j.id_array_job::text OPERATOR(pg_catalog.||) '_' OPERATOR(pg_catalog.||) j.id_array_task::text
                WHEN j.id_array_job OPERATOR(pg_catalog.<>) 0 AND coalesce(j.array_task_str, '') OPERATOR(pg_catalog.<>) ''
                THEN j.id_array_job::text OPERATOR(pg_catalog.||) '_[' OPERATOR(pg_catalog.||) j.array_task_str OPERATOR(pg_catalog.||) ']'
                ELSE j.id_job::text END AS job_key,
           m.account AS f_account, NULLIF(m.slurm_user, '') AS f_user, q.name AS qos_name,
           fa.formatted AS alloc_text, fr.formatted AS req_text,
           NULLIF(pg_catalog.concat_ws(',', fa.unknown, fr.unknown), '') AS unknown_tres,
           fa.cpus AS alloc_cpus,
           @extschema@_internal._slurmdbd_job_problem(j.tres_alloc, j.tres_req, j.mod_time, j.time_submit, j.time_eligible,
               j.time_start, j.time_end, j.time_suspended, j.timelimit, j.state, horizon) AS problem
      FROM pg_temp._fs_sdbd_jobs j
      LEFT JOIN @extschema@.slurmdbd_associations m
        ON m.cluster OPERATOR(pg_catalog.=) cluster AND m.id_assoc OPERATOR(pg_catalog.=) j.id_assoc
      LEFT JOIN pg_temp._fs_sdbd_qos q ON q.id OPERATOR(pg_catalog.=) j.id_qos
      LEFT JOIN pg_temp._fs_sdbd_tresfmt fa ON fa.raw OPERATOR(pg_catalog.=) j.tres_alloc
      LEFT JOIN pg_temp._fs_sdbd_tresfmt fr ON fr.raw OPERATOR(pg_catalog.=) j.tres_req;

    -- runs slurmdbd marked deleted: removed here too
    ckpt_upto := @extschema@_internal._checkpoints_by_writer();
    WITH d AS (
        DELETE FROM @extschema@.jobs x USING pg_temp._fs_sdbd_work w
         WHERE w.deleted OPERATOR(pg_catalog.<>) 0 AND w.problem IS NULL AND x.cluster OPERATOR(pg_catalog.=) cluster
           AND x.job_id OPERATOR(pg_catalog.=) w.job_key
           AND x.submit_time OPERATOR(pg_catalog.=) pg_catalog.to_timestamp(w.time_submit)
        RETURNING @extschema@_internal._rollup_run_hours(x.eligible_time, x.start_time, x.submit_time, x.end_time) AS hours,
                  CASE WHEN x.start_time OPERATOR(pg_catalog.<=) ckpt_upto
                       THEN @extschema@_internal._checkpoint_run_json(x.cluster, x.job_id, x.submit_time, x.account,
                                x.user_name, x.partition, x.qos, x.tres, x.cpus, x.start_time, x.end_time) END AS run)
    SELECT count(*), pg_catalog.range_agg(d.hours), pg_catalog.jsonb_agg(d.run) FILTER (WHERE d.run IS NOT NULL)
      INTO n_deleted, gone, gone_runs FROM d;
    -- on a Citus cluster the writer marks their hours (docs/citus.md#the-usage-rollups-on-citus)
    -- and invalidates the usage checkpoints they were in
    -- (docs/citus.md#usage-checkpoints-and-retention-on-citus)
    IF gone IS NOT NULL AND @extschema@_internal._rollups_by_writer() THEN
        PERFORM @extschema@_internal._rollups_mark(cluster, gone);
    END IF;
    IF ckpt_upto IS NOT NULL THEN
        PERFORM @extschema@_internal._usage_checkpoints_by_writer('DELETE', gone_runs, NULL);
    END IF;

    INSERT INTO pg_temp._fs_sdbd_rejects (job_id, reason, line)
    SELECT w.job_key,
           CASE WHEN w.problem IS NOT NULL THEN w.problem
                WHEN w.unknown_tres IS NOT NULL
                THEN pg_catalog.format('unknown TRES id %s (not in tres_table)', w.unknown_tres)
                WHEN w.f_user IS NULL AND w.f_account IS NOT NULL
                THEN pg_catalog.format('association %s is an account association, not a user''s', w.id_assoc)
                ELSE pg_catalog.format('association %s is not in the association table of slurmdbd', w.id_assoc) END,
           pg_catalog.format('job_db_inx=%s id_job=%s id_assoc=%s tres_alloc=%s tres_req=%s',
                             w.job_db_inx, w.id_job, w.id_assoc, w.tres_alloc, w.tres_req)
      FROM pg_temp._fs_sdbd_work w
     WHERE w.deleted OPERATOR(pg_catalog.=) 0 AND (w.problem IS NOT NULL OR w.unknown_tres IS NOT NULL OR w.f_user IS NULL);

    INSERT INTO pg_temp._fs_sdbd_lines (line)
    VALUES ('JobID|User|Account|Partition|QOS|AllocCPUS|ReqTRES|AllocTRES|Submit|Eligible|Start|End|State|NNodes|Cluster|Timelimit|Suspended|ReservationId');
    INSERT INTO pg_temp._fs_sdbd_lines (line)
    -- (every field given, NULL as empty: concat_ws would drop a NULL's field)
    SELECT pg_catalog.array_to_string(ARRAY[
             w.job_key, w.f_user, w.f_account, w.partition, w.qos_name,
             coalesce(w.alloc_cpus, w.cpus_req::text), w.req_text, w.alloc_text,
             @extschema@_internal._slurmdbd_time(w.time_submit), @extschema@_internal._slurmdbd_time(w.time_eligible),
             @extschema@_internal._slurmdbd_time(w.time_start), @extschema@_internal._slurmdbd_time(w.time_end),
             @extschema@_internal._slurmdbd_state(w.state),
             CASE WHEN w.nodes_alloc OPERATOR(pg_catalog.>) 0 THEN w.nodes_alloc ELSE 1 END::text,
             cluster, @extschema@_internal._slurm_minutes_text(w.timelimit),
             -- seconds suspended; while suspended, slurmdbd holds the
             -- instant the suspension began less the time suspended before
             @extschema@_internal._slurm_seconds_text(CASE WHEN w.state OPERATOR(pg_catalog.&) 255 OPERATOR(pg_catalog.=) 2
                  THEN (pg_catalog.date_part('epoch', pg_catalog.now())::bigint OPERATOR(pg_catalog.-) w.time_suspended)
                  ELSE w.time_suspended END),
             -- the reservation it ran in (0: none)
             w.id_resv::text], '|', '')
      FROM pg_temp._fs_sdbd_work w
     WHERE w.deleted OPERATOR(pg_catalog.=) 0 AND w.problem IS NULL AND w.unknown_tres IS NULL AND w.f_user IS NOT NULL
     ORDER BY w.time_submit, w.job_db_inx;
    SELECT count(*) INTO n_jobs FROM pg_temp._fs_sdbd_work;

    SELECT * INTO res FROM @extschema@.import_sacct(cluster, 'UTC', staging => 'pg_temp._fs_sdbd_lines');
    INSERT INTO @extschema@.import_rejects (import_id, line_no, job_id, sqlstate, reason, line)
    SELECT res.import_id, res.lines_read OPERATOR(pg_catalog.+) pg_catalog.row_number() OVER (ORDER BY r.job_id, r.line),
           r.job_id, '23503', r.reason, r.line
      FROM pg_temp._fs_sdbd_rejects r;
    GET DIAGNOSTICS n_rejects = ROW_COUNT;
    IF n_rejects OPERATOR(pg_catalog.>) 0 THEN
        UPDATE @extschema@.imports i SET rejected = i.rejected OPERATOR(pg_catalog.+) n_rejects
         WHERE i.import_id OPERATOR(pg_catalog.=) res.import_id;
    END IF;
    UPDATE @extschema@.slurmdbd_feeds s
       SET job_mark = new_job_mark, assoc_mark = new_assoc_mark, last_sync = pg_catalog.now(),
           last_import_id = res.import_id, last_jobs_read = n_jobs, last_assocs_read = n_assocs,
           last_slurm_version = version
     WHERE s.cluster OPERATOR(pg_catalog.=) cluster;
    -- the release is the cluster's too: its sreport-shaped reports print
    -- as that release's sreport (docs/slurm.md#which-release-a-cluster-runs)
    UPDATE @extschema@.clusters k SET slurm_version = version
     WHERE k.cluster OPERATOR(pg_catalog.=) cluster AND k.slurm_version IS DISTINCT FROM version;
    DROP TABLE pg_temp._fs_sdbd_lines, pg_temp._fs_sdbd_rejects, pg_temp._fs_sdbd_jobs,
               pg_temp._fs_sdbd_assocs, pg_temp._fs_sdbd_tres, pg_temp._fs_sdbd_qos, pg_temp._fs_sdbd_work,
               pg_temp._fs_sdbd_tresfmt;
    RAISE NOTICE 'sync_slurmdbd %: % associations, % job rows read (% deleted), import %: % imported, % updated, % unchanged, % rejected',
        cluster, n_assocs, n_jobs, n_deleted, res.import_id, res.imported, res.updated, res.unchanged, res.rejected OPERATOR(pg_catalog.+) n_rejects;
END
$$;
COMMENT ON PROCEDURE @extschema@.sync_slurmdbd(text) IS
'Brings the cluster''s associations, shares and job runs in from its slurmdbd (mysql_fdw), from the change marks on, in one transaction: exactly once, through import_sacct.';

-- ---------------------------------------------------------------------------
-- Out: fairshare's decisions as sacctmgr argument vectors
-- ---------------------------------------------------------------------------

-- Why sacctmgr could not take a name as the one name it is, NULL if it can.
-- sacctmgr splits a value at commas into a list of names (proj,root is two
-- accounts), expands brackets as a host list (a[1-2] is a1 and a2), ends a
-- name at the quote matching a leading one and turns other quotes into `,
-- lowercases account and user names, reads an argument beginning with - as
-- an option wherever it stands (getopt), and
-- a newline or other control character ends a line for whatever shell or
-- file carries the command.  Only lowercase letters, digits and _ . @ -
-- (not - first) are taken: every name Slurm's own tools create that way
-- (docs/security.md#the-slurm-loop).
CREATE FUNCTION @extschema@_internal._slurm_name_problem(name text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE
        WHEN name IS NULL OR name OPERATOR(pg_catalog.=) '' THEN 'is empty'
        WHEN name OPERATOR(pg_catalog.~) '[[:cntrl:]]' THEN 'holds a control character (a newline, a tab)'
        WHEN name OPERATOR(pg_catalog.~) '[[:space:]]' THEN 'holds a blank (sacctmgr takes one word per argument)'
        WHEN pg_catalog.strpos(name, ',') OPERATOR(pg_catalog.>) 0 THEN 'holds a comma (sacctmgr reads a list of names)'
        WHEN name OPERATOR(pg_catalog.~) '^-' THEN 'begins with - (sacctmgr reads an option)'
        WHEN name OPERATOR(pg_catalog.~) '[][]' THEN 'holds a bracket (sacctmgr expands a[1-2] into a1,a2)'
        WHEN name OPERATOR(pg_catalog.~) '[''"`]' THEN 'holds a quote (sacctmgr strips quotes)'
        WHEN pg_catalog.strpos(name, '=') OPERATOR(pg_catalog.>) 0 THEN 'holds = (sacctmgr reads a setting)'
        WHEN name OPERATOR(pg_catalog.~) '[A-Z]' THEN 'holds a capital (sacctmgr lowercases names)'
        WHEN name OPERATOR(pg_catalog.~) '[^a-z0-9_.@-]' THEN 'holds a character other than a-z, 0-9, _ . @ -'
        WHEN pg_catalog.length(name) OPERATOR(pg_catalog.>) 64 THEN 'is longer than 64 characters' END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurm_name_problem(text) IS
'Why sacctmgr could not take a name as one argument naming one entity (a comma, a leading -, a bracket, a control character, a blank, a quote, =, a capital, another character than a-z 0-9 _ . @ -), NULL if it can (internal to slurm_decisions).';

-- A name as a reason shows it: as it is when sacctmgr can take it, else as
-- a JSON string (a newline as \n, every control character escaped), so
-- that a reason is one line whatever the name holds.
CREATE FUNCTION @extschema@_internal._slurm_name_shown(name text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN name IS NULL THEN 'none'
                WHEN @extschema@_internal._slurm_name_problem(name) IS NULL THEN name
                ELSE pg_catalog.to_json(name)::text END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurm_name_shown(text) IS
'A name for a reason: as it is when sacctmgr can take it, else JSON-escaped on one line (internal to slurm_decisions).';

-- A GrpTRESMins minutes value as slurmdbd keeps it, -1 for no limit: -1,
-- INFINITE64 and NO_VAL64 (2^64-1, 2^64-2) or anything else not a count.
CREATE FUNCTION @extschema@_internal._slurm_limit_minutes(v text)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN v OPERATOR(pg_catalog.~) '^[0-9]{1,18}$' THEN v::bigint ELSE -1 END;
END;
COMMENT ON FUNCTION @extschema@_internal._slurm_limit_minutes(text) IS
'A GrpTRESMins value of slurmdbd as minutes, -1 for no limit (-1, INFINITE64, NO_VAL64, anything not a count) (internal to slurm_decisions).';

-- What to run so that the cluster's slurmdbd holds what fairshare decided,
-- compared with what it holds now (read through the feed's foreign tables):
--   1 accounts missing from Slurm, parents first   (add account)
--   2 an account's parent or Fairshare             (modify account)
--   3 user associations missing from Slurm         (add user)
--   4 a user association's Fairshare               (modify user)
--   5 limits: GrpTRESMins=<limit_tres>=minutes of an account with
--     allocations: a GENCI allocation's net hours (take-backs lower it; 0
--     when overdrawn), 0 for a blocked RWTH project without a blocked QOS,
--     0 once every allocation of the account has ended, none (-1) otherwise
--   6 QOS of RWTH projects when the centre configured them
-- Each decision is a row: the entity and its names, the settings, and the
-- arguments of sacctmgr (argv, run without a shell by
-- tools/fairshare_apply_decisions.c).  A decision naming something sacctmgr
-- could not take as one argument is refused: no argv, and why in refused
-- (docs/slurmdbd.md#the-decisions-slurm_decisions).  Nothing is ever
-- deleted in Slurm.  An empty result means Slurm matches.
CREATE FUNCTION @extschema@.slurm_decisions(cluster text, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (step integer, entity text, account text, user_name text, attributes text[], argv text[],
               command text, reason text, refused text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    f record;
    tz text;
    d date;
BEGIN
    IF $1 IS NULL OR $2 IS NULL OR NOT isfinite($2) THEN
        RAISE EXCEPTION 'slurm_decisions: cluster and as_of must be given (as_of finite), not %, %', $1, $2
            USING ERRCODE = '22004', HINT = 'SELECT * FROM fairshare.slurm_decisions(''oracle'');';
    END IF;
    SELECT s.*, c.timezone AS tz INTO f
      FROM @extschema@.slurmdbd_feeds s JOIN @extschema@.clusters c USING (cluster)
     WHERE s.cluster = $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'slurm_decisions: cluster "%" has no slurmdbd feed', $1 USING ERRCODE = '42704',
              HINT = 'SELECT fairshare.slurmdbd_connect(cluster, server) first (docs/slurmdbd.md).';
    END IF;
    PERFORM @extschema@_internal._slurmdbd_trusted_schema(f.foreign_schema, 'slurm_decisions');
    -- decisions for a slurmdbd whose schema is not known are refused too
    PERFORM @extschema@_internal._slurmdbd_version(f.foreign_schema, f.slurm_version, $1, 'slurm_decisions');
    d := ($2 AT TIME ZONE f.tz)::date;
    BEGIN
        EXECUTE format('CREATE TEMP TABLE _fs_dec_assoc ON COMMIT DROP AS SELECT coalesce("user", %L) AS user_name, acct, parent_acct,
                               shares, grp_tres_mins, def_qos_id, qos FROM %I.assoc_table
                         WHERE deleted = 0 AND coalesce("partition", %L) = %L', '', f.foreign_schema, '', '');
        EXECUTE format('CREATE TEMP TABLE _fs_dec_tres ON COMMIT DROP AS SELECT id, CASE WHEN coalesce(name, %L) = %L THEN type ELSE type || %L || name END AS tres
                          FROM %I.tres_table WHERE deleted = 0', '', '', '/', f.foreign_schema);
        EXECUTE format('CREATE TEMP TABLE _fs_dec_qos ON COMMIT DROP AS SELECT id, name FROM %I.qos_table WHERE deleted = 0', f.foreign_schema);
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'slurm_decisions: cannot read the slurmdbd of cluster "%" (foreign tables %): %', $1, f.foreign_schema, SQLERRM
            USING ERRCODE = '08001', HINT = 'Is MariaDB up, and do the foreign server and the user mapping reach it (docs/slurmdbd.md)?';
    END;
    IF NOT EXISTS (SELECT FROM pg_temp._fs_dec_tres t WHERE t.tres = f.limit_tres) THEN
        RAISE EXCEPTION 'slurm_decisions: slurmdbd of cluster "%" has no TRES "%" (slurmdbd_feeds.limit_tres)', $1, f.limit_tres
            USING ERRCODE = '22023', HINT = 'Use a TRES of tres_table, e.g. billing or cpu.';
    END IF;

    RETURN QUERY
    WITH RECURSIVE
    tree AS (
        SELECT a.account, a.parent_account, a.shares, 0 AS depth
          FROM @extschema@.accounts a WHERE a.cluster = $1 AND a.parent_account IS NULL
        UNION ALL
        SELECT a.account, a.parent_account, a.shares, t.depth + 1
          FROM @extschema@.accounts a JOIN tree t ON a.parent_account = t.account WHERE a.cluster = $1),
    s_acct AS (SELECT * FROM pg_temp._fs_dec_assoc s WHERE s.user_name = ''),
    s_user AS (SELECT * FROM pg_temp._fs_dec_assoc s WHERE s.user_name <> ''),
    limit_id AS (SELECT t.id FROM pg_temp._fs_dec_tres t WHERE t.tres = f.limit_tres),
    -- the allocations of each account: the one running on d, else the last ended
    alloc AS (
        SELECT DISTINCT ON (l.account) l.*, l.period_start <= d AND d <= l.period_end AS running,
               CASE WHEN l.policy = 'genci' THEN @extschema@.allocation_net_hours(l.allocation_id, d) END AS net_hours
          FROM @extschema@.allocations l
         WHERE l.cluster = $1 AND l.period_start <= d AND l.policy IN ('genci', 'rwth')
         ORDER BY l.account, (l.period_start <= d AND d <= l.period_end) DESC, l.period_end DESC),
    rwth AS (
        SELECT DISTINCT ON (r.allocation_id) r.allocation_id, r.month, r.state, r.blocked, r.low_priority,
               r.consumed, r.consumable
          FROM @extschema@.r_wlm_usage_at($2) r WHERE r.cluster = $1
         ORDER BY r.allocation_id, r.month DESC),
    wanted AS (
        SELECT a.account, a.allocation_id,
               -- an allocation overdrawn (net hours below 0) is blocked
               -- (0), never unlimited: sacctmgr would store a negative
               -- limit as 2^64 - n, which is no limit
               CASE WHEN NOT a.running THEN 0::bigint
                    WHEN a.policy = 'genci' THEN greatest(floor(a.net_hours * 60), 0)::bigint
                    WHEN r.blocked AND f.rwth_blocked_qos IS NULL THEN 0::bigint
                    ELSE -1::bigint END AS minutes,
               CASE WHEN NOT a.running
                    THEN format('allocation %s (%s) ended on %s: no further hours', a.allocation_id, a.policy, a.period_end)
                    WHEN a.policy = 'genci' AND a.net_hours < 0
                    THEN format('GENCI allocation %s (%s to %s): %s h granted, %s h net of the ledger on %s: overdrawn, blocked',
                                a.allocation_id, a.period_start, a.period_end, a.hours, a.net_hours, d)
                    WHEN a.policy = 'genci'
                    THEN format('GENCI allocation %s (%s to %s): %s h granted, %s h net of the ledger on %s',
                                a.allocation_id, a.period_start, a.period_end, a.hours, a.net_hours, d)
                    WHEN r.blocked AND f.rwth_blocked_qos IS NULL
                    THEN format('RWTH project blocked in %s (allocation %s: %s core-h consumed this month, %s available); no blocked QOS configured',
                                to_char(r.month, 'YYYY-MM'), a.allocation_id, round(r.consumed::numeric, 1), round(r.consumable::numeric, 1))
                    ELSE format('RWTH allocation %s: %s in %s, no limit', a.allocation_id, coalesce(r.state, 'no month begun'),
                                coalesce(to_char(r.month, 'YYYY-MM'), '-')) END AS why,
               CASE WHEN a.running AND a.policy = 'rwth'
                     AND (f.rwth_blocked_qos IS NOT NULL OR f.rwth_low_priority_qos IS NOT NULL)
                    THEN CASE WHEN r.blocked AND f.rwth_blocked_qos IS NOT NULL THEN f.rwth_blocked_qos
                              WHEN (r.blocked OR r.low_priority) AND f.rwth_low_priority_qos IS NOT NULL THEN f.rwth_low_priority_qos
                              ELSE f.rwth_normal_qos END END AS qos,
               CASE WHEN r.blocked THEN format('RWTH project blocked in %s (allocation %s)', to_char(r.month, 'YYYY-MM'), a.allocation_id)
                    WHEN r.low_priority THEN format('RWTH project in low priority in %s (allocation %s: %s core-h available)',
                                                    to_char(r.month, 'YYYY-MM'), a.allocation_id, round(r.consumable::numeric, 1))
                    ELSE format('RWTH project back to normal in %s (allocation %s)', coalesce(to_char(r.month, 'YYYY-MM'), '-'), a.allocation_id) END AS qos_why
          FROM alloc a LEFT JOIN rwth r ON r.allocation_id = a.allocation_id),
    -- each decision: the entity, the names that select it (keys) and must
    -- each be one name to sacctmgr (checked), and what to set
    out AS (
        -- 1, 2: accounts
        SELECT 1 AS step, t.depth, 'account' AS entity, 'add' AS action, t.account, NULL::text AS user_name,
               ARRAY['account', 'parent account', 'cluster'] AS labels, ARRAY[t.account, t.parent_account, f.slurm_cluster] AS names,
               ARRAY['name=' || t.account, 'cluster=' || f.slurm_cluster] AS keys,
               ARRAY['parent=' || t.parent_account, 'fairshare=' || coalesce(t.shares::text, 'parent')] AS attributes,
               format('account %s is in fairshare (under %s, %s shares), not in slurmdbd', @extschema@_internal._slurm_name_shown(t.account),
                      @extschema@_internal._slurm_name_shown(t.parent_account), coalesce(t.shares::text, 'parent')) AS reason
          FROM tree t WHERE t.parent_account IS NOT NULL
           AND NOT EXISTS (SELECT FROM s_acct s WHERE s.acct = t.account)
        UNION ALL
        SELECT 2, t.depth, 'account', 'modify', t.account, NULL,
               ARRAY['account', 'parent account', 'cluster'],
               ARRAY[t.account, CASE WHEN s.parent_acct IS DISTINCT FROM t.parent_account THEN t.parent_account END, f.slurm_cluster],
               ARRAY['name=' || t.account, 'cluster=' || f.slurm_cluster],
               array_remove(ARRAY[CASE WHEN s.parent_acct IS DISTINCT FROM t.parent_account THEN 'parent=' || t.parent_account END,
                                  CASE WHEN s.shares IS DISTINCT FROM coalesce(t.shares::bigint, 2147483647)
                                       THEN 'fairshare=' || coalesce(t.shares::text, 'parent') END], NULL),
               concat_ws('; ',
                   CASE WHEN s.parent_acct IS DISTINCT FROM t.parent_account
                        THEN format('parent of %s in fairshare %s, in slurmdbd %s', @extschema@_internal._slurm_name_shown(t.account),
                                    @extschema@_internal._slurm_name_shown(t.parent_account), @extschema@_internal._slurm_name_shown(s.parent_acct)) END,
                   CASE WHEN s.shares IS DISTINCT FROM coalesce(t.shares::bigint, 2147483647)
                        THEN format('Fairshare of %s in fairshare %s, in slurmdbd %s', @extschema@_internal._slurm_name_shown(t.account),
                                    coalesce(t.shares::text, 'parent'),
                                    CASE WHEN s.shares = 2147483647 THEN 'parent' ELSE s.shares::text END) END)
          FROM tree t JOIN s_acct s ON s.acct = t.account
         WHERE t.parent_account IS NOT NULL
           AND (s.parent_acct IS DISTINCT FROM t.parent_account OR s.shares IS DISTINCT FROM coalesce(t.shares::bigint, 2147483647))
        UNION ALL
        -- 3, 4: user associations
        SELECT 3, 0, 'user', 'add', u.account, u.user_name,
               ARRAY['user', 'account', 'cluster'], ARRAY[u.user_name, u.account, f.slurm_cluster],
               ARRAY['name=' || u.user_name, 'account=' || u.account, 'cluster=' || f.slurm_cluster],
               ARRAY['fairshare=' || coalesce(u.shares::text, 'parent')],
               format('user %s in account %s is in fairshare (%s shares), not in slurmdbd', @extschema@_internal._slurm_name_shown(u.user_name),
                      @extschema@_internal._slurm_name_shown(u.account), coalesce(u.shares::text, 'parent'))
          FROM @extschema@.account_users u
         WHERE u.cluster = $1 AND NOT EXISTS (SELECT FROM s_user s WHERE s.acct = u.account AND s.user_name = u.user_name)
        UNION ALL
        SELECT 4, 0, 'user', 'modify', u.account, u.user_name,
               ARRAY['user', 'account', 'cluster'], ARRAY[u.user_name, u.account, f.slurm_cluster],
               ARRAY['name=' || u.user_name, 'account=' || u.account, 'cluster=' || f.slurm_cluster],
               ARRAY['fairshare=' || coalesce(u.shares::text, 'parent')],
               format('Fairshare of user %s in account %s: in fairshare %s, in slurmdbd %s', @extschema@_internal._slurm_name_shown(u.user_name),
                      @extschema@_internal._slurm_name_shown(u.account), coalesce(u.shares::text, 'parent'),
                      CASE WHEN s.shares = 2147483647 THEN 'parent' ELSE s.shares::text END)
          FROM @extschema@.account_users u JOIN s_user s ON s.acct = u.account AND s.user_name = u.user_name
         WHERE u.cluster = $1 AND s.shares IS DISTINCT FROM coalesce(u.shares::bigint, 2147483647)
        UNION ALL
        -- 5: limits
        SELECT 5, 0, 'account', 'modify', w.account, NULL,
               ARRAY['account', 'cluster'], ARRAY[w.account, f.slurm_cluster],
               ARRAY['name=' || w.account, 'cluster=' || f.slurm_cluster],
               ARRAY['GrpTRESMins=' || f.limit_tres || '=' || w.minutes],
               format('%s: %s=%s minutes (slurmdbd has %s)', w.why, f.limit_tres,
                      CASE WHEN w.minutes < 0 THEN 'no limit' ELSE w.minutes::text END,
                      CASE WHEN coalesce(cur.minutes, -1) < 0 THEN 'no limit' ELSE cur.minutes::text END)
          FROM wanted w
          LEFT JOIN s_acct s ON s.acct = w.account
          LEFT JOIN LATERAL (
                SELECT @extschema@_internal._slurm_limit_minutes(split_part(e, '=', 2)) AS minutes
                  FROM regexp_split_to_table(NULLIF(s.grp_tres_mins, ''), ',') e
                 WHERE split_part(e, '=', 1) = (SELECT l.id::text FROM limit_id l)
                 LIMIT 1) cur ON true
         WHERE coalesce(cur.minutes, -1) IS DISTINCT FROM w.minutes
        UNION ALL
        -- 6: QOS
        SELECT 6, 0, 'account', 'modify', w.account, NULL,
               ARRAY['account', 'cluster', 'QOS'], ARRAY[w.account, f.slurm_cluster, w.qos],
               ARRAY['name=' || w.account, 'cluster=' || f.slurm_cluster],
               ARRAY['QOS=' || w.qos, 'DefaultQOS=' || w.qos],
               format('%s: QOS %s (slurmdbd has %s)', w.qos_why, @extschema@_internal._slurm_name_shown(w.qos), @extschema@_internal._slurm_name_shown(q.name))
          FROM wanted w
          LEFT JOIN s_acct s ON s.acct = w.account
          LEFT JOIN pg_temp._fs_dec_qos q ON q.id = s.def_qos_id
         WHERE w.qos IS NOT NULL
           AND (q.name IS DISTINCT FROM w.qos
                OR s.qos IS DISTINCT FROM (SELECT ',' || q2.id || ',' FROM pg_temp._fs_dec_qos q2 WHERE q2.name = w.qos))),
    checked AS (
        SELECT o.*,
               (SELECT string_agg(format('the %s name %s', n.label, p.problem), '; ' ORDER BY n.i)
                  FROM unnest(o.labels, o.names) WITH ORDINALITY n (label, name, i)
                 CROSS JOIN LATERAL (SELECT @extschema@_internal._slurm_name_problem(n.name) AS problem) p
                 WHERE n.name IS NOT NULL AND p.problem IS NOT NULL) AS problem
          FROM out o)
    SELECT c.step, c.entity, c.account, c.user_name,
           CASE WHEN c.problem IS NULL THEN c.attributes END,
           CASE WHEN c.problem IS NULL
                THEN ARRAY['-i', c.action, c.entity]
                     || CASE WHEN c.action = 'modify' THEN ARRAY['where'] ELSE '{}'::text[] END || c.keys
                     || CASE WHEN c.action = 'modify' THEN ARRAY['set'] ELSE '{}'::text[] END || c.attributes END,
           CASE WHEN c.problem IS NULL
                THEN 'sacctmgr -i ' || c.action || ' ' || c.entity
                     || CASE WHEN c.action = 'modify' THEN ' where ' ELSE ' ' END || array_to_string(c.keys, ' ')
                     || CASE WHEN c.action = 'modify' THEN ' set ' ELSE ' ' END || array_to_string(c.attributes, ' ') END,
           c.reason,
           CASE WHEN c.problem IS NOT NULL THEN 'refused: ' || c.problem END
      FROM checked c ORDER BY c.step, c.depth, c.account, c.user_name;
    DROP TABLE pg_temp._fs_dec_assoc, pg_temp._fs_dec_tres, pg_temp._fs_dec_qos;
END
$$;
COMMENT ON FUNCTION @extschema@.slurm_decisions(text, timestamptz) IS
'What makes the cluster''s slurmdbd hold fairshare''s decisions (accounts, Fairshare, GENCI GrpTRESMins net of take-backs, 0 when overdrawn, RWTH blocks and QOS, ended allocations): one row each, with sacctmgr''s argument vector and its reason; refused with why when a name is not one sacctmgr takes as one argument; none when slurmdbd matches.';
