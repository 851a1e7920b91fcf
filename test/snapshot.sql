-- What a centre would compare between two databases holding the same data:
-- every row of every table of the extension, labelled with its table, the
-- sequences, and each report as of one fixed instant :'as_of' (reports "as
-- of now" move on).  Used by test/dump_restore.sh and test/upgrade.sh;
-- callers sort the output.  Rows only, no headers: a table that a version
-- adds (the usage checkpoints of 1.1) and that is empty after the update
-- compares equal to its absence before it, while any row it holds shows.
-- :'skip_columns' (table.column, comma-separated) leaves out the columns an
-- update added, which the version before it did not have (test/upgrade.sh
-- checks them on their own).
\pset tuples_only on
\if :{?skip_columns}
\else
\set skip_columns ''
\endif
SELECT format('SELECT %L, %s FROM %s', t.relname, t.cols, t.oid::regclass)
  FROM (SELECT c.oid, c.relname,
               (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_catalog.pg_attribute a
                 WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                   AND c.relname || '.' || a.attname <> ALL (string_to_array(:'skip_columns', ','))) AS cols
          FROM pg_catalog.pg_class c
         WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind IN ('r', 'p')
           -- jobs whole, not its partitions (which months have their own is
           -- layout, not data); tables that are not the extension's (a month
           -- retain_jobs detached and kept) are not its data either
           AND NOT c.relispartition
           AND EXISTS (SELECT FROM pg_catalog.pg_depend d
                        WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid
                          AND d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.deptype = 'e')) t
 WHERE t.cols IS NOT NULL ORDER BY 1 \gexec
-- a sequence's log_cnt is its WAL batching, not its state
SELECT format('SELECT %L, last_value, is_called FROM %s', c.relname, c.oid::regclass)
  FROM pg_catalog.pg_class c
 WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind = 'S' ORDER BY 1 \gexec
SELECT 'association_usage', * FROM fairshare.association_usage_at(:'as_of');
SELECT 'sshare', * FROM fairshare.sshare_at(:'as_of');
SELECT 'sprio', * FROM fairshare.sprio_at(:'as_of');
SELECT 'genci', * FROM fairshare.genci_report_at((:'as_of'::timestamptz)::date);
SELECT 'r_wlm_usage', * FROM fairshare.r_wlm_usage_at(:'as_of');
SELECT 'pbsfs', * FROM fairshare.pbsfs_at(:'as_of');
SELECT 'metacentrum_user_usage', * FROM fairshare.metacentrum_user_usage_at(:'as_of');
