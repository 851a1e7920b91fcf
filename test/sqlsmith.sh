#!/usr/bin/env bash
# Random-query testing of fairshare with SQLsmith (Debian package sqlsmith):
# a throwaway cluster (pg_virtualenv -t, as test/cluster.sh), a database with
# CREATE EXTENSION fairshare and the demo centre loaded (test/demo/centre.sql
# and the data the demo reports add), then SQLsmith for a bounded number of
# queries, each under a statement timeout.  Fails if any backend crashed:
# the server log must not say "terminated by signal" or "exited with exit
# code"; errors (bad arguments, timeouts) are expected and only counted.
#
#   make sqlsmith                            10000 queries (the long run)
#   SQLSMITH_QUERIES=300 make sqlsmith       a short run, for CI
#
# Settings (environment):
#   SQLSMITH_QUERIES  number of queries (default 10000)
#   SQLSMITH_SEED     RNG seed (default: random, printed so a run can be replayed)
#   SQLSMITH_FOCUS    1 (default): SQLsmith only sees fairshare's functions and
#                     aggregates and the built-in operators, so that nearly
#                     every query calls fairshare; 0: every function of the
#                     catalog (mostly tests PostgreSQL itself)
#   SQLSMITH_TIMEOUT  statement_timeout of each query (default 1s)
#
# How focusing works: SQLsmith reads its grammar from the catalog with
# unqualified queries ("select ... from pg_proc"), so the database's
# search_path puts a schema sqlsmith_focus before pg_catalog whose view
# pg_proc lists only fairshare's routines.  Generated queries name
# functions with their schema, so they are not affected.
#
# To run against a server that is already up (the PG* variables name it,
# FAIRSHARE_IN_CLUSTER=here), pass its log file in SQLSMITH_SERVER_LOG.
set -uo pipefail
export LANG=C.UTF-8 LC_ALL=C.UTF-8
cd "$(dirname "$0")/.." || exit 1
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGV=$($PG_CONFIG --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
queries=${SQLSMITH_QUERIES:-10000}
seed=${SQLSMITH_SEED:-$(( (RANDOM << 15) | RANDOM ))}
focus=${SQLSMITH_FOCUS:-1}
stmt_timeout=${SQLSMITH_TIMEOUT:-1s}
db=fs_sqlsmith

command -v sqlsmith >/dev/null || { echo "sqlsmith is not installed (apt-get install sqlsmith)" >&2; exit 2; }
case $queries in ''|*[!0-9]*) echo "SQLSMITH_QUERIES must be a number" >&2; exit 2 ;; esac

if [ -z "${FAIRSHARE_IN_CLUSTER:-}" ]; then
  # re-enter inside a throwaway cluster; log_line_prefix gives the SQLSTATE of errors
  export FAIRSHARE_IN_CLUSTER=1
  exec pg_virtualenv -t -v "$PGV" -o "log_line_prefix=%m [%p] %e " -o track_activity_query_size=65536 bash "$0" "$@"
fi

if [ "$FAIRSHARE_IN_CLUSTER" = here ]; then
  log=${SQLSMITH_SERVER_LOG:-}
  [ -n "$log" ] && [ -r "$log" ] || { echo "SQLSMITH_SERVER_LOG must name the server's log file" >&2; exit 2; }
else
  # pg_virtualenv's cluster is "regress"; pg_lsclusters knows its log file
  log=$(pg_lsclusters -h | awk '$2 == "regress" { print $NF }')
  [ -r "$log" ] || { echo "cannot find the server log ($log)" >&2; exit 2; }
fi
log_start=$(( $(wc -c < "$log") + 1 ))

work=$(mktemp -d)
trap 'rm -rf "$work"; dropdb --if-exists $db >/dev/null 2>&1' EXIT
dropdb --if-exists $db >/dev/null 2>&1
createdb $db || exit 1
{
  psql -X -q -v ON_ERROR_STOP=1 -d $db -c 'CREATE EXTENSION fairshare' -f test/demo/centre.sql || exit 1
  # the demo reports add each area's data (allocations, ledger, a PBS cluster, ...)
  for f in test/demo/report_*.sql; do
    psql -X -q -v ON_ERROR_STOP=1 -d $db -f "$f" || exit 1
  done
} >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d $db <<SQL || exit 1
ALTER DATABASE $db SET statement_timeout = '$stmt_timeout';
ANALYZE;
SQL
if [ "$focus" = 1 ]; then
  psql -X -q -v ON_ERROR_STOP=1 -d $db <<SQL || exit 1
CREATE SCHEMA sqlsmith_focus;
CREATE VIEW sqlsmith_focus.pg_proc AS
  SELECT * FROM pg_catalog.pg_proc WHERE pronamespace = 'fairshare'::regnamespace;
ALTER DATABASE $db SET search_path = sqlsmith_focus, pg_catalog, public;
SQL
  catalog=--exclude-catalog
else
  catalog=
fi
nfuncs=$(psql -X -A -t -d $db -c "SELECT count(*) FROM pg_proc")

echo "== sqlsmith: $queries queries, seed $seed, focus $focus ($nfuncs routines visible), statement_timeout $stmt_timeout"
start=$(date +%s)
sqlsmith --target="dbname=$db" --seed="$seed" --max-queries="$queries" $catalog --verbose \
  >"$work/out" 2>"$work/err"
status=$?
elapsed=$(( $(date +%s) - start ))
# SQLsmith sets statement_timeout to 1s itself; the database setting applies
# to every other connection.  Its progress line has one character per query:
# . ok, e error, t timeout, S syntax error, C connection lost (a crash).
progress=$(grep -E '^[.etSC]+$' "$work/err" | tr -d '\n')
count() { printf '%s' "$progress" | tr -cd "$1" | wc -c; }
echo "queries: $(printf '%s' "$progress" | wc -c) run in ${elapsed}s (sqlsmith exit status $status):" \
  "$(count .) ok, $(count e) errors, $(count t) timeouts, $(count S) syntax errors, $(count C) lost connections"
echo "== the most frequent errors (count, message; SQLsmith's last report)"
awk '/^queries: / { n = 0 } /^[0-9]+\t/ { line[++n] = $0 } END { for (i = 1; i <= n; i++) print line[i] }' "$work/err" \
  | sort -t$'\t' -k1,1nr | head -n "${SQLSMITH_TOP_ERRORS:-15}" | cut -c1-150

# What the server logged during the run: errors by SQLSTATE (when its
# log_line_prefix shows them, as in the throwaway cluster), and crashes
tail -c +"$log_start" "$log" > "$work/log"
if grep -qE '\] [0-9A-Z]{5} ERROR:' "$work/log"; then
  echo "== errors by SQLSTATE (server log)"
  grep -oE '\] [0-9A-Z]{5} ERROR:' "$work/log" | awk '{ print $2 }' | sort | uniq -c | sort -rn | head -n 20
fi
# A parallel worker whose query raised an error (a timeout, a bad argument)
# exits with code 1 and the postmaster logs it: that is not a crash.  A
# backend that crashed is "terminated by signal", or exits with another
# code, and the postmaster then reinitializes every process.
crashes=$(grep -E 'terminated by signal|terminated by exception|exited with exit code|terminating any other active server processes' "$work/log" \
  | grep -vE 'background worker "parallel worker" \(PID [0-9]+\) exited with exit code 1$')
if [ -n "$crashes" ]; then
  echo "$crashes"
  # the statement that was running is on the DETAIL line after each crash
  awk '/Failed process was running/ { on = 1; n++; print; next } /^[12][0-9][0-9][0-9]-/ { on = 0 }
       on && n <= 3 && ++lines <= 400' "$work/log"
  echo "not ok - a backend crashed during the SQLsmith run (above)"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  tail -n 20 "$work/err"
  echo "not ok - sqlsmith failed (exit status $status)"
  exit 1
fi
echo "ok - $queries SQLsmith queries, no backend crashed"
