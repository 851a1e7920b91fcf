-- rwth_three_months: RWTH's quota under either rule of clusters.rwth_rule
-- (docs/policies.md#rwth-sliding-window-quota): 'window', the "Resource
-- Quotas" page's A(m−1) + A(m) + A(m+1) − C(m−1) − C(m) (the default), and
-- 'three_months', the "Computing Time Accounting" page's "up to three times
-- the monthly quota over any three consecutive months".  Worked examples
-- with the arithmetic beside each.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
\set SHOW_CONTEXT never

-- Each month of a period under both rules: A = 2 000 a month.
CREATE FUNCTION pg_temp.both_rules(allowances float8[], consumed float8[])
RETURNS TABLE (month integer, consumed float8, window_available float8, three_available float8,
               three_balance float8, three_state text)
LANGUAGE sql AS $$
    SELECT k, consumed[k], w.available, t.available, t.balance,
           CASE WHEN t.blocked THEN 'blocked' WHEN t.low_priority THEN 'low priority' ELSE 'active Quota' END
      FROM generate_series(1, cardinality(allowances)) k,
           fairshare.rwth_month_status(allowances, consumed, k, 'window') w,
           fairshare.rwth_month_status(allowances, consumed, k, 'three_months') t
     ORDER BY k $$;

-- ---------------------------------------------------------------------------
-- The newer page's examples, as months 2 to 4 of a six-month project whose
-- first month used nothing.  three_months: available(m) is the smallest, over
-- the windows [m−2, m], [m−1, m+1], [m, m+2] cut to the period, of the
-- window's allowances − its consumption up to m.
-- ---------------------------------------------------------------------------
-- (2 500, 1 500, 2 000): within quota, 6 000 = 3 × 2 000 exactly.
--   m2: [1,2] 4 000 − 2 500 = 1 500; [1,3] 6 000 − 2 500 = 3 500; [2,4] 6 000 − 2 500 = 3 500 → 1 500
--   m3: [1,3] 6 000 − 4 000 = 2 000; [2,4] 6 000 − 4 000 = 2 000; [3,5] 6 000 − 1 500 = 4 500 → 2 000
--   m4: [2,4] 6 000 − 6 000 = 0; [3,5] 6 000 − 3 500 = 2 500; [4,6] 6 000 − 2 000 = 4 000 → 0:
--       fully consumed, low priority (available ≤ 0), never over
--   m5: [3,5] 6 000 − 3 500 = 2 500; [4,6] 6 000 − 2 000 = 4 000; [5,6] 4 000 − 0 → 2 500
--   m6: [4,6] 4 000; [5,6] 4 000; [6] 2 000 − 0 = 2 000 → 2 000
--   window: m1 4 000 − 0 = 4 000; m2 6 000 − 0 − 2 500 = 3 500; m3 6 000 − 2 500 − 1 500 = 2 000;
--           m4 6 000 − 1 500 − 2 000 = 2 500; m5 6 000 − 2 000 − 0 = 4 000; m6 (last) 4 000 − 0 − 0 = 4 000
--   three_months balance (the same windows without the months after m):
--       m2: [1,2] 4 000 − 2 500 = 1 500; [2] 2 000 − 2 500 = −500 → −500
--       m3: [1,3] 2 000; [2,3] 4 000 − 4 000 = 0; [3] 500 → 0
--       m4: [2,4] 0; [3,4] 4 000 − 3 500 = 500; [4] 0 → 0
SELECT * FROM pg_temp.both_rules(array_fill(2000::float8, ARRAY[6]), '{0,2500,1500,2000,0,0}');

-- (3 000, 3 000, 3 000): over, 9 000 > 6 000.
--   m2: [1,2] 4 000 − 3 000 = 1 000 (the smallest); m3: [1,3] 6 000 − 6 000 = 0 and [2,4] 0 → 0;
--   m4: [2,4] 6 000 − 9 000 = −3 000: over.
--   window: m4 6 000 − 3 000 − 3 000 = 0 (low priority, not over); m5 6 000 − 3 000 − 0 = 3 000.
--   three_months m5: [3,5] 6 000 − 6 000 = 0; [4,6] 6 000 − 3 000 = 3 000; [5,6] 4 000 → 0.
SELECT * FROM pg_temp.both_rules(array_fill(2000::float8, ARRAY[6]), '{0,3000,3000,3000,0,0}');

-- (2 000, 3 000, 3 000): where the rules disagree.
--   window, third month (m4): A(3) + A(4) + A(5) − C(3) − C(4) = 6 000 − 3 000 − 3 000 = 0:
--       within quota, exactly used up (low priority starts at ≤ 0).
--   three_months, m4: [2,4] 6 000 − (2 000 + 3 000 + 3 000) = −2 000: over;
--       m3: [1,3] 6 000 − 5 000 = 1 000; [2,4] 1 000; [3,5] 3 000 → 1 000 (window: 6 000 − 2 000 − 3 000 = 1 000).
SELECT * FROM pg_temp.both_rules(array_fill(2000::float8, ARRAY[6]), '{0,2000,3000,3000,0,0}');
-- the whole row of that month under each rule:
--   remaining_prev = A(3) − C(3) = 2 000 − 3 000 = −1 000 under both;
--   window: balance = −1 000 + 2 000 − 3 000 = −2 000 → −100 %; available 0 → 0 %;
--   three_months: balance = min([2,4] 6 000 − 8 000, [3,4] 4 000 − 6 000, [4] 2 000 − 3 000) = −2 000
--   → −100 %; available −2 000 → −100 %.  Both low priority; C(4) = 3 000 ≤ 6 × 2 000: not blocked.
SELECT r.rule, q.*
  FROM (VALUES ('window'), ('three_months')) r(rule),
       rwth_month_status(array_fill(2000::float8, ARRAY[6]), '{0,2000,3000,3000,0,0}', 4, r.rule) q;

-- ---------------------------------------------------------------------------
-- The edges: windows cut to the period, months outside it count 0.
-- ---------------------------------------------------------------------------
-- The first month: [−1,1] holds only month 1, so no borrowing: 2 000 − 2 500 = −500
-- (window: A(1) + A(2) − C(1) = 4 000 − 2 500 = 1 500).  The second month:
-- [0,2] = [1,2]: 4 000 − 2 500 − 0 = 1 500, the smallest (window: 6 000 − 2 500 = 3 500).
SELECT * FROM pg_temp.both_rules(array_fill(2000::float8, ARRAY[6]), '{2500,0,0,0,0,0}') WHERE month <= 2;
-- The last month: [4,6] 6 000 − 2 500 = 3 500; [5,7] = [5,6] 4 000 − 2 500 = 1 500;
-- [6,8] = [6] 2 000 − 2 500 = −500 → −500 (window: A(5) + A(6) − C(5) − C(6) = 4 000 − 2 500 = 1 500).
-- (m5, the month before: window 6 000; three_months min([3,5] 6 000, [4,6] 6 000, [5,6] 4 000) = 4 000,
-- its balance min([3,5] 6 000, [4,5] 4 000, [5] 2 000) = 2 000.)
SELECT * FROM pg_temp.both_rules(array_fill(2000::float8, ARRAY[6]), '{0,0,0,0,0,2500}') WHERE month >= 5;
-- A one-month project: every window is the month itself, A − C = 2 000 − 1 500 = 500 under
-- both rules (window: no transfer, no borrowing); balance 500 → 25 %, available 25 %.
SELECT r.rule, q.*
  FROM (VALUES ('window'), ('three_months')) r(rule), rwth_month_status('{2000}', '{1500}', 1, r.rule) q;
-- A two-month project that saved its first month: m2 three_months = min([1,2] 4 000 − 0 − 2 500,
-- [2] 2 000 − 2 500) = −500; window 4 000 − 0 − 2 500 = 1 500.  m1: min([1] 2 000, [1,2] 4 000) = 2 000.
SELECT * FROM pg_temp.both_rules('{2000,2000}', '{0,2500}');
-- Allowances that differ from month to month (500, 1 000, 3 000, 1 000), C = (0, 1 200, 2 500, 300):
--   m3: [1,3] 4 500 − 3 700 = 800; [2,4] 5 000 − 3 700 = 1 300; [3,4] 4 000 − 2 500 = 1 500 → 800
--   m4: [2,4] 5 000 − 4 000 = 1 000; [3,4] 4 000 − 2 800 = 1 200; [4] 1 000 − 300 = 700 → 700
--   balance m3: [1,3] 800; [2,3] 4 000 − 3 700 = 300; [3] 3 000 − 2 500 = 500 → 300
--   window: m3 1 000 + 3 000 + 1 000 − 1 200 − 2 500 = 1 300; m4 (last) 3 000 + 1 000 − 2 500 − 300 = 1 200
SELECT * FROM pg_temp.both_rules('{500,1000,3000,1000}', '{0,1200,2500,300}') WHERE month >= 3;
-- The consumption after the month is not read: the same m2 with or without it.
SELECT (rwth_month_status('{2000,2000,2000}', '{0,2500}', 2, 'three_months')).available AS without_m3,
       (rwth_month_status('{2000,2000,2000}', '{0,2500,99999}', 2, 'three_months')).available AS with_m3;
-- Blocking is the same rule under both: C(m) > 6 × A(m), or the total above twice the total
-- allowance (strict): 12 001 > 12 000 blocks, 12 000 does not.
SELECT (rwth_month_status('{2000}', '{12000}', 1, 'three_months')).blocked AS c_12000,
       (rwth_month_status('{2000}', '{12001}', 1, 'three_months')).blocked AS c_12001,
       (rwth_month_status('{2000,2000}', '{0,0}', 1, 'three_months', 4000, 8001)).blocked AS total_8001;
-- Zero allowance: percentages NULL, as rwth_quota_status.
SELECT * FROM rwth_month_status('{0,0,0}', '{0,5,0}', 2, 'three_months');

-- ---------------------------------------------------------------------------
-- Under 'window' rwth_month_status is rwth_quota_status, bit for bit: 2 000
-- random periods of 1 to 30 months, random allowances and consumption, every
-- month, every column compared as float8.
-- ---------------------------------------------------------------------------
SELECT setseed(0.31);
CREATE TEMP TABLE periods AS
SELECT p, array_agg(a ORDER BY k) AS a, array_agg(c ORDER BY k) AS c
  FROM (SELECT p, 1 + (random() * 29)::int AS n FROM generate_series(1, 2000) p) s,
       LATERAL (SELECT k, CASE WHEN s.p % 7 = 0 THEN 0 ELSE round((random() * 5000)::numeric, (s.p % 3) * 4)::float8 END AS a,
                       random() * 9000 AS c FROM generate_series(1, s.n) k) x
 GROUP BY p;
SELECT count(*) AS months,
       count(*) FILTER (WHERE to_jsonb(n) IS DISTINCT FROM to_jsonb(o)) AS differ,
       count(*) FILTER (WHERE n.low_priority) AS low_priority, count(*) FILTER (WHERE n.blocked) AS blocked
  FROM periods, generate_series(1, cardinality(a)) k,
       LATERAL (SELECT sum(x) AS t FROM unnest(a) x) at,
       LATERAL (SELECT sum(x) AS t FROM unnest(c[1:k]) x) ct,
       rwth_month_status(a, c, k, 'window', at.t, ct.t) n,
       rwth_quota_status(CASE WHEN k > 1 THEN a[k - 1] END, a[k], CASE WHEN k < cardinality(a) THEN a[k + 1] END,
                         CASE WHEN k > 1 THEN c[k - 1] END, c[k], at.t, ct.t) o;
-- and under 'three_months' available is the smallest window, as computed in SQL
-- (numeric sums: the float8 sums may differ in the last bit, hence the 1e-9)
SELECT count(*) AS months,
       count(*) FILTER (WHERE abs(t.available - w.v) > 1e-9 * greatest(1, abs(w.v))) AS differ
  FROM periods, generate_series(1, cardinality(a)) k,
       rwth_month_status(a, c, k, 'three_months') t,
       LATERAL (SELECT min(coalesce((SELECT sum(a[j]::numeric) FROM generate_series(greatest(s, 1), least(s + 2, cardinality(a))) j), 0)
                           - coalesce((SELECT sum(c[j]::numeric) FROM generate_series(greatest(s, 1), least(s + 2, k)) j), 0))::float8 AS v
                  FROM generate_series(k - 2, k) s) w;
DROP TABLE periods;

-- ---------------------------------------------------------------------------
-- Bad arguments: SQLSTATE, message and hint.
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; hint text;
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN st || ': ' || msg || ' (HINT: ' || hint || ')';
END $$;
SELECT pg_temp.err(q) AS error FROM (VALUES
    ($$SELECT fairshare.rwth_month_status(NULL, '{0}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{}', '{0}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{{1,2},{3,4}}', '{0}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,NULL}', '{0}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,-1}', '{0}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,Infinity}', '{0}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', NULL, 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,NaN}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0}', 2, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,0,0}', 1, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,0}', NULL, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,0}', 0, 'three_months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,0}', 3, 'window')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,0}', 1, NULL)$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,0}', 1, 'Three_Months')$$),
    ($$SELECT fairshare.rwth_month_status('{2000,2000}', '{0,0}', 1, 'three_months', -1, 0)$$),
    ($$SELECT fairshare.rwth_month_status('{1e308,1e308}', '{0,0}', 1, 'three_months')$$)) v(q);

-- ---------------------------------------------------------------------------
-- The setting, the reports and the policy lab (rolled back at the end).
-- ---------------------------------------------------------------------------
BEGIN;
INSERT INTO clusters (cluster) VALUES ('r3');
-- the default rule is the window
SELECT rwth_rule FROM clusters WHERE cluster = 'r3';
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes) VALUES ('r3', 'p', 100, 192000, 10);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
    ('r3', 'root', NULL, 1), ('r3', 'rwth3001', 'root', 1), ('r3', 'rwth3002', 'root', 1),
    ('r3', 'rwth3003', 'root', 1), ('r3', 'rwth3004', 'root', 1);
INSERT INTO account_users (cluster, account, user_name)
SELECT 'r3', a, 'u' FROM unnest(ARRAY['rwth3001', 'rwth3002', 'rwth3003', 'rwth3004']) a;
-- 2 000 core-hours a month, January to June 2024 (UTC); rwth3004 January alone.
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours, monthly_allowance) VALUES
    ('r3', 'rwth3001', 'rwth', '2024-01-01', '2024-06-30', 12000, 2000),
    ('r3', 'rwth3002', 'rwth', '2024-01-01', '2024-06-30', 12000, 2000),
    ('r3', 'rwth3003', 'rwth', '2024-01-01', '2024-06-30', 12000, 2000),
    ('r3', 'rwth3004', 'rwth', '2024-01-01', '2024-01-31', 2000, 2000);
-- 100 cores for h hours: 100 × h core-hours in the month the job runs.
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, nodes)
SELECT 'r3', j.id, 'u', j.account, 'p', 'COMPLETED', j.s, j.s, j.s + make_interval(hours => j.h), 100, 1
  FROM (VALUES
    -- rwth3001: (2 000, 3 000, 3 000) in February to April
    ('1', 'rwth3001', '2024-02-10 00:00+00'::timestamptz, 20), ('2', 'rwth3001', '2024-03-10 00:00+00', 30),
    ('3', 'rwth3001', '2024-04-10 00:00+00', 30),
    -- rwth3002: (2 500, 1 500, 2 000) in February to April
    ('4', 'rwth3002', '2024-02-10 00:00+00', 25), ('5', 'rwth3002', '2024-03-10 00:00+00', 15),
    ('6', 'rwth3002', '2024-04-10 00:00+00', 20),
    -- rwth3003: 2 500 in its first month
    ('7', 'rwth3003', '2024-01-10 00:00+00', 25),
    -- rwth3004: 1 500 in its only month
    ('8', 'rwth3004', '2024-01-10 00:00+00', 15)) j(id, account, s, h);

INSERT INTO scenarios (scenario) VALUES ('three'), ('same_rule');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES
    ('three', 'r3', 'clusters', '{"rwth_rule": "three_months"}'),
    ('same_rule', 'r3', 'clusters', '{"rwth_rule": "window"}');

-- Live (window) and under the scenario (three_months), as of 1 July 2024 (every month begun):
--   rwth3001 Apr: window 6 000 − 3 000 − 3 000 = 0 (low priority); three_months [Feb,Apr]
--            6 000 − 8 000 = −2 000.  Mar: 1 000 both.  May: window 6 000 − 3 000 − 0 = 3 000;
--            three_months [Mar,May] 6 000 − 6 000 = 0 (low priority).
--   rwth3002 Apr: window 6 000 − 1 500 − 2 000 = 2 500; three_months [Feb,Apr] 6 000 − 6 000 = 0.
--            Feb: window 6 000 − 0 − 2 500 = 3 500; three_months [Jan,Feb] 4 000 − 2 500 = 1 500.
--   rwth3003 Jan: window 4 000 − 2 500 = 1 500; three_months [Jan] 2 000 − 2 500 = −500.
--   rwth3004 Jan (one month): 2 000 − 1 500 = 500 both: not listed.
SELECT project, month, live_consumed, live_consumable, scenario_consumable, live_state, scenario_state,
       live_rule, scenario_rule
  FROM scenario_rwth_compare('2024-07-01 00:00+00', 'three')
 WHERE cluster = 'r3' AND (live_consumable <> scenario_consumable OR live_state <> scenario_state)
 ORDER BY project, month;
-- every month shows both rules; the scenario changes neither the consumption nor the live rule
SELECT count(*) AS months, count(*) FILTER (WHERE live_rule = 'window' AND scenario_rule = 'three_months') AS both_rules,
       count(*) FILTER (WHERE live_consumed = scenario_consumed) AS same_consumed
  FROM scenario_rwth_compare('2024-07-01 00:00+00', 'three') WHERE cluster = 'r3';
SELECT rwth_rule FROM clusters WHERE cluster = 'r3';
-- the report's own row of rwth3001's April under the scenario: consumable −2 000, balance −100 %
SELECT project, month, state, monthly, remaining_prev, consumed, consumable_pct, consumable, balance_pct,
       available_pct, consumed_total, allowance_total, low_priority, blocked
  FROM r_wlm_usage_at('2024-07-01 00:00+00', 'three') WHERE project = 'rwth3001' AND month = '2024-04-01';

-- The scenario equals the live report with the rule made live (then undone), every
-- column of every row; a scenario of the live rule equals the live report.
CREATE TEMP TABLE r3_got AS
SELECT s.scenario, to_jsonb(r) AS r
  FROM (VALUES ('three'), ('same_rule')) s(scenario),
       r_wlm_usage_at('2024-07-01 00:00+00', s.scenario) r WHERE r.cluster = 'r3';
CREATE FUNCTION pg_temp.r3_differing(scen text) RETURNS TABLE (scenario text, rows bigint, differing bigint)
LANGUAGE sql AS $$
    SELECT scen, (SELECT count(*) FROM fairshare.r_wlm_usage_at('2024-07-01 00:00+00') r WHERE r.cluster = 'r3'),
           (SELECT count(*) FROM (
              (SELECT g.r FROM r3_got g WHERE g.scenario = scen
               EXCEPT ALL SELECT to_jsonb(r) FROM fairshare.r_wlm_usage_at('2024-07-01 00:00+00') r WHERE r.cluster = 'r3')
              UNION ALL
              (SELECT to_jsonb(r) FROM fairshare.r_wlm_usage_at('2024-07-01 00:00+00') r WHERE r.cluster = 'r3'
               EXCEPT ALL SELECT g.r FROM r3_got g WHERE g.scenario = scen)) x) $$;
SELECT * FROM pg_temp.r3_differing('same_rule');
-- not the live report: the 15 months listed above and rwth3003's April (consumable 6 000
-- both; balance window (2 000 − 0) + 2 000 − 0 = 4 000, three_months min([2,4] 6 000,
-- [3,4] 4 000, [4] 2 000) = 2 000): 16 rows each way
SELECT * FROM pg_temp.r3_differing('three');
-- (made live before the period: the rule is read as of as_of, from the settings history)
SAVEPOINT rule;
SET LOCAL fairshare.tree_change_at = '2023-12-01 00:00+00';
UPDATE clusters SET rwth_rule = 'three_months' WHERE cluster = 'r3';
SELECT * FROM pg_temp.r3_differing('three');
ROLLBACK TO SAVEPOINT rule;

-- The rule has a history like the other settings (docs/history.md#the-history-of-the-settings):
-- changed on 15 May 2024, the report as of 1 May reads the window, as of 1 July three_months.
SET LOCAL fairshare.tree_change_at = '2024-05-15 00:00+00';
UPDATE clusters SET rwth_rule = 'three_months' WHERE cluster = 'r3';
SELECT table_name, name, settings ->> 'rwth_rule' AS rwth_rule, valid_from, valid_to
  FROM settings_history WHERE cluster = 'r3' ORDER BY valid_from;
--   rwth3001 April as of 1 May: window 0; as of 1 July: three_months −2 000
SELECT (SELECT consumable FROM r_wlm_usage_at('2024-05-01 00:00+00') WHERE project = 'rwth3001' AND month = '2024-04-01') AS may_1st,
       (SELECT consumable FROM r_wlm_usage_at('2024-07-01 00:00+00') WHERE project = 'rwth3001' AND month = '2024-04-01') AS july_1st;
-- a scenario of the window over it: the live rule three_months, the scenario's window
SELECT project, month, live_consumable, scenario_consumable, live_rule, scenario_rule
  FROM scenario_rwth_compare('2024-07-01 00:00+00', 'same_rule')
 WHERE project = 'rwth3001' AND month = '2024-04-01';
ROLLBACK TO SAVEPOINT rule;

-- Refused: another rule in the table (23514) or in a scenario (22023).
SELECT pg_temp.err(q) AS error FROM (VALUES
    ($$UPDATE fairshare.clusters SET rwth_rule = 'sliding' WHERE cluster = 'r3'$$),
    ($$INSERT INTO fairshare.scenario_settings (scenario, cluster, table_name, settings)
       VALUES ('same_rule', 'r3', 'clusters', '{"rwth_rule": "sliding"}')$$),
    ($$UPDATE fairshare.scenario_settings SET settings = '{"rwth_rule": 3}' WHERE scenario = 'three'$$)) v(q);
ROLLBACK;

-- Against the rule written out, on 10^4 random months of periods of one to
-- three months (allowances 0 to 1000, each month's consumption 0 to 1500):
-- month m, the windows that contain m start at m − 2, m − 1 and m, months
-- outside the period count 0 (a subscript outside the array is NULL here),
-- and the months after m have consumed nothing:
--   available = min(A(m−2) + A(m−1) + A(m) − C(m−2) − C(m−1) − C(m),
--                   A(m−1) + A(m) + A(m+1) − C(m−1) − C(m),
--                   A(m) + A(m+1) + A(m+2) − C(m)),
-- the balance the same without the allowances after m.  Equal to 1e-9 (the
-- two add in another order), low priority exactly.
SELECT setseed(0.5) IS NULL AS seeded;
CREATE TEMP TABLE r3_random AS
SELECT i, n, m, a, c FROM (
    SELECT i, n, 1 + floor(random() * n)::int AS m,
           ARRAY(SELECT round(random() * 1000)::float8 FROM generate_series(1, n) WHERE i > 0) AS a,
           ARRAY(SELECT round(random() * 1500)::float8 FROM generate_series(1, n) WHERE i > 0) AS c
      FROM (SELECT i, 1 + i % 3 AS n FROM generate_series(1, 10000) i) g) x;
SELECT count(*) AS months,
       count(*) FILTER (WHERE abs((s).available - w.available) > 1e-9 * greatest(abs(w.available), 1)
                           OR abs((s).balance - w.balance) > 1e-9 * greatest(abs(w.balance), 1)
                           OR (s).low_priority IS DISTINCT FROM (w.available <= 0)) AS differing,
       count(*) FILTER (WHERE (s).low_priority) AS low_priority
  FROM (SELECT rwth_month_status(r.a, r.c[1:r.m], r.m, 'three_months') AS s,
               coalesce(r.a[r.m - 2], 0) AS a2, coalesce(r.a[r.m - 1], 0) AS a1, r.a[r.m] AS a0,
               coalesce(r.a[r.m + 1], 0) AS an1, coalesce(r.a[r.m + 2], 0) AS an2,
               coalesce(r.c[r.m - 2], 0) AS c2, coalesce(r.c[r.m - 1], 0) AS c1, r.c[r.m] AS c0
          FROM r3_random r) r
 CROSS JOIN LATERAL (SELECT least(a2 + a1 + a0 - c2 - c1 - c0, a1 + a0 + an1 - c1 - c0, a0 + an1 + an2 - c0) AS available,
                            least(a2 + a1 + a0 - c2 - c1 - c0, a1 + a0 - c1 - c0, a0 - c0) AS balance) w;
