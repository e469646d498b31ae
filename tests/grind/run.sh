#!/bin/sh
# run.sh GRIND_BINARY LOG_DIR
#
# Runs the grind program under every tuning record that reaches a form of
# the database ("GRIND_BINARY --records": each record with every call in
# its plain forms, decode-sized and streamed; src/tuning.c), and fails when
# any run fails:
#
#   1. under oclgrind (the simulator is the only platform: the oclgrind
#      command preloads its runtime in place of the ICD loader) with
#      --check-api --data-races, once per record and once with none (the
#      record a host gets there).  oclgrind exits 0
#      whatever it finds, so its reports (its standard error, where the
#      grind program writes nothing unless it fails) go to
#      LOG_DIR/oclgrind-N.log and a non-empty log is a failure.  Not
#      oclgrind's --log: in 21.10 that file stayed empty after runs whose
#      kernels read out of bounds or that died of a fatal error (it seems
#      to be opened afresh, truncated, for every context, and the program
#      makes many).  With GRIND_UNINITIALIZED=1 each record runs a second
#      time, unoptimised, with --uninitialized (see below).
#   2. under pocl with POCL_MAX_WORK_GROUP_SIZE=8, so that every launch is
#      split into many small work-groups with partial ones at the edges,
#      once per record, on the float math path alone (GRIND_MATH=float: the
#      fp64 path changes the per-value math, not the launches, and building
#      its programs again took half of these runs' time);
#   3. under pocl with its defaults (the device's own record).
#
# The pocl runs pick pocl's platform by name, whatever else is installed.
# sinpe's on-disk binary cache is turned off (SINPE_CACHE_DIR=off) so that
# every run builds the kernels from source with the runtime being tested:
# the cache key does not cover OCLGRIND_BUILD_OPTIONS or oclgrind's plugins.
#
# --uninitialized is off unless GRIND_UNINITIALIZED=1, because of two faults
# of its plugin.  In 21.10 (Debian 12) it stops on LLVM's freeze instruction
# in optimised kernels (support came after 21.10, upstream commit ee3a739),
# so those runs build with -cl-opt-disable.  And (21.10 and the upstream
# source up to 26.03.1 alike) it keeps
# the shadow (written or not) of global memory per oclgrind buffer number,
# while oclgrind gives released numbers to new buffers: a new buffer that
# gets the number of a smaller one keeps that one's shadow and size, so
# stores past the old size are dropped and loads past it read as unset.  A
# table's scratch buffers grow by release and a new allocation (src/rows.c),
# so sinpe_table_rows_* reads its anchors as unset at sinpe_combine
# ("Controlflow depends on uninitialized value"), and the rows it writes
# carry that into every kernel that reads the table: 75,000 such reports
# in one record's run, every record alike, once the reports reached the
# log (with --log they were lost, as above).  A plain OpenCL program (16
# floats written and released, then 256 floats written by one kernel and
# read by another) gets the report from element 16 on.  The rows are right
# (float64 reference, outputs poisoned first), and a buffer left unwritten
# is caught by the value checks.  The runs are kept for a fixed oclgrind;
# under them the grind leaves out its block types (Q8_0 and ggml's others)
# and the rotations of 16 and 20 pairs (GRIND_UNINIT_RUN), on which 21.10's
# plugin crashes.
set -u

bin=$1
logdir=$2
status=0

SINPE_CACHE_DIR=off
export SINPE_CACHE_DIR

step() {
    echo "==> $*"
    start=$(date +%s)
    "$@"
    rc=$?
    echo "    ($(($(date +%s) - start)) s, exit status $rc)"
    return $rc
}

# One pocl run, as xargs starts it: record K of LOG_DIR/records.txt with
# work-groups of at most 8, or (K = 0) the device's own record with pocl's
# defaults; its output and exit status into LOG_DIR/pocl-K.*.
if [ "$bin" = --pocl-job ]; then
    bin=$2 logdir=$3 k=$4
    if [ "$k" = 0 ]; then
        step env SINPE_DEVICE="Portable Computing Language" "$bin"
    else
        step env SINPE_DEVICE="Portable Computing Language" \
            SINPE_TUNING="$(sed -n "${k}p" "$logdir/records.txt")" POCL_MAX_WORK_GROUP_SIZE=8 \
            GRIND_MATH=float "$bin"
    fi >"$logdir/pocl-$k.out" 2>&1
    echo $? >"$logdir/pocl-$k.status"
    exit 0
fi

# --- 1. oclgrind ------------------------------------------------------------
# grind_oclgrind LOG BUILD_OPTIONS RECORD FLAGS...: one run (RECORD empty:
# the device's own); a failure or a non-empty log fails the target.
grind_oclgrind() {
    log=$1
    options=$2
    rec=$3
    shift 3
    rm -f "$log"
    if ! step env -u SINPE_DEVICE -u SINPE_TUNING ${rec:+"SINPE_TUNING=$rec"} \
        OCLGRIND_BUILD_OPTIONS="$options" \
        oclgrind "$@" "$bin" 2>"$log"; then
        echo "FAIL: the grind program failed under oclgrind ($*, options '$options')"
        status=1
    fi
    # The log is empty unless oclgrind (or the program, failing) spoke.
    if [ -s "$log" ]; then
        echo "FAIL: oclgrind reported problems ($log):"
        head -n 60 "$log"
        status=1
    fi
}

records=$logdir/records.txt
if ! "$bin" --records >"$records"; then
    echo "FAIL: $bin --records"
    exit 1
fi
# The records as users get them, prefetch hints included (the kernels leave
# the hints out on oclgrind's SPIR target, kernels/dtype.cl), then the
# device's own record with no override, as a host run under oclgrind has it.
i=0
while IFS= read -r rec; do
    i=$((i + 1))
    echo "record $i: $rec"
    grind_oclgrind "$logdir/oclgrind-$i.log" "" "$rec" --check-api --data-races
    if [ "${GRIND_UNINITIALIZED:-0}" = 1 ]; then
        GRIND_UNINIT_RUN=1
        export GRIND_UNINIT_RUN
        grind_oclgrind "$logdir/oclgrind-$i-uninit.log" -cl-opt-disable "$rec" \
            --check-api --data-races --uninitialized
        unset GRIND_UNINIT_RUN
    fi
done <"$records"
echo "the device's own record"
grind_oclgrind "$logdir/oclgrind-own.log" "" "" --check-api --data-races

# --- 2. and 3. pocl ---------------------------------------------------------
# $jobs runs at a time (GRIND_JOBS, else the processors): each run spends
# most of its time in pocl building programs for its record, on one core.
# Each run's output goes to LOG_DIR/pocl-N.out and is printed in order once
# all have ended; a run that left no status counts as failed.
jobs=${GRIND_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
n=$(wc -l <"$records")
rm -f "$logdir"/pocl-*.out "$logdir"/pocl-*.status
{ seq 1 "$n"; echo 0; } | xargs -P "$jobs" -n 1 sh "$0" --pocl-job "$bin" "$logdir"
for k in $(seq 1 "$n") 0; do
    cat "$logdir/pocl-$k.out" 2>/dev/null
    if [ "$(cat "$logdir/pocl-$k.status" 2>/dev/null)" != 0 ]; then
        if [ "$k" = 0 ]; then
            echo "FAIL: the grind program failed under pocl"
        else
            echo "FAIL: the grind program failed under pocl with work-groups of at most 8" \
                "(record $k: $(sed -n "${k}p" "$records"))"
        fi
        status=1
    fi
done

exit $status
