-- decay: decayed usage aggregates (docs/policies.md#decay).  Arithmetic beside
-- every case; T = 2024-06-01 00:00 UTC is the as_of instant throughout.
SET search_path = public, fairshare;
SET extra_float_digits = 0;
SET timezone = 'UTC';

CREATE TEMP TABLE u (usage float8, at timestamptz);
INSERT INTO u VALUES
  (100, '2024-06-01 00:00+00'::timestamptz - interval '14 days'),  -- one half-life old: 100 × 2^-1 = 50
  (100, '2024-06-01 00:00+00'::timestamptz - interval '28 days'),  -- two half-lives:    100 × 2^-2 = 25
  (100, '2024-06-01 00:00+00'::timestamptz + interval '1 day'),    -- after as_of: counts nothing
  (NULL, '2024-05-01 00:00+00'),                                   -- NULL usage: ignored, as sum() does
  (7, NULL);                                                        -- NULL instant: ignored

SELECT decayed_usage(usage, at, '2024-06-01 00:00+00', '14 days') FROM u;     -- 50 + 25 = 75
SELECT decayed_usage(usage, at, '2024-06-01 00:00+00', '0') FROM u;           -- no decay: 100 + 100 = 200
SELECT decayed_usage(usage, at, '2024-06-01 00:00+00', NULL) FROM u;          -- no decay: 200
SELECT decayed_usage(usage, at, '2024-06-01 00:00+00', '28 days') FROM u;     -- 100×2^-0.5 + 100×2^-1 = 70.7106781186548 + 50 = 120.710678118655
SELECT decayed_usage(usage, at, '2024-05-04 00:00+00', '14 days') FROM u;     -- only the 28-day-old row, charged exactly at as_of: 100
SELECT decayed_usage(usage, at, '2024-05-03 00:00+00', '14 days') FROM u;     -- every row after as_of: 0 (rows, but nothing counted)
SELECT decayed_usage(usage, at, '2024-06-01 00:00+00', '14 days') FROM u WHERE false;  -- no rows: NULL
SELECT decayed_usage(usage, at, '2024-06-01 00:00+00', '14 days') FROM u WHERE usage IS NULL; -- only NULL usage: NULL
-- a half-life in hours: 1 h old at half-life 30 min = 2^-2
SELECT decayed_usage(8, '2024-06-01 00:00+00', '2024-06-01 01:00+00', '30 minutes'); -- 8 × 0.25 = 2

-- per group, and as a window aggregate (running decayed usage)
SELECT g, decayed_usage(1, '2024-06-01 00:00+00'::timestamptz - (g * interval '1 day'), '2024-06-01 00:00+00', '1 day')
  FROM generate_series(0, 3) g GROUP BY g ORDER BY g;                       -- 1, 0.5, 0.25, 0.125
SELECT g, decayed_usage(1, '2024-06-01 00:00+00'::timestamptz - (g * interval '1 day'), '2024-06-01 00:00+00', '1 day')
            OVER (ORDER BY g DESC)
  FROM generate_series(0, 3) g ORDER BY g;                                  -- running: 1.875, 0.875, 0.375, 0.125

-- Slurm-compatible decay: per-second factor 1 - 0.693/half_life_s.
-- One 14-day half-life (1209600 s): (1 - 0.693/1209600)^1209600 = 0.500073496423317, not 0.5.
SELECT decayed_usage_slurm(1, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '14 days');
-- a 300 s PriorityCalcPeriod at PriorityDecayHalfLife=7-0: (1 - 0.693/604800)^300 = 0.999656308878389
-- (against the exact 2^(-300/604800) = 0.999656236094126)
SELECT decayed_usage_slurm(1, '2024-05-31 23:55+00', '2024-06-01 00:00+00', '7 days'),
       decayed_usage(1, '2024-05-31 23:55+00', '2024-06-01 00:00+00', '7 days');
SELECT decayed_usage_slurm(usage, at, '2024-06-01 00:00+00', '0') FROM u;     -- no decay: 200

-- Usage accrued over a run: the exact integral of the decay.
-- Job over [T-h, T], usage U, half-life h: U/h ∫ 2^-(T-t)/h dt = U × (1 - 1/2)/ln 2 = U × 0.721347520444482
SELECT decayed_usage(100, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '2024-06-01 00:00+00', '14 days');  -- 72.1347520444482
-- Job over [T-2h, T-h]: U × 2^-1 × (1 - 1/2)/ln 2 = U × 0.360673760222241
SELECT decayed_usage(100, '2024-05-04 00:00+00', '2024-05-18 00:00+00', '2024-06-01 00:00+00', '14 days');  -- 36.0673760222241
-- No decay: a job running across as_of counts pro rata: [T-1h, T+1h] → half of 100
SELECT decayed_usage(100, '2024-05-31 23:00+00', '2024-06-01 01:00+00', '2024-06-01 00:00+00', NULL);       -- 50
SELECT decayed_usage(100, '2024-05-31 23:00+00', '2024-06-01 01:00+00', '2024-06-01 00:00+00', '0');        -- 50
-- a job ended before as_of, no decay: all of it
SELECT decayed_usage(100, '2024-05-31 22:00+00', '2024-05-31 23:00+00', '2024-06-01 00:00+00', NULL);       -- 100
-- a job that starts at or after as_of: nothing yet
SELECT decayed_usage(100, '2024-06-01 00:00+00', '2024-06-01 01:00+00', '2024-06-01 00:00+00', '1 day');    -- 0
-- a zero-length job is usage charged at an instant: 100 × 2^-1
SELECT decayed_usage(100, '2024-05-31 00:00+00', '2024-05-31 00:00+00', '2024-06-01 00:00+00', '1 day');    -- 50
-- running across as_of with decay: only [T-h, T] of a [T-h, T+h] job: U/2h × h/ln2 × (1/2) = U × 0.360673760222241
SELECT decayed_usage(100, '2024-05-31 00:00+00', '2024-06-02 00:00+00', '2024-06-01 00:00+00', '1 day');    -- 36.0673760222241
-- Slurm-compatible integral over [T-h, T], h = 1 day: λ = -ln(1 - 0.693/86400);
-- λh = 0.693002779233611, e^(-λh) = 0.500072205876354;
-- U/h × (1 - e^(-λh))/λ = 100 × (1 - 0.500072205876354)/0.693002779233611 = 72.1394 (to 4 places)
SELECT round(decayed_usage_slurm(100, '2024-05-31 00:00+00', '2024-06-01 00:00+00', '2024-06-01 00:00+00', '1 day')::numeric, 4);

-- PBS step decay: × factor at every interval boundary (midnight UTC for 24 h
-- intervals counted from 1970-01-01 UTC).
-- 100 charged Jan 1 10:00; as of Jan 3 09:00 two midnights passed: 100 × 0.5^2 = 25
SELECT decayed_usage_step(100, '2024-01-01 10:00+00', '2024-01-03 09:00+00', '24 hours', 0.5);  -- 25
-- same day: no boundary crossed: 100
SELECT decayed_usage_step(100, '2024-01-01 10:00+00', '2024-01-01 23:59+00', '24 hours', 0.5);  -- 100
-- the boundary itself counts: Jan 2 00:00 is one step: 50
SELECT decayed_usage_step(100, '2024-01-01 10:00+00', '2024-01-02 00:00+00', '24 hours', 0.5);  -- 50
-- a 30-day memory: factor 0.9 per day, 3 boundaries: 100 × 0.9^3 = 72.9
SELECT decayed_usage_step(100, '2024-01-01 10:00+00', '2024-01-04 10:00+00', '1 day', 0.9);     -- 72.9
-- NULL interval or factor: no decay
SELECT decayed_usage_step(100, '2024-01-01 10:00+00', '2024-01-04 10:00+00', NULL, 0.9);        -- 100
-- over a run of 48 h (1 unit per hour) Jan 1 12:00 → Jan 3 12:00, as of Jan 4 00:00:
--   Jan 1 12-24: 12 × 0.5^3 = 1.5; Jan 2: 24 × 0.5^2 = 6; Jan 3 0-12: 12 × 0.5 = 6; total 13.5
SELECT decayed_usage_step(48, '2024-01-01 12:00+00', '2024-01-03 12:00+00', '2024-01-04 00:00+00', '24 hours', 0.5);  -- 13.5
-- the same run inside one slot: 4 h on Jan 1, as of Jan 2 01:00: 4 × 0.5 = 2
SELECT decayed_usage_step(4, '2024-01-01 12:00+00', '2024-01-01 16:00+00', '2024-01-02 01:00+00', '24 hours', 0.5);   -- 2
-- factor 1 keeps everything: 48
SELECT decayed_usage_step(48, '2024-01-01 12:00+00', '2024-01-03 12:00+00', '2024-01-04 00:00+00', '24 hours', 1);    -- 48
-- the same run half done at as_of Jan 2 12:00: Jan 1 12-24: 12 × 0.5 = 6; Jan 2 0-12: 12 × 1 = 12; total 18
SELECT decayed_usage_step(48, '2024-01-01 12:00+00', '2024-01-03 12:00+00', '2024-01-02 12:00+00', '24 hours', 0.5);  -- 18

-- compensated summation: 1e16 then 10000 × 1.0.  Each 1.0 is below half an
-- ulp of 1e16 (ulp = 2), so a naive float sum stays at 1e16; ours is exact.
SET extra_float_digits = 3;
SELECT sum(x) AS naive_sum, decayed_usage(x, '2024-01-01', '2024-01-01', NULL) AS compensated  -- 1e16 vs 10000000000010000
  FROM (SELECT 1e16::float8 AS x UNION ALL SELECT 1.0 FROM generate_series(1, 10000)) s;
SET extra_float_digits = 0;

-- bad input: each call's SQLSTATE and message
SELECT err('SELECT decayed_usage(-1, ''2024-01-01'', ''2024-06-01'', ''1 day'')');                          -- 22023
SELECT err('SELECT decayed_usage(''NaN'', ''2024-01-01'', ''2024-06-01'', ''1 day'')');                       -- 22023
SELECT err('SELECT decayed_usage(''Infinity'', ''2024-01-01'', ''2024-06-01'', ''1 day'')');                  -- 22023
SELECT err('SELECT decayed_usage(1, ''2024-01-01'', ''2024-06-01'', ''-1 day'')');                          -- 22023
SELECT err('SELECT decayed_usage(1, ''2024-01-01'', NULL, ''1 day'')');                                   -- 22004
SELECT err('SELECT decayed_usage(1, ''-infinity'', ''2024-06-01'', ''1 day'')');                            -- 22008
SELECT err('SELECT decayed_usage(1, ''2024-01-01'', ''infinity'', ''1 day'')');                             -- 22008
SELECT err('SELECT decayed_usage(1, ''2024-01-02'', ''2024-01-01'', ''2024-06-01'', ''1 day'')');             -- ended before started: 22023
SELECT err('SELECT decayed_usage_step(1, ''2024-01-01'', ''2024-06-01'', ''0'', 0.5)');                     -- 22023
SELECT err('SELECT decayed_usage_step(1, ''2024-01-01'', ''2024-06-01'', ''1 day'', 1.5)');                 -- 22023
SELECT err('SELECT decayed_usage_step(1, ''2024-01-01'', ''2024-06-01'', ''1 day'', ''NaN'')');               -- 22023
SELECT err('SELECT decayed_usage_step(1, ''2024-01-01'', ''2024-06-01'', ''1 day'', -0.5)');                -- 22023
-- the transition functions are callable from SQL: a NULL or malformed state is
-- an error, not a crash (robustness catalogue, test/tap/bad_input.sql)
SELECT err('SELECT fairshare_internal._decay_point_accum(NULL, 1, ''2024-01-01'', ''2024-06-01'', ''1 day'')');             -- 22004
SELECT err('SELECT fairshare_internal._decay_span_accum(NULL, NULL, NULL, NULL, NULL, NULL)');                            -- 22004
SELECT err('SELECT fairshare_internal._decay_slurm_point_accum(NULL, 1, ''2024-01-01'', ''2024-06-01'', ''1 day'')');       -- 22004
SELECT err('SELECT fairshare_internal._decay_slurm_span_accum(NULL, 1, ''2024-01-01'', ''2024-01-02'', ''2024-06-01'', ''1 day'')'); -- 22004
SELECT err('SELECT fairshare_internal._decay_step_point_accum(NULL, 1, ''2024-01-01'', ''2024-06-01'', ''1 day'', 0.5)');   -- 22004
SELECT err('SELECT fairshare_internal._decay_step_span_accum(NULL, 1, ''2024-01-01'', ''2024-01-02'', ''2024-06-01'', ''1 day'', 0.5)'); -- 22004
SELECT err('SELECT fairshare_internal._decay_final(''{1,2}'')');                                                          -- 22023
SELECT err('SELECT fairshare_internal._decay_combine(''{1,2,3}'', ''{1,NULL,3}'')');                                      -- 22023
-- usage that adds up past float8 (1e308 + 1e308): 22003, as sum(float8) says, not NaN
SELECT err('SELECT decayed_usage(1e308, ''2024-01-01'', ''2024-01-01'', NULL) FROM generate_series(1, 2)');
SELECT err('SELECT decayed_usage_step(1e308, ''2024-01-01'', ''2024-01-02'', ''2024-01-02'', ''1 day'', 1) FROM generate_series(1, 2)');
SELECT decayed_usage(1e308, '2024-01-01', '2024-01-01', NULL) FROM generate_series(1, 1);  -- one row: 1e+308
SELECT fairshare_internal._decay_point_accum('{0,0,0}', 8, '2024-06-01 00:00+00', '2024-06-01 01:00+00', '30 minutes'); -- one row, 8 × 2^-2 = 2: {1,2,0}
-- extreme but valid: a Slurm half-life under 0.693 s leaves nothing after 1 s; 1000 years at a 1 s half-life underflows to 0
SELECT decayed_usage_slurm(1, '2024-01-01 00:00:00+00', '2024-01-01 00:00:01+00', '0.5 seconds'),   -- 0
       decayed_usage(1e300, '1024-01-01 00:00+00', '2024-01-01 00:00+00', '1 second'),              -- 0
       decayed_usage(1e300, '2024-01-01 00:00+00', '2024-01-01 00:00+00', '1 second');              -- 1e300

-- parallel aggregation: Partial Aggregate under Gather, same result as serial
CREATE TABLE decay_par AS
SELECT (i % 97)::float8 AS usage,
       '2024-01-01 00:00+00'::timestamptz + (i % 100000) * interval '1 minute' AS at
  FROM generate_series(1, 200000) i;
ANALYZE decay_par;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT decayed_usage(usage, at, '2024-04-01', '14 days'),
       decayed_usage(usage, at, at + interval '1 hour', '2024-04-01', '14 days') FROM decay_par;
CREATE TEMP TABLE par AS
SELECT decayed_usage(usage, at, '2024-04-01', '14 days') AS p,
       decayed_usage(usage, at, at + interval '1 hour', '2024-04-01', '14 days') AS s,
       decayed_usage_step(usage, at, '2024-04-01', '1 day', 0.5) AS st FROM decay_par;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE ser AS
SELECT decayed_usage(usage, at, '2024-04-01', '14 days') AS p,
       decayed_usage(usage, at, at + interval '1 hour', '2024-04-01', '14 days') AS s,
       decayed_usage_step(usage, at, '2024-04-01', '1 day', 0.5) AS st FROM decay_par;
-- relative difference below 1e-12 (summation order differs between plans)
SELECT abs(par.p - ser.p) / ser.p < 1e-12 AS point_same,
       abs(par.s - ser.s) / ser.s < 1e-12 AS span_same,
       abs(par.st - ser.st) / ser.st < 1e-12 AS step_same,
       ser.p > 0 AND ser.s > 0 AND ser.st > 0 AS nonzero
  FROM par, ser;
RESET ALL;
DROP TABLE decay_par;

-- A span cut by as_of takes its lengths from the exact microseconds: 4 units
-- accrued over 4 µs, as_of 1 µs after the start, no decay: 4 × 1/4 = 1
-- exactly.  (As float8 seconds since 2000, instants in 2026 are 1.2e-7 s
-- apart: 1 µs would come out as 8 or 9 of those steps, and the answer
-- several per cent off.)  With decay, 1 µs of a 1-day half-life changes
-- nothing at this precision: 2^(−1e-6/86400) = 1 − 8e-12, and the same
-- bound holds within the 1 µs, so the result is 1 to 1e-11.
SET search_path = public, fairshare;
SELECT decayed_usage(4, '2026-01-01 00:00:00.000001+00', '2026-01-01 00:00:00.000005+00',
                     '2026-01-01 00:00:00.000002+00', NULL::interval) AS cut_no_decay,
       abs(decayed_usage(4, '2026-01-01 00:00:00.000001+00', '2026-01-01 00:00:00.000005+00',
                         '2026-01-01 00:00:00.000002+00', '1 day') - 1) < 1e-11 AS cut_exact,
       abs(decayed_usage_slurm(4, '2026-01-01 00:00:00.000001+00', '2026-01-01 00:00:00.000005+00',
                               '2026-01-01 00:00:00.000002+00', '1 day') - 1) < 1e-11 AS cut_slurm;

-- The per-row path (docs/performance.md#decayed_usage): after its first row an
-- aggregate checks only each row's own arguments, as long as the half-life is
-- the one parsed before.  A half-life that changes from row to row, NULL in
-- between, must be parsed again each time.  as_of 2024-06-01, every row 100
-- charged 14 days before (at 2024-05-18; span rows from that instant to the
-- same, the point form):
--   '14 days' 100 × 2^-1 = 50;  NULL: no decay, 100;  '14 days' again: 50
--   (not 100: the NULL row's "no decay" must not stay);  '7 days' 100 × 2^-2 = 25;
--   '14 days' 50.  Sum 50 + 100 + 50 + 25 + 50 = 275, for each of the four.
-- The slurm form's weights are not powers of 2: its rows are checked against
-- one-row aggregates (scalar subqueries), 3 × w(14 days) + 100 + w(7 days), to 1e-9 (summation
-- order; a "no decay" kept from the NULL row would be ~50 off).
SET search_path = public, fairshare;
CREATE TEMP TABLE hl_rows(n int, hl interval);
INSERT INTO hl_rows VALUES (1, '14 days'), (2, NULL), (3, '14 days'), (4, '7 days'), (5, '14 days');
SELECT decayed_usage(100, '2024-05-18 00:00+00', '2024-06-01 00:00+00', hl ORDER BY n) AS point,       -- 275
       decayed_usage(100, '2024-05-18 00:00+00', '2024-05-18 00:00+00', '2024-06-01 00:00+00', hl ORDER BY n) AS span, -- 275
       abs(decayed_usage_slurm(100, '2024-05-18 00:00+00', '2024-06-01 00:00+00', hl ORDER BY n)
           - (3 * (SELECT decayed_usage_slurm(100, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '14 days'))
              + 100 + (SELECT decayed_usage_slurm(100, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '7 days')))) < 1e-9 AS slurm_point,
       abs(decayed_usage_slurm(100, '2024-05-18 00:00+00', '2024-05-18 00:00+00', '2024-06-01 00:00+00', hl ORDER BY n)
           - (3 * (SELECT decayed_usage_slurm(100, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '14 days'))
              + 100 + (SELECT decayed_usage_slurm(100, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '7 days')))) < 1e-9 AS slurm_span
  FROM hl_rows;
-- a bad row after good ones raises the same error as on the first row: row 3's
-- usage NaN (22023), row 3's instant infinity (22008), row 3's as_of NULL (22004)
SELECT err($q$SELECT decayed_usage(u, '2024-05-18', '2024-06-01', '14 days' ORDER BY n) FROM (VALUES (1, 1::float8), (2, 2), (3, 'NaN')) v(n, u)$q$);
SELECT err($q$SELECT decayed_usage(1, t, '2024-06-01', '14 days' ORDER BY n) FROM (VALUES (1, '2024-05-18'::timestamptz), (2, '2024-05-19'), (3, 'infinity')) v(n, t)$q$);
SELECT err($q$SELECT decayed_usage(1, '2024-05-18', a, '14 days' ORDER BY n) FROM (VALUES (1, '2024-06-01'::timestamptz), (2, '2024-06-01'), (3, NULL)) v(n, a)$q$);
-- a NULL usage after good rows is skipped: 100 × 2^-1 + 100 × 2^-1 = 100
SELECT decayed_usage(u, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '14 days' ORDER BY n)
  FROM (VALUES (1, 100::float8), (2, NULL), (3, 100)) v(n, u);                                           -- 100
-- Groups whose rows come interleaved (a hash aggregate: each row goes to its
-- group's state, not the state of the row before), with a constant half-life
-- and with one that varies, both parsed as above:
--   k = 1: 3 rows of 100 charged 14 days before, half-life 14 days: 3 × 50 = 150
--   k = 2: 2 rows of 200, the same: 2 × 100 = 200
--   by row, half-lives 14 days, 14 days, 7 days, 7 days, 14 days:
--   k = 1: 100 × 2^-1 + 100 × 2^-2 + 100 × 2^-1 = 125; k = 2: 200 × 2^-1 + 200 × 2^-2 = 150
SET enable_sort = off;
CREATE TEMP TABLE grp_rows(n int, k int, u float8, hl interval);
INSERT INTO grp_rows VALUES (1, 1, 100, '14 days'), (2, 2, 200, '14 days'), (3, 1, 100, '7 days'),
                            (4, 2, 200, '7 days'), (5, 1, 100, '14 days');
ANALYZE grp_rows;
EXPLAIN (COSTS OFF)
SELECT k, decayed_usage(u, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '14 days') FROM grp_rows GROUP BY k;
SELECT * FROM (SELECT k, decayed_usage(u, '2024-05-18 00:00+00', '2024-06-01 00:00+00', '14 days') AS fixed,   -- 150, 200
                      decayed_usage(u, '2024-05-18 00:00+00', '2024-06-01 00:00+00', hl) AS by_row         -- 125, 150
                 FROM grp_rows GROUP BY k) g ORDER BY k;
RESET enable_sort;
DROP TABLE grp_rows;
-- an aggregate of one's own over a transition function, with a state of the
-- wrong shape: the error of the first row, in a group or not (22023), never
-- a write past the array
CREATE AGGREGATE pg_temp.bad_decay(float8, timestamptz, timestamptz, interval) (
    SFUNC = fairshare_internal._decay_point_accum, STYPE = float8[], INITCOND = '{0,0}');
SELECT err($q$SELECT pg_temp.bad_decay(1, '2024-05-18', '2024-06-01', '14 days') FROM generate_series(1, 3)$q$);
SELECT err($q$SELECT g % 2, pg_temp.bad_decay(1, '2024-05-18', '2024-06-01', '14 days') FROM generate_series(1, 4) g GROUP BY 1$q$);
DROP AGGREGATE pg_temp.bad_decay(float8, timestamptz, timestamptz, interval);
DROP TABLE hl_rows;
RESET search_path;
