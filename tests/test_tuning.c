/* test_tuning.c -- the tuning record (src/tuning.c, tuning_source.c,
 * plan.c): its text form, the database and its lookup, where a context's
 * record comes from (override, the device's tuning file, the database), and
 * the host-kernel contract of kernels/abi.h checked on the device. */
#include "test_util.h"
#include "sinpe_internal.h"
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- The text form and the database ---- */

static const char *const full =
    "seqs = 2; table_seqs = 4; general = two_pass; stream = 0; stream_lines = 4; stream_bytes = 123; "
    "decode = rows; "
    "decode_tokens = 17; bf16 = scalar; table_tile = 8; aligned = 1; wide16 = 16; "
    "rope_pairs = 64; prefetch = 1; stream_prefetch = 1; grid_span = rows; grid_image_bytes = 4096; "
    "attn_heads = 16";

START_TEST(tuning_text_round_trip)
{
    sinpe__record a, b;
    char text[SINPE__VARIANT];
    ck_assert_int_eq(sinpe__record_parse(full, &a), 0);
    ck_assert(sinpe__record_complete(&a));
    ck_assert_uint_eq(a.t.seqs, 2);
    ck_assert_uint_eq(a.t.general, SINPE_TWO_PASS);
    ck_assert_uint_eq(a.t.stream_lines, 4);
    ck_assert_uint_eq(a.t.stream_bytes, 123);
    ck_assert_uint_eq(a.t.grid_image_bytes, 4096);
    ck_assert_uint_eq(a.t.decode, SINPE_DECODE_ROWS);
    ck_assert_uint_eq(a.t.decode_tokens, 17);
    ck_assert_uint_eq(a.t.bf16, SINPE_BF16_SCALAR);
    ck_assert_uint_eq(a.t.table_tile, 8);
    ck_assert_uint_eq(a.t.aligned, 1);
    ck_assert_uint_eq(a.t.wide16, 16);
    ck_assert_uint_eq(a.t.rope_pairs, 64);
    ck_assert_uint_eq(a.t.prefetch, 1);
    ck_assert_uint_eq(a.t.stream_prefetch, 1);
    ck_assert_uint_eq(a.t.grid_span, SINPE_GRID_ROWS);
    ck_assert_uint_eq(a.t.attn_heads, 16);
    ck_assert_uint_lt(sinpe__tuning_format(&a.t, text, sizeof text), sizeof text);
    ck_assert_int_eq(sinpe__record_parse(text, &b), 0);
    ck_assert(sinpe__record_complete(&b));
    ck_assert(memcmp(&a.t, &b.t, sizeof a.t) == 0);

    /* Newlines, comments, blanks and key fields; only what is given is set. */
    ck_assert_int_eq(sinpe__record_parse("# a comment; seqs = 4\n  name = x # y\n\n"
                                         "type=cpu;;\nseqs=2 # two\n",
                                         &a),
                     0);
    ck_assert_uint_eq(a.set, 1u);
    ck_assert_uint_eq(a.t.seqs, 2);
    ck_assert_str_eq(a.name, "x");
    ck_assert_str_eq(a.type, "cpu");
    ck_assert(!sinpe__record_complete(&a));
}
END_TEST

START_TEST(tuning_text_errors)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"seqs = 3", "line 1: seqs = \"3\" is not one of: 2 4"},
        {"seqs = 8", "seqs = \"8\""},
        {"general = both", "general = \"both\" is not one of: one_pass two_pass"},
        {"grid_span = 16", "grid_span = \"16\" is not one of: columns rows"},
        {"attn_heads = 4", "attn_heads = \"4\" is not one of: 1 16"},
        {"stream_bytes = -1", "stream_bytes = \"-1\" is not one of: a whole number"},
        {"stream_bytes = 12x", "stream_bytes"},
        {"stream_bytes = 99999999999999999999999", "stream_bytes"},
        {"\n\nfoo = 1", "line 3: unknown key \"foo\""},
        {"seqs 4", "line 1: no '=' in \"seqs 4\""},
        {"vec = 4", "unknown key \"vec\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sinpe__record r;
        ck_assert_msg(sinpe__record_parse(bad[i].text, &r) == -1, "\"%s\" parsed", bad[i].text);
        ck_assert_msg(strstr(r.why, bad[i].why) != NULL, "\"%s\": why \"%s\"", bad[i].text,
                      r.why);
    }
}
END_TEST

/* Every database record is complete and named; no two share a name. */
START_TEST(tuning_database_complete)
{
    size_t n = 0;
    for (size_t i = 0; sinpe__database[i]; i++, n++) {
        sinpe__record r;
        ck_assert_msg(sinpe__record_parse(sinpe__database[i], &r) == 0, "record %zu: %s", i,
                      r.why);
        ck_assert_msg(sinpe__record_complete(&r), "record %zu (%s) leaves a parameter out", i,
                      r.name);
        ck_assert_msg(r.name[0], "record %zu has no name", i);
        ck_assert_msg(strcmp(r.type, "cpu") == 0 || strcmp(r.type, "gpu") == 0,
                      "record %s: type \"%s\"", r.name, r.type);
        ck_assert_msg(!r.device[0] || r.vendor[0], "record %s names a device, no vendor",
                      r.name);
        for (size_t j = 0; j < i; j++) {
            sinpe__record o;
            ck_assert_int_eq(sinpe__record_parse(sinpe__database[j], &o), 0);
            ck_assert_msg(strcmp(o.name, r.name) != 0, "two records named %s", r.name);
        }
    }
    ck_assert_uint_ge(n, 2);
}
END_TEST

/* A value stays in a parameter's list only while some record takes it. */
START_TEST(tuning_values_taken)
{
    for (size_t p = 0; p < sinpe__n_params; p++) {
        const char *list = sinpe__params[p].values;
        if (strcmp(list, "#") == 0)
            continue;
        for (size_t v = 0;; v++) {
            char word[32], text[64];
            sinpe__record probe;
            int taken = 0;
            /* The v-th word of the list. */
            const char *s = list;
            size_t k = 0;
            while (*s && k < v) {
                s += strcspn(s, " ");
                s += strspn(s, " ");
                k++;
            }
            if (!*s)
                break;
            snprintf(word, sizeof word, "%.*s", (int)strcspn(s, " "), s);
            snprintf(text, sizeof text, "%s = %s", sinpe__params[p].name, word);
            ck_assert_int_eq(sinpe__record_parse(text, &probe), 0);
            for (size_t i = 0; sinpe__database[i] && !taken; i++) {
                sinpe__record r;
                ck_assert_int_eq(sinpe__record_parse(sinpe__database[i], &r), 0);
                taken = *sinpe__param_field(&r.t, p) == *sinpe__param_field(&probe.t, p);
            }
            ck_assert_msg(taken, "%s = %s: no database record takes it", sinpe__params[p].name,
                          word);
        }
    }
}
END_TEST

static const char *lookup(const char *vendor, cl_device_type type, const char *device)
{
    static sinpe__record r;
    ck_assert_int_eq(sinpe__database_lookup(vendor, type, device, &r), 0);
    return r.name;
}

START_TEST(tuning_database_lookup)
{
    ck_assert_str_eq(lookup("NVIDIA Corporation", CL_DEVICE_TYPE_GPU, "NVIDIA H200"),
                     "nvidia-h200");
    ck_assert_str_eq(lookup("NVIDIA Corporation", CL_DEVICE_TYPE_GPU, "NVIDIA A100"), "gpu");
    ck_assert_str_eq(lookup("Advanced Micro Devices, Inc.", CL_DEVICE_TYPE_GPU, "gfx90a"),
                     "gpu");
    ck_assert_str_eq(lookup("Some Vendor", CL_DEVICE_TYPE_ACCELERATOR, "fpga"), "gpu");
    ck_assert_str_eq(lookup("GenuineIntel", CL_DEVICE_TYPE_CPU,
                            "pthread-skylake-avx512-Intel(R) Xeon(R) Processor"),
                     "pocl-xeon-skylake");
    ck_assert_str_eq(lookup("AuthenticAMD", CL_DEVICE_TYPE_CPU, "pthread-znver3-AMD EPYC 7B13"),
                     "pocl-epyc-zen3");
    /* A device name with another vendor does not match. */
    ck_assert_str_eq(lookup("AuthenticAMD", CL_DEVICE_TYPE_CPU,
                            "pthread-skylake-avx512-Intel(R) Xeon(R) Processor"),
                     "cpu");
    ck_assert_str_eq(lookup("GenuineIntel", CL_DEVICE_TYPE_CPU, "pthread-haswell-Intel Core"),
                     "cpu");
    /* The type decides before the name. */
    ck_assert_str_eq(lookup("NVIDIA Corporation", CL_DEVICE_TYPE_CPU, "NVIDIA H200"), "cpu");
}
END_TEST

/* ---- Where a context's record comes from ---- */

static char scratch[512];
static const char *const env_names[] = {"SINPE_CACHE_DIR", "SINPE_TUNING"};
static char *env_saved[2];
static int run_cache; /* the run's contexts use sinpe's program cache */

/* Copies every program entry ("*.bin") of the cache directory dir into
   the scratch directory. */
static void copy_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        char from[1024], to[1024], buf[65536];
        FILE *in, *out;
        if (n < 5 || strcmp(e->d_name + n - 4, ".bin") != 0)
            continue;
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        snprintf(to, sizeof to, "%s/%s", scratch, e->d_name);
        if ((in = fopen(from, "rb")) == NULL)
            continue;
        ck_assert_msg((out = fopen(to, "wb")) != NULL, "%s: %s", to, strerror(errno));
        for (size_t got; (got = fread(buf, 1, sizeof buf, in)) > 0;)
            ck_assert_uint_eq(fwrite(buf, 1, got, out), got);
        fclose(in);
        ck_assert_int_eq(fclose(out), 0);
    }
    if (d)
        closedir(d);
}

/* The contexts here find their tuning files in the scratch directory,
 * SINPE_CACHE_DIR, which is then their program cache too.  Where the run's
 * contexts use sinpe's program cache (tests/main.c: not on pocl), the
 * scratch directory starts with a copy of the run's entries and these
 * contexts use it as well, so that a record the run has built is loaded,
 * not built again (over a minute a context on Intel's compiler, which
 * made these tests time out); where they do not, neither do these
 * (no_disk_cache).  A program's entry is keyed by its build options, so
 * what a record makes of the kernels is never mistaken for another's. */
static void setup(void)
{
    cl_platform_id platform;
    cl_device_id device;
    sinpe__cache cache;
    tu_env_save(env_names, 2, env_saved);
    unsetenv("SINPE_TUNING");
    tu_scratch_dir(scratch, sizeof scratch, "sinpe_tuning_");
    ck_assert_int_eq(sinpe__device_pick(NULL, &platform, &device), SINPE_SUCCESS);
    sinpe__cache_open(&cache, device, "");
    run_cache = cache.path[0] != '\0';
    if (run_cache) {
        cache.path[cache.dir_len] = '\0';
        copy_entries(cache.path);
    }
    sinpe__cache_close(&cache);
    ck_assert_int_eq(setenv("SINPE_CACHE_DIR", scratch, 1), 0);
}

static void teardown(void)
{
    tu_remove_tree(scratch);
    tu_env_restore(env_names, 2, env_saved);
}

static sinpe_context *context_with(const char *tuning, sinpe_status want)
{
    sinpe_context_options o;
    sinpe_context *ctx = NULL;
    sinpe_context_options_init(&o);
    o.tuning = tuning;
    o.no_disk_cache = !run_cache;
    ck_assert_int_eq(sinpe_context_create(&o, &ctx), want);
    return ctx;
}

/* Asserts that the context's record text starts with from and holds want. */
static void check_tuning(const sinpe_context *ctx, const char *from, const char *want)
{
    const char *t = sinpe_context_tuning(ctx);
    ck_assert_msg(strncmp(t, from, strlen(from)) == 0, "\"%s\" does not start with \"%s\"", t,
                  from);
    ck_assert_msg(strstr(t, want) != NULL, "\"%s\" lacks \"%s\"", t, want);
}

START_TEST(tuning_override)
{
    sinpe_context *a = context_with(NULL, SINPE_SUCCESS);
    sinpe_context *b = context_with("seqs = 2; table_tile = 8", SINPE_SUCCESS);
    check_tuning(a, "from=database ", "; seqs=");
    check_tuning(b, "from=options.tuning over database ", "; seqs=2;");
    check_tuning(b, "from=", "; table_tile=8");
    /* The text is itself a valid override, and gives the same record. */
    {
        sinpe_context *c = context_with(sinpe_context_tuning(b), SINPE_SUCCESS);
        ck_assert_str_eq(strchr(sinpe_context_tuning(c), ';'),
                         strchr(sinpe_context_tuning(b), ';'));
        sinpe_context_release(c);
    }
    ck_assert_ptr_null(context_with("seqs = 5", SINPE_INVALID_OPTION));
    TU_MESSAGE_HAS("options.tuning: line 1: seqs");

    /* SINPE_TUNING when options.tuning is NULL; "" overrides nothing. */
    setenv("SINPE_TUNING", "aligned = 1", 1);
    sinpe_context *e = context_with(NULL, SINPE_SUCCESS);
    check_tuning(e, "from=SINPE_TUNING over database ", "; aligned=1");
    sinpe_context *f = context_with("", SINPE_SUCCESS);
    ck_assert_str_eq(sinpe_context_tuning(f), sinpe_context_tuning(a));
    setenv("SINPE_TUNING", "aligned = 2", 1);
    ck_assert_ptr_null(context_with(NULL, SINPE_INVALID_OPTION));
    TU_MESSAGE_HAS("SINPE_TUNING: line 1: aligned");
    setenv("SINPE_TUNING", "grid_span = whole", 1);
    ck_assert_ptr_null(context_with(NULL, SINPE_INVALID_OPTION));
    TU_MESSAGE_HAS("SINPE_TUNING: line 1: grid_span = \"whole\" is not one of: columns rows");
    setenv("SINPE_TUNING", "attn_heads = 32", 1);
    ck_assert_ptr_null(context_with(NULL, SINPE_INVALID_OPTION));
    TU_MESSAGE_HAS("SINPE_TUNING: line 1: attn_heads = \"32\" is not one of: 1 16");
    unsetenv("SINPE_TUNING");
    ck_assert_str_eq(sinpe_context_tuning(NULL), "");
    sinpe_context_release(a);
    sinpe_context_release(b);
    sinpe_context_release(e);
    sinpe_context_release(f);
}
END_TEST

/* Rewrites the file at path with its line starting with prefix replaced
   by line (NULL: removed) or, prefix NULL, with text. */
static void rewrite(const char *path, const char *prefix, const char *line)
{
    char *text = tu_read_text(path), *out;
    ck_assert_ptr_nonnull(text);
    out = tu_malloc(strlen(text) + (line ? strlen(line) : 0) + 2);
    out[0] = '\0';
    if (!prefix) {
        strcpy(out, line);
    } else {
        for (char *s = text; *s;) {
            size_t n = strcspn(s, "\n");
            if (strncmp(s, prefix, strlen(prefix)) == 0) {
                if (line)
                    strcat(strcat(out, line), "\n");
            } else {
                strncat(out, s, n + (s[n] == '\n'));
            }
            s += n + (s[n] == '\n');
        }
    }
    tu_write_file(path, out, strlen(out));
    free(out);
    free(text);
}

START_TEST(tuning_file)
{
    char path[1024], want[1100];
    sinpe_context *a = context_with(NULL, SINPE_SUCCESS), *b, *c;
    struct stat sb;
    check_tuning(a, "from=database ", "");

    /* Saved for the device, read by the next context. */
    ck_assert_int_eq(sinpe_tuning_save(a, full, path, sizeof path), SINPE_SUCCESS);
    ck_assert_str_eq(sinpe_last_error(), "");
    ck_assert_msg(strncmp(path, scratch, strlen(scratch)) == 0 &&
                      strstr(path, "/tuning-") && strstr(path, ".txt"),
                  "path %s", path);
    ck_assert_int_eq(stat(path, &sb), 0);
    b = context_with(NULL, SINPE_SUCCESS);
    snprintf(want, sizeof want, "from=file %s; ", path);
    check_tuning(b, want, "seqs=2; table_seqs=4; general=two_pass; stream=0; stream_lines=4; "
                          "stream_bytes=123; decode=rows; "
                          "decode_tokens=17; bf16=scalar; table_tile=8; aligned=1; wide16=16; "
                          "rope_pairs=64; prefetch=1; stream_prefetch=1; grid_span=rows; "
                          "grid_image_bytes=4096; attn_heads=16");
    sinpe_context_release(b);

    /* An override goes over the file. */
    b = context_with("seqs = 4", SINPE_SUCCESS);
    snprintf(want, sizeof want, "from=options.tuning over file %s; ", path);
    check_tuning(b, want, "seqs=4; table_seqs=4; general=two_pass; stream=0; stream_lines=4; "
                          "stream_bytes=123;");
    sinpe_context_release(b);

    /* Damaged, incomplete, stale or foreign: ignored, and said so. */
    static const struct {
        const char *prefix, *line, *why;
    } broken[] = {
        {"seqs", "seqs = 16", "(line "},
        {"aligned", NULL, "(does not set every parameter)"},
        {"key", "key = 0123456789abcdef", "(stale or foreign: its key is not this device's)"},
        {NULL, "\x01\x02 garbage", "(line 1: no '='"},
    };
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        ck_assert_int_eq(sinpe_tuning_save(a, full, NULL, 0), SINPE_SUCCESS);
        rewrite(path, broken[i].prefix, broken[i].line);
        c = context_with(NULL, SINPE_SUCCESS);
        snprintf(want, sizeof want, "; ignored=%s %s", path, broken[i].why);
        check_tuning(c, "from=database ", want);
        sinpe_context_release(c);
    }

    /* NULL deletes it. */
    ck_assert_int_eq(sinpe_tuning_save(a, NULL, path, sizeof path), SINPE_SUCCESS);
    ck_assert_int_ne(stat(path, &sb), 0);
    ck_assert_int_eq(sinpe_tuning_save(a, NULL, NULL, 0), SINPE_SUCCESS);
    c = context_with(NULL, SINPE_SUCCESS);
    ck_assert_str_eq(sinpe_context_tuning(c), sinpe_context_tuning(a));
    sinpe_context_release(c);

    /* Bad records and no directory. */
    ck_assert_int_eq(sinpe_tuning_save(NULL, full, NULL, 0), SINPE_NULL_ARGUMENT);
    ck_assert_int_eq(sinpe_tuning_save(a, "seqs = 3", NULL, 0), SINPE_INVALID_OPTION);
    TU_MESSAGE_HAS("record: line 1: seqs");
    ck_assert_int_eq(sinpe_tuning_save(a, "seqs = 4", NULL, 0), SINPE_INVALID_OPTION);
    TU_MESSAGE_HAS("every parameter");
    setenv("SINPE_CACHE_DIR", "off", 1);
    ck_assert_int_eq(sinpe_tuning_save(a, full, path, sizeof path), SINPE_UNSUPPORTED);
    ck_assert_str_eq(path, "");
    sinpe_context_release(a);
}
END_TEST

/* ---- The parameter block on the device ---- */

/* kernels/abi.h defines the parameter block for both sides: a kernel built
 * from that file reads a block the host filled, field by field, and writes
 * every field back; each comes back as it went in. */
START_TEST(tuning_abi_layout)
{
    static const char *const kernel =
        "\nkernel void echo(sinpe_embed_params a, global ulong *out)\n"
        "{\n"
        "    out[0] = a.ids_off; out[1] = a.e_off; out[2] = a.e_stride; out[3] = a.out_off;\n"
        "    out[4] = a.out_stride; out[5] = a.pos.pos_off; out[6] = a.pos.seq_start_off;\n"
        "    out[7] = a.pos.pad_count_off; out[8] = (ulong)a.vocab; out[9] = (ulong)a.vocab_start;\n"
        "    out[10] = (ulong)a.tab_rows; out[11] = (ulong)a.pos.start; out[12] = (ulong)a.pad_id;\n"
        "    out[13] = (ulong)a.pad_policy; out[14] = (ulong)a.flags; out[15] = a.dim;\n"
        "    out[16] = a.pos.seq_len; out[17] = a.n_seqs; out[18] = as_uint(a.scale);\n"
        "    out[19] = sizeof(sinpe_embed_params); out[20] = a.ws_off;\n"
        "    out[21] = (ulong)a.ws_type; out[22] = as_uint(a.wscale); out[23] = (ulong)a.pos.flags;\n"
        "    out[24] = (ulong)a.part[0]; out[25] = (ulong)a.part[1]; out[26] = (ulong)a.part[2];\n"
        "}\n";
    char *abi = tu_read_text("kernels/abi.h");
    if (!abi)
        abi = tu_read_text("../kernels/abi.h");
    ck_assert_msg(abi != NULL, "kernels/abi.h not found from the working directory");
    char *src = tu_malloc(strlen(abi) + strlen(kernel) + 1);
    strcat(strcpy(src, abi), kernel);

    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    cl_context cl = sinpe_context_cl_context(ctx);
    cl_device_id dev = sinpe_context_device(ctx);
    cl_int err;
    const char *srcs[1] = {src};
    cl_program prog = clCreateProgramWithSource(cl, 1, srcs, NULL, &err);
    TU_CL(err);
    TU_CL(clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "echo", &err);
    TU_CL(err);

    sinpe_embed_params p;
    float scale = -3.25f;
    cl_uint scale_bits;
    memcpy(&scale_bits, &scale, sizeof scale);
    memset(&p, 0xCC, sizeof p);
    p.ids_off = 0x0101010101ull, p.e_off = 0x0202020202ull, p.e_stride = 0x0303030303ull;
    p.out_off = 0x0404040404ull, p.out_stride = 0x0505050505ull, p.pos.pos_off = 0x0606060606ull;
    p.pos.seq_start_off = 0x0707070707ull, p.pos.pad_count_off = 0x0808080808ull;
    p.vocab = 9, p.vocab_start = 10, p.tab_rows = 11, p.pos.start = 12, p.pad_id = 13;
    p.pad_policy = 14, p.flags = 15, p.dim = 16, p.pos.seq_len = 17, p.n_seqs = 18;
    p.scale = scale, p.ws_off = 0x1414141414ull, p.ws_type = 21, p.wscale = -scale;
    p.pos.flags = 24;
    p.part[0] = 25, p.part[1] = 26, p.part[2] = 27;
    const cl_ulong want[27] = {0x0101010101ull, 0x0202020202ull, 0x0303030303ull,
                               0x0404040404ull, 0x0505050505ull, 0x0606060606ull,
                               0x0707070707ull, 0x0808080808ull, 9, 10, 11, 12, 13, 14, 15, 16,
                               17, 18, scale_bits, sizeof p, 0x1414141414ull, 21,
                               scale_bits ^ 0x80000000u, 24, 25, 26, 27};
    cl_ulong got[27];
    cl_command_queue q = tu_queue(ctx);
    cl_mem out = tu_buffer(ctx, sizeof got, NULL);
    size_t one = 1;
    tu_kernel_args(k, 2, (const void *const[]){&p, &out}, (const size_t[]){sizeof p, sizeof out});
    TU_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL));
    tu_read(q, out, 0, sizeof got, got);
    for (int i = 0; i < 27; i++)
        ck_assert_msg(got[i] == want[i], "field %d: the device read %llu, the host wrote %llu",
                      i, (unsigned long long)got[i], (unsigned long long)want[i]);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    TU_RELEASE(ctx, q, NULL, out);
    free(src);
    free(abi);
}
END_TEST

/* Every kernel the plans of every record reach exists in its program:
   the name of each slot held is the name of a kernel the source defines. */
START_TEST(tuning_kernels_named)
{
    for (int k = 0; k < sinpe__kernel_count; k++) {
        const char *name = sinpe__kernels[k].name;
        ck_assert_msg(strncmp(name, "sinpe_", 6) == 0, "slot %d: %s", k, name);
        for (int j = 0; j < k; j++)
            ck_assert_msg(strcmp(name, sinpe__kernels[j].name) != 0, "%s twice", name);
        ck_assert_msg(strstr(sinpe__kernel_source, name) != NULL, "%s is not in the source",
                      name);
    }
}
END_TEST

TU_SUITE(tuning, 112)
{
    Suite *s = suite_create("tuning");
    TCase *tc = tcase_create("text and database");
    TU_ADD(tc, tuning_text_round_trip, tuning_text_errors, tuning_database_complete,
           tuning_values_taken, tuning_database_lookup, tuning_kernels_named);
    suite_add_tcase(s, tc);

    tc = tu_tcase(s, "sources", NULL);
    tcase_add_checked_fixture(tc, setup, teardown);
    TU_ADD(tc, tuning_override, tuning_file);
    tcase_add_test(tu_tcase(s, "abi", NULL), tuning_abi_layout);
    return s;
}
