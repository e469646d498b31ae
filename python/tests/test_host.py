"""The NumPy path (sinpe_embed_host) against float64 formulas, and the
package working without PyOpenCL."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import reference as ref
import sinpe
from sinpe import _lib

DIM = 64


def test_embed_host(host_ctx, rng):
    table = host_ctx.table("vaswani", DIM, rows=128)
    vocab, n_seqs, seq_len, start = 300, 3, 40, 100  # rows 100..139 cross the table's end
    ids = rng.integers(0, vocab, (n_seqs, seq_len), dtype=np.int32)
    w = rng.standard_normal((vocab, DIM)).astype(np.float32)
    out = np.full((n_seqs, seq_len, DIM), np.nan, np.float32)  # poisoned
    scale = math.sqrt(DIM)
    got = table.embed_host(ids, w, token_scale=scale, start=start, out=out)
    assert got is out
    pe = ref.vaswani(np.tile(np.arange(start, start + seq_len, dtype=np.float64), n_seqs), DIM)
    want = ref.embed(ids, w, np.float32(scale), pe).reshape(out.shape)
    ref.assert_close(out, want, ref.EMBED_TOL, ref.EMBED_TOL, "embed_host")


def test_embed_host_positions_and_shapes(host_ctx, rng):
    table = host_ctx.table("fairseq", DIM, rows=64)
    ids = rng.integers(0, 50, 17).astype(np.int64)  # 1-D: one sequence; int64 converted
    pos = rng.integers(-5, 5000, 17)
    w = rng.standard_normal((50, DIM)).astype(np.float32)
    got = table.embed_host(ids, w, start=3, positions=pos)
    assert got.shape == (17, DIM) and got.dtype == np.float32
    want = ref.embed(ids, w, 1.0, ref.fairseq((pos + 3).astype(np.float64), DIM))
    ref.assert_close(got, want, ref.EMBED_TOL, ref.EMBED_TOL, "embed_host positions")


def test_embed_host_errors_leave_out_alone(host_ctx):
    table = host_ctx.table("vaswani", DIM, rows=16)
    w = np.zeros((10, DIM), np.float32)
    out = np.full((1, 3, DIM), np.nan, np.float32)
    cases = [
        (dict(ids=[[1, 10, 2]]), "ID_OUT_OF_RANGE", "ids[1]"),
        (dict(ids=[[1, -1, 2]]), "ID_OUT_OF_RANGE", "ids[1]"),
        (dict(ids=[[1, 2, 3]], start=2**31 - 2), "INVALID_SHAPE", "start"),
        (dict(ids=np.zeros((0, 3), np.int32)), "INVALID_SHAPE", "n_seqs"),
    ]
    for kw, name, detail in cases:
        ids = kw.pop("ids")
        with pytest.raises(sinpe.SinpeError) as e:
            table.embed_host(ids, w, out=out if np.size(ids) == 3 else None, **kw)
        assert e.value.name == name, e.value
        assert e.value.status == getattr(sinpe, name)
        assert detail in e.value.detail, e.value.detail
        assert e.value.message == sinpe.load().sinpe_status_string(e.value.status).decode()
        assert np.isnan(out).all()
    with pytest.raises(sinpe.SinpeError) as e:
        table.embed_host([[1]], w.astype(np.float16))
    assert e.value.name == "INVALID_DTYPE"
    with pytest.raises(sinpe.SinpeError) as e:
        table.embed_host([[1]], np.zeros((10, DIM + 1), np.float32))
    assert e.value.name == "INVALID_SHAPE"


def test_errors_from_sinpe(host_ctx):
    def status(fn):
        with pytest.raises(sinpe.SinpeError) as e:
            fn()
        assert str(e.value).startswith(e.value.name + ": " + e.value.message)
        return e.value.name, e.value.detail

    assert status(lambda: host_ctx.table(sinpe.spec(0)))[0] == "INVALID_SPEC"
    assert status(lambda: host_ctx.table(sinpe.spec(8, base=-1.0)))[0] == "INVALID_SPEC"
    assert status(lambda: host_ctx.table(sinpe.spec(8, layout=7)))[0] == "INVALID_SPEC"
    name, detail = status(lambda: sinpe.spec(8, 42))
    assert name == "UNKNOWN_PRESET" and "42" in detail
    name, detail = status(lambda: sinpe.spec(8, "no-such-family"))
    assert name == "UNKNOWN_PRESET" and "fairseq" in detail
    assert status(lambda: sinpe.Context(device="no such device at all"))[0] == "DEVICE_NOT_FOUND"
    assert status(lambda: sinpe.Context(tuning="no_such_key = 1"))[0] == "INVALID_OPTION"
    assert status(lambda: host_ctx.prepare("q3_k"))[0] == "INVALID_DTYPE"
    assert status(lambda: host_ctx.prepare(99))[0] == "INVALID_DTYPE"
    table = host_ctx.table("vaswani", 16)
    assert status(lambda: table.read_rows(0, 0))[0] == "INVALID_SHAPE"
    assert status(lambda: table.read_rows(2**31 - 4, 8))[0] == "INVALID_SHAPE"
    assert status(lambda: table.read_rows(0, 4, "q8_0"))[0] == "INVALID_DTYPE"


def test_context_facts(host_ctx):
    assert host_ctx.math == "float"
    assert host_ctx.tuning.startswith("from=")
    cl_ctx, dev, queue = host_ctx.handles
    assert cl_ctx and dev and queue
    host_ctx.prepare("i8")
    # The options reach sinpe (a record that overrides nothing keeps the
    # cached build: other records or FP64 would build anew, slowly on PoCL).
    with sinpe.Context(device=os.environ.get("SINPE_DEVICE") or "portable", math="float",
                       tuning="", no_disk_cache=False) as c:
        assert c.math == "float" and c.tuning == host_ctx.tuning
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.Context(math="fp128")
    assert e.value.name == "INVALID_OPTION"
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.Context(device=os.environ.get("SINPE_DEVICE") or "portable", math=9)
    assert e.value.name == "INVALID_OPTION" and "math" in e.value.detail


def test_without_pyopencl():
    """import sinpe and the NumPy path need no PyOpenCL: run with the
    module made unimportable."""
    code = (
        "import sys; sys.modules['pyopencl'] = None\n"
        "import numpy as np, sinpe\n"
        f"ctx = sinpe.Context(device={os.environ.get('SINPE_DEVICE') or 'portable'!r})\n"
        "t = ctx.table('vaswani', 8, rows=4)\n"
        "out = t.embed_host([[0, 1]], np.ones((2, 8), np.float32))\n"
        "assert out.shape == (1, 2, 8) and abs(out[0, 1, 0] - (1 + np.sin(1.0))) < 1e-6\n"
        "assert t.read_rows(0, 2).shape == (2, 8)\n"
        "assert t.timesteps_host([0.5]).shape == (1, 8)\n"
        "assert sys.modules['pyopencl'] is None\n"
        "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_library_discovery():
    """SINPE_LIBRARY names the library; without it the package loads the
    libsinpe.so it carries ("pip install ." builds it in), and a package
    without one (python/ on PYTHONPATH) finds libsinpe.so.<major> through
    the dynamic loader's search (here LD_LIBRARY_PATH)."""
    code = "import sinpe, sinpe._lib; print(sinpe.version(), sinpe._lib.load()._name)"
    env = {k: v for k, v in os.environ.items() if k != "SINPE_LIBRARY"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(env, SINPE_LIBRARY="/nonexistent/libsinpe.so"))
    assert r.returncode != 0 and "SINPE_LIBRARY" in r.stderr and "/nonexistent" in r.stderr
    if os.path.exists(_lib.BUNDLED):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == [sinpe.version(), _lib.BUNDLED]
        return
    path = os.environ.get("SINPE_LIBRARY")
    if not path:
        pytest.skip("SINPE_LIBRARY is not set: the library in use was found by the loader")
    env["LD_LIBRARY_PATH"] = os.path.dirname(os.path.abspath(path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == sinpe.version()
