-- The synthetic centre of the benchmarks (docs/performance.md), in the model tables,
-- deterministic (setseed): run by test/bench/run.sh with the psql variables
--   :jobs      finished and running jobs over 2 years    (default 10^7)
--   :assocs    associations: accounts + user associations (default 10^5)
--   :pending   jobs pending at the benchmark instant      (default 10^5)
--   :allocs    GENCI allocations                         (default 10^4)
--   :projects  RWTH projects of 24 months                 (default 10^4)
--
-- One Slurm cluster, 'bench' (Fair Tree, 14-day half-life, multifactor
-- weights on every factor), four partitions with TRES billing weights,
-- three QOS.  The account tree is 6 levels deep under root: 1/4 of the
-- associations are accounts (levels 1..5 in proportions 10:100:1000:6000:
-- 17889; level-5 accounts hang under the first half of level 4, the rest of
-- level 4 are leaves), 3/4 user associations, 95 % of them under leaf
-- accounts and 5 % beside sub-accounts, so users sit at depths 2..6.  Jobs
-- are spread over the user associations with a skew (a few heavy users),
-- and over 2 years ending at the benchmark instant bench.as_of() =
-- 2026-10-01 00:00 UTC, in submission order (the physical order of an
-- accounting table); jobs still running then have no end.  GENCI
-- allocations (one year, starting on the 1st of the months of 2025-10 ..
-- 2026-09, half above the 10^6 h regulation threshold) and RWTH
-- allocations (24 months from 2024-10) go to distinct leaf accounts.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE OR REPLACE FUNCTION bench.as_of() RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN '2026-10-01 00:00+00'::timestamptz;

-- Start from an empty model (the extension's own tables; replica: past the
-- ledger's no-truncate trigger).
SET session_replication_role = replica;
TRUNCATE fairshare.clusters, fairshare.partitions, fairshare.qos, fairshare.accounts,
         fairshare.account_users, fairshare.jobs, fairshare.allocations,
         fairshare.regulation_checks, fairshare.regulation_notifications, fairshare.genci_settings CASCADE;
RESET session_replication_role;
DO $$ BEGIN PERFORM setseed(0.42); END $$;

INSERT INTO fairshare.clusters (cluster, decay_half_life, weight_fairshare, weight_age, weight_job_size,
                                weight_partition, weight_qos, priority_max_age, regulation_threshold,
                                gpu_hour_factor, description)
VALUES ('bench', '14 days', 70000, 5000, 5000, 10000, 10000, '14 days', 1e6, 24,
        'synthetic centre of the benchmarks (test/bench/centre.sql)');
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, billing_mode, priority_job_factor,
                                  nodes, cores_per_node, mem_per_node_mb, gpus_per_node) VALUES
  ('bench', 'cpu',    'CPU=1.0,Mem=0.25G',              'sum',      100, 2000, 64, 256000, 0),
  ('bench', 'gpu',    'CPU=1.0,Mem=0.25G,GRES/gpu=16.0', 'sum',      100,  200, 32, 512000, 4),
  ('bench', 'bigmem', 'CPU=1.0,Mem=0.5G',               'max_tres', 100,   50, 64, 2048000, 0),
  ('bench', 'debug',  'CPU=2.0,Mem=0.25G',              'sum',      500,   10, 64, 256000, 0);
INSERT INTO fairshare.qos (cluster, qos, priority, usage_factor) VALUES
  ('bench', 'normal', 10, 1), ('bench', 'high', 100, 2), ('bench', 'low', 0, 0.5);

-- ---------- the account tree ----------
SELECT greatest(round(:assocs / 4.0), 6)::int AS n_acc \gset
CREATE TEMP TABLE lv AS
SELECT l, greatest(round((:n_acc - 1)::numeric * f / 25000), 1)::int AS k
  FROM (VALUES (1, 10), (2, 100), (3, 1000), (4, 6000), (5, 17889)) v(l, f);
CREATE TEMP TABLE acc (l int, i int, account text, parent text, leaf boolean);
INSERT INTO acc VALUES (0, 0, 'root', NULL, false);
INSERT INTO acc
SELECT 1, i, 'l1_' || i, 'root', false FROM generate_series(0, (SELECT k FROM lv WHERE l = 1) - 1) i;
INSERT INTO acc
SELECT 2, i, 'l2_' || i, 'l1_' || floor(random() * (SELECT k FROM lv WHERE l = 1))::int, false
  FROM generate_series(0, (SELECT k FROM lv WHERE l = 2) - 1) i;
INSERT INTO acc
SELECT 3, i, 'l3_' || i, 'l2_' || floor(random() * (SELECT k FROM lv WHERE l = 2))::int, false
  FROM generate_series(0, (SELECT k FROM lv WHERE l = 3) - 1) i;
INSERT INTO acc
SELECT 4, i, 'l4_' || i, 'l3_' || floor(random() * (SELECT k FROM lv WHERE l = 3))::int, false
  FROM generate_series(0, (SELECT k FROM lv WHERE l = 4) - 1) i;
-- level 5 under the first half of level 4
INSERT INTO acc
SELECT 5, i, 'l5_' || i, 'l4_' || floor(random() * ceil(0.5 * (SELECT k FROM lv WHERE l = 4)))::int, true
  FROM generate_series(0, (SELECT k FROM lv WHERE l = 5) - 1) i;
UPDATE acc a SET leaf = true
 WHERE a.l BETWEEN 1 AND 4 AND NOT EXISTS (SELECT FROM acc c WHERE c.parent = a.account);
ANALYZE acc;

-- shares 1..100; 1 account in 200 below level 2 is Fairshare=parent
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'bench', a.account, a.parent,
       CASE WHEN a.l = 0 THEN 1 WHEN a.l >= 3 AND random() < 0.005 THEN NULL
            ELSE 1 + floor(random() * 100)::int END
  FROM acc a ORDER BY a.l, a.i;

-- leaf accounts and inner accounts numbered for the draws below
CREATE TEMP TABLE leaves AS
SELECT row_number() OVER (ORDER BY l, i) - 1 AS n, account FROM acc WHERE leaf;
CREATE TEMP TABLE inner_acc AS
SELECT row_number() OVER (ORDER BY l, i) - 1 AS n, account FROM acc WHERE NOT leaf AND l > 0;
SELECT count(*) AS n_leaf FROM leaves \gset
SELECT count(*) AS n_inner FROM inner_acc \gset
SELECT count(*) AS n_accounts FROM acc \gset

-- user associations: distinct users are 80 % of them, so one user in five
-- has a second account
SELECT greatest(:assocs - :n_accounts, 1) AS n_ua \gset
SELECT greatest(round(0.8 * :n_ua), 1)::int AS n_users \gset
CREATE TEMP TABLE ua_draw AS
SELECT j, 'u' || (j % :n_users) AS user_name, random() < 0.95 AS at_leaf, random() AS r
  FROM generate_series(0, :n_ua - 1) j;
INSERT INTO fairshare.account_users (cluster, account, user_name, shares)
SELECT 'bench', COALESCE(lf.account, ia.account), d.user_name,
       CASE WHEN d.r < 0.01 THEN NULL ELSE 1 + floor(d.r * 10)::int END
  FROM ua_draw d
  LEFT JOIN leaves lf ON d.at_leaf AND lf.n = floor(d.r * :n_leaf)::int
  LEFT JOIN inner_acc ia ON NOT d.at_leaf AND ia.n = floor(d.r * :n_inner)::int
ON CONFLICT DO NOTHING;
ANALYZE fairshare.accounts, fairshare.account_users;

-- the user associations numbered in a random order: job i goes to
-- association floor(n × u^3), u uniform, so a few associations get most jobs
CREATE TEMP TABLE ua AS
SELECT row_number() OVER (ORDER BY hashtext(account || '/' || user_name)) - 1 AS n, account, user_name
  FROM fairshare.account_users;
CREATE UNIQUE INDEX ON ua (n);
ANALYZE ua;
SELECT count(*) AS n_ua FROM ua \gset

-- ---------- jobs ----------
-- Job i is submitted at i/jobs of the 2 years (plus up to an hour), waits
-- up to 2 h, runs up to its time limit; a job whose end falls after as_of
-- is still running then.  No foreign-key checks while loading (the rows
-- are generated consistent): session_replication_role = replica.
SET session_replication_role = replica;
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time,
                            eligible_time, start_time, end_time, time_limit, tres, cpus, mem_mb, gpus,
                            nodes, exclusive)
SELECT 'bench', g.i::text, u.user_name, u.account, g.part, g.qos,
       CASE WHEN g.st + g.el > bench.as_of() THEN 'RUNNING' ELSE g.state END,
       g.sub, g.sub, g.st,
       CASE WHEN g.st + g.el > bench.as_of() THEN NULL ELSE g.st + g.el END,
       g.lim,
       format('cpu=%s,mem=%sM,node=1%s,billing=%s', g.cpus, g.cpus * 4000,
              CASE WHEN g.gpus > 0 THEN ',gres/gpu=' || g.gpus END, g.cpus),
       g.cpus, g.cpus * 4000, g.gpus, 1, g.part = 'bigmem'
  FROM (SELECT s.*, s.sub + s.wait AS st, s.lim * s.frac AS el,
               CASE WHEN s.part = 'gpu' THEN 1 + floor(s.r * 4)::int ELSE 0 END AS gpus
          FROM (SELECT i,
                       floor(:n_ua * power(random(), 3))::int AS ua,
                       (ARRAY['cpu', 'cpu', 'cpu', 'cpu', 'cpu', 'cpu', 'cpu', 'gpu', 'bigmem', 'debug'])[1 + floor(random() * 10)::int] AS part,
                       (ARRAY['normal', 'normal', 'normal', 'normal', 'normal', 'normal', 'normal', 'normal', 'high', 'low'])[1 + floor(random() * 10)::int] AS qos,
                       (ARRAY['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED',
                              'COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT'])[1 + floor(random() * 10)::int] AS state,
                       (2 ^ floor(random() * 7))::int AS cpus,
                       (ARRAY[interval '1 hour', '4 hours', '12 hours', '1 day', '2 days'])[1 + floor(random() * 5)::int] AS lim,
                       random() AS frac,
                       random() AS r,
                       bench.as_of() - interval '730 days' + (i - 1) * (interval '730 days' / :jobs)
                         + random() * interval '1 hour' AS sub,
                       power(random(), 4) * interval '2 hours' AS wait
                  FROM generate_series(1, :jobs) i
                OFFSET 0) s
        OFFSET 0) g
  JOIN ua u ON u.n = g.ua;
-- pending jobs: submitted in the 14 days before as_of, requested TRES
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time,
                            eligible_time, time_limit, tres, cpus, mem_mb, nodes)
SELECT 'bench', 'p' || g.i, u.user_name, u.account, g.part, g.qos, 'PENDING', g.sub, g.sub, '1 day',
       format('cpu=%s,mem=%sM,node=1,billing=%s', g.cpus, g.cpus * 4000, g.cpus), g.cpus, g.cpus * 4000, 1
  FROM (SELECT i, floor(:n_ua * power(random(), 3))::int AS ua,
               (ARRAY['cpu', 'cpu', 'cpu', 'bigmem', 'debug'])[1 + floor(random() * 5)::int] AS part,
               (ARRAY['normal', 'normal', 'normal', 'high', 'low'])[1 + floor(random() * 5)::int] AS qos,
               (2 ^ floor(random() * 7))::int AS cpus,
               bench.as_of() - random() * interval '14 days' AS sub
          FROM generate_series(1, :pending) i
        OFFSET 0) g
  JOIN ua u ON u.n = g.ua;
RESET session_replication_role;

-- ---------- allocations ----------
-- GENCI: leaf accounts 0 .. allocs-1; RWTH: the next ones (wrapping round
-- when the tree has fewer leaves than that, at small scales).
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
SELECT 'bench', lf.account, 'genci', s.start, (s.start + interval '1 year')::date - 1,
       CASE WHEN a % 2 = 0 THEN 1e6 + floor(random() * 9e6) ELSE 1e4 + floor(random() * 9e5) END
  FROM generate_series(0, :allocs - 1) a
  CROSS JOIN LATERAL (SELECT ('2025-10-01'::date + make_interval(months => a % 12))::date AS start) s
  JOIN leaves lf ON lf.n = a % :n_leaf
ON CONFLICT DO NOTHING;
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours, monthly_allowance)
SELECT 'bench', lf.account, 'rwth', '2024-10-01', '2026-09-30', 24 * m.allowance, m.allowance
  FROM generate_series(0, :projects - 1) p
  CROSS JOIN LATERAL (SELECT 1000 + floor(random() * 99000) AS allowance) m
  JOIN leaves lf ON lf.n = (:allocs + p) % :n_leaf
ON CONFLICT DO NOTHING;

-- the jobs in their monthly partitions, as a centre keeps them
-- (docs/history.md): every month is moved out of jobs_default in turn
\timing on
CALL fairshare.maintain_partitions();
\timing off

-- (ANALYZE of jobs gathers the statistics of the whole table, which
-- autovacuum never does for a partitioned table, and of each partition)
VACUUM ANALYZE fairshare.clusters, fairshare.partitions, fairshare.qos, fairshare.accounts,
               fairshare.account_users, fairshare.jobs, fairshare.allocations;
CHECKPOINT;

-- What the benchmarks change and put back, for test/bench/run.sh to put
-- back after one that stopped half-way: the usage checkpoints (each file
-- makes its own), the cluster's decay mode (bench_sprio.sql), the newest
-- monthly partition (bench_partitions.sql drops it for maintain_partitions
-- to make again) and the tables a file makes in the bench schema.
DROP TABLE IF EXISTS bench.centre_cluster;
CREATE TABLE bench.centre_cluster AS SELECT * FROM fairshare.clusters WHERE cluster = 'bench';
CREATE OR REPLACE PROCEDURE bench.restore_centre() LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench';
    UPDATE fairshare.clusters c SET decay_mode = s.decay_mode, priority_last_decay = s.priority_last_decay
      FROM bench.centre_cluster s
     WHERE c.cluster = s.cluster
       AND (c.decay_mode, c.priority_last_decay) IS DISTINCT FROM (s.decay_mode, s.priority_last_decay);
    -- and no history of that change: the centre's settings never changed
    DELETE FROM fairshare.settings_history WHERE cluster = 'bench' AND table_name = 'clusters';
    DROP TABLE IF EXISTS bench.jobs_flat, bench.usage_rows, bench.per_row, bench.per_row_decay, bench.per_row_tree,
                         bench.per_row_job, bench.per_row_text, bench.per_row_cases CASCADE;
    COMMIT;
    CALL fairshare.maintain_partitions();
END $$;

SELECT (SELECT count(*) FROM fairshare.accounts) AS accounts,
       (SELECT count(*) FROM fairshare.account_users) AS user_associations,
       (SELECT max(l) + 1 FROM acc a WHERE EXISTS (SELECT FROM fairshare.account_users au
                                                      WHERE au.account = a.account)) AS max_user_depth,
       (SELECT count(*) FILTER (WHERE state <> 'PENDING') FROM fairshare.jobs) AS jobs,
       (SELECT count(*) FILTER (WHERE state = 'PENDING') FROM fairshare.jobs) AS pending,
       (SELECT count(*) FILTER (WHERE policy = 'genci') FROM fairshare.allocations) AS genci_allocations,
       (SELECT count(*) FILTER (WHERE policy = 'rwth') FROM fairshare.allocations) AS rwth_projects,
       (SELECT pg_size_pretty(sum(pg_total_relation_size(t.relid))) FROM pg_partition_tree('fairshare.jobs') t) AS jobs_size;
