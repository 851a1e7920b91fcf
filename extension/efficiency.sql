-- ---------------------------------------------------------------------------
-- efficiency: what jobs did with what they were given, like seff
-- (docs/reports.md#job-efficiency).
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

-- sacct's [DD-][HH:]MM:SS[.fff] as seconds (NULL when empty or Unknown);
-- the parser the efficiency import reads TotalCPU with (import.c).
CREATE FUNCTION @extschema@_internal._sacct_duration(v text)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_sacct_duration'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sacct_duration(text) IS
'A sacct duration ([DD-][HH:]MM:SS[.fff], e.g. TotalCPU) in seconds; NULL when empty or Unknown; raises 22007 naming a value of another form.';

-- sacct's sizes (MaxRSS 2572K, ReqMem 16G; a bare number is bytes) in MiB;
-- the parser the efficiency import reads MaxRSS and ReqMem with (import.c).
CREATE FUNCTION @extschema@_internal._sacct_size_mb(v text)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_sacct_size_mb'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sacct_size_mb(text) IS
'A sacct size (MaxRSS, ReqMem; K, M, G, T, P suffixes, a bare number in bytes, a trailing n or c ignored) in MiB; raises 22023 naming a value of another form.';

-- What the efficiency parser returns for one staged line (import.c).
CREATE TYPE @extschema@_internal._sacct_efficiency_line AS (
    kind text, job_id text, step text, submit_time timestamptz, user_name text, account text,
    total_cpu_secs float8, max_rss_mb float8, req_mem_mb float8, req_tres text,
    energy_joules float8, gpu_util_percent float8, sqlstate text, reason text);

-- VOLATILE: a later header changes how the lines after it read, so the
-- lines must be passed in file order, in one scan.
CREATE FUNCTION @extschema@_internal._sacct_efficiency_line(line text, header text, time_zone text)
RETURNS @extschema@_internal._sacct_efficiency_line
AS 'MODULE_PATHNAME', 'fs_sacct_efficiency_line'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._sacct_efficiency_line(text, text, text) IS
'One line of an sacct --parsable2 export read for its efficiency columns: kind job, step, header, blank or reject (with sqlstate and reason); ReqMem in MiB for the whole job.';

-- Reads the staged export (before import_sacct, which empties it): one
-- row per run, its steps folded in (a step belongs to the last line of its
-- job id above it, as sacct --duplicates prints each run before its
-- steps).  Replaces the rows of the same runs; returns how many.
--
-- Each line is parsed once, in C, in file order (_sacct_efficiency_line):
-- a later header switches the columns, and a line with an invalid byte or
-- a value that cannot be read (TotalCPU "abc", MaxRSS "lots") is rejected
-- alone, with its reason, into import_rejects as import_sacct does; the
-- rest is read (docs/reports.md#job-efficiency).  The steps are folded by
-- one window over the lines and one aggregate per run: linear in the lines
-- (docs/performance.md#efficiency-import).
CREATE FUNCTION @extschema@.import_sacct_efficiency(cluster text, time_zone text DEFAULT NULL,
                                                    staging text DEFAULT 'import_staging')
RETURNS bigint LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel regclass := @extschema@_internal._import_staging(staging);
    tz text;
    hdr text;
    hdr_no bigint;
    header text[];
    imp_id bigint;
    n_read bigint;
    n_skipped bigint;
    n_rejected bigint;
    n bigint;
BEGIN
    SELECT k.timezone INTO tz FROM @extschema@.clusters k WHERE k.cluster = import_sacct_efficiency.cluster;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'import_sacct_efficiency: cluster "%" does not exist', import_sacct_efficiency.cluster
            USING ERRCODE = '22023', HINT = 'Create it in fairshare.clusters first.';
    END IF;
    tz := @extschema@_internal._import_time_zone(COALESCE(time_zone, tz));
    -- the export's header: its first non-blank line
    EXECUTE format('SELECT s.line_no, s.line FROM %s s WHERE s.line <> '''' ORDER BY s.line_no LIMIT 1', rel)
       INTO hdr_no, hdr;
    header := string_to_array(lower(rtrim(hdr, E'\r')), '|');
    IF header IS NULL OR NOT (header && ARRAY['totalcpu', 'maxrss', 'reqmem', 'reqtres', 'consumedenergyraw', 'tresusageinave'])
       OR NOT 'jobid' = ANY (header) OR NOT 'submit' = ANY (header) THEN
        RETURN 0;       -- an export without them: nothing to read
    END IF;
    -- a header naming one of the columns read here twice cannot be read:
    -- said, and nothing read, so that import_sacct after it still runs
    -- (it reads other columns)
    IF EXISTS (SELECT FROM unnest(header) h
                WHERE h = ANY (ARRAY['jobid', 'submit', 'user', 'account', 'allocnodes', 'nnodes', 'alloccpus',
                                     'totalcpu', 'maxrss', 'reqmem', 'reqtres', 'consumedenergyraw', 'tresusageinave'])
                GROUP BY h HAVING count(*) > 1) THEN
        RAISE WARNING 'import_sacct_efficiency: the header names a column it reads twice: nothing read'
            USING HINT = 'List each column once in sacct -o.';
        RETURN 0;
    END IF;

    INSERT INTO @extschema@.imports (source, cluster, time_zone, staging)
    VALUES ('sacct_efficiency', import_sacct_efficiency.cluster, tz, rel::text)
    RETURNING imports.import_id INTO imp_id;

    IF to_regclass('pg_temp._fs_eff_lines') IS NOT NULL THEN DROP TABLE pg_temp._fs_eff_lines; END IF;
    EXECUTE format($q$
        CREATE TEMP TABLE _fs_eff_lines AS
        SELECT q.line_no, (q.r).*, CASE WHEN (q.r).kind = 'reject' THEN q.line END AS line
          FROM (SELECT s.line_no, s.line, @extschema@_internal._sacct_efficiency_line(s.line, $1, $2) AS r
                  FROM (SELECT x.line_no, x.line FROM %s x WHERE x.line_no > $3 ORDER BY x.line_no OFFSET 0) s
                OFFSET 0) q$q$, rel)
    USING hdr, tz, hdr_no;
    GET DIAGNOSTICS n_read = ROW_COUNT;

    INSERT INTO @extschema@.job_efficiency AS e (cluster, job_id, submit_time, user_name, account, total_cpu_secs,
                                                 max_rss_mb, req_mem_mb, req_tres, energy_joules, gpu_util_percent)
    SELECT DISTINCT ON (r.job_id, r.submit_time) import_sacct_efficiency.cluster, r.job_id, r.submit_time,
           r.user_name, r.account, r.total_cpu_secs, r.max_rss_mb, r.req_mem_mb, r.req_tres, r.energy_joules,
           r.gpu_util_percent
      FROM (SELECT j.line_no, j.job_id, j.submit_time, j.user_name, j.account, j.total_cpu_secs,
                   max(o.max_rss_mb) AS max_rss_mb, j.req_mem_mb, j.req_tres, j.energy_joules,
                   max(o.gpu_util_percent) AS gpu_util_percent
              FROM (SELECT l.line_no, l.max_rss_mb, l.gpu_util_percent,
                           -- the line number of its run's job line
                           max(l.line_no) FILTER (WHERE l.kind = 'job')
                               OVER (PARTITION BY l.job_id ORDER BY l.line_no) AS run_line
                      FROM pg_temp._fs_eff_lines l WHERE l.kind IN ('job', 'step')) o
              JOIN pg_temp._fs_eff_lines j ON j.line_no = o.run_line
             WHERE j.submit_time IS NOT NULL
             GROUP BY j.line_no, j.job_id, j.submit_time, j.user_name, j.account, j.total_cpu_secs,
                      j.req_mem_mb, j.req_tres, j.energy_joules) r
     ORDER BY r.job_id, r.submit_time, r.line_no DESC
    ON CONFLICT ON CONSTRAINT job_efficiency_pkey DO UPDATE
       SET user_name = EXCLUDED.user_name, account = EXCLUDED.account, total_cpu_secs = EXCLUDED.total_cpu_secs,
           max_rss_mb = EXCLUDED.max_rss_mb, req_mem_mb = EXCLUDED.req_mem_mb, req_tres = EXCLUDED.req_tres,
           energy_joules = EXCLUDED.energy_joules, gpu_util_percent = EXCLUDED.gpu_util_percent;
    GET DIAGNOSTICS n = ROW_COUNT;

    n_rejected := @extschema@_internal._import_rejects(imp_id, 'pg_temp._fs_eff_lines', rel, false);
    SELECT count(*) FILTER (WHERE l.kind IN ('header', 'blank')) INTO n_skipped FROM pg_temp._fs_eff_lines l;
    -- (the header line counted as read and skipped, as import_sacct counts it)
    UPDATE @extschema@.imports i
       SET lines_read = n_read + 1, imported = n, skipped = n_skipped + 1, rejected = n_rejected
     WHERE i.import_id = imp_id;
    IF n_rejected > 0 THEN
        RAISE WARNING 'import_sacct_efficiency: % line(s) rejected, the other lines read (import %)', n_rejected, imp_id
            USING HINT = format('SELECT * FROM fairshare.import_rejects WHERE import_id = %s;', imp_id);
    END IF;
    DROP TABLE pg_temp._fs_eff_lines;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_sacct_efficiency(text, text, text) IS
'Reads TotalCPU, MaxRSS (largest of the steps), ReqMem, ReqTRES, ConsumedEnergyRaw and gres/gpuutil from a staged sacct export (call it before import_sacct, which empties the staging table) into job_efficiency; a line it cannot read is rejected into import_rejects and the others are read; returns the runs written (0 for an export without those columns).';

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
