/*
 * variants.c -- the tuning records the tests run under: those that reach
 * every form some database record reaches (tuning/).  Shared by the Check
 * suites (tests/main.c --records, test_shapes.c) and the grind program.
 */
#include "variants.h"

#include <string.h>

/* Appends the text of t to the list unless it is there already. */
static size_t add_variant(const sinpe__tuning *t, char (*out)[SINPE__VARIANT], size_t n,
                          size_t cap)
{
    char text[SINPE__VARIANT];
    sinpe__tuning_format(t, text, sizeof text);
    for (size_t i = 0; i < n; i++)
        if (strcmp(out[i], text) == 0)
            return n;
    if (n < cap)
        memcpy(out[n], text, sizeof text);
    return n + 1;
}

size_t tu_variants(char (*out)[SINPE__VARIANT], size_t cap)
{
    const size_t never = (size_t)1 << 62;
    size_t n = 0;
    for (size_t i = 0; sinpe__database[i]; i++) {
        sinpe__record r;
        sinpe__tuning v;
        if (sinpe__record_parse(sinpe__database[i], &r) != 0 || !sinpe__record_complete(&r))
            continue;
        /* Every call of the plain forms: no stream, no decode-sized call. */
        v = r.t;
        v.stream = 0;
        v.stream_bytes = never;
        v.decode = SINPE_DECODE_TILES;
        v.decode_tokens = 0;
        n = add_variant(&v, out, n, cap);
        /* Below, TABLE's sequences are those of the plain variants: every
           call that would take TABLE takes another form (add aside, whose
           TABLE the plain variant reaches), so they are set alike and the
           variants that differ in nothing else are one. */
        if (r.t.decode == SINPE_DECODE_ROWS) { /* every call decode-sized */
            v.decode = SINPE_DECODE_ROWS;
            v.decode_tokens = never;
            v.table_seqs = 4;
            n = add_variant(&v, out, n, cap);
        }
        if (r.t.stream) { /* every call that can streams */
            v = r.t;
            v.stream_bytes = 0;
            v.decode = SINPE_DECODE_TILES;
            v.decode_tokens = 0;
            v.table_seqs = 4;
            n = add_variant(&v, out, n, cap);
        }
    }
    return n;
}
