-- metacentrum: a PBS cluster over the accounting model — per-job PE and
-- usage, per-user usage decayed in PBS steps, publications, pbsfs.
-- Every expected number is worked out by hand beside it.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
SET TimeZone = 'UTC';

-- Cluster mc: daily decay by 0.5 (PBS's defaults), boundaries at 00:00 UTC.
INSERT INTO clusters (cluster, scheduler, fairshare_algorithm, decay_mode, decay_interval, decay_factor)
VALUES ('mc', 'pbs', 'pbs', 'step', '1 day', 0.5),
       ('other', 'slurm', 'fair_tree', 'exact', '1 day', 0.5);   -- not PBS: never shown below
-- slow: spec 3, fast: spec 10 (same node shape); gpu: spec 5, 64 CPUs, 4 GPUs
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, scratch_per_node_mb, gpus_per_node, spec) VALUES
  ('mc', 'slow', 32, 131072, 409600, 0, 3),
  ('mc', 'fast', 32, 131072, 409600, 0, 10),
  ('mc', 'gpu', 64, 524288, 1638400, 4, 5),
  ('other', 'batch', 32, 131072, 0, 0, 1);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('mc', 'root', NULL, 1), ('mc', 'g1', 'root', 40), ('mc', 'g2', 'root', 60),
  ('other', 'root', NULL, 1), ('other', 'x', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES
  ('mc', 'g1', 'alice', 50), ('mc', 'g1', 'bob', 50), ('mc', 'g2', 'carol', 60), ('mc', 'g2', 'dave', 40),
  ('other', 'x', 'alice', 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time,
                  cpus, mem_mb, scratch_mb, gpus, nodes, exclusive, spec) VALUES
  -- J1: 8 CPUs, 64 GiB, 100 GB on slow, 2 h: PE 8 + 16 + 8 = 32; 3 × 7200 × 32 = 691200
  ('mc', 'J1', 'alice', 'g1', 'slow', 'COMPLETED', '2024-01-01 09:00', '2024-01-01 10:00', '2024-01-01 12:00', 8, 65536, 102400, 0, 1, false, NULL),
  -- J2: the same on fast: 10 × 7200 × 32 = 2304000
  ('mc', 'J2', 'bob', 'g1', 'fast', 'COMPLETED', '2024-01-01 09:00', '2024-01-01 10:00', '2024-01-01 12:00', 8, 65536, 102400, 0, 1, false, NULL),
  -- J3: GPU job, 1 h: PE 8 + 65536/524288 × 64 = 8 + 1/4 × 64 = 16 → 32; 5 × 3600 × 32 = 576000
  ('mc', 'J3', 'carol', 'g2', 'gpu', 'COMPLETED', '2024-01-01 05:00', '2024-01-01 06:00', '2024-01-01 07:00', 8, 65536, 0, 1, 1, false, NULL),
  -- J4: 4 CPUs but exclusive: the whole node, PE 32 × 3 = 96; 1 h: 3 × 3600 × 96 = 1036800
  ('mc', 'J4', 'dave', 'g2', 'slow', 'COMPLETED', '2024-01-01 19:00', '2024-01-01 20:00', '2024-01-01 21:00', 4, 0, 0, 0, 1, true, NULL),
  -- J5: the job carries its node's spec 4: 8 CPUs, 1 h: 4 × 3600 × 8 = 115200
  ('mc', 'J5', 'alice', 'g1', 'slow', 'COMPLETED', '2024-01-02 09:00', '2024-01-02 10:00', '2024-01-02 11:00', 8, 0, 0, 0, 1, false, 4),
  -- J6: still running, 1 CPU on slow since Jan 2 23:00: 3 × 3600 × 1 = 10800 an hour
  ('mc', 'J6', 'carol', 'g2', 'slow', 'RUNNING', '2024-01-02 22:00', '2024-01-02 23:00', NULL, 1, 0, 0, 0, 1, false, NULL),
  -- J7: starts after the instant we look at: never counted then
  ('mc', 'J7', 'bob', 'g1', 'fast', 'COMPLETED', '2024-01-03 02:00', '2024-01-03 03:00', '2024-01-03 04:00', 32, 0, 0, 0, 1, false, NULL),
  ('other', 'O1', 'alice', 'x', 'batch', 'COMPLETED', '2024-01-01 00:00', '2024-01-01 01:00', '2024-01-01 02:00', 1, 0, 0, 0, 1, false, NULL);

-- Per job as of Jan 3 01:00.  J6's walltime is 2 h so far: 3 × 7200 × 1 = 21600.
SELECT job_id, spec, walltime, pe_cpu, pe_mem, pe_scratch, pe_gpu, pe,
       usage_cpu, usage_mem, usage_scratch, usage_gpu, usage
  FROM metacentrum_job_usage_at('2024-01-03 01:00') ORDER BY job_id;

-- Per user as of Jan 3 01:00 (boundaries Jan 2 00:00 and Jan 3 00:00):
--  alice: 1 + 691200 = 691201; Jan 2: 345600.5 + 115200 = 460800.5; Jan 3: 230400.25
--         cpu 172800/4 + 115200/2 = 43200 + 57600 = 100800; mem 345600/4 = 86400; scratch 43200
--  bob:   (1 + 2304000)/4 = 576000.25; cpu 576000/4 = 144000, mem 288000, scratch 144000
--  carol: 1 + 576000 = 576001; Jan 2: 288000.5 + 10800 (J6 23:00-24:00) = 298800.5;
--         Jan 3: 149400.25 + 10800 (00:00-01:00) = 160200.25
--         cpu 144000/4 + 10800/2 + 10800 = 36000 + 5400 + 10800 = 52200; mem 36000; gpu 288000/4 = 72000
--  dave:  (1 + 1036800)/4 = 259200.25; cpu = mem = scratch = 345600/4 = 86400
SELECT user_name, account, usage_cpu, usage_mem, usage_scratch, usage_gpu, usage, jobs,
       publications, multiplier, fairshare_usage
  FROM metacentrum_user_usage_at('2024-01-03 01:00') ORDER BY user_name;

-- pbsfs as of Jan 3 01:00:
--   g1 = 1 + 230400.25 + 576000.25 = 806401.5; g2 = 1 + 160200.25 + 259200.25 = 419401.5
--   root = 1 + 1225801 = 1225802
--   perc alice .2, bob .2, carol .6 × .6 = .36, dave .6 × .4 = .24
--   tree usage g1 806401.5/1225802 = 0.657856, g2 0.342145
--     alice 0.187959 + (0.657856 − 0.187959) × .5 = 0.422908 → 2^(−0.422908/.2) = 0.230920
--     bob   0.469905 + (0.657856 − 0.469905) × .5 = 0.563876 → 0.141671
--     carol 0.130691 + (0.342145 − 0.130691) × .6 = 0.257563 → 2^(−0.257563/.36) = 0.609014
--     dave  0.211454 + (0.342145 − 0.211454) × .4 = 0.263730 → 0.466880
--   order: g2 (419401.5/.6 = 699002.5) before g1 (806401.5/.4 = 2016003.75);
--     carol (160200.25/.36 = 445000.7) before dave (1080001.0); alice (1152001.25) before bob
SELECT entity, is_user, account, shares, usage, fairshare_perc, round(usage_perc::numeric, 2) AS usage_perc,
       round(fairshare_tree_usage::numeric, 6) AS tree_usage, round(fairshare_factor::numeric, 6) AS factor,
       fairshare_rank AS rank
  FROM pbsfs_at('2024-01-03 01:00') ORDER BY rank NULLS LAST, entity;

-- Time travel: as of Jan 1 11:00 only an hour of J1 and J2 and all of J3 had happened:
--   alice 1 + 3 × 3600 × 32 = 345601; bob 1 + 10 × 3600 × 32 = 1152001; carol 1 + 576000 = 576001;
--   dave 1 (J4 starts at 20:00)
SELECT user_name, usage, jobs FROM metacentrum_user_usage_at('2024-01-01 11:00') ORDER BY user_name;
SELECT entity, usage, fairshare_rank FROM pbsfs_at('2024-01-01 11:00') WHERE is_user ORDER BY fairshare_rank;
--   dave (1/.24 = 4.2) first, then carol (576001/.36), but g1 (1497603/.4) comes after g2:
--   ranks dave 1, carol 2, alice 3, bob 4

-- Maui's max mode for the cluster: J1's PE is max(8, 16, 8, 0) = 16 → 3 × 7200 × 16 = 345600;
-- J4 (exclusive) max(32, 32, 32) = 32 → 3 × 3600 × 32 = 345600
INSERT INTO pbs_settings (cluster, pe_mode) VALUES ('mc', 'max');
SELECT job_id, pe, usage FROM metacentrum_job_usage_at('2024-01-03 01:00') WHERE job_id IN ('J1', 'J4') ORDER BY job_id;
-- weights: memory at 0.5, back to sum: J1 8 + 16 × 0.5 + 8 = 24 → 3 × 7200 × 24 = 518400
UPDATE pbs_settings SET pe_mode = 'sum', weight_mem = 0.5;
SELECT job_id, pe, usage FROM metacentrum_job_usage_at('2024-01-03 01:00') WHERE job_id = 'J1';
UPDATE pbs_settings SET weight_mem = 1;

-- Publications.  alice: two acknowledged (2023-03-01, 2023-10-01), one without acknowledgement,
-- one published after the instant we look at.  No effect while the factor is 1.
INSERT INTO publications (user_name, title, published, acknowledged) VALUES
  ('alice', 'Fast solvers', '2023-03-01', true),
  ('alice', 'Faster solvers', '2023-10-01', true),
  ('alice', 'Unrelated', '2023-11-01', false),
  ('alice', 'Future work', '2024-06-01', true);
SELECT user_name, publications, multiplier, usage, fairshare_usage
  FROM metacentrum_user_usage_at('2024-01-03 01:00') WHERE user_name = 'alice';
-- On usage with factor 0.5: multiplier 0.5^2 = 0.25; 230400.25 × 0.25 = 57600.0625
UPDATE pbs_settings SET publication_factor = 0.5;
SELECT user_name, publications, multiplier, usage, fairshare_usage
  FROM metacentrum_user_usage_at('2024-01-03 01:00') WHERE user_name = 'alice';
--   pbsfs: alice 57600.0625, g1 = 1 + 57600.0625 + 576000.25 = 633601.3125
SELECT entity, usage FROM pbsfs_at('2024-01-03 01:00') WHERE entity IN ('alice', 'g1') ORDER BY entity;
-- Only the last 6 months (since 2023-07-03): 1 publication → 0.5; 230400.25 × 0.5 = 115200.125
UPDATE pbs_settings SET publication_window = '6 months';
SELECT user_name, publications, multiplier, fairshare_usage
  FROM metacentrum_user_usage_at('2024-01-03 01:00') WHERE user_name = 'alice';
-- On shares with factor 2 (all publications): alice's shares 50 × 2^2 = 200, so in g1 (250 shares)
-- alice 200/250 × 0.4 = 0.32, bob 50/250 × 0.4 = 0.08; her usage is unchanged
UPDATE pbs_settings SET publication_target = 'shares', publication_factor = 2, publication_window = NULL;
SELECT entity, shares, usage, fairshare_perc FROM pbsfs_at('2024-01-03 01:00')
 WHERE entity IN ('alice', 'bob') ORDER BY entity;
-- a weighted publication: weight 1.5 more → 2^3.5 = 11.3137; shares 50 × 11.3137 = 565.685
INSERT INTO publications (user_name, title, published, weight) VALUES ('alice', 'Nature paper', '2023-12-01', 1.5);
SELECT user_name, publications, round(multiplier::numeric, 4) AS multiplier
  FROM metacentrum_user_usage_at('2024-01-03 01:00') WHERE user_name = 'alice';

-- The multiplier alone: factor ^ publications
SELECT publication_multiplier(0, 0.5) AS none, publication_multiplier(3, 0.5) AS three,
       publication_multiplier(2, 1) AS factor_one;   -- 1, 0.125, 1

-- Bad settings and inputs
\set VERBOSITY default
SELECT publication_multiplier(-1, 0.5);
SELECT publication_multiplier(1, 0);
SELECT publication_multiplier('NaN', 2);
\set VERBOSITY terse
UPDATE pbs_settings SET pe_mode = 'avg';
UPDATE pbs_settings SET weight_gpu = -1;
UPDATE pbs_settings SET weight_cpu = 'NaN';
UPDATE pbs_settings SET publication_factor = 0;
UPDATE pbs_settings SET publication_target = 'priority';
INSERT INTO publications (user_name, title, published) VALUES ('bob', 'x', 'infinity');
INSERT INTO publications (user_name, title, published, weight) VALUES ('bob', 'x', '2024-01-01', -1);
\set VERBOSITY default
-- a job holding more than its node stops the report with the numbers that are wrong
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('mc', 'BAD', 'bob', 'g1', 'slow', 'COMPLETED', '2024-01-01', '2024-01-01', '2024-01-01 01:00', 64);
SELECT count(*) FROM metacentrum_job_usage_at('2024-01-03');
DELETE FROM jobs WHERE job_id = 'BAD';
-- Fairshare=parent has no PBS meaning: the tree names the association
UPDATE account_users SET shares = NULL WHERE user_name = 'dave';
SELECT entity, fairshare_perc FROM pbsfs_at('2024-01-03');

-- as_of NULL (it gave every user the floor of 1) or infinite: errors
SELECT err('SELECT * FROM metacentrum_job_usage_at(NULL)');              -- 22004
SELECT err('SELECT * FROM metacentrum_user_usage_at(NULL)');             -- 22004
SELECT err('SELECT * FROM pbsfs_at(NULL)');                              -- 22004
SELECT err('SELECT * FROM metacentrum_job_usage_at(''infinity'')');      -- 22008
SELECT err('SELECT * FROM pbsfs_at(''-infinity'')');                     -- 22008

-- clean up
DELETE FROM publications;
DELETE FROM pbs_settings;
DELETE FROM jobs;
DELETE FROM account_users;
DELETE FROM accounts WHERE parent_account IS NOT NULL;
DELETE FROM accounts;
DELETE FROM partitions;
DELETE FROM clusters;
