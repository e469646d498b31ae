#!/bin/sh
# device-check.sh -- the whole check on a machine with a GPU, in one run:
# build, the test suites under the device's own tuning record and the
# database's GPU records (general = one_pass), sinpe-tune, and the
# benchmark.  Everything lands in $OUT (default build/device): build.log,
# tests.log, tune.txt and tune.jsonl, record.txt (the tuned record),
# bench.txt and bench.jsonl, and summary.txt, which says what passed.
#
#   SINPE_DEVICE   the device (default: sinpe's, the first GPU)
#   QUICK=1        a rehearsal: one suite per record, one dim and one round
#                  of tuning, the benchmark's --quick
#
# The ICD loader must find the vendor's driver: when no vendors directory
# exists and OCL_ICD_VENDORS is unset, the script points the loader at the
# NVIDIA driver's libnvidia-opencl.so if ldconfig knows it.  Program
# binaries are cached in $OUT/cache so that every context after the first
# of a record loads its kernels instead of compiling them again.
set -u

out=${OUT:-build/device}
quick=${QUICK:-0}
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
status=0

say() {
    echo "$*" | tee -a "$summary"
}

# step NAME LOG COMMAND...: runs a step, says how it went.
step() {
    name=$1
    log=$2
    shift 2
    start=$(date +%s)
    "$@" >>"$log" 2>&1
    rc=$?
    say "$name: exit status $rc, $(($(date +%s) - start)) s"
    [ "$rc" -eq 0 ] || status=1
    return "$rc"
}

if [ ! -d /etc/OpenCL/vendors ] && [ -z "${OCL_ICD_VENDORS:-}" ]; then
    lib=$(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so/ { print $NF; exit }')
    if [ -n "$lib" ]; then
        mkdir -p "$out/vendors"
        echo "$lib" >"$out/vendors/nvidia.icd"
        OCL_ICD_VENDORS=$PWD/$out/vendors
        export OCL_ICD_VENDORS
    fi
fi
SINPE_CACHE_DIR=$PWD/$out/cache
export SINPE_CACHE_DIR

step build "$out/build.log" make -j"$(nproc)" build/sinpe_tests build/sinpe_bench \
    build/sinpe-tune || exit 1

# The suites under the device's own record, then under each GPU record.
suites="embed positions dtype shard table"
if [ "$quick" = 1 ]; then
    step "tests (embed suite, device's record)" "$out/tests.log" \
        env CK_RUN_SUITE=embed ./build/sinpe_tests
else
    step "tests (every suite, device's record)" "$out/tests.log" ./build/sinpe_tests
fi
./build/sinpe_tests --records | grep 'general=one_pass' >"$out/records.txt"
while IFS= read -r rec; do
    for s in $suites; do
        step "tests ($s, $rec)" "$out/tests.log" env SINPE_TUNING="$rec" CK_RUN_SUITE="$s" \
            ./build/sinpe_tests
        [ "$quick" = 1 ] && break
    done
done <"$out/records.txt"

if [ "$quick" = 1 ]; then
    tune_args="--dims 1024 --dtypes fp32 --rounds 1"
    bench_args="--quick"
else
    tune_args=""
    bench_args=""
fi
# shellcheck disable=SC2086
step tune "$out/tune.txt" ./build/sinpe-tune $tune_args --json "$out/tune.jsonl"
head -n 1 "$out/tune.txt" >>"$summary"
grep -E '^(chosen|database)' "$out/tune.txt" >>"$summary"
file=$(awk '/^saved as / { print $3 }' "$out/tune.txt")
[ -n "$file" ] && cp "$file" "$out/record.txt"
# shellcheck disable=SC2086
step bench "$out/bench.txt" ./build/sinpe_bench $bench_args --json "$out/bench.jsonl"
sed -n '/^goals/,$p' "$out/bench.txt" >>"$summary"
exit $status
