/* samebits.c -- the same bits on every conforming device: sinpe's outputs
 * on one device written to a file, and two such files compared value by
 * value ("make check-intel": PoCL against Intel's OpenCL CPU runtime, two
 * compilers and vectorizers).
 *
 *     samebits [--math float|fp64] FILE   outputs on the device SINPE_DEVICE
 *                                         names (else sinpe's default)
 *     samebits --compare FILE1 FILE2      values compared and differing
 *
 * What is written, each a named section, every value in its storage type:
 *  - rows of absolute tables (sinpe_enqueue_table_rows) of every preset
 *    and a spec of no preset's, at widths 7, 96 and 1023 (odd widths in
 *    each odd policy), windows of 9 rows inside the table, across its end,
 *    at 2^24, across zero, below zero at INT_MIN and up to INT_MAX, in
 *    fp32, fp16 and bf16;
 *  - diffusion timesteps, fractional and negative, in the three types;
 *  - rows of rotary tables of every rule and preset, in each of the four
 *    layouts, in the same windows and types;
 *  - rotations (sinpe_enqueue_rope) in each type: halves, interleaved and
 *    partial rotary, positions from a buffer (inside and past the table,
 *    negative, near INT_MAX) and implicit ones across the table's end;
 *  - fused outputs (sinpe_enqueue_embed) of every pair of float weight and
 *    output types, and of quantized weights (I8, Q8_0, FP8 E4M3 and E5M2)
 *    into each output type, with fairseq's positions and padding, explicit
 *    positions of every range, and tensor2tensor's rounded scale.
 * The inputs come from a fixed generator, so every run writes the same
 * values but for what the device computes.  Every output buffer is filled
 * with all-ones bytes (a NaN in each type) first, and a value left NaN
 * fails the run: every value compared was written.
 *
 * The file: a line "sinpe-samebits 1 MATH\tPLATFORM / DEVICE\n", then
 * sections, each a line "NAME\tBYTES\tCOUNT\n" (BYTES per value, 2 or 4)
 * followed by COUNT values of BYTES bytes as the host holds them.
 * --compare reads two files of the same sections, counts the values
 * compared and those whose bits differ (naming the first few), refuses
 * files written on the same platform or with different math, and exits 0
 * only when nothing differs. */
#include "harness.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "sinpe-samebits 1"
#define TABLE_ROWS 64
#define WINDOW 9

const char *const harness_name = "samebits";

static sinpe_context *ctx;
static cl_command_queue queue;
static FILE *dump;
static long failures, sections;
static size_t values;
static uint64_t rng_state;

void fail(const char *fmt, ...)
{
    va_list ap;
    failures++;
    fprintf(stderr, "samebits: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
}

/* splitmix64, from a fixed seed: the same inputs in every run. */
static uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A float in [-2, 2) with 24 random bits. */
static float next_float(void)
{
    return (float)((double)(next() >> 40) / 4194304.0 - 2.0);
}

static size_t type_bytes(sinpe_dtype t)
{
    return t == SINPE_F32 ? 4 : 2;
}

static const char *type_name(sinpe_dtype t)
{
    sinpe_dtype_info info;
    return sinpe_dtype_query(t, &info, sizeof info) == SINPE_SUCCESS ? info.name : "?";
}

/* n values of type t (F32, F16 or BF16), each finite, of magnitude below
   4, 16-bit ones drawn as bit patterns (no host conversion to trust). */
static void *random_values(sinpe_dtype t, size_t n)
{
    void *v = xcalloc(n, type_bytes(t));
    for (size_t i = 0; i < n; i++) {
        if (t == SINPE_F32) {
            ((float *)v)[i] = next_float();
        } else if (t == SINPE_BF16) {
            float f = next_float();
            uint32_t bits;
            memcpy(&bits, &f, sizeof bits);
            ((uint16_t *)v)[i] = (uint16_t)(bits >> 16);
        } else {
            uint64_t r = next(); /* sign, exponent 5 .. 16 (2^-10 .. 2), fraction */
            ((uint16_t *)v)[i] = (uint16_t)((r & 0x8000u) | (5u + (r >> 16) % 12u) << 10 |
                                            (r >> 32 & 0x3ffu));
        }
    }
    return v;
}

/* Whether value i of type t (F32, F16, BF16) is a NaN. */
static int is_nan(sinpe_dtype t, const void *v, size_t i)
{
    if (t == SINPE_F32) {
        uint32_t b;
        memcpy(&b, (const char *)v + 4 * i, 4);
        return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu);
    }
    uint16_t b;
    memcpy(&b, (const char *)v + 2 * i, 2);
    return t == SINPE_F16 ? (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu)
                          : (b & 0x7f80u) == 0x7f80u && (b & 0x7fu);
}

/* A device buffer of bytes, filled with all-ones bytes (NaN in every type). */
static cl_mem poisoned(size_t bytes)
{
    cl_int err;
    unsigned char ones = 0xff;
    cl_mem m = clCreateBuffer(sinpe_context_cl_context(ctx), CL_MEM_READ_WRITE, bytes, NULL,
                              &err);
    if (!cl_ok(err, "clCreateBuffer"))
        exit(1);
    if (!cl_ok(clEnqueueFillBuffer(queue, m, &ones, 1, 0, bytes, 0, NULL, NULL),
               "clEnqueueFillBuffer"))
        exit(1);
    return m;
}

static cl_mem from_host(const void *host, size_t bytes)
{
    cl_mem m = buffer_from(ctx, host, bytes);
    if (!m)
        exit(1);
    return m;
}

/* Any failure ends the run: a dump with a section missing compares as
   different anyway, and the message says why. */
static void must(sinpe_status st, const char *what)
{
    if (!ok(st, what))
        exit(1);
}

/* Reads n values of type t from m (offset in values) and writes them as
   the section name; every value must have been written (no NaN). */
static void section(const char *name, cl_mem m, size_t offset, size_t n, sinpe_dtype t)
{
    size_t b = type_bytes(t);
    void *host = xcalloc(n, b);
    if (!cl_ok(clEnqueueReadBuffer(queue, m, CL_TRUE, offset * b, n * b, host, 0, NULL, NULL),
               "clEnqueueReadBuffer"))
        exit(1);
    for (size_t i = 0; i < n; i++)
        if (is_nan(t, host, i)) {
            fail("%s: value %zu is NaN (not written, or computed so)", name, i);
            exit(1);
        }
    fprintf(dump, "%s\t%zu\t%zu\n", name, b, n);
    if (fwrite(host, b, n, dump) != n) {
        fail("cannot write the dump");
        exit(1);
    }
    free(host);
    sections++;
    values += n;
}

static const sinpe_dtype out_types[] = {SINPE_F32, SINPE_F16, SINPE_BF16};
#define N_OUT (sizeof out_types / sizeof out_types[0])

/* The first rows of the windows: inside the table, across its end, at
   2^24, across zero, at INT_MIN, below zero, up to INT_MAX. */
static const cl_int windows[] = {0, TABLE_ROWS - 4, 16777214, -4, INT_MIN, -1000003,
                                 INT_MAX - (WINDOW - 1)};
#define N_WINDOWS (sizeof windows / sizeof windows[0])

/* Every window of table (dim columns) in every output type. */
static void table_windows(sinpe_table *table, size_t dim, const char *what)
{
    for (size_t w = 0; w < N_WINDOWS; w++)
        for (size_t o = 0; o < N_OUT; o++) {
            char name[200];
            cl_mem out = poisoned(WINDOW * dim * type_bytes(out_types[o]));
            must(sinpe_enqueue_table_rows(table, queue, windows[w], WINDOW, out, 0, 0,
                                          out_types[o], 0, NULL, NULL),
                 "sinpe_enqueue_table_rows");
            snprintf(name, sizeof name, "%s rows %ld %s", what, (long)windows[w],
                     type_name(out_types[o]));
            section(name, out, 0, WINDOW * dim, out_types[o]);
            clReleaseMemObject(out);
        }
}

/* ---- Absolute tables and timesteps ---- */

static const size_t dims[] = {7, 96, 1023};

static void absolute_tables(void)
{
    for (int p = SINPE_PRESET_VASWANI; p <= SINPE_PRESET_GGML_TIMESTEP + 1; p++)
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
            sinpe_spec spec;
            sinpe_table *table;
            char what[100];
            if (p > SINPE_PRESET_GGML_TIMESTEP) {
                /* No preset's: a base, shift and angle scale of its own. */
                sinpe_spec_init(&spec, dims[d]);
                spec.layout = SINPE_LAYOUT_SPLIT_COS_SIN, spec.odd_dim = SINPE_ODD_EXTRA_SIN;
                spec.base = 537.25, spec.shift = 0.5, spec.angle_scale = 0.371;
            } else if (sinpe_spec_preset(&spec, (sinpe_preset)p, dims[d]) != SINPE_SUCCESS) {
                continue; /* an odd width where the family refuses one */
            }
            snprintf(what, sizeof what, "table %s d%zu",
                     p > SINPE_PRESET_GGML_TIMESTEP ? "custom" : sinpe_preset_name(p), dims[d]);
            must(sinpe_table_create(ctx, &spec, TABLE_ROWS, &table), "sinpe_table_create");
            table_windows(table, dims[d], what);
            sinpe_table_release(table);
        }
}

static void timesteps(void)
{
    static const float ts[] = {0.0f, 0.5f, 1.0f, 3.75f, 999.0f, 999.5f, 10000.0f, -3.25f,
                               123456.7f, 16777215.0f, -0.001f};
    const size_t n = sizeof ts / sizeof ts[0];
    static const sinpe_preset presets[] = {SINPE_PRESET_DIFFUSERS, SINPE_PRESET_DIFFUSERS_FLIP,
                                           SINPE_PRESET_GGML_TIMESTEP};
    cl_mem ts_m = from_host(ts, sizeof ts);
    for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++)
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
            sinpe_spec spec;
            sinpe_table *table;
            must(sinpe_spec_preset(&spec, presets[p], dims[d]), "sinpe_spec_preset");
            must(sinpe_table_create(ctx, &spec, TABLE_ROWS, &table), "sinpe_table_create");
            for (size_t o = 0; o < N_OUT; o++) {
                char name[200];
                cl_mem out = poisoned(n * dims[d] * type_bytes(out_types[o]));
                must(sinpe_enqueue_timesteps(table, queue, ts_m, 0, n, out, 0, 0, out_types[o],
                                             0, NULL, NULL),
                     "sinpe_enqueue_timesteps");
                snprintf(name, sizeof name, "timesteps %s d%zu %s",
                         sinpe_preset_name(presets[p]), dims[d], type_name(out_types[o]));
                section(name, out, 0, n * dims[d], out_types[o]);
                clReleaseMemObject(out);
            }
            sinpe_table_release(table);
        }
    clReleaseMemObject(ts_m);
}

/* ---- Rotary tables and rotations ---- */

/* Rotary specs: each preset at a head width it takes, and the rules no
   preset uses (LINEAR, DYNAMIC, YaRN with its own mscale, frequencies as
   given). */
typedef struct {
    const char *name;
    size_t head_dim;
    sinpe_rope_spec spec;
} rope_case;

static float inv_freq[32];

static size_t rope_cases(rope_case *c)
{
    static const struct {
        sinpe_rope_preset preset;
        size_t head_dim;
    } presets[] = {{SINPE_ROPE_PRESET_LLAMA2, 64},     {SINPE_ROPE_PRESET_LLAMA3_1, 128},
                   {SINPE_ROPE_PRESET_MISTRAL, 128},   {SINPE_ROPE_PRESET_QWEN2, 64},
                   {SINPE_ROPE_PRESET_QWEN2_YARN, 128}, {SINPE_ROPE_PRESET_GPT_NEOX, 96},
                   {SINPE_ROPE_PRESET_GPTJ, 256},      {SINPE_ROPE_PRESET_PHI3_LONGROPE, 96}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++, n++) {
        c[n].name = sinpe_rope_preset_name(presets[i].preset);
        c[n].head_dim = presets[i].head_dim;
        must(sinpe_rope_preset(&c[n].spec, presets[i].preset, presets[i].head_dim),
             "sinpe_rope_preset");
    }
    for (size_t k = 0; k < 32; k++)
        inv_freq[k] = (float)pow(20000.0, -(double)k / 32.0) * (1.0f + 0.01f * (float)(k % 3));
    static const char *const names[] = {"linear", "dynamic", "yarn-mscale", "inv_freq"};
    for (int i = 0; i < 4; i++, n++) {
        sinpe_rope_spec *s = &c[n].spec;
        c[n].name = names[i];
        c[n].head_dim = i == 1 ? 80 : 64;
        sinpe_rope_spec_init(s, c[n].head_dim);
        switch (i) {
        case 0: s->rule = SINPE_ROPE_LINEAR, s->factor = 4.0; break;
        case 1:
            s->rule = SINPE_ROPE_DYNAMIC, s->factor = 2.0, s->max_positions = 4096;
            s->length = 10000, s->pairing = SINPE_ROPE_INTERLEAVED;
            break;
        case 2:
            s->rule = SINPE_ROPE_YARN, s->factor = 16.0, s->original_max_positions = 4096;
            s->mscale = 0.707, s->mscale_all_dim = 1.0, s->truncate = 0, s->base = 12345.0;
            break;
        default: s->inv_freq = inv_freq, s->n_inv_freq = 32, s->attention_factor = 1.9; break;
        }
    }
    return n;
}

#define MAX_ROPE 16

static void rope_tables(void)
{
    static const char *const layouts[] = {"cos_sin", "pairs", "cos_twice", "sin_twice"};
    rope_case c[MAX_ROPE];
    size_t n = rope_cases(c);
    for (size_t i = 0; i < n; i++)
        for (int l = SINPE_ROPE_COS_SIN; l <= SINPE_ROPE_SIN_TWICE; l++) {
            sinpe_table *table;
            char what[100];
            /* Every layout for three specs; the others in their own. */
            if (l != (int)c[i].spec.layout && i % 4 != 0)
                continue;
            c[i].spec.layout = (sinpe_rope_layout)l;
            snprintf(what, sizeof what, "rope %s R%zu %s", c[i].name, c[i].spec.rotary_dim,
                     layouts[l]);
            must(sinpe_rope_table_create(ctx, &c[i].spec, TABLE_ROWS, &table),
                 "sinpe_rope_table_create");
            table_windows(table, c[i].spec.rotary_dim, what);
            sinpe_table_release(table);
        }
}

enum { SEQS = 3, LEN = 5, TOKENS = SEQS * LEN, Q_HEADS = 4, KV_HEADS = 2 };

/* Positions of the rotations and of the fused calls with a buffer: inside
   the table, past it, negative, near INT_MAX and INT_MIN. */
static const cl_int positions[TOKENS] = {0,      1,        63,         64,       65,
                                         4095,   131071,   -1,         -77777,   INT_MIN,
                                         1 << 24, (1 << 24) + 1, 999999937, INT_MAX - 1,
                                         INT_MAX};

static void rotations(void)
{
    rope_case c[MAX_ROPE];
    size_t n = rope_cases(c);
    cl_mem pos_m = from_host(positions, sizeof positions);
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < N_OUT; o++)
            for (int implicit = 0; implicit < 2; implicit++) {
                sinpe_dtype t = out_types[o];
                size_t hd = c[i].head_dim, b = type_bytes(t);
                size_t qn = TOKENS * Q_HEADS * hd, kn = TOKENS * KV_HEADS * hd;
                sinpe_table *table;
                sinpe_rope_args a;
                char name[200];
                /* Implicit positions for some specs only: start + t across the
                   table's end. */
                if (implicit && i % 3 != 0)
                    continue;
                c[i].spec.layout = i % 2 ? SINPE_ROPE_PAIRS : SINPE_ROPE_COS_SIN;
                must(sinpe_rope_table_create(ctx, &c[i].spec, TABLE_ROWS, &table),
                     "sinpe_rope_table_create");
                void *q = random_values(t, qn), *k = random_values(t, kn);
                cl_mem q_m = from_host(q, qn * b), k_m = from_host(k, kn * b);
                cl_mem qo = poisoned(qn * b);
                sinpe_rope_args_init(&a);
                a.n_seqs = SEQS, a.seq_len = LEN, a.head_dim = hd, a.dtype = t;
                a.q = q_m, a.q_heads = Q_HEADS, a.k = k_m, a.kv_heads = KV_HEADS;
                a.q_out = qo; /* out of place for q, in place for k */
                if (implicit)
                    a.start = TABLE_ROWS - 7;
                else
                    a.positions = pos_m;
                must(sinpe_enqueue_rope(table, queue, &a, 0, NULL, NULL), "sinpe_enqueue_rope");
                snprintf(name, sizeof name, "rotate %s hd%zu %s %s q", c[i].name, hd,
                         implicit ? "implicit" : "positions", type_name(t));
                section(name, qo, 0, qn, t);
                name[strlen(name) - 1] = 'k';
                section(name, k_m, 0, kn, t);
                clReleaseMemObject(q_m), clReleaseMemObject(k_m), clReleaseMemObject(qo);
                free(q), free(k);
                sinpe_table_release(table);
            }
    clReleaseMemObject(pos_m);
}

/* ---- Fused outputs ---- */

enum { VOCAB = 40, PAD = 1 };

/* Weights of type w for vocab rows of dim (a multiple of 32 for Q8_0), and
   in *scales one float scale per row where the type takes them. */
static void *weights_of(sinpe_dtype w, size_t dim, size_t *bytes, float *scales)
{
    size_t n = VOCAB * dim;
    if (w <= SINPE_BF16) {
        *bytes = n * type_bytes(w);
        return random_values(w, n);
    }
    *bytes = sinpe_dtype_bytes(w, n);
    unsigned char *v = xcalloc(*bytes, 1);
    for (size_t i = 0; i < *bytes; i++) {
        unsigned char x = (unsigned char)next();
        if (w == SINPE_FP8_E4M3 && (x & 0x7f) == 0x7f)
            x ^= 1; /* no NaN */
        if (w == SINPE_FP8_E5M2 && (x & 0x7c) == 0x7c)
            x ^= 0x40; /* no infinity or NaN */
        v[i] = x;
    }
    if (w == SINPE_Q8_0)
        for (size_t blk = 0; blk < *bytes / 34; blk++) {
            uint64_t r = next(); /* the block's fp16 scale: 2^-10 .. 2^-5 */
            uint16_t d = (uint16_t)((5u + r % 6u) << 10 | (r >> 8 & 0x3ffu));
            v[blk * 34] = (unsigned char)(d & 0xff);
            v[blk * 34 + 1] = (unsigned char)(d >> 8);
        }
    for (size_t r = 0; r < VOCAB; r++)
        scales[r] = 0.001f + (float)(next() >> 44) / 1048576.0f * 0.05f;
    return v;
}

static void fused(void)
{
    static const sinpe_dtype weight_types[] = {SINPE_F32,     SINPE_F16,      SINPE_BF16,
                                               SINPE_I8,      SINPE_Q8_0,     SINPE_FP8_E4M3,
                                               SINPE_FP8_E5M2};
    static const struct {
        const char *name;
        sinpe_preset preset;
        int source; /* 0 implicit from start, 1 the positions buffer, 2 fairseq */
    } modes[] = {{"fairseq", SINPE_PRESET_FAIRSEQ, 2},
                 {"vaswani-positions", SINPE_PRESET_VASWANI, 1},
                 {"t2t-implicit", SINPE_PRESET_TENSOR2TENSOR, 0}};
    static const size_t fdims[] = {96, 1023};
    int32_t ids[TOKENS];
    /* Left-padded sequences (fairseq), a pad id inside too, every id valid. */
    for (int r = 0; r < TOKENS; r++)
        ids[r] = r % LEN < r / LEN ? PAD : (int32_t)(2 + (r * 7) % (VOCAB - 2));
    ids[LEN + 3] = PAD;
    cl_mem ids_m = from_host(ids, sizeof ids), pos_m = from_host(positions, sizeof positions);
    for (size_t d = 0; d < sizeof fdims / sizeof fdims[0]; d++)
        for (size_t w = 0; w < sizeof weight_types / sizeof weight_types[0]; w++) {
            size_t dim = fdims[d], wbytes;
            float scales[VOCAB];
            sinpe_dtype wt = weight_types[w];
            if (wt == SINPE_Q8_0 && dim % 32)
                continue;
            void *weights = weights_of(wt, dim, &wbytes, scales);
            cl_mem w_m = from_host(weights, wbytes), s_m = from_host(scales, sizeof scales);
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
                sinpe_spec spec;
                sinpe_table *table;
                must(sinpe_spec_preset(&spec, modes[m].preset, dim), "sinpe_spec_preset");
                must(sinpe_table_create(ctx, &spec, TABLE_ROWS, &table), "sinpe_table_create");
                for (size_t o = 0; o < N_OUT; o++) {
                    sinpe_embed_args a;
                    char name[200];
                    cl_mem out = poisoned(TOKENS * dim * type_bytes(out_types[o]));
                    sinpe_embed_args_init(&a);
                    must(sinpe_embed_args_preset(&a, modes[m].preset, dim, PAD),
                         "sinpe_embed_args_preset");
                    a.n_seqs = SEQS, a.seq_len = LEN, a.ids = ids_m, a.weights = w_m;
                    a.vocab = VOCAB, a.out = out, a.weights_dtype = wt, a.out_dtype = out_types[o];
                    if (wt == SINPE_I8 || wt == SINPE_FP8_E4M3)
                        a.weight_scales = s_m;
                    if (wt == SINPE_FP8_E5M2)
                        a.weights_scale = 0.03125f;
                    if (modes[m].source == 1)
                        a.positions = pos_m;
                    else if (modes[m].source == 0)
                        a.start = TABLE_ROWS - 2;
                    must(sinpe_enqueue_embed(table, queue, &a, 0, NULL, NULL),
                         "sinpe_enqueue_embed");
                    snprintf(name, sizeof name, "embed %s d%zu %s->%s", modes[m].name, dim,
                             type_name(wt), type_name(out_types[o]));
                    section(name, out, 0, TOKENS * dim, out_types[o]);
                    clReleaseMemObject(out);
                }
                sinpe_table_release(table);
            }
            clReleaseMemObject(w_m), clReleaseMemObject(s_m), free(weights);
        }
    clReleaseMemObject(ids_m), clReleaseMemObject(pos_m);
}

/* ---- Comparing two dumps ---- */

typedef struct {
    char *text; /* the whole file */
    size_t len, at;
    char head[600];
} reader;

static int open_dump(reader *r, const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    memset(r, 0, sizeof *r);
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "samebits: cannot read %s\n", path);
        return -1;
    }
    r->text = xcalloc((size_t)n + 1, 1);
    r->len = fread(r->text, 1, (size_t)n, f);
    fclose(f);
    char *nl = memchr(r->text, '\n', r->len);
    if (!nl || strncmp(r->text, MAGIC " ", strlen(MAGIC) + 1) != 0) {
        fprintf(stderr, "samebits: %s is not a samebits dump\n", path);
        return -1;
    }
    snprintf(r->head, sizeof r->head, "%.*s", (int)(nl - r->text - strlen(MAGIC) - 1),
             r->text + strlen(MAGIC) + 1);
    r->at = (size_t)(nl - r->text) + 1;
    return 0;
}

/* The next section: its name (in place, NUL-terminated), value size, count
   and values.  0 at the end, -1 on a malformed file. */
static int next_section(reader *r, char **name, size_t *b, size_t *n, const unsigned char **v)
{
    if (r->at >= r->len)
        return 0;
    char *line = r->text + r->at, *nl = memchr(line, '\n', r->len - r->at), *tab1, *tab2;
    if (!nl)
        return -1;
    *nl = '\0';
    if (!(tab1 = strchr(line, '\t')) || !(tab2 = strchr(tab1 + 1, '\t')))
        return -1;
    *tab1 = *tab2 = '\0';
    *name = line;
    *b = strtoul(tab1 + 1, NULL, 10);
    *n = strtoul(tab2 + 1, NULL, 10);
    r->at = (size_t)(nl - r->text) + 1;
    if ((*b != 2 && *b != 4) || *n > (r->len - r->at) / *b)
        return -1;
    *v = (const unsigned char *)r->text + r->at;
    r->at += *b * *n;
    return 1;
}

static int compare(const char *path_a, const char *path_b)
{
    reader a, b;
    size_t compared = 0, differ = 0, nsec = 0, bad_sections = 0;
    if (open_dump(&a, path_a) != 0 || open_dump(&b, path_b) != 0)
        return 1;
    printf("samebits: %s\n      vs  %s\n", a.head, b.head);
    /* "MATH\tPLATFORM / DEVICE": the math must agree, the platforms not. */
    const char *ta = strchr(a.head, '\t'), *tb = strchr(b.head, '\t');
    if (!ta || !tb || ta - a.head != tb - b.head || strncmp(a.head, b.head, ta - a.head) != 0) {
        fprintf(stderr, "samebits: the dumps were made with different math paths\n");
        return 1;
    }
    if (strcspn(ta, "/") == strcspn(tb, "/") && strncmp(ta, tb, strcspn(ta, "/")) == 0) {
        fprintf(stderr, "samebits: both dumps come from one platform: nothing is compared\n");
        return 1;
    }
    for (;;) {
        char *na, *nb;
        size_t ba, bb, ca, cb;
        const unsigned char *va, *vb;
        int ra = next_section(&a, &na, &ba, &ca, &va), rb = next_section(&b, &nb, &bb, &cb, &vb);
        if (ra < 0 || rb < 0) {
            fprintf(stderr, "samebits: a malformed dump (%s)\n", ra < 0 ? path_a : path_b);
            return 1;
        }
        if (ra == 0 && rb == 0)
            break;
        if (ra == 0 || rb == 0 || strcmp(na, nb) != 0 || ba != bb || ca != cb) {
            fprintf(stderr, "samebits: the dumps hold different sections: \"%s\" and \"%s\"\n",
                    ra ? na : "(end)", rb ? nb : "(end)");
            return 1;
        }
        size_t here = 0;
        for (size_t i = 0; i < ca; i++)
            if (memcmp(va + i * ba, vb + i * ba, ba) != 0 && here++ < 3) {
                uint32_t xa = 0, xb = 0;
                memcpy(&xa, va + i * ba, ba); /* little-endian hosts: the low bytes */
                memcpy(&xb, vb + i * ba, ba);
                printf("  %s: value %zu: 0x%0*x vs 0x%0*x\n", na, i, (int)(2 * ba), xa,
                       (int)(2 * ba), xb);
            }
        nsec++;
        compared += ca;
        differ += here;
        bad_sections += here > 0;
        if (here)
            printf("  %s: %zu of %zu values differ\n", na, here, ca);
    }
    printf("samebits: %zu values compared in %zu sections, %zu differ (in %zu sections)\n",
           compared, nsec, differ, bad_sections);
    free(a.text), free(b.text);
    return differ == 0 && compared > 0 ? 0 : 1;
}

/* ------------------------------------------------------------------------ */

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--math float|fp64] FILE\n       %s --compare FILE1 FILE2\n",
            argv0, argv0);
    return 2;
}

int main(int argc, char **argv)
{
    sinpe_context_options o;
    const char *path;
    char pname[256] = "", dname[256] = "";
    cl_platform_id platform;
    cl_int err;

    if (argc == 4 && strcmp(argv[1], "--compare") == 0)
        return compare(argv[2], argv[3]);
    sinpe_context_options_init(&o);
    if (argc == 4 && strcmp(argv[1], "--math") == 0 &&
        (strcmp(argv[2], "float") == 0 || strcmp(argv[2], "fp64") == 0)) {
        o.math = argv[2][0] == 'f' && argv[2][1] == 'p' ? SINPE_MATH_FP64 : SINPE_MATH_FLOAT;
        path = argv[3];
    } else if (argc == 2 && argv[1][0] != '-') {
        path = argv[1];
    } else {
        return usage(argv[0]);
    }
    must(sinpe_context_create(&o, &ctx), "sinpe_context_create");
    queue = clCreateCommandQueue(sinpe_context_cl_context(ctx), sinpe_context_device(ctx), 0,
                                 &err);
    if (!cl_ok(err, "clCreateCommandQueue"))
        return 1;
    clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_PLATFORM, sizeof platform, &platform,
                    NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    if (!(dump = fopen(path, "wb"))) {
        fprintf(stderr, "samebits: cannot write %s\n", path);
        return 1;
    }
    fprintf(dump, "%s %s\t%s / %s\n", MAGIC,
            sinpe_context_math(ctx) == SINPE_MATH_FP64 ? "fp64" : "float", pname, dname);

    rng_state = 0x5a3eb175ull;
    absolute_tables();
    timesteps();
    rope_tables();
    rotations();
    fused();

    if (fclose(dump) != 0) {
        fprintf(stderr, "samebits: cannot write %s\n", path);
        return 1;
    }
    printf("samebits: %zu values in %ld sections from %s / %s (%s math), tuning %s\n", values,
           sections, pname, dname, sinpe_context_math(ctx) == SINPE_MATH_FP64 ? "fp64" : "float",
           sinpe_context_tuning(ctx));
    clReleaseCommandQueue(queue);
    sinpe_context_release(ctx);
    return failures ? 1 : 0;
}
