# shellcheck shell=bash disable=SC2154
# (work and the port_<node> variables are set by the script that sources this file)
# Shared by test/citus/test.sh and measure.sh: the nodes of the cluster in
# CITUS_DIR (test/citus/cluster.sh), psql on one of them, and the centres
# loaded on the single server and copied into the coordinator.
# port_<node>=N for each node (test/citus/cluster.sh writes the file)
# shellcheck disable=SC1090
. <(sed 's/^/port_/' "$CITUS_DIR/ports")
export LANG=C.UTF-8 LC_ALL=C.UTF-8 PGTZ=UTC
scale=${BENCH_SCALE:-0.1}

q() {     # q NODE DB psql-args...
  local node=$1 db=$2 p
  shift 2
  p=port_$node
  psql -X -q -h "$CITUS_DIR" -p "${!p}" -U postgres -d "$db" -v ON_ERROR_STOP=1 "$@"
}
val() { q "$1" "$2" -At -c "$3"; }

# copy every table of the extension from the single server to the
# coordinator, referenced tables first, and the sequences
copy_tables() {  # copy_tables DB
  local db=$1 t
  for t in $(val single "$db" "
      WITH RECURSIVE t AS (
        SELECT c.oid, c.relname FROM pg_class c
          JOIN pg_depend d ON d.objid = c.oid AND d.classid = 'pg_class'::regclass AND d.deptype = 'e'
          JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'fairshare'
         WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition),
      fk AS (SELECT DISTINCT conrelid, confrelid FROM pg_constraint
              WHERE contype = 'f' AND conrelid <> confrelid AND conparentid = 0),
      lv (oid, level) AS (
        SELECT t.oid, 0 FROM t
        UNION ALL
        SELECT fk.conrelid, lv.level + 1 FROM lv JOIN fk ON fk.confrelid = lv.oid)
      SELECT t.relname FROM t JOIN lv USING (oid) GROUP BY t.relname ORDER BY max(lv.level), t.relname"); do
    q single "$db" -c "COPY (SELECT * FROM fairshare.$t) TO STDOUT" | q coordinator "$db" -c "COPY fairshare.$t FROM STDIN" || return 1
  done
  val single "$db" "SELECT format('SELECT pg_catalog.setval(%L, %s);', schemaname || '.' || sequencename, last_value)
                      FROM pg_sequences WHERE schemaname = 'fairshare' AND last_value IS NOT NULL" |
    q coordinator "$db" >/dev/null
}

# the benchmark centre (test/bench/centre.sql, at BENCH_SCALE) built on the
# single server, and copied into the coordinator's distributed tables
load_bench() {
  local start
  q single bench -c 'CREATE EXTENSION IF NOT EXISTS fairshare' &&
  q coordinator bench -c 'CREATE EXTENSION IF NOT EXISTS fairshare' || return 1
  sized() { awk -v s="$scale" -v n="$1" -v min="${2:-1}" 'BEGIN { x = int(n * s + 0.5); print (x < min ? min : x) }'; }
  start=$(date +%s)
  q single bench -f test/bench/lib.sql >/dev/null &&
  q single bench -v jobs="$(sized 10000000 1000)" -v assocs="$(sized 100000 100)" -v pending="$(sized 100000 10)" \
                 -v allocs="$(sized 10000 10)" -v projects="$(sized 10000 10)" -f test/bench/centre.sql > "$work/bench.centre" || return 1
  echo "   built on the single server in $(( $(date +%s) - start )) s: $(val single bench 'SELECT count(*) FROM fairshare.jobs') jobs"
  q coordinator bench -c 'SET client_min_messages = warning' -c 'SELECT count(*) FROM fairshare.distribute()' >/dev/null || return 1
  start=$(date +%s)
  copy_tables bench || return 1
  echo "   copied into the distributed tables in $(( $(date +%s) - start )) s"
}

# usage_query DB AS_OF: the query every usage report runs,
# _association_usage's own RETURN QUERY (the 4-argument form's), with its PL/pgSQL variables
# replaced by the values a call without checkpoints, resets or Slurm passes
# gives them (each its declared default, NULL without one; any_full true,
# the other flags false), and as_of by AS_OF: a statement to EXPLAIN
usage_query() {
  val coordinator "$1" "SELECT prosrc FROM pg_proc
                         WHERE oid = 'fairshare_internal._association_usage(timestamptz, boolean, text, timestamptz)'::regprocedure" |
  AS_OF=$2 perl -e '
    my $src = do { local $/; <STDIN> };
    my ($decl) = $src =~ /\bDECLARE\b(.*?)\nBEGIN\b/s;
    my ($q) = $src =~ /RETURN QUERY(.*);\s*END\s*$/s;
    die "usage_query: no RETURN QUERY in _association_usage\n" unless defined $q;
    my %v;
    for (split /\n/, $decl) {
      s/--.*//;
      next unless /^\s*(\w+)\s+([\w\[\]]+)(?:\s*:=\s*(.*?))?;\s*$/;
      my ($n, $t, $d) = ($1, $2, $3);
      $v{$n} = $n eq "any_full" ? "true" : $t eq "boolean" ? "false"
             : defined $d ? "(${d}::${t})" : "(NULL::${t})";
    }
    for my $n (sort { length $b <=> length $a } keys %v) { $q =~ s/(?<![\w.])(?<!AS )\b$n\b/$v{$n}/g; }
    $q =~ s/_association_usage\.as_of/(\x27$ENV{AS_OF}\x27::timestamptz)/g;
    # a call of association_usage_at: the law of as_of, no checkpointing
    $q =~ s/_association_usage\.decay_at/(NULL::timestamptz)/g;
    $q =~ s/_association_usage\.checkpointing/false/g;
    print $q, "\n";'
}
