#!/usr/bin/env bash
# Benchmark (not part of the test suite): how long a write to jobs waits for
# a chained checkpoint (the target at scale, docs/performance.md#the-targets:
# under 1 s).  Against the database the PG* variables name, holding the
# benchmark centre (test/bench/centre.sql).  It chains from a checkpoint 5
# minutes before the centre's instant, made first from every job unless a
# valid one is there (test/bench/bench_history.sql leaves one), and deletes
# any checkpoint at the instant itself.
#
#   usage: bash test/bench/checkpoint_wait.sh [rounds]
#
# Each round starts CALL checkpoint_usage('bench', bench.as_of()) in a
# transaction rolled back (every round chains from the same checkpoint),
# and beside it a writer that, until the checkpoint's session is idle
# again, updates one job in a transaction of its own every 20 ms (a change
# no checkpoint depends on: nice) and times each update.  It prints the
# checkpoint's time, the longest update (the longest wait of a write) and
# the median update of the same writer without a checkpoint beside it.
# The baseline of each round is the same checkpoint with its lock taken
# first by the caller (LOCK TABLE ... IN SHARE MODE, then CALL), which is
# how checkpoint_usage held it before it took it late: a write then waits
# for the whole call.
set -euo pipefail
rounds=${1:-3}
psql_q() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }
n=$(psql_q -c "SELECT count(*) FROM fairshare.usage_checkpoints
                WHERE cluster = 'bench' AND as_of = bench.as_of() - interval '5 minutes' AND invalidated_at IS NULL")
if [ "$n" != 1 ]; then
  psql_q -c "CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '5 minutes', from_jobs => true)"
fi
# a checkpoint at the instant itself would be replaced, which takes the
# lock first (docs/design.md#usage-checkpoints)
psql_q -c "DELETE FROM fairshare.usage_checkpoints WHERE cluster = 'bench' AND as_of = bench.as_of()"
job=$(psql_q -c "SELECT format('%L AND job_id = %L AND submit_time = %L', cluster, job_id, submit_time)
                   FROM fairshare.jobs WHERE cluster = 'bench' AND state = 'COMPLETED' LIMIT 1")
writer() {  # $1: application_name of the checkpoint session to outlive ('' : 50 updates)
  psql_q <<SQL
CREATE TEMP TABLE w (ms float8);
DO \$\$
DECLARE
    t0 timestamptz;
    n integer := 0;
BEGIN
    LOOP
        t0 := clock_timestamp();
        UPDATE fairshare.jobs SET nice = nice WHERE cluster = $job;
        INSERT INTO w VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000);
        COMMIT;
        n := n + 1;
        EXIT WHEN '$1' = '' AND n >= 50;
        EXIT WHEN '$1' <> '' AND n > 5 AND NOT EXISTS (SELECT FROM pg_stat_activity
                                  WHERE application_name = '$1' AND state = 'active');
        PERFORM pg_sleep(0.02);
    END LOOP;
END
\$\$;
SELECT round(max(ms)::numeric, 1) || ' ' || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) || ' ' || count(*) FROM w;
SQL
}
run() {  # $1: the lock taken first by the caller (1) or not (0)
  local first=""
  [ "$1" = 1 ] && first="LOCK TABLE fairshare.clusters, fairshare.partitions, fairshare.qos, fairshare.jobs IN SHARE MODE"
  local t0 t1 cp
  t0=$(date +%s.%N)
  PGAPPNAME=fs_bench_checkpoint psql_q -c "BEGIN" ${first:+-c "$first"} \
      -c "CALL fairshare.checkpoint_usage('bench', bench.as_of())" -c "ROLLBACK" &
  cp=$!
  sleep 0.05
  read -r w_max w_med w_n <<<"$(writer fs_bench_checkpoint)"
  wait $cp
  t1=$(date +%s.%N)
  elapsed=$(echo "$t1 - $t0" | bc -l)
}
for i in $(seq "$rounds"); do
  read -r base_max base_med base_n <<<"$(writer '')"
  run 1
  printf 'round %d: lock taken first:  checkpoint %.3f s; beside it %s updates, longest %s ms, median %s ms\n' \
    "$i" "$elapsed" "$w_n" "$w_max" "$w_med"
  first_max=$w_max
  run 0
  printf 'round %d: lock taken late:   checkpoint %.3f s; beside it %s updates, longest %s ms, median %s ms; ratio of the longest waits %.2f\n' \
    "$i" "$elapsed" "$w_n" "$w_max" "$w_med" "$(echo "$w_max / $first_max" | bc -l)"
  printf 'round %d: no checkpoint:     %s updates, median %s ms, longest %s ms\n' "$i" "$base_n" "$base_med" "$base_max"
done
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
