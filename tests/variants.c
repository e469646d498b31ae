/* variants.c -- the tuning records the tests run under: those that reach
 * every form some database record reaches (tuning/), as the plan gives
 * them (sinpe__plan_variants).  Shared by the Check suites (tests/main.c
 * --records, test_shapes.c) and the grind program. */
#include "variants.h"

#include <string.h>

size_t tu_variants(char (*out)[SINPE__VARIANT], size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; sinpe__database[i]; i++) {
        sinpe__record r;
        sinpe__tuning v[3];
        if (sinpe__record_parse(sinpe__database[i], &r) != 0 || !sinpe__record_complete(&r))
            continue;
        for (size_t j = 0, m = sinpe__plan_variants(&r.t, v); j < m; j++) {
            char text[SINPE__VARIANT];
            size_t k = 0;
            sinpe__tuning_format(&v[j], text, sizeof text);
            while (k < n && k < cap && strcmp(out[k], text) != 0)
                k++;
            if (k < n) /* there already */
                continue;
            if (n < cap)
                memcpy(out[n], text, sizeof text);
            n++;
        }
    }
    return n;
}
