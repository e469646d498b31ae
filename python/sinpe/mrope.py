"""The position lanes of a Qwen-VL prompt (sinpe_mrope_positions(): HF's
get_rope_index on the host), for a rotary table of several lanes.

    lanes, deltas = sinpe.mrope_positions("qwen2.5-vl", input_ids,
                                          image_token=151655, video_token=151656,
                                          image_grid_thw=grid)
    table.rotate(queue, q, k, positions=cla.to_device(queue, lanes.reshape(3, -1)))
"""

from ctypes import POINTER, Structure, byref, c_double, c_int32, c_size_t

import numpy as np

from ._api import declare
from ._lib import load
from ._types import CONSTANTS, enum, struct_size
from .errors import SinpeError, fail


class MropePrompt(Structure):
    """sinpe_mrope_prompt: a Qwen-VL prompt for sinpe_mrope_positions()."""

    c_name = "sinpe_mrope_prompt"
    _fields_ = [
        ("struct_size", c_size_t),
        ("rule", enum),
        ("n_seqs", c_size_t),
        ("seq_len", c_size_t),
        ("ids", POINTER(c_int32)),
        ("mask", POINTER(c_int32)),
        ("image_token", c_int32),
        ("video_token", c_int32),
        ("image_grid_thw", POINTER(c_int32)),
        ("n_images", c_size_t),
        ("video_grid_thw", POINTER(c_int32)),
        ("n_videos", c_size_t),
        ("second_per_grid", POINTER(c_double)),
        ("tokens_per_second", c_double),
        ("spatial_merge_size", c_size_t),
    ]


declare((MropePrompt,), (
    ("sinpe_mrope_prompt_init_sized", "void", ("sinpe_mrope_prompt *", "size_t")),
    ("sinpe_mrope_positions", "sinpe_status",
     ("const sinpe_mrope_prompt *", "int32_t *", "int32_t *")),
), {"SINPE_MROPE_QWEN2_VL": 0, "SINPE_MROPE_QWEN2_5_VL": 1, "SINPE_MROPE_QWEN3_VL": 2})

_RULES = {"qwen2-vl": CONSTANTS["SINPE_MROPE_QWEN2_VL"],
          "qwen2.5-vl": CONSTANTS["SINPE_MROPE_QWEN2_5_VL"],
          "qwen3-vl": CONSTANTS["SINPE_MROPE_QWEN3_VL"],
          "qwen3.5": CONSTANTS["SINPE_MROPE_QWEN3_VL"]}


def _ints(keep, value, name, cols=None):
    a = np.ascontiguousarray(np.asarray(value), dtype=np.int32)
    if cols and (a.ndim != 2 or a.shape[1] != cols):
        raise SinpeError(CONSTANTS["SINPE_INVALID_SHAPE"],
                         f"{name}: shape {a.shape}, expected [n, {cols}]")
    keep.append(a)
    return a.ctypes.data_as(POINTER(c_int32)), (a.shape[0] if a.ndim else 0)


def mrope_positions(rule, input_ids, *, image_token, video_token=-1, image_grid_thw=None,
                    video_grid_thw=None, second_per_grid_ts=None, attention_mask=None,
                    tokens_per_second=2.0, spatial_merge_size=2):
    """(lanes [3, n_seqs, seq_len] int32, deltas [n_seqs] int32): the lanes
    of every token as HF's get_rope_index lays them out (rule: "qwen2-vl",
    "qwen2.5-vl", "qwen3-vl" or "qwen3.5"), input_ids [n_seqs, seq_len]
    (or one sequence), the grids [n, 3] in patches, attention_mask 1/0.
    Raises SinpeError (INVALID_SHAPE naming the argument for a grid that
    does not fit the tokens)."""
    ids = np.asarray(input_ids)
    if ids.ndim == 1:
        ids = ids[None, :]
    keep = []
    p = MropePrompt()
    lib = load()
    lib.sinpe_mrope_prompt_init_sized(byref(p), struct_size(p))
    if rule not in _RULES:
        raise SinpeError(CONSTANTS["SINPE_INVALID_OPTION"],
                         f"rule {rule!r} is not one of {', '.join(_RULES)}")
    p.rule = _RULES[rule]
    p.n_seqs, p.seq_len = ids.shape
    p.ids, _ = _ints(keep, ids, "input_ids")
    if attention_mask is not None:
        p.mask, _ = _ints(keep, np.asarray(attention_mask).reshape(ids.shape), "attention_mask")
    p.image_token, p.video_token = image_token, video_token
    if image_grid_thw is not None:
        p.image_grid_thw, p.n_images = _ints(keep, image_grid_thw, "image_grid_thw", 3)
    if video_grid_thw is not None:
        p.video_grid_thw, p.n_videos = _ints(keep, video_grid_thw, "video_grid_thw", 3)
    if second_per_grid_ts is not None:
        spg = np.ascontiguousarray(np.asarray(second_per_grid_ts, np.float64).reshape(-1))
        if spg.size < p.n_videos:
            raise SinpeError(CONSTANTS["SINPE_INVALID_SHAPE"],
                             f"second_per_grid_ts: {spg.size} values for {p.n_videos} videos")
        keep.append(spg)
        p.second_per_grid = spg.ctypes.data_as(POINTER(c_double))
    p.tokens_per_second = tokens_per_second
    p.spatial_merge_size = spatial_merge_size
    lanes = np.empty((3,) + ids.shape, np.int32)
    deltas = np.empty(ids.shape[0], np.int32)
    st = lib.sinpe_mrope_positions(byref(p), lanes.ctypes.data, deltas.ctypes.data)
    if st:
        fail(st)
    return lanes, deltas
