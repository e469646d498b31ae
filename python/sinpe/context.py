"""sinpe.Context: a sinpe_context, in the caller's cl_context or its own."""

from ctypes import byref, c_size_t, c_void_p, create_string_buffer

from . import _mem
from ._handle import Handle
from ._lib import load
from ._types import ContextOptions, name_of, names, struct_size
from .errors import fail
from .spec import enum_value


class Context(Handle):
    """A sinpe context: its device, its built kernels and its tables.

    Context(cl_context, device=None, ...) shares the caller's OpenCL context
    (a pyopencl.Context, or a raw cl_context int) through
    sinpe_context_create_from_cl(); device is a pyopencl.Device of it (or an
    int), by default the context's device when it has exactly one.

    Context(device=None, ...) creates a context of sinpe's own through
    sinpe_context_create(), no PyOpenCL needed: device is a selector, "P:D"
    indices or a case-insensitive part of the platform or device name
    ("pthread", "nvidia"), default the SINPE_DEVICE environment variable,
    else the first GPU, accelerator, then CPU.

    Keyword arguments are the fields of sinpe_context_options: math ("auto",
    "float" or "fp64"), no_disk_cache (bool), tuning (a tuning record's text;
    None reads SINPE_TUNING).  Creation blocks while the kernels build (a
    cached build takes a second or two on PoCL).  Raises SinpeError.

    The context is released by release(), by leaving a with block, or when
    the object is collected; tables made from it keep the C context alive.
    """

    def __init__(self, cl_context=None, device=None, *, math="auto", no_disk_cache=False,
                 tuning=None):
        lib = self._lib = load()
        self._ptr = None
        opts = ContextOptions()
        lib.sinpe_context_options_init_sized(byref(opts), struct_size(opts))
        opts.math = enum_value("MATH", math, "math")
        opts.no_disk_cache = 1 if no_disk_cache else 0
        if tuning is not None:
            opts.tuning = tuning.encode()
        out = c_void_p()
        if cl_context is None:
            if device is not None:
                opts.device = device.encode()
            st = lib.sinpe_context_create(byref(opts), byref(out))
        else:
            if device is None:
                devices = getattr(cl_context, "devices", None)
                if devices is not None and len(devices) == 1:
                    device = devices[0]
            st = lib.sinpe_context_create_from_cl(
                _mem.handle(cl_context, "cl_context"), _mem.handle(device, "device"),
                byref(opts), byref(out))
        if st:
            fail(st)
        self._ptr = out.value
        self._release = lib.sinpe_context_release

    # -- the OpenCL objects --------------------------------------------------

    @property
    def handles(self):
        """(cl_context, cl_device_id, cl_command_queue) as ints, borrowed."""
        lib = self._lib
        return (lib.sinpe_context_cl_context(self._ptr), lib.sinpe_context_device(self._ptr),
                lib.sinpe_context_queue(self._ptr))

    @property
    def cl_context(self):
        """The context's cl_context as a pyopencl.Context (needs PyOpenCL)."""
        return _mem.pyopencl().Context.from_int_ptr(self.handles[0], True)

    @property
    def device(self):
        """The context's device as a pyopencl.Device (needs PyOpenCL)."""
        return _mem.pyopencl().Device.from_int_ptr(self.handles[1], True)

    @property
    def queue(self):
        """sinpe's own in-order, profiling queue as a pyopencl.CommandQueue
        (needs PyOpenCL); hosts may enqueue on it too."""
        return _mem.pyopencl().CommandQueue.from_int_ptr(self.handles[2], True)

    # -- facts and preparation -----------------------------------------------

    @property
    def math(self):
        """The math path in use: "float" or "fp64"."""
        return name_of("MATH", self._lib.sinpe_context_math(self._ptr))

    @property
    def features(self):
        """What the context's device lets sinpe do (sinpe_context_features()),
        as a frozenset of names: "fp64" (SINPE_MATH_FP64 is available),
        "command_buffer" (sinpe_record_* record on this device)."""
        bits = self._lib.sinpe_context_features(self._ptr)
        return frozenset(name for name, bit in names("FEATURE").items() if bits & bit)

    @property
    def tuning(self):
        """The tuning record the context took (sinpe_context_tuning())."""
        return self._lib.sinpe_context_tuning(self._ptr).decode()

    def prepare(self, weights_dtype):
        """Builds the kernels for weights of weights_dtype now
        (sinpe_context_prepare()); the quantized types are otherwise built
        on their first call."""
        from ._dtypes import code
        st = self._lib.sinpe_context_prepare(self._ptr, code(weights_dtype, "weights_dtype"))
        if st:
            fail(st)

    def device_source(self):
        """The OpenCL C source of sinpe's device functions for this context
        (sinpe_device_source()), to put before a kernel of your own that
        reads the encoding; see Table.constants() and the header."""
        n = c_size_t()
        st = self._lib.sinpe_device_source(self._ptr, None, 0, byref(n))
        if st:
            fail(st)
        buf = create_string_buffer(n.value + 1)
        st = self._lib.sinpe_device_source(self._ptr, buf, n.value + 1, byref(n))
        if st:
            fail(st)
        return buf.value.decode()

    def table(self, spec, dim=None, rows=0):
        """sinpe.Table(self, spec, dim, rows): the shared table of a spec."""
        from .table import Table
        return Table(self, spec, dim, rows)

    def rope_table(self, spec, head_dim=None, rows=0, **fields):
        """sinpe.RopeTable(self, spec, head_dim, rows, **fields): the shared
        rotary table of a spec (a sinpe.RopeSpec, or a rotary preset name
        with head_dim and any sinpe.rope_spec() fields)."""
        from .rope import RopeTable
        return RopeTable(self, spec, head_dim, rows, **fields)

    def __repr__(self):
        return f"<sinpe.Context math={self.math!r}>" if self._ptr else "<sinpe.Context released>"
