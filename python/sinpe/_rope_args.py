"""The arguments of a rotation (sinpe_rope_args) from PyOpenCL arrays:
their heads, tokens, strides and offsets, and the fields given by name."""

from ctypes import byref

import numpy as np

from . import _mem
from ._args import int32_offset
from ._dtypes import resolve, to_values
from ._lib import load
from ._types import CONSTANTS, RopeArgs, struct_size
from .errors import SinpeError

INVALID_SHAPE = CONSTANTS["SINPE_INVALID_SHAPE"]
INVALID_DTYPE = CONSTANTS["SINPE_INVALID_DTYPE"]


def _heads(arr, head_dim, dt, what):
    """(heads, head_dim, tokens, row stride, n_seqs, seq_len or None) of a q
    or k Array: [tokens, heads, head_dim], [n_seqs, seq_len, heads,
    head_dim], or [tokens, heads * head_dim] with head_dim given.  Each
    token's heads must be contiguous; tokens evenly spaced."""
    shape, st, isz = arr.shape, arr.strides, arr.dtype.itemsize
    nd = len(shape)
    seqs = None
    if nd == 4:
        seqs = shape[:2]
        tokens, heads, hd = shape[0] * shape[1], shape[2], shape[3]
        if shape[0] > 1 and st[0] != shape[1] * st[1]:
            raise SinpeError(INVALID_SHAPE, f"{what}: sequences must be evenly spaced "
                             f"(strides {st})")
        row = st[1]
        inner = st[2:]
    elif nd == 3:
        tokens, heads, hd = shape
        row = st[0]
        inner = st[1:]
    elif nd == 2:
        if not head_dim:
            raise SinpeError(INVALID_SHAPE, f"{what}: a 2-D array of shape {shape} needs "
                             f"head_dim")
        tokens, width = shape
        if width % head_dim:
            raise SinpeError(INVALID_SHAPE, f"{what}: rows of {width} values are not whole "
                             f"heads of {head_dim}")
        heads, hd = width // head_dim, head_dim
        row = st[0]
        inner = (head_dim * isz, st[1])
    else:
        raise SinpeError(INVALID_SHAPE, f"{what}: shape {shape}: expected [tokens, heads, "
                         f"head_dim], [n_seqs, seq_len, heads, head_dim] or [tokens, "
                         f"heads * head_dim]")
    if head_dim and hd != head_dim:
        raise SinpeError(INVALID_SHAPE, f"{what}: heads of {hd} values, head_dim {head_dim}")
    if (hd > 1 and inner[1] != isz) or (heads > 1 and inner[0] != hd * isz):
        raise SinpeError(INVALID_SHAPE, f"{what}: a token's heads must be contiguous "
                         f"(strides {st})")
    stride = to_values(row, dt, what) if tokens > 1 else heads * hd
    return heads, hd, tokens, stride, seqs


def _int32_arg(a, name, value):
    h, boff, arr = _mem.mem(value, name)
    setattr(a, name, h)
    setattr(a, name + "_offset", int32_offset(arr, boff, name))
    return arr


def split_tokens(tokens, n_seqs, seq_len, seqs, what):
    """(n_seqs, seq_len) of the tokens of the array named what: the
    arguments where given, else the array's 4-D shape (seqs: (n_seqs,
    seq_len) or None), else one sequence.  Raises SinpeError
    (INVALID_SHAPE) naming the Python arguments when they do not make up
    the array's tokens, rather than rotating part of it or letting sinpe
    name a field of its struct the caller never saw."""
    if tokens == 0:
        raise SinpeError(INVALID_SHAPE, f"{what} holds no tokens")
    if n_seqs is None and seq_len is None:
        return seqs if seqs is not None else (1, tokens)
    given, other = (("n_seqs", n_seqs), "seq_len") if seq_len is None else (
        ("seq_len", seq_len), "n_seqs")
    if n_seqs is None or seq_len is None:
        if given[1] <= 0 or tokens % given[1]:
            raise SinpeError(INVALID_SHAPE, f"{given[0]} {given[1]} does not divide the "
                             f"{tokens} tokens of {what} (give {other} too, or neither)")
        return (n_seqs, tokens // n_seqs) if seq_len is None else (tokens // seq_len, seq_len)
    if n_seqs * seq_len != tokens or n_seqs <= 0:
        raise SinpeError(INVALID_SHAPE, f"n_seqs {n_seqs} * seq_len {seq_len} is not the "
                         f"{tokens} tokens of {what}")
    return n_seqs, seq_len


def check_head_dim(table, head_dim, what):
    """Raises SinpeError (INVALID_SHAPE) naming the array when its heads are
    narrower than the table's rotary dimension."""
    if head_dim < table.dim:
        raise SinpeError(INVALID_SHAPE, f"{what}: heads of {head_dim} values (head_dim), below "
                         f"the table's rotary_dim {table.dim}")


def prepare(table, q, k, q_out, k_out, *, head_dim=None, n_seqs=None, seq_len=None,
            dtype=None, start=0, positions=None, seq_starts=None, k_rows=None, fields=None):
    """A filled sinpe_rope_args for table's rotation of these Arrays.
    Raises SinpeError naming the Python arguments where they are wrong
    together (both of q and k None, token counts, head_dim)."""
    if q is None and k is None:
        raise SinpeError(INVALID_SHAPE, "q and k are both None: nothing to rotate")
    if k_rows is not None and k_out is None:
        raise SinpeError(INVALID_SHAPE, "k_rows is given without k_out (the key cache)")
    a = RopeArgs()
    load().sinpe_rope_args_init_sized(byref(a), struct_size(a))
    dt = None
    tokens = None
    seqs = None
    first = None  # the name of the first array of q and k
    for name, obj in (("q", q), ("k", k), ("q_out", q_out), ("k_out", k_out)):
        if obj is None:
            continue
        h, boff, arr = _mem.mem(obj, name)
        dt_here = resolve(arr.dtype if arr is not None else None, dtype, name)
        if dt_here is not None:
            if dt is not None and dt_here != dt:
                raise SinpeError(INVALID_DTYPE, f"{name}: another dtype than the others "
                                 f"(q, k and the outputs share one)")
            dt = dt_here
        cur = dt if dt is not None else CONSTANTS["SINPE_F32"]
        setattr(a, name, h)
        setattr(a, name + "_offset", to_values(boff, cur, name) if boff else 0)
        if arr is None:
            continue
        heads, hd, ntok, stride, s = _heads(arr, head_dim, cur, name)
        head_dim = hd
        setattr(a, name + "_stride", stride)
        if name == "q":
            a.q_heads = heads
        elif name == "k":
            a.kv_heads = heads
        elif name == "k_out" and k_rows is not None:
            a.k_out_rows = ntok
        if name in ("q", "k"):
            if tokens is None:
                tokens, seqs, first = ntok, s, name
            elif ntok != tokens:
                raise SinpeError(INVALID_SHAPE, f"{name}: {ntok} tokens, q has {tokens}")
    if dt is not None:
        a.dtype = dt
    if tokens is None:  # Buffers: no shape to take the sizes from
        for name, value in (("n_seqs", n_seqs), ("seq_len", seq_len), ("head_dim", head_dim)):
            if value is None:
                raise SinpeError(INVALID_SHAPE, f"{name} is needed when q and k are Buffers "
                                 f"(no array shape gives it)")
    else:
        n_seqs, seq_len = split_tokens(tokens, n_seqs, seq_len, seqs, first)
        check_head_dim(table, head_dim, first)
    a.head_dim = head_dim
    a.n_seqs = n_seqs
    a.seq_len = seq_len
    a.start = start
    if positions is not None:
        arr = _int32_arg(a, "positions", positions)
        if arr is not None and arr.ndim > 1:  # [lanes, tokens...]: one lane a row
            if any(st != 4 * int(np.prod(arr.shape[i + 1:]))
                   for i, st in enumerate(arr.strides) if i > 0):
                raise SinpeError(INVALID_SHAPE, f"positions: a lane's positions must be "
                                 f"contiguous (strides {arr.strides})")
            a.lane_stride = arr.strides[0] // 4
    if seq_starts is not None:
        _int32_arg(a, "seq_starts", seq_starts)
    if k_rows is not None:
        _int32_arg(a, "k_rows", k_rows)
    for name, value in (fields or {}).items():
        if name not in RopeArgs._fields_dict:
            raise TypeError(f"unknown argument {name!r}: expected a field of sinpe_rope_args")
        if name.endswith("_offset"):
            setattr(a, name, getattr(a, name) + value)
        else:
            setattr(a, name, value)
    return a


RopeArgs._fields_dict = {n for n, _ in RopeArgs._fields_}
