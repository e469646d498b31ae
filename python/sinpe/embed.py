"""The enqueue calls of a table on PyOpenCL objects: the fused embedding,
the unfused pair, prepared calls for decode loops, and timesteps."""

from . import _args, _mem
from ._dtypes import F32, resolve, to_values

_FIELDS_DOC = """
    ids       int32 tokens: an Array of shape (n_seqs, seq_len) (1-D: one
              sequence), or a Buffer with n_seqs and seq_len given.
    weights   the embedding table E: an Array of shape (vocab, row) whose
              dtype gives weights_dtype (float32, float16, ml_dtypes'
              bfloat16, float8_e4m3fn, float8_e5m2; raw bits in integer
              arrays with weights_dtype named: "bfloat16", "i8", "q8_0",
              "fp8_e4m3", "fp8_e5m2", ggml's "q4_0" .. "q6_k"), or a
              Buffer with vocab given; or a list of up to four such
              Arrays, each a run of consecutive rows of one type, row
              stride and offset (a table past one allocation).
    out       an Array of shape (rows, row) or (n_seqs, seq_len, row), row
              >= dim (the dim columns of each row are written), whose dtype
              gives out_dtype; or a Buffer.
    queue     a pyopencl.CommandQueue of the table's context and device (or
              a raw cl_command_queue int: the event is then a raw int too).
    wait_for  pyopencl events to wait for; event=False returns no event.
    fields    any field of sinpe_embed_args by its C name (the header says
              what each means): n_seqs, seq_len, vocab, token_scale, start,
              positions, positions_broadcast, seq_starts, pad_counts,
              position_rule ("index", "fairseq"), pad_policy ("none",
              "zero_pe", "zero_output", "zero_embedding"), pad_id,
              vocab_shard ("none", "rows", "owner"), vocab_start,
              vocab_total, skip_pe, bad_ids, weight_scales (an Array of
              float32 or float16), weights_scale, token_scale_rounding
              ("exact", "weights", "output"), weights_stride, out_stride,
              the *_dtype fields and the *_offset fields (elements, added
              to an Array's own offset); and preset (a name such as
              "fairseq": sinpe_embed_args_preset() with pad_id, applied
              before the other fields).
    Returns the pyopencl.Event of the call's last command.  Non-blocking.
    Raises SinpeError with sinpe's status (nothing is enqueued then).
"""


def _call(fn, table, queue, ids, weights, out, wait_for, event, fields):
    a = _args.prepare(table, ids, weights, out, fields)
    qh = _mem.handle(queue, "queue")
    return _mem.enqueue(queue, wait_for, event,
                        lambda n, wl, ev: fn(table._ptr, qh, a, n, wl, ev))


def embed(self, queue, ids, weights, out, *, wait_for=None, event=True, **fields):
    return _call(self._lib.sinpe_enqueue_embed, self, queue, ids, weights, out, wait_for,
                 event, fields)


embed.__doc__ = """The fused call, sinpe_enqueue_embed():
    out[r, :] = token_scale * E[id_r, :] + PE(pos_r), one kernel.
""" + _FIELDS_DOC


def gather(self, queue, ids, weights, out, *, wait_for=None, event=True, **fields):
    return _call(self._lib.sinpe_enqueue_gather, self, queue, ids, weights, out, wait_for,
                 event, fields)


gather.__doc__ = """First half of the unfused pair, sinpe_enqueue_gather():
    out[r, :] = token_scale * E[id_r, :] (positions are ignored).
""" + _FIELDS_DOC


def add_positions(self, queue, out, *, ids=None, wait_for=None, event=True, **fields):
    return _call(self._lib.sinpe_enqueue_add_positions, self, queue, ids, None, out,
                 wait_for, event, fields)


add_positions.__doc__ = """Second half, sinpe_enqueue_add_positions():
    out[r, :] += PE(pos_r) in place.  ids is needed only with a padding
    policy or the FAIRSEQ rule; without ids the shape comes from a 3-D out
    or from n_seqs and seq_len.
""" + _FIELDS_DOC


class EmbedCall:
    """A fused call with its arguments resolved once, for loops that repeat
    it (decode steps): calling it costs one ctypes call.

    args is the sinpe_embed_args struct itself: change a field between calls
    (call.args.start = step).  The buffers given stay referenced by the
    object.  Calls on one EmbedCall from several threads are safe as long as
    none changes args meanwhile.
    """

    __slots__ = ("args", "_fn", "_table", "_keep", "_queue")

    def __init__(self, table, kind, ids, weights, out, fields):
        if kind not in ("embed", "gather", "add_positions"):
            raise ValueError(f"kind {kind!r} is not 'embed', 'gather' or 'add_positions'")
        self.args = _args.prepare(table, ids, weights, out, fields, remember=False)
        self._keep = (ids, weights, out, fields)
        self._fn = getattr(table._lib, "sinpe_enqueue_" + kind)
        self._table = table
        self._queue = (None, None)  # the last queue and its handle, swapped as one

    def __call__(self, queue, wait_for=None, event=True):
        """Enqueues the call on queue; returns its event (None with
        event=False).  Raises SinpeError."""
        last, qh = self._queue
        if queue is not last:
            qh = _mem.handle(queue, "queue")
            self._queue = (queue, qh)
        return _mem.enqueue(queue, wait_for, event,
                            lambda n, wl, ev: self._fn(self._table._ptr, qh, self.args, n, wl,
                                                       ev))


def embed_call(self, ids, weights, out, *, kind="embed", **fields):
    """An EmbedCall of embed() ("embed"), gather() or add_positions() with
    these arguments (see embed() for them), checked by sinpe at each call."""
    return EmbedCall(self, kind, ids, weights, out, fields)


def timesteps(self, queue, timesteps, out, *, count=None, ts_offset=0, out_offset=0,
              out_stride=None, out_dtype=None, wait_for=None, event=True):
    """out[n, :] = PE(timesteps[n]) for real timesteps, n < count
    (sinpe_enqueue_timesteps(); use the DIFFUSERS or GGML_TIMESTEP presets).

    timesteps: a float32 Array (count defaults to its size) or a Buffer;
    out: an Array of shape (count, row) whose dtype gives out_dtype, or a
    Buffer.  Offsets and strides count elements.  Non-blocking; returns the
    event.  Raises SinpeError.
    """
    th, tboff, tarr = _mem.mem(timesteps, "timesteps")
    if tarr is not None:
        resolve(tarr.dtype, F32, "timesteps")
        if count is None:
            count = tarr.size
    oh, oboff, oarr = _mem.mem(out, "out")
    dt = _args.out_dtype(oarr, out_dtype)
    stride = out_stride if out_stride is not None else _args.row_stride(oarr, dt, "out")
    if oarr is not None and count:
        _args._check_view(oarr, count, stride, self.dim, "out")
    qh = _mem.handle(queue, "queue")
    ts_off = ts_offset + to_values(tboff, F32, "timesteps")
    out_off = out_offset + to_values(oboff, dt, "out")
    return _mem.enqueue(queue, wait_for, event, lambda n, wl, ev: (
        self._lib.sinpe_enqueue_timesteps(self._ptr, qh, th, ts_off, count or 0, oh, out_off,
                                          stride, dt, n, wl, ev)))


out_dtype = _args.out_dtype
row_stride = _args.row_stride
