/*
 * pbs.c — MetaCentrum's processor-equivalent usage and the PBS fairshare
 * tree (docs/policies.md#metacentrum-usage, docs/policies.md#decay,
 * docs/policies.md#metacentrum-and-pbs; reference: docs/metacentrum.md).
 *
 * Three pieces, each read from OpenPBS src/scheduler/fairshare.c(pp):
 *
 * 1. Processor equivalent (PE): how much of a node a job holds, in CPUs.
 *    Per resource r (CPUs, memory, scratch, GPUs) the term is
 *    used_r / node_total_r × node_cpus × weight_r; MetaCentrum adds the
 *    terms ('sum'), Maui takes the largest ('max').  Usage is then
 *    spec × walltime × PE.
 *
 * 2. decayed_usage_pbs: an entity's usage as the PBS scheduler keeps it.
 *    It starts at 1 (FAIRSHARE_MIN_USAGE), jobs add to it, and at every
 *    fairshare_decay_time boundary decay_fairshare_tree() multiplies it by
 *    fairshare_decay_factor and raises it back to 1 if it fell below.
 *    Because of that floor the result is not a sum of independently
 *    decayed charges (decay.c's decayed_usage_step): when the floor bit
 *    matters, so it needs the charges per interval, in time order.  The
 *    state therefore keeps charges per decay slot (a sparse, mergeable
 *    map, so the combine function stays commutative); the final function
 *    replays the intervals in order.
 *
 * 3. The PBS tree, as window functions over (id, parent_id, shares, usage,
 *    is_user) rows, one tree per window partition:
 *      perc        product of shares / Σ sibling shares down the path
 *                  (calc_fair_share_perc; 0 below a zero-share level);
 *      usage       a user's own usage, never below 1; a group's usage is
 *                  1 plus the usage of every user beneath it that is above
 *                  the floor, which is how read_usage() rebuilds groups
 *                  from the usage file (users at 1 are not in the file);
 *      tree usage  a child of the root: usage / root usage; deeper:
 *                  u + (parent tree usage − u) × group share, u =
 *                  usage / root usage (calc_usage_factor);
 *      factor      2^(−tree usage / perc) (the fairshare_factor keyword);
 *      rank        the order of compare_path(): at the first level where
 *                  two paths differ, lower usage / perc runs first, zero
 *                  perc runs last.
 *    Everything is computed once per partition, iteratively (no
 *    recursion), in O(n log n).
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "windowapi.h"

#include "fairshare.h"

/* PBS's FAIRSHARE_MIN_USAGE: no entity's usage is ever below this. */
#define PBS_MIN_USAGE	1.0


/* ====================================================================
 * 1. Processor equivalent and usage (MetaCentrum)
 * ==================================================================== */

enum
{
	PE_CPU,
	PE_MEM,
	PE_SCRATCH,
	PE_GPU,
	PE_NRES
};

static const char *const pe_used_name[PE_NRES] = {"cpus", "mem_mb", "scratch_mb", "gpus"};
static const char *const pe_node_name[PE_NRES] = {"node_cpus", "node_mem_mb", "node_scratch_mb", "node_gpus"};
static const char *const pe_weight_name[PE_NRES] = {"weight_cpu", "weight_mem", "weight_scratch", "weight_gpu"};

typedef struct PeParts
{
	double		part[PE_NRES];
	double		total;
} PeParts;

/*
 * Arguments (all non-NULL, the SQL functions are STRICT):
 *   0..3  cpus, mem_mb, scratch_mb, gpus         what the job holds (all nodes)
 *   4..7  node_cpus, node_mem_mb, node_scratch_mb, node_gpus   one node
 *   8     nodes
 *   9     mode 'sum' | 'max'
 *   10..13 weights
 */
static PeParts
pe_compute(FunctionCallInfo fcinfo)
{
	PeParts		pe;
	double		used[PE_NRES],
				cap[PE_NRES],
				weight[PE_NRES];
	double		nodes = PG_GETARG_FLOAT8(8);
	char	   *mode = text_to_cstring(PG_GETARG_TEXT_PP(9));
	bool		max_mode;
	int			r;

	if (strcmp(mode, "sum") == 0)
		max_mode = false;
	else if (strcmp(mode, "max") == 0)
		max_mode = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode must be 'sum' or 'max', not '%s'", mode),
				 errhint("'sum' adds the four resources (MetaCentrum's formula); 'max' takes the largest (Maui's processor equivalent).")));

	for (r = 0; r < PE_NRES; r++)
	{
		used[r] = PG_GETARG_FLOAT8(r);
		cap[r] = PG_GETARG_FLOAT8(4 + r);
		weight[r] = PG_GETARG_FLOAT8(10 + r);
		fs_check_nonneg(used[r], pe_used_name[r]);
		fs_check_nonneg(cap[r], pe_node_name[r]);
		fs_check_nonneg(weight[r], pe_weight_name[r]);
	}
	if (!(cap[PE_CPU] > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node_cpus must be positive, not %s", fs_float_text(cap[PE_CPU])),
				 errhint("The processor equivalent counts in CPUs of the job's node: pass the node's CPU count.")));
	fs_check_nonneg(nodes, "nodes");
	if (!(nodes > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nodes must be positive, not %s", fs_float_text(nodes)),
				 errhint("A job runs on at least one node.")));

	pe.total = 0;
	for (r = 0; r < PE_NRES; r++)
	{
		if (cap[r] == 0)
		{
			if (used[r] > 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the job holds %s %s but the node has none (%s 0)",
								pe_used_name[r], fs_float_text(used[r]), pe_node_name[r]),
						 errhint("Check the node shape of the job's partition, or pass %s 0.",
								 pe_used_name[r])));
			pe.part[r] = 0;
		}
		else
		{
			if (used[r] > nodes * cap[r])
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s %s is more than %s node(s) hold (%s × %s %s)",
								pe_used_name[r], fs_float_text(used[r]), fs_float_text(nodes),
								fs_float_text(nodes), pe_node_name[r], fs_float_text(cap[r])),
						 errhint("A job cannot hold more than its nodes have; for a multi-node job pass nodes.")));
			pe.part[r] = used[r] / cap[r] * cap[PE_CPU] * weight[r];
		}
		if (max_mode)
			pe.total = Max(pe.total, pe.part[r]);
		else
			pe.total += pe.part[r];
	}
	if (isinf(pe.total))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("processor equivalent is out of range for float8"),
				 errhint("Check the weights and the node shape.")));
	return pe;
}

PG_FUNCTION_INFO_V1(fs_processor_equivalent);

Datum
fs_processor_equivalent(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(pe_compute(fcinfo).total);
}

PG_FUNCTION_INFO_V1(fs_processor_equivalent_parts);

/* The four terms and the total, as OUT parameters (cpu, mem, scratch, gpu, total). */
Datum
fs_processor_equivalent_parts(PG_FUNCTION_ARGS)
{
	PeParts		pe = pe_compute(fcinfo);
	TupleDesc	tupdesc;
	Datum		values[PE_NRES + 1];
	bool		nulls[PE_NRES + 1] = {false};
	int			r;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "processor_equivalent_parts: return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	for (r = 0; r < PE_NRES; r++)
		values[r] = Float8GetDatum(pe.part[r]);
	values[PE_NRES] = Float8GetDatum(pe.total);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

PG_FUNCTION_INFO_V1(fs_metacentrum_usage);

/* spec × walltime (seconds) × PE: MetaCentrum's usage of one job (or one resource). */
Datum
fs_metacentrum_usage(PG_FUNCTION_ARGS)
{
	double		pe = PG_GETARG_FLOAT8(0);
	double		walltime = fs_interval_seconds(PG_GETARG_INTERVAL_P(1));
	double		spec = PG_GETARG_FLOAT8(2);
	double		u;

	fs_check_nonneg(pe, "pe");
	if (walltime < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("walltime must not be negative, not %s",
						DatumGetCString(DirectFunctionCall1(interval_out, PG_GETARG_DATUM(1)))),
				 errhint("walltime is how long the job ran: end − start.")));
	fs_check_nonneg(spec, "spec");
	if (!(spec > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("spec must be positive, not %s", fs_float_text(spec)),
				 errhint("spec is the per-CPU speed of the job's node (3 to 10 at MetaCentrum).")));
	u = spec * walltime * pe;
	if (isinf(u))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("usage is out of range for float8")));
	PG_RETURN_FLOAT8(u);
}

/* ====================================================================
 * 2. decayed_usage_pbs: step decay with PBS's floor of 1
 * ==================================================================== */

/*
 * Charges are kept per decay slot (slot k = [k·I, (k+1)·I) since
 * 1970-01-01 UTC, as in decay.c).  A job that runs across whole slots
 * charges each of them the same amount; rather than one entry per slot
 * it adds `rate` from its first whole slot and removes it at the slot
 * where it ends (`active` counts the jobs running, so that the rate is
 * exactly 0 again when none is).
 */
typedef struct PbsCharge
{
	int64		slot;
	double		point;			/* charged in this slot */
	double		rate;			/* change of the per-slot charge from here on */
	int64		active;			/* change of the count of jobs charging a rate */
} PbsCharge;

typedef struct PbsDecayState
{
	int64		rows;
	bool		decays;			/* false: decay_interval or decay_factor NULL */
	double		interval;		/* seconds */
	double		factor;
	TimestampTz as_of;
	int64		as_of_slot;
	int			ncharges;
	int			maxcharges;
	PbsCharge  *charges;
} PbsDecayState;

#define PBS_STATE_INIT_CHARGES	16
#define PBS_MAX_SLOT	((double) PG_INT64_MAX / 4)

static int
charge_cmp(const void *a, const void *b)
{
	int64		x = ((const PbsCharge *) a)->slot;
	int64		y = ((const PbsCharge *) b)->slot;

	return (x > y) - (x < y);
}

/* Sort by slot and add up entries of the same slot, in place. */
static int
charges_compact(PbsCharge *c, int n)
{
	int			i,
				out = 0;

	if (n <= 1)
		return n;
	qsort(c, n, sizeof(PbsCharge), charge_cmp);
	for (i = 1; i < n; i++)
	{
		if (c[i].slot == c[out].slot)
		{
			c[out].point += c[i].point;
			c[out].rate += c[i].rate;
			c[out].active += c[i].active;
		}
		else
			c[++out] = c[i];
	}
	return out + 1;
}

/*
 * Make room for k more charges.  When full, first merge entries of the
 * same slot (distinct slots are few: one per decay interval of history),
 * and grow only if that did not free half of the array.  repalloc keeps
 * the array in the context it was allocated in, the state's.
 */
static void
state_reserve(PbsDecayState *st, int k)
{
	Size		newmax;

	if (st->ncharges + k <= st->maxcharges)
		return;
	st->ncharges = charges_compact(st->charges, st->ncharges);
	newmax = st->maxcharges;
	while ((Size) st->ncharges + k > newmax / 2)
	{
		newmax *= 2;
		if (newmax * sizeof(PbsCharge) > MaxAllocSize)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("decayed_usage_pbs: too many distinct decay intervals in one group"),
					 errhint("Use a longer decay_interval, or group the rows more finely.")));
	}
	if (newmax != (Size) st->maxcharges)
	{
		st->maxcharges = (int) newmax;
		st->charges = repalloc(st->charges, newmax * sizeof(PbsCharge));
	}
}

static void
state_add(PbsDecayState *st, int64 slot, double point, double rate, int64 active)
{
	PbsCharge  *c;

	state_reserve(st, 1);
	c = &st->charges[st->ncharges++];
	c->slot = slot;
	c->point = point;
	c->rate = rate;
	c->active = active;
}

static PbsDecayState *
state_new(MemoryContext cxt, int maxcharges)
{
	PbsDecayState *st = MemoryContextAllocZero(cxt, sizeof(PbsDecayState));

	st->maxcharges = Max(maxcharges, PBS_STATE_INIT_CHARGES);
	st->charges = MemoryContextAlloc(cxt, st->maxcharges * sizeof(PbsCharge));
	return st;
}

static int64
slot_of(const PbsDecayState *st, double t)
{
	double		k;

	if (!st->decays)
		return 0;
	k = floor((t + UNIX_EPOCH_OFFSET_S) / st->interval);
	if (fabs(k) > PBS_MAX_SLOT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("decay_interval is too short for instants this far from 1970"),
				 errhint("Use a decay_interval of at least a second.")));
	return (int64) k;
}

/* Start of slot k, in seconds since 2000 (PostgreSQL's epoch). */
static double
slot_start(const PbsDecayState *st, int64 k)
{
	return (double) k * st->interval - UNIX_EPOCH_OFFSET_S;
}


/*
 * The state for this row: created on the first row with the decay
 * parameters and as_of, which every later row must repeat.
 */
static PbsDecayState *
state_for_row(FunctionCallInfo fcinfo, int as_of_arg)
{
	MemoryContext aggcxt;
	PbsDecayState *st;
	bool		decays;
	double		iv = 0,
				f = 1;
	TimestampTz as_of;
	int			iv_arg = as_of_arg + 1;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "decayed_usage_pbs called in non-aggregate context");

	(void) fs_instant_arg(fcinfo, as_of_arg, "as_of");
	as_of = PG_GETARG_TIMESTAMPTZ(as_of_arg);
	decays = !PG_ARGISNULL(iv_arg) && !PG_ARGISNULL(iv_arg + 1);
	if (decays)
	{
		iv = fs_interval_seconds(PG_GETARG_INTERVAL_P(iv_arg));
		f = PG_GETARG_FLOAT8(iv_arg + 1);
		if (!(iv > 0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("decay_interval must be positive, not %s",
							DatumGetCString(DirectFunctionCall1(interval_out, PG_GETARG_DATUM(iv_arg)))),
					 errhint("PBS's default fairshare_decay_time is '24 hours'; pass NULL for no decay.")));
		if (isnan(f) || f < 0 || f > 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("decay_factor must be between 0 and 1, not %s", fs_float_text(f)),
					 errhint("PBS's default fairshare_decay_factor is 0.5.")));
	}

	if (PG_ARGISNULL(0))
	{
		st = state_new(aggcxt, 0);
		st->decays = decays;
		st->interval = iv;
		st->factor = f;
		st->as_of = as_of;
		st->as_of_slot = slot_of(st, (double) as_of / USECS_PER_SEC);
	}
	else
	{
		st = (PbsDecayState *) PG_GETARG_POINTER(0);
		if (st->decays != decays || st->interval != iv || st->factor != f)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("decayed_usage_pbs: decay_interval and decay_factor differ between rows of one group"),
					 errhint("Pass the same decay parameters (e.g. the cluster's) for every row of a group.")));
		if (st->as_of != as_of)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("decayed_usage_pbs: as_of differs between rows of one group"),
					 errhint("Decay every row of a group to the same instant.")));
	}
	st->rows++;
	return st;
}


PG_FUNCTION_INFO_V1(fs_pbs_decay_point_accum);

/* (state, usage, at, as_of, decay_interval, decay_factor) */
Datum
fs_pbs_decay_point_accum(PG_FUNCTION_ARGS)
{
	PbsDecayState *st;
	double		u,
				at;

	/* rows without usage or instant are ignored, as sum() ignores NULLs */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	st = state_for_row(fcinfo, 3);
	u = fs_usage_arg(fcinfo, 1);
	at = fs_instant_arg(fcinfo, 2, "at");
	if (at <= (double) st->as_of / USECS_PER_SEC && u > 0)
		state_add(st, slot_of(st, at), u, 0, 0);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(fs_pbs_decay_span_accum);

/*
 * (state, usage, started, ended, as_of, decay_interval, decay_factor):
 * usage accrued uniformly over [started, ended]; the part up to as_of is
 * charged to the slots it falls in.
 */
Datum
fs_pbs_decay_span_accum(PG_FUNCTION_ARGS)
{
	PbsDecayState *st;
	double		u,
				s,
				e,
				as_of,
				m,
				per_s;
	int64		ks,
				km;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	st = state_for_row(fcinfo, 4);
	u = fs_usage_arg(fcinfo, 1);
	s = fs_instant_arg(fcinfo, 2, "started");
	e = fs_instant_arg(fcinfo, 3, "ended");
	as_of = (double) st->as_of / USECS_PER_SEC;
	if (e < s)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ended (%s) is before started (%s)",
						pstrdup(timestamptz_to_str(PG_GETARG_TIMESTAMPTZ(3))),
						/* timestamptz_to_str returns a static buffer: copy the first */
						timestamptz_to_str(PG_GETARG_TIMESTAMPTZ(2))),
				 errhint("A job's usage accrues between its start and its end.")));
	if (u == 0 || s > as_of || (s == as_of && e > s))
		PG_RETURN_POINTER(st);
	if (e == s)					/* an instant */
	{
		state_add(st, slot_of(st, s), u, 0, 0);
		PG_RETURN_POINTER(st);
	}
	m = Min(e, as_of);
	ks = slot_of(st, s);
	km = slot_of(st, m);
	if (ks == km)
	{
		/* keep m == e exact: the whole usage, not u / len × len */
		state_add(st, ks, m == e ? u : u * ((m - s) / (e - s)), 0, 0);
		PG_RETURN_POINTER(st);
	}
	per_s = u / (e - s);
	state_reserve(st, 4);
	state_add(st, ks, per_s * (slot_start(st, ks + 1) - s), 0, 0);
	state_add(st, km, per_s * (m - slot_start(st, km)), 0, 0);
	if (km > ks + 1)
	{
		state_add(st, ks + 1, 0, per_s * st->interval, 1);
		state_add(st, km, 0, -per_s * st->interval, -1);
	}
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(fs_pbs_decay_combine);

Datum
fs_pbs_decay_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	PbsDecayState *a,
			   *b;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "decayed_usage_pbs combine called in non-aggregate context");
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(PG_GETARG_POINTER(0));
	}
	b = (PbsDecayState *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
	{
		/* copy b into the aggregate context; never return b itself */
		a = state_new(aggcxt, b->ncharges);
		a->rows = b->rows;
		a->decays = b->decays;
		a->interval = b->interval;
		a->factor = b->factor;
		a->as_of = b->as_of;
		a->as_of_slot = b->as_of_slot;
		memcpy(a->charges, b->charges, b->ncharges * sizeof(PbsCharge));
		a->ncharges = b->ncharges;
		PG_RETURN_POINTER(a);
	}
	a = (PbsDecayState *) PG_GETARG_POINTER(0);
	if (a->decays != b->decays || a->interval != b->interval || a->factor != b->factor
		|| a->as_of != b->as_of)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("decayed_usage_pbs: as_of or the decay parameters differ between rows of one group")));
	state_reserve(a, b->ncharges);
	memcpy(a->charges + a->ncharges, b->charges, b->ncharges * sizeof(PbsCharge));
	a->ncharges += b->ncharges;
	a->rows += b->rows;
	PG_RETURN_POINTER(a);
}

/* version byte of the serialized state, in case its layout ever changes */
#define PBS_STATE_VERSION	1

PG_FUNCTION_INFO_V1(fs_pbs_decay_serial);

Datum
fs_pbs_decay_serial(PG_FUNCTION_ARGS)
{
	PbsDecayState *st = (PbsDecayState *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	int			i,
				n;

	/* compacting only merges entries of one slot: the value is unchanged */
	n = charges_compact(st->charges, st->ncharges);
	st->ncharges = n;
	pq_begintypsend(&buf);
	pq_sendbyte(&buf, PBS_STATE_VERSION);
	pq_sendint64(&buf, st->rows);
	pq_sendbyte(&buf, st->decays ? 1 : 0);
	pq_sendfloat8(&buf, st->interval);
	pq_sendfloat8(&buf, st->factor);
	pq_sendint64(&buf, st->as_of);
	pq_sendint64(&buf, st->as_of_slot);
	pq_sendint32(&buf, n);
	for (i = 0; i < n; i++)
	{
		pq_sendint64(&buf, st->charges[i].slot);
		pq_sendfloat8(&buf, st->charges[i].point);
		pq_sendfloat8(&buf, st->charges[i].rate);
		pq_sendint64(&buf, st->charges[i].active);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(fs_pbs_decay_deserial);

/* Into the current (short-lived) context: the combine function copies it. */
Datum
fs_pbs_decay_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	StringInfoData buf;
	PbsDecayState *st;
	int			i,
				n;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
	if (pq_getmsgbyte(&buf) != PBS_STATE_VERSION)
		elog(ERROR, "decayed_usage_pbs: unknown serialized state version");
	st = palloc0(sizeof(PbsDecayState));
	st->rows = pq_getmsgint64(&buf);
	st->decays = pq_getmsgbyte(&buf) != 0;
	st->interval = pq_getmsgfloat8(&buf);
	st->factor = pq_getmsgfloat8(&buf);
	st->as_of = pq_getmsgint64(&buf);
	st->as_of_slot = pq_getmsgint64(&buf);
	n = pq_getmsgint(&buf, 4);
	if (n < 0 || (Size) n > MaxAllocSize / sizeof(PbsCharge))
		elog(ERROR, "decayed_usage_pbs: corrupt serialized state");
	st->maxcharges = Max(n, PBS_STATE_INIT_CHARGES);
	st->charges = palloc(st->maxcharges * sizeof(PbsCharge));
	for (i = 0; i < n; i++)
	{
		st->charges[i].slot = pq_getmsgint64(&buf);
		st->charges[i].point = pq_getmsgfloat8(&buf);
		st->charges[i].rate = pq_getmsgfloat8(&buf);
		st->charges[i].active = pq_getmsgint64(&buf);
	}
	st->ncharges = n;
	pq_getmsgend(&buf);
	pfree(buf.data);
	PG_RETURN_POINTER(st);
}

/*
 * g interval boundaries in a row, each charging r after the decay:
 * v ← max(1, f·v) + r, g times.  Closed form per stretch, so that a long
 * gap costs O(1): while f·v ≥ 1 the step is linear, v_j = v* + f^j (v − v*)
 * with v* = r / (1 − f); once the floor binds, v = 1 + r, and it stays
 * there if f·(1 + r) < 1.  The sequence is monotone (the step map is
 * monotone), so the floor starts binding at most once.
 */
static double
floored_steps(double v, double f, double r, int64 g)
{
	double		vstar;

	if (g <= 0)
		return v;
	if (f >= 1.0)
		return v + (double) g * r;	/* v >= 1 always: the floor never binds */
	if (f <= 0.0)
		return PBS_MIN_USAGE + r;
	vstar = r / (1.0 - f);
	while (g > 0)
	{
		double		q;
		int64		p;

		if (f * v < PBS_MIN_USAGE)
		{
			v = PBS_MIN_USAGE + r;
			g--;
			if (f * v < PBS_MIN_USAGE)
				return v;		/* a fixed point of the floored step */
			continue;
		}
		/* linear from here while f·v stays >= 1 */
		if (v <= vstar || f * vstar >= PBS_MIN_USAGE)
			return vstar + pow(f, (double) g) * (v - vstar);
		/* v decreases towards v* < 1/f: p linear steps until f·v < 1 */
		q = (PBS_MIN_USAGE / f - vstar) / (v - vstar);
		p = (int64) floor(log(q) / log(f)) + 1;
		if (p < 1)
			p = 1;
		/* correct the logarithm's rounding with the test itself */
		while (p > 1 && f * (vstar + pow(f, (double) (p - 1)) * (v - vstar)) < PBS_MIN_USAGE)
			p--;
		while (f * (vstar + pow(f, (double) p) * (v - vstar)) >= PBS_MIN_USAGE)
			p++;
		if (p >= g)
			return vstar + pow(f, (double) g) * (v - vstar);
		v = vstar + pow(f, (double) p) * (v - vstar);
		g -= p;
	}
	return v;
}

PG_FUNCTION_INFO_V1(fs_pbs_decay_final);

/*
 * Replay the slots in time order from the first charge to as_of's slot:
 * the entity is at 1 before its first charge; in each slot v ← max(1, f·v)
 * + charges of the slot.  Rows but no charge up to as_of: 1.
 */
Datum
fs_pbs_decay_final(PG_FUNCTION_ARGS)
{
	PbsDecayState *st;
	PbsCharge  *c;
	int			n,
				i;
	double		v = PBS_MIN_USAGE,
				f,
				rate = 0;
	int64		active = 0,
				cur;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (PbsDecayState *) PG_GETARG_POINTER(0);
	if (st->rows == 0)
		PG_RETURN_NULL();
	if (st->ncharges == 0)
		PG_RETURN_FLOAT8(PBS_MIN_USAGE);
	/* work on a copy: the final function must leave the state as it was */
	c = palloc(st->ncharges * sizeof(PbsCharge));
	memcpy(c, st->charges, st->ncharges * sizeof(PbsCharge));
	n = charges_compact(c, st->ncharges);
	f = st->decays ? st->factor : 1.0;

	cur = c[0].slot - 1;		/* v = 1 at the end of the slot before */
	for (i = 0; i < n; i++)
	{
		/* whole slots between: only running jobs charge them */
		v = floored_steps(v, f, rate, c[i].slot - 1 - cur);
		active += c[i].active;
		rate = active == 0 ? 0 : rate + c[i].rate;
		v = Max(PBS_MIN_USAGE, f * v) + c[i].point + rate;
		cur = c[i].slot;
	}
	v = floored_steps(v, f, rate, st->as_of_slot - cur);
	pfree(c);
	if (isinf(v))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("decayed_usage_pbs: usage is out of range for float8")));
	PG_RETURN_FLOAT8(v);
}

/* ====================================================================
 * 3. The PBS fairshare tree (window functions)
 * ==================================================================== */

typedef enum PbsTreeOutput
{
	PBS_OUT_PERC,
	PBS_OUT_USAGE,
	PBS_OUT_TREE_USAGE,
	PBS_OUT_FACTOR,
	PBS_OUT_RANK
} PbsTreeOutput;

typedef struct PbsTree
{
	int64		n;
	char	  **id;
	char	  **parent_id;		/* NULL for the root */
	const char *ids;			/* the id arena */
	Size	   *id_off;			/* row i's id in it (until linked) */
	uint32	   *id_hash;		/* its hash, and its parent id's (tree.c's) */
	uint32	   *parent_hash;
	char	   *block;			/* the per-row arrays are carved from it */
	char	   *block_end;
	double	   *shares;
	double	   *usage;			/* as given */
	bool	   *is_user;
	int64	   *parent;			/* index, -1 for the root */
	int64		root;
	int64	   *child_start;	/* children of i: child[child_start[i] .. child_start[i+1]) */
	int64	   *child;
	int64	   *order;			/* top-down (breadth-first) order */
	/* results */
	double	   *perc;
	double	   *group_perc;
	double	   *node_usage;		/* the usage PBS holds for the node */
	double	   *tree_usage;
	double	   *factor;
	int64	   *rank;			/* 0: none (groups, root) */
} PbsTree;

static void
tree_error(const char *msg, const char *id, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg(msg, id),
			 errhint("%s", hint)));
}

/*
 * The per-row arrays of a tree are carved from one block of huge pages
 * (fs_tree_huge_alloc): at 10^6 rows they are some 200 MB, and with 4 kB
 * pages every page was first touched by a fault (docs/performance.md#fair-tree).
 * PBS_BLOCK_ARRAYS bounds the arrays of at most n + 1 entries of at most 8
 * bytes that tree_results, tree_read, tree_link and tree_compute carve (20,
 * each on a 64-byte boundary); the id index comes on top.  carve() checks.
 */
#define PBS_BLOCK_ARRAYS	24

static void *
carve(PbsTree *t, Size size)
{
	char	   *p = (char *) TYPEALIGN(64, t->block);

	if (size > (Size) (t->block_end - p))
		elog(ERROR, "PBS fairshare tree: the block of its arrays is too small");
	t->block = p + size;
	return p;
}

/* Where each row's id and parent id sit in the arenas, until they are read. */
typedef struct PbsRowTarget
{
	PbsTree    *t;
	Size	   *id_off;
	Size	   *parent_off;
} PbsRowTarget;

/* One row, rejecting NULLs, NaN and negatives (fs_tree_read's callback). */
static void
tree_check_row(void *state, int64 i, const FsTreeRow *a, const char *ids, const char *parents)
{
	PbsRowTarget *rt = (PbsRowTarget *) state;
	PbsTree    *t = rt->t;
	const char *id;

	if (a->id_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("id must not be NULL (row %lld of the window partition)", (long long) i + 1),
				 errhint("Every row of the tree needs an id.")));
	rt->id_off[i] = a->id_off;
	rt->parent_off[i] = a->parent_off;
	t->id_hash[i] = a->id_hash;
	t->parent_hash[i] = a->parent_hash;
	id = ids + a->id_off;

	if (a->is_user_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("is_user of row \"%s\" must not be NULL", id),
				 errhint("Pass true for users (fairshare entities), false for groups.")));
	t->is_user[i] = a->is_user;

	if (a->shares_null)
	{
		if (a->parent_off != FS_TREE_NO_TEXT)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("shares of row \"%s\" must not be NULL", id),
					 errhint("PBS has no Fairshare=parent: give every user and group its shares.")));
		t->shares[i] = 0;		/* the root's shares are not used */
	}
	else
	{
		t->shares[i] = a->shares;
		if (isnan(t->shares[i]) || isinf(t->shares[i]) || t->shares[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("shares of row \"%s\" must be a finite number >= 0, not %s",
							id, fs_float_text(t->shares[i])),
					 errhint("Shares are the entity's part of its group.")));
	}

	if (a->usage_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("usage of row \"%s\" must not be NULL", id),
				 errhint("Pass 0 for rows without usage, e.g. COALESCE(usage, 0).")));
	t->usage[i] = a->usage;
	if (isnan(t->usage[i]) || isinf(t->usage[i]) || t->usage[i] < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("usage of row \"%s\" must be a finite number >= 0, not %s",
						id, fs_float_text(t->usage[i])),
				 errhint("Usage is what the entity consumed, decayed.")));
}

/* Every row of the partition, read by tree.c and checked here. */
static void
tree_read(WindowObject winobj, PbsTree *t)
{
	StringInfoData ids,
				parents;
	PbsRowTarget rt;
	int64		i;

	rt.t = t;
	rt.id_off = carve(t, Max(t->n, 1) * sizeof(Size));
	rt.parent_off = carve(t, Max(t->n, 1) * sizeof(Size));
	t->id_hash = carve(t, Max(t->n, 1) * sizeof(uint32));
	t->parent_hash = carve(t, Max(t->n, 1) * sizeof(uint32));
	fs_tree_arena(&ids, t->n);
	fs_tree_arena(&parents, t->n);
	fs_tree_read(winobj, t->n, -1, &ids, &parents, tree_check_row, &rt);
	/* the arenas hold still now */
	for (i = 0; i < t->n; i++)
	{
		t->id[i] = ids.data + rt.id_off[i];
		t->parent_id[i] = rt.parent_off[i] == FS_TREE_NO_TEXT ? NULL : parents.data + rt.parent_off[i];
	}
	t->ids = ids.data;
	t->id_off = rt.id_off;
}

/*
 * Every id in an index (fairshare.h), reporting a duplicated one: the first
 * in byte order, as a sort of the ids finds it.
 */
static FsIdIndex
tree_index_ids(PbsTree *t)
{
	FsIdIndex	ix;
	uint64		slots = fs_id_index_slots(t->n);
	const char *dup = NULL;
	int64		i;

	ix.mask = (uint32) (slots - 1);
	ix.slots = carve(t, sizeof(FsIdSlot) * slots);
	memset(ix.slots, 0, sizeof(FsIdSlot) * slots);
	for (i = 0; i < t->n; i++)
	{
		FsIdSlot   *s;

		if (i + AHEAD < t->n)
			PREFETCH_W(&ix.slots[t->id_hash[i + AHEAD] & ix.mask]);
		s = fs_id_probe(&ix, t->ids, t->id[i], t->id_hash[i]);
		if (s->node != 0)
		{
			if (dup == NULL || strcmp(t->id[i], dup) < 0)
				dup = t->id[i];
			continue;
		}
		s->hash = t->id_hash[i];
		s->node = (int32) (i + 1);
		s->id_off = t->id_off[i];
	}
	if (dup != NULL)
		tree_error("id \"%s\" appears in more than one row of the tree", dup,
				   "Each user and group must appear once per window partition.");
	return ix;
}

/*
 * Link rows to parents and check the shape: unique ids, one root, every
 * parent present, users without children, no cycle.
 */
static void
tree_link(PbsTree *t)
{
	int64		n = t->n;
	FsIdIndex	ix = tree_index_ids(t);
	int64	   *fill;
	int64		i,
				head,
				tail;

	t->root = -1;
	for (i = 0; i < n; i++)
	{
		FsIdSlot   *found;

		if (i + AHEAD < n && t->parent_id[i + AHEAD] != NULL)
			PREFETCH(&ix.slots[t->parent_hash[i + AHEAD] & ix.mask]);
		if (t->parent_id[i] == NULL)
		{
			if (t->root >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("the tree has two roots: \"%s\" and \"%s\"", t->id[t->root], t->id[i]),
						 errhint("Exactly one row per window partition has parent_id NULL.")));
			t->root = i;
			t->parent[i] = -1;
			continue;
		}
		found = fs_id_probe(&ix, t->ids, t->parent_id[i], t->parent_hash[i]);
		t->parent[i] = found->node - 1;
		if (t->parent[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("parent \"%s\" of row \"%s\" is not in the tree", t->parent_id[i], t->id[i]),
					 errhint("Every parent_id must be the id of a row in the same window partition.")));
		if (t->is_user[t->parent[i]])
			tree_error("user row \"%s\" has children", t->id[t->parent[i]],
					   "Users are the leaves of the tree; put children under a group (is_user false).");
	}
	if (t->root < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the tree has no root (a row with parent_id NULL)"),
				 errhint("Exactly one row per window partition has parent_id NULL.")));
	if (t->is_user[t->root])
		tree_error("the root \"%s\" is a user", t->id[t->root],
				   "The root is the whole machine: a group (is_user false).");

	/* children, grouped by parent (counting sort) */
	t->child_start = carve(t, (n + 1) * sizeof(int64));
	memset(t->child_start, 0, (n + 1) * sizeof(int64));
	t->child = carve(t, n * sizeof(int64));
	for (i = 0; i < n; i++)
		if (t->parent[i] >= 0)
			t->child_start[t->parent[i] + 1]++;
	for (i = 0; i < n; i++)
		t->child_start[i + 1] += t->child_start[i];
	fill = carve(t, n * sizeof(int64));
	memcpy(fill, t->child_start, n * sizeof(int64));
	for (i = 0; i < n; i++)
		if (t->parent[i] >= 0)
			t->child[fill[t->parent[i]]++] = i;

	/* breadth-first from the root; whatever it misses hangs in a cycle */
	head = tail = 0;
	t->order[tail++] = t->root;
	while (head < tail)
	{
		int64		v = t->order[head++];
		int64		k;

		for (k = t->child_start[v]; k < t->child_start[v + 1]; k++)
			t->order[tail++] = t->child[k];
	}
	if (tail < n)
	{
		bool	   *reached = palloc0(n * sizeof(bool));
		int64		v;

		for (i = 0; i < tail; i++)
			reached[t->order[i]] = true;
		for (v = 0; reached[v]; v++)
			;
		/* walk up n steps: we are then on the cycle itself */
		for (i = 0; i < n; i++)
			v = t->parent[v];
		tree_error("row \"%s\" is on a cycle of the tree", t->id[v],
				   "Follow parent_id from this row: it comes back to itself instead of reaching the root.");
	}
}

/* perc, usage, tree usage and factor of every node (calc_fair_share_perc, calc_usage_factor). */
static void
tree_compute(PbsTree *t)
{
	int64		n = t->n;
	double	   *charge = carve(t, n * sizeof(double));
	double		root_usage;
	int64		i,
				k;

	memset(charge, 0, n * sizeof(double));
	/* shares: top-down */
	t->perc[t->root] = 1.0;
	t->group_perc[t->root] = 1.0;
	for (i = 0; i < n; i++)
	{
		int64		v = t->order[i];
		double		sum = 0;

		for (k = t->child_start[v]; k < t->child_start[v + 1]; k++)
			sum += t->shares[t->child[k]];
		if (isinf(sum))
			tree_error("the shares of the children of \"%s\" add up to more than float8 holds", t->id[v],
					   "Scale the shares down.");
		for (k = t->child_start[v]; k < t->child_start[v + 1]; k++)
		{
			int64		c = t->child[k];

			if (sum * t->perc[v] == 0)
				t->group_perc[c] = t->perc[c] = 0;
			else
			{
				t->group_perc[c] = t->shares[c] / sum;
				t->perc[c] = t->group_perc[c] * t->perc[v];
			}
		}
	}

	/*
	 * usage: bottom-up.  A user's usage is its own, at least 1.  What it
	 * adds to its groups is that usage only when above the floor (PBS does
	 * not write users at 1 to its usage file, so read_usage adds nothing
	 * for them); a group row's own usage is charged to it too.  A group's
	 * usage is then 1 (its own starting value) plus what lies beneath.
	 */
	for (i = n - 1; i >= 0; i--)
	{
		int64		v = t->order[i];

		if (t->is_user[v])
		{
			t->node_usage[v] = Max(PBS_MIN_USAGE, t->usage[v]);
			charge[v] = t->usage[v] > PBS_MIN_USAGE ? t->usage[v] : 0;
		}
		else
		{
			charge[v] += t->usage[v];
			t->node_usage[v] = PBS_MIN_USAGE + charge[v];
		}
		if (isinf(charge[v]) || isinf(t->node_usage[v]))
			tree_error("the usage beneath \"%s\" adds up to more than float8 holds", t->id[v],
					   "Scale the usage down (e.g. hours instead of seconds).");
		if (t->parent[v] >= 0)
			charge[t->parent[v]] += charge[v];
	}

	/* tree usage and factor: top-down */
	root_usage = t->node_usage[t->root];
	for (i = 1; i < n; i++)
	{
		int64		v = t->order[i];
		int64		p = t->parent[v];
		double		u = t->node_usage[v] / root_usage;

		if (p == t->root)
			t->tree_usage[v] = u;
		else
			t->tree_usage[v] = u + (t->tree_usage[p] - u) * t->group_perc[v];
		t->factor[v] = t->perc[v] > 0 ? exp2(-t->tree_usage[v] / t->perc[v]) : 0.0;
	}
}

/* ---------- ranking: compare_path() ---------- */

/*
 * compare_path() walks two entities' paths from the root; at the first
 * level where the nodes differ it compares usage / perc (lower first,
 * perc <= 0 after every positive one, two perc <= 0 are equal and the
 * comparison stops).  Equal values go on to the next level.  We rank by
 * that order: siblings sorted by their key; siblings with equal keys have
 * their children merged into one set, ranked together.  PBS calls two
 * paths equal when one ends first with equal keys (a user beside a group
 * of the same usage / perc); that is not transitive, so here the user
 * comes first, as Slurm's Fair Tree puts users before accounts on ties.
 */
typedef struct RankKey
{
	int			cls;			/* 0: perc > 0; 1: perc <= 0 */
	double		val;			/* usage / perc */
	int64		node;
} RankKey;

static int
rank_key_cmp(const void *a, const void *b)
{
	const RankKey *x = a,
			   *y = b;

	if (x->cls != y->cls)
		return x->cls - y->cls;
	if (x->cls == 1)
		return 0;
	if (x->val < y->val)
		return -1;
	if (x->val > y->val)
		return 1;
	return 0;
}

typedef enum RankTaskKind
{
	TASK_SET,					/* rank these siblings (and merged cousins) */
	TASK_TIE,					/* every user beneath these nodes shares one rank */
	TASK_USERS					/* these users share one rank */
} RankTaskKind;

typedef struct RankTask
{
	RankTaskKind kind;
	int64	   *nodes;
	int64		count;
} RankTask;

typedef struct RankStack
{
	RankTask   *task;
	int64		depth;
	int64		size;
} RankStack;

static void
rank_push(RankStack *s, RankTaskKind kind, int64 *nodes, int64 count)
{
	if (count == 0)
		return;
	if (s->depth == s->size)
	{
		s->size *= 2;
		s->task = repalloc(s->task, s->size * sizeof(RankTask));
	}
	s->task[s->depth].kind = kind;
	s->task[s->depth].nodes = nodes;
	s->task[s->depth].count = count;
	s->depth++;
}

/*
 * Every user in the subtrees of nodes[0..count), iteratively; stack and
 * out hold n entries each and are reused (the subtrees of different calls
 * are disjoint, so the total work is O(n)).
 */
static int64
users_beneath(const PbsTree *t, const int64 *nodes, int64 count, int64 *stack, int64 *out)
{
	int64		sp = 0,
				found = 0,
				i;

	for (i = 0; i < count; i++)
		stack[sp++] = nodes[i];
	while (sp > 0)
	{
		int64		v = stack[--sp];
		int64		k;

		if (t->is_user[v])
			out[found++] = v;
		for (k = t->child_start[v]; k < t->child_start[v + 1]; k++)
			stack[sp++] = t->child[k];
	}
	return found;
}

static void
tree_rank(PbsTree *t)
{
	RankStack	s;
	int64		placed = 0;
	int64		r = t->root;
	int64	   *tie_stack = palloc(t->n * sizeof(int64));
	int64	   *tie_users = palloc(t->n * sizeof(int64));

	s.size = 64;
	s.depth = 0;
	s.task = palloc(s.size * sizeof(RankTask));
	rank_push(&s, TASK_SET, t->child + t->child_start[r], t->child_start[r + 1] - t->child_start[r]);

	while (s.depth > 0)
	{
		RankTask	task = s.task[--s.depth];
		int64		i;

		if (task.kind == TASK_USERS || task.kind == TASK_TIE)
		{
			int64	   *users = task.nodes;
			int64		count = task.count;

			if (task.kind == TASK_TIE)
			{
				users = tie_users;
				count = users_beneath(t, task.nodes, task.count, tie_stack, tie_users);
			}
			for (i = 0; i < count; i++)
				t->rank[users[i]] = placed + 1;
			placed += count;
			continue;
		}
		else
		{
			RankKey    *key = palloc(task.count * sizeof(RankKey));
			RankTask   *todo = palloc(2 * task.count * sizeof(RankTask));
			int64		ntodo = 0,
						g,
						j;

			for (i = 0; i < task.count; i++)
			{
				int64		v = task.nodes[i];

				key[i].node = v;
				key[i].cls = t->perc[v] > 0 ? 0 : 1;
				key[i].val = key[i].cls == 0 ? t->node_usage[v] / t->perc[v] : 0;
			}
			qsort(key, task.count, sizeof(RankKey), rank_key_cmp);

			/* each run of equal keys: its users, then its groups' children */
			for (g = 0; g < task.count; g = j)
			{
				int64	   *users,
						   *kids;
				int64		nu = 0,
							nk = 0;

				for (j = g + 1; j < task.count && rank_key_cmp(&key[g], &key[j]) == 0; j++)
					;
				if (key[g].cls == 1)
				{
					int64	   *all = palloc((j - g) * sizeof(int64));

					for (i = g; i < j; i++)
						all[i - g] = key[i].node;
					todo[ntodo++] = (RankTask) {TASK_TIE, all, j - g};
					continue;
				}
				users = palloc((j - g) * sizeof(int64));
				for (i = g; i < j; i++)
					if (t->is_user[key[i].node])
						users[nu++] = key[i].node;
					else
						nk += t->child_start[key[i].node + 1] - t->child_start[key[i].node];
				kids = palloc(Max(nk, 1) * sizeof(int64));
				nk = 0;
				for (i = g; i < j; i++)
				{
					int64		v = key[i].node;
					int64		k;

					if (t->is_user[v])
						continue;
					for (k = t->child_start[v]; k < t->child_start[v + 1]; k++)
						kids[nk++] = t->child[k];
				}
				todo[ntodo++] = (RankTask) {TASK_USERS, users, nu};
				todo[ntodo++] = (RankTask) {TASK_SET, kids, nk};
			}
			/* push in reverse so that they run in order */
			while (ntodo > 0)
			{
				ntodo--;
				rank_push(&s, todo[ntodo].kind, todo[ntodo].nodes, todo[ntodo].count);
			}
			pfree(key);
			pfree(todo);
		}
	}
}

/*
 * Compute the whole tree in a scratch context and keep only the requested
 * column in partition-local memory: slot 0 says "computed", slot i + 1
 * holds row i's value, NaN for NULL (no result is ever NaN: inputs are
 * checked finite).
 */
static double *
tree_results(WindowObject winobj, PbsTreeOutput what)
{
	int64		n = WinGetPartitionRowCount(winobj);
	double	   *res = WinGetPartitionLocalMemory(winobj, (n + 1) * sizeof(double));
	MemoryContext scratch,
				old;
	PbsTree		t;
	int64		i;

	if (res[0] != 0)
		return res;

	scratch = AllocSetContextCreate(CurrentMemoryContext, "pbs fairshare tree", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(scratch);

	/* row indexes are int32 in the id index (fairshare.h) */
	if (n >= PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a PBS fairshare tree of " INT64_FORMAT " rows is too large", n),
				 errhint("Partition the window by cluster or server.")));
	memset(&t, 0, sizeof(t));
	t.n = n;
	{
		void	   *base;			/* freed with the context */
		Size		size = (Size) PBS_BLOCK_ARRAYS * ((n + 1) * 8 + 64)
			+ fs_id_index_slots(n) * sizeof(FsIdSlot) + 64;

		t.block = fs_tree_huge_alloc(size, &base);
		t.block_end = t.block + size;
	}
	t.id = carve(&t, n * sizeof(char *));
	t.parent_id = carve(&t, n * sizeof(char *));
	t.shares = carve(&t, n * sizeof(double));
	t.usage = carve(&t, n * sizeof(double));
	t.is_user = carve(&t, n * sizeof(bool));
	t.parent = carve(&t, n * sizeof(int64));
	t.order = carve(&t, n * sizeof(int64));
	/* written for every node that is read (tree_compute): not zeroed */
	t.perc = carve(&t, n * sizeof(double));
	t.group_perc = carve(&t, n * sizeof(double));
	t.node_usage = carve(&t, n * sizeof(double));
	t.tree_usage = carve(&t, n * sizeof(double));
	t.factor = carve(&t, n * sizeof(double));
	/* 0 for the rows tree_rank gives no rank */
	t.rank = what == PBS_OUT_RANK ? palloc0(n * sizeof(int64)) : NULL;

	tree_read(winobj, &t);
	tree_link(&t);
	tree_compute(&t);
	if (what == PBS_OUT_RANK)
		tree_rank(&t);

	for (i = 0; i < n; i++)
	{
		double		x;
		bool		is_root = (i == t.root);

		switch (what)
		{
			case PBS_OUT_PERC:
				x = t.perc[i];
				break;
			case PBS_OUT_USAGE:
				x = t.node_usage[i];
				break;
			case PBS_OUT_TREE_USAGE:
				x = is_root ? NAN : t.tree_usage[i];
				break;
			case PBS_OUT_FACTOR:
				x = is_root ? NAN : t.factor[i];
				break;
			case PBS_OUT_RANK:
				x = t.rank[i] > 0 ? (double) t.rank[i] : NAN;
				break;
			default:
				elog(ERROR, "unknown PBS tree output %d", (int) what);
		}
		res[i + 1] = x;
	}
	res[0] = 1;

	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	return res;
}

static Datum
tree_float_result(FunctionCallInfo fcinfo, PbsTreeOutput what)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	double	   *res = tree_results(winobj, what);
	double		x = res[WinGetCurrentPosition(winobj) + 1];

	if (isnan(x))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(x);
}

PG_FUNCTION_INFO_V1(fs_pbs_fairshare_perc);
Datum
fs_pbs_fairshare_perc(PG_FUNCTION_ARGS)
{
	return tree_float_result(fcinfo, PBS_OUT_PERC);
}

PG_FUNCTION_INFO_V1(fs_pbs_fairshare_usage);
Datum
fs_pbs_fairshare_usage(PG_FUNCTION_ARGS)
{
	return tree_float_result(fcinfo, PBS_OUT_USAGE);
}

PG_FUNCTION_INFO_V1(fs_pbs_tree_usage);
Datum
fs_pbs_tree_usage(PG_FUNCTION_ARGS)
{
	return tree_float_result(fcinfo, PBS_OUT_TREE_USAGE);
}

PG_FUNCTION_INFO_V1(fs_pbs_fairshare_factor);
Datum
fs_pbs_fairshare_factor(PG_FUNCTION_ARGS)
{
	return tree_float_result(fcinfo, PBS_OUT_FACTOR);
}

PG_FUNCTION_INFO_V1(fs_pbs_fairshare_rank);
Datum
fs_pbs_fairshare_rank(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	double	   *res = tree_results(winobj, PBS_OUT_RANK);
	double		x = res[WinGetCurrentPosition(winobj) + 1];

	if (isnan(x))
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) x);
}
