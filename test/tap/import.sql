\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(56);
SET LOCAL search_path = fairshare, public;
SET LOCAL timezone = 'UTC';

-- ---------------------------------------------------------------------------
-- API shape
-- ---------------------------------------------------------------------------
SELECT has_function('fairshare', 'import_stage', ARRAY['text'], 'import_stage(staging)');
SELECT has_function('fairshare', 'import_sacct', ARRAY['text', 'text', 'boolean', 'boolean', 'text'],
                    'import_sacct(cluster, time_zone, create_missing, all_or_nothing, staging)');
SELECT has_function('fairshare', 'import_pbs', ARRAY['text', 'text', 'text', 'boolean', 'boolean', 'text'],
                    'import_pbs(cluster, time_zone, account_from, create_missing, all_or_nothing, staging)');
SELECT volatility_is('fairshare', 'import_stage', ARRAY['text'], 'volatile', 'import_stage is VOLATILE');
SELECT volatility_is('fairshare', 'import_sacct', ARRAY['text', 'text', 'boolean', 'boolean', 'text'], 'volatile',
                     'import_sacct is VOLATILE (it writes)');
SELECT volatility_is('fairshare', 'import_pbs', ARRAY['text', 'text', 'text', 'boolean', 'boolean', 'text'], 'volatile',
                     'import_pbs is VOLATILE (it writes)');
SELECT volatility_is('fairshare_internal', '_sacct_line', ARRAY['text', 'text', 'text', 'text'], 'volatile',
                     '_sacct_line is VOLATILE (a step''s kind depends on the line before it)');
SELECT function_returns('fairshare', 'import_stage', ARRAY['text'], 'regclass', 'import_stage returns the table');
SELECT has_table('fairshare', 'imports', 'the import log');
SELECT has_table('fairshare', 'import_rejects', 'the rejected lines');
SELECT col_is_pk('fairshare', 'import_rejects', ARRAY['import_id', 'line_no'], 'a reject is one line of one import');

-- a cluster to import into
INSERT INTO clusters (cluster, timezone) VALUES ('tap', 'Europe/Paris');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('tap', 'std', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('tap', 'root', NULL, 1), ('tap', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('tap', 'a', 'u');

-- ---------------------------------------------------------------------------
-- Arguments
-- ---------------------------------------------------------------------------
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC')$$, '42P01', NULL,
                 'no staging table yet: 42P01');
SELECT throws_ok($$SELECT import_stage('no such; table')$$, '22023', NULL,
                 'a staging name that is not an identifier: 22023');
SELECT throws_ok($$SELECT import_stage(NULL)$$, '22023', NULL, 'NULL staging name: 22023');
CREATE TEMP TABLE wrong_shape (a integer);
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC', staging => 'wrong_shape')$$, '22023', NULL,
                 'a staging table without line_no bigint, line text: 22023');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC', staging => NULL)$$, '22004', NULL,
                 'NULL staging: 22004');
SELECT is(import_stage()::text, 'import_staging', 'import_stage creates the TEMP table import_staging');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC')$$, '22023',
                 'staging table import_staging is empty: no sacct header line',
                 'an empty staging table: 22023');
INSERT INTO import_staging (line) VALUES ('JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'Mars/Olympus_Mons')$$, '22023',
                 'time zone "Mars/Olympus_Mons" not recognized', 'an unknown time zone: 22023');
SELECT throws_ok($$SELECT * FROM import_sacct(NULL, NULL)$$, '22004', NULL,
                 'neither time_zone nor a cluster to take it from: 22004');
SELECT throws_ok($$SELECT * FROM import_sacct(NULL, 'UTC')$$, '22004',
                 'cluster is NULL and the export has no Cluster column',
                 'no cluster argument and no Cluster column: 22004');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC', create_missing => NULL)$$, '22004', NULL,
                 'NULL create_missing: 22004');
SELECT throws_ok($$SELECT * FROM import_pbs(NULL, 'UTC')$$, '22004', 'cluster must not be NULL',
                 'import_pbs without a cluster: 22004');
SELECT throws_ok($$SELECT * FROM import_pbs('tap', 'UTC', account_from => 'queue')$$, '22023', NULL,
                 'account_from other than account, project, group: 22023');
SELECT throws_ok($$SELECT fairshare_internal._sacct_line('1|u', NULL, 'UTC', 'tap')$$, '22004', NULL,
                 '_sacct_line without a header: 22004');
SELECT throws_ok($$SELECT fairshare_internal._pbs_record('x', NULL)$$, '22004', NULL,
                 '_pbs_record without a time zone: 22004');

-- headers that are not sacct's
TRUNCATE import_staging;
INSERT INTO import_staging (line) VALUES ('1|u|a|std|cpu=1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|COMPLETED');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC')$$, '22P02',
                 'the first staged line is not an sacct --parsable2 header: column JobID is missing',
                 'an export without its header (sacct -n): 22P02');
TRUNCATE import_staging;
INSERT INTO import_staging (line) VALUES ('JobID|User|Account|Partition|Submit|Start|End|State|State|AllocTRES');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC')$$, '22P02',
                 'sacct header names column State twice', 'a column named twice: 22P02');
TRUNCATE import_staging;
INSERT INTO import_staging (line) VALUES ('JobID|User|Account|Partition|Submit|Start|End|State');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC')$$, '22P02', NULL,
                 'a header without AllocTRES, ReqTRES or AllocCPUS: 22P02');

-- ---------------------------------------------------------------------------
-- Defined answers for odd input
-- ---------------------------------------------------------------------------
-- a header and blank lines only: nothing to do, nothing rejected
TRUNCATE import_staging RESTART IDENTITY;
INSERT INTO import_staging (line) VALUES ('JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State'), (''), (NULL);
SELECT results_eq($$SELECT lines_read, imported, folded, skipped, rejected FROM import_sacct('tap', 'UTC')$$,
                  $$VALUES (3::bigint, 0::bigint, 0::bigint, 3::bigint, 0::bigint)$$,
                  'header + 2 blank lines: 3 read, 3 skipped');
SELECT is((SELECT count(*) FROM import_staging), 0::bigint, 'a successful import empties the staging table');

-- the cluster's time zone when none is given (Europe/Paris: 12:00 CET = 11:00 UTC)
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State'),
  ('1|u|a|std|cpu=2,mem=1G|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|CANCELLED by 0'),
  ('1.batch||a||cpu=2,mem=1G|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|CANCELLED'),
  ('2|u|a|std|cpu=1,mem=1G|2026-01-05T12:00:00|None|2026-01-05T12:05:00|CANCELLED+');
SELECT results_eq($$SELECT lines_read, imported, folded, skipped, rejected FROM import_sacct('tap')$$,
                  $$VALUES (4::bigint, 2::bigint, 1::bigint, 1::bigint, 0::bigint)$$,
                  '2 jobs, 1 step folded, the header skipped');
SELECT results_eq($$SELECT job_id, state, start_time, end_time, cpus, mem_mb FROM jobs WHERE cluster = 'tap' ORDER BY job_id$$,
                  $$VALUES ('1', 'CANCELLED', '2026-01-05 11:00+00'::timestamptz, '2026-01-05 11:10+00'::timestamptz, 2, 1024::bigint),
                           ('2', 'CANCELLED', NULL, '2026-01-05 11:05+00'::timestamptz, 1, 1024::bigint)$$,
                  '"CANCELLED by 0" and "CANCELLED+" are CANCELLED; None is NULL; local times read in Europe/Paris');

-- limits: counts beyond integer, absurd sizes, out-of-range dates
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|AllocTRES|Submit|Start|End|State'),
  ('10|u|a|std|99999999999||2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('11|u|a|std|1|cpu=3000000000|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('12|u|a|std|1|cpu=1,mem=1e400G|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('13|u|a|std|1|cpu=nan|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('14|u|a|std|1|cpu=-1|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('15|u|a|std|1|cpu=1|0000-01-01T00:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('16|u|a|std|1|cpu=1|2026-02-30T00:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('17|u|a|std|1|cpu=1|2026-01-05T24:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('18_[1-3,x]|u|a|std|1|cpu=1|2026-01-05T12:00:00|Unknown|Unknown|PENDING');
SELECT results_eq($$SELECT imported, rejected FROM import_sacct('tap', 'UTC')$$,
                  $$VALUES (0::bigint, 9::bigint)$$, 'every out-of-range line rejected');
SELECT results_eq($$SELECT line_no, sqlstate FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no$$,
                  $$VALUES (2::bigint, '22P02'), (3, '22P02'), (4, '22P02'), (5, '22P02'), (6, '22P02'),
                           (7, '22008'), (8, '22008'), (9, '22008'), (10, '22P02')$$,
                  'each with its SQLSTATE: counts 22P02, impossible dates 22008');
SELECT is((SELECT reason FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports) AND line_no = 4),
          'TRES "cpu=1,mem=1e400G": value out of range in "mem=1e400G"', 'a TRES value beyond float8 is named');

-- all_or_nothing: the first bad line's SQLSTATE, and nothing stays
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State'),
  ('20|u|a|std|cpu=1|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED'),
  ('21|nobody|a|std|cpu=1|2026-01-05T12:00:00|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC', all_or_nothing => true)$$, '23503',
                 'line 3: user ''nobody'' has no association with account ''a'' on cluster ''tap'' (fairshare.account_users)',
                 'all_or_nothing: an unknown user is 23503');
SELECT is((SELECT count(*) FROM jobs WHERE cluster = 'tap' AND job_id = '20'), 0::bigint,
          'all_or_nothing: the good line is not imported either');
INSERT INTO import_staging (line) VALUES
  ('22|u|a|std|cpu=1|yesterday|2026-01-05T12:00:00|2026-01-05T12:10:00|COMPLETED');
SELECT throws_ok($$SELECT * FROM import_sacct('tap', 'UTC', all_or_nothing => true, create_missing => true)$$, '22008', NULL,
                 'all_or_nothing: a malformed time is 22008 even when the user would be created');
SELECT is((SELECT count(*) FROM account_users WHERE cluster = 'tap' AND user_name = 'nobody'), 0::bigint,
          'all_or_nothing: nothing created either');
-- the same lines without all_or_nothing: the good one in, the others listed
SELECT results_eq($$SELECT imported, rejected FROM import_sacct('tap', 'UTC')$$,
                  $$VALUES (1::bigint, 2::bigint)$$, 'without all_or_nothing: 1 imported, 2 rejected');
SELECT results_eq($$SELECT line_no, job_id, sqlstate FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports) ORDER BY line_no$$,
                  $$VALUES (3::bigint, '21', '23503'), (4, '22', '22008')$$, 'rejects name line, job and SQLSTATE');

-- the line parsers, directly
SELECT is((fairshare_internal._sacct_line('5.extern||a||||||COMPLETED', 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 'UTC', 'tap')).kind,
          'lone_step', 'a step with no job line before it is a lone_step');
SELECT results_eq($$SELECT (r).kind, (r).job_id FROM (SELECT fairshare_internal._sacct_line(l, 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 'UTC', 'tap') AS r
                      FROM (VALUES ('7_3+0|u|a|std|cpu=1|2026-01-05T12:00:00|Unknown|Unknown|PENDING')) v(l)) x$$,
                  $$VALUES ('reject', NULL::text)$$, 'an array task that is also a het component is not a Slurm job id');
SELECT is((fairshare_internal._sacct_line('8|u|a|std|cpu=1|2026-01-05T12:00:00|Unknown|Unknown|PENDING', 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 'UTC', 'tap')).start_time,
          NULL, 'Unknown is NULL');
SELECT is((fairshare_internal._sacct_line(NULL, 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 'UTC', 'tap')).kind,
          'blank', 'a NULL line is blank');
SELECT is((fairshare_internal._pbs_record('11/21/2026 08:00:00;L;license;floating license hour:0 day:0 month:0 max:0', 'UTC')).kind,
          'skip', 'a PBS license record carries no job usage');
SELECT is((fairshare_internal._pbs_record('11/21/2026 08:00:00;E;7[].srv;user=u queue=std', 'UTC')).kind,
          'skip', 'a PBS array parent is skipped: its subjobs carry the usage');
SELECT is((fairshare_internal._pbs_record('11/21/2026 08:00:00;E;7.srv;user=u queue=std Resource_List.mem=1kb', 'UTC')).mem_mb,
          1::bigint, 'PBS sizes round up to whole MiB (1kb -> 1)');
SELECT is((fairshare_internal._pbs_record('11/21/2026 08:00:00;E;7.srv;user=u queue=std Resource_List.mem=3w', 'UTC')).mem_mb,
          1::bigint, 'PBS word sizes are 8 bytes each');
SELECT is((fairshare_internal._pbs_record('11/21/2026 08:00:00;S;7.srv;user=u queue=std exec_host=n1/0*4+n2/0*4+n1/1*2', 'UTC')).tres,
          'cpu=10,mem=0M,node=2', 'exec_host: CPUs summed, hosts counted once');
SELECT is((fairshare_internal._pbs_record('11/21/2026 08:00:00;E;7.srv;Exit_status=-29 start=0', 'UTC')).start_time,
          NULL, 'start=0 is a job that never started');
SELECT is((fairshare_internal._pbs_record('02/29/2026 08:00:00;E;7.srv;user=u', 'UTC')).sqlstate,
          '22008', '29 February of a common year is not a record time');

-- an empty PBS log (a day without records) is an import of nothing
SELECT import_stage();
SELECT results_eq($$SELECT lines_read, imported, rejected FROM import_pbs('tap', 'UTC')$$,
                  $$VALUES (0::bigint, 0::bigint, 0::bigint)$$, 'PBS: an empty log imports nothing, without error');

-- PBS: the record format end to end
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('01/05/2026 12:00:00;Q;30.srv;user=u group=g account="a" jobname=j queue=std ctime=1767610800 qtime=1767610800 etime=1767610800 Resource_List.ncpus=2 Resource_List.mem=2gb Resource_List.walltime=01:00:00'),
  ('01/05/2026 12:00:10;S;30.srv;user=u group=g account="a" jobname=j queue=std ctime=1767610800 qtime=1767610800 etime=1767610800 start=1767610810 exec_host=n1/0*2 Resource_List.ncpus=2 Resource_List.mem=2gb Resource_List.walltime=01:00:00'),
  ('01/05/2026 12:10:10;E;30.srv;user=u group=g account="a" jobname=j queue=std ctime=1767610800 qtime=1767610800 etime=1767610800 start=1767610810 exec_host=n1/0*2 Resource_List.ncpus=2 Resource_List.mem=2gb Resource_List.walltime=01:00:00 session=9 end=1767611410 Exit_status=0 resources_used.walltime=00:10:00 resources_used.cput=00:19:00 resources_used.mem=1000kb resources_used.ncpus=2 run_count=1');
SELECT results_eq($$SELECT lines_read, imported, folded FROM import_pbs('tap', 'Europe/Paris')$$,
                  $$VALUES (3::bigint, 1::bigint, 2::bigint)$$, 'PBS: Q, S, E fold into one job');
SELECT results_eq($$SELECT state, start_time, end_time, tres, time_limit FROM jobs WHERE cluster = 'tap' AND job_id = '30.srv'$$,
                  $$VALUES ('COMPLETED', '2026-01-05 11:00:10+00'::timestamptz, '2026-01-05 11:10:10+00'::timestamptz,
                            'cpu=2,mem=2048M,node=1', '01:00:00'::interval)$$,
                  'PBS: epoch times, Resource_List as TRES, walltime as the limit');

SELECT * FROM finish();
ROLLBACK;
