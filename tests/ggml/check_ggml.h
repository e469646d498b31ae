/*
 * check_ggml.h -- what check_ggml.c (block types, main) and
 * check_ggml_rope.c (rotary) share: failure counting, the calls that must
 * succeed, the random numbers and OpenCL buffers.
 */
#ifndef CHECK_GGML_H
#define CHECK_GGML_H

#include "ggml-cpu.h"
#include "ggml.h"
#include "sinpe.h"

#include <stdint.h>

extern int failures;
extern uint64_t rng_state;

void fail_if(int bad, const char *what);
/* A call that must succeed: else the program stops (exit status 2). */
void need(int good, const char *call, long code);
#define OK(call) do { sinpe_status s_ = (call); need(s_ == SINPE_SUCCESS, #call, s_); } while (0)

uint32_t rng_u32(void); /* xorshift64 */
#define rng_int(lo, hi) ((lo) + (int32_t)(rng_u32() % (uint32_t)((hi) - (lo) + 1))) /* inclusive */
#define rng_float() ((float)((double)(rng_u32() >> 8) / 8388608.0 - 1.0))          /* [-1, 1) */

cl_mem buffer(sinpe_context *ctx, size_t bytes, const void *host);
#define read_back(ctx, m, bytes, host)                                                        \
    need(clEnqueueReadBuffer(sinpe_context_queue(ctx), m, CL_TRUE, 0, bytes, host, 0, NULL, \
                             NULL) == CL_SUCCESS, "clEnqueueReadBuffer", 0)

void check_rope_all(sinpe_context *ctx); /* check_ggml_rope.c */

#endif
