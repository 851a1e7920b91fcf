-- import_parse: the staging table parsed in one call (_sacct_parse,
-- docs/performance.md#importing-jobs)
-- and what import_sacct reads from it: every line read and counted once,
-- steps folded into the row before them, the header the first non-blank line
-- by line_no whatever the table's physical order.
SET search_path = public, fairshare;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
\set SHOW_CONTEXT never

INSERT INTO clusters (cluster, decay_half_life) VALUES ('parse', '0');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('parse', 'std', 64, 256000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('parse', 'root', NULL, 1), ('parse', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('parse', 'a', 'u');
SELECT COALESCE(max(import_id), 0) AS imports_from FROM imports \gset

-- ===========================================================================
-- 1. One row per line that is not a step folded into the line before it;
-- folded counts those steps.  12 lines:
--   1 header; 2 job 1, then its steps 3 (.batch) and 4 (.extern): folded 2;
--   5 blank; 6 step 1.0, still after job 1 (blank lines do not break the
--   run): folded into the blank row; 7 job 2; 8 its step 2.0: folded 1;
--   9 NULL line: blank; 10 step 1.1, after job 2: a lone step; 11 job 3,
--   rejected (cpu=x), and 12 its step 3.batch, folded into the reject.
-- Rows: 1, 2, 5, 7, 9, 10, 11 = 7; folded 2 + 1 + 1 + 1 = 5; 7 + 5 = 12.
-- ===========================================================================
CREATE TEMP TABLE st (line_no bigint NOT NULL, line text);
INSERT INTO st VALUES
  (1,  'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State'),
  (2,  '1|u|a|std|cpu=1,mem=1G|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  (3,  '1.batch||a||cpu=1,mem=1G|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  (4,  '1.extern||a||cpu=1,mem=1G|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  (5,  ''),
  (6,  '1.0||a||cpu=1,mem=1G|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  (7,  '2|u|a|std|cpu=2,mem=2G|2026-01-01T00:00:00|2026-01-01T00:10:00|2026-01-01T00:40:00|COMPLETED'),
  (8,  '2.0||a||cpu=2,mem=2G|2026-01-01T00:10:00|2026-01-01T00:10:00|2026-01-01T00:40:00|COMPLETED'),
  (9,  NULL),
  (10, '1.1||a||cpu=1,mem=1G|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  (11, '3|u|a|std|cpu=x|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED'),
  (12, '3.batch||a||cpu=1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T01:00:00|COMPLETED');
SELECT line_no, kind, job_id, step, folded, sqlstate, line IS NOT NULL AS kept_line
  FROM fairshare_internal._sacct_parse('st', 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 1, 'UTC', 'parse')
 ORDER BY line_no;
SELECT count(*) AS rows, sum(folded) AS folded, count(*) + sum(folded) AS lines
  FROM fairshare_internal._sacct_parse('st', 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 1, 'UTC', 'parse');
-- the job rows carry what _sacct_line reads from the same lines
SELECT p.job_id, p.user_name, p.account, p.partition, p.state, p.start_time, p.end_time,
       p.tres, p.cpus, p.mem_mb, p.nodes, p.exclusive, p.stored,
       (p.cluster, p.job_id, p.user_name, p.account, p.partition, p.state, p.start_time,
        p.end_time, p.tres, p.cpus, p.mem_mb, p.gpus, p.nodes)
       IS NOT DISTINCT FROM
       (l.cluster, l.job_id, l.user_name, l.account, l.partition, l.state, l.start_time,
        l.end_time, l.tres, l.cpus, l.mem_mb, l.gpus, l.nodes) AS same_as_sacct_line
  FROM fairshare_internal._sacct_parse('st', 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 1, 'UTC', 'parse') p
  JOIN st s USING (line_no)
 CROSS JOIN LATERAL fairshare_internal._sacct_line(s.line, 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 'UTC', 'parse') l
 WHERE p.kind = 'job' ORDER BY p.job_id;

-- import_sacct over the same lines: 12 read; jobs 1 and 2 imported; folded
-- 5 steps + the lone step 1.1 (its job is in the export) = 6; skipped: the
-- header and 2 blank lines = 3; rejected: line 11 = 1.  2 + 6 + 3 + 1 = 12.
SELECT current_setting('enable_seqscan') AS seqscan_before, current_setting('jit') AS jit_before \gset
SELECT lines_read, imported, updated, unchanged, folded, skipped, rejected
  FROM import_sacct('parse', 'UTC', staging => 'st');
SELECT line_no, sqlstate FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports);
-- the settings the jobs are stored with (sequential scans and JIT off) are
-- the storing function's own: the session's are untouched
SELECT current_setting('enable_seqscan') AS enable_seqscan,
       current_setting('enable_seqscan') = :'seqscan_before' AND current_setting('jit') = :'jit_before' AS untouched;

-- ===========================================================================
-- 2. The header is the first non-blank line by line_no, wherever the table
-- keeps it.  After import_stage() and \copy it is the first row of the
-- first block, where import_sacct takes it from; in a table filled another
-- way, the line numbered first can sit in a later block.
-- ===========================================================================
-- a) block 0 starts with a data line (no header there): refused as a header
--    only after the first line by number is found, line 1, in a later block
CREATE TEMP TABLE st2 (line_no bigint NOT NULL, line text);
INSERT INTO st2
SELECT i, format('%s|u|a|std|cpu=1,mem=1G|2026-01-02T00:00:00|2026-01-02T00:00:00|2026-01-02T00:01:00|COMPLETED', 1000 + i)
  FROM generate_series(2, 201) i;
INSERT INTO st2 VALUES (1, 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State');
SELECT (ctid::text::point)[0] > 0 AS header_past_block_0 FROM st2 WHERE line_no = 1;
-- 201 lines = the header + 200 jobs (1002..1201)
SELECT lines_read, imported, skipped, rejected FROM import_sacct('parse', 'UTC', staging => 'st2');
SELECT count(*), min(job_id), max(job_id) FROM jobs WHERE cluster = 'parse' AND job_id::int BETWEEN 1002 AND 1201;

-- b) block 0 starts with a header too, but another one (User and Account
--    swapped), numbered 3; the first line by number is line 1, in a later
--    block: the table is read again with it.  Line 3 is then a second
--    header, which the lines after it are read through: the data
--    lines follow its order (Account then User), account a and user u.
--    Read with line 1's header they would be user a in account u, an
--    unknown association.
TRUNCATE st2;
INSERT INTO st2 VALUES (3, 'JobID|Account|User|Partition|AllocTRES|Submit|Start|End|State');
INSERT INTO st2
SELECT i, format('%s|a|u|std|cpu=1,mem=1G|2026-01-03T00:00:00|2026-01-03T00:00:00|2026-01-03T00:01:00|COMPLETED', 2000 + i)
  FROM generate_series(4, 203) i;
INSERT INTO st2 VALUES (1, 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State');
SELECT (ctid::text::point)[0] > 0 AS header_past_block_0 FROM st2 WHERE line_no = 1;
-- 202 lines = the 2 headers (skipped) + 200 jobs (2004..2203), none rejected
SELECT lines_read, imported, skipped, rejected FROM import_sacct('parse', 'UTC', staging => 'st2');
SELECT line_no, sqlstate, reason FROM import_rejects WHERE import_id = (SELECT max(import_id) FROM imports);
SELECT count(*), min(job_id), max(job_id) FROM jobs WHERE cluster = 'parse' AND job_id::int BETWEEN 2004 AND 2203;

-- c) the same layout with no cluster argument: block 0's header has a
--    Cluster column, the first line by number has none: refused as before
--    anything is imported (22004)
TRUNCATE st2;
INSERT INTO st2 VALUES (3, 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State|Cluster');
INSERT INTO st2
SELECT i, format('%s|u|a|std|cpu=1,mem=1G|2026-01-04T00:00:00|2026-01-04T00:00:00|2026-01-04T00:01:00|COMPLETED|parse', 3000 + i)
  FROM generate_series(4, 203) i;
INSERT INTO st2 VALUES (1, 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State');
SELECT count(*) AS imports_before FROM imports \gset
SELECT err($$SELECT * FROM import_sacct(NULL, 'UTC', staging => 'st2')$$);
SELECT count(*) - :imports_before AS imports_logged FROM imports;
-- with line 1 gone, block 0's header is the first line: 201 lines, 200 jobs
DELETE FROM st2 WHERE line_no = 1;
SELECT lines_read, imported, skipped, rejected FROM import_sacct(NULL, 'UTC', staging => 'st2');

-- ===========================================================================
-- 3. Arguments
-- ===========================================================================
SELECT err($$SELECT * FROM fairshare_internal._sacct_parse(NULL, 'JobID', 1, 'UTC', 'parse')$$);
SELECT err($$SELECT * FROM fairshare_internal._sacct_parse('st', 'JobID', NULL, 'UTC', 'parse')$$);
SELECT err($$SELECT * FROM fairshare_internal._sacct_parse('st', NULL, 1, 'UTC', 'parse')$$);
SELECT err($$SELECT * FROM fairshare_internal._sacct_parse('st', 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 1, NULL, 'parse')$$);
SELECT err($$SELECT * FROM fairshare_internal._sacct_parse('st', 'JobID|User|Account|Partition|AllocTRES|Submit|Start|End|State', 1, 'Mars/Olympus', 'parse')$$);
-- a header refused when it is the first line (line 1 of st is the header:
-- this one, numbered 1 too, is refused as it is)
SELECT err($$SELECT * FROM fairshare_internal._sacct_parse('st', 'JobID|User|Partition', 1, 'UTC', 'parse')$$);

-- clean up (import_rejects go with their imports)
DELETE FROM jobs WHERE cluster = 'parse';
DELETE FROM imports WHERE import_id > :imports_from;
DELETE FROM clusters WHERE cluster = 'parse';
