"""sinpe's rotary embeddings against HF transformers' own code, in float64.

HF's rotary code hard-codes float32 (`.float()`, `dtype=torch.float`,
`torch.float32`), which would make it the less exact side of the
comparison.  So these tests take the source of HF's functions and run a
float64 transform of it: `.float()` becomes `.double()` and
`torch.float32` / `torch.float` become `torch.float64`; nothing else
changes.  The functions used:

  transformers.modeling_rope_utils: ROPE_INIT_FUNCTIONS (every rule's
      inv_freq and attention factor), the whole module's source executed
      in a namespace of its own;
  transformers.models.llama.modeling_llama: rotate_half and
      apply_rotary_pos_emb (HALVES pairing);
  transformers.models.gptj.modeling_gptj: rotate_every_two and
      apply_rotary_pos_emb (INTERLEAVED pairing, GPT-J's).

The model files are read as text and the named functions taken from their
syntax tree (ast), not imported: transformers releases that have every
YaRN option (mscale, mscale_all_dim, truncate) declare torch >= 2 and do
not import their model modules on an older torch (Debian's 1.13), while
these functions need only tensor operations.  For the same reason `torch`
is put into each namespace (the module itself imports torch only when its
version check passes).

The configs are transformers.LlamaConfig objects with rope_scaling as the
installed release reads it (rope_parameters for releases that have it).
The plain float32 run of ROPE_INIT_FUNCTIONS gives HF's float32 inv_freq
for the inv_freq-as-given check (bit for bit).

Checks, for every rule (default, linear, dynamic below and above
max_position_embeddings, yarn with the default attention factor, with
mscale/mscale_all_dim, with truncate=False, llama3, longrope short and
long) and both pairings:
  frequencies: sinpe's float64 w_k against HF-float64 inv_freq (relative
      1e-15) and the attention factor (relative 1e-15);
  table: sinpe's float32 cos/sin against cos and sin of HF-float64 angles
      p * inv_freq times the factor, within the header's bound
      (1.5e-7 + 2^-53 |angle|) m plus p |w_sinpe - w_hf| m (the header's
      bound is relative to sinpe's own w), at positions up to 2^24;
  rotation: sinpe's rotation of random float32 q and k against HF's
      apply_rotary_pos_emb in float64 on the same inputs, within the bound
      of rope_reference.py (about one float32 ulp of m max|x| plus the
      table's bound on |x|).
Skipped, with the reason, only when transformers or torch cannot be
imported (make check-python installs the release it pins).
"""

import importlib.util
import inspect
import math
import typing

import numpy as np
import pytest

import sinpe
from framework_source import float64_source, load_source
from rope_reference import rotation_bound, table_bound

try:
    import torch
    import transformers
    from transformers import LlamaConfig
    from transformers import modeling_rope_utils as HF_ROPE
except Exception as e:  # noqa: BLE001 - any import failure means: cannot run
    pytest.skip(f"HF transformers cannot be imported ({type(e).__name__}: {e}); "
                f"make check-python installs it", allow_module_level=True)


def _namespace(module_name):
    return {"__name__": module_name + "_float64", "__package__": module_name.rpartition(".")[0],
            "torch": torch, "math": math}


def load_rope_utils(f64):
    """modeling_rope_utils executed from its own source (float64 or not)."""
    text = inspect.getsource(HF_ROPE)
    ns = _namespace(HF_ROPE.__name__)
    exec(compile(float64_source(text) if f64 else text, HF_ROPE.__file__, "exec"), ns)
    return ns


def load_functions(module_name, names):
    """The named functions, classes or "Class.method"s of a transformers
    module, from its file, float64-transformed (framework_source.py)."""
    ns = _namespace(module_name)
    ns.update({k: v for k, v in vars(typing).items() if not k.startswith("_")}, nn=torch.nn)
    return load_source(importlib.util.find_spec(module_name).origin, names, ns)


HF64 = load_rope_utils(True)
HF32 = load_rope_utils(False)
LLAMA = load_functions("transformers.models.llama.modeling_llama",
                       ["rotate_half", "apply_rotary_pos_emb"])
GPTJ = load_functions("transformers.models.gptj.modeling_gptj",
                      ["rotate_every_two", "apply_rotary_pos_emb"])

HEAD_DIM = 128
LONG_SHORT = [1.0 + 0.05 * i for i in range(HEAD_DIM // 2)]
LONG_LONG = [1.0 + 0.6 * i ** 1.3 for i in range(HEAD_DIM // 2)]


def make_config(base, rope, max_pos=8192, partial=1.0, **extra):
    """A LlamaConfig with rope_scaling (or rope_parameters) rope."""
    kw = dict(hidden_size=HEAD_DIM * 8, num_attention_heads=8, num_key_value_heads=2,
              head_dim=HEAD_DIM, max_position_embeddings=max_pos, **extra)
    if partial != 1.0:
        kw["partial_rotary_factor"] = partial
    params = inspect.signature(LlamaConfig.__init__).parameters
    if "rope_parameters" in params:
        kw["rope_parameters"] = {"rope_theta": base, "rope_type": "default", **(rope or {})}
    else:
        kw["rope_theta"] = base
        kw["rope_scaling"] = rope
    return LlamaConfig(**kw)


def longrope_case(name, length):
    """Phi-3's longrope (orig 4096, max 131072) at sequence length length:
    the short factors up to orig, the long ones past it."""
    config = make_config(10000.0, {"rope_type": "longrope", "short_factor": LONG_SHORT,
                                   "long_factor": LONG_LONG, "factor": 32.0}, 131072,
                         original_max_position_embeddings=4096)
    return (name, config, length,
            dict(rotary_dim=128, rule="longrope", original_max_positions=4096,
                 max_positions=131072, length=length, short_factor=LONG_SHORT,
                 long_factor=LONG_LONG))


# (id, HF config, HF seq_len, sinpe rope_spec fields)
CASES = [
    ("default", make_config(10000.0, None), None, dict(rotary_dim=128)),
    ("default-partial", make_config(10000.0, None, partial=0.25), None, dict(rotary_dim=32)),
    ("linear", make_config(10000.0, {"rope_type": "linear", "factor": 4.0}), None,
     dict(rotary_dim=128, rule="linear", factor=4.0)),
    ("dynamic-short", make_config(10000.0, {"rope_type": "dynamic", "factor": 2.0}, 4096),
     1000, dict(rotary_dim=128, rule="dynamic", factor=2.0, max_positions=4096, length=1000)),
    ("dynamic-long", make_config(500000.0, {"rope_type": "dynamic", "factor": 3.0}, 4096),
     20000, dict(rotary_dim=128, base=500000.0, rule="dynamic", factor=3.0,
                 max_positions=4096, length=20000)),
    ("yarn", make_config(1e6, {"rope_type": "yarn", "factor": 4.0,
                               "original_max_position_embeddings": 32768}, 131072), None,
     dict(rotary_dim=128, base=1e6, rule="yarn", factor=4.0, original_max_positions=32768)),
    ("yarn-mscale", make_config(10000.0, {"rope_type": "yarn", "factor": 40.0, "mscale": 1.0,
                                          "mscale_all_dim": 0.707, "beta_fast": 32.0,
                                          "beta_slow": 1.0,
                                          "original_max_position_embeddings": 4096}, 163840),
     None, dict(rotary_dim=128, rule="yarn", factor=40.0, mscale=1.0, mscale_all_dim=0.707,
                original_max_positions=4096)),
    ("yarn-notruncate", make_config(150000.0, {"rope_type": "yarn", "factor": 32.0,
                                               "beta_fast": 24.0, "beta_slow": 2.0,
                                               "truncate": False,
                                               "original_max_position_embeddings": 4096},
                                    131072),
     None, dict(rotary_dim=128, base=150000.0, rule="yarn", factor=32.0, beta_fast=24.0,
                beta_slow=2.0, truncate=False, original_max_positions=4096)),
    ("llama3", make_config(500000.0, {"rope_type": "llama3", "factor": 8.0,
                                      "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                      "original_max_position_embeddings": 8192}, 131072),
     None, dict(rotary_dim=128, base=500000.0, rule="llama3", factor=8.0,
                low_freq_factor=1.0, high_freq_factor=4.0, original_max_positions=8192)),
    longrope_case("longrope-short", 2000),
    longrope_case("longrope-long", 131072),
]
IDS = [c[0] for c in CASES]


def rope_type(config):
    rope = getattr(config, "rope_parameters", None) or getattr(config, "rope_scaling", None)
    return (rope or {}).get("rope_type", "default")


def hf_frequencies(ns, config, seq_len):
    """(inv_freq as a NumPy array, attention factor) from ns's
    ROPE_INIT_FUNCTIONS."""
    fn = ns["ROPE_INIT_FUNCTIONS"][rope_type(config)]
    inv_freq, att = fn(config, "cpu", seq_len) if seq_len is not None else fn(config, "cpu")
    return inv_freq.numpy(), float(att)


def test_release_has_every_rule():
    print(f"transformers {transformers.__version__}, torch {torch.__version__}")
    assert {"default", "linear", "dynamic", "yarn", "llama3", "longrope"} <= set(
        HF64["ROPE_INIT_FUNCTIONS"])
    yarn_src = inspect.getsource(HF_ROPE._compute_yarn_parameters)
    assert "mscale_all_dim" in yarn_src and "truncate" in yarn_src


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_frequencies_match_hf_float64(case):
    _, config, seq_len, fields = case
    w_hf, m_hf = hf_frequencies(HF64, config, seq_len)
    assert w_hf.dtype == np.float64
    w, m = sinpe.rope_spec(**fields).frequencies()
    assert w.shape == w_hf.shape
    rel = np.abs(w - w_hf) / w_hf
    print(f"max relative difference {rel.max():.3g}, attention {m!r} vs {m_hf!r}")
    assert rel.max() <= 1e-15
    assert m == pytest.approx(m_hf, rel=1e-15, abs=0)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_inv_freq_as_given_is_hf_float32_bit_for_bit(case):
    _, config, seq_len, fields = case
    w32, m32 = hf_frequencies(HF32, config, seq_len)
    assert w32.dtype == np.float32
    w, m = sinpe.rope_spec(**fields, inv_freq=w32).frequencies()
    assert np.array_equal(w, w32.astype(np.float64))
    assert m == pytest.approx(m32, rel=1e-7)  # HF's factor is a Python float here too


POSITIONS = [0, 1000, 65531, 1 << 20, (1 << 24) - 16]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_table_matches_hf_float64_angles(host_ctx, rng, case):
    _, config, seq_len, fields = case
    w_hf, m_hf = hf_frequencies(HF64, config, seq_len)
    spec = sinpe.rope_spec(**fields)
    w, m = spec.frequencies()
    table = host_ctx.rope_table(spec, rows=2048)
    row0s = POSITIONS + [int(rng.integers(0, 1 << 24))]
    for row0 in row0s:
        pos = np.arange(row0, row0 + 16, dtype=np.float64)
        # HF's angles: inv_freq @ positions (an outer product), here in float64.
        angle = pos[:, None] * w_hf[None, :]
        bound = table_bound(angle, m_hf) + pos[:, None] * np.abs(w - w_hf)[None, :] * m_hf
        got = table.read_rows(row0, 16).astype(np.float64)
        half = w.size
        for name, ref, col in (("cos", np.cos(angle) * m_hf, got[:, :half]),
                               ("sin", np.sin(angle) * m_hf, got[:, half:])):
            err = np.abs(col - ref)
            assert np.all(err <= bound), (row0, name, float((err / bound).max()))


def hf_rotate_halves(q, k, angle, m, R):
    """q [tokens, heads, head_dim] and k through HF llama's
    apply_rotary_pos_emb in float64, on the first R columns (the rest
    passes, as the partial-rotary models split it)."""
    emb = np.concatenate([angle, angle], axis=-1)
    cos = torch.from_numpy(np.cos(emb) * m)[None]
    sin = torch.from_numpy(np.sin(emb) * m)[None]
    qt = torch.from_numpy(q.astype(np.float64)).permute(1, 0, 2)[None]
    kt = torch.from_numpy(k.astype(np.float64)).permute(1, 0, 2)[None]
    qr, kr = LLAMA["apply_rotary_pos_emb"](qt[..., :R], kt[..., :R], cos, sin)
    qr = torch.cat([qr, qt[..., R:]], -1)
    kr = torch.cat([kr, kt[..., R:]], -1)
    return qr[0].permute(1, 0, 2).numpy(), kr[0].permute(1, 0, 2).numpy()


def hf_rotate_interleaved(x, angle, m, R):
    """x [tokens, heads, head_dim] through GPT-J's apply_rotary_pos_emb in
    float64 (sin and cos [batch, tokens, R/2], x [batch, tokens, heads, R])."""
    cos = torch.from_numpy(np.cos(angle) * m)[None]
    sin = torch.from_numpy(np.sin(angle) * m)[None]
    xt = torch.from_numpy(x.astype(np.float64))[None]
    y = GPTJ["apply_rotary_pos_emb"](xt[..., :R], sin, cos)
    return torch.cat([y, xt[..., R:]], -1)[0].numpy()


@pytest.mark.parametrize("pairing", ["halves", "interleaved"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rotation_matches_hf_float64(host_ctx, rng, case, pairing):
    _, config, seq_len, fields = case
    w_hf, m_hf = hf_frequencies(HF64, config, seq_len)
    spec = sinpe.rope_spec(**fields, pairing=pairing)
    w, m = spec.frequencies()
    R = spec.rotary_dim
    table = host_ctx.rope_table(spec, rows=256)
    tokens, hq, hk = 24, 4, 2
    q = rng.standard_normal((tokens, hq, HEAD_DIM)).astype(np.float32)
    k = rng.standard_normal((tokens, hk, HEAD_DIM)).astype(np.float32)
    pos = np.concatenate([np.arange(8), rng.integers(0, 1 << 24, tokens - 9),
                          [(1 << 24) - 1]]).astype(np.int64)
    qr, kr = table.rotate_host(q, k, positions=pos)
    angle = pos[:, None].astype(np.float64) * w_hf[None, :]
    if pairing == "halves":
        q_hf, k_hf = hf_rotate_halves(q, k, angle, m_hf, R)
    else:
        q_hf = hf_rotate_interleaved(q, angle, m_hf, R)
        k_hf = hf_rotate_interleaved(k, angle, m_hf, R)
    table_error = (table_bound(angle, m_hf)
                   + pos[:, None] * np.abs(w - w_hf)[None, :] * m_hf)
    for name, x, got, ref in (("q", q, qr, q_hf), ("k", k, kr, k_hf)):
        maxabs = float(np.abs(x).max())
        bound = rotation_bound(angle, m_hf, maxabs, table_error).max(axis=1)[:, None, None]
        err = np.abs(got.astype(np.float64) - ref)
        assert np.all(err <= bound), (name, float((err / bound).max()))
        np.testing.assert_array_equal(got[..., R:], x[..., R:])
