-- Partitioned history (docs/history.md): what the monthly
-- partitions of jobs cost.  Runs after the other bench_*.sql: it retains
-- the oldest month, which needs the allocations over it gone, so it
-- deletes the allocations.
--   1. usage as of the benchmark instant from a checkpoint 5 minutes
--      before: one probe of each partition's index on the end time;
--   2. maintain_partitions in steady state: the month made 3 months ahead
--      (empty) -- its locks are all an import waits for;
--   3. retention of the oldest month: the checks, the detach, the archive
--      (COPY), and the reports as of the benchmark instant unchanged.
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
    PERFORM bench.note((SELECT name FROM bench.results WHERE name LIKE 'association_usage_at from a checkpoint 5 min before%'),
                       format('the runs after the checkpoint: %s index scans of the end-time index, one per partition; %s sequential scans, of partitions of under 100 rows (%s of more)',
                              (SELECT count(*) FROM regexp_matches(plan, 'Index (Only )?Scan using jobs_[a-z0-9_]+_coalesce_idx1', 'g')),
                              (SELECT count(*) FROM regexp_matches(plan, 'Seq Scan', 'g')),
                              (SELECT count(*) FROM regexp_matches(plan, 'Seq Scan on ([a-z0-9_]+)', 'g') m
                                 JOIN pg_class c ON c.relname = m[1] AND c.relnamespace = 'fairshare'::regnamespace
                                WHERE c.reltuples >= 100)));
END $$;
-- the same runs from the partitions and from one table with the same index
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

-- 3. the oldest month
SELECT p.relation AS oldest, p.month_end::date AS before,
       (SELECT max(j.end_time) FROM fairshare.jobs j WHERE j.submit_time >= p.month_start AND j.submit_time < p.month_end) AS last_end,
       (SELECT count(*) FROM fairshare.jobs j WHERE j.submit_time >= p.month_start AND j.submit_time < p.month_end) AS month_jobs
  FROM fairshare.job_partitions() p WHERE p.month_start IS NOT NULL ORDER BY p.month_start LIMIT 1 \gset
DELETE FROM fairshare.allocations a WHERE NOT EXISTS (SELECT FROM fairshare.ledger l WHERE l.allocation_id = a.allocation_id);
CALL fairshare.checkpoint_usage('bench', :'last_end');
CALL fairshare.checkpoint_usage('bench', bench.as_of());
CREATE TEMP TABLE reports_before AS
SELECT 'usage' AS report, md5(string_agg(u::text, ',' ORDER BY u::text)) AS h FROM fairshare.association_usage_at(bench.as_of()) u
UNION ALL SELECT 'sshare', md5(string_agg(s::text, ',' ORDER BY s::text)) FROM fairshare.sshare_at(bench.as_of()) s
UNION ALL SELECT 'sprio', md5(string_agg(s::text, ',' ORDER BY s::text)) FROM fairshare.sprio_at(bench.as_of()) s;
DO $$
DECLARE
    t0 timestamptz;
    check_ms float8;
    detach_ms float8;
    copy_ms float8;
    oldest regclass;
    before date;
    n bigint;
BEGIN
    SELECT p.relation, p.month_end::date INTO oldest, before
      FROM fairshare.job_partitions() p WHERE p.month_start IS NOT NULL ORDER BY p.month_start LIMIT 1;
    EXECUTE format('SELECT count(*) FROM %s', oldest) INTO n;
    -- (untimed) the rollups hold the month before it goes: retain_jobs
    -- refuses otherwise
    PERFORM fairshare.refresh_rollups(up_to => bench.as_of());
    COMMIT;
    t0 := clock_timestamp();
    PERFORM * FROM fairshare.job_retention(before);
    check_ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    COMMIT;
    t0 := clock_timestamp();
    CALL fairshare.retain_jobs(before);
    detach_ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    t0 := clock_timestamp();
    EXECUTE format('COPY %s TO %L WITH (FORMAT csv, HEADER true)', oldest, '/dev/null');
    copy_ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    EXECUTE format('DROP TABLE %s', oldest);
    PERFORM bench.record(format('retain_jobs of the oldest month (%s jobs): checks, pin, detach', n),
                         detach_ms, NULL, NULL, NULL, 1, NULL, NULL, NULL);
    PERFORM bench.note(format('retain_jobs of the oldest month (%s jobs): checks, pin, detach', n),
                       format('of which job_retention''s checks alone %s s; archiving it (COPY ... TO a file) %s s more',
                              round(check_ms::numeric / 1000, 3), round(copy_ms::numeric / 1000, 3)));
END $$;
SELECT bench.note((SELECT name FROM bench.results WHERE name LIKE 'retain_jobs of the oldest month%'),
                  CASE WHEN NOT EXISTS (
                      SELECT * FROM reports_before EXCEPT ALL
                      (SELECT 'usage', md5(string_agg(u::text, ',' ORDER BY u::text)) FROM fairshare.association_usage_at(bench.as_of()) u
                       UNION ALL SELECT 'sshare', md5(string_agg(s::text, ',' ORDER BY s::text)) FROM fairshare.sshare_at(bench.as_of()) s
                       UNION ALL SELECT 'sprio', md5(string_agg(s::text, ',' ORDER BY s::text)) FROM fairshare.sprio_at(bench.as_of()) s))
                  THEN 'association_usage_at, sshare_at, sprio_at as of the benchmark instant unchanged'
                  ELSE 'REPORTS CHANGED' END);
