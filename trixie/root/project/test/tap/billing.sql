\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(26);

-- API shape
SELECT has_function('fairshare', 'tres_billing', ARRAY['text', 'text', 'text']);
SELECT volatility_is('fairshare', 'tres_billing', ARRAY['text', 'text', 'text'], 'immutable');
SELECT isnt_strict('fairshare', 'tres_billing', ARRAY['text', 'text', 'text'], 'NULL weights bill CPUs, so not STRICT');
SELECT has_function('fairshare', 'tres_count', ARRAY['text', 'text']);
SELECT is_strict('fairshare', 'tres_count', ARRAY['text', 'text']);
SELECT has_function('fairshare', 'core_hours', ARRAY['integer', 'timestamp with time zone', 'timestamp with time zone',
                    'boolean', 'integer', 'integer', 'integer', 'double precision']);
SELECT volatility_is('fairshare', 'core_hours', ARRAY['integer', 'timestamp with time zone', 'timestamp with time zone',
                    'boolean', 'integer', 'integer', 'integer', 'double precision'], 'immutable');

-- defined answers
SELECT is(fairshare.tres_billing('cpu=4,mem=16G,node=1,gres/gpu=2', 'CPU=1.0,Mem=0.25G,GRES/gpu=2.0'), 12::float8,
          'sum: 4×1 + 16384 MiB×0.25/1024 + 2×2 = 12');
SELECT is(fairshare.tres_billing('cpu=4,mem=16G,node=1,gres/gpu=2', 'CPU=1.0,Mem=0.25G,GRES/gpu=3.0', 'MAX_TRES'), 6::float8,
          'max_tres (mode is case-insensitive): max(4, 4, 6) = 6');
SELECT is(fairshare.tres_billing('cpu=4', NULL), 4::float8, 'no weights: the CPU count');
SELECT is(fairshare.tres_billing(NULL, 'CPU=1'), NULL::float8, 'NULL TRES string: NULL');
SELECT is(fairshare.tres_billing('cpu=0,mem=0', 'CPU=1,Mem=1'), 0::float8, 'zero counts bill 0');
SELECT is(fairshare.tres_billing(' cpu=2 , mem=1G ', 'CPU=1,Mem=1G'), 3::float8, 'blanks around items are ignored: 2 + 1');
SELECT is(fairshare.tres_billing('cpu=1e6', 'CPU=1e6'), 1e12::float8, 'huge but finite: 1e6 × 1e6');

-- SQLSTATEs
SELECT throws_ok($$SELECT fairshare.tres_billing('cpu=4,', 'CPU=1')$$, '22P02', NULL, 'trailing comma is an empty item');
SELECT throws_ok($$SELECT fairshare.tres_billing('cpu=4', 'CPU=-1')$$, '22P02', NULL, 'negative weight');
SELECT throws_ok($$SELECT fairshare.tres_billing('cpu=4', 'CPU=1.5.5')$$, '22P02', NULL, 'two decimal points');
SELECT throws_ok($$SELECT fairshare.tres_billing('cpu=4', 'CPU=Infinity')$$, '22P02', NULL, 'infinite weight');
SELECT throws_ok($$SELECT fairshare.tres_billing('cpu=4', 'CPU=1', '')$$, '22023', NULL, 'empty mode');
SELECT throws_ok($$SELECT fairshare.tres_billing('mem=1E', 'Mem=1')$$, '22P02', NULL, 'unit E is not a Slurm suffix');
SELECT throws_ok($$SELECT fairshare.tres_count('cpu==4', 'cpu')$$, '22P02', NULL, 'tres_count checks its input too');
SELECT throws_ok($$SELECT fairshare.core_hours(4, now(), now() - interval '1 s')$$, '22023', NULL, 'core_hours: end before start');
SELECT throws_ok($$SELECT fairshare.core_hours(4, now(), now(), false, -1)$$, '22023', NULL, 'core_hours: negative nodes');

-- the model refuses what billing cannot use
INSERT INTO fairshare.clusters (cluster) VALUES ('tap');
SELECT throws_ok($$INSERT INTO fairshare.partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb)
                   VALUES ('tap', 'p', 'CPU=1,Mem=', 8, 1024)$$, '22P02', NULL, 'partition with malformed TRESBillingWeights');
SELECT throws_ok($$INSERT INTO fairshare.partitions (cluster, partition, billing_mode, cores_per_node, mem_per_node_mb)
                   VALUES ('tap', 'p', 'average', 8, 1024)$$, '23514', NULL, 'partition with unknown billing mode');
SELECT lives_ok($$INSERT INTO fairshare.partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb)
                   VALUES ('tap', 'p', 'CPU=1.0,Mem=0.25G,GRES/gpu=2', 8, 1024)$$, 'partition with valid weights');

SELECT * FROM finish();
ROLLBACK;
