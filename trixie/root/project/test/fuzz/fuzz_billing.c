/*
 * fuzz_billing.c — libFuzzer harness for the TRES and TRESBillingWeights
 * parser of extension/billing.c, through its SQL entry points
 * tres_billing(tres, weights, mode), tres_count(tres, name) and
 * tres_weights_valid(weights).
 *
 * Input: up to three lines, "tres\nweights\nmode"; a missing line is a NULL
 * argument.  A NUL byte cannot occur in a text value, so such inputs are
 * skipped.  Each call either returns or raises an ERROR; an ERROR must carry
 * one of the SQLSTATEs the function documents, and a result must be a
 * finite number >= 0 (a billing rate, a count).  Anything else — or a
 * sanitizer report — is a finding.
 */
#include "postgres.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmgr.h"

#include "shim.h"

extern Datum fs_tres_billing(PG_FUNCTION_ARGS);
extern Datum fs_tres_count(PG_FUNCTION_ARGS);
extern Datum fs_tres_weights_valid(PG_FUNCTION_ARGS);

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 22P02 malformed string, 22023 unknown mode, 22003 a rate too large for float8 */
static const char *const billing_errors[] = {"22P02", "22023", "22003", NULL};
static const char *const parse_errors[] = {"22P02", NULL};

static Datum
call(PGFunction fn, int nargs, text **args)
{
	LOCAL_FCINFO(fcinfo, 3);
	int			i;
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, nargs, InvalidOid, NULL, NULL);
	for (i = 0; i < nargs; i++)
	{
		fcinfo->args[i].value = PointerGetDatum(args[i]);
		fcinfo->args[i].isnull = args[i] == NULL;
	}
	result = fn(fcinfo);
	if (fcinfo->isnull)
		return Float8GetDatum(0.0);
	return result;
}

static void
check_result(double v, const char *what)
{
	if (!(isfinite(v) && v >= 0))
	{
		fprintf(stderr, "%s returned %g\n", what, v);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *) data;
	const char *end = p + size;
	text	   *arg[3] = {NULL, NULL, NULL};
	text	   *two[2];
	int			n;
	double		v = 0;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	for (n = 0; n < 3 && p <= end; n++)
	{
		const char *nl = n < 2 ? memchr(p, '\n', end - p) : NULL;
		const char *stop = nl ? nl : end;

		arg[n] = shim_text(p, stop - p);
		if (nl == NULL)
			break;
		p = nl + 1;
	}

	if (SHIM_TRY(v = DatumGetFloat8(call(fs_tres_billing, 3, arg))))
		check_result(v, "tres_billing");
	else
		shim_expect_sqlstate(billing_errors, "tres_billing");

	/* the same strings as a weight list, and a count out of the TRES */
	if (!SHIM_TRY((void) call(fs_tres_weights_valid, 1, &arg[0])))
		shim_expect_sqlstate(parse_errors, "tres_weights_valid");
	two[0] = arg[0];
	two[1] = arg[1] ? arg[1] : shim_text("cpu", 3);
	if (SHIM_TRY(v = DatumGetFloat8(call(fs_tres_count, 2, two))))
		check_result(v, "tres_count");
	else
		shim_expect_sqlstate(parse_errors, "tres_count");

	shim_reset();
	return 0;
}
