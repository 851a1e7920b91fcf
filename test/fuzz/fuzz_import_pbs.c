/* fuzz-sources: extension/import.c extension/billing.c */
/*
 * fuzz_import_pbs.c — libFuzzer harness for the PBS accounting-log record
 * parser of extension/import.c, through its SQL entry point
 * _pbs_record(line, time_zone).
 *
 * Input: a log, one record per line, parsed in order with one FmgrInfo.  No
 * record may raise an ERROR (the time zone is valid): a bad one comes back as
 * kind 'reject' with a SQLSTATE and a reason.  Every 'job' row must hold
 * values the jobs table accepts — counts >= 0, durations >= 0, a positive
 * time limit, and a TRES string billing.c's parser accepts.  Column numbers
 * follow the type fairshare_internal._pbs_record of extension/import.sql.
 */
#include "postgres.h"

#include "fmgr.h"

#include "fuzz_rows.h"

extern Datum fs_pbs_record(PG_FUNCTION_ARGS);

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum
{
	P_KIND, P_REC_TIME, P_REC_TYPE, P_JOB_ID, P_USER, P_GROUP, P_ACCOUNT, P_PROJECT, P_QUEUE,
	P_SUBMIT, P_ELIGIBLE, P_START, P_END, P_EXIT_STATUS, P_TIME_LIMIT, P_WALLTIME_USED,
	P_CPU_TIME_USED, P_TRES, P_CPUS, P_MEM, P_GPUS, P_NODES, P_EXCLUSIVE, P_SQLSTATE,
	P_REASON, P_NATTS
};

static void
check_pbs_row(int natts, const Datum *values, const bool *nulls)
{
	static const char *const kinds[] = {"job", "skip", "blank", "reject", NULL};
	char	   *kind;
	int			att;

	if (natts != P_NATTS)
		row_fail("natts", NULL);
	kind = row_text(values, nulls, P_KIND, true, "kind");
	if (!row_is(kind, kinds))
		row_fail("kind", kind);
	if (strcmp(kind, "reject") == 0)
	{
		row_reject(values, nulls, P_SQLSTATE, P_REASON);
		return;
	}
	if (strcmp(kind, "skip") == 0)
	{
		(void) row_text(values, nulls, P_REASON, true, "reason");
		return;
	}
	if (strcmp(kind, "job") != 0)
		return;
	if (nulls[P_REC_TIME])
		row_fail("rec_time", "NULL");
	(void) row_time(values, nulls, P_REC_TIME, "rec_time");
	if (*row_text(values, nulls, P_JOB_ID, true, "job_id") == '\0')
		row_fail("job_id", "empty");
	(void) row_text(values, nulls, P_REC_TYPE, true, "rec_type");
	for (att = P_USER; att <= P_QUEUE; att++)
		(void) row_text(values, nulls, att, false, "user, group, account, project or queue");
	for (att = P_SUBMIT; att <= P_END; att++)
		(void) row_time(values, nulls, att, "ctime, etime, start or end");
	row_interval(values, nulls, P_TIME_LIMIT, true, "Resource_List.walltime");
	row_interval(values, nulls, P_WALLTIME_USED, false, "resources_used.walltime");
	row_interval(values, nulls, P_CPU_TIME_USED, false, "resources_used.cput");
	row_tres(row_text(values, nulls, P_TRES, false, "tres"), "tres");
	row_count(values, nulls, P_CPUS, false, "cpus");
	row_count(values, nulls, P_MEM, true, "mem_mb");
	row_count(values, nulls, P_GPUS, false, "gpus");
	row_count(values, nulls, P_NODES, false, "nodes");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const no_errors[] = {NULL};
	const char *starts[1024];
	size_t		lens[1024];
	FmgrInfo	flinfo;
	text	   *tz;
	int			n,
				i;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	n = split_lines((const char *) data, size, starts, lens, lengthof(starts));
	tz = shim_text("UTC", 3);
	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = CurrentMemoryContext;
	flinfo.fn_nargs = 2;
	shim_result_natts = P_NATTS;
	shim_check_row = check_pbs_row;

	for (i = 0; i < n; i++)
	{
		LOCAL_FCINFO(fcinfo, 2);

		InitFunctionCallInfoData(*fcinfo, &flinfo, 2, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = PointerGetDatum(shim_text(starts[i], lens[i]));
		fcinfo->args[0].isnull = false;
		fcinfo->args[1].value = PointerGetDatum(tz);
		fcinfo->args[1].isnull = false;
		if (!SHIM_TRY((void) fs_pbs_record(fcinfo)))
			shim_expect_sqlstate(no_errors, "_pbs_record");
	}
	shim_reset();
	return 0;
}
