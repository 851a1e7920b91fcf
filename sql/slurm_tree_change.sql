-- slurm_tree_change: sshare_at and sprio_at against a real Slurm 22.05
-- around a change of the tree (test/fixtures/slurm/tree_change/,
-- docs/slurm.md#the-tree-changes).  The scenario is loaded as slurm_real
-- loads its scenarios (sql/include/slurm_load.sql), but with the
-- tree slurmdbd recorded first (txn.txt: bio under chem, carol's share 3 in
-- phys), since assoc.txt is the tree after the changes.  Then the two
-- changes of changes.txt are applied as a centre (or the slurmdbd feed)
-- would, each at its instant (fairshare.tree_change_at), and every cell of
-- the three sshare captures is compared with sshare_at at its capture's
-- instant: capture 1 before the changes, 2 after them and before the next
-- pass, 3 after that pass.  Rolled back at the end.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
SET timezone = 'UTC';

\i sql/include/slurm_load.sql

-- The scenario's cluster (sql/include/slurm_load.sql), then its tree.
CREATE FUNCTION pg_temp.load_cluster(scen text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    loaded text := pg_temp.load_settings(scen);
BEGIN
    -- the tree as slurmdbd first recorded it (txn.txt, "Add Clusters" for
    -- root and "Add Associations", each association once: 24.11 writes the
    -- root user's row twice): assoc.txt is the tree after the changes
    INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
    SELECT 'oracle', 'root', NULL, (regexp_match(split_part(line, '|', 5), '(?:^|, )shares=(\d+)'))[1]::integer
      FROM fx WHERE scenario = scen AND file = 'txn' AND split_part(line, '|', 2) = 'Add Clusters';
    INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
    SELECT 'oracle', (regexp_match(info, 'acct=''([^'']*)'''))[1], (regexp_match(info, 'parent_acct=''([^'']*)'''))[1],
           (regexp_match(info, '(?:^|, )shares=(\d+)'))[1]::integer
      FROM (SELECT DISTINCT ON (split_part(line, '|', 4)) n, split_part(line, '|', 5) AS info FROM fx
             WHERE scenario = scen AND file = 'txn' AND split_part(line, '|', 2) = 'Add Associations'
             ORDER BY split_part(line, '|', 4), n) t
     WHERE info ~ 'parent_acct=' ORDER BY n;
    INSERT INTO fairshare.account_users (cluster, account, user_name, shares)
    SELECT 'oracle', (regexp_match(info, 'acct=''([^'']*)'''))[1], (regexp_match(info, 'user=''([^'']*)'''))[1],
           (regexp_match(info, '(?:^|, )shares=(\d+)'))[1]::integer
      FROM (SELECT DISTINCT ON (split_part(line, '|', 4)) n, split_part(line, '|', 5) AS info FROM fx
             WHERE scenario = scen AND file = 'txn' AND split_part(line, '|', 2) = 'Add Associations'
             ORDER BY split_part(line, '|', 4), n) t
     WHERE info !~ 'parent_acct=' ORDER BY n;
    RETURN loaded;
END $$;

-- Each capture's instant.  instants.txt holds whole seconds (truncated),
-- and a change may fall in the same second as a capture (on Slurm 24.11
-- captures 1 and 2 and both changes are within 03:59:13): the capture
-- script ran capture 1, then the changes (changes.txt: each command's
-- epochs before and after it, to the nanosecond), then capture 2, so
-- capture 1 is placed before the first change began and every later
-- capture after the last change ended.
CREATE FUNCTION pg_temp.capture_at(scen text) RETURNS TABLE (capture integer, at timestamptz)
LANGUAGE sql AS $$
    WITH ch AS (
        SELECT min(to_timestamp(split_part(line, '|', 2)::numeric)) AS first_before,
               max(to_timestamp(split_part(line, '|', 3)::numeric)) AS last_after
          FROM fx WHERE scenario = scen AND file = 'changes' AND line !~ '^#'
    )
    SELECT i.capture,
           CASE WHEN i.capture = 1 THEN least(i.at, ch.first_before - interval '1 microsecond')
                ELSE greatest(i.at, ch.last_after) END
      FROM (SELECT split_part(line, '|', 1)::integer AS capture, to_timestamp(split_part(line, '|', 2)::bigint) AS at
              FROM fx WHERE scenario = scen AND file = 'instants' AND line !~ '^#') i, ch
$$;

-- Every cell of sshare_N.txt against sshare_at at capture N's instant.
-- One row per cell: scenario, capture, association, column, Slurm's, ours.
CREATE FUNCTION pg_temp.compare(scen text)
RETURNS TABLE (capture integer, account text, user_name text, col text, slurm text, ours text)
LANGUAGE sql AS $$
    WITH inst AS (
        SELECT c.capture, c.at FROM pg_temp.capture_at(scen) c
    ), lines AS (
        SELECT split_part(fx.file, '_', 2)::integer AS capture, fx.n,
               string_to_array(fx.line, '|') AS v,
               (SELECT string_to_array(h.line, '|') FROM fx h
                 WHERE h.scenario = scen AND h.file = fx.file ORDER BY h.n LIMIT 1) AS header
          FROM fx WHERE fx.scenario = scen AND fx.file ~ '^sshare_\d+$'
    ), cells AS (
        SELECT l.capture, btrim(l.v[1]) AS account, nullif(l.v[2], '') AS user_name, h.col, l.v[h.i] AS slurm
          FROM lines l, unnest(l.header) WITH ORDINALITY h(col, i)
         WHERE l.v IS DISTINCT FROM l.header AND h.col NOT IN ('Account', 'User')
    ), ours AS (
        SELECT i.capture, s.account, s.user_name,
               jsonb_build_object(
                 'RawShares', CASE WHEN s.depth = 0 THEN '' ELSE COALESCE(s.raw_shares::text, 'parent') END,
                 'NormShares', pg_temp.f6(s.norm_shares),
                 'RawUsage', s.raw_usage_int::text,
                 'NormUsage', pg_temp.f6(s.norm_usage),
                 'EffectvUsage', pg_temp.f6(s.effectv_usage),
                 'FairShare', pg_temp.f6(s.fairshare),
                 'LevelFS', pg_temp.f6(s.level_fs),
                 'GrpTRESMins', COALESCE(s.grp_tres_mins, ''),
                 'TRESRunMins', s.tres_run_mins) AS o
          FROM inst i CROSS JOIN LATERAL fairshare.sshare_at(i.at) s
         WHERE s.cluster = 'oracle'
    )
    SELECT c.capture, c.account, c.user_name, c.col, c.slurm, o.o ->> c.col
      FROM cells c
      LEFT JOIN ours o ON o.capture = c.capture AND o.account = c.account
                      AND o.user_name IS NOT DISTINCT FROM c.user_name
     ORDER BY c.capture, c.account, c.user_name NULLS FIRST, c.col;
$$;

-- sprio -l's columns that do not depend on when a job became eligible to
-- accrue age (the jobs wait in a partition that is down, where Slurm counts
-- no age): FAIRSHARE, JOBSIZE (the node and CPU counts of slurm_cluster_size),
-- PARTITION, QOS, NICE, each weighted factor rounded as sprio prints it.
CREATE FUNCTION pg_temp.compare_sprio(scen text)
RETURNS TABLE (capture integer, job_id text, col text, slurm text, ours text)
LANGUAGE sql AS $$
    WITH inst AS (
        SELECT c.capture, c.at FROM pg_temp.capture_at(scen) c
    ), sect AS (
        -- the lines of the "# sprio -l" section: its header, then one per job
        SELECT split_part(fx.file, '_', 2)::integer AS capture, fx.n,
               regexp_split_to_array(btrim(fx.line), '\s+') AS v,
               (SELECT min(e.n) FROM fx e WHERE e.scenario = scen AND e.file = fx.file AND e.n > s.n
                   AND e.line ~ '^#') AS sect_end, s.n AS sect_start
          FROM fx
          JOIN fx s ON s.scenario = fx.scenario AND s.file = fx.file AND s.line = '# sprio -l'
         WHERE fx.scenario = scen AND fx.file ~ '^sprio_\d+$' AND fx.n > s.n
    ), jobs AS (
        SELECT x.capture, x.v,
               (SELECT h.v FROM sect h WHERE h.capture = x.capture AND h.n = x.sect_start + 1) AS header
          FROM sect x WHERE x.n < COALESCE(x.sect_end, x.n + 1) AND x.n > x.sect_start + 1
    ), cells AS (
        -- PARTITION is both the partition's name (2nd) and its factor (10th)
        SELECT j.capture, j.v[1] AS job_id, h.col || CASE WHEN h.i = 2 THEN '_NAME' ELSE '' END AS col, j.v[h.i] AS slurm
          FROM jobs j, unnest(j.header) WITH ORDINALITY h(col, i)
         WHERE h.col IN ('FAIRSHARE', 'JOBSIZE', 'PARTITION', 'QOS', 'NICE') AND h.i <= cardinality(j.v)
    ), ours AS (
        SELECT i.capture, p.job_id,
               jsonb_build_object('FAIRSHARE', p.fairshare::text, 'JOBSIZE', p.job_size::text,
                                  'PARTITION', p.partition_prio::text, 'PARTITION_NAME', p.partition,
                                  'QOS', p.qos_prio::text, 'NICE', p.nice::text) AS o
          FROM inst i CROSS JOIN LATERAL fairshare.sprio_at(i.at) p
         WHERE p.cluster = 'oracle'
    )
    SELECT c.capture, c.job_id, c.col, c.slurm, o.o ->> c.col
      FROM cells c
      LEFT JOIN ours o ON o.capture = c.capture AND o.job_id = c.job_id
     ORDER BY c.capture, c.job_id, c.col;
$$;


-- ===========================================================================
-- tree_change: Fair Tree, no decay (PriorityDecayHalfLife=0),
-- PriorityCalcPeriod=1 (a pass a minute, at :13).  Jobs of every
-- association ended before the 01:30:13 pass; two stay parked.
-- ===========================================================================
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/config.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'config') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/slurm.conf' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'slurm.conf') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/nodes.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'nodes') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/instants.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'instants') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/txn.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'txn') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/changes.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'changes') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/sshare_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'sshare_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/sshare_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'sshare_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/sshare_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'sshare_3') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/sprio_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'sprio_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/sprio_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'sprio_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/tree_change/sprio_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('tree_change', 'sprio_3') > 0 AS read, pg_temp.clear_in();
BEGIN;
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
SELECT pg_temp.load_cluster('tree_change');
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/tree_change/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
-- the tree as first recorded: no version yet (an association that never
-- changed is read from the live table for every instant)
SELECT account, parent_account, shares, valid_from, valid_to FROM account_history
 WHERE cluster = 'oracle' ORDER BY account, valid_from;
-- The changes, each at the instant sacctmgr was started (changes.txt,
-- epoch_before): slurmctld held it by the next capture.  The captures are
-- placed around them (capture_at above).  slurmdbd's own record, mod_time
-- and the transaction's Time, is a whole second, the one capture 1 was
-- taken in.
SELECT split_part(line, '|', 1) AS change, to_timestamp(split_part(line, '|', 2)::numeric) AS at,
       split_part(line, '|', 4) AS command
  FROM fx WHERE scenario = 'tree_change' AND file = 'changes' AND line !~ '^#' ORDER BY n;
-- the captures' instants, and the last pass before each (instants.txt)
SELECT c.capture, c.at, to_timestamp(split_part(f.line, '|', 5)::bigint) AS last_pass
  FROM pg_temp.capture_at('tree_change') c
  JOIN fx f ON f.scenario = 'tree_change' AND f.file = 'instants' AND split_part(f.line, '|', 1) = c.capture::text
 ORDER BY 1;
SELECT set_config('fairshare.tree_change_at',
                  (SELECT to_timestamp(split_part(line, '|', 2)::numeric)::text FROM fx
                    WHERE scenario = 'tree_change' AND file = 'changes' AND line ~ '^move\|'), true) IS NOT NULL AS set;
UPDATE accounts SET parent_account = 'phys' WHERE cluster = 'oracle' AND account = 'bio';
SELECT set_config('fairshare.tree_change_at',
                  (SELECT to_timestamp(split_part(line, '|', 2)::numeric)::text FROM fx
                    WHERE scenario = 'tree_change' AND file = 'changes' AND line ~ '^share\|'), true) IS NOT NULL AS set;
UPDATE account_users SET shares = 1 WHERE cluster = 'oracle' AND account = 'phys' AND user_name = 'carol';
RESET fairshare.tree_change_at;
-- the history: bio's and carol's versions closed at their change, the new
-- ones open (valid_to empty)
SELECT account, parent_account, shares, valid_from, valid_to FROM account_history
 WHERE cluster = 'oracle' AND account = 'bio' ORDER BY valid_from;
SELECT account, user_name, shares, valid_from, valid_to FROM account_user_history
 WHERE cluster = 'oracle' AND user_name = 'carol' ORDER BY valid_from;
-- every cell of the three captures: 3 captures × 10 lines × 9 columns = 270
CREATE TEMP TABLE cmp_tree_change AS SELECT * FROM pg_temp.compare('tree_change');
SELECT capture, count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM cmp_tree_change GROUP BY ROLLUP (capture) ORDER BY capture NULLS LAST;
SELECT * FROM cmp_tree_change WHERE slurm IS DISTINCT FROM ours;
-- chem's RawUsage and NormUsage and carol's shares and FairShare at each
-- capture.  1: bio under chem, chem 190 = alice 90 + bio 100, NormUsage
-- 190 / 515 = 0.368932; carol RawShares 3, NormShares 3 / (1 + 3) = 0.75.
-- 2: RawUsage 90 and NormShares 1 / 3 at once, NormUsage and FairShare
-- still the 01:30:13 pass's.  3: NormUsage 90 / 515 = 0.174757.
SELECT capture, account, user_name, col, slurm, ours FROM cmp_tree_change
 WHERE (account = 'chem' AND user_name IS NULL AND col IN ('RawUsage', 'NormUsage'))
    OR (user_name = 'carol' AND col IN ('RawShares', 'NormShares', 'FairShare'))
 ORDER BY 1, 2, 3 NULLS FIRST, 4;
-- bio's parent at each capture
SELECT i.capture, s.account, s.user_name, s.parent, s.depth
  FROM pg_temp.capture_at('tree_change') i
 CROSS JOIN LATERAL sshare_at(i.at) s
 WHERE s.cluster = 'oracle' AND s.account = 'bio' ORDER BY 1, 3 NULLS FIRST;
-- sprio: the parked jobs' factors; carol's FAIRSHARE 70000 × 0.333333 =
-- 23333 until the 01:31:13 pass (captures 1, 2), 70000 × 0.166667 = 11667
-- after it (capture 3)
SELECT count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM pg_temp.compare_sprio('tree_change');
SELECT * FROM pg_temp.compare_sprio('tree_change') WHERE slurm IS DISTINCT FROM ours;
SELECT capture, job_id, slurm, ours FROM pg_temp.compare_sprio('tree_change') WHERE col = 'FAIRSHARE' ORDER BY 1, 2;
ROLLBACK;
