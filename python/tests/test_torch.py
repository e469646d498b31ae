"""sinpe against PyTorch on the CPU doing the same job:
torch.nn.functional.embedding(ids, E) * scale + pe, with pe from the
preset's formula in float64, |got - ref| <= 1e-6 * (1 + |ref|)."""

import math

import numpy as np
import pytest

import reference as ref
from reference import poisoned

torch = pytest.importorskip("torch")

DIM = 128


def torch_embed(ids, weights, scale, pe):
    e = torch.nn.functional.embedding(torch.from_numpy(ids.astype(np.int64)),
                                      torch.from_numpy(weights).double())
    return (e * scale + torch.from_numpy(pe).reshape(e.shape)).numpy()


@pytest.mark.parametrize("preset", ["vaswani", "fairseq", "opennmt"])
def test_device_matches_torch(cl_env, rng, preset):
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table(preset, DIM, rows=128)
    vocab, pad = 1000, 1
    ids = rng.integers(2, vocab, (4, 40), dtype=np.int32)
    if preset == "fairseq":
        ids[1, :9] = pad
        ids[3, :2] = pad
    w = rng.standard_normal((vocab, DIM)).astype(np.float32)
    out = poisoned(cla, q, (4, 40, DIM))
    table.embed(q, cla.to_device(q, ids), cla.to_device(q, w), out, preset=preset,
                pad_id=pad).wait()
    if preset == "fairseq":
        pos = ref.make_positions(ids, pad).astype(np.float64)
    else:
        origin = 1 if preset == "opennmt" else 0
        pos = np.tile(np.arange(origin, origin + 40, dtype=np.float64), (4, 1))
    pe = ref.PE[preset](pos.reshape(-1), DIM)
    if preset == "fairseq":
        pe[ids.reshape(-1) == pad] = 0.0
    want = torch_embed(ids, w, float(np.float32(math.sqrt(DIM))), pe)
    ref.assert_close(out.get(), want, ref.EMBED_TOL, ref.EMBED_TOL, f"{preset} vs torch")


def test_numpy_path_matches_torch(host_ctx, rng):
    table = host_ctx.table("vaswani", DIM, rows=64)
    ids = rng.integers(0, 300, (2, 100), dtype=np.int32)
    w = rng.standard_normal((300, DIM)).astype(np.float32)
    got = table.embed_host(ids, w, token_scale=math.sqrt(DIM), start=5)
    pe = ref.vaswani(np.tile(np.arange(5.0, 105.0), 2), DIM)
    want = torch_embed(ids, w, float(np.float32(math.sqrt(DIM))), pe)
    ref.assert_close(got, want, ref.EMBED_TOL, ref.EMBED_TOL, "embed_host vs torch")
