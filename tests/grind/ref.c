/* ref.c -- the float64 host reference; see ref.h. */
#include "ref.h"

#include <math.h>
#include <string.h>

/* ---- random numbers ------------------------------------------------------ */

uint64_t ref_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double ref_unit(uint64_t *state)
{
    return (double)(ref_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

int32_t ref_int(uint64_t *state, int32_t lo, int32_t hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1u;
    return (int32_t)((int64_t)lo + (int64_t)(ref_next(state) % span));
}

/* ---- the encoding -------------------------------------------------------- */

sinpe_spec ref_spec(size_t dim, sinpe_layout layout, sinpe_odd_dim odd, double shift,
                    double base, double angle_scale)
{
    sinpe_spec s;
    sinpe_spec_init(&s, dim);
    s.layout = layout;
    s.odd_dim = odd;
    s.shift = shift;
    s.base = base;
    s.angle_scale = angle_scale;
    return s;
}

void ref_pe_row(const sinpe_spec *s, double pos, double *row)
{
    size_t d = s->dim, half = d / 2;
    int extra = (d % 2 == 1) && s->odd_dim == SINPE_ODD_EXTRA_SIN;
    size_t n_sin = half + (extra ? 1 : 0), n_cos = half;
    double denom = (extra ? (double)d / 2.0 : (double)half) - s->shift;

    for (size_t c = 0; c < d; c++) {
        size_t k = 0;
        int kind = 0; /* 0: the zero column, 1: sin, 2: cos */
        if (s->layout == SINPE_LAYOUT_INTERLEAVED) {
            k = c / 2;
            if (c % 2 == 0)
                kind = k < n_sin ? 1 : 0;
            else
                kind = k < n_cos ? 2 : 0;
        } else if (s->layout == SINPE_LAYOUT_SPLIT_SIN_COS) {
            if (c < n_sin) {
                kind = 1;
                k = c;
            } else if (c < n_sin + n_cos) {
                kind = 2;
                k = c - n_sin;
            }
        } else {
            if (c < n_cos) {
                kind = 2;
                k = c;
            } else if (c < n_sin + n_cos) {
                kind = 1;
                k = c - n_cos;
            }
        }
        if (kind == 0) {
            row[c] = 0.0;
            continue;
        }
        double w = s->angle_scale * (k == 0 ? 1.0 : pow(s->base, -(double)k / denom));
        row[c] = kind == 1 ? sin(pos * w) : cos(pos * w);
    }
}

size_t ref_rope_lane(int axes, const size_t sec[4], size_t k)
{
    if (axes == SINPE_ROPE_MROPE_INTERLEAVED) {
        size_t n = sec[3] ? 4 : sec[2] ? 3 : sec[1] ? 2 : 1, l = k % n;
        return l > 0 && k < n * sec[l] ? l : 0;
    }
    size_t end = 0;
    for (size_t l = 0; l < 4; l++)
        if (k < (end += sec[l]))
            return l;
    return 3;
}

/* ---- storage types ------------------------------------------------------- */

/* The library's own table of the types (sinpe_dtype_query). */
static sinpe_dtype_info info_of(sinpe_dtype t)
{
    sinpe_dtype_info i;
    memset(&i, 0, sizeof i);
    i.name = "?";
    sinpe_dtype_query(t, &i, sizeof i);
    return i;
}

size_t ref_dtype_size(sinpe_dtype t) { return sinpe_dtype_bytes(t, 1); }

size_t ref_dtype_bytes(sinpe_dtype t, size_t n) { return sinpe_dtype_bytes(t, n); }

sinpe_dtype ref_quantized_type(size_t k)
{
    size_t n = 0, t;
    for (t = 0; t < sinpe_dtype_count(); t++)
        n += (size_t)info_of((sinpe_dtype)t).quantized;
    k %= n;
    for (t = 0;; t++)
        if (info_of((sinpe_dtype)t).quantized && k-- == 0)
            return (sinpe_dtype)t;
}

const char *ref_dtype_name(sinpe_dtype t) { return info_of(t).name; }

static int quantized(sinpe_dtype t) { return info_of(t).quantized; }

static double f16_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp((double)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp((double)(m + 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

static double bf16_value(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

/* OCP E4M3 ("fn"): bias 7, no infinities, S.1111.111 NaN. */
static double e4m3_value(uint8_t b)
{
    int e = (b >> 3) & 15, m = b & 7;
    double v = (e == 15 && m == 7) ? NAN : e == 0 ? ldexp(m, -9) : ldexp(8 + m, e - 10);
    return (b & 0x80) ? -v : v;
}

/* ---- ggml's 4-, 5- and 6-bit block types, from their layouts ---- */

static double f16_at(const unsigned char *p) { return f16_value((uint16_t)(p[0] | p[1] << 8)); }

/* Whether t is one of ggml's block types but Q8_0. */
static int ggml_type(sinpe_dtype t)
{
    return info_of(t).scales == SINPE_DTYPE_SCALES_BLOCK && t != SINPE_Q8_0;
}

/* Value j of the ggml block at b of type t: its code q, scale d and min m
   (the scales' products are exact in float64 and in float32), then the
   exact d q + m rounded once to float32, as float32 arithmetic gives it. */
static double ggml_value(sinpe_dtype t, const unsigned char *b, size_t j)
{
    int with_min = t != SINPE_Q4_0 && t != SINPE_Q5_0 && t != SINPE_Q6_K, q;
    double d, m = 0.0;
    if (t == SINPE_Q6_K) {
        size_t h = j / 128, w = j % 128;
        int lo = (b[64 * h + w % 64] >> (4 * (w / 64))) & 15;
        int hi = (b[128 + 32 * h + w % 32] >> (2 * (w / 32))) & 3;
        d = f16_at(b + 208) * (double)(int8_t)b[192 + j / 16];
        q = (lo | hi << 4) - 32;
    } else if (t == SINPE_Q4_K || t == SINPE_Q5_K) {
        size_t s = j / 32;
        const unsigned char *k = b + 4, *qs = b + (t == SINPE_Q5_K ? 48 : 16) + 32 * (s / 2);
        int sc = s < 4 ? k[s] & 63 : (k[s + 4] & 15) | (k[s - 4] >> 6) << 4;
        int mn = s < 4 ? k[s + 4] & 63 : (k[s + 4] >> 4) | (k[s] >> 6) << 4;
        q = (qs[j % 32] >> (4 * (s % 2))) & 15;
        if (t == SINPE_Q5_K)
            q |= ((b[16 + j % 32] >> s) & 1) << 4;
        d = f16_at(b) * sc;
        m = -(f16_at(b + 2) * mn);
    } else {
        int five = t == SINPE_Q5_0 || t == SINPE_Q5_1;
        const unsigned char *qh = b + (with_min ? 4 : 2), *qs = qh + (five ? 4 : 0);
        q = (qs[j % 16] >> (4 * (j / 16))) & 15;
        if (five)
            q |= ((qh[j / 8] >> (j % 8)) & 1) << 4;
        d = f16_at(b);
        if (with_min)
            m = f16_at(b + 2);
        else
            q -= five ? 16 : 8;
    }
    return (double)(float)(with_min ? d * q + m : d * q);
}

/* Random bytes for the ggml block at b of type t, its fp16 scales and
   mins finite, 2^-9 .. 2^-2 in magnitude, either sign. */
static void ggml_random_block(sinpe_dtype t, unsigned char *b, uint64_t *rng)
{
    size_t n = info_of(t).block_bytes, at[2] = {0, 2};
    for (size_t k = 0; k < n; k++)
        b[k] = (unsigned char)(ref_next(rng) >> 24);
    if (t == SINPE_Q6_K)
        at[0] = at[1] = 208;
    else if (t == SINPE_Q4_0 || t == SINPE_Q5_0)
        at[1] = 0;
    for (int k = 0; k < 2; k++) {
        uint64_t r = ref_next(rng);
        uint16_t h = (uint16_t)((r & 1) << 15 | (6 + ((r >> 1) & 7)) << 10 | ((r >> 4) & 0x3ff));
        b[at[k]] = (unsigned char)(h & 0xff);
        b[at[k] + 1] = (unsigned char)(h >> 8);
    }
}

double ref_load(sinpe_dtype t, const void *base, size_t i)
{
    const unsigned char *p = base;
    if (ggml_type(t)) {
        sinpe_dtype_info f = info_of(t);
        return ggml_value(t, p + i / f.block_values * f.block_bytes, i % f.block_values);
    }
    if (t == SINPE_I8)
        return (double)(int8_t)p[i];
    if (t == SINPE_FP8_E4M3)
        return e4m3_value(p[i]);
    if (t == SINPE_FP8_E5M2)
        return f16_value((uint16_t)(p[i] << 8));
    if (t == SINPE_Q8_0) {
        const unsigned char *blk = p + i / 32 * 34;
        return f16_value((uint16_t)(blk[0] | blk[1] << 8)) * (double)(int8_t)blk[2 + i % 32];
    }
    if (t == SINPE_F32) {
        float f;
        memcpy(&f, (const unsigned char *)base + 4 * i, 4);
        return (double)f;
    }
    uint16_t h;
    memcpy(&h, (const unsigned char *)base + 2 * i, 2);
    return t == SINPE_F16 ? f16_value(h) : bf16_value(h);
}

double ref_store_random(sinpe_dtype t, void *base, size_t i, uint64_t *rng)
{
    uint64_t r = ref_next(rng);
    int zero = (r & 31) == 0;
    unsigned char *p = base;
    if (quantized(t)) {
        uint8_t b = (uint8_t)(r >> 8);
        if (t == SINPE_FP8_E4M3 && (b & 0x7f) == 0x7f)
            b &= 0xf7; /* not the NaN code */
        if (t == SINPE_FP8_E5M2 && (b & 0x7c) == 0x7c)
            b &= 0xbf; /* no infinity or NaN */
        if (ggml_type(t)) { /* the whole block at its first value */
            sinpe_dtype_info f = info_of(t);
            if (i % f.block_values == 0)
                ggml_random_block(t, p + i / f.block_values * f.block_bytes, rng);
            return ref_load(t, base, i);
        }
        if (t == SINPE_Q8_0) {
            unsigned char *blk = p + i / 32 * 34;
            if (i % 32 == 0) { /* the block's scale d: 2^-9 .. 2^-2, either sign */
                uint16_t d = (uint16_t)(((r >> 16) & 1) << 15 | (6 + ((r >> 17) & 7)) << 10 |
                                        ((r >> 20) & 0x3ff));
                blk[0] = (unsigned char)(d & 0xff);
                blk[1] = (unsigned char)(d >> 8);
            }
            blk[2 + i % 32] = b;
        } else {
            p[i] = b;
        }
        return ref_load(t, base, i);
    }
    if (t == SINPE_F32) {
        float f = zero ? 0.0f : (float)(4.0 * ref_unit(rng) - 2.0);
        memcpy((unsigned char *)base + 4 * i, &f, 4);
        return (double)f;
    }
    uint16_t sign = (uint16_t)((r >> 5) & 1) << 15, h;
    if (t == SINPE_F16) {
        /* exponent field 9..16 is 2^-6 .. 2; field 0 a subnormal */
        uint16_t e = ((r >> 6) & 15) == 0 ? 0 : (uint16_t)(9 + ((r >> 10) & 7));
        h = (uint16_t)(sign | (uint16_t)(e << 10) | (uint16_t)((r >> 16) & 0x3ff));
    } else {
        uint16_t e = (uint16_t)(121 + ((r >> 10) & 7));
        h = (uint16_t)(sign | (uint16_t)(e << 7) | (uint16_t)((r >> 16) & 0x7f));
    }
    if (zero)
        h = 0;
    memcpy((unsigned char *)base + 2 * i, &h, 2);
    return ref_load(t, base, i);
}

#define POISON_F32 0x7FC5A5A5u
#define POISON_F16 0x7E5Au /* a quiet float16 NaN */
#define POISON_BF16 0x7FC5u

void ref_poison(sinpe_dtype t, void *base, size_t n)
{
    unsigned char *p = base;
    for (size_t i = 0; i < n; i++) {
        if (t == SINPE_F32) {
            uint32_t u = POISON_F32;
            memcpy(p + 4 * i, &u, 4);
        } else {
            uint16_t h = t == SINPE_F16 ? POISON_F16 : POISON_BF16;
            memcpy(p + 2 * i, &h, 2);
        }
    }
}

int ref_is_poison(sinpe_dtype t, const void *base, size_t i)
{
    const unsigned char *p = base;
    if (t == SINPE_F32) {
        uint32_t u;
        memcpy(&u, p + 4 * i, 4);
        return u == POISON_F32;
    }
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return h == (t == SINPE_F16 ? POISON_F16 : POISON_BF16);
}

/* Half the spacing of type t's values around magnitude x. */
static double half_ulp(sinpe_dtype t, double x)
{
    int e;
    if (t == SINPE_F32)
        return 0.0;
    if (t == SINPE_F16 && x < 0x1p-14)
        return 0x1p-25;
    if (t == SINPE_BF16 && x < 0x1p-126)
        return 0x1p-134;
    frexp(x, &e); /* x = f 2^e, f in [0.5, 1): the binade is 2^(e-1) */
    return ldexp(1.0, e - 1 - (t == SINPE_F16 ? 10 : 7) - 1);
}

int ref_close(sinpe_dtype t, double got, double ref)
{
    if (isnan(got) || isnan(ref))
        return 0;
    if (isinf(got) || isinf(ref))
        return got == ref;
    double mag = fabs(got) > fabs(ref) ? fabs(got) : fabs(ref);
    double tol = 1e-6 * (1.0 + fabs(ref)) + half_ulp(t, mag);
    return fabs(got - ref) <= tol;
}

/* ---- the embedding ------------------------------------------------------- */

int32_t ref_position(const ref_inputs *in, size_t b, size_t t)
{
    const sinpe_embed_args *a = in->args;
    size_t r = b * a->seq_len + t;
    uint32_t p;

    if (a->position_rule == SINPE_POSITIONS_FAIRSEQ) {
        /* make_positions: pad tokens get pad_id, the others start + pad_id
         * + their rank among the sequence's non-pad tokens (from 1). */
        const int32_t *ids = in->ids + a->ids_offset + b * a->seq_len;
        if (ids[t] == a->pad_id) {
            p = (uint32_t)a->pad_id;
        } else {
            uint32_t rank = 0;
            for (size_t u = 0; u <= t; u++)
                rank += ids[u] != a->pad_id;
            p = (uint32_t)a->start + (uint32_t)a->pad_id + rank;
        }
    } else {
        p = (uint32_t)a->start;
        if (a->positions)
            p += (uint32_t)in->positions[a->positions_offset + (a->positions_broadcast ? t : r)];
        else
            p += (uint32_t)t;
    }
    if (a->seq_starts)
        p += (uint32_t)in->seq_starts[a->seq_starts_offset + b];
    if (a->pad_counts)
        p -= (uint32_t)in->pad_counts[a->pad_counts_offset + b];
    return (int32_t)p;
}

/* Weight i of row rel: float types exactly; a quantized one's value times
   its scale (the row's, else weights_scale; the block types' are in their
   blocks),
   rounded once to float32. */
static double weight(const ref_inputs *in, size_t rel, size_t i)
{
    const sinpe_embed_args *a = in->args;
    double v = ref_load(a->weights_dtype, in->weights, i), s = 1.0;
    if (!quantized(a->weights_dtype))
        return v;
    if (in->scales)
        s = ref_load(a->weight_scales_dtype, in->scales, a->weight_scales_offset + rel);
    else if (info_of(a->weights_dtype).scales != SINPE_DTYPE_SCALES_BLOCK)
        s = (double)a->weights_scale;
    return (double)(float)(v * s);
}

void ref_embed(const ref_inputs *in, int mode, double *ref, long *bad)
{
    const sinpe_embed_args *a = in->args;
    size_t dim = in->spec->dim, n = a->n_seqs * a->seq_len;
    size_t e_stride = a->weights_stride ? a->weights_stride : dim;
    size_t o_stride = a->out_stride ? a->out_stride : dim;
    double pe[REF_MAX_DIM];
    double *row = dim <= REF_MAX_DIM ? pe : NULL;
    int need_ids = mode != REF_ADD || a->pad_policy != SINPE_PAD_NONE ||
                   a->position_rule == SINPE_POSITIONS_FAIRSEQ;

    *bad = 0;
    if (!row)
        return; /* see REF_MAX_DIM */
    for (size_t r = 0; r < n; r++) {
        size_t b = r / a->seq_len, t = r % a->seq_len;
        int64_t id = need_ids ? in->ids[a->ids_offset + r] : 0;
        /* add_positions with vocab 0 takes any vocab_start: keep id - lo in range. */
        int64_t lo = !a->vocab_shard ? 0
                     : a->vocab_start > (size_t)INT32_MAX ? (int64_t)INT32_MAX + 1
                                                         : (int64_t)a->vocab_start;
        int64_t rel = id - lo;
        int in_vocab = id >= 0 && rel >= 0 && rel < (int64_t)a->vocab;
        int is_pad = need_ids && a->pad_policy != SINPE_PAD_NONE && id == a->pad_id;
        int use_emb = mode != REF_ADD && in_vocab &&
                      !(is_pad && a->pad_policy == SINPE_PAD_ZERO_EMBEDDING);
        int use_pe = mode != REF_GATHER && !a->skip_pe &&
                     !(is_pad && a->pad_policy == SINPE_PAD_ZERO_PE);
        int zero = is_pad && a->pad_policy == SINPE_PAD_ZERO_OUTPUT;
        /* OWNER shards: the first takes the negative ids, the last those past
           the vocabulary; a token another shard owns is all zeros. */
        int owner = mode != REF_ADD && a->vocab_shard == SINPE_SHARD_OWNER;
        int first = a->vocab_start == 0, last = a->vocab_start + a->vocab == a->vocab_total;
        int owns = !owner || (id < 0 ? first : rel >= 0 && (rel < (int64_t)a->vocab || last));
        zero = zero || !owns;

        /* Out-of-range ids count as bad: a ROWS shard counts the negative
           ones, an OWNER shard the ones it owns. */
        int counts = !a->vocab_shard                          ? id < 0 || !in_vocab
                     : a->vocab_shard == SINPE_SHARD_ROWS ? id < 0
                                                              : owns && !in_vocab;
        if (mode != REF_ADD && counts)
            (*bad)++;
        if (use_pe)
            ref_pe_row(in->spec, (double)ref_position(in, b, t), row);
        for (size_t c = 0; c < dim; c++) {
            double v;
            if (mode == REF_ADD)
                v = ref_load(a->out_dtype, in->prev, a->out_offset + r * o_stride + c);
            else if (use_emb)
                v = (double)a->token_scale * weight(in, (size_t)rel,
                                                    a->weights_offset + (size_t)rel * e_stride + c);
            else
                v = 0.0;
            if (use_pe)
                v += row[c];
            ref[r * dim + c] = zero ? 0.0 : v;
        }
    }
}

void ref_timesteps(const sinpe_spec *spec, const float *ts, size_t count, double *ref)
{
    for (size_t i = 0; i < count; i++)
        ref_pe_row(spec, (double)ts[i], ref + i * spec->dim);
}
