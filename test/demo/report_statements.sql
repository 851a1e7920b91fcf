-- Demo: alerts, a monthly statement and a burn-down (docs/statements.md),
-- over the GENCI machine ada (report_genci.sql) and the RWTH cluster claix
-- (report_rwth.sql), as of 16 April 2026.  Versions before 1.2 have none of
-- these (test/upgrade.sh loads the demo into them): then it prints nothing.
\set ON_ERROR_STOP 1
\pset pager off
SET client_min_messages = warning;
SELECT to_regprocedure('fairshare.allocation_statements(date, timestamptz)') IS NOT NULL AS has_statements \gset
\if :has_statements

-- every allocation's thresholds (the defaults: 50, 80, 100 % used; 30 and 7
-- days before the end), checked as of 16 April: each notified once
CALL fairshare.check_allocation_alerts('2026-04-16 00:00+02');
\echo '== Alerts (fairshare.regulation_notifications, rules limit_*) =='
SELECT n.cluster, n.account, n.rule, n.check_day, left(n.message, 90) AS message
  FROM fairshare.regulation_notifications n
 WHERE n.rule LIKE 'limit\_%'
 ORDER BY n.cluster, n.account, n.rule;

\echo '== March 2026 statements of gen7002 (GENCI) and rwth1001 (RWTH), as of 16 April (fairshare.allocation_statements) =='
SELECT s.account, s.line, s.item, s.user_name, s.day, round(s.hours::numeric, 1) AS hours, left(s.note, 60) AS note
  FROM fairshare.allocation_statements('2026-03-01', '2026-04-16 00:00+02') s
 WHERE s.account IN ('gen7002', 'rwth1001')
 ORDER BY s.account, s.line;

\echo '== Charts (SVG, 800 × 400; open in a browser) =='
SELECT 'burndown_svg(gen7002)' AS chart, length(fairshare.burndown_svg(a.allocation_id, '2026-04-16 00:00+02')) AS svg_bytes
  FROM fairshare.allocations a WHERE a.cluster = 'ada' AND a.account = 'gen7002'
UNION ALL
SELECT 'account_usage_svg(claix, rwth1001)', length(fairshare.account_usage_svg('claix', 'rwth1001', '2026-01-01', '2026-05-01'))
UNION ALL
SELECT 'cluster_utilisation_svg(ada, March)', length(fairshare.cluster_utilisation_svg('ada', '2026-03-01 00:00+01', '2026-04-01 00:00+02'));
\endif
