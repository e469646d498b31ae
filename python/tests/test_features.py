"""What the library is, at run time: the version of the library loaded
against the header's (the constants test_layout.py compares with it), the
storage types, and a context's features against what the device reports
and what the library then does."""

import pytest

import sinpe
from conftest import DEVICE
from sinpe._types import CONSTANTS


def test_version_is_the_headers():
    want = tuple(CONSTANTS[f"SINPE_VERSION_{part}"] for part in ("MAJOR", "MINOR", "PATCH"))
    assert sinpe.version_info() == want
    assert sinpe.version() == sinpe.__version__ == "%d.%d.%d" % want


def test_storage_types():
    assert sinpe.storage_types() == ("f32", "f16", "bf16", "i8", "q8_0", "fp8_e4m3",
                                     "fp8_e5m2", "q4_0", "q4_1", "q5_0", "q5_1", "q4_k",
                                     "q5_k", "q6_k")


def test_features_match_the_device(cl_env, host_ctx):
    cl, _, ctx, _, sctx = cl_env
    features = sctx.features
    print(f"features of {ctx.devices[0].name!r}: {sorted(features)}")
    assert features <= {"fp64", "command_buffer"}
    extensions = ctx.devices[0].extensions.split()
    assert ("fp64" in features) == ("cl_khr_fp64" in extensions)
    if "command_buffer" in features:
        assert "cl_khr_command_buffer" in extensions
    # The same device through a context of sinpe's own.
    assert host_ctx.features == features


def test_fp64_feature_is_what_math_fp64_needs(host_ctx):
    if "fp64" in host_ctx.features:
        with sinpe.Context(device=DEVICE, math="fp64") as c:
            assert c.math == "fp64"
    else:
        with pytest.raises(sinpe.SinpeError) as e:
            sinpe.Context(device=DEVICE, math="fp64")
        assert e.value.name == "UNSUPPORTED"
