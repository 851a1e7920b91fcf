/*
 * Compares what a driver read (test/bi/BiJdbc.java, test/bi/odbc.c) with
 * what psql printed for the same query at the same instant, for
 * test/bi_drivers.sh (docs/reports.md#bi-tools).
 *
 *   bi_compare META EXPECTED ACTUAL
 *
 * EXPECTED is psql's unaligned output (fields separated by 0x1f, rows by
 * 0x1e, NULL as \N, a final newline); ACTUAL the driver's rows (each ended
 * by 0x1e); META the driver's column kinds.  The same number of rows, in
 * the same order (the queries end with ORDER BY every column), and every
 * field equal as text, except a float: both sides are read with strtod and
 * must be the same double (psql prints the shortest text that reads back
 * as the stored double, the drivers print 17 digits or Java's shortest
 * form; NaN equals NaN, and -0 differs from 0).  Prints nothing and exits
 * 0 when they agree; else a "# " line naming the first difference, exit 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
slurp(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0)
	{
		perror(path);
		exit(2);
	}
	rewind(f);
	buf = malloc((size_t) n + 1);
	if (buf == NULL || fread(buf, 1, (size_t) n, f) != (size_t) n)
	{
		perror(path);
		exit(2);
	}
	buf[n] = '\0';
	fclose(f);
	*len = (size_t) n;
	return buf;
}

/* Splits s in place at every sep; returns the pieces' count. */
static size_t
split(char *s, char sep, char ***out)
{
	size_t		n = 1, i = 0;
	char	  **v;

	for (char *p = s; *p; p++)
		n += (*p == sep);
	v = malloc(n * sizeof *v);
	v[i++] = s;
	for (char *p = s; *p; p++)
		if (*p == sep)
		{
			*p = '\0';
			v[i++] = p + 1;
		}
	*out = v;
	return n;
}

/* A float's text as a double: 0 if it is not all a number. */
static int
read_double(const char *s, double *v)
{
	char	   *end;

	if (*s == '\0')
		return 0;
	*v = strtod(s, &end);
	return *end == '\0';
}

static int
same_float(const char *a, const char *b)
{
	double		x, y;

	if (strcmp(a, "\\N") == 0 || strcmp(b, "\\N") == 0)
		return strcmp(a, b) == 0;
	if (!read_double(a, &x) || !read_double(b, &y))
		return 0;
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	return x == y && signbit(x) == signbit(y);
}

int
main(int argc, char **argv)
{
	size_t		mlen, elen, alen, ncols = 0, nexp, nact;
	char	   *meta, *exp, *act, **mlines, **erows, **arows;
	char	  **kinds;

	if (argc != 4)
	{
		fprintf(stderr, "usage: %s META EXPECTED ACTUAL\n", argv[0]);
		return 2;
	}
	meta = slurp(argv[1], &mlen);
	exp = slurp(argv[2], &elen);
	act = slurp(argv[3], &alen);

	/* the kinds: the second field of each line after the first */
	if (mlen > 0 && meta[mlen - 1] == '\n')
		meta[mlen - 1] = '\0';
	{
		size_t		n = split(meta, '\n', &mlines);

		kinds = malloc(n * sizeof *kinds);
		for (size_t i = 1; i < n; i++)
		{
			char	   *k = strchr(mlines[i], '\t');

			if (k == NULL)
				continue;
			k++;
			kinds[ncols++] = k;
			if ((k = strchr(k, '\t')) != NULL)
				*k = '\0';
		}
	}

	/* psql: no output for no rows, else rows and one final newline */
	if (elen == 0)
		nexp = 0;
	else
	{
		if (exp[elen - 1] == '\n')
			exp[elen - 1] = '\0';
		nexp = split(exp, '\036', &erows);
	}
	/* the driver: every row ended by 0x1e */
	if (alen == 0)
		nact = 0;
	else
	{
		if (act[alen - 1] == '\036')
			act[alen - 1] = '\0';
		nact = split(act, '\036', &arows);
	}
	if (nexp != nact)
	{
		printf("# %zu rows from psql, %zu through the driver\n", nexp, nact);
		return 1;
	}
	for (size_t r = 0; r < nexp; r++)
	{
		char	  **ef, **af;
		size_t		ne = split(erows[r], '\037', &ef),
					na = split(arows[r], '\037', &af);

		if (ne != na || ne != ncols)
		{
			printf("# row %zu: %zu fields from psql, %zu through the driver, %zu columns\n", r + 1, ne, na, ncols);
			return 1;
		}
		for (size_t c = 0; c < ncols; c++)
		{
			int			same = strcmp(kinds[c], "float") == 0 ? same_float(ef[c], af[c])
				: strcmp(ef[c], af[c]) == 0;

			if (!same)
			{
				printf("# row %zu, column %zu (%s): psql '%.200s', driver '%.200s'\n",
					   r + 1, c + 1, kinds[c], ef[c], af[c]);
				return 1;
			}
		}
		free(ef);
		free(af);
	}
	return 0;
}
