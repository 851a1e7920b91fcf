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
    -- checkpoints they are cached with (sprio_cache.sql)
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
             ORDER BY x.cluster, x.as_of DESC) k
      JOIN @extschema@.clusters c ON c.cluster = k.cluster
      JOIN @extschema@.usage_checkpoint_factors f
        ON f.cluster = k.cluster AND f.as_of = k.as_of AND _sprio_rows.as_of < f.valid_before
     WHERE upper(c.usage_reset_period) = 'NONE'
        OR NOT COALESCE(@extschema@_internal._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone,
                                                       c.decay_mode, c.priority_calc_period, c.priority_last_decay,
                                                       _sprio_rows.as_of) > k.as_of, false);
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
               (SELECT pg_catalog.max(q.priority) FROM @extschema@.qos q
                 WHERE q.cluster OPERATOR(pg_catalog.=) c.cluster) AS max_qos
          FROM @extschema@.clusters c
          LEFT JOIN @extschema@.partitions p ON p.cluster OPERATOR(pg_catalog.=) c.cluster
         WHERE (pg_catalog.isfinite(_sprio_rows.as_of)
                OR @extschema@_internal._raise('22008', pg_catalog.format('sprio_at: as_of must be a finite timestamp, not %s',
                                                                 _sprio_rows.as_of),
                                      'Pass a real instant for as_of.', false))
         GROUP BY c.cluster, c.total_nodes, c.total_cpus
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
        SELECT r.cluster, r.account, r.user_name, r.fairshare
          FROM ROWS FROM (pg_catalog.unnest(cp_clusters), pg_catalog.unnest(cp_times)) AS k (cluster, as_of)
          JOIN @extschema@.usage_checkpoint_factor_rows r
            ON r.cluster OPERATOR(pg_catalog.=) k.cluster AND r.as_of OPERATOR(pg_catalog.=) k.as_of
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
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN sizes z ON z.cluster OPERATOR(pg_catalog.=) j.cluster
          JOIN @extschema@.partitions p
            ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
          LEFT JOIN @extschema@.qos q
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
