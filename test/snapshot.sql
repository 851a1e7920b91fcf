-- What a centre would compare between two databases holding the same data:
-- every row of every table of the extension, labelled with its table, the
-- sequences, and each report as of one fixed instant :'as_of' (reports "as
-- of now" move on).  Used by test/dump_restore.sh and test/upgrade.sh;
-- callers sort the output.  Rows only, no headers: a table that a version
-- adds (the usage checkpoints of 1.1) and that is empty after the update
-- compares equal to its absence before it, while any row it holds shows.
--
-- A table's rows are printed as jsonb (jsonb_build_object: to_jsonb of a
-- subquery's row loses the column names on a Citus cluster, where the row
-- is rebuilt from the workers' columns), without the columns that are NULL or
-- hold their column's default: a column that a version adds (with its
-- default, or NULL) compares equal to its absence before it, while any
-- other value in it shows.  A report lists the columns it had when it was
-- first compared: columns a version adds to a report are computed from the
-- tables, which are compared whole.  :'skip_columns' (table.column,
-- comma-separated) leaves out the columns an update added without a default
-- (test/upgrade.sh checks those on their own).  jobs is read whole, not its
-- partitions (which months have their own is layout, not data), and only
-- the extension's tables are its data (a month retain_jobs detached and
-- kept is not).
\pset tuples_only on
\if :{?skip_columns}
\else
\set skip_columns ''
\endif
SELECT format('SELECT %L, jsonb_strip_nulls(jsonb_build_object(%s)) FROM %s t', c.relname,
              (SELECT string_agg(CASE WHEN d.adbin IS NULL OR pg_get_expr(d.adbin, d.adrelid) LIKE '%nextval(%'
                                      THEN format('%1$L, t.%1$I', a.attname)
                                      ELSE format('%1$L, CASE WHEN t.%1$I IS NOT DISTINCT FROM (%2$s) THEN NULL ELSE t.%1$I END',
                                                  a.attname, pg_get_expr(d.adbin, d.adrelid)) END,
                                 ', ' ORDER BY a.attnum)
                 FROM pg_catalog.pg_attribute a
                 LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                  AND c.relname || '.' || a.attname <> ALL (string_to_array(:'skip_columns', ','))),
              c.oid::regclass)
  FROM pg_catalog.pg_class c
 WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind IN ('r', 'p')
   AND NOT c.relispartition
   AND EXISTS (SELECT FROM pg_catalog.pg_depend d
                WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid
                  AND d.refclassid = 'pg_catalog.pg_extension'::regclass AND d.deptype = 'e')
 ORDER BY 1 \gexec
-- a sequence's log_cnt is its WAL batching, not its state
SELECT format('SELECT %L, last_value, is_called FROM %s', c.relname, c.oid::regclass)
  FROM pg_catalog.pg_class c
 WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind = 'S' ORDER BY 1 \gexec
SELECT 'association_usage', * FROM fairshare.association_usage_at(:'as_of');
SELECT 'sshare', cluster, account, user_name, parent, depth, tree_order, algorithm, raw_shares, norm_shares,
       raw_usage, raw_usage_int, norm_usage, effectv_usage, fairshare, level_fs, fs_rank
  FROM fairshare.sshare_at(:'as_of');
SELECT 'sprio', * FROM fairshare.sprio_at(:'as_of');
SELECT 'genci', * FROM fairshare.genci_report_at((:'as_of'::timestamptz)::date);
SELECT 'r_wlm_usage', * FROM fairshare.r_wlm_usage_at(:'as_of');
SELECT 'pbsfs', * FROM fairshare.pbsfs_at(:'as_of');
SELECT 'metacentrum_user_usage', * FROM fairshare.metacentrum_user_usage_at(:'as_of');
