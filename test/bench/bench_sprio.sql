-- sprio for the jobs pending at the benchmark instant (centre.sql: 10^5 at
-- the default scale).  sprio needs every association's fair-share factor,
-- so sshare's usage of the whole job history: as a centre runs it, from a
-- usage checkpoint made shortly before (checkpoint_usage, scheduled every
-- few minutes like Slurm's PriorityCalcPeriod), here 10 minutes before the
-- benchmark instant, so that jobs end and start in between.  The baseline
-- is sshare_at from the same checkpoint, interleaved with it: the
-- difference is sprio's own work on the pending jobs.  Target (docs/performance.md):
-- under 2 s.  Also measured: the checkpoint itself (the periodic cost, each
-- round rolled back), sprio from the jobs alone (no checkpoint), and sprio
-- as slurmctld answers it: decay_mode 'slurm_passes', a checkpoint at the
-- last pass, and sprio_at inside the pass, which joins the pending jobs with
-- the fair-share factors that checkpoint cached (docs/priority.md).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
-- from no checkpoint: this file makes the ones it reads
DELETE FROM fairshare.usage_checkpoints;
SELECT count(*) AS n_pending FROM fairshare.jobs WHERE state = 'PENDING' \gset
SELECT count(*) FILTER (WHERE state <> 'PENDING') AS n_jobs FROM fairshare.jobs \gset
\o /dev/null
-- the periodic cost: every association's usage from every job
SELECT bench.measure(format('checkpoint_usage: %s jobs (the periodic cost)', :n_jobs),
  $q$CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '10 minutes')$q$, :reps);
CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '10 minutes');
SELECT bench.note(format('checkpoint_usage: %s jobs (the periodic cost)', :n_jobs),
                  format('then sprio and sshare read %s jobs: running at the checkpoint or started since',
                         (SELECT count(*) FROM fairshare.jobs j, fairshare.usage_checkpoints k
                           WHERE k.cluster = j.cluster AND j.start_time <= bench.as_of()
                             AND COALESCE(j.end_time, 'infinity') > k.as_of)));
SELECT bench.compare(format('sprio_at: %s pending jobs, usage checkpoint 10 min before', :n_pending),
  $q$SELECT * FROM fairshare.sprio_at(bench.as_of())$q$,
  'sshare_at from the same checkpoint (the fair-share factors it needs)',
  $q$SELECT * FROM fairshare.sshare_at(bench.as_of())$q$,
  :reps, 2000, NULL, '< 2 s');
SELECT bench.note(format('sprio_at: %s pending jobs, usage checkpoint 10 min before', :n_pending),
                  format('sprio''s own work: %s s', round(((ms - baseline_ms) / 1000)::numeric, 2)))
  FROM bench.results WHERE name = format('sprio_at: %s pending jobs, usage checkpoint 10 min before', :n_pending);
-- for comparison, once: without a checkpoint, every job of the history
DELETE FROM fairshare.usage_checkpoints;
SELECT bench.measure(format('sprio_at: %s pending jobs, no checkpoint (every job read)', :n_pending),
  $q$SELECT * FROM fairshare.sprio_at(bench.as_of())$q$, 1);
\o

-- As slurmctld answers sprio: its decay passes every PriorityCalcPeriod
-- (decay_mode 'slurm_passes', a pass at the benchmark instant), a checkpoint
-- at that pass, and sprio_at 150 s later, inside the pass, from the factors
-- the checkpoint cached.  The baseline is sshare_at at the same instant: the
-- tree that sprio_at computes when no cached factors hold.  sprio -l's
-- columns (the target), then every column (with the explanation text).
-- The cluster is put back afterwards, without checkpoints, as above.
-- The mode is recorded as in force before the first run (the decay mode
-- as of an instant decides how a checkpoint caches its factors,
-- docs/history.md#the-decay-as-of-an-instant), and its history removed
-- with the switch back, so that the benchmarks after this one read the
-- centre as centre.sql made it.
BEGIN;
SELECT set_config('fairshare.tree_change_at', (min(submit_time) - interval '1 day')::text, true)
  FROM fairshare.jobs WHERE cluster = 'bench' \g /dev/null
UPDATE fairshare.clusters SET decay_mode = 'slurm_passes', priority_last_decay = bench.as_of()
 WHERE cluster = 'bench';
COMMIT;
CALL fairshare.checkpoint_usage('bench', bench.as_of());
DO $$
BEGIN
    IF (SELECT count(*) FROM fairshare_internal._sprio_cached_checkpoints(bench.as_of() + interval '150 seconds')) <> 1 THEN
        RAISE EXCEPTION 'bench_sprio: the checkpoint''s cached factors do not hold 150 s after the pass';
    END IF;
END $$;
\o /dev/null
SELECT bench.compare(format('sprio_at, sprio -l''s columns: %s pending jobs, factors cached at slurmctld''s last pass', :n_pending),
  $q$SELECT job_id, partition, user_name, priority, age, fairshare, job_size, partition_prio, qos_prio, nice
       FROM fairshare.sprio_at(bench.as_of() + interval '150 seconds')$q$,
  'sshare_at at the same instant (the tree without the cached factors)',
  $q$SELECT * FROM fairshare.sshare_at(bench.as_of() + interval '150 seconds')$q$,
  :reps, 1000, NULL, '< 1 s');
SELECT bench.measure(format('sprio_at, every column: %s pending jobs, factors cached at slurmctld''s last pass', :n_pending),
  $q$SELECT * FROM fairshare.sprio_at(bench.as_of() + interval '150 seconds')$q$, :reps);
\o
UPDATE fairshare.clusters SET decay_mode = 'exact', priority_last_decay = NULL WHERE cluster = 'bench';
DELETE FROM fairshare.settings_history WHERE cluster = 'bench' AND table_name = 'clusters';
DELETE FROM fairshare.usage_checkpoints;
