"""sinpe.Table: the device-resident encoding of one spec, and every call
made with it."""

from ctypes import byref, c_size_t, c_void_p

from . import _mem
from ._handle import Handle
from . import embed as _embed
from . import host as _host
from ._dtypes import to_values
from ._types import Spec, struct_size
from .errors import fail
from .spec import spec as make_spec


class Table(Handle):
    """The table of rows [0, rows) of PE for a spec, on the context's device
    (sinpe_table_create()): tables are shared per context and spec, grown
    on demand, and positions past the rows are computed on the fly.

    spec is a sinpe.Spec (see sinpe.spec()) or a preset name ("fairseq",
    case-insensitive) or value, which then needs dim.  Blocks until the rows
    are ready.  Raises SinpeError (an invalid spec: INVALID_SPEC).

    The calls: embed() (the fused call), gather() and add_positions() (the
    unfused pair), timesteps(), enqueue_rows() on PyOpenCL objects;
    embed_call() prepares a fused call for a decode loop; embed_host(),
    read_rows() and timesteps_host() on NumPy arrays, without PyOpenCL.
    """

    def __init__(self, context, spec, dim=None, rows=0):
        lib = self._lib = context._lib
        self._ptr = None
        if not isinstance(spec, Spec):
            spec = make_spec(dim if dim is not None else 0, spec)
        out = c_void_p()
        st = lib.sinpe_table_create(context._ptr, byref(spec), rows, byref(out))
        if st:
            fail(st)
        self._ptr = out.value
        self.context = context
        self.dim = spec.dim
        self._memo = None  # the last call's resolved arrays (see _args.prepare)
        # The table keeps its C context alive, so these stay valid as long.
        self._handles = context.handles
        self._release = lib.sinpe_table_release

    # -- the rows ------------------------------------------------------------

    @property
    def rows(self):
        """The row count now held (sinpe_table_rows())."""
        return self._lib.sinpe_table_rows(self._ptr)

    @property
    def spec(self):
        """A copy of the table's spec, normalised (sinpe_table_spec())."""
        s = Spec()
        st = self._lib.sinpe_table_spec_sized(self._ptr, byref(s), struct_size(s))
        if st:
            fail(st)
        return s

    def reserve(self, rows):
        """Grows the table to at least rows rows (sinpe_table_reserve());
        blocks until they are ready."""
        st = self._lib.sinpe_table_reserve(self._ptr, rows)
        if st:
            fail(st)

    def borrow(self):
        """(pyopencl.Buffer, rows): the current table buffer, rows * dim
        float32 values, which stays valid after the table grows
        (sinpe_table_borrow()); (None, 0) while the table holds no rows."""
        mem, rows = c_void_p(), c_size_t()
        st = self._lib.sinpe_table_borrow(self._ptr, byref(mem), byref(rows))
        if st:
            fail(st)
        if not mem.value:
            return None, rows.value
        return _mem.pyopencl().Buffer.from_int_ptr(mem.value, False), rows.value

    def constants(self):
        """The constants buffer of the table's spec for sinpe's device
        functions (sinpe_table_constants()), as a pyopencl.Buffer."""
        mem = c_void_p()
        st = self._lib.sinpe_table_constants(self._ptr, byref(mem))
        if st:
            fail(st)
        return _mem.pyopencl().Buffer.from_int_ptr(mem.value, False)

    def enqueue_rows(self, queue, row0, nrows, out, *, out_offset=0, out_stride=None,
                     out_dtype=None, wait_for=None, event=True):
        """Writes PE(row0 + r) into row r of out for r < nrows
        (sinpe_enqueue_table_rows()), with the bits the table holds; any
        int32 row0 is valid.  out: a pyopencl Array (its dtype gives out_dtype,
        its offset and row stride are used) or a Buffer; out_offset and
        out_stride count elements.  Non-blocking; returns the event (None
        with event=False)."""
        h, boff, arr = _mem.mem(out, "out")
        dt = _embed.out_dtype(arr, out_dtype)
        off = out_offset + (to_values(boff, dt, "out") if boff else 0)
        stride = out_stride if out_stride is not None else _embed.row_stride(arr, dt, "out")
        qh = _mem.handle(queue, "queue")
        return _mem.enqueue(queue, wait_for, event, lambda n, wl, ev: (
            self._lib.sinpe_enqueue_table_rows(self._ptr, qh, row0, nrows, h, off, stride, dt,
                                               n, wl, ev)))

    def enqueue_grid(self, queue, out, rows, cols, *, add=False, out_offset=0,
                     out_stride=None, out_dtype=None, wait_for=None, event=True, **grid):
        """The 2-D (or, with frame_table, 3-D) sincos encoding of a rows x
        cols patch grid into out (add=True: added onto it, the patch
        embeddings in place), one to three launches (sinpe_enqueue_grid():
        a batch keeps its image's encoding for the next call of the same
        grid; see grid_host() for the positions and the keywords).  out as
        enqueue_rows().  Non-blocking; returns the event."""
        from .host import _grid_args
        h, boff, arr = _mem.mem(out, "out")
        dt = _embed.out_dtype(arr, out_dtype)
        a = _grid_args(self, rows, cols, add, dt, **grid)
        a.out = h
        a.out_offset = out_offset + (to_values(boff, dt, "out") if boff else 0)
        a.out_stride = out_stride if out_stride is not None else _embed.row_stride(arr, dt, "out")
        qh = _mem.handle(queue, "queue")
        return _mem.enqueue(queue, wait_for, event, lambda n, wl, ev: (
            self._lib.sinpe_enqueue_grid(self._ptr, qh, byref(a), n, wl, ev)))

    # -- the embedding calls (see embed.py) ---------------------------------

    embed = _embed.embed
    gather = _embed.gather
    add_positions = _embed.add_positions
    embed_call = _embed.embed_call
    timesteps = _embed.timesteps

    # -- NumPy (see host.py) -------------------------------------------------

    embed_host = _host.embed_host
    read_rows = _host.read_rows
    timesteps_host = _host.timesteps_host
    grid_host = _host.grid_host

    def __repr__(self):
        if not self._ptr:
            return "<sinpe.Table released>"
        return f"<sinpe.Table {self.spec!r} rows={self.rows}>"

