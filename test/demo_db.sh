#!/usr/bin/env bash
# A database holding the whole demo centre: the extension, test/demo/centre.sql
# and the data each test/demo/report_*.sql adds, for the suites that start
# from it (dump_restore.sh, retention.sh, bi_drivers.sh).
#
#   bash test/demo_db.sh DB
#
# The database must not exist.  Loading the demo takes about half a minute;
# the README's test command loads it once (test/cluster.sh) into a template
# database and names it in FAIRSHARE_DEMO_TEMPLATE, with a directory
# FAIRSHARE_DEMO_TEMPLATE_DIR where the load leaves "ready" (or "failed").
# Then DB is a copy of the template (CREATE DATABASE ... TEMPLATE), made
# once the template is ready; without the template, or if its load failed,
# DB is loaded here (docs/development.md#tests).  Each copy is a database
# of its own: what a suite changes in it, no other suite sees.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=${1:?usage: test/demo_db.sh DB}
q() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

load() {
  createdb "$db" || return 1
  q -c 'CREATE EXTENSION fairshare' -f test/demo/centre.sql >/dev/null || return 1
  for f in test/demo/report_*.sql; do
    q -f "$f" >/dev/null || { echo "demo_db.sh: $f failed" >&2; return 1; }
  done
}

template=${FAIRSHARE_DEMO_TEMPLATE:-}
dir=${FAIRSHARE_DEMO_TEMPLATE_DIR:-}
if [ -n "$template" ] && [ -n "$dir" ] && [ -d "$dir" ]; then
  # the template's load runs beside the suites: wait for it (at most 10 minutes)
  for _ in $(seq 1 600); do
    [ -e "$dir/ready" ] || [ -e "$dir/failed" ] && break
    sleep 1
  done
  if [ -e "$dir/ready" ]; then
    createdb -T "$template" "$db" && exit 0
    echo "demo_db.sh: could not copy $template; loading $db" >&2
    dropdb --if-exists "$db" 2>/dev/null
  fi
fi
load
