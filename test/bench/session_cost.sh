#!/usr/bin/env bash
# A new session's cost of a query: the CPU time (user + system, from
# log_statement_stats) of the query as the first statement of a fresh
# backend, and as its second, for several queries in alternating sessions
# (docs/performance.md#a-new-sessions-cost).  CPU time, unlike
# wall time, is not stretched by other work on a shared machine.
#
#   bash test/bench/session_cost.sh [rounds] [label=SQL | sprio | sshare] ...
#
# against the server and database the PG* variables name.  Each round opens,
# for each query in turn, one session that runs it twice (COPY (query) TO
# STDOUT, output discarded); the medians over the rounds are printed.
# "sprio" and "sshare" (the default, both) are sprio_at's sprio -l columns
# and sshare_at's columns of sshare -a -l -P (as bench-slurm formats them,
# test/bench/slurm.sh) at the instant SESSION_AS_OF (default now()), of the
# cluster SESSION_CLUSTER (default bench).  A failing query stops the
# script with its error.
set -euo pipefail
rounds=${1:-15}
shift || true
as_of=${SESSION_AS_OF:-now()}
cluster=${SESSION_CLUSTER:-bench}
sprio_sql="SELECT job_id, partition, user_name, priority, age, fairshare, job_size, partition_prio, qos_prio, nice FROM fairshare.sprio_at($as_of)"
sshare_sql="SELECT s.account, s.user_name, s.raw_shares, to_char(s.norm_shares, 'FM99999999990.000000'), s.raw_usage_int, to_char(s.norm_usage, 'FM99999999990.000000'), to_char(s.effectv_usage, 'FM99999999990.000000'), to_char(s.fairshare, 'FM99999999990.000000'), to_char(s.level_fs, 'FM99999999990.000000') FROM fairshare.sshare_at($as_of) s WHERE s.cluster = '$cluster' ORDER BY s.tree_order"
[ $# -gt 0 ] || set -- sprio sshare
args=()
for q in "$@"; do
  case "$q" in
    sprio) args+=("sprio=$sprio_sql") ;;
    sshare) args+=("sshare=$sshare_sql") ;;
    *=*) args+=("$q") ;;
    *) echo "session_cost.sh: $q: expected label=SQL, sprio or sshare" >&2; exit 2 ;;
  esac
done
set -- "${args[@]}"
# the queries run once first, so that an error shows here
for q in "$@"; do
  psql -X -q -v ON_ERROR_STOP=1 -c "COPY (${q#*=}) TO STDOUT" > /dev/null
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for _ in $(seq "$rounds"); do
  for q in "$@"; do
    label=${q%%=*}
    label=${label// /_}
    sql=${q#*=}
    # the statistics come as LOG messages on stderr, one "... elapsed" line
    # per statement
    PGOPTIONS="${PGOPTIONS:-} -c log_statement_stats=on -c client_min_messages=log" \
      psql -X -q -v ON_ERROR_STOP=1 -c "COPY ($sql) TO STDOUT" -c "COPY ($sql) TO STDOUT" 2>&1 >/dev/null \
      | awk -v l="$label" '/s user, .* s system, .* s elapsed/ { gsub(",", ""); n++; print l, n, ($2 + $5) * 1000 }' >> "$out"
  done
done
echo "CPU ms (user + system), medians of $rounds sessions each:"
printf '%-24s %12s %12s\n' query first second
for q in "$@"; do
  label=${q%%=*}
  label=${label// /_}
  med() { awk -v l="$label" -v k="$1" '$1 == l && $2 == k { print $3 }' "$out" | sort -n |
          awk '{ x[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) printf "%.1f", x[(NR + 1) / 2]; else printf "%.1f", (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
  printf '%-24s %12s %12s\n' "$label" "$(med 1)" "$(med 2)"
done
