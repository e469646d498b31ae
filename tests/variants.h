/* variants.h -- the tuning records the tests run under (variants.c). */
#ifndef SINPE_TEST_VARIANTS_H
#define SINPE_TEST_VARIANTS_H

#include "tuning.h"

#include <stddef.h>

/* Each database record with every call in its plain forms, and where it has
 * them, with every call decode-sized and with every call streamed.  Writes
 * up to cap texts into out, returns how many there are (no duplicates). */
size_t tu_variants(char (*out)[SINPE__VARIANT], size_t cap);

#endif
