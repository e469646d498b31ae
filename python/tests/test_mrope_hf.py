"""sinpe's multimodal and 2-D rotation against HF transformers' own code in
float64 (the float64 transform of test_rope_hf.py).

The functions used, taken from the model files' syntax trees:
  qwen2_vl, qwen2_5_vl: rotate_half, apply_multimodal_rotary_pos_emb
      (blocked sections); qwen2_vl: apply_rotary_pos_emb_vision and
      VisionRotaryEmbedding (the vision tower's 2-D rope);
  qwen3_vl: Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope (the
      interleaved lanes), rotate_half and apply_rotary_pos_emb.
The text rotary classes' forward is a product of inv_freq (HF's
ROPE_INIT_FUNCTIONS in float64) and each lane's positions, then cos and
sin of cat(freqs, freqs): formed here in float64 as they write it.
Positions: a mixed prompt (text, an image's t/h/w grid as get_rope_index
lays it out, text after it) and random lanes up to 2^24.  Bound: as
test_rope_hf.py's rotation (rope_reference.rotation_bound).
"""

import importlib.util
import typing

import numpy as np
import pytest

import sinpe
from framework_source import load_source
from rope_reference import rotation_bound
from test_rope_hf import HF64, _namespace, load_functions, make_config, torch

QWEN2 = load_functions("transformers.models.qwen2_vl.modeling_qwen2_vl",
                       ["rotate_half", "apply_multimodal_rotary_pos_emb",
                        "apply_rotary_pos_emb_vision"])
QWEN25 = load_functions("transformers.models.qwen2_5_vl.modeling_qwen2_5_vl",
                        ["rotate_half", "apply_multimodal_rotary_pos_emb"])
QWEN3 = load_functions("transformers.models.qwen3_vl.modeling_qwen3_vl",
                       ["rotate_half", "apply_rotary_pos_emb"])


INTERLEAVE = load_functions("transformers.models.qwen3_vl.modeling_qwen3_vl",
                            ["Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope"])[
    "apply_interleaved_mrope"]
VISION_ROPE = load_functions("transformers.models.qwen2_vl.modeling_qwen2_vl",
                             ["VisionRotaryEmbedding"])["VisionRotaryEmbedding"]


def mixed_prompt(rng, n_random):
    """Lanes [3, tokens]: 5 text tokens, a 1 x 4 x 6 image grid (t = h = w
    = 5 at its first token), 4 text tokens after it (from max + 1), then
    n_random tokens of random lanes below 2^24."""
    text = np.arange(5)
    grid_h, grid_w = np.meshgrid(np.arange(4), np.arange(6), indexing="ij")
    img = np.stack([np.full(24, 5), 5 + grid_h.ravel(), 5 + grid_w.ravel()])
    after = 5 + 6 + np.arange(4)
    lanes = np.concatenate([np.stack([text] * 3), img, np.stack([after] * 3),
                            rng.integers(0, 1 << 24, (3, n_random))], axis=1)
    return lanes.astype(np.int64)


# (id, preset, head_dim, HF base, partial factor, kind)
CASES = [
    ("qwen2-vl", "qwen2-vl", 128, 1e6, 1.0, "blocked"),
    ("qwen2.5-vl", "qwen2.5-vl", 128, 1e6, 1.0, "blocked"),
    ("qwen3-vl", "qwen3-vl", 128, 5e6, 1.0, "interleaved"),
    ("qwen3.5", "qwen3.5", 256, 1e7, 0.25, "interleaved"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_multimodal_rotation_matches_hf(host_ctx, rng, case):
    _, preset, head_dim, base, partial, kind = case
    spec = sinpe.rope_spec(preset=preset, head_dim=head_dim)
    sections = [int(s) for s in spec.sections[:3]]
    R = spec.rotary_dim
    config = make_config(base, None, partial=partial)
    config.head_dim = head_dim
    inv, att = HF64["ROPE_INIT_FUNCTIONS"]["default"](config, "cpu")
    assert inv.shape[0] == R // 2 and att == 1.0
    lanes = mixed_prompt(rng, 20)
    tokens = lanes.shape[1]
    q = rng.standard_normal((tokens, 4, head_dim)).astype(np.float32)
    k = rng.standard_normal((tokens, 2, head_dim)).astype(np.float32)
    table = host_ctx.rope_table(spec, rows=64)
    qr, kr = table.rotate_host(q, k, positions=lanes)

    pos = torch.from_numpy(lanes).double()[:, None, :]           # [3, bs 1, seq]
    freqs = pos[..., None] * inv.double()[None, None, None, :]   # [3, 1, seq, R/2]
    qt = torch.from_numpy(q[..., :R]).double().transpose(0, 1)[None]  # [1, heads, seq, R]
    kt = torch.from_numpy(k[..., :R]).double().transpose(0, 1)[None]
    if kind == "blocked":
        emb = torch.cat((freqs, freqs), dim=-1)
        hf = QWEN2 if preset == "qwen2-vl" else QWEN25
        q_hf, k_hf = hf["apply_multimodal_rotary_pos_emb"](qt, kt, emb.cos(), emb.sin(),
                                                           sections)
        per_pair = np.repeat(np.arange(3), sections)
    else:
        f = INTERLEAVE(None, freqs.clone(), sections)
        emb = torch.cat((f, f), dim=-1)
        q_hf, k_hf = QWEN3["apply_rotary_pos_emb"](qt, kt, emb.cos(), emb.sin())
        kk = np.arange(R // 2)
        per_pair = np.where((kk % 3 == 1) & (kk < 3 * sections[1]), 1,
                            np.where((kk % 3 == 2) & (kk < 3 * sections[2]), 2, 0))
    # The angle of pair k of each token: its lane's position times w_k.
    angle = lanes[per_pair, :].T.astype(np.float64) * inv.numpy()[None, :]
    for name, x, got, ref in (("q", q, qr, q_hf), ("k", k, kr, k_hf)):
        ref = ref[0].transpose(0, 1).numpy()
        bound = rotation_bound(angle, 1.0, float(np.abs(x).max())).max(axis=1)[:, None, None]
        err = np.abs(got[..., :R].astype(np.float64) - ref)
        assert np.all(err <= bound), (name, float((err / bound).max()))
        np.testing.assert_array_equal(got[..., R:], x[..., R:])


def test_text_lanes_are_plain_rope(host_ctx, rng):
    """Lanes of one value: qwen2-vl's rotation equals a one-axis table's."""
    spec = sinpe.rope_spec(preset="qwen2-vl", head_dim=128)
    plain = sinpe.rope_spec(preset="qwen2", head_dim=128)
    pos = rng.integers(0, 1 << 22, 30)
    q = rng.standard_normal((30, 2, 128)).astype(np.float32)
    a, _ = host_ctx.rope_table(spec).rotate_host(q, positions=np.stack([pos] * 3))
    b, _ = host_ctx.rope_table(plain).rotate_host(q, positions=pos)
    np.testing.assert_array_equal(a, b)


def test_vision_2d_rotation_matches_hf(host_ctx, rng):
    """Qwen2-VL's vision tower: head 80, rows and columns of a 14 x 22 grid
    and large ones, HF's VisionRotaryEmbedding + apply_rotary_pos_emb_vision."""
    head_dim = 80
    spec = sinpe.rope_spec(preset="qwen2-vl-vision", head_dim=head_dim)
    hh, ww = np.meshgrid(np.arange(14), np.arange(22), indexing="ij")
    lanes = np.concatenate([np.stack([hh.ravel(), ww.ravel()]),
                            rng.integers(0, 1 << 20, (2, 12))], axis=1).astype(np.int64)
    tokens = lanes.shape[1]
    q = rng.standard_normal((tokens, 3, head_dim)).astype(np.float32)
    k = rng.standard_normal((tokens, 3, head_dim)).astype(np.float32)
    qr, kr = host_ctx.rope_table(spec, rows=32).rotate_host(q, k, positions=lanes)
    rope = VISION_ROPE(head_dim // 2)
    top = int(lanes.max()) + 1
    full = rope(top)                                         # [top, head/4] float64
    rpe = torch.cat([full[torch.from_numpy(lanes[0])], full[torch.from_numpy(lanes[1])]], 1)
    emb = torch.cat((rpe, rpe), dim=-1)
    q_hf, k_hf = QWEN2["apply_rotary_pos_emb_vision"](
        torch.from_numpy(q).double(), torch.from_numpy(k).double(), emb.cos(), emb.sin())
    angle = rpe.numpy()
    for name, x, got, ref in (("q", q, qr, q_hf), ("k", k, kr, k_hf)):
        bound = rotation_bound(angle, 1.0, float(np.abs(x).max())).max(axis=1)[:, None, None]
        err = np.abs(got.astype(np.float64) - ref.numpy())
        assert np.all(err <= bound), (name, float((err / bound).max()))


def test_lanes_bad_shapes(host_ctx, rng):
    spec = sinpe.rope_spec(preset="qwen2-vl", head_dim=128)
    table = host_ctx.rope_table(spec)
    q = rng.standard_normal((6, 1, 128)).astype(np.float32)
    with pytest.raises(sinpe.SinpeError) as e:
        table.rotate_host(q, positions=np.zeros((2, 6), np.int64))  # 2 lanes of 3
    assert "positions" in str(e.value)
    with pytest.raises(sinpe.SinpeError) as e:
        sinpe.rope_spec(128, axes="mrope", sections=[16, 24, 20]).frequencies()
    assert "sections add up" in str(e.value)


# -- the position builder against HF's get_rope_index ---------------------------

VS, IMG, VID, VE = 9001, 9002, 9003, 9004


class _Config:
    def __init__(self, tps):
        self.image_token_id, self.video_token_id, self.vision_start_token_id = IMG, VID, VS
        self.vision_config = type("V", (), {"spatial_merge_size": 2, "tokens_per_second": tps})()


def load_rope_index(module, cls):
    """get_rope_index of module's cls as a plain function (integer logic: as written)."""
    ns = _namespace(module)
    ns["Optional"] = typing.Optional
    return load_source(importlib.util.find_spec(module).origin, [f"{cls}.get_rope_index"], ns,
                       f64=False)["get_rope_index"]


def prompt(rng, images, videos, per_frame):
    """Token ids: text, then each image and video block between vision
    start and end tokens, text between; per_frame: a video's frames as
    separate blocks with a timestamp token before each (Qwen3-VL)."""
    ids = list(rng.integers(0, 1000, 5))
    for t, h, w in images:
        ids += [VS] + [IMG] * (t * h * w // 4) + [VE] + list(rng.integers(0, 1000, 3))
    for t, h, w in videos:
        for f in range(t if per_frame else 1):
            n = (1 if per_frame else t) * h * w // 4
            ids += list(rng.integers(0, 1000, 2 if per_frame else 0)) + [VS] + [VID] * n + [VE]
        ids += list(rng.integers(0, 1000, 4))
    return ids


@pytest.mark.parametrize("rule,module,cls", [
    ("qwen2-vl", "transformers.models.qwen2_vl.modeling_qwen2_vl", "Qwen2VLModel"),
    ("qwen2.5-vl", "transformers.models.qwen2_5_vl.modeling_qwen2_5_vl", "Qwen2_5_VLModel"),
    ("qwen3-vl", "transformers.models.qwen3_vl.modeling_qwen3_vl", "Qwen3VLModel"),
])
def test_positions_match_hf_get_rope_index(rng, rule, module, cls):
    hf = load_rope_index(module, cls)
    images, videos = [(1, 4, 6), (1, 8, 2)], [(3, 4, 4), (2, 2, 6)]
    per_frame = rule == "qwen3-vl"
    seqs = [prompt(rng, images[:1], videos[:1], per_frame),
            prompt(rng, images[1:], videos[1:], per_frame)]
    S = max(len(s) for s in seqs) + 3
    ids = np.zeros((2, S), np.int64)
    mask = np.zeros((2, S), np.int64)
    for b, s in enumerate(seqs):  # left padding, as a batched generate has it
        ids[b, S - len(s):], mask[b, S - len(s):] = s, 1
    grid_i, grid_v = np.array(images), np.array(videos)
    spg = np.array([2.0, 1.0])  # whole seconds: 4.57 truncates them first (see the header)
    self = type("M", (), {"config": _Config(2)})()
    kw = dict(input_ids=torch.from_numpy(ids), image_grid_thw=torch.from_numpy(grid_i),
              video_grid_thw=torch.from_numpy(grid_v), attention_mask=torch.from_numpy(mask))
    if rule == "qwen2.5-vl":
        kw["second_per_grid_ts"] = torch.from_numpy(spg)
    pos_hf, deltas_hf = hf(self, **kw)
    lanes, deltas = sinpe.mrope_positions(rule, ids, image_token=IMG, video_token=VID,
                                          image_grid_thw=grid_i, video_grid_thw=grid_v,
                                          second_per_grid_ts=spg, attention_mask=mask)
    np.testing.assert_array_equal(lanes, pos_hf.numpy())
    np.testing.assert_array_equal(deltas, deltas_hf.numpy().reshape(-1))
    assert (lanes[1] != lanes[2]).sum() > 10  # vision blocks, not text alone
    if rule == "qwen2.5-vl":  # the first video's frames 4 apart (2 s x 2 tokens a second)
        t_lane = lanes[0, 0][ids[0] == VID]
        assert sorted(set(np.diff(t_lane)) - {0}) == [4]


def test_positions_fractional_intervals():
    """Qwen2.5-VL at 0.5 s a grid and 2 tokens a second: time indices 0, 1,
    2 (transformers' fixed rule); text after the block from its largest."""
    ids = [1, VS] + [VID] * 3 + [VE, 2]
    lanes, deltas = sinpe.mrope_positions("qwen2.5-vl", ids, image_token=IMG, video_token=VID,
                                          video_grid_thw=[[3, 2, 2]], second_per_grid_ts=[0.5])
    np.testing.assert_array_equal(lanes[0, 0], [0, 1, 2, 3, 4, 5, 6])
    assert list(lanes[:, 0, 2]) == [2, 2, 2] and list(lanes[:, 0, 4]) == [4, 2, 2]
    assert deltas[0] == 0
    with pytest.raises(sinpe.SinpeError) as e:  # 3 frames of one token, only 2 there
        sinpe.mrope_positions("qwen2-vl", ids[:4], image_token=IMG, video_token=VID,
                              video_grid_thw=[[3, 2, 2]])
    assert "video_grid_thw[0]" in str(e.value)


@pytest.mark.parametrize("case", [CASES[0], CASES[2]], ids=[CASES[0][0], CASES[2][0]])
@pytest.mark.parametrize("layout", ["cos_sin", "pairs", "cos_twice", "sin_twice"])
def test_cos_sin_tables_match_hf(host_ctx, rng, case, layout):
    """Each token's cos and sin of a lane triple in the hosts' layouts
    (HF's cos and sin after the sections: cos_twice, sin_twice): HF's
    merged cos and sin, from its own functions on a unit head for the
    blocked sections ([1 | 0] rotates to [cos | sin]) and from its
    interleaving for Qwen3-VL."""
    _, preset, head_dim, base, partial, kind = case
    spec = sinpe.rope_spec(preset=preset, head_dim=head_dim)
    sections, R = [int(s) for s in spec.sections[:3]], spec.rotary_dim
    config = make_config(base, None, partial=partial)
    config.head_dim = head_dim
    inv, _ = HF64["ROPE_INIT_FUNCTIONS"]["default"](config, "cpu")
    lanes = mixed_prompt(rng, 20)
    tokens = lanes.shape[1]
    pos = torch.from_numpy(lanes).double()[:, None, :]
    freqs = pos[..., None] * inv.double()[None, None, None, :]
    if kind == "blocked":
        emb = torch.cat((freqs, freqs), dim=-1)
        unit = torch.cat((torch.ones(R // 2), torch.zeros(R // 2))).double()
        unit = unit.expand(1, 1, tokens, R)
        rows, _ = QWEN2["apply_multimodal_rotary_pos_emb"](unit, unit, emb.cos(), emb.sin(),
                                                            sections)
        c, s = rows[0, 0, :, :R // 2].numpy(), rows[0, 0, :, R // 2:].numpy()
        per_pair = np.repeat(np.arange(3), sections)
    else:
        f = INTERLEAVE(None, freqs.clone(), sections)[0]
        c, s = f.cos().numpy(), f.sin().numpy()
        kk = np.arange(R // 2)
        per_pair = np.where((kk % 3 == 1) & (kk < 3 * sections[1]), 1,
                            np.where((kk % 3 == 2) & (kk < 3 * sections[2]), 2, 0))
    want = {"cos_sin": np.concatenate([c, s], 1),
            "pairs": np.stack([c, s], 2).reshape(tokens, R),
            "cos_twice": np.concatenate([c, c], 1),
            "sin_twice": np.concatenate([s, s], 1)}[layout]
    table = host_ctx.rope_table(spec, rows=64)
    got = table.cos_sin_host(tokens, layout=layout, positions=lanes)
    angle = lanes[per_pair, :].T.astype(np.float64) * inv.numpy()[None, :]
    bound = 1.5e-7 + 2.0 ** -53 * np.abs(angle).max(axis=1)[:, None]
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= bound), float((err / bound).max())
    # The rotation reads the same values: the unit head rotates to cos_sin's row.
    x = np.concatenate([np.ones((tokens, 1, R // 2)), np.zeros((tokens, 1, R // 2))], 2)
    qr, _ = table.rotate_host(x.astype(np.float32), positions=lanes)
    np.testing.assert_array_equal(qr[:, 0], table.cos_sin_host(tokens, positions=lanes))
