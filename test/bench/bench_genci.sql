-- The GENCI regulation procedure over the centre's GENCI allocations
-- (centre.sql: 10^4 at the default scale, one-year periods starting on the
-- 1st of each month from 2025-10 to 2026-09, half of them in the monthly
-- regime).  First the check days up to 2026-08-31 are applied (the runs of
-- the previous months, not timed); the run timed is the one of 2026-09-15,
-- the monthly check day of every allocation in the monthly regime plus the
-- mid-term checks of 2026-09-01; each round is rolled back.  Baseline: one
-- GROUP BY of the core-hours of the same allocations' jobs in their periods.
-- Target (docs/performance.md): under 2 s.  Then genci_report_at on the
-- same day (target under 1 s).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
-- the baseline of every measurement below: one GROUP BY of the same jobs
SELECT $q$SELECT a.allocation_id, sum(j.cpus * date_part('epoch', least(COALESCE(j.end_time, '2026-09-15'), '2026-09-15') - j.start_time) / 3600)
       FROM fairshare.allocations a
       JOIN fairshare.jobs j ON j.cluster = a.cluster AND j.account = a.account
        AND j.start_time >= a.period_start AND j.start_time < '2026-09-15'
      WHERE a.policy = 'genci'
      GROUP BY a.allocation_id$q$ AS baseline \gset
SELECT count(*) AS n_allocs FROM fairshare.allocations WHERE policy = 'genci' \gset
\timing on
CALL fairshare.apply_genci_regulation('2026-08-31', 'bench');
\timing off
SELECT count(*) AS check_days_before FROM fairshare.regulation_checks;
\o /dev/null
SELECT bench.compare(format('GENCI regulation run: %s allocations', :n_allocs),
  $q$CALL fairshare.apply_genci_regulation('2026-09-15', 'bench')$q$,
  'GROUP BY sum of core-hours, same jobs', :'baseline',
  :reps, 2000, NULL, '< 2 s');
-- The report of every allocation on the run's day (every consumption read
-- in one query, _allocation_consumptions), from the runs.
SELECT bench.compare(format('genci_report_at: %s allocations', :n_allocs),
  $q$SELECT count(*) FROM fairshare.genci_report_at('2026-09-15')$q$,
  'GROUP BY sum of core-hours, same jobs', :'baseline',
  :reps, 1000, NULL, '< 1 s');
\o
SELECT bench.note(format('GENCI regulation run: %s allocations', :n_allocs),
                  format('%s check days evaluated per run', count(*)))
  FROM fairshare.allocations a
 CROSS JOIN LATERAL fairshare_internal._genci_check_days(a.period_start, a.period_end,
                      CASE WHEN a.hours >= 1e6 THEN 'monthly' ELSE 'mid-term' END, 'genci') d
 WHERE a.policy = 'genci' AND d.check_day BETWEEN '2026-09-01' AND '2026-09-15' \g /dev/null

-- The same run with the rollups refreshed up to the run's day (not timed):
-- the consumption of the rolled hours comes from core_usage_*
-- (docs/regulation.md#consumption-from-the-rollups); then no rollups again
-- (bench.clear_rollups), as the other files expect.
\o /dev/null
SELECT fairshare.refresh_rollups('bench', '2026-09-15');
SELECT bench.compare(format('GENCI regulation run from the rollups: %s allocations', :n_allocs),
  $q$CALL fairshare.apply_genci_regulation('2026-09-15', 'bench')$q$,
  'GROUP BY sum of core-hours, same jobs', :'baseline',
  :reps, 1000, NULL, '< 1 s');
SELECT bench.compare(format('genci_report_at from the rollups: %s allocations', :n_allocs),
  $q$SELECT count(*) FROM fairshare.genci_report_at('2026-09-15')$q$,
  'GROUP BY sum of core-hours, same jobs', :'baseline',
  :reps, 1000, NULL, '< 1 s');
SELECT bench.clear_rollups();
\o
