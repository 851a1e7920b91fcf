/* fuzz-sources: extension/import.c extension/billing.c */
/*
 * fuzz_import_efficiency.c — libFuzzer harness for the efficiency parser of
 * extension/import.c, through its SQL entry point
 * _sacct_efficiency_line(line, header, time_zone).
 *
 * Input: an export, its first line the header, every later line parsed in
 * order with one FmgrInfo, as import_sacct_efficiency's scan does (a later
 * header switches the columns).  A call may raise an ERROR only for its
 * header argument (one without JobID or Submit, a column twice, too wide,
 * not valid text: 22P02); a bad line must come back as kind 'reject' with a
 * SQLSTATE and a reason.  Every value of a 'job' or 'step' row must satisfy
 * job_efficiency's CHECKs (finite, >= 0), so that storing it cannot abort
 * the import.  Column numbers follow the type
 * fairshare_internal._sacct_efficiency_line of extension/efficiency.sql.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"

#include "fuzz_rows.h"

extern Datum fs_sacct_efficiency_line(PG_FUNCTION_ARGS);

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum
{
	E_KIND, E_JOB_ID, E_STEP, E_SUBMIT, E_USER, E_ACCOUNT, E_TOTAL_CPU, E_MAX_RSS,
	E_REQ_MEM, E_REQ_TRES, E_ENERGY, E_GPU_UTIL, E_SQLSTATE, E_REASON, E_NATTS
};

/* A float8 value job_efficiency accepts: NULL, or finite and >= 0. */
static void
row_amount(const Datum *values, const bool *nulls, int att, const char *what)
{
	double		v;

	if (nulls[att])
		return;
	v = DatumGetFloat8(values[att]);
	if (!isfinite(v) || v < 0)
		row_fail(what, "not a finite amount >= 0");
}

static void
check_efficiency_row(int natts, const Datum *values, const bool *nulls)
{
	static const char *const kinds[] = {"job", "step", "header", "blank", "reject", NULL};
	static const char *const codes[] = {"22P02", "22007", "22021", NULL};
	char	   *kind;

	if (natts != E_NATTS)
		row_fail("natts", NULL);
	kind = row_text(values, nulls, E_KIND, true, "kind");
	if (!row_is(kind, kinds))
		row_fail("kind", kind);
	if (strcmp(kind, "reject") == 0)
	{
		if (!row_is(row_text(values, nulls, E_SQLSTATE, true, "sqlstate"), codes))
			row_fail("sqlstate", row_text(values, nulls, E_SQLSTATE, true, "sqlstate"));
		(void) row_text(values, nulls, E_REASON, true, "reason");
		return;
	}
	if (strcmp(kind, "job") != 0 && strcmp(kind, "step") != 0)
		return;
	if (*row_text(values, nulls, E_JOB_ID, true, "job_id") == '\0')
		row_fail("job_id", "empty");
	if (strcmp(kind, "step") == 0)
		(void) row_text(values, nulls, E_STEP, true, "step");
	(void) row_time(values, nulls, E_SUBMIT, "submit_time");
	(void) row_text(values, nulls, E_USER, false, "user_name");
	(void) row_text(values, nulls, E_ACCOUNT, false, "account");
	(void) row_text(values, nulls, E_REQ_TRES, false, "req_tres");
	row_amount(values, nulls, E_TOTAL_CPU, "total_cpu_secs");
	row_amount(values, nulls, E_MAX_RSS, "max_rss_mb");
	row_amount(values, nulls, E_REQ_MEM, "req_mem_mb");
	row_amount(values, nulls, E_ENERGY, "energy_joules");
	row_amount(values, nulls, E_GPU_UTIL, "gpu_util_percent");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const arg_errors[] = {"22P02", NULL};
	const char *starts[1024];
	size_t		lens[1024];
	FmgrInfo	flinfo;
	text	   *header;
	text	   *tz;
	int			n,
				i;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	n = split_lines((const char *) data, size, starts, lens, lengthof(starts));
	header = shim_text(starts[0], lens[0]);
	tz = shim_text("UTC", 3);
	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = CurrentMemoryContext;
	flinfo.fn_nargs = 3;
	shim_result_natts = E_NATTS;
	shim_check_row = check_efficiency_row;

	for (i = 1; i < n; i++)
	{
		LOCAL_FCINFO(fcinfo, 3);
		text	   *line = shim_text(starts[i], lens[i]);

		InitFunctionCallInfoData(*fcinfo, &flinfo, 3, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = PointerGetDatum(line);
		fcinfo->args[0].isnull = false;
		fcinfo->args[1].value = PointerGetDatum(header);
		fcinfo->args[1].isnull = false;
		fcinfo->args[2].value = PointerGetDatum(tz);
		fcinfo->args[2].isnull = false;
		if (!SHIM_TRY((void) fs_sacct_efficiency_line(fcinfo)))
		{
			/* only the header can be refused, and then every line is */
			shim_expect_sqlstate(arg_errors, "_sacct_efficiency_line");
			break;
		}
	}
	shim_reset();
	return 0;
}
