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
