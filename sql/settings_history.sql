-- settings_history: the history of the policy settings (clusters,
-- partitions, qos), its readers, and sprio_at reading the weights, the
-- partitions' PriorityJobFactor and the QOS priorities as of as_of
-- (docs/history.md#the-history-of-the-settings).
SET search_path = fairshare, public;
SET extra_float_digits = 0;
SET timezone = 'UTC';

-- PriorityMaxAge 16 s and weight_age 8: a job pending d s shows d/16 × 8.
INSERT INTO clusters (cluster, weight_fairshare, weight_age, weight_job_size, weight_partition, weight_qos,
                      priority_max_age, decay_half_life, total_nodes, total_cpus)
VALUES ('sh', 0, 8, 0, 30000, 1000, '16 seconds', '7 days', 4, 128);
INSERT INTO partitions (cluster, partition, priority_job_factor, billing_weights, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('sh', 'p1', 10, 'CPU=1', 2, 64, 262144),
  ('sh', 'p2', 40, 'CPU=1', 2, 64, 262144);
INSERT INTO qos (cluster, qos, priority) VALUES ('sh', 'low', 10), ('sh', 'high', 50);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('sh', 'root', NULL, 1), ('sh', 'a1', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('sh', 'a1', 'u1', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes, nice) VALUES
  ('sh', '1', 'u1', 'a1', 'p1', 'low', 'PENDING', '2026-06-01 12:00:00+00', '2026-06-01 12:00:00+00', NULL, NULL, 4, 0, 1, 0);

-- Inserting rows writes no history: a row never changed is read live.
SELECT count(*) AS versions FROM settings_history;

-- A change of nothing the policy reads (the description, the state the
-- passes write) writes nothing either.
UPDATE clusters SET description = 'test', priority_last_decay = '2026-06-01 11:00+00' WHERE cluster = 'sh';
SELECT count(*) AS versions FROM settings_history;

-- The instant is validated as for the tree (docs/history.md#how-an-instant-is-recorded).
SET fairshare.tree_change_at = 'soon';
UPDATE clusters SET weight_age = 16 WHERE cluster = 'sh';
RESET fairshare.tree_change_at;

-- The changes, at 12:00:10: the half-life 7 → 14 days, weight_age 8 → 16,
-- p1's PriorityJobFactor 10 → 20 and billing CPU=1 → CPU=2, low's priority
-- 10 → 25.
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:00:10+00';
UPDATE clusters SET weight_age = 16, decay_half_life = '14 days' WHERE cluster = 'sh';
UPDATE partitions SET priority_job_factor = 20, billing_weights = 'CPU=2' WHERE cluster = 'sh' AND partition = 'p1';
UPDATE qos SET priority = 25 WHERE cluster = 'sh' AND qos = 'low';
COMMIT;

-- Each changed row: its old settings from -infinity to 12:00:10, its new
-- ones from then on (open).
SELECT table_name, name, settings ->> 'weight_age' AS weight_age, settings ->> 'decay_half_life' AS half_life,
       settings ->> 'priority_job_factor' AS pjf, settings ->> 'billing_weights' AS billing,
       settings ->> 'priority' AS qos_priority, valid_from, valid_to
  FROM settings_history ORDER BY table_name, name, valid_from;

-- The readers: before the change the old settings, after it the new.
SELECT decay_half_life, weight_age, description FROM fairshare_internal._cluster_at('sh', '2026-06-01 12:00:08+00');
SELECT decay_half_life, weight_age, description FROM fairshare_internal._cluster_at('sh', '2026-06-01 12:00:12+00');
SELECT partition, priority_job_factor, billing_weights FROM fairshare_internal._partitions_at('sh', '2026-06-01 12:00:08+00') ORDER BY 1;
SELECT partition, priority_job_factor, billing_weights FROM fairshare_internal._partitions_at('sh', '2026-06-01 12:00:12+00') ORDER BY 1;
SELECT qos, priority FROM fairshare_internal._qos_at('sh', '2026-06-01 12:00:08+00') ORDER BY 1;
SELECT qos, priority FROM fairshare_internal._qos_at('sh', '2026-06-01 12:00:12+00') ORDER BY 1;

-- sprio_at before the change, with the old settings, at 12:00:08 (8 s pending):
--   age       8/16 × 8         = 4
--   partition 10/40 × 30000    = 7500   (p1's 10 of the largest, p2's 40)
--   qos       10/50 × 1000     = 200    (low's 10 of the largest, high's 50)
--   priority  4 + 7500 + 200   = 7704
-- (today's settings would give 8/16 × 16 = 8, 20/40 × 30000 = 15000,
-- 25/50 × 1000 = 500: 15508)
SELECT job_id, priority, age, partition_prio, qos_prio FROM sprio_at('2026-06-01 12:00:08+00');
SELECT job_id, priority, age, partition_prio, qos_prio FROM fairshare_internal._sprio_rows('2026-06-01 12:00:08+00');
-- after it, with the new, at 12:00:12 (12 s pending):
--   age       12/16 × 16       = 12
--   partition 20/40 × 30000    = 15000
--   qos       25/50 × 1000     = 500
--   priority  12 + 15000 + 500 = 15512
SELECT job_id, priority, age, partition_prio, qos_prio FROM sprio_at('2026-06-01 12:00:12+00');
SELECT job_id, priority, age, partition_prio, qos_prio FROM fairshare_internal._sprio_rows('2026-06-01 12:00:12+00');

-- The present: the live rows as they are.  The job pending since
-- 12:00:00 is past PriorityMaxAge: age 1 × 16 = 16; 16 + 15000 + 500 = 15516.
SELECT job_id, priority, age, partition_prio, qos_prio FROM sprio_at(now());
SELECT count(*) AS differing FROM (SELECT * FROM fairshare_internal._clusters_at(now())
                                   EXCEPT SELECT * FROM clusters) d;
SELECT count(*) AS differing FROM (SELECT * FROM fairshare_internal._partitions_at(NULL, now())
                                   EXCEPT SELECT * FROM partitions) d;

-- A partition deleted: still read before its deletion, not after it.
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:00:20+00';
DELETE FROM partitions WHERE cluster = 'sh' AND partition = 'p2';
SELECT partition, priority_job_factor FROM fairshare_internal._partitions_at('sh', '2026-06-01 12:00:12+00') ORDER BY 1;
SELECT partition, priority_job_factor FROM fairshare_internal._partitions_at('sh', '2026-06-01 12:00:30+00') ORDER BY 1;
ROLLBACK;

-- A cluster deleted takes its history with it.
DELETE FROM jobs WHERE cluster = 'sh';
DELETE FROM clusters WHERE cluster = 'sh';
SELECT count(*) AS versions FROM settings_history;

-- A plain user reads the settings' history as it reads the settings
-- (sprio_at reads it for my_sprio_at).
SELECT has_table_privilege('fairshare_user', 'fairshare.settings_history', 'SELECT') AS user_reads_history;

-- sshare_at reads the fair-share algorithm and the dampening as of as_of.
-- Root → a (1 share) → ua, b (1 share) → ub; ua ran 1 CPU for 1 h, ub
-- nothing; no decay in an hour worth printing (half-life 100 days).
INSERT INTO clusters (cluster, decay_half_life) VALUES ('fa', '100 days');
INSERT INTO partitions (cluster, partition, billing_weights, nodes, cores_per_node, mem_per_node_mb)
VALUES ('fa', 'p', 'CPU=1', 1, 4, 1024);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('fa', 'root', NULL, 1), ('fa', 'a', 'root', 1), ('fa', 'b', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('fa', 'a', 'ua', 1), ('fa', 'b', 'ub', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes)
VALUES ('fa', '1', 'ua', 'a', 'p', 'COMPLETED', '2026-06-01 10:00+00', '2026-06-01 10:00+00',
        '2026-06-01 10:00+00', '2026-06-01 11:00+00', 1, 0, 1);
CREATE TEMP TABLE fa_before AS SELECT * FROM sshare_at('2026-06-01 12:00+00') WHERE cluster = 'fa';
-- Classic from 12:30 on, with dampening 3 from 13:00 on.
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:30+00';
UPDATE clusters SET fairshare_algorithm = 'classic' WHERE cluster = 'fa';
SET LOCAL fairshare.tree_change_at = '2026-06-01 13:00+00';
UPDATE clusters SET fairshare_dampening = 3 WHERE cluster = 'fa';
COMMIT;
-- Before the change: Fair Tree's answer, every column as it was.
SELECT count(*) AS differing FROM (SELECT * FROM fa_before EXCEPT SELECT * FROM sshare_at('2026-06-01 12:00+00') WHERE cluster = 'fa') d;
SELECT user_name, algorithm, fairshare FROM sshare_at('2026-06-01 12:00+00') WHERE cluster = 'fa' AND user_name IS NOT NULL ORDER BY 1;
-- After it, classic: FairShare = 2^(-EffectvUsage / NormShares / dampening).
-- ua has all the usage: EffectvUsage 1, NormShares 1/2: 2^(-1 / 0.5) = 0.25
-- at 12:45 (dampening 1), 2^(-1 / 0.5 / 3) = 2^(-2/3) = 0.629960524947437
-- at 13:15 (dampening 3); ub none: 2^0 = 1 both times.
SELECT a.t, s.user_name, s.algorithm, s.effectv_usage, s.norm_shares, s.fairshare
  FROM (VALUES ('2026-06-01 12:45+00'::timestamptz), ('2026-06-01 13:15+00')) a (t), sshare_at(a.t) s
 WHERE s.cluster = 'fa' AND s.user_name IS NOT NULL ORDER BY 1, 2;
-- The fair-share factors cached with a checkpoint are computed with the
-- settings as of its instant too (sprio_at reads them): the same 0.5 / 1
-- (Fair Tree), 0.25 / 1 and 0.629961 / 1 as sshare_at at each instant
-- (today's settings, classic with dampening 3, would give 0.629961 for
-- ua at all three).
CALL checkpoint_usage('fa', '2026-06-01 12:00+00');
CALL checkpoint_usage('fa', '2026-06-01 12:45+00');
CALL checkpoint_usage('fa', '2026-06-01 13:15+00');
-- (the factors as sprio reads them: the later ones are sparse, ub's
-- factor the base's, docs/design.md#sparse-checkpoints)
SELECT f.as_of, f.user_name, round(f.fairshare::numeric, 6) AS cached,
       f.fairshare = s.fairshare AS as_sshare_at
  FROM usage_checkpoint_factors k
 CROSS JOIN LATERAL fairshare_internal._checkpoint_factor_rows(ARRAY[k.cluster], ARRAY[k.as_of]) f
  JOIN LATERAL sshare_at(f.as_of) s ON s.cluster = f.cluster AND s.account = f.account AND s.user_name = f.user_name
 WHERE k.cluster = 'fa' ORDER BY 1, 2;
SELECT as_of, base FROM usage_checkpoint_factors WHERE cluster = 'fa' ORDER BY 1;
SELECT as_of, count(*) AS own_rows FROM usage_checkpoint_factor_rows WHERE cluster = 'fa' GROUP BY 1 ORDER BY 1;
-- sprio_at reads the base's row where the sparse factors have none: with
-- ub's factor at 12:00 made 0.125 for the test, sprio_at at 13:15 and the
-- factors _sprio_rows reads give 0.125 for ub
BEGIN;
UPDATE usage_checkpoint_factor_rows SET fairshare = 0.125
 WHERE cluster = 'fa' AND as_of = '2026-06-01 12:00+00' AND user_name = 'ub';
SELECT user_name, fairshare FROM fairshare_internal._checkpoint_factor_rows('{fa}', '{2026-06-01 13:15+00}') ORDER BY 1;
-- (a pending job of ub, submitted at 13:00: sprio_at's row for it; a
-- fair-share weight set without its history, as if it had always been)
SET LOCAL session_replication_role = replica;
UPDATE clusters SET weight_fairshare = 1000 WHERE cluster = 'fa';
SET LOCAL session_replication_role = origin;
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time, cpus)
VALUES ('fa', '9', 'ub', 'b', 'p', 'PENDING', '2026-06-01 13:00+00', '2026-06-01 13:00+00', 1);
SELECT user_name, fairshare_factor FROM sprio_at('2026-06-01 13:15+00') WHERE cluster = 'fa' ORDER BY 1;
ROLLBACK;
DELETE FROM jobs WHERE cluster = 'fa';
DELETE FROM clusters WHERE cluster = 'fa';

-- The limits (docs/history.md#the-history-of-the-limits): GrpTRESMins as
-- of as_of.  root → a (billing=3600 from the start) → u (no limit); b.
INSERT INTO clusters (cluster) VALUES ('lm');
INSERT INTO accounts (cluster, account, parent_account, shares, grp_tres_mins) VALUES
  ('lm', 'root', NULL, 1, NULL), ('lm', 'a', 'root', 1, 'billing=3600'), ('lm', 'b', 'root', 1, NULL);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('lm', 'a', 'u', 1);
-- made with a limit, and a change of something else (the shares): no version
UPDATE accounts SET shares = 2 WHERE cluster = 'lm' AND account = 'b';
SELECT count(*) AS limit_versions FROM limit_history WHERE cluster = 'lm';
-- 12:00:10 a's limit cpu=60,billing=7200; 12:00:20 u's limit billing=600
-- and b's billing=100, then b's again at the same instant, billing=200
-- (the second replaces the first); 12:00:30 b's removed (NULL).
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:00:10+00';
UPDATE accounts SET grp_tres_mins = 'cpu=60,billing=7200' WHERE cluster = 'lm' AND account = 'a';
COMMIT;
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:00:20+00';
UPDATE account_users SET grp_tres_mins = 'billing=600' WHERE cluster = 'lm' AND user_name = 'u';
UPDATE accounts SET grp_tres_mins = 'billing=100' WHERE cluster = 'lm' AND account = 'b';
UPDATE accounts SET grp_tres_mins = 'billing=200' WHERE cluster = 'lm' AND account = 'b';
COMMIT;
BEGIN;
SET LOCAL fairshare.tree_change_at = '2026-06-01 12:00:30+00';
UPDATE accounts SET grp_tres_mins = NULL WHERE cluster = 'lm' AND account = 'b';
COMMIT;
SELECT account, user_name, grp_tres_mins, valid_from, valid_to
  FROM limit_history WHERE cluster = 'lm' ORDER BY account, user_name, valid_from;
-- sshare's GrpTRESMins at each instant, and now (the live limits)
SELECT t.t AS as_of, s.account, COALESCE(s.user_name, '') AS user_name, s.grp_tres_mins
  FROM (VALUES (timestamptz '2026-06-01 12:00:05+00'), ('2026-06-01 12:00:15+00'),
               ('2026-06-01 12:00:25+00'), ('2026-06-01 12:00:35+00')) t (t),
       sshare_at(t.t) s
 WHERE s.cluster = 'lm' AND s.depth > 0 ORDER BY 1, 2, 3;
SELECT count(*) AS differing FROM (
  (SELECT account, user_name, grp_tres_mins FROM sshare_at(now()) WHERE cluster = 'lm'
   EXCEPT ALL
   SELECT account, NULL, fairshare_internal._grp_tres_mins_text(grp_tres_mins) FROM accounts WHERE cluster = 'lm'
   EXCEPT ALL
   SELECT account, user_name, fairshare_internal._grp_tres_mins_text(grp_tres_mins) FROM account_users WHERE cluster = 'lm')) d;
DELETE FROM clusters WHERE cluster = 'lm';
SELECT count(*) AS limit_versions_left FROM limit_history WHERE cluster = 'lm';
