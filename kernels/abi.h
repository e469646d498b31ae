/*
 * abi.h -- what the host (src/) and the kernels share, written once in the
 * common subset of C and OpenCL C: the call modes, the flags and the
 * parameter block of the embedding kernels, and the kernel forms.  The host
 * includes this file; the kernel files include it too, and the build
 * embeds it with them, so neither side keeps a copy.  The test suite
 * checks the layout of the parameter block on the device
 * (tests/test_abi.c).
 */
#ifndef SINPE_ABI_H
#define SINPE_ABI_H

/* The storage types: the values of sinpe_dtype in include/sinpe.h, which
   src/dtype.c checks against this list, under the same names in kernels. */
#define SINPE_DTYPE_VALUES(X) \
    X(F32, 0) X(F16, 1) X(BF16, 2) X(I8, 3) X(Q8_0, 4) X(FP8_E4M3, 5) X(FP8_E5M2, 6)

#ifdef __OPENCL_C_VERSION__
typedef ulong sinpe_u64;
typedef int sinpe_i32;
typedef uint sinpe_u32;
#define SINPE_X_DTYPE(name, value) SINPE_##name = value,
enum { SINPE_DTYPE_VALUES(SINPE_X_DTYPE) };
#undef SINPE_X_DTYPE
/* Whether dt is read as floats (the others are decoded: quant.cl). */
#define SINPE_FLOAT_TYPE(dt) ((dt) == SINPE_F32 || (dt) == SINPE_F16 || (dt) == SINPE_BF16)
/* The padding policies: the values of sinpe_pad_policy in include/sinpe.h
   (src/plan.c asserts that they agree). */
#define SINPE_PAD_NONE 0
#define SINPE_PAD_ZERO_PE 1
#define SINPE_PAD_ZERO_OUTPUT 2
#define SINPE_PAD_ZERO_EMBEDDING 3
#else
typedef cl_ulong sinpe_u64;
typedef cl_int sinpe_i32;
typedef cl_uint sinpe_u32;
#endif

/* The three embedding calls. */
#define SINPE_MODE_FUSED 0  /* out = scale * E[id] + PE(pos) */
#define SINPE_MODE_GATHER 1 /* out = scale * E[id]           */
#define SINPE_MODE_ADD 2    /* out = out + PE(pos)           */

/* Bits of sinpe_embed_params.flags. */
#define SINPE_HAS_POS 1        /* positions read from a buffer            */
#define SINPE_POS_BROADCAST 2  /* ... one row of seq_len for every sequence */
#define SINPE_HAS_SEQ_START 8  /* plus seq_starts[b]                       */
#define SINPE_HAS_PAD_COUNT 16 /* minus pad_counts[b]                      */
#define SINPE_SKIP_PE 32       /* no PE at all (a vocabulary shard's)      */
#define SINPE_ONE_LAUNCH 64    /* the _otf kernel writes every token       */
#define SINPE_ALIGNED 128      /* four-value accesses are 16-byte aligned  */
#define SINPE_OWNER 256        /* an OWNER shard: tokens it does not own are zero */
#define SINPE_OWNS_BELOW 512   /* ... and it owns the negative ids (the first)    */
#define SINPE_OWNS_ABOVE 1024  /* ... the ids past its rows (the last)            */

/* Where the weights' row scales are (sinpe_embed_params.ws_type). */
#define SINPE_SCALES_NONE 0 /* wscale for every row (1 but for FP8) */
#define SINPE_SCALES_F32 1  /* one fp32 per row at ws_off of the scales buffer */
#define SINPE_SCALES_F16 2  /* one fp16 per row */

/* The parameter block of every embedding kernel, passed by value. */
typedef struct {
    sinpe_u64 ids_off, e_off, e_stride, out_off, out_stride, pos_off, seq_start_off,
        pad_count_off, ws_off;
    sinpe_i32 vocab, vocab_start, tab_rows, start, pad_id, pad_policy, flags, ws_type;
    sinpe_u32 dim, seq_len, n_seqs;
    float scale, wscale;
} sinpe_embed_params;

/*
 * The forms of the embedding kernels (kernels/entries.def lists each
 * kernel with its form).  A program holds only the forms its tuning
 * record reaches: the host passes -DSINPE_HAS_<FORM>=1 for those
 * (src/plan.c).
 *   FAST    positions start + t, all in the table, no padding policy:
 *           four columns of seqs sequences per work-item;
 *   COL     FAST in scalar form, one column per work-item (bf16 pairs);
 *   ROW     FAST with a whole row per work-item (decode-sized calls);
 *   GENERAL every position source and padding policy in one launch,
 *           positions past the table computed behind a branch;
 *   TABLE   the same in two launches: this one writes the tokens whose
 *           position lies in the table, seqs sequences per work-item, ...
 *   STREAM  ... or, for large outputs, one 64-byte line of each of seqs
 *           sequences per work-item with non-temporal stores (FAST's
 *           large calls too, in one launch) ...
 *   OTF     ... and this one the others, one token per work-item (alone,
 *           with SINPE_ONE_LAUNCH, it writes every token).
 */
#define SINPE_FORM_FAST 0
#define SINPE_FORM_STREAM 1
#define SINPE_FORM_COL 2
#define SINPE_FORM_ROW 3
#define SINPE_FORM_GENERAL 4
#define SINPE_FORM_TABLE 5
#define SINPE_FORM_OTF 6
#define SINPE_FORMS 7

#endif /* SINPE_ABI_H */
