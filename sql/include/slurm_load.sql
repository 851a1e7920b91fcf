-- What the suites comparing with a real Slurm capture share (slurm_real,
-- slurm_tree_change): the captured files line by line, sshare's number
-- format, Slurm's durations, and the cluster with its partitions from the
-- captured configuration.  Included with \i; each suite loads its tree.
-- the captured files, line by line
CREATE TEMP TABLE fx_in (n bigserial, line text);
CREATE TEMP TABLE fx (scenario text, file text, n bigint, line text);
CREATE FUNCTION pg_temp.take(scenario text, file text) RETURNS bigint LANGUAGE sql AS $$
    WITH moved AS (INSERT INTO fx SELECT scenario, file, i.n, i.line FROM fx_in i RETURNING 1)
    SELECT count(*) FROM moved;
$$;
CREATE FUNCTION pg_temp.clear_in() RETURNS void LANGUAGE sql AS $$ DELETE FROM fx_in $$;

-- a value as sshare prints it: %f, inf, empty for NULL
CREATE FUNCTION pg_temp.f6(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '' WHEN x = 'Infinity' THEN 'inf'
                ELSE to_char(x, 'FM99999999990.000000') END $$;

-- a Slurm duration of config.txt (D-HH:MM:SS, HH:MM:SS) as an interval
CREATE FUNCTION pg_temp.slurm_interval(v text) RETURNS interval LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v ~ '^\d+-' THEN (split_part(v, '-', 1) || ' days ' || split_part(v, '-', 2))::interval
                ELSE v::interval END $$;

-- The scenario's cluster and its partitions, from its captured
-- configuration; returns a line that says what was loaded.  The tree is
-- the suite's to load.
CREATE FUNCTION pg_temp.load_settings(scen text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    conf jsonb;
    first_pass timestamptz;
    last_reset timestamptz;
    size record;
    tz text;
BEGIN
    -- scontrol show config: "Key = Value"
    SELECT jsonb_object_agg(m[1], m[2]) INTO conf
      FROM fx, regexp_match(fx.line, '^(\w+)\s*=\s*(.*?)\s*$') m
     WHERE fx.scenario = scen AND fx.file = 'config' AND m IS NOT NULL;
    -- the phase: the last pass before the first capture; a NOW reset: the
    -- last reset slurmctld recorded (priority_last_decay_ran) by the last one
    SELECT to_timestamp(split_part(line, '|', 5)::bigint) INTO first_pass
      FROM fx WHERE scenario = scen AND file = 'instants' AND line !~ '^#' ORDER BY n LIMIT 1;
    SELECT to_timestamp(nullif(split_part(line, '|', 7), '0')::bigint) INTO last_reset
      FROM fx WHERE scenario = scen AND file = 'instants' AND line !~ '^#' ORDER BY n DESC LIMIT 1;
    -- slurmctld's time zone, where its run says (its local midnight starts a DAILY period)
    SELECT COALESCE(max((regexp_match(line, '^slurmctld TZ: (\S+)'))[1]), 'UTC') INTO tz
      FROM fx WHERE scenario = scen AND file = 'run';
    SELECT * INTO size FROM fairshare.slurm_cluster_size(
        (SELECT string_agg(line, E'\n' ORDER BY n) FROM fx WHERE scenario = scen AND file = 'nodes'));
    INSERT INTO fairshare.clusters (cluster, fairshare_algorithm, decay_mode, decay_half_life,
                                    priority_calc_period, priority_last_decay, usage_reset_period, usage_last_reset,
                                    weight_fairshare, weight_age, weight_job_size, weight_partition, weight_qos,
                                    priority_max_age, favor_small, total_nodes, total_cpus, timezone)
    VALUES ('oracle',
            CASE WHEN conf ->> 'PriorityFlags' ~ 'NO_FAIR_TREE' THEN 'classic' ELSE 'fair_tree' END,
            'slurm_passes', pg_temp.slurm_interval(conf ->> 'PriorityDecayHalfLife'),
            pg_temp.slurm_interval(conf ->> 'PriorityCalcPeriod'), first_pass,
            conf ->> 'PriorityUsageResetPeriod',
            CASE WHEN upper(conf ->> 'PriorityUsageResetPeriod') = 'NOW' THEN last_reset END,
            (conf ->> 'PriorityWeightFairShare')::bigint, (conf ->> 'PriorityWeightAge')::bigint,
            (conf ->> 'PriorityWeightJobSize')::bigint, (conf ->> 'PriorityWeightPartition')::bigint,
            (conf ->> 'PriorityWeightQOS')::bigint, pg_temp.slurm_interval(conf ->> 'PriorityMaxAge'),
            lower(conf ->> 'PriorityFavorSmall') = 'yes', size.total_nodes, size.total_cpus, tz);
    -- slurm.conf's partitions: PriorityJobFactor, TRESBillingWeights; the node's shape
    INSERT INTO fairshare.partitions (cluster, partition, billing_weights, priority_job_factor, cores_per_node, mem_per_node_mb)
    SELECT 'oracle', (regexp_match(line, 'PartitionName=(\S+)'))[1],
           (regexp_match(line, 'TRESBillingWeights="?([^"\s]+)'))[1],
           COALESCE((regexp_match(line, 'PriorityJobFactor=(\d+)'))[1]::integer, 1),
           size.total_cpus / size.total_nodes,
           (SELECT (regexp_match(string_agg(line, ' '), 'RealMemory=(\d+)'))[1]::bigint
              FROM fx WHERE scenario = scen AND file = 'nodes')
      FROM fx WHERE scenario = scen AND file = 'slurm.conf' AND line ~ '^PartitionName=';
    RETURN format('%s: %s, half-life %s, PriorityCalcPeriod %s, passes from %s, reset %s, %s nodes, %s CPUs, time zone %s',
                  scen, CASE WHEN conf ->> 'PriorityFlags' ~ 'NO_FAIR_TREE' THEN 'classic' ELSE 'fair_tree' END,
                  conf ->> 'PriorityDecayHalfLife', conf ->> 'PriorityCalcPeriod', first_pass,
                  conf ->> 'PriorityUsageResetPeriod', size.total_nodes, size.total_cpus, tz);
END $$;
