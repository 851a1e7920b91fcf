-- Demo report: sreport cluster AccountUtilizationByUser -t Hours over the
-- last 30 days of PROTEUS, read from the usage rollups (docs/reports.md),
-- after the maintenance call that keeps them (pg_cron would run it).
\pset footer off
SELECT EXISTS (SELECT FROM pg_catalog.pg_proc p
                WHERE p.proname = 'refresh_rollups'
                  AND p.pronamespace = 'fairshare'::regnamespace) AS has_rollups \gset
\if :has_rollups
\echo
\echo '=== sreport -P cluster AccountUtilizationByUser -t Hours, PROTEUS, the last 30 days (from the rollups) ==='
SELECT cluster, hours_recomputed FROM fairshare.refresh_rollups('proteus');
SELECT cluster AS "Cluster", account AS "Account", login AS "Login", proper_name AS "Proper Name", used AS "Used"
  FROM fairshare.sreport_account_utilization_by_user(date_trunc('hour', now()) - interval '30 days',
                                                      date_trunc('hour', now()), 'Hours', 'cpu', 'proteus')
 ORDER BY line
 LIMIT 15;
\endif
