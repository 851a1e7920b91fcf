-- ---------------------------------------------------------------------------
-- Fair-share factors kept with the usage checkpoints (issue 21;
-- docs/priority.md#cached-fair-share-factors).
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
    PRIMARY KEY (cluster, as_of),
    CHECK (valid_before OPERATOR(pg_catalog.>) as_of),
    FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoints ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.usage_checkpoint_factors IS
'The usage checkpoints whose fair-share factors are cached (usage_checkpoint_factor_rows), and the instants they hold for: [as_of, valid_before). Deleted with the checkpoint, and when the association tree of the cluster changes.';

CREATE TABLE @extschema@.usage_checkpoint_factor_rows (
    cluster   text NOT NULL,
    as_of     timestamptz NOT NULL,
    account   text NOT NULL,
    user_name text NOT NULL,
    -- sshare_at(as_of)'s FairShare of the association
    fairshare float8 NOT NULL,
    PRIMARY KEY (cluster, as_of, account, user_name),
    FOREIGN KEY (cluster, as_of) REFERENCES @extschema@.usage_checkpoint_factors ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.usage_checkpoint_factor_rows IS
'sshare_at''s FairShare of every user association as of each usage checkpoint of usage_checkpoint_factors: what sprio_at reads instead of computing the tree.';

-- Store the factors of the checkpoints as of an instant (one cluster, or
-- every cluster for NULL): called by checkpoint_usage once its checkpoints
-- are valid, so that sshare_at(as_of) starts from them.
CREATE FUNCTION @extschema@._checkpoint_factors(cluster text, as_of timestamptz)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM @extschema@.usage_checkpoint_factors f
     WHERE (_checkpoint_factors.cluster IS NULL OR f.cluster = _checkpoint_factors.cluster)
       AND f.as_of = _checkpoint_factors.as_of;
    INSERT INTO @extschema@.usage_checkpoint_factors (cluster, as_of, valid_before)
    SELECT k.cluster, k.as_of,
           CASE WHEN c.decay_mode = 'slurm_passes'
                THEN @extschema@.slurm_last_pass(k.as_of, c.priority_calc_period, c.priority_last_decay)
                     + c.priority_calc_period
                -- the instant itself (the resolution of timestamptz)
                ELSE k.as_of + interval '1 microsecond' END
      FROM @extschema@.usage_checkpoints k
      JOIN @extschema@.clusters c ON c.cluster = k.cluster
     WHERE (_checkpoint_factors.cluster IS NULL OR k.cluster = _checkpoint_factors.cluster)
       AND k.as_of = _checkpoint_factors.as_of AND k.invalidated_at IS NULL
       AND c.fairshare_algorithm IN ('fair_tree', 'classic');
    INSERT INTO @extschema@.usage_checkpoint_factor_rows (cluster, as_of, account, user_name, fairshare)
    SELECT s.cluster, _checkpoint_factors.as_of, s.account, s.user_name, s.fairshare
      FROM @extschema@.sshare_at(_checkpoint_factors.as_of) s
     WHERE s.user_name IS NOT NULL
       AND (_checkpoint_factors.cluster IS NULL OR s.cluster = _checkpoint_factors.cluster)
       AND EXISTS (SELECT FROM @extschema@.usage_checkpoint_factors f
                    WHERE f.cluster = s.cluster AND f.as_of = _checkpoint_factors.as_of);
END
$$;
COMMENT ON FUNCTION @extschema@._checkpoint_factors(text, timestamptz) IS
'Cache sshare_at(as_of)''s FairShare of every user association of the valid usage checkpoints as of as_of (of one cluster, or all for NULL), for sprio_at; checkpoint_usage calls it.';

-- A change to the association tree deletes the cached factors of the
-- clusters concerned (TRUNCATE: all of them).  Per statement, over its
-- rows; a role that writes the tree needs DELETE on
-- usage_checkpoint_factors (fairshare_admin has it).
CREATE FUNCTION @extschema@._tree_drop_checkpoint_factors() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM @extschema@.usage_checkpoint_factors;
    ELSIF TG_OP = 'INSERT' THEN
        DELETE FROM @extschema@.usage_checkpoint_factors f WHERE f.cluster IN (SELECT n.cluster FROM new_rows n);
    ELSIF TG_OP = 'DELETE' THEN
        DELETE FROM @extschema@.usage_checkpoint_factors f WHERE f.cluster IN (SELECT o.cluster FROM old_rows o);
    ELSE
        DELETE FROM @extschema@.usage_checkpoint_factors f
         WHERE f.cluster IN (SELECT o.cluster FROM old_rows o UNION SELECT n.cluster FROM new_rows n);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER drop_checkpoint_factors_insert AFTER INSERT ON @extschema@.accounts
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_update AFTER UPDATE ON @extschema@.accounts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_delete AFTER DELETE ON @extschema@.accounts
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_truncate AFTER TRUNCATE ON @extschema@.accounts
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_insert AFTER INSERT ON @extschema@.account_users
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_update AFTER UPDATE ON @extschema@.account_users
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_delete AFTER DELETE ON @extschema@.account_users
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
CREATE TRIGGER drop_checkpoint_factors_truncate AFTER TRUNCATE ON @extschema@.account_users
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();
-- the cluster's algorithm and dampening (its decay settings invalidate the
-- checkpoint itself: usage_views.sql)
CREATE TRIGGER drop_checkpoint_factors AFTER UPDATE ON @extschema@.clusters
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@._tree_drop_checkpoint_factors();

SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_factors', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.usage_checkpoint_factor_rows', '');
