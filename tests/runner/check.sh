#!/bin/sh
# check.sh -- scripts/run-tests.sh against a stand-in test program
# (fake-tests.sh, no OpenCL): one failing, crashing or killed job must not
# hide the others; the summary names each job's result and the last line
# reads "N passed, N failed", with the exit status to match.  Runs in a
# second or two; "make check-runner".
set -u
here=$(cd "$(dirname "$0")" && pwd)
runner=$here/../../scripts/run-tests.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cp "$here/fake-tests.sh" "$tmp/fake" && chmod +x "$tmp/fake" || exit 1
bad=0

# expect NAME STATUS LAST-LINE SUMMARY-PATTERN... -- after a run into
# $tmp/out (status in $st), check the status, the last line, and that each
# pattern matches a line of the summary.
expect() {
    name=$1 want_st=$2 want_last=$3
    shift 3
    ok=yes
    if [ "$want_st" = 0 ] && [ "$st" -ne 0 ]; then ok=no; fi
    if [ "$want_st" != 0 ] && [ "$st" -eq 0 ]; then ok=no; fi
    [ "$(tail -n 1 "$tmp/out")" = "$want_last" ] || ok=no
    sed -n '/^sinpe tests: summary/,$p' "$tmp/out" >"$tmp/summary"
    for pat in "$@"; do
        grep -q "$pat" "$tmp/summary" || { ok=no; echo "  missing in summary: $pat"; }
    done
    if [ $ok = yes ]; then
        echo "ok: $name"
    else
        echo "FAILED: $name (status $st, output below)"
        sed 's/^/    /' "$tmp/out"
        bad=1
    fi
}

run() { rm -f "$tmp/ran"; FAKE_RAN=$tmp/ran sh "$runner" "$tmp/fake" "$@" >"$tmp/out" 2>&1; st=$?; }
ran() { [ -f "$tmp/ran" ] && wc -l <"$tmp/ran" | tr -d ' ' || echo 0; }

run 2
expect "every job passes" 0 "9 passed, 0 failed" "passed .* suite cache" "passed .* forms decode under r2"

FAKE_FAIL=embed run 2
expect "a failing suite stops no other" 1 "8 passed, 1 failed" \
    "FAILED .* suite embed (log" "passed .* suite types"
[ "$(ran)" = 9 ] || { echo "FAILED: $(ran) of 9 jobs ran after a failure"; bad=1; }

FAKE_CRASH=r1 run 1
expect "a crashing record stops no other" 1 "8 passed, 1 failed" \
    "FAILED .* forms wide16 nt under r1" "passed .* suite status"
grep -q "FAILED: forms wide16 nt under r1 (status 139, signal 11" "$tmp/out" ||
    { echo "FAILED: no status and signal for the crash"; bad=1; }

# A job process that dies makes xargs start no more: those count as failed.
FAKE_KILL=tuning run 1
expect "jobs that never ran count as failed" 1 "5 passed, 4 failed" \
    "did not run .* suite tuning (started" "did not run .* suite errors\$" \
    "did not run .* suite types\$" "4 did not run"

FAKE_FAIL=r2 run 2 "status types"
expect "records mode: the records that add a form" 1 "2 passed, 2 failed" \
    "passed .* full status under r1" "FAILED .* full types under r2"

rm -f "$tmp/ran"
FAKE_FAIL=tuning FAKE_RAN=$tmp/ran sh "$runner" --only "embed tuning" --logs "$tmp/only-logs" \
    "$tmp/fake" 2 >"$tmp/out" 2>&1
st=$?
expect "--only: those suites alone, under the device's record" 1 "1 passed, 1 failed" \
    "passed .* suite embed\$" "FAILED .* suite tuning (log $tmp/only-logs/2.log)"
[ "$(ran)" = 2 ] || { echo "FAILED: --only ran $(ran) jobs, not 2"; bad=1; }

[ $bad -eq 0 ] && echo "run-tests.sh: all checks passed"
exit $bad
