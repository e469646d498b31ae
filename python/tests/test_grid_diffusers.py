"""sinpe's 2-D sincos grid encoding against diffusers' own functions.

diffusers forms the positions in float32 (arange / (grid / base_size) /
interpolation_scale) and the frequencies and angles in float64: its
functions run here as they are (no transform), read from the installed
release's models/embeddings.py (never imported): get_2d_sincos_pos_embed
with output_type="pt" (its float64 result, class tokens included), and
PatchEmbed.cropped_pos_embed for SD3's centre crop of a pos_embed_max_size
table, get_3d_sincos_pos_embed for CogVideoX's video grid (a quarter of the
width for the frames, then the 2-D encoding of the rest).  sinpe's float32
values lie within the header's bound of them.
"""

import numpy as np
import pytest

import sinpe
from diffusers_source import load

NS = load("models/embeddings.py", ["get_2d_sincos_pos_embed", "get_2d_sincos_pos_embed_from_grid",
                                   "get_1d_sincos_pos_embed_from_grid", "get_3d_sincos_pos_embed",
                                   "PatchEmbed.cropped_pos_embed"], f64=False)


def bound(ref):
    return 1.5e-7 + 2.0 ** -53 * 200.0  # positions below 200, frequencies at most 1


@pytest.mark.parametrize("D,rows,cols,base,interp,extra", [
    (64, 16, 16, 16, 1.0, 0),     # MAE / ViT
    (1152, 16, 16, 16, 1.0, 0),   # DiT-XL/2 at 256 px
    (96, 8, 12, 4, 2.0, 1),       # fractional positions, not square, a class token
    (48, 7, 5, 3, 0.5, 2),
])
def test_grid_matches_diffusers(host_ctx, D, rows, cols, base, interp, extra):
    table = host_ctx.table(sinpe.spec(D // 2, preset="mae"))
    got = table.grid_host(rows, cols, extra_tokens=extra, base_size=base,
                          interpolation_scale=interp)
    ref = NS["get_2d_sincos_pos_embed"](D, (rows, cols), cls_token=extra > 0, extra_tokens=extra,
                                        interpolation_scale=interp, base_size=base,
                                        output_type="pt")
    assert str(ref.dtype) == "torch.float64"
    err = np.abs(got.astype(np.float64) - ref.numpy())
    assert err.max() <= bound(ref), float(err.max())
    assert np.all(got[:extra] == 0)


def test_sd3_crop_matches_diffusers(host_ctx):
    D, M, base, rows, cols = 64, 24, 8, 10, 14
    table = host_ctx.table(sinpe.spec(D // 2, preset="mae"))
    got = table.grid_host(rows, cols, base_size=base, max_size=M)
    full = NS["get_2d_sincos_pos_embed"](D, M, base_size=base, output_type="pt")
    me = type("PatchEmbed", (), {"pos_embed_max_size": M, "patch_size": 1, "pos_embed": full})()
    ref = NS["cropped_pos_embed"](me, rows, cols)[0].numpy()
    err = np.abs(got.astype(np.float64) - ref)
    assert err.max() <= bound(ref), float(err.max())


@pytest.mark.parametrize("D,frames,rows,cols,spatial,temporal,text", [
    (192, 4, 5, 7, 1.875, 1.0, 3),  # CogVideoX-2b's scales, a text prefix
    (64, 3, 4, 4, 1.0, 2.0, 0),
])
def test_video_grid_matches_diffusers(host_ctx, D, frames, rows, cols, spatial, temporal, text):
    table = host_ctx.table(sinpe.spec(3 * D // 8, preset="mae"))
    frame_table = host_ctx.table(sinpe.spec(D // 4, preset="mae"))
    got = table.grid_host(rows, cols, frames=frames, frame_table=frame_table,
                          interpolation_scale=spatial, frame_interpolation_scale=temporal,
                          extra_tokens=text)
    ref = NS["get_3d_sincos_pos_embed"](D, (cols, rows), frames, spatial, temporal,
                                        output_type="pt")
    assert str(ref.dtype) == "torch.float64" and ref.shape == (frames, rows * cols, D)
    assert got.shape == (text + frames * rows * cols, D) and np.all(got[:text] == 0)
    err = np.abs(got[text:].astype(np.float64) - ref.reshape(-1, D).numpy())
    assert err.max() <= bound(ref), float(err.max())


def test_grid_add_in_place(host_ctx, rng):
    """The add: patch embeddings + the encoding in float32, rounded once."""
    cla = pytest.importorskip("pyopencl.array")
    table = host_ctx.table(sinpe.spec(32, preset="mae"))
    q = host_ctx.queue
    x = rng.standard_normal((2 * 36, 64)).astype(np.float32)
    ref = table.grid_host(6, 6, n_seqs=2, base_size=3)
    d = cla.to_device(q, x)
    table.enqueue_grid(q, d, 6, 6, add=True, n_seqs=2, base_size=3).wait()
    np.testing.assert_array_equal(d.get(), x + ref)
