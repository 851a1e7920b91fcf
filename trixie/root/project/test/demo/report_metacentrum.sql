-- MetaCentrum-style PBS cluster for the demo centre: nodes of spec 3 to 10,
-- an account tree, four months of jobs (deterministic: setseed), and the
-- reports a MetaCentrum user would look at: usage per resource decayed in
-- PBS steps, and the PBS fairshare tree (pbsfs).  Everything is shown as
-- of 2024-07-01 00:00 UTC so that the output does not depend on today.
\set QUIET on
SET search_path = fairshare, public;
SET TimeZone = 'UTC';
\pset footer off

-- "memory of about 30 days": ×0.9 a day (0.9^30 ≈ 0.04), floor 1, as PBS does it
INSERT INTO clusters (cluster, scheduler, fairshare_algorithm, decay_mode, decay_interval, decay_factor, description)
VALUES ('metacentrum', 'pbs', 'pbs', 'step', '1 day', 0.9, 'MetaCentrum-style PBS cluster (demo)');
INSERT INTO pbs_settings (cluster, pe_mode, publication_target, publication_factor, publication_window)
VALUES ('metacentrum', 'sum', 'usage', 0.9, '2 years');   -- each publication: −10 % usage

-- queues of different node types; spec is the per-CPU speed (3 slowest .. 10 fastest)
INSERT INTO partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb, scratch_per_node_mb, gpus_per_node, spec) VALUES
  ('metacentrum', 'zenon',  60,  32,  131072,  409600, 0, 3),
  ('metacentrum', 'halmir', 30,  64,  262144,  819200, 0, 5),
  ('metacentrum', 'elmo',   20,  64,  524288, 1638400, 0, 7),
  ('metacentrum', 'galdor', 10,  64,  524288, 1638400, 4, 8),
  ('metacentrum', 'luna',    8, 128, 1048576, 3276800, 0, 10);

INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('metacentrum', 'root', NULL, 1),
  ('metacentrum', 'cesnet', 'root', 40), ('metacentrum', 'cerit', 'root', 30), ('metacentrum', 'elixir', 'root', 30),
  ('metacentrum', 'cesnet-hpc', 'cesnet', 60), ('metacentrum', 'cesnet-ai', 'cesnet', 40);

-- 24 users in the leaf groups, shares 1..3
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT 'metacentrum', (ARRAY['cesnet-hpc', 'cesnet-ai', 'cerit', 'elixir'])[1 + (i - 1) % 4], u, 1 + (i % 3)
  FROM unnest(ARRAY['novak', 'svoboda', 'dvorak', 'cerny', 'prochazka', 'kucera', 'vesely', 'horak',
                    'nemec', 'pokorny', 'marek', 'pospisil', 'hajek', 'jelinek', 'kral', 'ruzicka',
                    'benes', 'fiala', 'sedlacek', 'dolezal', 'zeman', 'kolar', 'navratil', 'cermak'])
       WITH ORDINALITY AS t(u, i);

-- 600 jobs from March to June 2024; some users run much more than others
SELECT setseed(0.42) AS seed \gset
WITH users AS (
    SELECT row_number() OVER (ORDER BY user_name) - 1 AS k, account, user_name
      FROM account_users WHERE cluster = 'metacentrum'
), draws AS (
    SELECT i, random() AS r_user, random() AS r_part, random() AS r_cpu, random() AS r_mem,
           random() AS r_scr, random() AS r_gpu, random() AS r_start, random() AS r_len
      FROM generate_series(1, 600) i
), shaped AS (
    SELECT d.i,
           -- skewed choice of user: r² favours the first ones
           (floor(d.r_user * d.r_user * 24))::int AS k,
           (ARRAY['zenon', 'zenon', 'halmir', 'halmir', 'elmo', 'galdor', 'luna'])[1 + floor(d.r_part * 7)::int] AS partition,
           d.r_cpu, d.r_mem, d.r_scr, d.r_gpu,
           '2024-03-01 00:00+00'::timestamptz + d.r_start * interval '121 days' AS start_time,
           (1 + floor(d.r_len * d.r_len * 48)) * interval '1 hour' AS len
      FROM draws d
)
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time,
                  cpus, mem_mb, scratch_mb, gpus, nodes)
SELECT 'metacentrum', 'mc' || lpad(s.i::text, 4, '0'), u.user_name, u.account, s.partition,
       CASE WHEN s.start_time + s.len > '2024-07-01 00:00+00' THEN 'RUNNING' ELSE 'COMPLETED' END,
       s.start_time - interval '30 minutes', s.start_time,
       CASE WHEN s.start_time + s.len > '2024-07-01 00:00+00' THEN NULL ELSE s.start_time + s.len END,
       -- 1 .. all cores of the node, in powers of two
       LEAST(p.cores_per_node, (2 ^ floor(s.r_cpu * 8))::int),
       -- up to the node's memory, in GiB
       LEAST(p.mem_per_node_mb, 1024 * (1 + floor(s.r_mem * s.r_mem * p.mem_per_node_mb / 1024))::bigint),
       -- a third of the jobs use scratch
       CASE WHEN s.r_scr < 0.33 THEN (s.r_scr * 3 * p.scratch_per_node_mb)::bigint ELSE 0 END,
       CASE WHEN p.gpus_per_node > 0 THEN 1 + floor(s.r_gpu * p.gpus_per_node)::int ELSE 0 END,
       1
  FROM shaped s
  JOIN users u ON u.k = s.k
  JOIN partitions p ON p.cluster = 'metacentrum' AND p.partition = s.partition;

INSERT INTO publications (user_name, title, published) VALUES
  ('benes', 'Genome assembly at scale', '2023-11-15'),
  ('benes', 'Variant calling on GPUs', '2024-04-02'),
  ('cerny', 'Climate ensembles on commodity clusters', '2024-02-20'),
  ('novak', 'Lattice QCD with mixed precision', '2021-05-01');   -- older than 2 years: no effect

\set QUIET off
\echo
\echo '== MetaCentrum (PBS) — processor equivalent: how much of a node a job holds, in CPUs'
\echo '   PE_r = used_r / node_r × node CPUs (× weight); usage = spec × walltime × PE'
SELECT p.partition, p.spec, p.cores_per_node AS node_cpus, p.mem_per_node_mb / 1024 AS node_gib,
       p.gpus_per_node AS node_gpus, x.job,
       pe.cpu, pe.mem, pe.scratch, pe.gpu, pe.total AS pe_sum,
       processor_equivalent(x.cpus, x.mem_mb, 0, x.gpus, p.cores_per_node, p.mem_per_node_mb,
                            p.scratch_per_node_mb, p.gpus_per_node, mode => 'max') AS pe_max,
       round((metacentrum_usage(pe.total, '1 hour', p.spec) / 3600)::numeric, 1) AS "usage/h (spec·CPU·h)"
  FROM partitions p
 CROSS JOIN (VALUES ('8 CPUs, 32 GiB', 8, 32768, 0), ('8 CPUs, 32 GiB, 1 GPU', 8, 32768, 1)) x(job, cpus, mem_mb, gpus)
 CROSS JOIN LATERAL processor_equivalent_parts(x.cpus, x.mem_mb, 0, x.gpus, p.cores_per_node, p.mem_per_node_mb,
                                               p.scratch_per_node_mb, p.gpus_per_node) pe
 WHERE p.cluster = 'metacentrum' AND (x.gpus = 0 OR p.gpus_per_node > 0)
 ORDER BY p.spec, x.job;

\echo
\echo '== Jobs per queue, March–June 2024 (usage in spec·CPU·hours, as of 2024-07-01)'
SELECT partition, count(*) AS jobs, round(avg(pe)::numeric, 1) AS avg_pe,
       round((sum(usage) / 3600)::numeric) AS usage
  FROM metacentrum_job_usage_at('2024-07-01 00:00+00')
 WHERE cluster = 'metacentrum'
 GROUP BY partition ORDER BY min(spec);

\echo
\echo '== Users: usage per resource decayed ×0.9 a day (spec·CPU·hours), PBS usage with its floor,'
\echo '   publications (−10 % each), the fairshare factor 2^(−tree usage / perc), as of 2024-07-01,'
\echo '   in the order PBS fair_share runs them: groups by usage/perc first, then users within'
SELECT u.user_name AS "user", u.account AS "group", u.jobs,
       round((u.usage_cpu / 3600)::numeric, 1) AS cpu, round((u.usage_mem / 3600)::numeric, 1) AS mem,
       round((u.usage_scratch / 3600)::numeric, 1) AS scratch, round((u.usage_gpu / 3600)::numeric, 1) AS gpu,
       round((u.usage / 3600)::numeric, 1) AS total, u.publications AS pubs,
       round((u.fairshare_usage / 3600)::numeric, 1) AS fs_usage,
       round(f.fairshare_perc::numeric, 4) AS perc, round(f.fairshare_tree_usage::numeric, 4) AS tree_usage,
       round(f.fairshare_factor::numeric, 4) AS factor, f.fairshare_rank AS "order"
  FROM metacentrum_user_usage_at('2024-07-01 00:00+00') u
  JOIN pbsfs_at('2024-07-01 00:00+00') f
    ON f.cluster = u.cluster AND f.is_user AND f.entity = u.user_name AND f.account = u.account
 WHERE u.cluster = 'metacentrum'
 ORDER BY f.fairshare_rank, u.user_name;

\echo
\echo '== Groups (pbsfs): usage is 1 + the usage of the users above the floor beneath them'
SELECT entity AS "group", account AS parent, shares, round((usage / 3600)::numeric, 1) AS "usage (h)",
       round(fairshare_perc::numeric, 4) AS perc, round(fairshare_tree_usage::numeric, 4) AS tree_usage,
       round(fairshare_factor::numeric, 4) AS factor
  FROM pbsfs_at('2024-07-01 00:00+00')
 WHERE cluster = 'metacentrum' AND NOT is_user
 ORDER BY fairshare_perc DESC, entity;

\echo
\echo '== Time travel: the five first in line on 1 May and on 1 July 2024'
SELECT d::date AS as_of, f.fairshare_rank AS "order", f.entity AS "user", f.account AS "group",
       round(f.fairshare_factor::numeric, 4) AS factor
  FROM unnest(ARRAY['2024-05-01 00:00+00', '2024-07-01 00:00+00']::timestamptz[]) d
 CROSS JOIN LATERAL pbsfs_at(d) f
 WHERE f.cluster = 'metacentrum' AND f.is_user AND f.fairshare_rank <= 5
 ORDER BY d, f.fairshare_rank, f.entity;
