#!/usr/bin/env bash
# bash test/run.sh matrix [MAJOR...]: every suite and the Debian packages on
# each supported PostgreSQL major (default: those of debian/pgversions), each
# in fresh Debian roots of the release that packages it: 15 bookworm,
# 17 trixie, 18 sid.  Per major:
#   1. a minimal root (debootstrap --variant=minbase), made once in this run
#      and kept as a tar file for the fresh root of step 4;
#   2. in it, the server, its headers, pgTAP, pg_prove, make and gcc, and the
#      package's build dependencies (apt-get build-dep); then, on a copy of
#      the repo, `bash test/run.sh test` as on a machine of that release:
#      build with -Werror, pg_regress, isolation, pgTAP, dump/restore, upgrade;
#   3. in the same root, `dpkg-buildpackage -us -uc` on another copy, with
#      DEB_BUILD_OPTIONS=nocheck (the build's own installcheck, dh_pgxs_test,
#      is the one step 4 runs against the installed package);
#   4. a fresh root from the tar file of step 1: `apt-get install
#      ./postgresql-N-fairshare_*.deb` (which brings postgresql-N), the
#      packaged cluster started (pg_ctlcluster N main start), CREATE EXTENSION
#      fairshare, `make installcheck` and the pgTAP suites against it with
#      the packaged files.
# Prints every step's output, a line per major, and last one line
# "N passed, M failed" summed over all majors.
#
# Needs root (debootstrap, chroot, mount) and a Debian mirror: the host's
# first one (as the shared tools' fresh-machine.sh finds it) or $MATRIX_MIRROR.
# MATRIX_SUITE_MAJORS="18": the majors whose step 2 (the whole suite) runs
# (default: every major); the others still get steps 1, 3 and 4, where
# pg_regress, isolation and pgTAP run against their package.  CI runs the
# whole suite on the newest major here and on the host's own major itself,
# and leaves it out for those between, to stay within its time.
# Roots are made under $MATRIX_DIR (default: a new directory in /var/tmp, about
# 2.5 GB per major) and removed at the end, mounts and processes first
# (MATRIX_KEEP=1 keeps the files).  Nothing is reused across runs.  The tests
# run in a network namespace of their own (loopback only), so their servers
# never meet the host's or each other's ports.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
repo=$PWD
t0=$SECONDS

die() { echo "matrix: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot, mount)"

majors=("$@")
if [ ${#majors[@]} -eq 0 ]; then
  mapfile -t majors < <(sed -n 's/^\([0-9][0-9]*\)$/\1/p' debian/pgversions)
fi
suite_of() {
  case $1 in 15) echo bookworm ;; 17) echo trixie ;; 18) echo sid ;; *) return 1 ;; esac
}
for v in "${majors[@]}"; do suite_of "$v" >/dev/null || die "no Debian release known for PostgreSQL $v"; done

# host tools: debootstrap, and ip to bring up the loopback of the namespaces
need=""
command -v debootstrap >/dev/null || need="$need debootstrap"
command -v ip >/dev/null || need="$need iproute2"
command -v unshare >/dev/null || need="$need util-linux"
if [ -n "$need" ]; then
  echo "== installing on the host:$need"
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need \
    || die "cannot install$need"
fi

# the host's first Debian mirror (deb822 "URIs:" or one-line "deb"), and its security mirror
host_sources() { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null; }
first_uri() {
  host_sources | awk -v re="$1" '/^URIs:/ || /^deb / {for (i = 2; i <= NF; i++) if ($i ~ re) {print $i; exit}}'
}
mirror=${MATRIX_MIRROR:-$(first_uri '^https?:.*/debian/?$')}
mirror=${mirror:-http://deb.debian.org/debian}
security=${MATRIX_SECURITY_MIRROR:-$(first_uri '^https?:.*/debian-security/?$')}
security=${security:-http://deb.debian.org/debian-security}

dir=${MATRIX_DIR:-$(mktemp -d /var/tmp/fairshare-matrix.XXXXXX)}
mkdir -p "$dir/logs" "$dir/debs"

# ---- clean-up: processes inside, mounts (deepest first), files -------------
mounts_under() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/mounts; }
kill_inside() {                     # TERM, then KILL, every process whose root is in $1
  local sig p r pids
  for sig in TERM KILL; do
    pids=()
    for p in /proc/[0-9]*; do
      r=$(readlink "$p/root" 2>/dev/null) || continue
      [[ $r == "$1" || $r == "$1"/* ]] && pids+=("${p#/proc/}")
    done
    [ ${#pids[@]} -gt 0 ] || return 0
    kill -"$sig" "${pids[@]}" 2>/dev/null || true
    sleep 2
  done
}
release_root() {                    # stop what runs in root $1 and unmount it
  local m
  [ -d "$1" ] || return 0
  kill_inside "$1"
  for m in $(mounts_under "$1" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
}
cleanup() {
  local r
  for r in "$dir"/roots/*; do release_root "$r"; done
  if [ -n "$(mounts_under "$dir")" ]; then
    echo "matrix: mounts remain under $dir; not deleting it" >&2; return 1
  fi
  if [ -n "${MATRIX_KEEP:-}" ]; then echo "matrix: kept $dir" >&2
  else rm -rf --one-file-system "$dir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# ---- roots ------------------------------------------------------------------
mount_root() {                      # the host's kernel interfaces, the run's apt cache
  local root=$1 suite=$2 m
  for m in proc sys dev dev/pts; do
    mount --bind "/$m" "$root/$m" && mount --make-private "$root/$m" || return 1
  done
  mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$root/dev/shm" || return 1
  mkdir -p "$dir/apt/$suite/partial" "$root/var/cache/apt/archives"
  mount --bind "$dir/apt/$suite" "$root/var/cache/apt/archives" || return 1
  cp --remove-destination /etc/resolv.conf "$root/etc/resolv.conf"
}

# in_root ROOT online|offline CMD: bash -c CMD in ROOT as root with a clean
# environment; offline: in a network namespace of its own, loopback only
in_root() {
  local root=$1 net=$2 cmd=$3
  local env=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8
             PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
             DEBIAN_FRONTEND=noninteractive)
  [ -n "${CI:-}" ] && env+=(CI="$CI")
  # no real Slurm in the roots (test/slurm/feed.sh runs with CI's own suite)
  env+=(FAIRSHARE_SLURM=0)
  if [ "$net" = offline ]; then
    unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh \
      chroot "$root" env -i "${env[@]}" bash -c "$cmd" </dev/null
  else
    chroot "$root" env -i "${env[@]}" bash -c "$cmd" </dev/null
  fi
}

# a minimal root of the suite, apt configured and its lists fetched; also
# kept as $dir/base-SUITE.tar for fresh copies
make_base() {
  local suite=$1 root=$2 f
  local try
  for try in 1 2; do                # (a second try if the mirror failed us)
    release_root "$root"; rm -rf --one-file-system "$root"; mkdir -p "$root"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" && break
    [ $try -eq 2 ] && return 1
    echo "matrix: debootstrap $suite failed; once more"; sleep 10
  done
  chmod 755 "$root"
  {
    echo "deb $mirror $suite main"
    if [ "$suite" != sid ]; then
      echo "deb $mirror $suite-updates main"
      echo "deb $security $suite-security main"
    fi
  } > "$root/etc/apt/sources.list"
  # the mirror may be a dated snapshot, whose sid Release is valid for a week only
  # (and a download that fails is tried again)
  printf 'Acquire::Check-Valid-Until "false";\nAcquire::Retries "3";\n' > "$root/etc/apt/apt.conf.d/90matrix"
  for f in /etc/apt/apt.conf.d/*; do  # the host's mirror-access settings, as fresh-machine.sh
    [ -f "$f" ] && grep -qiE 'proxy|Check-Valid-Until|Check-Date' "$f" && cp "$f" "$root$f"
  done
  # as on a buildd: packages do not start services (no init in a chroot anyway)
  printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"; chmod 755 "$root/usr/sbin/policy-rc.d"
  chroot "$root" apt-get clean
  mount_root "$root" "$suite" || return 1
  in_root "$root" online 'apt-get update -q' || return 1
  tar --numeric-owner -C "$root" --one-file-system -cf "$dir/base-$suite.tar" . || return 1
}

fresh_root() {                      # a fresh copy of the suite's minimal root
  local suite=$1 root=$2
  mkdir -p "$root" && tar --numeric-owner -C "$root" -xpf "$dir/base-$suite.tar" && chmod 755 "$root" \
    && mount_root "$root" "$suite"
}

# the repo as a developer has it: tracked and new files, not what git ignores
repo_tar() {
  if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$repo" && git -c safe.directory='*' ls-files -z --cached --others --exclude-standard |
       tar --null --no-recursion --ignore-failed-read -T - -c)
  else
    tar -C "$repo" --exclude=.git -c .
  fi
}
copy_repo() { mkdir -p "$1" && repo_tar | tar -x -C "$1"; }

# ---- counting ---------------------------------------------------------------
# what pg_regress (15: "test x ... ok"; 16+: TAP) and TAP printed, as in
# test/cluster.sh: "P F"
count() {
  local p f
  p=$(( $(grep -cE '^(test |     )[A-Za-z0-9_]+ +\.\.\. ok' "$1") + $(grep -cE '^ok [0-9]+' "$1") ))
  f=$(( $(grep -cE '\.\.\. FAILED' "$1") + $(grep -cE '^not ok [0-9]+' "$1") ))
  echo "$p $f"
}
total_pass=0 total_fail=0 results=()
add() { total_pass=$((total_pass + $1)); total_fail=$((total_fail + $2)); }

# ---- one major ----------------------------------------------------------------
run_major() {
  local v=$1 suite root proot log p f ts line deb ver
  suite=$(suite_of "$v")
  root=$dir/roots/$suite-suite proot=$dir/roots/$suite-package
  ver=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" fairshare.control)
  local pass=0 fail=0
  echo; echo "=================== PostgreSQL $v on Debian $suite ==================="

  # 1.+2. the root and the suite
  ts=$SECONDS
  echo "== $suite: debootstrap and packages"
  log=$dir/logs/$v-setup.log
  if ! { make_base "$suite" "$root" && copy_repo "$root/usr/src/fairshare" &&
         in_root "$root" online "apt-get install -y -q --no-install-recommends \
             postgresql-$v postgresql-server-dev-$v postgresql-$v-pgtap postgresql-$v-cron \
             libtap-parser-sourcehandler-pgtap-perl make gcc chromium fonts-dejavu-core python3 \
             default-jdk-headless libpostgresql-jdbc-java odbc-postgresql unixodbc unixodbc-dev bc && \
           cd /usr/src/fairshare && apt-get build-dep -y -q ./"; } >"$log" 2>&1; then
    tail -40 "$log"
    echo "not ok - PostgreSQL $v: a $suite root with the server and the build dependencies"
    results+=("PostgreSQL $v ($suite): set-up failed, see above")
    add 0 1; return
  fi
  echo "== $suite root ready in $((SECONDS - ts)) s"

  ts=$SECONDS
  log=$dir/logs/$v-suite.log
  if [ -n "${MATRIX_SUITE_MAJORS:-}" ] && [[ " $MATRIX_SUITE_MAJORS " != *" $v "* ]]; then
    echo "== PostgreSQL $v: bash test/run.sh test not run here (MATRIX_SUITE_MAJORS=$MATRIX_SUITE_MAJORS); pg_regress, isolation and pgTAP run against its package below"
  else
    echo "== PostgreSQL $v: bash test/run.sh test"
    in_root "$root" offline "cd /usr/src/fairshare && bash test/run.sh test" 2>&1 | tee "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
    if [ -n "$line" ]; then
      p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed}
    else
      p=0 f=1
    fi
    [ "$f" -eq 0 ] && ! grep -q '^== PostgreSQL '"$v"'$' "$log" && f=1   # it must have run on $v
    pass=$((pass + p)) fail=$((fail + f))
    echo "== PostgreSQL $v suite: $p passed, $f failed ($((SECONDS - ts)) s)"
  fi

  # 3. the packages
  ts=$SECONDS
  log=$dir/logs/$v-package.log
  echo "== PostgreSQL $v: dpkg-buildpackage -us -uc"
  rm -rf "$root/build"; copy_repo "$root/build/fairshare"
  {
    # nocheck: the build's own installcheck (dh_pgxs_test, against the
    # staged files) is the one step 4 runs against the installed package
    in_root "$root" offline "cd /build/fairshare && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc"
    rc=$?
    deb=$(cd "$root/build" && ls postgresql-"$v"-fairshare_*.deb 2>/dev/null | head -1)
    if [ $rc -eq 0 ] && [ -n "$deb" ]; then
      echo "ok 1 - dpkg-buildpackage -us -uc builds $deb on $suite"
    else
      echo "not ok 1 - dpkg-buildpackage -us -uc on $suite (exit $rc)"
    fi
  } 2>&1 | tee "$log"
  deb=$(cd "$root/build" && ls postgresql-"$v"-fairshare_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] && cp "$root/build/$deb" "$dir/debs/"
  release_root "$root"              # (its mounts; its files stay until the end)

  # 4. a fresh root, the package, the packaged server, installcheck
  if [ -n "$deb" ]; then
    {
      n=1
      tap() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }
      fresh_root "$suite" "$proot" && mkdir -p "$proot/tmp/debs" && cp "$dir/debs/$deb" "$proot/tmp/debs/" \
        && copy_repo "$proot/var/lib/postgresql/fairshare"
      tap $? "a fresh $suite root"
      in_root "$proot" online "apt-get install -y -q --no-install-recommends /tmp/debs/$deb"
      tap $? "apt-get install ./$deb (brings postgresql-$v)"
      in_root "$proot" online "apt-get install -y -q --no-install-recommends make postgresql-server-dev-$v \
          postgresql-$v-pgtap libtap-parser-sourcehandler-pgtap-perl"
      tap $? "make, postgresql-server-dev-$v, pgTAP and pg_prove for PGXS's installcheck and the pgTAP suites"
      # every file of the extension comes from the package
      in_root "$proot" offline "set -e
        files=\$(ls /usr/share/postgresql/$v/extension/fairshare* /usr/lib/postgresql/$v/lib/fairshare.so)
        for x in \$files; do dpkg -S \"\$x\" | grep -q '^postgresql-$v-fairshare: '; done
        echo \"# \$(echo \$files | wc -w) files, each of postgresql-$v-fairshare\""
      tap $? "fairshare.control, its scripts and fairshare.so are the package's files"
      # the packaged cluster "main", started if it is not (the port is the
      # one its installation chose)
      up="{ pg_ctlcluster $v main status >/dev/null 2>&1 || pg_ctlcluster $v main start; } &&
          export PGPORT=\$(pg_conftool -s $v main show port)"
      in_root "$proot" offline "$up && pg_lsclusters"
      tap $? "pg_ctlcluster $v main start: the packaged server runs"
      got=$(in_root "$proot" offline "$up && runuser -u postgres -- sh -c '
          createdb fs_package && psql -X -q -v ON_ERROR_STOP=1 -d fs_package -c \"CREATE EXTENSION fairshare\" &&
          psql -X -A -t -d fs_package -c \"SELECT extversion FROM pg_extension WHERE extname = '\''fairshare'\''\" &&
          dropdb fs_package'")
      [ "$got" = "$ver" ]; tap $? "CREATE EXTENSION fairshare on the packaged server gives version $ver (got '$got')"
      in_root "$proot" offline "$up && chown -R postgres: /var/lib/postgresql/fairshare &&
        cd /var/lib/postgresql/fairshare && runuser -u postgres -- make installcheck PG_CONFIG=/usr/lib/postgresql/$v/bin/pg_config
        rc=\$?; [ \$rc -eq 0 ] || cat regression.diffs output_iso/regression.diffs 2>/dev/null
        ls *.so 2>/dev/null && rc=1   # nothing built: the packaged module was tested
        exit \$rc"
      tap $? "make installcheck against the packaged server (postgresql-$v-fairshare)"
      in_root "$proot" offline "$up && cd /var/lib/postgresql/fairshare &&
        runuser -u postgres -- env PGDATABASE=contrib_regression make -s prove_installcheck PG_CONFIG=/usr/lib/postgresql/$v/bin/pg_config
        rc=\$?; pg_ctlcluster $v main stop; exit \$rc"
      tap $? "the pgTAP suites against the packaged server (postgresql-$v-fairshare)"
    } 2>&1 | tee -a "$log"
    release_root "$proot"
  fi
  read -r p f < <(count "$log")
  [ -n "$deb" ] || f=$((f + 1))
  pass=$((pass + p)) fail=$((fail + f))
  echo "== PostgreSQL $v packages: $p passed, $f failed ($((SECONDS - ts)) s)"
  results+=("PostgreSQL $v ($suite): $pass passed, $fail failed")
  add "$pass" "$fail"
}

echo "== matrix: PostgreSQL ${majors[*]}; mirror $mirror; roots in $dir"
for v in "${majors[@]}"; do run_major "$v"; done

echo
echo "== matrix done in $((SECONDS - t0)) s"
for r in "${results[@]}"; do echo "== $r"; done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
