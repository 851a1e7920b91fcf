#!/usr/bin/env bash
# Build and install Citus 13.2.2 for the PostgreSQL that PG_CONFIG names,
# unless that version is installed already.  Debian has no Citus package, so
# the source comes from CITUS_SRC: a directory holding the release source as
# citus-13.2.2.tar.xz (a `git archive` of tag v13.2.2 of citusdata/citus) or
# the unpacked tree.  There is no default: the repository names no path of
# a particular machine.
# The repository does not carry the 4.8 MB tarball; it carries the one hunk
# that Debian's PostgreSQL 15.20 needs (test/citus/pg15.20.patch, applied
# only when the server's headers declare have_createdb_privilege()).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CITUS_VERSION=13.2.2
CITUS_EXTVERSION=13.2-1
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
CITUS_SRC=${CITUS_SRC:-}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# installed: the library, and the control file of the 13.2 series (its
# extension version is 13.2-1 for every 13.2.x release)
installed=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" \
              "$($PG_CONFIG --sharedir)/extension/citus.control" 2>/dev/null || true)
if [ -f "$($PG_CONFIG --pkglibdir)/citus.so" ] && [ "$installed" = "$CITUS_EXTVERSION" ]; then
  echo "== Citus $CITUS_EXTVERSION is installed"
  exit 0
fi

# CITUS_BUILD_DEPS_ONLY=1: only the build dependencies below, installed
# (.ci/run, so that the build itself can run beside other stages without an
# apt-get of its own)
deps_only=${CITUS_BUILD_DEPS_ONLY:-}
if [ -n "$deps_only" ]; then
  src=deps
elif [ -z "$CITUS_SRC" ]; then
  src=none
elif [ -f "$CITUS_SRC/citus-$CITUS_VERSION.tar.xz" ]; then
  src=tarball
elif [ -f "$CITUS_SRC/configure" ] && [ -f "$CITUS_SRC/src/backend/distributed/shared_library_init.c" ]; then
  src=tree
else
  src=none
fi
if [ "$src" = none ]; then
  echo "test/citus/build.sh: Citus $CITUS_VERSION is not installed, and CITUS_SRC=${CITUS_SRC:-(unset)} holds no source of it" >&2
  echo "  Put citus-$CITUS_VERSION.tar.xz there (git archive --prefix=citus-$CITUS_VERSION/ v$CITUS_VERSION" >&2
  echo "  of https://github.com/citusdata/citus, or the release tarball), or the unpacked tree," >&2
  echo "  and run again with CITUS_SRC=that directory." >&2
  exit 2
fi

# the build dependencies of Citus (its configure checks for each)
pkgs="postgresql-server-dev-15 make gcc libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev
      libselinux1-dev libxslt1-dev libpam0g-dev libssl-dev libreadline-dev xz-utils patch"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
fi
[ -z "$deps_only" ] || exit 0

build=$(mktemp -d "${TMPDIR:-/tmp}/citus-build.XXXXXX")
trap 'rm -rf "$build"' EXIT
echo "== building Citus $CITUS_VERSION in $build (about 6 minutes on 2 cores)"
if [ "$src" = tarball ]; then
  tar -xJf "$CITUS_SRC/citus-$CITUS_VERSION.tar.xz" -C "$build"
else
  mkdir "$build/citus-$CITUS_VERSION"
  cp -a "$CITUS_SRC/." "$build/citus-$CITUS_VERSION/"
fi
cd "$build/citus-$CITUS_VERSION"
if grep -q have_createdb_privilege "$($PG_CONFIG --includedir-server)/commands/dbcommands.h"; then
  patch -p1 < "$here/pg15.20.patch"
fi
./configure -q PG_CONFIG="$PG_CONFIG" >/dev/null
make -s -j"$(nproc)" >/dev/null
$SUDO make -s install >/dev/null
echo "== Citus $CITUS_VERSION installed"
