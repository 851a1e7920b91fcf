-- statements: alert thresholds of every allocation, monthly statements,
-- their CSV export, project leaders' row-level security, and the charts'
-- SVG (docs/statements.md).  Worked examples with the arithmetic beside
-- each; the charts' pixels are checked in headless Chromium by
-- test/charts.sh.  Everything runs in one transaction that is rolled back.
SET search_path = fairshare, public;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;
\set SHOW_CONTEXT never

-- SQLSTATE, message and hint of a rejected statement.
CREATE FUNCTION pg_temp.refused(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    hint text;
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(' / HINT: ' || nullif(hint, ''), '');
END $$;

BEGIN;
-- Cluster st (UTC): 10 nodes of 10 cores = 100 cores.  Cluster st2 (UTC).
INSERT INTO clusters (cluster) VALUES ('st'), ('st2');
INSERT INTO partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb)
VALUES ('st', 'p', 10, 10, 64000), ('st2', 'p', 1, 10, 64000);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('st', 'root', NULL, 1), ('st', 'proj_n', 'root', 1), ('st', 'proj_g', 'root', 1), ('st', 'proj_e', 'root', 1),
  ('st2', 'root', NULL, 1), ('st2', 'proj_r', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES
  ('st', 'proj_n', 'ann'), ('st', 'proj_n', 'bob'), ('st', 'proj_g', 'cid'), ('st2', 'proj_r', 'dan');
-- N: a plain allocation, 1000 h for 2026 (365 days)
-- G: GENCI, 300 h for 1 Jan – 31 Mar 2026 (90 days), thresholds of its own
-- E: plain, 100 h for January 2026, no jobs
-- R: RWTH on st2, 100 h for the first half of 2026
INSERT INTO allocations (allocation_id, cluster, account, policy, period_start, period_end, hours) VALUES
  (101, 'st', 'proj_n', 'none', '2026-01-01', '2026-12-31', 1000),
  (102, 'st', 'proj_g', 'genci', '2026-01-01', '2026-03-31', 300),
  (103, 'st', 'proj_e', 'none', '2026-01-01', '2026-01-31', 100),
  (104, 'st2', 'proj_r', 'rwth', '2026-01-01', '2026-06-30', 100);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  -- ann, 10 cores × 10 h = 100 h in January
  ('st', '1', 'ann', 'proj_n', 'p', 'COMPLETED', '2026-01-10 00:00', '2026-01-10 00:00', '2026-01-10 10:00', 10),
  -- bob, 5 cores × 8 h across the month's end: 5 × 4 = 20 h in January, 20 h in February
  ('st', '2', 'bob', 'proj_n', 'p', 'COMPLETED', '2026-01-31 20:00', '2026-01-31 20:00', '2026-02-01 04:00', 5),
  -- ann, 15 cores × 24 h = 360 h on 10 February
  ('st', '3', 'ann', 'proj_n', 'p', 'COMPLETED', '2026-02-10 00:00', '2026-02-10 00:00', '2026-02-11 00:00', 15),
  -- bob, 2 cores from 1 March, still running
  ('st', '4', 'bob', 'proj_n', 'p', 'RUNNING', '2026-03-01 00:00', '2026-03-01 00:00', NULL, 2),
  -- cid, 10 cores × 3 h = 30 h = 10 % of G
  ('st', '5', 'cid', 'proj_g', 'p', 'COMPLETED', '2026-01-05 00:00', '2026-01-05 00:00', '2026-01-05 03:00', 10),
  -- dan, 5 cores × 5 h = 25 h = 25 % of R
  ('st2', '6', 'dan', 'proj_r', 'p', 'COMPLETED', '2026-01-20 00:00', '2026-01-20 00:00', '2026-01-20 05:00', 5);
-- N's ledger in February: 200 h added on the 15th, 100 h taken back on the 20th
INSERT INTO ledger (allocation_id, kind, hours, reason, effective_date) VALUES
  (101, 'addition', 200, 'extension granted', '2026-02-15'),
  (101, 'take_back', 100, 'unused hours returned', '2026-02-20');

-- ---------------------------------------------------------------------------
-- usage_buckets: the one usage query
-- ---------------------------------------------------------------------------
-- per month: January ann 100, bob 20 (5 × 4 h); February ann 360, bob 20
SELECT bucket_start::date AS month, user_name, core_hours, cpu_hours
  FROM usage_buckets('st', 'proj_n', '2026-01-01', '2026-03-01', 'month') ORDER BY 1, 2;
-- per hour around midnight of 31 Jan: bob's 5 cores, 5 h in each of his 8 hours
SELECT count(*) AS hours, min(core_hours), max(core_hours), sum(core_hours)     -- 8 × 5 = 40
  FROM usage_buckets('st', 'proj_n', '2026-01-31 12:00', '2026-02-01 12:00', 'hour') WHERE user_name = 'bob';
-- a window cuts the jobs: 31 Jan 22:00 – 1 Feb 02:00 holds 4 of bob's hours, 20 h
SELECT user_name, sum(core_hours) FROM usage_buckets('st', NULL, '2026-01-31 22:00', '2026-02-01 02:00', 'day') GROUP BY 1;
-- the running job counts up to until: 2 cores × 12 h = 24 h, in 12 hours of 2 h
SELECT count(*) AS hours, sum(core_hours) FROM usage_buckets('st', 'proj_n', '2026-03-01', '2026-03-01 12:00', 'hour');
-- allocation_used to the instant agrees with allocation_consumption to a day:
-- N by 1 March: 100 + 20 + 20 + 360 = 500
SELECT allocation_used(101, '2026-03-01'), allocation_consumption(101, '2026-03-01');
-- the same to 1 Mar 06:00: + bob's running 2 × 6 = 12 h
SELECT allocation_used(101, '2026-03-01 06:00');

-- ---------------------------------------------------------------------------
-- Thresholds
-- ---------------------------------------------------------------------------
-- G has its own hours thresholds (10 and 90 %); R's cluster has 20 %
INSERT INTO alert_thresholds (allocation_id, kind, value) VALUES (102, 'used_percent', 10), (102, 'used_percent', 90);
INSERT INTO alert_thresholds (cluster, kind, value) VALUES ('st2', 'used_percent', 20);
-- N and E: the defaults; G: its own used_percent, the default days; R: its cluster's used_percent
SELECT a.allocation_id, t.kind, t.value, t.source
  FROM allocations a CROSS JOIN LATERAL allocation_thresholds(a.allocation_id) t ORDER BY 1, 2 DESC, 3;
-- what the table refuses: a 0 % threshold, a fraction of a day, both levels at once, a duplicate
SELECT pg_temp.refused($$INSERT INTO fairshare.alert_thresholds (kind, value) VALUES ('used_percent', 0)$$);
SELECT pg_temp.refused($$INSERT INTO fairshare.alert_thresholds (kind, value) VALUES ('days_left', 2.5)$$);
SELECT pg_temp.refused($$INSERT INTO fairshare.alert_thresholds (cluster, allocation_id, kind, value) VALUES ('st', 101, 'days_left', 3)$$);
SELECT pg_temp.refused($$INSERT INTO fairshare.alert_thresholds (cluster, kind, value) VALUES ('st2', 'used_percent', 20)$$);

-- ---------------------------------------------------------------------------
-- Alerts: each threshold notified once, into regulation_notifications
-- ---------------------------------------------------------------------------
-- 26 Jan: E ends on 31 Jan, 31 + 1 − 26 = 6 days left: its 30- and 7-day
-- alerts; G has used 30 h = 10 % of 300: its 10 % alert; R 25 h = 25 %
-- of 100 ≥ 20 %: its cluster's alert.  N: 120 h of 1000 (12 %), 340 days
-- left: nothing.
CALL check_allocation_alerts('2026-01-26 00:00');
-- 12 Feb: N has used 100 + 20 + 20 + 360 = 500 h of 1000, 50 % exactly: its 50 % alert
CALL check_allocation_alerts('2026-02-12 00:00');
-- again, and later: N's net is 1200 on 16 Feb (41.7 %): nothing new.
-- 10 Mar: N's net is 1100 (from 20 Feb) and bob's running job has added
-- 2 cores × 9 days × 24 h = 432 h: 932 h = 84.7 %: its 80 % alert; G has
-- 31 + 1 − 10 = 22 days left: its 30-day alert; E has ended (no days_left 0
-- threshold): nothing
CALL check_allocation_alerts('2026-02-12 00:00');
CALL check_allocation_alerts('2026-02-16 00:00');
CALL check_allocation_alerts('2026-03-10 00:00');
CALL check_allocation_alerts('2026-03-10 00:00', 'st');
-- 26 Mar: G has 6 days left: its 7-day alert; N 500 + 2 × 25 × 24 = 1700 h
-- of 1100 (154.5 %): its 100 % alert
CALL check_allocation_alerts('2026-03-26 00:00');
SELECT allocation_id, rule, check_day, kind, hours, message
  FROM regulation_notifications ORDER BY allocation_id, check_day, rule;
-- one row per allocation and threshold, whatever ran
SELECT allocation_id, rule, count(*) FROM regulation_notifications GROUP BY 1, 2 HAVING count(*) > 1;
-- a threshold of the centre (both NULL) replaces the defaults of N and E:
-- 45 % of N's 1100 on 1 Mar = 495 ≤ 500 used: notified now
INSERT INTO alert_thresholds (kind, value) VALUES ('used_percent', 45);
CALL check_allocation_alerts('2026-03-01 00:00');
SELECT allocation_id, rule, check_day FROM regulation_notifications WHERE rule = 'limit_used_45';
-- days_left 0: once the period has ended (E ended on 31 Jan)
INSERT INTO alert_thresholds (allocation_id, kind, value) VALUES (103, 'days_left', 0);
CALL check_allocation_alerts('2026-02-01 00:00');
SELECT allocation_id, rule, check_day, message FROM regulation_notifications WHERE rule = 'limit_days_0';

-- bad input: a future instant, an unknown cluster
SELECT pg_temp.refused($$CALL fairshare.check_allocation_alerts(now() + interval '1 day')$$) ~ '^22023: check_allocation_alerts: as_of .* is in the future / HINT: ' AS future_refused;
SELECT pg_temp.refused($$CALL fairshare.check_allocation_alerts('2026-03-01', 'nowhere')$$);

-- ---------------------------------------------------------------------------
-- Statements
-- ---------------------------------------------------------------------------
-- N in February, as of 1 March:
--   opening balance: net 1000 before February − used 100 + 20 in January = 880
--   addition +200 (15 Feb), take-back −100 (20 Feb)
--   used: ann 360, bob 20 (his hours after midnight of 1 Feb); total 380
--   closing balance: net 1100 − used 500 = 600 = 880 + 200 − 100 − 380
--   theoretical: 1100 × 59 / 365 = 177.808 (31 + 28 days elapsed of 365)
--   projected: 380 h / 28 days = 13.571 h a day; 600 / 13.571 = 44.2 days
--   after 1 March = 14 April
--   alerts: the 50 % alert of 12 Feb
SELECT line, item, user_name, day, round(hours::numeric, 3) AS hours, note
  FROM allocation_statements('2026-02-01', '2026-03-01 00:00') WHERE allocation_id = 101 ORDER BY line;
-- every allocation of February (E ended in January: none), lines per item
SELECT allocation_id, policy, string_agg(item, ',' ORDER BY line) AS items
  FROM allocation_statements('2026-02-10', '2026-03-01 00:00') GROUP BY 1, 2 ORDER BY 1;
-- a month not over: stated up to as_of.  N in March as of 1 Mar 06:00:
-- bob 2 × 6 = 12 h; rate 12 h / 0.25 day = 48 h a day; closing 600 − 12 = 588;
-- 588 / 48 = 12.25 days after 06:00 on 1 Mar = 13 March; theoretical
-- 1100 × 60 / 365 = 180.822 (1 March counted: the statement runs into it);
-- the 45 % alert of 1 March
SELECT line, item, user_name, day, round(hours::numeric, 3) AS hours
  FROM allocation_statements('2026-03-01', '2026-03-01 06:00') WHERE allocation_id = 101 ORDER BY line;
-- E (no jobs) in January: nothing used, no projection
SELECT line, item, day, hours, note FROM allocation_statements('2026-01-01', '2026-02-01') WHERE allocation_id = 103 ORDER BY line;
-- as of before the month: nothing to state yet
SELECT count(*) FROM allocation_statements('2026-04-01', '2026-03-15');
-- the CSV export
COPY (SELECT allocation_id, account, month, line, item, user_name, day, round(hours::numeric, 2) AS hours
        FROM allocation_statements('2026-02-01', '2026-03-01 00:00') ORDER BY allocation_id, line)
  TO STDOUT WITH (FORMAT csv, HEADER);
-- bad input
SELECT pg_temp.refused($$SELECT * FROM fairshare.allocation_statements(NULL, now())$$);
SELECT pg_temp.refused($$SELECT * FROM fairshare.allocation_statements('infinity', '2026-03-01')$$);

-- ---------------------------------------------------------------------------
-- Project leaders see their own statements only
-- ---------------------------------------------------------------------------
CREATE ROLE fs_stmt_ann IN ROLE fairshare_user;
CREATE ROLE fs_stmt_cid IN ROLE fairshare_user;
INSERT INTO account_leaders (cluster, account, user_name) VALUES
  ('st', 'proj_n', 'fs_stmt_ann'), ('st', 'proj_g', 'fs_stmt_cid'), ('st2', 'proj_r', 'fs_stmt_cid');
SET ROLE fs_stmt_ann;
-- ann's account only, as CSV
COPY (SELECT account, line, item, user_name, round(hours::numeric, 2) AS hours
        FROM fairshare.my_allocation_statements('2026-02-01', '2026-03-01 00:00') ORDER BY account, line)
  TO STDOUT WITH (FORMAT csv, HEADER);
-- her own leadership rows only; everyone's statements and usage refused
SELECT * FROM account_leaders;
SELECT pg_temp.refused($$SELECT * FROM fairshare.allocation_statements('2026-02-01')$$);
SELECT pg_temp.refused($$SELECT * FROM fairshare.usage_buckets('st', NULL, '2026-01-01', '2026-02-01')$$);
RESET ROLE;
SET ROLE fs_stmt_cid;
SELECT account, count(*) FROM fairshare.my_allocation_statements('2026-02-01', '2026-03-01 00:00') GROUP BY 1 ORDER BY 1;
RESET ROLE;
-- a reader reads everyone's
SET ROLE fairshare_reader;
SELECT count(DISTINCT allocation_id) FROM allocation_statements('2026-02-01', '2026-03-01 00:00');
RESET ROLE;

-- ---------------------------------------------------------------------------
-- Charts: well-formed SVG 800 × 400, what each draws
-- ---------------------------------------------------------------------------
-- N's burn-down as of 1 March: top of the scale 2 × 10^3 ≥ 1200 (the
-- largest net); hours used at the end of each day (59 points + the
-- start), the theoretical consumption each day (366 points), two ledger
-- changes (the net as steps), one take-back marked
WITH s AS (SELECT burndown_svg(101, '2026-03-01 00:00')::xml AS x)
SELECT xml_is_well_formed_document(x::text) AS well_formed,
       (xpath('/s:svg/@width', x, ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))[1]::text AS width,
       (xpath('/s:svg/@height', x, ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))[1]::text AS height,
       array_length(regexp_split_to_array((xpath('//s:polyline[@stroke="#1f77b4"]/@points', x,
                    ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))[1]::text, ' '), 1) AS used_points,
       array_length(regexp_split_to_array((xpath('//s:polyline[@stroke="#ff7f0e"]/@points', x,
                    ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))[1]::text, ' '), 1) AS theoretical_points,
       array_length(xpath('//s:path[@fill="#d62728"]', x, ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]), 1) AS take_backs,
       (xpath('//s:text[. = "2000"]', x, ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))[1] IS NOT NULL AS top_2000
  FROM s;
-- used on 10 Feb (ann's 360 h): 120 + 20 = 140 at its start, 500 at its end;
-- x = 70 + 570 × days / 365, y = 350 − 310 × hours / 2000:
-- 10 Feb = day 40 → 132.5, 140 h → 328.3; 11 Feb = day 41 → 134.0, 500 h → 272.5
SELECT p FROM unnest(string_to_array(substring(burndown_svg(101, '2026-03-01 00:00')
                                               FROM 'points="([^"]*)" fill="none" stroke="#1f77b4"'), ' ')) p
 WHERE p IN ('132.5,328.3', '134.0,272.5');
-- E: no jobs: the used line is flat at 0 (y 350) up to the end of January
SELECT substring(burndown_svg(103, '2026-03-01 00:00') FROM 'points="([^"]*)" fill="none" stroke="#1f77b4"') ~ '^70.0,350.0 ([0-9.]+,350.0 ?)+$' AS flat_at_zero;
-- an allocation not started yet as of: no used line, still a chart
SELECT burndown_svg(103, '2025-12-01') LIKE '<svg%</svg>' AS draws, burndown_svg(103, '2025-12-01') NOT LIKE '%#1f77b4" stroke-width%' AS no_used_line;
-- an account's months stacked by user: February ann 360 at the bottom
-- (the bigger user: colour 1), bob 20 above it; top 500 ≥ 380
SELECT substring(svg FROM '<rect[^>]*fill="#1f77b4"><title>2026-02 ann: 360.00</title>') IS NOT NULL AS ann_february,
       substring(svg FROM '<rect[^>]*fill="#ff7f0e"><title>2026-02 bob: 20.00</title>') IS NOT NULL AS bob_february,
       xml_is_well_formed_document(svg) AS well_formed
  FROM account_usage_svg('st', 'proj_n', '2026-01-01', '2026-03-01') svg;
-- the bars of January and February: top 500 ≥ 380; band 570 / 2 = 285 px,
-- bar 0.7 × 285 = 199.5 px from 70 + 42.75 = 112.75 (January) and
-- 70 + 285 + 42.75 = 397.75 (February); y = 350 − 310 × hours / 500:
-- January ann 100 → y 288, height 62; bob 20 above it → y 275.6, height 12.4;
-- February ann 360 → y 126.8, height 223.2; bob → y 114.4, height 12.4
SELECT m[1] AS x, m[2] AS y, m[3] AS width, m[4] AS height, m[5] AS series
  FROM regexp_matches(account_usage_svg('st', 'proj_n', '2026-01-01', '2026-03-01'),
                      '<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" fill="[^"]*"><title>([^<]*)</title>', 'g') m;
-- in minutes: ann's 360 h = 21600 core-minutes
SELECT account_usage_svg('st', 'proj_n', '2026-02-01', '2026-03-01', 'minutes') LIKE '%<title>2026-02 ann: 21600.00</title>%' AS minutes;
-- an account without usage, one day
SELECT xml_is_well_formed_document(account_usage_svg('st', 'proj_e', '2026-01-01', '2026-01-02')) AS empty_draws;
-- a cluster's utilisation over one hour: 10 Feb 10:00–11:00, ann's 15 of
-- 100 cores: one bar of 15 % from x 70.5, 569 wide, 46.5 high (310 × 0.15)
SELECT m[1] AS x, m[2] AS y, m[3] AS width, m[4] AS height, m[5] AS title
  FROM regexp_matches(cluster_utilisation_svg('st', '2026-02-10 10:00', '2026-02-10 11:00'),
                      '<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" fill="#1f77b4"><title>([^<]*)</title>', 'g') m;
-- per day over February in core-hours: 10 Feb 360 h, 1 Feb bob's 20 h
SELECT count(*) AS bars FROM regexp_matches(cluster_utilisation_svg('st', '2026-02-01', '2026-03-01', 'hours', 'day'),
                                            '<rect [^>]*fill="#1f77b4">', 'g');
SELECT cluster_utilisation_svg('st', '2026-02-01', '2026-03-01', 'hours', 'day') LIKE '%<title>2026-02-10 00:00: 360.00</title>%' AS tenth;

-- Names holding every C0 control character (U+0001 to U+001F: a text
-- holds no U+0000) in a cluster, an account and a user: each chart is still
-- a well-formed XML document.  XML 1.0 allows only tab, newline and CR of
-- them; the other 28 (U+0001-U+0008: 8, U+000B-U+000C: 2, U+000E-U+001F:
-- 18) are drawn as U+FFFD, and tab, newline and CR are written as character
-- references (&#9; &#10; &#13;), which an attribute keeps too.
CREATE TEMP TABLE c0 AS
SELECT string_agg(chr(i), '' ORDER BY i) AS raw,
       repeat('�', 8) || '&#9;&#10;' || repeat('�', 2) || '&#13;' || repeat('�', 18) AS drawn
  FROM generate_series(1, 31) i;
INSERT INTO clusters (cluster) SELECT 'x' || raw FROM c0;
INSERT INTO partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb) SELECT 'x' || raw, 'p', 1, 10, 64000 FROM c0;
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT 'x' || raw, 'root', NULL, 1 FROM c0 UNION ALL SELECT 'x' || raw, 'a' || raw, 'root', 1 FROM c0;
INSERT INTO account_users (cluster, account, user_name) SELECT 'x' || raw, 'a' || raw, 'u' || raw FROM c0;
INSERT INTO allocations (allocation_id, cluster, account, policy, period_start, period_end, hours)
SELECT 105, 'x' || raw, 'a' || raw, 'none', '2026-01-01', '2026-01-31', 100 FROM c0;
-- 4 cores × 2 h = 8 h on 10 January
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
SELECT 'x' || raw, '7', 'u' || raw, 'a' || raw, 'p', 'COMPLETED', '2026-01-10 00:00', '2026-01-10 00:00', '2026-01-10 02:00', 4 FROM c0;
SELECT x.chart, xml_is_well_formed_document(x.svg) AS well_formed,
       CASE WHEN xml_is_well_formed_document(x.svg) THEN xmlparse(document x.svg) IS DOCUMENT END AS xmlparse,
       strpos(x.svg, x.title) > 0 AS title_drawn, x.svg !~ '[\x01-\x08\x0b\x0c\x0e-\x1f]' AS no_forbidden
  FROM c0 CROSS JOIN LATERAL (VALUES
         ('burndown_svg', burndown_svg(105, '2026-02-01 00:00'),
          'a' || c0.drawn || ' on x' || c0.drawn || ' (none): burn-down'),
         ('account_usage_svg', account_usage_svg('x' || c0.raw, 'a' || c0.raw, '2026-01-01', '2026-02-01'),
          '<title>2026-01 u' || c0.drawn || ': 8.00</title>'),
         ('cluster_utilisation_svg', cluster_utilisation_svg('x' || c0.raw, '2026-01-10 00:00', '2026-01-10 03:00'),
          'x' || c0.drawn || ' (10 cores): utilisation per hour')) x (chart, svg, title)
 ORDER BY 1;

-- the series' colours: ten, then again (the tenth is "others")
SELECT fairshare_internal._chart_colour(1) AS c1, fairshare_internal._chart_colour(9) AS c9, fairshare_internal._chart_colour(10) AS c10, fairshare_internal._chart_colour(11) AS c11;

-- bad input: SQLSTATE, message, hint
SELECT pg_temp.refused($$SELECT fairshare.burndown_svg(999)$$);
SELECT pg_temp.refused($$SELECT fairshare.account_usage_svg('st', 'proj_n', '2026-03-01', '2026-01-01')$$);
SELECT pg_temp.refused($$SELECT fairshare.account_usage_svg('st', 'proj_n', '2026-01-01', '2026-03-01', 'fortnights')$$);
SELECT pg_temp.refused($$SELECT fairshare.account_usage_svg('st', 'proj_n', '2026-01-01', '2026-03-01', 'percent')$$);
SELECT pg_temp.refused($$SELECT fairshare.account_usage_svg('st', 'nobody', '2026-01-01', '2026-03-01')$$);
SELECT pg_temp.refused($$SELECT fairshare.cluster_utilisation_svg('st', '2026-03-01', '2026-02-01')$$);
SELECT pg_temp.refused($$SELECT fairshare.cluster_utilisation_svg('st', '2026-02-01', '2026-03-01', 'furlongs')$$);
SELECT pg_temp.refused($$SELECT fairshare.cluster_utilisation_svg('st', '2026-02-01', '2026-03-01', 'percent', 'week')$$);
SELECT pg_temp.refused($$SELECT fairshare.cluster_utilisation_svg('nowhere', '2026-02-01', '2026-03-01')$$);
-- at most 40,000 buckets a chart: 2021-06-01 to 2026-01-01 is 1,675 days =
-- 40,200 hours (54000); from 2021-06-09 08:00, 200 hours later, exactly
-- 40,000 bars are drawn
SELECT pg_temp.refused($$SELECT fairshare.cluster_utilisation_svg('st', '2021-06-01', '2026-01-01', 'percent', 'hour')$$);
SELECT count(*) AS bars FROM regexp_matches(cluster_utilisation_svg('st', '2021-06-09 08:00', '2026-01-01', 'percent', 'hour'),
                                            '<rect [^>]*fill="#1f77b4">', 'g');
-- months: 0001-01 to 9998-12 is 9,998 × 12 = 119,976 months; days of a
-- burn-down's period: 1900-01-01 to 2099-12-31 is 200 × 365 + 48 leap days
-- (1904 to 2096, 1900 is none) + 1 = 73,049 days
SELECT pg_temp.refused($$SELECT fairshare.account_usage_svg('st', 'proj_n', '0001-01-01', '9999-01-01')$$);
INSERT INTO allocations (allocation_id, cluster, account, policy, period_start, period_end, hours)
VALUES (106, 'st', 'proj_e', 'none', '1900-01-01', '2099-12-31', 100);
SELECT pg_temp.refused($$SELECT fairshare.burndown_svg(106, '2026-01-01')$$);
SELECT pg_temp.refused($$SELECT * FROM fairshare.usage_buckets('st', NULL, '2026-02-01', 'infinity')$$);
SELECT pg_temp.refused($$SELECT * FROM fairshare.usage_buckets('st', NULL, '2026-02-01', '2026-02-01')$$);
SELECT pg_temp.refused($$SELECT fairshare.allocation_used(999, now())$$);
ROLLBACK;
