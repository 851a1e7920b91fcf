-- The five functions a reporting query or a BI tool calls row by row
-- (decayed_usage, fair_tree_rank, theoretical_consumption,
-- rwth_available_quota, genci_penalty), each over the same 10^5 rows at
-- every scale, against the same arithmetic written as a plain SQL
-- expression over the same rows, interleaved in the same run; serial (no
-- parallel workers on either side).  Each query sums (or ranks) so that
-- every row's value is computed and nothing is sent.  Target
-- (docs/performance.md#the-per-row-functions): each within 2x of its
-- expression.
--
-- The rows: 10^5 GENCI-like allocations of one year starting on the 1st of
-- a month (2025-10 .. 2026-09), judged on a day of the year after
-- 2025-10-01 (a 15th in one row of four: check days), consumption up to
-- 1.5 x the theoretical; the RWTH months of the same rows (the first month
-- of a period has no previous month, the last no next); a usage and an
-- instant over two years for the decay; a tree of 1 root, 1,000 accounts
-- and 98,999 user associations for Fair Tree.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench.per_row;
DO $$ BEGIN PERFORM setseed(0.25); END $$;
CREATE UNLOGGED TABLE bench.per_row AS
SELECT i,
       (1 + floor(random() * 1000)) * 3650::float8 AS allocation,
       ps AS period_start, (ps + interval '1 year')::date - 1 AS period_end, as_of,
       random() * 1.5 * (1 + floor(random() * 1000)) * 3650 * greatest(as_of - ps, 0) / 365 AS consumed,
       CASE WHEN i % 24 <> 0 THEN 50000::float8 END AS allowance_prev, 50000::float8 AS allowance_cur,
       CASE WHEN i % 24 <> 23 THEN 50000::float8 END AS allowance_next,
       (random() * 80000)::float8 AS consumed_prev, (random() * 80000)::float8 AS consumed_cur,
       (random() * 1000)::float8 AS usage,
       '2024-01-01 00:00+00'::timestamptz + random() * interval '730 days' AS at,
       CASE WHEN i = 1 THEN 'root' WHEN i <= 1001 THEN 'a' || i ELSE 'u' || i END AS id,
       CASE WHEN i = 1 THEN NULL WHEN i <= 1001 THEN 'root' ELSE 'a' || (2 + i % 1000) END AS parent_id,
       (1 + i % 100)::float8 AS shares, i > 1001 AS is_user
  FROM generate_series(1, 100000) i
 CROSS JOIN LATERAL (SELECT ('2025-10-01'::date + make_interval(months => i % 12))::date AS ps) p
 CROSS JOIN LATERAL (SELECT CASE WHEN i % 4 = 0
                                 THEN ('2025-10-15'::date + make_interval(months => (i / 4) % 12))::date
                                 ELSE '2025-10-01'::date + (i * 7919) % 365 END AS as_of) d;
VACUUM ANALYZE bench.per_row;

\o /dev/null
SELECT bench.compare('decayed_usage, 10^5 rows',
  $q$SELECT fairshare.decayed_usage(usage, at, '2026-01-01', '14 days') FROM bench.per_row$q$,
  'the same decay as a SQL expression',
  $q$SELECT sum(usage * power(2::float8, -date_part('epoch', timestamptz '2026-01-01' - at) / 1209600.0::float8))
       FROM bench.per_row WHERE at <= '2026-01-01'$q$,
  :reps, NULL, 2, 'ratio <= 2', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
-- rank() sorts the 10^5 rows by usage; Fair Tree sorts sibling lists and
-- walks the tree (docs/fairshare.md)
SELECT bench.compare('fair_tree_rank, 10^5 rows',
  $q$SELECT sum(r) FROM (SELECT fairshare.fair_tree_rank(id, parent_id, shares, usage, is_user) OVER () AS r
                           FROM bench.per_row) t$q$,
  'rank() over the same rows',
  $q$SELECT sum(r) FROM (SELECT rank() OVER (ORDER BY usage) AS r FROM bench.per_row) t$q$,
  :reps, NULL, 2, 'ratio <= 2', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
SELECT bench.compare('theoretical_consumption, 10^5 rows',
  $q$SELECT sum(fairshare.theoretical_consumption(allocation, period_start, period_end, as_of)) FROM bench.per_row$q$,
  'A x E / D as a SQL expression',
  $q$SELECT sum(CASE WHEN as_of <= period_start THEN 0
                     WHEN as_of > period_end THEN allocation
                     ELSE allocation * (as_of - period_start) / (period_end - period_start + 1) END)
       FROM bench.per_row$q$,
  :reps, NULL, 2, 'ratio <= 2', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
SELECT bench.compare('rwth_available_quota, 10^5 rows',
  $q$SELECT sum(fairshare.rwth_available_quota(allowance_prev, allowance_cur, allowance_next, consumed_prev, consumed_cur))
       FROM bench.per_row$q$,
  'A(m-1) + A(m) + A(m+1) - C(m-1) - C(m) as a SQL expression',
  $q$SELECT sum(coalesce(allowance_prev, 0) + allowance_cur + coalesce(allowance_next, 0)
                - CASE WHEN allowance_prev IS NULL THEN 0 ELSE consumed_prev END - consumed_cur)
       FROM bench.per_row$q$,
  :reps, NULL, 2, 'ratio <= 2', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
-- the expression: one-year periods (12 months), month 3 or later from
-- period_start + 2 months, the 15th, within the period, ratio above 2
SELECT bench.compare('genci_penalty, 10^5 rows',
  $q$SELECT sum(fairshare.genci_penalty(allocation, consumed, period_start, period_end, as_of)) FROM bench.per_row$q$,
  'the monthly take-back as a SQL expression',
  $q$SELECT sum(CASE WHEN extract(day FROM as_of) = 15 AND as_of >= period_start + interval '2 months'
                          AND as_of <= period_end
                          AND (CASE WHEN as_of <= period_start THEN 0
                                    ELSE allocation * (as_of - period_start) / (period_end - period_start + 1) END
                               - consumed) / (allocation / 12) > 2
                     THEN allocation / 12 ELSE 0 END)
       FROM bench.per_row$q$,
  :reps, NULL, 2, 'ratio <= 2', 'max_parallel_workers_per_gather=0', 'max_parallel_workers_per_gather=0');
\o
-- Each expression is the rule for these rows: the same value in every row
-- as the function (else the benchmark stops).
DO $$
DECLARE
    n bigint;
BEGIN
    SELECT count(*) INTO n FROM bench.per_row
     WHERE fairshare.theoretical_consumption(allocation, period_start, period_end, as_of)
           IS DISTINCT FROM CASE WHEN as_of <= period_start THEN 0
                                 WHEN as_of > period_end THEN allocation
                                 ELSE allocation * (as_of - period_start) / (period_end - period_start + 1) END
        OR fairshare.rwth_available_quota(allowance_prev, allowance_cur, allowance_next, consumed_prev, consumed_cur)
           IS DISTINCT FROM coalesce(allowance_prev, 0) + allowance_cur + coalesce(allowance_next, 0)
                            - CASE WHEN allowance_prev IS NULL THEN 0 ELSE consumed_prev END - consumed_cur
        OR fairshare.genci_penalty(allocation, consumed, period_start, period_end, as_of)
           IS DISTINCT FROM CASE WHEN extract(day FROM as_of) = 15 AND as_of >= period_start + interval '2 months'
                                      AND as_of <= period_end
                                      AND (CASE WHEN as_of <= period_start THEN 0
                                                ELSE allocation * (as_of - period_start) / (period_end - period_start + 1) END
                                           - consumed) / (allocation / 12) > 2
                                 THEN allocation / 12 ELSE 0 END;
    IF n > 0 THEN
        RAISE EXCEPTION 'bench_per_row: % rows where a function and its expression differ', n;
    END IF;
END
$$;
SELECT bench.note('genci_penalty, 10^5 rows',
                  format('%s check days, %s with a take-back', count(*) FILTER (WHERE extract(day FROM as_of) = 15),
                         count(*) FILTER (WHERE fairshare.genci_penalty(allocation, consumed, period_start, period_end, as_of) > 0)))
  FROM bench.per_row \g /dev/null
DROP TABLE bench.per_row;
