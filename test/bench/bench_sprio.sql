-- sprio for the jobs pending at the benchmark instant (centre.sql: 10^5 at
-- the default scale).  sprio needs every association's fair-share factor,
-- so it computes sshare over the whole job history first: the baseline is
-- sshare_at itself, interleaved with it, and the difference is sprio's own
-- work on the pending jobs.  Target (issue 7): under 2 s.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT count(*) AS n_pending FROM fairshare.jobs WHERE state = 'PENDING' \gset
\o /dev/null
SELECT bench.compare(format('sprio_at: %s pending jobs', :n_pending),
  $q$SELECT * FROM fairshare.sprio_at(bench.as_of())$q$,
  'sshare_at (the fair-share factors it needs)',
  $q$SELECT * FROM fairshare.sshare_at(bench.as_of())$q$,
  :reps, 2000, NULL, '< 2 s');
SELECT bench.note(format('sprio_at: %s pending jobs', :n_pending),
                  format('sprio''s own work: %s s', round(((ms - baseline_ms) / 1000)::numeric, 2)))
  FROM bench.results WHERE name = format('sprio_at: %s pending jobs', :n_pending);
\o
