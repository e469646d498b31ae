"""sinpe: token embedding plus the exact sinusoidal positional encoding on
OpenCL devices, from Python.

    out[r, :] = token_scale * E[id_r, :] + PE(pos_r)

A thin ctypes layer over the C library libsinpe (include/sinpe.h is the
manual: every call here names the C function it makes).  "pip install ."
in the repository's root builds the library into the package.

Finding the library: the file named by the environment variable
SINPE_LIBRARY (a path to libsinpe.so) when it is set; else the package's
own libsinpe.so; else what ctypes.util.find_library("sinpe") finds; else
libsinpe.so.<major> through the dynamic loader (where "make install" puts
it).  The library is loaded on first use; OSError says what was tried when
none loads.

What the library is: version() and version_info() (the library loaded),
storage_types(), and Context.features for what the device adds ("fp64",
"command_buffer").

With PyOpenCL (not needed to import this package):

    import pyopencl as cl, pyopencl.array as cla, sinpe
    ctx = cl.create_some_context(); q = cl.CommandQueue(ctx)
    table = sinpe.Context(ctx).table("fairseq", 1024, rows=4096)
    ev = table.embed(q, ids, weights, out, preset="fairseq", pad_id=1)
    ev.wait()                         # ids, weights, out: pyopencl Arrays

Contexts share the caller's cl_context; memory arguments are
pyopencl.array.Array (byte offsets become element offsets, dtypes become
storage types) or pyopencl.Buffer; calls return pyopencl.Event and take
wait lists of them.

With NumPy alone:

    table = sinpe.Context().table("vaswani", 512, rows=1024)
    out = table.embed_host(ids, weights, token_scale=512 ** 0.5)
    pe = table.read_rows(0, 100)      # (100, 512) float32

Rotary position embeddings (RoPE), with PyOpenCL (q: [tokens, 32, 128],
k: [tokens, 8, 128] pyopencl Arrays, rotated in place):

    rope = sinpe.Context(ctx).rope_table("llama3.1", head_dim=128)
    rope.rotate(q_queue, q, k, start=past).wait()

and sinpe.rope_spec() for any rule (default, linear, dynamic, yarn,
llama3, longrope), sinpe.frequencies(spec) for its float64 frequencies and
attention factor, RopeTable.enqueue_rows() / read_rows() for the cos/sin
cache, RopeTable.rotate_host() on NumPy arrays.

Storage types: float32 -> F32, float16 -> F16, ml_dtypes.bfloat16 -> BF16
(and ml_dtypes' float8_e4m3fn, float8_e5m2 -> FP8_E4M3, FP8_E5M2); raw bits
in integer arrays with the type named: weights_dtype="bfloat16" on uint16,
"i8", "q8_0", "fp8_e4m3", "fp8_e5m2" on int8 or uint8 (see quantize()), and
ggml's "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k" blocks on uint8
(a GGUF file's tensor data as gguf's reader gives it).

Errors: every failure of a sinpe call raises SinpeError, whose name is the
status ("INVALID_SHAPE"), message its sinpe_status_string() and detail the
sinpe_last_error() text naming the argument.  Objects of the wrong Python
type raise TypeError.
"""

from ._lib import load
from ._types import CONSTANTS, ContextOptions, EmbedArgs, RopeArgs, RopeLayer, RopeSpec, Spec
from . import attn_input as _attn_input  # noqa: F401 - RopeTable.attn_input()
from .context import Context
from .embed import EmbedCall
from .errors import SinpeError, last_error
from .mrope import mrope_positions
from .quantize import quantize
from .rope import (RopeTable, frequencies, rope_preset_name, rope_preset_value, rope_presets,
                   rope_spec)
from .rope_model import (rope_model_layer, rope_model_value, rope_models, softmax_factor,
                         temperature)
from .spec import preset_name, preset_value, presets, spec
from .table import Table

# The header's version, which this package mirrors (setup.py reads the same).
__version__ = "{}.{}.{}".format(*(CONSTANTS[f"SINPE_VERSION_{part}"]
                                  for part in ("MAJOR", "MINOR", "PATCH")))

# SINPE_F32 -> sinpe.F32, SINPE_INVALID_SHAPE -> sinpe.INVALID_SHAPE, ...
globals().update({name[len("SINPE_"):]: value for name, value in CONSTANTS.items()})


def version():
    """The version of the library loaded, "MAJOR.MINOR.PATCH"."""
    return load().sinpe_version_string().decode()


def version_info():
    """The version of the library loaded as integers, (major, minor, patch),
    from sinpe_version_number()."""
    n = load().sinpe_version_number()
    return (n // 10000, n // 100 % 100, n % 100)


def storage_types():
    """The storage types the loaded library accepts, by short name ("f32",
    "f16", "bf16", "i8", "q8_0", "fp8_e4m3", "fp8_e5m2", then ggml's "q4_0",
    "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"): every one works on
    every device (what a device adds is Context.features)."""
    from ._dtypes import types
    return tuple(info.name.decode() for info in types().values())


__all__ = [
    "Context", "Table", "EmbedCall", "SinpeError", "Spec", "EmbedArgs", "ContextOptions",
    "spec", "presets", "preset_name", "preset_value", "quantize", "last_error", "load",
    "version", "version_info", "storage_types",
    "RopeTable", "RopeSpec", "RopeArgs", "RopeLayer", "rope_spec", "rope_presets",
    "rope_preset_name", "rope_preset_value", "frequencies", "mrope_positions",
    "rope_models", "rope_model_value", "rope_model_layer", "softmax_factor", "temperature",
]
