-- Shared by sql/sreport_runs.sql and sql/sreport_resv.sql (after
-- sql/include/sreport_load.sql): every data line (n >= 1) and column header
-- (n = 0) that sreport -P printed for each command of
-- test/fixtures/slurm/:fixture/commands.txt, against the same report of
-- ours printed the same way, cell by cell; then the suite's data is removed.
-- Every command there is -t Seconds, or PrintJobCount for the files named
-- sizes_*count_*, FlatView for sizes_flat_*.
CREATE TEMP TABLE captured (file text, n int, line text);
\set q '\\copy captured FROM PROGRAM ''cd ' :f ' && for f in $(cut -d"|" -f1 commands.txt); do awk -v f="$f" ''''h { n++; print f "\\037" n "\\037" $0 } /^Cluster\\|/ && !h { h = 1; print f "\\037" 0 "\\037" $0 }'''' "$f.txt"; done'' (FORMAT csv, DELIMITER E''\\x1f'', QUOTE E''\\x1e'')'
:q
CREATE TEMP TABLE cmd (file text, command text);
\set q '\\copy cmd FROM ' :f '/commands.txt (FORMAT csv, DELIMITER ''|'', QUOTE E''\\x1e'')'
:q
-- (the captures of sreport reservation Utilization, resv_*, have their own
-- arguments and fields: sql/sreport_resv.sql compares them)
DELETE FROM captured WHERE file LIKE 'resv\_%';
DELETE FROM cmd WHERE file LIKE 'resv\_%';

CREATE FUNCTION pg_temp.ours(file text, s timestamptz, e timestamptz)
RETURNS TABLE (n int, line text) LANGUAGE plpgsql AS $$
DECLARE
    cnt boolean := file LIKE 'sizes%count%';
    flat boolean := file LIKE 'sizes_flat%';
BEGIN
    IF file LIKE 'utilization%' THEN
        -- sreport's default fields: 24.11 prints the planned time where
        -- 22.05 prints PLND Down (docs/slurm.md#sreport-total-count-and-planned-printed-twice)
        RETURN QUERY SELECT r.line::int, concat_ws('|', r.cluster, r.allocated, r.down,
                                                   CASE WHEN k.slurm_version = '24.11' THEN r.planned ELSE r.plnd_down END,
                                                   r.idle, r.planned, r.reported)
                       FROM sreport_cluster_utilization(s, e, 'Seconds', 'cpu', 'oracle') r
                       LEFT JOIN clusters k ON k.cluster = r.cluster;
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
        SELECT 0, 'Cluster|Account|' || array_to_string(r.labels, '|')
                  || CASE WHEN r.total_count IS NOT NULL THEN '|Total Count' ELSE '' END || '|% of cluster'
          FROM sreport_job_sizes_by_account(s, e, '{4,16,32}', 'Seconds', NULL, flat, cnt, 'oracle') r
         WHERE r.line = 1
        UNION ALL
        SELECT r.line::int, concat_ws('|', r.cluster, r.account, array_to_string(r.sizes, '|'), r.total_count, r.pct_of_cluster)
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

-- the suites share a database: leave nothing behind (the rollups are not
-- tied to the cluster's row: a deleted cluster's hours stay until deleted)
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM imports WHERE cluster = 'oracle';
DELETE FROM account_users WHERE cluster = 'oracle';
DELETE FROM accounts WHERE cluster = 'oracle' AND account <> 'root';
DELETE FROM accounts WHERE cluster = 'oracle';
DELETE FROM partitions WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
DELETE FROM usage_hourly WHERE cluster = 'oracle';
DELETE FROM usage_daily WHERE cluster = 'oracle';
DELETE FROM usage_monthly WHERE cluster = 'oracle';
DELETE FROM usage_monthly_by_account WHERE cluster = 'oracle';
DELETE FROM cluster_usage_hourly WHERE cluster = 'oracle';
DELETE FROM cluster_usage_daily WHERE cluster = 'oracle';
DELETE FROM cluster_usage_monthly WHERE cluster = 'oracle';
SELECT (SELECT count(*) FROM usage_hourly WHERE cluster = 'oracle') AS hourly_left,
       (SELECT count(*) FROM rollup_state WHERE cluster = 'oracle') AS state_left,
       (SELECT count(*) FROM reservations WHERE cluster = 'oracle') AS reservations_left;
