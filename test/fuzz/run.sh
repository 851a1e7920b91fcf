#!/usr/bin/env bash
# Builds every libFuzzer harness test/fuzz/fuzz_AREA[_what].c against the real
# extension/AREA.c (plus extension/fairshare.c and the backend shim
# test/fuzz/shim.c) with clang's fuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, then runs each for FUZZ_SECONDS (default 60)
# starting from its seed corpus test/fuzz/corpus/NAME/ (never written to:
# new inputs go to a scratch folder).  Fails on the first crash, sanitizer
# report, leak, timeout or broken invariant, leaving the input that caused it
# in test/fuzz/build/ (crash-*, leak-*, timeout-*).
#
#   make fuzz                        every harness, 60 s each
#   make fuzz FUZZ_SECONDS=10        the short run for CI
#   bash test/fuzz/run.sh billing    only fuzz_billing
#   bash test/fuzz/run.sh billing test/fuzz/build/crash-123   replay one input
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
seconds=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang-14}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
build=test/fuzz/build
mkdir -p "$build"

command -v "$CLANG" >/dev/null || { echo "$CLANG is not installed (apt-get install clang-14)" >&2; exit 2; }
case $seconds in ''|*[!0-9]*) echo "FUZZ_SECONDS must be a number of seconds" >&2; exit 2 ;; esac

cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
        -Wall -Werror=implicit-function-declaration -Werror=int-conversion -Wno-ignored-attributes -Wno-unused-function -Wno-unused-parameter -Wno-missing-field-initializers
        -I$($PG_CONFIG --includedir-server) -Iextension -Itest/fuzz"
# libpgcommon: the encoding verifiers the parsers check each line with
libs="$($PG_CONFIG --pkglibdir)/libpgcommon.a $($PG_CONFIG --pkglibdir)/libpgport.a -lm"

# harness name -> the extension files it is built against: extension/AREA.c
# for fuzz_AREA[_what].c, or the files its "fuzz-sources:" comment names
source_of() {
  local listed
  listed=$(sed -n 's|^/\* fuzz-sources: \(.*\) \*/$|\1|p' "test/fuzz/fuzz_$1.c")
  if [ -n "$listed" ]; then echo "$listed"; else echo "extension/${1%%_*}.c"; fi
}

names=()
if [ $# -gt 0 ]; then
  names=("$1"); shift
else
  for f in test/fuzz/fuzz_*.c; do n=${f#test/fuzz/fuzz_}; names+=("${n%.c}"); done
fi

status=0
for name in "${names[@]}"; do
  src=$(source_of "$name")
  missing=; for f in $src; do [ -f "$f" ] || missing="$missing $f"; done
  if [ -n "$missing" ]; then echo "== fuzz_$name:$missing not there (yet), skipped"; continue; fi
  bin=$build/fuzz_$name
  # shellcheck disable=SC2086
  $CLANG $cflags -o "$bin" "test/fuzz/fuzz_$name.c" test/fuzz/shim.c $src extension/fairshare.c $libs \
    || { echo "not ok - fuzz_$name does not build"; status=1; continue; }
  corpus=test/fuzz/corpus/$name
  dict=; [ -f "test/fuzz/$name.dict" ] && dict=-dict=test/fuzz/$name.dict
  if [ $# -gt 0 ]; then				# replay the given inputs
    "$bin" $dict "$@" || status=1
    continue
  fi
  scratch=$(mktemp -d)
  echo "== fuzz_$name: $seconds s from $(ls "$corpus" 2>/dev/null | wc -l) seed inputs ($src)"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin" $dict -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
      -print_final_stats=1 -artifact_prefix="$build/" "$scratch" "$corpus" >"$build/$name.log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$name.log")
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$build/$name.log" | tail -n 1)
  rm -rf "$scratch"
  if [ "$rc" -ne 0 ]; then
    grep -E 'ERROR|SUMMARY|raised|returned|Test unit written|runtime error' "$build/$name.log" | head -n 20
    echo "not ok - fuzz_$name failed (exit $rc); full log $build/$name.log"
    status=1
  else
    echo "ok - fuzz_$name: ${execs:-?} inputs in $seconds s, no crash ($cov)"
  fi
done
exit "$status"
