"""A token table from a GGUF file, through the gguf package's reader, in
the five lines of python/README.md ("Token tables from GGUF files").

The test writes a small GGUF file with gguf's own GGUFWriter, its
token_embd.weight quantized by gguf.quants.quantize (Q8_0, Q4_0), runs
the README's example on it as written (cl.create_some_context() replaced
by the tests' context, the file name by the test's file), and compares
the output bit for bit with the same embedding over the float32 table
that gguf.quants.dequantize makes of the file's bytes: each weight is
gguf's value, and token_scale * w + PE is rounded once either way.
"""

import os

import numpy as np
import pytest

import sinpe
from test_readme import README, example

gguf = pytest.importorskip("gguf")

HEADING = "## Token tables from GGUF files"
VOCAB, DIM = 40, 64


@pytest.mark.parametrize("qtype", ["Q8_0", "Q4_0"])
def test_readme_gguf_example(cl_env, rng, tmp_path, monkeypatch, qtype):
    if not os.path.exists(README):
        pytest.skip(f"the README is not at {README}")
    cl, cla, ctx, queue, sctx = cl_env
    kind = gguf.GGMLQuantizationType[qtype]
    x = rng.standard_normal((VOCAB, DIM)).astype(np.float32)
    path = str(tmp_path / "model.gguf")
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_tensor("token_embd.weight", gguf.quants.quantize(x, kind), raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()

    code = example(README, HEADING).replace('"model.gguf"', repr(path))
    monkeypatch.setattr(cl, "create_some_context", lambda *a, **kw: ctx)
    ns = {}
    exec(compile(code, "python/README.md (GGUF example)", "exec"), ns)
    E, table, ids, out = ns["E"], ns["table"], ns["ids"], ns["out"]
    assert E.tensor_type == kind and E.data.shape[0] == VOCAB

    w = gguf.quants.dequantize(np.asarray(E.data), kind)
    assert w.shape == (VOCAB, DIM) and w.dtype == np.float32
    want = cla.empty(queue, out.shape, np.float32)
    table.embed(queue, ids, cla.to_device(queue, w), want).wait()
    got = out.get()
    assert np.array_equal(got.view(np.uint32), want.get().view(np.uint32))
    # The embedding is there, not PE alone: the rows differ from PE's.
    pe = table.read_rows(0, 4)
    assert not np.array_equal(got[0], pe)


@pytest.mark.parametrize("qtype", ["Q8_0", "Q4_K"])
def test_weights_in_three_arrays(cl_env, rng, qtype):
    """weights given as a list of Arrays, each a run of rows (a table past
    one allocation): the bytes of the same table in one Array, and ids
    from every part and past both ends."""
    cl, cla, ctx, queue, sctx = cl_env
    kind = gguf.GGMLQuantizationType[qtype]
    block, size = gguf.GGML_QUANT_SIZES[kind]
    dim = 2 * block
    data = rng.integers(0, 256, (VOCAB, dim // block * size), dtype=np.uint8)
    data.reshape(VOCAB, -1, size)[:, :, :2] = [0x00, 0x24]  # d finite (2^-6) ...
    if qtype == "Q4_K":
        data.reshape(VOCAB, -1, size)[:, :, 2:4] = [0x00, 0x20]  # ... and dmin
    table = sctx.table("vaswani", dim, rows=16)
    ids = cla.to_device(queue, rng.integers(-1, VOCAB + 1, (2, 9)).astype(np.int32))
    name = qtype.lower()
    whole = cla.to_device(queue, data)
    parts = [cla.to_device(queue, data[a:b]) for a, b in ((0, 13), (13, 14), (14, VOCAB))]
    outs = [cla.empty(queue, (2, 9, dim), np.float32) for _ in range(2)]
    for w, out in zip((whole, parts), outs):
        out.fill(np.float32(np.nan))
        table.embed(queue, ids, w, out, weights_dtype=name, start=5).wait()
    assert np.isfinite(outs[0].get()).all()  # written, not the NaN fill
    assert np.array_equal(outs[0].get().view(np.uint32), outs[1].get().view(np.uint32))
    with pytest.raises(sinpe.SinpeError):
        table.embed(queue, ids, [whole, parts[0][:, :size]], outs[1], weights_dtype=name)
