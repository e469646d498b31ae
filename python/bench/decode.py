#!/usr/bin/env python3
"""Wall clock of one decode step through the Python package against the
bare C call, in the same run.

A decode step embeds one token for each of --seqs sequences (64 by
default) at dim 4096 in fp32, with implicit positions inside the table:
the lean kernel's call, where a binding's own cost weighs most.  Three
ways of making it are timed, in interleaved rounds (each round runs each
way --steps times, in a rotating order, so that drift and neighbours
touch all alike):

  C         sinpe_enqueue_embed() through ctypes with an argument struct
            built once, no event, then clFinish(): the thinnest path;
  package   table.embed(queue, ids, weights, out, start=step) and the
            returned event's wait(): arguments resolved at every call;
  prepared  a sinpe.EmbedCall made once, call.args.start = step, call(queue)
            and wait().

Prints the median per-step time of each over the rounds and the ratios to
C (the goal: under 1.1x).  Needs PyOpenCL; SINPE_LIBRARY as for the
package.  The device: --device (a case-insensitive part of the platform
or device name), else SINPE_DEVICE, else the first GPU, else the first
device.
"""

import argparse
import ctypes
import os
import statistics
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import sinpe


def pick_device(want):
    devices = [(p, d) for p in cl.get_platforms() for d in p.get_devices()]
    if want:
        for p, d in devices:
            if want.lower() in p.name.lower() or want.lower() in d.name.lower():
                return d
        sys.exit(f"decode.py: no OpenCL device matches {want!r}")
    for p, d in devices:
        if d.type & cl.device_type.GPU:
            return d
    if not devices:
        sys.exit("decode.py: no OpenCL device")
    return devices[0][1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seqs", type=int, default=64)
    ap.add_argument("--dim", type=int, default=4096)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--steps", type=int, default=10, help="steps per way per round")
    ap.add_argument("--device", default=os.environ.get("SINPE_DEVICE"))
    ap.add_argument("--seed", type=int, default=1)
    opts = ap.parse_args()

    dev = pick_device(opts.device)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    table = sinpe.Context(ctx).table("vaswani", opts.dim, rows=4096)
    rng = np.random.default_rng(opts.seed)
    weights = cla.to_device(queue, rng.standard_normal((opts.vocab, opts.dim),
                                                       dtype=np.float32))
    ids = cla.to_device(queue, rng.integers(0, opts.vocab, (opts.seqs, 1), dtype=np.int32))
    out = cla.empty(queue, (opts.seqs, 1, opts.dim), np.float32)
    queue.finish()

    # The bare C call: its own struct, filled once, and clFinish.
    lib = sinpe.load()
    ocl = ctypes.CDLL("libOpenCL.so.1")
    ocl.clFinish.argtypes = [ctypes.c_void_p]
    args = sinpe.EmbedArgs()
    lib.sinpe_embed_args_init(ctypes.byref(args))
    args.n_seqs, args.seq_len = opts.seqs, 1
    args.ids, args.weights, args.vocab = ids.base_data.int_ptr, weights.base_data.int_ptr, \
        opts.vocab
    args.out = out.base_data.int_ptr
    c_embed, c_table, c_queue, c_finish = lib.sinpe_enqueue_embed, table._ptr, queue.int_ptr, \
        ocl.clFinish
    args_ref = ctypes.byref(args)

    def way_c(start):
        args.start = start
        if c_embed(c_table, c_queue, args_ref, 0, None, None):
            raise sinpe.SinpeError(-2001, sinpe.last_error())
        c_finish(c_queue)

    def way_package(start):
        table.embed(queue, ids, weights, out, start=start).wait()

    call = table.embed_call(ids, weights, out)

    def way_prepared(start):
        call.args.start = start
        call(queue).wait()

    ways = {"C": way_c, "package": way_package, "prepared": way_prepared}

    # The three give the same bits.
    results = {}
    for name, way in ways.items():
        out.fill(np.nan)
        way(123)
        results[name] = out.get().view(np.uint32)
    assert all(np.array_equal(results["C"], r) for r in results.values()), "outputs differ"

    per_step = {name: [] for name in ways}
    names = list(ways)
    step = 0
    for rnd in range(opts.rounds + 1):  # round 0 warms up
        order = names[rnd % 3:] + names[:rnd % 3]
        for name in order:
            way = ways[name]
            t0 = time.perf_counter()
            for _ in range(opts.steps):
                way(step % 4000)
                step += 1
            if rnd:
                per_step[name].append((time.perf_counter() - t0) / opts.steps)

    med = {name: statistics.median(v) for name, v in per_step.items()}
    print(f"device: {dev.name.strip()} ({dev.platform.name.strip()})")
    print(f"decode step: {opts.seqs} sequences x 1 token, dim {opts.dim}, fp32, vocab "
          f"{opts.vocab}, implicit positions; {opts.rounds} rounds x {opts.steps} steps")
    for name in names:
        ratios = [p / c for p, c in zip(per_step[name], per_step["C"])]
        print(f"  {name:9s} {med[name] * 1e6:8.1f} us/step   {med[name] / med['C']:.3f}x C "
              f"(median of per-round ratios {statistics.median(ratios):.3f})")
    worst = max(med["package"], med["prepared"]) / med["C"]
    print(f"goal: package and prepared under 1.1x of C: {'met' if worst < 1.1 else 'NOT met'} "
          f"({worst:.3f}x)")


if __name__ == "__main__":
    main()
