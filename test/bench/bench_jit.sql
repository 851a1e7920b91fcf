-- The reports in a session with PostgreSQL's JIT on, as a stock server has
-- it (jit = on, jit_above_cost 100,000, inlining and optimisation above
-- 500,000), against the same with jit = off, interleaved.  The extension's
-- PL/pgSQL functions run with jit = off whatever the session says
-- (security.sql): the queries inside them are estimated far above what they
-- cost, and compiling them took longer than running them (at 10^7 jobs
-- sprio_at took 17 s with JIT against 4.3 s without; docs/performance.md#jit).
-- What is left to JIT is the calling query, with the SQL functions inlined
-- into it.  Target: a ratio of at most 1.1.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
-- from no checkpoint: this file makes the ones it reads
DELETE FROM fairshare.usage_checkpoints;
CALL fairshare.checkpoint_usage('bench', bench.as_of() - interval '10 minutes');
\o /dev/null
SELECT bench.compare('JIT on: ' || v.name, v.q, 'JIT off', v.q, :reps, NULL, 1.1, NULL, 'jit=on', 'jit=off')
  FROM (VALUES
    ('sprio_at (checkpoint 10 min before)', $q$SELECT * FROM fairshare.sprio_at(bench.as_of())$q$),
    ('sshare_at (checkpoint 10 min before)', $q$SELECT * FROM fairshare.sshare_at(bench.as_of())$q$),
    ('association_usage_at (checkpoint 10 min before)', $q$SELECT * FROM fairshare.association_usage_at(bench.as_of())$q$),
    ('r_wlm_usage_at', $q$SELECT * FROM fairshare.r_wlm_usage_at(bench.as_of())$q$)) v (name, q);
\o
DELETE FROM fairshare.usage_checkpoints;
