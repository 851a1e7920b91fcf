#!/usr/bin/env bash
# A real Slurm 22.05 cluster, "oracle", on this machine: slurmctld, slurmd
# and slurmdbd from Debian bookworm's packages, MariaDB behind slurmdbd, and
# munge, all on 127.0.0.1, started by hand (no systemd needed).  The capture
# scripts (test/slurm/capture_*.sh) run on it; so can any test that needs a
# real sshare, sprio or sacct.  Run as root; it never reads stdin.
#
#   bash test/slurm/cluster.sh start    install what is missing, write the
#                                       configuration, start what is not running
#                                       (slurmctld and slurmd restart when their
#                                       configuration changed; state is kept)
#   bash test/slurm/cluster.sh fresh    the same from nothing: stop the Slurm
#                                       daemons, drop the accounting database,
#                                       wipe their state and logs, then start
#   bash test/slurm/cluster.sh stop     stop every daemon it started (Slurm,
#                                       MariaDB, munge)
#   bash test/slurm/cluster.sh status   what runs, and the settings in force
#
# Priority and job-id settings come from the environment (unset: the default
# shown); each capture scenario sets its own:
#   FS_FLAGS=              PriorityFlags (empty: Fair Tree; NO_FAIR_TREE: classic)
#   FS_HALFLIFE=0          PriorityDecayHalfLife (0: no decay; e.g. 0-0:10:00)
#   FS_CALC_PERIOD=1       PriorityCalcPeriod, minutes between two decay passes
#   FS_RESET_PERIOD=NONE   PriorityUsageResetPeriod (NONE NOW DAILY WEEKLY
#                          MONTHLY QUARTERLY YEARLY)
#   FS_FIRST_JOB_ID=1      FirstJobId
#   FS_MAX_JOB_ID=67043328 MaxJobId (Slurm's default)
#   FS_MAX_JOB_COUNT=10000 MaxJobCount, jobs slurmctld holds at once (Slurm's default)
#   FS_MIN_JOB_AGE=300     MinJobAge, seconds a finished job stays in slurmctld
#   FS_MAX_AGE=14-0        PriorityMaxAge
#   FS_FAVOR_SMALL=NO      PriorityFavorSmall
#   FS_WEIGHT_FAIRSHARE=70000 FS_WEIGHT_PARTITION=30000 FS_WEIGHT_AGE=5000
#   FS_WEIGHT_JOBSIZE=5000 FS_WEIGHT_QOS=0 FS_WEIGHT_ASSOC=0
#   FS_CTLD_DEBUG=verbose  SlurmctldDebug (the priority log lines need verbose)
#   FS_CTLD_TZ=            TZ of slurmctld (empty: the machine's).  A daily
#                          usage reset happens at slurmctld's local midnight;
#                          a TZ whose midnight is minutes away shows one.
#
# Every wait is bounded; on failure it says which step failed and prints the
# end of that daemon's log.  Daemons are stopped through their pid files only.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ETC=/etc/slurm
STATE=/var/lib/slurm
LOGDIR=/var/log/slurm
LIBDIR=/usr/local/lib/fairshare-slurm
SETTINGS=$STATE/fairshare-cluster.settings
MARK='# written by fairshare test/slurm/cluster.sh'
DB_PASS=oracle
NODE=n1

log() { echo "[cluster.sh $(date -u +%H:%M:%S)] $*"; }
# die STEP MESSAGE [LOGFILE]: say what failed, show the log's end, exit 1
die() {
  echo "cluster.sh: FAILED at step '$1': $2" >&2
  if [ -n "${3:-}" ] && [ -s "$3" ]; then
    echo "--- last lines of $3:" >&2
    tail -n 25 "$3" >&2
  fi
  exit 1
}

# wait_for DESCRIPTION SECONDS LOGFILE COMMAND...: poll once a second
wait_for() {
  local what=$1 secs=$2 logf=$3 end
  shift 3
  end=$((SECONDS + secs))
  until timeout 20 "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $end ] && die "$what" "not ready after ${secs}s" "$logf"
    sleep 1
  done
  log "ready: $what"
}

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop_pid PIDFILE NAME: SIGTERM, 30 s, then SIGKILL, the pid in PIDFILE only
stop_pid() {
  local pf=$1 name=$2 pid end
  if pid_alive "$pf"; then
    pid=$(cat "$pf")
    log "stopping $name (pid $pid)"
    kill "$pid" 2>/dev/null
    end=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then
      log "$name (pid $pid) still running after 30s: SIGKILL"
      kill -9 "$pid" 2>/dev/null
      sleep 1
    fi
  fi
  rm -f "$pf"
}

# ------------------------------------------------------------------ settings
FS_FLAGS=${FS_FLAGS:-}
FS_HALFLIFE=${FS_HALFLIFE:-0}
FS_CALC_PERIOD=${FS_CALC_PERIOD:-1}
FS_RESET_PERIOD=${FS_RESET_PERIOD:-NONE}
FS_FIRST_JOB_ID=${FS_FIRST_JOB_ID:-1}
FS_MAX_JOB_ID=${FS_MAX_JOB_ID:-67043328}
FS_MIN_JOB_AGE=${FS_MIN_JOB_AGE:-300}
FS_MAX_JOB_COUNT=${FS_MAX_JOB_COUNT:-10000}
FS_MAX_AGE=${FS_MAX_AGE:-14-0}
FS_FAVOR_SMALL=${FS_FAVOR_SMALL:-NO}
FS_WEIGHT_FAIRSHARE=${FS_WEIGHT_FAIRSHARE:-70000}
FS_WEIGHT_PARTITION=${FS_WEIGHT_PARTITION:-30000}
FS_WEIGHT_AGE=${FS_WEIGHT_AGE:-5000}
FS_WEIGHT_JOBSIZE=${FS_WEIGHT_JOBSIZE:-5000}
FS_WEIGHT_QOS=${FS_WEIGHT_QOS:-0}
FS_WEIGHT_ASSOC=${FS_WEIGHT_ASSOC:-0}
FS_CTLD_DEBUG=${FS_CTLD_DEBUG:-verbose}
FS_CTLD_TZ=${FS_CTLD_TZ:-}

check() { # check NAME VALUE REGEX HINT
  [[ $2 =~ $3 ]] || die settings "$1='$2' is not valid ($4)"
}
validate() {
  check FS_FLAGS "$FS_FLAGS" '^[A-Za-z_,]*$' 'PriorityFlags, e.g. NO_FAIR_TREE'
  check FS_HALFLIFE "$FS_HALFLIFE" '^[0-9][0-9:-]*$' 'a Slurm time, e.g. 0-0:10:00, or 0'
  check FS_CALC_PERIOD "$FS_CALC_PERIOD" '^[1-9][0-9]*$' 'minutes, at least 1'
  check FS_RESET_PERIOD "$FS_RESET_PERIOD" '^(NONE|NOW|DAILY|WEEKLY|MONTHLY|QUARTERLY|YEARLY)$' 'NONE NOW DAILY WEEKLY MONTHLY QUARTERLY YEARLY'
  check FS_FIRST_JOB_ID "$FS_FIRST_JOB_ID" '^[1-9][0-9]*$' 'a positive integer'
  check FS_MAX_JOB_ID "$FS_MAX_JOB_ID" '^[1-9][0-9]*$' 'a positive integer'
  [ "$FS_MAX_JOB_ID" -gt "$FS_FIRST_JOB_ID" ] || die settings "FS_MAX_JOB_ID=$FS_MAX_JOB_ID must be above FS_FIRST_JOB_ID=$FS_FIRST_JOB_ID"
  check FS_MIN_JOB_AGE "$FS_MIN_JOB_AGE" '^[0-9]+$' 'seconds'
  check FS_MAX_JOB_COUNT "$FS_MAX_JOB_COUNT" '^[1-9][0-9]*$' 'a positive integer'
  check FS_MAX_AGE "$FS_MAX_AGE" '^[0-9][0-9:-]*$' 'a Slurm time, e.g. 14-0'
  check FS_FAVOR_SMALL "$FS_FAVOR_SMALL" '^(YES|NO)$' 'YES or NO'
  local w
  for w in FAIRSHARE PARTITION AGE JOBSIZE QOS ASSOC; do
    eval "check FS_WEIGHT_$w \"\$FS_WEIGHT_$w\" '^[0-9]+\$' 'a non-negative integer'"
  done
  check FS_CTLD_DEBUG "$FS_CTLD_DEBUG" '^(quiet|fatal|error|info|verbose|debug[2-5]?)$' 'a SlurmctldDebug level'
  check FS_CTLD_TZ "$FS_CTLD_TZ" '^[A-Za-z0-9_:+/<>-]*$' 'a TZ value, e.g. UTC or XXX-05:37'
}

# ------------------------------------------------------------------ packages
install_packages() {
  local need=0 c
  for c in slurmctld slurmd slurmdbd sshare sacctmgr munged mariadbd mariadb-install-db; do
    command -v "$c" >/dev/null 2>&1 || need=1
  done
  dpkg -s slurm-wlm-mysql-plugin >/dev/null 2>&1 || need=1
  command -v cc >/dev/null 2>&1 || need=1
  [ $need = 0 ] && return 0
  local pkgs="slurmctld slurmd slurmdbd slurm-client munge mariadb-server"
  command -v cc >/dev/null 2>&1 || pkgs="$pkgs gcc libc6-dev"
  log "installing $pkgs"
  # keep the packages' scripts from starting services: this script starts them
  local made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && made_policy=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get update -q < /dev/null || { [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d; die install "apt-get update failed"; }
  # shellcheck disable=SC2086
  timeout 1200 apt-get install -y -q --no-install-recommends $pkgs < /dev/null
  local st=$?
  [ $made_policy = 1 ] && rm -f /usr/sbin/policy-rc.d
  [ $st = 0 ] || die install "apt-get install $pkgs failed (status $st)"
}

# ------------------------------------------------------------------ configuration
# write_conf: render the templates; sets CONF_CHANGED=1 when slurm.conf or the
# settings slurmctld runs with differ from those in place
write_conf() {
  local host new
  host=$(hostname -s)
  [ -n "$host" ] || die config "hostname -s is empty"
  getent hosts "$host" >/dev/null || {
    log "adding '127.0.0.1 $host' to /etc/hosts (the host name must resolve)"
    echo "127.0.0.1 $host" >> /etc/hosts
  }
  if [ -f $ETC/slurm.conf ] && ! grep -qF "$MARK" $ETC/slurm.conf; then
    die config "$ETC/slurm.conf exists and was not written by this script: not overwriting a real Slurm configuration"
  fi
  mkdir -p $ETC $STATE/slurmctld $STATE/slurmd $LOGDIR /run/munge /run/mysqld $LIBDIR
  chown slurm:slurm $STATE/slurmctld $LOGDIR
  chown munge:munge /run/munge && chmod 755 /run/munge
  chown mysql:mysql /run/mysqld
  new=$(mktemp)
  {
    echo "$MARK"
    sed -e "s/@HOST@/$host/" \
        -e "s/@CTLD_DEBUG@/$FS_CTLD_DEBUG/" \
        -e "s/@FIRST_JOB_ID@/$FS_FIRST_JOB_ID/" \
        -e "s/@MAX_JOB_ID@/$FS_MAX_JOB_ID/" \
        -e "s/@MIN_JOB_AGE@/$FS_MIN_JOB_AGE/" \
        -e "s/@MAX_JOB_COUNT@/$FS_MAX_JOB_COUNT/" \
        -e "s/@FLAGS@/$FS_FLAGS/" \
        -e '/^PriorityFlags=$/d' \
        -e "s/@HALFLIFE@/$FS_HALFLIFE/" \
        -e "s/@RESET_PERIOD@/$FS_RESET_PERIOD/" \
        -e "s/@CALC_PERIOD@/$FS_CALC_PERIOD/" \
        -e "s/@MAX_AGE@/$FS_MAX_AGE/" \
        -e "s/@FAVOR_SMALL@/$FS_FAVOR_SMALL/" \
        -e "s/@WEIGHT_FAIRSHARE@/$FS_WEIGHT_FAIRSHARE/" \
        -e "s/@WEIGHT_PARTITION@/$FS_WEIGHT_PARTITION/" \
        -e "s/@WEIGHT_AGE@/$FS_WEIGHT_AGE/" \
        -e "s/@WEIGHT_JOBSIZE@/$FS_WEIGHT_JOBSIZE/" \
        -e "s/@WEIGHT_QOS@/$FS_WEIGHT_QOS/" \
        -e "s/@WEIGHT_ASSOC@/$FS_WEIGHT_ASSOC/" \
        "$HERE/conf/slurm.conf.in"
  } > "$new"
  grep -v '^#' "$new" | grep -q '@[A-Z_]*@' && die config "a template field was left unfilled: $(grep -v '^#' "$new" | grep '@[A-Z_]*@')"
  CONF_CHANGED=0
  if ! cmp -s "$new" $ETC/slurm.conf; then
    CONF_CHANGED=1
    install -m 644 "$new" $ETC/slurm.conf
    log "wrote $ETC/slurm.conf"
  fi
  rm -f "$new"
  # slurmctld's environment is part of its settings (TZ)
  if [ "$(cat $SETTINGS 2>/dev/null)" != "FS_CTLD_TZ=$FS_CTLD_TZ" ]; then
    CONF_CHANGED=1
    echo "FS_CTLD_TZ=$FS_CTLD_TZ" > $SETTINGS
  fi
  sed "s/@DB_PASS@/$DB_PASS/" "$HERE/conf/slurmdbd.conf.in" > $ETC/slurmdbd.conf.new
  install -m 600 -o slurm -g slurm $ETC/slurmdbd.conf.new $ETC/slurmdbd.conf && rm -f $ETC/slurmdbd.conf.new
  install -m 644 "$HERE/conf/mariadb.cnf" /etc/mysql/mariadb.conf.d/99-fairshare-slurm.cnf
  # slurmdbd binds the wildcard address: this library makes it loopback
  if [ ! -s $LIBDIR/loopback.so ] || ! cmp -s "$HERE/conf/loopback.c" $LIBDIR/loopback.c; then
    cp "$HERE/conf/loopback.c" $LIBDIR/loopback.c
    cc -shared -fPIC -O2 -o $LIBDIR/loopback.so $LIBDIR/loopback.c -ldl \
      || die config "cannot build $LIBDIR/loopback.so"
  fi
}

# ------------------------------------------------------------------ daemons
start_munge() {
  if [ ! -s /etc/munge/munge.key ]; then
    log "creating /etc/munge/munge.key"
    mungekey --create --keyfile=/etc/munge/munge.key || die munge "mungekey failed"
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  fi
  if ! pid_alive /run/munge/munged.pid; then
    log "starting munged"
    runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid < /dev/null \
      || die munge "munged did not start" /var/log/munge/munged.log
  fi
  wait_for "munge credential round trip" 20 /var/log/munge/munged.log bash -c 'munge -n | unmunge'
}

start_mariadb() {
  if [ ! -d /var/lib/mysql/mysql ]; then
    log "initialising /var/lib/mysql"
    timeout 120 mariadb-install-db --user=mysql --datadir=/var/lib/mysql > $LOGDIR/mariadb-install.log 2>&1 \
      || die mariadb "mariadb-install-db failed" $LOGDIR/mariadb-install.log
  fi
  if ! pid_alive /run/mysqld/mysqld.pid; then
    log "starting mariadbd"
    setsid /usr/sbin/mariadbd --user=mysql --bind-address=127.0.0.1 --pid-file=/run/mysqld/mysqld.pid \
      --socket=/run/mysqld/mysqld.sock >> $LOGDIR/mariadb.log 2>&1 < /dev/null &
  fi
  wait_for "mariadb answers" 60 $LOGDIR/mariadb.log mysqladmin --protocol=socket ping
  mysql --protocol=socket <<SQL || die mariadb "cannot create the slurm database user"
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
FLUSH PRIVILEGES;
SQL
}

start_slurmdbd() {
  if ! pid_alive /run/slurmdbd.pid; then
    log "starting slurmdbd"
    LD_PRELOAD=$LIBDIR/loopback.so slurmdbd < /dev/null \
      || die slurmdbd "slurmdbd did not start" $LOGDIR/slurmdbd.log
  fi
  wait_for "slurmdbd listens on 127.0.0.1:6819" 90 $LOGDIR/slurmdbd.log \
    bash -c 'exec 3<> /dev/tcp/127.0.0.1/6819'
  wait_for "sacctmgr answers" 60 $LOGDIR/slurmdbd.log sacctmgr -n list cluster
  if ! timeout 20 sacctmgr -n -P list cluster format=cluster | grep -qx oracle; then
    timeout 30 sacctmgr -i add cluster oracle > /dev/null || die slurmdbd "sacctmgr add cluster oracle failed" $LOGDIR/slurmdbd.log
    log "added cluster oracle to the accounting database"
  fi
}

start_slurmctld() {
  if [ "$CONF_CHANGED" = 1 ]; then
    stop_pid /run/slurmd.pid slurmd
    stop_pid /run/slurmctld.pid slurmctld
  fi
  if ! pid_alive /run/slurmctld.pid; then
    log "starting slurmctld${FS_CTLD_TZ:+ (TZ=$FS_CTLD_TZ)}"
    if [ -n "$FS_CTLD_TZ" ]; then
      TZ=$FS_CTLD_TZ slurmctld < /dev/null
    else
      slurmctld < /dev/null
    fi || die slurmctld "slurmctld did not start" $LOGDIR/slurmctld.log
  fi
  wait_for "slurmctld UP" 60 $LOGDIR/slurmctld.log bash -c 'scontrol ping | grep -q UP'
  if ! pid_alive /run/slurmd.pid; then
    log "starting slurmd -N $NODE"
    slurmd -N $NODE < /dev/null || die slurmd "slurmd did not start" $LOGDIR/slurmd.log
  fi
  wait_for "node $NODE idle or allocated" 60 $LOGDIR/slurmd.log \
    bash -c "sinfo -h -n $NODE -o %T | grep -qE '^(idle|mixed|allocated)'"
}

stop_slurm() {
  stop_pid /run/slurmd.pid slurmd
  stop_pid /run/slurmctld.pid slurmctld
  stop_pid /run/slurmdbd.pid slurmdbd
}

status() {
  local pf
  for pf in /run/munge/munged.pid /run/mysqld/mysqld.pid /run/slurmdbd.pid /run/slurmctld.pid /run/slurmd.pid; do
    if pid_alive $pf; then echo "running  $(cat $pf)  ($pf)"; else echo "stopped  ($pf)"; fi
  done
  [ -f $ETC/slurm.conf ] && grep -E '^(Priority|FirstJobId|MaxJobId|MinJobAge)' $ETC/slurm.conf
  [ -f $SETTINGS ] && cat $SETTINGS
  pid_alive /run/slurmctld.pid && timeout 20 sinfo
  return 0
}

start() {
  validate
  install_packages
  id slurm >/dev/null 2>&1 || die install "no user slurm after the installation"
  write_conf
  start_munge
  start_mariadb
  start_slurmdbd
  start_slurmctld
  log "cluster oracle up: $(sinfo -V), node $NODE $(sinfo -h -n $NODE -o %T)"
}

[ "$(id -u)" = 0 ] || die preflight "run as root (it installs packages and starts daemons)"
case "${1:-}" in
start) start ;;
fresh)
  validate
  install_packages
  write_conf
  stop_slurm
  start_mariadb
  log "dropping slurm_acct_db"
  mysql --protocol=socket -e 'DROP DATABASE IF EXISTS slurm_acct_db' || die fresh "cannot drop slurm_acct_db"
  log "wiping $STATE/slurmctld, $STATE/slurmd and the Slurm logs"
  rm -rf $STATE/slurmctld/* $STATE/slurmd/*
  rm -f $LOGDIR/slurmctld.log $LOGDIR/slurmd.log $LOGDIR/slurmdbd.log
  start
  ;;
stop)
  stop_slurm
  stop_pid /run/mysqld/mysqld.pid mariadbd
  stop_pid /run/munge/munged.pid munged
  ;;
status) status ;;
*)
  echo "usage: bash $0 start|fresh|stop|status" >&2
  exit 2
  ;;
esac
