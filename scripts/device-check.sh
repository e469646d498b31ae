#!/bin/sh
# device-check.sh -- the whole check on a machine with a GPU, in one run,
# most valuable figures first, each step bounded so that a run cut short
# still leaves every earlier step's results in $OUT (default build/device):
#
#   1. build            the test, bench and tune programs
#   2. quick suite      the embed suite under the device's own record
#   3. bench fp32       sinpe_bench in fp32 (bench-fp32.txt, .jsonl)
#   4. tune             sinpe-tune (tune.txt, tune.jsonl; record.txt: the
#                       record it saved, which the next step runs under;
#                       --save-each: a cut tune leaves the values so far)
#   5. bench            sinpe_bench in every type (bench.txt, .jsonl)
#   6. the other suites under the device's record, then the embedding
#      suites and the shapes comparison under each GPU record of the
#      database (general = one_pass)
#
# Every step is printed with its exit status and seconds as it ends, and
# summary.txt collects those lines and the benchmarks' goal lines.  A step
# runs only while BUDGET seconds (default 480) allow its limit, so the
# whole stays within the budget; a step cut by its limit says so (exit
# status 124) and the next one still runs.
#
#   SINPE_DEVICE   the device (default: sinpe's, the first GPU)
#   QUICK=1        a rehearsal: the benchmarks' --quick, one dim and one
#                  round of tuning, one suite per record
#   BUDGET=N       seconds for the whole run
#   SYSROOT=DIR    build and run against packages unpacked into DIR
#                  (dpkg -x) on a machine where they cannot be installed:
#                  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers
#                  check libsubunit-dev libsubunit0
#
# The ICD loader must find the vendor's driver: when OCL_ICD_VENDORS is
# unset, ldconfig knows NVIDIA's libnvidia-opencl.so and no file of
# /etc/OpenCL/vendors names it (an image may list pocl alone), the script
# gives the loader a vendors directory of its own: those files plus one for
# NVIDIA.  The run stops after the build when the device it would check is
# not a GPU, unless SINPE_DEVICE names that device or QUICK=1.  Program
# binaries are cached in $OUT/cache so that every context after the first
# of a record loads its kernels instead of compiling them again.
set -u

out=${OUT:-build/device}
case $out in /*) ;; *) out=$PWD/$out ;; esac
quick=${QUICK:-0}
budget=${BUDGET:-480}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
status=0
t0=$(date +%s)

say() {
    echo "$*" | tee -a "$summary"
}

# step NAME LIMIT LOG COMMAND...: runs COMMAND for at most LIMIT seconds
# (less when the budget has less left; skipped under 10 s), says how it went.
step() {
    name=$1
    limit=$2
    log=$3
    shift 3
    left=$((budget - ($(date +%s) - t0)))
    [ "$limit" -gt "$left" ] && limit=$left
    if [ "$limit" -lt 10 ]; then
        say "$name: skipped, $left s of the budget left"
        status=1
        return 1
    fi
    start=$(date +%s)
    timeout "$limit" "$@" >>"$log" 2>&1
    rc=$?
    note=""
    [ "$rc" -eq 124 ] && note=" (cut at its limit of $limit s)"
    say "$name: exit status $rc, $(($(date +%s) - start)) s$note"
    [ "$rc" -eq 0 ] || status=1
    return "$rc"
}

# suite NAME LIMIT VAR=VALUE...: the tests under those variables, through
# step.  Check's log file names each test as it ends (tests-each.log), so a
# suite cut at its limit still says how many passed and failed before.
suite() {
    name=$1
    limit=$2
    shift 2
    rm -f "$out/ck.log"
    step "$name" "$limit" "$out/tests.log" env CK_LOG_FILE_NAME="$out/ck.log" "$@" \
        ./build/sinpe_tests
    rc=$?
    [ -f "$out/ck.log" ] || return "$rc"
    cat "$out/ck.log" >>"$out/tests-each.log"
    [ "$rc" -eq 124 ] && say "  before the cut: $(grep -c ':P:' "$out/ck.log") passed," \
        "$(grep -c ':[FE]:' "$out/ck.log") failed"
    return "$rc"
}

if [ -z "${OCL_ICD_VENDORS:-}" ]; then
    lib=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so/ { print $NF; exit }')
    if [ -n "$lib" ] && ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
        mkdir -p "$out/vendors"
        cp /etc/OpenCL/vendors/*.icd "$out/vendors/" 2>/dev/null
        echo "$lib" >"$out/vendors/nvidia.icd"
        OCL_ICD_VENDORS=$out/vendors
        export OCL_ICD_VENDORS
    fi
fi
SINPE_CACHE_DIR=$out/cache
export SINPE_CACHE_DIR

if [ "$quick" = 1 ]; then
    tune_args="--dims 1024 --dtypes fp32 --rounds 1"
    bench_args="--quick"
else
    tune_args=""
    bench_args=""
fi

set --
if [ -n "${SYSROOT:-}" ]; then
    lib=$SYSROOT/usr/lib/$(gcc -print-multiarch)
    CPATH=$SYSROOT/usr/include LIBRARY_PATH=$lib LD_LIBRARY_PATH=$lib
    export CPATH LIBRARY_PATH LD_LIBRARY_PATH
    set -- HAVE_OPENCL_PC= CHECK_CFLAGS=-pthread "CHECK_LIBS=-lcheck_pic -lsubunit -lrt -lm"
fi
step build 120 "$out/build.log" make -j"$(nproc)" "$@" build/sinpe_tests build/sinpe_bench \
    build/sinpe-tune || exit 1
device=$(./build/sinpe_tests --device 2>&1)
say "device: $device"
case $device in
*"(GPU)") ;;
*)
    if [ -z "${SINPE_DEVICE:-}" ] && [ "$quick" != 1 ]; then
        say "not a GPU: stopped (SINPE_DEVICE=NAME checks that device anyway)"
        exit 1
    fi
    ;;
esac
suite "quick suite (embed, device's record)" 60 CK_RUN_SUITE=embed

# shellcheck disable=SC2086
step "bench fp32" 120 "$out/bench-fp32.txt" ./build/sinpe_bench $bench_args --dtypes fp32 \
    --weights none --json "$out/bench-fp32.jsonl"
sed -n '/^goals/,$p' "$out/bench-fp32.txt" >>"$summary" 2>/dev/null

# shellcheck disable=SC2086
step tune 120 "$out/tune.txt" ./build/sinpe-tune $tune_args --save-each --json "$out/tune.jsonl"
grep -E '^(chosen|database)' "$out/tune.txt" >>"$summary" 2>/dev/null
file=$(awk '/^saved as / { f = $0 } END { print f }' "$out/tune.txt" 2>/dev/null) # the last
[ -n "$file" ] && say "$file" && cp "$(echo "$file" | cut -d' ' -f3)" "$out/record.txt"

# shellcheck disable=SC2086
step "bench, tuned record" 120 "$out/bench.txt" ./build/sinpe_bench $bench_args \
    --json "$out/bench.jsonl"
sed -n '/^goals/,$p' "$out/bench.txt" >>"$summary" 2>/dev/null

# The remaining suites: every one under the device's record (the embed
# suite ran above; the shapes comparison of records runs below), then the
# embedding suites and that comparison under each GPU record.
for s in $(./build/sinpe_tests --suites); do
    [ "$s" = embed ] && continue
    suite "tests ($s, device's record)" 60 CK_RUN_SUITE="$s" CK_EXCLUDE_TAGS=records
done
./build/sinpe_tests --records | grep 'general=one_pass' >"$out/records.txt"
while IFS= read -r rec; do
    for s in embed positions dtype shard table shapes; do
        suite "tests ($s, $rec)" 60 SINPE_TUNING="$rec" CK_RUN_SUITE="$s"
        [ "$quick" = 1 ] && break
    done
done <"$out/records.txt"
say "total: $(($(date +%s) - t0)) s of a $budget s budget"
exit $status
