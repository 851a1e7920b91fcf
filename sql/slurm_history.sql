-- slurm_history: a real Slurm 22.05 run (test/fixtures/slurm/history:
-- FirstJobId=1, MaxJobId=10, no decay, Fair Tree) with requeued runs, a
-- suspended job and reused job ids, exported with sacct -a -P --duplicates,
-- imported, and compared with the real sshare -a -l -P taken after every job
-- had ended (instant 2 of instants.txt), column by
-- column at Slurm's printed digits (docs/runs.md#job-identity).
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;
SET intervalstyle = 'postgres';

-- slurm.conf: PriorityDecayHalfLife=0, one node of 64 CPUs, four
-- partitions with their TRESBillingWeights and PriorityJobFactor
INSERT INTO clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000),
  ('oracle', 'parked', 'CPU=2.0,Mem=0.25G', 200, 1, 64, 256000);
-- the association tree (sacctmgr show assoc tree -P)
-- (its first seven columns, in the file's order, parents first: sacctmgr
-- 24.11 prints no LFT and RGT; docs/slurm.md#the-association-tree-lineage-not-lft-and-rgt)
CREATE TEMP TABLE assoc (n serial, cluster text, account text, user_name text, partition text, share text,
                         parent text, id int);
\copy assoc (cluster, account, user_name, partition, share, parent, id) FROM PROGRAM 'cut -d"|" -f1-7 test/fixtures/slurm/history/assoc.txt' (FORMAT csv, DELIMITER '|', HEADER)
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT cluster, btrim(account), NULLIF(parent, ''), NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') = '' ORDER BY n;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT cluster, btrim(account), user_name, NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') <> '';

-- the real sshare at instant 2, and that instant
CREATE TEMP TABLE instants (n int, epoch bigint, iso text, sshare_done bigint, last_pass bigint,
                            last_pass_iso text, last_reset bigint, note text);
\copy instants FROM PROGRAM 'grep -v "^#" test/fixtures/slurm/history/instants.txt' (FORMAT csv, DELIMITER '|')
SELECT iso::timestamptz AS instant_2 FROM instants WHERE n = 2;
CREATE TEMP TABLE slurm_sshare (account text, user_name text, raw_shares text, norm_shares text,
    raw_usage text, norm_usage text, effectv_usage text, fairshare text, level_fs text,
    grp_tres_mins text, tres_run_mins text);
\copy slurm_sshare FROM 'test/fixtures/slurm/history/sshare_2.txt' (FORMAT csv, DELIMITER '|', HEADER)
CREATE FUNCTION pg_temp.f6(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '' WHEN x = 'Infinity' THEN 'inf'
                ELSE to_char(x, 'FM99999999990.000000') END $$;
-- fairshare's sshare at the same instant, printed as sshare prints it, and
-- the rows where any column differs
CREATE FUNCTION pg_temp.differences() RETURNS TABLE (account text, user_name text, col text, slurm text, ours text)
LANGUAGE sql AS $$
    WITH ours AS (
        SELECT s.account, COALESCE(s.user_name, '') AS user_name,
               COALESCE(s.raw_shares::text, '') AS raw_shares, pg_temp.f6(s.norm_shares) AS norm_shares,
               s.raw_usage_int::text AS raw_usage, pg_temp.f6(s.norm_usage) AS norm_usage,
               pg_temp.f6(s.effectv_usage) AS effectv_usage, pg_temp.f6(s.fairshare) AS fairshare,
               pg_temp.f6(s.level_fs) AS level_fs
          FROM fairshare.sshare_at((SELECT i.iso::timestamptz FROM instants i WHERE i.n = 2)) s WHERE s.cluster = 'oracle'),
    theirs AS (
        SELECT btrim(t.account) AS account, COALESCE(t.user_name, '') AS user_name,
               COALESCE(t.raw_shares, '') AS raw_shares, COALESCE(t.norm_shares, '') AS norm_shares,
               COALESCE(t.raw_usage, '') AS raw_usage, COALESCE(t.norm_usage, '') AS norm_usage,
               COALESCE(t.effectv_usage, '') AS effectv_usage, COALESCE(t.fairshare, '') AS fairshare,
               COALESCE(t.level_fs, '') AS level_fs
          FROM slurm_sshare t)
    SELECT COALESCE(t.account, o.account), COALESCE(t.user_name, o.user_name), c.col, c.slurm, c.ours
      FROM theirs t FULL JOIN ours o ON o.account = t.account AND o.user_name = t.user_name
     CROSS JOIN LATERAL (VALUES
        ('row', CASE WHEN t.account IS NULL THEN 'missing' ELSE 'present' END,
                CASE WHEN o.account IS NULL THEN 'missing' ELSE 'present' END),
        ('RawShares', t.raw_shares, o.raw_shares), ('NormShares', t.norm_shares, o.norm_shares),
        ('RawUsage', t.raw_usage, o.raw_usage), ('NormUsage', t.norm_usage, o.norm_usage),
        ('EffectvUsage', t.effectv_usage, o.effectv_usage), ('FairShare', t.fairshare, o.fairshare),
        ('LevelFS', t.level_fs, o.level_fs)) AS c (col, slurm, ours)
     WHERE c.slurm IS DISTINCT FROM c.ours
     ORDER BY 1, 2, 3
$$;

-- ===========================================================================
-- 1. sacct -a -P --duplicates: 20 runs of 9 ids (ids 1, 2, 6, 7, 8 and 9
--    reused; job 3 ran three times, job 4 twice; job 5 suspended 30 s),
--    their .batch steps folded
-- ===========================================================================
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/history/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, count(*) AS runs, string_agg(state, ', ' ORDER BY submit_time) AS states,
       string_agg(DISTINCT user_name, ', ') AS users
  FROM jobs WHERE cluster = 'oracle' GROUP BY job_id ORDER BY job_id;
-- job 5: 90 s from Start to End, 30 of them suspended; charged the 90 s:
-- 8 CPUs × 0.5 + 8 GiB × 0.25 = 6 billing × 90 = 540
SELECT job_id, start_time, end_time, suspended,
       billing * extract(epoch FROM end_time - start_time) AS usage
  FROM job_billing JOIN jobs USING (cluster, job_id, start_time, end_time)
 WHERE cluster = 'oracle' AND job_id = '5';
-- every column of every row equal to Slurm's: no row below
SELECT * FROM pg_temp.differences();

-- ===========================================================================
-- 2. The same cluster exported without --duplicates: only the newest record
--    of each id.  The runs it misses are missing from the usage too.
-- ===========================================================================
DELETE FROM jobs WHERE cluster = 'oracle';
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/history/sacct_nodup.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT count(*) AS runs FROM jobs WHERE cluster = 'oracle';
SELECT count(*) AS columns_differing_from_slurm FROM pg_temp.differences();
-- the --duplicates export on top adds exactly the 11 runs it lacked, and
-- the usage is Slurm's again
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/history/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT * FROM pg_temp.differences();
-- and again: nothing changes
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/history/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, updated, unchanged, folded, rejected FROM import_sacct('oracle', 'UTC');

DROP FUNCTION pg_temp.differences();
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM imports WHERE cluster = 'oracle';
DELETE FROM account_users WHERE cluster = 'oracle';
DELETE FROM accounts WHERE cluster = 'oracle' AND account <> 'root';
DELETE FROM accounts WHERE cluster = 'oracle';
DELETE FROM partitions WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
