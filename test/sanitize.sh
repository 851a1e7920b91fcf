#!/usr/bin/env bash
# `make sanitize`: builds fairshare with AddressSanitizer and
# UndefinedBehaviorSanitizer (gcc; every report fatal), installs it into a
# private copy of PostgreSQL, starts that server with the ASan runtime
# preloaded, and runs the suites that drive the server's code against it
# (test/cluster.sh test with FAIRSHARE_SUITES=server: pg_regress, isolation,
# pgTAP, the Slurm comparisons, dump/restore, upgrade, retention, the kill -9
# tests; not those that drive a client over the same reports, such as
# bi_drivers.sh; FAIRSHARE_SUITES=all runs them too).  Fails on any
# sanitizer report, any backend that died, or any failing suite.
#
# - Every palloc of the extension's code is its own malloc of exactly the
#   size asked for (test/sanitize/chunk_context.c), so ASan sees the chunk's
#   bounds, not only those of the 8 kB block palloc would carve it from.
#   SANITIZE_CHUNKS=0 leaves palloc as it is.
# - Before the suites, planted bugs (test/sanitize/canary.c: a one-byte heap
#   overrun, a signed overflow) must each be reported by the server, so a run
#   whose sanitizers are not working fails instead of passing.
#
# Needs what `test/run.sh checks` installs.  Runs as root (the server then
# runs as postgres) or as a user.  SANITIZE_KEEP=1 keeps the work directory.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
src=$PWD
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
CC=$($PG_CONFIG --cc)
major=$($PG_CONFIG --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
chunks=${SANITIZE_CHUNKS:-1}
work=$(mktemp -d /tmp/fairshare-sanitize.XXXXXX)
chmod 755 "$work"
run_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  [ -f "$work/data/postmaster.pid" ] && run_as "$pgbin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1
  if [ "${keep_logs:-}" = 1 ]; then
    rm -rf /tmp/fairshare-sanitize-logs && cp -r "$work/logs" /tmp/fairshare-sanitize-logs
    echo "logs kept in /tmp/fairshare-sanitize-logs"
  fi
  if [ "${SANITIZE_KEEP:-}" = 1 ]; then echo "work directory kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
t0=$(date +%s)
say() { echo "== sanitize, $(( $(date +%s) - t0 )) s: $*"; }

# 1. a private PostgreSQL tree (binaries find share/ and lib/ relative to themselves)
mkdir -p "$work/root/usr/lib/postgresql" "$work/root/usr/share/postgresql"
cp -a "/usr/lib/postgresql/$major" "$work/root/usr/lib/postgresql/"
cp -a "/usr/share/postgresql/$major" "$work/root/usr/share/postgresql/"
pgbin=$work/root/usr/lib/postgresql/$major/bin

# 2. the flags.  UBSan: undefined behaviour, float-to-integer overflow, array
#    indexes out of bounds (flexible array members too); -fno-wrapv (after
#    PGXS's -fwrapv) so that a signed overflow in our code is reported, not
#    defined as wrapping (the code uses pg_*_overflow where one can happen).
#    -fsanitize at link time makes fairshare.so need libasan and libubsan.
san="-fsanitize=address,undefined,float-cast-overflow,bounds-strict -fno-sanitize-recover=all"
san="$san -fno-wrapv -fno-omit-frame-pointer"
mkdir -p "$work/build"
cp -a Makefile fairshare.control extension tools "$work/build/"
if [ "$chunks" = 1 ]; then
  cp test/sanitize/chunk_context.c test/sanitize/chunk_context.h "$work/build/extension/"
  san="$san -include $work/build/extension/chunk_context.h"
fi

# 3. build from a copy of the sources (the work tree's own build is left
#    alone; its objects, copied along, are cleaned first) and install into
#    the private tree.  Every object must call ASan's checks.
make -s -C "$work/build" clean PG_CONFIG="$PG_CONFIG" >/dev/null
make -s -C "$work/build" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" with_llvm=no COPT="-Werror $san" >/dev/null || exit 1
make -s -C "$work/build" install PG_CONFIG="$PG_CONFIG" with_llvm=no DESTDIR="$work/root" >/dev/null || exit 1
for o in "$work"/build/extension/*.o; do
  # (grep reads all of nm's output: grep -q would stop at the first match and,
  # under pipefail, nm's SIGPIPE on a large object would read as a failure)
  nm -u "$o" | grep -F __asan_init >/dev/null || { echo "not ok - ${o##*/} is not instrumented by ASan"; exit 1; }
done
so=$work/root$($PG_CONFIG --pkglibdir)/fairshare.so
readelf -d "$so" | grep 'NEEDED.*libasan' >/dev/null || { echo "not ok - $so does not load libasan"; exit 1; }
say "built fairshare.so ($(ls "$work"/build/extension/*.o | wc -l) objects) with $san"

# 4. the runtime to preload, first in the library list as ASan demands: the
#    libasan of this compiler, and the fix that lets PostgreSQL start under it
#    (test/sanitize/swift_demangle.c says why).
libasan=$(readlink -f "$($CC -print-file-name=libasan.so)")
[ -f "$libasan" ] || { echo "not ok - no libasan for $CC"; exit 1; }
$CC -shared -fPIC -O2 -o "$work/swift_demangle.so" test/sanitize/swift_demangle.c || exit 1
# ASan: detect_leaks=0, a process exits without freeing its memory contexts,
# by design; detect_stack_use_after_return=1, our functions' locals live in
# frames that stay poisoned after the return (off by default);
# quarantine_size_mb=64, freed memory stays poisoned (use after free) for the
# last 64 MB freed per process, not 256; log_path, one file per process that
# reports.  UBSan is gcc's separate runtime (libubsan, which
# fairshare.so needs): next to libasan it ignores log_path and reports on
# stderr, which is the server's log.
asan_opts="detect_leaks=0:detect_stack_use_after_return=1:quarantine_size_mb=64:halt_on_error=1:log_path=$work/logs/report"
ubsan_opts="print_stacktrace=1:halt_on_error=1"
server_env=(env "LD_PRELOAD=$libasan $work/swift_demangle.so" "ASAN_OPTIONS=$asan_opts" "UBSAN_OPTIONS=$ubsan_opts")

# 5. the canaries, each in a single-user backend of the private server: the
#    report must come with the planted line in its stack.  Without the chunk
#    context only a chunk past palloc's 8 kB limit has a block of its own.
mkdir -p "$work/data" "$work/logs"
[ "$(id -u)" -eq 0 ] && chown -R postgres "$work/data" "$work/logs"
run_as "$pgbin/initdb" -D "$work/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null || exit 1
cflags=$($PG_CONFIG --cflags)
# shellcheck disable=SC2086,SC2046
$CC $cflags $san -fPIC -shared -I"$($PG_CONFIG --includedir-server)" -o "$work/canary.so" \
  test/sanitize/canary.c $([ "$chunks" = 1 ] && echo "$work/build/extension/chunk_context.c") || exit 1
heap_n=$([ "$chunks" = 1 ] && echo 16 || echo 16384)
for c in "canary_heap:$heap_n:heap-buffer-overflow" "canary_ub:2147483647:signed integer overflow"; do
  fn=${c%%:*}; rest=${c#*:}; arg=${rest%%:*}; expect=${rest#*:}
  echo "CREATE FUNCTION $fn(int) RETURNS int AS '$work/canary.so' LANGUAGE C STRICT; SELECT $fn($arg);" |
    run_as "${server_env[@]}" "$pgbin/postgres" --single -D "$work/data" postgres >"$work/logs/$fn.out" 2>&1
  said=$(cat "$work"/logs/report.* "$work/logs/$fn.out" 2>/dev/null)
  if ! grep -q "$expect" <<<"$said" || ! grep -q "in $fn .*canary.c" <<<"$said"; then
    echo "$said"
    echo "not ok - the server did not report the $expect planted in $fn($arg): the sanitizers are not working"
    exit 1
  fi
  rm -f "$work"/logs/report.* "$work/logs/$fn.out"
done
say "the planted bugs are reported: heap-buffer-overflow (palloc($heap_n), one byte past), signed integer overflow"

# 6. the server, with the runtime preloaded
port=$((40000 + RANDOM % 10000))
run_as "${server_env[@]}" "$pgbin/pg_ctl" -D "$work/data" -l "$work/logs/server.log" -w \
  -o "-p $port -k /tmp -c max_worker_processes=8 -c max_parallel_workers=4" start >/dev/null ||
  { cat "$work/logs/server.log"; exit 1; }
grep -q libasan "/proc/$(head -1 "$work/data/postmaster.pid")/maps" ||
  { echo "not ok - the server runs without the ASan runtime"; exit 1; }
say "server up with $libasan preloaded"

# 7. every suite against it
export PGHOST=/tmp PGPORT=$port PGUSER=postgres PGDATABASE=postgres
# (backends a test kills on purpose, test/kill_checkpoint.sh, are listed
# here and are not crashes)
export FAIRSHARE_KILLED_PIDS=$work/logs/killed_pids
: > "$FAIRSHARE_KILLED_PIDS"
FAIRSHARE_SUITES=${FAIRSHARE_SUITES:-server} FAIRSHARE_IN_CLUSTER=here bash "$src/test/cluster.sh" test
status=$?
run_as "$pgbin/pg_ctl" -D "$work/data" -m fast -w stop >/dev/null

# 8. any report, or a process that died, fails the run.  Dead processes are
#    looked for before the shutdown request (the logical replication launcher
#    "exits with exit code 1" at every shutdown), reports in the whole log.
reports=$(cat "$work"/logs/report.* 2>/dev/null)
crashes=$( { sed '/received fast shutdown request/q' "$work/logs/server.log" |
               grep -E 'terminated by signal|exited with exit code' |
               grep -v -F -f <(sed 's/.*/(PID &) was terminated by signal 9: Killed/' "$FAIRSHARE_KILLED_PIDS");
             grep -E 'ERROR: AddressSanitizer|runtime error:' "$work/logs/server.log"; } | sort -u)
if [ -n "$reports" ] || [ -n "$crashes" ]; then
  echo "$reports"; echo "$crashes"
  keep_logs=1
  echo "not ok - sanitizer reports or crashed backends (above)"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  keep_logs=1
  echo "not ok - the suites failed under the sanitizer build (above)"
  exit "$status"
fi
say "done"
echo "ok - no AddressSanitizer or UndefinedBehaviorSanitizer report, no crashed backend"
