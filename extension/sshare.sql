-- ---------------------------------------------------------------------------
-- sshare: Slurm's `sshare -l` over the accounting model, as of any instant
-- (PROTEUS, CALI; docs/policies.md#fair-share; column meanings in
-- docs/slurm.md#what-sshare-and-sprio-print).
--
-- Every cluster whose fairshare_algorithm is 'fair_tree' or 'classic' gets
-- one row per association: its accounts (user_name NULL) and its user
-- associations, with the decayed usage of association_usage_at(as_of).
-- The account tree is the one as of as_of (the history of the tree,
-- docs/history.md#the-history-of-the-tree).
-- ---------------------------------------------------------------------------

-- The accounts and the user associations as of an instant
-- (docs/history.md#the-history-of-the-tree): the live tables when the tree
-- did not change after it (a one-time filter of four index probes, so the
-- present is read exactly as before), else the versions of the history
-- valid at it and the rows that never changed (no version).  at_last_pass: for the 'slurm_passes' clusters, the tree as
-- of slurmctld's last pass at or before as_of instead, the tree the usage
-- columns of sshare were computed with (docs/slurm.md#the-tree-changes).
CREATE FUNCTION @extschema@_internal._tree_instants(as_of timestamptz, at_last_pass boolean)
RETURNS TABLE (cluster text, tree_at timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT c.cluster,
           CASE WHEN _tree_instants.at_last_pass AND c.decay_mode OPERATOR(pg_catalog.=) 'slurm_passes'
                THEN @extschema@.slurm_last_pass(_tree_instants.as_of, c.priority_calc_period, c.priority_last_decay)
                ELSE _tree_instants.as_of END
      -- (the decay of the scenario of the report running, if any)
      FROM @extschema@_internal._clusters_decay_at(_tree_instants.as_of) c;
END;
COMMENT ON FUNCTION @extschema@_internal._tree_instants(timestamptz, boolean) IS
'Per cluster, the instant its tree is read at for as_of: as_of, or with at_last_pass the last pass at or before it of a slurm_passes cluster.';

CREATE FUNCTION @extschema@_internal._accounts_at(as_of timestamptz, at_last_pass boolean)
RETURNS TABLE (cluster text, account text, parent_account text, shares integer)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.cluster, a.account, a.parent_account, a.shares
      FROM @extschema@.accounts a
     WHERE NOT @extschema@_internal._tree_changed_after(
                   CASE WHEN _accounts_at.at_last_pass THEN '-infinity'::timestamptz ELSE _accounts_at.as_of END)
    UNION ALL
    SELECT h.cluster, h.account, h.parent_account, h.shares
      FROM @extschema@.account_history h
      JOIN @extschema@_internal._tree_instants(_accounts_at.as_of, _accounts_at.at_last_pass) t
        ON t.cluster OPERATOR(pg_catalog.=) h.cluster
     WHERE h.valid_from OPERATOR(pg_catalog.<=) t.tree_at
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) t.tree_at)
       AND @extschema@_internal._tree_changed_after(
               CASE WHEN _accounts_at.at_last_pass THEN '-infinity'::timestamptz ELSE _accounts_at.as_of END)
    UNION ALL
    -- the accounts that never changed (no version): as they are
    SELECT a.cluster, a.account, a.parent_account, a.shares
      FROM @extschema@.accounts a
     WHERE NOT EXISTS (SELECT FROM @extschema@.account_history h
                        WHERE h.cluster OPERATOR(pg_catalog.=) a.cluster
                          AND h.account OPERATOR(pg_catalog.=) a.account)
       AND @extschema@_internal._tree_changed_after(
               CASE WHEN _accounts_at.at_last_pass THEN '-infinity'::timestamptz ELSE _accounts_at.as_of END);
END;
COMMENT ON FUNCTION @extschema@_internal._accounts_at(timestamptz, boolean) IS
'The accounts (parent, shares) as of an instant: the live table when the tree did not change after it, else account_history''s versions valid at it; at_last_pass: at the last pass of the slurm_passes clusters.';

CREATE FUNCTION @extschema@_internal._account_users_at(as_of timestamptz, at_last_pass boolean)
RETURNS TABLE (cluster text, account text, user_name text, shares integer)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT u.cluster, u.account, u.user_name, u.shares
      FROM @extschema@.account_users u
     WHERE NOT @extschema@_internal._tree_changed_after(
                   CASE WHEN _account_users_at.at_last_pass THEN '-infinity'::timestamptz ELSE _account_users_at.as_of END)
    UNION ALL
    SELECT h.cluster, h.account, h.user_name, h.shares
      FROM @extschema@.account_user_history h
      JOIN @extschema@_internal._tree_instants(_account_users_at.as_of, _account_users_at.at_last_pass) t
        ON t.cluster OPERATOR(pg_catalog.=) h.cluster
     WHERE h.valid_from OPERATOR(pg_catalog.<=) t.tree_at
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) t.tree_at)
       AND @extschema@_internal._tree_changed_after(
               CASE WHEN _account_users_at.at_last_pass THEN '-infinity'::timestamptz ELSE _account_users_at.as_of END)
    UNION ALL
    SELECT u.cluster, u.account, u.user_name, u.shares
      FROM @extschema@.account_users u
     WHERE NOT EXISTS (SELECT FROM @extschema@.account_user_history h
                        WHERE h.cluster OPERATOR(pg_catalog.=) u.cluster
                          AND h.account OPERATOR(pg_catalog.=) u.account
                          AND h.user_name OPERATOR(pg_catalog.=) u.user_name)
       AND @extschema@_internal._tree_changed_after(
               CASE WHEN _account_users_at.at_last_pass THEN '-infinity'::timestamptz ELSE _account_users_at.as_of END);
END;
COMMENT ON FUNCTION @extschema@_internal._account_users_at(timestamptz, boolean) IS
'The user associations (shares) as of an instant: the live table when the tree did not change after it, else account_user_history''s versions valid at it; at_last_pass: at the last pass of the slurm_passes clusters.';

-- association_tree_at's rows with the tree as of as_of, or (at_last_pass)
-- as of the last pass of the slurm_passes clusters; the usage is as of
-- as_of either way.
CREATE FUNCTION @extschema@_internal._association_tree(as_of timestamptz, at_last_pass boolean)
RETURNS TABLE (cluster text, algorithm text, account text, user_name text, parent text,
               id text, parent_id text, shares integer, usage float8, is_user boolean,
               raw_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.cluster, c.fairshare_algorithm, a.account, NULL::text, COALESCE(m.account, a.parent_account),
           'a:' OPERATOR(pg_catalog.||) a.account,
           'a:' OPERATOR(pg_catalog.||) COALESCE(m.account, a.parent_account),
           CASE WHEN o.fairshare_parent THEN NULL ELSE COALESCE(o.shares, a.shares) END,
           0::float8, false, 0::float8
      FROM @extschema@_internal._accounts_at(_association_tree.as_of, _association_tree.at_last_pass) a
      -- the algorithm as of as_of (docs/history.md#the-history-of-the-settings)
      JOIN @extschema@_internal._clusters_at(_association_tree.as_of) c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
      -- the shares and the parent of the scenario of the report running,
      -- if it has some for this account (docs/history.md#the-policy-lab);
      -- the new parent only if the tree holds it at this instant
      LEFT JOIN @extschema@.scenario_tree o
        ON o.scenario OPERATOR(pg_catalog.=) @extschema@_internal._scenario()
       AND o.cluster OPERATOR(pg_catalog.=) a.cluster
       AND o.account OPERATOR(pg_catalog.=) a.account
       AND o.user_name OPERATOR(pg_catalog.=) ''
      LEFT JOIN @extschema@_internal._accounts_at(_association_tree.as_of, _association_tree.at_last_pass) m
        ON m.cluster OPERATOR(pg_catalog.=) o.cluster
       AND m.account OPERATOR(pg_catalog.=) o.parent_account
     WHERE @extschema@_internal._check_as_of(_association_tree.as_of)
    UNION ALL
    SELECT au.cluster, c.fairshare_algorithm, au.account, au.user_name, au.account,
           'u:' OPERATOR(pg_catalog.||) pg_catalog.length(au.account)::text
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.account
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.user_name,
           'a:' OPERATOR(pg_catalog.||) au.account,
           CASE WHEN o.fairshare_parent THEN NULL ELSE COALESCE(o.shares, au.shares) END,
           COALESCE(u.pass_usage, 0), true, COALESCE(u.raw_usage, 0)
      FROM @extschema@_internal._account_users_at(_association_tree.as_of, _association_tree.at_last_pass) au
      JOIN @extschema@_internal._clusters_at(_association_tree.as_of) c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN @extschema@.scenario_tree o
        ON o.scenario OPERATOR(pg_catalog.=) @extschema@_internal._scenario()
       AND o.cluster OPERATOR(pg_catalog.=) au.cluster
       AND o.account OPERATOR(pg_catalog.=) au.account
       AND o.user_name OPERATOR(pg_catalog.=) au.user_name
      LEFT JOIN @extschema@_internal._association_usage(_association_tree.as_of, false, NULL) u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name;
END;
COMMENT ON FUNCTION @extschema@_internal._association_tree(timestamptz, boolean) IS
'association_tree_at''s rows with the tree as of as_of, or with at_last_pass as of the last pass at or before as_of of each slurm_passes cluster; usage as of as_of.';

-- The association tree of every cluster as rows for the tree window
-- functions (fair_tree.sql), with each user association's decayed usage as
-- of an instant (association_usage_at's, from _association_usage directly:
-- association_usage_at would join the user associations a second time);
-- accounts carry no usage of their own.  Ids: 'a:' ||
-- account, and 'u:' || length(account) || ':' || account || ':' || user for
-- user associations, so ids never collide and sibling ids sort by account
-- or user name (the lineage order Slurm breaks ties with).  usage is the
-- usage the tree is computed from and raw_usage the usage now: the same,
-- except under decay_mode 'slurm_passes', where usage is what the last
-- pass of slurmctld's decay thread left and raw_usage adds the charges of
-- the jobs that ended since (sshare's RawUsage).  The tree is the one as
-- of as_of (_accounts_at, _account_users_at).
CREATE FUNCTION @extschema@.association_tree_at(as_of timestamptz)
RETURNS TABLE (cluster text, algorithm text, account text, user_name text, parent text,
               id text, parent_id text, shares integer, usage float8, is_user boolean,
               raw_usage float8)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT t.cluster, t.algorithm, t.account, t.user_name, t.parent, t.id, t.parent_id,
           t.shares, t.usage, t.is_user, t.raw_usage
      FROM @extschema@_internal._association_tree(association_tree_at.as_of, false) t;
END;
COMMENT ON FUNCTION @extschema@.association_tree_at(timestamptz) IS
'Every cluster''s association tree (accounts and user associations) with each user association''s decayed usage as of an instant: the rows (id, parent_id, shares, usage, is_user) for the tree window functions; raw_usage adds, under decay_mode slurm_passes, the jobs ended since the last pass.';

-- Every tree column of sshare for one row, from one build of the
-- partition's tree (fair_tree.c): sshare would otherwise call nine tree
-- window functions over the same rows, each reading the partition and
-- building the tree again.  algorithm is 'fair_tree' or 'classic' (the
-- cluster's, one per partition); dampening is read for 'classic' only.
CREATE TYPE @extschema@_internal._sshare_tree_row AS (
    depth integer, tree_order bigint, norm_shares float8, raw_usage float8, norm_usage float8,
    effectv_usage float8, fairshare float8, level_fs float8, fs_rank bigint);
CREATE FUNCTION @extschema@_internal._sshare_tree(id text, parent_id text, shares float8, usage float8, is_user boolean,
                                         algorithm text, dampening float8)
RETURNS @extschema@_internal._sshare_tree_row AS 'MODULE_PATHNAME', 'fs_sshare_tree'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sshare_tree(text, text, float8, float8, boolean, text, float8) IS
'sshare''s tree columns of a row in one window function call: depth, tree_order and raw/norm usage, with NormShares, EffectvUsage, FairShare (and for fair_tree LevelFS and rank) under the given algorithm.';
-- the same, the raw usage column summed from raw_usage (slurm_passes: the
-- usage now, where the rest is computed from the usage of the last pass)
CREATE FUNCTION @extschema@_internal._sshare_tree(id text, parent_id text, shares float8, usage float8, is_user boolean,
                                         algorithm text, dampening float8, raw_usage float8)
RETURNS @extschema@_internal._sshare_tree_row AS 'MODULE_PATHNAME', 'fs_sshare_tree'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sshare_tree(text, text, float8, float8, boolean, text, float8, float8) IS
'sshare''s tree columns of a row in one window function call: depth, tree_order and raw/norm usage, with NormShares, EffectvUsage, FairShare (and for fair_tree LevelFS and rank) under the given algorithm; raw usage summed from raw_usage (NULL: usage), the rest from usage.';

-- The same in the node form (fair_tree.sql): the row, with its usage now,
-- as one composite, read once per row instead of six times; sshare_at and
-- the cached factors call this one.
CREATE TYPE @extschema@_internal._sshare_tree_node AS (
    id text, parent_id text, shares float8, usage float8, is_user boolean, raw_usage float8);
CREATE FUNCTION @extschema@_internal._sshare_tree(node @extschema@_internal._sshare_tree_node,
                                         algorithm text, dampening float8)
RETURNS @extschema@_internal._sshare_tree_row AS 'MODULE_PATHNAME', 'fs_sshare_tree'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sshare_tree(@extschema@_internal._sshare_tree_node, text, float8) IS
'_sshare_tree(id, parent_id, shares, usage, is_user, algorithm, dampening, raw_usage) with the row as one _sshare_tree_node: the same values, one read of each row.';
-- Its FairShare alone, from the same cells: the factors a usage
-- checkpoint caches (sprio.sql) need nothing else of the tree.
CREATE FUNCTION @extschema@_internal._sshare_fairshare(node @extschema@_internal._sshare_tree_node,
                                              algorithm text, dampening float8)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_sshare_fairshare'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sshare_fairshare(@extschema@_internal._sshare_tree_node, text, float8) IS
'The fairshare column of _sshare_tree(node, algorithm, dampening), the same value, without the other columns.';

-- sshare's TRESRunMins of every association of the fair_tree and classic
-- clusters: for the jobs running at as_of in the association or below it
-- (started before it: one that starts at as_of itself is not counted yet),
-- each TRES's count × the seconds left of the job's time limit, in minutes
-- (the association's seconds divided by 60, truncated, as sshare prints
-- them).  slurmctld adds count × time limit when a job starts
-- (acct_policy_job_begin) and takes off the seconds run at each pass of its
-- decay thread (_apply_new_usage): with decay_mode 'slurm_passes' the
-- seconds run are counted up to the last pass, otherwise up to as_of.  A
-- job without a time limit counts nothing.  The TRES are Slurm's default
-- list (AccountingStorageTRES) in its order, and gres/gpu when a partition
-- of the cluster has GPUs.  slurmctld keeps these counts only under
-- AccountingStorageEnforce=limits; without it sshare prints 0 for every TRES.
-- One row per association with running jobs, and per cluster one row with
-- account NULL: the line of every other association (each TRES 0).
CREATE FUNCTION @extschema@_internal._tres_run_mins_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, tres_run_mins text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
DECLARE
    -- the accounts with jobs running at as_of, then each with its
    -- ancestors (itself included), read by queries of their own: on a
    -- Citus cluster a recursive query cannot read the distributed jobs,
    -- and a SQL function reading jobs cannot be planned inside
    -- my_sshare_at (docs/citus.md).  Only the accounts that run: every
    -- account of 25,000 with its ancestors was 0.29 s at 10^7 jobs.
    run_cluster text[];
    run_account text[];
    anc_cluster text[];
    anc_account text[];
    anc_ancestor text[];
BEGIN
    SELECT COALESCE(pg_catalog.array_agg(x.cluster), '{}'), COALESCE(pg_catalog.array_agg(x.account), '{}')
      INTO run_cluster, run_account
      FROM (SELECT DISTINCT j.cluster, j.account
              FROM @extschema@.jobs j
             WHERE j.start_time OPERATOR(pg_catalog.<) _tres_run_mins_at.as_of
               AND COALESCE(j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) _tres_run_mins_at.as_of
               AND j.time_limit IS NOT NULL) x;
    WITH RECURSIVE anc AS (
        SELECT a.cluster, a.account, a.account AS ancestor, a.parent_account
          FROM @extschema@_internal._accounts_at(_tres_run_mins_at.as_of, false) a
          JOIN ROWS FROM (pg_catalog.unnest(run_cluster), pg_catalog.unnest(run_account)) AS r (cluster, account)
            ON a.cluster OPERATOR(pg_catalog.=) r.cluster AND a.account OPERATOR(pg_catalog.=) r.account
        UNION ALL
        SELECT x.cluster, x.account, p.account, p.parent_account
          FROM anc x
          JOIN @extschema@_internal._accounts_at(_tres_run_mins_at.as_of, false) p
            ON p.cluster OPERATOR(pg_catalog.=) x.cluster AND p.account OPERATOR(pg_catalog.=) x.parent_account
    )
    SELECT COALESCE(pg_catalog.array_agg(x.cluster), '{}'), COALESCE(pg_catalog.array_agg(x.account), '{}'),
           COALESCE(pg_catalog.array_agg(x.ancestor), '{}')
      INTO anc_cluster, anc_account, anc_ancestor
      FROM anc x;
    -- One row per association with the seconds left of each TRES summed
    -- in columns, and the text built at the end: a row per TRES (nine per
    -- association), grouped and joined by text keys, was 2 to 3 s of
    -- sshare_at's 4.4 s at 10^7 jobs (11,000 associations with running
    -- jobs).  energy, fs/disk, vmem and pages are always 0 (no job
    -- requests them here); gres/gpu only where a partition has GPUs.
    RETURN QUERY
    WITH names AS (
        SELECT c.cluster, c.decay_mode, c.priority_calc_period, c.priority_last_decay,
               @extschema@_internal._slurmctld_starts(c.cluster) AS starts,
               EXISTS (SELECT FROM @extschema@.partitions p
                        WHERE p.cluster OPERATOR(pg_catalog.=) c.cluster
                          AND p.gpus_per_node OPERATOR(pg_catalog.>) 0) AS has_gpu
          FROM @extschema@_internal._clusters_at(_tres_run_mins_at.as_of) c
         WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
    ), running AS (
        -- the jobs running at as_of and the seconds left of their time limit
        SELECT j.cluster, j.account, j.user_name, j.tres, j.cpus, j.mem_mb, j.nodes, j.gpus,
               GREATEST(0::bigint,
                        pg_catalog.floor(pg_catalog.date_part('epoch', j.time_limit))::bigint
                        OPERATOR(pg_catalog.-) GREATEST(0::bigint, pg_catalog.floor(pg_catalog.date_part('epoch',
                            CASE WHEN n.decay_mode OPERATOR(pg_catalog.=) 'slurm_passes'
                                 THEN @extschema@.slurm_last_pass(_tres_run_mins_at.as_of, n.priority_calc_period,
                                                                  n.priority_last_decay, n.starts)
                                 ELSE _tres_run_mins_at.as_of END
                            OPERATOR(pg_catalog.-) j.start_time))::bigint)) AS secs_left
          FROM @extschema@.jobs j
          JOIN names n ON n.cluster OPERATOR(pg_catalog.=) j.cluster
         WHERE j.start_time OPERATOR(pg_catalog.<) _tres_run_mins_at.as_of
           AND COALESCE(j.end_time, 'infinity'::timestamptz) OPERATOR(pg_catalog.>) _tres_run_mins_at.as_of
           AND j.time_limit IS NOT NULL
    ), user_secs AS MATERIALIZED (
        SELECT r.cluster, r.account, r.user_name,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*) r.cpus::bigint) AS cpu,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'mem')::bigint, r.mem_mb)) AS mem,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'node')::bigint, r.nodes::bigint)) AS node,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'billing')::bigint, 0::bigint)) AS billing,
               pg_catalog.sum(r.secs_left OPERATOR(pg_catalog.*)
                              COALESCE(@extschema@.tres_count(r.tres, 'gres/gpu')::bigint, r.gpus::bigint)) AS gpu
          FROM running r
         GROUP BY r.cluster, r.account, r.user_name
    ), anc AS (
        SELECT x.cluster, x.account, x.ancestor
          FROM ROWS FROM (pg_catalog.unnest(anc_cluster), pg_catalog.unnest(anc_account),
                          pg_catalog.unnest(anc_ancestor)) AS x (cluster, account, ancestor)
    ), secs AS (
        SELECT u.cluster, u.account, u.user_name, u.cpu, u.mem, u.node, u.billing, u.gpu FROM user_secs u
        UNION ALL
        SELECT u.cluster, x.ancestor, NULL::text, pg_catalog.sum(u.cpu), pg_catalog.sum(u.mem),
               pg_catalog.sum(u.node), pg_catalog.sum(u.billing), pg_catalog.sum(u.gpu)
          FROM user_secs u
          JOIN anc x ON x.cluster OPERATOR(pg_catalog.=) u.cluster AND x.account OPERATOR(pg_catalog.=) u.account
         GROUP BY u.cluster, x.ancestor
        UNION ALL
        -- for every cluster the line of the others (account NULL): every TRES 0
        SELECT n.cluster, NULL::text, NULL::text, 0, 0, 0, 0, 0 FROM names n
    )
    -- whole minutes, truncated: sshare divides integers
    SELECT v.cluster, v.account, v.user_name,
           'cpu=' OPERATOR(pg_catalog.||) pg_catalog.div(v.cpu, 60)::text
           OPERATOR(pg_catalog.||) ',mem=' OPERATOR(pg_catalog.||) pg_catalog.div(v.mem, 60)::text
           OPERATOR(pg_catalog.||) ',energy=0,node=' OPERATOR(pg_catalog.||) pg_catalog.div(v.node, 60)::text
           OPERATOR(pg_catalog.||) ',billing=' OPERATOR(pg_catalog.||) pg_catalog.div(v.billing, 60)::text
           OPERATOR(pg_catalog.||) ',fs/disk=0,vmem=0,pages=0'
           OPERATOR(pg_catalog.||) CASE WHEN n.has_gpu
                                        THEN ',gres/gpu=' OPERATOR(pg_catalog.||) pg_catalog.div(v.gpu, 60)::text
                                        ELSE '' END
      FROM secs v
      JOIN names n ON n.cluster OPERATOR(pg_catalog.=) v.cluster
     WHERE @extschema@_internal._check_as_of(_tres_run_mins_at.as_of);
END
$$;
COMMENT ON FUNCTION @extschema@_internal._tres_run_mins_at(timestamptz) IS
'sshare''s TRESRunMins of the associations of the fair_tree and classic clusters with running jobs as of an instant (each TRES''s count × the seconds left of the time limits of the jobs running in it or below it, in minutes), and per cluster (account NULL) the line of the others.';

CREATE FUNCTION @extschema@.sshare_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, parent text, depth integer,
               tree_order bigint, algorithm text,
               raw_shares integer, norm_shares float8, raw_usage float8, raw_usage_int bigint,
               norm_usage float8, effectv_usage float8, fairshare float8, level_fs float8,
               fs_rank bigint, grp_tres_mins text, tres_run_mins text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH lim AS (
        -- GrpTRESMins: the association's limit as of as_of
        -- (docs/history.md#the-history-of-the-limits); an account's line
        -- has user_name '' here
        SELECT l.cluster, l.account, l.user_name, l.grp_tres_mins
          FROM @extschema@_internal._limits_at(sshare_at.as_of) l
    ), lines AS MATERIALIZED (
        SELECT m.cluster, m.account, m.user_name, m.tres_run_mins
          FROM @extschema@_internal._tres_run_mins_at(sshare_at.as_of) m
    ), run AS MATERIALIZED (
        -- TRESRunMins: one row per cluster, its associations' lines in a
        -- jsonb object keyed by the association's tree id (the ids of
        -- association_tree_at, unique in a cluster) and its line of zeros;
        -- each association's line is looked up by its id (a binary
        -- search).  One row per cluster, so that no join plan can read the
        -- lines once per association: a filter on the cluster (WHERE
        -- cluster = ..., pushed below the window) turned the joins with a
        -- table of every line into nested loops that rescanned it per
        -- association (docs/performance.md#a-filter-on-the-cluster).  Built
        -- from clusters, so that the planner counts its rows from the
        -- table's statistics (a GROUP BY of the lines guessed 200, and the
        -- join then buffered every sshare row: 8 % slower at 10^6 jobs).
        SELECT c.cluster,
               (SELECT pg_catalog.jsonb_object_agg(
                         CASE WHEN l.user_name IS NULL THEN 'a:' OPERATOR(pg_catalog.||) l.account
                              ELSE 'u:' OPERATOR(pg_catalog.||) pg_catalog.length(l.account)::text
                                   OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) l.account
                                   OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) l.user_name END,
                         l.tres_run_mins)
                  FROM lines l
                 WHERE l.cluster OPERATOR(pg_catalog.=) c.cluster AND l.account IS NOT NULL) AS lines,
               (SELECT l.tres_run_mins FROM lines l
                 WHERE l.cluster OPERATOR(pg_catalog.=) c.cluster AND l.account IS NULL) AS zero
          FROM @extschema@_internal._clusters_at(sshare_at.as_of) c
         WHERE c.fairshare_algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
    ), r AS (
        SELECT t.cluster, t.account, t.user_name, t.parent, t.algorithm, t.shares, t.id,
               g.grp_tres_mins,
               @extschema@_internal._sshare_tree(
                   ROW(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.raw_usage)::@extschema@_internal._sshare_tree_node,
                   t.algorithm,
                   -- a subquery, not a join: a join with clusters would leave
                   -- the planner guessing 1/200 of the rows (docs/performance.md);
                   -- the dampening as of as_of
                   CASE WHEN t.algorithm OPERATOR(pg_catalog.=) 'classic'
                        THEN (SELECT c.fairshare_dampening FROM @extschema@_internal._cluster_at(t.cluster, sshare_at.as_of) c) END)
                 OVER (PARTITION BY t.cluster) AS f
          FROM @extschema@.association_tree_at(sshare_at.as_of) t
          -- The limits are joined here, below the window, on the three
          -- names: the rows are not sorted yet, so the planner sorts or
          -- hashes them on all three.  Joined above the window, whose rows
          -- come out sorted by cluster, it merged on the cluster alone and
          -- filtered the other names pair by pair (minutes at 10^7 jobs);
          -- and a lookup of the limits per line was a fifth of sshare_at's
          -- time there (docs/performance.md).
          LEFT JOIN lim g
            ON g.cluster OPERATOR(pg_catalog.=) t.cluster AND g.account OPERATOR(pg_catalog.=) t.account
           AND g.user_name OPERATOR(pg_catalog.=) COALESCE(t.user_name, '')
         WHERE t.algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
    ), pass AS (
        -- 'slurm_passes' clusters whose tree changed since slurmctld's last
        -- pass: NormUsage, EffectvUsage, FairShare, LevelFS (and the rank)
        -- are what that pass computed, with the tree as of the pass; the
        -- tree, RawShares, NormShares and RawUsage are the new ones at once
        -- (docs/slurm.md#the-tree-changes).  No row, by a one-time filter,
        -- when the tree did not change between the oldest such pass and
        -- as_of.  One row per cluster, as run: each association's position
        -- in the arrays looked up by its id (a join on the ids was planned
        -- as a nested loop over every pair of rows: 18 s at 10^4
        -- associations).
        SELECT x.cluster,
               pg_catalog.jsonb_object_agg(x.id, x.n) AS idx,
               pg_catalog.array_agg((x.f).norm_usage ORDER BY x.n) AS norm_usage,
               pg_catalog.array_agg((x.f).effectv_usage ORDER BY x.n) AS effectv_usage,
               pg_catalog.array_agg((x.f).fairshare ORDER BY x.n) AS fairshare,
               pg_catalog.array_agg((x.f).level_fs ORDER BY x.n) AS level_fs,
               pg_catalog.array_agg((x.f).fs_rank ORDER BY x.n) AS fs_rank
          FROM (SELECT w.cluster, w.id, w.f,
                       pg_catalog.row_number() OVER (PARTITION BY w.cluster ORDER BY w.id) AS n
                  FROM (SELECT t.cluster, t.id,
                               @extschema@_internal._sshare_tree(
                                   ROW(t.id, t.parent_id, t.shares, t.usage, t.is_user, t.raw_usage)::@extschema@_internal._sshare_tree_node,
                                   t.algorithm,
                                   CASE WHEN t.algorithm OPERATOR(pg_catalog.=) 'classic'
                                        THEN (SELECT c.fairshare_dampening FROM @extschema@_internal._cluster_at(t.cluster, sshare_at.as_of) c) END)
                                 OVER (PARTITION BY t.cluster) AS f
                          FROM @extschema@_internal._association_tree(sshare_at.as_of, true) t
                         WHERE t.algorithm OPERATOR(pg_catalog.=) ANY (ARRAY['fair_tree', 'classic'])
                           AND t.cluster IN (SELECT c.cluster FROM @extschema@_internal._clusters_decay_at(sshare_at.as_of) c
                                              WHERE c.decay_mode OPERATOR(pg_catalog.=) 'slurm_passes')
                           AND @extschema@_internal._tree_changed_between(
                                   (SELECT pg_catalog.min(i.tree_at)
                                      FROM @extschema@_internal._tree_instants(sshare_at.as_of, true) i
                                      JOIN @extschema@_internal._clusters_decay_at(sshare_at.as_of) c ON c.cluster OPERATOR(pg_catalog.=) i.cluster
                                     WHERE c.decay_mode OPERATOR(pg_catalog.=) 'slurm_passes'),
                                   sshare_at.as_of)) w) x
         GROUP BY x.cluster
    )
    SELECT r.cluster, r.account, r.user_name, r.parent, (r.f).depth, (r.f).tree_order, r.algorithm,
           -- sshare: RawShares empty for the root, "parent" for NULL shares
           CASE WHEN (r.f).depth OPERATOR(pg_catalog.=) 0 THEN NULL ELSE r.shares END,
           (r.f).norm_shares,
           (r.f).raw_usage,
           pg_catalog.trunc((r.f).raw_usage)::bigint,
           -- sshare leaves the root's NormUsage empty
           CASE WHEN (r.f).depth OPERATOR(pg_catalog.=) 0 THEN NULL
                WHEN p.k IS NOT NULL THEN p.norm_usage[p.k] ELSE (r.f).norm_usage END,
           CASE WHEN p.k IS NOT NULL THEN p.effectv_usage[p.k] ELSE (r.f).effectv_usage END,
           CASE WHEN p.k IS NOT NULL THEN p.fairshare[p.k] ELSE (r.f).fairshare END,
           CASE WHEN p.k IS NOT NULL THEN p.level_fs[p.k] ELSE (r.f).level_fs END,
           CASE WHEN p.k IS NOT NULL THEN p.fs_rank[p.k] ELSE (r.f).fs_rank END,
           -- in sshare's order
           @extschema@_internal._grp_tres_mins_text(r.grp_tres_mins),
           -- an association without running jobs: its cluster's line of
           -- zeros
           COALESCE(m.lines OPERATOR(pg_catalog.->>) r.id, m.zero)
      FROM r
      -- above the window, whose rows would otherwise each carry the
      -- cluster's object of lines into its buffer (10^4 rows x 10^3 lines
      -- written to disk at 10^6 jobs: 1.8 s instead of 0.1 s)
      LEFT JOIN run m ON m.cluster OPERATOR(pg_catalog.=) r.cluster
      LEFT JOIN LATERAL (SELECT (q.idx OPERATOR(pg_catalog.->>) r.id)::integer AS k, q.norm_usage, q.effectv_usage,
                                q.fairshare, q.level_fs, q.fs_rank
                           FROM pass q WHERE q.cluster OPERATOR(pg_catalog.=) r.cluster) p ON true
     WHERE @extschema@_internal._check_as_of(sshare_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.sshare_at(timestamptz) IS
'Slurm sshare -l as of an instant: every association of every fair_tree/classic cluster with RawShares, NormShares, RawUsage (decayed billing-seconds), NormUsage, EffectvUsage, FairShare, LevelFS, GrpTRESMins (the association''s limit, NULL for none) and TRESRunMins; ORDER BY cluster, tree_order for sshare''s listing.';

CREATE VIEW @extschema@.sshare AS
SELECT * FROM @extschema@.sshare_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.sshare IS 'sshare_at(now()): Slurm sshare -l for every fair_tree/classic cluster.';

-- Why does one user have a lower FairShare than another?  fair_tree.html's
-- recipe: find the first common ancestor of the two associations in the
-- tree Fair Tree walks (Fairshare=parent accounts are skipped), and compare
-- the Level FS of the two children of that ancestor on the way down: the
-- higher one, and everything below it, ranks first.  One row per pair of
-- associations (a user may be in several accounts).
CREATE FUNCTION @extschema@.sshare_explain(cluster text, user_name text, other_user text,
                                           as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (account text, fairshare float8, other_account text, other_fairshare float8,
               common_ancestor text, branch text, branch_level_fs float8,
               other_branch text, other_branch_level_fs float8, explanation text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    algo text;
BEGIN
    SELECT c.fairshare_algorithm INTO algo FROM @extschema@.clusters c WHERE c.cluster = sshare_explain.cluster;
    IF algo IS NULL THEN
        RAISE EXCEPTION 'cluster "%" does not exist', sshare_explain.cluster
            USING ERRCODE = '22023', HINT = 'Pass a cluster of fairshare.clusters.';
    ELSIF algo <> 'fair_tree' THEN
        RAISE EXCEPTION 'cluster "%" uses the % fair share, not Fair Tree', sshare_explain.cluster, algo
            USING ERRCODE = '22023',
                  HINT = 'Under classic fair share each factor is 2^(-effectv_usage/norm_shares): compare those columns of sshare_at().';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.account_users au
                    WHERE au.cluster = sshare_explain.cluster AND au.user_name = sshare_explain.user_name)
    THEN
        RAISE EXCEPTION 'user "%" has no association on cluster "%"', sshare_explain.user_name, sshare_explain.cluster
            USING ERRCODE = '22023', HINT = 'Users and their accounts are in fairshare.account_users.';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.account_users au
                    WHERE au.cluster = sshare_explain.cluster AND au.user_name = sshare_explain.other_user)
    THEN
        RAISE EXCEPTION 'user "%" has no association on cluster "%"', sshare_explain.other_user, sshare_explain.cluster
            USING ERRCODE = '22023', HINT = 'Users and their accounts are in fairshare.account_users.';
    END IF;

    RETURN QUERY
    WITH RECURSIVE s AS MATERIALIZED (
        SELECT * FROM @extschema@.sshare_at(sshare_explain.as_of) x WHERE x.cluster = sshare_explain.cluster
    ), acc AS (
        SELECT x.account, x.parent, x.depth, x.raw_shares, x.level_fs FROM s x WHERE x.user_name IS NULL
    ), me AS (
        SELECT 1 AS side, x.account, x.user_name, x.fairshare, x.raw_shares, x.level_fs
          FROM s x WHERE x.user_name = sshare_explain.user_name
        UNION ALL
        SELECT 2, x.account, x.user_name, x.fairshare, x.raw_shares, x.level_fs
          FROM s x WHERE x.user_name = sshare_explain.other_user
    ), walk AS (
        SELECT m.side, m.account AS assoc, a.account, a.parent, a.depth, a.raw_shares, a.level_fs
          FROM me m JOIN acc a ON a.account = m.account
        UNION ALL
        SELECT w.side, w.assoc, a.account, a.parent, a.depth, a.raw_shares, a.level_fs
          FROM walk w JOIN acc a ON a.account = w.parent
    ), paths AS (
        -- the path Fair Tree walks: root, the non-parent accounts, the user
        SELECT m.side, m.account, m.fairshare,
               array_agg('account ' || w.account ORDER BY w.depth)
                 FILTER (WHERE w.raw_shares IS NOT NULL OR w.depth = 0)
                 || ('user ' || m.user_name) AS nodes,
               array_agg(w.level_fs ORDER BY w.depth)
                 FILTER (WHERE w.raw_shares IS NOT NULL OR w.depth = 0)
                 -- a Fairshare=parent user ranks as if its Level FS were infinite
                 || CASE WHEN m.raw_shares IS NULL THEN 'Infinity'::float8 ELSE m.level_fs END AS lfs
          FROM me m JOIN walk w ON w.side = m.side AND w.assoc = m.account
         GROUP BY m.side, m.account, m.user_name, m.fairshare, m.raw_shares, m.level_fs
    ), pairs AS (
        SELECT a.account, a.fairshare, b.account AS other_account, b.fairshare AS other_fairshare,
               a.nodes, a.lfs, b.nodes AS onodes, b.lfs AS olfs,
               (SELECT min(i) FROM generate_series(1, least(cardinality(a.nodes), cardinality(b.nodes))) i
                 WHERE a.nodes[i] IS DISTINCT FROM b.nodes[i]) AS k
          FROM paths a, paths b
         WHERE a.side = 1 AND b.side = 2
    )
    SELECT p.account, p.fairshare, p.other_account, p.other_fairshare,
           substr(p.nodes[p.k - 1], strpos(p.nodes[p.k - 1], ' ') + 1),
           p.nodes[p.k], p.lfs[p.k], p.onodes[p.k], p.olfs[p.k],
           CASE
             WHEN p.k IS NULL THEN 'the same association'
             WHEN p.lfs[p.k] <> p.olfs[p.k] THEN
               format('under %s, %s has Level FS %s and %s has %s: %s',
                      p.nodes[p.k - 1], p.nodes[p.k], p.lfs[p.k], p.onodes[p.k], p.olfs[p.k],
                      CASE WHEN p.lfs[p.k] > p.olfs[p.k] THEN p.nodes[p.k] ELSE p.onodes[p.k] END
                      || CASE WHEN (CASE WHEN p.lfs[p.k] > p.olfs[p.k] THEN p.nodes[p.k] ELSE p.onodes[p.k] END)
                                   LIKE 'user %' THEN ' ranks first'
                              ELSE ' and all the users below it rank first' END)
             WHEN p.nodes[p.k] LIKE 'user %' AND p.onodes[p.k] LIKE 'user %' THEN
               format('under %s, %s and %s tie at Level FS %s: they share a rank',
                      p.nodes[p.k - 1], p.nodes[p.k], p.onodes[p.k], p.lfs[p.k])
             ELSE
               format('under %s, %s and %s tie at Level FS %s: Slurm visits a user before an account, '
                      'and tied accounts in lineage order (alphabetical); the first user of an account '
                      'tied with the sibling before it keeps the rank of the last user ranked',
                      p.nodes[p.k - 1], p.nodes[p.k], p.onodes[p.k], p.lfs[p.k])
           END
      FROM pairs p
     ORDER BY p.account, p.other_account;
END
$$;
COMMENT ON FUNCTION @extschema@.sshare_explain(text, text, text, timestamptz) IS
'Why user_name''s FairShare differs from other_user''s (Fair Tree): the first common ancestor and the Level FS of the two branches below it (fair_tree.html).';
