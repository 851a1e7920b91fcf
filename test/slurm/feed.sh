#!/usr/bin/env bash
# The loop with a real Slurm (docs/slurmdbd.md): a fresh Slurm
# 22.05 cluster "oracle" (test/slurm/cluster.sh: slurmctld, slurmd, slurmdbd,
# MariaDB, munge; no decay), or with SLURM_VERSION=24.11 a fresh 24.11 one in
# the Debian trixie root of test/slurm/trixie.sh (socat needed), real jobs (a requeued one, a suspended one, one
# cancelled while pending, an array), then in the PostgreSQL the PG*
# variables name:
#   - the live feed: CALL fairshare.sync_slurmdbd('oracle') through mysql_fdw
#     and a read-only MariaDB account, mid-run and at the end, one sync
#     killed with kill -9 before its commit, one repeated;
#   - the same runs as `sacct -a -P --duplicates` imported by import_sacct,
#     column by column, and sshare_at equal to the real `sshare -a -l -P`;
#   - an unknown TRES id and a missing association rejected with a reason,
#     a user renamed in Slurm followed, MariaDB down: a clear error and
#     nothing synced; the Slurm release read from slurmdbd's schema version;
#   - malformed job rows (a TRES string with a trailing comma, a time_end
#     of 9 x 10^15) rejected with their reason, the feed moving on past them;
#   - the decisions: slurm_decisions applied by the documented path,
#     tools/fairshare_apply_decisions (sacctmgr's argument vectors, no
#     shell), with hostile account names in slurmdbd (a comma, a leading -,
#     a newline) refused, not run: sacctmgr show assoc before and after
#     differs only in the intended associations; an overdrawn allocation
#     blocked; read back with sacctmgr show assoc, nothing left to do
#     after, a job of the blocked project pending with reason
#     AssocGrpBillingMinutes, and the limits synced back shown by
#     sshare_at as sshare -a -l -P shows them.
# Run as root from test/cluster.sh test when FAIRSHARE_SLURM=1 (test/run.sh
# sets it in CI), or alone: FAIRSHARE_SLURM=1 bash test/slurm/feed.sh with
# PG* set; SLURM_VERSION=24.11 bash test/slurm/feed.sh for 24.11 (test/cluster.sh
# slurm-24.11 runs it so, from bash test/run.sh slurm-24.11, a stage of CI of
# its own).  Prints TAP; stops the daemons it started at the end.
# About 4 minutes; 24.11: 146 to 151 s with the root made, and the root's making
# (trixie.sh: 153 s, 43 to 48 s on a fresh machine) the first time.  What it captured stays in $FEED_OUT (default: a
# temporary directory, removed).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export FS_HALFLIFE=0 FS_MIN_JOB_AGE=2 FS_CALC_PERIOD=1
REPO=$(pwd)
export SLURM_FROM_HOST=1
source test/slurm/lib.sh
export PGTZ=UTC PGDATESTYLE=ISO
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1: expected '$3', got '$2'"; fi; }
bail() { nok "$1"; echo "1..$n"; exit 1; }
# lib.sh's fail exits: make it a TAP failure first
fail() { nok "$*"; echo "1..$n"; exit 1; }
feed() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d fs_feed "$@"; }
sacctdb() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d fs_sacct "$@"; }

[ "$(id -u)" = 0 ] || bail "run as root (it starts Slurm and MariaDB)"
KEEP=${FEED_OUT:-}
OUT=${FEED_OUT:-$(mktemp -d)}
mkdir -p "$OUT"

# ---------------------------------------------------------------- which Slurm
# 22.05: this machine's cluster (cluster.sh), MariaDB on 127.0.0.1:3306.
# 24.11 (docs/slurm.md#slurm-2411): the cluster of test/slurm/trixie.sh's
# root, in its own network namespace; this script stays on the host with
# the PostgreSQL the PG* variables name: Slurm's commands run inside the
# root (trixie.sh run, through the wrappers put first in PATH), MariaDB is
# reached through the root's socket, and mysql_fdw through a socat bridge
# from 127.0.0.1:$FS_FEED_MARIADB_PORT to that socket.
BRIDGE_PID=""
case $SLURM_VERSION in
22.05)
  CLUSTER=(bash test/slurm/cluster.sh)
  MYSQL_SOCK=/run/mysqld/mysqld.sock
  MARIADB_PORT=3306
  ;;
24.11)
  CLUSTER=(bash test/slurm/trixie.sh)
  TRIXIE_ROOT=${FS_TRIXIE_DIR:-/var/tmp/fairshare-slurm-24.11}/root
  MYSQL_SOCK=$TRIXIE_ROOT/run/mysqld/mysqld.sock
  MARIADB_PORT=${FS_FEED_MARIADB_PORT:-13306}
  [[ $MARIADB_PORT =~ ^[0-9]{4,5}$ ]] || bail "FS_FEED_MARIADB_PORT=$MARIADB_PORT is not a port"
  command -v socat > /dev/null || bail "socat is needed for SLURM_VERSION=24.11 (apt-get install socat)"
  STATE_DIR=$TRIXIE_ROOT$STATE_DIR
  mkdir -p "$OUT/bin"
  for c in sacct sacctmgr sbatch scancel scontrol sinfo squeue sshare; do
    printf '#!/bin/sh\nexec bash %s/test/slurm/trixie.sh run %s "$@"\n' "$REPO" "$c" > "$OUT/bin/$c"
    chmod 755 "$OUT/bin/$c"
  done
  PATH=$OUT/bin:$PATH
  # the Unix users of the jobs, in the root
  users() {
    local u
    for u in "$@"; do
      bash test/slurm/trixie.sh run sh -c 'id "$1" > /dev/null 2>&1 || useradd -M -s /bin/sh "$1"' sh "$u" || fail "useradd $u"
    done
  }
  ;;
esac
mysql() { command mysql --socket="$MYSQL_SOCK" "$@"; }
cleanup() {
  [ -n "$BRIDGE_PID" ] && kill "$BRIDGE_PID" 2>/dev/null
  "${CLUSTER[@]}" stop > /dev/null 2>&1
  [ -z "$KEEP" ] && rm -rf "$OUT"
}
trap cleanup EXIT

# ---------------------------------------------------------------- Slurm
"${CLUSTER[@]}" fresh > "$OUT/cluster.log" 2>&1 || { tail -20 "$OUT/cluster.log"; bail "${CLUSTER[*]} fresh"; }
if [ "$SLURM_VERSION" = 24.11 ]; then
  socat "TCP-LISTEN:$MARIADB_PORT,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$MYSQL_SOCK" 2> "$OUT/bridge.log" &
  BRIDGE_PID=$!
  sleep 1
  kill -0 "$BRIDGE_PID" 2> /dev/null || bail "socat bridge on 127.0.0.1:$MARIADB_PORT: $(cat "$OUT/bridge.log")"
fi
ok "a fresh Slurm cluster: $(sinfo -V)"
SCENARIO=feed T0=$SECONDS
mysql <<'SQL' || bail "the read-only MariaDB account"
CREATE USER IF NOT EXISTS 'fairshare_ro'@'localhost' IDENTIFIED BY 'fairshare_ro';
CREATE USER IF NOT EXISTS 'fairshare_ro'@'127.0.0.1' IDENTIFIED BY 'fairshare_ro';
GRANT SELECT ON slurm_acct_db.* TO 'fairshare_ro'@'localhost';
GRANT SELECT ON slurm_acct_db.* TO 'fairshare_ro'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL
standard_tree

# ---------------------------------------------------------------- PostgreSQL
for db in fs_feed fs_sacct; do
  dropdb --if-exists $db 2>/dev/null
  createdb $db || bail "createdb $db"
  psql -X -q -v ON_ERROR_STOP=1 -d $db <<'SQL' || bail "fairshare in $db"
CREATE EXTENSION fairshare;
-- slurm.conf of test/slurm/conf: no decay, one node of 64 CPUs
INSERT INTO fairshare.clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 100, 1, 64, 256000),
  ('oracle', 'big', 'CPU=4.4,Mem=0.3125G', 300, 1, 64, 256000),
  ('oracle', 'low', 'CPU=0.5,Mem=0.25G', 10, 1, 64, 256000),
  ('oracle', 'parked', 'CPU=2.0,Mem=0.25G', 200, 1, 64, 256000);
SQL
done
feed -v port="$MARIADB_PORT" <<'SQL' || bail "mysql_fdw server, user mapping, slurmdbd_connect"
CREATE EXTENSION mysql_fdw;
CREATE SERVER slurmdbd FOREIGN DATA WRAPPER mysql_fdw OPTIONS (host '127.0.0.1', port :'port');
CREATE USER MAPPING FOR CURRENT_USER SERVER slurmdbd OPTIONS (username 'fairshare_ro', password 'fairshare_ro');
SELECT FROM fairshare.slurmdbd_connect('oracle', 'slurmdbd');
SQL
ok "foreign server and read-only user mapping; slurmdbd_connect made $(feed -c "SELECT foreign_schema FROM fairshare.slurmdbd_feeds")"
# the read-only account cannot write
if mysql -u fairshare_ro -pfairshare_ro -e 'DELETE FROM slurm_acct_db.oracle_assoc_table WHERE 0' 2>/dev/null; then
  nok "the MariaDB account of the feed is read-only"
else
  ok "the MariaDB account of the feed is read-only (DELETE refused)"
fi

# ---------------------------------------------------------------- jobs
submit alice chem std 2 4G 20 > /dev/null
submit bob chem std 1 2G 30 > /dev/null
rq=$(submit carol phys big 4 2G 40)
su=$(submit bob phys low 8 8G 35)
ar=$(submit alice chem std 1 1G 10 --array=1-2)
pc=$(submit carol phys parked 1 1G 10)
for j in $rq $su; do wait_state "$j" RUNNING 60; done
sleep 8
scontrol requeue "$rq" || fail "requeue $rq"
scontrol suspend "$su" || fail "suspend $su"
scancel "$pc" || fail "scancel $pc"
sleep 3
# a sync while jobs run, pending and suspended
feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync1.txt" || bail "sync while jobs run: $(cat "$OUT/sync1.txt")"
check "first sync: the tree (root, chem, phys; alice, bob twice, carol, root)" \
  "$(feed -c "SELECT (SELECT string_agg(account || ':' || coalesce(parent_account, '') || ':' || coalesce(shares::text, 'parent'), ' ' ORDER BY account) FROM fairshare.accounts), (SELECT string_agg(account || '/' || user_name || ':' || shares, ' ' ORDER BY account, user_name) FROM fairshare.account_users)")" \
  "chem:root:2 phys:root:1 root::1|chem/alice:1 chem/bob:1 phys/bob:1 phys/carol:3 root/root:1"
schema_version=$(mysql slurm_acct_db -N -B -e 'SELECT max(version) FROM convert_version_table')
check "first sync: the release read from slurmdbd's schema version ($schema_version) is $SLURM_VERSION" \
  "$(feed -c "SELECT coalesce(slurm_version, 'read') || ' ' || last_slurm_version FROM fairshare.slurmdbd_feeds")" "read $SLURM_VERSION"
check "first sync: the requeued run is REQUEUED, the suspended one SUSPENDED" \
  "$(feed -c "SELECT (SELECT state FROM fairshare.jobs WHERE job_id = '$rq' ORDER BY submit_time LIMIT 1), (SELECT state FROM fairshare.jobs WHERE job_id = '$su')")" \
  "REQUEUED|SUSPENDED"
sleep 12
scontrol resume "$su" || fail "resume $su"
# the requeued job is held back for a while (BeginTime): let it start now
scontrol update jobid="$rq" StartTime=now || fail "update $rq StartTime=now"
wait_idle 240
wait_pass 90
sleep 3

# ---------------------------------------------------------------- kill -9 before commit
jobs_md5="(SELECT md5(string_agg(j::text, ',' ORDER BY job_id, submit_time)) FROM fairshare.jobs j)"
before=$(feed -c "SELECT job_mark || ' ' || $jobs_md5 FROM fairshare.slurmdbd_feeds")
feed -c "BEGIN; CALL fairshare.sync_slurmdbd('oracle'); SELECT pg_sleep(60); COMMIT;" > /dev/null 2>&1 &
sleeper=$!
pid=""
for _ in $(seq 1 60); do
  pid=$(feed -c "SELECT pid FROM pg_stat_activity WHERE datname = 'fs_feed' AND query LIKE '%pg_sleep(60)%' AND wait_event = 'PgSleep' AND pid <> pg_backend_pid()")
  [ -n "$pid" ] && break
  sleep 0.5
done
[ -n "$pid" ] || bail "the sync to kill did not reach its sleep"
kill -9 "$pid"
wait "$sleeper"
for _ in $(seq 1 120); do feed -c 'SELECT 1' > /dev/null 2>&1 && break; sleep 0.5; done
check "a sync killed with kill -9 before its commit left nothing: marks and jobs as before" \
  "$(feed -c "SELECT job_mark || ' ' || $jobs_md5 FROM fairshare.slurmdbd_feeds")" "$before"
check "the killed sync had work to do: the next one changes the runs" \
  "$(feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync2.txt"; feed -c "SELECT (imported + updated > 0) FROM fairshare.imports WHERE import_id = (SELECT last_import_id FROM fairshare.slurmdbd_feeds)")" "t"


# ---------------------------------------------------------------- the same runs as sacct
since=$(date -u -d @"$(( $(date -u +%s) - 3600 ))" +%FT%T)
timeout 60 sacct -a -P --duplicates -S "$since" -E now --format="$SACCT_FIELDS" > "$OUT/sacct.txt" || bail "sacct"
timeout 30 sshare -a -l -P > "$OUT/sshare.txt" || bail "sshare"
instant=$(date -u +%FT%TZ)
# a sync after the export sees at least what the export saw
feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync3.txt" || bail "sync after the export: $(cat "$OUT/sync3.txt")"
feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync3b.txt" || bail "repeated sync: $(cat "$OUT/sync3b.txt")"
check "the repeated sync imports and updates nothing" \
  "$(feed -c "SELECT imported || ' ' || updated || ' ' || rejected || ' ' || (unchanged > 0) FROM fairshare.imports WHERE import_id = (SELECT last_import_id FROM fairshare.slurmdbd_feeds)")" \
  "0 0 0 true"
sacctdb -c "SELECT fairshare.import_stage()" -c "\\copy import_staging (line) FROM '$OUT/sacct.txt' (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')" \
        -c "SELECT imported, rejected FROM fairshare.import_sacct('oracle', 'UTC', create_missing => true)" > "$OUT/import.txt" \
  || bail "import_sacct of the sacct export"
# what slurmdbd holds, kept with the rest in $OUT
# (the columns of the feed's foreign tables: test/fixtures/slurm/feed/ keeps a capture)
mysql slurm_acct_db -B -e 'SELECT job_db_inx, mod_time, deleted, account, array_task_str, id_array_job, id_array_task, id_assoc, id_job, id_qos, het_job_id, het_job_offset, nodes_alloc, cpus_req, `partition`, state, timelimit, time_submit, time_eligible, time_start, time_end, time_suspended, tres_alloc, tres_req, id_resv FROM oracle_job_table ORDER BY job_db_inx' > "$OUT/job_table.tsv"
mysql slurm_acct_db -B -e 'SELECT mod_time, deleted, id_assoc, user, acct, `partition`, parent_acct, lft, shares, grp_tres_mins, def_qos_id, qos FROM oracle_assoc_table ORDER BY id_assoc' > "$OUT/assoc_table.tsv"
mysql slurm_acct_db -B -e 'SELECT id, deleted, type, name FROM tres_table ORDER BY id' > "$OUT/tres_table.tsv"
mysql slurm_acct_db -B -e 'SELECT id, deleted, name FROM qos_table ORDER BY id' > "$OUT/qos_table.tsv"
mysql slurm_acct_db -B -e 'SELECT version FROM convert_version_table' > "$OUT/convert_version_table.tsv"
runs_sql="SELECT cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time, start_time, end_time, time_limit, tres, cpus, mem_mb, gpus, nodes, scratch_mb, exclusive, nice, suspended FROM fairshare.jobs ORDER BY cluster, job_id, submit_time"
feed -c "$runs_sql" > "$OUT/runs_feed.txt"
sacctdb -c "$runs_sql" > "$OUT/runs_sacct.txt"
nruns=$(wc -l < "$OUT/runs_sacct.txt")
if [ "$nruns" -ge 8 ] && diff "$OUT/runs_sacct.txt" "$OUT/runs_feed.txt" > "$OUT/runs.diff"; then
  ok "the feed holds the same $nruns runs as sacct -a -P --duplicates imported, every column"
else
  nok "the feed's runs differ from the sacct import's ($nruns runs):"; sed 's/^/# /' "$OUT/runs.diff" | head -30
fi
check "requeued run, the run after it, the suspended time (35 s job, suspended about 12 s)" \
  "$(feed -c "SELECT (SELECT count(*) FROM fairshare.jobs WHERE job_id = '$rq'), (SELECT suspended >= '10 s' AND suspended <= '20 s' FROM fairshare.jobs WHERE job_id = '$su'), (SELECT count(*) FROM fairshare.jobs WHERE job_id LIKE '${ar}_%'), (SELECT state FROM fairshare.jobs WHERE job_id = '$pc')")" \
  "2|t|2|CANCELLED"

# sshare at the same instant, column by column at Slurm's digits
feed > "$OUT/sshare_diff.txt" <<SQL
CREATE TEMP TABLE slurm_sshare (account text, user_name text, raw_shares text, norm_shares text,
    raw_usage text, norm_usage text, effectv_usage text, fairshare text, level_fs text,
    grp_tres_mins text, tres_run_mins text);
\\copy slurm_sshare FROM '$OUT/sshare.txt' (FORMAT csv, DELIMITER '|', HEADER)
CREATE FUNCTION pg_temp.f6(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS \$\$
    SELECT CASE WHEN x IS NULL THEN '' WHEN x = 'Infinity' THEN 'inf'
                ELSE to_char(x, 'FM99999999990.000000') END \$\$;
WITH ours AS (
    SELECT s.account, COALESCE(s.user_name, '') AS user_name,
           COALESCE(s.raw_shares::text, '') AS raw_shares, pg_temp.f6(s.norm_shares) AS norm_shares,
           s.raw_usage_int::text AS raw_usage, pg_temp.f6(s.norm_usage) AS norm_usage,
           pg_temp.f6(s.effectv_usage) AS effectv_usage, pg_temp.f6(s.fairshare) AS fairshare,
           pg_temp.f6(s.level_fs) AS level_fs
      FROM fairshare.sshare_at('$instant') s WHERE s.cluster = 'oracle'),
theirs AS (
    SELECT btrim(t.account) AS account, COALESCE(t.user_name, '') AS user_name,
           COALESCE(t.raw_shares, '') AS raw_shares, COALESCE(t.norm_shares, '') AS norm_shares,
           COALESCE(t.raw_usage, '') AS raw_usage, COALESCE(t.norm_usage, '') AS norm_usage,
           COALESCE(t.effectv_usage, '') AS effectv_usage, COALESCE(t.fairshare, '') AS fairshare,
           COALESCE(t.level_fs, '') AS level_fs
      FROM slurm_sshare t)
SELECT COALESCE(t.account, o.account) || '|' || COALESCE(t.user_name, o.user_name) || '|' || c.col || '|' || coalesce(c.slurm, '-') || '|' || coalesce(c.ours, '-')
  FROM theirs t FULL JOIN ours o ON o.account = t.account AND o.user_name = t.user_name
 CROSS JOIN LATERAL (VALUES
    ('row', CASE WHEN t.account IS NULL THEN 'missing' ELSE 'present' END,
            CASE WHEN o.account IS NULL THEN 'missing' ELSE 'present' END),
    ('RawShares', t.raw_shares, o.raw_shares), ('NormShares', t.norm_shares, o.norm_shares),
    ('RawUsage', t.raw_usage, o.raw_usage), ('NormUsage', t.norm_usage, o.norm_usage),
    ('EffectvUsage', t.effectv_usage, o.effectv_usage), ('FairShare', t.fairshare, o.fairshare),
    ('LevelFS', t.level_fs, o.level_fs)) AS c (col, slurm, ours)
 WHERE c.slurm IS DISTINCT FROM c.ours;
SQL
nusage=$(awk -F'|' 'NR > 1 && $5 > 0' "$OUT/sshare.txt" | wc -l)
if [ -s "$OUT/sshare.txt" ] && [ "$nusage" -ge 4 ] && [ ! -s "$OUT/sshare_diff.txt" ]; then
  ok "sshare_at($instant) equals the real sshare -a -l -P, every column of its $(($(wc -l < "$OUT/sshare.txt") - 1)) rows ($nusage with usage)"
else
  nok "sshare_at differs from the real sshare ($nusage rows with usage):"; sed 's/^/# /' "$OUT/sshare_diff.txt" | head -30
fi

# ---------------------------------------------------------------- rejects
# (24.11's job_db_inx has no AUTO_INCREMENT, slurmctld gives each record a
# SLUID: the rows written here by hand get their id_job as job_db_inx)
job_rows() {
  if [ "$SLURM_VERSION" = 24.11 ]; then
    sed -E -e 's/^INSERT INTO oracle_job_table \(/INSERT INTO oracle_job_table (job_db_inx, /' \
           -e "s/^(SELECT |VALUES \()UNIX_TIMESTAMP\(\), 'chem', (9000[0-9]),/\1\2, UNIX_TIMESTAMP(), 'chem', \2,/"
  else
    cat
  fi
}
job_rows <<'SQL' | mysql slurm_acct_db || bail "bad rows in job_table"
-- the columns not given take their type's implicit default
SET SESSION sql_mode = '';
INSERT INTO oracle_job_table (mod_time, account, id_job, id_assoc, id_user, id_group, `partition`, state, time_submit, time_eligible,
    time_start, time_end, timelimit, nodes_alloc, cpus_req, tres_alloc, tres_req, job_name, work_dir, nodelist, node_inx)
SELECT UNIX_TIMESTAMP(), 'chem', 90001, id_assoc, 0, 0, 'std', 3, UNIX_TIMESTAMP() - 100, UNIX_TIMESTAMP() - 100,
       UNIX_TIMESTAMP() - 90, UNIX_TIMESTAMP() - 30, 10, 1, 1, '1=1,2=1024,4=1,5=1,999=4', '1=1,2=1024,4=1,5=1', 'x', '/', 'n1', '0'
  FROM oracle_assoc_table WHERE user = 'alice' AND acct = 'chem';
INSERT INTO oracle_job_table (mod_time, account, id_job, id_assoc, id_user, id_group, `partition`, state, time_submit, time_eligible,
    time_start, time_end, timelimit, nodes_alloc, cpus_req, tres_alloc, tres_req, job_name, work_dir, nodelist, node_inx)
VALUES (UNIX_TIMESTAMP(), 'chem', 90002, 99999, 0, 0, 'std', 3, UNIX_TIMESTAMP() - 100, UNIX_TIMESTAMP() - 100,
       UNIX_TIMESTAMP() - 90, UNIX_TIMESTAMP() - 30, 10, 1, 1, '1=1,2=1024,4=1,5=1', '1=1,2=1024,4=1,5=1', 'x', '/', 'n1', '0');
-- malformed rows, which stay: a trailing comma in tres_alloc, and a
-- time_end of 9 x 10^15 s (no timestamp reaches it; read by every sync,
-- since time_end is after the mark)
INSERT INTO oracle_job_table (mod_time, account, id_job, id_assoc, id_user, id_group, `partition`, state, time_submit, time_eligible,
    time_start, time_end, timelimit, nodes_alloc, cpus_req, tres_alloc, tres_req, job_name, work_dir, nodelist, node_inx)
SELECT UNIX_TIMESTAMP(), 'chem', 90003, id_assoc, 0, 0, 'std', 3, UNIX_TIMESTAMP() - 100, UNIX_TIMESTAMP() - 100,
       UNIX_TIMESTAMP() - 90, UNIX_TIMESTAMP() - 30, 10, 1, 1, '1=4,', '1=1,2=1024,4=1,5=1', 'x', '/', 'n1', '0'
  FROM oracle_assoc_table WHERE user = 'alice' AND acct = 'chem';
INSERT INTO oracle_job_table (mod_time, account, id_job, id_assoc, id_user, id_group, `partition`, state, time_submit, time_eligible,
    time_start, time_end, timelimit, nodes_alloc, cpus_req, tres_alloc, tres_req, job_name, work_dir, nodelist, node_inx)
SELECT UNIX_TIMESTAMP(), 'chem', 90004, id_assoc, 0, 0, 'std', 3, UNIX_TIMESTAMP() - 100, UNIX_TIMESTAMP() - 100,
       UNIX_TIMESTAMP() - 90, 9000000000000000, 10, 1, 1, '1=1,2=1024,4=1,5=1', '1=1,2=1024,4=1,5=1', 'x', '/', 'n1', '0'
  FROM oracle_assoc_table WHERE user = 'alice' AND acct = 'chem';
SQL
badmod=$(mysql slurm_acct_db -N -B -e 'SELECT max(mod_time) FROM oracle_job_table WHERE id_job IN (90003, 90004)')
feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync4.txt" || bail "sync with bad rows: $(cat "$OUT/sync4.txt")"
check "an unknown TRES id, a missing association, a malformed TRES string and a time_end out of range go to the rejects with their reason; the runs stay as they were" \
  "$(feed -c "SELECT string_agg(job_id || ': ' || reason, '; ' ORDER BY job_id) FROM fairshare.import_rejects WHERE import_id = (SELECT last_import_id FROM fairshare.slurmdbd_feeds)")|$(feed -c "SELECT count(*) FROM fairshare.jobs")" \
  "90001: unknown TRES id 999 (not in tres_table); 90002: association 99999 is not in the association table of slurmdbd; 90003: tres_alloc '1=4,' is not a list of TRES id=count; 90004: time_end 9000000000000000 is not an instant before the year 10000 (Unix seconds)|$nruns"
check "the job mark moved past the malformed rows (mark >= their mod_time $badmod)" \
  "$(feed -c "SELECT job_mark >= $badmod FROM fairshare.slurmdbd_feeds")" "t"
mysql slurm_acct_db -e 'DELETE FROM oracle_job_table WHERE id_job IN (90001, 90002)'

# ---------------------------------------------------------------- hostile names in slurmdbd
# An account coordinator can name an account as it likes: a newline (the
# next line was a command of the old sh apply path), a comma (sacctmgr
# reads two accounts, root among them), a leading - (an option of
# sacctmgr).  Written into slurmdbd's association table, as slurmdbd
# stores them; the feed brings them in.
mysql slurm_acct_db <<'SQL' || bail "hostile account names in slurmdbd"
SET SESSION sql_mode = '';
INSERT INTO oracle_assoc_table (creation_time, mod_time, deleted, user, acct, `partition`, parent_acct, lft, rgt, shares)
VALUES (UNIX_TIMESTAMP(), UNIX_TIMESTAMP(), 0, '', 'proj,root', '', 'root', 1000, 1001, 1),
       (UNIX_TIMESTAMP(), UNIX_TIMESTAMP(), 0, '', '-mother', '', 'root', 1002, 1003, 1),
       (UNIX_TIMESTAMP(), UNIX_TIMESTAMP(), 0, '', 'csub\ntouch x #', '', 'root', 1004, 1005, 1);
SQL
# 24.11 keeps the tree in id_parent and lineage (docs/slurm.md#slurm-2411)
if [ "$SLURM_VERSION" = 24.11 ]; then
  mysql slurm_acct_db <<'SQL' || bail "the lineage of the hostile accounts"
SET @root = (SELECT id_assoc FROM oracle_assoc_table WHERE acct = 'root' AND user = '' AND `partition` = '');
UPDATE oracle_assoc_table SET id_parent = @root, lineage = CONCAT('/', acct, '/') WHERE lft >= 1000 AND user = '';
SQL
fi
feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync4b.txt" || bail "sync of the hostile names: $(cat "$OUT/sync4b.txt")"
check "the feed brought the three hostile account names in" \
  "$(feed -c "SELECT string_agg(to_json(account)::text, ' ' ORDER BY account COLLATE \"C\") FROM fairshare.accounts WHERE account IN ('proj,root', '-mother', E'csub\ntouch x #')")" \
  '"-mother" "csub\ntouch x #" "proj,root"'

# ---------------------------------------------------------------- decisions out
feed > /dev/null <<'SQL' || bail "allocations in fairshare"
-- chem: GENCI, 100 h granted, 40 h taken back: 60 h net = 3600 billing minutes
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', 'chem', 'genci', date_trunc('year', now())::date, (date_trunc('year', now()) + interval '1 year - 1 day')::date, 100);
INSERT INTO fairshare.ledger (allocation_id, kind, hours, reason, effective_date)
SELECT allocation_id, 'take_back', 40, 'test', current_date FROM fairshare.allocations WHERE account = 'chem';
-- phys: RWTH, 0.001 core-h a month; its jobs consumed far more than 6 x that: blocked
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours, monthly_allowance)
VALUES ('oracle', 'phys', 'rwth', date_trunc('month', now())::date, (date_trunc('month', now()) + interval '3 months - 1 day')::date, 0.003, 0.001);
-- old: an account of fairshare only, whose allocation ended last year
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('oracle', 'old', 'root', 5);
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', 'old', 'genci', (date_trunc('year', now()) - interval '1 year')::date, (date_trunc('year', now()) - interval '1 day')::date, 10);
-- over: an account of fairshare only whose GENCI allocation is overdrawn:
-- 10 h granted, 25 h taken back = -15 h net: blocked (billing=0), not
-- unlimited
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('oracle', 'over', 'root', 1);
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', 'over', 'genci', date_trunc('year', now())::date, (date_trunc('year', now()) + interval '1 year - 1 day')::date, 10);
INSERT INTO fairshare.ledger (allocation_id, kind, hours, reason, effective_date)
SELECT allocation_id, 'take_back', 25, 'test', current_date FROM fairshare.allocations WHERE account = 'over';
-- chem's Fairshare decided here: 3
UPDATE fairshare.accounts SET shares = 3 WHERE account = 'chem';
-- decisions about the hostile names: proj,root's allocation ended (limit
-- 0: "where name=proj,root" would block root too), -mother's GENCI
-- allocation runs, the newline account's Fairshare changed, and a user
-- association alice,mallory (two users to sacctmgr)
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('oracle', 'proj,root', 'genci', (date_trunc('year', now()) - interval '1 year')::date, (date_trunc('year', now()) - interval '1 day')::date, 10),
       ('oracle', '-mother', 'genci', date_trunc('year', now())::date, (date_trunc('year', now()) + interval '1 year - 1 day')::date, 10);
UPDATE fairshare.accounts SET shares = 7 WHERE account = E'csub\ntouch x #';
INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES ('oracle', 'chem', 'alice,mallory', 1);
SQL
feed -c "SELECT step || ' ' || coalesce(command, refused) || '  # ' || reason FROM fairshare.slurm_decisions('oracle')" > "$OUT/decisions.txt" || bail "slurm_decisions"
sed 's/^/# /' "$OUT/decisions.txt"
check "the decisions: add old and over, chem's Fairshare, four limits; refused: the newline account, alice,mallory, proj,root, -mother" \
  "$(feed -c "SELECT string_agg(step || ':' || to_json(account)::text || coalesce('/' || to_json(user_name)::text, '') || CASE WHEN refused IS NULL THEN '' ELSE ':refused' END, ' ' ORDER BY step, account COLLATE \"C\", user_name) FROM fairshare.slurm_decisions('oracle')")" \
  '1:"old" 1:"over" 2:"chem" 2:"csub\ntouch x #":refused 3:"chem"/"alice,mallory":refused 5:"-mother":refused 5:"chem" 5:"old" 5:"over" 5:"phys" 5:"proj,root":refused'
# the documented path: the applier, from a scratch directory (a "touch x"
# run by anything would leave x there)
APPLY=$(command -v fairshare_apply_decisions || true)
[ -n "$APPLY" ] || APPLY="$("${PG_CONFIG:-pg_config}" --bindir)/fairshare_apply_decisions"
[ -x "$APPLY" ] || APPLY="$REPO/tools/fairshare_apply_decisions"
[ -x "$APPLY" ] || bail "fairshare_apply_decisions is not built (make)"
timeout 30 sacctmgr -n -P show assoc format=Cluster,Account,User,ParentName,Fairshare,GrpTRESMins,QOS | sort > "$OUT/assoc_before.txt"
mkdir -p "$OUT/apply" && rm -f "$OUT/apply/x"
(cd "$OUT/apply" && "$APPLY" -d "dbname=fs_feed" oracle) > "$OUT/apply.txt" 2>&1
st=$?
sed 's/^/# /' "$OUT/apply.txt"
check "fairshare_apply_decisions ran the 7 decisions, refused the 4, exit status 2 (some refused)" \
  "$st|$(tail -1 "$OUT/apply.txt")" "2|# 7 applied, 4 refused"
check "no decision ran a shell: no file x made" "$([ -e "$OUT/apply/x" ] && echo made || echo none)" "none"
timeout 30 sacctmgr -n -P show assoc format=Cluster,Account,User,ParentName,Fairshare,GrpTRESMins,QOS | sort > "$OUT/assoc_applied.txt"
check "sacctmgr show assoc -P before and after: only chem, phys, old and over changed (root, the users and the hostile accounts as they were)" \
  "$(diff "$OUT/assoc_before.txt" "$OUT/assoc_applied.txt" | awk -F'|' '/^[<>]/ {print $2 "/" $3}' | sort -u | tr '\n' ' ')" \
  "chem/ old/ over/ phys/ "
timeout 30 sacctmgr -n -P show assoc where cluster=oracle format=Account,User,ParentName,Fairshare,GrpTRESMins > "$OUT/assoc_after.txt"
check "sacctmgr show assoc -P: chem Fairshare 3 and billing=3600, phys billing=0 (blocked), old under root with 5 shares and billing=0, over billing=0 (overdrawn)" \
  "$(awk -F'|' '$2 == "" && ($1 == "chem" || $1 == "old" || $1 == "over" || $1 == "phys") {printf "%s%s:%s:%s:%s", sep, $1, $3, $4, $5; sep = " "}' "$OUT/assoc_after.txt" | tr -d '\n')" \
  "chem:root:3:billing=3600 old:root:5:billing=0 over:root:1:billing=0 phys:root:1:billing=0"
check "against the slurmdbd that now matches, slurm_decisions gives only the 4 refused" \
  "$(feed -c "SELECT count(*) || ' ' || count(refused) FROM fairshare.slurm_decisions('oracle')")" "4 4"
feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync5.txt" || bail "sync after the decisions"
# (the newline account's association row is at the association mark, which
# a sync reads again: its Fairshare comes back from slurmdbd, 1, and with
# it the decision about it goes)
check "after a sync that reads Slurm's changed associations back, only the refused: alice,mallory, -mother, proj,root" \
  "$(feed -c "SELECT string_agg(step || ':' || coalesce(user_name, account), ' ' ORDER BY step, account COLLATE \"C\") || '|' || count(*) FILTER (WHERE refused IS NULL) FROM fairshare.slurm_decisions('oracle')")" \
  "3:alice,mallory 5:-mother 5:proj,root|0"
end=$((SECONDS + 30))
until timeout 20 scontrol show assoc_mgr accounts=phys flags=assoc 2>/dev/null | grep -q 'GrpTRESMins=.*billing=0'; do
  [ $SECONDS -ge $end ] && break; sleep 1
done
bl=$(submit carol phys std 1 1G 10)
reason=""
end=$((SECONDS + 40))
while [ $SECONDS -lt $end ]; do
  reason=$(timeout 20 squeue -h -j "$bl" -o '%T %r')
  [ "$reason" = "PENDING AssocGrpBillingMinutes" ] && break
  sleep 2
done
check "a job of the blocked project stays pending with Slurm's reason" "$reason" "PENDING AssocGrpBillingMinutes"
scancel "$bl"
# sshare's GrpTRESMins once slurmctld holds the three limits, and
# sshare_at's after the sync read them back: every association's cell
grp_col() { awk -F'|' 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "GrpTRESMins") c = i; next}
                       c {sub(/^ +/, "", $1); print $1 "|" $2 "|" $c}' "$@"; }
end=$((SECONDS + 30))
until [ "$(timeout 20 sshare -a -l -P 2>/dev/null | grp_col | awk -F'|' '$3 != ""' | wc -l)" -ge 4 ]; do
  [ $SECONDS -ge $end ] && break; sleep 1
done
timeout 20 sshare -a -l -P > "$OUT/sshare_after.txt"
grp_col "$OUT/sshare_after.txt" | sort > "$OUT/grp_slurm.txt"
# (the hostile accounts were written into MariaDB behind slurmdbd's back:
# slurmctld never heard of them, so sshare does not show them; the user
# alice,mallory was refused, so Slurm never had it)
feed -c "SELECT account || '|' || COALESCE(user_name, '') || '|' || COALESCE(grp_tres_mins, '') FROM fairshare.sshare_at(now()) WHERE cluster = 'oracle' AND account NOT IN ('proj,root', '-mother', E'csub\ntouch x #') AND user_name IS DISTINCT FROM 'alice,mallory'" \
  | sort > "$OUT/grp_ours.txt"
nlim=$(awk -F'|' '$3 != ""' "$OUT/grp_slurm.txt" | wc -l)
if [ "$nlim" -ge 4 ] && diff "$OUT/grp_slurm.txt" "$OUT/grp_ours.txt" > "$OUT/grp.diff"; then
  ok "sshare -a -l -P's GrpTRESMins equals sshare_at's, every association ($(wc -l < "$OUT/grp_slurm.txt"), $nlim limits: $(awk -F'|' '$3 != "" {printf "%s%s=%s", s, $1, $3; s = " "}' "$OUT/grp_slurm.txt"))"
else
  nok "GrpTRESMins: sshare and sshare_at differ ($nlim limits in sshare):"; sed 's/^/# /' "$OUT/grp.diff" | head -20
fi

# ---------------------------------------------------------------- rename
nbob=$(feed -c "SELECT count(*) FROM fairshare.jobs WHERE user_name = 'bob'")
timeout 30 sacctmgr -i modify user where name=bob set newname=robert > /dev/null || bail "sacctmgr rename bob"
feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$OUT/sync6.txt" || bail "sync after the rename"
# (the job of the blocked project, cancelled while pending, is read: a run,
# or a reject of its own)
check "the feed moved on past the malformed rows: the job of the blocked project ($bl) read by the sync, 90004 rejected again" \
  "$(feed -c "SELECT (SELECT count(*) FROM fairshare.jobs WHERE job_id = '$bl') + (SELECT count(*) FROM fairshare.import_rejects WHERE job_id = '$bl' AND import_id = (SELECT last_import_id FROM fairshare.slurmdbd_feeds)), (SELECT count(*) FROM fairshare.import_rejects WHERE job_id = '90004' AND import_id = (SELECT last_import_id FROM fairshare.slurmdbd_feeds))")" \
  "1|1"
check "bob renamed robert in Slurm: his associations and his $nbob runs follow" \
  "$(feed -c "SELECT (SELECT string_agg(account, ',' ORDER BY account) FROM fairshare.account_users WHERE user_name = 'robert'), (SELECT count(*) FROM fairshare.jobs WHERE user_name = 'robert'), (SELECT count(*) FROM fairshare.account_users WHERE user_name = 'bob')")" \
  "chem,phys|$nbob|0"

# ---------------------------------------------------------------- MariaDB down
stop_pid() { local pid; pid=$(cat "$1" 2>/dev/null) || return 0; kill "$pid" 2>/dev/null; for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 1; done; }
before=$(feed -c "SELECT job_mark || ' ' || assoc_mark || ' ' || last_import_id || ' ' || $jobs_md5 FROM fairshare.slurmdbd_feeds")
stop_pid "${MYSQL_SOCK%/*}/mysqld.pid"
err=$(feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2>&1)
case "$err" in
  *'cannot read the slurmdbd of cluster "oracle"'*) ok "MariaDB down: a clear error ($(echo "$err" | head -1 | cut -c1-140))" ;;
  *) nok "MariaDB down: expected a clear error, got: $err" ;;
esac
check "MariaDB down: nothing synced (marks, last import, jobs)" \
  "$(feed -c "SELECT job_mark || ' ' || assoc_mark || ' ' || last_import_id || ' ' || $jobs_md5 FROM fairshare.slurmdbd_feeds")" "$before"

say "done in $((SECONDS - T0)) s"
if [ -z "$KEEP" ]; then dropdb fs_sacct 2>/dev/null; dropdb fs_feed 2>/dev/null; fi
echo "1..$n"
