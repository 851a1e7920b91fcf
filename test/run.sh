#!/usr/bin/env bash
# The README's two commands, on a fresh Debian bookworm machine (root, or a
# user with sudo):
#   bash test/run.sh demo   install what is missing, build, install, start a
#                           throwaway PostgreSQL, load the demo centre, print its reports
#   bash test/run.sh test   the same set-up, then every pg_regress, isolation
#                           and pgTAP suite against a throwaway cluster
#   bash test/run.sh bench  the same set-up, then the benchmarks (test/bench/)
#   bash test/run.sh checks the same set-up, then the deeper checks CI also runs:
#                           the suites against an ASan + UBSan build (test/sanitize.sh),
#                           a short libFuzzer run of every C parser (test/fuzz/),
#                           a short SQLsmith run (test/sqlsmith.sh)
#   bash test/run.sh citus  the same set-up, then Citus built from CITUS_SRC unless
#                           installed, a coordinator and two workers started, and
#                           every report compared with a single server's
#                           (test/citus/run.sh; CI runs it: .ci/run)
#   bash test/run.sh slurm-22.05  the same set-up, then only the live feed and
#                           the decisions against a real Slurm 22.05 on this machine
#                           (test/slurm/feed.sh, which `test` runs as root too;
#                           root; CI runs it as a stage of its own: .ci/run)
#   bash test/run.sh slurm-24.11  the same set-up, then the live feed and the
#                           decisions against a real Slurm 24.11 (test/slurm/feed.sh
#                           with SLURM_VERSION=24.11, in the Debian trixie root of
#                           test/slurm/trixie.sh, made by debootstrap the first time;
#                           root; CI runs it: .ci/run)
#   bash test/run.sh bench-slurm  the same set-up, then sprio_at and sshare_at timed
#                           against a real slurmctld on the same data (test/bench/slurm.sh;
#                           root; starts Slurm, MariaDB and munge; not in CI)
#   bash test/run.sh matrix every suite, then the Debian packages, on each
#                           supported major in a fresh Debian root of its own
#                           (test/matrix.sh; needs root)
# The PostgreSQL major is $PGV if set, else the newest server installed, else
# the one this Debian release packages (15 on bookworm, 17 on trixie, 18 on sid).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-test}
case "$mode" in demo|test|bench|bench-slurm|checks|matrix|citus|slurm-22.05|slurm-24.11) ;; *) echo "usage: $0 demo|test|bench|bench-slurm|checks|matrix|citus|slurm-22.05|slurm-24.11" >&2; exit 2 ;; esac
shift || true
if [ "$mode" = matrix ]; then exec bash test/matrix.sh "$@"; fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
updated=""
if [ -z "${PGV:-}" ]; then
  PGV=$(ls -d /usr/lib/postgresql/*/bin/postgres 2>/dev/null |
        sed -n 's|^/usr/lib/postgresql/\([0-9][0-9]*\)/bin/postgres$|\1|p' | sort -n | tail -1 || true)
fi
if [ -z "$PGV" ]; then
  # no server yet: the major the release's "postgresql" package depends on
  $SUDO apt-get update -q; updated=1
  PGV=$(apt-cache depends postgresql 2>/dev/null | sed -n 's/^ *Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -1 || true)
  [ -n "$PGV" ] || { echo "no PostgreSQL server installed or installable; set PGV" >&2; exit 1; }
fi
echo "== PostgreSQL $PGV"
export PG_CONFIG=/usr/lib/postgresql/$PGV/bin/pg_config

# The loop with a real Slurm (test/slurm/feed.sh: Slurm, MariaDB, munge and
# mysql_fdw on this machine) runs with the tests as root (it installs and
# starts daemons); FAIRSHARE_SLURM=0 leaves it out, and the summary says so.
if [ "$mode" = test ] && [ -z "${FAIRSHARE_SLURM:-}" ] && [ "$(id -u)" -eq 0 ]; then
  FAIRSHARE_SLURM=1
fi
export FAIRSHARE_SLURM=${FAIRSHARE_SLURM:-0}

# 1. packages: the server, its headers, a compiler, pgTAP and pg_prove
pkgs="postgresql-$PGV postgresql-server-dev-$PGV postgresql-common make gcc"
case "$mode" in
  # pg_cron: test/cron.sh starts a server with it to see scheduled runs happen;
  # chromium, a font and python3: test/charts.sh renders the charts and reads the pixels;
  # a JDK, pgjdbc, psqlODBC and unixODBC: test/bi_drivers.sh reads the reports as BI tools do
  # bc: test/bench_check.sh runs the benchmark driver, whose scripts compute with it;
  # checks runs the same suites (test/sanitize.sh), with clang and SQLsmith besides
  test|checks)
        pkgs="$pkgs postgresql-$PGV-pgtap libtap-parser-sourcehandler-pgtap-perl postgresql-$PGV-cron chromium fonts-dejavu-core python3"
        pkgs="$pkgs default-jdk-headless libpostgresql-jdbc-java odbc-postgresql unixodbc unixodbc-dev bc"
        if [ "$mode" = checks ]; then pkgs="$pkgs clang-14 libclang-rt-14-dev sqlsmith"; fi ;;
  bench) pkgs="$pkgs bc" ;;
  # the feed reads the root's MariaDB through mysql_fdw and a socat bridge,
  # and the mysql client; trixie.sh makes the root with debootstrap and
  # runs it in a network namespace of its own (ip, iproute2)
  slurm-24.11) pkgs="$pkgs postgresql-$PGV-mysql-fdw socat mariadb-client debootstrap iproute2" ;;
  slurm-22.05) pkgs="$pkgs postgresql-$PGV-mysql-fdw" ;;
esac
# (test/slurm/cluster.sh installs Slurm, MariaDB and munge itself)
if [ "$mode" = test ] && [ "$FAIRSHARE_SLURM" = 1 ]; then pkgs="$pkgs postgresql-$PGV-mysql-fdw"; fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  [ -n "$updated" ] || $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi

# 2. build (warnings are errors) and install
echo "== building"
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" COPT=-Werror
$SUDO make -s install PG_CONFIG="$PG_CONFIG"

# 3. a throwaway cluster around the chosen work
unset PGHOST PGPORT PGUSER PGDATABASE PGSERVICE PGPASSWORD
if [ "$mode" = checks ]; then
  echo "== the suites against an ASan + UBSan build"
  bash test/sanitize.sh
  echo "== libFuzzer, ${FUZZ_SECONDS:=10} s per parser"
  FUZZ_SECONDS=$FUZZ_SECONDS bash test/fuzz/run.sh
  echo "== SQLsmith, ${SQLSMITH_QUERIES:=300} queries"
  SQLSMITH_QUERIES=$SQLSMITH_QUERIES bash test/sqlsmith.sh
  exit 0
fi
if [ "$mode" = citus ]; then
  exec bash test/citus/run.sh "$@"
fi
if [ "$mode" = bench-slurm ]; then
  exec bash test/bench/slurm.sh "$@"
fi
exec bash test/cluster.sh "$mode" "$@"
