-- sreport: the sreport-shaped reports, read from the rollups, against what
-- the real sreport -P of Slurm 22.05 printed on the same cluster
-- (test/fixtures/slurm/sreport, captured by test/slurm/capture_sreport.sh).
-- The jobs, events and reservations are the ones sacct and sacctmgr
-- exported there; every data line of every captured report is compared
-- cell by cell.  The arithmetic of the figures is in docs/reports.md
-- (a worked example) and in the capture script's table.
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;

-- slurm.conf: one node of 64 CPUs, the four partitions
INSERT INTO clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000),
  ('oracle', 'parked', 'CPU=2.0,Mem=0.25G', 200, 1, 64, 256000);
-- (its first seven columns, in the file's order, parents first: sacctmgr
-- 24.11 prints no LFT and RGT; docs/slurm.md#the-association-tree-lineage-not-lft-and-rgt)
CREATE TEMP TABLE assoc (n serial, cluster text, account text, user_name text, partition text, share text,
                         parent text, id int);
\copy assoc (cluster, account, user_name, partition, share, parent, id) FROM PROGRAM 'cut -d"|" -f1-7 test/fixtures/slurm/sreport/assoc.txt' (FORMAT csv, DELIMITER '|', HEADER)
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT cluster, btrim(account), NULLIF(parent, ''), NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') = '' ORDER BY n;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT cluster, btrim(account), user_name, NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') <> '';
-- sreport prints the GECOS of the machine it ran on: root's is "root",
-- the users made by the capture (useradd -M) have none
INSERT INTO user_info VALUES ('root', 'root');

-- the window: H (8 hours before the capture, on the hour) to H + 8 h
CREATE TEMP TABLE win (k text, epoch bigint, iso text);
\copy win FROM 'test/fixtures/slurm/sreport/window.txt' (FORMAT csv, DELIMITER '|')
SELECT k, iso FROM win ORDER BY k DESC;

-- the jobs: seven runs, one never started (carol's 7, cancelled pending)
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/sreport/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, user_name, account, partition, cpus, mem_mb, state, eligible_time, start_time, end_time
  FROM jobs WHERE cluster = 'oracle' ORDER BY job_id::int;

-- the events and reservations
\set events `cat test/fixtures/slurm/sreport/events.txt`
\set resv `cat test/fixtures/slurm/sreport/reservations.txt`
\set assocs `cat test/fixtures/slurm/sreport/assoc.txt`
SELECT import_events('oracle', :'events');
SELECT import_reservations('oracle', :'resv', :'assocs');
SELECT node_name, time_start, time_end, state, tres FROM node_events WHERE cluster = 'oracle' ORDER BY time_start;
SELECT name, time_start, time_end, flags, tres, accounts, users FROM reservations WHERE cluster = 'oracle' ORDER BY resv_id;

-- roll up to the end of the window (the capture's hour)
SELECT cluster, hours_recomputed, rolled_from, rolled_to
  FROM refresh_rollups('oracle', (SELECT to_timestamp(epoch) FROM win WHERE k = 'E'));

-- Worked example, hour H+1 (06:00-07:00), CPU-seconds:
--   job 1 (4 CPUs)  06:00-06:35  2100 s x 4  =  8400
--   job 3 (16 CPUs) 06:06:40-07:00  3200 s x 16 = 51200
-- allocated 8400 + 51200 = 59600
-- planned (eligible, not started): job 3 06:00-06:06:40 400 s x 16 = 6400,
--   job 4 06:56:40-07:00 200 s x 2 = 400; 6800
-- reported: 64 CPUs x 3600 s = 230400; idle 230400 - 59600 - 6800 = 164000
SELECT period_start, tres, reported_secs, alloc_secs, down_secs, pdown_secs, planned_secs, idle_secs
  FROM cluster_usage_hourly
 WHERE cluster = 'oracle' AND tres = 'cpu' AND period_start = (SELECT to_timestamp(epoch) + interval '1 hour' FROM win WHERE k = 'H');

-- The same hour as BI tools read it (bi_cluster_usage_hourly, docs/reports.md#bi-tools):
-- (float8, printed here to 15 digits):
--   reported  230400 / 3600 = 64
--   allocated  59600 / 3600 = 16.5555555555556
--   planned     6800 / 3600 = 1.88888888888889
--   idle      164000 / 3600 = 45.5555555555556
--   allocated_percent = 100 x 59600 / 230400 = 25.8680555555556
SELECT period_start, tres, reported_hours, allocated_hours, down_hours, planned_down_hours,
       planned_hours, idle_hours, over_hours, allocated_percent
  FROM bi_cluster_usage_hourly
 WHERE cluster = 'oracle' AND tres = 'cpu' AND period_start = (SELECT to_timestamp(epoch) + interval '1 hour' FROM win WHERE k = 'H');
-- every row of the BI views is its rollup row, the seconds / 3600 in
-- float8: rows of each table for oracle, and rows that differ (none)
SELECT 'usage_hourly' AS rollup, count(*) AS rows,
       count(*) FILTER (WHERE (b.run_hours, b.cpu_hours, b.mem_mb_hours, b.node_hours, b.billing_hours, b.gpu_hours,
                               b.energy_joules, b.suspended_hours, b.jobs, b.wait_hours)
                              IS DISTINCT FROM
                              (u.run_secs / 3600.0::float8, u.cpu_secs / 3600.0::float8, u.mem_secs / 3600.0::float8,
                               u.node_secs / 3600.0::float8, u.billing_secs / 3600.0::float8, u.gpu_secs / 3600.0::float8,
                               u.energy, u.suspended_secs / 3600.0::float8, u.jobs, u.wait_secs / 3600.0::float8)) AS differ
  FROM usage_hourly u LEFT JOIN bi_usage_hourly b USING (period_start, cluster, account, user_name, partition, qos, cpus)
 WHERE u.cluster = 'oracle'
UNION ALL
SELECT 'usage_daily', count(*),
       count(*) FILTER (WHERE (b.run_hours, b.cpu_hours, b.mem_mb_hours, b.node_hours, b.billing_hours, b.gpu_hours,
                               b.energy_joules, b.suspended_hours, b.jobs, b.wait_hours)
                              IS DISTINCT FROM
                              (u.run_secs / 3600.0::float8, u.cpu_secs / 3600.0::float8, u.mem_secs / 3600.0::float8,
                               u.node_secs / 3600.0::float8, u.billing_secs / 3600.0::float8, u.gpu_secs / 3600.0::float8,
                               u.energy, u.suspended_secs / 3600.0::float8, u.jobs, u.wait_secs / 3600.0::float8))
  FROM usage_daily u LEFT JOIN bi_usage_daily b USING (period_start, cluster, account, user_name, partition, qos, cpus)
 WHERE u.cluster = 'oracle'
UNION ALL
SELECT 'usage_monthly', count(*),
       count(*) FILTER (WHERE (b.run_hours, b.cpu_hours, b.mem_mb_hours, b.node_hours, b.billing_hours, b.gpu_hours,
                               b.energy_joules, b.suspended_hours, b.jobs, b.wait_hours)
                              IS DISTINCT FROM
                              (u.run_secs / 3600.0::float8, u.cpu_secs / 3600.0::float8, u.mem_secs / 3600.0::float8,
                               u.node_secs / 3600.0::float8, u.billing_secs / 3600.0::float8, u.gpu_secs / 3600.0::float8,
                               u.energy, u.suspended_secs / 3600.0::float8, u.jobs, u.wait_secs / 3600.0::float8))
  FROM usage_monthly u LEFT JOIN bi_usage_monthly b USING (period_start, cluster, account, user_name, partition, qos, cpus)
 WHERE u.cluster = 'oracle';
-- the cluster rollups likewise, by TRES: daily and monthly rows of oracle
-- (their allocated_percent = 100 x allocated / reported)
SELECT 'cluster_usage_' || t.p AS rollup, count(*) AS rows,
       count(*) FILTER (WHERE (t.reported_hours, t.allocated_hours, t.idle_hours, t.planned_hours, t.allocated_percent)
                              IS DISTINCT FROM
                              (t.reported_secs / 3600.0::float8, t.alloc_secs / 3600.0::float8, t.idle_secs / 3600.0::float8,
                               t.planned_secs / 3600.0::float8, 100 * t.alloc_secs::float8 / NULLIF(t.reported_secs, 0)::float8)) AS differ
  FROM (SELECT 'daily' AS p, u.reported_secs, u.alloc_secs, u.idle_secs, u.planned_secs, b.reported_hours, b.allocated_hours,
               b.idle_hours, b.planned_hours, b.allocated_percent
          FROM cluster_usage_daily u LEFT JOIN bi_cluster_usage_daily b USING (period_start, cluster, tres)
         WHERE u.cluster = 'oracle'
        UNION ALL
        SELECT 'monthly', u.reported_secs, u.alloc_secs, u.idle_secs, u.planned_secs, b.reported_hours, b.allocated_hours,
               b.idle_hours, b.planned_hours, b.allocated_percent
          FROM cluster_usage_monthly u LEFT JOIN bi_cluster_usage_monthly b USING (period_start, cluster, tres)
         WHERE u.cluster = 'oracle') t
 GROUP BY t.p ORDER BY 1;

-- What sreport printed: every data line (n >= 1) and its column header
-- (n = 0) of each capture, by file.
CREATE TEMP TABLE captured (file text, n int, line text);
\copy captured FROM PROGRAM 'cd test/fixtures/slurm/sreport && for f in $(cut -d"|" -f1 commands.txt); do awk -v f="$f" ''h { n++; print f "\037" n "\037" $0 } /^Cluster\|/ && !h { h = 1; print f "\037" 0 "\037" $0 }'' "$f.txt"; done' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
CREATE TEMP TABLE cmd (file text, command text);
\copy cmd FROM 'test/fixtures/slurm/sreport/commands.txt' (FORMAT csv, DELIMITER '|', QUOTE E'\x1e')

-- Ours, printed as sreport -P prints the same command.
CREATE TEMP TABLE ours (file text, n int, line text);
CREATE FUNCTION pg_temp.ours(file text, s timestamptz, e timestamptz, opt text)
RETURNS TABLE (n int, line text) LANGUAGE plpgsql AS $$
DECLARE
    units text := CASE WHEN opt IN ('Minutes', 'Hours', 'Seconds', 'Percent') THEN opt ELSE 'Minutes' END;
    tres text := CASE WHEN opt <> 'tres' THEN 'cpu'
                      WHEN file LIKE 'utilization%' THEN 'cpu,mem,billing' ELSE 'cpu,mem,node,billing' END;
BEGIN
    IF file LIKE 'utilization%' THEN
        RETURN QUERY SELECT r.line::int, concat_ws('|', r.cluster, CASE WHEN opt = 'tres' THEN r.tres_name END,
                                                  r.allocated, r.down, r.plnd_down, r.idle, r.planned, r.reported)
                       FROM sreport_cluster_utilization(s, e, units, tres, 'oracle') r;
    ELSIF file LIKE 'acct_by_user%' THEN
        RETURN QUERY SELECT r.line::int, CASE WHEN opt = 'tres'
                       THEN concat_ws('|', r.cluster, r.account, r.login, r.proper_name, r.tres_name, r.used)
                       ELSE concat_ws('|', r.cluster, r.account, r.login, r.proper_name, r.used, r.energy) END
                       FROM sreport_account_utilization_by_user(s, e, units, tres, 'oracle') r;
    ELSIF file LIKE 'user_by_acct%' THEN
        RETURN QUERY SELECT r.line::int, CASE WHEN opt = 'tres'
                       THEN concat_ws('|', r.cluster, r.login, r.proper_name, r.account, r.tres_name, r.used)
                       ELSE concat_ws('|', r.cluster, r.login, r.proper_name, r.account, r.used, r.energy) END
                       FROM sreport_user_utilization_by_account(s, e, units, tres, 'oracle') r;
    ELSIF file LIKE 'top_usage%' THEN
        RETURN QUERY SELECT r.line::int, CASE WHEN opt = 'tres'
                       THEN concat_ws('|', r.cluster, r.login, r.proper_name, r.account, r.tres_name, r.used)
                       ELSE concat_ws('|', r.cluster, r.login, r.proper_name, r.account, r.used, r.energy) END
                       FROM sreport_top_usage(s, e, units, tres, 'oracle') r;
    ELSE
        RETURN QUERY
        SELECT 0, 'Cluster|Account|' || array_to_string(r.labels, '|') || '|% of cluster'
          FROM sreport_job_sizes_by_account(s, e, '{4,16,32}', units,
                   CASE WHEN opt = 'accounts' THEN '{chem,phys}'::text[] END, opt = 'flat', opt = 'count', 'oracle') r
         WHERE r.line = 1
        UNION ALL
        SELECT r.line::int, concat_ws('|', r.cluster, r.account, array_to_string(r.sizes, '|'), r.pct_of_cluster)
          FROM sreport_job_sizes_by_account(s, e, '{4,16,32}', units,
                   CASE WHEN opt = 'accounts' THEN '{chem,phys}'::text[] END, opt = 'flat', opt = 'count', 'oracle') r;
    END IF;
END $$;
INSERT INTO ours
SELECT c.file, o.n, o.line
  FROM cmd c
 CROSS JOIN LATERAL (SELECT substring(c.command FROM 'start=(\S+)')::timestamptz AS s,
                            substring(c.command FROM 'end=(\S+)')::timestamptz AS e,
                            CASE WHEN c.file ~ '_(Minutes|Hours|Seconds|Percent|tres|accounts|flat|count)$'
                                 THEN substring(c.file FROM '_([A-Za-z]+)$') ELSE '' END AS opt) a
 CROSS JOIN LATERAL pg_temp.ours(c.file, a.s, a.e, a.opt) o;

-- Every file: lines and cells compared, and how many differ (0 each).
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

-- SizesByAccount in long form (bi_job_sizes_by_account): each capture's
-- lines rebuilt from its rows, one per account and bucket, compared with
-- what sreport printed; lines and lines that differ (none)
SELECT c.file, count(*) AS lines, count(*) FILTER (WHERE l.line IS DISTINCT FROM c.line) AS differ
  FROM cmd m
 CROSS JOIN LATERAL (SELECT substring(m.command FROM 'start=(\S+)')::timestamptz AS s,
                            substring(m.command FROM 'end=(\S+)')::timestamptz AS e,
                            CASE WHEN m.file ~ '_(Minutes|Hours|Seconds|Percent|accounts|flat|count)$'
                                 THEN substring(m.file FROM '_([A-Za-z]+)$') ELSE '' END AS opt) a
 CROSS JOIN LATERAL (SELECT r.line::int AS n,
                            r.cluster || '|' || r.account || '|' || string_agg(r.size, '|' ORDER BY r.bucket) || '|' || r.pct_of_cluster AS line
                       FROM bi_job_sizes_by_account(a.s, a.e, '{4,16,32}',
                                CASE WHEN a.opt IN ('Minutes', 'Hours', 'Seconds', 'Percent') THEN a.opt ELSE 'Minutes' END,
                                CASE WHEN a.opt = 'accounts' THEN '{chem,phys}'::text[] END, a.opt = 'flat', a.opt = 'count', 'oracle') r
                      GROUP BY r.line, r.cluster, r.account, r.pct_of_cluster) l
  JOIN captured c ON c.file = m.file AND c.n = l.n
 WHERE m.file LIKE 'sizes%'
 GROUP BY c.file ORDER BY c.file;

-- the suites share a database: leave nothing behind
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM imports WHERE cluster = 'oracle';
DELETE FROM user_info WHERE user_name = 'root';
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
