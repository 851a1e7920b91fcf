-- Update from fairshare 1.2 to 1.3: what runs once (CONTRIBUTING.md#upgrades).
--
-- The Makefile builds extension/fairshare--1.2--1.3.sql from this file
-- followed by every function, procedure, aggregate, view, trigger, comment,
-- grant and DO block of the pieces, re-created.  So this file holds only
-- what the pieces create once: new tables, columns, types, indexes,
-- constraints and policies, changed data, and the DROPs of objects 1.3 no
-- longer has or whose signature, return type or view columns changed.
-- test/upgrade.sh proves the result equal to a fresh install of 1.3.


-- Retention makes the rollups of the retained hours final
-- (docs/history.md#retention-retain_jobs): rollup_state.retained_to.
ALTER TABLE @extschema@.rollup_state ADD COLUMN retained_to timestamptz;
