#!/usr/bin/env bash
# port_<node> variables come from the ports file each node is written to
# shellcheck disable=SC2154
# A real Citus cluster on this machine, and a plain server beside it:
#
#   bash test/citus/cluster.sh start DIR   four PostgreSQL instances under DIR, each
#                                          on a free localhost port, sockets in DIR:
#                                          coordinator, worker1, worker2 (with
#                                          shared_preload_libraries = citus), and
#                                          single (no Citus: the single server the
#                                          results are compared with); prints
#                                          NAME=PORT lines, also kept in DIR/ports;
#                                          databases demo, bench, retain and slurm on each (with
#                                          the citus extension on the Citus nodes)
#   bash test/citus/cluster.sh stop DIR    stops them and removes DIR
#
# Each instance is its own initdb and postmaster, as on separate machines;
# the workers are added to the coordinator with citus_add_node, the
# coordinator registered with citus_set_coordinator_host.  Run as root, the
# servers run as the user postgres (initdb refuses root) and DIR is given to
# it; the clients stay root and connect as the database user postgres.
# Authentication is trust on the sockets and on 127.0.0.1: a throwaway
# cluster that only this machine's users can reach.
set -euo pipefail
cmd=${1:?usage: $0 start|stop DIR}
dir=${2:?usage: $0 start|stop DIR}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$($PG_CONFIG --bindir)
nodes="coordinator worker1 worker2 single"

as_server() {
  if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

free_port() {   # the first port from $1 up that nothing listens on
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}

case "$cmd" in
start)
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
  : > "$dir/ports"
  port=${CITUS_BASE_PORT:-55701}
  for n in $nodes; do
    port=$(free_port "$port")
    as_server "$bindir/initdb" -D "$dir/$n" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
    {
      echo "port = $port"
      echo "listen_addresses = 'localhost'"
      echo "unix_socket_directories = '$dir'"
      # small: four servers share the machine
      echo "shared_buffers = 128MB"
      echo "max_connections = 100"
      echo "max_worker_processes = 8"
      echo "max_parallel_workers = 4"
      echo "work_mem = 64MB"
      echo "jit = off"
      echo "fsync = off"
      echo "synchronous_commit = off"
      echo "full_page_writes = off"
      echo "logging_collector = off"
      # fairshare after citus: its planner hook must run before Citus's (extension/citus.c)
      [ "$n" = single ] || echo "shared_preload_libraries = 'citus,fairshare'"
      # two-phase commit of the transactions that write several nodes
      [ "$n" = single ] || echo "max_prepared_transactions = 100"
    } | as_server tee -a "$dir/$n/postgresql.conf" >/dev/null
    as_server "$bindir/pg_ctl" -D "$dir/$n" -l "$dir/$n.log" -w -t 60 start >/dev/null
    echo "$n=$port" | tee -a "$dir/ports"
    port=$((port + 1))
  done
  # port_<node>=N for each node, written just above
  # shellcheck disable=SC1090,SC2154
  . <(sed 's/^/port_/' "$dir/ports")
  # The databases the suite uses, each made on every node (Citus does not
  # create databases on the workers); in each the coordinator knows itself
  # and its two workers.
  for db in ${CITUS_DATABASES:-demo bench retain slurm}; do
    for n in $nodes; do
      p=port_$n
      psql -X -q -h "$dir" -p "${!p}" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "CREATE DATABASE $db" >/dev/null
      [ "$n" = single ] && continue
      psql -X -q -h "$dir" -p "${!p}" -U postgres -d "$db" -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION citus' >/dev/null
    done
    psql -X -q -h "$dir" -p "$port_coordinator" -U postgres -d "$db" -v ON_ERROR_STOP=1 >/dev/null <<SQL
SELECT citus_set_coordinator_host('localhost', $port_coordinator);
SELECT citus_add_node('localhost', $port_worker1);
SELECT citus_add_node('localhost', $port_worker2);
SQL
  done
  ;;
stop)
  [ -d "$dir" ] || exit 0
  for n in $nodes; do
    if [ -f "$dir/$n/postmaster.pid" ]; then
      as_server "$bindir/pg_ctl" -D "$dir/$n" -m fast -w stop >/dev/null 2>&1 || true
    fi
  done
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
