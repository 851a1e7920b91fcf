-- decay_law: the decay law (mode, half-life, step) as of an instant.
-- slurmctld keeps usage as a running total that each pass decays with the
-- half-life then in force, so after a change the usage before it has
-- decayed with the old law up to the change and decays with the new one
-- from it (docs/history.md#the-decay-as-of-an-instant).
-- One 1-CPU job, billing 1 per second, [S, E) = 2026-06-01 00:00-01:00 UTC.
-- The half-life is 1 day (h1 = 86400 s) until C = 2026-06-02 01:00, then
-- 2 days (h2 = 172800 s).  Exact decay: a unit charged at t weighs
-- 2^(-(A - t)/h) at A, so over [s, e) the usage is
--   (h/ln 2) x (2^(-(A - e)/h) - 2^(-(A - s)/h)).
SET search_path = public, fairshare;
SET timezone = 'UTC';
SET extra_float_digits = 0;

INSERT INTO clusters (cluster, decay_half_life) VALUES ('dl', '1 day');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('dl', 'p', 64, 262144);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('dl', 'root', NULL, 1), ('dl', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('dl', 'a', 'ann'), ('dl', 'a', 'bob');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, tres, cpus) VALUES
  ('dl', '1', 'ann', 'a', 'p', 'COMPLETED', '2026-06-01 00:00+00', '2026-06-01 00:00+00', '2026-06-01 01:00+00', 'cpu=1', 1),
  -- bob: one job across the change, [C - 1h, C + 1h)
  ('dl', '2', 'bob', 'a', 'p', 'COMPLETED', '2026-06-02 00:00+00', '2026-06-02 00:00+00', '2026-06-02 02:00+00', 'cpu=1', 1);

-- the closed form above, in SQL, for the expected figures
\i sql/include/exact_decay.sql

BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-02 01:00+00';
UPDATE clusters SET decay_half_life = '2 days' WHERE cluster = 'dl';
COMMIT;

-- the change is in the history: the law as of each instant
SELECT decay_half_life FROM fairshare_internal._clusters_decay_law_at('2026-06-02 00:59:59.999999+00') WHERE cluster = 'dl';
SELECT decay_half_life FROM fairshare_internal._clusters_decay_law_at('2026-06-02 01:00+00') WHERE cluster = 'dl';
SELECT fairshare_internal._decay_law_changed('dl', '2026-06-02 00:59+00') AS before_c,
       fairshare_internal._decay_law_changed('dl', 'infinity') AS c;

-- As of B = 2026-06-02 00:30, before C: the old law alone.
--   ann: (86400/ln 2)(2^(-23.5/24) - 2^(-24.5/24)) = 1800.06256
--   bob: [00:00, 00:30): (86400/ln 2)(1 - 2^(-0.5/24)) = 1787.06582
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage,
       pg_temp.same(raw_usage, CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-02 00:30+00', 86400)
           ELSE pg_temp.span('2026-06-02 00:00+00', '2026-06-02 00:30+00', '2026-06-02 00:30+00', 86400) END) AS by_hand
  FROM association_usage_at('2026-06-02 00:30+00') WHERE cluster = 'dl' ORDER BY user_name;

-- As of A = 2026-06-04 01:00, two days after C:
--   ann: U(C) under h1 = (86400/ln 2)(2^-1 - 2^(-25/24)) = 1774.25542,
--        then x 2^(-2 days/h2) = x 0.5 = 887.12771
--   bob: [C - 1h, C) under h1 to C, x 0.5; plus [C, C + 1h) under h2 at A
-- (the law of A over the whole history would give ann 1263.64636: shown beside)
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage,
       pg_temp.same(raw_usage, CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-02 01:00+00', 86400) * 0.5
           ELSE pg_temp.span('2026-06-02 00:00+00', '2026-06-02 01:00+00', '2026-06-02 01:00+00', 86400) * 0.5
                + pg_temp.span('2026-06-02 01:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 172800) END) AS by_hand,
       round(CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-04 01:00+00', 172800)
           ELSE pg_temp.span('2026-06-02 00:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 172800) END::numeric, 6)
         AS one_law
  FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'dl' ORDER BY user_name;
-- sshare_at prints the same usage
SELECT user_name, raw_usage FROM sshare_at('2026-06-04 01:00+00') WHERE cluster = 'dl' AND user_name <> '' ORDER BY user_name;

-- Checkpoints.  One as of B, made now (after the change): it holds the
-- usage under the old law, and is not used past C (A reads the same
-- figures as without it).  One as of D = C + 1 day holds the piecewise
-- usage, and A read from it gives the same figures.
CREATE TEMP TABLE no_cp AS SELECT user_name, raw_usage FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'dl';
CALL checkpoint_usage('dl', '2026-06-02 00:30+00');
SELECT u.user_name, pg_temp.same(u.raw_usage, n.raw_usage) AS same_as_without
  FROM association_usage_at('2026-06-04 01:00+00') u JOIN no_cp n USING (user_name) WHERE u.cluster = 'dl' ORDER BY 1;
CALL checkpoint_usage('dl', '2026-06-03 01:00+00');
SELECT u.user_name, pg_temp.same(u.raw_usage, n.raw_usage) AS same_as_without
  FROM association_usage_at('2026-06-04 01:00+00') u JOIN no_cp n USING (user_name) WHERE u.cluster = 'dl' ORDER BY 1;
-- (the checkpoint at D is the one read: the readers start from it)
SELECT as_of FROM usage_checkpoints WHERE cluster = 'dl' AND invalidated_at IS NULL ORDER BY as_of;
-- a chained (sparse) checkpoint 5 minutes after D, and A from it
CALL checkpoint_usage('dl', '2026-06-03 01:05+00');
SELECT u.user_name, pg_temp.same(u.raw_usage, n.raw_usage) AS same_as_without
  FROM association_usage_at('2026-06-04 01:00+00') u JOIN no_cp n USING (user_name) WHERE u.cluster = 'dl' ORDER BY 1;

-- A second change, at C2 = 2026-06-03 01:00, to the step decay (x 0.5 at
-- each UTC midnight): the checkpoints before it are set aside past C2,
-- and the usage at C2 (piecewise itself) steps down at 06-04 00:00 once:
--   ann: U(C) x 2^(-1 day/h2) = 1254.58813 at C2, then x 0.5 = 627.29402
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-03 01:00+00';
UPDATE clusters SET decay_mode = 'step', decay_interval = '1 day', decay_factor = 0.5 WHERE cluster = 'dl';
COMMIT;
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage,
       pg_temp.same(raw_usage, CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-02 01:00+00', 86400)
                           * power(2::float8, -0.5) * 0.5
           ELSE (pg_temp.span('2026-06-02 00:00+00', '2026-06-02 01:00+00', '2026-06-02 01:00+00', 86400)
                 * power(2::float8, -0.5)
                 + pg_temp.span('2026-06-02 01:00+00', '2026-06-02 02:00+00', '2026-06-03 01:00+00', 172800)) * 0.5 END)
         AS by_hand
  FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'dl' ORDER BY user_name;
-- and before C2 nothing moved: as of B the old law still
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage FROM association_usage_at('2026-06-02 00:30+00')
 WHERE cluster = 'dl' ORDER BY user_name;

-- A scenario that sets the half-life holds over the whole history: no
-- piece of the live history's laws (ann: one law of 2 days, 1263.64636).
INSERT INTO scenarios (scenario) VALUES ('two_days');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings)
VALUES ('two_days', 'dl', 'clusters', '{"decay_mode": "exact", "decay_half_life": "2 days"}');
BEGIN;
SET LOCAL fairshare.scenario = 'two_days';
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage,
       pg_temp.same(raw_usage, CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-04 01:00+00', 172800)
           ELSE pg_temp.span('2026-06-02 00:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 172800) END) AS by_hand
  FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'dl' ORDER BY user_name;
COMMIT;

-- slurmctld's passes (decay_mode slurm_passes, docs/decay.md): a pass every
-- 5 minutes from 12:00; each pass multiplies the usage by f^300 and charges
-- a running job billing x d x f^d for its d seconds since the previous
-- pass, with f = 1 - 0.693/h of the half-life in force at that pass.  A
-- 2-CPU job over [12:00:30, 12:20:00); the half-life 10 minutes until C =
-- 12:07:30 (between two passes), 20 minutes from C.  So the pass of 12:05
-- uses f1 = 1 - 0.693/600 and every pass from 12:10 on f2 = 1 - 0.693/1200:
--   12:05  U1 = 2 x 270 x f1^270
--   12:10  U2 = (U1 + 2 x 300) x f2^300
--   12:15  U3 = (U2 + 600) x f2^300
--   12:20  U4 = (U3 + 600) x f2^300        (its end)
--   12:30  U6 = U4 x f2^600
INSERT INTO clusters (cluster, decay_mode, decay_half_life, priority_calc_period, priority_last_decay)
VALUES ('dp', 'slurm_passes', '10 minutes', '5 minutes', '2024-06-01 12:00:00+00');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('dp', 'p', 64, 262144);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('dp', 'root', NULL, 1), ('dp', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('dp', 'a', 'ann');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, tres, cpus) VALUES
  ('dp', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-06-01 12:00:00+00', '2024-06-01 12:00:30+00', '2024-06-01 12:20:00+00', 'cpu=2', 2);
BEGIN;
SET LOCAL fairshare.tree_change_at = '2024-06-01 12:07:30+00';
UPDATE clusters SET decay_half_life = '20 minutes' WHERE cluster = 'dp';
COMMIT;
WITH f AS (SELECT 1 - 0.693 / 600 AS f1, 1 - 0.693 / 1200 AS f2),
     u1 AS (SELECT 2 * 270 * power(f1, 270) AS u, f2 FROM f),
     u4 AS (SELECT (((u + 600) * power(f2, 300) + 600) * power(f2, 300) + 600) * power(f2, 300) AS u, f2 FROM u1)
SELECT round(a.raw_usage::numeric, 6) AS raw_usage,
       round((u4.u * power(u4.f2, 600))::numeric, 6) AS by_hand,
       pg_temp.same(a.raw_usage, (u4.u * power(u4.f2, 600))::float8) AS same
  FROM association_usage_at('2024-06-01 12:30:00+00') a, u4 WHERE a.cluster = 'dp';
-- and a checkpoint at 12:12 (after C) gives the same at 12:30
CALL checkpoint_usage('dp', '2024-06-01 12:12:00+00');
SELECT round(raw_usage::numeric, 6) AS from_checkpoint FROM association_usage_at('2024-06-01 12:30:00+00') WHERE cluster = 'dp';
DELETE FROM jobs WHERE cluster = 'dp';
DELETE FROM clusters WHERE cluster = 'dp';

DELETE FROM scenarios WHERE scenario = 'two_days';
DELETE FROM jobs WHERE cluster = 'dl';
DELETE FROM clusters WHERE cluster = 'dl';

-- A change of the law before the cluster's first run splits nothing: the
-- usage before it is none, so it is read once, under the law after it.
-- Cluster 'ds': the half-life set to 2 days at 2026-05-01, before its one
-- run (1 CPU, 2026-06-01 00:00-01:00); as of 06-03 01:00:
--   (172800/ln 2)(2^(-2/2) - 2^(-(2 + 1/24)/2)) = 1787.06582
-- and _association_usage is called once (twice if the change were a piece).
INSERT INTO clusters (cluster, decay_half_life) VALUES ('ds', '1 day');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('ds', 'p', 64, 262144);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('ds', 'root', NULL, 1), ('ds', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('ds', 'a', 'ann');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, tres, cpus) VALUES
  ('ds', '1', 'ann', 'a', 'p', 'COMPLETED', '2026-06-01 00:00+00', '2026-06-01 00:00+00', '2026-06-01 01:00+00', 'cpu=1', 1);
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-05-01 00:00+00';
UPDATE clusters SET decay_half_life = '2 days' WHERE cluster = 'ds';
COMMIT;
BEGIN;
SET LOCAL track_functions = 'pl';
SELECT round(u.raw_usage::numeric, 5) AS raw_usage,
       pg_temp.same(u.raw_usage, pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-03 01:00+00', 172800)) AS by_hand
  FROM fairshare_internal._association_usage('2026-06-03 01:00+00', false, 'ds') u;
SELECT calls FROM pg_stat_xact_user_functions
 WHERE funcid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure;
COMMIT;
DELETE FROM jobs WHERE cluster = 'ds';
DELETE FROM clusters WHERE cluster = 'ds';

-- The decay mode as of an instant decides which tree sshare_at computes
-- the usage columns with: under slurm_passes the tree of slurmctld's last
-- pass (docs/slurm.md#the-tree-changes), under the other modes the tree
-- of as_of itself.  Cluster 'mv': exact decay until C = 13:00, then
-- slurm_passes, passes every 5 minutes from 12:00.  Ann (account a, 1
-- share) ran 1 CPU and Bea (account b) 2 CPUs over the same half hour, so
-- a has a third of the usage and b two thirds, whatever the decay.  b's
-- shares go from 1 to 3 at 12:02 and back to 1 at 13:02.  a's LevelFS is
-- NormShares / EffectvUsage:
--   with b at 3: (1/4) / (1/3) = 0.75;  with b at 1: (1/2) / (1/3) = 1.5
--   12:03, exact then: the tree of 12:03, b at 3: 0.75
--   13:03, passes then: the tree of the pass of 13:00, b at 3: 0.75
--          (the tree of 13:03 would give 1.5, and so would the pass of
--          12:00 at 12:03 if today's mode decided)
INSERT INTO clusters (cluster, decay_mode, priority_calc_period, priority_last_decay)
VALUES ('mv', 'exact', '5 minutes', '2024-06-01 12:00:00+00');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('mv', 'p', 64, 262144);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('mv', 'root', NULL, 1), ('mv', 'a', 'root', 1), ('mv', 'b', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('mv', 'a', 'ann'), ('mv', 'b', 'bea');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, tres, cpus) VALUES
  ('mv', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-06-01 11:00+00', '2024-06-01 11:00+00', '2024-06-01 11:30+00', 'cpu=1', 1),
  ('mv', '2', 'bea', 'b', 'p', 'COMPLETED', '2024-06-01 11:00+00', '2024-06-01 11:00+00', '2024-06-01 11:30+00', 'cpu=2', 2);
BEGIN;
SET LOCAL fairshare.tree_change_at = '2024-06-01 12:02:00+00';
UPDATE accounts SET shares = 3 WHERE cluster = 'mv' AND account = 'b';
COMMIT;
BEGIN;
SET LOCAL fairshare.tree_change_at = '2024-06-01 13:00:00+00';
UPDATE clusters SET decay_mode = 'slurm_passes' WHERE cluster = 'mv';
COMMIT;
BEGIN;
SET LOCAL fairshare.tree_change_at = '2024-06-01 13:02:00+00';
UPDATE accounts SET shares = 1 WHERE cluster = 'mv' AND account = 'b';
COMMIT;
SELECT t.at, round(s.effectv_usage::numeric, 6) AS effectv_usage, round(s.level_fs::numeric, 6) AS level_fs
  FROM (VALUES ('2024-06-01 12:03:00+00'::timestamptz), ('2024-06-01 13:03:00+00')) t (at)
 CROSS JOIN LATERAL sshare_at(t.at) s
 WHERE s.cluster = 'mv' AND s.account = 'a' AND s.user_name IS NULL
 ORDER BY t.at;
DELETE FROM jobs WHERE cluster = 'mv';
DELETE FROM clusters WHERE cluster = 'mv';
