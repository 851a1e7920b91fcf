#!/usr/bin/env bash
# Benchmark (not part of the test suite): importing N sacct lines (default
# 10^6) with fairshare.import_sacct, against a plain COPY of the same file
# into an unindexed table of text columns.  Target (docs/performance.md): at most 3x.
#
#   usage: bash test/bench/import.sh [lines] [runs]
#   against any server the PG* variables point at (a superuser is needed
#   for CREATE DATABASE / CREATE EXTENSION), e.g. a throwaway one:
#       pg_virtualenv -t bash test/bench/import.sh
#   FAIRSHARE_VERSION=1.0 measures an older version of the extension's SQL
#   installed beside the current one (CREATE EXTENSION ... VERSION), e.g.
#   before and after a change, on the same server and library.
#
# The file is synthetic but shaped like `sacct -a -P` output (import_gen.awk):
# each job has its line plus .batch, .extern and half the time .0 steps, so
# 10^6 lines hold about 296,000 jobs.  Each run starts from an empty jobs
# table (a first import); the import timed is what a centre runs: create the
# staging table, \copy the file into it, call import_sacct.  Medians of the
# runs are printed, and one re-import of the same file (every job unchanged).
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-1000000}
runs=${2:-3}
out=test/bench/out
mkdir -p "$out"
file=$out/import_sacct_$n.psv
[ -s "$file" ] || awk -v n="$n" -f test/bench/import_gen.awk > "$file"
db=fairshare_bench_import
copy_opts="(FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')"

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
psql -X -q -d "$db" -v ON_ERROR_STOP=1 -v version="${FAIRSHARE_VERSION:-}" >/dev/null <<'SQL'
SELECT :'version' = '' AS current_version \gset
\if :current_version
CREATE EXTENSION fairshare;
\else
CREATE EXTENSION fairshare VERSION :'version';
\endif
INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('oracle', '0');
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 64, 256000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('oracle', 'root', NULL, 1);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'oracle', 'acct' || i, 'root', 1 FROM generate_series(0, 39) i;
INSERT INTO fairshare.account_users (cluster, account, user_name)
SELECT 'oracle', 'acct' || (i % 40), 'user' || i FROM generate_series(0, 299) i;
CREATE TABLE plain (c1 text, c2 text, c3 text, c4 text, c5 text, c6 text, c7 text, c8 text,
                    c9 text, c10 text, c11 text, c12 text, c13 text, c14 text, c15 text,
                    c16 text, c17 text, c18 text, c19 text, c20 text);
-- statistics, as a centre's tables have them: the plans of the foreign
-- keys' checks depend on them, and autovacuum would take them at any time
-- (between two runs, or not at all before the first)
ANALYZE fairshare.clusters, fairshare.partitions, fairshare.accounts, fairshare.account_users;
SQL

now() { date +%s.%N; }
# seconds taken by a psql script read from stdin
timed() {
  local t0 t1
  psql -X -q -d "$db" -v ON_ERROR_STOP=1 -c 'CHECKPOINT' >/dev/null
  t0=$(now)
  psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
minimum() { sort -g | head -1; }

base=() ; stage=() ; total=()
for i in $(seq "$runs"); do
  psql -X -q -d "$db" -c 'TRUNCATE plain' -c 'TRUNCATE fairshare.jobs' -c 'VACUUM ANALYZE fairshare.jobs' >/dev/null
  b=$(timed <<SQL
\\copy plain FROM '$file' (FORMAT csv, DELIMITER '|', HEADER)
SQL
)
  s=$(timed <<SQL
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
SELECT fairshare.import_stage('import_staging');
SQL
)
  t=$(timed <<SQL
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
SELECT * FROM fairshare.import_sacct('oracle', 'UTC');
SQL
)
  base+=("$b"); stage+=("$s"); total+=("$t")
  printf 'run %d: plain COPY %.2f s, staging COPY %.2f s, staging COPY + import_sacct %.2f s\n' "$i" "$b" "$s" "$t"
done
B=$(printf '%s\n' "${base[@]}" | median)
S=$(printf '%s\n' "${stage[@]}" | median)
T=$(printf '%s\n' "${total[@]}" | median)
R=$(psql -X -q -d "$db" -t -A -F ' ' <<SQL
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
\\timing on
SELECT lines_read, imported, folded, rejected FROM fairshare.import_sacct('oracle', 'UTC');
SQL
)
# What storing the jobs costs by itself: a plain INSERT of the same jobs,
# parsed beforehand, into the empty fairshare.jobs (its CHECKs, primary key,
# 4 other indexes and 2 foreign-key triggers), with the settings
# import_sacct stores them with (those of _import_upsert; since 1.1
# sequential scans off, so that the foreign keys' checks use the keys'
# indexes, and JIT off).
psql -X -q -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
CREATE TABLE parsed AS
SELECT (q.r).* FROM (SELECT fairshare_internal._sacct_line(line, (SELECT line FROM import_staging WHERE line_no = 1), 'UTC', 'oracle') AS r
                       FROM import_staging OFFSET 0) q WHERE (q.r).kind = 'job';
TRUNCATE fairshare.jobs;
VACUUM ANALYZE fairshare.jobs;
SQL
F=$(timed <<'SQL'
SELECT COALESCE(string_agg(format('SET %s = %L;', split_part(c, '=', 1), substr(c, strpos(c, '=') + 1)), ' '), '') AS settings
  FROM pg_proc p, unnest(p.proconfig) c
 WHERE p.oid = 'fairshare_internal._import_upsert'::regproc AND c NOT LIKE 'search_path=%' \gset
:settings
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time,
                            eligible_time, start_time, end_time, time_limit, tres, cpus, mem_mb, gpus, nodes)
SELECT cluster, job_id, user_name, account, partition, qos, state, submit_time,
       eligible_time, start_time, end_time, time_limit, tres, cpus, mem_mb, gpus, nodes FROM parsed;
SQL
)
summary=$(psql -X -q -d "$db" -t -A -F ' ' -c "SELECT lines_read, imported, unchanged, folded, rejected FROM fairshare.imports ORDER BY import_id LIMIT 1")
echo
echo "extension: fairshare $(psql -X -t -A -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'fairshare'")"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(psql -X -t -A -d "$db" -c 'SHOW server_version')"
echo "file: $file, $n lines, $(du -h "$file" | cut -f1); first import: lines_read imported unchanged folded rejected = $summary"
printf 'median of %d runs: plain COPY %.2f s; staging COPY %.2f s; staging COPY + import_sacct %.2f s\n' "$runs" "$B" "$S" "$T"
printf 'ratio import / plain COPY: %.2f (target <= 3)\n' "$(echo "$T / $B" | bc -l)"
Bmin=$(printf '%s\n' "${base[@]}" | minimum)
Tmin=$(printf '%s\n' "${total[@]}" | minimum)
printf 'fastest of %d runs (least disturbed by other load): plain COPY %.2f s; import %.2f s; ratio %.2f\n' "$runs" "$Bmin" "$Tmin" "$(echo "$Tmin / $Bmin" | bc -l)"
printf 'of which storing the jobs alone (plain INSERT of the parsed jobs into fairshare.jobs): %.2f s = %.2f x the plain COPY\n' "$F" "$(echo "$F / $B" | bc -l)"
echo "re-import of the same file (every job unchanged), import_sacct alone: $(echo "$R" | grep -o 'Time: [0-9.]* ms' | tail -1)"
psql -X -q -d postgres -c "DROP DATABASE $db" >/dev/null
