-- slurmdbd: the live feed and the decisions (docs/slurmdbd.md),
-- without a Slurm: the helpers that print slurmdbd's values as sacct does,
-- the errors, a foreign server that cannot be read, and a real capture of
-- slurmdbd's tables (test/fixtures/slurm/feed/, written by
-- test/slurm/feed.sh: Slurm 22.05, no decay; a requeued job, a suspended
-- one, one cancelled while pending, a two-task array) read from local
-- tables standing in for the foreign ones.  The sync must store the runs
-- that the same cluster's `sacct -a -P --duplicates` export imports, and
-- sshare_at must equal the sshare -a -l -P taken then.
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;
SET intervalstyle = 'postgres';
\set SHOW_CONTEXT never
-- (the syncs' NOTICE names the import's id, which depends on the suites before)
SET client_min_messages = warning;

-- ===========================================================================
-- 1. slurmdbd's values as sacct prints them
-- ===========================================================================
-- memory in MB: 4096 = 4 × 1024 -> 4G; 1500 is not a multiple of 1024 ->
-- 1500M; 1048576 = 1024² -> 1T
SELECT fairshare_internal._slurm_mem_text(4096) AS "4096", fairshare_internal._slurm_mem_text(1500) AS "1500", fairshare_internal._slurm_mem_text(1048576) AS "1048576";
-- time limits in minutes: 10; 1500 = 1 day + 60 min; INFINITE; NO_VAL
SELECT fairshare_internal._slurm_minutes_text(10) AS "10", fairshare_internal._slurm_minutes_text(1500) AS "1500",
       fairshare_internal._slurm_minutes_text(4294967295) AS infinite, fairshare_internal._slurm_minutes_text(4294967294) AS no_val;
-- seconds: 16; 90061 = 1 day + 1 h + 1 min + 1 s
SELECT fairshare_internal._slurm_seconds_text(16) AS "16", fairshare_internal._slurm_seconds_text(90061) AS "90061";
-- states: 3 COMPLETE; 4 CANCELLED; 1024 = JOB_REQUEUE; 1024 + 3; 99 unknown (NULL)
SELECT fairshare_internal._slurmdbd_state(3) AS "3", fairshare_internal._slurmdbd_state(4) AS "4", fairshare_internal._slurmdbd_state(1024) AS "1024",
       fairshare_internal._slurmdbd_state(1027) AS "1027", fairshare_internal._slurmdbd_state(99) AS "99";
-- instants: 0 is none; 1795615644 = 2026-11-25 14:07:24 UTC
SELECT fairshare_internal._slurmdbd_time(0) AS "0", fairshare_internal._slurmdbd_time(1795615644) AS "1795615644";
-- names sacctmgr takes as one argument naming one entity, and why not
SELECT to_json(n) AS name, fairshare_internal._slurm_name_problem(n) AS problem, fairshare_internal._slurm_name_shown(n) AS shown
  FROM unnest(ARRAY['chem', 'john.doe@lab', 'a_1-b', 'proj,root', '-Mother', '-V', E'csub\ntouch x #', E'tab\tbed',
                    'a b', 'a[1-2]', 'it''s', '"q"', 'x=y', 'Chem', 'café', '', repeat('a', 65), repeat('a', 64)]) n;

-- ===========================================================================
-- 2. Errors
-- ===========================================================================
SELECT slurmdbd_connect('oracle', 'slurmdbd');          -- no such cluster
INSERT INTO clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000),
  ('oracle', 'parked', 'CPU=2.0,Mem=0.25G', 200, 1, 64, 256000);
SELECT slurmdbd_connect('oracle', 'slurmdbd');          -- no such server
SELECT slurmdbd_connect('oracle', NULL);
CALL sync_slurmdbd('oracle');                           -- no feed yet
CALL sync_slurmdbd(NULL);
SELECT * FROM slurm_decisions('oracle');

-- A foreign server whose wrapper has no handler: every read fails, as with
-- MariaDB down.  The sync fails with 08001 before writing anything.
CREATE FOREIGN DATA WRAPPER fs_regress_nowhere;
CREATE SERVER fs_regress_nowhere FOREIGN DATA WRAPPER fs_regress_nowhere;
SELECT slurmdbd_connect('oracle', 'fs_regress_nowhere', 'fs_regress_slurmdbd');
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'fs_regress_slurmdbd' ORDER BY 1;
\set VERBOSITY default
CALL sync_slurmdbd('oracle');
SELECT * FROM slurm_decisions('oracle');
\set VERBOSITY terse
SELECT job_mark, assoc_mark, last_sync, (SELECT count(*) FROM accounts WHERE cluster = 'oracle') AS accounts,
       (SELECT count(*) FROM imports WHERE cluster = 'oracle') AS imports
  FROM slurmdbd_feeds;
DROP SCHEMA fs_regress_slurmdbd CASCADE;

-- ===========================================================================
-- 3. A real slurmdbd, captured: the same runs as sacct, and sshare
-- ===========================================================================
CREATE SCHEMA captured;
CREATE TABLE captured.job_table (
    job_db_inx bigint, mod_time bigint, deleted integer, account text, array_task_str text,
    id_array_job bigint, id_array_task bigint, id_assoc bigint, id_job bigint, id_qos bigint,
    het_job_id bigint, het_job_offset bigint, nodes_alloc bigint, cpus_req bigint, "partition" text,
    state bigint, timelimit bigint, time_submit bigint, time_eligible bigint, time_start bigint,
    time_end bigint, time_suspended bigint, tres_alloc text, tres_req text, id_resv bigint);
CREATE TABLE captured.assoc_table (
    mod_time bigint, deleted integer, id_assoc bigint, "user" text, acct text, "partition" text,
    parent_acct text, lft bigint, shares bigint, grp_tres_mins text, def_qos_id bigint, qos text);
CREATE TABLE captured.tres_table (id bigint, deleted integer, type text, name text);
CREATE TABLE captured.qos_table (id bigint, deleted integer, name text);
-- slurmdbd's schema version: 22.05.8 keeps 12 (CONVERT_VERSION of
-- as_mysql_convert.c, "12 was the second version of 22.05")
CREATE TABLE captured.convert_version_table (version bigint);
INSERT INTO captured.convert_version_table VALUES (12);
\copy captured.job_table FROM 'test/fixtures/slurm/feed/job_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
\copy captured.assoc_table FROM 'test/fixtures/slurm/feed/assoc_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
\copy captured.tres_table FROM 'test/fixtures/slurm/feed/tres_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
\copy captured.qos_table FROM 'test/fixtures/slurm/feed/qos_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
UPDATE slurmdbd_feeds SET foreign_schema = 'captured';
-- slurmdbd's rows: 8 job rows (job 3 twice: its requeued run has state
-- 1024; job 6 cancelled before it started), the tree of test/slurm/lib.sh
SELECT id_job, id_array_job, id_array_task, id_assoc, state, CASE WHEN time_start > 0 THEN time_end - time_start END AS seconds, time_suspended, tres_alloc
  FROM captured.job_table ORDER BY job_db_inx;
SELECT id_assoc, "user", acct, parent_acct, lft, shares FROM captured.assoc_table ORDER BY lft;

CALL sync_slurmdbd('oracle');
SELECT account, parent_account, shares FROM accounts WHERE cluster = 'oracle' ORDER BY account;
SELECT account, user_name, shares FROM account_users WHERE cluster = 'oracle' ORDER BY account, user_name;
SELECT lines_read, imported, updated, unchanged, rejected FROM imports WHERE import_id = (SELECT last_import_id FROM slurmdbd_feeds);
-- the marks: the newest mod_time of the job rows and of the associations;
-- the release read from the schema version (12: 22.05), which becomes the
-- cluster's too, whose reports print as its sreport (clusters.slurm_version,
-- docs/slurm.md#which-release-a-cluster-runs)
SELECT job_mark = (SELECT max(mod_time) FROM captured.job_table) AS job_mark_ok,
       assoc_mark = (SELECT max(mod_time) FROM captured.assoc_table) AS assoc_mark_ok,
       last_jobs_read, slurm_version, last_slurm_version,
       (SELECT k.slurm_version FROM clusters k WHERE k.cluster = 'oracle') AS cluster_release
  FROM slurmdbd_feeds;
-- again: nothing changes
CALL sync_slurmdbd('oracle');
SELECT lines_read, imported, updated, unchanged, rejected FROM imports WHERE import_id = (SELECT last_import_id FROM slurmdbd_feeds);

-- the same cluster's sacct -a -P --duplicates, imported: the same runs,
-- every column (no row below either way)
CREATE TEMP TABLE fed AS SELECT * FROM jobs WHERE cluster = 'oracle';
DELETE FROM jobs WHERE cluster = 'oracle';
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/feed/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT 'feed only' AS side, * FROM (SELECT * FROM fed EXCEPT SELECT * FROM jobs WHERE cluster = 'oracle') x
UNION ALL
SELECT 'sacct only', * FROM (SELECT * FROM jobs WHERE cluster = 'oracle' EXCEPT SELECT * FROM fed) y;
SELECT job_id, state, start_time, end_time, suspended, tres FROM fed ORDER BY job_id, submit_time;

-- sshare_at at the instant the real sshare was taken (after every job had
-- ended and a decay pass; no decay, so raw usage = Σ billing × seconds):
-- every column of every row at Slurm's printed digits
CREATE TEMP TABLE slurm_sshare (account text, user_name text, raw_shares text, norm_shares text,
    raw_usage text, norm_usage text, effectv_usage text, fairshare text, level_fs text,
    grp_tres_mins text, tres_run_mins text);
\copy slurm_sshare FROM 'test/fixtures/slurm/feed/sshare.txt' (FORMAT csv, DELIMITER '|', HEADER)
CREATE FUNCTION pg_temp.f6(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '' WHEN x = 'Infinity' THEN 'inf'
                ELSE to_char(x, 'FM99999999990.000000') END $$;
WITH ours AS (
    SELECT s.account, COALESCE(s.user_name, '') AS user_name,
           COALESCE(s.raw_shares::text, '') AS raw_shares, pg_temp.f6(s.norm_shares) AS norm_shares,
           s.raw_usage_int::text AS raw_usage, pg_temp.f6(s.norm_usage) AS norm_usage,
           pg_temp.f6(s.effectv_usage) AS effectv_usage, pg_temp.f6(s.fairshare) AS fairshare,
           pg_temp.f6(s.level_fs) AS level_fs, COALESCE(s.grp_tres_mins, '') AS grp_tres_mins
      FROM sshare_at((SELECT max(end_time) FROM fed) + interval '1 minute') s WHERE s.cluster = 'oracle'),
theirs AS (
    SELECT btrim(t.account) AS account, COALESCE(t.user_name, '') AS user_name,
           COALESCE(t.raw_shares, '') AS raw_shares, COALESCE(t.norm_shares, '') AS norm_shares,
           COALESCE(t.raw_usage, '') AS raw_usage, COALESCE(t.norm_usage, '') AS norm_usage,
           COALESCE(t.effectv_usage, '') AS effectv_usage, COALESCE(t.fairshare, '') AS fairshare,
           COALESCE(t.level_fs, '') AS level_fs, COALESCE(t.grp_tres_mins, '') AS grp_tres_mins
      FROM slurm_sshare t)
SELECT (SELECT count(*) FROM theirs) AS slurm_rows, count(*) FILTER (WHERE c.slurm IS DISTINCT FROM c.ours) AS differing,
       string_agg(COALESCE(t.account, o.account) || '/' || COALESCE(t.user_name, o.user_name) || ' ' || c.col, ', ')
           FILTER (WHERE c.slurm IS DISTINCT FROM c.ours) AS which
  FROM theirs t FULL JOIN ours o ON o.account = t.account AND o.user_name = t.user_name
 CROSS JOIN LATERAL (VALUES
    ('row', CASE WHEN t.account IS NULL THEN 'missing' ELSE 'present' END,
            CASE WHEN o.account IS NULL THEN 'missing' ELSE 'present' END),
    ('RawShares', t.raw_shares, o.raw_shares), ('NormShares', t.norm_shares, o.norm_shares),
    ('RawUsage', t.raw_usage, o.raw_usage), ('NormUsage', t.norm_usage, o.norm_usage),
    ('EffectvUsage', t.effectv_usage, o.effectv_usage), ('FairShare', t.fairshare, o.fairshare),
    ('LevelFS', t.level_fs, o.level_fs), ('GrpTRESMins', t.grp_tres_mins, o.grp_tres_mins)) AS c (col, slurm, ours);

-- ===========================================================================
-- 4. Decisions against the captured slurmdbd
-- ===========================================================================
-- slurmdbd matches fairshare: nothing to do
SELECT count(*) AS commands FROM slurm_decisions('oracle');
BEGIN;
-- chem's Fairshare decided here (3), a user added here, and a GENCI
-- allocation of 100 h with 40 h taken back: 60 h net = 3600 billing
-- minutes; as of 2026-11-25, inside its period
UPDATE accounts SET shares = 3 WHERE cluster = 'oracle' AND account = 'chem';
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('oracle', 'chem', 'dave', NULL);
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', 'chem', 'genci', '2026-01-01', '2026-12-31', 100);
INSERT INTO ledger (allocation_id, kind, hours, reason, effective_date)
SELECT allocation_id, 'take_back', 40, 'regress', '2026-11-01' FROM allocations WHERE account = 'chem';
SELECT step, account, user_name, command, regexp_replace(reason, 'allocation [0-9]+', 'allocation <id>') AS reason
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
-- the same as rows: the entity, the settings, sacctmgr's arguments (what
-- tools/fairshare_apply_decisions runs, no shell), nothing refused
SELECT step, entity, account, user_name, attributes, argv, refused
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
-- an allocation that ended: the limit goes to 0
SELECT step, account, command, regexp_replace(reason, 'allocation [0-9]+', 'allocation <id>') AS reason
  FROM slurm_decisions('oracle', '2027-01-05 12:00+00') WHERE step = 5;
-- once slurmdbd holds them (the captured association rows changed as
-- sacctmgr would), nothing is left
UPDATE captured.assoc_table SET shares = 3, grp_tres_mins = '5=3600' WHERE acct = 'chem' AND "user" = '';
INSERT INTO captured.assoc_table (mod_time, deleted, id_assoc, "user", acct, "partition", parent_acct, lft, shares, grp_tres_mins, def_qos_id, qos)
VALUES (1795615700, 0, 42, 'dave', 'chem', '', '', 7, 2147483647, '', NULL, '');
SELECT count(*) AS commands FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
ROLLBACK;

-- ===========================================================================
-- 4b. GrpTRESMins: the limits slurmdbd holds after the decisions were
--     applied (test/slurm/feed.sh ran decisions.txt; assoc_after.txt is
--     sacctmgr's listing then, sshare_after.txt the real sshare -a -l -P once
--     slurmctld held them) reach sshare_at's GrpTRESMins
-- ===========================================================================
BEGIN;
-- the association rows as sacctmgr left them: chem 60 h net = billing
-- (TRES id 5) 3600 minutes, phys blocked and the ended account old at 0
UPDATE captured.assoc_table SET shares = 3, grp_tres_mins = '5=3600', mod_time = mod_time + 1000 WHERE acct = 'chem' AND "user" = '';
UPDATE captured.assoc_table SET grp_tres_mins = '5=0', mod_time = mod_time + 1000 WHERE acct = 'phys' AND "user" = '';
INSERT INTO captured.assoc_table (mod_time, deleted, id_assoc, "user", acct, "partition", parent_acct, lft, shares, grp_tres_mins, def_qos_id, qos)
VALUES ((SELECT max(mod_time) + 1 FROM captured.assoc_table), 0, 43, '', 'old', '', 'root', 15, 5, '5=0', NULL, '');
CALL sync_slurmdbd('oracle');
SELECT account, grp_tres_mins FROM accounts WHERE cluster = 'oracle' ORDER BY account;
-- the history of the tree: chem's share change (2 -> 3) recorded at
-- slurmdbd's mod_time of its row (the captured one + 1000 s), not at the
-- sync; the limits and the new account old are no change of the tree
-- (docs/history.md#how-an-instant-is-recorded)
SELECT h.account, h.shares, h.valid_from, h.valid_to,
       COALESCE(h.valid_to, h.valid_from) = to_timestamp(x.mod_time) AS at_mod_time
  FROM account_history h
  JOIN captured.assoc_table x ON x.acct = h.account AND x."user" = ''
 WHERE h.cluster = 'oracle' ORDER BY h.account, h.valid_from;
SELECT count(*) AS user_versions FROM account_user_history WHERE cluster = 'oracle';
-- the limits keep their history at slurmdbd's mod_time of each row
-- (docs/history.md#the-history-of-the-limits): sshare_at reads them after
-- the last change, as the real sshare was taken after it
SELECT h.account, h.user_name, h.grp_tres_mins, h.valid_from = to_timestamp(x.mod_time) AS at_mod_time, h.valid_to
  FROM limit_history h
  JOIN captured.assoc_table x ON x.acct = h.account AND x."user" = h.user_name
 WHERE h.cluster = 'oracle' AND h.valid_to IS NULL ORDER BY 1, 2;
SELECT to_timestamp(max(mod_time)) + interval '1 minute' AS after_limits FROM captured.assoc_table \gset
CREATE TEMP TABLE assoc_after (account text, user_name text, parent text, fairshare text, grp_tres_mins text);
\copy assoc_after FROM 'test/fixtures/slurm/feed/assoc_after.txt' (FORMAT csv, DELIMITER '|')
-- every association of sacctmgr's listing, its GrpTRESMins and sshare_at's
-- (sshare prints the same limit; differing: the rows where they differ)
SELECT a.account, COALESCE(a.user_name, '') AS user_name, COALESCE(a.grp_tres_mins, '') AS sacctmgr,
       COALESCE(s.grp_tres_mins, '') AS sshare_at,
       COALESCE(a.grp_tres_mins, '') IS DISTINCT FROM COALESCE(s.grp_tres_mins, '') AS differing
  FROM assoc_after a
  LEFT JOIN sshare_at(:'after_limits') s
    ON s.cluster = 'oracle' AND s.account = a.account AND s.user_name IS NOT DISTINCT FROM a.user_name
 ORDER BY 1, 2;
-- and the real sshare's GrpTRESMins column, every row
CREATE TEMP TABLE sshare_after (account text, user_name text, raw_shares text, norm_shares text,
    raw_usage text, norm_usage text, effectv_usage text, fairshare text, level_fs text,
    grp_tres_mins text, tres_run_mins text);
\copy sshare_after FROM 'test/fixtures/slurm/feed/sshare_after.txt' (FORMAT csv, DELIMITER '|', HEADER)
SELECT btrim(t.account) AS account, COALESCE(t.user_name, '') AS user_name, COALESCE(t.grp_tres_mins, '') AS sshare,
       COALESCE(s.grp_tres_mins, '') AS sshare_at,
       COALESCE(t.grp_tres_mins, '') IS DISTINCT FROM COALESCE(s.grp_tres_mins, '') AS differing
  FROM sshare_after t
  LEFT JOIN sshare_at(:'after_limits') s
    ON s.cluster = 'oracle' AND s.account = btrim(t.account) AND s.user_name IS NOT DISTINCT FROM t.user_name
 ORDER BY s.tree_order;
-- several TRES on a user association, in slurmdbd's id order (billing 5
-- before cpu 1 here; -1 is no limit): sshare's order is cpu, mem, energy,
-- node, billing, ..., so cpu=600,billing=120, the -1 left out
UPDATE captured.assoc_table SET grp_tres_mins = '5=120,1=600,2=-1', mod_time = mod_time + 2000 WHERE acct = 'chem' AND "user" = 'alice';
CALL sync_slurmdbd('oracle');
SELECT account, user_name, grp_tres_mins FROM account_users WHERE cluster = 'oracle' AND grp_tres_mins IS NOT NULL;
-- set by hand (a centre without the feed): names in any order, each TRES
-- once (the last one given counts, as sacctmgr)
UPDATE account_users SET grp_tres_mins = 'gres/gpu=30,billing=50,cpu=10,billing=70' WHERE cluster = 'oracle' AND account = 'phys' AND user_name = 'carol';
-- (now: the change by hand is recorded at now())
SELECT account, user_name, grp_tres_mins FROM sshare_at(now())
 WHERE cluster = 'oracle' AND grp_tres_mins IS NOT NULL ORDER BY tree_order;
-- malformed limits are refused
\set VERBOSITY default
SAVEPOINT bad;
UPDATE accounts SET grp_tres_mins = 'billing=-1' WHERE cluster = 'oracle' AND account = 'chem';
ROLLBACK TO bad;
UPDATE account_users SET grp_tres_mins = 'billing' WHERE cluster = 'oracle' AND account = 'chem' AND user_name = 'bob';
ROLLBACK TO bad;
\set VERBOSITY terse
-- a move as slurmdbd 24.11 makes it: the new parent, no new mod_time
-- (docs/slurm.md#the-tree-changes): the feed sees it by the parent, and
-- records it at the sync (now()), the stale mod_time being no instant of it
-- (phys's row is older than the feed's mark: old's, read last)
UPDATE captured.assoc_table SET parent_acct = 'chem' WHERE acct = 'phys' AND "user" = '';
SELECT (SELECT mod_time FROM captured.assoc_table WHERE acct = 'phys' AND "user" = '')
       < (SELECT assoc_mark FROM slurmdbd_feeds WHERE cluster = 'oracle') AS before_mark;
CALL sync_slurmdbd('oracle');
SELECT account, parent_account FROM accounts WHERE cluster = 'oracle' AND account = 'phys';
SELECT parent_account, valid_from = now() AS from_sync, valid_to = now() AS to_sync
  FROM account_history WHERE cluster = 'oracle' AND account = 'phys' ORDER BY valid_from;
ROLLBACK;

-- ===========================================================================
-- 5. A rename in slurmdbd (same association id, another name; slurmdbd
--    leaves mod_time as it was) follows through to the runs
-- ===========================================================================
UPDATE captured.assoc_table SET "user" = 'robert' WHERE "user" = 'bob';
CALL sync_slurmdbd('oracle');
SELECT account, user_name, (SELECT count(*) FROM jobs j WHERE j.cluster = u.cluster AND j.account = u.account AND j.user_name = u.user_name) AS runs
  FROM account_users u WHERE cluster = 'oracle' AND user_name IN ('bob', 'robert') ORDER BY 1, 2;

-- ===========================================================================
-- 6. A pending run held to a later BeginTime (a requeued job is held about
--    two minutes) and then started early (scontrol update StartTime=now):
--    the stored run's eligible time (14:33:34) is after the line's start and
--    end; the line is still newer (the run started) and updates it.  Seen
--    live by test/slurm/feed.sh: the sync stored the pending run, and the
--    next ones left it pending.
-- ===========================================================================
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|QOS|AllocCPUS|ReqTRES|AllocTRES|Submit|Eligible|Start|End|State|NNodes|Cluster|Timelimit|Suspended'),
  ('77|carol|phys|big|normal|4|billing=18,cpu=4,mem=2G,node=1||2026-11-25T14:31:33|2026-11-25T14:33:34|Unknown|Unknown|PENDING|1|oracle|00:10:00|00:00:00');
SELECT imported, updated, unchanged FROM import_sacct('oracle', 'UTC');
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|QOS|AllocCPUS|ReqTRES|AllocTRES|Submit|Eligible|Start|End|State|NNodes|Cluster|Timelimit|Suspended'),
  ('77|carol|phys|big|normal|4|billing=18,cpu=4,mem=2G,node=1|billing=18,cpu=4,mem=2G,node=1|2026-11-25T14:31:33|2026-11-25T14:31:48|2026-11-25T14:31:48|2026-11-25T14:32:28|COMPLETED|1|oracle|00:10:00|00:00:00');
SELECT imported, updated, unchanged FROM import_sacct('oracle', 'UTC');
-- and an older export loaded after it changes nothing
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|QOS|AllocCPUS|ReqTRES|AllocTRES|Submit|Eligible|Start|End|State|NNodes|Cluster|Timelimit|Suspended'),
  ('77|carol|phys|big|normal|4|billing=18,cpu=4,mem=2G,node=1||2026-11-25T14:31:33|2026-11-25T14:33:34|Unknown|Unknown|PENDING|1|oracle|00:10:00|00:00:00');
SELECT imported, updated, unchanged FROM import_sacct('oracle', 'UTC');
SELECT job_id, state, eligible_time, start_time, end_time FROM jobs WHERE cluster = 'oracle' AND job_id = '77';

-- ===========================================================================
-- 7. Names no sacctmgr command can carry (a comma: two entities; a leading
--    -: an option; a newline: a second shell command; a capital: another
--    name once lowercased) are refused, with the reason, and never reach
--    an argument vector; the reasons stay on one line
-- ===========================================================================
BEGIN;
-- proj,root: in slurmdbd and fairshare alike, its allocation ended
-- (limit 0: modifying "proj,root" would modify root too)
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('oracle', 'proj,root', 'root', 1);
INSERT INTO captured.assoc_table (mod_time, deleted, id_assoc, "user", acct, "partition", parent_acct, lft, shares, grp_tres_mins, def_qos_id, qos)
VALUES (1795615700, 0, 50, '', 'proj,root', '', 'root', 20, 1, '', NULL, '');
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', 'proj,root', 'genci', '2025-01-01', '2025-12-31', 10);
-- -mother: in fairshare only, a GENCI allocation of 10 h running (10 h ×
-- 60 = 600 minutes)
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('oracle', '-mother', 'root', 1);
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', '-mother', 'genci', '2026-01-01', '2026-12-31', 10);
-- a newline: in both, its Fairshare decided here (2, slurmdbd 1)
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('oracle', E'csub\ntouch x #', 'root', 2);
INSERT INTO captured.assoc_table (mod_time, deleted, id_assoc, "user", acct, "partition", parent_acct, lft, shares, grp_tres_mins, def_qos_id, qos)
VALUES (1795615700, 0, 51, '', E'csub\ntouch x #', '', 'root', 22, 1, '', NULL, '');
-- users: two at once, and a capital
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('oracle', 'chem', 'alice,mallory', 1), ('oracle', 'chem', 'Eve', 1);
-- and a plain account of fairshare only, with a child of the newline one:
-- bio goes, the child is refused for its parent's name
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('oracle', 'bio', 'root', 4),
    ('oracle', 'sub', E'csub\ntouch x #', 1);
SELECT step, entity, to_json(account) AS account, to_json(user_name) AS user_name, argv, refused
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
-- the reasons: one line each, the hostile names escaped as JSON strings
SELECT step, regexp_replace(reason, 'allocation [0-9]+', 'allocation <id>') AS reason, reason ~ '[[:cntrl:]]' AS control
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
-- nothing refused carries a command, nothing run carries a name refused
SELECT count(*) FILTER (WHERE refused IS NOT NULL) AS refused,
       count(*) FILTER (WHERE refused IS NOT NULL AND (argv IS NOT NULL OR command IS NOT NULL)) AS refused_with_command,
       count(*) FILTER (WHERE refused IS NULL AND EXISTS (SELECT FROM unnest(argv) a WHERE a !~ '^[A-Za-z0-9_.@/=-]+$' OR (a ~ '^-' AND a <> '-i'))) AS unsafe_argument
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
ROLLBACK;

-- ===========================================================================
-- 8. An overdrawn GENCI allocation is blocked (limit 0), never unlimited:
--    100 h granted, 150 h taken back = -50 h net = -3000 minutes, which
--    sacctmgr would store as 2^64 - 3000, no limit
-- ===========================================================================
BEGIN;
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', 'chem', 'genci', '2026-01-01', '2026-12-31', 100);
INSERT INTO ledger (allocation_id, kind, hours, reason, effective_date)
SELECT allocation_id, 'take_back', 150, 'regress', '2026-11-01' FROM allocations WHERE account = 'chem';
-- slurmdbd has no limit: set it to 0
SELECT step, account, argv, regexp_replace(reason, 'allocation [0-9]+', 'allocation <id>') AS reason
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00') WHERE step = 5;
-- slurmdbd has 3600 minutes: to 0 as well
UPDATE captured.assoc_table SET grp_tres_mins = '5=3600' WHERE acct = 'chem' AND "user" = '';
SELECT step, account, argv, regexp_replace(reason, 'allocation [0-9]+', 'allocation <id>') AS reason
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00') WHERE step = 5;
-- slurmdbd keeps INFINITE64 (2^64 - 1 = 18446744073709551615): no limit
UPDATE captured.assoc_table SET grp_tres_mins = '5=18446744073709551615' WHERE acct = 'chem' AND "user" = '';
SELECT step, account, argv, regexp_replace(reason, 'allocation [0-9]+', 'allocation <id>') AS reason
  FROM slurm_decisions('oracle', '2026-11-25 12:00+00') WHERE step = 5;
-- slurmdbd holds 0: nothing left
UPDATE captured.assoc_table SET grp_tres_mins = '5=0' WHERE acct = 'chem' AND "user" = '';
SELECT count(*) AS commands FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
ROLLBACK;

-- ===========================================================================
-- 9. The decisions name the Slurm cluster given to slurmdbd_connect
--    (ClusterName hpc1), not fairshare's name for it (oracle)
-- ===========================================================================
SELECT slurmdbd_connect('oracle', 'fs_regress_nowhere', 'fs_regress_hpc1', slurm_cluster => 'hpc1');
SELECT c.relname, ft.ftoptions FROM pg_foreign_table ft JOIN pg_class c ON c.oid = ft.ftrelid
 WHERE c.relnamespace = 'fs_regress_hpc1'::regnamespace ORDER BY 1;
SELECT foreign_schema, slurm_cluster FROM slurmdbd_feeds;
UPDATE slurmdbd_feeds SET foreign_schema = 'captured';
BEGIN;
UPDATE accounts SET shares = 3 WHERE cluster = 'oracle' AND account = 'chem';
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('oracle', 'chem', 'dave', NULL);
SELECT step, command FROM slurm_decisions('oracle', '2026-11-25 12:00+00');
ROLLBACK;
UPDATE slurmdbd_feeds SET slurm_cluster = 'oracle';
DROP SCHEMA fs_regress_hpc1 CASCADE;
-- a ClusterName sacctmgr would read as an option
SELECT slurmdbd_connect('oracle', 'fs_regress_nowhere', 'fs_regress_hpc1', slurm_cluster => '-V');

-- ===========================================================================
-- 10. Whose code a sync runs: an administrator (fairshare_admin) points
--     the feed at a schema of its own, whose views call its function; a
--     superuser's sync or decisions would run that function as superuser
--     (here: making the administrator one).  Refused, before any read.
-- ===========================================================================
CREATE ROLE fs_regress_evil;
GRANT fairshare_admin TO fs_regress_evil;
SELECT format('GRANT CREATE ON DATABASE %I TO fs_regress_evil', current_database()) \gexec
GRANT USAGE ON SCHEMA captured TO fs_regress_evil;
GRANT SELECT ON ALL TABLES IN SCHEMA captured TO fs_regress_evil;
SET ROLE fs_regress_evil;
CREATE SCHEMA fs_regress_evil;
CREATE FUNCTION fs_regress_evil.f() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE 'ALTER ROLE fs_regress_evil SUPERUSER';
    RETURN true;
EXCEPTION WHEN insufficient_privilege THEN RETURN true;
END $$;
CREATE VIEW fs_regress_evil.job_table AS SELECT * FROM captured.job_table WHERE fs_regress_evil.f();
CREATE VIEW fs_regress_evil.assoc_table AS SELECT * FROM captured.assoc_table WHERE fs_regress_evil.f();
CREATE VIEW fs_regress_evil.tres_table AS SELECT * FROM captured.tres_table WHERE fs_regress_evil.f();
CREATE VIEW fs_regress_evil.qos_table AS SELECT * FROM captured.qos_table WHERE fs_regress_evil.f();
CREATE VIEW fs_regress_evil.convert_version_table AS SELECT * FROM captured.convert_version_table WHERE fs_regress_evil.f();
UPDATE slurmdbd_feeds SET foreign_schema = 'fs_regress_evil' WHERE cluster = 'oracle';
RESET ROLE;
-- (the message names the role running the suite, whoever runs it: shown
-- as <caller>)
SELECT replace(err($$CALL sync_slurmdbd('oracle')$$), current_user || '''s', '<caller>''s') AS sync;
SELECT replace(err($$SELECT count(*) FROM slurm_decisions('oracle')$$), current_user || '''s', '<caller>''s') AS decisions;
-- nor can slurmdbd_connect make its foreign tables there
SELECT replace(err($$SELECT slurmdbd_connect('oracle', 'fs_regress_nowhere', 'fs_regress_evil')$$), current_user || '''s', '<caller>''s') AS connect;
SELECT rolsuper FROM pg_roles WHERE rolname = 'fs_regress_evil';
-- a superuser's schema holding what the administrator made, a view, a
-- column of the administrator's domain, and no qos_table: refused as well
CREATE SCHEMA fs_regress_mixed;
GRANT CREATE, USAGE ON SCHEMA fs_regress_mixed TO fs_regress_evil;
CREATE TABLE fs_regress_mixed.job_table (LIKE captured.job_table);
ALTER TABLE fs_regress_mixed.job_table OWNER TO fs_regress_evil;
CREATE VIEW fs_regress_mixed.assoc_table AS SELECT * FROM captured.assoc_table;
SET ROLE fs_regress_evil;
CREATE DOMAIN fs_regress_evil.checked_bigint AS bigint CHECK (fs_regress_evil.f());
RESET ROLE;
CREATE TABLE fs_regress_mixed.tres_table (id fs_regress_evil.checked_bigint, deleted integer, type text, name text);
UPDATE slurmdbd_feeds SET foreign_schema = 'fs_regress_mixed';
\set VERBOSITY default
CALL sync_slurmdbd('oracle');
\set VERBOSITY terse
UPDATE slurmdbd_feeds SET foreign_schema = 'captured';
DROP SCHEMA fs_regress_mixed CASCADE;
DROP SCHEMA fs_regress_evil CASCADE;
SELECT format('REVOKE CREATE ON DATABASE %I FROM fs_regress_evil', current_database()) \gexec
REVOKE ALL ON SCHEMA captured FROM fs_regress_evil;
REVOKE SELECT ON ALL TABLES IN SCHEMA captured FROM fs_regress_evil;
DROP ROLE fs_regress_evil;

-- ===========================================================================
-- 11. Malformed job rows are rejected one by one, with their reason, and
--     the rest is synced: a copy of job 1 (alice, chem) as job 90010, and
--     copies with a trailing comma in tres_alloc, a count that is no
--     number in tres_req, time_end 9 × 10^15 (past any timestamp), and a
--     mod_time in the far future (which must not move the mark)
-- ===========================================================================
CREATE TEMP TABLE bad AS SELECT k, j.* FROM captured.job_table j, generate_series(0, 4) k WHERE j.job_db_inx = 2;
UPDATE bad SET job_db_inx = 100 + k, id_job = 90010 + k,
               mod_time = (SELECT max(mod_time) + 10 FROM captured.job_table);
UPDATE bad SET tres_alloc = '1=4,' WHERE k = 1;
UPDATE bad SET tres_req = '2=abc' WHERE k = 2;
UPDATE bad SET time_end = 9000000000000000 WHERE k = 3;
UPDATE bad SET mod_time = 9000000000000000 WHERE k = 4;
ALTER TABLE bad DROP COLUMN k;
INSERT INTO captured.job_table SELECT * FROM bad;
CALL sync_slurmdbd('oracle');
SELECT job_id, reason FROM import_rejects WHERE import_id = (SELECT last_import_id FROM slurmdbd_feeds) ORDER BY job_id;
SELECT job_id, user_name, account, state, end_time FROM jobs WHERE cluster = 'oracle' AND job_id LIKE '9001%';
-- the mark moved to the newest believable mod_time, that of job 90010
SELECT job_mark = (SELECT mod_time FROM captured.job_table WHERE id_job = 90010) AS job_mark_moved FROM slurmdbd_feeds;

-- ===========================================================================
-- 12. Slurm 24.11's tables (docs/slurm.md#slurm-2411): lft is kept for the
--     root only (0 on every other row), and job_db_inx is a 64-bit SLUID,
--     above bigint's range for half the cluster ids.  New rows, written
--     child first: user dan in account geo, geo under a new account earth,
--     earth under root, all with lft 0; and a run of dan's whose
--     job_db_inx is 15895041986552193024 (2^63 = 9223372036854775808).
--     The parents are written before their children (earth, geo, then
--     dan's association) and the run is read.
-- ===========================================================================
INSERT INTO captured.assoc_table (mod_time, deleted, id_assoc, "user", acct, "partition", parent_acct, lft, shares, grp_tres_mins, def_qos_id, qos)
SELECT m + 20, 0, 9001, 'dan', 'geo', '', '', 0, 1, '', NULL::bigint, ''  FROM (SELECT max(mod_time) AS m FROM captured.assoc_table) x UNION ALL
SELECT m + 20, 0, 9002, '', 'geo', '', 'earth', 0, 2, '', NULL, '' FROM (SELECT max(mod_time) AS m FROM captured.assoc_table) x UNION ALL
SELECT m + 20, 0, 9003, '', 'earth', '', 'root', 0, 3, '', NULL, '' FROM (SELECT max(mod_time) AS m FROM captured.assoc_table) x;
UPDATE captured.assoc_table SET lft = 0 WHERE acct <> 'root' OR "user" <> '';
CALL sync_slurmdbd('oracle');
SELECT account, parent_account, shares FROM accounts WHERE cluster = 'oracle' AND account IN ('earth', 'geo') ORDER BY account;
SELECT account, user_name, shares FROM account_users WHERE cluster = 'oracle' AND account = 'geo';
ALTER TABLE captured.job_table ALTER COLUMN job_db_inx TYPE numeric;
INSERT INTO captured.job_table
SELECT 15895041986552193024, (SELECT max(mod_time) + 30 FROM captured.job_table WHERE mod_time < 9000000000000000), deleted, 'geo',
       array_task_str, id_array_job, id_array_task, 9001, 90100, id_qos, het_job_id, het_job_offset, nodes_alloc, cpus_req, "partition",
       state, timelimit, time_submit, time_eligible, time_start, time_end, time_suspended, tres_alloc, tres_req, id_resv
  FROM captured.job_table WHERE job_db_inx = 2;
CALL sync_slurmdbd('oracle');
SELECT job_id, user_name, account, state FROM jobs WHERE cluster = 'oracle' AND job_id = '90100';

-- ===========================================================================
-- 13. The Slurm release of slurmdbd's tables (docs/slurmdbd.md#slurm-versions):
--     read from convert_version_table (24.11.5 keeps 16, the 24.11 feed
--     run's test/fixtures/slurm/24.11/feed/convert_version_table.tsv), or
--     set by the administrator; a schema version fairshare does not know
--     (14, between 23.02's 13 and 24.11's 16; none at all) is refused with
--     0A000 before anything is read or written, by the sync and by the
--     decisions.
-- ===========================================================================
CREATE TEMP TABLE v24 (version bigint);
\copy v24 FROM 'test/fixtures/slurm/24.11/feed/convert_version_table.tsv' (FORMAT text, HEADER)
UPDATE captured.convert_version_table SET version = (SELECT max(version) FROM v24);
CALL sync_slurmdbd('oracle');
SELECT (SELECT max(version) FROM v24) AS captured_24_11, slurm_version, last_slurm_version,
       (SELECT k.slurm_version FROM clusters k WHERE k.cluster = 'oracle') AS cluster_release
  FROM slurmdbd_feeds;
CREATE TEMP TABLE marks AS SELECT job_mark, assoc_mark, last_import_id, last_sync FROM slurmdbd_feeds;
UPDATE captured.convert_version_table SET version = 14;
\set VERBOSITY default
CALL sync_slurmdbd('oracle');
\set VERBOSITY terse
SELECT err($$SELECT count(*) FROM slurm_decisions('oracle')$$) AS decisions;
DELETE FROM captured.convert_version_table;
CALL sync_slurmdbd('oracle');
-- nothing synced by the refused syncs: the marks, the last import and sync
-- as before, and the cluster's release too
SELECT m.job_mark = f.job_mark AND m.assoc_mark = f.assoc_mark AND m.last_import_id = f.last_import_id
       AND m.last_sync = f.last_sync AS unchanged, f.last_slurm_version,
       (SELECT k.slurm_version FROM clusters k WHERE k.cluster = 'oracle') AS cluster_release
  FROM marks m, slurmdbd_feeds f;
-- the administrator says which release it is: synced as that one
UPDATE slurmdbd_feeds SET slurm_version = '24.11';
CALL sync_slurmdbd('oracle');
SELECT slurm_version, last_slurm_version, last_import_id > (SELECT last_import_id FROM marks) AS synced,
       (SELECT k.slurm_version FROM clusters k WHERE k.cluster = 'oracle') AS cluster_release
  FROM slurmdbd_feeds;
SELECT count(*) AS decisions FROM slurm_decisions('oracle');
-- only a release fairshare knows
UPDATE slurmdbd_feeds SET slurm_version = '23.11';
UPDATE slurmdbd_feeds SET slurm_version = NULL;
INSERT INTO captured.convert_version_table VALUES (12);

DROP SCHEMA captured CASCADE;
DROP SERVER fs_regress_nowhere;
DROP FOREIGN DATA WRAPPER fs_regress_nowhere;
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM imports WHERE cluster = 'oracle';
DELETE FROM slurmdbd_feeds WHERE cluster = 'oracle';
DELETE FROM account_users WHERE cluster = 'oracle';
DELETE FROM accounts WHERE cluster = 'oracle' AND parent_account IS NOT NULL;
DELETE FROM accounts WHERE cluster = 'oracle';
DELETE FROM partitions WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';

-- ===========================================================================
-- 14. A real Slurm 24.11.5 slurmdbd, captured by `SLURM_VERSION=24.11 bash
--     test/slurm/feed.sh` (test/fixtures/slurm/24.11/feed/: the same jobs
--     and tree as section 3's 22.05 capture): its tables as slurmdbd 24.11
--     keeps them (lft 0 on every row but the root's, job_db_inx SLUIDs,
--     schema version 16), synced by a new feed, hold the same runs as that
--     cluster's sacct -a -P --duplicates imported, every column, and
--     sshare_at equals its sshare -a -l -P at Slurm's digits.
-- ===========================================================================
INSERT INTO clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000),
  ('oracle', 'parked', 'CPU=2.0,Mem=0.25G', 200, 1, 64, 256000);
CREATE SCHEMA captured24;
CREATE TABLE captured24.job_table (
    job_db_inx numeric, mod_time bigint, deleted integer, account text, array_task_str text,
    id_array_job bigint, id_array_task bigint, id_assoc bigint, id_job bigint, id_qos bigint,
    het_job_id bigint, het_job_offset bigint, nodes_alloc bigint, cpus_req bigint, "partition" text,
    state bigint, timelimit bigint, time_submit bigint, time_eligible bigint, time_start bigint,
    time_end bigint, time_suspended bigint, tres_alloc text, tres_req text, id_resv bigint);
CREATE TABLE captured24.assoc_table (
    mod_time bigint, deleted integer, id_assoc bigint, "user" text, acct text, "partition" text,
    parent_acct text, lft bigint, shares bigint, grp_tres_mins text, def_qos_id bigint, qos text);
CREATE TABLE captured24.tres_table (id bigint, deleted integer, type text, name text);
CREATE TABLE captured24.qos_table (id bigint, deleted integer, name text);
CREATE TABLE captured24.convert_version_table (version bigint);
\copy captured24.job_table FROM 'test/fixtures/slurm/24.11/feed/job_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
\copy captured24.assoc_table FROM 'test/fixtures/slurm/24.11/feed/assoc_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
\copy captured24.tres_table FROM 'test/fixtures/slurm/24.11/feed/tres_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
\copy captured24.qos_table FROM 'test/fixtures/slurm/24.11/feed/qos_table.tsv' (FORMAT text, HEADER, NULL 'NULL')
\copy captured24.convert_version_table FROM 'test/fixtures/slurm/24.11/feed/convert_version_table.tsv' (FORMAT text, HEADER)
INSERT INTO slurmdbd_feeds (cluster, foreign_schema, slurm_cluster) VALUES ('oracle', 'captured24', 'oracle');
-- slurmdbd 24.11's rows: 8 job rows, job_db_inx above 10^18; lft 1 for
-- the root, 0 for every other association
SELECT count(*) AS job_rows, min(job_db_inx) > 1e18 AS sluids FROM captured24.job_table;
SELECT id_assoc, "user", acct, parent_acct, lft, shares FROM captured24.assoc_table ORDER BY id_assoc;
CALL sync_slurmdbd('oracle');
SELECT last_slurm_version, last_jobs_read,
       (SELECT k.slurm_version FROM clusters k WHERE k.cluster = 'oracle') AS cluster_release
  FROM slurmdbd_feeds;
SELECT account, parent_account, shares FROM accounts WHERE cluster = 'oracle' ORDER BY account;
SELECT account, user_name, shares FROM account_users WHERE cluster = 'oracle' ORDER BY account, user_name;
-- 9 lines: the header the feed writes and the 8 runs, all imported
SELECT lines_read, imported, updated, unchanged, rejected FROM imports WHERE import_id = (SELECT last_import_id FROM slurmdbd_feeds);
-- the same cluster's sacct -a -P --duplicates, imported: the same runs,
-- every column (no row below either way); 16 lines = the header, 8 runs
-- and 7 steps, folded into their runs
CREATE TEMP TABLE fed24 AS SELECT * FROM jobs WHERE cluster = 'oracle';
DELETE FROM jobs WHERE cluster = 'oracle';
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/24.11/feed/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT 'feed only' AS side, * FROM (SELECT * FROM fed24 EXCEPT SELECT * FROM jobs WHERE cluster = 'oracle') x
UNION ALL
SELECT 'sacct only', * FROM (SELECT * FROM jobs WHERE cluster = 'oracle' EXCEPT SELECT * FROM fed24) y;
SELECT job_id, state, suspended, tres FROM fed24 ORDER BY job_id, submit_time;
-- sshare_at after every job had ended (no decay): every column of every
-- row of 24.11's sshare -a -l -P
TRUNCATE slurm_sshare;
\copy slurm_sshare FROM 'test/fixtures/slurm/24.11/feed/sshare.txt' (FORMAT csv, DELIMITER '|', HEADER)
WITH ours AS (
    SELECT s.account, COALESCE(s.user_name, '') AS user_name,
           COALESCE(s.raw_shares::text, '') AS raw_shares, pg_temp.f6(s.norm_shares) AS norm_shares,
           s.raw_usage_int::text AS raw_usage, pg_temp.f6(s.norm_usage) AS norm_usage,
           pg_temp.f6(s.effectv_usage) AS effectv_usage, pg_temp.f6(s.fairshare) AS fairshare,
           pg_temp.f6(s.level_fs) AS level_fs, COALESCE(s.grp_tres_mins, '') AS grp_tres_mins
      FROM sshare_at((SELECT max(end_time) FROM fed24) + interval '1 minute') s WHERE s.cluster = 'oracle'),
theirs AS (
    SELECT btrim(t.account) AS account, COALESCE(t.user_name, '') AS user_name,
           COALESCE(t.raw_shares, '') AS raw_shares, COALESCE(t.norm_shares, '') AS norm_shares,
           COALESCE(t.raw_usage, '') AS raw_usage, COALESCE(t.norm_usage, '') AS norm_usage,
           COALESCE(t.effectv_usage, '') AS effectv_usage, COALESCE(t.fairshare, '') AS fairshare,
           COALESCE(t.level_fs, '') AS level_fs, COALESCE(t.grp_tres_mins, '') AS grp_tres_mins
      FROM slurm_sshare t)
SELECT (SELECT count(*) FROM theirs) AS slurm_rows, count(*) FILTER (WHERE c.slurm IS DISTINCT FROM c.ours) AS differing,
       string_agg(COALESCE(t.account, o.account) || '/' || COALESCE(t.user_name, o.user_name) || ' ' || c.col, ', ')
           FILTER (WHERE c.slurm IS DISTINCT FROM c.ours) AS which
  FROM theirs t FULL JOIN ours o ON o.account = t.account AND o.user_name = t.user_name
 CROSS JOIN LATERAL (VALUES
    ('row', CASE WHEN t.account IS NULL THEN 'missing' ELSE 'present' END,
            CASE WHEN o.account IS NULL THEN 'missing' ELSE 'present' END),
    ('RawShares', t.raw_shares, o.raw_shares), ('NormShares', t.norm_shares, o.norm_shares),
    ('RawUsage', t.raw_usage, o.raw_usage), ('NormUsage', t.norm_usage, o.norm_usage),
    ('EffectvUsage', t.effectv_usage, o.effectv_usage), ('FairShare', t.fairshare, o.fairshare),
    ('LevelFS', t.level_fs, o.level_fs), ('GrpTRESMins', t.grp_tres_mins, o.grp_tres_mins)) AS c (col, slurm, ours);
DROP SCHEMA captured24 CASCADE;
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM imports WHERE cluster = 'oracle';
DELETE FROM slurmdbd_feeds WHERE cluster = 'oracle';
DELETE FROM account_users WHERE cluster = 'oracle';
DELETE FROM accounts WHERE cluster = 'oracle' AND parent_account IS NOT NULL;
DELETE FROM accounts WHERE cluster = 'oracle';
DELETE FROM partitions WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
