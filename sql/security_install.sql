-- security_install: CREATE EXTENSION in a fresh database where an ordinary
-- user has planted objects first (docs/security.md#install-script-safety).
--
-- 1. Functions, aggregates and operators in public named like the
--    built-ins the extension uses (now(), sum(float8), =(text, text), ...)
--    and like the extension's own functions.  Each one counts its calls in
--    a sequence (which no rollback undoes) and raises.  The extension is
--    installed, then used by the administrator, a plain user and the
--    superuser with search_path = public, pg_catalog (public shadowing
--    pg_catalog): no planted object is ever called.
-- 2. A schema "fairshare" made in advance (CREATE EXTENSION would reuse it):
--    owned by that user, or holding its objects, or open to its CREATE, the
--    install is refused; a pre-existing group role with powers likewise.
--    An empty schema of a superuser (what pg_restore makes) is accepted.
SET client_min_messages = warning;
DROP DATABASE IF EXISTS fairshare_hostile;
RESET client_min_messages;
CREATE DATABASE fairshare_hostile;
\c fairshare_hostile
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 0;
-- the SQLSTATE and message of a statement (qualified throughout: it runs
-- under the hostile search_path too)
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN pg_catalog.concat(SQLSTATE, ': ', SQLERRM);
END $$;

CREATE ROLE regress_fs_attacker;
GRANT CREATE ON SCHEMA public TO regress_fs_attacker;
GRANT CREATE ON DATABASE fairshare_hostile TO regress_fs_attacker;

-- ===========================================================================
-- 1. Objects planted in public
-- ===========================================================================
SET ROLE regress_fs_attacker;
CREATE SEQUENCE public.hostile_calls;
GRANT USAGE, SELECT ON SEQUENCE public.hostile_calls TO PUBLIC;
CREATE FUNCTION public.hostile(what text) RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
    PERFORM nextval('public.hostile_calls');
    RAISE EXCEPTION 'planted object called: %', what USING ERRCODE = 'XX666';
END $$;
-- functions with built-in names (exact argument types, so that they would
-- win over pg_catalog's polymorphic or "any" ones where public came first)
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('now()'); RETURN NULL; END$$;
CREATE FUNCTION public."coalesce"(float8, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('coalesce'); RETURN NULL; END$$;
CREATE FUNCTION public."nullif"(text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('nullif'); RETURN NULL; END$$;
CREATE FUNCTION public."greatest"(float8, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('greatest'); RETURN NULL; END$$;
CREATE FUNCTION public."least"(timestamptz, timestamptz) RETURNS timestamptz LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('least'); RETURN NULL; END$$;
CREATE FUNCTION public.format(text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('format'); RETURN NULL; END$$;
CREATE FUNCTION public.format(text, text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('format'); RETURN NULL; END$$;
CREATE FUNCTION public.concat_ws(text, text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('concat_ws'); RETURN NULL; END$$;
CREATE FUNCTION public.lower(text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('lower'); RETURN NULL; END$$;
CREATE FUNCTION public.length(text) RETURNS integer LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('length'); RETURN NULL; END$$;
CREATE FUNCTION public.lpad(text, integer, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('lpad'); RETURN NULL; END$$;
CREATE FUNCTION public.quote_ident(text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('quote_ident'); RETURN NULL; END$$;
CREATE FUNCTION public.date_part(text, timestamptz) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('date_part'); RETURN NULL; END$$;
CREATE FUNCTION public.date_part(text, interval) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('date_part'); RETURN NULL; END$$;
CREATE FUNCTION public.date_trunc(text, timestamp) RETURNS timestamp LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('date_trunc'); RETURN NULL; END$$;
CREATE FUNCTION public.extract(text, date) RETURNS numeric LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('extract'); RETURN NULL; END$$;
CREATE FUNCTION public.isfinite(date) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('isfinite'); RETURN NULL; END$$;
CREATE FUNCTION public.isfinite(timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('isfinite'); RETURN NULL; END$$;
CREATE FUNCTION public.timezone(text, timestamptz) RETURNS timestamp LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('timezone'); RETURN NULL; END$$;
CREATE FUNCTION public.make_interval(months integer) RETURNS interval LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('make_interval'); RETURN NULL; END$$;
CREATE FUNCTION public.to_char(timestamptz, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('to_char'); RETURN NULL; END$$;
CREATE FUNCTION public.to_char(date, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('to_char'); RETURN NULL; END$$;
CREATE FUNCTION public.floor(float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('floor'); RETURN NULL; END$$;
CREATE FUNCTION public.trunc(float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('trunc'); RETURN NULL; END$$;
CREATE FUNCTION public.round(numeric, integer) RETURNS numeric LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('round'); RETURN NULL; END$$;
CREATE FUNCTION public.power(float8, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('power'); RETURN NULL; END$$;
CREATE FUNCTION public.current_setting(text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('current_setting'); RETURN NULL; END$$;
CREATE FUNCTION public.generate_series(integer, integer) RETURNS SETOF integer LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('generate_series'); END$$;
CREATE FUNCTION public.jsonb_array_elements(jsonb) RETURNS SETOF jsonb LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('jsonb_array_elements'); END$$;
CREATE FUNCTION public.jsonb_typeof(jsonb) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('jsonb_typeof'); RETURN NULL; END$$;
CREATE FUNCTION public.array_position(text[], text) RETURNS integer LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('array_position'); RETURN NULL; END$$;
CREATE FUNCTION public.string_to_array(text, text) RETURNS text[] LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('string_to_array'); RETURN NULL; END$$;
CREATE FUNCTION public.regexp_replace(text, text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('regexp_replace'); RETURN NULL; END$$;
CREATE FUNCTION public.split_part(text, text, integer) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('split_part'); RETURN NULL; END$$;
CREATE FUNCTION public.to_regclass(text) RETURNS regclass LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('to_regclass'); RETURN NULL; END$$;
-- aggregates
CREATE FUNCTION public.hostile_sfunc(float8, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('aggregate'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_sfunc_text(text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('aggregate'); RETURN NULL; END$$;
CREATE AGGREGATE public.sum(float8) (SFUNC = public.hostile_sfunc, STYPE = float8);
CREATE AGGREGATE public.max(float8) (SFUNC = public.hostile_sfunc, STYPE = float8);
CREATE AGGREGATE public.min(float8) (SFUNC = public.hostile_sfunc, STYPE = float8);
CREATE AGGREGATE public.count(float8) (SFUNC = public.hostile_sfunc, STYPE = float8);
CREATE AGGREGATE public.string_agg(text) (SFUNC = public.hostile_sfunc_text, STYPE = text);
-- operators on the types the extension compares and computes with
CREATE FUNCTION public.hostile_tt(text, text) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('text operator'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_tt_text(text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('||'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_ff(float8, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('float8 arithmetic'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_ff_bool(float8, float8) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('float8 comparison'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_zz(timestamptz, timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('timestamptz comparison'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_zz_iv(timestamptz, timestamptz) RETURNS interval LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('timestamptz - timestamptz'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_dd(date, date) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('date comparison'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_ii(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('bigint comparison'); RETURN NULL; END$$;
CREATE FUNCTION public.hostile_i4(integer, integer) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('integer comparison'); RETURN NULL; END$$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hostile_tt);
CREATE OPERATOR public.<> (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hostile_tt);
CREATE OPERATOR public.~ (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hostile_tt);
CREATE OPERATOR public.|| (LEFTARG = text, RIGHTARG = text, FUNCTION = public.hostile_tt_text);
CREATE OPERATOR public.+ (LEFTARG = float8, RIGHTARG = float8, FUNCTION = public.hostile_ff);
CREATE OPERATOR public.- (LEFTARG = float8, RIGHTARG = float8, FUNCTION = public.hostile_ff);
CREATE OPERATOR public.* (LEFTARG = float8, RIGHTARG = float8, FUNCTION = public.hostile_ff);
CREATE OPERATOR public./ (LEFTARG = float8, RIGHTARG = float8, FUNCTION = public.hostile_ff);
CREATE OPERATOR public.< (LEFTARG = float8, RIGHTARG = float8, FUNCTION = public.hostile_ff_bool);
CREATE OPERATOR public.>= (LEFTARG = float8, RIGHTARG = float8, FUNCTION = public.hostile_ff_bool);
CREATE OPERATOR public.<= (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = public.hostile_zz);
CREATE OPERATOR public.> (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = public.hostile_zz);
CREATE OPERATOR public.- (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = public.hostile_zz_iv);
CREATE OPERATOR public.<= (LEFTARG = date, RIGHTARG = date, FUNCTION = public.hostile_dd);
CREATE OPERATOR public.= (LEFTARG = date, RIGHTARG = date, FUNCTION = public.hostile_dd);
CREATE OPERATOR public.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.hostile_ii);
CREATE OPERATOR public.= (LEFTARG = integer, RIGHTARG = integer, FUNCTION = public.hostile_i4);
-- and the extension's own names, better typed than the real ones
CREATE FUNCTION public._raise(text, text, text, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('_raise'); RETURN NULL; END$$;
CREATE FUNCTION public.tres_billing(text, text, text) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('tres_billing'); RETURN NULL; END$$;
CREATE FUNCTION public.sshare_at(timestamptz) RETURNS SETOF record LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('sshare_at'); END$$;
CREATE FUNCTION public.my_user_name() RETURNS text LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('my_user_name'); RETURN NULL; END$$;
RESET ROLE;

-- The traps work: with public ahead of pg_catalog, unqualified calls land
-- in them (three calls counted)
SET search_path = public, pg_catalog;
SELECT pg_temp.err('SELECT now()');
SELECT pg_temp.err($$SELECT 'a'::text = 'b'::text$$);
SELECT pg_temp.err('SELECT sum(x) FROM (VALUES (1::float8)) v(x)');
RESET search_path;
SELECT last_value AS calls_so_far FROM public.hostile_calls;

-- ===========================================================================
-- 2. A schema "fairshare" made in advance
-- ===========================================================================
-- (a) by the attacker, with a better-typed _raise in it: refused
SET ROLE regress_fs_attacker;
CREATE SCHEMA fairshare;
CREATE FUNCTION fairshare._raise(text, text, text, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('fairshare._raise'); RETURN NULL; END$$;
RESET ROLE;
SELECT pg_temp.err('CREATE EXTENSION fairshare');
-- (b) handed over to a superuser, but still holding the attacker's function: refused
ALTER SCHEMA fairshare OWNER TO CURRENT_USER;
SELECT pg_temp.err('CREATE EXTENSION fairshare');
-- (c) emptied, but the attacker may still create in it: refused
DROP FUNCTION fairshare._raise(text, text, text, float8);
GRANT CREATE ON SCHEMA fairshare TO regress_fs_attacker;
SELECT pg_temp.err('CREATE EXTENSION fairshare');
REVOKE CREATE ON SCHEMA fairshare FROM regress_fs_attacker;
-- (c') a schema "fairshare_internal" (where the private routines go) made
--      by the attacker, with a better-typed _raise in it: refused, the
--      script creates that schema itself and stops if it exists
SET ROLE regress_fs_attacker;
CREATE SCHEMA fairshare_internal;
CREATE FUNCTION fairshare_internal._raise(text, text, text, float8) RETURNS float8 LANGUAGE plpgsql AS $$BEGIN PERFORM public.hostile('fairshare_internal._raise'); RETURN NULL; END$$;
RESET ROLE;
SELECT pg_temp.err('CREATE EXTENSION fairshare');
DROP SCHEMA fairshare_internal CASCADE;
-- (d) a group role that exists with powers the extension does not give:
--     refused (BYPASSRLS would lift the row filters; ADMIN OPTION lets its
--     holder hand the role out)
ALTER ROLE fairshare_user BYPASSRLS;
SELECT pg_temp.err('CREATE EXTENSION fairshare');
ALTER ROLE fairshare_user NOBYPASSRLS;
GRANT fairshare_admin TO regress_fs_attacker WITH ADMIN OPTION;
SELECT pg_temp.err('CREATE EXTENSION fairshare');
REVOKE fairshare_admin FROM regress_fs_attacker;
-- (e) an empty schema of a superuser, nobody else creating in it (what
--     pg_restore makes before CREATE EXTENSION): accepted, even from a
--     session whose search_path puts public before pg_catalog
SET search_path = public, pg_catalog;
CREATE EXTENSION fairshare;
RESET search_path;
SELECT last_value AS calls_after_install FROM public.hostile_calls;

-- ===========================================================================
-- 3. The extension at work under search_path = public, pg_catalog
-- ===========================================================================
CREATE ROLE regress_fs_h_admin IN ROLE fairshare_admin;
CREATE ROLE regress_fs_h_alice IN ROLE fairshare_user;
CREATE ROLE regress_fs_h_bob IN ROLE fairshare_user;

-- The administrator builds a small centre: every CHECK, DEFAULT and trigger
-- runs.  Cluster h: Fair Tree with decay and every priority weight; hp: PBS.
SET ROLE regress_fs_h_admin;
SET search_path = public, pg_catalog;
INSERT INTO fairshare.clusters (cluster, decay_half_life, weight_fairshare, weight_age, weight_job_size,
                                weight_partition, weight_qos, regulation_threshold, timezone)
VALUES ('h', '7 days', 1000, 100, 100, 100, 100, 1000, 'Europe/Paris');
INSERT INTO fairshare.clusters (cluster, scheduler, fairshare_algorithm, decay_mode) VALUES ('hp', 'pbs', 'pbs', 'step');
INSERT INTO fairshare.partitions (cluster, partition, billing_weights, priority_job_factor, nodes, cores_per_node, mem_per_node_mb)
VALUES ('h', 'p', 'CPU=1.0,Mem=0.25G', 10, 2, 8, 32768), ('hp', 'q', NULL, 1, 1, 8, 32768);
INSERT INTO fairshare.qos (cluster, qos, priority) VALUES ('h', 'normal', 10);
INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES
  ('h', 'root', NULL, 1), ('h', 'a', 'root', 2), ('h', 'b', 'root', 1),
  ('hp', 'root', NULL, 1), ('hp', 'g', 'root', 1);
INSERT INTO fairshare.account_users (cluster, account, user_name, shares) VALUES
  ('h', 'a', 'regress_fs_h_alice', 1), ('h', 'b', 'regress_fs_h_bob', 1),
  ('hp', 'g', 'regress_fs_h_alice', 1), ('hp', 'g', 'regress_fs_h_bob', 1);
INSERT INTO fairshare.jobs (cluster, job_id, user_name, account, partition, qos, state, submit_time, eligible_time,
                            start_time, end_time, tres, cpus, mem_mb) VALUES
  ('h', '1', 'regress_fs_h_alice', 'a', 'p', 'normal', 'COMPLETED', '2025-02-01 08:00+00', '2025-02-01 08:00+00',
   '2025-02-01 09:00+00', '2025-02-03 09:00+00', 'cpu=4,mem=8G,node=1', 4, 8192),
  ('h', '2', 'regress_fs_h_bob', 'b', 'p', 'normal', 'RUNNING', '2025-02-01 08:00+00', '2025-02-01 08:00+00',
   '2025-02-02 09:00+00', NULL, 'cpu=8,node=1', 8, 0),
  ('h', '3', 'regress_fs_h_alice', 'a', 'p', 'normal', 'PENDING', '2025-02-03 10:00+00', '2025-02-03 10:00+00',
   NULL, NULL, NULL, 2, 1024),
  ('hp', '1', 'regress_fs_h_bob', 'g', 'q', NULL, 'COMPLETED', '2025-02-01 08:00+00', NULL,
   '2025-02-01 09:00+00', '2025-02-01 10:00+00', NULL, 2, 4096);
INSERT INTO fairshare.publications (user_name, title, published) VALUES ('regress_fs_h_alice', 'Paper', '2025-01-10');
INSERT INTO fairshare.pbs_settings (cluster, publication_factor) VALUES ('hp', 0.9);
INSERT INTO fairshare.genci_settings (cluster) VALUES ('h');
INSERT INTO fairshare.allocations (cluster, account, policy, period_start, period_end, hours) VALUES
  ('h', 'a', 'genci', '2025-01-01', '2025-12-31', 12000),
  ('h', 'b', 'rwth', '2025-01-01', '2025-06-30', 600);
SELECT pg_temp.err($$INSERT INTO fairshare.accounts (cluster, account, parent_account, shares) VALUES ('h', 'x', 'a', -1)$$);
SELECT pg_temp.err($$UPDATE fairshare.accounts SET parent_account = 'a' WHERE account OPERATOR(pg_catalog.=) 'a'$$);
CALL fairshare.apply_genci_regulation('2025-03-15', 'h');
-- imports: sacct (a new account and user created, one line rejected for
-- its month 13) and a PBS log (one line that is no record)
SELECT fairshare.import_stage();
INSERT INTO import_staging (line) VALUES
  ('JobID|User|Account|Partition|AllocCPUS|AllocTRES|Submit|Eligible|Start|End|State'),
  ('4|regress_fs_h_bob|b|p|2|cpu=2,node=1|2025-02-04T08:00:00|2025-02-04T08:00:00|2025-02-04T09:00:00|2025-02-04T10:00:00|COMPLETED'),
  ('5|regress_fs_h_carl|c|p|1|cpu=1,node=1|2025-02-04T08:00:00|2025-02-04T08:00:00|2025-02-04T09:00:00|2025-02-04T10:00:00|COMPLETED'),
  ('6|regress_fs_h_bob|b|p|2|cpu=2,node=1|2025-13-40T08:00:00|2025-02-04T08:00:00|2025-02-04T09:00:00|2025-02-04T10:00:00|COMPLETED');
SELECT lines_read, imported, rejected, created_accounts, created_users FROM fairshare.import_sacct('h', 'Europe/Paris', create_missing => true);
INSERT INTO import_staging (line) VALUES
  ('02/04/2025 10:00:00;E;1.pbs;user=regress_fs_h_alice group=users account="g" queue=q ctime=1738656000 qtime=1738656000 etime=1738656000 start=1738659600 exec_host=n/0 Resource_List.ncpus=1 Resource_List.nodect=1 session=1 end=1738663200 Exit_status=0 resources_used.walltime=01:00:00 resources_used.ncpus=1 run_count=1'),
  ('garbage line without the record fields');
SELECT lines_read, imported, rejected FROM fairshare.import_pbs('hp', 'UTC', create_missing => true);
INSERT INTO fairshare.ledger (allocation_id, kind, hours, effective_date)
SELECT allocation_id, 'addition', 100, '2025-04-01' FROM fairshare.allocations WHERE policy OPERATOR(pg_catalog.=) 'genci';

-- every view
RESET search_path;
SELECT 'SET search_path = public, pg_catalog',
       format('SELECT %L AS view, count(*) AS rows FROM %s', c.relname, c.oid::regclass)
  FROM pg_class c WHERE c.relnamespace = 'fairshare'::regnamespace AND c.relkind = 'v' ORDER BY c.relname \gexec
-- the model's functions, at a fixed instant
SET search_path = public, pg_catalog;
SELECT count(*) AS sshare_at FROM fairshare.sshare_at('2025-02-03 12:00+00');
SELECT count(*) AS sprio_at FROM fairshare.sprio_at('2025-02-03 12:00+00');
SELECT count(*) AS start_next
  FROM fairshare.start_next('[{"cluster": "h", "partition": "p", "cpus": 4, "mem_mb": 4096}]', '2025-02-03 12:00+00', false);
SELECT count(*) AS sshare_explain FROM fairshare.sshare_explain('h', 'regress_fs_h_alice', 'regress_fs_h_bob', '2025-02-03 12:00+00');
SELECT count(*) AS association_usage_at FROM fairshare.association_usage_at('2025-02-03 12:00+00');
SELECT count(*) AS pbsfs_at FROM fairshare.pbsfs_at('2025-02-03 12:00+00');
SELECT count(*) AS metacentrum_user_usage_at FROM fairshare.metacentrum_user_usage_at('2025-02-03 12:00+00');
SELECT count(*) AS genci_report_at FROM fairshare.genci_report_at('2025-03-15');
SELECT count(*) AS r_wlm_usage_at FROM fairshare.r_wlm_usage_at('2025-03-01 00:00+00');
SELECT fairshare.allocation_consumption(allocation_id, '2025-03-01') AS consumed_core_hours
  FROM fairshare.allocations WHERE policy OPERATOR(pg_catalog.=) 'genci';
-- the pure functions, each family once: billing max(4 × 1.0, 8 × 0.25) = 4;
-- 4 cores × 2 h = 8; priority 0.5 × 1000 + 0.5 × 1000; age 1 day / 2 days;
-- GENCI 12000/12 on 15 March (ratio 2.4); RWTH 3 × 1000 − 800; 0.9²
SELECT fairshare.tres_billing('cpu=4,mem=8G', 'CPU=1.0,Mem=0.25G', 'max_tres') AS billing,
       fairshare.tres_count('cpu=4,mem=8G', 'mem') AS mem_mb,
       fairshare.core_hours(4, '2025-01-01 00:00+00', '2025-01-01 02:00+00') AS core_hours,
       fairshare.job_priority(0.5, 0.5, 0, 0, 0, 1000, 1000) AS priority,
       fairshare.age_factor('2025-01-01 00:00+00', '2025-01-02 00:00+00', '2 days') AS age,
       fairshare.genci_penalty(12000, 0, '2025-01-01', '2025-12-31', '2025-03-15') AS penalty,
       fairshare.rwth_available_quota(1000, 1000, 1000, 800, 0) AS available,
       fairshare.publication_multiplier(2, 0.9) AS multiplier;
SELECT pg_temp.err($$SELECT fairshare.core_hours(-1, '2025-01-01 00:00+00', '2025-01-01 02:00+00')$$);
SELECT count(*) AS window_functions
  FROM (SELECT fairshare.fair_tree_rank(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w,
               fairshare.classic_factor(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w,
               fairshare.pbs_fairshare_factor(t.id, t.parent_id, t.shares, t.usage, t.is_user) OVER w
          FROM fairshare.association_tree_at('2025-02-03 12:00+00') t WINDOW w AS (PARTITION BY t.cluster)) x;
SELECT fairshare.decayed_usage(u, s, e, '2025-01-03 00:00+00', '1 day') AS decayed
  FROM (VALUES (86400::float8, '2025-01-01 00:00+00'::timestamptz, '2025-01-02 00:00+00'::timestamptz)) v(u, s, e);
RESET search_path;
RESET ROLE;

-- a plain user, and the superuser, under the same path
SET ROLE regress_fs_h_alice;
SET search_path = public, pg_catalog;
SELECT count(*) AS alice_jobs FROM fairshare.jobs;
SELECT count(*) AS alice_my_sshare FROM fairshare.my_sshare_at('2025-02-03 12:00+00');
SELECT count(*) AS alice_my_sprio FROM fairshare.my_sprio_at('2025-02-03 12:00+00');
SELECT count(*) AS alice_my_pbsfs FROM fairshare.my_pbsfs_at('2025-02-03 12:00+00');
SELECT fairshare.my_user_name();
RESET search_path;
RESET ROLE;
SET search_path = public, pg_catalog;
SELECT pg_temp.err('UPDATE fairshare.ledger SET hours = 0');
SELECT count(*) AS superuser_my_sshare FROM fairshare.my_sshare;
RESET search_path;

-- No planted object was called after the three calls of the traps
SELECT last_value AS planted_calls FROM public.hostile_calls;

-- DROP EXTENSION leaves the group roles (they belong to the cluster)
DROP EXTENSION fairshare;
SELECT rolname FROM pg_roles WHERE rolname LIKE 'fairshare\_%' ORDER BY 1;

\c contrib_regression
DROP DATABASE fairshare_hostile;
DROP ROLE regress_fs_attacker, regress_fs_h_admin, regress_fs_h_alice, regress_fs_h_bob;
