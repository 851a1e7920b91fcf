-- The usage rollups and the reports read from them (docs/reports.md), one
-- labelled row per line for test/citus/compare.pl: every rollup table (and
-- rollup_state but for the instant of the refresh, the core rollups and
-- the RWTH months read from them), then the sreport-shaped
-- reports and account_usage_monthly over every hour rolled up, [t0, t1)
-- (psql -v t0=... -v t1=...).
SET timezone = 'UTC';
SELECT 'usage_hourly', x.* FROM fairshare.usage_hourly x ORDER BY x::text;
SELECT 'usage_daily', x.* FROM fairshare.usage_daily x ORDER BY x::text;
SELECT 'usage_monthly', x.* FROM fairshare.usage_monthly x ORDER BY x::text;
SELECT 'usage_monthly_by_account', x.* FROM fairshare.usage_monthly_by_account x ORDER BY x::text;
SELECT 'cluster_usage_hourly', x.* FROM fairshare.cluster_usage_hourly x ORDER BY x::text;
SELECT 'cluster_usage_daily', x.* FROM fairshare.cluster_usage_daily x ORDER BY x::text;
SELECT 'cluster_usage_monthly', x.* FROM fairshare.cluster_usage_monthly x ORDER BY x::text;
SELECT 'rollup_state', x.cluster, x.rolled_from, x.rolled_to, x.retained_to FROM fairshare.rollup_state x ORDER BY 2;
SELECT 'rollup_dirty', x.cluster, x.hours FROM fairshare.rollup_dirty x ORDER BY 2, 3;
-- the core rollups of the GENCI and RWTH reports, and the RWTH months read
-- from them and from the runs (docs/regulation.md#consumption-from-the-rollups)
SELECT 'core_usage_hourly', x.* FROM fairshare.core_usage_hourly x ORDER BY x::text;
SELECT 'core_usage_daily', x.* FROM fairshare.core_usage_daily x ORDER BY x::text;
SELECT 'core_usage_monthly', x.* FROM fairshare.core_usage_monthly x ORDER BY x::text;
SELECT 'core_rollup_state', x.* FROM fairshare.core_rollup_state x ORDER BY x::text;
SELECT 'rwth_monthly_usage_at', x.* FROM fairshare.rwth_monthly_usage_at(:'t1') x ORDER BY x::text;
SELECT 'sreport_cluster_utilization', x.* FROM fairshare.sreport_cluster_utilization(:'t0', :'t1') x ORDER BY x::text;
SELECT 'sreport_cluster_utilization hours billing', x.*
  FROM fairshare.sreport_cluster_utilization(:'t0', :'t1', 'hours', 'billing') x ORDER BY x::text;
SELECT 'sreport_account_utilization_by_user', x.* FROM fairshare.sreport_account_utilization_by_user(:'t0', :'t1') x ORDER BY x::text;
SELECT 'sreport_account_utilization_by_user tree', x.*
  FROM fairshare.sreport_account_utilization_by_user(:'t0', :'t1', tree => true) x ORDER BY x::text;
SELECT 'sreport_job_sizes_by_account', x.* FROM fairshare.sreport_job_sizes_by_account(:'t0', :'t1') x ORDER BY x::text;
SELECT 'account_usage_monthly', x.* FROM fairshare.account_usage_monthly(:'t0', :'t1') x ORDER BY x::text;
