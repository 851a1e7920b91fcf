#!/usr/bin/env bash
# The path of BI tools (Metabase, Superset, Tableau, Power BI, Excel,
# DBeaver) through the real drivers of Debian: the PostgreSQL JDBC driver
# (libpostgresql-jdbc-java, run by `java File.java`) and psqlODBC
# (odbc-postgresql, through unixODBC's driver manager, read by a small C
# program).  docs/reports.md#bi-tools.
#
# A login role holding fairshare_reader (docs/security.md) reads, through
# each driver, every view of schema fairshare (listed from the catalog) and
# a call of every report function with documented arguments, on the demo
# centre (test/demo/) with its rollups refreshed.  For each query and
# driver, two checks:
#   types   every column maps to a type the driver knows and a BI tool
#           charts: JDBC not OTHER, ARRAY, STRUCT, JAVA_OBJECT or unknown;
#           ODBC not SQL_UNKNOWN_TYPE, an interval or binary.  The columns
#           named in $exempt (an interval, two arrays) are the reports'
#           own, kept unchanged; each has a BI form that is read here too.
#   values  the values read through the driver's typed getters equal what
#           psql prints for the same query at the same instant (the
#           driver's transaction's now(): a view whose definition reads
#           now() is run by psql with that instant in its place), row for
#           row; test/bi/compare.c says how (text exactly, floats as the
#           same double).  A query must return rows.
# Needs the server on TCP (JDBC has no Unix sockets): PGHOST, else
# localhost.  Uses the PG* variables; makes and drops the database fs_bi
# and the role fs_bi_reader.  Run from test/cluster.sh test, or alone.
# Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=fs_bi
role=fs_bi_reader
JAR=/usr/share/java/postgresql.jar
ODBC_DRIVER="PostgreSQL Unicode"

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; echo "1..$n"; exit 1; }

# 1. the drivers (test/run.sh installs them)
missing=""
command -v java >/dev/null && java --list-modules 2>/dev/null | grep -q '^jdk.compiler' || missing="$missing default-jdk-headless"
[ -f "$JAR" ] || missing="$missing libpostgresql-jdbc-java"
command -v odbcinst >/dev/null || missing="$missing unixodbc"
odbcinst -q -d -n "$ODBC_DRIVER" >/dev/null 2>&1 || missing="$missing odbc-postgresql"
[ -f /usr/include/sqlext.h ] || missing="$missing unixodbc-dev"
command -v cc >/dev/null || missing="$missing gcc"
[ -z "$missing" ] || bail "not installed:$missing (test/run.sh installs them)"

WORK=$(mktemp -d)
cleanup() {
  rm -rf "$WORK"
  dropdb --if-exists "$db" 2>/dev/null
  psql -X -q -d postgres -c "DROP ROLE IF EXISTS $role" 2>/dev/null
}
trap cleanup EXIT
cc -Wall -Wextra -Werror -O -o "$WORK/bi_odbc" test/bi/odbc.c -lodbc -lm 2>&1 | sed 's/^/# /'
cc -Wall -Wextra -Werror -O -o "$WORK/bi_compare" test/bi/compare.c -lm 2>&1 | sed 's/^/# /'
[ -x "$WORK/bi_odbc" ] && [ -x "$WORK/bi_compare" ] || bail "compile test/bi/odbc.c and test/bi/compare.c"
ok "drivers: pgjdbc $(dpkg-query -W -f='${Version}' libpostgresql-jdbc-java 2>/dev/null), psqlODBC $(dpkg-query -W -f='${Version}' odbc-postgresql 2>/dev/null) ($ODBC_DRIVER), $(java -version 2>&1 | head -1)"

# 2. the demo centre, its rollups, and the reader
host=${PGHOST:-localhost}
case "$host" in /*) host=localhost ;; esac
port=${PGPORT:-5432}
psql -X -q -h "$host" -p "$port" -d postgres -c "SELECT 1" >/dev/null 2>&1 \
  || bail "the server does not take TCP connections on $host:$port (the JDBC driver needs TCP)"

q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
dropdb --if-exists "$db" 2>/dev/null
psql -X -q -d postgres -c "DROP ROLE IF EXISTS $role" 2>/dev/null
# the demo centre (test/demo_db.sh)
bash test/demo_db.sh "$db" >/dev/null 2>"$WORK/load.err" || { sed 's/^/# /' "$WORK/load.err"; bail "load the demo centre"; }
password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
# the reader is also a user of the demo (a run and a pending job on cali, a
# run on metacentrum) and leads gen7002 (ada), so that the private views
# (my_sshare, my_sprio, my_pbsfs, my_allocation_statements) have rows too;
# a few runs' efficiency so that job_seff has rows
q -v role="$role" -v password="$password" >/dev/null 2>"$WORK/load.err" <<'SQL' || { sed 's/^/# /' "$WORK/load.err"; bail "the reader and its data"; }
CREATE ROLE :"role" LOGIN PASSWORD :'password' IN ROLE fairshare_reader;
INSERT INTO fairshare.account_users (cluster, account, user_name) VALUES
  ('cali', 'ipam-peirene', :'role'), ('metacentrum', 'cerit', :'role');
INSERT INTO fairshare.account_leaders (cluster, account, user_name) VALUES ('ada', 'gen7002', :'role');
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, eligible_time, start_time, end_time, cpus)
SELECT 'cali', 'bi1', :'role', 'ipam-peirene', 'normal', 'COMPLETED', t - interval '3 days', t - interval '3 days', t - interval '3 days', t - interval '2 days', 8
  FROM (SELECT date_trunc('hour', now()) AS t) n
UNION ALL
SELECT 'cali', 'bi2', :'role', 'ipam-peirene', 'normal', 'PENDING', t - interval '1 day', t - interval '1 day', NULL, NULL, 4
  FROM (SELECT date_trunc('hour', now()) AS t) n
UNION ALL
SELECT 'metacentrum', 'bi3', :'role', 'cerit', j.partition, 'COMPLETED', j.submit_time, j.eligible_time, j.start_time, j.end_time, j.cpus
  FROM fairshare.jobs j WHERE j.cluster = 'metacentrum' AND j.job_id = 'mc0001';
INSERT INTO fairshare.job_efficiency (cluster, job_id, submit_time, user_name, account, total_cpu_secs, max_rss_mb, req_mem_mb, energy_joules)
SELECT j.cluster, j.job_id, j.submit_time, j.user_name, j.account,
       j.cpus * extract(epoch FROM j.end_time - j.start_time) * (row_number() OVER (ORDER BY j.job_id) % 10) / 10,
       100 * (row_number() OVER (ORDER BY j.job_id) % 7), 1024, 3600
  FROM fairshare.jobs j
 WHERE j.cluster = 'proteus' AND j.state = 'COMPLETED' AND j.end_time > j.start_time
 ORDER BY j.job_id LIMIT 40;
-- a reservation on proteus ten days before t0 (the demo has none), so that
-- sreport_reservation_utilization has rows
INSERT INTO fairshare.reservations (cluster, resv_id, name, time_start, time_end, tres, accounts, users)
SELECT 'proteus', 9001, 'bi_resv', t - interval '10 days', t - interval '10 days' + interval '6 hours', 'cpu=96',
       ARRAY[(SELECT min(a.account) FROM fairshare.accounts a WHERE a.cluster = 'proteus' AND a.parent_account IS NOT NULL)], '{""}'
  FROM (SELECT date_trunc('hour', now()) AS t) n;
SELECT count(*) FROM fairshare.refresh_rollups();
SQL
t0=$(q -c "SELECT date_trunc('hour', now())::text")
ok "the demo centre loaded (test/demo/), its rollups refreshed, role $role in fairshare_reader; reports as of $t0"

# the policy lab over the demo: a scenario without overrides gives exactly
# the live reports, every column of every row (sshare_at, sprio_at,
# start_next), and moves no job in a replay (docs/history.md#the-policy-lab)
same=$(q -v t0="$t0" <<'SQL'
INSERT INTO fairshare.scenarios (scenario, description) VALUES ('bi_same', 'no override');
SELECT '[{"cluster": "proteus", "partition": "metis", "cpus": 48, "mem_mb": 196608}, {"cluster": "cali", "partition": "normal", "cpus": 64}]' AS free \gset
SELECT (SELECT count(*) FROM fairshare.sshare_at(:'t0')) || ' ' ||
       (SELECT count(*) FROM ((SELECT * FROM fairshare.sshare_at(:'t0') EXCEPT ALL SELECT * FROM fairshare.sshare_at(:'t0', 'bi_same'))
                    UNION ALL (SELECT * FROM fairshare.sshare_at(:'t0', 'bi_same') EXCEPT ALL SELECT * FROM fairshare.sshare_at(:'t0'))) d) || ' ' ||
       (SELECT count(*) FROM fairshare.sprio_at(:'t0')) || ' ' ||
       (SELECT count(*) FROM ((SELECT * FROM fairshare.sprio_at(:'t0') EXCEPT ALL SELECT * FROM fairshare.sprio_at(:'t0', 'bi_same'))
                    UNION ALL (SELECT * FROM fairshare.sprio_at(:'t0', 'bi_same') EXCEPT ALL SELECT * FROM fairshare.sprio_at(:'t0'))) d) || ' ' ||
       (SELECT count(*) FROM ((SELECT * FROM fairshare.start_next(:'free', :'t0', true) EXCEPT ALL SELECT * FROM fairshare.start_next(:'free', :'t0', true, 'bi_same'))
                    UNION ALL (SELECT * FROM fairshare.start_next(:'free', :'t0', true, 'bi_same') EXCEPT ALL SELECT * FROM fairshare.start_next(:'free', :'t0', true))) d) || ' ' ||
       (SELECT count(*) FILTER (WHERE earlier + later > 0) FROM fairshare.scenario_replay(:'t0'::timestamptz - interval '3 hours', :'t0', '1 hour', 'bi_same'));
SQL
) || bail "the demo under a scenario without overrides"
read -r n_sshare d_sshare n_sprio d_sprio d_next moved <<< "$same"
[ "${n_sshare:-0}" -gt 0 ] && [ "${n_sprio:-0}" -gt 0 ] && [ "$d_sshare $d_sprio $d_next $moved" = "0 0 0 0" ] \
  && ok "the demo under a scenario without overrides: sshare_at ($n_sshare rows), sprio_at ($n_sprio rows) and start_next the live ones, every column; no job moved in 3 hours replayed" \
  || fail "the demo under a scenario without overrides differs from the live reports: '$same' (rows, differing: sshare, sprio; differing: start_next; partitions with jobs moved)"

# 3. the queries: every view of the extension, from the catalog, and a call
# of each report function.  Arguments: the demo's own dates (report_*.sql)
# for the GENCI, RWTH, MetaCentrum and statement data; the last 30 days
# before t0 for the rollups and sreport; t0 for the rest.
q -v t0="$t0" > "$WORK/calls.tsv" <<'SQL' || bail "the list of calls"
SELECT name || E'\t' || format(sql, t0, t0 - interval '30 days', date_trunc('month', t0 - interval '1 month')::date)
  FROM (SELECT :'t0'::timestamptz AS t0) t,
       (VALUES
  ('account_core_hours', $$SELECT fairshare.account_core_hours('ada', 'gen7002', '2026-01-01 00:00+01', '2026-04-01 00:00+02') AS account_core_hours$$),
  ('account_usage_monthly', $$SELECT * FROM fairshare.account_usage_monthly(%2$L, %1$L, 'proteus')$$),
  ('account_usage_svg', $$SELECT fairshare.account_usage_svg('claix', 'rwth1001', '2026-01-01', '2026-05-01') AS svg$$),
  ('allocation_consumption', $$SELECT fairshare.allocation_consumption(2, '2026-04-16') AS allocation_consumption$$),
  ('allocation_net_hours', $$SELECT fairshare.allocation_net_hours(2, '2026-04-16') AS allocation_net_hours$$),
  ('allocation_statements', $$SELECT * FROM fairshare.allocation_statements('2026-03-01', '2026-04-16 00:00+02')$$),
  ('allocation_thresholds', $$SELECT * FROM fairshare.allocation_thresholds(2)$$),
  ('allocation_used', $$SELECT fairshare.allocation_used(2, '2026-04-16 00:00+02') AS allocation_used$$),
  ('association_tree_at', $$SELECT * FROM fairshare.association_tree_at(%1$L)$$),
  ('association_usage_at', $$SELECT * FROM fairshare.association_usage_at(%1$L)$$),
  ('bi_job_sizes_by_account', $$SELECT * FROM fairshare.bi_job_sizes_by_account(%2$L, %1$L, '{4,16,64}', 'hours', cluster => 'proteus')$$),
  ('bi_job_sizes_by_account_flat_count', $$SELECT * FROM fairshare.bi_job_sizes_by_account(%2$L, %1$L, '{8,32}', flat => true, job_count => true)$$),
  ('bi_metacentrum_job_usage_at', $$SELECT * FROM fairshare.bi_metacentrum_job_usage_at('2024-07-01 00:00+00')$$),
  ('burndown_svg', $$SELECT fairshare.burndown_svg(2, '2026-04-16 00:00+02') AS svg$$),
  ('cluster_usage_between', $$SELECT * FROM fairshare.cluster_usage_between('proteus', %2$L, %1$L)$$),
  ('cluster_utilisation_svg', $$SELECT fairshare.cluster_utilisation_svg('ada', '2026-03-01 00:00+01', '2026-04-01 00:00+02') AS svg$$),
  ('genci_report_at', $$SELECT * FROM fairshare.genci_report_at('2026-04-16')$$),
  ('genci_report_at_scenario', $$SELECT * FROM fairshare.genci_report_at('2026-04-16', 'ada_tgcc')$$),
  ('metacentrum_job_usage_at', $$SELECT * FROM fairshare.metacentrum_job_usage_at('2024-07-01 00:00+00')$$),
  ('metacentrum_user_usage_at', $$SELECT * FROM fairshare.metacentrum_user_usage_at('2024-07-01 00:00+00')$$),
  ('my_allocation_statements', $$SELECT * FROM fairshare.my_allocation_statements('2026-03-01', '2026-04-16 00:00+02')$$),
  ('my_pbsfs_at', $$SELECT * FROM fairshare.my_pbsfs_at('2024-07-01 00:00+00')$$),
  ('my_sprio_at', $$SELECT * FROM fairshare.my_sprio_at(%1$L)$$),
  ('my_sshare_at', $$SELECT * FROM fairshare.my_sshare_at(%1$L)$$),
  ('my_user_name', $$SELECT fairshare.my_user_name() AS my_user_name$$),
  ('pbsfs_at', $$SELECT * FROM fairshare.pbsfs_at('2024-07-01 00:00+00')$$),
  ('r_wlm_usage_at', $$SELECT * FROM fairshare.r_wlm_usage_at('2026-07-01 00:00+02')$$),
  ('r_wlm_usage_at_scenario', $$SELECT * FROM fairshare.r_wlm_usage_at('2026-07-01 00:00+02', 'claix_gpu12')$$),
  ('scenario_replay', $$SELECT * FROM fairshare.scenario_replay(%1$L::timestamptz - interval '2 hours', %1$L, '1 hour', 'proteus_short_memory')$$),
  ('scenario_sprio_compare', $$SELECT * FROM fairshare.scenario_sprio_compare(%1$L, 'proteus_short_memory')$$),
  ('scenario_sshare_compare', $$SELECT * FROM fairshare.scenario_sshare_compare(%1$L, 'proteus_short_memory')$$),
  ('rwth_monthly_usage_at', $$SELECT * FROM fairshare.rwth_monthly_usage_at('2026-04-16 00:00+02')$$),
  ('rwth_monthly_usage_at_scenario', $$SELECT * FROM fairshare.rwth_monthly_usage_at('2026-04-16 00:00+02', 'claix_c23mm_shared')$$),
  ('scenario_rwth_compare', $$SELECT * FROM fairshare.scenario_rwth_compare('2026-07-01 00:00+02', 'claix_gpu12')$$),
  ('sprio_at', $$SELECT * FROM fairshare.sprio_at(%1$L)$$),
  ('sprio_at_scenario', $$SELECT * FROM fairshare.sprio_at(%1$L, 'proteus_short_memory')$$),
  ('sreport_account_utilization_by_user', $$SELECT * FROM fairshare.sreport_account_utilization_by_user(%2$L, %1$L, 'percent', 'cpu,mem,billing', 'proteus')$$),
  ('sreport_cluster_utilization', $$SELECT * FROM fairshare.sreport_cluster_utilization(%2$L, %1$L, 'hours', 'ALL')$$),
  ('sreport_reservation_utilization', $$SELECT * FROM fairshare.sreport_reservation_utilization(%2$L, %1$L, 'hours', 'ALL', 'proteus')$$),
  ('sreport_job_sizes_by_account', $$SELECT * FROM fairshare.sreport_job_sizes_by_account(%2$L, %1$L, '{4,16,64}', 'hours', cluster => 'proteus')$$),
  ('sreport_top_usage', $$SELECT * FROM fairshare.sreport_top_usage(%2$L, %1$L, 'seconds', 'cpu', 'cali', top_count => 5, "group" => true)$$),
  ('sreport_user_utilization_by_account', $$SELECT * FROM fairshare.sreport_user_utilization_by_account(%2$L, %1$L, 'minper')$$),
  ('sshare_at', $$SELECT * FROM fairshare.sshare_at(%1$L)$$),
  ('sshare_at_scenario', $$SELECT * FROM fairshare.sshare_at(%1$L, 'proteus_short_memory')$$),
  ('sshare_explain', $$SELECT * FROM fairshare.sshare_explain('cali', 'fs_bi_reader', 'ana.martin', %1$L)$$),
  ('start_next', $$SELECT * FROM fairshare.start_next('[{"cluster": "proteus", "partition": "metis", "cpus": 48, "mem_mb": 196608}, {"cluster": "cali", "partition": "normal", "cpus": 64}]', %1$L, true)$$),
  ('start_next_scenario', $$SELECT * FROM fairshare.start_next('[{"cluster": "proteus", "partition": "metis", "cpus": 48, "mem_mb": 196608}]', %1$L, true, 'proteus_short_memory')$$),
  ('usage_between', $$SELECT * FROM fairshare.usage_between('proteus', %2$L, %1$L)$$),
  ('usage_buckets', $$SELECT * FROM fairshare.usage_buckets('proteus', NULL, %2$L, %1$L, 'day')$$),
  ('usage_buckets_month', $$SELECT * FROM fairshare.usage_buckets('claix', 'rwth1001', '2026-01-01 00:00+01', '2026-07-01 00:00+02', 'month')$$)
  ) c(name, sql)
 ORDER BY name;
SQL
# functions a reader may call that are not reports, and why they are not read
skipped="job_partitions job_retention"
skip_reason="job_partitions() and job_retention(before) list the partitions of jobs for retain_jobs (docs/history.md), administration rather than a report; their relation column is a regclass"
# columns of the reports a BI tool cannot chart, and the BI form read instead
exempt="metacentrum_job_usage.walltime:bi_metacentrum_job_usage metacentrum_job_usage_at.walltime:bi_metacentrum_job_usage_at sreport_job_sizes_by_account.labels:bi_job_sizes_by_account sreport_job_sizes_by_account.sizes:bi_job_sizes_by_account"

# every STABLE function of schema fairshare the reader may call (the
# reports; IMMUTABLE ones are pure arithmetic, VOLATILE ones write) is called
# or skipped, every view is read
uncovered=$(q -v skipped="$skipped" -v called="$(cut -f1 "$WORK/calls.tsv" | tr '\n' ' ')" <<'SQL'
SELECT string_agg(DISTINCT p.proname, ' ' ORDER BY p.proname)
  FROM pg_proc p
 WHERE p.pronamespace = 'fairshare'::regnamespace AND p.prokind = 'f' AND p.provolatile = 's'
   AND has_function_privilege('fairshare_reader', p.oid, 'EXECUTE')
   AND p.proname <> ALL (string_to_array(:'skipped', ' '))
   AND p.proname <> ALL (string_to_array(:'called', ' '));
SQL
)
[ -z "$uncovered" ] && ok "every report function the reader may call is read ($(wc -l < "$WORK/calls.tsv") calls) or skipped: $skip_reason" \
  || fail "report functions neither called nor skipped: $uncovered"

# the views, each ordered by all its columns (the calls too, below)
q > "$WORK/views.tsv" <<'SQL' || bail "the list of views"
SELECT 'view.' || c.relname || E'\t' ||
       format('SELECT * FROM fairshare.%I ORDER BY %s', c.relname,
              (SELECT string_agg(a.attnum::text, ', ' ORDER BY a.attnum) FROM pg_attribute a
                WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))
  FROM pg_class c
 WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind IN ('v', 'm')
   AND has_table_privilege('fairshare_reader', c.oid, 'SELECT')
 ORDER BY c.relname;
SQL
nviews=$(wc -l < "$WORK/views.tsv")
[ "$nviews" -gt 0 ] || bail "no view in schema fairshare"
cp "$WORK/views.tsv" "$WORK/queries.tsv"
while IFS=$'\t' read -r name sql; do
  cols=$(q -c "SELECT * FROM ($sql) AS q LIMIT 0" -P tuples_only=off -F $'\x1f' 2>/dev/null | head -1 | awk -F $'\x1f' '{ print NF }')
  [ -n "$cols" ] && [ "$cols" -gt 0 ] || { fail "call $name: psql cannot run it"; continue; }
  printf 'call.%s\t%s ORDER BY %s\n' "$name" "$sql" "$(seq -s ', ' 1 "$cols")" >> "$WORK/queries.tsv"
done < "$WORK/calls.tsv"
# BI_EXTRA_QUERIES=FILE adds queries (lines NAME<tab>SQL, NAME call.x): how
# to see that a check fails, e.g. on an interval or a real column
if [ -n "${BI_EXTRA_QUERIES:-}" ]; then cat "$BI_EXTRA_QUERIES" >> "$WORK/queries.tsv"; fi

# 4. the same call twice gives the same bits, with or without parallel
# workers: a float8 sum that workers compute in parts adds the parts in the
# order they finish, and two reads of usage_buckets differed in the last
# digit (127.21342547833333 and 127.21342547833335; docs/statements.md#usage-buckets).
# Each view and call is read by psql once serially and twice with parallel
# plans made free (the demo's tables are small: without that the planner
# keeps them serial), as the reader.
# A query at an instant: a view's definition with now() replaced by that
# instant (a view read twice is otherwise read at two instants), a call as it is.
query_at() { # name sql instant
  case "$1" in
    view.*)
      q -v v="${1#view.}" -v t="$3" -v order="${2##* ORDER BY }" <<'SQL'
SELECT format('SELECT * FROM (%s) AS v ORDER BY %s',
              replace(rtrim(pg_get_viewdef(format('fairshare.%I', :'v')::regclass), E'; \n'),
                      'now()', format('pg_catalog.timezone(''UTC'', %L::timestamp)', :'t')),
              :'order');
SQL
      ;;
    *) printf '%s\n' "$2" ;;
  esac
}
parallel="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET min_parallel_index_scan_size = 0; SET max_parallel_workers_per_gather = 2"
read_call() { # sql settings out
  psql -X -A -t -q -v ON_ERROR_STOP=1 -F $'\x1f' -R $'\x1e' -P 'null=\N' -d "$db" \
    -c "SET ROLE $role" -c "SET extra_float_digits = 1" -c "$2" -c "$1" > "$3"
}
now_utc=$(q -c "SELECT pg_catalog.timezone('UTC', pg_catalog.now())::text")
while IFS=$'\t' read -r name sql; do
  if ! sql=$(query_at "$name" "$sql" "$now_utc" 2>"$WORK/psql.err"); then
    fail "$name: psql: $(head -c 300 "$WORK/psql.err" | tr '\n' ' ')"; continue
  fi
  if ! read_call "$sql" "SET max_parallel_workers_per_gather = 0" "$WORK/serial" 2>"$WORK/psql.err" \
     || ! read_call "$sql" "$parallel" "$WORK/parallel1" 2>>"$WORK/psql.err" \
     || ! read_call "$sql" "$parallel" "$WORK/parallel2" 2>>"$WORK/psql.err"; then
    fail "$name: psql: $(head -c 300 "$WORK/psql.err" | tr '\n' ' ')"; continue
  fi
  if cmp -s "$WORK/serial" "$WORK/parallel1" && cmp -s "$WORK/serial" "$WORK/parallel2"; then
    ok "$name: the same values serially and twice with parallel workers"
  else
    fail "$name: values differ between reads (serial against parallel workers)"
    diff <(tr '\036' '\n' < "$WORK/serial") <(tr '\036' '\n' < "$WORK/parallel1") | head -4 | sed 's/^/# /'
  fi
done < "$WORK/queries.tsv"

# 5. through each driver, as the reader, every session in UTC with the
# float digits a driver needs to give back the exact double.  psqlODBC
# connects through libpq, which reads PGTZ and PGOPTIONS; pgjdbc takes them
# as connection parameters.  The query "setting" reads them back through
# each driver.
export PGTZ=UTC TZ=UTC PGDATESTYLE=ISO PGOPTIONS="-c extra_float_digits=1"
printf 'setting.session\t%s\n' "SELECT current_setting('TimeZone') AS tz, current_setting('max_parallel_workers_per_gather') AS workers, current_user AS login, pg_has_role('fairshare_reader', 'member') AS reader" >> "$WORK/queries.tsv"
mkdir -p "$WORK/jdbc" "$WORK/odbc" "$WORK/psql"
java -Duser.timezone=UTC -cp "$JAR" test/bi/BiJdbc.java "jdbc:postgresql://$host:$port/$db" "$role" "$password" \
     "$WORK/queries.tsv" "$WORK/jdbc" 2>"$WORK/jdbc.err"
st=$?
[ $st -le 1 ] || { sed 's/^/# /' "$WORK/jdbc.err"; bail "the JDBC reader (status $st)"; }
"$WORK/bi_odbc" "Driver={$ODBC_DRIVER};Servername=$host;Port=$port;Database=$db;Uid=$role;Pwd=$password;BoolsAsChar=0;" \
     "$WORK/queries.tsv" "$WORK/odbc" 2>"$WORK/odbc.err"
st=$?
[ $st -le 1 ] || { sed 's/^/# /' "$WORK/odbc.err"; bail "the ODBC reader (status $st)"; }

# psql's rows of a query at an instant (query_at, above)
expected() { # name sql instant out
  local sql
  sql=$(query_at "$1" "$2" "$3") || return 1
  psql -X -A -t -q -v ON_ERROR_STOP=1 -F $'\x1f' -R $'\x1e' -P 'null=\N' -d "$db" \
    -c "SET ROLE $role" -c "$sql" > "$4"
}

for driver in jdbc odbc; do
  label=$(echo "$driver" | tr '[:lower:]' '[:upper:]')
  while IFS=$'\t' read -r name sql; do
    meta="$WORK/$driver/$name.meta" rows="$WORK/$driver/$name.rows"
    if [ ! -f "$meta" ]; then fail "$label $name: not read"; continue; fi
    if head -1 "$meta" | grep -q '^ERROR '; then
      fail "$label $name: $(head -1 "$meta")"; fail "$label $name: values (not read)"; continue
    fi
    base=${name#*.}
    # types: every column a BI type, but for the exempt ones
    bad="" notes=""
    while IFS=$'\t' read -r col kind code tname dbtype; do
      [ "$kind" = bad ] || continue
      twin=""
      for e in $exempt; do [ "${e%%:*}" = "$base.$col" ] && twin=${e#*:}; done
      if [ -n "$twin" ] && grep -q -E "^(view|call)\\.$twin	" "$WORK/queries.tsv"; then
        notes="$notes $col ($tname: ${dbtype:-no type name}, its BI form $twin is read too)"
      else
        bad="$bad $col (${dbtype:-no type name}: $code $tname)"
      fi
    done < <(tail -n +2 "$meta")
    ncols=$(($(wc -l < "$meta") - 1))
    if [ -z "$bad" ]; then
      if [ -z "$notes" ]; then
        ok "$label $name: $ncols column(s), each of a type the driver maps"
      else
        ok "$label $name: $ncols column(s), each of a type the driver maps but the report's own$notes"
      fi
    else
      fail "$label $name: columns a BI tool cannot map:$bad"
    fi
    # values: psql at the instant the driver read
    if ! expected "$name" "$sql" "$(head -1 "$meta")" "$WORK/psql/$driver.$name" 2>"$WORK/psql.err"; then
      fail "$label $name: psql: $(head -c 300 "$WORK/psql.err" | tr '\n' ' ')"; continue
    fi
    nrows=$(tr -cd '\036' < "$rows" | wc -c)
    if ! diff_line=$("$WORK/bi_compare" "$meta" "$WORK/psql/$driver.$name" "$rows"); then
      fail "$label $name: values differ from psql's"; echo "$diff_line"
    elif [ "$nrows" -eq 0 ]; then
      fail "$label $name: no rows (a comparison of nothing proves nothing)"
    else
      ok "$label $name: $nrows row(s) equal psql's"
    fi
  done < "$WORK/queries.tsv"
  # how this driver mapped each PostgreSQL type it met
  echo "# $label maps: $(cat "$WORK/$driver"/*.meta | awk -F '\t' 'NF == 5 { print ($5 == "" ? "(no type name)" : $5) " -> " $4 }' | sort -u | paste -sd, | sed 's/,/, /g')"
done
echo "1..$n"
