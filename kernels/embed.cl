/*
 * embed.cl -- the fused embedding and the unfused pair (gather, add).
 *
 * Work-item (v, r) handles columns [4v, 4v + 4) of token row r; the global
 * size is rounded up to the work-group size, hence the guards.  The three
 * kernels share one body specialised by a compile-time mode so that
 * gather followed by add performs exactly the fused kernel's operations:
 *     fused:  o = scale * e + pe       gather: o = scale * e     add: o = o + pe
 * (FP_CONTRACT is off, see pe_math.cl, so none of them becomes an fma).
 *
 * A token id outside [0, vocab) is never read from E: its embedding counts
 * as zero and, when a counter is given, it is counted once per token.
 * Positions inside [0, tab_rows) read the table; any other position is
 * computed on the fly by the same function that filled the table.
 */
#define SINPE_MODE_FUSED 0
#define SINPE_MODE_GATHER 1
#define SINPE_MODE_ADD 2

typedef struct {
    ulong ids_off, e_off, e_stride, out_off, out_stride, pos_off, bad_off;
    int vocab, tab_rows, start, has_pos, has_bad;
    uint dim, seq_len, nrows;
    float scale;
} sinpe_embed_params;

inline float4 sinpe_pe4(int p, int c0, global const float *restrict tab, int tab_rows,
                        uint dim, global const float8 *restrict desc)
{
    if (p >= 0 && p < tab_rows)
        return vload4(0, tab + (size_t)p * dim + c0);
    return (float4)(sinpe_pe(p, desc[c0]), sinpe_pe(p, desc[c0 + 1]),
                    sinpe_pe(p, desc[c0 + 2]), sinpe_pe(p, desc[c0 + 3]));
}

inline float sinpe_pe1(int p, int c, global const float *restrict tab, int tab_rows,
                       uint dim, global const float8 *restrict desc)
{
    if (p >= 0 && p < tab_rows)
        return tab[(size_t)p * dim + c];
    return sinpe_pe(p, desc[c]);
}

inline void sinpe_embed_body(const int mode, global const int *restrict ids,
                             global const float *restrict E, global float *restrict out,
                             global const float *restrict tab,
                             global const float8 *restrict desc,
                             global const int *restrict pos, global int *restrict bad,
                             sinpe_embed_params a)
{
    size_t v = get_global_id(0);
    size_t r = get_global_id(1);
    int c0 = (int)(v * 4);
    if (c0 >= (int)a.dim || r >= a.nrows)
        return;

    float scale = a.scale;
    global const float *e = E;
    bool ok = true;
    if (mode != SINPE_MODE_ADD) {
        int id = ids[a.ids_off + r];
        ok = id >= 0 && id < a.vocab;
        if (!ok && a.has_bad && c0 == 0)
            atomic_inc(bad + a.bad_off);
        e = E + a.e_off + (ok ? (size_t)id * a.e_stride : 0) + c0;
    }
    int p = 0;
    if (mode != SINPE_MODE_GATHER) {
        uint rel = a.has_pos ? (uint)pos[a.pos_off + r] : (uint)(r % a.seq_len);
        p = (int)((uint)a.start + rel);   /* wraps like two's complement */
    }
    global float *o = out + a.out_off + r * a.out_stride + c0;

    if (c0 + 4 <= (int)a.dim) {
        float4 x;
        if (mode == SINPE_MODE_ADD)
            x = vload4(0, o);
        else
            x = ok ? scale * vload4(0, e) : (float4)(0.0f);
        if (mode != SINPE_MODE_GATHER)
            x = x + sinpe_pe4(p, c0, tab, a.tab_rows, a.dim, desc);
        vstore4(x, 0, o);
    } else {
        for (int c = c0; c < (int)a.dim; c++) {
            float x;
            if (mode == SINPE_MODE_ADD)
                x = o[c - c0];
            else
                x = ok ? scale * e[c - c0] : 0.0f;
            if (mode != SINPE_MODE_GATHER)
                x = x + sinpe_pe1(p, c, tab, a.tab_rows, a.dim, desc);
            o[c - c0] = x;
        }
    }
}

kernel void sinpe_embed(global const int *restrict ids, global const float *restrict E,
                        global float *restrict out, global const float *restrict tab,
                        global const float8 *restrict desc, global const int *restrict pos,
                        global int *restrict bad, sinpe_embed_params a)
{
    sinpe_embed_body(SINPE_MODE_FUSED, ids, E, out, tab, desc, pos, bad, a);
}

kernel void sinpe_gather(global const int *restrict ids, global const float *restrict E,
                         global float *restrict out, global const float *restrict tab,
                         global const float8 *restrict desc, global const int *restrict pos,
                         global int *restrict bad, sinpe_embed_params a)
{
    sinpe_embed_body(SINPE_MODE_GATHER, ids, E, out, tab, desc, pos, bad, a);
}

kernel void sinpe_add_positions(global const int *restrict ids, global const float *restrict E,
                                global float *restrict out, global const float *restrict tab,
                                global const float8 *restrict desc,
                                global const int *restrict pos, global int *restrict bad,
                                sinpe_embed_params a)
{
    sinpe_embed_body(SINPE_MODE_ADD, ids, E, out, tab, desc, pos, bad, a);
}
