-- The chained checkpoint sparse against the same checkpoint written full
-- (docs/performance.md#sparse-checkpoints-at-105-associations), in turn in
-- one session, on the benchmark centre (test/bench/centre.sql): a full
-- checkpoint 5 minutes before bench.as_of(), then rounds of the checkpoint
-- at bench.as_of() chained from it, each rolled back (bench.call_ms).  For
-- the full rounds the sparse plan (_checkpoint_sparse_plan) is replaced,
-- inside the rolled-back round, by one that makes no cluster sparse; for
-- the sparse rounds by its own definition, so that both pay the same
-- replacement and replanning.  Before timing, the two are compared
-- association by association as the readers read them (_checkpoint_rows):
-- the same associations and jobs, the usage within 1e-12 relative.
-- Not run by run.sh.
--   psql -v reps=7 -f test/bench/checkpoint_ab.sql
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\if :{?reps}
\else
\set reps 7
\endif
DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench';
CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '5 minutes', from_jobs => true);
CREATE TEMP TABLE ab_def AS
SELECT pg_get_functiondef('fairshare_internal._checkpoint_sparse_plan(text, timestamptz)'::regprocedure) AS sparse,
       $d$CREATE OR REPLACE FUNCTION fairshare_internal._checkpoint_sparse_plan(cluster text, as_of timestamptz)
          RETURNS TABLE (cluster text, prev timestamptz, prev_sparse boolean, base timestamptz, base_decay float8)
          LANGUAGE sql STABLE PARALLEL SAFE
          BEGIN ATOMIC SELECT NULL::text, NULL::timestamptz, NULL::boolean, NULL::timestamptz, NULL::float8 WHERE false; END$d$ AS full;
CREATE OR REPLACE PROCEDURE pg_temp.ab_checkpoint(variant text) LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE (SELECT CASE variant WHEN 'full' THEN d.full ELSE d.sparse END FROM ab_def d);
    CALL fairshare.checkpoint_usage('bench', bench.as_of());
END $$;
-- the two compared, as the readers read them
CREATE TEMP TABLE ab_rows (variant text, account text, user_name text, raw_usage float8, jobs bigint, written bigint);
-- (each in a subtransaction rolled back; what it read is kept in a
-- variable, which the rollback leaves)
DO $$
DECLARE
    v text;
    got jsonb;
BEGIN
    FOREACH v IN ARRAY ARRAY['sparse', 'full'] LOOP
        BEGIN
            CALL pg_temp.ab_checkpoint(v);
            SELECT jsonb_agg(jsonb_build_object('account', r.account, 'user_name', r.user_name,
                                                'raw_usage', r.raw_usage, 'jobs', r.jobs,
                                                'written', (SELECT count(*) FROM fairshare.usage_checkpoint_rows w
                                                             WHERE w.cluster = 'bench' AND w.as_of = bench.as_of())))
              INTO got
              FROM fairshare_internal._checkpoint_rows('{bench}', ARRAY[bench.as_of()]) r;
            RAISE SQLSTATE 'XB001';
        EXCEPTION WHEN SQLSTATE 'XB001' THEN NULL;
        END;
        INSERT INTO ab_rows
        SELECT v, x.account, x.user_name, x.raw_usage, x.jobs, x.written
          FROM jsonb_to_recordset(got) AS x (account text, user_name text, raw_usage float8, jobs bigint, written bigint);
    END LOOP;
END $$;
SELECT count(*) FILTER (WHERE s.variant IS NOT NULL) AS sparse_associations,
       count(*) FILTER (WHERE f.variant IS NOT NULL) AS full_associations,
       max(s.written) AS sparse_rows_written, max(f.written) AS full_rows_written,
       count(*) FILTER (WHERE s.variant IS NULL OR f.variant IS NULL OR s.jobs <> f.jobs
                               OR abs(s.raw_usage - f.raw_usage) > 1e-12 * GREATEST(abs(f.raw_usage), 1e-300)) AS differ,
       max(abs(s.raw_usage - f.raw_usage) / NULLIF(abs(f.raw_usage), 0)) AS largest_relative_difference
  FROM (SELECT * FROM ab_rows WHERE variant = 'sparse') s
  FULL JOIN (SELECT * FROM ab_rows WHERE variant = 'full') f USING (account, user_name) \gset ab_
\echo sparse :ab_sparse_associations associations (:ab_sparse_rows_written rows written), full :ab_full_associations (:ab_full_rows_written written); differ :ab_differ, largest relative difference :ab_largest_relative_difference
SELECT :ab_differ = 0 AND :ab_sparse_associations = :ab_full_associations AS ab_equal \gset
\if :ab_equal
\else
\echo 'the sparse checkpoint differs from the full one: not timed'
\quit 1
\endif
-- warm-up, then the rounds in turn
SELECT bench.call_ms($$CALL pg_temp.ab_checkpoint('sparse')$$) IS NOT NULL AS warm \gset
SELECT bench.call_ms($$CALL pg_temp.ab_checkpoint('full')$$) IS NOT NULL AS warm \gset
CREATE TEMP TABLE ab_ms (round int, sparse float8, full_ float8);
INSERT INTO ab_ms
SELECT i, bench.call_ms($$CALL pg_temp.ab_checkpoint('sparse')$$), bench.call_ms($$CALL pg_temp.ab_checkpoint('full')$$)
  FROM generate_series(1, :reps) i;
SELECT round, round(sparse::numeric, 1) AS sparse_ms, round(full_::numeric, 1) AS full_ms,
       round((sparse / full_)::numeric, 3) AS ratio FROM ab_ms ORDER BY round;
SELECT round(bench.median(array_agg(sparse))::numeric, 1) AS sparse_median_ms,
       round(bench.median(array_agg(full_))::numeric, 1) AS full_median_ms,
       round(bench.median(array_agg(sparse / full_))::numeric, 3) AS median_ratio,
       to_char(now(), 'YYYY-MM-DD HH24:MI') AS at
  FROM ab_ms;
-- the WAL each writes (one round each, rolled back: the WAL is written all
-- the same)
CREATE TEMP TABLE ab_wal (variant text, wal_bytes numeric);
DO $$
DECLARE
    v text;
    l0 pg_lsn;
    bytes numeric;
BEGIN
    FOREACH v IN ARRAY ARRAY['sparse', 'full'] LOOP
        BEGIN
            l0 := pg_current_wal_insert_lsn();
            CALL pg_temp.ab_checkpoint(v);
            bytes := pg_current_wal_insert_lsn() - l0;
            RAISE SQLSTATE 'XB001';
        EXCEPTION WHEN SQLSTATE 'XB001' THEN NULL;
        END;
        INSERT INTO ab_wal VALUES (v, bytes);
    END LOOP;
END $$;
SELECT * FROM ab_wal;
-- The sparse checkpoint alone, as a scheduled job calls it: the tables
-- vacuumed first (each full round above leaves 150,000 dead rows behind,
-- which the readers of the base's rows then scan: the rounds above slow
-- down as they go), the plan not replaced, :reps calls, each rolled back.
VACUUM fairshare.usage_checkpoint_rows, fairshare.usage_checkpoint_factor_rows,
       fairshare.usage_checkpoints, fairshare.usage_checkpoint_factors;
SELECT bench.call_ms($$CALL fairshare.checkpoint_usage('bench', bench.as_of())$$) IS NOT NULL AS warm \gset
CREATE TEMP TABLE alone_ms AS
SELECT i AS round, bench.call_ms($$CALL fairshare.checkpoint_usage('bench', bench.as_of())$$) AS ms
  FROM generate_series(1, :reps) i;
SELECT round(bench.median(array_agg(ms))::numeric, 1) AS sparse_alone_median_ms,
       round(min(ms)::numeric, 1) AS min_ms, round(max(ms)::numeric, 1) AS max_ms,
       to_char(now(), 'YYYY-MM-DD HH24:MI') AS at
  FROM alone_ms;
