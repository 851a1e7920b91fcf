-- fair_tree: Slurm's Fair Tree as window functions (docs/slurm.md#fair-tree,
-- docs/slurm.md#edge-cases).
-- Every expected number is derived by hand in the comment beside it:
-- S = shares / level shares, U = raw usage / raw usage of the fs parent,
-- LF = S/U, ranks count down from N = number of user rows.
SET search_path = fairshare, public;
SET extra_float_digits = 0;

-- sshare's %f: 6 decimals, "inf" for infinity, empty for NULL
CREATE FUNCTION pg_temp.f6(x float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN x IS NULL THEN '' WHEN x = 'Infinity' THEN 'inf'
                ELSE to_char(x, 'FM99999999990.000000') END $$;

-- ===========================================================================
-- 1. Slurm's test24.4 (testsuite/expect/test24.4 + test24.4.prog.c): the
--    association tree, and sshare -lP's lines as the test expects them
--    (Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|
--    FairShare|LevelFS|, the TRES columns left out).  Account usage is the
--    sum of its users' (the .prog's account usage_raw is rebuilt from the
--    leaves).  N = 21 user associations.
-- ===========================================================================
CREATE TEMP TABLE t244 (id text, parent text, shares float8, usage float8, is_user boolean);
INSERT INTO t244 VALUES
('root', NULL, NULL, 0, false),
('u1', 'root', 10, 0, true),   ('u2', 'root', 10, 10, true),
('aA', 'root', 40, 0, false),
  ('aAA', 'aA', 30, 0, false), ('uAA1', 'aAA', 1, 20, true),
  ('aAB', 'aA', 10, 0, false), ('uAB1', 'aAB', 1, 25, true), ('uAB2', 'aAB', 1, 0, true),
('aB', 'root', 60, 0, false),
  ('aBA', 'aB', 25, 0, false), ('uBA1', 'aBA', 1, 25, true),
  ('aBB', 'aB', 35, 0, false), ('uBB1', 'aBB', 1, 0, true),
('aC', 'root', 0, 0, false),   ('uC1', 'aC', 0, 30, true),
('aD', 'root', 50, 0, false),
  ('uD1', 'aD', NULL, 20, true), ('uD2', 'aD', 40, 20, true), ('uD3', 'aD', 50, 25, true),
  ('aDA', 'aD', NULL, 0, false),
  ('uDA1', 'aDA', NULL, 10, true), ('uDA2', 'aDA', 30, 10, true), ('uDA3', 'aDA', 50, 25, true),
('aE', 'root', 10, 0, false),  ('aE1', 'aE', 10, 0, true), ('aE2', 'aE', 10, 0, true),
('aF', 'root', 20, 0, false),  ('uF1', 'aF', 10, 0, true), ('uF2', 'aF', 20, 0, true),
('aG', 'root', 8, 0, false),   ('uG1', 'aG', 10, 10, true),
  ('aGA', 'aG', 10, 0, false), ('uGA1', 'aGA', 20, 4, true), ('uGA2', 'aGA', 20, 6, true);

CREATE TEMP TABLE t244_expected (id text, line text);
INSERT INTO t244_expected VALUES
-- root: raw usage 0+10+45+25+30+110+0+0+20 = 240; NormShares 0, EffectvUsage 1
('root', 'root|||0.000000|240||1.000000|||'),
-- root's fs group: level shares 10+10+40+60+0+50+10+20+8 = 208
-- u1: S 10/208 = 0.048077, U 0/240 -> LF inf; first of the inf group -> rank 21 = N -> 21/21
('u1',   'root|u1|10|0.048077|0|0.000000|0.000000|1.000000|inf|'),
-- u2: U 10/240 = 0.041667, LF 0.048077/0.041667 = 1.153846; visited after the inf group
--     (u1, aE1, aE2, uF1, uF2 all tied at 21) and aB (2.769: uBB1 16, uBA1 15), so
--     rank = rnt = 21 - 7 = 14 -> 14/21 = 0.666667
('u2',   'root|u2|10|0.048077|10|0.041667|0.041667|0.666667|1.153846|'),
-- aA: S 40/208 = 0.192308, U 45/240 = 0.1875, LF 1.025641
('aA',   'aA||40|0.192308|45|0.187500|0.187500||1.025641|'),
-- aAA: S 30/40 = 0.75, U 20/45 = 0.444444, LF 1.6875 (before aAB's 0.45)
('aAA',  'aAA||30|0.750000|20|0.083333|0.444444||1.687500|'),
-- uAA1: S 1/1, U 20/20 = 1, LF 1; rank 13 -> 0.619048
('uAA1', 'aAA|uAA1|1|1.000000|20|0.083333|1.000000|0.619048|1.000000|'),
-- aAB: S 10/40 = 0.25, U 25/45 = 0.555556, LF 0.45
('aAB',  'aAB||10|0.250000|25|0.104167|0.555556||0.450000|'),
-- uAB1: S 0.5, U 25/25 = 1, LF 0.5 -> after uAB2 -> rank 11 -> 0.523810
('uAB1', 'aAB|uAB1|1|0.500000|25|0.104167|1.000000|0.523810|0.500000|'),
-- uAB2: S 0.5, U 0 -> inf -> rank 12 -> 0.571429
('uAB2', 'aAB|uAB2|1|0.500000|0|0.000000|0.000000|0.571429|inf|'),
-- aB: S 60/208 = 0.288462, U 25/240 = 0.104167, LF 2.769231 (first finite at root level)
('aB',   'aB||60|0.288462|25|0.104167|0.104167||2.769231|'),
-- aBA: S 25/60, U 25/25 = 1, LF 0.416667
('aBA',  'aBA||25|0.416667|25|0.104167|1.000000||0.416667|'),
-- uBA1: rank 15 -> 0.714286
('uBA1', 'aBA|uBA1|1|1.000000|25|0.104167|1.000000|0.714286|1.000000|'),
-- aBB: S 35/60 = 0.583333, U 0 -> inf, visited first in aB; not tied (aB was not)
('aBB',  'aBB||35|0.583333|0|0.000000|0.000000||inf|'),
-- uBB1: rank = rnt = 16 (21 - 5 users ranked) -> 0.761905
('uBB1', 'aBB|uBB1|1|1.000000|0|0.000000|0.000000|0.761905|inf|'),
-- aC: shares 0 -> S 0 -> LF 0 (last)
('aC',   'aC||0|0.000000|30|0.125000|0.125000||0.000000|'),
-- uC1: level shares 0 -> S 0, LF 0; last user: rank 1 -> 1/21 = 0.047619
('uC1',  'aC|uC1|0|0.000000|30|0.125000|1.000000|0.047619|0.000000|'),
-- aD: S 50/208 = 0.240385, U 110/240 = 0.458333, LF 0.524476
('aD',   'aD||50|0.240385|110|0.458333|0.458333||0.524476|'),
-- aD's fs group: uD1, uD2, uD3, aDA, uDA1, uDA2, uDA3 (aDA is parent: its users move up);
-- level shares 40+50+30+50 = 170 (parent rows add 0); raw usage of aD 110
-- uD1: parent user -> NormShares = S(aD) 0.240385, U 20/110 = 0.181818, LF inf (shown empty);
--      first in aD: rank = rnt = 10 -> 0.476190
('uD1',  'aD|uD1|parent|0.240385|20|0.083333|0.181818|0.476190||'),
-- uD2: S 40/170 = 0.235294, U 20/110, LF 1.29411764705882337 (float8, just below uD3's) -> rank 5
('uD2',  'aD|uD2|40|0.235294|20|0.083333|0.181818|0.238095|1.294118|'),
-- uD3: S 50/170 = 0.294118, U 25/110 = 0.227273, LF 1.29411764705882359 -> rank 7 -> 0.333333
('uD3',  'aD|uD3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118|'),
-- aDA: parent account: NormShares S(aD), U 45/110 = 0.409091, LevelFS empty
('aDA',  'aDA||parent|0.240385|45|0.187500|0.409091|||'),
-- uDA1: parent user, LF inf tied with uD1 -> rank 10
('uDA1', 'aDA|uDA1|parent|0.240385|10|0.041667|0.090909|0.476190||'),
-- uDA2: S 30/170 = 0.176471, U 10/110 = 0.090909, LF 1.941176 -> after aDA (NO_VAL): rank 8
('uDA2', 'aDA|uDA2|30|0.176471|10|0.041667|0.090909|0.380952|1.941176|'),
-- uDA3: same S and U as uD3 -> same LF, tied -> rank 7
('uDA3', 'aDA|uDA3|50|0.294118|25|0.104167|0.227273|0.333333|1.294118|'),
-- aE: S 10/208, U 0 -> inf, tied with u1 -> its users keep rank 21
('aE',   'aE||10|0.048077|0|0.000000|0.000000||inf|'),
('aE1',  'aE|aE1|10|0.500000|0|0.000000|0.000000|1.000000|inf|'),
('aE2',  'aE|aE2|10|0.500000|0|0.000000|0.000000|1.000000|inf|'),
-- aF: S 20/208 = 0.096154, inf, tied with aE -> uF1 (10/30) and uF2 (20/30) keep rank 21
('aF',   'aF||20|0.096154|0|0.000000|0.000000||inf|'),
('uF1',  'aF|uF1|10|0.333333|0|0.000000|0.000000|1.000000|inf|'),
('uF2',  'aF|uF2|20|0.666667|0|0.000000|0.000000|1.000000|inf|'),
-- aG: S 8/208 = 0.038462, U 20/240 = 0.083333, LF 0.461538 (before aC)
('aG',   'aG||8|0.038462|20|0.083333|0.083333||0.461538|'),
-- uG1: S 10/20, U 10/20 -> LF 1, user before the tied account aGA -> rank 4 -> 0.190476
('uG1',  'aG|uG1|10|0.500000|10|0.041667|0.500000|0.190476|1.000000|'),
('aGA',  'aGA||10|0.500000|10|0.041667|0.500000||1.000000|'),
-- uGA1: S 20/40, U 4/10 = 0.4, LF 1.25; first child of tied aGA -> keeps rank 4
('uGA1', 'aGA|uGA1|20|0.500000|4|0.016667|0.400000|0.190476|1.250000|'),
-- uGA2: U 6/10 = 0.6, LF 0.833333; rnt = 2 -> rank 2 -> 0.095238
('uGA2', 'aGA|uGA2|20|0.500000|6|0.025000|0.600000|0.095238|0.833333|');

CREATE TEMP VIEW t244_sshare AS
SELECT t.id,
       tree_order(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w AS ord,
       CASE WHEN t.is_user THEN t.parent ELSE t.id END || '|' ||
       CASE WHEN t.is_user THEN t.id ELSE '' END || '|' ||
       CASE WHEN t.parent IS NULL THEN '' WHEN t.shares IS NULL THEN 'parent' ELSE t.shares::bigint::text END || '|' ||
       pg_temp.f6(fair_tree_norm_shares(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' ||
       trunc(tree_raw_usage(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w)::bigint || '|' ||
       CASE WHEN t.parent IS NULL THEN ''
            ELSE pg_temp.f6(tree_norm_usage(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) END || '|' ||
       pg_temp.f6(fair_tree_effective_usage(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' ||
       pg_temp.f6(fair_tree_factor(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' ||
       pg_temp.f6(fair_tree_level_fs(t.id, t.parent, t.shares, t.usage, t.is_user) OVER w) || '|' AS line
  FROM t244 t WINDOW w AS ();

-- every line equal to Slurm's, listed in sshare's (lineage) order
SELECT s.ord, s.line, s.line = e.line AS same_as_slurm
  FROM t244_sshare s JOIN t244_expected e USING (id) ORDER BY s.ord;
SELECT count(*) AS lines_matching_test24_4 FROM t244_sshare s JOIN t244_expected e USING (id) WHERE s.line = e.line;

-- ranks (21 = most deserving) and depth; N = 21
SELECT id, depth, rank FROM (
    SELECT id, is_user, tree_depth(id, parent, shares, usage, is_user) OVER w AS depth,
           fair_tree_rank(id, parent, shares, usage, is_user) OVER w AS rank
      FROM t244 WINDOW w AS ()) r
 WHERE is_user ORDER BY rank DESC, id;

-- docs/slurm.md#fair-tree: uD2 and uD3 are both 22/17 in exact arithmetic; in
-- float8 with Slurm's order S/U they differ (uD2 below), cross-multiplication
-- ties them.
SELECT id, fair_tree_level_fs(id, parent, shares, usage, is_user) OVER w AS level_fs,
       fair_tree_rank(id, parent, shares, usage, is_user) OVER w AS rank
  FROM t244 WINDOW w AS () ORDER BY id;  -- (all rows; uD2/uD3 are the point)
SELECT (40::float8 / 170) / (20::float8 / 110) < (50::float8 / 170) / (25::float8 / 110) AS ud2_below_ud3_in_float8,
       (40::float8 * 110) / (170 * 20) = (50::float8 * 110) / (170 * 25) AS tie_if_cross_multiplied;

-- the answer does not depend on the row order of the partition nor on the
-- window's ORDER BY / frame: every row gets the same values either way
SELECT count(*) AS rows_differing
  FROM (SELECT id, fair_tree_rank(id, parent, shares, usage, is_user) OVER (ORDER BY id DESC) AS r,
               fair_tree_level_fs(id, parent, shares, usage, is_user) OVER (ORDER BY usage, id ROWS 1 PRECEDING) AS lf
          FROM t244) a
  JOIN (SELECT id, fair_tree_rank(id, parent, shares, usage, is_user) OVER () AS r,
               fair_tree_level_fs(id, parent, shares, usage, is_user) OVER () AS lf
          FROM t244) b USING (id)
 WHERE a.r IS DISTINCT FROM b.r OR a.lf IS DISTINCT FROM b.lf;

-- ===========================================================================
-- 2. Edge cases of docs/slurm.md#edge-cases, one small tree per partition.
-- ===========================================================================
CREATE TEMP TABLE edge (tree text, id text, parent text, shares float8, usage float8, is_user boolean);
INSERT INTO edge VALUES
-- E1 usage 0 -> inf; an account with usage 0 gives its children U = 0.
--  root 5: A S 1/2, U 0 -> inf; b S 1/2, U 5/5 -> 0.5.
--  A: a1 S 1/4, a2 S 3/4, both U 0 (A has 0) -> inf, tied.  N = 3:
--  a1 3, a2 3 (tied), b rank = rnt = 1.
('E1', 'root', NULL, NULL, 0, false), ('E1', 'A', 'root', 1, 0, false),
('E1', 'a1', 'A', 1, 0, true), ('E1', 'a2', 'A', 3, 0, true), ('E1', 'b', 'root', 1, 5, true),
-- E2 shares 0 -> LF 0 whatever the usage, 0/0 included.
--  root 20, level shares 1: p S 1, U 10/20 -> 2; z0 S 0 -> 0; z1 S 0 -> 0.
--  N = 3: p 3; z0 2 (0 < 2, not tied); z1 tied with z0 -> 2.
('E2', 'root', NULL, NULL, 0, false), ('E2', 'p', 'root', 1, 10, true),
('E2', 'z0', 'root', 0, 0, true), ('E2', 'z1', 'root', 0, 10, true),
-- E3 all siblings 0 shares: level shares 0 -> S 0 for each, LF 0, all tied: 3, 3, 3.
('E3', 'root', NULL, NULL, 0, false), ('E3', 'x', 'root', 0, 1, true),
('E3', 'y', 'root', 0, 0, true), ('E3', 'w', 'root', 0, 5, true),
-- E4 tied users, competition ranking.  root 8, level shares 4:
--  u1 S 2/4 U 4/8 -> 1; u2 S 1/4 U 2/8 -> 1; u3 S 1/4 U 1/8 -> 2; u4 S 0 -> 0.
--  N = 4: u3 4; u1 3; u2 tied -> 3; u4 rank = rnt = 1 (not 2).
('E4', 'root', NULL, NULL, 0, false), ('E4', 'u1', 'root', 2, 4, true), ('E4', 'u2', 'root', 1, 2, true),
('E4', 'u3', 'root', 1, 1, true), ('E4', 'u4', 'root', 0, 1, true),
-- E5a tied accounts are NOT merged.  root 8: A S 1/2 U 4/8 -> 1; B S 1/2 U 4/8 -> 1: tied, A first.
--  A: a1 S 1/2 U 1/4 -> 2; a2 S 1/2 U 3/4 -> 0.667.  B: b1, b2 S 1/2 U 2/4 -> 1.
--  N = 4: a1 4, a2 3; B is tied with A, so b1 (first in B) keeps the rank
--  of the last user ranked, a2's 3; b2 ties b1 -> 3.  (Merging, as the docs
--  say, would give a1 4, b1 3, b2 3, a2 1.)
('E5a', 'root', NULL, NULL, 0, false), ('E5a', 'A', 'root', 1, 0, false), ('E5a', 'B', 'root', 1, 0, false),
('E5a', 'a1', 'A', 1, 1, true), ('E5a', 'a2', 'A', 1, 3, true),
('E5a', 'b1', 'B', 1, 2, true), ('E5a', 'b2', 'B', 1, 2, true),
-- E5b the same tree with A renamed Z: now B is visited first.
--  b1 4, b2 4 (tied); Z tied with B: z1 (LF 2, first) keeps 4; z2 (0.667) rank = rnt = 1.
--  The answer depends on the account names: lineage order decides.
('E5b', 'root', NULL, NULL, 0, false), ('E5b', 'Z', 'root', 1, 0, false), ('E5b', 'B', 'root', 1, 0, false),
('E5b', 'z1', 'Z', 1, 1, true), ('E5b', 'z2', 'Z', 1, 3, true),
('E5b', 'b1', 'B', 1, 2, true), ('E5b', 'b2', 'B', 1, 2, true),
-- E6 a user tied with a sibling account goes first; the tie carries into the
--  account's first child.  root 8: u S 1/2 U 4/8 -> 1; A 1/2, 4/8 -> 1.
--  A: a1 S 1/2 U 1/4 -> 2; a2 S 1/2 U 3/4 -> 0.667.  N = 3: u 3; a1 tied -> 3; a2 1.
('E6', 'root', NULL, NULL, 0, false), ('E6', 'u', 'root', 1, 4, true), ('E6', 'A', 'root', 1, 0, false),
('E6', 'a1', 'A', 1, 1, true), ('E6', 'a2', 'A', 1, 3, true),
-- E7 Fairshare=parent: a chain of parent accounts P1 > P2 under A, a parent user y.
--  fs parent of P1, P2, x, y is A; A's fs group in lineage order: z, P1, P2, x, y;
--  level shares z 2 + x 2 = 4 (parent rows add 0).  Raw usage: A 4, B 4, root 8.
--  root: A S 1/2 U 4/8 -> 1; B 1/2, 4/8 -> 1; tied, A first.
--  A: y inf; P1, P2 NO_VAL (no fs children); x S 2/4 U 1/4 -> 2; z S 2/4 U 2/4 -> 1.
--  N = 4: y 4; x 3; z 2; B tied with A -> b keeps z's 2.
--  NormShares of y, P1, P2 = S(A) = 0.5; EffectvUsage y 1/4, P1 2/4, P2 2/4.
('E7', 'root', NULL, NULL, 0, false), ('E7', 'A', 'root', 1, 0, false), ('E7', 'B', 'root', 1, 0, false),
('E7', 'P1', 'A', NULL, 0, false), ('E7', 'P2', 'P1', NULL, 0, false),
('E7', 'x', 'P2', 2, 1, true), ('E7', 'y', 'P2', NULL, 1, true), ('E7', 'z', 'A', 2, 2, true),
('E7', 'b', 'B', 1, 4, true),
-- E8 N counts user associations: carol in two accounts counts twice, dan with 0 shares counts.
--  root 4: A S 1/2 U 1/4 -> 2; B S 1/2 U 3/4 -> 0.667.  N = 3.
--  A/carol 3; B: B/carol S 1/1 U 3/3 -> 1 -> 2; dan S 0 -> 1 -> factor 1/3 (never 0).
('E8', 'root', NULL, NULL, 0, false), ('E8', 'A', 'root', 1, 0, false), ('E8', 'B', 'root', 1, 0, false),
('E8', 'A/carol', 'A', 1, 1, true), ('E8', 'B/carol', 'B', 1, 3, true), ('E8', 'B/dan', 'B', 0, 0, true),
-- E9 an account's own usage (kept from deleted children) counts: A raw 6 + 2 = 8.
--  root 12: A S 1/2 U 8/12 -> 0.75; B S 1/2 U 4/12 -> 1.5: B first.
--  b1 S 1 U 4/4 -> 1 -> 2; a1 S 1 U 2/8 (not 2/2) = 0.25 -> LF 4 -> 1.
('E9', 'root', NULL, NULL, 0, false), ('E9', 'A', 'root', 1, 6, false), ('E9', 'B', 'root', 1, 0, false),
('E9', 'a1', 'A', 1, 2, true), ('E9', 'b1', 'B', 1, 4, true),
-- E10 root usage 0: every U is 0, every LF inf, NormUsage 0 (no division by zero).
--  u (user) before the tied account A; a1 inherits the tie: 2, 2.
('E10', 'root', NULL, NULL, 0, false), ('E10', 'A', 'root', 1, 0, false),
('E10', 'a1', 'A', 1, 0, true), ('E10', 'u', 'root', 1, 0, true),
-- E11 Fairshare=parent directly under the root: S(root) = 0 is what they show.
--  root 3, root's fs group: q (parent user), P (parent account), p1 (P's user, moved up).
--  level shares 1 (p1): p1 S 1, U 2/3 -> 1.5; q inf.  N = 2: q 2, p1 1.
('E11', 'root', NULL, NULL, 0, false), ('E11', 'q', 'root', NULL, 1, true),
('E11', 'P', 'root', NULL, 0, false), ('E11', 'p1', 'P', 1, 2, true),
-- E12 a tree with only its root: no users, nothing to rank.
('E12', 'root', NULL, 1, 7, false);

SELECT tree, id,
       fair_tree_rank(id, parent, shares, usage, is_user) OVER w AS rank,
       round(fair_tree_factor(id, parent, shares, usage, is_user) OVER w::numeric, 6) AS factor,
       fair_tree_level_fs(id, parent, shares, usage, is_user) OVER w AS level_fs,
       fair_tree_norm_shares(id, parent, shares, usage, is_user) OVER w AS norm_shares,
       fair_tree_effective_usage(id, parent, shares, usage, is_user) OVER w AS effectv_usage,
       tree_raw_usage(id, parent, shares, usage, is_user) OVER w AS raw_usage,
       tree_norm_usage(id, parent, shares, usage, is_user) OVER w AS norm_usage
  FROM edge
WINDOW w AS (PARTITION BY tree)
 ORDER BY tree, tree_order(id, parent, shares, usage, is_user) OVER w;

-- Lineage order compares ids as Slurm compares "/acct/0-user/": each id
-- followed by '/', so "bob.x" ('.' < '/') comes before "bob"; users before
-- sub-accounts whatever their names.
SELECT id, tree_order(id, parent, 1, 0, is_user) OVER () AS lineage
  FROM (VALUES ('root', NULL, false), ('bob', 'root', true), ('bob.x', 'root', true),
               ('Abc', 'root', false), ('zed', 'root', true), ('0acct', 'root', false),
               ('bob-y', 'Abc', true)) v(id, parent, is_user)
 ORDER BY 2;

-- Siblings are sorted by the first 8 bytes of their ids, as one number,
-- before the whole ids (docs/performance.md#fair-tree): ids that differ
-- before, at and after the 8th byte, that end there, or end where another
-- has a '/', and bytes above 127.  Lineage order is that of id || '/' as
-- bytes, a shorter one first when it starts the other:
--   "abc/" < "abc//" (start) < "abcdefg./" ('.' 2E < '/' 2F at byte 8)
--   < "abcdefg/" < "abcdefg//" (start) < "abcdefg0/" ('0' 30)
--   < "abcdefgh./" (byte 9: '.') < "abcdefgh/" < "abcdefgh/x/" (start)
--   < "abcdefghi/" ('i') < "\xc3a92f" (é: byte C3 > 'a' 61).
SELECT id, tree_order(id, parent, 1, 0, parent IS NOT NULL) OVER () AS lineage
  FROM (VALUES ('root', NULL), ('abcdefgh', 'root'), ('é', 'root'), ('abcdefg/', 'root'),
               ('abcdefghi', 'root'), ('abc/', 'root'), ('abcdefg0', 'root'), ('abcdefgh/x', 'root'),
               ('abcdefg', 'root'), ('abcdefgh.', 'root'), ('abc', 'root'), ('abcdefg.', 'root')) v(id, parent)
 ORDER BY 2;
-- Every id of 1 to 9 bytes over '.', '/' and 'a' (3 + 9 + ... + 3^9 =
-- (3^10 - 3) / 2 = 29523 siblings, even lengths users, odd accounts)
-- under one root, 29524 rows: tree_order is 1 for the root, then users
-- before accounts, each in the order of id || '/' as bytes.  0 differ.
WITH RECURSIVE s(id) AS (SELECT ''::text UNION ALL
                         SELECT s.id || c FROM s, unnest(ARRAY['.', '/', 'a']) c WHERE length(s.id) < 9),
t AS (SELECT 'root' AS id, NULL AS parent, false AS is_user
      UNION ALL SELECT id, 'root', length(id) % 2 = 0 FROM s WHERE id <> '')
SELECT count(*) AS associations,
       count(*) FILTER (WHERE got IS DISTINCT FROM want) AS out_of_order
  FROM (SELECT tree_order(id, parent, 1, 0, is_user) OVER () AS got,
               CASE WHEN parent IS NULL THEN 1
                    ELSE 1 + rank() OVER (PARTITION BY parent IS NULL
                                          ORDER BY NOT is_user, convert_to(id || '/', 'UTF8')) END AS want
          FROM t) x;

-- ===========================================================================
-- 3. The real cluster of test/fixtures/slurm (Slurm 22.05, Fair Tree,
--    no decay).  Tree from assoc.psv; usage per association = billing x
--    elapsed from sacct.psv, billing = Σ weight x TRES (Mem weights per GiB):
--      alice cistem   big  8 cpu 16G 60 s: (8x4.4 + 16x0.3125) x 60 = 40.2 x 60  = 2412
--      bob ingenomix  std  2 cpu 4G  30 s: (2x1 + 4x0.5) x 30        = 4 x 30     = 120
--      carol xlim     std 16 cpu 32G 90 s: (16 + 16) x 90            = 32 x 90    = 2880
--      carol ipam     low  4 cpu 8G  60 s: (4x0.5 + 8x0.25) x 60     = 4 x 60     = 240
--      dave xlim      big  4 cpu 10G 45 s: (17.6 + 3.125) x 45       = 20.725 x 45 = 932.625
--      erin ipam      std  1 cpu 1000M 20 s: (1 + 1000/1024x0.5) x 20 = 1.48828125 x 20 = 29.765625
--      frank geist    big 12 cpu 48G 75 s: (52.8 + 15) x 75         = 67.8 x 75  = 5085
--      grace geistlab std  6 cpu 12G 40 s: (6 + 6) x 40              = 12 x 40    = 480
--      heidi geistlab low  2 cpu 3G  50 s: (1 + 0.75) x 50           = 1.75 x 50  = 87.5
--      judy shs       std  3 cpu 6G  30 s: (3 + 3) x 30              = 6 x 30     = 180
--      kate shs       big  1 cpu 2G  20 s: (4.4 + 0.625) x 20        = 5.025 x 20 = 100.5
--    N = 13 (root's own user "root" counts; carol counts twice).
--    Expected ranks, hand-derived: root: root/root U 0 -> inf (13); unilim S 900/1001,
--    U 10015.390625/12547.390625 -> 1.126 before partners S 100/1001, U 2532/12547.39 -> 0.495.
--    unilim (level 999): ipam 10.517 > shs 5.361 > xlim 0.744 > geist 0.502.
--    ipam: erin 0.5/(29.77/269.77) = 4.53 (12) > carol 0.5/(240/269.77) = 0.562 (11).
--    shs: judy parent -> inf (10) > kate 1/(100.5/280.5) = 2.79 (9).
--    xlim: dave (5/15)/(932.625/3812.625) = 1.363 (8) > carol (10/15)/(2880/3812.625) = 0.883 (7).
--    geist (fs group frank, geistlab, grace, heidi; level 1+1+2 = 4): geistlab NO_VAL first
--    (no children), heidi 0.5/(87.5/5652.5) = 32.3 (6), grace 0.25/(480/5652.5) = 2.94 (5),
--    frank 0.25/(5085/5652.5) = 0.278 (4).
--    partners: ingenomix 0.5/(120/2532) = 10.55 > cistem 0.5/(2412/2532) = 0.525:
--    ivan U 0 -> inf (3), bob 0.5/1 (2); alice (1).
--    Checked against the cluster itself: the Priority sacct printed for every pending job
--    is 70000 x rank/13 + 30000 x partition factor + 5000 x job size (+ age < 1), e.g.
--    job 13 bob std 1 cpu: 70000 x 2/13 + 30000 x 100/300 + 5000 x (1/1 + 1/64)/2
--      = 10769.23 + 10000 + 2539.06 = 23308.3 -> 23308 (sacct: 23308);
--    job 16 carol ipam low 4 cpu: 70000 x 11/13 + 30000 x 10/300 + 5000 x (1 + 4/64)/2
--      = 59230.77 + 1000 + 2656.25 = 62887.0 -> 62887 (sacct: 62887);
--    job 23 judy std 8 cpu: 70000 x 10/13 + 10000 + 5000 x (1 + 8/64)/2
--      = 53846.15 + 10000 + 2812.5 = 66658.7 -> 66658 (sacct: 66658).
-- ===========================================================================
CREATE TEMP TABLE oracle (id text, parent text, shares float8, usage float8, is_user boolean);
INSERT INTO oracle VALUES
('root', NULL, 1, 0, false), ('root/root', 'root', 1, 0, true),
('partners', 'root', 100, 0, false),
  ('cistem', 'partners', 1, 0, false), ('cistem/alice', 'cistem', 1, 2412, true),
  ('ingenomix', 'partners', 1, 0, false), ('ingenomix/bob', 'ingenomix', 1, 120, true),
  ('ingenomix/ivan', 'ingenomix', 1, 0, true),
('unilim', 'root', 900, 0, false),
  ('geist', 'unilim', 283, 0, false), ('geist/frank', 'geist', 1, 5085, true),
  ('geistlab', 'geist', NULL, 0, false), ('geistlab/grace', 'geistlab', 1, 480, true),
  ('geistlab/heidi', 'geistlab', 2, 87.5, true),
  ('ipam', 'unilim', 283, 0, false), ('ipam/carol', 'ipam', 1, 240, true),
  ('ipam/erin', 'ipam', 1, 29.765625, true),
  ('shs', 'unilim', 150, 0, false), ('shs/judy', 'shs', NULL, 180, true), ('shs/kate', 'shs', 1, 100.5, true),
  ('xlim', 'unilim', 283, 0, false), ('xlim/carol', 'xlim', 10, 2880, true),
  ('xlim/dave', 'xlim', 5, 932.625, true);
SELECT id, rank, factor, level_fs FROM (
    SELECT id, is_user, fair_tree_rank(id, parent, shares, usage, is_user) OVER w AS rank,
           round(fair_tree_factor(id, parent, shares, usage, is_user) OVER w::numeric, 6) AS factor,
           round(fair_tree_level_fs(id, parent, shares, usage, is_user) OVER w::numeric, 6) AS level_fs
      FROM oracle WINDOW w AS ()) r
 WHERE is_user ORDER BY rank DESC;
-- the three pending jobs above, recomputed from the factors (Slurm truncates)
SELECT job, trunc(70000 * fs + 30000 * part + 5000 * js) AS priority, sacct
  FROM (SELECT fair_tree_factor(id, parent, shares, usage, is_user) OVER () AS fs, id FROM oracle) f
  JOIN (VALUES (13, 'ingenomix/bob', 100.0 / 300, (1 + 1.0 / 64) / 2, 23308),
               (16, 'ipam/carol', 10.0 / 300, (1 + 4.0 / 64) / 2, 62887),
               (23, 'shs/judy', 100.0 / 300, (1 + 8.0 / 64) / 2, 66658)) j(job, id, part, js, sacct) USING (id)
 ORDER BY job;

-- ===========================================================================
-- 4. Deep trees: a chain of 100000 accounts is walked without recursion.
--    One user at the bottom: N = 1, rank 1, factor 1; depth 100001.
-- ===========================================================================
SELECT max(d) AS max_depth, max(r) AS rank, max(f) AS factor, count(*) AS rows
  FROM (SELECT tree_depth(id, parent, 1, usage, is_user) OVER () AS d,
               fair_tree_rank(id, parent, 1, usage, is_user) OVER () AS r,
               fair_tree_factor(id, parent, 1, usage, is_user) OVER () AS f
          FROM (SELECT 'a' || i AS id, CASE WHEN i > 0 THEN 'a' || (i - 1) END AS parent,
                       0::float8 AS usage, false AS is_user
                  FROM generate_series(0, 100000) i
                UNION ALL SELECT 'user', 'a100000', 5, true) chain) x;

-- ===========================================================================
-- 5. Bad trees: an error naming the row.
-- ===========================================================================
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, false) OVER () FROM (VALUES (NULL, NULL)) v(id, parent)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, NULL) OVER () FROM (VALUES ('root', NULL)) v(id, parent)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, NULL, false) OVER () FROM (VALUES ('root', NULL)) v(id, parent)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, s, 0, u) OVER ()
  FROM (VALUES ('root', NULL, 1, false), ('x', 'root', -1, true)) v(id, parent, s, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, s, 0, u) OVER ()
  FROM (VALUES ('root', NULL, 1, false), ('x', 'root', 'NaN'::float8, true)) v(id, parent, s, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, us, u) OVER ()
  FROM (VALUES ('root', NULL, 0, false), ('x', 'root', 'Infinity'::float8, true)) v(id, parent, us, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, us, u) OVER ()
  FROM (VALUES ('root', NULL, 0, false), ('x', 'root', -0.5, true)) v(id, parent, us, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('root', NULL, false), ('x', 'root', true), ('x', 'root', true)) v(id, parent, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('root', NULL, false), ('x', 'nowhere', true)) v(id, parent, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('root', NULL, false), ('other', NULL, false)) v(id, parent, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('a', 'b', false), ('b', 'a', false)) v(id, parent, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('root', NULL, false), ('a', 'b', false), ('b', 'c', false), ('c', 'a', false),
               ('x', 'root', true)) v(id, parent, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('root', NULL, false), ('a', 'a', false)) v(id, parent, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('root', NULL, false), ('alice', 'root', true), ('sub', 'alice', false)) v(id, parent, u)$$);
SELECT err($$SELECT fair_tree_rank(id, parent, 1, 0, u) OVER ()
  FROM (VALUES ('root', NULL, true)) v(id, parent, u)$$);
-- usage or shares that add up past float8 (1e308 + 1e308): 22003.  They gave
-- effective usage 0 and Level FS Infinity (usage), or every NormShares 0
-- (shares), where each of the two users holds a half.
SELECT err($$SELECT fair_tree_effective_usage(id, parent, 1, us, u) OVER ()
  FROM (VALUES ('root', NULL, 0, false), ('x', 'root', 1e308, true), ('y', 'root', 1e308, true)) v(id, parent, us, u)$$);
SELECT err($$SELECT fair_tree_norm_shares(id, parent, s, 0, u) OVER ()
  FROM (VALUES ('root', NULL, 1, false), ('x', 'root', 1e308, true), ('y', 'root', 1e308, true)) v(id, parent, s, u)$$);
-- Two or more such associations: the first in row order is named, whatever
-- the tree's order (sshare's lineage order here is root, a, ua1, ua2, b, ub1,
-- ub2).  Usage 1e308 + 1e308 beneath a, beneath b and beneath the root
-- (1e308 × 4), rows a's group, b's group, then the root: "a" (not the root,
-- first in lineage order, nor b, whose total is complete first).  Shares
-- 1e308 + 1e308 under b and under a (the root's children a, b: 1 + 1 = 2),
-- rows b's group first: "b" (not a, first in lineage order).
SELECT err($$SELECT fair_tree_effective_usage(id, parent, 1, us, u) OVER ()
  FROM (VALUES ('a', 'root', 0, false), ('ua1', 'a', 1e308, true), ('ua2', 'a', 1e308, true),
               ('b', 'root', 0, false), ('ub1', 'b', 1e308, true), ('ub2', 'b', 1e308, true),
               ('root', NULL, 0, false)) v(id, parent, us, u)$$);
SELECT err($$SELECT fair_tree_norm_shares(id, parent, s, 0, u) OVER ()
  FROM (VALUES ('b', 'root', 1, false), ('ub1', 'b', 1e308, true), ('ub2', 'b', 1e308, true),
               ('a', 'root', 1, false), ('ua1', 'a', 1e308, true), ('ua2', 'a', 1e308, true),
               ('root', NULL, 1, false)) v(id, parent, s, u)$$);
-- one 1e308 alone still fits: EffectvUsage 1e308 / 1e308 = 1
SELECT id, fair_tree_effective_usage(id, parent, 1, us, u) OVER () AS effectv_usage
  FROM (VALUES ('root', NULL, 0, false), ('x', 'root', 1e308, true)) v(id, parent, us, u) ORDER BY id;

-- ===========================================================================
-- 6. The node form (docs/fairshare.md#the-node-form): every function with
--    the row as one fair_tree_node gives what its five-argument form gives,
--    row by row, exactly; bad rows raise the same errors.
-- ===========================================================================
-- the trees of sections 1-3, one per partition: t244 35 rows, oracle 23,
-- edge 66 (its own 13 trees): 35 + 23 + 66 = 124 rows
-- float8 as text to the last digit (shortest exact form), so that equal
-- text is equal bits in the comparisons below
SET extra_float_digits = 1;
CREATE TEMP TABLE node_trees AS
SELECT 't244' AS tree, id, parent, shares, usage, is_user FROM t244
UNION ALL SELECT 'oracle', id, parent, shares, usage, is_user FROM oracle
UNION ALL SELECT tree, id, parent, shares, usage, is_user FROM edge;
SELECT (SELECT count(*) FROM t244) AS t244, (SELECT count(*) FROM oracle) AS oracle,
       (SELECT count(*) FROM edge) AS edge, (SELECT count(DISTINCT tree) FROM edge) AS edge_trees;
-- every output of the twelve functions (classic_factor with its default
-- dampening 1 and with 2), both forms, over every row: 0 rows differ, and
-- the count of rows compared is the count of rows, 124
SELECT count(*) AS rows_compared,
       count(*) FILTER (WHERE five IS DISTINCT FROM node) AS rows_differing,
       (SELECT count(*) FROM node_trees) AS rows_in_trees
  FROM (SELECT tree, id,
               ROW(fair_tree_rank(id, parent, shares, usage, is_user) OVER w,
                   fair_tree_factor(id, parent, shares, usage, is_user) OVER w,
                   fair_tree_level_fs(id, parent, shares, usage, is_user) OVER w,
                   fair_tree_norm_shares(id, parent, shares, usage, is_user) OVER w,
                   fair_tree_effective_usage(id, parent, shares, usage, is_user) OVER w,
                   classic_norm_shares(id, parent, shares, usage, is_user) OVER w,
                   classic_effective_usage(id, parent, shares, usage, is_user) OVER w,
                   classic_factor(id, parent, shares, usage, is_user) OVER w,
                   classic_factor(id, parent, shares, usage, is_user, 2) OVER w,
                   tree_raw_usage(id, parent, shares, usage, is_user) OVER w,
                   tree_norm_usage(id, parent, shares, usage, is_user) OVER w,
                   tree_depth(id, parent, shares, usage, is_user) OVER w,
                   tree_order(id, parent, shares, usage, is_user) OVER w)::text AS five,
               ROW(fair_tree_rank(n) OVER w, fair_tree_factor(n) OVER w, fair_tree_level_fs(n) OVER w,
                   fair_tree_norm_shares(n) OVER w, fair_tree_effective_usage(n) OVER w,
                   classic_norm_shares(n) OVER w, classic_effective_usage(n) OVER w,
                   classic_factor(n) OVER w, classic_factor(n, 2) OVER w,
                   tree_raw_usage(n) OVER w, tree_norm_usage(n) OVER w,
                   tree_depth(n) OVER w, tree_order(n) OVER w)::text AS node
          FROM (SELECT *, ROW(id, parent, shares, usage, is_user)::fair_tree_node AS n FROM node_trees) x
        WINDOW w AS (PARTITION BY tree)) c;
-- the text of a row above tells float8s apart to the last bit: t244's uD2 and uD3 (section 1:
-- ranks 5 and 7, LF 1.29411764705882337 and 1.29411764705882359, which
-- differ in the last bit) in the node form
SELECT id, rank, level_fs
  FROM (SELECT id, fair_tree_rank(ROW(id, parent, shares, usage, is_user)::fair_tree_node) OVER () AS rank,
               fair_tree_level_fs(ROW(id, parent, shares, usage, is_user)::fair_tree_node) OVER () AS level_fs
          FROM t244) r
 WHERE id IN ('uD2', 'uD3') ORDER BY id;
-- sshare's tree columns, both forms, both algorithms, with a usage now of
-- its own on every third row (1.5 x usage) and NULL (the same) elsewhere:
-- 0 rows differ over 2 x 124 = 248
SELECT count(*) AS rows_compared, count(*) FILTER (WHERE five IS DISTINCT FROM node) AS rows_differing
  FROM (SELECT fairshare_internal._sshare_tree(id, parent, shares, usage, is_user, alg, 2, live) OVER w AS five,
               fairshare_internal._sshare_tree(
                   ROW(id, parent, shares, usage, is_user, live)::fairshare_internal._sshare_tree_node, alg, 2) OVER w AS node
          FROM (SELECT *, CASE WHEN row_number() OVER (ORDER BY tree, id) % 3 = 0 THEN 1.5 * usage END AS live
                  FROM node_trees) x
         CROSS JOIN (VALUES ('fair_tree'), ('classic')) a(alg)
        WINDOW w AS (PARTITION BY alg, tree)) c;

-- _sshare_fairshare, the FairShare column alone (the factors a usage
-- checkpoint caches), against _sshare_tree's over the same rows, both
-- algorithms, dampening 2: the same float8 on each of the 248 rows, NULL
-- where _sshare_tree's is NULL: 53 = Fair Tree's 38 accounts and 15 roots,
-- which get no factor (classic gives every row one)
SELECT count(*) AS rows_compared, count(*) FILTER (WHERE (whole).fairshare IS DISTINCT FROM alone) AS rows_differing,
       count(*) FILTER (WHERE alone IS NULL) AS nulls
  FROM (SELECT fairshare_internal._sshare_tree(
                   ROW(id, parent, shares, usage, is_user, live)::fairshare_internal._sshare_tree_node, alg, 2) OVER w AS whole,
               fairshare_internal._sshare_fairshare(
                   ROW(id, parent, shares, usage, is_user, live)::fairshare_internal._sshare_tree_node, alg, 2) OVER w AS alone
          FROM (SELECT *, CASE WHEN row_number() OVER (ORDER BY tree, id) % 3 = 0 THEN 1.5 * usage END AS live
                  FROM node_trees) x
         CROSS JOIN (VALUES ('fair_tree'), ('classic')) a(alg)
        WINDOW w AS (PARTITION BY alg, tree)) c;

-- Bad rows: SQLSTATE, message and hint, and whether the five-argument form
-- raises exactly the same (a NULL node has no five-argument equivalent)
CREATE FUNCTION pg_temp.err_hint(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    st text;
    msg text;
    hint text;
BEGIN
    EXECUTE q;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN st || ': ' || msg || ' (HINT: ' || hint || ')';
END $$;
CREATE TEMP TABLE bad_rows (name text, id text, parent text, shares float8, usage float8, is_user boolean);
INSERT INTO bad_rows VALUES
  ('null id', 'root', NULL, 1, 0, false), ('null id', NULL, 'root', 1, 0, true),
  ('null is_user', 'root', NULL, 1, 0, false), ('null is_user', 'x', 'root', 1, 0, NULL),
  ('null usage', 'root', NULL, 1, 0, false), ('null usage', 'x', 'root', 1, NULL, true),
  ('negative shares', 'root', NULL, 1, 0, false), ('negative shares', 'x', 'root', -0.5, 0, true),
  ('NaN usage', 'root', NULL, 1, 0, false), ('NaN usage', 'x', 'root', 1, 'NaN', true),
  ('infinite shares', 'root', NULL, 1, 0, false), ('infinite shares', 'x', 'root', 'Infinity', 0, true),
  ('duplicate id', 'root', NULL, 1, 0, false), ('duplicate id', 'x', 'root', 1, 0, true),
  ('duplicate id', 'x', 'root', 1, 0, true),
  ('missing parent', 'root', NULL, 1, 0, false), ('missing parent', 'x', 'nowhere', 1, 0, true),
  ('user with a child', 'root', NULL, 1, 0, false), ('user with a child', 'alice', 'root', 1, 0, true),
  ('user with a child', 'sub', 'alice', 1, 0, false);
SELECT name, node_form, node_form OPERATOR(pg_catalog.=) five_arguments AS same_as_five_arguments
  FROM (SELECT name,
               pg_temp.err_hint(format($q$SELECT fair_tree_rank(ROW(id, parent, shares, usage, is_user)::fair_tree_node) OVER ()
                                            FROM bad_rows WHERE name = %L$q$, name)) AS node_form,
               pg_temp.err_hint(format($q$SELECT fair_tree_rank(id, parent, shares, usage, is_user) OVER ()
                                            FROM bad_rows WHERE name = %L$q$, name)) AS five_arguments
          FROM (SELECT DISTINCT name FROM bad_rows) b) e
 ORDER BY name;
-- a NULL node (row 2 of the partition): 22004
SELECT pg_temp.err_hint($q$SELECT fair_tree_factor(CASE WHEN id = 'x' THEN NULL
                                                       ELSE ROW(id, parent, 1, 0, false)::fair_tree_node END) OVER ()
                             FROM (VALUES ('root', NULL), ('x', 'root')) v(id, parent)$q$) AS null_node;
-- the node form's own arguments are checked as the five-argument form's
SELECT pg_temp.err_hint($q$SELECT classic_factor(ROW('root', NULL, 1, 0, false)::fair_tree_node, 0) OVER ()$q$)
           AS dampening_0,
       pg_temp.err_hint($q$SELECT fairshare_internal._sshare_tree(
                               ROW('root', NULL, 1, 0, false, NULL)::fairshare_internal._sshare_tree_node, 'pbs', 1) OVER ()$q$)
           AS algorithm_pbs,
       pg_temp.err_hint($q$SELECT fairshare_internal._sshare_fairshare(
                               ROW('root', NULL, 1, 0, false, NULL)::fairshare_internal._sshare_tree_node, 'classic', 0) OVER ()$q$)
           AS fairshare_dampening_0;
