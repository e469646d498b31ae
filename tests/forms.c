/* forms.c -- what each tuning record of the tests (tu_variants) adds to a
 * run of every suite under the device's own record: the kernels its
 * programs hold (the plan says which: sinpe__kernel_held), each with the
 * record's values that build or launch it, that neither the device's
 * record nor an earlier record holds alike.  They are named by their forms
 * (kernels/abi.h: fast, stream, col, row, general, table, otf; rows for the
 * table's own kernels and rope for the rotation's), which are also the Check tags of the test
 * cases that run kernels of that form against float64 references
 * (test_util.h, TU_FORMS_*).
 *
 * "sinpe_tests --record-tags" prints "tags<TAB>record" for each record
 * that adds anything; the Makefile's test target runs those test cases
 * under it (CK_INCLUDE_TAGS), and the check-records target runs the
 * record-by-suite matrix under those records. */
#include "forms.h"
#include "sinpe_internal.h"
#include "variants.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define KEY 192
#define MAX_KEYS 1024
#define MAX_RECORDS 64

typedef struct keys {
    char key[MAX_KEYS][KEY];
    size_t n;
} keys;

/* The form of kernel k in lower case (kernels/abi.h); "rows" for the
   table's kernels, "rope" for the rotation's, "" for the rest (no record
   changes them). */
static void form_of(int k, char *form, size_t n)
{
#define FORM_NAME(form, sig) #form,
    static const char *const names[SINPE_FORMS] = {SINPE_FORM_LIST(FORM_NAME)};
#undef FORM_NAME
    int f = sinpe__kernels[k].form;
    form[0] = '\0';
    if (f == SINPE_FORM_ANCHORS || f == SINPE_FORM_ROWS)
        snprintf(form, n, "rows");
    else if (f == SINPE_FORM_ROPE)
        snprintf(form, n, "rope");
    else if (sinpe__kernels[k].mode != SINPE_MODE_NONE)
        for (size_t i = 0; i + 1 < n && (form[i] = (char)tolower(names[f][i])) != '\0'; i++)
            form[i + 1] = '\0';
}

/* Kernel k as t builds and launches it: its name, and the values of t
   its form reads (kernels/embed_fast.cl, embed_two_pass.cl, embed_otf.cl,
   table.cl, rope.cl;
   aligned: every four-column access, kernels/dtype.cl; one prefetch:
   rope's, or STREAM's into 16-bit outputs, the record's stream_prefetch;
   STREAM's lines a work-item). */
static void key_of(const sinpe__tuning *t, int k, const char *form, char *key)
{
    int fast = !strcmp(form, "fast") || !strcmp(form, "stream");
    snprintf(key, KEY,
             "%s seqs=%zu table_seqs=%zu table_tile=%zu aligned=%zu wide16=%zu rope_pairs=%zu "
             "prefetch=%zu stream_lines=%zu",
             sinpe__kernels[k].name, fast ? t->seqs : 0,
             !strcmp(form, "table") ? t->table_seqs : 0,
             !strcmp(form, "rows") ? t->table_tile : 0, t->aligned,
             !strcmp(form, "fast") || !strcmp(form, "row") ? t->wide16 : 0,
             !strcmp(form, "rope") ? t->rope_pairs : 0,
             !strcmp(form, "rope") && t->rope_pairs >= 16
                 ? t->prefetch
             : !strcmp(form, "stream") && sinpe__kernels[k].ot != SINPE_F32 ? t->stream_prefetch
                                                                               : 0,
             !strcmp(form, "stream") ? t->stream_lines : 0);
}

/* Whether the space-separated list words holds word. */
static int has_word(const char *words, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(words, word); p; p = strstr(p + 1, word))
        if ((p == words || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Adds the kernels t's programs hold to seen; the forms of those that were
   not there go into tags (space-separated, once each). */
static void add_record(const sinpe__tuning *t, keys *seen, char *tags, size_t n)
{
    static const int weights[] = {-1, SINPE_F32, SINPE_F16, SINPE_BF16};
    tags[0] = '\0';
    for (size_t w = 0; w < sizeof weights / sizeof weights[0]; w++)
        for (int k = 0; k < sinpe__kernel_count; k++) {
            char form[32], key[KEY];
            size_t i, used = strlen(tags);
            if (!sinpe__kernel_held(t, weights[w], k))
                continue;
            form_of(k, form, sizeof form);
            if (!form[0])
                continue;
            key_of(t, k, form, key);
            for (i = 0; i < seen->n && strcmp(seen->key[i], key); i++)
                ;
            if (i < seen->n || seen->n == MAX_KEYS)
                continue;
            memcpy(seen->key[seen->n++], key, KEY);
            if (!has_word(tags, form))
                snprintf(tags + used, n - used, "%s%s", used ? " " : "", form);
        }
}

int tu_print_record_tags(void)
{
    static char records[MAX_RECORDS][SINPE__VARIANT];
    static keys seen;
    sinpe_context *ctx = NULL;
    sinpe__record own;
    char tags[256];
    size_t n = tu_variants(records, MAX_RECORDS);
    if (n > MAX_RECORDS)
        return -1;
    /* The device's own record: what the run of every suite reaches. */
    if (sinpe_context_create(NULL, &ctx) != SINPE_SUCCESS ||
        sinpe__record_parse(sinpe_context_tuning(ctx), &own) != 0) {
        fprintf(stderr, "no device record: %s\n", sinpe_last_error());
        sinpe_context_release(ctx);
        return -1;
    }
    sinpe_context_release(ctx);
    add_record(&own.t, &seen, tags, sizeof tags);
    for (size_t i = 0; i < n; i++) {
        sinpe__record r;
        if (sinpe__record_parse(records[i], &r) != 0)
            return -1;
        add_record(&r.t, &seen, tags, sizeof tags);
        if (tags[0])
            printf("%s\t%s\n", tags, records[i]);
    }
    return 0;
}
