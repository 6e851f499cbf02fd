// SPDX-License-Identifier: MIT
/*
 * cmd_plan.c - `prism plan`: search every strategy of the space, then print the space
 * size, evaluated and feasible counts, the top-k table, why the best wins, and the
 * Pareto front (text or --json). `--count` prints the space per dimension without
 * evaluating. When nothing fits it explains by how much and what would make room, and
 * exits 2.
 *
 * Collective on comm: every rank loads the same inputs, builds the same space and takes
 * part in the search; only rank 0 prints. The output is the same for any rank count
 * (the rank count itself appears in the header line and the JSON "ranks" member).
 */
#include "app-internal.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include <prism/refine.h>

#include <prism/cost.h>
#include <prism/diagnose.h>
#include <prism/search.h>
#include <prism/space.h>

#define GIB 1073741824.0

typedef struct {
    PrismCommonOptions common;
    PrismSearchCli search; /* --fix/--range/--only/--objectives/--rank-by/--top/... */
    gboolean count;
    gint refine;         /* --refine K: layer split and recompute of the K best (refine.h) */
    gint threads;        /* --threads N: search threads per rank; 0 = the CPUs at 1 rank */
    gboolean exhaustive; /* --exhaustive: evaluate every strategy (no bounds) */
} PlanOptions;

static void plan_options_clear(PlanOptions *o)
{
    prism_common_options_clear(&o->common);
    prism_search_cli_clear(&o->search);
}

/* Everything a report needs. */
typedef struct {
    const PrismInputs *in;
    const PrismSpaceFilter *filter;
    const PrismCostModel *cm;
    const PrismSearchJob *job;
    const PrismSearchResult *res;
    double usable; /* budget - margin, bytes */
} Report;

static char *si_text(double v)
{
    const char *suffix[] = {"", "k", "M", "G", "T"};
    int i = 0;
    while (fabs(v) >= 1000 && i < 4) {
        v /= 1000;
        i++;
    }
    return g_strdup_printf("%.4g%s", v, suffix[i]);
}

static gboolean row(const Report *r, uint64_t index, PrismStrategy *s, double cols[PRISM_COL_COUNT],
                    GError **error)
{
    return prism_search_row(r->job, 1, index, NULL, s, cols, error);
}

static gboolean devices_vary(const Report *r)
{
    size_t n = 0;
    (void)prism_space_devices(r->job->space, &n);
    return n > 1;
}

static void print_header(FILE *out, const Report *r)
{
    const PrismTraining *t = &r->in->training;
    size_t nd = 0;
    const uint32_t *dev = prism_space_devices(r->job->space, &nd);
    g_autofree char *devs = nd == 1
                                ? g_strdup_printf("%u", dev[0])
                                : g_strdup_printf("%u..%u (%zu counts)", dev[0], dev[nd - 1], nd);
    fprintf(out,
            "prism plan: %s on %s x %s, gbs %" G_GUINT64_FORMAT ", seq %" G_GUINT64_FORMAT
            ", %s, %s; usable memory %.1f GiB per device\n",
            r->in->model->name, devs, r->in->cluster->name, t->gbs, t->seq,
            prism_dtype_name(t->dtype), prism_optimizer_name(t->optimizer), r->usable / GIB);
    g_autofree char *filt = prism_space_filter_describe(r->filter);
    if (*filt)
        fprintf(out, "filters: %s\n", filt);
    /* the knobs that differ from the defaults (--set, --knobs, --framework) */
    PrismKnobs def;
    prism_knobs_default(&def);
    GString *knobs = g_string_new(NULL);
    for (int k = 0; k < PRISM_KNOB_COUNT; k++)
        if (r->in->knobs.v[k] != def.v[k])
            g_string_append_printf(knobs, "%s%s=%g", knobs->len ? ", " : "",
                                   prism_knob_info((PrismKnobId)k)->name, r->in->knobs.v[k]);
    if (knobs->len > 0)
        fprintf(out, "knobs: %s\n", knobs->str);
    g_string_free(knobs, TRUE);
    uint64_t total = prism_search_result_total(r->res);
    uint64_t feas = prism_search_result_feasible(r->res);
    size_t nseg = 0;
    (void)prism_space_segments(r->job->space, &nseg);
    uint64_t proved = prism_search_result_proved(r->res);
    g_autofree char *bounded =
        proved ? g_strdup_printf("; %" G_GUINT64_FORMAT " (%.1f%%) proved out by their bounds",
                                 proved, total ? 100.0 * (double)proved / (double)total : 0.0)
               : g_strdup("");
    fprintf(out,
            "space: %" G_GUINT64_FORMAT " strategies (%zu segments); evaluated %" G_GUINT64_FORMAT
            " in %.3f s (%.1f%% by the memory bound)%s on %d rank%s x %d thread%s (%s); feasible "
            "%s%" G_GUINT64_FORMAT " (%.1f%%)\n",
            total, nseg, prism_search_result_evaluated(r->res), prism_search_result_seconds(r->res),
            total ? 100.0 * (double)prism_search_result_pruned(r->res) / (double)total : 0.0,
            bounded, prism_search_result_ranks(r->res),
            prism_search_result_ranks(r->res) == 1 ? "" : "s", prism_search_result_threads(r->res),
            prism_search_result_threads(r->res) == 1 ? "" : "s", prism_search_result_isa(r->res),
            proved ? "of the evaluated " : "", feas,
            total ? 100.0 * (double)feas / (double)total : 0.0);
}

static gboolean print_top(FILE *out, const Report *r, GError **error)
{
    const PrismTopK *top = prism_search_result_top(r->res, 0);
    g_autofree char *by = prism_objective_name(prism_search_result_rank_by(r->res));
    gboolean wide = devices_vary(r);
    fprintf(out, "\nTop %zu by %s:\n", prism_topk_size(top), by);
    fprintf(out, "%3s %10s %6s %9s %17s %6s  %s\n", "#", "step (s)", "MFU", "tokens/s",
            "peak/usable GiB", "bubble", "strategy");
    for (size_t i = 0; i < prism_topk_size(top); i++) {
        PrismStrategy s;
        double c[PRISM_COL_COUNT];
        if (!row(r, prism_topk_index(top, i), &s, c, error))
            return FALSE;
        g_autofree char *st = prism_app_strategy_text(&s, wide);
        g_autofree char *tok = si_text(c[PRISM_COL_TOKENS_PER_S]);
        g_autofree char *mem =
            g_strdup_printf("%.1f/%.1f", c[PRISM_COL_MEM_PEAK] / GIB, r->usable / GIB);
        double step = c[PRISM_COL_TIME_STEP];
        fprintf(out, "%3zu %10.4f %5.1f%% %9s %17s %5.1f%%  %s\n", i + 1, step,
                100 * c[PRISM_COL_MFU], tok, mem,
                step > 0 ? 100 * c[PRISM_COL_TIME_BUBBLE] / step : 0.0, st);
    }
    return TRUE;
}

typedef struct {
    const char *name;
    double v;
} Part;

static int part_cmp(const void *a, const void *b)
{
    double x = ((const Part *)a)->v, y = ((const Part *)b)->v;
    return x > y ? -1 : x < y;
}

/* "compute 71%, bubble 9%, dp comm 6%": the largest parts as shares of @p whole. */
static char *shares(Part *p, size_t n, double whole, size_t most)
{
    qsort(p, n, sizeof *p, part_cmp);
    GString *s = g_string_new(NULL);
    for (size_t i = 0, k = 0; i < n && k < most; i++) {
        if (whole <= 0 || p[i].v / whole < 0.01)
            break;
        g_string_append_printf(s, "%s%s %.0f%%", k ? ", " : "", p[i].name, 100 * p[i].v / whole);
        k++;
    }
    return g_string_free(s, FALSE);
}

/* The dims in which @p b differs from @p a: "pp 16->8, vpp 3->1". */
static char *diff_text(const PrismStrategy *a, const PrismStrategy *b)
{
    GString *s = g_string_new(NULL);
    for (int d = 0; d < PRISM_DIM_COUNT; d++) {
        uint64_t x = prism_strategy_dim(a, (PrismDim)d), y = prism_strategy_dim(b, (PrismDim)d);
        if (x == y)
            continue;
        g_autofree char *tx = prism_dim_value_text((PrismDim)d, x);
        g_autofree char *ty = prism_dim_value_text((PrismDim)d, y);
        g_string_append_printf(s, "%s%s %s->%s", s->len ? ", " : "", prism_dim_name((PrismDim)d),
                               tx, ty);
    }
    return g_string_free(s, FALSE);
}

static gboolean print_why(FILE *out, const Report *r, GError **error)
{
    const PrismTopK *top = prism_search_result_top(r->res, 0);
    if (prism_topk_size(top) == 0)
        return TRUE;
    PrismStrategy s1, s2;
    double c[PRISM_COL_COUNT], c2[PRISM_COL_COUNT];
    if (!row(r, prism_topk_index(top, 0), &s1, c, error))
        return FALSE;
    const PrismObjective *rb = prism_search_result_rank_by(r->res);
    g_autofree char *by = prism_objective_name(rb);
    GString *line = g_string_new(NULL);
    double v1 = prism_objective_value(rb, &s1, c);
    const char *unit =
        rb->kind == PRISM_COLUMN_COST ? prism_col_info((PrismCostCol)rb->id)->unit : "";
    if (strcmp(unit, "s") == 0)
        g_string_append_printf(line, "Why #1: best %s (%.4g s", by, v1);
    else if (strcmp(unit, "bytes") == 0)
        g_string_append_printf(line, "Why #1: best %s (%.2f GiB", by, v1 / GIB);
    else
        g_string_append_printf(line, "Why #1: best %s (%.4g", by, v1);
    if (prism_topk_size(top) > 1) {
        if (!row(r, prism_topk_index(top, 1), &s2, c2, error)) {
            g_string_free(line, TRUE);
            return FALSE;
        }
        double v2 = prism_objective_value(rb, &s2, c2);
        g_autofree char *d = diff_text(&s1, &s2);
        if (v1 != 0 && v2 != v1)
            g_string_append_printf(line, ", %.2g%% ahead of #2, which has %s",
                                   100 * fabs(v2 - v1) / fabs(v1), d);
        else
            g_string_append_printf(line, ", tied with #2 on the index order, which has %s", d);
    }
    Part t[] = {{"compute", c[PRISM_COL_TIME_COMPUTE]}, {"recompute", c[PRISM_COL_TIME_RECOMPUTE]},
                {"TP comm", c[PRISM_COL_TIME_TP_COMM]}, {"CP comm", c[PRISM_COL_TIME_CP_COMM]},
                {"EP comm", c[PRISM_COL_TIME_EP_COMM]}, {"DP comm", c[PRISM_COL_TIME_DP_COMM]},
                {"PP comm", c[PRISM_COL_TIME_PP_COMM]}, {"bubble", c[PRISM_COL_TIME_BUBBLE]}};
    Part m[] = {{"params", c[PRISM_COL_MEM_PARAMS]},
                {"grads", c[PRISM_COL_MEM_GRADS]},
                {"optimizer", c[PRISM_COL_MEM_OPTIMIZER]},
                {"activations", c[PRISM_COL_MEM_ACTIVATIONS]},
                {"buffers", c[PRISM_COL_MEM_COMM_BUFFERS]}};
    g_autofree char *ts = shares(t, G_N_ELEMENTS(t), c[PRISM_COL_TIME_STEP], 3);
    g_autofree char *ms = shares(m, G_N_ELEMENTS(m), c[PRISM_COL_MEM_PEAK], 2);
    g_string_append_printf(line,
                           "); its %.4g s step is %s; it fits with %.1f GiB to spare "
                           "(peak %.1f GiB: %s).\n",
                           c[PRISM_COL_TIME_STEP], ts, (r->usable - c[PRISM_COL_MEM_PEAK]) / GIB,
                           c[PRISM_COL_MEM_PEAK] / GIB, ms);
    fputs(line->str, out);
    g_string_free(line, TRUE);
    return TRUE;
}

#define FRONT_TEXT_MAX 40

static gboolean print_front(FILE *out, const Report *r, GError **error)
{
    const PrismFront *f = prism_search_result_front(r->res, 0);
    size_t n_obj = 0;
    const PrismObjective *obj = prism_search_result_objectives(r->res, &n_obj);
    GString *names = g_string_new(NULL);
    for (size_t o = 0; o < n_obj; o++) {
        g_autofree char *nm = prism_objective_name(&obj[o]);
        g_string_append_printf(names, "%s%s", o ? ", " : "", nm);
    }
    fprintf(out, "\nPareto front (%s): %zu strategies\n", names->str, prism_front_size(f));
    g_string_free(names, TRUE);
    fprintf(out, "%3s", "#");
    for (size_t o = 0; o < n_obj; o++) {
        g_autofree char *nm = prism_objective_name(&obj[o]);
        fprintf(out, " %14s", nm);
    }
    fprintf(out, "  %s\n", "strategy");
    gboolean wide = devices_vary(r);
    for (size_t i = 0; i < prism_front_size(f) && i < FRONT_TEXT_MAX; i++) {
        PrismStrategy s;
        double c[PRISM_COL_COUNT];
        if (!row(r, prism_front_index(f, i), &s, c, error))
            return FALSE;
        fprintf(out, "%3zu", i + 1);
        for (size_t o = 0; o < n_obj; o++) {
            double v = prism_objective_value(&obj[o], &s, c);
            gboolean mem = obj[o].kind == PRISM_COLUMN_COST &&
                           prism_col_info((PrismCostCol)obj[o].id)->unit[0] == 'b';
            if (mem)
                fprintf(out, " %10.2f GiB", v / GIB);
            else
                fprintf(out, " %14.6g", v);
        }
        g_autofree char *st = prism_app_strategy_text(&s, wide);
        fprintf(out, "  %s\n", st);
    }
    if (prism_front_size(f) > FRONT_TEXT_MAX)
        fprintf(out, "... %zu more (--json lists all)\n", prism_front_size(f) - FRONT_TEXT_MAX);
    return TRUE;
}

/* One JSON entry: the strategy dims, its index and the metrics of `prism explain --json`. */
static gboolean json_entry(JsonBuilder *b, const Report *r, uint64_t index, GError **error)
{
    PrismStrategy s;
    double c[PRISM_COL_COUNT];
    if (!row(r, index, &s, c, error))
        return FALSE;
    prism_app_row_json(b, r->cm, index, &s, c);
    return TRUE;
}

static void json_header(JsonBuilder *b, const Report *r)
{
    json_builder_set_member_name(b, "space_size");
    json_builder_add_int_value(b, (gint64)prism_search_result_total(r->res));
    json_builder_set_member_name(b, "evaluated");
    json_builder_add_int_value(b, (gint64)prism_search_result_evaluated(r->res));
    json_builder_set_member_name(b, "feasible");
    json_builder_add_int_value(b, (gint64)prism_search_result_feasible(r->res));
    json_builder_set_member_name(b, "proved_out");
    json_builder_add_int_value(b, (gint64)prism_search_result_proved(r->res));
    json_builder_set_member_name(b, "isa");
    json_builder_add_string_value(b, prism_search_result_isa(r->res));
    json_builder_set_member_name(b, "ranks");
    json_builder_add_int_value(b, prism_search_result_ranks(r->res));
    size_t n_obj = 0;
    const PrismObjective *obj = prism_search_result_objectives(r->res, &n_obj);
    json_builder_set_member_name(b, "objectives");
    json_builder_begin_array(b);
    for (size_t o = 0; o < n_obj; o++) {
        g_autofree char *nm = prism_objective_name(&obj[o]);
        json_builder_add_string_value(b, nm);
    }
    json_builder_end_array(b);
    g_autofree char *by = prism_objective_name(prism_search_result_rank_by(r->res));
    json_builder_set_member_name(b, "rank_by");
    json_builder_add_string_value(b, by);
    g_autofree char *filt = prism_space_filter_describe(r->filter);
    json_builder_set_member_name(b, "filters");
    json_builder_add_string_value(b, filt);
}

static gboolean report_json(FILE *out, const Report *r, const GPtrArray *refined,
                            const PrismTrackRecord *track, GError **error)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_header(b, r);
    const PrismTopK *top = prism_search_result_top(r->res, 0);
    json_builder_set_member_name(b, "top");
    json_builder_begin_array(b);
    for (size_t i = 0; i < prism_topk_size(top); i++)
        if (!json_entry(b, r, prism_topk_index(top, i), error))
            return FALSE;
    json_builder_end_array(b);
    const PrismFront *f = prism_search_result_front(r->res, 0);
    json_builder_set_member_name(b, "front");
    json_builder_begin_array(b);
    for (size_t i = 0; i < prism_front_size(f); i++)
        if (!json_entry(b, r, prism_front_index(f, i), error))
            return FALSE;
    json_builder_end_array(b);
    if (refined != NULL)
        prism_app_refine_json(b, refined);
    prism_app_track_json(b, track);
    json_builder_end_object(b);
    prism_app_print_json(out, b);
    return TRUE;
}

/* Nothing fits: the diagnosis (collective what-if searches, diagnose.h) as text or JSON,
 * and the one-line error that makes the exit status 2. */
static gboolean report_nothing_fits(PrismComm *comm, FILE *out, gboolean json, const Report *r,
                                    const PrismKernelTable *kt, GError **error)
{
    g_autoptr(PrismDiagnosis) d = prism_diagnose_run(comm, r->job, 1, 0, r->res, r->filter, kt,
                                                     prism_app_stop_requested, NULL, error);
    if (d == NULL)
        return FALSE;
    if (out != NULL && json) {
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        json_header(b, r);
        json_builder_set_member_name(b, "top");
        json_builder_begin_array(b);
        json_builder_end_array(b);
        json_builder_set_member_name(b, "front");
        json_builder_begin_array(b);
        json_builder_end_array(b);
        prism_app_diagnosis_json(b, r->cm, d);
        json_builder_end_object(b);
        prism_app_print_json(out, b);
    } else if (out != NULL) {
        prism_app_diagnosis_text(out, d, FALSE);
    }
    prism_app_diagnosis_error(d, FALSE, error);
    return FALSE;
}

/* Search options from the command line; local, identical on every rank. */
static gboolean search_options(const PlanOptions *o, PrismSearchOptions *opt, GError **error)
{
    const PrismSearchCli *c = &o->search;
    gint top = c->top == PRISM_APP_TOP_UNSET ? 10 : c->top;
    if (!prism_app_search_options(opt, c->objectives, NULL, c->rank_by, NULL, top, NULL, error))
        return FALSE;
    if (o->refine < 0 || o->refine > PRISM_APP_TOP_MAX) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--refine %d: must be between 0 and %d", o->refine, PRISM_APP_TOP_MAX);
        return FALSE;
    }
    if (o->threads < 0 || o->threads > PRISM_SEARCH_THREADS_MAX) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--threads %d: must be between 1 and %d (0: every CPU when run as one rank)",
                    o->threads, PRISM_SEARCH_THREADS_MAX);
        return FALSE;
    }
    opt->threads = o->threads;
    opt->top_k = (size_t)MAX(top, o->refine);
    opt->progress = !c->no_progress;
    opt->label = "plan";
    opt->exhaustive = o->exhaustive;
    opt->bound = !o->exhaustive;
    return TRUE;
}

static gboolean plan_run(PrismComm *comm, PlanOptions *o, GError **error)
{
    FILE *out = prism_app_out(comm);
    PrismInputs in;
    if (!prism_app_load_inputs(comm, &o->common, &in, error))
        return FALSE;
    gboolean ok = FALSE;
    g_autoptr(PrismSpaceFilter) filter = prism_space_filter_new();
    g_autoptr(PrismSpace) space = NULL;
    g_autoptr(PrismCostModel) cm = NULL;
    g_autoptr(PrismSearchResult) res = NULL;
    g_autoptr(GPtrArray) refined = NULL; /* --refine results (rank 0) */
    g_autoptr(PrismTrackRecord) track = NULL;
    const PrismKernelTable *kt = NULL;
    PrismSearchOptions opt;
    GError *local = NULL;
    /* what the framework supports (framework.h [planning]: overlap options, `only`, equal
     * chunks): without a profile every option stays on and every strategy is searched */
    if (prism_space_filter_framework(filter, in.framework, &local) &&
        prism_app_add_filters(filter, o->search.fix, o->search.range, o->search.only, NULL, &local))
        space = prism_space_new_stoppable(in.model, &in.training, in.devices, in.n_devices, filter,
                                          prism_app_stop_requested, NULL, &local);
    (void)prism_app_stop_check(&local);
    if (!prism_comm_agree_error(comm, &local))
        goto done;
    if (o->count) {
        g_autofree char *text = prism_space_describe(space, o->common.json);
        if (out)
            fprintf(out, "%s%s", text, o->common.json ? "\n" : "");
        ok = TRUE;
        goto done;
    }
    if (search_options(o, &opt, &local)) {
        cm = prism_cost_model_new(in.model, in.cluster, &in.training, &in.knobs, &local);
        if (cm != NULL)
            kt = prism_kernel_table_get(o->common.isa, &local);
    }
    (void)prism_app_stop_check(&local);
    if (!prism_comm_agree_error(comm, &local))
        goto done;
    opt.kt = kt;
    PrismSearchJob job = {.cm = cm, .space = space};
    res = prism_search_run(comm, &job, 1, &opt, NULL, &local);
    if (res == NULL)
        goto done;
    /* --refine (layer-level divide-and-conquer over the best strategies) plugs in here,
     * between the search and the report. */
    Report r = {.in = &in,
                .filter = filter,
                .cm = cm,
                .job = &job,
                .res = res,
                .usable = prism_cost_model_budget(cm) -
                          prism_cost_model_knobs(cm)->v[PRISM_KNOB_MEM_MARGIN]};
    if (prism_search_result_feasible(res) == 0) {
        (void)report_nothing_fits(comm, out, o->common.json, &r, kt, &local);
        goto done;
    }
    if (out != NULL && o->refine > 0) {
        /* the K best of the top list, refined on rank 0 (cheap and deterministic) */
        const PrismTopK *top = prism_search_result_top(res, 0);
        size_t k = MIN((size_t)o->refine, prism_topk_size(top));
        g_autofree PrismStrategy *best = g_new0(PrismStrategy, k ? k : 1);
        double cols[PRISM_COL_COUNT];
        gboolean rows_ok = TRUE;
        for (size_t i = 0; i < k && rows_ok; i++)
            rows_ok = row(&r, prism_topk_index(top, i), &best[i], cols, &local);
        if (rows_ok)
            refined = prism_refine_run(cm, best, k, &local);
        if (refined == NULL)
            goto done;
    }
    /* how the model did on comparable published runs (collective: every rank) */
    track = prism_track_record_run(comm, in.cluster->name, in.framework ? in.framework->name : NULL,
                                   &in.user_knobs);
    if (out != NULL) {
        if (o->common.json) {
            ok = report_json(out, &r, refined, track, &local);
        } else {
            print_header(out, &r);
            ok = print_top(out, &r, &local) && print_why(out, &r, &local) &&
                 print_front(out, &r, &local);
            if (ok && refined != NULL)
                prism_app_refine_text(out, refined);
            if (ok) {
                g_autofree char *tr = prism_app_track_text(track, "the step times above");
                fputs(tr, out);
            }
        }
    } else {
        ok = TRUE;
    }
done:
    if (local != NULL)
        g_propagate_error(error, local);
    prism_inputs_clear(&in);
    return ok && (error == NULL || *error == NULL);
}

gboolean prism_cmd_plan(PrismComm *comm, int argc, char **argv, GError **error)
{
    PlanOptions o = {.common.flags = PRISM_OPT_ALL_INPUTS | PRISM_OPT_JSON};
    const GOptionEntry entries[] = {
        {"count", 0, 0, G_OPTION_ARG_NONE, &o.count,
         "print the space size per dimension and in total, without evaluating", NULL},
        {"refine", 0, 0, G_OPTION_ARG_INT, &o.refine,
         "refine the K best strategies: uneven layer split over the pipeline chunks and "
         "per-layer recompute under each stage's memory budget (search/DC.md)",
         "K"},
        {"threads", 0, 0, G_OPTION_ARG_INT, &o.threads,
         "search threads per rank (default 0: every CPU when run as one rank, 1 under mpirun "
         "with more ranks); the result does not depend on it",
         "N"},
        {"exhaustive", 0, 0, G_OPTION_ARG_NONE, &o.exhaustive,
         "evaluate every strategy: no row is left out by a bound (the same top list and "
         "front; the feasible count then covers the whole space)",
         NULL},
        G_OPTION_ENTRY_NULL};
    g_autoptr(GOptionContext) ctx =
        g_option_context_new("- search every strategy: top list, Pareto front and why");
    g_option_context_set_summary(
        ctx, "Evaluates the whole strategy space (dp, tp, pp, vpp, cp, ep, sp, mbs, zero,\n"
             "recompute, schedule and the device count) with the cost model, over all MPI\n"
             "ranks. With no options: GPT-3 175B on 1024 A100-80GB, gbs 1536, seq 2048.\n"
             "--framework keeps the space to what that framework runs (its schedules and\n"
             "stages). The answer ends with the track record: how far the model's predictions\n"
             "were from the published runs of the same device family under the same framework\n"
             "(prism validate on the shipped measured.csv and measured_modern.csv).");
    g_option_context_add_main_entries(ctx, entries, NULL);
    prism_app_add_search_options(ctx, &o.search);
    prism_app_add_common_options(ctx, &o.common);
    gboolean ok = prism_app_parse(ctx, &argc, &argv, error);
    if (ok && argc > 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "unexpected argument '%s' (see prism plan --help)", argv[1]);
        ok = FALSE;
    }
    if (ok) {
        PrismStopGuard guard;
        prism_app_stop_catch(&guard);
        ok = plan_run(comm, &o, error);
        prism_app_stop_release(&guard);
    }
    plan_options_clear(&o);
    return ok;
}
