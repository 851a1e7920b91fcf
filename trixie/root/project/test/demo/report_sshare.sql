-- Demo report: sshare -l for the demo clusters (Fair Tree), a sample of
-- users, why one user ranks above another, time travel, and the same centre
-- under classic fair share.
\set QUIET on
\pset footer off
SET search_path = fairshare, public;
CREATE TEMP TABLE sshare_now AS SELECT * FROM fairshare.sshare;
CREATE TEMP TABLE sshare_month_ago AS SELECT * FROM fairshare.sshare_at(now() - interval '30 days');

\echo
\echo '=== sshare -l: the top of each tree (accounts down to depth 2) ==='
SELECT cluster, repeat('  ', depth) || account AS account, raw_shares,
       round(norm_shares::numeric, 6) AS norm_shares, raw_usage_int AS raw_usage,
       round(norm_usage::numeric, 6) AS norm_usage, round(effectv_usage::numeric, 6) AS effectv_usage,
       CASE WHEN level_fs = 'Infinity' THEN 'inf' ELSE round(level_fs::numeric, 6)::text END AS level_fs
  FROM sshare_now
 WHERE user_name IS NULL AND depth <= 2
 ORDER BY cluster, tree_order;

\echo
\echo '=== Users per cluster: N (user associations), how many never ran (Level FS inf), factor range ==='
SELECT cluster, count(*) AS n_user_assocs,
       count(*) FILTER (WHERE level_fs = 'Infinity') AS level_fs_inf,
       round(min(fairshare)::numeric, 6) AS min_fairshare, round(max(fairshare)::numeric, 6) AS max_fairshare
  FROM sshare_now WHERE user_name IS NOT NULL GROUP BY cluster ORDER BY cluster;

\echo
\echo '=== A sample of users: the 5 most and the 5 least deserving per cluster (FairShare = rank / N) ==='
SELECT cluster, account, user_name, fs_rank, round(fairshare::numeric, 6) AS fairshare,
       raw_usage_int AS raw_usage, round(effectv_usage::numeric, 6) AS effectv_usage,
       CASE WHEN level_fs = 'Infinity' THEN 'inf' ELSE round(level_fs::numeric, 6)::text END AS level_fs
  FROM (SELECT s.*, row_number() OVER (PARTITION BY cluster ORDER BY fs_rank DESC, tree_order) AS top,
               row_number() OVER (PARTITION BY cluster ORDER BY fs_rank, tree_order) AS bottom
          FROM sshare_now s WHERE user_name IS NOT NULL) t
 WHERE top <= 5 OR bottom <= 5
 ORDER BY cluster, fs_rank DESC, tree_order;

\echo
\echo '=== Why does the lowest-ranked user of cali rank below the highest-ranked one who ran jobs? (fair_tree.html recipe) ==='
SELECT account, round(fairshare::numeric, 6) AS fairshare, other_account, round(other_fairshare::numeric, 6) AS other_fairshare,
       explanation
  FROM (SELECT (SELECT user_name FROM sshare_now WHERE cluster = 'cali' AND user_name IS NOT NULL
                 ORDER BY fs_rank, tree_order LIMIT 1) AS low,
               (SELECT user_name FROM sshare_now WHERE cluster = 'cali' AND user_name IS NOT NULL
                   AND level_fs < 'Infinity' ORDER BY fs_rank DESC, tree_order LIMIT 1) AS high) u,
       LATERAL fairshare.sshare_explain('cali', u.low, u.high) e
 ORDER BY fairshare, other_fairshare DESC
 LIMIT 3;

\echo
\echo '=== Time travel: the biggest changes of FairShare over the last 30 days (proteus, 21-day half-life) ==='
SELECT n.account, n.user_name, round(m.fairshare::numeric, 6) AS fairshare_30_days_ago,
       round(n.fairshare::numeric, 6) AS fairshare_now, round((n.fairshare - m.fairshare)::numeric, 6) AS change
  FROM sshare_now n
  JOIN sshare_month_ago m USING (cluster, account, user_name)
 WHERE n.cluster = 'proteus' AND n.user_name IS NOT NULL
 ORDER BY abs(n.fairshare - m.fairshare) DESC, n.tree_order
 LIMIT 8;

\echo
\echo '=== cali under classic fair share (NO_FAIR_TREE) for the same tree and usage: the 5 Fair Tree leaders ==='
WITH t AS (SELECT * FROM fairshare.association_tree_at(now()) WHERE cluster = 'cali'),
     c AS (SELECT t.account, t.user_name,
                  fairshare.classic_norm_shares(id, parent_id, shares, usage, is_user) OVER w AS classic_norm_shares,
                  fairshare.classic_effective_usage(id, parent_id, shares, usage, is_user) OVER w AS classic_effectv_usage,
                  fairshare.classic_factor(id, parent_id, shares, usage, is_user) OVER w AS classic_fairshare
             FROM t WINDOW w AS ())
SELECT s.account, s.user_name, round(s.fairshare::numeric, 6) AS fair_tree_fairshare,
       round(c.classic_norm_shares::numeric, 6) AS classic_norm_shares,
       round(c.classic_effectv_usage::numeric, 6) AS classic_effectv_usage,
       round(c.classic_fairshare::numeric, 6) AS classic_fairshare
  FROM sshare_now s JOIN c USING (account, user_name)
 WHERE s.cluster = 'cali' AND s.user_name IS NOT NULL AND s.level_fs < 'Infinity'
 ORDER BY s.fs_rank DESC, s.tree_order
 LIMIT 5;

DROP TABLE sshare_now, sshare_month_ago;
