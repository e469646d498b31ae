#!/bin/sh
# run-tests.sh TEST_BIN [JOBS [SUITES]] -- the unit tests in processes of
# their own, JOBS at a time (default: the number of processors), longest
# first, each into its own log, printed whole when it ends.  pocl compiles
# each kernel on one core, so on a cold kernel cache the run takes about
# 1/JOBS of one process's time.
#
# Without SUITES, "make test": every suite under the device's own record,
# then, under each record that adds a kernel form (TEST_BIN --record-tags),
# the test cases tagged with the forms it adds; the shapes suite's record
# comparison (tag "records") runs in those tagged runs only.  With SUITES
# (space-separated), "make check-records": each of those suites in full
# under every record of TEST_BIN --records.
#
# One seed for every process (SINPE_TEST_SEED, else the clock).  Exit
# status 0 when every process passed.
set -u
tab=$(printf '\t')

if [ "$1" = --job ]; then
    # Internal: run job number $2 of the list in $3 (kind, tags or suite,
    # record), logs in $4, test binary $5.
    line=$(sed -n "${2}p" "$3")
    kind=$(echo "$line" | cut -f1) what=$(echo "$line" | cut -f2) rec=$(echo "$line" | cut -f3)
    log="$4/$2.log" t0=$(date +%s)
    echo "== $kind $what${rec:+ under $rec}" >"$log"
    case $kind in
    suite) CK_RUN_SUITE=$what CK_EXCLUDE_TAGS=records "$5" >>"$log" 2>&1 ;;
    forms) SINPE_TUNING=$rec CK_INCLUDE_TAGS=$what "$5" >>"$log" 2>&1 ;;
    *) SINPE_TUNING=$rec CK_RUN_SUITE=$what "$5" >>"$log" 2>&1 ;;
    esac
    st=$?
    echo "($(($(date +%s) - t0)) s)" >>"$log"
    grep -v '^sinpe tests: seed' "$log"
    [ $st -eq 0 ] || { echo "FAILED: $kind $what${rec:+ under $rec} (log $log)"; exit 255; }
    exit 0
fi

bin=$1
jobs=${2:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
suites=${3:-}
logs=$(dirname "$bin")/test-logs${suites:+-records}
SINPE_TEST_SEED=${SINPE_TEST_SEED:-$(date +%s)}
CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
export SINPE_TEST_SEED CK_DEFAULT_TIMEOUT
echo "sinpe tests: seed $SINPE_TEST_SEED (SINPE_TEST_SEED=$SINPE_TEST_SEED repeats this run), $jobs at a time"
rm -rf "$logs" && mkdir -p "$logs" || exit 1
list="$logs/jobs.txt"
if [ -n "$suites" ]; then
    "$bin" --records >"$list.records" || exit 1
    while IFS= read -r rec; do
        for s in $suites; do printf 'full\t%s\t%s\n' "$s" "$rec"; done
    done <"$list.records" >"$list"
else
    "$bin" --record-tags >"$list.tags" && "$bin" --suites >"$list.suites" || exit 1
    { sed "s/^\([^$tab]*\)$tab/forms$tab\1$tab/" "$list.tags"
      sed "s/^/suite$tab/" "$list.suites"; } >"$list"
fi
n=$(wc -l <"$list")
seq 1 "$n" | xargs -P "$jobs" -I{} sh "$0" --job {} "$list" "$logs" "$bin"
