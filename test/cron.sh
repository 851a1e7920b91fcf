#!/usr/bin/env bash
# Scheduling with pg_cron (docs/history.md): a throwaway
# PostgreSQL of its own, started with pg_cron loaded, runs the two jobs
# docs/history.md schedules, CALL fairshare.checkpoint_usage() and CALL
# fairshare.maintain_partitions(), and each is seen to run: succeeded in
# cron.job_run_details, and its effect (a new checkpoint, new partitions).
# pg_cron 1.5 and later take a schedule of '5 seconds'; the 1.4 of Debian
# bookworm runs jobs on minute boundaries only, so there the wait is up to a
# minute.  A third job, CALL fairshare.check_allocation_alerts()
# (docs/statements.md), notifies an allocation's thresholds once each.  A
# fourth, CALL fairshare.sync_slurmdbd('cr') (docs/slurmdbd.md),
# runs against a foreign server that cannot be read: it fails with the feed's
# error and syncs nothing.  Run from test/cluster.sh test (or alone); prints
# TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=fs_cron

if [ "${1:-}" != inner ]; then
  PGV=$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
  if [ ! -f "/usr/share/postgresql/$PGV/extension/pg_cron.control" ]; then
    echo "not ok 1 - pg_cron is not installed (postgresql-$PGV-cron; test/run.sh installs it)"; exit 1
  fi
  # a cluster of its own, not the one the PG* variables name (the suites'),
  # on a port nothing listens on (pg_virtualenv takes PGPORT when set: it
  # knows only the clusters of this machine's postgresql-common)
  unset PGHOST PGPORT PGUSER PGDATABASE PGSERVICE PGPASSWORD
  for p in $(shuf -i 20000-29999 -n 20); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then export PGPORT=$p; break; fi
  done
  # the jobs run in background workers of the server, not through a libpq
  # connection (which would need a password or a trust line in pg_hba.conf)
  pg_virtualenv -t -v "$PGV" -o shared_preload_libraries=pg_cron -o cron.database_name=$db \
       -o cron.use_background_workers=on -o max_worker_processes=16 bash "$0" inner 2>&1 \
    | grep -v -E '^(Creating new PostgreSQL cluster|Ver Cluster|[0-9]+ +[a-z]+ +[0-9]+ (online|down)|Dropping cluster)'
  exit "${PIPESTATUS[0]}"
fi

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; echo "1..$n"; exit 1; }
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d $db "$@"; }
createdb $db || bail "create database $db"
# the launcher connects to cron.database_name: it starts once the database exists
for _ in $(seq 1 40); do
  q -c "CREATE EXTENSION IF NOT EXISTS pg_cron" 2>/dev/null && break; sleep 0.5
done
version=$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'")
[ -n "$version" ] || bail "CREATE EXTENSION pg_cron"
ok "pg_cron $version loaded (shared_preload_libraries) in a server of its own"

q <<'SQL' || bail "a cluster with jobs"
CREATE EXTENSION fairshare;
INSERT INTO fairshare.clusters (cluster) VALUES ('cr');
INSERT INTO fairshare.partitions (cluster, partition, cores_per_node, mem_per_node_mb) VALUES ('cr', 'p', 8, 16384);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('cr', 'root', NULL, 1), ('cr', 'a', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name) VALUES ('cr', 'a', 'ann');
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
VALUES ('cr', '1', 'ann', 'a', 'p', 'COMPLETED', now() - interval '2 hours', now() - interval '2 hours', now() - interval '1 hour', 4);
-- an allocation of 1 h, 4 used (400 %), ending in 10 days (docs/statements.md)
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours)
VALUES ('cr', 'a', 'none', (now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 10, 1);
SQL
before=$(q -c "SELECT (SELECT count(*) FROM fairshare.usage_checkpoints), (SELECT count(*) FROM fairshare.job_partitions())")
[ "$before" = "0|1" ] && ok "before: no checkpoint, jobs_default alone" || fail "before: checkpoints|partitions $before"

# the two jobs of docs/history.md, as often as this pg_cron allows
if q -c "SELECT '$version' >= '1.5'" | grep -q t; then every='5 seconds'; else every='* * * * *'; fi
q -c "SELECT cron.schedule('fairshare-checkpoint', '$every', 'CALL fairshare.checkpoint_usage()')" >/dev/null \
  && q -c "SELECT cron.schedule('fairshare-partitions', '$every', 'CALL fairshare.maintain_partitions()')" >/dev/null \
  && q -c "SELECT cron.schedule('fairshare-alerts', '$every', 'CALL fairshare.check_allocation_alerts()')" >/dev/null \
  && ok "scheduled checkpoint_usage, maintain_partitions and check_allocation_alerts every '$every'" || bail "cron.schedule"

# the slurmdbd feed (docs/slurmdbd.md), scheduled the same way, against a
# foreign server whose wrapper has no handler: every read fails as it would
# with MariaDB down, so the run fails with the feed's error and syncs nothing
q >/dev/null <<'SQL' || bail "a slurmdbd feed"
CREATE FOREIGN DATA WRAPPER fs_cron_nowhere;
CREATE SERVER nowhere FOREIGN DATA WRAPPER fs_cron_nowhere;
SELECT fairshare.slurmdbd_connect('cr', 'nowhere');
SQL
q -c "SELECT cron.schedule('fairshare-slurmdbd', '$every', \$\$CALL fairshare.sync_slurmdbd('cr')\$\$)" >/dev/null \
  && ok "scheduled CALL fairshare.sync_slurmdbd('cr') every '$every'" || bail "cron.schedule of sync_slurmdbd"

runs=""
for _ in $(seq 1 90); do
  runs=$(q -c "SELECT string_agg(j.jobname || ':' || d.status, ' ' ORDER BY j.jobname)
                 FROM cron.job j JOIN LATERAL (SELECT r.status FROM cron.job_run_details r WHERE r.jobid = j.jobid
                                                ORDER BY r.runid LIMIT 1) d ON true")
  case "$runs" in *alerts:*checkpoint:*partitions:*slurmdbd:*) case "$runs" in *running*|*starting*|*sending*|*connecting*) ;; *) break ;; esac ;; esac
  sleep 1
done
[ "$runs" = "fairshare-alerts:succeeded fairshare-checkpoint:succeeded fairshare-partitions:succeeded fairshare-slurmdbd:failed" ] \
  && ok "the four ran, as cron.job_run_details says: $runs" \
  || { fail "cron.job_run_details: '${runs:-no run}'"; q -c "SELECT jobid, status, return_message FROM cron.job_run_details" | sed 's/^/# /'; }
got=$(q -c "SELECT (SELECT count(*) FROM fairshare.usage_checkpoints WHERE cluster = 'cr' AND invalidated_at IS NULL),
                   (SELECT count(*) FROM fairshare.job_partitions() WHERE month_start IS NOT NULL),
                   (SELECT count(*) FROM fairshare.jobs_default)")
[ "$got" = "1|4|0" ] && ok "their effect: a checkpoint of cr, and the partitions of this month and the 3 ahead (the run moved out of jobs_default)" \
  || fail "checkpoints|monthly partitions|runs in jobs_default: $got"
# the alerts, once each however often the job ran: 50, 80, 100 % used, 30 days left
got=$(q -c "SELECT string_agg(rule || ':' || n, ' ' ORDER BY rule)
              FROM (SELECT rule, count(*) AS n FROM fairshare.regulation_notifications GROUP BY rule) r")
[ "$got" = "limit_days_30:1 limit_used_100:1 limit_used_50:1 limit_used_80:1" ] \
  && ok "and the alerts, one each: $got" || fail "alerts: '$got'"
got=$(q -c "SELECT (SELECT r.return_message LIKE '%sync_slurmdbd: cannot read the slurmdbd of cluster \"cr\"%'
                     FROM cron.job_run_details r JOIN cron.job j USING (jobid) WHERE j.jobname = 'fairshare-slurmdbd'
                    ORDER BY r.runid LIMIT 1),
                   (SELECT last_sync IS NULL AND job_mark = 0 FROM fairshare.slurmdbd_feeds WHERE cluster = 'cr')")
[ "$got" = "t|t" ] && ok "the scheduled sync failed with the feed's error (slurmdbd unreachable) and synced nothing" \
  || { fail "the scheduled sync's error|nothing synced: $got"; q -c "SELECT return_message FROM cron.job_run_details" | sed 's/^/# /'; }
echo "1..$n"
