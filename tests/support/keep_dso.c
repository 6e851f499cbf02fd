// SPDX-License-Identifier: MIT
/*
 * keep_dso.c - preloaded into every process of a sanitizer build's tests (LD_PRELOAD,
 * tests/CMakeLists.txt) so that LeakSanitizer's suppressions of Open MPI's own leftovers
 * (support/lsan.supp) hold with ASan's fast unwinder. The full unwinder
 * (fast_unwind_on_malloc=0) cost 3-6x in time on every allocation of every test.
 *
 * The fast unwinder follows frame pointers. The first frame above malloc (the caller's
 * return address) is always right; the suppressions match module names there. Two things
 * break that for Open MPI:
 *  - Open MPI loads its components (mca_*.so) with dlopen and unloads them in
 *    MPI_Finalize, before LeakSanitizer reports at exit: the frames then name
 *    "<unknown module>". dlclose() here keeps every object mapped.
 *  - asprintf and vasprintf allocate inside glibc, which has no frame pointers: the stack
 *    of such a block ends at glibc's __vasprintf_internal and never names its caller.
 *    They are defined here, with frame pointers, over vsnprintf and malloc (ASan's), so
 *    the frame above them is the caller's module. The _chk forms (fortified callers)
 *    land here too; their flag only asks for %n checks, which is not kept.
 * Built without sanitizers. It changes no result of any program.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int dlclose(void *handle);
int vasprintf(char **out, const char *fmt, va_list ap);
int asprintf(char **out, const char *fmt, ...);
int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap);
int __asprintf_chk(char **out, int flag, const char *fmt, ...);

int dlclose(void *handle)
{
    (void)handle;
    return 0;
}

int vasprintf(char **out, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s == NULL) {
        return -1; // *out is undefined on failure, as glibc documents
    }
    *out = s;
    return vsnprintf(s, (size_t)n + 1, fmt, ap);
}

int asprintf(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}

int __vasprintf_chk(char **out, int flag, const char *fmt, va_list ap)
{
    (void)flag;
    return vasprintf(out, fmt, ap);
}

int __asprintf_chk(char **out, int flag, const char *fmt, ...)
{
    (void)flag;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(out, fmt, ap);
    va_end(ap);
    return n;
}
