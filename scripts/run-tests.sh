#!/bin/sh
# run-tests.sh TEST_BIN [JOBS] -- the unit tests as "make test" runs them:
# every suite under the device's own record, one process per suite, then,
# under each record that adds a kernel form (TEST_BIN --record-tags), the
# test cases tagged with the forms it adds; JOBS processes at a time
# (default: the number of processors), longest first, each into its own log,
# printed whole when it ends.  pocl compiles each kernel on one core, so on a
# cold kernel cache the run takes about 1/JOBS of one process's time.
# One seed for every process (SINPE_TEST_SEED, else the clock); the shapes
# suite's record comparison (tag "records") runs in the tagged runs only.
# Exit status 0 when every process passed.
set -u
tab=$(printf '\t')

if [ "$1" = --job ]; then
    # Internal: run job number $2 of the list in $3.
    line=$(sed -n "${2}p" "$3")
    kind=${line%%"$tab"*} rest=${line#*"$tab"}
    log="$4/$2.log" t0=$(date +%s)
    if [ "$kind" = suite ]; then
        echo "== suite $rest" >"$log"
        CK_RUN_SUITE=$rest CK_EXCLUDE_TAGS=records "$5" >>"$log" 2>&1
    else
        tags=${rest%%"$tab"*} rec=${rest#*"$tab"}
        echo "== forms $tags under $rec" >"$log"
        SINPE_TUNING=$rec CK_INCLUDE_TAGS=$tags "$5" >>"$log" 2>&1
    fi
    st=$?
    echo "($(($(date +%s) - t0)) s)" >>"$log"
    grep -v '^sinpe tests: seed' "$log"
    [ $st -eq 0 ] || { echo "FAILED: $kind $rest (log $log)"; exit 255; }
    exit 0
fi

bin=$1
jobs=${2:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
logs=$(dirname "$bin")/test-logs
SINPE_TEST_SEED=${SINPE_TEST_SEED:-$(date +%s)}
CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
export SINPE_TEST_SEED CK_DEFAULT_TIMEOUT
echo "sinpe tests: seed $SINPE_TEST_SEED (SINPE_TEST_SEED=$SINPE_TEST_SEED repeats this run), $jobs at a time"
rm -rf "$logs" && mkdir -p "$logs" || exit 1
list="$logs/jobs.txt"
"$bin" --record-tags >"$list.tags" && "$bin" --suites >"$list.suites" || exit 1
{ sed "s/^/tags$tab/" "$list.tags"; sed "s/^/suite$tab/" "$list.suites"; } >"$list"
n=$(wc -l <"$list")
seq 1 "$n" | xargs -P "$jobs" -I{} sh "$0" --job {} "$list" "$logs" "$bin"
