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

CREATE FUNCTION @extschema@.import_nice(cluster text, squeue_output text)
RETURNS bigint LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
DECLARE
    line text;
    line_no bigint := 0;
    ids text[] := '{}';
    nices integer[] := '{}';
    v numeric;
    n bigint;
    n_lines bigint := 0;
BEGIN
    IF cluster IS NULL OR squeue_output IS NULL THEN
        RAISE EXCEPTION 'import_nice: cluster and squeue_output must not be NULL' USING ERRCODE = '22004',
              HINT = 'SELECT fairshare.import_nice(''oracle'', <the output of squeue -h -o ''%i|%y''>);';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster OPERATOR(pg_catalog.=) cluster) THEN
        RAISE EXCEPTION 'import_nice: there is no cluster "%"', cluster USING ERRCODE = '23503',
              HINT = 'INSERT INTO fairshare.clusters (cluster, ...) first.';
    END IF;
    -- a line that is not "JOBID|NICE" or whose nice Slurm cannot hold is
    -- rejected with its reason into import_rejects, and the others are
    -- read (docs/priority.md#nice)
    CREATE TEMP TABLE _fs_text_rejects (line_no bigint, job_id text, sqlstate text, reason text, line text) ON COMMIT DROP;
    FOREACH line IN ARRAY pg_catalog.regexp_split_to_array(squeue_output, E'\r?\n') LOOP
        line_no := line_no OPERATOR(pg_catalog.+) 1;
        CONTINUE WHEN pg_catalog.btrim(line) OPERATOR(pg_catalog.=) '';
        n_lines := n_lines OPERATOR(pg_catalog.+) 1;
        -- a job id as squeue prints it (123, 123_4, 123_[5-9%2], 123+1)
        -- and a signed integer
        IF line OPERATOR(pg_catalog.!~) '^\s*[0-9][0-9_+\[\],%-]*\s*\|\s*[-+]?[0-9]{1,12}\s*$' THEN
            INSERT INTO pg_temp._fs_text_rejects
            VALUES (line_no, NULL, '22P02', 'not "JOBID|NICE" (squeue -h -o ''%i|%y'')', line);
            CONTINUE;
        END IF;
        v := pg_catalog.split_part(line, '|', 2)::numeric;
        -- Slurm keeps nice within ±(NICE_OFFSET − 3)
        IF v OPERATOR(pg_catalog.<) -2147483645 OR v OPERATOR(pg_catalog.>) 2147483645 THEN
            INSERT INTO pg_temp._fs_text_rejects
            VALUES (line_no, pg_catalog.btrim(pg_catalog.split_part(line, '|', 1)), '22003',
                    pg_catalog.format('nice %s is out of range: Slurm''s nice lies between -2147483645 and 2147483645', v), line);
            CONTINUE;
        END IF;
        ids := ids OPERATOR(pg_catalog.||) pg_catalog.btrim(pg_catalog.split_part(line, '|', 1));
        nices := nices OPERATOR(pg_catalog.||) v::integer;
    END LOOP;
    -- the pending runs squeue lists whose nice changes (a job listed
    -- twice: its last line); running and ended runs, and jobs fairshare
    -- does not hold, unchanged
    WITH s AS (
        SELECT DISTINCT ON (x.job_id) x.job_id, x.nice
          FROM ROWS FROM (pg_catalog.unnest(ids), pg_catalog.unnest(nices)) WITH ORDINALITY AS x (job_id, nice, i)
         ORDER BY x.job_id, x.i DESC
    ), u AS (
        UPDATE @extschema@.jobs j SET nice = s.nice
          FROM s
         WHERE j.cluster OPERATOR(pg_catalog.=) cluster AND j.job_id OPERATOR(pg_catalog.=) s.job_id
           AND j.state OPERATOR(pg_catalog.=) 'PENDING' AND j.nice OPERATOR(pg_catalog.<>) s.nice
        RETURNING 1
    )
    SELECT count(*) INTO n FROM u;
    PERFORM @extschema@_internal._import_text_done('nice', cluster, NULL, n_lines, n);
    RETURN n;
END
$$;
COMMENT ON FUNCTION @extschema@.import_nice(text, text) IS
'Sets jobs.nice of a cluster''s pending runs from squeue -h -o ''%i|%y'' output (job id|nice, one a line); returns the number of pending runs whose nice changed. A malformed line, or a nice out of Slurm''s range, is rejected into import_rejects and the others are read.';
