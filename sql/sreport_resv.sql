-- sreport with jobs in a reservation: the sreport-shaped reports against
-- what the real sreport -P of Slurm 22.05 printed
-- (test/fixtures/slurm/sreport_resv, captured by
-- test/slurm/capture_sreport_resv.sh; its header has the table of jobs).
-- Jobs 2, 3 and 4 ran in reservation r_chem (64 CPUs, H+1h..H+3h, for the
-- account chem); job 3 ran on after it ended.
\set fixture sreport_resv
\set with_resv true
\i sql/include/sreport_load.sql

-- Worked example, CPU-seconds, as slurmdbd 22.05 rolls the hours up:
--   H+0  job 1 (4 CPUs) 19:10-19:40: allocated 1800 x 4 = 7200; it waited
--        300 s: planned 300 x 4 = 1200
--   H+1  r_chem's whole hour is allocated, 3600 x 64 = 230400; the runs in
--        it add nothing to the cluster (job 4's wait is not planned).
--        Idle in r_chem: the runs' seconds inside it, times r_chem's 64
--        CPUs (not the runs' CPUs): job 2 2000 s, job 4 200 s, so
--        (3600 - 2200) x 64 = 89600, charged to chem's own association
--        (r_chem's one association)
--   H+2  230400 allocated; job 3 1800 s inside: (3600 - 1800) x 64 = 115200
--   H+3  job 3 ran 22:00-22:30 outside r_chem, and slurmdbd counts it
--        nowhere in the cluster's time (allocated 0), only for bob/chem
-- chem's usage: its own 89600 + 115200 = 204800, alice (jobs 2 and 4)
-- 2000 x 8 + 200 x 2 = 16400, bob (job 3) 3600 x 16 = 57600.
SELECT ((extract(epoch FROM u.period_start)::bigint - (SELECT epoch FROM win WHERE k = 'H')) / 3600)::int AS hour, u.account, u.user_name,
       u.partition, u.cpus, u.cpu_secs
  FROM usage_hourly u WHERE u.cluster = 'oracle' ORDER BY 1, 2, 3, 4, 5;
SELECT ((extract(epoch FROM c.period_start)::bigint - (SELECT epoch FROM win WHERE k = 'H')) / 3600)::int AS hour, c.alloc_secs, c.planned_secs, c.idle_secs
  FROM cluster_usage_hourly c WHERE c.cluster = 'oracle' AND c.tres = 'cpu' ORDER BY 1;

\i sql/include/sreport_compare.sql
