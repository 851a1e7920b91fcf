#!/usr/bin/env bash
# Runs the tests, the demo, the benchmarks or the live feed against Slurm
# 24.11 (slurm-24.11) inside a throwaway PostgreSQL
# made by pg_virtualenv (postgresql-common): a temporary cluster on a free
# port, removed on exit, usable as root or as any user.  Expects the
# extension to be built and installed already (test/run.sh does both).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
mode=${1:-test}
# A UTF-8 cluster and client whatever the machine's locale: expected outputs
# hold UTF-8 text (×, é) whose column widths psql computes per character.
export LANG=C.UTF-8 LC_ALL=C.UTF-8
PGV=$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')

# Count what the runners printed and end with one line "N passed, M failed".
summarize() {
  local log=$1 status=$2 r_ok r_bad tap_ok tap_bad
  r_ok=$(grep -cE '^(test |     )[A-Za-z0-9_]+ +\.\.\. ok' "$log" || true)
  r_bad=$(grep -cE '\.\.\. FAILED' "$log" || true)
  tap_ok=$(grep -cE '^ok [0-9]+' "$log" || true)
  tap_bad=$(grep -cE '^not ok [0-9]+' "$log" || true)
  if [ "$status" -ne 0 ] && [ $((r_bad + tap_bad)) -eq 0 ]; then r_bad=1; fi
  echo
  echo "$((r_ok + tap_ok)) passed, $((r_bad + tap_bad)) failed"
}

# tap SCRIPT [ARGS]: runs a TAP script, its output shown; a "not ok" or a
# non-zero exit makes the run's status 1
tap() {
  local out rc
  out=$(mktemp)
  bash "$@" 2>&1 | tee "$out" >&2
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ] || grep -q '^not ok' "$out"; then status=1; fi
  rm -f "$out"
}

# live_feed LABEL: the live feed and the decisions (test/slurm/feed.sh, with
# SLURM_VERSION as set) unless $missing names what it needs: then with CI
# set one failure, elsewhere said and not run (docs/development.md#tests)
live_feed() {
  local label=$1 t0
  if [ -n "$missing" ]; then
    if [ -n "${CI:-}" ]; then
      echo "not ok 1 - $label cannot run, it needs: $missing"
      exit 1
    fi
    echo "# $label skipped (not in CI), it needs: $missing"
    exit 0
  fi
  echo "== $label"
  t0=$SECONDS
  tap test/slurm/feed.sh
  echo "# $label: $((SECONDS - t0)) s"
  exit "$status"
}

# FAIRSHARE_IN_CLUSTER=here: the suites against the server the PG* variables name
if [ "${FAIRSHARE_IN_CLUSTER:-}" = here ]; then
  log=$(mktemp)
  FAIRSHARE_IN_CLUSTER=1 bash "$0" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  case "$mode" in test|slurm-22.05|slurm-24.11) summarize "$log" "$status" ;; esac
  rm -f "$log"
  exit "$status"
fi

if [ -z "${FAIRSHARE_IN_CLUSTER:-}" ]; then
  # re-enter this script inside the throwaway cluster
  export FAIRSHARE_IN_CLUSTER=1
  case "$mode" in test|slurm-22.05|slurm-24.11) ;; *)
    exec pg_virtualenv -t -v "$PGV" -o max_worker_processes=8 -o max_parallel_workers=4 bash "$0" "$@" ;;
  esac
  # pg_virtualenv prints "Dropping cluster" last: summarize after it
  log=$(mktemp)
  pg_virtualenv -t -v "$PGV" -o max_worker_processes=8 -o max_parallel_workers=4 \
    bash "$0" "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  summarize "$log" "$status"
  rm -f "$log"
  exit "$status"
fi

case "$mode" in
test)
  status=0
  make -s installcheck PG_CONFIG="${PG_CONFIG:-pg_config}" 2>&1 || status=1
  if [ -f regression.diffs ]; then cat regression.diffs; fi
  if [ -f output_iso/regression.diffs ]; then cat output_iso/regression.diffs; fi
  # the demo centre, loaded once into a template database beside the
  # suites below (after installcheck: its CREATE EXTENSION finds the group
  # roles made), which dump_restore.sh, retention.sh and bi_drivers.sh copy
  # once it is ready (test/demo_db.sh, docs/development.md#tests)
  demo_dir=$(mktemp -d)
  dropdb --if-exists fs_demo_template 2>/dev/null
  ( if env -u FAIRSHARE_DEMO_TEMPLATE -u FAIRSHARE_DEMO_TEMPLATE_DIR bash test/demo_db.sh fs_demo_template \
         > "$demo_dir/log" 2>&1
    then touch "$demo_dir/ready"; else touch "$demo_dir/failed"; fi ) &
  demo_pid=$!
  export FAIRSHARE_DEMO_TEMPLATE=fs_demo_template FAIRSHARE_DEMO_TEMPLATE_DIR=$demo_dir
  make -s prove_installcheck 2>&1 || status=1
  # beside the suites below, in the background: bi_drivers.sh, the longest
  # suite (about 4 minutes, one backend busy at a time), then
  # bench_check.sh, each on a database (and bi_drivers.sh a role) of its
  # own; their output is printed after the suites below, before the live
  # feed and the kill -9 tests (docs/development.md#tests)
  bg_pid="" bg=""
  if [ "${FAIRSHARE_SUITES:-all}" = all ]; then
    bg=$(mktemp -d)
    {
      bash test/bi_drivers.sh > "$bg/bi_drivers" 2>&1; echo $? > "$bg/bi_drivers.rc"
      bash test/bench_check.sh > "$bg/bench_check" 2>&1; echo $? > "$bg/bench_check.rc"
    } &
    bg_pid=$!
  fi
  # the six suites that compare with real Slurm, against Slurm 24.11's
  # captures and their own expected outputs (docs/slurm.md#slurm-2411); a
  # database of its own, after the pgTAP suites have used contrib_regression
  echo "== test/slurm/compare.sh 24.11"
  bash test/slurm/compare.sh 24.11 2>&1 || status=1
  echo "== test/dump_restore.sh"
  tap test/dump_restore.sh
  echo "== test/upgrade.sh"
  tap test/upgrade.sh
  echo "== test/retention.sh"
  tap test/retention.sh
  echo "== test/apply_decisions.sh"
  tap test/apply_decisions.sh
  # FAIRSHARE_SUITES=server (test/sanitize.sh): only the suites that drive
  # the server's code; the four below and the two started above drive a
  # client (pg_cron, Chromium, the JDBC and ODBC drivers, the benchmark
  # driver) or read files, over the reports the suites above already run
  # (docs/development.md#tests)
  if [ "${FAIRSHARE_SUITES:-all}" = all ]; then
    # a server of its own, started with pg_cron
    echo "== test/cron.sh"
    tap test/cron.sh
    # the charts in headless Chromium (needs chromium and python3)
    echo "== test/charts.sh"
    tap test/charts.sh
    echo "== test/meta.sh"
    tap test/meta.sh
    echo "== test/docs_check.sh"
    tap test/docs_check.sh
    # started above: every view and report through pgjdbc and psqlODBC, as
    # a reader (needs the JDK and the drivers test/run.sh installs); the
    # benchmark driver at its smallest scale, in any order, with a failure
    wait "$bg_pid"
    for t in bi_drivers bench_check; do
      echo "== test/$t.sh (run beside the suites from compare.sh on)"
      cat "$bg/$t" >&2
      if [ "$(cat "$bg/$t.rc" 2>/dev/null)" != 0 ] || grep -q '^not ok' "$bg/$t"; then status=1; fi
    done
    rm -rf "$bg"
  else
    echo "# FAIRSHARE_SUITES=${FAIRSHARE_SUITES}: cron.sh, charts.sh, meta.sh, bench_check.sh, docs_check.sh and bi_drivers.sh not run here"
  fi
  # the demo's template: its load failed (the suites then loaded the demo
  # themselves) is a failure; dropped once every copy is made
  wait "$demo_pid"
  if [ ! -e "$demo_dir/ready" ]; then
    echo "not ok 1 - the demo centre's template (test/demo_db.sh fs_demo_template)"
    sed 's/^/# /' "$demo_dir/log"
    status=1
  fi
  dropdb --if-exists fs_demo_template 2>/dev/null
  rm -rf "$demo_dir"
  unset FAIRSHARE_DEMO_TEMPLATE FAIRSHARE_DEMO_TEMPLATE_DIR
  # a real Slurm 22.05, MariaDB and mysql_fdw (root; test/run.sh sets
  # FAIRSHARE_SLURM=1 as root); it kills one backend with kill -9 too
  if [ "${FAIRSHARE_SLURM:-0}" = 1 ]; then
    echo "== test/slurm/feed.sh"
    tap test/slurm/feed.sh
  else
    echo "# test/slurm/feed.sh not run: it needs root (bash test/run.sh test as root runs it)"
  fi
  echo "# the same against a real Slurm 24.11 is not part of this command: bash test/run.sh slurm-24.11 (root; CI runs it)"
  # last: a kill -9 restarts every backend of the cluster
  echo "== test/kill_checkpoint.sh"
  tap test/kill_checkpoint.sh
  echo "== test/kill_partitions.sh"
  tap test/kill_partitions.sh
  exit "$status"
  ;;
slurm-22.05)
  # the live feed and the decisions against a real Slurm 22.05 on this
  # machine (test/slurm/feed.sh; it installs and starts Slurm, MariaDB and
  # munge), the loop `bash test/run.sh test` runs as root, alone: CI's
  # stage for it (docs/development.md#tests).  In CI what is missing is a
  # failure; elsewhere it is said, and the test is not run.
  status=0
  missing=""
  [ "$(id -u)" = 0 ] || missing="root (it installs and starts Slurm and MariaDB)"
  [ -f "$("${PG_CONFIG:-pg_config}" --pkglibdir)/mysql_fdw.so" ] || missing="$missing${missing:+, }mysql_fdw"
  live_feed test/slurm/feed.sh
  ;;
slurm-24.11)
  # the live feed and the decisions against a real Slurm 24.11
  # (docs/slurm.md#slurm-2411): its daemons in the Debian trixie root of
  # test/slurm/trixie.sh, made with debootstrap the first time (the network
  # needed then), this cluster's server on the host.  In CI
  # (docs/development.md#tests) what is missing is a failure; elsewhere it
  # is said, and the test is not run.
  status=0
  missing=""
  [ "$(id -u)" = 0 ] || missing="root (it starts Slurm and MariaDB in a chroot)"
  if [ -z "$missing" ]; then
    for c in socat mysql debootstrap ip; do
      command -v "$c" > /dev/null || missing="$missing${missing:+, }the command $c"
    done
    [ -f "$("${PG_CONFIG:-pg_config}" --pkglibdir)/mysql_fdw.so" ] || missing="$missing${missing:+, }mysql_fdw"
  fi
  if [ -z "$missing" ]; then
    # the root first, on its own: its making is timed apart from the test,
    # and without a network it is what cannot be done
    echo "== test/slurm/trixie.sh root"
    t0=$SECONDS
    if bash test/slurm/trixie.sh root 2>&1; then
      echo "# the trixie root ready in $((SECONDS - t0)) s"
    else
      missing="the Debian trixie root of test/slurm/trixie.sh, made and started (its error above; debootstrap and apt-get need the network the first time, their logs: ${FS_TRIXIE_DIR:-/var/tmp/fairshare-slurm-24.11}/*.log)"
    fi
    bash test/slurm/trixie.sh stop > /dev/null 2>&1
  fi
  export SLURM_VERSION=24.11
  live_feed "SLURM_VERSION=24.11 test/slurm/feed.sh"
  ;;
demo)
  psql -X -q -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION fairshare' || exit 1
  psql -X -q -v ON_ERROR_STOP=1 -f test/demo/centre.sql || exit 1
  # each policy area adds its data and prints its reports
  # in the order of the policy list, then any other
  order="usage sshare sprio genci rwth metacentrum import"
  files=""
  for a in $order; do [ -f "test/demo/report_$a.sql" ] && files="$files test/demo/report_$a.sql"; done
  for f in test/demo/report_*.sql; do
    case " $files " in *" $f "*) ;; *) files="$files $f" ;; esac
  done
  for f in $files; do
    psql -X -q -v ON_ERROR_STOP=1 -f "$f" || exit 1
  done
  ;;
bench)
  bash test/bench/run.sh
  ;;
*)
  echo "usage: $0 test|demo|bench|slurm-22.05|slurm-24.11" >&2; exit 2 ;;
esac
