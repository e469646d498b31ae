/* forms.h -- the kernel forms each tuning record of the tests adds to a run
 * under the device's own record (forms.c). */
#ifndef SINPE_TEST_FORMS_H
#define SINPE_TEST_FORMS_H

/* Prints "tags<TAB>record" for each record of tu_variants() whose programs
 * hold a kernel, built and launched with its values, that neither the
 * device's own record nor an earlier one holds; tags are the forms of those
 * kernels.  Creates a context: not for a process that forks Check tests
 * afterwards.  Returns 0, or -1 when no device or record can be read. */
int tu_print_record_tags(void);

#endif
