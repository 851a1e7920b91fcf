-- bench-slurm (test/bench/slurm.sh): what the real Slurm holds, loaded into
-- fairshare as a centre would load it (the same steps as sql/slurm_real.sql):
-- the cluster's settings from `scontrol show config`, the phase of
-- slurmctld's passes from priority_last_decay_ran (:pass, a Unix time), the
-- node and CPU counts from `scontrol show node`, the partitions from
-- slurm.conf, the association tree from `sacctmgr show assoc tree -P`, the
-- jobs (ended and pending) with import_sacct.  :dir holds the files.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET timezone = 'UTC';
CREATE TEMP TABLE fx (file text, n bigint GENERATED ALWAYS AS IDENTITY, line text);
\set f :dir '/config.txt'
COPY fx (line) FROM :'f' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
UPDATE fx SET file = 'config' WHERE file IS NULL;
\set f :dir '/nodes.txt'
COPY fx (line) FROM :'f' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
UPDATE fx SET file = 'nodes' WHERE file IS NULL;
COPY fx (line) FROM '/etc/slurm/slurm.conf' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
UPDATE fx SET file = 'slurm.conf' WHERE file IS NULL;
\set f :dir '/assoc.txt'
COPY fx (line) FROM :'f' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
UPDATE fx SET file = 'assoc' WHERE file IS NULL;

CREATE FUNCTION pg_temp.slurm_interval(v text) RETURNS interval LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN v ~ '^\d+-' THEN (split_part(v, '-', 1) || ' days ' || split_part(v, '-', 2))::interval
                ELSE v::interval END $$;

BEGIN;
DELETE FROM fairshare.jobs WHERE cluster = 'oracle';
DELETE FROM fairshare.clusters WHERE cluster = 'oracle';
WITH conf AS (
    SELECT jsonb_object_agg(m[1], m[2]) AS c
      FROM fx, regexp_match(fx.line, '^(\w+)\s*=\s*(.*?)\s*$') m
     WHERE fx.file = 'config' AND m IS NOT NULL
), size AS (
    SELECT * FROM fairshare.slurm_cluster_size((SELECT string_agg(line, E'\n' ORDER BY n) FROM fx WHERE file = 'nodes'))
)
INSERT INTO fairshare.clusters (cluster, fairshare_algorithm, decay_mode, decay_half_life,
                                priority_calc_period, priority_last_decay, usage_reset_period,
                                weight_fairshare, weight_age, weight_job_size, weight_partition, weight_qos,
                                priority_max_age, favor_small, total_nodes, total_cpus)
SELECT 'oracle', CASE WHEN c ->> 'PriorityFlags' ~ 'NO_FAIR_TREE' THEN 'classic' ELSE 'fair_tree' END,
       'slurm_passes', pg_temp.slurm_interval(c ->> 'PriorityDecayHalfLife'),
       pg_temp.slurm_interval(c ->> 'PriorityCalcPeriod'), to_timestamp(:pass),
       c ->> 'PriorityUsageResetPeriod',
       (c ->> 'PriorityWeightFairShare')::bigint, (c ->> 'PriorityWeightAge')::bigint,
       (c ->> 'PriorityWeightJobSize')::bigint, (c ->> 'PriorityWeightPartition')::bigint,
       (c ->> 'PriorityWeightQOS')::bigint, pg_temp.slurm_interval(c ->> 'PriorityMaxAge'),
       lower(c ->> 'PriorityFavorSmall') = 'yes', size.total_nodes, size.total_cpus
  FROM conf, size;
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, priority_job_factor, cores_per_node, mem_per_node_mb)
SELECT 'oracle', (regexp_match(line, 'PartitionName=(\S+)'))[1],
       (regexp_match(line, 'TRESBillingWeights="?([^"\s]+)'))[1],
       COALESCE((regexp_match(line, 'PriorityJobFactor=(\d+)'))[1]::integer, 1),
       (SELECT total_cpus / total_nodes FROM fairshare.clusters WHERE cluster = 'oracle'),
       (SELECT (regexp_match(string_agg(line, ' '), 'RealMemory=(\d+)'))[1]::bigint FROM fx WHERE file = 'nodes')
  FROM fx WHERE file = 'slurm.conf' AND line ~ '^PartitionName=';
-- sacctmgr show assoc tree -P: the accounts (no user) parents first, then the users
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'oracle', btrim(split_part(line, '|', 2)), nullif(split_part(line, '|', 6), ''),
       nullif(split_part(line, '|', 5), 'parent')::integer
  FROM fx WHERE file = 'assoc' AND n > (SELECT min(n) FROM fx WHERE file = 'assoc')
   AND split_part(line, '|', 3) = ''
 ORDER BY length(split_part(line, '|', 2)) - length(ltrim(split_part(line, '|', 2)));
INSERT INTO fairshare.account_users (cluster, account, user_name, shares)
SELECT 'oracle', btrim(split_part(line, '|', 2)), split_part(line, '|', 3),
       nullif(split_part(line, '|', 5), 'parent')::integer
  FROM fx WHERE file = 'assoc' AND n > (SELECT min(n) FROM fx WHERE file = 'assoc')
   AND split_part(line, '|', 3) <> '';
COMMIT;

SELECT fairshare.import_stage();
\set f :dir '/sacct.txt'
COPY import_staging (line) FROM :'f' (FORMAT csv, DELIMITER E'\x1f', QUOTE E'\x1e');
SELECT lines_read, imported, rejected FROM fairshare.import_sacct('oracle', 'UTC');
ANALYZE;
