#!/usr/bin/env python3
"""peers.py -- the job sinpe_bench times, done the way users do it today.

usage: peers.py [--reps N] [--warmup N] [--json OUT] BENCH_JSONL

For every fused fp32 row in BENCH_JSONL (the --json output of sinpe_bench)
this times, on this machine's CPU, the same shape with the same token ids:

  numpy    scale * E[ids] + P[:seq_len]   (implicit positions)
           scale * E[ids] + P[pos]        (explicit positions)
  torch    F.embedding(ids, E) * scale + P[:seq_len]  (or P[pos]), CPU,
           under torch.inference_mode()

with E a float32 vocab x dim embedding and P a precomputed float32 table of
the paper's encoding (interleaved sin/cos, base 10000), and prints the
ratios peer time / sinpe time: above 1, sinpe is faster.  sinpe's time is
its median host wall clock per call (enqueue + clFinish), the figure that
compares with a host call; its device time is shown beside it.  The token
ids and positions are sinpe_bench's own (same generator, seed and shape
order as bench/main.c).  Each peer: median of --reps (default 20) timed
calls after --warmup (default 3) untimed ones.

numpy is required (Debian: python3-numpy); torch (python3-torch) is timed
when it can be imported, else skipped with the reason printed.
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

try:
    import numpy as np
except ImportError as e:
    sys.exit("peers.py: numpy is required (%s); install it with: "
             "sh scripts/install-deps.sh --with peers" % e)

try:
    import torch
    import torch.nn.functional as F
    TORCH_ERROR = None
except ImportError as e:  # a missing or broken torch: numpy alone
    torch = None
    TORCH_ERROR = str(e)

VOCAB = 32000
CONTEXT = 4096  # BENCH_CONTEXT: explicit positions lie below it
SHAPE_INDEX = {"decode": 0, "mid": 1, "prefill": 2}  # shapes[] in bench/main.c
M64 = (1 << 64) - 1


class SplitMix64:
    """bench/main.c's next_random() and random_below()."""

    def __init__(self, state):
        self.state = state & M64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n):
        return ((self.next() >> 32) * n) >> 32


def bench_inputs(seed, shape, seqs, seq_len, explicit):
    """The ids and positions sinpe_bench used for this shape."""
    si = SHAPE_INDEX[shape]
    rng = SplitMix64(seed ^ ((0xA0761D6478BD642F * (si + 1)) & M64))
    tokens = seqs * seq_len
    ids = np.array([rng.below(VOCAB) for _ in range(tokens)], dtype=np.int64)
    pos = np.empty(tokens, dtype=np.int64)
    for b in range(seqs):
        start = rng.below(CONTEXT - seq_len + 1) if explicit else 0
        pos[b * seq_len:(b + 1) * seq_len] = np.arange(start, start + seq_len)
    return ids.reshape(seqs, seq_len), pos.reshape(seqs, seq_len)


def pe_table(rows, dim):
    """The paper's encoding in float64, rounded once to float32."""
    half = dim // 2
    w = 10000.0 ** (-np.arange(half, dtype=np.float64) / half)
    angle = np.arange(rows, dtype=np.float64)[:, None] * w[None, :]
    table = np.zeros((rows, dim), dtype=np.float64)
    table[:, 0:2 * half:2] = np.sin(angle)
    table[:, 1:2 * half:2] = np.cos(angle)
    return table.astype(np.float32)


def time_call(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples), min(samples), max(samples)


def read_rows(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except ValueError as e:
                sys.exit("peers.py: %s:%d: not JSON: %s" % (path, n, e))
            if r.get("case") == "fused" and r.get("dtype") == "fp32":
                rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench_jsonl", help="JSON lines written by sinpe_bench --json")
    ap.add_argument("--reps", type=int, default=20, help="timed calls per peer (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls first (default 3)")
    ap.add_argument("--json", metavar="OUT", help="also write one JSON object per line to OUT")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0:
        ap.error("--reps must be at least 1 and --warmup at least 0")

    rows = read_rows(args.bench_jsonl)
    if not rows:
        sys.exit("peers.py: no fused fp32 rows in %s" % args.bench_jsonl)
    unknown = sorted({r["shape"] for r in rows} - set(SHAPE_INDEX))
    if unknown:
        sys.exit("peers.py: unknown shapes %s in %s" % (", ".join(unknown), args.bench_jsonl))

    print("peers of sinpe on this machine's CPU (%d logical CPUs)" % (os.cpu_count() or 0))
    print("sinpe figures: %s, device %s" % (args.bench_jsonl, rows[0].get("device")))
    print("numpy %s" % np.__version__)
    if torch is not None:
        print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
    else:
        print("torch not timed: %s" % TORCH_ERROR)
    print("times: median host wall clock per call in microseconds, %d timed after %d warm-up;"
          % (args.reps, args.warmup))
    print("x: peer time / sinpe wall time (above 1: sinpe is faster)\n")

    peers = ["numpy"] + (["torch"] if torch is not None else [])
    head = "%-5s %-8s %-7s %-7s %10s %10s" % ("dim", "pos", "shape", "seqs", "sinpe wall",
                                              "sinpe dev")
    for p in peers:
        head += " %10s %7s" % (p, "x")
    print(head)

    out = open(args.json, "w") if args.json else None
    tables = {}
    weights = {}
    rows.sort(key=lambda r: (r["dim"], r["positions"] != "implicit", SHAPE_INDEX[r["shape"]]))
    for r in rows:
        dim, seqs, seq_len = r["dim"], r["seqs"], r["seq_len"]
        explicit = r["positions"] == "explicit"
        if dim not in weights:
            weights.clear()  # one embedding at a time: 512 MiB at dim 4096
            weights[dim] = np.random.default_rng(dim).uniform(
                -1.0, 1.0, size=(VOCAB, dim)).astype(np.float32)
            tables[dim] = pe_table(CONTEXT, dim)
        E, P = weights[dim], tables[dim]
        ids, pos = bench_inputs(r.get("seed", 20240601), r["shape"], seqs, seq_len, explicit)
        scale = np.float32(math.sqrt(dim))

        # Implicit positions are a slice that broadcasts over the batch;
        # explicit ones a gather, as users write them.
        if explicit:
            def run_numpy():
                return scale * E[ids] + P[pos]
        else:
            def run_numpy():
                return scale * E[ids] + P[:seq_len]
        res = {"numpy": time_call(run_numpy, args.reps, args.warmup)}
        ref = run_numpy()

        if torch is not None:
            tE, tP = torch.from_numpy(E), torch.from_numpy(P)
            tids, tpos = torch.from_numpy(ids), torch.from_numpy(pos)
            fscale = float(scale)
            if explicit:
                def run_torch():
                    with torch.inference_mode():
                        return F.embedding(tids, tE) * fscale + tP[tpos]
            else:
                def run_torch():
                    with torch.inference_mode():
                        return F.embedding(tids, tE) * fscale + tP[:seq_len]
            res["torch"] = time_call(run_torch, args.reps, args.warmup)
            got = run_torch().numpy()
            if not np.allclose(got, ref, rtol=1e-6, atol=1e-5):
                sys.exit("peers.py: numpy and torch results differ (dim %d, %s)" %
                         (dim, r["shape"]))

        line = "%-5d %-8s %-7s %-7s %10.1f %10.1f" % (dim, r["positions"], r["shape"],
                                                      "%dx%d" % (seqs, seq_len), r["wall_us"],
                                                      r["median_us"])
        for p in peers:
            line += " %10.1f %7.2f" % (res[p][0], res[p][0] / r["wall_us"])
        print(line, flush=True)
        if out:
            for p in peers:
                med, lo, hi = res[p]
                out.write(json.dumps({
                    "device": "cpu", "case": p, "positions": r["positions"],
                    "shape": r["shape"], "seqs": seqs, "seq_len": seq_len, "dim": dim,
                    "dtype": "fp32", "timing": "host", "reps": args.reps,
                    "median_us": round(med, 3), "min_us": round(lo, 3), "max_us": round(hi, 3),
                    "wall_us": round(med, 3), "bytes": r["bytes"],
                    "gbps": round(r["bytes"] / (med * 1e3), 4),
                    "sinpe_wall_us": r["wall_us"], "sinpe_median_us": r["median_us"],
                    "vs_sinpe_wall": round(med / r["wall_us"], 4)}) + "\n")
    if out:
        out.close()


if __name__ == "__main__":
    main()
