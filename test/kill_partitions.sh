#!/usr/bin/env bash
# A backend killed with kill -9 in the middle of maintain_partitions, then
# of retain_jobs: the server restarts, every table is as it was
# before the run (the runs, the partitions, the checkpoints), and the next
# run completes the work.  Runs inside the test cluster (test/cluster.sh
# test), after every other suite (kill -9 of a backend makes the postmaster
# restart all of them); prints TAP.
#
# Each run is caught mid-way by a hook of this test only: an event trigger
# that sleeps at the end of an ALTER TABLE.  maintain_partitions' first ALTER
# TABLE is the ATTACH of a month whose runs it has just moved out of
# jobs_default; retain_jobs' is the DETACH of a month it has pinned the
# checkpoint of and archived.  The kill lands after those writes and before
# the commit.  Without the hook the window is milliseconds wide.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=fs_kill_partitions
export PGTZ=UTC PGDATESTYLE=ISO
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; echo "1..$n"; exit 1; }
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d $db "$@"; }
wait_ready() {
  for _ in $(seq 1 120); do
    psql -X -A -t -d $db -c 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}
tmp=$(mktemp -d)
archive=$(mktemp -d); chmod 1777 "$archive"
dropdb --if-exists $db 2>/dev/null
createdb $db || bail "create database $db"
trap 'rm -rf "$tmp" "$archive"; dropdb --if-exists $db 2>/dev/null' EXIT

# a cluster with 20,000 runs over January to March 2024, all in jobs_default
q <<'SQL' || bail "load a cluster"
CREATE EXTENSION fairshare;
INSERT INTO fairshare.clusters (cluster, decay_half_life) VALUES ('kp', '7 days');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('kp', 'p', 64, 256000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('kp', 'root', NULL, 1), ('kp', 'a', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name)
SELECT 'kp', 'a', 'u' || i FROM generate_series(1, 50) i;
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
SELECT 'kp', i::text, 'u' || (1 + i % 50), 'a', 'p', 'COMPLETED',
       '2024-01-01 00:00+00'::timestamptz + i * interval '6 minutes 30 seconds',
       '2024-01-01 00:00+00'::timestamptz + i * interval '6 minutes 30 seconds',
       '2024-01-01 00:00+00'::timestamptz + i * interval '6 minutes 30 seconds' + (i % 7 + 1) * interval '17 minutes',
       1 + i % 4
  FROM generate_series(0, 19999) i;
-- the hook: sleeps at the end of each ALTER TABLE while it exists
CREATE FUNCTION public.hold_alter() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM pg_sleep(60); END $$;
SQL
snapshot() { psql -X -A -q -v ON_ERROR_STOP=1 -v as_of='2024-06-01 00:00+00' -d $db -f test/snapshot.sql | LC_ALL=C sort; }
layout() { q -c "SELECT p.relation, p.month_start FROM fairshare.job_partitions() p ORDER BY 2 NULLS FIRST, 1"; }
hook() { q -c "CREATE EVENT TRIGGER hold ON ddl_command_end WHEN TAG IN ('ALTER TABLE') EXECUTE FUNCTION public.hold_alter()"; }
unhook() { q -c "DROP EVENT TRIGGER hold"; }
# run $1 in the background, kill -9 its backend once it sleeps in the hook
kill_mid() {
  psql -X -q -d $db -c "SET client_min_messages = warning" -c "$1" >/dev/null 2>&1 &
  local client=$! pid=""
  for _ in $(seq 1 150); do
    pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE datname = '$db' AND wait_event = 'PgSleep'
                 AND query LIKE '$2%'")
    [ -n "$pid" ] && break
    sleep 0.2
  done
  [ -n "$pid" ] || { kill "$client" 2>/dev/null; return 1; }
  # where it is: the locks it holds on the relation $3
  held=$(q -c "SELECT string_agg(mode, ',' ORDER BY mode) FROM pg_locks WHERE pid = $pid AND relation = '$3'::regclass")
  # (listed for test/sanitize.sh, which counts every other killed backend as a crash)
  [ -n "${FAIRSHARE_KILLED_PIDS:-}" ] && echo "$pid" >> "$FAIRSHARE_KILLED_PIDS"
  kill -9 "$pid" || return 1
  wait "$client" 2>/dev/null
  wait_ready
}

# --- maintain_partitions ---------------------------------------------------
snapshot > "$tmp/s0" || bail "snapshot"
layout > "$tmp/l0"
hook || bail "create the hook"
if kill_mid "CALL fairshare.maintain_partitions()" "CALL fairshare.maintain_partitions" fairshare.jobs_default; then
  ok "kill -9 of the backend in maintain_partitions, after January's runs moved and its partition attached; the server is back"
else bail "maintain_partitions never reached the hook, or the server did not come back"; fi
[[ "$held" == *AccessExclusiveLock* ]] && ok "it was killed holding jobs_default ($held), in the month's transaction" \
  || fail "locks it held on jobs_default when killed: '$held'"
default=$(q -c "SELECT count(*) FROM ONLY fairshare.jobs_default")
if layout | cmp -s "$tmp/l0" - && [ "$default" = 20000 ] && [ -z "$(q -c "SELECT to_regclass('fairshare.jobs_p2024_01')")" ] \
   && snapshot | cmp -s "$tmp/s0" -; then
  ok "the state before it: jobs_default alone with all 20000 runs, no table of January, every table the same"
else fail "after the kill: $default runs in jobs_default, partitions: $(layout | paste -sd' ')"; fi
unhook || fail "drop the hook"
q -c "SET client_min_messages = warning" -c "CALL fairshare.maintain_partitions()" || fail "the next maintain_partitions"
got=$(q -c "SELECT string_agg(format('%s:%s', c.relname, (xpath('//n/text()', query_to_xml(format('SELECT count(*) AS n FROM %s', p.relation), false, false, '')))[1]), ' ')
              FROM fairshare.job_partitions() p JOIN pg_class c ON c.oid = p.relation
             WHERE p.month_start IS NULL OR p.month_start < '2024-04-01'")
if [ "$got" = "jobs_default:0 jobs_p2024_01:6868 jobs_p2024_02:6425 jobs_p2024_03:6707" ] && snapshot | cmp -s "$tmp/s0" -; then
  ok "the next run completes it: $got; every table the same"
else fail "after the next run: $got"; fi

# --- retain_jobs ---------------------------------------------------------------
q -c "CALL fairshare.checkpoint_usage('kp', '2024-02-15 00:00+00')" || bail "checkpoint"
# the rollups hold January before it goes (retain_jobs refuses otherwise)
q -c "SELECT count(*) FROM fairshare.refresh_rollups('kp')" >/dev/null || bail "refresh_rollups"
snapshot > "$tmp/s1"
layout > "$tmp/l1"
hook || bail "create the hook again"
if kill_mid "CALL fairshare.retain_jobs('2024-02-01', '$archive')" "CALL fairshare.retain_jobs" fairshare.jobs; then
  ok "kill -9 of the backend in retain_jobs, after January's checkpoint pinned, its archive written and the partition detached; the server is back"
else bail "retain_jobs never reached the hook, or the server did not come back"; fi
written=$(tail -n +2 "$archive/jobs_p2024_01.csv" 2>/dev/null | wc -l)
[[ "$held" == *AccessExclusiveLock* ]] && [ "$written" = 6868 ] \
  && ok "it was killed holding jobs for the detach ($held), the archive written ($written runs)" \
  || fail "locks it held on jobs when killed: '$held', archive rows: $written"
rm -f "$archive/jobs_p2024_01.csv"
pinned=$(q -c "SELECT count(*) FROM fairshare.usage_checkpoints WHERE pinned")
if layout | cmp -s "$tmp/l1" - && [ "$pinned" = 0 ] && snapshot | cmp -s "$tmp/s1" -; then
  ok "the state before it: January attached with its runs, no checkpoint pinned, every table the same"
else fail "after the kill: $pinned pinned, partitions: $(layout | paste -sd' ')"; fi
unhook || fail "drop the hook"
q -c "CALL fairshare.retain_jobs('2024-02-01', '$archive')" || fail "the next retain_jobs"
rows=$(tail -n +2 "$archive/jobs_p2024_01.csv" 2>/dev/null | wc -l)
got=$(q -c "SELECT to_regclass('fairshare.jobs_p2024_01') IS NULL, (SELECT string_agg(as_of::text, ',') FROM fairshare.usage_checkpoints WHERE pinned),
                   (SELECT count(*) FROM fairshare.jobs)")
if [ "$got" = "t|2024-02-15 00:00:00+00|13132" ] && [ "$rows" = 6868 ]; then
  ok "the next run completes it: January archived ($rows runs in the file, written again) and gone, its checkpoint pinned, 13132 runs left"
else fail "after the next run: $got, $rows runs in the archive"; fi
echo "1..$n"
