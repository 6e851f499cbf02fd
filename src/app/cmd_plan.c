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

#include <prism/fwconfig.h>
#include <prism/refine.h>

#include <prism/cost.h>
#include <prism/diagnose.h>
#include <prism/ranges.h>
#include <prism/search.h>
#include <prism/space.h>

#define GIB 1073741824.0
/* The strategies the recommendation is chosen among: the best PLAN_POOL by the ranking
 * (the top list shows the first --top of them). */
#define PLAN_POOL 100

typedef struct {
    PrismCommonOptions common;
    PrismSearchCli search; /* --fix/--range/--only/--objectives/--rank-by/--top/... */
    gboolean count;
    gint refine;    /* --refine K: layer split and recompute of the K best (refine.h) */
    gint threads;   /* --threads N: search threads per rank; 0 = the CPUs at 1 rank */
    char *emit;     /* --emit FRAMEWORK: the recommendation as its configuration */
    gint emit_rank; /* --emit-rank K: the K-th of the top list (default 1) */
    char *baseline; /* --baseline FILE (or --from FILE): the user's configuration, priced */
    char *from;
    char *pick;          /* --pick fastest|simplest|robust (default simplest) */
    char *simplicity;    /* --simplicity ORDER: the moving parts, simplest first */
    gboolean robust;     /* --robust: rank by step_hi, front over (step_hi, mem_hi) */
    gboolean mem_safety; /* --mem-safety: at risk counts as infeasible */
    gboolean exhaustive; /* --exhaustive: evaluate every strategy (no bounds) */
} PlanOptions;

static void plan_options_clear(PlanOptions *o)
{
    prism_common_options_clear(&o->common);
    prism_search_cli_clear(&o->search);
    g_free(o->emit);
    g_free(o->baseline);
    g_free(o->from);
    g_free(o->pick);
    g_free(o->simplicity);
}

/* Everything a report needs. */
typedef struct {
    const PrismInputs *in;
    const PrismSpaceFilter *filter;
    const PrismCostModel *cm;
    const PrismSearchJob *job;
    const PrismSearchResult *res;
    double usable; /* budget - margin, bytes */
    /* intervals (ranges.h; rank 0): the point model (cm is the search's, a corner model
     * under --robust or --mem-safety), the corners, the top list's rows and the pick */
    const PrismCostModel *point;
    PrismCorners *corners;
    const PrismTrackRecord *track;
    PrismPick pick;
    PrismSimplicity simplicity;
    gboolean robust, mem_safety;
    size_t n_top, rec; /* rows of the pool; the recommendation's place in it */
    size_t n_show;     /* rows the top list shows (--top) */
    PrismStrategy *ts;
    double (*tc)[PRISM_COL_COUNT];
    PrismInterval *tiv;
    gboolean *teq;
} Report;

static void report_clear(Report *r)
{
    prism_corners_free(r->corners);
    g_free(r->ts);
    g_free(r->tc);
    g_free(r->tiv);
    g_free(r->teq);
}

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

/* A row as shown: the strategy, its point columns (from the point model when the search
 * priced with a corner model) and its interval. */
static gboolean shown(const Report *r, uint64_t index, PrismStrategy *s,
                      double cols[PRISM_COL_COUNT], PrismInterval *iv, GError **error)
{
    if (!row(r, index, s, cols, error))
        return FALSE;
    if (r->point != r->cm && !prism_cost_eval_one(r->point, s, cols, error))
        return FALSE;
    return prism_corners_eval(r->corners, s, cols, iv, error);
}

/* The corners, the top list's rows with their intervals and the recommendation. */
static gboolean plan_intervals(Report *r, GError **error)
{
    if ((r->corners = prism_app_corners_new(r->point, r->track, error)) == NULL)
        return FALSE;
    const PrismTopK *top = prism_search_result_top(r->res, 0);
    size_t n = r->n_top = prism_topk_size(top);
    r->ts = g_new0(PrismStrategy, MAX(n, 1));
    r->tc = g_malloc0_n(MAX(n, 1), sizeof *r->tc);
    r->tiv = g_new0(PrismInterval, MAX(n, 1));
    r->teq = g_new0(gboolean, MAX(n, 1));
    for (size_t i = 0; i < n; i++)
        if (!shown(r, prism_topk_index(top, i), &r->ts[i], r->tc[i], &r->tiv[i], error))
            return FALSE;
    g_autofree gboolean *risky = g_new0(gboolean, MAX(n, 1));
    for (size_t i = 0; i < n; i++)
        risky[i] = prism_mem_class(&r->tiv[i], r->usable) != PRISM_MEM_FITS;
    r->rec = n > 0 ? prism_pick(r->pick, &r->simplicity, r->ts, r->tiv, n, r->corners->tolerance,
                                risky, r->teq)
                   : 0;
    return TRUE;
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
    if (r->in->framework == NULL) /* the generic conventions, and that a profile moves them */
        fprintf(out, "conventions: generic (no --framework): every ZeRO stage, recompute mode, "
                     "offload and schedule is searched and the knobs keep their defaults "
                     "(`prism knobs`); a framework runs fewer of them at its own costs, so "
                     "--framework (torchtitan, megatron, deepspeed, nanotron; `prism "
                     "frameworks`) changes the answer\n");
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
    (void)error;
    fprintf(out, "\nTop %zu by %s%s:\n", MIN(r->n_show, prism_topk_size(top)), by,
            r->robust ? " at the pessimistic corner (--robust)" : "");
    fprintf(out, "%4s %10s %15s %6s %9s %17s %7s %6s  %s\n", "#", "step (s)", "interval (s)", "MFU",
            "tokens/s", "device/usable GiB", "memory", "bubble", "strategy");
    for (size_t i = 0; i < r->n_top; i++) {
        if (i >= r->n_show && i != r->rec)
            continue;
        const PrismStrategy *s = &r->ts[i];
        const double *c = r->tc[i];
        const PrismInterval *iv = &r->tiv[i];
        g_autofree char *st = prism_app_strategy_text(s, wide);
        g_autofree char *tok = si_text(c[PRISM_COL_TOKENS_PER_S]);
        g_autofree char *mem = g_strdup_printf("%.1f/%.1f", iv->mem / GIB, r->usable / GIB);
        g_autofree char *in = g_strdup_printf("%.3f-%.3f", iv->step_lo, iv->step_hi);
        double step = c[PRISM_COL_TIME_STEP];
        const PrismMemClass mc = prism_mem_class(iv, r->usable);
        fprintf(out, "%3zu%c %10.4f %15s %5.1f%% %9s %17s %7s %5.1f%%  %s\n", i + 1,
                i == r->rec ? '>'
                : r->teq[i] ? '='
                            : ' ',
                step, in, 100 * c[PRISM_COL_MFU], tok, mem,
                mc == PRISM_MEM_FITS ? "fits" : "at risk",
                step > 0 ? 100 * c[PRISM_COL_TIME_BUBBLE] / step : 0.0, st);
    }
    if (prism_dtype_is_lowp(r->in->training.dtype))
        fprintf(out,
                "MFU is against the BF16 dense peak (the published tables' convention, "
                "cost/README.md): %s GEMMs can take it past 100%%.\n",
                prism_dtype_name(r->in->training.dtype));
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
    (void)error;
    PrismStrategy s1 = r->ts[0], s2;
    double c[PRISM_COL_COUNT], c2[PRISM_COL_COUNT];
    memcpy(c, r->tc[0], sizeof c);
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
        s2 = r->ts[1];
        memcpy(c2, r->tc[1], sizeof c2);
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
    PrismMemKinds mk;
    prism_cost_memory_kinds(r->cm, &s1, c[PRISM_COL_MEM_PEAK], prism_cost_persistent(c), &mk);
    g_string_append_printf(line,
                           "); its %.4g s step is %s; it fits with %.1f GiB to spare "
                           "(device %.1f GiB; allocated peak %.1f GiB: %s).\n",
                           c[PRISM_COL_TIME_STEP], ts, (r->usable - mk.device) / GIB,
                           mk.device / GIB, c[PRISM_COL_MEM_PEAK] / GIB, ms);
    fputs(line->str, out);
    g_string_free(line, TRUE);
    return TRUE;
}

/* The recommendation and what it gives up, one paragraph (rank 0). */
static char *recommendation_text(const Report *r)
{
    GString *t = g_string_new(NULL);
    if (r->n_top == 0)
        return g_string_free(t, FALSE);
    size_t n_eq = 0;
    for (size_t i = 0; i < r->n_top; i++)
        n_eq += r->teq[i] ? 1 : 0;
    const PrismInterval *b = &r->tiv[0];
    const size_t k = r->rec;
    g_autofree char *st = prism_app_strategy_text(&r->ts[k], devices_vary(r));
    if (k == 0) {
        g_string_append_printf(t,
                               "Recommended (--pick %s): #1. %zu of the best %zu are equivalent "
                               "to #1 within the model's error (#1: %.3f-%.3f s)",
                               prism_pick_name(r->pick), n_eq, r->n_top, b->step_lo, b->step_hi);
        if (r->pick == PRISM_PICK_SIMPLEST && n_eq > 1)
            g_string_append(t, "; none of them is simpler");
        else if (r->pick == PRISM_PICK_ROBUST && n_eq > 1)
            g_string_append(t, "; none has a lower pessimistic step");
        g_string_append(t, ".\n");
        return g_string_free(t, FALSE);
    }
    g_autofree char *d = diff_text(&r->ts[k], &r->ts[0]);
    const double s1 = r->tc[0][PRISM_COL_TIME_STEP], sk = r->tc[k][PRISM_COL_TIME_STEP];
    g_string_append_printf(t,
                           "#1 is within %.2g %% of #%zu (point estimates %.4g s and %.4g s), "
                           "inside the model's error (#1: %.3f-%.3f s); #1 differs in %s.\n",
                           s1 > 0 ? 100 * (sk - s1) / s1 : 0.0, k + 1, s1, sk, b->step_lo,
                           b->step_hi, d);
    if (r->pick == PRISM_PICK_SIMPLEST) {
        g_autofree char *order = prism_simplicity_text(&r->simplicity);
        g_string_append_printf(
            t,
            "Recommended (--pick simplest): #%zu %s, the simplest of the %zu "
            "strategies equivalent to #1 that fits without memory risk where one "
            "does (fewer moving parts in the order %s; --pick fastest takes "
            "#1).\n",
            k + 1, st, n_eq, order);
    } else {
        g_string_append_printf(t,
                               "Recommended (--pick robust): #%zu %s, the lowest pessimistic step "
                               "(%.3f s against #1's %.3f s) of the %zu strategies equivalent "
                               "to #1 (--pick fastest takes #1).\n",
                               k + 1, st, r->tiv[k].step_hi, b->step_hi, n_eq);
    }
    return g_string_free(t, FALSE);
}

/* How the intervals were formed, and the strategies at memory risk. */
static void print_intervals(FILE *out, const Report *r)
{
    fprintf(out,
            "Intervals: every ranged knob at its optimistic and its pessimistic published end "
            "(%zu ranges, prism knobs --sources)",
            prism_knob_range_count());
    if (r->corners->widen_step > 0 || r->corners->widen_mem > 0)
        fprintf(out,
                ", widened by the track record's mean step error %.1f %% and memory error "
                "%.1f %%",
                100 * r->corners->widen_step, 100 * r->corners->widen_mem);
    fprintf(out, ". '=' marks the strategies equivalent to #1: their interval overlaps #1's and "
                 "the interval of their step ratio to #1's, at the same corners");
    if (r->track->pairs.n > 0 && r->corners->tolerance > PRISM_VALIDATE_ORDER_TIE)
        fprintf(out,
                " and widened by the record's error on the ratio of two strategies of one "
                "workload, %.1f %%",
                100 * r->corners->tolerance);
    else
        fprintf(out, " and widened by the measurement tie %.0f %% (%s)",
                100 * r->corners->tolerance,
                r->track->pairs.n > 0 ? "the record's error on the ratio of two strategies is "
                                        "smaller"
                                      : "the record has no pair of runs that differ only in "
                                        "strategy");
    fputs(", holds 1; '>' the recommendation.\n", out);
    size_t risky = 0;
    const size_t shown_n = MIN(r->n_show, r->n_top);
    for (size_t i = 0; i < shown_n; i++)
        risky += prism_mem_class(&r->tiv[i], r->usable) == PRISM_MEM_AT_RISK ? 1 : 0;
    if (risky > 0)
        fprintf(out,
                "%zu of the top %zu are at memory risk: their pessimistic peak exceeds the "
                "usable %.1f GiB (--mem-safety counts them as not fitting).\n",
                risky, shown_n, r->usable / GIB);
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
    fprintf(out, "\nPareto front (%s%s): %zu strategies\n", names->str,
            r->robust ? ", at the pessimistic corner (--robust)" : "", prism_front_size(f));
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

/* The interval members of a JSON entry. */
static void interval_json(JsonBuilder *b, const Report *r, const PrismInterval *iv)
{
    json_builder_set_member_name(b, "step_lo");
    json_builder_add_double_value(b, iv->step_lo);
    json_builder_set_member_name(b, "step_hi");
    json_builder_add_double_value(b, iv->step_hi);
    json_builder_set_member_name(b, "mem_hi");
    json_builder_add_double_value(b, iv->mem_hi);
    json_builder_set_member_name(b, "mem_class");
    json_builder_add_string_value(b, prism_mem_class_name(prism_mem_class(iv, r->usable)));
}

/* One JSON entry: the strategy dims, its index, the metrics of `prism explain --json` at
 * the point values and the interval; @p top >= 0: its place in the top list. */
static gboolean json_entry(JsonBuilder *b, const Report *r, uint64_t index, long top,
                           GError **error)
{
    PrismStrategy s;
    double c[PRISM_COL_COUNT];
    PrismInterval iv;
    if (top >= 0) {
        s = r->ts[top];
        memcpy(c, r->tc[top], sizeof c);
        iv = r->tiv[top];
    } else if (!shown(r, index, &s, c, &iv, error)) {
        return FALSE;
    }
    json_builder_begin_object(b);
    prism_app_row_json_members(b, r->point, index, &s, c);
    interval_json(b, r, &iv);
    if (top >= 0) {
        json_builder_set_member_name(b, "equivalent");
        json_builder_add_boolean_value(b, r->teq[top]);
    }
    json_builder_end_object(b);
    return TRUE;
}

/* "recommendation": the pick, its place and what it gives up; "intervals": how formed. */
static void recommendation_json(JsonBuilder *b, const Report *r)
{
    json_builder_set_member_name(b, "intervals");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "ranges");
    json_builder_begin_array(b);
    for (size_t i = 0; i < prism_knob_range_count(); i++)
        json_builder_add_string_value(b, prism_knob_range(i)->name);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "widen_step");
    json_builder_add_double_value(b, r->corners->widen_step);
    json_builder_set_member_name(b, "widen_mem");
    json_builder_add_double_value(b, r->corners->widen_mem);
    json_builder_set_member_name(b, "tolerance");
    json_builder_add_double_value(b, r->corners->tolerance);
    json_builder_set_member_name(b, "robust");
    json_builder_add_boolean_value(b, r->robust);
    json_builder_set_member_name(b, "mem_safety");
    json_builder_add_boolean_value(b, r->mem_safety);
    json_builder_end_object(b);
    if (r->n_top == 0)
        return;
    size_t n_eq = 0;
    for (size_t i = 0; i < r->n_top; i++)
        n_eq += r->teq[i] ? 1 : 0;
    const double s1 = r->tc[0][PRISM_COL_TIME_STEP], sk = r->tc[r->rec][PRISM_COL_TIME_STEP];
    g_autofree char *st = prism_strategy_format(&r->ts[r->rec]);
    g_autofree char *order = prism_simplicity_text(&r->simplicity);
    g_autofree char *text = recommendation_text(r);
    json_builder_set_member_name(b, "recommendation");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "pick");
    json_builder_add_string_value(b, prism_pick_name(r->pick));
    json_builder_set_member_name(b, "rank");
    json_builder_add_int_value(b, (gint64)r->rec + 1);
    json_builder_set_member_name(b, "strategy");
    json_builder_add_string_value(b, st);
    json_builder_set_member_name(b, "step");
    json_builder_add_double_value(b, sk);
    interval_json(b, r, &r->tiv[r->rec]);
    json_builder_set_member_name(b, "equivalent");
    json_builder_add_int_value(b, (gint64)n_eq);
    json_builder_set_member_name(b, "gives_up_pct");
    json_builder_add_double_value(b, s1 > 0 ? 100 * (sk - s1) / s1 : 0.0);
    json_builder_set_member_name(b, "simplicity_order");
    json_builder_add_string_value(b, order);
    json_builder_set_member_name(b, "text");
    json_builder_add_string_value(b, text);
    json_builder_end_object(b);
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

/* The refined layout of @p s among --refine's results when it beats the default split,
 * NULL otherwise (what --emit writes). */
static const PrismLayout *refined_layout(const GPtrArray *refined, const PrismStrategy *s)
{
    for (guint i = 0; refined != NULL && i < refined->len; i++) {
        const PrismRefineResult *x = refined->pdata[i];
        if (x->improved && prism_strategy_equal(&x->strategy, s))
            return x->refined;
    }
    return NULL;
}

static gboolean report_json(FILE *out, const Report *r, const GPtrArray *refined,
                            const PrismTrackRecord *track, const PrismBaseline *bl, GError **error)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_header(b, r);
    const PrismTopK *top = prism_search_result_top(r->res, 0);
    json_builder_set_member_name(b, "top");
    json_builder_begin_array(b);
    for (size_t i = 0; i < MIN(r->n_show, prism_topk_size(top)); i++)
        if (!json_entry(b, r, prism_topk_index(top, i), (long)i, error))
            return FALSE;
    json_builder_end_array(b);
    const PrismFront *f = prism_search_result_front(r->res, 0);
    json_builder_set_member_name(b, "front");
    json_builder_begin_array(b);
    for (size_t i = 0; i < prism_front_size(f); i++)
        if (!json_entry(b, r, prism_front_index(f, i), -1, error))
            return FALSE;
    json_builder_end_array(b);
    if (refined != NULL)
        prism_app_refine_json(b, refined);
    if (bl != NULL)
        prism_app_baseline_json(b, bl);
    recommendation_json(b, r);
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
    /* the search keeps PLAN_POOL; the closest list shows the --top count */
    d->n_closest = MIN(d->n_closest, r->n_show);
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
    opt->top_k = (size_t)MAX(MAX(top, o->refine), PLAN_POOL);
    opt->closest_k = MAX(opt->top_k, PRISM_DIAGNOSE_POOL);
    opt->progress = !c->no_progress;
    opt->label = "plan";
    opt->exhaustive = o->exhaustive;
    opt->bound = !o->exhaustive;
    return TRUE;
}

/* The model the search prices with under --robust (time ranges at their pessimistic ends)
 * and --mem-safety (memory ranges at theirs, and a budget whose usable part is the usable
 * memory x (1 - @p widen_mem), so that fitting means mem_hi <= usable: prism_interval_widen). */
static PrismCostModel *search_model(const PrismCostModel *cm, gboolean robust, gboolean mem_safety,
                                    double widen_mem, GError **error)
{
    PrismKnobs k = *prism_cost_model_knobs(cm);
    PrismCluster c = *prism_cost_model_cluster(cm);
    PrismTraining t = *prism_cost_model_training(cm);
    prism_corner_apply(PRISM_CORNER_SLOW, robust, mem_safety, &k, &c);
    if (mem_safety) {
        const double margin = k.v[PRISM_KNOB_MEM_MARGIN];
        t.mem_budget_bytes = (prism_cost_model_budget(cm) - margin) * (1.0 - widen_mem) + margin;
    }
    return prism_cost_model_new(prism_cost_model_model(cm), &c, &t, &k, error);
}

static gboolean plan_run(PrismComm *comm, PlanOptions *o, GError **error)
{
    FILE *out = prism_app_out(comm);
    PrismInputs in;
    if (!prism_app_load_inputs(comm, &o->common, &in, error))
        return FALSE;
    gboolean ok = FALSE;
    g_autoptr(PrismRunConfig) cfg = NULL;
    g_autoptr(PrismBaseline) bl = NULL; /* --baseline priced (rank 0) */
    const char *base_path = o->baseline ? o->baseline : o->from;
    if (o->baseline != NULL && o->from != NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--baseline and --from both name the baseline (allowed: one of them)");
        prism_inputs_clear(&in);
        return FALSE;
    }
    if (base_path != NULL && in.n_devices != 1) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_CONFLICT,
                    "--baseline: plan one device count (the file's), not %zu", in.n_devices);
        prism_inputs_clear(&in);
        return FALSE;
    }
    /* the baseline's batch, sequence, precision and devices are the plan's */
    if (base_path != NULL && (cfg = prism_app_from(base_path, &in, error)) == NULL) {
        prism_inputs_clear(&in);
        return FALSE;
    }
    if (o->emit_rank < 0 || o->emit_rank > PRISM_APP_TOP_MAX) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "--emit-rank %d: must be between 1 and the --top count", o->emit_rank);
        prism_inputs_clear(&in);
        return FALSE;
    }
    g_autoptr(PrismSpaceFilter) filter = prism_space_filter_new();
    g_autoptr(PrismSpace) space = NULL;
    g_autoptr(PrismCostModel) cm = NULL;
    g_autoptr(PrismSearchResult) res = NULL;
    g_autoptr(GPtrArray) refined = NULL; /* --refine results (rank 0) */
    g_autoptr(PrismTrackRecord) track = NULL;
    g_autoptr(PrismCostModel) corner_cm = NULL; /* the search's under --robust/--mem-safety */
    Report r = {.pick = PRISM_PICK_SIMPLEST,
                .robust = o->robust,
                .mem_safety = o->mem_safety,
                .n_show = o->search.top == PRISM_APP_TOP_UNSET ? 10 : (size_t)o->search.top};
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
        g_autofree char *text = prism_app_space_describe(space, o->common.json);
        if (out)
            fprintf(out, "%s%s", text, o->common.json ? "\n" : "");
        ok = TRUE;
        goto done;
    }
    if (search_options(o, &opt, &local) &&
        (o->pick == NULL || prism_pick_parse(o->pick, &r.pick, &local)) &&
        prism_simplicity_parse(o->simplicity, &r.simplicity, &local)) {
        cm = prism_cost_model_new(in.model, in.cluster, &in.training, &in.knobs, &local);
        if (cm != NULL)
            kt = prism_kernel_table_get(o->common.isa, &local);
    }
    (void)prism_app_stop_check(&local);
    if (!prism_comm_agree_error(comm, &local))
        goto done;
    if (o->robust || o->mem_safety) {
        /* the record widens mem_hi, so it comes first (collective: every rank) */
        track = prism_track_record_run(comm, in.cluster->family,
                                       in.framework ? in.framework->name : NULL, &in.user_knobs);
        corner_cm =
            search_model(cm, o->robust, o->mem_safety, prism_app_widening(&track->mem), &local);
        if (!prism_comm_agree_error(comm, &local))
            goto done;
    }
    opt.kt = kt;
    PrismSearchJob job = {.cm = corner_cm ? corner_cm : cm, .space = space};
    res = prism_search_run(comm, &job, 1, &opt, NULL, &local);
    if (res == NULL)
        goto done;
    /* --refine (layer-level divide-and-conquer over the best strategies) plugs in here,
     * between the search and the report. */
    r.in = &in;
    r.filter = filter;
    r.cm = job.cm;
    r.point = cm;
    r.job = &job;
    r.res = res;
    r.usable = prism_cost_model_budget(cm) - prism_cost_model_knobs(cm)->v[PRISM_KNOB_MEM_MARGIN];
    if (prism_search_result_feasible(res) == 0) {
        (void)report_nothing_fits(comm, out, o->common.json, &r, kt, &local);
        goto done;
    }
    if ((out != NULL || o->emit != NULL) && o->refine > 0) {
        /* the K best of the top list, refined on rank 0 (cheap and deterministic; on
         * every rank under --emit, whose check runs on every rank) */
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
    if (o->emit != NULL && o->emit_rank > 0) {
        /* the K-th of the top list as the framework's configuration, and nothing else */
        const PrismTopK *top = prism_search_result_top(res, 0);
        size_t k = (size_t)o->emit_rank;
        PrismStrategy s;
        double cols[PRISM_COL_COUNT];
        if (k > MIN(r.n_show, prism_topk_size(top)))
            g_set_error(&local, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                        "--emit-rank %zu: the top list has %zu strategies (see --top)", k,
                        MIN(r.n_show, prism_topk_size(top)));
        else if (row(&r, prism_topk_index(top, k - 1), &s, cols, &local))
            ok = prism_app_emit(out, o->emit, &s, refined_layout(refined, &s), &in, &local);
        goto done;
    }
    /* how the model did on comparable published runs (collective: every rank) */
    if (track == NULL)
        track = prism_track_record_run(comm, in.cluster->family,
                                       in.framework ? in.framework->name : NULL, &in.user_knobs);
    r.track = track;
    /* the intervals of what is shown (rank 0: a few scalar evaluations per row; every
     * rank under --emit, whose check runs on every rank: the results are the same) */
    if ((out != NULL || o->emit != NULL) && !plan_intervals(&r, &local))
        goto done;
    if (o->emit != NULL) {
        /* the recommendation (--pick) as the framework's configuration, and nothing else */
        ok = prism_app_emit(out, o->emit, &r.ts[r.rec], refined_layout(refined, &r.ts[r.rec]), &in,
                            &local);
        goto done;
    }
    if (out != NULL && cfg != NULL) {
        /* the baseline next to the recommendation (rank 0: cheap, one evaluation per
         * change); its point columns are the point model's */
        bl = prism_app_baseline_new(cm, &in, base_path, cfg, &r.ts[r.rec], r.tc[r.rec], &local);
        if (bl == NULL)
            goto done;
    }
    if (out != NULL) {
        if (o->common.json) {
            ok = report_json(out, &r, refined, track, bl, &local);
        } else {
            print_header(out, &r);
            ok = print_top(out, &r, &local) && print_why(out, &r, &local);
            if (ok) {
                g_autofree char *rec = recommendation_text(&r);
                print_intervals(out, &r);
                fputs(rec, out);
                ok = print_front(out, &r, &local);
            }
            if (ok && refined != NULL)
                prism_app_refine_text(out, refined);
            if (ok && bl != NULL)
                prism_app_baseline_text(out, bl);
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
    report_clear(&r);
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
        {"emit", 0, 0, G_OPTION_ARG_STRING, &o.emit,
         "print the recommended strategy (--pick) as FRAMEWORK's own configuration (megatron, "
         "nemo, "
         "torchtitan, deepspeed, nanotron) instead of the report",
         "FRAMEWORK"},
        {"emit-rank", 0, 0, G_OPTION_ARG_INT, &o.emit_rank,
         "with --emit: the K-th strategy of the top list instead of the recommendation "
         "(--pick)",
         "K"},
        {"baseline", 0, 0, G_OPTION_ARG_FILENAME, &o.baseline,
         "price a framework configuration (as explain --from reads it) next to the "
         "recommendation, with the changes from one to the other and the gain of each alone; "
         "its batch, sequence, precision and devices are the plan's",
         "FILE"},
        {"from", 0, 0, G_OPTION_ARG_FILENAME, &o.from, "the same as --baseline", "FILE"},
        {"pick", 0, 0, G_OPTION_ARG_STRING, &o.pick,
         "which of the strategies equivalent to #1 (step intervals overlapping #1's, their "
         "ratio to #1's within the model's error on comparisons) to "
         "recommend: simplest (default: the fewest moving parts, see --simplicity), fastest "
         "(#1 itself) or robust (the lowest pessimistic step)",
         "RULE"},
        {"simplicity", 0, 0, G_OPTION_ARG_STRING, &o.simplicity,
         "the order of moving parts --pick simplest compares, fewer first (default "
         "offload,schedule,pp,vpp,cp,zero,recompute,tp,ep; parts left out follow in it)",
         "LIST"},
        {"robust", 0, 0, G_OPTION_ARG_NONE, &o.robust,
         "rank by the pessimistic step (every ranged knob at its slow end) and build the "
         "Pareto front over the pessimistic corner",
         NULL},
        {"mem-safety", 0, 0, G_OPTION_ARG_NONE, &o.mem_safety,
         "count a strategy at memory risk (its pessimistic peak, widened by the track "
         "record's memory error, exceeds the usable memory) as not fitting",
         NULL},
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
             "(prism validate on every shipped CSV: its runs and its measured failures).");
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
