-- History at scale (issue 18): the periodic checkpoint chained from the one
-- before, against the same checkpoint computed from every job.  As a centre
-- runs it: a checkpoint every 5 minutes (pg_cron), so the chained one reads
-- the jobs that ended or started in those 5 minutes and the ones still
-- running.  Each round is rolled back (bench.call_ms), so every round
-- chains from the same checkpoint 5 minutes before.  Targets (issue 18):
-- under 0.5 s; and an import never waits longer than the checkpoint's own
-- transaction, which holds its SHARE lock on jobs: under 1 s.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DELETE FROM fairshare.usage_checkpoints;
CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '5 minutes', from_jobs => true);
SELECT count(*) FILTER (WHERE state <> 'PENDING') AS n_jobs FROM fairshare.jobs \gset
SELECT count(*) AS n_since FROM fairshare.jobs j
 WHERE j.start_time <= bench.as_of() AND COALESCE(j.end_time, 'infinity') > bench.as_of() - interval '5 minutes' \gset
\o /dev/null
SELECT bench.compare(format('checkpoint_usage chained, 5 min after the previous one (%s jobs, %s read)', :n_jobs, :n_since),
  $q$CALL fairshare.checkpoint_usage('bench', bench.as_of())$q$,
  'checkpoint_usage from every job (from_jobs)',
  $q$CALL fairshare.checkpoint_usage('bench', bench.as_of(), from_jobs => true)$q$,
  :reps, 500, NULL, '< 0.5 s (and the longest wait of an import: < 1 s)');
SELECT bench.note(format('checkpoint_usage chained, 5 min after the previous one (%s jobs, %s read)', :n_jobs, :n_since),
                  'an import waits at most this long: the checkpoint holds SHARE on jobs for its whole transaction');
-- the reports as of the instant, from the chained checkpoint
CALL fairshare.checkpoint_usage('bench', bench.as_of());
SELECT bench.measure(format('sshare_at from a checkpoint at the same instant (%s jobs)', :n_jobs),
  $q$SELECT * FROM fairshare.sshare_at(bench.as_of())$q$, :reps, 1000);
\o
-- the disk a job takes, with its indexes
-- (jobs is partitioned: its size is its partitions')
SELECT format('%s jobs: %s with indexes, %s bytes per job', :n_jobs + 0,
              pg_size_pretty(s.bytes), round(s.bytes / GREATEST(count(*), 1))) AS disk
  FROM fairshare.jobs,
       (SELECT sum(pg_total_relation_size(t.relid)) AS bytes FROM pg_partition_tree('fairshare.jobs') t) s
 GROUP BY s.bytes;
