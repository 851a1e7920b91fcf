-- Shared by the suites that compare the sreport-shaped reports with a real
-- capture of test/slurm/capture_sreport_*.sh (sql/sreport_runs.sql,
-- sql/sreport_resv.sql): the capture cluster "oracle" (slurm.conf of
-- test/slurm/cluster.sh: one node of 64 CPUs), its association tree, jobs,
-- events and, when :with_resv, reservations, all from
-- test/fixtures/slurm/:fixture/, rolled up to the end of the window.
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;

INSERT INTO clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000);
-- (its first seven columns, in the file's order, parents first: sacctmgr
-- 24.11 prints no LFT and RGT; docs/slurm.md#the-association-tree-lineage-not-lft-and-rgt)
CREATE TEMP TABLE assoc (n serial, cluster text, account text, user_name text, partition text, share text,
                         parent text, id int);
\set f 'test/fixtures/slurm/' :fixture
\set q '\\copy assoc (cluster, account, user_name, partition, share, parent, id) FROM PROGRAM ''cut -d"|" -f1-7 ' :f '/assoc.txt'' (FORMAT csv, DELIMITER ''|'', HEADER)'
:q
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT cluster, btrim(account), NULLIF(parent, ''), NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') = '' ORDER BY n;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT cluster, btrim(account), user_name, NULLIF(share, 'parent')::int
  FROM assoc WHERE COALESCE(user_name, '') <> '';

-- the Slurm release the capture ran, as its run.txt records it ("slurm:
-- slurm-wlm 22.05.8"), is the cluster's, set as an administrator sets it:
-- the reports print that release's sreport (docs/slurm.md#which-release-a-cluster-runs)
CREATE TEMP TABLE run_txt (line text);
\set q '\\copy run_txt FROM ' :f '/run.txt (FORMAT csv, DELIMITER E''\\x1f'', QUOTE E''\\x1e'')'
:q
-- (read first, then written: Citus updates no reference table from a TEMP one)
SELECT substring(line FROM '^slurm: slurm-wlm ([0-9]+\.[0-9]+)\.') AS release FROM run_txt WHERE line LIKE 'slurm: %' \gset
UPDATE clusters SET slurm_version = :'release' WHERE cluster = 'oracle';
SELECT cluster, slurm_version FROM clusters WHERE cluster = 'oracle';

CREATE TEMP TABLE win (k text, epoch bigint, iso text);
\set q '\\copy win FROM ' :f '/window.txt (FORMAT csv, DELIMITER ''|'')'
:q

-- the runs, as sacct --duplicates exported them
SELECT import_stage();
\set q '\\copy import_staging (line) FROM ' :f '/sacct.txt (FORMAT csv, DELIMITER E''\\x1f'', QUOTE E''\\x1e'')'
:q
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
SELECT job_id, user_name, account, partition, cpus, state, resv_id,
       extract(epoch FROM eligible_time)::bigint - (SELECT epoch FROM win WHERE k = 'H') AS eligible_h,
       extract(epoch FROM start_time)::bigint - (SELECT epoch FROM win WHERE k = 'H') AS start_h,
       extract(epoch FROM end_time)::bigint - (SELECT epoch FROM win WHERE k = 'H') AS end_h
  FROM jobs WHERE cluster = 'oracle' ORDER BY job_id::int, submit_time;

\set q '\\set events `cat ' :f '/events.txt`'
:q
SELECT import_events('oracle', :'events');
\if :with_resv
\set q '\\set resv `cat ' :f '/reservations.txt`'
:q
\set q '\\set assocs `cat ' :f '/assoc.txt`'
:q
SELECT import_reservations('oracle', :'resv', :'assocs');
SELECT resv_id, name, flags, tres, accounts, users,
       extract(epoch FROM time_start)::bigint - (SELECT epoch FROM win WHERE k = 'H') AS start_h,
       extract(epoch FROM time_end)::bigint - (SELECT epoch FROM win WHERE k = 'H') AS end_h
  FROM reservations WHERE cluster = 'oracle';
\endif
SELECT cluster, hours_recomputed
  FROM refresh_rollups('oracle', (SELECT to_timestamp(epoch) FROM win WHERE k = 'E'));
