#!/usr/bin/env bash
# Durability: pg_dump of a loaded demo centre restored into a new database
# reproduces every table of the extension and the time-travel reports byte
# for byte.  Runs inside the test cluster (test/cluster.sh test); prints TAP.
#
# The centre's jobs are in monthly partitions (maintain_partitions), which
# are not members of the extension: pg_dump writes them and their rows like
# any table, attached to the extension's jobs.  Restoring attaches each to
# jobs, and ATTACH PARTITION then makes the partition's copies of jobs'
# indexes (which CREATE EXTENSION made); the dump's own CREATE INDEX and
# primary key of each partition come after and fail as already there.  The
# restore docs/history.md gives leaves those entries out of the list it
# restores; a plain pg_restore reports them and restores the same database.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
src=fs_dump_src dst=fs_dump_dst plain=fs_dump_plain
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; for d in $src $dst $plain; do dropdb --if-exists $d; done' EXIT
for d in $src $dst $plain; do dropdb --if-exists $d 2>/dev/null; done
createdb $dst && createdb $plain || { echo "not ok 1 - create databases"; exit 1; }
# the whole demo centre: centre.sql and the data each report adds
# (test/demo_db.sh); then its jobs in their monthly partitions
{ bash test/demo_db.sh $src && \
  psql -X -q -v ON_ERROR_STOP=1 -d $src -c 'SET client_min_messages = warning' -c 'CALL fairshare.maintain_partitions()'; } >/dev/null \
  || { echo "not ok 1 - load the demo centre"; exit 1; }

# every table and the reports as of one instant (test/snapshot.sql)
as_of=$(psql -X -A -t -d $src -c "SELECT date_trunc('second', now())")
snapshot() { psql -X -A -q -v ON_ERROR_STOP=1 -v as_of="$as_of" -d "$1" -f test/snapshot.sql; }
# the partitions of jobs, their bounds and rows
layout() { psql -X -A -t -v ON_ERROR_STOP=1 -d "$1" -c "SELECT p.relation, p.month_start, p.month_end,
    (xpath('//n/text()', query_to_xml(format('SELECT count(*) AS n FROM %s', p.relation), false, false, '')))[1]
    FROM fairshare.job_partitions() p ORDER BY 1"; }
# TABLE has no ORDER BY: sort rows of each table the same way on both sides
snapshot $src | sort > "$tmp/before" || { echo "not ok 1 - snapshot of the source"; exit 1; }
layout $src > "$tmp/layout.before"
# (pg_dump warns that accounts refers to itself: harmless, foreign keys are
# checked at the end of each COPY, when every parent row is there)
pg_dump -Fc -d $src -f "$tmp/dump" 2>"$tmp/dump.err" || { cat "$tmp/dump.err"; echo "not ok 1 - pg_dump"; exit 1; }
# the restore of docs/history.md: every entry but the monthly partitions'
# own indexes and primary keys
pg_restore -l "$tmp/dump" | grep -v -E '^[0-9]+; [0-9]+ [0-9]+ (INDEX|CONSTRAINT) fairshare jobs_p[0-9]{4}_[0-9]{2}[ _]' > "$tmp/list"
pg_restore -L "$tmp/list" -d $dst "$tmp/dump" || { echo "not ok 1 - pg_restore"; exit 1; }
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
n=$((n + 1))
parts=$(grep -c '_p[0-9]' "$tmp/layout.before")
if [ "$parts" -gt 12 ] && layout $dst | cmp -s "$tmp/layout.before" -; then
  echo "ok $n - the $parts monthly partitions of jobs come back with their bounds and rows"
else
  echo "not ok $n - the partitions of jobs differ after the restore ($parts monthly before):"
  layout $dst | diff "$tmp/layout.before" - | head -10
fi
n=$((n + 1))
# every index of every partition is there and attached to jobs' index
bad=$(psql -X -A -t -d $dst -c "SELECT count(*) FROM fairshare.job_partitions() p
        CROSS JOIN (SELECT i.indexrelid FROM pg_index i WHERE i.indrelid = 'fairshare.jobs'::regclass) pi
        WHERE NOT EXISTS (SELECT FROM pg_inherits h JOIN pg_index ci ON ci.indexrelid = h.inhrelid
                           WHERE h.inhparent = pi.indexrelid AND ci.indrelid = p.relation AND ci.indisvalid)")
extra=$(psql -X -A -t -d $dst -c "SELECT count(*) FROM fairshare.job_partitions() p JOIN pg_index i ON i.indrelid = p.relation
        WHERE NOT i.indexrelid IN (SELECT inhrelid FROM pg_inherits)")
if [ "$bad" = 0 ] && [ "$extra" = 0 ]; then
  echo "ok $n - each partition has each index of jobs, attached and valid, and no other"
else
  echo "not ok $n - indexes of partitions missing or unattached: $bad, extra: $extra"
fi
n=$((n + 1))
# a plain pg_restore: the same database, and as errors only the partitions'
# indexes and primary keys, already there
pg_restore -d $plain "$tmp/dump" 2>"$tmp/plain.err"
errors=$(grep -c '^pg_restore: error:' "$tmp/plain.err")
other=$(grep -A1 '^pg_restore: error:' "$tmp/plain.err" | grep -E '^pg_restore: error:' \
        | grep -v -E 'multiple primary keys for table "jobs_p[0-9]{4}_[0-9]{2}"|relation "jobs_p[0-9]{4}_[0-9]{2}_[a-z0-9_]+" already exists' | head -3)
if [ "$errors" -gt 0 ] && [ -z "$other" ] && snapshot $plain | sort | cmp -s "$tmp/before" -; then
  echo "ok $n - a plain pg_restore gives the same database; its $errors errors are the partitions' indexes, already made by ATTACH"
else
  echo "not ok $n - a plain pg_restore: $errors errors, others than the partitions' indexes: ${other:-none}"
fi
