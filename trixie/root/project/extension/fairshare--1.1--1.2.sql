-- fairshare 1.1 → 1.2 (ALTER EXTENSION fairshare UPDATE TO '1.2').
--
-- The released 1.1 script (extension/fairshare--1.1.sql) is never edited:
-- every change since ships here, in the order of the pieces
-- (extension/*.sql), and test/upgrade.sh checks that a 1.0 or 1.1 database
-- updated by this script has the same objects and gives the same reports as
-- a fresh 1.2.

\echo Use "ALTER EXTENSION fairshare UPDATE TO '1.2'" to load this file. \quit
