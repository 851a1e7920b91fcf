#!/usr/bin/env bash
# Retention (docs/history.md): on the demo centre, with two months
# of older runs of the Slurm cluster cali added, retain_jobs detaches the
# months no report needs any more, and every table and report as of now
# (test/snapshot.sql) is the same after it but for exactly those runs of
# jobs and the pin of the checkpoint that holds their usage.  One month is
# kept as a table of its own, the other archived to a CSV file on the
# server.  A month of the PBS cluster is refused, and nothing changes.
# Runs inside the test cluster (test/cluster.sh test); prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=fs_retention
export PGTZ=UTC PGDATESTYLE=ISO
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; echo "1..$n"; exit 1; }
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d $db "$@"; }
tmp=$(mktemp -d)
# the server writes the archive: a directory any server user may write
archive=$(mktemp -d); chmod 1777 "$archive"
trap 'rm -rf "$tmp" "$archive"; dropdb --if-exists $db 2>/dev/null' EXIT
dropdb --if-exists $db 2>/dev/null
# the demo centre (test/demo_db.sh)
bash test/demo_db.sh $db >/dev/null 2>"$tmp/load.err" \
  || { cat "$tmp/load.err"; bail "load the demo centre"; }

# October and November 2023: 400 runs of cali's associations, all ended by
# 2023-12-01; cali has no allocation.  Then the monthly partitions, a
# checkpoint of cali as of 2023-12-15 (after them), one of every cluster now.
q <<'SQL' || bail "add the older runs, partitions and checkpoints"
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus)
SELECT 'cali', 'r' || i, u.user_name, u.account, 'normal', 'COMPLETED',
       '2023-10-01 00:00+00'::timestamptz + i * interval '3 hours',
       '2023-10-01 00:00+00'::timestamptz + i * interval '3 hours' + interval '10 minutes',
       '2023-10-01 00:00+00'::timestamptz + i * interval '3 hours' + interval '10 minutes' + (1 + i % 5) * interval '1 hour',
       1 + i % 16
  FROM generate_series(0, 399) i
  JOIN LATERAL (SELECT au.account, au.user_name FROM fairshare.account_users au
                 WHERE au.cluster = 'cali' ORDER BY au.account, au.user_name
                OFFSET i % (SELECT count(*) FROM fairshare.account_users WHERE cluster = 'cali') LIMIT 1) u ON true;
SET client_min_messages = warning;
CALL fairshare.maintain_partitions();
CALL fairshare.checkpoint_usage('cali', '2023-12-15 00:00+00');
CALL fairshare.checkpoint_usage();
-- the rollups hold the two months before they go (retention refuses otherwise)
CREATE TEMP TABLE refreshed AS SELECT * FROM fairshare.refresh_rollups();
SQL
oct=$(q -c "SELECT count(*) FROM fairshare.jobs_p2023_10")
nov=$(q -c "SELECT count(*) FROM fairshare.jobs_p2023_11")
[ "$oct" -gt 0 ] && [ "$nov" -gt 0 ] && [ $((oct + nov)) = 400 ] \
  && ok "the older runs are in their months: $oct in October, $nov in November 2023" \
  || fail "October $oct, November $nov runs, not 400 in all"
nov_ids=$(q -c "SELECT string_agg(job_id, ',' ORDER BY job_id) FROM fairshare.jobs_p2023_11")

as_of=$(q -c "SELECT date_trunc('second', now())")
snapshot() { psql -X -A -q -v ON_ERROR_STOP=1 -v as_of="$as_of" -d $db -f test/snapshot.sql | LC_ALL=C sort; }
layout() { q -c "SELECT relation, month_start FROM fairshare.job_partitions() ORDER BY 2 NULLS FIRST, 1"; }
snapshot > "$tmp/before" || bail "snapshot before"
layout > "$tmp/layout.before"

# A month of the PBS cluster metacentrum (March 2024) cannot go: refused
# with its name and reason, before anything changes.
err=$(q -c "CALL fairshare.retain_jobs('2024-04-01')" 2>&1)
if echo "$err" | grep -q 'partition fairshare.jobs_p2024_03 cannot go: cluster metacentrum uses the PBS fair share' \
   && layout | cmp -s "$tmp/layout.before" -; then
  ok "retain_jobs('2024-04-01') refuses: March 2024 holds runs of the PBS cluster; nothing detached"
else fail "retain_jobs('2024-04-01'): $err"; fi
state=$(psql -X -A -t -q -d $db -c "DO \$\$ BEGIN CALL fairshare.retain_jobs('2024-04-01'); EXCEPTION WHEN OTHERS THEN RAISE NOTICE '%', SQLSTATE; END \$\$" 2>&1)
[[ "$state" == *55000* ]] && ok "the refusal's SQLSTATE is 55000" || fail "the refusal's SQLSTATE: $state"

# October goes and stays as a table; November goes to a file.
q -c "CALL fairshare.retain_jobs('2023-11-01')" || fail "retain_jobs('2023-11-01')"
q -c "CALL fairshare.retain_jobs('2023-12-01', '$archive')" || fail "retain_jobs('2023-12-01', archive)"
snapshot > "$tmp/after"

# the diff: only October's and November's runs of jobs, cali's checkpoint
# as of 2023-12-15 pinned, and cali's rollups final up to the end of the
# hour of the last retained run's end (run r399: submitted 2023-10-01 +
# 399 × 3 h = 11-19 21:00, started 10 min later, ended 1 + 399 % 5 = 5 h
# after: 11-20 02:10, so 11-20 03:00)
LC_ALL=C comm -23 "$tmp/before" "$tmp/after" > "$tmp/gone"
LC_ALL=C comm -13 "$tmp/before" "$tmp/after" > "$tmp/new"
# (rows print as jsonb without their default-valued columns: test/snapshot.sql)
retained='^jobs\|.*"cluster": "cali".*"submit_time": "2023-1[01]-'
gone_jobs=$(grep -c -E "$retained" "$tmp/gone")
gone_other=$(grep -v -E "$retained" "$tmp/gone")
gone_cp=$(grep '^usage_checkpoints|' <<<"$gone_other")
new_cp=$(grep '^usage_checkpoints|' "$tmp/new")
gone_st=$(grep '^rollup_state|' <<<"$gone_other")
new_st=$(grep '^rollup_state|' "$tmp/new")
if [ "$gone_jobs" = 400 ] && [ "$(echo "$gone_other" | grep -c .)" = 2 ] \
   && [[ "$gone_cp" == "usage_checkpoints|"*'"as_of": "2023-12-15T00:00:00+00:00"'*'"cluster": "cali"'* ]] \
   && [ "$(wc -l < "$tmp/new")" = 2 ] \
   && [[ "$new_cp" == *'"pinned": true'* ]] \
   && [ "$(sed -e 's/, "pinned": true//' -e 's/"pinned": true, //' <<<"$new_cp")" = "$gone_cp" ] \
   && [[ "$gone_st" == 'rollup_state|'*'"cluster": "cali"'* ]] \
   && [[ "$new_st" == *'"retained_to": "2023-11-20T03:00:00+00:00"'* ]] \
   && [ "$(sed -e 's/, "retained_to": "2023-11-20T03:00:00+00:00"//' <<<"$new_st")" = "$gone_st" ]; then
  ok "every table and report as of now is the same but for the 400 retained runs of jobs, the pin of cali's checkpoint as of 2023-12-15 and cali's rollups final before 2023-11-20 03:00 ($(wc -l < "$tmp/before") lines compared)"
else
  fail "the snapshot changed otherwise: $gone_jobs runs gone, and (- before, + after):"
  { echo "$gone_other" | sed 's/^/- /'; sed 's/^/+ /' "$tmp/new"; } | head -20 | sed 's/^/# /'
fi

# Retention is final for the rollups too: the documented export of
# sacctmgr show event -P all_time holds the cluster's open "Cluster
# Registered TRES" event (here cali's 1,280 cores since 2023-01-01, local
# time); importing it marks every hour since, and refresh_rollups then
# recomputes only the hours from 2023-11-20 03:00 on.  October's and
# November's rollups (every cali row of the hourly, daily and monthly
# tables before then, and sreport's October) are the same after.
rollups() { q -c "SELECT t, r FROM (SELECT 'usage_hourly' t, to_jsonb(u) r FROM fairshare.usage_hourly u
                                      WHERE u.cluster = 'cali' AND u.period_start < '2023-11-20 03:00+00'
                                    UNION ALL SELECT 'cluster_usage_hourly', to_jsonb(u) FROM fairshare.cluster_usage_hourly u
                                      WHERE u.cluster = 'cali' AND u.period_start < '2023-11-20 03:00+00'
                                    UNION ALL SELECT 'usage_daily', to_jsonb(u) FROM fairshare.usage_daily u
                                      WHERE u.cluster = 'cali' AND u.period_start < '2023-11-20 00:00+01'
                                    UNION ALL SELECT 'cluster_usage_daily', to_jsonb(u) FROM fairshare.cluster_usage_daily u
                                      WHERE u.cluster = 'cali' AND u.period_start < '2023-11-20 00:00+01'
                                    UNION ALL SELECT 'usage_monthly', to_jsonb(u) FROM fairshare.usage_monthly u
                                      WHERE u.cluster = 'cali' AND u.period_start < '2023-11-01 00:00+01'
                                    UNION ALL SELECT 'cluster_usage_monthly', to_jsonb(u) FROM fairshare.cluster_usage_monthly u
                                      WHERE u.cluster = 'cali' AND u.period_start < '2023-11-01 00:00+01') x ORDER BY 1, 2"
           q -c "SELECT * FROM fairshare.sreport_cluster_utilization('2023-10-01 00:00+02', '2023-11-01 00:00+01', cluster => 'cali')"; }
rollups > "$tmp/rollups.before"
alloc=$(q -c "SELECT allocated FROM fairshare.sreport_cluster_utilization('2023-10-01 00:00+02', '2023-11-01 00:00+01', cluster => 'cali')")
events='Cluster|ClusterNodes|Event|NodeName|TimeStart|TimeEnd|State|StateRaw|TRES|Reason|User
cali|node[001-040]|Cluster||2023-01-01T00:00:00|Unknown|||cpu=1280,mem=7864320M,node=40,billing=1280|Cluster Registered TRES|'
notice=$(psql -X -A -t -q -v ON_ERROR_STOP=1 -d $db -v events="$events" 2>&1 >/dev/null <<'SQL'
SET client_min_messages = notice;
SELECT fairshare.import_events('cali', :'events');
SQL
)
q -c "SELECT count(*) FROM fairshare.refresh_rollups('cali')" >/dev/null || fail "refresh_rollups after import_events"
rollups > "$tmp/rollups.after"
if [ "$(grep -c . "$tmp/rollups.before")" -gt 100 ] && [ -n "$alloc" ] && [ "$alloc" != 0 ] \
   && cmp -s "$tmp/rollups.before" "$tmp/rollups.after"; then
  ok "after import_events of the open cluster event and refresh_rollups, cali's $(grep -c . "$tmp/rollups.before") rollup rows before 2023-11-20 03:00 are the same; October still allocated $alloc CPU-minutes"
else
  fail "cali's retained rollups changed (October allocated $alloc before):"
  diff "$tmp/rollups.before" "$tmp/rollups.after" | head -10 | sed 's/^/# /'
fi
[[ "$notice" == *'rollups of cluster cali before 2023-11-20 03:00:00+00 are final (retain_jobs)'* ]] \
  && ok "import_events says which hours it leaves final: $(head -1 <<<"$notice")" || fail "import_events' notice: $notice"
# the hours after: the event counts, 1,280 cores × 3,600 s = 4,608,000 CPU-seconds an hour
rep=$(q -c "SELECT reported_secs FROM fairshare.cluster_usage_hourly
             WHERE cluster = 'cali' AND tres = 'cpu' AND period_start = '2023-12-01 00:00+00'")
[ "$rep" = 4608000 ] && ok "from 2023-11-20 03:00 on the event counts: 2023-12-01 00:00 reported $rep CPU-seconds" \
  || fail "2023-12-01 00:00 reported $rep CPU-seconds, not 1,280 × 3,600 = 4,608,000" 
reports=$(grep -c -E '^(association_usage|sshare|sprio|genci|r_wlm_usage|pbsfs|metacentrum_user_usage)\|' "$tmp/after")
[ "$reports" -gt 100 ] && ok "the 7 reports hold $reports rows, unchanged" || fail "the reports hold only $reports rows"

# October: detached, kept, no foreign keys; November: archived and dropped
got=$(q -c "SELECT c.relispartition, (SELECT count(*) FROM fairshare.jobs_p2023_10),
                   (SELECT count(*) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f'),
                   to_regclass('fairshare.jobs_p2023_11') IS NULL
              FROM pg_class c WHERE c.oid = 'fairshare.jobs_p2023_10'::regclass")
[ "$got" = "f|$oct|0|t" ] && ok "October is a table of its own ($oct runs, no foreign keys); November's table is gone" \
  || fail "October / November after retention: $got"
file="$archive/jobs_p2023_11.csv"
if [ -f "$file" ] && [ "$(tail -n +2 "$file" | wc -l)" = "$nov" ] \
   && [ "$(tail -n +2 "$file" | cut -d, -f2 | sort | paste -sd, -)" = "$nov_ids" ] \
   && head -1 "$file" | grep -q '^cluster,job_id,user_name,account,partition'; then
  ok "November's $nov runs are in $file (CSV with a header)"
else fail "the archive $file: $(ls -la "$archive" 2>&1 | tail -n +2)"; fi
# the archive loads back as it was
back=$(q -c "CREATE TEMP TABLE back (LIKE fairshare.jobs); COPY back FROM '$file' WITH (FORMAT csv, HEADER true);
             SELECT count(*) FROM back b WHERE b.cluster = 'cali' AND b.submit_time >= '2023-11-01' AND b.submit_time < '2023-12-01'")
[ "$back" = "$nov" ] && ok "the archive loads back with COPY: $back runs of November" || fail "loading the archive back: $back"
pinned=$(q -c "SELECT string_agg(cluster || ' ' || as_of, ', ') FROM fairshare.usage_checkpoints WHERE pinned")
[ "$pinned" = "cali 2023-12-15 00:00:00+00" ] && ok "the checkpoint retention relies on is pinned: $pinned" \
  || fail "pinned checkpoints: $pinned"
echo "1..$n"
