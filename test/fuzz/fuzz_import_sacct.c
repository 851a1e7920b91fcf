/* fuzz-sources: extension/import.c extension/billing.c */
/*
 * fuzz_import_sacct.c — libFuzzer harness for the sacct --parsable2 line
 * parser of extension/import.c, through its SQL entry point
 * _sacct_line(line, header, time_zone, cluster).
 *
 * Input: an export, its first line the header, every line (the header
 * included) parsed in order with one FmgrInfo, as one import's scan does
 * (the parser folds a job's steps by remembering the line before).  The
 * cluster argument is NULL for inputs of even length, 'c1' otherwise.
 * A call may raise an ERROR only for its arguments (a header that is not
 * sacct's: 22P02, 54000, or not valid text: 22021); a bad line must come
 * back as kind 'reject' with a
 * SQLSTATE and a reason.  Every 'job' row must satisfy the jobs table's
 * CHECKs, its TRES string included (billing.c's parser), so that storing it
 * cannot abort an import.  Column numbers follow the type
 * fairshare_internal._sacct_line of extension/import.sql.
 */
#include "postgres.h"

#include "fmgr.h"

#include "fuzz_rows.h"

extern Datum fs_sacct_line(PG_FUNCTION_ARGS);

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum
{
	S_KIND, S_CLUSTER, S_JOB_ID, S_STEP, S_USER, S_ACCOUNT, S_PARTITION, S_QOS, S_STATE,
	S_SUBMIT, S_ELIGIBLE, S_START, S_END, S_TIME_LIMIT, S_TRES, S_CPUS, S_MEM, S_GPUS,
	S_NODES, S_SQLSTATE, S_REASON, S_NATTS
};

static void
check_sacct_row(int natts, const Datum *values, const bool *nulls)
{
	static const char *const kinds[] = {"job", "step", "lone_step", "header", "blank", "reject", NULL};
	static const char *const states[] = {"PENDING", "RUNNING", "SUSPENDED", "COMPLETED", "CANCELLED",
		"FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "REQUEUED", NULL};
	char	   *kind;
	char	   *state;
	char	   *job_id;
	TimestampTz submit,
				eligible,
				start,
				end;

	if (natts != S_NATTS)
		row_fail("natts", NULL);
	kind = row_text(values, nulls, S_KIND, true, "kind");
	if (!row_is(kind, kinds))
		row_fail("kind", kind);
	if (strcmp(kind, "reject") == 0)
	{
		row_reject(values, nulls, S_SQLSTATE, S_REASON);
		return;
	}
	if (strcmp(kind, "step") == 0 || strcmp(kind, "lone_step") == 0)
	{
		(void) row_text(values, nulls, S_CLUSTER, true, "cluster");
		job_id = row_text(values, nulls, S_JOB_ID, true, "job_id");
		if (*job_id == '\0')
			row_fail("job_id", "empty");
		(void) row_text(values, nulls, S_STEP, true, "step");
		return;
	}
	if (strcmp(kind, "job") != 0)
		return;
	/* the jobs table: NOT NULL columns, non-empty keys, its CHECKs */
	if (*row_text(values, nulls, S_CLUSTER, true, "cluster") == '\0')
		row_fail("cluster", "empty");
	if (*row_text(values, nulls, S_JOB_ID, true, "job_id") == '\0')
		row_fail("job_id", "empty");
	(void) row_text(values, nulls, S_USER, true, "user_name");
	(void) row_text(values, nulls, S_ACCOUNT, true, "account");
	(void) row_text(values, nulls, S_PARTITION, true, "partition");
	(void) row_text(values, nulls, S_QOS, false, "qos");
	state = row_text(values, nulls, S_STATE, true, "state");
	if (!row_is(state, states))
		row_fail("state", state);
	if (nulls[S_SUBMIT])
		row_fail("submit_time", "NULL");
	submit = row_time(values, nulls, S_SUBMIT, "submit_time");
	eligible = row_time(values, nulls, S_ELIGIBLE, "eligible_time");
	start = row_time(values, nulls, S_START, "start_time");
	end = row_time(values, nulls, S_END, "end_time");
	if (!nulls[S_ELIGIBLE] && eligible < submit)
		row_fail("eligible_time", "before submit_time");
	if (!nulls[S_START] && !nulls[S_END] && end < start)
		row_fail("end_time", "before start_time");
	if (strcmp(state, "PENDING") == 0 && !(nulls[S_START] && nulls[S_END]))
		row_fail("PENDING", "with a start or an end");
	if ((strcmp(state, "RUNNING") == 0 || strcmp(state, "SUSPENDED") == 0) && (nulls[S_START] || !nulls[S_END]))
		row_fail(state, "without a start or with an end");
	row_interval(values, nulls, S_TIME_LIMIT, true, "time_limit");
	row_tres(row_text(values, nulls, S_TRES, false, "tres"), "tres");
	if (nulls[S_CPUS] || nulls[S_MEM] || nulls[S_GPUS] || nulls[S_NODES])
		row_fail("cpus, mem_mb, gpus, nodes", "NULL");
	row_count(values, nulls, S_CPUS, false, "cpus");
	row_count(values, nulls, S_MEM, true, "mem_mb");
	row_count(values, nulls, S_GPUS, false, "gpus");
	row_count(values, nulls, S_NODES, false, "nodes");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const arg_errors[] = {"22P02", "54000", "22021", NULL};
	const char *starts[1024];
	size_t		lens[1024];
	FmgrInfo	flinfo;
	text	   *header;
	text	   *tz;
	text	   *cluster;
	int			n,
				i;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	n = split_lines((const char *) data, size, starts, lens, lengthof(starts));
	header = shim_text(starts[0], lens[0]);
	tz = shim_text("UTC", 3);
	cluster = size % 2 ? shim_text("c1", 2) : NULL;
	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = CurrentMemoryContext;
	flinfo.fn_nargs = 4;
	shim_result_natts = S_NATTS;
	shim_check_row = check_sacct_row;

	for (i = 0; i < n; i++)
	{
		LOCAL_FCINFO(fcinfo, 4);
		text	   *line = shim_text(starts[i], lens[i]);

		InitFunctionCallInfoData(*fcinfo, &flinfo, 4, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = PointerGetDatum(line);
		fcinfo->args[0].isnull = false;
		fcinfo->args[1].value = PointerGetDatum(header);
		fcinfo->args[1].isnull = false;
		fcinfo->args[2].value = PointerGetDatum(tz);
		fcinfo->args[2].isnull = false;
		fcinfo->args[3].value = PointerGetDatum(cluster);
		fcinfo->args[3].isnull = cluster == NULL;
		if (!SHIM_TRY((void) fs_sacct_line(fcinfo)))
		{
			/* only the header can be refused, and then every line is */
			shim_expect_sqlstate(arg_errors, "_sacct_line");
			break;
		}
	}
	shim_reset();
	return 0;
}
