"""Storage types: NumPy dtypes and explicit names to sinpe_dtype, on the
device, against float64 references; quantize() and the quantized weight
types against their decoded values."""

import math

import numpy as np
import pytest

import reference as ref
import sinpe
from reference import poisoned

DIM = 64
VOCAB = 50


def run(cl_env, rng, weights, out_np, **fields):
    """The fused call with implicit positions 10.. on random ids; returns
    (ids, out as float64, the PE rows)."""
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("whisper", DIM, rows=64)
    ids = rng.integers(0, VOCAB, (3, 11), dtype=np.int32)
    out = poisoned(cla, q, (3, 11, DIM), out_np)
    table.embed(q, cla.to_device(q, ids), weights, out, start=10, **fields).wait()
    got = out.get()
    if got.dtype == np.uint16:
        got = ref.bf16_bits_to_f64(got)
    pe = ref.whisper(np.tile(np.arange(10.0, 21.0), 3), DIM)
    return ids, np.asarray(got, np.float64).reshape(-1, DIM), pe


def test_float16_weights_and_output(cl_env, rng):
    cla, q = cl_env[1], cl_env[3]
    w = rng.standard_normal((VOCAB, DIM)).astype(np.float16)
    ids, got, pe = run(cl_env, rng, cla.to_device(q, w), np.float16, token_scale=2.0)
    want = ref.embed(ids, w.astype(np.float64), 2.0, pe)
    # one rounding to fp16 of a float32 result: half an ulp plus the fp32 bar
    ref.assert_close(got, want, ref.EMBED_TOL + 2.0 ** -25, 2.0 ** -11 + ref.EMBED_TOL, "f16")


def test_bfloat16_raw_bits_need_the_name(cl_env, rng):
    cla, q = cl_env[1], cl_env[3]
    w32 = rng.standard_normal((VOCAB, DIM)).astype(np.float32)
    wbits = cla.to_device(q, ref.f32_to_bf16_bits(w32))
    with pytest.raises(sinpe.SinpeError) as e:
        run(cl_env, rng, wbits, np.float32)
    assert e.value.name == "INVALID_DTYPE" and "bfloat16" in e.value.detail
    ids, got, pe = run(cl_env, rng, wbits, np.uint16, weights_dtype="bfloat16",
                       out_dtype="bfloat16")
    want = ref.embed(ids, ref.bf16_bits_to_f64(ref.f32_to_bf16_bits(w32)), 1.0, pe)
    ref.assert_close(got, want, ref.EMBED_TOL, 2.0 ** -8 + ref.EMBED_TOL, "bf16 bits")


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_ml_dtypes(cl_env, rng, name):
    """ml_dtypes' arrays need no type name: their dtype says it."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    cla, q, sctx = cl_env[1], cl_env[3], cl_env[4]
    dtype = getattr(ml_dtypes, name)
    sctx.prepare(np.dtype(dtype))
    w = rng.standard_normal((VOCAB, DIM)).astype(dtype)
    out_np = dtype if name == "bfloat16" else np.float32
    ids, got, pe = run(cl_env, rng, cla.to_device(q, w), out_np)
    tol = 2.0 ** -8 if name == "bfloat16" else 0.0
    ref.assert_close(got, ref.embed(ids, w.astype(np.float64), 1.0, pe), ref.EMBED_TOL,
                     ref.EMBED_TOL + tol, f"ml_dtypes {name}")


def test_mismatched_names_refused(cl_env, rng):
    cla, q = cl_env[1], cl_env[3]
    w = cla.to_device(q, np.zeros((VOCAB, DIM), np.float32))
    for bad in ("bfloat16", "float16", "i8", "no-such-type"):
        with pytest.raises(sinpe.SinpeError) as e:
            run(cl_env, rng, w, np.float32, weights_dtype=bad)
        assert e.value.name == "INVALID_DTYPE"
    with pytest.raises(sinpe.SinpeError) as e:
        run(cl_env, rng, w, np.float64)
    assert e.value.name == "INVALID_DTYPE" and "out" in e.value.detail


def dequantized(kind, data, scales):
    if kind == "i8":
        v = data.astype(np.float32)
    elif kind == "q8_0":
        return ref.q8_0_to_f64(data, DIM)
    elif kind == "fp8_e4m3":
        v = ref.fp8_e4m3_to_f64(data).astype(np.float32)
    else:
        v = ref.fp8_e5m2_to_f64(data).astype(np.float32)
    if scales is None:
        return v.astype(np.float64)
    # w = v * s, one float32 rounding (v and s are exact in float32)
    return (v * scales.astype(np.float32)[:, None]).astype(np.float64)


@pytest.mark.parametrize("kind,scales_dtype", [
    ("i8", "float32"), ("i8", "float16"), ("q8_0", None), ("fp8_e4m3", "float32"),
    ("fp8_e4m3", None), ("fp8_e5m2", "float16")])
def test_quantized_weights(cl_env, rng, kind, scales_dtype):
    cla, q, sctx = cl_env[1], cl_env[3], cl_env[4]
    sctx.prepare(kind)
    x = rng.standard_normal((VOCAB, DIM)).astype(np.float32)
    data, scales = sinpe.quantize(x, kind, scales_dtype)
    assert data.shape == ((VOCAB, DIM // 32 * 34) if kind == "q8_0" else (VOCAB, DIM))
    assert (scales is None) == (scales_dtype is None)
    w = dequantized(kind, data, scales)
    # quantize() is close to its input: the type's relative step, per row
    step = {"i8": 1 / 127, "q8_0": 1 / 127, "fp8_e4m3": 2.0 ** -3, "fp8_e5m2": 2.0 ** -2}[kind]
    rowmax = np.abs(x).max(axis=1, keepdims=True)
    assert (np.abs(w - x) <= step * rowmax * 0.51 + 2e-3 * rowmax).all()
    fields = dict(weights_dtype=kind, token_scale=math.sqrt(DIM))
    if scales is not None:
        fields["weight_scales"] = cla.to_device(q, scales)
    ids, got, pe = run(cl_env, rng, cla.to_device(q, data), np.float32, **fields)
    want = ref.embed(ids, w, np.float32(math.sqrt(DIM)), pe)
    ref.assert_close(got, want, ref.EMBED_TOL, ref.EMBED_TOL, kind)


def test_quantize_errors():
    x = np.ones((4, 64), np.float32)
    cases = [
        (lambda: sinpe.quantize(np.ones((4, 33), np.float32), "q8_0"), "INVALID_SHAPE"),
        (lambda: sinpe.quantize(np.full((2, 32), np.inf, np.float32), "i8"), "INVALID_OPTION"),
        (lambda: sinpe.quantize(x, "i8", "bfloat16"), "INVALID_DTYPE"),
        (lambda: sinpe.quantize(x, "i8", None), "NULL_ARGUMENT"),
        (lambda: sinpe.quantize(x, 42), "INVALID_DTYPE"),
        (lambda: sinpe.quantize(np.ones((0, 64), np.float32), "f16"), "INVALID_SHAPE"),
    ]
    for fn, name in cases:
        with pytest.raises(sinpe.SinpeError) as e:
            fn()
        assert e.value.name == name, e.value
        assert e.value.detail


def test_quantize_float_types():
    x = np.linspace(-3, 3, 128, dtype=np.float32).reshape(2, 64)
    d, s = sinpe.quantize(x, "float16")
    assert s is None and d.dtype == np.float16 and np.array_equal(d, x.astype(np.float16))
    d, _ = sinpe.quantize(x, "bfloat16")
    assert d.dtype == np.uint16 and np.array_equal(d, ref.f32_to_bf16_bits(x))
    d, _ = sinpe.quantize(x, np.float32)
    assert np.array_equal(d, x)
