/* test_contract.c -- the kernel contract of kernels/abi.h, checked on the
 * built programs (-cl-kernel-arg-info):
 *   - the kernels of the program are those of the host's table
 *     (SINPE_KERNEL_LIST), both ways, in each program and under the guard of
 *     each form; each kernel runs the body of its entry's form, call and
 *     output type; its arguments are those of its form's signature, in
 *     order: count, names, address spaces and constness; so that a kernel
 *     or a host entry or struct changed alone fails here;
 *   - each kernel file compiles on its own with its includes, and the
 *     program's files built from disk define the kernels of the embedded
 *     text;
 *   - the plan: the records the tests run under (sinpe__plan_variants)
 *     hold every kernel some database record holds, and a launch of a
 *     kernel its program lacks is refused with a status. */
#include "test_util.h"
#include "sinpe_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORM_NAME(form, sig) #form,
#define FORM_SIG(form, sig) #sig,
static const char *const form_name[SINPE_FORMS] = {SINPE_FORM_LIST(FORM_NAME)};
static const char *const form_sig[SINPE_FORMS] = {SINPE_FORM_LIST(FORM_SIG)};

/* A program of the embedded source (text NULL) or of text with the kernel
   files' directory on the include path, holding the kernels of weights
   (-1: the base program's) of form (-1: every form), built with the
   argument information. */
static cl_program build_form(sinpe_context *ctx, const char *text, int weights, int form)
{
    char options[1024];
    const char *src = text ? text : sinpe__kernel_source;
    cl_device_id dev = sinpe_context_device(ctx);
    cl_int err;
    sinpe__plan_options(NULL, SINPE_MATH_FLOAT, weights, options, sizeof options);
    for (int f = 0; f < SINPE_FORMS; f++) {
        char has[64], *at;
        snprintf(has, sizeof has, " -DSINPE_HAS_%s=", form_name[f]);
        at = strstr(options, has);
        ck_assert_msg(at != NULL, "no %s in the options %s", has, options);
        at[strlen(has)] = form < 0 || f == form ? '1' : '0';
    }
    strcat(options, " -cl-kernel-arg-info -I kernels");
    cl_program prog = clCreateProgramWithSource(sinpe_context_cl_context(ctx), 1, &src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[16384];
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        ck_abort_msg("%s does not build (%d): %.4000s", text ? text : "the embedded source",
                     (int)err, log);
    }
    return prog;
}

static cl_program build(sinpe_context *ctx, const char *text, int weights)
{
    return build_form(ctx, text, weights, -1);
}

/* Kernel k of prog against its signature. */
static void check_kernel(cl_program prog, int k)
{
    static const cl_kernel_arg_address_qualifier space[] = {
        CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ADDRESS_GLOBAL,
        CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_LOCAL};
    const sinpe__signature *sig = sinpe__kernel_signature(k);
    const char *name = sinpe__kernels[k].name;
    cl_int err;
    cl_uint n = 0;
    cl_kernel kernel = clCreateKernel(prog, name, &err);
    ck_assert_msg(err == CL_SUCCESS, "%s: clCreateKernel %d", name, (int)err);
    clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL);
    ck_assert_msg(n == sig->n, "%s: %u arguments, its signature %u", name, n, sig->n);
    for (cl_uint i = 0; i < n; i++) {
        const sinpe__arg *g = &sig->arg[i];
        char got[64] = "";
        cl_kernel_arg_address_qualifier q = 0;
        cl_kernel_arg_type_qualifier tq = 0;
        ck_assert_int_eq(clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_NAME, sizeof got, got, NULL),
                         CL_SUCCESS);
        clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q, NULL);
        clGetKernelArgInfo(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL);
        ck_assert_msg(strcmp(got, g->name) == 0, "%s: argument %u is %s, its signature's %s",
                      name, i, got, g->name);
        ck_assert_msg(q == space[g->kind], "%s: argument %s in address space 0x%x, not 0x%x",
                      name, got, (unsigned)q, (unsigned)space[g->kind]);
        ck_assert_msg(g->kind != SINPE__IN || (tq & CL_KERNEL_ARG_TYPE_CONST),
                      "%s: argument %s is not const", name, got);
        ck_assert_msg(g->kind != SINPE__OUT || !(tq & CL_KERNEL_ARG_TYPE_CONST),
                      "%s: argument %s is const", name, got);
    }
    clReleaseKernel(kernel);
}

/* Whether the kernel names of a program (';' between two) hold name. */
static int names_hold(const char *names, const char *name)
{
    size_t n = strlen(name);
    for (const char *at = strstr(names, name); at; at = strstr(at + 1, name))
        if ((at == names || at[-1] == ';') && (at[n] == ';' || at[n] == 0))
            return 1;
    return 0;
}

/* Whether the program of weights w built with form alone (-1: every
   form) is to hold kernel k. */
static int wanted(int w, int form, int k)
{
    return sinpe__kernel_held(NULL, w, k) && (form < 0 || sinpe__kernels[k].form == form);
}

/* Every program built with every form held and with each form alone: its
   kernels are the entries of the host's table its program holds, of that
   form, both ways (a kernel on one side only, under another form's guard
   or in the other program fails), and each has its form's signature. */
START_TEST(contract_kernels)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    int checked = 0;
    /* The base program, and one of weights (COL's bf16 kernels among its
       own: with no record, a program holds every kernel of its calls). */
    for (int w = -1; w <= SINPE_F32; w++)
        for (int form = -1; form < SINPE_FORMS; form++) {
            static char names[8192];
            const char *of = form < 0 ? "every form" : form_name[form];
            cl_program prog = build_form(ctx, NULL, w, form);
            int any = 0;
            for (int k = 0; k < sinpe__kernel_count; k++)
                any |= wanted(w, form, k);
            /* A program with no kernel: pocl writes no names, Intel's
               runtime answers CL_INVALID_PROGRAM_EXECUTABLE. */
            names[0] = 0;
            cl_int err = clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
            ck_assert_msg(err == CL_SUCCESS || (!any && err == CL_INVALID_PROGRAM_EXECUTABLE),
                          "weights %d, %s: CL_PROGRAM_KERNEL_NAMES gave %d", w, of, (int)err);
            for (int k = 0; k < sinpe__kernel_count; k++) {
                const char *name = sinpe__kernels[k].name;
                ck_assert_msg(names_hold(names, name) == wanted(w, form, k),
                              "weights %d, %s: %s %s", w, of, name,
                              wanted(w, form, k) ? "missing" : "in the program");
                if (wanted(w, form, k)) {
                    check_kernel(prog, k);
                    checked += form >= 0;
                }
            }
            for (const char *at = names; *at; at += *at == ';') {
                int n = (int)strcspn(at, ";"), k = 0;
                while (k < sinpe__kernel_count && (strncmp(sinpe__kernels[k].name, at, n) != 0 ||
                                                   sinpe__kernels[k].name[n] != 0))
                    k++;
                ck_assert_msg(k < sinpe__kernel_count, "weights %d, %s: %.*s is not the host's", w,
                              of, n, at);
                at += n;
            }
            clReleaseProgram(prog);
        }
    ck_assert_int_eq(checked, sinpe__kernel_count);
    sinpe_context_release(ctx);
}
END_TEST

/* Each kernel's line in the program runs the body of its entry's form,
   call and output type, and the program has no other. */
START_TEST(contract_bodies)
{
    static const char *const mode[] = {"FUSED", "GATHER", "ADD", "NONE"};
    static const char *const out[] = {"F32", "F16", "BF16"};
    const char *at = sinpe__kernel_source;
    int lines = 0;
    for (int k = 0; k < sinpe__kernel_count; k++) {
        const sinpe__kernel *e = &sinpe__kernels[k];
        char want[256], head[128];
        const char *line;
        ck_assert_int_le(e->ot, SINPE_BF16);
        if (e->mode == SINPE_MODE_NONE)
            snprintf(want, sizeof want, "kernel void %s(SINPE_PARAMS(SINPE_SIG_%s)) "
                     "{ SINPE_BODY(%s, %s); }\n", e->name, form_sig[e->form],
                     form_name[e->form], out[e->ot]);
        else
            snprintf(want, sizeof want, "kernel void %s(SINPE_EMBED_PARAMS) "
                     "{ SINPE_EMBED(%s, %s, %s); }\n", e->name, form_name[e->form],
                     mode[e->mode], out[e->ot]);
        snprintf(head, sizeof head, "\nkernel void %s(", e->name);
        line = strstr(sinpe__kernel_source, head);
        ck_assert_msg(line != NULL, "no kernel %s in the program", e->name);
        ck_assert_msg(strncmp(line + 1, want, strlen(want)) == 0, "%.*s: the host's entry is %s",
                      (int)strcspn(line + 1, "\n"), line + 1, want);
    }
    while ((at = strstr(at, "\nkernel ")) != NULL) {
        at++;
        lines++;
    }
    ck_assert_int_eq(lines, sinpe__kernel_count);
}
END_TEST

/* Every .cl file of kernels/ compiles on its own; the program's files from
   disk define the kernels of the embedded text. */
START_TEST(contract_files_standalone)
{
    sinpe_context *ctx = tu_context(SINPE_MATH_AUTO);
    DIR *dir = opendir("kernels");
    struct dirent *e;
    int files = 0;
    ck_assert_msg(dir != NULL, "kernels/ not found: run the tests from the repository root");
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        char text[300];
        if (len < 4 || strcmp(e->d_name + len - 3, ".cl") != 0)
            continue;
        snprintf(text, sizeof text, "#include \"%s\"\n", e->d_name);
        clReleaseProgram(build(ctx, text, -1));
        files++;
    }
    closedir(dir);
    char roots[2048] = "";
    int n = 0;
    for (; sinpe__kernel_source_roots[n]; n++)
        snprintf(roots + strlen(roots), sizeof roots - strlen(roots), "#include \"%s\"\n",
                 sinpe__kernel_source_roots[n]);
    ck_assert_msg(files >= 9 && files == n, "%d kernel files, %d in the program", files, n);
    for (int w = -1; w <= SINPE_F32; w++) {
        char a[8192] = "", b[8192] = "";
        cl_program embedded = build(ctx, NULL, w), disk = build(ctx, roots, w);
        clGetProgramInfo(embedded, CL_PROGRAM_KERNEL_NAMES, sizeof a, a, NULL);
        clGetProgramInfo(disk, CL_PROGRAM_KERNEL_NAMES, sizeof b, b, NULL);
        ck_assert_msg(a[0] && strcmp(a, b) == 0, "weights %d: embedded %s, from disk %s", w, a, b);
        clReleaseProgram(embedded);
        clReleaseProgram(disk);
    }
    sinpe_context_release(ctx);
}
END_TEST

START_TEST(contract_variants_reach)
{
    for (size_t i = 0; sinpe__database[i]; i++) {
        sinpe__record r;
        sinpe__tuning v[3];
        ck_assert_int_eq(sinpe__record_parse(sinpe__database[i], &r), 0);
        size_t n = sinpe__plan_variants(&r.t, v);
        ck_assert_msg(n >= 1 && n <= 3, "record %s: %zu variants", r.name, n);
        for (int w = -1; w == -1 || sinpe__dtype((sinpe_dtype)w); w++)
            for (int k = 0; k < sinpe__kernel_count; k++) {
                int held = 0;
                for (size_t j = 0; j < n; j++)
                    held |= sinpe__kernel_held(&v[j], w, k);
                ck_assert_msg(held || !sinpe__kernel_held(&r.t, w, k),
                              "record %s, weights %d: no variant holds %s", r.name, w,
                              sinpe__kernels[k].name);
            }
        ck_assert_uint_eq(sinpe__plan_forms(&r.t) & ~(sinpe__plan_forms(&v[0]) |
                                                      sinpe__plan_forms(&v[n - 1]) |
                                                      sinpe__plan_forms(&v[n / 2])),
                          0);
    }
}
END_TEST

START_TEST(contract_plan_refuses_missing)
{
    static sinpe__program empty; /* no kernel */
    sinpe__device_info dev;
    sinpe__launch l;
    const size_t n[2] = {64, 4};
    memset(&dev, 0, sizeof dev);
    dev.max_item[0] = dev.max_item[1] = dev.max_item[2] = 256;
    ck_assert_int_eq(sinpe__plan_fixed(&dev, &empty, SINPE_FORM_ANCHORS, SINPE_F32, 2, n, &l),
                     CL_INVALID_KERNEL);
    ck_assert_int_eq(sinpe__plan_fixed(&dev, &empty, SINPE_FORM_ROWS, SINPE_I8, 2, n, &l),
                     CL_INVALID_KERNEL);
}
END_TEST

TU_SUITE(contract, 19)
{
    Suite *s = suite_create("contract");
    TCase *tc = tu_tcase(s, "kernels", NULL);
    /* Every program and file built from source, no cache: on Intel's
       compiler 150-300 s a test, more on a loaded machine. */
    tcase_set_timeout(tc, TU_TIMEOUT_COLD);
    TU_ADD(tc, contract_kernels, contract_bodies, contract_files_standalone,
           contract_variants_reach, contract_plan_refuses_missing);
    return s;
}
