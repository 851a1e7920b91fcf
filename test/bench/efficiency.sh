#!/usr/bin/env bash
# Benchmark (not part of the test suite): import_sacct_efficiency against
# import_sacct on the same staged export, in the same run, at 2,000, 8,000
# and 16,000 lines (or the sizes given: 10000 100000 1000000 for the
# table of docs/performance.md).  The efficiency import must grow as the
# file does (docs/performance.md#efficiency-import).
#
#   usage: [REPEAT=n] bash test/bench/efficiency.sh [sizes...] (default 2000 8000 16000)
#   against any server the PG* variables point at (a superuser is needed
#   for CREATE DATABASE / CREATE EXTENSION).  FAIRSHARE_VERSION=1.2 measures
#   an older version of the extension's SQL installed beside the current one.
#
# The file is import_gen.awk's synthetic `sacct -a -P` export with the
# efficiency columns added to every line (TotalCPU, MaxRSS,
# ConsumedEnergyRaw, TRESUsageInAve), as sacct prints them: a job line and
# its steps.  Each size is timed three times (REPEAT=); the median is
# printed, with the microseconds per line of each import.  Each
# timing stages the file again (\copy), then calls one import alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=("$@")
repeat=${REPEAT:-3}
case $repeat in ''|*[!0-9]*|0) echo "REPEAT must be a positive count" >&2; exit 2 ;; esac
[ ${#sizes[@]} -gt 0 ] || sizes=(2000 8000 16000)
out=test/bench/out
mkdir -p "$out"
db=fairshare_bench_efficiency
copy_opts="(FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e', ENCODING 'SQL_ASCII')"

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
psql -X -q -d "$db" -v ON_ERROR_STOP=1 -v version="${FAIRSHARE_VERSION:-}" >/dev/null <<'SQL'
SELECT :'version' = '' AS current_version \gset
\if :current_version
CREATE EXTENSION fairshare;
\else
CREATE EXTENSION fairshare VERSION :'version';
\endif
INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('oracle', '0');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 64, 256000), ('oracle', 'big', 64, 256000), ('oracle', 'low', 64, 256000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('oracle', 'root', NULL, 1);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares)
SELECT 'oracle', 'acct' || i, 'root', 1 FROM generate_series(0, 39) i;
INSERT INTO fairshare.account_users (cluster, account, user_name)
SELECT 'oracle', 'acct' || (i % 40), 'user' || i FROM generate_series(0, 299) i;
ANALYZE fairshare.clusters, fairshare.partitions, fairshare.accounts, fairshare.account_users;
SQL

# milliseconds of the last statement of a psql script read from stdin
timed() {
  psql -X -q -d "$db" -v ON_ERROR_STOP=1 2>&1 | grep -o 'Time: [0-9.]* ms' | tail -1 | grep -o '[0-9.]*'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "extension: fairshare $(psql -X -t -A -d "$db" -c "SELECT extversion FROM pg_extension WHERE extname = 'fairshare'")"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(psql -X -t -A -d "$db" -c 'SHOW server_version')"
for n in "${sizes[@]}"; do
  file=$out/efficiency_$n.psv
  [ -s "$file" ] || awk -v n="$n" -f test/bench/import_gen.awk |
    awk 'BEGIN { OFS = "|"; srand(7) }
         NR == 1 { print $0, "TotalCPU", "MaxRSS", "ConsumedEnergyRaw", "TRESUsageInAve"; next }
         { cpu = int(rand() * 7200)
           print $0, sprintf("%02d:%02d:%02d.%03d", int(cpu / 3600), int(cpu / 60) % 60, cpu % 60, int(rand() * 1000)),
                 (index($1, ".") ? int(rand() * 4000000) "K" : ""), int(rand() * 100000),
                 (index($1, ".") ? "cpu=00:01:00,gres/gpuutil=" int(rand() * 100) : "") }' > "$file"
  eff=(); imp=(); rows=
  for _ in $(seq "$repeat"); do
    psql -X -q -d "$db" -c 'TRUNCATE fairshare.jobs, fairshare.job_efficiency' >/dev/null
    e=$(timed <<SQL
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
\\timing on
SELECT fairshare.import_sacct_efficiency('oracle', 'UTC');
SQL
)
    s=$(timed <<SQL
SELECT fairshare.import_stage();
\\copy import_staging (line) FROM '$file' $copy_opts
\\timing on
SELECT imported FROM fairshare.import_sacct('oracle', 'UTC');
SQL
)
    eff+=("$e"); imp+=("$s")
  done
  rows=$(psql -X -t -A -d "$db" -c 'SELECT count(*) FROM fairshare.job_efficiency')
  E=$(printf '%s\n' "${eff[@]}" | median)
  S=$(printf '%s\n' "${imp[@]}" | median)
  printf '%7d lines (%d runs written): import_sacct_efficiency %9.1f ms (%.1f us/line), import_sacct %9.1f ms (%.1f us/line), ratio %.2f (median of %d)\n' \
    "$n" "$rows" "$E" "$(echo "$E * 1000 / $n" | bc -l)" "$S" "$(echo "$S * 1000 / $n" | bc -l)" "$(echo "$E / $S" | bc -l)" "$repeat"
done
