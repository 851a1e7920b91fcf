# fairshare — PGXS build.  `make`, `make install`, `make installcheck`,
# `make prove_installcheck`, and the README's targets `make test` / `make demo`
# (both wrap a throwaway cluster made by pg_virtualenv).

EXTENSION  = fairshare
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(EXTENSION).control)
PGFILEDESC = "fairshare - HPC centre accounting policies"

MODULE_big = fairshare
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard extension/*.c)))

# The install script of the current version is assembled from one SQL piece per
# policy area, in dependency order.  Released versions' scripts are kept
# verbatim as extension/fairshare--A.sql, and so are the upgrade scripts up to
# the last release (--A--B.sql).  The upgrade from the last release to the
# current version is built: the hand-written data-change file
# extension/updates/A--B.sql (tables, types, indexes, data, drops), then every
# function, procedure, aggregate, view, trigger, comment and grant of the
# pieces, re-created (tools/sql_code.pl; CONTRIBUTING.md#upgrades).
SQL_ORDER  = head billing decay model limits usage checkpoint fair_tree pbs metacentrum \
             priority sshare sprio import nice history citus reports genci rwth lab \
             efficiency statements slurmdbd security
SQL_PIECES = $(wildcard $(addprefix extension/,$(addsuffix .sql,$(SQL_ORDER))))
UPDATES    = $(wildcard extension/updates/*--$(EXTVERSION).sql)
UPGRADES_built = $(patsubst extension/updates/%.sql,extension/$(EXTENSION)--%.sql,$(UPDATES))
DATA_built = extension/$(EXTENSION)--$(EXTVERSION).sql $(UPGRADES_built)
DATA       = $(filter-out $(DATA_built),$(wildcard extension/$(EXTENSION)--*.sql))

# pg_regress: `install` first (it creates the extension), then every suite.
REGRESS_SUITES = $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS = install $(filter-out install,$(REGRESS_SUITES))
ISOLATION = $(sort $(basename $(notdir $(wildcard specs/*.spec))))

PG_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers
# libm linked by name, so that exp2/exp/pow bind to glibc's current symbol
# versions; unversioned, they bind to the SVID compatibility wrappers, which
# give the same results through an extra call per row
# (docs/performance.md#decayed_usage).
SHLIB_LINK += -lm

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# every C file includes the shared header
$(OBJS): extension/fairshare.h

# The program that applies slurm_decisions' rows with sacctmgr, without a
# shell (docs/slurmdbd.md#applying-the-decisions): built with the module,
# installed beside PostgreSQL's programs.
APPLIER = tools/fairshare_apply_decisions
all: $(APPLIER)
$(APPLIER): $(APPLIER).c
	$(CC) $(CFLAGS) $(COPT) -Wall -Wextra -Wno-sign-compare -I$(includedir) -o $@ $< -L$(libdir) -lpq
install: install-applier
.PHONY: install-applier
install-applier: $(APPLIER)
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_PROGRAM) $(APPLIER) '$(DESTDIR)$(bindir)/fairshare_apply_decisions'
EXTRA_CLEAN += $(APPLIER)

extension/$(EXTENSION)--$(EXTVERSION).sql: $(SQL_PIECES) $(EXTENSION).control
	cat $(SQL_PIECES) > $@

$(UPGRADES_built): extension/$(EXTENSION)--%.sql: extension/updates/%.sql $(SQL_PIECES) tools/sql_code.pl $(EXTENSION).control
	{ printf '%s\n' '-- built by the Makefile from $< and the pieces (tools/sql_code.pl): do not edit' \
	    '\echo Use "ALTER EXTENSION $(EXTENSION) UPDATE TO '"'"'$(EXTVERSION)'"'"'" to load this file. \quit' ''; \
	  cat $<; perl tools/sql_code.pl $(SQL_PIECES); } > $@.tmp && mv $@.tmp $@

PG_PROVE ?= pg_prove
PGTAP_TESTS = $(sort $(wildcard test/tap/*.sql))

# The C layout (.clang-format, .editorconfig; CONTRIBUTING.md#layout):
# `make indent` rewrites extension/*.c and *.h in place, `make indent-check`
# lists what it would change and fails if anything.
CLANG_FORMAT ?= clang-format
C_SOURCES = $(sort $(wildcard extension/*.c extension/*.h))
.PHONY: indent indent-check
indent:
	$(CLANG_FORMAT) --style=file -i $(C_SOURCES)
indent-check:
	@status=0; for f in $(C_SOURCES); do \
	  $(CLANG_FORMAT) --style=file "$$f" | diff -u "$$f" - || status=1; done; exit $$status

.PHONY: prove_installcheck test demo bench
prove_installcheck:
	$(PG_PROVE) --verbose --failures $(PGTAP_TESTS)

# Throwaway cluster around every suite (see test/cluster.sh).
test:
	bash test/cluster.sh test

demo:
	bash test/cluster.sh demo

bench:
	bash test/cluster.sh bench

# Build with AddressSanitizer and UndefinedBehaviorSanitizer and run every
# suite against a server started with the ASan runtime preloaded; fails on any
# report (test/sanitize.sh).
.PHONY: sanitize
sanitize:
	bash test/sanitize.sh

# Random queries from SQLsmith against a throwaway cluster loaded with the
# demo centre; fails if a backend crashed (test/sqlsmith.sh).
# SQLSMITH_QUERIES=300 for a short run (default 10000).
.PHONY: sqlsmith
sqlsmith:
	bash test/sqlsmith.sh

# libFuzzer harnesses of the C parsers (test/fuzz/), FUZZ_SECONDS each;
# `make fuzz FUZZ_SECONDS=10` is the short run for CI.
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash test/fuzz/run.sh
