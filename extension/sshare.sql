-- ---------------------------------------------------------------------------
-- sshare: Slurm's `sshare -l` over the accounting model, as of any instant
-- (PROTEUS, CALI; POLICIES.md §3; column meanings in slurm-semantics.md §1.6).
--
-- Every cluster whose fairshare_algorithm is 'fair_tree' or 'classic' gets
-- one row per association: its accounts (user_name NULL) and its user
-- associations, with the decayed usage of association_usage_at(as_of).
-- The account tree itself is the current one: the model keeps no history
-- of accounts and shares.
-- ---------------------------------------------------------------------------

-- The tree of every Slurm cluster as rows for the tree window functions.
-- Ids: 'a:' || account, and 'u:' || length(account) || ':' || account ||
-- ':' || user for user associations, so ids never collide and sibling ids
-- sort by account or user name (the lineage order Slurm breaks ties with).
CREATE FUNCTION @extschema@._sshare_tree(as_of timestamptz)
RETURNS TABLE (cluster text, algorithm text, account text, user_name text, parent text,
               id text, parent_id text, shares integer, usage float8, is_user boolean)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.cluster, c.fairshare_algorithm, a.account, NULL::text, a.parent_account,
           'a:' OPERATOR(pg_catalog.||) a.account,
           'a:' OPERATOR(pg_catalog.||) a.parent_account,
           a.shares, 0::float8, false
      FROM @extschema@.accounts a
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) a.cluster
     WHERE c.fairshare_algorithm IN ('fair_tree', 'classic')
    UNION ALL
    SELECT au.cluster, c.fairshare_algorithm, au.account, au.user_name, au.account,
           'u:' OPERATOR(pg_catalog.||) pg_catalog.length(au.account)::text
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.account
                OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) au.user_name,
           'a:' OPERATOR(pg_catalog.||) au.account,
           au.shares, COALESCE(u.raw_usage, 0), true
      FROM @extschema@.account_users au
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN @extschema@.association_usage_at(_sshare_tree.as_of) u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name
     WHERE c.fairshare_algorithm IN ('fair_tree', 'classic');
END;
COMMENT ON FUNCTION @extschema@._sshare_tree(timestamptz) IS
'Internal: the association tree of every fair_tree/classic cluster with each user association''s decayed usage as of an instant.';

CREATE FUNCTION @extschema@.sshare_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, parent text, depth integer,
               tree_order bigint, algorithm text,
               raw_shares integer, norm_shares float8, raw_usage float8, raw_usage_int bigint,
               norm_usage float8, effectv_usage float8, fairshare float8, level_fs float8,
               fs_rank bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH t AS (
        SELECT * FROM @extschema@._sshare_tree(sshare_at.as_of)
    ), ft AS (
        SELECT t.cluster, t.account, t.user_name, t.parent, t.algorithm, t.shares, t.is_user,
               @extschema@.tree_depth(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS depth,
               @extschema@.tree_order(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS tree_order,
               @extschema@.fair_tree_norm_shares(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS norm_shares,
               @extschema@.tree_raw_usage(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS raw_usage,
               @extschema@.tree_norm_usage(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS norm_usage,
               @extschema@.fair_tree_effective_usage(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS effectv_usage,
               @extschema@.fair_tree_factor(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS fairshare,
               @extschema@.fair_tree_level_fs(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS level_fs,
               @extschema@.fair_tree_rank(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS fs_rank
          FROM t
         WHERE t.algorithm OPERATOR(pg_catalog.=) 'fair_tree'
        WINDOW w AS (PARTITION BY t.cluster)
    ), cl AS (
        SELECT t.cluster, t.account, t.user_name, t.parent, t.algorithm, t.shares, t.is_user,
               @extschema@.tree_depth(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS depth,
               @extschema@.tree_order(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS tree_order,
               @extschema@.classic_norm_shares(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS norm_shares,
               @extschema@.tree_raw_usage(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS raw_usage,
               @extschema@.tree_norm_usage(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS norm_usage,
               @extschema@.classic_effective_usage(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w AS effectv_usage,
               @extschema@.classic_factor(t.id, t.parent_id, t.shares, t.usage, t.is_user, c.fairshare_dampening) OVER w AS fairshare,
               NULL::float8 AS level_fs,
               NULL::bigint AS fs_rank
          FROM t
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) t.cluster
         WHERE t.algorithm OPERATOR(pg_catalog.=) 'classic'
        WINDOW w AS (PARTITION BY t.cluster)
    ), r AS (
        SELECT * FROM ft UNION ALL SELECT * FROM cl
    )
    SELECT r.cluster, r.account, r.user_name, r.parent, r.depth, r.tree_order, r.algorithm,
           -- sshare: RawShares empty for the root, "parent" for NULL shares
           CASE WHEN r.depth OPERATOR(pg_catalog.=) 0 THEN NULL ELSE r.shares END,
           r.norm_shares,
           r.raw_usage,
           pg_catalog.trunc(r.raw_usage)::bigint,
           -- sshare leaves the root's NormUsage empty
           CASE WHEN r.depth OPERATOR(pg_catalog.=) 0 THEN NULL ELSE r.norm_usage END,
           r.effectv_usage,
           r.fairshare,
           r.level_fs,
           r.fs_rank
      FROM r;
END;
COMMENT ON FUNCTION @extschema@.sshare_at(timestamptz) IS
'Slurm sshare -l as of an instant: every association of every fair_tree/classic cluster with RawShares, NormShares, RawUsage (decayed billing-seconds), NormUsage, EffectvUsage, FairShare, LevelFS; ORDER BY cluster, tree_order for sshare''s listing.';

CREATE VIEW @extschema@.sshare AS
SELECT * FROM @extschema@.sshare_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.sshare IS 'sshare_at(now()): Slurm sshare -l for every fair_tree/classic cluster.';
