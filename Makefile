# sinpe: token embedding plus sinusoidal positional encoding on OpenCL.
#
#   make               build/libsinpe.a, build/libsinpe.so*, build/sinpe.pc
#   make check         install what is missing (scripts/install-deps.sh),
#                      build, check the exported symbols, run the unit tests
#   make test          the same without the dependency step
#   make check-exports fail unless the .so exports exactly the public API
#   make bench         build and run build/sinpe_bench with $(BENCH_ARGS)
#   make install       into $(DESTDIR)$(PREFIX); PREFIX defaults to /usr/local
#   make uninstall     remove exactly what install put there
#   make clean         remove build/
#
# CFLAGS holds what a user may want to change (optimisation, debug
# information, warnings).  The flags without which the library is wrong
# (C99, position-independent code, hidden visibility, include paths) live in
# SINPE_CFLAGS and are always added, so "make CFLAGS='-O0 -g'" still builds a
# correct library.  CC defaults to cc (make's own default); "make CC=clang"
# must be as warning-free as gcc.

PKG_CONFIG ?= pkg-config
NM         ?= nm
INSTALL    ?= install

CFLAGS       = -O2 -g -Wall -Wextra -Werror
SINPE_CFLAGS = -std=c99 -fPIC -fvisibility=hidden -D_POSIX_C_SOURCE=200809L \
               -Iinclude -Isrc -Ibuild $(OPENCL_CFLAGS)
DEPFLAGS     = -MMD -MP

# OpenCL through pkg-config (OpenCL.pc comes with the ICD loader's dev
# package), else plain -lOpenCL.
HAVE_OPENCL_PC := $(shell $(PKG_CONFIG) --exists OpenCL 2>/dev/null && echo yes)
ifeq ($(HAVE_OPENCL_PC),yes)
OPENCL_CFLAGS := $(shell $(PKG_CONFIG) --cflags OpenCL)
OPENCL_LIBS   := $(shell $(PKG_CONFIG) --libs OpenCL)
PC_REQUIRES_PRIVATE = OpenCL
PC_LIBS_PRIVATE     = -lpthread -lm
else
OPENCL_CFLAGS :=
OPENCL_LIBS   := -lOpenCL
PC_REQUIRES_PRIVATE =
PC_LIBS_PRIVATE     = -lOpenCL -lpthread -lm
endif
SYS_LIBS = $(OPENCL_LIBS) -lpthread -lm

# The Check unit-test framework, for the tests only.
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck)

# The version, read from the public header.
version_part = $(shell awk '$$2 == "SINPE_VERSION_$(1)" { print $$3; exit }' include/sinpe.h)
MAJOR := $(call version_part,MAJOR)
MINOR := $(call version_part,MINOR)
PATCH := $(call version_part,PATCH)
ifeq ($(strip $(MAJOR)),)
$(error cannot read SINPE_VERSION_MAJOR from include/sinpe.h)
endif
VERSION := $(MAJOR).$(MINOR).$(PATCH)

# Installation directories.  sinpe.pc records PREFIX, never DESTDIR.
PREFIX       ?= /usr/local
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

# Kernels, concatenated in this order into one program source.
KERNELS = kernels/pe_math.cl kernels/dtype.cl kernels/table.cl kernels/embed.cl

BUILD      = build
LIB_OBJS   = $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/*.c)) $(BUILD)/kernels.o
TEST_OBJS  = $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/*.c))
BENCH_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(wildcard bench/*.c))

STATIC_LIB = $(BUILD)/libsinpe.a
SONAME     = libsinpe.so.$(MAJOR)
SHARED_LIB = $(BUILD)/libsinpe.so.$(VERSION)
SO_LINKS   = $(BUILD)/$(SONAME) $(BUILD)/libsinpe.so
PC_FILE    = $(BUILD)/sinpe.pc
TEST_BIN   = $(BUILD)/sinpe_tests
BENCH_BIN  = $(BUILD)/sinpe_bench

.PHONY: all check test check-exports bench deps install uninstall clean FORCE
.DELETE_ON_ERROR:

all: $(STATIC_LIB) $(SHARED_LIB) $(SO_LINKS) $(PC_FILE)

# --- compiling -------------------------------------------------------------

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(SINPE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DIR_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/tests/%.o: DIR_CFLAGS = -Itests $(CHECK_CFLAGS)
$(BUILD)/bench/%.o: DIR_CFLAGS = -Ibench

$(BUILD)/kernels.o: $(BUILD)/kernels.c
	$(CC) $(SINPE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The Makefile is a prerequisite because it holds the list and order of
# the kernels.
$(BUILD)/kernels.c: $(KERNELS) scripts/embed-kernels.sh Makefile
	@mkdir -p $(@D)
	sh scripts/embed-kernels.sh $@ $(KERNELS)

-include $(LIB_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(BENCH_OBJS:.o=.d)

# --- libraries -------------------------------------------------------------

$(STATIC_LIB): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(SHARED_LIB): $(LIB_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined \
	    -o $@ $(LIB_OBJS) $(SYS_LIBS) $(LDLIBS)

$(BUILD)/$(SONAME): $(SHARED_LIB)
	ln -sf $(notdir $<) $@

$(BUILD)/libsinpe.so: $(BUILD)/$(SONAME)
	ln -sf $(notdir $<) $@

# Regenerated on every run but replaced only when its text changes, so that
# "make install PREFIX=..." after a plain "make" records the right prefix.
$(PC_FILE): sinpe.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' \
	     -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
	     -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
	     -e 's|@VERSION@|$(VERSION)|g' \
	     -e 's|@REQUIRES_PRIVATE@|$(PC_REQUIRES_PRIVATE)|g' \
	     -e 's|@LIBS_PRIVATE@|$(PC_LIBS_PRIVATE)|g' \
	     sinpe.pc.in >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; echo "generated $@"; fi

# --- tests and benchmarks --------------------------------------------------

# Both link the static library, so they may also reach internal sinpe__
# functions.
$(TEST_BIN): $(TEST_OBJS) $(STATIC_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJS) $(STATIC_LIB) $(CHECK_LIBS) $(SYS_LIBS) $(LDLIBS)

$(BENCH_BIN): $(BENCH_OBJS) $(STATIC_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BENCH_OBJS) $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)

check-exports: $(SHARED_LIB)
	NM='$(NM)' sh scripts/check-exports.sh $(SHARED_LIB) include/sinpe.h

deps:
	sh scripts/install-deps.sh

# check and bench run the dependency step first, then a fresh make, which
# reads pkg-config again in case the step has just installed something.
check: deps
	$(MAKE) test

test: check-exports $(TEST_BIN)
	CK_DEFAULT_TIMEOUT="$${CK_DEFAULT_TIMEOUT:-120}" ./$(TEST_BIN)

bench: deps
	$(MAKE) $(BENCH_BIN)
	./$(BENCH_BIN) $(BENCH_ARGS)

# --- installation ----------------------------------------------------------

install: all
	$(INSTALL) -d "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(PKGCONFIGDIR)"
	$(INSTALL) -m 644 include/sinpe.h "$(DESTDIR)$(INCLUDEDIR)/sinpe.h"
	$(INSTALL) -m 644 $(STATIC_LIB) "$(DESTDIR)$(LIBDIR)/libsinpe.a"
	$(INSTALL) -m 755 $(SHARED_LIB) "$(DESTDIR)$(LIBDIR)/libsinpe.so.$(VERSION)"
	ln -sf libsinpe.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/$(SONAME)"
	ln -sf $(SONAME) "$(DESTDIR)$(LIBDIR)/libsinpe.so"
	$(INSTALL) -m 644 $(PC_FILE) "$(DESTDIR)$(PKGCONFIGDIR)/sinpe.pc"

uninstall:
	rm -f "$(DESTDIR)$(INCLUDEDIR)/sinpe.h"
	rm -f "$(DESTDIR)$(LIBDIR)/libsinpe.a"
	rm -f "$(DESTDIR)$(LIBDIR)/libsinpe.so.$(VERSION)"
	rm -f "$(DESTDIR)$(LIBDIR)/$(SONAME)"
	rm -f "$(DESTDIR)$(LIBDIR)/libsinpe.so"
	rm -f "$(DESTDIR)$(PKGCONFIGDIR)/sinpe.pc"

clean:
	rm -rf $(BUILD)
