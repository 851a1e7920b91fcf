\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

-- security: the roles and their privileges (API shape), the private views,
-- and each denial with its SQLSTATE.  Everything rolls back, the roles the
-- test makes too.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SET LOCAL timezone = 'UTC';
SELECT plan(82);

-- ---------------------------------------------------------------------------
-- The group roles
-- ---------------------------------------------------------------------------
SELECT has_role('fairshare_admin');
SELECT has_role('fairshare_reader');
SELECT has_role('fairshare_user');
SELECT hasnt_user('fairshare_admin', 'fairshare_admin cannot log in');
SELECT hasnt_user('fairshare_reader', 'fairshare_reader cannot log in');
SELECT hasnt_user('fairshare_user', 'fairshare_user cannot log in');
SELECT isnt_superuser('fairshare_admin');
SELECT is((SELECT count(*) FROM pg_roles WHERE rolname LIKE 'fairshare\_%' AND (rolbypassrls OR rolcreaterole OR rolreplication)),
          0::bigint, 'no group role bypasses row security, creates roles or replicates');

-- ---------------------------------------------------------------------------
-- Privileges: the schema, some tables, columns, functions
-- ---------------------------------------------------------------------------
SELECT schema_privs_are('fairshare', 'fairshare_admin', ARRAY['USAGE'], 'admin: USAGE only on the schema (creates nothing in it)');
SELECT schema_privs_are('fairshare', 'fairshare_reader', ARRAY['USAGE']);
SELECT schema_privs_are('fairshare', 'fairshare_user', ARRAY['USAGE']);
SELECT schema_privs_are('fairshare', 'public', ARRAY[]::text[], 'PUBLIC: nothing on the schema');

SELECT table_privs_are('fairshare', 'jobs', 'fairshare_admin', ARRAY['DELETE', 'INSERT', 'SELECT', 'UPDATE']);
SELECT table_privs_are('fairshare', 'jobs', 'fairshare_reader', ARRAY['SELECT']);
SELECT table_privs_are('fairshare', 'jobs', 'fairshare_user', ARRAY['SELECT'], 'user: SELECT on jobs (its own rows)');
SELECT table_privs_are('fairshare', 'ledger', 'fairshare_admin', ARRAY['SELECT'], 'admin: no table-wide write on the ledger');
SELECT table_privs_are('fairshare', 'ledger', 'fairshare_user', ARRAY[]::text[]);
SELECT column_privs_are('fairshare', 'ledger', 'hours', 'fairshare_admin', ARRAY['INSERT', 'SELECT'],
                        'admin inserts ledger hours');
SELECT column_privs_are('fairshare', 'ledger', 'recorded_by', 'fairshare_admin', ARRAY['SELECT'],
                        'admin cannot write who recorded an entry');
SELECT column_privs_are('fairshare', 'ledger', 'recorded_at', 'fairshare_admin', ARRAY['SELECT'],
                        'admin cannot write when an entry was recorded');
SELECT column_privs_are('fairshare', 'allocations', 'hours', 'fairshare_admin', ARRAY['INSERT', 'SELECT'],
                        'admin cannot rewrite an allocation''s initial grant');
SELECT column_privs_are('fairshare', 'allocations', 'justification_filed', 'fairshare_admin', ARRAY['INSERT', 'SELECT', 'UPDATE']);
SELECT table_privs_are('fairshare', 'accounts', 'fairshare_user', ARRAY[]::text[], 'user: no account tree');
SELECT table_privs_are('fairshare', 'sshare', 'fairshare_user', ARRAY[]::text[], 'user: not the whole sshare');
SELECT table_privs_are('fairshare', 'my_sshare', 'fairshare_user', ARRAY['SELECT']);
SELECT table_privs_are('fairshare', 'sshare', 'fairshare_reader', ARRAY['SELECT']);

SELECT function_privs_are('fairshare', 'sshare_at', ARRAY['timestamp with time zone'], 'fairshare_user', ARRAY[]::text[]);
SELECT function_privs_are('fairshare', 'sshare_at', ARRAY['timestamp with time zone'], 'fairshare_reader', ARRAY['EXECUTE']);
SELECT function_privs_are('fairshare', 'my_sshare_at', ARRAY['timestamp with time zone'], 'fairshare_user', ARRAY['EXECUTE']);
SELECT function_privs_are('fairshare', 'tres_billing', ARRAY['text', 'text', 'text'], 'fairshare_user', ARRAY['EXECUTE'],
                          'user: the pure functions');
SELECT function_privs_are('fairshare', 'start_next', ARRAY['jsonb', 'timestamp with time zone', 'boolean'], 'fairshare_user', ARRAY[]::text[]);
SELECT function_privs_are('fairshare', 'apply_genci_regulation', ARRAY['date', 'text'], 'fairshare_reader', ARRAY[]::text[],
                          'reader: does not run the regulation');
SELECT function_privs_are('fairshare', 'apply_genci_regulation', ARRAY['date', 'text'], 'fairshare_admin', ARRAY['EXECUTE']);
SELECT function_privs_are('fairshare', 'import_stage', ARRAY['text'], 'fairshare_admin', ARRAY['EXECUTE'], 'admin: runs imports');
SELECT function_privs_are('fairshare', 'import_stage', ARRAY['text'], 'fairshare_reader', ARRAY[]::text[], 'reader: no imports');
SELECT table_privs_are('fairshare', 'import_rejects', 'fairshare_user', ARRAY[]::text[], 'user: not the rejected lines of others');
SELECT function_privs_are('fairshare', 'tres_billing', ARRAY['text', 'text', 'text'], 'public', ARRAY[]::text[],
                          'PUBLIC: no EXECUTE on the extension''s functions');

-- the private views' functions
SELECT is_definer('fairshare', 'my_sshare_at', ARRAY['timestamp with time zone']);
SELECT is_definer('fairshare', 'my_sprio_at', ARRAY['timestamp with time zone']);
SELECT is_definer('fairshare', 'my_pbsfs_at', ARRAY['timestamp with time zone']);
SELECT isnt_definer('fairshare', 'sshare_at', ARRAY['timestamp with time zone']);
SELECT isnt_definer('fairshare', 'my_user_name', ARRAY[]::text[]);
SELECT volatility_is('fairshare', 'my_sshare_at', ARRAY['timestamp with time zone'], 'stable');
SELECT is_strict('fairshare', 'my_sshare_at', ARRAY['timestamp with time zone']);
SELECT is_strict('fairshare', 'my_sprio_at', ARRAY['timestamp with time zone']);
SELECT is_strict('fairshare', 'my_pbsfs_at', ARRAY['timestamp with time zone']);

-- row-level security
SELECT policies_are('fairshare', 'jobs', ARRAY['fairshare_admin_all', 'fairshare_reader_all', 'fairshare_user_own']);
SELECT policy_roles_are('fairshare', 'jobs', 'fairshare_user_own', ARRAY['fairshare_user']);
SELECT policy_cmd_is('fairshare', 'jobs', 'fairshare_user_own', 'SELECT', 'user: a read-only policy on jobs');
SELECT policy_cmd_is('fairshare', 'jobs', 'fairshare_admin_all', 'ALL', 'admin: every command on jobs');
SELECT policies_are('fairshare', 'account_users', ARRAY['fairshare_admin_all', 'fairshare_reader_all', 'fairshare_user_own']);
SELECT policies_are('fairshare', 'publications', ARRAY['fairshare_admin_all', 'fairshare_reader_all', 'fairshare_user_own']);

-- ---------------------------------------------------------------------------
-- Behaviour: a small Fair Tree cluster.  usage = CPUs × seconds (no decay,
-- no weights): u1 2 × 100 = 200, u2 1 × 100 = 100; accounts x (u1) and y
-- (u2), one share each.  Root: x U = 2/3, Level FS 0.5/0.667 = 0.75; y
-- U = 1/3, Level FS 1.5: u2 rank 2 of 2 → 1, u1 rank 1 → 0.5.
-- ---------------------------------------------------------------------------
CREATE ROLE regress_tap_admin IN ROLE fairshare_admin;
CREATE ROLE regress_tap_reader IN ROLE fairshare_reader;
CREATE ROLE regress_tap_u1 IN ROLE fairshare_user;
CREATE ROLE regress_tap_u2 IN ROLE fairshare_user;

SET LOCAL ROLE regress_tap_admin;
SELECT lives_ok($$
    INSERT INTO fairshare.clusters (cluster, decay_half_life, weight_fairshare) VALUES ('tap', '0', 100);
    INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('tap', 'p', 4, 8000);
    INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
      ('tap', 'root', NULL, 1), ('tap', 'x', 'root', 1), ('tap', 'y', 'root', 1);
    INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES
      ('tap', 'x', 'regress_tap_u1', 1), ('tap', 'y', 'regress_tap_u2', 1);
    INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                                start_time, end_time, cpus) VALUES
      ('tap', '1', 'regress_tap_u1', 'x', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00',
       '2026-03-01 00:00+00', '2026-03-01 00:01:40+00', 2),
      ('tap', '2', 'regress_tap_u2', 'y', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00',
       '2026-03-01 00:00+00', '2026-03-01 00:01:40+00', 1),
      ('tap', '3', 'regress_tap_u1', 'x', 'p', 'PENDING', '2026-03-01 00:05+00', '2026-03-01 00:05+00', NULL, NULL, 1);
    INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
    VALUES ('tap', 'x', 'genci', '2026-01-01', '2026-12-31', 1200);
    INSERT INTO fairshare.ledger (allocation_id, kind, hours, effective_date)
    SELECT allocation_id, 'addition', 10, '2026-02-01' FROM fairshare.allocations WHERE cluster = 'tap';
$$, 'the administrator builds a cluster without a superuser');
SELECT throws_ok($$UPDATE fairshare.ledger SET hours = 0$$, '42501', NULL, 'admin: UPDATE ledger refused');
SELECT throws_ok($$DELETE FROM fairshare.ledger$$, '42501', NULL, 'admin: DELETE ledger refused');
SELECT throws_ok($$TRUNCATE fairshare.ledger$$, '42501', NULL, 'admin: TRUNCATE ledger refused');
SELECT throws_ok($$INSERT INTO fairshare.ledger (allocation_id, kind, hours, effective_date, recorded_by)
                   SELECT allocation_id, 'addition', 1, '2026-02-02', 'nobody' FROM fairshare.allocations WHERE cluster = 'tap'$$,
                 '42501', NULL, 'admin: cannot forge recorded_by');
SELECT throws_ok($$UPDATE fairshare.allocations SET hours = 1 WHERE cluster = 'tap'$$, '42501', NULL,
                 'admin: cannot rewrite an initial grant');
SELECT throws_ok($$CREATE TABLE fairshare.t (x int)$$, '42501', NULL, 'admin: cannot create in the schema');
SELECT is((SELECT recorded_by FROM fairshare.ledger l JOIN fairshare.allocations a USING (allocation_id)
            WHERE a.cluster = 'tap'), 'regress_tap_admin', 'the ledger records who added the hours');
RESET ROLE;

SET LOCAL ROLE regress_tap_reader;
SELECT is((SELECT count(*) FROM fairshare.jobs WHERE cluster = 'tap'), 3::bigint, 'reader: every job');
SELECT is((SELECT count(*) FROM fairshare.sshare_at('2026-03-01 00:02+00') WHERE cluster = 'tap'), 5::bigint,
          'reader: every sshare row (root, x, y, u1, u2)');
SELECT throws_ok($$INSERT INTO fairshare.qos (cluster, qos) VALUES ('tap', 'q')$$, '42501', NULL, 'reader: writes refused');
SELECT throws_ok($$CALL fairshare.apply_genci_regulation(NULL, 'tap')$$, '42501', NULL, 'reader: regulation refused');
RESET ROLE;

SET LOCAL ROLE regress_tap_u1;
SELECT results_eq($$SELECT job_id FROM fairshare.jobs ORDER BY job_id$$, ARRAY['1', '3'], 'u1: its own jobs only');
SELECT results_eq($$SELECT user_name, fairshare FROM fairshare.my_sshare_at('2026-03-01 00:02+00') WHERE cluster = 'tap'$$,
                  $$VALUES ('regress_tap_u1'::text, 0.5::float8)$$, 'u1: its sshare row, rank 1 of 2 → 0.5');
SELECT results_eq($$SELECT job_id, priority FROM fairshare.my_sprio_at('2026-03-01 00:10+00') WHERE cluster = 'tap'$$,
                  $$VALUES ('3'::text, 50::bigint)$$, 'u1: its pending job, 100 × 0.5 = 50');
SELECT results_eq($$SELECT user_name, raw_usage FROM fairshare.association_usage_at('2026-03-01 00:02+00') WHERE cluster = 'tap'$$,
                  $$VALUES ('regress_tap_u1'::text, 200::float8)$$, 'u1: its usage, 2 CPUs × 100 s');
SELECT is_empty($$SELECT * FROM fairshare.my_sshare_at(NULL)$$, 'my_sshare_at(NULL): no rows');
SELECT is_empty($$SELECT * FROM fairshare.my_sprio_at(NULL)$$, 'my_sprio_at(NULL): no rows');
SELECT throws_ok($$SELECT * FROM fairshare.my_sprio_at('infinity')$$, '22008', NULL, 'my_sprio_at(infinity): 22008');
SELECT throws_ok($$SELECT * FROM fairshare.sshare$$, '42501', NULL, 'u1: the whole sshare refused');
SELECT throws_ok($$SELECT * FROM fairshare.sprio_at(now())$$, '42501', NULL, 'u1: the whole sprio refused');
SELECT throws_ok($$SELECT * FROM fairshare.accounts$$, '42501', NULL, 'u1: the account tree refused');
SELECT throws_ok($$SELECT * FROM fairshare.ledger$$, '42501', NULL, 'u1: the ledger refused');
SELECT throws_ok($$UPDATE fairshare.jobs SET nice = -100$$, '42501', NULL, 'u1: cannot change its jobs');
SELECT throws_ok($$SELECT * FROM fairshare.sshare_explain('tap', 'regress_tap_u1', 'regress_tap_u2')$$, '42501', NULL,
                 'u1: cannot compare itself with another user');
RESET ROLE;

SET LOCAL ROLE regress_tap_u2;
SELECT results_eq($$SELECT user_name, fairshare FROM fairshare.my_sshare_at('2026-03-01 00:02+00') WHERE cluster = 'tap'$$,
                  $$VALUES ('regress_tap_u2'::text, 1::float8)$$, 'u2: its sshare row, rank 2 of 2 → 1');
SELECT is_empty($$SELECT * FROM fairshare.my_sprio_at('2026-03-01 00:10+00') WHERE cluster = 'tap'$$, 'u2: no pending job');
RESET ROLE;

-- the owner (the superuser that installed it) is refused by the ledger's triggers
SELECT throws_ok($$UPDATE fairshare.ledger SET hours = 0$$, '55000', NULL, 'owner: UPDATE ledger refused');
SELECT throws_ok($$DELETE FROM fairshare.ledger$$, '55000', NULL, 'owner: DELETE ledger refused');
SELECT throws_ok($$TRUNCATE fairshare.ledger$$, '55000', NULL, 'owner: TRUNCATE ledger refused');

SELECT * FROM finish();
ROLLBACK;
