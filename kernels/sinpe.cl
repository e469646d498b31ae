/*
 * sinpe.cl -- the program: every kernel file.  The build embeds this file
 * with what it includes (scripts/embed-text.sh); SINPE_KERNEL_SOURCE may
 * name it, or a changed copy, to build from disk while developing.  A
 * weights type's program (-DSINPE_WEIGHTS) holds its embedding kernels
 * only.  The shared files come first and unconditionally: the embedding
 * copies each file once, where it is first included.
 */
#include "abi.h"
#include "pe_math.cl"
#include "dtype.cl"
#ifndef SINPE_WEIGHTS
#include "table.cl"
#endif
#include "embed_kernels.cl"
