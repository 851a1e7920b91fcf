# shellcheck shell=bash
# Shared by the capture scripts test/slurm/capture_*.sh (source it; it is not
# run alone).  Each scenario builds its accounts and jobs on a fresh cluster
# (cluster.sh fresh) and writes what real Slurm printed into
# test/fixtures/slurm/<scenario>/.  Every command runs with TZ=UTC, so every
# time sacct, sshare, sprio and scontrol print is UTC.
set -uo pipefail
export TZ=UTC LC_ALL=C
SLURM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FIXTURES=$(cd "$SLURM_DIR/../fixtures/slurm" && pwd)
STATE_DIR=/var/lib/slurm/slurmctld
CTLD_LOG=/var/log/slurm/slurmctld.log

# ---- which Slurm (docs/slurm.md#slurm-2411) ----------------------------
# SLURM_VERSION=22.05 (the default): this machine's cluster (cluster.sh),
# captures in test/fixtures/slurm/<scenario>/.  SLURM_VERSION=24.11: Debian
# trixie's, in the root of test/slurm/trixie.sh, where this whole capture
# script then runs; captures in test/fixtures/slurm/24.11/<scenario>/.
# sacctmgr 24.11 refuses the fields Lft and Rgt (it keeps the tree in
# lineage): ASSOC_FIELDS leaves them out there.
ASSOC_FIELDS=Cluster,Account,User,Partition,Share,ParentName,ID,LFT,RGT,DefaultQOS,QOS
SLURM_VERSION=${SLURM_VERSION:-22.05}
case $SLURM_VERSION in
22.05) ;;
24.11)
  # (test/slurm/feed.sh stays on the host, where its PostgreSQL is, and
  # sets SLURM_FROM_HOST=1: it runs Slurm's commands through trixie.sh run)
  if [ ! -e /etc/fairshare-slurm-root ] && [ "${SLURM_FROM_HOST:-0}" != 1 ]; then
    exec bash "$SLURM_DIR/trixie.sh" run bash "$SLURM_DIR/$(basename "$0")" "$@"
  fi
  mkdir -p "$FIXTURES/24.11" && FIXTURES=$FIXTURES/24.11
  ASSOC_FIELDS=Cluster,Account,User,Partition,Share,ParentName,ID,DefaultQOS,QOS
  ;;
*) echo "SLURM_VERSION=$SLURM_VERSION: 22.05 or 24.11" >&2; exit 2 ;;
esac

# sacct's columns: first every column import_sacct reads (extension/import.c,
# sacct_col_names), then the ones kept for the identity of runs, suspension
# and the checks of the tests.  sacct 22.05 has no Restarts column.
SACCT_FIELDS=JobID,User,Account,Partition,QOS,AllocCPUS,ReqTRES,AllocTRES,Submit,Eligible,Start,End,State,NNodes,Cluster,Timelimit,JobIDRaw,DBIndex,AssocID,Suspended,Elapsed,ElapsedRaw,TimelimitRaw,Flags,Priority,ExitCode,ReqMem,NodeList,ReservationId

say() { echo "[$SCENARIO $(date -u +%H:%M:%S) +$((SECONDS - T0))s] $*"; }
fail() { echo "capture $SCENARIO: FAILED: $*" >&2; exit 1; }

# begin NAME: a fresh cluster with the FS_* settings in the environment, and
# an empty fixture directory
begin() {
  SCENARIO=$1
  T0=$SECONDS
  [ "$(id -u)" = 0 ] || fail "run as root"
  OUT=$FIXTURES/$SCENARIO
  bash "$SLURM_DIR/cluster.sh" fresh < /dev/null || fail "cluster.sh fresh"
  rm -rf "$OUT" && mkdir -p "$OUT"
  cp /etc/slurm/slurm.conf "$OUT/slurm.conf"
  {
    echo "scenario: $SCENARIO"
    echo "slurm: $(sinfo -V)"
    echo "packages: $(dpkg-query -W -f='${Package}=${Version} ' slurmctld slurmd slurmdbd slurm-client)"
    echo "settings: $(env | grep '^FS_' | sort | tr '\n' ' ')"
    [ -e /etc/fairshare-slurm-root ] && cat /etc/fairshare-slurm-root
    echo "started: $(date -u +%s) $(date -u +%FT%TZ)"
  } > "$OUT/run.txt"
  NCAPTURE=0
  say "cluster fresh, capturing into ${OUT#"$FIXTURES"/}"
}

# users USER...: Unix users (no home) for sbatch --uid
users() {
  local u
  for u in "$@"; do
    id "$u" > /dev/null 2>&1 || useradd -M -s /bin/sh "$u" || fail "useradd $u"
  done
}

# acctmgr ARGS...: sacctmgr -i, failing loudly
acctmgr() {
  timeout 30 sacctmgr -i "$@" > /dev/null || fail "sacctmgr $*"
}

# The accounts and users every scenario uses:
#   root ── chem (Fairshare=2) ── alice (1), bob (1)
#        └─ phys (Fairshare=1) ── bob (1), carol (3)
# bob is in both accounts (default chem).
standard_tree() {
  users alice bob carol
  acctmgr add account chem Fairshare=2 Description=chem Organization=lab
  acctmgr add account phys Fairshare=1 Description=phys Organization=lab
  acctmgr add user alice Account=chem Fairshare=1
  acctmgr add user bob Account=chem Fairshare=1 DefaultAccount=chem
  acctmgr add user bob Account=phys Fairshare=1
  acctmgr add user carol Account=phys Fairshare=3
  wait_assoc carol
}

# wait_assoc USER: until slurmctld holds USER's association (it learns of
# new associations from slurmdbd asynchronously)
wait_assoc() {
  local end=$((SECONDS + 30))
  until timeout 20 scontrol show assoc_mgr users="$1" flags=assoc 2>/dev/null | grep -q "UserName=$1("; do
    [ $SECONDS -ge $end ] && fail "slurmctld did not get the association of $1"
    sleep 1
  done
}

# submit USER ACCOUNT PARTITION CPUS MEM SECONDS [SBATCH OPTION...]: prints the
# job id.  The job is `sleep SECONDS`; its time limit is 10 minutes.
submit() {
  local user=$1 acct=$2 part=$3 cpus=$4 mem=$5 secs=$6 id
  shift 6
  id=$(timeout 60 sbatch --parsable --uid="$user" --gid="$user" --account="$acct" \
        --partition="$part" --cpus-per-task="$cpus" --mem="$mem" --time=10 \
        --job-name="${user}_${acct}_$secs" --chdir=/tmp --output=/dev/null "$@" \
        --wrap="sleep $secs") || fail "sbatch for $user/$acct"
  say "submitted job $id: $user/$acct $part cpus=$cpus mem=$mem sleep $secs $*" >&2
  echo "${id%%;*}"
}

# job_state ID: the job's state in slurmctld (empty once purged)
job_state() { timeout 20 squeue -h -j "$1" -o %T 2>/dev/null; }

# wait_state ID STATE SECONDS
wait_state() {
  local end=$((SECONDS + $3))
  until [ "$(job_state "$1")" = "$2" ]; do
    [ $SECONDS -ge $end ] && fail "job $1 not $2 after $3 s (it is '$(job_state "$1")')"
    sleep 1
  done
}

# wait_done ID SECONDS: until the job has ended (or is gone from slurmctld)
wait_done() {
  local end=$((SECONDS + $2))
  while [[ "$(job_state "$1")" =~ ^(PENDING|RUNNING|SUSPENDED|COMPLETING|CONFIGURING|REQUEUED)$ ]]; do
    [ $SECONDS -ge $end ] && fail "job $1 still $(job_state "$1") after $2 s"
    sleep 1
  done
}

# wait_idle SECONDS [ID...]: until no job is pending, running or suspended
# but the IDs given (jobs left pending on purpose)
wait_idle() {
  local secs=$1 end=$((SECONDS + $1)) left pat=(-e none) id
  shift
  for id in "$@"; do pat+=(-e "$id"); done
  while :; do
    left=$(timeout 20 squeue -h -t PD,R,S,CG -o %i | grep -vxF "${pat[@]}")
    [ -z "$left" ] && break
    [ $SECONDS -ge $end ] && fail "jobs still there after $secs s: $(squeue -h -o '%i %T %r' | tr '\n' ';')"
    sleep 2
  done
}

# last_decay: the two times slurmctld keeps in priority_last_decay_ran:
# 16 bytes, two 64-bit big-endian Unix times (pack_time): the last decay pass
# and the last usage reset (0: none yet)
last_decay() {
  od -An -v -tu8 --endian=big "$STATE_DIR/priority_last_decay_ran" 2>/dev/null | xargs
}

# wait_pass SECONDS: until slurmctld has made a decay pass after this call
wait_pass() {
  local before now end=$((SECONDS + $1))
  before=$(last_decay | cut -d' ' -f1)
  while :; do
    now=$(last_decay | cut -d' ' -f1)
    [ -n "$now" ] && [ "$now" != "$before" ] && break
    [ $SECONDS -ge $end ] && fail "no decay pass within $1 s"
    sleep 1
  done
  # the pass writes the file at its end; sshare then shows that pass
  sleep 1
  say "decay pass at $now ($(date -u -d @"$now" +%FT%TZ))"
}

# capture [NOTE]: one capture instant N: sshare_N.txt, sprio_N.txt,
# assoc_mgr_N.txt, scontrol_show_job_N.txt, priority_last_decay_ran_N, and
# its line in instants.txt
capture() {
  local n t1 t2 pass reset
  NCAPTURE=$((NCAPTURE + 1))
  n=$NCAPTURE
  cp "$STATE_DIR/priority_last_decay_ran" "$OUT/priority_last_decay_ran_$n" 2>/dev/null
  t1=$(date -u +%s)
  timeout 30 sshare -a -l -P > "$OUT/sshare_$n.txt" || fail "sshare"
  t2=$(date -u +%s)
  {
    echo "# sprio -l"
    timeout 30 sprio -l
    echo "# sprio -h -o '%.15i %9r %.10Y %.10A %.10F %.10J %.10P %.10Q %.6N'"
    timeout 30 sprio -h -o '%.15i %9r %.10Y %.10A %.10F %.10J %.10P %.10Q %.6N'
    echo "# sprio -n -l (normalized factors)"
    timeout 30 sprio -n -l
    echo "# sprio -w (weights)"
    timeout 30 sprio -w
  } > "$OUT/sprio_$n.txt" 2>&1
  timeout 30 scontrol show assoc_mgr flags=assoc > "$OUT/assoc_mgr_$n.txt" || fail "scontrol show assoc_mgr"
  timeout 30 scontrol show job > "$OUT/scontrol_show_job_$n.txt" 2>&1
  timeout 30 squeue -a -o '%i|%u|%a|%P|%T|%r|%V|%S|%e|%M|%l|%Q|%y' > "$OUT/squeue_$n.txt" 2>&1
  read -r pass reset < <(last_decay)
  # what slurmctld held at that instant, after the note
  local running pending
  running=$(awk -F'|' 'NR > 1 && $5 == "RUNNING" {printf "%s%s", sep, $1; sep = ","}' "$OUT/squeue_$n.txt")
  pending=$(awk -F'|' 'NR > 1 && $5 == "PENDING" {printf "%s%s(%s)", sep, $1, $6; sep = ","}' "$OUT/squeue_$n.txt")
  [ -s "$OUT/instants.txt" ] || echo "# n|epoch|iso_utc|sshare_done_epoch|last_decay_pass_epoch|last_decay_pass_iso|last_reset_epoch|note" > "$OUT/instants.txt"
  echo "$n|$t1|$(date -u -d @"$t1" +%FT%TZ)|$t2|$pass|$(date -u -d @"${pass:-0}" +%FT%TZ)|$reset|${1:-}; running: ${running:-none}; pending: ${pending:-none}" >> "$OUT/instants.txt"
  say "capture $n at $t1 (last pass $pass): ${1:-}"
}

# finish: sacct with and without --duplicates, nodes, the association tree,
# the priority lines of slurmctld's log, the run's duration
finish() {
  local since
  since=$(sed -n 's/^started: \([0-9]*\) .*/\1/p' "$OUT/run.txt")
  since=$(date -u -d @"$((since - 3600))" +%FT%T)
  # slurmdbd gets job records from slurmctld asynchronously
  sleep 3
  timeout 60 sacct -a -P --duplicates -S "$since" -E now --format="$SACCT_FIELDS" > "$OUT/sacct.txt" || fail "sacct --duplicates"
  timeout 60 sacct -a -P -S "$since" -E now --format="$SACCT_FIELDS" > "$OUT/sacct_nodup.txt" || fail "sacct"
  timeout 30 scontrol show node > "$OUT/nodes.txt" || fail "scontrol show node"
  timeout 30 sacctmgr show assoc tree -P format="$ASSOC_FIELDS" > "$OUT/assoc.txt"
  timeout 30 scontrol show config > "$OUT/config.txt" 2>&1
  log_slice > "$OUT/slurmctld.log"
  {
    echo "ended: $(date -u +%s) $(date -u +%FT%TZ)"
    echo "duration_seconds: $((SECONDS - T0))"
  } >> "$OUT/run.txt"
  say "done in $((SECONDS - T0)) s: $(cd "$OUT" && ls | tr '\n' ' ')"
}

# log_slice: slurmctld's log of this run without its most repetitive lines
# (the TRES run-seconds bookkeeping of every association at every pass, and
# the weighted factors that each "Job N priority:" line sums up).  What stays:
# each decay pass ("Decay factor over N seconds"), each usage charge ("job N
# ran for", its TRES counts, "Adding X new usage to assoc"), the Fair Tree
# levels of each pass (_ft_debug), each job's priority, the jobs' lives
# (submit, allocate, complete, requeue, suspend, resume) and the start-up.
# Lines are kept whole and unchanged.
log_slice() {
  grep -vE '_handle_(assoc|qos)_tres_run_secs|_get_priority_internal: (Weighted|Site priority)' "$CTLD_LOG"
}

# The sreport scenarios (capture_sreport_*.sh): real jobs are back-dated in
# slurmdbd's MariaDB tables, then slurmdbd rolls those hours up again.
SDBD=(mysql --protocol=socket slurm_acct_db -N -B)

# reroll FROM TO: run the SQL in $REROLL_SQL (the back-dating), empty
# slurmdbd's usage tables, make it believe it last rolled up at FROM, and
# restart it: it rolls up every hour since, when it starts; wait until it
# has rolled up to TO
reroll() {
  local from=$1 to=$2 t sql=$REROLL_SQL end
  for t in assoc_usage_hour assoc_usage_day assoc_usage_month usage_hour usage_day usage_month \
           wckey_usage_hour wckey_usage_day wckey_usage_month; do
    sql+="DELETE FROM oracle_${t}_table;"
  done
  sql+="DELETE FROM oracle_last_ran_table;"
  sql+="INSERT INTO oracle_last_ran_table (hourly_rollup, daily_rollup, monthly_rollup) VALUES ($from, $from, $from);"
  "${SDBD[@]}" -e "$sql" || fail "back-dating in MariaDB"
  kill "$(cat /run/slurmdbd.pid)" || fail "stop slurmdbd"
  end=$((SECONDS + 60))
  while kill -0 "$(cat /run/slurmdbd.pid 2>/dev/null)" 2>/dev/null; do
    [ $SECONDS -ge $end ] && fail "slurmdbd did not stop"; sleep 1
  done
  bash "$SLURM_DIR/cluster.sh" start < /dev/null > /dev/null || fail "cluster.sh start"
  end=$((SECONDS + 120))
  until [ "$("${SDBD[@]}" -e 'SELECT hourly_rollup FROM oracle_last_ran_table')" -ge "$to" ] 2>/dev/null; do
    [ $SECONDS -ge $end ] && fail "slurmdbd did not roll up to $to"; sleep 2
  done
  sleep 2
  say "rolled up to $to"
}

# export_window H E: window.txt (H and E, epoch and ISO), and what sacct and
# sacctmgr print of the runs, events, reservations and associations since
# an hour before H
export_window() {
  local h=$1 e=$2
  {
    echo "H|$h|$(date -u -d @"$h" +%FT%T)"
    echo "E|$e|$(date -u -d @"$e" +%FT%T)"
  } > "$OUT/window.txt"
  timeout 60 sacct -a -P --duplicates -S "$(date -u -d @$((h - 3600)) +%FT%T)" -E now \
    --format="$SACCT_FIELDS" > "$OUT/sacct.txt" || fail "sacct"
  timeout 30 sacctmgr show event -P all_time \
    format=Cluster,ClusterNodes,Event,NodeName,TimeStart,TimeEnd,State,StateRaw,TRES,Reason,User > "$OUT/events.txt" || fail "sacctmgr show event"
  timeout 30 sacctmgr show reservation -P start=2000-01-01T00:00:00 \
    format=Cluster,Name,ID,TRES,TimeStart,TimeEnd,Flags,NodeNames,UnusedWall,Associations > "$OUT/reservations.txt" || fail "sacctmgr show reservation"
  timeout 30 sacctmgr show assoc tree -P format="$ASSOC_FIELDS" > "$OUT/assoc.txt"
  : > "$OUT/commands.txt"
  NREP=0
}

# rep NAME ARGS...: what sreport -P ARGS prints, in NAME.txt; commands.txt
# lists them
rep() {
  local name=$1; shift
  NREP=$((NREP + 1))
  echo "$name|sreport -P $*" >> "$OUT/commands.txt"
  timeout 60 sreport -P "$@" > "$OUT/$name.txt" 2>&1 || fail "sreport $*"
}

# rep_windows S E M MT REPORT...: each report (utilization, acct_by_user,
# user_by_acct, top_usage, sizes, sizes_count, sizes_flat_count) in CPU
# seconds over all of the window [S, E) and over its part [M, MT)
rep_windows() {
  local w a b r s=$1 e=$2 m=$3 mt=$4
  shift 4
  for w in all part; do
    if [ $w = all ]; then a=$s; b=$e; else a=$m; b=$mt; fi
    for r in "$@"; do
      case $r in
        utilization) rep "${r}_$w" cluster Utilization start="$a" end="$b" -t Seconds ;;
        acct_by_user) rep "${r}_$w" cluster AccountUtilizationByUser start="$a" end="$b" -t Seconds ;;
        user_by_acct) rep "${r}_$w" cluster UserUtilizationByAccount start="$a" end="$b" -t Seconds ;;
        top_usage) rep "${r}_$w" user TopUsage start="$a" end="$b" -t Seconds ;;
        sizes) rep "${r}_$w" job SizesByAccount start="$a" end="$b" grouping=4,16,32 -t Seconds ;;
        sizes_count) rep "${r}_$w" job SizesByAccount start="$a" end="$b" grouping=4,16,32 PrintJobCount ;;
        sizes_flat_count) rep "${r}_$w" job SizesByAccount start="$a" end="$b" grouping=4,16,32 FlatView PrintJobCount ;;
        *) fail "rep_windows: no report $r" ;;
      esac
    done
  done
  say "$NREP sreport outputs"
}
