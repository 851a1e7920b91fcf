#!/usr/bin/env bash
# port_<node> variables come from the ports file each node is written to
# shellcheck disable=SC2154
# The Citus suite (TAP): the same centre on a single server and on a Citus
# cluster of a coordinator and two workers, every report compared row for
# row; the plans' shape; what Citus cannot do refused clearly.  Runs against
# the servers test/citus/cluster.sh started in CITUS_DIR (test/citus/run.sh
# does both).  Ends with "N passed, M failed".
#
#   demo   test/demo/centre.sql loaded on the single server and copied into
#          the coordinator, then distributed (distribute() moves the rows);
#          the demo's GENCI, RWTH, MetaCentrum and import scripts run on both
#          and print the same; test/snapshot.sql (every table's rows, every
#          report as of the load's instant) compared
#          with usage checkpoints made on both, invalidated by a late import,
#          by a direct UPDATE and by a decay change (+ invalidate_usage_checkpoints)
#   retain test/citus/retention.sql: two chained checkpoints, a late import
#          before them, retain_jobs, an import into the retained history;
#          the checkpoints and usage reports compared after each
#   slurm  the suites that compare fairshare with real Slurm captures
#          (test/fixtures/slurm/: sshare, sprio, sreport) run on the single
#          server and on the coordinator, distributed before any row: the
#          single server prints the suite's expected output, the coordinator
#          the same
#   bench  test/bench/centre.sql at BENCH_SCALE (default 0.1: 10^6 jobs)
#          loaded on the single server and copied into the coordinator's
#          distributed tables through Citus; the GENCI regulation run on
#          both; each table compared by digest, each report row by row
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
: "${CITUS_DIR:?set CITUS_DIR to the directory test/citus/cluster.sh start made}"
. test/citus/lib.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/fairshare-citus-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

n=0 failed=0
tap() {   # tap ok|not "description" [diagnostics file]
  n=$((n + 1))
  if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
  if [ -n "${3:-}" ] && [ -s "$3" ]; then sed 's/^/#   /' "$3" | head -40; fi
}
# expect NODE DB SQLSTATE "description" SQL: the statement fails with that SQLSTATE
expect() {
  local node=$1 db=$2 state=$3 what=$4 sql=$5 out
  out=$(q "$node" "$db" -c '\set VERBOSITY verbose' -c "$sql" 2>&1)
  if grep -q "^ERROR:  $state:" <<<"$out"; then
    tap ok "$what ($state: $(grep -m1 '^ERROR:' <<<"$out" | cut -c16-120))"
  else
    echo "$out" > "$work/out"; tap not "$what: expected SQLSTATE $state" "$work/out"
  fi
}
# the rows of test/snapshot.sql (or of a query file) on one node, unaligned
rows() {  # rows NODE DB FILE OUT [psql -v args...]
  local node=$1 db=$2 f=$3 out=$4
  shift 4
  q "$node" "$db" -A -t -F $'\x1f' -R $'\x1e' "$@" -f "$f" > "$out" 2> "$out.err"
}
compare() {  # compare SCENARIO SINGLE CITUS
  local st desc
  while IFS=$'\t' read -r st desc; do
    case "$st" in
      ok) tap ok "$desc" ;;
      "not ok") tap not "$desc" ;;
      *) echo "$st${desc:+	$desc}" ;;
    esac
  done < <(perl test/citus/compare.pl "$1" "$2" "$3")
}
# the columns that record when and by whom a row was written: they differ
# between two servers that ran the same statements a few seconds apart
# (and why a checkpoint was invalidated: on one server the trigger names the
# statement, on Citus the writer; whether it is valid is compared, by
# test/citus/usage.sql)
skip='ledger.recorded_at,regulation_checks.checked_at,regulation_notifications.created_at,imports.started_at,usage_checkpoints.created_at,usage_checkpoints.invalidated_at,usage_checkpoints.invalidated_by,rollup_state.refreshed_at,rollup_dirty.marked_at,scenarios.created_at'

echo "== Citus $(val coordinator demo "SELECT extversion FROM pg_extension WHERE extname = 'citus'"): coordinator :$port_coordinator, workers :$port_worker1 :$port_worker2; single server :$port_single"

# ---------------------------------------------------------------- set-up
for db in demo bench; do
  q single "$db" -c 'CREATE EXTENSION fairshare' && q coordinator "$db" -c 'CREATE EXTENSION fairshare' || exit 1
done
w=$(val worker1 demo "SELECT extversion FROM pg_extension WHERE extname = 'fairshare'")$(val worker2 demo "SELECT extversion FROM pg_extension WHERE extname = 'fairshare'")
v=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" fairshare.control)
[ -n "$v" ] && [ "$w" = "$v$v" ] && tap ok "CREATE EXTENSION on the coordinator installs fairshare on both workers" \
                    || tap not "fairshare on the workers: '$w'"
expect single demo 0A000 "distribute() without Citus raises a clear error" "SELECT * FROM fairshare.distribute()"
expect worker1 demo 0A000 "distribute() on a worker raises a clear error" "SELECT * FROM fairshare.distribute()"
expect coordinator demo 22023 "distribute(0) is refused" "SELECT * FROM fairshare.distribute(0)"

# ---------------------------------------------------------------- demo
echo "== demo centre"
q single demo -f test/demo/centre.sql >/dev/null || exit 1
as_of=$(val single demo "SELECT now()")
copy_tables demo || exit 1
out=$(q coordinator demo -c 'SET client_min_messages = warning' -A -t -F ' ' \
        -c 'SELECT table_name, citus_table, distribution_column, shards FROM fairshare.distribute()')
echo "$out" > "$work/layout"
if grep -qx 'fairshare.jobs distributed job_id 32' <<<"$out" && ! grep -v '^fairshare.jobs ' <<<"$out" | grep -vq ' reference  1$'; then
  tap ok "distribute(): jobs hash-distributed on job_id over 32 shards, the $(grep -c ' reference ' <<<"$out") other tables reference tables"
else
  tap not "distribute(): the layout" "$work/layout"
fi
again=$(q coordinator demo -A -t -F ' ' -c 'SELECT table_name, citus_table, distribution_column, shards FROM fairshare.distribute()')
[ "$again" = "$out" ] && tap ok "distribute() again only reports" || tap not "distribute() again changed something"
jobs_s=$(val single demo "SELECT count(*) FROM fairshare.jobs")
jobs_c=$(val coordinator demo "SELECT count(*) FROM fairshare.jobs")
jobs_w=$(val coordinator demo "SELECT count(*) FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
                                 JOIN pg_dist_node n USING (groupid)
                                WHERE s.logicalrelid = 'fairshare.jobs_default'::regclass AND n.nodeport = $port_worker1")
[ "$jobs_s" = "$jobs_c" ] && tap ok "the $jobs_c demo jobs moved into the shards ($jobs_w of 32 shards on worker 1)" \
                          || tap not "jobs: $jobs_s on the single server, $jobs_c on Citus"

# the demo's scripts that write (GENCI regulation run, RWTH, MetaCentrum, the
# sacct and PBS imports): the same statements on both, the same output
for f in report_genci report_rwth report_metacentrum report_import; do
  q single demo -v ON_ERROR_STOP=0 -f "test/demo/$f.sql" > "$work/$f.single" 2>&1
  q coordinator demo -v ON_ERROR_STOP=0 -f "test/demo/$f.sql" > "$work/$f.citus" 2>&1
  if [ "$f" = report_metacentrum ]; then
    # its last query calls pbsfs_at laterally for each of two instants,
    # which Citus's planner refuses (docs/citus.md): compared up to there
    for s in single citus; do sed -i '/== Time travel/,$d' "$work/$f.$s"; done
  fi
  # the output sorted: the import's listings order runs of one id by id only
  if diff <(sort "$work/$f.single") <(sort "$work/$f.citus") > "$work/diff"; then
    tap ok "demo: test/demo/$f.sql prints the same on Citus ($(wc -l < "$work/$f.citus") lines)"
  else
    tap not "demo: test/demo/$f.sql prints differently on Citus" "$work/diff"
  fi
done
# the monthly partitions made on both (the runs moved out of jobs_default)
for node in single coordinator; do
  q "$node" demo -c 'SET client_min_messages = warning' -c 'CALL fairshare.maintain_partitions()' > "$work/maint.$node" 2>&1
  val "$node" demo "SELECT count(*) || ' partitions, ' || (SELECT count(*) FROM fairshare.jobs_default) || ' runs left in jobs_default'
                      FROM fairshare.job_partitions()" >> "$work/maint.$node" 2>&1
done
if diff "$work/maint.single" "$work/maint.coordinator" > "$work/diff"; then
  tap ok "maintain_partitions on Citus: $(tail -1 "$work/maint.coordinator"), as on the single server"
else
  tap not "maintain_partitions on Citus" "$work/diff"
fi
# the usage rollups (docs/citus.md#the-usage-rollups-on-citus): refreshed on
# both up to the load's instant, every rollup table and the reports read
# from them compared (test/citus/rollups.sql, over every hour rolled up)
t1=$(val single demo "SELECT date_trunc('hour', '$as_of'::timestamptz)")
refresh() {  # refresh STEP: refresh_rollups on both, its rows compared
  local node
  for node in single coordinator; do
    val "$node" demo "SELECT * FROM fairshare.refresh_rollups(NULL, '$as_of') ORDER BY 1" > "$work/refresh.$node" 2>&1
  done
  if diff "$work/refresh.single" "$work/refresh.coordinator" > "$work/diff" && grep -q '|' "$work/refresh.coordinator"; then
    tap ok "demo, $1: refresh_rollups on Citus recomputes the same hours as on the single server ($(awk -F'|' '{ h += $2 } END { print h }' "$work/refresh.coordinator") hours of $(wc -l < "$work/refresh.coordinator") clusters)"
  else
    cat "$work/refresh.coordinator" "$work/diff" > "$work/out"; tap not "demo, $1: refresh_rollups on Citus" "$work/out"
  fi
  for node in single coordinator; do
    rows "$node" demo test/citus/rollups.sql "$work/roll.$node" -v t0=2024-01-01 -v t1="$t1"
    cat "$work/roll.$node.err"
  done
  compare "demo, $1" "$work/roll.single" "$work/roll.coordinator"
}
oracle_cpu() { val "$1" demo "SELECT sum(cpu_secs) FROM fairshare.usage_hourly WHERE cluster = 'oracle'"; }
expect coordinator demo 22023 "refresh_rollups on Citus still validates its arguments (an infinite up_to)" "SELECT * FROM fairshare.refresh_rollups(NULL, 'infinity')"
refresh "first refresh"
before=$(oracle_cpu coordinator)
# usage checkpoints (docs/citus.md#usage-checkpoints-and-retention-on-citus):
# made on both as of the load's instant; the checkpoints (valid or not,
# chained from which) and every usage report as of then, read from them,
# compared (test/citus/usage.sql)
usage() {  # usage STEP
  local node
  for node in single coordinator; do
    rows "$node" demo test/citus/usage.sql "$work/usage.$node" -v as_of="$as_of"
    cat "$work/usage.$node.err"
  done
  compare "demo, $1" "$work/usage.single" "$work/usage.coordinator"
}
checkpoint() {  # checkpoint: checkpoint_usage of every cluster as of as_of on both
  local node
  for node in single coordinator; do
    q "$node" demo -c 'SET client_min_messages = warning' -c "CALL fairshare.checkpoint_usage(NULL, '$as_of')" > "$work/ckpt.$node" 2>&1
  done
}
checkpoint
v=$(val coordinator demo "SELECT count(*) FILTER (WHERE invalidated_at IS NULL) || ' of ' || (SELECT count(*) FROM fairshare.clusters)
                            FROM fairshare.usage_checkpoints")
if [ "${v% of *}" = "${v#* of }" ] && [ "${v% of *}" -gt 0 ]; then
  tap ok "demo: checkpoint_usage on Citus: a valid checkpoint of each of the ${v#* of } clusters"
else cat "$work/ckpt.coordinator" > "$work/out"; tap not "demo: checkpoint_usage on Citus: $v valid" "$work/out"; fi
usage "checkpoint_usage"
# a late import of past runs into hours already rolled up: marked by the
# import itself on Citus (no trigger there), recomputed by the next refresh
for node in single coordinator; do
  q "$node" demo -A -t -f test/citus/late_import.sql > "$work/late.$node" 2>&1
done
if diff "$work/late.single" "$work/late.coordinator" > "$work/diff" && grep -q '^marks|oracle|' "$work/late.coordinator"; then
  tap ok "demo: a late import marks the same hours on Citus (by the import) as on the single server (by the triggers): $(grep '^marks' "$work/late.coordinator" | cut -d'|' -f3)"
else
  cat "$work/late.coordinator" "$work/diff" > "$work/out"; tap not "demo: a late import's marks on Citus" "$work/out"
fi
# the late runs started before the checkpoints: oracle's invalid on both
# (by the import on Citus, by the trigger on one server), the others valid
v=$(val coordinator demo "SELECT string_agg(cluster, ',' ORDER BY cluster) FROM fairshare.usage_checkpoints WHERE invalidated_at IS NOT NULL")
[ "$v" = oracle ] && tap ok "demo: the late import invalidated oracle's checkpoint on Citus, and only it" \
                  || tap not "demo: checkpoints invalid on Citus after the late import: '$v', not oracle"
usage "after a late import"
refresh "after a late import"
after=$(oracle_cpu coordinator)
# 9001: 9000 s x 8 CPUs = 72,000; run 1: 3600 s more x 8 CPUs = 28,800;
# 72,000 + 28,800 = 100,800 CPU-seconds more
if [ "$((after - before))" = 100800 ]; then
  tap ok "demo: the late runs reached the rollups on Citus: oracle's cpu_secs $before -> $after (+100800 = 9000 s x 8 + 3600 s x 8)"
else tap not "demo: oracle's cpu_secs on Citus $before -> $after, not +100800"; fi
# a user's own UPDATE of the distributed jobs marks nothing on Citus (the
# triggers do on one server): invalidate_rollups() and
# invalidate_usage_checkpoints() after it, as docs/citus.md says, and the
# next refresh gives the same rollups, the checkpoints the same validity.
# The checkpoints made again first (oracle's valid again)
checkpoint
for node in single coordinator; do
  # (a constant: Citus refuses a STABLE timestamptz + interval of a column)
  val "$node" demo "UPDATE fairshare.jobs SET end_time = '2026-11-21 13:35:00+00'
                     WHERE cluster = 'oracle' AND job_id = '9001'" > /dev/null
done
v=$(val coordinator demo "SELECT count(*) || ' marks, ' || (SELECT count(*) FROM fairshare.jobs
                            WHERE cluster = 'oracle' AND job_id = '9001' AND end_time = '2026-11-21 13:35:00+00') || ' run updated'
                            FROM fairshare.rollup_dirty")
if [ "$v" = '0 marks, 1 run updated' ]; then tap ok "demo: a direct UPDATE of jobs on Citus marks no hour (docs/citus.md)"
else tap not "demo: a direct UPDATE of jobs on Citus: $v"; fi
v=$(val coordinator demo "SELECT count(*) FROM fairshare.usage_checkpoints WHERE invalidated_at IS NULL AND cluster = 'oracle'")
[ "$v" = 1 ] && tap ok "demo: a direct UPDATE of jobs on Citus leaves oracle's checkpoint valid (docs/citus.md)" \
             || tap not "demo: a direct UPDATE of jobs on Citus: $v valid checkpoints of oracle, not 1"
val coordinator demo "SELECT fairshare.invalidate_rollups('oracle', '2026-11-21 10:00+00', '2026-11-21 14:00+00')" > /dev/null
# run 9001 started 2026-11-21 10:05: one checkpoint as of then or later
v=$(val coordinator demo "SELECT fairshare.invalidate_usage_checkpoints('oracle', '2026-11-21 10:05+00')")
[ "$v" = 1 ] && tap ok "demo: invalidate_usage_checkpoints('oracle', run 9001's start) marks oracle's 1 checkpoint" \
             || tap not "demo: invalidate_usage_checkpoints marked $v checkpoints, not 1"
usage "after a direct UPDATE and invalidate_usage_checkpoints"
refresh "after a direct UPDATE and invalidate_rollups"
# run 9001 one hour longer: 3600 s x 8 CPUs = 28,800 more
v=$(oracle_cpu coordinator)
if [ "$((v - after))" = 28800 ]; then
  tap ok "demo: invalidate_rollups brought the direct UPDATE into the rollups on Citus (+28800 = 3600 s x 8)"
else tap not "demo: oracle's cpu_secs on Citus $after -> $v, not +28800"; fi
# the fair-share factors cached with the checkpoints, which Citus does not
# keep (sprio_at computes the tree itself there, and gave the same rows
# above): emptied on the single server before its tables are compared
val single demo "DELETE FROM fairshare.usage_checkpoint_factors" > /dev/null
# and its sparse checkpoints made full, as distribute() makes them (Citus
# writes every checkpoint full: docs/citus.md)
val single demo "SELECT fairshare_internal._checkpoints_make_full(
                   ARRAY(SELECT k.cluster FROM fairshare.usage_checkpoints k WHERE k.base IS NOT NULL),
                   ARRAY(SELECT k.base FROM fairshare.usage_checkpoints k WHERE k.base IS NOT NULL))" > /dev/null
rows single demo test/snapshot.sql "$work/demo.single" -v as_of="$as_of" -v skip_columns="$skip"
rows coordinator demo test/snapshot.sql "$work/demo.citus" -v as_of="$as_of" -v skip_columns="$skip"
cat "$work/demo.single.err" "$work/demo.citus.err"
compare demo "$work/demo.single" "$work/demo.citus"

# pg_dump of the coordinator (the extension's tables are registered with
# pg_extension_config_dump): every row read through Citus, restored as a
# single server, gives the same tables and reports
pg_dump -Fc -h "$CITUS_DIR" -p "$port_coordinator" -U postgres -d demo -f "$work/demo.dump" 2> "$work/dump.err" ||
  cat "$work/dump.err"
q single postgres -c 'CREATE DATABASE restored' >/dev/null
# as test/dump_restore.sh restores: without the monthly partitions' indexes,
# which ATTACH makes; and without Citus, which the single server lacks
pg_restore -l "$work/demo.dump" |
  grep -v -E '^[0-9]+; [0-9]+ [0-9]+ (INDEX|CONSTRAINT) fairshare jobs_p[0-9]{4}_[0-9]{2}[ _]| EXTENSION - citus | COMMENT - EXTENSION citus ' \
  > "$work/restore.list"
pg_restore -h "$CITUS_DIR" -p "$port_single" -U postgres -d restored -L "$work/restore.list" "$work/demo.dump" 2> "$work/restore.err"
rows single restored test/snapshot.sql "$work/restored.single" -v as_of="$as_of" -v skip_columns="$skip"
if ! perl test/citus/compare.pl restore "$work/demo.single" "$work/restored.single" | grep -q '^not ok' \
   && ! grep -q 'error' "$work/restore.err"; then
  tap ok "pg_dump of the coordinator restored on a single server: every table and report the same ($(grep -c 'TABLE DATA' "$work/restore.list") tables' rows)"
else
  { cat "$work/restore.err"; perl test/citus/compare.pl restore "$work/demo.single" "$work/restored.single" | grep -v '^ok'; } > "$work/out"
  tap not "pg_dump of the coordinator restored on a single server" "$work/out"
fi

# ---------------------------------------------------------------- retention
# (docs/citus.md#usage-checkpoints-and-retention-on-citus)
echo "== retention"
q single retain -c 'CREATE EXTENSION fairshare' && q coordinator retain -c 'CREATE EXTENSION fairshare' || exit 1
q single retain -f test/citus/retention.sql >/dev/null || exit 1
copy_tables retain || exit 1
q coordinator retain -c 'SET client_min_messages = warning' -c 'SELECT count(*) FROM fairshare.distribute()' >/dev/null || exit 1
r_as_of='2024-06-01 00:00+00'
retained() {  # retained STEP: the checkpoints and usage reports as of r_as_of compared
  local node
  for node in single coordinator; do
    rows "$node" retain test/citus/usage.sql "$work/ret.$node" -v as_of="$r_as_of"
    cat "$work/ret.$node.err"
  done
  compare "retention, $1" "$work/ret.single" "$work/ret.coordinator"
}
checkpoints() {  # checkpoints: hx's as of 2024-03-15, then 2024-05-01 (chained), on both
  local node
  for node in single coordinator; do
    q "$node" retain -c 'SET client_min_messages = warning' \
      -c "CALL fairshare.checkpoint_usage('hx', '2024-03-15 00:00+00')" \
      -c "CALL fairshare.checkpoint_usage('hx', '2024-05-01 00:00+00')" > "$work/ret.ckpt.$node" 2>&1
  done
}
for node in single coordinator; do
  q "$node" retain -c 'SET client_min_messages = warning' -c 'CALL fairshare.maintain_partitions()' \
    -c "SELECT * FROM fairshare.refresh_rollups('hx', '$r_as_of')" > "$work/ret.setup.$node" 2>&1
done
checkpoints
chain="SELECT string_agg(as_of || ' from ' || COALESCE(computed_from::text, 'the jobs'), '; ' ORDER BY as_of)
         FROM fairshare.usage_checkpoints WHERE invalidated_at IS NULL"
v=$(val coordinator retain "$chain")
if [ "$v" = '2024-03-15 00:00:00+00 from the jobs; 2024-05-01 00:00:00+00 from 2024-03-15 00:00:00+00' ]; then
  tap ok "retention: two checkpoints of hx on Citus, the second chained from the first"
else cat "$work/ret.ckpt.coordinator" > "$work/out"; tap not "retention: the checkpoints on Citus: '$v'" "$work/out"; fi
retained "two chained checkpoints"
# a late import of a run started 2024-02-20, before both checkpoints: both
# invalid, on both servers
for node in single coordinator; do
  q "$node" retain -A -t -v job_id=11 -v t_start=2024-02-20T10:00:00 -v t_end=2024-02-20T12:00:00 \
    -f test/citus/retention_import.sql > "$work/late11.$node" 2>&1
done
v=$(val coordinator retain "SELECT count(*) FILTER (WHERE invalidated_at IS NOT NULL) || ' of ' || count(*) FROM fairshare.usage_checkpoints")
if diff "$work/late11.single" "$work/late11.coordinator" > "$work/diff" && grep -qx 'import|2|1|0|0' "$work/late11.coordinator" \
   && [ "$v" = '2 of 2' ]; then
  tap ok "retention: a late import of a run before both checkpoints invalidates both on Citus, as on the single server"
else cat "$work/late11.coordinator" "$work/diff" > "$work/out"; echo "invalid: $v" >> "$work/out"
  tap not "retention: a late import before the checkpoints" "$work/out"; fi
retained "after a late import before both checkpoints"
# made again, then the months before February go: January's runs ended
# by 2024-02-02 00:00, so the checkpoint of 2024-03-15 is pinned
checkpoints
for node in single coordinator; do
  q "$node" retain -c 'SET client_min_messages = warning' -c "CALL fairshare.retain_jobs('2024-02-01')" > "$work/retain.$node" 2>&1
  val "$node" retain "SELECT string_agg(relation::text, ' ' ORDER BY month_start NULLS FIRST)
                        FROM fairshare.job_partitions() WHERE month_start IS NULL OR month_start < '2024-03-01'" >> "$work/retain.$node" 2>&1
done
if diff "$work/retain.single" "$work/retain.coordinator" > "$work/diff" \
   && grep -qx 'fairshare.jobs_default fairshare.jobs_p2024_02' "$work/retain.coordinator"; then
  tap ok "retention: retain_jobs('2024-02-01') on Citus detaches November 2023 to January 2024, as on the single server"
else cat "$work/retain.coordinator" "$work/diff" > "$work/out"; tap not "retention: retain_jobs on Citus" "$work/out"; fi
v=$(val coordinator retain "SELECT string_agg(as_of::text, ',') FROM fairshare.usage_checkpoints WHERE pinned")
[ "$v" = '2024-03-15 00:00:00+00' ] && tap ok "retention: the checkpoint of 2024-03-15 pinned on Citus" \
                                   || tap not "retention: pinned on Citus: '$v'"
retained "after retain_jobs"
# a run started in January, before the pinned checkpoint: rejected on both
for node in single coordinator; do
  q "$node" retain -A -t -v job_id=12 -v t_start=2024-01-10T10:00:00 -v t_end=2024-01-10T12:00:00 \
    -f test/citus/retention_import.sql > "$work/late12.$node" 2>&1
done
if diff "$work/late12.single" "$work/late12.coordinator" > "$work/diff" && grep -q '^rejects|12|55000|' "$work/late12.coordinator"; then
  tap ok "retention: an import of a run before the pinned checkpoint is rejected on Citus (55000), as on the single server"
else cat "$work/late12.coordinator" "$work/diff" > "$work/out"; tap not "retention: an import into the retained history" "$work/out"; fi
retained "after an import into the retained history"

# ---------------------------------------------------------------- real Slurm
# (docs/citus.md#identical-results) The regression suites that compare
# fairshare with what a real slurmctld and slurmdbd printed, run as
# pg_regress runs them (its time zone, date and interval styles, the file
# on stdin),
# on the single server and on the coordinator of a database distributed
# empty: the single server must print the suite's expected output, and the
# coordinator the same, but for what Citus itself says: its warning that a
# suite's pg_temp helper function stays on the coordinator, the shard in a
# constraint's message, and the node that raised it.
echo "== real Slurm captures"
# (pg_regress sets the interval style of its database; the coordinator's
# ALTER DATABASE reaches the workers, which format the rows of their own
# errors)
for node in single coordinator; do
  q "$node" slurm -c "ALTER DATABASE slurm SET intervalstyle = 'postgres_verbose'" >/dev/null || exit 1
done
for node in single coordinator; do
  q "$node" slurm -c 'CREATE EXTENSION fairshare' \
    -c "CREATE FUNCTION public.err(q text) RETURNS text LANGUAGE plpgsql AS \$\$
        BEGIN EXECUTE q; RETURN 'no error'; EXCEPTION WHEN OTHERS THEN RETURN SQLSTATE || ': ' || SQLERRM; END \$\$" \
    >/dev/null || exit 1
done
q coordinator slurm -c 'SET client_min_messages = warning' -c 'SELECT count(*) FROM fairshare.distribute()' >/dev/null || exit 1
citus_said() {
  sed -E '/^(psql:[^ ]*: )?WARNING:  "function pg_temp_[0-9]+\..*" has dependency on unsupported object "schema pg_temp_[0-9]+"$/d
          /^DETAIL:  "function pg_temp_[0-9]+\..*" will be created only locally$/d
          /^CONTEXT:  while executing command on localhost:[0-9]+$/d
          s/^(ERROR:  new row for relation "[a-z_]+)_[0-9]+"/\1"/' "$1"
}
for f in slurm_real sreport sreport_resv sreport_runs slurm_history; do
  for node in single coordinator; do
    start=$(date +%s)
    # (a suite's own transactions write jobs, then clusters: Citus needs
    # them on one connection per node, as its hint says)
    PGTZ=PST8PDT PGDATESTYLE='Postgres, MDY' \
    PGOPTIONS="$([ "$node" = coordinator ] && echo '-c citus.multi_shard_modify_mode=sequential')" \
      q "$node" slurm -a -v ON_ERROR_STOP=0 < "sql/$f.sql" > "$work/$f.$node" 2>&1
    echo "   $f on $node in $(( $(date +%s) - start )) s"
  done
  if ! diff "expected/$f.out" "$work/$f.single" > "$work/out"; then
    tap not "real Slurm, $f: the single server does not print expected/$f.out" "$work/out"
  elif diff <(citus_said "$work/$f.single") <(citus_said "$work/$f.coordinator") > "$work/out"; then
    tap ok "real Slurm, $f: the coordinator prints what the single server prints ($(grep -c '' "expected/$f.out") lines)"
  else
    tap not "real Slurm, $f: the coordinator's output differs from the single server's" "$work/out"
  fi
done

# ---------------------------------------------------------------- what Citus cannot do
echo "== on Citus"
# a change of a cluster's decay settings: its trigger invalidates the
# cluster's checkpoints on one server, invalidate_usage_checkpoints on
# Citus (docs/citus.md); then the same checkpoints and usage.  Citus keeps
# no history of the settings, so its usage reads the new law at every
# instant, where one server decays piecewise over the changes of the law
# (docs/citus.md#what-citus-does-not-do-and-what-is-done-instead): the
# single server's record of the change is removed, as Citus has none
for node in single coordinator; do
  val "$node" demo "UPDATE fairshare.clusters SET decay_half_life = decay_half_life + interval '1 day' WHERE cluster = 'cali';
                    DELETE FROM fairshare.settings_history WHERE cluster = 'cali'" > /dev/null
done
v=$(val coordinator demo "SELECT fairshare.invalidate_usage_checkpoints('cali')")
[ "$v" = 1 ] && tap ok "demo: after a change of cali's decay on Citus, invalidate_usage_checkpoints('cali') marks its 1 checkpoint" \
             || tap not "demo: invalidate_usage_checkpoints('cali') after a decay change marked $v checkpoints, not 1"
usage "after a decay change and invalidate_usage_checkpoints"
expect coordinator demo 55000 "the ledger stays append-only on every copy (UPDATE)" \
  "UPDATE fairshare.ledger SET hours = hours + 1"
expect coordinator demo 55000 "the ledger stays append-only on every copy (TRUNCATE)" "TRUNCATE fairshare.ledger"
expect coordinator demo 23514 "allocation hours stay bounded on every copy" \
  "INSERT INTO fairshare.ledger (allocation_id, kind, hours, effective_date) SELECT min(allocation_id), 'addition', 1e13, '2026-01-01' FROM fairshare.allocations"
expect coordinator demo 22008 "an allocation's last day stays bounded on every copy" \
  "UPDATE fairshare.allocations SET period_end = '10000-01-01' WHERE allocation_id = (SELECT min(allocation_id) FROM fairshare.allocations)"
expect coordinator demo 23514 "the account tree refuses a cycle on the reference table" \
  "UPDATE fairshare.accounts SET parent_account = 'xlim-rf' WHERE cluster = 'cali' AND account = 'xlim'"
expect coordinator demo 22023 "a slurmctld start is checked against its cluster's accounting start on every copy (the trigger reads clusters there)" \
  "UPDATE fairshare.clusters SET accounting_start = '2026-01-01' WHERE cluster = 'oracle';
   INSERT INTO fairshare.slurmctld_starts (cluster, started_at) VALUES ('oracle', '2025-06-01')"
# a report called laterally, once per instant: answered as on the single
# server, or refused by Citus's planner (docs/citus.md), never wrong
lat="SELECT d, s.cluster, s.account, s.user_name, s.raw_usage, s.fairshare
       FROM unnest(ARRAY['$as_of'::timestamptz, '$as_of'::timestamptz - interval '30 days']) d
      CROSS JOIN LATERAL fairshare.sshare_at(d) s ORDER BY 1, 2, 3, 4"
val coordinator demo "$lat" > "$work/lat.citus" 2>&1
if grep -q '^ERROR:  .*not supported' "$work/lat.citus"; then
  tap ok "sshare_at called laterally for two instants: refused by Citus's planner ($(grep -m1 '^ERROR:' "$work/lat.citus" | cut -c9-90))"
elif diff <(val single demo "$lat") "$work/lat.citus" > "$work/diff"; then
  tap ok "sshare_at called laterally for two instants: the same rows on Citus"
else
  tap not "sshare_at called laterally: neither refused nor the same rows" "$work/diff"
fi
expect coordinator demo 0A000 "pbsfs_at called laterally is refused by Citus's planner (a CTE of the inlined function refers to the instant)" \
  "SELECT count(*) FROM unnest(ARRAY[now()]) d CROSS JOIN LATERAL fairshare.pbsfs_at(d) s"
# row-level security on the shards: a plain user reads its own jobs only
u=$(val single demo "SELECT user_name FROM fairshare.jobs WHERE cluster = 'cali' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1")
for node in single coordinator; do
  q "$node" demo -c "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$u') THEN CREATE ROLE \"$u\" LOGIN; END IF; END \$\$" \
                 -c "GRANT fairshare_user TO \"$u\"" >/dev/null 2>&1
done
for node in single coordinator; do
  val "$node" demo "SET ROLE \"$u\"; SELECT count(*), count(DISTINCT user_name), sum(cpus) FROM fairshare.jobs;
                    SELECT count(*), sum(raw_usage) FROM fairshare.my_sshare_at('$as_of');" > "$work/rls.$node" 2>&1
done
if diff "$work/rls.single" "$work/rls.coordinator" >/dev/null && grep -q '^[1-9][0-9]*|1|' "$work/rls.coordinator"; then
  tap ok "row-level security: $u sees $(cut -d'|' -f1 < "$work/rls.coordinator" | head -1) jobs, all its own, and its my_sshare rows, as on the single server"
else
  cat "$work/rls.single" "$work/rls.coordinator" > "$work/out"; tap not "row-level security on Citus" "$work/out"
fi

# ---------------------------------------------------------------- plans
echo "== plans"
# _association_usage's own query (the one every usage report runs), its
# PL/pgSQL variables replaced by the values they hold without checkpoints
{ echo 'EXPLAIN (VERBOSE, COSTS OFF)'; usage_query demo "$as_of"; } > "$work/usage.sql"
q coordinator demo -f "$work/usage.sql" > "$work/usage.plan" 2>&1
# the RWTH report's SQL function (inlined)
q coordinator demo -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM fairshare_internal._rwth_usage('$as_of')" > "$work/rwth.plan" 2>&1
# plan_shape FILE AGGREGATE DESCRIPTION: the aggregate is a partial one in
# the task each worker runs (worker_partial_agg), combined on the
# coordinator (coord_combine_agg); the jobs are scanned only in the tasks
plan_shape() {
  local f=$1 agg=$2 what=$3 bad=""
  grep -q 'Custom Scan (Citus Adaptive)' "$f" || bad="$bad no Citus scan;"
  grep -Eq 'Task Count: (3[2-9]|[4-9][0-9]|[0-9]{3,})' "$f" || bad="$bad not every shard;"
  grep -Eq "Query: .*worker_partial_agg\('fairshare(_internal)?\.$agg\(" "$f" || bad="$bad no partial $agg in the workers' query;"
  grep -Eq "coord_combine_agg\(" "$f" || bad="$bad no combine on the coordinator;"
  # every scan of the jobs is under a Task, i.e. runs on a worker
  perl -ne 'if (/^(\s*)->\s+Task\b/) { $t = length($1) } elsif (/^(\s*)->\s+.*Scan.* on fairshare\.jobs/) {
              exit 1 unless defined $t && length($1) > $t }' "$f" || bad="$bad a jobs scan outside the tasks;"
  if [ -z "$bad" ]; then tap ok "EXPLAIN $what: $agg computed on the workers as partial aggregates, combined on the coordinator"
  else tap not "EXPLAIN $what:$bad" "$f"; fi
}
plan_shape "$work/usage.plan" decayed_usage "of association usage (sshare, sprio, association_usage_at)"
grep -Eq "Query: .*sum\(" "$work/usage.plan" && grep -Eq 'sum\(remote_scan\.' "$work/usage.plan" \
  && tap ok "EXPLAIN of association usage: the job counts summed on the workers, the sums added on the coordinator" \
  || tap not "EXPLAIN of association usage: job counts" "$work/usage.plan"
# the RWTH months: the runs the core rollups do not answer, billed and cut
# at the months on the workers and summed there by project and month
# (numeric sum), the sums added on the coordinator
{ grep -q 'Custom Scan (Citus Adaptive)' "$work/rwth.plan" \
    && grep -Eq 'Task Count: (3[2-9]|[4-9][0-9]|[0-9]{3,})' "$work/rwth.plan" \
    && grep -Eq "Query: .*sum\(.*(FROM|JOIN) fairshare\.jobs_[0-9]+ " "$work/rwth.plan" \
    && grep -Eq 'sum\(remote_scan\.' "$work/rwth.plan" \
    && perl -ne 'if (/^(\s*)->\s+Task\b/) { $t = length($1) } elsif (/^(\s*)->\s+.*Scan.* on fairshare\.jobs/) {
                   exit 1 unless defined $t && length($1) > $t }' "$work/rwth.plan"; } \
  && tap ok "EXPLAIN of the RWTH core-hours per month (r_wlm_usage_at): each project's months summed on the workers over every shard, the sums added on the coordinator" \
  || tap not "EXPLAIN of the RWTH core-hours per month: not summed on the workers" "$work/rwth.plan"

# the GENCI report reads the runs of every allocation by one query over
# the shards (_allocation_consumptions), not one per allocation: each
# shard of jobs is asked once
q coordinator demo -c "SET citus.log_remote_commands = on" -c "SET client_min_messages = log" \
  -c "SELECT count(*) FROM fairshare.genci_report_at('$as_of'::date)" > "$work/genci.remote" 2>&1
n_alloc=$(val coordinator demo "SELECT count(*) FROM fairshare.allocations WHERE policy = 'genci'")
n_jobs=$(grep -c "issuing .*fairshare\.jobs_[0-9]" "$work/genci.remote")
n_shards=$(grep -o "fairshare\.jobs_[0-9]*" "$work/genci.remote" | sort -u | wc -l)
[ "$n_jobs" -gt 0 ] && [ "$n_jobs" = "$n_shards" ] \
  && tap ok "genci_report_at on Citus: the runs of its $n_alloc allocations read by one query, one task for each of $n_shards shards" \
  || tap not "genci_report_at on Citus: $n_jobs queries of the runs over $n_shards shards" "$work/genci.remote"

# ---------------------------------------------------------------- bench
echo "== benchmark centre at BENCH_SCALE=$scale"
load_bench || exit 1
b_as_of=$(val single bench "SELECT bench.as_of()")
for node in single coordinator; do
  start=$(date +%s)
  q "$node" bench -c "CALL fairshare.apply_genci_regulation('$b_as_of'::date, 'bench')" >/dev/null 2> "$work/genci.$node" \
    || { tap not "bench: apply_genci_regulation on $node" "$work/genci.$node"; }
  echo "   GENCI regulation run on $node in $(( $(date +%s) - start )) s"
done
# the jobs by digest (10^6 rows), every other table and every report row
# by row (the regulation's ledger and checks hold sums of floats)
cat > "$work/bench.sql" <<'SQL'
\pset tuples_only on
SELECT format(CASE WHEN c.relname = 'jobs'
                   THEN 'SELECT %L, count(*), md5(string_agg(x::text, E''\n'' ORDER BY x::text)) FROM (SELECT %s FROM %s) x'
                   ELSE 'SELECT %L, %s FROM %s' END,
              c.relname, (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
                            WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                              AND c.relname || '.' || a.attname <> ALL (string_to_array(:'skip_columns', ','))),
              c.oid::regclass)
  FROM pg_class c JOIN pg_depend d ON d.objid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'fairshare'
 WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1 \gexec
SQL
grep "^SELECT '[a-z_]*', \* FROM fairshare\." test/snapshot.sql >> "$work/bench.sql"
for node in single coordinator; do
  start=$(date +%s%N)
  rows "$node" bench "$work/bench.sql" "$work/bench.$node" -v as_of="$b_as_of" -v skip_columns="$skip"
  cat "$work/bench.$node.err"
  echo "   tables and reports read on $node in $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
compare "bench $scale" "$work/bench.single" "$work/bench.coordinator"

echo
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
