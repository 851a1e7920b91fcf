/*
 * citus.c — the reports' SQL functions on a Citus cluster (docs/citus.md).
 *
 * Citus decides whether a query needs distributed planning from the tables
 * the query names before PostgreSQL's planner runs.  fairshare's reports are
 * SQL functions (sshare_at, sprio_at, association_usage_at, pbsfs_at, ...)
 * that the planner inlines into the calling query: only then do the Citus
 * tables they read appear, too late, and Citus stops with "parameterized
 * queries for SQL functions referencing distributed tables are not
 * supported".  Rewriting them in PL/pgSQL would lose the inlining the
 * single-server plans rely on (a caller's WHERE pushed into the function,
 * one plan for the whole report; docs/performance.md).
 *
 * Instead, when Citus is loaded, a planner hook that runs before Citus's
 * does the planner's own inlining of fairshare's set-returning SQL
 * functions first, with PostgreSQL's inline_set_returning_function, in every
 * query level, so that Citus sees the tables.  The query is the one the
 * planner would have built itself.  Without Citus the hook is not installed
 * and nothing changes.  It is installed when the library is loaded before
 * any query plans: shared_preload_libraries = 'citus,fairshare' on every
 * node (distribute() checks this, through fs_citus_inliner()).
 *
 * Citus 13 runs on PostgreSQL 15 to 17; the hook is built for those, against
 * the planner entry points they share.  On other majors the library loads
 * without it, and distribute() refuses.
 */
#include "postgres.h"

#include "catalog/pg_proc.h"
#include "catalog/namespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/planner.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

void		_PG_init(void);

#if PG_VERSION_NUM >= 150000 && PG_VERSION_NUM < 180000
#define FS_CITUS_HOOK 1
#endif

static bool hook_from_preload = false;

#ifdef FS_CITUS_HOOK

static planner_hook_type prev_planner_hook = NULL;

typedef struct
{
	PlannerInfo *root;
	Oid			nsp;			/* the fairshare extension's schema */
	Oid			internal_nsp;	/* and that of its private routines */
} fs_inline_context;

static bool fs_inline_walker(Node *node, fs_inline_context *cxt);

/* Inline the fairshare SQL functions in one query's FROM, then go deeper. */
static void
fs_inline_query(Query *query, fs_inline_context *cxt)
{
	ListCell   *lc;

	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);
		RangeTblFunction *rtfunc;
		Query	   *sub;
		Oid			fn_nsp;

		if (rte->rtekind != RTE_FUNCTION || rte->funcordinality || list_length(rte->functions) != 1)
			continue;
		rtfunc = (RangeTblFunction *) linitial(rte->functions);
		if (!IsA(rtfunc->funcexpr, FuncExpr))
			continue;
		fn_nsp = get_func_namespace(((FuncExpr *) rtfunc->funcexpr)->funcid);
		if (fn_nsp != cxt->nsp && fn_nsp != cxt->internal_nsp)
			continue;
		/* NULL when the planner would not inline it either (PL/pgSQL, ...) */
		sub = inline_set_returning_function(cxt->root, rte);
		if (sub == NULL)
			continue;
		/* as the planner's preprocess_function_rtes() turns it into a subquery */
		rte->rtekind = RTE_SUBQUERY;

		/*
		 * Citus deparses the query it sends to a node: the subquery's
		 * columns must keep the function's column names, which the outer
		 * query refers to (the subquery's own names may be "?column?").
		 * Column aliases are printed when the RTE has them.
		 */
		rte->alias = makeAlias(rte->alias ? rte->alias->aliasname : rte->eref->aliasname,
							   copyObject(rte->eref->colnames));
		rte->subquery = sub;
		rte->security_barrier = false;
		rte->functions = NIL;
		rte->funcordinality = false;
	}
	/* subqueries (those just inlined too), CTEs, sublinks */
	query_tree_walker(query, fs_inline_walker, (void *) cxt, 0);
}

static bool
fs_inline_walker(Node *node, fs_inline_context *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		fs_inline_query((Query *) node, cxt);
		return false;
	}
	return expression_tree_walker(node, fs_inline_walker, (void *) cxt);
}

static PlannedStmt *
fs_planner(Query *parse, const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	PlannerGlobal glob;
	PlannerInfo root;
	PlannedStmt *result;
	Oid			nsp;

	MemSet(&glob, 0, sizeof(glob));
	MemSet(&root, 0, sizeof(root));
	root.type = T_PlannerInfo;
	glob.type = T_PlannerGlobal;
	glob.boundParams = boundParams;
	root.glob = &glob;
	root.parse = parse;

	/*
	 * the extension's schemas: fixed, not relocatable (fairshare.control;
	 * CONTRIBUTING.md#writing-sql-in-the-pieces)
	 */
	nsp = get_namespace_oid("fairshare", true);
	if (OidIsValid(nsp))
	{
		fs_inline_context cxt;

		cxt.root = &root;
		cxt.nsp = nsp;
		cxt.internal_nsp = get_namespace_oid("fairshare_internal", true);
		fs_inline_query(parse, &cxt);
	}

	if (prev_planner_hook)
		result = prev_planner_hook(parse, query_string, cursorOptions, boundParams);
	else
		result = standard_planner(parse, query_string, cursorOptions, boundParams);

	/*
	 * What inlining records, as the planner would have: the plan depends on
	 * the inlined functions (a cached plan is replanned when one changes),
	 * and on the role when they brought row-level security in.
	 */
	result->invalItems = list_concat(result->invalItems, glob.invalItems);
	if (glob.dependsOnRole)
		result->dependsOnRole = true;
	return result;
}

#endif							/* FS_CITUS_HOOK */

void
_PG_init(void)
{
#ifdef FS_CITUS_HOOK
	/* Citus defines its settings when it loads; without it, nothing to do */
	if (GetConfigOption("citus.shard_count", true, false) == NULL)
		return;
	prev_planner_hook = planner_hook;
	planner_hook = fs_planner;
	hook_from_preload = process_shared_preload_libraries_in_progress;
#endif
}

/* Whether the hook above runs for every query of this server. */
PG_FUNCTION_INFO_V1(fs_citus_inliner);
Datum
fs_citus_inliner(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(hook_from_preload);
}
