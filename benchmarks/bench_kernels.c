// SPDX-License-Identifier: MIT
/*
 * bench_kernels.c - cost-kernel throughput per ISA: evaluations per second per core on
 * GPT-3 175B (1024 A100-80GB, gbs 1536, seq 2048) and DeepSeek-V3 (2048 H100, gbs 4096,
 * seq 4096), in throughput mode (batches of --batch lanes), latency mode (batches of
 * one) and lean mode (throughput with prism_evaluator_set_lean: the columns a search
 * without a row sink reads, as `prism plan` evaluates). Segments are a fixed, realistic mix of (pp,
 * vpp, schedule, recompute) keys; the lanes of each are every valid (tp, cp, ep, sp, mbs, zero)
 * combination, cycled to fill the batch. Every ISA's output is compared bit for bit with the scalar
 * reference before it is timed (lean mode: the columns it writes), so a fast wrong kernel cannot
 * win.
 *
 * Output: one JSON header line, one JSON line per (model, ISA, mode), then a table.
 *   bench_kernels [--reps N] [--batch B] [--seconds S] [--quick]
 * Single process, one thread; nothing here is collective.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <prism/core.h>
#include <prism/cost.h>

#include "bench.h"

typedef struct KeySpec {
    uint32_t pp, vpp;
    uint8_t schedule, recompute;
    uint16_t rc;
} KeySpec;

typedef struct Setup {
    const char *label, *model, *cluster;
    uint32_t devices;
    uint64_t gbs, seq;
    KeySpec keys[8];
} Setup;

static const Setup setups[] = {
    {"gpt3-175b",
     "gpt3-175b",
     "A100-80GB",
     1024,
     1536,
     2048,
     {{8, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_SELECTIVE, 0},
      {16, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_FULL, 0},
      {16, 2, PRISM_SCHEDULE_INTERLEAVED, PRISM_RECOMPUTE_SELECTIVE, 0},
      {8, 3, PRISM_SCHEDULE_INTERLEAVED, PRISM_RECOMPUTE_NONE, 0},
      {32, 1, PRISM_SCHEDULE_ZB_H1, PRISM_RECOMPUTE_BLOCK, 1},
      {4, 1, PRISM_SCHEDULE_GPIPE, PRISM_RECOMPUTE_FULL, 0},
      {1, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_FULL, 0},
      {8, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_BLOCK, 4}}},
    {"deepseek-v3",
     "deepseek-v3",
     "H100-SXM",
     2048,
     4096,
     4096,
     {{16, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_SELECTIVE, 0},
      {8, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_FULL, 0},
      {16, 2, PRISM_SCHEDULE_INTERLEAVED, PRISM_RECOMPUTE_FULL, 0},
      {32, 1, PRISM_SCHEDULE_ZB_H1, PRISM_RECOMPUTE_SELECTIVE, 0},
      {4, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_BLOCK, 3},
      {8, 2, PRISM_SCHEDULE_INTERLEAVED, PRISM_RECOMPUTE_SELECTIVE, 0},
      {16, 1, PRISM_SCHEDULE_GPIPE, PRISM_RECOMPUTE_FULL, 0},
      {2, 1, PRISM_SCHEDULE_1F1B, PRISM_RECOMPUTE_NONE, 0}}},
};

typedef struct Batch {
    PrismCostSegment *seg;
    double *lanes; /* 8 x n */
    PrismLanes view;
} Batch;

typedef struct Run {
    PrismEvaluator *ev;
    Batch *b;
    size_t nb;
    PrismCostOut out;
    size_t batch, latency_lane;
} Run;

/* Every valid lane of a key, cycled into a batch of @p n. FALSE when the key admits none. */
static gboolean fill(const PrismCostModel *cm, const Setup *su, const KeySpec *k, size_t n,
                     Batch *b)
{
    const PrismModel *model = prism_cost_model_model(cm);
    const PrismTraining *t = prism_cost_model_training(cm);
    GArray *ok = g_array_new(FALSE, FALSE, sizeof(PrismStrategy));
    const uint32_t rest = su->devices / k->pp;
    for (uint32_t tp = 1; tp <= 64 && tp <= rest; tp *= 2)
        for (uint32_t cp = 1; cp <= 16 && tp * cp <= rest; cp *= 2)
            for (uint32_t ep = 1; ep <= 256; ep *= 2)
                for (uint32_t mbs = 1; mbs <= 8; mbs *= 2)
                    for (uint8_t sp = 0; sp <= 1; sp++)
                        for (uint8_t z = 0; z <= 3; z++) {
                            const uint32_t dp = rest / (tp * cp);
                            PrismStrategy s = {.devices = su->devices,
                                               .dp = dp,
                                               .tp = tp,
                                               .pp = k->pp,
                                               .vpp = k->vpp,
                                               .cp = cp,
                                               .ep = ep,
                                               .mbs = mbs,
                                               .sp = sp,
                                               .zero = z,
                                               .recompute = k->recompute,
                                               .schedule = k->schedule,
                                               .rc_layers = k->rc};
                            s.m = dp > 0 ? (uint32_t)(t->gbs / ((uint64_t)dp * mbs)) : 0;
                            if (prism_strategy_check(&s, model, t, NULL))
                                g_array_append_val(ok, s);
                        }
    if (ok->len == 0) {
        g_array_free(ok, TRUE);
        return FALSE;
    }
    const PrismSegmentKey key = {.devices = su->devices,
                                 .pp = k->pp,
                                 .vpp = k->vpp,
                                 .schedule = k->schedule,
                                 .recompute = k->recompute,
                                 .rc_layers = k->rc};
    b->seg = prism_cost_segment_new(cm, &key, FALSE, NULL);
    b->lanes = prism_aligned_new(9 * n, sizeof(double));
    double *L = b->lanes;
    for (size_t i = 0; i < n; i++) {
        const PrismStrategy *s = &g_array_index(ok, PrismStrategy, i % ok->len);
        const double v[9] = {
            s->tp, s->cp, s->dp, s->ep, s->sp, s->mbs, s->m, s->zero, prism_strategy_etp(s)};
        for (int d = 0; d < 9; d++)
            L[(size_t)d * n + i] = v[d];
    }
    b->view =
        (PrismLanes){L,         L + n, L + 2 * n, L + 3 * n, L + 4 * n, L + 5 * n, L + 6 * n,
                     L + 7 * n, n,     L + 8 * n, NULL,      NULL,      NULL,      NULL,
                     NULL,      NULL,  0,         0,         NULL,      0}; /* overlap: all on */
    g_array_free(ok, TRUE);
    return b->seg != NULL;
}

static void run_throughput(void *payload)
{
    Run *r = payload;
    for (size_t i = 0; i < r->nb; i++)
        prism_evaluator_run(r->ev, r->b[i].seg, &r->b[i].view, &r->out);
}

static void run_latency(void *payload)
{
    Run *r = payload;
    for (size_t i = 0; i < r->nb; i++) {
        const PrismLanes *v = &r->b[i].view;
        const size_t j = r->latency_lane++ % v->n;
        PrismLanes one = {v->tp + j,  v->cp + j, v->dp + j,   v->ep + j, v->sp + j,
                          v->mbs + j, v->m + j,  v->zero + j, 1,         v->etp + j,
                          NULL,       NULL,      NULL,        NULL,      NULL,
                          NULL,       0,         0,           NULL,      0};
        prism_evaluator_run(r->ev, r->b[i].seg, &one, &r->out);
    }
}

int main(int argc, char **argv)
{
    int reps = 5;
    size_t batch = 1024;
    double seconds = 0.3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc)
            batch = (size_t)atol(argv[++i]);
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--quick") == 0) {
            reps = 1;
            seconds = 0.01;
        } else {
            fprintf(stderr, "usage: bench_kernels [--reps N] [--batch B] [--seconds S] "
                            "[--quick]\n");
            return 2;
        }
    }
    if (batch < 1 || reps < 1)
        return 2;
    const PrismKernelTable *kt_auto = prism_kernel_table_get("auto", NULL);
    const char *extra[] = {"auto_isa", prism_kernel_table_name(kt_auto), NULL, NULL};
    prism_bench_header("kernels", argc, argv, extra);
    int status = 0;
    GString *table = g_string_new(NULL);
    g_string_append_printf(table, "\n%-12s %-7s %-10s %14s %14s %14s %9s\n", "model", "isa", "mode",
                           "evals/cpu-s med", "evals/cpu-s best", "evals/s (wall)", "vs scalar");
    for (size_t si = 0; si < G_N_ELEMENTS(setups); si++) {
        const Setup *su = &setups[si];
        GError *error = NULL;
        g_autoptr(PrismModel) m = prism_model_zoo_get(su->model, &error);
        g_autoptr(PrismCluster) c = prism_cluster_preset(su->cluster, &error);
        if (m == NULL || c == NULL) {
            fprintf(stderr, "bench_kernels: %s\n", error->message);
            return 1;
        }
        PrismTraining t;
        prism_training_default(&t);
        t.gbs = su->gbs;
        t.seq = su->seq;
        g_autoptr(PrismCostModel) cm = prism_cost_model_new(m, c, &t, NULL, &error);
        if (cm == NULL) {
            fprintf(stderr, "bench_kernels: %s\n", error->message);
            return 1;
        }
        Batch b[8];
        size_t nb = 0, cands = 0;
        for (size_t k = 0; k < 8; k++)
            if (fill(cm, su, &su->keys[k], batch, &b[nb])) {
                cands += prism_cost_segment_n_candidates(b[nb].seg);
                nb++;
            }
        /* reference outputs (scalar) for the results check */
        double *ref = prism_aligned_new(nb * batch * PRISM_COL_COUNT, sizeof(double));
        double *got = prism_aligned_new(batch * PRISM_COL_COUNT, sizeof(double));
        {
            g_autoptr(PrismEvaluator) ev =
                prism_evaluator_new(cm, prism_kernel_table_get("scalar", NULL), batch);
            for (size_t i = 0; i < nb; i++) {
                PrismCostOut o;
                for (int k = 0; k < PRISM_COL_COUNT; k++)
                    o.col[k] = ref + (i * PRISM_COL_COUNT + (size_t)k) * batch;
                prism_evaluator_run(ev, b[i].seg, &b[i].view, &o);
            }
        }
        double scalar_rate[3] = {0, 0, 0};
        for (size_t ii = 0; ii < prism_kernel_isa_count(); ii++) {
            const char *isa = prism_kernel_isa_name(ii);
            if (!prism_kernel_isa_supported(isa))
                continue;
            Run r = {.ev = prism_evaluator_new(cm, prism_kernel_table_get(isa, NULL), batch),
                     .b = b,
                     .nb = nb,
                     .batch = batch};
            for (int k = 0; k < PRISM_COL_COUNT; k++)
                r.out.col[k] = got + (size_t)k * batch;
            gboolean same = TRUE;
            for (size_t i = 0; i < nb; i++) {
                run_throughput(&(Run){r.ev, &b[i], 1, r.out, batch, 0});
                same &= memcmp(got, ref + i * PRISM_COL_COUNT * batch,
                               PRISM_COL_COUNT * batch * sizeof(double)) == 0;
            }
            gboolean same_lean = TRUE;
            prism_evaluator_set_lean(r.ev, TRUE);
            for (size_t i = 0; i < nb; i++) {
                run_throughput(&(Run){r.ev, &b[i], 1, r.out, batch, 0});
                for (int k = 0; k < PRISM_COL_COUNT; k++)
                    same_lean &=
                        !prism_cost_col_lean((PrismCostCol)k) ||
                        memcmp(r.out.col[k], ref + (i * PRISM_COL_COUNT + (size_t)k) * batch,
                               batch * sizeof(double)) == 0;
            }
            if (!same || !same_lean) {
                fprintf(stderr, "bench_kernels: %s%s differs from scalar on %s\n", isa,
                        same ? " (lean)" : "", su->label);
                status = 1;
            }
            for (int mode = 0; mode < 3; mode++) {
                prism_evaluator_set_lean(r.ev, mode == 2);
                PrismBenchParams p = {.name = mode == 1   ? "latency"
                                              : mode == 2 ? "lean"
                                                          : "throughput",
                                      .fn = mode == 1 ? run_latency : run_throughput,
                                      .payload = &r,
                                      .items_per_call = (double)(mode == 1 ? nb : nb * batch),
                                      .reps = reps,
                                      .min_seconds = seconds};
                PrismBenchOutcome o = prism_bench_run(&p);
                if (strcmp(isa, "scalar") == 0)
                    scalar_rate[mode] = o.median_items_per_cpu_s;
                const double speedup =
                    scalar_rate[mode] > 0 ? o.median_items_per_cpu_s / scalar_rate[mode] : 0;
                printf("{\"model\":\"%s\",\"isa\":\"%s\",\"mode\":\"%s\",\"batch\":%zu,"
                       "\"segments\":%zu,\"candidates\":%zu,\"reps\":%d,"
                       "\"evals_per_cpu_s_median\":%.6g,\"evals_per_cpu_s_best\":%.6g,"
                       "\"evals_per_s_median\":%.6g,\"evals_per_s_best\":%.6g,"
                       "\"ns_per_eval\":%.4g,\"speedup_vs_scalar\":%.3f,\"check\":\"%s\"}\n",
                       su->label, isa, p.name, mode == 1 ? (size_t)1 : batch, nb, cands, reps,
                       o.median_items_per_cpu_s, o.best_items_per_cpu_s, o.median_items_per_s,
                       o.best_items_per_s, o.median_ns_per_item, speedup,
                       (mode == 2 ? same_lean : same) ? "bit-identical" : "DIFFERS");
                g_string_append_printf(table, "%-12s %-7s %-10s %14.4g %14.4g %14.4g %8.2fx\n",
                                       su->label, isa, p.name, o.median_items_per_cpu_s,
                                       o.best_items_per_cpu_s, o.median_items_per_s, speedup);
            }
            prism_evaluator_free(r.ev);
        }
        for (size_t i = 0; i < nb; i++) {
            prism_cost_segment_free(b[i].seg);
            prism_aligned_free(b[i].lanes);
        }
        prism_aligned_free(ref);
        prism_aligned_free(got);
    }
    fputs(table->str, stdout);
    g_string_free(table, TRUE);
    return status;
}
