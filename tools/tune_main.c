/*
 * tune_main.c -- sinpe-tune: measures the forms of the tuning record on
 * this device and makes the one that wins the device's tuning file
 * (sinpe_tuning_save), which every later context on the device reads.
 *
 * The search starts from the database record of the device (what a fresh
 * machine gets) and takes the parameters one at a time: every allowed
 * value of the parameter is timed, in contexts that share one cl_context
 * and its buffers, on the cases that parameter decides (tune.c).  Rounds
 * interleave the candidates so that a noisy neighbour hurts them alike; a
 * case's figure is the fastest of its round medians, a candidate's score
 * the geometric mean of its cases' times over the current record's, and a
 * value replaces the current one only when it scores below 1 - margin.  A
 * search whose scores lie far from the margin after two rounds ends there
 * (CLEAR); the close calls run every round.
 * Last, every case of the benchmark's kind that the search timed is timed
 * again, in the same rounds, under the database record, the chosen one and
 * the record that was fastest for that case in the search, and the ratios
 * are printed against the fastest of the three.  Records that run the
 * same kernels for a case (sinpe__plan_same) are timed once.
 */
#include "tune.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the search ---------------------------------------------------------- */

/*
 * The i-th value to try for parameter p (current value v): each allowed
 * value, or for a size, v over 4, times 4 and times 16 (stream_bytes: the
 * benchmark's outputs span 16 MiB to 256 MiB); 0 past the last.
 */
static int candidate_value(size_t p, size_t v, size_t i, char *buf, size_t n)
{
    static const double scale[] = {0.25, 4.0, 16.0};
    if (strcmp(sinpe__params[p].values, "#") != 0)
        return sinpe__param_choice(p, i, buf, n);
    if (i >= sizeof scale / sizeof scale[0] || v == 0)
        return 0;
    snprintf(buf, n, "%.0f", (double)v * scale[i]);
    return 1;
}

/* Each candidate's score: the geometric mean over the cases of its time
   over the current record's (candidate 0), a case it is not timed on
   counting 1 (it runs the current record's kernels there). */
static void scores(size_t n_cands, size_t n, int (*ok)[MAX_RECORDS], double (*us)[MAX_RECORDS],
                   double *score)
{
    for (size_t c = 0; c < n_cands; c++) {
        double log_sum = 0.0;
        for (size_t k = 0; k < n; k++)
            if (ok[k][c])
                log_sum += log(us[k][c] / us[k][0]);
        score[c] = exp(log_sum / (double)n);
    }
}

/*
 * How far from the margin a score must lie for the search to end before
 * its last round: by this factor, after two rounds at least.  Measured
 * here (two whole runs, two cores shared with a neighbour's test suite,
 * every round run), a score moved by up to 27% from the second round to
 * the third when it lay near the margin (table_seqs 4: 0.85, then 1.08),
 * by 14% at most when it lay beyond this factor (stream 0: 2.64, then
 * 2.28), and after one round alone it could be anything (prefetch 0:
 * 0.34, then 0.91).  The close calls run every round.
 */
#define CLEAR 1.5
/* Whether the scores decide the search already: none lies within CLEAR of
   the margin, and at most one below it. */
static int decided(const double *score, const int *timed, size_t n_cands, double margin)
{
    double line = 1.0 - margin;
    int below = 0;
    for (size_t c = 1; c < n_cands; c++) {
        if (!timed[c])
            continue;
        if (score[c] > line / CLEAR && score[c] < line * CLEAR)
            return 0;
        below += score[c] <= line / CLEAR;
    }
    return below <= 1;
}

/* Makes tu->held the candidate of record text: kept if it is, else opened. */
static int hold(tuner *tu, const char *text)
{
    if (tu->held.ctx && strcmp(tu->held.text, text) == 0)
        return 0;
    tune_candidate_close(&tu->held);
    return tune_candidate_open(tu, &tu->held, text);
}

/*
 * Times every allowed value of parameter p over the current record *cur
 * on the cases p decides, and keeps the best one if it wins by the margin.
 * A value that runs the same kernels as the current one for a case
 * (sinpe__plan_same) is not timed there: its ratio is 1; one that does so
 * for every case is not timed at all.
 */
static int search(tuner *tu, size_t p, sinpe__tuning *cur)
{
    const sinpe__param *par = &sinpe__params[p];
    candidate cands[MAX_RECORDS];
    sinpe__tuning recs[MAX_RECORDS];
    tune_case *sel[MAX_CASES];
    static int ok[MAX_CASES][MAX_RECORDS];
    static double us[MAX_CASES][MAX_RECORDS];
    size_t n = 0, n_cands = 0, best = 0, cur_value = *sinpe__param_field(cur, p);
    double score[MAX_RECORDS];
    int timed[MAX_RECORDS], rounds;
    char word[32], text[SINPE__VARIANT];
    int rc = -1;

    for (size_t k = 0; k < tu->n_cases; k++)
        if (tune_decides(tu, p, cur, &tu->cases[k]))
            sel[n++] = &tu->cases[k];
    if (n == 0)
        return 0;
    /* The current record first (kept open from search to search), then
       one per other value of p. */
    memset(cands, 0, sizeof cands);
    sinpe__tuning_format(cur, text, sizeof text);
    if (hold(tu, text) != 0)
        return -1;
    cands[n_cands] = tu->held;
    recs[n_cands++] = *cur;
    for (size_t i = 0; candidate_value(p, cur_value, i, word, sizeof word) && n_cands < MAX_RECORDS;
         i++) {
        sinpe__tuning t = *cur;
        sinpe__record probe;
        char one[64];
        snprintf(one, sizeof one, "%s = %s", par->name, word);
        if (sinpe__record_parse(one, &probe) != 0)
            goto done;
        sinpe__record_apply(&t, &probe);
        if (*sinpe__param_field(&t, p) == cur_value)
            continue;
        sinpe__tuning_format(&t, cands[n_cands].text, sizeof cands[n_cands].text);
        recs[n_cands++] = t;
    }
    for (size_t c = 0; c < n_cands; c++) {
        timed[c] = c == 0;
        for (size_t k = 0; k < n; k++) {
            sinpe__call call = tune_call(sel[k]);
            ok[k][c] = c == 0 || !sinpe__plan_same(cur, &recs[c], &call);
            timed[c] |= ok[k][c];
        }
        sinpe__tuning_format(&recs[c], text, sizeof text);
        if (c > 0 && timed[c] && tune_candidate_open(tu, &cands[c], text) != 0)
            goto done;
    }
    /* Every round, unless the scores of two or more decide it already. */
    for (rounds = 0; rounds < tu->rounds; rounds++) {
        if (tune_time_round(tu, cands, n_cands, sel, n, ok, rounds, us) != 0)
            goto done;
        scores(n_cands, n, ok, us, score);
        if (rounds >= 1 && decided(score, timed, n_cands, tu->margin)) {
            rounds++;
            break;
        }
    }
    for (size_t c = 0; c < n_cands; c++) {
        for (size_t k = 0; k < n; k++) {
            if (!ok[k][c])
                continue;
            tune_json(tu, "search", sel[k], par->name, cands[c].text, us[k][c]);
            if (sel[k]->best_us == 0.0 || us[k][c] < sel[k]->best_us) {
                sel[k]->best_us = us[k][c];
                snprintf(sel[k]->best, sizeof sel[k]->best, "%.*s",
                         (int)sizeof sel[k]->best - 1, cands[c].text);
            }
        }
        if (score[c] < score[best])
            best = c;
    }
    printf("[%5.0f s] %-10s", tune_now_s() - tu->t0, par->name);
    for (size_t c = 0; c < n_cands; c++) {
        sinpe__param_format(p, *sinpe__param_field(&recs[c], p), word, sizeof word);
        if (timed[c])
            printf("  %s %.3f", word, score[c]);
        else
            printf("  %s same", word);
    }
    if (best != 0 && score[best] < 1.0 - tu->margin) {
        *cur = recs[best];
        sinpe__param_format(p, *sinpe__param_field(cur, p), word, sizeof word);
        printf("  -> %s", word);
    } else {
        printf("  -> kept");
        best = 0;
    }
    printf(rounds < tu->rounds ? " (%d rounds)\n" : "\n", rounds);
    fflush(stdout);
    rc = 0;
done:
    /* The record that is current now stays open, with the tables and
       kernels it has made; the old one, if it lost, closes with the rest. */
    tu->held = cands[best];
    if (best != 0)
        cands[best] = cands[0];
    for (size_t c = 1; c < n_cands; c++)
        tune_candidate_close(&cands[c]);
    return rc;
}

/* ---- the check of the result --------------------------------------------- */

/* Whether records a and b run the same kernels for case c (the plan says). */
static int same_for(const char *a, const char *b, const tune_case *c)
{
    sinpe__record ra, rb;
    sinpe__call k = tune_call(c);
    if (sinpe__record_parse(a, &ra) != 0 || sinpe__record_parse(b, &rb) != 0)
        return 0;
    return sinpe__plan_same(&ra.t, &rb.t, &k);
}

/* Adds record text to recs unless it is there; its index. */
static size_t record_index(char (*recs)[SINPE__VARIANT], size_t *n, const char *text)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(recs[i], text) == 0)
            return i;
    if (*n == MAX_RECORDS)
        return 0; /* cannot happen with the parameters there are; the default stands in */
    snprintf(recs[*n], SINPE__VARIANT, "%s", text);
    return (*n)++;
}

/*
 * Every case of the benchmark's kind, timed in the same rounds under the
 * database record (0), the chosen one (1) and the record fastest for it in
 * the search; the ratios against the fastest of the three.
 */
static int check(tuner *tu, const char *dflt, const char *chosen)
{
    static char recs[MAX_RECORDS][SINPE__VARIANT];
    static int ok[MAX_CASES][MAX_RECORDS];
    static double us[MAX_CASES][MAX_RECORDS];
    candidate cands[MAX_RECORDS];
    tune_case *sel[MAX_CASES];
    size_t n = 0, n_recs = 0, best_of[MAX_CASES], dflt_of[MAX_CASES], d, h;
    int within_chosen = 0, within_dflt = 0, rc = -1, rounds;
    double worst_chosen = 0.0, worst_dflt = 0.0;

    h = record_index(recs, &n_recs, chosen);
    d = record_index(recs, &n_recs, dflt);
    memset(ok, 0, sizeof ok);
    for (size_t k = 0; k < tu->n_cases; k++) {
        tune_case *c = &tu->cases[k];
        const char *best = c->best[0] && !same_for(c->best, chosen, c) ? c->best : chosen;
        if (!c->final)
            continue;
        dflt_of[n] = same_for(dflt, chosen, c) ? h : d;
        best_of[n] = record_index(recs, &n_recs, best);
        ok[n][h] = ok[n][dflt_of[n]] = ok[n][best_of[n]] = 1;
        sel[n++] = c;
    }
    /* The chosen record is the current one of the search, still open; a
       record no case is timed under is not opened. */
    memset(cands, 0, sizeof cands);
    if (hold(tu, chosen) != 0)
        return -1;
    cands[h] = tu->held;
    for (size_t i = 0; i < n_recs; i++) {
        int used = 0;
        for (size_t k = 0; k < n; k++)
            used |= ok[k][i];
        if (i != h && used && tune_candidate_open(tu, &cands[i], recs[i]) != 0)
            goto done;
    }
    printf("\n[%5.0f s] the result, every case under the database record, the chosen record\n"
           "and the record fastest for it in the search, in the same rounds (us; a record\n"
           "that runs the same kernels for a case as the chosen one is the chosen one):\n\n"
           "%-30s %10s %10s %10s %9s %9s\n",
           tune_now_s() - tu->t0, "case", "database", "chosen", "fastest", "chosen/f",
           "db/f");
    /* More rounds here, and all of them: these are the figures the result
       is read by. */
    rounds = tu->rounds + 2 < MAX_ROUNDS ? tu->rounds + 2 : MAX_ROUNDS;
    for (int r = 0; r < rounds; r++)
        if (tune_time_round(tu, cands, n_recs, sel, n, ok, r, us) != 0)
            goto done;
    for (size_t k = 0; k < n; k++) {
        char name[64];
        size_t dk = dflt_of[k], bk = best_of[k];
        double f = fmin(us[k][bk], fmin(us[k][dk], us[k][h]));
        tune_case_name(sel[k], name, sizeof name);
        printf("%-30s %10.1f %10.1f %10.1f %9.2f %9.2f\n", name, us[k][dk], us[k][h],
               us[k][bk], us[k][h] / f, us[k][dk] / f);
        tune_json(tu, "check", sel[k], "database", recs[dk], us[k][dk]);
        tune_json(tu, "check", sel[k], "chosen", recs[h], us[k][h]);
        tune_json(tu, "check", sel[k], "fastest", recs[bk], us[k][bk]);
        within_chosen += us[k][h] <= 1.10 * f;
        within_dflt += us[k][dk] <= 1.5 * f;
        worst_chosen = fmax(worst_chosen, us[k][h] / f);
        worst_dflt = fmax(worst_dflt, us[k][dk] / f);
    }
    printf("\nchosen record: %d of %zu cases within 1.10x of the fastest (worst %.2fx)\n"
           "database record: %d of %zu cases within 1.5x of the fastest (worst %.2fx)\n",
           within_chosen, n, worst_chosen, within_dflt, n, worst_dflt);
    rc = 0;
done:
    tu->held = cands[h];
    for (size_t i = 0; i < n_recs; i++)
        if (i != h)
            tune_candidate_close(&cands[i]);
    return rc;
}

/* ---- set-up and main ----------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: sinpe-tune [options]\n"
            "\n"
            "Times the forms of sinpe's tuning record on the device (SINPE_DEVICE, or\n"
            "sinpe's default) on the benchmark's shapes, keeps each form that wins by\n"
            "the margin, checks the result against the database record, and saves it as\n"
            "the device's tuning file, which every later context on the device reads.\n"
            "\n"
            "options:\n"
            "  --dims LIST     dims to tune on (default 1024,4096)\n"
            "  --dtypes LIST   storage types, from fp32,fp16,bf16 (default all three)\n"
            "  --margin PCT    how much faster a form must be to replace the current\n"
            "                  one, geometric mean over its cases (default 5)\n"
            "  --rounds N      interleaved rounds per comparison, 1 to %d (default 3);\n"
            "                  a search whose scores lie far from the margin after two\n"
            "                  stops there\n"
            "  --json FILE     one JSON object per timing\n"
            "  --device SEL    device selector, as SINPE_DEVICE\n"
            "  --dry-run       measure and print, but save nothing\n"
            "  --save-each     also save the record whenever a parameter changes it, so\n"
            "                  that a run cut short leaves the values decided so far\n"
            "                  (unchecked)\n"
            "  --reset         delete the device's tuning file and stop\n"
            "  --help          this text\n",
            MAX_ROUNDS);
}

static int parse_list(const char *s, size_t *dims, size_t *n)
{
    *n = 0;
    while (s && *s && *n < MAX_DIMS) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 65536 || (*end && *end != ','))
            return -1;
        dims[(*n)++] = v;
        s = *end ? end + 1 : end;
    }
    return *n > 0 && !(s && *s) ? 0 : -1;
}

static int parse_args(int argc, char **argv, tuner *tu, int *reset)
{
    tu->dims[0] = 1024;
    tu->dims[1] = 4096;
    tu->n_dims = 2;
    tu->dtypes = tune_output_types();
    tu->margin = 0.05;
    tu->rounds = 3;
    tu->save = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!strcmp(a, "--dry-run")) {
            tu->save = 0;
            continue;
        }
        if (!strcmp(a, "--save-each")) {
            tu->save = 2;
            continue;
        }
        if (!strcmp(a, "--reset")) {
            *reset = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !v)
            return -1;
        i++;
        if (!strcmp(a, "--dims") && parse_list(v, tu->dims, &tu->n_dims) == 0)
            continue;
        if (!strcmp(a, "--dtypes")) {
            tu->dtypes = 0;
            for (int d = 0; d < TUNE_N_DTYPES; d++)
                if ((tune_output_types() & (1u << d)) && strstr(v, tune_dtype_name((sinpe_dtype)d)))
                    tu->dtypes |= 1u << d;
            if (tu->dtypes & 1u) /* fp32 always: the benchmark's cases are fp32 */
                continue;
            return -1;
        }
        if (!strcmp(a, "--margin")) {
            tu->margin = strtod(v, &end) / 100.0;
            if (*end == '\0' && tu->margin >= 0.0 && tu->margin < 0.5)
                continue;
        } else if (!strcmp(a, "--rounds")) {
            tu->rounds = (int)strtol(v, &end, 10);
            if (*end == '\0' && tu->rounds >= 1 && tu->rounds <= MAX_ROUNDS)
                continue;
        } else if (!strcmp(a, "--json")) {
            tu->json_path = v;
            continue;
        } else if (!strcmp(a, "--device")) {
            tu->device = v;
            continue;
        }
        return -1;
    }
    return 0;
}

/* The weights, outputs and inputs every case reads and writes. */
static int make_buffers(tuner *tu)
{
    size_t max_tokens = 0;
    cl_int err;
    for (size_t s = 0; s < N_SHAPES; s++) {
        size_t t = tune_shapes[s].seqs * tune_shapes[s].seq_len;
        max_tokens = t > max_tokens ? t : max_tokens;
        for (int e = 0; e < 2; e++)
            if (tune_inputs_make(&tu->env, s, e, TUNE_SEED, &tu->inputs[s][e]) != 0)
                return -1;
    }
    size_t qk = (size_t)TUNE_ROPE_SEQS * TUNE_ROPE_LEN * (TUNE_ROPE_Q + TUNE_ROPE_KV) *
                TUNE_ROPE_HEAD;
    tu->rope_qk = clCreateBuffer(tu->env.cl_ctx, CL_MEM_READ_WRITE, qk * 4, NULL, &err);
    CHECK_AS("clCreateBuffer(q and k)", err);
    if (tune_fill(&tu->env, tu->rope_qk, qk, 5u, SINPE_F32) != 0)
        return -1;
    size_t gx = (size_t)TUNE_GRID_IMAGES * TUNE_GRID_SIDE * TUNE_GRID_SIDE * TUNE_GRID_D;
    tu->grid_x = clCreateBuffer(tu->env.cl_ctx, CL_MEM_READ_WRITE, gx * 4, NULL, &err);
    CHECK_AS("clCreateBuffer(grid patches)", err);
    if (tune_fill(&tu->env, tu->grid_x, gx, 9u, SINPE_F32) != 0)
        return -1;
    size_t ao = (size_t)TUNE_ROPE_SEQS * TUNE_ROPE_LEN * (TUNE_ROPE_Q + 3 * TUNE_ROPE_KV) *
                TUNE_ROPE_HEAD;
    tu->attn_out = clCreateBuffer(tu->env.cl_ctx, CL_MEM_READ_WRITE, ao * 4, NULL, &err);
    CHECK_AS("clCreateBuffer(q out, caches and v)", err);
    if (tune_fill(&tu->env, tu->attn_out, ao, 11u, SINPE_F32) != 0)
        return -1;
    for (size_t d = 0; d < tu->n_dims; d++) {
        size_t dim = tu->dims[d], rows = (size_t)TUNE_TABLE_ROWS * dim;
        tu->rows_out[d] = clCreateBuffer(tu->env.cl_ctx, CL_MEM_READ_WRITE, rows * 4, NULL, &err);
        CHECK_AS("clCreateBuffer(table rows)", err);
        if (tune_fill(&tu->env, tu->rows_out[d], rows, 3u, SINPE_F32) != 0)
            return -1;
        for (int dt = 0; dt < TUNE_N_DTYPES; dt++) {
            size_t es = sinpe_dtype_bytes((sinpe_dtype)dt, 1), w = (size_t)TUNE_VOCAB * dim;
            if (!(tu->dtypes & (1u << dt)))
                continue;
            tu->weights[d][dt] = clCreateBuffer(tu->env.cl_ctx, CL_MEM_READ_WRITE, w * es, NULL,
                                                &err);
            CHECK_AS("clCreateBuffer(weights)", err);
            if (tune_fill(&tu->env, tu->weights[d][dt], w, (cl_uint)dim, (sinpe_dtype)dt) != 0)
                return -1;
            for (int o = 0; o < 2; o++) {
                tu->out[d][dt][o] = clCreateBuffer(tu->env.cl_ctx, CL_MEM_READ_WRITE,
                                                   max_tokens * dim * es, NULL, &err);
                CHECK_AS("clCreateBuffer(output)", err);
                if (tune_fill(&tu->env, tu->out[d][dt][o], max_tokens * dim, 7u,
                               (sinpe_dtype)dt) != 0)
                    return -1;
            }
        }
    }
    return 0;
fail:
    return -1;
}

static void release_buffers(tuner *tu)
{
    for (size_t s = 0; s < N_SHAPES; s++)
        for (int e = 0; e < 2; e++)
            tune_inputs_release(&tu->inputs[s][e]);
    if (tu->rope_qk)
        clReleaseMemObject(tu->rope_qk);
    if (tu->grid_x)
        clReleaseMemObject(tu->grid_x);
    if (tu->attn_out)
        clReleaseMemObject(tu->attn_out);
    for (size_t d = 0; d < MAX_DIMS; d++) {
        if (tu->rows_out[d])
            clReleaseMemObject(tu->rows_out[d]);
        for (int dt = 0; dt < TUNE_N_DTYPES; dt++) {
            if (tu->weights[d][dt])
                clReleaseMemObject(tu->weights[d][dt]);
            for (int o = 0; o < 2; o++)
                if (tu->out[d][dt][o])
                    clReleaseMemObject(tu->out[d][dt][o]);
        }
    }
}

int main(int argc, char **argv)
{
    static tuner tu;
    char vendor[256] = "", dflt[SINPE__VARIANT], chosen[SINPE__VARIANT], path[1024];
    int reset = 0, rc = 1;
    sinpe__record db;
    sinpe__tuning cur;

    if (parse_args(argc, argv, &tu, &reset) != 0) {
        usage(argc > 1 && !strcmp(argv[1], "--help") ? stdout : stderr);
        return argc > 1 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    if (tune_env_open(&tu.env, tu.device, tu.json_path) != 0)
        goto done;
    tu.t0 = tune_now_s();
    printf("sinpe-tune %s on %s (%s, driver %s)\n", sinpe_version_string(),
           tu.env.device_name, tu.env.platform_name, tu.env.driver_version);
    if (reset) {
        CHECK(sinpe_tuning_save(tu.env.ctx, NULL, path, sizeof path));
        printf("deleted %s: contexts on this device take the database record again\n", path);
        rc = 0;
        goto done;
    }
    clGetDeviceInfo(tu.env.device, CL_DEVICE_VENDOR, sizeof vendor - 1, vendor, NULL);
    CHECK_AS("the database lookup",
             sinpe__database_lookup(vendor, tu.env.device_type, tu.env.device_name, &db) == 0
                 ? 0
                 : SINPE_INVALID_OPTION);
    cur = db.t;
    sinpe__tuning_format(&db.t, dflt, sizeof dflt);
    printf("database record %s: %s\n\n", db.name, dflt);
    if (make_buffers(&tu) != 0)
        goto done;
    tune_make_cases(&tu);
    printf("[%5.0f s] scores: each value's time over the current one's, geometric mean "
           "over the cases it decides\n",
           tune_now_s() - tu.t0);
    /* The parameters in their order (src/tuning.h); one that changes none
       of the cases under the current record is not searched. */
    for (int order = 1; order <= (int)sinpe__n_params; order++)
        for (size_t p = 0; p < sinpe__n_params; p++) {
            if (sinpe__params[p].order != order)
                continue;
            sinpe__tuning before = cur;
            if (search(&tu, p, &cur) != 0)
                goto done;
            if (tu.save == 2 && memcmp(&before, &cur, sizeof cur) != 0) {
                sinpe__tuning_format(&cur, chosen, sizeof chosen);
                CHECK(sinpe_tuning_save(tu.env.ctx, chosen, path, sizeof path));
                printf("saved as %s (the values so far)\n", path);
            }
        }
    sinpe__tuning_format(&cur, chosen, sizeof chosen);
    if (check(&tu, dflt, chosen) != 0)
        goto done;
    printf("\nchosen: %s\n", chosen);
    if (tu.save) {
        CHECK(sinpe_tuning_save(tu.env.ctx, chosen, path, sizeof path));
        printf("saved as %s\n", path);
    } else {
        printf("not saved (--dry-run)\n");
    }
    printf("[%5.0f s] done\n", tune_now_s() - tu.t0);
    rc = 0;
done:
fail:
    tune_candidate_close(&tu.held);
    release_buffers(&tu);
    if (tune_env_close(&tu.env) != 0)
        rc = 1;
    return rc;
}
