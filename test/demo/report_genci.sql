-- Demo: GENCI regulation of under-consumption
-- (docs/policies.md#genci-regulation-of-under-consumption, docs/regulation.md).
--
-- Adds 'ada', a GENCI-style machine in Paris time (named after IDRIS's Ada, where the
-- 2017 rules applied: monthly regulation at 1 M h and above, mid-term below), six
-- projects with an allocation for the regular-access period 1 Nov 2025 – 31 Oct 2026
-- and their jobs, applies the regulation as it would have run every night up to
-- 15 Apr 2026, and prints the reports.  Self-contained: it does not use the demo
-- centre's clusters, so its figures do not change with them.
\set ON_ERROR_STOP 1
\pset pager off
SET client_min_messages = warning;

INSERT INTO fairshare.clusters (cluster, regulation_threshold, timezone, description)
VALUES ('ada', 1000000, 'Europe/Paris', 'GENCI-style machine: monthly regulation at 1 M h and above, mid-term below');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes)
VALUES ('ada', 'cpu', 40, 192000, 500);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'ada', a, CASE WHEN a <> 'root' THEN 'root' END, 1
  FROM unnest(ARRAY['root', 'gen7001', 'gen7002', 'gen7003', 'gen7004', 'gen7005', 'gen7006']) a;
INSERT INTO fairshare.account_users (cluster, account, user_name)
SELECT 'ada', a, 'pi_' || a FROM unnest(ARRAY['gen7001', 'gen7002', 'gen7003', 'gen7004', 'gen7005', 'gen7006']) a;

-- project, hours, share of the steady pace it keeps, justification filed
--   gen7001  4.38 M h, keeps pace (100 %)               monthly regime: on track
--   gen7002  2.19 M h, 25 % of the pace                  monthly regime: very late, hours taken back
--   gen7003  1.46 M h, 55 % of the pace                  monthly regime: late and warned, very late by 15 Apr
--   gen7004  500 k h, 5 % of the pace                    mid-term: alert on 1 Mar, take-back on 1 Apr
--   gen7005  800 k h, 10 % of the pace, justified 20 Mar mid-term: alert, exempt
--   gen7006  300 k h, 90 % of the pace                   mid-term: nothing to do
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours, justification_filed)
VALUES ('ada', 'gen7001', 'genci', '2025-11-01', '2026-10-31', 4380000, NULL),
       ('ada', 'gen7002', 'genci', '2025-11-01', '2026-10-31', 2190000, NULL),
       ('ada', 'gen7003', 'genci', '2025-11-01', '2026-10-31', 1460000, NULL),
       ('ada', 'gen7004', 'genci', '2025-11-01', '2026-10-31', 500000, NULL),
       ('ada', 'gen7005', 'genci', '2025-11-01', '2026-10-31', 800000, '2026-03-20'),
       ('ada', 'gen7006', 'genci', '2025-11-01', '2026-10-31', 300000, NULL);

-- One job a day per project from 1 Nov 2025 to 14 Apr 2026, starting at 20:00 UTC (so
-- every job crosses midnight in Paris and is split between two days), lasting 8 to 12 h,
-- with as many cores as keep the project at its pace: cores ≈ pace × A / 365 / hours.
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time,
                            start_time, end_time, cpus, nodes)
SELECT 'ada', p.account || '.' || d::text, 'pi_' || p.account, p.account, 'cpu', 'COMPLETED',
       s, s, s + make_interval(hours => h), c, (c + 39) / 40
  FROM (VALUES ('gen7001', 4380000, 1.00), ('gen7002', 2190000, 0.25), ('gen7003', 1460000, 0.55),
               ('gen7004', 500000, 0.05), ('gen7005', 800000, 0.10), ('gen7006', 300000, 0.90)) p(account, hours, pace),
       generate_series(0, 164) d,
       LATERAL (SELECT '2025-11-01 20:00+00'::timestamptz + make_interval(days => d) AS s,
                       8 + (d * 7) % 5 AS h) t,
       LATERAL (SELECT greatest(1, round(p.pace * p.hours / 365.0 / t.h))::integer AS c) k;

-- The nightly run, caught up in one call: every 15th from 15 Nov for the monthly regime,
-- 1 Mar (alert) and 1 Apr (mid-term take-back) for the others, each once and in order.
CALL fairshare.apply_genci_regulation('2026-04-15', 'ada');

\echo
\echo '== GENCI report on ada, 15 Apr 2026 (month 6 of the allocation, a check day) =='
\echo '   net_h: allocation the day was judged on; lag_d: lag in days of allocation; ratio: lag / monthly'
SELECT account, regime, round(net_hours) AS net_h, round(consumed) AS consumed,
       round(theoretical) AS theoretical, round(lag_hours) AS lag_h, round(lag_days::numeric, 1) AS lag_d,
       round(ratio::numeric, 2) AS ratio, status, round(penalty) AS due_today,
       last_penalty_date AS last_penalty, round(last_penalty_hours) AS last_h,
       round(taken_back_hours) AS taken_back
  FROM fairshare.genci_report_at('2026-04-15')
 WHERE cluster = 'ada' ORDER BY account;

\echo
\echo '== Hours taken back (fairshare.ledger) =='
SELECT a.account, l.effective_date, l.rule, round(l.hours) AS hours
  FROM fairshare.ledger l JOIN fairshare.allocations a USING (allocation_id)
 WHERE a.cluster = 'ada' AND l.kind = 'take_back'
 ORDER BY a.account, l.effective_date;

\echo
\echo '== Notices for project leaders (fairshare.regulation_notifications), the latest 8 =='
SELECT check_day, account, kind, message
  FROM fairshare.regulation_notifications WHERE cluster = 'ada'
 ORDER BY check_day DESC, account LIMIT 8;

\echo
\echo '== How gen7002 fell behind: every check day evaluated (fairshare.regulation_checks) =='
SELECT r.check_day, round(r.net_hours) AS net_h, round(r.consumed) AS consumed, round(r.theoretical) AS theoretical,
       round(r.ratio::numeric, 2) AS ratio, r.status, round(r.hours_taken) AS taken
  FROM fairshare.regulation_checks r JOIN fairshare.allocations a USING (allocation_id)
 WHERE a.cluster = 'ada' AND a.account = 'gen7002' ORDER BY r.check_day;
