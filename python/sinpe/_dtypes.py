"""NumPy dtypes and type names -> sinpe_dtype.

float32 -> F32, float16 -> F16, and the dtypes of ml_dtypes (the package
JAX and TensorFlow users already have): bfloat16 -> BF16, float8_e4m3fn ->
FP8_E4M3, float8_e5m2 -> FP8_E5M2.  They are recognised by name, so this
module never imports ml_dtypes itself.  Raw bits in an integer array of the
type's size (uint16 for bfloat16, int8 or uint8 for the byte types) need
the type named explicitly.
"""

import numpy as np

from ._types import CONSTANTS
from .errors import SinpeError

F32 = CONSTANTS["SINPE_F32"]
F16 = CONSTANTS["SINPE_F16"]
BF16 = CONSTANTS["SINPE_BF16"]
I8 = CONSTANTS["SINPE_I8"]
Q8_0 = CONSTANTS["SINPE_Q8_0"]
FP8_E4M3 = CONSTANTS["SINPE_FP8_E4M3"]
FP8_E5M2 = CONSTANTS["SINPE_FP8_E5M2"]
INVALID_DTYPE = CONSTANTS["SINPE_INVALID_DTYPE"]
INVALID_SHAPE = CONSTANTS["SINPE_INVALID_SHAPE"]

NAMES = {
    "f32": F32, "float32": F32, "float": F32,
    "f16": F16, "float16": F16, "half": F16,
    "bf16": BF16, "bfloat16": BF16,
    "i8": I8, "int8": I8,
    "q8_0": Q8_0,
    "fp8_e4m3": FP8_E4M3, "float8_e4m3fn": FP8_E4M3, "e4m3": FP8_E4M3,
    "fp8_e5m2": FP8_E5M2, "float8_e5m2": FP8_E5M2, "e5m2": FP8_E5M2,
}

# The short name of each type, the first of its names above: "f32", "f16",
# "bf16", "i8", "q8_0", "fp8_e4m3", "fp8_e5m2".
SHORT = {}
for _name, _code in NAMES.items():
    SHORT.setdefault(_code, _name)

# Bytes per value (Q8_0: 34 bytes per 32 values, see to_values()).
SIZE = {F32: 4, F16: 2, BF16: 2, I8: 1, FP8_E4M3: 1, FP8_E5M2: 1}

# The NumPy dtype a host array of each type gets (raw bits where NumPy
# has no such type).
HOST = {
    F32: np.dtype(np.float32), F16: np.dtype(np.float16), BF16: np.dtype(np.uint16),
    I8: np.dtype(np.int8), Q8_0: np.dtype(np.uint8), FP8_E4M3: np.dtype(np.uint8),
    FP8_E5M2: np.dtype(np.uint8),
}

_BY_DTYPE = {np.dtype(np.float32): F32, np.dtype(np.float16): F16}
_BY_DTYPE_NAME = {"bfloat16": BF16, "float8_e4m3fn": FP8_E4M3, "float8_e5m2": FP8_E5M2}


def of_numpy(dtype):
    """The sinpe type a NumPy dtype stands for, or None."""
    code = _BY_DTYPE.get(dtype)
    if code is None:
        code = _BY_DTYPE_NAME.get(dtype.name)
    return code


def code(value, what):
    """A sinpe_dtype from a name ("bfloat16", "q8_0"), a NumPy dtype or type,
    or an int (passed on as it is, for sinpe to judge)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        c = NAMES.get(value.lower())
        if c is not None:
            return c
    else:
        try:
            c = of_numpy(np.dtype(value))
        except TypeError:
            c = None
        if c is not None:
            return c
    raise SinpeError(INVALID_DTYPE, f"{what}: {value!r} names no sinpe type "
                     f"(one of {', '.join(sorted(NAMES))}, or a NumPy dtype)")


def resolve(dtype, explicit, what):
    """The sinpe type of an array argument: explicit (a name or code) when
    given, checked against the array's dtype (None for a plain buffer);
    else the array's own.  None when neither says (the default stays)."""
    if explicit is None:
        if dtype is None:
            return None
        c = of_numpy(dtype)
        if c is None:
            hint = " (raw bfloat16 bits: name the type, 'bfloat16')" if dtype.itemsize == 2 else ""
            raise SinpeError(INVALID_DTYPE, f"{what}: NumPy dtype {dtype} has no sinpe type; "
                             f"name one with the {what}_dtype argument{hint}")
        return c
    c = code(explicit, what)
    if dtype is None:
        return c
    own = of_numpy(dtype)
    if own == c:
        return c
    raw = own is None and dtype.kind in "ui" and (
        dtype.itemsize == SIZE.get(c) or (c == Q8_0 and dtype.itemsize == 1))
    if not raw:
        raise SinpeError(INVALID_DTYPE, f"{what}: an array of {dtype} cannot hold "
                         f"{explicit!r} values")
    return c


def to_values(nbytes, c, what):
    """A byte count (an Array's offset or stride) as values of type c."""
    if c == Q8_0:
        if nbytes % 34:
            raise SinpeError(INVALID_SHAPE, f"{what}: {nbytes} bytes is not a whole number "
                             f"of Q8_0 blocks (34 bytes)")
        return nbytes // 34 * 32
    size = SIZE.get(c, 1)
    if nbytes % size:
        raise SinpeError(INVALID_SHAPE, f"{what}: {nbytes} bytes is not a whole number of "
                         f"{size}-byte values")
    return nbytes // size
