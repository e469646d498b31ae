"""ggml's block types against the gguf package's own code (gguf.quants):
the gather's weights equal gguf.quants.dequantize bit for bit on random
valid blocks of every type, and sinpe.quantize writes Q4_0, Q4_1, Q5_0 and
Q5_1 byte for byte as gguf.quants.quantize does.  The blocks come from the
seeded rng (the seed is in the report header)."""

import numpy as np
import pytest

from reference import poisoned

gguf = pytest.importorskip("gguf")
import sinpe  # noqa: E402

# sinpe's name, gguf's type, values and bytes per block, where its fp16
# fields lie (d, and m or dmin).
TYPES = {
    "q4_0": ("Q4_0", 32, 18, (0,)),
    "q4_1": ("Q4_1", 32, 20, (0, 2)),
    "q5_0": ("Q5_0", 32, 22, (0,)),
    "q5_1": ("Q5_1", 32, 24, (0, 2)),
    "q4_k": ("Q4_K", 256, 144, (0, 2)),
    "q5_k": ("Q5_K", 256, 176, (0, 2)),
    "q6_k": ("Q6_K", 256, 210, (208,)),
}
ROWS = 24


def random_blocks(rng, name, rows, blocks):
    """rows x blocks random blocks: random codes and sub-scales, the fp16
    fields finite (every exponent, subnormals and both signs among them)."""
    _, _, size, halves = TYPES[name]
    data = rng.integers(0, 256, (rows, blocks, size), dtype=np.uint8)
    for at in halves:
        h = rng.integers(0, 1 << 16, (rows, blocks), dtype=np.uint16)
        h[(h & 0x7C00) == 0x7C00] ^= 0x4000  # no infinity or NaN
        data[:, :, at:at + 2] = h[..., None].view(np.uint8).reshape(rows, blocks, 2)
    return data.reshape(rows, blocks * size)


@pytest.mark.parametrize("name", sorted(TYPES))
def test_gather_equals_gguf_dequantize(cl_env, rng, name):
    cla, q, sctx = cl_env[1], cl_env[3], cl_env[4]
    qtype, values, _, _ = TYPES[name]
    dim = 2 * values
    data = random_blocks(rng, name, ROWS, 2)
    want = gguf.quants.dequantize(data, gguf.GGMLQuantizationType[qtype])
    assert want.shape == (ROWS, dim) and want.dtype == np.float32
    sctx.prepare(name)
    table = sctx.table("whisper", dim, rows=4)
    ids = rng.permutation(ROWS).astype(np.int32).reshape(2, ROWS // 2)
    out = poisoned(cla, q, (2, ROWS // 2, dim), np.float32)
    table.gather(q, cla.to_device(q, ids), cla.to_device(q, data), out,
                 weights_dtype=name).wait()
    got = out.get().reshape(ROWS, dim)
    same = got.view(np.uint32) == want[ids.ravel()].view(np.uint32)
    print(f"{name}: {same.sum()} of {same.size} weights equal gguf's bit for bit")
    bad = np.argwhere(~same)
    assert same.all(), (f"{name}: {len(bad)} weights differ, first at token {bad[0][0]} "
                        f"column {bad[0][1]}")


def quantize_input(rng, rows, dim):
    """Random rows, with blocks that test the rules: the first of two values
    of largest |x| (-3 before +3), all zeros, one value repeated."""
    x = rng.standard_normal((rows, dim)).astype(np.float32)
    x[0, :32] = np.clip(x[0, :32], -2.0, 2.0)
    x[0, 5], x[0, 9] = -3.0, 3.0
    x[1, :32] = 0.0
    x[2, :32] = 0.75
    x[3] *= np.float32(1e-3)
    return x


@pytest.mark.parametrize("name", ["q4_0", "q4_1", "q5_0", "q5_1"])
def test_quantize_equals_gguf_quantize(rng, name):
    qtype = gguf.GGMLQuantizationType[TYPES[name][0]]
    x = quantize_input(rng, 16, 128)
    data, scales = sinpe.quantize(x, name)
    want = gguf.quants.quantize(x, qtype)
    assert scales is None and data.dtype == np.uint8 and data.shape == want.shape
    same = (data == want).all(axis=1)
    print(f"{name}: {same.sum()} of {len(same)} rows ({data.size} bytes) equal gguf's")
    assert same.all(), f"{name}: rows {np.flatnonzero(~same)} differ from gguf's bytes"


def test_kquants_not_quantized():
    for name in ("q4_k", "q5_k", "q6_k"):
        with pytest.raises(sinpe.SinpeError) as e:
            sinpe.quantize(np.ones((2, 256), np.float32), name)
        assert e.value.name == "INVALID_DTYPE"
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.quantize(np.ones((2, 48), np.float32), "q4_0")
    assert e.value.name == "INVALID_SHAPE"
