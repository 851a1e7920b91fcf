-- Every public pure (IMMUTABLE) function a query can call once per row,
-- each against the same arithmetic written as a plain SQL expression over
-- the same rows, interleaved in the same run, serial (no parallel workers
-- on either side).  Each query sums (or counts, or ranks) so that every
-- row's value is computed and nothing is sent.  Target
-- (docs/performance.md#the-per-row-functions): each within 2x of its
-- expression.
--
-- Rows: :rows / 10 (10^6 at BENCH_SCALE=1, 10^5 at 0.1, 10^4 at 0.01; at
-- least 10^4).  Before any timing each expression is checked against its
-- function in every row (the aggregates: the totals, to 1e-9 relative,
-- since a sum in another order rounds otherwise), and the benchmark stops
-- at the first that differs.  A case without such a check says why in its
-- baseline's name (PBS's recurrence against the step decay's sum, the tree
-- functions against rank()); the text parsers' baselines read the same text
-- with substring() or regexp_match() for the shape these rows have, and are
-- checked.
--
-- The tables, one per kind of row so that each scan reads narrow rows:
--   per_row      GENCI-like allocations of one year starting on the 1st of
--                a month (2025-10 .. 2026-09) judged on a day after
--                2025-10-01 (a 15th in one row of four, the day of the
--                mid-term alert or check in one of eight), consumption up
--                to 1.5 x the theoretical; the RWTH months of the same rows
--                (the first month of a period has no previous month, the
--                last no next)
--   per_row_decay  a usage, an instant and a span over two years, an
--                eligible time (NULL in one row of ten, after the instant
--                judged in one of ten) for the decays and the age factor
--   per_row_tree a tree of 1 root, an account per 100 of its rows, the rest
--                users (Fair Tree and PBS)
--   per_row_job  a job: Slurm priority factors and counts, MetaCentrum
--                resources on a node, RWTH core-hours, an sacct TRES string
--   per_row_text slurm.conf node lines, a cluster per row
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT greatest(:rows / 10, 10000) AS n \gset
SELECT CASE WHEN :n = 10 ^ round(log(:n)) THEN '10^' || round(log(:n)) ELSE :n::text END || ' rows' AS label \gset
DROP TABLE IF EXISTS bench.per_row, bench.per_row_rwth, bench.per_row_decay, bench.per_row_tree, bench.per_row_job, bench.per_row_text;
DO $$ BEGIN PERFORM setseed(0.25); END $$;
CREATE UNLOGGED TABLE bench.per_row AS
SELECT i,
       (1 + floor(random() * 1000)) * 3650::float8 AS allocation,
       ps AS period_start, (ps + interval '1 year')::date - 1 AS period_end, as_of,
       random() * 1.5 * (1 + floor(random() * 1000)) * 3650 * greatest(as_of - ps, 0) / 365 AS consumed,
       CASE WHEN i % 24 <> 0 THEN 50000::float8 END AS allowance_prev, 50000::float8 AS allowance_cur,
       CASE WHEN i % 24 <> 23 THEN 50000::float8 END AS allowance_next,
       (random() * 80000)::float8 AS consumed_prev, (random() * 80000)::float8 AS consumed_cur,
       600000::float8 AS allowance_total, (random() * 1400000)::float8 AS consumed_total
  FROM generate_series(1, :n) i
 CROSS JOIN LATERAL (SELECT ('2025-10-01'::date + make_interval(months => i % 12))::date AS ps) p
 CROSS JOIN LATERAL (SELECT CASE WHEN i % 4 = 0
                                 THEN ('2025-10-15'::date + make_interval(months => (i / 4) % 12))::date
                                 WHEN i % 8 = 1
                                 THEN (ps + make_interval(months => 4 + (i / 8) % 2))::date
                                 ELSE '2025-10-01'::date + (i::bigint * 7919 % 365)::int END AS as_of) d;
CREATE UNLOGGED TABLE bench.per_row_decay AS
SELECT i, (random() * 1000)::float8 AS usage, at, at AS started,
       at + random() * interval '3 days' AS ended,
       CASE WHEN i % 10 = 0 THEN NULL
            WHEN i % 10 = 1 THEN timestamptz '2026-01-01' + random() * interval '1 day'
            ELSE timestamptz '2026-01-01' - random() * interval '14 days' END AS eligible
  FROM generate_series(1, :n) i
 CROSS JOIN LATERAL (SELECT '2024-01-01 00:00+00'::timestamptz + random() * interval '731 days' AS at) a;
CREATE UNLOGGED TABLE bench.per_row_tree AS
SELECT i,
       CASE WHEN i = 1 THEN 'root' WHEN i <= 1 + :n / 100 THEN 'a' || i ELSE 'u' || i END AS id,
       CASE WHEN i = 1 THEN NULL WHEN i <= 1 + :n / 100 THEN 'root' ELSE 'a' || (2 + i % (:n / 100)) END AS parent_id,
       (1 + i % 100)::float8 AS shares, (random() * 1000)::float8 AS usage, i > 1 + :n / 100 AS is_user
  FROM generate_series(1, :n) i;
CREATE UNLOGGED TABLE bench.per_row_job AS
SELECT i,
       random() AS fs, random() AS age, random() AS js, random() AS part, random() AS qos,
       (i % 7 - 3)::bigint AS nice,
       nodes::bigint AS nodes, (CASE WHEN i % 50 = 0 THEN 0 ELSE nodes * (1 + i % 48) END)::bigint AS cpus,
       (i % 11)::bigint AS pjf, 10::bigint AS max_pjf, (i % 5 * 100)::bigint AS qos_prio, 400::bigint AS max_qos,
       -- MetaCentrum: a job on nodes of 64 CPUs, 512 GB, 1 TB scratch, 4 GPUs (none on one node of four)
       (nodes * (1 + i % 64))::float8 AS pe_cpus, (nodes * floor(random() * 524288))::float8 AS pe_mem,
       (nodes * floor(random() * 1048576))::float8 AS pe_scratch,
       CASE WHEN i % 4 = 0 THEN 0 ELSE nodes * (i % 5) END::float8 AS pe_gpus,
       CASE WHEN i % 4 = 0 THEN 0 ELSE 4 END::float8 AS node_gpus,
       random() * interval '2 days' AS walltime, (3 + i % 8)::float8 AS spec,
       -- RWTH: cores, start and end, exclusive in one job of five, GPUs in one of three
       (1 + i % 96)::int AS ch_cpus, started, started + random() * interval '2 days' AS ended,
       i % 5 = 0 AS exclusive, nodes AS ch_nodes, 96 AS cores_per_node,
       CASE WHEN i % 3 = 0 THEN i % 5 ELSE 0 END AS ch_gpus,
       (i % 12)::float8 AS publications, 1.1::float8 AS pub_factor,
       (random() * 1e9)::bigint AS secs, 2000000000::bigint AS total,
       format('cpu=%s,mem=%s,node=%s,billing=%s%s', nodes * (1 + i % 48),
              CASE WHEN i % 2 = 0 THEN (nodes * (1 + i % 256)) || 'G' ELSE (nodes * (1 + i % 256) * 1024) || 'M' END,
              nodes, nodes * (1 + i % 48), CASE WHEN i % 3 = 0 THEN ',gres/gpu=' || (i % 5) ELSE '' END) AS tres,
       'CPU=1.0,Mem=0.25G,GRES/gpu=2.0'::text AS weights
  FROM generate_series(1, :n) i
 CROSS JOIN LATERAL (SELECT 1 + (i / 7) % 4 AS nodes,
                            '2025-01-01 00:00+00'::timestamptz + random() * interval '365 days' AS started) j;
-- slurm.conf as a site writes it: a NodeName line with a host range, CPUs
-- and the rest, and a PartitionName line (which the size ignores)
CREATE UNLOGGED TABLE bench.per_row_text AS
SELECT i, format(E'NodeName=n[%s-%s] CPUs=%s RealMemory=192000 State=UNKNOWN\nPartitionName=batch Nodes=ALL Default=YES',
                 lpad('1', 4, '0'), lpad((1 + i % 2000)::text, 4, '0'), 16 * (1 + i % 8)) AS nodes
  FROM generate_series(1, :n) i;
VACUUM ANALYZE bench.per_row, bench.per_row_decay, bench.per_row_tree, bench.per_row_job, bench.per_row_text;

-- The cases: the function's expression and its baseline, over one table.
--   kind sum     sum(expression) (a float8)
--        count   count(expression) (a row, a text, a boolean, an instant)
--        agg     the expressions are aggregates
--        window  the expressions are window functions, summed
--   check exact  no row where the two differ (IS DISTINCT FROM)
--         total  the two aggregates equal to 1e-9 relative
--         none   no check: the baseline is not the same rule (its name says so)
DROP TABLE IF EXISTS bench.per_row_cases;
CREATE TABLE bench.per_row_cases (
    seq serial, name text, tab text, fn text, baseline text, base text,
    kind text DEFAULT 'sum', chk text DEFAULT 'exact', base_from text);

-- GENCI and RWTH: one-year periods (12 months) starting on the 1st; the
-- expressions are the rules of docs/policies.md#genci-monthly-regulation
-- for such periods.  E (the days before as_of) and the theoretical
-- consumption are named once in a LATERAL subquery, which PostgreSQL
-- flattens into the expression.
INSERT INTO bench.per_row_cases (name, tab, fn, baseline, base, kind, base_from) VALUES
('theoretical_consumption', 'bench.per_row',
 'fairshare.theoretical_consumption(allocation, period_start, period_end, as_of)',
 'CASE … A × E / D END',
 $$CASE WHEN as_of <= period_start THEN 0 WHEN as_of > period_end THEN allocation
        ELSE allocation * (as_of - period_start) / (period_end - period_start + 1) END$$, 'sum', NULL),
('genci_penalty', 'bench.per_row',
 'fairshare.genci_penalty(allocation, consumed, period_start, period_end, as_of)',
 'the 15th, month 3 or later, ratio > 2: A / 12',
 $$CASE WHEN extract(day FROM as_of) = 15 AND as_of >= period_start + interval '2 months'
             AND as_of <= period_end
             AND (CASE WHEN as_of <= period_start THEN 0
                       ELSE allocation * (as_of - period_start) / (period_end - period_start + 1) END
                  - consumed) / (allocation / 12) > 2
        THEN allocation / 12 ELSE 0 END$$, 'sum', NULL),
('genci_period_months', 'bench.per_row',
 'fairshare.genci_period_months(period_start, period_end)',
 'n months if start + n months = end + 1, else days × 12 / 365.25',
 $$CASE WHEN (period_start + make_interval(months => m))::date = period_end + 1 THEN m::float8
        ELSE (period_end + 1 - period_start) * 12 / 365.25::float8 END$$, 'sum',
 $$bench.per_row CROSS JOIN LATERAL
   (SELECT ((date_part('year', period_end + 1) - date_part('year', period_start)) * 12
            + date_part('month', period_end + 1) - date_part('month', period_start))::int AS m) x$$),
('genci_allocation_month', 'bench.per_row',
 'fairshare.genci_allocation_month(period_start, as_of)',
 'months from start to as_of, less 1 before the start day, + 1',
 $$CASE WHEN as_of < period_start THEN 0
        ELSE m + 1 - ((period_start + make_interval(months => m))::date > as_of)::int END$$, 'sum',
 $$bench.per_row CROSS JOIN LATERAL
   (SELECT ((date_part('year', as_of) - date_part('year', period_start)) * 12
            + date_part('month', as_of) - date_part('month', period_start))::int AS m) x$$),
('genci_status', 'bench.per_row',
 'fairshare.genci_status(allocation, consumed, period_start, period_end, as_of)',
 'ROW(theoretical, lag, …, penalty) of the same rule',
 $$ROW(th, th - consumed, (th - consumed) * d / allocation, allocation / 12, (th - consumed) / (allocation / 12),
       CASE WHEN (th - consumed) / (allocation / 12) < 1 THEN 'on track'
            WHEN (th - consumed) / (allocation / 12) <= 2 THEN 'late' ELSE 'very late' END,
       k, extract(day FROM as_of) = 15 AND k >= 3 AND as_of <= period_end,
       CASE WHEN extract(day FROM as_of) = 15 AND k >= 3 AND as_of <= period_end
                 AND (th - consumed) / (allocation / 12) > 2 THEN allocation / 12 ELSE 0 END)$$, 'count',
 $$bench.per_row CROSS JOIN LATERAL
   (SELECT CASE WHEN as_of <= period_start THEN 0 WHEN as_of > period_end THEN allocation
                ELSE allocation * (as_of - period_start) / (period_end - period_start + 1) END AS th,
           period_end - period_start + 1 AS d,
           ((date_part('year', as_of) - date_part('year', period_start)) * 12
            + date_part('month', as_of) - date_part('month', period_start))::int AS m) x
   CROSS JOIN LATERAL
   (SELECT CASE WHEN as_of < period_start THEN 0
                ELSE m + 1 - ((period_start + make_interval(months => m))::date > as_of)::int END AS k) y$$),
('genci_midterm_penalty', 'bench.per_row',
 'fairshare.genci_midterm_penalty(allocation, consumed, period_start, period_end, as_of, 0.40, 0.30)',
 'on start + 5 months, used <= 30 %: min(0.4 A, max(0, 5 A / 12 − C))',
 $$CASE WHEN as_of = (period_start + interval '5 months')::date AND as_of <= period_end
             AND consumed <= 0.30::float8 * allocation
        THEN least(greatest(allocation * 5 / 12 - consumed, 0), 0.40::float8 * allocation) ELSE 0 END$$, 'sum', NULL),
('genci_midterm_status', 'bench.per_row',
 'fairshare.genci_midterm_status(allocation, consumed, period_start, period_end, as_of, 0.40, 0.30)',
 'ROW(used fraction, under-used, alert, check, take-back) of the same rule',
 $$ROW(consumed / allocation, consumed <= 0.30::float8 * allocation,
       as_of = (period_start + interval '4 months')::date AND as_of <= period_end,
       as_of = (period_start + interval '5 months')::date AND as_of <= period_end,
       CASE WHEN as_of = (period_start + interval '5 months')::date AND as_of <= period_end
                 AND consumed <= 0.30::float8 * allocation
            THEN least(greatest(allocation * 5 / 12 - consumed, 0), 0.40::float8 * allocation) ELSE 0 END)$$,
 'count', NULL),
('rwth_available_quota', 'bench.per_row',
 'fairshare.rwth_available_quota(allowance_prev, allowance_cur, allowance_next, consumed_prev, consumed_cur)',
 'A(m−1) + A(m) + A(m+1) − C(m−1) − C(m)',
 $$coalesce(allowance_prev, 0) + allowance_cur + coalesce(allowance_next, 0)
   - CASE WHEN allowance_prev IS NULL THEN 0 ELSE consumed_prev END - consumed_cur$$, 'sum', NULL),
('rwth_quota_status', 'bench.per_row',
 $$fairshare.rwth_quota_status(allowance_prev, allowance_cur, allowance_next, consumed_prev, consumed_cur,
                               allowance_total, consumed_total)$$,
 'ROW(available, remaining, balance, …, blocked) of the same rule',
 $$ROW(av, rp, rp + allowance_cur - consumed_cur,
       CASE WHEN allowance_cur > 0 THEN 100 * (rp + allowance_cur - consumed_cur) / allowance_cur END,
       CASE WHEN allowance_cur > 0 THEN CASE WHEN 100 * (rp + allowance_cur - consumed_cur) / allowance_cur < -100
                                             THEN -101 ELSE 100 * (rp + allowance_cur - consumed_cur) / allowance_cur END END,
       CASE WHEN allowance_cur > 0 THEN 100 * av / allowance_cur END,
       av <= 0, consumed_cur > 6 * allowance_cur OR coalesce(consumed_total > 2 * allowance_total, false))$$, 'count',
 $$bench.per_row CROSS JOIN LATERAL
   (SELECT coalesce(allowance_prev, 0) + allowance_cur + coalesce(allowance_next, 0)
           - CASE WHEN allowance_prev IS NULL THEN 0 ELSE consumed_prev END - consumed_cur AS av,
           CASE WHEN allowance_prev IS NULL THEN 0 ELSE allowance_prev - consumed_prev END::float8 AS rp) x$$);
-- rwth_month_status under three_months: the same months as periods of two
-- or three months (the previous month, this one, the next, where the row
-- has them), month 1 or 2, their arrays stored beside them
-- (per_row_rwth); for those the smallest window is the one ending at m or
-- the one starting at m (docs/policies.md#the-three-consecutive-months-rule):
-- min(A(m−1) + A(m) − C(m−1) − C(m), A(m) + A(m+1) − C(m)).  The totals,
-- not each row, are checked: the two add in another order.
CREATE UNLOGGED TABLE bench.per_row_rwth AS
SELECT allowance_prev, allowance_cur, allowance_next, consumed_prev, consumed_cur, allowance_total, consumed_total,
       array_remove(ARRAY[allowance_prev, allowance_cur, allowance_next], NULL) AS allowances,
       CASE WHEN allowance_prev IS NULL THEN ARRAY[consumed_cur] ELSE ARRAY[consumed_prev, consumed_cur] END AS consumed,
       CASE WHEN allowance_prev IS NULL THEN 1 ELSE 2 END AS month
  FROM bench.per_row;
VACUUM ANALYZE bench.per_row_rwth;
INSERT INTO bench.per_row_cases (name, tab, fn, baseline, base, kind, chk) VALUES
('rwth_month_status (three_months)', 'bench.per_row_rwth',
 $$(fairshare.rwth_month_status(allowances, consumed, month, 'three_months', allowance_total, consumed_total)).available$$,
 'the smallest of the two windows that bound it',
 $$least(coalesce(allowance_prev, 0) + allowance_cur - CASE WHEN allowance_prev IS NULL THEN 0 ELSE consumed_prev END
           - consumed_cur,
         allowance_cur + coalesce(allowance_next, 0) - consumed_cur)$$, 'sum', 'total');

-- Decay: aggregates over the rows charged by as_of, against sum() of the
-- decay factor of each row; the span forms integrate the factor over the
-- part of the span up to as_of (docs/decay.md).
INSERT INTO bench.per_row_cases (name, tab, fn, baseline, base, kind, chk) VALUES
('decayed_usage', 'bench.per_row_decay',
 $$fairshare.decayed_usage(usage, at, '2026-01-01', '14 days')$$,
 'sum(usage × 2^(−age / half-life))',
 $$sum(usage * power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - at) / 1209600.0::float8))
     FILTER (WHERE at <= '2026-01-01')$$, 'agg', 'total'),
('decayed_usage (span)', 'bench.per_row_decay',
 $$fairshare.decayed_usage(usage, started, ended, '2026-01-01', '14 days')$$,
 'sum of the factor integrated over the span up to as_of',
 $$sum(CASE WHEN ended = started THEN usage * power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - started) / 1209600.0::float8)
            ELSE usage / date_part('epoch', ended - started) * 1209600.0::float8 / ln(2::float8)
                 * (power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - least(ended, '2026-01-01')) / 1209600.0::float8)
                    - power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - started) / 1209600.0::float8)) END)
     FILTER (WHERE started <= '2026-01-01')$$, 'agg', 'total'),
('decayed_usage_slurm', 'bench.per_row_decay',
 $$fairshare.decayed_usage_slurm(usage, at, '2026-01-01', '14 days')$$,
 'sum(usage × (1 − 0.693 / half-life)^age)',
 $$sum(usage * power(1 - 0.693 / 1209600.0::float8, date_part('epoch', timestamptz '2026-01-01' - at)))
     FILTER (WHERE at <= '2026-01-01')$$, 'agg', 'total'),
('decayed_usage_step', 'bench.per_row_decay',
 $$fairshare.decayed_usage_step(usage, at, '2026-01-01', '1 day', 0.9)$$,
 'sum(usage × factor^(day boundaries since at))',
 $$sum(usage * power(0.9::float8, floor(date_part('epoch', timestamptz '2026-01-01') / 86400)
                                  - floor(date_part('epoch', at) / 86400)))
     FILTER (WHERE at <= '2026-01-01')$$, 'agg', 'total'),
('decayed_usage_pbs', 'bench.per_row_decay',
 $$fairshare.decayed_usage_pbs(usage, at, '2026-01-01', '1 day', 0.9)$$,
 'the step decay''s sum (not the same rule: PBS raises the entity to 1 whenever it falls below)',
 $$sum(usage * power(0.9::float8, floor(date_part('epoch', timestamptz '2026-01-01') / 86400)
                                  - floor(date_part('epoch', at) / 86400)))
     FILTER (WHERE at <= '2026-01-01')$$, 'agg', 'none'),
('decayed_usage_slurm_passes', 'bench.per_row_decay',
 $$fairshare.decayed_usage_slurm_passes(usage, at, '2026-01-01', '14 days', '5 minutes', NULL)$$,
 'sum(usage × f^(last pass by as_of − last pass by at)), date_bin',
 $$sum(usage * power(1 - 0.693 / 1209600.0::float8,
                     date_part('epoch', date_bin('5 minutes', timestamptz '2026-01-01', timestamptz 'epoch')
                                        - date_bin('5 minutes', at, timestamptz 'epoch'))))
     FILTER (WHERE at <= '2026-01-01')$$, 'agg', 'total');
INSERT INTO bench.per_row_cases (name, tab, fn, baseline, base, kind) VALUES
('slurm_last_pass', 'bench.per_row_decay',
 $$fairshare.slurm_last_pass(at, '5 minutes', '2025-06-01 00:02:30+00')$$,
 'date_bin(calc_period, as_of, phase)',
 $$date_bin('5 minutes', at, timestamptz '2025-06-01 00:02:30+00')$$, 'count'),
('slurm_next_pass', 'bench.per_row_decay',
 $$fairshare.slurm_next_pass(at, '5 minutes', '2025-06-01 00:02:30+00', NULL)$$,
 'date_bin(calc_period, as_of, phase) + calc_period',
 $$date_bin('5 minutes', at, timestamptz '2025-06-01 00:02:30+00') + interval '5 minutes'$$, 'count'),
('age_factor', 'bench.per_row_decay',
 $$fairshare.age_factor(eligible, '2026-01-01', '7 days')$$,
 'least(whole seconds pending / max_age, 1)',
 $$CASE WHEN eligible IS NULL OR eligible > '2026-01-01' THEN 0
        ELSE least((floor(date_part('epoch', timestamptz '2026-01-01')) - floor(date_part('epoch', eligible))) / 604800, 1) END$$,
 'sum');

-- Trees: every tree function reads its rows through tree.c and builds one
-- tree (fair_tree.c for Fair Tree and classic, pbs.c for PBS), then returns
-- one column of what it computed; fair_tree_rank and pbs_fairshare_perc
-- stand for their areas.  Against rank(): one sort of the same rows.
INSERT INTO bench.per_row_cases (name, tab, fn, baseline, base, kind, chk) VALUES
('fair_tree_rank', 'bench.per_row_tree',
 'fairshare.fair_tree_rank(id, parent_id, shares, usage, is_user) OVER ()',
 'rank() OVER (ORDER BY usage) (not the same rule)', 'rank() OVER (ORDER BY usage)', 'window', 'none'),
('pbs_fairshare_perc', 'bench.per_row_tree',
 'fairshare.pbs_fairshare_perc(id, parent_id, shares, usage, is_user) OVER ()',
 'rank() OVER (ORDER BY usage) (not the same rule)', 'rank() OVER (ORDER BY usage)', 'window', 'none');

-- Slurm priority factors (docs/priority.md), MetaCentrum, RWTH core-hours,
-- reports, TRES strings
INSERT INTO bench.per_row_cases (name, tab, fn, baseline, base, kind, chk, base_from) VALUES
('job_priority', 'bench.per_row_job',
 'fairshare.job_priority(fs, age, js, part, qos, 10000, 1000, 500, 2000, 3000, nice)',
 'Σ factor × weight − nice, at least 1, truncated',
 $$CASE WHEN age * 1000 + fs * 10000 + js * 500 + part * 2000 + qos * 3000 - nice >= 1
        THEN least(trunc(age * 1000 + fs * 10000 + js * 500 + part * 2000 + qos * 3000 - nice), 4294967295)::bigint
        ELSE 1 END$$, 'sum', 'exact', NULL),
('job_size_factor', 'bench.per_row_job',
 'fairshare.job_size_factor(nodes, cpus, 400, 19200)',
 '(nodes / N + cpus / C) / 2, clamped',
 $$least(greatest(CASE WHEN cpus = 0 THEN nodes::float8 / 400
                       ELSE (nodes::float8 / 400 + cpus::float8 / 19200) / 2 END, 0), 1)$$, 'sum', 'exact', NULL),
('partition_factor', 'bench.per_row_job',
 'fairshare.partition_factor(pjf, max_pjf)',
 'PriorityJobFactor / max(largest, 1)',
 'CASE WHEN pjf = 0 THEN 0 ELSE pjf::float8 / greatest(max_pjf, 1) END', 'sum', 'exact', NULL),
('qos_factor', 'bench.per_row_job',
 'fairshare.qos_factor(qos_prio, max_qos)',
 'priority / max(largest, 1)',
 'CASE WHEN qos_prio = 0 THEN 0 ELSE qos_prio::float8 / greatest(max_qos, 1) END', 'sum', 'exact', NULL),
('processor_equivalent', 'bench.per_row_job',
 'fairshare.processor_equivalent(pe_cpus, pe_mem, pe_scratch, pe_gpus, 64, 524288, 1048576, node_gpus, nodes)',
 'Σ used / node × node CPUs',
 $$pe_cpus / 64 * 64 + pe_mem / 524288 * 64 + pe_scratch / 1048576 * 64
   + CASE WHEN node_gpus = 0 THEN 0 ELSE pe_gpus / node_gpus * 64 END$$, 'sum', 'exact', NULL),
('metacentrum_usage', 'bench.per_row_job',
 'fairshare.metacentrum_usage(pe_cpus, walltime, spec)',
 'spec × walltime seconds × PE',
 $$spec * date_part('epoch', walltime) * pe_cpus$$, 'sum', 'exact', NULL),
('core_hours', 'bench.per_row_job',
 'fairshare.core_hours(ch_cpus, started, ended, exclusive, ch_nodes, cores_per_node, ch_gpus, 24)',
 'max(cores, GPUs × 24) × hours',
 $$greatest(CASE WHEN exclusive THEN (ch_nodes * cores_per_node)::float8 ELSE ch_cpus::float8 END, ch_gpus::float8 * 24)
   * (date_part('epoch', ended - started) / 3600.0)$$, 'sum', 'exact', NULL),
('publication_multiplier', 'bench.per_row_job',
 'fairshare.publication_multiplier(publications, pub_factor)',
 'power(factor, publications)',
 'power(pub_factor, publications)', 'sum', 'exact', NULL),
('report_format', 'bench.per_row_job',
 $$fairshare.report_format(secs, total, 'percent')$$,
 'to_char(secs × 100 / total, ''FM9999999990.00'') || ''%''',
 $$to_char(secs::float8 * 100 / total::float8, 'FM9999999990.00') || '%'$$, 'count', 'exact', NULL),
('tres_count', 'bench.per_row_job',
 $$fairshare.tres_count(tres, 'mem')$$,
 'the count after mem= through substring(), × 1024 for G',
 $$coalesce(substring(tres FROM ',mem=(\d+)')::float8 * CASE WHEN tres ~ ',mem=\d+G' THEN 1024 ELSE 1 END, 0)$$, 'sum', 'exact', NULL),
('tres_billing', 'bench.per_row_job',
 'fairshare.tres_billing(tres, weights)',
 'cpu, mem and gres/gpu through substring(), the weights written in',
 $$substring(tres FROM '^cpu=(\d+)')::float8 * 1.0
   + substring(tres FROM ',mem=(\d+)')::float8 * CASE WHEN tres ~ ',mem=\d+G' THEN 1024 ELSE 1 END * (0.25 / 1024)
   + coalesce(substring(tres FROM ',gres/gpu=(\d+)')::float8 * 2.0, 0)$$, 'sum', 'exact', NULL),
('tres_weights_valid', 'bench.per_row_job',
 'fairshare.tres_weights_valid(weights)',
 'the same text against a regular expression of the syntax',
 $$weights ~* '^([a-z]+(/[a-z0-9_:]+)?=[0-9]+(\.[0-9]*)?[kmgtp]?)(,[a-z]+(/[a-z0-9_:]+)?=[0-9]+(\.[0-9]*)?[kmgtp]?)*$'$$,
 'count', 'exact', NULL),
('slurm_cluster_size', 'bench.per_row_text',
 'fairshare.slurm_cluster_size(nodes)',
 'the host range and CPUs= of the same text through one regexp_match()',
 $$ROW(m[2]::int - m[1]::int + 1, (m[2]::int - m[1]::int + 1) * m[3]::int)$$, 'count', 'exact',
 $$bench.per_row_text CROSS JOIN LATERAL regexp_match(nodes, 'NodeName=\w+\[(\d+)-(\d+)\]\s.*?CPUs=(\d+)') m$$);

-- The query of one side of a case
CREATE OR REPLACE FUNCTION bench.per_row_query(c bench.per_row_cases, baseline boolean) RETURNS text
LANGUAGE sql AS $$
    SELECT CASE c.kind
        WHEN 'sum' THEN format('SELECT sum(%s) FROM %s', e, f)
        WHEN 'count' THEN format('SELECT count(%s) FROM %s', e, f)
        WHEN 'agg' THEN format('SELECT %s FROM %s', e, f)
        WHEN 'window' THEN format('SELECT sum(r) FROM (SELECT %s AS r FROM %s) t', e, f) END
      FROM (SELECT CASE WHEN baseline THEN c.base ELSE c.fn END AS e,
                   CASE WHEN baseline THEN coalesce(c.base_from, c.tab) ELSE c.tab END AS f) s;
$$;

-- -v cases=a,b: only those cases (e.g. after a change to one area's C code)
\if :{?cases}
DELETE FROM bench.per_row_cases WHERE name <> ALL (string_to_array(:'cases', ','));
\endif

-- Each expression is the rule for these rows, or the benchmark stops.
DO $$
DECLARE
    c bench.per_row_cases;
    n bigint;
    a float8;
    b float8;
BEGIN
    FOR c IN SELECT * FROM bench.per_row_cases ORDER BY seq LOOP
        IF c.chk = 'exact' THEN
            EXECUTE format('SELECT count(*) FROM %s WHERE (%s) IS DISTINCT FROM (%s)',
                           coalesce(c.base_from, c.tab), c.fn, c.base) INTO n;
            IF n > 0 THEN
                RAISE EXCEPTION 'bench_per_row: % rows where % and its expression differ', n, c.name;
            END IF;
        ELSIF c.chk = 'total' THEN
            EXECUTE bench.per_row_query(c, false) INTO a;
            EXECUTE bench.per_row_query(c, true) INTO b;
            IF NOT abs(a - b) <= 1e-9 * abs(b) THEN
                RAISE EXCEPTION 'bench_per_row: % gives %, its expression %', c.name, a, b;
            END IF;
        END IF;
    END LOOP;
END
$$;

SELECT bench.compare(c.name || ', ' || :'label', bench.per_row_query(c, false), c.baseline, bench.per_row_query(c, true),
                     :reps, NULL, 2, 'ratio <= 2', 'max_parallel_workers_per_gather=0',
                     'max_parallel_workers_per_gather=0')
  FROM (SELECT * FROM bench.per_row_cases ORDER BY seq) c \g /dev/null
SELECT bench.note('genci_penalty, ' || :'label',
                  format('%s check days, %s with a take-back', count(*) FILTER (WHERE extract(day FROM as_of) = 15),
                         count(*) FILTER (WHERE fairshare.genci_penalty(allocation, consumed, period_start, period_end, as_of) > 0)))
  FROM bench.per_row \g /dev/null
SELECT bench.note('genci_midterm_penalty, ' || :'label',
                  format('%s check days, %s with a take-back',
                         count(*) FILTER (WHERE as_of = (period_start + interval '5 months')::date),
                         count(*) FILTER (WHERE fairshare.genci_midterm_penalty(allocation, consumed, period_start,
                                                                                 period_end, as_of) > 0)))
  FROM bench.per_row \g /dev/null
DROP FUNCTION bench.per_row_query(bench.per_row_cases, boolean);
DROP TABLE bench.per_row, bench.per_row_rwth, bench.per_row_decay, bench.per_row_tree, bench.per_row_job, bench.per_row_text,
           bench.per_row_cases;
