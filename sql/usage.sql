-- usage: jobs billed under their partition's weights, and the decayed
-- usage of every user association as of an instant (time travel).
-- T = 2024-06-10 00:00 UTC.  Partition p bills CPU=2,Mem=1G.
SET search_path = public, fairshare;
SET timezone = 'UTC';
SET extra_float_digits = 0;

INSERT INTO clusters (cluster, decay_half_life) VALUES ('uv', '0');   -- no decay first
INSERT INTO partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb)
VALUES ('uv', 'p', 'CPU=2,Mem=1G', 8, 16384);
INSERT INTO qos (cluster, qos, usage_factor) VALUES ('uv', 'double', 2);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('uv', 'root', NULL, 1), ('uv', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('uv', 'a', 'ann'), ('uv', 'a', 'bob'), ('uv', 'a', 'cid');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, start_time, end_time, tres, cpus) VALUES
  -- ann: cpu=1, 1 GiB → 1×2 + 1×1 = 3 per second, for one day [T-2d, T-1d]: 3 × 86400 = 259200
  ('uv', '1', 'ann', 'a', 'p', NULL, 'COMPLETED', '2024-06-07 23:00+00', '2024-06-08 00:00+00', '2024-06-09 00:00+00', 'cpu=1,mem=1G,node=1', 1),
  -- ann: same job under QOS UsageFactor 2, one hour [T-3h, T-2h]: 3 × 2 × 3600 = 21600
  ('uv', '2', 'ann', 'a', 'p', 'double', 'COMPLETED', '2024-06-09 20:00+00', '2024-06-09 21:00+00', '2024-06-09 22:00+00', 'cpu=1,mem=1G,node=1', 1),
  -- ann: starts after T: not counted as of T
  ('uv', '3', 'ann', 'a', 'p', NULL, 'COMPLETED', '2024-06-09 23:00+00', '2024-06-10 01:00+00', '2024-06-10 02:00+00', 'cpu=1,mem=1G,node=1', 1),
  -- bob: running since T-1h, no TRES string: billed by CPUs = 2 per second... × weight CPU=2 → 4 per second
  ('uv', '4', 'bob', 'a', 'p', NULL, 'RUNNING', '2024-06-09 22:00+00', '2024-06-09 23:00+00', NULL, NULL, 2),
  -- bob: pending: nothing
  ('uv', '5', 'bob', 'a', 'p', NULL, 'PENDING', '2024-06-09 22:00+00', NULL, NULL, 'cpu=64', 64);

SELECT job_id, billing FROM job_billing WHERE cluster = 'uv' ORDER BY job_id;  -- 3, 6, 3, 4, 128

-- no decay, as of T: ann 259200 + 21600 = 280800; bob 4 × 3600 = 14400; cid no jobs: 0
SELECT account, user_name, raw_usage, jobs FROM association_usage_at('2024-06-10 00:00+00') WHERE cluster = 'uv' ORDER BY user_name;
-- as of T-1.5d (ann's first job half done, nothing else started): ann 259200 / 2 = 129600
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-08 12:00+00') WHERE cluster = 'uv' ORDER BY user_name;
-- as of T+3h: job 3 has run [T+1h, T+2h]: ann 280800 + 10800 = 291600; bob's running job up to T+3h: 4 × 4 × 3600 = 57600
SELECT user_name, raw_usage FROM association_usage_at('2024-06-10 03:00+00') WHERE cluster = 'uv' ORDER BY user_name;

-- half-life 1 day (exact), as of T:
--   job 1 over [T-2d, T-1d]: 259200 × 2^-1 × (1 - 2^-1)/ln 2 = 93486.6386496048
--   job 2 over [T-3h, T-2h]: 21600 × 86400/3600/ln 2 × 2^(-2/24) × (1 - 2^(-1/24)) = 20096.089384 (checked below)
--   ann: 93486.6386496048 + 20096.089384 = 113582.728034
--   bob over [T-1h, T]:      14400 × 86400/3600/ln 2 × (1 - 2^(-1/24)) = 14194.0433622855
-- (from before the jobs: the decay law is read as of each instant,
-- docs/history.md#the-decay-as-of-an-instant)
SET fairshare.tree_change_at = '2024-01-01 00:00+00';
UPDATE clusters SET decay_half_life = '1 day' WHERE cluster = 'uv';
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage FROM association_usage_at('2024-06-10 00:00+00')
 WHERE cluster = 'uv' ORDER BY user_name;
-- the same two of ann's jobs, by the aggregate directly (job 2 alone checks the sum):
SELECT round(decayed_usage(21600, '2024-06-09 21:00+00', '2024-06-09 22:00+00', '2024-06-10 00:00+00', '1 day')::numeric, 6) AS job2,
       round((21600 * 24 / ln(2) * power(2, -2.0/24) * (1 - power(2, -1.0/24)))::numeric, 6) AS by_hand;
-- Slurm's per-second factor: a little more remains (half-life is effectively ~1.0002 days)
UPDATE clusters SET decay_mode = 'slurm' WHERE cluster = 'uv';
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage FROM association_usage_at('2024-06-10 00:00+00')
 WHERE cluster = 'uv' ORDER BY user_name;
-- PBS step decay, × 0.5 at every UTC midnight, as of T = midnight:
--   job 1 [T-2d, T-1d] sits in one slot, two midnights (T-1d, T) crossed: 259200 × 0.25 = 64800
--   job 2 [T-3h, T-2h] one midnight: 21600 × 0.5 = 10800 → ann 75600
--   bob [T-1h, T) one midnight: 14400 × 0.5 = 7200
UPDATE clusters SET decay_mode = 'step', decay_interval = '1 day', decay_factor = 0.5 WHERE cluster = 'uv';
RESET fairshare.tree_change_at;
SELECT user_name, raw_usage FROM association_usage_at('2024-06-10 00:00+00') WHERE cluster = 'uv' ORDER BY user_name;

-- the view is the function at now(): the same rows
SELECT count(*) = 3 AS three_users FROM association_usage WHERE cluster = 'uv';

-- as_of NULL or infinite: an error, whatever the tables hold (NULL gave
-- every association zero usage; 'infinity' rows or an error, by the data)
SELECT err('SELECT * FROM association_usage_at(NULL)');                  -- 22004
SELECT err('SELECT * FROM association_usage_at(''-infinity'')');         -- 22008
-- the jobs table refuses infinite instants: one such row made every usage
-- report of the centre fail ("cannot subtract infinite timestamps")
SELECT err($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
             VALUES ('uv', '9', 'cid', 'a', 'p', 'COMPLETED', '-infinity', '-infinity', '2024-06-01', 1)$$);   -- 23514
SELECT err($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
             VALUES ('uv', '9', 'cid', 'a', 'p', 'COMPLETED', '2024-06-01', '2024-06-01', 'infinity', 1)$$);    -- 23514

DELETE FROM jobs WHERE cluster = 'uv';
DELETE FROM clusters WHERE cluster = 'uv';
