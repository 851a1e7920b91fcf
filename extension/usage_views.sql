-- ---------------------------------------------------------------------------
-- usage_views: each job billed under its partition's weights, and the
-- decayed usage of every user association, as of any instant (time travel).
-- ---------------------------------------------------------------------------

-- Billing rate of every job (billable TRES per second, × QOS UsageFactor).
-- Pending jobs carry their requested TRES; jobs without a TRES string are
-- billed by their CPU count.
CREATE VIEW @extschema@.job_billing AS
SELECT j.cluster, j.job_id, j.user_name, j.account, j.partition, j.state,
       j.start_time, j.end_time,
       @extschema@.tres_billing(COALESCE(j.tres, 'cpu=' OPERATOR(pg_catalog.||) j.cpus),
                                p.billing_weights, p.billing_mode)
         OPERATOR(pg_catalog.*) COALESCE(q.usage_factor, 1) AS billing
  FROM @extschema@.jobs j
  JOIN @extschema@.partitions p
    ON p.cluster OPERATOR(pg_catalog.=) j.cluster AND p.partition OPERATOR(pg_catalog.=) j.partition
  LEFT JOIN @extschema@.qos q
    ON q.cluster OPERATOR(pg_catalog.=) j.cluster AND q.qos OPERATOR(pg_catalog.=) j.qos;
COMMENT ON VIEW @extschema@.job_billing IS 'Each job''s Slurm billing rate under its partition''s TRESBillingWeights and billing mode.';

-- The as_of of a time-travel function: NULL is 22004 and an infinite
-- instant 22008, whatever rows the tables hold.  Used as a WHERE clause
-- without columns, it is evaluated once per query (a one-time filter, or
-- at plan time for a constant), and keeps the SQL functions inlinable.
CREATE FUNCTION @extschema@._check_as_of(as_of timestamptz)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF as_of IS NULL THEN
        RAISE EXCEPTION 'as_of must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass the instant to report on, e.g. now().';
    ELSIF NOT isfinite(as_of) THEN
        RAISE EXCEPTION 'as_of must be a finite timestamp, not %', as_of
            USING ERRCODE = '22008', HINT = 'Pass the instant to report on, e.g. now().';
    END IF;
    RETURN true;
END
$$;

-- Decayed usage (billing-seconds) of every user association as of an
-- instant, with its cluster's decay.  A job counts from its start; a job
-- still running at as_of counts up to as_of; a job that started after
-- as_of does not count (what was known then).
--
-- The jobs are aggregated first, per association, and the associations
-- joined after: one scan of the job table (parallel, hash-aggregated)
-- instead of one index probe per association, which reads a large table
-- in random order (issue 7; README "Performance").
CREATE FUNCTION @extschema@.association_usage_at(as_of timestamptz)
RETURNS TABLE (cluster text, account text, user_name text, raw_usage float8, jobs bigint)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    WITH spans AS (
        SELECT b.cluster, b.account, b.user_name, b.start_time AS s,
               COALESCE(b.end_time, GREATEST(b.start_time, association_usage_at.as_of)) AS e,
               b.billing
          FROM @extschema@.job_billing b
         WHERE b.start_time IS NOT NULL
           AND b.start_time OPERATOR(pg_catalog.<=) association_usage_at.as_of
    ), charged AS (
        SELECT s.cluster, s.account, s.user_name, s.s, s.e,
               s.billing OPERATOR(pg_catalog.*)
                 pg_catalog.date_part('epoch', s.e OPERATOR(pg_catalog.-) s.s) AS usage
          FROM spans s
    ), per_association AS (
        SELECT ch.cluster, ch.account, ch.user_name,
               COALESCE(
                 @extschema@.decayed_usage(ch.usage, ch.s, ch.e, association_usage_at.as_of, c.decay_half_life)
                   FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'exact'),
                 @extschema@.decayed_usage_slurm(ch.usage, ch.s, ch.e, association_usage_at.as_of, c.decay_half_life)
                   FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'slurm'),
                 @extschema@.decayed_usage_step(ch.usage, ch.s, ch.e, association_usage_at.as_of, c.decay_interval, c.decay_factor)
                   FILTER (WHERE c.decay_mode OPERATOR(pg_catalog.=) 'step')) AS raw_usage,
               pg_catalog.count(ch.usage) AS jobs
          FROM charged ch
          JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) ch.cluster
         GROUP BY ch.cluster, ch.account, ch.user_name
    )
    SELECT au.cluster, au.account, au.user_name,
           COALESCE(u.raw_usage, 0) AS raw_usage,
           COALESCE(u.jobs, 0) AS jobs
      FROM @extschema@.account_users au
      JOIN @extschema@.clusters c ON c.cluster OPERATOR(pg_catalog.=) au.cluster
      LEFT JOIN per_association u
        ON u.cluster OPERATOR(pg_catalog.=) au.cluster
       AND u.account OPERATOR(pg_catalog.=) au.account
       AND u.user_name OPERATOR(pg_catalog.=) au.user_name
     WHERE @extschema@._check_as_of(association_usage_at.as_of);
END;
COMMENT ON FUNCTION @extschema@.association_usage_at(timestamptz) IS
'Decayed usage (billing-seconds) of every user association as of an instant, under its cluster''s decay.';

CREATE VIEW @extschema@.association_usage AS
SELECT * FROM @extschema@.association_usage_at(pg_catalog.now());
COMMENT ON VIEW @extschema@.association_usage IS 'association_usage_at(now()).';
