"""sinpe's model rules (sinpe.rope_model_layer()) against HF transformers'
own code, in float64.

Each model's published configuration is built as HF's config object (no
weights): Qwen3Config (Qwen3-8B), Gemma3TextConfig (gemma-3-27b),
DeepseekV3Config (DeepSeek-V3), GptOssConfig (gpt-oss-120b, its
defaults), Llama4TextConfig (Llama-4-Scout-17B-16E).  From HF's code, run
in the float64 transform of framework_source.py:
  the layer pattern: the config's layer_types, and Llama 4's
      no_rope_layers (its attention rotates where the entry is 1);
  the frequencies and attention factor: modeling_rope_utils'
      ROPE_INIT_FUNCTIONS for the layer's rope parameters (Gemma 3's
      sliding layers: rope_local_base_freq and the default rule, as
      Gemma3TextModel builds rotary_emb_local);
  the rotation: each model file's own apply function (Qwen3's and Gemma
      3's apply_rotary_pos_emb, gpt-oss's _apply_rotary_emb, DeepSeek-V3's
      apply_rotary_pos_emb_interleave, Llama 4's complex apply_rotary_emb);
  DeepSeek's softmax factor: yarn_get_mscale from its model file, squared
      as DeepseekV3Attention.__init__ does (the line is checked in the
      source);
  Llama 4's temperature: the expression of Llama4TextAttention.forward,
      taken from its source and evaluated in float64.
Gemma 4 is not in the pinned transformers (4.57.6): its reference is its
definition (HF main's _compute_proportional_rope_parameters and vLLM's
gemma4_rope.py: w_k = base^(-2k / head_dim) for k < floor(0.25 head_dim /
2), 0 for the others, rotate_half over the whole head) written here in
float64.

Bounds: the table within the header's (1.5e-7 + 2^-53 |angle|) m plus p
|w_sinpe - w_hf| m, at positions up to 2^24; the rotation within
rope_reference.rotation_bound (one float32 ulp of m max|x| and twice the
table's bound times max|x|).
"""

import importlib.util
import inspect
import math
import re
import types
import typing

import numpy as np
import pytest

import sinpe
from framework_source import float64_source, load_source
from rope_reference import rotate64, rotation_bound, table_bound

try:
    import torch
    from transformers import (DeepseekV3Config, Gemma3TextConfig, GptOssConfig,
                              Llama4TextConfig, Qwen3Config)
    from transformers import modeling_rope_utils as HF_ROPE
except Exception as e:  # noqa: BLE001 - any import failure means: cannot run
    pytest.skip(f"HF transformers cannot be imported ({type(e).__name__}: {e}); "
                f"make check-python installs it", allow_module_level=True)

MODELS = "transformers.models"


def _ns(module_name):
    ns = {"__name__": module_name + "_float64", "__package__": module_name.rpartition(".")[0],
          "torch": torch, "math": math, "nn": torch.nn}
    ns.update({k: v for k, v in vars(typing).items() if not k.startswith("_")})
    return ns


def model_file(name):
    return importlib.util.find_spec(f"{MODELS}.{name}.modeling_{name}").origin


def functions(name, names):
    return load_source(model_file(name), names, _ns(f"{MODELS}.{name}"))


ROPE = _ns(HF_ROPE.__name__)
exec(compile(float64_source(inspect.getsource(HF_ROPE)), HF_ROPE.__file__, "exec"), ROPE)

CONFIGS = {
    "qwen3": Qwen3Config(num_hidden_layers=36, hidden_size=4096, num_attention_heads=32,
                         num_key_value_heads=8, head_dim=128, rope_theta=1000000.0,
                         max_position_embeddings=40960),
    "gemma3": Gemma3TextConfig(num_hidden_layers=62, hidden_size=5376, num_attention_heads=32,
                               num_key_value_heads=16, head_dim=128, rope_theta=1000000.0,
                               rope_local_base_freq=10000.0, sliding_window=1024,
                               rope_scaling={"rope_type": "linear", "factor": 8.0},
                               max_position_embeddings=131072),
    "deepseek-v3": DeepseekV3Config(
        num_hidden_layers=61, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128,
        rope_theta=10000.0, max_position_embeddings=163840,
        rope_scaling={"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                      "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0}),
    "gpt-oss": GptOssConfig(),
    "llama4-scout": Llama4TextConfig(
        num_hidden_layers=48, head_dim=128, rope_theta=500000.0,
        rope_scaling={"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                      "high_freq_factor": 1.0, "original_max_position_embeddings": 8192}),
}
HF_MODELS = list(CONFIGS)


def hf_layer_config(name, layer):
    """(config whose rope ROPE_INIT_FUNCTIONS reads, rotates) of a layer."""
    config = CONFIGS[name]
    if name == "gemma3" and config.layer_types[layer] == "sliding_attention":
        local = config.__class__(**config.to_dict())
        local.rope_theta = config.rope_local_base_freq
        local.rope_scaling = {"rope_type": "default"}
        return local, True
    if name == "llama4-scout":
        return config, bool(config.no_rope_layers[layer])
    return config, True


def hf_frequencies(config):
    rope = getattr(config, "rope_scaling", None) or {}
    inv, att = ROPE["ROPE_INIT_FUNCTIONS"][rope.get("rope_type", "default")](config, "cpu")
    return inv.numpy(), float(att)


def gemma4_reference(full):
    """Gemma 4's frequencies from their definition, float64: the sliding
    layers' default rule over head_dim 256, the full layers' proportional
    rule over global_head_dim 512 with 64 rotated pairs."""
    if not full:
        return 10000.0 ** (-np.arange(0, 256, 2) / 256.0), 1.0
    w = np.zeros(256)
    w[:64] = 1e6 ** (-np.arange(0, 128, 2) / 512.0)
    return w, 1.0


def test_pinned_release_lacks_gemma4():
    """Gemma 4's reference is its definition only while the pinned
    transformers has no gemma4 (then this test tells to use HF's)."""
    assert importlib.util.find_spec(f"{MODELS}.gemma4") is None
    assert "proportional" not in ROPE["ROPE_INIT_FUNCTIONS"]


@pytest.mark.parametrize("name", HF_MODELS)
def test_layer_pattern_matches_hf(name):
    config = CONFIGS[name]
    kinds = {"full_attention": sinpe.LAYER_FULL, "sliding_attention": sinpe.LAYER_SLIDING,
             "chunked_attention": sinpe.LAYER_CHUNKED}
    types_ = getattr(config, "layer_types", None) or ["full_attention"] * config.num_hidden_layers
    for i in range(config.num_hidden_layers):
        spec, layer = sinpe.rope_model_layer(name, i)
        assert layer.layers == config.num_hidden_layers
        assert layer.type == kinds[types_[i]], i
        assert bool(layer.rotates) == hf_layer_config(name, i)[1], i
        window = {"sliding_attention": getattr(config, "sliding_window", 0),
                  "chunked_attention": getattr(config, "attention_chunk_size", 0)}
        assert layer.window == window.get(types_[i], 0), i
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.rope_model_layer(name, config.num_hidden_layers)
    assert e.value.status == sinpe.INVALID_SHAPE


@pytest.mark.parametrize("name", HF_MODELS)
def test_frequencies_match_hf_float64(name):
    config = CONFIGS[name]
    for i in range(config.num_hidden_layers):
        spec, layer = sinpe.rope_model_layer(name, i)
        hf_config, _ = hf_layer_config(name, i)
        w_hf, m_hf = hf_frequencies(hf_config)
        w, m = spec.frequencies()
        assert w.shape == w_hf.shape
        assert np.all(np.abs(w - w_hf) <= 1e-15 * w_hf), (i, float(np.abs(w / w_hf - 1).max()))
        assert m == pytest.approx(m_hf, rel=1e-15, abs=0)


def test_deepseek_softmax_factor_matches_hf():
    with open(model_file("deepseek_v3")) as f:
        src = f.read()
    assert "self.scaling = self.scaling * mscale * mscale" in src
    ns = functions("deepseek_v3", ["yarn_get_mscale"])
    rope = CONFIGS["deepseek-v3"].rope_scaling
    g = ns["yarn_get_mscale"](rope["factor"], rope["mscale_all_dim"])
    spec, layer = sinpe.rope_model_layer("deepseek-v3", 0)
    assert layer.softmax_factor == pytest.approx(g * g, rel=1e-15, abs=0)
    assert spec.softmax_factor() == layer.softmax_factor
    assert (layer.head_dim, layer.rotary_offset, spec.rotary_dim) == (
        CONFIGS["deepseek-v3"].qk_head_dim, CONFIGS["deepseek-v3"].qk_nope_head_dim, 64)
    for name in HF_MODELS[:2] + HF_MODELS[3:]:
        assert sinpe.rope_model_layer(name, 0)[1].softmax_factor == 1.0


def test_llama4_temperature_matches_hf_expression():
    with open(model_file("llama4")) as f:
        text = f.read()
    assert "if self.attn_temperature_tuning and not self.use_rope:" in text
    expr = re.search(r"attn_scales = \(\s*(torch\.log1p\(.*?\) \* self\.attn_scale \+ 1\.0)",
                     text, re.S).group(1)
    config = CONFIGS["llama4-scout"]
    spec, layer = sinpe.rope_model_layer("llama4-scout", 3)
    assert layer.temperature and not layer.rotates
    assert (layer.attn_scale, layer.floor_scale) == (config.attn_scale, config.floor_scale)
    pos = np.array([0, 1, 8190, 8191, 8192, 16383, 65535, 1 << 20, (1 << 24) - 1, 1 << 24,
                    2**31 - 2, 2**31 - 1], np.int64)
    self = types.SimpleNamespace(attn_scale=config.attn_scale, floor_scale=config.floor_scale)
    hf = eval(float64_source(expr), {"torch": torch, "self": self,  # noqa: S307
                                     "cache_position": torch.from_numpy(pos)}).numpy()
    got = np.array(sinpe.temperature(pos.tolist(), layer.attn_scale, layer.floor_scale))
    print("temperature at", pos.tolist(), got.tolist())
    np.testing.assert_array_equal(got, hf)
    assert sinpe.temperature(-5) == 1.0


POSITIONS = [0, 1000, 65531, 1 << 20, (1 << 24) - 16]


def rotating_layers(name):
    """The first layer of each rotating layer type."""
    seen, out = set(), []
    for i in range(sinpe.rope_model_layer(name, 0)[1].layers):
        spec, layer = sinpe.rope_model_layer(name, i)
        if layer.rotates and layer.type not in seen:
            seen.add(layer.type)
            out.append(i)
    return out


def layer_cases(name, host_ctx, rows):
    """(layer, spec, layer info, sinpe's w, the reference's w and m, a table
    of rows) for the first layer of each rotating type."""
    for i in rotating_layers(name):
        spec, layer = sinpe.rope_model_layer(name, i)
        if name == "gemma4":
            w_hf, m_hf = gemma4_reference(layer.type == sinpe.LAYER_FULL)
        else:
            w_hf, m_hf = hf_frequencies(hf_layer_config(name, i)[0])
        yield i, spec, layer, spec.frequencies()[0], w_hf, m_hf, host_ctx.rope_table(spec,
                                                                                     rows=rows)


ALL = HF_MODELS + ["gemma4"]


@pytest.mark.parametrize("name", ALL)
def test_table_rows_within_bound(host_ctx, rng, name):
    for i, spec, _, w, w_hf, m_hf, table in layer_cases(name, host_ctx, 2048):
        half, worst = w.size, 0.0
        for row0 in POSITIONS + [int(rng.integers(0, 1 << 24))]:
            pos = np.arange(row0, row0 + 16, dtype=np.float64)
            angle = pos[:, None] * w_hf[None, :]
            bound = table_bound(angle, m_hf) + pos[:, None] * np.abs(w - w_hf)[None, :] * m_hf
            got = table.read_rows(row0, 16).astype(np.float64)
            for part, ref, col in (("cos", np.cos(angle) * m_hf, got[:, :half]),
                                   ("sin", np.sin(angle) * m_hf, got[:, half:])):
                err = np.abs(col - ref)
                worst = max(worst, float((err / bound).max()))
                assert np.all(err <= bound), (i, row0, part, float((err / bound).max()))
            if name == "gemma4" and w[-1] == 0:  # the unrotated pairs: exactly 1 and 0
                assert np.all(got[:, 64:half] == 1.0) and np.all(got[:, half + 64:] == 0.0)
        print(f"{name} layer {i}: table max error / bound {worst:.3g}")


def hf_rotate(name, q, angle, m):
    """q [tokens, heads, R] through the model's own apply function in float64."""
    c, s = np.cos(angle) * m, np.sin(angle) * m
    x = torch.from_numpy(q.astype(np.float64))
    if name == "llama4-scout":
        fn = functions("llama4", ["apply_rotary_emb"])["apply_rotary_emb"]
        cis = torch.from_numpy(c + 1j * s)[None]
        return fn(x[None], x[None], cis)[0][0].numpy()
    xt = x.permute(1, 0, 2)[None]
    if name == "gpt-oss":
        ns = functions("gpt_oss", ["_apply_rotary_emb", "apply_rotary_pos_emb"])
        cos, sin = torch.from_numpy(c)[None], torch.from_numpy(s)[None]
    else:
        module = {"qwen3": "qwen3", "gemma3": "gemma3", "deepseek-v3": "deepseek_v3"}[name]
        fns = ["rotate_half", "apply_rotary_pos_emb_interleave" if name == "deepseek-v3"
               else "apply_rotary_pos_emb"]
        ns = functions(module, fns)
        cos = torch.from_numpy(np.concatenate([c, c], -1))[None]
        sin = torch.from_numpy(np.concatenate([s, s], -1))[None]
    fn = ns[[f for f in ns if f.startswith("apply_rotary_pos_emb")][0]]
    y, _ = fn(xt, xt, cos, sin)
    return y[0].permute(1, 0, 2).numpy()


@pytest.mark.parametrize("name", ALL)
def test_rotation_matches_hf_float64(host_ctx, rng, name):
    for i, spec, layer, w, w_hf, m_hf, table in layer_cases(name, host_ctx, 256):
        R, off = spec.rotary_dim, layer.rotary_offset
        tokens = 20
        head = rng.standard_normal((tokens, 3, layer.head_dim)).astype(np.float32)
        pos = np.concatenate([np.arange(6), rng.integers(0, 1 << 24, tokens - 7),
                              [(1 << 24) - 1]]).astype(np.int64)
        part = np.ascontiguousarray(head[..., off:off + R])  # the rotated slice of a head
        got, _ = table.rotate_host(part, positions=pos)
        angle = pos[:, None].astype(np.float64) * w_hf[None, :]
        if name == "gemma4":
            ref = rotate64(part, angle, m_hf, R, "halves")
        else:
            ref = hf_rotate(name, part, angle, m_hf)
        if name == "deepseek-v3":  # HF writes pair k to k and k + R/2, sinpe to 2k and 2k + 1
            got = np.concatenate([got[..., 0::2], got[..., 1::2]], -1)
        table_error = table_bound(angle, m_hf) + pos[:, None] * np.abs(w - w_hf)[None, :] * m_hf
        maxabs = float(np.abs(part).max())
        bound = rotation_bound(angle, m_hf, maxabs, table_error).max(axis=1)[:, None, None]
        err = np.abs(got.astype(np.float64) - ref)
        print(f"{name} layer {i}: max error / bound {float((err / bound).max()):.3g}")
        assert np.all(err <= bound), (i, float((err / bound).max()))
