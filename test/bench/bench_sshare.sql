-- sshare over the synthetic centre (centre.sql): every association's
-- decayed usage from the jobs, then the Fair Tree.  Baseline: a plain
-- GROUP BY of the billed usage of the same jobs (job_billing: each job's
-- TRES billed under its partition's weights), interleaved with it.
-- Target (docs/performance.md): at most 1.5x.  Measured without a usage checkpoint (any
-- one is removed first): every job of the history is read, as sshare does
-- for a cluster without a valid checkpoint (bench_sprio.sql measures the
-- reports from a checkpoint).
-- Then the same call with a filter on the cluster, as a BI tool pushes it,
-- against the call without it (the centre has one cluster: the same rows).
-- Target: at most 1.1x (docs/performance.md#a-filter-on-the-cluster).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DELETE FROM fairshare.usage_checkpoints;
SELECT count(*) FILTER (WHERE state <> 'PENDING') AS n_jobs FROM fairshare.jobs \gset
SELECT (SELECT count(*) FROM fairshare.accounts) + (SELECT count(*) FROM fairshare.account_users) AS n_assocs \gset
\o /dev/null
SELECT bench.compare(format('sshare_at: %s jobs, %s associations', :n_jobs, :n_assocs),
  $q$SELECT * FROM fairshare.sshare_at(bench.as_of())$q$,
  'GROUP BY sum of billed usage, same jobs',
  $q$SELECT b.cluster, b.account, b.user_name,
            sum(b.billing * date_part('epoch', COALESCE(b.end_time, bench.as_of()) - b.start_time))
       FROM fairshare.job_billing b
      WHERE b.start_time <= bench.as_of()
      GROUP BY b.cluster, b.account, b.user_name$q$,
  :reps, NULL, 1.5, 'ratio <= 1.5');
SELECT bench.compare(format('sshare_at WHERE cluster = ''bench'': %s jobs, %s associations', :n_jobs, :n_assocs),
  $q$SELECT * FROM fairshare.sshare_at(bench.as_of()) WHERE cluster = 'bench'$q$,
  'sshare_at without the filter, the same rows',
  $q$SELECT * FROM fairshare.sshare_at(bench.as_of())$q$,
  :reps, NULL, 1.1, 'ratio <= 1.1');
\o
