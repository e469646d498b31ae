/*
 * abi.h -- what the host (src/) and the kernels share, written once in the
 * common subset of C and OpenCL C: the call modes, the flags and the
 * parameter block of the embedding kernels, and the kernel forms.  The host
 * includes this file; the kernel files include it too, and the build
 * embeds it with them, so neither side keeps a copy.  The tests check
 * the layout of the parameter block on the device (tests/test_tuning.c,
 * "abi") and the kernels' arguments (the signatures, below).
 */
#ifndef SINPE_ABI_H
#define SINPE_ABI_H

/* The storage types: the values of sinpe_dtype in include/sinpe.h, which
   src/dtype.c checks against this list, under the same names in kernels. */
#define SINPE_DTYPE_VALUES(X) \
    X(F32, 0) X(F16, 1) X(BF16, 2) X(I8, 3) X(Q8_0, 4) X(FP8_E4M3, 5) X(FP8_E5M2, 6)      \
    X(Q4_0, 7) X(Q4_1, 8) X(Q5_0, 9) X(Q5_1, 10) X(Q4_K, 11) X(Q5_K, 12) X(Q6_K, 13)

#ifdef __OPENCL_C_VERSION__
typedef ulong sinpe_u64;
typedef int sinpe_i32;
typedef uint sinpe_u32;
#define SINPE_X_DTYPE(name, value) SINPE_##name = value,
enum { SINPE_DTYPE_VALUES(SINPE_X_DTYPE) };
#undef SINPE_X_DTYPE
/* Whether dt is read as floats (the others are decoded: quant.cl). */
#define SINPE_FLOAT_TYPE(dt) ((dt) == SINPE_F32 || (dt) == SINPE_F16 || (dt) == SINPE_BF16)
/* The padding policies: the values of sinpe_pad_policy in include/sinpe.h
   (src/plan.c asserts that they agree). */
#define SINPE_PAD_NONE 0
#define SINPE_PAD_ZERO_PE 1
#define SINPE_PAD_ZERO_OUTPUT 2
#define SINPE_PAD_ZERO_EMBEDDING 3
/* The helpers of the kernel bodies: always inlined (pocl vectorises only
   code free of calls, and a helper taking a column count n is cheap only
   once n is a constant), but in unoptimised builds, where inlining a
   restrict or by-value parameter leaves a noalias scope intrinsic that
   oclgrind 21.10 cannot run.  Their pointers are not restrict. */
#ifdef __OPTIMIZE__
#define SINPE_INLINE inline __attribute__((always_inline))
#else
#define SINPE_INLINE inline
#endif

/* A signature (below) as a parameter list (a kernel's, with restrict r; a
   body's, without), and as the argument names (a kernel passing its
   arguments on to its body). */
#define SINPE_PARAM_IN(type, name, r) global const type *r name
#define SINPE_PARAM_OUT(type, name, r) global type *r name
#define SINPE_PARAM_VAL(type, name, r) type name
#define SINPE_PARAM_LOCAL(type, name, r) local type *name
#define SINPE_PARAM(kind, type, name) SINPE_PARAM_##kind(type, name, restrict)
#define SINPE_BODY_PARAM(kind, type, name) SINPE_PARAM_##kind(type, name, )
#define SINPE_NAME(kind, type, name) name
#define SINPE_PARAMS(sig) sig(SINPE_PARAM, SINPE_COMMA)
#define SINPE_BODY_PARAMS(sig) sig(SINPE_BODY_PARAM, SINPE_COMMA)
#define SINPE_ARGS(sig) sig(SINPE_NAME, SINPE_COMMA)
/* A kernel's line, at the end of its operation's file: SINPE_BODY runs the
   body of form into output type ot with the form's own signature; an
   embedding kernel (SINPE_EMBED_PARAMS) runs SINPE_EMBED's body of form
   for call mode on weights SINPE_ET: the program's SINPE_WEIGHTS, a
   constant (a load that branched on the type at run time would keep CPU
   compilers from vectorising), F32 in the base program (add reads none). */
#define SINPE_BODY(form, ot) sinpe_body_##form(SINPE_##ot, SINPE_ARGS(SINPE_SIG_##form))
#define SINPE_EMBED_PARAMS SINPE_PARAMS(SINPE_SIG_EMBED)
#define SINPE_EMBED(form, mode, ot) \
    sinpe_body_##form(SINPE_MODE_##mode, SINPE_ET, SINPE_##ot, SINPE_ARGS(SINPE_SIG_EMBED))
#ifdef SINPE_WEIGHTS
#define SINPE_ET SINPE_WEIGHTS
#else
#define SINPE_ET SINPE_F32
#endif
#else
typedef cl_ulong sinpe_u64;
typedef cl_int sinpe_i32;
typedef cl_uint sinpe_u32;
#endif

/* Rows per anchor of the angle addition (pe_math.cl), the one definition:
   128 rather than 64 (tuning log 5 of bench/RESULTS.md). */
#define SINPE_STEP_SHIFT 7
#define SINPE_STEP_ROWS (1 << SINPE_STEP_SHIFT)
/* Table rows with table_tile 1 (table.cl): per work-item, columns, steps
   of a block, and blocks that share those steps. */
#define SINPE_ROWS_COLS 64
#define SINPE_ROWS_RUN 4
#define SINPE_ROWS_BLOCKS 8
/* ... and columns per work-item of their anchors. */
#define SINPE_ANCHOR_COLS 16
/* Floats between rows of the coefficient buffer (pe_math.cl): dim rounded
   up to an odd number of 64-byte lines, so that the sixteen rows a table
   work-item reads (four steps of four components) lie in sixteen cache
   sets; a stride of dim put them all in one. */
#define SINPE_COEF_STRIDE(dim) ((((size_t)(dim) + 15) / 16 | 1) * 16)

/* The three embedding calls, which share their kernels' bodies; NONE: a
   kernel of another operation, which its form names (rows, timesteps, the
   rotation, the pre-passes).  The operations themselves: src/ops.c. */
#define SINPE_MODE_FUSED 0  /* out = scale * E[id] + PE(pos) */
#define SINPE_MODE_GATHER 1 /* out = scale * E[id]           */
#define SINPE_MODE_ADD 2    /* out = out + PE(pos)           */
#define SINPE_MODE_NONE 3

/* Bits of sinpe_pos_params.flags: where a token's position comes from. */
#define SINPE_HAS_POS 1        /* positions read from a buffer            */
#define SINPE_POS_BROADCAST 2  /* ... one row of seq_len for every sequence */
#define SINPE_HAS_SEQ_START 8  /* plus seq_starts[b]                       */
#define SINPE_HAS_PAD_COUNT 16 /* minus pad_counts[b]                      */
#define SINPE_POS_GRID 64      /* lanes from a grid of the token index     */

/* Bits of sinpe_embed_params.flags. */
#define SINPE_SKIP_PE 32       /* no PE at all (a vocabulary shard's)      */
#define SINPE_ONE_LAUNCH 64    /* the _otf kernel writes every token       */
#define SINPE_ALIGNED 128      /* four-value accesses are 16-byte aligned  */
#define SINPE_OWNER 256        /* an OWNER shard: tokens it does not own are zero */
#define SINPE_OWNS_BELOW 512   /* ... and it owns the negative ids (the first)    */
#define SINPE_OWNS_ABOVE 1024  /* ... the ids past its rows (the last)            */
#define SINPE_OTF_TILES 2048   /* the _otf kernel writes tiles, not whole rows    */
#define SINPE_PE_SPLIT 4       /* the columns: sin and cos halves, paired (spec.c) */
#define SINPE_PE_COS_FIRST 32768 /* ... the cos half first                        */

/* Bits of sinpe_rope_params.flags. */
#define SINPE_ROPE_Q_IN_PLACE 4096 /* q is q_out: read it there           */
#define SINPE_ROPE_K_IN_PLACE 8192 /* k is k_out                          */
#define SINPE_ROPE_K_ROWS 16384    /* k_out's row of each token from k_rows */
#define SINPE_ROPE_CS_OUT 32768    /* each token's cos and sin to cs too   */

/*
 * The position source, a member of every parameter block: token t of
 * sequence b is at start + positions[pos_off + b * seq_len + t] (of t with
 * POS_BROADCAST; t itself without HAS_POS) + seq_starts[b] - pad_counts[b]
 * (kernels/positions.cl; the host fills it once, src/positions.c); its
 * lane l (several positions per token) reads positions l * lane_stride
 * further.  With POS_GRID the lanes come from the token's place g = t -
 * grid_start on a grid of frames x grid_rows x grid_cols, the last lane
 * its column, the one before its row, the one before that its frame
 * (tokens before grid_start: start on every lane).  What later positions
 * add goes here: a scale.
 */
typedef struct {
    sinpe_u64 pos_off, seq_start_off, pad_count_off, lane_stride;
    sinpe_i32 start, flags;
    sinpe_u32 seq_len, lanes, grid_rows, grid_cols, grid_start;
} sinpe_pos_params;

/* The rotary kernels' parameters (kernels/rope.cl), passed by value. */
typedef struct {
    sinpe_pos_params pos;
    sinpe_u64 q_off, q_stride, k_off, k_stride, qo_off, qo_stride, ko_off, ko_stride, k_rows_off;
    sinpe_u64 cs_off, cs_stride; /* CS_OUT: token r's R values at cs_off + r cs_stride */
    sinpe_i32 tab_rows, flags;
    sinpe_u32 rot, head_dim, q_heads, kv_heads, tokens, slots, layout, pairing, ko_rows;
    sinpe_u32 cs_layout; /* CS_OUT: a sinpe_rope_layout */
    sinpe_u32 axes, sections[4]; /* the table's lanes (sinpe_rope_lane); axes 0: one */
} sinpe_rope_params;

/* The attention input stage's parameters (kernels/attn_input.cl): the
   rotation's (rope: q, k, q_out, the positions, the table; ko_rows the
   cache's rows, K_ROWS with a slot mapping), then v's, the caches' and the
   norm's.  Work-item (h, r): head h of token r, q's heads, then k's, then
   v's. */
typedef struct {
    sinpe_rope_params rope;
    sinpe_u64 v_off, v_stride, kc_off, vc_off, slot_off, qw_off, kw_off;
    sinpe_u32 cache_type, norm, norm_after, rotate, temperature, floor_scale;
    sinpe_u32 rot_off, unused; /* the first rotated column of a head; padding */
    float eps, attn_scale;
} sinpe_attn_params;

/* The patch grid's parameters (kernels/grid.cl): tokens of per_seq each,
   extra of them before the grid of frames x rows x cols; positions of
   index n (n / s1) / s2, the grid's first row and column at top and left,
   frame f at f / s_t; d the table's width, d_t the frame table's (0: a 2-D
   grid), the output's d_t + 2 d; phase 0 writes the half-rows of the
   columns', rows' and frames' positions (cols0 columns of one a
   work-item), phase 1 the output from them, 16 span columns of a token a
   work-item (phases 2 and 3: the same through one image's table). */
typedef struct {
    sinpe_u64 out_off, out_stride;
    sinpe_u32 d, d_t, tokens, per_seq, extra, rows, cols, frames, top, left, add, phase, span, cols0;
    float s1_rows, s1_cols, s2, s_t;
} sinpe_grid_params;

/* Where the weights' row scales are (sinpe_embed_params.ws_type). */
#define SINPE_SCALES_NONE 0 /* wscale for every row (1 but for FP8) */
#define SINPE_SCALES_F32 1  /* one fp32 per row at ws_off of the scales buffer */
#define SINPE_SCALES_F16 2  /* one fp16 per row */

/* The most buffers the weights may span (E, then E1 .. E3 of the
   signature below; include/sinpe.h's SINPE_WEIGHTS_MAX). */
#define SINPE_WEIGHTS_BUFFERS 4

/* The parameter block of every embedding kernel, passed by value.  part:
   the first row of each of E1, E2 and E3 (2^31 - 1 past the buffers in
   use): rows [0, part[0]) lie in E, [part[0], part[1]) in E1, and so on,
   each buffer's first at e_off. */
typedef struct {
    sinpe_u64 ids_off, e_off, e_stride, out_off, out_stride, ws_off;
    sinpe_i32 vocab, vocab_start, tab_rows, pad_id, pad_policy, flags, ws_type;
    sinpe_i32 part[SINPE_WEIGHTS_BUFFERS - 1];
    sinpe_u32 dim, n_seqs;
    float scale, wscale;
    sinpe_pos_params pos;
} sinpe_embed_params;

/*
 * The kernel forms, each with the signature of its kernels (below);
 * each operation's file of kernels/ writes its kernels out at its end and
 * SINPE_KERNEL_LIST lists each with its form.  A program holds only the kernels its tuning record reaches (src/plan.c), and is built
 * with -DSINPE_HAS_<FORM>=0 or 1 for every form.  The embedding forms:
 *   FAST    positions start + t, all in the table, no padding policy:
 *           four columns (into 16-bit outputs, wide16) of seqs sequences
 *           per work-item;
 *   COL     FAST in scalar form, one column per work-item (bf16 pairs);
 *   ROW     FAST with a whole row per work-item (decode-sized calls);
 *   GENERAL every position source and padding policy in one launch,
 *           positions past the table computed behind a branch;
 *   TABLE   the same in two launches: this one writes the tokens whose
 *           position lies in the table, seqs sequences per work-item, ...
 *   STREAM  ... or, for large outputs, one 64-byte line of each of seqs
 *           sequences per work-item with non-temporal stores (FAST's
 *           large calls too, in one launch) ...
 *   OTF     ... and this one the others, one token per work-item (alone,
 *           with SINPE_ONE_LAUNCH, it writes every token).
 * Form F's kernels run sinpe_body_F (kernels/embed*.cl).  The others are
 * table.cl's kernels, the bad-id counter (embed.cl), the rotation
 * (rope.cl) and the attention input stage (attn_input.cl); the signature of each is named by its form.
 */
#define SINPE_FORM_LIST(X)                                                                  \
    X(FAST, EMBED) X(STREAM, EMBED) X(COL, EMBED) X(ROW, EMBED) X(GENERAL, EMBED)            \
    X(TABLE, EMBED) X(OTF, EMBED) X(ANCHORS, ANCHORS) X(ROWS, ROWS) X(POSITIONS, POSITIONS)   \
    X(TIMESTEPS, TIMESTEPS) X(BAD_IDS, BAD_IDS) X(ROPE, ROPE) X(GRID, GRID)            \
    X(ATTN, ATTN)
#define SINPE_FORM_ENUM(form, sig) SINPE_FORM_##form,
enum { SINPE_FORM_LIST(SINPE_FORM_ENUM) SINPE_FORMS };

/*
 * The kernels of the program, each group as K(form, mode, name,
 * types): types T3 for three kernels, name_f32, name_f16 and name_bf16;
 * F32 for one, named name; BF16 for one, name_bf16.  The host's table
 * (src/kernels.c) is made from this list, and tests/test_contract.c checks
 * the built programs against it.  A new operation adds its form above,
 * its signature below and its kernels here; its own kernels/<op>.cl, which
 * the build finds, holds their lines.
 */
#define SINPE_KERNEL_LIST(K)                                                                \
    K(ANCHORS, NONE, sinpe_table_anchors, F32) K(ROWS, NONE, sinpe_table_rows, T3)            \
    K(POSITIONS, NONE, sinpe_make_positions, F32) K(TIMESTEPS, NONE, sinpe_timesteps, T3)     \
    K(GRID, NONE, sinpe_grid, T3) K(BAD_IDS, NONE, sinpe_count_bad_ids, F32)                  \
    K(ROPE, NONE, sinpe_rope, T3) K(ATTN, NONE, sinpe_attn_input, T3)                         \
    K(FAST, FUSED, sinpe_embed_fast, T3) K(FAST, GATHER, sinpe_gather_fast, T3)               \
    K(FAST, ADD, sinpe_add_fast, T3) K(STREAM, FUSED, sinpe_embed_stream, T3)                 \
    K(STREAM, GATHER, sinpe_gather_stream, T3) K(COL, FUSED, sinpe_embed_col, BF16)           \
    K(COL, GATHER, sinpe_gather_col, BF16) K(ROW, FUSED, sinpe_embed_row, T3)                 \
    K(ROW, GATHER, sinpe_gather_row, T3) K(GENERAL, FUSED, sinpe_embed_general, T3)           \
    K(GENERAL, GATHER, sinpe_gather_general, T3) K(GENERAL, ADD, sinpe_add_general, T3)       \
    K(TABLE, FUSED, sinpe_embed_table, T3) K(TABLE, ADD, sinpe_add_table, T3)                 \
    K(OTF, FUSED, sinpe_embed_otf, T3) K(OTF, ADD, sinpe_add_otf, T3)

/*
 * The signatures: each kernel argument as X(kind, type, name), S() between
 * two.  Kinds: IN (global const type *restrict), OUT (global type
 * *restrict), VAL (type, by value) and LOCAL (local type *; the host gives
 * its size in bytes).  The kernels declare their parameters from these
 * (SINPE_PARAMS), the host sets arguments from them (src/kernels.c), and
 * tests/test_contract.c checks the built kernels against them.
 */
#define SINPE_SIG_EMBED(X, S)                                                               \
    X(IN, int, ids) S() X(IN, uchar, E) S() X(OUT, uchar, out) S() X(IN, float, tab) S()      \
    X(IN, float, coef) S() X(IN, int, pos) S() X(IN, int, seq_start) S()                      \
    X(IN, int, pad_count) S() X(IN, uchar, ws) S() X(VAL, sinpe_embed_params, a) S()          \
    X(IN, uchar, E1) S() X(IN, uchar, E2) S() X(IN, uchar, E3)
#define SINPE_SIG_ANCHORS(X, S)                                                             \
    X(OUT, float, anc) S() X(VAL, sinpe_u32, dim) S() X(VAL, sinpe_i32, base) S()             \
    X(VAL, sinpe_u32, nblocks) S() X(IN, float, coef)
#define SINPE_SIG_ROWS(X, S)                                                                \
    X(OUT, uchar, out) S() X(VAL, sinpe_u64, out_off) S() X(VAL, sinpe_u64, out_stride) S()   \
    X(VAL, sinpe_u32, dim) S() X(VAL, sinpe_i32, row0) S() X(VAL, sinpe_u32, nrows) S()       \
    X(IN, float, coef) S() X(IN, float, anc) S() X(VAL, sinpe_u32, nblocks)
#define SINPE_SIG_POSITIONS(X, S)                                                           \
    X(IN, int, ids) S() X(VAL, sinpe_u64, ids_off) S() X(OUT, int, pos) S()                   \
    X(VAL, sinpe_u32, seq_len) S() X(VAL, sinpe_i32, pad) S() X(VAL, sinpe_i32, start) S()    \
    X(LOCAL, int, scan)
#define SINPE_SIG_TIMESTEPS(X, S)                                                           \
    X(IN, float, ts) S() X(VAL, sinpe_u64, ts_off) S() X(OUT, uchar, out) S()                 \
    X(VAL, sinpe_u64, out_off) S() X(VAL, sinpe_u64, out_stride) S() X(VAL, sinpe_u32, dim)   \
    S() X(VAL, sinpe_u32, n) S() X(IN, float, coef)
#define SINPE_SIG_BAD_IDS(X, S)                                                             \
    X(IN, int, ids) S() X(VAL, sinpe_u64, ids_off) S() X(VAL, sinpe_u32, n) S()               \
    X(VAL, sinpe_i32, below) S() X(VAL, sinpe_i32, above) S() X(VAL, sinpe_i32, end) S()      \
    X(OUT, int, bad) S() X(VAL, sinpe_u64, bad_off)
#define SINPE_SIG_ROPE(X, S)                                                                \
    X(IN, uchar, q) S() X(IN, uchar, k) S() X(OUT, uchar, q_out) S() X(OUT, uchar, k_out) S() \
    X(IN, float, tab) S() X(IN, float, coef) S() X(IN, int, pos) S()                          \
    X(IN, int, seq_start) S() X(IN, int, k_rows) S() X(OUT, uchar, cs) S()                    \
    X(VAL, sinpe_rope_params, a)
#define SINPE_SIG_ATTN(X, S)                                                                \
    X(IN, uchar, q) S() X(IN, uchar, k) S() X(IN, uchar, v) S() X(OUT, uchar, q_out) S()      \
    X(OUT, uchar, k_cache) S() X(OUT, uchar, v_cache) S() X(IN, float, qw) S()                \
    X(IN, float, kw) S() X(IN, float, tab) S() X(IN, float, coef) S() X(IN, int, pos) S()     \
    X(IN, int, seq_start) S() X(IN, int, slots) S() X(VAL, sinpe_attn_params, a)
#define SINPE_SIG_GRID(X, S)                                                                \
    X(OUT, uchar, out) S() X(OUT, float, half_rows) S() X(IN, float, coef) S()                 \
    X(IN, float, coef_t) S() X(VAL, sinpe_grid_params, a)
#define SINPE_COMMA() ,

#endif /* SINPE_ABI_H */
