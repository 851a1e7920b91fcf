\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(31);

SELECT has_table('fairshare', t, 'table fairshare.' || t)
  FROM unnest(ARRAY['clusters', 'partitions', 'qos', 'accounts', 'account_users', 'jobs', 'allocations', 'ledger']) t;

INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('m', '14 days');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('m', 'p', 8, 16384);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
  ('m', 'root', NULL, 1), ('m', 'a', 'root', 10), ('m', 'b', 'a', NULL);
INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES ('m', 'b', 'ann', 1);

-- clusters
SELECT throws_ok($$INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('x', '-1 day')$$, '23514', NULL, 'negative half-life');
SELECT throws_ok($$INSERT INTO fairshare.clusters (cluster, weight_fairshare) VALUES ('x', 4294967296)$$, '23514', NULL, 'weight beyond uint32');
SELECT throws_ok($$INSERT INTO fairshare.clusters (cluster, decay_factor) VALUES ('x', 'NaN')$$, '23514', NULL, 'NaN decay factor');
SELECT throws_ok($$INSERT INTO fairshare.clusters (cluster, timezone) VALUES ('x', 'Mars/Olympus')$$, '22023', NULL, 'unknown time zone');
-- partitions
SELECT throws_ok($$INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('m', 'q', 0, 1)$$,
                 '23514', NULL, 'a node has at least one core');
SELECT throws_ok($$INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb, spec) VALUES ('m', 'q', 1, 1, 'Infinity')$$,
                 '23514', NULL, 'infinite spec');
-- the tree
SELECT throws_ok($$INSERT INTO fairshare.accounts VALUES ('m', 'c', 'nowhere', 1)$$, '23503', NULL, 'parent must exist');
SELECT throws_ok($$INSERT INTO fairshare.accounts VALUES ('m', 'c', NULL, 1)$$, '23514', NULL, 'only root has no parent');
SELECT throws_ok($$INSERT INTO fairshare.accounts VALUES ('m', 'c', 'a', -1)$$, '23514', NULL, 'negative shares');
SELECT throws_ok($$UPDATE fairshare.accounts SET parent_account = 'b' WHERE account = 'a'$$, '23514', NULL, 'a cycle a → b → a is refused');
SELECT throws_ok($$UPDATE fairshare.accounts SET shares = NULL WHERE account = 'root'$$, '23514', NULL, 'root cannot be Fairshare=parent');
SELECT lives_ok($$INSERT INTO fairshare.account_users VALUES ('m', 'a', 'ann', NULL)$$, 'one user in two accounts, Fairshare=parent');
-- jobs
SELECT throws_ok($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
                   VALUES ('m', '1', 'ann', 'b', 'p', 'COMPLETED', '2024-01-01', '2024-01-02', '2024-01-01', 1)$$,
                 '23514', NULL, 'a job cannot end before it starts');
SELECT throws_ok($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, cpus)
                   VALUES ('m', '1', 'ann', 'b', 'p', 'PENDING', '2024-01-01', '2024-01-02', 1)$$,
                 '23514', NULL, 'a pending job has not started');
SELECT throws_ok($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
                   VALUES ('m', '1', 'bob', 'b', 'p', 'PENDING', '2024-01-01', 1)$$,
                 '23503', NULL, 'a job belongs to a known user association');
SELECT throws_ok($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus, tres)
                   VALUES ('m', '1', 'ann', 'b', 'p', 'PENDING', '2024-01-01', 1, 'cpu=1,mem')$$,
                 '22P02', NULL, 'a malformed TRES string');
SELECT throws_ok($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
                   VALUES ('m', '1', 'ann', 'b', 'p', 'LOST', '2024-01-01', 1)$$,
                 '23514', NULL, 'an unknown job state');
-- allocations and the ledger
INSERT INTO fairshare.allocations (allocation_id, cluster, account, policy, period_start, period_end, hours)
VALUES (1, 'm', 'a', 'genci', '2024-05-01', '2025-04-30', 1200000);
SELECT throws_ok($$INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
                   VALUES ('m', 'b', 'genci', '2024-05-01', '2024-04-30', 1)$$, '23514', NULL, 'period ends before it starts');
INSERT INTO fairshare.ledger (allocation_id, kind, hours, rule, effective_date) VALUES
  (1, 'addition', 100000, 'manual', '2024-06-01'),
  (1, 'take_back', 50000, 'genci_monthly', '2024-07-15');
SELECT is(fairshare.allocation_net_hours(1, '2024-07-14'), 1300000::float8, 'net before the take-back: 1200000 + 100000');
SELECT is(fairshare.allocation_net_hours(1, '2024-07-15'), 1250000::float8, 'net after: 1200000 + 100000 − 50000');
SELECT throws_ok($$UPDATE fairshare.ledger SET hours = 0$$, '55000', NULL, 'the ledger is append-only: no UPDATE');
SELECT throws_ok($$DELETE FROM fairshare.ledger$$, '55000', NULL, 'the ledger is append-only: no DELETE');
SELECT throws_ok($$INSERT INTO fairshare.ledger (allocation_id, kind, hours, rule, effective_date)
                   VALUES (1, 'take_back', 50000, 'genci_monthly', '2024-07-15')$$, '23505', NULL,
                 'a regulation rule takes hours once per check day');

SELECT * FROM finish();
ROLLBACK;
