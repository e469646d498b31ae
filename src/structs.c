/*
 * structs.c -- the public structs across releases (include/sinpe.h,
 * "Structs that grow"): a caller's struct of any sized layout, or of 0.1's,
 * copied into the library's own and back (the 0.1 entry points: v0_1.c).
 */
#include "sinpe_internal.h"

#include <string.h>

/* The kinds several files share; the 0.1 layout is 0.2's less its first
   field, struct_size (none for sinpe_dtype_info). */
#define END SINPE__END
#define KIND(T, last, v0_1) {sizeof(T), END(T, last), (v0_1) ? END(T, last) - sizeof(size_t) : 0}
const sinpe__kind sinpe__kind_options = KIND(sinpe_context_options, tuning, 1);
const sinpe__kind sinpe__kind_spec = KIND(sinpe_spec, angle_scale, 1);
const sinpe__kind sinpe__kind_args = KIND(sinpe_embed_args, vocab_total, 1);
const sinpe__kind sinpe__kind_dtype_info = KIND(sinpe_dtype_info, largest, 0);
const sinpe__kind sinpe__kind_rope_spec = KIND(sinpe_rope_spec, inv_freq, 0);
typedef char sinpe__v0_1_shifted[sizeof(sinpe_spec_v0_1) ==
                                         END(sinpe_spec, angle_scale) - sizeof(size_t) ? 1 : -1];

static sinpe_status check_word(const sinpe__kind *kind, size_t word, const char *what)
{
    SINPE_CHECK(!(word & SINPE_STRUCT_TAG), SINPE_INVALID_STRUCT_SIZE,
                "%s: struct_size %zu is untagged: give SINPE_STRUCT_SIZE(type)", what, word);
    SINPE_CHECK((word & ~SINPE_STRUCT_TAG) < kind->v0_2, SINPE_INVALID_STRUCT_SIZE,
                "%s: struct_size %zu is below %zu, the first sized layout", what,
                word & ~SINPE_STRUCT_TAG, kind->v0_2);
    return SINPE_SUCCESS;
}

sinpe_status sinpe__struct_check(const sinpe__kind *kind, size_t word, const char *what)
{
    return check_word(kind, word, what);
}

sinpe_status sinpe__struct_in(const sinpe__kind *kind, void *own, const void *theirs,
                              const char *what)
{
    size_t n, word, size = kind->size;
    memcpy(&word, theirs, sizeof word);
    if (!(word & SINPE_STRUCT_TAG) && kind->v0_1) { /* 0.1 */
        memset(own, 0, sizeof word);
        memcpy((char *)own + sizeof word, theirs, kind->v0_1);
        return SINPE_SUCCESS;
    }
    SINPE_FORWARD(check_word(kind, word, what));
    n = word & ~SINPE_STRUCT_TAG;
    memcpy(own, theirs, n < size ? n : size);
    return SINPE_SUCCESS;
}

sinpe_status sinpe__struct_out(const sinpe__kind *kind, void *theirs, size_t word,
                              const void *own, int how, const char *what)
{
    size_t n, size = kind->size;
    if (how == SINPE__FILL_V0_1 || (how == SINPE__UPDATE && word == 0)) {
        memcpy(theirs, (const char *)own + sizeof(size_t), kind->v0_1);
        return SINPE_SUCCESS;
    }
    SINPE_FORWARD(check_word(kind, word, what));
    n = word & ~SINPE_STRUCT_TAG;
    memcpy(theirs, own, n < size ? n : size);
    if (n > size && how == SINPE__FILL) /* fields of a newer header */
        memset((char *)theirs + size, 0, n - size);
    if (kind != SINPE__DTYPE_INFO) /* it has no struct_size */
        memcpy(theirs, &word, sizeof word);
    return SINPE_SUCCESS;
}

void sinpe__struct_init(const sinpe__kind *kind, void *theirs, size_t word, const void *own,
                       const char *what)
{
    sinpe__clear_error();
    if (theirs)
        sinpe__struct_out(kind, theirs, word, own, SINPE__FILL, what);
}
