#!/bin/sh
# run.sh GRIND_BINARY LOG_DIR
#
# Runs the grind program five times and fails when any run fails:
#
#   1. under oclgrind (the simulator is the only platform: the oclgrind
#      command preloads its runtime in place of the ICD loader), with
#      --check-api --data-races and, where the simulator can handle the
#      kernels, --uninitialized.  oclgrind exits 0 whatever it finds, so its
#      report goes to LOG_DIR/oclgrind.log (oclgrind-vec4.log for the second
#      run) and a non-empty log is a failure.  Twice: with SINPE_VEC=1 and
#      SINPE_VEC=4, the two shapes of the embedding kernels (one column or
#      four per work-item), whatever the default on the device;
#   2. under pocl with POCL_MAX_WORK_GROUP_SIZE=8, so that every launch is
#      split into many small work-groups with partial ones at the edges,
#      again with both shapes;
#   3. under pocl with its defaults.
#
# The pocl runs pick pocl's platform by name, whatever else is installed.
# sinpe's on-disk binary cache is turned off (SINPE_CACHE_DIR=off) so that
# every run builds the kernels from source with the runtime being tested:
# the cache key does not cover OCLGRIND_BUILD_OPTIONS or oclgrind's plugins.
#
# --uninitialized and oclgrind 21.10 (Debian 12): the plugin of that release
# stops with "Unsupported instruction: freeze" on optimised kernels (LLVM's
# div/rem pairing emits freeze; support came after 21.10, upstream commit
# ee3a739), and with -cl-opt-disable it crashes on a float4 built from two
# float2 values.  On 21.10 the flag is therefore left out, with a note;
# GRIND_UNINITIALIZED=1 forces it, GRIND_UNINITIALIZED=0 drops it.
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
uninit=${GRIND_UNINITIALIZED:-auto}
if [ "$uninit" = auto ]; then
    case $version in
        "" | 1[0-9].* | 2[01].*) uninit=0 ;;
        *) uninit=1 ;;
    esac
fi
if [ "$uninit" = 1 ]; then
    flags="$flags --uninitialized"
else
    echo "note: oclgrind ${version:-of unknown version} runs without --uninitialized" \
        "(its plugin cannot handle LLVM's freeze instruction; see tests/grind/run.sh)"
fi

for vec in 1 4; do
    log=$logdir/oclgrind.log
    [ "$vec" = 1 ] || log=$logdir/oclgrind-vec$vec.log
    rm -f "$log"
    # $flags must split into words.
    # shellcheck disable=SC2086
    if ! step env -u SINPE_DEVICE SINPE_VEC=$vec oclgrind $flags --log "$log" "$bin"; then
        echo "FAIL: the grind program failed under oclgrind (SINPE_VEC=$vec)"
        status=1
    fi
    # oclgrind writes its log only when it has something to say.
    if [ -s "$log" ]; then
        echo "FAIL: oclgrind reported problems ($log):"
        head -n 60 "$log"
        status=1
    fi
done

# --- 2. and 3. pocl ---------------------------------------------------------
pocl="Portable Computing Language"
for vec in 1 4; do
    if ! step env SINPE_DEVICE="$pocl" SINPE_VEC=$vec POCL_MAX_WORK_GROUP_SIZE=8 "$bin"; then
        echo "FAIL: the grind program failed under pocl with work-groups of at most 8" \
            "(SINPE_VEC=$vec)"
        status=1
    fi
done
if ! step env SINPE_DEVICE="$pocl" "$bin"; then
    echo "FAIL: the grind program failed under pocl"
    status=1
fi

exit $status
