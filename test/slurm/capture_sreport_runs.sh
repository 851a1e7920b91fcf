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
  mapfile -t inx < <("${SDBD[@]}" -e "SELECT job_db_inx FROM oracle_job_table WHERE id_job=$id ORDER BY time_submit, job_db_inx")
  IFS=';' read -r -a runs <<< "${T[$i]}"
  [ "${#inx[@]}" = "${#runs[@]}" ] || fail "job $id has ${#inx[@]} rows in slurmdbd, expected ${#runs[@]}"
  for k in "${!runs[@]}"; do
    read -r s g b e <<< "${runs[$k]}"
    sql+="UPDATE oracle_job_table SET time_submit=$((H + s)), time_eligible=$((H + g)), time_start=$((H + b)), time_end=$((H + e)) WHERE job_db_inx=${inx[$k]};"
    sql+="UPDATE oracle_step_table SET time_start=$((H + b)), time_end=$((H + e)) WHERE job_db_inx=${inx[$k]};"
  done
done
sql+="UPDATE oracle_event_table SET time_start=$((H - 3600)) WHERE node_name='' AND time_end=0;"
REROLL_SQL=$sql reroll $((H - 7200)) "$E"

export_window "$H" "$E"
rep_windows "$(date -u -d @$H +%FT%T)" "$(date -u -d @$E +%FT%T)" \
            "$(date -u -d @$((H + 3600)) +%FT%T)" "$(date -u -d @$((H + 4 * 3600)) +%FT%T)" \
            utilization acct_by_user user_by_acct top_usage sizes sizes_count sizes_flat_count
{
  echo "jobs: ${ids[*]}"
  echo "ended: $(date -u +%s) $(date -u +%FT%TZ)"
  echo "duration_seconds: $((SECONDS - T0))"
} >> "$OUT/run.txt"
say "done in $((SECONDS - T0)) s"
