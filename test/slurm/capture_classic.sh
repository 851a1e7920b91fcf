#!/usr/bin/env bash
# Scenario "classic": PriorityFlags=NO_FAIR_TREE (the
# classic fairshare algorithm), no decay.  A few jobs of three users in two
# accounts, three jobs pending in the down partition "parked" (for sprio),
# one capture after a pass.  Writes test/fixtures/slurm/classic/.  About 2
# minutes.
#   sudo bash test/slurm/capture_classic.sh
cd "$(dirname "$0")/../.." || exit 1
export FS_FLAGS=NO_FAIR_TREE FS_HALFLIFE=0
source test/slurm/lib.sh
begin classic
standard_tree

j1=$(submit alice chem std 2 4G 30)
j2=$(submit bob chem big 1 2G 20)
j3=$(submit bob phys std 4 2G 25)
j4=$(submit carol phys low 8 8G 40)
pend=$(submit carol phys parked 2 2G 10)
pend2=$(submit alice chem parked 1 1G 10)
pend3=$(submit bob phys parked 8 8G 10)
wait_idle 120 "$pend" "$pend2" "$pend3"
wait_pass 90
capture "every job ended, after a pass ($pend $pend2 $pend3 pending in the down partition)"
echo "jobs: $j1 $j2 $j3 $j4 pending=$pend,$pend2,$pend3" >> "$OUT/run.txt"
finish
