#!/usr/bin/env bash
# Benchmark (not part of the test suite): import_events of a synthetic
# sacctmgr show event -P export, the current reader (C, one call a line)
# against version 1.2's SQL reader (a regular-expression split and a
# GROUP BY of every cell), installed side by side in two databases and
# timed in the same run (docs/performance.md#sacctmgr-exports).
#
#   usage: bash test/bench/events.sh [sizes...] (default 10000 100000)
#   against any server the PG* variables point at (a superuser is needed
#   for CREATE DATABASE / CREATE EXTENSION).
#
# The export: N node events (a node down for an hour, every ten minutes
# another of 500 nodes), header first.  Each size is timed three times
# (REPEAT=), each time into an empty node_events; the median is printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000)
repeat=${REPEAT:-3}
out=test/bench/out
mkdir -p "$out"

for v in current 1.2; do
  db=fairshare_bench_events_${v/./_}
  psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  psql -X -q -d "$db" -v ON_ERROR_STOP=1 -v version="$v" >/dev/null <<'SQL'
SELECT :'version' = 'current' AS current_version \gset
\if :current_version
CREATE EXTENSION fairshare;
\else
CREATE EXTENSION fairshare VERSION :'version';
\endif
INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('oracle', '0');
SQL
done

timed() {
  psql -X -q -d "$1" -v ON_ERROR_STOP=1 2>&1 | grep -o 'Time: [0-9.]* ms' | tail -1 | grep -o '[0-9.]*'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(psql -X -t -A -d postgres -c 'SHOW server_version')"
for n in "${sizes[@]}"; do
  file=$out/events_$n.psv
  [ -s "$file" ] || awk -v n="$n" 'BEGIN {
      print "Cluster|ClusterNodes|Event|NodeName|TimeStart|TimeEnd|State|StateRaw|TRES|Reason|User"
      for (i = 0; i < n; i++) {
        t = 1767225600 + i * 600          # 2026-01-01 00:00 UTC, every ten minutes
        print "oracle||Node|n" (i % 500) "|" strftime("%Y-%m-%dT%H:%M:%S", t, 1) "|" \
              strftime("%Y-%m-%dT%H:%M:%S", t + 3600, 1) "|DOWN|1|cpu=64,mem=256G|maintenance|root"
      } }' > "$file"
  line=""
  for v in current 1.2; do
    db=fairshare_bench_events_${v/./_}
    ms=()
    for _ in $(seq "$repeat"); do
      psql -X -q -d "$db" -c 'TRUNCATE fairshare.node_events, fairshare.rollup_dirty' >/dev/null
      ms+=("$(timed "$db" <<SQL
\\set export \`cat $file\`
\\timing on
SELECT fairshare.import_events('oracle', :'export', 'UTC');
SQL
)")
    done
    written=$(psql -X -t -A -d "$db" -c 'SELECT count(*) FROM fairshare.node_events')
    m=$(printf '%s\n' "${ms[@]}" | median)
    line="$line $(printf '%s %8.1f ms (%d written)' "$v" "$m" "$written")"
    [ "$v" = current ] && cur=$m || old=$m
  done
  printf '%7d events:%s, ratio current / 1.2 %.2f (median of %d)\n' "$n" "$line" "$(echo "$cur / $old" | bc -l)" "$repeat"
done
