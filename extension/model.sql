-- ---------------------------------------------------------------------------
-- model: the accounting database — clusters, partitions, the association
-- tree, jobs, allocations and their append-only ledger
-- (docs/design.md#the-model).
--
-- Constraints reject what the policies cannot use.  Every table holds a
-- centre's data, so each is registered with pg_extension_config_dump and
-- survives pg_dump / restore.
-- ---------------------------------------------------------------------------

-- Validators of the clusters' Slurm decay settings, for their CHECK
-- constraints: an error naming the value and saying what is expected,
-- where a failed CHECK would only name the constraint.
CREATE FUNCTION @extschema@_internal._check_calc_period(calc_period interval)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF calc_period <= '0'::interval THEN
        RAISE EXCEPTION 'priority_calc_period must be a positive interval, not %', calc_period
            USING ERRCODE = '22023',
                  HINT = 'PriorityCalcPeriod is the time between two passes of slurmctld''s decay thread (Slurm''s default: 5 minutes).';
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._check_calc_period(interval) IS
'true for a positive PriorityCalcPeriod; raises 22023 naming the value otherwise.';

-- PriorityUsageResetPeriod, in any case as slurm.conf takes it; NOW (a reset
-- once, when slurmctld started) needs the instant of that reset.
CREATE FUNCTION @extschema@_internal._check_usage_reset(period text, last_reset timestamptz)
RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF period IS NULL THEN
        RETURN true;            -- NOT NULL says so
    ELSIF upper(period) NOT IN ('NONE', 'NOW', 'DAILY', 'WEEKLY', 'MONTHLY', 'QUARTERLY', 'YEARLY') THEN
        RAISE EXCEPTION 'usage_reset_period must be NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY, not "%"', period
            USING ERRCODE = '22023',
                  HINT = 'These are the values of Slurm''s PriorityUsageResetPeriod; NONE (the default) never resets usage.';
    ELSIF upper(period) = 'NOW' AND last_reset IS NULL THEN
        RAISE EXCEPTION 'usage_reset_period NOW needs usage_last_reset, the instant the usage was reset'
            USING ERRCODE = '22023',
                  HINT = 'NOW resets usage once, when slurmctld starts: set usage_last_reset to that instant.';
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._check_usage_reset(text, timestamptz) IS
'true for a PriorityUsageResetPeriod Slurm knows (NOW with the instant of its reset); raises 22023 naming the value otherwise.';

CREATE TABLE @extschema@.clusters (
    cluster              text PRIMARY KEY CHECK (cluster OPERATOR(pg_catalog.<>) ''),
    scheduler            text NOT NULL DEFAULT 'slurm' CHECK (scheduler IN ('slurm', 'pbs')),
    -- fairshare: Slurm Fair Tree (default), classic (NO_FAIR_TREE) or the PBS tree
    fairshare_algorithm  text NOT NULL DEFAULT 'fair_tree'
                         CHECK (fairshare_algorithm IN ('fair_tree', 'classic', 'pbs')),
    -- decay: 'exact' 2^(-t/h), 'slurm' (1-0.693/h)^t, 'step' PBS factor per interval,
    -- 'slurm_passes' slurmctld's passes every priority_calc_period (docs/decay.md)
    decay_mode           text NOT NULL DEFAULT 'exact'
                         CHECK (decay_mode IN ('exact', 'slurm', 'step', 'slurm_passes')),
    decay_half_life      interval NOT NULL DEFAULT '7 days'
                         CHECK (decay_half_life OPERATOR(pg_catalog.>=) '0'::interval),
    decay_interval       interval NOT NULL DEFAULT '24 hours'
                         CHECK (decay_interval OPERATOR(pg_catalog.>) '0'::interval),
    decay_factor         float8 NOT NULL DEFAULT 0.5
                         CHECK (decay_factor OPERATOR(pg_catalog.>=) 0 AND decay_factor OPERATOR(pg_catalog.<=) 1),
    fairshare_dampening  float8 NOT NULL DEFAULT 1
                         CHECK (fairshare_dampening OPERATOR(pg_catalog.>) 0 AND fairshare_dampening OPERATOR(pg_catalog.<) 'Infinity'),
    -- multifactor priority (PriorityWeight*: uint32 in Slurm)
    weight_fairshare     bigint NOT NULL DEFAULT 0 CHECK (weight_fairshare BETWEEN 0 AND 4294967295),
    weight_age           bigint NOT NULL DEFAULT 0 CHECK (weight_age BETWEEN 0 AND 4294967295),
    weight_job_size      bigint NOT NULL DEFAULT 0 CHECK (weight_job_size BETWEEN 0 AND 4294967295),
    weight_partition     bigint NOT NULL DEFAULT 0 CHECK (weight_partition BETWEEN 0 AND 4294967295),
    weight_qos           bigint NOT NULL DEFAULT 0 CHECK (weight_qos BETWEEN 0 AND 4294967295),
    priority_max_age     interval NOT NULL DEFAULT '7 days'
                         CHECK (priority_max_age OPERATOR(pg_catalog.>=) '0'::interval),
    favor_small          boolean NOT NULL DEFAULT false,
    -- cluster size for the job-size factor (NULL: summed over partitions)
    total_nodes          integer CHECK (total_nodes OPERATOR(pg_catalog.>) 0),
    total_cpus           integer CHECK (total_cpus OPERATOR(pg_catalog.>) 0),
    -- GENCI: allocations at or above this many hours get the monthly
    -- regulation, below it the mid-term one (5 M h Turing, 1 M h Ada)
    regulation_threshold float8 CHECK (regulation_threshold OPERATOR(pg_catalog.>=) 0
                                       AND regulation_threshold OPERATOR(pg_catalog.<) 'Infinity'),
    -- RWTH: core-hours charged per GPU-hour (24 on CLAIX); 0 = GPUs not billed
    gpu_hour_factor      float8 NOT NULL DEFAULT 0
                         CHECK (gpu_hour_factor OPERATOR(pg_catalog.>=) 0 AND gpu_hour_factor OPERATOR(pg_catalog.<) 'Infinity'),
    -- the time zone in which the centre's calendar (months, check days) runs
    timezone             text NOT NULL DEFAULT 'UTC'
                         CHECK (pg_catalog.timezone(timezone, '2000-01-01 00:00+00'::timestamptz) IS NOT NULL),
    description          text,
    -- slurmctld's decay thread (decay_mode 'slurm_passes'): a pass every
    -- PriorityCalcPeriod, and the instant of one pass, which fixes the
    -- others (priority_last_decay_ran in StateSaveLocation; NULL: whole
    -- multiples of the period since 1970-01-01 UTC)
    priority_calc_period interval NOT NULL DEFAULT '5 minutes'
                         CHECK (@extschema@_internal._check_calc_period(priority_calc_period)),
    priority_last_decay  timestamptz CHECK (pg_catalog.isfinite(priority_last_decay)),
    -- PriorityUsageResetPeriod: usage starts again from 0 at each period's
    -- start, in the cluster's time zone (with 'slurm_passes', at the first
    -- pass from then); NOW resets once, at usage_last_reset
    usage_reset_period   text NOT NULL DEFAULT 'NONE',
    usage_last_reset     timestamptz CHECK (pg_catalog.isfinite(usage_last_reset)),
    -- the first instant the cluster's accounting can hold: an imported run
    -- submitted, eligible, started or ended before it is rejected, and
    -- maintain_partitions makes no month before the earliest cluster's
    -- (docs/import.md#times-a-centre-cannot-have)
    accounting_start     timestamptz NOT NULL DEFAULT '2000-01-01 00:00:00+00'
                         CHECK (pg_catalog.isfinite(accounting_start)),
    -- RWTH: the rule of the projects' quota (docs/policies.md#rwth-sliding-window-quota):
    -- 'window', the "Resource Quotas" page's A(m−1) + A(m) + A(m+1) − C(m−1)
    -- − C(m), or 'three_months', the "Computing Time Accounting" page's
    -- "up to three times the monthly quota over any three consecutive months"
    rwth_rule            text NOT NULL DEFAULT 'window' CHECK (rwth_rule IN ('window', 'three_months')),
    -- the Slurm release the cluster runs, whose sreport the sreport-shaped
    -- reports print as (docs/slurm.md#which-release-a-cluster-runs): set by
    -- the administrator, or by the slurmdbd feed from what slurmdbd's
    -- tables say at each sync; NULL: not told, 22.05's form
    slurm_version        text CHECK (slurm_version OPERATOR(pg_catalog.=) ANY (ARRAY['22.05', '24.11'])),
    CONSTRAINT clusters_usage_reset_check
        CHECK (@extschema@_internal._check_usage_reset(usage_reset_period, usage_last_reset))
);
COMMENT ON TABLE @extschema@.clusters IS 'One row per cluster with its policy parameters (decay, priority weights, regulation).';

CREATE TABLE @extschema@.partitions (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    partition            text NOT NULL CHECK (partition OPERATOR(pg_catalog.<>) ''),
    -- Slurm TRESBillingWeights; NULL bills the CPUs
    billing_weights      text CHECK (@extschema@.tres_weights_valid(billing_weights)),
    billing_mode         text NOT NULL DEFAULT 'sum' CHECK (billing_mode IN ('sum', 'max_tres', 'max_tres_gres')),
    priority_job_factor  integer NOT NULL DEFAULT 1 CHECK (priority_job_factor BETWEEN 0 AND 65535),
    -- node shape
    nodes                integer NOT NULL DEFAULT 1 CHECK (nodes OPERATOR(pg_catalog.>) 0),
    cores_per_node       integer NOT NULL CHECK (cores_per_node OPERATOR(pg_catalog.>) 0),
    mem_per_node_mb      bigint NOT NULL CHECK (mem_per_node_mb OPERATOR(pg_catalog.>) 0),
    gpus_per_node        integer NOT NULL DEFAULT 0 CHECK (gpus_per_node OPERATOR(pg_catalog.>=) 0),
    scratch_per_node_mb  bigint NOT NULL DEFAULT 0 CHECK (scratch_per_node_mb OPERATOR(pg_catalog.>=) 0),
    -- MetaCentrum: per-CPU speed of the nodes (SPEC, 3..10)
    spec                 float8 NOT NULL DEFAULT 1
                         CHECK (spec OPERATOR(pg_catalog.>) 0 AND spec OPERATOR(pg_catalog.<) 'Infinity'),
    -- RWTH JARA-style: jobs pay every core of every allocated node
    whole_node           boolean NOT NULL DEFAULT false,
    PRIMARY KEY (cluster, partition)
);
COMMENT ON TABLE @extschema@.partitions IS 'Partitions (queues) with billing weights, PriorityJobFactor, node shape and spec.';

CREATE TABLE @extschema@.qos (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    qos                  text NOT NULL CHECK (qos OPERATOR(pg_catalog.<>) ''),
    priority             integer NOT NULL DEFAULT 0 CHECK (priority OPERATOR(pg_catalog.>=) 0),
    usage_factor         float8 NOT NULL DEFAULT 1
                         CHECK (usage_factor OPERATOR(pg_catalog.>=) 0 AND usage_factor OPERATOR(pg_catalog.<) 'Infinity'),
    PRIMARY KEY (cluster, qos)
);
COMMENT ON TABLE @extschema@.qos IS 'Slurm QOS: priority (for the QOS factor) and UsageFactor.';

-- The account tree.  shares NULL = Fairshare=parent.  'root' is the only
-- account without a parent.
CREATE TABLE @extschema@.accounts (
    cluster              text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account              text NOT NULL CHECK (account OPERATOR(pg_catalog.<>) ''),
    parent_account       text,
    shares               integer DEFAULT 1 CHECK (shares OPERATOR(pg_catalog.>=) 0),
    description          text,
    PRIMARY KEY (cluster, account),
    FOREIGN KEY (cluster, parent_account) REFERENCES @extschema@.accounts (cluster, account) ON UPDATE CASCADE,
    CHECK ((account OPERATOR(pg_catalog.=) 'root') OPERATOR(pg_catalog.=) (parent_account IS NULL)),
    CHECK (account OPERATOR(pg_catalog.<>) 'root' OR shares IS NOT NULL)
);
COMMENT ON TABLE @extschema@.accounts IS 'Account associations: the tree under root, raw shares (NULL = Fairshare=parent).';

-- Users in accounts (user associations).  One user may sit in several accounts.
CREATE TABLE @extschema@.account_users (
    cluster              text NOT NULL,
    account              text NOT NULL,
    user_name            text NOT NULL CHECK (user_name OPERATOR(pg_catalog.<>) ''),
    shares               integer DEFAULT 1 CHECK (shares OPERATOR(pg_catalog.>=) 0),
    PRIMARY KEY (cluster, account, user_name),
    FOREIGN KEY (cluster, account) REFERENCES @extschema@.accounts ON UPDATE CASCADE ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.account_users IS 'User associations: a user in an account with raw shares (NULL = Fairshare=parent).';
CREATE INDEX ON @extschema@.account_users (user_name);

-- A cycle in the account tree would make every tree function fail: refuse it.
CREATE FUNCTION @extschema@_internal._accounts_no_cycle() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    cur text := NEW.parent_account;
    steps int := 0;
BEGIN
    WHILE cur IS NOT NULL LOOP
        IF cur = NEW.account THEN
            RAISE EXCEPTION 'account "%" on cluster "%" would be its own ancestor', NEW.account, NEW.cluster
                USING ERRCODE = '23514', HINT = 'The account tree must not contain a cycle.';
        END IF;
        SELECT a.parent_account INTO cur FROM @extschema@.accounts a
         WHERE a.cluster = NEW.cluster AND a.account = cur;
        steps := steps + 1;
        IF steps > 10000 THEN
            RAISE EXCEPTION 'account tree of cluster "%" is deeper than 10000 levels', NEW.cluster
                USING ERRCODE = '23514';
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER accounts_no_cycle AFTER INSERT OR UPDATE OF parent_account ON @extschema@.accounts
    DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._accounts_no_cycle();

-- The history of the tree (docs/history.md#the-history-of-the-tree): every
-- version of an account's parent and shares and of a user association's
-- shares, valid over [valid_from, valid_to) (valid_to NULL: the version in
-- force now).  Written only by the triggers below, from every path that
-- writes accounts or account_users (SQL, import, the slurmdbd feed); the
-- *_at reports read it when a change came after their instant
-- (_accounts_at, _account_users_at).  An association that never changed
-- has no version: it is read as it is for every instant (a centre that
-- loads its tree today reads its past jobs with it, and so does an
-- upgraded centre with the tree it had at the upgrade); its first change
-- writes its old values as a version from -infinity.
CREATE TABLE @extschema@.account_history (
    -- a cluster's history goes with it, and follows its renaming
    cluster        text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account        text NOT NULL,
    parent_account text,
    shares         integer,
    valid_from     timestamptz NOT NULL,
    valid_to       timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
COMMENT ON TABLE @extschema@.account_history IS
'Every version of each account''s parent and shares, valid over [valid_from, valid_to) (valid_to NULL: in force now); written by the triggers of accounts.';
CREATE INDEX account_history_key_idx ON @extschema@.account_history (cluster, account, valid_from);
-- one open version per association
CREATE UNIQUE INDEX account_history_open_idx ON @extschema@.account_history (cluster, account) WHERE valid_to IS NULL;
CREATE INDEX account_history_from_idx ON @extschema@.account_history (valid_from);
CREATE INDEX account_history_to_idx ON @extschema@.account_history (valid_to);
CREATE TABLE @extschema@.account_user_history (
    cluster    text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account    text NOT NULL,
    user_name  text NOT NULL,
    shares     integer,
    valid_from timestamptz NOT NULL,
    valid_to   timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
COMMENT ON TABLE @extschema@.account_user_history IS
'Every version of each user association''s shares, valid over [valid_from, valid_to) (valid_to NULL: in force now); written by the triggers of account_users.';
CREATE INDEX account_user_history_key_idx ON @extschema@.account_user_history (cluster, account, user_name, valid_from);
CREATE UNIQUE INDEX account_user_history_open_idx ON @extschema@.account_user_history (cluster, account, user_name) WHERE valid_to IS NULL;
CREATE INDEX account_user_history_from_idx ON @extschema@.account_user_history (valid_from);
CREATE INDEX account_user_history_to_idx ON @extschema@.account_user_history (valid_to);

-- The instant a change of the tree takes effect: the transaction's now(),
-- or the session setting fairshare.tree_change_at when it is set (the
-- slurmdbd feed passes slurmdbd's mod_time; a centre recording a change it
-- made earlier passes that instant).  Validated: a timestamp, finite, not
-- after now() (docs/history.md#how-an-instant-is-recorded).
CREATE FUNCTION @extschema@_internal._tree_change_instant()
RETURNS timestamptz
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    v text := NULLIF(current_setting('fairshare.tree_change_at', true), '');
    t timestamptz;
BEGIN
    IF v IS NULL THEN
        RETURN now();
    END IF;
    BEGIN
        t := v::timestamptz;
    EXCEPTION WHEN data_exception THEN
        RAISE EXCEPTION 'fairshare.tree_change_at "%" is not a timestamp', v
            USING ERRCODE = '22007', HINT = 'Set it to the instant the change took effect, e.g. ''2026-01-31 12:00+00'', or RESET it for now().';
    END;
    IF NOT isfinite(t) OR t > now() THEN
        RAISE EXCEPTION 'fairshare.tree_change_at "%" is not a finite instant up to now()', v
            USING ERRCODE = '22008', HINT = 'A change is recorded at an instant that has come: now() or earlier.';
    END IF;
    RETURN t;
END
$$;

-- One row's change into the history (docs/history.md#the-history-of-the-tree).
-- Only changes are written: a row inserted for the first time and never
-- changed has no version and is read from the live table for every
-- instant; its first change writes its old values as a version from
-- -infinity to the instant, and its new values from the instant on.
-- An UPDATE that changes nothing the tree reads (a description, a limit)
-- writes nothing.
-- Whether an association has any version in the history.
CREATE FUNCTION @extschema@_internal._tree_has_history(is_account boolean, cluster text, account text, user_name text)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN _tree_has_history.is_account
                THEN EXISTS (SELECT FROM @extschema@.account_history h
                              WHERE h.cluster OPERATOR(pg_catalog.=) _tree_has_history.cluster
                                AND h.account OPERATOR(pg_catalog.=) _tree_has_history.account)
                ELSE EXISTS (SELECT FROM @extschema@.account_user_history h
                              WHERE h.cluster OPERATOR(pg_catalog.=) _tree_has_history.cluster
                                AND h.account OPERATOR(pg_catalog.=) _tree_has_history.account
                                AND h.user_name OPERATOR(pg_catalog.=) _tree_has_history.user_name) END;
END;
COMMENT ON FUNCTION @extschema@_internal._tree_has_history(boolean, text, text, text) IS
'Whether an account (is_account) or a user association has a version in account_history or account_user_history.';

CREATE FUNCTION @extschema@_internal._tree_history() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    t timestamptz := @extschema@_internal._tree_change_instant();
    is_acct boolean := TG_TABLE_NAME = 'accounts';
    -- the old and new keys and values, the same for both tables (an
    -- account's user_name is '', a user association's parent NULL)
    ok_ text; oa text; ou text; op text; os integer;
    nk text; na text; nu text; np text; ns integer;
    o record;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        ok_ := OLD.cluster; oa := OLD.account; os := OLD.shares;
        IF is_acct THEN ou := ''; op := OLD.parent_account; ELSE ou := OLD.user_name; END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        nk := NEW.cluster; na := NEW.account; ns := NEW.shares;
        IF is_acct THEN nu := ''; np := NEW.parent_account; ELSE nu := NEW.user_name; END IF;
    END IF;
    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster = ok_) THEN
        -- the cluster deleted (ON DELETE CASCADE): its history goes with it
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        -- a cluster renamed (ON UPDATE CASCADE): its history follows by its
        -- own foreign key; nothing the tree reads changed: nothing to record
        IF nk <> ok_ OR (na = oa AND nu = ou AND np IS NOT DISTINCT FROM op AND ns IS NOT DISTINCT FROM os) THEN
            RETURN NULL;
        END IF;
    END IF;
    IF TG_OP = 'INSERT' THEN
        -- a restore (pg_restore may write the history before the tree) or a
        -- row made again as it was: its open version stands
        IF is_acct THEN
            SELECT h.ctid, h.valid_from, h.parent_account IS NOT DISTINCT FROM np AND h.shares IS NOT DISTINCT FROM ns AS same
              INTO o FROM @extschema@.account_history h
             WHERE h.cluster = nk AND h.account = na AND h.valid_to IS NULL;
        ELSE
            SELECT h.ctid, h.valid_from, h.shares IS NOT DISTINCT FROM ns AS same
              INTO o FROM @extschema@.account_user_history h
             WHERE h.cluster = nk AND h.account = na AND h.user_name = nu AND h.valid_to IS NULL;
        END IF;
        IF o.same THEN
            RETURN NULL;
        END IF;
    ELSE
        IF is_acct THEN
            SELECT h.ctid, h.valid_from INTO o FROM @extschema@.account_history h
             WHERE h.cluster = ok_ AND h.account = oa AND h.valid_to IS NULL;
        ELSE
            SELECT h.ctid, h.valid_from INTO o FROM @extschema@.account_user_history h
             WHERE h.cluster = ok_ AND h.account = oa AND h.user_name = ou AND h.valid_to IS NULL;
        END IF;
        -- a row never changed before has no version yet: its old values
        -- were in force from -infinity
        IF o.ctid IS NULL AND NOT @extschema@_internal._tree_has_history(is_acct, ok_, oa, ou) THEN
            IF is_acct THEN
                INSERT INTO @extschema@.account_history (cluster, account, parent_account, shares, valid_from, valid_to)
                VALUES (ok_, oa, op, os, '-infinity', t);
            ELSE
                INSERT INTO @extschema@.account_user_history (cluster, account, user_name, shares, valid_from, valid_to)
                VALUES (ok_, oa, ou, os, '-infinity', t);
            END IF;
        END IF;
    END IF;
    -- close the open version: at the instant, or at its own start when
    -- the instant is earlier (the history is never rewritten backwards);
    -- one closed at its own start (two changes at one instant) is removed
    IF o.ctid IS NOT NULL THEN
        t := greatest(t, o.valid_from);
        IF is_acct AND o.valid_from = t THEN
            DELETE FROM @extschema@.account_history h WHERE h.ctid = o.ctid;
        ELSIF is_acct THEN
            UPDATE @extschema@.account_history h SET valid_to = t WHERE h.ctid = o.ctid;
        ELSIF o.valid_from = t THEN
            DELETE FROM @extschema@.account_user_history h WHERE h.ctid = o.ctid;
        ELSE
            UPDATE @extschema@.account_user_history h SET valid_to = t WHERE h.ctid = o.ctid;
        END IF;
    END IF;
    -- the new version, from the instant (after every version of its key):
    -- after an UPDATE always, after an INSERT when the key has a history
    -- (a row deleted and made again); a row inserted for the first time
    -- has none and is read from the live table for every instant
    IF TG_OP = 'UPDATE' OR (TG_OP = 'INSERT' AND @extschema@_internal._tree_has_history(is_acct, nk, na, nu)) THEN
        IF is_acct THEN
            INSERT INTO @extschema@.account_history (cluster, account, parent_account, shares, valid_from)
            VALUES (nk, na, np, ns,
                    greatest(t, (SELECT max(h.valid_to) FROM @extschema@.account_history h
                                  WHERE h.cluster = nk AND h.account = na)));
        ELSE
            INSERT INTO @extschema@.account_user_history (cluster, account, user_name, shares, valid_from)
            VALUES (nk, na, nu, ns,
                    greatest(t, (SELECT max(h.valid_to) FROM @extschema@.account_user_history h
                                  WHERE h.cluster = nk AND h.account = na AND h.user_name = nu)));
        END IF;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER tree_history AFTER INSERT OR UPDATE OR DELETE ON @extschema@.accounts
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._tree_history();
CREATE TRIGGER tree_history AFTER INSERT OR UPDATE OR DELETE ON @extschema@.account_users
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._tree_history();

-- The history of the policy settings (docs/history.md#the-history-of-the-settings):
-- every version of a cluster's, a partition's or a QOS's settings, valid
-- over [valid_from, valid_to), the row's columns as jsonb without its key
-- (and, for a cluster, without the state the passes write and its
-- description).  Written only on a change, as the tree's history.
CREATE TABLE @extschema@.settings_history (
    -- a cluster's history goes with it, and follows its renaming
    cluster     text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    table_name  text NOT NULL CHECK (table_name IN ('clusters', 'partitions', 'qos')),
    -- the partition or the QOS; '' for the cluster's own row
    name        text NOT NULL,
    settings    jsonb NOT NULL,
    valid_from  timestamptz NOT NULL,
    valid_to    timestamptz,
    CHECK (valid_to OPERATOR(pg_catalog.>) valid_from)
);
COMMENT ON TABLE @extschema@.settings_history IS
'Every version of the settings of each cluster, partition and QOS, valid over [valid_from, valid_to) (valid_to NULL: in force now); written by the triggers settings_history of clusters, partitions and qos.';
CREATE INDEX settings_history_key_idx ON @extschema@.settings_history (cluster, table_name, name, valid_from);
CREATE UNIQUE INDEX settings_history_open_idx ON @extschema@.settings_history (cluster, table_name, name) WHERE valid_to IS NULL;

-- A row's settings as stored in settings_history: its columns but its key,
-- and for a cluster but the state its passes and resets write and the
-- description (a change of those is no change of policy).
CREATE FUNCTION @extschema@_internal._settings_of(table_name text, r jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT CASE WHEN _settings_of.table_name OPERATOR(pg_catalog.=) 'clusters'
                THEN _settings_of.r OPERATOR(pg_catalog.-) ARRAY['cluster', 'priority_last_decay', 'usage_last_reset', 'description']
                ELSE _settings_of.r OPERATOR(pg_catalog.-) ARRAY['cluster', 'partition', 'qos'] END;
END;
COMMENT ON FUNCTION @extschema@_internal._settings_of(text, jsonb) IS
'The settings of a clusters, partitions or qos row as settings_history keeps them: its columns without the key (and a cluster''s state and description).';

-- One row's change into settings_history, as _tree_history does for the
-- tree: a row never changed has no version and is read live for every
-- instant; its first change writes its old settings from -infinity to the
-- instant, and its new ones from the instant on.  The instant is
-- _tree_change_instant(): now() or fairshare.tree_change_at.
CREATE FUNCTION @extschema@_internal._settings_history() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    t timestamptz := @extschema@_internal._tree_change_instant();
    tbl text := TG_TABLE_NAME;
    oj jsonb; nj jsonb;
    ok_ text; onm text; os jsonb;
    nk text; nnm text; ns jsonb;
    o record;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        oj := to_jsonb(OLD);
        ok_ := oj ->> 'cluster'; onm := coalesce(oj ->> 'partition', oj ->> 'qos', '');
        os := @extschema@_internal._settings_of(tbl, oj);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        nj := to_jsonb(NEW);
        nk := nj ->> 'cluster'; nnm := coalesce(nj ->> 'partition', nj ->> 'qos', '');
        ns := @extschema@_internal._settings_of(tbl, nj);
    END IF;
    IF TG_OP = 'DELETE' AND (tbl = 'clusters' OR NOT EXISTS (SELECT FROM @extschema@.clusters c WHERE c.cluster = ok_)) THEN
        -- the cluster deleted: its history goes with it (ON DELETE CASCADE)
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND (nk <> ok_ OR (nnm = onm AND ns = os)) THEN
        -- a cluster renamed (its history follows by its foreign key), or
        -- nothing of the policy changed
        RETURN NULL;
    END IF;
    IF TG_OP = 'INSERT' THEN
        SELECT h.ctid, h.valid_from, h.settings = ns AS same INTO o
          FROM @extschema@.settings_history h
         WHERE h.cluster = nk AND h.table_name = tbl AND h.name = nnm AND h.valid_to IS NULL;
        IF o.same THEN
            RETURN NULL;
        END IF;
    ELSE
        SELECT h.ctid, h.valid_from INTO o FROM @extschema@.settings_history h
         WHERE h.cluster = ok_ AND h.table_name = tbl AND h.name = onm AND h.valid_to IS NULL;
        IF o.ctid IS NULL AND NOT EXISTS (SELECT FROM @extschema@.settings_history h
                                           WHERE h.cluster = ok_ AND h.table_name = tbl AND h.name = onm) THEN
            INSERT INTO @extschema@.settings_history (cluster, table_name, name, settings, valid_from, valid_to)
            VALUES (ok_, tbl, onm, os, '-infinity', t);
        END IF;
    END IF;
    -- close the open version (never backwards; one closed at its own start
    -- is removed)
    IF o.ctid IS NOT NULL THEN
        t := greatest(t, o.valid_from);
        IF o.valid_from = t THEN
            DELETE FROM @extschema@.settings_history h WHERE h.ctid = o.ctid;
        ELSE
            UPDATE @extschema@.settings_history h SET valid_to = t WHERE h.ctid = o.ctid;
        END IF;
    END IF;
    IF TG_OP = 'UPDATE' OR (TG_OP = 'INSERT' AND EXISTS (SELECT FROM @extschema@.settings_history h
                                                          WHERE h.cluster = nk AND h.table_name = tbl AND h.name = nnm)) THEN
        INSERT INTO @extschema@.settings_history (cluster, table_name, name, settings, valid_from)
        VALUES (nk, tbl, nnm, ns,
                greatest(t, (SELECT max(h.valid_to) FROM @extschema@.settings_history h
                              WHERE h.cluster = nk AND h.table_name = tbl AND h.name = nnm)));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER settings_history AFTER INSERT OR UPDATE OR DELETE ON @extschema@.clusters
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._settings_history();
CREATE TRIGGER settings_history AFTER INSERT OR UPDATE OR DELETE ON @extschema@.partitions
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._settings_history();
CREATE TRIGGER settings_history AFTER INSERT OR UPDATE OR DELETE ON @extschema@.qos
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._settings_history();

-- The policy lab (docs/history.md#the-policy-lab): a named scenario
-- holds overrides of the settings; a report given a scenario answers as
-- if they had been in force, over the real history, without touching the
-- live settings.  The readers below lay the scenario of the setting
-- fairshare.scenario (set only for the duration of a report that takes a
-- scenario, lab.sql) over the settings as of as_of.
CREATE TABLE @extschema@.scenarios (
    -- a name, never code: only compared, never spliced into a statement
    scenario     text PRIMARY KEY CHECK (scenario OPERATOR(pg_catalog.~) '^[A-Za-z0-9_.-]{1,64}$'),
    description  text,
    created_by   name NOT NULL DEFAULT CURRENT_USER,
    created_at   timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE @extschema@.scenarios IS
'Named scenarios of the policy lab: sets of overrides of the policy settings (scenario_settings) that the reports taking a scenario read instead of the live ones.';

-- The settings a scenario may override, each with its check: the same
-- domain as the live column (model.sql's CHECKs).  Other columns are
-- refused (0A000): names, sizes and the instant of slurmctld's last pass
-- are facts of the cluster, not its policy.
CREATE FUNCTION @extschema@_internal._scenario_settings_check(table_name text, settings jsonb)
RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    allowed text[] := CASE table_name
        WHEN 'clusters' THEN ARRAY['fairshare_algorithm', 'fairshare_dampening', 'decay_half_life',
                                   'decay_mode', 'decay_interval', 'decay_factor', 'priority_calc_period',
                                   'usage_reset_period', 'usage_last_reset',
                                   'weight_fairshare', 'weight_age', 'weight_job_size', 'weight_partition',
                                   'weight_qos', 'priority_max_age', 'favor_small', 'regulation_threshold',
                                   'gpu_hour_factor', 'rwth_rule']
        -- the GENCI regulation's settings of the cluster (genci.sql)
        WHEN 'genci_settings' THEN ARRAY['variant', 'midterm_cap', 'midterm_used_limit']
        WHEN 'partitions' THEN ARRAY['priority_job_factor', 'billing_weights', 'billing_mode',
                                     'whole_node', 'cores_per_node']
        WHEN 'qos' THEN ARRAY['priority', 'usage_factor'] END;
    k text;
    c @extschema@.clusters;
    p @extschema@.partitions;
    q @extschema@.qos;
BEGIN
    IF allowed IS NULL THEN
        RAISE EXCEPTION 'scenario_settings: table_name must be clusters, partitions, qos or genci_settings, not %', table_name
            USING ERRCODE = '22023', HINT = 'A scenario overrides settings of clusters, partitions, qos and genci_settings.';
    END IF;
    IF jsonb_typeof(settings) IS DISTINCT FROM 'object' OR settings = '{}'::jsonb THEN
        RAISE EXCEPTION 'scenario_settings: settings must be a non-empty JSON object, not %', settings
            USING ERRCODE = '22023', HINT = 'For example {"decay_half_life": "14 days"}.';
    END IF;
    FOR k IN SELECT jsonb_object_keys(settings) LOOP
        IF NOT k = ANY (allowed) THEN
            RAISE EXCEPTION 'scenario_settings: % of % cannot be overridden by a scenario', k, table_name
                USING ERRCODE = '0A000',
                      HINT = format('A scenario overrides %s of %s (docs/history.md#the-policy-lab).',
                                    array_to_string(allowed, ', '), table_name);
        END IF;
        IF jsonb_typeof(settings -> k) = 'null' THEN
            RAISE EXCEPTION 'scenario_settings: % of % must have a value, not null', k, table_name
                USING ERRCODE = '22004', HINT = 'Leave the key out to keep the live value.';
        END IF;
    END LOOP;
    -- each value as the column's type (a value that is not raises 22P02/22007)
    IF table_name = 'clusters' THEN
        c := jsonb_populate_record(NULL::@extschema@.clusters, settings);
        IF c.fairshare_algorithm IS NOT NULL AND c.fairshare_algorithm NOT IN ('fair_tree', 'classic') THEN
            RAISE EXCEPTION 'scenario_settings: fairshare_algorithm % is not fair_tree or classic', c.fairshare_algorithm
                USING ERRCODE = '22023', HINT = 'A scenario compares the two algorithms of sshare.';
        END IF;
        IF NOT (c.fairshare_dampening > 0 AND c.fairshare_dampening < 'Infinity') THEN
            RAISE EXCEPTION 'scenario_settings: fairshare_dampening % is not a positive finite number', c.fairshare_dampening
                USING ERRCODE = '22023', HINT = 'As clusters.fairshare_dampening.';
        END IF;
        IF c.decay_mode IS NOT NULL AND c.decay_mode NOT IN ('exact', 'slurm', 'step', 'slurm_passes') THEN
            RAISE EXCEPTION 'scenario_settings: decay_mode % is not exact, slurm, step or slurm_passes', c.decay_mode
                USING ERRCODE = '22023', HINT = 'As clusters.decay_mode (docs/decay.md).';
        END IF;
        IF c.decay_interval <= '0'::interval THEN
            RAISE EXCEPTION 'scenario_settings: decay_interval % is not a positive interval', c.decay_interval
                USING ERRCODE = '22023', HINT = 'As clusters.decay_interval (decay_mode step).';
        END IF;
        IF NOT (c.decay_factor BETWEEN 0 AND 1) THEN
            RAISE EXCEPTION 'scenario_settings: decay_factor % is not a fraction from 0 to 1', c.decay_factor
                USING ERRCODE = '22023', HINT = 'As clusters.decay_factor (decay_mode step).';
        END IF;
        IF settings ? 'priority_calc_period' THEN
            PERFORM @extschema@_internal._check_calc_period(c.priority_calc_period);
        END IF;
        -- a reset period with its instant (NOW needs one), checked together
        IF settings ?| ARRAY['usage_reset_period', 'usage_last_reset'] THEN
            IF NOT settings ? 'usage_reset_period' THEN
                RAISE EXCEPTION 'scenario_settings: usage_last_reset % needs usage_reset_period beside it', c.usage_last_reset
                    USING ERRCODE = '22023', HINT = 'For example {"usage_reset_period": "NOW", "usage_last_reset": "2026-01-01 00:00+00"}.';
            END IF;
            IF NOT isfinite(COALESCE(c.usage_last_reset, 'epoch')) THEN
                RAISE EXCEPTION 'scenario_settings: usage_last_reset % is not a finite instant', c.usage_last_reset
                    USING ERRCODE = '22008', HINT = 'As clusters.usage_last_reset.';
            END IF;
            PERFORM @extschema@_internal._check_usage_reset(c.usage_reset_period, c.usage_last_reset);
        END IF;
        IF c.decay_half_life < '0'::interval OR c.priority_max_age < '0'::interval THEN
            RAISE EXCEPTION 'scenario_settings: decay_half_life % and priority_max_age % must not be negative',
                            c.decay_half_life, c.priority_max_age
                USING ERRCODE = '22023', HINT = 'As the columns of clusters.';
        END IF;
        IF NOT (c.regulation_threshold >= 0 AND c.regulation_threshold < 'Infinity') THEN
            RAISE EXCEPTION 'scenario_settings: regulation_threshold % is not a finite number >= 0', c.regulation_threshold
                USING ERRCODE = '22023', HINT = 'As clusters.regulation_threshold (hours).';
        END IF;
        IF c.rwth_rule IS NOT NULL AND c.rwth_rule NOT IN ('window', 'three_months') THEN
            RAISE EXCEPTION 'scenario_settings: rwth_rule % is not window or three_months', c.rwth_rule
                USING ERRCODE = '22023', HINT = 'As clusters.rwth_rule (docs/policies.md#rwth-sliding-window-quota).';
        END IF;
        IF NOT (c.gpu_hour_factor >= 0 AND c.gpu_hour_factor < 'Infinity') THEN
            RAISE EXCEPTION 'scenario_settings: gpu_hour_factor % is not a finite number >= 0', c.gpu_hour_factor
                USING ERRCODE = '22023', HINT = 'As clusters.gpu_hour_factor (core-hours a GPU-hour is billed as).';
        END IF;
        IF NOT (c.weight_fairshare BETWEEN 0 AND 4294967295 AND c.weight_age BETWEEN 0 AND 4294967295
                AND c.weight_job_size BETWEEN 0 AND 4294967295 AND c.weight_partition BETWEEN 0 AND 4294967295
                AND c.weight_qos BETWEEN 0 AND 4294967295) THEN
            RAISE EXCEPTION 'scenario_settings: a weight of % is outside 0 to 4294967295', settings
                USING ERRCODE = '22023', HINT = 'Slurm''s priority weights are 32-bit unsigned integers.';
        END IF;
    ELSIF table_name = 'partitions' THEN
        p := jsonb_populate_record(NULL::@extschema@.partitions, settings);
        IF NOT p.priority_job_factor BETWEEN 0 AND 65535 THEN
            RAISE EXCEPTION 'scenario_settings: priority_job_factor % is outside 0 to 65535', p.priority_job_factor
                USING ERRCODE = '22023', HINT = 'Slurm''s PriorityJobFactor is a 16-bit unsigned integer.';
        END IF;
        IF settings ? 'billing_weights' AND NOT @extschema@.tres_weights_valid(p.billing_weights) THEN
            RAISE EXCEPTION 'scenario_settings: billing_weights % are not TRESBillingWeights', p.billing_weights
                USING ERRCODE = '22023', HINT = 'As partitions.billing_weights, for example ''CPU=1.0,Mem=0.25G,GRES/gpu=2.0''.';
        END IF;
        IF p.billing_mode NOT IN ('sum', 'max_tres', 'max_tres_gres') THEN
            RAISE EXCEPTION 'scenario_settings: billing_mode % is not sum, max_tres or max_tres_gres', p.billing_mode
                USING ERRCODE = '22023', HINT = 'As partitions.billing_mode.';
        END IF;
        IF p.cores_per_node <= 0 THEN
            RAISE EXCEPTION 'scenario_settings: cores_per_node % is not a positive number of cores', p.cores_per_node
                USING ERRCODE = '22023', HINT = 'As partitions.cores_per_node.';
        END IF;
    ELSIF table_name = 'genci_settings' THEN
        -- (read by name at run time: genci_settings comes with genci.sql)
        IF settings ? 'variant' AND (jsonb_typeof(settings -> 'variant') <> 'string'
                                     OR settings ->> 'variant' NOT IN ('genci', 'tgcc')) THEN
            RAISE EXCEPTION 'scenario_settings: variant % is not genci or tgcc', settings -> 'variant'
                USING ERRCODE = '22023', HINT = 'As genci_settings.variant.';
        END IF;
        FOR k IN SELECT unnest(ARRAY['midterm_cap', 'midterm_used_limit']) LOOP
            IF settings ? k AND NOT ((settings ->> k)::float8 >= 0 AND (settings ->> k)::float8 <= 1) THEN
                RAISE EXCEPTION 'scenario_settings: % % is not a fraction from 0 to 1', k, settings -> k
                    USING ERRCODE = '22023', HINT = 'As genci_settings.' || k || '.';
            END IF;
        END LOOP;
    ELSE
        q := jsonb_populate_record(NULL::@extschema@.qos, settings);
        IF q.priority < 0 THEN
            RAISE EXCEPTION 'scenario_settings: QOS priority % is negative', q.priority
                USING ERRCODE = '22023', HINT = 'As qos.priority.';
        END IF;
        IF NOT (q.usage_factor >= 0 AND q.usage_factor < 'Infinity') THEN
            RAISE EXCEPTION 'scenario_settings: usage_factor % is not a finite number >= 0', q.usage_factor
                USING ERRCODE = '22023', HINT = 'As qos.usage_factor (Slurm''s UsageFactor).';
        END IF;
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@_internal._scenario_settings_check(text, jsonb) IS
'Whether a scenario''s overrides are settings a scenario may override, each in its column''s domain; raises 22023/0A000/22004 naming the bad key or value otherwise.';

CREATE TABLE @extschema@.scenario_settings (
    scenario    text NOT NULL REFERENCES @extschema@.scenarios ON UPDATE CASCADE ON DELETE CASCADE,
    cluster     text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    table_name  text NOT NULL,
    -- the partition or the QOS; '' for the cluster's own row and its
    -- GENCI settings
    name        text NOT NULL DEFAULT '',
    settings    jsonb NOT NULL,
    PRIMARY KEY (scenario, cluster, table_name, name),
    CONSTRAINT scenario_settings_check
        CHECK ((table_name OPERATOR(pg_catalog.=) ANY (ARRAY['clusters', 'genci_settings'])) = (name OPERATOR(pg_catalog.=) ''))
);
COMMENT ON TABLE @extschema@.scenario_settings IS
'A scenario''s overrides: for a cluster, one of its partitions or QOS, the settings (a JSON object of columns) laid over the settings as of each instant.';
-- each row checked as it is written (a trigger, not a CHECK: the message
-- names the bad key or value)
CREATE FUNCTION @extschema@_internal._scenario_settings_valid() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM @extschema@_internal._scenario_settings_check(NEW.table_name, NEW.settings);
    RETURN NEW;
END
$$;
CREATE TRIGGER scenario_settings_valid BEFORE INSERT OR UPDATE ON @extschema@.scenario_settings
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._scenario_settings_valid();

-- A scenario's tree: an association's raw shares, or an account's parent,
-- in the scenario, laid over the tree as of each instant
-- (docs/history.md#the-policy-lab).  NULL keeps the live value;
-- fairshare_parent sets Fairshare=parent (the live tables' NULL shares).
-- An override of an association the tree does not hold at an instant, or
-- a move under an account it does not hold then, does nothing there.
-- Plain columns, checked as the live ones: no trigger, so that a
-- distributed cluster keeps the checks on every copy of the table.
CREATE TABLE @extschema@.scenario_tree (
    scenario          text NOT NULL REFERENCES @extschema@.scenarios ON UPDATE CASCADE ON DELETE CASCADE,
    cluster           text NOT NULL REFERENCES @extschema@.clusters ON UPDATE CASCADE ON DELETE CASCADE,
    account           text NOT NULL CHECK (account OPERATOR(pg_catalog.<>) ''),
    -- the user of a user association; '' for the account's own association
    user_name         text NOT NULL DEFAULT '',
    shares            integer CHECK (shares OPERATOR(pg_catalog.>=) 0),
    fairshare_parent  boolean NOT NULL DEFAULT false,
    -- an account's new parent (user associations stay in their account)
    parent_account    text CHECK (parent_account OPERATOR(pg_catalog.<>) ''),
    PRIMARY KEY (scenario, cluster, account, user_name),
    -- root is neither shared nor moved: its shares enter no factor
    CONSTRAINT scenario_tree_not_root CHECK (account OPERATOR(pg_catalog.<>) 'root'
                                             OR user_name OPERATOR(pg_catalog.<>) ''),
    CONSTRAINT scenario_tree_overrides CHECK (shares IS NOT NULL OR fairshare_parent OR parent_account IS NOT NULL),
    CONSTRAINT scenario_tree_shares_or_parent CHECK (NOT (fairshare_parent AND shares IS NOT NULL)),
    CONSTRAINT scenario_tree_move_accounts CHECK (parent_account IS NULL OR user_name OPERATOR(pg_catalog.=) ''),
    CONSTRAINT scenario_tree_not_own_parent CHECK (parent_account OPERATOR(pg_catalog.<>) account)
);
COMMENT ON TABLE @extschema@.scenario_tree IS
'A scenario''s tree: an account''s (user_name '''') or a user association''s raw shares (fairshare_parent: Fairshare=parent), or an account''s parent, in the scenario, laid over the tree as of each instant; NULL keeps the live value.';

-- The scenario the reports read now: fairshare.scenario, set by the
-- reports that take one for their own duration; NULL outside them.
CREATE FUNCTION @extschema@_internal._scenario()
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT NULLIF(pg_catalog.current_setting('fairshare.scenario', true), '');
END;
COMMENT ON FUNCTION @extschema@_internal._scenario() IS
'The scenario of the report running (the setting fairshare.scenario), NULL for the live settings.';

-- A row's overrides in the current scenario ('{}' for none).
CREATE FUNCTION @extschema@_internal._scenario_settings(cluster text, table_name text, name text)
RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT COALESCE((SELECT s.settings FROM @extschema@.scenario_settings s
                      WHERE s.scenario OPERATOR(pg_catalog.=) @extschema@_internal._scenario()
                        AND s.cluster OPERATOR(pg_catalog.=) _scenario_settings.cluster
                        AND s.table_name OPERATOR(pg_catalog.=) _scenario_settings.table_name
                        AND s.name OPERATOR(pg_catalog.=) _scenario_settings.name), '{}'::jsonb);
END;
COMMENT ON FUNCTION @extschema@_internal._scenario_settings(text, text, text) IS
'A cluster''s, partition''s or QOS''s overrides in the scenario of the report running ({} for none or outside a scenario).';

-- Whether any setting changed after an instant (a version started or
-- ended after it; the history holds only changes, a few rows).  When none
-- did, the readers below are the live tables.
CREATE FUNCTION @extschema@_internal._settings_changed_after(as_of timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT EXISTS (SELECT FROM @extschema@.settings_history h
                    WHERE h.valid_from OPERATOR(pg_catalog.>) _settings_changed_after.as_of
                       OR h.valid_to OPERATOR(pg_catalog.>) _settings_changed_after.as_of);
END;
COMMENT ON FUNCTION @extschema@_internal._settings_changed_after(timestamptz) IS
'Whether settings_history has a version that started or ended after an instant: when not, the settings as of it are the live rows.';

-- A cluster's row as of an instant: the live row with the settings of the
-- version valid at as_of laid over it; the live row itself when its
-- settings never changed or did not change after as_of (one index probe).
CREATE FUNCTION @extschema@_internal._cluster_at(cluster text, as_of timestamptz)
RETURNS @extschema@.clusters
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- r.*, not (f(...)).*, which calls f once per column: a report reading
    -- one setting per association (the classic dampening) took 15 s
    -- instead of 1.5 s at 10^4 associations (docs/history.md#the-history-of-the-settings)
    SELECT r.*
      FROM @extschema@.clusters c
      LEFT JOIN @extschema@.settings_history h
        ON h.cluster OPERATOR(pg_catalog.=) c.cluster
       AND h.table_name OPERATOR(pg_catalog.=) 'clusters' AND h.name OPERATOR(pg_catalog.=) ''
       AND h.valid_from OPERATOR(pg_catalog.<=) _cluster_at.as_of
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) _cluster_at.as_of)
      -- the scenario's overrides over them (docs/history.md#the-policy-lab)
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(c, COALESCE(h.settings, '{}'::jsonb)
               OPERATOR(pg_catalog.||) @extschema@_internal._scenario_settings(c.cluster, 'clusters', '')) r
     WHERE c.cluster OPERATOR(pg_catalog.=) _cluster_at.cluster;
END;
COMMENT ON FUNCTION @extschema@_internal._cluster_at(text, timestamptz) IS
'A cluster''s row with its settings as of an instant (settings_history''s version valid at it laid over the live row; the live row when nothing changed after it).';

-- Every cluster's row as of an instant (_cluster_at of each).
CREATE FUNCTION @extschema@_internal._clusters_at(as_of timestamptz)
RETURNS SETOF @extschema@.clusters
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- nothing changed after as_of (a one-time test): the live rows
    SELECT c.* FROM @extschema@.clusters c
     WHERE NOT @extschema@_internal._settings_changed_after(_clusters_at.as_of) AND @extschema@_internal._scenario() IS NULL
    UNION ALL
    -- r.*, not (f(...)).*, which would call f once per column
    SELECT r.*
      FROM @extschema@.clusters c
      LEFT JOIN @extschema@.settings_history h
        ON h.cluster OPERATOR(pg_catalog.=) c.cluster
       AND h.table_name OPERATOR(pg_catalog.=) 'clusters' AND h.name OPERATOR(pg_catalog.=) ''
       AND h.valid_from OPERATOR(pg_catalog.<=) _clusters_at.as_of
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) _clusters_at.as_of)
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(c, COALESCE(h.settings, '{}'::jsonb)
               OPERATOR(pg_catalog.||) @extschema@_internal._scenario_settings(c.cluster, 'clusters', '')) r
     WHERE @extschema@_internal._settings_changed_after(_clusters_at.as_of) OR @extschema@_internal._scenario() IS NOT NULL;
END;
COMMENT ON FUNCTION @extschema@_internal._clusters_at(timestamptz) IS
'Every cluster''s row with its settings as of an instant (_cluster_at of each).';

-- A cluster's partitions (every cluster's with cluster NULL) as of an
-- instant: the live rows whose settings never changed, the versions valid at as_of laid over the others, and
-- the versions of partitions deleted since.
CREATE FUNCTION @extschema@_internal._partitions_at(cluster text, as_of timestamptz)
RETURNS SETOF @extschema@.partitions
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- nothing changed after as_of (a one-time test): the live rows
    SELECT p.* FROM @extschema@.partitions p
     WHERE (_partitions_at.cluster IS NULL OR p.cluster OPERATOR(pg_catalog.=) _partitions_at.cluster)
       AND NOT @extschema@_internal._settings_changed_after(_partitions_at.as_of) AND @extschema@_internal._scenario() IS NULL
    UNION ALL
    SELECT r.*
      FROM @extschema@.partitions p
      LEFT JOIN @extschema@.settings_history v
        ON v.cluster OPERATOR(pg_catalog.=) p.cluster AND v.table_name OPERATOR(pg_catalog.=) 'partitions'
       AND v.name OPERATOR(pg_catalog.=) p.partition
       AND v.valid_from OPERATOR(pg_catalog.<=) _partitions_at.as_of
       AND (v.valid_to IS NULL OR v.valid_to OPERATOR(pg_catalog.>) _partitions_at.as_of)
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(p, COALESCE(v.settings, '{}'::jsonb)
               OPERATOR(pg_catalog.||) @extschema@_internal._scenario_settings(p.cluster, 'partitions', p.partition)) r
     WHERE (_partitions_at.cluster IS NULL OR p.cluster OPERATOR(pg_catalog.=) _partitions_at.cluster)
       AND (@extschema@_internal._settings_changed_after(_partitions_at.as_of) OR @extschema@_internal._scenario() IS NOT NULL)
       AND (v.settings IS NOT NULL
            OR NOT EXISTS (SELECT FROM @extschema@.settings_history h
                            WHERE h.cluster OPERATOR(pg_catalog.=) p.cluster AND h.table_name OPERATOR(pg_catalog.=) 'partitions'
                              AND h.name OPERATOR(pg_catalog.=) p.partition))
    UNION ALL
    SELECT r.*
      FROM @extschema@.settings_history h
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::@extschema@.partitions,
               h.settings OPERATOR(pg_catalog.||) @extschema@_internal._scenario_settings(h.cluster, 'partitions', h.name)
                 OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('cluster', h.cluster, 'partition', h.name)) r
     WHERE (_partitions_at.cluster IS NULL OR h.cluster OPERATOR(pg_catalog.=) _partitions_at.cluster) AND h.table_name OPERATOR(pg_catalog.=) 'partitions'
       AND h.valid_from OPERATOR(pg_catalog.<=) _partitions_at.as_of
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) _partitions_at.as_of)
       AND (@extschema@_internal._settings_changed_after(_partitions_at.as_of) OR @extschema@_internal._scenario() IS NOT NULL)
       AND NOT EXISTS (SELECT FROM @extschema@.partitions p
                        WHERE p.cluster OPERATOR(pg_catalog.=) h.cluster AND p.partition OPERATOR(pg_catalog.=) h.name);
END;
COMMENT ON FUNCTION @extschema@_internal._partitions_at(text, timestamptz) IS
'A cluster''s partitions (cluster NULL: every cluster''s) with their settings as of an instant, from settings_history where they changed after it, else the live rows.';

-- The same for the QOS.
CREATE FUNCTION @extschema@_internal._qos_at(cluster text, as_of timestamptz)
RETURNS SETOF @extschema@.qos
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    -- nothing changed after as_of (a one-time test): the live rows
    SELECT q.* FROM @extschema@.qos q
     WHERE (_qos_at.cluster IS NULL OR q.cluster OPERATOR(pg_catalog.=) _qos_at.cluster)
       AND NOT @extschema@_internal._settings_changed_after(_qos_at.as_of) AND @extschema@_internal._scenario() IS NULL
    UNION ALL
    SELECT r.*
      FROM @extschema@.qos q
      LEFT JOIN @extschema@.settings_history v
        ON v.cluster OPERATOR(pg_catalog.=) q.cluster AND v.table_name OPERATOR(pg_catalog.=) 'qos'
       AND v.name OPERATOR(pg_catalog.=) q.qos
       AND v.valid_from OPERATOR(pg_catalog.<=) _qos_at.as_of
       AND (v.valid_to IS NULL OR v.valid_to OPERATOR(pg_catalog.>) _qos_at.as_of)
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(q, COALESCE(v.settings, '{}'::jsonb)
               OPERATOR(pg_catalog.||) @extschema@_internal._scenario_settings(q.cluster, 'qos', q.qos)) r
     WHERE (_qos_at.cluster IS NULL OR q.cluster OPERATOR(pg_catalog.=) _qos_at.cluster)
       AND (@extschema@_internal._settings_changed_after(_qos_at.as_of) OR @extschema@_internal._scenario() IS NOT NULL)
       AND (v.settings IS NOT NULL
            OR NOT EXISTS (SELECT FROM @extschema@.settings_history h
                            WHERE h.cluster OPERATOR(pg_catalog.=) q.cluster AND h.table_name OPERATOR(pg_catalog.=) 'qos'
                              AND h.name OPERATOR(pg_catalog.=) q.qos))
    UNION ALL
    SELECT r.*
      FROM @extschema@.settings_history h
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::@extschema@.qos,
               h.settings OPERATOR(pg_catalog.||) @extschema@_internal._scenario_settings(h.cluster, 'qos', h.name)
                 OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('cluster', h.cluster, 'qos', h.name)) r
     WHERE (_qos_at.cluster IS NULL OR h.cluster OPERATOR(pg_catalog.=) _qos_at.cluster) AND h.table_name OPERATOR(pg_catalog.=) 'qos'
       AND h.valid_from OPERATOR(pg_catalog.<=) _qos_at.as_of
       AND (h.valid_to IS NULL OR h.valid_to OPERATOR(pg_catalog.>) _qos_at.as_of)
       AND (@extschema@_internal._settings_changed_after(_qos_at.as_of) OR @extschema@_internal._scenario() IS NOT NULL)
       AND NOT EXISTS (SELECT FROM @extschema@.qos q
                        WHERE q.cluster OPERATOR(pg_catalog.=) h.cluster AND q.qos OPERATOR(pg_catalog.=) h.name);
END;
COMMENT ON FUNCTION @extschema@_internal._qos_at(text, timestamptz) IS
'A cluster''s QOS (cluster NULL: every cluster''s) with their settings as of an instant, from settings_history where they changed after it, else the live rows.';

-- Every cluster's live row with the current scenario's overrides laid over
-- it (the live rows outside a scenario): what the usage reads its decay
-- from, as it reads the decay as it is now, and the core-hours of GENCI
-- and RWTH their GPU-hour factor (docs/history.md#the-policy-lab).
CREATE FUNCTION @extschema@_internal._clusters_scenario()
RETURNS SETOF @extschema@.clusters
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT c.* FROM @extschema@.clusters c
     WHERE @extschema@_internal._scenario() IS NULL
    UNION ALL
    SELECT r.*
      FROM @extschema@.clusters c
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(c, @extschema@_internal._scenario_settings(c.cluster, 'clusters', '')) r
     WHERE @extschema@_internal._scenario() IS NOT NULL;
END;
COMMENT ON FUNCTION @extschema@_internal._clusters_scenario() IS
'Every cluster''s live row with the overrides of the scenario of the report running (the live rows outside a scenario).';

-- Whether the current scenario overrides any of these settings of a
-- cluster (of the cluster, its partitions or its QOS).  The usage asks
-- for the decay, billing weights and mode and UsageFactor: the cluster's
-- usage checkpoints, computed with the live ones, are then set aside and
-- every job is read; the core-hours of GENCI and RWTH for gpu_hour_factor,
-- whole_node and cores_per_node: the core rollups, summed with the live
-- ones, are set aside and every run of the window is read
-- (docs/history.md#the-policy-lab).
CREATE FUNCTION @extschema@_internal._scenario_overrides(cluster text, keys text[])
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT EXISTS (SELECT FROM @extschema@.scenario_settings s
                    WHERE s.scenario OPERATOR(pg_catalog.=) @extschema@_internal._scenario()
                      AND s.cluster OPERATOR(pg_catalog.=) _scenario_overrides.cluster
                      AND s.settings OPERATOR(pg_catalog.?|) _scenario_overrides.keys);
END;
COMMENT ON FUNCTION @extschema@_internal._scenario_overrides(text, text[]) IS
'Whether the scenario of the report running overrides any of these settings (keys) of a cluster, its partitions or QOS: the usage checkpoints or core rollups computed with the live ones are then set aside.';

-- Every cluster's decay mode as of an instant, its PriorityCalcPeriod and
-- last pass, with the current scenario's overrides (the live ones outside
-- a scenario), for the readers of the tree that the reports inline.  The
-- mode is the one in force at as_of, as the usage reads it
-- (docs/history.md#the-decay-as-of-an-instant): a cluster that moved to
-- slurmctld's passes reads its tree at its last pass only from then on.
-- PriorityCalcPeriod is read live, as the usage reads it.  Left joins on
-- the keys of scenario_settings and of settings_history's closed versions,
-- not _clusters_scenario's two branches, which counted twice in the
-- reports' estimated cost and made PostgreSQL JIT-compile them
-- (docs/history.md#the-policy-lab).
CREATE FUNCTION @extschema@_internal._clusters_decay_at(as_of timestamptz)
RETURNS TABLE (cluster text, decay_mode text, priority_calc_period interval, priority_last_decay timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT c.cluster,
           COALESCE(o.settings OPERATOR(pg_catalog.->>) 'decay_mode',
                    h.settings OPERATOR(pg_catalog.->>) 'decay_mode', c.decay_mode),
           COALESCE((o.settings OPERATOR(pg_catalog.->>) 'priority_calc_period')::interval, c.priority_calc_period),
           c.priority_last_decay
      FROM @extschema@.clusters c
      LEFT JOIN @extschema@.scenario_settings o
        ON o.scenario OPERATOR(pg_catalog.=) @extschema@_internal._scenario()
       AND o.cluster OPERATOR(pg_catalog.=) c.cluster
       AND o.table_name OPERATOR(pg_catalog.=) 'clusters' AND o.name OPERATOR(pg_catalog.=) ''
      -- the version closed since as_of (none: the live row holds)
      LEFT JOIN @extschema@.settings_history h
        ON h.cluster OPERATOR(pg_catalog.=) c.cluster
       AND h.table_name OPERATOR(pg_catalog.=) 'clusters' AND h.name OPERATOR(pg_catalog.=) ''
       AND h.valid_from OPERATOR(pg_catalog.<=) _clusters_decay_at.as_of
       AND h.valid_to OPERATOR(pg_catalog.>) _clusters_decay_at.as_of;
END;
COMMENT ON FUNCTION @extschema@_internal._clusters_decay_at(timestamptz) IS
'Every cluster''s decay mode as of an instant, its PriorityCalcPeriod and last pass, with the overrides of the scenario of the report running.';

-- Every partition's live row with the current scenario's overrides laid
-- over it (the live rows outside a scenario): what the core-hours of GENCI
-- and RWTH read the node shapes from (docs/history.md#the-policy-lab).
CREATE FUNCTION @extschema@_internal._partitions_scenario()
RETURNS SETOF @extschema@.partitions
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT p.* FROM @extschema@.partitions p
     WHERE @extschema@_internal._scenario() IS NULL
    UNION ALL
    SELECT r.*
      FROM @extschema@.partitions p
      CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(p, @extschema@_internal._scenario_settings(p.cluster, 'partitions', p.partition)) r
     WHERE @extschema@_internal._scenario() IS NOT NULL;
END;
COMMENT ON FUNCTION @extschema@_internal._partitions_scenario() IS
'Every partition''s live row with the overrides of the scenario of the report running (the live rows outside a scenario).';

-- Whether the tree changed after an instant (a version started or ended
-- after it): four index probes (the newest valid_from and valid_to of each
-- history).  When it did not, the live tables are the tree as of that
-- instant and the *_at reports read them as they always did.
CREATE FUNCTION @extschema@_internal._tree_changed_after(as_of timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT COALESCE(GREATEST((SELECT pg_catalog.max(h.valid_from) FROM @extschema@.account_history h),
                             (SELECT pg_catalog.max(h.valid_to) FROM @extschema@.account_history h),
                             (SELECT pg_catalog.max(h.valid_from) FROM @extschema@.account_user_history h),
                             (SELECT pg_catalog.max(h.valid_to) FROM @extschema@.account_user_history h))
                    OPERATOR(pg_catalog.>) _tree_changed_after.as_of, false);
END;
COMMENT ON FUNCTION @extschema@_internal._tree_changed_after(timestamptz) IS
'Whether a version of account_history or account_user_history started or ended after as_of: when not, the live tree is the tree as of as_of.';

-- Whether the tree changed in (after, up_to]: four index range scans.
CREATE FUNCTION @extschema@_internal._tree_changed_between(after timestamptz, up_to timestamptz)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT EXISTS (SELECT FROM @extschema@.account_history h
                    WHERE h.valid_from OPERATOR(pg_catalog.>) _tree_changed_between.after
                      AND h.valid_from OPERATOR(pg_catalog.<=) _tree_changed_between.up_to)
        OR EXISTS (SELECT FROM @extschema@.account_history h
                    WHERE h.valid_to OPERATOR(pg_catalog.>) _tree_changed_between.after
                      AND h.valid_to OPERATOR(pg_catalog.<=) _tree_changed_between.up_to)
        OR EXISTS (SELECT FROM @extschema@.account_user_history h
                    WHERE h.valid_from OPERATOR(pg_catalog.>) _tree_changed_between.after
                      AND h.valid_from OPERATOR(pg_catalog.<=) _tree_changed_between.up_to)
        OR EXISTS (SELECT FROM @extschema@.account_user_history h
                    WHERE h.valid_to OPERATOR(pg_catalog.>) _tree_changed_between.after
                      AND h.valid_to OPERATOR(pg_catalog.<=) _tree_changed_between.up_to);
END;
COMMENT ON FUNCTION @extschema@_internal._tree_changed_between(timestamptz, timestamptz) IS
'Whether a version of account_history or account_user_history started or ended in (after, up_to]; false when after is NULL.';

-- Partitioned by submit time, one partition per calendar month (UTC), so
-- that a month of history can be detached whole (retain_jobs) and no table
-- or index grows with the whole history (docs/history.md).  The
-- partition key is submit_time because:
--   * a unique key of a partitioned table must contain the partition key,
--     and (cluster, job_id, submit_time) is the run's identity;
--   * a run's submit time never changes, so an update never moves a row
--     to another partition;
--   * every run has one, pending ones too (their start and end are NULL).
-- Queries by start or end (the jobs after a checkpoint, a window of an
-- allocation) are served by each partition's local indexes: one cheap
-- probe per partition.  The months come from maintain_partitions; a run
-- of a month without its partition goes to jobs_default.
CREATE TABLE @extschema@.jobs (
    cluster              text NOT NULL,
    job_id               text NOT NULL CHECK (job_id OPERATOR(pg_catalog.<>) ''),
    user_name            text NOT NULL,
    account              text NOT NULL,
    partition            text NOT NULL,
    qos                  text,
    state                text NOT NULL CHECK (state IN ('PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETED',
                            'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL',
                            'DEADLINE', 'OUT_OF_MEMORY', 'REQUEUED')),
    submit_time          timestamptz NOT NULL,
    eligible_time        timestamptz,
    start_time           timestamptz,
    end_time             timestamptz,
    time_limit           interval CHECK (time_limit OPERATOR(pg_catalog.>) '0'::interval),
    -- allocated TRES as sacct prints them (requested TRES while pending)
    tres                 text,
    cpus                 integer NOT NULL CHECK (cpus OPERATOR(pg_catalog.>=) 0),
    mem_mb               bigint NOT NULL DEFAULT 0 CHECK (mem_mb OPERATOR(pg_catalog.>=) 0),
    gpus                 integer NOT NULL DEFAULT 0 CHECK (gpus OPERATOR(pg_catalog.>=) 0),
    nodes                integer NOT NULL DEFAULT 1 CHECK (nodes OPERATOR(pg_catalog.>=) 0),
    scratch_mb           bigint NOT NULL DEFAULT 0 CHECK (scratch_mb OPERATOR(pg_catalog.>=) 0),
    exclusive            boolean NOT NULL DEFAULT false,
    -- per-CPU speed of the node the job ran on, when it differs from the partition's
    spec                 float8 CHECK (spec OPERATOR(pg_catalog.>) 0 AND spec OPERATOR(pg_catalog.<) 'Infinity'),
    nice                 integer NOT NULL DEFAULT 0,
    -- time the run spent suspended (sacct Suspended).  Fairshare usage
    -- charges End - Start all the same, as slurmctld does; sreport leaves
    -- it out.
    suspended            interval NOT NULL DEFAULT '0'
                         CHECK (suspended OPERATOR(pg_catalog.>=) '0'::interval),
    -- the reservation the run ran in (sacct ReservationId, slurmdbd's
    -- id_resv), NULL for none: the rollups take the run's time in it out
    -- of the reservation's idle time, as slurmdbd does (docs/reports.md)
    resv_id              integer CHECK (resv_id OPERATOR(pg_catalog.>) 0),
    -- A run is identified as slurmdbd identifies it (UNIQUE (id_job,
    -- time_submit) in its job table): ids wrap at MaxJobId and are reused,
    -- and each run of a requeued job is its own row, submitted at the
    -- instant of the requeue.
    PRIMARY KEY (cluster, job_id, submit_time),
    FOREIGN KEY (cluster, partition) REFERENCES @extschema@.partitions ON UPDATE CASCADE,
    FOREIGN KEY (cluster, account, user_name) REFERENCES @extschema@.account_users ON UPDATE CASCADE,
    CHECK (tres IS NULL OR @extschema@.tres_weights_valid(tres)),
    -- an infinite instant would make every usage report of the centre fail
    CONSTRAINT jobs_finite_times CHECK (pg_catalog.isfinite(submit_time) AND pg_catalog.isfinite(eligible_time)
           AND pg_catalog.isfinite(start_time) AND pg_catalog.isfinite(end_time)),
    CHECK (eligible_time IS NULL OR eligible_time OPERATOR(pg_catalog.>=) submit_time),
    CHECK (end_time IS NULL OR start_time IS NULL OR end_time OPERATOR(pg_catalog.>=) start_time),
    CHECK (state OPERATOR(pg_catalog.<>) 'PENDING' OR (start_time IS NULL AND end_time IS NULL)),
    CHECK (state NOT IN ('RUNNING', 'SUSPENDED') OR (start_time IS NOT NULL AND end_time IS NULL)),
    -- every other state is final: a run without an end would be charged
    -- as running up to every report's instant
    CONSTRAINT jobs_ended_have_end CHECK (state IN ('PENDING', 'RUNNING', 'SUSPENDED') OR end_time IS NOT NULL),
    CONSTRAINT jobs_suspended_within_run CHECK (end_time IS NULL OR start_time IS NULL
           OR suspended OPERATOR(pg_catalog.<=) (end_time OPERATOR(pg_catalog.-) start_time))
) PARTITION BY RANGE (submit_time);
COMMENT ON TABLE @extschema@.jobs IS 'Job runs as the scheduler accounted them, one row per run (cluster, job id, submit time): who, where, when, what was allocated.';
-- An association's jobs (the foreign key to account_users, per-project
-- consumption).  The account leads: with one cluster, a leading cluster
-- column has correlation 1 in the statistics and the planner takes a full
-- scan of the index in association order for a sequential read, where it
-- reads the table in random order (docs/performance.md).
CREATE INDEX ON @extschema@.jobs (account, user_name, cluster);
-- How many associations have jobs, for the hash aggregates over jobs
-- (association_usage_at): the columns are not independent.
CREATE STATISTICS @extschema@.jobs_association_stats (ndistinct) ON cluster, account, user_name
    FROM @extschema@.jobs;
-- The jobs not started (nor ended) by an instant, the jobs pending then
-- (sprio_at): found by a range scan instead of a scan of the whole table,
-- and counted by the expression's statistics (separate estimates of
-- "start_time IS NULL OR start_time > t" and the same on end_time multiply
-- to 1/100 of the truth, and sprio joined 10^5 pending jobs to sshare's
-- 10^5 rows by a merge join on the cluster alone: 450 s).
CREATE INDEX jobs_first_event_idx ON @extschema@.jobs ((COALESCE(start_time, end_time, 'infinity'::timestamptz)));
-- A project's jobs over a window of time, with what its core-hours need
-- (GENCI allocation_consumption, RWTH rwth_monthly_usage_at): an index-only
-- scan of the window instead of a visit to every job of the account in the
-- table (the regulation of 10^4 allocations, 12 s -> 1.4 s;
-- docs/performance.md).
CREATE INDEX ON @extschema@.jobs (account, cluster, start_time)
    INCLUDE (end_time, cpus, nodes, gpus, exclusive, partition);
-- The pending jobs: the stored remainders of job arrays that an import
-- replaces (import_sacct), found without reading every job.
CREATE INDEX jobs_pending_idx ON @extschema@.jobs (cluster, submit_time) WHERE state OPERATOR(pg_catalog.=) 'PENDING';
-- The runs in a reservation, few: the rollups take their time out of the
-- reservation's idle time (reports.sql, _rollup_hours).
CREATE INDEX jobs_resv_idx ON @extschema@.jobs (cluster, resv_id) WHERE resv_id IS NOT NULL;
-- Each index costs every job stored: an import of 296,132 jobs spends 0.3
-- to 0.7 s in each index of the table (docs/performance.md#importing-jobs).
-- No query reads a cluster's jobs by start time, so there is no index on
-- (cluster, start_time); a cluster's jobs are the primary key's range.

-- The runs of the months that have no partition of their own: all of them
-- right after CREATE EXTENSION or an update from 1.1, until the first
-- maintain_partitions moves them to their months; in steady state none (the
-- months ahead are made in advance), so that making a month's partition,
-- which scans this one, is quick.  An extension member and a configuration
-- table, so that pg_dump keeps its rows; the monthly partitions are made by
-- maintain_partitions, are not members, and pg_dump keeps them and their
-- rows like any table (docs/history.md: restoring a dump).
CREATE TABLE @extschema@.jobs_default PARTITION OF @extschema@.jobs DEFAULT;
COMMENT ON TABLE @extschema@.jobs_default IS 'The runs of the months without a partition of their own (maintain_partitions makes them); read and written through jobs.';

-- Allocations of hours to project accounts (GENCI, RWTH).  `hours` is the
-- initial grant; later changes live in the ledger.
CREATE TABLE @extschema@.allocations (
    allocation_id        bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    cluster              text NOT NULL,
    account              text NOT NULL,
    policy               text NOT NULL CHECK (policy IN ('genci', 'rwth', 'none')),
    period_start         date NOT NULL CHECK (pg_catalog.isfinite(period_start)),
    period_end           date NOT NULL CHECK (pg_catalog.isfinite(period_end)),
    hours                float8 NOT NULL CHECK (hours OPERATOR(pg_catalog.>=) 0 AND hours OPERATOR(pg_catalog.<) 'Infinity'),
    -- RWTH monthly allowance in core-hours (NULL: hours spread evenly over the months)
    monthly_allowance    float8 CHECK (monthly_allowance OPERATOR(pg_catalog.>=) 0
                                       AND monthly_allowance OPERATOR(pg_catalog.<) 'Infinity'),
    -- GENCI mid-term exemptions
    justification_filed  date,
    second_half_declared boolean NOT NULL DEFAULT false,
    FOREIGN KEY (cluster, account) REFERENCES @extschema@.accounts ON UPDATE CASCADE,
    UNIQUE (cluster, account, period_start),
    CHECK (period_end OPERATOR(pg_catalog.>=) period_start)
);
COMMENT ON TABLE @extschema@.allocations IS 'Hours allocated to a project account for a period (GENCI, RWTH); changes go to the ledger.';

-- Append-only ledger of changes to allocations.  hours is always >= 0; the
-- kind gives the sign: grant/addition/restitution add, take_back removes.
CREATE TABLE @extschema@.ledger (
    entry_id             bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    allocation_id        bigint NOT NULL REFERENCES @extschema@.allocations,
    kind                 text NOT NULL CHECK (kind IN ('grant', 'addition', 'take_back', 'restitution')),
    hours                float8 NOT NULL CHECK (hours OPERATOR(pg_catalog.>=) 0 AND hours OPERATOR(pg_catalog.<) 'Infinity'),
    rule                 text NOT NULL DEFAULT 'manual',
    reason               text,
    effective_date       date NOT NULL CHECK (pg_catalog.isfinite(effective_date)),
    recorded_at          timestamptz NOT NULL DEFAULT pg_catalog.now(),
    recorded_by          text NOT NULL DEFAULT CURRENT_USER
);
COMMENT ON TABLE @extschema@.ledger IS 'Append-only history of grants, additions, take-backs and restitutions of allocation hours.';
CREATE INDEX ON @extschema@.ledger (allocation_id, effective_date);
-- a regulation rule takes hours at most once per allocation and check day
CREATE UNIQUE INDEX ledger_rule_once ON @extschema@.ledger (allocation_id, rule, effective_date)
    WHERE kind OPERATOR(pg_catalog.=) 'take_back' AND rule OPERATOR(pg_catalog.<>) 'manual';

CREATE FUNCTION @extschema@_internal._ledger_append_only() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % is not allowed', TG_OP
        USING ERRCODE = '55000', HINT = 'Record a correction as a new entry (addition, take_back or restitution).';
END
$$;
CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON @extschema@.ledger
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON @extschema@.ledger
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@_internal._ledger_append_only();

-- What an allocation's grant or a ledger entry may hold: at most 10^12 hours.
-- The largest machines have about 10^7 cores, which burn
-- 8.8 × 10^10 core-hours a year: 10^12 is more than any of them could use
-- in eleven years, so a figure above it is a typo or an attack, never a
-- grant.  The finite, non-negative CHECKs took 1e308, after which the GENCI
-- report overflowed for every allocation, and an entry in the append-only
-- ledger could only be removed by a superuser.  The bound also keeps the
-- reports' sums far from float8's limit (10^9 entries add up to 10^21).
-- A constant rather than the cluster's cores × the period's hours: a check
-- that reads other rows refuses a restore whenever they come later or have
-- changed since (pg_restore loads the ledger before the partitions, and a
-- partition may shrink after an entry was made).  A trigger rather than a
-- CHECK, so that updating from 1.1 keeps the entries already recorded: the
-- GENCI report names their allocation instead of failing (_genci_refusal).
CREATE FUNCTION @extschema@_internal._allocation_hours_bounded() RETURNS trigger
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
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._allocation_hours_bounded();
CREATE TRIGGER hours_bounded BEFORE INSERT OR UPDATE OF hours ON @extschema@.allocations
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._allocation_hours_bounded();

-- The last day an allocation may end: 9999-12-31.  The reports turn an
-- allocation's days into instants and add months and days to them
-- (genci_report, check_allocation_alerts, allocation_statements); past
-- PostgreSQL's last timestamp (year 294276) that fails, and one allocation
-- ending there would make every report fail for every allocation.
-- Four-digit years are ample for any grant and keep that arithmetic far
-- from the limit (docs/regulation.md#genci-the-model-side).  A trigger, as for the hours: an
-- update keeps the rows already stored, which the update names.
CREATE FUNCTION @extschema@_internal._allocation_period_bounded() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- (infinity is the CHECK's to refuse, with its own SQLSTATE)
    IF pg_catalog.isfinite(NEW.period_end) AND NEW.period_end > '9999-12-31'::date THEN
        RAISE EXCEPTION 'allocation % of account "%" on cluster "%": period_end % is past 9999-12-31, the last day an allocation may end',
                        NEW.allocation_id, NEW.account, NEW.cluster, NEW.period_end
            USING ERRCODE = '22008',
                  HINT = 'The reports cannot represent a later end; an allocation runs for months or years: check the date.';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER period_bounded BEFORE INSERT OR UPDATE OF period_end ON @extschema@.allocations
    FOR EACH ROW EXECUTE FUNCTION @extschema@_internal._allocation_period_bounded();

-- Net hours of an allocation on a date: the grant plus every ledger entry
-- effective on or before that date (GENCI: "en tenant compte des ajouts
-- et/ou des reprises d'heures").
CREATE FUNCTION @extschema@.allocation_net_hours(allocation_id bigint, as_of date)
RETURNS float8 LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT a.hours OPERATOR(pg_catalog.+) COALESCE(pg_catalog.sum(
               CASE WHEN l.kind OPERATOR(pg_catalog.=) 'take_back'
                    THEN OPERATOR(pg_catalog.-) l.hours ELSE l.hours END), 0)
      FROM @extschema@.allocations a
      LEFT JOIN @extschema@.ledger l
        ON l.allocation_id OPERATOR(pg_catalog.=) a.allocation_id
       AND l.effective_date OPERATOR(pg_catalog.<=) allocation_net_hours.as_of
     WHERE a.allocation_id OPERATOR(pg_catalog.=) allocation_net_hours.allocation_id
     GROUP BY a.hours;
END;
COMMENT ON FUNCTION @extschema@.allocation_net_hours(bigint, date) IS
'Initial grant plus grants, additions and restitutions minus take-backs effective on or before as_of.';

SELECT pg_catalog.pg_extension_config_dump('@extschema@.clusters', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.partitions', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.qos', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.accounts', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_users', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_history', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.account_user_history', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.settings_history', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.scenarios', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.scenario_settings', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.scenario_tree', '');
-- (jobs is partitioned: its rows are its partitions')
SELECT pg_catalog.pg_extension_config_dump('@extschema@.jobs_default', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.allocations', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.allocations_allocation_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ledger_entry_id_seq', '');
