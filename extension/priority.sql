-- ---------------------------------------------------------------------------
-- priority: Slurm's multifactor job priority and its factors
-- (docs/slurm.md#multifactor-job-priority, docs/policies.md#job-priority;
-- PROTEUS: 90000 fairshare / 5000 age / 5000 job size, 14-day max
-- age; CALI: 70000 fairshare / 30000 partition).  Pure functions: they read
-- their arguments only.  The model's view is fairshare.sprio (sprio.sql).
-- ---------------------------------------------------------------------------

CREATE FUNCTION @extschema@.job_priority(
    fairshare float8, age float8 DEFAULT 0, job_size float8 DEFAULT 0,
    partition float8 DEFAULT 0, qos float8 DEFAULT 0,
    weight_fairshare float8 DEFAULT 0, weight_age float8 DEFAULT 0,
    weight_job_size float8 DEFAULT 0, weight_partition float8 DEFAULT 0,
    weight_qos float8 DEFAULT 0, nice bigint DEFAULT 0)
RETURNS bigint
AS 'MODULE_PATHNAME', 'fs_job_priority'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.job_priority(float8, float8, float8, float8, float8, float8, float8, float8, float8, float8, bigint) IS
'Slurm multifactor priority: age×Wage + fs×Wfs + js×Wjs + part×Wpart + qos×Wqos − nice, added in Slurm''s order; below 1 gives 1, truncated, at most 4294967295. Factors in [0,1], weights finite >= 0 (else 22023). STRICT: NULL in, NULL out.';

CREATE FUNCTION @extschema@.age_factor(eligible timestamptz, as_of timestamptz, max_age interval)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_age_factor'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.age_factor(timestamptz, timestamptz, interval) IS
'Slurm age factor: whole seconds pending since eligible / PriorityMaxAge, at most 1; 0 when not eligible at as_of (eligible NULL or later); max_age 0 gives 1 to eligible jobs. NULL as_of or max_age gives NULL.';

CREATE FUNCTION @extschema@.job_size_factor(nodes bigint, cpus bigint, total_nodes bigint, total_cpus bigint,
                                             favor_small boolean DEFAULT false)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_job_size_factor'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.job_size_factor(bigint, bigint, bigint, bigint, boolean) IS
'Slurm job-size factor: (nodes/total_nodes + cpus/total_cpus)/2, or with favor_small ((N−nodes)/N + (C−cpus)/C)/2; cpus 0 uses the node term alone; clamped to [0,1]. STRICT.';

CREATE FUNCTION @extschema@.partition_factor(priority_job_factor bigint, max_priority_job_factor bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_partition_factor'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.partition_factor(bigint, bigint) IS
'Slurm partition factor: PriorityJobFactor / the largest PriorityJobFactor of the cluster''s partitions (that largest taken as at least 1). STRICT.';

CREATE FUNCTION @extschema@.qos_factor(qos_priority bigint, max_qos_priority bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'fs_qos_factor'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.qos_factor(bigint, bigint) IS
'Slurm QOS factor: the QOS priority / the largest QOS priority of the cluster (0 when the priority is 0). STRICT.';

-- The cluster's size as Slurm's job-size factor counts it: every node once
-- (node_record_count) and the sum of their CPUs (cluster_cpus, each node's
-- effective CPUs), read from the nodes themselves.  Summing the partitions
-- would count a node once per partition holding it, and partitions sharing
-- nodes are the common case.  Takes `scontrol show node` (a record per node,
-- its lines after the first indented), `scontrol show node -o` (a line per
-- node) or slurm.conf's NodeName lines (host lists such as n[01-16,20],
-- NodeName=DEFAULT lines, CPUs= or Boards × SocketsPerBoard (Sockets) ×
-- CoresPerSocket × ThreadsPerCore); other lines are ignored.  A node's CPUs
-- are CPUEfctv (22.05: the CPUs left after CoreSpecCount), else CPUTot, else
-- CPUs, else the product.
-- C (extension/priority.c): it is read once per row of a clusters table,
-- and as PL/pgSQL it cost 8 times the same text read by one regexp_match()
-- (docs/performance.md#the-per-row-functions).
CREATE FUNCTION @extschema@.slurm_cluster_size(nodes text, OUT total_nodes integer, OUT total_cpus integer)
AS 'MODULE_PATHNAME', 'fs_slurm_cluster_size'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.slurm_cluster_size(text) IS
'The node count and CPU count Slurm''s job-size factor divides by, from "scontrol show node" (or -o) output or slurm.conf NodeName lines: every node once, its CPUEfctv/CPUTot/CPUs; for clusters.total_nodes and total_cpus.';
