-- sshare: `sshare -l` over the accounting model, with time travel.
-- The data is the real Slurm 22.05 cluster of test/fixtures/slurm
-- (assoc.psv, sacct.psv, slurm.conf): Fair Tree, PriorityDecayHalfLife=0.
SET search_path = fairshare, public;
SET extra_float_digits = 0;

CREATE FUNCTION pg_temp.f6(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '' WHEN x = 'Infinity' THEN 'inf'
                ELSE to_char(x, 'FM99999999990.000000') END $$;

INSERT INTO clusters (cluster, decay_half_life, fairshare_algorithm) VALUES ('oracle', '0', 'fair_tree');
INSERT INTO partitions (cluster, partition, billing_weights, priority_job_factor, cores_per_node, mem_per_node_mb) VALUES
 ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 64, 256000),
 ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 64, 256000),
 ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 64, 256000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
 ('oracle', 'root', NULL, 1),
 ('oracle', 'partners', 'root', 100), ('oracle', 'cistem', 'partners', 1), ('oracle', 'ingenomix', 'partners', 1),
 ('oracle', 'unilim', 'root', 900), ('oracle', 'geist', 'unilim', 283), ('oracle', 'geistlab', 'geist', NULL),
 ('oracle', 'ipam', 'unilim', 283), ('oracle', 'shs', 'unilim', 150), ('oracle', 'xlim', 'unilim', 283);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES
 ('oracle', 'root', 'root', 1), ('oracle', 'cistem', 'alice', 1), ('oracle', 'ingenomix', 'bob', 1),
 ('oracle', 'ingenomix', 'ivan', 1), ('oracle', 'geist', 'frank', 1), ('oracle', 'geistlab', 'grace', 1),
 ('oracle', 'geistlab', 'heidi', 2), ('oracle', 'ipam', 'carol', 1), ('oracle', 'ipam', 'erin', 1),
 ('oracle', 'shs', 'judy', NULL), ('oracle', 'shs', 'kate', 1), ('oracle', 'xlim', 'carol', 10),
 ('oracle', 'xlim', 'dave', 5);
-- the 11 jobs that charged usage (sacct.psv), two of the pending ones, and a
-- job that starts after the instants below
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus) VALUES
 ('oracle', '1', 'alice', 'cistem', 'big', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:22+00', 'cpu=8,mem=16G,node=1', 8),
 ('oracle', '2', 'bob', 'ingenomix', 'std', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:52+00', 'cpu=2,mem=4G,node=1', 2),
 ('oracle', '3', 'carol', 'xlim', 'std', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:52+00', 'cpu=16,mem=32G,node=1', 16),
 ('oracle', '4', 'carol', 'ipam', 'low', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:22+00', 'cpu=4,mem=8G,node=1', 4),
 ('oracle', '5', 'dave', 'xlim', 'big', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:07+00', 'cpu=4,mem=10G,node=1', 4),
 ('oracle', '6', 'erin', 'ipam', 'std', 'normal', 'COMPLETED', '2026-11-21 17:25:21+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:42+00', 'cpu=1,mem=1000M,node=1', 1),
 ('oracle', '7', 'frank', 'geist', 'big', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:37+00', 'cpu=12,mem=48G,node=1', 12),
 ('oracle', '8', 'grace', 'geistlab', 'std', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:02+00', 'cpu=6,mem=12G,node=1', 6),
 ('oracle', '9', 'heidi', 'geistlab', 'low', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:26:12+00', 'cpu=2,mem=3G,node=1', 2),
 ('oracle', '10', 'judy', 'shs', 'std', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:22+00', '2026-11-21 17:25:52+00', 'cpu=3,mem=6G,node=1', 3),
 ('oracle', '11', 'kate', 'shs', 'big', 'normal', 'COMPLETED', '2026-11-21 17:25:22+00', '2026-11-21 17:25:25+00', '2026-11-21 17:25:45+00', 'cpu=1,mem=2G,node=1', 1),
 ('oracle', '12', 'alice', 'cistem', 'big', 'normal', 'PENDING', '2026-11-21 17:27:06+00', NULL, NULL, 'cpu=8,mem=8000M,node=1', 8),
 ('oracle', '13', 'bob', 'ingenomix', 'std', 'normal', 'PENDING', '2026-11-21 17:27:06+00', NULL, NULL, 'cpu=1,mem=1000M,node=1', 1),
 ('oracle', '99', 'ivan', 'ingenomix', 'big', 'normal', 'COMPLETED', '2026-11-21 17:28:00+00', '2026-11-21 17:28:00+00', '2026-11-21 18:00:00+00', 'cpu=64,node=1', 64);

-- ===========================================================================
-- 1. sshare -l as of 17:27:06, when the pending jobs were submitted.
--    Usage = billing x elapsed (no decay), billing = Σ weight x TRES:
--      alice 2412 = (8x4.4 + 16x0.3125) x 60; bob 120 = (2 + 4x0.5) x 30;
--      carol@xlim 2880 = 32 x 90; carol@ipam 240 = 4 x 60; dave 932.625 = 20.725 x 45;
--      erin 29.765625 = (1 + 1000/1024 x 0.5) x 20; frank 5085 = 67.8 x 75;
--      grace 480 = 12 x 40; heidi 87.5 = 1.75 x 50; judy 180 = 6 x 30; kate 100.5 = 5.025 x 20;
--      ivan's job starts at 17:28 and the pending jobs never ran: 0.
--    Accounts: cistem 2412, ingenomix 120, partners 2532; geistlab 567.5, geist 5652.5,
--    ipam 269.765625, shs 280.5, xlim 3812.625, unilim 10015.390625; root 12547.390625.
--    NormShares = shares / level shares: root's fs group 1 + 100 + 900 = 1001
--    (root/root 0.000999, partners 0.099900, unilim 0.899101); unilim's 283+283+150+283 = 999
--    (0.283283, shs 0.150150); geist's group frank 1, grace 1, heidi 2 -> 4
--    (geistlab, parent: S(geist) 0.283283); shs: kate 1 -> 1 (judy, parent: S(shs) 0.150150).
--    EffectvUsage = raw / raw of the fs parent, e.g. grace 480/5652.5 = 0.084918,
--    judy 180/280.5 = 0.641711; NormUsage = raw / 12547.390625, e.g. unilim 0.798205.
--    FairShare = rank/13, ranks derived in sql/fair_tree.sql §3 (alice 1 ... root/root 13),
--    and confirmed there by the Priority of the pending jobs.
-- ===========================================================================
SELECT repeat(' ', depth) || account AS account, user_name, raw_shares,
       pg_temp.f6(norm_shares) AS norm_shares, raw_usage_int AS raw_usage, pg_temp.f6(norm_usage) AS norm_usage,
       pg_temp.f6(effectv_usage) AS effectv_usage, pg_temp.f6(fairshare) AS fairshare, pg_temp.f6(level_fs) AS level_fs, fs_rank
  FROM sshare_at('2026-11-21 17:27:06+00')
 WHERE cluster = 'oracle' ORDER BY tree_order;
-- raw usage is the decayed (here undecayed) float; raw_usage_int truncates it as sshare does
SELECT account, user_name, raw_usage, raw_usage_int
  FROM sshare_at('2026-11-21 17:27:06+00')
 WHERE cluster = 'oracle' AND account IN ('ipam', 'geistlab') ORDER BY tree_order;

-- ===========================================================================
-- 2. Time travel.  At 17:26:00 every job had started (kate at 17:25:25) and
--    the ones still running count up to 17:26:00 only:
--      carol@xlim 32 x 38 = 1216, dave 20.725 x 38 = 787.55 -> xlim 2003.55;
--      carol: (10/15)/(1216/2003.55) = 1.098437 > dave: (5/15)/(787.55/2003.55) = 0.848010,
--      so carol ranks above dave then (8 and 7), below him at 17:27:06 (7 and 8).
--      ipam: carol@ipam 4 x 38 = 152, erin 29.765625 (done): 181.765625;
--      erin 0.5/(29.765625/181.765625) = 3.053281 > carol 0.5/(152/181.765625) = 0.597913.
--    Every other ordering is unchanged (hand-checked: unilim 1.165 > partners 0.437;
--    ipam 8.67 > shs 2.98 > xlim 0.787 > geist 0.509; heidi 23.3 > grace 1.70 > frank 0.30;
--    ingenomix 6.87 > cistem 0.54), so the other ranks are as at 17:27:06.
-- ===========================================================================
SELECT account, user_name, raw_usage, pg_temp.f6(level_fs) AS level_fs, fs_rank, pg_temp.f6(fairshare) AS fairshare
  FROM sshare_at('2026-11-21 17:26:00+00')
 WHERE cluster = 'oracle' AND user_name IS NOT NULL ORDER BY fs_rank DESC;
-- before any job: no usage anywhere: every Level FS inf, every user tied at 13/13,
-- NormUsage 0 (root usage 0), EffectvUsage 0
SELECT count(*) AS users, min(fairshare) AS min_fairshare, max(fairshare) AS max_fairshare,
       bool_and(level_fs = 'Infinity' OR raw_shares IS NULL) AS all_level_fs_inf,
       max(norm_usage) AS max_norm_usage, max(effectv_usage) AS max_effectv_usage
  FROM sshare_at('2026-11-21 17:00:00+00') WHERE cluster = 'oracle' AND user_name IS NOT NULL;
-- the view is sshare_at(now()); these jobs are all in the past and never decay
SELECT (SELECT count(*) FROM (SELECT * FROM sshare EXCEPT SELECT * FROM sshare_at('2026-11-21 18:00:00+00')) a) AS only_in_view,
       (SELECT count(*) FROM (SELECT * FROM sshare_at('2026-11-21 18:00:00+00') EXCEPT SELECT * FROM sshare) b) AS only_in_function;

-- ===========================================================================
-- 3. Explaining a FairShare (fair_tree.html: first common ancestor, Level FS
--    of the two branches below it), as of 17:27:06.
--    alice (1/13) vs bob (2/13): under partners, cistem 0.5/(2412/2532) = 0.524876 <
--      ingenomix 0.5/(120/2532) = 10.55.
--    carol vs dave: carol@ipam vs dave: under unilim, ipam 10.517251 > xlim 0.744157;
--      carol@xlim vs dave: under xlim, carol 0.882552 < dave 1.362686.
--    grace vs frank: geistlab is Fairshare=parent, so grace sits beside frank under geist:
--      grace 0.25/(480/5652.5) = 2.944010 > frank 0.25/(5085/5652.5) = 0.277901.
--    ivan vs bob at 17:25:00 (no usage yet): both inf, a tie: they share a rank.
-- ===========================================================================
SELECT account, round(fairshare::numeric, 6) AS fairshare, other_account, round(other_fairshare::numeric, 6) AS other_fairshare,
       common_ancestor, branch, round(branch_level_fs::numeric, 6) AS branch_level_fs,
       other_branch, round(other_branch_level_fs::numeric, 6) AS other_branch_level_fs
  FROM sshare_explain('oracle', 'alice', 'bob', '2026-11-21 17:27:06+00');
SELECT account, other_account, common_ancestor, branch, round(branch_level_fs::numeric, 6) AS branch_level_fs,
       other_branch, round(other_branch_level_fs::numeric, 6) AS other_branch_level_fs
  FROM sshare_explain('oracle', 'carol', 'dave', '2026-11-21 17:27:06+00');
SELECT common_ancestor, branch, round(branch_level_fs::numeric, 6) AS branch_level_fs,
       other_branch, round(other_branch_level_fs::numeric, 6) AS other_branch_level_fs, explanation
  FROM sshare_explain('oracle', 'grace', 'frank', '2026-11-21 17:27:06+00');
SELECT explanation FROM sshare_explain('oracle', 'ivan', 'bob', '2026-11-21 17:25:00+00');
SELECT explanation FROM sshare_explain('oracle', 'judy', 'judy', '2026-11-21 17:27:06+00');
SELECT err($$SELECT * FROM sshare_explain('oracle', 'nobody', 'bob', '2026-11-21 17:27:06+00')$$);
SELECT err($$SELECT * FROM sshare_explain('nowhere', 'alice', 'bob', '2026-11-21 17:27:06+00')$$);

-- ===========================================================================
-- 4. The same centre under classic fair share (NO_FAIR_TREE) with
--    FairShareDampeningFactor 2, as of 17:27:06 (same usage as §1):
--    root/root: UN 0 under the root -> UE 0 -> F 2^0 = 1.
--    partners: S 100/1001 = 0.099900, UE = UN = 2532/12547.390625 = 0.201795,
--      F 2^(-(0.201795/0.099900)/2) = 2^-1.009985 = 0.496552.
--    geist: S 900/1001 x 283/999 = 0.254700; UN 5652.5/12547.39 = 0.450492;
--      UE 0.450492 + (0.798205 - 0.450492) x 283/999 = 0.548993;
--      F 2^(-(0.548993/0.254700)/2) = 2^-1.077726 = 0.473776.
--    geistlab (parent): S and UE of geist -> 0.473776.
--    grace (fs parent geist, level shares 4): S 0.254700/4 = 0.063675;
--      UN 480/12547.39 = 0.038255; UE 0.038255 + (0.548993 - 0.038255)/4 = 0.165940;
--      F 2^(-(0.165940/0.063675)/2) = 2^-1.303022 = 0.405277.
--    judy (parent user): S(shs) 900/1001 x 150/999 = 0.135000,
--      UE(shs) 0.022355 + (0.798205 - 0.022355) x 150/999 = 0.138849 -> F 0.700154.
--    sshare prints the classic factor for accounts too; no Level FS.
-- ===========================================================================
INSERT INTO clusters (cluster, decay_half_life, fairshare_algorithm, fairshare_dampening)
VALUES ('oracle_classic', '0', 'classic', 2);
INSERT INTO partitions SELECT 'oracle_classic', partition, billing_weights, billing_mode, priority_job_factor, nodes,
       cores_per_node, mem_per_node_mb, gpus_per_node, scratch_per_node_mb, spec, whole_node
  FROM partitions WHERE cluster = 'oracle';
INSERT INTO accounts SELECT 'oracle_classic', account, parent_account, shares, description FROM accounts
 WHERE cluster = 'oracle';
INSERT INTO account_users SELECT 'oracle_classic', account, user_name, shares FROM account_users WHERE cluster = 'oracle';
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus)
SELECT 'oracle_classic', job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus
  FROM jobs WHERE cluster = 'oracle';
SELECT account, user_name, raw_shares, pg_temp.f6(norm_shares) AS norm_shares, pg_temp.f6(effectv_usage) AS effectv_usage,
       pg_temp.f6(fairshare) AS fairshare, level_fs, fs_rank, algorithm
  FROM sshare_at('2026-11-21 17:27:06+00')
 WHERE cluster = 'oracle_classic'
   AND (account, coalesce(user_name, '')) IN (('root', 'root'), ('partners', ''), ('geist', ''), ('geistlab', ''),
                                              ('geistlab', 'grace'), ('shs', 'judy'))
 ORDER BY tree_order;

-- ===========================================================================
-- 5. Only Slurm clusters: a PBS cluster has no sshare rows.  The columns sprio
--    relies on keep their names and types.
-- ===========================================================================
INSERT INTO clusters (cluster, fairshare_algorithm, scheduler) VALUES ('pbs1', 'pbs', 'pbs');
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('pbs1', 'root', NULL, 1);
SELECT cluster, count(*) AS associations FROM sshare GROUP BY cluster ORDER BY cluster;
-- association_tree_at gives every cluster's tree (PBS too) as rows for the
-- window functions: 10 accounts + 13 user associations on oracle; ids that
-- cannot collide ('u:' || length(account) || ':' || account || ':' || user)
SELECT cluster, count(*) AS rows FROM association_tree_at('2026-11-21 17:27:06+00') GROUP BY cluster ORDER BY cluster;
SELECT id, parent_id, shares, usage, is_user FROM association_tree_at('2026-11-21 17:27:06+00')
 WHERE cluster = 'oracle' AND account IN ('geistlab', 'shs') ORDER BY id;
-- any tree function over it, e.g. the classic factor of oracle's users (not
-- what oracle uses): grace 2^(-(0.165940/0.063675)/1) = 0.164250 with dampening 1
SELECT user_name, round(f::numeric, 6) AS classic_factor
  FROM (SELECT user_name, classic_factor(id, parent_id, shares, usage, is_user) OVER () AS f
          FROM association_tree_at('2026-11-21 17:27:06+00') WHERE cluster = 'oracle') x
 WHERE user_name = 'grace';
SELECT attname, format_type(atttypid, atttypmod) AS type
  FROM pg_attribute WHERE attrelid = 'fairshare.sshare'::regclass AND attnum > 0 ORDER BY attnum;

-- as_of NULL (it gave every association zero usage) or infinite: errors
SELECT err('SELECT * FROM sshare_at(NULL)');                             -- 22004
SELECT err('SELECT * FROM association_tree_at(NULL)');                   -- 22004
SELECT err('SELECT * FROM sshare_at(''infinity'')');                     -- 22008

-- ===========================================================================
-- 6. A filter on the cluster, as a BI tool pushes it: the same rows, at the
--    same cost.  sshare_at is inlined, so WHERE cluster = ... reaches its
--    joins (the window is partitioned by cluster) and changes their
--    estimates; with a table of every TRESRunMins line, the joins became
--    nested loops that read every line once per association (at 10^7
--    jobs, 10^5 associations x 11,000 lines: 45 s instead of 0.8 s).
--    Checked: the rows read from the TRESRunMins CTE (run), over every
--    scan of it and every loop, are at most one per sshare row and
--    cluster: the lines are not read per association, whatever plan the
--    filter leads to.  A count of plan rows (deterministic), not a time.
-- ===========================================================================
CREATE FUNCTION pg_temp.run_reads(q text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE p jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO p;
    -- Actual Rows and Rows Removed by Filter are per loop
    RETURN (SELECT COALESCE(sum((n ->> 'Actual Loops')::numeric
                                * ((n ->> 'Actual Rows')::numeric
                                   + COALESCE((n ->> 'Rows Removed by Filter')::numeric, 0))), 0)::bigint
              FROM jsonb_path_query(p, 'strict $.**?(@."Node Type" == "CTE Scan" && @."CTE Name" == "run")') n);
END $$;
-- three jobs running at 17:27:06 (time limit 1 h), so that TRESRunMins has
-- lines on oracle: erin@ipam, grace@geistlab, kate@shs, their accounts up
-- to root (ipam, geistlab, geist, shs, unilim, root) and oracle's line of
-- zeros: 3 + 6 + 1 = 10; oracle_classic (§4) has its line of zeros: 1
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus, time_limit) VALUES
 ('oracle', '50', 'erin', 'ipam', 'std', 'normal', 'RUNNING', '2026-11-21 17:27:00+00', '2026-11-21 17:27:00+00', NULL, 'cpu=1,mem=1000M,node=1', 1, '1 hour'),
 ('oracle', '51', 'grace', 'geistlab', 'std', 'normal', 'RUNNING', '2026-11-21 17:27:00+00', '2026-11-21 17:27:00+00', NULL, 'cpu=1,mem=1000M,node=1', 1, '1 hour'),
 ('oracle', '52', 'kate', 'shs', 'std', 'normal', 'RUNNING', '2026-11-21 17:27:00+00', '2026-11-21 17:27:00+00', NULL, 'cpu=1,mem=1000M,node=1', 1, '1 hour');
SELECT cluster, count(*) AS lines FROM fairshare_internal._tres_run_mins_at('2026-11-21 17:27:06+00')
 GROUP BY cluster ORDER BY cluster;
-- 23 rows per cluster (10 accounts + 13 user associations), 46 in all.
-- run holds one row per cluster (2), so that at most 2 are read per sshare
-- row, however many lines there are: 23 x 2 = 46 with the filter, 46 x 2 =
-- 92 without.  A table of the 11 lines, looked up by two nested loops, was
-- read 23 x 11 x 2 = 506 times with the filter.
SELECT pg_temp.run_reads($$SELECT * FROM sshare_at('2026-11-21 17:27:06+00')$$) <= 46 * 2 AS unfiltered,
       pg_temp.run_reads($$SELECT * FROM sshare_at('2026-11-21 17:27:06+00') WHERE cluster = 'oracle'$$) <= 23 * 2 AS oracle,
       pg_temp.run_reads($$SELECT * FROM sshare_at('2026-11-21 17:27:06+00') WHERE cluster = 'oracle_classic'$$) <= 23 * 2 AS classic,
       pg_temp.run_reads($$SELECT * FROM sshare WHERE cluster = 'oracle'$$) <= 23 * 2 AS view_oracle;
-- and the same rows as the unfiltered call's rows of the cluster (OFFSET 0:
-- its filter stays above it): 23 for each cluster, none only in one
CREATE FUNCTION pg_temp.same_rows(c text) RETURNS TABLE (rows bigint, only_unfiltered bigint, only_filtered bigint)
LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM sshare_at('2026-11-21 17:27:06+00') WHERE cluster = c),
           (SELECT count(*) FROM (SELECT * FROM (SELECT * FROM sshare_at('2026-11-21 17:27:06+00') OFFSET 0) u
                                   WHERE u.cluster = c
                                  EXCEPT ALL
                                  SELECT * FROM sshare_at('2026-11-21 17:27:06+00') WHERE cluster = c) x),
           (SELECT count(*) FROM (SELECT * FROM sshare_at('2026-11-21 17:27:06+00') WHERE cluster = c
                                  EXCEPT ALL
                                  SELECT * FROM (SELECT * FROM sshare_at('2026-11-21 17:27:06+00') OFFSET 0) u
                                   WHERE u.cluster = c) x) $$;
SELECT 'oracle' AS cluster, * FROM pg_temp.same_rows('oracle')
UNION ALL
SELECT 'oracle_classic', * FROM pg_temp.same_rows('oracle_classic');
-- erin's line: 3600 - 6 s left of her time limit x 1 cpu = 3594 cpu-s =
-- 59 cpu-min (59.9, truncated); mem 1000 MB x 3594 s / 60 = 59900; node 59;
-- billing 0 (the job's TRES name no billing count); ipam's line the same
-- (erin's is its only running job), carol@ipam and xlim the line of zeros
SELECT account, user_name, tres_run_mins FROM sshare_at('2026-11-21 17:27:06+00') WHERE cluster = 'oracle'
 AND account IN ('ipam', 'xlim') ORDER BY tree_order;
DELETE FROM jobs WHERE job_id IN ('50', '51', '52');

-- ===========================================================================
-- The tree as of an instant (docs/history.md#the-history-of-the-tree):
-- every change of a parent or a share is kept with its instant, and
-- sshare_at reads the tree as it was then.  Rolled back at the end.
-- ===========================================================================
BEGIN;
-- nothing changed yet: no version; every association is read as it is
SELECT (SELECT count(*) FROM account_history) AS account_versions,
       (SELECT count(*) FROM account_user_history) AS user_versions;
CREATE TEMP TABLE before_change AS SELECT * FROM sshare_at('2026-11-21 17:27:06+00');
-- xlim's share 283 -> 566 at 17:30, shs moved from unilim to partners at
-- 17:40, carol's share in xlim 10 -> 1 at 17:40 (each at its instant,
-- fairshare.tree_change_at), geist's description changed (no change of
-- the tree: no version)
SET LOCAL fairshare.tree_change_at = '2026-11-21 17:30:00+00';
UPDATE accounts SET shares = 566 WHERE cluster = 'oracle' AND account = 'xlim';
SET LOCAL fairshare.tree_change_at = '2026-11-21 17:40:00+00';
UPDATE accounts SET parent_account = 'partners' WHERE cluster = 'oracle' AND account = 'shs';
UPDATE account_users SET shares = 1 WHERE cluster = 'oracle' AND account = 'xlim' AND user_name = 'carol';
UPDATE accounts SET description = 'humanities' WHERE cluster = 'oracle' AND account = 'geist';
RESET fairshare.tree_change_at;
SELECT account, parent_account, shares, valid_from, valid_to FROM account_history ORDER BY account, valid_from;
SELECT account, user_name, shares, valid_from, valid_to FROM account_user_history ORDER BY account, user_name, valid_from;
-- as of 17:27:06, before every change: each row and column as before
-- them (0 rows in either difference)
SELECT (SELECT count(*) FROM (SELECT * FROM sshare_at('2026-11-21 17:27:06+00')
                              EXCEPT ALL SELECT * FROM before_change) x) AS only_now,
       (SELECT count(*) FROM (SELECT * FROM before_change
                              EXCEPT ALL SELECT * FROM sshare_at('2026-11-21 17:27:06+00')) x) AS only_before;
-- NormShares among the siblings: at 17:35 (xlim 566, shs still under
-- unilim) xlim 566/(283 + 283 + 150 + 566) = 566/1282 = 0.441498, shs
-- 150/1282 = 0.117005; at 17:45 shs is under partners, 150/(1 + 1 + 150)
-- = 0.986842, and xlim 566/(283 + 283 + 566) = 0.5; carol's share in
-- xlim with dave's 5: 10/15 = 0.666667 at 17:35, 1/6 = 0.166667 at 17:45
SELECT a.at, s.account, s.user_name, s.parent, s.raw_shares, pg_temp.f6(s.norm_shares) AS norm_shares
  FROM (VALUES ('2026-11-21 17:35:00+00'::timestamptz), ('2026-11-21 17:45:00+00')) a (at)
 CROSS JOIN LATERAL sshare_at(a.at) s
 WHERE s.cluster = 'oracle' AND (s.account IN ('xlim', 'shs') AND s.user_name IS NULL OR s.user_name = 'carol' AND s.account = 'xlim')
 ORDER BY 1, 2, 3 NULLS FIRST;
-- now, after every change: the live tables, as the sshare view reads them
SELECT (SELECT count(*) FROM (SELECT * FROM sshare EXCEPT ALL SELECT * FROM sshare_at(now())) x) AS view_differs;
SELECT parent, raw_shares FROM sshare WHERE cluster = 'oracle' AND account = 'shs' AND user_name IS NULL;
-- the instant is validated: a timestamp (22007), finite and not after
-- now() (22008); the change is refused whole
SET LOCAL fairshare.tree_change_at = 'soon';
SELECT err($$UPDATE accounts SET shares = 2 WHERE cluster = 'oracle' AND account = 'xlim'$$);
SET LOCAL fairshare.tree_change_at = '2999-01-01 00:00+00';
SELECT err($$UPDATE accounts SET shares = 2 WHERE cluster = 'oracle' AND account = 'xlim'$$);
SET LOCAL fairshare.tree_change_at = 'infinity';
SELECT err($$UPDATE accounts SET shares = 2 WHERE cluster = 'oracle' AND account = 'xlim'$$);
SELECT shares FROM accounts WHERE cluster = 'oracle' AND account = 'xlim';
-- an instant before the open version's start (17:30) counts as that
-- start: the 17:30 version (566) is replaced, never rewritten backwards
SET LOCAL fairshare.tree_change_at = '2026-11-21 17:00:00+00';
UPDATE accounts SET shares = 300 WHERE cluster = 'oracle' AND account = 'xlim';
RESET fairshare.tree_change_at;
SELECT shares, valid_from, valid_to FROM account_history WHERE account = 'xlim' ORDER BY valid_from;
-- a user association without jobs (yann in shs, 2 shares, added now: no
-- version, read for every instant) deleted at 17:50 and made again at
-- 17:55 with 4 shares: 2 before, absent in between, 4 after
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('oracle', 'shs', 'yann', 2);
SET LOCAL fairshare.tree_change_at = '2026-11-21 17:50:00+00';
DELETE FROM account_users WHERE cluster = 'oracle' AND account = 'shs' AND user_name = 'yann';
SET LOCAL fairshare.tree_change_at = '2026-11-21 17:55:00+00';
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('oracle', 'shs', 'yann', 4);
RESET fairshare.tree_change_at;
SELECT a.at, (SELECT s.raw_shares FROM sshare_at(a.at) s
               WHERE s.cluster = 'oracle' AND s.account = 'shs' AND s.user_name = 'yann') AS yann_shares
  FROM (VALUES ('2026-11-21 17:45:00+00'::timestamptz), ('2026-11-21 17:52:00+00'), ('2026-11-21 17:57:00+00')) a (at)
 ORDER BY 1;
-- the cluster renamed: its history follows it, no version added
UPDATE clusters SET cluster = 'oracle2' WHERE cluster = 'oracle';
SELECT cluster, count(*) FROM account_history GROUP BY 1
UNION ALL SELECT cluster, count(*) FROM account_user_history GROUP BY 1 ORDER BY 1, 2;
SELECT parent FROM sshare_at('2026-11-21 17:35:00+00') WHERE cluster = 'oracle2' AND account = 'shs' AND user_name IS NULL;
-- and deleted: its history goes with it
DELETE FROM jobs WHERE cluster = 'oracle2';
DELETE FROM clusters WHERE cluster = 'oracle2';
SELECT (SELECT count(*) FROM account_history) + (SELECT count(*) FROM account_user_history) AS versions;
ROLLBACK;

DELETE FROM jobs;
DELETE FROM clusters;
