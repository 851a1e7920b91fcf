-- checkpoint: usage checkpoints (docs/design.md#usage-checkpoints).
-- checkpoint_usage stores every
-- association's decayed usage as of T0; association_usage_at(as_of >= T0)
-- then decays it to as_of and adds the part after T0 of the jobs running at
-- T0 or started since.  The numbers must be those of the full computation
-- (exactly in real arithmetic, to ~1e-12 in float8), and any change that
-- alters what a checkpoint holds must invalidate it.
SET search_path = public, fairshare;
SET timezone = 'UTC';
-- The settings changed below hold from before every job here (the decay
-- law is read as of each instant: docs/history.md#the-decay-as-of-an-instant).
SET fairshare.tree_change_at = '2000-01-01 00:00+00';
SET extra_float_digits = 0;

-- ---------------------------------------------------------------------------
-- 1. By hand, without decay (half-life 0): usage = billing × seconds.
--    Partition p has no billing weights: a job is billed its CPUs.
--    T0 = 2024-06-10 00:00, T = T0 + 1 day.
-- ---------------------------------------------------------------------------
INSERT INTO clusters (cluster, decay_half_life) VALUES ('ck', '0');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('ck', 'p', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('ck', 'root', NULL, 1), ('ck', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name) VALUES ('ck', 'a', 'ann'), ('ck', 'a', 'bob'), ('ck', 'a', 'cid');
-- two QOS no job uses (section 4 changes them)
INSERT INTO qos (cluster, qos, priority, usage_factor) VALUES ('ck', 'low', 1, 0.5), ('ck', 'neutral', 1, 1);
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  -- ann: 2 CPUs over [T0-10h, T0-9h]: 2 × 3600 = 7200, all before T0
  ('ck', '1', 'ann', 'a', 'p', 'COMPLETED', '2024-06-09 13:00+00', '2024-06-09 14:00+00', '2024-06-09 15:00+00', 2),
  -- ann: 1 CPU over [T0-1h, T0+1h]: 3600 before T0, 3600 after
  ('ck', '2', 'ann', 'a', 'p', 'COMPLETED', '2024-06-09 22:00+00', '2024-06-09 23:00+00', '2024-06-10 01:00+00', 1),
  -- bob: 1 CPU over [T0+30m, T0+90m]: 3600, all after T0
  ('ck', '3', 'bob', 'a', 'p', 'COMPLETED', '2024-06-10 00:00+00', '2024-06-10 00:30+00', '2024-06-10 01:30+00', 1),
  -- bob: 4 CPUs from T0+2h, still running at T: 4 × 22 × 3600 = 316800
  ('ck', '4', 'bob', 'a', 'p', 'RUNNING', '2024-06-10 01:00+00', '2024-06-10 02:00+00', NULL, 4);

-- the full computation as of T: ann 7200 + 7200 = 14400, bob 3600 + 316800 = 320400
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-11 00:00+00') WHERE cluster = 'ck' ORDER BY 1;
-- the checkpoint as of T0: ann 7200 + 3600 = 10800 (2 jobs); bob and cid had no jobs then: no row
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
SELECT cluster, as_of, invalidated_at, invalidated_by FROM usage_checkpoints WHERE cluster = 'ck';
SELECT account, user_name, raw_usage, jobs FROM usage_checkpoint_rows WHERE cluster = 'ck' ORDER BY 2;
-- from the checkpoint as of T: ann 10800 + 3600 (job 2 after T0) = 14400;
-- bob 3600 + 316800 = 320400, 2 jobs started since T0; cid 0
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-11 00:00+00') WHERE cluster = 'ck' ORDER BY 1;
-- as of T0 itself: the checkpoint's rows (ann 10800); bob's jobs start later
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-10 00:00+00') WHERE cluster = 'ck' ORDER BY 1;
-- as of T0 + 1h: ann 10800 + 3600 = 14400; bob [T0+30m, T0+1h] = 1800, 1 job
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-10 01:00+00') WHERE cluster = 'ck' ORDER BY 1;
-- before T0 (time travel past the checkpoint): the jobs alone.  As of
-- T0 - 30m: ann 7200 + 1800 = 9000
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-09 23:30+00') WHERE cluster = 'ck' ORDER BY 1;

-- ---------------------------------------------------------------------------
-- 2. The decay from T0 to as_of is one factor per mode, the weight decay.c
--    gives a unit charged at T0.  cid's only job ended a day before T0, so
--    cid's usage as of as_of is exactly its checkpoint × that factor.
-- ---------------------------------------------------------------------------
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('ck', '5', 'cid', 'a', 'p', 'COMPLETED', '2024-06-08 00:00+00', '2024-06-08 12:00+00', '2024-06-09 00:00+00', 3);
CREATE TEMP TABLE ck_ratio (mode text, at_t0 float8, at_t float8, ratio float8);
-- exact, half-life 1 day, one day later: × 2^-1 = 0.5 exactly
UPDATE clusters SET decay_half_life = '1 day' WHERE cluster = 'ck';
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
INSERT INTO ck_ratio SELECT 'exact', r.raw_usage, u.raw_usage, u.raw_usage / r.raw_usage
  FROM usage_checkpoint_rows r, association_usage_at('2024-06-11 00:00+00') u
 WHERE r.cluster = 'ck' AND r.user_name = 'cid' AND u.cluster = 'ck' AND u.user_name = 'cid';
-- Slurm's per-second factor (1 - 0.693/86400)^86400 = 0.5000722... (a little more than a half)
UPDATE clusters SET decay_mode = 'slurm' WHERE cluster = 'ck';
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
INSERT INTO ck_ratio SELECT 'slurm', r.raw_usage, u.raw_usage, u.raw_usage / r.raw_usage
  FROM usage_checkpoint_rows r, association_usage_at('2024-06-11 00:00+00') u
 WHERE r.cluster = 'ck' AND r.user_name = 'cid' AND u.cluster = 'ck' AND u.user_name = 'cid';
-- PBS step decay, × 0.5 at each UTC midnight: T0 = 13:00 on the 10th, as_of
-- 07:00 on the 12th crosses the midnights of the 11th and 12th: × 0.25
UPDATE clusters SET decay_mode = 'step', decay_interval = '1 day', decay_factor = 0.5 WHERE cluster = 'ck';
CALL checkpoint_usage('ck', '2024-06-10 13:00+00');
INSERT INTO ck_ratio SELECT 'step', r.raw_usage, u.raw_usage, u.raw_usage / r.raw_usage
  FROM usage_checkpoint_rows r, association_usage_at('2024-06-12 07:00+00') u
 WHERE r.cluster = 'ck' AND r.user_name = 'cid' AND u.cluster = 'ck' AND u.user_name = 'cid';
SELECT mode, round(ratio::numeric, 12) AS ratio FROM ck_ratio ORDER BY mode;
-- slurm, by hand (numeric: float8 power() of 1 - 0.693/86400 would lose 1e-11)
SELECT abs(ratio::numeric / exp(86400 * ln(1 - 0.693 / 86400::numeric)) - 1) < 1e-14 AS slurm_factor_ok
  FROM ck_ratio WHERE mode = 'slurm';
-- exact, by hand: 3 CPUs over [T0 - 36 h, T0 - 24 h] with h = 1 day:
-- 3 × (86400 / ln 2) × (2^-1 − 2^-1.5) = 54763.38...
SELECT abs(at_t0 / (3 * 86400 / ln(2) * (2 ^ -1.0 - 2 ^ -1.5)) - 1) < 1e-13 AS exact_at_t0_ok
  FROM ck_ratio WHERE mode = 'exact';
-- step, by hand: cid's 3 CPUs over [8th 12:00, 9th 00:00), all in the 8th's
-- slot, as of T0 (the 10th, 13:00): two midnights crossed (the 9th's and
-- the 10th's): 3 × 43200 × 0.25 = 32400; as of the 12th 07:00, × 0.25 = 8100
SELECT at_t0, at_t FROM ck_ratio WHERE mode = 'step';

-- A job's span split at T0 adds up: ann's job 2 runs [T0-1h, T0+1h] across
-- T0 = 00:00 on the 10th; each mode, as of T0 + 1 day, from the checkpoint
-- and from the jobs alone (usage_checkpoints set aside in between), agree.
CREATE FUNCTION pg_temp.ck_compare(c text, t0 timestamptz, t timestamptz)
RETURNS TABLE (associations bigint, max_rel_diff_below_1e12 boolean, jobs_differ bigint, used_checkpoint boolean)
LANGUAGE plpgsql AS $$
BEGIN
    CALL fairshare.checkpoint_usage(c, t0);
    CREATE TEMP TABLE ck_cp AS SELECT * FROM fairshare.association_usage_at(t) u WHERE u.cluster = c;
    UPDATE fairshare.usage_checkpoints k SET invalidated_at = now(), invalidated_by = 'test' WHERE k.cluster = c;
    CREATE TEMP TABLE ck_full AS SELECT * FROM fairshare.association_usage_at(t) u WHERE u.cluster = c;
    UPDATE fairshare.usage_checkpoints k SET invalidated_at = NULL, invalidated_by = NULL WHERE k.cluster = c;
    RETURN QUERY
    SELECT count(*),
           COALESCE(max(abs(p.raw_usage - f.raw_usage) / NULLIF(f.raw_usage, 0)), 0) < 1e-12,
           count(*) FILTER (WHERE p.jobs IS DISTINCT FROM f.jobs),
           EXISTS (SELECT FROM fairshare.usage_checkpoints k WHERE k.cluster = c AND k.as_of <= t)
      FROM ck_cp p FULL JOIN ck_full f USING (cluster, account, user_name);
    DROP TABLE ck_cp, ck_full;
END $$;
UPDATE clusters SET decay_mode = 'exact', decay_half_life = '1 day' WHERE cluster = 'ck';
SELECT 'exact' AS mode, * FROM pg_temp.ck_compare('ck', '2024-06-10 00:00+00', '2024-06-11 00:00+00');
UPDATE clusters SET decay_mode = 'slurm' WHERE cluster = 'ck';
SELECT 'slurm' AS mode, * FROM pg_temp.ck_compare('ck', '2024-06-10 00:00+00', '2024-06-11 00:00+00');
UPDATE clusters SET decay_mode = 'step' WHERE cluster = 'ck';
SELECT 'step' AS mode, * FROM pg_temp.ck_compare('ck', '2024-06-10 00:00+00', '2024-06-11 00:00+00');

-- ---------------------------------------------------------------------------
-- 3. A loaded centre, one cluster per decay mode: 3 × 3000 jobs over the 30
--    days before T0 = 2024-07-01 00:00, some running across T0, some started
--    after it, some still running, pending jobs; TRES billing, QOS
--    UsageFactors, a Fair Tree of 4 accounts and 40 users; priority weights.
--    usage, sshare and sprio from a checkpoint against the jobs alone, as of
--    T0, T0 + 10 minutes, T0 + 2 days (time travel: jobs that end after it).
-- ---------------------------------------------------------------------------
DO $$ BEGIN PERFORM setseed(0.31); END $$;
INSERT INTO clusters (cluster, decay_mode, decay_half_life, decay_interval, decay_factor,
                      weight_fairshare, weight_age, weight_job_size, weight_partition, weight_qos, priority_max_age)
VALUES ('ckx', 'exact', '7 days', '1 day', 0.5, 100000, 1000, 1000, 1000, 1000, '7 days'),
       ('cks', 'slurm', '7 days', '1 day', 0.5, 100000, 1000, 1000, 1000, 1000, '7 days'),
       ('ckp', 'step', '7 days', '6 hours', 0.8, 100000, 1000, 1000, 1000, 1000, '7 days');
INSERT INTO partitions (cluster, partition, billing_weights, billing_mode, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
SELECT c, p, w, m, f, 10, 32, 131072
  FROM unnest(ARRAY['ckx', 'cks', 'ckp']) c,
       (VALUES ('cpu', 'CPU=1.0,Mem=0.25G', 'sum', 10), ('big', 'CPU=1.5,Mem=0.5G', 'max_tres', 20)) v(p, w, m, f);
INSERT INTO qos (cluster, qos, priority, usage_factor)
SELECT c, q, pr, uf FROM unnest(ARRAY['ckx', 'cks', 'ckp']) c,
       (VALUES ('normal', 10, 1.0), ('high', 100, 2.0), ('low', 0, 0.5)) v(q, pr, uf);
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT c, 'root', NULL, 1 FROM unnest(ARRAY['ckx', 'cks', 'ckp']) c;
INSERT INTO accounts (cluster, account, parent_account, shares)
SELECT c, 'acct' || i, 'root', 1 + i FROM unnest(ARRAY['ckx', 'cks', 'ckp']) c, generate_series(0, 3) i;
INSERT INTO account_users (cluster, account, user_name, shares)
SELECT c, 'acct' || (i % 4), 'user' || i, 1 + i % 3 FROM unnest(ARRAY['ckx', 'cks', 'ckp']) c, generate_series(0, 39) i;
-- whole seconds: start in the 30 days before T0 + 1 day, run up to 40
-- hours; one job in 10 that ends after T0 + 6 h is still running (no end)
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time,
                  start_time, end_time, tres, cpus)
SELECT c, g::text, 'user' || u, 'acct' || (u % 4), (ARRAY['cpu', 'cpu', 'big'])[1 + g % 3],
       (ARRAY['normal', 'normal', 'high', 'low', NULL])[1 + g % 5],
       CASE WHEN g % 10 = 0 AND s + d > '2024-07-01 06:00+00' THEN 'RUNNING' ELSE 'COMPLETED' END,
       s - interval '10 minutes', s - interval '10 minutes', s,
       CASE WHEN g % 10 = 0 AND s + d > '2024-07-01 06:00+00' THEN NULL ELSE s + d END,
       format('cpu=%s,mem=%sM,node=1', n, n * 2048), n
  FROM (SELECT c, g, floor(random() * 40)::int AS u, (2 ^ floor(random() * 5))::int AS n,
               '2024-06-01 00:00+00'::timestamptz + floor(random() * 31 * 86400) * interval '1 second' AS s,
               floor(random() * 40 * 3600) * interval '1 second' AS d
          FROM unnest(ARRAY['ckx', 'cks', 'ckp']) c, generate_series(1, 3000) g) x;
-- pending at every instant below: submitted before T0, never started
INSERT INTO jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time, tres, cpus)
SELECT c, 'p' || g, 'user' || (g % 40), 'acct' || ((g % 40) % 4), (ARRAY['cpu', 'big'])[1 + g % 2],
       (ARRAY['normal', 'high', 'low'])[1 + g % 3], 'PENDING',
       '2024-06-30 00:00+00'::timestamptz + g * interval '1 minute', '2024-06-30 00:00+00'::timestamptz + g * interval '1 minute',
       'cpu=4,mem=8192M,node=1', 4
  FROM unnest(ARRAY['ckx', 'cks', 'ckp']) c, generate_series(1, 300) g;
SELECT cluster, count(*) AS jobs,
       count(*) FILTER (WHERE start_time <= '2024-07-01 00:00+00' AND COALESCE(end_time, 'infinity') > '2024-07-01 00:00+00') AS across_t0,
       count(*) FILTER (WHERE start_time > '2024-07-01 00:00+00') AS started_after_t0,
       count(*) FILTER (WHERE start_time <= '2024-07-03 00:00+00' AND end_time > '2024-07-03 00:00+00') AS end_after_t0_2d,
       count(*) FILTER (WHERE state = 'RUNNING') AS running
  FROM jobs WHERE cluster IN ('ckx', 'cks', 'ckp') GROUP BY cluster ORDER BY cluster;

-- usage, sshare and sprio from the checkpoints and from the jobs alone
CREATE FUNCTION pg_temp.ck_reports(t timestamptz)
RETURNS TABLE (cluster text, report text, rows_ bigint, printed_columns_differ bigint, max_rel_diff_below_1e12 boolean)
LANGUAGE plpgsql AS $$
BEGIN
    CREATE TEMP TABLE r_cp AS SELECT * FROM fairshare.association_usage_at(t);
    CREATE TEMP TABLE s_cp AS SELECT * FROM fairshare.sshare_at(t);
    CREATE TEMP TABLE p_cp AS SELECT * FROM fairshare.sprio_at(t);
    CREATE TEMP TABLE saved AS SELECT * FROM fairshare.usage_checkpoints;
    UPDATE fairshare.usage_checkpoints SET invalidated_at = now(), invalidated_by = 'test';
    CREATE TEMP TABLE r_full AS SELECT * FROM fairshare.association_usage_at(t);
    CREATE TEMP TABLE s_full AS SELECT * FROM fairshare.sshare_at(t);
    CREATE TEMP TABLE p_full AS SELECT * FROM fairshare.sprio_at(t);
    UPDATE fairshare.usage_checkpoints k SET invalidated_at = s.invalidated_at, invalidated_by = s.invalidated_by
      FROM saved s WHERE s.cluster = k.cluster;
    RETURN QUERY
    SELECT COALESCE(a.cluster, b.cluster), 'usage', count(*),
           count(*) FILTER (WHERE a.jobs IS DISTINCT FROM b.jobs),
           COALESCE(max(abs(a.raw_usage - b.raw_usage) / NULLIF(b.raw_usage, 0)), 0) < 1e-12
      FROM r_cp a FULL JOIN r_full b USING (cluster, account, user_name)
     WHERE COALESCE(a.cluster, b.cluster) IN ('ckx', 'cks', 'ckp') GROUP BY 1
    UNION ALL
    SELECT COALESCE(a.cluster, b.cluster), 'sshare', count(*),
           count(*) FILTER (WHERE (a.raw_shares, a.raw_usage_int, a.fs_rank, a.depth)
                                  IS DISTINCT FROM (b.raw_shares, b.raw_usage_int, b.fs_rank, b.depth)),
           COALESCE(max(abs(a.raw_usage - b.raw_usage) / NULLIF(b.raw_usage, 0)), 0) < 1e-12
             AND COALESCE(max(abs(a.fairshare - b.fairshare) / NULLIF(b.fairshare, 0)), 0) < 1e-12
             AND COALESCE(max(abs(a.effectv_usage - b.effectv_usage) / NULLIF(b.effectv_usage, 0)), 0) < 1e-12
      FROM s_cp a FULL JOIN s_full b
        ON a.cluster = b.cluster AND a.account = b.account AND COALESCE(a.user_name, '') = COALESCE(b.user_name, '')
     WHERE COALESCE(a.cluster, b.cluster) IN ('ckx', 'cks', 'ckp') GROUP BY 1
    UNION ALL
    SELECT COALESCE(a.cluster, b.cluster), 'sprio', count(*),
           count(*) FILTER (WHERE (a.priority, a.age, a.fairshare, a.job_size, a.partition_prio, a.qos_prio, a.nice)
                                  IS DISTINCT FROM (b.priority, b.age, b.fairshare, b.job_size, b.partition_prio, b.qos_prio, b.nice)),
           COALESCE(max(abs(a.priority_exact - b.priority_exact) / NULLIF(b.priority_exact, 0)), 0) < 1e-12
      FROM p_cp a FULL JOIN p_full b USING (cluster, job_id)
     WHERE COALESCE(a.cluster, b.cluster) IN ('ckx', 'cks', 'ckp') GROUP BY 1;
    DROP TABLE r_cp, s_cp, p_cp, saved, r_full, s_full, p_full;
END $$;
CALL checkpoint_usage(NULL, '2024-07-01 00:00+00');
SELECT count(*) AS checkpoints, count(*) FILTER (WHERE invalidated_at IS NULL) AS valid FROM usage_checkpoints;
SELECT 'T0' AS as_of, * FROM pg_temp.ck_reports('2024-07-01 00:00+00') ORDER BY 2, 3;
SELECT 'T0 + 10 min' AS as_of, * FROM pg_temp.ck_reports('2024-07-01 00:10+00') ORDER BY 2, 3;
SELECT 'T0 + 2 days' AS as_of, * FROM pg_temp.ck_reports('2024-07-03 00:00+00') ORDER BY 2, 3;
-- one cluster from the jobs alone (its checkpoint invalid), the others from theirs
UPDATE usage_checkpoints SET invalidated_at = now(), invalidated_by = 'test' WHERE cluster = 'cks';
SELECT 'cks invalid' AS as_of, * FROM pg_temp.ck_reports('2024-07-01 00:10+00') ORDER BY 2, 3;
-- a checkpoint at a step boundary (midnight, with 6-hour steps), read 5 steps later
CALL checkpoint_usage('ckp', '2024-07-01 00:00+00');
SELECT 'ckp, T0 + 30 h' AS as_of, * FROM pg_temp.ck_reports('2024-07-02 06:00+00') WHERE cluster = 'ckp' ORDER BY 2, 3;

-- ---------------------------------------------------------------------------
-- 4. Invalidation.  Each case starts from a valid checkpoint of ck at T0 =
--    2024-06-10 00:00 and says whether the change invalidated it.
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.ck_after(change text) RETURNS TABLE (what text, valid boolean, invalidated_by text)
LANGUAGE plpgsql AS $$
BEGIN
    -- every case from the same jobs: the change is rolled back after
    BEGIN
        -- that checkpoint alone (the earlier sections left others of ck)
        DELETE FROM fairshare.usage_checkpoints k WHERE k.cluster = 'ck';
        CALL fairshare.checkpoint_usage('ck', '2024-06-10 00:00+00');
        EXECUTE ck_after.change;
        SELECT k.invalidated_at IS NULL, k.invalidated_by INTO valid, invalidated_by
          FROM fairshare.usage_checkpoints k WHERE k.cluster IN ('ck', 'ck2');
        RAISE SQLSTATE 'XC001';
    EXCEPTION WHEN SQLSTATE 'XC001' THEN
        NULL;
    END;
    what := regexp_replace(ck_after.change, '\s+', ' ', 'g');
    RETURN NEXT;
END $$;
-- the normal life of a cluster: nothing before T0 changes
SELECT * FROM pg_temp.ck_after($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, cpus)
                                 VALUES ('ck', '10', 'cid', 'a', 'p', 'RUNNING', '2024-06-10 04:00+00', '2024-06-10 05:00+00', 1)$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET end_time = '2024-06-10 03:00+00', state = 'COMPLETED' WHERE cluster = 'ck' AND job_id = '4'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET end_time = '2024-06-10 02:00+00' WHERE cluster = 'ck' AND job_id = '2'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET state = 'FAILED' WHERE cluster = 'ck' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET tres = 'cpu=8', cpus = 8 WHERE cluster = 'ck' AND job_id = '3'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET start_time = '2024-06-10 00:10+00' WHERE cluster = 'ck' AND job_id = '3'$$);
SELECT * FROM pg_temp.ck_after($$DELETE FROM fairshare.jobs WHERE cluster = 'ck' AND job_id = '4'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.partitions SET priority_job_factor = 7 WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.clusters SET weight_fairshare = 1000 WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$INSERT INTO fairshare.qos (cluster, qos, priority) VALUES ('ck', 'plain', 5)$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.account_users SET shares = 3 WHERE cluster = 'ck' AND user_name = 'ann'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.accounts SET shares = 3 WHERE cluster = 'ck' AND account = 'a'$$);
-- another cluster's changes leave ck's checkpoint alone
SELECT * FROM pg_temp.ck_after($$DELETE FROM fairshare.jobs WHERE cluster = 'ckx' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.partitions SET billing_weights = 'CPU=3' WHERE cluster = 'ckx'$$);
-- changes to what the checkpoint holds: a job that started by T0 added,
-- removed, or changed in its start, its end before T0, its billing or its
-- association
SELECT * FROM pg_temp.ck_after($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
                                 VALUES ('ck', '11', 'cid', 'a', 'p', 'COMPLETED', '2024-06-09 04:00+00', '2024-06-09 05:00+00', '2024-06-09 06:00+00', 1)$$);
SELECT * FROM pg_temp.ck_after($$INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, cpus)
                                 VALUES ('ck', '12', 'cid', 'a', 'p', 'RUNNING', '2024-06-09 04:00+00', '2024-06-09 05:00+00', 1)$$);
SELECT * FROM pg_temp.ck_after($$DELETE FROM fairshare.jobs WHERE cluster = 'ck' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET end_time = '2024-06-09 14:30+00' WHERE cluster = 'ck' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET end_time = '2024-06-09 23:30+00' WHERE cluster = 'ck' AND job_id = '2'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET start_time = '2024-06-09 14:30+00' WHERE cluster = 'ck' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET start_time = '2024-06-09 23:30+00' WHERE cluster = 'ck' AND job_id = '3'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET tres = 'cpu=2' WHERE cluster = 'ck' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET cpus = 3 WHERE cluster = 'ck' AND job_id = '2'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET user_name = 'cid' WHERE cluster = 'ck' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET qos = 'plain' WHERE cluster = 'ck' AND job_id = '2'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.jobs SET job_id = '100' WHERE cluster = 'ck' AND job_id = '1'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.accounts SET account = 'a2' WHERE cluster = 'ck' AND account = 'a'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.account_users SET user_name = 'ann2' WHERE cluster = 'ck' AND user_name = 'ann'$$);
SELECT * FROM pg_temp.ck_after($$TRUNCATE fairshare.jobs$$);
-- the settings it was computed with
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.partitions SET billing_weights = 'CPU=2' WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.partitions SET billing_mode = 'max_tres' WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.partitions SET partition = 'q' WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$INSERT INTO fairshare.qos (cluster, qos, usage_factor) VALUES ('ck', 'dear', 3)$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.qos SET usage_factor = 2 WHERE cluster = 'ck' AND qos = 'low'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.qos SET priority = 6 WHERE cluster = 'ck' AND qos = 'low'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.qos SET qos = 'cheap' WHERE cluster = 'ck' AND qos = 'low'$$);
SELECT * FROM pg_temp.ck_after($$DELETE FROM fairshare.qos WHERE cluster = 'ck' AND qos = 'low'$$);
SELECT * FROM pg_temp.ck_after($$DELETE FROM fairshare.qos WHERE cluster = 'ck' AND qos = 'neutral'$$);
SELECT * FROM pg_temp.ck_after($$TRUNCATE fairshare.qos$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.clusters SET decay_half_life = '2 days' WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.clusters SET decay_half_life = '24 hours' WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.clusters SET decay_mode = 'exact' WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.clusters SET decay_interval = '12 hours' WHERE cluster = 'ck'$$);
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.clusters SET decay_factor = 0.25 WHERE cluster = 'ck'$$);
-- renaming the cluster carries the checkpoint along (ck2), and the rename
-- cascades into its QOS and its jobs: invalid
SELECT * FROM pg_temp.ck_after($$UPDATE fairshare.clusters SET cluster = 'ck2' WHERE cluster = 'ck'$$);
-- a deleted cluster takes its checkpoint along
BEGIN;
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
DELETE FROM jobs WHERE cluster = 'ck';
DELETE FROM clusters WHERE cluster = 'ck';
SELECT count(*) AS checkpoints_of_ck FROM usage_checkpoints WHERE cluster = 'ck';
SELECT count(*) AS checkpoint_rows_of_ck FROM usage_checkpoint_rows WHERE cluster = 'ck';
ROLLBACK;
-- The rows follow their checkpoint by triggers, not a foreign key
-- (_checkpoint_rows_follow, docs/design.md#usage-checkpoints): renamed
-- with it (the cluster's rename cascades into usage_checkpoints), deleted
-- with it, truncated with it.  Every row of ck's checkpoints moves to ck3.
BEGIN;
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
SELECT as_of, count(*) AS rows_of_ck FROM usage_checkpoint_rows WHERE cluster = 'ck' GROUP BY 1 ORDER BY 1;
UPDATE clusters SET cluster = 'ck3' WHERE cluster = 'ck';
SELECT cluster, as_of, count(*) AS rows_renamed FROM usage_checkpoint_rows WHERE cluster IN ('ck', 'ck3')
 GROUP BY 1, 2 ORDER BY 1, 2;
UPDATE clusters SET cluster = 'ck' WHERE cluster = 'ck3';
DELETE FROM usage_checkpoints WHERE cluster = 'ck';
SELECT count(*) AS rows_after_delete FROM usage_checkpoint_rows WHERE cluster = 'ck';
-- a row without its checkpoint (written by hand: nothing holds it to one)
-- is not read with a checkpoint made later at its instant: checkpoint_usage
-- deletes it first.  cid's stray row (7 jobs) is gone: the rows are the
-- usage from every job, cid with its 1 job.
INSERT INTO usage_checkpoint_rows (cluster, as_of, account, user_name, raw_usage, jobs)
VALUES ('ck', '2024-06-10 00:00+00', 'a', 'cid', 1e9, 7);
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
SELECT user_name, jobs FROM usage_checkpoint_rows WHERE cluster = 'ck' ORDER BY 1;
SELECT count(*) AS rows_differing_from_the_jobs
  FROM (SELECT account, user_name, raw_usage, jobs FROM usage_checkpoint_rows WHERE cluster = 'ck'
        EXCEPT ALL
        SELECT account, user_name, raw_usage, jobs FROM fairshare_internal._association_usage('2024-06-10 00:00+00', true, 'ck')) d;
TRUNCATE usage_checkpoints CASCADE;
SELECT (SELECT count(*) FROM usage_checkpoint_rows) AS rows_after_truncate,
       (SELECT count(*) FROM usage_checkpoint_factor_rows) AS factor_rows_after_truncate;
ROLLBACK;

-- An invalid checkpoint is not used, and the answers are those of the jobs:
-- as in section 1 (decay off again), after a job before T0 grew from 2 to 4
-- CPUs: ann 4 × 3600 + 7200 = 21600 as of T
UPDATE clusters SET decay_mode = 'exact', decay_half_life = '0' WHERE cluster = 'ck';
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
UPDATE jobs SET cpus = 4 WHERE cluster = 'ck' AND job_id = '1';
SELECT invalidated_at IS NULL AS valid, invalidated_by FROM usage_checkpoints WHERE cluster = 'ck';
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-11 00:00+00') WHERE cluster = 'ck' AND user_name = 'ann';
-- checkpoint_usage replaces it: valid again, same answer
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
SELECT count(*) AS checkpoints_of_ck, bool_and(invalidated_at IS NULL) AS valid FROM usage_checkpoints WHERE cluster = 'ck';
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-11 00:00+00') WHERE cluster = 'ck' AND user_name = 'ann';

-- ---------------------------------------------------------------------------
-- 5. Bad input: a clear error for each
-- ---------------------------------------------------------------------------
SELECT err($$CALL checkpoint_usage('ck', NULL)$$);                     -- 22004
SELECT err($$CALL checkpoint_usage('ck', 'infinity')$$);               -- 22008
SELECT regexp_replace(err($$CALL checkpoint_usage('ck', now() + interval '1 hour')$$), 'as_of .* is', 'as_of (now + 1 h) is');  -- 22023
SELECT err($$CALL checkpoint_usage('nowhere')$$);                      -- 22023
-- under REPEATABLE READ its snapshot could predate its lock: refused
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT err($$CALL checkpoint_usage('ck')$$);                           -- 25000
ROLLBACK;
SELECT err($$CALL checkpoint_usage('')$$);                             -- 22023

SELECT err($$CALL checkpoint_usage('ck', keep_recent => 0)$$);        -- 22023
SELECT err($$CALL checkpoint_usage('ck', keep_days => -1)$$);          -- 22023
SELECT err($$CALL checkpoint_usage('ck', from_jobs => NULL)$$);        -- 22004

-- ---------------------------------------------------------------------------
-- 6. Chains.  Cluster ck as in section 1 (no decay, ann 2 jobs,
--    bob 2 jobs; ann's job 1 back to 2 CPUs).  A checkpoint is computed
--    from the newest valid one before it plus the jobs since; a change that
--    invalidates the newest falls back to an older one; pruning keeps
--    keep_recent newest and one per day of the last keep_days; a pinned
--    checkpoint refuses changes to what it holds.
-- ---------------------------------------------------------------------------
UPDATE jobs SET cpus = 2 WHERE cluster = 'ck' AND job_id = '1';
DELETE FROM usage_checkpoints WHERE cluster = 'ck';
-- T0 from the jobs; T1 = T0 + 1 h from T0; T2 = T0 + 3 h from T1
CALL checkpoint_usage('ck', '2024-06-10 00:00+00');
CALL checkpoint_usage('ck', '2024-06-10 01:00+00');
CALL checkpoint_usage('ck', '2024-06-10 03:00+00');
-- as of T0: ann 7200 + 3600 = 10800; as of T1: ann 10800 + 3600 = 14400
-- (job 2 ended at 01:00), bob 1800 (half of job 3); as of T2: ann 14400,
-- bob 3600 (job 3) + 4 × 3600 (job 4, 02:00-03:00) = 18000; cid 129600
-- throughout (the job the earlier sections gave it, before T0)
-- T1 is sparse (docs/design.md#sparse-checkpoints): its base is T0, and it
-- holds rows only for ann and bob, who ran after T0; cid's is T0's row
-- times the decay from T0 to T1 (1: no decay).  T2 is full: T1's own rows
-- (2) are not fewer than half of its base's (2).
SELECT as_of, computed_from, base, base_decay, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
SELECT as_of, user_name, raw_usage, jobs FROM usage_checkpoint_rows WHERE cluster = 'ck' ORDER BY as_of, user_name;
-- what the readers read of T1: cid's row from T0
SELECT as_of, user_name, raw_usage, jobs
  FROM fairshare_internal._checkpoint_rows('{ck}', '{2024-06-10 01:00+00}') ORDER BY user_name;
-- the chain gives what the jobs alone give, as of T2 + 21 h:
-- bob 3600 + 4 × 22 × 3600 = 320400
SELECT user_name, raw_usage, jobs FROM association_usage_at('2024-06-11 00:00+00') WHERE cluster = 'ck' ORDER BY 1;
-- a job of cid started at 02:00 (1 CPU, 1 h) comes late: T2 is invalid,
-- T0 and T1 still hold (it started after them); the next checkpoint at T2
-- is computed from T1, and cid's 3600 is in it: 129600 + 3600 = 133200
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('ck', '5', 'cid', 'a', 'p', 'COMPLETED', '2024-06-10 01:55+00', '2024-06-10 02:00+00', '2024-06-10 03:00+00', 1);
SELECT as_of, invalidated_at IS NULL AS valid, invalidated_by FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
SELECT user_name, raw_usage FROM association_usage_at('2024-06-10 03:00+00') WHERE cluster = 'ck' ORDER BY 1;
CALL checkpoint_usage('ck', '2024-06-10 03:00+00');
SELECT as_of, computed_from, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
SELECT user_name, raw_usage, jobs FROM usage_checkpoint_rows WHERE cluster = 'ck' AND as_of = '2024-06-10 03:00+00' ORDER BY 1;
-- pruning: keep the newest 2, and one per day of the last 2 days (the
-- checkpoint of the 9th at 23:00 is the newest of its day: kept; the
-- 10th's is the newest 2 already)
CALL checkpoint_usage('ck', '2024-06-09 23:00+00');
CALL checkpoint_usage('ck', '2024-06-10 04:00+00', keep_recent => 2, keep_days => 2);
SELECT as_of, computed_from FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
-- an invalid checkpoint goes at the next run, whatever it keeps
UPDATE jobs SET cpus = 3 WHERE cluster = 'ck' AND job_id = '1';
SELECT as_of, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
CALL checkpoint_usage('ck', '2024-06-10 05:00+00', keep_recent => 2, keep_days => 2);
SELECT as_of, computed_from FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
-- from the jobs alone, on demand (computed_from NULL)
CALL checkpoint_usage('ck', '2024-06-10 05:00+00', from_jobs => true);
SELECT as_of, computed_from FROM usage_checkpoints WHERE cluster = 'ck' AND as_of = '2024-06-10 05:00+00';
-- pinned (what retention relies on): a change to a job started before it,
-- or to the billing, is refused, and nothing is invalidated
UPDATE usage_checkpoints SET pinned = true WHERE cluster = 'ck' AND as_of = '2024-06-10 05:00+00';
SELECT err($$UPDATE jobs SET cpus = 5 WHERE cluster = 'ck' AND job_id = '1'$$);     -- 55000
SELECT err($$UPDATE partitions SET billing_weights = 'CPU=2' WHERE cluster = 'ck'$$); -- 55000
-- a job started after it changes freely
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('ck', '6', 'cid', 'a', 'p', 'COMPLETED', '2024-06-10 06:00+00', '2024-06-10 06:00+00', '2024-06-10 07:00+00', 1);
SELECT as_of, pinned, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
-- a pinned checkpoint is never pruned
CALL checkpoint_usage('ck', '2024-06-10 08:00+00', keep_recent => 1, keep_days => 0);
SELECT as_of, pinned FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
-- invalidate_usage_checkpoints: what a write no trigger sees needs (a
-- user's own write to jobs on Citus, docs/citus.md#usage-checkpoints-and-retention-on-citus).
-- Its arguments checked; a pinned checkpoint among those it would mark
-- (05:00, every one of ck's) refuses, and nothing is marked
SELECT err($$SELECT invalidate_usage_checkpoints('nosuch')$$);             -- 22023
SELECT err($$SELECT invalidate_usage_checkpoints('ck', 'infinity')$$);     -- 22023
SELECT err($$SELECT invalidate_usage_checkpoints('ck')$$);                 -- 55000
SELECT err($$SELECT invalidate_usage_checkpoints(NULL, '2024-06-10 05:00+00')$$);  -- 55000
SELECT as_of, pinned, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
-- those after the pinned one: 08:00 alone (05:00 is before the instant)
SELECT invalidate_usage_checkpoints('ck', '2024-06-10 05:00:01+00') AS marked;   -- 1
SELECT as_of, pinned, invalidated_at IS NULL AS valid, invalidated_by FROM usage_checkpoints WHERE cluster = 'ck' ORDER BY as_of;
-- again: nothing valid left to mark
SELECT invalidate_usage_checkpoints('ck', '2024-06-10 05:00:01+00') AS marked;   -- 0
UPDATE usage_checkpoints SET pinned = false WHERE cluster = 'ck';

-- ---------------------------------------------------------------------------
-- 7. Sparse checkpoints (docs/design.md#sparse-checkpoints).  Cluster cksp,
--    decay 'exact' with a half-life of 1 day, users u1 .. u6 of account a,
--    each with one 1-CPU job of an hour on 1 June 2024 (u1 from 00:00, u2
--    from 01:00, ..., u6 from 05:00), then u1 and u2 again on 2 June.
--    A full checkpoint F at 2 June 00:00; chained ones S1 at 2 June 01:00
--    (u1 ran since F: 00:00-01:00) and S2 at 2 June 03:00 (u2 too,
--    02:00-03:00) stand on F and hold only u1, then u1 and u2.
-- ---------------------------------------------------------------------------
INSERT INTO clusters (cluster, decay_half_life) VALUES ('cksp', '1 day');
INSERT INTO partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('cksp', 'p', 8, 16384);
INSERT INTO accounts (cluster, account, parent_account, shares) VALUES ('cksp', 'root', NULL, 1), ('cksp', 'a', 'root', 1);
INSERT INTO account_users (cluster, account, user_name)
SELECT 'cksp', 'a', 'u' || i FROM generate_series(1, 6) i;
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
SELECT 'cksp', i::text, 'u' || i, 'a', 'p', 'COMPLETED', t, t, t + interval '1 hour', 1
  FROM generate_series(1, 6) i, LATERAL (SELECT '2024-06-01 00:00+00'::timestamptz + (i - 1) * interval '1 hour' AS t) x;
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('cksp', '7', 'u1', 'a', 'p', 'COMPLETED', '2024-06-02 00:00+00', '2024-06-02 00:00+00', '2024-06-02 01:00+00', 1),
  ('cksp', '8', 'u2', 'a', 'p', 'COMPLETED', '2024-06-02 02:00+00', '2024-06-02 02:00+00', '2024-06-02 03:00+00', 1);
CALL checkpoint_usage('cksp', '2024-06-02 00:00+00', keep_days => 0, keep_recent => 10);
CALL checkpoint_usage('cksp', '2024-06-02 01:00+00', keep_days => 0, keep_recent => 10);
CALL checkpoint_usage('cksp', '2024-06-02 03:00+00', keep_days => 0, keep_recent => 10);
-- base_decay: 2^(-1/24) = 0.971531941153606 (S1), 2^(-3/24) = 0.917004043204671 (S2)
SELECT as_of, computed_from, base, base_decay, invalidated_at IS NULL AS valid
  FROM usage_checkpoints WHERE cluster = 'cksp' ORDER BY as_of;
SELECT as_of, count(*) AS own_rows, string_agg(user_name, ',' ORDER BY user_name) AS users
  FROM usage_checkpoint_rows WHERE cluster = 'cksp' GROUP BY 1 ORDER BY 1;
-- Every report as of any instant from the sparse chain equals the jobs
-- alone (the checkpoints set aside by making them invalid, rolled back)
-- to 1e-12 relative: association_usage_at at each checkpoint and a day
-- later, and sshare_at's columns.
CREATE TEMP TABLE cksp_at AS
SELECT t, u.user_name, u.raw_usage, u.jobs
  FROM unnest('{2024-06-02 00:00+00,2024-06-02 01:00+00,2024-06-02 03:00+00,2024-06-03 03:00+00}'::timestamptz[]) t,
       LATERAL association_usage_at(t) u WHERE u.cluster = 'cksp';
CREATE TEMP TABLE cksp_sshare AS
SELECT s.* FROM sshare_at('2024-06-03 03:00+00') s WHERE s.cluster = 'cksp';
BEGIN;
UPDATE usage_checkpoints SET invalidated_at = now(), invalidated_by = 'test' WHERE cluster = 'cksp';
SELECT count(*) AS usage_rows,
       count(*) FILTER (WHERE abs(a.raw_usage - u.raw_usage) > 1e-12 * greatest(abs(u.raw_usage), 1)
                               OR a.jobs <> u.jobs) AS differ
  FROM cksp_at a
  JOIN LATERAL association_usage_at(a.t) u ON u.cluster = 'cksp' AND u.user_name = a.user_name;
SELECT count(*) AS sshare_rows,
       count(*) FILTER (WHERE abs(a.raw_usage - s.raw_usage) > 1e-12 * greatest(abs(s.raw_usage), 1)
                               OR abs(a.effectv_usage - s.effectv_usage) > 1e-12
                               OR abs(a.fairshare - s.fairshare) > 1e-12) AS differ
  FROM cksp_sshare a
  JOIN sshare_at('2024-06-03 03:00+00') s ON s.cluster = a.cluster AND s.account = a.account
       AND s.user_name IS NOT DISTINCT FROM a.user_name;
ROLLBACK;
-- u3's usage as of S2, from F's row decayed: 3600 × 2^(-(24-3)/24) × 2^(-3/24)...
-- u3 ran 02:00-03:00 on 1 June; as of 2 June 03:00 its hour is 24 to 25 h old:
-- 3600 × ∫ 2^(-x/24) over [24, 25] h / 1 h = 3600 × 24/ln2 × (2^-1 - 2^(-25/24)) / 1 h
SELECT user_name, round(raw_usage::numeric, 6) AS raw_usage,
       round((3600 * 24 / ln(2) * (2 ^ (-1::float8) - 2 ^ (-25 / 24::float8)))::numeric, 6) AS by_hand
  FROM association_usage_at('2024-06-02 03:00+00') WHERE cluster = 'cksp' AND user_name = 'u3';
-- Pruning keeps a sparse checkpoint's base: with keep_recent 1 a
-- checkpoint at 04:00 (sparse on F) stays, S1 and S2 go, F stays
CALL checkpoint_usage('cksp', '2024-06-02 04:00+00', keep_days => 0, keep_recent => 1);
SELECT as_of, base FROM usage_checkpoints WHERE cluster = 'cksp' ORDER BY as_of;
-- Deleting a base makes the checkpoints on it full first: 04:00 gets
-- u3 .. u6 from F, decayed (nothing of the usage is lost)
SELECT user_name, raw_usage FROM association_usage_at('2024-06-02 05:00+00') WHERE cluster = 'cksp' ORDER BY 1;
DELETE FROM usage_checkpoints WHERE cluster = 'cksp' AND as_of = '2024-06-02 00:00+00';
SELECT as_of, base, base_decay FROM usage_checkpoints WHERE cluster = 'cksp' ORDER BY as_of;
SELECT as_of, count(*) AS own_rows FROM usage_checkpoint_rows WHERE cluster = 'cksp' GROUP BY 1 ORDER BY 1;
SELECT user_name, raw_usage FROM association_usage_at('2024-06-02 05:00+00') WHERE cluster = 'cksp' ORDER BY 1;
-- Replacing a base (a checkpoint again at its instant) makes those on it
-- full too: 05:00 and 06:00 on 04:00, then 04:00 again
CALL checkpoint_usage('cksp', '2024-06-02 05:00+00', keep_days => 0, keep_recent => 10);
CALL checkpoint_usage('cksp', '2024-06-02 06:00+00', keep_days => 0, keep_recent => 10);
SELECT as_of, base FROM usage_checkpoints WHERE cluster = 'cksp' ORDER BY as_of;
CALL checkpoint_usage('cksp', '2024-06-02 04:00+00', keep_days => 0, keep_recent => 10);
SELECT as_of, base, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'cksp' ORDER BY as_of;
SELECT as_of, count(*) AS own_rows FROM usage_checkpoint_rows WHERE cluster = 'cksp' GROUP BY 1 ORDER BY 1;
SELECT user_name, raw_usage FROM association_usage_at('2024-06-02 07:00+00') WHERE cluster = 'cksp' ORDER BY 1;
-- A write that invalidates a base invalidates what stands on it: a job
-- of u4 inserted at 1 June 10:00 invalidates every checkpoint after it
CALL checkpoint_usage('cksp', '2024-06-02 06:30+00', keep_days => 0, keep_recent => 10);
SELECT as_of, base FROM usage_checkpoints WHERE cluster = 'cksp' ORDER BY as_of;
INSERT INTO jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('cksp', '9', 'u4', 'a', 'p', 'COMPLETED', '2024-06-01 10:00+00', '2024-06-01 10:00+00', '2024-06-01 11:00+00', 1);
SELECT as_of, base, invalidated_at IS NULL AS valid FROM usage_checkpoints WHERE cluster = 'cksp' ORDER BY as_of;
-- A usage reset between the checkpoint chained from and the new one: the
-- new one is full (the usage does not chain across a reset)
UPDATE clusters SET usage_reset_period = 'DAILY' WHERE cluster = 'cksp';
CALL checkpoint_usage('cksp', '2024-06-02 23:00+00', keep_days => 0, keep_recent => 10);
CALL checkpoint_usage('cksp', '2024-06-02 23:30+00', keep_days => 0, keep_recent => 10);
CALL checkpoint_usage('cksp', '2024-06-03 00:30+00', keep_days => 0, keep_recent => 10);
SELECT as_of, base FROM usage_checkpoints WHERE cluster = 'cksp' AND invalidated_at IS NULL ORDER BY as_of;
UPDATE clusters SET usage_reset_period = 'NONE' WHERE cluster = 'cksp';
-- Decay by slurmctld's passes: always full
UPDATE clusters SET decay_mode = 'slurm_passes', priority_calc_period = '5 minutes' WHERE cluster = 'cksp';
CALL checkpoint_usage('cksp', '2024-06-02 04:00+00', keep_days => 0, keep_recent => 10);
CALL checkpoint_usage('cksp', '2024-06-02 05:00+00', keep_days => 0, keep_recent => 10);
SELECT as_of, base FROM usage_checkpoints WHERE cluster = 'cksp' AND invalidated_at IS NULL ORDER BY as_of;

DELETE FROM jobs WHERE cluster IN ('ck', 'ckx', 'cks', 'ckp', 'cksp');
DELETE FROM clusters WHERE cluster IN ('ck', 'ckx', 'cks', 'ckp', 'cksp');
SELECT count(*) AS checkpoints_left FROM usage_checkpoints;
SELECT count(*) AS checkpoint_rows_left FROM usage_checkpoint_rows;
