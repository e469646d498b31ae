"""Presets by name and the encoding spec."""

import numbers
from ctypes import byref

from ._lib import load
from ._types import CONSTANTS, Spec, names, struct_size
from .errors import SinpeError, fail

UNKNOWN_PRESET = CONSTANTS["SINPE_UNKNOWN_PRESET"]
INVALID_OPTION = CONSTANTS["SINPE_INVALID_OPTION"]

_presets = None


def named_values(name_of):
    """{name: value} for the values 1..255 that name_of (a sinpe_*_name
    function of the library) names."""
    found = {}
    for value in range(1, 256):
        name = name_of(value)
        if name:
            found[name.decode()] = value
    return found


def value_of_name(value, known, what):
    """The value of a name of known ({name: value}), case-insensitive and
    "-", "_" or "." alike, or an int passed on for sinpe to judge; else
    SinpeError UNKNOWN_PRESET naming what."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str):
        def norm(name):
            return name.lower().replace("-", "_").replace(".", "_")
        found = {norm(n): v for n, v in known.items()}.get(norm(value))
        if found is not None:
            return found
    raise SinpeError(CONSTANTS["SINPE_UNKNOWN_PRESET"], f"{what} {value!r} is not one of "
                     f"{', '.join(sorted(known))}")


def presets():
    """{name: value} of every preset the library knows, by sinpe_preset_name()
    ("vaswani": 1, "tensor2tensor": 2, "fairseq": 3, ...)."""
    global _presets
    if _presets is None:
        _presets = named_values(load().sinpe_preset_name)
    return dict(_presets)


def preset_value(preset):
    """A sinpe_preset from a name (case-insensitive, "-" or "_") or an int
    (passed on as it is, for sinpe to judge)."""
    if isinstance(preset, numbers.Integral):
        return int(preset)
    if isinstance(preset, str):
        if _presets is None:
            presets()
        value = _presets.get(preset.lower().replace("-", "_"))
        if value is not None:
            return value
    raise SinpeError(UNKNOWN_PRESET, f"preset {preset!r} is not one of "
                     f"{', '.join(sorted(_presets or presets()))}")


def preset_name(value):
    """sinpe_preset_name(): the name of a preset value, or None."""
    name = load().sinpe_preset_name(int(value))
    return name.decode() if name else None


def enum_value(group, value, what):
    """An enum field from its short name ("split_sin_cos") or an int."""
    if isinstance(value, str):
        table = names(group)
        v = table.get(value.lower())
        if v is None:
            raise SinpeError(INVALID_OPTION, f"{what}: {value!r} is not one of "
                             f"{', '.join(table)}")
        return v
    return int(value)


def spec(dim, preset=None, *, layout=None, odd_dim=None, base=None, shift=None,
         angle_scale=None):
    """A sinpe_spec for dim: the preset's (sinpe_spec_preset()) when one is
    named, else the paper's (sinpe_spec_init()), then any field given.

    layout: "interleaved", "split_sin_cos" or "split_cos_sin"; odd_dim:
    "zero_last", "extra_sin" or "error" (or the header's int values); base,
    shift, angle_scale: floats (see sinpe_spec in the header).  The spec is
    checked where it is used (sinpe.Table), by sinpe.
    """
    lib = load()
    s = Spec()
    if preset is None:
        lib.sinpe_spec_init_sized(byref(s), dim, struct_size(s))
    else:
        st = lib.sinpe_spec_preset_sized(byref(s), preset_value(preset), dim, struct_size(s))
        if st:
            fail(st)
    if layout is not None:
        s.layout = enum_value("LAYOUT", layout, "layout")
    if odd_dim is not None:
        s.odd_dim = enum_value("ODD", odd_dim, "odd_dim")
    if base is not None:
        s.base = base
    if shift is not None:
        s.shift = shift
    if angle_scale is not None:
        s.angle_scale = angle_scale
    return s
