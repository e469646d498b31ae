#!/usr/bin/env python3
"""peers.py -- the job sinpe_bench times, done the way users do it today.

usage: peers.py [--reps N] [--warmup N] [--json OUT] [--rotary-only] BENCH_JSONL

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

Then the rotary rows: PyTorch on the CPU rotating q and k as HF
transformers does (cos and sin from the rotary module's inv_freq and the
position ids, then apply_rotary_pos_emb: q * cos + rotate_half(q) * sin),
fp32, on the shapes of sinpe_bench's rotary cases: prefill 4 x 2048 and
decode 64 x 1 tokens, 32 query heads and 8 key heads of 128.  HF's own
LlamaRotaryEmbedding and apply_rotary_pos_emb are used when
transformers.models.llama imports, else the same operations written
here (the line above the rows says which).  Each row prints the median
time of cos/sin plus the rotation (what a model's forward does once per
step) and of the rotation alone (once per layer), and GB/s of the q and k
bytes read and written, 2 x 4 x tokens x (32 + 8) x 128, as sinpe_bench
counts its rotary rows.  --rotary-only skips the embedding rows.

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


ROPE_SHAPES = (("prefill", 4, 2048), ("decode", 64, 1))
ROPE_Q_HEADS, ROPE_KV_HEADS, ROPE_HEAD_DIM = 32, 8, 128


def _rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def _apply_rotary(q, k, cos, sin):
    """HF's rotation of q and k [batch, heads, seq, dim] by cos and sin
    [batch, seq, dim], written out: x cos + rotate_half(x) sin."""
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + _rotate_half(q) * sin, k * cos + _rotate_half(k) * sin


class _CosSin:
    """cos and sin as HF's rotary module forms them: the float32 outer
    product inv_freq x position, the R/2 angles twice, cos and sin."""

    def __init__(self, dim, base=10000.0):
        self.inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))

    def __call__(self, x, position_ids):
        f = position_ids[:, :, None].float() * self.inv_freq[None, None, :]
        emb = torch.cat((f, f), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def hf_rotary():
    """(cos/sin module factory, apply function, description): HF's own
    when transformers' llama module imports, else the operations above."""
    try:
        import transformers
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import (LlamaRotaryEmbedding,
                                                              apply_rotary_pos_emb)
    except Exception as e:  # noqa: BLE001 - an old torch makes it fail in several ways
        return ((lambda: _CosSin(ROPE_HEAD_DIM)), _apply_rotary,
                "HF's operations written out (transformers' llama module does not import "
                "here: %s)" % str(e).splitlines()[0][:100])

    def make():
        cfg = LlamaConfig(hidden_size=ROPE_Q_HEADS * ROPE_HEAD_DIM,
                          num_attention_heads=ROPE_Q_HEADS,
                          num_key_value_heads=ROPE_KV_HEADS, max_position_embeddings=CONTEXT)
        return LlamaRotaryEmbedding(cfg)
    return make, apply_rotary_pos_emb, ("transformers %s LlamaRotaryEmbedding and "
                                        "apply_rotary_pos_emb" % transformers.__version__)


def rotary_rows(args, out):
    print("\nrotary: PyTorch CPU fp32 as HF transformers rotates q and k (%d query heads, "
          "%d key heads of %d)" % (ROPE_Q_HEADS, ROPE_KV_HEADS, ROPE_HEAD_DIM))
    if torch is None:
        print("torch not timed: %s" % TORCH_ERROR)
        return
    make, apply, what = hf_rotary()
    print("code: %s" % what)
    print("GB/s: q and k read and written, 2 x 4 x tokens x %d x %d bytes"
          % (ROPE_Q_HEADS + ROPE_KV_HEADS, ROPE_HEAD_DIM))
    print("%-8s %-8s %8s %14s %8s %12s %8s" % ("shape", "seqs", "tokens", "cos/sin+rot us",
                                              "GB/s", "rotation us", "GB/s"))
    rng = np.random.default_rng(20240601)
    rotary = make()
    for shape, seqs, seq_len in ROPE_SHAPES:
        tokens = seqs * seq_len
        q = torch.from_numpy(rng.standard_normal(
            (seqs, ROPE_Q_HEADS, seq_len, ROPE_HEAD_DIM)).astype(np.float32))
        k = torch.from_numpy(rng.standard_normal(
            (seqs, ROPE_KV_HEADS, seq_len, ROPE_HEAD_DIM)).astype(np.float32))
        if seq_len == 1:  # decode: one token per sequence, each at its own position
            pos = torch.from_numpy(rng.integers(0, CONTEXT, (seqs, 1)))
        else:
            pos = torch.arange(seq_len)[None, :].expand(seqs, seq_len)
        nbytes = 2 * 4 * tokens * (ROPE_Q_HEADS + ROPE_KV_HEADS) * ROPE_HEAD_DIM

        def run_full():
            with torch.inference_mode():
                cos, sin = rotary(q, pos)
                return apply(q, k, cos, sin)
        with torch.inference_mode():
            cos, sin = rotary(q, pos)

        def run_apply():
            with torch.inference_mode():
                return apply(q, k, cos, sin)
        res = {"torch_rope": time_call(run_full, args.reps, args.warmup),
               "torch_rope_apply": time_call(run_apply, args.reps, args.warmup)}
        print("%-8s %-8s %8d %14.1f %8.2f %12.1f %8.2f" % (
            shape, "%dx%d" % (seqs, seq_len), tokens, res["torch_rope"][0],
            nbytes / (res["torch_rope"][0] * 1e3), res["torch_rope_apply"][0],
            nbytes / (res["torch_rope_apply"][0] * 1e3)), flush=True)
        if out:
            for case, (med, lo, hi) in res.items():
                out.write(json.dumps({
                    "device": "cpu", "case": case, "shape": shape, "seqs": seqs,
                    "seq_len": seq_len, "q_heads": ROPE_Q_HEADS, "kv_heads": ROPE_KV_HEADS,
                    "head_dim": ROPE_HEAD_DIM, "dtype": "fp32", "timing": "host",
                    "reps": args.reps, "median_us": round(med, 3), "min_us": round(lo, 3),
                    "max_us": round(hi, 3), "wall_us": round(med, 3), "bytes": nbytes,
                    "gbps": round(nbytes / (med * 1e3), 4)}) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench_jsonl", nargs="?",
                    help="JSON lines written by sinpe_bench --json")
    ap.add_argument("--reps", type=int, default=20, help="timed calls per peer (default 20)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls first (default 3)")
    ap.add_argument("--json", metavar="OUT", help="also write one JSON object per line to OUT")
    ap.add_argument("--rotary-only", action="store_true",
                    help="time only the rotary rows (BENCH_JSONL is then not read)")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0:
        ap.error("--reps must be at least 1 and --warmup at least 0")
    if args.rotary_only:
        out = open(args.json, "w") if args.json else None
        print("peers of sinpe on this machine's CPU (%d logical CPUs)" % (os.cpu_count() or 0))
        if torch is not None:
            print("torch %s, %d threads" % (torch.__version__, torch.get_num_threads()))
        rotary_rows(args, out)
        if out:
            out.close()
        return
    if not args.bench_jsonl:
        ap.error("BENCH_JSONL is needed (or --rotary-only)")

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
    rotary_rows(args, out)
    if out:
        out.close()


if __name__ == "__main__":
    main()
