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

-- sreport reservation Utilization (sreport_reservation_utilization), against
-- the captures resv_*.txt of commands.txt, each with its own -t, -T and
-- format=.  slurmdbd answers it from its reservation and job tables, not
-- the rollups: r_chem, its whole life H+1h..H+3h (7200 s) whatever the
-- window, and what its runs held of its one TRES, cpu, their own CPUs
-- times their seconds inside r_chem:
--   job 2   8 CPUs x (6000 - 4000) = 16000
--   job 4   2 CPUs x (7200 - 7000) =   400
--   job 3  16 CPUs x (10800 - 9000) = 28800  (its 1800 s after r_chem's end
--                                             are not r_chem's)
--   allocated 16000 + 400 + 28800 = 45200
--   r_chem's TRES-seconds (TRES Time) 7200 x 64 = 460800 (5-08:00:00);
--   idle 460800 - 45200 = 415600
-- The units: Minutes 45200 / 60 = 753.33 -> 753, 415600 / 60 = 6926.67 ->
-- 6927; Hours 45200 / 3600 = 12.56 -> 13, 415600 / 3600 = 115.44 -> 115;
-- Percent 45200 / 460800 = 9.809% -> 9.81%, 415600 / 460800 = 90.19%.
-- The windows: [H+3h, H+4h) begins at r_chem's end and lists it, whole
-- (slurmdbd takes a reservation ending at or after the window's start);
-- [H, H+1h) ends at its start and lists none.  -T mem: r_chem holds no
-- memory, no line.  (The association reports above charge r_chem's idle
-- time at its 64 CPUs: 89600 + 115200 = 204800, not 415600.)
-- The 24.11 captures have no resv_*.txt: the suite says so and compares
-- nothing (expected/24.11/sreport_resv.out).
CREATE TEMP TABLE resv_cmd (file text, command text);
\set q '\\copy resv_cmd FROM PROGRAM ''grep "^resv_" ' :f '/commands.txt || true'' (FORMAT csv, DELIMITER ''|'', QUOTE E''\\x1e'')'
:q
CREATE TEMP TABLE resv_captured (file text, n int, line text);
\set q '\\copy resv_captured FROM PROGRAM ''cd ' :f ' && for f in $(grep "^resv_" commands.txt | cut -d"|" -f1); do awk -v f="$f" ''''h { n++; print f "\\037" n "\\037" $0 } /^Cluster\\|/ && !h { h = 1; print f "\\037" 0 "\\037" $0 }'''' "$f.txt"; done'' (FORMAT csv, DELIMITER E''\\x1f'', QUOTE E''\\x1e'')'
:q
SELECT CASE WHEN count(*) = 0 THEN 'no capture of sreport reservation Utilization in ' || :'f'
            ELSE count(*) || ' captures of sreport reservation Utilization' END AS resv_captures
  FROM resv_cmd;
-- each command's arguments: start=, end=, -t (Minutes when absent, as
-- sreport), -T (every TRES of the reservation when absent), format=
-- (sreport's default: Cluster,Name,Start,End,TresName,Allocated,Idle)
CREATE TEMP TABLE resv_args AS
SELECT file, substring(command FROM 'start=(\S+)')::timestamptz AS s, substring(command FROM 'end=(\S+)')::timestamptz AS e,
       COALESCE(substring(command FROM ' -t (\S+)'), 'Minutes') AS units, substring(command FROM ' -T (\S+)') AS tres,
       string_to_array(COALESCE(substring(command FROM 'format=(\S+)'), 'Cluster,Name,Start,End,TresName,Allocated,Idle'), ',') AS fields
  FROM resv_cmd;
SELECT file, s - (SELECT to_timestamp(epoch) FROM win WHERE k = 'H') AS from_h,
       e - (SELECT to_timestamp(epoch) FROM win WHERE k = 'H') AS to_h, units, tres, array_to_string(fields, ',') AS fields
  FROM resv_args ORDER BY file;
CREATE TEMP TABLE resv_ours AS
SELECT a.file, 0 AS n,
       array_to_string(ARRAY(SELECT CASE f WHEN 'Cluster' THEN 'Cluster' WHEN 'Name' THEN 'Name' WHEN 'ReservationId' THEN 'Id'
                                           WHEN 'Start' THEN 'Start' WHEN 'End' THEN 'End' WHEN 'TresName' THEN 'TRES Name'
                                           WHEN 'TresCount' THEN 'TRES count' WHEN 'Allocated' THEN 'Allocated' WHEN 'Idle' THEN 'Idle'
                                           WHEN 'TotalTime' THEN 'TotalTime' WHEN 'TresTime' THEN 'TRES Time' WHEN 'Nodes' THEN 'Nodes'
                                           WHEN 'Flags' THEN 'Flags' END
                               FROM unnest(a.fields) WITH ORDINALITY AS x (f, o) ORDER BY o), '|') AS line
  FROM resv_args a
UNION ALL
SELECT a.file, r.line::int,
       array_to_string(ARRAY(SELECT CASE f WHEN 'Cluster' THEN r.cluster WHEN 'Name' THEN r.name WHEN 'ReservationId' THEN r.resv_id::text
                                           WHEN 'Start' THEN to_char(r.time_start, 'YYYY-MM-DD"T"HH24:MI:SS')
                                           WHEN 'End' THEN to_char(r.time_end, 'YYYY-MM-DD"T"HH24:MI:SS')
                                           WHEN 'TresName' THEN r.tres_name WHEN 'TresCount' THEN r.tres_count::text
                                           WHEN 'Allocated' THEN r.allocated WHEN 'Idle' THEN r.idle
                                           WHEN 'TotalTime' THEN r.total_time WHEN 'TresTime' THEN r.tres_time
                                           WHEN 'Nodes' THEN r.nodes WHEN 'Flags' THEN r.flags END
                               FROM unnest(a.fields) WITH ORDINALITY AS x (f, o) ORDER BY o), '|')
  FROM resv_args a
 CROSS JOIN LATERAL sreport_reservation_utilization(a.s, a.e, a.units, a.tres, 'oracle') r;
-- every capture: its lines and cells, and how many differ (0 each)
SELECT a.file, count(c.n) FILTER (WHERE c.n > 0) AS lines,
       COALESCE(sum(array_length(string_to_array(c.line, '|'), 1)) FILTER (WHERE c.n > 0), 0) AS cells,
       count(*) FILTER (WHERE o.line IS DISTINCT FROM c.line) AS differing
  FROM resv_args a
  LEFT JOIN resv_captured c ON c.file = a.file
  LEFT JOIN resv_ours o ON o.file = c.file AND o.n = c.n
 GROUP BY a.file ORDER BY a.file;
-- the differing lines, column headers included, and any line of ours
-- sreport did not print (none)
SELECT COALESCE(c.file, o.file) AS file, COALESCE(c.n, o.n) AS n, c.line AS sreport, o.line AS ours
  FROM resv_captured c
  FULL JOIN resv_ours o ON o.file = c.file AND o.n = c.n
 WHERE c.line IS DISTINCT FROM o.line
 ORDER BY 1, 2;
-- what it returns for the whole window, every field
SELECT * FROM sreport_reservation_utilization((SELECT to_timestamp(epoch) FROM win WHERE k = 'H'),
                                              (SELECT to_timestamp(epoch) FROM win WHERE k = 'E'), 'Seconds', cluster => 'oracle');

-- Beyond the capture, in a transaction rolled back: a run of r_chem still
-- going, counted up to r_chem's end (past), and an earlier run of job 2
-- (requeued), left out as slurmdbd keeps only the last submitted run of a
-- job id:
--   job 90 (4 CPUs, running since H+10000): 4 x (10800 - 10000) = 3200
--   job 2's earlier run (8 CPUs, H+3650..H+3700): would add 8 x 50 = 400
--   allocated 45200 + 3200 = 48400; idle 460800 - 48400 = 412400
BEGIN;
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time, start_time, end_time,
                  cpus, nodes, tres, resv_id)
SELECT 'oracle', '90', 'bob', 'chem', 'std', 'RUNNING', to_timestamp(epoch + 9900), to_timestamp(epoch + 9900),
       to_timestamp(epoch + 10000), NULL, 4, 1, 'cpu=4,mem=1G,node=1', 1 FROM win WHERE k = 'H'
UNION ALL
SELECT 'oracle', '2', 'alice', 'chem', 'std', 'REQUEUED', to_timestamp(epoch + 3600), to_timestamp(epoch + 3600),
       to_timestamp(epoch + 3650), to_timestamp(epoch + 3700), 8, 1, 'cpu=8,mem=2G,node=1', 1 FROM win WHERE k = 'H';
SELECT line, name, tres_name, allocated, idle
  FROM sreport_reservation_utilization((SELECT to_timestamp(epoch) FROM win WHERE k = 'H'),
                                       (SELECT to_timestamp(epoch) FROM win WHERE k = 'E'), 'Seconds', cluster => 'oracle');
ROLLBACK;

-- Bad arguments: each names the value, with its SQLSTATE and a hint
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT * FROM sreport_reservation_utilization(NULL, '2026-02-01');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sreport_reservation_utilization('2026-02-01', NULL);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sreport_reservation_utilization('2026-02-02', '2026-02-01');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sreport_reservation_utilization('2026-02-01 10:10', '2026-02-01 10:50');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sreport_reservation_utilization('2026-02-01', '2026-02-02', cluster => 'nowhere');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sreport_reservation_utilization('2026-02-01', '2026-02-02', 'fortnights');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM sreport_reservation_utilization('2026-02-01', '2026-02-02', tres => 'cpu,licenses');
\echo :LAST_ERROR_SQLSTATE
\set SHOW_CONTEXT errors

\i sql/include/sreport_compare.sql
