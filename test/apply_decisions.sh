#!/usr/bin/env bash
# fairshare_apply_decisions without a Slurm (docs/slurmdbd.md#applying-the-decisions):
# a stand-in sacctmgr (-S) writes each argument it was given on a line of
# its own, so what reaches sacctmgr is read back exactly.
#   1. the decisions of a feed whose tables are local stand-ins, with hostile
#      names in fairshare and in "slurmdbd": the runnable ones reach
#      sacctmgr as their argv, argument by argument; the refused ones never
#      do; exit status 2; no shell ran (no file made by a name's command);
#   2. -n runs nothing;
#   3. the applier's own check: a schema whose slurm_decisions returns
#      hostile argument vectors (-s): each such row refused, none run;
#   4. a sacctmgr that fails stops the run, exit status 1.
# Uses the PG* variables; makes and drops the database fs_apply.  Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
REPO=$(pwd)
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1: expected '$3', got '$4$2'"; fi; }
bail() { nok "$1"; echo "1..$n"; exit 1; }

APPLY=$(command -v fairshare_apply_decisions || true)
[ -n "$APPLY" ] || APPLY="$("${PG_CONFIG:-pg_config}" --bindir)/fairshare_apply_decisions"
[ -x "$APPLY" ] || APPLY="$REPO/tools/fairshare_apply_decisions"
[ -x "$APPLY" ] || bail "fairshare_apply_decisions is not built (make)"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; dropdb --if-exists fs_apply 2>/dev/null' EXIT
# the stand-in sacctmgr: one line per call, its arguments separated by a
# unit separator (0x1f), so that a comma, a blank or a newline in one would
# show
cat > "$WORK/sacctmgr" <<'SH'
#!/bin/sh
{ for a in "$@"; do printf '%s\037' "$a"; done; printf '\n'; } >> "$SACCTMGR_LOG"
[ -z "${SACCTMGR_FAIL:-}" ] || case " $* " in *"$SACCTMGR_FAIL"*) exit 1 ;; esac
exit 0
SH
chmod +x "$WORK/sacctmgr"
export SACCTMGR_LOG="$WORK/calls.txt"
calls() { tr '\037' ' ' < "$SACCTMGR_LOG" | sed 's/ $//'; }

dropdb --if-exists fs_apply 2>/dev/null
createdb fs_apply || bail "createdb fs_apply"
db() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d fs_apply; }
db <<'SQL' > /dev/null || bail "the feed with hostile names"
CREATE EXTENSION fairshare;
INSERT INTO fairshare.clusters (cluster, decay_half_life, total_nodes, total_cpus) VALUES ('oracle', '0', 1, 64);
-- the feed's tables: local stand-ins of slurmdbd's, in a schema of the
-- superuser that runs this (what slurmdbd_connect makes, as foreign tables)
CREATE FOREIGN DATA WRAPPER fs_apply_nowhere;
CREATE SERVER fs_apply_nowhere FOREIGN DATA WRAPPER fs_apply_nowhere;
SELECT fairshare.slurmdbd_connect('oracle', 'fs_apply_nowhere', 'fs_apply_fdw', slurm_cluster => 'hpc1');
CREATE SCHEMA sdbd;
CREATE TABLE sdbd.assoc_table (mod_time bigint, deleted integer, id_assoc bigint, "user" text, acct text, "partition" text,
    parent_acct text, lft bigint, shares bigint, grp_tres_mins text, def_qos_id bigint, qos text);
CREATE TABLE sdbd.job_table (LIKE fs_apply_fdw.job_table);
CREATE TABLE sdbd.tres_table (id bigint, deleted integer, type text, name text);
CREATE TABLE sdbd.qos_table (id bigint, deleted integer, name text);
INSERT INTO sdbd.tres_table VALUES (1, 0, 'cpu', ''), (5, 0, 'billing', '');
INSERT INTO sdbd.qos_table VALUES (1, 0, 'normal');
-- slurmdbd's schema version, which names its release: 12 is 22.05's
CREATE TABLE sdbd.convert_version_table (version bigint);
INSERT INTO sdbd.convert_version_table VALUES (12);
INSERT INTO sdbd.assoc_table VALUES
  (1, 0, 1, '', 'root', '', '', 1, 1, '', NULL, ',1,'),
  (1, 0, 2, '', 'chem', '', 'root', 2, 2, '', NULL, ''),
  (1, 0, 3, '', 'proj,root', '', 'root', 4, 1, '', NULL, ''),
  (1, 0, 4, '', E'csub\ntouch x #', '', 'root', 6, 1, '', NULL, '');
UPDATE fairshare.slurmdbd_feeds SET foreign_schema = 'sdbd';
CALL fairshare.sync_slurmdbd('oracle');
-- decided here: chem's Fairshare 3 and 60 h of GENCI (3600 minutes);
-- proj,root's allocation ended (0); the newline account's Fairshare 7; a
-- user alice,mallory and a user $(touch y) in chem
UPDATE fairshare.accounts SET shares = 3 WHERE account = 'chem';
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours) VALUES
  ('oracle', 'chem', 'genci', '2026-01-01', '2026-12-31', 60),
  ('oracle', 'proj,root', 'genci', '2025-01-01', '2025-12-31', 10);
UPDATE fairshare.accounts SET shares = 7 WHERE account = E'csub\ntouch x #';
INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES
  ('oracle', 'chem', 'alice,mallory', 1), ('oracle', 'chem', '$(touch y)', 1);
-- the decisions as of a fixed day: slurm_decisions' as_of defaults to now
CREATE SCHEMA fixed;
CREATE FUNCTION fixed.slurm_decisions(cluster text)
RETURNS TABLE (step integer, account text, user_name text, argv text[], reason text, refused text)
LANGUAGE sql AS $$
    SELECT d.step, d.account, d.user_name, d.argv, d.reason, d.refused
      FROM fairshare.slurm_decisions(cluster, '2026-06-01 12:00+00') d $$;
SQL

# ---------------------------------------------------------------- 1, 2
: > "$SACCTMGR_LOG"
(cd "$WORK" && "$APPLY" -n -d dbname=fs_apply -s fixed -S "$WORK/sacctmgr" oracle) > "$WORK/dry.txt" 2>&1
st=$?
check "-n: exit status 2 (refused some), nothing run" "$st|$(wc -l < "$SACCTMGR_LOG")|$(tail -1 "$WORK/dry.txt")" \
  "2|0|# 0 applied (dry run: none run), 4 refused"
: > "$SACCTMGR_LOG"
(cd "$WORK" && "$APPLY" -d dbname=fs_apply -s fixed -S "$WORK/sacctmgr" oracle) > "$WORK/apply.txt" 2>&1
st=$?
sed 's/^/# /' "$WORK/apply.txt"
check "the runnable decisions reach sacctmgr as their argv, argument by argument, in the order of the steps" \
  "$(calls)" \
  "-i modify account where name=chem cluster=hpc1 set fairshare=3
-i modify account where name=chem cluster=hpc1 set GrpTRESMins=billing=3600"
check "exit status 2, two applied, four refused" "$st|$(tail -1 "$WORK/apply.txt")" "2|# 2 applied, 4 refused"
check "the refused ones are reported, each on one line, the names escaped" \
  "$(grep -c '^refused step ' "$WORK/apply.txt")|$(grep -c 'csub\\x0atouch x #' "$WORK/apply.txt")|$(grep -c 'alice,mallory' "$WORK/apply.txt")|$(grep -c '\$(touch y)' "$WORK/apply.txt")" \
  "4|1|1|1"
check "no shell ran: neither x nor y made" "$([ -e "$WORK/x" ] || [ -e "$WORK/y" ] && echo made || echo none)" "none"

# ---------------------------------------------------------------- 3
# a schema whose slurm_decisions hands hostile argument vectors: the
# applier's own check refuses each row
db <<'SQL' > /dev/null || bail "hostile argv"
CREATE SCHEMA hostile;
CREATE FUNCTION hostile.slurm_decisions(cluster text)
RETURNS TABLE (step integer, account text, user_name text, argv text[], reason text, refused text)
LANGUAGE sql AS $$
    VALUES (1, 'a', NULL::text, ARRAY['-i', 'modify', 'account', 'where', 'name=proj,root', 'set', 'fairshare=1'], 'a comma', NULL::text),
           (2, 'b', NULL, ARRAY['-i', 'modify', 'account', 'where', 'name=x', '-Mother'], 'an option', NULL),
           (3, 'c', NULL, ARRAY['-i', 'add', 'account', E'name=a\ntouch z'], 'a newline', NULL),
           (4, 'd', NULL, ARRAY['-i', 'add', 'account', 'name=a b'], 'a blank', NULL),
           (5, 'e', NULL, ARRAY['-i', 'add', 'account', 'name=a;touch z'], 'a semicolon', NULL),
           (6, 'f', NULL, ARRAY['-V'], 'an option first', NULL),
           (7, 'g', NULL, '{}'::text[], 'no arguments', NULL),
           (8, 'h', NULL, ARRAY['-i', 'add', 'account', 'name=ok', 'cluster=hpc1'], 'fine', NULL) $$;
SQL
: > "$SACCTMGR_LOG"
(cd "$WORK" && "$APPLY" -d dbname=fs_apply -s hostile -S "$WORK/sacctmgr" oracle) > "$WORK/hostile.txt" 2>&1
st=$?
check "argument vectors with a comma, an option, a newline, a blank, a semicolon, none: refused by the applier, the sound one run" \
  "$st|$(calls)|$(tail -1 "$WORK/hostile.txt")" "2|-i add account name=ok cluster=hpc1|# 1 applied, 7 refused"

# ---------------------------------------------------------------- 4
: > "$SACCTMGR_LOG"
(cd "$WORK" && SACCTMGR_FAIL="fairshare=3" "$APPLY" -d dbname=fs_apply -s fixed -S "$WORK/sacctmgr" oracle) > "$WORK/fail.txt" 2>&1
st=$?
check "a sacctmgr that fails stops the run: exit status 1, the decision after it not run" \
  "$st|$(wc -l < "$SACCTMGR_LOG")|$(grep -c 'the decisions after it were not run' "$WORK/fail.txt")" "1|1|1"
# a cluster without a feed: the database's error, exit status 1
"$APPLY" -d dbname=fs_apply -S "$WORK/sacctmgr" nowhere > "$WORK/nofeed.txt" 2>&1
st=$?
check "a cluster without a feed: exit status 1 and slurm_decisions' error" \
  "$st|$(grep -c 'has no slurmdbd feed' "$WORK/nofeed.txt")" "1|1"
echo "1..$n"
