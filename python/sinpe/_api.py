"""The functions of include/sinpe.h, each with its C return and argument
types spelled as in the header.

An operation's module declares its own struct, functions and enum values
beside its Python call (declare()), so that a new operation edits no shared
file here but __init__.py's imports.  One table serves two purposes: _lib.py derives the ctypes prototypes from
it, and tests/test_layout.py compiles a C program that assigns every
function to a pointer of exactly these types (so that a changed prototype
fails to compile there instead of corrupting a call here).
"""

from ctypes import (POINTER, c_char_p, c_double, c_float, c_int, c_int32, c_size_t, c_uint, c_uint32,
                    c_void_p)

from ._types import CONSTANTS, STRUCTS

ENQUEUE_TAIL = ("cl_uint", "const cl_event *", "cl_event *")


def recording(args):
    """The arguments of a sinpe_record_* call taking args (mirrored for
    completeness; PyOpenCL has no command buffers)."""
    return ("sinpe_table *", "cl_command_queue", "struct _cl_command_buffer_khr *", args,
            "cl_uint", "const cl_uint *", "cl_uint *")


_RECORD = recording("const sinpe_embed_args *")

FUNCTIONS = [
    ("sinpe_version_number", "unsigned", ()),
    ("sinpe_version_string", "const char *", ()),
    ("sinpe_status_string", "const char *", ("sinpe_status",)),
    ("sinpe_last_error", "const char *", ()),
    ("sinpe_context_options_init_sized", "void", ("sinpe_context_options *", "size_t")),
    ("sinpe_context_create", "sinpe_status",
     ("const sinpe_context_options *", "sinpe_context **")),
    ("sinpe_context_create_from_cl", "sinpe_status",
     ("cl_context", "cl_device_id", "const sinpe_context_options *", "sinpe_context **")),
    ("sinpe_context_release", "void", ("sinpe_context *",)),
    ("sinpe_context_cl_context", "cl_context", ("const sinpe_context *",)),
    ("sinpe_context_device", "cl_device_id", ("const sinpe_context *",)),
    ("sinpe_context_queue", "cl_command_queue", ("const sinpe_context *",)),
    ("sinpe_context_math", "sinpe_math", ("const sinpe_context *",)),
    ("sinpe_context_features", "unsigned", ("const sinpe_context *",)),
    ("sinpe_context_tuning", "const char *", ("const sinpe_context *",)),
    ("sinpe_tuning_save", "sinpe_status",
     ("const sinpe_context *", "const char *", "char *", "size_t")),
    ("sinpe_spec_init_sized", "void", ("sinpe_spec *", "size_t", "size_t")),
    ("sinpe_spec_preset_sized", "sinpe_status",
     ("sinpe_spec *", "sinpe_preset", "size_t", "size_t")),
    ("sinpe_preset_name", "const char *", ("sinpe_preset",)),
    ("sinpe_dtype_bytes", "size_t", ("sinpe_dtype", "size_t")),
    ("sinpe_dtype_count", "size_t", ()),
    ("sinpe_dtype_query", "sinpe_status", ("sinpe_dtype", "sinpe_dtype_info *", "size_t")),
    ("sinpe_context_prepare", "sinpe_status", ("sinpe_context *", "sinpe_dtype")),
    ("sinpe_table_create", "sinpe_status",
     ("sinpe_context *", "const sinpe_spec *", "size_t", "sinpe_table **")),
    ("sinpe_table_reserve", "sinpe_status", ("sinpe_table *", "size_t")),
    ("sinpe_table_borrow", "sinpe_status", ("sinpe_table *", "cl_mem *", "size_t *")),
    ("sinpe_enqueue_table_rows", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "cl_int", "size_t", "cl_mem", "size_t", "size_t",
      "sinpe_dtype") + ENQUEUE_TAIL),
    ("sinpe_table_rows", "size_t", ("const sinpe_table *",)),
    ("sinpe_table_spec_sized", "sinpe_status",
     ("const sinpe_table *", "sinpe_spec *", "size_t")),
    ("sinpe_table_release", "void", ("sinpe_table *",)),
    ("sinpe_embed_args_init_sized", "void", ("sinpe_embed_args *", "size_t")),
    ("sinpe_embed_args_preset", "sinpe_status",
     ("sinpe_embed_args *", "sinpe_preset", "size_t", "cl_int")),
    ("sinpe_enqueue_embed", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "const sinpe_embed_args *") + ENQUEUE_TAIL),
    ("sinpe_enqueue_gather", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "const sinpe_embed_args *") + ENQUEUE_TAIL),
    ("sinpe_enqueue_add_positions", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "const sinpe_embed_args *") + ENQUEUE_TAIL),
    ("sinpe_embed_host", "sinpe_status",
     ("sinpe_table *", "const int32_t *", "size_t", "size_t", "const float *", "size_t",
      "float", "int32_t", "const int32_t *", "float *")),
    ("sinpe_quantize", "sinpe_status",
     ("sinpe_dtype", "const float *", "size_t", "size_t", "void *", "size_t", "void *",
      "sinpe_dtype")),
    ("sinpe_device_source", "sinpe_status",
     ("const sinpe_context *", "char *", "size_t", "size_t *")),
    ("sinpe_table_constants", "sinpe_status", ("sinpe_table *", "cl_mem *")),
    ("sinpe_record_embed", "sinpe_status", _RECORD),
    ("sinpe_record_gather", "sinpe_status", _RECORD),
    ("sinpe_record_add_positions", "sinpe_status", _RECORD),
    ("sinpe_enqueue_timesteps", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "cl_mem", "size_t", "size_t", "cl_mem", "size_t",
      "size_t", "sinpe_dtype") + ENQUEUE_TAIL),
    ("sinpe_rope_spec_init_sized", "void", ("sinpe_rope_spec *", "size_t", "size_t")),
    ("sinpe_rope_preset_sized", "sinpe_status",
     ("sinpe_rope_spec *", "sinpe_rope_preset", "size_t", "size_t")),
    ("sinpe_rope_preset_name", "const char *", ("sinpe_rope_preset",)),
    ("sinpe_rope_frequencies", "sinpe_status", ("const sinpe_rope_spec *", "double *", "double *")),
    ("sinpe_rope_model_layer_sized", "sinpe_status",
     ("sinpe_rope_model", "size_t", "sinpe_rope_spec *", "size_t", "sinpe_rope_layer *",
      "size_t")),
    ("sinpe_rope_model_type_sized", "sinpe_status",
     ("sinpe_rope_model", "sinpe_layer_type", "sinpe_rope_spec *", "size_t",
      "sinpe_rope_layer *", "size_t")),
    ("sinpe_rope_model_name", "const char *", ("sinpe_rope_model",)),
    ("sinpe_rope_softmax_factor", "sinpe_status", ("const sinpe_rope_spec *", "double *")),
    ("sinpe_rope_temperature", "sinpe_status", ("int32_t", "double", "double", "double *")),
    ("sinpe_rope_table_create", "sinpe_status",
     ("sinpe_context *", "const sinpe_rope_spec *", "size_t", "sinpe_table **")),
    ("sinpe_rope_args_init_sized", "void", ("sinpe_rope_args *", "size_t")),
    ("sinpe_enqueue_rope", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "const sinpe_rope_args *") + ENQUEUE_TAIL),
    ("sinpe_record_rope", "sinpe_status", recording("const sinpe_rope_args *")),
    ("sinpe_grid_args_init_sized", "void", ("sinpe_grid_args *", "size_t")),
    ("sinpe_enqueue_grid", "sinpe_status",
     ("sinpe_table *", "cl_command_queue", "const sinpe_grid_args *") + ENQUEUE_TAIL),
]

# C type -> ctypes type.  Handles and host pointers are c_void_p (ints, None,
# ctypes arrays and byref() objects all convert); the structs go by pointer.
CTYPES = {
    "void": None,
    "unsigned": c_uint,
    "const char *": c_char_p,
    "char *": c_void_p,
    "sinpe_status": c_int,
    "sinpe_math": c_int,
    "sinpe_preset": c_int,
    "sinpe_dtype": c_int,
    "size_t": c_size_t,
    "size_t *": POINTER(c_size_t),
    "float": c_float,
    "int32_t": c_int32,
    "cl_int": c_int32,
    "cl_uint": c_uint32,
    "cl_context": c_void_p,
    "cl_device_id": c_void_p,
    "cl_command_queue": c_void_p,
    "cl_mem": c_void_p,
    "cl_mem *": POINTER(c_void_p),
    "struct _cl_command_buffer_khr *": c_void_p,
    "const cl_uint *": c_void_p,
    "cl_uint *": c_void_p,
    "const cl_event *": c_void_p,
    "cl_event *": c_void_p,
    "sinpe_context *": c_void_p,
    "const sinpe_context *": c_void_p,
    "sinpe_context **": POINTER(c_void_p),
    "sinpe_table *": c_void_p,
    "const sinpe_table *": c_void_p,
    "sinpe_table **": POINTER(c_void_p),
    "const int32_t *": c_void_p,
    "const float *": c_void_p,
    "float *": c_void_p,
    "void *": c_void_p,
    "sinpe_rope_preset": c_int,
    "sinpe_rope_model": c_int,
    "sinpe_layer_type": c_int,
    "double": c_double,
    "double *": c_void_p,
    "int32_t *": c_void_p,
}


def _by_pointer(s):
    """Each struct by pointer, const or not."""
    CTYPES[s.c_name + " *"] = CTYPES["const " + s.c_name + " *"] = POINTER(s)


for _s in STRUCTS:
    _by_pointer(_s)


def declare(structs=(), functions=(), constants=None):
    """Adds an operation's structs, functions (name, C return type, C
    argument types) and constants to the tables; its module calls this when
    imported, before the library loads."""
    for s in structs:
        STRUCTS.append(s)
        _by_pointer(s)
    FUNCTIONS.extend(functions)
    CONSTANTS.update(constants or {})
