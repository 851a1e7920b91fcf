#!/usr/bin/env bash
# Upgrade: a database created with each earlier release (1.0 and 1.1), loaded
# with the whole demo centre, then `ALTER EXTENSION fairshare UPDATE`, must
#   1. end on the current version,
#   2. have exactly the objects of a fresh install of the current version
#      (pg_dump --schema-only --binary-upgrade writes every member of the
#      extension one by one; OIDs are the only lines set aside),
#   3. give the same tables and reports as before the update, and as a fresh
#      install holding the same data (restored from a dump of the updated one).
# Runs inside the test cluster (test/cluster.sh test); prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
previous=${FAIRSHARE_PREVIOUS_VERSIONS:-1.0 1.1 1.2}
cur=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" fairshare.control)
up=fs_upgrade_old fresh=fs_upgrade_new copy=fs_upgrade_copy
dbs="$up $fresh $copy"
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; for d in $dbs; do dropdb --if-exists "$d" 2>/dev/null; done; }
trap cleanup EXIT
cleanup; tmp=$(mktemp -d)
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; exit 1; }
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

bail_from() { fail "$1"; return 1; }

upgrade_from() {
local prev=$1
cleanup; tmp=$(mktemp -d)
for d in $dbs; do createdb "$d" || bail_from "create database $d"; done
[ "$prev" != "$cur" ] || bail_from "the control file's version ($cur) is not newer than $prev"

# the previous release, with the whole demo centre in it (the reports insert
# their own clusters, allocations and imports; their output is not needed)
psql_q -d $up -c "CREATE EXTENSION fairshare VERSION '$prev'" >/dev/null || bail_from "CREATE EXTENSION fairshare VERSION '$prev'"
( psql_q -d $up -f test/demo/centre.sql && \
  for f in test/demo/report_*.sql; do psql_q -d $up -f "$f" || exit 1; done ) >/dev/null 2>"$tmp/load.err" \
  || { cat "$tmp/load.err"; bail_from "load the demo centre into $prev"; }
as_of=$(psql -X -A -t -d $up -c "SELECT date_trunc('second', now())")
# the tables' columns under $prev: those the update adds are compared on
# their own (each must hold its default in every row), the rest in the snapshots
columns() { psql -X -A -t -d "$1" -c "SELECT c.relname || '.' || a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
    WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1" | LC_ALL=C sort; }
columns $up > "$tmp/columns.before"
skip=''
snapshot() { psql -X -A -q -v ON_ERROR_STOP=1 -v as_of="$as_of" -v skip_columns="$skip" -d "$1" -f test/snapshot.sql | LC_ALL=C sort; }
snapshot $up > "$tmp/before" || bail_from "snapshot under $prev"
lines=$(wc -l < "$tmp/before")
if [ "$lines" -gt 1000 ]; then ok "the snapshot under $prev holds the loaded centre ($lines lines)"
else fail "the snapshot under $prev is (nearly) empty ($lines lines)"; fi

psql_q -d $up -c 'ALTER EXTENSION fairshare UPDATE' || bail_from "ALTER EXTENSION fairshare UPDATE"
columns $up > "$tmp/columns.after"
skip=$(comm -13 "$tmp/columns.before" "$tmp/columns.after" | paste -sd, -)
if [ -n "$skip" ]; then
  # each added column holds its default (a constant) in every existing row
  bad=$(psql -X -A -t -d $up -c "SELECT string_agg(format('%s: %s', c.relname || '.' || a.attname, x.n), ', ')
      FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
      JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum,
      LATERAL (SELECT (xpath('//n/text()', query_to_xml(format('SELECT count(*) AS n FROM %s WHERE %I IS DISTINCT FROM %s',
                       c.oid::regclass, a.attname, pg_get_expr(d.adbin, d.adrelid)), false, false, '')))[1]::text::bigint AS n) x
     WHERE c.relname || '.' || a.attname = ANY (string_to_array('$skip', ',')) AND x.n > 0")
  added=$(comm -13 "$tmp/columns.before" "$tmp/columns.after" \
            | grep -F -f <(cut -d. -f1 "$tmp/columns.before" | sort -u | sed 's/$/./') | paste -sd, -)
  if [ -z "$bad" ]; then ok "the columns the update adds to existing tables (${added:-none}) hold their defaults in every row"
  else fail "columns the update adds hold other values than their defaults: $bad"; fi
fi
got=$(psql -X -A -t -d $up -c "SELECT extversion FROM pg_extension WHERE extname = 'fairshare'")
if [ "$got" = "$cur" ]; then ok "ALTER EXTENSION fairshare UPDATE goes from $prev to $cur"
else fail "after the update the version is '$got', not '$cur'"; fi

# objects: the updated database against a fresh install.  The extension's
# own line carries OIDs of its configuration tables: compared by name below.
schema() {
  # (set aside: OIDs, xids, the dump's random \restrict key, and sequence
  # values, which are data and compared with the tables below)
  pg_dump --schema-only --binary-upgrade -d "$1" 2>"$tmp/pg_dump.err" \
    | grep -v -E -e 'binary_upgrade_set_next_|binary_upgrade_create_empty_extension' \
                 -e "relfrozenxid|^WHERE oid = '[0-9]+';\$|^-- Dumped (from|by)" \
                 -e '^\\(un)?restrict |^SELECT pg_catalog.setval\('
  # (by name: a table an update adds gets a later OID than in a fresh install)
  psql -X -A -t -d "$1" -c "SELECT c::regclass, coalesce(k, '') FROM pg_extension e,
      unnest(e.extconfig, e.extcondition) AS u(c, k) WHERE e.extname = 'fairshare' ORDER BY c::regclass::text"
}
psql_q -d $fresh -c 'CREATE EXTENSION fairshare' || bail_from "CREATE EXTENSION fairshare"
schema $up > "$tmp/schema.updated"; schema $fresh > "$tmp/schema.fresh"
members=$(grep -c '^ALTER EXTENSION fairshare ADD' "$tmp/schema.fresh")
if [ "$members" -gt 100 ]; then ok "the schema dump lists the extension's members ($members)"
else fail "the schema dump lists only $members members of the extension"; fi
if diff -u "$tmp/schema.fresh" "$tmp/schema.updated" > "$tmp/schema.diff"; then
  ok "$prev updated to $cur has the same objects as a fresh $cur (pg_dump --binary-upgrade)"
else
  fail "$prev updated to $cur differs from a fresh $cur (- fresh, + updated):"
  head -60 "$tmp/schema.diff" | sed 's/^/# /'
fi

# results: unchanged by the update, and equal to a fresh install's
snapshot $up > "$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then ok "every table and report is the same after the update"
else fail "tables or reports changed with the update (- $prev, + $cur):"; diff "$tmp/before" "$tmp/after" | head -20 | sed 's/^/# /'; fi
pg_dump -Fc -d $up -f "$tmp/dump" 2>/dev/null && pg_restore -d $copy "$tmp/dump" || bail_from "dump the updated database and restore it into a fresh install"
v=$(psql -X -A -t -d $copy -c "SELECT extversion FROM pg_extension WHERE extname = 'fairshare'")
snapshot $copy > "$tmp/copy"
if [ "$v" = "$cur" ] && cmp -s "$tmp/after" "$tmp/copy"; then ok "a fresh $cur holding the same data gives the same tables and reports"
else fail "a fresh $cur ($v) holding the same data differs:"; diff "$tmp/after" "$tmp/copy" | head -20 | sed 's/^/# /'; fi

# the update leaves every run in jobs_default; the first maintenance moves
# each to its month, and no row or report changes
psql_q -d $up -c 'SET client_min_messages = warning' -c 'CALL fairshare.maintain_partitions()' \
  || bail_from "maintain_partitions after the update"
snapshot $up > "$tmp/maintained"
left=$(psql -X -A -t -d $up -c "SELECT count(*) FROM ONLY fairshare.jobs_default")
months=$(psql -X -A -t -d $up -c "SELECT count(*) FROM fairshare.job_partitions() WHERE month_start IS NOT NULL")
if [ "$left" = 0 ] && [ "$months" -gt 12 ] && cmp -s "$tmp/after" "$tmp/maintained"; then
  ok "maintain_partitions after the update moves every run to its month ($months partitions): the same tables and reports"
else fail "after maintain_partitions: $left runs left in jobs_default, $months monthly partitions, tables or reports:"
  diff "$tmp/after" "$tmp/maintained" | head -20 | sed 's/^/# /'; fi
}

for prev in $previous; do upgrade_from "$prev" || true; done
