#!/bin/sh
# embed-text.sh source NAME OUT.c ROOT...
# embed-text.sh list NAME OUT.c FILE...
# embed-text.sh text - OUT ROOT...
#
# Writes OUT.c, a C file that defines text files as C strings:
#
#   source  the program source made of the OpenCL C files ROOT..., each
#           `#include "file"` line replaced by that file (a path relative to
#           the including file), as the preprocessor does, so that the
#           text builds exactly as the files do from disk (each ROOT
#           after the first as if included); a copy that a file's include
#           guard would empty is left out (see emit).
#               const char NAME[] = "...";
#               const unsigned long NAME_len = sizeof NAME - 1;
#               const char *const NAME_roots[] = {"root", ..., 0};
#           the last, the ROOTs' file names, for building them from disk;
#   text    the same source as plain text (NAME unused), for installing;
#   list    one string per FILE, in the order given, then NULL:
#               const char *const NAME[] = {"...", ..., 0};
#
# Each line becomes its own string literal, which the compiler joins, so no
# single literal comes near C99's length limits; every line ends with a
# newline.  Backslashes, quotes, tabs and carriage returns are escaped, and
# every '?' is written as '\?' so that no trigraph can form.  The output
# includes no header: src/sinpe_internal.h declares the names.
set -eu

if [ "$#" -lt 4 ] || { [ "$1" != source ] && [ "$1" != list ] && [ "$1" != text ]; }; then
    echo "usage: $0 source|list|text NAME OUT.c FILE..." >&2
    exit 2
fi
mode=$1
name=$2
out=$3
shift 3
for f in "$@"; do
    if [ ! -r "$f" ]; then
        echo "$0: cannot read $f" >&2
        exit 1
    fi
done

# Bytes, not characters: a non-UTF-8 byte in a comment must pass unchanged.
LC_ALL=C
export LC_ALL

# Write next to the target and rename, so a failed run never leaves a
# half-written file that make would take as up to date.
tmp=$out.tmp.$$
trap 'rm -f "$tmp" "$tmp.txt"' EXIT
trap 'exit 1' HUP INT TERM

# inline FILE...: the files' text, each "#include" line replaced by the
# file it names (relative to the includer).
inline() {
    awk '
    function dir_of(path) {
        if (path !~ /\//)
            return ""
        sub(/\/[^\/]*$/, "/", path)
        return path
    }
    # A file whose first two directives are #ifndef X and #define X, and
    # whose last is the #endif, is guarded: once inlined outside any
    # conditional (its own guard aside), a later copy would be empty and
    # is left out.  cond counts the conditionals open where a line lands.
    function emit(f,    line, inc, rc, text, n, i, d, m, first, last, at) {
        if (depth++ > 32) {
            print "embed-text.sh: includes nested too deep at " f > "/dev/stderr"
            exit 1
        }
        print "/* " f " */"
        while ((rc = (getline line < f)) > 0) {
            text[++n] = line
            if (line ~ /^[ \t]*#/) {
                d[++m] = line
                last = n
                if (m == 1)
                    first = n
            }
        }
        close(f)
        if (rc < 0) {
            print "embed-text.sh: cannot read " f > "/dev/stderr"
            failed = 1
        }
        guarded[f] = m >= 3 && d[1] ~ /^#ifndef [A-Za-z_0-9]+[ \t]*$/ &&
                     d[2] == "#define " substr(d[1], 9) && text[last] ~ /^#endif/
        for (i = 1; i <= n; i++) {
            line = text[i]
            if (guarded[f] && (i == first || i == last)) {
                print line
                continue
            }
            if (line ~ /^[ \t]*#[ \t]*if/)
                cond++
            else if (line ~ /^[ \t]*#[ \t]*endif/)
                cond--
            if (line !~ /^#include "[^"]+"[ \t]*$/) {
                if (line ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
                    print "embed-text.sh: " f ": write it as #include \"file\" alone: " line > "/dev/stderr"
                    failed = 1
                }
                print line
                continue
            }
            inc = line
            sub(/^#include "/, "", inc)
            sub(/"[ \t]*$/, "", inc)
            inc = dir_of(f) inc
            if (inc in once)
                continue
            at = cond
            emit(inc)
            if (guarded[inc] && at == 0)
                once[inc] = 1
        }
        depth--
    }
    BEGIN {
        for (i = 1; i < ARGC; i++)
            if (!(ARGV[i] in once)) {
                emit(ARGV[i])
                if (guarded[ARGV[i]])
                    once[ARGV[i]] = 1
            }
        exit failed
    }' "$@"
}

# quote: each line of standard input as a C string literal.
quote() {
    sed -e 's/\\/\\\\/g' \
        -e 's/"/\\"/g' \
        -e 's/?/\\?/g' \
        -e "s/$tab/\\\\t/g" \
        -e "s/$cr/\\\\r/g" \
        -e 's/^/    "/' \
        -e 's/$/\\n"/'
}

if [ "$mode" = text ]; then
    inline "$@" >"$tmp"
    mv "$tmp" "$out"
    exit 0
fi

tab=$(printf '\t')
cr=$(printf '\r')
{
    echo "/* Generated by scripts/embed-text.sh; edit the files it names instead. */"
    echo
    if [ "$mode" = source ]; then
        echo "const char ${name}[] ="
        inline "$@" >"$tmp.txt"
        quote <"$tmp.txt"
        echo '    "";'
        echo
        echo "const unsigned long ${name}_len = sizeof $name - 1;"
        echo
        echo "const char *const ${name}_roots[] = {"
        for f in "$@"; do echo "    \"${f##*/}\","; done
        echo "    0"
        echo "};"
    else
        echo "const char *const ${name}[] = {"
        for f in "$@"; do
            echo "    /* $f */"
            quote <"$f"
            echo '    "",'
        done
        echo "    0"
        echo "};"
    fi
} >"$tmp"
rm -f "$tmp.txt"

mv "$tmp" "$out"
