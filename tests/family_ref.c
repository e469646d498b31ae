/* family_ref.c -- float64 transcriptions of each framework's sinusoidal
 * encoding, and host storage-type conversions.  See family_ref.h. */
#include "family_ref.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Framework references ---- */

fr_defined fr_family_defined(sinpe_preset preset, size_t dim)
{
    size_t half = dim / 2;
    switch (preset) {
    case SINPE_PRESET_FAIRSEQ:
        /* emb = math.log(10000) / (half_dim - 1): ZeroDivisionError for
         * half_dim == 1 (d = 2, 3).  d = 1 gives half_dim - 1 = -1 and an
         * empty arange, hence the zero column alone. */
        return half == 1 ? FR_UNDEFINED : FR_OK;
    case SINPE_PRESET_WHISPER:
        /* assert channels % 2 == 0; np.log(10000) / (channels // 2 - 1) is
         * inf for d = 2, and exp(-inf * 0) is NaN. */
        if (dim % 2)
            return FR_REJECTS;
        return half == 1 ? FR_UNDEFINED : FR_OK;
    case SINPE_PRESET_OPENNMT:
        /* ValueError for odd depth; math.log(10000) / (depth / 2 - 1) raises
         * ZeroDivisionError for depth = 2. */
        if (dim % 2)
            return FR_REJECTS;
        return half == 1 ? FR_UNDEFINED : FR_OK;
    case SINPE_PRESET_DIFFUSERS:
        /* exponent / (half_dim - downscale_freq_shift) with shift 1 is
         * 0 / 0 = NaN in torch for half_dim == 1. */
        return half == 1 ? FR_UNDEFINED : FR_OK;
    case SINPE_PRESET_MAE:
        /* "embed_dim must be divisible by 2" (ValueError, diffusers; MAE's assert). */
        return dim % 2 ? FR_REJECTS : FR_OK;
    default:
        return FR_OK;
    }
}

/* XLM create_sinusoidal_embeddings and the paper (also the PyTorch tutorial
 * for even d):
 *   position_enc = [[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]]
 *   out[:, 0::2] = sin(position_enc[:, 0::2]); out[:, 1::2] = cos(position_enc[:, 1::2]) */
static void ref_xlm(size_t dim, size_t n, const double *pos, double *out)
{
    double *div = tu_malloc(dim * sizeof *div);
    for (size_t j = 0; j < dim; j++)
        div[j] = pow(10000.0, 2.0 * (double)(j / 2) / (double)dim);
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t j = 0; j < dim; j++) {
            double enc = pos[i] / div[j];
            o[j] = (j % 2 == 0) ? sin(enc) : cos(enc);
        }
    }
    free(div);
}

/* HF MarianSinusoidalPositionalEmbedding._init_weight:
 *   position_enc as XLM; sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
 *   out[:, 0:sentinel] = sin(position_enc[:, 0::2])
 *   out[:, sentinel:]  = cos(position_enc[:, 1::2]) */
static void ref_marian(size_t dim, size_t n, const double *pos, double *out)
{
    size_t sentinel = dim % 2 == 0 ? dim / 2 : dim / 2 + 1;
    double *div = tu_malloc(dim * sizeof *div);
    for (size_t j = 0; j < dim; j++)
        div[j] = pow(10000.0, 2.0 * (double)(j / 2) / (double)dim);
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t s = 0; s < sentinel; s++) /* even j = 2 s */
            o[s] = sin(pos[i] / div[2 * s]);
        for (size_t s = 0; sentinel + s < dim; s++) /* odd j = 2 s + 1 */
            o[sentinel + s] = cos(pos[i] / div[2 * s + 1]);
    }
    free(div);
}

/* tensor2tensor common_attention.get_timing_signal_1d(length, channels,
 * min_timescale=1.0, max_timescale=1.0e4, start_index=0):
 *   num_timescales = channels // 2
 *   log_timescale_increment = log(max / min) / maximum(num_timescales - 1, 1)
 *   inv_timescales = min * exp(range(num_timescales) * -log_timescale_increment)
 *   signal = concat([sin(scaled_time), cos(scaled_time)]); pad channels % 2 */
static void ref_t2t(size_t dim, size_t n, const double *pos, double *out)
{
    const double min_timescale = 1.0, max_timescale = 1.0e4;
    size_t num_timescales = dim / 2;
    double denom = (double)num_timescales - 1.0;
    double inc = log(max_timescale / min_timescale) / (denom > 1.0 ? denom : 1.0);
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t k = 0; k < num_timescales; k++) {
            double inv = min_timescale * exp((double)k * -inc);
            double scaled = pos[i] * inv;
            o[k] = sin(scaled);
            o[num_timescales + k] = cos(scaled);
        }
        if (dim % 2)
            o[dim - 1] = 0.0;
    }
}

/* fairseq SinusoidalPositionalEmbedding.get_embedding (without the zeroed
 * padding_idx row):
 *   half_dim = embedding_dim // 2
 *   emb = math.log(10000) / (half_dim - 1)
 *   emb = exp(arange(half_dim) * -emb); emb = arange(num)[:, None] * emb[None, :]
 *   emb = cat([sin(emb), cos(emb)], 1); odd: cat([emb, zeros(num, 1)], 1) */
static void ref_fairseq(size_t dim, size_t n, const double *pos, double *out)
{
    size_t half_dim = dim / 2;
    double emb = log(10000.0) / ((double)half_dim - 1.0);
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t k = 0; k < half_dim; k++) {
            double a = pos[i] * exp((double)k * -emb);
            o[k] = sin(a);
            o[half_dim + k] = cos(a);
        }
        if (dim % 2 == 1)
            o[dim - 1] = 0.0;
    }
}

/* Whisper model.sinusoids(length, channels, max_timescale=10000):
 *   log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
 *   inv_timescales = exp(-log_timescale_increment * arange(channels // 2))
 *   cat([sin(scaled_time), cos(scaled_time)], dim=1) */
static void ref_whisper(size_t dim, size_t n, const double *pos, double *out)
{
    size_t half = dim / 2;
    double inc = log(10000.0) / (double)(half - 1);
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t k = 0; k < half; k++) {
            double scaled = pos[i] * exp(-inc * (double)k);
            o[k] = sin(scaled);
            o[half + k] = cos(scaled);
        }
    }
}

/* OpenNMT-tf SinusoidalPositionEncoder.encode (CTranslate2 builds the same
 * table):
 *   log_timescale_increment = math.log(10000) / (depth / 2 - 1)
 *   inv_timescales = exp(range(depth / 2) * -log_timescale_increment)
 *   concat([sin(scaled_time), cos(scaled_time)])
 * The positions themselves start at 1 (range(timesteps) + 1); that origin
 * lives in the embed args, the table row p holds encode(p). */
static void ref_opennmt(size_t dim, size_t n, const double *pos, double *out)
{
    double depth = (double)dim;
    size_t half = dim / 2;
    double inc = log(10000.0) / (depth / 2.0 - 1.0);
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t k = 0; k < half; k++) {
            double scaled = pos[i] * exp((double)k * -inc);
            o[k] = sin(scaled);
            o[half + k] = cos(scaled);
        }
    }
}

/* diffusers embeddings.get_timestep_embedding(timesteps, embedding_dim,
 * flip_sin_to_cos, downscale_freq_shift, scale=1, max_period=10000):
 *   exponent = -math.log(max_period) * arange(0, half_dim)
 *   exponent = exponent / (half_dim - downscale_freq_shift)
 *   emb = timesteps[:, None] * exp(exponent)[None, :]; emb = scale * emb
 *   emb = cat([sin(emb), cos(emb)]); flip: cat([emb[:, half:], emb[:, :half]])
 *   odd: pad (0, 1) */
void fr_diffusers(size_t dim, int flip_sin_to_cos, double downscale_freq_shift, double scale,
                  double max_period, size_t n, const double *t, double *out)
{
    size_t half_dim = dim / 2;
    double *tmp = tu_malloc((2 * half_dim + 1) * sizeof *tmp);
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t k = 0; k < half_dim; k++) {
            double exponent = -log(max_period) * (double)k;
            exponent = exponent / ((double)half_dim - downscale_freq_shift);
            double emb = scale * (t[i] * exp(exponent));
            tmp[k] = sin(emb);
            tmp[half_dim + k] = cos(emb);
        }
        for (size_t c = 0; c < 2 * half_dim; c++)
            o[c] = flip_sin_to_cos ? tmp[(c + half_dim) % (2 * half_dim)] : tmp[c];
        if (dim % 2 == 1)
            o[dim - 1] = 0.0;
    }
    free(tmp);
}

/* ggml ggml_timestep_embedding (ggml-cpu ggml_compute_forward_timestep_embedding):
 *   half = dim / 2
 *   freq = exp(-log(max_period) * j / half); arg = timestep * freq
 *   embed[j] = cos(arg); embed[j + half] = sin(arg); odd: embed[2 * half] = 0 */
void fr_ggml(size_t dim, double max_period, size_t n, const double *t, double *out)
{
    size_t half = dim / 2;
    for (size_t i = 0; i < n; i++) {
        double *o = out + i * dim;
        for (size_t j = 0; j < half; j++) {
            double freq = exp(-log(max_period) * (double)j / (double)half);
            double arg = t[i] * freq;
            o[j] = cos(arg);
            o[j + half] = sin(arg);
        }
        if (dim % 2 != 0)
            o[2 * half] = 0.0;
    }
}

/* MAE get_1d_sincos_pos_embed_from_grid (diffusers' the same):
 *   omega = 1 / 10000^(arange(D/2) / (D/2)); out = pos x omega
 *   emb = [sin(out) | cos(out)] */
static void fr_mae(size_t dim, size_t n, const double *pos, double *out)
{
    size_t half = dim / 2;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < half; j++) {
            double a = pos[i] * (1.0 / pow(10000.0, (double)j / ((double)dim / 2.0)));
            out[i * dim + j] = sin(a);
            out[i * dim + half + j] = cos(a);
        }
}

void fr_family_ref(sinpe_preset preset, size_t dim, size_t n, const double *pos, double *out)
{
    switch (preset) {
    case SINPE_PRESET_VASWANI:
        ref_xlm(dim, n, pos, out);
        break;
    case SINPE_PRESET_TENSOR2TENSOR:
        ref_t2t(dim, n, pos, out);
        break;
    case SINPE_PRESET_FAIRSEQ:
        ref_fairseq(dim, n, pos, out);
        break;
    case SINPE_PRESET_WHISPER:
        ref_whisper(dim, n, pos, out);
        break;
    case SINPE_PRESET_MARIAN_HF:
        ref_marian(dim, n, pos, out);
        break;
    case SINPE_PRESET_OPENNMT:
        ref_opennmt(dim, n, pos, out);
        break;
    case SINPE_PRESET_DIFFUSERS:
        fr_diffusers(dim, 0, 1.0, 1.0, 10000.0, n, pos, out);
        break;
    case SINPE_PRESET_DIFFUSERS_FLIP:
        fr_diffusers(dim, 1, 0.0, 1.0, 10000.0, n, pos, out);
        break;
    case SINPE_PRESET_GGML_TIMESTEP:
        fr_ggml(dim, 10000.0, n, pos, out);
        break;
    case SINPE_PRESET_MAE:
        fr_mae(dim, n, pos, out);
        break;
    default:
        ck_abort_msg("fr_family_ref: preset %d has no reference", (int)preset);
    }
}

/* ---- Storage types ---- */

uint32_t fr_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float fr_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t fr_f32_to_f16(float f)
{
    uint32_t x = fr_f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7FFFFFFFu;

    if (ax > 0x7F800000u) /* NaN: quiet, keep the top payload bits */
        return (uint16_t)(sign | 0x7E00u | ((ax >> 13) & 0x3FFu));
    if (ax >= 0x477FF000u) /* 65520 (halfway to 2^16) and up, and inf */
        return (uint16_t)(sign | 0x7C00u);
    if (ax >= 0x38800000u) { /* normal binary16: 2^-14 and up */
        uint32_t r = ax - 0x38000000u; /* rebias the exponent from 127 to 15 */
        uint32_t lsb = (r >> 13) & 1u;
        r += 0xFFFu + lsb;
        return (uint16_t)(sign | (r >> 13));
    }
    /* Subnormal binary16 or zero: the result counts units of 2^-24. */
    uint32_t e = ax >> 23;
    if (e < 102) /* below 2^-25: rounds to zero (2^-25 itself is a tie to 0) */
        return sign;
    uint32_t m = (ax & 0x7FFFFFu) | 0x800000u; /* value = m * 2^(e - 150) */
    uint32_t shift = 126 - e;                  /* units: m * 2^(e - 126) */
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1u);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        q++;
    return (uint16_t)(sign | q);
}

float fr_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1Fu;
    uint32_t m = h & 0x3FFu;
    if (e == 0x1F)
        return fr_bits_f32(sign | 0x7F800000u | (m << 13));
    if (e == 0) {
        /* zero or subnormal: m * 2^-24, exact in float */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return fr_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t fr_f32_to_bf16(float f)
{
    uint32_t x = fr_f32_bits(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* NaN: keep it a NaN */
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7FFFu + lsb;
    return (uint16_t)(x >> 16);
}

float fr_bf16_to_f32(uint16_t b)
{
    return fr_bits_f32((uint32_t)b << 16);
}

int fr_f16_is_nan(uint16_t h)
{
    return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0;
}

int fr_bf16_is_nan(uint16_t b)
{
    return (b & 0x7F80u) == 0x7F80u && (b & 0x7Fu) != 0;
}

size_t fr_dtype_size(sinpe_dtype t)
{
    return t == SINPE_F32 ? 4 : 2;
}

float fr_load(const void *buf, size_t i, sinpe_dtype t)
{
    if (t == SINPE_F32)
        return ((const float *)buf)[i];
    uint16_t v = ((const uint16_t *)buf)[i];
    return t == SINPE_F16 ? fr_f16_to_f32(v) : fr_bf16_to_f32(v);
}

void fr_store(void *buf, size_t i, sinpe_dtype t, float x)
{
    if (t == SINPE_F32)
        ((float *)buf)[i] = x;
    else if (t == SINPE_F16)
        ((uint16_t *)buf)[i] = fr_f32_to_f16(x);
    else
        ((uint16_t *)buf)[i] = fr_f32_to_bf16(x);
}

uint32_t fr_raw(const void *buf, size_t i, sinpe_dtype t)
{
    if (t == SINPE_F32)
        return ((const uint32_t *)buf)[i];
    return ((const uint16_t *)buf)[i];
}

int fr_raw_is_nan(uint32_t raw, sinpe_dtype t)
{
    if (t == SINPE_F32)
        return (raw & 0x7FFFFFFFu) > 0x7F800000u;
    if (t == SINPE_F16)
        return fr_f16_is_nan((uint16_t)raw);
    return fr_bf16_is_nan((uint16_t)raw);
}

uint32_t fr_poison_raw(sinpe_dtype t)
{
    /* float32: the suite's own poison; the 16-bit ones are signalling NaNs,
     * which a conversion to the type never yields (it quiets NaNs). */
    if (t == SINPE_F32)
        return TU_POISON_BITS;
    return t == SINPE_F16 ? 0x7D5Au : 0x7F85u;
}

cl_mem fr_poisoned_buffer(sinpe_context *ctx, size_t n, sinpe_dtype t)
{
    void *host = tu_malloc(n * fr_dtype_size(t));
    for (size_t i = 0; i < n; i++) {
        if (t == SINPE_F32)
            ((uint32_t *)host)[i] = fr_poison_raw(t);
        else
            ((uint16_t *)host)[i] = (uint16_t)fr_poison_raw(t);
    }
    cl_mem mem = tu_buffer(ctx, n * fr_dtype_size(t), host);
    free(host);
    return mem;
}

uint32_t fr_round(float x, sinpe_dtype t)
{
    return t == SINPE_F32 ? fr_f32_bits(x) : t == SINPE_F16 ? fr_f32_to_f16(x) : fr_f32_to_bf16(x);
}

const char *fr_dtype_name(sinpe_dtype t)
{
    switch (t) {
    case SINPE_F32:
        return "f32";
    case SINPE_F16:
        return "f16";
    case SINPE_BF16:
        return "bf16";
    default:
        return "?";
    }
}
