-- genci: GENCI regulation of under-consumption (docs/policies.md, sections
-- genci-monthly-regulation and after; the GENCI text is seed 000 of
-- docs/policies.md#the-five-pages).  Worked examples with the arithmetic
-- beside each.
SET search_path = fairshare, public;
SET extra_float_digits = 0;
\set SHOW_CONTEXT never

-- ---------------------------------------------------------------------------
-- theoretical_consumption = A × E / D
-- ---------------------------------------------------------------------------
-- Seed 000: an allocation starting 1 May 2017, on 15 Aug 2017 → 106 days.
-- D = 365 (1 May 2017 .. 30 Apr 2018); E = 31 (May) + 30 (Jun) + 31 (Jul) + 14 = 106.
-- A = 4 380 000 h = 365 × 12 000, so A/D = 12 000 h a day and A/12 = 365 000 h a month.
SELECT '2017-08-15'::date - '2017-05-01'::date AS e_days,                -- 106
       '2018-04-30'::date - '2017-05-01'::date + 1 AS d_days,            -- 365
       theoretical_consumption(4380000, '2017-05-01', '2018-04-30', '2017-08-15') AS t;  -- 12 000 × 106 = 1 272 000

SELECT as_of, theoretical_consumption(4380000, '2017-05-01', '2018-04-30', as_of) AS t
  FROM (VALUES ('2016-01-01'::date),   -- before the start: 0
               ('2017-04-30'),         -- the day before: 0
               ('2017-05-01'),         -- the first day, not counted: E = 0 → 0
               ('2017-05-02'),         -- E = 1 → 12 000
               ('2018-04-30'),         -- the last day: E = 364 → 4 368 000
               ('2018-05-01'),         -- after the end: the whole allocation 4 380 000
               ('2030-01-01')) v(as_of);  -- long after: 4 380 000

-- Leap year: 1 May 2019 .. 30 Apr 2020 holds 29 Feb 2020, D = 366.
-- A = 366 000 → 1 000 h a day.  On 29 Feb 2020 E = 31+30+31+31+30+31+30+31+31+28 = 304;
-- on 1 Mar 2020 E = 305 (29 Feb counted).
SELECT '2020-04-30'::date - '2019-05-01'::date + 1 AS d_days,            -- 366
       theoretical_consumption(366000, '2019-05-01', '2020-04-30', '2020-02-29') AS t_feb29,  -- 304 000
       theoretical_consumption(366000, '2019-05-01', '2020-04-30', '2020-03-01') AS t_mar1,   -- 305 000
       genci_period_months('2019-05-01', '2020-04-30') AS months;       -- 12 (a year of 366 days is still 12 months)

-- Zero allocation: nothing is expected.
SELECT theoretical_consumption(0, '2017-05-01', '2018-04-30', '2017-08-15') AS t;  -- 0

-- ---------------------------------------------------------------------------
-- months of a period, month of the allocation
-- ---------------------------------------------------------------------------
SELECT p_start, p_end, genci_period_months(p_start, p_end) AS months
  FROM (VALUES ('2017-05-01'::date, '2018-04-30'::date),  -- one year from the 1st: 12
               ('2017-03-17', '2018-03-16'),              -- one year from mid-month: 12
               ('2016-03-01', '2017-02-28'),              -- 365 days ending in February: 12
               ('2020-02-29', '2021-02-27'),              -- 29 Feb + 12 months = 28 Feb 2021 = end + 1: 12
               ('2017-05-01', '2017-10-31'),              -- six months: 6
               ('2017-01-31', '2017-02-27'),              -- 31 Jan + 1 month = 28 Feb = end + 1: 1
               ('2017-05-01', '2017-06-10'),              -- not whole: 41 days × 12 / 365.25 = 1.347 022 587
               ('2017-05-01', '2017-05-01')) v(p_start, p_end);  -- one day: 12 / 365.25 = 0.032 854 209

-- Month k runs from start + (k−1) months to the day before start + k months.
-- Start 17 March: month 1 = 17 Mar–16 Apr, month 2 = 17 Apr–16 May, month 3 = 17 May–16 Jun.
SELECT as_of, genci_allocation_month('2017-03-17', as_of) AS k
  FROM (VALUES ('2017-03-16'::date),  -- before the start: 0
               ('2017-03-17'),        -- 1
               ('2017-04-15'),        -- 1 (its 15th is in month 1)
               ('2017-04-16'),        -- 1
               ('2017-04-17'),        -- 2
               ('2017-05-15'),        -- 2
               ('2017-05-17'),        -- 3
               ('2017-06-15'),        -- 3: the first check day of this allocation
               ('2018-03-16'),        -- 12
               ('2018-03-17')) v(as_of);  -- 13 (after a one-year period)
-- Start 31 January: PostgreSQL's month arithmetic clamps 31 Jan + 1 month to 28 Feb.
SELECT genci_allocation_month('2017-01-31', '2017-02-27') AS k_feb27,  -- 1
       genci_allocation_month('2017-01-31', '2017-02-28') AS k_feb28,  -- 2
       genci_allocation_month('2017-01-31', '2017-03-30') AS k_mar30,  -- 2 (31 Jan + 2 months = 31 Mar)
       genci_allocation_month('2017-01-31', '2017-03-31') AS k_mar31;  -- 3

-- ---------------------------------------------------------------------------
-- genci_penalty and genci_status
-- ---------------------------------------------------------------------------
-- A = 4 380 000, period from 1 May 2017: monthly = 4 380 000 / 12 = 365 000, two months = 730 000.
-- On 15 Aug 2017 (month 4, a check day) theoretical = 1 272 000.
-- ratio exactly 2: consumed 542 000 → lag 730 000 → 730 000 / 365 000 = 2 → late, nothing taken.
-- one hour less:  consumed 541 999 → lag 730 001 → ratio 2.000 002 7 > 2 → very late, 365 000 taken.
-- ratio exactly 1: consumed 907 000 → lag 365 000 → ratio 1 → late (1 ≤ ratio ≤ 2).
-- one hour more:  consumed 907 001 → ratio 0.999 997 3 → on track.
SELECT consumed, s.lag, round(s.ratio::numeric, 7) AS ratio, s.status, s.check_day, s.penalty,
       genci_penalty(4380000, consumed, '2017-05-01', '2018-04-30', '2017-08-15') AS genci_penalty
  FROM (VALUES (542000::float8), (541999), (907000), (907001), (1272000), (2000000)) v(consumed),
       genci_status(4380000, consumed, '2017-05-01', '2018-04-30', '2017-08-15') s;
-- the last two: consumed = theoretical → lag 0, ratio 0; over-consumption → lag −728 000,
-- ratio −1.994 520 5: on track, nothing taken.

-- The whole status on the seed's day: lag_days = lag / (A / D) = lag / 12 000.
-- consumed 0: lag 1 272 000 = 106 days, ratio 1 272 000 / 365 000 = 3.484 931 5.
SELECT * FROM genci_status(4380000, 0, '2017-05-01', '2018-04-30', '2017-08-15');

-- Check days: the 15th of month 3 or later, within the period.  consumed 0 everywhere.
-- period from 1 May 2017: 15 May (month 1) and 15 Jun (month 2) are not check days
--   15 Jun: E = 45, theoretical 540 000, ratio 1.479 452 → late only;
--   15 Jul: month 3, E = 75, theoretical 900 000, ratio 2.465 753 > 2 → 365 000 taken;
--   16 Jul: not the 15th → 0;  15 Apr 2018: month 12, the last check day;
--   15 May 2018: after the end (theoretical = A, ratio 12) but not in the period → 0.
SELECT as_of, s.allocation_month, round(s.ratio::numeric, 6) AS ratio, s.status, s.check_day, s.penalty
  FROM (VALUES ('2017-05-15'::date), ('2017-06-15'), ('2017-07-15'), ('2017-07-16'),
               ('2018-04-15'), ('2018-05-15')) v(as_of),
       genci_status(4380000, 0, '2017-05-01', '2018-04-30', as_of) s;

-- A period starting mid-month (17 Mar 2017, D = 365, A = 4 380 000):
--   15 May 2017 is in month 2: E = 15 + 30 + 14 = 59, theoretical 708 000, ratio 1.939 726 → late, not a check day;
--   15 Jun 2017 is in month 3: E = 15 + 30 + 31 + 14 = 90, theoretical 1 080 000,
--   ratio 2.958 904 → 365 000 taken.
-- Starting on the 15th, month 3 begins on a 15th (15 Mar); starting on the 16th, the
-- first check day is the last day of month 3 (15 Apr).
SELECT p_start, as_of, s.allocation_month, s.theoretical, round(s.ratio::numeric, 6) AS ratio,
       s.check_day, s.penalty
  FROM (VALUES ('2017-03-17'::date, '2017-05-15'::date), ('2017-03-17', '2017-06-15'),
               ('2017-01-15', '2017-03-15'), ('2017-01-16', '2017-03-15'),
               ('2017-01-16', '2017-04-15')) v(p_start, as_of),
       genci_status(4380000, 0, p_start, (p_start + interval '1 year')::date - 1, as_of) s;
-- start 15 Jan: E(15 Mar) = 17 + 28 + 14 = 59 → 708 000, ratio 1.94: a check day but only late;
-- start 16 Jan: 15 Mar is month 2; 15 Apr: E = 16 + 28 + 31 + 14 = 89 → 1 068 000, ratio 2.926 → 365 000.

-- A second penalty after a first: the net allocation drives both theoretical and monthly.
-- 15 Jul: 365 000 taken (above), net = 4 380 000 − 365 000 = 4 015 000 = 11 000 × 365.
-- 15 Aug: theoretical = 11 000 × 106 = 1 166 000, monthly = 4 015 000 / 12 = 334 583.33,
--   ratio = 1 166 000 / 334 583.33 = 3.484 931 5 > 2 → 334 583.33 taken.
-- (Counting the first take-back as consumption instead would give lag 1 272 000 − 365 000
--  = 907 000, ratio 2.484 931 5, and take 365 000 again: not the seed's rule.)
SELECT s.theoretical, round(s.monthly::numeric, 2) AS monthly, round(s.ratio::numeric, 7) AS ratio,
       round(s.penalty::numeric, 2) AS penalty
  FROM genci_status(4380000 - 365000, 0, '2017-05-01', '2018-04-30', '2017-08-15') s;

-- A non-whole period (1 May .. 10 Jun 2017, 41 days): monthly = A / (41 × 12 / 365.25).
-- A = 41 000 → monthly = 41 000 × 365.25 / 492 = 30 437.5; never a check day (no month 3).
SELECT s.monthly, s.allocation_month, s.check_day, s.penalty
  FROM genci_status(41000, 0, '2017-05-01', '2017-06-10', '2017-06-10') s;

-- Zero allocation: no ratio, no status, nothing taken.
SELECT * FROM genci_status(0, 0, '2017-05-01', '2018-04-30', '2017-08-15');
SELECT * FROM genci_status(0, 10, '2017-05-01', '2018-04-30', '2017-08-15');

-- ---------------------------------------------------------------------------
-- TGCC variant: lag in days; 30..60 warn, more than 60 take 30 days' worth = A × 30 / D.
-- ---------------------------------------------------------------------------
-- A/D = 12 000 h a day.  15 Aug 2017, theoretical 1 272 000:
--   consumed 552 000 → lag 720 000 = 60 days → late (the boundary warns);
--   consumed 551 999 → 60.000 083 days → very late → 30 × 12 000 = 360 000 taken;
--   consumed 546 000 → 60.5 days: TGCC takes 360 000, GENCI (ratio 726 000 / 365 000 = 1.989) only warns;
--   consumed 912 000 → 30 days → late; 912 001 → on track.
SELECT consumed, round(s.lag_days::numeric, 6) AS lag_days, s.status, s.penalty,
       g.status AS genci_status, g.penalty AS genci_penalty
  FROM (VALUES (552000::float8), (551999), (546000), (912000), (912001)) v(consumed),
       genci_status(4380000, consumed, '2017-05-01', '2018-04-30', '2017-08-15', 'tgcc') s,
       genci_status(4380000, consumed, '2017-05-01', '2018-04-30', '2017-08-15') g;

-- ---------------------------------------------------------------------------
-- Mid-term regulation: A = 1 200 000 from 1 May 2017 (12 months).
-- Alert on 1 Sep 2017 (start + 4 months), take-back on 1 Oct 2017 (start + 5 months).
-- 30 % = 360 000; 40 % = 480 000; A × 5 / 12 = 500 000.
-- ---------------------------------------------------------------------------
SELECT consumed, round(s.used_fraction::numeric, 6) AS used, s.under_used, s.check_day, s.take_back,
       genci_midterm_penalty(1200000, consumed, '2017-05-01', '2018-04-30', '2017-10-01') AS penalty
  FROM (VALUES (0::float8),      -- min(480 000, 500 000 − 0) = 480 000 (the 40 % cap)
               (100000),         -- min(480 000, 500 000 − 100 000) = 400 000
               (360000),         -- exactly 30 %: still under-used, min(480 000, 140 000) = 140 000
               (360001)) v(consumed),  -- above 30 %: nothing
       genci_midterm_status(1200000, consumed, '2017-05-01', '2018-04-30', '2017-10-01') s;

SELECT as_of, s.alert_day, s.check_day, s.take_back
  FROM (VALUES ('2017-09-01'::date),  -- the alert day: alert, nothing taken
               ('2017-09-30'),        -- last day of month 5: nothing
               ('2017-10-01'),        -- start + 5 months: 480 000
               ('2017-10-02')) v(as_of),  -- the day after: nothing
       genci_midterm_status(1200000, 0, '2017-05-01', '2018-04-30', as_of) s;

-- Mid-month start (17 Mar 2017): alert 17 Jul, take-back 17 Aug.  A period of four
-- months never reaches month 6: nothing is taken.  A flat 40 % with used_limit 0.30 and
-- cap 0.40 as parameters: cap 0.25 → min(300 000, 500 000) = 300 000.
SELECT (genci_midterm_status(1200000, 0, '2017-03-17', '2018-03-16', '2017-07-17')).alert_day AS alert_jul17,
       genci_midterm_penalty(1200000, 0, '2017-03-17', '2018-03-16', '2017-08-17') AS take_aug17,     -- 480 000
       genci_midterm_penalty(1200000, 0, '2017-05-01', '2017-08-31', '2017-10-01') AS short_period,  -- 0
       genci_midterm_penalty(1200000, 0, '2017-05-01', '2018-04-30', '2017-10-01', 0.25) AS cap_25, -- 300 000
       genci_midterm_penalty(0, 0, '2017-05-01', '2018-04-30', '2017-10-01') AS zero_allocation;     -- 0

-- ---------------------------------------------------------------------------
-- Bad input: NULL gives NULL (STRICT); the rest raise with a SQLSTATE (pgTAP checks each).
-- ---------------------------------------------------------------------------
SELECT theoretical_consumption(NULL, '2017-05-01', '2018-04-30', '2017-08-15') AS null_allocation,
       genci_penalty(4380000, NULL, '2017-05-01', '2018-04-30', '2017-08-15') AS null_consumed;
\set VERBOSITY default
SELECT theoretical_consumption(-1, '2017-05-01', '2018-04-30', '2017-08-15');
SELECT theoretical_consumption('NaN', '2017-05-01', '2018-04-30', '2017-08-15');
SELECT theoretical_consumption(100, '2018-04-30', '2017-05-01', '2017-08-15');
SELECT genci_penalty(100, -5, '2017-05-01', '2018-04-30', '2017-08-15');
SELECT genci_penalty(100, 'Infinity', '2017-05-01', '2018-04-30', '2017-08-15');
SELECT theoretical_consumption(100, '2017-05-01', 'infinity', '2017-08-15');
SELECT genci_status(100, 0, '2017-05-01', '2018-04-30', '2017-08-15', 'idris');
SELECT genci_midterm_penalty(100, 0, '2017-05-01', '2018-04-30', '2017-10-01', 1.5);
\set VERBOSITY terse

-- ---------------------------------------------------------------------------
-- The procedure and the report, on the model tables (rolled back at the end).
-- ---------------------------------------------------------------------------
BEGIN;
-- Clusters in Paris time, threshold 1 M h: the monthly regime applied in one catch-up
-- run (g_catchup) and day by day (g_daily).
INSERT INTO clusters (cluster, regulation_threshold, timezone) VALUES
    ('g_catchup', 1000000, 'Europe/Paris'), ('g_daily', 1000000, 'Europe/Paris');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes, whole_node)
SELECT c, p, 40, 192000, 100, p = 'whole'
  FROM unnest(ARRAY['g_catchup', 'g_daily']) c, unnest(ARRAY['cpu', 'whole']) p;
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT c, a, CASE WHEN a <> 'root' THEN 'root' END, 1
  FROM unnest(ARRAY['g_catchup', 'g_daily']) c, unnest(ARRAY['root', 'big']) a;
INSERT INTO account_users (cluster, account, user_name)
SELECT c, 'big', 'alice' FROM unnest(ARRAY['g_catchup', 'g_daily']) c;

-- 'big': 4 380 000 h from 1 May 2017, and two jobs.
-- Job 1: 40 cores, 30 Apr 20:00 UTC → 1 May 00:00 UTC; the period starts 1 May 00:00 Paris
--   (CEST) = 30 Apr 22:00 UTC, so 2 h count: 40 × 2 = 80.
-- Job 2: partition 'whole' (whole nodes): 2 nodes × 40 = 80 cores although it asked for 10,
--   14 Jul 20:00 UTC → 15 Jul 02:00 UTC; 15 Jul begins at 22:00 UTC on 14 Jul, so on 15 Jul
--   it counts 2 h (160), later all 6 h (480).
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
SELECT c, 'big', 'genci', '2017-05-01', '2018-04-30', 4380000 FROM unnest(ARRAY['g_catchup', 'g_daily']) c;
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, nodes)
SELECT c, j, 'alice', 'big', p, 'COMPLETED', s, s, e, n, nodes
  FROM unnest(ARRAY['g_catchup', 'g_daily']) c,
       (VALUES ('1', 'cpu', '2017-04-30 20:00+00'::timestamptz, '2017-05-01 00:00+00'::timestamptz, 40, 1),
               ('2', 'whole', '2017-07-14 20:00+00', '2017-07-15 02:00+00', 10, 2)) v(j, p, s, e, n, nodes);
SELECT d, allocation_consumption(a.allocation_id, d) AS consumed
  FROM allocations a, unnest(ARRAY['2017-04-01', '2017-05-01', '2017-05-02', '2017-07-15', '2017-08-15', '2019-01-01']::date[]) d
 WHERE a.cluster = 'g_catchup' ORDER BY d;
-- before the start 0; on the first day 0; 80; 80 + 160 = 240; 80 + 480 = 560; 560 after the end

-- One catch-up run on 15 Aug evaluates 15 May, 15 Jun, 15 Jul and 15 Aug in order:
--   15 May: E = 14, theoretical 168 000, consumed 80, ratio 167 920 / 365 000 = 0.4601 → on track;
--   15 Jun: E = 45, theoretical 540 000, consumed 80, ratio 539 920 / 365 000 = 1.4792 → late, a warning;
--   15 Jul: E = 75, theoretical 900 000, consumed 240, ratio 899 760 / 365 000 = 2.4651 → 365 000 taken;
--   15 Aug: net 4 015 000, theoretical 11 000 × 106 = 1 166 000, consumed 560,
--           monthly 334 583.33, ratio 1 165 440 / 334 583.33 = 3.4833 → 334 583.33 taken.
CALL apply_genci_regulation('2017-08-15', 'g_catchup');
SELECT r.check_day, r.rule, round(r.net_hours::numeric, 2) AS net, r.consumed, r.theoretical, r.lag,
       round(r.ratio::numeric, 4) AS ratio, r.status, round(r.hours_taken::numeric, 2) AS taken
  FROM regulation_checks r JOIN allocations a USING (allocation_id)
 WHERE a.cluster = 'g_catchup' ORDER BY r.check_day;
SELECT l.effective_date, l.kind, l.rule, round(l.hours::numeric, 2) AS hours, l.recorded_by = current_user AS by_me
  FROM ledger l JOIN allocations a USING (allocation_id) WHERE a.cluster = 'g_catchup' ORDER BY l.entry_id;
SELECT n.check_day, n.kind, round(n.hours::numeric, 2) AS hours, n.message
  FROM regulation_notifications n WHERE n.cluster = 'g_catchup' ORDER BY n.check_day, n.kind;
-- net after both: 4 380 000 − 365 000 − 334 583.33 = 3 680 416.67
SELECT round(allocation_net_hours(allocation_id, '2017-08-15')::numeric, 2) AS net
  FROM allocations WHERE cluster = 'g_catchup';

-- Day by day on g_daily (14 Jul: nothing due yet in month 3; 15 Jul; 31 Jul: nothing
-- new; 15 Aug) takes exactly the same hours on the same days.
CALL apply_genci_regulation('2017-07-14', 'g_daily');
SELECT count(*) AS checks_by_14_jul FROM regulation_checks r JOIN allocations a USING (allocation_id)
 WHERE a.cluster = 'g_daily';   -- 15 May and 15 Jun: 2
CALL apply_genci_regulation('2017-07-15', 'g_daily');
CALL apply_genci_regulation('2017-07-31', 'g_daily');
CALL apply_genci_regulation('2017-08-15', 'g_daily');
SELECT d.effective_date, round(d.hours::numeric, 2) AS daily, round(c.hours::numeric, 2) AS catchup
  FROM (SELECT l.* FROM ledger l JOIN allocations a USING (allocation_id) WHERE a.cluster = 'g_daily') d
  FULL JOIN (SELECT l.* FROM ledger l JOIN allocations a USING (allocation_id) WHERE a.cluster = 'g_catchup') c
    USING (effective_date)
 ORDER BY 1;

-- Running again, for the same day or an earlier one, with or without a cluster, changes nothing.
CALL apply_genci_regulation('2017-08-15', 'g_catchup');
CALL apply_genci_regulation('2017-07-15', 'g_catchup');
CALL apply_genci_regulation('2017-08-15');
SELECT (SELECT count(*) FROM regulation_checks) AS checks,          -- 4 + 4
       (SELECT count(*) FROM ledger) AS take_backs,                 -- 2 + 2
       (SELECT count(*) FROM regulation_notifications) AS notices;  -- (warning + 2 take-backs) × 2

-- The report on 15 Aug: the status is computed on the net allocation before that day's
-- take-back (4 015 000), so it explains the take-back it shows:
--   lag = 1 166 000 − 560 = 1 165 440 h; lag_days = 1 165 440 × 365 / 4 015 000 = 105.9491 days.
-- On 16 Aug the net is 3 680 416.67 = 365 × 10 083.33: theoretical = 10 083.33 × 107 = 1 078 916.67,
--   lag 1 078 356.67, monthly 3 680 416.67 / 12 = 306 701.39, ratio 3.5160,
--   lag_days = 1 078 356.67 / 10 083.33 = 107 − 560 / 10 083.33 = 106.9445; not a check day.
SELECT r.as_of, r.cluster, r.regime, r.initial_hours, round(r.net_hours::numeric, 2) AS net, r.consumed,
       round(r.theoretical::numeric, 2) AS theoretical, round(r.lag_hours::numeric, 2) AS lag_h,
       round(r.lag_days::numeric, 4) AS lag_d, round(r.monthly::numeric, 2) AS monthly,
       round(r.ratio::numeric, 4) AS ratio, r.status, r.allocation_month AS m, r.check_day,
       round(r.penalty::numeric, 2) AS penalty, r.last_penalty_date,
       round(r.last_penalty_hours::numeric, 2) AS last_penalty, round(r.taken_back_hours::numeric, 2) AS taken_back
  FROM unnest(ARRAY['2017-07-14', '2017-08-15', '2017-08-16']::date[]) d(as_of),
       LATERAL (SELECT d.as_of, g.* FROM genci_report_at(d.as_of) g) r
 WHERE r.cluster = 'g_catchup'
 ORDER BY r.as_of;
-- 14 Jul: consumed 80, theoretical 12 000 × 74 = 888 000, ratio 887 920 / 365 000 = 2.4327,
--   very late but not a check day: nothing due, nothing taken yet.

-- Mid-term regime (cluster g_mid, 600 000 h each, below the 1 M h threshold).
-- 30 % = 180 000, 40 % = 240 000, A × 5 / 12 = 250 000.  Alert on 1 Sep 2017, check on 1 Oct.
--   under:       200 cores × 100 h in June = 20 000 (3.3 %): alert; min(240 000, 250 000 − 20 000) = 230 000
--   justified:   nothing used, justification filed 20 Sep (before the end of month 5): alert, exempt
--   late_just:   nothing used, justification filed 5 Oct (too late): alert; min(240 000, 250 000) = 240 000
--   second_half: nothing used, second-half use declared: alert, exempt
--   busy:        400 cores × 500 h = 200 000 (33.3 % > 30 %): no alert, nothing taken
INSERT INTO clusters (cluster, regulation_threshold, timezone) VALUES ('g_mid', 1000000, 'Europe/Paris');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes) VALUES ('g_mid', 'cpu', 40, 192000, 100);
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT 'g_mid', a, CASE WHEN a <> 'root' THEN 'root' END, 1
  FROM unnest(ARRAY['root', 'under', 'justified', 'late_just', 'second_half', 'busy']) a;
INSERT INTO account_users (cluster, account, user_name)
SELECT 'g_mid', account, 'bob' FROM accounts WHERE cluster = 'g_mid' AND account <> 'root';
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours, justification_filed, second_half_declared)
VALUES ('g_mid', 'under', 'genci', '2017-05-01', '2018-04-30', 600000, NULL, false),
       ('g_mid', 'justified', 'genci', '2017-05-01', '2018-04-30', 600000, '2017-09-20', false),
       ('g_mid', 'late_just', 'genci', '2017-05-01', '2018-04-30', 600000, '2017-10-05', false),
       ('g_mid', 'second_half', 'genci', '2017-05-01', '2018-04-30', 600000, NULL, true),
       ('g_mid', 'busy', 'genci', '2017-05-01', '2018-04-30', 600000, NULL, false);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, nodes)
VALUES ('g_mid', '1', 'bob', 'under', 'cpu', 'COMPLETED', '2017-06-01 00:00+00', '2017-06-01 00:00+00', '2017-06-05 04:00+00', 200, 5),
       ('g_mid', '2', 'bob', 'busy', 'cpu', 'COMPLETED', '2017-06-01 00:00+00', '2017-06-01 00:00+00', '2017-06-21 20:00+00', 400, 10);
CALL apply_genci_regulation('2017-10-01', 'g_mid');
SELECT a.account, r.check_day, r.rule, r.consumed, r.status, r.hours_taken
  FROM regulation_checks r JOIN allocations a USING (allocation_id)
 WHERE a.cluster = 'g_mid' ORDER BY a.account, r.check_day;
SELECT a.account, l.effective_date, l.rule, l.hours
  FROM ledger l JOIN allocations a USING (allocation_id) WHERE a.cluster = 'g_mid' ORDER BY a.account;
SELECT n.account, n.check_day, n.kind, n.hours, n.message
  FROM regulation_notifications n WHERE n.cluster = 'g_mid' ORDER BY n.account, n.check_day;
-- the report on the check day: regime mid-term, what is due, the exemptions
SELECT account, regime, consumed, check_day, exempt, penalty, last_penalty_date, taken_back_hours
  FROM genci_report_at('2017-10-01') WHERE cluster = 'g_mid' ORDER BY account;

-- TGCC variant (cluster g_tgcc): 4 380 000 h from 1 May 2017 (12 000 h a day) and one job of
-- 1 000 cores from 10 May 00:00 UTC to 17 May 12:00 UTC (180 h → 180 000 h).
--   15 May (begins 14 May 22:00 UTC): 118 h used → 118 000; lag 168 000 − 118 000 = 50 000 = 4.17 days: on track;
--   15 Jun: lag 540 000 − 180 000 = 360 000 = 30 days: late (warning);
--   15 Jul: lag 900 000 − 180 000 = 720 000 = 60 days: late (warning), nothing taken;
--   15 Aug: lag 1 272 000 − 180 000 = 1 092 000 = 91 days > 60: 30 × 12 000 = 360 000 taken.
INSERT INTO clusters (cluster, regulation_threshold, timezone) VALUES ('g_tgcc', 1000000, 'Europe/Paris');
INSERT INTO genci_settings (cluster, variant) VALUES ('g_tgcc', 'tgcc');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes) VALUES ('g_tgcc', 'cpu', 40, 192000, 100);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('g_tgcc', 'root', NULL, 1), ('g_tgcc', 'big', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('g_tgcc', 'big', 'carol');
INSERT INTO allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('g_tgcc', 'big', 'genci', '2017-05-01', '2018-04-30', 4380000);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus, nodes)
VALUES ('g_tgcc', '1', 'carol', 'big', 'cpu', 'COMPLETED', '2017-05-10 00:00+00', '2017-05-10 00:00+00', '2017-05-17 12:00+00', 1000, 25);
CALL apply_genci_regulation('2017-08-15', 'g_tgcc');
SELECT r.check_day, r.rule, r.consumed, r.lag, r.lag / 12000 AS lag_days, r.status, r.hours_taken
  FROM regulation_checks r JOIN allocations a USING (allocation_id) WHERE a.cluster = 'g_tgcc' ORDER BY r.check_day;
SELECT n.check_day, n.kind, n.hours FROM regulation_notifications n WHERE n.cluster = 'g_tgcc' ORDER BY n.check_day;

-- The policy lab (docs/history.md#the-policy-lab): the report as if other
-- GENCI settings had been in force, the live ones and the ledger untouched.
INSERT INTO scenarios (scenario) VALUES ('mid50'), ('tgcc_as_genci'), ('low_threshold');
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES
  ('mid50', 'g_mid', 'genci_settings', '{"midterm_cap": 0.5, "midterm_used_limit": 0.4}'),
  ('tgcc_as_genci', 'g_tgcc', 'genci_settings', '{"variant": "genci"}'),
  ('low_threshold', 'g_mid', 'clusters', '{"regulation_threshold": 500000}');
-- mid50 on 1 Oct 2017: 50 % = 300 000, A × 5 / 12 = 250 000.
--   under:     min(300 000, 250 000 − 20 000) = 230 000, as live;
--   late_just: min(300 000, 250 000) = 250 000 (live 240 000);
--   busy:      33.3 % ≤ 40 %: now due, min(300 000, 250 000 − 200 000) = 50 000 (live nothing).
SELECT r.account, r.regime, r.consumed, r.exempt, r.penalty AS scenario_penalty, l.penalty AS live_penalty
  FROM genci_report_at('2017-10-01', 'mid50') r
  JOIN genci_report_at('2017-10-01') l USING (allocation_id)
 WHERE r.cluster = 'g_mid' ORDER BY r.account;
-- low_threshold: 600 000 h ≥ 500 000: the monthly regime instead of mid-term
SELECT DISTINCT regime FROM genci_report_at('2017-10-01', 'low_threshold') WHERE cluster = 'g_mid';
-- tgcc_as_genci on 15 Aug: the genci rule (lag in months, one month's
-- worth taken: 4 380 000 / 12 = 365 000) instead of tgcc's (days, 30 days'
-- worth: 30 × 12 000 = 360 000)
SELECT r.variant, r.status, r.penalty, l.variant AS live_variant, l.penalty AS live_penalty
  FROM genci_report_at('2017-08-15', 'tgcc_as_genci') r JOIN genci_report_at('2017-08-15') l USING (allocation_id)
 WHERE r.cluster = 'g_tgcc';
-- each equals the live report with those settings made live (then undone),
-- every column
CREATE TEMP TABLE g_lab (scenario text, d date, cluster text);
INSERT INTO g_lab VALUES ('mid50', '2017-10-01', 'g_mid'), ('low_threshold', '2017-10-01', 'g_mid'),
                         ('tgcc_as_genci', '2017-08-15', 'g_tgcc');
CREATE TEMP TABLE g_got AS
SELECT x.scenario, to_jsonb(r) AS r FROM g_lab x, genci_report_at(x.d, x.scenario) r WHERE r.cluster = x.cluster;
-- (each compared inside its savepoint: the undo takes the live rows too)
CREATE FUNCTION pg_temp.g_differing(scen text, d date, cl text) RETURNS TABLE (scenario text, rows bigint, differing bigint)
LANGUAGE sql AS $$
    SELECT scen, (SELECT count(*) FROM fairshare.genci_report_at(d) r WHERE r.cluster = cl),
           (SELECT count(*) FROM (
              (SELECT g.r FROM g_got g WHERE g.scenario = scen
               EXCEPT ALL SELECT to_jsonb(r) FROM fairshare.genci_report_at(d) r WHERE r.cluster = cl)
              UNION ALL
              (SELECT to_jsonb(r) FROM fairshare.genci_report_at(d) r WHERE r.cluster = cl
               EXCEPT ALL SELECT g.r FROM g_got g WHERE g.scenario = scen)) x) $$;
SAVEPOINT lab;
INSERT INTO genci_settings (cluster, midterm_cap, midterm_used_limit) VALUES ('g_mid', 0.5, 0.4);
SELECT * FROM pg_temp.g_differing('mid50', '2017-10-01', 'g_mid');
ROLLBACK TO SAVEPOINT lab;
UPDATE clusters SET regulation_threshold = 500000 WHERE cluster = 'g_mid';
SELECT * FROM pg_temp.g_differing('low_threshold', '2017-10-01', 'g_mid');
ROLLBACK TO SAVEPOINT lab;
UPDATE genci_settings SET variant = 'genci' WHERE cluster = 'g_tgcc';
SELECT * FROM pg_temp.g_differing('tgcc_as_genci', '2017-08-15', 'g_tgcc');
ROLLBACK TO SAVEPOINT lab;
-- refused: another variant, a cap above 1, a negative threshold, a key of
-- no GENCI setting
\set VERBOSITY default
SAVEPOINT lab;
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('mid50', 'g_tgcc', 'genci_settings', '{"variant": "idris"}');
ROLLBACK TO SAVEPOINT lab;
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('mid50', 'g_tgcc', 'genci_settings', '{"midterm_cap": 1.5}');
ROLLBACK TO SAVEPOINT lab;
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('mid50', 'g_tgcc', 'clusters', '{"regulation_threshold": -1}');
ROLLBACK TO SAVEPOINT lab;
INSERT INTO scenario_settings (scenario, cluster, table_name, settings) VALUES ('mid50', 'g_tgcc', 'genci_settings', '{"cluster": "x"}');
ROLLBACK TO SAVEPOINT lab;
\set VERBOSITY terse

-- Refused: a day that has not begun, a cluster that does not exist, an infinite day.
SAVEPOINT s;
CALL apply_genci_regulation('2999-01-01', 'g_tgcc');
ROLLBACK TO SAVEPOINT s;
\set VERBOSITY default
CALL apply_genci_regulation('2017-08-15', 'no_such_cluster');
ROLLBACK TO SAVEPOINT s;
CALL apply_genci_regulation('infinity', 'g_tgcc');
ROLLBACK TO SAVEPOINT s;
\set VERBOSITY terse
-- the ledger stays append-only: a take-back cannot be edited away
UPDATE ledger SET hours = 0;
ROLLBACK TO SAVEPOINT s;
ROLLBACK;
