-- ---------------------------------------------------------------------------
-- reports: the everyday reports of a centre, read from rollups
-- (docs/reports.md).
--
-- Like slurmdbd, usage is rolled up by the hour, then by the day and the
-- month, and every report reads the rollups, never the jobs:
--
--   usage_hourly, usage_daily, usage_monthly   per cluster, account, user,
--       partition, QOS and job size (allocated CPUs): TRES-seconds of cpu,
--       mem, node, billing and gres/gpu, the energy, the runs started and
--       their wait (start - eligible)
--   cluster_usage_hourly, _daily, _monthly     per cluster and TRES: what
--       the cluster reported, and the seconds allocated, down, planned down
--       (maintenance reservations), planned (eligible jobs waiting) and idle
--
-- Kept up to date incrementally.  Statement triggers on jobs record the
-- hours a write touched (rollup_dirty: one range per cluster and
-- statement; on a Citus cluster fairshare's writers do it themselves,
-- docs/citus.md#the-usage-rollups-on-citus); refresh_rollups(), the one maintenance call (pg_cron can run
-- it every few minutes), recomputes those hours and the hours completed
-- since its last call from the jobs, then the days and months that hold
-- them.  A late job, an update, a deletion: each corrects its hours at the
-- next refresh.
--
-- Concurrency.  An import only appends ranges to rollup_dirty, so it never
-- waits for a refresh.  A refresh takes the ranges it can see (DELETE ...
-- RETURNING) and then reads the jobs in a later snapshot: every job whose
-- range it took is in that snapshot; a range written by a transaction that
-- commits later stays for the next refresh.  Two refreshes are serialized
-- by an advisory lock (specs/rollups.spec).
--
-- Seconds, not minutes: a TRES-second is exact in bigint; sreport divides
-- at print time and so do the report functions.  Suspended time is left out
-- of the TRES-seconds, as sreport does, and kept apart (suspended_secs):
-- fairshare usage charges it (docs/runs.md).  A run's suspended total is
-- spread over its hours in proportion to their length (sacct gives only the
-- total).
-- ---------------------------------------------------------------------------

-- The rollups of jobs: one row per period, cluster, association,
-- partition, QOS ('' for none) and job size (allocated CPUs).
CREATE TABLE @extschema@.usage_hourly (
    cluster              text NOT NULL,
    period_start         timestamptz NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL,
    partition            text NOT NULL,
    qos                  text NOT NULL,
    cpus                 integer NOT NULL,
    -- seconds of the period the runs ran (suspended time left out), and
    -- the TRES-seconds: each run's seconds times its allocated count
    run_secs             bigint NOT NULL,
    cpu_secs             bigint NOT NULL,
    mem_secs             bigint NOT NULL,       -- MiB-seconds
    node_secs            bigint NOT NULL,
    billing_secs         bigint NOT NULL,
    gpu_secs             bigint NOT NULL,
    energy               bigint NOT NULL,       -- joules (energy TRES), by the run's share in the period
    -- the seconds of the period the runs spent suspended, and times their CPUs
    suspended_secs       bigint NOT NULL,
    suspended_cpu_secs   bigint NOT NULL,
    -- runs started in the period, and their waits (start - eligible)
    jobs                 bigint NOT NULL,
    wait_secs            bigint NOT NULL,
    -- runs already running when the period began: with the runs started
    -- in a report's window, the runs that ran in it, which sreport's job
    -- reports count (docs/reports.md#rollups, "Job size")
    jobs_at_start        bigint NOT NULL,
    PRIMARY KEY (cluster, period_start, account, user_name, partition, qos, cpus)
);
COMMENT ON TABLE @extschema@.usage_hourly IS
'Usage by hour (UTC hours), cluster, account, user, partition, QOS and job size: TRES-seconds without suspended time, suspended seconds, runs started and their wait, runs already running at the start. Kept by refresh_rollups().';
CREATE TABLE @extschema@.usage_daily (LIKE @extschema@.usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.usage_daily IS
'usage_hourly summed by day of the cluster''s time zone (period_start: the local midnight). Kept by refresh_rollups().';
CREATE TABLE @extschema@.usage_monthly (LIKE @extschema@.usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.usage_monthly IS
'usage_hourly summed by month of the cluster''s time zone (period_start: the first local midnight). Kept by refresh_rollups().';
-- a user's or an account's periods (the reports filter by period first)
CREATE INDEX ON @extschema@.usage_monthly (period_start, cluster);
CREATE INDEX ON @extschema@.usage_daily (period_start, cluster);

-- usage_monthly summed by account: what account_usage_monthly reads.  A
-- month of usage_monthly has a row per association, partition, QOS and
-- job size (30,000 a month at 10^6 jobs over two years); summing a year
-- of them took most of a second on a loaded machine, where a year of this
-- table is 12 rows per account, read in the report's order from its key.
CREATE TABLE @extschema@.usage_monthly_by_account (
    cluster              text NOT NULL,
    period_start         timestamptz NOT NULL,
    account              text NOT NULL,
    run_secs             bigint NOT NULL,
    cpu_secs             bigint NOT NULL,
    gpu_secs             bigint NOT NULL,
    billing_secs         bigint NOT NULL,
    jobs                 bigint NOT NULL,
    wait_secs            bigint NOT NULL,
    PRIMARY KEY (cluster, period_start, account)
);
COMMENT ON TABLE @extschema@.usage_monthly_by_account IS
'usage_monthly summed by cluster, month and account (the reservations'' rows included): run, CPU, GPU and billing seconds, runs started and their wait. Kept by refresh_rollups().';

-- The core-hours of the GENCI and RWTH reports (billing.sql core_hours:
-- cores x elapsed time, suspended time included; exclusive runs and runs
-- in whole-node partitions pay every core of their nodes; a GPU-hour is
-- gpu_hour_factor core-hours when that is more) per cluster, account and
-- hour, day or month, in core-microseconds: an exact integer, so that a
-- report adds the rollups' sums and the runs' pieces and gets the same
-- figure whichever part came from where (docs/regulation.md#consumption-from-the-rollups).
-- usage_hourly's cpu_secs leaves suspended time out and knows neither the
-- whole nodes nor the GPU factor, and its per-hour seconds are rounded:
-- these reports cannot read it.  The settings the figure depends on
-- (partitions.whole_node, cores_per_node, clusters.gpu_hour_factor) mark
-- the cluster's hours stale when they change (_core_settings_changed).
CREATE TABLE @extschema@.core_usage_hourly (
    cluster              text NOT NULL,
    account              text NOT NULL,
    period_start         timestamptz NOT NULL,
    core_us              numeric NOT NULL,
    -- an account's periods, read in a report's order
    PRIMARY KEY (cluster, account, period_start)
);
COMMENT ON TABLE @extschema@.core_usage_hourly IS
'Core-microseconds (core_hours: suspended time included, whole nodes, GPU factor) by hour (UTC), cluster and account, for the GENCI and RWTH reports. Kept by refresh_rollups().';
CREATE TABLE @extschema@.core_usage_daily (LIKE @extschema@.core_usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.core_usage_daily IS
'core_usage_hourly summed by day of the cluster''s time zone. Kept by refresh_rollups().';
CREATE TABLE @extschema@.core_usage_monthly (LIKE @extschema@.core_usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.core_usage_monthly IS
'core_usage_hourly summed by month of the cluster''s time zone. Kept by refresh_rollups().';

-- From which hour each cluster's core rollups hold every rolled hour
-- (-infinity: since its rollups began).  A cluster without a row has none:
-- its rollups were kept by a version without them, and the reports read
-- its runs until refresh_rollups() has computed them, which it does at its
-- first call (the hours retain_jobs made final before have none: their
-- runs are gone).  The update adds no row, so it changes no data.
CREATE TABLE @extschema@.core_rollup_state (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    core_from            timestamptz NOT NULL
);
COMMENT ON TABLE @extschema@.core_rollup_state IS
'Per cluster, the hour from which core_usage_hourly/daily/monthly hold every rolled hour (-infinity: all); no row: none yet. Kept by refresh_rollups().';

-- The cluster's side: what it had and what became of it, per TRES.
CREATE TABLE @extschema@.cluster_usage_hourly (
    cluster              text NOT NULL,
    period_start         timestamptz NOT NULL,
    tres                 text NOT NULL,
    reported_secs        bigint NOT NULL,   -- count the cluster registered, times seconds
    alloc_secs           bigint NOT NULL,
    down_secs            bigint NOT NULL,   -- nodes down or drained (node events)
    pdown_secs           bigint NOT NULL,   -- maintenance reservations
    planned_secs         bigint NOT NULL,   -- eligible jobs not yet started
    idle_secs            bigint NOT NULL,   -- reported - the four above, at least 0
    over_secs            bigint NOT NULL,   -- the four above beyond reported
    PRIMARY KEY (cluster, period_start, tres)
);
COMMENT ON TABLE @extschema@.cluster_usage_hourly IS
'Cluster utilisation by hour and TRES, as sreport cluster Utilization reads it: reported, allocated, down, planned down, planned, idle, over (TRES-seconds). Kept by refresh_rollups().';
CREATE TABLE @extschema@.cluster_usage_daily (LIKE @extschema@.cluster_usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.cluster_usage_daily IS 'cluster_usage_hourly summed by day of the cluster''s time zone.';
CREATE TABLE @extschema@.cluster_usage_monthly (LIKE @extschema@.cluster_usage_hourly INCLUDING ALL);
COMMENT ON TABLE @extschema@.cluster_usage_monthly IS 'cluster_usage_hourly summed by month of the cluster''s time zone.';

-- Node and cluster events, as sacctmgr show event -P prints them
-- (import_events): node_name '' is the cluster's own event, whose TRES is
-- what the cluster registered; a node's event is a time it was down or
-- drained, with that node's TRES.  time_end NULL: still going on.
CREATE TABLE @extschema@.node_events (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    node_name            text NOT NULL,
    time_start           timestamptz NOT NULL CHECK (pg_catalog.isfinite(time_start)),
    time_end             timestamptz CHECK (pg_catalog.isfinite(time_end)),
    state                text,
    state_raw            bigint,
    tres                 text NOT NULL,
    reason               text,
    user_ref             text,
    PRIMARY KEY (cluster, node_name, time_start),
    CHECK (time_end IS NULL OR time_end OPERATOR(pg_catalog.>=) time_start)
);
COMMENT ON TABLE @extschema@.node_events IS
'Cluster (node_name '''') and node events from sacctmgr show event: the TRES the cluster registered, and the times nodes were down. Read by refresh_rollups().';

-- Reservations, as sacctmgr show reservation -P prints them
-- (import_reservations).
CREATE TABLE @extschema@.reservations (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    resv_id              bigint NOT NULL,
    name                 text NOT NULL,
    time_start           timestamptz NOT NULL CHECK (pg_catalog.isfinite(time_start)),
    time_end             timestamptz NOT NULL CHECK (pg_catalog.isfinite(time_end)),
    flags                text NOT NULL DEFAULT '',
    tres                 text NOT NULL,
    nodes                text,
    -- the associations it was for (sacctmgr's Assocs, as account and user;
    -- user '' for an account's own association): its time is charged to
    -- them, split evenly
    accounts             text[] NOT NULL DEFAULT '{}',
    users                text[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (cluster, resv_id, time_start),
    CHECK (pg_catalog.cardinality(accounts) OPERATOR(pg_catalog.=) pg_catalog.cardinality(users)),
    CHECK (time_end OPERATOR(pg_catalog.>=) time_start)
);
COMMENT ON TABLE @extschema@.reservations IS
'Reservations from sacctmgr show reservation: maintenance ones (flag MAINT) count as planned down in the cluster rollups.';

-- What refresh_rollups still has to recompute: hour ranges per cluster
-- (NULL cluster: every cluster), appended by the triggers on jobs and by
-- the event imports.  No key: an import never waits on a refresh.
CREATE TABLE @extschema@.rollup_dirty (
    cluster              text REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    hours                tstzrange NOT NULL,
    marked_at            timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE @extschema@.rollup_dirty IS
'Ranges of hours whose rollups a write made stale (cluster NULL: every cluster); refresh_rollups() recomputes and removes them.';

-- How far each cluster is rolled up: every hour before rolled_to is in the
-- rollups (apart from rollup_dirty's).
CREATE TABLE @extschema@.rollup_state (
    cluster              text PRIMARY KEY REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    rolled_from          timestamptz NOT NULL,
    rolled_to            timestamptz NOT NULL,
    refreshed_at         timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- the hours before it are final: retain_jobs detached runs that ran
    -- in them, so recomputing them from jobs would lose those runs
    -- (docs/history.md#retention-retain_jobs); NULL: none
    retained_to          timestamptz,
    CHECK (rolled_to OPERATOR(pg_catalog.>=) rolled_from)
);
COMMENT ON TABLE @extschema@.rollup_state IS
'Per cluster, the hours the rollups cover [rolled_from, rolled_to), when refresh_rollups() last ran, and retained_to: the hours before it are final (retain_jobs detached their runs) and never recomputed.';

-- A mark of hours a retention made final (rollup_state.retained_to) keeps
-- only its hours from retained_to on: the rollups of the retained months
-- are what remains of their runs, and recomputing them from jobs would
-- give 0 allocated (docs/history.md#retention-retain_jobs).  Whatever made
-- the mark (a run, an event or a reservation imported, invalidate_rollups)
-- is still stored; the importer is told which hours it does not change.
CREATE FUNCTION @extschema@_internal._rollup_dirty_final() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    final timestamptz;
BEGIN
    SELECT s.retained_to INTO final FROM @extschema@.rollup_state s WHERE s.cluster = NEW.cluster;
    IF final IS NULL OR NOT (NEW.hours && tstzrange(NULL, final)) THEN
        RETURN NEW;
    END IF;
    RAISE NOTICE 'rollups of cluster % before % are final (retain_jobs): hours % of this write are not recomputed',
                 NEW.cluster, final, NEW.hours * tstzrange(NULL, final)
        USING HINT = 'The runs of those hours were retained; their rollups stay as they were (docs/history.md).';
    IF NEW.hours <@ tstzrange(NULL, final) THEN
        RETURN NULL;
    END IF;
    NEW.hours := NEW.hours - tstzrange(NULL, final);
    RETURN NEW;
END
$$;
CREATE TRIGGER final_hours BEFORE INSERT ON @extschema@.rollup_dirty
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._rollup_dirty_final();

SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_hourly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_daily', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_monthly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_monthly_by_account', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_rollup_state', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_usage_hourly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_usage_daily', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.core_usage_monthly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_usage_hourly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_usage_daily', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.cluster_usage_monthly', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.node_events', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.reservations', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.rollup_dirty', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.rollup_state', '');

-- The hours a run's rollups depend on: the first hour of its start to the
-- end of its last (running: no end).  A pending run counts from its
-- eligible time (it is planned time).  The one place this is computed:
-- the triggers on jobs (one server) and the writers themselves (Citus)
-- mark these hours (docs/citus.md#the-usage-rollups-on-citus).
CREATE FUNCTION @extschema@_internal._rollup_run_hours(eligible_time timestamptz, start_time timestamptz,
                                                      submit_time timestamptz, end_time timestamptz)
RETURNS tstzrange LANGUAGE sql STABLE PARALLEL SAFE
-- (a standard SQL body, parsed when created, and no SET: inlined into the
-- triggers' and the writers' queries, not called once per run)
RETURN pg_catalog.tstzrange(pg_catalog.date_trunc('hour', COALESCE(eligible_time, start_time, submit_time)),
                            COALESCE(pg_catalog.date_trunc('hour', end_time) OPERATOR(pg_catalog.+) interval '1 hour',
                                     'infinity'::timestamptz));
COMMENT ON FUNCTION @extschema@_internal._rollup_run_hours(timestamptz, timestamptz, timestamptz, timestamptz) IS
'The hours a run''s rollups depend on: [the hour of its eligible (else start, else submit) time, the end of the hour of its end), unbounded while it has no end.';

-- Marks hours of a cluster stale: each range of the multirange (the
-- range_agg of _rollup_run_hours over a write's runs) becomes a row of
-- rollup_dirty.  A cluster that no longer exists marks nothing: a renamed
-- cluster's old name, whose rows cascade to the new name and are marked
-- under it.
CREATE FUNCTION @extschema@_internal._rollups_mark(cluster text, hours tstzmultirange)
RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT _rollups_mark.cluster, r
      FROM unnest(_rollups_mark.hours) r
     WHERE EXISTS (SELECT FROM @extschema@.clusters k WHERE k.cluster = _rollups_mark.cluster);
END
$$;
COMMENT ON FUNCTION @extschema@_internal._rollups_mark(text, tstzmultirange) IS
'Appends each range of hours to rollup_dirty for the cluster (nothing when the cluster does not exist).';

-- Whether fairshare's own writers mark the hours of the runs they write:
-- on a Citus cluster, whose shards fire no trigger of jobs
-- (docs/citus.md#the-usage-rollups-on-citus); on one server the triggers
-- below do, and the writers leave it to them.
CREATE FUNCTION @extschema@_internal._rollups_by_writer()
RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN @extschema@_internal._citus_table_kind('@extschema@.jobs'::regclass) IS NOT NULL;
COMMENT ON FUNCTION @extschema@_internal._rollups_by_writer() IS
'true when jobs is a Citus table: fairshare''s writers then mark the hours of the runs they write in rollup_dirty themselves, no trigger doing it.';

-- The hours a statement's runs cover (_rollup_run_hours), merged per
-- cluster, old rows and new.
CREATE FUNCTION @extschema@_internal._jobs_mark_rollups() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO @extschema@.rollup_dirty (cluster, hours) VALUES (NULL, '(,)');
        RETURN NULL;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM @extschema@_internal._rollups_mark(n.cluster,
                    range_agg(@extschema@_internal._rollup_run_hours(n.eligible_time, n.start_time, n.submit_time, n.end_time)))
           FROM new_jobs n GROUP BY n.cluster;
    END IF;
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM @extschema@_internal._rollups_mark(o.cluster,
                    range_agg(@extschema@_internal._rollup_run_hours(o.eligible_time, o.start_time, o.submit_time, o.end_time)))
           FROM old_jobs o GROUP BY o.cluster;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER mark_rollups_insert AFTER INSERT ON @extschema@.jobs
    REFERENCING NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_mark_rollups();
CREATE TRIGGER mark_rollups_update AFTER UPDATE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_mark_rollups();
CREATE TRIGGER mark_rollups_delete AFTER DELETE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_mark_rollups();
CREATE TRIGGER mark_rollups_truncate AFTER TRUNCATE ON @extschema@.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_mark_rollups();

-- Marks hours stale by hand (after editing node_events or reservations,
-- or jobs in a way no trigger sees, such as attaching a partition).
CREATE FUNCTION @extschema@.invalidate_rollups(cluster text, time_from timestamptz, time_to timestamptz)
RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@_internal._report_check_range(time_from, time_to);
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    VALUES (invalidate_rollups.cluster,
            tstzrange(date_trunc('hour', time_from),
                      CASE WHEN date_trunc('hour', time_to) = time_to THEN time_to
                           ELSE date_trunc('hour', time_to) + interval '1 hour' END));
END
$$;
COMMENT ON FUNCTION @extschema@.invalidate_rollups(text, timestamptz, timestamptz) IS
'Marks the hours of [time_from, time_to) of a cluster (NULL: every cluster) stale: the next refresh_rollups() recomputes them.';

-- A time range of a report: finite, in order.
CREATE FUNCTION @extschema@_internal._report_check_range(time_from timestamptz, time_to timestamptz)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF time_from IS NULL OR time_to IS NULL OR NOT isfinite(time_from) OR NOT isfinite(time_to) THEN
        RAISE EXCEPTION 'report range must have a finite start and end, not [%, %)',
                        COALESCE(time_from::text, 'NULL'), COALESCE(time_to::text, 'NULL')
            USING ERRCODE = '22023',
                  HINT = 'Give both ends, e.g. ''2026-01-01'' and ''2026-02-01''.';
    END IF;
    IF time_to <= time_from THEN
        RAISE EXCEPTION 'report range is reversed or empty: start % is not before end %', time_from, time_to
            USING ERRCODE = '22023',
                  HINT = 'The start comes first, as sreport''s start= and end=; swap them.';
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._report_check_range(timestamptz, timestamptz) IS
'true for a finite report range in order; raises 22023 naming the values otherwise.';

-- The TRES the reports know, in sreport's order (slurmdbd's TRES ids:
-- cpu 1 to pages 8, which slurmdbd always has, then gres/gpu).  fs/disk,
-- vmem and pages are usage TRES no allocation holds: the cluster registers
-- them with a count of 0 and sreport prints their zeros; they are here so
-- that -T ALL prints what sreport prints (docs/reports.md#the-sreport-reports).
CREATE FUNCTION @extschema@.report_tres()
RETURNS TABLE (tres text, tres_order integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT t.tres, t.ord::integer
      FROM unnest(ARRAY['cpu', 'mem', 'energy', 'node', 'billing', 'fs/disk', 'vmem', 'pages', 'gres/gpu'])
           WITH ORDINALITY AS t (tres, ord);
END;
COMMENT ON FUNCTION @extschema@.report_tres() IS
'The TRES the reports know (cpu, mem, energy, node, billing, fs/disk, vmem, pages, gres/gpu) in the order sreport lists them; fs/disk, vmem and pages are always 0.';

-- sreport's -T: a comma list of TRES (any case; ALL: every one).
CREATE FUNCTION @extschema@_internal._report_tres_list(tres_list text)
RETURNS TABLE (tres text, tres_order integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item text;
    known text[] := ARRAY(SELECT r.tres FROM @extschema@.report_tres() r ORDER BY r.tres_order);
    picked text[] := '{}';
BEGIN
    IF _report_tres_list.tres_list IS NULL OR btrim(_report_tres_list.tres_list) = '' THEN
        picked := ARRAY['cpu'];
    ELSIF lower(btrim(_report_tres_list.tres_list)) = 'all' THEN
        picked := known;
    ELSE
        FOREACH item IN ARRAY string_to_array(lower(_report_tres_list.tres_list), ',') LOOP
            item := btrim(item);
            IF item = 'gpu' THEN item := 'gres/gpu'; END IF;
            IF NOT item = ANY (known) THEN
                RAISE EXCEPTION 'TRES "%" is not one the reports count', item
                    USING ERRCODE = '22023',
                          HINT = 'Use cpu, mem, energy, node, billing, fs/disk, vmem, pages or gres/gpu (a comma list, or ALL), as sreport -T.';
            END IF;
            IF NOT item = ANY (picked) THEN picked := picked || item; END IF;
        END LOOP;
    END IF;
    RETURN QUERY SELECT k.tres, k.ord::integer FROM unnest(known) WITH ORDINALITY AS k (tres, ord)
                  WHERE k.tres = ANY (picked) ORDER BY k.ord;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._report_tres_list(text) IS
'The TRES of a sreport -T list, in sreport''s order; raises 22023 naming a TRES the rollups do not count.';

-- The TRES a report prints for a -T list.  sreport's ALL is every TRES of
-- slurmdbd's TRES table, which holds gres/gpu only when the cluster
-- accounts for it (AccountingStorageTRES): so ALL takes gres/gpu when the
-- cluster (NULL: any) registered it in its events or charged GPU time.
-- Without GPUs, sreport -T ALL prints no gres/gpu line, and neither does this.
CREATE FUNCTION @extschema@_internal._report_tres(tres_list text, cluster text)
RETURNS TABLE (tres text, tres_order integer)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT t.tres, t.tres_order
      FROM @extschema@_internal._report_tres_list(tres_list) t
     WHERE t.tres OPERATOR(pg_catalog.<>) 'gres/gpu'
        OR pg_catalog.lower(pg_catalog.btrim(COALESCE(tres_list, ''))) OPERATOR(pg_catalog.<>) 'all'
        OR EXISTS (SELECT FROM @extschema@.node_events e
                    WHERE (_report_tres.cluster IS NULL OR e.cluster OPERATOR(pg_catalog.=) _report_tres.cluster)
                      AND e.node_name OPERATOR(pg_catalog.=) ''
                      AND pg_catalog.strpos(',' OPERATOR(pg_catalog.||) e.tres, ',gres/gpu') OPERATOR(pg_catalog.>) 0)
        OR EXISTS (SELECT FROM @extschema@.usage_monthly_by_account u
                    WHERE (_report_tres.cluster IS NULL OR u.cluster OPERATOR(pg_catalog.=) _report_tres.cluster)
                      AND u.gpu_secs OPERATOR(pg_catalog.>) 0)
     ORDER BY t.tres_order;
END;
COMMENT ON FUNCTION @extschema@_internal._report_tres(text, text) IS
'The TRES a report prints for a sreport -T list over a cluster (NULL: every one): ALL takes gres/gpu only when the cluster registered GPUs or charged GPU time, as sreport lists slurmdbd''s TRES table.';

-- sreport's -t: the unit names it takes (any case, as its own parser).
CREATE FUNCTION @extschema@_internal._report_units(units text)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    u text := lower(btrim(COALESCE(units, 'minutes')));
BEGIN
    RETURN CASE
        WHEN u IN ('s', 'sec', 'secs', 'second', 'seconds') THEN 'seconds'
        WHEN u IN ('m', 'min', 'mins', 'minute', 'minutes') THEN 'minutes'
        WHEN u IN ('h', 'hour', 'hours') THEN 'hours'
        WHEN u IN ('p', 'per', 'percent') THEN 'percent'
        WHEN u IN ('secper', 'sp') THEN 'secper'
        WHEN u IN ('minper', 'mp') THEN 'minper'
        WHEN u IN ('hourper', 'hp') THEN 'hourper'
        ELSE @extschema@_internal._raise('22023', format('unknown report units "%s"', units),
                                'Use Seconds, Minutes, Hours, Percent, SecPer, MinPer or HourPer, as sreport -t.', NULL::text)
    END;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._report_units(text) IS
'The canonical name of a sreport -t unit (seconds, minutes, hours, percent, secper, minper, hourper); raises 22023 naming an unknown one.';

-- C (extension/reports.c): written in SQL it calls to_char(), which is only
-- stable, and could not be inlined into report_format, called once per row
-- (docs/performance.md#the-per-row-functions).
CREATE FUNCTION @extschema@_internal._report_percent(secs bigint, total bigint)
RETURNS text AS 'MODULE_PATHNAME', 'fs__report_percent'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._report_percent(bigint, bigint) IS
'secs as a percentage of total with two decimals and a % sign, as sreport prints it (0.00% of nothing).';

-- A value in TRES-seconds as sreport -P prints it in a unit: the quotient
-- rounded to the nearest (half to even, like printf's %.0f on a double),
-- or a percentage of total with two decimals.
CREATE FUNCTION @extschema@.report_format(secs bigint, total bigint, units text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE @extschema@_internal._report_units(units)
        WHEN 'seconds' THEN secs::text
        WHEN 'minutes' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 60)::bigint::text
        WHEN 'hours' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 3600)::bigint::text
        WHEN 'percent' THEN @extschema@_internal._report_percent(secs, total)
        WHEN 'secper' THEN secs::text OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) @extschema@_internal._report_percent(secs, total) OPERATOR(pg_catalog.||) ')'
        WHEN 'minper' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 60)::bigint::text
                           OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) @extschema@_internal._report_percent(secs, total) OPERATOR(pg_catalog.||) ')'
        ELSE pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 3600)::bigint::text
             OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) @extschema@_internal._report_percent(secs, total) OPERATOR(pg_catalog.||) ')'
    END;
END;
COMMENT ON FUNCTION @extschema@.report_format(bigint, bigint, text) IS
'A TRES-seconds value as sreport -P prints it in a -t unit (Minutes: rounded to the nearest; Percent: of total, two decimals).';


-- Proper names for the reports' "Proper Name" column (sreport takes the
-- GECOS field of the machine it runs on); a user without a row has none.
CREATE TABLE @extschema@.user_info (
    user_name            text PRIMARY KEY CHECK (user_name OPERATOR(pg_catalog.<>) ''),
    proper_name          text NOT NULL DEFAULT ''
);
COMMENT ON TABLE @extschema@.user_info IS
'The proper name the sreport-like reports print for a user (sreport reads the GECOS field of the passwd entry).';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.user_info', '');

-- ---------------------------------------------------------------------------
-- Refreshing the rollups
-- ---------------------------------------------------------------------------

-- The runs of a cluster that ran in [hour_from, hour_to): started before
-- hour_to, ended (or running) after hour_from.  Two parts, so that a week's
-- pass reads the partitions of its own months and not the whole history
-- after it (docs/performance.md#reports-from-rollups): jobs is partitioned
-- by submit_time, and a run is submitted before it starts, so nearly every
-- such run is in a partition that begins before hour_to, where the end-time
-- index finds those still running after hour_from.  A run that started
-- before its own submit time (sacct prints such runs: a requeued run keeps
-- its earlier start) is found by the second part, in the later partitions,
-- through the index on the first event, which holds nothing before hour_to
-- there but those runs.  Inlined into the caller (one SELECT, LANGUAGE sql;
-- a standard body, parsed when created, so no search_path is read).
CREATE FUNCTION @extschema@_internal._rollup_runs(rollup_cluster text, hour_from timestamptz, hour_to timestamptz)
RETURNS SETOF @extschema@.jobs LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT x.* FROM @extschema@.jobs x
     WHERE x.cluster OPERATOR(pg_catalog.=) rollup_cluster AND x.start_time OPERATOR(pg_catalog.<) hour_to
       AND COALESCE(x.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) hour_from
       AND x.submit_time OPERATOR(pg_catalog.<) hour_to
    UNION ALL
    SELECT x.* FROM @extschema@.jobs x
     WHERE x.cluster OPERATOR(pg_catalog.=) rollup_cluster AND x.start_time OPERATOR(pg_catalog.<) hour_to
       AND COALESCE(x.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) hour_from
       AND x.submit_time OPERATOR(pg_catalog.>=) hour_to
       AND COALESCE(x.start_time, x.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.<) hour_to;
END;
COMMENT ON FUNCTION @extschema@_internal._rollup_runs(text, timestamptz, timestamptz) IS
'The runs of a cluster that ran in [hour_from, hour_to), read from the partitions that can hold them; inlined by refresh_rollups.';

-- Recompute the hours of one range [hour_from, hour_to) of one cluster from the jobs, the
-- events and the reservations; w is the refresh's instant (the end of a
-- running job).
--
-- Set-based and linear in what it writes: each run (event, reservation) is
-- cut into its own hours only (generate_series from its first hour to its
-- last), never joined with every hour of the range, and the parts are
-- aggregated once per hour and key.  The cutting is done in integer
-- microseconds since the epoch: a run's bounds are converted once, each
-- hour's part is a subtraction, and the seconds are rounded half up as
-- extract(epoch ...)::bigint rounds them (so the figures are those of the
-- timestamp arithmetic, to the second).  Per-run values (its duration,
-- TRES, wait) are computed once per run behind an OFFSET 0: inlined into
-- the hours, they were recomputed for each hour of the run, which was most
-- of the time of a first refresh (docs/performance.md, "Reports from
-- rollups").  The sums are float8 sums of integers, exact below 2^53 (an
-- hour of a million CPUs is 3.6 × 10^9 CPU-seconds), and cheaper than
-- bigint sums, whose state is a 128-bit integer allocated per group.
CREATE FUNCTION @extschema@_internal._rollup_hours(rollup_cluster text, hour_from timestamptz, hour_to timestamptz, runs_until timestamptz)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- the range in microseconds since the epoch
    a_us bigint := (extract(epoch FROM hour_from) * 1000000)::bigint;
    b_us bigint := (extract(epoch FROM hour_to) * 1000000)::bigint;
    w_us bigint := (extract(epoch FROM runs_until) * 1000000)::bigint;
    hour_us constant bigint := 3600000000;
    -- The reservations whose runs take their time (slurmdbd: a job with a
    -- reservation id adds nothing to the cluster's allocated and planned
    -- time, the reservation's whole time being allocated).  One flagged
    -- IGNORE_JOBS, or one that was not imported, does not: its runs count
    -- as runs outside any reservation.  Read once, before the queries of
    -- the runs: a function reading reservations for each run was a
    -- distributed query inside a query on a shard, which Citus refuses
    -- (docs/citus.md#the-usage-rollups-on-citus).
    resv_in bigint[] := ARRAY(SELECT DISTINCT v.resv_id FROM @extschema@.reservations v
                               WHERE v.cluster = rollup_cluster
                                 AND NOT 'IGNORE_JOBS' = ANY (string_to_array(upper(v.flags), ',')));
BEGIN
    DELETE FROM @extschema@.usage_hourly u WHERE u.cluster = rollup_cluster AND u.period_start >= hour_from AND u.period_start < hour_to;
    DELETE FROM @extschema@.cluster_usage_hourly u WHERE u.cluster = rollup_cluster AND u.period_start >= hour_from AND u.period_start < hour_to;
    DELETE FROM @extschema@.core_usage_hourly u WHERE u.cluster = rollup_cluster AND u.period_start >= hour_from AND u.period_start < hour_to;

    -- the core-hours of the GENCI and RWTH reports, in core-microseconds
    -- (core_usage_hourly): each hour's part of each run, whole (suspended
    -- time included), times the cores core_hours bills
    INSERT INTO @extschema@.core_usage_hourly
    SELECT rollup_cluster, g.account, to_timestamp((g.h / 1000000)::float8), g.us
      FROM (SELECT j.account, h.h, sum(j.cores * (LEAST(j.e_us, h.h + hour_us) - GREATEST(j.s_us, h.h))) AS us
              FROM (SELECT x.account, @extschema@_internal._core_billed(x.cpus, x.exclusive OR p.whole_node, x.nodes,
                                                                     p.cores_per_node, x.gpus, c.gpu_hour_factor) AS cores,
                           (extract(epoch FROM x.start_time) * 1000000)::bigint AS s_us,
                           (extract(epoch FROM LEAST(COALESCE(x.end_time, runs_until), runs_until)) * 1000000)::bigint AS e_us,
                           (extract(epoch FROM GREATEST(date_trunc('hour', x.start_time), hour_from)) * 1000000)::bigint AS h0
                      FROM @extschema@.jobs x
                      JOIN @extschema@.partitions p ON p.cluster = x.cluster AND p.partition = x.partition
                      JOIN @extschema@.clusters c ON c.cluster = x.cluster
                     WHERE x.cluster = rollup_cluster AND x.start_time IS NOT NULL AND x.start_time < hour_to
                       AND COALESCE(x.end_time, 'infinity'::timestamptz) > hour_from
                       AND LEAST(COALESCE(x.end_time, runs_until), runs_until) > x.start_time
                    OFFSET 0) j
             CROSS JOIN LATERAL generate_series(j.h0, LEAST(j.e_us, b_us) - 1, hour_us) AS h (h)
             GROUP BY j.account, h.h) g
     WHERE g.us <> 0;

    -- the runs: each hour's part of each run that overlaps [hour_from, hour_to).  For a
    -- run from s to its stop e (its end, or w while it runs) and an hour h:
    -- secs = the part of [s, e) in [h, h + 1 h); its suspended part is the
    -- run's suspended total spread in proportion to time, the integer part
    -- of total × (offset of the part's end) / duration minus the same at
    -- the part's start, so the hours of a run add up to its total.
    INSERT INTO @extschema@.usage_hourly
    SELECT rollup_cluster, to_timestamp((g.h / 1000000)::float8), g.account, g.user_name, g.partition, g.qos, g.cpus,
           g.run::bigint, (g.run * g.cpus)::bigint, g.mem::bigint, g.node::bigint, g.billing::bigint, g.gpu::bigint,
           g.energy::bigint, g.susp::bigint, (g.susp * g.cpus)::bigint, g.jobs, g.wait::bigint, g.at_start
      FROM (SELECT h.h, j.account, j.user_name, j.partition, j.qos, j.cpus,
                   sum(p.run::float8) AS run, sum((p.run * j.mem_mb)::float8) AS mem,
                   sum((p.run * j.nodes)::float8) AS node, sum((p.run * j.billing)::float8) AS billing,
                   sum((p.run * j.gpus)::float8) AS gpu,
                   sum(CASE WHEN j.dur > 0 THEN j.energy * p.secs / j.dur ELSE 0 END::float8) AS energy,
                   sum(p.susp::float8) AS susp,
                   -- the runs started in the hour, and their waits
                   count(*) FILTER (WHERE j.s_us >= h.h AND j.s_us < h.h + hour_us) AS jobs,
                   COALESCE(sum(j.wait::float8) FILTER (WHERE j.s_us >= h.h AND j.s_us < h.h + hour_us), 0) AS wait,
                   -- the runs that started before the hour (and run in it)
                   count(*) FILTER (WHERE j.s_us < h.h) AS at_start
              FROM (SELECT x.account, x.user_name, x.partition, COALESCE(x.qos, '') AS qos, x.cpus,
                           x.mem_mb, x.nodes, x.gpus,
                           extract(epoch FROM LEAST(COALESCE(x.end_time, runs_until), runs_until) - x.start_time)::bigint AS dur,
                           (extract(epoch FROM x.start_time) * 1000000)::bigint AS s_us,
                           (extract(epoch FROM LEAST(COALESCE(x.end_time, runs_until), runs_until)) * 1000000)::bigint AS e_us,
                           (extract(epoch FROM GREATEST(date_trunc('hour', x.start_time), hour_from)) * 1000000)::bigint AS h0,
                           extract(epoch FROM x.suspended)::bigint AS susp_total,
                           COALESCE(round(@extschema@.tres_count(x.tres, 'billing')), 0)::bigint AS billing,
                           COALESCE(round(@extschema@.tres_count(x.tres, 'energy')), 0)::bigint AS energy,
                           extract(epoch FROM x.start_time - COALESCE(x.eligible_time, x.submit_time))::bigint AS wait
                      FROM @extschema@_internal._rollup_runs(rollup_cluster, hour_from, hour_to) x
                     WHERE LEAST(COALESCE(x.end_time, runs_until), runs_until) > x.start_time
                    OFFSET 0) j
             CROSS JOIN LATERAL generate_series(j.h0, LEAST(j.e_us, b_us) - 1, hour_us) AS h (h)
             CROSS JOIN LATERAL (SELECT (LEAST(j.e_us, h.h + hour_us) - GREATEST(j.s_us, h.h) + 500000) / 1000000 AS secs,
                                        CASE WHEN j.dur > 0 AND j.susp_total > 0
                                             THEN j.susp_total * ((LEAST(j.e_us, h.h + hour_us) - j.s_us + 500000) / 1000000) / j.dur
                                                  - j.susp_total * ((GREATEST(j.s_us, h.h) - j.s_us + 500000) / 1000000) / j.dur
                                             ELSE 0 END AS susp) r
             CROSS JOIN LATERAL (SELECT r.secs, r.secs - r.susp AS run, r.susp) p
             GROUP BY h.h, j.account, j.user_name, j.partition, j.qos, j.cpus) g
     -- in hour order: the index takes the rows near each other
     ORDER BY g.h;

    -- the reservations' idle time: charged to their associations (split
    -- evenly), as slurmdbd does, in rows of partition '' (no job has that
    -- partition).  Idle is the reservation's TRES-seconds of the hour less
    -- what the runs in it used: slurmdbd 22.05 takes each run's seconds
    -- inside the reservation times the reservation's TRES, not the run's
    -- (a run of 8 CPUs for 2000 s in a reservation of 64 leaves 1600 s x 64
    -- idle of an hour; the capture sreport_resv shows it), and charges
    -- nothing when no time of the hour was left idle.
    INSERT INTO @extschema@.usage_hourly
    WITH used AS (
        -- (the seconds summed as written, not from a LATERAL subquery
        -- without FROM: Citus refuses one holding a STABLE timestamptz +
        -- interval, docs/citus.md)
        SELECT v.resv_id, v.time_start AS v_start, h.h,
               sum(extract(epoch FROM LEAST(q.e, h.h + interval '1 hour') - GREATEST(q.s, h.h))::bigint) AS secs
          FROM @extschema@.jobs j
          JOIN @extschema@.reservations v ON v.cluster = j.cluster AND v.resv_id = j.resv_id
         CROSS JOIN LATERAL (SELECT GREATEST(j.start_time, v.time_start) AS s,
                                    LEAST(COALESCE(j.end_time, runs_until), runs_until, v.time_end) AS e) q
         CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', q.s), hour_from), LEAST(q.e, hour_to) - interval '1 microsecond',
                                            interval '1 hour') AS h (h)
         WHERE j.cluster = rollup_cluster AND j.resv_id IS NOT NULL AND j.start_time IS NOT NULL AND j.start_time < hour_to
           AND COALESCE(j.end_time, 'infinity'::timestamptz) > hour_from AND q.e > q.s
         GROUP BY 1, 2, 3
    )
    SELECT r.cluster, h.h, x.account, x.user_name, '', '', 0,
           sum(d.secs / r.n), sum(i.cpu / r.n), sum(i.mem / r.n), sum(i.node / r.n),
           sum(i.billing / r.n), sum(i.gpu / r.n), 0, 0, 0, 0, 0, 0
      FROM (SELECT v.*, GREATEST(pg_catalog.cardinality(v.accounts), 1) AS n,
                   round(@extschema@.tres_count(v.tres, 'cpu'))::bigint AS cpu,
                   round(@extschema@.tres_count(v.tres, 'mem'))::bigint AS mem,
                   round(@extschema@.tres_count(v.tres, 'node'))::bigint AS node,
                   round(@extschema@.tres_count(v.tres, 'billing'))::bigint AS billing,
                   round(@extschema@.tres_count(v.tres, 'gres/gpu'))::bigint AS gpu
              FROM @extschema@.reservations v
             WHERE v.cluster = rollup_cluster AND v.time_start < hour_to AND v.time_end > hour_from
               AND NOT 'IGNORE_JOBS' = ANY (string_to_array(upper(v.flags), ','))
            OFFSET 0) r
     CROSS JOIN LATERAL unnest(r.accounts, r.users) AS x (account, user_name)
     CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', r.time_start), hour_from),
                                        LEAST(r.time_end, hour_to) - interval '1 microsecond', interval '1 hour') AS h (h)
     CROSS JOIN LATERAL (SELECT extract(epoch FROM LEAST(r.time_end, h.h + interval '1 hour') - GREATEST(r.time_start, h.h))::bigint AS secs) o
      LEFT JOIN used u ON u.resv_id = r.resv_id AND u.v_start = r.time_start AND u.h = h.h
     CROSS JOIN LATERAL (SELECT o.secs - COALESCE(u.secs, 0) AS secs) d
     CROSS JOIN LATERAL (SELECT d.secs * r.cpu AS cpu, d.secs * r.mem AS mem, d.secs * r.node AS node,
                                d.secs * r.billing AS billing, d.secs * r.gpu AS gpu) i
     WHERE x.account IS NOT NULL AND d.secs > 0
     GROUP BY r.cluster, h.h, x.account, x.user_name
    ON CONFLICT (cluster, period_start, account, user_name, partition, qos, cpus) DO UPDATE
       SET run_secs = @extschema@.usage_hourly.run_secs + EXCLUDED.run_secs,
           cpu_secs = @extschema@.usage_hourly.cpu_secs + EXCLUDED.cpu_secs,
           mem_secs = @extschema@.usage_hourly.mem_secs + EXCLUDED.mem_secs,
           node_secs = @extschema@.usage_hourly.node_secs + EXCLUDED.node_secs,
           billing_secs = @extschema@.usage_hourly.billing_secs + EXCLUDED.billing_secs,
           gpu_secs = @extschema@.usage_hourly.gpu_secs + EXCLUDED.gpu_secs;

    -- the cluster: per hour and TRES, what it reported and what became of
    -- it.  Events and reservations are cut into their own hours, as the
    -- runs are (a join with every hour of the range made a first refresh
    -- of years with thousands of events quadratic).  As slurmdbd's hourly
    -- rollup: a row for each TRES the cluster's event lists, its count 0
    -- too (energy, fs/disk, vmem and pages: sreport prints their zeros),
    -- and none for node, which slurmdbd leaves out of the cluster's usage
    -- (docs/reports.md#rollups).
    INSERT INTO @extschema@.cluster_usage_hourly
    WITH tres AS (
        SELECT t.tres FROM @extschema@.report_tres() t WHERE t.tres <> 'node'
    ), ev AS (          -- events: the cluster's (reported) and its nodes' (down)
        SELECT h.h, t.tres,
               sum(x.secs) FILTER (WHERE x.whole) AS reported,
               sum(x.secs) FILTER (WHERE NOT x.whole) AS down,
               bool_or(x.whole AND strpos(',' || e.tres, ',' || t.tres || '=') > 0) AS registered
          FROM @extschema@.node_events e
         CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', e.time_start), hour_from),
                                            LEAST(COALESCE(e.time_end, runs_until), hour_to) - interval '1 microsecond',
                                            interval '1 hour') AS h (h)
         CROSS JOIN tres t
         CROSS JOIN LATERAL (SELECT e.node_name = '' AS whole,
                                    round(@extschema@.tres_count(e.tres, t.tres))::bigint
                                    * extract(epoch FROM LEAST(COALESCE(e.time_end, runs_until), h.h + interval '1 hour')
                                                         - GREATEST(e.time_start, h.h))::bigint AS secs) x
         WHERE e.cluster = rollup_cluster AND e.time_start < hour_to AND COALESCE(e.time_end, runs_until) > hour_from
         GROUP BY 1, 2
    ), resv AS (        -- reservations: maintenance (planned down) and others (allocated)
        SELECT h.h, t.tres,
               sum(x.secs) FILTER (WHERE x.maint) AS pdown,
               sum(x.secs) FILTER (WHERE NOT x.maint) AS alloc
          FROM @extschema@.reservations v
         CROSS JOIN LATERAL generate_series(GREATEST(date_trunc('hour', v.time_start), hour_from),
                                            LEAST(v.time_end, hour_to) - interval '1 microsecond',
                                            interval '1 hour') AS h (h)
         CROSS JOIN tres t
         CROSS JOIN LATERAL (SELECT 'MAINT' = ANY (string_to_array(upper(v.flags), ',')) AS maint,
                                    round(@extschema@.tres_count(v.tres, t.tres))::bigint
                                    * extract(epoch FROM LEAST(v.time_end, h.h + interval '1 hour')
                                                         - GREATEST(v.time_start, h.h))::bigint AS secs) x
         WHERE v.cluster = rollup_cluster AND v.time_start < hour_to AND v.time_end > hour_from
           AND NOT 'IGNORE_JOBS' = ANY (string_to_array(upper(v.flags), ','))
         GROUP BY 1, 2
    ), in_resv AS (     -- the runs in a reservation (not IGNORE_JOBS): slurmdbd
                        -- counts the reservation's whole time as allocated
                        -- (resv below) and not their own time again; their
                        -- parts of each hour as the runs' rows have them
        SELECT h.h, sum((r.run * j.cpus)::float8) AS cpu, sum((r.run * j.mem_mb)::float8) AS mem,
               sum((r.run * j.nodes)::float8) AS node, sum((r.run * j.billing)::float8) AS billing,
               sum((r.run * j.gpus)::float8) AS gpu
          FROM (SELECT x.cpus, x.mem_mb, x.nodes, x.gpus,
                       COALESCE(round(@extschema@.tres_count(x.tres, 'billing')), 0)::bigint AS billing,
                       extract(epoch FROM LEAST(COALESCE(x.end_time, runs_until), runs_until) - x.start_time)::bigint AS dur,
                       (extract(epoch FROM x.start_time) * 1000000)::bigint AS s_us,
                       (extract(epoch FROM LEAST(COALESCE(x.end_time, runs_until), runs_until)) * 1000000)::bigint AS e_us,
                       (extract(epoch FROM GREATEST(date_trunc('hour', x.start_time), hour_from)) * 1000000)::bigint AS h0,
                       extract(epoch FROM x.suspended)::bigint AS susp_total
                  FROM @extschema@_internal._rollup_runs(rollup_cluster, hour_from, hour_to) x
                 WHERE x.resv_id IS NOT NULL
                   AND LEAST(COALESCE(x.end_time, runs_until), runs_until) > x.start_time
                   AND x.resv_id = ANY (resv_in)
                OFFSET 0) j
         CROSS JOIN LATERAL generate_series(j.h0, LEAST(j.e_us, b_us) - 1, hour_us) AS g (g)
         CROSS JOIN LATERAL (SELECT (LEAST(j.e_us, g.g + hour_us) - GREATEST(j.s_us, g.g) + 500000) / 1000000
                                    - CASE WHEN j.dur > 0 AND j.susp_total > 0
                                           THEN j.susp_total * ((LEAST(j.e_us, g.g + hour_us) - j.s_us + 500000) / 1000000) / j.dur
                                                - j.susp_total * ((GREATEST(j.s_us, g.g) - j.s_us + 500000) / 1000000) / j.dur
                                           ELSE 0 END AS run) r
         CROSS JOIN LATERAL (SELECT to_timestamp((g.g / 1000000)::float8) AS h) h
         GROUP BY h.h
    ), alloc AS (       -- the runs, from the rows just written: one pass, each
                        -- hour's sums (less the runs in reservations) then one
                        -- row per TRES
        SELECT s.h, t.tres, t.secs
          FROM (SELECT u.period_start AS h, sum(u.cpu_secs) AS cpu, sum(u.mem_secs) AS mem,
                       sum(u.node_secs) AS node, sum(u.billing_secs) AS billing, sum(u.gpu_secs) AS gpu,
                       sum(u.energy) AS energy
                  FROM @extschema@.usage_hourly u
                 WHERE u.cluster = rollup_cluster AND u.period_start >= hour_from AND u.period_start < hour_to AND u.partition <> ''
                 GROUP BY 1) s
          LEFT JOIN in_resv ir ON ir.h = s.h
         CROSS JOIN LATERAL (VALUES ('cpu', s.cpu - COALESCE(ir.cpu, 0)::bigint), ('mem', s.mem - COALESCE(ir.mem, 0)::bigint),
                                    ('energy', s.energy), ('node', s.node - COALESCE(ir.node, 0)::bigint),
                                    ('billing', s.billing - COALESCE(ir.billing, 0)::bigint),
                                    ('gres/gpu', s.gpu - COALESCE(ir.gpu, 0)::bigint)) AS t (tres, secs)
    ), planned AS (     -- eligible runs not yet started, from eligible to start (or end):
                        -- their CPUs only, as slurmdbd counts them; cut into
                        -- hours in microseconds, as the runs are
        SELECT to_timestamp((g.h / 1000000)::float8) AS h, 'cpu'::text AS tres, g.secs::bigint AS secs
          FROM (SELECT h.h, sum((j.cpus * ((LEAST(j.e_us, h.h + hour_us) - GREATEST(j.s_us, h.h) + 500000) / 1000000))::float8) AS secs
                  FROM (SELECT x.cpus,
                               (extract(epoch FROM x.eligible_time) * 1000000)::bigint AS s_us,
                               (extract(epoch FROM COALESCE(x.start_time, x.end_time, runs_until)) * 1000000)::bigint AS e_us,
                               (extract(epoch FROM GREATEST(date_trunc('hour', x.eligible_time), hour_from)) * 1000000)::bigint AS h0
                          FROM @extschema@.jobs x
                         WHERE x.cluster = rollup_cluster AND x.eligible_time < hour_to
                           -- eligible_time >= submit_time (a CHECK of jobs):
                           -- only the partitions that begin before hour_to
                           AND x.submit_time < hour_to
                           AND COALESCE(x.start_time, x.end_time, 'infinity'::timestamptz) > hour_from
                           AND COALESCE(x.start_time, x.end_time, runs_until) > x.eligible_time
                           -- slurmdbd counts no planned time for a job of a reservation
                           AND (x.resv_id IS NULL OR NOT x.resv_id = ANY (resv_in))
                        OFFSET 0) j
                 CROSS JOIN LATERAL generate_series(j.h0, LEAST(j.e_us, b_us) - 1, hour_us) AS h (h)
                 GROUP BY h.h) g
    ), sums AS (
        SELECT k.h, k.tres, COALESCE(ev.registered, false) AS registered,
               COALESCE(ev.reported, 0) AS reported,
               COALESCE(alloc.secs, 0) + COALESCE(resv.alloc, 0) AS alloc,
               COALESCE(ev.down, 0) AS down,
               COALESCE(resv.pdown, 0) AS pdown,
               COALESCE(planned.secs, 0) AS planned
          FROM (SELECT ev.h, ev.tres FROM ev UNION SELECT resv.h, resv.tres FROM resv
                UNION SELECT alloc.h, alloc.tres FROM alloc UNION SELECT planned.h, planned.tres FROM planned) k
          LEFT JOIN ev ON ev.h = k.h AND ev.tres = k.tres
          LEFT JOIN resv ON resv.h = k.h AND resv.tres = k.tres
          LEFT JOIN alloc ON alloc.h = k.h AND alloc.tres = k.tres
          LEFT JOIN planned ON planned.h = k.h AND planned.tres = k.tres
    )
    SELECT rollup_cluster, s.h, s.tres, s.reported, s.alloc, s.down, s.pdown, s.planned,
           GREATEST(s.reported - s.alloc - s.down - s.pdown - s.planned, 0),
           GREATEST(s.alloc + s.down + s.pdown + s.planned - s.reported, 0)
      FROM sums s
     WHERE s.tres <> 'node' AND (s.registered OR s.reported <> 0 OR s.alloc <> 0 OR s.down <> 0 OR s.pdown <> 0 OR s.planned <> 0);

    RETURN (extract(epoch FROM hour_to - hour_from) / 3600)::bigint;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._rollup_hours(text, timestamptz, timestamptz, timestamptz) IS
'Recomputes usage_hourly and cluster_usage_hourly for the hours [hour_from, hour_to) of a cluster from its jobs, events and reservations (runs_until: the end of running jobs); returns the number of hours.';

-- Sum the hours of [hour_from, hour_to) into the days and months of the cluster's time
-- zone that hold them, one month at a time: the month's days from its
-- hours, then the month from its days.  A month's rows fit in memory where
-- two years' did not (the sort of every hourly row of a first refresh took
-- longer than computing them).
CREATE FUNCTION @extschema@_internal._rollup_days_months(rollup_cluster text, time_zone text, hour_from timestamptz, hour_to timestamptz)
RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d0 timestamptz := date_trunc('day', hour_from, time_zone);
    d1 timestamptz := (date_trunc('day', hour_to - interval '1 microsecond', time_zone) AT TIME ZONE time_zone + interval '1 day') AT TIME ZONE time_zone;
    m1 timestamptz := (date_trunc('month', hour_to - interval '1 microsecond', time_zone) AT TIME ZONE time_zone + interval '1 month') AT TIME ZONE time_zone;
    ma timestamptz := date_trunc('month', hour_from, time_zone);
    mb timestamptz;
    da timestamptz;
    db timestamptz;
BEGIN
    WHILE ma < m1 LOOP
        mb := (ma AT TIME ZONE time_zone + interval '1 month') AT TIME ZONE time_zone;
        -- the days of this month that hold hours of [hour_from, hour_to)
        da := GREATEST(d0, ma);
        db := LEAST(d1, mb);
        DELETE FROM @extschema@.usage_daily u WHERE u.cluster = rollup_cluster AND u.period_start >= da AND u.period_start < db;
        INSERT INTO @extschema@.usage_daily
        SELECT u.cluster, date_trunc('day', u.period_start, time_zone), u.account, u.user_name, u.partition, u.qos, u.cpus,
               sum(u.run_secs), sum(u.cpu_secs), sum(u.mem_secs), sum(u.node_secs), sum(u.billing_secs), sum(u.gpu_secs),
               sum(u.energy), sum(u.suspended_secs), sum(u.suspended_cpu_secs), sum(u.jobs), sum(u.wait_secs),
               -- the runs at the day's start: those at the start of its first hour
               COALESCE(sum(u.jobs_at_start) FILTER (WHERE u.period_start < date_trunc('day', u.period_start, time_zone) + interval '1 hour'), 0)
          FROM @extschema@.usage_hourly u
         WHERE u.cluster = rollup_cluster AND u.period_start >= da AND u.period_start < db
         GROUP BY 1, 2, 3, 4, 5, 6, 7;
        DELETE FROM @extschema@.core_usage_daily u WHERE u.cluster = rollup_cluster AND u.period_start >= da AND u.period_start < db;
        INSERT INTO @extschema@.core_usage_daily
        SELECT u.cluster, u.account, date_trunc('day', u.period_start, time_zone), sum(u.core_us)
          FROM @extschema@.core_usage_hourly u
         WHERE u.cluster = rollup_cluster AND u.period_start >= da AND u.period_start < db
         GROUP BY 1, 2, 3;
        DELETE FROM @extschema@.core_usage_monthly u WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb;
        INSERT INTO @extschema@.core_usage_monthly
        SELECT u.cluster, u.account, date_trunc('month', u.period_start, time_zone), sum(u.core_us)
          FROM @extschema@.core_usage_daily u
         WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb
         GROUP BY 1, 2, 3;
        DELETE FROM @extschema@.usage_monthly u WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb;
        INSERT INTO @extschema@.usage_monthly
        SELECT u.cluster, date_trunc('month', u.period_start, time_zone), u.account, u.user_name, u.partition, u.qos, u.cpus,
               sum(u.run_secs), sum(u.cpu_secs), sum(u.mem_secs), sum(u.node_secs), sum(u.billing_secs), sum(u.gpu_secs),
               sum(u.energy), sum(u.suspended_secs), sum(u.suspended_cpu_secs), sum(u.jobs), sum(u.wait_secs),
               -- and at the month's start: those of its first day
               COALESCE(sum(u.jobs_at_start) FILTER (WHERE u.period_start = date_trunc('month', u.period_start, time_zone)), 0)
          FROM @extschema@.usage_daily u
         WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb
         GROUP BY 1, 2, 3, 4, 5, 6, 7;
        DELETE FROM @extschema@.usage_monthly_by_account u WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb;
        INSERT INTO @extschema@.usage_monthly_by_account
        SELECT u.cluster, u.period_start, u.account, sum(u.run_secs), sum(u.cpu_secs), sum(u.gpu_secs),
               sum(u.billing_secs), sum(u.jobs), sum(u.wait_secs)
          FROM @extschema@.usage_monthly u
         WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb
         GROUP BY 1, 2, 3;

        DELETE FROM @extschema@.cluster_usage_daily u WHERE u.cluster = rollup_cluster AND u.period_start >= da AND u.period_start < db;
        INSERT INTO @extschema@.cluster_usage_daily
        SELECT u.cluster, date_trunc('day', u.period_start, time_zone), u.tres, sum(u.reported_secs), sum(u.alloc_secs),
               sum(u.down_secs), sum(u.pdown_secs), sum(u.planned_secs), sum(u.idle_secs), sum(u.over_secs)
          FROM @extschema@.cluster_usage_hourly u
         WHERE u.cluster = rollup_cluster AND u.period_start >= da AND u.period_start < db
         GROUP BY 1, 2, 3;
        DELETE FROM @extschema@.cluster_usage_monthly u WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb;
        INSERT INTO @extschema@.cluster_usage_monthly
        SELECT u.cluster, date_trunc('month', u.period_start, time_zone), u.tres, sum(u.reported_secs), sum(u.alloc_secs),
               sum(u.down_secs), sum(u.pdown_secs), sum(u.planned_secs), sum(u.idle_secs), sum(u.over_secs)
          FROM @extschema@.cluster_usage_daily u
         WHERE u.cluster = rollup_cluster AND u.period_start >= ma AND u.period_start < mb
         GROUP BY 1, 2, 3;
        ma := mb;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._rollup_days_months(text, text, timestamptz, timestamptz) IS
'Sums the hourly rollups of the days and months (in time_zone) that hold [hour_from, hour_to) of a cluster into the daily and monthly ones.';

-- The maintenance call.  Recomputes, for one cluster or every one (NULL),
-- the hours marked stale and the hours completed since the last call (the
-- first call: every hour since the cluster's first job or event), up to
-- the hour that holds up_to, and the days and months that hold them.
-- Safe to run while imports run (see the header); pg_cron:
--   SELECT cron.schedule('fairshare-rollups', '*/10 * * * *', 'SELECT fairshare.refresh_rollups()');
CREATE FUNCTION @extschema@.refresh_rollups(cluster_name text DEFAULT NULL, up_to timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (cluster text, hours_recomputed bigint, rolled_from timestamptz, rolled_to timestamptz)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    w timestamptz;
    k record;
    st record;
    m tstzmultirange;
    r tstzrange;
    lo timestamptz;
    c0 timestamptz;
    c1 timestamptz;
    n bigint;
    err_state text;
    err_text text;
BEGIN
    IF up_to IS NULL OR NOT isfinite(up_to) THEN
        RAISE EXCEPTION 'refresh_rollups: up_to must be a finite instant, not %', COALESCE(up_to::text, 'NULL')
            USING ERRCODE = '22023', HINT = 'Leave it out: the rollups are kept up to now().';
    END IF;
    IF refresh_rollups.cluster_name IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.clusters x WHERE x.cluster = refresh_rollups.cluster_name) THEN
        RAISE EXCEPTION 'refresh_rollups: cluster "%" does not exist', refresh_rollups.cluster_name
            USING ERRCODE = '22023', HINT = 'Pass a cluster of fairshare.clusters, or NULL for every one.';
    END IF;
    -- one refresh at a time; imports never wait for it
    PERFORM pg_advisory_xact_lock(hashtext('fairshare.refresh_rollups'));
    w := date_trunc('hour', up_to);
    -- a mark for every cluster (TRUNCATE jobs) becomes one per cluster (in
    -- two statements: on a Citus cluster, an INSERT ... SELECT from a
    -- DELETE ... RETURNING of the reference table runs on a worker's copy,
    -- which cannot query the cluster back, docs/citus.md)
    WITH d AS (DELETE FROM @extschema@.rollup_dirty x WHERE x.cluster IS NULL RETURNING x.hours)
    SELECT range_agg(d.hours) INTO m FROM d;
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT x.cluster, u.hours FROM @extschema@.clusters x CROSS JOIN unnest(m) u (hours);

    FOR k IN SELECT x.cluster, x.timezone FROM @extschema@.clusters x
              WHERE refresh_rollups.cluster_name IS NULL OR x.cluster = refresh_rollups.cluster_name
              ORDER BY x.cluster LOOP
        -- each cluster in a subtransaction: a stored row one cluster's
        -- rollups cannot read (an event TRES written by hand, or kept from
        -- a version that did not check it) fails that cluster alone, with a
        -- WARNING naming it and the error; its marks stay for the next
        -- call, and the other clusters are refreshed
        -- (docs/reports.md#events-and-reservations).  (The block's body
        -- keeps the loop's indentation.)
        BEGIN
        -- (retained_to: the hours before it are final, whatever was marked)
        SELECT s.rolled_from, s.rolled_to, s.retained_to INTO st FROM @extschema@.rollup_state s WHERE s.cluster = k.cluster;
        WITH d AS (DELETE FROM @extschema@.rollup_dirty x WHERE x.cluster = k.cluster RETURNING x.hours)
        SELECT range_agg(d.hours) INTO m FROM d;
        m := COALESCE(m, '{}'::tstzmultirange);
        -- the first hour the rollups cover: the cluster's first run or
        -- event, or the earliest hour marked
        lo := LEAST(st.rolled_from,
                    (SELECT date_trunc('hour', min(COALESCE(j.start_time, j.end_time, 'infinity'::timestamptz)))
                       FROM @extschema@.jobs j WHERE j.cluster = k.cluster AND st.rolled_from IS NULL),
                    (SELECT date_trunc('hour', min(j.eligible_time))
                       FROM @extschema@.jobs j WHERE j.cluster = k.cluster AND st.rolled_from IS NULL),
                    (SELECT date_trunc('hour', min(e.time_start)) FROM @extschema@.node_events e
                      WHERE e.cluster = k.cluster AND st.rolled_from IS NULL),
                    (SELECT min(lower(x)) FROM unnest(m) x WHERE NOT lower_inf(x)),
                    w);
        -- rollups kept without the core rollups (core_rollup_state): every
        -- hour they hold is recomputed once, the core rollups with them
        IF st.rolled_from IS NOT NULL
           AND NOT EXISTS (SELECT FROM @extschema@.core_rollup_state x WHERE x.cluster = k.cluster) THEN
            m := m + tstzmultirange(tstzrange(st.rolled_from, st.rolled_to));
        END IF;
        m := (m + tstzmultirange(tstzrange(COALESCE(st.rolled_to, lo), w)))
             * tstzmultirange(tstzrange(LEAST(GREATEST(lo, st.retained_to), w), w));
        n := 0;
        FOR r IN SELECT x FROM unnest(m) x ORDER BY lower(x) LOOP
            -- a week of hours at a time: a week's runs aggregate in memory,
            -- where the 17,520 hours of a first refresh over two years
            -- spilled to disk in many batches (each hour depends only on
            -- the runs, events and reservations that overlap it, so the
            -- pieces give the same rows as one pass)
            c0 := lower(r);
            WHILE c0 < upper(r) LOOP
                c1 := LEAST(c0 + interval '168 hours', upper(r));
                n := n + @extschema@_internal._rollup_hours(k.cluster, c0, c1, w);
                c0 := c1;
            END LOOP;
            PERFORM @extschema@_internal._rollup_days_months(k.cluster, k.timezone, lower(r), upper(r));
        END LOOP;
        INSERT INTO @extschema@.rollup_state AS s (cluster, rolled_from, rolled_to, refreshed_at)
        VALUES (k.cluster, lo, GREATEST(w, lo), now())
        ON CONFLICT ON CONSTRAINT rollup_state_pkey DO UPDATE
           SET rolled_from = LEAST(s.rolled_from, EXCLUDED.rolled_from),
               rolled_to = GREATEST(s.rolled_to, EXCLUDED.rolled_to),
               refreshed_at = EXCLUDED.refreshed_at;
        INSERT INTO @extschema@.core_rollup_state AS x (cluster, core_from)
        VALUES (k.cluster, CASE WHEN st.rolled_from IS NULL THEN '-infinity'::timestamptz
                                ELSE GREATEST(st.rolled_from, st.retained_to) END)
        ON CONFLICT ON CONSTRAINT core_rollup_state_pkey DO NOTHING;
        cluster := k.cluster;
        hours_recomputed := n;
        SELECT s.rolled_from, s.rolled_to INTO rolled_from, rolled_to
          FROM @extschema@.rollup_state s WHERE s.cluster = k.cluster;
        RETURN NEXT;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS err_state = RETURNED_SQLSTATE, err_text = MESSAGE_TEXT;
            RAISE WARNING 'refresh_rollups: cluster "%" not refreshed: % (SQLSTATE %)', k.cluster, err_text, err_state
                USING HINT = 'A stored row its rollups cannot read: correct it (node_events, reservations), then call refresh_rollups again; the other clusters were refreshed.';
        END;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.refresh_rollups(text, timestamptz) IS
'The rollups'' maintenance call: recomputes the hours writes marked stale and the hours completed since the last call (one cluster, or NULL: every one), then their days and months; safe to run during imports; schedule it with pg_cron.';

-- ---------------------------------------------------------------------------
-- Reading the rollups
-- ---------------------------------------------------------------------------

-- Where a range [range_from, range_to) of a cluster in time_zone is read
-- from: whole months [m0, m1) from the monthly rollups, whole days [d0, m0)
-- and [m1, d1) from the daily ones, and the hours [range_from, d0) and
-- [d1, range_to) from
-- the hourly ones.  A year of usage is 12 monthly periods.
CREATE FUNCTION @extschema@_internal._rollup_bounds(time_zone text, range_from timestamptz, range_to timestamptz,
                                           OUT d0 timestamptz, OUT d1 timestamptz,
                                           OUT m0 timestamptz, OUT m1 timestamptz)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    d0 := date_trunc('day', range_from, time_zone);
    IF d0 < range_from THEN d0 := (d0 AT TIME ZONE time_zone + interval '1 day') AT TIME ZONE time_zone; END IF;
    d1 := date_trunc('day', range_to, time_zone);
    IF d0 >= d1 THEN d0 := range_to; d1 := range_to; END IF;
    m0 := date_trunc('month', d0, time_zone);
    IF m0 < d0 THEN m0 := (m0 AT TIME ZONE time_zone + interval '1 month') AT TIME ZONE time_zone; END IF;
    m1 := date_trunc('month', d1, time_zone);
    IF m0 >= m1 THEN m0 := d1; m1 := d1; END IF;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._rollup_bounds(text, timestamptz, timestamptz) IS
'Splits [range_from, range_to) into the whole months, whole days and hours of time_zone that the rollups answer it from.';

-- A report's range as sreport takes it: both ends down to their hour.
CREATE FUNCTION @extschema@_internal._report_range(time_from timestamptz, time_to timestamptz,
                                          OUT f timestamptz, OUT t timestamptz)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@_internal._report_check_range(time_from, time_to);
    f := date_trunc('hour', time_from);
    t := date_trunc('hour', time_to);
    IF t <= f THEN
        RAISE EXCEPTION 'report range [%, %) holds no whole hour', time_from, time_to
            USING ERRCODE = '22023',
                  HINT = 'The rollups are by the hour, as slurmdbd''s: sreport takes both ends down to their hour.';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._report_range(timestamptz, timestamptz) IS
'A report range taken down to whole hours as sreport does; raises 22023 when reversed or shorter than an hour.';

-- The arguments every sreport-like report takes, checked at its entry: a
-- range of whole hours in order, a -t unit and a -T list.  Each report
-- calls it in a statement of its own before its query, so a bad argument
-- raises whatever the data: a check inside the query runs only when the
-- plan reaches it (not at all over an empty cluster list, or when a join's
-- other side is empty).
CREATE FUNCTION @extschema@_internal._report_check_args(time_from timestamptz, time_to timestamptz, units text, tres text)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@_internal._report_range(time_from, time_to);
    PERFORM @extschema@_internal._report_units(units);
    PERFORM @extschema@_internal._report_tres_list(tres);
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._report_check_args(timestamptz, timestamptz, text, text) IS
'true when a report''s range (whole hours, in order), -t unit and -T list are valid; raises 22023 naming the bad one otherwise.';

-- The usage rows of [f, t) of one cluster (NULL: every one), from the
-- coarsest rollups that cover it.
CREATE FUNCTION @extschema@.usage_between(cluster text, time_from timestamptz, time_to timestamptz)
RETURNS SETOF @extschema@.usage_hourly
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the range is checked first, whatever the clusters (_report_check_args)
    SELECT @extschema@_internal._report_range(time_from, time_to);
    WITH r AS (SELECT * FROM @extschema@_internal._report_range(time_from, time_to)),
    b AS (SELECT k.cluster, r.f, r.t, x.d0, x.d1, x.m0, x.m1
            FROM @extschema@.clusters k CROSS JOIN r
           CROSS JOIN LATERAL @extschema@_internal._rollup_bounds(k.timezone, r.f, r.t) x
           WHERE usage_between.cluster IS NULL OR k.cluster OPERATOR(pg_catalog.=) usage_between.cluster)
    SELECT u.* FROM b JOIN @extschema@.usage_monthly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND u.period_start OPERATOR(pg_catalog.>=) b.m0 AND u.period_start OPERATOR(pg_catalog.<) b.m1
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.usage_daily u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.d0 AND u.period_start OPERATOR(pg_catalog.<) b.m0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.m1 AND u.period_start OPERATOR(pg_catalog.<) b.d1))
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.usage_hourly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.f AND u.period_start OPERATOR(pg_catalog.<) b.d0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.d1 AND u.period_start OPERATOR(pg_catalog.<) b.t));
END;
COMMENT ON FUNCTION @extschema@.usage_between(text, timestamptz, timestamptz) IS
'The rollup rows that make up [time_from, time_to) (whole hours) of a cluster (NULL: every one): whole months from usage_monthly, whole days from usage_daily, the rest from usage_hourly.';

-- The whole UTC hours of [since, until), cut at cuts (see _rwth_usage),
-- that the core rollups answer exactly: rolled since core_from
-- (core_rollup_state), and not stale or final; none under a scenario of
-- the policy lab that changes the cluster's core-hours
-- (docs/history.md#the-policy-lab).
CREATE FUNCTION @extschema@_internal._core_rolled(cluster text, since timestamptz, until timestamptz, cuts timestamptz[])
RETURNS tstzmultirange
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
        SELECT
               COALESCE((SELECT pg_catalog.tstzmultirange(pg_catalog.tstzrange(GREATEST(s.rolled_from, x.core_from), s.rolled_to))
                                OPERATOR(pg_catalog.-)
                                (COALESCE((SELECT pg_catalog.range_agg(d.hours) FROM @extschema@.rollup_dirty d
                                            WHERE d.cluster OPERATOR(pg_catalog.=) c.cluster OR d.cluster IS NULL),
                                          '{}'::tstzmultirange)
                                 OPERATOR(pg_catalog.-)
                                 CASE WHEN s.retained_to IS NOT NULL
                                      THEN pg_catalog.tstzmultirange(pg_catalog.tstzrange(NULL, s.retained_to))
                                      ELSE '{}'::tstzmultirange END)
                           FROM @extschema@.rollup_state s
                           JOIN @extschema@.core_rollup_state x ON x.cluster OPERATOR(pg_catalog.=) s.cluster
                          WHERE s.cluster OPERATOR(pg_catalog.=) c.cluster
                            -- a scenario's other node shapes or GPU factor:
                            -- the rollups were summed with the live ones
                            AND NOT @extschema@_internal._scenario_overrides(
                                      c.cluster, ARRAY['gpu_hour_factor', 'whole_node', 'cores_per_node'])),
                        '{}'::tstzmultirange)
               OPERATOR(pg_catalog.*)
               -- the whole UTC hours of each piece
               COALESCE((SELECT pg_catalog.range_agg(pg_catalog.tstzrange(h.a, h.b))
                           FROM pg_catalog.generate_series(1, pg_catalog.cardinality(_core_rolled.cuts) OPERATOR(pg_catalog.-) 1) i
                          CROSS JOIN LATERAL (SELECT pg_catalog.date_trunc('hour', GREATEST(_core_rolled.since, _core_rolled.cuts[i])
                                                         OPERATOR(pg_catalog.-) interval '1 microsecond', 'UTC')
                                                     OPERATOR(pg_catalog.+) interval '1 hour' AS a,
                                                     pg_catalog.date_trunc('hour', LEAST(_core_rolled.until, _core_rolled.cuts[i OPERATOR(pg_catalog.+) 1]), 'UTC') AS b) h
                          WHERE h.a OPERATOR(pg_catalog.<) h.b),
                        '{}'::tstzmultirange)
          FROM @extschema@.clusters c WHERE c.cluster OPERATOR(pg_catalog.=) _core_rolled.cluster;
END;

-- The core rollup rows of an account that make up the hours of rolled (from
-- _core_rolled): whole months and days of the cluster's time zone from the
-- monthly and daily rollups, the other hours from the hourly ones; k the
-- piece of cuts each falls in.
CREATE FUNCTION @extschema@_internal._core_rollup_rows(cluster text, account text, rolled tstzmultirange, cuts timestamptz[])
RETURNS TABLE (k integer, core_us numeric)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- (each range a LATERAL scan of its own, kept apart by OFFSET 0: read
    -- by the key, not every row of the account filtered; no WITH, which
    -- Citus cannot plan inside a query that reads the distributed runs,
    -- docs/citus.md)
    SELECT pg_catalog.width_bucket(u.period_start, _core_rollup_rows.cuts), u.core_us
      FROM @extschema@.clusters c
     CROSS JOIN LATERAL pg_catalog.unnest(_core_rollup_rows.rolled) r(r)
     CROSS JOIN LATERAL @extschema@_internal._rollup_bounds(c.timezone, pg_catalog.lower(r.r), pg_catalog.upper(r.r)) rr
     CROSS JOIN LATERAL (
            (SELECT x.period_start, x.core_us FROM @extschema@.core_usage_monthly x
             WHERE x.cluster OPERATOR(pg_catalog.=) _core_rollup_rows.cluster
               AND x.account OPERATOR(pg_catalog.=) _core_rollup_rows.account
               AND x.period_start OPERATOR(pg_catalog.>=) rr.m0 AND x.period_start OPERATOR(pg_catalog.<) rr.m1
            OFFSET 0)
            UNION ALL
            (SELECT x.period_start, x.core_us FROM @extschema@.core_usage_daily x
             WHERE x.cluster OPERATOR(pg_catalog.=) _core_rollup_rows.cluster
               AND x.account OPERATOR(pg_catalog.=) _core_rollup_rows.account
               AND x.period_start OPERATOR(pg_catalog.>=) rr.d0 AND x.period_start OPERATOR(pg_catalog.<) rr.m0
            OFFSET 0)
            UNION ALL
            (SELECT x.period_start, x.core_us FROM @extschema@.core_usage_daily x
             WHERE x.cluster OPERATOR(pg_catalog.=) _core_rollup_rows.cluster
               AND x.account OPERATOR(pg_catalog.=) _core_rollup_rows.account
               AND x.period_start OPERATOR(pg_catalog.>=) rr.m1 AND x.period_start OPERATOR(pg_catalog.<) rr.d1
            OFFSET 0)
            UNION ALL
            (SELECT x.period_start, x.core_us FROM @extschema@.core_usage_hourly x
             WHERE x.cluster OPERATOR(pg_catalog.=) _core_rollup_rows.cluster
               AND x.account OPERATOR(pg_catalog.=) _core_rollup_rows.account
               AND x.period_start OPERATOR(pg_catalog.>=) pg_catalog.lower(r.r) AND x.period_start OPERATOR(pg_catalog.<) rr.d0
            OFFSET 0)
            UNION ALL
            (SELECT x.period_start, x.core_us FROM @extschema@.core_usage_hourly x
             WHERE x.cluster OPERATOR(pg_catalog.=) _core_rollup_rows.cluster
               AND x.account OPERATOR(pg_catalog.=) _core_rollup_rows.account
               AND x.period_start OPERATOR(pg_catalog.>=) rr.d1 AND x.period_start OPERATOR(pg_catalog.<) pg_catalog.upper(r.r)
            OFFSET 0)) u
     WHERE c.cluster OPERATOR(pg_catalog.=) _core_rollup_rows.cluster;
END;

-- A run's core-microseconds in each piece [cuts[k], cuts[k + 1]) of
-- [s, e) it spans: rows (k, core_us), cores the core count core_hours bills
-- it with (_core_billed).  Exact: whole microseconds times cores, numeric.
CREATE FUNCTION @extschema@_internal._core_cut(cores numeric, s timestamptz, e timestamptz, cuts timestamptz[])
RETURNS TABLE (k integer, core_us numeric)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT g.k, _core_cut.cores OPERATOR(pg_catalog.*)
                (EXTRACT(epoch FROM LEAST(_core_cut.e, _core_cut.cuts[g.k OPERATOR(pg_catalog.+) 1])
                                    OPERATOR(pg_catalog.-) GREATEST(_core_cut.s, _core_cut.cuts[g.k]))
                 OPERATOR(pg_catalog.*) 1000000)
      FROM pg_catalog.generate_series(
                GREATEST(pg_catalog.width_bucket(_core_cut.s, _core_cut.cuts), 1),
                -- the piece of its last microsecond: e's own, or the one
                -- before when e is a cut (immutable, unlike
                -- e - interval '1 microsecond', so that Citus can push
                -- the function down)
                LEAST(pg_catalog.width_bucket(_core_cut.e, _core_cut.cuts)
                      OPERATOR(pg_catalog.-)
                      CASE WHEN _core_cut.e OPERATOR(pg_catalog.=)
                                _core_cut.cuts[pg_catalog.width_bucket(_core_cut.e, _core_cut.cuts)]
                           THEN 1 ELSE 0 END,
                      pg_catalog.cardinality(_core_cut.cuts) OPERATOR(pg_catalog.-) 1)) g(k)
     WHERE _core_cut.e OPERATOR(pg_catalog.>) _core_cut.s;
END;
COMMENT ON FUNCTION @extschema@_internal._core_cut(numeric, timestamptz, timestamptz, timestamptz[]) IS
'A run''s core-microseconds in each piece [cuts[k], cuts[k+1]) of [s, e) it spans.';


-- Hours whose core-hours the settings they were billed with decide: a
-- change of a cluster's gpu_hour_factor or of a partition's whole_node or
-- cores_per_node marks all of the cluster's hours stale
-- (core_usage_hourly), and the reports read the runs until refresh_rollups
-- has recomputed them; the hours retain_jobs made final keep the settings
-- they were rolled with (docs/regulation.md#consumption-from-the-rollups).
CREATE FUNCTION @extschema@_internal._core_settings_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT NEW.cluster, '(,)'::tstzrange
     WHERE EXISTS (SELECT FROM @extschema@.rollup_state s WHERE s.cluster = NEW.cluster);
    RETURN NULL;
END
$$;
CREATE TRIGGER core_settings_changed AFTER UPDATE OF gpu_hour_factor ON @extschema@.clusters
    FOR EACH ROW WHEN (OLD.gpu_hour_factor IS DISTINCT FROM NEW.gpu_hour_factor)
    EXECUTE FUNCTION @extschema@_internal._core_settings_changed();
CREATE TRIGGER core_settings_changed AFTER UPDATE OF whole_node, cores_per_node ON @extschema@.partitions
    FOR EACH ROW WHEN (OLD.whole_node IS DISTINCT FROM NEW.whole_node OR OLD.cores_per_node IS DISTINCT FROM NEW.cores_per_node)
    EXECUTE FUNCTION @extschema@_internal._core_settings_changed();

CREATE FUNCTION @extschema@.cluster_usage_between(cluster text, time_from timestamptz, time_to timestamptz)
RETURNS SETOF @extschema@.cluster_usage_hourly
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the range is checked first, whatever the clusters (_report_check_args)
    SELECT @extschema@_internal._report_range(time_from, time_to);
    WITH r AS (SELECT * FROM @extschema@_internal._report_range(time_from, time_to)),
    b AS (SELECT k.cluster, r.f, r.t, x.d0, x.d1, x.m0, x.m1
            FROM @extschema@.clusters k CROSS JOIN r
           CROSS JOIN LATERAL @extschema@_internal._rollup_bounds(k.timezone, r.f, r.t) x
           WHERE cluster_usage_between.cluster IS NULL OR k.cluster OPERATOR(pg_catalog.=) cluster_usage_between.cluster)
    SELECT u.* FROM b JOIN @extschema@.cluster_usage_monthly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND u.period_start OPERATOR(pg_catalog.>=) b.m0 AND u.period_start OPERATOR(pg_catalog.<) b.m1
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.cluster_usage_daily u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.d0 AND u.period_start OPERATOR(pg_catalog.<) b.m0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.m1 AND u.period_start OPERATOR(pg_catalog.<) b.d1))
    UNION ALL
    SELECT u.* FROM b JOIN @extschema@.cluster_usage_hourly u ON u.cluster OPERATOR(pg_catalog.=) b.cluster
       AND ((u.period_start OPERATOR(pg_catalog.>=) b.f AND u.period_start OPERATOR(pg_catalog.<) b.d0)
            OR (u.period_start OPERATOR(pg_catalog.>=) b.d1 AND u.period_start OPERATOR(pg_catalog.<) b.t));
END;
COMMENT ON FUNCTION @extschema@.cluster_usage_between(text, timestamptz, timestamptz) IS
'The cluster rollup rows that make up [time_from, time_to) (whole hours) of a cluster (NULL: every one), from the coarsest rollups that cover it.';

-- One TRES's seconds of a usage row.
CREATE FUNCTION @extschema@_internal._usage_tres_secs(u @extschema@.usage_hourly, tres text)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE tres WHEN 'cpu' THEN u.cpu_secs WHEN 'mem' THEN u.mem_secs WHEN 'node' THEN u.node_secs
                     WHEN 'billing' THEN u.billing_secs WHEN 'gres/gpu' THEN u.gpu_secs WHEN 'energy' THEN u.energy
                     ELSE 0 END;
END;
COMMENT ON FUNCTION @extschema@_internal._usage_tres_secs(@extschema@.usage_hourly, text) IS
'The TRES-seconds of one TRES (cpu, mem, node, billing, gres/gpu; energy: joules; fs/disk, vmem, pages: 0) in a usage rollup row.';

-- Monthly usage per account over a range, from the rollups: the report the
-- performance target is set on (docs/performance.md).  It reads
-- usage_monthly_by_account, already summed: a range scan of its key in
-- the order printed.
CREATE FUNCTION @extschema@.account_usage_monthly(time_from timestamptz, time_to timestamptz, cluster text DEFAULT NULL)
RETURNS TABLE (cluster text, month timestamptz, account text, cpu_hours float8, gpu_hours float8,
               billing_hours float8, jobs bigint, wait_hours float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- the range is checked first, whatever the data (_report_check_args)
    SELECT @extschema@_internal._report_check_range(time_from, time_to);
    SELECT u.cluster, u.period_start, u.account,
           u.cpu_secs::float8 OPERATOR(pg_catalog./) 3600, u.gpu_secs::float8 OPERATOR(pg_catalog./) 3600,
           u.billing_secs::float8 OPERATOR(pg_catalog./) 3600, u.jobs,
           u.wait_secs::float8 OPERATOR(pg_catalog./) 3600
      FROM @extschema@.usage_monthly_by_account u
      JOIN @extschema@.clusters k ON k.cluster OPERATOR(pg_catalog.=) u.cluster
     WHERE (account_usage_monthly.cluster IS NULL OR u.cluster OPERATOR(pg_catalog.=) account_usage_monthly.cluster)
       AND u.period_start OPERATOR(pg_catalog.>=) pg_catalog.date_trunc('month', time_from, k.timezone)
       AND u.period_start OPERATOR(pg_catalog.<) time_to
     ORDER BY u.cluster, u.period_start, u.account;
END;
COMMENT ON FUNCTION @extschema@.account_usage_monthly(timestamptz, timestamptz, text) IS
'Per cluster, month (of the cluster''s time zone) and account: CPU-, GPU- and billing-hours (suspended time left out), runs started and their wait in hours, read from usage_monthly_by_account.';

-- ---------------------------------------------------------------------------
-- sreport's reports (sreport -P prints the same cells: sql/sreport.sql)
-- ---------------------------------------------------------------------------

-- Each association's TRES-seconds over a range (jobs and reservations),
-- with the cluster's reported TRES-seconds (the total of Percent).
CREATE FUNCTION @extschema@_internal._assoc_usage(cluster text, time_from timestamptz, time_to timestamptz, tres text)
RETURNS TABLE (cluster text, account text, user_name text, tres text, tres_order integer,
               secs bigint, energy bigint, reported bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH t AS (SELECT * FROM @extschema@_internal._report_tres(tres, _assoc_usage.cluster)),
    u AS (SELECT * FROM @extschema@.usage_between(_assoc_usage.cluster, time_from, time_to)),
    -- (no total for node: slurmdbd keeps no node row for the cluster; an
    -- upgraded database may hold node rows until its hours are recomputed,
    -- docs/reports.md#rollups)
    rep AS (SELECT c.cluster, c.tres, sum(c.reported_secs)::bigint AS reported
              FROM @extschema@.cluster_usage_between(_assoc_usage.cluster, time_from, time_to) c
             WHERE c.tres OPERATOR(pg_catalog.<>) 'node'
             GROUP BY c.cluster, c.tres)
    SELECT u.cluster, u.account, u.user_name, t.tres, t.tres_order,
           sum(@extschema@_internal._usage_tres_secs(u::@extschema@.usage_hourly, t.tres))::bigint,
           sum(u.energy)::bigint, COALESCE(min(rep.reported), 0)
      FROM u CROSS JOIN t
      LEFT JOIN rep ON rep.cluster OPERATOR(pg_catalog.=) u.cluster AND rep.tres OPERATOR(pg_catalog.=) t.tres
     GROUP BY u.cluster, u.account, u.user_name, t.tres, t.tres_order;
END;
COMMENT ON FUNCTION @extschema@_internal._assoc_usage(text, timestamptz, timestamptz, text) IS
'Per association and TRES of a sreport -T list: TRES-seconds and energy over a range from the rollups, with the cluster''s reported TRES-seconds.';

-- sreport cluster AccountUtilizationByUser: the account tree, each
-- account with its subtree's usage, its users (first) and sub-accounts
-- (then), by name; root first with the whole cluster's.  accounts (sreport's
-- Accounts=): those accounts and their subtrees only, each asked account
-- not under another one starting a tree of its own, ordered by name.  tree:
-- the account names indented as sreport indents them, one space per level
-- below the report's top account, a user's line one space more than its
-- account's (docs/reports.md#the-sreport-reports).
CREATE FUNCTION @extschema@.sreport_account_utilization_by_user(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL,
        accounts text[] DEFAULT NULL, tree boolean DEFAULT false)
RETURNS TABLE (line bigint, cluster text, account text, login text, proper_name text, tres_name text,
               used text, energy text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@_internal._report_check_args(time_from, time_to, units, tres);
    WITH RECURSIVE a AS (SELECT * FROM @extschema@_internal._assoc_usage(sreport_account_utilization_by_user.cluster, time_from, time_to, tres)),
    full_tree AS (
        SELECT k.cluster, k.account, ARRAY['1:' OPERATOR(pg_catalog.||) k.account] AS path,
               ARRAY[k.account] AS accounts
          FROM @extschema@.accounts k WHERE k.parent_account IS NULL
        UNION ALL
        SELECT k.cluster, k.account, full_tree.path OPERATOR(pg_catalog.||) ('1:' OPERATOR(pg_catalog.||) k.account),
               full_tree.accounts OPERATOR(pg_catalog.||) k.account
          FROM @extschema@.accounts k
          JOIN full_tree ON k.cluster OPERATOR(pg_catalog.=) full_tree.cluster AND k.parent_account OPERATOR(pg_catalog.=) full_tree.account
    ),
    -- the accounts reported: every one (from root), or those under an asked
    -- one, with their path and depth from the highest asked account above
    -- them (top: its place in their line of ancestors)
    tree AS (
        SELECT f.cluster, f.account, f.accounts, f.path[top.i:] AS path,
               pg_catalog.cardinality(f.accounts) OPERATOR(pg_catalog.-) top.i AS depth
          FROM full_tree f
         CROSS JOIN LATERAL (SELECT min(g.i) AS i FROM pg_catalog.generate_subscripts(f.accounts, 1) AS g (i)
                              WHERE sreport_account_utilization_by_user.accounts IS NULL
                                 OR f.accounts[g.i] OPERATOR(pg_catalog.=) ANY (sreport_account_utilization_by_user.accounts)) top
         WHERE top.i IS NOT NULL
    ),
    rows_ AS (
        -- an account: its subtree (its own association and every one below)
        SELECT tree.cluster, tree.account, ''::text AS login, tree.path, tree.depth, a.tres, a.tres_order,
               sum(a.secs)::bigint AS secs, sum(a.energy)::bigint AS energy, min(a.reported) AS reported
          FROM tree
          JOIN full_tree sub ON sub.cluster OPERATOR(pg_catalog.=) tree.cluster AND tree.account OPERATOR(pg_catalog.=) ANY (sub.accounts)
          JOIN a ON a.cluster OPERATOR(pg_catalog.=) sub.cluster AND a.account OPERATOR(pg_catalog.=) sub.account
         GROUP BY tree.cluster, tree.account, tree.path, tree.depth, a.tres, a.tres_order
        UNION ALL
        -- a user in an account
        SELECT a.cluster, a.account, a.user_name, tree.path OPERATOR(pg_catalog.||) ('0:' OPERATOR(pg_catalog.||) a.user_name),
               tree.depth OPERATOR(pg_catalog.+) 1, a.tres, a.tres_order, a.secs, a.energy, a.reported
          FROM a JOIN tree ON tree.cluster OPERATOR(pg_catalog.=) a.cluster AND tree.account OPERATOR(pg_catalog.=) a.account
         WHERE a.user_name OPERATOR(pg_catalog.<>) ''
    )
    SELECT pg_catalog.row_number() OVER (ORDER BY r.cluster, r.path, r.tres_order),
           r.cluster,
           CASE WHEN sreport_account_utilization_by_user.tree
                THEN pg_catalog.repeat(' ', r.depth) OPERATOR(pg_catalog.||) r.account ELSE r.account END,
           r.login, COALESCE(i.proper_name, ''), r.tres,
           @extschema@.report_format(r.secs, r.reported, units),
           @extschema@.report_format(r.energy, r.reported, units)
      FROM rows_ r LEFT JOIN @extschema@.user_info i ON i.user_name OPERATOR(pg_catalog.=) r.login
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_account_utilization_by_user(timestamptz, timestamptz, text, text, text, text[], boolean) IS
'sreport cluster AccountUtilizationByUser from the rollups: per account (its subtree) and user in tree order, usage in a -t unit, per TRES of a -T list; accounts: those subtrees only (Accounts=); tree: names indented as sreport''s tree.';

-- sreport cluster UserUtilizationByAccount: each user in each account,
-- the most used first.
CREATE FUNCTION @extschema@.sreport_user_utilization_by_account(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL)
RETURNS TABLE (line bigint, cluster text, login text, proper_name text, account text, tres_name text,
               used text, energy text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@_internal._report_check_args(time_from, time_to, units, tres);
    WITH a AS (SELECT x.*, pg_catalog.first_value(x.secs) OVER (PARTITION BY x.cluster, x.account, x.user_name ORDER BY x.tres_order) AS rank_secs
                 FROM @extschema@_internal._assoc_usage(sreport_user_utilization_by_account.cluster, time_from, time_to, tres) x
                WHERE x.user_name OPERATOR(pg_catalog.<>) '')
    SELECT pg_catalog.row_number() OVER (ORDER BY a.cluster, a.rank_secs DESC, a.user_name, a.account, a.tres_order),
           a.cluster, a.user_name, COALESCE(i.proper_name, ''), a.account, a.tres,
           @extschema@.report_format(a.secs, a.reported, units), @extschema@.report_format(a.energy, a.reported, units)
      FROM a LEFT JOIN @extschema@.user_info i ON i.user_name OPERATOR(pg_catalog.=) a.user_name
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_user_utilization_by_account(timestamptz, timestamptz, text, text, text) IS
'sreport cluster UserUtilizationByAccount from the rollups: each user in each account, the most used first, in a -t unit, per TRES of a -T list.';

CREATE FUNCTION @extschema@_internal._report_check_count(n integer)
RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN n IS NULL OR n OPERATOR(pg_catalog.<) 1
                THEN @extschema@_internal._raise('22023', pg_catalog.format('top_count must be 1 or more, not %s', COALESCE(n::text, 'NULL')),
                                        'sreport''s TopCount: how many users to list (10 by default).', NULL::integer)
                ELSE n END;
END;
COMMENT ON FUNCTION @extschema@_internal._report_check_count(integer) IS 'n when it is 1 or more; raises 22023 naming it otherwise.';

-- sreport user TopUsage: the top_count users (each account apart, or all
-- of a user's accounts together with group), the most used first.
CREATE FUNCTION @extschema@.sreport_top_usage(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL,
        top_count integer DEFAULT 10, "group" boolean DEFAULT false)
RETURNS TABLE (line bigint, cluster text, login text, proper_name text, account text, tres_name text,
               used text, energy text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@_internal._report_check_args(time_from, time_to, units, tres), @extschema@_internal._report_check_count(top_count);
    WITH a AS (SELECT x.cluster, x.user_name,
                      CASE WHEN sreport_top_usage."group" THEN '' ELSE x.account END AS grp,
                      -- joined with ', ', as sreport prints them (docs/reports.md#the-sreport-reports)
                      pg_catalog.string_agg(x.account, ', ' ORDER BY x.account) AS account,
                      x.tres, x.tres_order, sum(x.secs)::bigint AS secs, sum(x.energy)::bigint AS energy,
                      min(x.reported) AS reported
                 FROM @extschema@_internal._assoc_usage(sreport_top_usage.cluster, time_from, time_to, tres) x
                WHERE x.user_name OPERATOR(pg_catalog.<>) ''
                GROUP BY 1, 2, 3, 5, 6),
    ranked AS (SELECT a.*, pg_catalog.first_value(a.secs) OVER (PARTITION BY a.cluster, a.user_name, a.grp ORDER BY a.tres_order) AS rank_secs
                 FROM a),
    top AS (SELECT r.cluster, r.user_name, r.grp,
                   pg_catalog.row_number() OVER (PARTITION BY r.cluster ORDER BY r.rank_secs DESC, r.user_name, r.grp) AS n
              FROM ranked r WHERE r.tres_order OPERATOR(pg_catalog.=) (SELECT min(x.tres_order) FROM ranked x))
    SELECT pg_catalog.row_number() OVER (ORDER BY r.cluster, top.n, r.tres_order),
           r.cluster, r.user_name, COALESCE(i.proper_name, ''), r.account, r.tres,
           @extschema@.report_format(r.secs, r.reported, units), @extschema@.report_format(r.energy, r.reported, units)
      FROM ranked r
      JOIN top ON top.cluster OPERATOR(pg_catalog.=) r.cluster AND top.user_name OPERATOR(pg_catalog.=) r.user_name
              AND top.grp OPERATOR(pg_catalog.=) r.grp
      LEFT JOIN @extschema@.user_info i ON i.user_name OPERATOR(pg_catalog.=) r.user_name
     WHERE top.n OPERATOR(pg_catalog.<=) @extschema@_internal._report_check_count(top_count)
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_top_usage(timestamptz, timestamptz, text, text, text, integer, boolean) IS
'sreport user TopUsage from the rollups: the top_count users by usage (each account apart; group: all their accounts together), in a -t unit, per TRES of a -T list.';

-- sreport cluster Utilization: allocated, down, planned down, idle,
-- planned and reported, per TRES; and the fields of its format= that the
-- default leaves out: OverCommitted (over_committed: allocated, down,
-- planned down and planned beyond reported) and TresCount (tres_count: the
-- count the cluster registered, its TRES-seconds reported over the window's
-- seconds, rounded down as sreport divides its sum of counts).  A row for
-- each TRES the cluster registered (docs/reports.md#the-sreport-reports).
-- plnd_down is the planned-down time on every release, as format=PlannedDown
-- prints it; sreport 24.11's default field list prints the planned time
-- in that place instead (docs/slurm.md#sreport-total-count-and-planned-printed-twice).
CREATE FUNCTION @extschema@.sreport_cluster_utilization(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT 'cpu', cluster text DEFAULT NULL)
RETURNS TABLE (line bigint, cluster text, tres_name text, allocated text, down text, plnd_down text,
               idle text, planned text, reported text, over_committed text, tres_count bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@_internal._report_check_args(time_from, time_to, units, tres);
    WITH t AS (SELECT * FROM @extschema@_internal._report_tres(tres, sreport_cluster_utilization.cluster)),
    r AS (SELECT * FROM @extschema@_internal._report_range(time_from, time_to)),
    s AS (SELECT c.cluster, c.tres, sum(c.alloc_secs)::bigint AS alloc, sum(c.down_secs)::bigint AS down,
                 sum(c.pdown_secs)::bigint AS pdown, sum(c.idle_secs)::bigint AS idle,
                 sum(c.planned_secs)::bigint AS planned, sum(c.reported_secs)::bigint AS reported,
                 sum(c.over_secs)::bigint AS over
            FROM @extschema@.cluster_usage_between(sreport_cluster_utilization.cluster, time_from, time_to) c
           -- never a node line, as sreport (an upgraded database may hold
           -- node rows until its hours are recomputed, docs/reports.md#rollups)
           WHERE c.tres OPERATOR(pg_catalog.<>) 'node'
           GROUP BY c.cluster, c.tres)
    SELECT pg_catalog.row_number() OVER (ORDER BY s.cluster, t.tres_order), s.cluster, s.tres,
           @extschema@.report_format(s.alloc, s.reported, units), @extschema@.report_format(s.down, s.reported, units),
           @extschema@.report_format(s.pdown, s.reported, units), @extschema@.report_format(s.idle, s.reported, units),
           @extschema@.report_format(s.planned, s.reported, units), @extschema@.report_format(s.reported, s.reported, units),
           @extschema@.report_format(s.over, s.reported, units),
           s.reported OPERATOR(pg_catalog./) extract(epoch FROM r.t OPERATOR(pg_catalog.-) r.f)::bigint
      FROM s JOIN t ON t.tres OPERATOR(pg_catalog.=) s.tres CROSS JOIN r
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_cluster_utilization(timestamptz, timestamptz, text, text, text) IS
'sreport cluster Utilization from the rollups: allocated, down, planned down (maintenance reservations), idle, planned (eligible jobs waiting, CPUs), reported, over-committed and the TRES count, in a -t unit, per TRES of a -T list.';



-- sreport's grouping=: ascending positive CPU counts, at most
-- max_size_groups (100): each group is a column of every row, and a
-- reader must not be able to ask for an unbounded report
-- (docs/reports.md#bad-input).
CREATE FUNCTION @extschema@_internal._report_check_groups(cpu_groups integer[])
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    i integer;
    max_size_groups constant integer := 100;
BEGIN
    IF COALESCE(cardinality(cpu_groups), 0) = 0 OR array_position(cpu_groups, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'grouping must be a list of CPU counts, not %', COALESCE(cpu_groups::text, 'NULL')
            USING ERRCODE = '22023', HINT = 'As sreport''s grouping=: ascending CPU counts, e.g. {50,250,500,1000}.';
    END IF;
    IF cardinality(cpu_groups) > max_size_groups THEN
        RAISE EXCEPTION 'grouping has % CPU counts, more than the % a report takes', cardinality(cpu_groups), max_size_groups
            USING ERRCODE = '54000',
                  HINT = 'Give at most 100 ascending CPU counts (sreport''s grouping=, e.g. {50,250,500,1000}): each is a column of every row.';
    END IF;
    FOR i IN 1 .. cardinality(cpu_groups) LOOP
        IF cpu_groups[i] < 1 OR (i > 1 AND cpu_groups[i] <= cpu_groups[i - 1]) THEN
            RAISE EXCEPTION 'grouping % is not a list of ascending positive CPU counts (at %)', cpu_groups, cpu_groups[i]
                USING ERRCODE = '22023', HINT = 'As sreport''s grouping=: ascending CPU counts, e.g. {50,250,500,1000}.';
        END IF;
    END LOOP;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._report_check_groups(integer[]) IS
'true for a list of ascending positive CPU counts (sreport''s grouping=); raises 22023 naming the list otherwise.';

-- The size buckets of sreport's grouping= (ascending CPU counts): their
-- lower bounds and labels ("0-49 CPUs", ..., ">= 1000 CPUs").
CREATE FUNCTION @extschema@_internal._report_size_buckets(cpu_groups integer[])
RETURNS TABLE (bucket integer, lo integer, hi integer, label text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    i integer;
    n integer := COALESCE(cardinality(cpu_groups), 0);
BEGIN
    PERFORM @extschema@_internal._report_check_groups(cpu_groups);
    bucket := 1; lo := 0; hi := cpu_groups[1]; label := format('0-%s CPUs', cpu_groups[1] - 1);
    RETURN NEXT;
    FOR i IN 1 .. n - 1 LOOP
        bucket := i + 1; lo := cpu_groups[i]; hi := cpu_groups[i + 1];
        label := format('%s-%s CPUs', cpu_groups[i], cpu_groups[i + 1] - 1);
        RETURN NEXT;
    END LOOP;
    bucket := n + 1; lo := cpu_groups[n]; hi := NULL; label := format('>= %s CPUs', cpu_groups[n]);
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._report_size_buckets(integer[]) IS
'The job-size buckets of sreport''s grouping= with their labels; raises 22023 on a list that is not ascending positive CPU counts.';

-- sreport 24.11's Total Count of a SizesByAccount row: its TRES-seconds as
-- sreport_get_time_str() of src/sreport/common.c prints them against a
-- total of 0, which it takes as 1; so -t Percent prints secs x 100
-- (docs/slurm.md#sreport-total-count-and-planned-printed-twice).  The
-- percentage is computed in numeric: secs x 100 has no fraction.
CREATE FUNCTION @extschema@_internal._report_total_count(secs bigint, units text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE x.u
               WHEN 'percent' THEN x.pct
               WHEN 'secper' THEN secs::text OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) x.pct OPERATOR(pg_catalog.||) ')'
               WHEN 'minper' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 60)::bigint::text
                                  OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) x.pct OPERATOR(pg_catalog.||) ')'
               WHEN 'hourper' THEN pg_catalog.round(secs::float8 OPERATOR(pg_catalog./) 3600)::bigint::text
                                   OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) x.pct OPERATOR(pg_catalog.||) ')'
               ELSE @extschema@.report_format(secs, 1, x.u) END
      FROM (SELECT @extschema@_internal._report_units(units) AS u,
                   (secs::numeric OPERATOR(pg_catalog.*) 100)::text OPERATOR(pg_catalog.||) '.00%' AS pct) x;
END;
COMMENT ON FUNCTION @extschema@_internal._report_total_count(bigint, text) IS
'A SizesByAccount row''s TRES-seconds as sreport 24.11 prints its Total Count in a -t unit (against a total taken as 1: Percent is secs x 100).';

-- sreport job SizesByAccount: each account's jobs' CPU time (or number of
-- runs that ran in the window, job_count) by job size, and its share of the
-- cluster's.  sreport reads these from slurmdbd's job table (every run
-- with time in the window, cut to it); here they come from the rollups.
-- accounts NULL: root (every job); flat: each account's own jobs only.
-- individual (sreport's grouping=individual): a column per CPU count the
-- runs of the window had ("16 CPUs"), ascending; cpu_groups is not used.
-- total_count: sreport's "Total Count" column, which 24.11 prints and 22.05
-- does not: the row's total for a cluster whose slurm_version is 24.11,
-- NULL otherwise (docs/slurm.md#sreport-total-count-and-planned-printed-twice).
CREATE FUNCTION @extschema@.sreport_job_sizes_by_account(time_from timestamptz, time_to timestamptz,
        cpu_groups integer[] DEFAULT '{50,250,500,1000}', units text DEFAULT 'minutes',
        accounts text[] DEFAULT NULL, flat boolean DEFAULT false, job_count boolean DEFAULT false,
        cluster text DEFAULT NULL, individual boolean DEFAULT false)
RETURNS TABLE (line bigint, cluster text, account text, labels text[], sizes text[], total_count text, pct_of_cluster text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT @extschema@_internal._report_check_args(time_from, time_to, units, 'cpu'), @extschema@_internal._report_check_groups(cpu_groups);
    WITH RECURSIVE
    -- the runs that ran in the window, as sreport counts them: those
    -- started in it, and those already running at its start (the rows of
    -- its first period)
    u AS (SELECT x.cluster, x.account, x.cpus,
                 CASE WHEN NOT job_count THEN x.cpu_secs
                      WHEN x.period_start OPERATOR(pg_catalog.=) time_from THEN x.jobs OPERATOR(pg_catalog.+) x.jobs_at_start
                      ELSE x.jobs END AS v
            FROM @extschema@.usage_between(sreport_job_sizes_by_account.cluster, time_from, time_to) x
           WHERE x.partition OPERATOR(pg_catalog.<>) ''),
    -- the columns: the buckets of cpu_groups (bucket 1 to n + 1), or with
    -- individual each CPU count of the runs (bucket: the count), of the
    -- accounts asked for with flat (sreport then reads their jobs only)
    b AS (SELECT g.* FROM @extschema@_internal._report_size_buckets(cpu_groups) g WHERE NOT COALESCE(individual, false)
          UNION ALL
          SELECT DISTINCT u.cpus, u.cpus, u.cpus, u.cpus::text OPERATOR(pg_catalog.||) ' CPUs' FROM u
           WHERE COALESCE(individual, false) AND (NOT flat OR sreport_job_sizes_by_account.accounts IS NULL
                                 OR u.account OPERATOR(pg_catalog.=) ANY (sreport_job_sizes_by_account.accounts))),
    total AS (SELECT u.cluster, sum(u.v)::bigint AS v FROM u GROUP BY u.cluster),
    tree AS (
        SELECT k.cluster, k.account, ARRAY[k.account] AS accounts
          FROM @extschema@.accounts k WHERE k.parent_account IS NULL
        UNION ALL
        SELECT k.cluster, k.account, tree.accounts OPERATOR(pg_catalog.||) k.account
          FROM @extschema@.accounts k
          JOIN tree ON k.cluster OPERATOR(pg_catalog.=) tree.cluster AND k.parent_account OPERATOR(pg_catalog.=) tree.account
    ),
    -- the rows: each account asked for (root by default) with its subtree,
    -- or with flat each account with its own jobs
    picked AS (
        SELECT t.cluster, t.account AS head, sub.account
          FROM tree t JOIN tree sub ON sub.cluster OPERATOR(pg_catalog.=) t.cluster AND t.account OPERATOR(pg_catalog.=) ANY (sub.accounts)
         WHERE NOT flat AND t.account OPERATOR(pg_catalog.=) ANY (COALESCE(sreport_job_sizes_by_account.accounts, ARRAY['root']))
        UNION ALL
        SELECT t.cluster, t.account, t.account FROM tree t
         WHERE flat AND (sreport_job_sizes_by_account.accounts IS NULL OR t.account OPERATOR(pg_catalog.=) ANY (sreport_job_sizes_by_account.accounts))
    ),
    -- each row's bucket found by a binary search of the CPU counts
    -- (width_bucket: 0 below the first, i from the i-th on), summed once;
    -- then every bucket of every row, the empty ones too.  (A join on
    -- the bucket's bounds compared every rollup row with every bucket.)
    sized AS (
        SELECT q.cluster, q.head,
               CASE WHEN COALESCE(individual, false) THEN u.cpus ELSE pg_catalog.width_bucket(u.cpus, cpu_groups) OPERATOR(pg_catalog.+) 1 END AS bucket,
               sum(u.v) AS v
          FROM picked q JOIN u ON u.cluster OPERATOR(pg_catalog.=) q.cluster AND u.account OPERATOR(pg_catalog.=) q.account
         GROUP BY 1, 2, 3
    ),
    cells AS (
        SELECT p.cluster, p.head, b.bucket, b.label, COALESCE(s.v, 0)::bigint AS v
          FROM (SELECT DISTINCT p.cluster, p.head FROM picked p) p
         CROSS JOIN b
          LEFT JOIN sized s ON s.cluster OPERATOR(pg_catalog.=) p.cluster AND s.head OPERATOR(pg_catalog.=) p.head
                           AND s.bucket OPERATOR(pg_catalog.=) b.bucket
    )
    SELECT pg_catalog.row_number() OVER (ORDER BY c.cluster, c.head), c.cluster, c.head,
           pg_catalog.array_agg(c.label ORDER BY c.bucket),
           pg_catalog.array_agg(CASE WHEN job_count THEN c.v::text
                                     ELSE @extschema@.report_format(c.v, total.v, units) END ORDER BY c.bucket),
           -- Total Count, for a cluster that runs 24.11 only
           -- (docs/slurm.md#sreport-total-count-and-planned-printed-twice)
           CASE WHEN k.slurm_version OPERATOR(pg_catalog.=) '24.11'
                THEN CASE WHEN job_count THEN sum(c.v)::bigint::text
                          ELSE @extschema@_internal._report_total_count(sum(c.v)::bigint, units) END END,
           @extschema@_internal._report_percent(sum(c.v)::bigint, total.v)
      FROM cells c JOIN total ON total.cluster OPERATOR(pg_catalog.=) c.cluster
      LEFT JOIN @extschema@.clusters k ON k.cluster OPERATOR(pg_catalog.=) c.cluster
     WHERE NOT flat OR c.head IN (SELECT u.account FROM u WHERE u.cluster OPERATOR(pg_catalog.=) c.cluster)
     GROUP BY c.cluster, c.head, total.v, k.slurm_version
     ORDER BY 1;
END;
COMMENT ON FUNCTION @extschema@.sreport_job_sizes_by_account(timestamptz, timestamptz, integer[], text, text[], boolean, boolean, text, boolean) IS
'sreport job SizesByAccount from the rollups: per account (root by default, its subtree; flat: its own jobs), CPU time of the jobs by size bucket of grouping= (individual: by CPU count) in a -t unit (job_count: the runs that ran in the window), the row''s Total Count on a cluster that runs Slurm 24.11, and the share of the cluster''s.';

-- A span of seconds as sreport prints its TotalTime and TRES Time fields
-- (Slurm's secs2time_str): [days-]HH:MM:SS.
CREATE FUNCTION @extschema@_internal._report_duration(secs bigint)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN secs IS NULL THEN NULL
                WHEN secs OPERATOR(pg_catalog.<) 0 THEN 'INVALID'
                ELSE CASE WHEN secs OPERATOR(pg_catalog./) 86400 OPERATOR(pg_catalog.>) 0
                          THEN (secs OPERATOR(pg_catalog./) 86400)::text OPERATOR(pg_catalog.||) '-' ELSE '' END
                     OPERATOR(pg_catalog.||) pg_catalog.lpad((secs OPERATOR(pg_catalog./) 3600 OPERATOR(pg_catalog.%) 24)::text, 2, '0')
                     OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.lpad((secs OPERATOR(pg_catalog./) 60 OPERATOR(pg_catalog.%) 60)::text, 2, '0')
                     OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) pg_catalog.lpad((secs OPERATOR(pg_catalog.%) 60)::text, 2, '0')
           END;
END;
COMMENT ON FUNCTION @extschema@_internal._report_duration(bigint) IS
'Seconds as sreport prints a duration field: [days-]HH:MM:SS.';

-- sreport reservation Utilization: a row per reservation of the window and
-- TRES of the reservation (docs/reports.md#sreport-reservation-utilization).
-- It reads the reservations and the runs, not the rollups, as slurmdbd
-- answers it from its reservation and job tables: a reservation is listed
-- when it starts before the window's end and ends at or after its start,
-- with its whole life (not cut to the window); allocated is what the runs
-- of the reservation held of each TRES (their own counts) times their
-- seconds inside the reservation; idle is the reservation's count times its
-- seconds, less that, never below 0.  (The association reports charge the
-- idle time of a reservation at the reservation's size: docs/reports.md#rollups.)
-- The rows are computed by a PL/pgSQL function: they read the runs, and
-- Citus plans no query that reads a distributed table with the parameters
-- of a SQL function it is not inlined into (this one checked its arguments
-- first, in a statement of its own); PL/pgSQL gives Citus its queries with
-- the values (docs/citus.md#what-citus-does-not-do-and-what-is-done-instead).
CREATE FUNCTION @extschema@_internal._sreport_reservation_rows(time_from timestamptz, time_to timestamptz,
        units text, tres text, in_cluster text)
RETURNS TABLE (line bigint, cluster text, name text, resv_id bigint, time_start timestamptz, time_end timestamptz,
               tres_name text, tres_count bigint, allocated text, idle text, total_time text, tres_time text,
               nodes text, flags text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    PERFORM @extschema@_internal._report_check_args(time_from, time_to, units, tres),
           CASE WHEN in_cluster IS NULL
                  OR EXISTS (SELECT FROM @extschema@.clusters k
                              WHERE k.cluster OPERATOR(pg_catalog.=) in_cluster)
                THEN true
                ELSE @extschema@_internal._raise('22023',
                        pg_catalog.format('sreport_reservation_utilization: cluster "%s" does not exist',
                                          in_cluster),
                        'Name a cluster of fairshare.clusters, or pass NULL for every cluster.', NULL::boolean) END;
    RETURN QUERY
    WITH r AS (SELECT * FROM @extschema@_internal._report_range(time_from, time_to)),
    -- the reservations slurmdbd lists for the window; one of no length
    -- prints nothing (sreport skips it)
    v AS (SELECT v.cluster, v.resv_id, v.name, v.time_start, v.time_end, v.tres, v.nodes, v.flags,
                 (pg_catalog.floor(extract(epoch FROM v.time_end)) OPERATOR(pg_catalog.-) pg_catalog.floor(extract(epoch FROM v.time_start)))::bigint AS secs
            FROM @extschema@.reservations v CROSS JOIN r
           WHERE (in_cluster IS NULL
                  OR v.cluster OPERATOR(pg_catalog.=) in_cluster)
             AND v.time_start OPERATOR(pg_catalog.<) r.t AND v.time_end OPERATOR(pg_catalog.>=) r.f
             AND v.time_end OPERATOR(pg_catalog.>) v.time_start),
    -- each TRES of the reservation, in the order of its TRES string (-T:
    -- only those of the list; none or ALL: every one)
    vt AS (SELECT v.*, pg_catalog.split_part(pg_catalog.btrim(i.item), '=', 1) AS tres_name, i.ord,
                  pg_catalog.round(@extschema@.tres_count(v.tres, pg_catalog.split_part(pg_catalog.btrim(i.item), '=', 1)))::bigint AS cnt
             FROM v CROSS JOIN LATERAL pg_catalog.string_to_table(v.tres, ',') WITH ORDINALITY AS i (item, ord)
            WHERE pg_catalog.btrim(i.item) OPERATOR(pg_catalog.<>) ''
              AND (_sreport_reservation_rows.tres IS NULL
                   OR pg_catalog.lower(pg_catalog.btrim(_sreport_reservation_rows.tres)) OPERATOR(pg_catalog.=) 'all'
                   OR pg_catalog.lower(pg_catalog.split_part(pg_catalog.btrim(i.item), '=', 1)) IN
                      (SELECT t.tres FROM @extschema@_internal._report_tres_list(_sreport_reservation_rows.tres) t))),
    -- the runs of the reservation slurmdbd's job query returns for the
    -- reservation's life (eligible before its end, not ended before its
    -- start; of a job id's runs, the last submitted), each one's seconds
    -- inside the reservation, a running one's up to now
    runs AS (SELECT DISTINCT ON (v.cluster, v.resv_id, v.time_start, j.job_id)
                    v.cluster, v.resv_id, v.time_start, j.tres,
                    CASE WHEN j.start_time IS NULL THEN 0
                         ELSE pg_catalog.floor(extract(epoch FROM LEAST(COALESCE(j.end_time, v.time_end), v.time_end, pg_catalog.now())))::bigint
                              OPERATOR(pg_catalog.-) pg_catalog.floor(extract(epoch FROM GREATEST(j.start_time, v.time_start)))::bigint END AS secs
               FROM v JOIN @extschema@.jobs j ON j.cluster OPERATOR(pg_catalog.=) v.cluster AND j.resv_id OPERATOR(pg_catalog.=) v.resv_id
              WHERE j.eligible_time IS NOT NULL AND j.eligible_time OPERATOR(pg_catalog.<) v.time_end
                AND (j.end_time IS NULL OR j.end_time OPERATOR(pg_catalog.>=) v.time_start)
              ORDER BY v.cluster, v.resv_id, v.time_start, j.job_id, j.submit_time DESC),
    a AS (SELECT vt.cluster, vt.resv_id, vt.time_start, vt.ord,
                 COALESCE(sum(runs.secs OPERATOR(pg_catalog.*) pg_catalog.round(@extschema@.tres_count(runs.tres, vt.tres_name))::bigint)
                              FILTER (WHERE runs.secs OPERATOR(pg_catalog.>=) 1), 0)::bigint AS alloc
            FROM vt LEFT JOIN runs ON runs.cluster OPERATOR(pg_catalog.=) vt.cluster AND runs.resv_id OPERATOR(pg_catalog.=) vt.resv_id
                                  AND runs.time_start OPERATOR(pg_catalog.=) vt.time_start AND runs.tres IS NOT NULL
           GROUP BY 1, 2, 3, 4)
    SELECT pg_catalog.row_number() OVER (ORDER BY vt.cluster, vt.time_start, vt.name, vt.resv_id, vt.ord),
           vt.cluster, vt.name, vt.resv_id, vt.time_start, vt.time_end, vt.tres_name, vt.cnt,
           @extschema@.report_format(a.alloc, x.reported, units),
           @extschema@.report_format(GREATEST(x.reported OPERATOR(pg_catalog.-) a.alloc, 0), x.reported, units),
           @extschema@_internal._report_duration(vt.secs), @extschema@_internal._report_duration(x.reported),
           vt.nodes, vt.flags
      FROM vt JOIN a ON a.cluster OPERATOR(pg_catalog.=) vt.cluster AND a.resv_id OPERATOR(pg_catalog.=) vt.resv_id
                    AND a.time_start OPERATOR(pg_catalog.=) vt.time_start AND a.ord OPERATOR(pg_catalog.=) vt.ord
     CROSS JOIN LATERAL (SELECT vt.secs OPERATOR(pg_catalog.*) vt.cnt AS reported) x
     ORDER BY 1;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._sreport_reservation_rows(timestamptz, timestamptz, text, text, text) IS
'The rows of sreport_reservation_utilization, its arguments checked.';

CREATE FUNCTION @extschema@.sreport_reservation_utilization(time_from timestamptz, time_to timestamptz,
        units text DEFAULT 'minutes', tres text DEFAULT NULL, cluster text DEFAULT NULL)
RETURNS TABLE (line bigint, cluster text, name text, resv_id bigint, time_start timestamptz, time_end timestamptz,
               tres_name text, tres_count bigint, allocated text, idle text, total_time text, tres_time text,
               nodes text, flags text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT * FROM @extschema@_internal._sreport_reservation_rows(time_from, time_to, units, tres,
                                                                sreport_reservation_utilization.cluster);
END;
COMMENT ON FUNCTION @extschema@.sreport_reservation_utilization(timestamptz, timestamptz, text, text, text) IS
'sreport reservation Utilization from the reservations and their runs: per reservation of the window (its whole life) and TRES (-T; NULL: every TRES of the reservation), what its runs allocated and what they left idle, in a -t unit, with the fields of its format=.';

-- ---------------------------------------------------------------------------
-- Events and reservations in from sacctmgr
-- ---------------------------------------------------------------------------

-- One export's header and lines: the position of each column, by name.
CREATE FUNCTION @extschema@_internal._psv_columns(export text, required text[], what text)
RETURNS TABLE (line integer, col text, val text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lines text[];
    header text[];
    missing text;
BEGIN
    IF export IS NULL OR btrim(export, E' \n\r\t') = '' THEN
        RAISE EXCEPTION '%: the export is empty', what
            USING ERRCODE = '22023', HINT = 'Pass what sacctmgr -P printed, its header line first.';
    END IF;
    lines := regexp_split_to_array(rtrim(replace(export, E'\r', ''), E'\n'), E'\n');
    header := string_to_array(lines[1], '|');
    SELECT string_agg(r, ', ') INTO missing FROM unnest(required) r
     WHERE NOT lower(r) = ANY (SELECT lower(h) FROM unnest(header) h);
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION '%: the header "%" has no column %', what, lines[1], missing
            USING ERRCODE = '22023', HINT = 'Export with sacctmgr -P and a format= that names them (docs/reports.md).';
    END IF;
    RETURN QUERY
    SELECT l.n::integer, lower(h.name), NULLIF(f.val, '')
      FROM unnest(lines[2:]) WITH ORDINALITY AS l (txt, n)
     CROSS JOIN LATERAL unnest(string_to_array(l.txt, '|')) WITH ORDINALITY AS f (val, i)
      JOIN unnest(header) WITH ORDINALITY AS h (name, i) ON h.i = f.i
     WHERE l.txt <> '';
END
$$;
COMMENT ON FUNCTION @extschema@_internal._psv_columns(text, text[], text) IS
'The cells of a sacctmgr -P export by line and lower-cased column name; raises 22023 naming the columns it lacks.';

-- What the sacctmgr line parsers return for one line of an export
-- (import.c): kind event / reservation, other (another cluster's line),
-- header, blank, or reject with its sqlstate and reason.
CREATE TYPE @extschema@_internal._sacctmgr_event_line AS (
    kind text, node_name text, time_start timestamptz, time_end timestamptz, state text, state_raw bigint,
    tres text, event_reason text, user_ref text, sqlstate text, reason text);
CREATE TYPE @extschema@_internal._sacctmgr_reservation_line AS (
    kind text, id text, resv_id bigint, name text, time_start timestamptz, time_end timestamptz,
    flags text, tres text, nodes text, assocs text, sqlstate text, reason text);

-- VOLATILE: a later header changes how the lines after it read, so the
-- lines must be passed in file order, in one scan.  A header the import
-- cannot read raises 22023 naming the columns it lacks.
CREATE FUNCTION @extschema@_internal._sacctmgr_event_line(line text, header text, time_zone text, cluster text,
                                                          accounting_start timestamptz, horizon timestamptz)
RETURNS @extschema@_internal._sacctmgr_event_line
AS 'MODULE_PATHNAME', 'fs_sacctmgr_event_line'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sacctmgr_event_line(text, text, text, text, timestamptz, timestamptz) IS
'One line of a sacctmgr show event -P export, read through its header: kind event, other (another cluster''s), header, blank or reject (with sqlstate and reason).';

CREATE FUNCTION @extschema@_internal._sacctmgr_reservation_line(line text, header text, time_zone text, cluster text,
                                                                accounting_start timestamptz, horizon timestamptz)
RETURNS @extschema@_internal._sacctmgr_reservation_line
AS 'MODULE_PATHNAME', 'fs_sacctmgr_reservation_line'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sacctmgr_reservation_line(text, text, text, text, timestamptz, timestamptz) IS
'One line of a sacctmgr show reservation -P export, read through its header: kind reservation, other (another cluster''s), header, blank or reject (with sqlstate and reason); Assocs as printed.';


-- sacctmgr show event -P all_time format=Cluster,ClusterNodes,Event,
-- NodeName,TimeStart,TimeEnd,State,StateRaw,TRES,Reason,User: replaces the
-- events of the cluster that start at the same instants, and marks their
-- hours stale.
--
-- Each line is read once, in C, in file order (_sacctmgr_event_line),
-- through the export's header (a later header switches the columns), and
-- a line that cannot be stored is rejected with its reason into
-- import_rejects (the import is named in a WARNING); the other lines are
-- imported (docs/bad-input.md): an invalid byte, a time that is not one,
-- before the cluster's accounting_start or more than a year ahead, an end
-- before the start, a StateRaw that is not an integer, a TRES string the
-- rollups cannot read, a line whose fields do not match the header.
-- Stored, one "cpu=abc" would make every later refresh_rollups fail, for
-- every cluster.  Linear in the lines (docs/performance.md#sacctmgr-exports).
CREATE FUNCTION @extschema@.import_events(cluster text, export text, time_zone text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tz text;
    floor_at timestamptz;
    body text;
    n_lines bigint;
    n bigint;
BEGIN
    SELECT k.timezone, k.accounting_start INTO tz, floor_at
      FROM @extschema@.clusters k WHERE k.cluster = import_events.cluster;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'import_events: cluster "%" does not exist', import_events.cluster
            USING ERRCODE = '22023', HINT = 'Create it in fairshare.clusters first.';
    END IF;
    tz := @extschema@_internal._import_time_zone(COALESCE(time_zone, tz));
    IF export IS NULL OR btrim(export, E' \n\r\t') = '' THEN
        RAISE EXCEPTION 'import_events: the export is empty'
            USING ERRCODE = '22023', HINT = 'Pass what sacctmgr -P printed, its header line first.';
    END IF;
    body := rtrim(replace(export, E'\r', ''), E'\n');
    CREATE TEMP TABLE _fs_event_lines ON COMMIT DROP AS
    SELECT q.line_no, (q.r).*, q.line
      FROM (SELECT l.line_no, l.line,
                   @extschema@_internal._sacctmgr_event_line(l.line, split_part(body, E'\n', 1), tz, import_events.cluster,
                                                             floor_at, now() + interval '1 year') AS r
              FROM (SELECT x.line, x.line_no FROM string_to_table(body, E'\n') WITH ORDINALITY AS x (line, line_no)
                     ORDER BY x.line_no OFFSET 0) l
            OFFSET 0) q;
    CREATE TEMP TABLE _fs_text_rejects ON COMMIT DROP AS
    SELECT x.line_no, NULL::text AS job_id, x.sqlstate, x.reason, x.line
      FROM pg_temp._fs_event_lines x WHERE x.kind = 'reject';
    SELECT count(*) FILTER (WHERE x.kind IN ('event', 'reject', 'header')) INTO n_lines FROM pg_temp._fs_event_lines x;
    -- one line per event: a repeat of an event's start, the last one
    CREATE TEMP TABLE _fs_events ON COMMIT DROP AS
    SELECT DISTINCT ON (x.node_name, x.time_start) x.node_name, x.time_start, x.time_end, x.state, x.state_raw,
           x.tres, x.event_reason AS reason, x.user_ref
      FROM pg_temp._fs_event_lines x WHERE x.kind = 'event'
     ORDER BY x.node_name, x.time_start, x.line_no DESC;
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT import_events.cluster, tstzrange(date_trunc('hour', e.time_start),
                                            COALESCE(date_trunc('hour', e.time_end) + interval '1 hour', 'infinity'))
      FROM (SELECT x.time_start, x.time_end FROM pg_temp._fs_events x
            UNION ALL
            SELECT v.time_start, v.time_end FROM @extschema@.node_events v
              JOIN pg_temp._fs_events x ON v.cluster = import_events.cluster AND v.node_name = x.node_name
                                       AND v.time_start = x.time_start) e;
    INSERT INTO @extschema@.node_events AS v (cluster, node_name, time_start, time_end, state, state_raw, tres, reason, user_ref)
    SELECT import_events.cluster, e.node_name, e.time_start, e.time_end, e.state, e.state_raw, e.tres, e.reason, e.user_ref
      FROM pg_temp._fs_events e
    ON CONFLICT ON CONSTRAINT node_events_pkey DO UPDATE
       SET time_end = EXCLUDED.time_end, state = EXCLUDED.state, state_raw = EXCLUDED.state_raw,
           tres = EXCLUDED.tres, reason = EXCLUDED.reason, user_ref = EXCLUDED.user_ref;
    GET DIAGNOSTICS n = ROW_COUNT;
    PERFORM @extschema@_internal._import_text_done('events', import_events.cluster, tz, n_lines, n);
    DROP TABLE pg_temp._fs_events, pg_temp._fs_event_lines;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_events(text, text, text) IS
'Imports a sacctmgr show event -P export (the cluster''s TRES and its nodes'' down times) into node_events and marks their hours stale; returns the events written.';

-- sacctmgr show reservation -P format=Cluster,Name,ID,TRES,TimeStart,
-- TimeEnd,Flags,NodeNames,UnusedWall,Associations; associations: the
-- sacctmgr show assoc -P export with ID, Account and User that maps the
-- Assocs ids to accounts and users.
--
-- Each line is read as import_events reads its lines
-- (_sacctmgr_reservation_line), and rejected alone with its reason (an ID
-- that is not a number, a missing or bad time, one before the cluster's
-- accounting_start or more than a year ahead, an end before the start, a
-- TRES string the rollups cannot read, an Assocs id the association
-- export does not have); the others are imported (docs/bad-input.md).
CREATE FUNCTION @extschema@.import_reservations(cluster text, export text, associations text DEFAULT NULL,
                                                time_zone text DEFAULT NULL)
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tz text;
    floor_at timestamptz;
    body text;
    n_lines bigint;
    n bigint;
BEGIN
    SELECT k.timezone, k.accounting_start INTO tz, floor_at
      FROM @extschema@.clusters k WHERE k.cluster = import_reservations.cluster;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'import_reservations: cluster "%" does not exist', import_reservations.cluster
            USING ERRCODE = '22023', HINT = 'Create it in fairshare.clusters first.';
    END IF;
    tz := @extschema@_internal._import_time_zone(COALESCE(time_zone, tz));
    IF export IS NULL OR btrim(export, E' \n\r\t') = '' THEN
        RAISE EXCEPTION 'import_reservations: the export is empty'
            USING ERRCODE = '22023', HINT = 'Pass what sacctmgr -P printed, its header line first.';
    END IF;
    body := rtrim(replace(export, E'\r', ''), E'\n');
    CREATE TEMP TABLE _fs_resv_lines ON COMMIT DROP AS
    SELECT q.line_no, (q.r).*, q.line
      FROM (SELECT l.line_no, l.line,
                   @extschema@_internal._sacctmgr_reservation_line(l.line, split_part(body, E'\n', 1), tz,
                                                                   import_reservations.cluster, floor_at,
                                                                   now() + interval '1 year') AS r
              FROM (SELECT x.line, x.line_no FROM string_to_table(body, E'\n') WITH ORDINALITY AS x (line, line_no)
                     ORDER BY x.line_no OFFSET 0) l
            OFFSET 0) q;
    -- the association export: a lookup, read as a whole
    CREATE TEMP TABLE _fs_assoc ON COMMIT DROP AS
    SELECT max(c.val) FILTER (WHERE c.col = 'id') AS id,
           btrim(max(c.val) FILTER (WHERE c.col = 'account')) AS account,
           COALESCE(max(c.val) FILTER (WHERE c.col = 'user'), '') AS user_name
      FROM @extschema@_internal._psv_columns(COALESCE(associations, E'ID|Account|User\n'), ARRAY['ID', 'Account', 'User'],
                                    'import_reservations (associations)') c
     GROUP BY c.line;
    -- a reservation naming an association the export does not have
    UPDATE pg_temp._fs_resv_lines l
       SET kind = 'reject', sqlstate = '23503', reason = format('association ids %s are not in the association export', b.bad)
      FROM (SELECT x.line_no, string_agg(DISTINCT a, ', ') AS bad
              FROM pg_temp._fs_resv_lines x CROSS JOIN LATERAL unnest(string_to_array(x.assocs, ',')) a
             WHERE x.kind = 'reservation' AND NOT EXISTS (SELECT FROM pg_temp._fs_assoc y WHERE y.id = btrim(a))
             GROUP BY x.line_no) b
     WHERE l.line_no = b.line_no;
    CREATE TEMP TABLE _fs_text_rejects ON COMMIT DROP AS
    SELECT x.line_no, x.id AS job_id, x.sqlstate, x.reason, x.line
      FROM pg_temp._fs_resv_lines x WHERE x.kind = 'reject';
    SELECT count(*) FILTER (WHERE x.kind IN ('reservation', 'reject', 'header')) INTO n_lines FROM pg_temp._fs_resv_lines x;
    -- one line per reservation: a repeat of one, the last one
    CREATE TEMP TABLE _fs_resv ON COMMIT DROP AS
    SELECT DISTINCT ON (x.resv_id, x.time_start) x.resv_id, x.name, x.time_start, x.time_end, x.flags, x.tres, x.nodes,
           string_to_array(x.assocs, ',') AS assoc_ids
      FROM pg_temp._fs_resv_lines x WHERE x.kind = 'reservation'
     ORDER BY x.resv_id, x.time_start, x.line_no DESC;
    INSERT INTO @extschema@.rollup_dirty (cluster, hours)
    SELECT import_reservations.cluster,
           tstzrange(date_trunc('hour', e.time_start), date_trunc('hour', e.time_end) + interval '1 hour')
      FROM (SELECT x.time_start, x.time_end FROM pg_temp._fs_resv x
            UNION ALL
            SELECT v.time_start, v.time_end FROM @extschema@.reservations v
              JOIN pg_temp._fs_resv x ON v.cluster = import_reservations.cluster AND v.resv_id = x.resv_id
                                     AND v.time_start = x.time_start) e;
    INSERT INTO @extschema@.reservations AS v (cluster, resv_id, name, time_start, time_end, flags, tres, nodes, accounts, users)
    SELECT import_reservations.cluster, e.resv_id, e.name, e.time_start, e.time_end, e.flags, e.tres, e.nodes,
           COALESCE((SELECT array_agg(x.account ORDER BY o.n) FROM unnest(e.assoc_ids) WITH ORDINALITY o (id, n)
                       JOIN pg_temp._fs_assoc x ON x.id = btrim(o.id)), '{}'),
           COALESCE((SELECT array_agg(x.user_name ORDER BY o.n) FROM unnest(e.assoc_ids) WITH ORDINALITY o (id, n)
                       JOIN pg_temp._fs_assoc x ON x.id = btrim(o.id)), '{}')
      FROM pg_temp._fs_resv e
    ON CONFLICT ON CONSTRAINT reservations_pkey DO UPDATE
       SET name = EXCLUDED.name, time_end = EXCLUDED.time_end, flags = EXCLUDED.flags, tres = EXCLUDED.tres,
           nodes = EXCLUDED.nodes, accounts = EXCLUDED.accounts, users = EXCLUDED.users;
    GET DIAGNOSTICS n = ROW_COUNT;
    PERFORM @extschema@_internal._import_text_done('reservations', import_reservations.cluster, tz, n_lines, n);
    DROP TABLE pg_temp._fs_resv, pg_temp._fs_resv_lines, pg_temp._fs_assoc;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_reservations(text, text, text, text) IS
'Imports a sacctmgr show reservation -P export into reservations (its Assocs mapped to accounts and users through a sacctmgr show assoc -P export) and marks their hours stale; returns the reservations written.';

-- ---------------------------------------------------------------------------
-- BI shapes (docs/reports.md#bi-tools).  BI tools (Metabase, Superset,
-- Tableau, Power BI, Excel) read through the PostgreSQL JDBC driver or
-- psqlODBC and chart a time column against numeric measures.  The drivers
-- map an interval or an array to a type those tools do not chart (JDBC's
-- OTHER and ARRAY), and the rollups count seconds.  So these views and
-- functions give the same figures as scalar columns: hours as float8
-- (seconds / 3600), an interval as its seconds, an array as one row per
-- element.  They add to the reports; the reports themselves are unchanged.
-- ---------------------------------------------------------------------------

-- The usage rollups as time series: one row per period and key, the
-- measures in hours (TRES-seconds / 3600; memory in MiB-hours, energy in
-- joules as recorded).
CREATE VIEW @extschema@.bi_usage_hourly AS
SELECT u.period_start, u.cluster, u.account, u.user_name, u.partition, u.qos, u.cpus,
       u.run_secs::float8 OPERATOR(pg_catalog./) 3600 AS run_hours,
       u.cpu_secs::float8 OPERATOR(pg_catalog./) 3600 AS cpu_hours,
       u.mem_secs::float8 OPERATOR(pg_catalog./) 3600 AS mem_mb_hours,
       u.node_secs::float8 OPERATOR(pg_catalog./) 3600 AS node_hours,
       u.billing_secs::float8 OPERATOR(pg_catalog./) 3600 AS billing_hours,
       u.gpu_secs::float8 OPERATOR(pg_catalog./) 3600 AS gpu_hours,
       u.energy AS energy_joules,
       u.suspended_secs::float8 OPERATOR(pg_catalog./) 3600 AS suspended_hours,
       u.jobs,
       u.wait_secs::float8 OPERATOR(pg_catalog./) 3600 AS wait_hours
  FROM @extschema@.usage_hourly u;
COMMENT ON VIEW @extschema@.bi_usage_hourly IS
'usage_hourly as a time series for BI tools: period_start, the key, and the measures in hours (seconds / 3600).';

CREATE VIEW @extschema@.bi_usage_daily AS
SELECT u.period_start, u.cluster, u.account, u.user_name, u.partition, u.qos, u.cpus,
       u.run_secs::float8 OPERATOR(pg_catalog./) 3600 AS run_hours,
       u.cpu_secs::float8 OPERATOR(pg_catalog./) 3600 AS cpu_hours,
       u.mem_secs::float8 OPERATOR(pg_catalog./) 3600 AS mem_mb_hours,
       u.node_secs::float8 OPERATOR(pg_catalog./) 3600 AS node_hours,
       u.billing_secs::float8 OPERATOR(pg_catalog./) 3600 AS billing_hours,
       u.gpu_secs::float8 OPERATOR(pg_catalog./) 3600 AS gpu_hours,
       u.energy AS energy_joules,
       u.suspended_secs::float8 OPERATOR(pg_catalog./) 3600 AS suspended_hours,
       u.jobs,
       u.wait_secs::float8 OPERATOR(pg_catalog./) 3600 AS wait_hours
  FROM @extschema@.usage_daily u;
COMMENT ON VIEW @extschema@.bi_usage_daily IS
'usage_daily as a time series for BI tools: period_start (the cluster''s local midnight), the key, and the measures in hours (seconds / 3600).';

CREATE VIEW @extschema@.bi_usage_monthly AS
SELECT u.period_start, u.cluster, u.account, u.user_name, u.partition, u.qos, u.cpus,
       u.run_secs::float8 OPERATOR(pg_catalog./) 3600 AS run_hours,
       u.cpu_secs::float8 OPERATOR(pg_catalog./) 3600 AS cpu_hours,
       u.mem_secs::float8 OPERATOR(pg_catalog./) 3600 AS mem_mb_hours,
       u.node_secs::float8 OPERATOR(pg_catalog./) 3600 AS node_hours,
       u.billing_secs::float8 OPERATOR(pg_catalog./) 3600 AS billing_hours,
       u.gpu_secs::float8 OPERATOR(pg_catalog./) 3600 AS gpu_hours,
       u.energy AS energy_joules,
       u.suspended_secs::float8 OPERATOR(pg_catalog./) 3600 AS suspended_hours,
       u.jobs,
       u.wait_secs::float8 OPERATOR(pg_catalog./) 3600 AS wait_hours
  FROM @extschema@.usage_monthly u;
COMMENT ON VIEW @extschema@.bi_usage_monthly IS
'usage_monthly as a time series for BI tools: period_start (the cluster''s local first of the month), the key, and the measures in hours (seconds / 3600).';

-- The cluster rollups as time series: sreport cluster Utilization's columns
-- in TRES-hours, and the allocated share of the reported time in percent
-- (NULL when nothing was reported).
CREATE VIEW @extschema@.bi_cluster_usage_hourly AS
SELECT u.period_start, u.cluster, u.tres,
       u.reported_secs::float8 OPERATOR(pg_catalog./) 3600 AS reported_hours,
       u.alloc_secs::float8 OPERATOR(pg_catalog./) 3600 AS allocated_hours,
       u.down_secs::float8 OPERATOR(pg_catalog./) 3600 AS down_hours,
       u.pdown_secs::float8 OPERATOR(pg_catalog./) 3600 AS planned_down_hours,
       u.idle_secs::float8 OPERATOR(pg_catalog./) 3600 AS idle_hours,
       u.planned_secs::float8 OPERATOR(pg_catalog./) 3600 AS planned_hours,
       u.over_secs::float8 OPERATOR(pg_catalog./) 3600 AS over_hours,
       100 OPERATOR(pg_catalog.*) u.alloc_secs::float8
           OPERATOR(pg_catalog./) NULLIF(u.reported_secs, 0)::float8 AS allocated_percent
  FROM @extschema@.cluster_usage_hourly u;
COMMENT ON VIEW @extschema@.bi_cluster_usage_hourly IS
'cluster_usage_hourly as a time series for BI tools: period_start, cluster, TRES, the times in TRES-hours (seconds / 3600) and allocated_percent = 100 × allocated / reported.';

CREATE VIEW @extschema@.bi_cluster_usage_daily AS
SELECT u.period_start, u.cluster, u.tres,
       u.reported_secs::float8 OPERATOR(pg_catalog./) 3600 AS reported_hours,
       u.alloc_secs::float8 OPERATOR(pg_catalog./) 3600 AS allocated_hours,
       u.down_secs::float8 OPERATOR(pg_catalog./) 3600 AS down_hours,
       u.pdown_secs::float8 OPERATOR(pg_catalog./) 3600 AS planned_down_hours,
       u.idle_secs::float8 OPERATOR(pg_catalog./) 3600 AS idle_hours,
       u.planned_secs::float8 OPERATOR(pg_catalog./) 3600 AS planned_hours,
       u.over_secs::float8 OPERATOR(pg_catalog./) 3600 AS over_hours,
       100 OPERATOR(pg_catalog.*) u.alloc_secs::float8
           OPERATOR(pg_catalog./) NULLIF(u.reported_secs, 0)::float8 AS allocated_percent
  FROM @extschema@.cluster_usage_daily u;
COMMENT ON VIEW @extschema@.bi_cluster_usage_daily IS
'cluster_usage_daily as a time series for BI tools: period_start, cluster, TRES, the times in TRES-hours (seconds / 3600) and allocated_percent = 100 × allocated / reported.';

CREATE VIEW @extschema@.bi_cluster_usage_monthly AS
SELECT u.period_start, u.cluster, u.tres,
       u.reported_secs::float8 OPERATOR(pg_catalog./) 3600 AS reported_hours,
       u.alloc_secs::float8 OPERATOR(pg_catalog./) 3600 AS allocated_hours,
       u.down_secs::float8 OPERATOR(pg_catalog./) 3600 AS down_hours,
       u.pdown_secs::float8 OPERATOR(pg_catalog./) 3600 AS planned_down_hours,
       u.idle_secs::float8 OPERATOR(pg_catalog./) 3600 AS idle_hours,
       u.planned_secs::float8 OPERATOR(pg_catalog./) 3600 AS planned_hours,
       u.over_secs::float8 OPERATOR(pg_catalog./) 3600 AS over_hours,
       100 OPERATOR(pg_catalog.*) u.alloc_secs::float8
           OPERATOR(pg_catalog./) NULLIF(u.reported_secs, 0)::float8 AS allocated_percent
  FROM @extschema@.cluster_usage_monthly u;
COMMENT ON VIEW @extschema@.bi_cluster_usage_monthly IS
'cluster_usage_monthly as a time series for BI tools: period_start, cluster, TRES, the times in TRES-hours (seconds / 3600) and allocated_percent = 100 × allocated / reported.';

-- metacentrum_job_usage_at with its walltime (an interval, JDBC's OTHER) as
-- seconds and hours.
CREATE FUNCTION @extschema@.bi_metacentrum_job_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, job_id text, user_name text, account text, partition text,
               start_time timestamptz, end_time timestamptz, spec float8,
               walltime_secs float8, walltime_hours float8,
               pe_cpu float8, pe_mem float8, pe_scratch float8, pe_gpu float8, pe float8,
               usage_cpu float8, usage_mem float8, usage_scratch float8, usage_gpu float8, usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT m.cluster, m.job_id, m.user_name, m.account, m.partition, m.start_time, m.end_time, m.spec,
           EXTRACT(epoch FROM m.walltime)::float8,
           EXTRACT(epoch FROM m.walltime)::float8 OPERATOR(pg_catalog./) 3600,
           m.pe_cpu, m.pe_mem, m.pe_scratch, m.pe_gpu, m.pe,
           m.usage_cpu, m.usage_mem, m.usage_scratch, m.usage_gpu, m.usage
      FROM @extschema@.metacentrum_job_usage_at(bi_metacentrum_job_usage_at.as_of) m;
END;
COMMENT ON FUNCTION @extschema@.bi_metacentrum_job_usage_at(timestamptz) IS
'metacentrum_job_usage_at(as_of) for BI tools: the walltime as walltime_secs and walltime_hours (float8) instead of an interval.';

CREATE VIEW @extschema@.bi_metacentrum_job_usage AS
SELECT * FROM @extschema@.bi_metacentrum_job_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.bi_metacentrum_job_usage IS 'bi_metacentrum_job_usage_at(now()).';

-- sreport job SizesByAccount in long form: one row per account and size
-- bucket instead of the labels and sizes arrays (JDBC's ARRAY), so a BI
-- tool pivots or charts the buckets itself.
CREATE FUNCTION @extschema@.bi_job_sizes_by_account(time_from timestamptz, time_to timestamptz,
        cpu_groups integer[] DEFAULT '{50,250,500,1000}', units text DEFAULT 'minutes',
        accounts text[] DEFAULT NULL, flat boolean DEFAULT false, job_count boolean DEFAULT false,
        cluster text DEFAULT NULL, individual boolean DEFAULT false)
RETURNS TABLE (line bigint, cluster text, account text, bucket integer, label text, size text, total_count text, pct_of_cluster text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT r.line, r.cluster, r.account, b.n::integer, b.label, b.size, r.total_count, r.pct_of_cluster
      FROM @extschema@.sreport_job_sizes_by_account(bi_job_sizes_by_account.time_from, bi_job_sizes_by_account.time_to,
               bi_job_sizes_by_account.cpu_groups, bi_job_sizes_by_account.units, bi_job_sizes_by_account.accounts,
               bi_job_sizes_by_account.flat, bi_job_sizes_by_account.job_count, bi_job_sizes_by_account.cluster,
               bi_job_sizes_by_account.individual) r
     CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(r.labels), pg_catalog.unnest(r.sizes)) WITH ORDINALITY AS b(label, size, n)
     ORDER BY r.line, b.n;
END;
COMMENT ON FUNCTION @extschema@.bi_job_sizes_by_account(timestamptz, timestamptz, integer[], text, text[], boolean, boolean, text, boolean) IS
'sreport_job_sizes_by_account in long form for BI tools: one row per account and size bucket (bucket 1 = the smallest), its label and value, instead of two arrays; total_count and pct_of_cluster are the row''s.';
