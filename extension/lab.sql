-- The policy lab (docs/history.md#the-policy-lab): the reports of a
-- scenario.  Each runs the live report with fairshare.scenario set for its
-- own duration: the function's SET clause puts the setting back when it
-- returns or fails, so nothing after it in the session reads the scenario.
-- The settings readers (model.sql) lay the scenario's overrides over the
-- settings as of as_of; the usage reads its decay and billing; the fair-share
-- factors cached with the checkpoints (live settings) are not read.
-- They are PL/pgSQL, planned for each call's instant (plan_cache_mode
-- force_custom_plan), as the live reports are when called with a constant.
-- They write nothing (STABLE): a reader runs a scenario an administrator
-- defined.  PARALLEL RESTRICTED: a parallel worker cannot set the setting;
-- the leader can, as a SET clause does (_scenario_enter, lab.c), also
-- while the query calling the report runs parallel workers.

-- A scenario a report may run: named, and defined.
CREATE FUNCTION @extschema@_internal._scenario_check(scenario text)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF scenario IS NULL THEN
        RAISE EXCEPTION 'the scenario must not be NULL'
            USING ERRCODE = '22004', HINT = 'Name a scenario of fairshare.scenarios, or call the report without one for the live settings.';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.scenarios s WHERE s.scenario = _scenario_check.scenario) THEN
        RAISE EXCEPTION 'scenario "%" does not exist', scenario
            USING ERRCODE = '42704', HINT = 'The scenarios are the rows of fairshare.scenarios.';
    END IF;
    RETURN scenario;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._scenario_check(text) IS
'The scenario, checked: not NULL (22004) and a row of fairshare.scenarios (42704).';

-- Sets fairshare.scenario for the calling function's duration, as its SET
-- clause does: set_config() is refused in a parallel query's leader, this
-- is not (lab.c).  The caller has SET fairshare.scenario in its definition.
CREATE FUNCTION @extschema@_internal._scenario_enter(scenario text)
RETURNS text
LANGUAGE C VOLATILE PARALLEL RESTRICTED
AS 'MODULE_PATHNAME', 'fs_lab_scenario_enter';
COMMENT ON FUNCTION @extschema@_internal._scenario_enter(text) IS
'Sets fairshare.scenario until the calling function (with SET fairshare.scenario in its definition) ends; allowed in a parallel query''s leader, where set_config() is not.';

CREATE FUNCTION @extschema@.sshare_at(as_of timestamptz, scenario text)
RETURNS SETOF @extschema@.sshare
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_enter(@extschema@_internal._scenario_check(scenario));
    RETURN QUERY SELECT * FROM @extschema@.sshare_at(as_of);
END
$$;
COMMENT ON FUNCTION @extschema@.sshare_at(timestamptz, text) IS
'sshare_at(as_of) as if the scenario''s settings had been in force (the policy lab); the live settings are not touched.';

CREATE FUNCTION @extschema@.sprio_at(as_of timestamptz, scenario text)
RETURNS SETOF @extschema@.sprio
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_enter(@extschema@_internal._scenario_check(scenario));
    RETURN QUERY SELECT * FROM @extschema@.sprio_at(as_of);
END
$$;
COMMENT ON FUNCTION @extschema@.sprio_at(timestamptz, text) IS
'sprio_at(as_of) as if the scenario''s settings had been in force (the policy lab); the live settings are not touched.';

-- The GENCI report under a scenario: another monthly variant, mid-term
-- cap or used limit (genci_settings), or regime threshold (clusters).
CREATE FUNCTION @extschema@.genci_report_at(as_of date, scenario text)
RETURNS SETOF @extschema@.genci_report
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_enter(@extschema@_internal._scenario_check(scenario));
    RETURN QUERY SELECT * FROM @extschema@.genci_report_at(as_of);
END
$$;
COMMENT ON FUNCTION @extschema@.genci_report_at(date, text) IS
'genci_report_at(as_of) as if the scenario''s GENCI settings (variant, mid-term cap and used limit, regime threshold) had been in force (the policy lab); the live settings and the ledger are not touched.';

-- The RWTH reports under a scenario: another GPU-hour factor (clusters) or
-- node shape (a partition's whole_node, cores_per_node) bills the
-- core-hours differently, read from the runs (the core rollups were summed
-- with the live settings: _scenario_overrides); another rwth_rule
-- (clusters) reads the same core-hours and computes each month's quota
-- by the other rule (docs/policies.md#rwth-sliding-window-quota).
CREATE FUNCTION @extschema@.rwth_monthly_usage_at(as_of timestamptz, scenario text)
RETURNS TABLE (cluster text, account text, allocation_id bigint, period_start date, period_end date,
               month date, month_no integer, months integer, allowance float8, consumed float8)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_enter(@extschema@_internal._scenario_check(scenario));
    RETURN QUERY SELECT * FROM @extschema@.rwth_monthly_usage_at(as_of);
END
$$;
COMMENT ON FUNCTION @extschema@.rwth_monthly_usage_at(timestamptz, text) IS
'rwth_monthly_usage_at(as_of) as if the scenario''s GPU-hour factor and node shapes had been in force (the policy lab); the live settings are not touched.';

CREATE FUNCTION @extschema@.r_wlm_usage_at(as_of timestamptz, scenario text)
RETURNS TABLE (cluster text, project text, allocation_id bigint, month date,
               period_start date, period_end date, state text, monthly float8,
               remaining_prev float8, consumed float8, consumable_pct float8, consumable float8,
               balance_pct float8, available_pct float8, consumed_total float8,
               allowance_total float8, low_priority boolean, blocked boolean)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_enter(@extschema@_internal._scenario_check(scenario));
    RETURN QUERY SELECT * FROM @extschema@.r_wlm_usage_at(as_of);
END
$$;
COMMENT ON FUNCTION @extschema@.r_wlm_usage_at(timestamptz, text) IS
'r_wlm_usage_at(as_of) as if the scenario''s GPU-hour factor, node shapes and quota rule (rwth_rule) had been in force (the policy lab); the live settings are not touched.';

-- Each RWTH project month side by side: its consumption and state under
-- the live settings and under the scenario, and the quota rule of each
-- (clusters.rwth_rule as of as_of, and the scenario's override of it).
CREATE FUNCTION @extschema@.scenario_rwth_compare(as_of timestamptz, scenario text)
RETURNS TABLE (cluster text, project text, month date,
               live_consumed float8, scenario_consumed float8,
               live_consumable float8, scenario_consumable float8,
               live_state text, scenario_state text,
               live_rule text, scenario_rule text)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    RETURN QUERY
    SELECT l.cluster, l.project, l.month, l.consumed, s.consumed, l.consumable, s.consumable, l.state, s.state,
           k.rwth_rule, COALESCE(o.settings ->> 'rwth_rule', k.rwth_rule)
      FROM @extschema@.r_wlm_usage_at(as_of) l
      JOIN @extschema@.r_wlm_usage_at(as_of, scenario) s
        ON s.allocation_id = l.allocation_id AND s.month = l.month
      -- (outside the scenario here: the live rule as of as_of)
      JOIN @extschema@_internal._clusters_at(as_of) k ON k.cluster = l.cluster
      LEFT JOIN @extschema@.scenario_settings o
        ON o.scenario = scenario_rwth_compare.scenario AND o.cluster = l.cluster
       AND o.table_name = 'clusters' AND o.name = ''
     ORDER BY l.cluster, l.project, l.month;
END
$$;
COMMENT ON FUNCTION @extschema@.scenario_rwth_compare(timestamptz, text) IS
'Each RWTH project month as of an instant: consumed core-hours, consumable core-hours, state and quota rule under the live settings and under the scenario (the policy lab).';

-- Each association side by side: its usage and fair-share factor under the
-- live settings and under the scenario.
CREATE FUNCTION @extschema@.scenario_sshare_compare(as_of timestamptz, scenario text)
RETURNS TABLE (cluster text, account text, user_name text,
               live_raw_usage float8, scenario_raw_usage float8,
               live_fairshare float8, scenario_fairshare float8)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    RETURN QUERY
    SELECT COALESCE(l.cluster, s.cluster), COALESCE(l.account, s.account), COALESCE(l.user_name, s.user_name),
           l.raw_usage, s.raw_usage, l.fairshare, s.fairshare
      FROM @extschema@.sshare_at(scenario_sshare_compare.as_of) l
      FULL JOIN @extschema@.sshare_at(scenario_sshare_compare.as_of, scenario_sshare_compare.scenario) s
        ON s.cluster OPERATOR(pg_catalog.=) l.cluster AND s.account OPERATOR(pg_catalog.=) l.account
       AND s.user_name IS NOT DISTINCT FROM l.user_name
     ORDER BY 1, 2, 3 NULLS FIRST;
END
$$;
COMMENT ON FUNCTION @extschema@.scenario_sshare_compare(timestamptz, text) IS
'Each association''s RawUsage and FairShare at as_of under the live settings and under a scenario, side by side.';

-- The pending jobs at as_of in their order under the live settings and
-- under the scenario: each job's priority and place in its partition's
-- queue both ways (a place smaller under the scenario: the job would have
-- been considered earlier).
CREATE FUNCTION @extschema@.scenario_sprio_compare(as_of timestamptz, scenario text)
RETURNS TABLE (cluster text, partition text, job_id text, user_name text, account text,
               live_priority bigint, scenario_priority bigint, live_place bigint, scenario_place bigint)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    RETURN QUERY
    -- the two queues stacked and each job's two rows grouped: a join of the
    -- two set-returning functions, whose sizes the planner cannot know, was
    -- planned as a merge join on the cluster alone, every pair of jobs of a
    -- cluster compared (8 s instead of 2.4 s at 10^4 pending jobs)
    WITH u AS (
        SELECT true AS live, p.cluster, p.partition, p.job_id, p.user_name, p.account, p.priority,
               pg_catalog.rank() OVER (PARTITION BY p.cluster, p.partition ORDER BY p.priority DESC) AS place
          FROM @extschema@.sprio_at(scenario_sprio_compare.as_of) p
        UNION ALL
        SELECT false, p.cluster, p.partition, p.job_id, p.user_name, p.account, p.priority,
               pg_catalog.rank() OVER (PARTITION BY p.cluster, p.partition ORDER BY p.priority DESC)
          FROM @extschema@.sprio_at(scenario_sprio_compare.as_of, scenario_sprio_compare.scenario) p
    ), g AS (
        SELECT u.cluster, u.partition, u.job_id,
               pg_catalog.min(u.user_name) AS user_name, pg_catalog.min(u.account) AS account,
               pg_catalog.min(u.priority) FILTER (WHERE u.live) AS live_priority,
               pg_catalog.min(u.priority) FILTER (WHERE NOT u.live) AS scenario_priority,
               pg_catalog.min(u.place) FILTER (WHERE u.live) AS live_place,
               pg_catalog.min(u.place) FILTER (WHERE NOT u.live) AS scenario_place
          FROM u
         GROUP BY u.cluster, u.partition, u.job_id
    )
    SELECT g.cluster, g.partition, g.job_id, g.user_name, g.account,
           g.live_priority, g.scenario_priority, g.live_place, g.scenario_place
      FROM g
     WHERE g.live_place IS NOT NULL AND g.scenario_place IS NOT NULL
     ORDER BY g.cluster, g.partition, g.scenario_place, g.job_id;
END
$$;
COMMENT ON FUNCTION @extschema@.scenario_sprio_compare(timestamptz, text) IS
'The pending jobs at as_of with their priority and their place in their partition''s queue under the live settings and under a scenario.';

-- PROTEUS's start_next (sprio.sql) as if the scenario's settings had been in
-- force: the queue order of sprio_at(as_of, scenario) in the free resources.
CREATE FUNCTION @extschema@.start_next(free jsonb, as_of timestamptz, backfill boolean, scenario text)
RETURNS TABLE (
    queue_position bigint,
    cluster        text,
    partition      text,
    job_id         text,
    user_name      text,
    account        text,
    priority       bigint,
    submit_time    timestamptz,
    cpus           integer,
    mem_mb         bigint,
    gpus           integer,
    starts         boolean,
    start_order    integer,
    cpus_left      numeric,
    mem_mb_left    numeric,
    gpus_left      numeric,
    reason         text)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_enter(@extschema@_internal._scenario_check(scenario));
    RETURN QUERY SELECT * FROM @extschema@.start_next(free, as_of, backfill);
END
$$;
COMMENT ON FUNCTION @extschema@.start_next(jsonb, timestamptz, boolean, text) IS
'start_next(free, as_of, backfill) as if the scenario''s settings had been in force (the policy lab): the queue in the scenario''s order.';

-- A past period replayed: at each instant from from_time to to_time by
-- step, each partition's pending queue under the live settings and under
-- the scenario (scenario_sprio_compare): how many jobs move earlier or
-- later, and the Spearman correlation of the two orders (the Pearson
-- correlation of the ranks, tied jobs at their mean rank; NULL when one
-- order is all ties, as for a single job).  The instants are counted
-- before any is read: at most 10000, each after the one before (a step of
-- months and days may not move forward from some day of the month).
CREATE FUNCTION @extschema@.scenario_replay(from_time timestamptz, to_time timestamptz,
                                             step interval, scenario text)
RETURNS TABLE (as_of timestamptz, cluster text, partition text, pending bigint,
               earlier bigint, later bigint, same_place bigint, spearman float8)
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
SET fairshare.scenario = ''
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    max_instants CONSTANT integer := 10000;
    instants     integer := 0;
    t            timestamptz;
BEGIN
    IF from_time IS NULL OR to_time IS NULL OR step IS NULL THEN
        RAISE EXCEPTION 'scenario_replay: from_time, to_time and step must not be NULL'
            USING ERRCODE = '22004', HINT = 'Give the period and the step between two instants, for example ''1 hour''.';
    END IF;
    IF NOT isfinite(from_time) OR NOT isfinite(to_time) OR to_time < from_time THEN
        RAISE EXCEPTION 'scenario_replay: the period % to % is not a finite period', from_time, to_time
            USING ERRCODE = '22023', HINT = 'Give two finite instants, from_time no later than to_time.';
    END IF;
    IF step <= interval '0' THEN
        RAISE EXCEPTION 'scenario_replay: step % does not move forward', step
            USING ERRCODE = '22023', HINT = 'Give a positive step, for example ''1 hour''.';
    END IF;
    PERFORM @extschema@_internal._scenario_check(scenario);
    -- the instants generate_series will make, counted here one by one up to
    -- the bound (a function scan would make them all before any LIMIT)
    t := from_time;
    WHILE t <= to_time LOOP
        instants := instants + 1;
        IF instants > max_instants THEN
            RAISE EXCEPTION 'scenario_replay: % to % by % is more than % instants', from_time, to_time, step, max_instants
                USING ERRCODE = '54000', HINT = 'Replay a shorter period or take a longer step.';
        END IF;
        IF t + step <= t THEN
            RAISE EXCEPTION 'scenario_replay: step % does not move forward from %', step, t
                USING ERRCODE = '22023', HINT = 'Give a step of hours or days, or of whole months.';
        END IF;
        t := t + step;
    END LOOP;
    RETURN QUERY
    WITH c AS (
        SELECT t.t AS as_of, x.cluster, x.partition, x.live_place, x.scenario_place,
               x.live_place + (count(*) OVER (PARTITION BY t.t, x.cluster, x.partition, x.live_priority) - 1) / 2.0 AS live_rank,
               x.scenario_place + (count(*) OVER (PARTITION BY t.t, x.cluster, x.partition, x.scenario_priority) - 1) / 2.0 AS scenario_rank
          FROM generate_series(from_time, to_time, step) t (t),
               LATERAL @extschema@.scenario_sprio_compare(t.t, scenario_replay.scenario) x
    )
    SELECT c.as_of, c.cluster, c.partition, count(*),
           count(*) FILTER (WHERE c.scenario_place < c.live_place),
           count(*) FILTER (WHERE c.scenario_place > c.live_place),
           count(*) FILTER (WHERE c.scenario_place = c.live_place),
           CASE WHEN stddev_pop(c.live_rank) > 0 AND stddev_pop(c.scenario_rank) > 0
                THEN corr(c.live_rank::float8, c.scenario_rank::float8) END
      FROM c
     GROUP BY c.as_of, c.cluster, c.partition
     ORDER BY c.as_of, c.cluster, c.partition;
END
$$;
COMMENT ON FUNCTION @extschema@.scenario_replay(timestamptz, timestamptz, interval, text) IS
'A past period replayed instant by instant (from_time to to_time by step, at most 10000 instants): each partition''s pending jobs, how many the scenario moves earlier or later in the queue, and the Spearman correlation of the live and the scenario''s orders.';
