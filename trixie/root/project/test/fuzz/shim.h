/*
 * shim.h — just enough of a PostgreSQL backend to run fairshare's C parsers
 * in a libFuzzer harness (test/fuzz/shim.c).
 *
 * A harness compiles the real extension/AREA.c file and links this shim in
 * place of the server: palloc and friends over malloc (every chunk recorded,
 * so that one call's memory is freed at once, like a memory context reset),
 * ereport(ERROR) as a longjmp back to the harness (a rejected input, not a
 * crash), the varlena helpers, and the few date-time routines import.c uses.
 */
#ifndef FAIRSHARE_FUZZ_SHIM_H
#define FAIRSHARE_FUZZ_SHIM_H

#include "postgres.h"

#include <setjmp.h>
#include <stdint.h>

/* Where ereport(ERROR) returns to; set by SHIM_TRY. */
extern sigjmp_buf *shim_error_jump;

/* The SQLSTATE (PGSIXBIT-encoded errcode) and message of the last ERROR. */
extern int	shim_last_sqlstate;
extern char shim_last_message[1024];

/* Run stmt; true if it returned, false if it raised an ERROR.  Nests. */
#define SHIM_TRY(stmt) \
	({ \
		sigjmp_buf	jb_; \
		sigjmp_buf *volatile prev_ = shim_error_jump; \
		bool		ok_ = false; \
		if (sigsetjmp(jb_, 0) == 0) \
		{ \
			shim_error_jump = &jb_; \
			stmt; \
			ok_ = true; \
		} \
		shim_error_jump = prev_; \
		ok_; \
	})

/* Free every chunk palloc'd since the last reset (a context reset). */
extern void shim_reset(void);

/* A text datum holding len bytes of data (palloc'd, 4-byte header). */
extern text *shim_text(const char *data, size_t len);

/* Abort (a finding) unless the last ERROR's SQLSTATE is one of allowed. */
extern void shim_expect_sqlstate(const char *const *allowed, const char *what);

/*
 * Composite results (import.c): get_call_result_type() answers with a row
 * type of shim_result_natts columns, and heap_form_tuple() hands every row
 * to shim_check_row, where the harness checks the values it expects.
 */
extern int	shim_result_natts;
extern void (*shim_check_row) (int natts, const Datum *values, const bool *nulls);

#endif							/* FAIRSHARE_FUZZ_SHIM_H */
