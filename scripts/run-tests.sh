#!/bin/sh
# run-tests.sh [--only SUITES] [--logs DIR] TEST_BIN [JOBS [SUITES]] -- the
# unit tests in processes of their own, JOBS at a time (default: the number
# of processors), longest first, each into its own log, printed whole when
# it ends.  pocl compiles each kernel on one core, so on a cold kernel
# cache the run takes about 1/JOBS of one process's time.
#
# Without SUITES, "make test": every suite under the device's own record,
# then, under each record that adds a kernel form (TEST_BIN --record-tags),
# the test cases tagged with the forms it adds; the shapes suite's record
# comparison (tag "records") runs in those tagged runs only.  With SUITES
# (space-separated), "make check-records": each of those suites in full
# under each record that adds a kernel form (a record that adds none builds
# and launches only kernels that the device's record or an earlier one
# already runs: its matrix row repeated the same launches).  With --only SUITES, those
# suites alone, each in one process under the device's own record, as the
# run without SUITES runs them ("make check-intel": a second OpenCL
# implementation).  A CK_EXCLUDE_TAGS of the caller's leaves out those
# tags' test cases too, in the runs of whole suites ("make check-intel"
# and "make check-records" leave out "cold", the tests that compile every
# program on purpose).
# The logs go to DIR (default: test-logs, or test-logs-records with
# SUITES, beside TEST_BIN), emptied first.
#
# One seed for every process (SINPE_TEST_SEED, else the clock), and one
# folder for sinpe's program cache (SINPE_TEST_CACHE, else one in the logs,
# made afresh each run; tests/main.c).  A failing
# process does not stop the others: every job runs, and the run ends with
# a summary of each job (passed, FAILED, or did not run: a job that never
# started, or whose process died before it could record a result) and a
# last line "N passed, N failed" counting jobs, where a job that did not
# run counts as failed.  Exit status 0 when every job passed.
set -u
tab=$(printf '\t')

if [ "$1" = --job ]; then
    # Internal: run job number $2 of the list in $3 (kind, tags or suite,
    # record), logs in $4, test binary $5.  The result goes to $4/$2.result
    # ("passed SECONDS" or "FAILED SECONDS").  The exit status is 0 or 1,
    # never 255 (and this shell is never killed by the test's signal),
    # since either would make xargs start no further job.
    line=$(sed -n "${2}p" "$3")
    kind=$(echo "$line" | cut -f1) what=$(echo "$line" | cut -f2) rec=$(echo "$line" | cut -f3)
    log="$4/$2.log" t0=$(date +%s)
    echo $$ >"$4/$2.pid"
    echo "== $kind $what${rec:+ under $rec}" >"$log"
    case $kind in
    suite) CK_RUN_SUITE=$what CK_EXCLUDE_TAGS="records${CK_EXCLUDE_TAGS:+ $CK_EXCLUDE_TAGS}" \
        "$5" >>"$log" 2>&1 ;;
    forms) SINPE_TUNING=$rec CK_INCLUDE_TAGS=$what "$5" >>"$log" 2>&1 ;;
    *) SINPE_TUNING=$rec CK_RUN_SUITE=$what "$5" >>"$log" 2>&1 ;;
    esac
    st=$?
    secs=$(($(date +%s) - t0))
    echo "($secs s)" >>"$log"
    grep -v '^sinpe tests: seed' "$log"
    if [ $st -eq 0 ]; then
        echo "passed $secs" >"$4/$2.result"
        exit 0
    fi
    [ $st -gt 128 ] && st="$st, signal $((st - 128))"
    echo "FAILED $secs" >"$4/$2.result"
    echo "FAILED: $kind $what${rec:+ under $rec} (status $st, log $log)"
    exit 1
fi

only='' logs=''
while [ $# -ge 2 ]; do
    case $1 in
    --only) only=$2 && shift 2 ;;
    --logs) logs=$2 && shift 2 ;;
    *) break ;;
    esac
done
bin=$1
jobs=${2:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
suites=${3:-}
logs=${logs:-$(dirname "$bin")/test-logs${suites:+-records}}
SINPE_TEST_SEED=${SINPE_TEST_SEED:-$(date +%s)}
CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120}
export SINPE_TEST_SEED CK_DEFAULT_TIMEOUT
echo "sinpe tests: seed $SINPE_TEST_SEED (SINPE_TEST_SEED=$SINPE_TEST_SEED repeats this run), $jobs at a time"
rm -rf "$logs" && mkdir -p "$logs" || exit 1
# The run's program cache (tests/main.c): sinpe's, as a program gets it by
# default, in the run's own folder, so that each run builds every program
# from source once and its other contexts load them.  A SINPE_TEST_CACHE
# already set is kept ("make check-intel" shares one with its other steps).
SINPE_TEST_CACHE=${SINPE_TEST_CACHE:-$(cd "$logs" && pwd)/cache}
export SINPE_TEST_CACHE
list="$logs/jobs.txt"
if [ -n "$only" ]; then
    for s in $only; do printf 'suite\t%s\t\n' "$s"; done >"$list"
elif [ -n "$suites" ]; then
    "$bin" --record-tags >"$list.tags" || exit 1
    cut -f2 "$list.tags" >"$list.records"
    while IFS= read -r rec; do
        for s in $suites; do printf 'full\t%s\t%s\n' "$s" "$rec"; done
    done <"$list.records" >"$list"
else
    "$bin" --record-tags >"$list.tags" && "$bin" --suites >"$list.suites" || exit 1
    { sed "s/^\([^$tab]*\)$tab/forms$tab\1$tab/" "$list.tags"
      sed "s/^/suite$tab/" "$list.suites"; } >"$list"
fi
n=$(wc -l <"$list")
if [ "$n" -eq 0 ]; then
    echo "sinpe tests: $bin lists no job to run"
    exit 1
fi
seq 1 "$n" | xargs -P "$jobs" -I{} sh "$0" --job {} "$list" "$logs" "$bin"
xst=$?
# xargs exits 123 when some job failed; any other non-zero status means it
# stopped starting jobs (a job process killed, or xargs itself failed).
# GNU xargs still waits for the jobs running then; others need not, so wait
# for them here: their results count and their logs come before the summary.
case $xst in
0 | 123) ;;
*)
    echo "sinpe tests: xargs stopped with status $xst; the jobs it did not start did not run"
    for f in "$logs"/*.pid; do
        if [ -f "$f" ] && [ ! -f "${f%.pid}.result" ]; then
            pid=$(cat "$f")
            while kill -0 "$pid" 2>/dev/null; do sleep 1; done
        fi
    done
    ;;
esac

# The summary, in the order of the list, from the result each job left.
passed=0 failed=0 missing=0 i=0
echo "sinpe tests: summary (logs in $logs)"
while IFS="$tab" read -r kind what rec; do
    i=$((i + 1))
    result='' secs='' note=''
    [ -f "$logs/$i.result" ] && read -r result secs <"$logs/$i.result"
    case $result in
    passed) passed=$((passed + 1)) ;;
    FAILED) failed=$((failed + 1)) note=" (log $logs/$i.log)" ;;
    *)
        missing=$((missing + 1)) result="did not run"
        [ -f "$logs/$i.log" ] && note=" (started, ended without a result: $logs/$i.log)"
        ;;
    esac
    printf '  %-11s %6s  %s\n' "$result" "${secs:+$secs s}" "$kind $what${rec:+ under $rec}$note"
done <"$list"
[ "$missing" -eq 0 ] || echo "sinpe tests: $missing did not run and count as failed"
echo "$passed passed, $((failed + missing)) failed"
[ $((failed + missing)) -eq 0 ]
