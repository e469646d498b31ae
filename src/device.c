/*
 * device.c -- finding a device (SINPE_DEVICE, else GPU > accelerator > CPU)
 * and reading the few facts sinpe's choices depend on.
 */
#include "sinpe_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES 64

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    unsigned pi, di;   /* indices as "P:D" counts them */
    cl_device_type type;
    char name[512];    /* "platform name / device name" */
} candidate;

/*
 * Some runtimes initialise their devices on the first clGetPlatformIDs and
 * race when several threads make that first call at once (pocl segfaults):
 * enumeration is serialised process-wide.
 */
static pthread_mutex_t enumerate_lock = PTHREAD_MUTEX_INITIALIZER;

/* Called under enumerate_lock. */
static unsigned list_devices(candidate *out, unsigned cap)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0, n = 0;
    if (clGetPlatformIDs(MAX_PLATFORMS, plats, &np) != CL_SUCCESS)
        return 0;
    if (np > MAX_PLATFORMS)
        np = MAX_PLATFORMS;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[MAX_DEVICES];
        cl_uint nd = 0;
        char pname[200] = "";
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue;
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        if (nd > MAX_DEVICES)
            nd = MAX_DEVICES;
        for (cl_uint d = 0; d < nd && n < cap; d++) {
            candidate *c = &out[n++];
            char dname[256] = "";
            c->platform = plats[p];
            c->device = devs[d];
            c->pi = p;
            c->di = d;
            c->type = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof c->type, &c->type, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
            snprintf(c->name, sizeof c->name, "%s / %s", pname, dname);
        }
    }
    return n;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return n == 0;
}

/* "P", "P:D": 1 and the indices; 0 when sel is not of that form; -1 malformed. */
static int parse_indices(const char *sel, unsigned *p, unsigned *d)
{
    const char *colon = strchr(sel, ':');
    if (sel[strspn(sel, "0123456789:")] || (colon && strchr(colon + 1, ':')))
        return 0;
    if (!isdigit((unsigned char)sel[0]) || (colon && !isdigit((unsigned char)colon[1])))
        return -1;
    *p = (unsigned)strtoul(sel, NULL, 10);
    *d = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
    return 1;
}

sinpe_status sinpe__device_pick(const char *selector, cl_platform_id *platform,
                                cl_device_id *device)
{
    candidate c[MAX_DEVICES];
    pthread_mutex_lock(&enumerate_lock);
    unsigned n = list_devices(c, MAX_DEVICES);
    pthread_mutex_unlock(&enumerate_lock);
    const char *sel = selector && *selector ? selector : getenv("SINPE_DEVICE");
    const char *from = selector && *selector ? "options.device" : "SINPE_DEVICE";
    int pick = -1;

    SINPE_CHECK(n == 0, SINPE_DEVICE_NOT_FOUND,
                "no OpenCL platform with a device was found (is an ICD installed?)");
    if (sel && *sel) {
        unsigned pi, di;
        int form = parse_indices(sel, &pi, &di);
        SINPE_CHECK(form < 0, SINPE_INVALID_OPTION,
                    "%s \"%s\" is malformed: use \"P:D\" indices or a name substring", from,
                    sel);
        for (unsigned i = 0; i < n && pick < 0; i++)
            if (form ? c[i].pi == pi && c[i].di == di : contains_nocase(c[i].name, sel))
                pick = (int)i;
        SINPE_CHECK(pick < 0, SINPE_DEVICE_NOT_FOUND, "%s \"%s\" matches no device", from,
                    sel);
    } else {
        static const cl_device_type order[] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR,
                                               CL_DEVICE_TYPE_CPU};
        for (unsigned t = 0; t < 3 && pick < 0; t++)
            for (unsigned i = 0; i < n && pick < 0; i++)
                if (c[i].type & order[t])
                    pick = (int)i;
        if (pick < 0)
            pick = 0;
    }
    *platform = c[pick].platform;
    *device = c[pick].device;
    return SINPE_SUCCESS;
}

#define SINPE_DEVICE_EXTENSIONS_WITH_VERSION 0x1060 /* OpenCL 3.0 */

/* The version of cl_khr_command_buffer that device reports (0 if none)
   into *v. */
static sinpe_status command_buffer_version(cl_device_id device, cl_uint *v)
{
    typedef struct {
        cl_uint version;
        char name[64];
    } name_version;
    size_t bytes = 0;
    *v = 0;
    if (clGetDeviceInfo(device, SINPE_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL, &bytes) !=
            CL_SUCCESS ||
        bytes < sizeof(name_version))
        return SINPE_SUCCESS; /* an OpenCL 1.x device */
    name_version *ext = malloc(bytes);
    SINPE_CHECK(!ext, SINPE_OUT_OF_HOST_MEMORY, "no memory for the device's extensions");
    if (clGetDeviceInfo(device, SINPE_DEVICE_EXTENSIONS_WITH_VERSION, bytes, ext, NULL) ==
        CL_SUCCESS)
        for (size_t i = 0; i < bytes / sizeof *ext; i++)
            if (strncmp(ext[i].name, "cl_khr_command_buffer", sizeof ext[i].name) == 0)
                *v = ext[i].version;
    free(ext);
    return SINPE_SUCCESS;
}

sinpe_status sinpe__device_query(cl_device_id device, sinpe__device_info *info)
{
    cl_device_fp_config fp64 = 0;
    memset(info, 0, sizeof *info);
#define QUERY(param, size, value) \
    SINPE_CL_CHECK(clGetDeviceInfo(device, param, size, value, NULL), "clGetDeviceInfo(" #param ")")
    QUERY(CL_DEVICE_NAME, sizeof info->name - 1, info->name);
    QUERY(CL_DEVICE_VENDOR, sizeof info->vendor - 1, info->vendor);
    QUERY(CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof info->max_alloc, &info->max_alloc);
    QUERY(CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof info->max_item, info->max_item);
    QUERY(CL_DEVICE_TYPE, sizeof info->type, &info->type);
#undef QUERY
    /* Absent on devices without fp64: a failure simply means "none". */
    if (clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL) !=
        CL_SUCCESS)
        fp64 = 0;
    info->has_fp64 = fp64 != 0;
    return command_buffer_version(device, &info->cb_version);
}
