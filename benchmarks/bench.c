// SPDX-License-Identifier: MIT
/* bench.c - the shared benchmark harness (see bench.h). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <mpi.h>

#include <prism/core.h>
#include <prism/version.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void prism_bench_sort(double *v, size_t n)
{
    qsort(v, n, sizeof(double), cmp_double);
}

void prism_bench_common_args(int argc, char **argv, int *reps, gboolean *quick)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            *reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--quick") == 0)
            *quick = TRUE;
    }
    if (*reps < 1)
        *reps = 1;
}

char *prism_bench_mpi_library(void)
{
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, ",\n")] = '\0';
    return g_strdup(ver);
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

PrismBenchOutcome prism_bench_run(const PrismBenchParams *p)
{
    const int reps = p->reps < 1 ? 1 : p->reps;
    double *rate = g_new(double, reps), *crate = g_new(double, reps);
    /* warm-up (discarded) also sizes the repetition */
    long calls = 1;
    for (;;) {
        const double t0 = prism_now();
        for (long c = 0; c < calls; c++)
            p->fn(p->payload);
        const double dt = prism_now() - t0;
        if (dt >= p->min_seconds || calls > (1L << 40))
            break;
        calls = dt > 0 ? (long)(calls * 1.2 * p->min_seconds / dt) + 1 : calls * 10;
    }
    for (int r = 0; r < reps; r++) {
        const double t0 = prism_now(), c0 = thread_cpu_s();
        for (long c = 0; c < calls; c++)
            p->fn(p->payload);
        const double dt = prism_now() - t0, dc = thread_cpu_s() - c0;
        rate[r] = (double)calls * p->items_per_call / dt;
        crate[r] = (double)calls * p->items_per_call / dc;
    }
    prism_bench_sort(rate, (size_t)reps);
    prism_bench_sort(crate, (size_t)reps);
    PrismBenchOutcome o = {.median_items_per_s = rate[reps / 2],
                           .best_items_per_s = rate[reps - 1],
                           .median_items_per_cpu_s = crate[reps / 2],
                           .best_items_per_cpu_s = crate[reps - 1],
                           .calls_per_rep = calls};
    o.median_ns_per_item = 1e9 / o.median_items_per_s;
    g_free(rate);
    g_free(crate);
    return o;
}

static char *cpu_model(void)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents("/proc/cpuinfo", &text, NULL, NULL))
        return g_strdup("unknown");
    const char *m = strstr(text, "model name");
    if (m == NULL || (m = strchr(m, ':')) == NULL)
        return g_strdup("unknown");
    const char *end = strchr(m, '\n');
    return g_strstrip(g_strndup(m + 1, end ? (gsize)(end - m - 1) : strlen(m + 1)));
}

void prism_bench_header(const char *bench, int argc, char **argv, const char *const *extra)
{
    g_autofree char *cpu = cpu_model();
    printf("{\"bench\":\"%s\",\"git\":\"%s\",\"compiler\":\"%s\",\"build\":\"%s\","
           "\"cpu\":\"%s\",\"cores\":%d",
           bench, PRISM_GIT_REVISION, PRISM_COMPILER_ID, PRISM_BUILD_TYPE, cpu,
           (int)g_get_num_processors());
    for (const char *const *e = extra; e != NULL && e[0] != NULL && e[1] != NULL; e += 2)
        printf(",\"%s\":\"%s\"", e[0], e[1]);
    printf(",\"argv\":\"");
    for (int i = 0; i < argc; i++)
        printf("%s%s", i ? " " : "", argv[i]);
    printf("\"}\n");
    fflush(stdout);
}
