-- ---------------------------------------------------------------------------
-- sprio: every pending job's multifactor priority over the model, as
-- `sprio -l` shows it, at any instant (docs/policies.md#job-priority;
-- docs/slurm.md#what-sshare-and-sprio-print), and PROTEUS's procedure (its
-- page, seed 001 in docs/policies.md#the-five-pages): order the pending jobs by
-- priority and start them while resources remain.
--
-- Weights, PriorityMaxAge, PriorityFavorSmall and the cluster size come from
-- fairshare.clusters, PriorityJobFactor from fairshare.partitions, QOS
-- priorities from fairshare.qos, and the fair-share factor from
-- fairshare.sshare_at(as_of).  The configuration tables hold the current
-- configuration only: a past as_of sees the jobs and usage known then under
-- today's weights.
-- ---------------------------------------------------------------------------

-- Seconds as Slurm prints a duration: D-HH:MM:SS (whole seconds).  Strict
-- operators only (format() is not strict), so that the planner inlines it
-- into sprio_at instead of running a SQL function per pending job
-- (docs/performance.md).
CREATE FUNCTION @extschema@_internal._slurm_duration(seconds float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.floor(seconds OPERATOR(pg_catalog./) 86400)::bigint::text
    OPERATOR(pg_catalog.||) '-' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 3600)::bigint OPERATOR(pg_catalog.%) 24)::text, 2, '0')
    OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds OPERATOR(pg_catalog./) 60)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0')
    OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||)
    pg_catalog.lpad((pg_catalog.floor(seconds)::bigint OPERATOR(pg_catalog.%) 60)::text, 2, '0');

-- An interval in seconds, a month counting 30 days, as age_factor reads it.
CREATE FUNCTION @extschema@_internal._interval_seconds(iv interval)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (((((pg_catalog.date_part('year', iv) OPERATOR(pg_catalog.*) 12)
             OPERATOR(pg_catalog.+) pg_catalog.date_part('month', iv)) OPERATOR(pg_catalog.*) 30)
           OPERATOR(pg_catalog.+) pg_catalog.date_part('day', iv)) OPERATOR(pg_catalog.*) 86400)
       OPERATOR(pg_catalog.+) (pg_catalog.date_part('hour', iv) OPERATOR(pg_catalog.*) 3600)
       OPERATOR(pg_catalog.+) (pg_catalog.date_part('minute', iv) OPERATOR(pg_catalog.*) 60)
       OPERATOR(pg_catalog.+) pg_catalog.date_part('second', iv);

-- A number for the explanation: fixed decimals, no trailing zeros.
CREATE FUNCTION @extschema@_internal._num(x float8, decimals integer)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.trim_scale(pg_catalog.round(x::numeric, decimals))::text;

-- sprio_at's rows, without the explanation: with what it prints besides
-- them (the x_ columns), from which sprio_at builds it when it is read.
CREATE FUNCTION @extschema@_internal._sprio_rows(as_of timestamptz)
RETURNS TABLE (
    cluster            text,
    job_id             text,
    partition          text,
    user_name          text,
    account            text,
    qos                text,
    -- PRIORITY: the job's priority as Slurm stores it (truncated, 1..4294967295)
    priority           bigint,
    -- AGE FAIRSHARE JOBSIZE PARTITION QOS NICE as sprio -l prints them (%.0f)
    age                bigint,
    fairshare          bigint,
    job_size           bigint,
    partition_prio     bigint,
    qos_prio           bigint,
    nice               integer,
    -- the same weighted factors at full precision
    age_weighted       float8,
    fairshare_weighted float8,
    job_size_weighted  float8,
    partition_weighted float8,
    qos_weighted       float8,
    -- the sum before clamping and truncation
    priority_exact     float8,
    -- the normalised factors (sprio -n); 0 where the weight is 0, as Slurm
    age_factor         float8,
    fairshare_factor   float8,
    job_size_factor    float8,
    partition_factor   float8,
    qos_factor         float8,
    submit_time        timestamptz,
    eligible_time      timestamptz,
    -- what sprio_at's explanation prints besides the columns above
    x_pending_s        float8,
    x_max_age_text     text,
    x_w_age            float8,
    x_w_fs             float8,
    x_w_js             float8,
    x_w_part           float8,
    x_w_qos            float8,
    x_no_share         boolean,
    x_favor_small      boolean,
    x_nodes            integer,
    x_cpus             integer,
    x_total_nodes      bigint,
    x_total_cpus       bigint,
    x_pjf              integer,
    x_max_pjf          integer,
    x_qos_priority     integer,
    x_max_qos          integer)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
-- The planner has no statistics for sshare_at's rows: it prices a hash join
-- on them as if each key were shared by a tenth of the rows, and sorts the
-- pending jobs and the associations for a merge join instead (0.2 s of
-- 1.5 s at 10^5 pending jobs; docs/performance.md).
SET enable_mergejoin = off
-- PL/pgSQL, not SQL: a SQL function that cannot be inlined (STRICT, SET)
-- plans its query with as_of unknown, which Citus cannot distribute; here
-- each call plans it with the value (docs/citus.md).
SET plan_cache_mode = force_custom_plan
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
DECLARE
    -- the clusters whose fair-share factors are cached for as_of, and the
    -- checkpoints they are cached with (sprio.sql)
    cp_clusters text[];
    cp_times timestamptz[];
    -- every fair_tree and classic cluster has them: read them instead of
    -- computing sshare_at's tree
    cached boolean;
BEGIN
    -- per cluster, the checkpoint _association_usage starts from at as_of
    -- (the newest valid one at or before it, none when the usage was reset
    -- since), when its factors hold at as_of
    SELECT COALESCE(array_agg(k.cluster), '{}'), COALESCE(array_agg(k.as_of), '{}')
      INTO cp_clusters, cp_times
      FROM (SELECT DISTINCT ON (x.cluster) x.cluster, x.as_of
              FROM @extschema@.usage_checkpoints x
             WHERE x.invalidated_at IS NULL AND x.as_of <= _sprio_rows.as_of
               -- a scenario's factors are computed (docs/history.md#the-policy-lab)
               AND @extschema@_internal._scenario() IS NULL
             ORDER BY x.cluster, x.as_of DESC) k
      JOIN @extschema@.clusters c ON c.cluster = k.cluster
      JOIN @extschema@.usage_checkpoint_factors f
        ON f.cluster = k.cluster AND f.as_of = k.as_of AND _sprio_rows.as_of < f.valid_before
     WHERE upper(c.usage_reset_period) = 'NONE'
        OR NOT COALESCE(@extschema@_internal._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                                       c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                                       _sprio_rows.as_of,
                                                       @extschema@_internal._slurmctld_starts(c.cluster)) > k.as_of, false);
    SELECT NOT EXISTS (SELECT FROM @extschema@.clusters c
                        WHERE c.fairshare_algorithm IN ('fair_tree', 'classic') AND c.cluster <> ALL (cp_clusters))
      INTO cached;
    RETURN QUERY
    WITH sizes AS (
        -- the cluster's size for the job-size factor: configured, or the
        -- sum over its partitions
        SELECT c.cluster,
               COALESCE(c.total_nodes::bigint, pg_catalog.sum(p.nodes)) AS total_nodes,
               COALESCE(c.total_cpus::bigint,
                        pg_catalog.sum(p.nodes::bigint OPERATOR(pg_catalog.*) p.cores_per_node)::bigint) AS total_cpus,
               GREATEST(pg_catalog.max(p.priority_job_factor), 1) AS max_pjf,
               -- PriorityMaxAge as the explanation prints it, once per cluster
               @extschema@_internal._slurm_duration(@extschema@_internal._interval_seconds(c.priority_max_age)) AS max_age_text,
               (SELECT pg_catalog.max(q.priority) FROM @extschema@_internal._qos_at(c.cluster, _sprio_rows.as_of) q
                 WHERE q.cluster OPERATOR(pg_catalog.=) c.cluster) AS max_qos
          FROM @extschema@_internal._clusters_at(_sprio_rows.as_of) c
          LEFT JOIN @extschema@_internal._partitions_at(NULL, _sprio_rows.as_of) p ON p.cluster OPERATOR(pg_catalog.=) c.cluster
         WHERE (pg_catalog.isfinite(_sprio_rows.as_of)
                OR @extschema@_internal._raise('22008', pg_catalog.format('sprio_at: as_of must be a finite timestamp, not %s',
                                                                 _sprio_rows.as_of),
                                      'Pass a real instant for as_of.', false))
         GROUP BY c.cluster, c.total_nodes, c.total_cpus, c.priority_max_age
    ), pending AS (
        -- pending at as_of: submitted and eligible by then, neither started
        -- nor ended (cancelled) by then.  A job ends after it starts (a CHECK
        -- of jobs), so "start and end, when known, after as_of" is its first
        -- known event after as_of: one expression, indexed (model.sql), whose
        -- statistics tell the planner how few jobs that is.
        SELECT j.*
          FROM @extschema@.jobs j
         WHERE j.submit_time OPERATOR(pg_catalog.<=) _sprio_rows.as_of
           AND j.eligible_time OPERATOR(pg_catalog.<=) _sprio_rows.as_of
           AND COALESCE(j.start_time, j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) _sprio_rows.as_of
           AND (j.state OPERATOR(pg_catalog.=) 'PENDING' OR j.start_time IS NOT NULL OR j.end_time IS NOT NULL)
    ), shares AS (
        -- sshare_at's FairShare: cached with the usage checkpoints, or
        -- computed.  cached is a constant of the custom plan: the branch
        -- not taken is left out of it, unplanned.
        -- (sparse factors completed with their base's: docs/design.md#sparse-checkpoints)
        SELECT r.cluster, r.account, r.user_name, r.fairshare
          FROM @extschema@_internal._checkpoint_factor_rows(cp_clusters, cp_times) r
         WHERE cached
        UNION ALL
        SELECT s.cluster, s.account, s.user_name, s.fairshare
          FROM @extschema@.sshare_at(_sprio_rows.as_of) s
         WHERE NOT cached AND s.user_name IS NOT NULL
    ), factors AS (
        SELECT j.cluster, j.job_id, j.partition, j.user_name, j.account, j.qos, j.nice,
               j.submit_time, j.eligible_time, j.nodes, j.cpus,
               c.weight_age::float8 AS w_age, c.weight_fairshare::float8 AS w_fs,
               c.weight_job_size::float8 AS w_js, c.weight_partition::float8 AS w_part,
               c.weight_qos::float8 AS w_qos,
               c.priority_max_age, c.favor_small, z.total_nodes, z.total_cpus,
               p.priority_job_factor AS pjf, z.max_pjf, z.max_age_text, q.priority AS qos_priority, z.max_qos,
               pg_catalog.floor(pg_catalog.date_part('epoch', _sprio_rows.as_of))
                 OPERATOR(pg_catalog.-) pg_catalog.floor(pg_catalog.date_part('epoch', j.eligible_time)) AS pending_s,
               sh.fairshare AS sshare_fairshare,
               CASE WHEN c.weight_age OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.age_factor(j.eligible_time, _sprio_rows.as_of, c.priority_max_age) END AS f_age,
               CASE WHEN c.weight_fairshare OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE COALESCE(sh.fairshare, 0) END AS f_fs,
               CASE WHEN c.weight_job_size OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.job_size_factor(j.nodes, j.cpus, z.total_nodes, z.total_cpus, c.favor_small) END AS f_js,
               CASE WHEN c.weight_partition OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.partition_factor(p.priority_job_factor, z.max_pjf) END AS f_part,
               CASE WHEN c.weight_qos OPERATOR(pg_catalog.=) 0 OR q.priority IS NULL THEN 0::float8
                    ELSE @extschema@.qos_factor(q.priority, z.max_qos) END AS f_qos
          FROM pending j
          -- the settings as of as_of (docs/history.md#the-history-of-the-settings)
          JOIN @extschema@_internal._clusters_at(_sprio_rows.as_of) c ON c.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN sizes z ON z.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN @extschema@_internal._partitions_at(NULL, _sprio_rows.as_of) p
            ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
          LEFT JOIN @extschema@_internal._qos_at(NULL, _sprio_rows.as_of) q
            ON q.cluster OPERATOR(pg_catalog.=) j.cluster AND q.qos OPERATOR(pg_catalog.=) j.qos
          LEFT JOIN shares sh
            ON sh.cluster OPERATOR(pg_catalog.=) j.cluster AND sh.account OPERATOR(pg_catalog.=) j.account
           AND sh.user_name OPERATOR(pg_catalog.=) j.user_name
    ), weighted AS (
        -- factor × weight, each rounded once to double, as Slurm stores them
        SELECT f.*,
               f.f_age OPERATOR(pg_catalog.*) f.w_age AS x_age,
               f.f_fs OPERATOR(pg_catalog.*) f.w_fs AS x_fs,
               f.f_js OPERATOR(pg_catalog.*) f.w_js AS x_js,
               f.f_part OPERATOR(pg_catalog.*) f.w_part AS x_part,
               f.f_qos OPERATOR(pg_catalog.*) f.w_qos AS x_qos,
               @extschema@.job_priority(f.f_fs, f.f_age, f.f_js, f.f_part, f.f_qos,
                                        f.w_fs, f.w_age, f.w_js, f.w_part, f.w_qos, f.nice::bigint) AS prio
          FROM factors f
    ), summed AS (
        -- Slurm's order: age, fairshare, job size, partition, QOS, − nice
        SELECT w.*,
               w.x_age OPERATOR(pg_catalog.+) w.x_fs OPERATOR(pg_catalog.+) w.x_js
                 OPERATOR(pg_catalog.+) w.x_part OPERATOR(pg_catalog.+) w.x_qos
                 OPERATOR(pg_catalog.-) w.nice::float8 AS exact
          FROM weighted w
    )
    SELECT s.cluster, s.job_id, s.partition, s.user_name, s.account, s.qos,
           s.prio,
           pg_catalog.round(s.x_age)::bigint, pg_catalog.round(s.x_fs)::bigint,
           pg_catalog.round(s.x_js)::bigint, pg_catalog.round(s.x_part)::bigint,
           pg_catalog.round(s.x_qos)::bigint, s.nice,
           s.x_age, s.x_fs, s.x_js, s.x_part, s.x_qos, s.exact,
           s.f_age, s.f_fs, s.f_js, s.f_part, s.f_qos,
           s.submit_time, s.eligible_time,
           s.pending_s, s.max_age_text, s.w_age, s.w_fs, s.w_js, s.w_part, s.w_qos,
           s.sshare_fairshare IS NULL, s.favor_small, s.nodes, s.cpus, s.total_nodes, s.total_cpus,
           s.pjf, s.max_pjf, s.qos_priority, s.max_qos
      FROM summed s;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._sprio_rows(timestamptz) IS
'sprio_at''s rows without the explanation, and what the explanation prints besides them (x_*). STRICT: NULL as_of gives no rows; an infinite one raises 22008.';

-- PROTEUS's procedure (docs/policies.md#job-priority): order the pending
-- jobs by priority, start the first, and repeat while resources and pending
-- jobs remain.
--
-- free: a jsonb array with one object per partition that has room, e.g.
--   '[{"cluster": "proteus", "partition": "metis", "cpus": 48, "mem_mb": 196608, "gpus": 0}]'
-- cluster and partition are required; cpus, mem_mb and gpus are counts >= 0,
-- and a resource left out (or null) is not limited.  Resources are pooled
-- per partition: node boundaries are not modelled.
--
-- Every job pending at as_of on a cluster named in free is listed, in queue
-- order (priority descending, then earlier submission, then job id), with
-- starts = true for those that would start.  Partitions not in free start
-- nothing.  With backfill (the default) a job that does not fit is skipped
-- and lower-priority jobs that fit still start: Slurm's backfill scheduler
-- starts them too as long as they do not delay the higher-priority job,
-- which needs the running jobs' end times that a free-resource snapshot does
-- not have, so this is the upper bound.  With backfill => false the first
-- job that does not fit blocks its partition, as Slurm's main scheduler does.
CREATE FUNCTION @extschema@.start_next(free jsonb, as_of timestamptz DEFAULT pg_catalog.now(),
                                       backfill boolean DEFAULT true)
RETURNS TABLE (
    queue_position bigint,
    cluster        text,
    partition      text,
    job_id         text,
    user_name      text,
    account        text,
    priority       bigint,
    submit_time    timestamptz,
    cpus           integer,
    mem_mb         bigint,
    gpus           integer,
    starts         boolean,
    start_order    integer,
    cpus_left      numeric,
    mem_mb_left    numeric,
    gpus_left      numeric,
    reason         text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    item        jsonb;
    k           text;
    n           integer := 0;
    i           integer;
    clusters    text[] := '{}';
    keys        text[] := '{}';     -- cluster || E'\x1f' || partition
    f_cpus      numeric[] := '{}';  -- NULL = not limited
    f_mem       numeric[] := '{}';
    f_gpus      numeric[] := '{}';
    blocked_by  text[] := '{}';     -- strict mode: the job that blocks the partition
    v           numeric;
    started     integer := 0;
    short       text;
    r           record;
BEGIN
    IF free IS NULL THEN
        RAISE EXCEPTION 'start_next: free must not be NULL'
            USING ERRCODE = '22004',
                  HINT = 'Pass a jsonb array such as [{"cluster": "c", "partition": "p", "cpus": 8}].';
    END IF;
    IF as_of IS NULL OR backfill IS NULL THEN
        RAISE EXCEPTION 'start_next: as_of and backfill must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass an instant and true or false.';
    END IF;
    IF NOT isfinite(as_of) THEN
        RAISE EXCEPTION 'start_next: as_of must be a finite timestamp, not %', as_of
            USING ERRCODE = '22008', HINT = 'Pass a real instant for as_of.';
    END IF;
    IF jsonb_typeof(free) <> 'array' THEN
        RAISE EXCEPTION 'start_next: free must be a jsonb array of objects, not %', free
            USING ERRCODE = '22023',
                  HINT = 'Pass [{"cluster": "c", "partition": "p", "cpus": 8, "mem_mb": 16384, "gpus": 0}, ...].';
    END IF;

    FOR item IN SELECT e FROM jsonb_array_elements(free) e LOOP
        IF jsonb_typeof(item) <> 'object' THEN
            RAISE EXCEPTION 'start_next: each element of free must be an object, not %', item
                USING ERRCODE = '22023', HINT = 'Pass {"cluster": "c", "partition": "p", "cpus": 8}.';
        END IF;
        FOR k IN SELECT jsonb_object_keys(item) LOOP
            IF k NOT IN ('cluster', 'partition', 'cpus', 'mem_mb', 'gpus') THEN
                RAISE EXCEPTION 'start_next: unknown key "%" in %', k, item
                    USING ERRCODE = '22023', HINT = 'The keys are cluster, partition, cpus, mem_mb and gpus.';
            END IF;
        END LOOP;
        IF jsonb_typeof(item -> 'cluster') IS DISTINCT FROM 'string'
           OR jsonb_typeof(item -> 'partition') IS DISTINCT FROM 'string' THEN
            RAISE EXCEPTION 'start_next: cluster and partition must be strings in %', item
                USING ERRCODE = '22023', HINT = 'Name the partition and its cluster.';
        END IF;
        IF NOT EXISTS (SELECT 1 FROM @extschema@.partitions p
                        WHERE p.cluster = item ->> 'cluster' AND p.partition = item ->> 'partition') THEN
            RAISE EXCEPTION 'start_next: no partition "%" on cluster "%"', item ->> 'partition', item ->> 'cluster'
                USING ERRCODE = '22023', HINT = 'Name a partition of fairshare.partitions.';
        END IF;
        k := (item ->> 'cluster') || E'\x1f' || (item ->> 'partition');
        IF k = ANY (keys) THEN
            RAISE EXCEPTION 'start_next: partition "%" of cluster "%" appears twice in free',
                            item ->> 'partition', item ->> 'cluster'
                USING ERRCODE = '22023', HINT = 'Give each partition once.';
        END IF;
        n := n + 1;
        keys[n] := k;
        blocked_by[n] := NULL;
        IF NOT (item ->> 'cluster') = ANY (clusters) THEN
            clusters := clusters || (item ->> 'cluster');
        END IF;
        FOREACH k IN ARRAY ARRAY['cpus', 'mem_mb', 'gpus'] LOOP
            IF item -> k IS NULL OR jsonb_typeof(item -> k) = 'null' THEN
                v := NULL;
            ELSIF jsonb_typeof(item -> k) <> 'number' OR (item ->> k)::numeric < 0 THEN
                RAISE EXCEPTION 'start_next: % must be a number >= 0, not % (partition "%")',
                                k, item -> k, item ->> 'partition'
                    USING ERRCODE = '22023', HINT = 'Free resources are counts >= 0; leave a resource out for no limit.';
            ELSE
                v := (item ->> k)::numeric;
            END IF;
            CASE k WHEN 'cpus' THEN f_cpus[n] := v;
                   WHEN 'mem_mb' THEN f_mem[n] := v;
                   ELSE f_gpus[n] := v;
            END CASE;
        END LOOP;
    END LOOP;

    FOR r IN
        SELECT s.cluster AS c, s.partition AS p, s.job_id AS j, s.user_name AS u, s.account AS a,
               s.priority AS prio, s.submit_time AS st, jb.cpus AS ncpu, jb.mem_mb AS nmem, jb.gpus AS ngpu,
               row_number() OVER (ORDER BY s.priority DESC, s.submit_time,
                                  substring(s.job_id FROM '^[0-9]+')::numeric NULLS LAST, s.job_id) AS pos
          FROM @extschema@.sprio_at(as_of) s
          JOIN @extschema@.jobs jb ON jb.cluster = s.cluster AND jb.job_id = s.job_id
                                  AND jb.submit_time = s.submit_time
         WHERE s.cluster = ANY (clusters)
         ORDER BY pos
    LOOP
        queue_position := r.pos; cluster := r.c; partition := r.p; job_id := r.j;
        user_name := r.u; account := r.a; priority := r.prio; submit_time := r.st;
        cpus := r.ncpu; mem_mb := r.nmem; gpus := r.ngpu;
        starts := false; start_order := NULL; reason := NULL;
        i := array_position(keys, r.c || E'\x1f' || r.p);
        IF i IS NULL THEN
            cpus_left := NULL; mem_mb_left := NULL; gpus_left := NULL;
            reason := 'no free resources given for this partition';
        ELSE
            short := concat_ws(', ',
                CASE WHEN f_cpus[i] < r.ncpu THEN format('needs %s cpus, %s free', r.ncpu, f_cpus[i]) END,
                CASE WHEN f_mem[i] < r.nmem THEN format('needs %s MB, %s free', r.nmem, f_mem[i]) END,
                CASE WHEN f_gpus[i] < r.ngpu THEN format('needs %s gpus, %s free', r.ngpu, f_gpus[i]) END);
            IF blocked_by[i] IS NOT NULL THEN
                reason := format('partition blocked by job %s (higher priority, does not fit)', blocked_by[i]);
            ELSIF short <> '' THEN
                reason := short;
                IF NOT backfill THEN
                    blocked_by[i] := r.j;
                END IF;
            ELSE
                f_cpus[i] := f_cpus[i] - r.ncpu;
                f_mem[i] := f_mem[i] - r.nmem;
                f_gpus[i] := f_gpus[i] - r.ngpu;
                started := started + 1;
                starts := true; start_order := started;
                reason := 'starts';
            END IF;
            cpus_left := f_cpus[i]; mem_mb_left := f_mem[i]; gpus_left := f_gpus[i];
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.start_next(jsonb, timestamptz, boolean) IS
'PROTEUS (seed 001): the jobs pending at as_of in queue order (priority, then submission, then job id) and which would start in the free CPUs/memory/GPUs given per partition; backfill skips jobs that do not fit, backfill => false stops each partition at its first job that does not fit.';

-- ---------------------------------------------------------------------------
-- Fair-share factors kept with the usage checkpoints
-- (docs/priority.md#cached-fair-share-factors).
--
-- slurmctld computes every association's fair-share factor at each pass of
-- its priority thread and answers sprio from those.  sprio_at needs the same
-- factor for every pending job's association, which is sshare_at's FairShare
-- column: the whole tree.  checkpoint_usage now also stores that column of
-- every user association as of the checkpoint, and sprio_at reads it instead
-- of computing the tree again, whenever it is what sshare_at would compute:
--
--   * the checkpoint is the one association_usage_at starts from at as_of
--     (the newest valid one at or before it, with no usage reset in
--     between), and it is still valid;
--   * the tree usage at as_of is the checkpoint's: as_of is the
--     checkpoint's own instant or, with decay_mode 'slurm_passes', before
--     slurmctld's next pass (the tree columns are those of the last pass
--     until the next one, exactly as slurmctld's cached factors);
--   * the association tree (accounts, account_users, the cluster's
--     algorithm and dampening) has not changed since: any change to it
--     deletes the cluster's cached factors (the triggers below).
--
-- Otherwise sprio_at computes the factors from sshare_at as before.
-- ---------------------------------------------------------------------------

CREATE TABLE @extschema@.usage_checkpoint_factors (
    cluster      text NOT NULL,
    as_of        timestamptz NOT NULL,
    -- the factors hold for every instant in [as_of, valid_before)
    valid_before timestamptz NOT NULL,
    computed_at  timestamptz NOT NULL DEFAULT pg_catalog.now(),
    -- sparse (docs/design.md#sparse-checkpoints): the factors of the full
    -- checkpoint this one's usage stands on, whose rows stand for every
    -- association this one has no row of (its factor the same to the bit);
    -- NULL: a row for every association
    base         timestamptz,
    PRIMARY KEY (cluster, as_of),
    CHECK (valid_before OPERATOR(pg_catalog.>) as_of),
    FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoints ON UPDATE CASCADE ON DELETE CASCADE,
    CONSTRAINT usage_checkpoint_factors_base_check CHECK (base OPERATOR(pg_catalog.<) as_of)
);
COMMENT ON TABLE @extschema@.usage_checkpoint_factors IS
'The usage checkpoints whose fair-share factors are cached (usage_checkpoint_factor_rows), and the instants they hold for: [as_of, valid_before). Deleted with the checkpoint, and when the association tree of the cluster changes.';

CREATE TABLE @extschema@.usage_checkpoint_factor_rows (
    cluster   text NOT NULL,
    as_of     timestamptz NOT NULL,
    account   text NOT NULL,
    user_name text NOT NULL,
    -- sshare_at(as_of)'s FairShare of the association
    fairshare float8 NOT NULL
    -- the factors (cluster, as_of) of usage_checkpoint_factors.  Neither a
    -- foreign key nor a primary key, as usage_checkpoint_rows
    -- (checkpoint.sql): they go with their factors by the triggers below,
    -- and _checkpoint_factors, their only writer, writes one row per
    -- association of the tree
);
-- what sprio_at looks up: every row of one checkpoint's factors
CREATE INDEX usage_checkpoint_factor_rows_checkpoint_idx ON @extschema@.usage_checkpoint_factor_rows (cluster, as_of);
COMMENT ON TABLE @extschema@.usage_checkpoint_factor_rows IS
'sshare_at''s FairShare of every user association as of each usage checkpoint of usage_checkpoint_factors: what sprio_at reads instead of computing the tree.';

-- The cached factors of the checkpoints of some clusters (one instant
-- each, same order) as the readers take them: their own rows and, for
-- sparse factors, the base's row of every association they have none of
-- (docs/design.md#sparse-checkpoints).  A full join, as _checkpoint_rows
-- (checkpoint.sql), and a standard SQL body, inlined.
CREATE FUNCTION @extschema@_internal._checkpoint_factor_rows(clusters text[], times timestamptz[])
RETURNS TABLE (cluster text, as_of timestamptz, account text, user_name text, fairshare float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT COALESCE(o.cluster, b.cluster), COALESCE(o.as_of, b.as_of), COALESCE(o.account, b.account),
           COALESCE(o.user_name, b.user_name),
           CASE WHEN o.cluster IS NOT NULL THEN o.fairshare ELSE b.fairshare END
      FROM (SELECT r.cluster, r.as_of, r.account, r.user_name, r.fairshare
              FROM @extschema@.usage_checkpoint_factor_rows r
             WHERE r.cluster OPERATOR(pg_catalog.=) ANY (_checkpoint_factor_rows.clusters)
               AND r.as_of OPERATOR(pg_catalog.=) ANY (_checkpoint_factor_rows.times)
               AND r.as_of OPERATOR(pg_catalog.=)
                   _checkpoint_factor_rows.times[pg_catalog.array_position(_checkpoint_factor_rows.clusters, r.cluster)]) o
      FULL JOIN
           (SELECT x.cluster, f.as_of, x.account, x.user_name, x.fairshare
              FROM @extschema@.usage_checkpoint_factors f
              JOIN @extschema@.usage_checkpoint_factor_rows x
                ON x.cluster OPERATOR(pg_catalog.=) f.cluster AND x.as_of OPERATOR(pg_catalog.=) f.base
             WHERE f.cluster OPERATOR(pg_catalog.=) ANY (_checkpoint_factor_rows.clusters)
               AND f.as_of OPERATOR(pg_catalog.=) ANY (_checkpoint_factor_rows.times)
               AND f.as_of OPERATOR(pg_catalog.=)
                   _checkpoint_factor_rows.times[pg_catalog.array_position(_checkpoint_factor_rows.clusters, f.cluster)]
               AND f.base IS NOT NULL) b
        ON b.cluster OPERATOR(pg_catalog.=) o.cluster AND b.as_of OPERATOR(pg_catalog.=) o.as_of
       AND b.account OPERATOR(pg_catalog.=) o.account AND b.user_name OPERATOR(pg_catalog.=) o.user_name;
END;
COMMENT ON FUNCTION @extschema@_internal._checkpoint_factor_rows(text[], timestamptz[]) IS
'The cached fair-share factors of the checkpoint of each cluster at its instant (same order), sparse ones completed with their base''s rows: what _sprio_rows reads.';

-- _association_tree(as_of, true)'s rows for the clusters with a valid
-- usage checkpoint at as_of itself and a decay other than 'slurm_passes',
-- with the usage read from that checkpoint's rows as they are: what
-- _association_usage gives as of the checkpoint's own instant (its rows
-- times a decay of 1, plus empty spans), without computing it again
-- (_checkpoint_factors, below).  Other clusters have no rows here.
CREATE FUNCTION @extschema@_internal._checkpoint_tree(as_of timestamptz)
RETURNS TABLE (cluster text, algorithm text, account text, user_name text, parent text,
               id text, parent_id text, shares integer, usage float8, is_user boolean,
               raw_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH cps AS (
        -- the algorithm as of as_of (docs/history.md#the-history-of-the-settings);
        -- the decay mode as of as_of too, as _checkpoint_factors and the
        -- usage read it (docs/history.md#the-decay-as-of-an-instant)
        SELECT c.cluster,
               (SELECT x.fairshare_algorithm
                  FROM @extschema@_internal._cluster_at(c.cluster, _checkpoint_tree.as_of) x) AS fairshare_algorithm
          FROM @extschema@_internal._clusters_decay_law_at(_checkpoint_tree.as_of) c
          JOIN @extschema@.usage_checkpoints k
            ON k.cluster OPERATOR(pg_catalog.=) c.cluster AND k.as_of OPERATOR(pg_catalog.=) _checkpoint_tree.as_of
         WHERE k.invalidated_at IS NULL AND c.decay_mode OPERATOR(pg_catalog.<>) 'slurm_passes'
           AND @extschema@_internal._check_as_of(_checkpoint_tree.as_of))
    SELECT a.cluster, c.fairshare_algorithm, a.account, NULL::text, a.parent_account,
           'a:' OPERATOR(pg_catalog.||) a.account,
           'a:' OPERATOR(pg_catalog.||) a.parent_account,
           a.shares, 0::float8, false, 0::float8
      FROM @extschema@_internal._accounts_at(_checkpoint_tree.as_of, true) a
      JOIN cps c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
    UNION ALL
    SELECT au.cluster, c.fairshare_algorithm, au.account, au.user_name, au.account,
           'u:' OPERATOR(pg_catalog.||) pg_catalog.length(au.account)::text
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.account
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.user_name,
           'a:' OPERATOR(pg_catalog.||) au.account,
           au.shares, COALESCE(r.raw_usage, 0), true, COALESCE(r.raw_usage, 0)
      FROM @extschema@_internal._account_users_at(_checkpoint_tree.as_of, true) au
      JOIN cps c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      -- (a sparse checkpoint completed with its base's rows:
      -- docs/design.md#sparse-checkpoints)
      -- (per cluster, so that the function's arguments are no subquery
      -- and PostgreSQL inlines it: a function scan was planned blind, a
      -- merge join of two sorts, 0.5 s at 10^5 associations)
      LEFT JOIN (SELECT x.cluster, x.account, x.user_name, x.raw_usage
                   FROM cps y
                  CROSS JOIN LATERAL @extschema@_internal._checkpoint_rows(ARRAY[y.cluster], ARRAY[_checkpoint_tree.as_of]) x) r
        ON r.cluster OPERATOR(pg_catalog.=) au.cluster
       AND r.account OPERATOR(pg_catalog.=) au.account
       AND r.user_name OPERATOR(pg_catalog.=) au.user_name;
END;
COMMENT ON FUNCTION @extschema@_internal._checkpoint_tree(timestamptz) IS
'_association_tree(as_of, true)''s rows for the clusters with a valid usage checkpoint at as_of and a decay other than slurm_passes, the usage read from that checkpoint''s rows: the tree _checkpoint_factors computes the cached factors with.';

-- Store the factors of the checkpoints as of an instant (one cluster, or
-- every cluster for NULL): called by checkpoint_usage once its checkpoints
-- are valid, so that sshare_at(as_of) starts from them.
CREATE FUNCTION @extschema@_internal._checkpoint_factors(cluster text, as_of timestamptz)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- the clusters concerned (of fairshare.clusters: the caller checked it)
    of_clusters text[];
    -- one of them decays by slurmctld's passes: its tree usage is read
    -- through _association_usage (below)
    passes boolean;
BEGIN
    -- (the decay mode as of as_of, as the usage reads it:
    -- docs/history.md#the-decay-as-of-an-instant)
    SELECT COALESCE(array_agg(c.cluster), '{}'),
           COALESCE(bool_or(c.decay_mode = 'slurm_passes'), false)
      INTO of_clusters, passes
      FROM @extschema@_internal._clusters_decay_law_at(_checkpoint_factors.as_of) c
     WHERE _checkpoint_factors.cluster IS NULL OR c.cluster = _checkpoint_factors.cluster;
    -- (cluster = ANY: an index condition on (cluster, as_of); an OR of
    -- "cluster IS NULL" read the whole table)
    DELETE FROM @extschema@.usage_checkpoint_factors f
     WHERE f.cluster = ANY (of_clusters) AND f.as_of = _checkpoint_factors.as_of;
    -- and any row left at the instant without its factors
    DELETE FROM @extschema@.usage_checkpoint_factor_rows r
     WHERE r.cluster = ANY (of_clusters) AND r.as_of = _checkpoint_factors.as_of;
    INSERT INTO @extschema@.usage_checkpoint_factors (cluster, as_of, valid_before)
    SELECT k.cluster, k.as_of,
           CASE WHEN c.decay_mode = 'slurm_passes'
                THEN @extschema@.slurm_next_pass(k.as_of, c.priority_calc_period, c.priority_last_decay,
                                                 @extschema@_internal._slurmctld_starts(c.cluster))
                -- the instant itself (the resolution of timestamptz)
                ELSE k.as_of + interval '1 microsecond' END
      FROM @extschema@.usage_checkpoints k
      JOIN @extschema@_internal._clusters_decay_law_at(_checkpoint_factors.as_of) c ON c.cluster = k.cluster
     WHERE k.cluster = ANY (of_clusters)
       AND k.as_of = _checkpoint_factors.as_of AND k.invalidated_at IS NULL
       AND c.fairshare_algorithm IN ('fair_tree', 'classic');
    -- sshare_at's FairShare, from the same tree over the same rows
    -- (_sshare_fairshare: that column of _sshare_tree alone), but without the rest of sshare_at: its TRESRunMins read every
    -- running job, which at 10^7 runs was 1.6 s of this statement's 4 s and
    -- planned as a nested loop (docs/performance.md).  The window is
    -- partitioned by cluster, so keeping one cluster's rows changes nothing
    -- in its answers.
    --
    -- The tree's usage is the checkpoint's own rows, read as they are
    -- (tree_from_rows): as of its own instant, _association_usage gives
    -- every association of a cluster with a valid checkpoint there its row
    -- times the decay from T0 to T0, which is 1 in every mode but
    -- 'slurm_passes', plus the runs' parts after T0, which are empty
    -- [T0, T0] spans (0), so the same numbers; computing it again read
    -- every row through a hash join, 0.12 s of a chained checkpoint's
    -- 0.81 s at 10^5 associations (docs/performance.md#where-a-chained-checkpoints-time-goes).
    -- With 'slurm_passes' the usage of the tree is the last pass's and the
    -- runs' parts start at that pass: read through _association_usage as
    -- sshare_at reads it (_association_tree).  passes is a constant of
    -- each call's plan: the branch not taken is not run.
    --
    -- Sparse (docs/design.md#sparse-checkpoints): when the checkpoint's
    -- usage stands on a base whose factors are cached in full, only the
    -- factors that differ from the base's, to the bit, are written, and the
    -- base's rows stand for the others; in full when the base has an
    -- association the tree no longer has.
    WITH t AS MATERIALIZED (
    SELECT s.cluster, s.account, s.user_name, s.f AS fairshare
      FROM (SELECT t.cluster, t.account, t.user_name,
                   @extschema@_internal._sshare_fairshare(
                       ROW(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.raw_usage)::@extschema@_internal._sshare_tree_node,
                       t.algorithm,
                       CASE WHEN t.algorithm = 'classic'
                            THEN (SELECT c.fairshare_dampening
                                    FROM @extschema@_internal._cluster_at(t.cluster, _checkpoint_factors.as_of) c) END)
                     OVER (PARTITION BY t.cluster) AS f
              -- the tree sshare_at computes FairShare with: as of as_of, or of
              -- the last pass for slurm_passes (docs/slurm.md#the-tree-changes)
              FROM (SELECT x.cluster, x.algorithm, x.account, x.user_name, x.id, x.parent_id, x.shares,
                           x.usage, x.is_user, x.raw_usage
                      FROM @extschema@_internal._association_tree(_checkpoint_factors.as_of, true) x
                     WHERE passes
                    UNION ALL
                    SELECT x.cluster, x.algorithm, x.account, x.user_name, x.id, x.parent_id, x.shares,
                           x.usage, x.is_user, x.raw_usage
                      FROM @extschema@_internal._checkpoint_tree(_checkpoint_factors.as_of) x
                     WHERE NOT passes) t
             WHERE t.algorithm = ANY (ARRAY['fair_tree', 'classic'])
               -- (one cluster: a constant of the plan, so that the window's
               -- rows need no sort)
               AND (_checkpoint_factors.cluster IS NULL OR t.cluster = _checkpoint_factors.cluster)) s
     WHERE s.user_name IS NOT NULL
       AND EXISTS (SELECT FROM @extschema@.usage_checkpoint_factors f
                    WHERE f.cluster = s.cluster AND f.as_of = _checkpoint_factors.as_of)
    ), fb AS (
        -- per cluster, the base of the factors: the usage's base, with full factors
        SELECT k.cluster, k.base
          FROM @extschema@.usage_checkpoints k
          JOIN @extschema@.usage_checkpoint_factors f
            ON f.cluster = k.cluster AND f.as_of = k.base AND f.base IS NULL
         WHERE k.cluster = ANY (of_clusters) AND k.as_of = _checkpoint_factors.as_of AND k.base IS NOT NULL
    ), b AS MATERIALIZED (
        SELECT r.cluster, r.account, r.user_name, r.fairshare
          FROM fb JOIN @extschema@.usage_checkpoint_factor_rows r ON r.cluster = fb.cluster AND r.as_of = fb.base
    ), j AS MATERIALIZED (
        SELECT COALESCE(t.cluster, b.cluster) AS cluster, t.account, t.user_name, t.fairshare,
               b.fairshare AS base_fairshare, t.cluster IS NOT NULL AS computed, b.cluster IS NOT NULL AS in_base
          FROM t FULL JOIN b ON b.cluster = t.cluster AND b.account = t.account AND b.user_name = t.user_name
    ), whole AS (
        SELECT DISTINCT j.cluster FROM j WHERE NOT j.computed
    ), marked AS (
        UPDATE @extschema@.usage_checkpoint_factors f SET base = fb.base
          FROM fb
         WHERE f.cluster = fb.cluster AND f.as_of = _checkpoint_factors.as_of
           AND fb.cluster NOT IN (SELECT w.cluster FROM whole w)
        RETURNING 1)
    INSERT INTO @extschema@.usage_checkpoint_factor_rows (cluster, as_of, account, user_name, fairshare)
    SELECT j.cluster, _checkpoint_factors.as_of, j.account, j.user_name, j.fairshare
      FROM j
     WHERE j.computed
       AND (NOT j.in_base OR j.cluster IN (SELECT w.cluster FROM whole w)
            OR j.fairshare IS DISTINCT FROM j.base_fairshare);
END
$$;
COMMENT ON FUNCTION @extschema@_internal._checkpoint_factors(text, timestamptz) IS
'Cache sshare_at(as_of)''s FairShare of every user association of the valid usage checkpoints as of as_of (of one cluster, or all for NULL), for sprio_at; checkpoint_usage calls it.';

-- The factor rows go with their factors (deleted with the checkpoint,
-- or by a change to the tree), as the usage rows with their checkpoint.
CREATE TRIGGER rows_follow_delete AFTER DELETE ON @extschema@.usage_checkpoint_factors
    REFERENCING OLD TABLE AS old_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._checkpoint_rows_follow();
CREATE TRIGGER rows_follow_update AFTER UPDATE OF cluster, as_of ON @extschema@.usage_checkpoint_factors
    FOR EACH ROW WHEN (OLD.cluster IS DISTINCT FROM NEW.cluster OR OLD.as_of IS DISTINCT FROM NEW.as_of)
    EXECUTE FUNCTION @extschema@_internal._checkpoint_rows_follow();
CREATE TRIGGER rows_follow_truncate AFTER TRUNCATE ON @extschema@.usage_checkpoint_factors
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._checkpoint_rows_follow();

-- A change to the association tree deletes the cached factors of the
-- clusters concerned (TRUNCATE: all of them).  Per statement, over its
-- rows; a role that writes the tree needs DELETE on
-- usage_checkpoint_factors (fairshare_admin has it).
CREATE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- the clusters whose rows the statement changed (TRUNCATE: all)
    changed text[];
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        changed := ARRAY(SELECT c.cluster FROM @extschema@.clusters c);
    ELSIF TG_OP = 'INSERT' THEN
        changed := ARRAY(SELECT DISTINCT n.cluster FROM new_rows n);
    ELSIF TG_OP = 'DELETE' THEN
        changed := ARRAY(SELECT DISTINCT o.cluster FROM old_rows o);
    ELSE
        changed := ARRAY(SELECT o.cluster FROM old_rows o UNION SELECT n.cluster FROM new_rows n);
    END IF;
    -- counted, and the clusters' tree locks held until commit, before
    -- anything else: a checkpoint computing factors then knows of this
    -- change (checkpoint.sql, _tree_changed)
    PERFORM @extschema@_internal._tree_changed(changed);
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM @extschema@.usage_checkpoint_factors;
    ELSE
        DELETE FROM @extschema@.usage_checkpoint_factors f WHERE f.cluster = ANY (changed);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER drop_checkpoint_factors_insert AFTER INSERT ON @extschema@.accounts
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_update AFTER UPDATE ON @extschema@.accounts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_delete AFTER DELETE ON @extschema@.accounts
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_truncate AFTER TRUNCATE ON @extschema@.accounts
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_insert AFTER INSERT ON @extschema@.account_users
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_update AFTER UPDATE ON @extschema@.account_users
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_delete AFTER DELETE ON @extschema@.account_users
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_truncate AFTER TRUNCATE ON @extschema@.account_users
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();
-- the cluster's algorithm and dampening (its decay settings invalidate the
-- checkpoint itself: checkpoint.sql)
CREATE TRIGGER drop_checkpoint_factors AFTER UPDATE ON @extschema@.clusters
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._tree_drop_checkpoint_factors();

-- ---------------------------------------------------------------------------
-- sprio_at's fast path: from the cached factors, in SQL.
--
-- While the factors hold, sprio_at is a join of the pending jobs with them,
-- in sprio_at's own SQL, which the planner inlines into the caller's query
-- and plans once with it: no PL/pgSQL function to compile in a new
-- session, no separate query to plan for the cache's check, no tuplestore
-- between the two (docs/performance.md#sprio-and-sshare-against-slurmctld).
-- When they do not hold, a one-time filter skips that join and another
-- runs _sprio_rows, which computes the factors from sshare_at.
-- ---------------------------------------------------------------------------

-- Per cluster, the checkpoint association_usage_at starts from at as_of
-- (the newest valid one at or before it, none when the usage was reset
-- since), when its factors are cached and hold at as_of.
CREATE FUNCTION @extschema@_internal._sprio_cached_checkpoints(as_of timestamptz)
RETURNS TABLE (cluster text, as_of timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT k.cluster, k.as_of
      FROM (SELECT DISTINCT ON (x.cluster) x.cluster, x.as_of
              FROM @extschema@.usage_checkpoints x
             WHERE x.invalidated_at IS NULL AND x.as_of OPERATOR(pg_catalog.<=) _sprio_cached_checkpoints.as_of
               -- the factors were cached with the live settings: a
               -- scenario's are computed (docs/history.md#the-policy-lab)
               AND @extschema@_internal._scenario() IS NULL
             ORDER BY x.cluster, x.as_of DESC) k
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) k.cluster
      JOIN @extschema@.usage_checkpoint_factors f
        ON f.cluster OPERATOR(pg_catalog.=) k.cluster AND f.as_of OPERATOR(pg_catalog.=) k.as_of
       AND _sprio_cached_checkpoints.as_of OPERATOR(pg_catalog.<) f.valid_before
     WHERE pg_catalog.upper(c.usage_reset_period) OPERATOR(pg_catalog.=) 'NONE'
        OR NOT COALESCE(@extschema@_internal._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                                       c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                                       _sprio_cached_checkpoints.as_of,
                                                       @extschema@_internal._slurmctld_starts(c.cluster))
                        OPERATOR(pg_catalog.>) k.as_of,
                        false);
END;
COMMENT ON FUNCTION @extschema@_internal._sprio_cached_checkpoints(timestamptz) IS
'Per cluster, the usage checkpoint whose cached fair-share factors hold at as_of (sprio_at''s fast path).';

-- sprio_at's explanation of one job, from _sprio_rows's columns.  A SQL
-- expression that the planner inlines where it is read, and only there:
-- a query that does not select the explanation neither plans nor
-- computes it.
CREATE FUNCTION @extschema@_internal._sprio_explanation(
    x_w_age float8,
    x_pending_s float8,
    x_max_age_text text,
    age_factor float8,
    age_weighted float8,
    x_w_fs float8,
    x_no_share boolean,
    account text,
    user_name text,
    fairshare_factor float8,
    fairshare_weighted float8,
    x_w_js float8,
    x_favor_small boolean,
    x_cpus integer,
    x_total_nodes bigint,
    x_nodes integer,
    x_total_cpus bigint,
    job_size_factor float8,
    job_size_weighted float8,
    x_w_part float8,
    x_pjf integer,
    x_max_pjf integer,
    partition_factor float8,
    partition_weighted float8,
    x_w_qos float8,
    qos text,
    x_qos_priority integer,
    x_max_qos integer,
    qos_factor float8,
    qos_weighted float8,
    nice integer,
    priority_exact float8,
    priority bigint)
RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
RETURN pg_catalog.concat_ws('; ',
         CASE WHEN _sprio_explanation.x_w_age OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('age: %s pending / max_age %s = %s × %s = %s',
              @extschema@_internal._slurm_duration(GREATEST(_sprio_explanation.x_pending_s, 0)), _sprio_explanation.x_max_age_text,
              @extschema@_internal._num(_sprio_explanation.age_factor, 4), _sprio_explanation.x_w_age, @extschema@_internal._num(_sprio_explanation.age_weighted, 2)) END,
         CASE WHEN _sprio_explanation.x_w_fs OPERATOR(pg_catalog.<>) 0 THEN
              CASE WHEN _sprio_explanation.x_no_share
                   THEN pg_catalog.format('fairshare: no sshare row for %s/%s = 0', _sprio_explanation.account, _sprio_explanation.user_name)
                   ELSE pg_catalog.format('fairshare: sshare FairShare %s × %s = %s',
                        @extschema@_internal._num(_sprio_explanation.fairshare_factor, 6), _sprio_explanation.x_w_fs, @extschema@_internal._num(_sprio_explanation.fairshare_weighted, 2)) END END,
         CASE WHEN _sprio_explanation.x_w_js OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('job_size: %s = %s × %s = %s',
              CASE WHEN _sprio_explanation.x_favor_small AND _sprio_explanation.x_cpus OPERATOR(pg_catalog.<>) 0
                     THEN pg_catalog.format('((%s − %s nodes)/%s + (%s − %s cpus)/%s)/2', _sprio_explanation.x_total_nodes, _sprio_explanation.x_nodes,
                          _sprio_explanation.x_total_nodes, _sprio_explanation.x_total_cpus, _sprio_explanation.x_cpus, _sprio_explanation.x_total_cpus)
                   WHEN _sprio_explanation.x_favor_small
                     THEN pg_catalog.format('(%s − %s nodes)/%s', _sprio_explanation.x_total_nodes, _sprio_explanation.x_nodes, _sprio_explanation.x_total_nodes)
                   WHEN _sprio_explanation.x_cpus OPERATOR(pg_catalog.<>) 0
                     THEN pg_catalog.format('(%s nodes/%s + %s cpus/%s)/2', _sprio_explanation.x_nodes, _sprio_explanation.x_total_nodes, _sprio_explanation.x_cpus, _sprio_explanation.x_total_cpus)
                   ELSE pg_catalog.format('%s nodes/%s', _sprio_explanation.x_nodes, _sprio_explanation.x_total_nodes) END,
              @extschema@_internal._num(_sprio_explanation.job_size_factor, 4), _sprio_explanation.x_w_js, @extschema@_internal._num(_sprio_explanation.job_size_weighted, 2)) END,
         CASE WHEN _sprio_explanation.x_w_part OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('partition: PriorityJobFactor %s / max %s = %s × %s = %s',
              _sprio_explanation.x_pjf, _sprio_explanation.x_max_pjf, @extschema@_internal._num(_sprio_explanation.partition_factor, 4), _sprio_explanation.x_w_part, @extschema@_internal._num(_sprio_explanation.partition_weighted, 2)) END,
         CASE WHEN _sprio_explanation.x_w_qos OPERATOR(pg_catalog.<>) 0 THEN
              CASE WHEN _sprio_explanation.qos IS NULL THEN 'qos: none = 0'
                   WHEN _sprio_explanation.x_qos_priority IS NULL THEN pg_catalog.format('qos: %s is not in fairshare.qos = 0', _sprio_explanation.qos)
                   ELSE pg_catalog.format('qos: %s priority %s / max %s = %s × %s = %s', _sprio_explanation.qos, _sprio_explanation.x_qos_priority,
                        _sprio_explanation.x_max_qos, @extschema@_internal._num(_sprio_explanation.qos_factor, 4), _sprio_explanation.x_w_qos, @extschema@_internal._num(_sprio_explanation.qos_weighted, 2)) END END,
         CASE WHEN _sprio_explanation.nice OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.format('nice: %s', _sprio_explanation.nice) END,
         pg_catalog.format('total %s → %s%s', @extschema@_internal._num(_sprio_explanation.priority_exact, 2), _sprio_explanation.priority,
              CASE WHEN _sprio_explanation.priority_exact OPERATOR(pg_catalog.<) 1 THEN ' (below 1)'
                   WHEN _sprio_explanation.priority_exact OPERATOR(pg_catalog.>=) 4294967296 THEN ' (capped)'
                   WHEN _sprio_explanation.priority_exact OPERATOR(pg_catalog.<>) pg_catalog.trunc(_sprio_explanation.priority_exact) THEN ' (truncated)'
                   ELSE '' END));
COMMENT ON FUNCTION @extschema@_internal._sprio_explanation(float8, float8, text, float8, float8, float8, boolean, text, text, float8, float8, float8, boolean, integer, bigint, integer, bigint, float8, float8, float8, integer, integer, float8, float8, float8, text, integer, integer, float8, float8, integer, float8, bigint) IS
'sprio_at''s explanation of a job''s priority, from the columns of _sprio_rows (sprio_at, my_sprio_at).';

-- sprio -l as of an instant.  A SQL function that the planner inlines into
-- the calling query: the explanation, a text built per job (about 9 µs
-- each, and most of the output's bytes), is computed only when the query
-- reads it, which sprio -l's columns do not (docs/performance.md#sprio-and-sshare-against-slurmctld).
-- Not STRICT, which would keep it from being inlined: _sprio_rows is, and
-- the cache does not hold for NULL, so a NULL as_of still gives no rows.
CREATE FUNCTION @extschema@.sprio_at(as_of timestamptz)
RETURNS TABLE (
    cluster            text,
    job_id             text,
    partition          text,
    user_name          text,
    account            text,
    qos                text,
    -- PRIORITY: the job's priority as Slurm stores it (truncated, 1..4294967295)
    priority           bigint,
    -- AGE FAIRSHARE JOBSIZE PARTITION QOS NICE as sprio -l prints them (%.0f)
    age                bigint,
    fairshare          bigint,
    job_size           bigint,
    partition_prio     bigint,
    qos_prio           bigint,
    nice               integer,
    -- the same weighted factors at full precision
    age_weighted       float8,
    fairshare_weighted float8,
    job_size_weighted  float8,
    partition_weighted float8,
    qos_weighted       float8,
    -- the sum before clamping and truncation
    priority_exact     float8,
    -- the normalised factors (sprio -n); 0 where the weight is 0, as Slurm
    age_factor         float8,
    fairshare_factor   float8,
    job_size_factor    float8,
    partition_factor   float8,
    qos_factor         float8,
    submit_time        timestamptz,
    eligible_time      timestamptz,
    explanation        text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH cp AS MATERIALIZED (
        -- per cluster, the checkpoint whose cached factors hold at as_of
        SELECT k.cluster, k.as_of FROM @extschema@_internal._sprio_cached_checkpoints(sprio_at.as_of) k
    ), hold AS MATERIALIZED (
        -- every fair_tree and classic cluster has them
        SELECT sprio_at.as_of IS NOT NULL AND pg_catalog.isfinite(sprio_at.as_of)
               AND NOT EXISTS (SELECT FROM @extschema@.clusters c
                                WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
                                  AND NOT EXISTS (SELECT FROM cp WHERE cp.cluster OPERATOR(pg_catalog.=) c.cluster)) AS cached
    ), sizes AS (
        -- the cluster's size for the job-size factor: configured, or the
        -- sum over its partitions
        SELECT c.cluster,
               COALESCE(c.total_nodes::bigint, pg_catalog.sum(p.nodes)) AS total_nodes,
               COALESCE(c.total_cpus::bigint,
                        pg_catalog.sum(p.nodes::bigint OPERATOR(pg_catalog.*) p.cores_per_node)::bigint) AS total_cpus,
               GREATEST(pg_catalog.max(p.priority_job_factor), 1) AS max_pjf,
               -- PriorityMaxAge as the explanation prints it, once per cluster
               @extschema@_internal._slurm_duration(@extschema@_internal._interval_seconds(c.priority_max_age)) AS max_age_text,
               (SELECT pg_catalog.max(q.priority) FROM @extschema@_internal._qos_at(c.cluster, sprio_at.as_of) q
                 WHERE q.cluster OPERATOR(pg_catalog.=) c.cluster) AS max_qos,
               -- the checkpoint whose factors the cluster's jobs read, and
               -- the base of those factors when they are sparse
               (SELECT k.as_of FROM cp k WHERE k.cluster OPERATOR(pg_catalog.=) c.cluster) AS cp_as_of,
               (SELECT f.base FROM cp k JOIN @extschema@.usage_checkpoint_factors f
                    ON f.cluster OPERATOR(pg_catalog.=) k.cluster AND f.as_of OPERATOR(pg_catalog.=) k.as_of
                 WHERE k.cluster OPERATOR(pg_catalog.=) c.cluster) AS cp_base
          FROM @extschema@_internal._clusters_at(sprio_at.as_of) c
          LEFT JOIN @extschema@_internal._partitions_at(NULL, sprio_at.as_of) p ON p.cluster OPERATOR(pg_catalog.=) c.cluster
         GROUP BY c.cluster, c.total_nodes, c.total_cpus, c.priority_max_age
    ), pending AS (
        -- pending at as_of: submitted and eligible by then, neither started
        -- nor ended (cancelled) by then.  A job ends after it starts (a CHECK
        -- of jobs), so "start and end, when known, after as_of" is its first
        -- known event after as_of: one expression, indexed (model.sql), whose
        -- statistics tell the planner how few jobs that is.
        SELECT j.*
          FROM @extschema@.jobs j
         WHERE j.submit_time OPERATOR(pg_catalog.<=) sprio_at.as_of
           AND j.eligible_time OPERATOR(pg_catalog.<=) sprio_at.as_of
           AND COALESCE(j.start_time, j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) sprio_at.as_of
           AND (j.state OPERATOR(pg_catalog.=) 'PENDING' OR j.start_time IS NOT NULL OR j.end_time IS NOT NULL)
    ), factors AS (
        SELECT j.cluster, j.job_id, j.partition, j.user_name, j.account, j.qos, j.nice,
               j.submit_time, j.eligible_time, j.nodes, j.cpus,
               c.weight_age::float8 AS w_age, c.weight_fairshare::float8 AS w_fs,
               c.weight_job_size::float8 AS w_js, c.weight_partition::float8 AS w_part,
               c.weight_qos::float8 AS w_qos,
               c.priority_max_age, c.favor_small, z.total_nodes, z.total_cpus,
               p.priority_job_factor AS pjf, z.max_pjf, z.max_age_text, q.priority AS qos_priority, z.max_qos,
               pg_catalog.floor(pg_catalog.date_part('epoch', sprio_at.as_of))
                 OPERATOR(pg_catalog.-) pg_catalog.floor(pg_catalog.date_part('epoch', j.eligible_time)) AS pending_s,
               sh.fairshare AS sshare_fairshare,
               CASE WHEN c.weight_age OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.age_factor(j.eligible_time, sprio_at.as_of, c.priority_max_age) END AS f_age,
               CASE WHEN c.weight_fairshare OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE COALESCE(sh.fairshare, 0) END AS f_fs,
               CASE WHEN c.weight_job_size OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.job_size_factor(j.nodes, j.cpus, z.total_nodes, z.total_cpus, c.favor_small) END AS f_js,
               CASE WHEN c.weight_partition OPERATOR(pg_catalog.=) 0 THEN 0::float8
                    ELSE @extschema@.partition_factor(p.priority_job_factor, z.max_pjf) END AS f_part,
               CASE WHEN c.weight_qos OPERATOR(pg_catalog.=) 0 OR q.priority IS NULL THEN 0::float8
                    ELSE @extschema@.qos_factor(q.priority, z.max_qos) END AS f_qos
          FROM pending j
          -- the settings as of as_of (docs/history.md#the-history-of-the-settings)
          JOIN @extschema@_internal._clusters_at(sprio_at.as_of) c ON c.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN sizes z ON z.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN @extschema@_internal._partitions_at(NULL, sprio_at.as_of) p
            ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
          LEFT JOIN @extschema@_internal._qos_at(NULL, sprio_at.as_of) q
            ON q.cluster OPERATOR(pg_catalog.=) j.cluster AND q.qos OPERATOR(pg_catalog.=) j.qos
          -- sshare_at's FairShare, cached with the checkpoint: the table
          -- itself, on its whole key, so that the planner sees its rows
          -- (joined through cp, a CTE, it saw one row before the table was
          -- analyzed, and chose a nested loop or a merge join on the
          -- cluster alone: 1,000 × 1,001 rows)
          LEFT JOIN @extschema@.usage_checkpoint_factor_rows sh_own
            ON sh_own.cluster OPERATOR(pg_catalog.=) j.cluster AND sh_own.as_of OPERATOR(pg_catalog.=) z.cp_as_of
           AND sh_own.account OPERATOR(pg_catalog.=) j.account AND sh_own.user_name OPERATOR(pg_catalog.=) j.user_name
          -- sparse factors: the base's row where the checkpoint has none
          -- (docs/design.md#sparse-checkpoints); the same join on the
          -- whole key, which finds nothing when cp_base is NULL
          LEFT JOIN @extschema@.usage_checkpoint_factor_rows sh_base
            ON sh_base.cluster OPERATOR(pg_catalog.=) j.cluster AND sh_base.as_of OPERATOR(pg_catalog.=) z.cp_base
           AND sh_base.account OPERATOR(pg_catalog.=) j.account AND sh_base.user_name OPERATOR(pg_catalog.=) j.user_name
          CROSS JOIN LATERAL (SELECT COALESCE(sh_own.fairshare, sh_base.fairshare) AS fairshare) sh
    ), weighted AS (
        -- factor × weight, each rounded once to double, as Slurm stores them
        SELECT f.*,
               f.f_age OPERATOR(pg_catalog.*) f.w_age AS x_age,
               f.f_fs OPERATOR(pg_catalog.*) f.w_fs AS x_fs,
               f.f_js OPERATOR(pg_catalog.*) f.w_js AS x_js,
               f.f_part OPERATOR(pg_catalog.*) f.w_part AS x_part,
               f.f_qos OPERATOR(pg_catalog.*) f.w_qos AS x_qos,
               @extschema@.job_priority(f.f_fs, f.f_age, f.f_js, f.f_part, f.f_qos,
                                        f.w_fs, f.w_age, f.w_js, f.w_part, f.w_qos, f.nice::bigint) AS prio
          FROM factors f
    ), summed AS (
        -- Slurm's order: age, fairshare, job size, partition, QOS, − nice
        SELECT w.*,
               w.x_age OPERATOR(pg_catalog.+) w.x_fs OPERATOR(pg_catalog.+) w.x_js
                 OPERATOR(pg_catalog.+) w.x_part OPERATOR(pg_catalog.+) w.x_qos
                 OPERATOR(pg_catalog.-) w.nice::float8 AS exact
          FROM weighted w
    ), r AS (
        -- _sprio_rows's query over the cached factors (the same columns and
        -- expressions), or _sprio_rows itself: two one-time filters, one
        -- branch runs
        SELECT s.cluster,
               s.job_id,
               s.partition,
               s.user_name,
               s.account,
               s.qos,
               s.prio AS priority,
               pg_catalog.round(s.x_age)::bigint AS age,
               pg_catalog.round(s.x_fs)::bigint AS fairshare,
               pg_catalog.round(s.x_js)::bigint AS job_size,
               pg_catalog.round(s.x_part)::bigint AS partition_prio,
               pg_catalog.round(s.x_qos)::bigint AS qos_prio,
               s.nice,
               s.x_age AS age_weighted,
               s.x_fs AS fairshare_weighted,
               s.x_js AS job_size_weighted,
               s.x_part AS partition_weighted,
               s.x_qos AS qos_weighted,
               s.exact AS priority_exact,
               s.f_age AS age_factor,
               s.f_fs AS fairshare_factor,
               s.f_js AS job_size_factor,
               s.f_part AS partition_factor,
               s.f_qos AS qos_factor,
               s.submit_time,
               s.eligible_time,
               s.pending_s AS x_pending_s,
               s.max_age_text AS x_max_age_text,
               s.w_age AS x_w_age,
               s.w_fs AS x_w_fs,
               s.w_js AS x_w_js,
               s.w_part AS x_w_part,
               s.w_qos AS x_w_qos,
               s.sshare_fairshare IS NULL AS x_no_share,
               s.favor_small AS x_favor_small,
               s.nodes AS x_nodes,
               s.cpus AS x_cpus,
               s.total_nodes AS x_total_nodes,
               s.total_cpus AS x_total_cpus,
               s.pjf AS x_pjf,
               s.max_pjf AS x_max_pjf,
               s.qos_priority AS x_qos_priority,
               s.max_qos AS x_max_qos
          FROM summed s
         WHERE (SELECT h.cached FROM hold h)
        UNION ALL
        SELECT * FROM @extschema@_internal._sprio_rows(sprio_at.as_of)
         WHERE NOT (SELECT h.cached FROM hold h)
    )
    SELECT s.cluster, s.job_id, s.partition, s.user_name, s.account, s.qos, s.priority,
           s.age, s.fairshare, s.job_size, s.partition_prio, s.qos_prio, s.nice,
           s.age_weighted, s.fairshare_weighted, s.job_size_weighted, s.partition_weighted, s.qos_weighted,
           s.priority_exact, s.age_factor, s.fairshare_factor, s.job_size_factor, s.partition_factor, s.qos_factor,
           s.submit_time, s.eligible_time,
           @extschema@_internal._sprio_explanation(
                x_w_age => s.x_w_age, x_pending_s => s.x_pending_s, x_max_age_text => s.x_max_age_text,
                age_factor => s.age_factor, age_weighted => s.age_weighted, x_w_fs => s.x_w_fs,
                x_no_share => s.x_no_share, account => s.account, user_name => s.user_name,
                fairshare_factor => s.fairshare_factor, fairshare_weighted => s.fairshare_weighted, x_w_js => s.x_w_js,
                x_favor_small => s.x_favor_small, x_cpus => s.x_cpus, x_total_nodes => s.x_total_nodes,
                x_nodes => s.x_nodes, x_total_cpus => s.x_total_cpus, job_size_factor => s.job_size_factor,
                job_size_weighted => s.job_size_weighted, x_w_part => s.x_w_part, x_pjf => s.x_pjf,
                x_max_pjf => s.x_max_pjf, partition_factor => s.partition_factor, partition_weighted => s.partition_weighted,
                x_w_qos => s.x_w_qos, qos => s.qos, x_qos_priority => s.x_qos_priority,
                x_max_qos => s.x_max_qos, qos_factor => s.qos_factor, qos_weighted => s.qos_weighted,
                nice => s.nice, priority_exact => s.priority_exact, priority => s.priority)
      FROM r s;
END;
COMMENT ON FUNCTION @extschema@.sprio_at(timestamptz) IS
'sprio -l as of an instant: every job pending then (submitted and eligible, not started, not ended), its weighted factors rounded as sprio prints them and at full precision, the normalised factors, the truncated priority, and an explanation of each factor (computed only when read). NULL as_of gives no rows; an infinite one raises 22008.';

CREATE VIEW @extschema@.sprio AS
SELECT * FROM @extschema@.sprio_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.sprio IS 'sprio_at(now()): the pending jobs and their priority factors now.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_factors', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_factor_rows', '');
