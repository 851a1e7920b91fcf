-- slurm_real: sshare_at against what a real slurmctld printed.
--
-- test/fixtures/slurm/<scenario>/ holds the captures of a real Slurm 22.05.8
-- cluster (test/slurm/capture_<scenario>.sh, README there): its
-- configuration (config.txt, slurm.conf), nodes (nodes.txt), association
-- tree (assoc.txt), jobs (sacct.txt) and, at each capture instant N
-- (instants.txt: when sshare ran, the last decay pass before it),
-- `sshare -a -l -P` (sshare_N.txt).  Each scenario is loaded as a centre
-- would load it: the cluster's settings from its configuration, the phase of
-- slurmctld's passes from the last pass of the first capture, the node and
-- CPU counts from `scontrol show node` (slurm_cluster_size), the jobs with
-- import_sacct.  Then every column of every line of every sshare capture is
-- compared with sshare_at at that instant, formatted as sshare prints it
-- (%f for the factors, RawUsage truncated, inf, empty cells).  The mismatches
-- are listed: none expected.  Each scenario runs in a transaction rolled back
-- at its end (the fixtures' cluster is "oracle", a name other suites use).
SET search_path = fairshare, public;
SET extra_float_digits = 0;
SET timezone = 'UTC';

\i sql/include/slurm_load.sql

-- The scenario's cluster (sql/include/slurm_load.sql), then its tree.
CREATE FUNCTION pg_temp.load_cluster(scen text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    loaded text := pg_temp.load_settings(scen);
BEGIN
    -- sacctmgr show assoc tree -P: the accounts (no user), then the users
    INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
    SELECT 'oracle', btrim(split_part(line, '|', 2)), nullif(split_part(line, '|', 6), ''),
           nullif(split_part(line, '|', 5), 'parent')::integer
      FROM fx WHERE scenario = scen AND file = 'assoc' AND n > (SELECT min(n) FROM fx WHERE scenario = scen AND file = 'assoc')
       AND split_part(line, '|', 3) = ''
     ORDER BY length(split_part(line, '|', 2)) - length(ltrim(split_part(line, '|', 2)));
    INSERT INTO fairshare.account_users (cluster, account, user_name, shares)
    SELECT 'oracle', btrim(split_part(line, '|', 2)), split_part(line, '|', 3),
           nullif(split_part(line, '|', 5), 'parent')::integer
      FROM fx WHERE scenario = scen AND file = 'assoc' AND n > (SELECT min(n) FROM fx WHERE scenario = scen AND file = 'assoc')
       AND split_part(line, '|', 3) <> '';
    RETURN loaded;
END $$;

-- A capture's instant: the second it was taken (instants.txt), but
-- before a slurmctld start in that same second that slurmctld had not made
-- yet when the capture was taken (its state file then still recorded an
-- earlier last pass): whole seconds cannot order the two, the state file
-- can.  Without starts, the second itself.
CREATE FUNCTION pg_temp.capture_at(epoch bigint, last_pass text) RETURNS timestamptz LANGUAGE sql STABLE AS $$
    SELECT LEAST(to_timestamp(epoch),
                 (SELECT min(s.started_at) - interval '1 microsecond' FROM fairshare.slurmctld_starts s
                   WHERE s.cluster = 'oracle' AND s.started_at > to_timestamp(nullif(last_pass, '')::bigint)))
$$;

-- Every cell of sshare_N.txt against sshare_at at capture N's instant.
-- One row per cell: scenario, capture, association, column, Slurm's, ours.
CREATE FUNCTION pg_temp.compare(scen text, lab text DEFAULT NULL)
RETURNS TABLE (capture integer, account text, user_name text, col text, slurm text, ours text)
LANGUAGE sql AS $$
    WITH inst AS (
        SELECT split_part(line, '|', 1)::integer AS capture, pg_temp.capture_at(split_part(line, '|', 2)::bigint, split_part(line, '|', 5))
                 AS at
          FROM fx WHERE scenario = scen AND file = 'instants' AND line !~ '^#'
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
          -- lab: the same under a scenario of the policy lab instead
          FROM inst i CROSS JOIN LATERAL (SELECT * FROM fairshare.sshare_at(i.at) WHERE lab IS NULL
                                          UNION ALL
                                          SELECT * FROM fairshare.sshare_at(i.at, lab) WHERE lab IS NOT NULL) s
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
-- A job's row of sprio_at as the columns compared below.
CREATE FUNCTION pg_temp.sprio_cells(capture integer, p fairshare.sprio) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('capture', capture, 'job_id', p.job_id, 'o',
                              jsonb_build_object('FAIRSHARE', p.fairshare::text, 'JOBSIZE', p.job_size::text,
                                                 'PARTITION', p.partition_prio::text, 'PARTITION_NAME', p.partition,
                                                 'QOS', p.qos_prio::text, 'NICE', p.nice::text))
$$;

-- (PL/pgSQL, sprio_at read instant by instant, then compared: Citus plans
-- no query of a SQL function that reads a distributed table with its
-- parameters, nor a report called laterally over the rows of a TEMP table,
-- docs/citus.md#what-citus-does-not-do-and-what-is-done-instead)
CREATE FUNCTION pg_temp.compare_sprio(scen text, lab text DEFAULT NULL)
RETURNS TABLE (capture integer, job_id text, col text, slurm text, ours text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    i record;
    ours jsonb := '[]';
BEGIN
    FOR i IN SELECT split_part(line, '|', 1)::integer AS capture,
                    pg_temp.capture_at(split_part(line, '|', 2)::bigint, split_part(line, '|', 5)) AS at
               FROM fx WHERE scenario = scen AND file = 'instants' AND line !~ '^#'
    LOOP
        IF lab IS NULL THEN
            ours := ours || COALESCE((SELECT jsonb_agg(pg_temp.sprio_cells(i.capture, p))
                                        FROM fairshare.sprio_at(i.at) p WHERE p.cluster = 'oracle'), '[]');
        ELSE
            ours := ours || COALESCE((SELECT jsonb_agg(pg_temp.sprio_cells(i.capture, p))
                                        FROM fairshare.sprio_at(i.at, lab) p WHERE p.cluster = 'oracle'), '[]');
        END IF;
    END LOOP;
    RETURN QUERY
    WITH sect AS (
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
    ), o AS (
        SELECT (e ->> 'capture')::integer AS capture, e ->> 'job_id' AS job_id, e -> 'o' AS o
          FROM jsonb_array_elements(ours) e
    )
    SELECT c.capture, c.job_id, c.col, c.slurm, o.o ->> c.col
      FROM cells c
      LEFT JOIN o ON o.capture = c.capture AND o.job_id = c.job_id
     ORDER BY c.capture, c.job_id, c.col;
END
$$;

-- slurm_cluster_size: the counts the job-size factor divides by, every node
-- once.  slurm.conf lines: DEFAULT values for the lines after them, host
-- lists, CPUs= or else the product of the node's shape: n[01-16,20] is 17
-- nodes of 2 × 24 × 1 = 48 CPUs (816), gpu[1-2],big 3 of 2 × 16 × 2 = 64
-- (192), x1 one of CPUs=8; partition lines are not nodes: 21 nodes, 1016 CPUs
SELECT * FROM slurm_cluster_size(E'NodeName=DEFAULT Sockets=2 ThreadsPerCore=1 RealMemory=192000\n'
                                  'NodeName=n[01-16,20] CoresPerSocket=24 State=UNKNOWN  # rack 1\n'
                                  'NodeName=gpu[1-2],big CoresPerSocket=16 ThreadsPerCore=2\n'
                                  'NodeName=x1 CPUs=8\n'
                                  'PartitionName=all Nodes=ALL MaxTime=INFINITE');
-- scontrol show node: a node's CPUs are CPUEfctv (the CPUs left after
-- CoreSpecCount) where it differs from CPUTot: 62 + 64
SELECT * FROM slurm_cluster_size(E'NodeName=a1 Arch=x86_64 CoresPerSocket=32\n   CPUAlloc=0 CPUEfctv=62 CPUTot=64 CPULoad=0.00\n'
                                  '   OS=Linux 6.1.0 #1 SMP PREEMPT_DYNAMIC\n\n'
                                  'NodeName=a2 Arch=x86_64 CoresPerSocket=32\n   CPUAlloc=0 CPUEfctv=64 CPUTot=64\n');
SELECT err($$SELECT slurm_cluster_size('PartitionName=p Nodes=ALL')$$);     -- 22023: no node
SELECT err($$SELECT slurm_cluster_size('NodeName=n[a-c] CPUs=4')$$);        -- 22P02: not a range of numbers
-- a range that runs backwards: refused, naming it (counted as 1 - 10 + 1 = -8
-- it took 8 nodes away from the cluster)
SELECT err($$SELECT slurm_cluster_size('NodeName=n[10-1] CPUs=4')$$);       -- 22023: runs backwards
SELECT err($$SELECT slurm_cluster_size(E'NodeName=a[1-4] CPUs=4\nNodeName=b[3-3,9-2] CPUs=8')$$);  -- 22023: in the second item

-- ===========================================================================
-- classic: PriorityFlags=NO_FAIR_TREE, no decay; four jobs ended, one capture
-- after a pass.  sshare prints the root's FairShare 0.500000 (2^-(1/1)).
-- ===========================================================================
\copy fx_in (line) FROM 'test/fixtures/slurm/classic/config.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('classic', 'config') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/classic/slurm.conf' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('classic', 'slurm.conf') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/classic/nodes.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('classic', 'nodes') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/classic/assoc.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('classic', 'assoc') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/classic/instants.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('classic', 'instants') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/classic/sshare_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('classic', 'sshare_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/classic/sprio_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('classic', 'sprio_1') > 0 AS read, pg_temp.clear_in();

BEGIN;
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
SELECT pg_temp.load_cluster('classic');
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/classic/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
-- 4 jobs that ran (their .batch steps folded) and 3 left pending
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
-- every cell compared, and the ones that differ
CREATE TEMP TABLE cmp_classic AS SELECT * FROM pg_temp.compare('classic');
SELECT count(*) AS cells, count(DISTINCT (capture, account, user_name)) AS lines,
       count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM cmp_classic;
SELECT * FROM cmp_classic WHERE slurm IS DISTINCT FROM ours;
-- the root's line, as sshare printed it
SELECT col, slurm, ours FROM cmp_classic WHERE account = 'root' AND user_name IS NULL;
-- sprio: the three pending jobs' factors
SELECT count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM pg_temp.compare_sprio('classic');
SELECT * FROM pg_temp.compare_sprio('classic') WHERE slurm IS DISTINCT FROM ours;
-- JOBSIZE: (nodes/1 + CPUs/64)/2 × 5000, the counts of the one node n1
-- (partitions std, big, low and parked share it: summed over them, 4 nodes
-- and 256 CPUs)
SELECT job_id, col, slurm, ours FROM pg_temp.compare_sprio('classic') WHERE col = 'JOBSIZE';
-- The policy lab (docs/history.md#the-policy-lab): the same cluster run by
-- Fair Tree (recorded from 2000 on, before every capture), and a scenario
-- of classic over it: the scenario's sshare and sprio equal the real
-- classic capture cell for cell, while the live cluster stays Fair Tree
-- (whose FairShare differs from classic's).
SET LOCAL fairshare.tree_change_at = '2000-01-01 00:00+00';
UPDATE clusters SET fairshare_algorithm = 'fair_tree' WHERE cluster = 'oracle';
INSERT INTO scenarios (scenario) VALUES ('classic');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings)
VALUES ('classic', 'oracle', 'clusters', '{"fairshare_algorithm": "classic"}');
SELECT count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM pg_temp.compare('classic', 'classic');
SELECT count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM pg_temp.compare_sprio('classic', 'classic');
SELECT count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) > 0 AS live_fair_tree_differs
  FROM pg_temp.compare('classic') WHERE col = 'FairShare';
ROLLBACK;

-- ===========================================================================
-- decay: Fair Tree, PriorityDecayHalfLife=10 minutes (f = 1 - 0.693/600 =
-- 0.998845), PriorityCalcPeriod=1, passes at :12.  alice's job (std, billing
-- 4/s) runs 25 s between two passes and is charged once, at its end:
-- 4 × 25 × f^25 = 97.15, then × f^60 at each pass (90 at capture 1); bob's
-- (big, 18.225/s) and carol's (std, 2/s) run across 2 and 5 passes; bob's
-- second job (low, 6/s) starts after one pass and ends before the next.
-- Capture 3 comes 5 s after carol's job ended, between passes: her RawUsage
-- has her end charge, the tree columns are those of the 10:27:12 pass;
-- capture 4 is one pass later, decay alone.
-- ===========================================================================
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/config.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'config') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/slurm.conf' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'slurm.conf') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/nodes.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'nodes') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/assoc.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'assoc') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/instants.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'instants') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/run.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'run') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sshare_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sshare_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sshare_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sshare_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sshare_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sshare_3') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sshare_4.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sshare_4') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sprio_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sprio_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sprio_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sprio_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sprio_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sprio_3') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/decay/sprio_4.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('decay', 'sprio_4') > 0 AS read, pg_temp.clear_in();

BEGIN;
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
SELECT pg_temp.load_cluster('decay');
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/decay/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
CREATE TEMP TABLE cmp_decay AS SELECT * FROM pg_temp.compare('decay');
SELECT count(*) AS cells, count(DISTINCT (capture, account, user_name)) AS lines,
       count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM cmp_decay;
SELECT * FROM cmp_decay WHERE slurm IS DISTINCT FROM ours;
-- RawUsage and NormUsage of the users at each capture: capture 3, between
-- passes, carol's RawUsage (550) is 19.4 % of the root's (2833) while her
-- NormUsage is the 10:27:12 pass's, 0.174248
SELECT capture, account, user_name, col, slurm, ours FROM cmp_decay
 WHERE col IN ('RawUsage', 'NormUsage') AND user_name IN ('alice', 'bob', 'carol') ORDER BY 1, 2, 3, 4;
-- TRESRunMins of the running jobs (capture 1: bob's two, carol's)
SELECT capture, account, user_name, slurm, ours FROM cmp_decay
 WHERE col = 'TRESRunMins' AND slurm !~ '^cpu=0,' ORDER BY 1, 2, 3 NULLS FIRST;
SELECT count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM pg_temp.compare_sprio('decay');
SELECT * FROM pg_temp.compare_sprio('decay') WHERE slurm IS DISTINCT FROM ours;
ROLLBACK;

-- ===========================================================================
-- reset_now: no decay, PriorityUsageResetPeriod=NOW set by `scontrol
-- reconfigure` at 10:29:36 while carol's job (big, 4 CPUs, 2G: billing
-- 18.225/s) ran from 10:28:36 to 10:31:56; passes at :30.  slurmctld reset
-- usage at its next pass, 10:30:30 (priority_last_decay_ran), and charged
-- carol's job in that pass for [10:29:30, 10:30:30]: 60 × 18.225 = 1093.5
-- (capture 3).  Captures 1 and 2 are before the reset; alice's job ended
-- before it and counts 0 after it; capture 4: carol 1093.5 + 1093.5 (10:31:30)
-- + 26 × 18.225 (her end) = 2660.85, bob's job after the reset 20 × 2 = 40.
-- ===========================================================================
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/config.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'config') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/slurm.conf' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'slurm.conf') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/nodes.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'nodes') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/assoc.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'assoc') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/instants.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'instants') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sshare_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sshare_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sshare_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sshare_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sshare_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sshare_3') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sshare_4.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sshare_4') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sprio_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sprio_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sprio_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sprio_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sprio_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sprio_3') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/sprio_4.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'sprio_4') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_now/slurmctld.log' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_now', 'log') > 0 AS read, pg_temp.clear_in();

-- slurmctld's restarts, read from its log (DebugFlags=Priority) as an
-- administrator would fill fairshare.slurmctld_starts: a slurmctld that
-- starts with a last pass to recover logs "_read_last_decay_ran: PRIO: Last
-- ran decay on jobs at X" and, at once, its first pass "_decay_thread:
-- PRIO: Decay factor over D seconds": that pass, the start, is at X + D,
-- in slurmctld's own whole seconds.  A first start (nothing to recover:
-- "No last decay ... to recover") is not a restart: the phase before any
-- restart is priority_last_decay.
-- (PL/pgSQL, each start read then written: Citus plans no query of a SQL
-- function that writes a reference table with its parameters)
CREATE FUNCTION pg_temp.load_starts(scen text) RETURNS TABLE (started_at timestamptz, note text) LANGUAGE plpgsql AS $$
DECLARE
    s record;
BEGIN
    FOR s IN
    SELECT to_timestamp(r.last_ran + d.delta) AS at,
           format('slurmctld.log lines %s and %s: last pass %s + %s s', r.n - f.n0, d.n - f.n0, r.last_ran, d.delta) AS note
      FROM (SELECT min(fx.n) - 1 AS n0 FROM fx WHERE fx.scenario = scen AND fx.file = 'log') f,
           (SELECT fx.n, (regexp_match(fx.line, 'Last ran decay on jobs at (\d+)'))[1]::bigint AS last_ran
              FROM fx WHERE fx.scenario = scen AND fx.file = 'log'
               AND fx.line ~ '_read_last_decay_ran: .*Last ran decay on jobs at \d+') r
     CROSS JOIN LATERAL (
           SELECT fx.n, (regexp_match(fx.line, 'Decay factor over (\d+) seconds'))[1]::bigint AS delta
             FROM fx WHERE fx.scenario = scen AND fx.file = 'log' AND fx.n > r.n
              AND fx.line ~ '_decay_thread: .*Decay factor over \d+ seconds'
            ORDER BY fx.n LIMIT 1) d
    LOOP
        INSERT INTO fairshare.slurmctld_starts (cluster, started_at, note) VALUES ('oracle', s.at, s.note);
        started_at := s.at;
        note := s.note;
        RETURN NEXT;
    END LOOP;
END
$$;

BEGIN;
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
SELECT pg_temp.load_cluster('reset_now');
-- Slurm 22.05: none (its reconfigure does not restart slurmctld).  Slurm
-- 24.11: the reconfigure at 18:11:54, 1795803108 (18:11:48) + 6 s.  The
-- 24.11 run, worked (no decay: f = 1; carol's job 2 billed 18.225/s, passes
-- at :48 until the restart, then at :54):
--   capture 1, 18:11:54 before the restart: carol 1038 (her charges to the
--     18:11:48 pass), alice 80 (job 1, ended);
--   the restart at 18:11:54 is a pass: NOW resets every usage to 0, then
--     charges job 2 the 6 s since 18:11:48: 6 × 18.225 = 109.35, RawUsage
--     109 at capture 2 (18:11:59), alice 0, and the tree columns of this
--     pass (carol's NormUsage 1.000000, alice's FairShare 1.000000: her
--     pending job 3's FAIRSHARE 1.0 × 70000 = 70000);
--   the pass of 18:12:54 charges the 60 s since 18:11:54: 109.35 + 60 ×
--     18.225 = 109.35 + 1093.5 = 1202.85, RawUsage 1202 at capture 3
--     (18:13:01), where one phase of :48 gave 1093 (the reset at 18:12:48,
--     charging only its 60 s);
--   capture 4 (18:14:55, every job ended): the 18:13:54 pass + 1093.5 =
--     2296.35, her end at 18:14:11 + 17 × 18.225 = 309.825: 2606.175, 2606
--     (one phase of :48 gives the same: 1093.5 × 2 + 23 × 18.225).
SELECT * FROM pg_temp.load_starts('reset_now');
SELECT usage_reset_period, usage_last_reset FROM clusters WHERE cluster = 'oracle';
-- each capture's last pass as slurmctld's state file recorded it, and as
-- fairshare computes it (the starts among the passes): the same.  Capture 1
-- was taken in the second of the restart, before it (its state file: last
-- pass 18:11:48), so it is compared just before 18:11:54 (capture_at)
SELECT i.capture, to_timestamp(i.last_pass) AS slurm, pg_temp.capture_at(i.at, i.last_pass::text) AS at,
       slurm_last_pass(pg_temp.capture_at(i.at, i.last_pass::text), c.priority_calc_period, c.priority_last_decay,
                       (SELECT array_agg(s.started_at) FROM slurmctld_starts s WHERE s.cluster = c.cluster)) AS ours
  FROM clusters c,
       (SELECT split_part(line, '|', 1)::integer AS capture, split_part(line, '|', 2)::bigint AS at,
               split_part(line, '|', 5)::bigint AS last_pass
          FROM fx WHERE scenario = 'reset_now' AND file = 'instants' AND line !~ '^#') i
 WHERE c.cluster = 'oracle' ORDER BY 1;
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/reset_now/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
CREATE TEMP TABLE cmp_reset_now AS SELECT * FROM pg_temp.compare('reset_now');
SELECT count(*) AS cells, count(DISTINCT (capture, account, user_name)) AS lines,
       count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM cmp_reset_now;
SELECT * FROM cmp_reset_now WHERE slurm IS DISTINCT FROM ours;
-- the users' RawUsage at each capture
SELECT capture, account, user_name, slurm, ours FROM cmp_reset_now
 WHERE col = 'RawUsage' AND user_name IN ('alice', 'bob', 'carol') ORDER BY 1, 2, 3;
-- sprio: the parked jobs' FAIRSHARE follows the reset
SELECT count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM pg_temp.compare_sprio('reset_now');
SELECT * FROM pg_temp.compare_sprio('reset_now') WHERE slurm IS DISTINCT FROM ours;
ROLLBACK;

-- ===========================================================================
-- reset_daily: PriorityDecayHalfLife=10 minutes, PriorityCalcPeriod=1,
-- PriorityUsageResetPeriod=DAILY, slurmctld in a time zone (POSIX
-- FSR+10:37, UTC-10:37) whose midnight is 10:37:00 UTC; passes at :45.
-- slurmctld zeroes usage at its first pass from midnight, 10:37:45, and
-- charges carol's running job in it for [10:36:45, 10:37:45].  Capture 2
-- (10:37:02) is after midnight but before that pass: nothing reset yet.
-- Capture 4 (10:38:12) is between passes after bob's job ended at 10:38:08:
-- his RawUsage (39) and his account's include his end charge, while their
-- NormUsage, EffectvUsage, LevelFS and FairShare are still those of the
-- 10:37:45 pass (0, 0, inf).  Captures 1 and 2 are decay alone: carol's
-- job ran from 10:32:51 across four passes.
-- ===========================================================================
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/config.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'config') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/slurm.conf' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'slurm.conf') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/nodes.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'nodes') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/assoc.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'assoc') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/instants.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'instants') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/run.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'run') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sshare_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sshare_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sshare_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sshare_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sshare_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sshare_3') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sshare_4.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sshare_4') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sshare_5.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sshare_5') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sprio_1.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sprio_1') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sprio_2.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sprio_2') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sprio_3.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sprio_3') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sprio_4.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sprio_4') > 0 AS read, pg_temp.clear_in();
\copy fx_in (line) FROM 'test/fixtures/slurm/reset_daily/sprio_5.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT pg_temp.take('reset_daily', 'sprio_5') > 0 AS read, pg_temp.clear_in();

BEGIN;
DELETE FROM jobs WHERE cluster = 'oracle';
DELETE FROM clusters WHERE cluster = 'oracle';
SELECT pg_temp.load_cluster('reset_daily');
-- the reset instants: before midnight the previous day's; from 10:11:16 on, that pass
SELECT i.capture, fairshare_internal._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone, c.decay_mode,
                                  c.priority_calc_period, c.priority_last_decay, i.at) AS reset_at
  FROM clusters c,
       (SELECT split_part(line, '|', 1)::integer AS capture, to_timestamp(split_part(line, '|', 2)::bigint) AS at
          FROM fx WHERE scenario = 'reset_daily' AND file = 'instants' AND line !~ '^#') i
 WHERE c.cluster = 'oracle' ORDER BY 1;
SELECT import_stage();
\copy import_staging (line) FROM 'test/fixtures/slurm/reset_daily/sacct.txt' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e')
SELECT lines_read, imported, folded, rejected FROM import_sacct('oracle', 'UTC');
CREATE TEMP TABLE cmp_reset_daily AS SELECT * FROM pg_temp.compare('reset_daily');
SELECT count(*) AS cells, count(DISTINCT (capture, account, user_name)) AS lines,
       count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM cmp_reset_daily;
SELECT * FROM cmp_reset_daily WHERE slurm IS DISTINCT FROM ours;
-- capture 4, between passes: chem's and bob's lines
SELECT account, user_name, col, slurm, ours FROM cmp_reset_daily
 WHERE capture = 4 AND account = 'chem' AND user_name IS DISTINCT FROM 'alice' ORDER BY 2 NULLS FIRST, 3;
SELECT count(*) AS cells, count(*) FILTER (WHERE slurm IS DISTINCT FROM ours) AS differ
  FROM pg_temp.compare_sprio('reset_daily');
SELECT * FROM pg_temp.compare_sprio('reset_daily') WHERE slurm IS DISTINCT FROM ours;
ROLLBACK;
