-- fairshare 1.0 → 1.1 (ALTER EXTENSION fairshare UPDATE TO '1.1').
--
-- The released 1.0 script (extension/fairshare--1.0.sql) is never edited:
-- every change since ships here, and test/upgrade.sh checks that a 1.0
-- database updated by this script has the same objects (pg_dump
-- --binary-upgrade of the extension's members) and gives the same reports
-- as a fresh 1.1 install built from the SQL pieces.

\echo Use "ALTER EXTENSION fairshare UPDATE TO '1.1'" to load this file. \quit
