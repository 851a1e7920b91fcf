-- ---------------------------------------------------------------------------
-- history: the job table's monthly partitions, their maintenance and the
-- retention of old months (docs/history.md).
--
-- jobs is partitioned by submit_time (model.sql says why), one partition per
-- calendar month in UTC, named jobs_pYYYY_MM, plus jobs_default for the
-- runs of months without a partition.  The months are made by
-- maintain_partitions, a procedure of this extension rather than
-- pg_partman: one fixed monthly scheme needs no second extension that every
-- DBA must install and upgrade, nor its configuration tables (which pg_dump
-- and the upgrade test would have to follow); a run of a month that has no
-- partition yet is kept in jobs_default, and the next maintenance moves it.
-- Schedule it with pg_cron (docs/history.md).
--
-- Both procedures here run as the owner of jobs (the role that ran CREATE
-- EXTENSION): creating, attaching and detaching a partition needs it.
-- ---------------------------------------------------------------------------

-- The partitions of jobs and the months they hold, [month_start,
-- month_end); both NULL for jobs_default.  The bounds are read back from
-- the catalog in ISO style, whatever the session's DateStyle.
CREATE FUNCTION @extschema@.job_partitions()
RETURNS TABLE (relation regclass, month_start timestamptz, month_end timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET "DateStyle" = 'ISO, YMD'
BEGIN ATOMIC
    SELECT c.oid::pg_catalog.regclass,
           (pg_catalog.regexp_match(b.bound, '^FOR VALUES FROM \(''([^'']+)''\)'))[1]::timestamptz,
           (pg_catalog.regexp_match(b.bound, ' TO \(''([^'']+)''\)$'))[1]::timestamptz
      FROM pg_catalog.pg_inherits i
      JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) i.inhrelid
     CROSS JOIN LATERAL (SELECT pg_catalog.pg_get_expr(c.relpartbound, c.oid) AS bound) b
     WHERE i.inhparent OPERATOR(pg_catalog.=) '@extschema@.jobs'::pg_catalog.regclass
     ORDER BY 2 NULLS FIRST, 1;
END;
COMMENT ON FUNCTION @extschema@.job_partitions() IS
'The partitions of fairshare.jobs and the month each holds, [month_start, month_end) in UTC (NULL for jobs_default).';

-- Refuses a caller who cannot create or detach partitions of jobs.
CREATE FUNCTION @extschema@_internal._jobs_owner_check(caller text)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    owner_oid oid;
BEGIN
    -- The owner by its oid: regrole's text form is quoted for SQL
    -- ("fs-admin" for fs-admin), which is not the role's name.
    SELECT c.relowner INTO owner_oid FROM pg_class c WHERE c.oid = '@extschema@.jobs'::regclass;
    IF NOT pg_has_role(current_user, owner_oid, 'USAGE') THEN
        RAISE EXCEPTION '%: role "%" does not own fairshare.jobs', caller, current_user
            USING ERRCODE = '42501',
                  HINT = 'Partitions are made and detached by the owner of the extension''s tables (the role that ran CREATE EXTENSION): call it as that role, or schedule it with pg_cron as that role.';
    END IF;
END
$$;

-- The first day (UTC) of each month that needs a partition: every month
-- from the oldest one present (a monthly partition, or a run in
-- jobs_default) up to months_ahead months after the current one, that no
-- partition covers yet.  One scan of jobs_default (empty in steady state).
--
-- Two bounds, each said in a WARNING (docs/history.md#maintain_partitions):
-- no month before the earliest clusters.accounting_start (default
-- 2000-01-01) is made, its runs stay in jobs_default; and at most
-- max_months (120) months are made in one call, the newest first, the
-- older ones left to the next call.  A partition costs every query of
-- jobs a lock per table and index: one run submitted in 1900 would make
-- 1,527 partitions (64-75 s), after which every query of jobs, and even
-- DROP EXTENSION, fails with "out of shared memory" at the default
-- max_locks_per_transaction.
CREATE FUNCTION @extschema@_internal._jobs_months_to_make(months_ahead integer)
RETURNS SETOF date
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
    max_months constant integer := 120;
    floor_at timestamptz;
    floor_month date;
    oldest date;
    early bigint;
    months date[];
BEGIN
    IF months_ahead IS NULL THEN
        RAISE EXCEPTION 'maintain_partitions: months_ahead must not be NULL'
            USING ERRCODE = '22004', HINT = 'Leave it out for its default, 3 months ahead.';
    ELSIF months_ahead NOT BETWEEN 0 AND 120 THEN
        RAISE EXCEPTION 'maintain_partitions: months_ahead must be between 0 and 120, not %', months_ahead
            USING ERRCODE = '22023',
                  HINT = 'It counts the empty monthly partitions made ahead of the current month (default 3).';
    END IF;
    SELECT COALESCE(min(c.accounting_start), '2000-01-01 00:00:00+00') INTO floor_at FROM @extschema@.clusters c;
    floor_month := date_trunc('month', floor_at AT TIME ZONE 'UTC')::date;
    SELECT date_trunc('month', min(d.submit_time) FILTER (WHERE d.submit_time >= floor_month::timestamp AT TIME ZONE 'UTC')
                                 AT TIME ZONE 'UTC')::date,
           count(*) FILTER (WHERE d.submit_time < floor_month::timestamp AT TIME ZONE 'UTC')
      INTO oldest, early
      FROM ONLY @extschema@.jobs_default d;
    IF early > 0 THEN
        RAISE WARNING 'maintain_partitions: % run(s) in jobs_default were submitted before %, the month of the earliest clusters.accounting_start (%): no partition is made for their months',
                      early, to_char(floor_month, 'YYYY-MM'), to_char(floor_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')
            USING HINT = 'Such a Submit is a typing or clock error: correct or delete those runs (SELECT * FROM ONLY fairshare.jobs_default ORDER BY submit_time), or set clusters.accounting_start earlier if the centre''s accounting truly began then.';
    END IF;
    SELECT min(m) INTO oldest
      FROM (SELECT (p.month_start AT TIME ZONE 'UTC')::date AS m
              FROM @extschema@.job_partitions() p
             WHERE p.month_start IS NOT NULL AND p.month_start >= floor_month::timestamp AT TIME ZONE 'UTC'
            UNION ALL
            SELECT oldest) x;
    SELECT array_agg(g::date ORDER BY g)
      INTO months
      FROM generate_series(LEAST(COALESCE(oldest, this_month), this_month)::timestamp,
                           (this_month + make_interval(months => months_ahead))::timestamp,
                           interval '1 month') g
     WHERE NOT EXISTS (SELECT FROM @extschema@.job_partitions() p
                        WHERE p.month_start < ((g + interval '1 month') AT TIME ZONE 'UTC')
                          AND p.month_end > (g AT TIME ZONE 'UTC'));
    IF cardinality(months) > max_months THEN
        RAISE WARNING 'maintain_partitions: % months need a partition and one call makes at most %: the newest % are made, % to % are left for the next call',
                      cardinality(months), max_months, max_months,
                      to_char(months[1], 'YYYY-MM'), to_char(months[cardinality(months) - max_months], 'YYYY-MM')
            USING HINT = 'Call it again; their runs stay readable in jobs_default meanwhile.  So many months at once come from a history loaded whole, or from runs of a wrong Submit: check SELECT min(submit_time) FROM ONLY fairshare.jobs_default.';
        months := months[cardinality(months) - max_months + 1 :];
    END IF;
    RETURN QUERY SELECT unnest(months);
END
$$;

-- Makes the partition of one month (its first day, UTC) in the caller's
-- transaction: the month's runs are moved out of jobs_default into a new
-- table, which is then attached.  The caller commits: a kill at any point
-- leaves either no partition and the runs in jobs_default, or both done.
-- Returns the runs moved; NULL when the month was skipped (made meanwhile
-- by another run, or its name taken by a table that is not a partition).
--
-- Locks: those ATTACH PARTITION takes, all taken first, in the order
-- checkpoint_usage takes its own (the tables jobs refers to, then jobs);
-- checkpoint_usage reads jobs before its lock (checkpoint.sql), so a
-- wait here for jobs_default and its wait for partitions can cross, which
-- the time-out below (or PostgreSQL's deadlock report) undoes:
--   partitions, account_users  SHARE ROW EXCLUSIVE: ATTACH adds the new
--                        partition's foreign keys to them; their writers
--                        and checkpoint_usage wait, their readers do not
--   jobs itself          SHARE UPDATE EXCLUSIVE: imports and checkpoints
--                        wait, readers do not
--   jobs_default         ACCESS EXCLUSIVE: ATTACH scans it for runs of the
--                        new month; taken before the move so that no run
--                        of the month comes in between; readers of jobs
--                        wait
-- Each wait is cut at 0.5 s (lock_timeout, below the 1 s after which
-- PostgreSQL looks for deadlocks) and retried: while maintenance waits for
-- a lock, the imports and reports that queue behind it wait too, so it
-- never waits long (with an autovacuum worker about: see below).  In steady state the month is made ahead and empty and
-- jobs_default is empty: the locks are held for milliseconds.
CREATE FUNCTION @extschema@_internal._jobs_make_partition(month date)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    part text := format('jobs_p%s', to_char(month, 'YYYY_MM'));
    lo timestamptz := month::timestamp AT TIME ZONE 'UTC';
    hi timestamptz := (month + interval '1 month')::timestamp AT TIME ZONE 'UTC';
    cols text;
    moved bigint;
    attempt integer := 0;
    autovacuum boolean := false;
BEGIN
    IF month IS NULL OR month <> date_trunc('month', month)::date THEN
        RAISE EXCEPTION '_jobs_make_partition: % is not the first day of a month', month
            USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@_internal._citus_sequential();
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout',
                              CASE WHEN autovacuum
                                   THEN (extract(epoch FROM current_setting('deadlock_timeout')::interval) * 1000 + 500)::bigint::text
                                   ELSE '500' END, true);
            LOCK TABLE @extschema@.partitions, @extschema@.account_users IN SHARE ROW EXCLUSIVE MODE;
            LOCK TABLE ONLY @extschema@.jobs IN SHARE UPDATE EXCLUSIVE MODE;
            LOCK TABLE ONLY @extschema@.jobs_default IN ACCESS EXCLUSIVE MODE;
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            attempt := attempt + 1;
            -- an autovacuum worker of this database may be what holds it (a
            -- partition just loaded): PostgreSQL cancels such a worker only
            -- for a lock waited on longer than deadlock_timeout, so the next
            -- try waits that long (a 10^7-job jobs_default failed 20 tries).
            -- Waiting that long, a checkpoint that read jobs_default and
            -- waits for partitions is a deadlock PostgreSQL reports here:
            -- the locks are let go and taken again, as after a time-out
            autovacuum := EXISTS (SELECT FROM pg_stat_activity a
                                   WHERE a.backend_type = 'autovacuum worker'
                                     AND a.datname = current_database());
            IF attempt >= 20 THEN
                RAISE EXCEPTION 'maintain_partitions: jobs stayed locked by other sessions (20 tries over about 1 minute) while making %', part
                    USING ERRCODE = '55P03',
                          HINT = 'A long import, checkpoint or report holds fairshare.jobs; the next scheduled run makes the partition.';
            END IF;
            PERFORM pg_sleep(LEAST(attempt, 5) * 0.5);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', '0', true);

    -- made meanwhile by a run that committed while this one waited
    IF EXISTS (SELECT FROM @extschema@.job_partitions() p WHERE p.month_start < hi AND p.month_end > lo) THEN
        RETURN NULL;
    END IF;
    IF to_regclass(format('@extschema@.%I', part)) IS NOT NULL THEN
        RAISE WARNING 'maintain_partitions: fairshare.% exists and is not a partition of jobs: month % left in jobs_default', part, to_char(month, 'YYYY-MM')
            USING HINT = 'A month retain_jobs detached and kept? Archive it and drop it, or rename it; the next run makes the partition.';
        RETURN NULL;
    END IF;

    -- the parent's columns in its order, named on both sides of the move
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
      FROM pg_attribute a
     WHERE a.attrelid = '@extschema@.jobs'::regclass AND a.attnum > 0 AND NOT a.attisdropped;
    EXECUTE format('CREATE TABLE @extschema@.%I (LIKE @extschema@.jobs INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
    -- (a direct write to a partition fires none of jobs' statement
    -- triggers: moving runs changes no usage and invalidates no checkpoint)
    EXECUTE format('WITH m AS (DELETE FROM ONLY @extschema@.jobs_default
                                WHERE submit_time >= $1 AND submit_time < $2 RETURNING %1$s)
                    INSERT INTO @extschema@.%2$I (%1$s) SELECT %1$s FROM m', cols, part)
      USING lo, hi;
    GET DIAGNOSTICS moved = ROW_COUNT;
    -- builds the partition's indexes (and checks its foreign keys) on the
    -- rows moved, in bulk; checks that jobs_default holds no run of the month
    EXECUTE format('ALTER TABLE @extschema@.jobs ATTACH PARTITION @extschema@.%I FOR VALUES FROM (%L) TO (%L)',
                   part, lo, hi);
    IF moved > 0 THEN
        EXECUTE format('ANALYZE @extschema@.%I', part);
    END IF;
    RETURN moved;
END
$$;

-- Makes the monthly partitions of jobs: every month from the oldest one
-- present up to months_ahead months after the current one (UTC) that has
-- none, moving the runs of that month out of jobs_default first.  Each
-- month is its own transaction (a kill -9 leaves each month either done or
-- not begun; the next run completes the rest), so CALL it on its own, not
-- inside BEGIN ... COMMIT.  Schedule it daily with pg_cron
-- (docs/history.md): it makes one partition a month, ahead of time, empty.
-- Rebuilds the indexes of jobs_default after runs were moved out of it.  A
-- DELETE leaves its index entries in place, and VACUUM frees them for reuse
-- but does not shrink the files: a history loaded whole into jobs_default
-- and then moved kept every byte of its indexes (docs/history.md#jobs_default).
-- REINDEX is MVCC-safe (TRUNCATE is not: a snapshot taken before the move
-- would lose the moved runs).  It takes SHARE on jobs_default and ACCESS
-- EXCLUSIVE on its indexes, which every plan of jobs opens: each wait is cut
-- at 0.5 s and retried, as for a partition; after 20 tries it leaves the
-- indexes as they are and says so.
CREATE FUNCTION @extschema@_internal._jobs_default_reindex()
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    attempt integer := 0;
BEGIN
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout', '500', true);
            REINDEX TABLE @extschema@.jobs_default;
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            attempt := attempt + 1;
            IF attempt >= 20 THEN
                RAISE WARNING 'maintain_partitions: the indexes of fairshare.jobs_default were not rebuilt: other sessions held it (20 tries)'
                    USING HINT = 'Run REINDEX TABLE fairshare.jobs_default when it is quiet: the runs moved out of it still take room in its indexes.';
                EXIT;
            END IF;
            PERFORM pg_sleep(LEAST(attempt, 5) * 0.5);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', '0', true);
END
$$;

CREATE PROCEDURE @extschema@.maintain_partitions(months_ahead integer DEFAULT 3)
LANGUAGE plpgsql
AS $$
DECLARE
    m pg_catalog.date;
    moved pg_catalog.int8;
    moved_total pg_catalog.int8 := 0;
BEGIN
    -- (no SET clause: a procedure with one cannot COMMIT.  Every name here
    -- is qualified, and the functions it calls set their own search_path.)
    PERFORM @extschema@_internal._jobs_owner_check('maintain_partitions');
    PERFORM @extschema@_internal._citus_sequential();
    FOR m IN SELECT x FROM @extschema@_internal._jobs_months_to_make(months_ahead) x LOOP
        moved := @extschema@_internal._jobs_make_partition(m);
        IF moved IS NOT NULL THEN
            RAISE NOTICE 'maintain_partitions: fairshare.jobs_p% made, % run(s) moved from jobs_default',
                         pg_catalog.to_char(m, 'YYYY_MM'), moved;
            moved_total := moved_total OPERATOR(pg_catalog.+) moved;
        END IF;
        COMMIT;
    END LOOP;
    IF moved_total OPERATOR(pg_catalog.>) 0 THEN
        PERFORM @extschema@_internal._jobs_default_reindex();
        COMMIT;
    END IF;
END
$$;
COMMENT ON PROCEDURE @extschema@.maintain_partitions(integer) IS
'Make the monthly partitions of jobs (UTC months, jobs_pYYYY_MM) from the oldest month present to months_ahead months ahead, moving their runs out of jobs_default; one transaction per month. Schedule it daily (pg_cron).';

-- ---------------------------------------------------------------------------
-- Retention
--
-- A monthly partition can go when none of its runs can change a report any
-- more.  Each rule below names the reports it keeps identical:
--   * every run has ended (sprio_at: no pending run; usage: no run still
--     accruing);
--   * no run is of a cluster with the PBS fair share (metacentrum_*,
--     pbsfs_at read every run the cluster ever ran: there is no
--     checkpoint of them);
--   * no run falls inside the period of an allocation of its account,
--     open or closed (genci_report_at and r_wlm_usage_at list every
--     allocation with the core-hours of its period, and the GENCI
--     regulation and the RWTH months and sliding windows lie inside it);
--   * for each cluster with a started run, a valid usage checkpoint as of
--     its last end or later: that checkpoint holds their decayed usage
--     (association_usage_at, sshare_at, sprio_at read only the runs that
--     end after the checkpoint they start from).  Retention pins the oldest
--     such checkpoint (usage_checkpoints.pinned): it is never pruned, and
--     the runs started before it can no longer change (the checkpoint
--     triggers refuse it), so the fewer runs it freezes the better.
-- As of any instant at or after the pinned checkpoint every report is
-- unchanged.  Reports as of an earlier instant (time travel to before it)
-- no longer see the retained runs: the checkpoint is what remains of them.
-- ---------------------------------------------------------------------------

-- Why the runs submitted in [month_start, month_end) can or cannot be
-- retained: NULL reason when they can, with the checkpoints they rely on,
-- one per cluster with a started run (pin_clusters, pin_times).  Reads them
-- through jobs (the bounds prune every other partition), so that a reader
-- can ask too.
CREATE FUNCTION @extschema@_internal._jobs_retention_check(month_start timestamptz, month_end timestamptz,
    OUT reason text, OUT hint text, OUT jobs bigint, OUT pin_clusters text[], OUT pin_times timestamptz[])
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r record;
    cp timestamptz;
    job text;
BEGIN
    pin_clusters := '{}';
    pin_times := '{}';
    jobs := 0;
    -- per cluster: its runs, the first not ended, the last end of a started one
    FOR r IN
        SELECT j.cluster, count(*) AS n,
               min(j.job_id || ' (' || j.state || ')') FILTER (WHERE j.end_time IS NULL) AS open_job,
               max(j.end_time) FILTER (WHERE j.start_time IS NOT NULL) AS last_end,
               -- the end of the last hour its runs (started or planned) touch
               date_trunc('hour', max(j.end_time)) + interval '1 hour' AS rollup_end,
               c.fairshare_algorithm
          FROM @extschema@.jobs j LEFT JOIN @extschema@.clusters c ON c.cluster = j.cluster
         WHERE j.submit_time >= _jobs_retention_check.month_start AND j.submit_time < _jobs_retention_check.month_end
         GROUP BY j.cluster, c.fairshare_algorithm ORDER BY j.cluster
    LOOP
        jobs := jobs + r.n;
        IF reason IS NOT NULL THEN
            CONTINUE;
        ELSIF r.open_job IS NOT NULL THEN
            reason := format('job %s of cluster %s has not ended', r.open_job, r.cluster);
            hint := 'A month can go when every run submitted in it has ended (and its usage is in a checkpoint).';
        ELSIF r.fairshare_algorithm = 'pbs' THEN
            reason := format('cluster %s uses the PBS fair share, whose usage (metacentrum_user_usage_at, pbsfs_at) is computed from every run the cluster ran', r.cluster);
            hint := 'The runs of a PBS cluster are kept: there is no usage checkpoint of the PBS fair share.';
        ELSIF r.last_end IS NOT NULL THEN
            -- the oldest valid checkpoint as of the last end or later: it
            -- freezes the fewest runs
            SELECT k.as_of INTO cp
              FROM @extschema@.usage_checkpoints k
             WHERE k.cluster = r.cluster AND k.invalidated_at IS NULL AND k.as_of >= r.last_end
             ORDER BY k.as_of LIMIT 1;
            IF NOT FOUND THEN
                reason := format('cluster %s has no valid usage checkpoint as of %s (the last end of its runs here) or later',
                                 r.cluster, r.last_end);
                hint := format('Make one first, e.g. CALL fairshare.checkpoint_usage(%L, %L): it will hold the usage of these runs.',
                               r.cluster, r.last_end);
            ELSE
                pin_clusters := pin_clusters || r.cluster;
                pin_times := pin_times || cp;
            END IF;
        END IF;
        IF reason IS NULL AND r.open_job IS NULL THEN
            reason := @extschema@_internal._jobs_rollups_behind(r.cluster, r.rollup_end);
            IF reason IS NOT NULL THEN
                hint := format('Refresh them first: SELECT * FROM fairshare.refresh_rollups(%L). Retention makes the rollups of the hours its runs ran in final (docs/history.md#retention-retain_jobs).',
                               r.cluster);
            END IF;
        END IF;
    END LOOP;
    IF reason IS NOT NULL THEN
        RETURN;
    END IF;
    -- a run within the period (days in the cluster's time zone) of an
    -- allocation of its account: one probe of the partition's index on
    -- (account, cluster, start_time) per allocation
    FOR r IN
        SELECT a.allocation_id, a.policy, a.cluster, a.account, a.period_start, a.period_end,
               a.period_end >= (now() AT TIME ZONE c.timezone)::date AS open,
               a.period_start::timestamp AT TIME ZONE c.timezone AS t0,
               (a.period_end + 1)::timestamp AT TIME ZONE c.timezone AS t1
          FROM @extschema@.allocations a JOIN @extschema@.clusters c ON c.cluster = a.cluster
         WHERE a.policy IN ('genci', 'rwth')
         ORDER BY a.allocation_id
    LOOP
        SELECT j.job_id INTO job
          FROM @extschema@.jobs j
         WHERE j.submit_time >= _jobs_retention_check.month_start AND j.submit_time < _jobs_retention_check.month_end
           AND j.account = r.account AND j.cluster = r.cluster
           AND j.start_time < r.t1 AND j.end_time > r.t0
         LIMIT 1;
        IF FOUND THEN
            reason := format('job %s of account %s on cluster %s ran within the period %s to %s of %s allocation %s, which %s',
                             job, r.account, r.cluster, r.period_start, r.period_end, r.policy, r.allocation_id,
                             CASE WHEN r.open THEN 'is still open'
                                  ELSE 'is over but still reported with the core-hours of its period (genci_report_at, r_wlm_usage_at)' END);
            hint := 'The runs within an allocation''s period are kept as long as the allocation is: its consumption is computed from them.';
            RETURN;
        END IF;
    END LOOP;
END
$$;

-- Why the rollups of a cluster do not hold every hour before rollup_end
-- yet (NULL when they do): retention makes those hours final
-- (rollup_state.retained_to), so they must be computed, from the runs it
-- is about to detach, first.
CREATE FUNCTION @extschema@_internal._jobs_rollups_behind(cluster text, rollup_end timestamptz)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    st record;
    stale tstzrange;
BEGIN
    SELECT s.rolled_to INTO st FROM @extschema@.rollup_state s WHERE s.cluster = _jobs_rollups_behind.cluster;
    IF NOT FOUND THEN
        RETURN format('the rollups of cluster %s have never been refreshed: they do not hold these runs', cluster);
    ELSIF st.rolled_to < rollup_end THEN
        RETURN format('the rollups of cluster %s are refreshed up to %s, not up to %s (the last hour of these runs)',
                      cluster, st.rolled_to, rollup_end);
    END IF;
    SELECT d.hours INTO stale FROM @extschema@.rollup_dirty d
     WHERE (d.cluster = _jobs_rollups_behind.cluster OR d.cluster IS NULL) AND d.hours && tstzrange(NULL, rollup_end)
     ORDER BY lower(d.hours) NULLS FIRST LIMIT 1;
    IF FOUND THEN
        RETURN format('the rollups of cluster %s have hours %s marked stale, not recomputed yet', cluster, stale);
    END IF;
    RETURN NULL;
END
$$;

-- Every monthly partition holding only months before the day `before`
-- (UTC), whether retain_jobs(before) may detach it, and why not.
CREATE FUNCTION @extschema@.job_retention(before date)
RETURNS TABLE (relation regclass, month_start timestamptz, month_end timestamptz, jobs bigint,
               retainable boolean, reason text, hint text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF before IS NULL OR NOT isfinite(before) THEN
        RAISE EXCEPTION 'job_retention: before must be a finite date, not %', COALESCE(before::text, 'NULL')
            USING ERRCODE = '22023', HINT = 'Pass the first day to keep: the monthly partitions that end by then are examined.';
    END IF;
    RETURN QUERY
    SELECT p.relation, p.month_start, p.month_end, k.jobs, k.reason IS NULL, k.reason, k.hint
      FROM @extschema@.job_partitions() p
     CROSS JOIN LATERAL @extschema@_internal._jobs_retention_check(p.month_start, p.month_end) k
     WHERE p.month_end <= before::timestamp AT TIME ZONE 'UTC'
     ORDER BY p.month_start;
END
$$;
COMMENT ON FUNCTION @extschema@.job_retention(date) IS
'The monthly partitions of jobs that end by before (UTC), their runs, and whether retain_jobs may detach them (reason and hint when not).';

-- Detaches every monthly partition of jobs that ends by the day `before`
-- (UTC), when each can go (job_retention says why not); with archive_dir,
-- writes each first to archive_dir/jobs_pYYYY_MM.csv (COPY, CSV with a
-- header: the server writes it, so archive_dir is a directory of the
-- database server, and the caller must be a superuser or hold
-- pg_write_server_files) and drops it; without, leaves it as a table of
-- its own (fairshare.jobs_pYYYY_MM, without its foreign keys, so that the
-- users and partitions it names can still be deleted) for the DBA to
-- archive and drop.  Refuses (55000), before it changes anything, when a
-- partition cannot go.  Each partition is its own transaction: a kill -9
-- leaves it attached (its archive file, if written, is written again by
-- the next run).
--
-- Locks, per partition, in the order checkpoint_usage takes its own (see
-- _jobs_make_partition): while it checks again, pins the checkpoints and
-- archives, SHARE on what a checkpoint or a report depends on (clusters,
-- qos, allocations), SHARE ROW EXCLUSIVE on the tables the partition's
-- foreign keys refer to (partitions, account_users: DETACH drops them),
-- SHARE UPDATE EXCLUSIVE on jobs (imports and checkpoints wait, readers do
-- not) and SHARE on the partition; then ACCESS EXCLUSIVE on jobs and
-- jobs_default for the detach alone (milliseconds; readers wait).  Each
-- wait is cut at 0.5 s and retried, as in maintain_partitions.
CREATE PROCEDURE @extschema@.retain_jobs(before date, archive_dir text DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
    p record;
    bad record;
BEGIN
    -- (no SET clause: a procedure with one cannot COMMIT.  Every name here
    -- is qualified, and the functions it calls set their own search_path.)
    PERFORM @extschema@_internal._jobs_owner_check('retain_jobs');
    -- on a Citus cluster, one connection per node: each partition's
    -- transaction writes usage_checkpoints and rollup_state, reference
    -- tables, after reading the distributed jobs (_citus_sequential)
    PERFORM @extschema@_internal._citus_sequential();
    IF archive_dir IS NOT NULL THEN
        PERFORM @extschema@_internal._jobs_archive_check(archive_dir);
    END IF;
    SELECT r.relation, r.reason, r.hint INTO bad
      FROM @extschema@.job_retention(before) r WHERE NOT r.retainable ORDER BY r.month_start LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'retain_jobs: partition % cannot go: %', bad.relation, bad.reason
            USING ERRCODE = '55000', HINT = bad.hint;
    END IF;
    FOR p IN SELECT r.relation FROM @extschema@.job_retention(before) r ORDER BY r.month_start LOOP
        PERFORM @extschema@_internal._jobs_retain_partition(p.relation, archive_dir);
        COMMIT;
    END LOOP;
END
$$;
COMMENT ON PROCEDURE @extschema@.retain_jobs(date, text) IS
'Detach the monthly partitions of jobs that end by before (UTC) when no report needs their runs any more (job_retention), pinning the usage checkpoints that hold their usage; with archive_dir, COPY each to archive_dir/jobs_pYYYY_MM.csv on the server and drop it. Refuses (55000) with the reason otherwise.';

-- archive_dir: an absolute directory of the server the caller may write.
CREATE FUNCTION @extschema@_internal._jobs_archive_check(archive_dir text)
RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF archive_dir !~ '^/' OR archive_dir ~ '[\n\r]' THEN
        RAISE EXCEPTION 'retain_jobs: archive_dir must be an absolute path of the database server, not %', archive_dir
            USING ERRCODE = '22023', HINT = 'The server writes the archive (COPY ... TO): give a directory of its machine, e.g. /var/lib/postgresql/archive.';
    END IF;
    IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user)
       AND NOT pg_has_role(current_user, 'pg_write_server_files', 'MEMBER') THEN
        RAISE EXCEPTION 'retain_jobs: role "%" may not write files on the server (archive_dir %)', current_user, archive_dir
            USING ERRCODE = '42501', HINT = 'Archiving uses COPY ... TO a server file: run it as a superuser, or GRANT pg_write_server_files to the role.';
    END IF;
    IF NOT COALESCE((pg_stat_file(archive_dir, true)).isdir, false) THEN
        RAISE EXCEPTION 'retain_jobs: archive_dir % is not a directory of the server', archive_dir
            USING ERRCODE = '58P01', HINT = 'Create it first, writable by the server''s operating-system user.';
    END IF;
END
$$;

-- One partition, in the caller's transaction (see retain_jobs).
CREATE FUNCTION @extschema@_internal._jobs_retain_partition(part regclass, archive_dir text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bounds record;
    chk record;
    fk record;
    attempt integer := 0;
    autovacuum boolean := false;
    file text;
    rel text;
BEGIN
    -- (each partition is a transaction of its own: see retain_jobs)
    PERFORM @extschema@_internal._citus_sequential();
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout',
                              CASE WHEN autovacuum
                                   THEN (extract(epoch FROM current_setting('deadlock_timeout')::interval) * 1000 + 500)::bigint::text
                                   ELSE '500' END, true);
            LOCK TABLE @extschema@.clusters IN SHARE MODE;
            LOCK TABLE @extschema@.partitions, @extschema@.account_users IN SHARE ROW EXCLUSIVE MODE;
            LOCK TABLE @extschema@.qos, @extschema@.allocations IN SHARE MODE;
            LOCK TABLE ONLY @extschema@.jobs IN SHARE UPDATE EXCLUSIVE MODE;
            EXECUTE format('LOCK TABLE ONLY %s IN SHARE MODE', part);
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            attempt := attempt + 1;
            -- an autovacuum worker of this database may be what holds it (a
            -- partition just loaded): PostgreSQL cancels such a worker only
            -- for a lock waited on longer than deadlock_timeout, so the next
            -- try waits that long (a 10^7-job jobs_default failed 20 tries).
            -- Waiting that long, a checkpoint that read jobs_default and
            -- waits for partitions is a deadlock PostgreSQL reports here:
            -- the locks are let go and taken again, as after a time-out
            autovacuum := EXISTS (SELECT FROM pg_stat_activity a
                                   WHERE a.backend_type = 'autovacuum worker'
                                     AND a.datname = current_database());
            IF attempt >= 20 THEN
                RAISE EXCEPTION 'retain_jobs: jobs stayed locked by other sessions (20 tries over about 1 minute) while retaining %', part
                    USING ERRCODE = '55P03', HINT = 'A long import, checkpoint or report holds fairshare.jobs; run it again.';
            END IF;
            PERFORM pg_sleep(LEAST(attempt, 5) * 0.5);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', '0', true);

    -- again, now that nothing can change it
    SELECT p.month_start, p.month_end INTO bounds FROM @extschema@.job_partitions() p WHERE p.relation = part;
    chk := @extschema@_internal._jobs_retention_check(bounds.month_start, bounds.month_end);
    IF chk.reason IS NOT NULL THEN
        RAISE EXCEPTION 'retain_jobs: partition % cannot go: %', part, chk.reason
            USING ERRCODE = '55000', HINT = chk.hint;
    END IF;
    -- (and the base of a sparse one, whose rows it reads:
    -- docs/design.md#sparse-checkpoints)
    UPDATE @extschema@.usage_checkpoints k SET pinned = true
      FROM (SELECT y.cluster, y.as_of FROM unnest(chk.pin_clusters, chk.pin_times) AS y (cluster, as_of)
            UNION
            SELECT b.cluster, b.base
              FROM unnest(chk.pin_clusters, chk.pin_times) AS y (cluster, as_of)
              JOIN @extschema@.usage_checkpoints b ON b.cluster = y.cluster AND b.as_of = y.as_of
             WHERE b.base IS NOT NULL) AS x
     WHERE k.cluster = x.cluster AND k.as_of = x.as_of AND NOT k.pinned;
    -- the rollups of the hours these runs ran in are final from now on
    -- (the check above: they hold them): refresh_rollups never recomputes
    -- them from a jobs without these runs
    UPDATE @extschema@.rollup_state s SET retained_to = GREATEST(s.retained_to, x.rollup_end)
      FROM (SELECT j.cluster, date_trunc('hour', max(j.end_time)) + interval '1 hour' AS rollup_end
              FROM @extschema@.jobs j
             WHERE j.submit_time >= bounds.month_start AND j.submit_time < bounds.month_end
             GROUP BY j.cluster) x
     WHERE s.cluster = x.cluster;

    SELECT c.relname INTO rel FROM pg_class c WHERE c.oid = part;
    IF archive_dir IS NOT NULL THEN
        file := rtrim(archive_dir, '/') || '/' || rel || '.csv';
        EXECUTE format('COPY %s TO %L WITH (FORMAT csv, HEADER true)', part, file);
    END IF;

    LOOP
        BEGIN
            PERFORM set_config('lock_timeout',
                              CASE WHEN autovacuum
                                   THEN (extract(epoch FROM current_setting('deadlock_timeout')::interval) * 1000 + 500)::bigint::text
                                   ELSE '500' END, true);
            LOCK TABLE ONLY @extschema@.jobs IN ACCESS EXCLUSIVE MODE;
            LOCK TABLE ONLY @extschema@.jobs_default IN ACCESS EXCLUSIVE MODE;
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            attempt := attempt + 1;
            -- an autovacuum worker of this database may be what holds it (a
            -- partition just loaded): PostgreSQL cancels such a worker only
            -- for a lock waited on longer than deadlock_timeout, so the next
            -- try waits that long (a 10^7-job jobs_default failed 20 tries).
            -- Waiting that long, a checkpoint that read jobs_default and
            -- waits for partitions is a deadlock PostgreSQL reports here:
            -- the locks are let go and taken again, as after a time-out
            autovacuum := EXISTS (SELECT FROM pg_stat_activity a
                                   WHERE a.backend_type = 'autovacuum worker'
                                     AND a.datname = current_database());
            IF attempt >= 40 THEN
                RAISE EXCEPTION 'retain_jobs: jobs stayed in use by other sessions while detaching %', part
                    USING ERRCODE = '55P03', HINT = 'A long report reads fairshare.jobs; run it again.';
            END IF;
            PERFORM pg_sleep(LEAST(attempt, 5) * 0.2);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', '0', true);
    EXECUTE format('ALTER TABLE @extschema@.jobs DETACH PARTITION %s', part);
    IF archive_dir IS NOT NULL THEN
        EXECUTE format('DROP TABLE %s', part);
    ELSE
        -- On a Citus cluster the detached partition stays a distributed
        -- table and keeps its foreign keys: Citus names a partition shard's
        -- keys after its parent's shard, and cannot find them to drop
        -- (docs/citus.md#usage-checkpoints-and-retention-on-citus)
        IF @extschema@_internal._citus_table_kind('@extschema@.jobs'::regclass) IS NULL THEN
            FOR fk IN SELECT c.conname FROM pg_constraint c WHERE c.conrelid = part AND c.contype = 'f' LOOP
                EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', part, fk.conname);
            END LOOP;
        END IF;
        EXECUTE format('COMMENT ON TABLE %s IS %L', part,
                       format('Runs retained by retain_jobs on %s (detached from fairshare.jobs; their usage is in the pinned usage checkpoints): archive and drop.',
                              now()::date));
    END IF;
END
$$;
