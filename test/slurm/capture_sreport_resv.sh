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
# The windows: all of it, [H, H + 4 h), and the part [H + 1 h, H + 3 h);
# sreport reservation Utilization also over [H + 3 h, H + 4 h) and [H, H + 1 h).
# The cluster's own event (its TRES) starts at H - 3600.
source "$(dirname "$0")/lib.sh"

begin sreport_resv
standard_tree

ids=()
ids+=("$(submit bob phys std 4 1G 2)"); wait_done "${ids[-1]}" 60
timeout 20 scontrol create reservation reservationname=r_chem accounts=chem nodes=n1 \
  starttime=now duration=60 > /dev/null || fail "r_chem reservation"
# (slurmdbd sometimes records a run of a reservation without it when the
# run starts the instant the one before ends: each is submitted a few
# seconds after the one before has ended)
for j in "alice 8 2G" "bob 16 4G" "alice 2 1G"; do
  read -r u c m <<< "$j"
  sleep 3
  ids+=("$(submit "$u" chem std "$c" "$m" 2 --reservation=r_chem)"); wait_done "${ids[-1]}" 60
done
wait_idle 60
timeout 20 scontrol delete reservationname=r_chem || fail "delete r_chem"
# slurmdbd gets the job records from slurmctld asynchronously
end=$((SECONDS + 60))
until [ "$("${SDBD[@]}" -e "SELECT count(*) FROM oracle_job_table WHERE id_resv <> 0 AND time_end <> 0")" = 3 ]; do
  [ $SECONDS -ge $end ] && fail "slurmdbd does not hold the 3 ended jobs of r_chem"; sleep 1
done

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
REROLL_SQL=$sql reroll $((H - 7200)) "$E"

export_window "$H" "$E"
rep_windows "$(date -u -d @$H +%FT%T)" "$(date -u -d @$E +%FT%T)" \
            "$(date -u -d @$((H + 3600)) +%FT%T)" "$(date -u -d @$((H + 3 * 3600)) +%FT%T)" \
            utilization acct_by_user user_by_acct top_usage sizes
# sreport reservation Utilization (docs/reports.md#sreport-reservation-utilization):
# r_chem over the whole window and the part; over [H + 3 h, E), which
# begins at r_chem's end (slurmdbd lists a reservation ending at the
# window's start), and [H, H + 1 h), which ends at its start (not listed);
# the TRES options (-T ALL, and -T mem, which r_chem does not hold), the
# other time units, and every field of its format= but Associations
iso() { date -u -d @"$1" +%FT%T; }
rs="start=$(iso "$H") end=$(iso "$E")"
# shellcheck disable=SC2086
{
  rep resv_all reservation Utilization $rs -t Seconds
  rep resv_part reservation Utilization start="$(iso $((H + 3600)))" end="$(iso $((H + 3 * 3600)))" -t Seconds
  rep resv_after reservation Utilization start="$(iso $((H + 3 * 3600)))" end="$(iso "$E")" -t Seconds
  rep resv_before reservation Utilization start="$(iso "$H")" end="$(iso $((H + 3600)))" -t Seconds
  rep resv_tres_all reservation Utilization $rs -T ALL -t Seconds
  rep resv_tres_mem reservation Utilization $rs -T mem -t Seconds
  rep resv_minutes reservation Utilization $rs
  rep resv_hours reservation Utilization $rs -t Hours
  rep resv_percent reservation Utilization $rs -t Percent
  rep resv_secper reservation Utilization $rs -t SecPer
  rep resv_minper reservation Utilization $rs -t MinPer
  rep resv_hourper reservation Utilization $rs -t HourPer
  rep resv_format reservation Utilization $rs \
      format=Cluster,Name,ReservationId,Start,End,TresName,TresCount,Allocated,Idle,TotalTime,TresTime,Nodes,Flags -t Seconds
}
{
  echo "jobs: ${ids[*]}"
  echo "ended: $(date -u +%s) $(date -u +%FT%TZ)"
  echo "duration_seconds: $((SECONDS - T0))"
} >> "$OUT/run.txt"
say "done in $((SECONDS - T0)) s"
