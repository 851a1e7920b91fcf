\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

-- checkpoint: usage checkpoints, their API shape, privileges and row
-- security (a plain user still sees its own usage only), and the
-- invalidation seen by the administrator.  Everything rolls back.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SET LOCAL timezone = 'UTC';
SELECT plan(72);

-- ---------------------------------------------------------------------------
-- API shape
-- ---------------------------------------------------------------------------
SELECT has_table('fairshare', 'usage_checkpoints', 'table usage_checkpoints');
SELECT has_table('fairshare', 'usage_checkpoint_rows', 'table usage_checkpoint_rows');
SELECT columns_are('fairshare', 'usage_checkpoints',
                   ARRAY['cluster', 'as_of', 'created_at', 'invalidated_at', 'invalidated_by', 'pinned', 'computed_from',
                         'base', 'base_decay']);
SELECT columns_are('fairshare', 'usage_checkpoint_rows',
                   ARRAY['cluster', 'as_of', 'account', 'user_name', 'raw_usage', 'jobs', 'pass_usage']);
SELECT col_is_pk('fairshare', 'usage_checkpoints', ARRAY['cluster', 'as_of'],
                 'a cluster has a chain of checkpoints, one per instant');
SELECT is_procedure('fairshare', 'checkpoint_usage',
                    ARRAY['text', 'timestamp with time zone', 'boolean', 'integer', 'integer'],
                    'checkpoint_usage(cluster, as_of, from_jobs, keep_recent, keep_days) is a procedure');
SELECT is((SELECT p.pronargdefaults::int FROM pg_catalog.pg_proc p
            WHERE p.oid = 'fairshare.checkpoint_usage(text, timestamptz, boolean, integer, integer)'::regprocedure),
          5, 'cluster defaults to NULL (every cluster), as_of to now(), from_jobs to false, keep_recent to 3, keep_days to 7');
SELECT volatility_is('fairshare_internal', '_association_usage', ARRAY['timestamp with time zone', 'boolean', 'text'], 'stable',
                     '_association_usage is STABLE (it reads tables)');
SELECT is((SELECT p.proparallel FROM pg_catalog.pg_proc p
            WHERE p.oid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure),
          's', '_association_usage is PARALLEL SAFE');
SELECT volatility_is('fairshare', 'association_usage_at', ARRAY['timestamp with time zone'], 'stable',
                     'association_usage_at is still STABLE');
SELECT has_index('fairshare', 'jobs', 'jobs_end_idx', 'the jobs after a checkpoint are found by an index');
SELECT is((SELECT count(*) FROM pg_extension e, unnest(e.extconfig) c
            WHERE e.extname = 'fairshare'
              AND c IN ('fairshare.usage_checkpoints'::regclass, 'fairshare.usage_checkpoint_rows'::regclass)),
          2::bigint, 'both tables are dumped with their rows (pg_extension_config_dump)');
SELECT triggers_are('fairshare', 'jobs', ARRAY['invalidate_usage_checkpoints_insert', 'invalidate_usage_checkpoints_update',
                    'invalidate_usage_checkpoints_delete', 'invalidate_usage_checkpoints_truncate',
                    -- and those that mark the hours of the usage rollups (reports.sql)
                    'mark_rollups_insert', 'mark_rollups_update', 'mark_rollups_delete', 'mark_rollups_truncate'],
                    'jobs: the four invalidation triggers and the four rollup marks');
SELECT has_trigger('fairshare', 'clusters', 'invalidate_usage_checkpoints', 'clusters: decay settings invalidate');
SELECT has_trigger('fairshare', 'partitions', 'invalidate_usage_checkpoints', 'partitions: billing invalidates');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'fairshare.qos'::regclass
              AND tgname LIKE 'invalidate\_usage\_checkpoints%'), 4::bigint,
          'qos: insert, update, delete and truncate invalidate');
SELECT is((SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            WHERE t.tgname LIKE 'invalidate\_usage\_checkpoints%' AND t.tgenabled <> 'O'), 0::bigint,
          'the triggers fire in the normal origin mode (session_replication_role = replica skips them)');

-- ---------------------------------------------------------------------------
-- Privileges and row security: like jobs
-- ---------------------------------------------------------------------------
SELECT function_privs_are('fairshare', 'checkpoint_usage', ARRAY['text', 'timestamp with time zone', 'boolean', 'integer', 'integer'],
                          'fairshare_admin', ARRAY['EXECUTE'], 'admin: checkpoint_usage');
SELECT function_privs_are('fairshare', 'checkpoint_usage', ARRAY['text', 'timestamp with time zone', 'boolean', 'integer', 'integer'],
                          'fairshare_reader', ARRAY[]::text[], 'reader: no checkpoint_usage');
SELECT function_privs_are('fairshare', 'checkpoint_usage', ARRAY['text', 'timestamp with time zone', 'boolean', 'integer', 'integer'],
                          'fairshare_user', ARRAY[]::text[], 'user: no checkpoint_usage');
SELECT function_privs_are('fairshare_internal', '_association_usage', ARRAY['timestamp with time zone', 'boolean', 'text'],
                          'fairshare_user', ARRAY['EXECUTE'], 'user: _association_usage, as association_usage_at');
SELECT table_privs_are('fairshare', 'usage_checkpoint_rows', 'fairshare_admin', ARRAY['DELETE', 'INSERT', 'SELECT', 'UPDATE']);
SELECT table_privs_are('fairshare', 'usage_checkpoint_rows', 'fairshare_reader', ARRAY['SELECT']);
SELECT table_privs_are('fairshare', 'usage_checkpoint_rows', 'fairshare_user', ARRAY['SELECT'], 'user: SELECT (its own rows)');
-- a plain user reads when and whether each checkpoint holds, not why: the
-- reason names the job that invalidated it
SELECT table_privs_are('fairshare', 'usage_checkpoints', 'fairshare_user', ARRAY[]::text[], 'user: no SELECT on every column');
SELECT column_privs_are('fairshare', 'usage_checkpoints', 'invalidated_at', 'fairshare_user', ARRAY['SELECT'],
                        'user: when each checkpoint holds');
SELECT column_privs_are('fairshare', 'usage_checkpoints', 'invalidated_by', 'fairshare_user', ARRAY[]::text[],
                        'user: not why (it names a job)');
SELECT table_privs_are('fairshare', 'usage_checkpoint_rows', 'public', ARRAY[]::text[], 'PUBLIC: nothing');
SELECT is((SELECT relrowsecurity FROM pg_class WHERE oid = 'fairshare.usage_checkpoint_rows'::regclass), true,
          'row-level security on usage_checkpoint_rows');
SELECT policies_are('fairshare', 'usage_checkpoint_rows',
                    ARRAY['fairshare_admin_all', 'fairshare_reader_all', 'fairshare_user_own'], 'the policies of jobs');

-- ---------------------------------------------------------------------------
-- Behaviour (as in security.sql): usage = CPUs × seconds, no decay.  u1 2 ×
-- 100 = 200, u2 1 × 100 = 100, in accounts x and y of one share each: u1
-- ranks 1 of 2 (FairShare 0.5), u2 2 of 2 (1).  A checkpoint as of 00:02
-- holds both jobs; the reports as of 00:10 start from it.
-- ---------------------------------------------------------------------------
CREATE ROLE regress_cp_admin IN ROLE fairshare_admin;
CREATE ROLE regress_cp_reader IN ROLE fairshare_reader;
CREATE ROLE regress_cp_u1 IN ROLE fairshare_user;
CREATE ROLE regress_cp_u2 IN ROLE fairshare_user;

SET LOCAL ROLE regress_cp_admin;
SELECT lives_ok($$
    INSERT INTO fairshare.clusters (cluster, decay_half_life, weight_fairshare) VALUES ('tcp', '0', 100);
    INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('tcp', 'p', 4, 8000);
    INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
      ('tcp', 'root', NULL, 1), ('tcp', 'x', 'root', 1), ('tcp', 'y', 'root', 1);
    INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES
      ('tcp', 'x', 'regress_cp_u1', 1), ('tcp', 'y', 'regress_cp_u2', 1);
    INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                                start_time, end_time, cpus) VALUES
      ('tcp', '1', 'regress_cp_u1', 'x', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00',
       '2026-03-01 00:00+00', '2026-03-01 00:01:40+00', 2),
      ('tcp', '2', 'regress_cp_u2', 'y', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00',
       '2026-03-01 00:00+00', '2026-03-01 00:01:40+00', 1),
      ('tcp', '3', 'regress_cp_u1', 'x', 'p', 'PENDING', '2026-03-01 00:05+00', '2026-03-01 00:05+00', NULL, NULL, 1);
$$, 'the administrator builds a cluster');
SELECT lives_ok($$CALL fairshare.checkpoint_usage('tcp', '2026-03-01 00:02+00')$$,
                'the administrator makes a checkpoint (no superuser needed)');
-- and a sparse one at 00:06 (docs/design.md#sparse-checkpoints): nothing
-- ran since 00:02, so it holds no row of its own; the readers below read
-- 00:06, completed with 00:02's rows, each user its own
SELECT lives_ok($$CALL fairshare.checkpoint_usage('tcp', '2026-03-01 00:06+00')$$,
                'the administrator makes a chained checkpoint');
SELECT results_eq($$SELECT k.base, (SELECT count(*) FROM fairshare.usage_checkpoint_rows r
                                     WHERE r.cluster = k.cluster AND r.as_of = k.as_of)
                      FROM fairshare.usage_checkpoints k WHERE k.cluster = 'tcp' AND k.as_of = '2026-03-01 00:06+00'$$,
                  $$VALUES ('2026-03-01 00:02+00'::timestamptz, 0::bigint)$$,
                  'the chained checkpoint is sparse on 00:02, with no row of its own');
RESET ROLE;

SET LOCAL ROLE regress_cp_reader;
SELECT throws_ok($$CALL fairshare.checkpoint_usage('tcp', '2026-03-01 00:02+00')$$, '42501', NULL,
                 'reader: checkpoint_usage refused');
SELECT is((SELECT count(*) FROM fairshare.usage_checkpoint_rows WHERE cluster = 'tcp'), 2::bigint,
          'reader: every checkpoint row');
RESET ROLE;

SET LOCAL ROLE regress_cp_u1;
SELECT throws_ok($$CALL fairshare.checkpoint_usage('tcp', '2026-03-01 00:02+00')$$, '42501', NULL,
                 'u1: checkpoint_usage refused');
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare.usage_checkpoint_rows WHERE cluster = 'tcp'$$,
                  $$VALUES ('regress_cp_u1'::text, 200::float8, 1::bigint)$$, 'u1: its own checkpoint row only');
SELECT results_eq($$SELECT as_of, invalidated_at IS NULL FROM fairshare.usage_checkpoints WHERE cluster = 'tcp' ORDER BY as_of$$,
                  $$VALUES ('2026-03-01 00:02+00'::timestamptz, true), ('2026-03-01 00:06+00', true)$$,
                  'u1: the checkpoints hold');
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tcp}', '{2026-03-01 00:06+00}')$$,
                  $$VALUES ('regress_cp_u1'::text, 200::float8, 1::bigint)$$,
                  'u1: the sparse checkpoint''s rows, its own only (from its base)');
SELECT results_eq($$SELECT user_name, raw_usage FROM fairshare.association_usage_at('2026-03-01 00:10+00') WHERE cluster = 'tcp'$$,
                  $$VALUES ('regress_cp_u1'::text, 200::float8)$$, 'u1: its usage from the checkpoint, 2 CPUs × 100 s');
SELECT results_eq($$SELECT user_name, fairshare FROM fairshare.my_sshare_at('2026-03-01 00:10+00') WHERE cluster = 'tcp'$$,
                  $$VALUES ('regress_cp_u1'::text, 0.5::float8)$$, 'u1: its sshare row, rank 1 of 2 → 0.5');
SELECT results_eq($$SELECT job_id, priority FROM fairshare.my_sprio_at('2026-03-01 00:10+00') WHERE cluster = 'tcp'$$,
                  $$VALUES ('3'::text, 50::bigint)$$, 'u1: its pending job, 100 × 0.5 = 50');
SELECT throws_ok($$UPDATE fairshare.usage_checkpoints SET invalidated_at = now(), invalidated_by = 'u1'$$, '42501', NULL,
                 'u1: cannot touch a checkpoint');
RESET ROLE;

SET LOCAL ROLE regress_cp_u2;
SELECT results_eq($$SELECT user_name, raw_usage FROM fairshare.usage_checkpoint_rows WHERE cluster = 'tcp'$$,
                  $$VALUES ('regress_cp_u2'::text, 100::float8)$$, 'u2: its own checkpoint row only');
SELECT results_eq($$SELECT user_name, fairshare FROM fairshare.my_sshare_at('2026-03-01 00:10+00') WHERE cluster = 'tcp'$$,
                  $$VALUES ('regress_cp_u2'::text, 1::float8)$$, 'u2: its sshare row, rank 2 of 2 → 1');
RESET ROLE;

-- the administrator's writes invalidate it (the triggers run with its rights)
SET LOCAL ROLE regress_cp_admin;
SELECT lives_ok($$
    INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
    VALUES ('tcp', '4', 'regress_cp_u2', 'y', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:01+00',
            '2026-03-01 00:03+00', 1)$$, 'admin: a job that started before the checkpoint');
SELECT results_eq($$SELECT invalidated_at IS NULL, invalidated_by FROM fairshare.usage_checkpoints WHERE cluster = 'tcp'
                    ORDER BY as_of$$,
                  $$VALUES (false, 'INSERT on jobs: job 4, started before the checkpoint'::text),
                           (false, 'INSERT on jobs: job 4, started before the checkpoint')$$,
                  'admin: that insert invalidated the checkpoints');
RESET ROLE;
-- u2 now 100 + 120 = 220 against u1's 200: u2 ranks 1 (0.5), u1 2 (1) → u1's job 100 × 1 = 100
SET LOCAL ROLE regress_cp_u1;
SELECT results_eq($$SELECT job_id, priority FROM fairshare.my_sprio_at('2026-03-01 00:10+00') WHERE cluster = 'tcp'$$,
                  $$VALUES ('3'::text, 100::bigint)$$, 'u1: an invalid checkpoint is not used: 100 × 1 = 100');
RESET ROLE;

-- ---------------------------------------------------------------------------
-- The lock taken late: checkpoint_usage writes the rows and the
-- fair-share factors before its SHARE lock on jobs, then computes the usage
-- again under the lock and compares.  A write committed in between is played
-- here by hooks of this test that write from inside those first writes (an
-- AFTER INSERT trigger on the rows, one on the factors): the first
-- computation does not see the write, the one under the lock does, as with
-- an import that commits in between.
-- Cluster tlate, no decay, CPU billing: usage = CPUs × seconds.
--   u1: job 1, 1 CPU, 00:00-00:10 = 600;  u2: job 2, 2 CPUs, 00:00-00:05 = 600
--   checkpoint P at 00:20 from the jobs; the hook adds u1's job 3, 1 CPU,
--   00:25-00:30 = 300 (after P: P stays valid); the checkpoint at 00:40:
--   u1 600 + 300 = 900 (2 jobs), u2 600 (1 job), chained from P.
--   Fair Tree, one account: u1 900 of 1500 against shares 1 of 2 → level
--   0.5 / 0.6 = 0.83; u2 0.5 / 0.4 = 1.25: u2 ranks first (FairShare 1), u1
--   0.5.  The second hook raises u1's shares to 3: u1 0.75 / 0.6 = 1.25, u2
--   0.25 / 0.4 = 0.625: u1 first (1), u2 0.5; factors kept from before the
--   change would say the opposite; such factors are dropped, not computed
--   again under the lock.
-- ---------------------------------------------------------------------------
INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('tlate', '0');
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb)
VALUES ('tlate', 'p', 'CPU=1', 4, 8000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
VALUES ('tlate', 'root', NULL, 1), ('tlate', 'a', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name) VALUES ('tlate', 'a', 'u1'), ('tlate', 'a', 'u2');
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('tlate', '1', 'u1', 'a', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00', '2026-03-01 00:10+00', 1),
       ('tlate', '2', 'u2', 'a', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00', '2026-03-01 00:05+00', 2);
CALL fairshare.checkpoint_usage('tlate', '2026-03-01 00:20+00');
CREATE FUNCTION public.late_write() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF NOT EXISTS (SELECT FROM fairshare.jobs WHERE cluster = 'tlate' AND job_id = '3') THEN
        INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
        VALUES ('tlate', '3', 'u1', 'a', 'p', 'COMPLETED', '2026-03-01 00:25+00', '2026-03-01 00:25+00',
                '2026-03-01 00:30+00', 1);
    END IF;
    RETURN NULL;
END $f$;
-- (without the tree's own trigger, which would drop the factors of this
-- very transaction: a concurrent session's change does not see them; the
-- change is counted as that trigger counts it, _tree_changed, which is
-- all the checkpoint learns of a change committed while it computed)
CREATE FUNCTION public.late_tree() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF EXISTS (SELECT FROM fairshare.account_users WHERE cluster = 'tlate' AND user_name = 'u1' AND shares <> 3) THEN
        SET LOCAL session_replication_role = replica;
        UPDATE fairshare.account_users SET shares = 3 WHERE cluster = 'tlate' AND user_name = 'u1';
        SET LOCAL session_replication_role = origin;
        PERFORM fairshare_internal._tree_changed(ARRAY['tlate']);
    END IF;
    RETURN NULL;
END $f$;
CREATE TRIGGER late_write AFTER INSERT ON fairshare.usage_checkpoint_rows
    FOR EACH STATEMENT EXECUTE FUNCTION public.late_write();
SELECT lives_ok($$CALL fairshare.checkpoint_usage('tlate', '2026-03-01 00:40+00')$$,
                'late lock: a checkpoint with a job written while it wrote its rows');
DROP TRIGGER late_write ON fairshare.usage_checkpoint_rows;
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tlate}', '{2026-03-01 00:40+00}')
                    ORDER BY user_name$$,
                  $$VALUES ('u1'::text, 900::float8, 2::bigint), ('u2', 600, 1)$$,
                  'late lock: the rows hold the job written in between (u1 600 + 300 = 900, 2 jobs)');
SELECT results_eq($$SELECT invalidated_at IS NULL, computed_from FROM fairshare.usage_checkpoints
                    WHERE cluster = 'tlate' AND as_of = '2026-03-01 00:40+00'$$,
                  $$VALUES (true, '2026-03-01 00:20+00'::timestamptz)$$,
                  'late lock: the checkpoint is valid, chained from the one at 00:20');
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tlate}', '{2026-03-01 00:40+00}')
                    ORDER BY user_name$$,
                  $$SELECT user_name, raw_usage, jobs FROM fairshare_internal._association_usage('2026-03-01 00:40+00', true, 'tlate')
                     ORDER BY user_name$$,
                  'late lock: the rows equal the usage from every job');
SELECT is((SELECT count(*) FROM fairshare.usage_checkpoint_factors
            WHERE cluster = 'tlate' AND as_of = '2026-03-01 00:40+00'), 0::bigint,
          'late lock: its factors, computed before the job came, are dropped (sprio_at computes the tree)');
-- the next one, at 00:50 (no job since), with the tree changed while it
-- wrote its factors
CREATE TRIGGER late_tree AFTER INSERT ON fairshare.usage_checkpoint_factor_rows
    FOR EACH STATEMENT EXECUTE FUNCTION public.late_tree();
SELECT lives_ok($$CALL fairshare.checkpoint_usage('tlate', '2026-03-01 00:50+00')$$,
                'late lock: a checkpoint with the tree changed while it wrote its factors');
DROP TRIGGER late_tree ON fairshare.usage_checkpoint_factor_rows;
SELECT is((SELECT count(*) FROM fairshare.usage_checkpoint_factors
            WHERE cluster = 'tlate' AND as_of = '2026-03-01 00:50+00'), 0::bigint,
          'late lock: its factors, computed before the tree changed (u1 0.5, u2 1), are dropped');
SELECT results_eq($$SELECT s.user_name, s.fairshare FROM fairshare.sshare_at('2026-03-01 00:50+00') s
                    WHERE s.cluster = 'tlate' AND s.user_name IS NOT NULL ORDER BY s.user_name$$,
                  $$VALUES ('u1'::text, 1::float8), ('u2', 0.5)$$,
                  'late lock: sshare_at from that checkpoint ranks by the changed tree (u1 first: 1, u2 0.5)');
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tlate}', '{2026-03-01 00:50+00}')
                    ORDER BY user_name$$,
                  $$VALUES ('u1'::text, 900::float8, 2::bigint), ('u2', 600, 1)$$,
                  'late lock: its rows, unchanged since 00:40 (no decay, no job)');
-- ---------------------------------------------------------------------------
-- Under the lock, the rows stand without computing them again when the
-- checkpoint chained from is still the newest valid one and the runs read
-- are unchanged (_checkpoint_runs_read); any other case computes again.
-- track_functions counts _association_usage's calls in this transaction:
-- one for the rows; the factors read the rows written (_checkpoint_tree),
-- not the usage again; a second computation of the rows would be a second
-- call (and a third: the rows written again).
-- Cluster tshort, no decay, CPU billing: usage = CPUs × seconds.
--   u1: job 1, 1 CPU, 00:00-00:10 = 600
--   u2: job 3, 1 CPU, 00:00-00:05 = 300; job 2, 2 CPUs, running from 00:15
--   checkpoint at 00:20 from the jobs: u2 300 + 2 × 300 = 900
--   at 00:30, nothing written in between: u2 300 + 2 × 900 = 2100
--   at 00:35, only job 2's nice written in between: the rows stand,
--   u2 300 + 2 × 1200 = 2700
--   at 00:40, job 2 ends at 00:35 in between (not before 00:35: the
--   checkpoint at 00:35 stays valid, the run read changed): u2 300 + 2 × 1200 = 2700,
--   not 300 + 2 × 1500 = 3300 as the rows written before would say
--   at 00:50, job 3's end moves to 00:08 in between (before every
--   checkpoint: all invalid): u2 480 + 2400 = 2880, from the jobs alone
-- ---------------------------------------------------------------------------
INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('tshort', '0');
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb)
VALUES ('tshort', 'p', 'CPU=1', 4, 8000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
VALUES ('tshort', 'root', NULL, 1), ('tshort', 'a', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name) VALUES ('tshort', 'a', 'u1'), ('tshort', 'a', 'u2');
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('tshort', '1', 'u1', 'a', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00', '2026-03-01 00:10+00', 1),
       ('tshort', '3', 'u2', 'a', 'p', 'COMPLETED', '2026-03-01 00:00+00', '2026-03-01 00:00+00', '2026-03-01 00:05+00', 1),
       ('tshort', '2', 'u2', 'a', 'p', 'RUNNING', '2026-03-01 00:15+00', '2026-03-01 00:15+00', NULL, 2);
CALL fairshare.checkpoint_usage('tshort', '2026-03-01 00:20+00');
SET LOCAL track_functions = 'pl';
CREATE TEMP TABLE usage_calls AS
SELECT COALESCE((SELECT calls FROM pg_stat_xact_user_functions
                  WHERE funcid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure), 0) AS n;
CALL fairshare.checkpoint_usage('tshort', '2026-03-01 00:30+00');
SELECT is((SELECT calls FROM pg_stat_xact_user_functions
            WHERE funcid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure)
          - (SELECT n FROM usage_calls), 1::bigint,
          'under the lock, nothing changed: the usage computed once, for the rows (the factors read them)');
-- the factors from the rows written equal sshare_at's FairShare, computed
-- from the tree and the usage as of the checkpoint (no decay: u1 600, u2
-- 2100 of 2700, 1 share each)
SELECT set_eq($$SELECT account, user_name, fairshare
                 FROM fairshare_internal._checkpoint_factor_rows('{tshort}', '{2026-03-01 00:30+00}')$$,
              $$SELECT account, user_name, fairshare FROM fairshare.sshare_at('2026-03-01 00:30+00')
                 WHERE cluster = 'tshort' AND user_name IS NOT NULL$$,
              'the factors at 00:30, from the rows written, are sshare_at''s FairShare');
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tshort}', '{2026-03-01 00:30+00}')
                    ORDER BY user_name$$,
                  $$VALUES ('u1'::text, 600::float8, 1::bigint), ('u2', 2100, 2)$$,
                  'the rows at 00:30 (u2 300 + 2 × 900 = 2100)');
-- what is compared, as of 00:25: the checkpoint at 00:20 it chains from,
-- then the runs started by 00:25 that run or end after 00:20: job 2 only
-- (jobs 1 and 3 ended at 00:10 and 00:05).  Past max_runs it is NULL, and
-- the checkpoint then computes again under its lock (the 00:50 case below
-- shows that path); a chain over years of runs would otherwise outgrow
-- PostgreSQL's 1 GB array.
SELECT is(fairshare_internal._checkpoint_runs_read('tshort', '2026-03-01 00:25+00', 1),
          ARRAY['tshort as of 2026-03-01 00:20:00+00',
                '(tshort,2,a,u2,"2026-03-01 00:15:00+00",,2)'],
          'runs read as of 00:25, max_runs 1: the checkpoint at 00:20 and job 2 (2 CPUs, running)');
SELECT is(fairshare_internal._checkpoint_runs_read('tshort', '2026-03-01 00:25+00', 0), NULL,
          'the same past max_runs (0 runs allowed, 1 read): NULL, no shortcut');
SELECT throws_ok($$SELECT fairshare_internal._checkpoint_runs_read('tshort', '2026-03-01 00:25+00', -1)$$, '22023',
                 '_checkpoint_runs_read: max_runs must be 0 or more, not -1',
                 'a negative max_runs is refused');
-- at 00:35, only job 2's nice written in between: not something the usage
-- reads, so the rows stand (u2 300 + 2 × 1200 = 2700)
CREATE FUNCTION public.late_nice() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    UPDATE fairshare.jobs SET nice = 10 WHERE cluster = 'tshort' AND job_id = '2' AND nice IS DISTINCT FROM 10;
    RETURN NULL;
END $f$;
CREATE TRIGGER late_nice AFTER INSERT ON fairshare.usage_checkpoint_rows
    FOR EACH STATEMENT EXECUTE FUNCTION public.late_nice();
UPDATE usage_calls SET n = (SELECT calls FROM pg_stat_xact_user_functions
                             WHERE funcid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure);
CALL fairshare.checkpoint_usage('tshort', '2026-03-01 00:35+00');
DROP TRIGGER late_nice ON fairshare.usage_checkpoint_rows;
SELECT is((SELECT calls FROM pg_stat_xact_user_functions
            WHERE funcid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure)
          - (SELECT n FROM usage_calls), 1::bigint,
          'under the lock, only a nice written in between: the rows stand (usage computed once for them)');
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tshort}', '{2026-03-01 00:35+00}')
                    ORDER BY user_name$$,
                  $$VALUES ('u1'::text, 600::float8, 1::bigint), ('u2', 2700, 2)$$,
                  'the rows at 00:35 (u2 300 + 2 × 1200 = 2700)');
CREATE FUNCTION public.late_end() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    UPDATE fairshare.jobs SET state = 'COMPLETED', end_time = '2026-03-01 00:35+00'
     WHERE cluster = 'tshort' AND job_id = '2' AND end_time IS NULL;
    RETURN NULL;
END $f$;
CREATE TRIGGER late_end AFTER INSERT ON fairshare.usage_checkpoint_rows
    FOR EACH STATEMENT EXECUTE FUNCTION public.late_end();
UPDATE usage_calls SET n = (SELECT calls FROM pg_stat_xact_user_functions
                             WHERE funcid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure);
CALL fairshare.checkpoint_usage('tshort', '2026-03-01 00:40+00');
DROP TRIGGER late_end ON fairshare.usage_checkpoint_rows;
SELECT cmp_ok((SELECT calls FROM pg_stat_xact_user_functions
                WHERE funcid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure)
              - (SELECT n FROM usage_calls), '>', 1::bigint,
              'under the lock, a run read has ended in between: the usage computed again');
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tshort}', '{2026-03-01 00:40+00}')
                    ORDER BY user_name$$,
                  $$VALUES ('u1'::text, 600::float8, 1::bigint), ('u2', 2700, 2)$$,
                  'the rows at 00:40 hold the end written in between (u2 300 + 2 × 1200 = 2700)');
SELECT results_eq($$SELECT invalidated_at IS NULL, computed_from FROM fairshare.usage_checkpoints
                    WHERE cluster = 'tshort' AND as_of = '2026-03-01 00:40+00'$$,
                  $$VALUES (true, '2026-03-01 00:35+00'::timestamptz)$$,
                  'the checkpoint at 00:40 is valid, chained from the one at 00:35');
CREATE FUNCTION public.late_old() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    UPDATE fairshare.jobs SET end_time = '2026-03-01 00:08+00'
     WHERE cluster = 'tshort' AND job_id = '3' AND end_time <> '2026-03-01 00:08+00';
    RETURN NULL;
END $f$;
CREATE TRIGGER late_old AFTER INSERT ON fairshare.usage_checkpoint_rows
    FOR EACH STATEMENT EXECUTE FUNCTION public.late_old();
CALL fairshare.checkpoint_usage('tshort', '2026-03-01 00:50+00');
DROP TRIGGER late_old ON fairshare.usage_checkpoint_rows;
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM fairshare_internal._checkpoint_rows('{tshort}', '{2026-03-01 00:50+00}')
                    ORDER BY user_name$$,
                  $$VALUES ('u1'::text, 600::float8, 1::bigint), ('u2', 2880, 2)$$,
                  'a run before every checkpoint changed in between: the rows at 00:50 from the jobs (u2 480 + 2400 = 2880)');
SELECT results_eq($$SELECT invalidated_at IS NULL, computed_from FROM fairshare.usage_checkpoints
                    WHERE cluster = 'tshort' AND as_of = '2026-03-01 00:50+00'$$,
                  $$VALUES (true, NULL::timestamptz)$$,
                  'the checkpoint at 00:50 is valid, computed from the jobs alone (every earlier one invalid)');

SELECT is((SELECT p.proconfig FROM pg_catalog.pg_proc p
            WHERE p.oid = 'fairshare.checkpoint_usage(text, timestamptz, boolean, integer, integer)'::regprocedure),
          ARRAY['search_path=pg_catalog, pg_temp', 'enable_mergejoin=off', 'enable_nestloop=off', 'jit=off',
                'fairshare.scenario='],
          'checkpoint_usage plans without merge joins, nested loops and JIT (docs/performance.md#history-at-scale), with the live settings whatever scenario the session reads');

SELECT * FROM finish();
ROLLBACK;
