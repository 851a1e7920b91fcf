-- ---------------------------------------------------------------------------
-- checkpoint: the usage checkpoints (docs/design.md#usage-checkpoints), their
-- tables, checkpoint_usage and the triggers that keep them valid.  What
-- reads them is _association_usage (usage.sql).
-- ---------------------------------------------------------------------------
-- Usage checkpoints (docs/design.md#usage-checkpoints).  Summing every
-- job of the history at each call is bound by reading and billing the
-- whole jobs table (10^7 jobs: 7 s).  Slurm keeps each association's
-- decayed usage and, every PriorityCalcPeriod, decays it and adds what ran
-- since.  A checkpoint does the same without giving up time travel: the
-- decayed usage of every association of a cluster as of an instant T0,
-- computed from the jobs alone and stored; for any as_of >= T0
--
--   usage(as_of) = usage(T0) × decay(T0 → as_of)
--                + the span form of each job's part after T0,
--                  [max(start, T0), min(end or as_of, as_of)],
--                  over the jobs still running at T0 or started since
--
-- which is the sum over every job, exactly in real arithmetic, for each
-- decay of decay.c.  Each span form is the integral of a weight w(as_of − t)
-- over the span, and w(a + b) = w(a) × w(b): 2^(−x/h) ('exact'),
-- e^(−x·(−ln(1 − 0.693/h))) ('slurm'), f^(slots crossed) ('step', slots
-- counted from the epoch, so the slots crossed from t to as_of are those
-- from t to T0 plus those from T0 to as_of).  A span split at T0 therefore
-- adds up, and the part before T0 decays from T0 by w(as_of − T0), which is
-- the point form's weight of a unit charged at T0, computed by the same
-- aggregate.  In float8 the two computations differ by a few units in the
-- last place (sql/checkpoint.sql).
--
-- A checkpoint is used only while it is valid: the triggers below mark it
-- invalid when a change alters what it holds (a job's part before T0, a
-- partition's billing, a UsageFactor, the decay settings).  An as_of
-- before T0 (time travel to before the checkpoint), and a cluster without
-- a valid checkpoint, are computed from the jobs as before.
-- ---------------------------------------------------------------------------

-- A cluster has a chain of checkpoints: each is computed from
-- the newest valid one before it plus the jobs since, so its cost follows
-- the jobs since that one, not the history.  A change that invalidates the
-- newest falls back to an older one still valid: checkpoint_usage keeps a
-- few recent ones and the newest of each of the last days.
CREATE TABLE @extschema@.usage_checkpoints (
    cluster              text NOT NULL
                         REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    -- T0: the instant the stored usage is decayed to
    as_of                timestamptz NOT NULL CHECK (pg_catalog.isfinite(as_of)),
    created_at           timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- set by the triggers below: the checkpoint is ignored from then on,
    -- until checkpoint_usage replaces or prunes it
    invalidated_at       timestamptz,
    invalidated_by       text,
    -- a checkpoint that retention relies on (the usage of jobs no longer
    -- in the table): never pruned, and the jobs started before it cannot
    -- change any more
    pinned               boolean NOT NULL DEFAULT false,
    -- what it was computed from: the checkpoint it chained from (NULL: the
    -- jobs alone)
    computed_from        timestamptz,
    PRIMARY KEY (cluster, as_of),
    CHECK ((invalidated_at IS NULL) OPERATOR(pg_catalog.=) (invalidated_by IS NULL))
);
COMMENT ON TABLE @extschema@.usage_checkpoints IS
'Usage checkpoints of each cluster (checkpoint_usage): the instant their usage is decayed to, what they were computed from, and when and why a later change invalidated them.';

CREATE TABLE @extschema@.usage_checkpoint_rows (
    cluster              text NOT NULL,
    as_of                timestamptz NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL,
    -- the association's decayed usage as of T0, and its jobs then
    raw_usage            float8 NOT NULL
                         CHECK (raw_usage OPERATOR(pg_catalog.>=) 0 AND raw_usage OPERATOR(pg_catalog.<) 'Infinity'),
    jobs                 bigint NOT NULL CHECK (jobs OPERATOR(pg_catalog.>) 0),
    pass_usage           float8
                         CHECK (pass_usage OPERATOR(pg_catalog.>=) 0 AND pass_usage OPERATOR(pg_catalog.<) 'Infinity'),
    -- decay_mode 'slurm_passes': pass_usage is the usage as slurmctld's last
    -- pass at or before T0 left it (what sshare's tree columns show until
    -- the next pass), when it differs from raw_usage; NULL: raw_usage
    PRIMARY KEY (cluster, as_of, account, user_name),
    FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoints ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.usage_checkpoint_rows IS
'The decayed usage (billing-seconds) and job count of every user association with jobs, as of each checkpoint of its cluster.';

-- The jobs still running at an instant or started after it: those whose
-- end (infinity while running) is after it.  A range scan of the few jobs
-- after a checkpoint instead of a scan of the table.
CREATE INDEX jobs_end_idx ON @extschema@.jobs ((COALESCE(end_time, 'infinity'::timestamptz)))
    WHERE start_time IS NOT NULL;

-- What a checkpoint's fair-share factors are computed from besides its
-- usage: the association tree and the settings of one cluster (NULL: of
-- every cluster), as one text, each table's rows counted and their text
-- hashed.  checkpoint_usage computes the factors before taking its lock
-- and compares this under the lock: a change to the tree committed in
-- between makes it differ, and the factors are dropped.
CREATE FUNCTION @extschema@_internal._checkpoint_tree_fingerprint(cluster text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN concat_ws('/',
        (SELECT count(*) || ':' || COALESCE(sum(hashtext(c::text)), 0) FROM @extschema@.clusters c
          WHERE _checkpoint_tree_fingerprint.cluster IS NULL OR c.cluster = _checkpoint_tree_fingerprint.cluster),
        (SELECT count(*) || ':' || COALESCE(sum(hashtext(a::text)), 0) FROM @extschema@.accounts a
          WHERE _checkpoint_tree_fingerprint.cluster IS NULL OR a.cluster = _checkpoint_tree_fingerprint.cluster),
        (SELECT count(*) || ':' || COALESCE(sum(hashtext(u::text)), 0) FROM @extschema@.account_users u
          WHERE _checkpoint_tree_fingerprint.cluster IS NULL OR u.cluster = _checkpoint_tree_fingerprint.cluster),
        (SELECT count(*) || ':' || COALESCE(sum(hashtext(s::text)), 0) FROM @extschema@.slurmctld_starts s
          WHERE _checkpoint_tree_fingerprint.cluster IS NULL OR s.cluster = _checkpoint_tree_fingerprint.cluster));
END
$$;

-- What a chained checkpoint as of as_of reads (of one cluster, or every
-- cluster for NULL), as text, to compare before and under its lock: per
-- cluster the newest valid checkpoint at or before as_of, which it chains
-- from, then every run it reads (started by as_of, and running or ended
-- after that checkpoint) as the usage reads it: its association, start,
-- end and billing (job_billing), so that a write of anything else (a
-- state, a priority, a nice) leaves the rows standing.  NULL when a cluster has no
-- checkpoint to chain from (every run is read: no shortcut), and NULL
-- past max_runs runs: a checkpoint chained from one months or years back
-- reads millions, whose text outgrows PostgreSQL's 1 GB array (at 3×10^7
-- runs, chained from a checkpoint two years back, it failed); it then
-- computes again under its lock, as it did before this shortcut.  A few
-- thousand runs in 5 minutes at 10^7: one range scan of jobs_end_idx.
CREATE FUNCTION @extschema@_internal._checkpoint_runs_read(cluster text, as_of timestamptz,
                                                     max_runs integer DEFAULT 250000)
RETURNS text[]
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    clusters text[];
    bases timestamptz[];
    oldest timestamptz;
    runs text[];
    n bigint;
BEGIN
    IF max_runs IS NULL OR max_runs < 0 THEN
        RAISE EXCEPTION '_checkpoint_runs_read: max_runs must be 0 or more, not %', max_runs
            USING ERRCODE = '22023', HINT = 'Pass the most runs to compare, or leave the default.';
    END IF;
    SELECT array_agg(c.cluster ORDER BY c.cluster),
           array_agg((SELECT max(k.as_of) FROM @extschema@.usage_checkpoints k
                       WHERE k.cluster = c.cluster AND k.invalidated_at IS NULL
                         AND k.as_of <= _checkpoint_runs_read.as_of) ORDER BY c.cluster)
      INTO clusters, bases
      FROM @extschema@.clusters c
     WHERE _checkpoint_runs_read.cluster IS NULL OR c.cluster = _checkpoint_runs_read.cluster;
    IF clusters IS NULL THEN
        RETURN '{}';
    END IF;
    IF array_position(bases, NULL) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    SELECT min(b) INTO oldest FROM unnest(bases) b;
    SELECT COALESCE(array_agg(r.t ORDER BY r.cluster, r.job_id, r.start_time, r.end_time, r.billing), '{}'),
           count(*)
      INTO runs, n
      FROM (SELECT j.cluster, j.job_id, j.start_time, j.end_time, j.billing,
                   ROW(j.cluster, j.job_id, j.account, j.user_name, j.start_time, j.end_time, j.billing)::text AS t
              FROM @extschema@.job_billing j
             WHERE j.start_time IS NOT NULL AND j.start_time <= _checkpoint_runs_read.as_of
               AND COALESCE(j.end_time, 'infinity'::timestamptz) > oldest
               AND j.cluster = ANY (clusters)
               AND COALESCE(j.end_time, 'infinity'::timestamptz) > bases[array_position(clusters, j.cluster)]
             LIMIT max_runs::bigint + 1) r;
    IF n > max_runs THEN
        RETURN NULL;
    END IF;
    RETURN ARRAY(SELECT format('%s as of %s', c, b) FROM unnest(clusters, bases) x(c, b)) || runs;
END
$$;

-- Make (or replace) a usage checkpoint of a cluster, or of every cluster
-- for NULL, as of an instant: association_usage_at(as_of), stored.  Run it
-- every few minutes (pg_cron), as Slurm recomputes usage every
-- PriorityCalcPeriod: usage reports as of any later instant then read the
-- jobs since as_of only.
--
-- Chained: the usage is computed as association_usage_at computes it, from
-- the cluster's newest valid checkpoint at or before as_of plus the jobs
-- since (the jobs alone when there is none, or with from_jobs), so that a
-- checkpoint every few minutes costs the few jobs since the last one, not
-- the history.  In real arithmetic that is the sum over every
-- job; in float8 it differs from it by a few units in the last place per
-- link (sql/checkpoint.sql measures it).
--
-- Then the cluster's checkpoints are pruned to the keep_recent newest valid
-- ones and the newest valid one of each of the last keep_days days (in the
-- cluster's time zone), so that a change that invalidates the newest (an
-- import of jobs that started before it) falls back to an older one, and
-- invalid ones go; pinned ones (retention) stay.
--
-- Its end holds a SHARE lock on jobs, partitions, qos and clusters: a
-- change to them committed between the snapshot the checkpoint is computed
-- from and the checkpoint's own commit would find no checkpoint to
-- invalidate, so such writes wait.  The lock is taken late: the rows are
-- first written from a computation without it (writing every association's
-- row is most of the time), then, under the lock, the usage is computed
-- again (the jobs since the previous checkpoint, and a hash join with its
-- rows) and compared with what was written.  Equal, the rows stand: they
-- are what the computation under the lock gives.  A write committed in
-- between that changed an association makes its row differ, and those
-- rows are written again under the lock, and the factors computed before
-- dropped (also when the tree changed in between).  Either way what is
-- committed is the computation under the lock, and an import waits only
-- for the second computation and the pruning, not for the writing of
-- every row and factor (docs/design.md#usage-checkpoints).  With from_jobs (every job
-- read: seconds), or a checkpoint at the same instant to replace (its row
-- is locked by the DELETE, which a writer invalidating it would wait for
-- while the checkpoint waits for the writer's lock), the lock is taken
-- first, as before.  It runs under READ COMMITTED only: its statements
-- take their snapshots after the lock, when every earlier writer has
-- committed.
--
-- enable_mergejoin = off: chained, the previous checkpoint's rows (every
-- association) are joined with the few associations that ran since; a
-- merge join sorted the 75,001 rows by their text keys, a hash join of the
-- few probes them as they come (0.24-0.27 s -> 0.15-0.19 s at 10^7 jobs,
-- docs/performance.md).
--
-- enable_nestloop = off: _checkpoint_factors, when it read sshare_at
-- whole (inlined into its INSERT), joined each of the tree's rows with the
-- TRESRunMins lines by a nested loop over a CTE scan (7,499 x 1,086 rows at
-- 10^6 jobs: 1.0 s of the checkpoint's 1.9 s).  It now reads the tree
-- function alone (sprio.sql), and the setting stays as a guard: no
-- statement here wants a nested loop: the usage is one range scan of
-- jobs_end_idx and a hash join, the foreign keys' checks single index probes
-- (docs/performance.md#history-at-scale).  jit = off: a plan that needs
-- a nested loop all the same (a lateral call) is priced past
-- jit_above_cost by the setting, and compiling each statement took longer
-- than the checkpoint (25 s instead of 1.6 s at 10^6 jobs, where JIT is
-- on by default).
CREATE PROCEDURE @extschema@.checkpoint_usage(cluster text DEFAULT NULL,
                                              as_of timestamptz DEFAULT pg_catalog.now(),
                                              from_jobs boolean DEFAULT false,
                                              keep_recent integer DEFAULT 3,
                                              keep_days integer DEFAULT 7)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET enable_mergejoin = off
SET enable_nestloop = off
SET jit = off
AS $$
DECLARE
    -- the lock taken before the rows are written (see above)
    lock_first boolean;
    -- associations whose usage differs under the lock
    changed bigint;
    -- the tree and settings the factors were computed with, and whether
    -- they were computed before the lock
    tree_before text;
    factors_done boolean := false;
    -- what the rows written before the lock were computed from
    runs_read text[];
BEGIN
    -- no checkpoint stays valid when jobs is a Citus table (citus.sql)
    PERFORM @extschema@_internal._citus_no_checkpoints('checkpoint_usage');
    PERFORM @extschema@_internal._check_as_of(checkpoint_usage.as_of);
    IF checkpoint_usage.as_of > now() THEN
        RAISE EXCEPTION 'checkpoint_usage: as_of % is in the future', checkpoint_usage.as_of
            USING ERRCODE = '22023',
                  HINT = 'Every job that starts before a checkpoint invalidates it: make it as of now() or earlier.';
    END IF;
    IF from_jobs IS NULL OR keep_recent IS NULL OR keep_days IS NULL THEN
        RAISE EXCEPTION 'checkpoint_usage: from_jobs, keep_recent and keep_days must not be NULL'
            USING ERRCODE = '22004', HINT = 'Leave them out for their defaults (false, 3, 7).';
    END IF;
    IF keep_recent NOT BETWEEN 1 AND 1000 OR keep_days NOT BETWEEN 0 AND 3660 THEN
        RAISE EXCEPTION 'checkpoint_usage: keep_recent % and keep_days % out of range', keep_recent, keep_days
            USING ERRCODE = '22023',
                  HINT = 'keep_recent counts checkpoints to keep (1 to 1000, the new one included), keep_days the days back with one kept each (0 to 3660).';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'checkpoint_usage: cannot run in a % transaction', current_setting('transaction_isolation')
            USING ERRCODE = '25000',
                  HINT = 'Call it under READ COMMITTED: it must see every job committed before it takes its lock.';
    END IF;
    IF checkpoint_usage.cluster IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster = checkpoint_usage.cluster) THEN
        RAISE EXCEPTION 'checkpoint_usage: cluster "%" does not exist', checkpoint_usage.cluster
            USING ERRCODE = '22023', HINT = 'Pass a cluster of fairshare.clusters, or NULL for every cluster.';
    END IF;
    lock_first := from_jobs
                  OR EXISTS (SELECT FROM @extschema@.usage_checkpoints k
                              WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
                                AND k.as_of = checkpoint_usage.as_of);
    IF lock_first THEN
        LOCK TABLE @extschema@.clusters, @extschema@.partitions, @extschema@.qos, @extschema@.jobs IN SHARE MODE;
    END IF;

    -- A checkpoint at the same instant is replaced: the new one chains
    -- from the one before it.  The new checkpoints are written marked
    -- invalid, so that the computation, which reads the valid ones, does
    -- not start from them, then marked valid; all in this transaction.
    DELETE FROM @extschema@.usage_checkpoints k
     WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
       AND k.as_of = checkpoint_usage.as_of;
    INSERT INTO @extschema@.usage_checkpoints (cluster, as_of, invalidated_at, invalidated_by, computed_from)
    SELECT c.cluster, checkpoint_usage.as_of, now(), 'being computed',
           (SELECT max(k.as_of) FROM @extschema@.usage_checkpoints k
             WHERE NOT from_jobs AND k.cluster = c.cluster AND k.invalidated_at IS NULL
               AND k.as_of <= checkpoint_usage.as_of)
      FROM @extschema@.clusters c
     WHERE checkpoint_usage.cluster IS NULL OR c.cluster = checkpoint_usage.cluster;
    -- The rows, and (chained, lock taken late) what they were computed
    -- from, in one statement, so from one snapshot: the runs read and the
    -- checkpoint chained from (_checkpoint_runs_read).
    WITH written AS (
        INSERT INTO @extschema@.usage_checkpoint_rows (cluster, as_of, account, user_name, raw_usage, jobs, pass_usage)
        SELECT u.cluster, checkpoint_usage.as_of, u.account, u.user_name, u.raw_usage, u.jobs,
               NULLIF(u.pass_usage, u.raw_usage)
          FROM @extschema@_internal._association_usage(checkpoint_usage.as_of, from_jobs, checkpoint_usage.cluster) u
        RETURNING 1)
    SELECT CASE WHEN NOT lock_first
                THEN @extschema@_internal._checkpoint_runs_read(checkpoint_usage.cluster, checkpoint_usage.as_of) END
      INTO runs_read;
    IF NOT lock_first THEN
        -- the fair-share factors of these rows, before the lock too
        -- (_checkpoint_factors reads valid checkpoints only: marked valid
        -- for it, invisible outside this transaction, then marked back), and
        -- what they were computed from besides the usage: the tree and the
        -- clusters' settings, fingerprinted before
        tree_before := @extschema@_internal._checkpoint_tree_fingerprint(checkpoint_usage.cluster);
        UPDATE @extschema@.usage_checkpoints k SET invalidated_at = NULL, invalidated_by = NULL
         WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
           AND k.as_of = checkpoint_usage.as_of;
        PERFORM @extschema@_internal._checkpoint_factors(checkpoint_usage.cluster, checkpoint_usage.as_of);
        UPDATE @extschema@.usage_checkpoints k SET invalidated_at = now(), invalidated_by = 'being computed'
         WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
           AND k.as_of = checkpoint_usage.as_of;

        LOCK TABLE @extschema@.clusters, @extschema@.partitions, @extschema@.qos, @extschema@.jobs IN SHARE MODE;
        -- Nothing the rows were computed from changed if, under the lock,
        -- the same checkpoint is the newest valid one to chain from and the
        -- runs it reads are the same as the usage reads them (association,
        -- start, end, billing): then the rows are
        -- what the computation under the lock gives, without computing it
        -- (a change to any other run that counts before that checkpoint
        -- invalidates it; a change to the partitions, QOS or decay settings
        -- invalidates every checkpoint of the cluster).
        IF runs_read IS NOT NULL
           AND runs_read = @extschema@_internal._checkpoint_runs_read(checkpoint_usage.cluster, checkpoint_usage.as_of) THEN
            changed := 0;
            RAISE DEBUG 'checkpoint_usage: nothing it read changed before the lock; its rows stand';
        ELSE
            -- the same computation under the lock, against the rows written
            SELECT count(*) INTO changed
              FROM (SELECT r.cluster, r.account, r.user_name, r.raw_usage, r.jobs, r.pass_usage
                      FROM @extschema@.usage_checkpoint_rows r
                     WHERE (checkpoint_usage.cluster IS NULL OR r.cluster = checkpoint_usage.cluster)
                       AND r.as_of = checkpoint_usage.as_of) w
              FULL JOIN
                   (SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs,
                           NULLIF(u.pass_usage, u.raw_usage) AS pass_usage
                      FROM @extschema@_internal._association_usage(checkpoint_usage.as_of, false, checkpoint_usage.cluster) u) n
                ON n.cluster = w.cluster AND n.account = w.account AND n.user_name = w.user_name
             WHERE w.cluster IS NULL OR n.cluster IS NULL
                OR (w.raw_usage, w.jobs, w.pass_usage) IS DISTINCT FROM (n.raw_usage, n.jobs, n.pass_usage);
            -- the associations that differ (a write committed in between) are
            -- written again, those alone (the usage computed once more: rare)
            IF changed > 0 THEN
                WITH n AS MATERIALIZED (
                    SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs,
                           NULLIF(u.pass_usage, u.raw_usage) AS pass_usage
                      FROM @extschema@_internal._association_usage(checkpoint_usage.as_of, false, checkpoint_usage.cluster) u),
                w AS MATERIALIZED (
                    SELECT r.cluster, r.account, r.user_name, r.raw_usage, r.jobs, r.pass_usage
                      FROM @extschema@.usage_checkpoint_rows r
                     WHERE (checkpoint_usage.cluster IS NULL OR r.cluster = checkpoint_usage.cluster)
                       AND r.as_of = checkpoint_usage.as_of),
                d AS MATERIALIZED (
                    SELECT COALESCE(n.cluster, w.cluster) AS cluster, COALESCE(n.account, w.account) AS account,
                           COALESCE(n.user_name, w.user_name) AS user_name,
                           w.cluster IS NOT NULL AS written, n.cluster IS NOT NULL AS computed,
                           n.raw_usage, n.jobs, n.pass_usage
                      FROM w FULL JOIN n
                        ON n.cluster = w.cluster AND n.account = w.account AND n.user_name = w.user_name
                     WHERE w.cluster IS NULL OR n.cluster IS NULL
                        OR (w.raw_usage, w.jobs, w.pass_usage) IS DISTINCT FROM (n.raw_usage, n.jobs, n.pass_usage)),
                gone AS (
                    DELETE FROM @extschema@.usage_checkpoint_rows r
                     USING d
                     WHERE d.written AND NOT d.computed AND r.cluster = d.cluster AND r.as_of = checkpoint_usage.as_of
                       AND r.account = d.account AND r.user_name = d.user_name),
                redone AS (
                    UPDATE @extschema@.usage_checkpoint_rows r
                       SET raw_usage = d.raw_usage, jobs = d.jobs, pass_usage = d.pass_usage
                      FROM d
                     WHERE d.written AND d.computed AND r.cluster = d.cluster AND r.as_of = checkpoint_usage.as_of
                       AND r.account = d.account AND r.user_name = d.user_name),
                added AS (
                    INSERT INTO @extschema@.usage_checkpoint_rows (cluster, as_of, account, user_name, raw_usage, jobs, pass_usage)
                    SELECT d.cluster, checkpoint_usage.as_of, d.account, d.user_name, d.raw_usage, d.jobs, d.pass_usage
                      FROM d WHERE NOT d.written)
                SELECT count(*) INTO changed FROM d;
            END IF;
        END IF;
        -- the checkpoint chained from, as seen under the lock (a write in
        -- between may have invalidated the one seen before)
        UPDATE @extschema@.usage_checkpoints k
           SET computed_from = (SELECT max(x.as_of) FROM @extschema@.usage_checkpoints x
                                 WHERE x.cluster = k.cluster AND x.invalidated_at IS NULL
                                   AND x.as_of <= checkpoint_usage.as_of)
         WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
           AND k.as_of = checkpoint_usage.as_of;
        -- the factors written before the lock hold if neither the usage nor
        -- the tree changed; otherwise they are dropped, not computed again
        -- under the lock (writes would wait for them): sprio_at computes the
        -- tree itself until the next checkpoint (sprio.sql)
        IF changed > 0
           OR tree_before IS DISTINCT FROM @extschema@_internal._checkpoint_tree_fingerprint(checkpoint_usage.cluster) THEN
            DELETE FROM @extschema@.usage_checkpoint_factors f
             WHERE (checkpoint_usage.cluster IS NULL OR f.cluster = checkpoint_usage.cluster)
               AND f.as_of = checkpoint_usage.as_of;
        END IF;
        factors_done := true;
    END IF;
    UPDATE @extschema@.usage_checkpoints k SET invalidated_at = NULL, invalidated_by = NULL
     WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
       AND k.as_of = checkpoint_usage.as_of;

    -- prune: invalid ones, and valid ones neither among the keep_recent
    -- newest nor the newest of a day of the last keep_days
    DELETE FROM @extschema@.usage_checkpoints k
     USING (SELECT x.cluster, x.as_of,
                   x.invalidated_at IS NULL
                   AND (row_number() OVER (PARTITION BY x.cluster, x.invalidated_at IS NULL ORDER BY x.as_of DESC)
                          <= keep_recent
                        OR (row_number() OVER (PARTITION BY x.cluster, x.invalidated_at IS NULL,
                                                            (x.as_of AT TIME ZONE c.timezone)::date
                                               ORDER BY x.as_of DESC) = 1
                            AND (x.as_of AT TIME ZONE c.timezone)::date
                                > (checkpoint_usage.as_of AT TIME ZONE c.timezone)::date - keep_days)) AS kept
              FROM @extschema@.usage_checkpoints x
              JOIN @extschema@.clusters c ON c.cluster = x.cluster
             WHERE checkpoint_usage.cluster IS NULL OR x.cluster = checkpoint_usage.cluster) p
     WHERE k.cluster = p.cluster AND k.as_of = p.as_of AND NOT p.kept AND NOT k.pinned;
    -- the fair-share factors as of the new checkpoints, for sprio_at (sprio.sql)
    IF NOT factors_done THEN
        PERFORM @extschema@_internal._checkpoint_factors(checkpoint_usage.cluster, checkpoint_usage.as_of);
    END IF;
END
$$;
COMMENT ON PROCEDURE @extschema@.checkpoint_usage(text, timestamptz, boolean, integer, integer) IS
'Store every association''s decayed usage as of an instant (default now()) for one cluster or all (NULL), chained from the newest valid checkpoint before it (from_jobs: from the jobs alone), keeping keep_recent recent checkpoints and one per day for keep_days days; run it every few minutes, like Slurm''s PriorityCalcPeriod.';

-- Invalidation.  A checkpoint of cluster C at T0 holds the part before T0
-- of C's jobs that started at or before T0, billed and decayed with C's
-- settings.  A write to jobs that changes that part marks it invalid: a job
-- started at or before T0 inserted or deleted, or updated in its start, its
-- end as far as it falls before T0 (least(end, T0): a job running at T0
-- that ends later is the normal case and changes nothing), its TRES, CPUs,
-- partition, QOS, account, user or cluster (renames of accounts, users,
-- partitions and clusters cascade into jobs).  The trigger is per
-- statement, over the statement's rows: while no checkpoint is valid, a
-- write pays one lookup of usage_checkpoints.  A role that writes jobs
-- needs SELECT and UPDATE on usage_checkpoints (fairshare_admin has them).
CREATE FUNCTION @extschema@_internal._jobs_invalidate_usage_checkpoints() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cp record;
    job text;
BEGIN
    FOR cp IN SELECT k.cluster, k.as_of, k.pinned FROM @extschema@.usage_checkpoints k
               WHERE k.invalidated_at IS NULL LOOP
        job := NULL;
        IF TG_OP = 'INSERT' THEN
            SELECT n.job_id INTO job FROM new_jobs n
             WHERE n.cluster = cp.cluster AND n.start_time <= cp.as_of LIMIT 1;
        ELSIF TG_OP = 'DELETE' THEN
            SELECT o.job_id INTO job FROM old_jobs o
             WHERE o.cluster = cp.cluster AND o.start_time <= cp.as_of LIMIT 1;
        ELSIF TG_OP = 'UPDATE' THEN
            -- old and new rows paired by key; a changed key leaves both unpaired
            SELECT COALESCE(o.job_id, n.job_id) INTO job
              FROM old_jobs o FULL JOIN new_jobs n
                ON n.cluster = o.cluster AND n.job_id = o.job_id AND n.submit_time = o.submit_time
             WHERE CASE WHEN COALESCE(o.cluster = cp.cluster AND o.start_time <= cp.as_of, false)
                        THEN NOT COALESCE(n.cluster = cp.cluster AND n.start_time <= cp.as_of, false)
                             OR (o.account, o.user_name, o.partition, o.qos, o.tres, o.cpus, o.start_time,
                                 LEAST(COALESCE(o.end_time, 'infinity'::timestamptz), cp.as_of))
                                IS DISTINCT FROM
                                (n.account, n.user_name, n.partition, n.qos, n.tres, n.cpus, n.start_time,
                                 LEAST(COALESCE(n.end_time, 'infinity'::timestamptz), cp.as_of))
                        ELSE COALESCE(n.cluster = cp.cluster AND n.start_time <= cp.as_of, false) END
             LIMIT 1;
        ELSE
            job := '';      -- TRUNCATE
        END IF;
        IF job IS NOT NULL AND cp.pinned THEN
            RAISE EXCEPTION 'job % of cluster % started before the pinned usage checkpoint as of %: it cannot change',
                            job, cp.cluster, cp.as_of
                USING ERRCODE = '55000',
                      HINT = 'Retention removed jobs older than that checkpoint and keeps their usage in it only; restore the archived partitions and unpin it (fairshare.usage_checkpoints.pinned) to change history before it.';
        END IF;
        IF job IS NOT NULL THEN
            UPDATE @extschema@.usage_checkpoints k
               SET invalidated_at = now(),
                   invalidated_by = CASE WHEN TG_OP = 'TRUNCATE' THEN 'TRUNCATE jobs'
                                         ELSE format('%s on jobs: job %s, started before the checkpoint', TG_OP, job) END
             WHERE k.cluster = cp.cluster AND k.as_of = cp.as_of AND k.invalidated_at IS NULL;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER invalidate_usage_checkpoints_insert AFTER INSERT ON @extschema@.jobs
    REFERENCING NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_invalidate_usage_checkpoints();
CREATE TRIGGER invalidate_usage_checkpoints_update AFTER UPDATE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_invalidate_usage_checkpoints();
CREATE TRIGGER invalidate_usage_checkpoints_delete AFTER DELETE ON @extschema@.jobs
    REFERENCING OLD TABLE AS old_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_invalidate_usage_checkpoints();
CREATE TRIGGER invalidate_usage_checkpoints_truncate AFTER TRUNCATE ON @extschema@.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._jobs_invalidate_usage_checkpoints();

-- The settings a checkpoint was computed with: a cluster's decay, a
-- partition's billing weights and mode, a QOS's UsageFactor (a job's QOS
-- that is not in qos bills with 1, so adding, removing or renaming a QOS
-- whose factor is not 1 changes the billing too).  A change marks the
-- checkpoints of the clusters concerned invalid (TRUNCATE: every one).
-- The trigger argument says what changed.
CREATE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    affected text[] := '{}';
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND TG_LEVEL = 'ROW' THEN
        affected := affected || OLD.cluster;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND TG_LEVEL = 'ROW' THEN
        affected := affected || NEW.cluster;
    END IF;
    IF EXISTS (SELECT FROM @extschema@.usage_checkpoints k
                WHERE k.pinned AND k.invalidated_at IS NULL AND (TG_OP = 'TRUNCATE' OR k.cluster = ANY (affected))) THEN
        RAISE EXCEPTION '% on %: % while a pinned usage checkpoint holds usage computed with the old settings',
                        TG_OP, TG_TABLE_NAME, TG_ARGV[0]
            USING ERRCODE = '55000',
                  HINT = 'Retention removed jobs older than that checkpoint; their usage cannot be billed again. Restore the archived partitions and unpin it first.';
    END IF;
    UPDATE @extschema@.usage_checkpoints k
       SET invalidated_at = now(),
           invalidated_by = format('%s on %s: %s', TG_OP, TG_TABLE_NAME, TG_ARGV[0])
     WHERE k.invalidated_at IS NULL AND (TG_OP = 'TRUNCATE' OR k.cluster = ANY (affected));
    RETURN NULL;
END
$$;
CREATE TRIGGER invalidate_usage_checkpoints AFTER UPDATE ON @extschema@.clusters
    FOR EACH ROW WHEN (OLD.decay_mode IS DISTINCT FROM NEW.decay_mode
                       OR OLD.decay_half_life IS DISTINCT FROM NEW.decay_half_life
                       OR OLD.decay_interval IS DISTINCT FROM NEW.decay_interval
                       OR OLD.decay_factor IS DISTINCT FROM NEW.decay_factor
                       OR OLD.priority_calc_period IS DISTINCT FROM NEW.priority_calc_period
                       OR OLD.priority_last_decay IS DISTINCT FROM NEW.priority_last_decay
                       OR OLD.usage_reset_period IS DISTINCT FROM NEW.usage_reset_period
                       OR OLD.usage_last_reset IS DISTINCT FROM NEW.usage_last_reset
                       -- the periods of a reset start in the cluster's time zone
                       OR (OLD.timezone IS DISTINCT FROM NEW.timezone
                           AND pg_catalog.upper(NEW.usage_reset_period) NOT IN ('NONE', 'NOW')))
    EXECUTE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints('decay settings changed');
CREATE TRIGGER invalidate_usage_checkpoints AFTER UPDATE ON @extschema@.partitions
    FOR EACH ROW WHEN (OLD.billing_weights IS DISTINCT FROM NEW.billing_weights
                       OR OLD.billing_mode IS DISTINCT FROM NEW.billing_mode)
    EXECUTE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints('billing weights or mode changed');
CREATE TRIGGER invalidate_usage_checkpoints_insert AFTER INSERT ON @extschema@.qos
    FOR EACH ROW WHEN (NEW.usage_factor OPERATOR(pg_catalog.<>) 1)
    EXECUTE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints('a QOS with a UsageFactor other than 1 added');
CREATE TRIGGER invalidate_usage_checkpoints_update AFTER UPDATE ON @extschema@.qos
    FOR EACH ROW WHEN (OLD.usage_factor IS DISTINCT FROM NEW.usage_factor
                       OR OLD.cluster IS DISTINCT FROM NEW.cluster OR OLD.qos IS DISTINCT FROM NEW.qos)
    EXECUTE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints('UsageFactor or name changed');
CREATE TRIGGER invalidate_usage_checkpoints_delete AFTER DELETE ON @extschema@.qos
    FOR EACH ROW WHEN (OLD.usage_factor OPERATOR(pg_catalog.<>) 1)
    EXECUTE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints('a QOS with a UsageFactor other than 1 removed');
CREATE TRIGGER invalidate_usage_checkpoints_truncate AFTER TRUNCATE ON @extschema@.qos
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints('every QOS removed');

-- slurmctld's starts (usage.sql, slurmctld_starts) with decay_mode
-- 'slurm_passes': a start at S is a pass and moves the passes after it.  A
-- checkpoint at T0 holds what the passes up to T0 charged, and its
-- fair-share factors hold until the first pass after T0 (at most one
-- priority_calc_period later): a start inserted, deleted or moved at or
-- before T0, or before T0 + priority_calc_period, marks it invalid.  A
-- start later than that changes nothing the checkpoint holds: the usage
-- chained from it is decayed and charged by the passes of the query
-- (docs/decay.md#slurmctld-restarts).
CREATE FUNCTION @extschema@_internal._starts_invalidate_usage_checkpoints() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    changed record;
    cp record;
BEGIN
    FOR changed IN
        SELECT x.cluster, x.started_at
          FROM (SELECT OLD.cluster, OLD.started_at WHERE TG_OP IN ('UPDATE', 'DELETE')
                UNION ALL
                SELECT NEW.cluster, NEW.started_at WHERE TG_OP IN ('UPDATE', 'INSERT')) x (cluster, started_at)
         WHERE TG_OP <> 'UPDATE' OR (OLD.cluster, OLD.started_at) IS DISTINCT FROM (NEW.cluster, NEW.started_at)
    LOOP
        FOR cp IN SELECT k.cluster, k.as_of, k.pinned
                    FROM @extschema@.usage_checkpoints k
                    JOIN @extschema@.clusters c ON c.cluster = k.cluster
                   WHERE k.invalidated_at IS NULL AND k.cluster = changed.cluster
                     AND c.decay_mode = 'slurm_passes'
                     AND changed.started_at < k.as_of + c.priority_calc_period LOOP
            IF cp.pinned THEN
                RAISE EXCEPTION '% on slurmctld_starts: a start of cluster % at % moves the passes of the pinned usage checkpoint as of %',
                                TG_OP, cp.cluster, changed.started_at, cp.as_of
                    USING ERRCODE = '55000',
                          HINT = 'Retention removed jobs older than that checkpoint; their usage cannot be computed again. Restore the archived partitions and unpin it (fairshare.usage_checkpoints.pinned) first.';
            END IF;
            UPDATE @extschema@.usage_checkpoints k
               SET invalidated_at = now(),
                   invalidated_by = format('%s on slurmctld_starts: a start at %s', TG_OP, changed.started_at)
             WHERE k.cluster = cp.cluster AND k.as_of = cp.as_of AND k.invalidated_at IS NULL;
        END LOOP;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER invalidate_usage_checkpoints AFTER INSERT OR UPDATE OR DELETE ON @extschema@.slurmctld_starts
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._starts_invalidate_usage_checkpoints();
CREATE TRIGGER invalidate_usage_checkpoints_truncate AFTER TRUNCATE ON @extschema@.slurmctld_starts
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._settings_invalidate_usage_checkpoints('every slurmctld start removed');

SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoints', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_rows', '');
