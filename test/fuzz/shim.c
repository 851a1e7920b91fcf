/*
 * shim.c — the PostgreSQL server functions fairshare's parsers call, for
 * the libFuzzer harnesses in this folder (see shim.h).
 *
 * Memory: each palloc'd chunk is a malloc'd block, so that AddressSanitizer
 * sees the exact bounds of every chunk.  A chunk starts with a header that
 * links it into one list and ends, as PostgreSQL requires, with the owning
 * context's pointer just before the data (GetMemoryChunkContext reads it).
 * shim_reset() frees the list: the harness calls it after every input, as
 * the server resets the per-call memory context.
 *
 * Errors: errstart() says yes to every level so that the message arguments
 * are always formatted (a bad format argument is a finding too); at ERROR
 * and above errfinish() longjmps to the harness.
 */
#include "postgres.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "pgtime.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "shim.h"

/* ---------- memory ---------- */

typedef struct ShimChunk
{
	struct ShimChunk *prev;
	struct ShimChunk *next;
	Size		size;
	MemoryContext context;		/* must be last: just before the data */
} ShimChunk;

/* One context for everything; only its address is ever looked at. */
static MemoryContextData shim_context;
MemoryContext CurrentMemoryContext = &shim_context;
MemoryContext TopMemoryContext = &shim_context;
MemoryContext ErrorContext = &shim_context;

static ShimChunk *shim_chunks;

#define CHUNK_OF(p)	((ShimChunk *) ((char *) (p) - sizeof(ShimChunk)))

static void *
shim_alloc(Size size, bool zero)
{
	ShimChunk  *c;

	if (!AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
	c = zero ? calloc(1, sizeof(ShimChunk) + size) : malloc(sizeof(ShimChunk) + size);
	if (c == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	c->size = size;
	c->context = &shim_context;
	c->prev = NULL;
	c->next = shim_chunks;
	if (shim_chunks)
		shim_chunks->prev = c;
	shim_chunks = c;
	return (char *) c + sizeof(ShimChunk);
}

static void
shim_unlink(ShimChunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		shim_chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

void
shim_reset(void)
{
	while (shim_chunks)
	{
		ShimChunk  *c = shim_chunks;

		shim_chunks = c->next;
		free(c);
	}
}

void *
palloc(Size size)
{
	return shim_alloc(size, false);
}

void *
palloc0(Size size)
{
	return shim_alloc(size, true);
}

void *
palloc_extended(Size size, int flags)
{
	return shim_alloc(size, (flags & MCXT_ALLOC_ZERO) != 0);
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return shim_alloc(size, false);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return shim_alloc(size, true);
}

void *
MemoryContextAllocZeroAligned(MemoryContext context, Size size)
{
	return shim_alloc(size, true);
}

void
pfree(void *pointer)
{
	ShimChunk  *c = CHUNK_OF(pointer);

	shim_unlink(c);
	free(c);
}

void *
repalloc(void *pointer, Size size)
{
	ShimChunk  *c = CHUNK_OF(pointer);
	void	   *p;

	/* a fresh block (not realloc) so that ASan catches use of the old one */
	p = shim_alloc(size, false);
	memcpy(p, pointer, Min(size, c->size));
	pfree(pointer);
	return p;
}

char *
MemoryContextStrdup(MemoryContext context, const char *string)
{
	return pstrdup(string);
}

char *
pstrdup(const char *in)
{
	Size		len = strlen(in);
	char	   *out = palloc(len + 1);

	memcpy(out, in, len + 1);
	return out;
}

char *
pnstrdup(const char *in, Size len)
{
	char	   *out;

	len = strnlen(in, len);
	out = palloc(len + 1);
	memcpy(out, in, len);
	out[len] = '\0';
	return out;
}

size_t
pvsnprintf(char *buf, size_t len, const char *fmt, va_list args)
{
	int			n = vsnprintf(buf, len, fmt, args);

	if (n < 0)
		elog(ERROR, "vsnprintf failed with format \"%s\"", fmt);
	return (size_t) n < len ? (size_t) n : (size_t) n + 1;
}

char *
psprintf(const char *fmt,...)
{
	size_t		len = 128;

	for (;;)
	{
		char	   *buf = palloc(len);
		va_list		args;
		size_t		need;

		va_start(args, fmt);
		need = pvsnprintf(buf, len, fmt, args);
		va_end(args);
		if (need < len)
			return buf;
		pfree(buf);
		len = need;
	}
}

/* ---------- errors ---------- */

sigjmp_buf *shim_error_jump;
int			shim_last_sqlstate;
char		shim_last_message[1024];
static int	shim_elevel;

bool
errstart(int elevel, const char *domain)
{
	shim_elevel = elevel;
	shim_last_sqlstate = elevel >= ERROR ? ERRCODE_INTERNAL_ERROR : ERRCODE_SUCCESSFUL_COMPLETION;
	shim_last_message[0] = '\0';
	return true;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (shim_elevel < ERROR)
		return;
	if (shim_error_jump == NULL)
	{
		fprintf(stderr, "ERROR outside SHIM_TRY at %s:%d: %s\n", filename, lineno, shim_last_message);
		abort();
	}
	siglongjmp(*shim_error_jump, 1);
}

int
errcode(int sqlerrcode)
{
	shim_last_sqlstate = sqlerrcode;
	return 0;
}

/* Format into a scratch buffer: the text is kept for errmsg only. */
#define SHIM_FORMAT(keep) \
	do { \
		char		buf_[sizeof(shim_last_message)]; \
		va_list		args_; \
		va_start(args_, fmt); \
		vsnprintf(buf_, sizeof(buf_), fmt, args_); \
		va_end(args_); \
		if (keep) \
			memcpy(shim_last_message, buf_, sizeof(buf_)); \
	} while (0)

int
errmsg(const char *fmt,...)
{
	SHIM_FORMAT(true);
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	SHIM_FORMAT(true);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	SHIM_FORMAT(false);
	return 0;
}

int
errdetail_internal(const char *fmt,...)
{
	SHIM_FORMAT(false);
	return 0;
}

int
errhint(const char *fmt,...)
{
	SHIM_FORMAT(false);
	return 0;
}

void
shim_expect_sqlstate(const char *const *allowed, const char *what)
{
	const char *const *a;

	for (a = allowed; *a; a++)
		if (shim_last_sqlstate == MAKE_SQLSTATE((*a)[0], (*a)[1], (*a)[2], (*a)[3], (*a)[4]))
			return;
	fprintf(stderr, "%s raised an unexpected SQLSTATE %s: %s\n",
			what, unpack_sql_state(shim_last_sqlstate), shim_last_message);
	abort();
}

/* unpack_sql_state lives in the server's elog.c */
char *
unpack_sql_state(int sql_state)
{
	static char buf[12];
	int			i;

	for (i = 0; i < 5; i++)
	{
		buf[i] = PGUNSIXBIT(sql_state);
		sql_state >>= 6;
	}
	buf[i] = '\0';
	return buf;
}

/* ---------- varlena ---------- */

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	/* the harness only builds plain in-line values */
	return datum;
}

text *
cstring_to_text_with_len(const char *s, int len)
{
	text	   *t = palloc(len + VARHDRSZ);

	SET_VARSIZE(t, len + VARHDRSZ);
	memcpy(VARDATA(t), s, len);
	return t;
}

text *
cstring_to_text(const char *s)
{
	return cstring_to_text_with_len(s, strlen(s));
}

char *
text_to_cstring(const text *t)
{
	int			len = VARSIZE_ANY_EXHDR(t);
	char	   *s = palloc(len + 1);

	memcpy(s, VARDATA_ANY(t), len);
	s[len] = '\0';
	return s;
}

text *
shim_text(const char *data, size_t len)
{
	return cstring_to_text_with_len(data, (int) len);
}

/* ---------- dates and times (import.c) ---------- */

/*
 * The harness reads every local time as UTC: time-zone rules are
 * PostgreSQL's own code, exercised by the regression suites; what is fuzzed
 * here is the parsing around them.  pg_tzset knows "UTC" only.
 */
static int	shim_tz_object;

pg_tz *
pg_tzset(const char *tzname)
{
	return pg_strcasecmp(tzname, "UTC") == 0 ? (pg_tz *) &shim_tz_object : NULL;
}

int
DetermineTimeZoneOffset(struct pg_tm *tm, pg_tz *tzp)
{
	tm->tm_isdst = 0;
	tm->tm_gmtoff = 0;
	return 0;
}

/*
 * The database encoding: UTF8, a server's usual one.  The parsers check each
 * line with pg_encoding_verifymbstr (src/common/wchar.c, linked from
 * libpgcommon.a, the server's own code) and reject one that is not valid.
 */
int
GetDatabaseEncoding(void)
{
	return PG_UTF8;
}

const char *
GetDatabaseEncodingName(void)
{
	return "UTF8";
}

const int	day_tab[2][13] = {
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 0},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 0}
};

/* Julian day number of a proleptic Gregorian date (datetime.c's formula). */
int
date2j(int y, int m, int d)
{
	int			julian;
	int			century;

	if (m > 2)
	{
		m += 1;
		y += 4800;
	}
	else
	{
		m += 13;
		y += 4799;
	}
	century = y / 100;
	julian = y * 365 - 32167;
	julian += y / 4 - century + century / 4;
	julian += 7834 * m / 256 + d;
	return julian;
}

/* timestamp.c's tm2timestamp: -1 when out of range. */
int
tm2timestamp(struct pg_tm *tm, fsec_t fsec, int *tzp, Timestamp *result)
{
	int64		date,
				time;

	*result = 0;
	if (!IS_VALID_JULIAN(tm->tm_year, tm->tm_mon, tm->tm_mday))
		return -1;
	date = date2j(tm->tm_year, tm->tm_mon, tm->tm_mday) - POSTGRES_EPOCH_JDATE;
	time = ((int64) (tm->tm_hour * MINS_PER_HOUR + tm->tm_min) * SECS_PER_MINUTE + tm->tm_sec)
		* USECS_PER_SEC + fsec;
	*result = date * USECS_PER_DAY + time;
	if ((*result - time) / USECS_PER_DAY != date)
		return -1;
	if ((*result < 0 && date > 0) || (*result > 0 && date < -1))
		return -1;
	if (tzp != NULL)
		*result -= (int64) -(*tzp) * USECS_PER_SEC;
	if (!IS_VALID_TIMESTAMP(*result))
		return -1;
	return 0;
}

/* ---------- composite results (import.c) ---------- */

int			shim_result_natts;
void		(*shim_check_row) (int natts, const Datum *values, const bool *nulls);

TypeFuncClass
get_call_result_type(FunctionCallInfo fcinfo, Oid *resultTypeId, TupleDesc *resultTupleDesc)
{
	TupleDesc	desc = palloc0(offsetof(struct TupleDescData, attrs)
							   + sizeof(FormData_pg_attribute) * Max(shim_result_natts, 1));

	desc->natts = shim_result_natts;
	desc->tdtypeid = RECORDOID;
	desc->tdtypmod = -1;
	if (resultTypeId)
		*resultTypeId = RECORDOID;
	if (resultTupleDesc)
		*resultTupleDesc = desc;
	return TYPEFUNC_COMPOSITE;
}

TupleDesc
CreateTupleDescCopy(TupleDesc tupdesc)
{
	Size		size = offsetof(struct TupleDescData, attrs)
		+ sizeof(FormData_pg_attribute) * Max(tupdesc->natts, 1);
	TupleDesc	copy = palloc(size);

	memcpy(copy, tupdesc, size);
	return copy;
}

TupleDesc
BlessTupleDesc(TupleDesc tupdesc)
{
	return tupdesc;
}

HeapTuple
heap_form_tuple(TupleDesc tupleDescriptor, Datum *values, bool *isnull)
{
	HeapTuple	tuple = palloc0(sizeof(HeapTupleData) + sizeof(HeapTupleHeaderData));

	if (shim_check_row)
		shim_check_row(tupleDescriptor->natts, values, isnull);
	tuple->t_data = (HeapTupleHeader) ((char *) tuple + sizeof(HeapTupleData));
	return tuple;
}

Datum
HeapTupleHeaderGetDatum(HeapTupleHeader tuple)
{
	return PointerGetDatum(tuple);
}

/* ---------- never reached by the harnesses ---------- */

/*
 * import.c's whole-table parse (_sacct_parse) reads the staging table with
 * SPI and returns a tuplestore; the harnesses call the per-line parsers,
 * which share every parsing function with it but none of these.  They are
 * defined so the file links, and abort if a harness ever reaches one.
 */
static pg_attribute_noreturn() void
shim_unreachable(const char *name)
{
	fprintf(stderr, "shim: %s called, but the harnesses do not provide it\n", name);
	abort();
}

uint64		SPI_processed;
SPITupleTable *SPI_tuptable;
int			SPI_result;

int SPI_connect(void) { shim_unreachable("SPI_connect"); }
int SPI_finish(void) { shim_unreachable("SPI_finish"); }
int SPI_execute(const char *src, bool read_only, long tcount) { shim_unreachable("SPI_execute"); }
void InitMaterializedSRF(FunctionCallInfo fcinfo, bits32 flags) { shim_unreachable("InitMaterializedSRF"); }
SPIPlanPtr SPI_prepare(const char *src, int nargs, Oid *argtypes) { shim_unreachable("SPI_prepare"); }
Portal SPI_cursor_open(const char *name, SPIPlanPtr plan, Datum *Values, const char *Nulls, bool read_only) { shim_unreachable("SPI_cursor_open"); }
void SPI_cursor_fetch(Portal portal, bool forward, long count) { shim_unreachable("SPI_cursor_fetch"); }
void SPI_cursor_close(Portal portal) { shim_unreachable("SPI_cursor_close"); }
void SPI_freetuptable(SPITupleTable *tuptable) { shim_unreachable("SPI_freetuptable"); }
Datum SPI_getbinval(HeapTuple tuple, TupleDesc tupdesc, int fnumber, bool *isnull) { shim_unreachable("SPI_getbinval"); }
const char *SPI_result_code_string(int code) { shim_unreachable("SPI_result_code_string"); }
char *get_namespace_name(Oid nspid) { shim_unreachable("get_namespace_name"); }
char *get_rel_name(Oid relid) { shim_unreachable("get_rel_name"); }
Oid get_rel_namespace(Oid relid) { shim_unreachable("get_rel_namespace"); }
char *quote_qualified_identifier(const char *qualifier, const char *ident) { shim_unreachable("quote_qualified_identifier"); }
struct varlena *pg_detoast_datum_copy(struct varlena *datum) { shim_unreachable("pg_detoast_datum_copy"); }
void tuplestore_putvalues(Tuplestorestate *state, TupleDesc tdesc, Datum *values, bool *isnull) { shim_unreachable("tuplestore_putvalues"); }
void tuplestore_clear(Tuplestorestate *state) { shim_unreachable("tuplestore_clear"); }
MemoryContext AllocSetContextCreateInternal(MemoryContext parent, const char *name, Size minContextSize, Size initBlockSize, Size maxBlockSize) { shim_unreachable("AllocSetContextCreate"); }
void MemoryContextReset(MemoryContext context) { shim_unreachable("MemoryContextReset"); }
void MemoryContextDelete(MemoryContext context) { shim_unreachable("MemoryContextDelete"); }

/* ---------- the sacctmgr readers' date/time fallbacks (import.c) ---------- */

/*
 * A time that is not sacctmgr's own form is read by PostgreSQL's own
 * date/time parser (datetime.c), exercised by the regression suites; here
 * every such value is refused as the cast refuses one it cannot read, so
 * that the reject path around it is fuzzed.
 */
int
ParseDateTime(const char *timestr, char *workbuf, size_t buflen, char **field, int *ftype, int maxfields, int *numfields)
{
	*numfields = 0;
	return DTERR_BAD_FORMAT;
}

int DecodeDateTime(char **field, int *ftype, int nf, int *dtype, struct pg_tm *tm, fsec_t *fsec, int *tzp) { shim_unreachable("DecodeDateTime"); }
int timestamp2tm(Timestamp dt, int *tzp, struct pg_tm *tm, fsec_t *fsec, const char **tzn, pg_tz *attimezone) { shim_unreachable("timestamp2tm"); }
Timestamp SetEpochTimestamp(void) { shim_unreachable("SetEpochTimestamp"); }

/* An instant in a message: its microseconds (the output format is
 * PostgreSQL's, not what is fuzzed). */
Datum
timestamptz_out(PG_FUNCTION_ARGS)
{
	PG_RETURN_CSTRING(psprintf(INT64_FORMAT, (int64) PG_GETARG_TIMESTAMPTZ(0)));
}

Datum
DirectFunctionCall1Coll(PGFunction func, Oid collation, Datum arg1)
{
	LOCAL_FCINFO(fcinfo, 1);

	InitFunctionCallInfoData(*fcinfo, NULL, 1, collation, NULL, NULL);
	fcinfo->args[0].value = arg1;
	fcinfo->args[0].isnull = false;
	return (*func) (fcinfo);
}
