"""The ctypes mirror of include/sinpe.h: its structs and its constants, but
for those an operation's own module declares (_api.declare()).

Every struct here has the fields of its C namesake in the same order and
with the same types; tests/test_layout.py compiles a C program against the
header and compares sizeof and offsetof of every field, and the value of
every constant.
"""

import ctypes
from ctypes import (
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int32,
    c_size_t,
    c_void_p,
)

# cl_mem and the other OpenCL handles are pointers; cl_int is int32_t.
cl_mem = c_void_p
cl_int = c_int32
enum = c_int  # every sinpe enum has int's size and alignment

# SINPE_STRUCT_TAG: the top bit of size_t, which SINPE_STRUCT_SIZE(type) sets.
STRUCT_TAG = 1 << (8 * ctypes.sizeof(c_size_t) - 1)


def struct_size(struct):
    """SINPE_STRUCT_SIZE of a ctypes struct class (or instance)."""
    return ctypes.sizeof(struct) | STRUCT_TAG


class ContextOptions(Structure):
    """sinpe_context_options: fill with sinpe_context_options_init()."""

    c_name = "sinpe_context_options"
    _fields_ = [
        ("struct_size", c_size_t),
        ("math", enum),
        ("device", c_char_p),
        ("no_disk_cache", c_int),
        ("tuning", c_char_p),
    ]


class Spec(Structure):
    """sinpe_spec: the encoding (see sinpe.spec() and the header)."""

    c_name = "sinpe_spec"
    _fields_ = [
        ("struct_size", c_size_t),
        ("dim", c_size_t),
        ("layout", enum),
        ("odd_dim", enum),
        ("base", c_double),
        ("shift", c_double),
        ("angle_scale", c_double),
    ]

    def __repr__(self):
        return (
            f"Spec(dim={self.dim}, layout={name_of('LAYOUT', self.layout)!r}, "
            f"odd_dim={name_of('ODD', self.odd_dim)!r}, base={self.base!r}, "
            f"shift={self.shift!r}, angle_scale={self.angle_scale!r})"
        )

    def __eq__(self, other):
        if not isinstance(other, Spec):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f, _ in self._fields_)


class EmbedArgs(Structure):
    """sinpe_embed_args: the arguments of the embedding calls."""

    c_name = "sinpe_embed_args"
    _fields_ = [
        ("struct_size", c_size_t),
        ("n_seqs", c_size_t),
        ("seq_len", c_size_t),
        ("ids", cl_mem),
        ("ids_offset", c_size_t),
        ("weights", cl_mem),
        ("weights_offset", c_size_t),
        ("weights_stride", c_size_t),
        ("vocab", c_size_t),
        ("out", cl_mem),
        ("out_offset", c_size_t),
        ("out_stride", c_size_t),
        ("token_scale", c_float),
        ("start", cl_int),
        ("positions", cl_mem),
        ("positions_offset", c_size_t),
        ("bad_ids", cl_mem),
        ("bad_ids_offset", c_size_t),
        ("weights_dtype", enum),
        ("out_dtype", enum),
        ("positions_broadcast", c_int),
        ("seq_starts", cl_mem),
        ("seq_starts_offset", c_size_t),
        ("pad_counts", cl_mem),
        ("pad_counts_offset", c_size_t),
        ("position_rule", enum),
        ("pad_policy", enum),
        ("pad_id", cl_int),
        ("vocab_shard", c_int),
        ("vocab_start", c_size_t),
        ("skip_pe", c_int),
        ("weight_scales", cl_mem),
        ("weight_scales_offset", c_size_t),
        ("weight_scales_dtype", enum),
        ("weights_scale", c_float),
        ("token_scale_rounding", enum),
        ("vocab_total", c_size_t),
        ("weights_count", c_size_t),
        ("weights_list", POINTER(cl_mem)),
        ("weights_rows", POINTER(c_size_t)),
    ]


class DtypeInfo(Structure):
    """sinpe_dtype_info: a storage type's properties (sinpe_dtype_query())."""

    c_name = "sinpe_dtype_info"
    _fields_ = [
        ("name", c_char_p),
        ("block_values", c_size_t),
        ("block_bytes", c_size_t),
        ("quantized", c_int),
        ("output", c_int),
        ("scales", enum),
        ("largest", c_double),
    ]


class RopeSpec(Structure):
    """sinpe_rope_spec: a rotary encoding (see sinpe.rope_spec() and the
    header).  The factor lists and inv_freq are pointers, each with its
    count (n_short_factor, ...): sinpe.rope_spec() sets the counts and keeps
    the arrays they point to alive with the struct (attribute _keep)."""

    c_name = "sinpe_rope_spec"
    _fields_ = [
        ("struct_size", c_size_t),
        ("rotary_dim", c_size_t),
        ("base", c_double),
        ("rule", enum),
        ("pairing", enum),
        ("layout", enum),
        ("factor", c_double),
        ("original_max_positions", c_size_t),
        ("max_positions", c_size_t),
        ("length", c_size_t),
        ("beta_fast", c_double),
        ("beta_slow", c_double),
        ("mscale", c_double),
        ("mscale_all_dim", c_double),
        ("truncate", c_int),
        ("low_freq_factor", c_double),
        ("high_freq_factor", c_double),
        ("short_factor", POINTER(c_double)),
        ("long_factor", POINTER(c_double)),
        ("attention_factor", c_double),
        ("inv_freq", POINTER(c_float)),
        ("n_short_factor", c_size_t),
        ("n_long_factor", c_size_t),
        ("n_inv_freq", c_size_t),
        ("axes", enum),
        ("sections", c_size_t * 4),
        ("rotated_pairs", c_size_t),
    ]

    def __repr__(self):
        shown = []
        for f, _ in self._fields_[1:]:
            v = getattr(self, f)
            if f in ("short_factor", "long_factor", "inv_freq"):
                if not v:
                    continue
                v = f"[{getattr(self, 'n_' + f)} values]"
            elif f.startswith("n_"):
                continue
            elif f in ("rule", "pairing", "layout", "axes"):
                if f == "axes" and not v:
                    continue
                v = repr(name_of_rope(f, v))
            elif f == "sections":
                if not any(v):
                    continue
                v = repr(list(v))
            else:
                v = repr(v)
            shown.append(f"{f}={v}")
        return f"RopeSpec({', '.join(shown)})"


class RopeLayer(Structure):
    """sinpe_rope_layer: what a model's layer asks of the host besides its
    rotary spec (sinpe.rope_model_layer())."""

    c_name = "sinpe_rope_layer"
    _fields_ = [
        ("struct_size", c_size_t),
        ("layers", c_size_t),
        ("type", enum),
        ("window", c_size_t),
        ("rotates", c_int),
        ("head_dim", c_size_t),
        ("rotary_offset", c_size_t),
        ("softmax_factor", c_double),
        ("temperature", c_int),
        ("attn_scale", c_double),
        ("floor_scale", c_double),
    ]

    def __repr__(self):
        shown = [f"{f}={getattr(self, f)!r}" for f, _ in self._fields_[1:]]
        shown[1] = f"type={name_of('LAYER', self.type)!r}"
        return f"RopeLayer({', '.join(shown)})"


class RopeArgs(Structure):
    """sinpe_rope_args: the arguments of sinpe_enqueue_rope()."""

    c_name = "sinpe_rope_args"
    _fields_ = [
        ("struct_size", c_size_t),
        ("n_seqs", c_size_t),
        ("seq_len", c_size_t),
        ("head_dim", c_size_t),
        ("dtype", enum),
        ("q", cl_mem),
        ("q_offset", c_size_t),
        ("q_stride", c_size_t),
        ("q_heads", c_size_t),
        ("k", cl_mem),
        ("k_offset", c_size_t),
        ("k_stride", c_size_t),
        ("kv_heads", c_size_t),
        ("q_out", cl_mem),
        ("q_out_offset", c_size_t),
        ("q_out_stride", c_size_t),
        ("k_out", cl_mem),
        ("k_out_offset", c_size_t),
        ("k_out_stride", c_size_t),
        ("k_rows", cl_mem),
        ("k_rows_offset", c_size_t),
        ("k_out_rows", c_size_t),
        ("start", cl_int),
        ("positions", cl_mem),
        ("positions_offset", c_size_t),
        ("seq_starts", cl_mem),
        ("seq_starts_offset", c_size_t),
        ("lane_stride", c_size_t),
        ("grid_rows", c_size_t),
        ("grid_cols", c_size_t),
        ("grid_start", c_size_t),
        ("cos_sin", cl_mem),
        ("cos_sin_offset", c_size_t),
        ("cos_sin_stride", c_size_t),
        ("cos_sin_layout", enum),
    ]


class GridArgs(Structure):
    """sinpe_grid_args: the arguments of sinpe_enqueue_grid()."""

    c_name = "sinpe_grid_args"
    _fields_ = [
        ("struct_size", c_size_t),
        ("n_seqs", c_size_t),
        ("rows", c_size_t),
        ("cols", c_size_t),
        ("extra_tokens", c_size_t),
        ("base_size", c_double),
        ("interpolation_scale", c_double),
        ("max_size", c_size_t),
        ("add", c_int),
        ("dtype", enum),
        ("out", cl_mem),
        ("out_offset", c_size_t),
        ("out_stride", c_size_t),
        ("frames", c_size_t),
        ("frame_table", c_void_p),
        ("frame_interpolation_scale", c_double),
    ]


# The structs of the calls above; an operation's own module declares its own
# (_api.declare()), which adds them here.
STRUCTS = [ContextOptions, Spec, EmbedArgs, DtypeInfo, RopeSpec, RopeArgs, GridArgs, RopeLayer]

# The header's constants, by their C names (an operation's module declares
# its own enums' values, _api.declare()).  The status codes come from
# SINPE_STATUS_MAP, the others from the enums (and the named values of
# sinpe_embed_args.vocab_shard).  The prefix SINPE_ROPE_ holds four enums
# (rule, pairing, layout, axes) and the rotary presets: see ROPE_ENUMS.
CONSTANTS = {
    "SINPE_VERSION_MAJOR": 0,
    "SINPE_VERSION_MINOR": 4,
    "SINPE_VERSION_PATCH": 0,
    "SINPE_SUCCESS": 0,
    "SINPE_NULL_ARGUMENT": -2001,
    "SINPE_INVALID_SPEC": -2002,
    "SINPE_INVALID_SHAPE": -2003,
    "SINPE_BUFFER_TOO_SMALL": -2004,
    "SINPE_INVALID_WAIT_LIST": -2005,
    "SINPE_CONTEXT_MISMATCH": -2006,
    "SINPE_ID_OUT_OF_RANGE": -2007,
    "SINPE_DEVICE_NOT_FOUND": -2008,
    "SINPE_BUILD_FAILED": -2009,
    "SINPE_OUT_OF_HOST_MEMORY": -2010,
    "SINPE_TOO_LARGE": -2011,
    "SINPE_UNSUPPORTED": -2012,
    "SINPE_INVALID_OPTION": -2013,
    "SINPE_UNKNOWN_PRESET": -2014,
    "SINPE_INVALID_DTYPE": -2015,
    "SINPE_INVALID_PAD": -2016,
    "SINPE_IO_ERROR": -2017,
    "SINPE_INVALID_STRUCT_SIZE": -2018,
    "SINPE_BUFFERS_OVERLAP": -2019,
    "SINPE_MATH_AUTO": 0,
    "SINPE_MATH_FLOAT": 1,
    "SINPE_MATH_FP64": 2,
    "SINPE_FEATURE_FP64": 1,
    "SINPE_FEATURE_COMMAND_BUFFER": 2,
    "SINPE_LAYOUT_INTERLEAVED": 0,
    "SINPE_LAYOUT_SPLIT_SIN_COS": 1,
    "SINPE_LAYOUT_SPLIT_COS_SIN": 2,
    "SINPE_ODD_ZERO_LAST": 0,
    "SINPE_ODD_EXTRA_SIN": 1,
    "SINPE_ODD_ERROR": 2,
    "SINPE_PRESET_VASWANI": 1,
    "SINPE_PRESET_TENSOR2TENSOR": 2,
    "SINPE_PRESET_FAIRSEQ": 3,
    "SINPE_PRESET_WHISPER": 4,
    "SINPE_PRESET_MARIAN_HF": 5,
    "SINPE_PRESET_OPENNMT": 6,
    "SINPE_PRESET_DIFFUSERS": 7,
    "SINPE_PRESET_DIFFUSERS_FLIP": 8,
    "SINPE_PRESET_GGML_TIMESTEP": 9,
    "SINPE_PRESET_MAE": 10,
    "SINPE_F32": 0,
    "SINPE_F16": 1,
    "SINPE_BF16": 2,
    "SINPE_I8": 3,
    "SINPE_Q8_0": 4,
    "SINPE_FP8_E4M3": 5,
    "SINPE_FP8_E5M2": 6,
    "SINPE_Q4_0": 7,
    "SINPE_Q4_1": 8,
    "SINPE_Q5_0": 9,
    "SINPE_Q5_1": 10,
    "SINPE_Q4_K": 11,
    "SINPE_Q5_K": 12,
    "SINPE_Q6_K": 13,
    "SINPE_DTYPE_SCALES_NONE": 0,
    "SINPE_DTYPE_SCALES_ROW": 1,
    "SINPE_DTYPE_SCALES_ROW_OR_TENSOR": 2,
    "SINPE_DTYPE_SCALES_BLOCK": 3,
    "SINPE_POSITIONS_INDEX": 0,
    "SINPE_POSITIONS_FAIRSEQ": 1,
    "SINPE_PAD_NONE": 0,
    "SINPE_PAD_ZERO_PE": 1,
    "SINPE_PAD_ZERO_OUTPUT": 2,
    "SINPE_PAD_ZERO_EMBEDDING": 3,
    "SINPE_SCALE_EXACT": 0,
    "SINPE_SCALE_WEIGHTS": 1,
    "SINPE_SCALE_OUTPUT": 2,
    "SINPE_SHARD_NONE": 0,
    "SINPE_SHARD_ROWS": 1,
    "SINPE_SHARD_OWNER": 2,
    "SINPE_ROPE_DEFAULT": 0,
    "SINPE_ROPE_LINEAR": 1,
    "SINPE_ROPE_DYNAMIC": 2,
    "SINPE_ROPE_YARN": 3,
    "SINPE_ROPE_LLAMA3": 4,
    "SINPE_ROPE_LONGROPE": 5,
    "SINPE_ROPE_PROPORTIONAL": 6,
    "SINPE_ROPE_HALVES": 0,
    "SINPE_ROPE_INTERLEAVED": 1,
    "SINPE_ROPE_COS_SIN": 0,
    "SINPE_ROPE_PAIRS": 1,
    "SINPE_ROPE_COS_TWICE": 2,
    "SINPE_ROPE_SIN_TWICE": 3,
    "SINPE_ROPE_PRESET_LLAMA2": 1,
    "SINPE_ROPE_PRESET_LLAMA3_1": 2,
    "SINPE_ROPE_PRESET_MISTRAL": 3,
    "SINPE_ROPE_PRESET_QWEN2": 4,
    "SINPE_ROPE_PRESET_QWEN2_YARN": 5,
    "SINPE_ROPE_PRESET_GPT_NEOX": 6,
    "SINPE_ROPE_PRESET_GPTJ": 7,
    "SINPE_ROPE_PRESET_PHI3_LONGROPE": 8,
    "SINPE_ROPE_PRESET_QWEN2_VL": 9,
    "SINPE_ROPE_PRESET_QWEN2_5_VL": 10,
    "SINPE_ROPE_PRESET_QWEN3_VL": 11,
    "SINPE_ROPE_PRESET_QWEN3_5": 12,
    "SINPE_ROPE_PRESET_QWEN2_VL_VISION": 13,
    "SINPE_ROPE_PRESET_FLUX": 14,
    "SINPE_ROPE_PRESET_HUNYUAN_VIDEO": 15,
    "SINPE_ROPE_PRESET_WAN": 16,
    "SINPE_ROPE_PRESET_COGVIDEOX": 17,
    "SINPE_ROPE_ONE_AXIS": 0,
    "SINPE_ROPE_MROPE": 1,
    "SINPE_ROPE_MROPE_INTERLEAVED": 2,
    "SINPE_ROPE_AXES_ND": 3,
    "SINPE_ROPE_MODEL_QWEN3": 1,
    "SINPE_ROPE_MODEL_GEMMA3": 2,
    "SINPE_ROPE_MODEL_GEMMA4": 3,
    "SINPE_ROPE_MODEL_DEEPSEEK_V3": 4,
    "SINPE_ROPE_MODEL_GPT_OSS": 5,
    "SINPE_ROPE_MODEL_LLAMA4_SCOUT": 6,
    "SINPE_LAYER_FULL": 0,
    "SINPE_LAYER_SLIDING": 1,
    "SINPE_LAYER_CHUNKED": 2,
}

# The four enums of sinpe_rope_spec share the prefix SINPE_ROPE_, so they
# are listed by field: {field: {short name: value}}.
ROPE_ENUMS = {
    "rule": {n: CONSTANTS[f"SINPE_ROPE_{n.upper()}"]
             for n in ("default", "linear", "dynamic", "yarn", "llama3", "longrope",
                       "proportional")},
    "pairing": {n: CONSTANTS[f"SINPE_ROPE_{n.upper()}"] for n in ("halves", "interleaved")},
    "layout": {n: CONSTANTS[f"SINPE_ROPE_{n.upper()}"]
               for n in ("cos_sin", "pairs", "cos_twice", "sin_twice")},
    "axes": {n: CONSTANTS[f"SINPE_ROPE_{n.upper()}"]
             for n in ("one_axis", "mrope", "mrope_interleaved", "axes_nd")},
}


def name_of_rope(field, value):
    """The short name of a rotary enum field's value, or the value itself."""
    for name, v in ROPE_ENUMS[field].items():
        if v == value:
            return name
    return value

# The status codes in SINPE_STATUS_MAP's order, by their short names.
STATUS_NAMES = {
    value: name[len("SINPE_"):]
    for name, value in CONSTANTS.items()
    if -2099 <= value <= -2001 or name == "SINPE_SUCCESS"
}


def names(group):
    """{"interleaved": 0, ...} for the constants SINPE_<group>_*."""
    prefix = f"SINPE_{group}_"
    return {
        name[len(prefix):].lower(): value
        for name, value in CONSTANTS.items()
        if name.startswith(prefix)
    }


def name_of(group, value):
    """The short lower-case name of value in group, or the value itself."""
    for name, v in names(group).items():
        if v == value:
            return name
    return value
