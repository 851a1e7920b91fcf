-- classic: Slurm's classic fair share (PriorityFlags=NO_FAIR_TREE) as window
-- functions (docs/slurm.md#classic-fair-share, docs/slurm.md#edge-cases).
-- Arithmetic beside every number:
-- S = product of shares/level shares down the path (Fairshare=parent rows
-- take their fs parent's S); UN = raw usage / root raw usage;
-- UE = UN under the root, else UN + (UE(parent) - UN) x shares/level shares;
-- F = 2^(-(UE/S)/d).
SET search_path = fairshare, public;
SET extra_float_digits = 0;

CREATE FUNCTION pg_temp.f6(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '' WHEN x = 'Infinity' THEN 'inf'
                ELSE to_char(x, 'FM99999999990.000000') END $$;

-- ===========================================================================
-- 1. Slurm's test24.1 (testsuite/expect/test24.1; the tree of
--    classic_fair_share.html's example plus AccountG): sshare -lP lines
--    Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|
--    Root raw usage 20 + 25 + 0 + 25 + 0 + 30 = 100.
-- ===========================================================================
CREATE TEMP TABLE t241 (id text, parent text, shares float8, usage float8, is_user boolean);
INSERT INTO t241 VALUES
('root', NULL, 1, 0, false),
('AccountA', 'root', 40, 0, false),
  ('AccountB', 'AccountA', 30, 0, false), ('User1', 'AccountB', 1, 20, true),
  ('AccountC', 'AccountA', 10, 0, false), ('User2', 'AccountC', 1, 25, true), ('User3', 'AccountC', 1, 0, true),
('AccountD', 'root', 60, 0, false),
  ('AccountE', 'AccountD', 25, 0, false), ('User4', 'AccountE', 1, 25, true),
  ('AccountF', 'AccountD', 35, 0, false), ('User5', 'AccountF', 1, 0, true),
('AccountG', 'root', 0, 0, false), ('User6', 'AccountG', 0, 30, true);

CREATE TEMP TABLE t241_expected (id text, line text);
INSERT INTO t241_expected VALUES
-- S 40/100 = .4; UN 45/100 = .45; under root UE = UN = .45; F 2^(-.45/.4) = 2^-1.125 = 0.458502
('AccountA', 'AccountA||40|0.400000|45|0.450000|0.450000|0.458502|'),
-- S .4 x 30/40 = .3; UN .2; UE .2 + (.45 - .2) x 30/40 = .3875; F 2^(-.3875/.3) = 0.408479
('AccountB', 'AccountB||30|0.300000|20|0.200000|0.387500|0.408479|'),
-- S .3 x 1/1; UE .2 + (.3875 - .2) x 1/1 = .3875; F 0.408479
('User1',    'AccountB|User1|1|0.300000|20|0.200000|0.387500|0.408479|'),
-- S .4 x 10/40 = .1; UN .25; UE .25 + (.45 - .25) x 10/40 = .3; F 2^-3 = 0.125
('AccountC', 'AccountC||10|0.100000|25|0.250000|0.300000|0.125000|'),
-- S .1 x 1/2 = .05; UE .25 + (.3 - .25) x 1/2 = .275; F 2^(-.275/.05) = 2^-5.5 = 0.022097
('User2',    'AccountC|User2|1|0.050000|25|0.250000|0.275000|0.022097|'),
-- S .05; UN 0; UE 0 + .3 x 1/2 = .15; F 2^-3 = 0.125
('User3',    'AccountC|User3|1|0.050000|0|0.000000|0.150000|0.125000|'),
-- S .6; UE = UN = .25; F 2^(-.25/.6) = 2^-0.416667 = 0.749154
('AccountD', 'AccountD||60|0.600000|25|0.250000|0.250000|0.749154|'),
-- S .6 x 25/60 = .25; UE .25 + 0 = .25; F 2^-1 = .5
('AccountE', 'AccountE||25|0.250000|25|0.250000|0.250000|0.500000|'),
('User4',    'AccountE|User4|1|0.250000|25|0.250000|0.250000|0.500000|'),
-- S .6 x 35/60 = .35; UE 0 + .25 x 35/60 = .145833; F 2^(-.145833/.35) = 0.749154
('AccountF', 'AccountF||35|0.350000|0|0.000000|0.145833|0.749154|'),
('User5',    'AccountF|User5|1|0.350000|0|0.000000|0.145833|0.749154|'),
-- shares 0: S 0 -> F 0; UN = UE = 30/100
('AccountG', 'AccountG||0|0.000000|30|0.300000|0.300000|0.000000|'),
-- test24.1 checks only the start "AccountG|User6|0|" of this line.  Level shares 0:
-- S 0, UE = UE(AccountG) = .3 (no division by zero), F 0
('User6',    'AccountG|User6|0|0.000000|30|0.300000|0.300000|0.000000|');

CREATE TEMP VIEW t241_sshare AS
SELECT t.id,
       tree_order(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w AS ord,
       CASE WHEN t.is_user THEN t.parent ELSE t.id END || '|' ||
       CASE WHEN t.is_user THEN t.id ELSE '' END || '|' ||
       CASE WHEN t.shares IS NULL THEN 'parent' ELSE t.shares::bigint::text END || '|' ||
       pg_temp.f6(classic_norm_shares(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' ||
       trunc(tree_raw_usage(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w)::bigint || '|' ||
       pg_temp.f6(tree_norm_usage(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' ||
       pg_temp.f6(classic_effective_usage(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' ||
       pg_temp.f6(classic_factor(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' AS line
  FROM t241 t WINDOW w AS ();

SELECT s.ord, s.line, s.line = e.line AS same_as_slurm
  FROM t241_sshare s JOIN t241_expected e USING (id) ORDER BY s.ord;
SELECT count(*) AS lines_matching_test24_1
  FROM t241_sshare s JOIN t241_expected e USING (id) WHERE s.line = e.line;

-- the root: S 1, UE 1 (sshare's root line under classic), no factor
SELECT classic_norm_shares(id, parent, shares, usage, is_user) OVER w AS s,
       classic_effective_usage(id, parent, shares, usage, is_user) OVER w AS ue,
       classic_factor(id, parent, shares, usage, is_user) OVER w AS f,
       id
  FROM t241 WINDOW w AS () ORDER BY tree_order(id, parent, shares, usage, is_user) OVER w LIMIT 1;

-- classic_fair_share.html: "if user 2 had been allocated 4 shares instead of
-- 1, user 2 would have had .08 normalized shares": .4 x 10/40 x 4/5 = .08,
-- and User3 .4 x 10/40 x 1/5 = .02.
SELECT id, round(classic_norm_shares(id, parent, s, usage, is_user) OVER ()::numeric, 6) AS norm_shares
  FROM (SELECT id, parent, CASE id WHEN 'User2' THEN 4 ELSE shares END AS s, usage, is_user FROM t241) t
 ORDER BY id;

-- ===========================================================================
-- 2. FairShareDampeningFactor: UE/S = 10 gives 2^-10 = 0.0009765625 with
--    d = 1 and 2^(-10/5) = 0.25 with d = 5 (docs/slurm.md#classic-fair-share).
--    root 10: A S 1/10, UN 10/10 = 1 -> UE 1; a S .1 x 1/1, UE 1 + 0 = 1.
--    B S .9, UN 0 -> F 2^0 = 1 whatever d.
-- ===========================================================================
SELECT id, classic_factor(id, parent, shares, usage, is_user) OVER w AS d1,
       classic_factor(id, parent, shares, usage, is_user, 5) OVER w AS d5
  FROM (VALUES ('root', NULL, 1, 0, false), ('A', 'root', 1, 0, false), ('a', 'A', 1, 10, true),
               ('B', 'root', 9, 0, false)) v(id, parent, shares, usage, is_user)
WINDOW w AS () ORDER BY id;

-- ===========================================================================
-- 3. Fairshare=parent (classic_fair_share.html "FairShare=parent"): a parent
--    row takes S and UE from its fs parent, so users who are all parent
--    share their account's factor.
--    P1: root 6; A S 1/2, UN 4/6 -> F 2^(-(2/3)/(1/2)) = 2^(-4/3) = 0.396850;
--        p1, p2 (parent) copy A: 0.396850; B S 1/2, UN 2/6 -> 2^(-2/3) = 0.629961,
--        b1 S .5 x 1/1, UE 1/3 + 0 -> 0.629961.
--    P2: a parent account between A and its users: fs parent of x, y is A;
--        A's level shares x 1 + y 1 = 2 (P adds 0).  root 8: A S 2/4, UE 4/8;
--        x S .5 x 1/2 = .25, UN 2/8, UE .25 + (.5 - .25) x 1/2 = .375,
--        F 2^(-1.5) = 0.353553; y likewise with UN 2/8 -> 0.353553;
--        P copies A: S .5, UE .5 -> 0.5.
-- ===========================================================================
SELECT tree, id, classic_norm_shares(id, parent, shares, usage, is_user) OVER w AS s,
       round(classic_effective_usage(id, parent, shares, usage, is_user) OVER w::numeric, 6) AS ue,
       round(classic_factor(id, parent, shares, usage, is_user) OVER w::numeric, 6) AS f
  FROM (VALUES ('P1', 'root', NULL, 1, 0, false), ('P1', 'A', 'root', 1, 0, false),
               ('P1', 'p1', 'A', NULL, 1, true), ('P1', 'p2', 'A', NULL, 3, true),
               ('P1', 'B', 'root', 1, 0, false), ('P1', 'b1', 'B', 1, 2, true),
               ('P2', 'root', NULL, 1, 0, false), ('P2', 'A', 'root', 2, 0, false),
               ('P2', 'P', 'A', NULL, 0, false), ('P2', 'x', 'P', 1, 2, true), ('P2', 'y', 'P', 1, 2, true),
               ('P2', 'B', 'root', 2, 0, false), ('P2', 'b', 'B', 1, 4, true)) v(tree, id, parent, shares, usage, is_user)
WINDOW w AS (PARTITION BY tree)
 ORDER BY tree, tree_order(id, parent, shares, usage, is_user) OVER w;

-- ===========================================================================
-- 4. A 0-share account: S 0 for its whole subtree under classic (F 0), but
--    not under Fair Tree, where S is local (z1: 1/1).  root 2: Z S 0/1 = 0;
--    z1 S 0 x 1/1 = 0 -> F 0; N S 1/1, UN 1/2 -> F 2^-0.5 = 0.707107.
--    Root usage 0 (tree R0): every UN and UE is 0, F 2^0 = 1.
-- ===========================================================================
SELECT tree, id, classic_norm_shares(id, parent, shares, usage, is_user) OVER w AS classic_s,
       fair_tree_norm_shares(id, parent, shares, usage, is_user) OVER w AS fair_tree_s,
       classic_effective_usage(id, parent, shares, usage, is_user) OVER w AS ue,
       round(classic_factor(id, parent, shares, usage, is_user) OVER w::numeric, 6) AS f
  FROM (VALUES ('Z', 'root', NULL, 1, 0, false), ('Z', 'Z', 'root', 0, 0, false), ('Z', 'z1', 'Z', 1, 1, true),
               ('Z', 'N', 'root', 1, 0, false), ('Z', 'n1', 'N', 1, 1, true),
               ('R0', 'root', NULL, 1, 0, false), ('R0', 'A', 'root', 1, 0, false),
               ('R0', 'a1', 'A', 3, 0, true), ('R0', 'a2', 'A', 1, 0, true)) v(tree, id, parent, shares, usage, is_user)
WINDOW w AS (PARTITION BY tree)
 ORDER BY tree, tree_order(id, parent, shares, usage, is_user) OVER w;

-- ===========================================================================
-- 5. Bad arguments
-- ===========================================================================
SELECT err($$SELECT classic_factor(id, parent, 1, 0, false, 0) OVER () FROM (VALUES ('root', NULL)) v(id, parent)$$);
SELECT err($$SELECT classic_factor(id, parent, 1, 0, false, -1) OVER () FROM (VALUES ('root', NULL)) v(id, parent)$$);
SELECT err($$SELECT classic_factor(id, parent, 1, 0, false, 'NaN') OVER () FROM (VALUES ('root', NULL)) v(id, parent)$$);
SELECT err($$SELECT classic_factor(id, parent, 1, 0, false, NULL) OVER () FROM (VALUES ('root', NULL)) v(id, parent)$$);
SELECT err($$SELECT classic_norm_shares(id, parent, 1, 0, false) OVER ()
  FROM (VALUES ('root', NULL), ('a', 'b'), ('b', 'a')) v(id, parent)$$);
