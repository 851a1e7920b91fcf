-- A late import into the demo's "oracle" cluster (test/demo/report_import.sql
-- made it), into hours already rolled up: a run that was not there
-- (9001: 8 CPUs from 10:05 to 12:35, 9000 s) and a longer end for run 1
-- (17:26:22 -> 18:26:22: 60 s -> 3660 s, its 8 CPUs).  Printed: what the
-- import did and the hours it marked for refresh_rollups, merged per cluster.
SET timezone = 'UTC';
SELECT fairshare.import_stage() \gset
INSERT INTO import_staging (line) VALUES
('JobID|JobName|User|Account|Partition|QOS|AllocCPUS|ReqMem|ReqTRES|AllocTRES|Submit|Eligible|Start|End|Elapsed|ElapsedRaw|State|ExitCode|Priority'),
('9001|late_alice|alice|cistem|big|normal|8|16G|billing=40,cpu=8,mem=16G,node=1|billing=40,cpu=8,mem=16G,node=1|2026-11-21T10:00:00|2026-11-21T10:00:00|2026-11-21T10:05:00|2026-11-21T12:35:00|02:30:00|9000|COMPLETED|0:0|32812'),
('1|use_alice_cistem|alice|cistem|big|normal|8|16G|billing=40,cpu=8,mem=16G,node=1|billing=40,cpu=8,mem=16G,node=1|2026-11-21T17:25:21|2026-11-21T17:25:21|2026-11-21T17:25:22|2026-11-21T18:26:22|01:01:00|3660|COMPLETED|0:0|32812');
SELECT 'import', lines_read, imported, updated, rejected FROM fairshare.import_sacct('oracle', 'UTC');
SELECT 'marks', x.cluster, range_agg(x.hours) FROM fairshare.rollup_dirty x GROUP BY 2 ORDER BY 2;
