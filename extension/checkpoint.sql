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
    -- a sparse checkpoint (docs/design.md#sparse-checkpoints): the full
    -- checkpoint of the same cluster whose rows stand for every association
    -- this one has no row of, and the decay from that one's instant to this
    -- one's, which those rows are multiplied by (NULL, NULL: a full
    -- checkpoint, a row for every association with jobs)
    base                 timestamptz,
    base_decay           float8,
    PRIMARY KEY (cluster, as_of),
    CHECK ((invalidated_at IS NULL) OPERATOR(pg_catalog.=) (invalidated_by IS NULL)),
    CONSTRAINT usage_checkpoints_base_check
        CHECK ((base IS NULL) OPERATOR(pg_catalog.=) (base_decay IS NULL)
               AND base OPERATOR(pg_catalog.<) as_of
               AND base_decay OPERATOR(pg_catalog.>=) 0 AND base_decay OPERATOR(pg_catalog.<=) 1)
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
                         CHECK (pass_usage OPERATOR(pg_catalog.>=) 0 AND pass_usage OPERATOR(pg_catalog.<) 'Infinity')
    -- decay_mode 'slurm_passes': pass_usage is the usage as slurmctld's last
    -- pass at or before T0 left it (what sshare's tree columns show until
    -- the next pass), when it differs from raw_usage; NULL: raw_usage
    -- the checkpoint (cluster, as_of) of usage_checkpoints.  Neither a
    -- foreign key nor a primary key: a chained checkpoint writes a row per
    -- association (75,001 at 10^5), and at 10^5 associations the foreign
    -- key's check of each row and the unique index on the four columns
    -- were most of the checkpoint (docs/performance.md#history-at-scale).
    -- The rows go with their checkpoint by the triggers below; one
    -- association has one row per checkpoint because checkpoint_usage,
    -- their only writer, writes the usage grouped by association.
);
COMMENT ON TABLE @extschema@.usage_checkpoint_rows IS
'The decayed usage (billing-seconds) and job count of every user association with jobs, as of each checkpoint of its cluster.';
-- what the readers look up: every row of one checkpoint (usage.sql)
CREATE INDEX usage_checkpoint_rows_checkpoint_idx ON @extschema@.usage_checkpoint_rows (cluster, as_of);

-- The rows of the checkpoints of some clusters (one instant each, same
-- order) as the readers take them: a full checkpoint's own rows; a sparse
-- one's own rows and, for every association it has no row of, its base's
-- row times the decay from the base's instant to its own
-- (docs/design.md#sparse-checkpoints).  The base's row is exactly what a
-- full checkpoint would hold for such an association up to the rounding
-- of one multiplication: no run of it ended or ran after the base (its
-- jobs are the base's; only 'exact', 'slurm' and 'step' clusters have
-- sparse checkpoints, so pass_usage is NULL).  A standard SQL body:
-- inlined into the readers' queries, an index scan of each checkpoint's
-- rows and, for a sparse one, a hash anti-join of its base's rows with
-- its own.
CREATE FUNCTION @extschema@_internal._checkpoint_rows(clusters text[], times timestamptz[])
RETURNS TABLE (cluster text, as_of timestamptz, account text, user_name text, raw_usage float8, jobs bigint,
               pass_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- A full join, which PostgreSQL runs by hashing (or merging) one side,
    -- never by a nested loop: an anti-join of the base's rows with the
    -- checkpoint's own was planned as a nested loop over a just-written
    -- checkpoint the statistics do not know yet (6 s for 74,800 rows).
    SELECT COALESCE(o.cluster, b.cluster), COALESCE(o.as_of, b.as_of), COALESCE(o.account, b.account),
           COALESCE(o.user_name, b.user_name),
           CASE WHEN o.cluster IS NOT NULL THEN o.raw_usage ELSE b.raw_usage END,
           CASE WHEN o.cluster IS NOT NULL THEN o.jobs ELSE b.jobs END,
           o.pass_usage
      FROM (SELECT r.cluster, r.as_of, r.account, r.user_name, r.raw_usage, r.jobs, r.pass_usage
              FROM @extschema@.usage_checkpoint_rows r
             WHERE r.cluster OPERATOR(pg_catalog.=) ANY (_checkpoint_rows.clusters)
               AND r.as_of OPERATOR(pg_catalog.=) ANY (_checkpoint_rows.times)
               AND r.as_of OPERATOR(pg_catalog.=)
                   _checkpoint_rows.times[pg_catalog.array_position(_checkpoint_rows.clusters, r.cluster)]) o
      FULL JOIN
           (SELECT x.cluster, k.as_of, x.account, x.user_name, x.raw_usage OPERATOR(pg_catalog.*) k.base_decay AS raw_usage,
                   x.jobs
              FROM @extschema@.usage_checkpoints k
              JOIN @extschema@.usage_checkpoint_rows x
                ON x.cluster OPERATOR(pg_catalog.=) k.cluster AND x.as_of OPERATOR(pg_catalog.=) k.base
             WHERE k.cluster OPERATOR(pg_catalog.=) ANY (_checkpoint_rows.clusters)
               AND k.as_of OPERATOR(pg_catalog.=) ANY (_checkpoint_rows.times)
               AND k.as_of OPERATOR(pg_catalog.=)
                   _checkpoint_rows.times[pg_catalog.array_position(_checkpoint_rows.clusters, k.cluster)]
               AND k.base IS NOT NULL) b
        ON b.cluster OPERATOR(pg_catalog.=) o.cluster AND b.as_of OPERATOR(pg_catalog.=) o.as_of
       AND b.account OPERATOR(pg_catalog.=) o.account AND b.user_name OPERATOR(pg_catalog.=) o.user_name;
END;
COMMENT ON FUNCTION @extschema@_internal._checkpoint_rows(text[], timestamptz[]) IS
'The usage rows of the checkpoint of each cluster at its instant (same order), a sparse checkpoint''s completed with its base''s rows decayed: what the usage readers read.';

-- Makes full the sparse checkpoints that stand on the given checkpoints
-- (clusters and instants, same order): each gets, for every association
-- it has no row of, its base's row times base_decay, as _checkpoint_rows
-- reads it, and loses its base.  Before a base's rows go (deleted with
-- it, replaced by checkpoint_usage, pruned), and for every sparse
-- checkpoint when a centre moves to Citus.  Returns how many it made full.
CREATE FUNCTION @extschema@_internal._checkpoints_make_full(clusters text[], bases timestamptz[])
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
BEGIN
    IF NOT EXISTS (SELECT FROM @extschema@.usage_checkpoints d
                     JOIN unnest(clusters, bases) AS o (cluster, as_of) ON d.cluster = o.cluster AND d.base = o.as_of) THEN
        RETURN 0;
    END IF;
    -- one statement, one snapshot: the rows read with the bases as they
    -- were before the update below
    WITH d AS MATERIALIZED (
        SELECT d.cluster, d.as_of
          FROM @extschema@.usage_checkpoints d
          JOIN unnest(clusters, bases) AS o (cluster, as_of) ON d.cluster = o.cluster AND d.base = o.as_of),
    filled AS (
        INSERT INTO @extschema@.usage_checkpoint_rows (cluster, as_of, account, user_name, raw_usage, jobs, pass_usage)
        SELECT r.cluster, r.as_of, r.account, r.user_name, r.raw_usage, r.jobs, r.pass_usage
          FROM d
         CROSS JOIN LATERAL @extschema@_internal._checkpoint_rows(ARRAY[d.cluster], ARRAY[d.as_of]) r
         WHERE NOT EXISTS (SELECT FROM @extschema@.usage_checkpoint_rows x
                            WHERE x.cluster = r.cluster AND x.as_of = r.as_of
                              AND x.account = r.account AND x.user_name = r.user_name)
        RETURNING 1),
    made AS (
        UPDATE @extschema@.usage_checkpoints k SET base = NULL, base_decay = NULL
          FROM d
         WHERE k.cluster = d.cluster AND k.as_of = d.as_of
        RETURNING 1)
    -- (filled runs whether read or not, as every data-modifying WITH)
    SELECT count(*) INTO n FROM made;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._checkpoints_make_full(text[], timestamptz[]) IS
'Makes full the sparse usage checkpoints that stand on the given ones (clusters and instants): their bases'' rows, decayed, written beside their own; returns how many.';

-- The rows of a checkpoint go with it: deleted, renamed (a cluster
-- renamed cascades into usage_checkpoints) or truncated with it.  What a
-- foreign key with ON DELETE / ON UPDATE CASCADE did, without its check of
-- every row written: a chained checkpoint writes a row per association
-- (75,001 at 10^5 associations), and that check is one index probe and
-- lock of the checkpoint per row (docs/performance.md#history-at-scale).  Rows are written by
-- checkpoint_usage alone, in the transaction that writes their
-- checkpoint; it first deletes any row left at that instant, so that no
-- row is read with a checkpoint it was not written with.  The same
-- function keeps usage_checkpoint_factor_rows with
-- usage_checkpoint_factors (sprio.sql).
CREATE FUNCTION @extschema@_internal._checkpoint_rows_follow() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_TABLE_NAME = 'usage_checkpoints' THEN
        IF TG_OP = 'TRUNCATE' THEN
            TRUNCATE @extschema@.usage_checkpoint_rows;
        ELSIF TG_OP = 'DELETE' THEN
            -- a sparse checkpoint that stands on one of those is made full
            -- first, from the rows about to go (docs/design.md#sparse-checkpoints)
            PERFORM @extschema@_internal._checkpoints_make_full(
                        ARRAY(SELECT o.cluster FROM old_checkpoints o), ARRAY(SELECT o.as_of FROM old_checkpoints o));
            DELETE FROM @extschema@.usage_checkpoint_rows r
             USING old_checkpoints o
             WHERE r.cluster = o.cluster AND r.as_of = o.as_of;
        ELSE
            UPDATE @extschema@.usage_checkpoint_rows r SET cluster = NEW.cluster, as_of = NEW.as_of
             WHERE r.cluster = OLD.cluster AND r.as_of = OLD.as_of;
            IF OLD.as_of IS DISTINCT FROM NEW.as_of THEN
                UPDATE @extschema@.usage_checkpoints k SET base = NEW.as_of
                 WHERE k.cluster = NEW.cluster AND k.base = OLD.as_of;
            END IF;
        END IF;
    ELSIF TG_TABLE_NAME = 'usage_checkpoint_factors' THEN
        IF TG_OP = 'TRUNCATE' THEN
            TRUNCATE @extschema@.usage_checkpoint_factor_rows;
        ELSIF TG_OP = 'DELETE' THEN
            DELETE FROM @extschema@.usage_checkpoint_factor_rows r
             USING old_checkpoints o
             WHERE r.cluster = o.cluster AND r.as_of = o.as_of;
            -- and the sparse factors that read those as their base: a
            -- cache, dropped (sprio_at computes the tree until the next
            -- checkpoint); their rows by this trigger again, which a
            -- statement that deletes none fires too: hence the test
            IF EXISTS (SELECT FROM @extschema@.usage_checkpoint_factors f
                         JOIN old_checkpoints o ON f.cluster = o.cluster AND f.base = o.as_of) THEN
                DELETE FROM @extschema@.usage_checkpoint_factors f
                 USING old_checkpoints o
                 WHERE f.cluster = o.cluster AND f.base = o.as_of;
            END IF;
        ELSE
            UPDATE @extschema@.usage_checkpoint_factor_rows r SET cluster = NEW.cluster, as_of = NEW.as_of
             WHERE r.cluster = OLD.cluster AND r.as_of = OLD.as_of;
            IF OLD.as_of IS DISTINCT FROM NEW.as_of THEN
                UPDATE @extschema@.usage_checkpoint_factors f SET base = NEW.as_of
                 WHERE f.cluster = NEW.cluster AND f.base = OLD.as_of;
            END IF;
        END IF;
    ELSE
        RAISE EXCEPTION '_checkpoint_rows_follow: no rows follow table %', TG_TABLE_NAME
            USING ERRCODE = '39P01', HINT = 'It is a trigger of usage_checkpoints and usage_checkpoint_factors only.';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER rows_follow_delete AFTER DELETE ON @extschema@.usage_checkpoints
    REFERENCING OLD TABLE AS old_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._checkpoint_rows_follow();
CREATE TRIGGER rows_follow_update AFTER UPDATE OF cluster, as_of ON @extschema@.usage_checkpoints
    FOR EACH ROW WHEN (OLD.cluster IS DISTINCT FROM NEW.cluster OR OLD.as_of IS DISTINCT FROM NEW.as_of)
    EXECUTE FUNCTION @extschema@_internal._checkpoint_rows_follow();
CREATE TRIGGER rows_follow_truncate AFTER TRUNCATE ON @extschema@.usage_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._checkpoint_rows_follow();

-- The jobs still running at an instant or started after it: those whose
-- end (infinity while running) is after it.  A range scan of the few jobs
-- after a checkpoint instead of a scan of the table.
CREATE INDEX jobs_end_idx ON @extschema@.jobs ((COALESCE(end_time, 'infinity'::timestamptz)))
    WHERE start_time IS NOT NULL;

-- What a checkpoint's fair-share factors are computed from besides its
-- usage (the association tree, the clusters' settings, slurmctld's starts)
-- changes only through statements whose triggers call _tree_changed for
-- the clusters whose rows they changed: it takes the cluster's tree lock,
-- an advisory lock, shared, until the writer commits, then counts the
-- change in tree_changes.  checkpoint_usage reads the count, then whether
-- a writer holds the lock of a cluster it checkpoints, before computing
-- the factors (_checkpoint_tree_version); after computing them it takes
-- those locks itself, exclusive, until it commits
-- (_checkpoint_factors_hold).  The factors are kept only if the count did
-- not move, so that no change committed in between, and a change after
-- that waits for the checkpoint's commit, then drops the factors as every
-- change of the tree does (docs/design.md#the-cached-fair-share-factors).
-- Reading the tables' rows for the same answer took 30 to 50 ms at 10^5
-- associations, twice per checkpoint, and missed a writer that committed
-- after the checkpoint's last read.
CREATE SEQUENCE @extschema@_internal.tree_changes;
SELECT pg_catalog.pg_extension_config_dump('@extschema@_internal.tree_changes', '');

-- The key of a cluster's tree lock: (hashtext of this sequence's name,
-- hashtext(cluster)); pg_locks shows it as locktype advisory, objsubid 2.
-- One lock per cluster, so that checkpoints of different clusters do not
-- wait for each other (two names with the same hash share a lock: a
-- checkpoint then drops its factors more often, never keeps wrong ones).
CREATE FUNCTION @extschema@_internal._tree_lock_key(cluster text)
RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY[pg_catalog.hashtext('@extschema@_internal.tree_changes'), pg_catalog.hashtext(cluster)];

-- Called by the triggers of the tables the factors are computed from, with
-- the clusters whose rows the statement changed (none: nothing done): the
-- locks first, then the count, so that a checkpoint that reads the count
-- before a change either sees the count move or the writer holding a lock.
CREATE FUNCTION @extschema@_internal._tree_changed(clusters text[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k integer[];
BEGIN
    IF cardinality(clusters) = 0 THEN
        RETURN;
    END IF;
    FOR k IN SELECT DISTINCT @extschema@_internal._tree_lock_key(c) FROM unnest(clusters) c LOOP
        PERFORM pg_advisory_xact_lock_shared(k[1], k[2]);
    END LOOP;
    PERFORM nextval('@extschema@_internal.tree_changes'::regclass);
END
$$;

-- The count of changes (0 before the first), as every session sees it now
-- (a sequence is not transactional).
CREATE FUNCTION @extschema@_internal._tree_change_count()
RETURNS bigint LANGUAGE sql VOLATILE
BEGIN ATOMIC
    SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END FROM @extschema@_internal.tree_changes s;
END;

-- Before computing the factors of a cluster (NULL: every cluster): the
-- count, or NULL when another session holds the tree lock of one of them,
-- a change not committed yet that the factors might not see (tried
-- exclusive and let go at once).  The count first, then the locks
-- (docs/design.md#the-cached-fair-share-factors).
CREATE FUNCTION @extschema@_internal._checkpoint_tree_version(cluster text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint := @extschema@_internal._tree_change_count();
    k integer[];
BEGIN
    FOR k IN SELECT DISTINCT @extschema@_internal._tree_lock_key(c.cluster) FROM @extschema@.clusters c
              WHERE _checkpoint_tree_version.cluster IS NULL OR c.cluster = _checkpoint_tree_version.cluster LOOP
        IF NOT pg_try_advisory_lock(k[1], k[2]) THEN
            RETURN NULL;
        END IF;
        PERFORM pg_advisory_unlock(k[1], k[2]);
    END LOOP;
    RETURN n;
END
$$;

-- After computing the factors as of as_of (of one cluster, or every cluster
-- for NULL) from a tree read at `version` (_checkpoint_tree_version): takes
-- the clusters' tree locks, exclusive, until the end of the transaction,
-- without waiting, and keeps the factors only if it got them all and the
-- count is still `version`; otherwise (or with `changed`: the usage
-- changed under the checkpoint's lock) deletes them, and sprio_at computes
-- the tree itself until the next checkpoint (sprio.sql).  Without waiting:
-- a writer holding one may be waiting for the checkpoint's lock on jobs
-- (sync_slurmdbd writes both).  Returns whether they were kept.
CREATE FUNCTION @extschema@_internal._checkpoint_factors_hold(cluster text, as_of timestamptz, version bigint,
                                                             changed boolean)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    locked boolean := true;
    k integer[];
BEGIN
    FOR k IN SELECT DISTINCT @extschema@_internal._tree_lock_key(c.cluster) FROM @extschema@.clusters c
              WHERE _checkpoint_factors_hold.cluster IS NULL OR c.cluster = _checkpoint_factors_hold.cluster
              ORDER BY 1 LOOP
        locked := pg_try_advisory_xact_lock(k[1], k[2]);
        EXIT WHEN NOT locked;
    END LOOP;
    -- (the count read once the locks are held: no change of these clusters
    -- can be counted after it until the commit)
    IF locked AND NOT changed AND version IS NOT NULL
       AND @extschema@_internal._tree_change_count() = version THEN
        RETURN true;
    END IF;
    DELETE FROM @extschema@.usage_checkpoint_factors f
     WHERE (_checkpoint_factors_hold.cluster IS NULL OR f.cluster = _checkpoint_factors_hold.cluster)
       AND f.as_of = _checkpoint_factors_hold.as_of;
    RETURN false;
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

-- Which checkpoints as of as_of are written sparse (of one cluster, or of
-- every cluster for NULL; docs/design.md#sparse-checkpoints): per cluster
-- the checkpoint it chains from (prev, the newest valid one before
-- as_of), whether that one is sparse, the full checkpoint the new one
-- stands on (prev, or prev's base) and the decay from that one's instant
-- to as_of.  A cluster is left out, and its checkpoint written full, when
-- it decays by slurmctld's passes (whose rows hold the last pass's usage
-- beside, read through the usage itself), has no checkpoint to chain
-- from, had a usage reset since prev (the usage then does not chain from
-- it), or when prev's own rows are already half as many as its base's: a
-- sparse checkpoint holds every association that ran since its base, so
-- the chain starts again from a full one before it costs as much.
CREATE FUNCTION @extschema@_internal._checkpoint_sparse_plan(cluster text, as_of timestamptz)
RETURNS TABLE (cluster text, prev timestamptz, prev_sparse boolean, base timestamptz, base_decay float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT c.cluster, k.as_of, k.base IS NOT NULL, COALESCE(k.base, k.as_of), w.decay
      -- the decay law in force at as_of
      FROM @extschema@_internal._clusters_decay_law_at(_checkpoint_sparse_plan.as_of) c
      JOIN LATERAL (SELECT x.as_of, x.base
                      FROM @extschema@.usage_checkpoints x
                     WHERE x.cluster OPERATOR(pg_catalog.=) c.cluster AND x.invalidated_at IS NULL
                       AND x.as_of OPERATOR(pg_catalog.<) _checkpoint_sparse_plan.as_of
                     ORDER BY x.as_of DESC LIMIT 1) k ON true
     CROSS JOIN LATERAL (
           SELECT COALESCE(
                    @extschema@.decayed_usage(one.u, COALESCE(k.base, k.as_of), COALESCE(k.base, k.as_of),
                                              _checkpoint_sparse_plan.as_of, c.decay_half_life)
                      FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'exact'),
                    @extschema@.decayed_usage_slurm(one.u, COALESCE(k.base, k.as_of), COALESCE(k.base, k.as_of),
                                                    _checkpoint_sparse_plan.as_of, c.decay_half_life)
                      FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'slurm'),
                    @extschema@.decayed_usage_step(one.u, COALESCE(k.base, k.as_of), COALESCE(k.base, k.as_of),
                                                   _checkpoint_sparse_plan.as_of, c.decay_interval, c.decay_factor)
                      FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'step')) AS decay
             FROM (VALUES (1::float8)) one (u)) w
     WHERE (_checkpoint_sparse_plan.cluster IS NULL OR c.cluster OPERATOR(pg_catalog.=) _checkpoint_sparse_plan.cluster)
       AND c.decay_mode OPERATOR(pg_catalog.<>) 'slurm_passes'
       -- one decay law and UsageFactor from the base to as_of: no change
       -- of them between (the usage is piecewise over them,
       -- docs/history.md#the-decay-as-of-an-instant)
       AND NOT COALESCE(@extschema@_internal._usage_law_changed(c.cluster, _checkpoint_sparse_plan.as_of)
                        OPERATOR(pg_catalog.>) COALESCE(k.base, k.as_of), false)
       AND NOT COALESCE(@extschema@_internal._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                                    c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                                    _checkpoint_sparse_plan.as_of)
                        OPERATOR(pg_catalog.>) k.as_of, false)
       -- prev's own rows fewer than half its base's (counted no further
       -- than that: an index scan of prev's rows, a few of the base's)
       AND (k.base IS NULL
            OR (SELECT pg_catalog.count(*) FROM @extschema@.usage_checkpoint_rows r
                 WHERE r.cluster OPERATOR(pg_catalog.=) c.cluster AND r.as_of OPERATOR(pg_catalog.=) k.as_of)
               OPERATOR(pg_catalog.*) 2
               OPERATOR(pg_catalog.<)
               (SELECT pg_catalog.count(*)
                  FROM (SELECT FROM @extschema@.usage_checkpoint_rows b
                         WHERE b.cluster OPERATOR(pg_catalog.=) c.cluster AND b.as_of OPERATOR(pg_catalog.=) k.base
                         LIMIT (SELECT pg_catalog.count(*) FROM @extschema@.usage_checkpoint_rows r
                                 WHERE r.cluster OPERATOR(pg_catalog.=) c.cluster
                                   AND r.as_of OPERATOR(pg_catalog.=) k.as_of) OPERATOR(pg_catalog.*) 2 OPERATOR(pg_catalog.+) 1) b));
END;
COMMENT ON FUNCTION @extschema@_internal._checkpoint_sparse_plan(text, timestamptz) IS
'The clusters whose usage checkpoint as of as_of is written sparse: the checkpoint it chains from, whether that one is sparse, the full checkpoint it stands on and the decay from that one to as_of.';

-- The rows a checkpoint as of as_of writes (of one cluster, or of every
-- cluster for NULL; from_jobs: from the jobs alone): the usage of every association with jobs
-- (_association_usage), and for the clusters of a sparse plan
-- (_checkpoint_sparse_plan's cluster, prev and prev_sparse, as arrays in
-- the same order) only the associations whose usage is not their base's
-- row decayed: those with a run started by as_of that ran or ended after
-- prev (a range scan of jobs_end_idx), and those prev itself has a row of
-- when it is sparse.  An association with no such run has had no run
-- since the base: its usage is the base's row times the decay, which is
-- what the readers take for it (_checkpoint_rows).
CREATE FUNCTION @extschema@_internal._checkpoint_new_rows(as_of timestamptz, from_jobs boolean, cluster text,
                                                         sparse_clusters text[], prevs timestamptz[],
                                                         prevs_sparse boolean[])
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint, pass_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH active AS (
        SELECT j.cluster, j.account, j.user_name
          FROM @extschema@.jobs j
         WHERE j.start_time IS NOT NULL AND j.start_time OPERATOR(pg_catalog.<=) _checkpoint_new_rows.as_of
           AND j.cluster OPERATOR(pg_catalog.=) ANY (_checkpoint_new_rows.sparse_clusters)
           AND COALESCE(j.end_time, 'infinity'::timestamptz)
               OPERATOR(pg_catalog.>) (SELECT pg_catalog.min(x.t) FROM pg_catalog.unnest(_checkpoint_new_rows.prevs) x (t))
           AND COALESCE(j.end_time, 'infinity'::timestamptz)
               OPERATOR(pg_catalog.>) _checkpoint_new_rows.prevs[pg_catalog.array_position(_checkpoint_new_rows.sparse_clusters, j.cluster)]
        UNION
        SELECT r.cluster, r.account, r.user_name
          FROM @extschema@.usage_checkpoint_rows r
         WHERE r.cluster OPERATOR(pg_catalog.=) ANY (_checkpoint_new_rows.sparse_clusters)
           AND r.as_of OPERATOR(pg_catalog.=) ANY (_checkpoint_new_rows.prevs)
           AND r.as_of OPERATOR(pg_catalog.=) _checkpoint_new_rows.prevs[pg_catalog.array_position(_checkpoint_new_rows.sparse_clusters, r.cluster)]
           AND _checkpoint_new_rows.prevs_sparse[pg_catalog.array_position(_checkpoint_new_rows.sparse_clusters, r.cluster)])
    SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs, NULLIF(u.pass_usage, u.raw_usage)
      FROM @extschema@_internal._association_usage(_checkpoint_new_rows.as_of, _checkpoint_new_rows.from_jobs,
                                                   _checkpoint_new_rows.cluster) u
      -- a join (hashed: checkpoint_usage plans no nested loop), not an
      -- EXISTS under an OR, which is a subplan: with the default work_mem
      -- it was run once per association, each a scan of the runs (minutes)
      LEFT JOIN active a
        ON a.cluster OPERATOR(pg_catalog.=) u.cluster AND a.account OPERATOR(pg_catalog.=) u.account
       AND a.user_name OPERATOR(pg_catalog.=) u.user_name
     WHERE u.cluster OPERATOR(pg_catalog.<>) ALL (_checkpoint_new_rows.sparse_clusters)
        OR a.cluster IS NOT NULL;
END;
COMMENT ON FUNCTION @extschema@_internal._checkpoint_new_rows(timestamptz, boolean, text, text[], timestamptz[], boolean[]) IS
'The usage rows a checkpoint as of as_of writes: every association''s, or for the clusters of a sparse plan those whose usage is not their base''s row decayed.';

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
-- the live settings, whatever scenario the session reads
-- (docs/history.md#the-policy-lab): a checkpoint holds the live usage
SET fairshare.scenario = ''
AS $$
DECLARE
    -- the lock taken before the rows are written (see above)
    lock_first boolean;
    -- the clusters whose checkpoint is sparse (_checkpoint_sparse_plan):
    -- the checkpoint each chains from, whether that one is sparse, its
    -- base and the decay from the base (same order)
    sp_clusters text[] := '{}';
    sp_prev timestamptz[] := '{}';
    sp_prev_sparse boolean[] := '{}';
    sp_base timestamptz[] := '{}';
    sp_decay float8[] := '{}';
    -- the clusters still sparse under the lock
    sp_clusters_now text[];
    -- associations whose usage differs under the lock
    changed bigint;
    -- the count of changes of the tree the factors were computed from
    -- (_checkpoint_tree_version), and whether they were computed before
    -- the lock
    tree_version bigint;
    factors_done boolean := false;
    -- what the rows written before the lock were computed from
    runs_read text[];
    -- on a Citus cluster no fair-share factors are cached with the
    -- checkpoints: the triggers that drop them when the tree changes write
    -- another table, which the copies of a reference table cannot do, and
    -- sprio_at computes the tree itself (docs/citus.md#usage-checkpoints-and-retention-on-citus)
    no_factors boolean := @extschema@_internal._citus_table_kind('@extschema@.jobs'::regclass) IS NOT NULL;
BEGIN
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
    -- which clusters' checkpoints are written sparse (none from the jobs
    -- alone, nor on Citus, whose reference tables would hold every
    -- checkpoint's base apart from its rows: docs/citus.md)
    IF NOT from_jobs AND NOT no_factors THEN
        SELECT COALESCE(array_agg(p.cluster ORDER BY p.cluster), '{}'),
               COALESCE(array_agg(p.prev ORDER BY p.cluster), '{}'),
               COALESCE(array_agg(p.prev_sparse ORDER BY p.cluster), '{}'),
               COALESCE(array_agg(p.base ORDER BY p.cluster), '{}'),
               COALESCE(array_agg(p.base_decay ORDER BY p.cluster), '{}')
          INTO sp_clusters, sp_prev, sp_prev_sparse, sp_base, sp_decay
          FROM @extschema@_internal._checkpoint_sparse_plan(checkpoint_usage.cluster, checkpoint_usage.as_of) p;
    END IF;

    -- A checkpoint at the same instant is replaced: the new one chains
    -- from the one before it.  The new checkpoints are written marked
    -- invalid, so that the computation, which reads the valid ones, does
    -- not start from them, then marked valid; all in this transaction.
    DELETE FROM @extschema@.usage_checkpoints k
     WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
       AND k.as_of = checkpoint_usage.as_of;
    -- and any row left at the instant without its checkpoint (no foreign
    -- key holds them to it, see usage_checkpoint_rows)
    -- (cluster = ANY: an index condition on (cluster, as_of); an OR of
    -- "cluster IS NULL" read the whole table)
    DELETE FROM @extschema@.usage_checkpoint_rows r
     WHERE r.cluster = ANY (ARRAY(SELECT c.cluster FROM @extschema@.clusters c
                                   WHERE checkpoint_usage.cluster IS NULL OR c.cluster = checkpoint_usage.cluster))
       AND r.as_of = checkpoint_usage.as_of;
    INSERT INTO @extschema@.usage_checkpoints (cluster, as_of, invalidated_at, invalidated_by, computed_from,
                                               base, base_decay)
    SELECT c.cluster, checkpoint_usage.as_of, now(), 'being computed',
           (SELECT max(k.as_of) FROM @extschema@.usage_checkpoints k
             WHERE NOT from_jobs AND k.cluster = c.cluster AND k.invalidated_at IS NULL
               AND k.as_of <= checkpoint_usage.as_of),
           sp_base[array_position(sp_clusters, c.cluster)], sp_decay[array_position(sp_clusters, c.cluster)]
      FROM @extschema@.clusters c
     WHERE checkpoint_usage.cluster IS NULL OR c.cluster = checkpoint_usage.cluster;
    -- The rows, and (chained, lock taken late) what they were computed
    -- from, in one statement, so from one snapshot: the runs read and the
    -- checkpoint chained from (_checkpoint_runs_read).
    WITH written AS (
        INSERT INTO @extschema@.usage_checkpoint_rows (cluster, as_of, account, user_name, raw_usage, jobs, pass_usage)
        SELECT u.cluster, checkpoint_usage.as_of, u.account, u.user_name, u.raw_usage, u.jobs, u.pass_usage
          FROM @extschema@_internal._checkpoint_new_rows(checkpoint_usage.as_of, from_jobs, checkpoint_usage.cluster,
                                                         sp_clusters, sp_prev, sp_prev_sparse) u
        RETURNING 1)
    SELECT CASE WHEN NOT lock_first
                THEN @extschema@_internal._checkpoint_runs_read(checkpoint_usage.cluster, checkpoint_usage.as_of) END
      INTO runs_read;
    IF NOT lock_first THEN
        -- the fair-share factors of these rows, before the lock too
        -- (_checkpoint_factors reads valid checkpoints only: marked valid
        -- for it, invisible outside this transaction, then marked back),
        -- after the count of changes of what they are computed from
        -- besides the usage: the tree and the clusters' settings
        IF NOT no_factors THEN
            tree_version := @extschema@_internal._checkpoint_tree_version(checkpoint_usage.cluster);
            UPDATE @extschema@.usage_checkpoints k SET invalidated_at = NULL, invalidated_by = NULL
             WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
               AND k.as_of = checkpoint_usage.as_of;
            PERFORM @extschema@_internal._checkpoint_factors(checkpoint_usage.cluster, checkpoint_usage.as_of);
            UPDATE @extschema@.usage_checkpoints k SET invalidated_at = now(), invalidated_by = 'being computed'
             WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
               AND k.as_of = checkpoint_usage.as_of;
        END IF;

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
            -- Something read changed: the sparse plan again under the lock.
            -- If the checkpoint chained from or its base is no longer the
            -- same, this one is written full (the rows below then add
            -- every association it has no row of).
            SELECT COALESCE(array_agg(p.cluster ORDER BY p.cluster), '{}')
              INTO sp_clusters_now
              FROM @extschema@_internal._checkpoint_sparse_plan(checkpoint_usage.cluster, checkpoint_usage.as_of) p
             WHERE p.cluster = ANY (sp_clusters)
               AND p.prev = sp_prev[array_position(sp_clusters, p.cluster)]
               AND p.base = sp_base[array_position(sp_clusters, p.cluster)];
            IF sp_clusters_now IS DISTINCT FROM sp_clusters THEN
                UPDATE @extschema@.usage_checkpoints k SET base = NULL, base_decay = NULL
                 WHERE k.cluster = ANY (sp_clusters) AND k.cluster <> ALL (sp_clusters_now)
                   AND k.as_of = checkpoint_usage.as_of;
                SELECT COALESCE(array_agg(x.c ORDER BY x.c), '{}'), COALESCE(array_agg(x.p ORDER BY x.c), '{}'),
                       COALESCE(array_agg(x.s ORDER BY x.c), '{}')
                  INTO sp_clusters, sp_prev, sp_prev_sparse
                  FROM unnest(sp_clusters, sp_prev, sp_prev_sparse) x (c, p, s)
                 WHERE x.c = ANY (sp_clusters_now);
            END IF;
            -- the same computation under the lock, against the rows written
            SELECT count(*) INTO changed
              FROM (SELECT r.cluster, r.account, r.user_name, r.raw_usage, r.jobs, r.pass_usage
                      FROM @extschema@.usage_checkpoint_rows r
                     WHERE (checkpoint_usage.cluster IS NULL OR r.cluster = checkpoint_usage.cluster)
                       AND r.as_of = checkpoint_usage.as_of) w
              FULL JOIN
                   (SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs, u.pass_usage
                      FROM @extschema@_internal._checkpoint_new_rows(checkpoint_usage.as_of, false, checkpoint_usage.cluster,
                                                                     sp_clusters, sp_prev, sp_prev_sparse) u) n
                ON n.cluster = w.cluster AND n.account = w.account AND n.user_name = w.user_name
             WHERE w.cluster IS NULL OR n.cluster IS NULL
                OR (w.raw_usage, w.jobs, w.pass_usage) IS DISTINCT FROM (n.raw_usage, n.jobs, n.pass_usage);
            -- the associations that differ (a write committed in between) are
            -- written again, those alone (the usage computed once more: rare)
            IF changed > 0 THEN
                WITH n AS MATERIALIZED (
                    SELECT u.cluster, u.account, u.user_name, u.raw_usage, u.jobs, u.pass_usage
                      FROM @extschema@_internal._checkpoint_new_rows(checkpoint_usage.as_of, false, checkpoint_usage.cluster,
                                                                     sp_clusters, sp_prev, sp_prev_sparse) u),
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
        IF NOT no_factors THEN
            PERFORM @extschema@_internal._checkpoint_factors_hold(checkpoint_usage.cluster, checkpoint_usage.as_of,
                                                                  tree_version, changed > 0);
        END IF;
        factors_done := true;
    END IF;
    UPDATE @extschema@.usage_checkpoints k SET invalidated_at = NULL, invalidated_by = NULL
     WHERE (checkpoint_usage.cluster IS NULL OR k.cluster = checkpoint_usage.cluster)
       AND k.as_of = checkpoint_usage.as_of;

    -- prune: invalid ones, and valid ones neither among the keep_recent
    -- newest nor the newest of a day of the last keep_days
    -- (nor the base of one kept: docs/design.md#sparse-checkpoints)
    WITH p AS (
            SELECT x.cluster, x.as_of, x.base, x.pinned,
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
             WHERE checkpoint_usage.cluster IS NULL OR x.cluster = checkpoint_usage.cluster)
    DELETE FROM @extschema@.usage_checkpoints k
     USING p
     WHERE k.cluster = p.cluster AND k.as_of = p.as_of AND NOT p.kept AND NOT k.pinned
       AND NOT EXISTS (SELECT FROM p d WHERE d.cluster = p.cluster AND d.base = p.as_of AND (d.kept OR d.pinned));
    -- the fair-share factors as of the new checkpoints, for sprio_at (sprio.sql)
    -- (the tables the usage is read from are locked; the tree is not: the
    -- same count before and lock after as above)
    IF NOT factors_done AND NOT no_factors THEN
        tree_version := @extschema@_internal._checkpoint_tree_version(checkpoint_usage.cluster);
        IF tree_version IS NOT NULL THEN
            PERFORM @extschema@_internal._checkpoint_factors(checkpoint_usage.cluster, checkpoint_usage.as_of);
            PERFORM @extschema@_internal._checkpoint_factors_hold(checkpoint_usage.cluster, checkpoint_usage.as_of,
                                                                  tree_version, false);
        END IF;
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
-- partitions and clusters cascade into jobs).  On one server the statement
-- triggers below see every write; on a Citus cluster, whose shards fire no
-- trigger, fairshare's writers call the same two functions with the runs
-- they wrote (_usage_checkpoints_by_writer,
-- docs/citus.md#usage-checkpoints-and-retention-on-citus).

-- Whether a run, as it was (o_*: NULL when it was not there) and as it is
-- (n_*: NULL when it is gone), changes what the checkpoint of cp_cluster at
-- cp_as_of holds.  A standard SQL body: inlined into the queries of the
-- trigger and of the writers, not called once per run.
CREATE FUNCTION @extschema@_internal._checkpoint_run_changed(
    cp_cluster text, cp_as_of timestamptz,
    o_cluster text, o_account text, o_user_name text, o_partition text, o_qos text, o_tres text,
    o_cpus integer, o_start_time timestamptz, o_end_time timestamptz,
    n_cluster text, n_account text, n_user_name text, n_partition text, n_qos text, n_tres text,
    n_cpus integer, n_start_time timestamptz, n_end_time timestamptz)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN COALESCE(o_cluster OPERATOR(pg_catalog.=) cp_cluster AND o_start_time OPERATOR(pg_catalog.<=) cp_as_of, false)
            THEN NOT COALESCE(n_cluster OPERATOR(pg_catalog.=) cp_cluster AND n_start_time OPERATOR(pg_catalog.<=) cp_as_of, false)
                 OR (o_account, o_user_name, o_partition, o_qos, o_tres, o_cpus, o_start_time,
                     LEAST(COALESCE(o_end_time, 'infinity'::timestamptz), cp_as_of))
                    IS DISTINCT FROM
                    (n_account, n_user_name, n_partition, n_qos, n_tres, n_cpus, n_start_time,
                     LEAST(COALESCE(n_end_time, 'infinity'::timestamptz), cp_as_of))
            ELSE COALESCE(n_cluster OPERATOR(pg_catalog.=) cp_cluster AND n_start_time OPERATOR(pg_catalog.<=) cp_as_of, false) END;
COMMENT ON FUNCTION @extschema@_internal._checkpoint_run_changed(text, timestamptz, text, text, text, text, text, text, integer, timestamptz, timestamptz, text, text, text, text, text, text, integer, timestamptz, timestamptz) IS
'true when a run, as it was (o_*, NULL: absent) and as it is (n_*, NULL: gone), changes what the usage checkpoint of cp_cluster at cp_as_of holds: its part before cp_as_of.';

-- Marks the checkpoint (cluster, as_of) invalid because of `op` (a write to
-- jobs of job `job`, '' for a TRUNCATE; NULL: op says it all).  A pinned
-- checkpoint (retention) cannot be invalidated: raises 55000 instead.
CREATE FUNCTION @extschema@_internal._usage_checkpoint_invalidate(cluster text, as_of timestamptz, op text, job text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    why text;
BEGIN
    IF EXISTS (SELECT FROM @extschema@.usage_checkpoints k
                WHERE k.cluster = _usage_checkpoint_invalidate.cluster AND k.as_of = _usage_checkpoint_invalidate.as_of
                  AND k.pinned AND k.invalidated_at IS NULL) THEN
        IF job IS NULL THEN
            RAISE EXCEPTION '%: the usage checkpoint of cluster % as of % is pinned: the runs started before it cannot change',
                            op, cluster, as_of
                USING ERRCODE = '55000',
                      HINT = 'Retention removed jobs older than that checkpoint and keeps their usage in it only; restore the archived partitions and unpin it (fairshare.usage_checkpoints.pinned) to change history before it.';
        END IF;
        RAISE EXCEPTION 'job % of cluster % started before the pinned usage checkpoint as of %: it cannot change',
                        job, cluster, as_of
            USING ERRCODE = '55000',
                  HINT = 'Retention removed jobs older than that checkpoint and keeps their usage in it only; restore the archived partitions and unpin it (fairshare.usage_checkpoints.pinned) to change history before it.';
    END IF;
    -- (the reason computed first: Citus runs no function but an immutable
    -- one in a CASE of a statement that writes a reference table)
    why := CASE WHEN op = 'TRUNCATE' THEN 'TRUNCATE jobs'
                WHEN job IS NULL THEN op
                ELSE format('%s on jobs: job %s, started before the checkpoint', op, job) END;
    UPDATE @extschema@.usage_checkpoints k
       SET invalidated_at = now(), invalidated_by = why
     WHERE k.cluster = _usage_checkpoint_invalidate.cluster AND k.as_of = _usage_checkpoint_invalidate.as_of
       AND k.invalidated_at IS NULL;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._usage_checkpoint_invalidate(text, timestamptz, text, text) IS
'Marks one usage checkpoint invalid, saying why (op, and the job whose write did it); raises 55000 when it is pinned by retention.';

-- The trigger is per statement, over the statement's rows: while no
-- checkpoint is valid, a write pays one lookup of usage_checkpoints.  A
-- role that writes jobs needs SELECT and UPDATE on usage_checkpoints
-- (fairshare_admin has them).
CREATE FUNCTION @extschema@_internal._jobs_invalidate_usage_checkpoints() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cp record;
    job text;
BEGIN
    FOR cp IN SELECT k.cluster, k.as_of FROM @extschema@.usage_checkpoints k
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
             WHERE @extschema@_internal._checkpoint_run_changed(cp.cluster, cp.as_of,
                       o.cluster, o.account, o.user_name, o.partition, o.qos, o.tres, o.cpus, o.start_time, o.end_time,
                       n.cluster, n.account, n.user_name, n.partition, n.qos, n.tres, n.cpus, n.start_time, n.end_time)
             -- the first by id: the same run named whatever order the
             -- join returns the rows in
             ORDER BY 1
             LIMIT 1;
        ELSE
            job := '';      -- TRUNCATE
        END IF;
        IF job IS NOT NULL THEN
            PERFORM @extschema@_internal._usage_checkpoint_invalidate(cp.cluster, cp.as_of, TG_OP, job);
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

-- On a Citus cluster (docs/citus.md#usage-checkpoints-and-retention-on-citus):
-- the newest valid checkpoint's instant, up to which fairshare's writers
-- hand the runs they write to _usage_checkpoints_by_writer (a run started
-- after every valid checkpoint changes none); NULL without Citus, where the
-- triggers above do it, and while no checkpoint is valid.  It first takes
-- the lock the write takes anyway (ROW EXCLUSIVE on jobs): checkpoint_usage
-- marks its checkpoints valid under a SHARE lock, so none becomes valid
-- between this look and the writer's commit, as none does on one server
-- between a write and its trigger.  With a valid checkpoint, the rest of
-- the transaction uses one connection per node (_citus_sequential): Citus
-- refuses to write usage_checkpoints, a reference table the distributed
-- jobs is tied to by their keys to clusters, after a parallel access to
-- jobs in the same transaction.  A writer calls it before it reads jobs.
CREATE FUNCTION @extschema@_internal._checkpoints_by_writer()
RETURNS timestamptz LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    upto timestamptz;
BEGIN
    IF @extschema@_internal._citus_table_kind('@extschema@.jobs'::regclass) IS NULL THEN
        RETURN NULL;
    END IF;
    LOCK TABLE @extschema@.jobs IN ROW EXCLUSIVE MODE;
    upto := (SELECT max(k.as_of) FROM @extschema@.usage_checkpoints k WHERE k.invalidated_at IS NULL);
    IF upto IS NOT NULL THEN
        PERFORM @extschema@_internal._citus_sequential();
    END IF;
    RETURN upto;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._checkpoints_by_writer() IS
'On a Citus cluster, takes ROW EXCLUSIVE on jobs and returns the instant of the newest valid usage checkpoint: fairshare''s writers pass the runs started by then to _usage_checkpoints_by_writer. NULL without Citus (the triggers on jobs do it) or without a valid checkpoint.';

-- A run as _usage_checkpoints_by_writer reads it: the key and what a
-- checkpoint holds of it.  A standard SQL body, inlined into the writers'
-- queries.
CREATE FUNCTION @extschema@_internal._checkpoint_run_json(cluster text, job_id text, submit_time timestamptz,
    account text, user_name text, partition text, qos text, tres text, cpus integer,
    start_time timestamptz, end_time timestamptz)
RETURNS jsonb LANGUAGE sql STABLE PARALLEL SAFE
RETURN pg_catalog.jsonb_build_object('cluster', cluster, 'job_id', job_id, 'submit_time', submit_time,
                                     'account', account, 'user_name', user_name, 'partition', partition,
                                     'qos', qos, 'tres', tres, 'cpus', cpus,
                                     'start_time', start_time, 'end_time', end_time);
COMMENT ON FUNCTION @extschema@_internal._checkpoint_run_json(text, text, timestamptz, text, text, text, text, text, integer, timestamptz, timestamptz) IS
'A run as a JSON object of its key and the columns a usage checkpoint holds of it (_usage_checkpoints_by_writer).';

-- The statement triggers' work, done by a writer on a Citus cluster: the
-- runs it wrote as they were (old_runs) and as they are (new_runs), JSON
-- arrays of _checkpoint_run_json objects (NULL: none), paired by key as
-- the trigger pairs its transition tables; each valid checkpoint that one
-- of them changes is marked invalid (55000 for a pinned one), saying op.
CREATE FUNCTION @extschema@_internal._usage_checkpoints_by_writer(op text, old_runs jsonb, new_runs jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cp record;
    job text;
BEGIN
    IF old_runs IS NULL AND new_runs IS NULL THEN
        RETURN;
    END IF;
    FOR cp IN SELECT k.cluster, k.as_of FROM @extschema@.usage_checkpoints k
               WHERE k.invalidated_at IS NULL ORDER BY k.cluster, k.as_of LOOP
        SELECT COALESCE(o.job_id, n.job_id) INTO job
          FROM jsonb_populate_recordset(NULL::@extschema@.jobs, COALESCE(old_runs, '[]')) o
          FULL JOIN jsonb_populate_recordset(NULL::@extschema@.jobs, COALESCE(new_runs, '[]')) n
            ON n.cluster = o.cluster AND n.job_id = o.job_id AND n.submit_time = o.submit_time
         WHERE @extschema@_internal._checkpoint_run_changed(cp.cluster, cp.as_of,
                   o.cluster, o.account, o.user_name, o.partition, o.qos, o.tres, o.cpus, o.start_time, o.end_time,
                   n.cluster, n.account, n.user_name, n.partition, n.qos, n.tres, n.cpus, n.start_time, n.end_time)
         ORDER BY 1
         LIMIT 1;
        IF job IS NOT NULL THEN
            PERFORM @extschema@_internal._usage_checkpoint_invalidate(cp.cluster, cp.as_of, op, job);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._usage_checkpoints_by_writer(text, jsonb, jsonb) IS
'On a Citus cluster, what the triggers on jobs do on one server: marks invalid each valid usage checkpoint that the runs a writer changed (old_runs as they were, new_runs as they are) alter; 55000 for a pinned one.';

-- A user's own INSERT, UPDATE or DELETE on jobs on a Citus cluster fires
-- no trigger (docs/citus.md#usage-checkpoints-and-retention-on-citus): this
-- marks invalid every valid checkpoint of the cluster (NULL: of every
-- cluster) as of `since` or later (NULL: every one), which such a write to
-- runs started at or after `since` may have changed.  Refuses (55000) while
-- one of them is pinned by retention, before it changes anything.  Returns
-- how many it marked.
CREATE FUNCTION @extschema@.invalidate_usage_checkpoints(cluster text, since timestamptz DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cp record;
    n bigint := 0;
BEGIN
    IF invalidate_usage_checkpoints.cluster IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster = invalidate_usage_checkpoints.cluster) THEN
        RAISE EXCEPTION 'invalidate_usage_checkpoints: cluster "%" does not exist', invalidate_usage_checkpoints.cluster
            USING ERRCODE = '22023', HINT = 'Pass a cluster of fairshare.clusters, or NULL for every cluster.';
    END IF;
    IF since IS NOT NULL AND NOT isfinite(since) THEN
        RAISE EXCEPTION 'invalidate_usage_checkpoints: since must be a finite instant or NULL, not %', since
            USING ERRCODE = '22023',
                  HINT = 'Pass the earliest start of the runs changed, or NULL for every checkpoint of the cluster.';
    END IF;
    FOR cp IN SELECT k.cluster, k.as_of FROM @extschema@.usage_checkpoints k
               WHERE k.invalidated_at IS NULL
                 AND (invalidate_usage_checkpoints.cluster IS NULL OR k.cluster = invalidate_usage_checkpoints.cluster)
                 AND (since IS NULL OR k.as_of >= since)
               ORDER BY k.pinned DESC, k.cluster, k.as_of LOOP
        PERFORM @extschema@_internal._usage_checkpoint_invalidate(cp.cluster, cp.as_of,
                    format('invalidate_usage_checkpoints(%L, %s)', invalidate_usage_checkpoints.cluster,
                           COALESCE(quote_literal(since), 'NULL')), NULL);
        n := n + 1;
    END LOOP;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.invalidate_usage_checkpoints(text, timestamptz) IS
'Marks invalid the valid usage checkpoints of a cluster (NULL: every cluster) as of since or later (NULL: all): what the triggers on jobs do on one server, for a user''s own write to jobs on a Citus cluster. Refuses (55000) on a checkpoint pinned by retention. Returns how many it marked.';

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
    IF TG_TABLE_NAME = 'slurmctld_starts' THEN
        -- (a TRUNCATE: every cluster, as _starts_invalidate_usage_checkpoints)
        PERFORM @extschema@_internal._tree_changed(ARRAY(SELECT c.cluster FROM @extschema@.clusters c));
    END IF;
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
    -- the starts place the passes of the cached factors (valid_before)
    PERFORM @extschema@_internal._tree_changed(
        ARRAY(SELECT x.c FROM (VALUES (CASE WHEN TG_OP <> 'INSERT' THEN OLD.cluster END),
                                      (CASE WHEN TG_OP <> 'DELETE' THEN NEW.cluster END)) x (c)
               WHERE x.c IS NOT NULL));
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
