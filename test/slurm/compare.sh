#!/usr/bin/env bash
# The suites that compare fairshare with real Slurm (slurm_real,
# slurm_history, slurm_tree_change, sreport, sreport_resv, sreport_runs), run against the
# captures of another Slurm version: test/fixtures/slurm/VERSION/ in place of
# test/fixtures/slurm/.  The suites are not changed: pg_regress runs in a
# scratch directory where test/fixtures/slurm is VERSION's captures and sql/
# is the repo's, so each suite reads VERSION's files by the paths it always
# reads.  Each suite's output is compared with expected/VERSION/SUITE.out:
# the version's own instants and numbers, every comparison's count of
# differing cells, and the differing cells listed; those are 0 and none
# except the version's known differences (docs/slurm.md#slurm-2411).  So
# the run fails when any cell that agrees with Slurm today stops agreeing,
# when a known difference changes, or when a capture changes.  A suite with
# no expected/VERSION/SUITE.out is compared with expected/SUITE.out, the
# 22.05 capture's (its diff then shows every line the captures differ in).
# Needs the extension installed and the PG* environment of a running
# server, as `make installcheck`; pg_regress makes (and drops before) a
# database of its own, fairshare_compare.
#
#   bash test/slurm/compare.sh 24.11 [SUITE...]     (default: all six)
#
# Prints pg_regress's summary; on a difference, the diff, and the scratch
# directory that keeps the outputs (an output reviewed line by line is
# accepted by copying out/results/SUITE.out of it to expected/VERSION/);
# without one, removes that directory.  Exit status: pg_regress's.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
version=${1:-}
shift
[[ $version =~ ^[0-9]+\.[0-9]+$ ]] || { echo "usage: bash $0 VERSION [SUITE...], e.g. 24.11" >&2; exit 2; }
[ -d "$REPO/test/fixtures/slurm/$version" ] || { echo "compare.sh: no captures in test/fixtures/slurm/$version" >&2; exit 2; }
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(slurm_real slurm_history slurm_tree_change sreport sreport_resv sreport_runs)
for s in "${suites[@]}"; do
  [[ $s =~ ^[a-z_]+$ ]] && [ -f "$REPO/sql/$s.sql" ] || { echo "compare.sh: no suite '$s'" >&2; exit 2; }
done
PG_CONFIG=${PG_CONFIG:-pg_config}
regress=$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress
[ -x "$regress" ] || { echo "compare.sh: no pg_regress at $regress" >&2; exit 2; }

work=$(mktemp -d /tmp/fairshare-compare-"$version".XXXXXX)
mkdir -p "$work/test/fixtures" "$work/expected"
ln -s "$REPO/test/fixtures/slurm/$version" "$work/test/fixtures/slurm"
ln -s "$REPO/sql" "$work/sql"
ln -s "$REPO/expected/install.out" "$work/expected/install.out"
for s in "${suites[@]}"; do
  if [ -f "$REPO/expected/$version/$s.out" ]; then
    ln -s "$REPO/expected/$version/$s.out" "$work/expected/$s.out"
  else
    echo "compare.sh: no expected/$version/$s.out: $s is compared with expected/$s.out (Slurm 22.05's)"
    ln -s "$REPO/expected/$s.out" "$work/expected/$s.out"
  fi
done
cd "$work" || exit 2
echo "compare.sh: Slurm $version's captures, suites ${suites[*]}, in $work"
"$regress" --inputdir=. --outputdir="$work/out" --bindir="$("$PG_CONFIG" --bindir)" \
  --dbname=fairshare_compare install "${suites[@]}"
st=$?
if [ -s "$work/out/regression.diffs" ]; then
  cat "$work/out/regression.diffs"
  echo "compare.sh: differences in $work/out/regression.diffs, outputs in $work/out/results/"
elif [ "$st" -eq 0 ]; then
  rm -rf "$work"
fi
exit $st
