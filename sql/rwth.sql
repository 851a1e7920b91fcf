-- rwth: RWTH three-month sliding-window quota
-- (docs/policies.md#rwth-sliding-window-quota; the RWTH page is seed 003 of
-- docs/policies.md#the-five-pages).  Worked examples with the arithmetic
-- beside each.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
\set SHOW_CONTEXT never

-- ---------------------------------------------------------------------------
-- rwth_available_quota = A(m−1) + A(m) + A(m+1) − C(m−1) − C(m)
-- ---------------------------------------------------------------------------
-- Seed 003, first table: 50 000 a month, January to April; January used 0, February 70 000.
--   January (first month, nothing transferred in): 50 000 + 50 000 − 0 = 100 000;
--   February before any use: 3 × 50 000 − 0 − 0 = 150 000 (50 000 transferred, 50 000 borrowable);
--   February after using 70 000: 150 000 − 70 000 = 80 000;
--   March: 3 × 50 000 − 70 000 − 0 = 80 000 ("up to 80000");
--   April (last month, no borrowing) after March used all 80 000: 50 000 + 50 000 − 80 000 − 0 = 20 000.
SELECT month, rwth_available_quota(a_prev, 50000, a_next, c_prev, c_cur) AS available
  FROM (VALUES ('Jan', NULL::float8, 50000::float8, NULL::float8, 0::float8),
               ('Feb', 50000, 50000, 0, 0),
               ('Feb', 50000, 50000, 0, 70000),
               ('Mar', 50000, 50000, 70000, 0),
               ('Apr', 50000, NULL, 80000, 0)) v(month, a_prev, a_next, c_prev, c_cur);

-- Second table: February used 120 000 (50 000 transferred from January, 20 000 borrowed).
--   February: 150 000 − 0 − 120 000 = 30 000;  March: 150 000 − 120 000 − 0 = 30 000 ("up to 30000");
--   April, the last month, after March used its 30 000: 50 000 + 50 000 − 30 000 − 0 = 70 000
--   ≥ 50 000: "the capacity to use the monthly allowance in its entirety is restored".
SELECT month, rwth_available_quota(a_prev, 50000, a_next, c_prev, c_cur) AS available
  FROM (VALUES ('Feb', 50000::float8, 50000::float8, 0::float8, 120000::float8),
               ('Mar', 50000, 50000, 120000, 0),
               ('Apr', 50000, NULL, 30000, 0)) v(month, a_prev, a_next, c_prev, c_cur);

-- One-month project: neither transfer nor borrowing: A − C = 1 000 − 300 = 700.
-- NULL allowance_prev: consumed_prev is ignored (the month is outside the period).
SELECT rwth_available_quota(NULL, 1000, NULL, NULL, 300) AS one_month,        -- 700
       rwth_available_quota(NULL, 1000, 1000, 999, 300) AS prev_ignored;      -- 2 000 − 300 = 1 700

-- ---------------------------------------------------------------------------
-- rwth_quota_status
-- ---------------------------------------------------------------------------
-- r_wlm_usage -q of the seed: 1 000 a month, the previous month used 800, nothing yet this month:
--   remaining_prev = 1 000 − 800 = 200; balance = 200 + 1 000 − 0 = 1 200 → 120 %;
--   available ("Consumable core-h") = 3 000 − 800 − 0 = 2 200 → 220 %.
SELECT * FROM rwth_quota_status(1000, 1000, 1000, 800, 0);

-- Borrowing and the display clamp (1 000 a month, mid-period):
--   C = (0, 1 500):     balance = 2 000 − 1 500 = 500 → 50 %; available 1 500 → 150 %
--   C = (1 500, 1 000): balance = 2 000 − 2 500 = −500 → −50 %; available 500 → 50 %
--   C = (1 000, 2 000): balance = −1 000 → −100 % (shown as is); available 0 → low priority (≤ 0)
--   C = (1 500, 1 800): balance = −1 300 → −130 %, shown −101; available −300 → low priority
--   C = (0, 6 000):     balance −4 000 → −400 % (−101); C(m) = 6 × A(m) exactly: not blocked
--   C = (0, 6 001):     C(m) > 6 000: blocked
SELECT c_prev, c_cur, q.available, q.balance, q.balance_pct, q.balance_pct_display, q.available_pct,
       q.low_priority, q.blocked
  FROM (VALUES (0::float8, 1500::float8), (1500, 1000), (1000, 2000), (1500, 1800), (0, 6000), (0, 6001)) v(c_prev, c_cur),
       rwth_quota_status(1000, 1000, 1000, c_prev, c_cur) q;

-- The total condition: 6 months of 1 000 = 6 000 allowed; blocked above 2 × 6 000 = 12 000 (strict).
SELECT (rwth_quota_status(1000, 1000, 1000, 0, 0, 6000, 12000)).blocked AS total_12000,  -- f
       (rwth_quota_status(1000, 1000, 1000, 0, 0, 6000, 12001)).blocked AS total_12001,  -- t
       (rwth_quota_status(1000, 1000, 1000, 0, 0)).blocked AS no_totals;                  -- f

-- Zero allowance: percentages NULL; available = −C; any use is low priority and blocked (C > 6 × 0).
SELECT * FROM rwth_quota_status(0, 0, 0, 0, 5);
SELECT * FROM rwth_quota_status(NULL, 0, NULL, NULL, 0);

-- Bad input: NaN, negative, infinite → 22023; the current month NULL → 22004.
\set VERBOSITY default
SELECT rwth_available_quota(1000, 1000, 1000, 'NaN', 0);
SELECT rwth_available_quota(1000, -1, 1000, 0, 0);
SELECT rwth_available_quota(1000, 1000, 'Infinity', 0, 0);
SELECT rwth_available_quota(1000, NULL, 1000, 0, 0);
SELECT rwth_available_quota(1000, 1000, 1000, 0, NULL);
SELECT rwth_available_quota(1000, 1000, 1000, NULL, 0);
SELECT rwth_quota_status(1000, 1000, 1000, 0, 0, -1, 0);
\set VERBOSITY terse

-- ---------------------------------------------------------------------------
-- Monthly consumption from the job table, and r_wlm_usage (rolled back at the end).
-- ---------------------------------------------------------------------------
BEGIN;
-- Cluster in Berlin time, a GPU-hour billed as 24 core-hours.  'c18m' is shared,
-- 'jara' charges whole nodes (48 cores), 'gpu' has 2 GPUs a node.
INSERT INTO clusters (cluster, gpu_hour_factor, timezone) VALUES ('r_claix', 24, 'Europe/Berlin');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes, gpus_per_node, whole_node) VALUES
    ('r_claix', 'c18m', 48, 192000, 100, 0, false),
    ('r_claix', 'jara', 48, 192000, 100, 0, true),
    ('r_claix', 'gpu', 48, 192000, 10, 2, false);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
    ('r_claix', 'root', NULL, 1), ('r_claix', 'rwth0001', 'root', 1), ('r_claix', 'rwth0002', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES
    ('r_claix', 'rwth0001', 'ab123456'), ('r_claix', 'rwth0002', 'ab123456');

-- rwth0001: 1 000 core-h a month, period 15 Jan 2024 .. 14 Apr 2024 (starts and ends
-- mid-month: the calendar months January to April, each with the whole allowance).
-- rwth0002: 600 h spread over 1 Jan .. 30 Jun 2024: 600 / 6 = 100 a month.
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours, monthly_allowance) VALUES
    ('r_claix', 'rwth0001', 'rwth', '2024-01-15', '2024-04-14', 4000, 1000),
    ('r_claix', 'rwth0002', 'rwth', '2024-01-01', '2024-06-30', 600, NULL);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time,
                  cpus, nodes, gpus, exclusive) VALUES
    -- before the period: not counted
    ('r_claix', '1', 'ab123456', 'rwth0001', 'c18m', 'COMPLETED', '2024-01-10 08:00+01', '2024-01-10 08:00+01', '2024-01-10 18:00+01', 10, 1, 0, false),
    -- across the period start (15 Jan 00:00 CET): 2 h × 10 = 20 in January
    ('r_claix', '2', 'ab123456', 'rwth0001', 'c18m', 'COMPLETED', '2024-01-14 22:00+01', '2024-01-14 22:00+01', '2024-01-15 02:00+01', 10, 1, 0, false),
    -- 10 h × 10 = 100 in January
    ('r_claix', '3', 'ab123456', 'rwth0001', 'c18m', 'COMPLETED', '2024-01-20 10:00+01', '2024-01-20 10:00+01', '2024-01-20 20:00+01', 10, 1, 0, false),
    -- across the month boundary in Berlin time: 31 Jan 20:00 → 1 Feb 04:00 CET, 12 cores:
    -- 4 h × 12 = 48 in January, 48 in February (in UTC it would be 5 h / 3 h)
    ('r_claix', '4', 'ab123456', 'rwth0001', 'c18m', 'COMPLETED', '2024-01-31 20:00+01', '2024-01-31 20:00+01', '2024-02-01 04:00+01', 12, 1, 0, false),
    -- leap day, whole nodes: 2 nodes × 48 = 96 cores (1 asked) × 10 h = 960 in February
    ('r_claix', '5', 'ab123456', 'rwth0001', 'jara', 'COMPLETED', '2024-02-29 12:00+01', '2024-02-29 12:00+01', '2024-02-29 22:00+01', 1, 2, 0, false),
    -- GPUs: max(4 cores, 2 GPUs × 24) = 48 × 5 h = 240 in March
    ('r_claix', '6', 'ab123456', 'rwth0001', 'gpu', 'COMPLETED', '2024-03-05 10:00+01', '2024-03-05 10:00+01', '2024-03-05 15:00+01', 4, 1, 2, false),
    -- exclusive job in a shared partition: 48 cores × 1 h = 48 in March
    ('r_claix', '7', 'ab123456', 'rwth0001', 'c18m', 'COMPLETED', '2024-03-20 10:00+01', '2024-03-20 10:00+01', '2024-03-20 11:00+01', 4, 1, 0, true),
    -- still running, started 10 Apr 00:00 CEST, 2 cores: 48 h × 2 = 96 by 12 Apr 00:00 CEST;
    -- by the end of the period (15 Apr 00:00 CEST) 120 h × 2 = 240
    ('r_claix', '8', 'ab123456', 'rwth0001', 'c18m', 'RUNNING', '2024-04-10 00:00+02', '2024-04-10 00:00+02', NULL, 2, 1, 0, false),
    -- rwth0002: 70 cores × 10 h = 700 in February
    ('r_claix', '9', 'ab123456', 'rwth0002', 'c18m', 'COMPLETED', '2024-02-10 00:00+01', '2024-02-10 00:00+01', '2024-02-10 10:00+01', 70, 2, 0, false);

-- As of 12 Apr 2024 00:00 CEST.  rwth0001: January 20 + 100 + 48 = 168; February 48 + 960 = 1 008;
-- March 240 + 48 = 288; April 96.  rwth0002: 0, 700, 0, 0 (May and June have not begun).
SELECT account, month, month_no, months, allowance, consumed
  FROM rwth_monthly_usage_at('2024-04-12 00:00+02') ORDER BY account, month;

-- r_wlm_usage as of the same instant.  rwth0001 (A = 1 000, 4 months, total 4 000):
--   Jan: available = 1 000 + 1 000 − 168 = 1 832; balance = 1 000 − 168 = 832 → 83.2 %
--   Feb: available = 3 000 − 168 − 1 008 = 1 824; remaining_prev = 832; balance = 832 + 1 000 − 1 008 = 824 → 82.4 %
--   Mar: available = 3 000 − 1 008 − 288 = 1 704; remaining_prev = −8; balance = −8 + 1 000 − 288 = 704 → 70.4 %
--   Apr (last month, no borrowing): available = 2 000 − 288 − 96 = 1 616; remaining_prev = 712;
--        balance = 712 + 1 000 − 96 = 1 616 → 161.6 %; total used 168 + 1 008 + 288 + 96 = 1 560
-- rwth0002 (A = 100, 6 months, total 600):
--   Jan: available 200, balance 100 → 100 %
--   Feb: available = 300 − 0 − 700 = −400 → low priority; balance = 200 − 700 = −500 → −500 %, shown −101;
--        700 > 6 × 100: blocked
--   Mar: available = 300 − 700 − 0 = −400: low priority; remaining_prev = −600; balance −500 → −101;
--        C(m) = 0 and 700 ≤ 2 × 600: not blocked
--   Apr: available = 300 − 0 − 0 = 300; remaining_prev 100; balance 200 → 200 %
SELECT project, month, period_start, period_end, state, monthly, remaining_prev, consumed,
       consumable_pct, consumable, balance_pct, available_pct, consumed_total, allowance_total,
       low_priority, blocked
  FROM r_wlm_usage_at('2024-04-12 00:00+02') ORDER BY project, month;

-- After the end of the period the running job counts up to 15 Apr 00:00 CEST: 240 in April.
-- Before the start of rwth0001's period (14 Jan) only rwth0002's January is listed.
SELECT account, month, consumed FROM rwth_monthly_usage_at('2024-05-01 00:00+02')
 WHERE account = 'rwth0001' AND month = '2024-04-01';
SELECT account, month, consumed FROM rwth_monthly_usage_at('2024-01-14 12:00+01');

-- The month boundary is the cluster's midnight: at 1 Feb 2024 00:30 CET (23:30 UTC on
-- 31 Jan) February has begun, and job 4 has put 30 min × 12 = 6 into it.
SELECT account, month, consumed FROM rwth_monthly_usage_at('2024-02-01 00:30+01')
 WHERE account = 'rwth0001' ORDER BY month;

-- the views are the functions at now(): all months of both periods, which ended in 2024
SELECT count(*) AS months FROM r_wlm_usage WHERE cluster = 'r_claix';             -- 4 + 6
SELECT count(*) AS months FROM rwth_monthly_usage WHERE cluster = 'r_claix';      -- 4 + 6

-- The policy lab (docs/history.md#the-policy-lab): the reports as if another
-- GPU-hour factor or node shape had been in force, the live settings untouched.
INSERT INTO scenarios (scenario) VALUES ('gpu12'), ('jara_shared'), ('wide_jara'), ('same_rwth');
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES
  ('gpu12', 'r_claix', 'clusters', '', '{"gpu_hour_factor": 12}'),
  ('jara_shared', 'r_claix', 'partitions', 'jara', '{"whole_node": false}'),
  ('wide_jara', 'r_claix', 'partitions', 'jara', '{"cores_per_node": 64}'),
  ('same_rwth', 'r_claix', 'clusters', '', '{"gpu_hour_factor": 24}');
-- gpu12: job 6 pays max(4, 2 × 12) = 24 × 5 h = 120 instead of 240: rwth0001's
-- March 120 + 48 = 168.  Mar: available = 3 000 − 1 008 − 168 = 1 824, balance
-- −8 + 1 000 − 168 = 824 → 82.4 %; Apr: available = 2 000 − 168 − 96 = 1 736,
-- remaining_prev 1 000 − 168 = 832, balance 832 + 1 000 − 96 = 1 736 → 173.6 %;
-- total 168 + 1 008 + 168 + 96 = 1 440.
SELECT project, month, consumed, consumable, consumable_pct, remaining_prev, consumed_total, state
  FROM r_wlm_usage_at('2024-04-12 00:00+02', 'gpu12') WHERE project = 'rwth0001' ORDER BY month;
-- jara_shared: job 5 pays its 1 CPU × 10 h = 10 instead of 2 whole nodes (960):
-- February 48 + 10 = 58.  wide_jara: 2 nodes × 64 cores × 10 h = 1 280:
-- February 48 + 1 280 = 1 328.  rwth0002 (c18m only) is the same under all three.
SELECT s.scenario, u.account, u.month, u.consumed
  FROM (VALUES ('jara_shared'), ('wide_jara'), ('gpu12')) s(scenario),
       rwth_monthly_usage_at('2024-04-12 00:00+02', s.scenario) u
 WHERE u.month = '2024-02-01' ORDER BY s.scenario, u.account;
-- side by side: the months a scenario changes
SELECT project, month, live_consumed, scenario_consumed, live_consumable, scenario_consumable, live_state, scenario_state
  FROM scenario_rwth_compare('2024-04-12 00:00+02', 'jara_shared')
 WHERE live_consumed <> scenario_consumed OR live_consumable <> scenario_consumable ORDER BY project, month;
-- the live report is untouched after the scenarios (job 6 still 240, job 5 960)
SELECT month, consumed FROM rwth_monthly_usage_at('2024-04-12 00:00+02')
 WHERE account = 'rwth0001' AND month IN ('2024-02-01', '2024-03-01') ORDER BY month;
-- A scenario equals the live report with its settings made live (then
-- undone), every column of every row; same_rwth (the live factor) equals
-- the live report as it is.
CREATE TEMP TABLE r_got AS
SELECT s.scenario, to_jsonb(r) AS r
  FROM (VALUES ('gpu12'), ('jara_shared'), ('wide_jara'), ('same_rwth')) s(scenario),
       r_wlm_usage_at('2024-04-12 00:00+02', s.scenario) r WHERE r.cluster = 'r_claix';
CREATE FUNCTION pg_temp.r_differing(scen text) RETURNS TABLE (scenario text, rows bigint, differing bigint)
LANGUAGE sql AS $$
    SELECT scen, (SELECT count(*) FROM fairshare.r_wlm_usage_at('2024-04-12 00:00+02') r WHERE r.cluster = 'r_claix'),
           (SELECT count(*) FROM (
              (SELECT g.r FROM r_got g WHERE g.scenario = scen
               EXCEPT ALL SELECT to_jsonb(r) FROM fairshare.r_wlm_usage_at('2024-04-12 00:00+02') r WHERE r.cluster = 'r_claix')
              UNION ALL
              (SELECT to_jsonb(r) FROM fairshare.r_wlm_usage_at('2024-04-12 00:00+02') r WHERE r.cluster = 'r_claix'
               EXCEPT ALL SELECT g.r FROM r_got g WHERE g.scenario = scen)) x) $$;
SELECT * FROM pg_temp.r_differing('same_rwth');
SAVEPOINT lab;
UPDATE clusters SET gpu_hour_factor = 12 WHERE cluster = 'r_claix';
SELECT * FROM pg_temp.r_differing('gpu12');
ROLLBACK TO SAVEPOINT lab;
UPDATE partitions SET whole_node = false WHERE cluster = 'r_claix' AND partition = 'jara';
SELECT * FROM pg_temp.r_differing('jara_shared');
ROLLBACK TO SAVEPOINT lab;
UPDATE partitions SET cores_per_node = 64 WHERE cluster = 'r_claix' AND partition = 'jara';
SELECT * FROM pg_temp.r_differing('wide_jara');
ROLLBACK TO SAVEPOINT lab;
-- and gpu12 is not the live report: rwth0001's March and April differ (2 rows
-- each way)
SELECT * FROM pg_temp.r_differing('gpu12');
-- refused: a negative or infinite factor, no cores, a node shape that is no boolean
\set VERBOSITY default
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('same_rwth', 'r_claix', 'clusters', '{"gpu_hour_factor": -1}');
ROLLBACK TO SAVEPOINT lab;
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('same_rwth', 'r_claix', 'partitions', 'gpu', '{"cores_per_node": 0}');
ROLLBACK TO SAVEPOINT lab;
INSERT INTO scenario_settings (scenario, cluster, table_name, name, settings) VALUES ('same_rwth', 'r_claix', 'partitions', 'gpu', '{"whole_node": "sometimes"}');
ROLLBACK TO SAVEPOINT lab;
SELECT count(*) FROM r_wlm_usage_at('2024-04-12 00:00+02', 'no_such');
ROLLBACK TO SAVEPOINT lab;
\set VERBOSITY terse

\set VERBOSITY default
SAVEPOINT s;
SELECT * FROM r_wlm_usage_at(NULL);
ROLLBACK TO SAVEPOINT s;
SELECT * FROM r_wlm_usage_at('infinity');
ROLLBACK TO SAVEPOINT s;
SELECT * FROM rwth_monthly_usage_at('-infinity');
ROLLBACK TO SAVEPOINT s;
\set VERBOSITY terse
ROLLBACK;

-- ---------------------------------------------------------------------------
-- The C pieces of the reports (rwth.c, docs/performance.md): month starts,
-- the split of the jobs across months, running totals.
-- ---------------------------------------------------------------------------
SET timezone = 'UTC';
-- 15 Jan .. 14 Apr 2024 in Berlin: 4 months, 5 instants (the end of April is the 5th);
-- midnight CET = 23:00 UTC the day before, CEST (from 31 Mar) = 22:00 UTC.
SELECT unnest(fairshare_internal._rwth_month_starts('2024-01-15', '2024-04-14', 'Europe/Berlin')) AS month_starts;
-- a one-day period: its month and the next month's start; NULL in, NULL out (STRICT)
SELECT fairshare_internal._rwth_month_starts('2024-02-29', '2024-02-29', 'UTC') AS one_day,
       fairshare_internal._rwth_month_starts(NULL, '2024-02-29', 'UTC') AS null_start;
-- the same instants as (first of the month)::timestamp AT TIME ZONE zone, over
-- 600 months and three zones (a DST zone, one without, a fixed offset)
SELECT count(*) AS months_checked,
       count(*) FILTER (WHERE s.s IS DISTINCT FROM
                        ('1990-01-01'::timestamp + make_interval(months => (s.i - 1)::int)) AT TIME ZONE z) AS differ
  FROM unnest(ARRAY['Europe/Berlin', 'Asia/Tokyo', 'UTC+3']) z,
       unnest(fairshare_internal._rwth_month_starts('1990-01-20', '2039-12-01', z)) WITH ORDINALITY s(s, i);

-- _rwth_month_hours(bounds, since, until, partitions, whole_node, cores_per_node,
-- gpu_hour_factor, partition, cpus, started, ended, exclusive, nodes, gpus): months
-- [1 Jan, 1 Feb), [1 Feb, 1 Mar), [1 Mar, 1 Apr) UTC, counting from 10 Jan to 20 Mar
-- 12:00; partitions 'shared' (48 cores a node), 'jara' (whole nodes of 48), 'gpu',
-- 'bare' (no node shape).
CREATE TEMP TABLE mh_bounds AS
SELECT ARRAY['2024-01-01', '2024-02-01', '2024-03-01', '2024-04-01']::timestamptz[] AS b,
       '2024-01-10 00:00+00'::timestamptz AS since, '2024-03-20 12:00+00'::timestamptz AS until,
       '{shared,jara,gpu,bare}'::text[] AS parts, '{f,t,f,f}'::boolean[] AS whole,
       '{48,48,48,NULL}'::integer[] AS cpn;
SELECT j.what, fairshare_internal._rwth_month_hours(m.b, m.since, m.until, m.parts, m.whole, m.cpn, j.f, j.part,
                                 j.cpus, j.s, j.e, j.excl, j.nodes, j.gpus) AS hours
  FROM mh_bounds m,
       (VALUES
        -- 10 cores, 31 Jan 20:00 → 1 Feb 04:00: 4 h × 10 = 40 in January, 40 in February
        ('across a month', 'shared', 10, '2024-01-31 20:00+00'::timestamptz, '2024-02-01 04:00+00'::timestamptz, false, 1, 0, 24::float8),
        -- 2 cores, 9 Jan 12:00 → 10 Jan 12:00: only the 12 h after since count: 24
        ('across since', 'shared', 2, '2024-01-09 12:00+00', '2024-01-10 12:00+00', false, 1, 0, 24),
        -- 1 core, 31 Jan 00:00 → 1 Mar 12:00: 24 in January, 29 × 24 = 696 in February, 12 in March
        ('three months', 'shared', 1, '2024-01-31 00:00+00', '2024-03-01 12:00+00', false, 1, 0, 24),
        -- running since 20 Mar 00:00, 4 cores: to until, 12 h × 4 = 48 in March
        ('running', 'shared', 4, '2024-03-20 00:00+00', NULL, false, 1, 0, 24),
        -- ended after until: cut there, the same 48
        ('past until', 'shared', 4, '2024-03-20 00:00+00', '2024-03-25 00:00+00', false, 1, 0, 24),
        -- exclusive, 2 nodes of 48 cores (3 asked), 1 h: 96 in February
        ('exclusive', 'shared', 3, '2024-02-10 10:00+00', '2024-02-10 11:00+00', true, 2, 0, 24),
        -- not exclusive, but 'jara' bills whole nodes: the same 96
        ('whole-node partition', 'jara', 3, '2024-02-10 10:00+00', '2024-02-10 11:00+00', false, 2, 0, 24),
        -- exclusive without cores_per_node: its cpus, 3 × 1 h = 3
        ('no node shape', 'bare', 3, '2024-02-10 10:00+00', '2024-02-10 11:00+00', true, 2, 0, 24),
        -- 4 cores, 2 GPUs × 24 = 48 > 4: 48 × 30 min = 24 in March
        ('GPUs', 'gpu', 4, '2024-03-05 10:00+00', '2024-03-05 10:30+00', false, 1, 2, 24),
        -- 64 cores > 2 GPUs × 24: 64 × 30 min = 32; a NULL factor counts 0 GPU-hours: the same
        ('cores win', 'gpu', 64, '2024-03-05 10:00+00', '2024-03-05 10:30+00', false, 1, 2, 24),
        ('no factor', 'gpu', 64, '2024-03-05 10:00+00', '2024-03-05 10:30+00', false, 1, 2, NULL),
        -- before since, after until, ending as it starts: no piece, NULL (no row counted)
        ('before', 'shared', 8, '2024-01-02 00:00+00', '2024-01-03 00:00+00', false, 1, 0, 24),
        ('after', 'shared', 8, '2024-03-21 00:00+00', '2024-03-22 00:00+00', false, 1, 0, 24),
        ('empty', 'shared', 8, '2024-02-02 00:00+00', '2024-02-02 00:00+00', false, 1, 0, 24),
        -- NULL cpus or start: core_hours is NULL, nothing counts; nor in a partition not
        -- given (the join to partitions would drop the job)
        ('no cpus', 'shared', NULL, '2024-02-02 00:00+00', '2024-02-02 10:00+00', false, 1, 0, 24),
        ('no start', 'shared', 8, NULL, '2024-02-02 10:00+00', false, 1, 0, 24),
        ('unknown partition', 'nosuch', 8, '2024-02-02 00:00+00', '2024-02-02 10:00+00', false, 1, 0, 24)
       ) j(what, part, cpus, s, e, excl, nodes, gpus, f)
 GROUP BY j.what ORDER BY j.what;
-- several jobs in one group: 40 + 24 + 24 = 88 in January, 40 + 696 + 96 = 832 in February,
-- 12 + 48 = 60 in March
SELECT fairshare_internal._rwth_month_hours(m.b, m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared',
                         j.cpus, j.s, j.e, j.excl, j.nodes, 0) AS hours
  FROM mh_bounds m,
       (VALUES (10, '2024-01-31 20:00+00'::timestamptz, '2024-02-01 04:00+00'::timestamptz, false, 1),
               (2, '2024-01-09 12:00+00', '2024-01-10 12:00+00', false, 1),
               (1, '2024-01-31 00:00+00', '2024-03-01 12:00+00', false, 1),
               (4, '2024-03-20 00:00+00', NULL, false, 1),
               (3, '2024-02-10 10:00+00', '2024-02-10 11:00+00', true, 2)) j(cpus, s, e, excl, nodes);
-- The partitions may differ from row to row (the lookup is kept per call site and
-- recognised by its bytes): 'x' is shared in group 1, 2 cores × 1 h = 2 a job, and bills
-- whole nodes of 8 in group 2, 8 × 1 h = 8 a job; two jobs each, the rows alternating.
SELECT v.g, fairshare_internal._rwth_month_hours(m.b, m.since, m.until, v.parts, v.whole, v.cpn, 24, 'x', 2,
                              '2024-02-10 10:00+00', '2024-02-10 11:00+00', false, 1, 0) AS hours
  FROM mh_bounds m,
       (VALUES (1, '{x}'::text[], '{f}'::boolean[], '{8}'::integer[]), (2, '{w,x}', '{f,t}', '{4,8}'),
               (1, '{x}', '{f}', '{8}'), (2, '{w,x}', '{f,t}', '{4,8}')) v(g, parts, whole, cpn)
 GROUP BY v.g ORDER BY v.g;
-- Bit for bit what the reports computed in SQL before (1.0): each job joined to its
-- partition and cut at the bounds (greatest/least), core_hours per piece, sum() per
-- month in the same row order.  5 000 jobs at random microseconds over 14 months (up to
-- 3 days long, some running), random bounds in two time zones, random partitions and
-- shapes; every month compared as float8 (every bit).
SELECT setseed(0.17);
CREATE TEMP TABLE mh_parts AS
SELECT 'p' || i AS partition, random() < 0.3 AS whole_node,
       CASE WHEN random() < 0.8 THEN 16 * (1 + (random() * 6)::int) END AS cores_per_node
  FROM generate_series(1, 6) i;
CREATE TEMP TABLE mh_jobs AS
SELECT id, 1 + (id % 5) AS grp, 'p' || (1 + (random() * 5)::int) AS partition,
       (random() * 64)::int AS cpus, s,
       CASE WHEN random() < 0.05 THEN NULL ELSE s + random() * interval '3 days' END AS e,
       random() < 0.2 AS excl, 1 + (random() * 3)::int AS nodes, (random() * 4)::int AS gpus,
       CASE WHEN random() < 0.5 THEN 24 ELSE random() * 30 END AS f
  FROM (SELECT g AS id, '2023-12-01 00:00+00'::timestamptz + random() * interval '430 days' AS s
          FROM generate_series(1, 5000) g) r;
CREATE TEMP TABLE mh_groups AS
SELECT grp, fairshare_internal._rwth_month_starts('2024-01-01', '2024-12-31', z) AS b,
       ('2024-01-01'::timestamp + random() * interval '40 days') AT TIME ZONE z AS since,
       ('2024-11-01'::timestamp + random() * interval '70 days') AT TIME ZONE z AS until
  FROM generate_series(1, 5) grp, LATERAL (SELECT CASE WHEN grp % 2 = 0 THEN 'Europe/Berlin' ELSE 'America/New_York' END AS z) tz;
WITH pt AS (
    SELECT array_agg(partition ORDER BY partition) AS parts, array_agg(whole_node ORDER BY partition) AS whole,
           array_agg(cores_per_node ORDER BY partition) AS cpn
      FROM mh_parts
), agg AS (
    SELECT g.grp, fairshare_internal._rwth_month_hours(g.b, g.since, g.until, pt.parts, pt.whole, pt.cpn, j.f, j.partition,
                                    j.cpus, j.s, j.e, j.excl, j.nodes, j.gpus ORDER BY j.id) AS h
      FROM mh_groups g CROSS JOIN pt JOIN mh_jobs j USING (grp) GROUP BY g.grp
), pieces AS (
    SELECT g.grp, k, core_hours(j.cpus, greatest(j.s, g.since, g.b[k]),
                                least(coalesce(j.e, g.until), g.until, g.b[k + 1]),
                                j.excl OR p.whole_node, j.nodes, p.cores_per_node, j.gpus, j.f) AS h, j.id
      FROM mh_groups g JOIN mh_jobs j USING (grp) JOIN mh_parts p USING (partition), generate_series(1, 12) k
     WHERE greatest(j.s, g.since, g.b[k]) < least(coalesce(j.e, g.until), g.until, g.b[k + 1])
), by_sql AS (
    SELECT grp, k, sum(h ORDER BY id) AS h FROM pieces GROUP BY grp, k
)
SELECT count(*) AS months, count(*) FILTER (WHERE coalesce(s.h, 0) IS DISTINCT FROM a.h[k]) AS differ,
       count(*) FILTER (WHERE s.h > 0) AS months_used
  FROM agg a CROSS JOIN generate_series(1, 12) k LEFT JOIN by_sql s USING (grp, k);
-- bad input
\set VERBOSITY default
BEGIN;
SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(NULL, m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(m.b, NULL, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(ARRAY['2024-01-01']::timestamptz[], m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(ARRAY['2024-02-01', '2024-01-01']::timestamptz[], m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(ARRAY['2024-01-01', NULL]::timestamptz[], m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(ARRAY['2024-01-01', 'infinity']::timestamptz[], m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(v.b, m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0)
  FROM mh_bounds m CROSS JOIN LATERAL (VALUES (m.b), (m.b[1:3])) v(b);
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(m.b, m.since, m.until, m.parts, m.whole[1:3], m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(m.b, m.since, m.until, '{shared,NULL}', '{f,f}', '{48,48}', 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(m.b, m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', -1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(m.b, m.since, m.until, m.parts, m.whole, m.cpn, 'NaN', 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_hours(m.b, m.since, m.until, m.parts, m.whole, '{100000,100000,100000,100000}', 24, 'jara', 1, m.since, m.until, false, 100000, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
-- the transition function called directly, with a state the aggregate would not make
SELECT fairshare_internal._rwth_month_hours_accum('{1,NULL,3}', m.b, m.since, m.until, m.parts, m.whole, m.cpn, 24, 'shared', 1, m.since, m.until, false, 1, 0) FROM mh_bounds m;
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_starts('2024-02-01', '2024-01-31', 'UTC');
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_starts('2024-02-01', 'infinity', 'UTC');
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_starts('2024-02-01', '2024-03-01', 'Mars/Olympus');
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_month_starts('2024-02-01', '294276-12-15', 'UTC');
ROLLBACK TO SAVEPOINT s;
SELECT fairshare_internal._rwth_running_hours('{1,2}', -1);
ROLLBACK;
\set VERBOSITY terse
-- running totals: {1, 2, NULL, 4} over 5 months → {1, 3, 3, 7, 7}; NULL hours → zeros;
-- fewer months than hours: the first ones; NULL months → NULL
SELECT fairshare_internal._rwth_running_hours('{1,2,NULL,4}', 5) AS running,
       fairshare_internal._rwth_running_hours(NULL, 3) AS no_jobs,
       fairshare_internal._rwth_running_hours('{0.1,0.2,0.3}', 2) AS first_two,
       fairshare_internal._rwth_running_hours('{1}', NULL) AS no_months;
DROP TABLE mh_bounds, mh_parts, mh_jobs, mh_groups;
RESET timezone;
