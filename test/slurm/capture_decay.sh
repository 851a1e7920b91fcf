#!/usr/bin/env bash
# Scenario "decay" (pass-by-pass decay): Fair Tree,
# PriorityDecayHalfLife=10 minutes, PriorityCalcPeriod=1 minute.  A job that
# ends between two passes, jobs that run across several passes, one still
# running at two captures, two jobs pending in the down partition "parked"
# (for sprio), captures between passes and one right after a pass.  Writes
# test/fixtures/slurm/decay/.  About 9 minutes.
#   sudo bash test/slurm/capture_decay.sh
cd "$(dirname "$0")/../.." || exit 1
export FS_HALFLIFE=0-0:10:00 FS_CALC_PERIOD=1
source test/slurm/lib.sh
begin decay
standard_tree

short=$(submit alice chem std 2 4G 25)
across=$(submit bob chem big 4 2G 150)
long=$(submit carol phys std 1 2G 330)
pend=$(submit alice chem parked 1 1G 10)
pend2=$(submit carol phys parked 4 4G 10)
wait_pass 90
late=$(submit bob phys low 8 8G 40)
sleep 20
capture "between passes, 20 s after one"
wait_done "$late" 120
sleep 50
capture "50 s after $late ended"
wait_done "$long" 300
sleep 5
capture "between passes, just after $long ended"
wait_pass 90
capture "right after one more pass: decay only"
echo "jobs: short=$short across=$across long=$long late=$late pending=$pend,$pend2" >> "$OUT/run.txt"
finish
