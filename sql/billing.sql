-- billing: Slurm's billable TRES (docs/policies.md#usage-and-billing) and
-- RWTH core-hours.
-- Memory counts are MiB; a memory weight with suffix G is per GiB, i.e.
-- weight/1024 per MiB.  Arithmetic beside every case.
SET search_path = public, fairshare;
SET extra_float_digits = 0;

-- PROTEUS metis partition (seed 001): CPU 8.8, RAM 0.25 per GB.
-- A whole node: 24 cores, 96 GB.
SELECT tres_billing('cpu=24,mem=96G,node=1', 'CPU=8.8,Mem=0.25G');             -- 24×8.8 + 98304×0.25/1024 = 211.2 + 24 = 235.2
SELECT tres_billing('cpu=24,mem=96G,node=1', 'CPU=8.8,Mem=0.25G', 'max_tres'); -- max(211.2, 24) = 211.2
SELECT tres_billing('cpu=1,mem=96G,node=1', 'CPU=8.8,Mem=0.25G');              -- 8.8 + 24 = 32.8
SELECT tres_billing('cpu=1,mem=96G,node=1', 'CPU=8.8,Mem=0.25G', 'max_tres');  -- max(8.8, 24) = 24

-- The Slurm fixture's job 1 on partition big (CPU=4.4,Mem=0.3125G); the
-- billing=40 that sacct shows is Slurm's rounded display and is ignored.
SELECT tres_billing('billing=40,cpu=8,mem=16G,node=1', 'CPU=4.4,Mem=0.3125G');  -- 8×4.4 + 16384×0.3125/1024 = 35.2 + 5 = 40.2

-- PROTEUS's whole cost table, one weights string per partition, for a job
-- of 4 CPUs and 8 GB (8192 MiB):
SELECT p, w, round(tres_billing('cpu=4,mem=8G,node=1', w)::numeric, 9) AS billing
  FROM (VALUES
    ('calypso16G',   'CPU=1.0,Mem=0.5G'),     -- 4×1.0 + 8×0.5    = 8
    ('calypso08G',   'CPU=1.0,Mem=1G'),       -- 4×1.0 + 8×1      = 12
    ('kratos96G',    'CPU=1.5,Mem=0.125G'),   -- 4×1.5 + 8×0.125  = 7
    ('kratos48G',    'CPU=1.5,Mem=0.25G'),    -- 4×1.5 + 8×0.25   = 8
    ('hermesv1',     'CPU=4.4,Mem=0.3125G'),  -- 4×4.4 + 8×0.3125 = 17.6 + 2.5 = 20.1
    ('hermesv2',     'CPU=3.9,Mem=0.3125G'),  -- 4×3.9 + 2.5      = 18.1
    ('hermesBigMem', 'CPU=4.4,Mem=0.125G'),   -- 17.6 + 1         = 18.6
    ('metis',        'CPU=8.8,Mem=0.25G'),    -- 35.2 + 2         = 37.2
    ('metisBigMem',  'CPU=8.8,Mem=0.0625G'),  -- 35.2 + 0.5       = 35.7
    ('short',        'CPU=8.5,Mem=0.294G'),   -- 34 + 2.352       = 36.352
    ('gpgpu',        'CPU=1.5,Mem=0.083G')    -- 6 + 0.664        = 6.664
  ) AS t(p, w) ORDER BY p;

-- GPUs: cpu=4, 16 GiB, 2 GPUs under CPU=1.0,Mem=0.25G,GRES/gpu=2.0
SELECT tres_billing('cpu=4,mem=16G,node=1,gres/gpu=2', 'CPU=1.0,Mem=0.25G,GRES/gpu=2.0');                  -- 4 + 4 + 4 = 12
SELECT tres_billing('cpu=4,mem=16G,node=1,gres/gpu=2', 'CPU=1.0,Mem=0.25G,GRES/gpu=2.0', 'max_tres');      -- max(4, 4, 4) = 4
SELECT tres_billing('cpu=4,mem=8G,node=1,gres/gpu=2', 'CPU=1.0,Mem=0.25G,GRES/gpu=2.0', 'max_tres_gres');  -- gres 4 + max(4, 2) = 8
-- typed GRES: alone it is billed under the untyped weight ...
SELECT tres_billing('cpu=4,gres/gpu:a100=1', 'CPU=1.0,GRES/gpu=2.0');                  -- 4 + 1×2 = 6
-- ... but not a second time when Slurm also recorded the untyped count
SELECT tres_billing('cpu=4,gres/gpu=1,gres/gpu:a100=1', 'CPU=1.0,GRES/gpu=2.0');       -- 4 + 1×2 = 6
-- a typed weight applies to the typed count (both weights configured: both billed, as in Slurm)
SELECT tres_billing('cpu=4,gres/gpu=1,gres/gpu:a100=1', 'CPU=1.0,GRES/gpu=2.0,GRES/gpu:a100=5'); -- 4 + 2 + 5 = 11
-- global TRES (licenses) are summed on top of the node maximum under max_tres
SELECT tres_billing('cpu=2,mem=4G,license/matlab=1', 'CPU=1,Mem=1G,License/matlab=10');             -- 2 + 4 + 10 = 16
SELECT tres_billing('cpu=2,mem=4G,license/matlab=1', 'CPU=1,Mem=1G,License/matlab=10', 'max_tres'); -- max(2, 4) + 10 = 14
-- node is a node-level TRES
SELECT tres_billing('cpu=2,node=3', 'CPU=1,Node=5', 'max_tres');                       -- max(2, 15) = 15

-- units
SELECT tres_billing('mem=1024K', 'Mem=1');          -- 1024 KiB = 1 MiB × 1 per MiB = 1
SELECT tres_billing('mem=500M', 'Mem=0.5');         -- 500 MiB × 0.5 = 250
SELECT tres_billing('mem=2T', 'Mem=1T');            -- 2 TiB × 1 per TiB = 2
SELECT tres_billing('mem=1G', 'Mem=1K');            -- 1024 MiB = 1048576 KiB × 1 per KiB = 1048576
SELECT tres_billing('cpu=1,license/x=2K', 'license/x=1K');  -- 2048 licences × 1/1024 = 2
SELECT tres_billing('CPU=4', 'cpu=0.5');            -- names are case-insensitive: 4 × 0.5 = 2

-- no weights: Slurm bills the CPUs
SELECT tres_billing('cpu=4,mem=16G', NULL), tres_billing('cpu=4,mem=16G', ''), tres_billing('mem=16G', NULL); -- 4, 4, 0
-- weights for TRES the job does not have add nothing
SELECT tres_billing('cpu=4', 'CPU=1.0,GRES/gpu=10');   -- 4
-- NULL tres is NULL; NULL mode is 'sum'
SELECT tres_billing(NULL, 'CPU=1') IS NULL AS null_tres, tres_billing('cpu=2,mem=1G', 'CPU=1,Mem=1G', NULL); -- t, 2 + 1 = 3
-- an empty TRES string bills nothing
SELECT tres_billing('', 'CPU=1');                      -- 0

-- tres_count reads one TRES (memory in MiB)
SELECT tres_count('cpu=8,mem=16G,node=1,gres/gpu=2', 'mem'),       -- 16 × 1024 = 16384
       tres_count('cpu=8,mem=16G,node=1,gres/gpu=2', 'gres/gpu'),  -- 2
       tres_count('cpu=8,mem=16G,node=1,gres/gpu=2', 'energy');    -- absent: 0

-- malformed strings: 22P02 naming the item (each call's SQLSTATE and message)
SELECT err('SELECT tres_billing(''cpu=4,,mem=1G'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''=4'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=-1'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=abc'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=4X'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=4GB'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=4,cpu=5'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=1e999'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=0x10'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=4'', ''CPU=nan'')');
SELECT err('SELECT tres_billing(''cpu=4'', ''CPU=inf'')');
SELECT err('SELECT tres_billing(''cpu=4'', ''CPU=1.0;Mem=2'')');
SELECT err('SELECT tres_billing(''cpu 4=1'', ''CPU=1'')');
SELECT err('SELECT tres_billing(''cpu=4'', ''CPU=1'', ''maximum'')');
-- finite counts and weights whose product or sum leaves float8: 22003, not
-- Infinity (found by test/fuzz/fuzz_billing); 1e308 × 10 > 1.8e308
SELECT err('SELECT tres_billing(''cpu=1e308'', ''CPU=10'')');
SELECT err('SELECT tres_billing(''cpu=1e308,mem=1e308'', ''CPU=1,Mem=1'')');  -- 1e308 + 1e308
SELECT tres_billing('cpu=1e308', 'CPU=1');                                     -- 1e308 × 1 stays finite: 1e+308
SELECT tres_weights_valid('CPU=1.0,Mem=0.25G,GRES/gpu=2.0'), tres_weights_valid('');
SELECT err('SELECT tres_weights_valid(''CPU=1.0,Mem'')');

-- RWTH core-hours (seed 003): cores × elapsed hours
SELECT core_hours(48, '2024-03-01 08:00+00', '2024-03-01 10:00+00');                        -- 48 × 2 h = 96
SELECT core_hours(10, '2024-03-01 08:00+00', '2024-03-01 11:00+00', true, 2, 48);           -- exclusive: 2 nodes × 48 cores × 3 h = 288
SELECT core_hours(10, '2024-03-01 08:00+00', '2024-03-01 11:00+00', false, 2, 48);          -- shared: 10 × 3 = 30
SELECT core_hours(12, '2024-03-01 08:00+00', '2024-03-01 09:00+00', false, 1, 96, 2, 24);   -- GPU job: max(12, 2 × 24) × 1 h = 48
SELECT core_hours(96, '2024-03-01 08:00+00', '2024-03-01 09:30+00', false, 1, 96, 2, 24);   -- max(96, 48) × 1.5 h = 144
SELECT core_hours(4, '2024-03-31 23:00+00', '2024-04-01 01:00+00');                         -- 4 × 2 h = 8
SELECT err('SELECT core_hours(4, ''2024-03-01 08:00+00'', ''2024-03-01 07:00+00'')');                         -- reversed: 22023
SELECT err('SELECT core_hours(-4, ''2024-03-01 08:00+00'', ''2024-03-01 09:00+00'')');                        -- negative: 22023
SELECT err('SELECT core_hours(4, ''2024-03-01 08:00+00'', ''2024-03-01 09:00+00'', false, 1, 4, 1, ''NaN'')');  -- NaN factor: 22023
SELECT core_hours(NULL, '2024-03-01 08:00+00', '2024-03-01 09:00+00') IS NULL AS null_cpus; -- NULL in, NULL out
-- an infinite GPU-hour factor was NaN without GPUs (0 × Infinity) and Infinity with them: 22023
SELECT err('SELECT core_hours(4, ''2024-03-01 08:00+00'', ''2024-03-01 09:00+00'', false, 1, 4, 0, ''Infinity'')');
