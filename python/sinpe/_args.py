"""Python arguments -> sinpe_embed_args.

Each memory argument is resolved by _mem.mem(); an Array's dtype gives the
storage type (checked against an explicit *_dtype), its byte offset becomes
an element offset, and its shape gives what the caller left out: ids of
shape (n_seqs, seq_len) (1-D: one sequence), weights (vocab, row) with its
row stride, out (rows, row) or (n_seqs, seq_len, row) with its row stride.
Explicit fields, named as in the header, override what shapes give, and
*_offset fields add to an Array's own offset.  Everything else is left to
sinpe's own checks.

A table remembers what its last call's (ids, weights, out) gave, by weak
reference to the objects, so that a loop passing the same arrays pays for
the resolution once (an Array's buffer, offset, shape and dtype do not
change over its life).
"""

import weakref
from ctypes import byref, c_size_t

import numpy as np

from . import _mem
from ._dtypes import F32, resolve, to_values
from ._lib import load
from ._types import CONSTANTS, EmbedArgs, cl_mem, struct_size
from .errors import SinpeError, fail
from .spec import enum_value, preset_value

INVALID_DTYPE = CONSTANTS["SINPE_INVALID_DTYPE"]
INVALID_SHAPE = CONSTANTS["SINPE_INVALID_SHAPE"]
BUFFER_TOO_SMALL = CONSTANTS["SINPE_BUFFER_TOO_SMALL"]

# int32 buffers among the fields, and the enum fields with their groups.
INT32_FIELDS = ("positions", "bad_ids", "seq_starts", "pad_counts")
ENUMS = {"position_rule": "POSITIONS", "pad_policy": "PAD",
         "token_scale_rounding": "SCALE", "vocab_shard": "SHARD"}
PLAIN = frozenset(name for name, _ in EmbedArgs._fields_) - {
    "ids", "weights", "out", "weight_scales", "weights_dtype", "out_dtype",
    "weight_scales_dtype", *INT32_FIELDS, *ENUMS,
    # The C call's list of weights buffers (include/sinpe.h): not set from Python.
    "weights_count", "weights_list", "weights_rows"}

_INT32 = np.dtype(np.int32)
_SHAPE_FIELDS = frozenset(("n_seqs", "seq_len", "out_stride"))
_template = None


def new_args():
    """A fresh sinpe_embed_args holding sinpe_embed_args_init()'s defaults."""
    global _template
    if _template is None:
        t = EmbedArgs()
        load().sinpe_embed_args_init_sized(byref(t), struct_size(t))
        _template = bytes(t)
    return EmbedArgs.from_buffer_copy(_template)


def int32_offset(arr, boff, what):
    """The element offset of an int32 buffer argument (checking an Array)."""
    if arr is not None:
        dt = arr.dtype
        if dt != _INT32 and (dt.kind not in "iu" or dt.itemsize != 4):
            raise SinpeError(INVALID_DTYPE, f"{what}: int32 values expected, not {dt}")
        if not arr.flags.c_contiguous:
            raise SinpeError(INVALID_SHAPE, f"{what}: the array must be contiguous")
    if boff & 3:
        raise SinpeError(INVALID_SHAPE, f"{what}: offset {boff} bytes is not a whole int32")
    return boff >> 2


def row_stride(arr, dt, what):
    """The row stride, in elements, of a 2-D or 3-D Array (0 otherwise)."""
    if arr is None:
        return 0
    shape, st = arr.shape, arr.strides
    nd = len(shape)
    if nd < 2:
        return 0
    if st[-1] != arr.dtype.itemsize or (nd == 3 and st[0] != shape[1] * st[1]):
        raise SinpeError(INVALID_SHAPE, f"{what}: rows must be contiguous and evenly spaced "
                         f"(strides {st})")
    return to_values(st[-2], dt, what)


def out_dtype(arr, explicit):
    dt = resolve(arr.dtype if arr is not None else None, explicit, "out")
    return F32 if dt is None else dt


def _check_view(arr, rows, stride, dim, what):
    """An Array may be a view into a larger buffer, which sinpe, seeing only
    the buffer, cannot check: the rows written must lie inside the view."""
    shape = arr.shape
    nd = len(shape)
    if nd >= 2:
        avail = shape[0] * (shape[1] if nd == 3 else 1)
        ok = rows <= avail and shape[-1] >= dim
    else:
        ok = rows == 0 or (rows - 1) * (stride or dim) + dim <= shape[0]
    if not ok:
        raise SinpeError(BUFFER_TOO_SMALL, f"{what}: an array of shape {shape} cannot hold "
                         f"{rows} rows of {dim} values")


def _rows(arr, dt, dim, what):
    """The row stride, in values, of a 2-D weights Array at least dim wide."""
    if to_values(arr.shape[1] * arr.dtype.itemsize, dt, what) < dim:
        raise SinpeError(INVALID_SHAPE, f"{what}: rows of shape {arr.shape} are narrower "
                         f"than dim {dim}")
    return row_stride(arr, dt, what)


def _weights_list(a, dim, parts, wdt_name):
    """weights as a list of 2-D Arrays, each a run of consecutive rows (a
    table past one allocation: weights_count, weights_list and
    weights_rows), of one type, row stride and offset.  ctypes keeps the
    two arrays alive with the struct."""
    n = len(parts)
    handles, rows, facts = [], [], None
    for i, w in enumerate(parts):
        what = f"weights[{i}]"
        h, boff, arr = _mem.mem(w, what)
        if arr is None or len(arr.shape) != 2:
            raise SinpeError(INVALID_SHAPE, f"{what}: a list of weights takes 2-D Arrays")
        dt = resolve(arr.dtype, wdt_name, what) or F32
        mine = (dt, _rows(arr, dt, dim, what), to_values(boff, dt, what) if boff else 0)
        if facts is not None and mine != facts:
            raise SinpeError(INVALID_SHAPE, f"{what}: type, row stride and offset "
                             f"{mine} differ from weights[0]'s {facts}")
        facts = mine
        handles.append(h)
        rows.append(arr.shape[0])
    if facts is None:
        raise SinpeError(INVALID_SHAPE, "weights: an empty list")
    if facts[0] != F32:
        a.weights_dtype = facts[0]
    a.weights_stride, a.weights_offset = facts[1], facts[2]
    a.vocab = sum(rows)
    a.weights_count = n
    a.weights_list = (cl_mem * n)(*handles)
    a.weights_rows = (c_size_t * n)(*rows)


class _Memo:
    """What a table's last (ids, weights, out) gave, held by weak
    references: the filled struct and the arrays' facts.  A call with the
    same three objects (and explicit dtypes) copies the struct instead of
    resolving them again, which is most of a call's cost in Python."""

    __slots__ = ("refs", "dtypes", "base", "ids_arr", "out_arr", "shape", "checked")


def _refs(ids, weights, out):
    try:
        return tuple(None if o is None else weakref.ref(o) for o in (ids, weights, out))
    except TypeError:  # a raw handle (int): not remembered
        return None


def _base(a, dim, ids, weights, out, wdt_name, odt_name):
    """Fills what the three arrays give; returns their _Memo."""
    h, boff, ids_arr = _mem.mem(ids, "ids")
    n_seqs = seq_len = 0
    if ids_arr is not None:
        shape = ids_arr.shape
        if len(shape) == 2:
            n_seqs, seq_len = shape
        else:
            n_seqs, seq_len = 1, ids_arr.size
    a.ids = h
    if boff or ids_arr is not None:
        a.ids_offset = int32_offset(ids_arr, boff, "ids")

    if isinstance(weights, (list, tuple)):
        _weights_list(a, dim, weights, wdt_name)
        h, boff, arr = None, 0, None
    else:
        h, boff, arr = _mem.mem(weights, "weights")
    a.weights = h
    dt = resolve(arr.dtype if arr is not None else None, wdt_name, "weights")
    if dt is None:
        dt = F32
    elif dt != F32:
        a.weights_dtype = dt
    if boff:
        a.weights_offset = to_values(boff, dt, "weights")
    if arr is not None and len(arr.shape) == 2:
        a.vocab = arr.shape[0]
        a.weights_stride = _rows(arr, dt, dim, "weights")

    h, boff, out_arr = _mem.mem(out, "out")
    a.out = h
    dt = out_dtype(out_arr, odt_name)
    if dt != F32:
        a.out_dtype = dt
    if boff:
        a.out_offset = to_values(boff, dt, "out")
    out_stride = 0
    if out_arr is not None:
        out_stride = a.out_stride = row_stride(out_arr, dt, "out")
        if ids_arr is None and len(out_arr.shape) == 3:
            n_seqs, seq_len = out_arr.shape[:2]
    a.n_seqs = n_seqs
    a.seq_len = seq_len

    m = _Memo()
    m.refs = _refs(ids, weights, out)
    m.dtypes = (wdt_name, odt_name)
    m.base = bytes(a)
    m.ids_arr, m.out_arr = ids_arr, out_arr
    m.shape = (n_seqs, seq_len, out_stride)
    m.checked = False
    return m


def _check_shape(m, dim, n_seqs, seq_len, out_stride):
    if m.out_arr is not None:
        _check_view(m.out_arr, n_seqs * seq_len, out_stride, dim, "out")
    if m.ids_arr is not None and m.ids_arr.size < n_seqs * seq_len:
        raise SinpeError(BUFFER_TOO_SMALL, f"ids: an array of {m.ids_arr.size} ids cannot "
                         f"hold {n_seqs} x {seq_len}")


def prepare(table, ids, weights, out, fields, remember=True):
    """A filled sinpe_embed_args for one call of table.  Kept lean: decode
    loops call it thousands of times a second."""
    wdt = odt = None
    if fields:
        fields = dict(fields)
        wdt = fields.pop("weights_dtype", None)
        odt = fields.pop("out_dtype", None)
    dim = table.dim
    m = table._memo
    r = m.refs if m is not None else None
    if (r is not None and m.dtypes == (wdt, odt)
            and (ids is None if r[0] is None else r[0]() is ids)
            and (weights is None if r[1] is None else r[1]() is weights)
            and (out is None if r[2] is None else r[2]() is out)):
        a = EmbedArgs.from_buffer_copy(m.base)
    else:
        a = new_args()
        m = _base(a, dim, ids, weights, out, wdt, odt)
        if remember:
            table._memo = m
    if fields:
        p = fields.pop("preset", None)
        if p is not None:
            # Buffers and shapes are left alone by the preset, which sets
            # pad_id as its family does (tensor2tensor: 0).
            st = load().sinpe_embed_args_preset(byref(a), preset_value(p), dim,
                                                fields.pop("pad_id", 0))
            if st:
                fail(st)
        _fill_fields(a, fields)
        if not _SHAPE_FIELDS.isdisjoint(fields):
            _check_shape(m, dim, a.n_seqs, a.seq_len, a.out_stride)
            return a
    if not m.checked:
        _check_shape(m, dim, *m.shape)
        m.checked = True
    return a


def _fill_fields(a, fields):
    offsets = []
    for name, value in fields.items():
        if name in PLAIN:
            if name.endswith("_offset"):
                offsets.append((name, value))
            else:
                setattr(a, name, value)
        elif name in INT32_FIELDS:
            h, boff, arr = _mem.mem(value, name)
            setattr(a, name, h)
            setattr(a, name + "_offset", int32_offset(arr, boff, name))
        elif name in ENUMS:
            setattr(a, name, enum_value(ENUMS[name], value, name))
        elif name == "weight_scales":
            h, boff, arr = _mem.mem(value, name)
            dt = resolve(arr.dtype if arr is not None else None,
                         fields.get("weight_scales_dtype"), name)
            a.weight_scales = h
            if dt is not None:
                a.weight_scales_dtype = dt
                if boff:
                    a.weight_scales_offset = to_values(boff, dt, name)
        elif name == "weight_scales_dtype":
            if "weight_scales" not in fields:
                a.weight_scales_dtype = resolve(None, value, name)
        else:
            raise TypeError(f"unknown argument {name!r}: expected a field of sinpe_embed_args "
                            f"({', '.join(sorted(PLAIN | set(ENUMS)))}, {', '.join(INT32_FIELDS)}, "
                            f"weight_scales, weights_dtype, out_dtype, weight_scales_dtype), "
                            f"preset, wait_for or event")
    for name, value in offsets:
        setattr(a, name, getattr(a, name) + value)

