-- decay_passes: decay_mode 'slurm_passes', usage as slurmctld's decay thread
-- leaves it (docs/decay.md; decay.c).  Every pass (one per
-- PriorityCalcPeriod) multiplies usage by f^Δ, f = 1 - 0.693/h, and charges
-- each running job billing × d × f^d for the d seconds since the previous
-- pass; a job that ends is charged so at once.  Arithmetic beside each case.
--
-- Throughout: half-life h = 10 minutes = 600 s, so f = 1 - 0.693/600 =
-- 0.998845; PriorityCalcPeriod c = 1 minute; passes on the minute (phase
-- 2024-06-01 12:00:00 UTC).
SET search_path = public, fairshare;
SET extra_float_digits = 0;
SET timezone = 'UTC';
-- The settings changed below hold from before every job here (the decay
-- law is read as of each instant: docs/history.md#the-decay-as-of-an-instant).
SET fairshare.tree_change_at = '2000-01-01 00:00+00';

-- ---------------------------------------------------------------------------
-- 1. The aggregate, one job by hand: billing 2 over [12:00:30, 12:03:15].
--    Passes at 12:01, 12:02, 12:03 charge it 2·30·f^30, 2·60·f^60, 2·60·f^60;
--    its end at 12:03:15 charges 2·15·f^15 at once.
-- ---------------------------------------------------------------------------
-- as of 12:03:10, still running, last pass 12:03:
--   2·30·f^30 × f^120 = 50.4505895843803  (decayed by the passes 12:02, 12:03)
-- + 2·60·f^60 × f^60  = 104.460774739707  (decayed by 12:03)
-- + 2·60·f^60         = 111.961122577281
-- = 266.872486901369 (the 10 s since 12:03 are not charged yet)
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:03:10+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');
-- as of 12:03:15, the end: + 2·15·f^15 = 29.484431219536, not decayed before the next pass: 296.356918120905
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:03:15+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');
-- between passes nothing decays: 12:03:59 gives the same 296.356918120905
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:03:59+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');
-- as of 12:05: two more passes, × f^120 on everything charged by 12:03
-- (the end charge was made after 12:03 and is decayed from it too): 257.980610553181
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:05:00+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');
-- the continuous Slurm decay of the same job (decay_mode 'slurm') integrates
-- f^t over the run: 266.112610978529 as of 12:05, 3 % less than the passes
SELECT decayed_usage_slurm(2 * 165, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:05:00+00',
                           '10 minutes');
-- no decay (half-life 0 or NULL): billing × seconds charged.  Running at
-- 12:03:10: 2 × (12:03 − 12:00:30) = 300; ended: 2 × 165 = 330
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:03:10+00',
                                  '0', '1 minute', '2024-06-01 12:00:00+00'),
       decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:05:00+00',
                                  NULL, '1 minute', '2024-06-01 12:00:00+00');
-- ended NULL (or after as_of) is a running job: as of 12:03:10 the same 266.872486901369
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', NULL, '2024-06-01 12:03:10+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00'),
       decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', 'infinity', '2024-06-01 12:03:10+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');
-- a job that started after the last pass has no charge yet; one that starts at or after as_of neither
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:03:01+00', NULL, '2024-06-01 12:03:59+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00'),   -- 0
       decayed_usage_slurm_passes(2, '2024-06-01 12:04:00+00', NULL, '2024-06-01 12:04:00+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');   -- 0
-- a job that ends exactly at a pass is charged by that pass (its end charge
-- is of a stretch of 0 s): [12:00:30, 12:03:00] as of 12:03:00 = 266.872486901369,
-- the same as the running job above
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:00+00', '2024-06-01 12:03:00+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');
-- a job within one stretch, [12:01:10, 12:01:50]: one end charge 2·40·f^40 = 76.3860382162706
SELECT decayed_usage_slurm_passes(2, '2024-06-01 12:01:10+00', '2024-06-01 12:01:50+00', '2024-06-01 12:01:55+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');

-- The closed form is the geometric series of the passes: billing 3 from
-- 12:00:30, as of 1000 passes and 25 s later (28:40:55 after the phase).
-- Pass by pass, as slurmctld does it:
--   U ← U·f^60 + 3·60·f^60 at each pass, after the first charge 3·30·f^30.
CREATE FUNCTION pass_by_pass(n integer) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    f float8 := 1 - 0.693 / 600;
    u float8 := 3 * 30 * f ^ 30;
BEGIN
    FOR i IN 2 .. n LOOP
        u := u * f ^ 60 + 3 * 60 * f ^ 60;
    END LOOP;
    RETURN u;
END $$;
-- 2506.94232592163 both ways (to 12 significant digits: the series is
-- summed in one expression, the loop rounds 1000 times)
SELECT round(decayed_usage_slurm_passes(3, '2024-06-01 12:00:30+00', NULL,
                                        '2024-06-01 12:00:00+00'::timestamptz + interval '1000 minutes 25 seconds',
                                        '10 minutes', '1 minute', '2024-06-01 12:00:00+00')::numeric, 8) AS closed_form,
       round(pass_by_pass(1000)::numeric, 8) AS pass_by_pass;

-- The point form: a unit charged at `at` decays at each pass after it:
-- 100 charged at 12:00:30, as of 12:05:00: the passes 12:01 … 12:05 give
-- f^(12:05 − 12:00) = f^300: 70.7017219280996; before the next pass: 100
SELECT decayed_usage_slurm_passes(100, '2024-06-01 12:00:30+00', '2024-06-01 12:05:00+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00'),
       decayed_usage_slurm_passes(100, '2024-06-01 12:00:30+00', '2024-06-01 12:00:59+00',
                                  '10 minutes', '1 minute', '2024-06-01 12:00:00+00');

-- slurm_last_pass: the instant of the last pass at or before as_of.  A
-- phase read from priority_last_decay_ran (12:02:47): passes at :47
SELECT slurm_last_pass('2024-06-01 12:03:10+00', '1 minute', '2024-06-01 12:02:47+00'),   -- 12:02:47
       slurm_last_pass('2024-06-01 12:02:47+00', '1 minute', '2024-06-01 12:02:47+00'),   -- itself
       slurm_last_pass('2024-06-01 09:00:00+00', '1 minute', '2024-06-01 12:02:47+00'),   -- before the phase: 08:59:47
       slurm_last_pass('2024-06-01 12:03:10+00', '5 minutes'),                            -- no phase: 12:00 (multiples since 1970)
       slurm_last_pass(NULL, '5 minutes');                                                -- NULL

-- Bad input: each SQLSTATE and message
SELECT err('SELECT decayed_usage_slurm_passes(1, now(), NULL, now(), ''10 minutes'', ''0'', NULL)');          -- 22023, names 00:00:00
SELECT err('SELECT decayed_usage_slurm_passes(1, now(), NULL, now(), ''10 minutes'', ''-1 minute'', NULL)');  -- 22023
SELECT err('SELECT decayed_usage_slurm_passes(1, now(), NULL, now(), ''10 minutes'', NULL, NULL)');           -- 22004
SELECT err('SELECT slurm_last_pass(now(), ''0'')');                                                             -- 22023
SELECT err('SELECT decayed_usage_slurm_passes(1, now(), NULL, now(), ''-1 day'', ''1 minute'', NULL)');       -- 22023
SELECT err('SELECT decayed_usage_slurm_passes(1, now(), NULL, now(), ''0.5 seconds'', ''1 minute'', NULL)');  -- 22023: no factor left
SELECT err('SELECT decayed_usage_slurm_passes(-1, now(), NULL, now(), ''1 day'', ''1 minute'', NULL)');       -- 22023
SELECT err('SELECT decayed_usage_slurm_passes(''NaN'', now(), NULL, now(), ''1 day'', ''1 minute'', NULL)');  -- 22023
SELECT err('SELECT decayed_usage_slurm_passes(1, ''2024-01-02'', ''2024-01-01'', now(), ''1 day'', ''1 minute'', NULL)'); -- 22023
SELECT err('SELECT decayed_usage_slurm_passes(1, ''2024-01-01'', NULL, NULL, ''1 day'', ''1 minute'', NULL)');  -- 22004
SELECT err('SELECT decayed_usage_slurm_passes(1, ''2024-01-01'', NULL, ''infinity'', ''1 day'', ''1 minute'', NULL)'); -- 22008
SELECT err('SELECT decayed_usage_slurm_passes(1, ''2024-01-01'', NULL, ''2024-02-01'', ''1 day'', ''1 minute'', ''infinity'')'); -- 22008
SELECT err('SELECT slurm_last_pass(''294276-01-01'', ''1 minute'', ''4000-01-01 BC'')');                     -- 22008, out of range
SELECT err('SELECT fairshare_internal._decay_passes_span_accum(NULL, 1, now(), NULL, now(), ''1 day'', ''1 minute'', NULL)');   -- 22004
-- NULL billing or start: the row is ignored, as sum() ignores NULLs
SELECT decayed_usage_slurm_passes(b, s, NULL, '2024-06-01 12:05:00+00', '10 minutes', '1 minute', NULL)
  FROM (VALUES (NULL::float8, '2024-06-01 12:00:00+00'::timestamptz), (1, NULL)) v(b, s);     -- NULL: no row counted

-- parallel aggregation: Partial Aggregate under Gather, the same result as serial
CREATE TABLE passes_par AS
SELECT (i % 7 + 1)::float8 AS billing,
       '2024-01-01 00:00+00'::timestamptz + (i % 5000) * interval '1 minute 7 seconds' AS s,
       CASE WHEN i % 3 = 0 THEN NULL
            ELSE '2024-01-01 00:00+00'::timestamptz + (i % 5000) * interval '1 minute 7 seconds' + (i % 97) * interval '13 minutes' END AS e
  FROM generate_series(1, 200000) i;
ANALYZE passes_par;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT decayed_usage_slurm_passes(billing, s, e, '2024-01-06', '1 day', '5 minutes', '2024-01-01 00:02:13+00') FROM passes_par;
CREATE TEMP TABLE ppar AS
SELECT decayed_usage_slurm_passes(billing, s, e, '2024-01-06', '1 day', '5 minutes', '2024-01-01 00:02:13+00') AS v FROM passes_par;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE pser AS
SELECT decayed_usage_slurm_passes(billing, s, e, '2024-01-06', '1 day', '5 minutes', '2024-01-01 00:02:13+00') AS v FROM passes_par;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
SELECT abs(ppar.v - pser.v) / pser.v < 1e-12 AS same, pser.v > 0 AS nonzero FROM ppar, pser;
DROP TABLE passes_par;

-- ---------------------------------------------------------------------------
-- 2. The clusters' settings: bad values name themselves
-- ---------------------------------------------------------------------------
INSERT INTO clusters (cluster, decay_mode, decay_half_life, priority_calc_period, priority_last_decay)
VALUES ('sp', 'slurm_passes', '10 minutes', '1 minute', '2024-06-01 12:00:00+00');
SELECT decay_mode, priority_calc_period, priority_last_decay, usage_reset_period, usage_last_reset
  FROM clusters WHERE cluster = 'sp';
SELECT err($$UPDATE clusters SET priority_calc_period = '0' WHERE cluster = 'sp'$$);             -- 22023 ... not 00:00:00
SELECT err($$UPDATE clusters SET priority_calc_period = '-5 minutes' WHERE cluster = 'sp'$$);    -- 22023 ... not -00:05:00
SELECT err($$UPDATE clusters SET priority_calc_period = NULL WHERE cluster = 'sp'$$);            -- 23502
SELECT err($$UPDATE clusters SET usage_reset_period = 'FORTNIGHTLY' WHERE cluster = 'sp'$$);     -- 22023 ... not "FORTNIGHTLY"
SELECT err($$UPDATE clusters SET usage_reset_period = 'NOW' WHERE cluster = 'sp'$$);             -- 22023: NOW needs its instant
SELECT err($$UPDATE clusters SET priority_last_decay = 'infinity' WHERE cluster = 'sp'$$);       -- 23514
SELECT err($$UPDATE clusters SET decay_mode = 'passes' WHERE cluster = 'sp'$$);                  -- 23514
-- slurm.conf takes the period in any case
SELECT err($$UPDATE clusters SET usage_reset_period = 'weekly' WHERE cluster = 'sp'$$);          -- no error
UPDATE clusters SET usage_reset_period = 'NONE' WHERE cluster = 'sp';

-- ---------------------------------------------------------------------------
-- 3. The model: association_usage_at and sshare_at of a 'slurm_passes'
--    cluster.  Partition p bills the CPUs.  Jobs (12:00:00 = T0):
--      ann  2 CPUs  [12:00:30, 12:03:15]  (the job of section 1)
--      bob  1 CPU   [12:01:00, running]
--      cid  4 CPUs  [11:58:00, 12:02:30]
--    Usage, worked pass by pass as in section 1:
--                12:03:10            12:03:20            12:05:00
--      ann     266.872486901369    296.356918120905    257.980610553181
--      bob     108.210948658494    108.210948658494    202.409278093369
--      cid     863.544945702638    863.544945702638    751.721450422134
-- ---------------------------------------------------------------------------
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('sp', 'p', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES
  ('sp', 'root', NULL, 1), ('sp', 'a', 'root', 1), ('sp', 'b', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('sp', 'a', 'ann'), ('sp', 'a', 'bob'), ('sp', 'b', 'cid');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('sp', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-06-01 12:00:00+00', '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', 2),
  ('sp', '2', 'bob', 'a', 'p', 'RUNNING',   '2024-06-01 12:00:00+00', '2024-06-01 12:01:00+00', NULL, 1),
  ('sp', '3', 'cid', 'b', 'p', 'COMPLETED', '2024-06-01 11:57:00+00', '2024-06-01 11:58:00+00', '2024-06-01 12:02:30+00', 4);
SELECT t.as_of, u.user_name, u.raw_usage, u.jobs
  FROM (VALUES ('2024-06-01 12:03:10+00'::timestamptz), ('2024-06-01 12:03:20+00'), ('2024-06-01 12:05:00+00')) t(as_of)
 CROSS JOIN LATERAL association_usage_at(t.as_of) u
 WHERE u.cluster = 'sp' ORDER BY 1, 2;
-- sshare as of 12:03:20, between passes.  RawUsage moved when ann's job
-- ended at 12:03:15 (root 1268.11281248204), but NormUsage, EffectvUsage,
-- LevelFS and FairShare are slurmctld's computation at the 12:03 pass:
-- ann's NormUsage 266.872486901369 / 1238.6283812625 = 0.215458, not
-- 296.356918120905 / 1268.11281248204 = 0.233700.
SELECT repeat(' ', depth) || account AS account, user_name, raw_usage, raw_usage_int,
       round(norm_usage::numeric, 6) AS norm_usage, round(effectv_usage::numeric, 6) AS effectv_usage,
       round(fairshare::numeric, 6) AS fairshare, round(level_fs::numeric, 6) AS level_fs
  FROM sshare_at('2024-06-01 12:03:20+00') WHERE cluster = 'sp' ORDER BY tree_order;
-- at the next pass, 12:04, both agree again
SELECT user_name, round(norm_usage::numeric, 6) AS norm_usage,
       round((raw_usage / sum(raw_usage) FILTER (WHERE user_name IS NOT NULL) OVER ())::numeric, 6) AS raw_over_root
  FROM sshare_at('2024-06-01 12:04:00+00') WHERE cluster = 'sp' AND user_name IS NOT NULL ORDER BY tree_order;

-- ---------------------------------------------------------------------------
-- 4. Checkpoints of a 'slurm_passes' cluster give the numbers the jobs give.
--    T0 = 12:02:40, between passes: the checkpoint stores the usage as of
--    T0 and as of its last pass, 12:02; the jobs' parts after T0 are read
--    from 12:02 (their first charge after T0 is the stretch from 12:02).
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE sp_full AS
SELECT t.as_of, u.user_name, u.raw_usage, s.norm_usage
  FROM (VALUES ('2024-06-01 12:02:40+00'::timestamptz), ('2024-06-01 12:02:50+00'), ('2024-06-01 12:03:20+00'),
               ('2024-06-01 12:05:00+00'), ('2024-06-01 13:00:00+00')) t(as_of)
 CROSS JOIN LATERAL association_usage_at(t.as_of) u
  JOIN LATERAL sshare_at(t.as_of) s ON s.cluster = u.cluster AND s.user_name = u.user_name
 WHERE u.cluster = 'sp';
CALL checkpoint_usage('sp', '2024-06-01 12:02:40+00');
-- cid's job ended at 12:02:30, after the 12:02 pass: its end charge is in
-- raw_usage, not in pass_usage (NULL where the two are equal)
SELECT user_name, raw_usage, pass_usage, jobs FROM usage_checkpoint_rows WHERE cluster = 'sp' ORDER BY 1;
SELECT f.as_of, f.user_name,
       abs(u.raw_usage - f.raw_usage) <= 1e-12 * f.raw_usage AS raw_same,
       abs(s.norm_usage - f.norm_usage) <= 1e-12 AS norm_same
  FROM sp_full f
  JOIN LATERAL association_usage_at(f.as_of) u ON u.cluster = 'sp' AND u.user_name = f.user_name
  JOIN LATERAL sshare_at(f.as_of) s ON s.cluster = 'sp' AND s.user_name = f.user_name
 ORDER BY 1, 2;
-- changing the passes' settings invalidates the checkpoint
UPDATE clusters SET priority_last_decay = '2024-06-01 12:00:30+00' WHERE cluster = 'sp';
SELECT invalidated_by FROM usage_checkpoints WHERE cluster = 'sp';
UPDATE clusters SET priority_last_decay = '2024-06-01 12:00:00+00' WHERE cluster = 'sp';
DELETE FROM usage_checkpoints WHERE cluster = 'sp';

-- ---------------------------------------------------------------------------
-- 5. PriorityUsageResetPeriod.  No decay (half-life 0), so that usage is
--    billing × seconds charged.  DAILY resets at midnight; slurmctld does
--    it at its first pass from midnight on: with passes at :20 of every
--    minute, at 00:00:20, and that pass charges the running jobs for the
--    minute since the previous pass (23:59:20) after zeroing.
--      r1  1 CPU  [2024-06-01 23:58:00, 2024-06-02 00:03:00]  runs across midnight
--      r2  1 CPU  [23:58:00, 23:59:50]  ends after the 23:59:20 pass, before midnight
--      r3  1 CPU  [23:59:00, 00:00:10]  ends after midnight, before the reset pass
-- ---------------------------------------------------------------------------
INSERT INTO clusters (cluster, decay_mode, decay_half_life, priority_calc_period, priority_last_decay,
                      usage_reset_period)
VALUES ('rs', 'slurm_passes', '0', '1 minute', '2024-06-01 00:00:20+00', 'DAILY');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('rs', 'p', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('rs', 'root', NULL, 1), ('rs', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('rs', 'a', 'r1'), ('rs', 'a', 'r2'), ('rs', 'a', 'r3');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('rs', '1', 'r1', 'a', 'p', 'COMPLETED', '2024-06-01 23:58:00+00', '2024-06-01 23:58:00+00', '2024-06-02 00:03:00+00', 1),
  ('rs', '2', 'r2', 'a', 'p', 'COMPLETED', '2024-06-01 23:58:00+00', '2024-06-01 23:58:00+00', '2024-06-01 23:59:50+00', 1),
  ('rs', '3', 'r3', 'a', 'p', 'COMPLETED', '2024-06-01 23:59:00+00', '2024-06-01 23:59:00+00', '2024-06-02 00:00:10+00', 1);
-- the reset instants: as of 00:00:15 the day's reset pass has not come,
-- the last reset is the previous day's (2024-06-01 00:00:20); from 00:00:20 on, today's
SELECT t, fairshare_internal._usage_reset_at(c.usage_reset_period, c.usage_last_reset, c.timezone, c.decay_mode,
                          c.priority_calc_period, c.priority_last_decay, t) AS reset_at
  FROM clusters c, (VALUES ('2024-06-02 00:00:15+00'::timestamptz), ('2024-06-02 00:00:20+00'), ('2024-06-02 12:00+00')) v(t)
 WHERE c.cluster = 'rs' ORDER BY 1;
-- as of 00:00:15, before the reset pass: r1 charged at 23:59:20 (80 s) and
-- nothing since; r2 ended: 110; r3: 23:59:20 (20 s) + its end charge (50 s) = 70
-- as of 00:05:00: r1 counts from the pass before the reset, 23:59:20:
-- 60 (at 00:00:20) + 60 + 60 + 40 (its end, from 00:02:20) = 220 s;
-- r2 and r3 ended before the reset pass: their charges were zeroed, 0
SELECT t.as_of, u.user_name, u.raw_usage, u.jobs
  FROM (VALUES ('2024-06-02 00:00:15+00'::timestamptz), ('2024-06-02 00:05:00+00')) t(as_of)
 CROSS JOIN LATERAL association_usage_at(t.as_of) u
 WHERE u.cluster = 'rs' ORDER BY 1, 2;
-- a checkpoint before the reset is not used after it: the same numbers
CALL checkpoint_usage('rs', '2024-06-01 23:59:30+00');
SELECT user_name, raw_usage FROM association_usage_at('2024-06-02 00:05:00+00') WHERE cluster = 'rs' ORDER BY 1;
-- ... and one after it is: r1 is the checkpoint's 120 (00:01:20) + 60 + 40
CALL checkpoint_usage('rs', '2024-06-02 00:01:30+00');
SELECT user_name, raw_usage FROM association_usage_at('2024-06-02 00:05:00+00') WHERE cluster = 'rs' ORDER BY 1;
DELETE FROM usage_checkpoints WHERE cluster = 'rs';
-- The continuous decays reset at midnight itself and count each job's part
-- after it: r1 [00:00, 00:03] = 180, r2 0 (no part after), r3 [00:00, 00:00:10] = 10
UPDATE clusters SET decay_mode = 'exact' WHERE cluster = 'rs';
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-02 00:05:00+00') WHERE cluster = 'rs' ORDER BY 1;
-- NOW: once, at usage_last_reset (a pass instant with 'slurm_passes').
-- Reset at 00:01:20: r1 counts from 00:00:20: 60 + 60 + 40 = 160
UPDATE clusters SET decay_mode = 'slurm_passes', usage_reset_period = 'NOW',
                    usage_last_reset = '2024-06-02 00:01:20+00' WHERE cluster = 'rs';
SELECT user_name, raw_usage FROM association_usage_at('2024-06-02 00:05:00+00') WHERE cluster = 'rs' ORDER BY 1;
-- ... and before it, nothing is reset: r1 as of 00:01:00 = 23:58 → 00:00:20 = 140 s
SELECT user_name, raw_usage FROM association_usage_at('2024-06-02 00:01:00+00') WHERE cluster = 'rs' ORDER BY 1;

-- Where each period starts: midnight in the cluster's time zone (Paris,
-- UTC+2 in June, +1 in January).  As of Wednesday 2024-06-12 10:00 UTC:
--   DAILY      2024-06-12 00:00 Paris = 2024-06-11 22:00 UTC
--   WEEKLY     Sunday 2024-06-09 00:00 Paris = 2024-06-08 22:00 UTC
--   MONTHLY    2024-06-01 00:00 Paris = 2024-05-31 22:00 UTC
--   QUARTERLY  2024-04-01 00:00 Paris = 2024-03-31 22:00 UTC
--   YEARLY     2024-01-01 00:00 Paris = 2023-12-31 23:00 UTC
SELECT p, fairshare_internal._usage_reset_at(p, NULL, 'Europe/Paris', 'exact', '5 minutes', NULL, '2024-06-12 10:00+00') AS reset_at
  FROM unnest(ARRAY['NONE', 'DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY']) p;
-- with passes every 5 minutes from 00:02 UTC, the reset is the first pass
-- from the period's start: 2024-06-11 22:02 UTC for DAILY
SELECT fairshare_internal._usage_reset_at('daily', NULL, 'Europe/Paris', 'slurm_passes', '5 minutes', '2024-01-01 00:02+00', '2024-06-12 10:00+00');
-- a Sunday is its own week's start: as of Sunday 2024-06-09 10:00 Paris, 2024-06-09 00:00 Paris
SELECT fairshare_internal._usage_reset_at('WEEKLY', NULL, 'Europe/Paris', 'exact', '5 minutes', NULL, '2024-06-09 08:00+00');

-- ---------------------------------------------------------------------------
-- 6. Classic: sshare prints the root's FairShare, 2^(-(1/1)/d): 0.500000
-- ---------------------------------------------------------------------------
-- (the settings are read as of as_of: the changes are recorded at 12:00,
-- before it, docs/history.md#the-history-of-the-settings; the versions
-- the earlier sections wrote are set aside: a row without versions is its
-- live row at every instant)
DELETE FROM settings_history WHERE cluster = 'sp';
SET fairshare.tree_change_at = '2024-06-01 12:00:00+00';
UPDATE clusters SET fairshare_algorithm = 'classic' WHERE cluster = 'sp';
SELECT account, user_name, round(fairshare::numeric, 6) AS fairshare
  FROM sshare_at('2024-06-01 12:05:00+00') WHERE cluster = 'sp' AND depth = 0;
UPDATE clusters SET fairshare_dampening = 2 WHERE cluster = 'sp';     -- 2^(-1/2) = 0.707107
SELECT account, user_name, round(fairshare::numeric, 6) AS fairshare
  FROM sshare_at('2024-06-01 12:05:00+00') WHERE cluster = 'sp' AND depth = 0;
SET fairshare.tree_change_at = '2000-01-01 00:00+00';   -- the suite's (above)

-- ---------------------------------------------------------------------------
-- 7. slurmctld restarts (docs/decay.md#slurmctld-restarts).  A start is a
--    pass: it decays by f^(its instant − the last pass before it) and
--    charges the running jobs the stretch since that pass; the passes after
--    it are every c from it.  Before the first start, the cluster's phase.
-- ---------------------------------------------------------------------------
-- The pass instants with a restart at 12:01:40 (phase 12:00, c = 1 minute):
-- 12:01, then 12:01:40, 12:02:40, 12:03:40 ...
SELECT slurm_last_pass('2024-06-01 12:01:39+00', '1 minute', '2024-06-01 12:00:00+00', '{2024-06-01 12:01:40+00}'),   -- 12:01
       slurm_last_pass('2024-06-01 12:01:40+00', '1 minute', '2024-06-01 12:00:00+00', '{2024-06-01 12:01:40+00}'),   -- the start
       slurm_last_pass('2024-06-01 12:03:39+00', '1 minute', '2024-06-01 12:00:00+00', '{2024-06-01 12:01:40+00}'),   -- 12:02:40
       slurm_last_pass('2024-06-01 12:03:39+00', '1 minute', '2024-06-01 12:00:00+00', NULL),                         -- no start: 12:03
       slurm_next_pass('2024-06-01 12:01:00+00', '1 minute', '2024-06-01 12:00:00+00', '{2024-06-01 12:01:40+00}'),   -- the start
       slurm_next_pass('2024-06-01 12:01:40+00', '1 minute', '2024-06-01 12:00:00+00', '{2024-06-01 12:01:40+00}'),   -- 12:02:40
       slurm_next_pass('2024-06-01 12:01:00+00', '1 minute', '2024-06-01 12:00:00+00');                               -- 12:02
-- the starts in any order, repeated: the same (sorted, each once)
SELECT slurm_last_pass('2024-06-01 12:05:00+00', '1 minute', NULL,
                       '{2024-06-01 12:03:30+00, 2024-06-01 12:01:40+00, 2024-06-01 12:03:30+00}');            -- 12:04:30

-- Section 1's job (billing 2 over [12:00:30, 12:03:15]) with that restart,
-- as of 12:04:40 (the last pass; f^x = (1 − 0.693/600)^x):
--   12:01     charges 2·30·f^30 = 57.9554456226369,  × f^220 (to 12:04:40) = 44.9444678795416
--   12:01:40  (the start) 2·40·f^40 = 76.3860382162706, × f^180 = 62.0400273302175
--   12:02:40  2·60·f^60 = 111.961122577281,           × f^120 = 97.4628800429176
--   12:03:15  its end, from 12:02:40: 2·35·f^35 = 67.2251127004781, × f^120 = 58.5198946221341
--   total 262.967269874811 (one phase of passes on the minute: 257.980610553181 as of 12:05)
SELECT round(decayed_usage_slurm_passes(2, '2024-06-01 12:00:30+00', '2024-06-01 12:03:15+00', '2024-06-01 12:04:40+00',
                                        '10 minutes', '1 minute', '2024-06-01 12:00:00+00',
                                        '{2024-06-01 12:01:40+00}')::numeric, 9) AS with_restart;

-- The closed form against slurmctld's loop, pass by pass, for jobs across
-- several runs: starts at 12:01:40, 12:07:05, 12:07:30 (two within one
-- period), 13:00:00.  The loop lists every pass instant (each run's from
-- its start), then at each pass decays by f^(gap) and charges the job the
-- stretch since the previous pass (or its start); an end is charged at
-- once from the pass before it.
CREATE FUNCTION passes_loop(b float8, s timestamptz, e timestamptz, as_of timestamptz, h float8,
                            c interval, phase timestamptz, starts timestamptz[]) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
    f float8 := CASE WHEN h = 0 THEN 1 ELSE 1 - 0.693 / h END;
    u float8 := 0;
    last timestamptz;
    p timestamptz;
    d float8;
    done boolean := e IS NOT NULL AND e <= s;
BEGIN
    FOR p IN
        SELECT x FROM generate_series(phase - c * 2000, as_of, c) x
         WHERE x < COALESCE(starts[1], 'infinity')
        UNION
        SELECT y FROM unnest(starts) WITH ORDINALITY st (si, i),
                      generate_series(si, LEAST(as_of, COALESCE(starts[i + 1] - interval '1 microsecond', as_of)), c) y
         WHERE si <= as_of
        ORDER BY 1
    LOOP
        IF p <= s THEN
            last := p;
            CONTINUE;
        END IF;
        IF NOT done AND e IS NOT NULL AND e < p THEN
            d := extract(epoch FROM e - GREATEST(s, last));
            u := u + b * d * f ^ d;
            done := true;
        END IF;
        u := u * f ^ extract(epoch FROM p - last);
        IF NOT done THEN
            d := extract(epoch FROM p - GREATEST(s, last));
            u := u + b * d * f ^ d;
            done := e IS NOT NULL AND e = p;
        END IF;
        last := p;
    END LOOP;
    IF NOT done AND e IS NOT NULL AND e <= as_of THEN
        d := extract(epoch FROM e - GREATEST(s, last));
        u := u + b * d * f ^ d;
    END IF;
    RETURN u;
END $$;
-- every job × as_of below (22 cases with usage): the two agree to 1e-12
-- relative; one phase of passes on the minute, without the starts, differs
-- in every one (the first as_of, 12:01:40, is the first start: a pass)
WITH k (s, e) AS (VALUES ('2024-06-01 12:00:30+00'::timestamptz, '2024-06-01 12:03:15+00'::timestamptz),
                         ('2024-06-01 11:50:10+00', NULL),                      -- running across every start
                         ('2024-06-01 12:01:45+00', '2024-06-01 12:07:20+00'),  -- ends between two starts
                         ('2024-06-01 12:06:50+00', '2024-06-01 12:07:05+00'),  -- ends at a start
                         ('2024-06-01 12:05:00+00', '2024-06-01 13:30:00+00')),
     t (as_of) AS (VALUES ('2024-06-01 12:01:40+00'::timestamptz), ('2024-06-01 12:07:06+00'),
                          ('2024-06-01 12:07:31+00'), ('2024-06-01 12:59:59+00'), ('2024-06-01 14:00:00+00')),
     r AS (SELECT k.s, k.e, t.as_of,
                  decayed_usage_slurm_passes(3, k.s, k.e, t.as_of, '10 minutes', '1 minute', '2024-06-01 12:00:00+00',
                                             '{2024-06-01 12:07:30+00, 2024-06-01 12:01:40+00, 2024-06-01 12:07:05+00, 2024-06-01 13:00:00+00}') AS closed,
                  passes_loop(3, k.s, k.e, t.as_of, 600, '1 minute', '2024-06-01 12:00:00+00',
                              '{2024-06-01 12:01:40+00, 2024-06-01 12:07:05+00, 2024-06-01 12:07:30+00, 2024-06-01 13:00:00+00}') AS loop
                  , decayed_usage_slurm_passes(3, k.s, k.e, t.as_of, '10 minutes', '1 minute',
                                               '2024-06-01 12:00:00+00') AS one_phase
             FROM k, t WHERE k.s < t.as_of GROUP BY k.s, k.e, t.as_of)
SELECT count(*) AS cases, count(*) FILTER (WHERE abs(closed - loop) <= 1e-12 * loop) AS agree,
       count(*) FILTER (WHERE loop > 0) AS with_usage,
       count(*) FILTER (WHERE abs(one_phase - loop) > 1e-6 * loop) AS one_phase_differs
  FROM r;
-- no decay: each job counts billing × its seconds charged, whatever the starts
SELECT decayed_usage_slurm_passes(3, '2024-06-01 11:50:10+00', '2024-06-01 13:30:00+00', '2024-06-01 14:00:00+00',
                                  NULL, '1 minute', '2024-06-01 12:00:00+00',
                                  '{2024-06-01 12:01:40+00, 2024-06-01 12:07:05+00}') AS no_decay;   -- 3 × 5990 s = 17970

-- The starts a call is given are checked: a NULL, an infinite instant, and
-- more than 100000 starts are refused with their reason
CREATE FUNCTION pg_temp.err_hint(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE m text; h text; st text;
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, m = MESSAGE_TEXT, h = PG_EXCEPTION_HINT;
    RETURN st || ': ' || m || ' (HINT: ' || h || ')';
END $$;
SELECT pg_temp.err_hint($$SELECT slurm_last_pass(now(), '1 minute', NULL, ARRAY['2024-06-01 12:00+00', NULL]::timestamptz[])$$);
SELECT pg_temp.err_hint($$SELECT slurm_last_pass(now(), '1 minute', NULL, '{infinity}')$$);
SELECT pg_temp.err_hint($$SELECT slurm_last_pass(now(), '1 minute', NULL,
                                                 array(SELECT '2024-01-01'::timestamptz + i * interval '1 second' FROM generate_series(1, 100001) i))$$);
SELECT pg_temp.err_hint($$SELECT decayed_usage_slurm_passes(1, now() - interval '1 hour', NULL, now(), NULL, '1 minute', NULL,
                                                            '{-infinity}')$$);

-- The table: each start of a cluster, validated
INSERT INTO clusters (cluster, decay_mode, decay_half_life, priority_calc_period, priority_last_decay, accounting_start)
VALUES ('rt', 'slurm_passes', '10 minutes', '1 minute', '2024-06-01 12:00:00+00', '2024-01-01 00:00+00');
SELECT pg_temp.err_hint($$INSERT INTO slurmctld_starts (cluster, started_at) VALUES ('rt', 'infinity')$$);
SELECT pg_temp.err_hint($$INSERT INTO slurmctld_starts (cluster, started_at) VALUES ('rt', '2023-12-31 23:59:59+00')$$);
SELECT pg_temp.err_hint($$INSERT INTO slurmctld_starts (cluster, started_at) VALUES ('rt', NULL)$$);            -- 23502
SELECT pg_temp.err_hint($$INSERT INTO slurmctld_starts (cluster, started_at) VALUES ('nowhere', now())$$);      -- 23503

-- The model: cluster rt, partition p billing the CPUs; ann's job (2 CPUs)
-- over [12:00:30, 12:05:15], bob's (1 CPU) from 12:01:00, running; a
-- restart at 12:02:20.  Without decay first: ann's charges are 12:01 60,
-- 12:02 120, 12:02:20 (the start) 40, 12:03:20 120, 12:04:20 120, her end
-- 12:05:15 2 × 55 = 110: 570 = 2 × 285 s.
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('rt', 'p', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('rt', 'root', NULL, 1), ('rt', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('rt', 'a', 'ann'), ('rt', 'a', 'bob');
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('rt', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-06-01 12:00:00+00', '2024-06-01 12:00:30+00', '2024-06-01 12:05:15+00', 2),
  ('rt', '2', 'bob', 'a', 'p', 'RUNNING',   '2024-06-01 12:00:00+00', '2024-06-01 12:01:00+00', NULL, 1);
UPDATE clusters SET decay_half_life = '0' WHERE cluster = 'rt';
INSERT INTO slurmctld_starts (cluster, started_at, note) VALUES ('rt', '2024-06-01 12:02:20+00', 'a reconfigure');
-- as of 12:03:59: ann 60 + 120 + 40 + 120 = 340 (passes up to 12:03:20),
-- bob 60 + 20 + 60 = 140 (12:02, 12:02:20, 12:03:20); as of 12:05:15,
-- her end: 570; as of 12:05:20, bob + 60 + 60 = 260
SELECT t.as_of, u.user_name, u.raw_usage
  FROM (VALUES ('2024-06-01 12:03:59+00'::timestamptz), ('2024-06-01 12:05:15+00'), ('2024-06-01 12:05:20+00')) t(as_of)
 CROSS JOIN LATERAL association_usage_at(t.as_of) u
 WHERE u.cluster = 'rt' ORDER BY 1, 2;
-- a NOW reset given at the start happens at it: zeroed at 12:02:20, then
-- the start charges the 20 s since 12:02: as of 12:02:30 ann 2 × 20 = 40
-- and bob 1 × 20 = 20 (without the start the reset waits for 12:03 and
-- 12:02:30 still shows ann 180, bob 60); as of 12:04:30: ann 40 + 120 + 120
-- = 280, bob 20 + 60 + 60 = 140
UPDATE clusters SET usage_reset_period = 'NOW', usage_last_reset = '2024-06-01 12:02:20+00' WHERE cluster = 'rt';
SELECT t.as_of, u.user_name, u.raw_usage
  FROM (VALUES ('2024-06-01 12:02:19+00'::timestamptz), ('2024-06-01 12:02:30+00'), ('2024-06-01 12:04:30+00')) t(as_of)
 CROSS JOIN LATERAL association_usage_at(t.as_of) u
 WHERE u.cluster = 'rt' ORDER BY 1, 2;
SELECT fairshare_internal._usage_reset_at('NOW', '2024-06-01 12:02:20+00', 'UTC', 'slurm_passes', '1 minute',
                                          '2024-06-01 12:00:00+00', '2024-06-01 12:02:30+00',
                                          '{2024-06-01 12:02:20+00}') AS reset_at;     -- the start, 12:02:20
UPDATE clusters SET usage_reset_period = 'NONE', usage_last_reset = NULL, decay_half_life = '10 minutes' WHERE cluster = 'rt';

-- Checkpoints across a restart give the numbers the jobs give.  The usage
-- from the jobs alone first (no checkpoint), at instants around and after
-- the restart; then a checkpoint at 12:01:10 (its factors hold to 12:02,
-- before the restart) and the same instants chained from it.
CREATE TEMP TABLE rt_full AS
SELECT t.as_of, u.user_name, u.raw_usage, s.norm_usage
  FROM (VALUES ('2024-06-01 12:01:10+00'::timestamptz), ('2024-06-01 12:02:19+00'), ('2024-06-01 12:02:20+00'),
               ('2024-06-01 12:02:30+00'), ('2024-06-01 12:04:30+00'), ('2024-06-01 12:06:00+00'),
               ('2024-06-01 13:00:00+00')) t(as_of)
 CROSS JOIN LATERAL association_usage_at(t.as_of) u
  JOIN LATERAL sshare_at(t.as_of) s ON s.cluster = u.cluster AND s.user_name = u.user_name
 WHERE u.cluster = 'rt';
CALL checkpoint_usage('rt', '2024-06-01 12:01:10+00');
SELECT f.as_of, f.user_name,
       abs(u.raw_usage - f.raw_usage) <= 1e-12 * f.raw_usage AS raw_same,
       abs(s.norm_usage - f.norm_usage) <= 1e-12 AS norm_same
  FROM rt_full f
  JOIN LATERAL association_usage_at(f.as_of) u ON u.cluster = 'rt' AND u.user_name = f.user_name
  JOIN LATERAL sshare_at(f.as_of) s ON s.cluster = 'rt' AND s.user_name = f.user_name
 ORDER BY 1, 2;
-- a start after the checkpoint's next pass (12:02) changes nothing it
-- holds: it stays valid; one at or before 12:01:10 + 1 minute invalidates it
INSERT INTO slurmctld_starts (cluster, started_at) VALUES ('rt', '2024-06-01 12:30:00+00');
SELECT as_of, invalidated_by FROM usage_checkpoints WHERE cluster = 'rt';
INSERT INTO slurmctld_starts (cluster, started_at) VALUES ('rt', '2024-06-01 12:02:00+00');
SELECT as_of, invalidated_by FROM usage_checkpoints WHERE cluster = 'rt';
DELETE FROM usage_checkpoints WHERE cluster = 'rt';
CALL checkpoint_usage('rt', '2024-06-01 12:01:10+00');
DELETE FROM slurmctld_starts WHERE cluster = 'rt' AND started_at = '2024-06-01 12:02:00+00';
SELECT as_of, invalidated_by FROM usage_checkpoints WHERE cluster = 'rt';
DELETE FROM usage_checkpoints WHERE cluster = 'rt';

DELETE FROM jobs WHERE cluster IN ('sp', 'rs', 'rt');
DELETE FROM clusters WHERE cluster IN ('sp', 'rs', 'rt');
DROP FUNCTION pass_by_pass(integer);
DROP FUNCTION passes_loop(float8, timestamptz, timestamptz, timestamptz, float8, interval, timestamptz, timestamptz[]);
