#!/usr/bin/env bash
# Bounded work for readers (docs/performance.md#bounded-work-for-readers):
# what a reader's arguments can make a chart or a report cost.  A cluster of
# 1,280 cores with a run every 6 hours over 4 years (2022-2025; 5,844 runs
# of 4 hours over 32 accounts, each with runs of 1 to 64 CPUs), rolled up;
# then the median of 3 calls of
#   cluster_utilisation_svg per hour over 1, 2 and 4 years (8,760, 17,520
#     and 35,064 bars) and over 40,200 hours (past the cap of 40,000: 54000)
#   sreport_job_sizes_by_account (flat: 32 accounts) with sreport's default
#     grouping (4 CPU counts), 100 (the cap) and 4,000 (past it: 54000)
# Not part of the test suite.  Against the server the PG* variables name
# (it creates and drops the database fs_bench_readers):
#   bash test/bench/readers.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
db=fs_bench_readers
psql_q() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }
psql_q -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
trap 'psql_q -c "DROP DATABASE IF EXISTS '$db'" >/dev/null 2>&1' EXIT
echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(psql_q -c 'SHOW server_version')"
psql_q -d $db <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION fairshare;
INSERT INTO fairshare.clusters (cluster, timezone, total_cpus) VALUES ('c', 'UTC', 1280);
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb, nodes) VALUES ('c', 'p', 32, 65536, 40);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'c', 'root', NULL, 1 UNION ALL SELECT 'c', 'a' || i, 'root', 1 FROM generate_series(1, 32) i;
INSERT INTO fairshare.account_users (cluster, account, user_name) SELECT 'c', 'a' || i, 'u' || i FROM generate_series(1, 32) i;
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
SELECT 'c', i::text, 'u' || (1 + i % 32), 'a' || (1 + i % 32), 'p', 'COMPLETED', t, t, t + interval '4 hours', 1 + (i / 32) % 64
  FROM generate_series(0, 4 * 1461 - 1) i, LATERAL (SELECT '2022-01-01 00:00+00'::timestamptz + i * interval '6 hours' AS t) x;
CREATE TEMP TABLE refreshed AS SELECT * FROM fairshare.refresh_rollups(up_to => '2026-01-01 00:00+00');
-- one call: its time in ms and the length of what it returned, or its error
CREATE FUNCTION pg_temp.once(q text, OUT ms float8, OUT result text) LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
    n bigint;
BEGIN
    EXECUTE format('SELECT sum(length(x::text)) FROM (%s) x', q) INTO n;
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    result := n || ' characters';
EXCEPTION WHEN OTHERS THEN
    ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
    result := SQLSTATE || ' ' || SQLERRM;
END $$;
CREATE FUNCTION pg_temp.bench(label text, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r record;
    times float8[] := '{}';
BEGIN
    FOR i IN 1..3 LOOP
        r := pg_temp.once(q);
        times := times || r.ms;
    END LOOP;
    RETURN format('%-62s %10s ms   %s', label,
                  round((SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM unnest(times) t)::numeric, 1), r.result);
END $$;
SELECT pg_temp.bench('cluster_utilisation_svg, 1 year hourly (8,760 bars)',
  $q$SELECT fairshare.cluster_utilisation_svg('c', '2025-01-01 00:00+00', '2026-01-01 00:00+00', 'percent', 'hour')$q$);
SELECT pg_temp.bench('cluster_utilisation_svg, 2 years hourly (17,520 bars)',
  $q$SELECT fairshare.cluster_utilisation_svg('c', '2024-01-01 00:00+00', '2026-01-01 00:00+00', 'percent', 'hour')$q$);
SELECT pg_temp.bench('cluster_utilisation_svg, 4 years hourly (35,064 bars)',
  $q$SELECT fairshare.cluster_utilisation_svg('c', '2022-01-01 00:00+00', '2026-01-01 00:00+00', 'percent', 'hour')$q$);
SELECT pg_temp.bench('cluster_utilisation_svg, 40,200 hours (2021-06-01 to 2026)',
  $q$SELECT fairshare.cluster_utilisation_svg('c', '2021-06-01 00:00+00', '2026-01-01 00:00+00', 'percent', 'hour')$q$);
SELECT pg_temp.bench('sreport_job_sizes_by_account, flat, 4 size groups (default)',
  $q$SELECT * FROM fairshare.sreport_job_sizes_by_account('2022-01-01 00:00+00', '2026-01-01 00:00+00', flat => true)$q$);
SELECT pg_temp.bench('sreport_job_sizes_by_account, flat, 100 size groups',
  $q$SELECT * FROM fairshare.sreport_job_sizes_by_account('2022-01-01 00:00+00', '2026-01-01 00:00+00',
                                                           (SELECT array_agg(g) FROM generate_series(1, 100) g), flat => true)$q$);
SELECT pg_temp.bench('sreport_job_sizes_by_account, flat, 4,000 size groups',
  $q$SELECT * FROM fairshare.sreport_job_sizes_by_account('2022-01-01 00:00+00', '2026-01-01 00:00+00',
                                                           (SELECT array_agg(g) FROM generate_series(1, 4000) g), flat => true)$q$);
SQL
