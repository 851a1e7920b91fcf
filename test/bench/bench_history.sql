-- History at scale (docs/performance.md#history-at-scale): the periodic
-- checkpoint chained from the one before, against the same checkpoint
-- computed from every job.  As a centre
-- runs it: a checkpoint every 5 minutes (pg_cron), so the chained one reads
-- the jobs that ended or started in those 5 minutes and the ones still
-- running.  Each round is rolled back (bench.call_ms), so every round
-- chains from the same checkpoint 5 minutes before.  Targets at scale:
-- under 0.5 s; and an import waits on it under 1 s: the checkpoint takes
-- its SHARE lock on jobs after writing its rows and factors, and how long a
-- write waits for it is what test/bench/checkpoint_wait.sh measures (run it
-- after this file: it chains from the checkpoint this one leaves).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DELETE FROM fairshare.usage_checkpoints;
CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '5 minutes', from_jobs => true);
SELECT count(*) FILTER (WHERE state <> 'PENDING') AS n_jobs FROM fairshare.jobs \gset
SELECT count(*) AS n_since FROM fairshare.jobs j
 WHERE j.start_time <= bench.as_of() AND COALESCE(j.end_time, 'infinity') > bench.as_of() - interval '5 minutes' \gset
-- Before timing: the chained checkpoint is the one from every job.  Both
-- are made (and rolled back) and compared association by association: the
-- same associations, the same jobs, the usage within 1e-12 relative (each
-- link of the chain may move the last bits of a float8, docs/design.md); each is
-- deleted after it is copied, so that the timed rounds chain from the same
-- checkpoint 5 minutes before.
CREATE TEMP TABLE cp_chained (account text, user_name text, raw_usage float8, jobs bigint, computed_from timestamptz);
CREATE TEMP TABLE cp_full (LIKE cp_chained);
CALL fairshare.checkpoint_usage('bench', bench.as_of());
-- (its rows as the readers take them: a sparse checkpoint's completed
-- with its base's, docs/design.md#sparse-checkpoints)
INSERT INTO cp_chained SELECT r.account, r.user_name, r.raw_usage, r.jobs, k.computed_from
  FROM fairshare_internal._checkpoint_rows('{bench}', ARRAY[bench.as_of()]) r
  JOIN fairshare.usage_checkpoints k USING (cluster, as_of);
SELECT count(*) AS n_written FROM fairshare.usage_checkpoint_rows
 WHERE cluster = 'bench' AND as_of = bench.as_of() \gset
DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench' AND as_of = bench.as_of();
CALL fairshare.checkpoint_usage('bench', bench.as_of(), from_jobs => true);
INSERT INTO cp_full SELECT r.account, r.user_name, r.raw_usage, r.jobs, k.computed_from
  FROM fairshare.usage_checkpoint_rows r JOIN fairshare.usage_checkpoints k USING (cluster, as_of)
 WHERE r.cluster = 'bench' AND r.as_of = bench.as_of();
DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench' AND as_of = bench.as_of();
DO $$
DECLARE
    n_chained bigint := (SELECT count(*) FROM cp_chained);
    n_full bigint := (SELECT count(*) FROM cp_full);
    n_bad bigint;
    worst float8;
BEGIN
    IF (SELECT count(*) FROM cp_chained WHERE computed_from = bench.as_of() - interval '5 minutes') <> n_chained THEN
        RAISE EXCEPTION 'the checkpoint timed as chained was not computed from the one 5 minutes before';
    END IF;
    SELECT count(*) FILTER (WHERE c.account IS NULL OR f.account IS NULL OR c.jobs <> f.jobs
                                  OR abs(c.raw_usage - f.raw_usage) > 1e-12 * GREATEST(abs(f.raw_usage), 1e-300)),
           max(abs(c.raw_usage - f.raw_usage) / NULLIF(abs(f.raw_usage), 0))
      INTO n_bad, worst
      FROM cp_chained c FULL JOIN cp_full f USING (account, user_name);
    IF n_chained = 0 OR n_chained <> n_full OR n_bad > 0 THEN
        RAISE EXCEPTION 'chained checkpoint differs from the one from every job: % and % associations, % differ (largest relative difference %)',
            n_chained, n_full, n_bad, worst;
    END IF;
END $$;
SELECT format('equal to the checkpoint from every job (checked before timing): %s associations, the same jobs, largest relative difference of the usage %s',
              count(*), COALESCE(max(abs(c.raw_usage - f.raw_usage) / NULLIF(abs(f.raw_usage), 0)), 0)) AS cp_check
  FROM cp_chained c JOIN cp_full f USING (account, user_name) \gset
\echo :cp_check
DROP TABLE cp_chained, cp_full;
\o /dev/null
SELECT bench.compare(format('checkpoint_usage chained, 5 min after the previous one (%s jobs, %s read)', :n_jobs, :n_since),
  $q$CALL fairshare.checkpoint_usage('bench', bench.as_of())$q$,
  'checkpoint_usage from every job (from_jobs)',
  $q$CALL fairshare.checkpoint_usage('bench', bench.as_of(), from_jobs => true)$q$,
  :reps, 500, NULL, '< 0.5 s (and the longest wait of an import: < 1 s)');
SELECT bench.note(format('checkpoint_usage chained, 5 min after the previous one (%s jobs, %s read)', :n_jobs, :n_since),
                  'the longest wait of an import is measured by test/bench/checkpoint_wait.sh: the checkpoint takes its lock after writing its rows and factors');
SELECT bench.note(format('checkpoint_usage chained, 5 min after the previous one (%s jobs, %s read)', :n_jobs, :n_since), :'cp_check');
SELECT bench.note(format('checkpoint_usage chained, 5 min after the previous one (%s jobs, %s read)', :n_jobs, :n_since),
                  format('sparse on the checkpoint 5 minutes before: %s rows written for %s associations (docs/design.md#sparse-checkpoints)',
                         :n_written, (SELECT count(*) FROM fairshare.usage_checkpoint_rows
                                       WHERE cluster = 'bench' AND as_of = bench.as_of() - interval '5 minutes')));
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
