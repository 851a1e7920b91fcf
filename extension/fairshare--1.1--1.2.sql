-- fairshare 1.1 → 1.2 (ALTER EXTENSION fairshare UPDATE TO '1.2').
--
-- The released 1.1 script (extension/fairshare--1.1.sql) is never edited:
-- every change since ships here, in the order of the pieces
-- (extension/*.sql), and test/upgrade.sh checks that a 1.0 or 1.1 database
-- updated by this script has the same objects and gives the same reports as
-- a fresh 1.2.

\echo Use "ALTER EXTENSION fairshare UPDATE TO '1.2'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- issue 20: "No silent wrong data: six defects found by trying to break 1.1"
-- (defects 2 to 6; the C side needs no SQL: a second sacct header switches
-- the column map, every C size argument is range-checked, and the parsers
-- reject a line that is not valid text)
-- ---------------------------------------------------------------------------

-- model: an allocation's grant and a ledger entry hold at most 10^12 hours
-- (defect 3).  Entries already recorded are kept: genci_report_at names
-- their allocation instead of failing.

CREATE FUNCTION @extschema@._allocation_hours_bounded() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- (NaN is above every number: refused here as by the CHECK)
    IF NEW.hours > 1e12 THEN
        RAISE EXCEPTION '% of allocation %: % hours is more than any allocation can hold (at most 1e12)',
                        CASE TG_TABLE_NAME WHEN 'ledger' THEN 'ledger entry' ELSE 'initial grant' END,
                        NEW.allocation_id, NEW.hours
            USING ERRCODE = '23514',
                  HINT = '10^12 hours is more than a 10^7-core machine burns in eleven years: check the figure.';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER hours_bounded BEFORE INSERT ON @extschema@.ledger
    FOR EACH ROW EXECUTE FUNCTION @extschema@._allocation_hours_bounded();

CREATE TRIGGER hours_bounded BEFORE INSERT OR UPDATE OF hours ON @extschema@.allocations
    FOR EACH ROW EXECUTE FUNCTION @extschema@._allocation_hours_bounded();

REVOKE ALL ON FUNCTION @extschema@._allocation_hours_bounded() FROM PUBLIC;


-- genci: a report row of status 'error' with a WARNING naming the
-- allocation, instead of an overflow failing every row (defect 3); the
-- regulation procedure skips such an allocation the same way.

CREATE FUNCTION @extschema@._genci_refusal(allocation_id bigint, as_of date, used float8,
                                           OUT net float8, OUT why text)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_variable
BEGIN
    SELECT CASE WHEN a.hours > 1e12
                THEN format('its initial grant of %s hours is more than any allocation can hold (at most 1e12)', a.hours)
                ELSE (SELECT format('ledger entry %s (%s, %s) holds %s hours, more than any allocation can hold (at most 1e12)',
                                    l.entry_id, l.kind, to_char(l.effective_date, 'YYYY-MM-DD'), l.hours)
                        FROM @extschema@.ledger l
                       WHERE l.allocation_id = a.allocation_id AND l.effective_date <= as_of AND l.hours > 1e12
                       ORDER BY l.entry_id LIMIT 1) END
      INTO why
      FROM @extschema@.allocations a WHERE a.allocation_id = allocation_id;
    IF why IS NOT NULL THEN
        RETURN;
    END IF;
    net := @extschema@._genci_net_before(allocation_id, as_of);
    IF net < 0 THEN
        why := format('its take-backs exceed what it was granted: the net allocation is %s hours', net);
    ELSIF used >= 1e15 THEN
        why := format('its consumption of %s core-hours is more than any machine could burn (at most 1e15)', used);
    END IF;
    IF why IS NOT NULL THEN
        net := NULL;
    END IF;
END
$$;

CREATE FUNCTION @extschema@._genci_report_error(allocation_id bigint, cluster text, account text, why text)
RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE WARNING 'genci_report_at: allocation % (cluster "%", account "%"): %', $1, $2, $3, $4
        USING DETAIL = 'Its row has status ''error'' and no figures; the other allocations'' rows are computed.',
              HINT = 'Correct the allocation: an entry the ledger must not hold can only be removed by a superuser.';
    RETURN 'error';
END
$$;

CREATE OR REPLACE FUNCTION @extschema@.genci_report_at(as_of date)
RETURNS TABLE (cluster text, account text, allocation_id bigint, period_start date, period_end date,
               regime text, variant text, initial_hours float8, net_hours float8,
               consumed float8, theoretical float8, lag_hours float8, lag_days float8,
               monthly float8, ratio float8, status text, allocation_month integer,
               check_day boolean, exempt boolean, penalty float8,
               last_penalty_date date, last_penalty_hours float8, taken_back_hours float8)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
    IF $1 IS NULL THEN
        RAISE EXCEPTION 'genci_report_at: as_of must not be NULL'
            USING ERRCODE = '22004', HINT = 'Pass the day the report is for.';
    ELSIF NOT isfinite($1) THEN
        RAISE EXCEPTION 'genci_report_at: as_of must be a finite date, not %', $1
            USING ERRCODE = '22008', HINT = 'Pass the day the report is for.';
    END IF;
    RETURN QUERY
    -- the consumption and the net computed once per allocation (OFFSET 0,
    -- MATERIALIZED): an expression of a subquery pulled up into its parent
    -- is evaluated at every reference to it
    WITH a AS MATERIALIZED (
        SELECT u.*, g.net, g.why
          FROM (SELECT al.cluster, al.account, al.allocation_id, al.period_start, al.period_end, al.hours,
                       al.justification_filed, al.second_half_declared,
                       CASE WHEN al.hours >= coalesce(c.regulation_threshold, 0) THEN 'monthly' ELSE 'mid-term' END AS regime,
                       coalesce(s.variant, 'genci') AS variant,
                       coalesce(s.midterm_cap, 0.40) AS cap,
                       coalesce(s.midterm_used_limit, 0.30) AS used_limit,
                       @extschema@.allocation_consumption(al.allocation_id, $1) AS used
                  FROM @extschema@.allocations al
                  JOIN @extschema@.clusters c ON c.cluster = al.cluster
                  LEFT JOIN @extschema@.genci_settings s ON s.cluster = al.cluster
                 WHERE al.policy = 'genci'
                OFFSET 0) u
         CROSS JOIN LATERAL @extschema@._genci_refusal(u.allocation_id, $1, u.used) g
    )
    SELECT a.cluster, a.account, a.allocation_id, a.period_start, a.period_end, a.regime, a.variant,
           a.hours, a.net, a.used, st.theoretical, st.lag, st.lag_days, st.monthly, st.ratio,
           CASE WHEN a.why IS NULL THEN st.status
                ELSE @extschema@._genci_report_error(a.allocation_id, a.cluster, a.account, a.why) END,
           st.allocation_month,
           CASE WHEN a.regime = 'monthly' THEN st.check_day ELSE mt.check_day END,
           ex.exempt,
           CASE WHEN a.why IS NOT NULL THEN NULL::float8
                WHEN a.regime = 'monthly' THEN st.penalty
                WHEN ex.exempt THEN 0::float8 ELSE mt.take_back END,
           lp.effective_date, lp.hours,
           CASE WHEN a.why IS NULL THEN coalesce(tb.hours, 0) END
      FROM a
     CROSS JOIN LATERAL @extschema@.genci_status(a.net, a.used, a.period_start, a.period_end, $1, a.variant) st
     CROSS JOIN LATERAL @extschema@.genci_midterm_status(a.net, a.used, a.period_start, a.period_end, $1,
                                                          a.cap, a.used_limit) mt
     CROSS JOIN LATERAL (SELECT a.regime = 'mid-term'
                                AND (a.second_half_declared
                                     OR coalesce(a.justification_filed < a.period_start + interval '5 months', false))
                                AS exempt) ex
      LEFT JOIN LATERAL (SELECT l.effective_date, l.hours FROM @extschema@.ledger l
                          WHERE l.allocation_id = a.allocation_id AND l.kind = 'take_back'
                            AND l.rule <> 'manual' AND l.effective_date <= $1
                          ORDER BY l.effective_date DESC, l.entry_id DESC LIMIT 1) lp ON true
      LEFT JOIN LATERAL (SELECT sum(l.hours) AS hours FROM @extschema@.ledger l
                          WHERE a.why IS NULL
                            AND l.allocation_id = a.allocation_id AND l.kind = 'take_back'
                            AND l.effective_date <= $1) tb ON true
     ORDER BY a.cluster, a.account, a.period_start;
END
$$;

CREATE OR REPLACE PROCEDURE @extschema@.apply_genci_regulation(as_of date DEFAULT NULL, cluster text DEFAULT NULL)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
    cl record;
    al record;
    cd record;
    today date;
    upto date;
    net float8;
    used float8;
    st record;
    mt record;
    is_exempt boolean;
    taken float8;
    notice text;
    check_status text;
    msg text;
    checked record;
    n_clusters integer := 0;
BEGIN
    IF $1 IS NOT NULL AND NOT isfinite($1) THEN
        RAISE EXCEPTION 'apply_genci_regulation: as_of must be a finite date, not %', $1
            USING ERRCODE = '22008', HINT = 'Pass the day to apply the regulation for, or NULL for today.';
    END IF;
    FOR cl IN
        SELECT c.cluster, c.timezone, coalesce(c.regulation_threshold, 0) AS threshold,
               coalesce(s.variant, 'genci') AS variant,
               coalesce(s.midterm_cap, 0.40) AS cap,
               coalesce(s.midterm_used_limit, 0.30) AS used_limit
          FROM @extschema@.clusters c
          LEFT JOIN @extschema@.genci_settings s ON s.cluster = c.cluster
         WHERE $2 IS NULL OR c.cluster = $2
         ORDER BY c.cluster
    LOOP
        n_clusters := n_clusters + 1;
        today := timezone(cl.timezone, now())::date;
        upto := coalesce($1, today);
        IF upto > today THEN
            RAISE EXCEPTION 'apply_genci_regulation: % has not begun on cluster "%"', to_char(upto, 'YYYY-MM-DD'), cl.cluster
                USING ERRCODE = '22023', DETAIL = format('Today is %s in time zone %s.', to_char(today, 'YYYY-MM-DD'), cl.timezone),
                      HINT = 'Hours are only taken on days that have begun in the cluster''s time zone.';
        END IF;
        -- only allocations with a check day still to evaluate: a day found
        -- evaluated (committed) cannot become pending again, so the others
        -- are skipped without a lock
        FOR al IN
            SELECT a.allocation_id, a.account, a.period_start, a.period_end, a.hours,
                   a.justification_filed, a.second_half_declared
              FROM @extschema@.allocations a
             WHERE a.cluster = cl.cluster AND a.policy = 'genci' AND a.period_start <= upto
               AND EXISTS (SELECT 1
                             FROM @extschema@._genci_check_days(a.period_start, a.period_end,
                                      CASE WHEN a.hours >= cl.threshold THEN 'monthly' ELSE 'mid-term' END,
                                      cl.variant) d
                            WHERE d.check_day <= upto
                              AND NOT EXISTS (SELECT 1 FROM @extschema@.regulation_checks r
                                               WHERE r.allocation_id = a.allocation_id
                                                 AND r.rule = d.rule AND r.check_day = d.check_day))
             ORDER BY a.allocation_id
        LOOP
            -- serialise with any other run on this allocation; what follows
            -- reads with snapshots taken after the lock was granted
            PERFORM 1 FROM @extschema@.allocations a WHERE a.allocation_id = al.allocation_id FOR NO KEY UPDATE;
            FOR cd IN
                SELECT d.rule, d.check_day
                  FROM @extschema@._genci_check_days(al.period_start, al.period_end,
                           CASE WHEN al.hours >= cl.threshold THEN 'monthly' ELSE 'mid-term' END,
                           cl.variant) d
                 WHERE d.check_day <= upto
                   AND NOT EXISTS (SELECT 1 FROM @extschema@.regulation_checks r
                                    WHERE r.allocation_id = al.allocation_id
                                      AND r.rule = d.rule AND r.check_day = d.check_day)
                 ORDER BY d.check_day, d.rule
            LOOP
                used := @extschema@.allocation_consumption(al.allocation_id, cd.check_day);
                -- figures that cannot be computed (_genci_refusal): this
                -- allocation's days stay pending, the others go on
                SELECT * INTO checked FROM @extschema@._genci_refusal(al.allocation_id, cd.check_day, used);
                IF checked.why IS NOT NULL THEN
                    RAISE WARNING 'apply_genci_regulation: allocation % (cluster "%", account "%") skipped from %: %',
                                  al.allocation_id, cl.cluster, al.account, to_char(cd.check_day, 'YYYY-MM-DD'), checked.why
                        USING DETAIL = 'Its check days stay pending; the other allocations are regulated.',
                              HINT = 'Correct the allocation and run the procedure again.';
                    EXIT;
                END IF;
                net := checked.net;
                SELECT * INTO st FROM @extschema@.genci_status(net, used, al.period_start, al.period_end,
                                                               cd.check_day, cl.variant);
                taken := 0;
                notice := NULL;
                msg := NULL;
                IF cd.rule IN ('genci_monthly', 'tgcc_monthly') THEN
                    check_status := st.status;
                    taken := st.penalty;
                    IF taken > 0 THEN
                        notice := 'take_back';
                        msg := format('%s on %s: consumed %s h against %s h theoretical (lag %s h, %s days, ratio %s); %s h taken back',
                                      al.account, to_char(cd.check_day, 'YYYY-MM-DD'), round(used::numeric, 2), round(st.theoretical::numeric, 2),
                                      round(st.lag::numeric, 2), round(st.lag_days::numeric, 1),
                                      round(st.ratio::numeric, 3), round(taken::numeric, 2));
                    ELSIF st.status IN ('late', 'very late') THEN
                        notice := 'warning';
                        msg := format('%s on %s: %s, consumed %s h against %s h theoretical (lag %s h, %s days, ratio %s)',
                                      al.account, to_char(cd.check_day, 'YYYY-MM-DD'), st.status, round(used::numeric, 2),
                                      round(st.theoretical::numeric, 2), round(st.lag::numeric, 2),
                                      round(st.lag_days::numeric, 1), round(st.ratio::numeric, 3));
                    END IF;
                ELSE
                    SELECT * INTO mt FROM @extschema@.genci_midterm_status(net, used, al.period_start, al.period_end,
                                                                          cd.check_day, cl.cap, cl.used_limit);
                    is_exempt := al.second_half_declared
                                 OR coalesce(al.justification_filed < al.period_start + interval '5 months', false);
                    -- the mid-term words: exempt, under-used (<= used_limit), on track
                    check_status := CASE WHEN NOT mt.under_used THEN 'on track'
                                         WHEN cd.rule = 'genci_midterm' AND is_exempt THEN 'exempt'
                                         ELSE 'under-used' END;
                    IF cd.rule = 'genci_midterm_alert' AND mt.under_used THEN
                        notice := 'alert';
                        msg := format('%s: %s h used of %s h (%s %%) at the start of month 5; a justification filed before %s can exempt the project from the mid-term take-back',
                                      al.account, round(used::numeric, 2), round(net::numeric, 2),
                                      round(100 * coalesce(mt.used_fraction, 0)::numeric, 1),
                                      to_char(al.period_start + interval '5 months', 'YYYY-MM-DD'));
                    ELSIF cd.rule = 'genci_midterm' AND mt.under_used AND is_exempt THEN
                        notice := 'exempt';
                        msg := format('%s: %s h used of %s h after month 5; exempt from the mid-term take-back (%s)',
                                      al.account, round(used::numeric, 2), round(net::numeric, 2),
                                      CASE WHEN al.second_half_declared THEN 'second-half use declared'
                                           ELSE 'justification filed on ' || to_char(al.justification_filed, 'YYYY-MM-DD') END);
                    ELSIF cd.rule = 'genci_midterm' AND mt.take_back > 0 THEN
                        taken := mt.take_back;
                        notice := 'take_back';
                        msg := format('%s: %s h used of %s h (%s %%) after month 5; %s h taken back',
                                      al.account, round(used::numeric, 2), round(net::numeric, 2),
                                      round(100 * coalesce(mt.used_fraction, 0)::numeric, 1), round(taken::numeric, 2));
                    END IF;
                END IF;

                INSERT INTO @extschema@.regulation_checks AS r
                       (allocation_id, rule, check_day, net_hours, consumed, theoretical, lag, ratio, status, hours_taken)
                VALUES (al.allocation_id, cd.rule, cd.check_day, net, used, st.theoretical, st.lag, st.ratio,
                        check_status, taken)
                ON CONFLICT DO NOTHING;
                IF NOT FOUND THEN
                    CONTINUE;       -- evaluated meanwhile by another run
                END IF;
                IF taken > 0 THEN
                    INSERT INTO @extschema@.ledger (allocation_id, kind, hours, rule, reason, effective_date)
                    VALUES (al.allocation_id, 'take_back', taken, cd.rule, msg, cd.check_day);
                END IF;
                IF notice IS NOT NULL THEN
                    INSERT INTO @extschema@.regulation_notifications
                           (allocation_id, cluster, account, rule, check_day, kind, hours, message)
                    VALUES (al.allocation_id, cl.cluster, al.account, cd.rule, cd.check_day, notice, taken, msg);
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;
    IF $2 IS NOT NULL AND n_clusters = 0 THEN
        RAISE EXCEPTION 'apply_genci_regulation: no cluster "%"', $2
            USING ERRCODE = '22023', HINT = 'Name a cluster of fairshare.clusters, or NULL for every cluster.';
    END IF;
END
$$;

REVOKE ALL ON FUNCTION @extschema@._genci_refusal(bigint, date, float8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._genci_refusal(bigint, date, float8) TO fairshare_admin, fairshare_reader;
REVOKE ALL ON FUNCTION @extschema@._genci_report_error(bigint, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._genci_report_error(bigint, text, text, text) TO fairshare_admin, fairshare_reader;


-- import: a line staged with an invalid byte (the README's \copy now says
-- ENCODING 'SQL_ASCII') is rejected alone, and kept in import_rejects with
-- the byte written \xNN (defect 6).

CREATE FUNCTION @extschema@._import_line_text(line text)
RETURNS text
AS 'MODULE_PATHNAME', 'fs_import_line_text'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION @extschema@._import_staging(staging text)
RETURNS regclass
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel regclass;
BEGIN
    IF staging IS NULL THEN
        RAISE EXCEPTION 'staging must not be NULL' USING ERRCODE = '22004',
            HINT = 'Name the table the export was copied into (default import_staging, made by fairshare.import_stage()).';
    END IF;
    rel := to_regclass(staging);
    IF rel IS NULL THEN
        RAISE EXCEPTION 'staging table "%" does not exist', staging USING ERRCODE = '42P01',
            HINT = 'Run SELECT fairshare.import_stage(); then \copy import_staging (line) FROM ''file'' (FORMAT csv, DELIMITER E''\x1f'', QUOTE E''\x1e'', ENCODING ''SQL_ASCII'').';
    END IF;
    IF (SELECT count(*) FROM pg_attribute a
         WHERE a.attrelid = rel AND NOT a.attisdropped
           AND ((a.attname = 'line_no' AND a.atttypid = 'bigint'::regtype AND a.attnotnull)
                OR (a.attname = 'line' AND a.atttypid = 'text'::regtype))) <> 2 THEN
        RAISE EXCEPTION 'staging table % needs columns line_no bigint NOT NULL and line text', rel USING ERRCODE = '22023',
            HINT = 'Create it with fairshare.import_stage(), or as (line_no bigint GENERATED ALWAYS AS IDENTITY, line text).';
    END IF;
    RETURN rel;
END
$$;

CREATE OR REPLACE FUNCTION @extschema@._import_rejects(import_id bigint, lines regclass, src regclass,
                                            all_or_nothing boolean)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n bigint;
    late bigint;
    first record;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s WHERE kind = ''reject''', lines) INTO n;
    IF n = 0 THEN
        RETURN 0;
    END IF;
    EXECUTE format('SELECT line_no, sqlstate, reason FROM %s WHERE kind = ''reject'' ORDER BY line_no LIMIT 1', lines)
       INTO first;
    IF all_or_nothing THEN
        RAISE EXCEPTION 'line %: %', first.line_no, first.reason
            USING ERRCODE = first.sqlstate,
                  DETAIL = format('%s line(s) rejected; nothing was imported (all_or_nothing).', n),
                  HINT = 'Fix those lines, or import with all_or_nothing => false to keep the good lines and find the bad ones in fairshare.import_rejects.';
    END IF;
    -- the text of lines rejected after parsing, from the staging table
    -- (analyzed first, so that the join hashes the few rejects)
    EXECUTE format('SELECT count(*) FROM %s WHERE kind = ''reject'' AND line IS NULL', lines) INTO late;
    IF late > 0 THEN
        EXECUTE format('ANALYZE %s', src);
        EXECUTE format('UPDATE %s l SET line = s.line FROM %s s
                         WHERE l.kind = ''reject'' AND l.line IS NULL AND s.line_no = l.line_no', lines, src);
    END IF;
    -- (a line staged with an invalid byte is kept with it written \xNN)
    EXECUTE format('INSERT INTO @extschema@.import_rejects (import_id, line_no, job_id, sqlstate, reason, line)
                    SELECT $1, l.line_no, l.job_id, l.sqlstate, l.reason, @extschema@._import_line_text(l.line) FROM %s l
                     WHERE l.kind = ''reject''', lines) USING import_id;
    RETURN n;
END
$$;

REVOKE ALL ON FUNCTION @extschema@._import_line_text(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@._import_line_text(text) TO fairshare_admin, fairshare_reader, fairshare_user;


-- security: a plain user reads when and whether each usage checkpoint holds,
-- not invalidated_by, which names the job that invalidated it (defect 4)
REVOKE SELECT ON @extschema@.usage_checkpoints FROM fairshare_user;
GRANT SELECT (cluster, as_of, created_at, invalidated_at) ON @extschema@.usage_checkpoints TO fairshare_user;
