# SPDX-License-Identifier: GPL-2.0-or-later
# memmapcheck: differential struct-page checker for ZONE_DEVICE memory.
#
#   make               engine, CLI (and the crash extension if crash's defs.h is there)
#   make check         all tests (normal build, then ASan+UBSan build), via prove
#   make install       PREFIX=/usr/local DESTDIR=
#   make vectors       regenerate every real test image into the cache (slow)
#   make bench         benchmark against crash and drgn (not a test)

VERSION   := 0.1
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
CC        ?= cc
PKG_CONFIG ?= pkg-config
B         ?= build

DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libkdumpfile libdw 2>/dev/null)
DEPS_LIBS   := $(shell $(PKG_CONFIG) --libs libkdumpfile libdw 2>/dev/null) -lelf

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

.PHONY: all lib cli crash-ext check check-normal check-san unit install clean vectors bench
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

unit: $(UNIT_BIN) $(B)/tests/mksynth

$(B)/tests/mksynth: tests/unit/mksynth.c $(LIB) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(LIB) $(DEPS_LIBS) $(LDSAN)

crash-ext:
	@if [ -f crash-ext/Makefile ]; then $(MAKE) -C crash-ext B=$(abspath $(B))/crash-ext; fi

# The test runner: TAP via prove.  MMC_BUILD tells the .t scripts which
# build to exercise.
check:
	scripts/setup-deps.sh
	scripts/test-prereqs.sh
	$(MAKE) check-normal
	$(MAKE) check-san

check-normal: all unit
	MMC_BUILD=$(abspath $(B)) prove -v --timer $(UNIT_BIN) tests/*.t

# The crash extension is built for crash, not sanitized: crash.t runs once.
SAN_TESTS := $(filter-out tests/crash.t,$(wildcard tests/*.t))

check-san:
	$(MAKE) B=build-san SANITIZE=1 lib cli unit
	MMC_BUILD=$(abspath build-san) MMC_SANITIZED=1 prove --timer \
		$(patsubst tests/unit/%.c,build-san/tests/%,$(UNIT_SRC)) $(SAN_TESTS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/memmapcheck
	if [ -f cli/memmapcheck.1 ]; then install -m 644 cli/memmapcheck.1 $(DESTDIR)$(MANDIR)/man1/; fi
	@if [ -f crash-ext/Makefile ]; then $(MAKE) -C crash-ext B=$(abspath $(B))/crash-ext install; fi

vectors:
	scripts/make-vectors.sh

bench: all
	scripts/bench.sh

clean:
	rm -rf build build-san
