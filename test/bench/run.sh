#!/usr/bin/env bash
# Benchmarks (not part of the test suite): the targets of docs/performance.md.  Runs
# inside the throwaway cluster made by test/cluster.sh: `bash test/run.sh
# bench` (or `make bench` once built), or against any server the PG*
# variables name (a superuser: it reads /proc/self/status and creates a
# database for the import), e.g. pg_virtualenv -t bash test/bench/run.sh
#
#   BENCH_SCALE  scale of everything (default 1: 10^7 jobs over 2 years,
#                10^5 associations up to 6 deep, 10^5 pending jobs, 10^4
#                GENCI allocations, 10^4 RWTH projects, Fair Tree trees of
#                10^4, 10^5, 10^6 associations, 10^6 sacct lines, a day of
#                10^5 jobs imported into the history); a decimal number, 0
#                for every size at its minimum (10^3 jobs)
#   BENCH_ROWS   jobs (and decayed_usage rows), default 10^7 x BENCH_SCALE
#   BENCH_REPS   rounds per measurement (default 5), each round the
#                baseline then the query, medians reported
#   BENCH_ONLY   e.g. "history sprio": only those bench_*.sql, then the table
#
# Builds the synthetic centre (centre.sql), runs bench_decay, bench_fair_tree,
# bench_sshare, bench_sprio, bench_genci, bench_rwth (then any other
# bench_*.sql), the Fair Tree memory probe, and the scripts that measure the
# same centre or fill the same table: checkpoint_wait.sh, import.sh,
# import_big.sh, session_cost.sh; and prints one table: every median, its
# baseline's median from the same rounds, the median of the per-round
# ratios, the target, and whether it is met.  The other scripts of
# test/bench/ have sizes of their own (efficiency.sh, events.sh,
# readers.sh) or need root and a real Slurm (slurm.sh, slurmdbd.sh): each
# is run by its own command (docs/performance.md).
# Each benchmark makes what it needs (its checkpoints, its tables) and
# leaves the centre as centre.sql made it, so that any order or subset runs
# (docs/performance.md#running-the-benchmarks).  A benchmark that fails is
# named, the centre is put back (bench.restore_centre()), the others run,
# the table of what was measured is printed, and the script exits 1.
# Two settings differ from PostgreSQL's defaults: work_mem = 64MB (the
# aggregates over 10^5 associations spill to disk at 4MB) and jit = off (on
# these queries JIT compilation costs 0.3 to 1.6 s and never pays back; the
# extension's PL/pgSQL functions run without it in any session, and
# bench_jit.sql measures what a session with JIT on still pays).
set -euo pipefail
cd "$(dirname "$0")/../.."
scale=${BENCH_SCALE:-1}
# the knobs become awk values and psql variables: numbers only
[[ $scale =~ ^([0-9]+(\.[0-9]*)?|\.[0-9]+)$ ]] || { echo "BENCH_SCALE must be a decimal number such as 0.1, not '$scale'" >&2; exit 2; }
for v in BENCH_ROWS BENCH_REPS; do
  if [ -n "${!v:-}" ] && ! [[ ${!v} =~ ^[1-9][0-9]*$ ]]; then
    echo "$v must be a positive whole number, not '${!v}'" >&2; exit 2
  fi
done
sized() { awk -v s="$scale" -v n="$1" -v min="${2:-1}" 'BEGIN { x = int(n * s + 0.5); print (x < min ? min : x) }'; }
export BENCH_ROWS=${BENCH_ROWS:-$(sized 10000000 1000)}
export BENCH_REPS=${BENCH_REPS:-5}
assocs=$(sized 100000 100)
pending=$(sized 100000 10)
allocs=$(sized 10000 10)
projects=$(sized 10000 10)
tree_sizes="$(sized 10000 100),$(sized 100000 1000),$(sized 1000000 10000)"
import_lines=$(sized 1000000 1000)
day_jobs=$(sized 100000 100)
export PGOPTIONS="${PGOPTIONS:-} -c work_mem=64MB -c jit=off"
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

files=""
for a in decay fair_tree sshare sprio genci rwth; do files="$files test/bench/bench_$a.sql"; done
for f in test/bench/bench_*.sql; do
  case " $files " in *" $f "*) ;; *) files="$files $f" ;; esac
done
# BENCH_ONLY="history sprio": those bench_*.sql only (no memory probe, no scripts)
if [ -n "${BENCH_ONLY:-}" ]; then
  files=""
  for a in $BENCH_ONLY; do
    [[ $a =~ ^[a-z_]+$ ]] && [ -f "test/bench/bench_$a.sql" ] ||
      { echo "BENCH_ONLY: no benchmark test/bench/bench_$a.sql" >&2; exit 2; }
    files="$files test/bench/bench_$a.sql"
  done
fi

echo "== machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/Mem:/{print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg), $(psql -XAtc 'SHOW server_version')"
echo "== scale $scale: $BENCH_ROWS jobs, $assocs associations, $pending pending, $allocs GENCI allocations, $projects RWTH projects, trees $tree_sizes, $import_lines sacct lines, a day of $day_jobs jobs; $BENCH_REPS rounds"
run_start=$(date +%s)
psql_q -c 'CREATE EXTENSION IF NOT EXISTS fairshare'
psql_q -f test/bench/lib.sql

# Without the centre nothing can be measured: a failure here ends the run.
echo "== test/bench/centre.sql"
start=$(date +%s)
psql_q -v jobs="$BENCH_ROWS" -v assocs="$assocs" -v pending="$pending" -v allocs="$allocs" \
       -v projects="$projects" -f test/bench/centre.sql
echo "   built in $(( $(date +%s) - start )) s"

# One benchmark: its name, then the command.  The command runs in a
# subshell of its own with set -e in force (a function called as the left
# side of || would run with set -e off), so that its first failing command
# fails it.  A failure is named, the centre put back, and the run goes on.
failed=""
step() {
  local name=$1 start rc=0
  shift
  echo "== $name"
  start=$(date +%s)
  "$@" &
  wait $! || rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "   done in $(( $(date +%s) - start )) s"
  else
    echo "   FAILED: $name (exit $rc, after $(( $(date +%s) - start )) s)"
    failed="$failed $name"
    psql_q -c 'SET client_min_messages = warning' -c 'CALL bench.restore_centre()' >/dev/null || echo "   (and the centre could not be put back)"
  fi
}

for f in $files; do
  step "$f" psql_q -v rows="$BENCH_ROWS" -v reps="$BENCH_REPS" -v tree_sizes="$tree_sizes" -f "$f"
done

# Fair Tree memory: the peak resident memory of a fresh backend running
# fair_tree_factor over a tree, above its resident memory after the same
# call over a one-row tree (the library, catalog caches: fixed costs), minus
# the same for count(*) OVER () over the same rows (the same scan and
# buffered partition), per association.  Over the trees bench_fair_tree.sql
# leaves (bench.tree_N), dropped afterwards.
peak_kb() {  # table, window expression: VmHWM after - VmRSS before, in kB
  psql -X -At -v ON_ERROR_STOP=1 <<SQL | awk 'NR == 1 { r = $1 } END { print $1 - r }'
SELECT count(f) FROM (SELECT $2 AS f FROM (SELECT 'r'::text AS id, NULL::text AS parent_id, 1::float8 AS shares,
                                                  0::float8 AS usage, false AS is_user) t) s \g /dev/null
SELECT bench.proc_kb('VmRSS');
SELECT count(f) FROM (SELECT $2 AS f FROM $1) s \g /dev/null
SELECT bench.proc_kb('VmHWM');
SQL
}
fair_tree_memory() {
  local n ft base kb bytes marginal prev_n="" prev_kb=""
  for n in ${tree_sizes//,/ }; do
    if [ "$(psql -X -At -c "SELECT to_regclass('bench.tree_$n') IS NOT NULL")" != t ]; then
      echo "   bench.tree_$n is missing: bench_fair_tree.sql makes the trees" >&2
      return 1
    fi
  done
  for n in ${tree_sizes//,/ }; do
    ft=$(peak_kb "bench.tree_$n" "fairshare.fair_tree_factor(id, parent_id, shares, usage, is_user) OVER ()")
    base=$(peak_kb "bench.tree_$n" "count(*) OVER ()")
    kb=$(( ft - base ))
    bytes=$(( kb * 1024 / n ))
    marginal=""
    if [ -n "$prev_n" ]; then
      marginal=$(( (kb - prev_kb) * 1024 / (n - prev_n) ))
      marginal="; $marginal bytes per association more than at $prev_n"
    fi
    echo "   $n associations: $kb kB above count(*) OVER (), $bytes bytes per association$marginal"
    psql_q -c "SELECT bench.note('Fair Tree, $n associations', '$kb kB above count(*) OVER ()$marginal')" >/dev/null
    psql_q -c "SELECT bench.record_value('Fair Tree peak memory, $n associations: bytes per association', $bytes, 300, '< 300')" >/dev/null
    prev_n=$n prev_kb=$kb
  done
  for n in ${tree_sizes//,/ }; do psql_q -c "DROP TABLE bench.tree_$n"; done
}

# import.sh (a database of its own): its medians go into the same table.
import_sacct() {
  local out line copy imp
  out=$(mktemp)
  bash test/bench/import.sh "$import_lines" 3 | tee "$out"
  line=$(grep '^median of' "$out" || true)
  rm -f "$out"
  copy=$(echo "$line" | sed -n 's/.*plain COPY \([0-9.]*\) s.*/\1/p')
  imp=$(echo "$line" | sed -n 's/.*import_sacct \([0-9.]*\) s.*/\1/p')
  if [ -z "$copy" ] || [ -z "$imp" ]; then
    echo "   import.sh printed no medians" >&2
    return 1
  fi
  psql_q -c "SELECT bench.record('import of $import_lines sacct lines (staging COPY + import_sacct)', $imp * 1000, 'plain COPY of the file, unindexed table', $copy * 1000, $imp / $copy, 3, NULL, 3, 'ratio <= 3')" >/dev/null
}

# checkpoint_wait.sh: the longest wait of a write over its rounds goes into
# the table (target < 1 s), beside the same with the lock taken first
checkpoint_wait() {
  local out late first
  out=$(mktemp)
  bash test/bench/checkpoint_wait.sh 3 | tee "$out"
  late=$(sed -n 's/.*lock taken late: .* longest \([0-9.]*\) ms.*/\1/p' "$out" | sort -g | tail -1)
  first=$(sed -n 's/.*lock taken first: .* longest \([0-9.]*\) ms.*/\1/p' "$out" | sort -g | tail -1)
  rm -f "$out"
  if [ -z "$late" ] || [ -z "$first" ]; then
    echo "   checkpoint_wait.sh printed no waits" >&2
    return 1
  fi
  psql_q -c "SELECT bench.record('the longest wait of a write beside a chained checkpoint (3 rounds)', $late, 'the same with the checkpoint''s lock taken first', $first, $late / $first, 3, 1000, NULL, '< 1 s')" >/dev/null
}

# session_cost.sh at the benchmark instant, from a checkpoint made there
# (docs/performance.md#a-new-sessions-cost), removed afterwards
session_cost() {
  psql_q -c "CALL fairshare.checkpoint_usage('bench', bench.as_of())"
  SESSION_AS_OF='bench.as_of()' bash test/bench/session_cost.sh "$BENCH_REPS"
  psql_q -c "DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench' AND NOT pinned"
}

if [ -z "${BENCH_ONLY:-}" ]; then
  step "Fair Tree memory" fair_tree_memory
  step test/bench/checkpoint_wait.sh checkpoint_wait
  step test/bench/import.sh import_sacct
  step test/bench/import_big.sh bash test/bench/import_big.sh "$day_jobs" 3
  step test/bench/session_cost.sh session_cost
fi

echo
echo "== results (medians of $BENCH_REPS rounds; ratio = median of the per-round ratios to the baseline)"
psql -X -P pager=off -c 'SELECT * FROM bench.report()' || failed="$failed bench.report()"
echo "== wall time $(( $(date +%s) - run_start )) s at scale $scale"
if [ -n "$failed" ]; then
  echo "== FAILED:$failed (the table holds what the others measured)"
  exit 1
fi
