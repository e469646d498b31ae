"""sinpe's N-D rotation against diffusers' own code in float64.

diffusers' rotary code builds its frequencies in float64 where the device
has it and float32 elsewhere (diffusers 9047, 12665); these tests take the
source of its functions and classes and run the float64 transform of
test_rope_hf.py (float32 -> float64 throughout), read from the installed
release's files (make check-python pins it, without its dependencies: the
files are read, never imported):
  models/embeddings.py: get_1d_rotary_pos_embed, apply_rotary_emb,
      get_3d_rotary_pos_embed (CogVideoX: a quarter of the head for the
      frames, 3/8 for rows and for columns; "linspace" grids at the base
      resolution and "slice" grids, both integer positions);
  models/transformers/transformer_flux.py: FluxPosEmbed (axes 16, 56, 56,
      ids of three lanes: text ids 0, then the image's rows and columns);
  models/transformers/transformer_wan.py: WanRotaryPosEmbed (frames, rows,
      columns of the latent's patches, its own split of the head);
  models/transformers/transformer_hunyuan_video.py:
      HunyuanVideoRotaryPosEmbed (theta 256, the same grid).
sinpe takes the lanes from its grid (grid=(rows, cols), a text prefix at
grid_start), never from a positions buffer.  Bound: rope_reference's.
"""

import numpy as np
import pytest

from diffusers_source import load, torch
from rope_reference import rotation_bound

NS = load("models/embeddings.py", ["get_1d_rotary_pos_embed", "apply_rotary_emb",
                                   "get_3d_rotary_pos_embed"])
load("models/transformers/transformer_flux.py", ["FluxPosEmbed"], NS)
load("models/transformers/transformer_wan.py", ["WanRotaryPosEmbed"], NS)
load("models/transformers/transformer_hunyuan_video.py", ["HunyuanVideoRotaryPosEmbed"], NS)


def check(table, x, cos, sin, lanes, **rotate):
    """sinpe's rotation of x [tokens, heads, D] against diffusers'
    apply_rotary_emb with its cos and sin [tokens, D] (interleaved);
    lanes [tokens, 3]: each token's positions, for the bound's angles."""
    got, _ = table.rotate_host(x, **rotate)
    xt = torch.from_numpy(x).double().permute(1, 0, 2)[None]  # [1, heads, S, D]
    ref = NS["apply_rotary_emb"](xt, (cos, sin), use_real=True, use_real_unbind_dim=-1)
    ref = ref[0].permute(1, 0, 2).numpy()
    w, m = table.frequencies()
    lane = np.repeat(np.arange(3), [int(s) for s in table.spec.sections[:3]])
    angle = lanes[:, lane] * w[None, :]
    bound = rotation_bound(angle, m, float(np.abs(x).max())).max(axis=1)[:, None, None]
    err = np.abs(got.astype(np.float64) - ref)
    assert np.all(err <= bound), float((err / bound).max())


def grid_lanes(frames, rows, cols, prefix=0):
    g = np.indices((frames, rows, cols)).reshape(3, -1).T
    return np.concatenate([np.zeros((prefix, 3), np.int64), g]).astype(np.float64)


def test_flux(host_ctx, rng):
    txt, rows, cols = 7, 12, 20
    ids = np.zeros((txt + rows * cols, 3))
    ids[txt:, 1] = np.repeat(np.arange(rows), cols)
    ids[txt:, 2] = np.tile(np.arange(cols), rows)
    cos, sin = NS["FluxPosEmbed"](10000, [16, 56, 56])(torch.from_numpy(ids))
    x = rng.standard_normal((len(ids), 3, 128)).astype(np.float32)
    table = host_ctx.rope_table("flux", head_dim=128, rows=16)
    check(table, x, cos, sin, grid_lanes(1, rows, cols, txt), grid=(rows, cols), grid_start=txt)


@pytest.mark.parametrize("name", ["wan", "hunyuan-video"])
def test_video_grid(host_ctx, rng, name):
    frames, rows, cols = 3, 6, 10
    latent = torch.zeros(1, 1, frames, 2 * rows, 2 * cols)
    if name == "wan":
        cos, sin = NS["WanRotaryPosEmbed"](128, (1, 2, 2), 1024)(latent)
        cos, sin = cos[0, :, 0], sin[0, :, 0]
    else:
        cos, sin = NS["HunyuanVideoRotaryPosEmbed"](2, 1, [16, 56, 56], 256.0)(latent)
    x = rng.standard_normal((frames * rows * cols, 2, 128)).astype(np.float32)
    table = host_ctx.rope_table(name, head_dim=128, rows=8)
    check(table, x, cos, sin, grid_lanes(frames, rows, cols), grid=(rows, cols))


@pytest.mark.parametrize("grid_type", ["linspace", "slice"])
def test_cogvideox(host_ctx, rng, grid_type):
    frames, rows, cols, txt = 4, 6, 9, 5
    cos, sin = NS["get_3d_rotary_pos_embed"](64, ((0, 0), (rows, cols)), (rows, cols), frames,
                                             grid_type=grid_type, max_size=(rows + 3, cols + 2))
    # CogVideoX rotates the video tokens only, after its text tokens: a text
    # prefix at grid_start takes position 0 on every lane, the same bits.
    x = rng.standard_normal((txt + frames * rows * cols, 2, 64)).astype(np.float32)
    table = host_ctx.rope_table("cogvideox", head_dim=64, rows=8)
    got, _ = table.rotate_host(x, grid=(rows, cols), grid_start=txt)
    np.testing.assert_array_equal(got[:txt], x[:txt])
    check(table, x[txt:], cos, sin, grid_lanes(frames, rows, cols), grid=(rows, cols))
