-- bad_input: "No silent wrong data": what 1.1 stored or computed
-- wrongly, or lost, when fed hostile or careless input, and what it does
-- now.  One section per defect (2 to 6; defect 1 is the history issue's;
-- 7, 9, 10 and 11 were found in 1.2 and fixed in 1.3), then the "worth a
-- look" items decided as rejections.  docs/bad-input.md
-- lists each with its rule.  Everything runs in one transaction that is
-- rolled back: the ledger is append-only, and the roles are the cluster's.
-- Each section is rolled back to a savepoint when it ends, so that an error
-- in one (as 1.1 raised) does not hide what the next ones show.
-- The sequences, which a rollback leaves where they are, are set back at
-- the end, so that the suites after this one number their rows as before.
SET search_path = public, fairshare;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;
\set SHOW_CONTEXT never
CREATE TEMP TABLE saved_sequences AS
SELECT c.oid::regclass AS seq, pg_sequence_last_value(c.oid) AS last_value
  FROM pg_class c WHERE c.relkind = 'S' AND c.relnamespace = 'fairshare'::regnamespace;
BEGIN;

-- A Slurm cluster for the import cases: partition std of 64-core nodes,
-- user u in account a.
INSERT INTO clusters (cluster, decay_half_life) VALUES ('bad_s', '0');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('bad_s', 'std', 64, 256000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('bad_s', 'root', NULL, 1), ('bad_s', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('bad_s', 'a', 'u');
-- and a PBS one, the same
INSERT INTO clusters (cluster, scheduler, decay_half_life) VALUES ('bad_pbs', 'pbs', '0');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('bad_pbs', 'std', 64, 256000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('bad_pbs', 'root', NULL, 1), ('bad_pbs', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('bad_pbs', 'a', 'u');
CREATE ROLE regress_bad_user IN ROLE fairshare_user;
CREATE FUNCTION pg_temp.last_rejects() RETURNS TABLE (line_no bigint, job_id text, sqlstate text, reason text)
LANGUAGE sql AS $$
    SELECT r.line_no, r.job_id, r.sqlstate, r.reason FROM fairshare.import_rejects r
     WHERE r.import_id = (SELECT max(import_id) FROM fairshare.imports) ORDER BY r.line_no
$$;

-- ===========================================================================
-- Defect 2: a second header with other columns.  Two exports concatenated:
-- the first header has AllocCPUS before NNodes, the second NNodes before
-- AllocCPUS.  Every job ran 8 CPUs on 1 node.  1.1 rejected the second
-- header as "not a Slurm job id" and read the lines after it through the
-- first one: job 102 became 1 CPU on 8 nodes.  A line that is a header now
-- switches the columns from there on.
-- ===========================================================================
SAVEPOINT defect2;
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|NNodes|Submit|Start|End|State'),
  ('101|u|a|std|8|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  ('JobID|User|Account|Partition|NNodes|AllocCPUS|Submit|Start|End|State'),
  ('102|u|a|std|1|8|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  -- a repeat of the second header, then the first again: back to it
  ('JobID|User|Account|Partition|NNodes|AllocCPUS|Submit|Start|End|State'),
  ('103|u|a|std|1|8|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  ('JobID|User|Account|Partition|AllocCPUS|NNodes|Submit|Start|End|State'),
  ('104|u|a|std|8|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED');
-- 8 lines: 4 headers skipped, 4 jobs imported, nothing rejected
SELECT lines_read, imported, skipped, rejected FROM import_sacct('bad_s', 'UTC');
SELECT * FROM pg_temp.last_rejects();
-- every job 8 CPUs on 1 node
SELECT job_id, cpus, nodes FROM jobs WHERE cluster = 'bad_s' AND job_id IN ('101', '102', '103', '104') ORDER BY job_id;

-- A second header that cannot be read (no State column) is rejected, and so
-- is every line after it up to the next header: their columns are not
-- known.  A job line whose free text holds a column name is not a header
-- (its JobID field starts with a digit).
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|NNodes|Submit|Start|End|State|JobName'),
  ('111|u|a|std|8|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED|JobID'),
  ('JobID|User|Account|Partition|NNodes|AllocCPUS|Submit|Start|End|Status|JobName'),
  ('112|u|a|std|1|8|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED|x'),
  ('JobID|User|Account|Partition|AllocCPUS|NNodes|Submit|Start|End|State|JobName'),
  ('113|u|a|std|8|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED|x');
-- 6 lines: jobs 111 and 113 imported, the header of line 1 and 5 skipped,
-- line 3 (the header without State) and line 4 (read through it) rejected
SELECT lines_read, imported, skipped, rejected FROM import_sacct('bad_s', 'UTC');
SELECT * FROM pg_temp.last_rejects();
SELECT job_id, cpus, nodes FROM jobs WHERE cluster = 'bad_s' AND job_id IN ('111', '112', '113') ORDER BY job_id;
-- _sacct_line classifies such a line as a header too (the caller passes
-- the header in force with each line)
SELECT kind, reason FROM fairshare_internal._sacct_line('JobID|User|Account|Partition|NNodes|AllocCPUS|Submit|Start|End|State',
                                     'JobID|User|Account|Partition|AllocCPUS|NNodes|Submit|Start|End|State', 'UTC', 'bad_s');
ROLLBACK TO SAVEPOINT defect2;

-- ===========================================================================
-- Defect 3: one ledger entry broke the GENCI report of every allocation.
-- The CHECK (finite, >= 0) took 1e308; the report then failed for all with
-- a bare 22003, and only a superuser could remove the entry.  An initial
-- grant or a ledger entry now holds at most 10^12 hours (10^7 cores, the
-- largest machines, burn 8.8 × 10^10 core-hours a year).
-- ===========================================================================
SAVEPOINT defect3;
INSERT INTO clusters (cluster, decay_half_life, regulation_threshold) VALUES ('bad_g', '0', 0);
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('bad_g', 'std', 64, 256000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('bad_g', 'root', NULL, 1), ('bad_g', 'good', 'root', 1), ('bad_g', 'huge', 'root', 1), ('bad_g', 'over', 'root', 1);
-- three allocations of 366 h over 2024 (a leap year: 1 h a day), nothing used
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
SELECT 'bad_g', a, 'genci', '2024-01-01', '2024-12-31', 366 FROM unnest(ARRAY['good', 'huge', 'over']) a;
SELECT allocation_id AS huge_id FROM allocations WHERE cluster = 'bad_g' AND account = 'huge' \gset
SELECT allocation_id AS over_id FROM allocations WHERE cluster = 'bad_g' AND account = 'over' \gset

-- the bound, for every writer (the superuser running this too)
SELECT err(format($$INSERT INTO ledger (allocation_id, kind, hours, effective_date) VALUES (%s, 'addition', 1e308, '2024-02-01')$$, :huge_id));
SELECT err(format($$INSERT INTO ledger (allocation_id, kind, hours, effective_date) VALUES (%s, 'addition', 1000000000001, '2024-02-01')$$, :huge_id));
SELECT err(format($$INSERT INTO ledger (allocation_id, kind, hours, effective_date) VALUES (%s, 'addition', 1e12, '2023-12-01')$$, :huge_id));  -- the bound itself: accepted
SELECT err($$INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours) VALUES ('bad_g', 'good', 'genci', '2025-01-01', '2025-12-31', 1e308)$$);
SELECT err(format($$UPDATE allocations SET hours = 1e308 WHERE allocation_id = %s$$, :huge_id));

-- An entry recorded before 1.2 (written here with the triggers off, as
-- 1.1 took it), and take-backs beyond the grant (500 h of 366: a negative
-- net, which failed the report with 22023)
SET session_replication_role = replica;
INSERT INTO ledger (allocation_id, kind, hours, effective_date) VALUES (:huge_id, 'addition', 1e308, '2024-02-01');
SET session_replication_role = DEFAULT;
INSERT INTO ledger (allocation_id, kind, hours, effective_date) VALUES (:over_id, 'take_back', 500, '2024-02-01');

-- The report on 15 April 2024: good's row is computed; the other two are
-- named in a WARNING and have status 'error' and no figures.
--   good: E = 31 + 29 + 31 + 14 = 105 days, theoretical 366 × 105 / 366 =
--   105, lag 105, monthly 366 / 12 = 30.5, ratio 105 / 30.5 = 3.443 > 2:
--   very late; the 15th of month 4: a check day, penalty 30.5.
SELECT account, status, net_hours, theoretical, round(ratio::numeric, 3) AS ratio, check_day, penalty, taken_back_hours
  FROM genci_report_at('2024-04-15') WHERE cluster = 'bad_g' ORDER BY account;
-- The procedure regulates good and skips the other two the same way from
-- their first check day after the entries (15 February): their days from
-- then on stay pending; 15 January, before, is evaluated.  good, catching
-- up (monthly 30.5 h; nothing is taken in months 1 and 2):
--   15 Mar (month 3): E = 31 + 29 + 14 = 74, lag 74, ratio 74 / 30.5 =
--   2.426 > 2: 30.5 h taken;
--   15 Apr: net 366 − 30.5 = 335.5, theoretical 335.5 × 105 / 366 = 96.25,
--   monthly 335.5 / 12 = 27.958, ratio 3.443 > 2: 27.958 h taken.
CALL apply_genci_regulation('2024-04-15', 'bad_g');
SELECT a.account, l.kind, l.hours, l.rule, l.effective_date
  FROM ledger l JOIN allocations a USING (allocation_id)
 WHERE a.cluster = 'bad_g' AND l.rule <> 'manual' ORDER BY a.account, l.effective_date;
SELECT a.account, count(c.*) AS checks_recorded
  FROM allocations a LEFT JOIN regulation_checks c USING (allocation_id)
 WHERE a.cluster = 'bad_g' GROUP BY a.account ORDER BY a.account;
ROLLBACK TO SAVEPOINT defect3;

-- ===========================================================================
-- Defect 4: usage_checkpoints.invalidated_by names the job that invalidated
-- a checkpoint ("INSERT on jobs: job 42, ...").  A plain user read it, when
-- the same job is hidden from it in jobs (PrivateData=jobs).  It reads when
-- and whether each checkpoint holds, not why.
-- ===========================================================================
SAVEPOINT defect4;
INSERT INTO clusters (cluster, decay_half_life) VALUES ('bad_ck', '0');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('bad_ck', 'p', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('bad_ck', 'root', NULL, 1), ('bad_ck', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('bad_ck', 'a', 'regress_bad_user'), ('bad_ck', 'a', 'other');
CALL checkpoint_usage('bad_ck', '2024-06-10 00:00+00');
-- another user's job, started before the checkpoint: it invalidates it
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('bad_ck', '42', 'other', 'a', 'p', 'COMPLETED', '2024-06-09 13:00+00', '2024-06-09 14:00+00', '2024-06-09 15:00+00', 2);
SELECT invalidated_at IS NULL AS valid, invalidated_by FROM usage_checkpoints WHERE cluster = 'bad_ck';
SET ROLE regress_bad_user;
SELECT count(*) AS jobs_seen FROM jobs WHERE cluster = 'bad_ck';       -- 0: job 42 is other's
SELECT cluster, as_of, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'bad_ck';
SAVEPOINT hidden;
SELECT invalidated_by FROM usage_checkpoints WHERE cluster = 'bad_ck';
ROLLBACK TO SAVEPOINT hidden;
SELECT err($$SELECT * FROM fairshare.usage_checkpoints$$);
RESET ROLE;
ROLLBACK TO SAVEPOINT defect4;

-- ===========================================================================
-- Defect 5: a size argument of a C function allocated without limit.
-- _rwth_running_hours(hours, months) builds float8[months]: 2^31 − 1 gave
-- XX000 "invalid memory alloc request size", 10^8 built 800 MB, for any of
-- the three roles.  months is at most the months of the longest period
-- _rwth_month_starts can give: PostgreSQL's timestamps, December 4714 BC
-- to November 294276, (294276 + 4713) × 12 = 3,587,868 months.
-- ===========================================================================
SAVEPOINT defect5;
SELECT cardinality(fairshare_internal._rwth_month_starts('4714-12-01 BC', '294276-11-30', 'UTC')) - 1 AS longest_period_months;
SELECT cardinality(fairshare_internal._rwth_running_hours('{1,2}', 3587868)) AS at_the_bound;
SELECT err($$SELECT fairshare_internal._rwth_running_hours('{1,2}', 3587869)$$);
SELECT err($$SELECT fairshare_internal._rwth_running_hours('{1,2}', 2147483647)$$);
SELECT err($$SELECT fairshare_internal._rwth_running_hours('{1,2}', -1)$$);
SET ROLE regress_bad_user;
SELECT err($$SELECT fairshare_internal._rwth_running_hours('{1,2}', 2147483647)$$);
RESET ROLE;
ROLLBACK TO SAVEPOINT defect5;

-- ===========================================================================
-- Defect 6: one invalid UTF-8 byte lost the whole night's import.  The
-- README's staging \copy failed with 22021 on it: nothing staged, nothing
-- imported.  bad_utf8.psv has 4 jobs: 2's JobName is "caf\xe9" (Latin-1),
-- 3's Account "\xe9quipe", 4's JobName valid UTF-8 ("résumé").
-- ===========================================================================
SAVEPOINT defect6;
INSERT INTO clusters (cluster, decay_half_life) VALUES ('bad_u', '0');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('bad_u', 'std', 64, 256000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('bad_u', 'root', NULL, 1), ('bad_u', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('bad_u', 'a', 'u');
-- the 1.1 command: the COPY fails whole
SELECT import_stage();
SAVEPOINT before_copy;
\copy import_staging (line) FROM 'test/fixtures/slurm/bad_utf8.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
ROLLBACK TO SAVEPOINT before_copy;
-- the README's command now: ENCODING 'SQL_ASCII' stages the bytes as they
-- are, and the import rejects the two lines that are not valid UTF-8.
-- 5 lines: the header skipped, jobs 1 and 4 imported, 2 and 3 rejected
-- (22021, the field named), the lines kept with the bad byte as \xE9
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/bad_utf8.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT lines_read, imported, skipped, rejected FROM import_sacct('bad_u', 'UTC');
SELECT * FROM pg_temp.last_rejects();
SELECT r.line_no, r.line FROM import_rejects r
 WHERE r.import_id = (SELECT max(import_id) FROM imports) ORDER BY r.line_no;
SELECT job_id, account FROM jobs WHERE cluster = 'bad_u' ORDER BY job_id;
-- all_or_nothing: the first such line's SQLSTATE
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/bad_utf8.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT err($$SELECT * FROM fairshare.import_sacct('bad_u', 'UTC', all_or_nothing => true)$$);
-- a header that is not valid text refuses the import (there is no column map)
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/bad_utf8_header.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SELECT err($$SELECT * FROM fairshare.import_sacct('bad_u', 'UTC')$$);

-- PBS, the same: job 5002's E record has jobname "caf\xe9"
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/pbs/bad_utf8' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
-- 3 records: 5001 (Q, E) imported, 5002's E rejected
SELECT lines_read, imported, rejected FROM import_pbs('bad_pbs', 'UTC');
SELECT * FROM pg_temp.last_rejects();
SELECT r.line_no, right(r.line, 30) AS line_end FROM import_rejects r
 WHERE r.import_id = (SELECT max(import_id) FROM imports) ORDER BY r.line_no;
-- what import_rejects keeps: a valid line unchanged
SELECT fairshare_internal._import_line_text('résumé') AS valid_line;
ROLLBACK TO SAVEPOINT defect6;

-- ===========================================================================
-- Defect 7 (1.3): one ancient Submit stopped the database.  1.2 took
-- Submit=1900-01-01; the next maintain_partitions made 1,527 monthly
-- partitions, after which every query of jobs failed with "out of shared
-- memory".  A Submit, Eligible, Start or End before the cluster's
-- accounting_start (default 2000-01-01 UTC) or more than a year ahead of
-- the database's clock is a rejected line now (22008), in import_sacct (and
-- so sync_slurmdbd, which goes through it) and import_pbs.
-- maintain_partitions' own bounds: sql/history.sql, section 4.
-- ===========================================================================
SAVEPOINT defect7;
SELECT accounting_start FROM clusters WHERE cluster = 'bad_s';   -- the default
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|Submit|Start|End|State'),
  ('701|u|a|std|1|1900-01-01T00:00:00|2026-01-02T00:00:00|2026-01-02T01:00:00|COMPLETED'),
  -- the first time out of bounds is named: Start, one second before 2000
  ('702|u|a|std|1|2026-01-02T00:00:00|1999-12-31T23:59:59|2026-01-02T01:00:00|COMPLETED'),
  ('703|u|a|std|1|2026-01-02T00:00:00|2026-01-02T00:00:00|2099-01-02T01:00:00|COMPLETED'),
  -- at the accounting start itself: accepted
  ('704|u|a|std|1|2000-01-01T00:00:00|2000-01-01T00:00:00|2000-01-01T01:00:00|COMPLETED'),
  ('705|u|a|std|1|2026-01-02T00:00:00|2026-01-02T00:00:00|2026-01-02T01:00:00|COMPLETED');
-- 6 lines: the header, 704 and 705 imported, 701 to 703 rejected
SELECT lines_read, imported, skipped, rejected FROM import_sacct('bad_s', 'UTC');
SELECT * FROM pg_temp.last_rejects();
SELECT job_id, submit_time FROM jobs WHERE cluster = 'bad_s' ORDER BY job_id;
-- a centre whose accounting truly began earlier says so: 701 is taken
UPDATE clusters SET accounting_start = '1900-01-01 00:00+00' WHERE cluster = 'bad_s';
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|Submit|Start|End|State'),
  ('701|u|a|std|1|1900-01-01T00:00:00|2026-01-02T00:00:00|2026-01-02T01:00:00|COMPLETED');
SELECT lines_read, imported, rejected FROM import_sacct('bad_s', 'UTC');   -- 2 lines, 1 imported
-- PBS, the same: ctime 631152000 is 1990-01-01 00:00 UTC (7305 days of
-- 86400 s after 1970-01-01), before bad_pbs's accounting start
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('11/22/2026 08:10:10;E;5701.pbs;user=u group=g account=a queue=std ctime=631152000 etime=631152000 start=1795334410 end=1795335010 Resource_List.ncpus=1 Exit_status=0'),
  ('11/22/2026 08:10:10;E;5702.pbs;user=u group=g account=a queue=std ctime=1795334400 etime=1795334400 start=1795334410 end=1795335010 Resource_List.ncpus=1 Exit_status=0');
-- 2 records: 5702 imported, 5701 rejected
SELECT lines_read, imported, rejected FROM import_pbs('bad_pbs', 'UTC');
SELECT * FROM pg_temp.last_rejects();
ROLLBACK TO SAVEPOINT defect7;

-- ===========================================================================
-- Defect 9 (1.3): the efficiency import failed whole.  1.2's
-- import_sacct_efficiency raised on a second header line, on one TotalCPU
-- it could not read, on one Latin-1 byte: following the docs (efficiency
-- first, ON_ERROR_STOP), the night imported nothing.  Each line is read by
-- the C parser now, with import_sacct's header and byte rules; a bad line is
-- rejected into import_rejects, the rest read.  bad_lines.psv: a header,
-- 901 (2 CPUs, ReqMem 1000Mc) and its batch step (MaxRSS 2048K), 902
-- (TotalCPU Unknown), 903 (TotalCPU "abc"), 904 (JobName "caf\xe9"), a
-- second header with NNodes, AllocCPUS, MaxRSS and TotalCPU in another
-- order, 905 (4 CPUs on 1 node, ReqMem 2Gn), a step 906.0 (MaxRSS "lots").
-- ===========================================================================
SAVEPOINT defect9;
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/efficiency/bad_lines.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
SET client_min_messages = error;
SELECT import_sacct_efficiency('bad_s', 'UTC') AS runs_written;   -- 901, 902, 905
RESET client_min_messages;
SELECT lines_read, imported, skipped, rejected FROM imports WHERE import_id = (SELECT max(import_id) FROM imports);
-- 9 lines: 2 headers skipped, 3 runs written, lines 5, 6 and 9 rejected
SELECT * FROM pg_temp.last_rejects();
-- 901: TotalCPU 01:00:00 = 3600 s; MaxRSS 2048K / 1024 = 2 MiB (its step's);
--      ReqMem 1000 MiB per CPU × 2 CPUs = 2000 MiB
-- 902: TotalCPU Unknown: NULL; ReqMem 1G = 1024 MiB
-- 905 (read through the second header): TotalCPU 02:00:00 = 7200 s;
--      MaxRSS 3G = 3 × 1024 = 3072 MiB; ReqMem 2G per node × 1 node = 2048 MiB
SELECT job_id, total_cpu_secs, max_rss_mb, req_mem_mb FROM job_efficiency WHERE cluster = 'bad_s' ORDER BY job_id;
-- and import_sacct after it, on the same staged lines: 901, 902, 903 and
-- 905 imported (903's TotalCPU is not import_sacct's), 904 rejected
-- (22021), the lone step 906.0 rejected (no job 906)
SELECT lines_read, imported, folded, skipped, rejected FROM import_sacct('bad_s', 'UTC');
SELECT * FROM pg_temp.last_rejects();
ROLLBACK TO SAVEPOINT defect9;

-- ===========================================================================
-- Defect 10 (1.3): one unreadable event TRES stopped the rollups.  1.2's
-- import_events stored "cpu=abc" unchecked; every refresh_rollups() after
-- it (the pg_cron job) failed, for every cluster.  Each line of
-- import_events and import_reservations is checked now and rejected alone
-- with its reason; refresh_rollups skips a cluster whose stored rows it
-- cannot read, with a WARNING, and refreshes the others.
-- ===========================================================================
SAVEPOINT defect10;
SET client_min_messages = error;
SELECT import_events('bad_s', E'Cluster|NodeName|TimeStart|TimeEnd|State|TRES\n'
  'bad_s||2026-01-01T00:00:00|Unknown||cpu=64,mem=256G,node=1\n'
  'bad_s|n1|2026-01-02T00:00:00|2026-01-02T01:00:00|DOWN|cpu=abc\n'
  'bad_s|n2|2026-01-02T00:00:00|2026-01-01T01:00:00|DOWN|cpu=64\n'
  'bad_s|n3|1900-01-02T00:00:00|2026-01-01T01:00:00|DOWN|cpu=64\n'
  'bad_s|n4|2026-01-02T00:00:00|2026-01-02T01:00:00|DOWN|cpu=1e13\n'
  'bad_s|n5|2026-13-02T00:00:00|2026-01-02T01:00:00|DOWN|cpu=64\n'
  'bad_s|n6||Unknown|DOWN|cpu=64\n'
  'bad_s|n7|2026-01-02T00:00:00|2026-01-02T01:00:00|DOWN\n') AS written;   -- 1: the cluster's own event
SELECT * FROM pg_temp.last_rejects();   -- lines 3 to 9
SELECT node_name, tres FROM node_events WHERE cluster = 'bad_s';
SELECT import_reservations('bad_s', E'Cluster|Name|ID|TRES|TimeStart|TimeEnd|Flags|Assocs\n'
  'bad_s|maint|1|cpu=64|2026-01-02T00:00:00|2026-01-02T02:00:00|MAINT|\n'
  'bad_s|r2|2|cpu=lots|2026-01-02T00:00:00|2026-01-02T02:00:00||\n'
  'bad_s|r3|x|cpu=1|2026-01-02T00:00:00|2026-01-02T02:00:00||\n'
  'bad_s|r4|4|cpu=1|2026-01-02T00:00:00|2026-01-02T02:00:00||9\n'
  'bad_s|r5|5|cpu=1|2026-01-02T00:00:00|2099-01-02T02:00:00||\n') AS written;   -- 1: maint
RESET client_min_messages;
SELECT * FROM pg_temp.last_rejects();   -- lines 3 to 6
-- A row stored before the import checked it (1.2 took it): the cluster is
-- skipped with a WARNING, bad_pbs is refreshed: from its event's hour,
-- 2026-01-02 00:00, to up_to's, 2026-01-03 00:00 = 24 hours
DELETE FROM node_events WHERE cluster = 'bad_s';
INSERT INTO node_events (cluster, node_name, time_start, tres) VALUES
  ('bad_s', '', '2026-01-02 00:00+00', 'cpu=abc'), ('bad_pbs', '', '2026-01-02 00:00+00', 'cpu=64');
SELECT cluster, hours_recomputed FROM refresh_rollups(NULL, '2026-01-03 00:00+00');
SELECT cluster, rolled_from, rolled_to FROM rollup_state ORDER BY cluster;
ROLLBACK TO SAVEPOINT defect10;

-- ===========================================================================
-- Defect 11 (1.3): one allocation ending after year 294276 (the last of
-- PostgreSQL's timestamps) made genci_report, check_allocation_alerts and
-- allocation_statements fail for every allocation ("date out of range for
-- timestamp").  An end past 9999-12-31 is refused at the door (22008,
-- trigger period_bounded on allocations).
-- ===========================================================================
SAVEPOINT defect11;
SELECT err($$INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
             VALUES ('bad_s', 'a', 'genci', '2026-01-01', '294277-01-01', 1000)$$);
-- the last day allowed, and the report computes it
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('bad_s', 'a', 'genci', '2026-01-01', '9999-12-31', 1000);
SELECT count(*) AS reported FROM genci_report WHERE cluster = 'bad_s';   -- 1
SELECT err($$UPDATE fairshare.allocations SET period_end = '10000-01-01' WHERE cluster = 'bad_s'$$);
ROLLBACK TO SAVEPOINT defect11;

-- ===========================================================================
-- Worth a look, decided as rejections.  Each was stored without
-- complaint by 1.1.
-- ===========================================================================
SAVEPOINT rejected;
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocTRES|NNodes|Submit|Start|End|State'),
  -- node=0 for a job that ran: with 0 nodes, a job paying whole nodes
  -- (exclusive, or a whole-node partition) costs 0 core-hours
  ('21|u|a|std|cpu=8,node=0||2026-01-02T00:00:00|2026-01-02T00:00:00|2026-01-02T01:00:00|COMPLETED'),
  ('22|u|a|std|cpu=8|0|2026-01-02T00:00:00|2026-01-02T00:00:00|2026-01-02T01:00:00|COMPLETED'),
  -- ... but a job that never started may have none: accepted
  ('23|u|a|std|cpu=8,node=0||2026-01-02T00:00:00|Unknown|Unknown|PENDING'),
  -- a reversed array range: _array_tasks read it as no task at all
  ('130_[5-1]|u|a|std|cpu=1||2026-01-02T00:00:00|Unknown|Unknown|PENDING'),
  -- items it would skip or misread: a step of 0, a 10-digit index, a
  -- dangling dash
  ('131_[1-9:0]|u|a|std|cpu=1||2026-01-02T00:00:00|Unknown|Unknown|PENDING'),
  ('132_[1-3,1234567890]|u|a|std|cpu=1||2026-01-02T00:00:00|Unknown|Unknown|PENDING'),
  ('133_[4-]|u|a|std|cpu=1||2026-01-02T00:00:00|Unknown|Unknown|PENDING'),
  -- a well-formed remainder: accepted
  ('134_[1-3,7-11:2%4]|u|a|std|cpu=1||2026-01-02T00:00:00|Unknown|Unknown|PENDING'),
  -- a pending remainder in state RUNNING: charged as one job, never replaced
  -- by its tasks' lines (only PENDING remainders are)
  ('125_[1-5]|u|a|std|cpu=1||2026-01-02T00:00:00|2026-01-02T00:00:00|Unknown|RUNNING'),
  -- ... or one that ran: End after Start
  ('126_[1-5]|u|a|std|cpu=1||2026-01-02T00:00:00|2026-01-02T00:00:00|2026-01-02T01:00:00|CANCELLED'),
  -- a remainder cancelled while pending: accepted
  ('127_[1-5]|u|a|std|cpu=1||2026-01-02T00:00:00|Unknown|2026-01-02T01:00:00|CANCELLED');
-- 12 lines: the header, jobs 23, 134_[...] and 127_[...] imported, 8 rejected
SELECT lines_read, imported, skipped, rejected FROM import_sacct('bad_s', 'UTC');
SELECT * FROM pg_temp.last_rejects();

-- PBS: a key the import reads given twice (the last one won, user=
-- included: whose job it is); nodect=0 for a job that ran.  Keys it does
-- not read may repeat.
SELECT import_stage();
INSERT INTO import_staging (line) VALUES
  ('11/22/2026 08:10:10;E;5101.pbs;user=u group=g account=a queue=std ctime=1795334400 etime=1795334400 start=1795334410 end=1795335010 Resource_List.ncpus=1 Exit_status=0 user=root'),
  ('11/22/2026 08:10:10;E;5102.pbs;user=u group=g account=a queue=std ctime=1795334400 etime=1795334400 start=1795334410 end=1795335010 Resource_List.ncpus=1 Resource_List.ncpus=64 Exit_status=0'),
  ('11/22/2026 08:10:10;E;5103.pbs;user=u group=g account=a queue=std ctime=1795334400 etime=1795334400 start=1795334410 end=1795335010 Resource_List.ncpus=1 Resource_List.nodect=0 Exit_status=0'),
  ('11/22/2026 08:10:10;E;5104.pbs;user=u group=g account=a queue=std ctime=1795334400 etime=1795334400 start=1795334410 end=1795335010 Resource_List.ncpus=1 Exit_status=0 session=1 session=2');
-- 4 records: 5104 imported, the other three rejected
SELECT lines_read, imported, rejected FROM import_pbs('bad_pbs', 'UTC');
SELECT * FROM pg_temp.last_rejects();
ROLLBACK TO SAVEPOINT rejected;

-- ===========================================================================
-- The sacctmgr exports read in C (_sacctmgr_event_line,
-- _sacctmgr_reservation_line), as the sacct export is: a later header
-- switches the columns (two exports concatenated, their columns in
-- another order), a repeat of the header is a header, a header that
-- cannot be read rejects itself and the lines up to the next header, a
-- time the cast reads in another form is read as the cast reads it.
-- ===========================================================================
SAVEPOINT sacctmgr_lines;
SET client_min_messages = error;
-- line 1 header, 2 event, 3 the header again, 4 another cluster's event
-- (skipped), 5 a header with TimeEnd before TimeStart, 6 an event read
-- through it (n2 01:00 to 03:00, not 03:00 to 01:00), 7 a time with a
-- blank and no seconds (the cast's form), 8 a time that is not one, 9 a
-- StateRaw past bigint, 10 a header without TRES, 11 a line after it
SELECT import_events('bad_s', E'Cluster|NodeName|TimeStart|TimeEnd|StateRaw|TRES\n'
  'bad_s|n1|2026-01-02T00:00:00|2026-01-02T01:00:00|1|cpu=64\n'
  'Cluster|NodeName|TimeStart|TimeEnd|StateRaw|TRES\n'
  'other|n9|2026-01-02T00:00:00|2026-01-02T01:00:00|1|cpu=64\n'
  'Cluster|NodeName|TimeEnd|TimeStart|StateRaw|TRES\n'
  'bad_s|n2|2026-01-02T03:00:00|2026-01-02T01:00:00|1|cpu=64\n'
  'bad_s|n3|2026-01-02 05:00|2026-01-02T04:00:00|1|cpu=64\n'
  'bad_s|n4|soon|2026-01-02T04:00:00|1|cpu=64\n'
  'bad_s|n5|2026-01-02T05:00:00|2026-01-02T04:00:00|99999999999999999999|cpu=64\n'
  'Cluster|NodeName|TimeEnd|TimeStart|StateRaw\n'
  'bad_s|n6|2026-01-02T05:00:00|2026-01-02T04:00:00|1\n') AS written;   -- 3: n1, n2, n3
RESET client_min_messages;
SELECT node_name, time_start, time_end FROM node_events WHERE cluster = 'bad_s' ORDER BY node_name;
SELECT * FROM pg_temp.last_rejects();   -- lines 8 to 11
-- lines read: the 3 events, the 4 rejects (line 10 among them) and the 3
-- headers read (lines 1, 3, 5): 3 + 4 + 3 = 10; the other cluster's line
-- is not this import's
SELECT lines_read, imported, rejected FROM imports WHERE import_id = (SELECT max(import_id) FROM imports);
-- reservations: a header repeated, an ID past bigint, an Assocs id known
-- (7) and one not (8, named once)
SET client_min_messages = error;
SELECT import_reservations('bad_s', E'ID|Name|TimeStart|TimeEnd|TRES|Assocs\n'
  '1|r1|2026-01-02T00:00:00|2026-01-02T02:00:00|cpu=1|7\n'
  'ID|Name|TimeStart|TimeEnd|TRES|Assocs\n'
  '99999999999999999999|r2|2026-01-02T00:00:00|2026-01-02T02:00:00|cpu=1|\n'
  '3|r3|2026-01-02T00:00:00|2026-01-02T02:00:00|cpu=1|7,8,8\n',
  E'ID|Account|User\n7|a|u\n') AS written;   -- 1: r1
RESET client_min_messages;
SELECT resv_id, name, accounts, users FROM reservations WHERE cluster = 'bad_s';
SELECT * FROM pg_temp.last_rejects();   -- lines 4 and 5
-- the first header is the import's argument: one it cannot read is an error
SELECT import_events('bad_s', E'NodeName|TimeStart|TimeStart|TimeEnd|TRES\n');
ROLLBACK TO SAVEPOINT sacctmgr_lines;

-- ===========================================================================
-- Worth a look, decided as accepted (docs/bad-input.md says why)
-- ===========================================================================
SAVEPOINT accepted;
-- A PBS mem of 2^63 − 1 bytes is stored as what the log says, rounded up
-- to MiB: ceil((2^63 − 1) / 2^20) = 2^43 = 8796093022208.  Only a value
-- that no longer fits (mem_mb beyond 2^62) is rejected.
SELECT (fairshare_internal._pbs_record('11/22/2026 08:10:10;E;5201.pbs;user=u group=g account=a queue=std ctime=1795334400 start=1795334410 end=1795335010 Resource_List.ncpus=1 Resource_List.mem=9223372036854775807b Exit_status=0', 'UTC')).mem_mb;

-- Daylight saving time: sacct prints local times without an offset, so
-- the hour repeated when DST ends (Paris, 27 Oct 2024, 03:00 CEST = 02:00
-- CET) is ambiguous; PostgreSQL reads a repeated time as the later one
-- (CET).  A job from 02:30 CEST to 02:10 CET (40 min) reads as ending
-- before it starts; one from 02:30 CEST to 02:50 CET (80 min) as 20 min.
SELECT kind, reason, end_time - start_time AS elapsed
  FROM (VALUES ('2024-10-27T02:30:00', '2024-10-27T02:10:00'), ('2024-10-27T02:30:00', '2024-10-27T02:50:00')) v(s, e)
 CROSS JOIN LATERAL fairshare_internal._sacct_line(format('1|u|a|std|1|2024-10-27T00:00:00|%s|%s|COMPLETED', v.s, v.e),
                                'JobID|User|Account|Partition|AllocCPUS|Submit|Start|End|State', 'Europe/Paris', 'bad_s');
-- The same jobs exported with TZ=UTC (the README's command) and imported
-- with time_zone 'UTC': 00:30Z to 01:10Z = 40 min, 00:30Z to 01:50Z = 80 min.
SELECT kind, reason, end_time - start_time AS elapsed
  FROM (VALUES ('2024-10-27T00:30:00', '2024-10-27T01:10:00'), ('2024-10-27T00:30:00', '2024-10-27T01:50:00')) v(s, e)
 CROSS JOIN LATERAL fairshare_internal._sacct_line(format('1|u|a|std|1|2024-10-27T00:00:00|%s|%s|COMPLETED', v.s, v.e),
                                'JobID|User|Account|Partition|AllocCPUS|Submit|Start|End|State', 'UTC', 'bad_s');
ROLLBACK TO SAVEPOINT accepted;

ROLLBACK;
SELECT count(*) AS sequences_set_back
  FROM (SELECT setval(seq, COALESCE(last_value, 1), last_value IS NOT NULL) FROM saved_sequences) s;
