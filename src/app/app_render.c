// SPDX-License-Identifier: MIT
/*
 * app_render.c - text and JSON of what the libraries return as data: the "nothing fits"
 * diagnosis (diagnose.h; `prism plan` and `prism sweep`), the --refine report
 * (refine.h), and one evaluated row as JSON (plan's top, front and closest entries).
 *
 * Nothing here is collective and nothing computes: callers print on rank 0.
 */
#include "app-internal.h"

#include <math.h>
#include <stdarg.h>

#include <prism/dc.h>
#include <prism/diagnose.h>
#include <prism/refine.h>

#define GIB 1073741824.0

char *prism_app_strategy_text(const PrismStrategy *s, gboolean with_devices)
{
    g_autofree char *t = prism_strategy_format(s);
    return with_devices ? g_strdup_printf("devices=%u,%s", s->devices, t) : g_steal_pointer(&t);
}

void prism_app_row_json(JsonBuilder *b, const PrismCostModel *cm, uint64_t index,
                        const PrismStrategy *s, const double cols[PRISM_COL_COUNT])
{
    json_builder_begin_object(b);
    prism_app_row_json_members(b, cm, index, s, cols);
    json_builder_end_object(b);
}

void prism_app_row_json_members(JsonBuilder *b, const PrismCostModel *cm, uint64_t index,
                                const PrismStrategy *s, const double cols[PRISM_COL_COUNT])
{
    json_builder_set_member_name(b, "index");
    json_builder_add_int_value(b, (gint64)index);
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        json_builder_set_member_name(b, prism_dim_name((PrismDim)d));
        uint64_t v = prism_strategy_dim(s, (PrismDim)d);
        if (d == PRISM_DIM_SCHEDULE || d == PRISM_DIM_RECOMPUTE) {
            g_autofree char *t = prism_dim_value_text((PrismDim)d, v);
            json_builder_add_string_value(b, t);
        } else {
            json_builder_add_int_value(b, (gint64)v);
        }
    }
    g_autofree char *st = prism_strategy_format(s);
    json_builder_set_member_name(b, "strategy");
    json_builder_add_string_value(b, st);
    prism_app_metrics_json(cm, s, cols, b);
}

/* ---- the "nothing fits" diagnosis ---- */

static void add_suggestion(GPtrArray *s, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void add_suggestion(GPtrArray *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    g_ptr_array_add(s, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

/* The closest strategy fits the device; what it offloads does not fit the host. */
static gboolean host_bound(const PrismDiagnosis *d)
{
    return (int)d->closest[0].cols[PRISM_COL_REASON] == PRISM_REASON_MEM_HOST;
}

/* How the suggestions name an input: a command-line option, and for `prism sweep --grid`
 * also the grid file's key that may hold it instead (its [grid] devices and seq refuse
 * the option next to them; [options] mem_budget, fix, range and only add to it). */
typedef struct {
    const char *devices_end, *filters, *budget_end, *fix, *seq;
} InputWords;

static const InputWords *input_words(gboolean grid)
{
    static const InputWords cli = {"", "--fix/--range/--only", " (GiB)", "--fix offload=0",
                                   "--seq"};
    static const InputWords file = {" (or the grid file's devices)",
                                    "--fix/--range/--only and the grid file's [options] "
                                    "fix/range/only",
                                    " (GiB; or the grid file's [options] mem_budget)",
                                    "--fix offload=0, or fix in the grid file's [options]",
                                    "--seq (or the grid file's seq)"};
    return grid ? &file : &cli;
}

static void what_if_text(GPtrArray *out, const PrismDiagnosis *d, const PrismWhatIf *w,
                         const InputWords *iw)
{
    switch (w->kind) {
    case PRISM_WHAT_IF_DEVICES:
        if (w->feasible > 0)
            add_suggestion(out,
                           "more devices: with --devices %u%s, %" G_GUINT64_FORMAT
                           " strategies fit (best step time %.4g s)",
                           w->devices, iw->devices_end, w->feasible, w->best_step);
        else if (w->factor > 0)
            add_suggestion(out,
                           "more devices: even %ux the devices (%u) fit nothing with these "
                           "settings",
                           w->factor, w->devices);
        else
            add_suggestion(out,
                           "more devices: %u is already the largest device count prism "
                           "takes",
                           d->max_devices);
        break;
    case PRISM_WHAT_IF_NO_FILTERS:
        if (w->feasible > 0)
            add_suggestion(out,
                           "drop the filters (%s): %" G_GUINT64_FORMAT
                           " strategies of the unrestricted space fit (best step time "
                           "%.4g s)",
                           iw->filters, w->feasible, w->best_step);
        else
            add_suggestion(out, "the filters are not the cause: the unrestricted space has "
                                "no fitting strategy either");
        break;
    case PRISM_WHAT_IF_MEM_BUDGET:
        /* (what the closest strategy needs: its device-level figure, diagnose.c) */
        /* the closest strategy already fits the device (the host does not): a device
         * budget would say nothing */
        if (host_bound(d))
            break;
        if (w->mem_budget <= d->device_mem) /* a budget below the device's: raise it */
            add_suggestion(out,
                           "--mem-budget %.1f%s: the closest strategy needs %.1f GiB plus "
                           "the %.1f GiB margin (knob mem_margin)",
                           ceil(10 * w->mem_budget / GIB) / 10, iw->budget_end,
                           (w->mem_budget - d->margin) / GIB, d->margin / GIB);
        else /* no budget can be asked for above the device's memory */
            add_suggestion(out,
                           "a device with %.1f GiB or more (this one has %.1f): the closest "
                           "strategy needs %.1f GiB plus the %.1f GiB margin (knob "
                           "mem_margin)",
                           ceil(10 * w->mem_budget / GIB) / 10, d->device_mem / GIB,
                           (w->mem_budget - d->margin) / GIB, d->margin / GIB);
        break;
    case PRISM_WHAT_IF_FILTER_DIM:
        add_suggestion(out, "your filter on %s may exclude %s, which saves memory",
                       prism_dim_name(w->dim), w->saver);
        break;
    }
}

GPtrArray *prism_app_diagnosis_suggestions(const PrismDiagnosis *d, gboolean grid)
{
    const InputWords *iw = input_words(grid);
    GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
    const PrismStrategy *s = &d->closest[0].strategy;
    const double *c = d->closest[0].cols;
    /* the what-ifs that change the inputs, then the cause, then the filter hints */
    for (size_t i = 0; i < d->n_what_ifs; i++)
        if (d->what_ifs[i].kind != PRISM_WHAT_IF_FILTER_DIM)
            what_if_text(out, d, &d->what_ifs[i], iw);
    if (host_bound(d))
        add_suggestion(out,
                       d->host_usable > 0
                           ? "the closest strategy fits the device but offloads %.1f GiB per "
                             "device to a host that has %.1f GiB: offload less (%s) or give "
                             "the cluster more host memory (host_memory_gib)"
                           : "the closest strategy fits the device only by offloading %.1f GiB "
                             "per device, and the cluster gives no host (%.1f GiB: "
                             "host_link_GBps, host_memory_gib and host_memory_bandwidth_GBps in "
                             "a cluster file)",
                       c[PRISM_COL_MEM_HOST] / GIB, d->host_usable / GIB, iw->fix);
    else if (d->statics_exceed)
        add_suggestion(out,
                       "model states (params + grads + optimizer) alone take %.1f GiB per "
                       "device even in the closest strategy (tp=%u, pp=%u, zero=%u): "
                       "shard over more devices",
                       d->statics / GIB, s->tp, s->pp, (unsigned)s->zero);
    else
        add_suggestion(out,
                       "activations take %.1f GiB in the closest strategy (mbs=%u, "
                       "recompute=%s): a shorter %s, or more tp/cp/pp (more devices)",
                       c[PRISM_COL_MEM_ACTIVATIONS] / GIB, s->mbs,
                       prism_recompute_name((PrismRecompute)s->recompute), iw->seq);
    for (size_t i = 0; i < d->n_what_ifs; i++)
        if (d->what_ifs[i].kind == PRISM_WHAT_IF_FILTER_DIM)
            what_if_text(out, d, &d->what_ifs[i], iw);
    return out;
}

void prism_app_diagnosis_text(FILE *out, const PrismDiagnosis *d, gboolean grid)
{
    fprintf(out,
            "\nNothing fits in %.1f GiB usable per device. Closest strategies "
            "(lowest device-level memory):\n",
            d->usable / GIB);
    fprintf(out, "%3s %10s %10s %16s  %s\n", "#", "device GiB", "over GiB", "reason", "strategy");
    for (size_t i = 0; i < d->n_closest; i++) {
        const PrismDiagClosest *c = &d->closest[i];
        g_autofree char *st = prism_app_strategy_text(&c->strategy, d->n_device_counts > 1);
        fprintf(out, "%3zu %10.2f %+10.2f %16s  %s\n", i + 1, (c->over + d->usable) / GIB,
                c->over / GIB, prism_reason_name((PrismReason)(int)c->cols[PRISM_COL_REASON]), st);
    }
    const double *c0 = d->closest[0].cols;
    fprintf(out,
            "Memory of #1: params %.1f, grads %.1f, optimizer %.1f, activations "
            "%.1f, buffers %.1f GiB\nWhat would make room:\n",
            c0[PRISM_COL_MEM_PARAMS] / GIB, c0[PRISM_COL_MEM_GRADS] / GIB,
            c0[PRISM_COL_MEM_OPTIMIZER] / GIB, c0[PRISM_COL_MEM_ACTIVATIONS] / GIB,
            c0[PRISM_COL_MEM_COMM_BUFFERS] / GIB);
    g_autoptr(GPtrArray) sug = prism_app_diagnosis_suggestions(d, grid);
    for (guint i = 0; i < sug->len; i++)
        fprintf(out, "  - %s\n", (const char *)g_ptr_array_index(sug, i));
}

void prism_app_diagnosis_json(JsonBuilder *b, const PrismCostModel *cm, const PrismDiagnosis *d)
{
    json_builder_set_member_name(b, "closest");
    json_builder_begin_array(b);
    for (size_t i = 0; i < d->n_closest; i++)
        prism_app_row_json(b, cm, d->closest[i].index, &d->closest[i].strategy, d->closest[i].cols);
    json_builder_end_array(b);
    g_autoptr(GPtrArray) sug = prism_app_diagnosis_suggestions(d, FALSE);
    prism_app_json_strings(b, "suggestions", sug);
}

void prism_app_diagnosis_error(const PrismDiagnosis *d, gboolean grid, GError **error)
{
    const double *c0 = d->closest[0].cols;
    g_autoptr(GPtrArray) sug = prism_app_diagnosis_suggestions(d, grid);
    if (host_bound(d)) {
        /* the device fits: what does not is the host (a negative "over" would say nothing) */
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                    "nothing fits: the closest strategy needs %.1f of the %.1f GiB usable per "
                    "device but %.1f GiB of host memory per device, over the host's %.1f GiB "
                    "(mem_host); %s",
                    (d->closest[0].over + d->usable) / GIB, d->usable / GIB,
                    c0[PRISM_COL_MEM_HOST] / GIB, d->host_usable / GIB,
                    (const char *)g_ptr_array_index(sug, 0));
        return;
    }
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_INFEASIBLE,
                "nothing fits: the closest strategy needs %.1f GiB per device, %.1f GiB over "
                "the %.1f GiB usable (%s); %s",
                (d->closest[0].over + d->usable) / GIB, d->closest[0].over / GIB, d->usable / GIB,
                prism_reason_name((PrismReason)(int)c0[PRISM_COL_REASON]),
                (const char *)g_ptr_array_index(sug, 0));
}

/* ---- plan --refine ---- */

/* Layers of stage @p st (all its chunks) and how many run each recompute mode. */
static void stage_rc(const PrismLayout *l, uint32_t st, uint32_t cnt[3], uint32_t *layers)
{
    uint32_t at = 0;
    cnt[0] = cnt[1] = cnt[2] = 0;
    *layers = 0;
    for (uint32_t j = 0; j < l->pp * l->vpp; j++) {
        for (uint32_t q = 0; q < l->chunk_layers[j]; q++, at++)
            if (j % l->pp == st) {
                cnt[l->layer_rc[at] < 3 ? l->layer_rc[at] : 0]++;
                (*layers)++;
            }
    }
}

static void print_layout(FILE *out, const char *label, const PrismLayout *l,
                         const double cols[PRISM_COL_COUNT])
{
    fprintf(out, "  %-8s step %.4f s, peak %.2f GiB%s\n", label, cols[PRISM_COL_TIME_STEP],
            cols[PRISM_COL_MEM_PEAK] / GIB,
            cols[PRISM_COL_FEASIBLE] > 0.5 ? "" : " (does NOT fit)");
    fprintf(out, "           layers per stage:");
    for (uint32_t st = 0; st < l->pp; st++) {
        uint32_t cnt[3], layers;
        stage_rc(l, st, cnt, &layers);
        fprintf(out, " %u", layers);
    }
    if (l->vpp > 1) {
        fprintf(out, "; per chunk (model order):");
        for (uint32_t j = 0; j < l->pp * l->vpp; j++)
            fprintf(out, " %u", l->chunk_layers[j]);
    }
    uint32_t all[3] = {0, 0, 0};
    for (uint32_t q = 0; q < l->n_layers; q++)
        all[l->layer_rc[q] < 3 ? l->layer_rc[q] : 0]++;
    int kinds = (all[0] > 0) + (all[1] > 0) + (all[2] > 0);
    if (kinds <= 1) {
        fprintf(out, "\n           recompute: %s on every layer\n",
                all[2]   ? "full"
                : all[1] ? "selective"
                         : "none");
        return;
    }
    fprintf(out, "\n           recompute none/selective/full per stage:");
    for (uint32_t st = 0; st < l->pp; st++) {
        uint32_t cnt[3], layers;
        stage_rc(l, st, cnt, &layers);
        fprintf(out, " %u/%u/%u", cnt[0], cnt[1], cnt[2]);
    }
    fprintf(out, "\n");
}

void prism_app_refine_text(FILE *out, const GPtrArray *results)
{
    fprintf(out, "\nRefined layer split and per-layer recompute (exact numbers from the cost "
                 "model; the uniform split is kept when refining does not help):\n");
    for (guint i = 0; i < results->len; i++) {
        const PrismRefineResult *r = g_ptr_array_index(results, i);
        g_autofree char *st = prism_strategy_format(&r->strategy);
        fprintf(out, "#%u %s\n", i + 1, st);
        print_layout(out, "uniform", r->uniform, r->uniform_cols);
        if (r->improved) {
            print_layout(out, "refined", r->refined, r->refined_cols);
            fprintf(out,
                    "  gain     %.2f%% of the step time (%.4f s -> %.4f s), refined in %.3f s\n",
                    100.0 * r->gain, r->uniform_cols[PRISM_COL_TIME_STEP],
                    r->refined_cols[PRISM_COL_TIME_STEP], r->seconds);
        } else {
            fprintf(out, "  refined  no layout beats the uniform split (%s), %.3f s\n",
                    r->surrogate_ps == PRISM_DC_INF ? "nothing fits the surrogate budget"
                                                    : "kept uniform",
                    r->seconds);
        }
    }
}

static void layout_json(JsonBuilder *b, const PrismLayout *l, const double cols[PRISM_COL_COUNT])
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "chunk_layers");
    json_builder_begin_array(b);
    for (uint32_t j = 0; j < l->pp * l->vpp; j++)
        json_builder_add_int_value(b, l->chunk_layers[j]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "stage_layers");
    json_builder_begin_array(b);
    for (uint32_t st = 0; st < l->pp; st++) {
        uint32_t cnt[3], layers;
        stage_rc(l, st, cnt, &layers);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "layers");
        json_builder_add_int_value(b, layers);
        json_builder_set_member_name(b, "recompute_none");
        json_builder_add_int_value(b, cnt[0]);
        json_builder_set_member_name(b, "recompute_selective");
        json_builder_add_int_value(b, cnt[1]);
        json_builder_set_member_name(b, "recompute_full");
        json_builder_add_int_value(b, cnt[2]);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "layer_recompute");
    json_builder_begin_array(b);
    for (uint32_t q = 0; q < l->n_layers; q++)
        json_builder_add_string_value(b, prism_recompute_name((PrismRecompute)l->layer_rc[q]));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "step_s");
    json_builder_add_double_value(b, cols[PRISM_COL_TIME_STEP]);
    json_builder_set_member_name(b, "mem_peak_bytes");
    json_builder_add_double_value(b, cols[PRISM_COL_MEM_PEAK]);
    json_builder_set_member_name(b, "feasible");
    json_builder_add_boolean_value(b, cols[PRISM_COL_FEASIBLE] > 0.5);
    json_builder_end_object(b);
}

void prism_app_refine_json(JsonBuilder *b, const GPtrArray *results)
{
    json_builder_set_member_name(b, "refine");
    json_builder_begin_array(b);
    for (guint i = 0; i < results->len; i++) {
        const PrismRefineResult *r = g_ptr_array_index(results, i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "strategy");
        json_builder_begin_object(b);
        prism_app_strategy_json(&r->strategy, b);
        json_builder_end_object(b);
        json_builder_set_member_name(b, "uniform");
        layout_json(b, r->uniform, r->uniform_cols);
        json_builder_set_member_name(b, "refined");
        layout_json(b, r->refined, r->refined_cols);
        json_builder_set_member_name(b, "improved");
        json_builder_add_boolean_value(b, r->improved);
        json_builder_set_member_name(b, "gain");
        json_builder_add_double_value(b, r->gain);
        json_builder_set_member_name(b, "seconds");
        json_builder_add_double_value(b, r->seconds);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

/* ---- the track record (validate.h): how the model did on comparable published runs ---- */

static void track_stat_text(GString *o, const char *what, const char *lower, const char *higher,
                            const PrismTrackStat *s, gboolean sources, const PrismTrackRecord *t)
{
    g_string_append_printf(o,
                           "  %s: predictions %.1f %% %s than measured on average (mean "
                           "|error| %.1f %%, worst %.1f %%; %d run%s",
                           what, fabs(s->mean_signed), s->mean_signed < 0 ? lower : higher,
                           s->mean_abs, s->worst, s->n, s->n == 1 ? "" : "s");
    if (sources)
        g_string_append_printf(o, " of %u source%s", t->sources->len,
                               t->sources->len == 1 ? "" : "s");
    g_string_append(o, ")\n");
}

char *prism_app_track_line(const PrismTrackRecord *t)
{
    GString *o = g_string_new(NULL);
    if (t->rows == 0) { /* as prism_app_track_text says it, on one line */
        g_string_append_printf(o,
                               "%s under %s: no published run in the validation data (accuracy "
                               "unmeasured)",
                               t->family, t->framework ? t->framework : "any framework profile");
        if (t->knobs != NULL)
            g_string_append_printf(o, "; knobs laid over every run: %s", t->knobs);
        return g_string_free(o, FALSE);
    }
    g_string_append_printf(o, "%s under %s: %d run%s of %u source%s", t->family,
                           t->framework ? t->framework : "any framework profile", t->rows,
                           t->rows == 1 ? "" : "s", t->sources->len,
                           t->sources->len == 1 ? "" : "s");
    const PrismTrackStat *st[] = {&t->speed, &t->mem};
    const char *const what[] = {"speed", "peak memory"};
    for (size_t i = 0; i < G_N_ELEMENTS(st); i++)
        if (st[i]->n > 0)
            g_string_append_printf(o, "; %s %+.1f %% (mean |error| %.1f %%, worst %.1f %%, %d)",
                                   what[i], st[i]->mean_signed, st[i]->mean_abs, st[i]->worst,
                                   st[i]->n);
    const PrismValidateOrder *od = &t->order;
    if (od->pairs > 0)
        g_string_append_printf(o, "; order %.1f %% of %d pairs, fastest run found in %d of %d",
                               100.0 * od->same / od->pairs, od->pairs, od->fastest_agree,
                               od->fastest_groups);
    if (t->oom_rows > 0)
        g_string_append_printf(o, "; failures flagged %d of %d", t->oom_flagged, t->oom_rows);
    if (t->knobs != NULL)
        g_string_append_printf(o, "; knobs laid over every run: %s", t->knobs);
    return g_string_free(o, FALSE);
}

char *prism_app_track_text(const PrismTrackRecord *t, const char *times)
{
    GString *o = g_string_new("\n");
    g_autofree char *under = t->framework != NULL ? g_strdup_printf("under %s", t->framework)
                                                  : g_strdup("under any framework profile");
    if (t->rows == 0) {
        g_string_append_printf(o,
                               "Track record: no published run on %s %s in the validation "
                               "data (%u file%s read): this setup's accuracy is unmeasured.\n",
                               t->family, under, t->data->len, t->data->len == 1 ? "" : "s");
    } else {
        g_string_append_printf(o,
                               "Track record on published runs of %s %s (`prism validate` "
                               "lists them; README \"Accuracy\"):\n",
                               t->family, under);
        if (t->speed.n > 0)
            track_stat_text(o, "speed", "slower", "faster", &t->speed, TRUE, t);
        if (t->mem.n > 0)
            track_stat_text(o, "peak memory", "lower", "higher", &t->mem, t->speed.n == 0, t);
        if (t->knobs != NULL)
            g_string_append_printf(o,
                                   "  (each run priced with the knobs given here laid over its "
                                   "profile: %s;\n  `prism validate` without them gives "
                                   "the record of the profiles alone)\n",
                                   t->knobs);
        /* the order statistic (validate.h): whether prism ranked the runs of one workload
         * as they ran, which is what a choice between strategies rests on */
        const PrismValidateOrder *od = &t->order;
        if (od->pairs > 0)
            g_string_append_printf(o,
                                   "  ranking: %.1f %% of %d pairs of runs of one workload in "
                                   "the measured order; the measured fastest run\n  was "
                                   "predicted fastest in %d of %d workloads\n",
                                   100.0 * od->same / od->pairs, od->pairs, od->fastest_agree,
                                   od->fastest_groups);
        /* the error of a comparison (validate.h, PrismTrackPairs): what plan's equivalence
         * allows beyond the ranges */
        if (t->pairs.n > 0)
            g_string_append_printf(o,
                                   "  comparisons: the predicted ratio of two strategies of one "
                                   "workload off by %.1f %% (root mean square; worst %.1f %%,\n"
                                   "  %d pair%s of runs that differ only in strategy)\n",
                                   100.0 * prism_track_pair_tolerance(&t->pairs),
                                   100.0 * expm1(t->pairs.worst / 100.0), t->pairs.n,
                                   t->pairs.n == 1 ? "" : "s");
        /* feasibility of the measured failures (out of memory or crashed) */
        if (t->oom_rows > 0)
            g_string_append_printf(o,
                                   "  failures: %d of %d configurations that failed when run "
                                   "were predicted infeasible\n",
                                   t->oom_flagged, t->oom_rows);
        /* the reading that follows from the sign, when the bias is larger than the
         * A100 sources' typical error */
        if (t->speed.n > 0 && fabs(t->speed.mean_signed) >= 5.0)
            g_string_append_printf(o, "  Read %s as %s: the published runs were %s on average.\n",
                                   times, t->speed.mean_signed > 0 ? "optimistic" : "pessimistic",
                                   t->speed.mean_signed > 0 ? "slower" : "faster");
    }
    if (t->unavailable != NULL)
        g_string_append_printf(o, "  (validation data incomplete: %s)\n", t->unavailable);
    return g_string_free(o, FALSE);
}

static void track_stat_json(JsonBuilder *b, const char *name, const PrismTrackStat *s)
{
    json_builder_set_member_name(b, name);
    if (s->n == 0) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "runs");
    json_builder_add_int_value(b, s->n);
    json_builder_set_member_name(b, "mean_signed_pct");
    json_builder_add_double_value(b, s->mean_signed);
    json_builder_set_member_name(b, "mean_abs_pct");
    json_builder_add_double_value(b, s->mean_abs);
    json_builder_set_member_name(b, "worst_pct");
    json_builder_add_double_value(b, s->worst);
    json_builder_end_object(b);
}

void prism_app_order_json_members(JsonBuilder *b, const PrismValidateOrder *od)
{
    const struct {
        const char *n;
        int v;
    } c[] = {{"groups", od->groups},
             {"pairs", od->pairs},
             {"measured_ties", od->ties},
             {"fastest_groups", od->fastest_groups},
             {"fastest_agree", od->fastest_agree}};
    for (size_t i = 0; i < G_N_ELEMENTS(c); i++) {
        json_builder_set_member_name(b, c[i].n);
        json_builder_add_int_value(b, c[i].v);
    }
    json_builder_set_member_name(b, "same_order");
    json_builder_add_double_value(b, od->same);
    json_builder_set_member_name(b, "same_order_pct");
    if (od->pairs > 0)
        json_builder_add_double_value(b, 100.0 * od->same / od->pairs);
    else
        json_builder_add_null_value(b);
}

static void track_order_json(JsonBuilder *b, const PrismValidateOrder *od)
{
    json_builder_set_member_name(b, "order");
    if (od->pairs == 0 && od->fastest_groups == 0) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_object(b);
    prism_app_order_json_members(b, od);
    json_builder_end_object(b);
}

static void track_order_from_json(JsonObject *o, PrismValidateOrder *od)
{
    JsonNode *n = json_object_get_member(o, "order");
    if (n == NULL || !JSON_NODE_HOLDS_OBJECT(n))
        return;
    JsonObject *so = json_node_get_object(n);
    od->groups = (int)json_object_get_int_member_with_default(so, "groups", 0);
    od->pairs = (int)json_object_get_int_member_with_default(so, "pairs", 0);
    od->ties = (int)json_object_get_int_member_with_default(so, "measured_ties", 0);
    od->same = json_object_get_double_member_with_default(so, "same_order", 0);
    od->fastest_groups = (int)json_object_get_int_member_with_default(so, "fastest_groups", 0);
    od->fastest_agree = (int)json_object_get_int_member_with_default(so, "fastest_agree", 0);
}

/* "strategy_pairs": the error of a predicted ratio of two strategies (PrismTrackPairs) */
static void track_pairs_json(JsonBuilder *b, const PrismTrackPairs *p)
{
    json_builder_set_member_name(b, "strategy_pairs");
    if (p->n == 0) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "pairs");
    json_builder_add_int_value(b, p->n);
    json_builder_set_member_name(b, "rms_pct");
    json_builder_add_double_value(b, p->rms);
    json_builder_set_member_name(b, "worst_pct");
    json_builder_add_double_value(b, p->worst);
    json_builder_end_object(b);
}

static void track_pairs_from_json(JsonObject *o, PrismTrackPairs *p)
{
    JsonNode *n = json_object_get_member(o, "strategy_pairs");
    if (n == NULL || !JSON_NODE_HOLDS_OBJECT(n))
        return;
    JsonObject *so = json_node_get_object(n);
    p->n = (int)json_object_get_int_member_with_default(so, "pairs", 0);
    p->rms = json_object_get_double_member_with_default(so, "rms_pct", 0);
    p->worst = json_object_get_double_member_with_default(so, "worst_pct", 0);
}

static void track_stat_from_json(JsonObject *o, const char *name, PrismTrackStat *st)
{
    JsonNode *n = json_object_get_member(o, name);
    if (n == NULL || !JSON_NODE_HOLDS_OBJECT(n))
        return;
    JsonObject *so = json_node_get_object(n);
    st->n = (int)json_object_get_int_member_with_default(so, "runs", 0);
    st->mean_signed = json_object_get_double_member_with_default(so, "mean_signed_pct", 0);
    st->mean_abs = json_object_get_double_member_with_default(so, "mean_abs_pct", 0);
    st->worst = json_object_get_double_member_with_default(so, "worst_pct", 0);
}

double prism_app_widening(const PrismTrackStat *st)
{
    return prism_track_widening(st);
}

PrismCorners *prism_app_corners_new(const PrismCostModel *cm, const PrismTrackRecord *track,
                                    GError **error)
{
    PrismCorners *c = prism_corners_new(cm, error);
    if (c == NULL)
        return NULL;
    c->widen_step = prism_app_widening(&track->speed);
    c->widen_mem = prism_app_widening(&track->mem);
    c->tolerance = prism_track_pair_tolerance(&track->pairs);
    return c;
}

PrismTrackRecord *prism_app_track_from_json(JsonNode *n)
{
    if (n == NULL || !JSON_NODE_HOLDS_OBJECT(n))
        return NULL;
    JsonObject *o = json_node_get_object(n);
    const char *fam = json_object_get_string_member_with_default(o, "device_family", "?");
    JsonNode *fw = json_object_get_member(o, "framework");
    PrismTrackRecord *t = prism_track_record_new(
        fam, fw != NULL && JSON_NODE_HOLDS_VALUE(fw) ? json_node_get_string(fw) : NULL);
    t->rows = (int)json_object_get_int_member_with_default(o, "runs", 0);
    JsonNode *src = json_object_get_member(o, "sources");
    if (src != NULL && JSON_NODE_HOLDS_ARRAY(src)) {
        JsonArray *a = json_node_get_array(src);
        for (guint i = 0; i < json_array_get_length(a); i++)
            g_ptr_array_add(t->sources, g_strdup(json_array_get_string_element(a, i)));
    }
    track_stat_from_json(o, "speed", &t->speed);
    track_stat_from_json(o, "peak_mem", &t->mem);
    track_order_from_json(o, &t->order);
    track_pairs_from_json(o, &t->pairs);
    t->oom_rows = (int)json_object_get_int_member_with_default(o, "failures", 0);
    t->oom_flagged = (int)json_object_get_int_member_with_default(o, "failures_flagged", 0);
    JsonNode *kn = json_object_get_member(o, "knobs");
    if (kn != NULL && JSON_NODE_HOLDS_VALUE(kn))
        t->knobs = g_strdup(json_node_get_string(kn));
    return t;
}

void prism_app_track_json(JsonBuilder *b, const PrismTrackRecord *t)
{
    json_builder_set_member_name(b, "track_record");
    prism_app_track_json_object(b, t);
}

void prism_app_track_json_object(JsonBuilder *b, const PrismTrackRecord *t)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "device_family");
    json_builder_add_string_value(b, t->family);
    prism_app_json_string(b, "framework", t->framework);
    json_builder_set_member_name(b, "runs");
    json_builder_add_int_value(b, t->rows);
    prism_app_json_strings(b, "sources", t->sources);
    track_stat_json(b, "speed", &t->speed);
    track_stat_json(b, "peak_mem", &t->mem);
    track_order_json(b, &t->order);
    track_pairs_json(b, &t->pairs);
    json_builder_set_member_name(b, "failures");
    json_builder_add_int_value(b, t->oom_rows);
    json_builder_set_member_name(b, "failures_flagged");
    json_builder_add_int_value(b, t->oom_flagged);
    prism_app_json_strings(b, "data", t->data);
    prism_app_json_string(b, "unavailable", t->unavailable);
    prism_app_json_string(b, "knobs", t->knobs);
    json_builder_end_object(b);
}
