/*
 * fairshare.h — the one header shared by fairshare's C files.
 *
 * Each policy area has its own C file (billing.c, decay.c, fair_tree.c, ...);
 * this header holds only what more than one of them needs: argument checks
 * that raise proper SQLSTATEs, and time conversions.
 */
#ifndef FAIRSHARE_H
#define FAIRSHARE_H

#include "postgres.h"

#include <float.h>

#include "datatype/timestamp.h"
#include "fmgr.h"
#include "utils/timestamp.h"

#if PG_VERSION_NUM < 150000
#error "fairshare needs PostgreSQL 15 or later"
#endif

/* PostgreSQL 18 spells it pg_noreturn (C11), before it pg_attribute_noreturn() */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/* Seconds in an interval, reading a month as 30 days as PostgreSQL's own
 * interval arithmetic does (DAYS_PER_MONTH). */
extern double fs_interval_seconds(const Interval *iv);

/* x formatted for an error message (NaN, Infinity, or %.15g). */
extern const char *fs_float_text(double x);

/* Raise 22023 unless x is a finite number >= 0; `what` names the argument. */
extern void fs_check_nonneg(double x, const char *what);

/* Raise 22023 unless x is a finite number (any sign). */
extern void fs_check_finite(double x, const char *what);

/* Raise 22008 unless t is a finite timestamp. */
extern void fs_check_timestamp(TimestampTz t, const char *what);

/* Seconds from 2000-01-01 (PostgreSQL's epoch) back to 1970-01-01: step
 * decay counts its intervals from the Unix epoch. */
#define UNIX_EPOCH_OFFSET_S	((double) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)

/* Aggregate arguments shared by the decay aggregates (decay.c, pbs.c):
 * a usage (finite, >= 0, else 22023) and an instant (NULL is 22004,
 * ±infinity 22008), as a timestamp or as seconds since 2000-01-01. */
/* (static inline: they run once per aggregated row; the values are tested
 * here and the shared checks, which raise the errors, called only for a
 * value that fails) */
static inline double
fs_usage_arg(FunctionCallInfo fcinfo, int argno)
{
	double		u = PG_GETARG_FLOAT8(argno);

	/* false for NaN too */
	if (unlikely(!(u >= 0.0 && u <= DBL_MAX)))
		fs_check_nonneg(u, "usage");
	return u;
}

static inline TimestampTz
fs_timestamp_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	TimestampTz t;

	if (unlikely(PG_ARGISNULL(argno)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be NULL", what),
				 errhint("Pass the instant to decay usage to, e.g. now().")));
	t = PG_GETARG_TIMESTAMPTZ(argno);
	if (unlikely(TIMESTAMP_NOT_FINITE(t)))
		fs_check_timestamp(t, what);
	return t;
}

static inline double
fs_instant_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	return (double) fs_timestamp_arg(fcinfo, argno, what) / USECS_PER_SEC;
}

/*
 * The tree window functions' arguments (tree.c): every row of the window
 * partition is (id, parent_id, shares, usage, is_user, ...), fetched two
 * rows at a time and handed to the area's check, in row order.
 */
#define FS_TREE_ARG_ID			0
#define FS_TREE_ARG_PARENT		1
#define FS_TREE_ARG_SHARES		2
#define FS_TREE_ARG_USAGE		3
#define FS_TREE_ARG_IS_USER		4
/* the node form: one composite argument (tree.c, fs_tree_read_nodes) */
#define FS_TREE_ARG_NODE		0
#define FS_TREE_NO_TEXT			((Size) -1)	/* a NULL id or parent_id */

typedef struct FsTreeRow
{
	bool		id_null;
	bool		is_user_null;
	bool		shares_null;
	bool		usage_null;
	bool		live_null;
	bool		is_user;
	double		shares;			/* 0 when NULL */
	double		usage;			/* 0 when NULL */
	double		live;			/* the live_arg's value, 0 when NULL or none */
	Size		id_off;			/* into the id arena, or FS_TREE_NO_TEXT */
	Size		parent_off;		/* into the parent arena, or FS_TREE_NO_TEXT */
	uint32		id_hash;		/* hash_bytes of the id, when there is one */
	uint32		parent_hash;
} FsTreeRow;

/* Called for each row: ids and parents are the arenas as they are now. */
typedef void (*FsTreeRowCheck) (void *state, int64 row, const FsTreeRow *args,
								const char *ids, const char *parents);

/*
 * The tree window functions (fair_tree.c, pbs.c) find each row's parent by
 * its id among up to millions of rows.
 *
 * Most of their passes jump across arrays larger than the caches (at 10^6
 * associations each jump a cache miss: docs/performance.md#fair-tree), but
 * know where they will jump AHEAD steps before they get there: from an array
 * they go through in order (the lineage, the hashes, the rows).  Asking for
 * that line early lets the memory fetch many at once.  A hint only, which
 * changes no value; the index read to compute it is always in bounds.
 */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr)		__builtin_prefetch(addr, 0)
#define PREFETCH_W(addr)	__builtin_prefetch(addr, 1)
#else
#define PREFETCH(addr)		((void) 0)
#define PREFETCH_W(addr)	((void) 0)
#endif
#define AHEAD			32

/*
 * The ids in an open-addressing hash table (linear probing), at most half
 * full.  A slot holds the id's hash, its row index + 1 (0: empty) and where
 * the id sits in the arena, so that a probe reads one slot and, when the
 * hashes match, the id itself, not the row's other data, scattered over
 * large arrays (at 10^6 associations each such read was a cache miss, and
 * the lookups were a sixth of Fair Tree's time).  16 bytes a slot, 32 to 64
 * bytes per row while the parents are resolved.  The hashes are tree.c's,
 * computed as the rows were read, when the lengths were known.
 */
typedef struct FsIdSlot
{
	uint32		hash;
	int32		node;			/* row index + 1; 0 = empty */
	Size		id_off;			/* into the id arena */
} FsIdSlot;

typedef struct FsIdIndex
{
	uint32		mask;			/* slots - 1, slots a power of 2 */
	FsIdSlot   *slots;
} FsIdIndex;

/* The slots an index of n ids needs (a power of 2, at least 2n). */
static inline uint64
fs_id_index_slots(int64 n)
{
	uint64		slots = 2;

	while (slots < 2 * (uint64) Max(n, 1))
		slots <<= 1;
	return slots;
}

/*
 * The slot of id `id` (hash h) in an index over the arena `ids`: the one
 * holding it, or the empty one where it would go.
 */
static inline FsIdSlot *
fs_id_probe(const FsIdIndex *ix, const char *ids, const char *id, uint32 h)
{
	uint32		k;

	for (k = h & ix->mask; ix->slots[k].node != 0; k = (k + 1) & ix->mask)
	{
		FsIdSlot   *s = &ix->slots[k];

		if (s->hash == h && strcmp(ids + s->id_off, id) == 0)
			return s;
	}
	return &ix->slots[k];
}

struct WindowObjectData;
struct StringInfoData;
extern void fs_tree_arena(struct StringInfoData *arena, int64 n);
extern void *fs_tree_huge_alloc(Size size, void **base);
extern void fs_tree_read(struct WindowObjectData *winobj, int64 n, int live_arg,
						 struct StringInfoData *ids, struct StringInfoData *parents,
						 FsTreeRowCheck check, void *state);
extern void fs_tree_read_nodes(struct WindowObjectData *winobj, int64 n,
							   struct StringInfoData *ids, struct StringInfoData *parents,
							   FsTreeRowCheck check, void *state);

#endif							/* FAIRSHARE_H */
