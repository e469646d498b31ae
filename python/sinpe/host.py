"""The NumPy path: host arrays in, host arrays out, no PyOpenCL.

embed_host() is sinpe_embed_host(), the library's synchronous call on host
memory (float32 weights and output).  read_rows() and timesteps_host()
move host arrays through temporary device buffers of the context, made
with the OpenCL loader that libsinpe itself uses (see _ocl.py).
"""

from ctypes import byref

import numpy as np

from . import _ocl
from ._dtypes import code as dtype_code, host, info
from ._types import CONSTANTS
from .errors import SinpeError, fail

INVALID_DTYPE = CONSTANTS["SINPE_INVALID_DTYPE"]
INVALID_SHAPE = CONSTANTS["SINPE_INVALID_SHAPE"]
ID_OUT_OF_RANGE = CONSTANTS["SINPE_ID_OUT_OF_RANGE"]
BUFFER_TOO_SMALL = CONSTANTS["SINPE_BUFFER_TOO_SMALL"]
_I32 = np.iinfo(np.int32)


def _int32(values, what):
    """A C-contiguous int32 copy or view of an integer array; values outside
    int32 are refused rather than wrapped."""
    a = np.asarray(values)
    if a.dtype.kind not in "iu":
        raise SinpeError(INVALID_DTYPE, f"{what}: integers expected, not {a.dtype}")
    if a.dtype != np.int32:
        if a.size and (a.min() < _I32.min or a.max() > _I32.max):
            raise SinpeError(ID_OUT_OF_RANGE if what == "ids" else INVALID_SHAPE,
                             f"{what}: values outside int32")
        a = a.astype(np.int32)
    return np.ascontiguousarray(a)


def _host_dtype(dtype, what):
    """(sinpe type, NumPy dtype of the result) for a requested output type:
    a name gives the type's host dtype (raw uint16 bits for "bfloat16"), a
    NumPy dtype (ml_dtypes.bfloat16 included) gives itself."""
    c = dtype_code(dtype, what)
    if isinstance(dtype, str) or info(c) is None:
        return c, host(c)
    return c, np.dtype(dtype)


def embed_host(self, ids, weights, *, token_scale=1.0, start=0, positions=None, out=None):
    """sinpe_embed_host(): the fused call on host memory, blocking.

    ids: integers of shape (n_seqs, seq_len) (1-D: one sequence), converted
    to int32; weights: float32 of shape (vocab, dim); positions: None
    (start + t) or integers of ids' shape (start + positions[r]); out: None
    (a new array) or float32 of shape ids.shape + (dim,), C-contiguous.
    Returns out.  sinpe checks every argument (ids in [0, vocab):
    ID_OUT_OF_RANGE) before anything is read or written.  Raises
    SinpeError.
    """
    ids = _int32(ids, "ids")
    shape = ids.shape if ids.ndim == 2 else (1, ids.size)
    w = np.asarray(weights)
    if w.dtype != np.float32:
        raise SinpeError(INVALID_DTYPE, f"weights: sinpe_embed_host takes float32, not "
                         f"{w.dtype}; embed() on device arrays takes the other types")
    if w.ndim != 2 or w.shape[1] != self.dim:
        raise SinpeError(INVALID_SHAPE, f"weights: shape {w.shape} is not (vocab, dim = "
                         f"{self.dim})")
    w = np.ascontiguousarray(w)
    pos = None
    if positions is not None:
        pos = _int32(positions, "positions")
        if pos.size != ids.size:
            raise SinpeError(INVALID_SHAPE, f"positions: {pos.size} values for {ids.size} ids")
    if out is None:
        out = np.empty(ids.shape + (self.dim,), np.float32)
    elif (not isinstance(out, np.ndarray) or out.dtype != np.float32
          or not out.flags.c_contiguous or out.flags.writeable is False):
        raise SinpeError(INVALID_DTYPE, "out: a writable C-contiguous float32 array expected")
    elif out.size != ids.size * self.dim:
        raise SinpeError(BUFFER_TOO_SMALL, f"out: {out.size} values for {ids.size} rows of "
                         f"{self.dim}")
    st = self._lib.sinpe_embed_host(
        self._ptr, ids.ctypes.data, shape[0], shape[1], w.ctypes.data, w.shape[0],
        token_scale, start, pos.ctypes.data if pos is not None else None, out.ctypes.data)
    if st:
        fail(st)
    return out


def _run(self, nbytes, enqueue):
    """Runs enqueue(queue, buffer) on sinpe's queue with a temporary device
    buffer of nbytes; returns the buffer for reading, released by caller."""
    cl_ctx, _, queue = self._handles
    buf = _ocl.create_buffer(cl_ctx, max(nbytes, 4), _ocl.MEM_READ_WRITE)
    try:
        st = enqueue(queue, buf)
        if st:
            fail(st)
        return queue, buf
    except BaseException:
        _ocl.release(buf)
        raise


def read_rows(self, row0=0, nrows=None, dtype="float32"):
    """PE(row0 + r) for r < nrows as a host array of shape (nrows, dim),
    with the table's bits (sinpe_enqueue_table_rows()); nrows defaults to
    the rows held past row0.  dtype: "float32", "float16", "bfloat16" (raw
    uint16 bits) or a NumPy dtype (ml_dtypes.bfloat16).  Blocking.
    """
    if nrows is None:
        nrows = max(self.rows - row0, 0)
    c, np_dtype = _host_dtype(dtype, "dtype")
    n = self._lib.sinpe_dtype_bytes(c, nrows * self.dim)
    out = np.empty((nrows, self.dim), np_dtype)
    queue, buf = _run(self, n, lambda q, b: self._lib.sinpe_enqueue_table_rows(
        self._ptr, q, row0, nrows, b, 0, 0, c, 0, None, None))
    try:
        _ocl.read(queue, buf, out)
    finally:
        _ocl.release(buf)
    return out


def _grid_args(self, rows, cols, add, dtype, n_seqs=1, extra_tokens=0, base_size=0.0,
               interpolation_scale=1.0, max_size=0, frames=0, frame_table=None,
               frame_interpolation_scale=1.0):
    from ._types import GridArgs, struct_size
    a = GridArgs()
    self._lib.sinpe_grid_args_init_sized(byref(a), struct_size(a))
    a.n_seqs, a.rows, a.cols, a.extra_tokens = n_seqs, rows, cols, extra_tokens
    a.base_size, a.interpolation_scale, a.max_size = base_size, interpolation_scale, max_size
    a.frames, a.frame_interpolation_scale = frames, frame_interpolation_scale
    a.frame_table = frame_table._ptr if frame_table is not None else None
    a.add, a.dtype = 1 if add else 0, dtype
    return a


def grid_host(self, rows, cols, *, dtype="float32", **grid):
    """The 2-D sincos encoding of a rows x cols patch grid
    (sinpe_enqueue_grid(), the table being the half-width MAE encoding) as
    a host array [n_seqs * (extra_tokens + rows * cols), 2 * dim]: MAE's and
    diffusers' get_2d_sincos_pos_embed, positions (index + crop) /
    (grid / base_size) / interpolation_scale in float32 (base_size 0: the
    index), SD3's crop of a max_size grid.  With frame_table (and frames,
    frame_interpolation_scale) the 3-D encoding of CogVideoX, [frame_table's
    dim + 2 * dim] wide.  Keywords: n_seqs, extra_tokens, base_size,
    interpolation_scale, max_size, frames, frame_table,
    frame_interpolation_scale.  Blocking."""
    c, np_dtype = _host_dtype(dtype, "dtype")
    a = _grid_args(self, rows, cols, False, c, **grid)
    frames, ft = max(a.frames, 1), grid.get("frame_table")
    n = a.n_seqs * (a.extra_tokens + frames * rows * cols)
    out = np.empty((n, (ft.dim if ft is not None else 0) + 2 * self.dim), np_dtype)

    def enqueue(q, b):
        a.out = b
        return self._lib.sinpe_enqueue_grid(self._ptr, q, byref(a), 0, None, None)

    queue, buf = _run(self, self._lib.sinpe_dtype_bytes(c, out.size), enqueue)
    try:
        _ocl.read(queue, buf, out)
    finally:
        _ocl.release(buf)
    return out


def timesteps_host(self, timesteps, dtype="float32"):
    """PE(t) for each real timestep t (sinpe_enqueue_timesteps()) as a host
    array of shape (len(timesteps), dim).  dtype as read_rows().  Blocking.
    """
    ts = np.ascontiguousarray(timesteps, dtype=np.float32).reshape(-1)
    c, np_dtype = _host_dtype(dtype, "dtype")
    out = np.empty((ts.size, self.dim), np_dtype)
    lib = self._lib
    tbuf = _ocl.upload(self._handles[0], ts)
    try:
        queue, buf = _run(self, lib.sinpe_dtype_bytes(c, ts.size * self.dim),
                          lambda q, b: lib.sinpe_enqueue_timesteps(
                              self._ptr, q, tbuf, 0, ts.size, b, 0, 0, c, 0, None, None))
        try:
            _ocl.read(queue, buf, out)
        finally:
            _ocl.release(buf)
    finally:
        _ocl.release(tbuf)
    return out
