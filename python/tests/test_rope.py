"""Rotary embeddings from Python: the spec and presets, the frequencies, the
cos/sin cache in every storage type, the rotation on PyOpenCL arrays (in
place, into outputs, positions of every kind, packed QKV views, a key
cache through k_rows) and on NumPy arrays, and the errors with their
statuses.  References are float64 (rope_reference.py); outputs are
poisoned with NaN before a call writes them."""

import math

import numpy as np
import pytest

import sinpe
from sinpe._types import name_of_rope
from rope_reference import bf16_to_f32, f32_to_bf16, rotate64, rotation_bound, table_bound


def angles(freqs, pos):
    return np.asarray(pos, np.float64)[:, None] * freqs[None, :]


# -- spec, presets, frequencies ----------------------------------------------

def test_presets_by_name():
    p = sinpe.rope_presets()
    assert p["llama2"] == sinpe.ROPE_PRESET_LLAMA2
    assert p["llama3.1"] == sinpe.ROPE_PRESET_LLAMA3_1
    assert len(p) == 17
    for name, value in p.items():
        assert sinpe.rope_preset_name(value) == name
        assert sinpe.rope_preset_value(name.upper().replace(".", "_")) == value
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.rope_preset_value("llama9")
    assert e.value.status == sinpe.UNKNOWN_PRESET
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.rope_spec(preset=99, head_dim=128)
    assert e.value.status == sinpe.UNKNOWN_PRESET
    s = sinpe.rope_spec(preset="llama3.1", head_dim=128)
    assert (s.rotary_dim, s.base, s.rule, s.factor, s.original_max_positions) == (
        128, 500000.0, sinpe.ROPE_LLAMA3, 8.0, 8192)
    s = sinpe.rope_spec(preset="gptj", head_dim=256)
    assert (s.rotary_dim, s.pairing) == (64, sinpe.ROPE_INTERLEAVED)
    assert sinpe.rope_spec(preset="gpt-neox", head_dim=128).rotary_dim == 32


def test_default_frequencies():
    for R, base in ((128, 10000.0), (64, 1e6), (2, 10.0)):
        w, m = sinpe.rope_spec(R, base=base).frequencies()
        ref = base ** (-np.arange(0, R, 2) / R)
        assert w.dtype == np.float64 and w.shape == (R // 2,)
        np.testing.assert_allclose(w, ref, rtol=4e-16, atol=0)
        assert m == 1.0
    w, m = sinpe.rope_spec(64, rule="linear", factor=4.0).frequencies()
    np.testing.assert_allclose(w, 10000.0 ** (-np.arange(0, 64, 2) / 64) / 4, rtol=4e-16)
    s = sinpe.rope_spec(64, rule="yarn", factor=4.0, original_max_positions=4096,
                        attention_factor=0.5)
    assert s.frequencies()[1] == 0.5


def test_inv_freq_as_given_bit_for_bit(rng):
    given = rng.uniform(1e-6, 1.0, 32).astype(np.float32)
    w, m = sinpe.rope_spec(64, inv_freq=given, rule="yarn", factor=4.0,
                           original_max_positions=2048).frequencies()
    assert np.array_equal(w, given.astype(np.float64))
    assert m == pytest.approx(0.1 * math.log(4.0) + 1, rel=1e-15)


LONGROPE = dict(rule="longrope", original_max_positions=4096, max_positions=131072,
                length=5000)


def _lists(name, n):
    """Valid factor lists of R/2 = 32 values, and the list name of n values
    (inv_freq as well when name is inv_freq)."""
    lists = dict(short_factor=np.linspace(1.0, 2.0, 32), long_factor=np.linspace(1.0, 9.0, 32))
    lists[name] = 1.0 / np.arange(1.0, n + 1) if name == "inv_freq" else np.linspace(1.0, 2.0, n)
    return lists


@pytest.mark.parametrize("name", ["short_factor", "long_factor", "inv_freq"])
@pytest.mark.parametrize("n", [31, 33, 16])
def test_list_of_another_length_is_refused(host_ctx, monkeypatch, name, n):
    """The binding refuses the list before calling sinpe; without that check
    sinpe refuses it too, from the count the binding passes (the list's
    own length, so nothing past it is read)."""
    spec = sinpe.rope_spec(64, **LONGROPE, **_lists(name, n))
    assert getattr(spec, "n_" + name) == n
    calls = (spec.frequencies, lambda: host_ctx.rope_table(spec))
    for prefix in ("", "spec."):
        if prefix:
            monkeypatch.setattr(sinpe.rope, "check_lists", lambda spec: None)
        for call in calls:
            with pytest.raises(sinpe.SinpeError) as e:
                call()
            assert e.value.status == sinpe.INVALID_SPEC
            assert e.value.detail == f"{prefix}{name} has {n} values; rotary dim 64 needs 32"


def test_lists_of_the_right_length(host_ctx):
    spec = sinpe.rope_spec(64, **LONGROPE, **_lists("inv_freq", 32))
    assert (spec.n_short_factor, spec.n_long_factor, spec.n_inv_freq) == (32, 32, 32)
    w, m = spec.frequencies()
    assert np.array_equal(w, (1.0 / np.arange(1.0, 33)).astype(np.float32).astype(np.float64))
    assert host_ctx.rope_table(spec).dim == 64
    phi = sinpe.rope_spec(preset="phi3-longrope", head_dim=96)
    assert (phi.n_short_factor, phi.n_long_factor, phi.n_inv_freq) == (48, 48, 0)


def test_invalid_specs_name_the_field():
    cases = [(dict(rotary_dim=63), "rotary_dim"), (dict(rotary_dim=64, base=1.0), "base"),
             (dict(rotary_dim=64, rule="linear", factor=0.0), "factor"),
             (dict(rotary_dim=64, rule="yarn", factor=2.0), "original_max_positions"),
             (dict(rotary_dim=64, rule="longrope", original_max_positions=4096), "max_positions")]
    for fields, word in cases:
        with pytest.raises(sinpe.SinpeError) as e:
            sinpe.rope_spec(**fields).frequencies()
        assert e.value.status == sinpe.INVALID_SPEC, fields
        assert word in e.value.detail, (fields, e.value.detail)
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.rope_spec(64, rule="nope")
    assert e.value.status == sinpe.INVALID_OPTION
    with pytest.raises(TypeError):
        sinpe.rope_spec(64, bogus=1)


# -- the table ----------------------------------------------------------------

LAYOUTS = ("cos_sin", "pairs", "cos_twice", "sin_twice")


def expected_columns(c, s, layout):
    if layout == "cos_sin":
        return np.concatenate([c, s], 1)
    if layout == "pairs":
        return np.stack([c, s], 2).reshape(c.shape[0], -1)
    if layout == "cos_twice":
        return np.concatenate([c, c], 1)
    return np.concatenate([s, s], 1)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_table_rows_every_type(host_ctx, layout):
    spec = sinpe.rope_spec(preset="qwen2-yarn", head_dim=128, layout=layout)
    w, m = spec.frequencies()
    t = host_ctx.rope_table(spec, rows=256)
    assert t.rows >= 256 and t.dim == 128
    for row0 in (0, 200, 70000, 2 ** 24 - 16, 2 ** 31 - 16, -8):
        pos = np.arange(row0, row0 + 16)
        a = angles(w, pos)
        ref = expected_columns(np.cos(a) * m, np.sin(a) * m, layout)
        bound = np.concatenate([table_bound(a, m)] * 2, 1)
        if layout == "pairs":
            bound = np.repeat(table_bound(a, m), 2, 1)
        got = t.read_rows(row0, 16)
        assert got.dtype == np.float32 and got.shape == (16, 128)
        err = np.abs(got - ref)
        assert np.all(err <= bound), (row0, layout, float((err / bound).max()))
        # One rounding to the narrower types (from the exact value, so the
        # float32 row's bound plus half the type's ulp).
        h = t.read_rows(row0, 16, "float16").astype(np.float64)
        assert np.all(np.abs(h - ref) <= bound + 2.0 ** -11 * np.abs(ref) + 2.0 ** -25), row0
        b = bf16_to_f32(t.read_rows(row0, 16, "bfloat16")).astype(np.float64)
        assert np.all(np.abs(b - ref) <= bound + 2.0 ** -8 * np.abs(ref)), row0


def test_table_enqueue_rows_pyopencl(cl_env):
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table("llama2", head_dim=64, rows=64)
    out = cla.to_device(queue, np.full((10, 80), np.nan, np.float16))
    t.enqueue_rows(queue, 5, 10, out[:, 8:72]).wait()
    got = out.get()
    assert np.isnan(got[:, :8]).all() and np.isnan(got[:, 72:]).all()
    np.testing.assert_array_equal(got[:, 8:72], t.read_rows(5, 10, "float16"))


@pytest.mark.parametrize("layout", ["cos_sin", "pairs"])
def test_cos_sin_in_own_kernel(cl_env, layout):
    """RopeTable.constants() with borrow() feeds sinpe_rope_cos_sin() in a
    PyOpenCL kernel of our own: the table's bits inside its rows and past
    them."""
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table("qwen2-yarn", head_dim=64, rows=32, layout=layout)
    src = sctx.device_source() + """
    kernel void cs(global const float *table, int rows, global const float *consts,
                   uint rot, uint layout, int p0, global float *out)
    {
        uint k = get_global_id(0), r = get_global_id(1);
        float2 v = sinpe_rope_cos_sin(table, rows, consts, rot, layout, p0 + (int)r, k);
        out[r * rot + k] = v.x;
        out[r * rot + rot / 2 + k] = v.y;
    }
    """
    prg = cl.Program(ctx, src).build()
    buf, rows = t.borrow()
    consts = t.constants()
    assert isinstance(consts, cl.Buffer) and rows >= 32
    n = rows + 32  # the last 32 positions past the table's rows
    out = cla.to_device(queue, np.full((n, 64), np.nan, np.float32))
    prg.cs(queue, (32, n), None, buf, np.int32(rows), consts, np.uint32(64),
           np.uint32(sinpe.ROPE_COS_SIN if layout == "cos_sin" else sinpe.ROPE_PAIRS),
           np.int32(0), out.data)
    want = t.read_rows(0, n)
    if layout == "pairs":
        want = np.concatenate([want[:, 0::2], want[:, 1::2]], 1)
    assert np.array_equal(out.get().view(np.uint32), want.view(np.uint32))


def test_table_errors(host_ctx):
    with pytest.raises(sinpe.SinpeError) as e:
        host_ctx.rope_table(sinpe.rope_spec(64, rule="dynamic", factor=2.0))
    assert e.value.status == sinpe.INVALID_SPEC and "max_positions" in e.value.detail
    with pytest.raises(TypeError):
        host_ctx.rope_table(sinpe.rope_spec(64), base=10.0)
    t = host_ctx.rope_table("llama2", head_dim=64, layout="cos_twice")
    q = np.zeros((2, 1, 64), np.float32)
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate_host(q)
    assert e.value.status == sinpe.INVALID_SPEC


# -- the rotation on PyOpenCL arrays -----------------------------------------

def _check(got, x, pos, spec, dtype=np.float32):
    w, m = spec.frequencies()
    a = angles(w, pos)
    ref = rotate64(x, a, m, spec.rotary_dim, name_of_rope("pairing", spec.pairing))
    maxabs = np.abs(np.asarray(x, np.float64)).max()
    bound = rotation_bound(a, m, maxabs).max(axis=1)[:, None, None]
    got64 = np.asarray(got, np.float64)
    if dtype != np.float32:
        bound = bound + (np.abs(ref) * 2.0 ** -11 + 2.0 ** -25 if dtype == np.float16
                         else np.abs(ref) * 2.0 ** -8)
    err = np.abs(got64 - ref)
    assert np.all(err <= bound), float((err / bound).max())
    R = spec.rotary_dim
    np.testing.assert_array_equal(got[..., R:], np.asarray(x)[..., R:])


@pytest.mark.parametrize("preset,head_dim", [("llama3.1", 128), ("gptj", 128),
                                              ("gpt-neox", 64)])
def test_rotate_in_place_and_out(cl_env, rng, preset, head_dim):
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table(preset, head_dim=head_dim, rows=128)
    tokens, hq, hk = 37, 4, 2
    q = rng.standard_normal((tokens, hq, head_dim)).astype(np.float32)
    k = rng.standard_normal((tokens, hk, head_dim)).astype(np.float32)
    dq, dk = cla.to_device(queue, q), cla.to_device(queue, k)
    start = 1000
    t.rotate(queue, dq, dk, start=start).wait()
    pos = start + np.arange(tokens)
    _check(dq.get(), q, pos, t.spec)
    _check(dk.get(), k, pos, t.spec)
    # Into outputs: q and k only read.
    dq, dk = cla.to_device(queue, q), cla.to_device(queue, k)
    oq = cla.to_device(queue, np.full_like(q, np.nan))
    ok = cla.to_device(queue, np.full_like(k, np.nan))
    t.rotate(queue, dq, dk, q_out=oq, k_out=ok, start=start).wait()
    np.testing.assert_array_equal(dq.get(), q)
    _check(oq.get(), q, pos, t.spec)
    _check(ok.get(), k, pos, t.spec)


def test_rotate_positions_and_sequences(cl_env, rng):
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table("llama2", head_dim=64, rows=64)
    n_seqs, seq_len = 3, 5
    q = rng.standard_normal((n_seqs, seq_len, 2, 64)).astype(np.float32)
    k = rng.standard_normal((n_seqs, seq_len, 1, 64)).astype(np.float32)
    pos = rng.integers(0, 2 ** 24, n_seqs * seq_len).astype(np.int32)
    starts = np.array([0, 100000, 7], np.int32)
    dq, dk = cla.to_device(queue, q), cla.to_device(queue, k)
    t.rotate(queue, dq, dk, start=3, positions=cla.to_device(queue, pos),
             seq_starts=cla.to_device(queue, starts)).wait()
    want = 3 + pos + np.repeat(starts, seq_len)
    _check(dq.get().reshape(-1, 2, 64), q.reshape(-1, 2, 64), want, t.spec)
    _check(dk.get().reshape(-1, 1, 64), k.reshape(-1, 1, 64), want, t.spec)
    # Implicit positions per sequence: start + t + seq_starts[b].
    dq = cla.to_device(queue, q)
    t.rotate(queue, dq, None, start=10, seq_starts=cla.to_device(queue, starts)).wait()
    want = 10 + np.tile(np.arange(seq_len), n_seqs) + np.repeat(starts, seq_len)
    _check(dq.get().reshape(-1, 2, 64), q.reshape(-1, 2, 64), want, t.spec)


def test_rotate_packed_qkv_and_key_cache(cl_env, rng):
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table("mistral", head_dim=32, rows=32)
    tokens, hq, hk, hd = 9, 4, 2, 32
    width = (hq + 2 * hk) * hd
    qkv = rng.standard_normal((tokens, width)).astype(np.float32)
    d = cla.to_device(queue, qkv)
    q_view = d[:, :hq * hd]
    k_view = d[:, hq * hd:(hq + hk) * hd]
    t.rotate(queue, q_view, k_view, head_dim=hd, start=50).wait()
    got = d.get()
    pos = 50 + np.arange(tokens)
    _check(got[:, :hq * hd].reshape(tokens, hq, hd), qkv[:, :hq * hd].reshape(tokens, hq, hd),
           pos, t.spec)
    _check(got[:, hq * hd:(hq + hk) * hd].reshape(tokens, hk, hd),
           qkv[:, hq * hd:(hq + hk) * hd].reshape(tokens, hk, hd), pos, t.spec)
    np.testing.assert_array_equal(got[:, (hq + hk) * hd:], qkv[:, (hq + hk) * hd:])
    # Keys into a cache of 20 rows through k_rows; -1 skips a token.
    d = cla.to_device(queue, qkv)
    cache = cla.to_device(queue, np.full((20, hk, hd), np.nan, np.float32))
    rows = np.array([3, 19, -1, 0, 7, 8, 9, 10, 11], np.int32)
    t.rotate(queue, None, d[:, hq * hd:(hq + hk) * hd], k_out=cache, head_dim=hd,
             k_rows=cla.to_device(queue, rows), start=0).wait()
    c = cache.get()
    k = qkv[:, hq * hd:(hq + hk) * hd].reshape(tokens, hk, hd)
    keep = rows >= 0
    _check(c[rows[keep]], k[keep], np.arange(tokens)[keep], t.spec)
    untouched = np.setdiff1d(np.arange(20), rows[keep])
    assert np.isnan(c[untouched]).all()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rotate_narrow_types(cl_env, rng, dtype):
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table("llama2", head_dim=64)
    x = rng.standard_normal((6, 2, 64)).astype(np.float32)
    if dtype == "float16":
        host = x.astype(np.float16)
        xin = host.astype(np.float32)
    else:
        host = f32_to_bf16(x)
        xin = bf16_to_f32(host)
    d = cla.to_device(queue, host)
    t.rotate(queue, d, None, dtype=None if dtype == "float16" else "bfloat16", start=77).wait()
    got = d.get()
    got = got.astype(np.float32) if dtype == "float16" else bf16_to_f32(got)
    _check(got, xin, 77 + np.arange(6), t.spec, np.float16 if dtype == "float16" else "bf16")


def test_rotate_errors(cl_env):
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table("llama2", head_dim=64)
    d = cla.zeros(queue, (4, 128), np.float32)
    # q and k overlapping in one buffer.
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate(queue, d[:, :128], d[:, 64:128], head_dim=64)
    assert e.value.status == sinpe.BUFFERS_OVERLAP
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate(queue, cla.zeros(queue, (4, 1, 64), np.float32),
                 cla.zeros(queue, (5, 1, 64), np.float32))
    assert e.value.status == sinpe.INVALID_SHAPE
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate(queue, cla.zeros(queue, (4, 1, 32), np.float32), None)
    assert e.value.status == sinpe.INVALID_SHAPE and "head_dim" in e.value.detail
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate(queue, cla.zeros(queue, (4, 1, 64), np.float32),
                 cla.zeros(queue, (4, 1, 64), np.float16))
    assert e.value.status == sinpe.INVALID_DTYPE
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate(queue, cla.zeros(queue, (4, 1, 64), np.float32), None,
                 k_rows=cla.zeros(queue, 4, np.int32))
    assert e.value.status == sinpe.INVALID_SHAPE


def test_rotate_errors_name_the_python_arguments(cl_env):
    """Arguments wrong together are refused by the binding with a message
    in terms of rotate()'s own arguments, never a sinpe_rope_args field
    ("args->n_seqs") that a Python caller never passed."""
    cl, cla, ctx, queue, sctx = cl_env
    t = sctx.rope_table("llama2", head_dim=64)
    q = cla.zeros(queue, (10, 2, 64), np.float32)
    k = cla.zeros(queue, (10, 1, 64), np.float32)
    cases = [
        (lambda: t.rotate(queue, None, None), "q and k are both None: nothing to rotate"),
        (lambda: t.rotate(queue, None), "q and k are both None: nothing to rotate"),
        (lambda: t.rotate_host(None), "q and k are both None: nothing to rotate"),
        (lambda: t.rotate(queue, q, k, seq_len=3),
         "seq_len 3 does not divide the 10 tokens of q (give n_seqs too, or neither)"),
        (lambda: t.rotate(queue, None, k, n_seqs=4),
         "n_seqs 4 does not divide the 10 tokens of k (give seq_len too, or neither)"),
        (lambda: t.rotate(queue, q, k, n_seqs=2, seq_len=4),
         "n_seqs 2 * seq_len 4 is not the 10 tokens of q"),
        (lambda: t.rotate(queue, q, k, seq_len=0),
         "seq_len 0 does not divide the 10 tokens of q (give n_seqs too, or neither)"),
        (lambda: t.rotate(queue, cla.zeros(queue, (4, 1, 32), np.float32), None),
         "q: heads of 32 values (head_dim), below the table's rotary_dim 64"),
        (lambda: t.rotate(queue, q.data, None, n_seqs=1, seq_len=10),
         "head_dim is needed when q and k are Buffers (no array shape gives it)"),
        (lambda: t.rotate(queue, q, None, k_rows=cla.zeros(queue, 10, np.int32)),
         "k_rows is given without k_out (the key cache)"),
        (lambda: t.rotate_host(np.zeros((0, 1, 64), np.float32)), "q holds no tokens"),
        (lambda: t.rotate_host(np.zeros((6, 1, 64), np.float32), seq_len=4),
         "seq_len 4 does not divide the 6 tokens of q (give n_seqs too, or neither)"),
        (lambda: t.rotate_host(None, np.zeros((6, 1, 16), np.float32)),
         "k: heads of 16 values (head_dim), below the table's rotary_dim 64"),
    ]
    for call, want in cases:
        with pytest.raises(sinpe.SinpeError) as e:
            call()
        assert e.value.status == sinpe.INVALID_SHAPE, want
        assert e.value.detail == want
    # What is left to sinpe names the sinpe_rope_args field, which rotate()
    # takes under the same name.
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate(queue, q, k, start=2 ** 31 - 5)
    assert e.value.status == sinpe.INVALID_SHAPE and "start" in e.value.detail


# -- NumPy --------------------------------------------------------------------

def test_rotate_host(host_ctx, rng):
    t = host_ctx.rope_table("qwen2-yarn", head_dim=64)
    q = rng.standard_normal((11, 3, 64)).astype(np.float32)
    k = rng.standard_normal((11, 1, 64)).astype(np.float32)
    pos = rng.integers(0, 2 ** 24, 11)
    qr, kr = t.rotate_host(q, k, positions=pos, start=5)
    _check(qr, q, 5 + pos, t.spec)
    _check(kr, k, 5 + pos, t.spec)
    qr, none = t.rotate_host(q)
    assert none is None
    _check(qr, q, np.arange(11), t.spec)
    qs = q[:10].reshape(2, 5, 3, 64)
    qr, _ = t.rotate_host(qs, seq_starts=[100, 2000])
    _check(qr.reshape(10, 3, 64), q[:10],
           np.concatenate([100 + np.arange(5), 2000 + np.arange(5)]), t.spec)
    with pytest.raises(sinpe.SinpeError) as e:
        t.rotate_host(q, k[:5])
    assert e.value.status == sinpe.INVALID_SHAPE


def test_rope_model_binding():
    """sinpe.rope_model_layer() by index, by type and by HF's type name;
    its refusals name the argument; temperature() and softmax_factor()."""
    assert sinpe.rope_models() == {"qwen3": 1, "gemma3": 2, "gemma4": 3, "deepseek-v3": 4,
                                   "gpt-oss": 5, "llama4-scout": 6}
    spec, layer = sinpe.rope_model_layer("Gemma4", type="full_attention")
    assert (layer.head_dim, spec.rotary_dim, spec.rotated_pairs) == (512, 512, 64)
    assert name_of_rope("rule", spec.rule) == "proportional"
    w, m = spec.frequencies()
    assert np.all(w[64:] == 0) and np.all(w[:64] > 0) and m == 1.0
    same, _ = sinpe.rope_model_layer(sinpe.ROPE_MODEL_GEMMA4, 5)
    assert bytes(same) == bytes(spec)
    made = sinpe.rope_spec(512, base=1e6, rule="proportional", factor=1.0, rotated_pairs=64)
    assert np.array_equal(made.frequencies()[0], w)
    for call, status, words in (
            (lambda: sinpe.rope_model_layer("gemma5", 0), sinpe.UNKNOWN_PRESET, "gemma5"),
            (lambda: sinpe.rope_model_layer(99, 0), sinpe.UNKNOWN_PRESET, "model 99"),
            (lambda: sinpe.rope_model_layer("qwen3", 36), sinpe.INVALID_SHAPE, "layer 36"),
            (lambda: sinpe.rope_model_layer("qwen3", type="sliding"), sinpe.INVALID_OPTION,
             "no such layer"),
            (lambda: sinpe.rope_model_layer("qwen3", type="global"), sinpe.INVALID_OPTION,
             "global"),
            (lambda: sinpe.temperature(0, 0.1, 0.0), sinpe.INVALID_SPEC, "floor_scale"),
            (lambda: sinpe.temperature(2**31), sinpe.INVALID_SHAPE, "int32")):
        with pytest.raises(sinpe.SinpeError) as e:
            call()
        assert e.value.status == status and words in str(e.value), str(e.value)
    with pytest.raises(TypeError):
        sinpe.rope_model_layer("qwen3")
    assert sinpe.temperature([8190, 8191]) == [1.0, 1.0 + 0.1 * math.log(2.0)]
    spec, layer = sinpe.rope_model_layer("deepseek-v3", 0)
    assert spec.softmax_factor() == layer.softmax_factor == pytest.approx(
        (0.1 * math.log(40.0) + 1) ** 2, rel=1e-15)
