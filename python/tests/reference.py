"""Float64 references of the encodings, written from each framework's
definition (see the presets in include/sinpe.h), independent of sinpe's
spec arithmetic."""

import math

import numpy as np

# Tolerances of include/sinpe.h: PE against float64, and a computed float32
# embedding, |got - ref| <= EMBED_TOL * (1 + |ref|): PE contributes 1.5e-7,
# the product token_scale * E and the sum one rounding each.
PE_TOL = 1.5e-7
EMBED_TOL = 1e-6


def _pad_odd(signal, d):
    if d % 2:
        signal = np.concatenate([signal, np.zeros((signal.shape[0], 1))], axis=1)
    return signal


def vaswani(p, d):
    """The paper / XLM create_sinusoidal_embeddings: interleaved; an odd d
    gets the extra sin column XLM's table has."""
    j = np.arange(d)
    angle = p[:, None] / np.power(10000.0, 2 * (j // 2) / d)
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))


def tensor2tensor(p, d, min_timescale=1.0, max_timescale=1.0e4):
    """tensor2tensor get_timing_signal_1d."""
    num = d // 2
    log_inc = math.log(max_timescale / min_timescale) / max(num - 1, 1)
    inv = min_timescale * np.exp(np.arange(num) * -log_inc)
    scaled = p[:, None] * inv[None, :]
    return _pad_odd(np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1), d)


def fairseq(p, d):
    """fairseq SinusoidalPositionalEmbedding.get_embedding (d >= 4)."""
    half = d // 2
    freq = np.exp(np.arange(half) * -(math.log(10000.0) / (half - 1)))
    angle = p[:, None] * freq[None, :]
    return _pad_odd(np.concatenate([np.sin(angle), np.cos(angle)], axis=1), d)


def whisper(p, d):
    """Whisper sinusoids (even d only)."""
    inc = math.log(10000.0) / (d // 2 - 1)
    inv = np.exp(-inc * np.arange(d // 2))
    scaled = p[:, None] * inv[None, :]
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)


def marian_hf(p, d):
    """HF MarianSinusoidalPositionalEmbedding: ceil(d/2) sin columns."""
    j = np.arange(d)
    enc = p[:, None] / np.power(10000.0, 2 * (j // 2) / d)
    sentinel = d // 2 + d % 2
    out = np.empty((len(p), d))
    out[:, :sentinel] = np.sin(enc[:, 0::2])
    out[:, sentinel:] = np.cos(enc[:, 1::2])
    return out


def opennmt(p, d):
    """OpenNMT-tf SinusoidalPositionEncoder (even d only)."""
    inc = math.log(10000.0) / (d / 2 - 1)
    inv = np.exp(np.arange(d // 2) * -inc)
    scaled = p[:, None] * inv[None, :]
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)


def diffusers(t, d, flip=False, shift=1.0, scale=1.0, max_period=10000.0):
    """diffusers get_timestep_embedding."""
    half = d // 2
    exponent = -math.log(max_period) * np.arange(half) / (half - shift)
    emb = scale * (t[:, None] * np.exp(exponent)[None, :])
    parts = [np.cos(emb), np.sin(emb)] if flip else [np.sin(emb), np.cos(emb)]
    return _pad_odd(np.concatenate(parts, axis=1), d)


def diffusers_flip(t, d):
    return diffusers(t, d, flip=True, shift=0.0)


def ggml_timestep(t, d, max_period=10000.0):
    """ggml ggml_timestep_embedding."""
    half = d // 2
    freqs = np.exp(-math.log(max_period) * np.arange(half) / half)
    args = t[:, None] * freqs[None, :]
    return _pad_odd(np.concatenate([np.cos(args), np.sin(args)], axis=1), d)


def mae(p, d):
    """MAE get_1d_sincos_pos_embed_from_grid (even d only): [sin | cos],
    omega_k = 10000^(-k / (d/2))."""
    omega = 1.0 / 10000.0 ** (np.arange(d // 2) / (d / 2.0))
    out = p[:, None] * omega[None, :]
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


PE = {
    "vaswani": vaswani, "tensor2tensor": tensor2tensor, "fairseq": fairseq,
    "whisper": whisper, "marian_hf": marian_hf, "opennmt": opennmt,
    "diffusers": diffusers, "diffusers_flip": diffusers_flip,
    "ggml_timestep": ggml_timestep, "mae": mae,
}

# Presets that reject an odd dim.
EVEN_ONLY = {"whisper", "opennmt", "mae"}


def make_positions(ids, pad):
    """fairseq utils.make_positions: pad tokens keep pad, the others count
    from pad + 1 along each row."""
    mask = ids != pad
    return np.cumsum(mask, axis=1) * mask + pad


def embed(ids, weights, scale, pe_rows):
    """scale * E[ids] + PE in float64, rows in ids' order."""
    return scale * np.asarray(weights, np.float64)[ids.reshape(-1)] + pe_rows


def assert_close(got, ref, abs_tol, rel_tol=0.0, what="values"):
    """|got - ref| <= abs_tol + rel_tol * |ref| everywhere; a NaN fails."""
    got = np.asarray(got, np.float64)
    err = np.abs(got - ref)
    tol = abs_tol + rel_tol * np.abs(ref)
    bad = ~(err <= tol)
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, err, -1)), bad.shape)
        raise AssertionError(f"{what}: {bad.sum()} of {bad.size} outside tolerance; worst at "
                             f"{i}: got {got[i]!r}, expected {ref[i]!r} (tol {tol[i]:.3g})")


def f16_bits_to_f64(bits):
    return np.asarray(bits, np.uint16).view(np.float16).astype(np.float64)


def bf16_bits_to_f64(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32).astype(
        np.float64)


def f32_to_bf16_bits(x):
    """Round-to-nearest-even float32 -> bfloat16 bits (finite inputs)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def fp8_e4m3_to_f64(b):
    """OCP E4M3 ("fn"): bias 7, no infinities, S.1111.111 NaN."""
    b = np.asarray(b, np.uint8).astype(np.int64)
    s = np.where(b & 0x80, -1.0, 1.0)
    e = (b >> 3) & 0xF
    m = b & 7
    v = np.where(e == 0, m * 2.0 ** -9, (8 + m) * np.exp2(e - 10.0))
    v = np.where((e == 15) & (m == 7), np.nan, v)
    return s * v


def fp8_e5m2_to_f64(b):
    """OCP E5M2: the upper byte of an IEEE half."""
    return (np.asarray(b, np.uint8).astype(np.uint16) << 8).view(np.float16).astype(np.float64)


def q8_0_to_f64(blocks, dim):
    """ggml Q8_0 rows of (dim / 32) blocks: an fp16 scale, then 32 int8."""
    rows = blocks.shape[0]
    b = blocks.reshape(rows, dim // 32, 34)
    d = b[:, :, :2].copy().view(np.float16).astype(np.float32)
    q = b[:, :, 2:].view(np.int8).astype(np.float32)
    return (q * d).astype(np.float32).reshape(rows, dim).astype(np.float64)


def poisoned(cla, queue, shape, dtype=np.float32):
    """A device array filled with NaN (all-ones bits for integer types), so
    that any element a call leaves unwritten shows."""
    host = np.empty(shape, dtype)
    if np.dtype(dtype).kind == "f":
        host.fill(np.nan)
    else:
        host.view(np.uint8).fill(0xFF)
    return cla.to_device(queue, host)
