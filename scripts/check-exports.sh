#!/bin/sh
# check-exports.sh LIB HEADER
#
# Fails unless the dynamic symbols that the shared library LIB defines are
# exactly the functions HEADER declares with SINPE_API: nothing internal
# leaks out (sinpe__* helpers, the kernel source, symbols of static
# dependencies), and nothing the header promises is missing.  Set NM to use
# another nm.
set -eu

if [ "$#" -ne 2 ]; then
    echo "usage: $0 LIB HEADER" >&2
    exit 2
fi
lib=$1
header=$2
nm=${NM:-nm}

LC_ALL=C
export LC_ALL

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

"$nm" -D --defined-only --format=posix "$lib" >"$tmp/nm"
awk '{ print $1 }' "$tmp/nm" | sort -u >"$tmp/exported"

# Public declarations start a line with SINPE_API; the name is the last
# identifier before the opening parenthesis of the parameters, itself
# parenthesised for the 0.1 entry points that share a macro's name.
sed -n 's/^SINPE_API.*[^A-Za-z0-9_](\{0,1\}\(sinpe_[A-Za-z0-9_]*\))\{0,1\}[[:space:]]*(.*/\1/p' \
    "$header" | sort -u >"$tmp/declared"

if [ ! -s "$tmp/declared" ]; then
    echo "$0: no SINPE_API declarations found in $header" >&2
    exit 1
fi

status=0
comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
if [ -s "$tmp/extra" ]; then
    echo "$lib exports symbols that are not public API:" >&2
    sed 's/^/    /' "$tmp/extra" >&2
    status=1
fi
if [ -s "$tmp/missing" ]; then
    echo "$lib does not export functions declared in $header:" >&2
    sed 's/^/    /' "$tmp/missing" >&2
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "exports ok: $(wc -l <"$tmp/exported" | tr -d ' ') sinpe_* functions, nothing else"
fi
exit "$status"
