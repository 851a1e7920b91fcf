#!/usr/bin/env bash
# Scenario "tree_change": the account tree and a share change between two
# sshare snapshots, as time travel must answer them (docs/slurm.md#the-tree-changes).
# Fair Tree, no decay, so that every difference between the snapshots
# comes from the tree.  The standard tree plus an account bio (Fairshare=1)
# under chem, with dave (Fairshare=1); jobs of every association; then
#   capture 1  every job ended, after a pass;
#   change     bio moved from chem to phys (sacctmgr modify account bio set
#              parent=phys), carol's share in phys from 3 to 1 (sacctmgr
#              modify user carol where account=phys set fairshare=1), each
#              bracketed by its epoch in changes.txt;
#   capture 2  as soon as slurmctld holds both changes (before a pass);
#   capture 3  after the next pass.
# Besides the usual files: changes.txt (each change with the epochs before
# and after it), txn.txt (sacctmgr show transaction: what slurmdbd recorded
# of the changes), assoc_table.txt (slurmdbd's association table, every
# column, mod_time included, from MariaDB).  About 2 minutes.
#   sudo bash test/slurm/capture_tree_change.sh
cd "$(dirname "$0")/../.." || exit 1
export FS_HALFLIFE=0
source test/slurm/lib.sh
begin tree_change
standard_tree
users dave
acctmgr add account bio Parent=chem Fairshare=1 Description=bio Organization=lab
acctmgr add user dave Account=bio Fairshare=1 DefaultAccount=bio
wait_assoc dave

j1=$(submit alice chem std 2 2G 30)
j2=$(submit bob phys std 4 2G 25)
j3=$(submit carol phys low 8 4G 40)
j4=$(submit dave bio std 4 2G 20)
pend=$(submit dave bio parked 2 1G 10)
pend2=$(submit carol phys parked 1 1G 10)
wait_idle 120 "$pend" "$pend2"
wait_pass 90
capture "every job ended, after a pass; bio under chem, carol's share 3"

# the changes, each between two epochs
{
  echo "# change|epoch_before|epoch_after|command"
  b=$(date -u +%s.%N)
  acctmgr modify account bio set Parent=phys
  echo "move|$b|$(date -u +%s.%N)|sacctmgr -i modify account bio set Parent=phys"
  b=$(date -u +%s.%N)
  acctmgr modify user carol where account=phys set Fairshare=1
  echo "share|$b|$(date -u +%s.%N)|sacctmgr -i modify user carol where account=phys set Fairshare=1"
} > "$OUT/changes.txt"
say "changes made: $(tail -n +2 "$OUT/changes.txt" | cut -d'|' -f1 | tr '\n' ' ')"
# slurmctld learns of them from slurmdbd asynchronously
end=$((SECONDS + 30))
until timeout 20 scontrol show assoc_mgr accounts=bio flags=assoc 2>/dev/null | grep -q 'ParentAccount=phys' \
   && timeout 20 scontrol show assoc_mgr users=carol accounts=phys flags=assoc 2>/dev/null | grep -q 'SharesRaw/Norm/Level/Factor=1/'; do
  [ $SECONDS -ge $end ] && fail "slurmctld did not get the changes"
  sleep 1
done
capture "slurmctld holds both changes, before the next pass"
wait_pass 90
capture "after the next pass"

timeout 30 sacctmgr show transaction -P withassoc > "$OUT/txn.txt" 2>&1
# (every column: 22.05 keeps the tree in parent_acct and lft/rgt, 24.11 in
# id_parent and lineage)
mysql --protocol=socket slurm_acct_db -B -e \
  "SELECT * FROM oracle_assoc_table ORDER BY id_assoc" > "$OUT/assoc_table.txt" 2>&1 || fail "the association table"
echo "jobs: $j1 $j2 $j3 $j4 pending=$pend,$pend2" >> "$OUT/run.txt"
finish
