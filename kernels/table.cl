/*
 * table.cl -- generating the encoding: the bodies of the kernels of table
 * rows, fairseq positions and diffusion timestep embeddings (kernels/sinpe.cl
 * defines the kernels).
 */
#ifndef SINPE_TABLE_CL
#define SINPE_TABLE_CL

#include "abi.h"
#include "pe_math.cl"
#include "pe_math16.cl"
#include "dtype.cl"

/*
 * Rows of the encoding are generated in two passes so that both vectorise
 * across work-items: the anchors of the blocks of SINPE_STEP_ROWS rows that
 * the rows touch (one work-item each, written in four planes of
 * nblocks * dim floats), then the rows, each element its block's anchor
 * combined with its step: the operations of sinpe_pe().
 */
SINPE_INLINE void sinpe_body_ANCHORS(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ANCHORS))
{
    /* With table_tile 1 (the rows' CPU form) SINPE_ANCHOR_COLS columns a
       work-item, sixteen lanes wide (pocl vectorised one column a
       work-item eight wide); else one. */
    const uint W = SINPE_TABLE_TILE == 1 ? SINPE_ANCHOR_COLS : 1;
    size_t c0 = get_global_id(0) * W, k = get_global_id(1);
    if (c0 >= dim || k >= nblocks)
        return;
    size_t plane = (size_t)nblocks * dim, i = k * dim + c0;
    int x = base + (int)k * SINPE_STEP_ROWS, n = (int)min((size_t)W, dim - c0);
    /* Sixteen whole columns: sinpe_anchor16's explicit lanes, which Intel's
       compiler vectorises (it left the loop below scalar, ten times
       pocl's time; bench/RESULTS.md); a row's last columns, the loop. */
    if (W == 16 && n == 16) {
        sinpe_anchor16_t v = sinpe_anchors16_at(x, coef, dim, (int)c0);
        vstore16(v.sh, 0, anc + i);
        vstore16(v.sl, 0, anc + plane + i);
        vstore16(v.ch, 0, anc + 2 * plane + i);
        vstore16(v.cl, 0, anc + 3 * plane + i);
        return;
    }
    SINPE_LANES16
    for (int u = 0; u < n; u++) {
        float4 a = sinpe_anchor(x, sinpe_desc(coef, dim, (int)c0 + u));
        anc[i + u] = a.x;
        anc[plane + i + u] = a.y;
        anc[2 * plane + i + u] = a.z;
        anc[3 * plane + i + u] = a.w;
    }
}

/* The anchor of column c's block at i = block * dim + c (four planes). */
inline float4 sinpe_anchor_at(global const float *anc, size_t plane, size_t i)
{
    return (float4)(anc[i], anc[plane + i], anc[2 * plane + i], anc[3 * plane + i]);
}

/*
 * T = 1: work-item (q, g, z) computes columns 64q .. 64q + 63 of rows
 * p0 .. p0 + 3, p0 = row0 rounded down to a multiple of four, plus 4g, plus
 * 128 (8z + u) for u = 0 .. 7 (SINPE_ROWS_COLS, SINPE_ROWS_RUN,
 * SINPE_ROWS_BLOCKS): the same steps in eight blocks, so that the step
 * planes (dim * 2 KiB) are read from outer caches an eighth as often, and
 * 256 contiguous bytes per row (bench/RESULTS.md).  Four divides
 * SINPE_STEP_ROWS, so a run lies in one block, and the anchors of sixteen
 * columns are loaded once for its four rows.  Sixteen-lane
 * vectors, each lane sinpe_combine's operations: vectors within the
 * work-item, not across work-items, as pocl vectorised a one-column body
 * across work-items with masked loads and stores (the column guard).
 * Sixteen fp32 values at a 64-byte aligned address go out as one
 * non-temporal line store (a plain store first reads the line it writes).
 * Other types and addresses take four-value stores; a row's columns past
 * the last multiple of sixteen, one at a time.
 */
SINPE_INLINE void sinpe_rows_line(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ROWS))
{
    size_t c0 = SINPE_ROWS_COLS * get_global_id(0);
    long p00 = ((long)row0 & ~(long)(SINPE_ROWS_RUN - 1)) + (long)get_global_id(1) * SINPE_ROWS_RUN;
    long end = (long)row0 + nrows;
    if (c0 >= dim || p00 >= end)
        return;
    int j0 = (int)(p00 & (SINPE_STEP_ROWS - 1));
    size_t plane = (size_t)nblocks * dim, k = SINPE_COEF_STRIDE(dim);
    /* Every row's sixteen columns c0 + 16 w on a 64-byte line. */
    bool lines = ot == SINPE_F32 && (out_stride & 15) == 0 &&
                 ((uintptr_t)((global float *)out + out_off + c0) & 63) == 0;
    for (int z = 0; z < SINPE_ROWS_BLOCKS; z++) {
        long p0 = p00 + (long)SINPE_STEP_ROWS * ((long)get_global_id(2) * SINPE_ROWS_BLOCKS + z);
        if (p0 >= end)
            return;
        size_t h = (size_t)((p0 >> SINPE_STEP_SHIFT) - ((long)row0 >> SINPE_STEP_SHIFT));
        for (int w = 0; w < SINPE_ROWS_COLS / 16; w++) {
            size_t c = c0 + 16 * w, i = h * dim + c;
            if (c >= dim)
                break;
            if (c + 16 > dim) { /* the row's last columns, one at a time */
                for (int v = 0; v < SINPE_ROWS_RUN; v++) {
                    long p = p0 + v;
                    if (p < row0 || p >= end)
                        continue;
                    size_t o = out_off + (size_t)(p - row0) * out_stride + c;
                    for (uint u = 0; u < dim - c; u++)
                        sinpe_store1(sinpe_combine(sinpe_anchor_at(anc, plane, i + u),
                                                   sinpe_step(coef, dim, j0 + v, (int)(c + u))),
                                     out, o + u, ot);
                }
                break;
            }
            /* The anchors once for the run's rows. */
            float16 ash = vload16(0, anc + i), asl = vload16(0, anc + plane + i);
            float16 ach = vload16(0, anc + 2 * plane + i), acl = vload16(0, anc + 3 * plane + i);
            global const float *s = sinpe_step_at(coef, dim, j0, (int)c);
            if (lines && p0 >= row0 && p0 + SINPE_ROWS_RUN <= end) {
                /* A whole run in line stores: no test left in the loop. */
                global float *f = (global float *)out + out_off + (size_t)(p0 - row0) * out_stride + c;
                for (int v = 0; v < SINPE_ROWS_RUN; v++)
                    sinpe_stream_f32(sinpe_combine16(ash, asl, ach, acl, s + 4 * v * k, k),
                                     f + v * out_stride);
                continue;
            }
            for (int v = 0; v < SINPE_ROWS_RUN; v++) {
                long p = p0 + v;
                if (p < row0 || p >= end)
                    continue;
                size_t o = out_off + (size_t)(p - row0) * out_stride + c;
                float16 x = sinpe_combine16(ash, asl, ach, acl, s + 4 * v * k, k);
                global float *f = (global float *)out + o;
                if (ot == SINPE_F32 && ((uintptr_t)f & 63) == 0) {
                    sinpe_stream_f32(x, f);
                    continue;
                }
                sinpe_store4(x.s0123, out, o, ot, false);
                sinpe_store4(x.s4567, out, o + 4, ot, false);
                sinpe_store4(x.s89ab, out, o + 8, ot, false);
                sinpe_store4(x.scdef, out, o + 12, ot, false);
            }
        }
    }
}

/*
 * Rows row0 .. row0 + nrows - 1 of the encoding into out (row r at out_off +
 * r out_stride); anchors of the blocks from row0's block on.  Work-item
 * (c, g, h) computes column c of the rows at steps j = T g .. T g + T - 1 of
 * blocks T h .. T h + T - 1 (relative to row0's block) that lie in the
 * range, T = SINPE_TABLE_TILE (the tuning record's table_tile): T anchors
 * and T steps loaded for T^2 values; T = 1 is sinpe_rows_line.
 */
SINPE_INLINE void sinpe_body_ROWS(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_ROWS))
{
    const int T = SINPE_TABLE_TILE;
    if (T == 1) {
        sinpe_rows_line(ot, SINPE_ARGS(SINPE_SIG_ROWS));
        return;
    }
    size_t c = get_global_id(0), g = get_global_id(1), h = get_global_id(2);
    if (c >= dim || g >= SINPE_STEP_ROWS / T || h * T >= nblocks)
        return;
    size_t plane = (size_t)nblocks * dim;
    long base = (long)(row0 >> SINPE_STEP_SHIFT) * SINPE_STEP_ROWS;
    float4 a[SINPE_TABLE_TILE], b[SINPE_TABLE_TILE];
    for (int u = 0; u < T; u++) {
        a[u] = sinpe_anchor_at(anc, plane, min(h * T + u, (size_t)nblocks - 1) * dim + c);
        b[u] = sinpe_step(coef, dim, (int)g * T + u, (int)c);
    }
    for (int u = 0; u < T; u++)
        for (int v = 0; v < T; v++) {
            long p = base + (long)(h * T + u) * SINPE_STEP_ROWS + (long)(g * T + v);
            if (p >= row0 && p < (long)row0 + nrows)
                sinpe_store1(sinpe_combine(a[u], b[v]), out,
                             out_off + (size_t)(p - row0) * out_stride + c, ot);
        }
}

/*
 * fairseq's make_positions per sequence: a non-pad token gets
 * start + pad + (number of non-pad tokens up to and including it), a pad
 * token gets pad.  One work-group per sequence: each work-item counts a
 * contiguous segment, the counts are scanned in local memory, then each
 * segment is written.  Local size must be a power of two (the host makes it so).
 */
SINPE_INLINE void sinpe_body_POSITIONS(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_POSITIONS))
{
    uint lid = get_local_id(0), wg = get_local_size(0);
    size_t row0 = get_group_id(1) * (size_t)seq_len;
    uint seg = (seq_len + wg - 1) / wg;
    uint t0 = min(lid * seg, seq_len), t1 = min(t0 + seg, seq_len);
    global const int *x = ids + ids_off + row0;
    int count = 0;
    for (uint t = t0; t < t1; t++)
        count += x[t] != pad;
    scan[lid] = count;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < wg; off <<= 1) {
        int v = lid >= off ? scan[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        scan[lid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int run = scan[lid] - count;
    for (uint t = t0; t < t1; t++) {
        int real = x[t] != pad;
        run += real;
        pos[row0 + t] = real ? start + pad + run : pad;
    }
}

/* out[n, c] = PE(ts[n]) for real-valued timesteps; one work-item per element. */
SINPE_INLINE void sinpe_body_TIMESTEPS(const int ot, SINPE_BODY_PARAMS(SINPE_SIG_TIMESTEPS))
{
    size_t c = get_global_id(0), i = get_global_id(1);
    if (c >= dim || i >= n)
        return;
    sinpe_store1(sinpe_pe_real(ts[ts_off + i], (int)c, dim, coef), out,
                 out_off + i * out_stride + c, ot);
}

/* The kernels, written out (kernels/abi.h, SINPE_KERNEL_LIST). */
#ifndef SINPE_WEIGHTS /* the base program */
#if SINPE_HAS_ANCHORS
kernel void sinpe_table_anchors(SINPE_PARAMS(SINPE_SIG_ANCHORS)) { SINPE_BODY(ANCHORS, F32); }
#endif
#if SINPE_HAS_ROWS
kernel void sinpe_table_rows_f32(SINPE_PARAMS(SINPE_SIG_ROWS)) { SINPE_BODY(ROWS, F32); }
kernel void sinpe_table_rows_f16(SINPE_PARAMS(SINPE_SIG_ROWS)) { SINPE_BODY(ROWS, F16); }
kernel void sinpe_table_rows_bf16(SINPE_PARAMS(SINPE_SIG_ROWS)) { SINPE_BODY(ROWS, BF16); }
#endif
#if SINPE_HAS_POSITIONS
kernel void sinpe_make_positions(SINPE_PARAMS(SINPE_SIG_POSITIONS)) { SINPE_BODY(POSITIONS, F32); }
#endif
#if SINPE_HAS_TIMESTEPS
kernel void sinpe_timesteps_f32(SINPE_PARAMS(SINPE_SIG_TIMESTEPS)) { SINPE_BODY(TIMESTEPS, F32); }
kernel void sinpe_timesteps_f16(SINPE_PARAMS(SINPE_SIG_TIMESTEPS)) { SINPE_BODY(TIMESTEPS, F16); }
kernel void sinpe_timesteps_bf16(SINPE_PARAMS(SINPE_SIG_TIMESTEPS)) { SINPE_BODY(TIMESTEPS, BF16); }
#endif
#endif

#endif /* SINPE_TABLE_CL */
