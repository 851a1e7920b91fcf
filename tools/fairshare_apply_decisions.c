/*
 * fairshare_apply_decisions: runs fairshare's decisions for a cluster
 * (fairshare.slurm_decisions) as sacctmgr commands, with no shell.
 *
 *   fairshare_apply_decisions [-n] [-d conninfo] [-s schema] [-S sacctmgr] cluster
 *
 * Each decision row carries the arguments of sacctmgr (argv); this program
 * hands them to execvp() as they are, one process per decision, in the
 * order of the rows, and stops at the first sacctmgr that fails (as sh -e
 * did).  No shell ever parses a name, and every argument is checked again
 * here before it is run: one that sacctmgr could read as an option (a
 * leading -), as a list (a comma), or as anything but one word is refused
 * (docs/security.md#the-slurm-loop).  Decisions the database refused
 * (column refused) are reported, never run.
 *
 *   -n          print what would run, run nothing
 *   -d conninfo libpq connection string (default: the PG* environment)
 *   -s schema   fairshare's schema (default: fairshare)
 *   -S path     the sacctmgr to run (default: sacctmgr, found in PATH)
 *
 * Exit status: 0 every decision ran, none refused; 2 every runnable
 * decision ran, some were refused; 1 an error (connection, query, a
 * sacctmgr that failed: the decisions after it are not run).
 *
 * Written for docs/slurmdbd.md#applying-the-decisions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libpq-fe.h>

/* bounds on what a decision may hold (a sacctmgr command has about 10) */
#define MAX_ARGS 32
#define MAX_ARG_LEN 256

static void
usage(void)
{
	fprintf(stderr,
			"usage: fairshare_apply_decisions [-n] [-d conninfo] [-s schema] [-S sacctmgr] cluster\n"
			"runs fairshare.slurm_decisions(cluster) with sacctmgr, no shell (docs/slurmdbd.md)\n");
}

/*
 * Prints s on one line: printable ASCII as it is, anything else as \xNN,
 * so that a hostile name cannot forge lines of the report.
 */
static void
print_escaped(FILE *out, const char *s)
{
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
}

/*
 * Whether one argument of sacctmgr may be run: non-empty, bounded, only
 * letters, digits and _ . @ / = -, and not - first (getopt would read an
 * option).  What slurm_decisions builds always passes; this check is
 * what holds if the database did not (docs/security.md#the-slurm-loop).
 */
static const char *
arg_problem(const char *a, int position)
{
	size_t		len = strlen(a);

	if (len == 0)
		return "an empty argument";
	if (len > MAX_ARG_LEN)
		return "an argument longer than 256 bytes";
	if (a[0] == '-' && !(position == 0 && strcmp(a, "-i") == 0))
		return "an argument beginning with - (an option of sacctmgr)";
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) a[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
			  || c == '_' || c == '.' || c == '@' || c == '/' || c == '=' || c == '-'))
			return "an argument holding a character other than letters, digits, _ . @ / = -";
	}
	return NULL;
}

/*
 * Parses a text[] as PostgreSQL prints it ({a,b,c}).  The elements were
 * checked in SQL to need no quoting; an element that does ("...") is
 * refused here rather than unquoted.  Returns the count, -1 if refused.
 */
static int
parse_argv(char *text, char **args)
{
	size_t		len = strlen(text);
	int			n = 0;
	char	   *p;

	if (len < 2 || text[0] != '{' || text[len - 1] != '}')
		return -1;
	text[len - 1] = '\0';
	p = text + 1;
	if (*p == '\0')
		return 0;
	for (;;)
	{
		char	   *comma = strchr(p, ',');

		if (n >= MAX_ARGS)
			return -1;
		if (comma)
			*comma = '\0';
		if (*p == '"' || arg_problem(p, n) != NULL)
			return -1;
		args[n++] = p;
		if (!comma)
			break;
		p = comma + 1;
	}
	return n;
}

/* Runs sacctmgr with args, no shell; returns its exit status, -1 if none. */
static int
run_sacctmgr(const char *sacctmgr, char **args, int nargs)
{
	char	   *argv[MAX_ARGS + 2];
	pid_t		pid;
	int			status;

	argv[0] = (char *) sacctmgr;
	for (int i = 0; i < nargs; i++)
		argv[i + 1] = args[i];
	argv[nargs + 1] = NULL;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
	{
		perror("fairshare_apply_decisions: fork");
		return -1;
	}
	if (pid == 0)
	{
		execvp(sacctmgr, argv);
		fprintf(stderr, "fairshare_apply_decisions: cannot run %s: %s\n", sacctmgr, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
	{
		if (errno != EINTR)
		{
			perror("fairshare_apply_decisions: waitpid");
			return -1;
		}
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
main(int argc, char **argv)
{
	const char *conninfo = "";
	const char *schema = "fairshare";
	const char *sacctmgr = "sacctmgr";
	const char *cluster;
	int			dry_run = 0;
	int			opt;
	int			refused = 0;
	int			applied = 0;
	PGconn	   *conn;
	PGresult   *res;
	char	   *schema_ident;
	char	   *query;
	const char *params[1];

	while ((opt = getopt(argc, argv, "nd:s:S:h")) != -1)
	{
		switch (opt)
		{
			case 'n':
				dry_run = 1;
				break;
			case 'd':
				conninfo = optarg;
				break;
			case 's':
				schema = optarg;
				break;
			case 'S':
				sacctmgr = optarg;
				break;
			default:
				usage();
				return opt == 'h' ? 0 : 1;
		}
	}
	if (optind != argc - 1)
	{
		usage();
		return 1;
	}
	cluster = argv[optind];

	conn = PQconnectdb(conninfo);
	if (PQstatus(conn) != CONNECTION_OK)
	{
		fprintf(stderr, "fairshare_apply_decisions: cannot connect: %s", PQerrorMessage(conn));
		PQfinish(conn);
		return 1;
	}
	/* the schema is an identifier, the cluster a parameter: neither is SQL */
	schema_ident = PQescapeIdentifier(conn, schema, strlen(schema));
	if (schema_ident == NULL)
	{
		fprintf(stderr, "fairshare_apply_decisions: bad schema name: %s", PQerrorMessage(conn));
		PQfinish(conn);
		return 1;
	}
	query = malloc(strlen(schema_ident) + 200);
	if (query == NULL)
	{
		fprintf(stderr, "fairshare_apply_decisions: out of memory\n");
		return 1;
	}
	sprintf(query, "SELECT step, account, user_name, argv, reason, refused FROM %s.slurm_decisions($1)", schema_ident);
	PQfreemem(schema_ident);
	params[0] = cluster;
	res = PQexecParams(conn, query, 1, NULL, params, NULL, NULL, 0);
	free(query);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
	{
		fprintf(stderr, "fairshare_apply_decisions: slurm_decisions failed: %s", PQerrorMessage(conn));
		PQclear(res);
		PQfinish(conn);
		return 1;
	}
	/* every decision read before any runs: nothing reads the database after */
	PQfinish(conn);

	for (int row = 0; row < PQntuples(res); row++)
	{
		char	   *args[MAX_ARGS];
		int			nargs;
		int			rc;

		if (!PQgetisnull(res, row, 5) || PQgetisnull(res, row, 3))
		{
			refused++;
			printf("refused step %s, account ", PQgetvalue(res, row, 0));
			print_escaped(stdout, PQgetvalue(res, row, 1));
			if (!PQgetisnull(res, row, 2))
			{
				printf(", user ");
				print_escaped(stdout, PQgetvalue(res, row, 2));
			}
			printf(": ");
			print_escaped(stdout, PQgetisnull(res, row, 5) ? "refused: no arguments" : PQgetvalue(res, row, 5));
			printf("\n");
			continue;
		}
		nargs = parse_argv(PQgetvalue(res, row, 3), args);
		if (nargs <= 0)
		{
			refused++;
			printf("refused step %s, account ", PQgetvalue(res, row, 0));
			print_escaped(stdout, PQgetvalue(res, row, 1));
			printf(": refused: %s\n", "an argument sacctmgr could not take as one word");
			continue;
		}
		printf("%s", sacctmgr);
		for (int i = 0; i < nargs; i++)
			printf(" %s", args[i]);
		printf("  # ");
		print_escaped(stdout, PQgetvalue(res, row, 4));
		printf("\n");
		if (dry_run)
			continue;
		rc = run_sacctmgr(sacctmgr, args, nargs);
		if (rc != 0)
		{
			fprintf(stderr, "fairshare_apply_decisions: sacctmgr failed (status %d) at step %s; the decisions after it were not run\n",
					rc, PQgetvalue(res, row, 0));
			PQclear(res);
			return 1;
		}
		applied++;
	}
	printf("# %d applied%s, %d refused\n", applied, dry_run ? " (dry run: none run)" : "", refused);
	PQclear(res);
	return refused > 0 ? 2 : 0;
}
