/*
 * plan_records.c -- what the plan says of records, for sinpe-tune and the
 * tests: which parameters change a call, which forms a record reaches, and
 * the few records that together reach every form one record reaches.
 * Each answer compares the launches of every kind of call (plan.c).
 */
#include "sinpe_internal.h"

/* Whether t and u launch the same for every kind of call (each mode, NONE
   meaning table rows, and each weights and output type) but those that one
   of the n records before[] launches as t does. */
static int same_for_all(const sinpe__tuning *t, const sinpe__tuning *u,
                        const sinpe__tuning *before, size_t n)
{
    for (int mode = 0; mode <= SINPE_MODE_NONE; mode++)
        for (int w = 0; sinpe__dtype((sinpe_dtype)w); w++)
            for (int out = 0; sinpe__dtype((sinpe_dtype)out); out++)
                for (int bits = 0; bits < SINPE__KIND_BITS; bits++) {
                    const sinpe__call c = sinpe__plan_kind(mode, w, out, bits);
                    size_t j = 0;
                    while (j < n && !sinpe__plan_same(t, &before[j], &c))
                        j++;
                    if (j == n && !sinpe__plan_same(t, u, &c))
                        return 0;
                }
    return 1;
}

int sinpe__plan_affects(const sinpe__tuning *t, size_t i, const sinpe__call *c)
{
    size_t v;
    for (size_t k = 0; sinpe__param_value(i, k, &v); k++) {
        sinpe__tuning u = *t;
        *sinpe__param_field(&u, i) = v;
        if (c ? !sinpe__plan_same(t, &u, c) : !same_for_all(t, &u, NULL, 0))
            return 1;
    }
    return 0;
}

unsigned sinpe__plan_forms(const sinpe__tuning *t)
{
    unsigned forms = 0;
    for (int k = 0; k < sinpe__kernel_count; k++)
        for (int w = -1; w < 0 || sinpe__dtype((sinpe_dtype)w); w++)
            if (sinpe__kernel_held(t, w, k))
                forms |= 1u << sinpe__kernels[k].form;
    return forms;
}

/* v with every parameter at its first value that changes no call but
   those that one of the n records before[] launches as v does. */
static void canonical(sinpe__tuning *v, const sinpe__tuning *before, size_t n)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < sinpe__n_params; i++) {
            sinpe__tuning u = *v;
            size_t *f = sinpe__param_field(&u, i);
            if (sinpe__param_value(i, 0, f) && *f != *sinpe__param_field(v, i) &&
                same_for_all(v, &u, before, n)) {
                *v = u;
                changed = 1;
            }
        }
    }
}

size_t sinpe__plan_variants(const sinpe__tuning *r, sinpe__tuning *out)
{
    size_t n = 0;
    out[n] = *r;
    out[n].stream_bytes = SINPE__NEVER;
    out[n++].decode_tokens = 0;
    if (r->decode == SINPE_DECODE_ROWS) {
        out[n] = out[0];
        out[n++].decode_tokens = SINPE__NEVER;
    }
    if (r->stream) {
        out[n] = *r;
        out[n].stream_bytes = 0;
        out[n++].decode_tokens = 0;
    }
    for (size_t i = 0; i < n; i++)
        canonical(&out[i], out, i);
    return n;
}
