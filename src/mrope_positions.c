/*
 * mrope_positions.c -- the lanes of a Qwen-VL prompt (include/sinpe.h,
 * "Multimodal positions"): HF's get_rope_index on the host, checked first
 * and written in a second pass, so that a refused prompt writes nothing.
 */
#include "call.h"

#include <math.h>
#include <string.h>

/* args as a struct that grows (sinpe__kind): its first layout ends at the field named. */
#define PROMPT SINPE__KIND(sinpe_mrope_prompt, spatial_merge_size)

void sinpe_mrope_prompt_init_sized(sinpe_mrope_prompt *prompt, size_t struct_size)
{
    sinpe_mrope_prompt own;
    memset(&own, 0, sizeof own);
    own.tokens_per_second = 2.0;
    own.spatial_merge_size = 2;
    sinpe__struct_init(PROMPT, prompt, struct_size, &own, "prompt");
}

/* The walk's state across the batch: the grids taken so far (QWEN3_VL's
   videos frame by frame: frame counts one grid's frames). */
typedef struct {
    size_t image, video, frame;
} grids;

/* Token t of sequence b, when its mask lets it in. */
static int in(const sinpe_mrope_prompt *p, size_t b, size_t t)
{
    return !p->mask || p->mask[b * p->seq_len + t] == 1;
}

/* The next unmasked token at or after t holding id; seq_len if none. */
static size_t next_id(const sinpe_mrope_prompt *p, size_t b, size_t t, int32_t id)
{
    for (; t < p->seq_len; t++)
        if (in(p, b, t) && p->ids[b * p->seq_len + t] == id)
            return t;
    return p->seq_len;
}

/* Writes lane l of token t of sequence b (out may be NULL: checking). */
static void put(const sinpe_mrope_prompt *p, int32_t *out, size_t b, size_t t, int64_t v[3])
{
    for (size_t l = 0; out && l < 3; l++)
        out[(l * p->n_seqs + b) * p->seq_len + t] = (int32_t)v[l];
}

#define MAX_POS 2147483647

/* One sequence: its lanes into out (NULL: checks only), *top its largest. */
static sinpe_status walk(const sinpe_mrope_prompt *p, size_t b, grids *g, int32_t *out,
                         int64_t *top)
{
    size_t t = 0, m = p->spatial_merge_size;
    int64_t next = 0, v[3];
    while (t < p->seq_len) {
        size_t ei = g->image < p->n_images ? next_id(p, b, t, p->image_token) : p->seq_len;
        size_t ev = g->video < p->n_videos ? next_id(p, b, t, p->video_token) : p->seq_len;
        size_t ed = ei < ev ? ei : ev;
        for (; t < ed; t++) { /* text */
            if (!in(p, b, t))
                continue;
            v[0] = v[1] = v[2] = next++;
            put(p, out, b, t, v);
        }
        if (ed == p->seq_len)
            break;
        int image = ei < ev;
        size_t k = image ? g->image : g->video;
        const int32_t *thw = (image ? p->image_grid_thw : p->video_grid_thw) + 3 * k;
        const char *what = image ? "prompt->image_grid_thw" : "prompt->video_grid_thw";
        SINPE_CHECK(thw[0] < 1 || thw[1] < 1 || thw[2] < 1 || thw[1] % m || thw[2] % m,
                    SINPE_INVALID_SHAPE,
                    "%s[%zu] is %d x %d x %d: values of at least 1, h and w multiples of the "
                    "spatial_merge_size %zu", what, k, thw[0], thw[1], thw[2], m);
        int one_frame = !image && p->rule == SINPE_MROPE_QWEN3_VL;
        size_t frames = one_frame ? 1 : (size_t)thw[0], hh = (size_t)thw[1] / m;
        size_t ww = (size_t)thw[2] / m, n = frames * hh * ww;
        double scale = 1.0; /* T(f) = floor(f scale) */
        if (p->rule == SINPE_MROPE_QWEN2_5_VL)
            scale = image ? 0.0
                          : (p->second_per_grid ? p->second_per_grid[k] : 1.0) *
                                p->tokens_per_second;
        SINPE_CHECK(!(isfinite(scale) && scale >= 0.0), SINPE_INVALID_SHAPE,
                    "prompt->second_per_grid[%zu] * tokens_per_second is %g: finite and >= 0",
                    k, scale);
        int64_t s = next, f_top = 0;
        for (size_t j = 0; j < n; j++, t++) {
            while (t < p->seq_len && !in(p, b, t))
                t++;
            int32_t want = image ? p->image_token : p->video_token;
            SINPE_CHECK(t >= p->seq_len || p->ids[b * p->seq_len + t] != want,
                        SINPE_INVALID_SHAPE,
                        "%s[%zu] gives %zu tokens, but sequence %zu holds %zu of them there",
                        what, k, n, b, j);
            size_t f = j / (hh * ww);
            double tf = floor((double)f * scale);
            SINPE_CHECK(tf + (double)s > MAX_POS, SINPE_INVALID_SHAPE,
                        "%s[%zu]: a position past 2^31 - 1", what, k);
            v[0] = s + (int64_t)tf;
            v[1] = s + (int64_t)(j / ww % hh);
            v[2] = s + (int64_t)(j % ww);
            f_top = v[0] > f_top ? v[0] : f_top;
            put(p, out, b, t, v);
        }
        next = (f_top > s + (int64_t)hh - 1 ? f_top : s + (int64_t)hh - 1);
        next = (next > s + (int64_t)ww - 1 ? next : s + (int64_t)ww - 1) + 1;
        if (!image && one_frame && ++g->frame < (size_t)thw[0])
            continue; /* the same video's next frame */
        g->frame = 0;
        if (image)
            g->image++;
        else
            g->video++;
    }
    SINPE_CHECK(next - 1 > MAX_POS, SINPE_INVALID_SHAPE, "sequence %zu: a position past 2^31 - 1",
                b);
    *top = next - 1;
    return SINPE_SUCCESS;
}

sinpe_status sinpe_mrope_positions(const sinpe_mrope_prompt *prompt, int32_t *lanes,
                                   int32_t *deltas)
{
    sinpe_mrope_prompt p;
    sinpe__clear_error();
    SINPE_CHECK(!prompt, SINPE_NULL_ARGUMENT, "prompt is NULL");
    sinpe_mrope_prompt_init(&p);
    SINPE_FORWARD(sinpe__struct_in(PROMPT, &p, prompt, "prompt"));
    SINPE_CHECK(!lanes, SINPE_NULL_ARGUMENT, "lanes is NULL");
    SINPE_CHECK(!p.ids, SINPE_NULL_ARGUMENT, "prompt->ids is NULL");
    SINPE_CHECK(p.n_images && !p.image_grid_thw, SINPE_NULL_ARGUMENT,
                "prompt->image_grid_thw is NULL with n_images %zu", p.n_images);
    SINPE_CHECK(p.n_videos && !p.video_grid_thw, SINPE_NULL_ARGUMENT,
                "prompt->video_grid_thw is NULL with n_videos %zu", p.n_videos);
    SINPE_CHECK((unsigned)p.rule > SINPE_MROPE_QWEN3_VL, SINPE_INVALID_OPTION,
                "prompt->rule %d is not a sinpe_mrope_rule", (int)p.rule);
    SINPE_FORWARD(sinpe__tokens_check(p.n_seqs, p.seq_len));
    SINPE_CHECK(p.spatial_merge_size == 0, SINPE_INVALID_SHAPE,
                "prompt->spatial_merge_size is 0");
    SINPE_CHECK(!(isfinite(p.tokens_per_second) && p.tokens_per_second >= 0.0),
                SINPE_INVALID_SHAPE, "prompt->tokens_per_second must be finite and >= 0");
    for (int pass = 0; pass < 2; pass++) { /* check, then write */
        grids g = {0, 0, 0};
        for (size_t b = 0; b < p.n_seqs; b++) {
            int64_t top = 0;
            SINPE_FORWARD(walk(&p, b, &g, pass ? lanes : NULL, &top));
            if (!pass)
                continue;
            for (size_t t = 0; t < p.seq_len; t++)
                if (!in(&p, b, t))
                    put(&p, lanes, b, t, (int64_t[3]){1, 1, 1});
            if (deltas)
                deltas[b] = (int32_t)(top + 1 - (int64_t)p.seq_len);
        }
    }
    return SINPE_SUCCESS;
}
