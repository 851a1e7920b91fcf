-- ---------------------------------------------------------------------------
-- fair_tree: Slurm's fair share over an association tree (PROTEUS, CALI;
-- docs/policies.md#fair-share), read from Slurm's code
-- (docs/slurm.md#fair-tree, docs/slurm.md#classic-fair-share,
-- docs/slurm.md#edge-cases).
--
-- Window functions over the rows of one tree per partition:
--   f(id, parent_id, shares, usage, is_user) OVER (PARTITION BY cluster)
-- parent_id NULL = the root; shares NULL = Fairshare=parent; usage = raw
-- usage charged to the association itself (an account's raw usage is its
-- own plus its descendants').  Not STRICT: NULL parent_id and shares mean
-- something; a NULL id, usage or is_user is an error (22004).
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@.fair_tree_rank(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS bigint AS 'MODULE_PATHNAME', 'fs_fair_tree_rank'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_rank(text, text, float8, float8, boolean) IS
'Slurm Fair Tree rank of a user association: N (number of user rows) for the most deserving, counting down, ties as Slurm assigns them; NULL for accounts.';

CREATE FUNCTION @extschema@.fair_tree_factor(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_factor'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_factor(text, text, float8, float8, boolean) IS
'Fair Tree fair-share factor rank/N (sshare FairShare); NULL for accounts.';

CREATE FUNCTION @extschema@.fair_tree_level_fs(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_level_fs'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_level_fs(text, text, float8, float8, boolean) IS
'Fair Tree Level FS = NormShares/EffectvUsage (Infinity when shares > 0 and usage 0, 0 when shares 0); NULL for the root and Fairshare=parent rows, as sshare leaves them empty.';

CREATE FUNCTION @extschema@.fair_tree_norm_shares(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_norm_shares'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_norm_shares(text, text, float8, float8, boolean) IS
'Fair Tree NormShares: shares / shares of the fs sibling group; a Fairshare=parent row shows its fs parent''s; 0 for the root.';

CREATE FUNCTION @extschema@.fair_tree_effective_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_effective_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_effective_usage(text, text, float8, float8, boolean) IS
'Fair Tree EffectvUsage: raw usage / raw usage of the fs parent (0 when that is 0); 1 for the root.';

CREATE FUNCTION @extschema@.classic_norm_shares(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_norm_shares'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_norm_shares(text, text, float8, float8, boolean) IS
'Classic (NO_FAIR_TREE) NormShares: product of shares/level shares down the path, Fairshare=parent resolved to the fs parent; 1 for the root.';

CREATE FUNCTION @extschema@.classic_effective_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_effective_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_effective_usage(text, text, float8, float8, boolean) IS
'Classic EffectvUsage: UN under the root, else UN + (UE(parent) - UN) x shares/level shares; 1 for the root.';

CREATE FUNCTION @extschema@.classic_factor(id text, parent_id text, shares float8, usage float8, is_user boolean,
                                           dampening float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_factor'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_factor(text, text, float8, float8, boolean, float8) IS
'Classic fair-share factor 2^(-(EffectvUsage/NormShares)/dampening), 0 when NormShares is 0; accounts too (sshare prints them); NULL for the root.';

CREATE FUNCTION @extschema@.tree_raw_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_tree_raw_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_raw_usage(text, text, float8, float8, boolean) IS
'Raw usage of an association: its own usage plus all its descendants'' (sshare RawUsage before truncation).';

CREATE FUNCTION @extschema@.tree_norm_usage(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_tree_norm_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_norm_usage(text, text, float8, float8, boolean) IS
'NormUsage: raw usage / raw usage of the root, at most 1; 0 when the root has no usage.';

CREATE FUNCTION @extschema@.tree_depth(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS integer AS 'MODULE_PATHNAME', 'fs_tree_depth'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_depth(text, text, float8, float8, boolean) IS
'Depth of an association in the tree, the root 0.';

CREATE FUNCTION @extschema@.tree_order(id text, parent_id text, shares float8, usage float8, is_user boolean)
RETURNS bigint AS 'MODULE_PATHNAME', 'fs_tree_order'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_order(text, text, float8, float8, boolean) IS
'Position (1 = root) in Slurm''s lineage order: pre-order, users before sub-accounts, each by id; sshare lists in this order and Fair Tree breaks exact ties with it.';

-- The node form of every function above: one composite argument per row,
--   f(ROW(id, parent_id, shares, usage, is_user)::@extschema@.fair_tree_node)
--       OVER (PARTITION BY cluster)
-- the same answers, the same checks of the fields; a NULL node is an error
-- (22004).  The window API fetches one argument of one row per call, each
-- fetch reading the row back from the window's tuplestore: the five
-- arguments cost five reads of every row, the node one
-- (docs/performance.md#fair-tree).
CREATE TYPE @extschema@.fair_tree_node AS (id text, parent_id text, shares float8, usage float8, is_user boolean);
COMMENT ON TYPE @extschema@.fair_tree_node IS
'One row of an association tree for the node form of the tree window functions: (id, parent_id, shares, usage, is_user), as their five arguments.';

CREATE FUNCTION @extschema@.fair_tree_rank(node @extschema@.fair_tree_node)
RETURNS bigint AS 'MODULE_PATHNAME', 'fs_fair_tree_rank'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_rank(@extschema@.fair_tree_node) IS
'fair_tree_rank(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.fair_tree_factor(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_factor'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_factor(@extschema@.fair_tree_node) IS
'fair_tree_factor(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.fair_tree_level_fs(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_level_fs'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_level_fs(@extschema@.fair_tree_node) IS
'fair_tree_level_fs(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.fair_tree_norm_shares(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_norm_shares'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_norm_shares(@extschema@.fair_tree_node) IS
'fair_tree_norm_shares(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.fair_tree_effective_usage(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_fair_tree_effective_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.fair_tree_effective_usage(@extschema@.fair_tree_node) IS
'fair_tree_effective_usage(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.classic_norm_shares(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_norm_shares'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_norm_shares(@extschema@.fair_tree_node) IS
'classic_norm_shares(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.classic_effective_usage(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_effective_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_effective_usage(@extschema@.fair_tree_node) IS
'classic_effective_usage(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.tree_raw_usage(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_tree_raw_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_raw_usage(@extschema@.fair_tree_node) IS
'tree_raw_usage(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.tree_norm_usage(node @extschema@.fair_tree_node)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_tree_norm_usage'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_norm_usage(@extschema@.fair_tree_node) IS
'tree_norm_usage(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.tree_depth(node @extschema@.fair_tree_node)
RETURNS integer AS 'MODULE_PATHNAME', 'fs_tree_depth'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_depth(@extschema@.fair_tree_node) IS
'tree_depth(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.tree_order(node @extschema@.fair_tree_node)
RETURNS bigint AS 'MODULE_PATHNAME', 'fs_tree_order'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.tree_order(@extschema@.fair_tree_node) IS
'tree_order(id, parent_id, shares, usage, is_user) with the row as one fair_tree_node: the same value, one read of each row.';

CREATE FUNCTION @extschema@.classic_factor(node @extschema@.fair_tree_node, dampening float8 DEFAULT 1)
RETURNS float8 AS 'MODULE_PATHNAME', 'fs_classic_factor'
LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.classic_factor(@extschema@.fair_tree_node, float8) IS
'classic_factor(id, parent_id, shares, usage, is_user, dampening) with the row as one fair_tree_node: the same value, one read of each row.';
