-- sreport with requeued jobs and windows that cut runs: the sreport-shaped
-- reports against what the real sreport -P of Slurm 22.05 printed
-- (test/fixtures/slurm/sreport_runs, captured by
-- test/slurm/capture_sreport_runs.sh; its header has the table of runs).
-- Jobs 2 and 4 were requeued once each: two runs, same job id.  The window
-- "part" starts while job 1 runs.  Every data line of every capture is
-- compared cell by cell, as in sql/sreport.sql.
\set fixture sreport_runs
\set with_resv false
\i sql/include/sreport_load.sql

-- Worked example: PrintJobCount over the window part, [H+1h, H+4h),
-- by job size (grouping 4,16,32):
--   0-3 CPUs    job 3 (2 CPUs), started in the window            1
--   4-15 CPUs   job 1 (4 CPUs), started at H+300 and still running
--               at H+1h: counted at the window's start (jobs_at_start) 1
--   16-31 CPUs  job 2 (16): run A ended at H+2700, before the window;
--               run B started at H+4500, in it                     1
--   >= 32 CPUs  job 4 (40): run A H+8100..H+9900 in the window; run B
--               starts at H+14500, after it                        1
-- Over all of it, [H, H+5h): 1, 1, 2 (both runs of job 2), 2 (of job 4).
-- The CPU time of the part: job 1 H+1h..H+5700 = 2100 s x 4 = 8400;
-- job 2 run B 4500 s x 16 = 72000; job 3 600 s x 2 = 1200; job 4 run A
-- 1800 s x 40 = 72000.
SELECT w.k, r.account, r.sizes
  FROM (VALUES ('part', 3600, 4 * 3600), ('all', 0, 5 * 3600)) AS w (k, a, b)
 CROSS JOIN LATERAL sreport_job_sizes_by_account(
          (SELECT to_timestamp(epoch + w.a) FROM win WHERE k = 'H'), (SELECT to_timestamp(epoch + w.b) FROM win WHERE k = 'H'),
          '{4,16,32}', 'seconds', NULL, false, true, 'oracle') r
 ORDER BY w.k DESC;

\i sql/include/sreport_compare.sql
