/*
 * test/sanitize/canary.c: the planted bugs test/sanitize.sh feeds the
 * sanitizer server before the suites, built exactly as fairshare is there.
 * Each must be reported, or the run fails: a run whose sanitizers are not
 * working cannot pass.
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(canary_heap);
PG_FUNCTION_INFO_V1(canary_ub);

/* Writes one byte past a palloc'd chunk of n bytes. */
Datum
canary_heap(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(0);
	volatile char *p = palloc(n);

	p[n] = 'x';
	PG_RETURN_INT32(n);
}

/* n + 1: a signed overflow for n = INT_MAX. */
Datum
canary_ub(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(0);

	PG_RETURN_INT32(n + 1);
}
