-- A late import into the retention scenario's cluster hx
-- (test/citus/retention.sql): one run of ann in account a, job :job_id,
-- 4 CPUs from :t_start to :t_end (psql -v job_id=... -v t_start=... -v
-- t_end=..., UTC, sacct's format).  Printed: what the import did and the
-- lines it rejected, with their SQLSTATE and reason.
SET timezone = 'UTC';
SELECT fairshare.import_stage() \gset
INSERT INTO import_staging (line) VALUES
('JobID|JobName|User|Account|Partition|QOS|AllocCPUS|ReqMem|ReqTRES|AllocTRES|Submit|Eligible|Start|End|Elapsed|ElapsedRaw|State|ExitCode|Priority'),
(format('%s|late|ann|a|p|normal|4|4G|billing=4,cpu=4,mem=4G,node=1|billing=4,cpu=4,mem=4G,node=1|%s|%s|%s|%s|02:00:00|7200|COMPLETED|0:0|1000',
        :'job_id', :'t_start', :'t_start', :'t_start', :'t_end'));
SELECT 'import', lines_read, imported, updated, rejected FROM fairshare.import_sacct('hx', 'UTC');
SELECT 'rejects', r.job_id, r.sqlstate, r.reason
  FROM fairshare.import_rejects r WHERE r.import_id = (SELECT max(i.import_id) FROM fairshare.imports i) ORDER BY r.line_no;
