#!/usr/bin/env bash
# The Citus suite, from nothing: `bash test/run.sh citus` (which installs the
# packages and builds and installs fairshare first) runs this.
#
#   bash test/citus/run.sh          Citus built and installed unless it is
#                                   (test/citus/build.sh, from CITUS_SRC), a
#                                   cluster of a coordinator, two workers and a
#                                   single server started in a temporary
#                                   directory (test/citus/cluster.sh), the suite
#                                   (test/citus/test.sh), the cluster removed
#   bash test/citus/run.sh measure  the same cluster, then the measurements of
#                                   docs/citus.md (test/citus/measure.sh)
#
# Not part of `bash test/run.sh test`: Debian has no Citus package, so the
# suite needs the Citus source (CITUS_SRC) and about 6 minutes on 2 cores to
# build it, then about 4 more to run (docs/citus.md#identical-results).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
mode=${1:-suite}
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bash test/citus/build.sh || exit 1
if [ ! -f "$($PG_CONFIG --pkglibdir)/fairshare.so" ]; then
  echo "test/citus/run.sh: fairshare is not installed: run bash test/run.sh citus" >&2
  exit 2
fi
unset PGHOST PGPORT PGUSER PGDATABASE PGSERVICE PGPASSWORD
export CITUS_DIR
CITUS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/fairshare-citus.XXXXXX")
trap 'bash test/citus/cluster.sh stop "$CITUS_DIR"' EXIT
echo "== a Citus cluster in $CITUS_DIR"
bash test/citus/cluster.sh start "$CITUS_DIR" || exit 1
case "$mode" in
  suite) bash test/citus/test.sh ;;
  measure) bash test/citus/measure.sh ;;
  *) echo "usage: $0 [suite|measure]" >&2; exit 2 ;;
esac
