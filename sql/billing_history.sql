-- billing_history: a QOS's UsageFactor and a partition's billing weights
-- as of an instant (docs/history.md#usagefactor-and-billing-weights-as-of-an-instant).
-- slurmctld computes a job's billable TRES once, when it starts, with its
-- partition's TRESBillingWeights then (calc_job_billable_tres keeps it
-- unless the job is resized), and multiplies each pass's charge by the
-- UsageFactor its QOS has at that pass.  So a run is billed with the
-- weights of its start, and a change of UsageFactor at C splits the usage:
-- the runs' parts before C at the old factor, after C at the new one.
--
-- Cluster 'ub', exact decay, half-life 1 day (h = 86400 s), QOS 'normal'.
--   W = 2026-06-01 12:00: partition p's weights from none (a run bills its
--       CPUs) to CPU=3.0;
--   C = 2026-06-02 01:00: normal's UsageFactor from 1 to 2.
--   ann: 1 CPU over [2026-06-01 00:00, 01:00): started before W, before C;
--   bob: 1 CPU over [C - 1h, C + 1h): started after W, across C.
-- Exact decay: a unit charged at t weighs 2^(-(A - t)/h) at A, so over
-- [s, e) the usage is (h/ln 2) x (2^(-(A - e)/h) - 2^(-(A - s)/h)), and
-- a piece decayed to C and then from C to A is the same piece at A.
SET search_path = public, fairshare;
SET timezone = 'UTC';
SET extra_float_digits = 0;

INSERT INTO clusters (cluster, decay_half_life) VALUES ('ub', '1 day');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('ub', 'p', 64, 262144);
INSERT INTO qos (cluster, qos, usage_factor) VALUES ('ub', 'normal', 1), ('ub', 'gone', 3);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('ub', 'root', NULL, 1), ('ub', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('ub', 'a', 'ann'), ('ub', 'a', 'bob');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus) VALUES
  ('ub', '1', 'ann', 'a', 'p', 'normal', 'COMPLETED', '2026-06-01 00:00+00', '2026-06-01 00:00+00', '2026-06-01 01:00+00', 'cpu=1', 1),
  ('ub', '2', 'bob', 'a', 'p', 'normal', 'COMPLETED', '2026-06-02 00:00+00', '2026-06-02 00:00+00', '2026-06-02 02:00+00', 'cpu=1', 1);

-- the closed form above, in SQL, for the expected figures
\i sql/include/exact_decay.sql

BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:00+00';
UPDATE partitions SET billing_weights = 'CPU=3.0' WHERE cluster = 'ub' AND partition = 'p';
COMMIT;
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-02 01:00+00';
UPDATE qos SET usage_factor = 2 WHERE cluster = 'ub' AND qos = 'normal';
COMMIT;

-- the change of UsageFactor splits the usage; the weights' does not (a
-- run keeps the weights of its start)
SELECT fairshare_internal._usage_factor_changed('ub', '2026-06-02 00:59+00') AS before_c,
       fairshare_internal._usage_factor_changed('ub', 'infinity') AS c,
       fairshare_internal._usage_law_changed('ub', 'infinity') AS split_at,
       fairshare_internal._decay_law_changed('ub', 'infinity') AS decay_law;

-- each run's billing rate: ann 1 (her CPU, no weights at her start), bob
-- 3 (CPU=3.0 at his start), times today's UsageFactor 2
SELECT job_id, billing FROM job_billing WHERE cluster = 'ub' ORDER BY job_id;

-- As of B = 2026-06-02 00:30, after W, before C: UsageFactor 1.
--   ann: 1 x span([00:00, 01:00) at B) = 1800.06256
--   bob: 3 x span([00:00, 00:30) at B) = 3 x 1787.06582 = 5361.19747
SELECT user_name, round(raw_usage::numeric, 5) AS raw_usage,
       pg_temp.same(raw_usage, CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-02 00:30+00', 86400)
           ELSE 3 * pg_temp.span('2026-06-02 00:00+00', '2026-06-02 00:30+00', '2026-06-02 00:30+00', 86400) END) AS by_hand
  FROM association_usage_at('2026-06-02 00:30+00') WHERE cluster = 'ub' ORDER BY user_name;

-- As of A = 2026-06-04 01:00:
--   ann: 1 x 1 x span([S1, E1) at A) = 443.56386
--   bob: 3 x 1 x span([C - 1h, C) at A) + 3 x 2 x span([C, C + 1h) at A)
--        = 8140.11835
-- Today's weights and factor over the whole history would give ann 6 x
-- her span and bob 6 x span([C - 1h, C + 1h)): 2661.38313 and
-- 10801.50148, printed beside as "flat".
SELECT user_name, round(raw_usage::numeric, 5) AS raw_usage,
       pg_temp.same(raw_usage, CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-04 01:00+00', 86400)
           ELSE 3 * pg_temp.span('2026-06-02 00:00+00', '2026-06-02 01:00+00', '2026-06-04 01:00+00', 86400)
              + 6 * pg_temp.span('2026-06-02 01:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 86400) END) AS by_hand,
       round(CASE user_name
           WHEN 'ann' THEN 6 * pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-04 01:00+00', 86400)
           ELSE 6 * pg_temp.span('2026-06-02 00:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 86400) END::numeric, 5) AS flat
  FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'ub' ORDER BY user_name;

-- sshare_at prints the same raw usage
SELECT account, user_name, round(raw_usage::numeric, 5) AS raw_usage
  FROM sshare_at('2026-06-04 01:00+00') WHERE cluster = 'ub' AND user_name IN ('ann', 'bob') ORDER BY user_name;

-- Checkpoints: the change invalidated those before it; one made now at
-- 00:30 (before C) is not read past C, and one at C + 30 min gives the
-- same figures at A.
CALL checkpoint_usage('ub', '2026-06-02 00:30+00');
SELECT user_name, round(raw_usage::numeric, 5) AS raw_usage
  FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'ub' ORDER BY user_name;
CALL checkpoint_usage('ub', '2026-06-02 01:30+00');
SELECT user_name, round(raw_usage::numeric, 5) AS raw_usage,
       pg_temp.same(raw_usage, CASE user_name
           WHEN 'ann' THEN pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-04 01:00+00', 86400)
           ELSE 3 * pg_temp.span('2026-06-02 00:00+00', '2026-06-02 01:00+00', '2026-06-04 01:00+00', 86400)
              + 6 * pg_temp.span('2026-06-02 01:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 86400) END) AS by_hand
  FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'ub' ORDER BY user_name;
-- a chained checkpoint after it (sparse when it may be) gives them again
CALL checkpoint_usage('ub', '2026-06-03 00:00+00');
SELECT user_name, round(raw_usage::numeric, 5) AS raw_usage
  FROM association_usage_at('2026-06-04 01:00+00') WHERE cluster = 'ub' ORDER BY user_name;

-- A scenario setting normal's UsageFactor to 5 holds it over the whole
-- history (no split): ann 1 x 5 x span, bob 3 x 5 x span over both hours.
-- One setting p's weights to CPU=10.0 bills every run with them, normal
-- at its real factors (split at C): ann 10 x 1 x span, bob 10 x 1 x span
-- before C + 10 x 2 x span after it.
INSERT INTO scenarios (scenario) VALUES ('uf5'), ('w10');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES
  ('uf5', 'ub', 'qos', 'normal', '{"usage_factor": 5}'),
  ('w10', 'ub', 'partitions', 'p', '{"billing_weights": "CPU=10.0"}');
SELECT s.user_name, round(s.raw_usage::numeric, 5) AS raw_usage,
       pg_temp.same(s.raw_usage, CASE s.user_name
           WHEN 'ann' THEN 5 * pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-04 01:00+00', 86400)
           ELSE 15 * pg_temp.span('2026-06-02 00:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 86400) END) AS by_hand
  FROM sshare_at('2026-06-04 01:00+00', 'uf5') s WHERE s.cluster = 'ub' AND s.user_name IN ('ann', 'bob') ORDER BY s.user_name;
SELECT s.user_name, round(s.raw_usage::numeric, 5) AS raw_usage,
       pg_temp.same(s.raw_usage, CASE s.user_name
           WHEN 'ann' THEN 10 * pg_temp.span('2026-06-01 00:00+00', '2026-06-01 01:00+00', '2026-06-04 01:00+00', 86400)
           ELSE 10 * pg_temp.span('2026-06-02 00:00+00', '2026-06-02 01:00+00', '2026-06-04 01:00+00', 86400)
              + 20 * pg_temp.span('2026-06-02 01:00+00', '2026-06-02 02:00+00', '2026-06-04 01:00+00', 86400) END) AS by_hand
  FROM sshare_at('2026-06-04 01:00+00', 'w10') s WHERE s.cluster = 'ub' AND s.user_name IN ('ann', 'bob') ORDER BY s.user_name;

-- A QOS deleted is a change of its factor (to 1, as a run whose QOS is
-- unknown), and so is its re-creation: 'gone' (factor 3) deleted at
-- D = 2026-06-05 00:00, created again with factor 3 at E = 06-06 00:00.
-- Cy ran 1 CPU in it over [D - 1h, D + 1h), billed 3 (CPU=3.0): as of
-- 06-07 00:00, 3 x 3 x span(D - 1h, D) + 3 x 1 x span(D, D + 1h) =
-- 10723.51700 (9 x span over both hours would give 16202.25222, shown
-- beside as "flat").
INSERT INTO account_users (cluster, account, user_name) VALUES ('ub', 'a', 'cy');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus) VALUES
  ('ub', '3', 'cy', 'a', 'p', 'gone', 'COMPLETED', '2026-06-04 23:00+00', '2026-06-04 23:00+00', '2026-06-05 01:00+00', 'cpu=1', 1);
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-05 00:00+00';
DELETE FROM qos WHERE cluster = 'ub' AND qos = 'gone';
COMMIT;
SELECT fairshare_internal._usage_factor_changed('ub', 'infinity') AS d;
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-06 00:00+00';
INSERT INTO qos (cluster, qos, usage_factor) VALUES ('ub', 'gone', 3);
COMMIT;
SELECT fairshare_internal._usage_factor_changed('ub', 'infinity') AS e,
       fairshare_internal._usage_factor_changed('ub', '2026-06-05 23:00+00') AS d;
SELECT user_name, round(raw_usage::numeric, 5) AS raw_usage,
       pg_temp.same(raw_usage, 9 * pg_temp.span('2026-06-04 23:00+00', '2026-06-05 00:00+00', '2026-06-07 00:00+00', 86400)
                             + 3 * pg_temp.span('2026-06-05 00:00+00', '2026-06-05 01:00+00', '2026-06-07 00:00+00', 86400)) AS by_hand,
       round((9 * pg_temp.span('2026-06-04 23:00+00', '2026-06-05 01:00+00', '2026-06-07 00:00+00', 86400))::numeric, 5) AS flat
  FROM association_usage_at('2026-06-07 00:00+00') WHERE cluster = 'ub' AND user_name = 'cy';
-- as of 06-05 12:00, between D and E: 'gone' does not exist, factor 1 for
-- the part after D
SELECT pg_temp.same(raw_usage, 9 * pg_temp.span('2026-06-04 23:00+00', '2026-06-05 00:00+00', '2026-06-05 12:00+00', 86400)
                             + 3 * pg_temp.span('2026-06-05 00:00+00', '2026-06-05 01:00+00', '2026-06-05 12:00+00', 86400)) AS between_d_e
  FROM association_usage_at('2026-06-05 12:00+00') WHERE cluster = 'ub' AND user_name = 'cy';

-- slurmctld's passes (decay_mode slurm_passes): a pass every 5 minutes
-- from 12:00, f = 1 - 0.693/600 (half-life 10 minutes); each pass
-- multiplies the usage by f^300 and charges a running job billing x
-- UsageFactor x d x f^d for its d seconds since the previous pass, with
-- the factor the QOS has at that pass.  A 2-CPU job over [12:00:30,
-- 12:20:00); UsageFactor 1 until C = 12:07:30 (between two passes), 2
-- from C, so the pass of 12:10 charges its whole stretch at 2:
--   12:05  U1 = 2 x 270 x f^270
--   12:10  U2 = U1 x f^300 + 2 x 2 x 300 x f^300
--   12:15  U3 = U2 x f^300 + 1200 x f^300
--   12:20  U4 = U3 x f^300 + 1200 x f^300      (its end)
--   12:30  U6 = U4 x f^600
INSERT INTO clusters (cluster, decay_mode, decay_half_life, priority_calc_period, priority_last_decay)
VALUES ('up', 'slurm_passes', '10 minutes', '5 minutes', '2024-06-01 12:00:00+00');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('up', 'p', 64, 262144);
INSERT INTO qos (cluster, qos, usage_factor) VALUES ('up', 'normal', 1);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('up', 'root', NULL, 1), ('up', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('up', 'a', 'ann');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus) VALUES
  ('up', '1', 'ann', 'a', 'p', 'normal', 'COMPLETED', '2024-06-01 12:00:00+00', '2024-06-01 12:00:30+00', '2024-06-01 12:20:00+00', 'cpu=2', 2);
BEGIN;
SET LOCAL fairshare.tree_change_at = '2024-06-01 12:07:30+00';
UPDATE qos SET usage_factor = 2 WHERE cluster = 'up';
COMMIT;
WITH f AS (SELECT 1 - 0.693 / 600 AS f),
     u1 AS (SELECT 2 * 270 * power(f, 270) AS u, f FROM f),
     u4 AS (SELECT (((u + 1200) * power(f, 300) + 1200) * power(f, 300) + 1200) * power(f, 300) AS u, f FROM u1)
SELECT round(a.raw_usage::numeric, 6) AS raw_usage,
       round((u4.u * power(u4.f, 600))::numeric, 6) AS by_hand,
       pg_temp.same(a.raw_usage, (u4.u * power(u4.f, 600))::float8) AS same
  FROM association_usage_at('2024-06-01 12:30:00+00') a, u4 WHERE a.cluster = 'up';
-- as of 12:07 (before C): the pass of 12:05 alone, at factor 1
SELECT pg_temp.same(raw_usage, (2 * 270 * power(1 - 0.693 / 600, 270))::float8) AS before_c
  FROM association_usage_at('2024-06-01 12:07:00+00') WHERE cluster = 'up';

DELETE FROM scenarios WHERE scenario IN ('uf5', 'w10');
DELETE FROM jobs WHERE cluster IN ('ub', 'up');
DELETE FROM clusters WHERE cluster IN ('ub', 'up');
