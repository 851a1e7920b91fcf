/*
 * lab.c — the policy lab's reports run with a scenario (docs/history.md#the-policy-lab).
 *
 * A report of a scenario (sshare_at(as_of, scenario), sprio_at(as_of,
 * scenario)) sets fairshare.scenario for its own duration and runs the live
 * report, whose settings readers lay the scenario's overrides over the
 * settings as of as_of.  The functions carry SET fairshare.scenario = '' so
 * that PostgreSQL saves the setting when they start and puts it back when
 * they return or fail.
 *
 * set_config() cannot give the setting its value there: it is refused while
 * the calling query runs in parallel mode ("cannot set parameters during a
 * parallel operation"), which is the case in the leader of any query with a
 * Gather, for example a report joining a scenario's answer with the live
 * one.  PostgreSQL allows one kind of change in parallel mode: the one a
 * function's SET clause makes, saved for the function's duration and undone
 * when it ends (no worker shares the function's execution, so none needs to
 * see it).  fs_lab_scenario_enter makes that same change, at the nest level
 * the calling function's SET clause opened, so it is undone with it.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "fairshare.h"

PG_FUNCTION_INFO_V1(fs_lab_scenario_enter);

/*
 * _scenario_enter(scenario): sets fairshare.scenario for the duration of the
 * calling function, which must have SET fairshare.scenario in its
 * definition (lab.sql).  The name was checked by _scenario_check: a row of
 * scenarios, never more than a name (the readers compare it).
 */
Datum
fs_lab_scenario_enter(PG_FUNCTION_ARGS)
{
	char	   *scenario;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the scenario must not be NULL"),
				 errhint("Name a scenario of fairshare.scenarios.")));
	scenario = text_to_cstring(PG_GETARG_TEXT_PP(0));
	(void) set_config_option("fairshare.scenario", scenario,
							 PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, ERROR, false);
	PG_RETURN_TEXT_P(cstring_to_text(scenario));
}
