#!/usr/bin/env bash
# Scenario "sreport_runs": what the real sreport -P prints when a job was
# requeued, and when the report's window cuts runs.  The scenario "sreport"
# has neither.  sreport's cluster reports (Utilization,
# AccountUtilizationByUser, UserUtilizationByAccount, TopUsage) read
# slurmdbd's hourly rollups, which charge every run of a requeued job.
# job SizesByAccount reads slurmdbd's job table instead: every run whose
# time, cut to the window, is positive, each counted once by PrintJobCount
# (the run already running at the window's start too, and both runs of a
# requeued job).  This run of Slurm 22.05.8 showed it.
#
# As in capture_sreport.sh, real jobs are run, then back-dated in
# slurmdbd's MariaDB tables to fixed instants of the last five hours, and
# slurmdbd rolls those hours up again when it restarts.  Run as root:
#   bash test/slurm/capture_sreport_runs.sh          (under a minute)
#
# H is the hour that began five hours before the run; every instant is H
# plus seconds:
#   job  user/account  partition cpus  run  submit  eligible  start   end
#   1    alice/chem    std        4    -    0       0         300     5700
#   2    bob/phys      big       16    A    600     600       900     2700   requeued
#                                      B    2700    2820      4500    9000
#   3    carol/phys    std        2    -    7000    7000      7200    7800
#   4    alice/chem    low       40    A    8000    8000      8100    9900   requeued
#                                      B    9900    10020     14500   15000
# The windows: all of it, [H, H + 5 h), and the part [H + 1 h, H + 4 h),
# which cuts job 1, holds run B of job 2 whole and run A of job 4, and ends
# before run B of job 4 starts.
# The cluster's own event (its TRES) starts at H - 3600.
source "$(dirname "$0")/lib.sh"

begin sreport_runs
standard_tree
DB=(mysql --protocol=socket slurm_acct_db -N -B)

# requeue ID: requeue a running job, then make it eligible at once (Slurm
# holds a requeued job back for about two minutes otherwise)
requeue() {
  wait_state "$1" RUNNING 60
  sleep 2
  timeout 20 scontrol requeue "$1" || fail "requeue $1"
  sleep 1
  timeout 20 scontrol update jobid="$1" StartTime=now > /dev/null || fail "update $1 StartTime=now"
  wait_done "$1" 120
}

ids=()
ids+=("$(submit alice chem std 4 1G 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit bob phys big 16 4G 4)"); requeue "${ids[-1]}"
ids+=("$(submit carol phys std 2 1G 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit alice chem low 40 8G 4)"); requeue "${ids[-1]}"
wait_idle 60
sleep 3

now=$(date -u +%s)
H=$(( (now / 3600 - 5) * 3600 ))
E=$(( H + 5 * 3600 ))
say "back-dating to H = $H ($(date -u -d @$H +%FT%TZ))"
# job id -> the runs' "submit eligible start end", oldest first
declare -A T=(
  [1]="0 0 300 5700"
  [2]="600 600 900 2700;2700 2820 4500 9000"
  [3]="7000 7000 7200 7800"
  [4]="8000 8000 8100 9900;9900 10020 14500 15000")
sql=""
for i in 1 2 3 4; do
  id=${ids[$((i - 1))]}
  mapfile -t inx < <("${DB[@]}" -e "SELECT job_db_inx FROM oracle_job_table WHERE id_job=$id ORDER BY time_submit, job_db_inx")
  IFS=';' read -r -a runs <<< "${T[$i]}"
  [ "${#inx[@]}" = "${#runs[@]}" ] || fail "job $id has ${#inx[@]} rows in slurmdbd, expected ${#runs[@]}"
  for k in "${!runs[@]}"; do
    read -r s g b e <<< "${runs[$k]}"
    sql+="UPDATE oracle_job_table SET time_submit=$((H + s)), time_eligible=$((H + g)), time_start=$((H + b)), time_end=$((H + e)) WHERE job_db_inx=${inx[$k]};"
    sql+="UPDATE oracle_step_table SET time_start=$((H + b)), time_end=$((H + e)) WHERE job_db_inx=${inx[$k]};"
  done
done
sql+="UPDATE oracle_event_table SET time_start=$((H - 3600)) WHERE node_name='' AND time_end=0;"
for t in assoc_usage_hour assoc_usage_day assoc_usage_month usage_hour usage_day usage_month \
         wckey_usage_hour wckey_usage_day wckey_usage_month; do
  sql+="DELETE FROM oracle_${t}_table;"
done
sql+="DELETE FROM oracle_last_ran_table;"
sql+="INSERT INTO oracle_last_ran_table (hourly_rollup, daily_rollup, monthly_rollup) VALUES ($((H - 7200)), $((H - 7200)), $((H - 7200)));"
"${DB[@]}" -e "$sql" || fail "back-dating in MariaDB"

# slurmdbd rolls up when it starts: restart it and wait for the hours
kill "$(cat /run/slurmdbd.pid)" || fail "stop slurmdbd"
end=$((SECONDS + 60))
while kill -0 "$(cat /run/slurmdbd.pid 2>/dev/null)" 2>/dev/null; do
  [ $SECONDS -ge $end ] && fail "slurmdbd did not stop"; sleep 1
done
bash "$SLURM_DIR/cluster.sh" start < /dev/null > /dev/null || fail "cluster.sh start"
end=$((SECONDS + 120))
until [ "$("${DB[@]}" -e 'SELECT hourly_rollup FROM oracle_last_ran_table')" -ge "$E" ] 2>/dev/null; do
  [ $SECONDS -ge $end ] && fail "slurmdbd did not roll up to $E"; sleep 2
done
sleep 2
say "rolled up to $E"

S=$(date -u -d @$H +%FT%T)
ST=$(date -u -d @$E +%FT%T)
M=$(date -u -d @$((H + 3600)) +%FT%T)
MT=$(date -u -d @$((H + 4 * 3600)) +%FT%T)
{
  echo "H|$H|$S"
  echo "E|$E|$ST"
} > "$OUT/window.txt"
timeout 60 sacct -a -P --duplicates -S "$(date -u -d @$((H - 3600)) +%FT%T)" -E now \
  --format="$SACCT_FIELDS" > "$OUT/sacct.txt" || fail "sacct"
timeout 30 sacctmgr show event -P all_time \
  format=Cluster,ClusterNodes,Event,NodeName,TimeStart,TimeEnd,State,StateRaw,TRES,Reason,User > "$OUT/events.txt" || fail "sacctmgr show event"
timeout 30 sacctmgr show assoc tree -P format=Cluster,Account,User,Partition,Share,ParentName,ID,LFT,RGT,DefaultQOS,QOS > "$OUT/assoc.txt"

# sreport, each as one file named after its options; commands.txt lists them
n=0
rep() { # rep NAME ARGS...
  local name=$1; shift
  n=$((n + 1))
  echo "$name|sreport -P $*" >> "$OUT/commands.txt"
  timeout 60 sreport -P "$@" > "$OUT/$name.txt" 2>&1 || fail "sreport $*"
}
: > "$OUT/commands.txt"
for w in all part; do
  if [ $w = all ]; then a=$S; b=$ST; else a=$M; b=$MT; fi
  rep "utilization_$w" cluster Utilization start="$a" end="$b" -t Seconds
  rep "acct_by_user_$w" cluster AccountUtilizationByUser start="$a" end="$b" -t Seconds
  rep "user_by_acct_$w" cluster UserUtilizationByAccount start="$a" end="$b" -t Seconds
  rep "top_usage_$w" user TopUsage start="$a" end="$b" -t Seconds
  rep "sizes_$w" job SizesByAccount start="$a" end="$b" grouping=4,16,32 -t Seconds
  rep "sizes_count_$w" job SizesByAccount start="$a" end="$b" grouping=4,16,32 PrintJobCount
  rep "sizes_flat_count_$w" job SizesByAccount start="$a" end="$b" grouping=4,16,32 FlatView PrintJobCount
done
say "$n sreport outputs"
{
  echo "jobs: ${ids[*]}"
  echo "ended: $(date -u +%s) $(date -u +%FT%TZ)"
  echo "duration_seconds: $((SECONDS - T0))"
} >> "$OUT/run.txt"
say "done in $((SECONDS - T0)) s"
