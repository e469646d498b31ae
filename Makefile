# sinpe: token embedding plus sinusoidal positional encoding on OpenCL.
#
#   make               build/libsinpe.a, build/libsinpe.so*, build/sinpe.pc,
#                      build/sinpe-tune
#   make check         install what is missing (scripts/install-deps.sh),
#                      build, check the exported symbols, run the unit tests
#   make test          the same without the dependency step; each kernel form
#                      some tuning record of the tests reaches runs once
#   make check-records the embedding suites and the shapes comparison under
#                      every tuning record of the tests, each in full
#   make check-exports fail unless the .so exports exactly the public API
#   make check-runner  scripts/run-tests.sh against a stand-in test program:
#                      a failing job hides no other, the summary is right
#   make check-abi     a program built against the 0.1 header, run against the .so
#   make bench         build and run build/sinpe_bench with $(BENCH_ARGS)
#   make tune          build and run build/sinpe-tune with $(TUNE_ARGS): measures
#                      the work shapes on the device and saves the winner
#   make bench-plot    bar charts of $(BENCH_JSON) in $(BENCH_PNG) (gnuplot)
#   make bench-peers   numpy and PyTorch doing the same job, against $(BENCH_JSON)
#   make bench-accuracy cos/sin error by position, sinpe against the float32
#                      formula, as a table, build/accuracy.dat and bench/accuracy.png
#   make check-kernels the kernels through clang with -Wall -Werror, every
#                      program sinpe builds (the library builds them with -w)
#   make check-oclgrind every kernel under oclgrind, then pocl (tests/grind)
#   make check-asan    library, unit tests and grind with ASan + UBSan
#   make check-stress  context churn and an 8-thread stress test
#   make fuzz          libFuzzer on the argument checks, $(FUZZ_SECONDS) s
#   make check-python  the Python package (python/, with the library built
#                      into it) installed offline by one pip command into a
#                      venv in build/, and its tests (pytest) on PoCL; the
#                      rotary tests' HF transformers comes from PyPI
#                      ($(HF_TRANSFORMERS); empty: not installed, skipped),
#                      and the block types' gguf package ($(GGUF_PY))
#   make check-mpi     examples/mpi_vocab.c on 1, 2 and 3 Open MPI ranks: vocabulary
#                      shards combined by MPI_Allreduce, bit for bit the unsharded
#   make check-ggml    sinpe against ggml's CPU code (rope modes, block types),
#                      with GGML_DIR=<ggml install prefix>; skipped without it
#   make check-intel   a second OpenCL implementation (Intel's CPU runtime,
#                      installed into build/): the same bits as PoCL, the
#                      demos and the suites that check results, there
#   make install       into $(DESTDIR)$(PREFIX); PREFIX defaults to /usr/local:
#                      header, libraries, sinpe.pc, the CMake package
#                      (LIBDIR/cmake/sinpe: find_package(sinpe), sinpe::sinpe)
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
               -Iinclude -Isrc -Ikernels -Ibuild $(OPENCL_CFLAGS)
DEPFLAGS     = -MMD -MP

# OpenCL through pkg-config (OpenCL.pc comes with the ICD loader's dev
# package), else plain -lOpenCL.
HAVE_OPENCL_PC := $(shell $(PKG_CONFIG) --exists OpenCL 2>/dev/null && echo yes)
ifeq ($(HAVE_OPENCL_PC),yes)
OPENCL_CFLAGS := $(shell $(PKG_CONFIG) --cflags OpenCL)
OPENCL_LIBS   := $(shell $(PKG_CONFIG) --libs OpenCL)
PC_REQUIRES   = OpenCL
PC_LIBS_OPENCL =
else
OPENCL_CFLAGS :=
OPENCL_LIBS   := -lOpenCL
PC_REQUIRES   =
PC_LIBS_OPENCL = -lOpenCL
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
BINDIR       ?= $(PREFIX)/bin
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR     ?= $(LIBDIR)/cmake/sinpe

# The kernels: the program's files (KERNEL_ROOTS: kernels/sinpe.cl, then
# every other kernels/*.cl in name order, so that a new operation's file is
# found), each with the files it includes, embedded as one program source; the device functions handed to hosts (kernels/device.cl,
# embedded, and installed as sinpe_device.cl); the tuning database,
# tuning/*.txt.
KERNEL_FILES = $(wildcard kernels/*.cl kernels/*.h)
KERNEL_ROOTS = kernels/sinpe.cl $(filter-out kernels/sinpe.cl,$(sort $(wildcard kernels/*.cl)))
TUNING_FILES = $(sort $(wildcard tuning/*.txt))

BUILD      = build
LIB_OBJS   = $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/*.c)) $(BUILD)/kernels.o \
             $(BUILD)/database.o $(BUILD)/device_text.o
TEST_OBJS  = $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/*.c)) $(BUILD)/tests/grind/ref.o
BENCH_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(wildcard bench/*.c)) $(BUILD)/tests/grind/ref.o
# The installed programs (tools/): sinpe-tune, its own files and the library.
TUNE_OBJS  = $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/*.c))

STATIC_LIB = $(BUILD)/libsinpe.a
SONAME     = libsinpe.so.$(MAJOR)
SHARED_LIB = $(BUILD)/libsinpe.so.$(VERSION)
SO_LINKS   = $(BUILD)/$(SONAME) $(BUILD)/libsinpe.so
PC_FILE    = $(BUILD)/sinpe.pc
CMAKE_FILES = $(BUILD)/sinpeConfig.cmake $(BUILD)/sinpeConfigVersion.cmake
DEVICE_CL  = $(BUILD)/sinpe_device.cl
TEST_BIN   = $(BUILD)/sinpe_tests
BENCH_BIN  = $(BUILD)/sinpe_bench
TUNE_BIN   = $(BUILD)/sinpe-tune

.PHONY: all check test check-kernels check-records check-exports check-runner check-abi check-install bench tune deps install uninstall \
        clean FORCE
.DELETE_ON_ERROR:

all: $(STATIC_LIB) $(SHARED_LIB) $(SO_LINKS) $(PC_FILE) $(CMAKE_FILES) $(TUNE_BIN) $(DEVICE_CL)

# --- compiling -------------------------------------------------------------

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(SINPE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DIR_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/tests/%.o: DIR_CFLAGS = -Itests $(CHECK_CFLAGS)
$(BUILD)/bench/%.o: DIR_CFLAGS = -Ibench -Itests/grind
$(BUILD)/tools/%.o: DIR_CFLAGS = -Itools

$(BUILD)/kernels.o $(BUILD)/database.o $(BUILD)/device_text.o: $(BUILD)/%.o: $(BUILD)/%.c
	$(CC) $(SINPE_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The Makefile is a prerequisite because a kernel file may be removed.
$(BUILD)/kernels.c: $(KERNEL_FILES) scripts/embed-text.sh Makefile
	@mkdir -p $(@D)
	sh scripts/embed-text.sh source sinpe__kernel_source $@ $(KERNEL_ROOTS)

$(BUILD)/device_text.c: $(KERNEL_FILES) scripts/embed-text.sh
	@mkdir -p $(@D)
	sh scripts/embed-text.sh source sinpe__device_text $@ kernels/device.cl

$(DEVICE_CL): $(KERNEL_FILES) scripts/embed-text.sh
	@mkdir -p $(@D)
	sh scripts/embed-text.sh text - $@ kernels/device.cl

# The Makefile is a prerequisite because a tuning file may be removed.
$(BUILD)/database.c: $(TUNING_FILES) scripts/embed-text.sh Makefile
	@mkdir -p $(@D)
	sh scripts/embed-text.sh list sinpe__database $@ $(TUNING_FILES)

-include $(LIB_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(BENCH_OBJS:.o=.d) $(TUNE_OBJS:.o=.d)

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

# The pkg-config file and the CMake package are regenerated on every run but
# replaced only when their text changes, so that "make install PREFIX=..."
# after a plain "make" records the right prefix.
replace_if_changed = if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; echo "generated $@"; fi

$(PC_FILE): sinpe.pc.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' \
	     -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
	     -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
	     -e 's|@VERSION@|$(VERSION)|g' \
	     -e 's|@REQUIRES@|$(PC_REQUIRES)|g' \
	     -e 's|@LIBS_OPENCL@|$(PC_LIBS_OPENCL)|g' \
	     sinpe.pc.in >$@.tmp
	@$(replace_if_changed)

# CMake's find_package(sinpe): the imported target sinpe::sinpe (cmake/).
$(CMAKE_FILES): $(BUILD)/%: cmake/%.in FORCE
	@mkdir -p $(@D)
	@sed -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	     -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' $< >$@.tmp
	@$(replace_if_changed)

# --- tests and benchmarks --------------------------------------------------

# Both link the static library, so they may also reach internal sinpe__
# functions.
# tests/fault.c stands in for clCreateBuffer, malloc, calloc and realloc, to
# fail allocations on demand, and counts the references to events, buffers
# and kernels.
TEST_WRAPS = $(foreach f,clCreateBuffer clEnqueueNDRangeKernel clCreateKernel clRetainEvent \
               clReleaseEvent clRetainMemObject clReleaseMemObject clRetainKernel \
               clReleaseKernel clGetExtensionFunctionAddressForPlatform malloc calloc \
               realloc,-Wl,--wrap=$(f))
$(TEST_BIN): $(TEST_OBJS) $(STATIC_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $(TEST_WRAPS) -o $@ $(TEST_OBJS) $(STATIC_LIB) \
	    $(CHECK_LIBS) $(SYS_LIBS) $(LDLIBS)

$(BENCH_BIN): $(BENCH_OBJS) $(STATIC_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BENCH_OBJS) $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)

# sinpe-tune reads the parameter table, the database and the plan's queries
# (src/tuning.h: sinpe__ names, so the static library).
$(TUNE_BIN): $(TUNE_OBJS) $(STATIC_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TUNE_OBJS) $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)

check-exports: $(SHARED_LIB)
	NM='$(NM)' sh scripts/check-exports.sh $(SHARED_LIB) include/sinpe.h

deps:
	sh scripts/install-deps.sh

# check and bench run the dependency step first, then a fresh make, which
# reads pkg-config again in case the step has just installed something;
# check's builds $(TEST_JOBS) at a time too.
check: deps
	$(MAKE) -j$(TEST_JOBS) test

# Every suite under the device's own tuning record, then, under each record
# of tests/variants.c that adds a kernel form to that run (a kernel built or
# launched with other values), the test cases tagged with the forms it adds
# (tests/forms.c): each kernel form some record reaches runs once.  One
# process per suite or record, $(TEST_JOBS) at a time (scripts/run-tests.sh).
TEST_JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
test: check-exports check-abi check-runner $(TEST_BIN)
	sh scripts/run-tests.sh ./$(TEST_BIN) $(TEST_JOBS)
	$(MAKE) check-install

# check-runner: scripts/run-tests.sh with a shell script in place of the
# test program (tests/runner/): after a job that fails, crashes or dies the
# others still run or are reported as not run, and the summary and exit
# status say so.  No OpenCL, a second or two.
check-runner:
	sh tests/runner/check.sh

# check-records: the embedding suites and the shapes comparison in full
# under each record of tests/variants.c that adds a kernel form (the
# record-by-suite matrix; CI runs it), $(TEST_JOBS) processes at a time.
# But for the test cases tagged "cold", which build every program from
# source on purpose (shard's weights lists of every type: 90% of that
# suite's time in each row); make test runs them under the device's record.
RECORD_SUITES = embed positions dtype shard table quant shapes
check-records: $(TEST_BIN)
	CK_EXCLUDE_TAGS=cold sh scripts/run-tests.sh ./$(TEST_BIN) $(TEST_JOBS) "$(RECORD_SUITES)"

# check-abi: a program built against the 0.1 header (tests/abi/sinpe_v0_1.h,
# kept as released) runs against this shared library with correct results;
# it stops with SIGSEGV if the library reads or writes past a 0.1 struct.
ABI_BIN = $(BUILD)/abi_v0_1
$(ABI_BIN): tests/abi/old_caller.c tests/abi/sinpe_v0_1.h $(SO_LINKS)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -Itests/abi $(OPENCL_CFLAGS) -o $@ \
	    tests/abi/old_caller.c -L$(BUILD) -lsinpe -Wl,-rpath,'$$ORIGIN' $(SYS_LIBS) $(LDLIBS)
check-abi: $(ABI_BIN)
	./$(ABI_BIN)

# check-install: install into a scratch prefix and build the example programs
# (examples/*_demo.c: the embedding, and the host kernels of rope_attention.cl
# and prenorm.cl on the device functions) with nothing but the installed
# header, library and pkg-config, as a user would, then again with CMake's
# find_package(sinpe) (examples/CMakeLists.txt); each demo checks its results
# (against sinpe's own calls bit for bit, and against float64 references) and
# exits non-zero on a mismatch.  A demo's argument is its kernel file.
STAGE = $(CURDIR)/$(BUILD)/stage
CMAKE_DEMO = $(BUILD)/cmake-demo
DEMOS = embed_demo: rope_demo:examples/rope_attention.cl prenorm_demo:examples/prenorm.cl
check-install:
	rm -rf "$(STAGE)" "$(CMAKE_DEMO)"
	$(MAKE) install PREFIX="$(STAGE)"
	for d in $(DEMOS); do \
	  PKG_CONFIG_PATH="$(STAGE)/lib/pkgconfig" sh -c \
	    '$(CC) -std=c99 -Wall -Wextra -Werror examples/$${0%%:*}.c \
	     $$($(PKG_CONFIG) --cflags --libs sinpe) -lm -o $(BUILD)/$${0%%:*}' "$$d" || exit 1; \
	  LD_LIBRARY_PATH="$(STAGE)/lib" ./$(BUILD)/$${d%%:*} $${d#*:} || exit 1; \
	done
	cmake -S examples -B "$(CMAKE_DEMO)" -DCMAKE_PREFIX_PATH="$(STAGE)" \
	    -DCMAKE_C_COMPILER="$(CC)" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror"
	cmake --build "$(CMAKE_DEMO)"
	for d in $(DEMOS); do \
	  LD_LIBRARY_PATH="$(STAGE)/lib" ./$(CMAKE_DEMO)/$${d%%:*} $${d#*:} || exit 1; \
	done
	$(MAKE) uninstall PREFIX="$(STAGE)"
	test -z "$$(find "$(STAGE)" -type f)"

bench: deps
	$(MAKE) $(BENCH_BIN)
	./$(BENCH_BIN) $(BENCH_ARGS)

# tune: sinpe-tune on the default device (SINPE_DEVICE picks another); it
# saves the device's tuning file, which make bench then uses.
tune: deps
	$(MAKE) $(TUNE_BIN)
	./$(TUNE_BIN) $(TUNE_ARGS)

# bench-plot and bench-peers read the bench's JSON lines from $(BENCH_JSON),
# running the bench (with $(BENCH_ARGS)) only when that file does not exist:
# delete it, or name another, for fresh figures.
BENCH_JSON ?= $(BUILD)/bench.jsonl
BENCH_PNG  ?= $(BUILD)/results.png
PYTHON     ?= python3

.PHONY: bench-plot bench-peers bench-accuracy

$(BENCH_JSON):
	sh scripts/install-deps.sh
	$(MAKE) $(BENCH_BIN)
	@mkdir -p $(@D)
	$(BENCH_BIN) $(BENCH_ARGS) --json $@.tmp
	mv $@.tmp $@

bench-plot:
	sh scripts/install-deps.sh --with gnuplot
	$(MAKE) $(BENCH_JSON)
	sh bench/plot.sh $(BENCH_JSON) $(BENCH_PNG)

# bench-accuracy: the largest cos/sin error by position (1k .. 1M) of sinpe's
# tables and of the float32 formula, against long double
# (bench/accuracy/accuracy.c), as a table, data and a figure.
ACCURACY_BIN = $(BUILD)/accuracy
$(ACCURACY_BIN): bench/accuracy/accuracy.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(SINPE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ bench/accuracy/accuracy.c $(STATIC_LIB) \
	    $(SYS_LIBS) $(LDLIBS)

bench-accuracy:
	sh scripts/install-deps.sh --with gnuplot
	$(MAKE) $(ACCURACY_BIN)
	./$(ACCURACY_BIN) $(BUILD)/accuracy.dat
	sh bench/accuracy.sh $(BUILD)/accuracy.dat bench/accuracy.png

# Debian's python3-numpy and python3-torch serve the system interpreter, so
# that one is taken when $(PYTHON) cannot import numpy.
bench-peers:
	sh scripts/install-deps.sh --with peers
	$(MAKE) $(BENCH_JSON)
	@py=$(PYTHON); \
	if ! $$py -c 'import numpy' 2>/dev/null && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then \
	    py=/usr/bin/python3; \
	fi; \
	echo "$$py bench/peers.py $(PEERS_ARGS) $(BENCH_JSON)"; \
	$$py bench/peers.py $(PEERS_ARGS) $(BENCH_JSON)

# --- analysis and stress checks --------------------------------------------
#
# Plain C programs (no Check) in tests/grind, tests/stress, tests/fuzz and
# tests/samebits; tests/grind/ref.c is the float64 reference they share,
# tests/grind/harness.c the error plumbing of grind, threads and samebits.

GRIND_OBJS  = $(BUILD)/tests/grind/grind.o $(BUILD)/tests/grind/ref.o \
              $(BUILD)/tests/grind/harness.o $(BUILD)/tests/variants.o
STRESS_OBJS = $(BUILD)/tests/stress/churn.o $(BUILD)/tests/stress/threads.o
GRIND_BIN   = $(BUILD)/grind
SAMEBITS_OBJS = $(BUILD)/tests/samebits/samebits.o $(BUILD)/tests/grind/harness.o
SAMEBITS_BIN  = $(BUILD)/samebits
STRESS_BINS = $(BUILD)/churn $(BUILD)/threads
FUZZ_BIN    = $(BUILD)/fuzz_args

$(BUILD)/tests/grind/%.o: DIR_CFLAGS = -Itests/grind -Itests
$(BUILD)/tests/samebits/%.o: DIR_CFLAGS = -Itests/grind
$(BUILD)/tests/stress/%.o: DIR_CFLAGS = -Itests/grind -pthread
$(BUILD)/tests/fuzz/%.o: DIR_CFLAGS = -Itests/grind

-include $(GRIND_OBJS:.o=.d) $(STRESS_OBJS:.o=.d) $(BUILD)/tests/fuzz/fuzz_args.d \
         $(SAMEBITS_OBJS:.o=.d)

$(GRIND_BIN): $(GRIND_OBJS) $(STATIC_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(GRIND_OBJS) $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)

$(SAMEBITS_BIN): $(SAMEBITS_OBJS) $(STATIC_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(SAMEBITS_OBJS) $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)

$(STRESS_BINS): $(BUILD)/%: $(BUILD)/tests/stress/%.o $(BUILD)/tests/grind/ref.o $(STATIC_LIB)
	$(CC) $(CFLAGS) -pthread $(LDFLAGS) -o $@ $(filter %.o,$^) $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)
$(BUILD)/threads: $(BUILD)/tests/grind/harness.o

# oclgrind (with --check-api --data-races, see tests/grind/run.sh for
# --uninitialized), then pocl with work-groups of at most 8, then plain pocl.
check-kernels:
	sh scripts/install-deps.sh --with clang
	sh scripts/check-kernels.sh $(KERNEL_ROOTS)

check-oclgrind:
	sh scripts/install-deps.sh --with oclgrind
	$(MAKE) $(GRIND_BIN)
	sh tests/grind/run.sh $(GRIND_BIN) $(BUILD)

# The sanitizer build lives in its own directory.  The unit tests run with
# CK_FORK=no: LeakSanitizer then checks once, when the one process exits,
# rather than in every forked child, whose inherited pocl and LLVM state it
# would report again and again; and the run is several times faster.  The
# cost: Check's per-test timeouts need fork, so a hanging test hangs the run
# (the CI job's own timeout then ends it).  The tests tagged "cold" (every
# program built from source on purpose) are left out: with sinpe's cache off
# every context here builds its programs from source anyway, and their
# other host code is the same for every type.  Leak suppressions cover only the
# ICD loader, pocl and LLVM (tests/asan/lsan.supp).  intercept_tls_get_addr=0:
# up to GCC 13 the runtime's __tls_get_addr hook can take a dynamic TLS block
# of pocl's or LLVM's for an old glibc header, and LeakSanitizer's tracer then
# dies at exit ("Tracer caught signal 11") with no leak found.  The
# benchmark and the tuner run too, each once and briefly (their output, kept
# in the build, is shown when they fail); the benchmark's weights rows in
# fp16 and one block type (every type's host-side tables took ten minutes
# under the sanitizers, a minute with two).
ASAN_BUILD = build-asan
SAN_FLAGS  = -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
SAN_ENV    = ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1 \
             LSAN_OPTIONS=suppressions=$(CURDIR)/tests/asan/lsan.supp:print_suppressions=0 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

check-asan:
	sh scripts/install-deps.sh
	$(MAKE) BUILD=$(ASAN_BUILD) CFLAGS='-O1 -g -Wall -Wextra -Werror $(SAN_FLAGS)' \
	    LDFLAGS='$(SAN_FLAGS)' $(ASAN_BUILD)/sinpe_tests $(ASAN_BUILD)/grind \
	    $(ASAN_BUILD)/sinpe_bench $(ASAN_BUILD)/sinpe-tune
	$(SAN_ENV) CK_FORK=no CK_EXCLUDE_TAGS=cold ./$(ASAN_BUILD)/sinpe_tests
	$(SAN_ENV) ./$(ASAN_BUILD)/grind
	$(SAN_ENV) ./$(ASAN_BUILD)/sinpe_bench --quick --dtypes fp32 --weights fp16,q4_k >$(ASAN_BUILD)/bench.txt 2>&1 || \
	    { tail -n 40 $(ASAN_BUILD)/bench.txt; exit 1; }
	$(SAN_ENV) ./$(ASAN_BUILD)/sinpe-tune --dims 1024 --dtypes fp32 --rounds 1 --dry-run \
	    >$(ASAN_BUILD)/tune.txt 2>&1 || { tail -n 40 $(ASAN_BUILD)/tune.txt; exit 1; }

# Resource churn (RSS, heap and descriptors flat over context and table
# cycles) and 8 threads sharing a context; both print their figures.  The
# binary cache goes to a directory of the build, so that every context after
# the first reads it (and the descriptor count covers that path too).
check-stress:
	sh scripts/install-deps.sh
	$(MAKE) $(STRESS_BINS)
	SINPE_CACHE_DIR=$(CURDIR)/$(BUILD)/stress-cache ./$(BUILD)/churn
	SINPE_CACHE_DIR=$(CURDIR)/$(BUILD)/stress-cache ./$(BUILD)/threads

# check-python: the Python package installed as a user installs it, with
# one pip command from this directory (setup.py builds the library into the
# package; pyproject.toml), into a venv that sees Debian's numpy, PyOpenCL
# and PyTorch (--system-site-packages), offline (Debian's setuptools and
# wheel build it), then its tests with SINPE_LIBRARY unset, so that the
# package loads the library it carries.  The interpreter is $(PYTHON) when
# it imports numpy and PyOpenCL, else /usr/bin/python3 (a python3 of pyenv
# or conda earlier on PATH sees no Debian packages).
# HF_TRANSFORMERS: the transformers release the rotary tests compare with
# (python/tests/test_rope_hf.py runs HF's own rotary code in float64), from
# PyPI: the last 4.x, which has every YaRN option (mscale, mscale_all_dim,
# truncate); its rotary code runs on Debian's torch 1.13 although its model
# modules do not import there.  Empty skips the install (offline), and
# those tests skip.
# HF_DIFFUSERS: the diffusers release whose rotary files the N-D tests read
# and run in float64 (python/tests/test_nd_rope_diffusers.py), installed
# without its dependencies: its files are read, never imported.
# GGUF_PY: the gguf package (llama.cpp's gguf-py), whose own dequantization
# and 4/5-bit quantization the block types' tests compare with
# (python/tests/test_kquant_gguf.py); its dependencies (tqdm, beside
# Debian's numpy, PyYAML and requests) from PyPI.  Empty: those tests skip.
PYENV = $(BUILD)/pyenv
HF_TRANSFORMERS ?= transformers==4.57.6
HF_DIFFUSERS ?= diffusers==0.35.2
GGUF_PY ?= gguf==0.19.0

check-python:
	sh scripts/install-deps.sh --with python
	@py=$(PYTHON); \
	if ! $$py -c 'import numpy, pyopencl' 2>/dev/null && \
	    /usr/bin/python3 -c 'import numpy, pyopencl' 2>/dev/null; then py=/usr/bin/python3; fi; \
	echo "$$py -m venv --system-site-packages $(PYENV)"; \
	rm -rf $(PYENV) && $$py -m venv --system-site-packages $(PYENV)
	$(PYENV)/bin/pip install --quiet --no-build-isolation --no-index .
	if [ -n "$(HF_TRANSFORMERS)" ]; then $(PYENV)/bin/pip install --quiet "$(HF_TRANSFORMERS)"; fi
	if [ -n "$(HF_DIFFUSERS)" ]; then $(PYENV)/bin/pip install --quiet --no-deps "$(HF_DIFFUSERS)"; fi
	if [ -n "$(GGUF_PY)" ]; then $(PYENV)/bin/pip install --quiet "$(GGUF_PY)"; fi
	env -u SINPE_LIBRARY PYTHONDONTWRITEBYTECODE=1 \
	    $(PYENV)/bin/python -m pytest -p no:cacheprovider -q -rs python/tests

.PHONY: check-python

# libFuzzer needs clang.  The library is instrumented for coverage
# (fuzzer-no-link) in its own directory; new inputs go to
# $(FUZZ_BUILD)/corpus, the checked-in seeds in tests/fuzz/corpus are only read.
FUZZ_BUILD   = build-fuzz
FUZZ_SECONDS = 60
FUZZ_CC      = clang
FUZZ_CFLAGS  = -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer-no-link $(SAN_FLAGS)

$(FUZZ_BIN): $(BUILD)/tests/fuzz/fuzz_args.o $(BUILD)/tests/grind/ref.o $(STATIC_LIB)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $^ $(SYS_LIBS) $(LDLIBS)

fuzz:
	sh scripts/install-deps.sh --with clang
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CFLAGS='$(FUZZ_CFLAGS)' $(FUZZ_BUILD)/fuzz_args
	mkdir -p $(FUZZ_BUILD)/corpus
	$(SAN_ENV) ./$(FUZZ_BUILD)/fuzz_args -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus tests/fuzz/corpus

# The vocabulary-parallel example under Open MPI (installed by the mpi
# group), linked with the static library; $(MPI_ARGS) may hold a seed to
# rerun.  --oversubscribe: more ranks than cores; --allow-run-as-root: CI
# runs as root; --bind-to none: each rank's OpenCL runtime runs its own
# threads, which a rank pinned to one core would crowd onto it.  Shared
# memory only (btl self,vader), without the cross-memory attach that
# containers without ptrace rights refuse.
MPICC     = mpicc
MPIRUN    = mpirun
MPI_BIN   = $(BUILD)/mpi_vocab
MPI_RANKS = 1 2 3
MPI_ARGS  =
MPI_RUN   = OMPI_MCA_btl_vader_single_copy_mechanism=none $(MPIRUN) --oversubscribe \
            --allow-run-as-root --bind-to none --mca btl self,vader

$(MPI_BIN): examples/mpi_vocab.c include/sinpe.h $(STATIC_LIB)
	$(MPICC) -std=c99 $(CFLAGS) -Iinclude $(OPENCL_CFLAGS) $(LDFLAGS) -o $@ \
	    examples/mpi_vocab.c $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)

check-mpi:
	sh scripts/install-deps.sh --with mpi
	$(MAKE) $(MPI_BIN)
	for k in $(MPI_RANKS); do $(MPI_RUN) -n $$k ./$(MPI_BIN) $(MPI_ARGS) || exit 1; done

# check-ggml: sinpe against ggml's own code (tests/ggml/): its CPU
# backend's rotary modes (NORMAL, NEOX, MROPE, IMROPE, VISION; YaRN, freq
# factors, fp16 heads, partial rotary) and its block types' quantization
# and dequantization.  Needs a ggml build
# installed at GGML_DIR (GGML_DIR/include/ggml.h, GGML_DIR/lib/libggml*);
# without GGML_DIR it says so and skips.  Not in check or test: CI has no
# ggml.
GGML_DIR =
GGML_BIN = $(BUILD)/check_ggml

check-ggml:
	@if [ -z "$(GGML_DIR)" ]; then \
	  echo "check-ggml: SKIPPED, no ggml: run make check-ggml GGML_DIR=<ggml install prefix>"; \
	  exit 0; \
	fi; \
	$(MAKE) $(STATIC_LIB) && \
	$(CC) -std=c11 $(CFLAGS) -Iinclude -isystem $(GGML_DIR)/include $(OPENCL_CFLAGS) $(LDFLAGS) \
	    -o $(GGML_BIN) tests/ggml/check_ggml.c tests/ggml/check_ggml_rope.c $(STATIC_LIB) \
	    -L$(GGML_DIR)/lib \
	    -Wl,-rpath,$(GGML_DIR)/lib -lggml -lggml-base -lggml-cpu $(SYS_LIBS) $(LDLIBS) && \
	./$(GGML_BIN)

.PHONY: check-ggml

# check-intel: a second OpenCL implementation, Intel's OpenCL CPU runtime
# (README, "A second OpenCL implementation"), installed by
# scripts/install-deps.sh --with intel into $(BUILD)/intel-ocl: a second
# compiler and vectorizer beside PoCL's.  With no network the install, and
# so this target, fails.  On Intel's device ($(INTEL_ENV)):
#   - same bits: $(SAMEBITS_BIN) (tests/samebits) writes every kind of
#     sinpe output (absolute table rows of every preset, odd widths, windows
#     up to INT_MAX and down to INT_MIN, timesteps, rotary tables of every
#     rule and layout, rotations, fused outputs of every float and quantized
#     weights type, in fp32, fp16 and bf16) on PoCL and on Intel, the two
#     runs side by side, on each math path ($(SAMEBITS_MATH)), and compares
#     them value by value: none may differ;
#   - the demos (examples/*_demo.c, built against this tree), on the device
#     SINPE_DEVICE names;
#   - the suites that check results, each under the device's own record:
#     every output against its float64 reference, hostile arguments
#     (errors), the rotary and table suites, the device functions in a
#     host's kernels (device), the host-kernel argument contract as Intel's
#     compiler reports it (contract) and the feature bits (features);
#   - the context suite, contexts made every way and a context's life with
#     each host allocation failing in turn, its programs loaded from the
#     cache whatever fails (src/cache.c), but for its tests tagged "cold",
#     which compile every program on purpose (76 to 227 s each there).
# Not on Intel: the records matrix (make check-records: every record's
# programs, over a minute each to build there); the cache and tuning
# suites, whose tests build programs from source on purpose, and which
# check the library's plumbing, as do status, types and source, which no
# compiler changes;
# oclgrind, sanitizers, stress, fuzzing, MPI and Python stay on PoCL.
# Intel's compiler keeps no cache: the steps share sinpe's program cache
# in $(INTEL_CACHE), made afresh here, so each program is built from
# source once (a cold context: 70 s of CPU).  11 min 43 s on a busy 2-core
# EPYC, the download and a cold PoCL kernel cache included (bench/RESULTS.md).
INTEL_DEVICE = Intel(R) OpenCL
POCL_DEVICE  = Portable Computing Language
INTEL_ENV    = OCL_ICD_VENDORS=$(CURDIR)/$(BUILD)/icd SINPE_DEVICE='$(INTEL_DEVICE)'
INTEL_CACHE  = $(CURDIR)/$(BUILD)/intel-cache
SAMEBITS_MATH = float fp64
INTEL_SUITES = embed contract table quant errors rope mrope grid device positions dtype otf shard presets \
               timesteps features context
INTEL_DEMOS  = $(foreach d,$(DEMOS),$(BUILD)/intel-demos/$(firstword $(subst :, ,$(d))))

$(BUILD)/intel-demos/%: examples/%.c include/sinpe.h $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) -std=c99 $(CPPFLAGS) $(CFLAGS) -Iinclude $(OPENCL_CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(STATIC_LIB) $(SYS_LIBS) $(LDLIBS)

check-intel:
	sh scripts/install-deps.sh --with intel
	$(MAKE) $(TEST_BIN) $(SAMEBITS_BIN) $(INTEL_DEMOS)
	rm -rf "$(INTEL_CACHE)" && mkdir -p "$(INTEL_CACHE)"
	for m in $(SAMEBITS_MATH); do \
	  SINPE_DEVICE='$(POCL_DEVICE)' ./$(SAMEBITS_BIN) --math $$m $(BUILD)/samebits-$$m-pocl.bin & \
	  pocl=$$!; \
	  $(INTEL_ENV) XDG_CACHE_HOME="$(INTEL_CACHE)" \
	      ./$(SAMEBITS_BIN) --math $$m $(BUILD)/samebits-$$m-intel.bin; intel=$$?; \
	  wait $$pocl && [ $$intel -eq 0 ] || exit 1; \
	  ./$(SAMEBITS_BIN) --compare $(BUILD)/samebits-$$m-pocl.bin $(BUILD)/samebits-$$m-intel.bin \
	      || exit 1; \
	done
	for d in $(DEMOS); do \
	  $(INTEL_ENV) XDG_CACHE_HOME="$(INTEL_CACHE)" ./$(BUILD)/intel-demos/$${d%%:*} $${d#*:} || exit 1; \
	done
	$(INTEL_ENV) SINPE_TEST_CACHE="$(INTEL_CACHE)" CK_EXCLUDE_TAGS=cold \
	    sh scripts/run-tests.sh --only "$(INTEL_SUITES)" \
	    --logs $(BUILD)/test-logs-intel ./$(TEST_BIN) $(TEST_JOBS)

.PHONY: check-oclgrind check-asan check-stress fuzz check-mpi check-intel clean-sanitizers

clean: clean-sanitizers
clean-sanitizers:
	rm -rf $(ASAN_BUILD) $(FUZZ_BUILD)

# --- installation ----------------------------------------------------------

install: all
	$(INSTALL) -d "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(LIBDIR)" "$(DESTDIR)$(PKGCONFIGDIR)" \
	    "$(DESTDIR)$(CMAKEDIR)"
	$(INSTALL) -m 644 include/sinpe.h "$(DESTDIR)$(INCLUDEDIR)/sinpe.h"
	$(INSTALL) -m 644 $(DEVICE_CL) "$(DESTDIR)$(INCLUDEDIR)/sinpe_device.cl"
	$(INSTALL) -m 644 $(STATIC_LIB) "$(DESTDIR)$(LIBDIR)/libsinpe.a"
	$(INSTALL) -m 755 $(SHARED_LIB) "$(DESTDIR)$(LIBDIR)/libsinpe.so.$(VERSION)"
	ln -sf libsinpe.so.$(VERSION) "$(DESTDIR)$(LIBDIR)/$(SONAME)"
	ln -sf $(SONAME) "$(DESTDIR)$(LIBDIR)/libsinpe.so"
	$(INSTALL) -m 644 $(PC_FILE) "$(DESTDIR)$(PKGCONFIGDIR)/sinpe.pc"
	$(INSTALL) -m 644 $(CMAKE_FILES) "$(DESTDIR)$(CMAKEDIR)"
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)"
	$(INSTALL) -m 755 $(TUNE_BIN) "$(DESTDIR)$(BINDIR)/sinpe-tune"

uninstall:
	rm -f "$(DESTDIR)$(INCLUDEDIR)/sinpe.h"
	rm -f "$(DESTDIR)$(INCLUDEDIR)/sinpe_device.cl"
	rm -f "$(DESTDIR)$(LIBDIR)/libsinpe.a"
	rm -f "$(DESTDIR)$(LIBDIR)/libsinpe.so.$(VERSION)"
	rm -f "$(DESTDIR)$(LIBDIR)/$(SONAME)"
	rm -f "$(DESTDIR)$(LIBDIR)/libsinpe.so"
	rm -f "$(DESTDIR)$(PKGCONFIGDIR)/sinpe.pc"
	rm -f "$(DESTDIR)$(CMAKEDIR)/sinpeConfig.cmake" "$(DESTDIR)$(CMAKEDIR)/sinpeConfigVersion.cmake"
	rmdir "$(DESTDIR)$(CMAKEDIR)" 2>/dev/null || true
	rm -f "$(DESTDIR)$(BINDIR)/sinpe-tune"

clean:
	rm -rf $(BUILD)
