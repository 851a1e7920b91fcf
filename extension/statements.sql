-- ---------------------------------------------------------------------------
-- statements: limits and alerts for every allocation (GENCI, RWTH or none),
-- monthly statements, and charts in SVG (docs/statements.md).
--
-- Every figure of usage here comes from one function, usage_buckets: the
-- core-hours of a cluster's (or an account's) jobs per hour, day or month.
-- It reads the job table today; when hourly, daily and monthly rollups
-- exist, it is the one place to switch to them.  Hours are core-hours as
-- the allocations count them (billing.sql core_hours: exclusive and
-- whole-node jobs pay whole nodes, GPU-hours at the cluster's
-- gpu_hour_factor).  Every computation takes as_of (time travel); the
-- charts draw with nothing but SVG 1.1, at 800 × 400.
-- ---------------------------------------------------------------------------

-- A bad argument: SQLSTATE, message naming the value, hint.
CREATE FUNCTION @extschema@_internal._statement_refuse(sqlstate text, message text, hint text)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
END
$$;

-- A window of time: both ends given and finite, until after since.
CREATE FUNCTION @extschema@_internal._statement_check_window(fn text, since timestamptz, until timestamptz)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF since IS NULL OR until IS NULL THEN
        PERFORM @extschema@_internal._statement_refuse('22004', format('%s: the window needs both ends (since %s, until %s)',
                                              fn, coalesce(since::text, 'NULL'), coalesce(until::text, 'NULL')),
                                              'Give the window of time as two instants, since < until.');
    END IF;
    IF NOT isfinite(since) OR NOT isfinite(until) THEN
        PERFORM @extschema@_internal._statement_refuse('22008', format('%s: instants must be finite (since %s, until %s)', fn, since, until),
                                              'Give the window of time as two finite instants.');
    END IF;
    IF until <= since THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('%s: the window is reversed or empty: until %s is not after since %s', fn, until, since),
                                              'The window is [since, until): swap the two instants, or widen it.');
    END IF;
END
$$;

-- The cluster's time zone; 22023 for a cluster that does not exist.
CREATE FUNCTION @extschema@_internal._statement_cluster_tz(fn text, cluster text)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    tz text;
BEGIN
    SELECT c.timezone INTO tz FROM @extschema@.clusters c WHERE c.cluster = _statement_cluster_tz.cluster;
    IF NOT FOUND THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('%s: no cluster "%s"', fn, cluster),
                                              'Name a cluster of fairshare.clusters.');
    END IF;
    RETURN tz;
END
$$;

-- ---------------------------------------------------------------------------
-- Usage: the one query every report and chart here reads
-- ---------------------------------------------------------------------------

-- Core-hours of a cluster's jobs (of one account, or every account when
-- account is NULL) inside [since, until), per bucket ('hour', 'day' or
-- 'month', starting at midnight / the first of the month in the cluster's
-- time zone), account and user.  Each job counts for the part of its run
-- inside each bucket and the window; a job without an end runs up to
-- until.  core_hours bills as the allocations do (allocation_consumption);
-- cpu_hours counts the cores held, without the GPU factor (utilisation).
-- Computed from the jobs; switch this function to the rollup tables when
-- they exist, and every statement, alert and chart follows.
CREATE FUNCTION @extschema@.usage_buckets(cluster text, of_account text, since timestamptz, until timestamptz,
                                          bucket text DEFAULT 'day')
RETURNS TABLE (bucket_start timestamptz, account text, user_name text, core_hours float8, cpu_hours float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    tz text;
    step interval;
BEGIN
    IF $1 IS NULL OR $5 IS NULL THEN
        PERFORM @extschema@_internal._statement_refuse('22004', 'usage_buckets: cluster and bucket must not be NULL',
                                              'Pass a cluster, and ''hour'', ''day'' or ''month''; of_account NULL means every account.');
    END IF;
    PERFORM @extschema@_internal._statement_check_window('usage_buckets', $3, $4);
    IF lower($5) NOT IN ('hour', 'day', 'month') THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('usage_buckets: unknown bucket "%s"', $5),
                                              'The buckets are ''hour'', ''day'' and ''month''.');
    END IF;
    tz := @extschema@_internal._statement_cluster_tz('usage_buckets', $1);
    step := ('1 ' || lower($5))::interval;
    -- The sums are numeric, then float8: a float8 sum depends on the order
    -- of its terms, which parallel workers change from one read to the next
    -- (two reads of the same data differed in the last digit); a numeric sum
    -- of the same terms does not (docs/statements.md#usage-buckets).
    RETURN QUERY
    SELECT b.b_start, j.account, j.user_name,
           sum(@extschema@.core_hours(j.cpus, greatest(j.start_time, b.b_start, $3),
                                      least(coalesce(j.end_time, $4), b.b_end, $4),
                                      j.exclusive OR p.whole_node, j.nodes, p.cores_per_node,
                                      j.gpus, c.gpu_hour_factor)::numeric)::float8,
           sum(@extschema@.core_hours(j.cpus, greatest(j.start_time, b.b_start, $3),
                                      least(coalesce(j.end_time, $4), b.b_end, $4),
                                      j.exclusive OR p.whole_node, j.nodes, p.cores_per_node, 0, 0)::numeric)::float8
      FROM @extschema@.jobs j
      JOIN @extschema@.partitions p ON p.cluster = j.cluster AND p.partition = j.partition
      JOIN @extschema@.clusters c ON c.cluster = j.cluster
     CROSS JOIN LATERAL (
            SELECT g AT TIME ZONE tz AS b_start, (g + step) AT TIME ZONE tz AS b_end
              FROM generate_series(date_trunc(lower($5), timezone(tz, greatest(j.start_time, $3))),
                                   timezone(tz, least(coalesce(j.end_time, $4), $4)), step) g
             WHERE g AT TIME ZONE tz < least(coalesce(j.end_time, $4), $4)) b
     WHERE j.cluster = $1 AND ($2 IS NULL OR j.account = $2)
       AND j.start_time IS NOT NULL
       AND j.start_time < $4
       AND (j.end_time IS NULL OR j.end_time > $3)
     GROUP BY 1, 2, 3;
END
$$;
COMMENT ON FUNCTION @extschema@.usage_buckets(text, text, timestamptz, timestamptz, text) IS
'Core-hours (billed as allocations count them) and CPU-hours of a cluster''s jobs (one account, or all when NULL) inside [since, until), per hour, day or month of the cluster''s time zone, account and user. The one usage query of statements, alerts and charts.';

-- Hours an allocation has used from its start up to as_of (or its end):
-- allocation_consumption to the instant rather than to the start of a day.
CREATE FUNCTION @extschema@.allocation_used(allocation_id bigint, as_of timestamptz)
RETURNS float8 LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    a record;
    since timestamptz;
    upto timestamptz;
BEGIN
    SELECT al.cluster, al.account, al.period_start, al.period_end, c.timezone INTO a
      FROM @extschema@.allocations al JOIN @extschema@.clusters c ON c.cluster = al.cluster
     WHERE al.allocation_id = $1;
    IF NOT FOUND THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('allocation_used: no allocation %s', $1),
                                              'Name an allocation_id of fairshare.allocations.');
    END IF;
    IF NOT isfinite(as_of) THEN
        PERFORM @extschema@_internal._statement_refuse('22008', format('allocation_used: as_of must be finite, not %s', as_of),
                                              'Pass the instant to count up to.');
    END IF;
    since := a.period_start::timestamp AT TIME ZONE a.timezone;
    upto := least(as_of, (a.period_end + 1)::timestamp AT TIME ZONE a.timezone);
    IF upto <= since THEN
        RETURN 0;
    END IF;
    RETURN coalesce((SELECT sum(u.core_hours)
                       FROM @extschema@.usage_buckets(a.cluster, a.account, since, upto, 'month') u), 0);
END
$$;
COMMENT ON FUNCTION @extschema@.allocation_used(bigint, timestamptz) IS
'Core-hours an allocation''s account used on its cluster from the period start up to as_of (at most the period end); 22023 for an unknown allocation.';

-- ---------------------------------------------------------------------------
-- Limits and alerts
-- ---------------------------------------------------------------------------

-- Alert thresholds.  A row applies to one allocation, to every allocation
-- of a cluster, or (both NULL) to every allocation of the centre.  For each
-- kind, an allocation uses the rows of the narrowest level that has any:
-- its own, else its cluster's, else the centre's, else the defaults (50, 80
-- and 100 % of the hours used; 30 and 7 days before the end).
-- (No surrogate key: the unique constraint, NULLs equal, is the key.)
CREATE TABLE @extschema@.alert_thresholds (
    cluster              text REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    allocation_id        bigint REFERENCES @extschema@.allocations ON DELETE CASCADE,
    -- used_percent: hours used ≥ value % of the net allocation;
    -- days_left: value days or fewer before the period ends (0: it has ended)
    kind                 text NOT NULL CHECK (kind IN ('used_percent', 'days_left')),
    value                float8 NOT NULL
                         CHECK (value OPERATOR(pg_catalog.>=) 0 AND value OPERATOR(pg_catalog.<=) 100000),
    CHECK (kind OPERATOR(pg_catalog.<>) 'used_percent' OR value OPERATOR(pg_catalog.>) 0),
    CHECK (kind OPERATOR(pg_catalog.<>) 'days_left' OR value OPERATOR(pg_catalog.=) pg_catalog.round(value)),
    CHECK (cluster IS NULL OR allocation_id IS NULL),
    UNIQUE NULLS NOT DISTINCT (cluster, allocation_id, kind, value)
);
COMMENT ON TABLE @extschema@.alert_thresholds IS 'Alert thresholds (hours used in %, days before the end) for one allocation, a cluster''s or the whole centre''s; the narrowest level with rows wins, per kind; none: 50/80/100 % and 30/7 days.';

-- The thresholds in force for an allocation, and where each comes from.
CREATE FUNCTION @extschema@.allocation_thresholds(allocation_id bigint)
RETURNS TABLE (kind text, value float8, source text)
LANGUAGE sql STABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    WITH al AS (
        SELECT a.allocation_id, a.cluster FROM @extschema@.allocations a
         WHERE a.allocation_id OPERATOR(pg_catalog.=) allocation_thresholds.allocation_id),
    candidates AS (
        SELECT t.kind, t.value, 1 AS level, 'allocation' AS source
          FROM @extschema@.alert_thresholds t, al WHERE t.allocation_id OPERATOR(pg_catalog.=) al.allocation_id
        UNION ALL
        SELECT t.kind, t.value, 2, 'cluster'
          FROM @extschema@.alert_thresholds t, al WHERE t.cluster OPERATOR(pg_catalog.=) al.cluster
        UNION ALL
        SELECT t.kind, t.value, 3, 'centre'
          FROM @extschema@.alert_thresholds t, al WHERE t.cluster IS NULL AND t.allocation_id IS NULL
        UNION ALL
        SELECT d.kind, d.value, 4, 'default'
          FROM al, (VALUES ('used_percent', 50::float8), ('used_percent', 80), ('used_percent', 100),
                           ('days_left', 30), ('days_left', 7)) d(kind, value))
    SELECT c.kind, c.value, c.source
      FROM candidates c
     WHERE c.level OPERATOR(pg_catalog.=) (SELECT pg_catalog.min(c2.level) FROM candidates c2
                                            WHERE c2.kind OPERATOR(pg_catalog.=) c.kind)
     ORDER BY c.kind DESC, c.value;
END;
COMMENT ON FUNCTION @extschema@.allocation_thresholds(bigint) IS
'The alert thresholds in force for an allocation (used_percent, days_left) and their level: allocation, cluster, centre or default.';

-- A threshold is notified once per allocation, whatever runs and however
-- often: the rule names the threshold, and this index holds one row per
-- allocation and rule (the GENCI rules never start with limit_).
CREATE UNIQUE INDEX regulation_notifications_limit_once
    ON @extschema@.regulation_notifications (allocation_id, rule)
    WHERE rule OPERATOR(pg_catalog.^@) 'limit_';

-- The threshold name in a notification's rule: limit_used_80,
-- limit_days_30 (12.5 % gives limit_used_12.5).
CREATE FUNCTION @extschema@_internal._alert_rule(kind text, value float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE kind WHEN 'used_percent' THEN 'limit_used_' ELSE 'limit_days_' END
       OPERATOR(pg_catalog.||) value::text;

-- Notifies every threshold an allocation (of any policy) has crossed as of
-- as_of (NULL: now), once each, into regulation_notifications (the table
-- a mailer reads: kind 'alert', rule limit_used_<percent> or
-- limit_days_<days>, check_day the cluster's day of the check).  Hours used
-- are allocation_used, against the net allocation of that day; an
-- allocation of 0 hours is alerted only once it has used some.  Days
-- thresholds fire within the period (days left = period_end + 1 − day),
-- and days_left 0 once it has ended.  Safe to run again and concurrently:
-- the unique index regulation_notifications_limit_once keeps one row per
-- threshold (a second run waits for the first and skips what it wrote).
-- A future as_of is refused.  pg_cron: CALL fairshare.check_allocation_alerts().
CREATE PROCEDURE @extschema@.check_allocation_alerts(as_of timestamptz DEFAULT NULL, cluster text DEFAULT NULL)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    at timestamptz := coalesce($1, now());
    al record;
    th record;
    day date;
    net float8;
    used float8;
    msg text;
BEGIN
    IF NOT isfinite(at) THEN
        PERFORM @extschema@_internal._statement_refuse('22008', format('check_allocation_alerts: as_of must be finite, not %s', at),
                                              'Pass the instant of the check, or NULL for now.');
    END IF;
    IF at > now() THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('check_allocation_alerts: as_of %s is in the future', at),
                                              'Alerts are sent on usage that has happened: pass an instant up to now, or NULL.');
    END IF;
    IF $2 IS NOT NULL THEN
        PERFORM @extschema@_internal._statement_cluster_tz('check_allocation_alerts', $2);
    END IF;
    FOR al IN
        SELECT a.allocation_id, a.cluster, a.account, a.policy, a.period_start, a.period_end, c.timezone
          FROM @extschema@.allocations a JOIN @extschema@.clusters c ON c.cluster = a.cluster
         WHERE ($2 IS NULL OR a.cluster = $2)
           AND a.period_start <= timezone(c.timezone, at)::date
         ORDER BY a.allocation_id
    LOOP
        day := timezone(al.timezone, at)::date;
        net := @extschema@.allocation_net_hours(al.allocation_id, day);
        used := @extschema@.allocation_used(al.allocation_id, at);
        FOR th IN SELECT t.kind, t.value FROM @extschema@.allocation_thresholds(al.allocation_id) t LOOP
            msg := NULL;
            IF th.kind = 'used_percent' AND used > 0 AND used * 100 >= th.value * net THEN
                msg := format('%s (%s allocation on %s, %s to %s): %s h used of %s h (%s %%) on %s, threshold %s %%',
                              al.account, al.policy, al.cluster, to_char(al.period_start, 'YYYY-MM-DD'),
                              to_char(al.period_end, 'YYYY-MM-DD'), round(used::numeric, 2), round(net::numeric, 2),
                              CASE WHEN net > 0 THEN round((100 * used / net)::numeric, 1)::text ELSE 'no hours granted' END,
                              to_char(day, 'YYYY-MM-DD'), th.value);
            ELSIF th.kind = 'days_left'
                  AND ((th.value > 0 AND day <= al.period_end AND al.period_end + 1 - day <= th.value)
                       OR (th.value = 0 AND day > al.period_end)) THEN
                msg := format('%s (%s allocation on %s): %s on %s; %s h used of %s h, %s h left; threshold %s days',
                              al.account, al.policy, al.cluster,
                              CASE WHEN day > al.period_end THEN 'ended ' || to_char(al.period_end, 'YYYY-MM-DD')
                                   ELSE format('ends %s, %s days left', to_char(al.period_end, 'YYYY-MM-DD'), al.period_end + 1 - day) END,
                              to_char(day, 'YYYY-MM-DD'), round(used::numeric, 2), round(net::numeric, 2),
                              round((net - used)::numeric, 2), th.value);
            END IF;
            IF msg IS NOT NULL THEN
                INSERT INTO @extschema@.regulation_notifications AS n
                       (allocation_id, cluster, account, rule, check_day, kind, hours, message)
                VALUES (al.allocation_id, al.cluster, al.account, @extschema@_internal._alert_rule(th.kind, th.value),
                        day, 'alert', 0, msg)
                ON CONFLICT (allocation_id, rule) WHERE rule ^@ 'limit_' DO NOTHING;
            END IF;
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON PROCEDURE @extschema@.check_allocation_alerts(timestamptz, text) IS
'Notifies, once each, every alert threshold (hours used in %, days before the end) that an allocation of any policy has crossed as of as_of (NULL: now), into regulation_notifications (kind alert, rule limit_*). Idempotent and safe to run concurrently; for pg_cron.';

-- ---------------------------------------------------------------------------
-- Statements
-- ---------------------------------------------------------------------------

-- Project leaders: who is told about an account's allocations and may read
-- its statements (my_allocation_statements).  Row-level security shows a
-- plain user its own rows, as for every table with a user_name.
CREATE TABLE @extschema@.account_leaders (
    cluster              text NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL CHECK (user_name OPERATOR(pg_catalog.<>) ''),
    PRIMARY KEY (cluster, account, user_name),
    FOREIGN KEY (cluster, account) REFERENCES @extschema@.accounts ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.account_leaders IS 'Project leaders of accounts (user_name = their database role): they read the statements of their accounts'' allocations.';

-- The monthly statement of every allocation whose period meets the month
-- (any day of it), as of as_of (a month not over yet is stated up to
-- as_of), one row per line, in order:
--   grant            the initial grant (day: period start)
--   opening_balance  net allocation before the month − hours used before it
--   addition, restitution, grant, take_back
--                    the ledger's entries effective in the month (take-backs
--                    negative), note: rule and reason
--   used             hours used in the month, one line per user
--   used_total       hours used in the month
--   closing_balance  net allocation at the month's end (or as_of) − hours
--                    used to then = opening + entries − used_total
--   used_to_date     hours used from the period start
--   theoretical      GENCI's theoretical consumption of the net allocation
--                    (linear over the period) on the statement's last day
--   projected_exhaustion  day the balance runs out at the month's rate
--                    (hours: core-hours a day); NULL when nothing is used
--   alert            every notification of the month (GENCI warnings,
--                    take-backs, thresholds), note: rule and message
-- Hours are core-hours; days the cluster's calendar.
CREATE FUNCTION @extschema@.allocation_statements(in_month date, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS TABLE (allocation_id bigint, cluster text, account text, policy text, month date,
               line integer, item text, user_name text, day date, hours float8, note text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    m date;
    a record;
    ms_day date;            -- first day of the month within the period
    me_day date;            -- day after the statement's last day
    ms timestamptz;
    me timestamptz;
    n integer;
    opening_net float8;
    used_before float8;
    used_month float8;
    used_to_date float8;
    net_end float8;
    balance float8;
    elapsed float8;
    rate float8;
    proj date;
    r record;
BEGIN
    IF $1 IS NULL OR $2 IS NULL THEN
        PERFORM @extschema@_internal._statement_refuse('22004', 'allocation_statements: month and as_of must not be NULL',
                                              'Pass any day of the month to state, and the instant to state it as of.');
    END IF;
    IF NOT isfinite($1) OR NOT isfinite($2) THEN
        PERFORM @extschema@_internal._statement_refuse('22008', format('allocation_statements: month %s and as_of %s must be finite', $1, $2),
                                              'Pass any day of the month to state, and the instant to state it as of.');
    END IF;
    m := date_trunc('month', $1)::date;
    FOR a IN
        SELECT al.allocation_id, al.cluster, al.account, al.policy, al.period_start, al.period_end, al.hours, c.timezone
          FROM @extschema@.allocations al JOIN @extschema@.clusters c ON c.cluster = al.cluster
         WHERE al.period_start < (m + interval '1 month')::date AND al.period_end >= m
         ORDER BY al.cluster, al.account, al.period_start
    LOOP
        ms_day := greatest(m, a.period_start);
        ms := ms_day::timestamp AT TIME ZONE a.timezone;
        me_day := least((m + interval '1 month')::date, a.period_end + 1);
        me := least(me_day::timestamp AT TIME ZONE a.timezone, $2);
        IF me <= ms THEN
            -- the month has not begun as of as_of: nothing to state yet
            CONTINUE;
        END IF;
        me_day := least(me_day, (timezone(a.timezone, me) + interval '1 day' - interval '1 microsecond')::date);
        n := 0;
        allocation_id := a.allocation_id; cluster := a.cluster; account := a.account;
        policy := a.policy; month := m;

        line := 1; item := 'grant'; user_name := NULL; day := a.period_start; hours := a.hours;
        note := format('%s allocation, %s to %s', a.policy, to_char(a.period_start, 'YYYY-MM-DD'), to_char(a.period_end, 'YYYY-MM-DD'));
        RETURN NEXT;

        opening_net := @extschema@.allocation_net_hours(a.allocation_id, ms_day - 1);
        used_before := @extschema@.allocation_used(a.allocation_id, ms);
        line := 2; item := 'opening_balance'; day := ms_day; hours := opening_net - used_before;
        note := format('%s h net before the month, %s h used', round(opening_net::numeric, 2), round(used_before::numeric, 2));
        RETURN NEXT;
        n := 2;

        FOR r IN SELECT l.kind, l.effective_date, l.hours, l.rule, l.reason
                   FROM @extschema@.ledger l
                  WHERE l.allocation_id = a.allocation_id AND l.effective_date >= ms_day AND l.effective_date < me_day
                  ORDER BY l.effective_date, l.entry_id LOOP
            n := n + 1; line := n; item := r.kind; day := r.effective_date;
            hours := CASE WHEN r.kind = 'take_back' THEN -r.hours ELSE r.hours END;
            note := r.rule || coalesce(': ' || r.reason, '');
            RETURN NEXT;
        END LOOP;

        used_month := 0;
        FOR r IN SELECT u.user_name, sum(u.core_hours) AS h
                   FROM @extschema@.usage_buckets(a.cluster, a.account, ms, me, 'month') u
                  GROUP BY u.user_name ORDER BY u.user_name LOOP
            n := n + 1; line := n; item := 'used'; user_name := r.user_name; day := NULL; hours := r.h;
            note := NULL;
            used_month := used_month + r.h;
            RETURN NEXT;
        END LOOP;
        user_name := NULL;
        n := n + 1; line := n; item := 'used_total'; day := NULL; hours := used_month;
        note := format('%s to %s (%s)', to_char(timezone(a.timezone, ms), 'YYYY-MM-DD HH24:MI'),
                       to_char(timezone(a.timezone, me), 'YYYY-MM-DD HH24:MI'), a.timezone);
        RETURN NEXT;

        net_end := @extschema@.allocation_net_hours(a.allocation_id, me_day - 1);
        used_to_date := used_before + used_month;
        balance := net_end - used_to_date;
        n := n + 1; line := n; item := 'closing_balance'; day := me_day - 1; hours := balance;
        note := format('%s h net, %s h used to date', round(net_end::numeric, 2), round(used_to_date::numeric, 2));
        RETURN NEXT;
        n := n + 1; line := n; item := 'used_to_date'; day := me_day - 1; hours := used_to_date; note := NULL;
        RETURN NEXT;
        n := n + 1; line := n; item := 'theoretical'; day := me_day - 1;
        hours := @extschema@.theoretical_consumption(net_end, a.period_start, a.period_end, me_day);
        note := 'net allocation × days elapsed / days of the period';
        RETURN NEXT;

        elapsed := extract(epoch FROM me - ms) / 86400.0;
        rate := used_month / elapsed;
        proj := NULL;
        IF balance <= 0 THEN
            note := 'exhausted';
        ELSIF rate > 0 THEN
            proj := timezone(a.timezone, me + make_interval(secs => least(balance / rate * 86400.0, 3.0e9)))::date;
            note := format('at %s h a day, the rate of the month', round(rate::numeric, 2))
                    || CASE WHEN proj > a.period_end THEN ', not before the period ends' ELSE '' END;
        ELSE
            note := 'nothing used this month: no projection';
        END IF;
        n := n + 1; line := n; item := 'projected_exhaustion'; day := proj; hours := rate;
        RETURN NEXT;

        FOR r IN SELECT x.rule, x.check_day, x.kind, x.hours, x.message, x.sent_at
                   FROM @extschema@.regulation_notifications x
                  WHERE x.allocation_id = a.allocation_id AND x.check_day >= ms_day AND x.check_day < me_day
                    AND x.check_day <= timezone(a.timezone, $2)::date
                  ORDER BY x.check_day, x.notification_id LOOP
            n := n + 1; line := n; item := 'alert'; day := r.check_day; hours := r.hours;
            note := r.rule || ' (' || r.kind || CASE WHEN r.sent_at IS NULL THEN ', not sent yet' ELSE ', sent' END
                    || '): ' || r.message;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.allocation_statements(date, timestamptz) IS
'Monthly statement of every allocation (GENCI, RWTH, none) meeting the month, as of as_of: grant, opening balance, ledger entries, hours used per user, closing balance, theoretical consumption, projected exhaustion, alerts. One row per line, for COPY ... CSV.';

-- ---------------------------------------------------------------------------
-- Charts: SVG, 800 × 400, drawn with nothing but SVG
-- ---------------------------------------------------------------------------
-- The plot area runs from x 70 to 640 and from y 350 (0) up to 40 (the top
-- of the scale); the legend is right of it, from x 655.  The scale's top is
-- the smallest 1, 2, 2.5 or 5 × 10^k at or above the largest value; an
-- instant t of [t0, t1] is at x = 70 + 570 (t − t0) / (t1 − t0), a value v
-- at y = 350 − 310 v / top (test/charts.sh reads the charts this way).

CREATE FUNCTION @extschema@_internal._chart_top(v float8)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    p float8;
    f float8;
BEGIN
    IF NOT (v > 0) OR v = 'Infinity' THEN
        RETURN 1;
    END IF;
    p := power(10::float8, floor(log(v)));
    FOREACH f IN ARRAY ARRAY[1, 2, 2.5, 5, 10]::float8[] LOOP
        IF f * p >= v * (1 - 1e-12) THEN
            RETURN f * p;
        END IF;
    END LOOP;
    RETURN 10 * p;
END
$$;

CREATE FUNCTION @extschema@_internal._chart_x(t timestamptz, t0 timestamptz, t1 timestamptz)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN 70 OPERATOR(pg_catalog.+) ((570 OPERATOR(pg_catalog.*)
       pg_catalog.date_part('epoch', t OPERATOR(pg_catalog.-) t0))
       OPERATOR(pg_catalog./) pg_catalog.date_part('epoch', t1 OPERATOR(pg_catalog.-) t0));

CREATE FUNCTION @extschema@_internal._chart_y(v float8, top float8)
RETURNS float8 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN 350 OPERATOR(pg_catalog.-) ((310 OPERATOR(pg_catalog.*) v) OPERATOR(pg_catalog./) top);

-- A coordinate or number as SVG writes it.
CREATE FUNCTION @extschema@_internal._svg_n(v float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.round(v::numeric, 1)::text;

-- A name as SVG text or attribute value, well-formed whatever it holds
-- (docs/statements.md#charts): &, <, > and " as entities; tab, newline and
-- CR as character references (an attribute keeps them, a parser would
-- turn them into spaces); the 28 other C0 controls, which XML 1.0 forbids
-- anywhere in a document (U+0001-U+0008, U+000B, U+000C, U+000E-U+001F; a
-- text holds no U+0000), as U+FFFD.
CREATE FUNCTION @extschema@_internal._svg_escape(s text)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
       pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
       pg_catalog.translate(s, E'\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f',
                            pg_catalog.repeat('�', 28)),
           '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'),
           E'\t', '&#9;'), E'\n', '&#10;'), E'\r', '&#13;');

-- A tick label: 1 500 000 → 1.5M, 2 500 → 2.5k, 0.25 → 0.25.
CREATE FUNCTION @extschema@_internal._chart_label(v float8)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.>=) 1e6
            THEN pg_catalog.trim_scale(pg_catalog.round((v OPERATOR(pg_catalog./) 1e6)::numeric, 2))::text OPERATOR(pg_catalog.||) 'M'
            WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.>=) 1e4
            THEN pg_catalog.trim_scale(pg_catalog.round((v OPERATOR(pg_catalog./) 1e3)::numeric, 2))::text OPERATOR(pg_catalog.||) 'k'
            ELSE pg_catalog.trim_scale(pg_catalog.round(v::numeric, 2))::text END;

-- A chart draws at most 40,000 buckets (bars, days, months): an hourly
-- chart of 4 years is 35,064, and the plot is 570 pixels wide.  A reader
-- chooses the window, so the work a chart does must be bounded
-- (docs/statements.md#bad-input); 54000 names the count asked for.
CREATE FUNCTION @extschema@_internal._chart_check_buckets(fn text, n bigint, what text, hint text)
RETURNS void LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    max_buckets constant bigint := 40000;
BEGIN
    IF n > max_buckets THEN
        PERFORM @extschema@_internal._statement_refuse('54000',
            format('%s: %s %s, more than the %s a chart draws', fn, n, what, max_buckets), hint);
    END IF;
END
$$;

-- The frame: white background, title, the y axis with 5 intervals up to
-- top and its unit, the x axis with date ticks over [t0, t1] (at most
-- about 8, on whole hours, days or months of the time zone), a legend of
-- (colour, label) pairs, and the body drawn over the grid.
CREATE FUNCTION @extschema@_internal._svg_chart(title text, unit text, top float8, t0 timestamptz, t1 timestamptz,
                                       tz text, legend text[], body text)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    s text;
    i integer;
    span float8 := extract(epoch FROM t1 - t0);
    step interval;
    trunc_to text;
    fmt text;
    g timestamp;
    x float8;
BEGIN
    s := '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400" viewBox="0 0 800 400" '
         || 'font-family="DejaVu Sans, Arial, Helvetica, sans-serif" font-size="12">'
         || '<rect x="0" y="0" width="800" height="400" fill="#ffffff"/>'
         || '<text x="400" y="22" text-anchor="middle" font-size="15" font-weight="bold">'
         || @extschema@_internal._svg_escape(title) || '</text>';
    -- y axis: grid, ticks, labels, unit
    FOR i IN 0..5 LOOP
        s := s || format('<line x1="70" y1="%1$s" x2="640" y2="%1$s" stroke="#e0e0e0" stroke-width="1"/>'
                         '<text x="64" y="%2$s" text-anchor="end">%3$s</text>',
                         @extschema@_internal._svg_n(350 - 62 * i), @extschema@_internal._svg_n(350 - 62 * i + 4),
                         @extschema@_internal._chart_label(top * i / 5));
    END LOOP;
    s := s || format('<text x="18" y="195" text-anchor="middle" transform="rotate(-90 18 195)">%s</text>',
                     @extschema@_internal._svg_escape(unit));
    -- x axis: ticks on whole hours, days or months
    SELECT st, tr, f INTO step, trunc_to, fmt
      FROM (VALUES (interval '10 minutes', 'hour', 'HH24:MI'), (interval '15 minutes', 'hour', 'HH24:MI'),
                   (interval '30 minutes', 'hour', 'HH24:MI'),
                   (interval '1 hour', 'hour', 'HH24:MI'), (interval '3 hours', 'hour', 'MM-DD HH24h'),
                   (interval '6 hours', 'hour', 'MM-DD HH24h'), (interval '12 hours', 'hour', 'MM-DD HH24h'),
                   (interval '1 day', 'day', 'YYYY-MM-DD'), (interval '2 days', 'day', 'YYYY-MM-DD'),
                   (interval '7 days', 'day', 'YYYY-MM-DD'), (interval '14 days', 'day', 'YYYY-MM-DD'),
                   (interval '1 month', 'month', 'YYYY-MM-DD'), (interval '2 months', 'month', 'YYYY-MM-DD'),
                   (interval '3 months', 'month', 'YYYY-MM-DD'), (interval '6 months', 'month', 'YYYY-MM'),
                   (interval '1 year', 'year', 'YYYY')) v(st, tr, f)
     WHERE span / extract(epoch FROM st) <= 7
     ORDER BY extract(epoch FROM st) LIMIT 1;
    IF step IS NULL THEN
        step := interval '10 years'; trunc_to := 'year'; fmt := 'YYYY';
    END IF;
    IF span <= 86400 * 2 AND fmt = 'HH24:MI' THEN
        -- a short window: say which day it is
        s := s || format('<text x="355" y="392" text-anchor="middle" fill="#555555">%s (%s)</text>',
                         to_char(timezone(tz, t0), 'YYYY-MM-DD'), @extschema@_internal._svg_escape(tz));
    END IF;
    g := date_trunc(trunc_to, timezone(tz, t0));
    -- (a bar chart with a label under each bar passes no t0: no date ticks)
    WHILE t0 IS NOT NULL AND g AT TIME ZONE tz <= t1 LOOP
        IF g AT TIME ZONE tz >= t0 THEN
            x := @extschema@_internal._chart_x(g AT TIME ZONE tz, t0, t1);
            s := s || format('<line x1="%1$s" y1="350" x2="%1$s" y2="356" stroke="#333333"/>'
                             '<text x="%1$s" y="370" text-anchor="middle">%2$s</text>',
                             @extschema@_internal._svg_n(x), to_char(g, fmt));
        END IF;
        g := g + step;
    END LOOP;
    -- the axes under the data: a line at 0 stays visible
    s := s || '<line x1="70" y1="350" x2="640" y2="350" stroke="#333333" stroke-width="1"/>'
           || '<line x1="70" y1="40" x2="70" y2="350" stroke="#333333" stroke-width="1"/>';
    s := s || body;
    -- legend
    FOR i IN 1..coalesce(array_length(legend, 1), 0) / 2 LOOP
        s := s || format('<rect x="655" y="%s" width="14" height="14" fill="%s"/><text x="675" y="%s">%s</text>',
                         50 + 22 * (i - 1), legend[2 * i - 1], 50 + 22 * (i - 1) + 12,
                         @extschema@_internal._svg_escape(left(legend[2 * i], 18)));
    END LOOP;
    RETURN s || '</svg>';
END
$$;

-- The units the charts take: a factor from core-hours and the axis name.
CREATE FUNCTION @extschema@_internal._chart_units(fn text, units text, percent_ok boolean, OUT factor float8, OUT label text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    CASE lower(coalesce(units, ''))
        WHEN 'hours' THEN factor := 1; label := 'core-hours';
        WHEN 'minutes' THEN factor := 60; label := 'core-minutes';
        WHEN 'seconds' THEN factor := 3600; label := 'core-seconds';
        WHEN 'percent' THEN
            IF NOT percent_ok THEN
                PERFORM @extschema@_internal._statement_refuse('22023', format('%s: units "%s" do not apply here', fn, units),
                                                      'This chart takes ''hours'', ''minutes'' or ''seconds''.');
            END IF;
            factor := NULL; label := '% of the cluster''s cores';
        ELSE
            PERFORM @extschema@_internal._statement_refuse('22023', format('%s: unknown units "%s"', fn, coalesce(units, 'NULL')),
                                                  CASE WHEN percent_ok THEN 'The units are ''percent'', ''hours'', ''minutes'' and ''seconds'' (as sreport -t).'
                                                       ELSE 'The units are ''hours'', ''minutes'' and ''seconds'' (as sreport -t).' END);
    END CASE;
END
$$;

-- The colours of the charts' series (Tableau 10).
CREATE FUNCTION @extschema@_internal._chart_colour(i integer)
RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (ARRAY['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'])
       [1 OPERATOR(pg_catalog.+) ((i OPERATOR(pg_catalog.-) 1) OPERATOR(pg_catalog.%) 10)];

-- An allocation's burn-down over its period, as of as_of: hours used
-- (cumulative, day by day up to as_of; blue), the theoretical consumption
-- of the net allocation (orange), the net allocation (green, stepping at
-- ledger entries), take-backs (red triangles at the net they leave, with
-- their hours), and as_of (grey).
CREATE FUNCTION @extschema@.burndown_svg(allocation_id bigint, as_of timestamptz DEFAULT pg_catalog.now())
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    a record;
    t0 timestamptz;
    t1 timestamptz;
    upto timestamptz;
    top float8;
    used_t timestamptz[];
    used_v float8[];
    net_t timestamptz[];
    net_v float8[];
    theo_t timestamptz[];
    theo_v float8[];
    tb_t timestamptz[];
    tb_v float8[];
    tb_h float8[];
    pts text;
    body text := '';
BEGIN
    IF $1 IS NULL OR $2 IS NULL THEN
        PERFORM @extschema@_internal._statement_refuse('22004', 'burndown_svg: allocation_id and as_of must not be NULL',
                                              'Pass an allocation_id of fairshare.allocations and an instant.');
    END IF;
    SELECT al.allocation_id, al.cluster, al.account, al.policy, al.period_start, al.period_end, c.timezone INTO a
      FROM @extschema@.allocations al JOIN @extschema@.clusters c ON c.cluster = al.cluster
     WHERE al.allocation_id = $1;
    IF NOT FOUND THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('burndown_svg: no allocation %s', $1),
                                              'Name an allocation_id of fairshare.allocations.');
    END IF;
    IF NOT isfinite($2) THEN
        PERFORM @extschema@_internal._statement_refuse('22008', format('burndown_svg: as_of must be finite, not %s', $2),
                                              'Pass the instant to draw the burn-down as of.');
    END IF;
    PERFORM @extschema@_internal._chart_check_buckets('burndown_svg', (a.period_end - a.period_start + 1)::bigint,
                                             format('days in the period %s to %s', a.period_start, a.period_end),
                                             'A burn-down draws a point a day: read a period this long with allocation_statements, month by month.');
    t0 := a.period_start::timestamp AT TIME ZONE a.timezone;
    t1 := (a.period_end + 1)::timestamp AT TIME ZONE a.timezone;
    upto := greatest(least($2, t1), t0);
    -- hours used: 0 at the start, then at the end of each day (of the
    -- cluster's calendar) up to as_of
    IF upto > t0 THEN
        SELECT array_agg(x.t ORDER BY x.t), array_agg(x.v ORDER BY x.t) INTO used_t, used_v
          FROM (SELECT t0 AS t, 0::float8 AS v
                UNION ALL
                SELECT least((g + interval '1 day') AT TIME ZONE a.timezone, upto),
                       sum(coalesce(u.h, 0)) OVER (ORDER BY g)
                  FROM generate_series(a.period_start::timestamp, timezone(a.timezone, upto - interval '1 microsecond'),
                                       interval '1 day') g
                  LEFT JOIN (SELECT b.bucket_start, sum(b.core_hours) AS h
                               FROM @extschema@.usage_buckets(a.cluster, a.account, t0, upto, 'day') b
                              GROUP BY 1) u ON u.bucket_start = g AT TIME ZONE a.timezone) x;
    END IF;
    -- the net allocation from the start and on each day it changes
    SELECT array_agg(x.day::timestamp AT TIME ZONE a.timezone ORDER BY x.day),
           array_agg(@extschema@.allocation_net_hours(a.allocation_id, x.day) ORDER BY x.day)
      INTO net_t, net_v
      FROM (SELECT a.period_start AS day
            UNION
            SELECT l.effective_date FROM @extschema@.ledger l
             WHERE l.allocation_id = a.allocation_id AND l.effective_date > a.period_start
               AND l.effective_date <= a.period_end) x;
    -- theoretical consumption of the net allocation, day by day
    SELECT array_agg(g AT TIME ZONE a.timezone ORDER BY g),
           array_agg(@extschema@.theoretical_consumption(
                         @extschema@.allocation_net_hours(a.allocation_id, least(g::date, a.period_end)),
                         a.period_start, a.period_end, g::date) ORDER BY g)
      INTO theo_t, theo_v
      FROM generate_series(a.period_start::timestamp, (a.period_end + 1)::timestamp, interval '1 day') g;
    -- take-backs: the day, the net they leave, the hours taken
    SELECT array_agg(l.effective_date::timestamp AT TIME ZONE a.timezone ORDER BY l.effective_date),
           array_agg(@extschema@.allocation_net_hours(a.allocation_id, l.effective_date) ORDER BY l.effective_date),
           array_agg(l.h ORDER BY l.effective_date)
      INTO tb_t, tb_v, tb_h
      FROM (SELECT l.effective_date, sum(l.hours) AS h FROM @extschema@.ledger l
             WHERE l.allocation_id = a.allocation_id AND l.kind = 'take_back'
               AND l.effective_date >= a.period_start AND l.effective_date <= a.period_end
             GROUP BY l.effective_date) l;

    top := @extschema@_internal._chart_top(greatest((SELECT max(v) FROM unnest(used_v) v), (SELECT max(v) FROM unnest(net_v) v),
                                           (SELECT max(v) FROM unnest(theo_v) v)));
    -- the net allocation as steps, to the end of the period (each piece
    -- of every chart is aggregated once: appending to a text in a loop
    -- copies it each time, quadratic in the pieces)
    SELECT string_agg(CASE WHEN x.o > 1
                           THEN @extschema@_internal._svg_n(@extschema@_internal._chart_x(x.t, t0, t1)) || ','
                                || @extschema@_internal._svg_n(@extschema@_internal._chart_y(x.prev, top)) || ' '
                           ELSE '' END
                      || @extschema@_internal._svg_n(@extschema@_internal._chart_x(x.t, t0, t1)) || ','
                      || @extschema@_internal._svg_n(@extschema@_internal._chart_y(x.v, top)) || ' ', '' ORDER BY x.o)
      INTO pts
      FROM (SELECT n.t, n.v, n.o, lag(n.v) OVER (ORDER BY n.o) AS prev
              FROM unnest(net_t, net_v) WITH ORDINALITY n(t, v, o)) x;
    pts := pts || '640,' || @extschema@_internal._svg_n(@extschema@_internal._chart_y(net_v[array_length(net_v, 1)], top));
    body := body || format('<polyline points="%s" fill="none" stroke="#2ca02c" stroke-width="3"/>', pts);
    SELECT string_agg(@extschema@_internal._svg_n(@extschema@_internal._chart_x(t, t0, t1)) || ',' || @extschema@_internal._svg_n(@extschema@_internal._chart_y(v, top)), ' ' ORDER BY o)
      INTO pts FROM unnest(theo_t, theo_v) WITH ORDINALITY x(t, v, o);
    body := body || format('<polyline points="%s" fill="none" stroke="#ff7f0e" stroke-width="3"/>', pts);
    IF used_t IS NOT NULL THEN
        SELECT string_agg(@extschema@_internal._svg_n(@extschema@_internal._chart_x(t, t0, t1)) || ',' || @extschema@_internal._svg_n(@extschema@_internal._chart_y(v, top)), ' ' ORDER BY o)
          INTO pts FROM unnest(used_t, used_v) WITH ORDINALITY x(t, v, o);
        body := body || format('<polyline points="%s" fill="none" stroke="#1f77b4" stroke-width="3"/>', pts);
    END IF;
    -- the triangle's tip on the net it leaves; its hours (3 digits:
    -- monthly take-backs are 47 px apart on a year) under that net, right
    -- of the step
    body := body || coalesce((
        SELECT string_agg(format('<path d="M %1$s %2$s l -7 -12 l 14 0 z" fill="#d62728"/>'
                                 '<text x="%5$s" y="%3$s" fill="#d62728" font-size="11">-%4$s</text>',
                                 @extschema@_internal._svg_n(@extschema@_internal._chart_x(x.t, t0, t1)),
                                 @extschema@_internal._svg_n(@extschema@_internal._chart_y(x.v, top)),
                                 @extschema@_internal._svg_n(@extschema@_internal._chart_y(x.v, top) + 14),
                                 @extschema@_internal._chart_label(CASE WHEN x.h > 0
                                     THEN round(x.h::numeric, 2 - floor(log(x.h))::integer)::float8 ELSE 0 END),
                                 @extschema@_internal._svg_n(@extschema@_internal._chart_x(x.t, t0, t1) + 4)), '' ORDER BY x.o)
          FROM unnest(tb_t, tb_v, tb_h) WITH ORDINALITY x(t, v, h, o)), '');
    IF $2 > t0 AND $2 < t1 THEN
        body := body || format('<line x1="%1$s" y1="40" x2="%1$s" y2="350" stroke="#999999" stroke-width="1" stroke-dasharray="4 3"/>'
                               '<text x="%1$s" y="36" text-anchor="middle" fill="#777777" font-size="11">as of %2$s</text>',
                               @extschema@_internal._svg_n(@extschema@_internal._chart_x($2, t0, t1)), to_char(timezone(a.timezone, $2), 'YYYY-MM-DD'));
    END IF;
    RETURN @extschema@_internal._svg_chart(
        format('%s on %s (%s): burn-down', a.account, a.cluster, a.policy), 'core-hours', top, t0, t1, a.timezone,
        ARRAY['#1f77b4', 'hours used', '#ff7f0e', 'theoretical', '#2ca02c', 'net allocation', '#d62728', 'take-back'],
        body);
END
$$;
COMMENT ON FUNCTION @extschema@.burndown_svg(bigint, timestamptz) IS
'SVG (800×400) of an allocation''s burn-down as of as_of: cumulative hours used, theoretical consumption, net allocation with take-backs marked.';

-- An account's usage per month over [since, until) (the months they
-- meet), stacked by user (the 9 biggest, then "others"), in hours,
-- minutes or seconds.
CREATE FUNCTION @extschema@.account_usage_svg(cluster text, account text, since date, until date,
                                              units text DEFAULT 'hours')
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    tz text;
    u record;
    t0 timestamptz;
    t1 timestamptz;
    m0 date;
    nm integer;
    top float8;
    body text := '';
    legend text[] := ARRAY[]::text[];
    band float8;
    ks integer[];
    users text[];
    months date[];
    vs float8[];
    belows float8[];
BEGIN
    IF $1 IS NULL OR $2 IS NULL THEN
        PERFORM @extschema@_internal._statement_refuse('22004', 'account_usage_svg: cluster and account must not be NULL',
                                              'Name an account of fairshare.accounts and its cluster.');
    END IF;
    SELECT * INTO u FROM @extschema@_internal._chart_units('account_usage_svg', $5, false);
    IF $3 IS NULL OR $4 IS NULL OR NOT isfinite($3) OR NOT isfinite($4) OR $4 <= $3 THEN
        PERFORM @extschema@_internal._statement_refuse(CASE WHEN $3 IS NULL OR $4 IS NULL THEN '22004'
                                                   WHEN NOT isfinite($3) OR NOT isfinite($4) THEN '22008' ELSE '22023' END,
                                              format('account_usage_svg: the range is reversed, empty or open: until %s is not after since %s',
                                                     coalesce($4::text, 'NULL'), coalesce($3::text, 'NULL')),
                                              'Pass since < until (days; until is not included).');
    END IF;
    tz := @extschema@_internal._statement_cluster_tz('account_usage_svg', $1);
    IF NOT EXISTS (SELECT 1 FROM @extschema@.accounts ac WHERE ac.cluster = $1 AND ac.account = $2) THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('account_usage_svg: no account "%s" on cluster "%s"', $2, $1),
                                              'Name an account of fairshare.accounts.');
    END IF;
    m0 := date_trunc('month', $3)::date;
    nm := (extract(year FROM $4 - 1)::integer - extract(year FROM m0)::integer) * 12
          + extract(month FROM $4 - 1)::integer - extract(month FROM m0)::integer + 1;
    PERFORM @extschema@_internal._chart_check_buckets('account_usage_svg', nm::bigint, format('months from %s to %s', $3, $4),
                                             'A bar a month: take a shorter range (the plot is 570 pixels wide).');
    t0 := m0::timestamp AT TIME ZONE tz;
    t1 := (m0 + make_interval(months => nm))::timestamp AT TIME ZONE tz;
    WITH b AS (
        SELECT timezone(tz, x.bucket_start)::date AS month, x.user_name, x.core_hours * u.factor AS v
          FROM @extschema@.usage_buckets($1, $2, $3::timestamp AT TIME ZONE tz, $4::timestamp AT TIME ZONE tz, 'month') x),
    ranked AS (
        SELECT b.user_name, row_number() OVER (ORDER BY sum(b.v) DESC, b.user_name) AS k
          FROM b GROUP BY b.user_name),
    stack AS (
        SELECT least(r.k, 10) AS k,
               CASE WHEN r.k >= 10 AND (SELECT count(*) FROM ranked) > 10 THEN 'others' ELSE r.user_name END AS user_name,
               b.month, sum(b.v) AS v
          FROM b JOIN ranked r USING (user_name)
         GROUP BY 1, 2, 3)
    SELECT array_agg(s.k ORDER BY s.month, s.k), array_agg(s.user_name ORDER BY s.month, s.k),
           array_agg(s.month ORDER BY s.month, s.k), array_agg(s.v ORDER BY s.month, s.k),
           array_agg(s.below ORDER BY s.month, s.k)
      INTO ks, users, months, vs, belows
      FROM (SELECT stack.*, sum(stack.v) OVER (PARTITION BY stack.month ORDER BY stack.k) - stack.v AS below
              FROM stack) s;
    top := @extschema@_internal._chart_top(coalesce((SELECT max(x.b + x.v) FROM unnest(belows, vs) x(b, v)), 0));
    band := 570.0 / nm;
    body := coalesce((
        SELECT string_agg(format('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s %s: %s</title></rect>',
                                 @extschema@_internal._svg_n(70 + band * ((extract(year FROM x.month) - extract(year FROM m0)) * 12
                                                                 + extract(month FROM x.month) - extract(month FROM m0)) + band * 0.15),
                                 @extschema@_internal._svg_n(@extschema@_internal._chart_y(x.below + x.v, top)),
                                 @extschema@_internal._svg_n(band * 0.7),
                                 @extschema@_internal._svg_n(310 * x.v / top),
                                 @extschema@_internal._chart_colour(x.k), to_char(x.month, 'YYYY-MM'),
                                 @extschema@_internal._svg_escape(x.user_name), round(x.v::numeric, 2)), '' ORDER BY x.o)
          FROM unnest(ks, users, months, vs, belows) WITH ORDINALITY x(k, user_name, month, v, below, o)), '');
    -- a month's label under each bar (every other one past 12 months)
    body := body || coalesce((
        SELECT string_agg(format('<text x="%s" y="386" text-anchor="middle" font-size="11" fill="#333333">%s</text>',
                                 @extschema@_internal._svg_n(70 + band * (i + 0.5)), to_char(m0 + make_interval(months => i), 'YYYY-MM')),
                          '' ORDER BY i)
          FROM generate_series(0, nm - 1) i
         WHERE nm <= 12 OR i % ((nm + 11) / 12) = 0), '');
    SELECT coalesce(array_agg(x ORDER BY d.k, v.o), ARRAY[]::text[]) INTO legend
      FROM (SELECT DISTINCT s.k, s.user_name FROM unnest(ks, users) s(k, user_name)) d
     CROSS JOIN LATERAL (VALUES (1, @extschema@_internal._chart_colour(d.k)), (2, d.user_name)) v(o, x);
    IF legend = ARRAY[]::text[] THEN
        legend := ARRAY['#ffffff', 'no usage'];
    END IF;
    RETURN @extschema@_internal._svg_chart(format('%s on %s: usage per month by user', $2, $1), u.label, top, NULL, NULL, tz,
                                  legend, body);
END
$$;
COMMENT ON FUNCTION @extschema@.account_usage_svg(text, text, date, date, text) IS
'SVG (800×400) of an account''s usage per month over [since, until), stacked by user; units hours, minutes or seconds.';

-- A cluster's utilisation over [since, until): the cores its jobs held
-- per hour, day or month (bucket NULL: hours up to 2 days, days up to 92,
-- else months), as a percentage of its cores (clusters.total_cpus, else
-- the partitions' nodes × cores) or in hours, minutes or seconds.
CREATE FUNCTION @extschema@.cluster_utilisation_svg(cluster text, since timestamptz, until timestamptz,
                                                    units text DEFAULT 'percent', bucket text DEFAULT NULL)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    tz text;
    u record;
    b text;
    step interval;
    cores float8;
    top float8;
    body text := '';
    b0s timestamptz[];
    b1s timestamptz[];
    vs float8[];
    l0 timestamp;
    l1 timestamp;
BEGIN
    SELECT * INTO u FROM @extschema@_internal._chart_units('cluster_utilisation_svg', $4, true);
    PERFORM @extschema@_internal._statement_check_window('cluster_utilisation_svg', $2, $3);
    IF $1 IS NULL THEN
        PERFORM @extschema@_internal._statement_refuse('22004', 'cluster_utilisation_svg: cluster must not be NULL',
                                              'Name a cluster of fairshare.clusters.');
    END IF;
    tz := @extschema@_internal._statement_cluster_tz('cluster_utilisation_svg', $1);
    b := lower(coalesce($5, CASE WHEN $3 - $2 <= interval '2 days' THEN 'hour'
                                 WHEN $3 - $2 <= interval '92 days' THEN 'day' ELSE 'month' END));
    IF b NOT IN ('hour', 'day', 'month') THEN
        PERFORM @extschema@_internal._statement_refuse('22023', format('cluster_utilisation_svg: unknown bucket "%s"', $5),
                                              'The buckets are ''hour'', ''day'' and ''month'', or NULL to choose from the window.');
    END IF;
    step := ('1 ' || b)::interval;
    -- the buckets of the window, counted before any is made: those of
    -- generate_series(l0, l1, step) below
    l0 := date_trunc(b, timezone(tz, $2));
    l1 := timezone(tz, $3) - interval '1 microsecond';
    PERFORM @extschema@_internal._chart_check_buckets('cluster_utilisation_svg',
        CASE b WHEN 'hour' THEN floor(extract(epoch FROM l1 - l0) / 3600)::bigint + 1
               WHEN 'day' THEN (l1::date - l0::date)::bigint + 1
               ELSE ((extract(year FROM l1) - extract(year FROM l0)) * 12
                     + extract(month FROM l1) - extract(month FROM l0))::bigint + 1 END,
        format('%s buckets from %s to %s', CASE b WHEN 'hour' THEN 'hourly' WHEN 'day' THEN 'daily' ELSE 'monthly' END, $2, $3),
        'Take a coarser bucket (''day'' or ''month'') or a shorter window: the plot is 570 pixels wide.');
    SELECT coalesce(c.total_cpus::float8, (SELECT sum(p.nodes::float8 * p.cores_per_node) FROM @extschema@.partitions p
                                             WHERE p.cluster = c.cluster))
      INTO cores FROM @extschema@.clusters c WHERE c.cluster = $1;
    -- every bucket of the window, the empty ones too, cut to the window
    SELECT array_agg(x.b0 ORDER BY x.b0), array_agg(x.b1 ORDER BY x.b0), array_agg(x.v ORDER BY x.b0)
      INTO b0s, b1s, vs
      FROM (SELECT greatest(g AT TIME ZONE tz, $2) AS b0, least((g + step) AT TIME ZONE tz, $3) AS b1,
                   coalesce(coalesce(y.h, 0) / CASE WHEN u.factor IS NULL
                                 THEN nullif(cores * extract(epoch FROM least((g + step) AT TIME ZONE tz, $3)
                                                                        - greatest(g AT TIME ZONE tz, $2)) / 3600.0, 0) / 100
                                 ELSE 1 / u.factor END, 0) AS v
              FROM generate_series(l0, l1, step) g
              LEFT JOIN (SELECT z.bucket_start, sum(z.cpu_hours) AS h
                           FROM @extschema@.usage_buckets($1, NULL, $2, $3, b) z GROUP BY 1) y
                ON y.bucket_start = g AT TIME ZONE tz) x;
    top := (SELECT max(v) FROM unnest(vs) v);
    top := CASE WHEN u.factor IS NULL AND coalesce(top, 0) <= 100 THEN 100
                ELSE @extschema@_internal._chart_top(coalesce(top, 0)) END;
    body := coalesce((
        SELECT string_agg(format('<rect x="%s" y="%s" width="%s" height="%s" fill="#1f77b4"><title>%s: %s</title></rect>',
                                 @extschema@_internal._svg_n(@extschema@_internal._chart_x(x.b0, $2, $3) + 0.5),
                                 @extschema@_internal._svg_n(@extschema@_internal._chart_y(x.v, top)),
                                 @extschema@_internal._svg_n(greatest(@extschema@_internal._chart_x(x.b1, $2, $3) - @extschema@_internal._chart_x(x.b0, $2, $3) - 1, 1)),
                                 @extschema@_internal._svg_n(310 * x.v / top),
                                 to_char(timezone(tz, x.b0), 'YYYY-MM-DD HH24:MI'), round(x.v::numeric, 2)), '' ORDER BY x.o)
          FROM unnest(b0s, b1s, vs) WITH ORDINALITY x(b0, b1, v, o)), '');
    RETURN @extschema@_internal._svg_chart(format('%s (%s cores): utilisation per %s', $1, cores, b), u.label, top, $2, $3, tz,
                                  ARRAY['#1f77b4', 'cores in use'], body);
END
$$;
COMMENT ON FUNCTION @extschema@.cluster_utilisation_svg(text, timestamptz, timestamptz, text, text) IS
'SVG (800×400) of a cluster''s utilisation over [since, until) per hour, day or month: the cores its jobs held, in percent of its cores or in hours, minutes, seconds.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.alert_thresholds', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_leaders', '');
