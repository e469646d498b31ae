"""Rotary position embeddings (RoPE): the spec, its presets and
frequencies, the rotary table and the rotation of q and k.

    rope = sinpe.Context(cl_ctx).rope_table("llama3.1", head_dim=128)
    rope.rotate(queue, q, k, start=past)   # pyopencl Arrays, in place

The header's section "Rotary position embeddings (RoPE)" is the manual:
the rules' formulas, the exactness of cos and sin, the table layouts and
the rotation's arithmetic.
"""

import numbers
from ctypes import POINTER, byref, c_double, c_float, c_void_p

import numpy as np

from . import _mem, _ocl
from ._dtypes import resolve
from ._handle import Handle
from ._lib import load
from ._rope_args import check_head_dim, prepare, split_tokens
from ._types import CONSTANTS, ROPE_ENUMS, RopeArgs, RopeSpec, struct_size
from .errors import SinpeError, fail
from .spec import named_values, value_of_name

UNKNOWN_PRESET = CONSTANTS["SINPE_UNKNOWN_PRESET"]
INVALID_OPTION = CONSTANTS["SINPE_INVALID_OPTION"]
INVALID_SPEC = CONSTANTS["SINPE_INVALID_SPEC"]
INVALID_SHAPE = CONSTANTS["SINPE_INVALID_SHAPE"]
INVALID_DTYPE = CONSTANTS["SINPE_INVALID_DTYPE"]
BUFFER_TOO_SMALL = CONSTANTS["SINPE_BUFFER_TOO_SMALL"]

_presets = None


def rope_presets():
    """{name: value} of every rotary preset the library knows, by
    sinpe_rope_preset_name() ("llama2": 1, "llama3.1": 2, ...)."""
    global _presets
    if _presets is None:
        _presets = named_values(load().sinpe_rope_preset_name)
    return dict(_presets)


def rope_preset_value(preset):
    """A sinpe_rope_preset from a name (case-insensitive; "llama3.1",
    "llama3_1" and "llama3-1" alike) or an int (passed on for sinpe to
    judge)."""
    return value_of_name(preset, rope_presets(), "rotary preset")


def rope_preset_name(value):
    """sinpe_rope_preset_name(): the name of a rotary preset, or None."""
    name = load().sinpe_rope_preset_name(int(value))
    return name.decode() if name else None


def _enum(field, value):
    if isinstance(value, str):
        table = ROPE_ENUMS[field]
        v = table.get(value.lower().replace("-", "_"))
        if v is None:
            raise SinpeError(INVALID_OPTION, f"{field}: {value!r} is not one of "
                             f"{', '.join(table)}")
        return v
    return int(value)


_LISTS = ("short_factor", "long_factor", "inv_freq")


def _set_list(s, keep, name, values):
    """Points s.<name> at values (float32 for inv_freq, else float64), kept
    in keep, with its count."""
    ctype, dtype = (c_float, np.float32) if name == "inv_freq" else (c_double, np.float64)
    a = np.ascontiguousarray(np.asarray(values, dtype=dtype).reshape(-1))
    keep[name] = a
    setattr(s, name, a.ctypes.data_as(POINTER(ctype)))
    setattr(s, "n_" + name, a.size)


def check_lists(spec):
    """Raises SinpeError (INVALID_SPEC) for a list of spec that does not hold
    R/2 values, before sinpe is called; sinpe checks the counts too, but a
    library built before they existed would read R/2 values whatever the
    list holds.  An odd or zero R is left to sinpe to name."""
    R = spec.rotary_dim
    if R <= 0 or R % 2:
        return
    for name in _LISTS:
        n = getattr(spec, "n_" + name)
        if getattr(spec, name) and n != R // 2:
            raise SinpeError(INVALID_SPEC, f"{name} has {n} values; rotary dim {R} "
                             f"needs {R // 2}")


_PLAIN = ("base", "factor", "original_max_positions", "max_positions", "length", "beta_fast",
          "beta_slow", "mscale", "mscale_all_dim", "low_freq_factor", "high_freq_factor",
          "attention_factor", "rotated_pairs")


def rope_spec(rotary_dim=None, preset=None, *, head_dim=None, rule=None, pairing=None,
              layout=None, truncate=None, short_factor=None, long_factor=None, inv_freq=None,
              axes=None, sections=None, **fields):
    """A sinpe_rope_spec (sinpe.RopeSpec): the preset's for head_dim
    (sinpe_rope_preset()) when one is named, else sinpe_rope_spec_init()'s
    for rotary_dim; then any field given.

    rotary_dim: R (with a preset it overrides the preset's R); head_dim:
    the head width a preset derives R from (default rotary_dim).  rule:
    "default", "linear", "dynamic", "yarn", "llama3", "longrope",
    "proportional"; pairing: "halves" or "interleaved"; layout: "cos_sin", "pairs", "cos_twice",
    "sin_twice" (or the header's ints).  The other fields by their C names:
    base, factor, original_max_positions, max_positions, length,
    beta_fast, beta_slow, mscale, mscale_all_dim, truncate (bool),
    low_freq_factor, high_freq_factor, attention_factor, rotated_pairs
    (PROPORTIONAL); short_factor and
    long_factor (R/2 numbers each, kept as float64 arrays with the struct)
    and inv_freq (R/2 numbers used as given, kept as float32: a model's
    own float32 frequencies, e.g. HF's RotaryEmbedding.inv_freq), each
    with its count.  Several positions per token: axes "mrope",
    "mrope_interleaved" or "axes_nd" with sections, the lanes' pair counts
    (up to four, adding up to R/2).  The spec is checked where it is used (frequencies(), a
    table): a list of another length than R/2 raises SinpeError
    (INVALID_SPEC naming it) before sinpe is called, the rest by sinpe.
    """
    lib = load()
    s = RopeSpec()
    if preset is None:
        if rotary_dim is None:
            rotary_dim = head_dim
        if rotary_dim is None:
            raise TypeError("rope_spec() needs rotary_dim (or a preset with head_dim)")
        lib.sinpe_rope_spec_init_sized(byref(s), rotary_dim, struct_size(s))
    else:
        hd = head_dim if head_dim is not None else rotary_dim
        if hd is None:
            raise TypeError("rope_spec() with a preset needs head_dim")
        st = lib.sinpe_rope_preset_sized(byref(s), rope_preset_value(preset), hd,
                                         struct_size(s))
        if st:
            fail(st)
        if rotary_dim is not None and head_dim is not None:
            s.rotary_dim = rotary_dim
    keep = {}
    if rule is not None:
        s.rule = _enum("rule", rule)
    if pairing is not None:
        s.pairing = _enum("pairing", pairing)
    if layout is not None:
        s.layout = _enum("layout", layout)
    if truncate is not None:
        s.truncate = 1 if truncate else 0
    if axes is not None:
        s.axes = _enum("axes", axes)
    if sections is not None:
        sections = list(sections)
        if len(sections) > 4:
            raise SinpeError(INVALID_SPEC, f"sections: {len(sections)} lanes; at most 4")
        s.sections[:] = sections + [0] * (4 - len(sections))
    for name, value in fields.items():
        if name not in _PLAIN:
            raise TypeError(f"unknown argument {name!r}: expected a field of sinpe_rope_spec "
                            f"({', '.join(_PLAIN)}, rule, pairing, layout, truncate, "
                            f"short_factor, long_factor, inv_freq)")
        setattr(s, name, value)
    for name, values in zip(_LISTS, (short_factor, long_factor, inv_freq)):
        if values is not None:
            _set_list(s, keep, name, values)
    s._keep = keep
    return s


def _spec_of(spec, head_dim, fields):
    if isinstance(spec, RopeSpec):
        if fields:
            raise TypeError("fields are given with rope_spec(), not with a RopeSpec")
        return spec
    if isinstance(spec, (str, numbers.Integral)):
        return rope_spec(preset=spec, head_dim=head_dim, **fields)
    raise TypeError(f"spec: a sinpe.RopeSpec or a rotary preset name, not "
                    f"{type(spec).__name__}")


def frequencies(spec):
    """(w, m): the rule's frequencies w_k, k < R/2, as a float64 NumPy array,
    and its attention factor m (sinpe_rope_frequencies()).  Raises
    SinpeError (INVALID_SPEC naming the field)."""
    check_lists(spec)
    n = spec.rotary_dim // 2
    freqs = np.empty(n, np.float64)
    att = c_double()
    st = load().sinpe_rope_frequencies(byref(spec), freqs.ctypes.data if n else None,
                                       byref(att))
    if st:
        fail(st)
    return freqs, att.value


RopeSpec.frequencies = frequencies


class RopeTable(Handle):
    """The rotary table of a spec on the context's device
    (sinpe_rope_table_create()): rows [0, rows) of the spec's cos and sin
    (R columns in spec.layout), shared per context and contents, grown on
    demand; positions past the rows are computed on the fly, same bits.

    spec: a sinpe.RopeSpec (sinpe.rope_spec()) or a rotary preset name
    ("llama3.1") with head_dim and any rope_spec() fields.  Blocks until
    the rows are ready.  Raises SinpeError (an invalid spec: INVALID_SPEC
    naming the field).

    The calls: rotate() on PyOpenCL arrays, enqueue_rows() (the cos/sin
    cache into a PyOpenCL array), borrow() and constants() (the table and
    the constants buffer for sinpe_rope_cos_sin() in a kernel of your
    own, see Context.device_source()); rotate_host() and read_rows() on
    NumPy arrays.
    """

    def __init__(self, context, spec, head_dim=None, rows=0, **fields):
        lib = self._lib = context._lib
        self._ptr = None
        spec = _spec_of(spec, head_dim, fields)
        check_lists(spec)
        out = c_void_p()
        st = lib.sinpe_rope_table_create(context._ptr, byref(spec), rows, byref(out))
        if st:
            fail(st)
        self._ptr = out.value
        self.context = context
        self.spec = spec  # the caller's spec (its arrays were copied by sinpe)
        self.dim = spec.rotary_dim  # the table's columns
        self._handles = context.handles
        self._release = lib.sinpe_table_release

    @property
    def rows(self):
        """The row count now held (sinpe_table_rows())."""
        return self._lib.sinpe_table_rows(self._ptr)

    def frequencies(self):
        """(w, m) of the table's spec: see sinpe.frequencies()."""
        return frequencies(self.spec)

    def rotate(self, queue, q, k=None, *, q_out=None, k_out=None, start=0, positions=None,
               seq_starts=None, k_rows=None, head_dim=None, n_seqs=None, seq_len=None,
               dtype=None, wait_for=None, event=True, cos_sin=None, cos_sin_layout="cos_sin",
               **fields):
        """Rotates q and k by the table's cos and sin in one launch
        (sinpe_enqueue_rope()).

        q: an Array [tokens, q_heads, head_dim] or [n_seqs, seq_len, q_heads,
        head_dim], or [tokens, q_heads * head_dim] with head_dim given (a
        view of a packed QKV row works: the Array's offset and row stride
        are passed on); k the same with kv_heads (None: q alone; q may be
        None for k alone).  The dtype (float32, float16, ml_dtypes'
        bfloat16; raw uint16 bits with dtype="bfloat16") is shared.
        In place unless q_out / k_out are given (Arrays of the same shapes;
        columns past R copied).  k_rows: int32 Array, one per token, with
        k_out: token r's keys go to row k_rows[r] of k_out (negative, or
        past k_out's rows: skipped).  Positions: start + t, or start +
        positions[r] (int32 Array), plus seq_starts[b] (int32 Array, one
        per sequence); with a table of several lanes (spec.sections),
        positions is [lanes, tokens] (HF's position_ids [3, batch, seq]
        alike), each lane its row; or grid=(rows, cols) (grid_start= the text
        tokens before it): the lanes from each token's frame, row and column.
        cos_sin: an Array [tokens, R] of the same dtype that also receives
        each token's cos and sin in cos_sin_layout (see cos_sin_host()).
        Tokens are n_seqs sequences of seq_len, which
        together make up q's tokens (default: the 4-D shape, else one
        sequence; with Buffers, n_seqs, seq_len and head_dim are needed).
        Other sinpe_rope_args fields by name (e.g. q_offset in elements,
        added).  Non-blocking; returns the event.  Raises SinpeError with
        sinpe's status (INVALID_SHAPE, BUFFERS_OVERLAP, ...), its message
        naming these arguments where they are at fault: nothing is
        enqueued then.
        """
        grid = fields.pop("grid", None)
        if grid is not None:
            fields["grid_rows"], fields["grid_cols"] = grid
        a = prepare(self, q, k, q_out, k_out, head_dim=head_dim, n_seqs=n_seqs,
                    seq_len=seq_len, dtype=dtype, start=start, positions=positions,
                    seq_starts=seq_starts, k_rows=k_rows, fields=fields)
        if cos_sin is not None:
            from ._args import row_stride
            from ._dtypes import to_values
            h, boff, arr = _mem.mem(cos_sin, "cos_sin")
            a.cos_sin, a.cos_sin_layout = h, _enum("layout", cos_sin_layout)
            a.cos_sin_offset = to_values(boff, a.dtype, "cos_sin") if boff else 0
            a.cos_sin_stride = row_stride(arr, a.dtype, "cos_sin")
        qh = _mem.handle(queue, "queue")
        return _mem.enqueue(queue, wait_for, event, lambda n, wl, ev: (
            self._lib.sinpe_enqueue_rope(self._ptr, qh, byref(a), n, wl, ev)))

    def rotate_host(self, q, k=None, *, start=0, positions=None, seq_starts=None,
                    n_seqs=None, seq_len=None, dtype=None, grid=None, grid_start=0):
        """rotate() on NumPy arrays: q [tokens, q_heads, head_dim] (or 4-D
        with sequences) and k [tokens, kv_heads, head_dim] are copied to the
        device, rotated there and copied back into new arrays; returns
        (q_rotated, k_rotated) (None for an absent one).  positions: integers
        per token ([lanes, tokens] for a table of several lanes), or grid
        (rows, cols) with grid_start as rotate() takes them;
        seq_starts: integers per sequence.  float32, float16,
        ml_dtypes.bfloat16, or raw uint16 bits with dtype="bfloat16".
        Blocking.  Raises SinpeError."""
        arrays = {}
        for name, x in (("q", q), ("k", k)):
            if x is None:
                continue
            x = np.ascontiguousarray(x)
            if x.ndim not in (3, 4):
                raise SinpeError(INVALID_SHAPE, f"{name}: shape {x.shape}: expected [tokens, "
                                 f"heads, head_dim] or [n_seqs, seq_len, heads, head_dim]")
            arrays[name] = x
        if not arrays:
            raise SinpeError(INVALID_SHAPE, "q and k are both None: nothing to rotate")
        dt = None
        for name, x in arrays.items():
            d = resolve(x.dtype, dtype, name)
            if dt is not None and d != dt:
                raise SinpeError(INVALID_DTYPE, f"{name}: another dtype than q")
            dt = d
        first = next(iter(arrays.values()))
        tokens = first.shape[0] * (first.shape[1] if first.ndim == 4 else 1)
        n_seqs, seq_len = split_tokens(tokens, n_seqs, seq_len,
                                       first.shape[:2] if first.ndim == 4 else None,
                                       next(iter(arrays)))
        return self._host(arrays, dt, None, n_seqs, seq_len, start, positions, seq_starts, grid,
                          grid_start)[:2]

    def cos_sin_host(self, tokens, *, layout="cos_sin", dtype="float32", start=0,
                     positions=None, seq_starts=None, n_seqs=None, seq_len=None, grid=None,
                     grid_start=0):
        """Each token's cos and sin as rotate() uses them (sinpe_enqueue_rope()
        with cos_sin and no heads): [tokens, R] in layout ("cos_sin",
        "pairs", "cos_twice" = HF's cos, "sin_twice" = HF's sin), pair k at
        its lane's position; positions, grid and seq_starts as rotate_host().
        dtype: "float32", "float16", "bfloat16" (raw uint16 bits) or a NumPy
        dtype.  Blocking.  Raises SinpeError."""
        from .host import _host_dtype
        c, np_dtype = _host_dtype(dtype, "dtype")
        n_seqs, seq_len = split_tokens(tokens, n_seqs, seq_len, None, "tokens")
        cs = np.empty((tokens, self.dim), np_dtype)
        return self._host({}, c, (cs, _enum("layout", layout)), n_seqs, seq_len, start,
                          positions, seq_starts, grid, grid_start)[2]

    def _host(self, arrays, dt, cs, n_seqs, seq_len, start, positions, seq_starts, grid,
              grid_start):
        """The blocking call of rotate_host() and cos_sin_host(): arrays
        {"q": .., "k": ..} and cs (array, layout) copied there and back."""
        cl_ctx, _, queue = self._handles
        a = RopeArgs()
        self._lib.sinpe_rope_args_init_sized(byref(a), struct_size(a))
        a.dtype, a.n_seqs, a.seq_len, a.start = dt, n_seqs, seq_len, start
        a.head_dim = self.dim
        tokens = n_seqs * seq_len
        if grid is not None:
            (a.grid_rows, a.grid_cols), a.grid_start = grid, grid_start
        bufs = []
        try:
            for name, x in arrays.items():
                ntok = x.shape[0] * (x.shape[1] if x.ndim == 4 else 1)
                if ntok != tokens:
                    raise SinpeError(INVALID_SHAPE, f"{name}: {ntok} tokens, q has {tokens}")
                a.head_dim = x.shape[-1]
                check_head_dim(self, a.head_dim, name)
                b = _ocl.create_buffer(cl_ctx, max(x.nbytes, 4),
                                       _ocl.MEM_READ_WRITE | (_ocl.MEM_COPY_HOST_PTR
                                                              if x.nbytes else 0),
                                       x if x.nbytes else None)
                bufs.append(b)
                setattr(a, name, b)
                setattr(a, "q_heads" if name == "q" else "kv_heads", x.shape[-2])
            if cs is not None:
                a.cos_sin = _ocl.create_buffer(cl_ctx, max(cs[0].nbytes, 4), _ocl.MEM_READ_WRITE,
                                               None)
                bufs.append(a.cos_sin)
                a.cos_sin_layout = cs[1]
            for name, v, count in (("positions", positions, tokens),
                                   ("seq_starts", seq_starts, n_seqs)):
                if v is None:
                    continue
                v = np.asarray(v)
                if name == "positions" and v.ndim > 1:  # lanes first
                    count *= v.shape[0]
                    a.lane_stride = tokens
                v = np.ascontiguousarray(v.reshape(-1))
                if v.dtype.kind not in "iu":
                    raise SinpeError(INVALID_DTYPE, f"{name}: integers expected, not {v.dtype}")
                if v.size and (v.min() < -2**31 or v.max() > 2**31 - 1):
                    raise SinpeError(INVALID_SHAPE, f"{name}: values outside int32")
                v = v.astype(np.int32)
                if v.size < count:
                    raise SinpeError(BUFFER_TOO_SMALL, f"{name}: {v.size} values for {count}")
                b = _ocl.upload(cl_ctx, v)
                bufs.append(b)
                setattr(a, name, b)
            st = self._lib.sinpe_enqueue_rope(self._ptr, queue, byref(a), 0, None, None)
            if st:
                fail(st)
            out = []
            for name in ("q", "k"):
                x = arrays.get(name)
                y = None if x is None else np.empty_like(x)
                if y is not None:
                    _ocl.read(queue, getattr(a, name), y)
                out.append(y)
            if cs is not None:
                _ocl.read(queue, a.cos_sin, cs[0])
            return (*out, cs[0] if cs is not None else None)
        finally:
            for b in bufs:
                _ocl.release(b)

    def __repr__(self):
        if not self._ptr:
            return "<sinpe.RopeTable released>"
        return f"<sinpe.RopeTable {self.spec!r} rows={self.rows}>"


def _table_methods():
    # The rows calls of a table work on rotary tables as on any table.
    from .table import Table
    from . import host as _host
    RopeTable.reserve = Table.reserve
    RopeTable.borrow = Table.borrow
    RopeTable.enqueue_rows = Table.enqueue_rows
    RopeTable.constants = Table.constants
    RopeTable.read_rows = _host.read_rows


_table_methods()
