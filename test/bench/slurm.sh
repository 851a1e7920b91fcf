#!/usr/bin/env bash
# bench-slurm: sprio_at and sshare_at against a real slurmctld,
# side by side, on the same data.  `bash test/run.sh bench-slurm` (root;
# not in CI; docs/performance.md#sprio-and-sshare-against-slurmctld).
#
# For each number of user associations A: a fresh Slurm 22.05
# (test/slurm/cluster.sh: slurmctld, slurmd, slurmdbd, MariaDB; Fair Tree,
# no decay, PriorityCalcPeriod 2 minutes), a deterministic tree loaded with
# `sacctmgr -i load file=... clean` (then slurmctld restarted to see it),
# 60 short real jobs of 60 users for usage, then node n1 drained and P
# pending jobs queued with `sbatch --uid` (the Unix users made with
# useradd -M).  The same tree and jobs go into fairshare (slurm_load.sql),
# and a usage checkpoint is made after slurmctld's last pass, as a centre
# runs checkpoint_usage every PriorityCalcPeriod.  Then:
#   1. both sides must agree: `sshare -a -l -P` and sshare_at's lines,
#      byte for byte; sprio -l's FAIRSHARE, JOBSIZE and PARTITION of every
#      job (AGE depends on the second it is asked; PRIORITY sums it);
#   2. the whole client processes are timed in alternating pairs
#      (BENCH_PAIRS, 15): `sprio -l` against
#      psql -c "COPY (SELECT <sprio -l's columns> FROM fairshare.sprio_at(now())) TO STDOUT",
#      and `sshare -a -l -P` against the same for sshare_at, output to
#      /dev/null; the ratio is the median of fairshare's ÷ the median of Slurm's;
#   3. slurmctld's own time per call (sdiag's average of the RPC) and
#      PostgreSQL's execution time (EXPLAIN ANALYZE, median of 5).
# BENCH_SIZES: "A:P1,P2 ..." (default "1000:1000,10000 10000:1000,10000").
# slurmdbd 22.05's association insert is quadratic (163 s for 10,000 here):
# the sizes stop at 10,000.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC
PGV=$(${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/')
[ "$(id -u)" = 0 ] || { echo "bench-slurm: run as root (it starts Slurm and adds Unix users)" >&2; exit 1; }
if [ -z "${BENCH_SLURM_IN_PG:-}" ]; then
  export BENCH_SLURM_IN_PG=1
  exec pg_virtualenv -t -v "$PGV" bash "$0" "$@"
fi

SIZES=${BENCH_SIZES:-"1000:1000,10000 10000:1000,10000"}
PAIRS=${BENCH_PAIRS:-15}
WORK=$(mktemp -d /tmp/bench-slurm.XXXXXX)
chmod 755 "$WORK"
RESULTS=$WORK/results.txt
: > "$RESULTS"
export FS_HALFLIFE=0 FS_CALC_PERIOD=2 FS_CTLD_DEBUG=info FS_MAX_JOB_COUNT=30000 FS_MIN_JOB_AGE=300
STATE_DIR=/var/lib/slurm/slurmctld

say() { echo "[bench-slurm $(date -u +%H:%M:%S)] $*"; }
fail() { echo "bench-slurm: FAILED: $*" >&2; exit 1; }
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
last_pass() { od -An -v -tu8 --endian=big "$STATE_DIR/priority_last_decay_ran" 2>/dev/null | xargs | cut -d' ' -f1; }
# wait_pass SECONDS: until slurmctld has made a decay pass after this call
wait_pass() {
  local before now end=$((SECONDS + $1))
  before=$(last_pass)
  while :; do
    now=$(last_pass)
    [ -n "$now" ] && [ "$now" != "$before" ] && break
    [ $SECONDS -ge $end ] && fail "no decay pass within $1 s"
    sleep 1
  done
  sleep 1
}
# wait_idle SECONDS: no job running or completing
wait_idle() {
  local end=$((SECONDS + $1))
  while [ -n "$(squeue -h -t R,CG -o %i)" ]; do
    [ $SECONDS -ge $end ] && fail "jobs still running after $1 s"
    sleep 2
  done
}
ms() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f\n", (b - a) / 1e6}'; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# gen_tree A: sacctmgr's load file.  10 top accounts under root, A/10
# accounts spread over them, A users spread over those (user i in account
# i mod A/10); Fairshare 1-3 for accounts, 1-5 for users, from the index.
gen_tree() {
  awk -v A="$1" 'BEGIN {
    na = int(A / 10); if (na < 10) na = 10
    print "Cluster - '\''oracle'\'':Fairshare=1:QOS='\''normal'\''"
    print "Parent - '\''root'\''"
    print "User - '\''root'\'':DefaultAccount='\''root'\'':AdminLevel='\''Administrator'\'':Fairshare=1"
    for (t = 1; t <= 10; t++)
      printf "Account - '\''t%02d'\'':Description='\''t%02d'\'':Organization='\''bench'\'':Fairshare=%d\n", t, t, 1 + t % 3
    for (t = 1; t <= 10; t++) {
      printf "Parent - '\''t%02d'\''\n", t
      for (a = t; a <= na; a += 10)
        printf "Account - '\''a%05d'\'':Description='\''a%05d'\'':Organization='\''bench'\'':Fairshare=%d\n", a, a, 1 + (a * 7) % 3
    }
    for (a = 1; a <= na; a++) {
      printf "Parent - '\''a%05d'\''\n", a
      for (u = a; u <= A; u += na)
        printf "User - '\''u%05d'\'':DefaultAccount='\''a%05d'\'':Fairshare=%d\n", u, a, 1 + (u * 13) % 5
    }
  }'
}
# account_of U A: the account of user number U
account_of() { local na=$(($2 / 10)); [ $na -lt 10 ] && na=10; printf 'a%05d' $(( ($1 - 1) % na + 1 )); }

# time_pairs NAME SLURM_CMD PG_SQL: PAIRS alternating pairs, medians, ratio
time_pairs() {
  local name=$1 scmd=$2 sql=$3 t0 t1 t2
  : > "$WORK/t_slurm" ; : > "$WORK/t_pg"
  for _ in $(seq "$PAIRS"); do
    t0=$(date +%s%N); bash -c "$scmd" > /dev/null 2>&1; t1=$(date +%s%N)
    psql -X -q -c "COPY ($sql) TO STDOUT" > /dev/null; t2=$(date +%s%N)
    ms "$t0" "$t1" >> "$WORK/t_slurm"; ms "$t1" "$t2" >> "$WORK/t_pg"
  done
  S_MED=$(median < "$WORK/t_slurm"); P_MED=$(median < "$WORK/t_pg")
  RATIO=$(awk -v p="$P_MED" -v s="$S_MED" 'BEGIN {printf "%.2f", p / s}')
}
# pg_exec SQL: PostgreSQL's execution time, median of 5 fresh sessions
pg_exec() {
  local _
  for _ in 1 2 3 4 5; do
    psql -X -At -c "EXPLAIN (ANALYZE, TIMING OFF) $1" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'
  done | median
}
# ctld_time RPC: slurmctld's average time of an RPC since `sdiag -r`, in ms
ctld_time() {
  sdiag | awk -v rpc="$1" '$1 == rpc {for (i = 2; i <= NF; i++) if ($i ~ /^ave_time:/) {sub("ave_time:", "", $i); printf "%.1f\n", $i / 1000}}'
}

SPRIO_SQL="SELECT job_id, partition, user_name, priority, age, fairshare, job_size, partition_prio, qos_prio, nice FROM fairshare.sprio_at(now())"
# sshare -a -l -P's lines, byte for byte
SSHARE_SQL="SELECT 'Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|GrpTRESMins|TRESRunMins' UNION ALL (SELECT repeat(' ', s.depth) || s.account || '|' || COALESCE(s.user_name, '') || '|' || CASE WHEN s.depth = 0 THEN '' ELSE COALESCE(s.raw_shares::text, 'parent') END || '|' || to_char(s.norm_shares, 'FM99999999990.000000') || '|' || s.raw_usage_int || '|' || COALESCE(to_char(s.norm_usage, 'FM99999999990.000000'), '') || '|' || COALESCE(to_char(s.effectv_usage, 'FM99999999990.000000'), '') || '|' || COALESCE(to_char(s.fairshare, 'FM99999999990.000000'), '') || '|' || CASE WHEN s.level_fs = 'Infinity' THEN 'inf' ELSE COALESCE(to_char(s.level_fs, 'FM99999999990.000000'), '') END || '|' || COALESCE(s.grp_tres_mins, '') || '|' || COALESCE(s.tres_run_mins, '') FROM fairshare.sshare_at(now()) s WHERE s.cluster = 'oracle' ORDER BY s.tree_order)"

# The client: psql itself (Debian's /usr/bin/psql is pg_wrapper, a Perl
# script that adds about 30 ms to every call here), over the Unix socket with
# peer authentication, as a local administrator connects.
PSQL=$(${PG_CONFIG:-/usr/lib/postgresql/$PGV/bin/pg_config} --bindir)/psql
psql() { "$PSQL" "$@"; }
export -f psql 2>/dev/null; export PSQL
"$PSQL" -X -q -c "CREATE ROLE root SUPERUSER LOGIN" 2>/dev/null
export PGUSER=root PGHOST=/var/run/postgresql
unset PGPASSWORD
psql_q -c "CREATE EXTENSION IF NOT EXISTS fairshare"
say "PostgreSQL $(psql -X -At -c 'SHOW server_version'), $(nproc) CPUs: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"

for size in $SIZES; do
  A=${size%%:*}
  PS=${size#*:}
  say "== $A user associations: a fresh Slurm"
  bash test/slurm/cluster.sh fresh < /dev/null > "$WORK/cluster.log" 2>&1 || { tail -20 "$WORK/cluster.log"; fail "cluster.sh fresh"; }
  gen_tree "$A" > "$WORK/tree.cfg"
  # the 60 users that run jobs, spread over the tree (Unix users before
  # slurmctld starts: it maps the association users to uids when it loads them)
  USERS=()
  for k in $(seq 0 59); do
    u=$(( k * A / 60 + 1 )); name=$(printf 'u%05d' "$u")
    id "$name" > /dev/null 2>&1 || useradd -M -s /bin/sh "$name" || fail "useradd $name"
    USERS+=("$name:$(account_of "$u" "$A")")
  done
  t0=$SECONDS
  timeout 3600 sacctmgr -i load file="$WORK/tree.cfg" clean > "$WORK/load.log" 2>&1 || { tail "$WORK/load.log"; fail "sacctmgr load"; }
  say "sacctmgr load: $((SECONDS - t0)) s; restarting slurmctld"
  kill "$(cat /run/slurmctld.pid)" 2>/dev/null
  for _ in $(seq 30); do kill -0 "$(cat /run/slurmctld.pid 2>/dev/null)" 2>/dev/null || break; sleep 1; done
  rm -f /run/slurmctld.pid
  bash test/slurm/cluster.sh start < /dev/null > "$WORK/cluster.log" 2>&1 || { tail -20 "$WORK/cluster.log"; fail "cluster.sh start"; }
  n=$(sacctmgr -n -P show assoc cluster=oracle format=user | grep -c .)
  say "associations in slurmdbd: $n (users and accounts)"
  parts=(std big low)
  say "60 jobs for usage"
  for k in $(seq 0 59); do
    IFS=: read -r name acct <<< "${USERS[$k]}"
    sbatch -Q --uid="$name" --gid="$name" --account="$acct" --partition="${parts[$((k % 3))]}" \
      --cpus-per-task=$((1 + k % 8)) --mem=$((100 * (1 + k % 4))) --time=10 --chdir=/tmp --output=/dev/null \
      --wrap="sleep $((2 + k % 5))" > /dev/null || fail "sbatch"
  done
  sleep 3; wait_idle 600
  scontrol update NodeName=n1 State=DRAIN Reason=bench || fail "drain n1"
  queued=0
  for P in ${PS//,/ }; do
    say "queueing $((P - queued)) pending jobs ($P in all)"
    seq "$queued" $((P - 1)) | while read -r k; do
      IFS=: read -r name acct <<< "${USERS[$((k % 60))]}"
      echo "$name $acct ${parts[$((k % 3))]} $((1 + k % 16))"
    done | xargs -P 4 -L 1 sh -c 'sbatch -Q --uid="$0" --gid="$0" --account="$1" --partition="$2" --cpus-per-task="$3" --mem=100 --time=10 --chdir=/tmp --output=/dev/null --wrap=true > /dev/null' \
      || fail "sbatch of the pending jobs"
    queued=$P
    [ "$(squeue -h -t PD -o %i | wc -l)" = "$P" ] || fail "$(squeue -h -t PD -o %i | wc -l) jobs pending, not $P"
    # the fair-share factors of the usage at slurmctld's next pass
    say "waiting for slurmctld's next pass"
    wait_pass 400
    sleep 2
    since=$(date -u -d '-1 day' +%FT%T)
    sacct -a -P --duplicates -S "$since" -E now \
      --format=JobID,User,Account,Partition,QOS,AllocCPUS,ReqTRES,AllocTRES,Submit,Eligible,Start,End,State,NNodes,Cluster,Timelimit,JobIDRaw,DBIndex,AssocID,Suspended,Elapsed,ElapsedRaw,TimelimitRaw,Flags,Priority,ExitCode,ReqMem,NodeList \
      > "$WORK/sacct.txt" || fail "sacct"
    scontrol show config > "$WORK/config.txt"; scontrol show node > "$WORK/nodes.txt"
    sacctmgr show assoc tree -P format=Cluster,Account,User,Partition,Share,ParentName > "$WORK/assoc.txt"
    chmod 644 "$WORK"/*.txt
    psql_q -v dir="$WORK" -v pass="$(last_pass)" -f test/bench/slurm_load.sql > "$WORK/load_pg.log" || fail "slurm_load.sql"
    say "fairshare: $(tail -1 "$WORK/load_pg.log")"
    psql_q -c "CALL fairshare.checkpoint_usage('oracle')"
    # the seconds the checkpoint's factors hold for: until slurmctld's next pass
    left() { psql -X -At -c "SELECT floor(extract(epoch FROM max(valid_before) - now())) FROM fairshare.usage_checkpoint_factors"; }
    [ -n "$(left)" ] || fail "no fair-share factors cached with the checkpoint"
    say "the checkpoint's factors hold for $(left) s more"

    # 1. the same numbers on both sides
    sshare -a -l -P > "$WORK/sshare.slurm"
    psql -X -At -c "COPY ($SSHARE_SQL) TO STDOUT" > "$WORK/sshare.pg"
    cmp -s "$WORK/sshare.slurm" "$WORK/sshare.pg" \
      || { diff "$WORK/sshare.slurm" "$WORK/sshare.pg" | head; fail "sshare -a -l -P and sshare_at differ ($WORK)"; }
    sprio -l -h | awk '{print $1, $2, $3, $8, $9, $10}' | sort > "$WORK/sprio.slurm"
    psql -X -At -F ' ' -c "SELECT job_id, partition, user_name, fairshare, job_size, partition_prio FROM fairshare.sprio_at(now())" | sort > "$WORK/sprio.pg"
    [ "$(wc -l < "$WORK/sprio.slurm")" = "$P" ] || fail "sprio -l lists $(wc -l < "$WORK/sprio.slurm") jobs, not $P"
    cmp -s "$WORK/sprio.slurm" "$WORK/sprio.pg" \
      || { diff "$WORK/sprio.slurm" "$WORK/sprio.pg" | head; fail "sprio -l and sprio_at differ ($WORK)"; }
    say "equal: sshare's $(wc -l < "$WORK/sshare.slurm") lines byte for byte, sprio's FAIRSHARE, JOBSIZE, PARTITION of $P jobs"

    # 2. and 3. the times, inside the pass the checkpoint's factors hold for
    # what a fresh psql costs before any query: the same pairs, SELECT 1
    time_pairs empty "sprio -l" "SELECT 1"
    EMPTY=$P_MED
    sdiag -r > /dev/null
    time_pairs sprio "sprio -l" "$SPRIO_SQL"
    echo "$A|$P|sprio|$RATIO|$S_MED|$P_MED|$EMPTY|$(ctld_time REQUEST_PRIORITY_FACTORS)|$(pg_exec "$SPRIO_SQL")" >> "$RESULTS"
    if [ "$P" = "${PS%%,*}" ]; then
      sdiag -r > /dev/null
      time_pairs sshare "sshare -a -l -P" "$SSHARE_SQL"
      echo "$A|$P|sshare|$RATIO|$S_MED|$P_MED|$EMPTY|$(ctld_time REQUEST_SHARE_INFO)|$(pg_exec "$SSHARE_SQL")" >> "$RESULTS"
    fi
    # a pass during the timing would have made sprio_at compute the factors
    [ "$(left)" -gt 0 ] || fail "slurmctld's next pass came during the timing: run again"
    say "$(tail -2 "$RESULTS" | tr '\n' ' ')"
  done
done
bash test/slurm/cluster.sh stop < /dev/null > /dev/null 2>&1

echo
echo "| user associations | pending jobs | report | ratio (fairshare ÷ Slurm) | Slurm client, median ms | fairshare client (psql), median ms | psql -c 'SELECT 1', median ms | slurmctld's own time, ms | PostgreSQL execution, ms |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|"
sort -t'|' -k1,1n -k3,3r -k2,2n "$RESULTS" | awk -F'|' '{printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
echo "($PAIRS alternating pairs each; files in $WORK)"
