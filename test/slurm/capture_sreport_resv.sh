#!/usr/bin/env bash
# Scenario "sreport_resv": what the real sreport -P prints when jobs ran in
# a reservation.  slurmdbd's hourly rollup counts a reservation's whole
# time as allocated, adds nothing of the runs in it to the cluster's
# allocated or planned time, charges the runs to their associations as any
# run, and splits what the runs left idle of the reservation (its
# TRES-seconds less the runs' TRES-seconds inside it) evenly over the
# reservation's associations.
#
# As in capture_sreport.sh, real jobs are run (three of them with
# --reservation), then back-dated in slurmdbd's MariaDB tables to fixed
# instants of the last four hours, and slurmdbd rolls those hours up again
# when it restarts.  Run as root:
#   bash test/slurm/capture_sreport_resv.sh          (under a minute)
#
# H is the hour that began four hours before the run; every instant is H
# plus seconds:
#   job  user/account  cpus  reservation  eligible  start   end
#   1    bob/phys        4   -            300       600     2400
#   2    alice/chem      8   r_chem       3700      4000    6000
#   3    bob/chem       16   r_chem       8800      9000    12600  (ends after r_chem)
#   4    alice/chem      2   r_chem       5000      7000    7200   (waited 2000 s)
#   reservation r_chem (accounts chem, 64 CPUs)  3600 .. 10800  (hours 1 and 2)
# The windows: all of it, [H, H + 4 h), and the part [H + 1 h, H + 3 h).
# The cluster's own event (its TRES) starts at H - 3600.
source "$(dirname "$0")/lib.sh"

begin sreport_resv
standard_tree
DB=(mysql --protocol=socket slurm_acct_db -N -B)

ids=()
ids+=("$(submit bob phys std 4 1G 2)"); wait_done "${ids[-1]}" 60
timeout 20 scontrol create reservation reservationname=r_chem accounts=chem nodes=n1 \
  starttime=now duration=10 > /dev/null || fail "r_chem reservation"
ids+=("$(submit alice chem std 8 2G 2 --reservation=r_chem)"); wait_done "${ids[-1]}" 60
ids+=("$(submit bob chem std 16 4G 2 --reservation=r_chem)"); wait_done "${ids[-1]}" 60
ids+=("$(submit alice chem std 2 1G 2 --reservation=r_chem)"); wait_done "${ids[-1]}" 60
wait_idle 60
timeout 20 scontrol delete reservationname=r_chem || fail "delete r_chem"
sleep 3

now=$(date -u +%s)
H=$(( (now / 3600 - 4) * 3600 ))
E=$(( H + 4 * 3600 ))
say "back-dating to H = $H ($(date -u -d @$H +%FT%TZ))"
# job id -> submit eligible start end
declare -A T=(
  [1]="300 300 600 2400" [2]="3700 3700 4000 6000" [3]="8800 8800 9000 12600" [4]="5000 5000 7000 7200")
sql=""
for i in 1 2 3 4; do
  read -r s g b e <<< "${T[$i]}"
  id=${ids[$((i - 1))]}
  sql+="UPDATE oracle_job_table SET time_submit=$((H + s)), time_eligible=$((H + g)), time_start=$((H + b)), time_end=$((H + e)) WHERE id_job=$id;"
  sql+="UPDATE oracle_step_table st JOIN oracle_job_table j ON j.job_db_inx = st.job_db_inx SET st.time_start=$((H + b)), st.time_end=$((H + e)) WHERE j.id_job=$id;"
done
sql+="UPDATE oracle_event_table SET time_start=$((H - 3600)) WHERE node_name='' AND time_end=0;"
sql+="UPDATE oracle_resv_table SET time_start=$((H + 3600)), time_end=$((H + 10800)), unused_wall=0 WHERE resv_name='r_chem';"
for t in assoc_usage_hour assoc_usage_day assoc_usage_month usage_hour usage_day usage_month \
         wckey_usage_hour wckey_usage_day wckey_usage_month; do
  sql+="DELETE FROM oracle_${t}_table;"
done
sql+="DELETE FROM oracle_last_ran_table;"
sql+="INSERT INTO oracle_last_ran_table (hourly_rollup, daily_rollup, monthly_rollup) VALUES ($((H - 7200)), $((H - 7200)), $((H - 7200)));"
"${DB[@]}" -e "$sql" || fail "back-dating in MariaDB"
n_resv=$("${DB[@]}" -e "SELECT count(*) FROM oracle_job_table WHERE id_resv <> 0")
[ "$n_resv" = 3 ] || fail "slurmdbd holds $n_resv jobs with a reservation, expected 3"

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
MT=$(date -u -d @$((H + 3 * 3600)) +%FT%T)
{
  echo "H|$H|$S"
  echo "E|$E|$ST"
} > "$OUT/window.txt"
timeout 60 sacct -a -P --duplicates -S "$(date -u -d @$((H - 3600)) +%FT%T)" -E now \
  --format="$SACCT_FIELDS" > "$OUT/sacct.txt" || fail "sacct"
timeout 30 sacctmgr show event -P all_time \
  format=Cluster,ClusterNodes,Event,NodeName,TimeStart,TimeEnd,State,StateRaw,TRES,Reason,User > "$OUT/events.txt" || fail "sacctmgr show event"
timeout 30 sacctmgr show reservation -P start=2000-01-01T00:00:00 \
  format=Cluster,Name,ID,TRES,TimeStart,TimeEnd,Flags,NodeNames,UnusedWall,Associations > "$OUT/reservations.txt" || fail "sacctmgr show reservation"
timeout 30 sacctmgr show assoc tree -P format=Cluster,Account,User,Partition,Share,ParentName,ID,LFT,RGT,DefaultQOS,QOS > "$OUT/assoc.txt"

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
done
say "$n sreport outputs"
{
  echo "jobs: ${ids[*]}"
  echo "ended: $(date -u +%s) $(date -u +%FT%TZ)"
  echo "duration_seconds: $((SECONDS - T0))"
} >> "$OUT/run.txt"
say "done in $((SECONDS - T0)) s"
