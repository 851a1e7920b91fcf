-- The policy lab (docs/history.md#the-policy-lab): scenarios of settings
-- laid over the real history, without touching the live settings.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
SET timezone = 'UTC';

-- Root → a (1 share) → regress_lab_ua, b (1 share) → regress_lab_ub; regress_lab_ua ran 1 CPU from 10:00 to
-- 11:00, regress_lab_ub nothing; a job of regress_lab_ub pending since 11:00.  Fair Tree, decay
-- exact with a half-life of 100 days, weights fair share 1000, age 0.
INSERT INTO clusters (cluster, decay_half_life, weight_fairshare, weight_age, priority_max_age)
VALUES ('lab', '100 days', 1000, 0, '1 hour');
INSERT INTO partitions (cluster, partition, billing_weights, nodes, cores_per_node, mem_per_node_mb)
VALUES ('lab', 'p', 'CPU=1', 1, 4, 1024);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('lab', 'root', NULL, 1), ('lab', 'a', 'root', 1), ('lab', 'b', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('lab', 'a', 'regress_lab_ua', 1), ('lab', 'b', 'regress_lab_ub', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes) VALUES
  ('lab', '1', 'regress_lab_ua', 'a', 'p', 'COMPLETED', '2026-06-01 10:00+00', '2026-06-01 10:00+00',
   '2026-06-01 10:00+00', '2026-06-01 11:00+00', 1, 0, 1),
  ('lab', '2', 'regress_lab_ub', 'b', 'p', 'PENDING', '2026-06-01 11:00+00', '2026-06-01 11:00+00', NULL, NULL, 1, 0, 1),
  ('lab', '3', 'regress_lab_ua', 'a', 'p', 'PENDING', '2026-06-01 11:30+00', '2026-06-01 11:30+00', NULL, NULL, 1, 0, 1);

INSERT INTO scenarios (scenario, description) VALUES
  ('same', 'no override: the live settings'),
  ('classic', 'classic fair share instead of Fair Tree'),
  ('hour', 'a half-life of one hour'),
  ('age', 'the age weighted, PriorityMaxAge 1 hour'),
  ('passes', 'slurmctld''s passes every 7 minutes'),
  ('slurm', 'Slurm''s per-second decay factor'),
  ('step', 'PBS''s steps: halved every 30 minutes'),
  ('reset', 'the usage reset at 10:30 (PriorityUsageResetPeriod NOW)');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES
  ('classic', 'lab', 'clusters', '{"fairshare_algorithm": "classic"}'),
  ('hour', 'lab', 'clusters', '{"decay_half_life": "1 hour"}'),
  ('age', 'lab', 'clusters', '{"weight_age": 4000}'),
  ('passes', 'lab', 'clusters', '{"decay_mode": "slurm_passes", "priority_calc_period": "7 minutes"}'),
  ('slurm', 'lab', 'clusters', '{"decay_mode": "slurm"}'),
  ('step', 'lab', 'clusters', '{"decay_mode": "step", "decay_interval": "30 minutes", "decay_factor": 0.5}'),
  ('reset', 'lab', 'clusters', '{"usage_reset_period": "NOW", "usage_last_reset": "2026-06-01 10:30+00"}');

-- A checkpoint of the live settings at 11:30, which the live reports
-- start from.
CALL checkpoint_usage('lab', '2026-06-01 11:30+00');

-- A scenario without overrides gives exactly the live reports, every
-- column, both ways.
SELECT count(*) AS differing FROM (
  (SELECT * FROM sshare_at('2026-06-01 12:00+00') EXCEPT ALL SELECT * FROM sshare_at('2026-06-01 12:00+00', 'same'))
  UNION ALL
  (SELECT * FROM sshare_at('2026-06-01 12:00+00', 'same') EXCEPT ALL SELECT * FROM sshare_at('2026-06-01 12:00+00'))) d;
SELECT count(*) AS differing FROM (
  (SELECT * FROM sprio_at('2026-06-01 12:00+00') EXCEPT ALL SELECT * FROM sprio_at('2026-06-01 12:00+00', 'same'))
  UNION ALL
  (SELECT * FROM sprio_at('2026-06-01 12:00+00', 'same') EXCEPT ALL SELECT * FROM sprio_at('2026-06-01 12:00+00'))) d;

-- Each scenario equals the live reports of a copy of the cluster whose
-- live settings are the scenario's (lab_classic, lab_hour, lab_age: the
-- same partition, tree and jobs), every column but the cluster's name
-- (each row as jsonb without it):
-- classic, a half-life of one hour (the checkpoint of the live half-life
-- set aside), the age weighted, and the other decays: slurmctld's passes
-- every 7 minutes, Slurm's per-second factor, PBS's steps, a reset (each
-- with the checkpoint set aside).
INSERT INTO clusters
SELECT (jsonb_populate_record(c, jsonb_build_object('cluster', 'lab_' || s.scenario) || x.settings)).*
  FROM clusters c, scenario_settings x, scenarios s
 WHERE c.cluster = 'lab' AND x.scenario = s.scenario AND x.cluster = 'lab';
INSERT INTO partitions SELECT (jsonb_populate_record(p, jsonb_build_object('cluster', c.cluster))).*
  FROM partitions p, clusters c WHERE p.cluster = 'lab' AND c.cluster LIKE 'lab_%';
INSERT INTO accounts SELECT (jsonb_populate_record(a, jsonb_build_object('cluster', c.cluster))).*
  FROM accounts a, clusters c WHERE a.cluster = 'lab' AND c.cluster LIKE 'lab_%' ORDER BY c.cluster, a.parent_account NULLS FIRST;
INSERT INTO account_users SELECT (jsonb_populate_record(u, jsonb_build_object('cluster', c.cluster))).*
  FROM account_users u, clusters c WHERE u.cluster = 'lab' AND c.cluster LIKE 'lab_%';
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes)
SELECT c.cluster, j.job_id, j.user_name, j.account, j.partition, j.state, j.submit_time, j.eligible_time,
       j.start_time, j.end_time, j.cpus, j.mem_mb, j.nodes
  FROM jobs j, clusters c WHERE j.cluster = 'lab' AND c.cluster LIKE 'lab_%';
SELECT cluster, fairshare_algorithm, decay_mode, decay_half_life, priority_calc_period, decay_interval,
       usage_reset_period, weight_age FROM clusters WHERE cluster LIKE 'lab%' ORDER BY 1;
CREATE TEMP TABLE lab_scenario AS
SELECT x.scenario, to_jsonb(s) - 'cluster' AS r
  FROM scenarios x, sshare_at('2026-06-01 12:00+00', x.scenario) s
 WHERE x.scenario <> 'same' AND s.cluster = 'lab';
CREATE TEMP TABLE lab_live AS
SELECT substr(s.cluster, 5) AS scenario, to_jsonb(s) - 'cluster' AS r
  FROM sshare_at('2026-06-01 12:00+00') s WHERE s.cluster LIKE 'lab_%';
CREATE TEMP TABLE lab_scenario_sprio AS
SELECT x.scenario, to_jsonb(s) - 'cluster' AS r
  FROM scenarios x, sprio_at('2026-06-01 12:00+00', x.scenario) s
 WHERE x.scenario <> 'same' AND s.cluster = 'lab';
CREATE TEMP TABLE lab_live_sprio AS
SELECT substr(s.cluster, 5) AS scenario, to_jsonb(s) - 'cluster' AS r
  FROM sprio_at('2026-06-01 12:00+00') s WHERE s.cluster LIKE 'lab_%';
SELECT scenario, count(*) AS rows FROM lab_live GROUP BY 1 ORDER BY 1;
SELECT scenario, count(*) AS rows FROM lab_live_sprio GROUP BY 1 ORDER BY 1;
SELECT count(*) AS differing FROM (
  (SELECT * FROM lab_scenario EXCEPT ALL SELECT * FROM lab_live)
  UNION ALL (SELECT * FROM lab_live EXCEPT ALL SELECT * FROM lab_scenario)) d;
SELECT count(*) AS differing FROM (
  (SELECT * FROM lab_scenario_sprio EXCEPT ALL SELECT * FROM lab_live_sprio)
  UNION ALL (SELECT * FROM lab_live_sprio EXCEPT ALL SELECT * FROM lab_scenario_sprio)) d;

-- The numbers, at 12:00.  regress_lab_ua's RawUsage, 3600 CPU-seconds from 10:00 to
-- 11:00 decayed continuously: with a half-life h, the integral over ages
-- 1 h to 2 h of 2^(-age/h) times 1 CPU, h/ln 2 × (2^(-1 h/h) − 2^(-2 h/h)):
--   h = 1 hour:   3600/ln 2 × (2^-1 − 2^-2) = 5193.7021 × 0.25 = 1298.4255
--   h = 100 days: 8640000/ln 2 × (2^(-1/2400) − 2^(-2/2400)) = 3598.4408
-- Fair Tree: regress_lab_ub (no usage) ranks first: FairShare 1, regress_lab_ua 0.5; classic:
-- 2^(-EffectvUsage / NormShares) = 2^(-1 / 0.5) = 0.25 for regress_lab_ua, 1 for regress_lab_ub.
SELECT user_name, round(raw_usage::numeric, 4) AS live_raw_usage, fairshare AS live_fairshare
  FROM sshare_at('2026-06-01 12:00+00') WHERE cluster = 'lab' AND user_name IS NOT NULL ORDER BY 1;
SELECT x.scenario, s.user_name, round(s.raw_usage::numeric, 4) AS raw_usage, s.algorithm, s.fairshare
  FROM (VALUES ('classic'), ('hour')) x (scenario), sshare_at('2026-06-01 12:00+00', x.scenario) s
 WHERE s.cluster = 'lab' AND s.user_name IS NOT NULL ORDER BY 1, 2;
-- The decays, regress_lab_ua's RawUsage at 12:00:
--   reset at 10:30: the run counts from 10:30, ages 1 h to 1.5 h:
--     8640000/ln 2 × (2^(-1/2400) − 2^(-1.5/2400)) = 1799.3503
--   steps of 30 minutes halving the usage at each step after it was used
--     (docs/decay.md), up to 12:00 included: 10:00-10:30 halved 4 times,
--     10:30-11:00 3 times: 1800 / 16 + 1800 / 8 = 112.5 + 225 = 337.5
--   passes every 7 minutes, and Slurm's per-second factor: within 0.03 of
--     the exact 3598.4408
SELECT x.scenario, round(s.raw_usage::numeric, 4) AS raw_usage
  FROM (VALUES ('reset'), ('step'), ('passes'), ('slurm')) x (scenario), sshare_at('2026-06-01 12:00+00', x.scenario) s
 WHERE s.cluster = 'lab' AND s.user_name = 'regress_lab_ua' ORDER BY 1;
-- The live settings are untouched: Fair Tree, 100 days.
SELECT fairshare_algorithm, decay_half_life FROM clusters WHERE cluster = 'lab';
SELECT count(*) AS versions FROM settings_history WHERE cluster = 'lab' AND valid_from > '2026-06-02';

-- sprio, age weighted: job 2 pending 1 h of PriorityMaxAge 1 h: age 1 ×
-- 4000 = 4000, + FairShare 1 × 1000 = 5000; job 3 pending 30 min: 0.5 ×
-- 4000 = 2000, + 0.5 × 1000 = 2500.  Live (weight_age 0): 1000 and 500.
SELECT * FROM scenario_sprio_compare('2026-06-01 12:00+00', 'age') WHERE cluster = 'lab';
SELECT * FROM scenario_sshare_compare('2026-06-01 12:00+00', 'classic') WHERE cluster = 'lab' AND user_name IS NOT NULL;

-- The scenario holds only for the report: after it (and after one that
-- failed), the session reads the live settings.
SELECT count(*) > 0 AS ran FROM sshare_at('2026-06-01 12:00+00', 'classic');
SELECT COALESCE(current_setting('fairshare.scenario', true), '') AS scenario_after;
DO $$
BEGIN
    PERFORM * FROM fairshare.sprio_at('infinity', 'classic');
EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow THEN
    RAISE NOTICE 'sprio_at(infinity, classic) failed: %', SQLSTATE;
END $$;
SELECT COALESCE(current_setting('fairshare.scenario', true), '') AS scenario_after_error;
SELECT algorithm FROM sshare_at('2026-06-01 12:00+00') WHERE cluster = 'lab' AND depth = 0;

-- A past period replayed, and start_next, under the age scenario, with a
-- job 4 of regress_lab_ua pending since 10:30 (rolled back after).
-- FairShare: regress_lab_ua 0.5, regress_lab_ub 1 throughout.  Live: 1000 ×
-- FairShare (job 2: 1000, jobs 3 and 4: 500, tied); age: + 4000 × age / 1 h.
--   11:00  job 2 1000, job 4 500 + 2000 = 2500: swapped, Spearman −1
--   11:30  job 2 1000 + 2000 = 3000, job 4 500 + 4000 = 4500, job 3 500:
--          live places 1, 2, 2 (mean ranks 1, 2.5, 2.5), scenario 2, 1, 3:
--          job 4 earlier, jobs 2 and 3 later; deviations (−1, .5, .5) and
--          (0, −1, 1), covariance 0: Spearman 0
--   12:00  job 2 5000, job 4 4500, job 3 2500: live 1, 2, 2 (mean ranks 1,
--          2.5, 2.5), scenario 1, 2, 3: job 3 later; deviations (−1, .5, .5)
--          and (−1, 0, 1): 1.5 / √(1.5 × 2) = √3/2 = 0.866025403784439
BEGIN;
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes) VALUES
  ('lab', '4', 'regress_lab_ua', 'a', 'p', 'PENDING', '2026-06-01 10:30+00', '2026-06-01 10:30+00', NULL, NULL, 1, 0, 1);
SELECT * FROM scenario_replay('2026-06-01 11:00+00', '2026-06-01 12:00+00', '30 minutes', 'age') WHERE cluster = 'lab';
-- one CPU free at 11:00: job 2 starts under the live settings, job 4 under the scenario
SELECT queue_position, job_id, priority, starts FROM start_next('[{"cluster": "lab", "partition": "p", "cpus": 1}]', '2026-06-01 11:00+00', true)
 WHERE cluster = 'lab' ORDER BY queue_position;
SELECT queue_position, job_id, priority, starts FROM start_next('[{"cluster": "lab", "partition": "p", "cpus": 1}]', '2026-06-01 11:00+00', true, 'age')
 WHERE cluster = 'lab' ORDER BY queue_position;
ROLLBACK;
-- the replay's bounds: each refused with its SQLSTATE, the bad value named
\set SHOW_CONTEXT never
SELECT * FROM scenario_replay('2026-06-01 12:00+00', '2026-06-01 11:00+00', '1 hour', 'age');
SELECT * FROM scenario_replay('2026-06-01 11:00+00', '2026-06-01 12:00+00', '0', 'age');
SELECT * FROM scenario_replay('2026-06-01 11:00+00', '2026-06-01 12:00+00', '1 month -31 days', 'age');
-- a step that compares as positive (a month taken as 30 days) but does not
-- move forward from 31 January (+ 1 month = 28 February, − 29 days = 30
-- January): refused, the instant named
SELECT * FROM scenario_replay('2026-01-31 00:00+00', '2026-03-01 00:00+00', '1 month -29 days', 'age');
SELECT * FROM scenario_replay('2026-01-01 00:00+00', '2026-12-31 00:00+00', '1 minute', 'age');
SELECT * FROM scenario_replay('2026-06-01 11:00+00', 'infinity', '1 hour', 'age');
SELECT * FROM scenario_replay('2026-06-01 11:00+00', '2026-06-01 12:00+00', '1 hour', 'nope');
SELECT * FROM scenario_replay(NULL, '2026-06-01 12:00+00', '1 hour', 'age');
SELECT * FROM start_next('[]', '2026-06-01 11:00+00', true, NULL);
SELECT fairshare_internal._scenario_enter(NULL);
\set SHOW_CONTEXT errors

-- A scenario's report runs in a query that runs parallel workers (its
-- leader is then in parallel mode, where set_config() is refused): the
-- comparisons, which join the live answer with the scenario's, and a
-- caller's own join, with parallel plans made cheap; the same rows.
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET min_parallel_index_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM scenario_sprio_compare('2026-06-01 12:00+00', 'age') WHERE cluster = 'lab';
SELECT * FROM scenario_sshare_compare('2026-06-01 12:00+00', 'classic') WHERE cluster = 'lab' AND user_name IS NOT NULL;
SELECT l.user_name, l.fairshare AS live, s.fairshare AS classic
  FROM sshare_at('2026-06-01 12:00+00') l
  JOIN sshare_at('2026-06-01 12:00+00', 'classic') s USING (cluster, account, user_name)
 WHERE l.cluster = 'lab' AND l.user_name IS NOT NULL ORDER BY 1;
SELECT COALESCE(current_setting('fairshare.scenario', true), '') AS scenario_after_parallel;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET min_parallel_index_scan_size; RESET max_parallel_workers_per_gather;

-- Refused: an unknown scenario, none, and overrides a scenario cannot hold
-- (each with its SQLSTATE and the bad key or value named).
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT * FROM sshare_at('2026-06-01 12:00+00', 'nosuch');
SELECT * FROM sprio_at('2026-06-01 12:00+00', NULL);
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"timezone": "Europe/Paris"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"weight_age": -1}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"weight_age": "lots"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"fairshare_algorithm": "pbs"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"decay_half_life": null}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '[1]');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('same', 'lab', 'jobs', 'x', '{"cpus": 1}');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('same', 'lab', 'partitions', 'p', '{"priority_job_factor": 70000}');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('same', 'lab', 'partitions', 'p', '{"nodes": 4}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"decay_mode": "linear"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"priority_calc_period": "0 s"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"decay_interval": "-1 hour"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"decay_factor": 1.5}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"usage_reset_period": "NOW"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"usage_reset_period": "HOURLY"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"usage_last_reset": "2026-06-01 10:30+00"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"usage_reset_period": "NOW", "usage_last_reset": "infinity"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same', 'lab', 'clusters', '{"priority_last_decay": "2026-06-01 10:30+00"}');
INSERT INTO scenarios (scenario, created_by, created_at) VALUES ('a; DROP TABLE jobs', 'regress_lab_admin', '2026-06-01 00:00+00');
\set VERBOSITY terse
\set SHOW_CONTEXT errors

-- A reader runs a scenario an administrator defined, and changes none.
CREATE ROLE regress_lab_reader IN ROLE fairshare_reader;
SET ROLE regress_lab_reader;
SELECT user_name, fairshare FROM sshare_at('2026-06-01 12:00+00', 'classic') WHERE cluster = 'lab' AND user_name IS NOT NULL ORDER BY 1;
INSERT INTO scenarios (scenario) VALUES ('mine');
UPDATE scenario_settings SET settings = '{"fairshare_algorithm": "fair_tree"}' WHERE scenario = 'classic';
RESET ROLE;
DROP ROLE regress_lab_reader;

-- A plain user runs a scenario through my_sshare_at / my_sprio_at and sees
-- only their own rows, computed over every user (classic: 0.25 for
-- regress_lab_ua as above); the scenario reports themselves are not theirs.
CREATE ROLE regress_lab_ua IN ROLE fairshare_user;
SET ROLE regress_lab_ua;
SELECT user_name, fairshare FROM my_sshare_at('2026-06-01 12:00+00', 'classic') WHERE cluster = 'lab' ORDER BY 1;
-- (job 3, the caller's: 2500 as above)
SELECT job_id, priority FROM my_sprio_at('2026-06-01 12:00+00', 'age') WHERE cluster = 'lab' ORDER BY 1;
SELECT count(*) FROM sshare_at('2026-06-01 12:00+00', 'classic');
RESET ROLE;
DROP ROLE regress_lab_ua;

-- A scenario's tree (scenario_tree): an account's and a user
-- association's shares, Fairshare=parent, an account moved, laid over the
-- tree; here on a classic cluster shr:
-- root → a (1) → regress_lab_u1 (1), regress_lab_u2 (1); b (1) → regress_lab_u3 (1).
-- regress_lab_u1 ran 1 CPU from 10:00 to 11:00 (all the usage); a job of
-- regress_lab_u2 pending since 11:00.  Scenarios:
--   'shares'    a 3 shares, regress_lab_u1 3 shares, and an account the
--               tree does not hold (nothing);
--   'move'      b moved under a, regress_lab_u2 Fairshare=parent;
--   'move_gone' b moved under an account the tree does not hold (nothing).
-- The copies shr_shares and shr_move hold those trees as their live ones,
-- from their first instant (a later UPDATE would be the tree's history,
-- and a copy as of 12:00 would read the tree before it).
INSERT INTO clusters (cluster, fairshare_algorithm, decay_half_life, weight_fairshare, weight_age, priority_max_age)
SELECT c, 'classic', '100 days', 1000, 0, '1 hour' FROM unnest(ARRAY['shr', 'shr_shares', 'shr_move']) c;
INSERT INTO partitions (cluster, partition, billing_weights, nodes, cores_per_node, mem_per_node_mb)
SELECT c, 'p', 'CPU=1', 1, 4, 1024 FROM unnest(ARRAY['shr', 'shr_shares', 'shr_move']) c;
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT c, a, CASE WHEN c = 'shr_move' AND a = 'b' THEN 'a' ELSE p END,
       CASE WHEN c = 'shr_shares' AND a = 'a' THEN 3 ELSE 1 END
  FROM unnest(ARRAY['shr', 'shr_shares', 'shr_move']) c,
       (VALUES (1, 'root', NULL), (2, 'a', 'root'), (3, 'b', 'root')) x (o, a, p) ORDER BY c, o;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT c, a, u, CASE WHEN c = 'shr_shares' AND u = 'regress_lab_u1' THEN 3
                     WHEN c = 'shr_move' AND u = 'regress_lab_u2' THEN NULL ELSE 1 END
  FROM unnest(ARRAY['shr', 'shr_shares', 'shr_move']) c,
       (VALUES ('a', 'regress_lab_u1'), ('a', 'regress_lab_u2'), ('b', 'regress_lab_u3')) x (a, u);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes)
SELECT c, j, u, a, 'p', st, sb, sb, s, e, 1, 0, 1 FROM unnest(ARRAY['shr', 'shr_shares', 'shr_move']) c,
       (VALUES ('1', 'regress_lab_u1', 'a', 'COMPLETED', timestamptz '2026-06-01 10:00+00',
                timestamptz '2026-06-01 10:00+00', timestamptz '2026-06-01 11:00+00'),
               ('2', 'regress_lab_u2', 'a', 'PENDING', '2026-06-01 11:00+00', NULL, NULL)) x (j, u, a, st, sb, s, e);
INSERT INTO scenarios (scenario, description) VALUES
  ('shares', 'a and regress_lab_u1 with 3 shares'),
  ('move', 'b under a, regress_lab_u2 Fairshare=parent'),
  ('move_gone', 'b under an account that is not in the tree');
INSERT INTO scenario_tree (scenario, cluster, account, user_name, shares, fairshare_parent, parent_account) VALUES
  ('shares', 'shr', 'a', '', 3, false, NULL), ('shares', 'shr', 'a', 'regress_lab_u1', 3, false, NULL),
  ('shares', 'shr', 'gone', '', 5, false, NULL),
  ('move', 'shr', 'b', '', NULL, false, 'a'), ('move', 'shr', 'a', 'regress_lab_u2', NULL, true, NULL),
  ('move_gone', 'shr', 'b', '', NULL, false, 'gone');

-- Classic, at 12:00 (Slurm's classic: NormShares the product of the
-- levels' shares; EffectvUsage the usage's share under root, below it
-- usage + (parent's − usage) × shares / the level's shares; FairShare
-- 2^(−EffectvUsage / NormShares)).  u1 has all the usage: a's and u1's
-- EffectvUsage are 1, b's and u3's 0 (FairShare 1 both ways).
-- Live: a 1/2, 2^(−1/0.5) = 0.25; u1 and u2 1/2 × 1/2 = 0.25; u1
-- 2^(−1/0.25) = 0.0625; u2 0 + (1 − 0) × 1/2 = 0.5, 2^(−0.5/0.25) = 0.25.
-- 'shares': a 3/4, 2^(−1/0.75) = 2^(−4/3) = 0.396850262992; u1 3/4 × 3/4
-- = 0.5625, 2^(−1/0.5625) = 2^(−16/9) = 0.291632259894; u2 3/4 × 1/4 =
-- 0.1875, EffectvUsage 1 × 1/4 = 0.25, 2^(−0.25/0.1875) = 2^(−4/3) again.
SELECT 'live' AS scenario, s.account, s.user_name, s.raw_shares, round(s.norm_shares::numeric, 6) AS norm_shares,
       round(s.effectv_usage::numeric, 6) AS effectv_usage, round(s.fairshare::numeric, 12) AS fairshare
  FROM sshare_at('2026-06-01 12:00+00') s WHERE s.cluster = 'shr' AND s.depth > 0
UNION ALL
SELECT 'shares', s.account, s.user_name, s.raw_shares, round(s.norm_shares::numeric, 6),
       round(s.effectv_usage::numeric, 6), round(s.fairshare::numeric, 12)
  FROM sshare_at('2026-06-01 12:00+00', 'shares') s WHERE s.cluster = 'shr' AND s.depth > 0
 ORDER BY 1, 2, 3 NULLS FIRST;
-- 'move': b under a.  root → a (1) → u1 (1), b (1) → u3 (1); u2
-- Fairshare=parent is not one of a's shares: a's level holds u1 and b, 1
-- share each.  a alone under root: NormShares 1, EffectvUsage 1,
-- 2^(−1/1) = 0.5; u1 1 × 1/2 = 0.5, EffectvUsage 1, 2^(−1/0.5) = 0.25;
-- b 0.5, EffectvUsage 0 + (1 − 0) × 1/2 = 0.5, 2^(−0.5/0.5) = 0.5; u3 (b's
-- only child) NormShares 0.5, EffectvUsage 0.5, 0.5.  u2 takes a's
-- NormShares, EffectvUsage and factor, 0.5.
SELECT s.account, s.user_name, s.parent, s.depth, s.raw_shares, round(s.norm_shares::numeric, 6) AS norm_shares,
       round(s.effectv_usage::numeric, 6) AS effectv_usage, round(s.fairshare::numeric, 12) AS fairshare
  FROM sshare_at('2026-06-01 12:00+00', 'move') s WHERE s.cluster = 'shr' AND s.depth > 0
 ORDER BY s.tree_order;
-- sprio: job 2's fair-share part, 1000 × u2's FairShare: 250 live;
-- 396.850262992 under 'shares', printed 397, and the priority, the sum
-- truncated as slurmctld does, 396; 500 under 'move'
SELECT 'live' AS scenario, s.job_id, s.fairshare, s.priority
  FROM sprio_at('2026-06-01 12:00+00') s WHERE s.cluster = 'shr'
UNION ALL
SELECT x.scenario, s.job_id, s.fairshare, s.priority
  FROM (VALUES ('move'), ('shares')) x (scenario), sprio_at('2026-06-01 12:00+00', x.scenario) s WHERE s.cluster = 'shr'
 ORDER BY 1, 2;
-- and every column equals the live reports of the copy whose live tree is
-- the scenario's ('move_gone': shr's own live reports)
-- (each report read once: the scenarios' rows of shr, the copies' live rows)
CREATE TEMP TABLE shr_pairs (scenario, copy) AS
VALUES ('shares', 'shr_shares'), ('move', 'shr_move'), ('move_gone', 'shr');
CREATE TEMP TABLE shr_got AS
SELECT p.scenario, 'sshare' AS report, to_jsonb(s) - 'cluster' AS r
  FROM shr_pairs p, sshare_at('2026-06-01 12:00+00', p.scenario) s WHERE s.cluster = 'shr'
UNION ALL
SELECT p.scenario, 'sprio', to_jsonb(s) - 'cluster'
  FROM shr_pairs p, sprio_at('2026-06-01 12:00+00', p.scenario) s WHERE s.cluster = 'shr';
CREATE TEMP TABLE shr_want AS
SELECT p.scenario, 'sshare' AS report, to_jsonb(s) - 'cluster' AS r
  FROM sshare_at('2026-06-01 12:00+00') s JOIN shr_pairs p ON p.copy = s.cluster
UNION ALL
SELECT p.scenario, 'sprio', to_jsonb(s) - 'cluster'
  FROM sprio_at('2026-06-01 12:00+00') s JOIN shr_pairs p ON p.copy = s.cluster;
SELECT p.scenario, p.copy, r.report,
       (SELECT count(*) FROM shr_want w WHERE w.scenario = p.scenario AND w.report = r.report) AS rows,
       (SELECT count(*) FROM (
          (SELECT g.r FROM shr_got g WHERE g.scenario = p.scenario AND g.report = r.report
           EXCEPT ALL SELECT w.r FROM shr_want w WHERE w.scenario = p.scenario AND w.report = r.report)
          UNION ALL
          (SELECT w.r FROM shr_want w WHERE w.scenario = p.scenario AND w.report = r.report
           EXCEPT ALL SELECT g.r FROM shr_got g WHERE g.scenario = p.scenario AND g.report = r.report)) d) AS differing
  FROM shr_pairs p, (VALUES ('sprio'), ('sshare')) r (report) ORDER BY 1, 3;
-- the live tree is untouched
SELECT account, parent_account, shares FROM accounts WHERE cluster = 'shr' ORDER BY 1;
-- a move that closes a cycle at the instant read: the report fails naming
-- one of the two accounts (which one depends on the order the rows are read)
INSERT INTO scenarios (scenario) VALUES ('cycle');
INSERT INTO scenario_tree (scenario, cluster, account, parent_account) VALUES ('cycle', 'shr', 'a', 'b'), ('cycle', 'shr', 'b', 'a');
DO $$
BEGIN
    PERFORM count(*) FROM fairshare.sshare_at('2026-06-01 12:00+00', 'cycle');
    RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE '%: %', SQLSTATE,
        regexp_replace(SQLERRM, '^association "a:[ab]" is its own ancestor', 'association "a:a" or "a:b" is its own ancestor');
END $$;
\set VERBOSITY default
\set SHOW_CONTEXT never
-- refused: negative shares, root's own, no override, shares with
-- Fairshare=parent, a user association moved, an account its own parent,
-- an unknown scenario or cluster
INSERT INTO scenario_tree (scenario, cluster, account, user_name, shares) VALUES ('shares', 'shr', 'b', '', -1);
INSERT INTO scenario_tree (scenario, cluster, account, shares) VALUES ('shares', 'shr', 'root', 2);
INSERT INTO scenario_tree (scenario, cluster, account) VALUES ('shares', 'shr', 'b');
INSERT INTO scenario_tree (scenario, cluster, account, shares, fairshare_parent) VALUES ('shares', 'shr', 'b', 2, true);
INSERT INTO scenario_tree (scenario, cluster, account, user_name, parent_account) VALUES ('shares', 'shr', 'b', 'regress_lab_u3', 'a');
INSERT INTO scenario_tree (scenario, cluster, account, parent_account) VALUES ('shares', 'shr', 'b', 'b');
INSERT INTO scenario_tree (scenario, cluster, account, shares) VALUES ('nosuch', 'shr', 'b', 2);
INSERT INTO scenario_tree (scenario, cluster, account, shares) VALUES ('shares', 'nosuch', 'b', 2);
\set VERBOSITY terse
\set SHOW_CONTEXT errors

-- Billing weights and UsageFactor (scenario_settings of a partition and a
-- QOS), read by the usage; here on a classic cluster bil: root → a (1) →
-- regress_lab_u1; b (1) → regress_lab_u2, each of whom ran 1 CPU for an hour
-- (10:00 to 11:00), u1 in partition p (CPU=1) with QOS half (UsageFactor
-- 1), u2 in partition q (CPU=1).  A checkpoint of the live billing at
-- 11:30, which a scenario that changes the usage sets aside.  Scenarios:
--   'bill'  q's billing weights CPU=3: u2's usage × 3;
--   'uf'    half's UsageFactor 0.5: u1's usage × 0.5.
-- The copies bil_bill and bil_uf hold those as their live settings.
INSERT INTO clusters (cluster, fairshare_algorithm, decay_half_life, weight_fairshare, weight_age, priority_max_age)
SELECT c, 'classic', '100 days', 1000, 0, '1 hour' FROM unnest(ARRAY['bil', 'bil_bill', 'bil_uf']) c;
INSERT INTO partitions (cluster, partition, billing_weights, nodes, cores_per_node, mem_per_node_mb)
SELECT c, x, CASE WHEN c = 'bil_bill' AND x = 'q' THEN 'CPU=3' ELSE 'CPU=1' END, 1, 4, 1024
  FROM unnest(ARRAY['bil', 'bil_bill', 'bil_uf']) c, unnest(ARRAY['p', 'q']) x;
INSERT INTO qos (cluster, qos, usage_factor)
SELECT c, 'half', CASE WHEN c = 'bil_uf' THEN 0.5 ELSE 1 END FROM unnest(ARRAY['bil', 'bil_bill', 'bil_uf']) c;
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT c, a, p, 1 FROM unnest(ARRAY['bil', 'bil_bill', 'bil_uf']) c,
       (VALUES (1, 'root', NULL), (2, 'a', 'root'), (3, 'b', 'root')) x (o, a, p) ORDER BY c, o;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT c, a, u, 1 FROM unnest(ARRAY['bil', 'bil_bill', 'bil_uf']) c,
       (VALUES ('a', 'regress_lab_u1'), ('b', 'regress_lab_u2')) x (a, u);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time,
                  start_time, end_time, cpus, mem_mb, nodes)
SELECT c, j, u, a, pt, qs, 'COMPLETED', '2026-06-01 10:00+00', '2026-06-01 10:00+00',
       '2026-06-01 10:00+00', '2026-06-01 11:00+00', 1, 0, 1
  FROM unnest(ARRAY['bil', 'bil_bill', 'bil_uf']) c,
       (VALUES ('1', 'regress_lab_u1', 'a', 'p', 'half'), ('2', 'regress_lab_u2', 'b', 'q', NULL)) x (j, u, a, pt, qs);
CALL checkpoint_usage('bil', '2026-06-01 11:30+00');
INSERT INTO scenarios (scenario, description) VALUES
  ('bill', 'q billed CPU=3'), ('uf', 'QOS half at UsageFactor 0.5');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES
  ('bill', 'bil', 'partitions', 'q', '{"billing_weights": "CPU=3"}'),
  ('uf', 'bil', 'qos', 'half', '{"usage_factor": 0.5}');
-- Classic at 12:00, RawUsage 3600 CPU-s at 100 days = 3598.4408 (above).
-- Live: a and b half the usage each, EffectvUsage 0.5 over NormShares
-- 0.5, FairShare 2^(−1) = 0.5 for both users.
-- 'bill': u2 3 × 3598.44075 = 10795.3223; a 1/4, b 3/4 of the usage:
-- u1 2^(−0.25/0.5) = 0.707106781187, u2 2^(−0.75/0.5) = 0.353553390593.
-- 'uf': u1 0.5 × 3598.4408 = 1799.2204; a 1/3, b 2/3: u1 2^(−2/3) =
-- 0.629960524947, u2 2^(−4/3) = 0.396850262992.
SELECT 'live' AS scenario, s.user_name, round(s.raw_usage::numeric, 4) AS raw_usage,
       round(s.effectv_usage::numeric, 6) AS effectv_usage, round(s.fairshare::numeric, 12) AS fairshare
  FROM sshare_at('2026-06-01 12:00+00') s WHERE s.cluster = 'bil' AND s.user_name IS NOT NULL
UNION ALL
SELECT x.scenario, s.user_name, round(s.raw_usage::numeric, 4), round(s.effectv_usage::numeric, 6),
       round(s.fairshare::numeric, 12)
  FROM (VALUES ('bill'), ('uf')) x (scenario), sshare_at('2026-06-01 12:00+00', x.scenario) s
 WHERE s.cluster = 'bil' AND s.user_name IS NOT NULL
 ORDER BY 1, 2;
-- every column equals the live sshare_at of the copy whose live billing
-- is the scenario's (the copies have no checkpoint: from the jobs)
CREATE TEMP TABLE bil_got AS
SELECT x.scenario, to_jsonb(s) - 'cluster' AS r
  FROM (VALUES ('bill'), ('uf')) x (scenario), sshare_at('2026-06-01 12:00+00', x.scenario) s WHERE s.cluster = 'bil';
CREATE TEMP TABLE bil_want AS
SELECT substr(s.cluster, 5) AS scenario, to_jsonb(s) - 'cluster' AS r
  FROM sshare_at('2026-06-01 12:00+00') s WHERE s.cluster IN ('bil_bill', 'bil_uf');
SELECT x.scenario, (SELECT count(*) FROM bil_want w WHERE w.scenario = x.scenario) AS rows,
       (SELECT count(*) FROM (
          (SELECT g.r FROM bil_got g WHERE g.scenario = x.scenario
           EXCEPT ALL SELECT w.r FROM bil_want w WHERE w.scenario = x.scenario)
          UNION ALL
          (SELECT w.r FROM bil_want w WHERE w.scenario = x.scenario
           EXCEPT ALL SELECT g.r FROM bil_got g WHERE g.scenario = x.scenario)) d) AS differing
  FROM (VALUES ('bill'), ('uf')) x (scenario) ORDER BY 1;
-- the live billing is untouched, and so is the live checkpoint
SELECT partition, billing_weights FROM partitions WHERE cluster = 'bil' ORDER BY 1;
SELECT qos, usage_factor FROM qos WHERE cluster = 'bil';
SELECT as_of, invalidated_at FROM usage_checkpoints WHERE cluster = 'bil';
-- refused: weights that are not TRESBillingWeights, an unknown mode, a
-- negative or infinite UsageFactor
\set VERBOSITY default
\set SHOW_CONTEXT never
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('bill', 'bil', 'partitions', 'p', '{"billing_weights": "CPU=x"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('bill', 'bil', 'partitions', 'p', '{"billing_mode": "min"}');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('bill', 'bil', 'qos', 'x', '{"usage_factor": -1}');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('bill', 'bil', 'qos', 'x', '{"usage_factor": "Infinity"}');
\set VERBOSITY terse
\set SHOW_CONTEXT errors

DELETE FROM jobs WHERE cluster LIKE 'lab%' OR cluster LIKE 'shr%' OR cluster LIKE 'bil%';
DELETE FROM scenarios;
DELETE FROM clusters WHERE cluster LIKE 'lab%' OR cluster LIKE 'shr%' OR cluster LIKE 'bil%';
