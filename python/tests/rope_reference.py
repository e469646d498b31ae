"""Float64 references and error bounds for the rotary tests.

The header's bound on a cos or sin value: (1.5e-7 + 2^-53 |angle|) m
from float64, for the float64 frequencies w_k sinpe computes.

The rotation's bound, for float32 x: each pair's outputs are
y1 = fma(x1, c, -(x2 s)) and y2 = fma(x2, c, x1 s) with c, s the float32
cos and sin, so with M = max |x| over the tensor:
  the product x2 s (or x1 s) is rounded once:    2^-24 m M,
  the fma is rounded once, |y| <= sqrt(2) m M:   2^-24 sqrt(2) m M,
  c and s carry the table's error e each:        e (|x1| + |x2|) <= 2 e M,
so |y - y64| <= 2^-24 (1 + sqrt 2) m M + 2 e M (about one float32 ulp of
m M plus the table's bound on |x|), plus, for a narrower dtype, half its
ulp of |y| (one rounding to the dtype).
"""

import numpy as np

EPS24 = 2.0 ** -24


def table_bound(angle, m):
    """The header's bound on cos and sin at these float64 angles."""
    return (1.5e-7 + 2.0 ** -53 * np.abs(angle)) * m


def rotation_bound(angle, m, maxabs, table_error=None):
    """The bound above per (position, k); table_error defaults to the
    header's bound at angle."""
    e = table_bound(angle, m) if table_error is None else table_error
    return EPS24 * (1 + np.sqrt(2)) * m * maxabs + 2 * e * maxabs


def rotate64(x, angle, m, rotary_dim, pairing):
    """x [tokens, heads, head_dim] rotated in float64 by angle [tokens,
    R/2] with attention factor m; columns past R pass through."""
    x = np.asarray(x, np.float64)
    c = (np.cos(angle) * m)[:, None, :]
    s = (np.sin(angle) * m)[:, None, :]
    y = x.copy()
    half = rotary_dim // 2
    if pairing == "halves":
        x1, x2 = x[..., :half], x[..., half:rotary_dim]
        y[..., :half] = x1 * c - x2 * s
        y[..., half:rotary_dim] = x2 * c + x1 * s
    else:
        x1, x2 = x[..., 0:rotary_dim:2], x[..., 1:rotary_dim:2]
        y[..., 0:rotary_dim:2] = x1 * c - x2 * s
        y[..., 1:rotary_dim:2] = x2 * c + x1 * s
    return y


def bf16_to_f32(bits):
    """Raw bfloat16 bits (uint16) as float32 values."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """float32 -> raw bfloat16 bits, rounded to nearest even."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)
