-- ---------------------------------------------------------------------------
-- security: roles, privileges and row-level security (docs/security.md).
-- The last piece of the install script, so that its loops cover every
-- object the pieces before it created; a piece added later before this one
-- is covered without an edit here.
--
--   fairshare_admin   manages the model (clusters, partitions, QOS,
--                     accounts, users, jobs, allocations), appends to the
--                     ledger, runs the regulation procedure and the imports
--   fairshare_reader  reads every table, view and function (reports, BI)
--   fairshare_user    a cluster user: the configuration, the pure policy
--                     functions, and only its own jobs, usage, sshare and
--                     sprio rows (Slurm's PrivateData=jobs,usage,users)
--
-- A database role stands for the scheduler user of the same name:
-- jobs.user_name = the role name.  Row-level security on every table with a
-- user_name column shows a plain user the rows whose user_name is
-- CURRENT_USER.  Fair share and priority are computed over everyone's usage,
-- which a plain user may not read: the my_* functions below are SECURITY
-- DEFINER (owned by the superuser that ran CREATE EXTENSION, so they read
-- every row), compute over everything and return the caller's rows only.
-- Inside them CURRENT_USER is their owner; the caller is the role of the
-- session, my_user_name(): the role set with SET ROLE, else the login role
-- (SESSION_USER) -- the same role as CURRENT_USER outside SECURITY DEFINER
-- functions.
--
-- Nothing here needs a superuser after CREATE EXTENSION: the three roles
-- are group roles (NOLOGIN); a DBA grants them to login roles.
-- ---------------------------------------------------------------------------

-- Install-script safety (docs/security.md#install-script-safety).  During
-- CREATE EXTENSION the search path is "fairshare, pg_temp" with pg_catalog
-- searched first: objects in public cannot capture anything, but objects
-- already in schema fairshare could (a better-typed overload of a function
-- the script calls, e.g. _raise(text, text, text, float8)).  CREATE EXTENSION
-- reuses an existing schema of that name, whoever owns it.  So: the schema
-- must belong to a superuser, nobody else may create objects in it, and it
-- must hold nothing but this extension's objects.  Nothing the pieces above
-- created has run yet (no rows, no calls), so refusing here, which rolls the
-- whole script back, is in time.  An update does not run it again: by then
-- the schema holds the partitions and other objects the extension made at
-- run time.
-- @once
DO $$
DECLARE
    ext oid;
    nsp oid;
    owner_name text;
    owner_super boolean;
    bad text;
BEGIN
    SELECT e.oid, e.extnamespace INTO ext, nsp
      FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'fairshare';
    SELECT r.rolname, r.rolsuper INTO owner_name, owner_super
      FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
     WHERE n.oid OPERATOR(pg_catalog.=) nsp;
    IF NOT owner_super THEN
        RAISE EXCEPTION 'schema % belongs to role "%", who is not a superuser', nsp::pg_catalog.regnamespace, owner_name
            USING ERRCODE = '55000',
                  DETAIL = 'Its owner could rename it or plant objects that the extension''s functions would call.',
                  HINT = 'Check what the schema holds, drop it (or ALTER SCHEMA ... OWNER TO a superuser) and run CREATE EXTENSION again.';
    END IF;
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(COALESCE(r.rolname, 'PUBLIC')), ', ') INTO bad
      FROM pg_catalog.pg_namespace n
     CROSS JOIN LATERAL pg_catalog.aclexplode(n.nspacl) a
      LEFT JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
     WHERE n.oid OPERATOR(pg_catalog.=) nsp
       AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
       AND a.grantee OPERATOR(pg_catalog.<>) n.nspowner
       AND NOT COALESCE(r.rolsuper, false);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'schema % lets % create objects in it', nsp::pg_catalog.regnamespace, bad
            USING ERRCODE = '55000',
                  HINT = 'REVOKE CREATE ON SCHEMA from them (and drop what they created), then run CREATE EXTENSION again.';
    END IF;
    -- every object with a namespace depends on it; members also on the extension
    SELECT pg_catalog.string_agg(pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid), ', ') INTO bad
      FROM pg_catalog.pg_depend d
     WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
       AND d.refobjid OPERATOR(pg_catalog.=) nsp
       AND NOT (d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
                AND d.objid OPERATOR(pg_catalog.=) ext)
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend m
                        WHERE m.classid OPERATOR(pg_catalog.=) d.classid
                          AND m.objid OPERATOR(pg_catalog.=) d.objid
                          AND m.deptype OPERATOR(pg_catalog.=) 'e'
                          AND m.refobjid OPERATOR(pg_catalog.=) ext)
       -- statistics objects are never extension members (like indexes,
       -- they belong to their table): accept those on the extension's tables
       AND NOT EXISTS (SELECT FROM pg_catalog.pg_statistic_ext s
                         JOIN pg_catalog.pg_depend m
                           ON m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                          AND m.objid OPERATOR(pg_catalog.=) s.stxrelid
                          AND m.deptype OPERATOR(pg_catalog.=) 'e'
                          AND m.refobjid OPERATOR(pg_catalog.=) ext
                        WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass
                          AND s.oid OPERATOR(pg_catalog.=) d.objid);
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'schema % already holds objects that are not part of the extension: %', nsp::pg_catalog.regnamespace, bad
            USING ERRCODE = '55000',
                  HINT = 'Move or drop them, then run CREATE EXTENSION again: the extension''s own names must not be shadowed.';
    END IF;
END
$$;

-- The three group roles, created when missing.  Roles belong to the whole
-- cluster: DROP EXTENSION leaves them (and a second database reuses them).
-- A role that already exists is only accepted if it cannot defeat what is
-- granted below: not SUPERUSER, BYPASSRLS, CREATEROLE or REPLICATION, and no
-- non-superuser holding ADMIN OPTION on it (who could hand it out; on
-- PostgreSQL 16 the non-superuser who created a role holds that option).
DO $$
DECLARE
    role_name text;
    r record;
BEGIN
    FOREACH role_name IN ARRAY ARRAY['fairshare_admin', 'fairshare_reader', 'fairshare_user'] LOOP
        SELECT a.rolsuper, a.rolbypassrls, a.rolcreaterole, a.rolreplication,
               (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(g.rolname), ', ')
                  FROM pg_catalog.pg_auth_members m
                  JOIN pg_catalog.pg_roles g ON g.oid OPERATOR(pg_catalog.=) m.member
                 WHERE m.roleid OPERATOR(pg_catalog.=) a.oid AND m.admin_option AND NOT g.rolsuper) AS admins
          INTO r
          FROM pg_catalog.pg_roles a WHERE a.rolname OPERATOR(pg_catalog.=) role_name;
        IF NOT FOUND THEN
            EXECUTE pg_catalog.format('CREATE ROLE %I NOLOGIN', role_name);
            EXECUTE pg_catalog.format('COMMENT ON ROLE %I IS %L', role_name,
                CASE role_name
                  WHEN 'fairshare_admin' THEN 'fairshare: manages clusters, accounts, users, jobs and allocations, runs regulation and imports'
                  WHEN 'fairshare_reader' THEN 'fairshare: reads every table, view and report'
                  ELSE 'fairshare: a cluster user, sees only its own jobs, usage, sshare and sprio rows' END);
        ELSIF r.rolsuper OR r.rolbypassrls OR r.rolcreaterole OR r.rolreplication OR r.admins IS NOT NULL THEN
            RAISE EXCEPTION 'role "%" already exists with powers the extension does not give it', role_name
                USING ERRCODE = '55000',
                      DETAIL = pg_catalog.format('superuser %s, bypassrls %s, createrole %s, replication %s, admin option held by %s',
                                                 r.rolsuper, r.rolbypassrls, r.rolcreaterole, r.rolreplication,
                                                 COALESCE(r.admins, 'nobody')),
                      HINT = 'fairshare creates this group role itself: drop it, or remove those attributes and ADMIN OPTION grants, then run CREATE EXTENSION again.';
        END IF;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Private views: the caller's rows, computed over everyone's usage
-- ---------------------------------------------------------------------------

-- The scheduler user the private views answer for: the session's role (the
-- one SET ROLE chose, else the login role).  Outside SECURITY DEFINER
-- functions this is CURRENT_USER, the role row-level security filters by.
CREATE FUNCTION @extschema@.my_user_name()
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
RETURN COALESCE(NULLIF(pg_catalog.current_setting('role'), 'none'), SESSION_USER::text);
COMMENT ON FUNCTION @extschema@.my_user_name() IS
'The user_name the private views (my_sshare, my_sprio, my_pbsfs) answer for: the role chosen with SET ROLE, else the login role.';

-- SECURITY DEFINER bodies are BEGIN ATOMIC: every name in them was bound
-- when the script ran, so neither search_path nor objects created later can
-- change what they call.
CREATE FUNCTION @extschema@.my_sshare_at(as_of timestamptz)
RETURNS SETOF @extschema@.sshare
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.* FROM @extschema@.sshare_at(my_sshare_at.as_of) s
     WHERE s.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_sshare_at(timestamptz) IS
'The caller''s user associations of sshare_at(as_of): fair share computed over every user, only the caller''s rows returned (Slurm PrivateData=usage). STRICT: NULL as_of gives no rows.';

-- The same under a scenario of the policy lab (docs/history.md#the-policy-lab):
-- the caller's rows of sshare_at(as_of, scenario).
CREATE FUNCTION @extschema@.my_sshare_at(as_of timestamptz, scenario text)
RETURNS SETOF @extschema@.sshare
LANGUAGE sql STABLE PARALLEL RESTRICTED SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
BEGIN ATOMIC
    SELECT s.* FROM @extschema@.sshare_at(my_sshare_at.as_of, my_sshare_at.scenario) s
     WHERE s.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_sshare_at(timestamptz, text) IS
'The caller''s user associations of sshare_at(as_of, scenario): a scenario of the policy lab, computed over every user, only the caller''s rows returned.';

CREATE VIEW @extschema@.my_sshare AS
SELECT * FROM @extschema@.my_sshare_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.my_sshare IS 'my_sshare_at(now()): the caller''s sshare rows.';

CREATE FUNCTION @extschema@.my_sprio_at(as_of timestamptz)
RETURNS SETOF @extschema@.sprio
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    -- sprio_at's columns from _sprio_rows, which plans its query with as_of
    -- known: sprio_at's own query, inlined here, would be planned with
    -- as_of unknown, which Citus cannot distribute (docs/citus.md)
    SELECT s.cluster, s.job_id, s.partition, s.user_name, s.account, s.qos, s.priority,
           s.age, s.fairshare, s.job_size, s.partition_prio, s.qos_prio, s.nice,
           s.age_weighted, s.fairshare_weighted, s.job_size_weighted, s.partition_weighted, s.qos_weighted,
           s.priority_exact, s.age_factor, s.fairshare_factor, s.job_size_factor, s.partition_factor, s.qos_factor,
           s.submit_time, s.eligible_time,
           @extschema@_internal._sprio_explanation(
                x_w_age => s.x_w_age, x_pending_s => s.x_pending_s, x_max_age_text => s.x_max_age_text,
                age_factor => s.age_factor, age_weighted => s.age_weighted, x_w_fs => s.x_w_fs,
                x_no_share => s.x_no_share, account => s.account, user_name => s.user_name,
                fairshare_factor => s.fairshare_factor, fairshare_weighted => s.fairshare_weighted, x_w_js => s.x_w_js,
                x_favor_small => s.x_favor_small, x_cpus => s.x_cpus, x_total_nodes => s.x_total_nodes,
                x_nodes => s.x_nodes, x_total_cpus => s.x_total_cpus, job_size_factor => s.job_size_factor,
                job_size_weighted => s.job_size_weighted, x_w_part => s.x_w_part, x_pjf => s.x_pjf,
                x_max_pjf => s.x_max_pjf, partition_factor => s.partition_factor, partition_weighted => s.partition_weighted,
                x_w_qos => s.x_w_qos, qos => s.qos, x_qos_priority => s.x_qos_priority,
                x_max_qos => s.x_max_qos, qos_factor => s.qos_factor, qos_weighted => s.qos_weighted,
                nice => s.nice, priority_exact => s.priority_exact, priority => s.priority)
      FROM @extschema@_internal._sprio_rows(my_sprio_at.as_of) s
     WHERE s.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_sprio_at(timestamptz) IS
'The caller''s pending jobs of sprio_at(as_of), their priority computed over every user''s usage (Slurm PrivateData=jobs). STRICT: NULL as_of gives no rows.';

-- The caller's pending jobs of sprio_at(as_of, scenario).
CREATE FUNCTION @extschema@.my_sprio_at(as_of timestamptz, scenario text)
RETURNS SETOF @extschema@.sprio
LANGUAGE sql STABLE PARALLEL RESTRICTED SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
BEGIN ATOMIC
    SELECT s.* FROM @extschema@.sprio_at(my_sprio_at.as_of, my_sprio_at.scenario) s
     WHERE s.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_sprio_at(timestamptz, text) IS
'The caller''s pending jobs of sprio_at(as_of, scenario): a scenario of the policy lab, priorities computed over every user, only the caller''s jobs returned.';

CREATE VIEW @extschema@.my_sprio AS
SELECT * FROM @extschema@.my_sprio_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.my_sprio IS 'my_sprio_at(now()): the caller''s pending jobs and their priority factors.';

CREATE FUNCTION @extschema@.my_pbsfs_at(as_of timestamptz)
RETURNS SETOF @extschema@.pbsfs
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.* FROM @extschema@.pbsfs_at(my_pbsfs_at.as_of) s
     WHERE s.is_user AND s.entity OPERATOR(pg_catalog.=) @extschema@.my_user_name();
END;
COMMENT ON FUNCTION @extschema@.my_pbsfs_at(timestamptz) IS
'The caller''s entities of pbsfs_at(as_of) (PBS / MetaCentrum fair share), computed over every user. STRICT: NULL as_of gives no rows.';

CREATE VIEW @extschema@.my_pbsfs AS
SELECT * FROM @extschema@.my_pbsfs_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.my_pbsfs IS 'my_pbsfs_at(now()): the caller''s PBS fair-share rows.';

-- A project leader's statements (account_leaders): the monthly statements
-- of the allocations of the accounts the caller leads (statements.sql).
CREATE FUNCTION @extschema@.my_allocation_statements(in_month date, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (allocation_id bigint, cluster text, account text, policy text, month date,
               line integer, item text, user_name text, day date, hours float8, note text)
LANGUAGE sql STABLE STRICT PARALLEL SAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT s.allocation_id, s.cluster, s.account, s.policy, s.month, s.line, s.item, s.user_name, s.day, s.hours, s.note
      FROM @extschema@.allocation_statements(my_allocation_statements.in_month, my_allocation_statements.as_of) s
     WHERE EXISTS (SELECT FROM @extschema@.account_leaders l
                    WHERE l.cluster OPERATOR(pg_catalog.=) s.cluster AND l.account OPERATOR(pg_catalog.=) s.account
                      AND l.user_name OPERATOR(pg_catalog.=) @extschema@.my_user_name());
END;
COMMENT ON FUNCTION @extschema@.my_allocation_statements(date, timestamptz) IS
'The monthly statements (allocation_statements) of the allocations of the accounts the caller leads (account_leaders), computed with the definer''s rights. STRICT: NULL arguments give no rows.';

-- ---------------------------------------------------------------------------
-- Grants.  Loops over the extension's members; the few exceptions are named.
-- ---------------------------------------------------------------------------
DO $$
DECLARE
    ext oid;
    r record;
    cols text;
    -- functions a plain user may call beyond the pure (IMMUTABLE) ones:
    -- each reads only what row-level security lets the caller see and
    -- computes every row from that row's own data, so it is right for the
    -- caller's rows (the tree functions are not: see my_*)
    user_functions text[] := ARRAY[
        'association_usage_at(timestamp with time zone)',
        '_association_usage(timestamp with time zone, boolean, text)',
        -- the decay law as of an instant, piecewise over its changes
        -- (docs/history.md#the-decay-as-of-an-instant)
        '_association_usage(timestamp with time zone, boolean, text, timestamp with time zone)',
        '_decay_law_changed(text, timestamp with time zone)',
        '_clusters_decay_law_at(timestamp with time zone)',
        -- and over the changes of a QOS's UsageFactor
        '_usage_factor_changed(text, timestamp with time zone)',
        '_usage_law_changed(text, timestamp with time zone)',
        -- the checkpoints' rows it reads, a sparse one's with its base's
        '_checkpoint_rows(text[], timestamp with time zone[])',
        '_slurmctld_starts(text)',
        'metacentrum_job_usage_at(timestamp with time zone)',
        'metacentrum_user_usage_at(timestamp with time zone)',
        'bi_metacentrum_job_usage_at(timestamp with time zone)',
        'my_user_name()',
        'my_sshare_at(timestamp with time zone)',
        'my_sprio_at(timestamp with time zone)',
        'my_sshare_at(timestamp with time zone, text)',
        'my_sprio_at(timestamp with time zone, text)',
        'my_pbsfs_at(timestamp with time zone)',
        'my_allocation_statements(date, timestamp with time zone)',
        -- the scenario of the report running, read by the usage and the
        -- settings readers every report goes through (none outside the lab)
        '_scenario()', '_scenario_settings(text, text, text)', '_clusters_scenario()',
        '_scenario_overrides(text, text[])'];
    -- what a plain user may read: the configuration those functions need,
    -- the views over them, and (added below) every table with a user_name
    -- column, filtered to the caller's rows
    user_relations text[] := ARRAY[
        'clusters', 'partitions', 'qos', 'pbs_settings', 'slurmctld_starts',
        -- their history, which sprio_at reads (docs/history.md#the-history-of-the-settings)
        'settings_history',
        -- the lab's overrides, which the readers consult (none apply
        -- outside a scenario's report)
        'scenario_settings',
        'job_billing', 'association_usage', 'metacentrum_job_usage', 'metacentrum_user_usage',
        -- the BI forms of what a plain user reads already: the usage
        -- rollups (its own rows) and the PBS job usage
        -- (docs/reports.md#bi-tools)
        'bi_usage_hourly', 'bi_usage_daily', 'bi_usage_monthly', 'bi_metacentrum_job_usage',
        -- when and whether each cluster's usage checkpoint holds (its rows,
        -- per user, are filtered like jobs); not why (user_hidden_columns)
        'usage_checkpoints',
        'my_sshare', 'my_sprio', 'my_pbsfs'];
    -- columns of those relations a plain user may not read: why a
    -- checkpoint was invalidated names the job that did it ("INSERT on
    -- jobs: job 42, ..."), which PrivateData=jobs hides from other users.
    -- The user gets SELECT on the other columns only.
    user_hidden_columns text[] := ARRAY['usage_checkpoints.invalidated_by'];
    -- journals: the administrator appends, never changes or removes
    append_only text[] := ARRAY['ledger', 'regulation_checks'];
    -- columns the administrator may not change once a row exists:
    -- an allocation's initial grant (changes go to the ledger)
    fixed_columns text[] := ARRAY['allocations.hours'];
BEGIN
    SELECT e.oid INTO ext FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'fairshare';

    EXECUTE 'REVOKE ALL ON SCHEMA @extschema@ FROM PUBLIC';
    EXECUTE 'GRANT USAGE ON SCHEMA @extschema@ TO fairshare_admin, fairshare_reader, fairshare_user';
    -- the private routines run with the caller's rights inside the public
    -- ones, so the roles reach them too, with the same grants by volatility
    EXECUTE 'REVOKE ALL ON SCHEMA @extschema@_internal FROM PUBLIC';
    EXECUTE 'GRANT USAGE ON SCHEMA @extschema@_internal TO fairshare_admin, fairshare_reader, fairshare_user';

    -- Routines.  CREATE FUNCTION grants EXECUTE to PUBLIC: take it back from
    -- every one, then by volatility: IMMUTABLE functions read only their
    -- arguments (everyone), STABLE ones read the model (reader, admin),
    -- VOLATILE ones and procedures write (admin).  Trigger functions need
    -- no grant.  SECURITY DEFINER functions get only the grants named here.
    EXECUTE 'REVOKE ALL ON ALL ROUTINES IN SCHEMA @extschema@ FROM PUBLIC';
    EXECUTE 'REVOKE ALL ON ALL ROUTINES IN SCHEMA @extschema@_internal FROM PUBLIC';
    FOR r IN
        SELECT p.oid, p.provolatile, p.prokind, p.prosecdef,
               pg_catalog.format('%I.%I(%s)', n.nspname, p.proname,
                                 pg_catalog.oidvectortypes(p.proargtypes)) AS sig,
               pg_catalog.format('%s(%s)', p.proname, pg_catalog.oidvectortypes(p.proargtypes)) AS local_sig
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) d.objid
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=) ext AND d.deptype OPERATOR(pg_catalog.=) 'e'
           AND p.prorettype OPERATOR(pg_catalog.<>) 'pg_catalog.trigger'::pg_catalog.regtype
    LOOP
        IF r.prosecdef THEN
            IF r.local_sig OPERATOR(pg_catalog.=) ANY (user_functions) THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin, fairshare_reader, fairshare_user', r.sig);
            END IF;
        ELSIF r.prokind OPERATOR(pg_catalog.=) 'p' OR r.provolatile OPERATOR(pg_catalog.=) 'v' THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin', r.sig);
        ELSIF r.provolatile OPERATOR(pg_catalog.=) 's' THEN
            EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin, fairshare_reader', r.sig);
            IF r.local_sig OPERATOR(pg_catalog.=) ANY (user_functions) THEN
                EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_user', r.sig);
            END IF;
        ELSE
            EXECUTE pg_catalog.format('GRANT EXECUTE ON ROUTINE %s TO fairshare_admin, fairshare_reader, fairshare_user', r.sig);
        END IF;
    END LOOP;
    -- The one VOLATILE routine a reader runs: it sets fairshare.scenario for
    -- the duration of the scenario report calling it, as the report's SET
    -- clause does, and writes nothing (lab.c).
    EXECUTE 'GRANT EXECUTE ON ROUTINE @extschema@_internal._scenario_enter(text) TO fairshare_reader';

    -- Relations.
    FOR r IN
        SELECT c.oid, c.relname, c.relkind, c.relispartition,
               pg_catalog.format('%I.%I', n.nspname, c.relname) AS name,
               EXISTS (SELECT FROM pg_catalog.pg_attribute a
                        WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND NOT a.attisdropped
                          AND a.attname OPERATOR(pg_catalog.=) 'user_name') AS per_user
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d.objid
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=) ext AND d.deptype OPERATOR(pg_catalog.=) 'e'
           AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', r.name);
        -- a partition (jobs_default) is read and written through its
        -- parent, whose grants and policies apply; it gets no grant of its
        -- own, so that no role reads it past the parent's policies (the
        -- monthly partitions maintain_partitions makes get none either)
        IF r.relispartition THEN
            CONTINUE;
        END IF;
        IF r.relkind OPERATOR(pg_catalog.=) 'S' THEN
            -- identity columns take their values without these
            EXECUTE pg_catalog.format('GRANT SELECT ON SEQUENCE %s TO fairshare_reader', r.name);
            EXECUTE pg_catalog.format('GRANT USAGE, SELECT ON SEQUENCE %s TO fairshare_admin', r.name);
            CONTINUE;
        END IF;
        EXECUTE pg_catalog.format('GRANT SELECT ON %s TO fairshare_admin, fairshare_reader', r.name);
        IF EXISTS (SELECT FROM pg_catalog.unnest(user_hidden_columns) f
                    WHERE f OPERATOR(pg_catalog.^@) (r.relname OPERATOR(pg_catalog.||) '.')) THEN
            SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
              FROM pg_catalog.pg_attribute a
             WHERE a.attrelid OPERATOR(pg_catalog.=) r.oid AND a.attnum OPERATOR(pg_catalog.>) 0
               AND NOT a.attisdropped
               AND (r.relname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) a.attname)
                   OPERATOR(pg_catalog.<>) ALL (user_hidden_columns);
            EXECUTE pg_catalog.format('GRANT SELECT (%s) ON %s TO fairshare_user', cols, r.name);
        ELSIF r.relname OPERATOR(pg_catalog.=) ANY (user_relations) OR (r.per_user AND r.relkind IN ('r', 'p')) THEN
            EXECUTE pg_catalog.format('GRANT SELECT ON %s TO fairshare_user', r.name);
        END IF;
        IF r.relkind IN ('v', 'm') THEN
            -- a view reads its tables with the caller's rights and row
            -- filters, never with its owner's (a superuser, who sees all)
            IF r.relkind OPERATOR(pg_catalog.=) 'v' THEN
                EXECUTE pg_catalog.format('ALTER VIEW %s SET (security_invoker = true)', r.name);
            END IF;
            CONTINUE;
        END IF;

        -- base tables: what the administrator may write
        IF r.relname OPERATOR(pg_catalog.=) ANY (append_only) THEN
            -- INSERT on every column but the identity and the stamps of
            -- who and when (DEFAULT CURRENT_USER / now()), which the
            -- administrator cannot forge
            SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
              FROM pg_catalog.pg_attribute a
              LEFT JOIN pg_catalog.pg_attrdef df
                ON df.adrelid OPERATOR(pg_catalog.=) a.attrelid AND df.adnum OPERATOR(pg_catalog.=) a.attnum
             WHERE a.attrelid OPERATOR(pg_catalog.=) r.oid AND a.attnum OPERATOR(pg_catalog.>) 0
               AND NOT a.attisdropped AND a.attidentity OPERATOR(pg_catalog.=) ''
               AND COALESCE(pg_catalog.pg_get_expr(df.adbin, df.adrelid) NOT IN ('CURRENT_USER', 'now()'), true);
            EXECUTE pg_catalog.format('GRANT INSERT (%s) ON %s TO fairshare_admin', cols, r.name);
        ELSE
            EXECUTE pg_catalog.format('GRANT INSERT, DELETE ON %s TO fairshare_admin', r.name);
            IF EXISTS (SELECT FROM pg_catalog.unnest(fixed_columns) f
                        WHERE f OPERATOR(pg_catalog.^@) (r.relname OPERATOR(pg_catalog.||) '.')) THEN
                SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
                  FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid OPERATOR(pg_catalog.=) r.oid AND a.attnum OPERATOR(pg_catalog.>) 0
                   AND NOT a.attisdropped
                   AND (r.relname OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) a.attname)
                       OPERATOR(pg_catalog.<>) ALL (fixed_columns);
                EXECUTE pg_catalog.format('GRANT UPDATE (%s) ON %s TO fairshare_admin', cols, r.name);
            ELSE
                EXECUTE pg_catalog.format('GRANT UPDATE ON %s TO fairshare_admin', r.name);
            END IF;
        END IF;

        -- Slurm's PrivateData: a plain user sees its own rows; readers and
        -- the administrator see every row
        IF r.per_user THEN
            EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', r.name);
            EXECUTE pg_catalog.format('DROP POLICY IF EXISTS fairshare_reader_all ON %s', r.name);
            EXECUTE pg_catalog.format('CREATE POLICY fairshare_reader_all ON %s FOR SELECT TO fairshare_reader USING (true)', r.name);
            EXECUTE pg_catalog.format('DROP POLICY IF EXISTS fairshare_admin_all ON %s', r.name);
            EXECUTE pg_catalog.format('CREATE POLICY fairshare_admin_all ON %s FOR ALL TO fairshare_admin USING (true) WITH CHECK (true)', r.name);
            EXECUTE pg_catalog.format('DROP POLICY IF EXISTS fairshare_user_own ON %s', r.name);
            EXECUTE pg_catalog.format('CREATE POLICY fairshare_user_own ON %s FOR SELECT TO fairshare_user '
                                      'USING (user_name OPERATOR(pg_catalog.=) CURRENT_USER::text)', r.name);
        END IF;
    END LOOP;
END
$$;

-- ---------------------------------------------------------------------------
-- Every PL/pgSQL function of the extension runs with jit = off.
--
-- PostgreSQL compiles a query with LLVM when its estimated cost is above
-- jit_above_cost (and inlines and optimises it above 500,000), and JIT is on
-- in a stock server.  The queries inside these routines read functions and
-- trees whose row counts the planner can only guess, so their estimates are
-- far above what they cost, and compiling them took longer than running
-- them: at 10^7 jobs with jit on, sprio_at took 17 s instead of 4.3 s and
-- sshare_at 7.6 s instead of 1.8 s (docs/performance.md#jit).  A SQL function
-- that PostgreSQL inlines into the calling query is left alone (a SET clause
-- would keep it from being inlined): that query follows the session's
-- setting.  So is a procedure: one with a SET clause cannot commit
-- (maintain_partitions and retain_jobs do), and their heavy queries run in
-- the functions they call.  Run last, so that it sees every function; an
-- upgrade script that adds functions runs it again.
-- ---------------------------------------------------------------------------
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN
        SELECT p.oid::pg_catalog.regprocedure AS routine
          FROM pg_catalog.pg_proc p
          JOIN pg_catalog.pg_language l ON l.oid OPERATOR(pg_catalog.=) p.prolang
          JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) p.pronamespace
         WHERE n.nspname OPERATOR(pg_catalog.=) ANY (ARRAY['@extschema@', '@extschema@_internal']::pg_catalog.name[])
           AND l.lanname OPERATOR(pg_catalog.=) 'plpgsql'
           AND p.prokind OPERATOR(pg_catalog.=) 'f'
         ORDER BY p.oid
    LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET jit = off', r.routine);
    END LOOP;
END
$$;
