-- The demo centre: two Slurm clusters with realistic trees, partitions and
-- six months of jobs ending now, generated deterministically (setseed), so
-- that every report has something to say whenever the demo runs.
--
--   cali     Université de Limoges (seed 002): the CALI account tree and
--            shares, CPU-only billing, 90-day half-life, priority
--            70000 × fairshare + 30000 × partition.
--   proteus  iC1 Granada (seed 001): the PROTEUS partitions and their costs
--            per CPU and per GB, 21-day half-life, priority 90000 × fairshare
--            + 5000 × age (max 14 days) + 5000 × size.
SET search_path = public, fairshare;
DO $$ BEGIN PERFORM setseed(0.2026); END $$;

INSERT INTO fairshare.clusters (cluster, decay_half_life, weight_fairshare, weight_partition,
                                weight_age, weight_job_size, priority_max_age, total_nodes, total_cpus,
                                timezone, description) VALUES
  ('cali', '90 days', 70000, 30000, 0, 0, '7 days', 40, 1280, 'Europe/Paris',
   'CALI, Université de Limoges: Fair Tree, 90-day half-life'),
  ('proteus', '21 days', 90000, 0, 5000, 5000, '14 days', 148, 2592, 'Europe/Madrid',
   'PROTEUS, iC1 Granada: Fair Tree, 21-day half-life');

-- CALI: overlapping public partitions with graded priorities, and a private
-- partition with an "extremely high" priority (seed 002).  CPU time only.
INSERT INTO fairshare.partitions (cluster, partition, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('cali', 'rapide',   3000, 36, 32, 196608),
  ('cali', 'normal',   2000, 36, 32, 196608),
  ('cali', 'cluster',  1000, 36, 32, 196608),
  ('cali', 'xlim-gpu', 65000, 4, 32, 393216);
UPDATE fairshare.partitions SET gpus_per_node = 4 WHERE partition = 'xlim-gpu';

-- PROTEUS: one partition per node family, cost per CPU and per GB (seed 001).
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, nodes, cores_per_node, mem_per_node_mb, gpus_per_node) VALUES
  ('proteus', 'calypso16G',   'CPU=1.0,Mem=0.5G',    20,  8,  16384, 0),
  ('proteus', 'calypso08G',   'CPU=1.0,Mem=1G',      20,  8,   8192, 0),
  ('proteus', 'kratos96G',    'CPU=1.5,Mem=0.125G',  16, 12,  98304, 0),
  ('proteus', 'kratos48G',    'CPU=1.5,Mem=0.25G',   16, 12,  49152, 0),
  ('proteus', 'hermesv1',     'CPU=4.4,Mem=0.3125G', 24, 20,  65536, 0),
  ('proteus', 'hermesv2',     'CPU=3.9,Mem=0.3125G', 24, 20,  65536, 0),
  ('proteus', 'hermesBigMem', 'CPU=4.4,Mem=0.125G',   4, 32, 262144, 0),
  ('proteus', 'metis',        'CPU=8.8,Mem=0.25G',   12, 24,  98304, 0),
  ('proteus', 'metisBigMem',  'CPU=8.8,Mem=0.0625G',  2, 24, 393216, 0),
  ('proteus', 'short',        'CPU=8.5,Mem=0.294G',   6, 24,  83591, 0),
  ('proteus', 'gpgpu',        'CPU=1.5,Mem=0.083G',   4, 12, 147456, 4);

-- CALI's tree (seed 002): partenaires 100 {cistem 1, ingenomix 1},
-- unilim 900 {XLIM 283, IPAM 283, GEIST 283, SHS 150}, one account per lab
-- under each institute with equal shares, users with equal shares.
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
  ('cali', 'root', NULL, 1),
  ('cali', 'partenaires', 'root', 100),
  ('cali', 'cistem', 'partenaires', 1),
  ('cali', 'ingenomix', 'partenaires', 1),
  ('cali', 'unilim', 'root', 900),
  ('cali', 'xlim', 'unilim', 283),
  ('cali', 'ipam', 'unilim', 283),
  ('cali', 'geist', 'unilim', 283),
  ('cali', 'shs', 'unilim', 150);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'cali', lab, inst, 1
  FROM (VALUES ('xlim', 'xlim-photonique'), ('xlim', 'xlim-rf'), ('xlim', 'xlim-mathis'), ('xlim', 'xlim-sri'),
               ('ipam', 'ipam-cnrs'), ('ipam', 'ipam-peirene'), ('ipam', 'ipam-ircer'),
               ('geist', 'geist-gei'), ('geist', 'geist-rmesh'), ('geist', 'geist-cbrs'),
               ('shs', 'shs-ehic'), ('shs', 'shs-geolab'),
               ('cistem', 'cistem-lab'), ('ingenomix', 'ingenomix-lab')) AS l(inst, lab);

-- PROTEUS: research groups of the iC1 under root, equal shares.
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('proteus', 'root', NULL, 1);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'proteus', g, 'root', s
  FROM (VALUES ('fisica-teorica', 20), ('quimica-computacional', 20), ('astrofisica', 15),
               ('materiales', 15), ('biofisica', 10), ('fluidos', 10), ('geofisica', 5), ('docencia', 5)) AS t(g, s);

-- Users: a pool of people; each lab/group gets 6..20 of them, a few sit in two accounts.
CREATE TEMP TABLE people AS
SELECT row_number() OVER () AS n, lower(f) || '.' || lower(l) AS user_name
  FROM unnest(ARRAY['ana','bruno','carla','david','elena','fabien','gaelle','hugo','ines','jules','karim','lea',
                    'marc','nadia','olivier','paula','quentin','rosa','simon','tania','ugo','vera','william','yasmine','zoe']) f,
       unnest(ARRAY['martin','garcia','bernard','lopez','dubois','sanchez','moreau','romero','laurent','navarro','petit',
                    'torres','roux','ruiz','fournier','diaz','girard','moreno']) l;

CREATE TEMP TABLE leaf_accounts AS
SELECT cluster, account, row_number() OVER (ORDER BY cluster, account) AS k
  FROM fairshare.accounts a
 WHERE NOT EXISTS (SELECT 1 FROM fairshare.accounts c WHERE c.cluster = a.cluster AND c.parent_account = a.account);

INSERT INTO fairshare.account_users (cluster, account, user_name, shares)
SELECT la.cluster, la.account, p.user_name, 1
  FROM leaf_accounts la
  CROSS JOIN LATERAL generate_series(1, 8 + (la.k * 7) % 19) i
  JOIN people p ON p.n = 1 + ((la.k * 37 + i * 11) % 450)
ON CONFLICT DO NOTHING;

-- Jobs: six months ending now.  Each user association gets an activity level
-- (a few heavy users, many light ones); durations are log-uniform from 10 min
-- to 3 days; jobs that would end after now are running, and the last ones
-- submitted are still pending.
CREATE TEMP TABLE assoc_activity AS
SELECT au.cluster, au.account, au.user_name,
       power(random(), 3) AS activity, row_number() OVER (ORDER BY au.cluster, au.account, au.user_name) AS k
  FROM fairshare.account_users au;

CREATE TEMP TABLE job_draws AS
SELECT a.cluster, a.account, a.user_name, g AS seq,
       random() AS r_part, random() AS r_cpu, random() AS r_mem, random() AS r_dur,
       random() AS r_sub, random() AS r_wait, random() AS r_state
  FROM assoc_activity a
  -- cali (1,280 cores) gets fewer jobs per association than proteus (2,592):
  -- with as many, its days averaged 87 % of its cores and some went above
  -- 100 %, which no scheduler allows.  Now its days average about 67 %
  -- (the draws are not a scheduler: the busiest instants can still ask more
  -- cores than it has).
  CROSS JOIN LATERAL generate_series(1, (2 + a.activity * CASE a.cluster WHEN 'cali' THEN 300 ELSE 400 END)::int) g;

CREATE TEMP TABLE job_plan AS
SELECT d.*, p.partition, p.cores_per_node, p.mem_per_node_mb, p.gpus_per_node,
       least(p.cores_per_node * 4, (2 ^ floor(d.r_cpu * 7))::int) AS cpus,
       date_trunc('second', now() - interval '180 days' + d.r_sub * interval '180 days') AS submit_time,
       (10 * 60 * power(432, d.r_dur)) * interval '1 second' AS run_time,
       (d.r_wait * d.r_wait * 8 * 3600) * interval '1 second' AS wait_time
  FROM job_draws d
  CROSS JOIN LATERAL (
        SELECT * FROM fairshare.partitions p
         WHERE p.cluster = d.cluster
           AND (p.partition <> 'xlim-gpu' OR d.account LIKE 'xlim%')
         ORDER BY p.partition OFFSET floor(d.r_part * (SELECT count(*) FROM fairshare.partitions q
                                                       WHERE q.cluster = d.cluster
                                                         AND (q.partition <> 'xlim-gpu' OR d.account LIKE 'xlim%')))
         LIMIT 1) p;

INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                            start_time, end_time, time_limit, tres, cpus, mem_mb, gpus, nodes)
SELECT cluster, (1000000 + row_number() OVER (PARTITION BY cluster ORDER BY submit_time, seq, user_name, account))::text,
       user_name, account, partition,
       CASE WHEN submit_time + wait_time > now() THEN 'PENDING'
            WHEN submit_time + wait_time + run_time > now() THEN 'RUNNING'
            WHEN r_state < 0.06 THEN 'FAILED'
            WHEN r_state < 0.10 THEN 'CANCELLED'
            WHEN r_state < 0.13 THEN 'TIMEOUT'
            ELSE 'COMPLETED' END,
       submit_time, submit_time,
       CASE WHEN submit_time + wait_time <= now() THEN submit_time + wait_time END,
       CASE WHEN submit_time + wait_time + run_time <= now() THEN submit_time + wait_time + run_time END,
       interval '3 days',
       'cpu=' || cpus || ',mem=' || (cpus * mem_per_node_mb / cores_per_node) || 'M,node=' || greatest(1, cpus / cores_per_node)
         || CASE WHEN gpus_per_node > 0 THEN ',gres/gpu=' || least(gpus_per_node, greatest(1, cpus / 8)) ELSE '' END,
       cpus, cpus * mem_per_node_mb / cores_per_node,
       CASE WHEN gpus_per_node > 0 THEN least(gpus_per_node, greatest(1, cpus / 8)) ELSE 0 END,
       greatest(1, cpus / cores_per_node)
  FROM job_plan;

-- a burst of recent submissions, so that sprio has a queue to show
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time,
                            time_limit, tres, cpus, mem_mb, gpus, nodes)
SELECT p.cluster, (2000000 + row_number() OVER (PARTITION BY p.cluster ORDER BY p.seq, p.user_name, p.account))::text,
       p.user_name, p.account, p.partition, 'PENDING',
       date_trunc('second', now() - p.r_wait * interval '10 days'), date_trunc('second', now() - p.r_wait * interval '10 days'),
       interval '1 day', 'cpu=' || p.cpus || ',mem=' || (p.cpus * p.mem_per_node_mb / p.cores_per_node) || 'M,node=1',
       p.cpus, p.cpus * p.mem_per_node_mb / p.cores_per_node, 0, 1
  FROM job_plan p
 WHERE p.seq = 1 AND p.r_state < 0.35 AND p.gpus_per_node = 0;

DROP TABLE people, leaf_accounts, assoc_activity, job_draws, job_plan;
ANALYZE fairshare.jobs;
