"""A model's rotary rules layer by layer (the header's sinpe_rope_model):
each layer's RopeSpec and what else it asks of the host, DeepSeek's
softmax factor and Llama 4's attention temperature.

    spec, layer = sinpe.rope_model_layer("gemma3", 5)
    table = ctx.rope_table(spec)                  # when layer.rotates
"""

import numbers
from ctypes import byref, c_double

from ._lib import load
from ._types import CONSTANTS, RopeLayer, RopeSpec, names, struct_size
from .errors import SinpeError, fail
from .spec import named_values, value_of_name

INVALID_OPTION = CONSTANTS["SINPE_INVALID_OPTION"]

_models = None


def rope_models():
    """{name: value} of every model the library knows, by
    sinpe_rope_model_name() ("qwen3": 1, "gemma3": 2, ...)."""
    global _models
    if _models is None:
        _models = named_values(load().sinpe_rope_model_name)
    return dict(_models)


def rope_model_value(model):
    """A sinpe_rope_model from a name (case-insensitive, "-" or "_") or an
    int (passed on for sinpe to judge)."""
    return value_of_name(model, rope_models(), "rotary model")


def _layer_type(value):
    if isinstance(value, str):
        v = names("LAYER").get(value.lower().replace("_attention", ""))
        if v is None:
            raise SinpeError(INVALID_OPTION, f"type: {value!r} is not one of "
                             f"{', '.join(names('LAYER'))}")
        return v
    return int(value)


def rope_model_layer(model, layer=None, *, type=None):
    """(RopeSpec, RopeLayer) of a model's layer: by index (from 0,
    sinpe_rope_model_layer()) or, with type= ("full", "sliding",
    "chunked", or HF's "sliding_attention" ...), its first layer of that
    type (sinpe_rope_model_type()).  model: a name of rope_models() or its
    value.  Raises SinpeError: UNKNOWN_PRESET (model), INVALID_SHAPE (a
    layer past the model's), INVALID_OPTION (a type it lacks)."""
    if (layer is None) == (type is None):
        raise TypeError("rope_model_layer() takes a layer index or type=, one of them")
    lib = load()
    spec, info = RopeSpec(), RopeLayer()
    m = rope_model_value(model)
    if type is None:
        st = lib.sinpe_rope_model_layer_sized(m, layer, byref(spec), struct_size(spec),
                                              byref(info), struct_size(info))
    else:
        st = lib.sinpe_rope_model_type_sized(m, _layer_type(type), byref(spec),
                                             struct_size(spec), byref(info), struct_size(info))
    if st:
        fail(st)
    spec._keep = {}
    return spec, info


def softmax_factor(spec):
    """sinpe_rope_softmax_factor(): what the host multiplies its softmax
    scale by for spec (DeepSeek's g(factor, mscale_all_dim)^2, else 1)."""
    out = c_double()
    st = load().sinpe_rope_softmax_factor(byref(spec), byref(out))
    if st:
        fail(st)
    return out.value


def temperature(position, attn_scale=0.1, floor_scale=8192.0):
    """sinpe_rope_temperature(): Llama 4's query factor at an int32
    position, in float64 (the header gives the formula); a sequence of
    positions gives a list."""
    lib = load()
    out = c_double()

    def one(p):
        p = int(p)
        if not -2**31 <= p < 2**31:
            raise SinpeError(CONSTANTS["SINPE_INVALID_SHAPE"], f"position {p} is outside int32")
        st = lib.sinpe_rope_temperature(p, float(attn_scale), float(floor_scale), byref(out))
        if st:
            fail(st)
        return out.value

    if isinstance(position, numbers.Integral):
        return one(position)
    return [one(p) for p in position]


RopeSpec.softmax_factor = softmax_factor
