#!/usr/bin/env bash
# A backend killed with kill -9 in the middle of checkpoint_usage (issue
# 18): the server restarts, the previous checkpoint is there, valid and
# unchanged, nothing of the new one is, and the next run completes it.
# Runs inside the test cluster (test/cluster.sh test), after every other
# suite (kill -9 of a backend makes the postmaster restart all of them);
# prints TAP.
#
# The checkpoint is caught mid-way by a hook of this test only: a trigger
# on usage_checkpoint_rows that sleeps after the new checkpoint's rows are
# written, so that the kill lands after the checkpoint's writes and before
# its commit.  Without the hook the window is a few milliseconds wide.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=fs_kill_checkpoint
export PGTZ=UTC PGDATESTYLE=ISO
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; exit 1; }
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d $db "$@"; }
wait_ready() {
  for _ in $(seq 1 120); do
    psql -X -A -t -d $db -c 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

dropdb --if-exists $db 2>/dev/null
createdb $db || bail "create database $db"
trap 'dropdb --if-exists $db 2>/dev/null' EXIT

# a cluster with 20,000 jobs over 10 days of 1 to 4 CPUs, no decay; one
# checkpoint from the jobs at T0
q <<'SQL' || bail "load a cluster"
CREATE EXTENSION fairshare;
INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('kc', '2 days');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('kc', 'p', 64, 256000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('kc', 'root', NULL, 1), ('kc', 'a', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name)
SELECT 'kc', 'a', 'u' || i FROM generate_series(1, 50) i;
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
SELECT 'kc', i::text, 'u' || (1 + i % 50), 'a', 'p', 'COMPLETED',
       '2024-06-01 00:00+00'::timestamptz + i * interval '43 seconds',
       '2024-06-01 00:00+00'::timestamptz + i * interval '43 seconds',
       '2024-06-01 00:00+00'::timestamptz + i * interval '43 seconds' + (i % 7 + 1) * interval '17 minutes',
       1 + i % 4
  FROM generate_series(1, 20000) i;
CALL fairshare.checkpoint_usage('kc', '2024-06-08 00:00+00');
SQL
before=$(q -c "SELECT as_of, invalidated_at IS NULL, account, user_name, raw_usage, jobs
                 FROM fairshare.usage_checkpoints JOIN fairshare.usage_checkpoint_rows USING (cluster, as_of)
                ORDER BY as_of, user_name")
[ "$(echo "$before" | wc -l)" -eq 50 ] && ok "checkpoint at T0: 50 associations" \
  || fail "checkpoint at T0 has $(echo "$before" | wc -l) rows, not 50"

# the hook, and the checkpoint at T1 that it holds up
q <<'SQL' || bail "create the hook"
CREATE FUNCTION public.hold_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$;
CREATE TRIGGER hold AFTER INSERT ON fairshare.usage_checkpoint_rows
    FOR EACH STATEMENT EXECUTE FUNCTION public.hold_checkpoint();
SQL
psql -X -q -d $db -c "CALL fairshare.checkpoint_usage('kc', '2024-06-10 00:00+00')" >/dev/null 2>&1 &
client=$!
pid=""
for _ in $(seq 1 100); do
  pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE datname = '$db' AND wait_event = 'PgSleep'
               AND query LIKE 'CALL fairshare.checkpoint_usage%'")
  [ -n "$pid" ] && break
  sleep 0.2
done
[ -n "$pid" ] || bail "the checkpoint at T1 never reached the hook"
# what the killed transaction had written, seen from inside it, is not
# visible outside: the new checkpoint row is written but uncommitted
# (the pid is also written to $FAIRSHARE_KILLED_PIDS when set: test/sanitize.sh
# counts every other backend killed by a signal as a crash)
[ -n "${FAIRSHARE_KILLED_PIDS:-}" ] && echo "$pid" >> "$FAIRSHARE_KILLED_PIDS"
kill -9 "$pid" && ok "kill -9 of the backend in the middle of checkpoint_usage (pid $pid)" \
  || fail "kill -9 $pid"
wait "$client" 2>/dev/null
wait_ready || bail "the server did not come back after the kill"
ok "the server is back after crash recovery"

after=$(q -c "SELECT as_of, invalidated_at IS NULL, account, user_name, raw_usage, jobs
                FROM fairshare.usage_checkpoints JOIN fairshare.usage_checkpoint_rows USING (cluster, as_of)
               ORDER BY as_of, user_name")
if [ "$before" = "$after" ]; then ok "the checkpoint at T0 is there, valid and unchanged; nothing of T1"
else fail "checkpoints changed by the killed run:"; diff <(echo "$before") <(echo "$after") | head -5 | sed 's/^/# /'; fi

# the next run completes it: T1 chained from T0, equal to T1 from the jobs
q -c 'DROP TRIGGER hold ON fairshare.usage_checkpoint_rows' || fail "drop the hook"
q -c "CALL fairshare.checkpoint_usage('kc', '2024-06-10 00:00+00')" || fail "the next checkpoint_usage"
got=$(q -c "SELECT computed_from, invalidated_at IS NULL FROM fairshare.usage_checkpoints
             WHERE cluster = 'kc' AND as_of = '2024-06-10 00:00+00'")
[ "$got" = "2024-06-08 00:00:00+00|t" ] && ok "the next run makes T1, chained from T0, valid" \
  || fail "the next run gave '$got'"
diff=$(q -c "CREATE TEMP TABLE chained AS SELECT user_name, raw_usage
                  FROM fairshare_internal._checkpoint_rows('{kc}', '{2024-06-10 00:00+00}');
             CALL fairshare.checkpoint_usage('kc', '2024-06-10 00:00+00', from_jobs => true);
             SELECT count(*) FILTER (WHERE abs(r.raw_usage - c.raw_usage) > 1e-12 * r.raw_usage) || '|' || count(*)
               FROM chained c JOIN fairshare.usage_checkpoint_rows r
                 ON r.cluster = 'kc' AND r.as_of = '2024-06-10 00:00+00' AND r.user_name = c.user_name")
[ "$diff" = "0|50" ] && ok "T1 chained equals T1 from every job (relative 1e-12) for all 50 associations" \
  || fail "differing|compared associations between the chained T1 and T1 from the jobs: $diff"
echo "1..$n"
