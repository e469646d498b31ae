#!/bin/sh
# sweep.sh [BENCH [OUTDIR]] -- the benchmark once per work shape, side by side.
#
# sinpe picks the work shape of its kernels from the device type
# (src/context.c, tuning_pick).  This runs the benchmark (default
# build/sinpe_bench, fp32 and fp16) once with the device's own shape and
# once per override in SWEEP_SHAPES, keeps each run's output in
# OUTDIR/<shape>.txt and .jsonl (default build/sweep), and prints the
# median device time of every case in every shape, the fastest of each row
# marked with '*'.  One such run on a new device says whether the shape
# sinpe picks for it is the right one; the defaults were chosen from runs
# like it (bench/RESULTS.md).  Shapes give the same bytes (tests/test_shapes.c),
# so only the times differ.  The JSON is read with awk alone.
set -eu

bench=${1:-build/sinpe_bench}
out=${2:-build/sweep}
shapes=${SWEEP_SHAPES:-"default SINPE_SEQS=1 SINPE_SEQS=2 SINPE_SEQS=4 SINPE_SEQS=8
    SINPE_VEC=8 SINPE_TABLE_VEC=4 SINPE_TABLE_VEC=16 SINPE_WG=128 SINPE_WG=512
    SINPE_ONE_PASS=0 SINPE_ONE_PASS=1
    SINPE_ROW_TILE=1 SINPE_ROW_TILE=4 SINPE_ROW_TILE=8 SINPE_ALIGNED_IO=0
    SINPE_ALIGNED_IO=1 SINPE_COL_BF16=0 SINPE_COL_BF16=1 SINPE_ROW=0 SINPE_ROW=1
    SINPE_STREAM=0 SINPE_STREAM=2"}

if [ ! -x "$bench" ]; then
    echo "sweep.sh: $bench is not built (make build/sinpe_bench)" >&2
    exit 1
fi
mkdir -p "$out"
files=""
for s in $shapes; do
    echo "sweep.sh: running the benchmark with $s" >&2
    if [ "$s" = default ]; then
        set -- env
    else
        set -- env "$s"
    fi
    if ! "$@" "$bench" --dtypes fp32,fp16 --json "$out/$s.jsonl" >"$out/$s.txt" 2>&1; then
        echo "sweep.sh: the run with $s failed; see $out/$s.txt" >&2
        exit 1
    fi
    files="$files $out/$s.jsonl"
done

# shellcheck disable=SC2086
awk '
function str(key) {
    if (!match($0, "\"" key "\":\"[^\"]*\""))
        return "-"
    return substr($0, RSTART + length(key) + 4, RLENGTH - length(key) - 5)
}
function num(key) {
    if (!match($0, "\"" key "\":[-+0-9.eE]+"))
        return ""
    return substr($0, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
}
FNR == 1 {
    name = FILENAME
    sub(/^.*\//, "", name)
    sub(/\.jsonl$/, "", name)
    sub(/^SINPE_/, "", name)
    cols[++ncols] = name
    if (device == "")
        device = str("device")
}
{
    c = str("case")
    if (c == "-" || c ~ /^(copy|write)/ || c == "table_create")
        next
    key = sprintf("%-10s %-3s %-7s %4s %-4s", c, substr(str("positions"), 1, 3), str("shape"),
                  num("dim"), str("dtype"))
    if (!(key in seen)) {
        seen[key] = 1
        rows[++nrows] = key
    }
    t[key, ncols] = num("median_us")
}
END {
    printf "median device time (us) per case and work shape, %s; * fastest\n\n", device
    printf "%-33s", "case       pos shape    dim type"
    for (j = 1; j <= ncols; j++)
        printf " %11s", substr(cols[j], 1, 11)
    printf "\n"
    for (i = 1; i <= nrows; i++) {
        k = rows[i]
        best = 0
        for (j = 1; j <= ncols; j++)
            if (t[k, j] != "" && (best == 0 || t[k, j] + 0 < t[k, best] + 0))
                best = j
        printf "%-33s", k
        for (j = 1; j <= ncols; j++)
            printf " %10s%s", t[k, j] == "" ? "-" : sprintf("%.1f", t[k, j]), j == best ? "*" : " "
        printf "\n"
    }
}' $files
