/* test_record.c -- the embedding calls recorded into a cl_khr_command_buffer
 * (sinpe_record_*): a recording replays with the ids, positions and
 * sequence starts the host writes before each replay and gives the bits of
 * the same call enqueued directly, also after other calls have reset the
 * shared kernels' arguments and after the table has grown; a gather +
 * add_positions chain through sync points gives the unfused pair's bits;
 * refused recordings leave the command buffer empty.  On a device without
 * the extension (or with a version sinpe does not record with) the calls
 * must answer SINPE_UNSUPPORTED, which is then all that is checked.  The
 * rotation (sinpe_record_rope) replays with the bits of its direct call. */
#include "sinpe_internal.h"
#include "record.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The extension's entry points the tests call, looked up on the device's
   platform: the same in every version sinpe accepts (0.9.0 to 1.0.0).  A
   command buffer is made with no properties (no simultaneous use, whose
   flag 0.9.8 took out of this extension) and each replay finishes before
   the next enqueue of it, as versions before 0.9.8 require. */
typedef void *(CL_API_CALL *create_fn)(cl_uint nq, const cl_command_queue *queues,
                                       const cl_ulong *properties, cl_int *err);
typedef cl_int(CL_API_CALL *buffer_fn)(void *cb);
typedef cl_int(CL_API_CALL *replay_fn)(cl_uint nq, cl_command_queue *queues, void *cb,
                                       cl_uint nwait, const cl_event *wait, cl_event *event);
typedef struct {
    create_fn create;
    buffer_fn finalize, release;
    replay_fn replay;
} cb_api;

/* What every recording test starts from, made by rec_open(): a context,
   a queue, a table of the paper's spec and the extension's entry points,
   with the references counted from before it all (Check forks each test). */
static tu_refs refs0;
static sinpe_context *ctx;
static cl_command_queue q;
static sinpe_table *tab;
static cb_api api;

static void *cb_new(cl_command_queue queue)
{
    cl_int err;
    void *cb = api.create(1, &queue, NULL, &err);
    TU_CL(err);
    return cb;
}

static void replay(void *cb)
{
    TU_CL(api.replay(0, NULL, cb, 0, NULL, NULL));
    TU_CL(clFinish(q));
}

/* Opens the above with a table of rows rows at dim; 0 when the device has
   no recording sinpe accepts, whose refusal is then all that is checked. */
static int rec_open(size_t dim, size_t rows)
{
    refs0 = tu_refs_now();
    ctx = tu_context(SINPE_MATH_AUTO);
    q = tu_queue(ctx);
    tab = tu_table(ctx, dim, rows);
    cl_platform_id platform;
    TU_CL(clGetDeviceInfo(sinpe_context_device(ctx), CL_DEVICE_PLATFORM, sizeof platform,
                          &platform, NULL));
#define LOOKUP(name) clGetExtensionFunctionAddressForPlatform(platform, name)
    api.create = (create_fn)LOOKUP("clCreateCommandBufferKHR");
    api.finalize = (buffer_fn)LOOKUP("clFinalizeCommandBufferKHR");
    api.release = (buffer_fn)LOOKUP("clReleaseCommandBufferKHR");
    api.replay = (replay_fn)LOOKUP("clEnqueueCommandBufferKHR");
#undef LOOKUP
    sinpe_embed_args a;
    sinpe_embed_args_init(&a);
    if (!api.create || !api.finalize || !api.release || !api.replay) {
        /* No entry points: sinpe must refuse. */
        TU_STATUS(sinpe_record_embed(tab, q, (struct _cl_command_buffer_khr *)q, &a, 0, NULL, NULL),
                  SINPE_UNSUPPORTED);
        printf("record: the device has no cl_khr_command_buffer; checked the refusal only\n");
        return 0;
    }
    /* A version sinpe does not record with is refused before the arguments. */
    void *cb = cb_new(q);
    sinpe_status st = sinpe_record_embed(tab, q, cb, &a, 0, NULL, NULL);
    api.release(cb);
    if (st == SINPE_UNSUPPORTED) {
        /* A version refused names the ones accepted. */
        if (strstr(sinpe_last_error(), "is version"))
            ck_assert_msg(strstr(sinpe_last_error(), SINPE__COMMAND_BUFFER_VERSIONS),
                          "message: %s", sinpe_last_error());
        printf("record: %s; checked the refusal only\n", sinpe_last_error());
        return 0;
    }
    ck_assert_int_eq(st, SINPE_INVALID_SHAPE); /* n_seqs 0 */
    return 1;
}

/* The end of a test, whether it recorded or not. */
static void rec_close(const char *what)
{
    tu_release(ctx, q, tab, NULL, 0);
    tu_refs_returned(refs0, what);
}

/* Releases a command buffer, then the buffers (TU_RELEASE's list). */
#define CB_RELEASE(api, cb, ...)                                                             \
    do {                                                                                     \
        (api).release(cb);                                                                   \
        TU_RELEASE(NULL, NULL, NULL, __VA_ARGS__);                                           \
    } while (0)

/* Asserts that the n floats of the recording's output got_m have the bits
   of the enqueued call's want_m; returns want_m's floats (free() them). */
static float *same_bits(cl_command_queue q, cl_mem got_m, cl_mem want_m, size_t n,
                        const char *what, int round)
{
    float *a = tu_read_floats(q, got_m, n), *b = tu_read_floats(q, want_m, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(memcmp(&a[i], &b[i], sizeof *a) == 0,
                      "%s, replay %d: element %zu: %a recorded, %a enqueued", what, round, i,
                      (double)a[i], (double)b[i]);
    free(a);
    return b;
}

START_TEST(record_replays)
{
    enum { DIM = 40, V = 30, NS = 4, SL = 3, N = NS * SL };
    if (!rec_open(DIM, 16))
        goto done;
    tu_rng rng = tu_rng_for("record");
    float w[V * DIM];
    tu_rng_floats(&rng, w, V * DIM, -1.0f, 1.0f);
    int32_t ids[N] = {0}, pos[N] = {0}, starts[NS] = {0}, zero = 0;
    cl_mem w_m = tu_buffer(ctx, sizeof w, w), ids_m = tu_buffer(ctx, sizeof ids, ids);
    cl_mem pos_m = tu_buffer(ctx, sizeof pos, pos), st_m = tu_buffer(ctx, sizeof starts, starts);
    cl_mem bad_m = tu_buffer(ctx, sizeof zero, &zero), bad2_m = tu_buffer(ctx, sizeof zero, &zero);
    cl_mem rec_m = tu_poisoned_buffer(ctx, q, N * DIM), dir_m = tu_poisoned_buffer(ctx, q, N * DIM);
    cl_mem pair_m = tu_poisoned_buffer(ctx, q, N * DIM), ref_m = tu_poisoned_buffer(ctx, q, N * DIM);

    sinpe_embed_args a = tu_args(NS, SL, ids_m, w_m, V, rec_m);
    a.positions = pos_m, a.seq_starts = st_m, a.bad_ids = bad_m;
    a.token_scale = 3.0f, a.start = 5;
    void *cb = cb_new(q), *cb2 = cb_new(q);
    cl_uint sp = 99, sp2 = 99;
    TU_OK(sinpe_record_embed(tab, q, cb, &a, 0, NULL, &sp));
    ck_assert_uint_ne(sp, 99);
    TU_CL(api.finalize(cb));
    /* The unfused pair, chained through a sync point. */
    sinpe_embed_args g = a;
    g.out = pair_m, g.bad_ids = NULL;
    TU_OK(sinpe_record_gather(tab, q, cb2, &g, 0, NULL, &sp2));
    TU_OK(sinpe_record_add_positions(tab, q, cb2, &g, 1, &sp2, NULL));
    TU_CL(api.finalize(cb2));

    for (int round = 0; round < 3; round++) {
        int n_bad = 0;
        for (int r = 0; r < N; r++) {
            ids[r] = r % 5 == 4 ? -1 - r : tu_rng_int(&rng, 0, V - 1);
            n_bad += ids[r] < 0;
            pos[r] = r % 3 == 0 ? tu_rng_int(&rng, 0, 8) : tu_rng_int(&rng, 9, 1 << 22);
        }
        tu_rng_ints(&rng, starts, NS, -4, 4000);
        float poison[N * DIM];
        tu_fill_poison(poison, N * DIM);
        tu_write(q, ids_m, 0, sizeof ids, ids), tu_write(q, pos_m, 0, sizeof pos, pos);
        tu_write(q, st_m, 0, sizeof starts, starts), tu_write(q, bad_m, 0, sizeof zero, &zero);
        tu_write(q, bad2_m, 0, sizeof zero, &zero), tu_write(q, rec_m, 0, sizeof poison, poison);
        tu_write(q, pair_m, 0, sizeof poison, poison);
        /* Direct calls first: they set the shared kernels' arguments anew. */
        sinpe_embed_args d = a;
        d.out = dir_m, d.bad_ids = bad2_m;
        TU_OK(sinpe_enqueue_embed(tab, q, &d, 0, NULL, NULL));
        d.out = ref_m, d.bad_ids = NULL;
        TU_OK(sinpe_enqueue_gather(tab, q, &d, 0, NULL, NULL));
        TU_OK(sinpe_enqueue_add_positions(tab, q, &d, 0, NULL, NULL));
        replay(cb);
        replay(cb2);
        float *want = same_bits(q, rec_m, dir_m, N * DIM, "fused", round);
        tu_check_layout(want, N * DIM, 0, DIM, N, DIM, "direct call");
        int32_t bad = -1;
        tu_read(q, bad_m, 0, sizeof bad, &bad);
        ck_assert_msg(bad == n_bad, "replay %d: bad_ids %d, expected %d", round, (int)bad, n_bad);
        free(same_bits(q, pair_m, ref_m, N * DIM, "gather + add", round));
        free(want);
        /* Growth between replays must not disturb the recording. */
        TU_OK(sinpe_table_reserve(tab, 300 + 700 * (size_t)round));
    }
    api.release(cb);
    CB_RELEASE(api, cb2, w_m, ids_m, pos_m, st_m, bad_m, bad2_m, rec_m, dir_m, pair_m, ref_m);
done:
    rec_close("record_replays");
}
END_TEST

/* Implicit positions past the table: the recording holds the rows it
   makes for itself, and replays with the bits of the direct call, also
   once the table has grown over those positions (the direct call then
   reads the table). */
START_TEST(record_past_table)
{
    enum { DIM = 36, V = 20, NS = 3, SL = 150, N = NS * SL };
    if (!rec_open(DIM, 16))
        goto done;
    tu_rng rng = tu_rng_for("record_past_table");
    float *w = tu_malloc(V * DIM * sizeof *w), *init = tu_malloc(N * DIM * sizeof *init);
    int32_t *ids = tu_malloc(N * sizeof *ids);
    tu_rng_floats(&rng, w, V * DIM, -1.0f, 1.0f);
    tu_rng_floats(&rng, init, N * DIM, -1.0f, 1.0f);
    cl_mem w_m = tu_buffer(ctx, V * DIM * sizeof *w, w);
    cl_mem ids_m = tu_buffer(ctx, N * sizeof *ids, NULL);
    cl_mem rec_m = tu_poisoned_buffer(ctx, q, N * DIM), dir_m = tu_poisoned_buffer(ctx, q, N * DIM);
    cl_mem radd_m = tu_buffer(ctx, N * DIM * sizeof *init, init);
    cl_mem dadd_m = tu_buffer(ctx, N * DIM * sizeof *init, init);
    sinpe_embed_args a = tu_args(NS, SL, ids_m, w_m, V, rec_m);
    a.start = 1000; /* across a block edge, past the table's 128 rows */
    sinpe_embed_args add = a;
    add.out = radd_m;
    void *cb = cb_new(q), *cb2 = cb_new(q);
    TU_OK(sinpe_record_embed(tab, q, cb, &a, 0, NULL, NULL));
    TU_OK(sinpe_record_add_positions(tab, q, cb2, &add, 0, NULL, NULL));
    TU_CL(api.finalize(cb));
    TU_CL(api.finalize(cb2));
    for (int round = 0; round < 3; round++) {
        tu_rng_ints(&rng, ids, N, 0, V - 1);
        tu_write(q, ids_m, 0, N * sizeof *ids, ids);
        tu_write(q, radd_m, 0, N * DIM * sizeof *init, init);
        tu_write(q, dadd_m, 0, N * DIM * sizeof *init, init);
        sinpe_embed_args d = a;
        d.out = dir_m;
        TU_OK(sinpe_enqueue_embed(tab, q, &d, 0, NULL, NULL));
        d.out = dadd_m;
        TU_OK(sinpe_enqueue_add_positions(tab, q, &d, 0, NULL, NULL));
        replay(cb);
        replay(cb2);
        float *want = same_bits(q, rec_m, dir_m, N * DIM, "fused past the table", round);
        tu_check_layout(want, N * DIM, 0, DIM, N, DIM, "direct call");
        free(same_bits(q, radd_m, dadd_m, N * DIM, "add past the table", round));
        free(want);
        /* The second round's direct calls read the grown table. */
        if (round == 0)
            TU_OK(sinpe_table_reserve(tab, 2000));
    }
    api.release(cb);
    CB_RELEASE(api, cb2, w_m, ids_m, rec_m, dir_m, radd_m, dadd_m);
    TU_FREE(w, init, ids);
done:
    rec_close("record_past_table");
}
END_TEST

START_TEST(record_refusals)
{
    enum { DIM = 8, N = 4 };
    if (!rec_open(DIM, 4))
        goto done;
    int32_t ids[N] = {0, 1, 2, 3};
    float w[4 * DIM] = {0};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, N * DIM);
    sinpe_embed_args a = tu_args(1, N, ids_m, w_m, 4, out_m);
    void *cb = cb_new(q);
    cl_uint sp = 0;
    TU_STATUS(sinpe_record_embed(NULL, q, cb, &a, 0, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_record_embed(tab, q, NULL, &a, 0, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_record_embed(tab, q, cb, NULL, 0, NULL, NULL), SINPE_NULL_ARGUMENT);
    TU_STATUS(sinpe_record_embed(tab, q, cb, &a, 1, NULL, NULL), SINPE_INVALID_WAIT_LIST);
    TU_STATUS(sinpe_record_embed(tab, q, cb, &a, 0, &sp, NULL), SINPE_INVALID_WAIT_LIST);
    sinpe_embed_args f = a;
    f.position_rule = SINPE_POSITIONS_FAIRSEQ;
    TU_STATUS(sinpe_record_embed(tab, q, cb, &f, 0, NULL, NULL), SINPE_UNSUPPORTED);
    TU_MESSAGE_HAS("FAIRSEQ");
    f = a;
    f.vocab = 0;
    TU_STATUS(sinpe_record_embed(tab, q, cb, &f, 0, NULL, NULL), SINPE_INVALID_SHAPE);
    /* A command buffer of another context. */
    cl_context other = tu_other_cl_context(ctx);
    cl_int err;
    cl_command_queue oq = clCreateCommandQueue(other, sinpe_context_device(ctx), 0, &err);
    TU_CL(err);
    void *ocb = cb_new(oq);
    TU_STATUS(sinpe_record_embed(tab, oq, ocb, &a, 0, NULL, NULL), SINPE_CONTEXT_MISMATCH);
    api.release(ocb);
    clReleaseCommandQueue(oq);
    clReleaseContext(other);
    /* Nothing was recorded: the replay leaves out alone. */
    TU_CL(api.finalize(cb));
    replay(cb);
    float *got = tu_read_floats(q, out_m, N * DIM);
    tu_check_all_poison(got, N * DIM, "refused recordings");
    free(got);
    TU_STATUS(sinpe_record_embed(tab, q, cb, &a, 0, NULL, NULL), SINPE_INVALID_OPTION);
    TU_MESSAGE_HAS("finalized");
    CB_RELEASE(api, cb, ids_m, w_m, out_m);
done:
    rec_close("record_refusals");
}
END_TEST

/* Each host allocation of a recording failing in turn, over several
   rounds, as what the table holds for its recordings grows: a failed
   recording answers SINPE_OUT_OF_HOST_MEMORY and recorded nothing (no
   command, and the replay leaves the output poisoned and the bad-id
   counter at zero); the one that gets through records the whole call. */
START_TEST(record_out_of_host_memory)
{
    enum { DIM = 16, V = 4, SL = 6 };
    if (!rec_open(DIM, 8))
        goto done;
    int32_t ids[SL] = {0, 1, 2, V, 3, 0}, zero = 0; /* one id out of range */
    float w[V * DIM] = {0};
    cl_mem ids_m = tu_buffer(ctx, sizeof ids, ids), w_m = tu_buffer(ctx, sizeof w, w);
    cl_mem bad_m = tu_buffer(ctx, sizeof zero, &zero);
    cl_mem out_m = tu_poisoned_buffer(ctx, q, SL * DIM);
    sinpe_embed_args a = tu_args(1, SL, ids_m, w_m, V, out_m);
    a.bad_ids = bad_m, a.start = 1000; /* past the table: three buffers, four kernels */
    int failed = 0;
    for (int round = 0; round < 6; round++)
        for (int k = 0;; k++) {
            void *cb = cb_new(q);
            long launches = tu_launches;
            tu_fail_host_skip = k, tu_fail_host = 1; /* tests/fault.c */
            sinpe_status st = sinpe_record_embed(tab, q, cb, &a, 0, NULL, NULL);
            int done = tu_fail_host == 1;
            tu_fail_host = 0, tu_fail_host_skip = 0;
            TU_CL(api.finalize(cb));
            replay(cb);
            api.release(cb);
            int32_t bad = -1;
            tu_read(q, bad_m, 0, sizeof bad, &bad);
            float *got = tu_read_floats(q, out_m, SL * DIM);
            if (done) {
                TU_OK(st);
                ck_assert_int_eq(bad, 1);
                tu_fill_poison(got, SL * DIM); /* for the next round */
                tu_write(q, out_m, 0, SL * DIM * sizeof *got, got);
                tu_write(q, bad_m, 0, sizeof zero, &zero);
                TU_FREE(got);
                break;
            }
            ck_assert_msg(st == SINPE_OUT_OF_HOST_MEMORY && tu_launches == launches,
                          "round %d, allocation %d failing: status %d (%s), %ld recorded",
                          round, k, (int)st, sinpe_status_string(st), tu_launches - launches);
            ck_assert_msg(bad == 0, "round %d, allocation %d failing: a partial recording "
                          "counted %d bad ids", round, k, (int)bad);
            tu_check_all_poison(got, SL * DIM, "the output of a failed recording");
            TU_FREE(got);
            failed++;
        }
    ck_assert_msg(failed > 0, "no allocation of a recording failed");
    TU_RELEASE(NULL, NULL, NULL, ids_m, w_m, bad_m, out_m);
done:
    rec_close("record_out_of_host_memory");
}
END_TEST

/* The rotation recorded (one lane; three, MROPE): each replay rotates the
   q and k the host wrote before it, at the positions it wrote, with the
   bits of the enqueued call, also after the table has grown past the
   recorded rows. */
START_TEST(record_rope)
{
    enum { NS = 3, SL = 4, N = NS * SL, HD = 24, R = 16, QH = 2, KH = 1, QN = N * QH * HD };
    int records = rec_open(8, 4); /* tab: the probe */
    sinpe_table *rope = NULL;
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, R);
    s.rule = SINPE_ROPE_YARN, s.factor = 4, s.original_max_positions = 64;
    if (_i)
        s.axes = SINPE_ROPE_MROPE, s.sections[0] = s.sections[1] = 3, s.sections[2] = 2;
    TU_OK(sinpe_rope_table_create(ctx, &s, 200, &rope));
    if (!records)
        goto done;
    tu_rng rng = tu_rng_for("record_rope");
    float x[QN];
    int32_t pos[3 * N]; /* lane-major: lanes 1 and 2 read with three lanes */
    cl_mem rq = tu_buffer(ctx, sizeof x, NULL), rk = tu_buffer(ctx, N * KH * HD * 4, NULL);
    cl_mem dq = tu_buffer(ctx, sizeof x, NULL), dk = tu_buffer(ctx, N * KH * HD * 4, NULL);
    cl_mem pm = tu_buffer(ctx, sizeof pos, NULL);
    sinpe_rope_args a;
    sinpe_rope_args_init(&a);
    a.n_seqs = NS, a.seq_len = SL, a.head_dim = HD, a.q_heads = QH, a.kv_heads = KH;
    a.q = rq, a.k = rk, a.positions = pm, a.start = 3;
    void *cb = cb_new(q);
    cl_uint sp = 99;
    TU_OK(sinpe_record_rope(rope, q, cb, &a, 0, NULL, &sp));
    ck_assert_uint_ne(sp, 99);
    TU_CL(api.finalize(cb));
    for (int round = 0; round < 3; round++) {
        tu_rng_ints(&rng, pos, 3 * N, -5, round ? 100000 : 150);
        tu_write(q, pm, 0, sizeof pos, pos);
        tu_rng_floats(&rng, x, QN, -2.0f, 2.0f);
        tu_write(q, rq, 0, sizeof x, x), tu_write(q, dq, 0, sizeof x, x);
        tu_write(q, rk, 0, N * KH * HD * 4, x + 5), tu_write(q, dk, 0, N * KH * HD * 4, x + 5);
        sinpe_rope_args d = a;
        d.q = dq, d.k = dk;
        TU_OK(sinpe_enqueue_rope(rope, q, &d, 0, NULL, NULL));
        replay(cb);
        float *want = same_bits(q, rq, dq, QN, "rotated q", round);
        ck_assert_msg(memcmp(want, x, sizeof x) != 0, "replay %d rotated nothing", round);
        free(same_bits(q, rk, dk, N * KH * HD, "rotated k", round));
        free(want);
        TU_OK(sinpe_table_reserve(rope, 1000 + 50000 * (size_t)round));
    }
    CB_RELEASE(api, cb, rq, rk, dq, dk, pm);
done:
    sinpe_table_release(rope);
    rec_close("record_rope");
}
END_TEST

/* The attention input stage recorded: each replay norms, rotates and
   writes the cache from the q, k, v, positions and slots the host wrote
   before it, with the bits of the enqueued call. */
START_TEST(record_attn_input)
{
    enum { N = 6, HD = 32, QH = 2, KH = 1, QN = N * QH * HD, KN = N * KH * HD, ROWS = 8 };
    int records = rec_open(8, 4); /* tab: the probe */
    sinpe_table *rope = NULL;
    sinpe_rope_spec s;
    sinpe_rope_spec_init(&s, HD);
    TU_OK(sinpe_rope_table_create(ctx, &s, 64, &rope));
    if (!records)
        goto done;
    tu_rng rng = tu_rng_for("record_attn_input");
    float x[QN], w[HD], zero[ROWS * KH * HD] = {0};
    int32_t pos[N], slot[N];
    tu_rng_floats(&rng, w, HD, 0.5f, 1.5f);
    cl_mem qm = tu_buffer(ctx, sizeof x, NULL), dq = tu_buffer(ctx, sizeof x, NULL);
    cl_mem km = tu_buffer(ctx, KN * 4, NULL), vm = tu_buffer(ctx, KN * 4, NULL);
    cl_mem wm = tu_buffer(ctx, sizeof w, w), pm = tu_buffer(ctx, sizeof pos, NULL);
    cl_mem sm = tu_buffer(ctx, sizeof slot, NULL);
    cl_mem kc = tu_buffer(ctx, sizeof zero, zero), vc = tu_buffer(ctx, sizeof zero, zero);
    cl_mem dkc = tu_buffer(ctx, sizeof zero, zero), dvc = tu_buffer(ctx, sizeof zero, zero);
    sinpe_attn_input_args a;
    sinpe_attn_input_args_init(&a);
    a.n_seqs = 1, a.seq_len = N, a.head_dim = HD, a.q_heads = QH, a.kv_heads = KH;
    a.q = qm, a.k = km, a.v = vm, a.positions = pm, a.slot_mapping = sm;
    a.norm = SINPE_QK_NORM_RMS, a.q_norm_weight = a.k_norm_weight = wm;
    a.k_cache = kc, a.v_cache = vc, a.cache_rows = ROWS;
    void *cb = cb_new(q);
    cl_uint sp = 99;
    TU_OK(sinpe_record_attn_input(rope, q, cb, &a, 0, NULL, &sp));
    ck_assert_uint_ne(sp, 99);
    TU_CL(api.finalize(cb));
    for (int round = 0; round < 3; round++) {
        tu_rng_ints(&rng, pos, N, -5, round ? 100000 : 60);
        for (int r = 0; r < N; r++)
            slot[r] = r == round ? -1 : (r * 3 + round) % ROWS;
        tu_write(q, pm, 0, sizeof pos, pos), tu_write(q, sm, 0, sizeof slot, slot);
        tu_rng_floats(&rng, x, QN, -2.0f, 2.0f);
        tu_write(q, qm, 0, sizeof x, x), tu_write(q, dq, 0, sizeof x, x);
        tu_write(q, km, 0, KN * 4, x + 3), tu_write(q, vm, 0, KN * 4, x + 7);
        sinpe_attn_input_args d = a;
        d.q = dq, d.k_cache = dkc, d.v_cache = dvc;
        TU_OK(sinpe_enqueue_attn_input(rope, q, &d, 0, NULL, NULL));
        replay(cb);
        float *want = same_bits(q, qm, dq, QN, "q", round);
        ck_assert_msg(memcmp(want, x, sizeof x) != 0, "replay %d changed nothing", round);
        free(want);
        free(same_bits(q, kc, dkc, ROWS * KH * HD, "k_cache", round));
        free(same_bits(q, vc, dvc, ROWS * KH * HD, "v_cache", round));
        TU_OK(sinpe_table_reserve(rope, 1000 + 50000 * (size_t)round));
    }
    CB_RELEASE(api, cb, qm, dq, km, vm, wm, pm, sm, kc, vc, dkc, dvc);
done:
    sinpe_table_release(rope);
    rec_close("record_attn_input");
}
END_TEST

/* The versions sinpe records with, at their edges: each one published
   (0.9.0 to 0.9.8, and 1.0.0, which is 0.9.8 made final), and none next to
   them, whose calls nobody has checked. */
START_TEST(record_versions)
{
#define CB_V(major, minor, patch)                                                            \
    (((cl_uint)(major) << 22) | ((cl_uint)(minor) << 12) | (cl_uint)(patch))
    static const struct {
        cl_uint v;
        int known;
    } cases[] = {
        {0, 0},             {CB_V(0, 8, 9), 0}, {CB_V(0, 9, 0), 1}, {CB_V(0, 9, 4), 1},
        {CB_V(0, 9, 5), 1}, {CB_V(0, 9, 7), 1}, {CB_V(0, 9, 8), 1}, {CB_V(0, 9, 9), 0},
        {CB_V(0, 10, 0), 0}, {CB_V(1, 0, 0), 1}, {CB_V(1, 0, 1), 0}, {CB_V(1, 1, 0), 0},
        {CB_V(2, 0, 0), 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cl_uint v = cases[i].v;
        ck_assert_msg(sinpe__command_buffer_known(v) == cases[i].known,
                      "version %u.%u.%u: known %d, expected %d", v >> 22, (v >> 12) & 0x3ff,
                      v & 0xfff, sinpe__command_buffer_known(v), cases[i].known);
    }
#undef CB_V
}
END_TEST

TCase *tcase_record(void)
{
    TCase *tc = tu_tcase(NULL, "record", NULL);
    TU_ADD(tc, record_versions, record_replays, record_past_table, record_refusals,
           record_out_of_host_memory);
    tcase_add_loop_test(tc, record_rope, 0, 2);
    tcase_add_test(tc, record_attn_input);
    return tc;
}
