#!/usr/bin/env bash
# The suites that compare fairshare with real Slurm (slurm_real,
# slurm_history, sreport, sreport_resv, sreport_runs), run against the
# captures of another Slurm version: test/fixtures/slurm/VERSION/ in place of
# test/fixtures/slurm/.  The suites are not changed: pg_regress runs in a
# scratch directory where test/fixtures/slurm is VERSION's captures and sql/
# and expected/ are the repo's, so each suite reads VERSION's files by the
# paths it always reads.  The differences pg_regress finds are the version's
# differences (docs/slurm.md#slurm-2411).  Needs the extension installed and
# the PG* environment of a running server, as `make installcheck`.
#
#   bash test/slurm/compare.sh 24.11 [SUITE...]     (default: all five)
#
# Prints pg_regress's summary; the diffs stay in the scratch directory it
# names.  Exit status: pg_regress's.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
version=${1:-}
shift
[[ $version =~ ^[0-9]+\.[0-9]+$ ]] || { echo "usage: bash $0 VERSION [SUITE...], e.g. 24.11" >&2; exit 2; }
[ -d "$REPO/test/fixtures/slurm/$version" ] || { echo "compare.sh: no captures in test/fixtures/slurm/$version" >&2; exit 2; }
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(slurm_real slurm_history sreport sreport_resv sreport_runs)
for s in "${suites[@]}"; do
  [[ $s =~ ^[a-z_]+$ ]] && [ -f "$REPO/sql/$s.sql" ] || { echo "compare.sh: no suite '$s'" >&2; exit 2; }
done
PG_CONFIG=${PG_CONFIG:-pg_config}
regress=$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress
[ -x "$regress" ] || { echo "compare.sh: no pg_regress at $regress" >&2; exit 2; }

work=$(mktemp -d /tmp/fairshare-compare-"$version".XXXXXX)
mkdir -p "$work/test/fixtures"
ln -s "$REPO/test/fixtures/slurm/$version" "$work/test/fixtures/slurm"
ln -s "$REPO/sql" "$work/sql"
ln -s "$REPO/expected" "$work/expected"
cd "$work" || exit 2
echo "compare.sh: Slurm $version's captures, suites ${suites[*]}, in $work"
"$regress" --inputdir=. --outputdir="$work/out" --bindir="$("$PG_CONFIG" --bindir)" \
  --dbname=contrib_regression install "${suites[@]}"
st=$?
[ -s "$work/out/regression.diffs" ] && echo "compare.sh: differences in $work/out/regression.diffs"
exit $st
