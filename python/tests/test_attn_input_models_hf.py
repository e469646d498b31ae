"""The attention input stage against HF transformers' own attention code for
Llama 4 and DeepSeek-V3, run in float64 (framework_source.py's transform),
the keys and values compared slot by slot in the cache.

Llama 4 (Llama-4-Scout's configuration as Llama4TextConfig): a rotating
layer through HF's apply_rotary_emb (complex pairs, the llama3 rule) and
then Llama4TextL2Norm on q and k (the norm after the rotation, eps
rms_norm_eps); a NoPE layer (no_rope_layers 0: no rotation, no norm)
with the temperature expression of Llama4TextAttention.forward on q,
taken from its source.  (With m = 1 and every column rotated the L2 norm
and the rotation commute in exact arithmetic, so this comparison cannot
tell the two orders apart; tests/test_attn_input.c holds the order bit for
bit.)

DeepSeek-V3 (DeepseekV3Config): the steps of DeepseekV3Attention.forward
from the projections on: q split into q_pass | q_rot (128 | 64), the key
as k_pass per head and one k_rot for all heads, q_rot and k_rot through
apply_rotary_pos_emb_interleave with cos and sin of the yarn rule times
its attention factor (mscale / mscale_all_dim), k_rot expanded over the
heads, cat((pass, rot)).  sinpe gets the whole heads (the key's k_rot
repeated per head) with rotary_offset 128 and writes pair k of the slice
to columns 2k, 2k + 1; HF writes it to k and k + 32: sinpe's slice is
compared after that permutation, and the attention scores, which do not
see it, unpermuted with HF's softmax scale (qk_head_dim^-0.5 times
yarn_get_mscale(factor, mscale_all_dim)^2) against sinpe's
(softmax_factor()).  v: v_head_dim 128 zero-padded to 192 as HF's
flash-attention path pads it, compared exactly.

Bounds per element (the header's): the rotation within
rope_reference.rotation_bound (the table's bound at each angle plus
position times the frequencies' difference); the L2 norm after it
within one float32 ulp of the norm of sinpe's rotated values, which are
within e of HF's, so |y - y64| <= e (1 + |y64|) / rms + one ulp; the
temperature within (2^-21 + 2^-24) |q| tau; a fp16 cache half an fp16
ulp more (2^-11 |x|)."""

import importlib.util
import re
import types

import numpy as np
import pytest

import sinpe
from framework_source import float64_source
from rope_reference import rotation_bound, table_bound

try:
    import torch
    from transformers import DeepseekV3Config, Llama4TextConfig
    from test_attn_input_hf import ROPE64, _load
except Exception as e:  # noqa: BLE001 - any import failure means: cannot run
    pytest.skip(f"HF transformers cannot be imported ({type(e).__name__}: {e})",
                allow_module_level=True)

EPS24 = 2.0 ** -24
LLAMA4 = _load("transformers.models.llama4.modeling_llama4",
               ["Llama4TextL2Norm", "apply_rotary_emb"])
DEEPSEEK = _load("transformers.models.deepseek_v3.modeling_deepseek_v3",
                 ["rotate_half", "apply_rotary_pos_emb_interleave", "yarn_get_mscale"])
NP_CACHE = {"float32": np.float32, "float16": np.float16}


def _positions(rng, tokens):
    """Small positions, random ones below 2^24, and 2^24 - 1."""
    return np.concatenate((np.arange(5), rng.integers(0, 1 << 24, tokens - 6),
                           [(1 << 24) - 1])).astype(np.int64)


def _slots(rng, rows, tokens):
    slots = rng.permutation(rows)[:tokens].astype(np.int32)
    slots[3] = -1  # skipped: its rows keep what was there
    return slots


def _frequencies(config, rule):
    inv_freq, att = ROPE64[rule](config, "cpu")
    return inv_freq.double().numpy(), float(att)


def _rotation_error(spec, pos, w_hf, m, x):
    """The rotation's bound per (token, head) over the pairs: x [tokens,
    heads, R], angles of the float64 frequencies w_hf."""
    w = spec.frequencies()[0]
    angle = pos[:, None].astype(np.float64) * w_hf[None, :]
    table_error = table_bound(angle, m) + pos[:, None] * np.abs(w - w_hf)[None, :] * m
    maxabs = np.abs(x).max(axis=-1)  # [tokens, heads]
    return np.stack([rotation_bound(angle, m, maxabs[:, h:h + 1], table_error).max(axis=1)
                     for h in range(x.shape[1])], axis=1)


def _check_cache(cache, slots, want, bound, what):
    """want [tokens, heads, D] at cache[slots[t]] within bound (same shape)."""
    for t, s in enumerate(slots):
        if s < 0:
            continue
        err = np.abs(cache[s].astype(np.float64) - want[t])
        assert np.all(err <= bound[t]), (
            f"{what}: token {t} slot {s}: worst {np.max(err / bound[t]):.3f} of the bound")


def _check_untouched(caches, befores, slots):
    rows = befores[0].shape[0]
    untouched = np.setdiff1d(np.arange(rows), slots[slots >= 0])
    for c, b in zip(caches, befores):
        assert np.array_equal(c[untouched], b[untouched])


LLAMA4_CONFIG = Llama4TextConfig(
    num_hidden_layers=48, head_dim=128, rope_theta=500000.0,
    rope_scaling={"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                  "high_freq_factor": 1.0, "original_max_position_embeddings": 8192})


@pytest.mark.parametrize("cache_dtype", sorted(NP_CACHE))
def test_llama4_rotating_layer_l2_after(host_ctx, rng, cache_dtype):
    config = LLAMA4_CONFIG
    spec, layer = sinpe.rope_model_layer("llama4-scout", 0)
    assert layer.rotates and config.no_rope_layers[0] and config.use_qk_norm
    tokens, qh, kh, hd, rows = 12, 4, 2, layer.head_dim, 16
    q = rng.standard_normal((tokens, qh, hd)).astype(np.float32) * 3
    k = rng.standard_normal((tokens, kh, hd)).astype(np.float32) * 3
    v = rng.standard_normal((tokens, kh, hd)).astype(np.float32)
    pos, slots = _positions(rng, tokens), _slots(rng, rows, tokens)
    np_ct = NP_CACHE[cache_dtype]
    before = rng.standard_normal((rows, kh, hd)).astype(np_ct)
    table = sinpe.RopeTable(host_ctx, spec, rows=64)
    q_out, k_cache, v_cache = table.attn_input_host(
        q, k, v, k_cache=before, v_cache=before, slot_mapping=slots, norm="l2",
        norm_after=True, eps=config.rms_norm_eps, positions=pos.astype(np.int32),
        cache_dtype=cache_dtype)
    table.release()

    # HF: apply_rotary_emb on [batch, tokens, heads, head_dim], then the norm
    w_hf, m = _frequencies(config, "llama3")
    freqs = torch.from_numpy(pos.astype(np.float64))[:, None] * torch.from_numpy(w_hf)[None]
    freqs_cis = (torch.polar(torch.ones_like(freqs), freqs) * m)[None]
    qn = LLAMA4["Llama4TextL2Norm"](config.rms_norm_eps)
    with torch.no_grad():
        qr, kr = LLAMA4["apply_rotary_emb"](torch.from_numpy(q.astype(np.float64))[None],
                                            torch.from_numpy(k.astype(np.float64))[None],
                                            freqs_cis)
        q64, k64 = qn(qr)[0].numpy(), qn(kr)[0].numpy()
        rms = [torch.sqrt(x.pow(2).mean(-1) + config.rms_norm_eps)[0].numpy() for x in (qr, kr)]

    def bound(x, y64, r, extra):
        e = _rotation_error(spec, pos, w_hf, m, x)[..., None] / (r[..., None] * (1 - 1e-6))
        b = e * (1 + np.abs(y64))
        return b + 2 * EPS24 * (np.abs(y64) + b) + extra * (np.abs(y64) + 2.0 ** -14)

    bq = bound(q, q64, rms[0], 0.0)
    err = np.abs(q_out.astype(np.float64) - q64)
    print(f"llama4 rotating: q worst {np.max(err / bq):.3g} of the bound")
    assert np.all(err <= bq), f"q: worst {np.max(err / bq):.3f} of the bound"
    bk = bound(k, k64, rms[1], 2.0 ** -11 if cache_dtype == "float16" else 0.0)
    _check_cache(k_cache, slots, k64, bk, "k")
    _check_cache(v_cache, slots, v.astype(np_ct).astype(np.float64), np.zeros_like(v), "v")
    _check_untouched((k_cache, v_cache), (before, before), slots)


def test_llama4_nope_layer_temperature(host_ctx, rng):
    config = LLAMA4_CONFIG
    spec, layer = sinpe.rope_model_layer("llama4-scout", 3)
    assert not layer.rotates and not config.no_rope_layers[3] and layer.temperature
    with open(importlib.util.find_spec("transformers.models.llama4.modeling_llama4").origin) as f:
        text = f.read()
    assert "if self.attn_temperature_tuning and not self.use_rope:" in text
    assert "if self.config.use_qk_norm and self.use_rope:" in text  # no norm on NoPE layers
    expr = re.search(r"attn_scales = \(\s*(torch\.log1p\(.*?\) \* self\.attn_scale \+ 1\.0)",
                     text, re.S).group(1)
    tokens, qh, kh, hd, rows = 14, 4, 2, layer.head_dim, 16
    q = rng.standard_normal((tokens, qh, hd)).astype(np.float32) * 3
    k = rng.standard_normal((tokens, kh, hd)).astype(np.float32)
    v = rng.standard_normal((tokens, kh, hd)).astype(np.float32)
    pos = np.concatenate((_positions(rng, tokens - 3), [8190, 8191, 2**31 - 2])).astype(np.int64)
    slots = _slots(rng, rows, tokens)
    before = rng.standard_normal((rows, kh, hd)).astype(np.float32)
    table = sinpe.RopeTable(host_ctx, spec, rows=16)
    q_out, k_cache, v_cache = table.attn_input_host(
        q, k, v, k_cache=before, v_cache=before, slot_mapping=slots, rotate=False,
        temperature=(layer.attn_scale, layer.floor_scale), positions=pos.astype(np.int32))
    table.release()
    self = types.SimpleNamespace(attn_scale=config.attn_scale, floor_scale=config.floor_scale)
    tau = eval(float64_source(expr), {"torch": torch, "self": self,  # noqa: S307
                                      "cache_position": torch.from_numpy(pos)}).numpy()
    q64 = q.astype(np.float64) * tau[:, None, None]
    bq = np.abs(q64) * (2.0 ** -21 + EPS24)
    err = np.abs(q_out.astype(np.float64) - q64)
    print(f"llama4 NoPE: q worst {np.max(err / bq):.3g} of the bound")
    assert np.all(err <= bq), f"q: worst {np.max(err / bq):.3f} of the bound"
    zero = np.zeros_like(k, np.float64)
    _check_cache(k_cache, slots, k.astype(np.float64), zero, "k")
    _check_cache(v_cache, slots, v.astype(np.float64), zero, "v")
    _check_untouched((k_cache, v_cache), (before, before), slots)


DEEPSEEK_CASES = {
    # DeepSeek-V3's published rope_scaling: mscale = mscale_all_dim, so m = 1
    "v3": (1.0, 1.0, "float32"),
    # the split with m != 1 (1.0 over 0.707: m = 1.086), into a fp16 cache
    "mscale-split": (1.0, 0.707, "float16"),
}


@pytest.mark.parametrize("case", sorted(DEEPSEEK_CASES))
def test_deepseek_v3_rotated_slice(host_ctx, rng, case):
    mscale, mscale_all_dim, cache_dtype = DEEPSEEK_CASES[case]
    config = DeepseekV3Config(
        num_hidden_layers=61, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128,
        rope_theta=10000.0, max_position_embeddings=163840,
        rope_scaling={"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                      "beta_fast": 32, "beta_slow": 1, "mscale": mscale,
                      "mscale_all_dim": mscale_all_dim})
    assert config.rope_interleave
    spec, layer = sinpe.rope_model_layer("deepseek-v3", 0)
    spec.mscale, spec.mscale_all_dim = mscale, mscale_all_dim
    nope, R, hd = config.qk_nope_head_dim, config.qk_rope_head_dim, config.qk_head_dim
    assert (layer.rotary_offset, spec.rotary_dim, layer.head_dim) == (nope, R, hd)
    tokens, heads, rows = 11, 4, 16
    q = rng.standard_normal((tokens, heads, hd)).astype(np.float32) * 3
    k_pass = rng.standard_normal((tokens, heads, nope)).astype(np.float32) * 3
    k_rot = rng.standard_normal((tokens, R)).astype(np.float32) * 3
    v = rng.standard_normal((tokens, heads, config.v_head_dim)).astype(np.float32)
    k_in = np.concatenate((k_pass, np.repeat(k_rot[:, None], heads, 1)), -1)
    v_in = np.pad(v, ((0, 0), (0, 0), (0, hd - config.v_head_dim)))
    pos, slots = _positions(rng, tokens), _slots(rng, rows, tokens)
    np_ct = NP_CACHE[cache_dtype]
    before = rng.standard_normal((rows, heads, hd)).astype(np_ct)
    table = sinpe.RopeTable(host_ctx, spec, rows=64)
    q_out, k_cache, v_cache = table.attn_input_host(
        q, k_in, v_in, k_cache=before, v_cache=before, slot_mapping=slots,
        positions=pos.astype(np.int32), cache_dtype=cache_dtype,
        rotary_offset=layer.rotary_offset)
    table.release()

    # HF: DeepseekV3Attention.forward's steps in [batch, heads, tokens, dim]
    w_hf, m = _frequencies(config, "yarn")
    assert spec.frequencies()[1] == pytest.approx(m, rel=1e-15, abs=0)
    angle = torch.from_numpy(pos.astype(np.float64))[:, None] * torch.from_numpy(w_hf)[None]
    emb = torch.cat((angle, angle), dim=-1)
    cos, sin = (emb.cos() * m)[None], (emb.sin() * m)[None]
    q_states = torch.from_numpy(q.astype(np.float64)).transpose(0, 1)[None]
    q_pass, q_rot = torch.split(q_states, [nope, R], dim=-1)
    k_pass_t = torch.from_numpy(k_pass.astype(np.float64)).transpose(0, 1)[None]
    k_rot_t = torch.from_numpy(k_rot.astype(np.float64)).view(1, 1, tokens, R)
    q_rot, k_rot_t = DEEPSEEK["apply_rotary_pos_emb_interleave"](q_rot, k_rot_t, cos, sin)
    k_rot_t = k_rot_t.expand(*k_pass_t.shape[:-1], -1)
    q64 = torch.cat((q_pass, q_rot), dim=-1)[0].transpose(0, 1).numpy()
    k64 = torch.cat((k_pass_t, k_rot_t), dim=-1)[0].transpose(0, 1).numpy()

    def to_hf(x):  # sinpe's slice pairs (2k, 2k + 1) to HF's (k, k + R/2)
        x = np.asarray(x, np.float64)
        return np.concatenate((x[..., :nope], x[..., nope::2], x[..., nope + 1::2]), -1)

    half = 2.0 ** -11 if cache_dtype == "float16" else 0.0
    bq = np.zeros_like(q64)
    bq[..., nope:] = _rotation_error(spec, pos, w_hf, m, q[..., nope:])[..., None]
    bk = np.zeros_like(k64)
    bk[..., nope:] = _rotation_error(spec, pos, w_hf, m, k_in[..., nope:])[..., None]
    err = np.abs(to_hf(q_out) - q64)
    print(f"deepseek {case}: q worst {np.max(err / np.maximum(bq, 1e-300)):.3g} of the bound")
    assert np.all(err <= bq), f"q: worst {np.max(err / np.maximum(bq, 1e-300)):.3f}"
    bk_cache = bk + half * (np.abs(k64) + 2.0 ** -14)  # fp16's subnormals: 2^-25 apart
    _check_cache(np.stack([to_hf(r) for r in k_cache]), slots, k64, bk_cache, "k")
    _check_cache(v_cache, slots, v_in.astype(np_ct).astype(np.float64), np.zeros_like(v_in),
                 "v")
    assert np.all(v_cache[slots[slots >= 0]][..., config.v_head_dim:] == 0)
    _check_untouched((k_cache, v_cache), (before, before), slots)

    # The scores, unpermuted, with each side's softmax scale
    g = DEEPSEEK["yarn_get_mscale"](config.rope_scaling["factor"], mscale_all_dim)
    scale_hf = hd ** -0.5 * g * g
    scale = hd ** -0.5 * spec.softmax_factor()
    assert scale == pytest.approx(scale_hf, rel=1e-15, abs=0)
    for t in np.flatnonzero(slots >= 0):
        kc = k_cache[slots[t]].astype(np.float64)  # [heads, hd], sinpe's column order
        got = scale * np.einsum("uhc,hc->uh", q_out.astype(np.float64), kc)
        want = scale_hf * np.einsum("uhc,hc->uh", q64, k64[t])
        bound = scale_hf * (np.einsum("uhc,hc->uh", bq, np.abs(k64[t]))
                            + np.einsum("uhc,hc->uh", np.abs(q64), bk_cache[t])
                            + np.einsum("uhc,hc->uh", bq, bk_cache[t])
                            + 1e-12 * np.einsum("uhc,hc->uh", np.abs(q64), np.abs(k64[t])))
        assert np.all(np.abs(got - want) <= bound), (t, float(np.max(np.abs(got - want) / bound)))
