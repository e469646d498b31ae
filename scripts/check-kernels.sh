#!/bin/sh
# The kernels compiled as OpenCL C 1.2 by clang, -Wall and every warning an error
# (but -Wpsabi's, which describe the x86 calling convention of 16-wide
# vectors), for every program sinpe builds: the base one and one per
# weights type, every form held; the base one also with the other
# attention input work shape (attn_heads 1).  The library builds them with
# -w (see src/plan.c), so a warning would otherwise go unseen.  The program
# is made of the files given (the Makefile's KERNEL_ROOTS), by default
# kernels/sinpe.cl then the other kernels/*.cl in name order, as the
# Makefile makes it.
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- kernels/sinpe.cl $(LC_ALL=C ls kernels/*.cl | grep -vx kernels/sinpe.cl)
program=$(for f in "$@"; do printf '#include "%s"\n' "${f##*/}"; done)
CLANG=${CLANG:-clang}
# Every form of kernels/abi.h's SINPE_FORM_LIST.
forms=$(sed -n '/^#define SINPE_FORM_LIST/,/^$/p' kernels/abi.h | grep -o 'X([A-Z_0-9]*,' | sed 's/X(//; s/,//')
defs="-DSINPE_FP64=0 -DSINPE_SEQS=4 -DSINPE_TABLE_SEQS=2 -DSINPE_TABLE_TILE=1 -DSINPE_ALIGNED_IO=1"
defs="$defs -DSINPE_WIDE16=16 -DSINPE_ROPE_PAIRS=64 -DSINPE_PREFETCH=3 -DSINPE_STREAM_LINES=4"
defs="$defs -DSINPE_ATTN_HEADS=16"
for f in $forms; do defs="$defs -DSINPE_HAS_$f=1"; done
# Every weights type: the values of kernels/abi.h's SINPE_DTYPE_VALUES.
types=$(sed -n '/^#define SINPE_DTYPE_VALUES/,/^$/p' kernels/abi.h | grep -o 'X([A-Z_0-9]*, [0-9]*)' |
    sed 's/.*, //; s/)//')
n=0
for w in base attn1 $types; do
    extra=""
    case $w in
    base) ;;
    attn1) extra="-USINPE_ATTN_HEADS -DSINPE_ATTN_HEADS=1" ;;
    *) extra="-DSINPE_WEIGHTS=$w" ;;
    esac
    for fp64 in 0 1; do
        # shellcheck disable=SC2086
        printf '%s\n' "$program" |
            "$CLANG" -x cl -cl-std=CL1.2 -Xclang -finclude-default-header -target spir64 \
                -Ikernels $defs -USINPE_FP64 -DSINPE_FP64=$fp64 $extra -Wall -Werror \
                -Wno-psabi -fsyntax-only -
        n=$((n + 1))
    done
done
echo "check-kernels: $n programs compiled without a warning"
