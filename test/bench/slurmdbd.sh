#!/usr/bin/env bash
# The live feed's speed (docs/performance.md#the-slurmdbd-feed):
# N new finished jobs in slurmdbd (default 10^5), brought in by CALL
# fairshare.sync_slurmdbd, as a ratio to import_sacct of the same jobs as
# `sacct -a -P --duplicates` exports them (stage + \copy + import), the
# baseline, measured in the same run, alternately, BENCH_REPS rounds
# (default 3), medians.  Not part of the suite.
#
# Needs root, the real cluster of test/slurm/cluster.sh (started here if it
# is not running) and a PostgreSQL the PG* variables name, with mysql_fdw:
#   bash test/slurm/cluster.sh start
#   PGHOST=... PGPORT=... bash test/bench/slurmdbd.sh
# The jobs are written into slurmdbd's MariaDB table directly (INSERT ...
# SELECT from MariaDB's sequence engine), as N runs of the three users of
# the standard tree of test/slurm/lib.sh, each 60 to 3600 s long; sacct then
# exports them through slurmdbd, as it would real jobs.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${BENCH_JOBS:-100000}
REPS=${BENCH_REPS:-3}
export TZ=UTC LC_ALL=C PGTZ=UTC
source test/slurm/lib.sh
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 "$@"; }
now_ms() { date +%s%3N; }
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
bash test/slurm/cluster.sh fresh > /dev/null
# read by the functions of test/slurm/lib.sh
# shellcheck disable=SC2034
SCENARIO=bench T0=$SECONDS
standard_tree
mysql --protocol=socket <<'SQL'
CREATE USER IF NOT EXISTS 'fairshare_ro'@'127.0.0.1' IDENTIFIED BY 'fairshare_ro';
GRANT SELECT ON slurm_acct_db.* TO 'fairshare_ro'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL
# N finished runs, ids from 1000000, submitted over the last 30 days
t0=$(( $(date +%s) - 30 * 86400 ))
mysql --protocol=socket slurm_acct_db <<SQL
SET SESSION sql_mode = '';
INSERT INTO oracle_job_table (mod_time, account, id_job, id_assoc, id_user, id_group, \`partition\`, state,
    time_submit, time_eligible, time_start, time_end, timelimit, nodes_alloc, cpus_req, tres_alloc, tres_req,
    job_name, work_dir, nodelist, node_inx)
SELECT UNIX_TIMESTAMP(), a.acct, 1000000 + s.seq, a.id_assoc, 0, 0, 'std', 3,
       $t0 + s.seq * 20, $t0 + s.seq * 20, $t0 + s.seq * 20 + 5, $t0 + s.seq * 20 + 5 + 60 + (s.seq * 37) % 3540,
       60, 1, 1 + s.seq % 8,
       CONCAT('1=', 1 + s.seq % 8, ',2=', 1024 * (1 + s.seq % 4), ',4=1,5=', 1 + s.seq % 8 + (1 + s.seq % 4) DIV 2),
       CONCAT('1=', 1 + s.seq % 8, ',2=', 1024 * (1 + s.seq % 4), ',4=1,5=', 1 + s.seq % 8 + (1 + s.seq % 4) DIV 2),
       'bench', '/tmp', 'n1', '0'
  FROM seq_1_to_$N s
  JOIN (SELECT id_assoc, acct, ROW_NUMBER() OVER (ORDER BY id_assoc) - 1 AS k
          FROM oracle_assoc_table WHERE user IN ('alice', 'bob', 'carol') AND deleted = 0) a
    ON a.k = s.seq % 4;
SQL
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date -u -d @"$((t0 - 3600))" +%FT%T)
ms0=$(now_ms)
timeout 600 sacct -a -P --duplicates -S "$start" -E now --format="$SACCT_FIELDS" > "$out/sacct.txt"
echo "sacct export: $(( $(wc -l < "$out/sacct.txt") - 1 )) lines in $(( $(now_ms) - ms0 )) ms"

for db in fs_bench_feed fs_bench_sacct; do
  dropdb --if-exists $db; createdb $db
  q -d $db <<'SQL'
CREATE EXTENSION fairshare;
INSERT INTO fairshare.clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, cores_per_node, mem_per_node_mb) VALUES
  ('oracle', 'std', 'CPU=1.0,Mem=0.5G', 64, 256000);
SQL
done
q -d fs_bench_feed <<'SQL'
CREATE EXTENSION mysql_fdw;
CREATE SERVER slurmdbd FOREIGN DATA WRAPPER mysql_fdw OPTIONS (host '127.0.0.1', port '3306');
CREATE USER MAPPING FOR CURRENT_USER SERVER slurmdbd OPTIONS (username 'fairshare_ro', password 'fairshare_ro');
SELECT FROM fairshare.slurmdbd_connect('oracle', 'slurmdbd');
SQL
# the tree once, both sides (the sacct side from the feed's)
q -d fs_bench_feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2>/dev/null
q -d fs_bench_feed -c "COPY fairshare.accounts TO STDOUT" | q -d fs_bench_sacct -c "COPY fairshare.accounts FROM STDIN"
q -d fs_bench_feed -c "COPY fairshare.account_users TO STDOUT" | q -d fs_bench_sacct -c "COPY fairshare.account_users FROM STDIN"

: > "$out/feed.ms"; : > "$out/sacct.ms"; : > "$out/ratio"
for r in $(seq 1 "$REPS"); do
  q -d fs_bench_feed -c "TRUNCATE fairshare.jobs; UPDATE fairshare.slurmdbd_feeds SET job_mark = 0"
  q -d fs_bench_sacct -c "TRUNCATE fairshare.jobs"
  q -d fs_bench_feed -c "CHECKPOINT"
  ms0=$(now_ms)
  q -d fs_bench_sacct -c "SELECT fairshare.import_stage()" \
    -c "\\copy import_staging (line) FROM '$out/sacct.txt' (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')" \
    -c "SELECT imported FROM fairshare.import_sacct('oracle', 'UTC')" > "$out/import.txt"
  b=$(( $(now_ms) - ms0 ))
  ms0=$(now_ms)
  q -d fs_bench_feed -c "CALL fairshare.sync_slurmdbd('oracle')" 2> "$out/sync.txt"
  f=$(( $(now_ms) - ms0 ))
  echo "$b" >> "$out/sacct.ms"; echo "$f" >> "$out/feed.ms"
  awk -v f="$f" -v b="$b" 'BEGIN { printf "%.2f\n", f / b }' >> "$out/ratio"
  echo "round $r: import_sacct $b ms ($(tail -1 "$out/import.txt") jobs), sync_slurmdbd $f ms ($(q -d fs_bench_feed -c "SELECT count(*) FROM fairshare.jobs") jobs)"
done
same=$(diff <(q -d fs_bench_feed -c "SELECT job_id, submit_time, user_name, account, start_time, end_time, tres, cpus FROM fairshare.jobs ORDER BY 1, 2") \
            <(q -d fs_bench_sacct -c "SELECT job_id, submit_time, user_name, account, start_time, end_time, tres, cpus FROM fairshare.jobs ORDER BY 1, 2") > /dev/null && echo same || echo DIFFERENT)
echo "jobs: $N; the two sides hold the $same runs"
echo "median import_sacct (baseline): $(median < "$out/sacct.ms") ms"
echo "median sync_slurmdbd:           $(median < "$out/feed.ms") ms"
echo "median ratio sync / import:     $(median < "$out/ratio")"
dropdb fs_bench_feed; dropdb fs_bench_sacct
