-- sprio_cache: the fair-share factors kept with the usage checkpoints
-- (issue 21; extension/sprio_cache.sql, docs/priority.md#cached-fair-share-factors).
-- sprio_at reads them instead of computing sshare's tree while they are
-- what sshare_at would compute; the results must be the same to the bit.
-- Everything runs in one transaction, rolled back at the end; the clusters
-- of the other suites are set aside in it (every fair_tree and classic
-- cluster needs its factors for sprio_at to read them).
SET search_path = fairshare, public;
SET extra_float_digits = 3;
SET timezone = 'UTC';
BEGIN;
DELETE FROM clusters;

-- Cluster sc: Slurm's passes every 5 minutes from 00:00, half-life 1 day.
--   root ── a (2) ── u1 (1), u2 (1)
--        └─ b (1) ── u3 (1)
-- The checkpoint is at T0 = 12:02; slurmctld's last pass then was 12:00 and
-- the next is 12:05: from 12:02 to 12:04:59.999999 the tree usage is the
-- 12:00 pass's, so the cached factors hold; from 12:05 on they do not.
INSERT INTO clusters (cluster, decay_mode, decay_half_life, priority_calc_period, priority_last_decay,
                      weight_fairshare, weight_age, weight_partition, priority_max_age, total_nodes, total_cpus)
VALUES ('sc', 'slurm_passes', '1 day', '5 minutes', '2026-06-01 00:00+00', 100000, 1000, 1000, '1 day', 2, 64);
INSERT INTO partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('sc', 'p', 1, 2, 32, 65536);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('sc', 'root', NULL, 1), ('sc', 'a', 'root', 2), ('sc', 'b', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES
  ('sc', 'a', 'u1', 1), ('sc', 'a', 'u2', 1), ('sc', 'b', 'u3', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, nodes) VALUES
  -- usage: ended before T0, and one running from 11:00 to 12:30 (charged
  -- at each pass while it runs)
  ('sc', '1', 'u1', 'a', 'p', 'COMPLETED', '2026-06-01 08:00+00', '2026-06-01 08:00+00',
         '2026-06-01 08:00+00', '2026-06-01 09:00+00', 8, 1),
  ('sc', '2', 'u2', 'a', 'p', 'COMPLETED', '2026-06-01 09:00+00', '2026-06-01 09:00+00',
         '2026-06-01 09:00+00', '2026-06-01 09:20+00', 4, 1),
  ('sc', '3', 'u3', 'b', 'p', 'COMPLETED', '2026-06-01 10:00+00', '2026-06-01 10:00+00',
         '2026-06-01 10:00+00', '2026-06-01 10:30+00', 16, 1),
  ('sc', '4', 'u2', 'a', 'p', 'COMPLETED', '2026-06-01 11:00+00', '2026-06-01 11:00+00',
         '2026-06-01 11:00+00', '2026-06-01 12:30+00', 2, 1),
  -- pending from 11:50 to past 12:30
  ('sc', '11', 'u1', 'a', 'p', 'PENDING', '2026-06-01 11:50+00', '2026-06-01 11:50+00', NULL, NULL, 1, 1),
  ('sc', '12', 'u2', 'a', 'p', 'PENDING', '2026-06-01 11:51+00', '2026-06-01 11:51+00', NULL, NULL, 2, 1),
  ('sc', '13', 'u3', 'b', 'p', 'PENDING', '2026-06-01 11:52+00', '2026-06-01 11:52+00', NULL, NULL, 4, 1);

CREATE TEMP TABLE instants (t) AS
SELECT unnest(ARRAY['2026-06-01 12:02:00+00', '2026-06-01 12:03:30+00', '2026-06-01 12:04:59.999999+00',
                    '2026-06-01 12:05:00+00', '2026-06-01 12:20:00+00']::timestamptz[]);

CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
-- one set of factors, for the three user associations, holding until 12:05
SELECT cluster, as_of, valid_before FROM usage_checkpoint_factors;
SELECT account, user_name, fairshare FROM usage_checkpoint_factor_rows ORDER BY account, user_name;

-- sprio_at with the cached factors, then with them deleted (sshare_at from
-- the same checkpoint): the same rows, every column, to the bit
CREATE TEMP TABLE cached AS SELECT i.t, s.* FROM instants i, sprio_at(i.t) s;
DELETE FROM usage_checkpoint_factors;
CREATE TEMP TABLE computed AS SELECT i.t, s.* FROM instants i, sprio_at(i.t) s;
SELECT (SELECT count(*) FROM cached) AS rows,
       (SELECT count(*) FROM (TABLE cached EXCEPT ALL TABLE computed) x) AS cached_only,
       (SELECT count(*) FROM (TABLE computed EXCEPT ALL TABLE cached) x) AS computed_only;
SELECT t, job_id, priority, fairshare, fairshare_factor FROM computed ORDER BY t, job_id;

-- The factors are read while they hold, and only then: with u1's made up
-- (0.5), sprio_at shows 0.5 × 100000 = 50000 for job 11 until 12:05, and
-- the computed factor from 12:05 on.
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
SELECT i.t, s.fairshare, s.fairshare_factor = c.fairshare_factor AS as_computed
  FROM instants i, sprio_at(i.t) s, computed c
 WHERE s.job_id = '11' AND c.job_id = '11' AND c.t = i.t ORDER BY i.t;

-- A change to the tree deletes the cluster's factors ...
UPDATE account_users SET shares = 3 WHERE user_name = 'u3';
SELECT count(*) AS factor_sets FROM usage_checkpoint_factors;
SELECT count(*) AS factor_rows FROM usage_checkpoint_factor_rows;
UPDATE account_users SET shares = 1 WHERE user_name = 'u3';
-- ... as does one to the cluster (its algorithm, its dampening)
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE clusters SET fairshare_dampening = 1 WHERE cluster = 'sc';
SELECT count(*) AS factor_sets FROM usage_checkpoint_factors;

-- An invalidated checkpoint's factors are not read: a job started before
-- T0 comes in; the made-up factor stays unread
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, nodes)
VALUES ('sc', '5', 'u3', 'b', 'p', 'COMPLETED', '2026-06-01 07:00+00', '2026-06-01 07:00+00',
        '2026-06-01 07:00+00', '2026-06-01 07:10+00', 1, 1);
SELECT invalidated_by IS NOT NULL AS invalidated FROM usage_checkpoints WHERE as_of = '2026-06-01 12:02+00';
SELECT job_id, fairshare_factor <> 0.5 AS computed FROM sprio_at('2026-06-01 12:03+00') ORDER BY job_id;
DELETE FROM jobs WHERE job_id = '5';

-- A cluster without factors (here one without a checkpoint) makes sprio_at
-- compute every cluster's: the made-up factor is not read either
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
INSERT INTO clusters (cluster) VALUES ('other');
SELECT fairshare_factor <> 0.5 AS computed FROM sprio_at('2026-06-01 12:03+00') WHERE job_id = '11';
DELETE FROM clusters WHERE cluster = 'other';
SELECT fairshare_factor = 0.5 AS cached FROM sprio_at('2026-06-01 12:03+00') WHERE job_id = '11';

-- decay_mode 'exact': the factors hold at the checkpoint's instant only
UPDATE clusters SET decay_mode = 'exact' WHERE cluster = 'sc';
CALL checkpoint_usage('sc', '2026-06-01 12:02+00');
SELECT as_of, valid_before FROM usage_checkpoint_factors;
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.5 WHERE user_name = 'u1';
SELECT i.t, s.fairshare_factor = 0.5 AS cached
  FROM instants i, sprio_at(i.t) s WHERE s.job_id = '11' ORDER BY i.t;

-- The explanation is still sprio_at's, computed only when a query reads it:
-- the plan of sprio -l's columns builds no text
SELECT explanation FROM sprio_at('2026-06-01 12:02+00') WHERE job_id = '13';
CREATE FUNCTION pg_temp.plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; p text := '';
BEGIN
    FOR r IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP p := p || r || E'\n'; END LOOP;
    RETURN p;
END $$;
SELECT strpos(pg_temp.plan($$SELECT job_id, priority, fairshare FROM sprio_at('2026-06-01 12:02+00')$$),
              'concat_ws') = 0 AS no_text_built,
       strpos(pg_temp.plan($$SELECT job_id, explanation FROM sprio_at('2026-06-01 12:02+00')$$),
              'concat_ws') > 0 AS text_built_when_read;

-- The cached factors are computed from the tree directly, not through
-- sshare_at (whose TRESRunMins read every running job): they must be
-- sshare_at's FairShare to the bit, for Fair Tree with a Fairshare=parent
-- account and for classic fair share with a dampening, two clusters
-- checkpointed at once (cluster NULL), with a job still running at T0.
INSERT INTO clusters (cluster, fairshare_algorithm, fairshare_dampening, decay_half_life)
VALUES ('ft', 'fair_tree', 1, '7 days'), ('cl', 'classic', 3, '7 days');
INSERT INTO partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('ft', 'p', 1, 2, 32, 65536), ('cl', 'p', 1, 2, 32, 65536);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('ft', 'root', NULL, 1), ('ft', 'x', 'root', 3), ('ft', 'y', 'root', 1), ('ft', 'yp', 'y', NULL),
  ('cl', 'root', NULL, 1), ('cl', 'x', 'root', 3), ('cl', 'y', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES
  ('ft', 'x', 'v1', 1), ('ft', 'x', 'v2', 2), ('ft', 'yp', 'v3', 1), ('ft', 'yp', 'v4', 1), ('ft', 'y', 'v5', 1),
  ('cl', 'x', 'v1', 1), ('cl', 'x', 'v2', 2), ('cl', 'y', 'v3', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, nodes)
SELECT c, g::text, u, a, 'p', CASE WHEN g = 9 THEN 'RUNNING' ELSE 'COMPLETED' END,
       '2026-06-01 00:00+00'::timestamptz + g * interval '1 hour', '2026-06-01 00:00+00'::timestamptz + g * interval '1 hour',
       '2026-06-01 00:00+00'::timestamptz + g * interval '1 hour',
       CASE WHEN g = 9 THEN NULL ELSE '2026-06-01 00:30+00'::timestamptz + g * interval '1 hour' + g * interval '7 minutes' END,
       g, 1
  FROM (VALUES ('ft'), ('cl')) k(c),
       LATERAL (VALUES (1, 'v1', 'x'), (2, 'v2', 'x'), (3, 'v3', CASE WHEN c = 'ft' THEN 'yp' ELSE 'y' END),
                       (4, 'v4', 'yp'), (5, 'v5', 'y'), (9, 'v1', 'x')) j(g, u, a)
 WHERE c = 'ft' OR g IN (1, 2, 3, 9);
CALL checkpoint_usage(NULL, '2026-06-01 12:00+00');
SELECT f.cluster, count(*) AS users,
       count(*) FILTER (WHERE f.fairshare IS DISTINCT FROM s.fairshare) AS differ,
       count(DISTINCT f.fairshare) AS distinct_factors
  FROM usage_checkpoint_factor_rows f
  JOIN sshare_at('2026-06-01 12:00+00') s USING (cluster, account, user_name)
 WHERE f.cluster IN ('ft', 'cl') AND f.as_of = '2026-06-01 12:00+00'
 GROUP BY f.cluster ORDER BY f.cluster;
SELECT count(*) FROM sprio_at(NULL);
ROLLBACK;
