-- Demo report: the policy lab (docs/history.md#the-policy-lab).  PROTEUS's
-- admins ask what a shorter memory would do: a 7-day half-life instead of
-- 21 days, and the age factor worth 20000 instead of 5000 (fair share
-- 75000 instead of 90000).  The scenario is read over the real history;
-- the live settings are not touched.
\set QUIET on
\pset footer off
SET search_path = public, fairshare;

-- The lab's tables came with fairshare 1.3: a database still on an older
-- version (the upgrade suite loads the demo into 1.2 first) has no lab.
SELECT to_regclass('fairshare.scenarios') IS NOT NULL AS has_lab \gset
\if :has_lab

INSERT INTO fairshare.scenarios (scenario, description)
VALUES ('proteus_short_memory', '7-day half-life, age weighed 20000, fair share 75000')
ON CONFLICT (scenario) DO NOTHING;
INSERT INTO fairshare.scenario_settings (scenario, cluster, table_name, settings)
VALUES ('proteus_short_memory', 'proteus', 'clusters',
        '{"decay_half_life": "7 days", "weight_age": 20000, "weight_fairshare": 75000}')
ON CONFLICT (scenario, cluster, table_name, name) DO NOTHING;

-- One evaluation of each comparison, as of the top of the hour.
SELECT date_trunc('hour', now()) AS lab_as_of \gset
CREATE TEMP TABLE lab_sshare AS
SELECT * FROM fairshare.scenario_sshare_compare(:'lab_as_of', 'proteus_short_memory') WHERE cluster = 'proteus';
CREATE TEMP TABLE lab_sprio AS
SELECT * FROM fairshare.scenario_sprio_compare(:'lab_as_of', 'proteus_short_memory') WHERE cluster = 'proteus';

\echo
\echo '=== The policy lab: scenario proteus_short_memory, its overrides over the live settings of proteus ==='
SELECT s.scenario, s.cluster, o.key AS setting, l.value AS live, o.value AS scenario_value
  FROM fairshare.scenario_settings s
  CROSS JOIN LATERAL jsonb_each_text(s.settings) o
  JOIN fairshare.clusters c ON c.cluster = s.cluster
  CROSS JOIN LATERAL jsonb_each_text(to_jsonb(c)) l
 WHERE s.scenario = 'proteus_short_memory' AND l.key = o.key
 ORDER BY o.key;

\echo
\echo '=== The users whose FairShare the scenario changes most (RawUsage: the 7-day half-life forgets faster) ==='
SELECT account, user_name, round(live_raw_usage) AS live_raw_usage, round(scenario_raw_usage) AS scenario_raw_usage,
       round(live_fairshare::numeric, 6) AS live_fairshare, round(scenario_fairshare::numeric, 6) AS scenario_fairshare,
       round((scenario_fairshare - live_fairshare)::numeric, 6) AS change
  FROM lab_sshare
 WHERE user_name IS NOT NULL
 ORDER BY abs(scenario_fairshare - live_fairshare) DESC, account, user_name
 LIMIT 8;

\echo
\echo '=== The pending queue of each partition: how much the order changes (Spearman: the correlation of the two ranks, ties at their mean rank) ==='
-- scenario_replay over the one instant: its per-partition counts and Spearman
SELECT partition, pending, earlier, later, same_place, round(spearman::numeric, 4) AS spearman
  FROM fairshare.scenario_replay(:'lab_as_of', :'lab_as_of', '1 hour', 'proteus_short_memory')
 WHERE cluster = 'proteus'
 ORDER BY partition;

\echo
\echo '=== The jobs that would be considered earliest compared with today: the 8 that gain the most places ==='
SELECT partition, job_id, user_name, account, live_priority, scenario_priority, live_place, scenario_place,
       live_place - scenario_place AS places_gained
  FROM lab_sprio
 ORDER BY live_place - scenario_place DESC, partition, job_id
 LIMIT 8;

\echo
\echo '=== The last day replayed hour by hour: pending jobs of proteus moved by the scenario, and the Spearman correlation of the two orders (mean over partitions of 2 jobs or more) ==='
SELECT to_char(as_of, 'YYYY-MM-DD HH24:MI') AS as_of, sum(pending) AS pending, sum(earlier) AS earlier,
       sum(later) AS later, round(avg(spearman)::numeric, 4) AS mean_spearman,
       round(min(spearman)::numeric, 4) AS min_spearman
  FROM fairshare.scenario_replay(:'lab_as_of'::timestamptz - interval '1 day', :'lab_as_of', '1 hour', 'proteus_short_memory')
 WHERE cluster = 'proteus'
 GROUP BY as_of
 ORDER BY as_of;

-- A second scenario: shares.  geofisica's share of proteus doubled (5 of
-- 100 shares under root to 10), the rest as it is.
INSERT INTO fairshare.scenarios (scenario, description)
VALUES ('proteus_geofisica_10', 'geofisica with 10 shares instead of 5')
ON CONFLICT (scenario) DO NOTHING;
INSERT INTO fairshare.scenario_tree (scenario, cluster, account, shares)
VALUES ('proteus_geofisica_10', 'proteus', 'geofisica', 10)
ON CONFLICT (scenario, cluster, account, user_name) DO NOTHING;

\echo
\echo '=== Scenario proteus_geofisica_10: the accounts of proteus under root, their NormShares and Fair Tree LevelFS (NormShares / EffectvUsage) live and with geofisica at 10 shares instead of 5 ==='
SELECT l.account, l.raw_shares AS live_shares, x.raw_shares AS scenario_shares,
       round(l.norm_shares::numeric, 6) AS live_norm_shares, round(x.norm_shares::numeric, 6) AS scenario_norm_shares,
       round(l.level_fs::numeric, 6) AS live_level_fs, round(x.level_fs::numeric, 6) AS scenario_level_fs
  FROM fairshare.sshare_at(:'lab_as_of') l
  JOIN fairshare.sshare_at(:'lab_as_of', 'proteus_geofisica_10') x
    ON x.cluster = l.cluster AND x.account = l.account AND x.user_name IS NULL
 WHERE l.cluster = 'proteus' AND l.user_name IS NULL AND l.depth = 1
 ORDER BY l.account;

\echo
\echo '=== ... the 8 users whose FairShare it changes most ==='
SELECT account, user_name, round(live_fairshare::numeric, 6) AS live_fairshare,
       round(scenario_fairshare::numeric, 6) AS scenario_fairshare,
       round((scenario_fairshare - live_fairshare)::numeric, 6) AS change
  FROM fairshare.scenario_sshare_compare(:'lab_as_of', 'proteus_geofisica_10')
 WHERE cluster = 'proteus' AND user_name IS NOT NULL
 ORDER BY abs(scenario_fairshare - live_fairshare) DESC, account, user_name
 LIMIT 8;

\echo
\echo '=== ... and for each partition, how many pending jobs it moves in the queue ==='
SELECT partition, pending, earlier, later, same_place, round(spearman::numeric, 4) AS spearman
  FROM fairshare.scenario_replay(:'lab_as_of', :'lab_as_of', '1 hour', 'proteus_geofisica_10')
 WHERE cluster = 'proteus'
 ORDER BY partition;

-- A third scenario: the GENCI regulation of ada under TGCC's monthly rule
-- (the lag in days, 30 days' worth taken above 60 days) instead of GENCI's
-- (in months, one month's worth); the report of the demo's check day,
-- read from the same ledger (report_genci.sql ran the regulation).
INSERT INTO fairshare.scenarios (scenario, description)
VALUES ('ada_tgcc', 'the GENCI regulation of ada under TGCC''s monthly rule')
ON CONFLICT (scenario) DO NOTHING;
INSERT INTO fairshare.scenario_settings (scenario, cluster, table_name, settings)
VALUES ('ada_tgcc', 'ada', 'genci_settings', '{"variant": "tgcc"}')
ON CONFLICT (scenario, cluster, table_name, name) DO NOTHING;

\echo
\echo '=== Scenario ada_tgcc: the GENCI report of ada on 15 Apr 2026 under GENCI''s monthly rule (live) and TGCC''s ==='
SELECT l.account, l.regime, round(l.lag_days::numeric, 1) AS lag_days, l.status,
       round(l.penalty) AS live_due, round(s.penalty) AS tgcc_due
  FROM fairshare.genci_report_at('2026-04-15') l
  JOIN fairshare.genci_report_at('2026-04-15', 'ada_tgcc') s USING (allocation_id)
 WHERE l.cluster = 'ada'
 ORDER BY l.account;

DROP TABLE lab_sshare, lab_sprio;
\endif
