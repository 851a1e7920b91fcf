-- r_wlm_usage for every RWTH project and month (centre.sql: 10^4 projects
-- of 24 months at the default scale): each project's jobs cut at the month
-- boundaries, core-hours per month, the quota status of every month.
-- Baseline: one GROUP BY of the core-hours of the same jobs.  Target
-- (docs/performance.md): under 2 s.  The report reads each project's jobs once, in an
-- index-only scan (jobs (account, cluster, start_time) INCLUDE ...), and
-- splits them in C (rwth.c); the note gives how many jobs that is.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
-- the baseline of every measurement below: one GROUP BY of the same jobs
SELECT $q$SELECT a.allocation_id, sum(j.cpus * date_part('epoch', least(COALESCE(j.end_time, bench.as_of()), bench.as_of()) - j.start_time) / 3600)
       FROM fairshare.allocations a
       JOIN fairshare.jobs j ON j.cluster = a.cluster AND j.account = a.account
        AND j.start_time < bench.as_of()
      WHERE a.policy = 'rwth'
      GROUP BY a.allocation_id$q$ AS baseline \gset
SELECT count(*) AS n_projects FROM fairshare.allocations WHERE policy = 'rwth' \gset
\o /dev/null
SELECT bench.compare(format('r_wlm_usage_at: %s projects x 24 months', :n_projects),
  $q$SELECT * FROM fairshare.r_wlm_usage_at(bench.as_of())$q$,
  'GROUP BY sum of core-hours, same jobs', :'baseline',
  :reps, 2000, NULL, '< 2 s');
SELECT bench.compare(format('rwth_monthly_usage_at: %s projects x 24 months', :n_projects),
  $q$SELECT * FROM fairshare.rwth_monthly_usage_at(bench.as_of())$q$,
  'GROUP BY sum of core-hours, same jobs', :'baseline',
  :reps);
\o
SELECT count(*) AS rwth_jobs
  FROM fairshare.allocations a
  JOIN fairshare.jobs j ON j.cluster = a.cluster AND j.account = a.account AND j.start_time < bench.as_of()
 WHERE a.policy = 'rwth' \gset
SELECT bench.note(format('r_wlm_usage_at: %s projects x 24 months', :n_projects),
                  format('%s jobs of the projects', :rwth_jobs)) \g /dev/null

-- The same report with the rollups refreshed up to as_of (not timed): the
-- rolled hours from core_usage_* (docs/regulation.md#consumption-from-the-rollups);
-- then no rollups again (bench.clear_rollups), as the other files expect.
\o /dev/null
SELECT fairshare.refresh_rollups('bench', bench.as_of());
SELECT bench.compare(format('r_wlm_usage_at from the rollups: %s projects x 24 months', :n_projects),
  $q$SELECT * FROM fairshare.r_wlm_usage_at(bench.as_of())$q$,
  'GROUP BY sum of core-hours, same jobs', :'baseline',
  :reps, 1000, NULL, '< 1 s');
SELECT bench.clear_rollups();
\o
