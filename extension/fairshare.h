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

#include "datatype/timestamp.h"
#include "fmgr.h"

#if PG_VERSION_NUM < 150000
#error "fairshare needs PostgreSQL 15 or later"
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

#endif							/* FAIRSHARE_H */
