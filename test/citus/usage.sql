-- The usage reports as of :as_of (psql -v as_of=...), one labelled row per
-- line for test/citus/compare.pl, and the usage checkpoints (but for the
-- instants they were made and invalidated at, which differ between two
-- servers): whether each is valid and pinned, what it chained from, its rows.
SET timezone = 'UTC';
SELECT 'usage_checkpoints', k.cluster, k.as_of, k.invalidated_at IS NULL AS valid, k.pinned, k.computed_from
  FROM fairshare.usage_checkpoints k ORDER BY 2, 3;
SELECT 'usage_checkpoint_rows', r.* FROM fairshare.usage_checkpoint_rows r ORDER BY r::text;
SELECT 'association_usage_at', x.* FROM fairshare.association_usage_at(:'as_of') x ORDER BY x::text;
SELECT 'sshare_at', x.* FROM fairshare.sshare_at(:'as_of') x ORDER BY x::text;
SELECT 'sprio_at', x.* FROM fairshare.sprio_at(:'as_of') x ORDER BY x::text;
