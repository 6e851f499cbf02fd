/*
 * bench.h - a small shared harness for the benchmark programs (STYLE.md section 10):
 * a self-describing JSON header line, then timed repetitions of a function with a
 * discarded warm-up, reporting the median and best of N repetitions. Single process;
 * nothing here is collective.
 */
#ifndef PRISM_BENCH_H
#define PRISM_BENCH_H

#include <stddef.h>

#include <glib.h>

typedef struct PrismBenchParams {
    const char *name;
    void (*fn)(void *payload); /* one call = items_per_call items of work */
    void *payload;
    double items_per_call;
    int reps;           /* timed repetitions after one warm-up (>= 1) */
    double min_seconds; /* each repetition calls fn until at least this long */
} PrismBenchParams;

/* Rates are measured on two clocks: wall time, and the calling thread's CPU time (which
 * excludes the time the thread was descheduled: on a loaded shared machine it is the
 * better estimate of per-core throughput). */
typedef struct PrismBenchOutcome {
    double median_items_per_s, best_items_per_s;         /* wall clock */
    double median_items_per_cpu_s, best_items_per_cpu_s; /* thread CPU clock */
    double median_ns_per_item;                           /* wall clock */
    long calls_per_rep;
} PrismBenchOutcome;

/** Time @p p->fn as described above. */
PrismBenchOutcome prism_bench_run(const PrismBenchParams *p);

/** Print the JSON header line: bench name, git revision, compiler, build type, CPU
 *  model, the extra key/value pairs (NULL-terminated list of pairs) and argv. */
void prism_bench_header(const char *bench, int argc, char **argv, const char *const *extra);

/** Sort @p v ascending: then v[0] is the best (smallest) time and v[n / 2] the median. */
void prism_bench_sort(double *v, size_t n);

/** The options most programs take: --reps N (kept >= 1) and --quick (a short run for
 *  the CTest smoke test); any other argument is left to the program. */
void prism_bench_common_args(int argc, char **argv, int *reps, gboolean *quick);

/** The MPI library's version, up to its first comma or newline (needs MPI_Init).
 *  Ownership: g_free(). */
char *prism_bench_mpi_library(void);

#endif /* PRISM_BENCH_H */
