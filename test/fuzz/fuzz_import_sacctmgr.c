/* fuzz-sources: extension/import.c extension/billing.c */
/*
 * fuzz_import_sacctmgr.c — libFuzzer harness for the sacctmgr export
 * readers of extension/import.c, through their SQL entry points
 * _sacctmgr_event_line and _sacctmgr_reservation_line(line, header,
 * time_zone, cluster, accounting_start, horizon).
 *
 * Input: an export, its first line the header, every later line parsed in
 * order by both readers, one FmgrInfo each, as import_events' and
 * import_reservations' scans do (a later header switches the columns).  A
 * call may raise an ERROR only for its header argument (one without the
 * columns the import needs, a column twice, too wide, not valid text:
 * 22023); a bad line must come back as kind 'reject' with a SQLSTATE and
 * a reason.  An event or a reservation read must be one its table and the
 * rollups accept: a start, an end not before it, both within
 * [accounting_start, horizon], a TRES string billing.c's parser reads.
 * Column numbers follow the types fairshare_internal._sacctmgr_event_line
 * and _sacctmgr_reservation_line of extension/reports.sql.
 */
#include "postgres.h"

#include "fmgr.h"

#include "fuzz_rows.h"

extern Datum fs_sacctmgr_event_line(PG_FUNCTION_ARGS);
extern Datum fs_sacctmgr_reservation_line(PG_FUNCTION_ARGS);

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum
{
	V_KIND, V_NODE_NAME, V_TIME_START, V_TIME_END, V_STATE, V_STATE_RAW, V_TRES, V_EVENT_REASON,
	V_USER_REF, V_SQLSTATE, V_REASON, V_NATTS
};

enum
{
	R_KIND, R_ID, R_RESV_ID, R_NAME, R_TIME_START, R_TIME_END, R_FLAGS, R_TRES, R_NODES, R_ASSOCS,
	R_SQLSTATE, R_REASON, R_NATTS
};

/* 2000-01-01 and 2030-01-01 (PostgreSQL's epoch and 30 years after) */
#define FLOOR_AT	((TimestampTz) 0)
#define HORIZON		((TimestampTz) INT64CONST(946771200) * USECS_PER_SEC)

/* kind, and for a reject its SQLSTATE and reason; true for a row read */
static bool
check_kind(const Datum *values, const bool *nulls, int kind_att, int sqlstate_att, int reason_att,
		   const char *read_kind)
{
	static const char *const codes[] = {"22P02", "22007", "22008", "22009", "22015", "22003", "22004",
	"23514", "22021", NULL};
	const char *const kinds[] = {read_kind, "other", "header", "blank", "reject", NULL};
	char	   *kind = row_text(values, nulls, kind_att, true, "kind");
	char	   *code;

	if (!row_is(kind, kinds))
		row_fail("kind", kind);
	if (strcmp(kind, "reject") == 0)
	{
		code = row_text(values, nulls, sqlstate_att, true, "sqlstate");
		if (!row_is(code, codes))
			row_fail("sqlstate", code);
		(void) row_text(values, nulls, reason_att, true, "reason");
	}
	return strcmp(kind, read_kind) == 0;
}

/* start, end (NULL allowed when open), within the cluster's accounting */
static void
check_times(const Datum *values, const bool *nulls, int ts_att, int te_att, bool open_end)
{
	TimestampTz ts,
				te;

	if (nulls[ts_att] || (!open_end && nulls[te_att]))
		row_fail("time", "NULL");
	ts = DatumGetTimestampTz(values[ts_att]);
	if (ts < FLOOR_AT || ts > HORIZON)
		row_fail("time_start", "outside [accounting_start, horizon]");
	if (nulls[te_att])
		return;
	te = DatumGetTimestampTz(values[te_att]);
	if (te < ts || te > HORIZON)
		row_fail("time_end", "before the start or past the horizon");
}

static void
check_event_row(int natts, const Datum *values, const bool *nulls)
{
	if (natts != V_NATTS)
		row_fail("natts", NULL);
	if (!check_kind(values, nulls, V_KIND, V_SQLSTATE, V_REASON, "event"))
		return;
	(void) row_text(values, nulls, V_NODE_NAME, true, "node_name");
	check_times(values, nulls, V_TIME_START, V_TIME_END, true);
	row_tres(row_text(values, nulls, V_TRES, true, "tres")[0] ? row_text(values, nulls, V_TRES, true, "tres") : NULL,
			 "tres");
	(void) row_text(values, nulls, V_STATE, false, "state");
	(void) row_text(values, nulls, V_EVENT_REASON, false, "event_reason");
	(void) row_text(values, nulls, V_USER_REF, false, "user_ref");
}

static void
check_resv_row(int natts, const Datum *values, const bool *nulls)
{
	if (natts != R_NATTS)
		row_fail("natts", NULL);
	if (!check_kind(values, nulls, R_KIND, R_SQLSTATE, R_REASON, "reservation"))
		return;
	if (nulls[R_RESV_ID])
		row_fail("resv_id", "NULL");
	(void) row_text(values, nulls, R_ID, true, "id");
	check_times(values, nulls, R_TIME_START, R_TIME_END, false);
	row_tres(row_text(values, nulls, R_TRES, true, "tres")[0] ? row_text(values, nulls, R_TRES, true, "tres") : NULL,
			 "tres");
	(void) row_text(values, nulls, R_NAME, false, "name");
	(void) row_text(values, nulls, R_FLAGS, true, "flags");
	(void) row_text(values, nulls, R_NODES, false, "nodes");
	(void) row_text(values, nulls, R_ASSOCS, false, "assocs");
}

/* Every line after the first through one reader, in order. */
static void
read_export(PGFunction fn, int natts, void (*check) (int, const Datum *, const bool *),
			const char *const *starts, const size_t *lens, int n)
{
	static const char *const arg_errors[] = {"22023", NULL};
	FmgrInfo	flinfo;
	text	   *header = shim_text(starts[0], lens[0]);
	text	   *tz = shim_text("UTC", 3);
	text	   *cluster = shim_text("c1", 2);
	int			i;

	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = CurrentMemoryContext;
	flinfo.fn_nargs = 6;
	shim_result_natts = natts;
	shim_check_row = check;
	for (i = 1; i < n; i++)
	{
		LOCAL_FCINFO(fcinfo, 6);
		int			a;

		InitFunctionCallInfoData(*fcinfo, &flinfo, 6, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = PointerGetDatum(shim_text(starts[i], lens[i]));
		fcinfo->args[1].value = PointerGetDatum(header);
		fcinfo->args[2].value = PointerGetDatum(tz);
		fcinfo->args[3].value = PointerGetDatum(cluster);
		fcinfo->args[4].value = TimestampTzGetDatum(FLOOR_AT);
		fcinfo->args[5].value = TimestampTzGetDatum(HORIZON);
		for (a = 0; a < 6; a++)
			fcinfo->args[a].isnull = false;
		if (!SHIM_TRY((void) fn(fcinfo)))
		{
			/* only the header can be refused, and then every line is */
			shim_expect_sqlstate(arg_errors, "_sacctmgr_*_line");
			break;
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *starts[1024];
	size_t		lens[1024];
	int			n;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	n = split_lines((const char *) data, size, starts, lens, lengthof(starts));
	read_export(fs_sacctmgr_event_line, V_NATTS, check_event_row, starts, lens, n);
	read_export(fs_sacctmgr_reservation_line, R_NATTS, check_resv_row, starts, lens, n);
	shim_reset();
	return 0;
}
