-- Demo report: the centre at a glance, billing, and decayed usage now.
\pset footer off
\echo
\echo '=== fairshare demo centre ==='
SELECT c.cluster, c.decay_mode, c.decay_half_life AS half_life,
       (SELECT count(*) FROM fairshare.partitions p WHERE p.cluster = c.cluster) AS partitions,
       (SELECT count(*) FROM fairshare.accounts a WHERE a.cluster = c.cluster) AS accounts,
       (SELECT count(*) FROM fairshare.account_users u WHERE u.cluster = c.cluster) AS user_assocs,
       (SELECT count(*) FROM fairshare.jobs j WHERE j.cluster = c.cluster) AS jobs,
       (SELECT count(*) FROM fairshare.jobs j WHERE j.cluster = c.cluster AND j.state = 'PENDING') AS pending,
       (SELECT count(*) FROM fairshare.jobs j WHERE j.cluster = c.cluster AND j.state = 'RUNNING') AS running
  FROM fairshare.clusters c ORDER BY 1;

\echo
\echo '=== PROTEUS: what one hour of a 4-CPU, 8 GB job costs on each partition (seed 001) ==='
SELECT partition, billing_weights,
       fairshare.tres_billing('cpu=4,mem=8G,node=1', billing_weights, billing_mode) AS billing_per_second,
       round((fairshare.tres_billing('cpu=4,mem=8G,node=1', billing_weights, billing_mode) * 3600)::numeric, 1) AS usage_per_hour
  FROM fairshare.partitions WHERE cluster = 'proteus' ORDER BY 3;

\echo
\echo '=== Decayed usage now (billing-seconds, each job accrued over its run): top 10 per cluster ==='
SELECT cluster, account, user_name, jobs, round(raw_usage::numeric) AS raw_usage
  FROM (SELECT u.*, row_number() OVER (PARTITION BY cluster ORDER BY raw_usage DESC, account, user_name) AS r
          FROM fairshare.association_usage u) t
 WHERE r <= 10 ORDER BY cluster, r;

\echo
\echo '=== The same usage one month ago (time travel: only what was known then) ==='
SELECT cluster, round(sum(raw_usage)::numeric) AS total_now,
       round((SELECT sum(raw_usage) FROM fairshare.association_usage_at(now() - interval '30 days') p
               WHERE p.cluster = u.cluster)::numeric) AS total_30_days_ago
  FROM fairshare.association_usage u GROUP BY cluster ORDER BY cluster;
