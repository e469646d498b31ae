/*
 * embed_otf.cl -- OTF, which writes the tokens whose position lies outside
 * the table after TABLE or STREAM have written the others
 * (kernels/embed_two_pass.cl), or every token with SINPE_ONE_LAUNCH, each
 * element once, by sinpe_body_GENERAL's operations.
 */
#ifndef SINPE_EMBED_OTF_CL
#define SINPE_EMBED_OTF_CL

#include "embed.cl"
#include "pe_math16.cl"

/* The anchors of four columns [c, c + 4), one float4 per component, so
   that sinpe_combine4 works on the four columns at once with
   sinpe_combine's operations. */
typedef struct {
    float4 sh, sl, ch, cl;
} sinpe_anchor4;


/* PE of the four columns [c, c + 4) at step j of the anchors' block. */
SINPE_INLINE float4 sinpe_combine4(sinpe_anchor4 a, global const float *coef,
                                   uint dim, int j, int c)
{
    global const float *s = sinpe_step_at(coef, dim, j, c);
    size_t k = SINPE_COEF_STRIDE(dim);
    float4 bsh = vload4(0, s), bsl = vload4(0, s + k), bch = vload4(0, s + 2 * k);
    float4 bcl = vload4(0, s + 3 * k);
    float4 small = a.sh * bcl + a.sl * bch + (a.ch * bsl + a.cl * bsh);
    return fma(a.sh, bch, fma(a.ch, bsh, small));
}

/*
 * The OTF tiles (SINPE_OTF_TILES: positions without a buffer, in order in
 * each sequence): work-item (v, g, r) of a range (V, G, Q) writes columns
 * [16 v, 16 v + 16) of the tokens [R r, R r + R) of the sequences [S g,
 * S g + S), S and R the least that cover the call.  The anchors of its
 * first position's block and the next serve every token in them at one
 * angle addition per value, as a table row costs; other positions, and a
 * row's last columns, go through sinpe_token_cols.  Same bits as sinpe_pe.
 */
#define SINPE_OTF_COLS 16
SINPE_INLINE void sinpe_otf_tile(const int mode, const int et, const int ot,
                                 SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    size_t seqs = (a.n_seqs + get_global_size(1) - 1) / get_global_size(1);
    uint run = (uint)((a.pos.seq_len + get_global_size(2) - 1) / get_global_size(2));
    int c = (int)get_global_id(0) * SINPE_OTF_COLS;
    size_t b0 = get_global_id(1) * seqs;
    uint t0 = (uint)get_global_id(2) * run;
    if (c >= (int)a.dim || b0 >= a.n_seqs || t0 >= a.pos.seq_len)
        return;
    bool whole = c + SINPE_OTF_COLS <= (int)a.dim && sinpe_wants_pe(mode, &a);
    uint t_end = min(t0 + run, a.pos.seq_len);
    size_t b_end = min(b0 + seqs, (size_t)a.n_seqs);
    int base = sinpe_position(&a.pos, pos, seq_start, pad_count, b0, t0) & ~(SINPE_STEP_ROWS - 1);
    sinpe_anchor4 an[2][SINPE_OTF_COLS / 4];
    const sinpe_src src = SINPE_SRC;
    for (int h = 0; h < 2; h++) { /* columns past the row's end: its coefficients' padding */
        sinpe_anchor16_t v = sinpe_anchors16_at(base + h * SINPE_STEP_ROWS, coef, a.dim, c);
        an[h][0] = (sinpe_anchor4){v.sh.s0123, v.sl.s0123, v.ch.s0123, v.cl.s0123};
        an[h][1] = (sinpe_anchor4){v.sh.s4567, v.sl.s4567, v.ch.s4567, v.cl.s4567};
        an[h][2] = (sinpe_anchor4){v.sh.s89ab, v.sl.s89ab, v.ch.s89ab, v.cl.s89ab};
        an[h][3] = (sinpe_anchor4){v.sh.scdef, v.sl.scdef, v.ch.scdef, v.cl.scdef};
    }
    for (uint t = t0; t < t_end; t++) {
        for (size_t b = b0; b < b_end; b++) {
            sinpe_token k = sinpe_token_at(mode, false, pos, seq_start, pad_count, &a, b, t, c);
            if (!k.otf && !(a.flags & SINPE_ONE_LAUNCH))
                continue;
            k.id = sinpe_id_rule(mode, et, true, ids, &src, &a, k.r, c);
            uint d = (uint)k.p - (uint)base;
            if (whole && k.otf && d < 2 * SINPE_STEP_ROWS) {
                int h = d >= SINPE_STEP_ROWS, j = (int)(d & (SINPE_STEP_ROWS - 1));
                for (int q = 0; q < SINPE_OTF_COLS / 4; q++) {
                    float4 x = sinpe_value_n(mode, et, ot, out, &k, 4 * q, 4, a.scale);
                    float4 pe = sinpe_combine4(an[h][q], coef, a.dim, j, c + 4 * q);
                    sinpe_put_n(ot, out, &k, 4 * q, 4, k.id.add_pe ? x + pe : x);
                }
                continue;
            }
            for (int q = 0; q < SINPE_OTF_COLS && c + q < (int)a.dim; q += 4)
                sinpe_token_cols(mode, et, ot, out, tab, coef, &a, &k, c + q, q,
                                 min(4, (int)a.dim - c - q));
        }
    }
}

/* Column u from token k's column: sinpe_token_cols's operations on one
   value, PE pe. */
SINPE_INLINE void sinpe_col_pe(const int mode, const int et, const int ot,
                               global uchar *out, const sinpe_embed_params *a,
                               const sinpe_token *k, int u, float pe)
{
    float x = mode == SINPE_MODE_ADD ? sinpe_load1(out, k->o + u, ot)
                                     : a->scale * (k->id.w * sinpe_load1(k->id.E, k->id.e + u, et));
    x = mode != SINPE_MODE_ADD && !k->id.ok ? 0.0f : x;
    x = k->id.add_pe ? x + pe : x;
    sinpe_store1(k->id.zero ? 0.0f : x, out, k->o + u, ot);
}

/* The sixteen columns from w of token k's row, PE pe: sinpe_col_pe's
   operations lane by lane. */
SINPE_INLINE void sinpe_cols16_pe(const int mode, const int et, const int ot, global uchar *out,
                                  const sinpe_token *k, int w, float scale, float16 pe)
{
    float16 v = sinpe_value16(mode, et, ot, out, k, w, scale);
    v = k->id.add_pe ? v + pe : v;
    sinpe_store16(k->id.zero ? (float16)(0.0f) : v, out, k->o + w, ot);
}

/* Columns [c, c + n) of token k's row (k at column c, n a multiple of
   sixteen), PE computed at k.p sixteen columns at a time (sinpe_pe16,
   explicit lanes: Intel's compiler left the loop of one column a trip
   scalar); float weight types only (a quantized value needs its block).  With SINPE_PE_SPLIT the chunk at c 0 writes the whole row and
   the others nothing: one anchor serves a sin column and its cos column
   dim / 2 away (sinpe_pe_pair), half the anchors of the split layouts. */
SINPE_INLINE void sinpe_cols_pe(const int mode, const int et, const int ot,
                                global uchar *out, global const float *coef,
                                const sinpe_embed_params *a, const sinpe_token *k, int c, int n)
{
    if (a->flags & SINPE_PE_SPLIT) {
        int h = (int)a->dim / 2, s0 = (a->flags & SINPE_PE_COS_FIRST) ? h : 0;
        int u = 0, x = k->p & ~(SINPE_STEP_ROWS - 1);
        size_t k4 = SINPE_COEF_STRIDE(a->dim);
        if (c != 0)
            return;
        for (; u + 16 <= h; u += 16) {
            global const float *st = sinpe_step_at(coef, a->dim, k->p - x, s0 + u);
            float16 sn, cs = sinpe_pair16(sinpe_anchors16_at(x, coef, a->dim, s0 + u),
                                          vload16(0, st), vload16(0, st + k4),
                                          vload16(0, st + 2 * k4), vload16(0, st + 3 * k4), &sn);
            sinpe_cols16_pe(mode, et, ot, out, k, s0 + u, a->scale, sn);
            sinpe_cols16_pe(mode, et, ot, out, k, h - s0 + u, a->scale, cs);
        }
        SINPE_LANES16
        for (; u < h; u++) {
            float2 cs = sinpe_pe_pair(k->p, s0 + u, a->dim, coef);
            sinpe_col_pe(mode, et, ot, out, a, k, s0 + u, cs.y);
            sinpe_col_pe(mode, et, ot, out, a, k, h - s0 + u, cs.x);
        }
        return;
    }
    for (int u = 0; u < n; u += 16)
        sinpe_cols16_pe(mode, et, ot, out, k, u, a->scale, sinpe_pe16(k->p, c + u, a->dim, coef));
}

/*
 * OTF of positions from a buffer: work-item (0, b, g) writes the tokens
 * [R g, R g + R) of sequence b, R the least that covers the call (one in
 * decode-sized calls), whole, SINPE_RUN_COLS columns at a time across its
 * tokens.  Where the next token's position lies in the same block, the
 * anchors of those columns are kept (sinpe_anchors16_at, sixteen lanes)
 * and serve each next token in the block (a buffer's positions mostly run
 * in order: packed sequences, offsets into a cache); else the token's PE
 * is computed value by value.  A row's last columns past a multiple of
 * sixteen, and with SINPE_ONE_LAUNCH a token in the table, through
 * sinpe_token_cols.  Same bits as sinpe_pe.
 */
#define SINPE_RUN_COLS 1024
SINPE_INLINE void sinpe_otf_run(const int mode, const int et, const int ot,
                                SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    size_t b = get_global_id(1);
    uint run = (uint)((a.pos.seq_len + get_global_size(2) - 1) / get_global_size(2));
    uint t0 = (uint)get_global_id(2) * run, t1 = min(t0 + run, a.pos.seq_len);
    if (b >= a.n_seqs || t0 >= a.pos.seq_len)
        return;
    size_t k4 = SINPE_COEF_STRIDE(a.dim);
    int whole = sinpe_wants_pe(mode, &a) ? (int)a.dim & ~15 : 0;
    float an[4][SINPE_RUN_COLS];
    const sinpe_src src = SINPE_SRC;
    for (int c = 0; c < whole; c += SINPE_RUN_COLS) {
        int n = min(SINPE_RUN_COLS, whole - c);
        int held = 1; /* the block of an: a multiple of SINPE_STEP_ROWS */
        for (uint t = t0; t < t1; t++) {
            sinpe_token k = sinpe_token_at(mode, false, pos, seq_start, pad_count, &a, b, t, c);
            if (!k.otf && !(a.flags & SINPE_ONE_LAUNCH))
                continue;
            k.id = sinpe_id_rule(mode, et, true, ids, &src, &a, k.r, c);
            if (!k.otf) {
                for (int q = 0; q < n; q += 4)
                    sinpe_token_cols(mode, et, ot, out, tab, coef, &a, &k, c + q, q, 4);
                continue;
            }
            int x = k.p & ~(SINPE_STEP_ROWS - 1);
            if (x != held) {
                int next = t + 1 < t1 ? sinpe_position(&a.pos, pos, seq_start, pad_count, b, t + 1) : ~x;
                if ((next & ~(SINPE_STEP_ROWS - 1)) != x && SINPE_FLOAT_TYPE(et)) {
                    sinpe_cols_pe(mode, et, ot, out, coef, &a, &k, c, n);
                    continue;
                }
                for (int u = 0; u < n; u += 16) {
                    sinpe_anchor16_t v = sinpe_anchors16_at(x, coef, a.dim, c + u);
                    vstore16(v.sh, 0, an[0] + u);
                    vstore16(v.sl, 0, an[1] + u);
                    vstore16(v.ch, 0, an[2] + u);
                    vstore16(v.cl, 0, an[3] + u);
                }
                held = x;
            }
            global const float *s = sinpe_step_at(coef, a.dim, k.p - x, c);
            for (int w = 0; w < n; w += 16) {
                float16 pe = sinpe_combine16(vload16(0, an[0] + w), vload16(0, an[1] + w),
                                             vload16(0, an[2] + w), vload16(0, an[3] + w),
                                             s + w, k4);
                sinpe_cols16_pe(mode, et, ot, out, &k, w, a.scale, pe);
            }
        }
    }
    for (uint t = t0; t < t1 && whole < (int)a.dim; t++) {
        sinpe_token k = sinpe_token_at(mode, false, pos, seq_start, pad_count, &a, b, t, 0);
        if (!k.otf && !(a.flags & SINPE_ONE_LAUNCH))
            continue;
        k.id = sinpe_id_rule(mode, et, true, ids, &src, &a, k.r, 0);
        for (int q = whole; q < (int)a.dim; q += 4)
            sinpe_token_cols(mode, et, ot, out, tab, coef, &a, &k, q, q,
                             min(4, (int)a.dim - q));
    }
}

/* OTF: the tokens whose position lies outside the table (with
   SINPE_ONE_LAUNCH every token): tiles (above), or runs of tokens. */
SINPE_INLINE void sinpe_body_OTF(const int mode, const int et, const int ot,
                           SINPE_BODY_PARAMS(SINPE_SIG_EMBED))
{
    if (a.flags & SINPE_OTF_TILES)
        sinpe_otf_tile(mode, et, ot, SINPE_ARGS(SINPE_SIG_EMBED));
    else
        sinpe_otf_run(mode, et, ot, SINPE_ARGS(SINPE_SIG_EMBED));
}

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_OTF
kernel void sinpe_add_otf_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, ADD, F32); }
kernel void sinpe_add_otf_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, ADD, F16); }
kernel void sinpe_add_otf_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, ADD, BF16); }
#endif
#else /* the kernels of weights SINPE_WEIGHTS */
#if SINPE_HAS_OTF
kernel void sinpe_embed_otf_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, FUSED, F32); }
kernel void sinpe_embed_otf_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, FUSED, F16); }
kernel void sinpe_embed_otf_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, FUSED, BF16); }
#endif
#endif

#endif /* SINPE_EMBED_OTF_CL */
