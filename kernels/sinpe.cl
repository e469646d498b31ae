/*
 * sinpe.cl -- the program: every kernel written out, each running the body
 * of its form (sinpe_body_<FORM>) for its call and output type.  The host's
 * table of the same kernels is src/kernels.c (tests/test_contract.c holds
 * the two together); src/plan.c picks a kernel by its form, SINPE_FORM_<FORM>.
 *
 * A program holds the kernels of the forms its tuning record reaches
 * (SINPE_HAS_<FORM>) and of its calls: add and the kernels that read no
 * weights, or (-DSINPE_WEIGHTS=<sinpe_dtype>) the fused and gather kernels
 * of one weights type, a constant: a load that branched on the type at run
 * time would keep CPU compilers from vectorising.  The build embeds this
 * file with what it includes (scripts/embed-text.sh).
 */
#include "embed.cl"
#include "embed_fast.cl"
#include "embed_two_pass.cl"
#include "embed_otf.cl"
#include "table.cl"
#include "rope.cl"
#include "attn_input.cl"
#include "grid.cl"

/* The parameters of an embedding kernel; its body, of form for call mode
   into output type ot; the body of another form (its own signature). */
#define SINPE_EMBED_PARAMS SINPE_PARAMS(SINPE_SIG_EMBED)
#define SINPE_EMBED(form, mode, ot) \
    sinpe_body_##form(SINPE_MODE_##mode, SINPE_ET, SINPE_##ot, SINPE_ARGS(SINPE_SIG_EMBED))
#define SINPE_BODY(form, ot) sinpe_body_##form(SINPE_##ot, SINPE_ARGS(SINPE_SIG_##form))
#ifndef SINPE_WEIGHTS /* the base program: add, and what reads no weights */
#define SINPE_ET SINPE_F32 /* add reads no weights */
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
#if SINPE_HAS_GRID
kernel void sinpe_grid_f32(SINPE_PARAMS(SINPE_SIG_GRID)) { SINPE_BODY(GRID, F32); }
kernel void sinpe_grid_f16(SINPE_PARAMS(SINPE_SIG_GRID)) { SINPE_BODY(GRID, F16); }
kernel void sinpe_grid_bf16(SINPE_PARAMS(SINPE_SIG_GRID)) { SINPE_BODY(GRID, BF16); }
#endif
#if SINPE_HAS_BAD_IDS
kernel void sinpe_count_bad_ids(SINPE_PARAMS(SINPE_SIG_BAD_IDS)) { SINPE_BODY(BAD_IDS, F32); }
#endif
#if SINPE_HAS_ROPE
kernel void sinpe_rope_f32(SINPE_PARAMS(SINPE_SIG_ROPE)) { SINPE_BODY(ROPE, F32); }
kernel void sinpe_rope_f16(SINPE_PARAMS(SINPE_SIG_ROPE)) { SINPE_BODY(ROPE, F16); }
kernel void sinpe_rope_bf16(SINPE_PARAMS(SINPE_SIG_ROPE)) { SINPE_BODY(ROPE, BF16); }
#endif
#if SINPE_HAS_ATTN
kernel void sinpe_attn_input_f32(SINPE_PARAMS(SINPE_SIG_ATTN)) { SINPE_BODY(ATTN, F32); }
kernel void sinpe_attn_input_f16(SINPE_PARAMS(SINPE_SIG_ATTN)) { SINPE_BODY(ATTN, F16); }
kernel void sinpe_attn_input_bf16(SINPE_PARAMS(SINPE_SIG_ATTN)) { SINPE_BODY(ATTN, BF16); }
#endif
#if SINPE_HAS_FAST
kernel void sinpe_add_fast_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, ADD, F32); }
kernel void sinpe_add_fast_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, ADD, F16); }
kernel void sinpe_add_fast_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, ADD, BF16); }
#endif
#if SINPE_HAS_GENERAL
kernel void sinpe_add_general_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, ADD, F32); }
kernel void sinpe_add_general_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, ADD, F16); }
kernel void sinpe_add_general_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, ADD, BF16); }
#endif
#if SINPE_HAS_TABLE
kernel void sinpe_add_table_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, ADD, F32); }
kernel void sinpe_add_table_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, ADD, F16); }
kernel void sinpe_add_table_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, ADD, BF16); }
#endif
#if SINPE_HAS_OTF
kernel void sinpe_add_otf_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, ADD, F32); }
kernel void sinpe_add_otf_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, ADD, F16); }
kernel void sinpe_add_otf_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, ADD, BF16); }
#endif
#else /* the fused and gather kernels of weights SINPE_WEIGHTS (COL's: bf16 out) */
#define SINPE_ET SINPE_WEIGHTS
#if SINPE_HAS_FAST
kernel void sinpe_embed_fast_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, FUSED, F32); }
kernel void sinpe_embed_fast_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, FUSED, F16); }
kernel void sinpe_embed_fast_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, FUSED, BF16); }
kernel void sinpe_gather_fast_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, GATHER, F32); }
kernel void sinpe_gather_fast_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, GATHER, F16); }
kernel void sinpe_gather_fast_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(FAST, GATHER, BF16); }
#endif
#if SINPE_HAS_STREAM
kernel void sinpe_embed_stream_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, FUSED, F32); }
kernel void sinpe_embed_stream_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, FUSED, F16); }
kernel void sinpe_embed_stream_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, FUSED, BF16); }
kernel void sinpe_gather_stream_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, GATHER, F32); }
kernel void sinpe_gather_stream_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, GATHER, F16); }
kernel void sinpe_gather_stream_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(STREAM, GATHER, BF16); }
#endif
#if SINPE_HAS_COL
kernel void sinpe_embed_col_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(COL, FUSED, BF16); }
kernel void sinpe_gather_col_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(COL, GATHER, BF16); }
#endif
#if SINPE_HAS_ROW
kernel void sinpe_embed_row_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, FUSED, F32); }
kernel void sinpe_embed_row_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, FUSED, F16); }
kernel void sinpe_embed_row_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, FUSED, BF16); }
kernel void sinpe_gather_row_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, GATHER, F32); }
kernel void sinpe_gather_row_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, GATHER, F16); }
kernel void sinpe_gather_row_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(ROW, GATHER, BF16); }
#endif
#if SINPE_HAS_GENERAL
kernel void sinpe_embed_general_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, FUSED, F32); }
kernel void sinpe_embed_general_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, FUSED, F16); }
kernel void sinpe_embed_general_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, FUSED, BF16); }
kernel void sinpe_gather_general_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, GATHER, F32); }
kernel void sinpe_gather_general_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, GATHER, F16); }
kernel void sinpe_gather_general_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(GENERAL, GATHER, BF16); }
#endif
#if SINPE_HAS_TABLE
kernel void sinpe_embed_table_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, FUSED, F32); }
kernel void sinpe_embed_table_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, FUSED, F16); }
kernel void sinpe_embed_table_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(TABLE, FUSED, BF16); }
#endif
#if SINPE_HAS_OTF
kernel void sinpe_embed_otf_f32(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, FUSED, F32); }
kernel void sinpe_embed_otf_f16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, FUSED, F16); }
kernel void sinpe_embed_otf_bf16(SINPE_EMBED_PARAMS) { SINPE_EMBED(OTF, FUSED, BF16); }
#endif
#endif
