\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off
-- The bad-input catalogue (docs/robustness.md#the-bad-input-catalogue): every
-- public function and every table
-- of fairshare fed what a centre's data or a careless query can hold — NULL,
-- NaN, ±Infinity, negatives, zero shares and allocations, empty trees,
-- cycles, orphans, reversed periods, the first and last days PostgreSQL
-- knows, time zones, month ends, leap days, 2^31, 2^63, 1e308, malformed
-- TRES strings and log lines — each with its SQLSTATE or its defined answer
-- (the arithmetic beside it).  The last test proves that the backend that
-- ran all of it is still the one answering: no input crashed it.
--
-- SQLSTATEs: 22004 null value, 22023 invalid parameter, 22P02 malformed
-- text, 22003 out of range, 22008 datetime out of range, 23502 not null,
-- 23503 foreign key, 23505 unique, 23514 check, 55000 append-only ledger.
SELECT pg_backend_pid() AS start_pid \gset
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SET LOCAL search_path = public, fairshare;
SET LOCAL timezone = 'UTC';
SELECT plan(344);

-- ===========================================================================
-- billing: tres_billing, tres_count, tres_weights_valid, core_hours
-- ===========================================================================
SELECT is(tres_billing(NULL, 'CPU=1'), NULL, 'tres_billing: NULL TRES gives NULL');
SELECT is(tres_billing('', NULL), 0::float8, 'tres_billing: empty TRES, no weights: no CPUs to bill, 0');
SELECT is(tres_billing('cpu=4', ''), 4::float8, 'tres_billing: empty weights bill the CPUs: 4');
SELECT is(tres_billing('cpu=4', 'CPU=2', NULL), 8::float8, 'tres_billing: NULL mode is sum: 4 × 2 = 8');
SELECT throws_ok($$SELECT tres_billing('cpu=4', 'CPU=2', '')$$, '22023', NULL, 'tres_billing: empty mode');
SELECT throws_ok($$SELECT tres_billing('cpu=NaN', 'CPU=1')$$, '22P02', NULL, 'tres_billing: NaN count');
SELECT throws_ok($$SELECT tres_billing('cpu=inf', 'CPU=1')$$, '22P02', NULL, 'tres_billing: infinite count');
SELECT throws_ok($$SELECT tres_billing('cpu=-1', 'CPU=1')$$, '22P02', NULL, 'tres_billing: negative count');
SELECT throws_ok($$SELECT tres_billing('cpu=1', 'CPU=-0.5')$$, '22P02', NULL, 'tres_billing: negative weight');
SELECT throws_ok($$SELECT tres_billing('cpu=1e309', 'CPU=1')$$, '22P02', NULL, 'tres_billing: a count beyond float8');
SELECT throws_ok($$SELECT tres_billing('cpu=1e308', 'CPU=10')$$, '22003', NULL, 'tres_billing: 1e308 × 10 overflows float8');
SELECT throws_ok($$SELECT tres_billing('mem=1e308G', 'Mem=1')$$, '22P02', NULL, 'tres_billing: 1e308 GiB in MiB overflows');
SELECT is(tres_billing('cpu=2147483648', 'CPU=1'), 2147483648::float8, 'tres_billing: 2^31 CPUs × 1');
SELECT is(tres_billing('cpu=9223372036854775808', 'CPU=0.5'), 4611686018427387904::float8,
          'tres_billing: 2^63 × 0.5 = 2^62');
SELECT throws_ok($$SELECT tres_billing(',cpu=1', 'CPU=1')$$, '22P02', NULL, 'tres_billing: empty first item');
SELECT throws_ok($$SELECT tres_billing('cpu=1,', 'CPU=1')$$, '22P02', NULL, 'tres_billing: trailing comma');
SELECT throws_ok($$SELECT tres_billing('cpu==1', 'CPU=1')$$, '22P02', NULL, 'tres_billing: two "="');
SELECT throws_ok($$SELECT tres_billing('cpu=1;mem=2', 'CPU=1')$$, '22P02', NULL, 'tres_billing: ";" for ","');
SELECT throws_ok($$SELECT tres_billing('cpü=1', 'CPU=1')$$, '22P02', NULL, 'tres_billing: non-ASCII name');
SELECT throws_ok($$SELECT tres_billing('cpu=1', 'CPU=1,cpu=2')$$, '22P02', NULL, 'tres_billing: a weight given twice (any case)');
SELECT is(tres_count('mem=1T', 'mem'), 1048576::float8, 'tres_count: 1 TiB = 1024² MiB');
SELECT is(tres_count('mem=0.5K', 'mem'), 0.00048828125::float8, 'tres_count: 0.5 KiB = 0.5 / 1024 MiB');
SELECT is(tres_count('cpu=4', ''), 0::float8, 'tres_count: an empty name is absent: 0');
SELECT is(tres_count(NULL, 'cpu'), NULL, 'tres_count: STRICT');
SELECT is(tres_weights_valid('   '), true, 'tres_weights_valid: blanks are an empty list');
SELECT throws_ok($$SELECT tres_weights_valid('CPU=1,Mem')$$, '22P02', NULL, 'tres_weights_valid: item without "="');
SELECT is(core_hours(NULL, '2024-01-01', '2024-01-02'), NULL, 'core_hours: NULL cpus gives NULL');
SELECT throws_ok($$SELECT core_hours(1, '2024-01-02', '2024-01-01')$$, '22023', NULL, 'core_hours: reversed run');
SELECT throws_ok($$SELECT core_hours(-1, '2024-01-01', '2024-01-02')$$, '22023', NULL, 'core_hours: negative cpus');
SELECT throws_ok($$SELECT core_hours(1, '2024-01-01', '2024-01-02', false, 1, NULL, 0, 'Infinity')$$, '22023', NULL,
                 'core_hours: infinite GPU-hour factor');
SELECT throws_ok($$SELECT core_hours(1, '2024-01-01', 'infinity')$$, '22008', NULL, 'core_hours: a run that never ends');
SELECT throws_ok($$SELECT core_hours(1, '-infinity', '2024-01-01')$$, '22008', NULL, 'core_hours: a run that never started');
SELECT throws_ok($$SELECT core_hours(1, '2024-01-01', '2024-01-02', true, 2147483647, 2)$$, '22003', NULL,
                 'core_hours: 2^31 − 1 nodes × 2 cores overflow integer');
SELECT is(core_hours(1, '2024-03-31 01:00 Europe/Paris', '2024-03-31 04:00 Europe/Paris'), 2::float8,
          'core_hours: 01:00 to 04:00 on the night clocks go forward in Paris is 2 h');
SELECT is(core_hours(1, '2024-02-28 00:00+00', '2024-03-01 00:00+00'), 48::float8, 'core_hours: 28 Feb to 1 Mar 2024 holds a leap day: 48 h');

-- ===========================================================================
-- decay: decayed_usage, decayed_usage_slurm, decayed_usage_step,
-- decayed_usage_pbs and the support functions callable from SQL
-- ===========================================================================
SELECT throws_ok($$SELECT decayed_usage('NaN', now(), now(), '1 day')$$, '22023', NULL, 'decayed_usage: NaN usage');
SELECT throws_ok($$SELECT decayed_usage(-1, now(), now(), '1 day')$$, '22023', NULL, 'decayed_usage: negative usage');
SELECT throws_ok($$SELECT decayed_usage('-Infinity', now(), now(), '1 day')$$, '22023', NULL, 'decayed_usage: -Infinity usage');
SELECT throws_ok($$SELECT decayed_usage(1, 'infinity', now(), '1 day')$$, '22008', NULL, 'decayed_usage: at infinity');
SELECT throws_ok($$SELECT decayed_usage(1, now(), NULL, '1 day')$$, '22004', NULL, 'decayed_usage: NULL as_of');
SELECT throws_ok($$SELECT decayed_usage(1, now(), now(), '-1 day')$$, '22023', NULL, 'decayed_usage: negative half-life');
SELECT throws_ok($$SELECT decayed_usage(1, '2024-01-02', '2024-01-01', '2024-02-01', '1 day')$$, '22023', NULL,
                 'decayed_usage: a run that ends before it starts');
SELECT is(decayed_usage(1, now(), now(), '1 day') FILTER (WHERE false), NULL, 'decayed_usage: no rows gives NULL');
SELECT is(decayed_usage(1, '4713-01-01 00:00+00 BC', '294276-12-31 23:59:59+00', '1 day'), 0::float8,
          'decayed_usage: from 4713 BC to 294276 AD a 1-day half-life leaves 2^-108 million = 0');
SELECT is(decayed_usage(1, '294276-12-31 23:59:59+00', '4713-01-01 00:00+00 BC', '1 day'), 0::float8,
          'decayed_usage: usage after as_of counts nothing: 0');
SELECT throws_ok($$SELECT decayed_usage(1e308, now(), now(), NULL) FROM generate_series(1, 2)$$, '22003', NULL,
                 'decayed_usage: 1e308 + 1e308 overflows float8');
SELECT is(decayed_usage_slurm(1, '2024-01-01 00:00:00+00', '2024-01-01 00:00:01+00', '0.5 seconds'), 0::float8,
          'decayed_usage_slurm: half-life under 0.693 s: factor 1 − 0.693/0.5 < 0, nothing left after 1 s');
SELECT throws_ok($$SELECT decayed_usage_step(1, now(), now(), '1 day', 1.5)$$, '22023', NULL, 'decayed_usage_step: factor above 1');
SELECT throws_ok($$SELECT decayed_usage_step(1, now(), now(), '0', 0.5)$$, '22023', NULL, 'decayed_usage_step: zero interval');
SELECT is(decayed_usage_step(8, '2024-02-29 12:00+00', '2024-03-01 12:00+00', '1 day', 0.5), 4::float8,
          'decayed_usage_step: leap day noon to 1 March noon crosses one UTC midnight: 8 × 0.5');
SET LOCAL timezone = 'Pacific/Kiritimati';
SELECT is(decayed_usage_step(8, '2024-02-29 12:00+00', '2024-03-01 12:00+00', '1 day', 0.5), 4::float8,
          'decayed_usage_step: the same in a UTC+14 session: steps count from 1970-01-01 UTC');
SET LOCAL timezone = 'UTC';
SELECT throws_ok($$SELECT decayed_usage_pbs(1, '4713-01-01 00:00+00 BC', '294276-12-31 23:59:59+00', '1 microsecond', 0.5)$$,
                 '22023', NULL, 'decayed_usage_pbs: microsecond steps over 300000 years');
SELECT throws_ok($$SELECT decayed_usage_pbs(1, now(), NULL, '1 day', 0.5)$$, '22004', NULL, 'decayed_usage_pbs: NULL as_of');
SELECT throws_ok($$SELECT decayed_usage_pbs(1, now(), now() + g * interval '1 day', '1 day', 0.5) FROM generate_series(1, 2) g$$,
                 '22023', NULL, 'decayed_usage_pbs: as_of differs between rows of a group');
SELECT throws_ok($$SELECT fairshare_internal._decay_point_accum(NULL, 1, now(), now(), '1 day')$$, '22004', NULL,
                 '_decay_point_accum: a NULL state (was a segfault)');
SELECT throws_ok($$SELECT fairshare_internal._decay_step_span_accum(NULL, NULL, NULL, NULL, NULL, NULL, NULL)$$, '22004', NULL,
                 '_decay_step_span_accum: a NULL state and NULL row');
SELECT throws_ok($$SELECT fairshare_internal._decay_final('{1,2}')$$, '22023', NULL, '_decay_final: a 2-element state');
SELECT throws_ok($$SELECT fairshare_internal._decay_combine('{1,2,3}', '{{1,2,3}}')$$, '22023', NULL, '_decay_combine: a 2-D state');

-- ===========================================================================
-- trees: fair_tree_*, classic_*, tree_*, pbs_* window functions
-- ===========================================================================
SELECT is((SELECT count(*)::int FROM (SELECT fair_tree_rank(id, p, 1, 0, u) OVER ()
             FROM (VALUES ('root', NULL, false)) t(id, p, u) WHERE false) x), 0,
          'fair_tree_rank: an empty tree gives no rows');
SELECT is((SELECT fair_tree_rank(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL::text, false)) t(id, p, u)), NULL::bigint,
          'fair_tree_rank: a tree of only the root has no user to rank: NULL');
SELECT throws_ok($$SELECT fair_tree_rank(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL, false), ('a', 'b', false), ('b', 'a', false)) t(id, p, u)$$,
                 '23514', NULL, 'fair_tree_rank: a cycle beside the root');
SELECT throws_ok($$SELECT tree_depth(id, p, 1, 0, u) OVER () FROM (VALUES ('a', 'b', false), ('b', 'a', false)) t(id, p, u)$$,
                 '23514', NULL, 'tree_depth: a cycle and no root');
SELECT throws_ok($$SELECT fair_tree_factor(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL, false), ('x', 'gone', true)) t(id, p, u)$$,
                 '23503', NULL, 'fair_tree_factor: an orphan (parent not in the tree)');
SELECT throws_ok($$SELECT tree_order(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL, false), ('x', 'root', true), ('x', 'root', true)) t(id, p, u)$$,
                 '23505', NULL, 'tree_order: the same id twice');
SELECT throws_ok($$SELECT tree_raw_usage(id, p, 1, 0, u) OVER () FROM (VALUES ('r1', NULL, false), ('r2', NULL, false)) t(id, p, u)$$,
                 '23514', NULL, 'tree_raw_usage: two roots');
SELECT throws_ok($$SELECT fair_tree_level_fs(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL, false), ('x', 'root', true), ('y', 'x', true)) t(id, p, u)$$,
                 '23514', NULL, 'fair_tree_level_fs: a user with a child');
SELECT throws_ok($$SELECT fair_tree_norm_shares(id, p, 1, 0, u) OVER () FROM (VALUES (NULL, NULL, false)) t(id, p, u)$$,
                 '22004', NULL, 'fair_tree_norm_shares: NULL id');
SELECT throws_ok($$SELECT fair_tree_effective_usage(id, p, 1, NULL, u) OVER () FROM (VALUES ('root', NULL, false)) t(id, p, u)$$,
                 '22004', NULL, 'fair_tree_effective_usage: NULL usage');
SELECT throws_ok($$SELECT classic_norm_shares(id, p, s, 0, u) OVER () FROM (VALUES ('root', NULL, 1, false), ('x', 'root', 'NaN'::float8, true)) t(id, p, s, u)$$,
                 '22023', NULL, 'classic_norm_shares: NaN shares');
SELECT throws_ok($$SELECT classic_effective_usage(id, p, 1, us, u) OVER () FROM (VALUES ('root', NULL, 0, false), ('x', 'root', 'Infinity'::float8, true)) t(id, p, us, u)$$,
                 '22023', NULL, 'classic_effective_usage: infinite usage');
SELECT throws_ok($$SELECT tree_norm_usage(id, p, 1, us, u) OVER () FROM (VALUES ('root', NULL, 0, false), ('x', 'root', -1, true)) t(id, p, us, u)$$,
                 '22023', NULL, 'tree_norm_usage: negative usage');
SELECT throws_ok($$SELECT classic_factor(id, p, 1, 0, u, 0) OVER () FROM (VALUES ('root', NULL, false)) t(id, p, u)$$,
                 '22023', NULL, 'classic_factor: dampening 0');
SELECT throws_ok($$SELECT classic_factor(id, p, 1, 0, u, NULL) OVER () FROM (VALUES ('root', NULL, false)) t(id, p, u)$$,
                 '22004', NULL, 'classic_factor: NULL dampening');
SELECT throws_ok($$SELECT fair_tree_effective_usage(id, p, 1, us, u) OVER () FROM (VALUES ('root', NULL, 0, false), ('x', 'root', 1e308, true), ('y', 'root', 1e308, true)) t(id, p, us, u)$$,
                 '22003', NULL, 'fair_tree_effective_usage: 1e308 + 1e308 of usage');
-- zero shares everywhere: S = 0 so LF = 0 for both users, tied: both rank N = 2, factor 2/2
SELECT results_eq($$SELECT fair_tree_factor(id, p, s, us, u) OVER () FROM (VALUES ('root', NULL, 0, 0, false), ('x', 'root', 0, 5, true), ('y', 'root', 0, 0, true)) t(id, p, s, us, u) ORDER BY id$$,
                  $$VALUES (NULL::float8), (1), (1)$$, 'fair_tree_factor: zero shares: the users tie at 1');
-- classic: NormShares 0 gives factor 0 (documented), whatever the usage
SELECT results_eq($$SELECT classic_factor(id, p, s, us, u) OVER () FROM (VALUES ('root', NULL, 0, 0, false), ('x', 'root', 0, 5, true), ('y', 'root', 0, 0, true)) t(id, p, s, us, u) ORDER BY id$$,
                  $$VALUES (NULL::float8), (0), (0)$$, 'classic_factor: zero shares give 0');
SELECT throws_ok($$SELECT pbs_fairshare_perc(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL, false), ('a', 'b', false), ('b', 'a', false)) t(id, p, u)$$,
                 '22023', NULL, 'pbs_fairshare_perc: a cycle');
SELECT throws_ok($$SELECT pbs_fairshare_usage(id, p, s, 0, u) OVER () FROM (VALUES ('root', NULL, 1, false), ('x', 'root', NULL, true)) t(id, p, s, u)$$,
                 '22004', NULL, 'pbs_fairshare_usage: NULL shares (PBS has no Fairshare=parent)');
SELECT throws_ok($$SELECT pbs_tree_usage(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL, false), ('x', 'gone', true)) t(id, p, u)$$,
                 '22023', NULL, 'pbs_tree_usage: an orphan');
SELECT throws_ok($$SELECT pbs_fairshare_factor(id, p, 1, us, u) OVER () FROM (VALUES ('root', NULL, 0, false), ('x', 'root', 1e308, true), ('y', 'root', 1e308, true)) t(id, p, us, u)$$,
                 '22023', NULL, 'pbs_fairshare_factor: usage past float8');
SELECT throws_ok($$SELECT pbs_fairshare_rank(id, p, 1, 0, u) OVER () FROM (VALUES ('root', NULL, true)) t(id, p, u)$$,
                 '22023', NULL, 'pbs_fairshare_rank: the root is a user');
-- zero shares: perc 0 below the root, factor 0 (documented)
SELECT results_eq($$SELECT pbs_fairshare_factor(id, p, s, us, u) OVER () FROM (VALUES ('root', NULL, 0, 0, false), ('x', 'root', 0, 5, true)) t(id, p, s, us, u) ORDER BY id$$,
                  $$VALUES (NULL::float8), (0)$$, 'pbs_fairshare_factor: zero shares give 0');

-- ===========================================================================
-- MetaCentrum / PBS usage: processor_equivalent(_parts), metacentrum_usage,
-- publication_multiplier
-- ===========================================================================
SELECT is(processor_equivalent(NULL, 0, 0, 0, 8, 1, 1, 1), NULL, 'processor_equivalent: STRICT');
SELECT throws_ok($$SELECT processor_equivalent(1, 0, 0, 0, 0, 1, 1, 1)$$, '22023', NULL, 'processor_equivalent: node of 0 CPUs');
SELECT throws_ok($$SELECT processor_equivalent('NaN', 0, 0, 0, 8, 1, 1, 1)$$, '22023', NULL, 'processor_equivalent: NaN CPUs');
SELECT throws_ok($$SELECT processor_equivalent(1, 0, 0, 0, 8, 1, 1, 1, 0)$$, '22023', NULL, 'processor_equivalent: 0 nodes');
SELECT throws_ok($$SELECT processor_equivalent(1, 0, 0, 0, 8, 1, 1, 1, 1, 'avg')$$, '22023', NULL, 'processor_equivalent: unknown mode');
SELECT throws_ok($$SELECT * FROM processor_equivalent_parts(1, 0, 0, 0, 8, 1, 1, 1, 1, 'sum', -1)$$, '22023', NULL,
                 'processor_equivalent_parts: negative weight');
SELECT throws_ok($$SELECT metacentrum_usage(1, '-1 day', 3)$$, '22023', NULL, 'metacentrum_usage: negative walltime');
SELECT throws_ok($$SELECT metacentrum_usage(1, '1 day', 0)$$, '22023', NULL, 'metacentrum_usage: spec 0');
SELECT throws_ok($$SELECT metacentrum_usage(1e308, '1000 years', 10)$$, '22003', NULL, 'metacentrum_usage: 1e308 PE for 1000 years');
SELECT throws_ok($$SELECT publication_multiplier('NaN', 0.9)$$, '22023', NULL, 'publication_multiplier: NaN publications');
SELECT throws_ok($$SELECT publication_multiplier(1, 0)$$, '22023', NULL, 'publication_multiplier: factor 0');
SELECT is(publication_multiplier(0, 0.9), 1::float8, 'publication_multiplier: no publication: 0.9^0 = 1');

-- ===========================================================================
-- priority: job_priority, age_factor, job_size_factor, partition_factor,
-- qos_factor
-- ===========================================================================
SELECT throws_ok($$SELECT job_priority(1.5)$$, '22023', NULL, 'job_priority: factor above 1');
SELECT throws_ok($$SELECT job_priority('NaN')$$, '22023', NULL, 'job_priority: NaN factor');
SELECT throws_ok($$SELECT job_priority(0.5, weight_fairshare => -1)$$, '22023', NULL, 'job_priority: negative weight');
SELECT throws_ok($$SELECT job_priority(0.5, weight_age => 'Infinity')$$, '22023', NULL, 'job_priority: infinite weight');
SELECT is(job_priority(1, weight_fairshare => 1e308), 4294967295::bigint, 'job_priority: 1e308 is capped at 2^32 − 1');
SELECT is(job_priority(1, weight_fairshare => 100, nice => 9223372036854775807), 1::bigint,
          'job_priority: nice 2^63 − 1 drives it below 1, which gives 1 (0 means held)');
SELECT is(job_priority(0, nice => -9223372036854775808), 4294967295::bigint, 'job_priority: nice −2^63 is capped at 2^32 − 1');
SELECT is(job_priority(NULL), NULL, 'job_priority: STRICT');
SELECT is(age_factor('2024-01-01', NULL, '7 days'), NULL, 'age_factor: NULL as_of gives NULL');
SELECT is(age_factor(NULL, '2024-01-01', '7 days'), 0::float8, 'age_factor: not eligible: 0');
SELECT is(age_factor('2024-01-01', '2024-01-02', '0'), 1::float8, 'age_factor: max_age 0 gives 1');
SELECT throws_ok($$SELECT age_factor('2024-01-01', '2024-01-02', '-1 day')$$, '22023', NULL, 'age_factor: negative max_age');
SELECT throws_ok($$SELECT age_factor('2024-01-01', 'infinity', '7 days')$$, '22008', NULL, 'age_factor: infinite as_of');
SELECT is(age_factor('2024-02-28 12:00+00', '2024-03-01 12:00+00', '4 days'), 0.5::float8,
          'age_factor: over the leap day, 2 days of 4');
SELECT is(age_factor('4713-01-01 00:00+00 BC', '294276-12-31 23:59:59+00', '1 microsecond'), 1::float8,
          'age_factor: pending since 4713 BC: 1');
SELECT throws_ok($$SELECT job_size_factor(1, 1, 0, 8)$$, '22023', NULL, 'job_size_factor: a cluster of 0 nodes');
SELECT throws_ok($$SELECT job_size_factor(-1, 1, 4, 8)$$, '22023', NULL, 'job_size_factor: negative nodes');
SELECT is(job_size_factor(9223372036854775807, 9223372036854775807, 1, 1), 1::float8, 'job_size_factor: 2^63 − 1 nodes is clamped to 1');
SELECT throws_ok($$SELECT partition_factor(5, 3)$$, '22023', NULL, 'partition_factor: above the largest');
SELECT is(partition_factor(0, 0), 0::float8, 'partition_factor: 0 of 0 is 0');
SELECT throws_ok($$SELECT qos_factor(-1, 10)$$, '22023', NULL, 'qos_factor: negative priority');
SELECT is(qos_factor(9223372036854775807, 9223372036854775807), 1::float8, 'qos_factor: 2^63 − 1 of 2^63 − 1');

-- ===========================================================================
-- GENCI (pure): theoretical_consumption, genci_period_months,
-- genci_allocation_month, genci_status, genci_penalty, genci_midterm_*
-- ===========================================================================
SELECT throws_ok($$SELECT theoretical_consumption(100, '2024-12-31', '2024-01-01', '2024-06-01')$$, '22023', NULL,
                 'theoretical_consumption: reversed period');
SELECT throws_ok($$SELECT theoretical_consumption('NaN', '2024-01-01', '2024-12-31', '2024-06-01')$$, '22023', NULL,
                 'theoretical_consumption: NaN allocation');
SELECT throws_ok($$SELECT theoretical_consumption(100, '-infinity', '2024-12-31', '2024-06-01')$$, '22008', NULL,
                 'theoretical_consumption: infinite period start');
SELECT throws_ok($$SELECT theoretical_consumption(1e308, '2024-01-01', '2024-12-31', '2024-07-01')$$, '22003', NULL,
                 'theoretical_consumption: 1e308 h × 182 days overflows');
SELECT is(theoretical_consumption(0, '2024-01-01', '2024-12-31', '2024-07-01'), 0::float8, 'theoretical_consumption: zero allocation: 0');
SELECT is(theoretical_consumption(366, '2024-01-01', '2024-12-31', '2024-03-01'), 60::float8,
          'theoretical_consumption: leap year, D = 366, E = 31 + 29 = 60: 366 × 60 / 366');
SELECT is(genci_period_months('2024-02-29', '2025-02-27'), 12::float8,
          'genci_period_months: from a leap day: 29 Feb + 12 months is 28 Feb 2025, the day after the end');
SELECT is(genci_period_months('2024-01-31', '2024-02-29'), 360 / 365.25::float8,
          'genci_period_months: 31 Jan to 29 Feb is not whole months: 30 days × 12 / 365.25');
SELECT is(genci_allocation_month('2024-01-31', '2024-02-29'), 2,
          'genci_allocation_month: month 1 of a period from 31 Jan ends 28 Feb (31 Jan + 1 month = 29 Feb)');
SELECT is(genci_allocation_month('2024-01-01', '4713-01-01 BC'), 0, 'genci_allocation_month: before the start: 0');
SELECT throws_ok($$SELECT genci_allocation_month('2024-01-01', '5874897-12-31')$$, '22008', NULL,
                 'genci_allocation_month: the last date PostgreSQL knows is beyond timestamps');
SELECT throws_ok($$SELECT * FROM genci_status(100, 0, '2024-01-01', '2024-12-31', '2024-07-15', 'idris')$$, '22023', NULL,
                 'genci_status: unknown variant');
SELECT results_eq($$SELECT status, ratio, penalty FROM genci_status(0, 0, '2024-01-01', '2024-12-31', '2024-07-15')$$,
                  $$VALUES (NULL::text, NULL::float8, 0::float8)$$, 'genci_status: zero allocation: no ratio, no status, nothing taken');
SELECT throws_ok($$SELECT * FROM genci_status(100, '-Infinity', '2024-01-01', '2024-12-31', '2024-07-15')$$, '22023', NULL,
                 'genci_status: -Infinity consumed');
SELECT is(genci_penalty(100, 0, '2024-01-01', '2024-12-31', NULL), NULL, 'genci_penalty: STRICT');
SELECT throws_ok($$SELECT * FROM genci_midterm_status(100, 0, '2024-01-01', '2024-12-31', '2024-06-01', 1.5)$$, '22023', NULL,
                 'genci_midterm_status: cap above 1');
SELECT throws_ok($$SELECT genci_midterm_penalty(100, 0, '2024-01-01', '2024-12-31', '2024-06-01', 0.4, 'NaN')$$, '22023', NULL,
                 'genci_midterm_penalty: NaN used limit');

-- ===========================================================================
-- RWTH (pure): rwth_available_quota, rwth_quota_status
-- ===========================================================================
SELECT throws_ok($$SELECT rwth_available_quota(1000, NULL, 1000, 0, 0)$$, '22004', NULL, 'rwth_available_quota: NULL current allowance');
SELECT throws_ok($$SELECT rwth_available_quota(1000, 1000, 1000, 'NaN', 0)$$, '22023', NULL, 'rwth_available_quota: NaN consumption');
SELECT throws_ok($$SELECT rwth_available_quota(1000, -1, 1000, 0, 0)$$, '22023', NULL, 'rwth_available_quota: negative allowance');
SELECT throws_ok($$SELECT rwth_available_quota(1000, 1000, 1000, NULL, 0)$$, '22004', NULL,
                 'rwth_available_quota: previous month in the period without its consumption');
SELECT is(rwth_available_quota(NULL, 1000, 1000, NULL, 300), 1700::float8,
          'rwth_available_quota: first month: 0 + 1000 + 1000 − 300');
SELECT results_eq($$SELECT balance_pct, available_pct, low_priority FROM rwth_quota_status(NULL, 0, NULL, NULL, 0)$$,
                  $$VALUES (NULL::float8, NULL::float8, true)$$, 'rwth_quota_status: zero allowance: percentages NULL, available 0 is low priority');
SELECT throws_ok($$SELECT * FROM rwth_quota_status(NULL, 1000, NULL, NULL, 0, 'Infinity', 0)$$, '22023', NULL,
                 'rwth_quota_status: infinite total allowance');
-- rwth_month_status (either rule: docs/policies.md#the-three-consecutive-months-rule)
SELECT throws_ok($$SELECT * FROM rwth_month_status('{2000,2000}', '{0,0}', 1, 'sliding')$$, '22023',
                 'rwth_month_status: rule must be window or three_months, not "sliding"', 'rwth_month_status: unknown rule');
SELECT throws_ok($$SELECT * FROM rwth_month_status('{2000,2000}', '{0,0}', 3, 'three_months')$$, '22023',
                 'rwth_month_status: month must be between 1 and 2 (the months of allowances), not 3', 'rwth_month_status: month after the period');
SELECT throws_ok($$SELECT * FROM rwth_month_status('{2000,NULL}', '{0,0}', 1, 'three_months')$$, '22004',
                 'rwth_month_status: allowances[2] is NULL', 'rwth_month_status: NULL allowance');
SELECT is((rwth_month_status('{2000,2000,2000,2000,2000,2000}', '{0,2000,3000,3000}', 4, 'three_months')).available, -2000::float8,
          'rwth_month_status: three_months, (2000, 3000, 3000) after an unused month: 6000 − 8000');

-- ===========================================================================
-- The tables: what their constraints refuse
-- ===========================================================================
-- a tiny centre: cluster bi (Paris), partition p billing CPU=1, root → a → ann, bob
INSERT INTO clusters (cluster, decay_half_life, timezone) VALUES ('bi', '0', 'Europe/Paris');
INSERT INTO partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb) VALUES ('bi', 'p', 'CPU=1', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('bi', 'root', NULL, 1), ('bi', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name, shares) VALUES ('bi', 'a', 'ann', 1), ('bi', 'a', 'bob', 1);
-- ann: 2 CPUs from 28 Feb 2024 23:00 to the leap day 01:00 UTC: 2 × 7200 s = 14400 billing-seconds, 4 core-hours
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, tres, cpus)
VALUES ('bi', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-02-28 22:00+00', '2024-02-28 23:00+00', '2024-02-29 01:00+00', 'cpu=2', 2);
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours) VALUES ('bi', 'a', 'genci', '2024-01-01', '2024-12-31', 366);
-- clusters
SELECT throws_ok($$INSERT INTO clusters (cluster) VALUES ('')$$, '23514', NULL, 'clusters: empty name');
SELECT throws_ok($$INSERT INTO clusters (cluster) VALUES (NULL)$$, '23502', NULL, 'clusters: NULL name');
SELECT throws_ok($$INSERT INTO clusters (cluster, priority_calc_period) VALUES ('bad', '-1 second')$$, '22023',
                 'priority_calc_period must be a positive interval, not -00:00:01', 'clusters: a calc period <= 0 names itself');
SELECT throws_ok($$INSERT INTO clusters (cluster, usage_reset_period) VALUES ('bad', 'HOURLY')$$, '22023',
                 'usage_reset_period must be NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY, not "HOURLY"',
                 'clusters: an unknown reset period names itself');
SELECT throws_ok($$SELECT slurm_cluster_size('PartitionName=p Nodes=ALL')$$, '22023', NULL, 'slurm_cluster_size: no node');
SELECT throws_ok($$INSERT INTO clusters (cluster, timezone) VALUES ('x', 'Mars/Olympus')$$, '22023', NULL, 'clusters: unknown time zone');
SELECT throws_ok($$INSERT INTO clusters (cluster, decay_factor) VALUES ('x', 'NaN')$$, '23514', NULL, 'clusters: NaN decay factor');
SELECT throws_ok($$INSERT INTO clusters (cluster, weight_fairshare) VALUES ('x', 9223372036854775808)$$, '22003', NULL,
                 'clusters: a weight of 2^63 is not a bigint');
SELECT throws_ok($$INSERT INTO clusters (cluster, fairshare_dampening) VALUES ('x', 'Infinity')$$, '23514', NULL, 'clusters: infinite dampening');
-- partitions and QOS
SELECT throws_ok($$INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, billing_weights) VALUES ('bi', 'q', 8, 1, 'CPU=1,,Mem=1')$$,
                 '22P02', NULL, 'partitions: malformed TRESBillingWeights');
SELECT throws_ok($$INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('nowhere', 'q', 8, 1)$$,
                 '23503', NULL, 'partitions: unknown cluster');
SELECT throws_ok($$INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('bi', 'q', 2147483648, 1)$$,
                 '22003', NULL, 'partitions: 2^31 cores per node is not an integer');
SELECT throws_ok($$INSERT INTO qos (cluster, qos, usage_factor) VALUES ('bi', 'q', 'NaN')$$, '23514', NULL, 'qos: NaN UsageFactor');
-- the account tree
SELECT throws_ok($$UPDATE accounts SET parent_account = 'a' WHERE cluster = 'bi' AND account = 'a'$$, '23514', NULL,
                 'accounts: an account as its own parent');
SELECT throws_ok($$INSERT INTO accounts (cluster, account, parent_account) VALUES ('bi', 'orphan', 'gone')$$, '23503', NULL,
                 'accounts: an orphan');
SELECT throws_ok($$INSERT INTO accounts (cluster, account, parent_account) VALUES ('bi', 'root2', NULL)$$, '23514', NULL,
                 'accounts: a second root');
SELECT throws_ok($$INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('bi', 'b', 'root', -1)$$, '23514', NULL,
                 'accounts: negative shares');
SELECT throws_ok($$INSERT INTO account_users (cluster, account, user_name) VALUES ('bi', 'gone', 'cid')$$, '23503', NULL,
                 'account_users: unknown account');
-- jobs
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
                   VALUES ('bi', '2', 'ann', 'a', 'p', 'COMPLETED', '2024-01-01', '2024-01-01', 'infinity', 1)$$,
                 '23514', NULL, 'jobs: a job that ends at infinity');
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
                   VALUES ('bi', '2', 'ann', 'a', 'p', 'PENDING', '-infinity', 1)$$,
                 '23514', NULL, 'jobs: submitted at -infinity');
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
                   VALUES ('bi', '2', 'ann', 'a', 'p', 'PENDING', '2024-01-01', '2024-01-01', NULL, 1)$$,
                 '23514', NULL, 'jobs: a pending job with a start');
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
                   VALUES ('bi', '2', 'ann', 'a', 'p', 'LOST', '2024-01-01', 1)$$,
                 '23514', NULL, 'jobs: unknown state');
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus, tres)
                   VALUES ('bi', '2', 'ann', 'a', 'p', 'PENDING', '2024-01-01', 1, 'cpu=1,mem=-1')$$,
                 '22P02', NULL, 'jobs: malformed TRES');
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
                   VALUES ('bi', '2', 'ann', 'a', 'p', 'PENDING', '2024-01-01', 2147483648)$$,
                 '22003', NULL, 'jobs: 2^31 CPUs');
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus, time_limit)
                   VALUES ('bi', '2', 'ann', 'a', 'p', 'PENDING', '2024-01-01', 1, '0')$$,
                 '23514', NULL, 'jobs: zero time limit');
SELECT throws_ok($$INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, cpus)
                   VALUES ('bi', '2', 'dan', 'a', 'p', 'PENDING', '2024-01-01', 1)$$,
                 '23503', NULL, 'jobs: a user without an association');
-- allocations and the ledger
SELECT throws_ok($$INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours) VALUES ('bi', 'a', 'genci', '2025-12-31', '2025-01-01', 1)$$,
                 '23514', NULL, 'allocations: reversed period');
SELECT throws_ok($$INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours) VALUES ('bi', 'a', 'genci', '2025-01-01', 'infinity', 1)$$,
                 '23514', NULL, 'allocations: a period without an end');
SELECT throws_ok($$INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours) VALUES ('bi', 'a', 'genci', '2025-01-01', '2025-12-31', 'NaN')$$,
                 '23514', NULL, 'allocations: NaN hours');
SELECT throws_ok($$INSERT INTO ledger (allocation_id, kind, hours, effective_date) SELECT allocation_id, 'take_back', -5, '2024-02-01' FROM allocations WHERE cluster = 'bi'$$,
                 '23514', NULL, 'ledger: negative hours');
SELECT lives_ok($$INSERT INTO ledger (allocation_id, kind, hours, rule, effective_date) SELECT allocation_id, 'take_back', 5, 'genci_monthly', '2024-03-15' FROM allocations WHERE cluster = 'bi'$$,
                'ledger: a regulation take-back');
SELECT throws_ok($$INSERT INTO ledger (allocation_id, kind, hours, rule, effective_date) SELECT allocation_id, 'take_back', 5, 'genci_monthly', '2024-03-15' FROM allocations WHERE cluster = 'bi'$$,
                 '23505', NULL, 'ledger: the same rule twice on one day');
SELECT throws_ok($$UPDATE ledger SET hours = 0$$, '55000', NULL, 'ledger: UPDATE');
SELECT throws_ok($$DELETE FROM ledger$$, '55000', NULL, 'ledger: DELETE');
SELECT throws_ok($$TRUNCATE ledger$$, '55000', NULL, 'ledger: TRUNCATE');
-- the regulation's tables
SELECT throws_ok($$INSERT INTO genci_settings (cluster, midterm_cap) VALUES ('bi', 2)$$, '23514', NULL, 'genci_settings: cap 2');
SELECT throws_ok($$INSERT INTO regulation_checks (allocation_id, rule, check_day, net_hours, consumed, theoretical, lag, hours_taken)
                   SELECT allocation_id, 'genci_monthly', '2024-03-15', 1, 1, 1, 0, -1 FROM allocations WHERE cluster = 'bi'$$,
                 '23514', NULL, 'regulation_checks: negative hours taken');
SELECT throws_ok($$INSERT INTO regulation_notifications (allocation_id, cluster, account, rule, check_day, kind, message)
                   SELECT allocation_id, 'bi', 'a', 'genci_monthly', '2024-03-15', 'spam', 'x' FROM allocations WHERE cluster = 'bi'$$,
                 '23514', NULL, 'regulation_notifications: unknown kind');
-- MetaCentrum's tables
SELECT throws_ok($$INSERT INTO pbs_settings (cluster, publication_factor) VALUES ('bi', 0)$$, '23514', NULL, 'pbs_settings: factor 0');
SELECT throws_ok($$INSERT INTO publications (user_name, title, published) VALUES ('ann', 'x', 'infinity')$$, '23514', NULL,
                 'publications: published at infinity');

-- ===========================================================================
-- Time travel over the model: association_usage_at, association_tree_at,
-- sshare_at, sprio_at, start_next, sshare_explain, metacentrum_*_at,
-- pbsfs_at, genci_report_at, apply_genci_regulation, rwth_monthly_usage_at,
-- r_wlm_usage_at, allocation_*, account_core_hours
-- ===========================================================================
SELECT throws_ok($$SELECT * FROM association_usage_at(NULL)$$, '22004', NULL, 'association_usage_at: NULL as_of');
SELECT throws_ok($$SELECT * FROM association_usage_at('infinity')$$, '22008', NULL, 'association_usage_at: infinity');
SELECT is((SELECT raw_usage FROM association_usage_at('2024-02-29 02:00+01') WHERE user_name = 'ann'), 14400::float8,
          'association_usage_at: 02:00+01 is 01:00 UTC, the end of the job: 2 CPUs × 7200 s');
SET LOCAL timezone = 'America/Los_Angeles';
SELECT is((SELECT raw_usage FROM association_usage_at('2024-02-29 00:00+00') WHERE user_name = 'ann'), 7200::float8,
          'association_usage_at: half the job by midnight UTC, in a Los Angeles session too: 2 × 3600');
SET LOCAL timezone = 'UTC';
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM association_usage_at('4713-01-01 00:00+00 BC') WHERE cluster = 'bi' ORDER BY user_name$$,
                  $$VALUES ('ann', 0::float8, 0::bigint), ('bob', 0, 0)$$, 'association_usage_at: 4713 BC: nothing had run');
UPDATE clusters SET decay_half_life = '1 day' WHERE cluster = 'bi';
SELECT results_eq($$SELECT user_name, raw_usage, jobs FROM association_usage_at('294276-12-31 23:59:59+00') WHERE cluster = 'bi' ORDER BY user_name$$,
                  $$VALUES ('ann', 0::float8, 1::bigint), ('bob', 0, 0)$$,
                  'association_usage_at: 294276 AD: the job counted, decayed over 100 million half-lives to 0');
SELECT results_eq($$SELECT user_name, fairshare FROM sshare_at('294276-12-31 23:59:59+00') WHERE cluster = 'bi' AND user_name IS NOT NULL ORDER BY user_name$$,
                  $$VALUES ('ann', 1::float8), ('bob', 1)$$, 'sshare_at: 294276 AD: no usage left, both users tie at 2/2');
SELECT throws_ok($$SELECT * FROM sshare_at(NULL)$$, '22004', NULL, 'sshare_at: NULL as_of');
SELECT throws_ok($$SELECT * FROM association_tree_at('-infinity')$$, '22008', NULL, 'association_tree_at: -infinity');
SELECT is((SELECT count(*)::int FROM sprio_at(NULL)), 0, 'sprio_at: STRICT, NULL as_of gives no rows');
SELECT throws_ok($$SELECT * FROM sprio_at('infinity')$$, '22008', NULL, 'sprio_at: infinity');
SELECT throws_ok($$SELECT * FROM start_next('[{"cluster": "bi", "partition": "p", "cpus": -1}]')$$, '22023', NULL,
                 'start_next: negative free CPUs');
SELECT throws_ok($$SELECT * FROM start_next('{"cluster": "bi"}')$$, '22023', NULL, 'start_next: an object, not an array');
SELECT throws_ok($$SELECT * FROM start_next(NULL)$$, '22004', NULL, 'start_next: NULL');
SELECT throws_ok($$SELECT * FROM sshare_explain('bi', 'ann', 'nobody')$$, '22023', NULL, 'sshare_explain: unknown user');
SELECT throws_ok($$SELECT * FROM sshare_explain(NULL, 'ann', 'bob')$$, '22023', NULL, 'sshare_explain: NULL cluster');
SELECT throws_ok($$SELECT * FROM metacentrum_job_usage_at(NULL)$$, '22004', NULL, 'metacentrum_job_usage_at: NULL as_of');
SELECT throws_ok($$SELECT * FROM metacentrum_user_usage_at('infinity')$$, '22008', NULL, 'metacentrum_user_usage_at: infinity');
SELECT throws_ok($$SELECT * FROM pbsfs_at(NULL)$$, '22004', NULL, 'pbsfs_at: NULL as_of');
SELECT throws_ok($$SELECT * FROM genci_report_at(NULL)$$, '22004', NULL, 'genci_report_at: NULL day');
SELECT results_eq($$SELECT status, ratio, penalty FROM genci_report_at('4713-01-01 BC') WHERE cluster = 'bi'$$,
                  $$VALUES ('on track'::text, 0::float8, 0::float8)$$,
                  'genci_report_at: 4713 BC, before the period: nothing due, lag 0, on track');
-- 294276-12-31, after the period: theoretical = net 366 − 5 taken = 361, consumed 4 core-hours,
-- lag 357, monthly 361 / 12 = 30.0833…, ratio 357 / 30.0833… = 11.8670…: very late, but the 31st is no check day
SELECT results_eq($$SELECT status, round(ratio::numeric, 4), penalty FROM genci_report_at('294276-12-31') WHERE cluster = 'bi'$$,
                  $$VALUES ('very late'::text, 11.8670::numeric, 0::float8)$$,
                  'genci_report_at: 294276 AD: the whole allocation due, 4 h used: very late, nothing taken');
SELECT throws_ok($$CALL apply_genci_regulation('infinity')$$, '22008', NULL, 'apply_genci_regulation: infinite day');
SELECT throws_ok($$CALL apply_genci_regulation('294276-12-31')$$, '22023', NULL, 'apply_genci_regulation: a day not begun');
SELECT throws_ok($$CALL apply_genci_regulation(NULL, 'nowhere')$$, '22023', NULL, 'apply_genci_regulation: unknown cluster');
SELECT is(allocation_consumption(-1, '2024-06-01'), NULL, 'allocation_consumption: unknown allocation gives NULL');
SELECT throws_ok($$SELECT allocation_consumption(1, '-infinity')$$, '22008', NULL, 'allocation_consumption: infinite day');
SELECT is(allocation_net_hours(-1, '2024-06-01'), NULL, 'allocation_net_hours: unknown allocation gives NULL');
SELECT throws_ok($$SELECT account_core_hours('bi', 'a', '2024-03-01', '2024-02-01')$$, '22023', NULL, 'account_core_hours: reversed window');
SELECT is(account_core_hours('bi', 'a', '2024-02-29 00:00 Europe/Paris', '2024-03-01 00:00 Europe/Paris'), 4::float8,
          'account_core_hours: the leap day in Paris runs from 28 Feb 23:00 UTC: the whole job, 2 CPUs × 2 h');
SELECT throws_ok($$SELECT * FROM rwth_monthly_usage_at(NULL)$$, '22004', NULL, 'rwth_monthly_usage_at: NULL');
SELECT throws_ok($$SELECT * FROM r_wlm_usage_at('-infinity')$$, '22008', NULL, 'r_wlm_usage_at: -infinity');

-- ===========================================================================
-- import: malformed sacct lines and PBS records (_sacct_line, _pbs_record),
-- bad arguments of import_stage, import_sacct, import_pbs,
-- _import_time_zone, and the imports / import_rejects tables
-- ===========================================================================
CREATE FUNCTION pg_temp.sacct(line text, tz text DEFAULT 'UTC') RETURNS fairshare_internal._sacct_line
LANGUAGE sql AS $$
  SELECT fairshare_internal._sacct_line(line, 'JobID|User|Account|Partition|Submit|Start|End|State|AllocTRES|Timelimit', tz, 'bi')
$$;
CREATE FUNCTION pg_temp.pbs(line text) RETURNS fairshare_internal._pbs_record
LANGUAGE sql AS $$ SELECT fairshare_internal._pbs_record(line, 'UTC') $$;
SELECT results_eq($$SELECT kind, job_id, cpus, submit_time FROM pg_temp.sacct('7|ann|a|p|2024-02-29T10:00:00|2024-02-29T10:00:00|2024-02-29T11:00:00|COMPLETED|cpu=2|01:00:00')$$,
                  $$VALUES ('job'::text, '7'::text, 2, '2024-02-29 10:00+00'::timestamptz)$$, '_sacct_line: a job on the leap day');
SELECT results_eq($$SELECT (pg_temp.sacct(l)).kind, (pg_temp.sacct(l)).sqlstate
                      FROM (VALUES ('7|ann|a|p'),
                                   ('abc|ann|a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|COMPLETED|cpu=1|01:00:00'),
                                   ('7|ann|a|p|2023-02-29T10:00:00|2023-03-01T10:00:00|2023-03-01T11:00:00|COMPLETED|cpu=1|01:00:00'),
                                   ('7|ann|a|p|2024-02-30T10:00:00|2024-03-01T10:00:00|2024-03-01T11:00:00|COMPLETED|cpu=1|01:00:00'),
                                   ('7|ann|a|p|2024-01-01T10:00:00|2024-01-01T12:00:00|2024-01-01T11:00:00|COMPLETED|cpu=1|01:00:00'),
                                   ('7|ann|a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|COMPLETED|cpu=4,,mem=1G|01:00:00'),
                                   ('7|ann|a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|COMPLETED|cpu=2147483648|01:00:00'),
                                   ('7|ann|a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|COMPLETED|cpu=1,mem=1e308G|01:00:00'),
                                   ('7|ann|a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|COMPLETED|cpu=1|forever'),
                                   ('7|ann|a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|COMPLETED|cpu=1|00:00'),
                                   ('7||a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|COMPLETED|cpu=1|01:00:00'),
                                   ('7|ann|a|p|2024-01-01T10:00:00|2024-01-01T10:00:00|2024-01-01T11:00:00|WEIRD|cpu=1|01:00:00'),
                                   ('7|ann|a|p|Unknown|Unknown|Unknown|PENDING|cpu=1|01:00:00')) v(l)$$,
                  $$VALUES ('reject'::text, '22P02'::text), ('reject', '22P02'), ('reject', '22008'), ('reject', '22008'),
                           ('reject', '23514'), ('reject', '22P02'), ('reject', '22P02'), ('reject', '22P02'),
                           ('reject', '22P02'), ('reject', '23514'), ('reject', '22004'), ('reject', '22P02'),
                           ('reject', '22004')$$,
                  '_sacct_line: 13 malformed lines (fields, job id, 29 Feb 2023, 30 Feb, End < Start, TRES ×3, Timelimit ×2, user, state, Submit) are rejects with their SQLSTATE');
SELECT is((pg_temp.sacct('7|ann|a|p|2024-03-31T02:30:00|Unknown|Unknown|PENDING|cpu=1|01:00:00', 'Europe/Paris')).submit_time,
          '2024-03-31 02:30'::timestamp AT TIME ZONE 'Europe/Paris',
          '_sacct_line: 02:30 on the night Paris skips 02:00-03:00 is read as timestamp AT TIME ZONE reads it');
SELECT is((pg_temp.sacct('7|ann|a|p|2024-10-27T02:30:00|Unknown|Unknown|PENDING|cpu=1|01:00:00', 'Europe/Paris')).submit_time,
          '2024-10-27 02:30'::timestamp AT TIME ZONE 'Europe/Paris',
          '_sacct_line: 02:30 on the night Paris repeats 02:00-03:00 likewise');
SELECT throws_ok($$SELECT fairshare_internal._sacct_line('7|ann', NULL, 'UTC', 'bi')$$, '22004', NULL, '_sacct_line: NULL header');
SELECT throws_ok($$SELECT fairshare_internal._sacct_line('7|ann', 'JobID|User', 'UTC', 'bi')$$, '22P02', NULL, '_sacct_line: a header without sacct''s columns');
SELECT throws_ok($$SELECT pg_temp.sacct('7|ann', 'Mars/Olympus')$$, '22023', NULL, '_sacct_line: unknown time zone');
SELECT results_eq($$SELECT (pg_temp.pbs(l)).kind, (pg_temp.pbs(l)).sqlstate
                      FROM (VALUES ('garbage'),
                                   ('02/30/2026 09:00:00;Q;1.s;user=ann queue=p ctime=1795248000'),
                                   ('11/21/2026 09:00:00;X;1.s;user=ann'),
                                   ('11/21/2026 09:00:00;Q;1.s;user=ann queue=p ctime=yesterday'),
                                   ('11/21/2026 09:00:00;Q;1.s;user=ann queue=p ctime=1795248000 Resource_List.mem=16zb'),
                                   ('11/21/2026 09:00:00;Q;1.s;user=ann queue=p ctime=1795248000 Resource_List.mem=9223372036854775808b'),
                                   ('11/21/2026 09:00:00;S;1.s;user=ann queue=p ctime=1795248000 exec_host=node01'),
                                   ('11/21/2026 09:00:00;E;1.s;user=ann queue=p ctime=1795248000 Exit_status=-2147483649'),
                                   ('11/21/2026 09:00:00;Q;1.s;user=ann jobname="unclosed queue=p'),
                                   ('11/21/2026 09:00:00;Q;;user=ann'),
                                   ('11/21/2026 09:00:00;L;license;floating license hour:0')) v(l)$$,
                  $$VALUES ('reject'::text, '22P02'::text), ('reject', '22008'), ('reject', '22P02'), ('reject', '22008'),
                           ('reject', '22P02'), ('reject', '22P02'), ('reject', '22P02'), ('reject', '22P02'),
                           ('reject', '22P02'), ('reject', '22004'), ('skip', NULL)$$,
                  '_pbs_record: 10 malformed records are rejects with their SQLSTATE; a license record is skipped');
SELECT throws_ok($$SELECT fairshare_internal._pbs_record('garbage', NULL)$$, '22004', NULL, '_pbs_record: NULL time zone');
SELECT throws_ok($$SELECT fairshare_internal._import_time_zone('Nowhere/Atlantis')$$, '22023', NULL, '_import_time_zone: unknown zone');
SELECT throws_ok($$SELECT fairshare.import_stage('x; DROP TABLE fairshare.jobs')$$, '22023', NULL, 'import_stage: not an identifier');
SELECT throws_ok($$SELECT * FROM fairshare.import_sacct('bi', 'UTC', staging => 'no_such_table')$$, '42P01', NULL,
                 'import_sacct: no staging table');
DO $$ BEGIN PERFORM fairshare.import_stage(); END $$;
SELECT throws_ok($$SELECT * FROM fairshare.import_sacct('bi', 'UTC')$$, '22023', NULL, 'import_sacct: an empty staging table');
INSERT INTO import_staging (line) VALUES ('hello|world');
SELECT throws_ok($$SELECT * FROM fairshare.import_sacct('bi', 'UTC')$$, '22P02', NULL, 'import_sacct: the first line is no sacct header');
DO $$ BEGIN PERFORM fairshare.import_stage(); END $$;
INSERT INTO import_staging (line) VALUES ('JobID|User|Account|Partition|Submit|Start|End|State|AllocTRES'),
  ('8|ann|a|p|2024-02-29T12:00:00|2024-02-29T12:00:00|2024-02-29T13:00:00|COMPLETED|cpu=1'),
  ('9|ann|a|p|2024-02-29T12:00:00|2024-02-29T13:00:00|2024-02-29T12:00:00|COMPLETED|cpu=1');
SELECT throws_ok($$SELECT * FROM fairshare.import_sacct('bi', 'Mars/Olympus')$$, '22023', NULL, 'import_sacct: unknown time zone');
SELECT throws_ok($$SELECT * FROM fairshare.import_sacct(NULL, 'UTC')$$, '22004', NULL, 'import_sacct: no cluster and no Cluster column');
SELECT throws_ok($$SELECT * FROM fairshare.import_sacct('bi', 'UTC', create_missing => NULL)$$, '22004', NULL, 'import_sacct: NULL create_missing');
SELECT throws_ok($$SELECT * FROM fairshare.import_sacct('bi', 'UTC', all_or_nothing => true)$$, '23514', NULL,
                 'import_sacct: all_or_nothing raises the bad line''s SQLSTATE (job 9 ends before it starts)');
SELECT results_eq($$SELECT lines_read, imported, rejected FROM fairshare.import_sacct('bi', 'UTC')$$,
                  $$VALUES (3::bigint, 1::bigint, 1::bigint)$$, 'import_sacct: 3 lines = the header, job 8 imported, job 9 rejected');
SELECT throws_ok($$SELECT * FROM fairshare.import_pbs(NULL)$$, '22004', NULL, 'import_pbs: no cluster');
SELECT throws_ok($$SELECT * FROM fairshare.import_pbs('bi', 'UTC', account_from => 'queue')$$, '22023', NULL, 'import_pbs: unknown account_from');
SELECT throws_ok($$INSERT INTO imports (source, time_zone, staging) VALUES ('lsf', 'UTC', 'x')$$, '23514', NULL, 'imports: unknown source');
SELECT throws_ok($$INSERT INTO import_rejects (import_id, line_no, sqlstate, reason) VALUES (-1, 1, '22P02', 'x')$$, '23503', NULL,
                 'import_rejects: unknown import');

-- ===========================================================================
-- private views: my_sshare_at, my_sprio_at, my_pbsfs_at (STRICT: NULL
-- as_of gives no rows; an infinite as_of is refused like the public ones)
-- and my_user_name
-- ===========================================================================
SELECT is((SELECT count(*)::int FROM my_sshare_at(NULL)), 0, 'my_sshare_at: STRICT, NULL as_of gives no rows');
SELECT throws_ok($$SELECT * FROM my_sshare_at('infinity')$$, '22008', NULL, 'my_sshare_at: infinity');
SELECT is((SELECT count(*)::int FROM my_sprio_at(NULL)), 0, 'my_sprio_at: STRICT, NULL as_of gives no rows');
SELECT throws_ok($$SELECT * FROM my_sprio_at('-infinity')$$, '22008', NULL, 'my_sprio_at: -infinity');
SELECT is((SELECT count(*)::int FROM my_pbsfs_at(NULL)), 0, 'my_pbsfs_at: STRICT, NULL as_of gives no rows');
SELECT throws_ok($$SELECT * FROM my_pbsfs_at('infinity')$$, '22008', NULL, 'my_pbsfs_at: infinity');
SELECT is(my_user_name(), session_user::text, 'my_user_name: no SET ROLE, the login role');

-- ===========================================================================
-- statements (docs/statements.md#bad-input): usage_buckets, allocation_used,
-- thresholds, alerts, statements, charts
-- ===========================================================================
SELECT throws_ok($$SELECT * FROM usage_buckets(NULL, NULL, now() - interval '1 day', now())$$, '22004', NULL, 'usage_buckets: NULL cluster');
SELECT throws_ok($$SELECT * FROM usage_buckets('x', NULL, now(), now() - interval '1 day')$$, '22023', NULL, 'usage_buckets: reversed window');
SELECT throws_ok($$SELECT * FROM usage_buckets('x', NULL, now(), now())$$, '22023', NULL, 'usage_buckets: empty window');
SELECT throws_ok($$SELECT * FROM usage_buckets('x', NULL, '-infinity', now())$$, '22008', NULL, 'usage_buckets: -infinity');
SELECT throws_ok($$SELECT * FROM usage_buckets('x', NULL, now() - interval '1 day', now(), 'week')$$, '22023', NULL, 'usage_buckets: unknown bucket');
SELECT throws_ok($$SELECT * FROM usage_buckets('no such cluster', NULL, now() - interval '1 day', now())$$, '22023', NULL, 'usage_buckets: unknown cluster');
SELECT is(allocation_used(NULL, now()), NULL, 'allocation_used: STRICT, NULL allocation gives NULL');
SELECT throws_ok($$SELECT allocation_used(-1, now())$$, '22023', NULL, 'allocation_used: unknown allocation');
SELECT is((SELECT count(*)::int FROM allocation_thresholds(-1)), 0, 'allocation_thresholds: unknown allocation, no rows');
SELECT throws_ok($$CALL check_allocation_alerts('infinity')$$, '22008', NULL, 'check_allocation_alerts: infinity');
SELECT throws_ok($$CALL check_allocation_alerts(now() + interval '1 hour')$$, '22023', NULL, 'check_allocation_alerts: in the future');
SELECT throws_ok($$CALL check_allocation_alerts(NULL, 'no such cluster')$$, '22023', NULL, 'check_allocation_alerts: unknown cluster');
SELECT throws_ok($$INSERT INTO alert_thresholds (kind, value) VALUES ('used_percent', 'NaN')$$, '23514', NULL, 'alert_thresholds: NaN');
SELECT throws_ok($$INSERT INTO alert_thresholds (kind, value) VALUES ('days_left', 'Infinity')$$, '23514', NULL, 'alert_thresholds: infinite days');
SELECT throws_ok($$INSERT INTO alert_thresholds (kind, value) VALUES ('used_percent', -5)$$, '23514', NULL, 'alert_thresholds: negative percent');
SELECT throws_ok($$INSERT INTO alert_thresholds (kind, value) VALUES ('hours_left', 5)$$, '23514', NULL, 'alert_thresholds: unknown kind');
SELECT throws_ok($$SELECT * FROM allocation_statements(NULL)$$, '22004', NULL, 'allocation_statements: NULL month');
SELECT throws_ok($$SELECT * FROM allocation_statements('2026-01-01', 'infinity')$$, '22008', NULL, 'allocation_statements: infinite as_of');
SELECT is((SELECT count(*)::int FROM my_allocation_statements(NULL)), 0, 'my_allocation_statements: STRICT, NULL month gives no rows');
SELECT throws_ok($$SELECT * FROM my_allocation_statements('infinity')$$, '22008', NULL, 'my_allocation_statements: infinity');
SELECT throws_ok($$SELECT burndown_svg(NULL)$$, '22004', NULL, 'burndown_svg: NULL allocation');
SELECT throws_ok($$SELECT burndown_svg(-1)$$, '22023', NULL, 'burndown_svg: unknown allocation');
SELECT throws_ok($$SELECT account_usage_svg('x', 'y', '2026-02-01', '2026-01-01')$$, '22023', NULL, 'account_usage_svg: reversed range');
SELECT throws_ok($$SELECT account_usage_svg('x', 'y', '2026-01-01', 'infinity')$$, '22008', NULL, 'account_usage_svg: infinite end');
SELECT throws_ok($$SELECT account_usage_svg('x', 'y', '2026-01-01', '2026-02-01', 'parsecs')$$, '22023', NULL, 'account_usage_svg: unknown units');
SELECT throws_ok($$SELECT cluster_utilisation_svg('x', now(), now() - interval '1 hour')$$, '22023', NULL, 'cluster_utilisation_svg: reversed window');
SELECT throws_ok($$SELECT cluster_utilisation_svg('x', now() - interval '1 hour', now(), 'HOURS!')$$, '22023', NULL, 'cluster_utilisation_svg: unknown units');
SELECT throws_ok($$SELECT cluster_utilisation_svg('no such cluster', now() - interval '1 hour', now())$$, '22023', NULL, 'cluster_utilisation_svg: unknown cluster');

-- ===========================================================================
-- No input crashed the server: the backend that started this file is the
-- one answering now (a crash would have cut the connection, and any
-- reconnection would be a new backend).
-- ===========================================================================
-- The error paths of the slurmdbd feed and of the sreport functions that no
-- suite reached: each with its SQLSTATE.
-- ===========================================================================
SELECT throws_ok($$SELECT * FROM fairshare.slurm_decisions(NULL)$$, '22004', NULL,
                 'slurm_decisions: no cluster');
SELECT throws_ok($$SELECT * FROM fairshare.slurm_decisions('bi', 'infinity')$$, '22004', NULL,
                 'slurm_decisions: an infinite as_of');
SELECT throws_ok($$SELECT fairshare.slurmdbd_connect('bi', 'bi_no_such_server')$$, '42704', NULL,
                 'slurmdbd_connect: a foreign server that does not exist');
CREATE FOREIGN DATA WRAPPER bi_nowhere;
CREATE SERVER bi_srv FOREIGN DATA WRAPPER bi_nowhere;
SELECT throws_ok($$SELECT fairshare.slurmdbd_connect('bi', 'bi_srv', NULL, 'slurm_acct_db', 'no such; name')$$,
                 '22023', NULL, 'slurmdbd_connect: a Slurm cluster name with a blank and a semicolon');
SELECT throws_ok($$SELECT fairshare.slurmdbd_connect('bi', 'bi_srv', NULL, 'slurm_acct_db', '-V')$$,
                 '22023', NULL, 'slurmdbd_connect: a Slurm cluster name sacctmgr would read as an option');
-- names no sacctmgr argument can carry as one entity (docs/security.md#the-slurm-loop)
SELECT is(fairshare_internal._slurm_name_problem(n), p, 'a name for sacctmgr: ' || to_json(n)::text)
  FROM (VALUES ('proj,root', 'holds a comma (sacctmgr reads a list of names)'),
               ('-Mother', 'begins with - (sacctmgr reads an option)'),
               (E'csub\ntouch x #', 'holds a control character (a newline, a tab)'),
               (E'a\rb', 'holds a control character (a newline, a tab)'),
               ('$(id)', 'holds a character other than a-z, 0-9, _ . @ -'),
               ('a;b', 'holds a character other than a-z, 0-9, _ . @ -'),
               (NULL, 'is empty'),
               ('john.doe', NULL)) v (n, p);
-- a GrpTRESMins value of slurmdbd: a count, else no limit (-1)
SELECT is(fairshare_internal._slurm_limit_minutes(v), m, 'GrpTRESMins minutes of ' || coalesce(v, 'NULL'))
  FROM (VALUES ('3600', 3600::bigint), ('-1', -1), ('18446744073709551615', -1), ('999999999999999999', 999999999999999999),
               ('abc', -1), ('', -1), (NULL, -1)) v (v, m);
-- malformed slurmdbd job rows: a reason each, never an error
SELECT is(fairshare_internal._slurmdbd_job_problem(ta, tr, 100, 10, 10, 10, te, 0, 10, 3, 1000), p, 'slurmdbd job row: ' || coalesce(ta, '') || ' ' || coalesce(tr, '') || ' ' || te)
  FROM (VALUES ('1=4,', '', 20::bigint, 'tres_alloc ''1=4,'' is not a list of TRES id=count'),
               ('1=4', '2=abc', 20, 'tres_req ''2=abc'' is not a list of TRES id=count'),
               ('1=4', '1=4', 9000000000000000, 'time_end 9000000000000000 is not an instant before the year 10000 (Unix seconds)'),
               ('1=4', '1=4', -5, 'time_end -5 is not an instant before the year 10000 (Unix seconds)'),
               ('1=4,5=18446744073709551614', '', 20, NULL)) v (ta, tr, te, p);
SELECT throws_ok($$SELECT * FROM fairshare.sreport_job_sizes_by_account('2026-01-01', '2026-02-01', '{}')$$,
                 '22023', NULL, 'sreport SizesByAccount: an empty grouping');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_job_sizes_by_account('2026-01-01', '2026-02-01', '{4,NULL}')$$,
                 '22023', NULL, 'sreport SizesByAccount: a NULL in the grouping');
SELECT throws_ok($$SELECT fairshare.import_events('bi_none', 'NodeName|TimeStart|TimeEnd|TRES')$$, '22023', NULL,
                 'import_events: a cluster that does not exist');
-- a line that cannot be read is rejected alone (docs/bad-input.md): the
-- call returns the events written, the line is in import_rejects
SET LOCAL client_min_messages = error;
SELECT is(fairshare.import_events('bi', E'Cluster|NodeName|TimeStart|TimeEnd|State|TRES\nbi|n1||Unknown|DOWN|cpu=1'),
          0::bigint, 'import_events: an event without TimeStart is not written');
SELECT is((SELECT r.sqlstate || ' ' || r.reason FROM fairshare.import_rejects r
            WHERE r.import_id = (SELECT max(i.import_id) FROM fairshare.imports i)),
          '22004 the event has no TimeStart', 'import_events: ... its line is rejected with its reason');
SELECT throws_ok($$SELECT fairshare.import_reservations('bi_none', 'ID|Name|TimeStart|TimeEnd|TRES')$$, '22023', NULL,
                 'import_reservations: a cluster that does not exist');
SELECT is(fairshare.import_reservations('bi', E'Cluster|ID|Name|TimeStart|TimeEnd|TRES\nbi||r1|2026-01-01T00:00:00|2026-01-02T00:00:00|cpu=1'),
          0::bigint, 'import_reservations: a reservation without an ID is not written');
SELECT is((SELECT r.sqlstate || ' ' || r.reason FROM fairshare.import_rejects r
            WHERE r.import_id = (SELECT max(i.import_id) FROM fairshare.imports i)),
          '22004 the reservation has no ID', 'import_reservations: ... its line is rejected with its reason');
RESET client_min_messages;

-- The sreport-like reports check their arguments at their entry, whatever
-- the data: a check inside the report's query ran only when the plan
-- reached it, so a bad range over a cluster without rollups returned no
-- rows instead of an error.  Here the rollups are empty (no refresh ran).
SELECT throws_ok($$SELECT * FROM fairshare.sreport_cluster_utilization('-infinity', '2026-01-01')$$, '22023', NULL,
                 'sreport Utilization: start -infinity');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_cluster_utilization('2026-01-01', NULL)$$, '22023', NULL,
                 'sreport Utilization: no end');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_cluster_utilization('2026-02-01', '2026-01-01')$$, '22023', NULL,
                 'sreport Utilization: a reversed range');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_cluster_utilization('2026-01-01 10:00', '2026-01-01 10:30')$$, '22023', NULL,
                 'sreport Utilization: a range holding no whole hour');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_cluster_utilization('2026-01-01', '2026-02-01', 'parsecs')$$, '22023', NULL,
                 'sreport Utilization: unknown -t units');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_cluster_utilization('2026-01-01', '2026-02-01', 'hours', 'cpu,flux')$$, '22023', NULL,
                 'sreport Utilization: a TRES the rollups do not count');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_account_utilization_by_user('2026-02-01', '2026-01-01')$$, '22023', NULL,
                 'sreport AccountUtilizationByUser: a reversed range');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_account_utilization_by_user('2026-01-01', 'infinity')$$, '22023', NULL,
                 'sreport AccountUtilizationByUser: end infinity');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_account_utilization_by_user('2026-01-01', '2026-02-01', 'fortnights')$$, '22023', NULL,
                 'sreport AccountUtilizationByUser: unknown -t units');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_account_utilization_by_user('2026-01-01', '2026-02-01', 'minutes', 'license/x')$$, '22023', NULL,
                 'sreport AccountUtilizationByUser: unknown TRES');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_user_utilization_by_account('2026-02-01', '2026-01-01')$$, '22023', NULL,
                 'sreport UserUtilizationByAccount: a reversed range');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_user_utilization_by_account('2026-01-01', '2026-02-01', 'fortnights')$$, '22023', NULL,
                 'sreport UserUtilizationByAccount: unknown -t units');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_user_utilization_by_account('2026-01-01', '2026-02-01', 'minutes', 'cpu,,flux')$$, '22023', NULL,
                 'sreport UserUtilizationByAccount: unknown TRES');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_top_usage('2026-02-01', '2026-01-01')$$, '22023', NULL,
                 'sreport TopUsage: a reversed range');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_top_usage('2026-01-01', '2026-02-01', 'fortnights')$$, '22023', NULL,
                 'sreport TopUsage: unknown -t units');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_top_usage('2026-01-01', '2026-02-01', 'minutes', 'flux')$$, '22023', NULL,
                 'sreport TopUsage: unknown TRES');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_top_usage('2026-01-01', '2026-02-01', top_count => 0)$$, '22023', NULL,
                 'sreport TopUsage: TopCount 0');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_top_usage('2026-01-01', '2026-02-01', top_count => NULL)$$, '22023', NULL,
                 'sreport TopUsage: TopCount NULL');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_job_sizes_by_account('2026-02-01', '2026-01-01')$$, '22023', NULL,
                 'sreport SizesByAccount: a reversed range');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_job_sizes_by_account('2026-01-01', '2026-02-01', '{50,250}', 'fortnights')$$, '22023', NULL,
                 'sreport SizesByAccount: unknown -t units');
SELECT throws_ok($$SELECT * FROM fairshare.sreport_job_sizes_by_account('2026-01-01', '2026-02-01', '{250,50}')$$, '22023', NULL,
                 'sreport SizesByAccount: a descending grouping');
SELECT throws_ok($$SELECT * FROM fairshare.account_usage_monthly('-infinity', '2026-01-01')$$, '22023', NULL,
                 'account_usage_monthly: start -infinity');
SELECT throws_ok($$SELECT * FROM fairshare.account_usage_monthly('2026-02-01', '2026-01-01')$$, '22023', NULL,
                 'account_usage_monthly: a reversed range');
SELECT throws_ok($$SELECT * FROM fairshare.usage_between(NULL, '2026-02-01', '2026-01-01')$$, '22023', NULL,
                 'usage_between: a reversed range');
SELECT throws_ok($$SELECT * FROM fairshare.cluster_usage_between(NULL, '2026-01-01', NULL)$$, '22023', NULL,
                 'cluster_usage_between: no end');
-- The same in an empty database: every cluster truncated (cascading to
-- every table) in a savepoint, the ledger's append-only trigger off; each
-- call's SQLSTATE is kept in a psql variable, the savepoint rolled back
-- (it would take pgTAP's results with it), then compared.
CREATE FUNCTION pg_temp.bi_sqlstate(q text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END
$f$;
SAVEPOINT bi_empty;
SET LOCAL session_replication_role = replica;   -- the ledger's append-only trigger
SET LOCAL client_min_messages = warning;
TRUNCATE fairshare.clusters CASCADE;
SET LOCAL session_replication_role = origin;
SELECT (SELECT count(*) FROM fairshare.clusters) + (SELECT count(*) FROM fairshare.jobs) AS bi_rows,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.sreport_cluster_utilization('-infinity', '2026-01-01')$$) AS bi_e0,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.sreport_cluster_utilization('2026-01-01', '2026-02-01', 'parsecs')$$) AS bi_e1,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.sreport_cluster_utilization('2026-01-01', '2026-02-01', 'hours', 'flux')$$) AS bi_e2,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.sreport_account_utilization_by_user('2026-02-01', '2026-01-01')$$) AS bi_e3,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.sreport_user_utilization_by_account('2026-01-01', '2026-02-01', 'fortnights')$$) AS bi_e4,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.sreport_top_usage('2026-01-01', '2026-02-01', top_count => 0)$$) AS bi_e5,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.sreport_job_sizes_by_account('2026-01-01', '2026-02-01', '{}')$$) AS bi_e6,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.account_usage_monthly('2026-02-01', '2026-01-01')$$) AS bi_e7,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.usage_between(NULL, '-infinity', '2026-01-01')$$) AS bi_e8,
       pg_temp.bi_sqlstate($$SELECT * FROM fairshare.cluster_usage_between(NULL, '2026-02-01', '2026-01-01')$$) AS bi_e9 \gset
ROLLBACK TO SAVEPOINT bi_empty;
SELECT is(:bi_rows::bigint, 0::bigint, 'empty database: no cluster, no job');
SELECT is(:'bi_e0'::text, '22023'::text, 'empty database: sreport Utilization: start -infinity');
SELECT is(:'bi_e1'::text, '22023'::text, 'empty database: sreport Utilization: unknown -t units');
SELECT is(:'bi_e2'::text, '22023'::text, 'empty database: sreport Utilization: unknown TRES');
SELECT is(:'bi_e3'::text, '22023'::text, 'empty database: sreport AccountUtilizationByUser: a reversed range');
SELECT is(:'bi_e4'::text, '22023'::text, 'empty database: sreport UserUtilizationByAccount: unknown -t units');
SELECT is(:'bi_e5'::text, '22023'::text, 'empty database: sreport TopUsage: TopCount 0');
SELECT is(:'bi_e6'::text, '22023'::text, 'empty database: sreport SizesByAccount: an empty grouping');
SELECT is(:'bi_e7'::text, '22023'::text, 'empty database: account_usage_monthly: a reversed range');
SELECT is(:'bi_e8'::text, '22023'::text, 'empty database: usage_between: start -infinity');
SELECT is(:'bi_e9'::text, '22023'::text, 'empty database: cluster_usage_between: a reversed range');

-- ===========================================================================
SELECT is(pg_backend_pid(), :start_pid, 'the same backend ran the whole catalogue: no crash');

SELECT * FROM finish();
ROLLBACK;
