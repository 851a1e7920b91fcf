-- ---------------------------------------------------------------------------
-- Association limits: GrpTRESMins, as sshare -l prints it.
--
-- Each association (account or user in an account) may hold a GrpTRESMins
-- limit: TRES by name and minutes, 'billing=3600' or 'cpu=600,billing=3600'.
-- NULL is no limit.  A centre sets it by hand (UPDATE accounts SET
-- grp_tres_mins = ...); on a cluster fed from slurmdbd, sync_slurmdbd copies
-- what slurmdbd holds, the TRES ids turned into names.  sshare_at shows it
-- in sshare's order (docs/fairshare.md).
-- ---------------------------------------------------------------------------

-- (ALTER TABLE, not a column in model.sql: the upgrade adds the columns at
-- the end of the tables, and a fresh install must lay them out the same.)
ALTER TABLE @extschema@.accounts ADD COLUMN grp_tres_mins text
    CHECK (grp_tres_mins OPERATOR(pg_catalog.~)
           '^[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18})(,[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18}))*$');
ALTER TABLE @extschema@.account_users ADD COLUMN grp_tres_mins text
    CHECK (grp_tres_mins OPERATOR(pg_catalog.~)
           '^[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18})(,[a-z]+(/[A-Za-z0-9_:.+-]+)?=(0|[1-9][0-9]{0,18}))*$');
COMMENT ON COLUMN @extschema@.accounts.grp_tres_mins IS
'The account''s GrpTRESMins limit as TRES names and minutes (''billing=3600''); NULL: none. Copied from slurmdbd by sync_slurmdbd on a fed cluster.';
COMMENT ON COLUMN @extschema@.account_users.grp_tres_mins IS
'The user association''s GrpTRESMins limit as TRES names and minutes (''billing=600''); NULL: none. Copied from slurmdbd by sync_slurmdbd on a fed cluster.';

-- A GrpTRESMins limit as sshare prints it: slurmctld's TRES order (cpu,
-- mem, energy, node, billing, fs/disk, vmem, pages, then the others such as
-- gres/gpu, here by name), name=minutes joined by commas, a limit of 0
-- printed as 0.  Each TRES once: the last value given for a name counts,
-- as sacctmgr keeps the last one.
CREATE FUNCTION @extschema@_internal._grp_tres_mins_text(limits text)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT pg_catalog.string_agg(l.tres OPERATOR(pg_catalog.||) '=' OPERATOR(pg_catalog.||) l.minutes, ','
                                 ORDER BY COALESCE(pg_catalog.array_position(
                                     ARRAY['cpu', 'mem', 'energy', 'node', 'billing', 'fs/disk', 'vmem', 'pages'],
                                     l.tres), 9), l.tres COLLATE "C")
      FROM (SELECT DISTINCT ON (pg_catalog.split_part(e.e, '=', 1))
                   pg_catalog.split_part(e.e, '=', 1) AS tres, pg_catalog.split_part(e.e, '=', 2) AS minutes
              FROM pg_catalog.regexp_split_to_table(limits, ',') WITH ORDINALITY e (e, i)
             WHERE e.e OPERATOR(pg_catalog.<>) ''
             ORDER BY pg_catalog.split_part(e.e, '=', 1), e.i DESC) l;
END;
COMMENT ON FUNCTION @extschema@_internal._grp_tres_mins_text(text) IS
'A GrpTRESMins limit (TRES names and minutes) as sshare -l prints it: slurmctld''s TRES order, each TRES once (internal to sshare_at and sync_slurmdbd).';

-- The history of the limits (docs/history.md#the-history-of-the-limits):
-- every version of an association's GrpTRESMins, valid over [valid_from,
-- valid_to), kept as the tree's history is (model.sql): only changes are
-- written, at the instant of the tree (now(), or fairshare.tree_change_at,
-- which the slurmdbd feed sets to slurmdbd's mod_time).  An association
-- whose limit never changed has no version and is read live for every
-- instant; its first change writes its old limit from -infinity.
CREATE TABLE @extschema@.limit_history (
    -- a cluster's history goes with it, and follows its renaming
    cluster        text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account        text NOT NULL,
    -- the user of a user association; '' for the account's own limit
    user_name      text NOT NULL,
    grp_tres_mins  text,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
COMMENT ON TABLE @extschema@.limit_history IS
'Every version of each association''s GrpTRESMins (user_name '''' for an account), valid over [valid_from, valid_to) (valid_to NULL: in force now); written by the triggers limit_history of accounts and account_users.';
CREATE INDEX limit_history_key_idx ON @extschema@.limit_history (cluster, account, user_name, valid_from);
-- one open version per association
CREATE UNIQUE INDEX limit_history_open_idx ON @extschema@.limit_history (cluster, account, user_name) WHERE valid_to IS NULL;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.limit_history', '');

-- One row's change of its limit into the history.  The old key's open
-- version is closed at the instant (or at its own start when the instant
-- is earlier: the history is never rewritten backwards; one closed at its
-- own start is removed), the new key's opened there.
CREATE FUNCTION @extschema@_internal._limit_history() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    t timestamptz;
    is_acct boolean := TG_TABLE_NAME = 'accounts';
    ou text; nu text;
    o record;
BEGIN
    -- (an IF, not a CASE: an account's row has no user_name to name)
    IF TG_OP <> 'INSERT' THEN
        IF is_acct THEN ou := ''; ELSE ou := OLD.user_name; END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        IF is_acct THEN nu := ''; ELSE nu := NEW.user_name; END IF;
    END IF;
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster = OLD.cluster) THEN
        -- the cluster deleted (ON DELETE CASCADE): its history goes with it
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        -- a cluster renamed: the history follows by its own key; nothing
        -- else of the limit changed: nothing to record
        IF NEW.cluster <> OLD.cluster
           OR (NEW.account = OLD.account AND nu = ou AND NEW.grp_tres_mins IS NOT DISTINCT FROM OLD.grp_tres_mins) THEN
            RETURN NULL;
        END IF;
    END IF;
    t := @extschema@_internal._tree_change_instant();
    IF TG_OP = 'INSERT' THEN
        -- a row made again as it was (or a restore that wrote the history
        -- first): its open version stands
        SELECT h.ctid, h.valid_from, h.grp_tres_mins IS NOT DISTINCT FROM NEW.grp_tres_mins AS same
          INTO o FROM @extschema@.limit_history h
         WHERE h.cluster = NEW.cluster AND h.account = NEW.account AND h.user_name = nu AND h.valid_to IS NULL;
        IF o.same THEN
            RETURN NULL;
        END IF;
    ELSE
        SELECT h.ctid, h.valid_from INTO o FROM @extschema@.limit_history h
         WHERE h.cluster = OLD.cluster AND h.account = OLD.account AND h.user_name = ou AND h.valid_to IS NULL;
        -- never changed before: its old limit was in force from -infinity
        IF o.ctid IS NULL AND NOT EXISTS (SELECT FROM @extschema@.limit_history h
                                           WHERE h.cluster = OLD.cluster AND h.account = OLD.account
                                             AND h.user_name = ou) THEN
            INSERT INTO @extschema@.limit_history (cluster, account, user_name, grp_tres_mins, valid_from, valid_to)
            VALUES (OLD.cluster, OLD.account, ou, OLD.grp_tres_mins, '-infinity', t);
        END IF;
    END IF;
    IF o.ctid IS NOT NULL THEN
        t := greatest(t, o.valid_from);
        IF o.valid_from = t THEN
            DELETE FROM @extschema@.limit_history h WHERE h.ctid = o.ctid;
        ELSE
            UPDATE @extschema@.limit_history h SET valid_to = t WHERE h.ctid = o.ctid;
        END IF;
    END IF;
    -- the new version: after an UPDATE always, after an INSERT when the key
    -- has a history (a row deleted and made again)
    IF TG_OP = 'UPDATE' OR (TG_OP = 'INSERT' AND EXISTS (SELECT FROM @extschema@.limit_history h
                                                          WHERE h.cluster = NEW.cluster AND h.account = NEW.account
                                                            AND h.user_name = nu)) THEN
        INSERT INTO @extschema@.limit_history (cluster, account, user_name, grp_tres_mins, valid_from)
        VALUES (NEW.cluster, NEW.account, nu, NEW.grp_tres_mins,
                greatest(t, (SELECT max(h.valid_to) FROM @extschema@.limit_history h
                              WHERE h.cluster = NEW.cluster AND h.account = NEW.account AND h.user_name = nu)));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER limit_history AFTER INSERT OR UPDATE OR DELETE ON @extschema@.accounts
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._limit_history();
CREATE TRIGGER limit_history AFTER INSERT OR UPDATE OR DELETE ON @extschema@.account_users
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._limit_history();

-- Every association's GrpTRESMins as of an instant: the version valid at
-- it, and the live limit of the associations that have none (never
-- changed).  Only limits, not NULL: an association without one prints none.
CREATE FUNCTION @extschema@_internal._limits_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, grp_tres_mins text)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.cluster, a.account, ''::text, a.grp_tres_mins
      FROM @extschema@.accounts a
     WHERE a.grp_tres_mins IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.limit_history h
                        WHERE h.cluster OPERATOR(pg_catalog.=) a.cluster
                          AND h.account OPERATOR(pg_catalog.=) a.account
                          AND h.user_name OPERATOR(pg_catalog.=) '')
    UNION ALL
    SELECT u.cluster, u.account, u.user_name, u.grp_tres_mins
      FROM @extschema@.account_users u
     WHERE u.grp_tres_mins IS NOT NULL
       AND NOT EXISTS (SELECT FROM @extschema@.limit_history h
                        WHERE h.cluster OPERATOR(pg_catalog.=) u.cluster
                          AND h.account OPERATOR(pg_catalog.=) u.account
                          AND h.user_name OPERATOR(pg_catalog.=) u.user_name)
    UNION ALL
    SELECT h.cluster, h.account, h.user_name, h.grp_tres_mins
      FROM @extschema@.limit_history h
     WHERE h.grp_tres_mins IS NOT NULL
       AND h.valid_from OPERATOR(pg_catalog.<=) _limits_at.as_of
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) _limits_at.as_of);
END;
COMMENT ON FUNCTION @extschema@_internal._limits_at(timestamptz) IS
'Every association''s GrpTRESMins limit as of an instant (user_name '''' for an account): limit_history''s version valid at it, or the live limit of an association whose limit never changed.';
