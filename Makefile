# SPDX-License-Identifier: GPL-2.0-or-later
# memmapcheck: differential struct-page checker for ZONE_DEVICE memory.
#
#   make               engine, CLI (and the crash extension if crash's defs.h is there)
#   make check         all tests (normal build, then ASan+UBSan build), via prove
#   make check-quick   unit tests and the quick tests (no kernel build, no cache): ~2 min
#   make install       PREFIX=/usr/local DESTDIR=
#   make vectors       regenerate every real test image into the cache (slow)
#   make bench         benchmark against crash, drgn, libkdumpfile (not a test)

VERSION   := 0.1
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
CC        ?= cc
PKG_CONFIG ?= pkg-config
B         ?= build

DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libkdumpfile libaddrxlat libdw 2>/dev/null)
DEPS_LIBS   := $(shell $(PKG_CONFIG) --libs libkdumpfile libaddrxlat libdw 2>/dev/null) -lelf -pthread

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter
CSTD      := -std=c11 -D_GNU_SOURCE
OPT       ?= -O2 -g
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifeq ($(SANITIZE),1)
  OPT     := -O1 -g $(SAN_FLAGS)
  LDSAN   := $(SAN_FLAGS)
endif
CFLAGS_ALL := $(CSTD) $(WARN) $(OPT) -fPIC -Iengine $(DEPS_CFLAGS) -DMMC_VERSION=\"$(VERSION)\"

ENGINE_SRC := $(sort $(wildcard engine/*.c))
ENGINE_OBJ := $(patsubst %.c,$(B)/%.o,$(ENGINE_SRC))
CLI_SRC    := $(sort $(wildcard cli/*.c))
CLI_OBJ    := $(patsubst %.c,$(B)/%.o,$(CLI_SRC))
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN   := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))

LIB := $(B)/libmemmapcheck.a
CLI := $(B)/memmapcheck

.PHONY: all lib cli crash-ext check check-quick check-normal check-san check-hvo unit install clean vectors bench
all: lib cli crash-ext

lib: $(LIB)
cli: $(CLI)

$(B)/%.o: %.c $(wildcard engine/*.h) $(wildcard cli/*.h) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(LIB): $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(CLI): $(CLI_OBJ) $(LIB)
	$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(LIB) $(DEPS_LIBS)

$(B)/tests/%: tests/unit/%.c $(LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIB) $(DEPS_LIBS) $(LDSAN)

# The fuzz targets, built without libFuzzer (fuzz/standalone.c): run on
# seeds and crash reproducers by tests/fuzz.t.
FUZZ_TARGETS := snapshot layout decode walk dump patterns open
FUZZ_REGRESS := $(patsubst %,$(B)/tests/fuzz_%,$(FUZZ_TARGETS))

unit: $(UNIT_BIN) $(B)/tests/mksynth $(B)/tests/kdump_replay $(FUZZ_REGRESS)

$(B)/tests/fuzz_%: fuzz/fuzz_%.c fuzz/standalone.c $(LIB) $(wildcard tests/unit/*.h fuzz/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< fuzz/standalone.c $(LIB) $(DEPS_LIBS) $(LDSAN)

$(B)/tests/mksynth: tests/unit/mksynth.c $(LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIB) $(DEPS_LIBS) $(LDSAN)

$(B)/tests/kdump_replay: tests/unit/kdump_replay.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIB) $(DEPS_LIBS) $(LDSAN)

crash-ext:
	@if [ -f crash-ext/Makefile ]; then $(MAKE) -C crash-ext B=$(abspath $(B))/crash-ext; fi

# The test runner: TAP via prove (tests/run-tests.sh: each test timed, a
# table of the seconds per test at the end).  MMC_BUILD tells the .t
# scripts which build to exercise.  Both runs of make check share one
# MMC_RUN_CACHE (what the tests compute alike, e.g. the oracle's
# predictions, which do not depend on the build).
check:
	scripts/setup-deps.sh
	scripts/test-prereqs.sh
	export MMC_RUN_CACHE=$$(mktemp -d "$${TMPDIR:-/tmp}/mmc-run.XXXXXX"); \
	$(MAKE) check-normal && $(MAKE) check-san; rc=$$?; rm -rf "$$MMC_RUN_CACHE"; exit $$rc

# The quick tier: the unit tests and the tests that need no kernel build and
# nothing scripts/test-prereqs.sh puts in the cache (the committed dumps
# they unpack come from the repository), two at a time: about a minute of
# CPU, within two minutes on two cores.  HACKING.md says when a test is
# quick; make check runs them all anyway.
QUICK_TESTS := tests/fuzz.t tests/oracle.t tests/patterns.t tests/stream.t \
               tests/synthetic.t tests/trim.t

check-quick: all unit
	MMC_BUILD=$(abspath $(B)) tests/run-tests.sh check-quick -j2 $(UNIT_BIN) $(QUICK_TESTS)

# Tests run this many at a time (prove -j): one per core.  Each test makes
# its own temporary files; what they share in the cache is made under a lock
# (scripts/vectors/unpack-dumps.sh) or renamed into place (scripts/oracle/oracle.py).
CHECK_JOBS ?= $(shell nproc)
# The longest tests start first, so that no one of them runs alone at the end
# (the order of make check's time table).
SLOW_TESTS := tests/docs.t tests/vectors.t tests/prove.t tests/lava.t tests/deb.t \
              tests/crash-session.t tests/live.t tests/damage.t
# tests/hvo/crash.t: crash 9 on the full captures of the hvo-flavour base
# kernels, which scripts/test-prereqs.sh builds and captures into the cache
# (the rest of tests/hvo/ runs in make check-hvo only).
ALL_TESTS := $(filter $(SLOW_TESTS),$(wildcard tests/*.t)) \
             $(filter-out $(SLOW_TESTS),$(wildcard tests/*.t)) tests/hvo/crash.t

# The crash session under valgrind (tests/crash-session.t): 2000 mixed
# commands, good and bad (about 3 minutes with crash 8.0.2 on 6.1-stock-b1).
CRASH_VALGRIND_CMDS ?= 2000

# valgrind memcheck (tests/valgrind.supp) also runs the damage matrix's cheap
# cases and the fuzz reproducers here; make fuzz runs all of them under it.
check-normal: all unit
	MMC_BUILD=$(abspath $(B)) MMC_CRASH_VALGRIND=1 MMC_CRASH_VALGRIND_CMDS=$(CRASH_VALGRIND_CMDS) \
	MMC_DAMAGE_VALGRIND=cheap MMC_FUZZ_VALGRIND=cheap tests/run-tests.sh check-normal -j$(CHECK_JOBS) -v $(ALL_TESTS) $(UNIT_BIN)

# The crash extension is built for crash, not sanitized: its tests run once.
# The benchmark measures the normal build, which check-normal ran it on.
# The Debian package and the LAVA guests build and run the package, made
# from the sources either way: no sanitized code to run.
SAN_TESTS := $(filter-out tests/crash.t tests/hvo/crash.t tests/crash-session.t tests/bench.t tests/deb.t tests/lava.t,\
                          $(ALL_TESTS))

check-san:
	$(MAKE) B=build-san SANITIZE=1 lib cli unit
	MMC_BUILD=$(abspath build-san) MMC_SANITIZED=1 MMC_CRASH_EXT=$(abspath $(B))/crash-ext \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 tests/run-tests.sh check-san -j$(CHECK_JOBS) \
		$(SAN_TESTS) $(patsubst tests/unit/%.c,build-san/tests/%,$(UNIT_SRC))

# The HugeTLB/HVO and memory-hotplug tests (tests/hugetlb.t, tests/hvo-lint.t)
# run in make check on the committed trimmed dumps (dumps/hvo.tar.xz) and the
# oracle's records (test-vectors/hvo-oracle/).  make check-hvo runs them with
# the oracle live: scripts/oracle/oracle.py hvo on the cache's full captures
# and their kernels' vmlinux (drgn), which must give the records, and each
# trimmed dump against its full capture (MMC_HVO_RECORD=1 writes the records),
# and tests/hvo/*.t, which need the cache's full captures and vmlinux (crash 9).
HVO_TESTS := tests/hugetlb.t tests/hvo-lint.t tests/hvo-mutants.t $(wildcard tests/hvo/*.t)
check-hvo: all
	MMC_BUILD=$(abspath $(B)) MMC_HVO_LIVE=1 tests/run-tests.sh check-hvo $(HVO_TESTS)

# libFuzzer with ASan+UBSan (clang): `make fuzz FUZZ_SECONDS=N [FUZZ_RUNS=M]` runs every
# target for N seconds from seeds made from the committed vectors
# (fuzz/mkseeds.py) and prints execs and crashes per target (fuzz/run.sh).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_B       := $(B)/fuzz
FUZZ_CFLAGS  := $(CSTD) -g -O1 -fno-omit-frame-pointer -Iengine -Itests/unit \
                $(DEPS_CFLAGS) -DMMC_VERSION=\"$(VERSION)\" \
                -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_ENGINE_OBJ := $(patsubst %.c,$(FUZZ_B)/%.o,$(ENGINE_SRC))
FUZZ_BIN     := $(patsubst %,$(FUZZ_B)/fuzz_%,$(FUZZ_TARGETS))
.SECONDARY: $(FUZZ_ENGINE_OBJ)

$(FUZZ_B)/engine/%.o: engine/%.c $(wildcard engine/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_B)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_ENGINE_OBJ) $(wildcard tests/unit/*.h fuzz/*.h)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_ENGINE_OBJ) $(DEPS_LIBS)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BIN)
# then every input of the regression builds and every damage case under
# valgrind memcheck, the corpus libFuzzer grew too (fuzz/valgrind.sh)
fuzz: fuzz-build lib unit
	FUZZ_RUNS=$(FUZZ_RUNS) fuzz/run.sh $(abspath $(FUZZ_B)) $(FUZZ_SECONDS)
	fuzz/valgrind.sh $(abspath $(B)) $(abspath $(FUZZ_B))
	MMC_BUILD=$(abspath $(B)) MMC_DAMAGE_VALGRIND=all MMC_DAMAGE_TIMEOUT=14400 \
	MMC_FUZZ_VALGRIND=all prove -v --timer tests/damage.t tests/fuzz.t

# The product: the CLI, the crash extension, memmapcheck-prove and what it
# runs at a user's site, laid out as in the tree so that the scripts find
# each other and lava/ the same way: scripts/prove/ (kernel builds, guest,
# capture, LAVA jobs) and lava/ (what scripts/prove/lava-*.{sh,py} read).
# The test-vector pipeline, the oracles, the doc generators and the
# benchmarks (scripts/{vectors,oracle,docs,bench}/) serve the checkout.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/memmapcheck
	if [ -f cli/memmapcheck.1 ]; then install -m 644 cli/memmapcheck.1 $(DESTDIR)$(MANDIR)/man1/; fi
	@if [ -f crash-ext/Makefile ]; then $(MAKE) -C crash-ext B=$(abspath $(B))/crash-ext install; fi
	install -m 755 scripts/prove/memmapcheck-prove $(DESTDIR)$(BINDIR)/memmapcheck-prove
	install -d $(DESTDIR)$(PREFIX)/share/memmapcheck/scripts
	cp -R scripts/prove $(DESTDIR)$(PREFIX)/share/memmapcheck/scripts/
	cp -R lava $(DESTDIR)$(PREFIX)/share/memmapcheck/

vectors:
	scripts/vectors/make-vectors.sh

# BENCH_ARGS: options of scripts/bench/bench.sh (e.g. --plot doc/bench-scaling.svg);
# scripts/bench/large-images.sh makes the images it measures.
bench: all
	B=$(abspath $(B)) scripts/bench/bench.sh $(BENCH_ARGS)

clean:
	rm -rf build build-san
