-- What a centre would compare between two databases holding the same data:
-- every table of the extension, the sequences, and each report as of one
-- fixed instant :'as_of' (reports "as of now" move on).  Used by
-- test/dump_restore.sh and test/upgrade.sh; callers sort the output, since
-- TABLE has no ORDER BY.
SELECT format('TABLE %s', c.oid::regclass) FROM pg_catalog.pg_class c
 WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind = 'r'
   AND c.relname NOT IN ('usage_checkpoints', 'usage_checkpoint_rows') ORDER BY 1 \gexec
-- The usage checkpoints (1.1) are compared too, but their rows only: the
-- tables do not exist before the update from 1.0, and are empty after it.
-- A dump restored with a checkpoint its reports no longer use would show
-- here (its invalidated_at) and in the reports (their last digits).
\pset tuples_only on
SELECT format('SELECT %L, * FROM %s', c.relname, c.oid::regclass) FROM pg_catalog.pg_class c
 WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind = 'r'
   AND c.relname IN ('usage_checkpoints', 'usage_checkpoint_rows') ORDER BY 1 \gexec
\pset tuples_only off
-- a sequence's log_cnt is its WAL batching, not its state
SELECT format('SELECT %L, last_value, is_called FROM %s', c.oid::regclass, c.oid::regclass)
  FROM pg_catalog.pg_class c
 WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind = 'S' ORDER BY 1 \gexec
SELECT 'association_usage', * FROM fairshare.association_usage_at(:'as_of');
SELECT 'sshare', * FROM fairshare.sshare_at(:'as_of');
SELECT 'sprio', * FROM fairshare.sprio_at(:'as_of');
SELECT 'genci', * FROM fairshare.genci_report_at((:'as_of'::timestamptz)::date);
SELECT 'r_wlm_usage', * FROM fairshare.r_wlm_usage_at(:'as_of');
SELECT 'pbsfs', * FROM fairshare.pbsfs_at(:'as_of');
SELECT 'metacentrum_user_usage', * FROM fairshare.metacentrum_user_usage_at(:'as_of');
