#!/usr/bin/env bash
# Scenario "history" (job identity): Fair Tree, no decay, job ids
# from 1 below MaxJobId=10 so they wrap and are reused, one job requeued once,
# one requeued twice, one suspended then resumed, plain jobs of three users in
# two accounts, two jobs left pending in the down partition "parked".
# Writes test/fixtures/slurm/history/.  About 7 minutes.
#   sudo bash test/slurm/capture_history.sh
cd "$(dirname "$0")/../.." || exit 1
export FS_HALFLIFE=0 FS_FIRST_JOB_ID=1 FS_MAX_JOB_ID=10 FS_MIN_JOB_AGE=2
source test/slurm/lib.sh
begin history
standard_tree

# batch A
a1=$(submit alice chem std 2 4G 20)
a2=$(submit bob chem std 1 2G 30)
twice=$(submit carol phys big 4 2G 40)
once=$(submit alice chem std 2 2G 60)
susp=$(submit bob phys low 8 8G 90)
a6=$(submit carol phys std 1 1G 10)
for j in $twice $once $susp; do wait_state "$j" RUNNING 30; done
sleep 12
say "requeue $twice (1st)"; scontrol requeue "$twice" || fail "requeue $twice"
sleep 5
say "requeue $once"; scontrol requeue "$once" || fail "requeue $once"
say "suspend $susp"; scontrol suspend "$susp" || fail "suspend $susp"
sleep 10
# batch B: uses up the last ids
b1=$(submit alice chem std 1 1G 15)
b2=$(submit carol phys std 2 2G 15)
b3=$(submit bob chem big 1 1G 15)
sleep 20
say "resume $susp"; scontrol resume "$susp" || fail "resume $susp"
# batch C: ids wrap; wait until slurmctld purged the first finished jobs
# (MinJobAge=2, the purge runs about once a minute)
end=$((SECONDS + 150))
until [ -z "$(job_state "$a1")" ] && [ -z "$(job_state "$a2")" ]; do
  [ $SECONDS -ge $end ] && fail "jobs $a1 $a2 not purged from slurmctld"
  sleep 2
done
c1=$(submit alice chem std 2 4G 20)
c2=$(submit bob phys std 1 2G 20)
c3=$(submit carol phys big 2 2G 20)
c4=$(submit bob chem low 4 4G 20)
# the twice-requeued job's second run: requeue it again after a few seconds
wait_state "$twice" RUNNING 200
sleep 12
say "requeue $twice (2nd)"; scontrol requeue "$twice" || fail "requeue $twice"
sleep 3
capture "job $twice pending after its second requeue; job $once in its second run"
# batch D: more reuse
end=$((SECONDS + 150))
until [ -z "$(job_state "$b1")" ] && [ -z "$(job_state "$b2")" ]; do
  [ $SECONDS -ge $end ] && fail "jobs $b1 $b2 not purged from slurmctld"
  sleep 2
done
d1=$(submit carol phys std 4 4G 10)
d2=$(submit alice chem big 1 1G 10)
# pending in the down partition, for sprio
p1=$(submit bob chem parked 2 2G 10)
p2=$(submit carol phys parked 1 1G 10)
wait_idle 300 "$p1" "$p2"
wait_pass 90
capture "every job ended, after a pass; $p1 $p2 pending in the down partition"
{
  echo "jobs: a1=$a1 a2=$a2 requeued_twice=$twice requeued_once=$once suspended=$susp a6=$a6"
  echo "jobs: b1=$b1 b2=$b2 b3=$b3 c1=$c1 c2=$c2 c3=$c3 c4=$c4 d1=$d1 d2=$d2 pending=$p1,$p2"
} >> "$OUT/run.txt"
finish
