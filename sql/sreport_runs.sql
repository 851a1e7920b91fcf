-- sreport with requeued jobs and windows that cut runs: the sreport-shaped
-- reports against what the real sreport -P of Slurm 22.05 printed
-- (test/fixtures/slurm/sreport_runs, captured by
-- test/slurm/capture_sreport_runs.sh; its header has the table of runs).
-- Jobs 2 and 4 were requeued once each: two runs, same job id.  The window
-- "part" starts while job 1 runs.  Every data line of every capture is
-- compared cell by cell, as in sql/sreport.sql.
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;

INSERT INTO clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000);
CREATE TEMP TABLE assoc (cluster text, account text, user_name text, partition text, share text,
                         parent text, id int, lft int, rgt int, def_qos text, qos text);
\copy assoc FROM 'test/fixtures/slurm/sreport_runs/assoc.txt' (FORMAT csv, DELIMITER '|', HEADER)
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT cluster, btrim(account), NULLIF(parent, ''), NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') = '' ORDER BY lft;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT cluster, btrim(account), user_name, NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') <> '';

CREATE TEMP TABLE win (k text, epoch bigint, iso text);
\copy win FROM 'test/fixtures/slurm/sreport_runs/window.txt' (FORMAT csv, DELIMITER '|')

-- six runs of four jobs (sacct --duplicates): each run is kept
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/sreport_runs/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, user_name, account, partition, cpus, state,
       extract(epoch FROM start_time)::bigint - (SELECT epoch FROM win WHERE k = 'H') AS start_h,
       extract(epoch FROM end_time)::bigint - (SELECT epoch FROM win WHERE k = 'H') AS end_h
  FROM jobs WHERE cluster = 'oracle' ORDER BY job_id::int, submit_time;

\set events `cat test/fixtures/slurm/sreport_runs/events.txt`
SELECT import_events('oracle', :'events');
SELECT cluster, hours_recomputed
  FROM refresh_rollups('oracle', (SELECT to_timestamp(epoch) FROM win WHERE k = 'E'));

-- Worked example: PrintJobCount over the window part, [H+1h, H+4h),
-- by job size (grouping 4,16,32):
--   0-3 CPUs    job 3 (2 CPUs), started in the window            1
--   4-15 CPUs   job 1 (4 CPUs), started at H+300 and still running
--               at H+1h: counted at the window's start (jobs_at_start) 1
--   16-31 CPUs  job 2 (16): run A ended at H+2700, before the window;
--               run B started at H+4500, in it                     1
--   >= 32 CPUs  job 4 (40): run A H+8100..H+9900 in the window; run B
--               starts at H+14500, after it                        1
-- Over all of it, [H, H+5h): 1, 1, 2 (both runs of job 2), 2 (of job 4).
-- The CPU time of the part: job 1 H+1h..H+5700 = 2100 s x 4 = 8400;
-- job 2 run B 4500 s x 16 = 72000; job 3 600 s x 2 = 1200; job 4 run A
-- 1800 s x 40 = 72000.
SELECT w.k, r.account, r.sizes
  FROM (VALUES ('part', 3600, 4 * 3600), ('all', 0, 5 * 3600)) AS w (k, a, b)
 CROSS JOIN LATERAL sreport_job_sizes_by_account(
          (SELECT to_timestamp(epoch + w.a) FROM win WHERE k = 'H'), (SELECT to_timestamp(epoch + w.b) FROM win WHERE k = 'H'),
          '{4,16,32}', 'seconds', NULL, false, true, 'oracle') r
 ORDER BY w.k DESC;

-- What sreport printed: every data line (n >= 1) and its column header (n = 0)
CREATE TEMP TABLE captured (file text, n int, line text);
\copy captured FROM PROGRAM 'cd test/fixtures/slurm/sreport_runs && for f in $(cut -d"|" -f1 commands.txt); do awk -v f="$f" ''h { n++; print f "\037" n "\037" $0 } /^Cluster\|/ && !h { h = 1; print f "\037" 0 "\037" $0 }'' "$f.txt"; done' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
CREATE TEMP TABLE cmd (file text, command text);
\copy cmd FROM 'test/fixtures/slurm/sreport_runs/commands.txt' (FORMAT csv, DELIMITER '|', QUOTE E'\x1e')

-- Ours, printed as sreport -P prints the same command (-t Seconds, or
-- PrintJobCount for the files sizes_*count_*)
CREATE FUNCTION pg_temp.ours(file text, s timestamptz, e timestamptz)
RETURNS TABLE (n int, line text) LANGUAGE plpgsql AS $$
DECLARE
    cnt boolean := file LIKE 'sizes%count%';
    flat boolean := file LIKE 'sizes_flat%';
BEGIN
    IF file LIKE 'utilization%' THEN
        RETURN QUERY SELECT r.line::int, concat_ws('|', r.cluster, r.allocated, r.down, r.plnd_down, r.idle, r.planned, r.reported)
                       FROM sreport_cluster_utilization(s, e, 'Seconds', 'cpu', 'oracle') r;
    ELSIF file LIKE 'acct_by_user%' THEN
        RETURN QUERY SELECT r.line::int, concat_ws('|', r.cluster, r.account, r.login, r.proper_name, r.used, r.energy)
                       FROM sreport_account_utilization_by_user(s, e, 'Seconds', 'cpu', 'oracle') r;
    ELSIF file LIKE 'user_by_acct%' THEN
        RETURN QUERY SELECT r.line::int, concat_ws('|', r.cluster, r.login, r.proper_name, r.account, r.used, r.energy)
                       FROM sreport_user_utilization_by_account(s, e, 'Seconds', 'cpu', 'oracle') r;
    ELSIF file LIKE 'top_usage%' THEN
        RETURN QUERY SELECT r.line::int, concat_ws('|', r.cluster, r.login, r.proper_name, r.account, r.used, r.energy)
                       FROM sreport_top_usage(s, e, 'Seconds', 'cpu', 'oracle') r;
    ELSE
        RETURN QUERY
        SELECT 0, 'Cluster|Account|' || array_to_string(r.labels, '|') || '|% of cluster'
          FROM sreport_job_sizes_by_account(s, e, '{4,16,32}', 'Seconds', NULL, flat, cnt, 'oracle') r
         WHERE r.line = 1
        UNION ALL
        SELECT r.line::int, concat_ws('|', r.cluster, r.account, array_to_string(r.sizes, '|'), r.pct_of_cluster)
          FROM sreport_job_sizes_by_account(s, e, '{4,16,32}', 'Seconds', NULL, flat, cnt, 'oracle') r;
    END IF;
END $$;
CREATE TEMP TABLE ours AS
SELECT c.file, o.n, o.line
  FROM cmd c
 CROSS JOIN LATERAL pg_temp.ours(c.file, substring(c.command FROM 'start=(\S+)')::timestamptz,
                                 substring(c.command FROM 'end=(\S+)')::timestamptz) o;

-- Every file: lines and cells compared, and how many differ (0 each)
SELECT c.file, count(*) FILTER (WHERE c.n > 0) AS lines,
       sum(array_length(string_to_array(c.line, '|'), 1)) FILTER (WHERE c.n > 0) AS cells,
       count(*) FILTER (WHERE o.line IS DISTINCT FROM c.line AND c.n > 0) AS differing
  FROM captured c
  LEFT JOIN ours o ON o.file = c.file AND o.n = c.n
 GROUP BY c.file ORDER BY c.file;
-- the differing lines, and any line of ours sreport did not print (none)
SELECT COALESCE(c.file, o.file) AS file, COALESCE(c.n, o.n) AS n, c.line AS sreport, o.line AS ours
  FROM (SELECT * FROM captured WHERE n > 0 OR file LIKE 'sizes%') c
  FULL JOIN ours o ON o.file = c.file AND o.n = c.n
 WHERE c.line IS DISTINCT FROM o.line
 ORDER BY 1, 2;

-- the suites share a database: leave nothing behind
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM imports WHERE cluster = 'oracle';
DELETE FROM account_users WHERE cluster = 'oracle';
DELETE FROM accounts WHERE cluster = 'oracle' AND account <> 'root';
DELETE FROM accounts WHERE cluster = 'oracle';
DELETE FROM partitions WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
-- the rollups are not tied to the cluster's row: a deleted cluster's
-- hours stay until deleted
DELETE FROM usage_hourly WHERE cluster = 'oracle';
DELETE FROM usage_daily WHERE cluster = 'oracle';
DELETE FROM usage_monthly WHERE cluster = 'oracle';
DELETE FROM usage_monthly_by_account WHERE cluster = 'oracle';
DELETE FROM cluster_usage_hourly WHERE cluster = 'oracle';
DELETE FROM cluster_usage_daily WHERE cluster = 'oracle';
DELETE FROM cluster_usage_monthly WHERE cluster = 'oracle';
SELECT (SELECT count(*) FROM usage_hourly WHERE cluster = 'oracle') AS hourly_left,
       (SELECT count(*) FROM rollup_state WHERE cluster = 'oracle') AS state_left;
