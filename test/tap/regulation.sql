-- regulation: API shape, SQLSTATEs and defined answers of the GENCI and RWTH
-- functions (extension/genci.sql, extension/rwth.sql;
-- docs/policies.md#genci-regulation-of-under-consumption,
-- docs/policies.md#rwth-sliding-window-quota).
\set ON_ERROR_STOP 1
\set QUIET 1
\pset format unaligned
\pset tuples_only true
\pset pager off

BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS fairshare;
SELECT plan(125);

-- ---------------------------------------------------------------------------
-- The product card's signatures, and the rest of the API
-- ---------------------------------------------------------------------------
SELECT has_function('fairshare', 'theoretical_consumption', ARRAY['double precision', 'date', 'date', 'date']);
SELECT function_returns('fairshare', 'theoretical_consumption', ARRAY['double precision', 'date', 'date', 'date'], 'double precision');
SELECT has_function('fairshare', 'genci_penalty', ARRAY['double precision', 'double precision', 'date', 'date', 'date']);
SELECT function_returns('fairshare', 'genci_penalty', ARRAY['double precision', 'double precision', 'date', 'date', 'date'], 'double precision');
SELECT has_function('fairshare', 'rwth_available_quota', ARRAY['double precision', 'double precision', 'double precision', 'double precision', 'double precision']);
SELECT function_returns('fairshare', 'rwth_available_quota', ARRAY['double precision', 'double precision', 'double precision', 'double precision', 'double precision'], 'double precision');
SELECT has_function('fairshare', 'genci_status', ARRAY['double precision', 'double precision', 'date', 'date', 'date', 'text']);
SELECT has_function('fairshare', 'genci_midterm_status', ARRAY['double precision', 'double precision', 'date', 'date', 'date', 'double precision', 'double precision']);
SELECT has_function('fairshare', 'genci_midterm_penalty', ARRAY['double precision', 'double precision', 'date', 'date', 'date', 'double precision', 'double precision']);
SELECT has_function('fairshare', 'genci_period_months', ARRAY['date', 'date']);
SELECT has_function('fairshare', 'genci_allocation_month', ARRAY['date', 'date']);
SELECT has_function('fairshare', 'account_core_hours', ARRAY['text', 'text', 'timestamp with time zone', 'timestamp with time zone']);
SELECT has_function('fairshare', 'allocation_consumption', ARRAY['bigint', 'date']);
SELECT has_function('fairshare', 'genci_report_at', ARRAY['date']);
SELECT has_function('fairshare', 'rwth_quota_status', ARRAY['double precision', 'double precision', 'double precision', 'double precision', 'double precision', 'double precision', 'double precision']);
SELECT has_function('fairshare', 'rwth_monthly_usage_at', ARRAY['timestamp with time zone']);
SELECT has_function('fairshare', 'r_wlm_usage_at', ARRAY['timestamp with time zone']);
SELECT has_function('fairshare', 'apply_genci_regulation', ARRAY['date', 'text']);
SELECT is_procedure('fairshare', 'apply_genci_regulation', ARRAY['date', 'text']);
SELECT has_view('fairshare', 'genci_report', 'the GENCI report view');
SELECT has_view('fairshare', 'r_wlm_usage', 'the r_wlm_usage view');
SELECT has_view('fairshare', 'rwth_monthly_usage', 'the RWTH monthly usage view');
SELECT has_table('fairshare', 'genci_settings', 'per-cluster GENCI settings');
SELECT has_table('fairshare', 'regulation_checks', 'journal of check days');
SELECT has_table('fairshare', 'regulation_notifications', 'notifications to project leaders');

-- volatility, strictness, parallel safety
SELECT volatility_is('fairshare', 'theoretical_consumption', ARRAY['double precision', 'date', 'date', 'date'], 'immutable');
SELECT volatility_is('fairshare', 'genci_penalty', ARRAY['double precision', 'double precision', 'date', 'date', 'date'], 'immutable');
SELECT volatility_is('fairshare', 'rwth_available_quota', ARRAY['double precision', 'double precision', 'double precision', 'double precision', 'double precision'], 'immutable');
SELECT volatility_is('fairshare', 'genci_status', ARRAY['double precision', 'double precision', 'date', 'date', 'date', 'text'], 'immutable');
SELECT volatility_is('fairshare', 'rwth_quota_status', ARRAY['double precision', 'double precision', 'double precision', 'double precision', 'double precision', 'double precision', 'double precision'], 'immutable');
SELECT volatility_is('fairshare', 'account_core_hours', ARRAY['text', 'text', 'timestamp with time zone', 'timestamp with time zone'], 'stable');
SELECT volatility_is('fairshare', 'allocation_consumption', ARRAY['bigint', 'date'], 'stable');
SELECT volatility_is('fairshare', 'genci_report_at', ARRAY['date'], 'stable');
SELECT volatility_is('fairshare', 'r_wlm_usage_at', ARRAY['timestamp with time zone'], 'stable');
SELECT is_strict('fairshare', 'theoretical_consumption', ARRAY['double precision', 'date', 'date', 'date']);
SELECT is_strict('fairshare', 'genci_penalty', ARRAY['double precision', 'double precision', 'date', 'date', 'date']);
SELECT isnt_strict('fairshare', 'rwth_available_quota', ARRAY['double precision', 'double precision', 'double precision', 'double precision', 'double precision'],
                   'rwth_available_quota reads NULL as a month outside the period');
SELECT is(
    (SELECT array_agg(p.oid::regprocedure::text ORDER BY 1) FROM pg_proc p
      WHERE p.pronamespace = 'fairshare'::regnamespace AND p.prokind = 'f' AND p.proparallel <> 's'
        AND p.proname IN ('theoretical_consumption', 'genci_penalty', 'genci_status', 'genci_midterm_status',
                          'genci_midterm_penalty', 'genci_period_months', 'genci_allocation_month',
                          'account_core_hours', 'allocation_consumption', 'genci_report_at',
                          'rwth_available_quota', 'rwth_quota_status', 'rwth_monthly_usage_at', 'r_wlm_usage_at')
        -- the policy lab's form taking a scenario sets it in the leader
        -- (docs/history.md#the-policy-lab): PARALLEL RESTRICTED, below
        AND NOT 'scenario' = ANY (COALESCE(p.proargnames, '{}'))),
    NULL, 'every regulation function is PARALLEL SAFE (but the policy lab''s scenario form)');
SELECT is((SELECT p.proparallel::text FROM pg_proc p WHERE p.oid = 'fairshare.genci_report_at(date, text)'::regprocedure),
          'r', 'genci_report_at(as_of, scenario) is PARALLEL RESTRICTED, as every report of the policy lab');
SELECT ok(
    (SELECT bool_and(('fairshare.' || t)::regclass::oid = ANY (e.extconfig))
       FROM pg_extension e,
            unnest(ARRAY['genci_settings', 'regulation_checks', 'regulation_notifications',
                         'regulation_notifications_notification_id_seq']) t
      WHERE e.extname = 'fairshare'),
    'the regulation tables and their sequence are dumped with their rows');

-- ---------------------------------------------------------------------------
-- GENCI: bad input → SQLSTATE
-- ---------------------------------------------------------------------------
SELECT throws_ok($$SELECT fairshare.theoretical_consumption(-1, '2017-05-01', '2018-04-30', '2017-08-15')$$, '22023', NULL, 'negative allocation');
SELECT throws_ok($$SELECT fairshare.theoretical_consumption('NaN', '2017-05-01', '2018-04-30', '2017-08-15')$$, '22023', NULL, 'NaN allocation');
SELECT throws_ok($$SELECT fairshare.theoretical_consumption('Infinity', '2017-05-01', '2018-04-30', '2017-08-15')$$, '22023', NULL, 'infinite allocation');
SELECT throws_ok($$SELECT fairshare.theoretical_consumption('-Infinity', '2017-05-01', '2018-04-30', '2017-08-15')$$, '22023', NULL, '-infinite allocation');
SELECT throws_ok($$SELECT fairshare.theoretical_consumption(100, '2018-04-30', '2017-05-01', '2017-08-15')$$, '22023', NULL, 'reversed period');
SELECT throws_ok($$SELECT fairshare.theoretical_consumption(100, '-infinity', '2017-05-01', '2017-08-15')$$, '22008', NULL, 'infinite period start');
SELECT throws_ok($$SELECT fairshare.theoretical_consumption(100, '2017-05-01', '2018-04-30', 'infinity')$$, '22008', NULL, 'infinite as_of');
SELECT throws_ok($$SELECT fairshare.theoretical_consumption(1e308, '2017-05-01', '2018-04-30', '2017-08-15')$$, '22003', NULL, 'A × E overflows float8');
SELECT throws_ok($$SELECT fairshare.genci_penalty(100, -1, '2017-05-01', '2018-04-30', '2017-08-15')$$, '22023', NULL, 'negative consumption');
SELECT throws_ok($$SELECT fairshare.genci_penalty(100, 'NaN', '2017-05-01', '2018-04-30', '2017-08-15')$$, '22023', NULL, 'NaN consumption');
SELECT throws_ok($$SELECT fairshare.genci_penalty(-100, 0, '2017-05-01', '2018-04-30', '2017-08-15')$$, '22023', NULL, 'negative allocation (penalty)');
SELECT throws_ok($$SELECT fairshare.genci_penalty(100, 0, '2018-05-01', '2018-04-30', '2018-08-15')$$, '22023', NULL, 'period ending the day before it starts');
SELECT throws_ok($$SELECT fairshare.genci_status(100, 0, '2017-05-01', '2018-04-30', '2017-08-15', 'cines')$$, '22023', NULL, 'unknown variant');
SELECT throws_ok($$SELECT fairshare.genci_midterm_penalty(100, 0, '2017-05-01', '2018-04-30', '2017-10-01', -0.1)$$, '22023', NULL, 'negative cap');
SELECT throws_ok($$SELECT fairshare.genci_midterm_penalty(100, 0, '2017-05-01', '2018-04-30', '2017-10-01', 0.4, 'NaN')$$, '22023', NULL, 'NaN used limit');
SELECT throws_ok($$SELECT fairshare.genci_period_months('2018-04-30', '2017-05-01')$$, '22023', NULL, 'months of a reversed period');
SELECT throws_ok($$SELECT fairshare.genci_allocation_month('2017-05-01', 'infinity')$$, '22008', NULL, 'month of an infinite day');
SELECT throws_ok($$SELECT fairshare.account_core_hours('c', 'a', '2017-05-02', '2017-05-01')$$, '22023', NULL, 'reversed window');
SELECT throws_ok($$SELECT fairshare.account_core_hours('c', 'a', '-infinity', '2017-05-01')$$, '22008', NULL, 'infinite window');
SELECT throws_ok($$SELECT fairshare.allocation_consumption(1, 'infinity')$$, '22008', NULL, 'consumption on an infinite day');
SELECT throws_ok($$SELECT * FROM fairshare.genci_report_at(NULL)$$, '22004', NULL, 'report without a day');
SELECT throws_ok($$SELECT * FROM fairshare.genci_report_at('-infinity')$$, '22008', NULL, 'report on an infinite day');
SELECT throws_ok($$CALL fairshare.apply_genci_regulation('infinity')$$, '22008', NULL, 'regulation on an infinite day');
SELECT throws_ok($$CALL fairshare.apply_genci_regulation('2017-08-15', 'no such cluster')$$, '22023', NULL, 'regulation of an unknown cluster');

-- GENCI: defined answers
SELECT is(fairshare.theoretical_consumption(NULL, '2017-05-01', '2018-04-30', '2017-08-15'), NULL, 'NULL allocation → NULL (STRICT)');
SELECT is(fairshare.genci_penalty(4380000, 0, '2017-05-01', '2018-04-30', NULL), NULL, 'NULL as_of → NULL (STRICT)');
-- 4 380 000 × 106 / 365 = 1 272 000 (seed 000: 1 May 2017 → 106 days on 15 Aug 2017)
SELECT is(fairshare.theoretical_consumption(4380000, '2017-05-01', '2018-04-30', '2017-08-15'), 1272000::float8, 'seed 000: 106 days');
SELECT is(fairshare.theoretical_consumption(0, '2017-05-01', '2018-04-30', '2017-08-15'), 0::float8, 'zero allocation: 0 expected');
SELECT is(fairshare.genci_penalty(0, 0, '2017-05-01', '2018-04-30', '2017-08-15'), 0::float8, 'zero allocation: nothing taken');
SELECT is((fairshare.genci_status(0, 0, '2017-05-01', '2018-04-30', '2017-08-15')).status, NULL, 'zero allocation: no status');
-- lag 730 000 = 2 × 365 000: ratio exactly 2 is not "more than 2"
SELECT is(fairshare.genci_penalty(4380000, 542000, '2017-05-01', '2018-04-30', '2017-08-15'), 0::float8, 'ratio exactly 2: nothing taken');
SELECT is(fairshare.genci_penalty(4380000, 541999, '2017-05-01', '2018-04-30', '2017-08-15'), 365000::float8, 'ratio just above 2: one month (4 380 000 / 12) taken');
-- 16 Aug is not the 15th; 15 Jun is month 2
SELECT is(fairshare.genci_penalty(4380000, 0, '2017-05-01', '2018-04-30', '2017-08-16'), 0::float8, 'not a check day');
SELECT is(fairshare.genci_penalty(4380000, 0, '2017-05-01', '2018-04-30', '2017-06-15'), 0::float8, 'month 2: no take-back yet');
-- a one-day period: theoretical 0 on its day, A the day after
SELECT is(fairshare.theoretical_consumption(24, '2017-05-01', '2017-05-01', '2017-05-02'), 24::float8, 'one-day period, the day after: all of it');
-- far dates are fine: 4000-01-01 is long after the end
SELECT is(fairshare.theoretical_consumption(100, '2017-05-01', '2018-04-30', '4000-01-01'), 100::float8, 'far future: the whole allocation');
SELECT is(fairshare.allocation_consumption(-42, '2017-08-15'), NULL, 'unknown allocation: NULL consumption');

-- ---------------------------------------------------------------------------
-- RWTH: bad input → SQLSTATE, defined answers
-- ---------------------------------------------------------------------------
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(-1, 1000, 1000, 0, 0)$$, '22023', NULL, 'negative allowance_prev');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, -1, 1000, 0, 0)$$, '22023', NULL, 'negative allowance_cur');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, 1000, -1, 0, 0)$$, '22023', NULL, 'negative allowance_next');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, 1000, 1000, -1, 0)$$, '22023', NULL, 'negative consumed_prev');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, 1000, 1000, 0, -1)$$, '22023', NULL, 'negative consumed_cur');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota('NaN', 1000, 1000, 0, 0)$$, '22023', NULL, 'NaN allowance');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, 1000, 1000, 0, 'NaN')$$, '22023', NULL, 'NaN consumption');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, 'Infinity', 1000, 0, 0)$$, '22023', NULL, 'infinite allowance');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(NULL, 1000, NULL, -5, 0)$$, '22023', NULL, 'negative consumed_prev outside the period is still refused');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, NULL, 1000, 0, 0)$$, '22004', NULL, 'NULL current allowance');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, 1000, 1000, 0, NULL)$$, '22004', NULL, 'NULL current consumption');
SELECT throws_ok($$SELECT fairshare.rwth_available_quota(1000, 1000, 1000, NULL, 0)$$, '22004', NULL, 'NULL consumption of a previous month inside the period');
SELECT throws_ok($$SELECT fairshare.rwth_quota_status(1000, 1000, 1000, 0, 0, 'NaN', 0)$$, '22023', NULL, 'NaN total allowance');
SELECT throws_ok($$SELECT fairshare.rwth_quota_status(1000, 1000, 1000, 0, 0, 6000, -1)$$, '22023', NULL, 'negative total consumption');
SELECT throws_ok($$SELECT * FROM fairshare.r_wlm_usage_at(NULL)$$, '22004', NULL, 'r_wlm_usage without an instant');
SELECT throws_ok($$SELECT * FROM fairshare.r_wlm_usage_at('infinity')$$, '22008', NULL, 'r_wlm_usage at infinity');
SELECT throws_ok($$SELECT * FROM fairshare.rwth_monthly_usage_at(NULL)$$, '22004', NULL, 'monthly usage without an instant');
SELECT throws_ok($$SELECT * FROM fairshare.rwth_monthly_usage_at('infinity')$$, '22008', NULL, 'monthly usage at infinity');
-- 1 000 + 1 000 − 300 = 700: first month, nothing transferred in
SELECT is(fairshare.rwth_available_quota(NULL, 1000, 1000, NULL, 300), 1700::float8, 'first month: 2A − C = 2 000 − 300');
SELECT is(fairshare.rwth_available_quota(1000, 1000, NULL, 200, 300), 1500::float8, 'last month: A + A − C − C = 2 000 − 500');
SELECT is(fairshare.rwth_available_quota(NULL, 1000, NULL, NULL, 300), 700::float8, 'one-month project: A − C');
SELECT is(fairshare.rwth_available_quota(50000, 50000, 50000, 70000, 0), 80000::float8, 'seed 003, table 1: March 3 × 50 000 − 70 000');
SELECT is(fairshare.rwth_available_quota(50000, 50000, 50000, 120000, 0), 30000::float8, 'seed 003, table 2: March 3 × 50 000 − 120 000');
SELECT is((fairshare.rwth_quota_status(1000, 1000, 1000, 800, 0)).balance_pct, 120::float8, 'seed 003: 120 %');
SELECT is((fairshare.rwth_quota_status(1000, 1000, 1000, 800, 0)).available, 2200::float8, 'seed 003: 2 200 consumable');
SELECT is((fairshare.rwth_quota_status(1000, 1000, 1000, 1500, 1800)).balance_pct_display, -101::float8, '−130 % is shown as −101');
SELECT is((fairshare.rwth_quota_status(1000, 1000, 1000, 1000, 2000)).low_priority, true, 'available exactly 0: low priority');
SELECT is((fairshare.rwth_quota_status(1000, 1000, 1000, 0, 6000)).blocked, false, 'C(m) = 6 × A(m): not blocked');
SELECT is((fairshare.rwth_quota_status(1000, 1000, 1000, 0, 6001)).blocked, true, 'C(m) > 6 × A(m): blocked');
SELECT is((fairshare.rwth_quota_status(0, 0, 0, 0, 0)).balance_pct, NULL, 'zero allowance: NULL balance %');
SELECT is((fairshare.rwth_quota_status(0, 0, 0, 0, 0)).available_pct, NULL, 'zero allowance: NULL available %');

-- ---------------------------------------------------------------------------
-- The model: constraints, the ledger's once-per-day index, the procedure's guards
-- ---------------------------------------------------------------------------
INSERT INTO fairshare.clusters (cluster, regulation_threshold, timezone) VALUES ('tap', 1000000, 'Pacific/Auckland');
INSERT INTO fairshare.accounts (cluster, account, parent_account) VALUES ('tap', 'root', NULL), ('tap', 'p', 'root');
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
     VALUES ('tap', 'p', 'genci', '2017-05-01', '2018-04-30', 4380000);
SELECT throws_ok($$INSERT INTO fairshare.genci_settings (cluster, variant) VALUES ('tap', 'idris')$$, '23514', NULL, 'unknown variant refused');
SELECT throws_ok($$INSERT INTO fairshare.genci_settings (cluster, midterm_cap) VALUES ('tap', 1.5)$$, '23514', NULL, 'cap above 1 refused');
SELECT throws_ok($$INSERT INTO fairshare.genci_settings (cluster) VALUES ('nowhere')$$, '23503', NULL, 'settings of an unknown cluster refused');
SELECT throws_ok($$CALL fairshare.apply_genci_regulation('2999-01-01', 'tap')$$, '22023', NULL, 'a day that has not begun is refused');
SELECT lives_ok($$CALL fairshare.apply_genci_regulation('2017-08-15', 'tap')$$, 'regulation applied on 15 Aug 2017');
SELECT is((SELECT count(*)::int FROM fairshare.ledger WHERE kind = 'take_back'), 2, 'two take-backs (15 Jul, 15 Aug)');
SELECT lives_ok($$CALL fairshare.apply_genci_regulation('2017-08-15', 'tap')$$, 'applied again');
SELECT is((SELECT count(*)::int FROM fairshare.ledger WHERE kind = 'take_back'), 2, 'still two take-backs');
SELECT lives_ok($$CALL fairshare.apply_genci_regulation(NULL, 'tap')$$, 'applied for today in Auckland');
-- 15 Jul, 15 Aug, 15 Sep … 15 Apr 2018: a take-back on each check day of a project that never ran
SELECT is((SELECT count(*)::int FROM fairshare.ledger WHERE kind = 'take_back'), 10, 'every check day to the end of the period, once');
SELECT is((SELECT count(*)::int FROM fairshare.regulation_checks), 12, 'twelve 15ths evaluated');
SELECT throws_ok(
    $$INSERT INTO fairshare.ledger (allocation_id, kind, hours, rule, effective_date)
      SELECT allocation_id, 'take_back', 1, 'genci_monthly', '2017-08-15' FROM fairshare.allocations WHERE cluster = 'tap'$$,
    '23505', NULL, 'a rule cannot take hours twice on one day (ledger_rule_once)');
SELECT throws_ok($$DELETE FROM fairshare.ledger$$, '55000', NULL, 'take-backs cannot be deleted');
SELECT throws_ok(
    $$INSERT INTO fairshare.regulation_notifications (allocation_id, cluster, account, rule, check_day, kind, message)
      SELECT allocation_id, 'tap', 'p', 'genci_monthly', '2017-08-15', 'sms', 'x' FROM fairshare.allocations WHERE cluster = 'tap'$$,
    '23514', NULL, 'unknown notification kind refused');
SELECT is((SELECT count(*)::int FROM fairshare.genci_report WHERE cluster = 'tap'), 1, 'the report view lists the allocation');
SELECT is((SELECT status FROM fairshare.genci_report WHERE cluster = 'tap'), 'very late', 'after the period: theoretical = A, nothing used');
SELECT is((SELECT count(*)::int FROM fairshare.r_wlm_usage WHERE cluster = 'tap'), 0, 'no RWTH project on the GENCI cluster');

SELECT * FROM finish();
ROLLBACK;
