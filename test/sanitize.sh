#!/usr/bin/env bash
# Builds fairshare with UndefinedBehaviorSanitizer (undefined behaviour,
# float-to-integer overflow, out-of-bounds array indexes) trapping on the
# first report, installs it into a private copy of PostgreSQL, runs every
# suite against a server loading that build, and fails on any report or
# any backend that died of a signal.
#
# AddressSanitizer is not used: PostgreSQL's own binary deadlocks at start
# with libasan preloaded (gcc 12, bookworm), and our memory comes from
# palloc, whose chunks ASan does not see anyway; memory errors are PG's
# Valgrind territory (see README, "Sanitizers").  `make sanitize`; needs what test/run.sh
# installs.  Runs as root (the server then runs as postgres) or as a user.
set -uo pipefail
cd "$(dirname "$0")/.."
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$($PG_CONFIG --bindir)
major=$($PG_CONFIG --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
work=$(mktemp -d /tmp/fairshare-sanitize.XXXXXX)
chmod 755 "$work"
run_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  [ -f "$work/data/postmaster.pid" ] && run_as "$pgbin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1
  if [ "${keep_logs:-}" = 1 ]; then
    rm -rf /tmp/fairshare-sanitize-logs && cp -r "$work/logs" /tmp/fairshare-sanitize-logs
    echo "logs kept in /tmp/fairshare-sanitize-logs"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# 1. a private PostgreSQL tree (binaries find share/ and lib/ relative to themselves)
mkdir -p "$work/root/usr/lib/postgresql" "$work/root/usr/share/postgresql"
cp -a "/usr/lib/postgresql/$major" "$work/root/usr/lib/postgresql/"
cp -a "/usr/share/postgresql/$major" "$work/root/usr/share/postgresql/"
pgbin=$work/root/usr/lib/postgresql/$major/bin

# 2. build with the sanitizers into it (a separate build: clean first and after)
make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
san="-fsanitize=undefined,float-cast-overflow,bounds-strict -fno-sanitize-recover=all -fno-omit-frame-pointer"
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" with_llvm=no COPT="-Werror $san" >/dev/null || exit 1
make -s install PG_CONFIG="$PG_CONFIG" with_llvm=no DESTDIR="$work/root" >/dev/null || exit 1
make -s clean PG_CONFIG="$PG_CONFIG" >/dev/null

# 3. a server with the runtime preloaded; reports go to files we check
mkdir -p "$work/data" "$work/logs"
[ "$(id -u)" -eq 0 ] && chown -R postgres "$work/data" "$work/logs"
run_as "$pgbin/initdb" -D "$work/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null || exit 1
port=$((40000 + RANDOM % 10000))
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$work/logs/ubsan"
run_as env UBSAN_OPTIONS="$UBSAN_OPTIONS" "$pgbin/pg_ctl" -D "$work/data" -l "$work/logs/server.log" -w \
  -o "-p $port -k /tmp -c max_worker_processes=8 -c max_parallel_workers=4" start >/dev/null || { cat "$work/logs/server.log"; exit 1; }

# 4. every suite against it
export PGHOST=/tmp PGPORT=$port PGUSER=postgres PGDATABASE=postgres
unset UBSAN_OPTIONS
FAIRSHARE_IN_CLUSTER=here bash test/cluster.sh test
status=$?

# 5. any report, or a backend killed by a signal, fails the run
reports=$(cat "$work"/logs/ubsan* 2>/dev/null)
crashes=$(grep -E 'terminated by signal|exited with exit code' "$work/logs/server.log")
if [ -n "$reports" ] || [ -n "$crashes" ]; then
  echo "$reports"; echo "$crashes"
  keep_logs=1
  echo "not ok - UBSan reports or crashed backends (above)"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  keep_logs=1
  echo "not ok - the suites failed under the sanitizer build (above)"
  exit "$status"
fi
echo "ok - no UndefinedBehaviorSanitizer report, no crashed backend"
