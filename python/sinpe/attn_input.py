"""The attention input stage (sinpe_enqueue_attn_input()): RopeTable's
attn_input() on PyOpenCL arrays and attn_input_host() on NumPy arrays."""

from ctypes import Structure, byref, c_double, c_int, c_size_t

import numpy as np

from . import _mem, _ocl
from ._api import ENQUEUE_TAIL, declare, recording
from ._dtypes import resolve, to_values
from ._rope_args import _heads, _int32_arg, split_tokens
from ._types import CONSTANTS, cl_int, cl_mem, enum, struct_size
from .errors import SinpeError, fail


class AttnInputArgs(Structure):
    """sinpe_attn_input_args: the arguments of sinpe_enqueue_attn_input()."""

    c_name = "sinpe_attn_input_args"
    _fields_ = [
        ("struct_size", c_size_t),
        ("n_seqs", c_size_t),
        ("seq_len", c_size_t),
        ("head_dim", c_size_t),
        ("dtype", enum),
        ("q", cl_mem), ("q_offset", c_size_t), ("q_stride", c_size_t), ("q_heads", c_size_t),
        ("k", cl_mem), ("k_offset", c_size_t), ("k_stride", c_size_t), ("kv_heads", c_size_t),
        ("v", cl_mem), ("v_offset", c_size_t), ("v_stride", c_size_t),
        ("q_out", cl_mem), ("q_out_offset", c_size_t), ("q_out_stride", c_size_t),
        ("rotate", c_int),
        ("norm", enum),
        ("norm_after", c_int),
        ("eps", c_double),
        ("q_norm_weight", cl_mem), ("q_norm_weight_offset", c_size_t),
        ("k_norm_weight", cl_mem), ("k_norm_weight_offset", c_size_t),
        ("temperature", c_int),
        ("attn_scale", c_double),
        ("floor_scale", c_double),
        ("slot_mapping", cl_mem), ("slot_mapping_offset", c_size_t),
        ("k_cache", cl_mem), ("k_cache_offset", c_size_t),
        ("v_cache", cl_mem), ("v_cache_offset", c_size_t),
        ("cache_rows", c_size_t),
        ("cache_dtype", enum),
        ("start", cl_int),
        ("positions", cl_mem), ("positions_offset", c_size_t),
        ("seq_starts", cl_mem), ("seq_starts_offset", c_size_t),
        ("lane_stride", c_size_t),
        ("grid_rows", c_size_t),
        ("grid_cols", c_size_t),
        ("grid_start", c_size_t),
        ("rotary_offset", c_size_t),
    ]


declare((AttnInputArgs,), (
    ("sinpe_attn_input_args_init_sized", "void", ("sinpe_attn_input_args *", "size_t")),
    ("sinpe_enqueue_attn_input", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "const sinpe_attn_input_args *") + ENQUEUE_TAIL),
    ("sinpe_record_attn_input", "sinpe_status", recording("const sinpe_attn_input_args *")),
), {"SINPE_QK_NORM_NONE": 0, "SINPE_QK_NORM_RMS": 1, "SINPE_QK_NORM_RMS_GEMMA": 2,
    "SINPE_QK_NORM_L2": 3})

INVALID_SHAPE = CONSTANTS["SINPE_INVALID_SHAPE"]
INVALID_OPTION = CONSTANTS["SINPE_INVALID_OPTION"]
Q8_0 = CONSTANTS["SINPE_Q8_0"]
NORMS = {"none": 0, "rms": 1, "rms_gemma": 2, "gemma": 2, "l2": 3}


def _norm(value):
    if isinstance(value, str):
        if value.lower() not in NORMS:
            raise SinpeError(INVALID_OPTION, f"norm {value!r}: one of {', '.join(NORMS)}")
        return NORMS[value.lower()]
    return 0 if value is None else int(value)


def _options(a, norm, norm_after, eps, rotate, temperature, start, rotary_offset):
    a.norm, a.norm_after, a.eps, a.rotate, a.start = (_norm(norm), int(bool(norm_after)),
                                                      eps, int(bool(rotate)), start)
    a.rotary_offset = rotary_offset
    if temperature is not None:
        a.temperature = 1
        a.attn_scale, a.floor_scale = temperature


def _cache_rows(arr, kv_heads, head_dim, ct, what):
    """The rows of a cache array of kv_heads x head_dim values of type ct
    per row ([rows, kv_heads, head_dim], vLLM's [blocks, block_size,
    kv_heads, head_dim], or the bytes of Q8_0 rows)."""
    row = kv_heads * head_dim
    if ct == Q8_0:
        per = row // 32 * 34
        if arr.nbytes % per:
            raise SinpeError(INVALID_SHAPE, f"{what}: {arr.nbytes} bytes are not whole Q8_0 "
                             f"rows of {per}")
        return arr.nbytes // per
    if arr.size % row:
        raise SinpeError(INVALID_SHAPE, f"{what}: {arr.size} values are not whole rows of "
                         f"kv_heads {kv_heads} x head_dim {head_dim}")
    return arr.size // row


def attn_input(self, queue, q, k=None, v=None, *, k_cache=None, v_cache=None,
               slot_mapping=None, q_out=None, norm="none", norm_after=False, eps=1e-6,
               q_norm_weight=None, k_norm_weight=None, rotate=True, temperature=None, start=0,
               positions=None, seq_starts=None, cache_dtype=None, dtype=None, n_seqs=None,
               seq_len=None, rotary_offset=0, wait_for=None, event=True):
    """One launch of the attention input stage (include/sinpe.h,
    sinpe_attn_input_args): q [tokens, q_heads, head_dim] normed (norm
    "rms", "rms_gemma", "l2" with eps and float32 weights of head_dim;
    before the rotation, or after with norm_after), rotated by the table
    (rotate False: a NoPE layer; rotary_offset: the first rotated column of
    a head, DeepSeek-V3's 128), times Llama 4's temperature (temperature
    = (attn_scale, floor_scale)), in place or into q_out; k and v
    [tokens, kv_heads, head_dim] into k_cache and v_cache rows (arrays of
    [rows, kv_heads, head_dim] or [blocks, block_size, kv_heads, head_dim];
    Q8_0: uint8 bytes with cache_dtype="q8_0") at slot_mapping[token]
    (int32; negative or past the cache: skipped; None: row = token).
    Non-blocking; returns the event.  Raises SinpeError."""
    a = AttnInputArgs()
    self._lib.sinpe_attn_input_args_init_sized(byref(a), struct_size(a))
    dt, tokens, seqs, head_dim = None, None, None, None
    for name, obj in (("q", q), ("k", k), ("v", v), ("q_out", q_out)):
        if obj is None:
            continue
        h, boff, arr = _mem.mem(obj, name)
        here = resolve(arr.dtype if arr is not None else None, dtype, name)
        dt = here if here is not None else dt
        cur = dt if dt is not None else CONSTANTS["SINPE_F32"]
        setattr(a, name, h)
        setattr(a, name + "_offset", to_values(boff, cur, name) if boff else 0)
        if arr is None:
            raise SinpeError(INVALID_SHAPE, f"{name}: attn_input() takes arrays")
        heads, head_dim, ntok, stride, s = _heads(arr, head_dim, cur, name)
        setattr(a, name + "_stride", stride)
        if name == "q":
            a.q_heads = heads
        elif name == "k":
            a.kv_heads = heads
        if name != "q_out":
            if tokens is not None and ntok != tokens:
                raise SinpeError(INVALID_SHAPE, f"{name}: {ntok} tokens, q has {tokens}")
            tokens, seqs = ntok, s if s is not None else seqs
    a.dtype = dt if dt is not None else a.dtype
    a.n_seqs, a.seq_len = split_tokens(tokens, n_seqs, seq_len, seqs, "q")
    a.head_dim = head_dim
    for name, obj in (("k_cache", k_cache), ("v_cache", v_cache)):
        if obj is None:
            continue
        h, boff, arr = _mem.mem(obj, name)
        ct = resolve(arr.dtype if cache_dtype is None else arr.dtype, cache_dtype, name)
        a.cache_dtype = ct
        setattr(a, name, h)
        setattr(a, name + "_offset", to_values(boff, ct, name) if boff else 0)
        a.cache_rows = _cache_rows(arr, a.kv_heads, head_dim, ct, name)
    for name, obj in (("q_norm_weight", q_norm_weight), ("k_norm_weight", k_norm_weight)):
        if obj is not None:
            h, boff, arr = _mem.mem(obj, name)
            setattr(a, name, h)
            setattr(a, name + "_offset", boff // 4)
    _options(a, norm, norm_after, eps, rotate, temperature, start, rotary_offset)
    if slot_mapping is not None:
        _int32_arg(a, "slot_mapping", slot_mapping)
    if positions is not None:
        arr = _int32_arg(a, "positions", positions)
        if arr is not None and arr.ndim > 1:
            a.lane_stride = arr.strides[0] // 4
    if seq_starts is not None:
        _int32_arg(a, "seq_starts", seq_starts)
    qh = _mem.handle(queue, "queue")
    return _mem.enqueue(queue, wait_for, event, lambda n, wl, ev: (
        self._lib.sinpe_enqueue_attn_input(self._ptr, qh, byref(a), n, wl, ev)))


def attn_input_host(self, q, k=None, v=None, *, k_cache=None, v_cache=None, cache_rows=None,
                    slot_mapping=None, norm="none", norm_after=False, eps=1e-6,
                    q_norm_weight=None, k_norm_weight=None, rotate=True, temperature=None,
                    start=0, positions=None, cache_dtype="float32", dtype=None,
                    rotary_offset=0):
    """attn_input() on NumPy arrays, blocking: q, k, v [tokens, heads,
    head_dim] (float32, float16, or bfloat16 bits with dtype="bfloat16");
    k_cache and v_cache arrays to update (copies are returned), or
    cache_rows for new zeroed ones of cache_dtype ("float32", "float16",
    "bfloat16" as uint16 bits, "q8_0" as uint8 bytes).  positions:
    integers per token ([lanes, tokens] for several lanes).  Returns
    (q_out, k_cache, v_cache).  Raises SinpeError."""
    from .host import _host_dtype
    cl_ctx, _, queue = self._handles
    q = np.ascontiguousarray(q)
    tokens, qh, hd = q.shape
    kh = 0 if k is None else k.shape[1]
    ct, np_ct = _host_dtype(cache_dtype, "cache_dtype")
    if k_cache is None and kh:
        if cache_rows is None:
            raise SinpeError(INVALID_SHAPE, "give k_cache and v_cache, or cache_rows")
        shape = (cache_rows, kh * hd // 32 * 34) if ct == Q8_0 else (cache_rows, kh, hd)
        k_cache, v_cache = np.zeros(shape, np_ct), np.zeros(shape, np_ct)
    a = AttnInputArgs()
    self._lib.sinpe_attn_input_args_init_sized(byref(a), struct_size(a))
    a.dtype = resolve(q.dtype, dtype, "q")
    a.n_seqs, a.seq_len, a.head_dim, a.q_heads, a.kv_heads = 1, tokens, hd, qh, kh
    a.cache_dtype = ct
    _options(a, norm, norm_after, eps, rotate, temperature, start, rotary_offset)
    bufs = []

    def up(x, dtype=None):
        x = np.ascontiguousarray(x if dtype is None else np.asarray(x, dtype))
        b = _ocl.create_buffer(cl_ctx, max(x.nbytes, 4),
                               _ocl.MEM_READ_WRITE | (_ocl.MEM_COPY_HOST_PTR if x.nbytes else 0),
                               x if x.nbytes else None)
        bufs.append(b)
        return b
    try:
        a.q = up(q)
        if kh:
            a.k, a.v = up(k), up(v)
            a.k_cache, a.v_cache = up(k_cache), up(v_cache)
            a.cache_rows = _cache_rows(k_cache, kh, hd, ct, "k_cache")
        for name, w in (("q_norm_weight", q_norm_weight), ("k_norm_weight", k_norm_weight)):
            if w is not None:
                setattr(a, name, up(w, np.float32))
        if slot_mapping is not None:
            a.slot_mapping = up(slot_mapping, np.int32)
        if positions is not None:
            p = np.asarray(positions, np.int32)
            a.positions = up(p.reshape(-1))
            a.lane_stride = tokens if p.ndim > 1 else 0
        st = self._lib.sinpe_enqueue_attn_input(self._ptr, queue, byref(a), 0, None, None)
        if st:
            fail(st)
        q_out = np.empty_like(q)
        _ocl.read(queue, a.q, q_out)
        if not kh:
            return q_out, None, None
        kc, vc = np.empty_like(k_cache), np.empty_like(v_cache)
        _ocl.read(queue, a.k_cache, kc)
        _ocl.read(queue, a.v_cache, vc)
        return q_out, kc, vc
    finally:
        for b in bufs:
            _ocl.release(b)


def _methods():
    from .rope import RopeTable
    RopeTable.attn_input = attn_input
    RopeTable.attn_input_host = attn_input_host


_methods()
