#!/usr/bin/env bash
# Measurements for docs/citus.md: the benchmark centre (BENCH_SCALE, default
# 0.1: 10^6 jobs) on the single server and on the Citus cluster of
# test/citus/cluster.sh (CITUS_DIR), each report run MEASURE_REPS times
# (default 3), medians printed:
#   wall   the client's time for the whole report
#   cpu    the CPU time each PostgreSQL instance spent on it (its backends,
#          and the backends that exited meanwhile, from /proc: the
#          postmaster's children's times), so the coordinator's share of
#          the work is coordinator / (coordinator + workers)
# and, for the aggregation every usage report runs, the partial states the
# coordinator receives from the workers against the job rows the single
# server aggregates.  The GENCI catch-up run (every check day of the
# benchmark's allocations up to its instant) is measured in a transaction
# rolled back, so that each repetition evaluates the same days.
# MEASURE_ONLY=REGEX measures only the reports whose name matches.  Run by bash test/citus/run.sh
# measure.  On 2 cores shared by four servers it cannot show a speed-up:
# the workers are processes of one machine.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
: "${CITUS_DIR:?set CITUS_DIR to the directory test/citus/cluster.sh start made}"
# CPU clock ticks of an instance so far: the postmaster's exited (and
# reaped) children and its live ones (fields 14-17 of /proc/PID/stat)
cpu_of() {
  local pm ticks=0 p f
  pm=$(head -1 "$CITUS_DIR/$1/postmaster.pid")
  read -r -a f < <(sed 's/^.*) //' "/proc/$pm/stat")
  ticks=$(( f[13] + f[14] ))
  for p in $(ps -o pid= --ppid "$pm"); do
    read -r -a f < <(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null) || continue
    ticks=$(( ticks + f[11] + f[12] ))
  done
  echo "$ticks"
}
if [ "${1:-}" = --cpu ]; then   # one line: wall ns, then each instance's ticks
  echo "$(date +%s%N) $(cpu_of coordinator) $(cpu_of worker1) $(cpu_of worker2) $(cpu_of single)"
  exit 0
fi
. test/citus/lib.sh
reps=${MEASURE_REPS:-3}
work=${MEASURE_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/fairshare-citus-measure.XXXXXX")}
mkdir -p "$work"
[ -n "${MEASURE_OUT:-}" ] || trap 'rm -rf "$work"' EXIT
tck=$(getconf CLK_TCK)

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "== benchmark centre at BENCH_SCALE=$scale on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
load_bench || exit 1
as_of=$(val single bench "SELECT bench.as_of()")
shards=$(val coordinator bench "SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = 'fairshare.jobs_default'::regclass")

printf '\n%-34s %9s %9s %9s %9s %9s %7s\n' report "single" "citus" "cpu sgl" "cpu coord" "cpu wrks" "coord%"
printf '%-34s %9s %9s %9s %9s %9s %7s\n' "" "wall ms" "wall ms" "ms" "ms" "ms" "share"
while IFS='|' read -r name sql; do
  [[ $name =~ ${MEASURE_ONLY:-.} ]] || continue
  for node in single coordinator; do
    : > "$work/$node.times"
    for _ in $(seq "$reps"); do
      # in the session that runs the report, so that its own backend and
      # the connections Citus keeps open for it are counted alive, and
      # those it closed are reaped by the time of the second reading
      q "$node" bench > /dev/null <<PSQL
\\! bash test/citus/measure.sh --cpu > $work/c0
$sql;
SELECT pg_sleep(0.3);
\\! bash test/citus/measure.sh --cpu > $work/c1
PSQL
      paste "$work/c0" "$work/c1" | awk -v t="$tck" '{ printf "%d %d %d %d\n", ($6 - $1) / 1e6 - 300,
          ($7 - $2) * 1000 / t, ($8 + $9 - $3 - $4) * 1000 / t, ($10 - $5) * 1000 / t }' >> "$work/$node.times"
    done
  done
  ws=$(cut -d' ' -f1 "$work/single.times" | median); wc=$(cut -d' ' -f1 "$work/coordinator.times" | median)
  cs=$(cut -d' ' -f4 "$work/single.times" | median); cc=$(cut -d' ' -f2 "$work/coordinator.times" | median)
  cw=$(cut -d' ' -f3 "$work/coordinator.times" | median)
  share=$(awk -v c="$cc" -v w="$cw" 'BEGIN { printf "%.0f%%", (c + w) ? 100 * c / (c + w) : 0 }')
  printf '%-34s %9s %9s %9s %9s %9s %7s\n' "$name" "$ws" "$wc" "$cs" "$cc" "$cw" "$share"
done <<SQL
association_usage_at|SELECT count(*) FROM fairshare.association_usage_at('$as_of')
sshare_at|SELECT count(*) FROM fairshare.sshare_at('$as_of')
sprio_at|SELECT count(*) FROM fairshare.sprio_at('$as_of')
r_wlm_usage_at|SELECT count(*) FROM fairshare.r_wlm_usage_at('$as_of')
genci_report_at|SELECT count(*) FROM fairshare.genci_report_at('$as_of'::date)
apply_genci_regulation (catch-up)|BEGIN; CALL fairshare.apply_genci_regulation('$as_of'::date, 'bench'); ROLLBACK
SQL

[[ usage =~ ${MEASURE_ONLY:-.} ]] || exit 0
# The rows the coordinator receives for the usage aggregation: each task
# (one shard of jobs) sends one partial state per association with jobs in
# that shard (Citus's EXPLAIN ANALYZE cannot show it: it fails on a
# worker_partial_agg of a custom aggregate, "pseudo-type cstring").
recv=$(val coordinator bench "
  SELECT count(*) FROM (SELECT DISTINCT pg_catalog.get_shard_id_for_distribution_column('fairshare.jobs', j.job_id),
                                        j.cluster, j.account, j.user_name
                          FROM fairshare.jobs j
                         WHERE j.start_time IS NOT NULL AND j.start_time <= '$as_of') x")
scanned=$(val single bench "SELECT count(*) FROM fairshare.jobs j WHERE j.start_time IS NOT NULL AND j.start_time <= '$as_of'")
with_jobs=$(val single bench "SELECT count(*) FROM fairshare.association_usage_at('$as_of') WHERE jobs > 0")
echo
echo "usage aggregation: the single server aggregates $scanned job rows into $with_jobs associations; the"
echo "  coordinator receives $recv partial states from $shards shards (at most shards x associations"
echo "  = $(( shards * with_jobs )), whatever the number of jobs) and combines them"
