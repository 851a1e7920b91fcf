-- ---------------------------------------------------------------------------
-- Nice: the nice value of pending jobs, from squeue.
--
-- sacct does not print a job's Nice and slurmdbd 22.05 does not store it,
-- so neither import_sacct nor sync_slurmdbd has it: jobs.nice is 0 unless
-- set.  import_nice reads squeue's job id and nice, one job a line:
--
--   squeue -h -t PENDING -o '%i|%y' > nice.txt
--   SELECT fairshare.import_nice('oracle', pg_read_file(...) or psql's :'var');
--
-- and sets jobs.nice of the pending runs it names (docs/priority.md).
-- ---------------------------------------------------------------------------

-- What the squeue reader returns for one line (import.c): kind nice,
-- blank, or reject with its sqlstate and reason.
CREATE TYPE @extschema@_internal._squeue_nice_line AS (
    kind text, job_id text, nice integer, sqlstate text, reason text);

CREATE FUNCTION @extschema@_internal._squeue_nice_line(line text)
RETURNS @extschema@_internal._squeue_nice_line
AS 'MODULE_PATHNAME', 'fs_squeue_nice_line'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@_internal._squeue_nice_line(text) IS
'One line of squeue -h -o ''%i|%y'' output: kind nice (job_id, nice), blank or reject (with sqlstate and reason).';

CREATE FUNCTION @extschema@.import_nice(cluster text, squeue_output text)
RETURNS bigint LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    n bigint;
    n_lines bigint;
BEGIN
    -- each line read once, in C (_squeue_nice_line), in one scan: a line
    -- that is not "JOBID|NICE" or whose nice Slurm cannot hold is rejected
    -- with its reason into import_rejects, and the others are read
    -- (docs/priority.md#nice); the pending runs the others name get their
    -- nice
    IF cluster IS NULL OR squeue_output IS NULL THEN
        RAISE EXCEPTION 'import_nice: cluster and squeue_output must not be NULL' USING ERRCODE = '22004',
              HINT = 'SELECT fairshare.import_nice(''oracle'', <the output of squeue -h -o ''%i|%y''>);';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster OPERATOR(pg_catalog.=) cluster) THEN
        RAISE EXCEPTION 'import_nice: there is no cluster "%"', cluster USING ERRCODE = '23503',
              HINT = 'INSERT INTO fairshare.clusters (cluster, ...) first.';
    END IF;
    CREATE TEMP TABLE _fs_nice_lines ON COMMIT DROP AS
    SELECT q.line_no, (q.r).*, q.line
      FROM (SELECT x.line_no, x.line, @extschema@_internal._squeue_nice_line(x.line) AS r
              FROM pg_catalog.string_to_table(pg_catalog.replace(squeue_output, E'\r\n', E'\n'), E'\n')
                   WITH ORDINALITY AS x (line, line_no)
            OFFSET 0) q;
    CREATE TEMP TABLE _fs_text_rejects ON COMMIT DROP AS
    SELECT x.line_no, x.job_id, x.sqlstate, x.reason, x.line
      FROM pg_temp._fs_nice_lines x WHERE x.kind OPERATOR(pg_catalog.=) 'reject';
    SELECT count(*) INTO n_lines FROM pg_temp._fs_nice_lines x WHERE x.kind OPERATOR(pg_catalog.<>) 'blank';
    -- the pending runs squeue lists whose nice changes (a job listed
    -- twice: its last line); running and ended runs, and jobs fairshare
    -- does not hold, unchanged
    WITH s AS (
        SELECT DISTINCT ON (x.job_id) x.job_id, x.nice
          FROM pg_temp._fs_nice_lines x WHERE x.kind OPERATOR(pg_catalog.=) 'nice'
         ORDER BY x.job_id, x.line_no DESC
    ), u AS (
        UPDATE @extschema@.jobs j SET nice = s.nice
          FROM s
         WHERE j.cluster OPERATOR(pg_catalog.=) cluster AND j.job_id OPERATOR(pg_catalog.=) s.job_id
           AND j.state OPERATOR(pg_catalog.=) 'PENDING' AND j.nice OPERATOR(pg_catalog.<>) s.nice
        RETURNING 1
    )
    SELECT count(*) INTO n FROM u;
    PERFORM @extschema@_internal._import_text_done('nice', cluster, NULL, n_lines, n);
    DROP TABLE pg_temp._fs_nice_lines;
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_nice(text, text) IS
'Sets jobs.nice of a cluster''s pending runs from squeue -h -o ''%i|%y'' output (job id|nice, one a line); returns the number of pending runs whose nice changed. A malformed line, or a nice out of Slurm''s range, is rejected into import_rejects and the others are read.';
