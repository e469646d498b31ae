"""The attention input stage against HF transformers' own attention-input
code, run in float64: Qwen3's q/k norm (Qwen3RMSNorm) and Gemma 3's
(Gemma3RMSNorm, its 1 + w), then apply_rotary_pos_emb with cos and sin
from HF's own rope init functions, and the keys and values compared by
slot in the cache (vLLM's slot mapping: skipped tokens leave their rows
as they were).  The classes and functions are taken from the installed
transformers' files (framework_source.py), not imported, as in
test_rope_hf.py.

Bound per element: the normed value within one float32 ulp (the header's
norm bound), then the rotation's bound of rope_reference.py on heads of
that size; v exact (F32 cache) or one fp16 rounding."""

import importlib.util
import inspect
import math
import typing

import numpy as np
import pytest

import sinpe
from framework_source import float64_source, load_source
from rope_reference import rotation_bound

try:
    import torch
    from transformers import Gemma3TextConfig, Qwen3Config
    from transformers import modeling_rope_utils as HF_ROPE
except Exception as e:  # noqa: BLE001 - any import failure means: cannot run
    pytest.skip(f"HF transformers cannot be imported ({type(e).__name__}: {e})",
                allow_module_level=True)

EPS24 = 2.0 ** -24


def _load(module_name, names):
    ns = {"__name__": module_name + "_float64", "__package__": module_name.rpartition(".")[0],
          "torch": torch, "math": math, "nn": torch.nn}
    ns.update({k: v for k, v in vars(typing).items() if not k.startswith("_")})
    return load_source(importlib.util.find_spec(module_name).origin, names, ns)


QWEN3 = _load("transformers.models.qwen3.modeling_qwen3",
              ["Qwen3RMSNorm", "rotate_half", "apply_rotary_pos_emb"])
GEMMA3 = _load("transformers.models.gemma3.modeling_gemma3",
               ["Gemma3RMSNorm", "rotate_half", "apply_rotary_pos_emb"])
def _rope_utils64():
    """modeling_rope_utils run from its own source in float64."""
    ns = {"__name__": HF_ROPE.__name__ + "_float64", "__package__": "transformers",
          "torch": torch, "math": math}
    exec(compile(float64_source(inspect.getsource(HF_ROPE)), HF_ROPE.__file__, "exec"), ns)
    return ns


ROPE64 = _rope_utils64()["ROPE_INIT_FUNCTIONS"]


def _hf_stage(model, config, q, k, w_q, w_k, eps, positions):
    """HF's q/k norm and rotation in float64: q, k [tokens, heads, head_dim]."""
    ns = QWEN3 if model == "qwen3" else GEMMA3
    norm_cls = ns["Qwen3RMSNorm" if model == "qwen3" else "Gemma3RMSNorm"]
    hd = q.shape[-1]
    qn, kn = norm_cls(hd, eps=eps).double(), norm_cls(hd, eps=eps).double()
    with torch.no_grad():
        qn.weight.copy_(torch.from_numpy(w_q.astype(np.float64)))
        kn.weight.copy_(torch.from_numpy(w_k.astype(np.float64)))
        fn = ROPE64["linear" if model == "gemma3" else "default"]
        inv_freq, att = fn(config, "cpu")
        inv_freq = inv_freq.double()
        angle = torch.from_numpy(positions.astype(np.float64))[:, None] * inv_freq[None, :]
        emb = torch.cat((angle, angle), dim=-1)
        cos, sin = emb.cos() * att, emb.sin() * att
        # [batch 1, heads, tokens, head_dim] as HF's attention holds them
        qh = qn(torch.from_numpy(q.astype(np.float64))).transpose(0, 1)[None]
        kh = kn(torch.from_numpy(k.astype(np.float64))).transpose(0, 1)[None]
        normed = (qh[0].transpose(0, 1).numpy(), kh[0].transpose(0, 1).numpy())
        qr, kr = ns["apply_rotary_pos_emb"](qh, kh, cos[None], sin[None])
    return (qr[0].transpose(0, 1).numpy(), kr[0].transpose(0, 1).numpy(), normed,
            angle.numpy())


def _bound(normed, angle):
    """Per element: one float32 ulp of each normed value carried through the
    rotation, plus the rotation's own bound on heads of that size."""
    maxabs = np.abs(normed).max(axis=-1, keepdims=True)
    a = np.concatenate((angle, angle), axis=-1)[:, None, :]
    return rotation_bound(a, 1.0, maxabs) + 2 * 2 * EPS24 * maxabs


CASES = {
    "qwen3": (lambda: Qwen3Config(head_dim=128, rope_theta=1000000.0), "float32",
              dict(rule="default", base=1e6)),
    "qwen3-f16-cache": (lambda: Qwen3Config(head_dim=128, rope_theta=1000000.0), "float16",
                        dict(rule="default", base=1e6)),
    "gemma3-global": (lambda: Gemma3TextConfig(head_dim=128, rope_theta=1000000.0,
                                               rope_scaling={"rope_type": "linear",
                                                             "factor": 8.0}),
                      "float32", dict(rule="linear", base=1e6, factor=8.0)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_stage_matches_hf_float64(host_ctx, rng, case):
    make_config, cache_dtype, spec_fields = CASES[case]
    model = case.split("-")[0]
    config = make_config()
    tokens, qh, kh, hd, rows = 11, 8, 2, 128, 16
    q = rng.standard_normal((tokens, qh, hd)).astype(np.float32) * 3
    k = rng.standard_normal((tokens, kh, hd)).astype(np.float32) * 3
    v = rng.standard_normal((tokens, kh, hd)).astype(np.float32)
    w_q = (rng.standard_normal(hd) * 0.5 + (1.0 if model == "qwen3" else 0.0)).astype(np.float32)
    w_k = (rng.standard_normal(hd) * 0.5 + (1.0 if model == "qwen3" else 0.0)).astype(np.float32)
    positions = np.concatenate((np.arange(5), rng.integers(0, 1 << 20, tokens - 5)))
    slots = rng.permutation(rows)[:tokens].astype(np.int32)
    slots[3] = -1  # skipped: its rows keep what was there
    table = sinpe.RopeTable(host_ctx, sinpe.rope_spec(hd, **spec_fields), rows=64)
    eps = 1e-6
    np_ct = np.float16 if cache_dtype == "float16" else np.float32
    before = rng.standard_normal((rows, kh, hd)).astype(np_ct)
    q_out, k_cache, v_cache = table.attn_input_host(
        q, k, v, k_cache=before, v_cache=before, slot_mapping=slots,
        norm="rms" if model == "qwen3" else "rms_gemma", eps=eps, q_norm_weight=w_q,
        k_norm_weight=w_k, positions=positions.astype(np.int32), cache_dtype=cache_dtype)
    table.release()
    q64, k64, (qn, kn), angle = _hf_stage(model, config, q, k, w_q, w_k, eps, positions)
    bq = _bound(qn, angle)
    assert np.all(np.abs(q_out - q64) <= bq), (
        f"q: worst {np.max(np.abs(q_out - q64) / bq):.3f} of the bound")
    bk = _bound(kn, angle) + ((np.abs(k64) + 2.0 ** -14) * 2.0 ** -11  # 2^-25: subnormals
                              if cache_dtype == "float16" else 0)
    for t in range(tokens):
        if slots[t] < 0:
            continue
        got = k_cache[slots[t]].astype(np.float64)
        assert np.all(np.abs(got - k64[t]) <= bk[t]), (
            f"token {t} slot {slots[t]}: worst {np.max(np.abs(got - k64[t]) / bk[t]):.3f} "
            f"of the bound")
        assert np.array_equal(v_cache[slots[t]], v[t].astype(np_ct)), f"v of token {t}"
    untouched = np.setdiff1d(np.arange(rows), slots[slots >= 0])
    assert np.array_equal(k_cache[untouched], before[untouched])
    assert np.array_equal(v_cache[untouched], before[untouched])


def test_five_lines_pyopencl(cl_env, rng):
    """A PyOpenCL user's Qwen3 attention input stage: norm, rope, cache
    write in one call, as the README shows it."""
    cl, cla, _, queue, sctx = cl_env
    tokens, qh, kh, hd = 6, 4, 2, 128
    q = cla.to_device(queue, rng.standard_normal((tokens, qh, hd)).astype(np.float32))
    k = cla.to_device(queue, rng.standard_normal((tokens, kh, hd)).astype(np.float32))
    v = cla.to_device(queue, rng.standard_normal((tokens, kh, hd)).astype(np.float32))
    w = cla.to_device(queue, np.ones(hd, np.float32))
    k_cache = cla.zeros(queue, (4, 2, kh, hd), np.float32)  # vLLM's [blocks, block_size, ...]
    v_cache = cla.zeros(queue, (4, 2, kh, hd), np.float32)
    slots = cla.to_device(queue, np.array([7, 0, 5, -1, 2, 3], np.int32))
    q0 = q.get()  # q is normed and rotated in place

    table = sinpe.RopeTable(sctx, sinpe.rope_model_layer("qwen3", 0)[0])
    table.attn_input(queue, q, k, v, k_cache=k_cache, v_cache=v_cache, slot_mapping=slots,
                     norm="rms", q_norm_weight=w, k_norm_weight=w, start=10).wait()

    host = sinpe.RopeTable(sctx, sinpe.rope_model_layer("qwen3", 0)[0])
    want_q, want_k, want_v = host.attn_input_host(
        q0, k.get(), v.get(), cache_rows=8, slot_mapping=slots.get(), norm="rms",
        q_norm_weight=w.get(), k_norm_weight=w.get(), start=10)
    assert np.array_equal(q.get(), want_q)
    assert np.array_equal(k_cache.get().reshape(8, kh, hd), want_k)
    assert np.array_equal(v_cache.get().reshape(8, kh, hd), want_v)
    table.release()
    host.release()
