#!/bin/sh
# accuracy.sh [DATA [PNG [COMMIT]]] -- the figure of bench/accuracy/accuracy.c's
# table: the largest |cos/sin error| against long double by position, for
# sinpe's tables and for the float32 formula, log-log, with a float32 ulp
# and half a bfloat16 ulp just below 1 as dashed lines.  Writes a PNG
# (default bench/accuracy.png) with gnuplot (Debian: gnuplot-nox, or
# "sh scripts/install-deps.sh --with gnuplot").  The title names the device
# the data came from (its "# device:" line) and COMMIT, by default the
# checkout's, marked "+changes" where the library's sources differ from it.
set -eu

in=${1:-build/accuracy.dat}
out=${2:-bench/accuracy.png}

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "accuracy.sh: gnuplot not found; install it with: sh scripts/install-deps.sh --with gnuplot" >&2
    exit 1
fi
if [ ! -r "$in" ]; then
    echo "accuracy.sh: cannot read $in (make it with: make bench-accuracy)" >&2
    exit 1
fi
device=$(sed -n 's/^# device: //p' "$in" | head -n 1)
device=${device:-an unnamed device}
if [ $# -ge 3 ]; then
    commit=$3
elif commit=$(git rev-parse --short HEAD 2>/dev/null); then
    git diff --quiet HEAD -- src kernels include bench/accuracy 2>/dev/null || commit="$commit+changes"
else
    commit="an unknown commit"
fi

if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
    term=pngcairo
else
    term=png
fi

gnuplot <<GP
set terminal $term size 1000,620 font ",11"
set output "$out"
set termoption noenhanced
set title "cos/sin accuracy by position: the largest |error| against long double over 256 positions from p\n$device, sinpe at $commit"
set logscale xy
set format x "%.0s%c"
set format y "1e%T"
set xrange [900:1.3e6]
set yrange [1e-9:1]
set xlabel "position p"
set ylabel "largest |value - exact|"
set grid xtics ytics mxtics
set key right center box opaque
set label 1 "float32 angle p*w: off by up to half an ulp of the angle, growing with p" at 1100,2e-1
set label 2 "past p = 32k the float32 error exceeds what bf16 storage rounds away" at 1100,7e-2
set label 3 "sinpe: within about a float32 ulp of the exact value, at every position" at 1100,1.5e-8
plot "$in" using 1:3 with linespoints linewidth 2 pointtype 7 linecolor rgb "#d62728" title "float32 formula, absolute d=512", \
     "$in" using 1:5 with linespoints linewidth 2 pointtype 5 linecolor rgb "#ff7f0e" title "float32 formula, Llama 3.1 rotary R=128", \
     "$in" using 1:7 with linespoints linewidth 2 pointtype 9 linecolor rgb "#bcbd22" title "float32 formula, rotary base 1e4 R=128", \
     "$in" using 1:2 with linespoints linewidth 2 pointtype 6 linecolor rgb "#1f77b4" title "sinpe table, absolute d=512", \
     "$in" using 1:4 with linespoints linewidth 2 pointtype 4 linecolor rgb "#17becf" title "sinpe table, Llama 3.1 rotary", \
     "$in" using 1:6 with linespoints linewidth 2 pointtype 8 linecolor rgb "#2ca02c" title "sinpe table, rotary base 1e4", \
     "$in" using 1:9 with linespoints linewidth 2 pointtype 13 linecolor rgb "#9467bd" title "float32 formula, Qwen2-VL M-RoPE lanes", \
     "$in" using 1:8 with linespoints linewidth 2 pointtype 12 linecolor rgb "#8c564b" title "sinpe cos_sin, Qwen2-VL M-RoPE lanes", \
     2**-24 with lines dashtype 2 linewidth 1 linecolor rgb "black" title "2^-24: a float32 ulp just below 1", \
     2**-9 with lines dashtype 3 linewidth 1 linecolor rgb "gray40" title "2^-9: half a bf16 ulp just below 1"
GP
echo "accuracy.sh: wrote $out"
