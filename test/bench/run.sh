#!/usr/bin/env bash
# Benchmarks (not part of the test suite).  Runs inside the throwaway cluster
# made by test/cluster.sh: `bash test/run.sh bench` (or `make bench` once built).
# Every figure is a median of BENCH_REPS runs, printed with a ratio to a
# baseline measured in the same run.  BENCH_ROWS sets the scale (default 10^7).
set -euo pipefail
cd "$(dirname "$0")/../.."
export BENCH_ROWS=${BENCH_ROWS:-10000000} BENCH_REPS=${BENCH_REPS:-5}
echo "== machine: $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, $(psql -XAtc 'SHOW server_version')"
psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION IF NOT EXISTS fairshare'
psql -X -q -v ON_ERROR_STOP=1 -f test/bench/lib.sql
for f in test/bench/bench_*.sql; do
  echo "== $f (rows: $BENCH_ROWS, median of $BENCH_REPS)"
  psql -X -q -v ON_ERROR_STOP=1 -v rows="$BENCH_ROWS" -v reps="$BENCH_REPS" -f "$f"
done
for f in test/bench/*.sh; do
  case "$f" in */run.sh) continue ;; esac
  echo "== $f"
  bash "$f"
done
