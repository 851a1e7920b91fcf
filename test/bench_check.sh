#!/usr/bin/env bash
# The benchmark driver (test/bench/run.sh,
# docs/performance.md#running-the-benchmarks) at its smallest scale
# (BENCH_SCALE=0: every size at its minimum, 10^3 jobs), one round a
# measurement:
#   1. the whole run completes (exit 0) and prints its table, with the rows
#      of the last bench_*.sql files and of the scripts after them, and
#      leaves the centre as centre.sql made it;
#   2. the bench_*.sql files in another order (reversed, two of them twice)
#      complete and leave the centre as centre.sql made it;
#   3. a benchmark that fails half-way (a copy of test/bench/ with one more
#      file, run last of the files, that changes the cluster's decay mode,
#      makes a checkpoint and then fails) is named, the others still run
#      with the centre put back, the table is printed, and the driver exits 1.
# Runs inside the test cluster (test/cluster.sh test); prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=fs_bench_check
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; echo "1..$n"; exit 1; }
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d $db "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; dropdb --if-exists $db 2>/dev/null; dropdb --if-exists fairshare_bench_import 2>/dev/null' EXIT
dropdb --if-exists $db 2>/dev/null
createdb $db || bail "create database $db"
export PGDATABASE=$db BENCH_SCALE=0 BENCH_REPS=1
unset BENCH_ONLY BENCH_ROWS

# $1 log, $2 expected exit status, $3 status, $4 what ran
exited() {
  if [ "$3" -eq "$2" ]; then ok "$4: exit status $2"; else
    fail "$4: exit status $3, expected $2"; tail -40 "$1" | sed 's/^/# /'; fi
}
has() {  # log, fixed text, label
  if grep -qF -- "$2" "$1"; then ok "$3"; else fail "$3: no line with '$2'"; fi
}
# The centre as centre.sql makes it at scale 0, whatever ran: no pinned
# checkpoint (the others are each file's own, made again by the next);
# 20 allocations (10 GENCI + 10 RWTH: each size's minimum); decay mode
# exact, no pass, and no history of the cluster's settings (the decay mode
# as of an instant is read from it); 1010 jobs in jobs (1000 + 10 pending:
# no month detached, nothing imported kept); no rollups.
centre_as_made() {  # label
  local got
  got=$(q -c "SELECT concat_ws(' ', (SELECT count(*) FROM fairshare.usage_checkpoints WHERE pinned),
                                    (SELECT count(*) FROM fairshare.allocations),
                                    (SELECT decay_mode || '/' || COALESCE(priority_last_decay::text, 'none')
                                       FROM fairshare.clusters WHERE cluster = 'bench'),
                                    (SELECT count(*) FROM fairshare.settings_history WHERE cluster = 'bench'),
                                    (SELECT count(*) FROM fairshare.jobs),
                                    (SELECT count(*) FROM fairshare.usage_hourly) + (SELECT count(*) FROM fairshare.rollup_state))")
  if [ "$got" = "0 20 exact/none 0 1010 0" ]; then ok "$1: the centre as centre.sql made it"; else
    fail "$1: the centre is '$got' (pinned checkpoints, allocations, decay mode/last pass, settings versions, jobs, rollup rows), not '0 20 exact/none 0 1010 0'"; fi
}

# 1.
bash test/bench/run.sh > "$tmp/full.log" 2>&1
exited "$tmp/full.log" 0 $? "the whole run"
has "$tmp/full.log" "== results (medians of 1 rounds" "the whole run: the table is printed"
for row in "decayed_usage, serial" "retain_jobs of the oldest month (" "refresh_rollups, first call" \
           "Fair Tree peak memory, 10000 associations" "the longest wait of a write beside a chained checkpoint" \
           "import of 1000 sacct lines"; do
  has "$tmp/full.log" " $row" "the whole run: the table has the row '$row'"
done
has "$tmp/full.log" "CPU ms (user + system), medians of 1 sessions each" "the whole run: session_cost.sh ran"
has "$tmp/full.log" "median of 3 rounds: plain COPY" "the whole run: import_big.sh ran"
centre_as_made "the whole run"

# 2. partitions (which retains a month and deletes allocations in its
# transaction) and reports (which makes rollups) first, and again later
order="reports per_row partitions jit history factors rwth genci sprio sshare fair_tree decay partitions reports"
BENCH_ONLY=$order bash test/bench/run.sh > "$tmp/order.log" 2>&1
exited "$tmp/order.log" 0 $? "another order"
has "$tmp/order.log" " GENCI regulation run: 10 allocations " "another order: bench_genci.sql after bench_partitions.sql finds the 10 GENCI allocations"
has "$tmp/order.log" " r_wlm_usage_at: 10 projects x 24 months " "another order: bench_rwth.sql after bench_partitions.sql finds the 10 RWTH projects"
# one row for both runs of bench_partitions.sql, of 1010 jobs: the second
# found what the first did (a month left detached would take its runs away
# and name a second row with fewer jobs)
rows=$(grep -c ' association_usage_at from a checkpoint 5 min before (' "$tmp/order.log")
if [ "$rows" = 1 ] && grep -qF ' association_usage_at from a checkpoint 5 min before (1010 jobs, ' "$tmp/order.log"; then
  ok "another order: the second bench_partitions.sql finds every month in jobs"
else
  fail "another order: the second bench_partitions.sql finds every month in jobs: $rows rows of association_usage_at from a checkpoint, or not of 1010 jobs"
fi
centre_as_made "another order"

# 3.
mkdir -p "$tmp/repo/test"
cp -r test/bench "$tmp/repo/test/bench"
rm -rf "$tmp/repo/test/bench/out"
cat > "$tmp/repo/test/bench/bench_zz_fails.sql" <<'SQL'
\set ON_ERROR_STOP 1
UPDATE fairshare.clusters SET decay_mode = 'slurm_passes', priority_last_decay = bench.as_of() WHERE cluster = 'bench';
CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '1 day');
SELECT pg_catalog.int4div(1, 0);
SQL
bash "$tmp/repo/test/bench/run.sh" > "$tmp/fails.log" 2>&1
exited "$tmp/fails.log" 1 $? "a failing benchmark"
has "$tmp/fails.log" "   FAILED: test/bench/bench_zz_fails.sql (exit 3" "a failing benchmark: named where it failed, with psql's exit status"
has "$tmp/fails.log" "== FAILED: test/bench/bench_zz_fails.sql (the table holds" "a failing benchmark: named again after the table"
has "$tmp/fails.log" " refresh_rollups, first call" "a failing benchmark: the table has the rows of the files before it"
has "$tmp/fails.log" " the longest wait of a write beside a chained checkpoint" "a failing benchmark: the scripts after it ran, the table has their rows"
centre_as_made "a failing benchmark"

echo "1..$n"
