#!/usr/bin/env bash
# Lint, run first by CI (.ci/run): shellcheck on every shell script of the
# repository (the *.sh files and whatever else starts with a sh or bash
# shebang), at its default "warning" level and above, following sourced
# files.  Installs shellcheck when missing (Debian's package).  Prints TAP;
# exits non-zero on any finding.  pgspot (a linter of extension scripts) is
# not run: it is published on PyPI only, which this project's machines do not
# reach (CONTRIBUTING.md#lint).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v shellcheck >/dev/null; then
  $SUDO apt-get update -q >/dev/null && \
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends shellcheck >/dev/null
fi
command -v shellcheck >/dev/null || { echo "not ok 1 - shellcheck is not installed and could not be"; exit 1; }
mapfile -t files < <( { git ls-files '*.sh'; git ls-files | while IFS= read -r f; do
    [ -f "$f" ] && head -c 64 "$f" | head -1 | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f"; done; } | LC_ALL=C sort -u)
n=0 status=0
for f in "${files[@]}"; do
  n=$((n + 1))
  if out=$(shellcheck -x -S warning -f gcc "$f" 2>&1); then
    echo "ok $n - shellcheck $f"
  else
    echo "not ok $n - shellcheck $f"; echo "$out" | sed 's/^/# /'; status=1
  fi
done
echo "1..$n"
exit $status
