/*
 * tuning.c -- the tuning record: the work shape of the kernels as data.
 * Its parameters, its text form ("key = value" entries separated by
 * newlines or ';', '#' comments), and the in-tree database of measured
 * records (the files of tuning/, embedded at build time), looked up by vendor,
 * device type and device name.  Where a context's record comes from is
 * tuning_source.c's business; what a record does is plan.c's.
 */
#include "sinpe_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAM_ROW(name, values, order, doc) {#name, values, order, offsetof(sinpe__tuning, name)},
const sinpe__param sinpe__params[] = {SINPE_TUNING_PARAMS(PARAM_ROW)};
#undef PARAM_ROW
const size_t sinpe__n_params = sizeof sinpe__params / sizeof sinpe__params[0];

/* Key fields a record may carry besides its parameters (see sinpe__record):
   where the library keeps those it reads, 0 for those kept for people. */
#define META(field) offsetof(sinpe__record, field)
static const struct {
    const char *key;
    size_t field;
} meta[] = {{"name", META(name)}, {"vendor", META(vendor)}, {"type", META(type)},
            {"device", META(device)}, {"key", META(key)}, {"sinpe", META(version)},
            {"measured", 0}, {"platform", 0}, {"driver", 0}, {"from", 0}, {"ignored", 0}};
#undef META

size_t *sinpe__param_field(sinpe__tuning *t, size_t i)
{
    return (size_t *)(void *)((char *)t + sinpe__params[i].offset);
}

/* The i-th word of a space-separated list into buf; 0 past the end. */
static int list_word(const char *list, size_t i, char *buf, size_t n)
{
    for (;;) {
        while (*list == ' ')
            list++;
        if (!*list)
            return 0;
        size_t len = strcspn(list, " ");
        if (i-- == 0) {
            snprintf(buf, n, "%.*s", (int)len, list);
            return 1;
        }
        list += len;
    }
}

/* Whether a list names numbers (its value is the number) or words (the index). */
static int numeric_list(const char *list) { return isdigit((unsigned char)list[0]); }

/* Parses value v of parameter i; 0 on success. */
static int param_value(size_t i, const char *v, size_t *out)
{
    const char *list = sinpe__params[i].values;
    char word[32];
    if (strcmp(list, "#") == 0) {
        char *end;
        unsigned long long x;
        if (!isdigit((unsigned char)v[0]))
            return -1;
        errno = 0;
        x = strtoull(v, &end, 10);
        if (errno || *end || x > SINPE__NEVER)
            return -1;
        *out = (size_t)x;
        return 0;
    }
    for (size_t k = 0; list_word(list, k, word, sizeof word); k++)
        if (strcmp(word, v) == 0) {
            *out = numeric_list(list) ? (size_t)strtoull(word, NULL, 10) : k;
            return 0;
        }
    return -1;
}

int sinpe__param_value(size_t i, size_t k, size_t *v)
{
    char word[32];
    if (strcmp(sinpe__params[i].values, "#") == 0) {
        *v = k == 0 ? 0 : SINPE__NEVER;
        return k < 2;
    }
    return sinpe__param_choice(i, k, word, sizeof word) && param_value(i, word, v) == 0;
}

int sinpe__param_choice(size_t i, size_t k, char *buf, size_t n)
{
    return strcmp(sinpe__params[i].values, "#") != 0 &&
           list_word(sinpe__params[i].values, k, buf, n);
}

int sinpe__param_format(size_t i, size_t value, char *buf, size_t n)
{
    const char *list = sinpe__params[i].values;
    if (strcmp(list, "#") == 0 || numeric_list(list))
        return snprintf(buf, n, "%zu", value) > 0;
    return list_word(list, value, buf, n);
}

/* One "key = value" entry, trimmed; 0 on success, else why in r->why. */
static int parse_entry(sinpe__record *r, const char *s, size_t len, unsigned line)
{
    char key[32];
    const char *eq = memchr(s, '=', len), *v;
    size_t klen, vlen;
    if (!eq) {
        snprintf(r->why, sizeof r->why, "line %u: no '=' in \"%.*s\"", line, (int)len, s);
        return -1;
    }
    for (klen = (size_t)(eq - s); klen > 0 && isspace((unsigned char)s[klen - 1]); klen--)
        ;
    for (v = eq + 1; v < s + len && isspace((unsigned char)*v); v++)
        ;
    for (vlen = (size_t)(s + len - v); vlen > 0 && isspace((unsigned char)v[vlen - 1]); vlen--)
        ;
    snprintf(key, sizeof key, "%.*s", (int)klen, s);
    for (size_t i = 0; i < sinpe__n_params; i++) {
        char val[32];
        if (strcmp(key, sinpe__params[i].name) != 0)
            continue;
        snprintf(val, sizeof val, "%.*s", (int)vlen, v);
        if (vlen >= sizeof val || param_value(i, val, sinpe__param_field(&r->t, i)) != 0) {
            snprintf(r->why, sizeof r->why, "line %u: %s = \"%.*s\" is not one of: %s", line,
                     key, (int)vlen, v,
                     strcmp(sinpe__params[i].values, "#") ? sinpe__params[i].values
                                                           : "a whole number");
            return -1;
        }
        r->set |= 1u << i;
        return 0;
    }
    for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
        if (strcmp(key, meta[i].key) != 0)
            continue;
        if (meta[i].field)
            snprintf((char *)r + meta[i].field, SINPE__META, "%.*s", (int)vlen, v);
        return 0;
    }
    snprintf(r->why, sizeof r->why, "line %u: unknown key \"%s\"", line, key);
    return -1;
}

int sinpe__record_parse(const char *text, sinpe__record *r)
{
    unsigned line = 1;
    memset(r, 0, sizeof *r);
    while (*text) {
        size_t len = strcspn(text, ";\n#");
        const char *s = text;
        text += len;
        while (len > 0 && isspace((unsigned char)*s))
            s++, len--;
        if (len > 0 && parse_entry(r, s, len, line) != 0)
            return -1;
        if (*text == '#')
            text += strcspn(text, "\n");
        if (*text == '\n')
            line++;
        if (*text)
            text++;
    }
    return 0;
}

int sinpe__record_complete(const sinpe__record *r)
{
    return r->set == (1u << sinpe__n_params) - 1;
}

void sinpe__record_apply(sinpe__tuning *t, const sinpe__record *r)
{
    for (size_t i = 0; i < sinpe__n_params; i++)
        if (r->set & (1u << i))
            *sinpe__param_field(t, i) = *sinpe__param_field((sinpe__tuning *)&r->t, i);
}

size_t sinpe__tuning_format(const sinpe__tuning *t, char *buf, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < sinpe__n_params; i++) {
        char v[32];
        sinpe__param_format(i, *sinpe__param_field((sinpe__tuning *)t, i), v, sizeof v);
        int k = snprintf(buf + used, used < n ? n - used : 0, "%s%s=%s", i ? "; " : "",
                         sinpe__params[i].name, v);
        used += k > 0 ? (size_t)k : 0;
    }
    return used;
}

const char *sinpe__type_name(cl_device_type type)
{
    if (type & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (type & CL_DEVICE_TYPE_GPU)
        return "gpu";
    return "accelerator";
}

/*
 * How well record r fits a device: 0 not at all; else the more of vendor,
 * type and device name (a prefix of the device's) it names and matches,
 * the better, a longer name better still.  Every database record names a
 * type; those that name only a type are its defaults.  Other device types
 * (accelerators) take the GPU default.
 */
static size_t fit(const sinpe__record *r, const char *vendor, const char *type, const char *device)
{
    size_t score = 1;
    if (strcmp(r->type, type) != 0 && !(strcmp(r->type, "gpu") == 0 && !r->vendor[0] &&
                                        !r->device[0] && strcmp(type, "accelerator") == 0))
        return 0;
    if (r->vendor[0]) {
        if (strcmp(r->vendor, vendor) != 0)
            return 0;
        score += 1;
    }
    if (r->device[0]) {
        size_t n = strlen(r->device);
        if (strncmp(r->device, device, n) != 0)
            return 0;
        score += 2 + n;
    }
    return score;
}

int sinpe__database_lookup(const char *vendor, cl_device_type type, const char *device,
                           sinpe__record *out)
{
    const char *tname = sinpe__type_name(type);
    size_t best = 0;
    for (size_t i = 0; sinpe__database[i]; i++) {
        sinpe__record r;
        size_t score;
        if (sinpe__record_parse(sinpe__database[i], &r) != 0 || !sinpe__record_complete(&r))
            continue; /* the tests make sure that none is so */
        score = fit(&r, vendor, tname, device);
        if (score > best) {
            best = score;
            *out = r;
        }
    }
    return best > 0 ? 0 : -1;
}
