-- security: the three roles, what each may do (invariants over every
-- object, so objects added later are covered), row-level security as
-- Slurm's PrivateData, the private views computed over everyone, and the
-- append-only ledger.  Everything runs in one transaction that is rolled
-- back: the roles and the centre below leave nothing behind.  Rejected
-- statements show their SQLSTATE through err() (install.sql).
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;

-- ===========================================================================
-- 1. Invariants (each query lists the violators; none expected)
-- ===========================================================================
CREATE TEMP VIEW fs_members AS
SELECT d.classid, d.objid
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'fairshare');
CREATE TEMP VIEW fs_routines AS
SELECT p.* FROM pg_proc p JOIN fs_members m ON m.classid = 'pg_proc'::regclass AND m.objid = p.oid;
CREATE TEMP VIEW fs_relations AS
SELECT c.* FROM pg_class c JOIN fs_members m ON m.classid = 'pg_class'::regclass AND m.objid = c.oid;

-- the group roles: no login, no power beyond what the extension grants
SELECT rolname, rolcanlogin, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls
  FROM pg_roles WHERE rolname LIKE 'fairshare\_%' ORDER BY 1;

-- every object has the grants its kind calls for (a partition of jobs
-- none: it is read and written through jobs, checked below)
SELECT what, role, privilege AS missing
  FROM (
    -- the reader reads every table, view and sequence
    SELECT c.oid::regclass::text AS what, 'fairshare_reader' AS role, 'SELECT' AS privilege
      FROM fs_relations c
     WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S') AND NOT c.relispartition
       AND NOT CASE WHEN c.relkind = 'S' THEN has_sequence_privilege('fairshare_reader', c.oid, 'SELECT')
                    ELSE has_table_privilege('fairshare_reader', c.oid, 'SELECT') END
    UNION ALL
    -- the administrator reads everything and writes every table
    SELECT c.oid::regclass::text, 'fairshare_admin', p
      FROM fs_relations c, unnest(ARRAY['SELECT', 'INSERT']) p
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND NOT has_any_column_privilege('fairshare_admin', c.oid, p)
    UNION ALL
    SELECT c.oid::regclass::text, 'fairshare_admin', p
      FROM fs_relations c, unnest(ARRAY['UPDATE', 'DELETE']) p
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname NOT IN ('ledger', 'regulation_checks')
       AND NOT CASE p WHEN 'DELETE' THEN has_table_privilege('fairshare_admin', c.oid, p)
                      ELSE has_any_column_privilege('fairshare_admin', c.oid, p) END
    UNION ALL
    SELECT c.oid::regclass::text, 'fairshare_admin', 'SELECT'
      FROM fs_relations c
     WHERE c.relkind IN ('v', 'm') AND NOT has_table_privilege('fairshare_admin', c.oid, 'SELECT')
    UNION ALL
    -- every routine but trigger functions is the administrator's to call
    SELECT p.oid::regprocedure::text, 'fairshare_admin', 'EXECUTE'
      FROM fs_routines p
     WHERE p.prorettype <> 'trigger'::regtype AND NOT has_function_privilege('fairshare_admin', p.oid, 'EXECUTE')
    UNION ALL
    -- the reader calls everything that only reads
    SELECT p.oid::regprocedure::text, 'fairshare_reader', 'EXECUTE'
      FROM fs_routines p
     WHERE p.prorettype <> 'trigger'::regtype AND p.provolatile <> 'v' AND p.prokind <> 'p'
       AND NOT has_function_privilege('fairshare_reader', p.oid, 'EXECUTE')
    UNION ALL
    -- a plain user calls every pure function
    SELECT p.oid::regprocedure::text, 'fairshare_user', 'EXECUTE'
      FROM fs_routines p
     WHERE p.provolatile = 'i' AND NOT has_function_privilege('fairshare_user', p.oid, 'EXECUTE')
    UNION ALL
    SELECT 'schema fairshare', r, 'USAGE'
      FROM unnest(ARRAY['fairshare_admin', 'fairshare_reader', 'fairshare_user']) r
     WHERE NOT has_schema_privilege(r, 'fairshare', 'USAGE')
    UNION ALL
    -- a table holding per-user rows filters them (PrivateData) ...
    SELECT c.oid::regclass::text, 'fairshare_user', 'ROW LEVEL SECURITY'
      FROM fs_relations c
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND NOT c.relrowsecurity
       AND EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_name' AND NOT a.attisdropped)
    UNION ALL
    -- ... with a policy for each role
    SELECT c.oid::regclass::text, r, 'POLICY'
      FROM fs_relations c, unnest(ARRAY['fairshare_admin', 'fairshare_reader', 'fairshare_user']) r
     WHERE c.relrowsecurity
       AND NOT EXISTS (SELECT FROM pg_policy pol WHERE pol.polrelid = c.oid AND r::regrole = ANY (pol.polroles))
    UNION ALL
    -- a view reads with the caller's rights, never with its owner's
    SELECT c.oid::regclass::text, '(view)', 'security_invoker'
      FROM fs_relations c
     WHERE c.relkind = 'v' AND NOT coalesce('security_invoker=true' = ANY (c.reloptions), false)
  ) x
 ORDER BY 1, 2, 3;

-- no object gives anything it should not
SELECT what, grantee, privilege AS unexpected
  FROM (
    -- PUBLIC gets nothing; nobody but the owner creates in the schema
    SELECT 'schema fairshare' AS what, coalesce(a.grantee::regrole::text, 'PUBLIC') AS grantee, a.privilege_type AS privilege
      FROM pg_namespace n, aclexplode(n.nspacl) a
     WHERE n.nspname = 'fairshare' AND a.grantee <> n.nspowner
       AND (a.grantee = 0 OR a.privilege_type <> 'USAGE')
    UNION ALL
    SELECT c.oid::regclass::text, 'PUBLIC', a.privilege_type
      FROM fs_relations c, aclexplode(c.relacl) a WHERE a.grantee = 0
    UNION ALL
    SELECT p.oid::regprocedure::text, 'PUBLIC', a.privilege_type
      FROM fs_routines p, aclexplode(p.proacl) a WHERE a.grantee = 0
    UNION ALL
    -- routines with no ACL at all still carry the default EXECUTE for PUBLIC
    SELECT p.oid::regprocedure::text, 'PUBLIC', 'EXECUTE (default)'
      FROM fs_routines p WHERE p.proacl IS NULL
    UNION ALL
    -- nobody truncates, references or adds triggers; nobody changes the journals
    SELECT c.oid::regclass::text, a.grantee::regrole::text, a.privilege_type
      FROM fs_relations c, aclexplode(c.relacl) a
     WHERE a.grantee <> c.relowner
       AND (a.privilege_type IN ('TRUNCATE', 'REFERENCES', 'TRIGGER')
            OR (c.relname IN ('ledger', 'regulation_checks') AND a.privilege_type IN ('UPDATE', 'DELETE', 'INSERT')))
    UNION ALL
    SELECT c.oid::regclass::text || '.' || att.attname, a.grantee::regrole::text, a.privilege_type
      FROM fs_relations c JOIN pg_attribute att ON att.attrelid = c.oid, aclexplode(att.attacl) a
     WHERE a.grantee <> c.relowner
       AND (a.privilege_type IN ('REFERENCES', 'UPDATE') AND c.relname IN ('ledger', 'regulation_checks')
            OR (c.relname, att.attname) IN (('ledger', 'entry_id'), ('ledger', 'recorded_at'), ('ledger', 'recorded_by'),
                                            ('regulation_checks', 'checked_at'), ('regulation_checks', 'checked_by')))
    UNION ALL
    -- what writes is the administrator's only (one exception, a reader's:
    -- _scenario_enter sets fairshare.scenario for the duration of the
    -- scenario report calling it and writes nothing; lab.c)
    SELECT p.oid::regprocedure::text, r, 'EXECUTE'
      FROM fs_routines p, unnest(ARRAY['fairshare_reader', 'fairshare_user']) r
     WHERE (p.provolatile = 'v' OR p.prokind = 'p') AND has_function_privilege(r, p.oid, 'EXECUTE')
       AND (p.oid, r) IS DISTINCT FROM ('fairshare_internal._scenario_enter(text)'::regprocedure, 'fairshare_reader')
    UNION ALL
    -- a partition of jobs (jobs_default, a month maintain_partitions made)
    -- gives nothing to anyone but its owner: read through a partition, the
    -- rows would escape jobs' row-level security
    SELECT c.oid::regclass::text, a.grantee::regrole::text, a.privilege_type
      FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid AND i.inhparent = 'fairshare.jobs'::regclass,
           aclexplode(c.relacl) a
     WHERE a.grantee <> c.relowner
    UNION ALL
    -- the initial grant of an allocation is not rewritten (changes go to the ledger)
    SELECT 'fairshare.allocations.hours', r, 'UPDATE'
      FROM unnest(ARRAY['fairshare_admin', 'fairshare_reader', 'fairshare_user']) r
     WHERE has_column_privilege(r, 'fairshare.allocations', 'hours', 'UPDATE')
  ) x
 ORDER BY 1, 2, 3;

-- Everything a plain user may read or call beyond the pure functions: the
-- configuration, its own rows of the per-user tables (row-level security),
-- the views computed from its own rows, and the private views.
SELECT c.relname, c.relkind, c.relrowsecurity AS own_rows_only
  FROM fs_relations c
 WHERE has_table_privilege('fairshare_user', c.oid, 'SELECT')
 ORDER BY 1;
-- ... and some columns of others: when and whether each usage checkpoint
-- holds, not invalidated_by, which names the job that invalidated it
-- (PrivateData=jobs hides other users' jobs)
SELECT c.relname, a.attname AS plain_user_may_read
  FROM fs_relations c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
 WHERE NOT has_table_privilege('fairshare_user', c.oid, 'SELECT')
   AND has_column_privilege('fairshare_user', c.oid, a.attnum, 'SELECT')
 ORDER BY 1, a.attnum;
SELECT p.oid::regprocedure AS plain_user_may_call, p.provolatile, p.prosecdef
  FROM fs_routines p
 WHERE p.provolatile <> 'i' AND has_function_privilege('fairshare_user', p.oid, 'EXECUTE')
 ORDER BY 1;

-- What the administrator may write, table by table (a journal takes
-- INSERTs only, and not of the columns that stamp who and when)
SELECT c.relname,
       CASE WHEN has_table_privilege('fairshare_admin', c.oid, 'INSERT') THEN 'all'
            WHEN has_any_column_privilege('fairshare_admin', c.oid, 'INSERT') THEN 'some columns' ELSE 'no' END AS ins,
       CASE WHEN has_table_privilege('fairshare_admin', c.oid, 'UPDATE') THEN 'all'
            WHEN has_any_column_privilege('fairshare_admin', c.oid, 'UPDATE') THEN 'some columns' ELSE 'no' END AS upd,
       has_table_privilege('fairshare_admin', c.oid, 'DELETE') AS del,
       has_table_privilege('fairshare_admin', c.oid, 'TRUNCATE') AS trunc
  FROM fs_relations c WHERE c.relkind IN ('r', 'p') ORDER BY 1;
SELECT att.attname AS ledger_column_admin_cannot_insert
  FROM pg_attribute att
 WHERE att.attrelid = 'fairshare.ledger'::regclass AND att.attnum > 0
   AND NOT has_column_privilege('fairshare_admin', 'fairshare.ledger', att.attname, 'INSERT')
 ORDER BY att.attnum;

-- SECURITY DEFINER functions: only the private views' own, each with a
-- fixed search_path and a body bound when the extension was created
SELECT p.oid::regprocedure AS security_definer, p.proconfig, p.prosqlbody IS NOT NULL AS bound_at_install,
       pg_get_userbyid(p.proowner) = (SELECT pg_get_userbyid(e.extowner) FROM pg_extension e
                                        WHERE e.extname = 'fairshare') AS owned_by_installer
  FROM fs_routines p WHERE p.prosecdef ORDER BY 1;

-- a body parsed at each call (plpgsql, SQL with a string body) runs under
-- a fixed search_path, so the caller's search_path cannot redirect it; but
-- a procedure that commits cannot have a SET clause: the two that commit
-- each month (history.sql) qualify every name they use instead
SELECT p.oid::regprocedure AS parsed_at_call_without_search_path
  FROM fs_routines p JOIN pg_language l ON l.oid = p.prolang
 WHERE (l.lanname = 'plpgsql' OR (l.lanname = 'sql' AND p.prosqlbody IS NULL))
   AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
   AND p.oid::regprocedure::text NOT IN ('fairshare.maintain_partitions(integer)', 'fairshare.retain_jobs(date,text)');

-- ===========================================================================
-- 2. A centre run by its administrator alone (no superuser after CREATE
--    EXTENSION).  Users map to roles by name: jobs.user_name = role name.
-- ===========================================================================
BEGIN;
CREATE ROLE regress_fs_admin IN ROLE fairshare_admin;
CREATE ROLE regress_fs_reader IN ROLE fairshare_reader;
CREATE ROLE regress_fs_alice IN ROLE fairshare_user;
CREATE ROLE regress_fs_bob IN ROLE fairshare_user;
CREATE ROLE regress_fs_carol IN ROLE fairshare_user;
CREATE ROLE regress_fs_nobody;
-- a portal that logs in as itself and acts for users with SET ROLE
CREATE ROLE regress_fs_portal;
GRANT regress_fs_alice, regress_fs_bob TO regress_fs_portal;

SET SESSION AUTHORIZATION regress_fs_admin;
SELECT current_user, session_user;

-- Cluster sec: Fair Tree without decay; only the fair-share weight, 1000.
-- Partition p bills the CPUs (no weights).  Accounts phys and chem, one
-- share each; alice and bob in phys, carol in chem.
INSERT INTO fairshare.clusters (cluster, decay_half_life, weight_fairshare) VALUES ('sec', '0', 1000);
INSERT INTO fairshare.partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb) VALUES ('sec', 'p', 2, 4, 16000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
  ('sec', 'root', NULL, 1), ('sec', 'phys', 'root', 1), ('sec', 'chem', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES
  ('sec', 'phys', 'regress_fs_alice', 1), ('sec', 'phys', 'regress_fs_bob', 1), ('sec', 'chem', 'regress_fs_carol', 1);
-- usage = CPUs × seconds: alice 1 × 3600 = 3600, bob 2 × 900 = 1800, carol 1 × 600 = 600;
-- then one pending job each, eligible at 11:30
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                            start_time, end_time, cpus) VALUES
  ('sec', '1', 'regress_fs_alice', 'phys', 'p', 'COMPLETED', '2026-01-05 09:00+00', '2026-01-05 09:00+00', '2026-01-05 10:00+00', '2026-01-05 11:00+00', 1),
  ('sec', '2', 'regress_fs_bob',   'phys', 'p', 'COMPLETED', '2026-01-05 09:00+00', '2026-01-05 09:00+00', '2026-01-05 10:00+00', '2026-01-05 10:15+00', 2),
  ('sec', '3', 'regress_fs_carol', 'chem', 'p', 'COMPLETED', '2026-01-05 09:00+00', '2026-01-05 09:00+00', '2026-01-05 10:00+00', '2026-01-05 10:10+00', 1),
  ('sec', '4', 'regress_fs_alice', 'phys', 'p', 'PENDING',   '2026-01-05 11:30+00', '2026-01-05 11:30+00', NULL, NULL, 1),
  ('sec', '5', 'regress_fs_bob',   'phys', 'p', 'PENDING',   '2026-01-05 11:30+00', '2026-01-05 11:30+00', NULL, NULL, 1),
  ('sec', '6', 'regress_fs_carol', 'chem', 'p', 'PENDING',   '2026-01-05 11:30+00', '2026-01-05 11:30+00', NULL, NULL, 1);
-- Cluster secpbs: PBS fair share, alice and bob in group grp, one job each
INSERT INTO fairshare.clusters (cluster, scheduler, fairshare_algorithm, decay_mode) VALUES ('secpbs', 'pbs', 'pbs', 'step');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('secpbs', 'q', 4, 16000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
  ('secpbs', 'root', NULL, 1), ('secpbs', 'grp', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES
  ('secpbs', 'grp', 'regress_fs_alice', 1), ('secpbs', 'grp', 'regress_fs_bob', 3);
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('secpbs', '1', 'regress_fs_alice', 'grp', 'q', 'COMPLETED', '2026-01-05 09:00+00', '2026-01-05 10:00+00', '2026-01-05 11:00+00', 1),
  ('secpbs', '2', 'regress_fs_bob',   'grp', 'q', 'COMPLETED', '2026-01-05 09:00+00', '2026-01-05 10:00+00', '2026-01-05 11:00+00', 2);
INSERT INTO fairshare.publications (user_name, title, published) VALUES
  ('regress_fs_alice', 'On fair share', '2025-12-01'), ('regress_fs_bob', 'On priority', '2025-12-02');

-- A GENCI allocation of 12000 h to chem for 2025, regulated by the
-- administrator.  No job in 2025: consumed 0.  On 15 March (73 days in:
-- 31 + 28 + 14) theoretical = 12000 × 73/365 = 2400, monthly = 12000/12 =
-- 1000, ratio = 2400/1000 = 2.4 > 2 in month 3: 1000 h taken back.  On
-- 15 February: 12000 × 45/365 = 1479.45, ratio 1.48: late, a warning.
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('sec', 'chem', 'genci', '2025-01-01', '2025-12-31', 12000);
CALL fairshare.apply_genci_regulation('2025-03-15', 'sec');
-- and adds 500 h by hand
INSERT INTO fairshare.ledger (allocation_id, kind, hours, reason, effective_date)
SELECT a.allocation_id, 'addition', 500, 'extension granted', '2025-04-01'
  FROM fairshare.allocations a WHERE a.cluster = 'sec';
SELECT l.kind, l.hours, l.rule, l.effective_date, l.recorded_by
  FROM fairshare.ledger l JOIN fairshare.allocations a USING (allocation_id)
 WHERE a.cluster = 'sec' ORDER BY l.entry_id;
SELECT n.kind, n.check_day, n.hours FROM fairshare.regulation_notifications n
 WHERE n.cluster = 'sec' ORDER BY n.check_day;
-- 12000 − 1000 + 500 = 11500
SELECT fairshare.allocation_net_hours(a.allocation_id, '2025-12-31') FROM fairshare.allocations a WHERE a.cluster = 'sec';
-- and imports a job from sacct (it starts after the instant used below)
SELECT fairshare.import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|AllocTRES|Submit|Eligible|Start|End|State'),
  ('7|regress_fs_carol|chem|p|1|cpu=1,node=1|2026-01-06T08:00:00|2026-01-06T08:00:00|2026-01-06T09:00:00|2026-01-06T09:10:00|COMPLETED');
SELECT lines_read, imported, rejected FROM fairshare.import_sacct('sec', 'UTC');
SELECT imported_by FROM fairshare.imports ORDER BY import_id DESC LIMIT 1;
-- the mailer stamps what it sent
UPDATE fairshare.regulation_notifications SET sent_at = '2025-03-15 08:00+00' WHERE cluster = 'sec';

-- What the administrator may not do, even so (42501 insufficient_privilege)
SELECT err($$UPDATE fairshare.ledger SET hours = 0$$);
SELECT err($$DELETE FROM fairshare.ledger$$);
SELECT err($$TRUNCATE fairshare.ledger$$);
SELECT err($$INSERT INTO fairshare.ledger (allocation_id, kind, hours, effective_date, recorded_by)
             SELECT allocation_id, 'addition', 1, '2025-05-01', 'someone_else' FROM fairshare.allocations WHERE cluster = 'sec'$$);
SELECT err($$INSERT INTO fairshare.ledger (allocation_id, kind, hours, effective_date, recorded_at)
             SELECT allocation_id, 'addition', 1, '2025-05-01', '2020-01-01' FROM fairshare.allocations WHERE cluster = 'sec'$$);
SELECT err($$ALTER TABLE fairshare.ledger DISABLE TRIGGER ledger_append_only$$);
SELECT err($$UPDATE fairshare.regulation_checks SET hours_taken = 0$$);
SELECT err($$DELETE FROM fairshare.regulation_checks$$);
SELECT err($$UPDATE fairshare.allocations SET hours = 99999 WHERE cluster = 'sec'$$);
SELECT err($$TRUNCATE fairshare.jobs$$);
SELECT err($$CREATE TABLE fairshare.planted (x int)$$);
SELECT err($$CREATE FUNCTION fairshare.now() RETURNS timestamptz LANGUAGE sql AS 'SELECT 0::timestamptz'$$);
SELECT err($$DROP TABLE fairshare.jobs$$);
-- nor remove or renumber an allocation the ledger refers to (23503)
SELECT err($$DELETE FROM fairshare.allocations WHERE cluster = 'sec'$$);
SELECT err($$UPDATE fairshare.allocations SET allocation_id = allocation_id + 1000 WHERE cluster = 'sec'$$);
-- but the allocation's other columns are the administrator's to fix
UPDATE fairshare.allocations SET justification_filed = '2025-02-01' WHERE cluster = 'sec';

-- Reference results, as the administrator sees them, for the comparisons
-- below (a temp table the other roles of this session may read)
CREATE TEMP TABLE admin_view AS
SELECT 'sshare' AS source, s.user_name, to_jsonb(s) AS r
  FROM fairshare.sshare_at('2026-01-05 12:00+00') s WHERE s.cluster = 'sec'
UNION ALL
SELECT 'sprio', s.user_name, to_jsonb(s) FROM fairshare.sprio_at('2026-01-05 12:00+00') s WHERE s.cluster = 'sec'
UNION ALL
SELECT 'pbsfs', s.entity, to_jsonb(s) FROM fairshare.pbsfs_at('2026-01-05 12:00+00') s WHERE s.cluster = 'secpbs' AND s.is_user
UNION ALL
SELECT 'association_usage', s.user_name, to_jsonb(s)
  FROM fairshare.association_usage_at('2026-01-05 12:00+00') s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'metacentrum_user_usage', s.user_name, to_jsonb(s)
  FROM fairshare.metacentrum_user_usage_at('2026-01-05 12:00+00') s WHERE s.cluster = 'secpbs'
UNION ALL
SELECT 'metacentrum_job_usage', s.user_name, to_jsonb(s)
  FROM fairshare.metacentrum_job_usage_at('2026-01-05 12:00+00') s WHERE s.cluster = 'secpbs'
UNION ALL
SELECT 'jobs', s.user_name, to_jsonb(s) FROM fairshare.jobs s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'job_billing', s.user_name, to_jsonb(s) FROM fairshare.job_billing s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'account_users', s.user_name, to_jsonb(s) FROM fairshare.account_users s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'publications', s.user_name, to_jsonb(s) - 'publication_id' FROM fairshare.publications s
 WHERE s.user_name LIKE 'regress\_fs\_%';
GRANT SELECT ON admin_view TO PUBLIC;

-- Fair Tree over everyone, by hand: at the root phys has S = 1/2 and
-- U = (3600 + 1800)/6000 = 0.9, Level FS 0.5556; chem S = 1/2, U = 0.1,
-- Level FS 5: chem first, carol (alone in chem: S = U = 1, Level FS 1)
-- rank 3 of 3 → 1.  In phys alice has
-- U = 3600/5400, Level FS 0.5/0.6667 = 0.75, bob U = 1/3, Level FS 1.5:
-- bob rank 2 → 2/3, alice rank 1 → 1/3.  Priority = 1000 × factor,
-- truncated: carol 1000, bob 666, alice 333.
SELECT user_name, account, raw_usage, round(fairshare::numeric, 6) AS fairshare, round(level_fs::numeric, 4) AS level_fs, fs_rank
  FROM fairshare.sshare_at('2026-01-05 12:00+00') WHERE cluster = 'sec' AND user_name IS NOT NULL ORDER BY user_name;
SELECT user_name, job_id, priority, fairshare FROM fairshare.sprio_at('2026-01-05 12:00+00') WHERE cluster = 'sec' ORDER BY user_name;
RESET SESSION AUTHORIZATION;

-- ===========================================================================
-- 3. The reader reads everything and writes nothing
-- ===========================================================================
SET SESSION AUTHORIZATION regress_fs_reader;
SELECT count(*) AS jobs_seen FROM fairshare.jobs WHERE cluster IN ('sec', 'secpbs');
SELECT count(*) AS sshare_rows FROM fairshare.sshare_at('2026-01-05 12:00+00') WHERE cluster = 'sec';
SELECT count(*) AS ledger_rows FROM fairshare.ledger l JOIN fairshare.allocations a USING (allocation_id) WHERE a.cluster = 'sec';
-- what the reader computes equals what the administrator computed
SELECT source, count(*) AS rows,
       count(*) FILTER (WHERE NOT EXISTS (SELECT FROM admin_view a WHERE a.source = x.source AND a.r = x.r)) AS differing
  FROM (SELECT 'sshare' AS source, to_jsonb(s) AS r FROM fairshare.sshare_at('2026-01-05 12:00+00') s WHERE s.cluster = 'sec'
        UNION ALL
        SELECT 'sprio', to_jsonb(s) FROM fairshare.sprio_at('2026-01-05 12:00+00') s WHERE s.cluster = 'sec'
        UNION ALL
        SELECT 'jobs', to_jsonb(s) FROM fairshare.jobs s WHERE s.cluster IN ('sec', 'secpbs')) x
 GROUP BY source ORDER BY source;
-- every view and report of the extension opens (rows of the two test clusters)
SELECT format('SELECT %L AS view, count(*) FILTER (WHERE cluster IN (''sec'', ''secpbs'')) AS rows FROM %s',
              c.relname, c.oid::regclass)
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'fairshare' AND c.relkind = 'v' AND c.relname NOT LIKE 'my\_%'
 ORDER BY c.relname \gexec
SELECT err($$INSERT INTO fairshare.clusters (cluster) VALUES ('x')$$);
SELECT err($$UPDATE fairshare.jobs SET nice = 1$$);
SELECT err($$DELETE FROM fairshare.account_users$$);
SELECT err($$INSERT INTO fairshare.ledger (allocation_id, kind, hours, effective_date) VALUES (1, 'addition', 1, '2025-01-01')$$);
SELECT err($$CALL fairshare.apply_genci_regulation('2025-03-15', 'sec')$$);
SELECT err($$SELECT nextval('fairshare.ledger_entry_id_seq')$$);
SELECT err($$SELECT fairshare.import_stage()$$);
SELECT err($$SELECT * FROM fairshare.import_sacct('sec', 'UTC')$$);
SELECT count(*) AS imports_seen FROM fairshare.imports WHERE cluster = 'sec';
-- the reader's own rows in the private views: it has no jobs
SELECT count(*) AS reader_my_sshare FROM fairshare.my_sshare_at('2026-01-05 12:00+00');
RESET SESSION AUTHORIZATION;
ANALYZE fairshare.jobs, fairshare.account_users, fairshare.publications, fairshare.partitions;

-- ===========================================================================
-- 4. A plain user: its own rows only (Slurm PrivateData), with the numbers
--    the administrator sees for it
-- ===========================================================================
SET SESSION AUTHORIZATION regress_fs_alice;
SELECT current_user, fairshare.my_user_name();
-- the tables: its own rows
SELECT cluster, job_id, user_name, state FROM fairshare.jobs ORDER BY cluster, job_id;
SELECT cluster, account, user_name FROM fairshare.account_users ORDER BY 1, 2;
SELECT user_name, title FROM fairshare.publications ORDER BY 1;
-- the private views: computed over everyone, its own rows returned
-- (fair share 1/3 and priority 333, as worked out above)
SELECT user_name, account, raw_usage, round(fairshare::numeric, 6) AS fairshare, fs_rank
  FROM fairshare.my_sshare_at('2026-01-05 12:00+00') WHERE cluster = 'sec';
SELECT user_name, job_id, priority FROM fairshare.my_sprio_at('2026-01-05 12:00+00') WHERE cluster = 'sec';
SELECT entity, account, shares FROM fairshare.my_pbsfs_at('2026-01-05 12:00+00') WHERE cluster = 'secpbs';
-- usage as the user computes it (association_usage reads only its own
-- jobs; each association's usage depends on its own jobs alone):
-- 1 CPU × 3600 s on sec; on secpbs (step decay) the same hour
SELECT cluster, account, user_name, raw_usage, jobs
  FROM fairshare.association_usage_at('2026-01-05 12:00+00') WHERE cluster IN ('sec', 'secpbs') ORDER BY 1;

-- Each view equals the administrator's rows for this user, and shows no
-- other user's row: "mine" counts the administrator's rows for alice,
-- "seen" what alice sees, "differing" her rows not among the
-- administrator's, "others" rows of other users she sees.
CREATE TEMP VIEW alice_sees AS
SELECT 'sshare' AS source, s.user_name, to_jsonb(s) AS r FROM fairshare.my_sshare_at('2026-01-05 12:00+00') s WHERE s.cluster = 'sec'
UNION ALL
SELECT 'sprio', s.user_name, to_jsonb(s) FROM fairshare.my_sprio_at('2026-01-05 12:00+00') s WHERE s.cluster = 'sec'
UNION ALL
SELECT 'pbsfs', s.entity, to_jsonb(s) FROM fairshare.my_pbsfs_at('2026-01-05 12:00+00') s WHERE s.cluster = 'secpbs'
UNION ALL
SELECT 'association_usage', s.user_name, to_jsonb(s)
  FROM fairshare.association_usage_at('2026-01-05 12:00+00') s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'metacentrum_user_usage', s.user_name, to_jsonb(s)
  FROM fairshare.metacentrum_user_usage_at('2026-01-05 12:00+00') s WHERE s.cluster = 'secpbs'
UNION ALL
SELECT 'metacentrum_job_usage', s.user_name, to_jsonb(s)
  FROM fairshare.metacentrum_job_usage_at('2026-01-05 12:00+00') s WHERE s.cluster = 'secpbs'
UNION ALL
SELECT 'jobs', s.user_name, to_jsonb(s) FROM fairshare.jobs s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'job_billing', s.user_name, to_jsonb(s) FROM fairshare.job_billing s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'account_users', s.user_name, to_jsonb(s) FROM fairshare.account_users s WHERE s.cluster IN ('sec', 'secpbs')
UNION ALL
SELECT 'publications', s.user_name, to_jsonb(s) - 'publication_id' FROM fairshare.publications s;
SELECT a.source,
       (SELECT count(*) FROM admin_view m WHERE m.source = a.source AND m.user_name = 'regress_fs_alice') AS mine,
       (SELECT count(*) FROM alice_sees s WHERE s.source = a.source) AS seen,
       (SELECT count(*) FROM alice_sees s WHERE s.source = a.source
           AND NOT EXISTS (SELECT FROM admin_view m WHERE m.source = s.source AND m.r = s.r)) AS differing,
       (SELECT count(*) FROM alice_sees s WHERE s.source = a.source
           AND s.user_name IS DISTINCT FROM 'regress_fs_alice') AS others
  FROM (SELECT DISTINCT source FROM admin_view) a ORDER BY 1;
-- the views over now() are the same functions at now()
SELECT count(*) AS my_sshare_now FROM fairshare.my_sshare WHERE cluster = 'sec';
SELECT count(*) AS my_sprio_now FROM fairshare.my_sprio WHERE cluster = 'sec';

-- What a plain user may not do (42501)
SELECT err($$SELECT * FROM fairshare.sshare$$);
SELECT err($$SELECT * FROM fairshare.sshare_at(now())$$);
SELECT err($$SELECT * FROM fairshare.sprio$$);
SELECT err($$SELECT * FROM fairshare.sprio_at(now())$$);
SELECT err($$SELECT * FROM fairshare.pbsfs_at(now())$$);
SELECT err($$SELECT * FROM fairshare.association_tree_at(now())$$);
SELECT err($$SELECT * FROM fairshare.sshare_explain('sec', 'regress_fs_alice', 'regress_fs_bob')$$);
SELECT err($$SELECT * FROM fairshare.start_next('[{"cluster": "sec", "partition": "p"}]')$$);
SELECT err($$SELECT * FROM fairshare.accounts$$);
SELECT err($$SELECT * FROM fairshare.allocations$$);
SELECT err($$SELECT * FROM fairshare.ledger$$);
SELECT err($$SELECT * FROM fairshare.genci_report$$);
SELECT err($$SELECT * FROM fairshare.regulation_notifications$$);
SELECT err($$SELECT fairshare.allocation_net_hours(1, '2025-12-31')$$);
SELECT err($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
             VALUES ('sec', '7', 'regress_fs_alice', 'phys', 'p', 'PENDING', now(), 1)$$);
SELECT err($$UPDATE fairshare.jobs SET nice = -10000 WHERE job_id = '4'$$);
SELECT err($$DELETE FROM fairshare.jobs WHERE job_id = '1'$$);
SELECT err($$UPDATE fairshare.account_users SET shares = 1000$$);
SELECT err($$CALL fairshare.apply_genci_regulation('2025-03-15', 'sec')$$);
SELECT err($$SELECT fairshare.import_stage()$$);
SELECT err($$SELECT * FROM fairshare.import_pbs('secpbs', 'UTC')$$);
SELECT err($$SELECT * FROM fairshare.import_rejects$$);
-- nor do the planner's statistics show other users' values
SELECT count(*) AS stats_of_private_tables FROM pg_stats
 WHERE schemaname = 'fairshare' AND tablename IN ('jobs', 'account_users', 'publications');
SELECT count(*) > 0 AS stats_of_partitions FROM pg_stats WHERE schemaname = 'fairshare' AND tablename = 'partitions';
-- turning row security off does not lift it: the query is refused
SET row_security = off;
SELECT err($$SELECT count(*) FROM fairshare.jobs$$);
RESET row_security;
-- the pure policy functions are everyone's
SELECT fairshare.tres_billing('cpu=4,mem=16G', 'CPU=1.0,Mem=0.25G') AS billing,  -- 4 + 16 × 0.25 = 8
       fairshare.theoretical_consumption(12000, '2025-01-01', '2025-12-31', '2025-03-15') AS theoretical;  -- 2400
RESET SESSION AUTHORIZATION;

-- ===========================================================================
-- 5. Who is "the user": the role in effect
-- ===========================================================================
-- SET ROLE: the role chosen (bob's rows), with the same numbers
SET ROLE regress_fs_bob;
-- the session's own role is whoever runs the suite (postgres, or the OS user
-- of a throwaway cluster): shown as "not bob", never by name
SELECT current_user, session_user <> current_user AS session_is_another_role, fairshare.my_user_name();
SELECT cluster, job_id FROM fairshare.jobs ORDER BY 1, 2;
SELECT user_name, round(fairshare::numeric, 6) AS fairshare FROM fairshare.my_sshare_at('2026-01-05 12:00+00') WHERE cluster = 'sec';
SELECT user_name, priority FROM fairshare.my_sprio_at('2026-01-05 12:00+00') WHERE cluster = 'sec';
RESET ROLE;
-- a portal logged in as itself sees nobody's rows ...
SET SESSION AUTHORIZATION regress_fs_portal;
SELECT count(*) AS portal_jobs FROM fairshare.jobs;
SELECT count(*) AS portal_sshare FROM fairshare.my_sshare_at('2026-01-05 12:00+00');
-- ... until it acts for a user it is a member of
SET ROLE regress_fs_alice;
SELECT current_user, session_user, fairshare.my_user_name();
SELECT count(*) AS portal_as_alice_jobs FROM fairshare.jobs;
SELECT user_name FROM fairshare.my_sshare_at('2026-01-05 12:00+00');
SELECT err($$SET ROLE regress_fs_carol$$);
RESET ROLE;
RESET SESSION AUTHORIZATION;
-- a role in none of the three groups cannot even look in the schema
SET SESSION AUTHORIZATION regress_fs_nobody;
SELECT err($$SELECT count(*) FROM fairshare.jobs$$);
SELECT err($$SELECT * FROM fairshare.my_sshare$$);
SELECT err($$SELECT fairshare.tres_billing('cpu=1', NULL)$$);
RESET SESSION AUTHORIZATION;

-- ===========================================================================
-- 6. The ledger is append-only for everyone: the owner too is refused
--    UPDATE, DELETE and TRUNCATE (its triggers, 55000)
-- ===========================================================================
SELECT err($$UPDATE fairshare.ledger SET hours = 0$$);
SELECT err($$DELETE FROM fairshare.ledger$$);
SELECT err($$TRUNCATE fairshare.ledger$$);
SELECT err($$TRUNCATE fairshare.allocations CASCADE$$);

ROLLBACK;
SELECT count(*) AS regress_roles_left FROM pg_roles WHERE rolname LIKE 'regress\_fs\_%';
