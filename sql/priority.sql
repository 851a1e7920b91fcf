-- priority: Slurm's multifactor job priority and its factors, worked by hand
-- (docs/policies.md#job-priority, docs/slurm.md#multifactor-job-priority,
-- docs/slurm.md#what-sshare-and-sprio-print).
SET search_path = fairshare, public;

-- ---------------------------------------------------------------------------
-- 1. PROTEUS (seed 001): 90000·Fairshare + 5000·TiempoEnEspera + 5000·Tamaño,
--    14-day PriorityMaxAge.
-- ---------------------------------------------------------------------------
-- A job pending 7 days of 14 (age 7/14 = 0.5), owner fair-share 0.5, asking
-- 2 nodes and 64 CPUs of a 10-node, 640-CPU cluster:
--   job size = (2/10 + 64/640) / 2 = (0.2 + 0.1) / 2 = 0.15
--   5000×0.5 + 90000×0.5 + 5000×0.15 = 2500 + 45000 + 750 = 48250
SELECT age_factor('2026-03-01 00:00+00', '2026-03-08 00:00+00', '14 days') AS age,     -- 0.5
       job_size_factor(2, 64, 10, 640) AS job_size,                                    -- 0.15
       job_priority(0.5,
                    age_factor('2026-03-01 00:00+00', '2026-03-08 00:00+00', '14 days'),
                    job_size_factor(2, 64, 10, 640),
                    weight_fairshare => 90000, weight_age => 5000,
                    weight_job_size => 5000) AS priority;                              -- 48250

-- Truncation follows Slurm's double arithmetic, not exact decimals.  A Fair
-- Tree factor of 7/10 is the double 0.69999999999999996, and
-- 0.7 × 90000 = 62999.99999999999 in double: Slurm stores 62999, not 63000.
SELECT (7::float8 / 10) * 90000 < 63000 AS below_63000,                    -- t
       job_priority(7::float8 / 10, weight_fairshare => 90000) AS priority; -- 62999

-- Summation order: Slurm adds age, fairshare, job size, partition, QOS in
-- that order (_get_priority_internal).  age 0.34, fs 0.35, js 0.57:
--   5000×0.34 = 1700.0000000000002, 90000×0.35 = 31499.999999999996,
--   5000×0.57 = 2849.9999999999995
--   (1700.0000000000002 + 31499.999999999996) + 2849.9999999999995 = 36050     → 36050
--   1700.0000000000002 + (31499.999999999996 + 2849.9999999999995) = 36049.99… → 36049
SELECT job_priority(0.35, 0.34, 0.57, weight_fairshare => 90000, weight_age => 5000,
                    weight_job_size => 5000) AS slurm_order,                            -- 36050
       pg_catalog.trunc((5000 * 0.34::float8) + ((90000 * 0.35::float8) + (5000 * 0.57::float8)))
         AS other_order;                                                                -- 36049
-- Exact decimal arithmetic would give 1500 + 63000 + 2040 = 66540; Slurm's
-- doubles give 1500 + 62999.99999999999 + 2039.9999999999998 = 66539.99999999999.
SELECT job_priority(0.7, 0.3, 0.408, weight_fairshare => 90000, weight_age => 5000,
                    weight_job_size => 5000) AS priority;                               -- 66539

-- ---------------------------------------------------------------------------
-- 2. CALI: 70000 fairshare + 30000 partition.
-- ---------------------------------------------------------------------------
-- Fair-share 0.5, partition PriorityJobFactor 100 of the largest 300:
--   70000×0.5 + 30000×(100/300) = 35000 + 10000 = 45000
-- (100/300 is the double 0.333333333333333315; ×30000 = 9999.99999999999945,
-- within half a unit (0.9e-12) of 10000, so the product rounds to 10000.)
SELECT partition_factor(100, 300) * 30000 AS weighted_partition,                        -- 10000
       job_priority(0.5, partition => partition_factor(100, 300),
                    weight_fairshare => 70000, weight_partition => 30000) AS priority;  -- 45000
-- The top partition: 70000×0.5 + 30000×1 = 65000.
SELECT job_priority(0.5, partition => partition_factor(300, 300),
                    weight_fairshare => 70000, weight_partition => 30000) AS priority;  -- 65000

-- A real Slurm 22.05 cluster (test/fixtures/slurm: slurm.conf, assoc.psv,
-- sacct.psv): PriorityWeightFairshare=70000, PriorityWeightPartition=30000 (CALI's
-- weights) plus 5000 age / 5000 job size; one node, 64 CPUs; partitions std
-- (PriorityJobFactor 100), big (300), low (10).  sacct printed each pending
-- job's Priority, computed at submission (age 0).
-- Fair-share factors, Fair Tree by hand over the usage of jobs 1-11 (billing ×
-- elapsed, no decay).  13 user associations; root's own user (usage 0, LF inf)
-- ranks 13.  unilim (LF (900/1001)/(10015.39/12547.39) = 1.126) comes before
-- partners (0.495).  Under unilim: ipam (LF 10.5), shs (5.36), xlim (0.744),
-- geist (0.502).
--   ipam:  erin  LF 0.5/(29.77/269.77) = 4.53 → 12,  carol 0.5/(240/269.77) = 0.562 → 11
--   shs:   judy  Fairshare=parent → LF inf → 10,     kate 1/(100.5/280.5) = 2.79 → 9
--   xlim:  dave  (5/15)/(932.625/3812.625) = 1.36 → 8, carol (10/15)/(2880/3812.625) = 0.883 → 7
--   geist: geistlab (Fairshare=parent, LF NO_VAL, no children) first; its users
--          sit beside frank: level shares 1+1+2 = 4, parent usage 5652.5:
--          heidi 0.5/(87.5/5652.5) = 32.3 → 6, grace 0.25/(480/5652.5) = 2.94 → 5,
--          frank 0.25/(5085/5652.5) = 0.278 → 4
--   partners: ingenomix (0.5/(120/2532) = 10.6) before cistem (0.525):
--          ivan usage 0 → LF inf → 3, bob 0.5/1 → 2; alice → 1
-- Job size on 1 node / 64 CPUs: (1/1 + cpus/64)/2.  Partition: factor/300.
-- Job 19 printed 500 less than the formula: sacct does not print nice, and
-- 77193.51 − nice truncates to 76693 only for an integer nice of 500.
SELECT j.job_id, j.user_name, j.partition,
       job_priority(j.rank / 13.0::float8, 0, job_size_factor(1, j.cpus, 1, 64),
                    partition_factor(j.pjf, 300), 0,
                    70000, 5000, 5000, 30000, 0, j.nice) AS priority,
       j.slurm AS slurm_printed
  FROM (VALUES
    -- job user  partition PJF cpus rank nice  sacct Priority   hand sum
    (12, 'alice', 'big', 300,  8,  1,   0, 38197),  -- 5384.62 + 2812.5  + 30000 = 38197.12
    (13, 'bob',   'std', 100,  1,  2,   0, 23308),  -- 10769.23 + 2539.06 + 10000 = 23308.29
    (14, 'ivan',  'std', 100,  2,  3,   0, 28731),  -- 16153.85 + 2578.13 + 10000 = 28731.97
    (15, 'carol', 'std', 100, 16,  7,   0, 50817),  -- 37692.31 + 3125    + 10000 = 50817.31
    (16, 'carol', 'low',  10,  4, 11,   0, 62887),  -- 59230.77 + 2656.25 +  1000 = 62887.02
    (17, 'dave',  'big', 300, 32,  8,   0, 76826),  -- 43076.92 + 3750    + 30000 = 76826.92
    (18, 'erin',  'std', 100, 64, 12,   0, 79615),  -- 64615.38 + 5000    + 10000 = 79615.38
    (19, 'erin',  'std', 100,  2, 12, 500, 76693),  -- 64615.38 + 2578.13 + 10000 - 500 = 76693.51
    (20, 'frank', 'big', 300,  4,  4,   0, 54194),  -- 21538.46 + 2656.25 + 30000 = 54194.71
    (21, 'grace', 'std', 100,  1,  5,   0, 39462),  -- 26923.08 + 2539.06 + 10000 = 39462.14
    (22, 'heidi', 'low',  10,  2,  6,   0, 35885),  -- 32307.69 + 2578.13 +  1000 = 35885.82
    (23, 'judy',  'std', 100,  8, 10,   0, 66658),  -- 53846.15 + 2812.5  + 10000 = 66658.65
    (24, 'kate',  'big', 300,  2,  9,   0, 81039))  -- 48461.54 + 2578.13 + 30000 = 81039.66
    AS j(job_id, user_name, partition, pjf, cpus, rank, nice, slurm)
 ORDER BY j.job_id;

-- ---------------------------------------------------------------------------
-- 3. The clamps and nice (docs/slurm.md#multifactor-job-priority).
-- ---------------------------------------------------------------------------
SELECT job_priority(0.99999, weight_fairshare => 1000) AS truncated,   -- 999.99 → 999 (rounding: 1000)
       job_priority(0.5, weight_fairshare => 3) AS one_and_a_half,      -- 1.5 → 1
       job_priority(0) AS nothing,                                      -- 0 → 1 (0 is reserved for held jobs)
       job_priority(0.9, weight_fairshare => 1) AS below_one,           -- 0.9 → 1
       job_priority(1, weight_fairshare => 100, nice => 1000) AS nice_below_one;  -- 100 − 1000 = −900 → 1
-- nice is subtracted last: 70000×0.5 = 35000; −100 → 35100; +100 → 34900.
SELECT job_priority(0.5, weight_fairshare => 70000, nice => -100) AS nice_minus_100,  -- 35100
       job_priority(0.5, weight_fairshare => 70000, nice => 100) AS nice_100;         -- 34900
-- The uint32 cap: 4294967295×1 + 4294967295×1 = 8589934590 → 4294967295;
-- 4294967295 itself stays; 4294967294.5 truncates to 4294967294; weights so
-- large that the sum overflows to Infinity still give the cap.
SELECT job_priority(1, 1, weight_fairshare => 4294967295, weight_age => 4294967295) AS capped,  -- 4294967295
       job_priority(1, weight_fairshare => 4294967295) AS at_cap,                              -- 4294967295
       job_priority(0.5, weight_fairshare => 8589934589) AS half_below,                        -- 4294967294.5 → 4294967294
       job_priority(1, 1, weight_fairshare => 1e308, weight_age => 1e308) AS overflow;         -- Infinity → 4294967295
-- A nice of −4294967295 on an empty sum lifts it to the cap, exactly.
SELECT job_priority(0, nice => -4294967295) AS nice_to_cap,  -- 4294967295
       job_priority(0, nice => -4294967296) AS nice_past_cap; -- 4294967296 → 4294967295
-- Weights 0 skip a factor: a factor of 1 with weight 0 adds nothing.
SELECT job_priority(1, 1, 1, 1, 1) AS all_weights_zero;  -- 0 → 1
-- STRICT: NULL in, NULL out.
SELECT job_priority(NULL) IS NULL AS null_fs,
       job_priority(0.5, weight_qos => NULL) IS NULL AS null_weight,
       job_priority(0.5, nice => NULL) IS NULL AS null_nice;

-- Bad input: 22023, naming the value.
SELECT job_priority(1.5);
SELECT job_priority(0.5, age => -0.1);
SELECT job_priority(0.5, qos => 'NaN');
SELECT job_priority(0.5, weight_age => -1);
SELECT job_priority(0.5, weight_fairshare => 'Infinity');

-- ---------------------------------------------------------------------------
-- 4. Age factor: whole seconds since eligible / PriorityMaxAge, at most 1.
-- ---------------------------------------------------------------------------
-- 3 days 04:00 = 273600 s; 14 days = 1209600 s; 273600/1209600 = 0.2261904761904762
SELECT age_factor('2026-03-01 00:00+00', '2026-03-04 04:00+00', '14 days') AS three_days_four_hours,
       age_factor('2026-03-01 00:00+00', '2026-03-15 00:00+00', '14 days') AS exactly_max,  -- 1
       age_factor('2026-03-01 00:00+00', '2026-05-01 00:00+00', '14 days') AS past_max,     -- 1
       age_factor('2026-03-01 00:00+00', '2026-03-01 00:00+00', '14 days') AS just_eligible,-- 0
       age_factor('2026-03-02 00:00+00', '2026-03-01 00:00+00', '14 days') AS not_yet,      -- 0
       age_factor(NULL, '2026-03-01 00:00+00', '14 days') AS never_eligible;               -- 0
-- PriorityMaxAge 0: every eligible job has the full factor; a future one none.
SELECT age_factor('2026-03-01 00:00+00', '2026-03-01 00:00+00', '0') AS eligible_now,   -- 1
       age_factor('2026-03-02 00:00+00', '2026-03-01 00:00+00', '0') AS not_yet;        -- 0
-- Slurm counts whole seconds (time_t): each instant is read to the second.
-- 10:00:00.9 → 10:00:00 and 10:00:01.1 → 10:00:01: 1 s of 100 s = 0.01;
-- 10:00:00.1 to 10:00:00.9 is 0 s.
SELECT age_factor('2026-03-01 10:00:00.9+00', '2026-03-01 10:00:01.1+00', '100 seconds') AS one_second,  -- 0.01
       age_factor('2026-03-01 10:00:00.1+00', '2026-03-01 10:00:00.9+00', '100 seconds') AS zero,        -- 0
       age_factor('1999-12-31 23:59:59.5+00', '2000-01-01 00:00:00.5+00', '100 seconds') AS across_2000;  -- 1 s → 0.01
-- An interval month is 30 days: 15 days of '1 month' = 0.5.
SELECT age_factor('2026-03-01 00:00+00', '2026-03-16 00:00+00', '1 month') AS half_month;  -- 0.5
SELECT age_factor('2026-03-01', NULL, '14 days') IS NULL AS null_as_of,
       age_factor('2026-03-01', '2026-03-02', NULL) IS NULL AS null_max_age;
SELECT age_factor('2026-03-01', '2026-03-02', '-1 day');
SELECT age_factor('2026-03-01', 'infinity', '14 days');
SELECT age_factor('-infinity', '2026-03-02', '14 days');

-- ---------------------------------------------------------------------------
-- 5. Job-size factor (default favours large jobs).
-- ---------------------------------------------------------------------------
SELECT job_size_factor(1, 2, 1, 64) AS one_node_2_cpus,        -- (1/1 + 2/64)/2 = 0.515625
       job_size_factor(4, 128, 16, 1024) AS four_nodes,        -- (0.25 + 0.125)/2 = 0.1875
       job_size_factor(3, 0, 12, 768) AS cpus_zero,            -- 3/12 = 0.25, not halved
       job_size_factor(16, 1024, 16, 1024) AS whole_cluster,   -- (1 + 1)/2 = 1
       job_size_factor(32, 2048, 16, 1024) AS clamped;         -- (2 + 2)/2 = 2 → 1
-- PriorityFavorSmall: ((N − nodes)/N + (C − cpus)/C)/2.
SELECT job_size_factor(1, 2, 1, 64, true) AS one_node_2_cpus,     -- (0/1 + 62/64)/2 = 0.484375
       job_size_factor(4, 128, 16, 1024, true) AS four_nodes,     -- (0.75 + 0.875)/2 = 0.8125
       job_size_factor(3, 0, 12, 768, true) AS cpus_zero,         -- 9/12 = 0.75, not halved
       job_size_factor(0, 0, 12, 768, true) AS nothing,           -- 12/12 = 1
       job_size_factor(32, 2048, 16, 1024, true) AS too_big;      -- (0 + 0)/2 = 0
SELECT job_size_factor(-1, 2, 1, 64);
SELECT job_size_factor(1, -2, 1, 64);
SELECT job_size_factor(1, 2, 0, 64);
SELECT job_size_factor(1, 2, 1, 0);

-- ---------------------------------------------------------------------------
-- 6. Partition and QOS factors: value / the cluster's largest.
-- ---------------------------------------------------------------------------
SELECT partition_factor(10, 300) AS low,        -- 10/300 = 0.03333333333333333
       partition_factor(300, 300) AS top,       -- 1
       partition_factor(0, 300) AS zero,        -- 0
       partition_factor(0, 0) AS all_zero,      -- 0 (the largest counts as at least 1)
       partition_factor(1, 0) AS one_of_zero;   -- 1/max(0,1) = 1
SELECT qos_factor(10, 20) AS half,              -- 0.5
       qos_factor(0, 20) AS zero,               -- 0
       qos_factor(0, 0) AS no_qos_priority;     -- 0
SELECT partition_factor(400, 300);
SELECT partition_factor(-1, 300);
SELECT qos_factor(30, 20);

-- ---------------------------------------------------------------------------
-- 7. slurm_cluster_size, read in C: the answers and errors of the PL/pgSQL
--    it replaced (sql/slurm_real.sql has the worked examples).
-- ---------------------------------------------------------------------------
-- CRLF line ends; in slurm.conf a # starts a comment: a1 of 4 CPUs, b1 of 2
SELECT * FROM slurm_cluster_size(E'NodeName=a1 CPUs=4 # CPUs=8\r\n# NodeName=b[1-100] CPUs=2\r\nNodeName=b1 CPUs=2\r\n');
-- indented lines continue a record, an empty line does not end it, any
-- other line does: a1 has CPUs=6 (the last), x's CPUs=100 is no node's
SELECT * FROM slurm_cluster_size(E'NodeName=a1\n  CPUs=4\n\n  CPUs=6\nPartitionName=x\n  CPUs=100\nNodeName=b CPUs=1');
-- keys in any case, the last of a key counting: 3 nodes of 7
SELECT * FROM slurm_cluster_size('NodeName=a[1-3] cpus=5 CPUS=7');
-- DEFAULT lines add up; CPUs= comes before the product: 3 nodes of 4
SELECT * FROM slurm_cluster_size(E'NodeName=DEFAULT CPUs=4\nNodeName=DEFAULT Boards=2\nNodeName=x[1-3]');
-- an empty bracket group counts no element: NULL totals
SELECT * FROM slurm_cluster_size(E'NodeName=n[] CPUs=4\nNodeName=m[1-2] CPUs=4');
SELECT slurm_cluster_size('NodeName=a[1-2147483648] CPUs=1');           -- 22003: integer
SELECT slurm_cluster_size('NodeName=a[1-3037000500][1-3037000500] CPUs=1');  -- 22003: bigint
SELECT slurm_cluster_size('NodeName=a[1-99999999999999999999] CPUs=1');  -- 22003: the number
SELECT slurm_cluster_size('NodeName=a CPUs=x');                          -- 22P02
SELECT slurm_cluster_size('NodeName= a CPUs=4');                         -- 22004: no host list
