/*
 * sinpe.cl -- the program: every kernel file.  The build embeds this file
 * with what it includes (scripts/embed-text.sh); SINPE_KERNEL_SOURCE may
 * name it, or a changed copy, to build from disk while developing.
 */
#include "table.cl"
#include "embed_kernels.cl"
