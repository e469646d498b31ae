/*
 * positions.c -- the position source of every operation: its checks, made
 * once, and its sub-block of the parameter block (kernels/positions.cl
 * reads it).
 */
#include "call.h"

#include <limits.h>
#include <stdint.h>

sinpe_status sinpe__tokens_check(size_t n_seqs, size_t seq_len)
{
    SINPE_CHECK(n_seqs == 0, SINPE_INVALID_SHAPE, "args->n_seqs is 0");
    SINPE_CHECK(seq_len == 0, SINPE_INVALID_SHAPE, "args->seq_len is 0");
    SINPE_CHECK(n_seqs > (size_t)INT_MAX / seq_len, SINPE_INVALID_SHAPE,
                "args->n_seqs * args->seq_len exceeds 2^31 - 1 tokens");
    return SINPE_SUCCESS;
}

sinpe_status sinpe__positions_check(const sinpe_context *ctx, const sinpe__positions *s)
{
    SINPE_CHECK((unsigned)s->rule > SINPE_POSITIONS_FAIRSEQ, SINPE_INVALID_OPTION,
                "args->position_rule %d is not a sinpe_position_rule", s->rule);
    SINPE_CHECK(s->rule == SINPE_POSITIONS_FAIRSEQ && s->positions, SINPE_INVALID_OPTION,
                "args->positions must be NULL with SINPE_POSITIONS_FAIRSEQ (made on the device)");
    size_t n = s->broadcast ? s->seq_len : s->n_seqs * s->seq_len, lanes = s->lanes ? s->lanes : 1;
    size_t stride = s->lane_stride ? s->lane_stride : n;
    SINPE_CHECK(lanes > 1 && s->positions && stride < n, SINPE_INVALID_SHAPE,
                "args->lane_stride %zu is below the %zu tokens of a lane", stride, n);
    SINPE_CHECK(lanes > 1 && s->positions && stride > (SIZE_MAX - n) / (lanes - 1),
                SINPE_BUFFER_TOO_SMALL, "args->positions: %zu lanes of lane_stride %zu overflow",
                lanes, stride);
    if (s->positions)
        SINPE_FORWARD(sinpe__check_ints(ctx, s->positions, "args->positions", s->positions_offset,
                                        (lanes - 1) * stride + n));
    else if (s->rule == SINPE_POSITIONS_INDEX)
        SINPE_CHECK((int64_t)s->start + (int64_t)(s->seq_len - 1) > INT_MAX, SINPE_INVALID_SHAPE,
                    "args->start %d + seq_len - 1 exceeds the largest position 2^31 - 1",
                    (int)s->start);
    if (s->grid_cols || s->grid_rows || s->grid_start) {
        size_t cell = s->grid_rows * s->grid_cols;
        SINPE_CHECK(s->positions, SINPE_INVALID_OPTION,
                    "args->positions is given with a grid (args->grid_cols): one or the other");
        SINPE_CHECK(!s->grid_rows || !s->grid_cols || s->grid_rows > INT_MAX / s->grid_cols,
                    SINPE_INVALID_SHAPE, "args->grid_rows %zu x grid_cols %zu: each at least 1, "
                    "the product at most 2^31 - 1", s->grid_rows, s->grid_cols);
        SINPE_CHECK(s->grid_start > s->seq_len || (s->seq_len - s->grid_start) % cell,
                    SINPE_INVALID_SHAPE,
                    "args->grid_rows x grid_cols (%zu x %zu) does not divide the %zu tokens of a "
                    "sequence past grid_start %zu into whole frames",
                    s->grid_rows, s->grid_cols, s->seq_len, s->grid_start);
    }
    if (s->seq_starts)
        SINPE_FORWARD(sinpe__check_ints(ctx, s->seq_starts, "args->seq_starts",
                                        s->seq_starts_offset, s->n_seqs));
    if (s->pad_counts)
        SINPE_FORWARD(sinpe__check_ints(ctx, s->pad_counts, "args->pad_counts",
                                        s->pad_counts_offset, s->n_seqs));
    return SINPE_SUCCESS;
}

sinpe_pos_params sinpe__positions_params(const sinpe__positions *s)
{
    const sinpe_pos_params p = {
        .pos_off = s->positions ? s->positions_offset : 0,
        .seq_start_off = s->seq_starts ? s->seq_starts_offset : 0,
        .pad_count_off = s->pad_counts ? s->pad_counts_offset : 0,
        .lane_stride = s->lane_stride ? s->lane_stride
                                      : (s->broadcast ? s->seq_len : s->n_seqs * s->seq_len),
        .start = s->start,
        .lanes = (cl_uint)(s->lanes ? s->lanes : 1),
        .grid_rows = (cl_uint)s->grid_rows,
        .grid_cols = (cl_uint)s->grid_cols,
        .grid_start = (cl_uint)s->grid_start,
        .flags = (s->grid_cols ? SINPE_POS_GRID : 0) | (s->positions ? SINPE_HAS_POS : 0) |
                 (s->positions && s->broadcast ? SINPE_POS_BROADCAST : 0) |
                 (s->seq_starts ? SINPE_HAS_SEQ_START : 0) |
                 (s->pad_counts ? SINPE_HAS_PAD_COUNT : 0),
        .seq_len = (cl_uint)s->seq_len};
    return p;
}
