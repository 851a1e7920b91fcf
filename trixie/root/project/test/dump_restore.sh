#!/usr/bin/env bash
# Durability: pg_dump of a loaded demo centre restored into a new database
# reproduces every table of the extension and the time-travel reports byte
# for byte.  Runs inside the test cluster (test/cluster.sh test); prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.."
src=fs_dump_src dst=fs_dump_dst
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; dropdb --if-exists $src; dropdb --if-exists $dst' EXIT
dropdb --if-exists $src 2>/dev/null; dropdb --if-exists $dst 2>/dev/null
createdb $src && createdb $dst || { echo "not ok 1 - create databases"; exit 1; }
# the whole demo centre: centre.sql and the data each report adds
{ psql -X -q -v ON_ERROR_STOP=1 -d $src -c 'CREATE EXTENSION fairshare' -f test/demo/centre.sql && \
  for f in test/demo/report_*.sql; do psql -X -q -v ON_ERROR_STOP=1 -d $src -f "$f" || exit 1; done; } >/dev/null \
  || { echo "not ok 1 - load the demo centre"; exit 1; }

# every table and the reports as of one instant (test/snapshot.sql)
as_of=$(psql -X -A -t -d $src -c "SELECT date_trunc('second', now())")
snapshot() { psql -X -A -q -v ON_ERROR_STOP=1 -v as_of="$as_of" -d "$1" -f test/snapshot.sql; }
# TABLE has no ORDER BY: sort rows of each table the same way on both sides
snapshot $src | sort > "$tmp/before" || { echo "not ok 1 - snapshot of the source"; exit 1; }
# (pg_dump warns that accounts refers to itself: harmless, foreign keys are
# checked at the end of each COPY, when every parent row is there)
pg_dump -Fc -d $src -f "$tmp/dump" 2>"$tmp/dump.err" || { cat "$tmp/dump.err"; echo "not ok 1 - pg_dump"; exit 1; }
pg_restore -d $dst "$tmp/dump" || { echo "not ok 1 - pg_restore"; exit 1; }
snapshot $dst | sort > "$tmp/after"
n=1
if [ -s "$tmp/before" ] && [ "$(wc -l < "$tmp/before")" -gt 1000 ]; then
  echo "ok $n - the snapshot holds the loaded centre ($(wc -l < "$tmp/before") lines)"
else
  echo "not ok $n - the snapshot is (nearly) empty"
fi
n=$((n + 1))
if cmp -s "$tmp/before" "$tmp/after"; then
  echo "ok $n - pg_dump / pg_restore reproduces every table and report byte for byte"
else
  echo "not ok $n - dump/restore differs:"; diff "$tmp/before" "$tmp/after" | head -20
fi
