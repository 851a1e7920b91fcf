-- The retention scenario of the Citus suite (test/citus/test.sh), loaded on
-- the single server and copied into the coordinator: sql/history.sql's
-- Slurm cluster hx (half-life 7 days) without its PBS cluster and GENCI
-- allocation, so that its first months can go.  Runs in November 2023,
-- January and February 2024 (ended), one in April 2024 still running.
SET timezone = 'UTC';
INSERT INTO fairshare.clusters (cluster, decay_half_life, timezone) VALUES ('hx', '7 days', 'Europe/Paris');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('hx', 'p', 8, 16384);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
VALUES ('hx', 'root', NULL, 1), ('hx', 'a', 'root', 1), ('hx', 'g', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name)
VALUES ('hx', 'a', 'ann'), ('hx', 'a', 'bob'), ('hx', 'g', 'gil');
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('hx', '10', 'ann', 'a', 'p', 'COMPLETED', '2023-11-15 08:00+00', '2023-11-15 08:00+00', '2023-11-15 10:00+00', 2),
  ('hx', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-01-03 10:00+00', '2024-01-03 11:00+00', '2024-01-03 15:00+00', 4),
  ('hx', '2', 'bob', 'a', 'p', 'COMPLETED', '2024-01-20 10:00+00', '2024-01-20 10:30+00', '2024-01-22 10:30+00', 1),
  ('hx', '3', 'ann', 'a', 'p', 'TIMEOUT',   '2024-01-31 23:00+00', '2024-02-01 00:00+00', '2024-02-02 00:00+00', 2),
  ('hx', '4', 'bob', 'a', 'p', 'CANCELLED', '2024-01-25 09:00+00', NULL, '2024-01-25 09:05+00', 1),
  ('hx', '5', 'ann', 'a', 'p', 'COMPLETED', '2024-02-05 08:00+00', '2024-02-05 08:00+00', '2024-02-05 20:00+00', 8),
  ('hx', '6', 'gil', 'g', 'p', 'COMPLETED', '2024-02-10 08:00+00', '2024-02-10 09:00+00', '2024-02-10 19:00+00', 8),
  ('hx', '8', 'bob', 'a', 'p', 'RUNNING',   '2024-04-10 08:00+00', '2024-04-10 09:00+00', NULL, 2);
