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
 *
 * It also turns LeakSanitizer off on the calling thread while MPI_Init, MPI_Init_thread
 * and MPI_Finalize run (the MPI profiling interface: these wrappers call PMPI_*). Open MPI
 * leaves ~20 blocks from its start-up; each suppressed block was matched frame by frame,
 * and the first frames (ASan's malloc, glibc's strdup) were symbolized through libbacktrace,
 * which inflates glibc's compressed detached debug info (libc6-dbg, a valgrind
 * recommendation): 0.2 s at the exit of every process, about a minute of the sanitizer
 * pass. Blocks allocated with LeakSanitizer off are never reported, so no symbolizing.
 * No prism code runs inside these calls. The threads Open MPI starts inside them run
 * with it off as well (pthread_create, below); what Open MPI's other calls leave still
 * goes through the suppressions.
 * Built without sanitizers, and preloaded into every process of a test (bash, python,
 * mpiexec too): the sanitizer and MPI entry points are weak, so a process without them
 * loads this file unchanged. It changes no result of any program.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

// Weak: present only in a sanitized process that links Open MPI.
__attribute__((weak)) void __lsan_disable(void);
__attribute__((weak)) void __lsan_enable(void);
__attribute__((weak)) int PMPI_Init(int *argc, char ***argv);
__attribute__((weak)) int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
__attribute__((weak)) int PMPI_Finalize(void);
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);

/* set while this process is inside MPI_Init, MPI_Init_thread or MPI_Finalize */
static _Atomic int in_mpi_setup;

static void leaks_off(void)
{
    in_mpi_setup = 1;
    if (__lsan_disable != NULL) {
        __lsan_disable();
    }
}

static void leaks_on(void)
{
    if (__lsan_enable != NULL) {
        __lsan_enable();
    }
    in_mpi_setup = 0;
}

int MPI_Init(int *argc, char ***argv)
{
    leaks_off();
    int rc = PMPI_Init(argc, argv);
    leaks_on();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    leaks_off();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    leaks_on();
    return rc;
}

int MPI_Finalize(void)
{
    leaks_off();
    int rc = PMPI_Finalize();
    leaks_on();
    return rc;
}

/*
 * Threads that Open MPI starts inside MPI_Init (PMIx's and the runtime's progress threads:
 * libevent loops) run with leak checking off too. With 2 ranks, PMIx's thread left one
 * 32-byte block (pmix_hash_fetch), suppressed by module name, but only after the frame
 * below it (ASan's malloc) was symbolized: libbacktrace inflated compressed debug info at
 * exit, 0.35 s of CPU per rank. No prism code runs on those threads; every thread prism
 * starts (after MPI_Init) is checked as before.
 */
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
struct quiet_start {
    void *(*fn)(void *);
    void *arg;
};

static void *quiet_thread(void *p)
{
    struct quiet_start s = *(struct quiet_start *)p;
    free(p);
    __lsan_disable();
    return s.fn(s.arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static create_fn next;
    if (next == NULL) {
        next = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    }
    if (in_mpi_setup && __lsan_disable != NULL) {
        struct quiet_start *s = malloc(sizeof *s);
        if (s != NULL) {
            *s = (struct quiet_start){fn, arg};
            int rc = next(thread, attr, quiet_thread, s);
            if (rc != 0) {
                free(s);
            }
            return rc;
        }
    }
    return next(thread, attr, fn, arg);
}
