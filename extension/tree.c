/*
 * tree.c — the window signature every tree function of fairshare takes,
 * read once for all of them: Slurm's Fair Tree and classic fair share
 * (fair_tree.c) and the PBS fairshare tree (pbs.c) are window functions
 * over the rows of one tree,
 *
 *     f(id text, parent_id text, shares float8, usage float8, is_user boolean, ...)
 *         OVER (PARTITION BY cluster)
 *
 * or, for Fair Tree and classic, with the five in one composite argument,
 * the node form (below; docs/fairshare.md#the-node-form)
 * (docs/fairshare.md#fair-tree-and-classic-fair-share,
 * docs/metacentrum.md#the-pbs-fairshare-tree-window-functions).  What a NULL
 * or a bad value means differs between the policies (a NULL share is
 * Slurm's Fairshare=parent and an error for PBS), so the reader only
 * fetches: each area checks every row in a callback, with its own messages,
 * in row order.
 *
 * Both areas also take from here the memory their trees are built in: the
 * arena of the ids (fs_tree_arena) and the large arrays on huge pages
 * (fs_tree_huge_alloc); fairshare.h holds the index of the ids.
 *
 * One pass over the partition, in pairs of rows.  Going over the partition
 * twice is expensive once it is larger than work_mem and the tuplestore sits
 * in a temporary file (a second pass starts by walking the file backwards
 * to the first row); so is the order in which one pass reads.  The window
 * API fetches one argument of one row per call, and each call positions the
 * function's read pointer on the row: from the row just before or just
 * after, that is one tuple read, but fetching the row the pointer is
 * already on costs a step forward and a read backward (nodeWindowAgg.c has
 * no call to re-read the current tuple).  Reading the five arguments of a
 * row one after the other made four of its five fetches such double reads.
 * So rows are read in pairs, each argument of the first row then of the
 * second: r, r+1, r, r+1, ... every fetch is a single step, backward or
 * forward, and the pair ends on r+1, one step before the next pair.  (At
 * 10^6 rows this took the temporary file's reads from 9 per row to 5.)
 *
 * A fetched text points into the tuple the read pointer holds, which the
 * next fetch frees: ids and parent ids are copied into their arenas at once,
 * with their hashes, so that the caller indexes them without detoasting or
 * copying again.  The checks then run row by row, in the order a
 * row-at-a-time read makes them, so a bad row raises the error of its own
 * (only an argument expression that itself fails, on the second row of a
 * pair, fails before the first row is checked).  Arguments are evaluated in
 * a per-pair context that is reset after each pair, so an expression
 * argument does not pile up n copies.
 */
#include "postgres.h"

#ifndef WIN32
#include <sys/mman.h>
#endif

#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/typcache.h"
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif
#include "windowapi.h"

#include "fairshare.h"

/*
 * An arena for the ids (or parent ids) of n rows, with room for 16 bytes
 * each from the start: grown by doubling from 1 kB, it would be copied a
 * dozen times at 10^6 rows; room never written is never faulted in.
 */
void
fs_tree_arena(StringInfo arena, int64 n)
{
	initStringInfo(arena);
	enlargeStringInfo(arena, (int) Min((Size) Max(n, 1) * 16, (Size) 64 * 1024 * 1024));
}

/*
 * A large array the passes jump across, on 2 MB boundaries with the kernel
 * asked for transparent huge pages: with 4 kB pages, at 10^6 associations
 * nearly every jump across Fair Tree's node array or the id index also
 * missed the TLB, and every page was first touched by a fault
 * (docs/performance.md#fair-tree).  Below 8 MB, on a 64-byte boundary: a
 * Fair Tree node is then one cache line, not two (and its long doubles need
 * 16; palloc only guarantees MAXALIGN, found by UBSan).  In the current
 * memory context; *base is what to pfree.
 */
#define HUGE_PAGE		((Size) 2 * 1024 * 1024)

void *
fs_tree_huge_alloc(Size size, void **base)
{
	char	   *p;

	if (size < 4 * HUGE_PAGE)
	{
		*base = MemoryContextAllocHuge(CurrentMemoryContext, size + 64);
		return (void *) TYPEALIGN(64, *base);
	}
	*base = MemoryContextAllocHuge(CurrentMemoryContext, size + HUGE_PAGE);
	p = (char *) TYPEALIGN(HUGE_PAGE, *base);
#ifdef MADV_HUGEPAGE
	/* advice only: without THP the pages are the usual ones */
	(void) madvise(p, size, MADV_HUGEPAGE);
#endif
	return p;
}

/* Fetch argument argno of row pos (WINDOW_SEEK_HEAD). */
static inline Datum
row_arg(WindowObject winobj, int argno, int64 pos, bool *isnull)
{
	bool		isout;

	return WinGetFuncArgInPartition(winobj, argno, pos, WINDOW_SEEK_HEAD,
									false, isnull, &isout);
}

/*
 * Copy a fetched text into an arena, NUL-terminated; its offset, and its
 * hash into *hash.
 */
static inline Size
arena_text(StringInfo arena, Datum d, uint32 *hash)
{
	text	   *s = DatumGetTextPP(d);
	Size		off = arena->len;
	int			len = VARSIZE_ANY_EXHDR(s);

	*hash = hash_bytes((const unsigned char *) VARDATA_ANY(s), len);
	appendBinaryStringInfo(arena, VARDATA_ANY(s), len);
	appendStringInfoChar(arena, '\0');
	return off;
}

/* The arguments of rows first .. first + k - 1, argument by argument. */
static void
fetch_pair(WindowObject winobj, int64 first, int k, int live_arg,
		   StringInfo ids, StringInfo parents, FsTreeRow *a)
{
	int			j;
	Datum		d;

	for (j = 0; j < k; j++)
	{
		d = row_arg(winobj, FS_TREE_ARG_ID, first + j, &a[j].id_null);
		a[j].id_off = a[j].id_null ? FS_TREE_NO_TEXT : arena_text(ids, d, &a[j].id_hash);
	}
	for (j = 0; j < k; j++)
	{
		d = row_arg(winobj, FS_TREE_ARG_IS_USER, first + j, &a[j].is_user_null);
		a[j].is_user = a[j].is_user_null ? false : DatumGetBool(d);
	}
	for (j = 0; j < k; j++)
	{
		d = row_arg(winobj, FS_TREE_ARG_SHARES, first + j, &a[j].shares_null);
		a[j].shares = a[j].shares_null ? 0.0 : DatumGetFloat8(d);
	}
	for (j = 0; j < k; j++)
	{
		d = row_arg(winobj, FS_TREE_ARG_USAGE, first + j, &a[j].usage_null);
		a[j].usage = a[j].usage_null ? 0.0 : DatumGetFloat8(d);
	}
	for (j = 0; j < k; j++)
	{
		a[j].live_null = true;
		a[j].live = 0.0;
		if (live_arg >= 0)
		{
			d = row_arg(winobj, live_arg, first + j, &a[j].live_null);
			a[j].live = a[j].live_null ? 0.0 : DatumGetFloat8(d);
		}
	}
	for (j = 0; j < k; j++)
	{
		bool		isnull;

		d = row_arg(winobj, FS_TREE_ARG_PARENT, first + j, &isnull);
		a[j].parent_off = isnull ? FS_TREE_NO_TEXT : arena_text(parents, d, &a[j].parent_hash);
	}
}

void
fs_tree_read(WindowObject winobj, int64 n, int live_arg,
			 StringInfo ids, StringInfo parents, FsTreeRowCheck check, void *state)
{
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext,
												 "tree row",
												 ALLOCSET_SMALL_SIZES);
	int64		first;

	for (first = 0; first < n; first += 2)
	{
		FsTreeRow	a[2];
		int			k = (n - first >= 2) ? 2 : 1;
		int			j;
		/* (the arenas grow by repalloc, in their own context) */
		MemoryContext oldcxt = MemoryContextSwitchTo(rowcxt);

		memset(a, 0, sizeof(a));
		fetch_pair(winobj, first, k, live_arg, ids, parents, a);
		/* the checks, one row after the other */
		for (j = 0; j < k; j++)
			check(state, first + j, &a[j], ids->data, parents->data);
		MemoryContextSwitchTo(oldcxt);
		MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
}

/*
 * The node form: every row is ONE argument, a composite
 * (id, parent_id, shares, usage, is_user[, raw_usage])
 * (fairshare.fair_tree_node, or sshare's node with the usage now), so the
 * partition is read with one fetch per row, each a single step forward,
 * and the row is deformed here once.  The form above costs five fetches a
 * row, each reading the tuple back from the tuplestore (or its temporary
 * file), copying it and deforming it again for one argument
 * (docs/performance.md#fair-tree); the window API evaluates one argument
 * per fetch, so one argument carrying the five is the way to read a row
 * once.
 */
#define NODE_MAX_ATTS	6

/* Raise unless tupdesc is (text, text, float8, float8, boolean[, float8]). */
static void
check_node_type(TupleDesc tupdesc)
{
	static const Oid want[NODE_MAX_ATTS] = {TEXTOID, TEXTOID, FLOAT8OID, FLOAT8OID, BOOLOID, FLOAT8OID};
	int			i;
	bool		ok = (tupdesc->natts == 5 || tupdesc->natts == NODE_MAX_ATTS);

	for (i = 0; ok && i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		ok = !att->attisdropped && att->atttypid == want[i];
	}
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("a tree node must be (id text, parent_id text, shares float8, usage float8, is_user boolean), not %s",
						format_type_be(tupdesc->tdtypeid)),
				 errhint("Pass ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node.")));
}

/* Deform one fetched node into *a, copying its texts into the arenas. */
static void
node_row(Datum d, TupleDesc tupdesc, StringInfo ids, StringInfo parents, FsTreeRow *a)
{
	HeapTupleHeader th = DatumGetHeapTupleHeader(d);
	HeapTupleData tuple;
	Datum		v[NODE_MAX_ATTS];
	bool		n[NODE_MAX_ATTS];

	if (HeapTupleHeaderGetTypeId(th) != tupdesc->tdtypeid)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("every tree node of a window partition must be of type %s",
						format_type_be(tupdesc->tdtypeid)),
				 errhint("Pass ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node.")));
	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	heap_deform_tuple(&tuple, tupdesc, v, n);

	a->id_null = n[FS_TREE_ARG_ID];
	a->id_off = a->id_null ? FS_TREE_NO_TEXT : arena_text(ids, v[FS_TREE_ARG_ID], &a->id_hash);
	a->is_user_null = n[FS_TREE_ARG_IS_USER];
	a->is_user = a->is_user_null ? false : DatumGetBool(v[FS_TREE_ARG_IS_USER]);
	a->shares_null = n[FS_TREE_ARG_SHARES];
	a->shares = a->shares_null ? 0.0 : DatumGetFloat8(v[FS_TREE_ARG_SHARES]);
	a->usage_null = n[FS_TREE_ARG_USAGE];
	a->usage = a->usage_null ? 0.0 : DatumGetFloat8(v[FS_TREE_ARG_USAGE]);
	a->live_null = (tupdesc->natts < NODE_MAX_ATTS || n[NODE_MAX_ATTS - 1]);
	a->live = a->live_null ? 0.0 : DatumGetFloat8(v[NODE_MAX_ATTS - 1]);
	a->parent_off = n[FS_TREE_ARG_PARENT] ? FS_TREE_NO_TEXT
		: arena_text(parents, v[FS_TREE_ARG_PARENT], &a->parent_hash);
}

/* The number of rows read between resets of the per-row context. */
#define NODE_BATCH		64

void
fs_tree_read_nodes(WindowObject winobj, int64 n,
				   StringInfo ids, StringInfo parents, FsTreeRowCheck check, void *state)
{
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext,
												 "tree node",
												 ALLOCSET_DEFAULT_SIZES);
	TupleDesc	tupdesc = NULL;
	int64		r;

	for (r = 0; r < n; r++)
	{
		FsTreeRow	a;
		bool		isnull;
		Datum		d;
		MemoryContext oldcxt = MemoryContextSwitchTo(rowcxt);

		d = row_arg(winobj, FS_TREE_ARG_NODE, r, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("tree node of row " INT64_FORMAT " of the tree is NULL", r + 1),
					 errhint("Pass ROW(id, parent_id, shares, usage, is_user)::fairshare.fair_tree_node for every row; parent_id and shares may be NULL inside it.")));
		if (tupdesc == NULL)
		{
			HeapTupleHeader th = DatumGetHeapTupleHeader(d);
			TupleDesc	td = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th),
													HeapTupleHeaderGetTypMod(th));

			/* a copy of its own, outlasting the per-row context */
			MemoryContextSwitchTo(MemoryContextGetParent(rowcxt));
			tupdesc = CreateTupleDescCopy(td);
			ReleaseTupleDesc(td);
			MemoryContextSwitchTo(rowcxt);
			check_node_type(tupdesc);
		}
		memset(&a, 0, sizeof(a));
		node_row(d, tupdesc, ids, parents, &a);
		check(state, r, &a, ids->data, parents->data);
		MemoryContextSwitchTo(oldcxt);
		if (r % NODE_BATCH == NODE_BATCH - 1)
			MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
}
