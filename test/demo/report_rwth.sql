-- Demo: RWTH three-month sliding-window quota
-- (docs/policies.md#rwth-sliding-window-quota, docs/regulation.md).
--
-- Adds 'claix', an RWTH-style cluster in Berlin time (CLAIX-2023-like partitions:
-- c23ms shared, c23mm whole nodes, c23g with 4 GPUs a node, a GPU-hour billed as 24
-- core-hours), four projects with an accounting period 1 Jan – 30 Jun 2026 and their
-- jobs, and prints what `r_wlm_usage -q` prints for each project and month.
-- Self-contained: it does not use the demo centre's clusters.
\set ON_ERROR_STOP 1
\pset pager off
SET client_min_messages = warning;

INSERT INTO fairshare.clusters (cluster, gpu_hour_factor, timezone, description)
VALUES ('claix', 24, 'Europe/Berlin', 'RWTH-style cluster: core-hour quota in a three-month sliding window');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes, gpus_per_node, whole_node)
VALUES ('claix', 'c23ms', 96, 256000, 600, 0, false),
       ('claix', 'c23mm', 96, 512000, 150, 0, true),
       ('claix', 'c23g', 96, 512000, 50, 4, false);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'claix', a, CASE WHEN a <> 'root' THEN 'root' END, 1
  FROM unnest(ARRAY['root', 'rwth1001', 'rwth1002', 'rwth1003', 'thes2004']) a;
INSERT INTO fairshare.account_users (cluster, account, user_name)
SELECT 'claix', a, 'ab' || (100000 + i)::text
  FROM unnest(ARRAY['rwth1001', 'rwth1002', 'rwth1003', 'thes2004']) WITH ORDINALITY u(a, i);

-- rwth1001  10 000 core-h a month, uses about 9 000 every month (shared nodes)
-- rwth1002   5 000 a month, one burst of 12 000 in February (whole nodes), then quiet
-- rwth1003   2 000 a month, overruns: 13 000 in March (more than 6 × 2 000: blocked)
-- thes2004   a student thesis: 3 000 h spread over the six months (500 a month), GPU jobs
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours, monthly_allowance)
VALUES ('claix', 'rwth1001', 'rwth', '2026-01-01', '2026-06-30', 60000, 10000),
       ('claix', 'rwth1002', 'rwth', '2026-01-01', '2026-06-30', 30000, 5000),
       ('claix', 'rwth1003', 'rwth', '2026-01-01', '2026-06-30', 12000, 2000),
       ('claix', 'thes2004', 'rwth', '2026-01-01', '2026-06-30', 3000, NULL);

-- Jobs: (project, partition, first day, days, every n days, cores, gpus, hours, start hour UTC).
-- rwth1001's jobs start at 22:00 UTC and run 3 h, so the one on the last evening of a
-- month is split between two months.
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time,
                            start_time, end_time, cpus, nodes, gpus)
SELECT 'claix', j.account || '.' || to_char(j.first_day + d, 'MMDD'), u.user_name, j.account, j.partition, 'COMPLETED',
       s, s, s + make_interval(hours => j.hours), j.cores, greatest(1, (j.cores + 95) / 96), j.gpus
  FROM (VALUES ('rwth1001', 'c23ms', '2026-01-01'::date, 181, 1, 100, 0, 3, 22),     -- 300 a day ≈ 9 000 a month
               ('rwth1002', 'c23ms', '2026-01-05', 20, 2, 40, 0, 5, 8),            -- 200 every 2nd day in January
               ('rwth1002', 'c23mm', '2026-02-02', 25, 1, 10, 0, 5, 8),            -- whole node: 96 × 5 = 480 a day in February
               ('rwth1003', 'c23ms', '2026-01-10', 20, 1, 10, 0, 8, 6),            -- 80 a day in January
               ('rwth1003', 'c23ms', '2026-03-01', 26, 1, 50, 0, 10, 6),           -- 500 a day in March
               ('thes2004', 'c23g', '2026-02-01', 100, 5, 8, 1, 4, 9)) j(account, partition, first_day, days, every, cores, gpus, hours, start_hour),
       LATERAL generate_series(0, j.days - 1, j.every) d,
       LATERAL (SELECT (j.first_day + d)::timestamp AT TIME ZONE 'UTC' + make_interval(hours => j.start_hour) AS s) t,
       LATERAL (SELECT au.user_name FROM fairshare.account_users au
                 WHERE au.cluster = 'claix' AND au.account = j.account LIMIT 1) u;

\echo
\echo '== r_wlm_usage -q for every project and month of the period, as of 1 Jul 2026 =='
\echo '   consumable_%: "Consumable core-h (%)" (balance, shown -101 below -100); consumable: "Consumable core-h"'
SELECT project, to_char(month, 'YYYY-MM') AS month, state, round(monthly) AS monthly,
       round(remaining_prev) AS remaining_prev, round(consumed) AS consumed,
       round(consumable_pct::numeric) AS "consumable_%", round(consumable) AS consumable,
       round(available_pct::numeric) AS "available_%", round(consumed_total) AS total,
       round(allowance_total) AS total_allowance
  FROM fairshare.r_wlm_usage_at('2026-07-01 00:00 Europe/Berlin')
 WHERE cluster = 'claix' ORDER BY project, month;

\echo
\echo '== $ r_wlm_usage -p rwth1003 -q   (on 20 Mar 2026, in the middle of its overrun) =='
SELECT f.field, f.value
  FROM fairshare.r_wlm_usage_at('2026-03-20 12:00 Europe/Berlin') r
 CROSS JOIN LATERAL (VALUES (1, 'Group:', r.project),
                            (2, 'Start of Accounting Period:', to_char(r.period_start, 'DD.MM.YYYY')),
                            (3, 'End of Accounting Period:', to_char(r.period_end, 'DD.MM.YYYY')),
                            (4, 'State of project:', r.state),
                            (5, 'monthly (core-h):', round(r.monthly)::text),
                            (6, 'Remaining core-h of prev. month:', round(r.remaining_prev)::text),
                            (7, 'Consumed core-h act. month:', round(r.consumed)::text),
                            (8, 'Consumable core-h (%):', round(r.consumable_pct::numeric)::text),
                            (9, 'Consumable core-h:', round(r.consumable)::text)) f(n, field, value)
 WHERE r.cluster = 'claix' AND r.project = 'rwth1003' AND r.month = '2026-03-01'
 ORDER BY f.n;

\echo
\echo '== A job across a month boundary is split by time =='
\echo '   rwth1001 runs 100 cores for 3 h from 23:00 CET every day: January = 30 x 300 + 1 h x 100 of the'
\echo '   31 Jan job = 9 100; February = its other 2 h (200) + 27 x 300 + 1 h of the 28 Feb job (100) = 8 400'
SELECT to_char(month, 'YYYY-MM') AS month, round(consumed) AS consumed
  FROM fairshare.rwth_monthly_usage_at('2026-07-01 00:00 Europe/Berlin')
 WHERE cluster = 'claix' AND account = 'rwth1001' AND month <= '2026-02-01' ORDER BY month;

-- The policy lab (docs/history.md#the-policy-lab): the same months as if a GPU-hour
-- were billed as 12 core-hours, or c23mm's whole nodes were shared.
-- The lab came with fairshare 1.3: a database still on an older version (the upgrade
-- suite loads the demo into 1.2 first) has none.
SELECT to_regclass('fairshare.scenarios') IS NOT NULL AS has_lab \gset
\if :has_lab
INSERT INTO fairshare.scenarios (scenario, description)
VALUES ('claix_gpu12', 'a GPU-hour billed as 12 core-hours instead of 24'),
       ('claix_c23mm_shared', 'c23mm billed by the cores asked, not whole nodes'),
       ('claix_three_months', 'the newer page''s rule: any three consecutive months within their allowances');
INSERT INTO fairshare.scenario_settings (scenario, cluster, table_name, name, settings)
VALUES ('claix_gpu12', 'claix', 'clusters', '', '{"gpu_hour_factor": 12}'),
       ('claix_c23mm_shared', 'claix', 'partitions', 'c23mm', '{"whole_node": false}'),
       ('claix_three_months', 'claix', 'clusters', '', '{"rwth_rule": "three_months"}');

\echo
\echo '== the policy lab: the project months a scenario changes, as of 1 Jul 2026 =='
\echo '   claix_gpu12: thes2004''s jobs (8 cores, 1 GPU) pay max(8, 12) = 12 an hour instead of 24'
\echo '   claix_c23mm_shared: rwth1002''s February (10 cores on a 96-core node) pays 10 an hour instead of 96'
SELECT s.scenario, c.project, to_char(c.month, 'YYYY-MM') AS month,
       round(c.live_consumed) AS live_consumed, round(c.scenario_consumed) AS scenario_consumed,
       round(c.live_consumable) AS live_consumable, round(c.scenario_consumable) AS scenario_consumable,
       c.live_state, c.scenario_state
  FROM (VALUES ('claix_gpu12'), ('claix_c23mm_shared')) s(scenario),
       fairshare.scenario_rwth_compare('2026-07-01 00:00 Europe/Berlin', s.scenario) c
 WHERE c.cluster = 'claix'
   AND (c.live_consumed <> c.scenario_consumed OR c.live_consumable <> c.scenario_consumable
        OR c.live_state <> c.scenario_state)
 ORDER BY s.scenario, c.project, c.month;

\echo
\echo '== the policy lab: the quota under the newer page''s rule (claix_three_months), as of 1 Jul 2026 =='
\echo '   every three consecutive months within their three allowances, instead of the formula'
\echo '   A(m-1) + A(m) + A(m+1) - C(m-1) - C(m) (docs/policies.md#the-three-consecutive-months-rule):'
\echo '   the same consumption, another consumable and state; the months that change'
SELECT c.project, to_char(c.month, 'YYYY-MM') AS month, round(c.live_consumed) AS consumed,
       round(c.live_consumable) AS live_consumable, round(c.scenario_consumable) AS scenario_consumable,
       c.live_state, c.scenario_state, c.live_rule, c.scenario_rule
  FROM fairshare.scenario_rwth_compare('2026-07-01 00:00 Europe/Berlin', 'claix_three_months') c
 WHERE c.cluster = 'claix'
   AND (c.live_consumable <> c.scenario_consumable OR c.live_state <> c.scenario_state)
 ORDER BY c.project, c.month;
\endif
