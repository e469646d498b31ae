/*
 * positions.cl -- the position of a token, as every operation reads it
 * from its sinpe_pos_params (kernels/abi.h).
 */
#ifndef SINPE_POSITIONS_CL
#define SINPE_POSITIONS_CL

#include "abi.h"

/* Position lane of token t of sequence b; sums wrap modulo 2^32 like the
   host's int32. */
inline int sinpe_position_lane(const sinpe_pos_params *a, global const int *pos,
                               global const int *seq_start, global const int *pad_count,
                               size_t b, uint t, uint lane)
{
    uint p = (uint)a->start;
    if (a->flags & SINPE_POS_GRID) {
        uint from_last = a->lanes - 1 - lane, g = t - a->grid_start, cell = a->grid_rows * a->grid_cols;
        p += t < a->grid_start ? 0u
             : from_last == 0  ? g % a->grid_cols
             : from_last == 1  ? g / a->grid_cols % a->grid_rows
             : from_last == 2  ? g / cell
                               : 0u;
    } else if (a->flags & SINPE_HAS_POS)
        p += (uint)pos[a->pos_off + lane * a->lane_stride +
                       ((a->flags & SINPE_POS_BROADCAST) ? t : b * a->seq_len + t)];
    else
        p += t;
    if (a->flags & SINPE_HAS_SEQ_START)
        p += (uint)seq_start[a->seq_start_off + b];
    if (a->flags & SINPE_HAS_PAD_COUNT)
        p -= (uint)pad_count[a->pad_count_off + b];
    return (int)p;
}

/* Its only position (lane 0). */
inline int sinpe_position(const sinpe_pos_params *a, global const int *pos,
                          global const int *seq_start, global const int *pad_count,
                          size_t b, uint t)
{
    return sinpe_position_lane(a, pos, seq_start, pad_count, b, t, 0);
}

#endif /* SINPE_POSITIONS_CL */
