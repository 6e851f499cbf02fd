// SPDX-License-Identifier: MIT
/*
 * lsan_selftest.c - proves that the sanitizer pass's leak checking still works
 * (tests/cli/lsan_selftest.sh). It leaks three blocks on purpose: one from malloc in a
 * function of this file between MPI_Init and MPI_Finalize (where prism's code runs: leak
 * checking, off inside those calls by keep_dso.c, must be back on), one from malloc on a
 * GLib thread started after MPI_Init (as prism's search threads are: keep_dso.c turns
 * checking off only on the threads Open MPI starts inside MPI_Init), and one from GLib's
 * g_strdup_printf, the allocator most of prism uses, after MPI_Finalize. LeakSanitizer
 * must report exactly these three, with this file's function in the stacks, and nothing
 * from Open MPI (its leftovers are ignored or suppressed: keep_dso.c, lsan.supp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <mpi.h>

void *volatile prism_selftest_sink;

static __attribute__((noinline)) void leak_from_malloc(void)
{
    char *p = malloc(4099); // odd sizes: the script finds them in the report
    if (p != NULL) {
        memset(p, 1, 4099);
    }
    prism_selftest_sink = p;
    prism_selftest_sink = NULL;
}

static __attribute__((noinline)) void *leak_from_thread(void *unused)
{
    (void)unused;
    char *p = malloc(2053);
    if (p != NULL) {
        memset(p, 2, 2053);
    }
    prism_selftest_sink = p;
    prism_selftest_sink = NULL;
    return NULL;
}

static __attribute__((noinline)) void leak_from_glib(void)
{
    prism_selftest_sink = g_strdup_printf("%0*d", 3070, 7); // 3071 bytes
    prism_selftest_sink = NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    leak_from_malloc();
    g_thread_join(g_thread_new("leaker", leak_from_thread, NULL));
    MPI_Finalize();
    leak_from_glib();
    printf("lsan_selftest: leaked 4099, 2053 and 3071 bytes on purpose\n");
    fflush(stdout); // LeakSanitizer ends the process before stdio flushes it
    return 0;
}
