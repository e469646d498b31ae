"""NumPy dtypes and type names -> sinpe_dtype.

float32 -> F32, float16 -> F16, and the dtypes of ml_dtypes (the package
JAX and TensorFlow users already have): bfloat16 -> BF16, float8_e4m3fn ->
FP8_E4M3, float8_e5m2 -> FP8_E5M2.  They are recognised by name, so this
module never imports ml_dtypes itself.  Raw bits in an integer array of the
type's size (uint16 for bfloat16, int8 or uint8 for the byte types) need
the type named explicitly.
"""

from ctypes import byref, sizeof

import numpy as np

from ._lib import load
from ._types import CONSTANTS, DtypeInfo
from .errors import SinpeError, fail

F32 = CONSTANTS["SINPE_F32"]
F16 = CONSTANTS["SINPE_F16"]
INVALID_DTYPE = CONSTANTS["SINPE_INVALID_DTYPE"]
INVALID_SHAPE = CONSTANTS["SINPE_INVALID_SHAPE"]

# Other spellings of the library's type names: NumPy's and ml_dtypes' (by
# which an array's dtype is recognised), and short forms.
_ALIASES = {
    "float32": "f32", "float": "f32", "float16": "f16", "half": "f16",
    "bfloat16": "bf16", "int8": "i8", "float8_e4m3fn": "fp8_e4m3", "e4m3": "fp8_e4m3",
    "float8_e5m2": "fp8_e5m2", "e5m2": "fp8_e5m2",
}
# The NumPy dtypes (ml_dtypes' included) that stand for a type by their name.
_NUMPY_NAMES = ("float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2")
# The types NumPy holds natively; the others' host arrays hold raw bits.
_NUMPY = {"f32": np.float32, "f16": np.float16, "i8": np.int8}
_types = None


def types():
    """{code: sinpe_dtype_info} for every storage type of the library, from
    its own table (sinpe_dtype_count(), sinpe_dtype_query())."""
    global _types
    if _types is None:
        lib, found = load(), {}
        for c in range(lib.sinpe_dtype_count()):
            info = DtypeInfo()
            st = lib.sinpe_dtype_query(c, byref(info), sizeof(info))
            if st:
                fail(st)
            found[c] = info
        _types = found
    return _types


def info(c):
    """The sinpe_dtype_info of type c, or None for a value that is no type."""
    return types().get(c)


def names():
    """Every accepted type name -> its code."""
    by_name = {i.name.decode(): c for c, i in types().items()}
    return {**by_name, **{a: by_name[n] for a, n in _ALIASES.items() if n in by_name}}


def host(c):
    """The NumPy dtype of a host array of type c: the type itself where
    NumPy has it, else its raw bits (uint8 for blocks and unknown codes)."""
    i = info(c)
    if i is None or i.block_values != 1:
        return np.dtype(np.uint8)
    native = _NUMPY.get(i.name.decode())
    return np.dtype(native) if native else np.dtype(f"u{i.block_bytes}")


def value_bytes(c):
    """Bytes per value of a type without blocks, else None."""
    i = info(c)
    return i.block_bytes if i is not None and i.block_values == 1 else None


def of_numpy(dtype):
    """The sinpe type a NumPy dtype stands for, or None."""
    return names().get(dtype.name) if dtype.name in _NUMPY_NAMES else None


def code(value, what):
    """A sinpe_dtype from a name ("bfloat16", "q8_0"), a NumPy dtype or type,
    or an int (passed on as it is, for sinpe to judge)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        c = names().get(value.lower())
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
                     f"(one of {', '.join(sorted(names()))}, or a NumPy dtype)")


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
    raw = own is None and dtype.kind in "ui" and dtype.itemsize == (value_bytes(c) or 1)
    if not raw:
        raise SinpeError(INVALID_DTYPE, f"{what}: an array of {dtype} cannot hold "
                         f"{explicit!r} values")
    return c


def to_values(nbytes, c, what):
    """A byte count (an Array's offset or stride) as values of type c."""
    i = info(c)
    values, size = (i.block_values, i.block_bytes) if i is not None else (1, 1)
    if nbytes % size:
        unit = f"{i.name.decode()} blocks ({size} bytes)" if values > 1 else f"{size}-byte values"
        raise SinpeError(INVALID_SHAPE, f"{what}: {nbytes} bytes is not a whole number of {unit}")
    return nbytes // size * values
