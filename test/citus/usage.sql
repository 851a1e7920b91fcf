-- The usage reports as of :as_of (psql -v as_of=...), one labelled row per
-- line for test/citus/compare.pl, and the usage checkpoints (but for the
-- instants they were made and invalidated at, which differ between two
-- servers): whether each is valid and pinned, what it chained from, its rows.
-- The single server's may be sparse, Citus's are full.
SET timezone = 'UTC';
SELECT 'usage_checkpoints', k.cluster, k.as_of, k.invalidated_at IS NULL AS valid, k.pinned, k.computed_from
  FROM fairshare.usage_checkpoints k ORDER BY 2, 3;
-- (as the readers read them: a sparse checkpoint of the single server,
-- docs/design.md#sparse-checkpoints, completed with its base's rows)
SELECT 'usage_checkpoint_rows', r.*
  FROM fairshare.usage_checkpoints k
 CROSS JOIN LATERAL fairshare_internal._checkpoint_rows(ARRAY[k.cluster], ARRAY[k.as_of]) r ORDER BY r::text;
SELECT 'association_usage_at', x.* FROM fairshare.association_usage_at(:'as_of') x ORDER BY x::text;
SELECT 'sshare_at', x.* FROM fairshare.sshare_at(:'as_of') x ORDER BY x::text;
SELECT 'sprio_at', x.* FROM fairshare.sprio_at(:'as_of') x ORDER BY x::text;
