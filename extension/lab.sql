-- The policy lab (docs/history.md#the-policy-lab): the reports of a
-- scenario.  Each runs the live report with fairshare.scenario set for its
-- own duration: the function's SET clause puts the setting back when it
-- returns or fails, so nothing after it in the session reads the scenario.
-- The settings readers (model.sql) lay the scenario's overrides over the
-- settings as of as_of; the usage reads its half-life; the fair-share
-- factors cached with the checkpoints (live settings) are not read.
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
AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_enter(@extschema@_internal._scenario_check(scenario));
    RETURN QUERY SELECT * FROM @extschema@.sprio_at(as_of);
END
$$;
COMMENT ON FUNCTION @extschema@.sprio_at(timestamptz, text) IS
'sprio_at(as_of) as if the scenario''s settings had been in force (the policy lab); the live settings are not touched.';

-- Each association side by side: its usage and fair-share factor under the
-- live settings and under the scenario.
CREATE FUNCTION @extschema@.scenario_sshare_compare(as_of timestamptz, scenario text)
RETURNS TABLE (cluster text, account text, user_name text,
               live_raw_usage float8, scenario_raw_usage float8,
               live_fairshare float8, scenario_fairshare float8)
LANGUAGE sql STABLE PARALLEL RESTRICTED
SET fairshare.scenario = ''
BEGIN ATOMIC
    SELECT COALESCE(l.cluster, s.cluster), COALESCE(l.account, s.account), COALESCE(l.user_name, s.user_name),
           l.raw_usage, s.raw_usage, l.fairshare, s.fairshare
      FROM @extschema@.sshare_at(scenario_sshare_compare.as_of) l
      FULL JOIN @extschema@.sshare_at(scenario_sshare_compare.as_of, scenario_sshare_compare.scenario) s
        ON s.cluster OPERATOR(pg_catalog.=) l.cluster AND s.account OPERATOR(pg_catalog.=) l.account
       AND s.user_name IS NOT DISTINCT FROM l.user_name
     ORDER BY 1, 2, 3 NULLS FIRST;
END;
COMMENT ON FUNCTION @extschema@.scenario_sshare_compare(timestamptz, text) IS
'Each association''s RawUsage and FairShare at as_of under the live settings and under a scenario, side by side.';

-- The pending jobs at as_of in their order under the live settings and
-- under the scenario: each job's priority and place in its partition's
-- queue both ways (a place smaller under the scenario: the job would have
-- been considered earlier).
CREATE FUNCTION @extschema@.scenario_sprio_compare(as_of timestamptz, scenario text)
RETURNS TABLE (cluster text, partition text, job_id text, user_name text, account text,
               live_priority bigint, scenario_priority bigint, live_place bigint, scenario_place bigint)
LANGUAGE sql STABLE PARALLEL RESTRICTED
SET fairshare.scenario = ''
BEGIN ATOMIC
    WITH l AS (
        SELECT p.cluster, p.partition, p.job_id, p.user_name, p.account, p.priority,
               pg_catalog.rank() OVER (PARTITION BY p.cluster, p.partition ORDER BY p.priority DESC) AS place
          FROM @extschema@.sprio_at(scenario_sprio_compare.as_of) p
    ), s AS (
        SELECT p.cluster, p.job_id, p.priority,
               pg_catalog.rank() OVER (PARTITION BY p.cluster, p.partition ORDER BY p.priority DESC) AS place
          FROM @extschema@.sprio_at(scenario_sprio_compare.as_of, scenario_sprio_compare.scenario) p
    )
    SELECT l.cluster, l.partition, l.job_id, l.user_name, l.account, l.priority, s.priority, l.place, s.place
      FROM l JOIN s ON s.cluster OPERATOR(pg_catalog.=) l.cluster AND s.job_id OPERATOR(pg_catalog.=) l.job_id
     ORDER BY l.cluster, l.partition, s.place, l.job_id;
END;
COMMENT ON FUNCTION @extschema@.scenario_sprio_compare(timestamptz, text) IS
'The pending jobs at as_of with their priority and their place in their partition''s queue under the live settings and under a scenario.';
