-- Partitioned history (docs/history.md): what the monthly
-- partitions of jobs cost.  Leaves the centre as it found it, so that it
-- runs in any order with the other bench_*.sql files:
--   1. usage as of the benchmark instant from a checkpoint 5 minutes
--      before: one probe of each partition's index on the end time;
--   2. maintain_partitions in steady state: the month made 3 months ahead
--      (empty) -- its locks are all an import waits for; the month is
--      dropped first and made again;
--   3. retention of the oldest month: the checks, the detach, the archive
--      (COPY), and the reports as of the benchmark instant unchanged, in
--      one transaction rolled back at the end (see below).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT count(*) FILTER (WHERE month_start IS NOT NULL) AS n_parts FROM fairshare.job_partitions() \gset
SELECT count(*) AS n_jobs FROM fairshare.jobs \gset

-- 1.
DELETE FROM fairshare.usage_checkpoints WHERE NOT pinned;
CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '5 minutes', from_jobs => true);
\o /dev/null
SELECT bench.measure(format('association_usage_at from a checkpoint 5 min before (%s jobs, %s monthly partitions)', :n_jobs, :n_parts),
  $q$SELECT * FROM fairshare.association_usage_at(bench.as_of())$q$, :reps, 1000);
\o
-- the plan of the jobs it reads: the runs that end after the checkpoint
DO $$
DECLARE
    plan text := '';
    line text;
BEGIN
    FOR line IN EXECUTE format($q$EXPLAIN (COSTS OFF)
        SELECT j.cluster FROM fairshare.jobs j
         WHERE j.start_time IS NOT NULL AND j.start_time <= %L
           AND COALESCE(j.end_time, 'infinity'::timestamptz) > %L$q$,
        bench.as_of(), bench.as_of() - interval '5 minutes') LOOP
        plan := plan || line || E'\n';
    END LOOP;
    PERFORM bench.note((SELECT name FROM bench.results WHERE name LIKE 'association_usage_at from a checkpoint 5 min before%' ORDER BY seq DESC LIMIT 1),
                       format('the runs after the checkpoint: %s index scans of the end-time index, one per partition; %s sequential scans, of partitions of under 100 rows (%s of more)',
                              (SELECT count(*) FROM regexp_matches(plan, 'Index (Only )?Scan using jobs_[a-z0-9_]+_coalesce_idx1', 'g')),
                              (SELECT count(*) FROM regexp_matches(plan, 'Seq Scan', 'g')),
                              (SELECT count(*) FROM regexp_matches(plan, 'Seq Scan on ([a-z0-9_]+)', 'g') m
                                 JOIN pg_class c ON c.relname = m[1] AND c.relnamespace = 'fairshare'::regnamespace
                                WHERE c.reltuples >= 100)));
END $$;
-- the same runs from the partitions and from one table with the same index
DROP TABLE IF EXISTS bench.jobs_flat;
CREATE TABLE bench.jobs_flat AS SELECT * FROM fairshare.jobs;
CREATE INDEX ON bench.jobs_flat ((COALESCE(end_time, 'infinity'::timestamptz))) WHERE start_time IS NOT NULL;
ANALYZE bench.jobs_flat;
\o /dev/null
SELECT bench.compare(format('the runs that end after a checkpoint 5 min before, from %s monthly partitions', :n_parts),
  $q$SELECT count(*), sum(cpus) FROM fairshare.jobs j WHERE j.start_time IS NOT NULL AND j.start_time <= bench.as_of()
        AND COALESCE(j.end_time, 'infinity'::timestamptz) > bench.as_of() - interval '5 minutes'$q$,
  'the same from one table with the same index',
  $q$SELECT count(*), sum(cpus) FROM bench.jobs_flat j WHERE j.start_time IS NOT NULL AND j.start_time <= bench.as_of()
        AND COALESCE(j.end_time, 'infinity'::timestamptz) > bench.as_of() - interval '5 minutes'$q$,
  :reps, 100, NULL, '< 0.1 s');
\o
DROP TABLE bench.jobs_flat;
-- the same without a valid checkpoint: every job read
UPDATE fairshare.usage_checkpoints SET invalidated_at = now(), invalidated_by = 'bench' WHERE NOT pinned;
\o /dev/null
SELECT bench.measure(format('association_usage_at from every job (%s jobs, %s monthly partitions)', :n_jobs, :n_parts),
  $q$SELECT * FROM fairshare.association_usage_at(bench.as_of())$q$, :reps);
\o
DELETE FROM fairshare.usage_checkpoints WHERE NOT pinned;

-- 2. (a DO block at top level may CALL a procedure that commits)
DO $$
DECLARE
    t0 timestamptz;
    ms float8[] := '{}';
BEGIN
    FOR i IN 1 .. 5 LOOP
        EXECUTE (SELECT format('DROP TABLE %s', p.relation) FROM fairshare.job_partitions() p
                  WHERE p.month_start IS NOT NULL ORDER BY p.month_start DESC LIMIT 1);
        COMMIT;
        t0 := clock_timestamp();
        CALL fairshare.maintain_partitions();
        ms := ms || 1000 * extract(epoch FROM clock_timestamp() - t0)::float8;
    END LOOP;
    PERFORM bench.record('maintain_partitions in steady state: the month 3 months ahead made, empty (what an import may wait for)',
                         bench.median(ms), NULL, NULL, NULL, 5, 1000, NULL, '< 1 s');
END $$;

-- 3. the oldest month.  retain_jobs commits after each partition it
-- detaches, so a call of it cannot be undone, and the month would be gone
-- for whatever runs next.  Its steps are timed instead, in one transaction
-- rolled back at the end: the checks of every month it would retain
-- (job_retention, as retain_jobs runs them first), then for each such
-- month what retain_jobs calls (_jobs_retain_partition: its locks, the
-- checks again, the pin, the detach), without retain_jobs' commit.  What
-- retention needs, made first in the same transaction (not timed): no
-- allocation over the month (the centre's RWTH projects start with it), a
-- checkpoint as of the month's last end and one at the benchmark instant,
-- the rollups up to the month's last hour.
SELECT p.relation AS oldest, p.month_end::date AS before,
       (SELECT max(j.end_time) FROM fairshare.jobs j WHERE j.submit_time >= p.month_start AND j.submit_time < p.month_end) AS last_end
  FROM fairshare.job_partitions() p WHERE p.month_start IS NOT NULL ORDER BY p.month_start LIMIT 1 \gset
CREATE FUNCTION pg_temp.retain(before date, OUT jobs bigint, OUT check_ms float8, OUT retain_ms float8, OUT copy_ms float8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    p record;
    bad record;
BEGIN
    jobs := 0;
    t0 := clock_timestamp();
    PERFORM * FROM fairshare.job_retention(before);
    check_ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    t0 := clock_timestamp();
    SELECT r.relation, r.reason INTO bad FROM fairshare.job_retention(before) r WHERE NOT r.retainable LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'bench_partitions: partition % cannot go: %', bad.relation, bad.reason;
    END IF;
    FOR p IN SELECT r.relation, r.jobs FROM fairshare.job_retention(before) r ORDER BY r.month_start LOOP
        PERFORM fairshare_internal._jobs_retain_partition(p.relation, NULL);
        jobs := jobs + p.jobs;
    END LOOP;
    retain_ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    IF jobs = 0 THEN
        RAISE EXCEPTION 'bench_partitions: no month before % to retain', before;
    END IF;
    -- the archive: the detached months written out (to /dev/null)
    t0 := clock_timestamp();
    FOR p IN SELECT c.oid::regclass AS relation FROM pg_class c
              WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
                AND c.relname ~ '^jobs_p[0-9]{4}_[0-9]{2}$' LOOP
        EXECUTE format('COPY %s TO %L WITH (FORMAT csv, HEADER true)', p.relation, '/dev/null');
    END LOOP;
    copy_ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
END $$;
CREATE TEMP VIEW reports_now AS
SELECT 'usage' AS report, md5(string_agg(u::text, ',' ORDER BY u::text)) AS h FROM fairshare.association_usage_at(bench.as_of()) u
UNION ALL SELECT 'sshare', md5(string_agg(s::text, ',' ORDER BY s::text)) FROM fairshare.sshare_at(bench.as_of()) s
UNION ALL SELECT 'sprio', md5(string_agg(s::text, ',' ORDER BY s::text)) FROM fairshare.sprio_at(bench.as_of()) s;
BEGIN;
DELETE FROM fairshare.allocations a WHERE NOT EXISTS (SELECT FROM fairshare.ledger l WHERE l.allocation_id = a.allocation_id);
CALL fairshare.checkpoint_usage('bench', :'last_end');
CALL fairshare.checkpoint_usage('bench', bench.as_of());
SELECT fairshare.refresh_rollups('bench', date_trunc('hour', :'last_end'::timestamptz) + interval '1 hour') \g /dev/null
CREATE TEMP TABLE reports_before ON COMMIT DROP AS SELECT * FROM reports_now;
SELECT * FROM pg_temp.retain(:'before') \gset r_
SELECT CASE WHEN NOT EXISTS (SELECT * FROM reports_before EXCEPT ALL SELECT * FROM reports_now)
            THEN 'association_usage_at, sshare_at, sprio_at as of the benchmark instant unchanged'
            ELSE 'REPORTS CHANGED' END AS reports_check \gset
ROLLBACK;
-- undone: the month back in jobs, no checkpoint pinned
CREATE FUNCTION pg_temp.undone(oldest regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT FROM fairshare.usage_checkpoints WHERE pinned)
       OR NOT EXISTS (SELECT FROM fairshare.job_partitions() p WHERE p.relation = oldest) THEN
        RAISE EXCEPTION 'bench_partitions: the retention of % was not undone', oldest;
    END IF;
    RETURN true;
END $$;
SELECT pg_temp.undone(:'oldest') \g /dev/null
\o /dev/null
SELECT bench.record(format('retain_jobs of the oldest month (%s jobs): checks, pin, detach', :r_jobs),
                    :r_retain_ms, NULL, NULL, NULL, 1, NULL, NULL, NULL);
SELECT bench.note(format('retain_jobs of the oldest month (%s jobs): checks, pin, detach', :r_jobs),
                  format('of which job_retention''s checks alone %s s; archiving it (COPY ... TO a file) %s s more; %s',
                         round(:r_check_ms::numeric / 1000, 3), round(:r_copy_ms::numeric / 1000, 3), :'reports_check'));
\o
