"""Table rows and timesteps, read through the NumPy path, against the
float64 formula of each preset (reference.py), |error| <= 1.5e-7 for fp32;
fp16 and bf16 rows within half an ulp of their type plus that."""

import numpy as np
import pytest

import reference as ref
import sinpe

POSITION_PRESETS = ["vaswani", "tensor2tensor", "fairseq", "whisper", "marian_hf", "opennmt",
                    "mae"]
TIMESTEP_PRESETS = ["diffusers", "diffusers_flip", "ggml_timestep"]


def test_presets_by_name():
    names = sinpe.presets()
    assert set(names) == set(ref.PE)
    for name, value in names.items():
        assert sinpe.preset_name(value) == name
        assert sinpe.preset_value(name.upper()) == value
    assert sinpe.preset_value("Marian-HF") == sinpe.PRESET_MARIAN_HF
    assert sinpe.preset_name(0) is None


@pytest.mark.parametrize("preset", POSITION_PRESETS)
@pytest.mark.parametrize("dim", [64, 37])
def test_rows(host_ctx, preset, dim, rng):
    if dim % 2 and preset in ref.EVEN_ONLY:
        with pytest.raises(sinpe.SinpeError) as e:
            host_ctx.table(preset, dim)
        assert e.value.name == "INVALID_SPEC"
        return
    table = host_ctx.table(preset, dim, rows=256)
    assert table.rows >= 256 and table.dim == dim
    assert table.spec == sinpe.spec(dim, preset)
    # Rows inside the table, far past it, and negative ones.
    for row0, n in [(0, 256), (int(rng.integers(1000, 1 << 24)), 64), (-100, 50)]:
        got = table.read_rows(row0, n)
        assert got.dtype == np.float32 and got.shape == (n, dim)
        want = ref.PE[preset](np.arange(row0, row0 + n, dtype=np.float64), dim)
        ref.assert_close(got, want, ref.PE_TOL, what=f"{preset} rows {row0}+{n}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_rows_half_types(host_ctx, dtype):
    table = host_ctx.table("fairseq", 96, rows=128)
    got = table.read_rows(0, 128, dtype)
    want = ref.fairseq(np.arange(128.0), 96)
    if dtype == "float16":
        assert got.dtype == np.float16
        ref.assert_close(got, want, ref.PE_TOL + 2.0 ** -25, 2.0 ** -11, "fp16 rows")
    else:
        assert got.dtype == np.uint16  # raw bits when named by string
        ref.assert_close(ref.bf16_bits_to_f64(got), want, ref.PE_TOL, 2.0 ** -8, "bf16 rows")


def test_rows_bfloat16_dtype(host_ctx):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    table = host_ctx.table("vaswani", 32, rows=16)
    got = table.read_rows(0, 16, ml_dtypes.bfloat16)
    assert got.dtype == ml_dtypes.bfloat16
    ref.assert_close(got.astype(np.float64), ref.vaswani(np.arange(16.0), 32), ref.PE_TOL,
                     2.0 ** -8, "bf16 rows")


@pytest.mark.parametrize("preset", TIMESTEP_PRESETS)
@pytest.mark.parametrize("dim", [320, 33])
def test_timesteps(host_ctx, preset, dim, rng):
    table = host_ctx.table(preset, dim)
    ts = np.concatenate([[0.0, 1.0, 999.0], rng.uniform(0, 1000, 29)]).astype(np.float32)
    got = table.timesteps_host(ts)
    assert got.shape == (32, dim)
    ref.assert_close(got, ref.PE[preset](ts.astype(np.float64), dim), ref.PE_TOL,
                     what=f"{preset} timesteps")


def test_reserve_and_shared_tables(host_ctx):
    a = host_ctx.table("whisper", 128, rows=10)
    b = host_ctx.table(sinpe.spec(128, "whisper"), rows=0)
    a.reserve(3000)
    assert b.rows >= 3000  # one table per (context, spec)
    ref.assert_close(b.read_rows(2990, 10), ref.whisper(np.arange(2990.0, 3000.0), 128),
                     ref.PE_TOL, what="grown rows")
    a.release()
    assert b.rows >= 3000
    b.release()
    a.release()  # idempotent


def test_spec_fields(host_ctx):
    s = sinpe.spec(48, layout="split_cos_sin", odd_dim="error", base=500.0, shift=0.5,
                   angle_scale=2.0)
    assert (s.dim, s.layout, s.odd_dim) == (48, sinpe.LAYOUT_SPLIT_COS_SIN, sinpe.ODD_ERROR)
    got = host_ctx.table(s, rows=8).read_rows(0, 8)
    k = np.arange(24)
    w = 2.0 * 500.0 ** (-k / (24 - 0.5))
    ang = np.arange(8.0)[:, None] * w
    ref.assert_close(got, np.concatenate([np.cos(ang), np.sin(ang)], axis=1), ref.PE_TOL,
                     what="custom spec")
