#!/usr/bin/env bash
# Scenario "reset": PriorityUsageResetPeriod, in two
# runs, each from a fresh cluster.  Writes test/fixtures/slurm/reset_now/ and
# test/fixtures/slurm/reset_daily/.  About 12 minutes in all.
#   sudo bash test/slurm/capture_reset.sh [now|daily]
#
# reset_now: no decay, PriorityUsageResetPeriod=NOW.  slurmctld zeroes usage
#   at the first decay pass after it starts and after each `scontrol
#   reconfigure` (on 22.05; from Slurm 23.11 a reconfigure restarts
#   slurmctld, which zeroes it at once and passes from then on:
#   docs/slurm.md#scontrol-reconfigure-restarts-slurmctld).  Jobs charge
#   usage, `scontrol reconfigure` while a job runs, captures before and
#   after the pass that resets.
# reset_daily: decay (half-life 10 minutes), PriorityUsageResetPeriod=DAILY.
#   A daily reset happens at slurmctld's local midnight; slurmctld runs with a
#   TZ whose midnight falls about 4 minutes after it starts (FS_CTLD_TZ), so
#   its log prints that local time.  A job ends before midnight, one runs
#   across it, one runs after it.
# Both leave two jobs pending in the down partition "parked", for sprio.
cd "$(dirname "$0")/../.." || exit 1
# (SLURM_VERSION=24.11: lib.sh runs this whole script in trixie.sh's root)
source test/slurm/lib.sh
only=${1:-}

if [ -z "$only" ] || [ "$only" = now ]; then
(
  export FS_HALFLIFE=0 FS_RESET_PERIOD=NOW
  source test/slurm/lib.sh
  begin reset_now
  standard_tree
  short=$(submit alice chem std 2 4G 20)
  long=$(submit carol phys big 4 2G 200)
  p1=$(submit alice chem parked 1 1G 10)
  p2=$(submit carol phys parked 2 2G 10)
  wait_done "$short" 60
  wait_pass 90
  sleep 5
  capture "before the reset"
  say "scontrol reconfigure"
  timeout 60 scontrol reconfigure || fail "scontrol reconfigure"
  echo "reconfigure: $(date -u +%s) $(date -u +%FT%TZ)" >> "$OUT/run.txt"
  sleep 5
  capture "after scontrol reconfigure, before the next pass"
  wait_pass 90
  sleep 5
  capture "after the first pass after the reconfigure (the reset pass)"
  late=$(submit bob chem std 1 2G 20)
  wait_done "$long" 240
  wait_done "$late" 60
  wait_pass 90
  capture "every job ended, after a pass"
  echo "jobs: short=$short long=$long late=$late pending=$p1,$p2" >> "$OUT/run.txt"
  finish
) || exit 1
fi

if [ -z "$only" ] || [ "$only" = daily ]; then
(
  # local midnight of slurmctld: the first whole minute 4 minutes from now
  now=$(date -u +%s)
  midnight=$(( (now + 240 + 59) / 60 * 60 ))
  off=$(( (86400 - midnight % 86400) % 86400 ))   # local time = UTC + off
  if [ $off -le 43200 ]; then sign=-; abs=$off; else sign=+; abs=$((86400 - off)); fi
  tz=$(printf 'FSR%s%02d:%02d' $sign $((abs / 3600)) $((abs % 3600 / 60)))
  export FS_HALFLIFE=0-0:10:00 FS_RESET_PERIOD=DAILY FS_CTLD_TZ=$tz
  source test/slurm/lib.sh
  begin reset_daily
  {
    echo "slurmctld TZ: $tz (POSIX: local time = UTC $( [ $sign = - ] && echo + || echo - ) $((abs / 3600))h$((abs % 3600 / 60))m)"
    echo "local midnight: $midnight $(date -u -d @$midnight +%FT%TZ)"
  } >> "$OUT/run.txt"
  standard_tree
  short=$(submit alice chem std 2 4G 20)
  long=$(submit carol phys big 4 2G $((midnight - $(date -u +%s) + 100)))
  p1=$(submit alice chem parked 1 1G 10)
  p2=$(submit carol phys parked 2 2G 10)
  wait_done "$short" 60
  # after the last pass before midnight
  while [ $(( $(date -u +%s) + 8 )) -lt $midnight ]; do sleep 1; done
  capture "before local midnight"
  while [ "$(date -u +%s)" -lt $midnight ]; do sleep 1; done
  say "local midnight of slurmctld"
  sleep 2
  capture "just after local midnight, before the next pass"
  wait_pass 90
  capture "after the first pass after midnight (the reset pass)"
  late=$(submit bob chem std 1 2G 20)
  wait_done "$late" 60
  sleep 3
  capture "after a job that ran after midnight ended"
  wait_done "$long" 200
  wait_pass 90
  capture "every job ended, after a pass"
  echo "jobs: short=$short long=$long late=$late pending=$p1,$p2" >> "$OUT/run.txt"
  finish
) || exit 1
fi
