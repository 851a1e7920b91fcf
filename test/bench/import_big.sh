#!/usr/bin/env bash
# Benchmark (not part of the test suite): one day of jobs imported into a
# large history (the target at scale, docs/performance.md#the-targets: one
# day's 10^5 jobs within 5x a plain COPY of the same file).
#
#   usage: bash test/bench/import_big.sh [jobs] [rounds]
#   against the database the PG* variables name, holding the benchmark
#   centre (test/bench/centre.sql, e.g. 10^7 jobs), as a superuser.
#
# The file: `jobs` (default 10^5) finished jobs of the centre's own users,
# accounts and partitions, submitted on the day after the centre's last
# instant, written as `sacct -a -P --duplicates` prints them (one line a
# job, no steps), ids 900000001 and up, above every id of the table.  Each round times, in
# alternating order, a plain COPY of the file into an unindexed table of
# text columns and what a centre runs (staging COPY + import_sacct), each in
# a transaction rolled back, so that every round finds the same table.  A
# third timing shows what the table itself costs: the same plain COPY, then
# its rows cast and inserted into jobs by one INSERT ... SELECT (the
# indexes, the two foreign keys and the statement triggers, no parsing, no
# checks of the import's own).
# After each round the partitions of the day are vacuumed (not timed): the
# rolled-back rows are dead tuples under the same keys, and without it each
# round's unique checks visit every earlier round's dead rows (8.7 s, then
# 14.6 s on the second round).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-100000}
rounds=${2:-3}
out=test/bench/out
mkdir -p "$out"
file=$(realpath -m "$out/import_big_$n.psv")
copy_opts="(FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e', ENCODING 'SQL_ASCII')"

psql -X -q -v ON_ERROR_STOP=1 <<SQL
SELECT setseed(0.7);
CREATE TEMP TABLE day AS
SELECT (900000000 + i)::text AS job_id, u.user_name, u.account, p.partition,
       '2026-10-01 00:00+00'::timestamptz + (i * 86400.0 / $n) * interval '1 second' AS submit,
       (1 + (i % 16)) AS cpus, (60 + (i * 37) % 7200) AS secs
  FROM generate_series(1, $n) i
  JOIN LATERAL (SELECT au.user_name, au.account FROM fairshare.account_users au
                 WHERE au.cluster = 'bench' OFFSET (i * 7919) % (SELECT count(*) FROM fairshare.account_users) LIMIT 1) u ON true
  JOIN LATERAL (SELECT partition FROM fairshare.partitions WHERE cluster = 'bench' AND partition IN ('cpu', 'debug')
                 ORDER BY partition OFFSET i % 2 LIMIT 1) p ON true;
\copy (SELECT 'JobID|User|Account|Partition|QOS|AllocCPUS|AllocTRES|Submit|Eligible|Start|End|State|NNodes|Timelimit|Suspended' UNION ALL SELECT format('%s|%s|%s|%s|normal|%s|billing=%s,cpu=%s,mem=%sM,node=1|%s|%s|%s|%s|COMPLETED|1|04:00:00|00:00:00', job_id, user_name, account, partition, cpus, cpus, cpus, cpus * 1024, to_char(submit AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), to_char(submit AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), to_char((submit + interval '30 seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), to_char((submit + interval '30 seconds' + secs * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')) FROM day) TO '$file'
CREATE TABLE IF NOT EXISTS public.plain_import (c1 text, c2 text, c3 text, c4 text, c5 text, c6 text, c7 text,
    c8 text, c9 text, c10 text, c11 text, c12 text, c13 text, c14 text, c15 text);
SQL

now() { date +%s.%N; }
timed() { local t0 t1; t0=$(now); psql -X -q -v ON_ERROR_STOP=1 >/dev/null; t1=$(now); echo "$t1 - $t0" | bc -l; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
jobs=$(psql -X -A -t -c "SELECT count(*) FROM fairshare.jobs")
# the rolled-back rows of the day are dead tuples under the same keys:
# vacuumed after each timing (not timed)
vacuum_day() {
  psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT format('VACUUM %s', p.relation) FROM fairshare.job_partitions() p
 WHERE p.month_start IS NULL OR (p.month_start < '2026-10-02 00:00+00' AND p.month_end > '2026-10-01 00:00+00')
\\gexec
SQL
}
base=(); imp=(); ins=()
for i in $(seq "$rounds"); do
  b=$(timed <<SQL
BEGIN;
\\copy public.plain_import FROM '$file' (FORMAT csv, DELIMITER '|', HEADER)
ROLLBACK;
SQL
)
  t=$(timed <<SQL
BEGIN;
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
SELECT * FROM fairshare.import_sacct('bench', 'UTC');
ROLLBACK;
SQL
)
  vacuum_day
  r=$(timed <<SQL
BEGIN;
\\copy public.plain_import FROM '$file' (FORMAT csv, DELIMITER '|', HEADER)
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, qos, cpus, tres, submit_time,
                            eligible_time, start_time, end_time, state, nodes, time_limit, suspended)
SELECT 'bench', c1, c2, c3, c4, c5, c6::int, c7, c8::timestamp AT TIME ZONE 'UTC', c9::timestamp AT TIME ZONE 'UTC',
       c10::timestamp AT TIME ZONE 'UTC', c11::timestamp AT TIME ZONE 'UTC', c12, c13::int, c14::interval, c15::interval
  FROM public.plain_import;
ROLLBACK;
SQL
)
  vacuum_day
  base+=("$b"); imp+=("$t"); ins+=("$r")
  printf 'round %d: plain COPY %.2f s, staging COPY + import_sacct %.2f s, plain COPY + INSERT into jobs %.2f s\n' "$i" "$b" "$t" "$r"
done
B=$(printf '%s\n' "${base[@]}" | median)
T=$(printf '%s\n' "${imp[@]}" | median)
R=$(printf '%s\n' "${ins[@]}" | median)
check=$(psql -X -q -A -t -F ' ' <<SQL
BEGIN;
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
SELECT lines_read, imported, rejected FROM fairshare.import_sacct('bench', 'UTC');
ROLLBACK;
SQL
)
echo "table: $jobs jobs; file: $n jobs, $(du -h "$file" | cut -f1); import (lines_read imported rejected): $(echo "$check" | tail -1)"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(psql -X -A -t -c 'SHOW server_version')"
printf 'median of %d rounds: plain COPY %.2f s; staging COPY + import_sacct %.2f s; ratio %.2f (target <= 5)\n' \
  "$rounds" "$B" "$T" "$(echo "$T / $B" | bc -l)"
printf 'the table alone: plain COPY + INSERT into jobs %.2f s, %.2f x the plain COPY; import_sacct is %.2f x it\n' \
  "$R" "$(echo "$R / $B" | bc -l)" "$(echo "$T / $R" | bc -l)"
