/*
 * fair_tree.c — Slurm's fair share over an association tree, as window
 * functions: Fair Tree (PROTEUS, CALI; docs/policies.md#fair-share) and
 * classic fair share (PriorityFlags=NO_FAIR_TREE).  The rules are read from
 * Slurm's code where code and documentation disagree (docs/slurm.md#fair-tree,
 * docs/slurm.md#classic-fair-share, docs/slurm.md#edge-cases).
 *
 * Every function takes the rows of one tree as its window partition:
 *
 *   f(id text, parent_id text, shares float8, usage float8, is_user boolean)
 *       OVER (PARTITION BY cluster)
 *
 * or, in the node form, f(node fair_tree_node) with the same five fields in
 * one composite, read once per row (tree.c; docs/fairshare.md#the-node-form).
 * parent_id NULL marks the root; shares NULL means Fairshare=parent; usage is
 * the raw usage charged to the association itself (an account's raw usage
 * is its own plus all its descendants').  On the first call of a partition
 * the whole partition is read once, the tree is built and every row's answer
 * is stored in partition-local memory; each call returns its row's answer
 * (docs/design.md#window-functions).
 *
 * How Slurm's code is followed (docs/slurm.md#fair-tree):
 *  - the fs parent of an association is its nearest strict ancestor whose
 *    shares are not "parent"; siblings are grouped by fs parent, so the
 *    children of a Fairshare=parent account sit beside it;
 *  - S = shares / level_shares, U = usage / usage of the fs parent, LF =
 *    S / U, each a float8 computed in that order and compared with exact
 *    equality (docs/slurm.md#fair-tree: this reproduces test24.4's uD2/uD3,
 *    which exact arithmetic would tie); S == 0 gives LF 0, U == 0 gives
 *    +inf; a parent user gets +inf, a parent account the NO_VAL sentinel
 *    4294967294.  (Slurm keeps U and LF in long double; float8 keeps the
 *    returned Level FS ordered exactly as the ranking used it.)  Raw usage
 *    is summed in long double, then rounded;
 *  - siblings are visited by decreasing LF, users before accounts on equal
 *    LF, then in lineage order (below); accounts are descended into at once;
 *    ties are exact equality with the previous sibling (NO_VAL before the
 *    first, as in Slurm), and an account tied with its previous sibling
 *    starts its own list tied.  Tied accounts are NOT merged (Slurm's merge
 *    code never triggers, although its documentation says they are);
 *  - ranks count down from N = number of user rows: rank/rnt as in
 *    _calc_tree_fs, FairShare = rank / N.
 *
 * Lineage order (Slurm sorts associations by lineage "/acct/0-user/"): a
 * pre-order walk of the tree in which every account lists its users first,
 * then its sub-accounts, each group ordered by id compared byte by byte as
 * if followed by '/'.  It decides the visiting order of exactly tied
 * siblings, which only matters for tied accounts, and is what tree_order()
 * returns (sshare's listing order).
 *
 * Cost: O(n log n) time (sorts; parents are found through a hash table of
 * the ids), one pass over the partition, no recursion (explicit stacks).
 * The rows are read into 24-byte rows (TreeRow), the parents linked and the
 * lineage order walked over those; the 64-byte nodes are then built in
 * lineage order (tree_renumber), so that the passes after the walk go
 * through them in order (docs/performance.md#fair-tree).  The passes that
 * still jump across large arrays prefetch where they will be AHEAD steps
 * later.  Working memory per association: the row, its id and the hash
 * table (in the nodes' memory) while the parents are linked; the row and
 * the node while the nodes are built; plus 16 bytes of answer kept per row
 * (24 for classic_factor) (peak resident memory measured by the probe of
 * test/bench/run.sh: 170 bytes per association at 10^5, 148 at 10^6;
 * docs/performance.md#fair-tree).  Bad trees
 * raise errors naming the row: no root or two, a cycle, a parent missing
 * from the partition, a user with children, duplicate or NULL ids,
 * negative, NaN or infinite shares or usage.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type_d.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "fairshare.h"

/* Slurm's NO_VAL, the level_fs of a Fairshare=parent account (and the
 * "previous level_fs" at the start of every sibling list). */
#define FT_NO_VAL	4294967294.0

/*
 * Arguments of every tree window function, in order: the five of every
 * tree (FS_TREE_ARG_ID .. FS_TREE_ARG_IS_USER, fairshare.h), or in the node
 * form the one composite carrying them (FS_TREE_ARG_NODE; tree.c), then
 * the function's own, counted from tree_args().
 */
#define ARG_DAMPENING	0

/*
 * How many arguments carry the row: 5, or 1 in the node form, whose first
 * argument is a composite where the other form's is the id (text).
 */
static int
tree_args(FunctionCallInfo fcinfo)
{
	return get_fn_expr_argtype(fcinfo->flinfo, FS_TREE_ARG_ID) == TEXTOID
		? FS_TREE_ARG_IS_USER + 1 : 1;
}

/* What a window function returns for its row. */
typedef enum TreeOutput
{
	OUT_FT_RANK,
	OUT_FT_FACTOR,
	OUT_FT_LEVEL_FS,
	OUT_FT_NORM_SHARES,
	OUT_FT_EFFECTIVE_USAGE,
	OUT_CLASSIC_NORM_SHARES,
	OUT_CLASSIC_EFFECTIVE_USAGE,
	OUT_CLASSIC_FACTOR,
	OUT_RAW_USAGE,
	OUT_NORM_USAGE,
	OUT_DEPTH,
	OUT_ORDER
} TreeOutput;

/*
 * One association, node p of the lineage order (tree_renumber).  64 bytes,
 * one cache line: the passes after the walk go from parents to children
 * and back, which in lineage order is through the array in order or near
 * it; at 10^6 associations every byte of it is a byte of fresh pages the
 * kernel faults in and zeroes, and of cache lines the passes wait for
 * (docs/performance.md#fair-tree).  So nothing is kept twice: a node's
 * position in lineage order is its index; what only one algorithm needs
 * shares its bytes with what only the other does; the level shares sit
 * where S goes until S is computed from them; the direct parent, needed
 * only until the raw usage is summed, leaves its place to the rank; and
 * the two flags ride in the id's offset.  The row's own usage is kept
 * only as the start of its total, and sshare's usage now
 * (Tree.live_total) only when there is one.
 */
typedef struct TreeNode
{
	long double total;			/* raw usage: own + descendants */
	union
	{
		long double ue;			/* classic: UE */
		struct
		{
			double		u;		/* Fair Tree: U */
			double		level_fs;	/* Fair Tree: LF */
		}			ft;
	}			efctv;
	double		shares;			/* raw shares (0 when use_parent) */
	double		norm_shares;	/* S; before fair_tree_compute or
								 * classic_compute, the level shares: Σ
								 * shares of its fs sibling group
								 * (tree_fs_groups) */
	uint32		id_off:30;		/* id: offset into the id arena (ID_OFF_MAX) */
	uint32		is_user:1;
	uint32		use_parent:1;	/* shares NULL: Fairshare=parent */
	union
	{
		int32		parent;		/* direct parent, -1 for the root: until
								 * the raw usage is summed (tree_walk) */
		uint32		rank;		/* Fair Tree rank (users; fair_tree_compute) */
	}			up;
	int32		fs_parent;		/* nearest non-"parent" strict ancestor */
	int32		depth;			/* root 0 */
} TreeNode;

/*
 * The id and parent arenas are StringInfos, whose length stays below
 * MaxAllocSize (2^30 - 1): every offset into them fits in 30 bits.
 */
#define ID_OFF_MAX		((uint32) MaxAllocSize)

StaticAssertDecl(sizeof(TreeNode) <= 64, "a tree node fills at most one cache line");

/*
 * One row as read, 24 bytes: all that linking the parents and the walk to
 * lineage order need.  The nodes are built from these in lineage order
 * (tree_renumber), so the rows' array is much smaller than the nodes'
 * while the partition is read and the ids are indexed.
 */
typedef struct TreeRow
{
	double		usage;			/* the row's own usage */
	double		shares;			/* raw shares (0 when use_parent) */
	uint32		id_off:30;		/* id: offset into the id arena */
	uint32		is_user:1;
	uint32		use_parent:1;	/* shares NULL: Fairshare=parent */
	int32		parent;			/* row of the direct parent; -1: root */
} TreeRow;

StaticAssertDecl(sizeof(TreeRow) <= 24, "a tree row is 24 bytes");

typedef struct Tree
{
	int32		n;
	int			live_arg;		/* argument of the usage now, or -1: none;
								 * in the node form, >= 0: the node's */
	bool		node_form;		/* one composite argument per row (tree.c) */
	long double *live_total;	/* with live_arg: sshare's usage now, own +
								 * descendants (see fs_sshare_tree) */
	void	   *live_base;		/* what to pfree */
	TreeRow    *rows;			/* as read, until tree_renumber */
	void	   *rows_base;		/* what to pfree */
	void	   *spare;			/* the rows' memory once the nodes are built:
								 * its pages are in already (fair_tree_compute) */
	Size		spare_size;
	TreeNode   *nodes;			/* in lineage order (tree_renumber) */
	char	   *scratch;		/* the nodes' memory, lent until they are
								 * built (tree_build) */
	char	   *ids;			/* id arena: NUL-terminated ids */
	int32		root;
	int32		n_users;
	int32		max_depth;
	struct LineageKey *kids;	/* direct children, grouped by parent ... */
	int32	   *kid_start;		/* ... kids[kid_start[v] .. kid_start[v+1]) */
	int32	   *lineage;		/* node -> its row (before tree_renumber: the
								 * rows in lineage order) */
	int32	   *fs_kids;		/* fs children, grouped by fs parent */
	int32	   *fs_start;
} Tree;

/*
 * One row's answer, kept in partition-local memory.  Only OUT_CLASSIC_FACTOR
 * has an extra; the other outputs keep their cells SHORT_CELL bytes apart,
 * without it (tree_window_cell): at 10^6 associations the array is
 * allocated zeroed and written in random order, and a third less of it is
 * a third fewer pages and cache lines (docs/performance.md#fair-tree).
 */
typedef struct TreeCell
{
	double		value;
	bool		isnull;
	double		extra;			/* classic: S beside UE, for the factor */
} TreeCell;

#define SHORT_CELL		offsetof(TreeCell, extra)

typedef struct TreeResults
{
	bool		computed;
	double		cells[FLEXIBLE_ARRAY_MEMBER];	/* TreeCells `stride` bytes
												 * apart (RESULT_CELL) */
} TreeResults;

#define RESULT_CELL(res, stride, row) \
	((TreeCell *) ((char *) (res)->cells + (Size) (stride) * (row)))

#define NODE_ID(t, i)	((t)->ids + (t)->nodes[i].id_off)
#define ROW_ID(t, i)	((t)->ids + (t)->rows[i].id_off)

static void *
tree_alloc(Size size)
{
	return MemoryContextAllocHuge(CurrentMemoryContext, size);
}

/*
 * The ids' arena (fs_tree_arena) and the large arrays on huge pages
 * (fs_tree_huge_alloc) are tree.c's, shared with the PBS tree.
 */

/*
 * Compare two ids as Slurm compares lineage segments: byte by byte, each id
 * followed by '/', a shorter string first.  ("bob.x" sorts before "bob",
 * since '.' < '/'.)
 */
static int
lineage_strcmp(const char *a, const char *b)
{
	Size		i;

	/* one pass, no strlen: the sibling sorts call this n log n times */
	for (i = 0;; i++)
	{
		unsigned char ca = (unsigned char) a[i];
		unsigned char cb = (unsigned char) b[i];

		if (ca == cb)
		{
			if (ca == '\0')
				return 0;
			continue;
		}
		/* an id's end reads as '/' */
		if ((ca ? ca : '/') != (cb ? cb : '/'))
			return (ca ? ca : '/') < (cb ? cb : '/') ? -1 : 1;
		/* one id ended where the other has a '/': the ended one is shorter */
		return ca == '\0' ? -1 : 1;
	}
}

/*
 * The sibling sorts compare copies of the few fields they read, not the
 * nodes: a node is a cache line, siblings lie anywhere in the array, and at
 * 10^6 associations every node a comparison read was a cache miss.  Each
 * list of siblings is copied into an array of keys, sorted, and its node
 * indexes written back.  Both orders are total (ids are unique, and so are
 * lineage positions), so the result does not depend on the sort; the sorts
 * are sort_template.h's, with the comparison inlined.
 *
 * A lineage key carries the first 8 bytes of its id as lineage_strcmp reads
 * them, as one number (lineage_prefix): most comparisons end there, without
 * reading the ids, which lie in row order all over the id arena.
 */
typedef struct LineageKey
{
	uint64		prefix;			/* lineage_prefix(id) */
	const char *id;
	int32		node;
	bool		is_user;
} LineageKey;

typedef struct LevelFsKey
{
	double		level_fs;
	int32		node;			/* also its position in lineage order */
	bool		is_user;
} LevelFsKey;

/*
 * The first 8 bytes of an id as lineage_strcmp compares them, big-endian in
 * one number: the id's bytes, its end as '/', then zero bytes.  If two ids'
 * prefixes differ, they are ordered as lineage_strcmp orders the ids: at
 * the first byte where the ids differ, either both bytes are in the ids
 * (compared as they are), or one id has ended: its '/' against the other's
 * byte, and if that is a '/' too, the next bytes, its 0 against the other's
 * byte, never 0 (a byte of an id or its end's '/'), so the ended id first,
 * as lineage_strcmp has it.  Equal prefixes leave the order to
 * lineage_strcmp.
 */
static inline uint64
lineage_prefix(const char *id)
{
	uint64		k = 0;
	int			i;

	for (i = 0; i < 8; i++)
	{
		unsigned char c = (unsigned char) id[i];

		if (c == '\0')
		{
			k = (k << 8) | (unsigned char) '/';
			/* zero bytes after it: 8 - (i + 1) of them, shifted in */
			return (i == 7) ? k : k << (8 * (7 - i));
		}
		k = (k << 8) | c;
	}
	return k;
}

/* Siblings in lineage order: users first, then accounts, each by id. */
static inline int
cmp_lineage(const LineageKey *x, const LineageKey *y)
{
	if (x->is_user != y->is_user)
		return x->is_user ? -1 : 1;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return lineage_strcmp(x->id, y->id);
}

#define ST_SORT sort_lineage_keys
#define ST_ELEMENT_TYPE LineageKey
#define ST_COMPARE(a, b) cmp_lineage(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Fair Tree sibling order (_cmp_level_fs): larger LF first, users before
 * accounts on equal LF; then lineage order, the order of Slurm's children
 * lists, which its qsort keeps for equal elements.
 */
static inline int
cmp_level_fs(const LevelFsKey *x, const LevelFsKey *y)
{
	if (x->level_fs != y->level_fs)
		return x->level_fs < y->level_fs ? 1 : -1;
	if (x->is_user != y->is_user)
		return x->is_user ? -1 : 1;
	return x->node < y->node ? -1 : (x->node > y->node ? 1 : 0);
}

#define ST_SORT sort_level_fs_keys
#define ST_ELEMENT_TYPE LevelFsKey
#define ST_COMPARE(a, b) cmp_level_fs(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* Raise 22023 unless x is a finite number >= 0; names the row. */
static void
check_value(double x, const char *what, const char *id)
{
	if (isnan(x) || isinf(x) || x < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of association \"%s\" must be a finite number >= 0, not %s",
						what, id, fs_float_text(x)),
				 errhint("Pass non-negative, finite %s for every row of the tree.", what)));
}

/*
 * Pass 1, the only one over the partition: tree.c reads id, parent_id,
 * shares, usage and is_user of every row (in the order it says why), and
 * tree_check_row checks each row and stores it as a node.  The parent ids
 * are kept, as offsets into a second arena (PARENT_NONE for NULL), until
 * tree_link_parents resolves them.
 */
#define PARENT_NONE		((uint32) -1)	/* above every offset (ID_OFF_MAX) */

/* What the row check fills (tree_read_rows). */
typedef struct RowTarget
{
	Tree	   *t;
	uint32	   *parent_off;
	uint32	   *id_hashes;
	uint32	   *parent_hashes;
} RowTarget;

/* One row, checked and stored as a node (fs_tree_read's callback). */
static void
tree_check_row(void *state, int64 row, const FsTreeRow *a, const char *ids, const char *parents)
{
	RowTarget  *rt = (RowTarget *) state;
	Tree	   *t = rt->t;
	int32		i = (int32) row;
	TreeRow    *node = &t->rows[i];
	const char *id;

	if (a->id_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("id of row %d of the tree is NULL", i + 1),
				 errhint("Every association needs a non-NULL id, unique within its window partition.")));
	/* zeroed here, while it is in the cache, not in a pass of its own */
	memset(node, 0, sizeof(TreeRow));
	Assert(a->id_off < ID_OFF_MAX);
	node->id_off = (uint32) a->id_off;
	rt->id_hashes[i] = a->id_hash;
	id = ids + node->id_off;
	if (a->is_user_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("is_user of association \"%s\" is NULL", id),
				 errhint("Pass true for a user association, false for an account.")));
	node->is_user = a->is_user;

	node->use_parent = a->shares_null;
	node->shares = a->shares;
	if (!a->shares_null)
		check_value(node->shares, "shares", id);

	if (a->usage_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("usage of association \"%s\" is NULL", id),
				 errhint("Pass 0 for an association that has no usage of its own, e.g. COALESCE(usage, 0).")));
	check_value(a->usage, "usage", id);
	node->usage = a->usage;

	if (t->live_total != NULL)
	{
		t->live_total[i] = a->usage;
		if (!a->live_null)
		{
			check_value(a->live, "raw_usage", id);
			t->live_total[i] = a->live;
		}
	}
	Assert(a->parent_off == FS_TREE_NO_TEXT || a->parent_off < ID_OFF_MAX);
	rt->parent_off[i] = a->parent_off == FS_TREE_NO_TEXT ? PARENT_NONE : (uint32) a->parent_off;
	if (a->parent_off != FS_TREE_NO_TEXT)
		rt->parent_hashes[i] = a->parent_hash;
}

/* Every row of the partition, read by tree.c and checked here. */
static void
tree_read_rows(WindowObject winobj, Tree *t, StringInfo parents, uint32 *parent_off,
			   uint32 *id_hashes, uint32 *parent_hashes)
{
	StringInfoData arena;
	RowTarget	rt;

	rt.t = t;
	rt.parent_off = parent_off;
	rt.id_hashes = id_hashes;
	rt.parent_hashes = parent_hashes;
	fs_tree_arena(&arena, t->n);
	if (t->node_form)
		fs_tree_read_nodes(winobj, t->n, &arena, parents, tree_check_row, &rt);
	else
		fs_tree_read(winobj, t->n, t->live_arg, &arena, parents, tree_check_row, &rt);
	t->ids = arena.data;
}

/* (the id index: FsIdIndex, fs_id_probe, fairshare.h) */

/*
 * Index every id, reporting a duplicated one (the first in byte order, as
 * a sort of the ids would find it), then link every row to its parent and
 * find the one root, in row order.
 */
static void
tree_link_parents(Tree *t, const char *parents, const uint32 *parent_off,
				  const uint32 *id_hashes, const uint32 *parent_hashes)
{
	FsIdIndex	ix;
	uint64		slots = fs_id_index_slots(t->n);
	const char *dup = NULL;
	int32		i;

	ix.mask = (uint32) (slots - 1);
	/* at most 4n slots of 16 bytes: within the nodes' 64 bytes each */
	ix.slots = (FsIdSlot *) t->scratch;
	memset(ix.slots, 0, sizeof(FsIdSlot) * slots);
	for (i = 0; i < t->n; i++)
	{
		const char *id = ROW_ID(t, i);
		FsIdSlot   *s;

		if (i + AHEAD < t->n)
			PREFETCH_W(&ix.slots[id_hashes[i + AHEAD] & ix.mask]);
		s = fs_id_probe(&ix, t->ids, id, id_hashes[i]);

		if (s->node != 0)
		{
			if (dup == NULL || strcmp(id, dup) < 0)
				dup = id;
			continue;
		}
		s->hash = id_hashes[i];
		s->node = i + 1;
		s->id_off = t->rows[i].id_off;
	}
	if (dup != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("association id \"%s\" appears more than once in the tree", dup),
				 errhint("Each row of a window partition must have its own id.")));

	t->root = -1;
	for (i = 0; i < t->n; i++)
	{
		const char *pid;
		FsIdSlot   *found;

		if (i + AHEAD < t->n && parent_off[i + AHEAD] != PARENT_NONE)
			PREFETCH(&ix.slots[parent_hashes[i + AHEAD] & ix.mask]);
		if (parent_off[i] == PARENT_NONE)
		{
			if (t->root >= 0)
				ereport(ERROR,
						(errcode(ERRCODE_CHECK_VIOLATION),
						 errmsg("the tree has two roots: \"%s\" and \"%s\" both have a NULL parent_id",
								ROW_ID(t, t->root), ROW_ID(t, i)),
						 errhint("Exactly one row per window partition (the root) has parent_id NULL; PARTITION BY the cluster.")));
			t->root = i;
			t->rows[i].parent = -1;
			continue;
		}
		pid = parents + parent_off[i];
		found = fs_id_probe(&ix, t->ids, pid, parent_hashes[i]);
		if (found->node == 0)
			ereport(ERROR,
					(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
					 errmsg("parent \"%s\" of association \"%s\" is not in the tree", pid, ROW_ID(t, i)),
					 errhint("Every parent_id must be the id of a row in the same window partition.")));
		t->rows[i].parent = found->node - 1;
	}
}

/*
 * An association that is not reachable from the root has an ancestor
 * chain that loops; walking up n steps from it lands inside the loop.
 */
static void
report_cycle(Tree *t, int32 v)
{
	int32		i;

	for (i = 0; i < t->n && t->rows[v].parent >= 0; i++)
		v = t->rows[v].parent;
	if (t->root < 0)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("the tree has no root: parent_id forms a cycle through association \"%s\"",
						ROW_ID(t, v)),
				 errhint("Exactly one row per window partition, the root, has parent_id NULL.")));
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("association \"%s\" is its own ancestor: parent_id forms a cycle", ROW_ID(t, v)),
			 errhint("Following parent_id from any row must end at the root, the one row whose parent_id is NULL.")));
}

/*
 * Build the nodes from the rows in lineage order: node p is the p-th of
 * the pre-order walk and t->lineage[p] its row.  Every pass after the walk
 * goes from parents to children or back, and with the nodes in row order
 * each of those steps landed anywhere in a 64-byte-per-association array
 * (at 10^6 associations a cache miss, and the passes
 * after the read were most of the time: docs/performance.md#fair-tree).
 * In lineage order a parent precedes its subtree, so depths, raw usage
 * sums, fs parents, the fs sibling groups and the ranking walk go through
 * the array in order or near it; one gather here pays for it.  The root
 * is node 0.  The sums and sorts see the same values in the same order as
 * before, so every answer is the same to the bit.
 */
static void
tree_renumber(Tree *t)
{
	int32		n = t->n;
	TreeNode   *nodes = (TreeNode *) t->scratch;	/* nothing else in it now */
	int32	   *pos = tree_alloc(sizeof(int32) * Max(n, 1));
	int32		p;

	for (p = 0; p < n; p++)
	{
		if (p + AHEAD < n)
			PREFETCH_W(&pos[t->lineage[p + AHEAD]]);
		pos[t->lineage[p]] = p;
	}
	t->max_depth = 0;
	t->n_users = 0;
	for (p = 0; p < n; p++)
	{
		const TreeRow *r = &t->rows[t->lineage[p]];
		TreeNode   *v = &nodes[p];

		/* the row 4 AHEAD, and the parent's position of the row AHEAD */
		if (p + 4 * AHEAD < n)
			PREFETCH(&t->rows[t->lineage[p + 4 * AHEAD]]);
		if (p + AHEAD < n && t->rows[t->lineage[p + AHEAD]].parent >= 0)
			PREFETCH(&pos[t->rows[t->lineage[p + AHEAD]].parent]);

		memset(v, 0, sizeof(TreeNode));
		v->total = r->usage;
		v->shares = r->shares;
		v->id_off = r->id_off;
		v->is_user = r->is_user;
		v->use_parent = r->use_parent;
		t->n_users += r->is_user ? 1 : 0;
		if (r->parent < 0)
		{
			v->up.parent = v->fs_parent = -1;
			continue;
		}
		/*
		 * The parent is an earlier node, done: its depth, and the fs parent
		 * (_set_assoc_parent_and_user; the root counts as a normal account
		 * whatever its shares)
		 */
		v->up.parent = pos[r->parent];
		v->depth = nodes[v->up.parent].depth + 1;
		t->max_depth = Max(t->max_depth, v->depth);
		v->fs_parent = (v->up.parent == 0 || !nodes[v->up.parent].use_parent)
			? v->up.parent : nodes[v->up.parent].fs_parent;
	}
	if (t->live_total != NULL)
	{
		void	   *live_base = tree_alloc(sizeof(long double) * n + 16);
		long double *live = (long double *) TYPEALIGN(16, live_base);

		for (p = 0; p < n; p++)
		{
			if (p + AHEAD < n)
				PREFETCH(&t->live_total[t->lineage[p + AHEAD]]);
			live[p] = t->live_total[t->lineage[p]];
		}
		pfree(t->live_base);
		t->live_total = live;
		t->live_base = live_base;
	}
	t->spare = t->rows;
	t->spare_size = sizeof(TreeRow) * n;
	t->rows = NULL;
	t->nodes = nodes;
	t->scratch = NULL;
	pfree(pos);
	t->root = 0;
}

/*
 * Children lists, the lineage order (an explicit-stack pre-order walk)
 * with cycle and shape checks, over the rows; then the nodes built in that
 * order (tree_renumber, with the depths) and every account's raw usage
 * (own plus descendants', summed leaves first).
 */
static void
tree_walk(Tree *t)
{
	int32		n = t->n;
	int32	   *stack;
	int32		top = 0,
				seen = 0,
				i;

	if (t->root < 0)
	{
		/* every row has a parent, so parent_id must loop somewhere */
		report_cycle(t, 0);
	}
	if (t->rows[t->root].is_user)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("the root of the tree, \"%s\", is a user", ROW_ID(t, t->root)),
				 errhint("The root must be an account (is_user false).")));

	/*
	 * Counting sort of rows by parent, straight into the sort keys of the
	 * sibling lists: reading the rows in order here, not every child again
	 * at random when its list is sorted
	 */
	/* in the nodes' memory (tree_build): 24n + 4(n + 1) + 4n + 4n bytes */
	t->kids = (LineageKey *) t->scratch;
	t->kid_start = (int32 *) (t->kids + Max(n, 1));
	memset(t->kid_start, 0, sizeof(int32) * (n + 1));
	for (i = 0; i < n; i++)
	{
		if (i + AHEAD < n && t->rows[i + AHEAD].parent >= 0)
			PREFETCH_W(&t->kid_start[t->rows[i + AHEAD].parent + 1]);
		if (t->rows[i].parent >= 0)
			t->kid_start[t->rows[i].parent + 1]++;
	}
	for (i = 0; i < n; i++)
		t->kid_start[i + 1] += t->kid_start[i];
	{
		int32	   *fill = t->kid_start + n + 1;

		memcpy(fill, t->kid_start, sizeof(int32) * n);
		for (i = 0; i < n; i++)
		{
			/* the fill count 2 AHEAD, the key it points to AHEAD */
			if (i + 2 * AHEAD < n && t->rows[i + 2 * AHEAD].parent >= 0)
				PREFETCH(&fill[t->rows[i + 2 * AHEAD].parent]);
			if (i + AHEAD < n && t->rows[i + AHEAD].parent >= 0)
				PREFETCH_W(&t->kids[fill[t->rows[i + AHEAD].parent]]);
			if (t->rows[i].parent >= 0)
			{
				LineageKey *key = &t->kids[fill[t->rows[i].parent]++];

				key->id = ROW_ID(t, i);
				key->prefix = lineage_prefix(key->id);
				key->node = i;
				key->is_user = t->rows[i].is_user;
			}
		}
	}
	for (i = 0; i < n; i++)
	{
		LineageKey *kids = t->kids + t->kid_start[i];
		int32		nk = t->kid_start[i + 1] - t->kid_start[i];

		if (nk > 0 && t->rows[i].is_user)
			ereport(ERROR,
					(errcode(ERRCODE_CHECK_VIOLATION),
					 errmsg("user association \"%s\" has a child, \"%s\"",
							ROW_ID(t, i), kids[0].id),
					 errhint("Only accounts (is_user false) can be parents.")));
		if (nk >= 2)
			sort_lineage_keys(kids, nk);
	}

	/* pre-order walk: children pushed in reverse so the first pops first */
	t->lineage = tree_alloc(sizeof(int32) * n);
	stack = t->kid_start + n + 1;	/* after fill, done */
	stack[top++] = t->root;
	while (top > 0)
	{
		int32		v = stack[--top];
		int32		k;

		t->lineage[seen++] = v;
		for (k = t->kid_start[v + 1] - 1; k >= t->kid_start[v]; k--)
		{
			/* its children's list, read when it is popped */
			PREFETCH(&t->kid_start[t->kids[k].node]);
			stack[top++] = t->kids[k].node;
		}
	}
	if (seen < n)
	{
		bool	   *reached = palloc0(sizeof(bool) * n);

		for (i = 0; i < seen; i++)
			reached[t->lineage[i]] = true;
		for (i = 0; i < n; i++)
			if (!reached[i])
				report_cycle(t, i);
	}

	t->kids = NULL;
	t->kid_start = NULL;
	tree_renumber(t);

	/*
	 * Raw usage, leaves first: reverse pre-order visits children first, so
	 * a node's total is complete when it is reached.  Raw usage is
	 * returned, and divided by, as float8: a total past float8 would give
	 * effective usage 0 and Level FS infinity below it; the first such row
	 * in row order is named.
	 */
	{
		int32		bad = -1;

		for (i = n - 1; i >= 0; i--)
		{
			TreeNode   *v = &t->nodes[i];

			if (i >= AHEAD)
				PREFETCH_W(&t->nodes[Max(t->nodes[i - AHEAD].up.parent, 0)]);
			if ((v->total > (long double) DBL_MAX
				 || (t->live_total != NULL && t->live_total[i] > (long double) DBL_MAX))
				&& (bad < 0 || t->lineage[i] < t->lineage[bad]))
				bad = i;
			if (i == 0)
				break;
			t->nodes[v->up.parent].total += v->total;
			if (t->live_total != NULL)
				t->live_total[v->up.parent] += t->live_total[i];
		}
		if (bad >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the usage beneath \"%s\" adds up to more than float8 holds", NODE_ID(t, bad)),
					 errhint("Usage is billing-seconds; a total above 1.8e308 has no meaning.")));
	}
}

/*
 * fs parents and fs sibling groups (_set_assoc_parent_and_user): the root
 * counts as a normal account whatever its shares.  Walking in lineage order
 * fills each group in lineage order, as Slurm's children lists are.  Then
 * the level shares of every group (_get_children_level_shares; a
 * Fairshare=parent member has no fs children of its own, so it adds 0).
 */
static void
tree_fs_groups(Tree *t)
{
	int32		n = t->n;
	int32	   *fill;
	int32		bad = -1;
	int32		i;

	/* the fs parents are set (tree_renumber) */
	t->fs_start = tree_alloc(sizeof(int32) * (n + 1));
	t->fs_kids = tree_alloc(sizeof(int32) * Max(n, 1));
	memset(t->fs_start, 0, sizeof(int32) * (n + 1));
	for (i = 0; i < n; i++)
		if (t->nodes[i].fs_parent >= 0)
			t->fs_start[t->nodes[i].fs_parent + 1]++;
	for (i = 0; i < n; i++)
		t->fs_start[i + 1] += t->fs_start[i];
	fill = tree_alloc(sizeof(int32) * Max(n, 1));
	memcpy(fill, t->fs_start, sizeof(int32) * n);
	for (i = 0; i < n; i++)
	{
		int32		v = i;

		if (t->nodes[v].fs_parent >= 0)
			t->fs_kids[fill[t->nodes[v].fs_parent]++] = v;
	}
	pfree(fill);

	for (i = 0; i < n; i++)
	{
		double		sum = 0.0;
		int32		k;

		for (k = t->fs_start[i]; k < t->fs_start[i + 1]; k++)
		{
			/* the groups lie one after the other in fs_kids */
			if (k + AHEAD < t->fs_start[n])
				PREFETCH_W(&t->nodes[t->fs_kids[k + AHEAD]]);
			sum += t->nodes[t->fs_kids[k]].shares;
		}
		/* S = shares / sum: an infinite sum would make every S 0 */
		if (isinf(sum) && (bad < 0 || t->lineage[i] < t->lineage[bad]))
			bad = i;
		for (k = t->fs_start[i]; k < t->fs_start[i + 1]; k++)
			t->nodes[t->fs_kids[k]].norm_shares = sum;	/* level shares */
	}
	/* the first such parent in row order is named */
	if (bad >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("the shares of the children of \"%s\" add up to more than float8 holds", NODE_ID(t, bad)),
				 errhint("Shares are relative: divide them all by the same number.")));
	t->nodes[t->root].norm_shares = 0.0;	/* level shares */
}

/* Read the partition and build the tree in the current memory context. */
static void
tree_build(WindowObject winobj, Tree *t)
{
	int64		rows = WinGetPartitionRowCount(winobj);
	void	   *nodes_base;		/* freed with the context */

	if (rows > (int64) (MaxAllocHugeSize / sizeof(TreeNode)) || rows >= PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a tree of " INT64_FORMAT " associations is too large", rows)));
	t->n = (int32) rows;
	t->rows = fs_tree_huge_alloc(sizeof(TreeRow) * t->n, &t->rows_base);
	/* every node is zeroed as its row is read (tree_read_rows) */
	if (t->live_arg >= 0)
	{
		t->live_base = tree_alloc(sizeof(long double) * t->n + 16);
		t->live_total = (long double *) TYPEALIGN(16, t->live_base);
	}
	{
		StringInfoData parents;
		uint32	   *parent_off = tree_alloc(sizeof(uint32) * Max(t->n, 1));
		uint32	   *id_hashes = tree_alloc(sizeof(uint32) * Max(t->n, 1));
		uint32	   *parent_hashes = tree_alloc(sizeof(uint32) * Max(t->n, 1));

		fs_tree_arena(&parents, t->n);
		tree_read_rows(winobj, t, &parents, parent_off, id_hashes, parent_hashes);
		/*
		 * The nodes' memory, 64-aligned (fs_tree_huge_alloc), holds the id
		 * index, then the walk's arrays, until the nodes are built in it: at 10^6
		 * associations every fresh page cost a fault and zeroing by the
		 * kernel (docs/performance.md#fair-tree), and only the pages touched
		 * count in the backend's memory.
		 */
		t->scratch = fs_tree_huge_alloc(sizeof(TreeNode) * Max(t->n, 1), &nodes_base);
		tree_link_parents(t, parents.data, parent_off, id_hashes, parent_hashes);
		pfree(parents.data);
		pfree(parent_off);
		pfree(id_hashes);
		pfree(parent_hashes);
	}
	tree_walk(t);
	tree_fs_groups(t);
}

/*
 * Fair Tree: S, U and LF of every association (_calc_assoc_fs), then the
 * ranking walk (_calc_tree_fs) with an explicit stack of sibling lists.
 */
typedef struct RankFrame
{
	int32		parent;			/* whose fs children are being walked */
	int32		next;			/* next position in fs_kids */
	bool		account_tied;	/* this list was entered tied */
	double		prev_lf;		/* LF of the previous sibling */
} RankFrame;

static void
fair_tree_compute(Tree *t)
{
	int32		n = t->n;
	RankFrame  *stack;
	int32		top = 0;
	uint32		rank = (uint32) t->n_users;
	uint32		rnt = rank;
	LevelFsKey *keys;
	int32		nkeys;
	int32		i,
				k;

	/*
	 * One pass in lineage order: the fs parent comes before its group, and
	 * its S is set by then.  S of every non-parent association; the root's
	 * is 0 as sshare shows.
	 */
	for (i = 0; i < n; i++)
	{
		TreeNode   *v = &t->nodes[i];
		TreeNode   *p;
		double		level_shares = v->norm_shares;	/* until S replaces it */
		double		parent_total,
					u;

		v->norm_shares = (i != t->root && !v->use_parent && level_shares != 0.0)
			? v->shares / level_shares : 0.0;
		if (i == t->root)
		{
			v->efctv.ft.u = 1.0;
			v->efctv.ft.level_fs = FT_NO_VAL;
			continue;
		}
		p = &t->nodes[v->fs_parent];
		parent_total = (double) p->total;
		u = (parent_total == 0.0) ? 0.0 : (double) v->total / parent_total;
		v->efctv.ft.u = u;
		if (v->use_parent)
		{
			/* S of the fs parent; the root's S is 0 */
			v->norm_shares = p->norm_shares;
			v->efctv.ft.level_fs = v->is_user ? INFINITY : FT_NO_VAL;
		}
		else if (v->norm_shares == 0.0)
			v->efctv.ft.level_fs = 0.0;
		else
			v->efctv.ft.level_fs = v->norm_shares / u;
	}

	/*
	 * Every fs group's sort keys, in fs_kids order, each group sorted in
	 * place: the ranking walk then reads LF and the flag from the keys, in
	 * order, instead of jumping to each child's node (at 10^6 associations
	 * each jump a cache miss: docs/performance.md#fair-tree).  In the rows'
	 * memory, whose pages are in already, when it is large enough (16 bytes
	 * a key against 24 a row).
	 */
	nkeys = t->fs_start[n];		/* every node but the root */
	keys = (t->spare != NULL && t->spare_size >= sizeof(LevelFsKey) * Max(nkeys, 1))
		? (LevelFsKey *) t->spare
		: tree_alloc(sizeof(LevelFsKey) * Max(nkeys, 1));
	for (k = 0; k < nkeys; k++)
	{
		const TreeNode *c = &t->nodes[t->fs_kids[k]];

		if (k + AHEAD < nkeys)
			PREFETCH(&t->nodes[t->fs_kids[k + AHEAD]]);
		keys[k].level_fs = c->efctv.ft.level_fs;
		keys[k].node = t->fs_kids[k];
		keys[k].is_user = c->is_user;
	}
	for (i = 0; i < n; i++)
		if (t->fs_start[i + 1] - t->fs_start[i] >= 2)
			sort_level_fs_keys(keys + t->fs_start[i], t->fs_start[i + 1] - t->fs_start[i]);

	/* one frame per account on the current path: at most max_depth */
	stack = tree_alloc(sizeof(RankFrame) * (t->max_depth + 1));
	stack[top].parent = t->root;
	stack[top].next = t->fs_start[t->root];
	stack[top].account_tied = false;
	stack[top].prev_lf = FT_NO_VAL;
	top++;
	while (top > 0)
	{
		RankFrame  *f = &stack[top - 1];
		const LevelFsKey *c;
		bool		tied;

		if (f->next >= t->fs_start[f->parent + 1])
		{
			top--;
			continue;
		}
		c = &keys[f->next];
		/* the node whose rank is written AHEAD steps later */
		if (f->next + AHEAD < t->fs_start[f->parent + 1])
			PREFETCH_W(&t->nodes[keys[f->next + AHEAD].node]);
		if (f->next == t->fs_start[f->parent] && f->account_tied)
			tied = true;
		else
			tied = (f->prev_lf == c->level_fs);
		f->prev_lf = c->level_fs;
		f->next++;
		if (c->is_user)
		{
			if (!tied)
				rank = rnt;
			t->nodes[c->node].up.rank = rank;	/* the parent is not needed any more */
			rnt--;
		}
		else
		{
			int32		a = c->node;

			/* its fs group's first keys, walked next */
			PREFETCH(&keys[t->fs_start[a]]);
			/* f may move when the stack grows: fill the new frame by index */
			stack[top].parent = a;
			stack[top].next = t->fs_start[a];
			stack[top].account_tied = tied;
			stack[top].prev_lf = FT_NO_VAL;
			top++;
		}
	}
	pfree(stack);
	if ((void *) keys != t->spare)
		pfree(keys);
}

/*
 * Classic (NO_FAIR_TREE, _normalize_assoc_shares_traditional and
 * _set_usage_efctv), in lineage order so the fs parent is always done:
 *   S  = S(fs parent) × shares/level_shares (0 if level_shares is 0),
 *        S(root) = 1; a Fairshare=parent row copies its fs parent's S;
 *   UN = raw usage / root raw usage, at most 1 (0 when the root has none);
 *   UE = UN under the root; UE(fs parent) for Fairshare=parent rows or
 *        when level_shares is 0; else UN + (UE(fs parent) − UN) ×
 *        shares/level_shares.
 * Slurm multiplies S from the association upwards; this multiplies from the
 * root down, the same factors, which can differ in the last bit or two.
 */
static void
classic_compute(Tree *t)
{
	long double root_total = t->nodes[t->root].total;
	int32		i;

	for (i = 0; i < t->n; i++)
	{
		TreeNode   *v = &t->nodes[i];	/* nodes are in lineage order */
		TreeNode   *p;
		double		level_shares = v->norm_shares;	/* until S replaces it */
		long double un;

		if (i == t->root)
		{
			v->norm_shares = 1.0;
			v->efctv.ue = 1.0L;
			continue;
		}
		p = &t->nodes[v->fs_parent];
		un = (root_total == 0.0L) ? 0.0L : v->total / root_total;
		if (un > 1.0L)
			un = 1.0L;

		if (v->use_parent)
			v->norm_shares = p->norm_shares;
		else if (level_shares == 0.0)
			v->norm_shares = 0.0;
		else
			v->norm_shares = p->norm_shares * (v->shares / level_shares);

		if (v->fs_parent == t->root)
			v->efctv.ue = un;
		else if (v->use_parent || level_shares == 0.0)
			v->efctv.ue = p->efctv.ue;
		else
			v->efctv.ue = un + (p->efctv.ue - un) *
				((long double) v->shares / (long double) level_shares);
	}
}

/*
 * The answer of node p (of row t->lineage[p]) for output `what`, into
 * cell.  Callers go through the nodes in order and write each answer to its
 * row's cell: a row's node lies anywhere in the node array, and its 24-byte
 * cell costs less to reach there than a 64-byte node.
 */
static void
tree_cell(Tree *t, int32 p, TreeOutput what, TreeCell *cell)
{
	TreeNode   *v = &t->nodes[p];
	bool		is_root = (p == t->root);
	long double root_total = t->nodes[t->root].total;

	/* cell->extra only for OUT_CLASSIC_FACTOR: the others are SHORT_CELL */
	cell->isnull = false;
	switch (what)
	{
		case OUT_FT_RANK:
			cell->isnull = !v->is_user;
			cell->value = (double) v->up.rank;
			break;
		case OUT_FT_FACTOR:
			cell->isnull = !v->is_user;
			cell->value = v->up.rank / (double) t->n_users;
			break;
		case OUT_FT_LEVEL_FS:
			/* sshare leaves LevelFS empty for the root and "parent" rows */
			cell->isnull = is_root || v->use_parent;
			cell->value = v->efctv.ft.level_fs;
			break;
		case OUT_FT_NORM_SHARES:
		case OUT_CLASSIC_NORM_SHARES:
			cell->value = v->norm_shares;
			break;
		case OUT_FT_EFFECTIVE_USAGE:
			cell->value = v->efctv.ft.u;
			break;
		case OUT_CLASSIC_EFFECTIVE_USAGE:
			cell->value = (double) v->efctv.ue;
			break;
		case OUT_CLASSIC_FACTOR:
			/* computed per row, with that row's dampening */
			cell->isnull = is_root;
			cell->value = (double) v->efctv.ue;
			cell->extra = v->norm_shares;
			break;
		case OUT_RAW_USAGE:
			cell->value = (double) v->total;
			break;
		case OUT_NORM_USAGE:
			if (root_total == 0.0L)
				cell->value = 0.0;
			else
				cell->value = (double) Min(v->total / root_total, 1.0L);
			break;
		case OUT_DEPTH:
			cell->value = (double) v->depth;
			break;
		case OUT_ORDER:
			cell->value = (double) (p + 1);	/* its position in lineage order */
			break;
	}
}

/*
 * Common body of every tree window function: compute the partition's
 * answers on its first call, return the current row's.
 */
/*
 * The partition-local array of per-row answers (zeroed on first use), of
 * `header` bytes then one `cell`-sized entry per row of the partition.
 */
static void *
partition_results(WindowObject winobj, Size header, Size cell)
{
	int64		rows = WinGetPartitionRowCount(winobj);

	if (rows > (int64) ((MaxAllocSize - header) / cell))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a tree of " INT64_FORMAT " associations is too large", rows)));
	return WinGetPartitionLocalMemory(winobj, header + cell * rows);
}

typedef enum TreeAlgorithm
{
	ALG_NONE,					/* shape and usage only */
	ALG_FAIR_TREE,
	ALG_CLASSIC
} TreeAlgorithm;

/*
 * Read the partition into *t and compute it, in a private memory context
 * that the caller is left in; tree_end() returns to the caller's context
 * and frees the tree once its answers are copied out.
 */
static MemoryContext
tree_begin(WindowObject winobj, Tree *t, TreeAlgorithm alg, int live_arg, bool node_form)
{
	MemoryContext work = AllocSetContextCreate(CurrentMemoryContext,
											   "fair_tree",
											   ALLOCSET_DEFAULT_SIZES);

	MemoryContextSwitchTo(work);
	memset(t, 0, sizeof(*t));
	t->live_arg = live_arg;
	t->node_form = node_form;
	tree_build(winobj, t);
	if (alg == ALG_FAIR_TREE)
		fair_tree_compute(t);
	else if (alg == ALG_CLASSIC)
		classic_compute(t);
	return work;
}

static void
tree_end(MemoryContext work)
{
	MemoryContextSwitchTo(MemoryContextGetParent(work));
	MemoryContextDelete(work);
}

static TreeCell *
tree_window_cell(FunctionCallInfo fcinfo, TreeOutput what)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	Size		stride = (what == OUT_CLASSIC_FACTOR) ? sizeof(TreeCell) : SHORT_CELL;
	TreeResults *res = partition_results(winobj, offsetof(TreeResults, cells), stride);

	if (!res->computed)
	{
		TreeAlgorithm alg = ALG_NONE;
		MemoryContext work;
		Tree		t;
		int32		i;

		switch (what)
		{
			case OUT_FT_RANK:
			case OUT_FT_FACTOR:
			case OUT_FT_LEVEL_FS:
			case OUT_FT_NORM_SHARES:
			case OUT_FT_EFFECTIVE_USAGE:
				alg = ALG_FAIR_TREE;
				break;
			case OUT_CLASSIC_NORM_SHARES:
			case OUT_CLASSIC_EFFECTIVE_USAGE:
			case OUT_CLASSIC_FACTOR:
				alg = ALG_CLASSIC;
				break;
			default:
				break;
		}
		work = tree_begin(winobj, &t, alg, -1, tree_args(fcinfo) == 1);
		for (i = 0; i < t.n; i++)
		{
			if (i + AHEAD < t.n)
				PREFETCH_W(RESULT_CELL(res, stride, t.lineage[i + AHEAD]));
			tree_cell(&t, i, what, RESULT_CELL(res, stride, t.lineage[i]));
		}
		res->computed = true;
		tree_end(work);
	}
	return RESULT_CELL(res, stride, WinGetCurrentPosition(winobj));
}

#define TREE_FLOAT8_WINDOW(sqlname, what) \
PG_FUNCTION_INFO_V1(sqlname); \
Datum \
sqlname(PG_FUNCTION_ARGS) \
{ \
	TreeCell   *cell = tree_window_cell(fcinfo, what); \
\
	if (cell->isnull) \
		PG_RETURN_NULL(); \
	PG_RETURN_FLOAT8(cell->value); \
}

#define TREE_INT_WINDOW(sqlname, what, ctype, RETURN) \
PG_FUNCTION_INFO_V1(sqlname); \
Datum \
sqlname(PG_FUNCTION_ARGS) \
{ \
	TreeCell   *cell = tree_window_cell(fcinfo, what); \
\
	if (cell->isnull) \
		PG_RETURN_NULL(); \
	RETURN((ctype) cell->value); \
}

TREE_INT_WINDOW(fs_fair_tree_rank, OUT_FT_RANK, int64, PG_RETURN_INT64)
TREE_FLOAT8_WINDOW(fs_fair_tree_factor, OUT_FT_FACTOR)
TREE_FLOAT8_WINDOW(fs_fair_tree_level_fs, OUT_FT_LEVEL_FS)
TREE_FLOAT8_WINDOW(fs_fair_tree_norm_shares, OUT_FT_NORM_SHARES)
TREE_FLOAT8_WINDOW(fs_fair_tree_effective_usage, OUT_FT_EFFECTIVE_USAGE)
TREE_FLOAT8_WINDOW(fs_classic_norm_shares, OUT_CLASSIC_NORM_SHARES)
TREE_FLOAT8_WINDOW(fs_classic_effective_usage, OUT_CLASSIC_EFFECTIVE_USAGE)
TREE_FLOAT8_WINDOW(fs_tree_raw_usage, OUT_RAW_USAGE)
TREE_FLOAT8_WINDOW(fs_tree_norm_usage, OUT_NORM_USAGE)
TREE_INT_WINDOW(fs_tree_depth, OUT_DEPTH, int32, PG_RETURN_INT32)
TREE_INT_WINDOW(fs_tree_order, OUT_ORDER, int64, PG_RETURN_INT64)

/*
 * The dampening argument of the current row: FairShareDampeningFactor, a
 * finite number > 0.
 */
static long double
dampening_arg(WindowObject winobj, int argno)
{
	bool		isnull;
	double		d = DatumGetFloat8(WinGetFuncArgCurrent(winobj, argno, &isnull));

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dampening must not be NULL"),
				 errhint("Pass FairShareDampeningFactor, 1 by default.")));
	if (isnan(d) || isinf(d) || d <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dampening must be a finite number > 0, not %s", fs_float_text(d)),
				 errhint("FairShareDampeningFactor is a positive number, 1 by default.")));
	return d;
}

/* F = 2^(−(UE/S)/d) from an OUT_CLASSIC_FACTOR cell (UE, S); 0 when S <= 0. */
static double
classic_factor_value(const TreeCell *cell, long double damp)
{
	if (cell->extra <= 0.0)
		return 0.0;
	return pow(2.0, (double) -(((long double) cell->value / cell->extra) / damp));
}

/*
 * classic_factor(..., dampening): F = 2^(−(UE/S)/d), 0 when S <= 0
 * (priority_p_calc_fs_factor); d = FairShareDampeningFactor, default 1.
 * Slurm computes F for accounts too, and sshare prints it; NULL for the
 * root.
 */
PG_FUNCTION_INFO_V1(fs_classic_factor);
Datum
fs_classic_factor(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	TreeCell   *cell;
	long double damp = 1.0L;

	int			nrow = tree_args(fcinfo);

	if (PG_NARGS() > nrow + ARG_DAMPENING)
		damp = dampening_arg(winobj, nrow + ARG_DAMPENING);
	cell = tree_window_cell(fcinfo, OUT_CLASSIC_FACTOR);
	if (cell->isnull)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(classic_factor_value(cell, damp));
}

/*
 * _sshare_tree(id, parent_id, shares, usage, is_user, algorithm, dampening)
 * OVER (PARTITION BY cluster): every tree column of sshare for a row, as a
 * _sshare_tree_row, from ONE build of the partition's tree; the same values
 * as tree_depth, tree_order, tree_raw_usage, tree_norm_usage and, for
 * algorithm 'fair_tree', fair_tree_norm_shares, fair_tree_effective_usage,
 * fair_tree_factor, fair_tree_level_fs and fair_tree_rank, or for
 * 'classic', classic_norm_shares, classic_effective_usage and
 * classic_factor(dampening) (level_fs and fs_rank NULL).  Nine separate
 * window functions would read the partition and build the tree nine times.
 * The algorithm is the cluster's, the same on every row of a partition;
 * the dampening is read (and checked) for 'classic' only.
 *
 * An eighth argument, raw_usage, is the usage now where it differs from the
 * usage the tree is computed from (NULL: the same).  slurmctld computes
 * NormUsage, EffectvUsage, FairShare and LevelFS at each pass of its decay
 * thread, while the RawUsage that sshare prints moves at once when a job
 * ends between passes (decay_mode 'slurm_passes'): the tree is computed
 * from the usage of the last pass, the raw_usage column summed from this.
 *
 * Under classic, sshare prints FairShare for the root too: 2^(−(UE/S)/d)
 * with the root's UE 1 and S 1, i.e. 0.5 undampened (sshare computes it
 * from what slurmctld sends, priority_p_calc_fs_factor in
 * priority_multifactor.c); the classic_factor window function leaves the
 * root NULL, as it is not a factor any job gets.
 */
#define ARG_ALGORITHM			0
#define ARG_SSHARE_DAMPENING	1
#define ARG_SSHARE_RAW_USAGE	2

typedef struct SshareCell
{
	TreeCell	norm_shares;
	TreeCell	efctv;
	TreeCell	factor;			/* classic: UE and S, for the row's dampening */
	TreeCell	level_fs;
	TreeCell	rank;
	double		raw_usage;
	double		norm_usage;
	int64		order;
	int32		depth;
} SshareCell;

typedef struct SshareResults
{
	bool		computed;
	bool		classic;
	SshareCell	cells[FLEXIBLE_ARRAY_MEMBER];
} SshareResults;

/* The algorithm argument of the current row: true for 'classic'. */
static bool
algorithm_is_classic(WindowObject winobj, int argno)
{
	bool		isnull;
	Datum		d = WinGetFuncArgCurrent(winobj, argno, &isnull);
	char	   *a;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("algorithm must not be NULL"),
				 errhint("Pass 'fair_tree' or 'classic', the cluster's fairshare_algorithm.")));
	a = TextDatumGetCString(d);
	if (strcmp(a, "fair_tree") == 0)
		return false;
	if (strcmp(a, "classic") == 0)
		return true;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("algorithm must be 'fair_tree' or 'classic', not \"%s\"", a),
			 errhint("Pass the cluster's fairshare_algorithm; PBS trees have their own functions.")));
	return false;				/* keep the compiler quiet */
}

/*
 * The argument carrying sshare's usage now (the raw usage column), as
 * _sshare_tree and _sshare_fairshare read it: the node itself in the node
 * form, the raw_usage argument when the other form has one, else none.
 */
static int
sshare_live_arg(FunctionCallInfo fcinfo, int nrow)
{
	if (nrow == 1)
		return FS_TREE_ARG_NODE;
	return PG_NARGS() > nrow + ARG_SSHARE_RAW_USAGE ? nrow + ARG_SSHARE_RAW_USAGE : -1;
}

/* The partition was computed with one algorithm; a row may not name another. */
static void
same_algorithm(bool classic, bool computed_classic)
{
	if (classic != computed_classic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("algorithm must be the same on every row of a window partition"),
				 errhint("PARTITION BY the cluster, whose fairshare_algorithm is one.")));
}

PG_FUNCTION_INFO_V1(fs_sshare_tree);
Datum
fs_sshare_tree(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	int			nrow = tree_args(fcinfo);
	bool		classic = algorithm_is_classic(winobj, nrow + ARG_ALGORITHM);
	long double damp = classic ? dampening_arg(winobj, nrow + ARG_SSHARE_DAMPENING) : 1.0L;
	TupleDesc	tupdesc = (TupleDesc) fcinfo->flinfo->fn_extra;
	SshareResults *res = partition_results(winobj, offsetof(SshareResults, cells),
										   sizeof(SshareCell));
	SshareCell *c;
	Datum		values[9];
	bool		nulls[9];

	if (!res->computed)
	{
		Tree		t;
		/* the node form carries the usage now in the node (tree.c) */
		MemoryContext work = tree_begin(winobj, &t, classic ? ALG_CLASSIC : ALG_FAIR_TREE,
										sshare_live_arg(fcinfo, nrow), nrow == 1);
		int32		i;

		for (i = 0; i < t.n; i++)
		{
			SshareCell *cell = &res->cells[t.lineage[i]];
			TreeCell	tmp;

			if (i + AHEAD < t.n)
				PREFETCH_W(&res->cells[t.lineage[i + AHEAD]]);

			tree_cell(&t, i, OUT_DEPTH, &tmp);
			cell->depth = (int32) tmp.value;
			tree_cell(&t, i, OUT_ORDER, &tmp);
			cell->order = (int64) tmp.value;
			cell->raw_usage = (double) (t.live_total != NULL ? t.live_total[i]
										: t.nodes[i].total);
			tree_cell(&t, i, OUT_NORM_USAGE, &tmp);
			cell->norm_usage = tmp.value;
			if (classic)
			{
				tree_cell(&t, i, OUT_CLASSIC_NORM_SHARES, &cell->norm_shares);
				tree_cell(&t, i, OUT_CLASSIC_EFFECTIVE_USAGE, &cell->efctv);
				tree_cell(&t, i, OUT_CLASSIC_FACTOR, &cell->factor);
				if (i == t.root)
					cell->factor.isnull = false;	/* UE 1, S 1 */
				cell->level_fs.isnull = true;
				cell->rank.isnull = true;
			}
			else
			{
				tree_cell(&t, i, OUT_FT_NORM_SHARES, &cell->norm_shares);
				tree_cell(&t, i, OUT_FT_EFFECTIVE_USAGE, &cell->efctv);
				tree_cell(&t, i, OUT_FT_FACTOR, &cell->factor);
				tree_cell(&t, i, OUT_FT_LEVEL_FS, &cell->level_fs);
				tree_cell(&t, i, OUT_FT_RANK, &cell->rank);
			}
		}
		res->classic = classic;
		res->computed = true;
		tree_end(work);
	}
	same_algorithm(classic, res->classic);

	if (tupdesc == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "_sshare_tree must return a composite type");
		tupdesc = BlessTupleDesc(CreateTupleDescCopy(tupdesc));
		fcinfo->flinfo->fn_extra = tupdesc;
		MemoryContextSwitchTo(oldcxt);
	}

	c = &res->cells[WinGetCurrentPosition(winobj)];
	memset(nulls, 0, sizeof(nulls));
	values[0] = Int32GetDatum(c->depth);
	values[1] = Int64GetDatum(c->order);
	values[2] = Float8GetDatum(c->norm_shares.value);
	values[3] = Float8GetDatum(c->raw_usage);
	values[4] = Float8GetDatum(c->norm_usage);
	values[5] = Float8GetDatum(c->efctv.value);
	nulls[6] = c->factor.isnull;
	if (!nulls[6])
		values[6] = Float8GetDatum(classic ? classic_factor_value(&c->factor, damp)
								   : c->factor.value);
	nulls[7] = c->level_fs.isnull;
	values[7] = Float8GetDatum(c->level_fs.value);
	nulls[8] = c->rank.isnull;
	values[8] = Int64GetDatum((int64) c->rank.value);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

typedef struct FairshareResults
{
	bool		computed;
	bool		classic;
	TreeCell	cells[FLEXIBLE_ARRAY_MEMBER];
} FairshareResults;

/*
 * _sshare_fairshare(node, algorithm, dampening): _sshare_tree's FairShare
 * alone, from the same tree and the same cells, for the fair-share factors
 * a usage checkpoint caches: without the eight other columns and a
 * composite formed for every row, which at 10^5 associations were a third
 * of the window's time (docs/performance.md#sparse-checkpoints-at-105-associations).
 */
PG_FUNCTION_INFO_V1(fs_sshare_fairshare);
Datum
fs_sshare_fairshare(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	int			nrow = tree_args(fcinfo);
	bool		classic = algorithm_is_classic(winobj, nrow + ARG_ALGORITHM);
	long double damp = classic ? dampening_arg(winobj, nrow + ARG_SSHARE_DAMPENING) : 1.0L;
	FairshareResults *res = partition_results(winobj, offsetof(FairshareResults, cells),
											  sizeof(TreeCell));
	TreeCell   *c;

	if (!res->computed)
	{
		Tree		t;
		/* read as _sshare_tree reads it, the usage now with it */
		MemoryContext work = tree_begin(winobj, &t, classic ? ALG_CLASSIC : ALG_FAIR_TREE,
										sshare_live_arg(fcinfo, nrow), nrow == 1);
		TreeOutput	what = classic ? OUT_CLASSIC_FACTOR : OUT_FT_FACTOR;
		int32		i;

		for (i = 0; i < t.n; i++)
		{
			TreeCell   *cell = &res->cells[t.lineage[i]];

			if (i + AHEAD < t.n)
				PREFETCH_W(&res->cells[t.lineage[i + AHEAD]]);
			tree_cell(&t, i, what, cell);
			if (classic && i == t.root)
				cell->isnull = false;	/* UE 1, S 1, as _sshare_tree */
		}
		res->classic = classic;
		res->computed = true;
		tree_end(work);
	}
	same_algorithm(classic, res->classic);
	c = &res->cells[WinGetCurrentPosition(winobj)];
	if (c->isnull)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(classic ? classic_factor_value(c, damp) : c->value);
}
