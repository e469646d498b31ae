#!/bin/sh
# run.sh GRIND_BINARY LOG_DIR
#
# Runs the grind program under every tuning record that reaches a form of
# the database ("GRIND_BINARY --records": each record with every call in
# its plain forms, decode-sized and streamed; src/tuning.c), and fails when
# any run fails:
#
#   1. under oclgrind (the simulator is the only platform: the oclgrind
#      command preloads its runtime in place of the ICD loader), twice per
#      record: optimised with --check-api --data-races, and unoptimised with
#      --uninitialized added (see below).  oclgrind exits 0 whatever it
#      finds, so its reports go to LOG_DIR/oclgrind-N.log and a non-empty
#      log is a failure.  (The --uninitialized plugin follows private and
#      local values; a buffer left unwritten by an earlier kernel is caught
#      by the value checks.)
#   2. under pocl with POCL_MAX_WORK_GROUP_SIZE=8, so that every launch is
#      split into many small work-groups with partial ones at the edges,
#      once per record;
#   3. under pocl with its defaults (the device's own record).
#
# The pocl runs pick pocl's platform by name, whatever else is installed.
# sinpe's on-disk binary cache is turned off (SINPE_CACHE_DIR=off) so that
# every run builds the kernels from source with the runtime being tested:
# the cache key does not cover OCLGRIND_BUILD_OPTIONS or oclgrind's plugins.
#
# --uninitialized and oclgrind 21.10 (Debian 12): the plugin of that release
# stops on LLVM's freeze instruction in optimised kernels (support came after
# 21.10, upstream commit ee3a739).  Kernels built with -cl-opt-disable have
# none, so each record runs twice: optimised with --check-api --data-races,
# and unoptimised (OCLGRIND_BUILD_OPTIONS=-cl-opt-disable) with
# --uninitialized added.  Newer releases get --uninitialized on the
# optimised runs too.  GRIND_UNINITIALIZED=0 drops the unoptimised runs.
#
# A false report of --uninitialized (21.10, and the upstream source up to
# 26.03.1 alike): "Controlflow depends on uninitialized value" where a kernel
# reads a buffer that an earlier kernel wrote in full, as sinpe_table_rows_*
# does at sinpe_combine with the anchors when a table of dim 64 is made after
# a fused call at dim 16.  The plugin keeps the shadow (written or not) of
# global memory per oclgrind buffer number and is told nothing when a buffer
# is released, while oclgrind gives released numbers to new buffers: a new
# buffer that gets the number of a smaller one keeps that one's shadow and
# size, so stores past the old size are dropped and loads past it read as
# unset.  Those table rows are right (float64 reference), the report stays
# when the anchors kernel stores constants, and a plain OpenCL program (16
# floats written and released, then 256 floats written by one kernel and
# read by another) gets it from element 16 on.  The reverse happens too: a
# reused number can carry a clean shadow over a buffer no one wrote, so the
# plugin misses such reads; the grind's value checks catch those.  The
# grind's allocations do not hit this today; a case that does (a buffer
# larger than one released before it) reports it, and that is the tool.
#
# Two kinds of case stay out of the --uninitialized runs (GRIND_UNINIT_RUN):
# the Q8_0 cases, since under the streaming record (stream=1,
# stream_bytes=0) that plugin of 21.10 dies of a segmentation fault in the
# Q8_0 case into fp16, after the reports above on the anchors of
# sinpe_table_rows_f32; and the rotations of 16 and 20 pairs (rotary tables
# of 32 and 40 columns, larger than buffers released before them), which
# draw the same reports on sinpe_table_rows_f32's anchors ("uninitialized
# value written", "controlflow depends on uninitialized value") and the same
# crash, under the records with rope_pairs = 64.  Those cases pass the
# optimised run of every record (--check-api --data-races, bounds checked)
# and pocl's, against the float64 reference.
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

# --- 1. oclgrind ------------------------------------------------------------
version=$(oclgrind --version 2>/dev/null | awk '/^Oclgrind/ { print $2; exit }')
flags="--check-api --data-races"
case $version in
    "" | 1[0-9].* | 2[01].*) ;;
    *) flags="$flags --uninitialized" ;;
esac

# grind_oclgrind LOG BUILD_OPTIONS RECORD FLAGS...: one run; a failure or
# a non-empty log fails the target.
grind_oclgrind() {
    log=$1
    options=$2
    rec=$3
    shift 3
    rm -f "$log"
    if ! step env -u SINPE_DEVICE SINPE_TUNING="$rec" OCLGRIND_BUILD_OPTIONS="$options" \
        oclgrind "$@" --log "$log" "$bin"; then
        echo "FAIL: the grind program failed under oclgrind ($*, options '$options')"
        status=1
    fi
    # oclgrind writes its log only when it has something to say.
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
# oclgrind 21.10 cannot run llvm.prefetch ("undefined external function"):
# its runs take each record with prefetch = 0.  A prefetch is a hint that
# reads nothing and changes no value; pocl's runs below take the records
# as they are.
i=0
while IFS= read -r rec; do
    i=$((i + 1))
    echo "record $i: $rec"
    rec="$rec; prefetch = 0"
    # shellcheck disable=SC2086
    grind_oclgrind "$logdir/oclgrind-$i.log" "" "$rec" $flags
    if [ "${GRIND_UNINITIALIZED:-1}" != 0 ]; then
        GRIND_UNINIT_RUN=1
        export GRIND_UNINIT_RUN
        grind_oclgrind "$logdir/oclgrind-$i-uninit.log" -cl-opt-disable "$rec" \
            --check-api --data-races --uninitialized
        unset GRIND_UNINIT_RUN
    fi
done <"$records"

# --- 2. and 3. pocl ---------------------------------------------------------
pocl="Portable Computing Language"
i=0
while IFS= read -r rec; do
    i=$((i + 1))
    if ! step env SINPE_DEVICE="$pocl" SINPE_TUNING="$rec" POCL_MAX_WORK_GROUP_SIZE=8 "$bin"; then
        echo "FAIL: the grind program failed under pocl with work-groups of at most 8" \
            "(record $i: $rec)"
        status=1
    fi
done <"$records"
if ! step env SINPE_DEVICE="$pocl" "$bin"; then
    echo "FAIL: the grind program failed under pocl"
    status=1
fi

exit $status
