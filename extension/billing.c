/*
 * billing.c — Slurm's billable TRES (docs/policies.md#usage-and-billing,
 * docs/slurm.md#billable-tres).
 *
 * tres_billing(tres, weights, mode) parses an allocated-TRES string as sacct
 * prints it ("cpu=4,mem=16G,node=1,gres/gpu=2") and a partition's
 * TRESBillingWeights ("CPU=1.0,Mem=0.25G,GRES/gpu=2.0") and returns the
 * billing rate Slurm charges per second of the job:
 *
 *   sum (default)   Σ weight × count over every TRES except "billing";
 *   max_tres        max over node TRES (cpu, mem, node, every gres) + Σ the rest;
 *   max_tres_gres   Σ gres + max over cpu, mem, node + Σ the rest (25.05+).
 *
 * Units: memory counts are MiB, so "mem=16G" is 16384; a memory weight
 * without suffix is per MiB and "Mem=0.25G" is 0.25 per GiB.  For the other
 * TRES a suffix multiplies the count (K = 1024) and divides the weight.
 * With no weights at all Slurm bills the allocated CPUs.
 *
 * Slurm records a typed GRES twice ("gres/gpu=2,gres/gpu:a100=2").  A typed
 * entry uses its own weight when one is given; otherwise it is billed under
 * the untyped weight only if the string has no untyped entry for that GRES,
 * so the same GPUs are never billed twice.
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "utils/builtins.h"

#include "fairshare.h"

typedef struct TresItem
{
	char	   *name;			/* as written, e.g. "gres/gpu:a100" */
	double		value;			/* count in base units, or weight per base unit */
} TresItem;

typedef struct TresList
{
	int			n;
	TresItem   *items;
} TresList;

typedef enum BillingMode
{
	BILL_SUM,
	BILL_MAX_TRES,
	BILL_MAX_TRES_GRES
} BillingMode;

static bool
is_mem(const char *name)
{
	return pg_strcasecmp(name, "mem") == 0;
}

static bool
is_gres(const char *name)
{
	return pg_strncasecmp(name, "gres/", 5) == 0;
}

/* Node-level TRES for MAX_TRES: cpu, mem, node and every GRES. */
static bool
is_node_tres(const char *name)
{
	return pg_strcasecmp(name, "cpu") == 0 || is_mem(name)
		|| pg_strcasecmp(name, "node") == 0 || is_gres(name);
}

/* 1024^k for the unit suffixes K M G T P (k = 1..5), 0 when c is none. */
static int
unit_power(char c)
{
	switch (toupper((unsigned char) c))
	{
		case 'K':
			return 1;
		case 'M':
			return 2;
		case 'G':
			return 3;
		case 'T':
			return 4;
		case 'P':
			return 5;
	}
	return 0;
}

static void
malformed(const char *what, const char *input, const char *token, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid %s \"%s\": %s in \"%s\"", what, input, why, token),
			 errhint(strcmp(what, "TRES string") == 0
					 ? "A TRES string is a comma-separated list of name=count, e.g. cpu=4,mem=16G,node=1,gres/gpu=2."
					 : "TRESBillingWeights is a comma-separated list of name=weight, e.g. CPU=1.0,Mem=0.25G,GRES/gpu=2.0.")));
}

/*
 * Parse "name=number[KMGTP],..." into base units.  For counts
 * (is_weight = false) a suffix multiplies; for weights it divides, since a
 * weight is per unit.  Memory's base unit is the MiB, everything else's 1.
 */
static TresList
parse_tres_list(const char *input, const char *what, bool is_weight)
{
	TresList	list;
	char	   *copy = pstrdup(input);
	char	   *tok;
	char	   *save = NULL;
	int			cap = 8;

	list.n = 0;
	list.items = palloc(sizeof(TresItem) * cap);

	/* An all-blank string is an empty list. */
	for (tok = copy; *tok && isspace((unsigned char) *tok); tok++)
		;
	if (*tok == '\0')
		return list;

	/* strtok would silently skip empty tokens: walk the commas by hand. */
	for (tok = copy;; tok = save + 1)
	{
		int			item = list.n + 1;
		char	   *eq;
		char	   *num;
		char	   *end;
		char	   *p;
		double		v;
		int			pw;
		int			base_shift;
		int			i;

		save = strchr(tok, ',');
		if (save)
			*save = '\0';

		/* trim blanks around the token */
		while (isspace((unsigned char) *tok))
			tok++;
		for (p = tok + strlen(tok); p > tok && isspace((unsigned char) p[-1]); p--)
			p[-1] = '\0';

		if (*tok == '\0')
			malformed(what, input, psprintf("item %d", item), "empty item");
		eq = strchr(tok, '=');
		if (eq == NULL)
			malformed(what, input, tok, "missing \"=\"");
		if (eq == tok)
			malformed(what, input, tok, "missing name");
		for (p = tok; p < eq; p++)
			if (!(isalnum((unsigned char) *p) || strchr("/:_-.", *p)))
				malformed(what, input, tok, "bad character in name");

		num = eq + 1;
		if (!(isdigit((unsigned char) *num) || (*num == '.' && isdigit((unsigned char) num[1]))))
			malformed(what, input, tok, "value is not a non-negative number");
		errno = 0;
		v = strtod(num, &end);
		if (errno == ERANGE || !isfinite(v))
			malformed(what, input, tok, "value out of range");
		for (p = num; p < end; p++)
			if (!(isdigit((unsigned char) *p) || strchr(".eE+-", *p)))
				malformed(what, input, tok, "value is not a decimal number");
		pw = 0;
		if (*end != '\0')
		{
			pw = unit_power(*end);
			if (pw == 0 || end[1] != '\0')
				malformed(what, input, tok, "unknown unit suffix (use K, M, G, T or P)");
		}

		*eq = '\0';
		for (i = 0; i < list.n; i++)
			if (pg_strcasecmp(list.items[i].name, tok) == 0)
				malformed(what, input, tok, "name given twice");

		/* memory is counted in MiB: a suffix is relative to M (1024^2) */
		base_shift = is_mem(tok) ? 2 : 0;
		if (pw != 0)
		{
			double		scale = ldexp(1.0, 10 * (pw - base_shift));

			v = is_weight ? v / scale : v * scale;
		}
		if (!isfinite(v))
			malformed(what, input, tok, "value out of range");

		if (list.n == cap)
		{
			cap *= 2;
			list.items = repalloc(list.items, sizeof(TresItem) * cap);
		}
		list.items[list.n].name = tok;
		list.items[list.n].value = v;
		list.n++;

		if (save == NULL)
			break;
	}
	return list;
}

static const TresItem *
find_item(const TresList *list, const char *name, size_t len)
{
	int			i;

	for (i = 0; i < list->n; i++)
		if (strlen(list->items[i].name) == len
			&& pg_strncasecmp(list->items[i].name, name, len) == 0)
			return &list->items[i];
	return NULL;
}

/* Weight of one allocated TRES, following the typed-GRES rule above. */
static double
weight_of(const TresList *tres, const TresList *weights, const char *name)
{
	const TresItem *w = find_item(weights, name, strlen(name));
	const char *colon;

	if (w)
		return w->value;
	colon = strchr(name, ':');
	if (is_gres(name) && colon != NULL)
	{
		size_t		untyped = colon - name;

		if (find_item(tres, name, untyped) == NULL)
		{
			w = find_item(weights, name, untyped);
			if (w)
				return w->value;
		}
	}
	return 0.0;
}

static BillingMode
parse_mode(const char *mode)
{
	if (pg_strcasecmp(mode, "sum") == 0)
		return BILL_SUM;
	if (pg_strcasecmp(mode, "max_tres") == 0)
		return BILL_MAX_TRES;
	if (pg_strcasecmp(mode, "max_tres_gres") == 0)
		return BILL_MAX_TRES_GRES;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown billing mode \"%s\"", mode),
			 errhint("Use 'sum' (Slurm's default), 'max_tres' or 'max_tres_gres' (PriorityFlags=MAX_TRES / MAX_TRES_GRES).")));
	return BILL_SUM;			/* not reached */
}

static double
bill(const TresList *tres, const TresList *weights, BillingMode mode)
{
	double		global = 0.0;
	double		gres = 0.0;
	double		node_max = 0.0;
	int			i;

	/* No TRESBillingWeights: Slurm bills the allocated CPUs. */
	if (weights->n == 0)
	{
		const TresItem *cpu = find_item(tres, "cpu", 3);

		return cpu ? cpu->value : 0.0;
	}

	for (i = 0; i < tres->n; i++)
	{
		const char *name = tres->items[i].name;
		double		v;

		if (pg_strcasecmp(name, "billing") == 0)
			continue;
		v = tres->items[i].value * weight_of(tres, weights, name);

		if (mode == BILL_SUM)
			global += v;
		else if (mode == BILL_MAX_TRES_GRES && is_gres(name))
			gres += v;
		else if (is_node_tres(name))
			node_max = Max(node_max, v);
		else
			global += v;
	}
	return node_max + gres + global;
}

PG_FUNCTION_INFO_V1(fs_tres_billing);

/*
 * tres_billing(tres text, weights text, mode text) -> float8.
 * NULL tres gives NULL; NULL or empty weights bill the CPUs; NULL mode is 'sum'.
 */
Datum
fs_tres_billing(PG_FUNCTION_ARGS)
{
	char	   *tres_s;
	char	   *weights_s = NULL;
	TresList	tres;
	TresList	weights = {0, NULL};
	BillingMode mode = BILL_SUM;
	double		rate;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	tres_s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	tres = parse_tres_list(tres_s, "TRES string", false);
	if (!PG_ARGISNULL(1))
	{
		weights_s = text_to_cstring(PG_GETARG_TEXT_PP(1));
		weights = parse_tres_list(weights_s, "TRESBillingWeights", true);
	}
	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
		mode = parse_mode(text_to_cstring(PG_GETARG_TEXT_PP(2)));

	/* finite counts and weights can still multiply or add up past float8 */
	rate = bill(&tres, &weights, mode);
	if (!isfinite(rate))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("billing rate of TRES \"%s\" under weights \"%s\" is out of range",
						tres_s, weights_s ? weights_s : ""),
				 errhint("Counts and weights must keep the billing rate within float8.")));
	PG_RETURN_FLOAT8(rate);
}

PG_FUNCTION_INFO_V1(fs_tres_count);

/*
 * tres_count(tres text, name text) -> float8: the count of one TRES in
 * base units (memory in MiB), 0 when absent, so that reports can read
 * cpu, mem or gres/gpu out of sacct's AllocTRES.
 */
Datum
fs_tres_count(PG_FUNCTION_ARGS)
{
	TresList	tres = parse_tres_list(text_to_cstring(PG_GETARG_TEXT_PP(0)),
									   "TRES string", false);
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	const TresItem *it = find_item(&tres, name, strlen(name));

	PG_RETURN_FLOAT8(it ? it->value : 0.0);
}

PG_FUNCTION_INFO_V1(fs_tres_weights_valid);

/* tres_weights_valid(weights text) -> bool: true, or the parse error. */
Datum
fs_tres_weights_valid(PG_FUNCTION_ARGS)
{
	(void) parse_tres_list(text_to_cstring(PG_GETARG_TEXT_PP(0)),
						   "TRESBillingWeights", true);
	PG_RETURN_BOOL(true);
}
