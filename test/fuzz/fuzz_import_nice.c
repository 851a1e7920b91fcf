/* fuzz-sources: extension/import.c extension/billing.c */
/*
 * fuzz_import_nice.c — libFuzzer harness for the squeue reader of
 * extension/import.c, through its SQL entry point _squeue_nice_line(line),
 * which import_nice calls on each line of squeue -h -o '%i|%y' output.
 *
 * Input: squeue output, every line read.  The reader never raises an
 * ERROR; a bad line comes back as kind 'reject' with a SQLSTATE and a
 * reason.  A line read must give a job id that starts with a digit and a
 * nice Slurm holds (±2147483645), so that the UPDATE of jobs.nice cannot
 * fail.  Column numbers follow the type fairshare_internal._squeue_nice_line
 * of extension/nice.sql.
 */
#include "postgres.h"

#include <ctype.h>

#include "fmgr.h"

#include "fuzz_rows.h"

extern Datum fs_squeue_nice_line(PG_FUNCTION_ARGS);

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum
{
	N_KIND, N_JOB_ID, N_NICE, N_SQLSTATE, N_REASON, N_NATTS
};

static void
check_nice_row(int natts, const Datum *values, const bool *nulls)
{
	static const char *const kinds[] = {"nice", "blank", "reject", NULL};
	static const char *const codes[] = {"22P02", "22003", "22021", NULL};
	char	   *kind;
	char	   *job;
	int32		nice;

	if (natts != N_NATTS)
		row_fail("natts", NULL);
	kind = row_text(values, nulls, N_KIND, true, "kind");
	if (!row_is(kind, kinds))
		row_fail("kind", kind);
	if (strcmp(kind, "reject") == 0)
	{
		if (!row_is(row_text(values, nulls, N_SQLSTATE, true, "sqlstate"), codes))
			row_fail("sqlstate", row_text(values, nulls, N_SQLSTATE, true, "sqlstate"));
		(void) row_text(values, nulls, N_REASON, true, "reason");
		(void) row_text(values, nulls, N_JOB_ID, false, "job_id");
		return;
	}
	if (strcmp(kind, "nice") != 0)
		return;
	job = row_text(values, nulls, N_JOB_ID, true, "job_id");
	if (!isdigit((unsigned char) job[0]))
		row_fail("job_id", job);
	if (nulls[N_NICE])
		row_fail("nice", "NULL");
	nice = DatumGetInt32(values[N_NICE]);
	if (nice < -2147483645 || nice > 2147483645)
		row_fail("nice", "outside Slurm's range");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const no_errors[] = {NULL};
	const char *starts[1024];
	size_t		lens[1024];
	FmgrInfo	flinfo;
	int			n,
				i;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	n = split_lines((const char *) data, size, starts, lens, lengthof(starts));
	memset(&flinfo, 0, sizeof(flinfo));
	flinfo.fn_mcxt = CurrentMemoryContext;
	flinfo.fn_nargs = 1;
	shim_result_natts = N_NATTS;
	shim_check_row = check_nice_row;
	for (i = 0; i < n; i++)
	{
		LOCAL_FCINFO(fcinfo, 1);

		InitFunctionCallInfoData(*fcinfo, &flinfo, 1, InvalidOid, NULL, NULL);
		fcinfo->args[0].value = PointerGetDatum(shim_text(starts[i], lens[i]));
		fcinfo->args[0].isnull = false;
		if (!SHIM_TRY((void) fs_squeue_nice_line(fcinfo)))
			shim_expect_sqlstate(no_errors, "_squeue_nice_line");
	}
	shim_reset();
	return 0;
}
