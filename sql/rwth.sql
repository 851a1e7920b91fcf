-- rwth: RWTH three-month sliding-window quota (POLICIES.md §6, seed 003,
-- policies-research.md B).  Worked examples with the arithmetic beside each.
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
