#!/usr/bin/env bash
# Slurm 24.11 for the real-Slurm harness: Debian trixie's slurmctld, slurmd,
# slurmdbd 24.11, MariaDB 11.8 and munge in a debootstrap root of their own,
# run by test/slurm/cluster.sh inside that root (chroot) and inside a network
# namespace of their own (loopback only), so they use Slurm's usual ports
# (6817-6819, MariaDB 3306) without meeting the host's Slurm 22.05 cluster.
# Run as root; only `run` passes its stdin on (to CMD).
#
#   bash test/slurm/trixie.sh root       make the root if there is none (153 s
#                                         here, 43 to 48 s on a fresh machine:
#                                         debootstrap, the packages)
#   bash test/slurm/trixie.sh start|fresh|status
#                                        cluster.sh start|fresh|status inside
#                                        the root (root made if missing)
#   bash test/slurm/trixie.sh stop       cluster.sh stop inside, then whatever
#                                        still runs there; unmount; the
#                                        namespace deleted (the root is kept)
#   bash test/slurm/trixie.sh run CMD... CMD inside the root and its network
#                                        namespace, in the same directory of
#                                        this repo (bind-mounted at its path)
#   bash test/slurm/trixie.sh remove     stop what runs inside, unmount,
#                                        delete the root and the namespace
#
# The capture scripts use it through SLURM_VERSION=24.11 (test/slurm/lib.sh
# runs the whole capture script inside the root); from the host, Slurm's
# commands go through `run`:  bash test/slurm/trixie.sh run sshare -a -l
# The root's MariaDB is also reachable from the host through its socket,
# $ROOT/run/mysqld/mysqld.sock (a Unix socket ignores network namespaces).
#
# Two things differ from bookworm's packages (docs/slurm.md#slurm-2411):
#  - slurmdbd 24.11.5 with trixie's libmariadb3 stops when it starts on an
#    empty database: "5027 Number of columns in result (=1) set execeeds
#    maxmimum allowed number of columns (=0)", then a fatal error in
#    _check_mysql_concat_is_sane.  It runs with bookworm's libmariadb.so.3
#    (Connector/C 3.3), which this script unpacks (not installs) into
#    /usr/local/lib/fairshare-slurm/libmariadb-bookworm/ of the root;
#    /usr/local/sbin/slurmdbd there starts /usr/sbin/slurmdbd with that
#    library first.  Nothing else in the root loads it.
#  - slurmd 24.11 loads its cgroup plugin even with proctrack/linuxproc; a
#    chroot has no cgroup mount for it, so /etc/slurm/cgroup.conf says
#    CgroupPlugin=disabled.
#
# Settings (environment):
#   FS_TRIXIE_DIR=/var/tmp/fairshare-slurm-24.11   where the root lives (kept
#                                        between runs; about 1 GB)
#   FS_DEBIAN_MIRROR=                    Debian mirror (default: the host's
#                                        first, else deb.debian.org)
# Every wait is bounded; every process it stops is one whose root is the root.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DIR=${FS_TRIXIE_DIR:-/var/tmp/fairshare-slurm-24.11}
ROOT=$DIR/root
NETNS=fairshare-slurm-24.11
MARKER=/etc/fairshare-slurm-root
VERSION=24.11
PACKAGES="slurmctld slurmd slurmdbd slurm-client slurm-wlm-mysql-plugin munge mariadb-server mariadb-client gcc libc6-dev"

log() { echo "[trixie.sh $(date -u +%H:%M:%S)] $*" >&2; }
die() { echo "trixie.sh: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, mount, network namespaces)"
[[ $DIR =~ ^/[A-Za-z0-9._/-]+$ ]] || die "FS_TRIXIE_DIR='$DIR' is not an absolute path of letters, digits, . _ - /"
[[ $REPO =~ ^/[A-Za-z0-9._/-]+$ ]] || die "the repo's path '$REPO' has characters a bind mount here does not take"

host_sources() { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null; }
first_uri() {
  host_sources | awk -v re="$1" '/^URIs:/ || /^deb / {for (i = 2; i <= NF; i++) if ($i ~ re) {print $i; exit}}'
}
MIRROR=${FS_DEBIAN_MIRROR:-$(first_uri '^https?:.*/debian/?$')}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
[[ $MIRROR =~ ^https?://[A-Za-z0-9._:/-]+$ ]] || die "mirror '$MIRROR' is not an http(s) URL"

mounts_under() { awk -v d="$1" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/mounts; }
is_mounted() { awk -v d="$1" '$2 == d {f = 1} END {exit !f}' /proc/mounts; }

# pids of the processes whose root directory is the root
pids_inside() {
  local p r
  for p in /proc/[0-9]*; do
    r=$(readlink "$p/root" 2>/dev/null) || continue
    [[ $r == "$ROOT" || $r == "$ROOT"/* ]] && echo "${p#/proc/}"
  done
}

# ------------------------------------------------------------------ namespace
# in_netns CMD...: CMD in the namespace.  nsenter enters the network
# namespace alone; `ip netns exec` and `ip -n` also make the mounts of "/"
# slaves, which fails (EINVAL) where "/" is not a mount point, as on a
# machine that is itself a chroot
in_netns() { nsenter --net=/run/netns/$NETNS "$@"; }

netns_up() {
  if [ ! -e /run/netns/$NETNS ]; then
    ip netns add $NETNS || die "ip netns add $NETNS"
  fi
  in_netns ip link set lo up || die "loopback of $NETNS"
  # getaddrinfo(AI_ADDRCONFIG), with which slurmdbd 24.11 looks up the
  # wildcard address it binds, finds no IPv4 address where 127.0.0.1 is the
  # only one (glibc does not count it): a second address on the loopback, a
  # documentation address (RFC 5737) nothing routes to
  if ! in_netns ip -4 addr show dev lo | grep -q '192\.0\.2\.1/'; then
    in_netns ip addr add 192.0.2.1/32 dev lo || die "second loopback address of $NETNS"
  fi
}

# ------------------------------------------------------------------ mounts
mount_root() {
  local m
  for m in proc sys dev dev/pts; do
    is_mounted "$ROOT/$m" && continue
    mkdir -p "$ROOT/$m"
    mount --bind "/$m" "$ROOT/$m" && mount --make-private "$ROOT/$m" || die "mount $ROOT/$m"
  done
  is_mounted "$ROOT/dev/shm" || mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$ROOT/dev/shm" || die "mount $ROOT/dev/shm"
  # /run is new at each mount: no pid file outlives the daemons it names
  is_mounted "$ROOT/run" || mount -t tmpfs -o nosuid,nodev,mode=755 run "$ROOT/run" || die "mount $ROOT/run"
  mkdir -p "$ROOT/run/lock"
  if ! is_mounted "$ROOT$REPO"; then
    mkdir -p "$ROOT$REPO"
    mount --bind "$REPO" "$ROOT$REPO" && mount --make-private "$ROOT$REPO" || die "mount $ROOT$REPO"
  fi
  cp --remove-destination /etc/resolv.conf "$ROOT/etc/resolv.conf"
}

umount_root() {
  local m
  for m in $(mounts_under "$ROOT" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
}

# ------------------------------------------------------------------ in the root
ENV_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# in_root online|offline CMD...: CMD in the root with a clean environment (and
# SLURM_VERSION, FS_*, CI passed on); offline: in the namespace
in_root() {
  local net=$1 v
  shift
  local env=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 "PATH=$ENV_PATH"
             DEBIAN_FRONTEND=noninteractive "SLURM_VERSION=$VERSION")
  for v in $(compgen -e); do
    [[ $v =~ ^(FS_[A-Z0-9_]+|CI|TZ)$ ]] && env+=("$v=${!v}")
  done
  local wd=/
  [[ $PWD == "$REPO" || $PWD == "$REPO"/* ]] && wd=$PWD
  if [ "$net" = offline ]; then
    in_netns chroot "$ROOT" env -i "${env[@]}" bash -c 'cd "$1" && shift && exec "$@"' sh "$wd" "$@"
  else
    chroot "$ROOT" env -i "${env[@]}" bash -c 'cd "$1" && shift && exec "$@"' sh "$wd" "$@"
  fi
}

make_root() {
  local t0=$SECONDS try
  command -v debootstrap > /dev/null || die "debootstrap is needed to make the root (apt-get install debootstrap; bash test/run.sh slurm-24.11 installs it)"
  log "making $ROOT: debootstrap trixie from $MIRROR"
  umount_root
  for try in 1 2; do
    rm -rf --one-file-system "$ROOT" && mkdir -p "$ROOT"
    timeout 1800 debootstrap --variant=minbase trixie "$ROOT" "$MIRROR" > "$DIR/debootstrap.log" 2>&1 && break
    [ $try = 2 ] && { tail -n 20 "$DIR/debootstrap.log" >&2; die "debootstrap trixie failed (log: $DIR/debootstrap.log)"; }
    log "debootstrap failed; once more"; sleep 10
  done
  chmod 755 "$ROOT"
  echo "deb $MIRROR trixie main" > "$ROOT/etc/apt/sources.list"
  printf 'Acquire::Retries "3";\n' > "$ROOT/etc/apt/apt.conf.d/90fairshare"
  local f
  for f in /etc/apt/apt.conf.d/*; do  # the host's mirror-access settings
    [ -f "$f" ] && grep -qiE 'proxy|Check-Valid-Until|Check-Date' "$f" && cp "$f" "$ROOT$f"
  done
  # packages do not start services (no init in a chroot): cluster.sh starts them
  printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d" && chmod 755 "$ROOT/usr/sbin/policy-rc.d"
  mount_root
  log "installing $PACKAGES"
  in_root online bash -c "timeout 600 apt-get update -q && timeout 1800 apt-get install -y -q --no-install-recommends $PACKAGES" \
    > "$DIR/apt.log" 2>&1 || { tail -n 20 "$DIR/apt.log" >&2; die "apt-get install in the root failed (log: $DIR/apt.log)"; }
  # bookworm's libmariadb.so.3 for slurmdbd alone (see the head of this file):
  # apt-get download with bookworm's lists kept apart from trixie's
  log "unpacking bookworm's libmariadb3 for slurmdbd"
  in_root online bash -c '
    set -e
    mkdir -p /var/lib/apt/lists-bookworm/partial /tmp/bookworm
    : > /tmp/bookworm/status
    echo "deb $1 bookworm main" > /etc/apt/bookworm.list
    # (an empty dpkg status: the libmariadb3 installed from trixie is not the candidate)
    o=(-o Dir::Etc::SourceList=/etc/apt/bookworm.list -o Dir::Etc::SourceParts=/nonexistent
       -o Dir::State::Lists=/var/lib/apt/lists-bookworm -o Dir::State::status=/tmp/bookworm/status
       -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
    timeout 600 apt-get "${o[@]}" update -q
    cd /tmp/bookworm && timeout 600 apt-get "${o[@]}" download libmariadb3
    deb=$(ls /tmp/bookworm/libmariadb3_*.deb)
    dpkg-deb -x "$deb" /tmp/bookworm/x
    d=/usr/local/lib/fairshare-slurm/libmariadb-bookworm
    mkdir -p $d
    cp -a /tmp/bookworm/x/usr/lib/*/libmariadb.so.3 $d/
    basename "$deb" > $d/FROM
    rm -rf /tmp/bookworm /var/lib/apt/lists-bookworm /etc/apt/bookworm.list
  ' sh "$MIRROR" >> "$DIR/apt.log" 2>&1 || { tail -n 20 "$DIR/apt.log" >&2; die "bookworm's libmariadb3 (log: $DIR/apt.log)"; }
  cat > "$ROOT/usr/local/sbin/slurmdbd" <<'EOF'
#!/bin/sh
# test/slurm/trixie.sh: slurmdbd 24.11.5 with bookworm's libmariadb.so.3
# (trixie's Connector/C 3.4 stops it at start; docs/slurm.md)
LD_LIBRARY_PATH=/usr/local/lib/fairshare-slurm/libmariadb-bookworm${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec /usr/sbin/slurmdbd "$@"
EOF
  chmod 755 "$ROOT/usr/local/sbin/slurmdbd"
  mkdir -p "$ROOT/etc/slurm"
  cat > "$ROOT/etc/slurm/cgroup.conf" <<'EOF'
# test/slurm/trixie.sh: no cgroup mount in the root; slurmd 24.11 loads its
# cgroup plugin otherwise
CgroupPlugin=disabled
EOF
  apt-get clean >/dev/null 2>&1
  in_root online apt-get clean
  {
    echo "root: Debian trixie (test/slurm/trixie.sh), made $(date -u +%FT%TZ)"
    echo "packages: $(in_root online dpkg-query -W -f='${Package}=${Version} ' slurmctld slurmd slurmdbd slurm-client slurm-wlm-mysql-plugin mariadb-server munge libmariadb3)"
    echo "slurmdbd's libmariadb.so.3: $(cat "$ROOT/usr/local/lib/fairshare-slurm/libmariadb-bookworm/FROM")"
  } > "$ROOT$MARKER"
  log "root made in $((SECONDS - t0)) s"
}

ensure_root() {
  mkdir -p "$DIR"
  if [ ! -s "$ROOT$MARKER" ]; then
    make_root
  fi
  mount_root
  netns_up
}

stop_inside() {
  local sig pids end
  [ -d "$ROOT" ] || return 0
  if [ -s "$ROOT$MARKER" ] && is_mounted "$ROOT$REPO"; then
    in_root offline bash "$HERE/cluster.sh" stop < /dev/null || log "cluster.sh stop failed"
  fi
  for sig in TERM KILL; do
    mapfile -t pids < <(pids_inside)
    [ ${#pids[@]} -gt 0 ] || return 0
    log "SIG$sig to what still runs in the root: ${pids[*]}"
    kill -"$sig" "${pids[@]}" 2>/dev/null
    end=$((SECONDS + 15))
    while [ -n "$(pids_inside)" ] && [ $SECONDS -lt $end ]; do sleep 1; done
  done
}

case "${1:-}" in
root) ensure_root; cat "$ROOT$MARKER" ;;
start|fresh|status)
  ensure_root
  in_root offline bash "$HERE/cluster.sh" "$1" < /dev/null
  ;;
stop)
  # nothing left behind: the daemons, then the mounts and the namespace (the
  # root's files stay for the next start)
  stop_inside
  umount_root
  [ -e /run/netns/$NETNS ] && ip netns delete $NETNS
  log "stopped; the root stays in $ROOT"
  ;;
run)
  shift
  [ $# -gt 0 ] || die "run: what command?"
  ensure_root
  in_root offline "$@"
  ;;
remove)
  stop_inside
  umount_root
  [ -n "$(mounts_under "$ROOT")" ] && die "mounts remain under $ROOT; not deleting it"
  rm -rf --one-file-system "$DIR"
  [ -e /run/netns/$NETNS ] && ip netns delete $NETNS
  log "removed $DIR"
  ;;
*)
  echo "usage: bash $0 root|start|fresh|stop|status|remove|run CMD..." >&2
  exit 2
  ;;
esac
