-- ---------------------------------------------------------------------------
-- efficiency: what jobs did with what they were given, like seff (issue 14;
-- docs/reports.md#job-efficiency).
--
-- sacct's TotalCPU (CPU time of every step), MaxRSS (the largest resident
-- set of any task of any step), ReqMem and ReqTRES, and the energy
-- (ConsumedEnergyRaw) and GPU utilisation (gres/gpuutil of TRESUsageInAve)
-- where the export has them, read from the same staged export as
-- import_sacct, before it (import_sacct empties the staging table):
--
--   SELECT fairshare.import_stage();
--   \copy import_staging (line) FROM 'day.psv' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e', ENCODING 'SQL_ASCII')
--   SELECT fairshare.import_sacct_efficiency('oracle', 'UTC');
--   SELECT * FROM fairshare.import_sacct('oracle', 'UTC');
--
-- An export without those columns gives no row here and imports as before.
-- ---------------------------------------------------------------------------

CREATE TABLE @extschema@.job_efficiency (
    cluster              text NOT NULL,
    job_id               text NOT NULL,
    submit_time          timestamptz NOT NULL,
    user_name            text,
    account              text,
    total_cpu_secs       float8 CHECK (total_cpu_secs OPERATOR(pg_catalog.>=) 0),
    max_rss_mb           float8 CHECK (max_rss_mb OPERATOR(pg_catalog.>=) 0),
    req_mem_mb           float8 CHECK (req_mem_mb OPERATOR(pg_catalog.>=) 0),
    req_tres             text,
    energy_joules        float8 CHECK (energy_joules OPERATOR(pg_catalog.>=) 0),
    gpu_util_percent     float8 CHECK (gpu_util_percent OPERATOR(pg_catalog.>=) 0),
    PRIMARY KEY (cluster, job_id, submit_time)
);
COMMENT ON TABLE @extschema@.job_efficiency IS
'Per run (cluster, job id, submit time): sacct''s TotalCPU, the largest MaxRSS of its steps, ReqMem (MiB, for the whole job), ReqTRES, energy and GPU utilisation. Filled by import_sacct_efficiency.';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.job_efficiency', '');

-- sacct's [DD-][HH:]MM:SS[.fff] as seconds (NULL when empty).
CREATE FUNCTION @extschema@_internal._sacct_duration(v text)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m text[];
BEGIN
    IF v IS NULL OR v IN ('', 'INVALID', 'UNLIMITED', 'Partition_Limit') THEN
        RETURN NULL;
    END IF;
    m := regexp_match(v, '^(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$');
    IF m IS NULL THEN
        RAISE EXCEPTION 'sacct duration "%" is not [DD-][HH:]MM:SS[.fff]', v
            USING ERRCODE = '22007', HINT = 'TotalCPU as sacct -P prints it, e.g. 1-02:03:04 or 05:06.789.';
    END IF;
    RETURN COALESCE(m[1]::float8, 0) * 86400 + COALESCE(m[2]::float8, 0) * 3600 + m[3]::float8 * 60 + m[4]::float8;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._sacct_duration(text) IS
'A sacct duration ([DD-][HH:]MM:SS[.fff], e.g. TotalCPU) in seconds; NULL when empty; raises 22007 naming a value of another form.';

-- sacct's sizes (MaxRSS 2572K, ReqMem 16G; a bare number is bytes) in MiB.
CREATE FUNCTION @extschema@_internal._sacct_size_mb(v text)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m text[];
BEGIN
    IF v IS NULL OR v = '' THEN
        RETURN NULL;
    END IF;
    m := regexp_match(v, '^(\d+(?:\.\d+)?)([KMGTP]?)[nc]?$');
    IF m IS NULL THEN
        RAISE EXCEPTION 'sacct size "%" is not a number with an optional K, M, G, T or P', v
            USING ERRCODE = '22023', HINT = 'MaxRSS or ReqMem as sacct -P prints them, e.g. 2572K or 16G.';
    END IF;
    RETURN m[1]::float8 * CASE m[2] WHEN '' THEN 1.0 / 1048576 WHEN 'K' THEN 1.0 / 1024 WHEN 'M' THEN 1
                                    WHEN 'G' THEN 1024 WHEN 'T' THEN 1048576 ELSE 1073741824 END;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._sacct_size_mb(text) IS
'A sacct size (MaxRSS, ReqMem; K, M, G, T, P suffixes, a bare number in bytes, a trailing n or c ignored) in MiB; raises 22023 naming a value of another form.';

-- Reads the staged export (before import_sacct, which empties it): one
-- row per run, its steps folded in (a step belongs to the last line of its
-- job id above it, as sacct --duplicates prints each run before its
-- steps).  Replaces the rows of the same runs; returns how many.
CREATE FUNCTION @extschema@.import_sacct_efficiency(cluster text, time_zone text DEFAULT NULL,
                                                    staging text DEFAULT 'import_staging')
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel regclass := @extschema@_internal._import_staging(staging);
    tz text;
    header text[];
    n bigint;
BEGIN
    SELECT k.timezone INTO tz FROM @extschema@.clusters k WHERE k.cluster = import_sacct_efficiency.cluster;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'import_sacct_efficiency: cluster "%" does not exist', import_sacct_efficiency.cluster
            USING ERRCODE = '22023', HINT = 'Create it in fairshare.clusters first.';
    END IF;
    tz := COALESCE(time_zone, tz);
    EXECUTE format('SELECT string_to_array(lower(s.line), ''|'') FROM %s s ORDER BY s.line_no LIMIT 1', rel) INTO header;
    IF header IS NULL OR NOT (header && ARRAY['totalcpu', 'maxrss', 'reqmem', 'reqtres', 'consumedenergyraw', 'tresusageinave'])
       OR NOT 'jobid' = ANY (header) OR NOT 'submit' = ANY (header) THEN
        RETURN 0;       -- an export without them: nothing to read
    END IF;
    EXECUTE format($q$
        CREATE TEMP TABLE _fs_eff ON COMMIT DROP AS
        WITH cells AS (
            SELECT s.line_no, h.name, f.val
              FROM %s s
             CROSS JOIN LATERAL unnest(string_to_array(s.line, '|')) WITH ORDINALITY AS f (val, i)
              JOIN unnest($1) WITH ORDINALITY AS h (name, i) ON h.i = f.i
             WHERE s.line_no > (SELECT min(x.line_no) FROM %s x)
        ), l AS (
            SELECT c.line_no,
                   max(c.val) FILTER (WHERE c.name = 'jobid') AS jobid,
                   max(c.val) FILTER (WHERE c.name = 'submit') AS submit,
                   max(c.val) FILTER (WHERE c.name = 'user') AS user_name,
                   max(c.val) FILTER (WHERE c.name = 'account') AS account,
                   max(c.val) FILTER (WHERE c.name = 'allocnodes' OR c.name = 'nnodes') AS nodes,
                   max(c.val) FILTER (WHERE c.name = 'alloccpus') AS cpus,
                   max(c.val) FILTER (WHERE c.name = 'totalcpu') AS total_cpu,
                   max(c.val) FILTER (WHERE c.name = 'maxrss') AS max_rss,
                   max(c.val) FILTER (WHERE c.name = 'reqmem') AS req_mem,
                   max(c.val) FILTER (WHERE c.name = 'reqtres') AS req_tres,
                   max(c.val) FILTER (WHERE c.name = 'consumedenergyraw') AS energy,
                   max(c.val) FILTER (WHERE c.name = 'tresusageinave') AS usage_ave
              FROM cells c GROUP BY c.line_no
        ), owned AS (   -- each line with the line number of its run's job line
            SELECT l.*, split_part(l.jobid, '.', 1) AS job,
                   max(l.line_no) FILTER (WHERE strpos(l.jobid, '.') = 0)
                       OVER (PARTITION BY split_part(l.jobid, '.', 1) ORDER BY l.line_no) AS run_line
              FROM l WHERE NULLIF(l.jobid, '') IS NOT NULL
        )
        SELECT j.job AS job_id, timezone($2, j.submit::timestamp) AS submit_time, j.user_name, j.account,
               @extschema@_internal._sacct_duration(j.total_cpu) AS total_cpu_secs,
               (SELECT max(@extschema@_internal._sacct_size_mb(o.max_rss)) FROM owned o WHERE o.run_line = j.line_no) AS max_rss_mb,
               @extschema@_internal._sacct_size_mb(j.req_mem)
                 * CASE WHEN j.req_mem LIKE '%%c' THEN COALESCE(NULLIF(j.cpus, '')::float8, 1)
                        WHEN j.req_mem LIKE '%%n' THEN COALESCE(NULLIF(j.nodes, '')::float8, 1) ELSE 1 END AS req_mem_mb,
               NULLIF(j.req_tres, '') AS req_tres,
               NULLIF(j.energy, '')::float8 AS energy_joules,
               (SELECT max(substring(o.usage_ave FROM '(?:^|,)gres/gpuutil=([0-9.]+)')::float8) FROM owned o
                 WHERE o.run_line = j.line_no) AS gpu_util_percent
          FROM owned j
         WHERE j.line_no = j.run_line AND NULLIF(j.submit, '') IS NOT NULL AND j.submit <> 'Unknown'$q$, rel, rel)
    USING header, tz;
    INSERT INTO @extschema@.job_efficiency AS e (cluster, job_id, submit_time, user_name, account, total_cpu_secs,
                                                 max_rss_mb, req_mem_mb, req_tres, energy_joules, gpu_util_percent)
    SELECT DISTINCT ON (x.job_id, x.submit_time) import_sacct_efficiency.cluster, x.job_id, x.submit_time, x.user_name,
           x.account, x.total_cpu_secs, x.max_rss_mb, x.req_mem_mb, x.req_tres, x.energy_joules, x.gpu_util_percent
      FROM pg_temp._fs_eff x
    ON CONFLICT ON CONSTRAINT job_efficiency_pkey DO UPDATE
       SET user_name = EXCLUDED.user_name, account = EXCLUDED.account, total_cpu_secs = EXCLUDED.total_cpu_secs,
           max_rss_mb = EXCLUDED.max_rss_mb, req_mem_mb = EXCLUDED.req_mem_mb, req_tres = EXCLUDED.req_tres,
           energy_joules = EXCLUDED.energy_joules, gpu_util_percent = EXCLUDED.gpu_util_percent;
    GET DIAGNOSTICS n = ROW_COUNT;
    DROP TABLE pg_temp._fs_eff;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_sacct_efficiency(text, text, text) IS
'Reads TotalCPU, MaxRSS (largest of the steps), ReqMem, ReqTRES, ConsumedEnergyRaw and gres/gpuutil from a staged sacct export (call it before import_sacct, which empties the staging table) into job_efficiency; returns the runs written (0 for an export without those columns).';

-- seff per run: CPU efficiency = TotalCPU / (elapsed x allocated CPUs),
-- memory efficiency = MaxRSS / ReqMem; the core-hours the CPUs were
-- allocated and not used.
CREATE VIEW @extschema@.job_seff AS
SELECT j.cluster, j.job_id, j.submit_time, j.user_name, j.account, j.state, j.cpus,
       EXTRACT(epoch FROM j.end_time OPERATOR(pg_catalog.-) j.start_time)::float8 AS elapsed_secs,
       e.total_cpu_secs,
       CASE WHEN j.cpus OPERATOR(pg_catalog.>) 0 AND j.end_time OPERATOR(pg_catalog.>) j.start_time
            THEN e.total_cpu_secs OPERATOR(pg_catalog./)
                 (j.cpus OPERATOR(pg_catalog.*) EXTRACT(epoch FROM j.end_time OPERATOR(pg_catalog.-) j.start_time)::float8) END
           AS cpu_efficiency,
       e.max_rss_mb, e.req_mem_mb,
       CASE WHEN e.req_mem_mb OPERATOR(pg_catalog.>) 0 THEN e.max_rss_mb OPERATOR(pg_catalog./) e.req_mem_mb END AS mem_efficiency,
       GREATEST(j.cpus OPERATOR(pg_catalog.*) EXTRACT(epoch FROM j.end_time OPERATOR(pg_catalog.-) j.start_time)::float8
                OPERATOR(pg_catalog.-) e.total_cpu_secs, 0) OPERATOR(pg_catalog./) 3600 AS core_hours_wasted,
       e.energy_joules, e.gpu_util_percent
  FROM @extschema@.jobs j
  JOIN @extschema@.job_efficiency e ON e.cluster OPERATOR(pg_catalog.=) j.cluster AND e.job_id OPERATOR(pg_catalog.=) j.job_id
                                   AND e.submit_time OPERATOR(pg_catalog.=) j.submit_time
 WHERE j.start_time IS NOT NULL AND j.end_time IS NOT NULL;
COMMENT ON VIEW @extschema@.job_seff IS
'seff per ended run: CPU efficiency (TotalCPU / elapsed x CPUs), memory efficiency (MaxRSS / ReqMem), core-hours allocated and not used, energy and GPU utilisation.';

-- Per user in each account: core-hours, those wasted, and the share of
-- runs under 25 % CPU efficiency.
CREATE VIEW @extschema@.efficiency_by_user AS
SELECT s.cluster, s.account, s.user_name, pg_catalog.count(*) AS jobs,
       pg_catalog.sum(s.cpus OPERATOR(pg_catalog.*) s.elapsed_secs) OPERATOR(pg_catalog./) 3600 AS core_hours,
       pg_catalog.sum(s.core_hours_wasted) AS core_hours_wasted,
       pg_catalog.avg(CASE WHEN s.cpu_efficiency OPERATOR(pg_catalog.<) 0.25 THEN 1.0 ELSE 0.0 END)::float8 AS share_under_25_percent
  FROM @extschema@.job_seff s
 WHERE s.cpu_efficiency IS NOT NULL
 GROUP BY s.cluster, s.account, s.user_name;
COMMENT ON VIEW @extschema@.efficiency_by_user IS
'Per cluster, account and user: runs with a CPU efficiency, their core-hours, the core-hours wasted and the share of runs under 25 % CPU efficiency.';

CREATE VIEW @extschema@.efficiency_by_account AS
SELECT s.cluster, s.account, pg_catalog.count(*) AS jobs,
       pg_catalog.sum(s.cpus OPERATOR(pg_catalog.*) s.elapsed_secs) OPERATOR(pg_catalog./) 3600 AS core_hours,
       pg_catalog.sum(s.core_hours_wasted) AS core_hours_wasted,
       pg_catalog.avg(CASE WHEN s.cpu_efficiency OPERATOR(pg_catalog.<) 0.25 THEN 1.0 ELSE 0.0 END)::float8 AS share_under_25_percent
  FROM @extschema@.job_seff s
 WHERE s.cpu_efficiency IS NOT NULL
 GROUP BY s.cluster, s.account;
COMMENT ON VIEW @extschema@.efficiency_by_account IS
'Per cluster and account: runs with a CPU efficiency, their core-hours, the core-hours wasted and the share of runs under 25 % CPU efficiency.';
