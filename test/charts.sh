#!/usr/bin/env bash
# The charts in a browser (docs/statements.md#charts): each SVG function's
# output is opened in headless Chromium, the screenshot (800 × 400) is read
# back (test/charts.py) and checked: not blank, and the lines and bars are
# where the data puts them, by the colour of the pixels at coordinates
# computed here from the data with the charts' scale (x = 70 + 570 ×
# elapsed / span, y = 350 − 310 × value / top).  Also an allocation without
# jobs and a window of one hour.  Then the demo centre's charts, checked not
# blank; FAIRSHARE_CHART_PNGS=docs/img keeps their PNGs there.
# Runs inside the test cluster (test/cluster.sh test); prints TAP.
# Needs chromium and python3 (test/run.sh installs them); as root Chromium
# runs without its sandbox (--no-sandbox), as in CI.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
db=fs_charts
export PGTZ=UTC PGDATESTYLE=ISO
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; }
bail() { fail "$1"; echo "1..$n"; exit 1; }
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d $db "$@"; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || bail "chromium is not installed (Debian package chromium; test/run.sh installs it)"
command -v python3 >/dev/null || bail "python3 is not installed (test/run.sh installs it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; dropdb --if-exists $db 2>/dev/null' EXIT
dropdb --if-exists $db 2>/dev/null
createdb $db || bail "create database $db"

# The centre of sql/statements.sql: cluster st, 100 cores, UTC.
#   N (101, none): 1000 h for 2026; ann 100 h on 10 Jan, bob 20 + 20 h
#     around midnight of 31 Jan, ann 360 h on 10 Feb; +200 h on 15 Feb,
#     100 h taken back on 20 Feb
#   E (103, none): 100 h for January 2026, no jobs
q >/dev/null <<'SQL' || bail "load the centre"
CREATE EXTENSION fairshare;
INSERT INTO fairshare.clusters (cluster) VALUES ('st');
INSERT INTO fairshare.partitions (cluster, partition, nodes, cores_per_node, mem_per_node_mb) VALUES ('st', 'p', 10, 10, 64000);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
  ('st', 'root', NULL, 1), ('st', 'proj_n', 'root', 1), ('st', 'proj_e', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name) VALUES ('st', 'proj_n', 'ann'), ('st', 'proj_n', 'bob');
INSERT INTO fairshare.allocations (allocation_id, cluster, account, policy, period_start, period_end, hours) VALUES
  (101, 'st', 'proj_n', 'none', '2026-01-01', '2026-12-31', 1000),
  (103, 'st', 'proj_e', 'none', '2026-01-01', '2026-01-31', 100);
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, state, submit_time, start_time, end_time, cpus) VALUES
  ('st', '1', 'ann', 'proj_n', 'p', 'COMPLETED', '2026-01-10 00:00', '2026-01-10 00:00', '2026-01-10 10:00', 10),
  ('st', '2', 'bob', 'proj_n', 'p', 'COMPLETED', '2026-01-31 20:00', '2026-01-31 20:00', '2026-02-01 04:00', 5),
  ('st', '3', 'ann', 'proj_n', 'p', 'COMPLETED', '2026-02-10 00:00', '2026-02-10 00:00', '2026-02-11 00:00', 15);
INSERT INTO fairshare.ledger (allocation_id, kind, hours, reason, effective_date) VALUES
  (101, 'addition', 200, 'extension granted', '2026-02-15'),
  (101, 'take_back', 100, 'unused hours returned', '2026-02-20');
SQL

# svg NAME QUERY: the chart into $tmp/NAME.svg; shot NAME: its screenshot
svg() { q -c "$2" > "$tmp/$1.svg" && [ -s "$tmp/$1.svg" ]; }
shot() {
  rm -f "$tmp/$1.png"
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$tmp/profile" --hide-scrollbars --force-device-scale-factor=1 --window-size=800,400 \
    --screenshot="$tmp/$1.png" "file://$tmp/$1.svg" >"$tmp/$1.log" 2>&1
  [ -s "$tmp/$1.png" ] || { sed 's/^/# /' "$tmp/$1.log" | tail -5; return 1; }
}
# check NAME CHECK...: one TAP line per check of test/charts.py
check() {
  local name=$1; shift
  while IFS= read -r line; do
    case "$line" in
      PASS*) ok "$name: ${line#PASS }" ;;
      FAIL*) fail "$name: ${line#FAIL }" ;;
      *) fail "$name: $line" ;;
    esac
  done < <(python3 test/charts.py "$tmp/$name.png" "$@" 2>&1)
}
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
blue='#1f77b4'; orange='#ff7f0e'; green='#2ca02c'; red='#d62728'; white='#ffffff'

# 1. N's burn-down as of 1 March.  2026 has 365 days; the largest value is
# the net 1200 h (15-20 Feb): top 2000.  x of day d (days since 1 Jan) =
# 70 + 570 d / 365; y of h hours = 350 − 310 h / 2000.
#   used on day 50 (20 Feb): 100 + 20 + 20 + 360 = 500 h, flat since 11 Feb
#   net: 1000 h on day 10, 1200 h on day 47 (16 Feb), 1100 h on day 200
#   theoretical on day 300: 1100 × 300 / 365 = 904.11 h
#   the take-back of 20 Feb: a triangle from its tip on the net (1100 h)
#   12 px up; its middle 7 px above the tip
x() { calc "70 + 570 * $1 / $2"; }
y() { calc "350 - 310 * $1 / $2"; }
if svg burndown "SELECT fairshare.burndown_svg(101, '2026-03-01 00:00')" && shot burndown; then
  ok "burn-down of an allocation rendered by $(basename "$browser")"
  check burndown blank \
    "used 500 h on 20 Feb:$(x 50 365),$(y 500 2000):$blue" \
    "used not yet at 1000 h on 20 Feb:$(x 50 365),$(y 1000 2000):!$blue" \
    "net 1000 h on 11 Jan:$(x 10 365),$(y 1000 2000):$green" \
    "net 1200 h on 17 Feb:$(x 47 365),$(y 1200 2000):$green" \
    "net 1100 h on 20 Jul:$(x 200 365),$(y 1100 2000):$green" \
    "theoretical 904.11 h on 28 Oct:$(x 300 365),$(y 904.11 2000):$orange" \
    "take-back marked on 20 Feb:$(x 50 365),$(calc "$(y 1100 2000) - 7"):$red"
else
  fail "burn-down of an allocation rendered"
fi

# 2. E's burn-down (no jobs): January's 31 days, top 100 = the grant.
#   used: flat on 0 h (y 350, drawn over the axis) from day 0 to day 31;
#   net: 100 h (y 40); theoretical 50 h in the middle
if svg burndown_empty "SELECT fairshare.burndown_svg(103, '2026-03-01 00:00')" && shot burndown_empty; then
  ok "burn-down of an allocation without jobs rendered"
  check burndown_empty blank \
    "used 0 h on 16 Jan:$(x 15 31),$(y 0 100):$blue" \
    "net 100 h on 16 Jan:$(x 15 31),$(y 100 100):$green" \
    "theoretical 50 h mid-period:$(x 15.5 31),$(y 50 100):$orange"
else
  fail "burn-down of an allocation without jobs rendered"
fi

# 3. proj_n's months, January and February, stacked by user: top 500 ≥ 380.
# Bars 0.7 × 285 px wide, from 112.75 (January) and 397.75 (February);
# their middles 112.75 + 99.75 = 212.5 and 497.5.  ann (the bigger user,
# blue) at the bottom, bob (orange) above:
#   January ann 0 – 100 h, middle 50 h; bob 100 – 120 h, middle 110 h
#   February ann 0 – 360 h, middle 180 h; bob 360 – 380 h, middle 370 h
#   nothing above 380 h (at 420 h)
if svg usage "SELECT fairshare.account_usage_svg('st', 'proj_n', '2026-01-01', '2026-03-01')" && shot usage; then
  ok "an account's usage per month rendered"
  check usage blank \
    "ann's January:212.5,$(y 50 500):$blue" \
    "bob's January:212.5,$(y 110 500):$orange" \
    "ann's February:497.5,$(y 180 500):$blue" \
    "bob's February:497.5,$(y 370 500):$orange" \
    "nothing above February:497.5,$(y 420 500):$white" \
    "nothing between the bars:355,$(y 50 500):$white"
else
  fail "an account's usage per month rendered"
fi

# 4. st's utilisation over one hour, 10 Feb 10:00–11:00: ann's 15 of 100
# cores, 15 %, top 100 %: one bar over the whole width up to y(15)
if svg hour "SELECT fairshare.cluster_utilisation_svg('st', '2026-02-10 10:00', '2026-02-10 11:00')" && shot hour; then
  ok "a cluster's utilisation over one hour rendered"
  check hour blank \
    "15 % all the hour:355,$(y 7.5 100):$blue" \
    "15 % at its start:75,$(y 14 100):$blue" \
    "nothing at 20 %:355,$(y 20 100):$white"
else
  fail "a cluster's utilisation over one hour rendered"
fi

# 5. st's utilisation per day in February (28 days, 2400 core-hours a day):
# 10 Feb (day 9) 360 h = 15 %; 11 Feb nothing.  Bar d from x(d) + 0.5 to
# x(d + 1) − 0.5: middles x(9.5) and x(10.5)
if svg days "SELECT fairshare.cluster_utilisation_svg('st', '2026-02-01', '2026-03-01')" && shot days; then
  ok "a cluster's utilisation per day rendered"
  check days blank \
    "10 Feb at 15 %:$(x 9.5 28),$(y 7.5 100):$blue" \
    "10 Feb not above:$(x 9.5 28),$(y 17 100):$white" \
    "11 Feb empty:$(x 10.5 28),$(y 7.5 100):$white"
else
  fail "a cluster's utilisation per day rendered"
fi

# 6. The demo centre's charts (the pictures of docs/statements.md): a GENCI
# allocation with take-backs, the account with the most users, the Slurm
# cluster's last 30 days (whole days of its time zone, so that no day is cut)
q -c 'DROP EXTENSION fairshare CASCADE' -c 'CREATE EXTENSION fairshare' >/dev/null \
  && q -f test/demo/centre.sql >/dev/null && q -f test/demo/report_genci.sql >/dev/null \
  || bail "load the demo centre"
demo_ok=1
svg burndown_demo "SELECT fairshare.burndown_svg(a.allocation_id, '2026-04-16 00:00+02')
                     FROM fairshare.allocations a WHERE a.cluster = 'ada' AND a.account = 'gen7002'" \
  && svg usage_demo "SELECT fairshare.account_usage_svg('proteus', 'biofisica',
                            (date_trunc('month', now()) - interval '5 months')::date, (date_trunc('month', now()) + interval '1 month')::date)" \
  && svg utilisation_demo "SELECT fairshare.cluster_utilisation_svg('cali', (date_trunc('day', now() AT TIME ZONE 'Europe/Paris') - interval '30 days') AT TIME ZONE 'Europe/Paris',
                                                            date_trunc('day', now() AT TIME ZONE 'Europe/Paris') AT TIME ZONE 'Europe/Paris')" \
  || demo_ok=0
for c in burndown_demo usage_demo utilisation_demo; do
  if [ $demo_ok = 1 ] && shot $c; then check $c blank; else fail "$c rendered"; fi
done
if [ -n "${FAIRSHARE_CHART_PNGS:-}" ]; then
  mkdir -p "$FAIRSHARE_CHART_PNGS"
  cp "$tmp/burndown_demo.png" "$FAIRSHARE_CHART_PNGS/burndown.png"
  cp "$tmp/usage_demo.png" "$FAIRSHARE_CHART_PNGS/account_usage.png"
  cp "$tmp/utilisation_demo.png" "$FAIRSHARE_CHART_PNGS/cluster_utilisation.png"
  echo "# the demo's charts are in $FAIRSHARE_CHART_PNGS"
fi
echo "1..$n"
