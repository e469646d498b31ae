#!/bin/sh
# plot.sh [JSONL [PNG]] -- grouped bar charts of the benchmark's GB/s.
#
# Reads the JSON lines sinpe_bench writes with --json (default
# build/bench.jsonl) and draws one panel per storage type and positions mode
# (bars: the cases; groups: shape and dim) plus one for table generation,
# each with the ceiling its bars are read against as a dashed line (copy
# for the embedding cases, write for table generation: the fastest way of
# each among the ceiling rows at the start of the run).  Writes a PNG (default build/results.png) with gnuplot
# (Debian: gnuplot-nox, or "sh scripts/install-deps.sh --with gnuplot").
# The JSON is read with awk alone: the bench writes one flat object per line.
set -eu

in=${1:-build/bench.jsonl}
out=${2:-build/results.png}

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plot.sh: gnuplot not found; install it with: sh scripts/install-deps.sh --with gnuplot" >&2
    exit 1
fi
if [ ! -r "$in" ]; then
    echo "plot.sh: cannot read $in (make it with: sinpe_bench --json $in)" >&2
    exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# pngcairo draws smoother text; the plain png terminal is the fallback.
if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
    term=pngcairo
else
    term=png
fi

awk -v dir="$tmp" -v out="$out" -v term="$term" '
function str(key,   m) {
    if (!match($0, "\"" key "\":\"[^\"]*\""))
        return ""
    m = substr($0, RSTART + length(key) + 4, RLENGTH - length(key) - 5)
    return m
}
function num(key,   m) {
    if (!match($0, "\"" key "\":[-+0-9.eE]+"))
        return ""
    return substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
}
# Remembers the first appearance of each panel, group and case, in order.
function add(list, n, key, value) {
    if (!((key SUBSEP value) in seen)) {
        seen[key, value] = 1
        n[key]++
        list[key, n[key]] = value
    }
}
{
    c = str("case")
    if (c == "")
        next
    if (device == "")
        device = str("device")
    # The ceilings: the fastest way of each kind at the start of the run.
    if (str("phase") != "") {
        kind = c ~ /^copy/ ? "copy" : "write"
        if (str("phase") == "start" && num("gbps") + 0 > ceiling[kind] + 0)
            ceiling[kind] = num("gbps")
        next
    }
    if (c ~ /^table/) {
        panel = "table generation (" num("seq_len") " rows, fp32)"
        group = "dim " num("dim")
    } else if (c ~ /^rope/) {
        panel = "rotary, " str("dtype") ": q and k in place (32 + 8 heads of " num("dim") ")"
        group = str("shape") " " num("seqs") "x" num("seq_len")
    } else {
        panel = str("dtype") ", " str("positions") " positions"
        group = str("shape") " d" num("dim")
    }
    if (!(panel in is_panel)) {
        is_panel[panel] = 1
        if (c ~ /^table/)
            table_panel = panel
        else
            panels[++npanels] = panel
        roof[panel] = c ~ /^table/ ? "write" : "copy"
    }
    add(groups, ngroups, panel, group)
    add(cases, ncases, panel, c)
    value[panel, group, c] = num("gbps")
}
END {
    if (table_panel != "")
        panels[++npanels] = table_panel
    if (npanels == 0) {
        print "plot.sh: no benchmark rows in the input" > "/dev/stderr"
        exit 1
    }
    cols = npanels > 1 ? 2 : 1
    rows = int((npanels + cols - 1) / cols)
    gp = dir "/plot.gp"
    printf "set terminal %s size %d,%d font \",10\"\n", term, 900 * cols, 440 * rows + 40 > gp
    printf "set output \"%s\"\n", out > gp
    print "set termoption noenhanced" > gp
    print "set datafile missing \"?\"" > gp
    print "set style data histograms" > gp
    print "set style histogram clustered gap 1" > gp
    print "set style fill solid 0.85 border -1" > gp
    print "set boxwidth 0.9" > gp
    print "set grid ytics" > gp
    print "set key outside bottom center horizontal" > gp
    print "set ylabel \"GB/s\"" > gp
    print "set yrange [0:*]" > gp
    print "set xtics nomirror" > gp
    printf "set multiplot layout %d,%d title \"sinpe_bench: GB/s per case and shape on %s\"\n",
        rows, cols, device > gp
    for (p = 1; p <= npanels; p++) {
        panel = panels[p]
        data = dir "/panel" p ".dat"
        printf "\"group\"" > data
        for (k = 1; k <= ncases[panel]; k++)
            printf " \"%s\"", cases[panel, k] > data
        printf "\n" > data
        for (g = 1; g <= ngroups[panel]; g++) {
            group = groups[panel, g]
            printf "\"%s\"", group > data
            for (k = 1; k <= ncases[panel]; k++) {
                v = value[panel, group, cases[panel, k]]
                printf " %s", (v == "" ? "?" : v) > data
            }
            printf "\n" > data
        }
        close(data)
        r = roof[panel]
        printf "set title \"%s\"\n", panel > gp
        printf "set xrange [-0.5:%f]\n", ngroups[panel] - 0.5 > gp
        printf "plot" > gp
        for (k = 1; k <= ncases[panel]; k++)
            printf "%s \"%s\" using %d%s title columnheader(%d)", (k > 1 ? "," : ""),
                data, k + 1, (k == 1 ? ":xtic(1)" : ""), k + 1 > gp
        if (ceiling[r] != "")
            printf ", %s with lines dashtype 2 linewidth 2 linecolor rgb \"black\" title \"%s ceiling\"",
                ceiling[r], r > gp
        printf "\n" > gp
    }
    print "unset multiplot" > gp
    close(gp)
}
' "$in"

gnuplot "$tmp/plot.gp"
echo "plot.sh: wrote $out"
