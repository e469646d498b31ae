"""sinpe_quantize(): weights of any storage type from a float32 table."""

import numpy as np

from ._dtypes import F16, F32, code, host, info
from ._types import CONSTANTS
from ._lib import load
from .errors import fail

_DEFAULT = object()
_ROW_SCALES = (CONSTANTS["SINPE_DTYPE_SCALES_ROW"], CONSTANTS["SINPE_DTYPE_SCALES_ROW_OR_TENSOR"])


def quantize(x, dtype, scales_dtype=_DEFAULT):
    """Writes a (rows, dim) float32 table (other float arrays are converted)
    in the layout of dtype, as weights for the embedding calls.

    dtype: "float32", "float16", "bfloat16", "i8", "q8_0", "fp8_e4m3",
    "fp8_e5m2", or ggml's "q4_0", "q4_1", "q5_0", "q5_1" (written as
    ggml's reference quantizer writes them; the k-quants are not written)
    (or a NumPy dtype, or a sinpe int).  scales_dtype: "float32"
    (the default) or "float16" for the row scales of I8 (required) and FP8
    (None: no scales, the values themselves rounded); ignored for the other
    types.  Returns (data, scales): data of shape (rows, dim) in the type's
    host dtype (float32, float16, uint16 bfloat16 bits, int8 for I8, uint8
    for FP8) or, for the block types, (rows, dim / 32 * block bytes) uint8
    blocks (Q8_0: 34 bytes a block); scales a
    (rows,) array or None.  Pass both to embed() with weights_dtype=dtype
    and weight_scales=scales (as device arrays).  Raises SinpeError with
    sinpe's status (non-finite values, or a scale that overflows fp16: an
    F16 row scale or a block's d or m: INVALID_OPTION; a block type with
    dim not a multiple of 32: INVALID_SHAPE; a k-quant: INVALID_DTYPE).
    """
    lib = load()
    src = np.ascontiguousarray(x, dtype=np.float32)
    if src.ndim != 2:
        src = src.reshape(1, -1) if src.ndim < 2 else src.reshape(-1, src.shape[-1])
    rows, dim = src.shape
    t = code(dtype, "dtype")
    i = info(t)
    if i is not None and i.block_values > 1:
        data = np.empty((rows, -(-dim // i.block_values) * i.block_bytes), np.uint8)
    else:
        data = np.empty((rows, dim), host(t))
    scales = None
    sc = F32
    if i is not None and i.scales in _ROW_SCALES:
        if scales_dtype is _DEFAULT:
            scales_dtype = "float32"
        if scales_dtype is not None:
            sc = code(scales_dtype, "scales_dtype")
            scales = np.empty(rows, np.float16 if sc == F16 else np.float32)
    st = lib.sinpe_quantize(t, src.ctypes.data, rows, dim, data.ctypes.data, data.nbytes,
                            scales.ctypes.data if scales is not None else None, sc)
    if st:
        fail(st)
    return data, scales
