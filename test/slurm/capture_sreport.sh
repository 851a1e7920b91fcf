#!/usr/bin/env bash
# Scenario "sreport": what the real sreport -P prints over hours
# that have passed, with jobs, a drained node and two reservations in them.
#
# slurmdbd rolls its usage up at the hour, from its own tables.  To report
# on past hours the scenario runs short real jobs, creates real events and
# reservations, and then back-dates them in slurmdbd's MariaDB tables to
# fixed instants of the last eight hours (the table below), wipes the usage
# tables and the instants of the last rollups, and restarts slurmdbd, which
# rolls every hour since up again from the back-dated rows.  Then sacct,
# sacctmgr show event/reservation and sreport print what fairshare is
# compared with (sql/sreport.sql).  Run as root: bash test/slurm/capture_sreport.sh
#
# H is the hour that began eight hours before the run; every instant is H
# plus seconds:
#   job  user/account  partition cpus  start    end      (hours it covers)
#   1    alice/chem    std        4    +300     +5700    0, 1
#   2    bob/chem      std        8    +1800    +2400    0
#   3    bob/phys      big       16    +4000    +11200   1, 2, 3
#   4    carol/phys    std        2    +7300    +7400    2
#   5    carol/phys    low       40    +10800   +16834   3, 4
#   6    alice/chem    std        1    +18060   +18660   5
#   7    carol/phys    std        2    eligible +20000, cancelled +20600 (never ran)
#   node n1 drained      +22200 .. +24000  (hour 6, 1800 s)
#   reservation maint (MAINT, users root)   +19800 .. +20700  (hour 5, 900 s)
#   reservation r_phys (accounts phys)      +25200 .. +27000  (hour 7, 1800 s)
# The cluster's own event (its TRES) starts at H - 3600.
source "$(dirname "$0")/lib.sh"

begin sreport
standard_tree
DB=(mysql --protocol=socket slurm_acct_db -N -B)

# the jobs, run for real (2 s each), one at a time
ids=()
ids+=("$(submit alice chem std 4 1G 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit bob chem std 8 2G 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit bob phys big 16 4G 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit carol phys std 2 1G 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit carol phys low 40 8G 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit alice chem std 1 500M 2)"); wait_done "${ids[-1]}" 60
ids+=("$(submit carol phys std 2 1G 2 --begin=now+3600)")
sleep 2
timeout 20 scancel "${ids[-1]}" || fail "scancel"
wait_idle 60

# a node event and two reservations, real
timeout 20 scontrol update nodename=n1 state=drain reason=fs_capture || fail "drain"
sleep 3
timeout 20 scontrol update nodename=n1 state=resume || fail "resume"
# each active for a few seconds (a reservation deleted before it starts
# leaves no row in slurmdbd)
timeout 20 scontrol create reservation reservationname=maint users=root nodes=n1 flags=maint \
  starttime=now duration=15 > /dev/null || fail "maint reservation"
sleep 3
timeout 20 scontrol delete reservationname=maint || fail "delete maint"
timeout 20 scontrol create reservation reservationname=r_phys accounts=phys nodes=n1 \
  starttime=now duration=30 > /dev/null || fail "r_phys reservation"
sleep 3
timeout 20 scontrol delete reservationname=r_phys || fail "delete r_phys"
sleep 5

now=$(date -u +%s)
H=$(( (now / 3600 - 8) * 3600 ))
E=$(( H + 8 * 3600 ))
say "back-dating to H = $H ($(date -u -d @$H +%FT%TZ))"
# job id -> submit start end
declare -A T=(
  [1]="0 300 5700" [2]="1000 1800 2400" [3]="3600 4000 11200" [4]="7000 7300 7400"
  [5]="10000 10800 16834" [6]="18000 18060 18660")
sql=""
for i in 1 2 3 4 5 6; do
  read -r s b e <<< "${T[$i]}"
  id=${ids[$((i - 1))]}
  sql+="UPDATE oracle_job_table SET time_submit=$((H + s)), time_eligible=$((H + s)), time_start=$((H + b)), time_end=$((H + e)) WHERE id_job=$id;"
  sql+="UPDATE oracle_step_table st JOIN oracle_job_table j ON j.job_db_inx = st.job_db_inx SET st.time_start=$((H + b)), st.time_end=$((H + e)) WHERE j.id_job=$id;"
done
id=${ids[6]}
sql+="UPDATE oracle_job_table SET time_submit=$((H + 19990)), time_eligible=$((H + 20000)), time_start=0, time_end=$((H + 20600)) WHERE id_job=$id;"
sql+="UPDATE oracle_event_table SET time_start=$((H - 3600)) WHERE node_name='' AND time_end=0;"
sql+="UPDATE oracle_event_table SET time_start=$((H + 22200)), time_end=$((H + 24000)) WHERE node_name='n1';"
sql+="UPDATE oracle_resv_table SET time_start=$((H + 19800)), time_end=$((H + 20700)) WHERE resv_name='maint';"
sql+="UPDATE oracle_resv_table SET time_start=$((H + 25200)), time_end=$((H + 27000)) WHERE resv_name='r_phys';"
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
timeout 30 sacctmgr show reservation -P start=2000-01-01T00:00:00 \
  format=Cluster,Name,ID,TRES,TimeStart,TimeEnd,Flags,NodeNames,UnusedWall,Associations > "$OUT/reservations.txt" || fail "sacctmgr show reservation"
timeout 30 sacctmgr show assoc tree -P format="$ASSOC_FIELDS" > "$OUT/assoc.txt"

# sreport, each as one file named after its options; commands.txt lists them
n=0
rep() { # rep NAME ARGS...
  local name=$1; shift
  n=$((n + 1))
  echo "$name|sreport -P $*" >> "$OUT/commands.txt"
  timeout 60 sreport -P "$@" > "$OUT/$name.txt" 2>&1 || fail "sreport $*"
}
: > "$OUT/commands.txt"
for t in Minutes Hours Seconds Percent; do
  rep "utilization_$t" cluster Utilization start="$S" end="$ST" -t "$t"
  rep "acct_by_user_$t" cluster AccountUtilizationByUser start="$S" end="$ST" -t "$t"
  rep "user_by_acct_$t" cluster UserUtilizationByAccount start="$S" end="$ST" -t "$t"
  rep "top_usage_$t" user TopUsage start="$S" end="$ST" -t "$t"
  rep "sizes_$t" job SizesByAccount start="$S" end="$ST" grouping=4,16,32 -t "$t"
done
rep utilization_tres cluster Utilization start="$S" end="$ST" -T cpu,mem,billing
rep acct_by_user_tres cluster AccountUtilizationByUser start="$S" end="$ST" -T cpu,mem,node,billing
rep user_by_acct_tres cluster UserUtilizationByAccount start="$S" end="$ST" -T cpu,mem,node,billing
rep top_usage_tres user TopUsage start="$S" end="$ST" -T cpu,mem,node,billing
rep utilization_part cluster Utilization start="$M" end="$MT"
rep acct_by_user_part cluster AccountUtilizationByUser start="$M" end="$MT"
rep sizes_part job SizesByAccount start="$M" end="$MT" grouping=4,16,32
rep sizes_accounts job SizesByAccount start="$S" end="$ST" grouping=4,16,32 accounts=chem,phys
rep sizes_flat job SizesByAccount start="$S" end="$ST" grouping=4,16,32 FlatView
rep sizes_count job SizesByAccount start="$S" end="$ST" grouping=4,16,32 PrintJobCount
# the options fairshare's reports were checked against afterwards (-T ALL
# and energy, TresCount and OverCommitted, TopUsage group, tree,
# Accounts=, grouping=individual)
rep utilization_all cluster Utilization start="$S" end="$ST" -T ALL
rep utilization_energy cluster Utilization start="$S" end="$ST" -T energy -t Seconds
rep utilization_format cluster Utilization start="$S" end="$ST" -T cpu,mem,billing -t Seconds \
  format=Cluster,TresName,TresCount,Allocated,Down,PlannedDown,Idle,OverCommitted,Planned,Reported
rep utilization_format_part cluster Utilization start="$M" end="$MT" -t Percent \
  format=Cluster,TresCount,Allocated,OverCommitted,Reported
rep acct_by_user_all cluster AccountUtilizationByUser start="$S" end="$ST" -T ALL -t Seconds
rep top_usage_group user TopUsage start="$S" end="$ST" group
rep top_usage_group_tres user TopUsage start="$S" end="$ST" group -T cpu,mem
rep acct_by_user_tree cluster AccountUtilizationByUser start="$S" end="$ST" tree
rep acct_by_user_treetres cluster AccountUtilizationByUser start="$S" end="$ST" tree -T cpu,billing
rep acct_by_user_accounts cluster AccountUtilizationByUser start="$S" end="$ST" accounts=phys
rep acct_by_user_acctree cluster AccountUtilizationByUser start="$S" end="$ST" accounts=phys tree
rep sizes_individual job SizesByAccount start="$S" end="$ST" grouping=individual -t Seconds
rep sizes_individual_count job SizesByAccount start="$S" end="$ST" grouping=individual PrintJobCount
say "$n sreport outputs"
timeout 30 scontrol show node > "$OUT/nodes.txt" || fail "scontrol show node"
{
  echo "ended: $(date -u +%s) $(date -u +%FT%TZ)"
  echo "duration_seconds: $((SECONDS - T0))"
} >> "$OUT/run.txt"
say "done in $((SECONDS - T0)) s"
