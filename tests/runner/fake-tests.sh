#!/bin/sh
# fake-tests.sh -- stands in for build/sinpe_tests in tests/runner/check.sh:
# it answers --records, --record-tags and --suites as tests/main.c does
# (with made-up records and forms), and a run (CK_RUN_SUITE or
# CK_INCLUDE_TAGS set, as scripts/run-tests.sh sets them) passes at once,
# unless the job is named in one of these variables:
#   FAKE_FAIL   a suite or record whose run exits 1
#   FAKE_CRASH  a suite or record whose run dies of SIGSEGV
#   FAKE_KILL   a suite or record whose run kills the shell that started it
#               (a job process that dies without a result; xargs then
#               starts no further job)
# Every run appends its job's name to $FAKE_RAN.
set -u
# r3 adds no kernel form: neither "make test" nor "make check-records" runs it.
records="r1 r2 r3"
case ${1:-} in
--records) for r in $records; do echo "$r"; done; exit 0 ;;
--record-tags) printf 'wide16 nt\tr1\n'; printf 'decode\tr2\n'; exit 0 ;;
--suites) for s in cache quant embed tuning errors status types; do echo "$s"; done; exit 0 ;;
'') ;;
*) echo "usage: $0 [--records | --record-tags | --suites]" >&2; exit 1 ;;
esac
job=${CK_RUN_SUITE:-}${SINPE_TUNING:+@$SINPE_TUNING}
echo "sinpe tests: seed ${SINPE_TEST_SEED:-0} (fake)"
echo "$job" >>"${FAKE_RAN:-/dev/null}"
for name in "$job" "${CK_RUN_SUITE:-}" "${SINPE_TUNING:-}"; do
    [ -n "$name" ] || continue
    [ "$name" = "${FAKE_FAIL:-}" ] && { echo "100%: Checks: 1, Failures: 1, Errors: 0"; exit 1; }
    [ "$name" = "${FAKE_CRASH:-}" ] && kill -SEGV $$
    [ "$name" = "${FAKE_KILL:-}" ] && kill -KILL "$PPID"
done
echo "100%: Checks: 1, Failures: 0, Errors: 0"
exit 0
